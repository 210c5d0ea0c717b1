"""Normalization and dropout: F.layer_norm, F.rms_norm, F.dropout and nn.LayerNorm,
nn.RMSNorm, nn.Dropout.

Each is checked against three independent references: NumPy written out here from the
formulas, finite differences (tinyffn.gradcheck, float64) and PyTorch (CPU, where installed).
The known properties are checked too: a layer norm's output has mean 0 and variance 1 over
the normalized axes and its input gradient sums to 0 there; dropout keeps a fraction 1 - p
of the entries, scaled by 1 / (1 - p), and a seed fixes the mask on every device.
"""
import math
import re
import warnings

import numpy as np
import pytest

import tinyffn
from tinyffn import functional as F
from tinyffn import nn
from tinyffn.autograd import Scope
from tinyffn.backend import dtype_name
from tinyffn.ops import PRIMITIVES
from test_functional import as_tensor, graph_nodes

FUSED = {"linear", "gelu", "swish"}                 # one-node alternatives, not primitives
PRIMITIVE_NAMES = {f.op_name() for f in PRIMITIVES} - FUSED


def as_tuple(normalized_shape):
    return (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)


# ----------------------------------------------------------------------------- references
def ref_layer_norm(x, normalized_shape, w=None, b=None, eps=1e-5):
    """(x - mean) / sqrt(var + eps) * w + b, mean and biased variance over the last k axes."""
    k = len(as_tuple(normalized_shape))
    axes = tuple(range(x.ndim - k, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)       # divide by N, not N - 1
    y = (x - mean) / np.sqrt(var + eps)
    if w is not None:
        y = y * w
    if b is not None:
        y = y + b
    return y


def ref_rms_norm(x, normalized_shape, w=None, eps=None):
    """x / sqrt(mean(x^2) + eps) * w over the last k axes; eps=None is finfo(dtype).eps."""
    k = len(as_tuple(normalized_shape))
    axes = tuple(range(x.ndim - k, x.ndim))
    eps = np.finfo(x.dtype).eps if eps is None else eps
    y = x / np.sqrt((x ** 2).mean(axis=axes, keepdims=True) + eps)
    return y if w is None else y * w


# (input shape, normalized_shape): an int, a 1-tuple, a 2-tuple, a list, the whole input
SHAPES = [
    ((5,), 5),
    ((3, 5), 5),
    ((3, 5), (5,)),
    ((4, 6), (4, 6)),
    ((2, 3, 4), 4),
    ((2, 3, 4), (3, 4)),
    ((2, 3, 4), [3, 4]),
]
SHAPE_IDS = [f"{'x'.join(map(str, s))}-{n}" for s, n in SHAPES]


def random_case(x_shape, normalized_shape, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(loc=0.7, scale=2.0, size=x_shape)
    w = rng.normal(size=as_tuple(normalized_shape))
    b = rng.normal(size=as_tuple(normalized_shape))
    return x, w, b


# ----------------------------------------------------------------------------- layer_norm
@pytest.mark.parametrize("affine", ["none", "weight", "bias", "both"])
@pytest.mark.parametrize("x_shape, normalized_shape", SHAPES, ids=SHAPE_IDS)
def test_layer_norm_matches_numpy(x_shape, normalized_shape, affine, device):
    x, w, b = random_case(x_shape, normalized_shape)
    w = w if affine in ("weight", "both") else None
    b = b if affine in ("bias", "both") else None
    y = F.layer_norm(as_tensor(x, device), normalized_shape,
                     None if w is None else as_tensor(w, device),
                     None if b is None else as_tensor(b, device))
    assert y.shape == x_shape and y.device == device
    assert dtype_name(y.dtype) == "float64"
    np.testing.assert_allclose(y.numpy(), ref_layer_norm(x, normalized_shape, w, b),
                               rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("eps", [1e-5, 1e-2, 3.0])
def test_layer_norm_eps_enters_under_the_square_root(eps, device):
    """A row of small spread: eps dominates the variance, so a misplaced eps shows."""
    x = np.array([[0.0, 1e-3, -2e-3, 4e-3], [5.0, 5.0, 5.0, 5.0]])
    y = F.layer_norm(as_tensor(x, device), 4, eps=eps).numpy()
    np.testing.assert_allclose(y, ref_layer_norm(x, 4, eps=eps), rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(y[1], 0.0)             # a constant row: x - mean = 0
    positional = F.layer_norm(as_tensor(x, device), (4,), None, None, eps).numpy()
    np.testing.assert_array_equal(positional, y)         # torch's argument order


@pytest.mark.parametrize("x_shape, normalized_shape", SHAPES, ids=SHAPE_IDS)
def test_layer_norm_matches_torch(x_shape, normalized_shape):
    torch = pytest.importorskip("torch")
    x, w, b = random_case(x_shape, normalized_shape, seed=1)
    shape = list(as_tuple(normalized_shape))
    for eps in (1e-5, 0.1):
        mine = F.layer_norm(tinyffn.tensor(x), normalized_shape, tinyffn.tensor(w),
                            tinyffn.tensor(b), eps=eps)
        theirs = torch.nn.functional.layer_norm(torch.tensor(x), shape, torch.tensor(w),
                                                torch.tensor(b), eps=eps)
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-10, atol=1e-12)
        mine = F.layer_norm(tinyffn.tensor(x), normalized_shape, eps=eps)
        theirs = torch.nn.functional.layer_norm(torch.tensor(x), shape, eps=eps)
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("x_shape, normalized_shape", [((2, 3, 4), (3, 4)), ((3, 4), 4),
                                                       ((5,), 5)], ids=["3d-2", "2d-int", "1d"])
def test_layer_norm_gradcheck(x_shape, normalized_shape, device):
    x, w, b = random_case(x_shape, normalized_shape, seed=2)
    x = as_tensor(x, device, requires_grad=True)
    w = as_tensor(w, device, requires_grad=True)
    b = as_tensor(b, device, requires_grad=True)
    assert tinyffn.gradcheck(lambda x, w, b: F.layer_norm(x, normalized_shape, w, b),
                             [x, w, b])
    assert tinyffn.gradcheck(lambda x: F.layer_norm(x, normalized_shape, eps=0.5), [x])


@pytest.mark.parametrize("x_shape, normalized_shape", [((2, 3, 4), (3, 4)), ((2, 3, 4), 4)],
                         ids=["3d-2", "3d-int"])
def test_layer_norm_gradients_match_torch(x_shape, normalized_shape):
    torch = pytest.importorskip("torch")
    x, w, b = random_case(x_shape, normalized_shape, seed=3)
    gy = np.random.default_rng(4).normal(size=x_shape)
    mine = [tinyffn.tensor(a, requires_grad=True) for a in (x, w, b)]
    F.layer_norm(mine[0], normalized_shape, mine[1], mine[2]).backward(tinyffn.tensor(gy))
    theirs = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
    torch.nn.functional.layer_norm(theirs[0], list(as_tuple(normalized_shape)), theirs[1],
                                   theirs[2]).backward(torch.tensor(gy))
    for name, m, t in zip(("x", "weight", "bias"), mine, theirs):
        assert m.grad.shape == tuple(t.grad.shape), name
        np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12,
                                   err_msg=name)


def test_layer_norm_of_a_constant_row_is_finite_and_matches_torch():
    """var = 0: y = bias, and the gradient is sqrt(1/eps) (g - mean g), finite, as torch's."""
    torch = pytest.importorskip("torch")
    x = np.array([[2.0, 2.0, 2.0, 2.0], [1.0, -1.0, 3.0, 0.5]])
    gy = np.array([[1.0, -2.0, 0.5, 3.0], [0.3, 0.1, -1.0, 2.0]])
    mine = tinyffn.tensor(x, requires_grad=True)
    y = F.layer_norm(mine, 4)
    y.backward(tinyffn.tensor(gy))
    theirs = torch.tensor(x, requires_grad=True)
    torch.nn.functional.layer_norm(theirs, [4]).backward(torch.tensor(gy))
    np.testing.assert_array_equal(y.numpy()[0], 0.0)
    np.testing.assert_allclose(mine.grad.numpy()[0], (gy[0] - gy[0].mean()) / math.sqrt(1e-5),
                               rtol=1e-12)
    np.testing.assert_allclose(mine.grad.numpy(), theirs.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_layer_norm_output_has_mean_0_and_variance_1(device):
    rng = np.random.default_rng(5)
    x = rng.normal(loc=5.0, scale=3.0, size=(4, 6, 5))
    y = F.layer_norm(as_tensor(x, device), (6, 5), eps=1e-12).numpy()
    np.testing.assert_allclose(y.mean(axis=(1, 2)), 0.0, atol=1e-12)
    np.testing.assert_allclose(y.var(axis=(1, 2)), 1.0, rtol=1e-9)    # biased: ddof=0
    # over the last axis only, each (4, 6) row is normalised on its own
    y = F.layer_norm(as_tensor(x, device), 5, eps=1e-12).numpy()
    np.testing.assert_allclose(y.mean(axis=-1), 0.0, atol=1e-12)
    np.testing.assert_allclose(y.var(axis=-1), 1.0, rtol=1e-9)


def test_layer_norm_input_gradient_sums_to_zero_over_the_normalized_axes(device):
    """y does not change when a constant is added along the normalized axes, so the input
    gradient of any sum(y * c) is orthogonal to that shift: it sums to 0 over those axes.
    With eps -> 0, y does not change under scaling about the mean either: sum(gx * x) = 0."""
    rng = np.random.default_rng(6)
    x_np, w_np, b_np = random_case((3, 4, 5), (4, 5), seed=7)
    c = rng.normal(size=(3, 4, 5))
    for eps in (1e-5, 1e-12):
        x = as_tensor(x_np, device, requires_grad=True)
        w, b = as_tensor(w_np, device), as_tensor(b_np, device)
        (F.layer_norm(x, (4, 5), w, b, eps=eps) * as_tensor(c, device)).sum().backward()
        gx = x.grad.numpy()
        assert np.abs(gx).max() > 0.1                    # not trivially zero
        np.testing.assert_allclose(gx.sum(axis=(1, 2)), 0.0, atol=1e-12)
    np.testing.assert_allclose((gx * x_np).sum(axis=(1, 2)), 0.0, atol=1e-9)


def test_layer_norm_of_float32_with_a_large_offset_is_accurate():
    """x = 1000 + noise in float32: subtracting the mean first (two passes) keeps about 4
    digits; E[x^2] - E[x]^2 would cancel catastrophically. PyTorch is accurate here."""
    x = (1000.0 + np.random.default_rng(8).normal(size=(4, 64))).astype(np.float32)
    y = F.layer_norm(tinyffn.tensor(x), 64)
    assert dtype_name(y.dtype) == "float32"
    np.testing.assert_allclose(y.numpy(), ref_layer_norm(x.astype(np.float64), 64),
                               atol=2e-3)


# ----------------------------------------------------------------------------- rms_norm
@pytest.mark.parametrize("affine", [False, True])
@pytest.mark.parametrize("x_shape, normalized_shape", SHAPES, ids=SHAPE_IDS)
def test_rms_norm_matches_numpy(x_shape, normalized_shape, affine, device):
    x, w, _ = random_case(x_shape, normalized_shape, seed=9)
    w = w if affine else None
    for eps in (None, 1e-6, 0.5):
        y = F.rms_norm(as_tensor(x, device), normalized_shape,
                       None if w is None else as_tensor(w, device), eps=eps)
        assert y.shape == x_shape and y.device == device
        np.testing.assert_allclose(y.numpy(), ref_rms_norm(x, normalized_shape, w, eps),
                                   rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rms_norm_default_eps_is_the_dtypes_machine_epsilon(dtype, device):
    """For tiny inputs eps dominates mean(x^2): y = x / sqrt(mean(x^2) + finfo.eps)."""
    x = np.array([[1e-9, -2e-9, 3e-9], [1e-4, 2e-4, -1e-4]]).astype(dtype)
    y = F.rms_norm(as_tensor(x, device), 3)
    assert dtype_name(y.dtype) == dtype
    expected = ref_rms_norm(x.astype(np.float64), 3, eps=float(np.finfo(dtype).eps))
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-5 if dtype == "float32" else 1e-12)
    # and it is not float64's eps on float32 input, nor float32's on float64 input
    other = "float64" if dtype == "float32" else "float32"
    wrong = ref_rms_norm(x.astype(np.float64), 3, eps=float(np.finfo(other).eps))
    assert not np.allclose(y.numpy()[0], wrong[0], rtol=1e-2)


def test_rms_norm_default_eps_of_float16_is_float32s(device):
    """A float16 input is normalized in float32, and eps=None is float32's epsilon there,
    as in PyTorch (torch.rms_norm's eps is its opmath type's): float16's own epsilon,
    ~1e-3, would swamp mean(x^2) ~ 1e-4 and shrink the result threefold."""
    if device == "strict":
        pytest.skip("the array API standard has no float16")
    x = np.array([[1e-2, -2e-2, 3e-2], [1e-3, 0.0, -1e-3]], dtype=np.float16)
    # torch.rms_norm(torch.tensor(x), (3,)) in PyTorch 2.13
    expected = [[0.462890625, -0.92578125, 1.388671875], [1.1279296875, 0.0, -1.1279296875]]
    for y in (F.rms_norm(as_tensor(x, device), 3), nn.RMSNorm(3, dtype="float16",
                                                                device=device)(as_tensor(x, device))):
        assert dtype_name(y.dtype) == "float16"
        np.testing.assert_allclose(y.numpy(), expected, rtol=2e-3)


@pytest.mark.parametrize("x_shape, normalized_shape", SHAPES, ids=SHAPE_IDS)
def test_rms_norm_matches_torch(x_shape, normalized_shape):
    torch = pytest.importorskip("torch")
    x, w, _ = random_case(x_shape, normalized_shape, seed=10)
    shape = list(as_tuple(normalized_shape))
    for eps in (None, 1e-6):
        mine = F.rms_norm(tinyffn.tensor(x), normalized_shape, tinyffn.tensor(w), eps=eps)
        theirs = torch.nn.functional.rms_norm(torch.tensor(x), shape, torch.tensor(w), eps=eps)
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-10, atol=1e-12)
    tiny = (x * 1e-9).astype(np.float32)           # where the default eps matters, float32
    mine = F.rms_norm(tinyffn.tensor(tiny), normalized_shape)
    theirs = torch.nn.functional.rms_norm(torch.tensor(tiny), shape)
    np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("x_shape, normalized_shape", [((2, 3, 4), (3, 4)), ((3, 4), 4)],
                         ids=["3d-2", "2d-int"])
def test_rms_norm_gradcheck(x_shape, normalized_shape, device):
    x, w, _ = random_case(x_shape, normalized_shape, seed=11)
    x = as_tensor(x, device, requires_grad=True)
    w = as_tensor(w, device, requires_grad=True)
    assert tinyffn.gradcheck(lambda x, w: F.rms_norm(x, normalized_shape, w), [x, w])
    assert tinyffn.gradcheck(lambda x: F.rms_norm(x, normalized_shape, eps=0.5), [x])


def test_rms_norm_gradients_match_torch():
    torch = pytest.importorskip("torch")
    x, w, _ = random_case((2, 3, 4), (3, 4), seed=12)
    gy = np.random.default_rng(13).normal(size=(2, 3, 4))
    for eps in (None, 1e-3):
        mine = [tinyffn.tensor(a, requires_grad=True) for a in (x, w)]
        F.rms_norm(mine[0], (3, 4), mine[1], eps).backward(tinyffn.tensor(gy))
        theirs = [torch.tensor(a, requires_grad=True) for a in (x, w)]
        torch.nn.functional.rms_norm(theirs[0], [3, 4], theirs[1], eps).backward(
            torch.tensor(gy))
        for name, m, t in zip(("x", "weight"), mine, theirs):
            np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), rtol=1e-10,
                                       atol=1e-12, err_msg=name)


