"""F.conv2d, nn.Conv2d, F.unfold / F.fold and nn.Unfold / nn.Fold (tinyffn/convolution2d.py).

References: the defining sum in NumPy loops and fold as unfold's adjoint (on every
device, no torch needed); a ViT patch embedding against a Linear on the patches;
gradcheck; PyTorch 2.13 live where it is installed (values, gradients, reprs, and that
it refuses what tinyffn refuses).
"""
import math

import numpy as np
import pytest

import tinyffn
from torch_parity import assert_forward_and_backward_as_torchs
from tinyffn import functional as F
from tinyffn import nn


def _values(*shape, start=0.0):
    """Fixed inputs that differ entry by entry: sin(1.3 i + start)."""
    return np.sin(1.3 * np.arange(math.prod(shape)) + start).reshape(shape)


X = _values(2, 4, 6, 7)
W = {1: _values(3, 4, 3, 2, start=1.0), 2: _values(4, 2, 2, 3, start=2.0)}   # by groups
B = {1: _values(3, start=3.0), 2: _values(4, start=4.0)}

CONFIGS = [dict(), dict(stride=2), dict(stride=(2, 1), padding=(1, 2), dilation=(2, 1)),
           dict(groups=2, padding=1, stride=(1, 2)), dict(padding="same", dilation=(1, 2)),
           dict(padding="valid", groups=2)]


