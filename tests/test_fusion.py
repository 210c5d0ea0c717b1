"""nn.utils.fusion (a BatchNorm folded into the layer before it) and the deprecated old names
clip_grad_norm and stateless.functional_call. The fused layer must
compute what the two modules compute in eval mode; its weights are checked against the
formula written out in NumPy and against PyTorch's own fusion (where torch is installed)."""
import numpy as np
import pytest

import tinyffn
from tinyffn import nn
from tinyffn.backend import dtype_name
from tinyffn.nn.utils.fusion import (fuse_conv_bn_eval, fuse_conv_bn_weights,
                                     fuse_linear_bn_eval, fuse_linear_bn_weights)

PAIRS = {   # name -> (layer, its BatchNorm, input shape, transpose)
    "linear": (lambda: nn.Linear(5, 4), lambda: nn.BatchNorm1d(4), (6, 5), False),
    "linear_bn1": (lambda: nn.Linear(5, 4), lambda: nn.BatchNorm1d(1), None, False),
    "linear_no_bias": (lambda: nn.Linear(5, 4, bias=False), lambda: nn.BatchNorm1d(4),
                       (6, 5), False),
    "conv1d": (lambda: nn.Conv1d(3, 4, 3, padding=1), lambda: nn.BatchNorm1d(4), (2, 3, 7),
               False),
    "conv2d_groups": (lambda: nn.Conv2d(4, 6, 3, groups=2, bias=False),
                      lambda: nn.BatchNorm2d(6, affine=False), (2, 4, 5, 5), False),
    "conv3d": (lambda: nn.Conv3d(2, 3, 2), lambda: nn.BatchNorm3d(3), (1, 2, 3, 3, 3), False),
    "conv_transpose2d": (lambda: nn.ConvTranspose2d(3, 4, 2, stride=2),
                         lambda: nn.BatchNorm2d(4), (2, 3, 3, 3), True),
}


def trained_pair(name, device, dtype="float64"):
    """The layer and its BatchNorm after a few training batches (running statistics far
    from 0 and 1) with a random affine part, both then put in eval mode."""
    make_layer, make_bn, shape, _ = PAIRS[name]
    tinyffn.manual_seed(3)
    layer, bn = make_layer().to(device, dtype), make_bn().to(device, dtype)
    if bn.weight is not None:
        with tinyffn.no_grad():
            bn.weight.copy_(tinyffn.rand(bn.weight.shape, dtype=dtype, device=device) + 0.5)
            bn.bias.copy_(tinyffn.randn(bn.bias.shape, dtype=dtype, device=device))
    if shape is not None:
        for _ in range(3):
            bn(layer(3 * tinyffn.randn(shape, dtype=dtype, device=device) + 2))
    else:                                                      # one channel: set them
        bn.running_mean.fill_(0.7)
        bn.running_var.fill_(2.5)
    layer.eval(), bn.eval()
    return layer, bn


def fuse(name, layer, bn):
    if name.startswith("linear"):
        return fuse_linear_bn_eval(layer, bn)
    return fuse_conv_bn_eval(layer, bn, transpose=PAIRS[name][3])


@pytest.mark.parametrize("name", PAIRS)
def test_the_fused_layer_computes_the_layer_then_the_batchnorm(name, device):
    layer, bn = trained_pair(name, device)
    before = {k: v.numpy().copy() for k, v in {**layer.state_dict(), **{
        "bn." + k: v for k, v in bn.state_dict().items()}}.items()}
    fused = fuse(name, layer, bn)
    shape = PAIRS[name][2] or (6, 5)
    x = tinyffn.randn(shape, dtype="float64", device=device)
    y = bn(layer(x)) if PAIRS[name][2] is not None else bn(layer(x).reshape(-1, 1)).reshape(6, 4)
    np.testing.assert_allclose(fused(x).numpy(), y.numpy(), rtol=1e-12, atol=1e-12)
    assert type(fused) is type(layer) and fused is not layer
    after = {k: v.numpy() for k, v in {**layer.state_dict(), **{
        "bn." + k: v for k, v in bn.state_dict().items()}}.items()}
    for k in before:                                           # the originals are unchanged
        np.testing.assert_array_equal(after[k], before[k], err_msg=k)