def test_rms_norm_result_has_the_inputs_dtype_next_to_a_wider_weight(device):
    """PyTorch's rms_norm ends in type_as(input): x̂ in x's float32 times a float64
    weight, in float64, rounded to float32 (fuzzer: it was float64 here). The weight's
    gradient stays float64, x's float32."""
    x_np = np.random.default_rng(16).normal(size=(3, 4)).astype(np.float32)
    w_np = np.random.default_rng(17).normal(size=4)                       # float64
    x = tinyffn.tensor(x_np, device=device, requires_grad=True)
    w = tinyffn.tensor(w_np, device=device, requires_grad=True)
    y = F.rms_norm(x, 4, w, eps=1e-6)
    assert dtype_name(y.dtype) == "float32"
    x_hat = x_np / np.sqrt((x_np * x_np).mean(axis=-1, keepdims=True) + np.float32(1e-6))
    np.testing.assert_allclose(y.numpy(), (x_hat.astype(np.float64) * w_np).astype(np.float32),
                               rtol=2e-7)
    y.sum().backward()
    assert (dtype_name(x.grad.dtype), dtype_name(w.grad.dtype)) == ("float32", "float64")
    np.testing.assert_allclose(w.grad.numpy(), x_hat.sum(axis=0), rtol=1e-6)