def numpy_conv2d(x, w, b, stride=1, padding=0, dilation=1, groups=1):
    """y[n, o, i, j] = b[o] + Σ_c,kh,kw W[o, c, kh, kw] x_pad[n, g·Cg + c, i·sH + kh·dH,
    j·sW + kw·dW], in loops."""
    pair = lambda v: (v, v) if isinstance(v, int) else tuple(v)        # noqa: E731
    (sh, sw), (dh, dw) = pair(stride), pair(dilation)
    C_out, Cg, kh, kw = w.shape
    if padding == "same":
        th, tw = dh * (kh - 1), dw * (kw - 1)
        pads = ((th // 2, th - th // 2), (tw // 2, tw - tw // 2))
    else:
        ph, pw = pair(0 if padding == "valid" else padding)
        pads = ((ph, ph), (pw, pw))
    xp = np.pad(x, ((0, 0), (0, 0)) + pads)
    H_out = (xp.shape[2] - dh * (kh - 1) - 1) // sh + 1
    W_out = (xp.shape[3] - dw * (kw - 1) - 1) // sw + 1
    y = np.zeros((x.shape[0], C_out, H_out, W_out))
    for o in range(C_out):
        g = o // (C_out // groups)
        for i in range(H_out):
            for j in range(W_out):          # the window (N, Cg, kh, kw) output (i, j) reads
                window = xp[:, g * Cg:(g + 1) * Cg, i * sh:i * sh + dh * (kh - 1) + 1:dh,
                            j * sw:j * sw + dw * (kw - 1) + 1:dw]
                y[:, o, i, j] = (window * w[o]).sum(axis=(1, 2, 3)) + (0 if b is None else b[o])
    return y


@pytest.mark.parametrize("kw", CONFIGS)
def test_the_defining_sum_by_hand(device, kw):
    g = kw.get("groups", 1)
    bias = None if "stride" in kw else B[g]
    t = [None if a is None else tinyffn.tensor(a, device=device) for a in (X, W[g], bias)]
    y = F.conv2d(*t, **kw)
    np.testing.assert_allclose(y.numpy(), numpy_conv2d(X, W[g], bias, **kw), rtol=1e-12,
                               atol=1e-14)


def test_unbatched_is_the_batch_of_one(device):
    x, w = (tinyffn.tensor(a, device=device) for a in (X[1], W[1]))
    np.testing.assert_allclose(F.conv2d(x, w, padding=1).numpy(),
                               numpy_conv2d(X[1:2], W[1], None, padding=1)[0], rtol=1e-12)


def test_a_vit_patch_embedding_is_a_linear_on_the_flattened_patches(device):
    """Conv2d(C, d, kernel_size=p, stride=p) on (N, C, H, W) is Linear(C·p·p, d) on the
    (N, H/p · W/p, C·p·p) patches: the weight (d, C, p, p) flattened is Linear's."""
    x = tinyffn.tensor(_values(2, 3, 8, 12), device=device)
    w, b = tinyffn.tensor(_values(5, 3, 4, 4, start=1.0), device=device), \
        tinyffn.tensor(_values(5, start=2.0), device=device)
    y = F.conv2d(x, w, b, stride=4)                                        # (2, 5, 2, 3)
    patches = x.reshape(2, 3, 2, 4, 3, 4).permute(0, 2, 4, 1, 3, 5).reshape(2, 6, 48)
    z = F.linear(patches, w.reshape(5, 48), b)                             # (2, 6, 5)
    np.testing.assert_allclose(y.flatten(2).transpose(1, 2).numpy(), z.numpy(), rtol=1e-13,
                               atol=1e-15)


UNFOLD = [dict(kernel_size=2), dict(kernel_size=(3, 2), dilation=(1, 2), padding=1, stride=(2, 1)),
          dict(kernel_size=3, stride=3)]


@pytest.mark.parametrize("kw", UNFOLD)
def test_fold_is_unfolds_adjoint(device, kw):
    """<fold(u), v> = <u, unfold(v)> for any u, v: fold adds each column entry back onto
    the pixel unfold copied it from (the padding's dropped)."""
    v = tinyffn.tensor(X, device=device)                                   # (2, 4, 6, 7)
    cols = F.unfold(v, **kw)
    u = tinyffn.tensor(_values(*cols.shape, start=5.0), device=device)
    lhs = float((F.fold(u, (6, 7), **kw) * v).sum().item())
    rhs = float((u * cols).sum().item())
    assert lhs == pytest.approx(rhs, rel=1e-12)
    # unfold's columns are the windows conv2d reads: conv2d = weight (C_out, C·kH·kW) @ cols
    k = kw["kernel_size"] if isinstance(kw["kernel_size"], tuple) else (kw["kernel_size"],) * 2
    w = _values(3, 4, *k, start=6.0)
    y = F.conv2d(v, tinyffn.tensor(w, device=device),
                 **{n: a for n, a in kw.items() if n != "kernel_size"})
    np.testing.assert_allclose((tinyffn.tensor(w.reshape(3, -1), device=device) @ cols).numpy(),
                               y.flatten(2).numpy(), rtol=1e-12, atol=1e-14)


def test_unfold_columns_by_hand_and_fold_counts_the_windows():
    x = np.arange(12.0).reshape(1, 1, 3, 4)
    cols = F.unfold(tinyffn.tensor(x), 2)                           # 2 × 3 windows of 2 × 2
    assert cols.shape == (1, 4, 6)
    assert cols.numpy()[0, :, 0].tolist() == [0, 1, 4, 5]            # window (0, 0), row-major
    assert cols.numpy()[0, :, 5].tolist() == [6, 7, 10, 11]          # window (1, 2)
    counts = F.fold(F.unfold(tinyffn.ones(1, 1, 3, 4), 2), (3, 4), 2)   # windows per pixel
    assert counts.numpy()[0, 0].tolist() == [[1, 2, 2, 1], [2, 4, 4, 2], [1, 2, 2, 1]]
    unbatched = F.fold(cols[0], (3, 4), 2)
    np.testing.assert_array_equal(unbatched.numpy(), (x * counts.numpy())[0])


# ----------------------------------------------------------------------------- gradcheck
def test_gradcheck_conv2d(device):
    x, w, b = (tinyffn.tensor(a, device=device, requires_grad=True)
               for a in (X[:1, :, :3, :5], W[2][:2], B[2][:2]))
    assert tinyffn.gradcheck(lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=(1, 0),
                                                      dilation=(1, 2), groups=2), [x, w, b])


def test_gradcheck_padding_mode_and_unbatched(device):
    layer = nn.Conv2d(2, 1, 2, padding=(1, 2), padding_mode="circular", dtype="float64",
                      device=device)
    x = tinyffn.tensor(X[0, :2, :2, :3], device=device, requires_grad=True)
    assert tinyffn.gradcheck(lambda x, *params: layer(x), [x, *layer.parameters()])


def test_gradcheck_unfold_and_fold(device):
    x = tinyffn.tensor(X[:1, :1, :4, :5], device=device, requires_grad=True)
    kw = dict(kernel_size=2, padding=(1, 0), stride=2)
    assert tinyffn.gradcheck(lambda x: F.unfold(x, **kw), [x])
    u = tinyffn.tensor(_values(1, 4, 6), device=device, requires_grad=True)
    assert tinyffn.gradcheck(lambda u: F.fold(u, (4, 5), **kw), [u])


def test_the_graph_shows_one_conv2d_frame_with_one_matmul_and_one_im2col():
    x, w = (tinyffn.tensor(a, requires_grad=True) for a in (X, W[1]))
    dot = tinyffn.to_dot(F.conv2d(x, w, padding=1))
    assert 'label="conv2d"' in dot and dot.count('label="matmul') == 1
    assert dot.count('label="im2col') == 1 and "getitem" not in dot
    assert "kernel_size=(3, 2)" in dot                # the windows' shape, on the node


# ----------------------------------------------------------------------------- torch
@pytest.mark.parametrize("kw", CONFIGS + [dict(padding=(2, 0), dilation=2, unbatched=True)])
def test_values_and_gradients_are_pytorchs(kw):
    torch = pytest.importorskip("torch")
    kw = dict(kw)
    x = X[0] if kw.pop("unbatched", False) else X
    g = kw.get("groups", 1)
    ours = [tinyffn.tensor(a, requires_grad=True) for a in (x, W[g], B[g])]
    theirs = [torch.tensor(a, requires_grad=True) for a in (x, W[g], B[g])]
    y, yt = F.conv2d(*ours, **kw), torch.nn.functional.conv2d(*theirs, **kw)
    assert_forward_and_backward_as_torchs(y, yt, ours, theirs, _values(*y.shape, start=7.0),
                                          rtol=1e-12, atol=1e-14, grad_atol=1e-13)


@pytest.mark.parametrize("args, kw", [
    ((4, 6, 3), {"padding": 1}), ((4, 6, (3, 2)), {"stride": (2, 1), "padding": (1, 0),
                                                   "dilation": (1, 2), "groups": 2}),
    ((4, 2, 4), {"padding": "same", "padding_mode": "reflect", "bias": False}),
    ((4, 2, (2, 3)), {"padding": (1, 2), "padding_mode": "replicate"}),
    ((4, 2, 3), {"padding": 2, "padding_mode": "circular", "stride": 2}),
])
def test_module_is_pytorchs(args, kw):
    layer = nn.Conv2d(*args, **kw, dtype="float64")
    k = args[2] if isinstance(args[2], tuple) else (args[2],) * 2
    assert layer.weight.shape == (args[1], args[0] // kw.get("groups", 1)) + k
    torch = pytest.importorskip("torch")
    theirs = torch.nn.Conv2d(*args, **kw, dtype=torch.float64)
    assert repr(layer) == repr(theirs)
    assert {k: tuple(v.shape) for k, v in layer.state_dict().items()} == {
        k: tuple(v.shape) for k, v in theirs.state_dict().items()}
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in layer.state_dict().items()})
    np.testing.assert_allclose(layer(tinyffn.tensor(X)).numpy(),
                               theirs(torch.tensor(X)).detach().numpy(), rtol=1e-12, atol=1e-14)