def test_fused_weights_are_the_formula_written_out():
    rng = np.random.default_rng(0)
    w, b = rng.standard_normal((4, 3, 2, 2)), rng.standard_normal(4)
    mean, var = rng.standard_normal(4), rng.random(4) + 0.1
    gamma, beta, eps = rng.standard_normal(4), rng.standard_normal(4), 1e-3
    s = gamma / np.sqrt(var + eps)
    t = lambda a: tinyffn.tensor(a, dtype="float64")                    # noqa: E731
    fw, fb = fuse_conv_bn_weights(t(w), t(b), t(mean), t(var), eps, t(gamma), t(beta))
    np.testing.assert_allclose(fw.numpy(), w * s[:, None, None, None], rtol=1e-14)
    np.testing.assert_allclose(fb.numpy(), (b - mean) * s + beta, rtol=1e-14)
    # a transposed convolution's weight is (C_in, C_out, k, k): the scale goes on axis 1
    wt = rng.standard_normal((3, 4, 2, 2))
    fw, _ = fuse_conv_bn_weights(t(wt), t(b), t(mean), t(var), eps, t(gamma), t(beta), True)
    np.testing.assert_allclose(fw.numpy(), wt * s[None, :, None, None], rtol=1e-14)
    lw = rng.standard_normal((4, 5))
    fw, fb = fuse_linear_bn_weights(t(lw), None, t(mean), t(var), eps, t(gamma), t(beta))
    np.testing.assert_allclose(fw.numpy(), lw * s[:, None], rtol=1e-14)
    np.testing.assert_allclose(fb.numpy(), -mean * s + beta, rtol=1e-14)


def test_results_are_new_parameters_in_the_layers_dtype_and_requires_grad():
    w = nn.Parameter(tinyffn.randn(4, 3, 2))                           # float32
    frozen = nn.Parameter(tinyffn.randn(4), requires_grad=False)
    stats = [tinyffn.randn(4, dtype="float64"), tinyffn.rand(4, dtype="float64") + 1]
    fw, fb = fuse_conv_bn_weights(w, frozen, *stats, 1e-5, None, None)
    assert isinstance(fw, nn.Parameter) and isinstance(fb, nn.Parameter)
    assert dtype_name(fw.dtype) == dtype_name(fb.dtype) == "float32"  # not the bn's float64
    assert fw.requires_grad and not fb.requires_grad and fw.is_leaf
    # no layer bias: PyTorch's fused bias is made from zeros that need no gradient
    fw, fb = fuse_conv_bn_weights(w, None, *stats, 1e-5, None, None)
    assert fw.requires_grad and not fb.requires_grad
    assert dtype_name(fb.dtype) == "float32"
    # a Linear's alike (its BatchNorm's float64 affine part too)
    lw, affine = nn.Parameter(tinyffn.randn(4, 3)), stats[::-1]
    fw, fb = fuse_linear_bn_weights(lw, frozen, *stats, 1e-5, *affine)
    assert dtype_name(fw.dtype) == dtype_name(fb.dtype) == "float32"
    assert isinstance(fb, nn.Parameter) and fw.requires_grad and not fb.requires_grad
    fw, fb = fuse_linear_bn_weights(lw, None, *stats, 1e-5, *affine)
    assert dtype_name(fb.dtype) == "float32" and not fb.requires_grad


def test_fusion_refuses_training_mode_missing_statistics_and_other_channels():
    layer, bn = nn.Linear(5, 4), nn.BatchNorm1d(4)
    with pytest.raises(AssertionError, match="fusion only for eval.*eval\\(\\)"):
        fuse_linear_bn_eval(layer, bn)
    layer.eval()
    with pytest.raises(AssertionError, match="BatchNorm1d True"):
        fuse_linear_bn_eval(layer, bn)
    with pytest.raises(AssertionError, match="track_running_stats"):
        fuse_linear_bn_eval(layer, nn.BatchNorm1d(4, track_running_stats=False).eval())
    with pytest.raises(AssertionError, match="out_features=4 and bn.num_features=3"):
        fuse_linear_bn_eval(layer, nn.BatchNorm1d(3).eval())
    conv = nn.Conv2d(3, 4, 3).eval()
    with pytest.raises(ValueError, match=r"3 channels but conv_w \(4, 3, 3, 3\).*axis 0"):
        fuse_conv_bn_eval(conv, nn.BatchNorm2d(3).eval())
    with pytest.raises(ValueError, match="axis 1"):                   # not a transposed conv
        fuse_conv_bn_eval(conv, nn.BatchNorm2d(4).eval(), transpose=True)