@pytest.mark.parametrize("x_dtype, w_dtype", [("float32", "float64"), ("float64", "float32"),
                                              ("float16", "float64")])
def test_rms_norm_of_mixed_dtypes_matches_torch(x_dtype, w_dtype):
    torch = pytest.importorskip("torch")
    x, w, _ = random_case((3, 4), 4, seed=18)
    gy = np.random.default_rng(19).normal(size=(3, 4))
    results = []
    for lib in (tinyffn, torch):
        xt = lib.tensor(x, dtype=getattr(lib, x_dtype), requires_grad=True)
        wt = lib.tensor(w, dtype=getattr(lib, w_dtype), requires_grad=True)
        fn = F.rms_norm if lib is tinyffn else torch.nn.functional.rms_norm
        with warnings.catch_warnings():     # torch: "Mismatch dtype ... fused implementation"
            warnings.filterwarnings("ignore", "Mismatch dtype", UserWarning)
            y = fn(xt, [4], wt, 1e-6)
        y.backward(lib.tensor(gy, dtype=y.dtype))
        results.append([(str(t.dtype).removeprefix("torch."), np.asarray(
            t.detach().numpy() if lib is torch else t.numpy(), dtype=np.float64))
            for t in (y, xt.grad, wt.grad)])
    tol = 1e-3 if "float16" in (x_dtype, w_dtype) else 1e-6
    for name, (dm, m), (dt, t) in zip(("y", "x.grad", "weight.grad"), *results):
        assert dm.removeprefix("tinyffn.") == dt, name
        np.testing.assert_allclose(m, t, rtol=tol, atol=tol, err_msg=name)


def test_rms_norm_is_scale_invariant(device):
    """rms_norm(a x) = rms_norm(x) for a > 0 (eps -> 0), so sum(gx * x) = 0 over the axes."""
    x_np = np.random.default_rng(14).normal(size=(3, 8))
    c = np.random.default_rng(15).normal(size=(3, 8))
    y = F.rms_norm(as_tensor(x_np, device), 8, eps=1e-300).numpy()
    y7 = F.rms_norm(as_tensor(7.0 * x_np, device), 8, eps=1e-300).numpy()
    np.testing.assert_allclose(y7, y, rtol=1e-12)
    np.testing.assert_allclose((y ** 2).mean(axis=-1), 1.0, rtol=1e-12)     # unit RMS
    x = as_tensor(x_np, device, requires_grad=True)
    (F.rms_norm(x, 8, eps=1e-300) * as_tensor(c, device)).sum().backward()
    np.testing.assert_allclose((x.grad.numpy() * x_np).sum(axis=-1), 0.0, atol=1e-12)