def test_module_init_is_kaiming_uniform_with_a_sqrt5():
    """bound = 1/sqrt(fan_in), fan_in = in_channels/groups · kH · kW = 4/2 · 2 · 3 = 12."""
    layer = nn.Conv2d(4, 300, (2, 3), groups=2, dtype="float64")
    bound = 1 / math.sqrt(12)
    for p in (layer.weight.numpy(), layer.bias.numpy()):
        assert np.abs(p).max() <= bound and np.abs(p).max() > 0.95 * bound


@pytest.mark.parametrize("call, kw", [
    ("unfold", dict(kernel_size=(3, 2), dilation=(1, 2), padding=1, stride=(2, 1))),
    ("fold", dict(output_size=(6, 7), kernel_size=(3, 2), dilation=(1, 2), padding=1, stride=(2, 1))),
])
def test_unfold_fold_and_their_modules_are_pytorchs(call, kw):
    torch = pytest.importorskip("torch")
    a = X if call == "unfold" else _values(2, 24, 21)
    y = getattr(F, call)(tinyffn.tensor(a), **kw)
    yt = getattr(torch.nn.functional, call)(torch.tensor(a), **kw)
    np.testing.assert_allclose(y.numpy(), yt.numpy(), rtol=1e-14, atol=1e-15)
    cls = {"unfold": "Unfold", "fold": "Fold"}[call]
    assert repr(getattr(nn, cls)(**kw)) == repr(getattr(torch.nn, cls)(**kw))
    np.testing.assert_array_equal(getattr(nn, cls)(**kw)(tinyffn.tensor(a[0])).numpy(),
                                  y.numpy()[0])


