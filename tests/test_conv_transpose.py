"""F.conv_transpose1d / 2d and nn.ConvTranspose1d / 2d (tinyffn/conv_transpose.py).

References: adjointness, <conv_transpose(y, W), x> = <y, conv(x, W)> for the same W, and
the defining scatter in NumPy loops (on every device, no torch needed); gradcheck;
PyTorch 2.13 live where it is installed (values, gradients, init, repr, output_size, and
that it refuses what tinyffn refuses).
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


# (n, settings): the weight is (C_in=4, C_out/groups=3, *K); K = (3,) or (3, 2)
CONFIGS = [(1, dict()), (1, dict(stride=3, padding=1, dilation=2, groups=2, output_padding=2)),
           (2, dict(stride=2, output_padding=1)),
           (2, dict(stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=2)),
           (2, dict(dilation=3, padding=1, output_padding=(2, 0)))]
CONV = {1: F.conv1d, 2: F.conv2d}
TRANSPOSED = {1: F.conv_transpose1d, 2: F.conv_transpose2d}
X = {1: _values(2, 4, 5), 2: _values(2, 4, 4, 5)}
W = {1: _values(4, 3, 3, start=1.0), 2: _values(4, 3, 3, 2, start=1.0)}


def numpy_conv_transpose(x, w, b, n, stride=1, padding=0, output_padding=0, groups=1,
                         dilation=1):
    """out[n, g·Cg + o, t·s + k·d - p] += w[g·Ci + c, o, k] · x[n, g·Ci + c, t], each
    input position's channels spread over a window of the output, in loops."""
    tup = lambda v: (v,) * n if isinstance(v, int) else tuple(v)       # noqa: E731
    s, p, o, d = tup(stride), tup(padding), tup(output_padding), tup(dilation)
    C_in, Cg, *K = w.shape
    L = x.shape[2:]
    full = [(Li - 1) * si + di * (ki - 1) + 1 + oi for Li, si, di, ki, oi in zip(L, s, d, K, o)]
    out = np.zeros((x.shape[0], Cg * groups, *full))
    Ci = C_in // groups
    for c in range(C_in):
        g = c // Ci
        for t in np.ndindex(*L):
            for k in np.ndindex(*K):
                at = tuple(ti * si + ki * di for ti, si, ki, di in zip(t, s, k, d))
                out[(slice(None), slice(g * Cg, (g + 1) * Cg)) + at] += \
                    w[(c, slice(None)) + k] * x[(slice(None), c) + t][:, None]
    out = out[(slice(None),) * 2 + tuple(slice(pi, f - pi) for pi, f in zip(p, full))]
    return out if b is None else out + b.reshape(-1, *(1,) * n)