# ----------------------------------------------------------------------------- float32
@pytest.mark.parametrize("norm", ["layer_norm", "rms_norm"])
def test_norms_keep_float32(norm, device):
    x = tinyffn.randn(2, 3, 4, device=device, requires_grad=True)
    w = tinyffn.randn(3, 4, device=device, requires_grad=True)
    b = tinyffn.randn(3, 4, device=device, requires_grad=True)
    if norm == "layer_norm":
        y, params = F.layer_norm(x, (3, 4), w, b), (x, w, b)
        expected = ref_layer_norm(x.numpy().astype(np.float64), (3, 4), w.numpy(), b.numpy())
    else:
        y, params = F.rms_norm(x, (3, 4), w), (x, w)
        expected = ref_rms_norm(x.numpy().astype(np.float64), (3, 4), w.numpy(),
                                eps=float(np.finfo(np.float32).eps))
    assert dtype_name(y.dtype) == "float32"
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-4, atol=1e-5)
    y.backward(tinyffn.randn(2, 3, 4, device=device))
    for t in params:
        assert dtype_name(t.grad.dtype) == "float32"
    # without weight and bias, and through the modules (float32 by default)
    assert dtype_name(getattr(F, norm)(x, 4).dtype) == "float32"
    module = nn.LayerNorm(4, device=device) if norm == "layer_norm" else nn.RMSNorm(
        4, device=device)
    assert dtype_name(module(x).dtype) == "float32"


# ----------------------------------------------------------------------------- errors
def _message(excinfo):
    return str(excinfo.value)


@pytest.mark.parametrize("norm", ["layer_norm", "rms_norm"])
def test_norm_rejects_a_normalized_shape_that_is_not_the_inputs_tail(norm):
    fn = getattr(F, norm)
    x = tinyffn.randn(2, 3)
    for bad in [(5,), (2,), (3, 3), (1, 2, 3)]:
        with pytest.raises(ValueError) as e:
            fn(x, bad)
        message = _message(e)
        assert norm in message
        assert "(2, 3)" in message, message
        assert str(bad) in message, message
    with pytest.raises(ValueError, match=re.escape("(2, 3)")):
        fn(x, 5)                                          # an int: (5,)


@pytest.mark.parametrize("norm", ["layer_norm", "rms_norm"])
def test_norm_rejects_a_weight_of_the_wrong_shape(norm):
    fn = getattr(F, norm)
    x = tinyffn.randn(2, 3, 4)
    # (4,) would broadcast against (3, 4), but a weight must have normalized_shape exactly
    for w_shape, normalized_shape in [((5,), (4,)), ((4,), (3, 4)), ((1, 4), 4), ((3, 4), 4)]:
        with pytest.raises(ValueError) as e:
            fn(x, normalized_shape, tinyffn.randn(*w_shape))
        message = _message(e)
        assert "weight" in message and str(w_shape) in message, message
        assert str(as_tuple(normalized_shape)) in message, message


def test_layer_norm_rejects_a_bias_of_the_wrong_shape():
    x = tinyffn.randn(2, 3, 4)
    with pytest.raises(ValueError) as e:
        F.layer_norm(x, (3, 4), tinyffn.randn(3, 4), tinyffn.randn(4))
    assert "bias" in _message(e) and "(4,)" in _message(e) and "(3, 4)" in _message(e)
    with pytest.raises(ValueError, match=r"bias.*\(5,\)|\(5,\).*bias"):
        F.layer_norm(x, 4, None, tinyffn.randn(5))       # no weight, a bad bias


@pytest.mark.parametrize("norm", ["layer_norm", "rms_norm"])
@pytest.mark.parametrize("eps, shown", [(0, "0"), (0.0, "0.0"), (-1e-5, "-1e-05"),
                                        (float("nan"), "nan"), ("1e-5", "1e-5")])
def test_norm_rejects_an_eps_that_is_not_positive(norm, eps, shown):
    with pytest.raises(ValueError, match=rf"eps.*{re.escape(shown)}"):
        getattr(F, norm)(tinyffn.randn(2, 3), 3, eps=eps)


@pytest.mark.parametrize("norm", ["layer_norm", "rms_norm"])
def test_norm_rejects_an_empty_normalized_shape(norm):
    with pytest.raises(ValueError, match="normalized_shape"):      # torch refuses it too
        getattr(F, norm)(tinyffn.randn(2, 3), ())


@pytest.mark.parametrize("norm", ["layer_norm", "rms_norm"])
def test_norm_accepts_a_tiny_positive_eps(norm):
    y = getattr(F, norm)(tinyffn.randn(2, 3, dtype="float64"), 3, eps=1e-300)
    assert np.all(np.isfinite(y.numpy()))


@pytest.mark.parametrize("fn", [
    lambda x: F.layer_norm(x, 3),
    lambda x: F.rms_norm(x, 3),
    lambda x: F.dropout(x, 0.5),
], ids=["layer_norm", "rms_norm", "dropout"])
def test_integer_input_is_refused(fn, device):
    with pytest.raises(TypeError, match="int64"):
        fn(tinyffn.tensor([[1, 2, 3], [4, 5, 6]], device=device))


@pytest.mark.parametrize("name, fn", [
    ("layer_norm", lambda x: F.layer_norm(x, 3)),
    ("rms_norm", lambda x: F.rms_norm(x, 3)),
    ("dropout", lambda x: F.dropout(x, 0.5)),
], ids=["layer_norm", "rms_norm", "dropout"])
def test_a_non_tensor_input_is_refused(name, fn):
    with pytest.raises(TypeError, match=rf"{name}.*numpy\.ndarray"):
        fn(np.ones((2, 3)))
    with pytest.raises(TypeError, match=rf"{name}.*list"):
        fn([[1.0, 2.0, 3.0]])


def test_a_torch_tensor_input_is_named_as_such():
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match=r"torch\.Tensor"):
        F.layer_norm(torch.randn(2, 3), 3)


@pytest.mark.parametrize("p, shown", [(-0.1, "-0.1"), (1.5, "1.5"), (float("nan"), "nan"),
                                      ("0.5", "'0.5'"), (None, "None")])
def test_dropout_rejects_a_bad_p(p, shown):
    x = tinyffn.randn(4)
    with pytest.raises(ValueError, match=re.escape(shown)):
        F.dropout(x, p)
    with pytest.raises(ValueError, match=re.escape(shown)):
        nn.Dropout(p)                                     # checked when it is made


# ----------------------------------------------------------------------------- dropout
def test_dropout_without_training_or_with_p_0_returns_the_input_itself(device):
    x = tinyffn.randn(3, 4, device=device, requires_grad=True)
    assert F.dropout(x, 0.5, training=False) is x
    assert F.dropout(x, 0.5, False) is x                 # torch's argument order
    assert F.dropout(x, 1.0, training=False) is x
    assert F.dropout(x, 0.0) is x
    assert F.dropout(x, 0) is x