# ----------------------------------------------------------------------------- errors
def _t(*shape, dtype="float64"):
    return np.zeros(shape, dtype)


@pytest.mark.parametrize("args, kw, error, match", [
    ((_t(2, 5, 6, 7), _t(4, 3, 3, 3)), {}, ValueError,
     r"conv2d: input of shape \(2, 5, 6, 7\) has 5 channels, but weight of shape "
     r"\(4, 3, 3, 3\) with groups=1 expects 3.*\(N, H, W, C\) image needs x.permute\(0, 3, 1, 2\)"),
    ((_t(6, 7), _t(4, 3, 3, 3)), {}, ValueError,
     r"conv2d: input must be 4-D \(N, C_in, H, W\) or unbatched 3-D \(C_in, H, W\), got shape "
     r"\(6, 7\); for one image of one channel use x.unsqueeze\(0\)"),
    ((_t(2, 3, 6, 7), _t(4, 3, 3)), {}, ValueError,
     r"conv2d: weight must be 4-D \(C_out, C_in/groups, kH, kW\), got shape \(4, 3, 3\)"),
    ((_t(2, 3, 6, 7), _t(4, 3, 8, 3)), {}, ValueError,
     r"conv2d: the kernel spans 8 rows \(kernel_size=8, dilation=1\) but the padded input "
     r"has 6 \(input \(2, 3, 6, 7\), padding \(0, 0\)\)"),
    ((_t(2, 3, 6, 7), _t(4, 3, 3, 3)), {"dilation": (1, 4)}, ValueError, r"spans 9 columns"),
    ((_t(2, 3, 6, 7), _t(4, 3, 3, 3)), {"padding": "same", "stride": (1, 2)}, ValueError,
     r"conv2d: padding='same' is not supported for strided convolutions \(stride=\(1, 2\)\)"),
    ((_t(2, 3, 6, 7), _t(4, 3, 3, 3)), {"padding": (1, 2, 3)}, ValueError,
     r"conv2d: padding must be an int >= 0, a 2-tuple of them, 'valid' or 'same', got \(1, 2, 3\)"),
    ((_t(2, 3, 6, 7), _t(4, 3, 3, 3)), {"stride": (1, 0)}, ValueError,
     r"conv2d: stride must be a positive integer or a 2-tuple of them, got \(1, 0\)"),
    ((_t(2, 4, 6, 7), _t(3, 2, 3, 3)), {"groups": 2}, ValueError, r"conv2d: groups=2 must divide"),
    ((_t(2, 3, 6, 7), _t(4, 3, 3, 3), _t(3)), {}, ValueError,
     r"conv2d: bias must have shape \(C_out,\) = \(4,\)"),
    ((_t(2, 3, 6, 7), _t(4, 3, 3, 3, dtype="float32")), {}, TypeError,
     r"conv2d: weight has dtype float32 but input has float64"),
])
def test_conv2d_errors_name_the_op_and_the_shapes_and_torch_refuses_them_too(args, kw, error, match):
    with pytest.raises(error, match=match):
        F.conv2d(*(tinyffn.tensor(a) for a in args), **kw)
    torch = pytest.importorskip("torch")
    with pytest.raises((RuntimeError, ValueError)):
        torch.nn.functional.conv2d(*(torch.tensor(a) for a in args), **kw)