@pytest.mark.parametrize("n, kw", CONFIGS)
def test_the_defining_scatter_by_hand(device, n, kw):
    b = _values(3 * kw.get("groups", 1), start=2.0)
    y = TRANSPOSED[n](*(tinyffn.tensor(a, device=device) for a in (X[n], W[n], b)), **kw)
    np.testing.assert_allclose(y.numpy(), numpy_conv_transpose(X[n], W[n], b, n, **kw),
                               rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("n, kw", CONFIGS)
def test_it_is_the_adjoint_of_the_convolution_with_the_same_weight(device, n, kw):
    """<conv_transpose(y, W), x> = <y, conv(x, W)> for every x of the output's shape and
    y of the input's: the derivation in conv_transpose.py's docstring, checked."""
    conv_kw = {k: v for k, v in kw.items() if k != "output_padding"}
    w = tinyffn.tensor(W[n], device=device)
    y = tinyffn.tensor(X[n], device=device)                       # (N, C_in, *L)
    z = TRANSPOSED[n](y, w, **kw)                                 # (N, C_out, *S)
    x = tinyffn.tensor(_values(*z.shape, start=3.0), device=device)
    cx = CONV[n](x, w, **conv_kw)                                 # conv maps S back to L
    if kw.get("dilation", 1) == 3:     # output_padding >= stride (< dilation): conv of S has
        cx = cx[..., :y.shape[-2], :]  # more than L rows; conv_transpose is the adjoint of
    assert cx.shape == y.shape         # conv then keeping the first L, the windows it uses
    lhs, rhs = float((z * x).sum().item()), float((y * cx).sum().item())
    assert lhs == pytest.approx(rhs, rel=1e-12)


def test_unbatched_is_the_batch_of_one(device):
    x, w = (tinyffn.tensor(a, device=device) for a in (X[2][1], W[2]))
    np.testing.assert_allclose(F.conv_transpose2d(x, w, stride=2).numpy(),
                               numpy_conv_transpose(X[2][1:2], W[2], None, 2, stride=2)[0],
                               rtol=1e-12, atol=1e-13)


def test_kernel_2_stride_2_doubles_the_size_a_unet_up_step():
    """Each input pixel becomes its own 2 × 2 block W[c, o] · x (no overlap)."""
    x = np.arange(1.0, 5.0).reshape(1, 1, 2, 2)
    w = np.array([[[[1.0, 10.0], [100.0, 1000.0]]]])                 # (1, 1, 2, 2)
    y = F.conv_transpose2d(tinyffn.tensor(x), tinyffn.tensor(w), stride=2).numpy()[0, 0]
    np.testing.assert_array_equal(y, np.kron(x[0, 0], w[0, 0]))


def test_gradcheck(device):
    x, w, b = (tinyffn.tensor(a, device=device, requires_grad=True) for a in
               (X[2][:1, :, :3, :3], W[2], _values(6)))
    assert tinyffn.gradcheck(lambda x, w, b: F.conv_transpose2d(
        x, w, b, stride=(2, 1), padding=(1, 0), output_padding=(1, 0), dilation=(1, 2),
        groups=2), [x, w, b])
    x1, w1 = (tinyffn.tensor(a, device=device, requires_grad=True) for a in (X[1][0], W[1]))
    assert tinyffn.gradcheck(lambda x, w: F.conv_transpose1d(x, w, stride=2, padding=1),
                             [x1, w1])


def test_the_graph_shows_one_frame_with_one_matmul_and_one_col2im():
    x, w = (tinyffn.tensor(a, requires_grad=True) for a in (X[2], W[2]))
    dot = tinyffn.to_dot(F.conv_transpose2d(x, w, stride=2))
    assert 'label="conv_transpose2d"' in dot and dot.count('label="matmul') == 1
    assert dot.count('label="col2im') == 1                       # the primitive (and its frame)
    assert "getitem" not in dot                                   # no padding: no crop


# ----------------------------------------------------------------------------- torch
@pytest.mark.parametrize("n, kw", CONFIGS + [(2, dict(unbatched=True, padding=1))])
def test_values_and_gradients_are_pytorchs(n, kw):
    torch = pytest.importorskip("torch")
    kw = dict(kw)
    x = X[n][0] if kw.pop("unbatched", False) else X[n]
    b = _values(3 * kw.get("groups", 1), start=2.0)
    ours = [tinyffn.tensor(a, requires_grad=True) for a in (x, W[n], b)]
    theirs = [torch.tensor(a, requires_grad=True) for a in (x, W[n], b)]
    y = TRANSPOSED[n](*ours, **kw)
    yt = getattr(torch.nn.functional, f"conv_transpose{n}d")(*theirs, **kw)
    assert_forward_and_backward_as_torchs(y, yt, ours, theirs, _values(*y.shape, start=7.0),
                                          rtol=1e-12, atol=1e-13, grad_atol=1e-12)


@pytest.mark.parametrize("n, args, kw", [
    (1, (4, 6, 3), dict(stride=3)),
    (2, (4, 6, (3, 2)), dict(stride=2, padding=1, output_padding=1, groups=2,
                             dilation=(1, 2), bias=False)),
])
def test_module_is_pytorchs(n, args, kw):
    cls = getattr(nn, f"ConvTranspose{n}d")
    layer = cls(*args, **kw, dtype="float64")
    k = args[2] if isinstance(args[2], tuple) else (args[2],) * n
    assert layer.weight.shape == (args[0], args[1] // kw.get("groups", 1)) + k
    assert layer.transposed and not nn.Conv1d(2, 2, 1).transposed
    torch = pytest.importorskip("torch")
    theirs = getattr(torch.nn, f"ConvTranspose{n}d")(*args, **kw, dtype=torch.float64)
    assert repr(layer) == repr(theirs)
    assert layer.output_padding == theirs.output_padding
    assert {k: tuple(v.shape) for k, v in layer.state_dict().items()} == {
        k: tuple(v.shape) for k, v in theirs.state_dict().items()}
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in layer.state_dict().items()})
    x = _values(2, 4, *(3,) * n)
    np.testing.assert_allclose(layer(tinyffn.tensor(x)).numpy(),
                               theirs(torch.tensor(x)).detach().numpy(), rtol=1e-12, atol=1e-13)