def test_clip_grad_norm_is_the_old_name_and_warns():
    p = tinyffn.zeros(2, requires_grad=True)
    p.grad = tinyffn.tensor([3.0, 4.0])
    with pytest.warns(FutureWarning, match="clip_grad_norm_") as said:
        n = nn.utils.clip_grad_norm(p, 1.0)
    assert n.item() == 5.0 and said[0].filename == __file__     # it points at the caller
    np.testing.assert_allclose(p.grad.numpy(), [0.6, 0.8], rtol=1e-5)
    p.grad = tinyffn.tensor([3.0, -4.0])
    with pytest.warns(FutureWarning):                   # norm_type reaches clip_grad_norm_
        assert nn.utils.clip_grad_norm(p, 1.0, norm_type=1).item() == 7.0
    np.testing.assert_allclose(p.grad.numpy(), [3 / 7, -4 / 7], rtol=1e-5)
    p.grad = tinyffn.tensor([float("inf"), 1.0])
    with pytest.warns(FutureWarning), pytest.raises(RuntimeError, match="error_if_nonfinite"):
        nn.utils.clip_grad_norm(p, 1.0, error_if_nonfinite=True)


@pytest.mark.parametrize("transpose", [False, True])
def test_fused_weights_are_pytorchs(transpose):
    torch = pytest.importorskip("torch")
    from torch.nn.utils import fuse_conv_bn_weights as torch_fuse
    from torch.nn.utils import fuse_linear_bn_weights as torch_linear
    rng = np.random.default_rng(1)
    w = rng.standard_normal((3, 4, 2) if transpose else (4, 3, 2)).astype(np.float32)
    stats = [rng.standard_normal(4), rng.random(4) + 0.2]
    affine = [rng.standard_normal(4).astype(np.float32) for _ in range(2)]
    ours = fuse_conv_bn_weights(tinyffn.tensor(w, requires_grad=True), None,
                                *map(tinyffn.tensor, stats), 1e-5,
                                *map(tinyffn.tensor, affine), transpose)
    theirs = torch_fuse(torch.tensor(w, requires_grad=True), None,
                        *map(torch.tensor, stats), 1e-5, *map(torch.tensor, affine), transpose)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-6)
        assert (dtype_name(a.dtype), a.requires_grad) == (str(b.dtype)[6:], b.requires_grad)
    lw = rng.standard_normal((4, 5)).astype(np.float32)
    ours = fuse_linear_bn_weights(tinyffn.tensor(lw), tinyffn.tensor(affine[0]),
                                  *map(tinyffn.tensor, stats), 1e-5, *map(tinyffn.tensor, affine))
    theirs = torch_linear(torch.tensor(lw), torch.tensor(affine[0]), *map(torch.tensor, stats),
                          1e-5, *map(torch.tensor, affine))
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-6)
        assert dtype_name(a.dtype) == str(b.dtype)[6:]


def test_stateless_functional_call_is_the_old_name_and_warns():
    from tinyffn.nn.utils import stateless
    m = nn.Linear(2, 1)
    w = {"weight": tinyffn.tensor([[1.0, 2.0]]), "bias": tinyffn.tensor([0.5])}
    with pytest.warns(FutureWarning, match="func.functional_call") as said:
        y = stateless.functional_call(m, w, (tinyffn.tensor([[3.0, 4.0]]),))
    assert y.item() == 11.5 and m.weight.numpy().tolist() != [[1.0, 2.0]]
    assert said[0].filename == __file__                 # the warning points at the caller


@pytest.mark.filterwarnings("ignore:nn.utils.stateless:FutureWarning")
def test_stateless_functional_call_passes_kwargs_tie_weights_and_strict_on():
    """Two Linears sharing one weight: the weight given for one follows to the
    other unless tie_weights=False; strict=True wants both; kwargs reach forward."""
    from tinyffn.nn.utils import stateless

    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = nn.Linear(1, 1, bias=False), nn.Linear(1, 1, bias=False)
            self.a.weight = self.b.weight = nn.Parameter(tinyffn.tensor([[1.0]]))

        def forward(self, x, scale=1.0):
            return (self.a(x) + 10 * self.b(x)) * scale

    m, x, w = Tied(), tinyffn.tensor([[1.0]]), {"a.weight": tinyffn.tensor([[2.0]])}
    assert stateless.functional_call(m, w, (x,), {"scale": 3.0}).item() == 66.0
    assert stateless.functional_call(m, w, (x,), tie_weights=False).item() == 12.0
    with pytest.raises(RuntimeError, match="strict=True, but no tensor was given for 'b.weight'"):
        stateless.functional_call(m, w, (x,), tie_weights=False, strict=True)