def test_dropout_with_p_1_gives_zeros_and_a_zero_gradient(device):
    x = tinyffn.randn(3, 4, dtype="float64", device=device, requires_grad=True)
    y = F.dropout(x, 1.0)
    np.testing.assert_array_equal(y.numpy(), np.zeros((3, 4)))    # zeros, not 0 / 0 = NaN
    y.backward(tinyffn.randn(3, 4, dtype="float64", device=device))
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((3, 4)))
    assert dtype_name(F.dropout(tinyffn.randn(3, device=device), 1).dtype) == "float32"


def _nonzero_input(shape, device, requires_grad=False, seed=16):
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.5, 2.0, size=shape) * rng.choice([-1.0, 1.0], size=shape)
    return x, as_tensor(x, device, requires_grad=requires_grad)


def test_dropout_keeps_a_fraction_1_minus_p_scaled_by_1_over_1_minus_p(device):
    p, n = 0.3, 100_000
    x_np, x = _nonzero_input((100, 1000), device)
    y = F.dropout(x, p).numpy()
    dropped = y == 0
    # each entry is dropped with probability p: the fraction is within 5 standard errors
    assert abs(dropped.mean() - p) < 5 * math.sqrt(p * (1 - p) / n)
    np.testing.assert_allclose(y[~dropped], x_np[~dropped] / (1 - p), rtol=1e-15, atol=0)
    y = F.dropout(x).numpy()                              # p = 0.5 by default, as PyTorch
    np.testing.assert_allclose(y[y != 0], 2 * x_np[y != 0], rtol=1e-15, atol=0)
    # the mask is not one decision per row or column
    assert 0 < dropped.sum(axis=1).min() and dropped.sum(axis=1).max() < 1000
    assert dropped.any(axis=0).sum() > 900


def test_dropout_gradient_is_gy_times_the_mask(device):
    p = 0.4
    x_np, x = _nonzero_input((40, 50), device, requires_grad=True)
    y = F.dropout(x, p)
    mask = y.numpy() / x_np                               # x has no zeros: the mask itself
    kept = mask != 0
    np.testing.assert_allclose(mask[kept], 1 / (1 - p), rtol=1e-15)
    assert 0 < kept.mean() < 1
    gy = np.random.default_rng(17).normal(size=(40, 50))
    y.backward(as_tensor(gy, device))
    np.testing.assert_allclose(x.grad.numpy(), gy * mask, rtol=1e-14, atol=0)
    np.testing.assert_array_equal(x.grad.numpy()[~kept], 0.0)


def test_dropout_gradcheck_with_the_mask_held_fixed(device):
    """gradcheck calls fn many times; re-seeding inside fn draws the same mask each time."""
    x = as_tensor(np.random.default_rng(18).normal(size=(3, 4)), device, requires_grad=True)

    def fn(x):
        tinyffn.manual_seed(123)
        return F.dropout(x, 0.5)

    assert tinyffn.gradcheck(fn, [x])


def test_dropout_is_reproducible_under_manual_seed(device):
    x = tinyffn.ones(30, 40, dtype="float64", device=device)
    tinyffn.manual_seed(7)
    a = F.dropout(x, 0.5).numpy()
    b = F.dropout(x, 0.5).numpy()                          # the generator moved on
    tinyffn.manual_seed(7)
    c = F.dropout(x, 0.5).numpy()
    np.testing.assert_array_equal(a, c)
    assert not np.array_equal(a, b)
    tinyffn.manual_seed(8)
    assert not np.array_equal(F.dropout(x, 0.5).numpy(), a)


@pytest.mark.parametrize("other", [
    "strict",
    pytest.param("cuda", marks=[pytest.mark.cuda, pytest.mark.skipif(
        not tinyffn.cuda_available(), reason="CuPy with a usable GPU is not available")]),
])
def test_dropout_mask_is_the_same_on_every_device(other):
    x_np = np.random.default_rng(19).normal(size=(20, 30))
    masks = []
    for device in ("cpu", other):
        tinyffn.manual_seed(11)
        masks.append(F.dropout(as_tensor(x_np, device), 0.3).numpy() != 0)
    assert 0 < masks[0].mean() < 1
    np.testing.assert_array_equal(masks[1], masks[0])


def test_dropout_keeps_float32(device):
    x = tinyffn.randn(50, 20, device=device, requires_grad=True)
    y = F.dropout(x, 0.25)
    assert dtype_name(y.dtype) == "float32"
    kept = y.numpy() != 0
    np.testing.assert_allclose(y.numpy()[kept], x.numpy()[kept] / 0.75, rtol=1e-6)
    y.backward(tinyffn.ones(50, 20, device=device))
    assert dtype_name(x.grad.dtype) == "float32"
    np.testing.assert_allclose(x.grad.numpy(), np.where(kept, 1 / 0.75, 0.0), rtol=1e-6)


@pytest.mark.parametrize("training", ["no", None, 0.5])
def test_dropout_refuses_a_training_flag_that_is_not_a_bool(training):
    # a non-empty string would count as True and drop in evaluation
    with pytest.raises(TypeError, match=f"dropout: training must be True or False, got "
                                        f"{re.escape(repr(training))}"):
        F.dropout(tinyffn.ones(5), 0.5, training=training)


def test_inplace_false_is_accepted_and_true_is_refused():
    x = tinyffn.randn(4, 3)
    before = x.numpy().copy()
    np.testing.assert_array_equal(F.relu(x, inplace=False).numpy(), np.maximum(x.numpy(), 0))
    assert F.dropout(x, 0.5, False, False) is x                 # torch's positional order
    assert repr(nn.ReLU(inplace=False)) == "ReLU()"
    assert nn.Dropout(0.1, inplace=False).p == 0.1
    for make in (lambda: nn.ReLU(inplace=True), lambda: nn.Dropout(0.1, inplace=True),
                 lambda: F.relu(x, inplace=True), lambda: F.dropout(x, 0.1, True, True)):
        with pytest.raises(ValueError, match="inplace=True is not supported: tinyffn never "
                                             "overwrites a tensor"):
            make()
    np.testing.assert_array_equal(x.numpy(), before)           # nothing overwrote x
    # a false value other than False, as PyTorch code passes it (a config's None, 0)
    for inplace in (None, 0, np.False_):
        assert nn.ReLU(inplace).inplace is False and nn.Dropout(0.1, inplace).inplace is False
        np.testing.assert_array_equal(F.relu(x, inplace=inplace).numpy(), np.maximum(before, 0))
    with pytest.raises(ValueError, match="ReLU: inplace=1 is not supported"):
        nn.ReLU(1)