def test_module_init_bound_reads_the_fan_from_the_transposed_weight():
    """PyTorch's fan_in for W (in, out/groups, kH, kW) is W.shape[1] · kH · kW =
    (6/2) · 2 · 3 = 18, not in_channels/groups · kH · kW = 12."""
    layer = nn.ConvTranspose2d(4, 6, (2, 3), groups=2, dtype="float64")
    bound = 1 / math.sqrt(18)
    for p in (layer.weight.numpy(), layer.bias.numpy()):
        assert np.abs(p).max() <= bound
    assert np.abs(layer.weight.numpy()).max() > 0.9 * bound        # 72 draws: near the bound


@pytest.mark.parametrize("size, want", [((16,), 16), ((2, 6, 17), 17), ((15,), 15)])
def test_output_size_picks_the_output_padding_as_pytorch(size, want):
    layer = nn.ConvTranspose1d(4, 6, 3, stride=3, dtype="float64")
    y = layer(tinyffn.tensor(X[1]), output_size=size)
    assert y.shape == (2, 6, want)
    torch = pytest.importorskip("torch")
    theirs = torch.nn.ConvTranspose1d(4, 6, 3, stride=3, dtype=torch.float64)
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in layer.state_dict().items()})
    np.testing.assert_allclose(y.numpy(), theirs(torch.tensor(X[1]), output_size=size)
                               .detach().numpy(), rtol=1e-12, atol=1e-13)


# ----------------------------------------------------------------------------- errors
def _t(*shape, dtype="float64"):
    return np.zeros(shape, dtype)


@pytest.mark.parametrize("args, kw, match", [
    ((_t(2, 4, 5, 6), _t(3, 3, 3, 2)), {},
     r"conv_transpose2d: input of shape \(2, 4, 5, 6\) has 4 channels, but weight of shape "
     r"\(3, 3, 3, 2\) expects 3: a transposed convolution's weight is \(C_in, C_out/groups"),
    ((_t(5, 6), _t(4, 3, 3, 2)), {}, r"conv_transpose2d: input must be 4-D .* got shape \(5, 6\)"),
    ((_t(2, 4, 5, 6), _t(4, 3, 3)), {}, r"conv_transpose2d: weight must be 4-D \(C_in, "
                                        r"C_out/groups, kH, kW\), got shape \(4, 3, 3\)"),
    ((_t(2, 4, 5, 6), _t(4, 3, 3, 2)), {"groups": 3}, r"groups=3 must divide the weight's C_in"),
    ((_t(2, 4, 5, 6), _t(4, 3, 3, 2), _t(4)), {},
     r"bias must have shape \(C_out,\) = \(3,\) for weight of shape \(4, 3, 3, 2\)"),
    ((_t(2, 4, 5, 6), _t(4, 3, 3, 2)), {"stride": 2, "output_padding": 2},
     r"conv_transpose2d: output_padding=\(2, 2\) must be smaller than the stride \(\(2, 2\)\) "
     r"or the dilation"),
    ((_t(2, 4, 5, 6), _t(4, 3, 3, 2)), {"dilation": 2, "output_padding": 2},
     r"output_padding=\(2, 2\) must be smaller than the stride \(\(1, 1\)\) or the dilation "
     r"\(\(2, 2\)\)"),                 # equal to the dilation (and >= stride): refused
    ((_t(2, 4, 5, 6), _t(4, 3, 3, 2)), {"padding": 4}, r"padding=\(4, 4\) crops away the whole"),
    ((_t(2, 4, 5, 6), _t(4, 3, 3, 2)), {"padding": -1}, r"padding must be an int >= 0"),
    ((_t(2, 4, 5, 6), _t(4, 3, 3, 2)), {"output_padding": -1}, r"output_padding must be an int >= 0"),
    ((_t(2, 4, 5, 6), _t(4, 3, 3, 2)), {"stride": 0}, r"stride must be a positive integer"),
    ((_t(2, 4, 5, 6), _t(4, 3, 3, 2)), {"padding": "same"}, r"take no 'same' or 'valid'"),
    ((_t(2, 4, 5, 6), _t(4, 3, 3, 2, dtype="float32")), {}, r"weight has dtype float32"),
])
def test_errors_name_the_op_and_the_shapes_and_torch_refuses_them_too(args, kw, match):
    with pytest.raises((ValueError, TypeError), match=match):
        F.conv_transpose2d(*(tinyffn.tensor(a) for a in args), **kw)
    torch = pytest.importorskip("torch")
    with pytest.raises((RuntimeError, TypeError)):
        torch.nn.functional.conv_transpose2d(*(torch.tensor(a) for a in args), **kw)