@pytest.mark.parametrize("call, a, kw, match", [
    ("unfold", _t(6, 7), dict(kernel_size=2), r"unfold: input must be 4-D \(N, C, H, W\) or "
                                              r"unbatched 3-D \(C, H, W\), got shape \(6, 7\)"),
    ("unfold", _t(1, 2, 6, 7), dict(kernel_size=8), r"unfold: the kernel spans 8 rows"),
    ("fold", _t(2, 17, 30), dict(output_size=(7, 8), kernel_size=3),
     r"fold: input of shape \(2, 17, 30\) has 17 rows, not a multiple of kH·kW = 9"),
    ("fold", _t(2, 18, 31), dict(output_size=(7, 8), kernel_size=3),
     r"fold: input of shape \(2, 18, 31\) has 31 columns, but output_size=\(7, 8\) .* has "
     r"5 × 6 = 30 windows"),
    ("fold", _t(1, 2, 18, 30), dict(output_size=(7, 8), kernel_size=3), r"fold: input must be 3-D"),
    ("fold", _t(1, 9, 1), dict(output_size=(2, 5), kernel_size=3),
     r"fold: the kernel spans 3 rows \(kernel_size=3, dilation=1\) but the padded input has 2 "
     r"\(input \(1, 9, 1\), padding \(0, 0\)\)"),
])
def test_unfold_fold_errors_and_torch_refuses_them_too(call, a, kw, match):
    with pytest.raises(ValueError, match=match):
        getattr(F, call)(tinyffn.tensor(a), **kw)
    torch = pytest.importorskip("torch")
    with pytest.raises((RuntimeError, IndexError, NotImplementedError)):
        getattr(torch.nn.functional, call)(torch.tensor(a), **kw)


@pytest.mark.parametrize("call", ["unfold", "fold"])
def test_unfold_fold_refuse_arrays_naming_the_op(call):
    kw = dict(kernel_size=2) if call == "unfold" else dict(output_size=(2, 2), kernel_size=2)
    with pytest.raises(TypeError, match=rf"^{call}: input must be a tinyffn Tensor, got "):
        getattr(F, call)(_t(1, 4, 1) if call == "fold" else _t(1, 1, 2, 2), **kw)


def test_unfold_and_fold_modules_default_to_dilation_1_padding_0_stride_1():
    """nn.Unfold(k) and nn.Fold(size, k) equal the calls with every setting spelled out."""
    x = tinyffn.tensor(_values(1, 2, 4, 5))
    cols = F.unfold(x, 2, dilation=1, padding=0, stride=1)
    np.testing.assert_array_equal(nn.Unfold(2)(x).numpy(), cols.numpy())
    np.testing.assert_array_equal(nn.Fold((4, 5), 2)(cols).numpy(),
                                  F.fold(cols, (4, 5), 2, dilation=1, padding=0, stride=1).numpy())


@pytest.mark.parametrize("args, kw, match", [
    ((3, 4, 3), {"groups": 2}, r"Conv2d: groups=2 must divide in_channels=3 and out_channels=4"),
    ((4, 4, (3, 0)), {}, r"Conv2d: kernel_size must be a positive integer or a 2-tuple"),
    ((4, 4, 3), {"padding": "same", "stride": 2}, r"Conv2d: padding='same' is not supported"),
    ((4, 4, 3), {"padding_mode": "wrap"}, r"Conv2d: padding_mode must be one of"),
])
def test_module_errors(args, kw, match):
    with pytest.raises(ValueError, match=match):
        nn.Conv2d(*args, **kw)


def test_reflect_padding_longer_than_the_image_is_refused_naming_the_module():
    layer = nn.Conv2d(4, 2, 3, padding=(1, 7), padding_mode="reflect", dtype="float64")
    with pytest.raises(ValueError, match=r"Conv2d\(padding_mode='reflect'\): pad: mode='reflect'"):
        layer(tinyffn.tensor(X))