@pytest.mark.parametrize("norm", ["layer_norm", "rms_norm"])
def test_float16_norms_compute_in_float32(norm, device):
    """Statistics in float16 lose digits (an offset of 50 leaves ~0.03 of resolution) and
    x² overflows past 256; as in PyTorch, the norm is computed in float32 and rounded once."""
    if device == "strict":
        pytest.skip("the array API standard has no float16")
    rng = np.random.default_rng(4)
    x64 = 300 + rng.normal(size=(4, 64))
    x = as_tensor(x64.astype(np.float16), device, requires_grad=True)
    w = as_tensor(rng.normal(size=64).astype(np.float16), device, requires_grad=True)
    y = getattr(F, norm)(x, 64, w)
    assert dtype_name(y.dtype) == "float16"
    x_exact = x.numpy().astype(np.float64)                     # the float16 input, exactly
    ref = (ref_layer_norm(x_exact, 64, w.numpy()) if norm == "layer_norm" else
           ref_rms_norm(x_exact, 64, w.numpy(), eps=float(np.finfo(np.float32).eps)))
    assert np.all(np.isfinite(y.numpy()))
    # one float16 rounding of the result: a relative error near 2^-11, not float16 sums'
    np.testing.assert_allclose(y.numpy(), ref, rtol=2e-3, atol=2e-3)
    y.sum().backward()
    assert dtype_name(x.grad.dtype) == dtype_name(w.grad.dtype) == "float16"
    assert np.all(np.isfinite(x.grad.numpy())) and np.all(np.isfinite(w.grad.numpy()))
    ops = {node.fn.op_name() for node in graph_nodes(y)}
    assert "cast" in ops


# ----------------------------------------------------------------------------- graph
def _assert_composed_under(y, name):
    nodes = graph_nodes(y)
    names = {node.name for node in nodes}
    assert all(node.scope[:1] == (Scope("function", name),) for node in nodes), \
        {node.scope for node in nodes}
    assert names <= PRIMITIVE_NAMES, names - PRIMITIVE_NAMES
    return nodes, names


def _is_composed(y):
    """y was made by a primitive, and more than one node lies behind it."""
    return y.grad_fn.name in PRIMITIVE_NAMES and len(graph_nodes(y)) > 1


def test_layer_norm_is_composed_inside_a_function_scope():
    x = tinyffn.randn(2, 3, 4, requires_grad=True)
    w = tinyffn.randn(3, 4, requires_grad=True)
    b = tinyffn.randn(3, 4, requires_grad=True)
    nodes, names = _assert_composed_under(F.layer_norm(x, (3, 4), w, b), "layer_norm")
    assert len(nodes) >= 5                       # mean, sub, square, mean, add eps, ...
    assert "mean" in names
    assert _is_composed(F.layer_norm(x, 4))


def test_rms_norm_is_composed_inside_a_function_scope():
    x = tinyffn.randn(2, 3, 4, requires_grad=True)
    w = tinyffn.randn(3, 4, requires_grad=True)
    nodes, names = _assert_composed_under(F.rms_norm(x, (3, 4), w), "rms_norm")
    assert len(nodes) >= 4 and "mean" in names
    assert _is_composed(F.rms_norm(x, 4))


def test_dropout_is_a_multiplication_inside_a_function_scope():
    x = tinyffn.randn(2, 3, requires_grad=True)
    nodes, names = _assert_composed_under(F.dropout(x, 0.5), "dropout")
    assert "mul" in names


def test_a_norm_module_records_its_module_and_function_scopes():
    x = tinyffn.randn(2, 4, requires_grad=True)
    for module, fn in [(nn.LayerNorm(4), "layer_norm"), (nn.RMSNorm(4), "rms_norm")]:
        for node in graph_nodes(module(x)):
            assert node.scope[:2] == (Scope("module", type(module).__name__, module),
                                      Scope("function", fn))


# ----------------------------------------------------------------------------- modules
MODULE_CONFIGS = [
    ("LayerNorm", (8,), {}),
    ("LayerNorm", ((2, 3),), {"eps": 1e-3}),
    ("LayerNorm", ([2, 3],), {}),
    ("LayerNorm", (8,), {"bias": False}),
    ("LayerNorm", (8,), {"elementwise_affine": False}),
    ("LayerNorm", (8,), {"elementwise_affine": False, "bias": False}),
    ("RMSNorm", (8,), {}),
    ("RMSNorm", ((2, 3),), {"eps": 1e-6}),
    ("RMSNorm", (8,), {"elementwise_affine": False}),
]
MODULE_IDS = [f"{kind}-{args[0]}-{kwargs}" for kind, args, kwargs in MODULE_CONFIGS]


@pytest.mark.parametrize("kind, args, kwargs", MODULE_CONFIGS, ids=MODULE_IDS)
def test_norm_module_parameters_and_attributes(kind, args, kwargs):
    module = getattr(nn, kind)(*args, **kwargs)
    shape = as_tuple(args[0])
    affine = kwargs.get("elementwise_affine", True)
    with_bias = kind == "LayerNorm" and affine and kwargs.get("bias", True)
    assert module.normalized_shape == shape and type(module.normalized_shape) is tuple
    assert module.eps == kwargs.get("eps", 1e-5 if kind == "LayerNorm" else None)
    assert module.elementwise_affine is affine
    if affine:
        assert isinstance(module.weight, nn.Parameter) and module.weight.shape == shape
        assert dtype_name(module.weight.dtype) == "float32" and module.weight.requires_grad
        np.testing.assert_array_equal(module.weight.numpy(), np.ones(shape))
    else:
        assert module.weight is None
    if with_bias:
        assert isinstance(module.bias, nn.Parameter) and module.bias.shape == shape
        np.testing.assert_array_equal(module.bias.numpy(), np.zeros(shape))
    elif kind == "LayerNorm":
        assert module.bias is None
    expected = ["weight"] * affine + ["bias"] * with_bias
    assert [name for name, _ in module.named_parameters()] == expected
    assert list(module.state_dict()) == expected