@pytest.mark.parametrize("args, kw, match", [
    ((4, 6, 3), {"groups": 4}, r"ConvTranspose1d: groups=4 must divide in_channels=4 and "
                               r"out_channels=6"),
    ((4, 6, 3), {"padding_mode": "reflect"}, r"ConvTranspose1d: only padding_mode='zeros'"),
    ((4, 6, 3), {"padding": "same"}, r"ConvTranspose1d: padding must be an int or a 1-tuple "
                                     r"of ints, got 'same'"),
])
def test_module_errors(args, kw, match):
    with pytest.raises(ValueError, match=match):
        nn.ConvTranspose1d(*args, **kw)
    torch = pytest.importorskip("torch")
    with pytest.raises((ValueError, TypeError)):    # 'same': refused at the first call
        torch.nn.ConvTranspose1d(*args, **kw)(torch.zeros(2, 4, 5))


def test_an_output_of_one_position_is_allowed():
    """padding may crop all but one position: (3 - 1)·1 - 2·2 + 1·(3 - 1) + 1 = 1."""
    x, w = _values(1, 2, 3), _values(2, 1, 3, start=1.0)
    y = F.conv_transpose1d(tinyffn.tensor(x), tinyffn.tensor(w), padding=2)
    assert y.shape == (1, 1, 1)
    np.testing.assert_allclose(y.numpy(), numpy_conv_transpose(x, w, None, 1, padding=2),
                               rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("size, match", [
    ((14,), r"ConvTranspose1d: requested an output size of \[14\], but valid sizes range "
            r"from \[15\] to \[17\]"),
    ((2, 17), r"ConvTranspose1d: for 3-D input, output_size must have 1 or 3 elements"),
])
def test_output_size_errors(size, match):
    layer = nn.ConvTranspose1d(4, 6, 3, stride=3, dtype="float64")
    with pytest.raises(ValueError, match=match):
        layer(tinyffn.tensor(X[1]), output_size=size)
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError):
        torch.nn.ConvTranspose1d(4, 6, 3, stride=3, dtype=torch.float64)(
            torch.tensor(X[1]), output_size=size)


@pytest.mark.parametrize("x, error, match", [
    ([[1.0] * 5] * 4, TypeError, r"conv_transpose1d: input must be a tinyffn Tensor"),
    (tinyffn.zeros(1, 2, 4, 5, dtype="float64"), ValueError,
     r"conv_transpose1d: input must be 3-D .* got shape \(1, 2, 4, 5\)"),
])
def test_output_size_with_a_bad_input_names_the_input_first(x, error, match):
    """forward(x, output_size=...) checks x before reading its spatial sizes."""
    layer = nn.ConvTranspose1d(4, 6, 3, stride=3, dtype="float64")
    with pytest.raises(error, match=match):
        layer(x, output_size=(1, 2, 3))


def test_second_derivatives_through_conv_and_its_transpose_are_pytorchs():
    """A gradient penalty |dL/dx|² differentiated again: the create_graph backward records
    col2im for conv2d's im2col and im2col for conv_transpose2d's col2im (both declared
    twice differentiable), and the weights' gradients are PyTorch's."""
    torch = pytest.importorskip("torch")
    arrays = (_values(1, 4, 5, 5), _values(3, 4, 2, 2, start=1.0),
              _values(3, 2, 3, 2, start=2.0))                  # x, conv's W, the transpose's W
    gy = _values(1, 2, 9, 6, start=3.0)

    def penalty(lib, functional, tensors):
        x, w1, w2 = tensors
        y = functional.conv_transpose2d(functional.conv2d(x, w1, dilation=(1, 2)), w2,
                                        stride=2)                 # (1, 2, 9, 6)
        (gx,) = lib.autograd.grad((y * lib.tensor(gy)).sum(), [x], create_graph=True)
        (gx ** 2).sum().backward()

    ours = [tinyffn.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    penalty(tinyffn, F, ours)
    penalty(torch, torch.nn.functional, theirs)
    assert ours[0].grad is None and theirs[0].grad is None     # y is linear in x
    for a, t in zip(ours[1:], theirs[1:]):
        np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-11, atol=1e-12)