@pytest.mark.parametrize("kind, args, kwargs", MODULE_CONFIGS, ids=MODULE_IDS)
def test_norm_module_matches_torch(kind, args, kwargs):
    """Same keys as torch's, and with torch's (randomised) state loaded, the same output."""
    torch = pytest.importorskip("torch")
    theirs = getattr(torch.nn, kind)(*args, **kwargs, dtype=torch.float64)
    mine = getattr(nn, kind)(*args, **kwargs, dtype="float64")
    assert [n for n, _ in mine.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert list(mine.state_dict()) == list(theirs.state_dict())
    for (name, p), (_, q) in zip(mine.named_parameters(), theirs.named_parameters()):
        assert p.shape == tuple(q.shape), name
        np.testing.assert_array_equal(p.numpy(), q.detach().numpy(), err_msg=name)
    assert mine.normalized_shape == theirs.normalized_shape
    assert mine.eps == theirs.eps
    with torch.no_grad():
        for q in theirs.parameters():
            q.normal_()
    mine.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    x = np.random.default_rng(20).normal(size=(3, *as_tuple(args[0])))
    np.testing.assert_allclose(mine(tinyffn.tensor(x)).numpy(),
                               theirs(torch.tensor(x)).detach().numpy(), rtol=1e-10, atol=1e-12)


def test_norm_module_reprs():
    """As torch 2.13 prints them: LayerNorm shows bias=..., so bias=False is visible."""
    assert repr(nn.LayerNorm(8)) == (
        "LayerNorm((8,), eps=1e-05, elementwise_affine=True, bias=True)")
    assert repr(nn.LayerNorm([2, 3], eps=1e-3, bias=False)) == (
        "LayerNorm((2, 3), eps=0.001, elementwise_affine=True, bias=False)")
    assert repr(nn.RMSNorm(8)) == "RMSNorm((8,), eps=None, elementwise_affine=True)"
    assert repr(nn.RMSNorm((2, 3), eps=1e-6, elementwise_affine=False)) == (
        "RMSNorm((2, 3), eps=1e-06, elementwise_affine=False)")
    assert repr(nn.Dropout()) == "Dropout(p=0.5, inplace=False)"
    assert repr(nn.Dropout(p=0.1)) == "Dropout(p=0.1, inplace=False)"
    assert repr(nn.Dropout(0)) == "Dropout(p=0, inplace=False)"       # p as given
    assert repr(nn.Sequential(nn.Linear(2, 2), nn.LayerNorm(2), nn.Dropout(0.2))) == (
        "Sequential(\n"
        "  (0): Linear(in_features=2, out_features=2, bias=True)\n"
        "  (1): LayerNorm((2,), eps=1e-05, elementwise_affine=True, bias=True)\n"
        "  (2): Dropout(p=0.2, inplace=False)\n"
        ")")


@pytest.mark.parametrize("kind, args, kwargs", MODULE_CONFIGS, ids=MODULE_IDS)
def test_norm_module_repr_is_torchs(kind, args, kwargs):
    torch = pytest.importorskip("torch")
    assert repr(getattr(nn, kind)(*args, **kwargs)) == repr(
        getattr(torch.nn, kind)(*args, **kwargs))


@pytest.mark.parametrize("kind", ["LayerNorm", "RMSNorm"])
def test_norm_module_dtype_and_device(kind, device):
    module = getattr(nn, kind)((3, 4), dtype="float64", device=device)
    for p in module.parameters():
        assert p.device == device and dtype_name(p.dtype) == "float64"
    y = module(tinyffn.randn(2, 3, 4, dtype="float64", device=device))
    assert y.device == device and dtype_name(y.dtype) == "float64"
    default = getattr(nn, kind)(4)
    assert all(p.device == "cpu" and dtype_name(p.dtype) == "float32"
               for p in default.parameters())


def test_norm_modules_are_the_functional_forms(device):
    rng = np.random.default_rng(21)
    x = as_tensor(rng.normal(size=(2, 3, 4)), device)
    ln = nn.LayerNorm((3, 4), eps=1e-3, dtype="float64", device=device)
    ln.load_state_dict({"weight": rng.normal(size=(3, 4)), "bias": rng.normal(size=(3, 4))})
    np.testing.assert_array_equal(ln(x).numpy(),
                                  F.layer_norm(x, (3, 4), ln.weight, ln.bias, 1e-3).numpy())
    np.testing.assert_allclose(ln(x).numpy(), ref_layer_norm(x.numpy(), (3, 4), ln.weight.numpy(),
                                                             ln.bias.numpy(), 1e-3), rtol=1e-12)
    rms = nn.RMSNorm(4, dtype="float64", device=device)
    rms.load_state_dict({"weight": rng.normal(size=(4,))})
    np.testing.assert_array_equal(rms(x).numpy(), F.rms_norm(x, 4, rms.weight).numpy())
    np.testing.assert_allclose(rms(x).numpy(), ref_rms_norm(x.numpy(), 4, rms.weight.numpy()),
                               rtol=1e-12)
    bare = nn.LayerNorm(4, elementwise_affine=False, device=device)
    np.testing.assert_array_equal(bare(x).numpy(), F.layer_norm(x, 4).numpy())
    drop = nn.Dropout(0.3)
    tinyffn.manual_seed(3)
    a = drop(x).numpy()
    tinyffn.manual_seed(3)
    np.testing.assert_array_equal(a, F.dropout(x, 0.3).numpy())


def test_norm_module_parameters_learn(device):
    module = nn.LayerNorm(4, dtype="float64", device=device)
    x = as_tensor(np.random.default_rng(22).normal(size=(5, 4)), device)
    gy = np.random.default_rng(23).normal(size=(5, 4))
    module(x).backward(as_tensor(gy, device))
    xhat = ref_layer_norm(x.numpy(), 4)
    np.testing.assert_allclose(module.weight.grad.numpy(), (gy * xhat).sum(axis=0), rtol=1e-12)
    np.testing.assert_allclose(module.bias.grad.numpy(), gy.sum(axis=0), rtol=1e-12)


def test_norm_modules_check_their_arguments_when_made():
    for make, shown in [(lambda: nn.LayerNorm(4, eps=0), "0"),
                        (lambda: nn.LayerNorm(4, eps=-1e-5), "-1e-05"),
                        (lambda: nn.RMSNorm(4, eps=float("nan")), "nan"),
                        (lambda: nn.LayerNorm(0), "0"),
                        (lambda: nn.RMSNorm(()), r"\(\)")]:
        with pytest.raises(ValueError, match=shown):
            make()
    assert nn.RMSNorm(4, eps=None).eps is None                    # None: the dtype's eps


def test_norm_module_refuses_an_input_of_the_wrong_width():
    with pytest.raises(ValueError) as e:
        nn.LayerNorm(4)(tinyffn.randn(2, 5))
    assert "(2, 5)" in _message(e) and "(4,)" in _message(e)
    with pytest.raises(ValueError, match=re.escape("(2, 5)")):
        nn.RMSNorm(4)(tinyffn.randn(2, 5))


def test_dropout_module_follows_train_and_eval():
    x_np, x = _nonzero_input((20, 50), "cpu")
    drop = nn.Dropout(0.5)
    assert drop.p == 0.5 and drop.training
    assert list(drop.named_parameters()) == [] and drop.state_dict() == {}
    y = drop(x).numpy()
    assert 0.3 < (y == 0).mean() < 0.7
    drop.eval()
    assert drop(x) is x
    drop.train()
    assert (drop(x).numpy() == 0).any()
    assert nn.Dropout(0.0)(x) is x


def test_dropout_module_follows_its_parents_eval():
    model = nn.Sequential(nn.Linear(6, 6), nn.Dropout(0.5), nn.ReLU())
    x = tinyffn.randn(30, 6)
    expected = model[2](model[0](x)).numpy()
    assert not np.array_equal(model(x).numpy(), expected)        # training: entries dropped
    model.eval()
    assert not model[1].training
    np.testing.assert_array_equal(model(x).numpy(), expected)
    np.testing.assert_array_equal(model(x).numpy(), expected)   # deterministic
    model.train()
    assert model[1].training
    assert not np.array_equal(model(x).numpy(), expected)


# ----------------------------------------------------------------------------- review additions
@pytest.mark.parametrize("bad", [None, 4.5, 4.0, (4.0,), [4, 2.0]])
def test_normalized_shape_that_is_not_ints_is_a_value_error(bad):
    """None and floats are not sizes: the error names normalized_shape (not a bare
    "'NoneType' is not iterable"), and 4.0 is not silently taken for 4 (torch refuses it)."""
    for make in (lambda: nn.LayerNorm(bad), lambda: nn.RMSNorm(bad),
                 lambda: F.layer_norm(tinyffn.randn(2, 4), bad)):
        with pytest.raises(ValueError, match=rf"normalized_shape.*{re.escape(repr(bad))}"):
            make()


def test_normalized_shape_accepts_numpy_ints_and_stores_python_ints():
    shapes = [np.int64(4), (np.int32(4),), np.array([4])]
    try:
        import torch
        shapes.append(torch.Size([4]))
    except ImportError:
        pass
    for shape in shapes:
        module = nn.LayerNorm(shape)
        assert module.normalized_shape == (4,)
        assert all(type(n) is int for n in module.normalized_shape)
        assert repr(module) == "LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)"
        assert F.layer_norm(tinyffn.randn(2, 4), shape).shape == (2, 4)


@pytest.mark.parametrize("eps", [True, float("inf")])
def test_norm_rejects_a_bool_or_infinite_eps(eps):
    x = tinyffn.randn(2, 3)
    for make in (lambda: F.layer_norm(x, 3, eps=eps), lambda: F.rms_norm(x, 3, eps=eps),
                 lambda: nn.LayerNorm(3, eps=eps), lambda: nn.RMSNorm(3, eps=eps)):
        with pytest.raises(ValueError, match=rf"eps must be a positive, finite number.*got "
                                             rf"{re.escape(repr(eps))}"):
            make()


def test_dropout_rejects_a_bool_p():
    with pytest.raises(ValueError, match="got True"):
        F.dropout(tinyffn.randn(4), True)


@pytest.mark.parametrize("norm", ["layer_norm", "rms_norm"])
def test_norm_refuses_a_weight_that_is_not_a_tensor(norm):
    x = tinyffn.randn(2, 4)
    with pytest.raises(TypeError, match=rf"{norm}: weight must be a tinyffn Tensor.*numpy"):
        getattr(F, norm)(x, 4, np.ones(4, dtype=np.float32))
    if norm == "layer_norm":
        with pytest.raises(TypeError, match=r"layer_norm: bias must be a tinyffn Tensor"):
            F.layer_norm(x, 4, None, np.zeros(4, dtype=np.float32))


@pytest.mark.parametrize("norm", ["layer_norm", "rms_norm"])
def test_float16_norms_widen_to_float32_exactly(norm):
    """The statistics are computed in float32 (not float64): one cast up to float32 and
    one back down to float16 in the graph."""
    x = tinyffn.randn(3, 8, dtype="float16", requires_grad=True)
    y = getattr(F, norm)(x, 8)
    casts = sorted(dtype_name(n.out_dtype) for n in graph_nodes(y) if n.fn.op_name() == "cast")
    assert casts == ["float16", "float32"]


def test_norms_promote_mixed_float_dtypes_as_linear_does():
    """layer_norm: float32 input with a float64 weight gives float64 (as linear does; PyTorch
    refuses mixed dtypes in layer_norm on the CPU). rms_norm, which PyTorch runs, gives the
    input's float32, as PyTorch's."""
    x = tinyffn.randn(2, 4)
    w = tinyffn.ones(4, dtype="float64")
    assert dtype_name(F.layer_norm(x, 4, w).dtype) == "float64"
    assert dtype_name(F.rms_norm(x, 4, w).dtype) == "float32"


def test_dropout_mask_is_named_in_the_graph():
    x = tinyffn.randn(2, 3, requires_grad=True)
    y = F.dropout(x, 0.5)
    assert y.grad_fn.parents[1].name == "dropout mask"
    assert 'label="dropout mask' in tinyffn.to_dot(y)


def test_module_errors_name_the_module():
    with pytest.raises(ValueError, match=r"^RMSNorm: normalized_shape"):
        nn.RMSNorm(0)
    with pytest.raises(ValueError, match=r"^LayerNorm: normalized_shape"):
        nn.LayerNorm(0)
    with pytest.raises(ValueError, match=r"^ReLU: inplace=True"):
        nn.ReLU(inplace=True)
    with pytest.raises(ValueError, match=r"^Dropout: inplace=True"):
        nn.Dropout(0.1, inplace=True)


def test_dropout_in_evaluation_returns_even_an_integer_input():
    counts = tinyffn.tensor([1, 2])
    assert F.dropout(counts, 0.5, training=False) is counts     # as PyTorch: nothing to do
    with pytest.raises(TypeError, match="dropout: input has dtype int64"):
        F.dropout(counts, 0.5)


def test_softmax_axis_range_and_its_message():
    x = np.random.default_rng(0).normal(size=(2, 3))
    y = F.softmax(tinyffn.tensor(x), axis=-2).numpy()
    np.testing.assert_allclose(y.sum(axis=0), 1.0, rtol=1e-12)
    with pytest.raises(ValueError, match=r"out of range .* use an integer in \[-2, 1\]"):
        F.softmax(tinyffn.tensor(x), axis=-3)
    with pytest.raises(ValueError, match=r"use an integer in \[-1, 0\]"):      # 0-d: one axis
        F.softmax(tinyffn.tensor(1.0), axis=3)


def test_dropout_mask_does_not_depend_on_the_dtype():
    """The uniforms are drawn in float64 whatever the input's dtype, so one seed drops the
    same entries of a float16, float32 and float64 tensor (a float16 draw would round u)."""
    masks = []
    for dtype in ("float16", "float32", "float64"):
        tinyffn.manual_seed(5)
        masks.append(F.dropout(tinyffn.ones(200, 1000, dtype=dtype), 0.3).numpy() != 0)
    np.testing.assert_array_equal(masks[0], masks[2])
    np.testing.assert_array_equal(masks[1], masks[2])
