"""F.elu, selu, celu, mish, hardswish, hardsigmoid, logsigmoid, relu6, hardtanh, softsign,
tanhshrink, softmin, threshold, prelu (tinyffn/activations_extra.py) and their modules,
with nn.GLU, nn.LogSoftmax and nn.PReLU (activation_modules.py).

Each case is one call, written once and run with tinyffn's ``F`` and ``nn`` and with
torch's. The inputs sit on every kink (0, ±3, 6, the hardtanh edges, the threshold) so
the gradients there are checked against PyTorch's. References: PyTorch 2.13, live where
it is installed, and its values and gradients written out in ``EXPECTED`` and
``EXPECTED_GRADS`` (computed once with torch; those tests run without it, on every
device); NumPy written out by hand for the kinks; gradcheck for every function.
"""
import math

import numpy as np
import pytest

import tinyffn
import torch_parity
from tinyffn import functional as F
from tinyffn import nn
from tinyffn.backend import dtype_name

inf, nan = math.inf, math.nan
A = [[-30.0, -4.0, -3.0, -1.0, -1e-10, 0.0], [1e-10, 1.0, 3.0, 6.0, 6.5, 25.0]]   # the kinks
B = (np.arange(24.0).reshape(2, 3, 4) * 0.5 - 6.0).tolist()     # (N, C, L): PReLU's channels
BIG = [-800.0, 800.0, -inf, inf, nan]

CASES = [
    "F.elu(a)", "F.elu(a, 0.5)", "F.elu(a, -0.5)", "F.elu(big)", "F.selu(a)", "F.selu(big)",
    "F.celu(a)", "F.celu(a, 2.0)", "F.celu(a, -0.7)", "F.mish(a)", "F.mish(big)",
    "F.hardswish(a)", "F.hardswish(big)", "F.hardsigmoid(a)", "F.hardsigmoid(big)",
    "F.logsigmoid(a)", "F.logsigmoid(big)", "F.relu6(a)", "F.relu6(big)", "F.hardtanh(a)",
    "F.hardtanh(a, -3.0, 6.0)", "F.hardtanh(a, 0.0, 0.0)", "F.hardtanh(big)", "F.softsign(a)",
    "F.softsign(big)", "F.tanhshrink(a)", "F.softmin(a, 0)", "F.softmin(a, dim=1)",
    "F.softmin(b, 1, dtype=T.float32)", "F.threshold(a, 1.0, -2.0)", "F.threshold(a, 0.0, 0.0)",
    "F.threshold(big, 5.0, 7.5)", "F.prelu(b, w3)", "F.prelu(b, w1)", "F.prelu(a, w0)",
    "F.prelu(a[0], w1)", "F.prelu(a[0, 3], w1)", "F.prelu(a, w6)",
    "nn.ELU(0.3)(a)", "nn.SELU()(a)", "nn.CELU(1.5)(a)", "nn.Mish()(a)", "nn.Hardswish()(a)",
    "nn.Hardsigmoid()(a)", "nn.LogSigmoid()(a)", "nn.ReLU6()(a)", "nn.Hardtanh(-2.0, 2.0)(a)",
    "nn.Softsign()(a)", "nn.Tanhshrink()(a)", "nn.Softmin(1)(a)", "nn.Softmin(0)(b)",
    "nn.Threshold(0.5, 9.0)(a)", "nn.GLU()(a)", "nn.GLU(0)(b)", "nn.LogSoftmax(1)(a)",
    "nn.LogSoftmax(dim=0)(b)", "nn.PReLU(dtype=T.float64, **kw)(a)",
    "nn.PReLU(3, 0.1, dtype=T.float64, **kw)(b)",
]


def run(module, case: str, requires_grad: str = "", **tensor_kwargs):
    """``case`` evaluated with ``module``'s F and nn (tinyffn or torch) and inputs; the
    input named ``requires_grad`` requires a gradient (returned with the result)."""
    inputs = {}
    for name, values in dict(a=A, b=B, big=BIG, w3=[0.1, -0.5, 2.0], w1=[0.25], w0=0.3,
                             w6=[0.1, 0.2, 0.3, -0.4, 0.5, 0.6]).items():
        inputs[name] = module.tensor(values, dtype=module.float64, **tensor_kwargs)
        if name == requires_grad:
            inputs[name].requires_grad_(True)
    F_ = module.functional if module is tinyffn else module.nn.functional
    y = eval(case, {}, {"F": F_, "nn": module.nn, "T": module, "kw": tensor_kwargs, **inputs})
    return (y, inputs[requires_grad]) if requires_grad else y


plain = torch_parity.plain      # (dtype name, nested lists), as the tests compare


def assert_same(actual, expected, case):
    torch_parity.assert_close(actual, expected, case, rtol=1e-13, atol=1e-15)


# PyTorch 2.13's CPU kernels hold two gradient constants as float32, also for float64
# tensors: hardsigmoid's slope 1/6 (0.16666667163372040) and CELU's 1/alpha (so its
# slope at 0 is 1.0000000238 for alpha = -0.7, and exp(x / alpha) is 7e-7 off at
# x = -30). tinyffn's are exact (checked by hand below); against torch's, those cases
# agree to float32's precision.
_FLOAT32_SLOPES = {"hardsigmoid": 1e-7, "Hardsigmoid": 1e-7, "F.celu(a, -0.7)": 1e-6}


def assert_grad(actual, expected, case):
    rtol = max([r for name, r in _FLOAT32_SLOPES.items() if name in case], default=1e-13)
    torch_parity.assert_close(actual, expected, case, rtol=rtol, atol=1e-15)


# dL/d(input) for L = Σ f · (1, 2, 3, ...)/10: a backward that forgets gy shows
GRAD_CASES = [
    ("F.elu(a)", "a"), ("F.elu(a, -0.5)", "a"), ("F.elu(big)", "big"), ("F.selu(a)", "a"),
    ("F.celu(a, 2.0)", "a"), ("F.celu(a, -0.7)", "a"), ("F.mish(a)", "a"), ("F.mish(big)", "big"),
    ("F.hardswish(a)", "a"), ("F.hardsigmoid(a)", "a"), ("F.logsigmoid(a)", "a"),
    ("F.logsigmoid(big)", "big"), ("F.relu6(a)", "a"), ("F.hardtanh(a)", "a"),
    ("F.hardtanh(a, -3.0, 6.0)", "a"), ("F.hardtanh(a, 0.0, 0.0)", "a"), ("F.softsign(a)", "a"),
    ("F.tanhshrink(a)", "a"), ("F.softmin(a, 0)", "a"), ("F.softmin(a, dim=1)", "a"),
    ("F.threshold(a, 1.0, -2.0)", "a"), ("F.threshold(a, 0.0, 0.0)", "a"),
    ("F.prelu(b, w3)", "b"), ("F.prelu(b, w3)", "w3"), ("F.prelu(a, w0)", "a"),
    ("F.prelu(a, w0)", "w0"), ("F.prelu(a, w6)", "w6"), ("F.prelu(a[0], w1)", "w1"),
    ("nn.Hardsigmoid()(a)", "a"), ("nn.GLU(0)(b)", "b"), ("nn.LogSoftmax(1)(a)", "a"),
    ("nn.ReLU6()(a)", "a"),
]


def grad_of(module, case: str, wrt: str, **tensor_kwargs):
    y, x = run(module, case, requires_grad=wrt, **tensor_kwargs)
    return torch_parity.weighted_grad(module, y, x, **tensor_kwargs)


torch_parity.tests(globals(), assert_grad=assert_grad,   # live torch, EXPECTED(_GRADS), their check
                   marks=(pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning"),))


# ----------------------------------------------------------------------------- gradcheck
GRADCHECKED = {
    "elu": lambda x: F.elu(x, 0.7), "selu": F.selu, "celu": lambda x: F.celu(x, -1.3),
    "mish": F.mish, "hardswish": F.hardswish, "hardsigmoid": F.hardsigmoid,
    "logsigmoid": F.logsigmoid, "relu6": lambda x: F.relu6(x * 2.0),
    "hardtanh": lambda x: F.hardtanh(x, -2.5, 1.0), "softsign": F.softsign,
    "tanhshrink": F.tanhshrink, "softmin": lambda x: F.softmin(x, 0),
    "threshold": lambda x: F.threshold(x, 0.6, -3.0),
    "prelu-shared": lambda x: F.prelu(x, tinyffn.tensor([0.2], dtype="float64",
                                                         device=x.device)),
    "ELU": nn.ELU(), "Hardswish": nn.Hardswish(), "Softmin": nn.Softmin(1),
    "GLU": nn.GLU(), "LogSoftmax": nn.LogSoftmax(0), "PReLU": nn.PReLU(4, dtype="float64"),
}


@pytest.mark.parametrize("name", GRADCHECKED)
def test_gradcheck(name, device):
    fn = GRADCHECKED[name]
    if isinstance(fn, nn.Module):
        fn = fn.to(device)
    x = tinyffn.tensor([[0.5, -2.0, 3.7, 0.7], [-4.0, 1.5, 0.25, -0.5]], dtype="float64",
                       device=device, requires_grad=True)   # no entry at a kink
    assert tinyffn.gradcheck(fn, [x])


def test_gradcheck_prelu_per_channel_weight(device):
    """The gradient of the slopes: x · gy summed over the entries of each channel (axis 1)."""
    x = tinyffn.tensor(np.linspace(-3, 2, 24).reshape(2, 3, 4) + 0.01, dtype="float64",
                       device=device, requires_grad=True)
    w = tinyffn.tensor([0.1, -0.4, 1.5], dtype="float64", device=device, requires_grad=True)
    assert tinyffn.gradcheck(F.prelu, [x, w])



# ----------------------------------------------------------------------------- by hand
def _f64(values, device="cpu"):
    return tinyffn.tensor(values, dtype="float64", device=device, requires_grad=True)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _softplus(x):
    return np.logaddexp(0, x)


_GRID = np.concatenate([np.linspace(-9, 9, 181), [-1e-12, 1e-12, -0.3e-5]])
_BY_HAND = {   # name: (tinyffn's call, the value in NumPy, the derivative in NumPy)
    "elu": (lambda x: F.elu(x, 0.7), lambda x: np.where(x > 0, x, 0.7 * np.expm1(x)),
            lambda x: np.where(x > 0, 1.0, 0.7 * np.exp(x))),
    "selu": (F.selu, lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
             lambda x: 1.0507009873554805 * np.where(x > 0, 1.0, 1.6732632423543772 * np.exp(x))),
    "celu": (lambda x: F.celu(x, -0.7), lambda x: np.where(x > 0, x, -0.7 * np.expm1(x / -0.7)),
             lambda x: np.where(x > 0, 1.0, np.exp(x / -0.7))),
    "mish": (F.mish, lambda x: x * np.tanh(_softplus(x)),
             lambda x: np.tanh(_softplus(x)) + x * _sigmoid(x) * (1 - np.tanh(_softplus(x)) ** 2)),
    "hardswish": (F.hardswish, lambda x: x * np.clip(x + 3, 0, 6) / 6,
                  lambda x: np.where(x <= -3, 0.0, np.where(x >= 3, 1.0, (2 * x + 3) / 6))),
    "hardsigmoid": (F.hardsigmoid, lambda x: np.clip(x + 3, 0, 6) / 6,
                    lambda x: np.where(np.abs(x) < 3, 1 / 6, 0.0)),
    "logsigmoid": (F.logsigmoid, lambda x: -_softplus(-x), lambda x: _sigmoid(-x)),
    "relu6": (F.relu6, lambda x: np.clip(x, 0, 6), lambda x: ((x > 0) & (x < 6)) * 1.0),
    "hardtanh": (lambda x: F.hardtanh(x, -2.0, 3.0), lambda x: np.clip(x, -2, 3),
                 lambda x: ((x > -2) & (x < 3)) * 1.0),
    "softsign": (F.softsign, lambda x: x / (1 + np.abs(x)), lambda x: 1 / (1 + np.abs(x)) ** 2),
    "tanhshrink": (F.tanhshrink, lambda x: x - np.tanh(x),    # tanh(x)^2, in PyTorch's form
                   lambda x: 1 - (1 - np.tanh(x) ** 2)),          # (which cancels near 0)
    "threshold": (lambda x: F.threshold(x, 0.5, -7.0), lambda x: np.where(x > 0.5, x, -7.0),
                  lambda x: (x > 0.5) * 1.0),
    "prelu": (lambda x: F.prelu(x, tinyffn.tensor(0.3, dtype="float64", device=x.device)),
              lambda x: np.where(x > 0, x, 0.3 * x), lambda x: np.where(x > 0, 1.0, 0.3)),
}


@pytest.mark.parametrize("name", _BY_HAND)
def test_values_and_slopes_written_out_in_numpy(name, device):
    """Every grid point, the kinks (-3, 0, 0.5, 3, 6 and the hardtanh edges -2, 3) among
    them, and values near 0 where exp(x) - 1 cancels: the slope at a kink is the one
    PyTorch picks (hardsigmoid's is 1/6 exactly, not torch's float32 1/6)."""
    ours, value, slope = _BY_HAND[name]
    x = _f64(_GRID, device)
    y = ours(x)
    y.sum().backward()
    np.testing.assert_allclose(y.numpy(), value(_GRID), rtol=1e-14, atol=1e-300, err_msg=name)
    np.testing.assert_allclose(x.grad.numpy(), slope(_GRID), rtol=1e-13, atol=1e-300,
                               err_msg=name)


def test_the_slopes_at_the_kinks_are_pytorchs():
    """PyTorch 2.13's gradients at the kinks, written out (dy/dx, entry by entry)."""
    kinks = {   # call: (x, PyTorch's dy/dx there)
        "F.hardswish(x)": ([-3.0, 3.0], [0.0, 1.0]),
        "F.hardsigmoid(x)": ([-3.0, 3.0], [0.0, 0.0]),
        "F.relu6(x)": ([0.0, 6.0], [0.0, 0.0]),
        "F.hardtanh(x)": ([-1.0, 1.0], [0.0, 0.0]),
        "F.threshold(x, 1.0, -2.0)": ([1.0], [0.0]),
        "F.elu(x, 0.4)": ([0.0], [0.4]),
        "F.selu(x)": ([0.0], [1.7580993408473766]),
        "F.celu(x, 2.0)": ([0.0], [1.0]),
        "F.logsigmoid(x)": ([0.0], [0.5]),
        "F.mish(x)": ([0.0], [0.6]),
        "F.softsign(x)": ([0.0], [1.0]),
        "F.prelu(x, T.tensor([0.3], dtype=T.float64))": ([0.0], [0.3]),
    }
    for case, (values, slopes) in kinks.items():
        x = _f64(values)
        eval(case, {"F": F, "T": tinyffn, "x": x}).sum().backward()
        assert x.grad.tolist() == slopes, case


def test_the_elus_are_exact_where_exp_minus_one_cancels():
    """elu(-1e-10) is -9.9999999995e-11; exp(x) - 1 gave -1.00000008e-10 (8e-8 off)."""
    x = tinyffn.tensor([-1e-10, -1e-5, -0.5, -0.999, -1.0, -1.001, -30.0, -inf],
                       dtype="float64")
    want = np.expm1(x.numpy())
    np.testing.assert_allclose(F.elu(x).numpy(), want, rtol=4e-16, atol=0)
    np.testing.assert_allclose(F.celu(x, 2.0).numpy(), 2.0 * np.expm1(x.numpy() / 2), rtol=4e-16)


def test_extreme_inputs_stay_finite_where_pytorchs_do():
    """No exp overflows in an unused branch: elu(800) is 800 with gradient 1, logsigmoid
    of ±800 is (-800, -0.0) with gradients (1, 0), mish(800) is 800."""
    for fn, values, want, slopes in [
            (F.elu, [800.0, -800.0], [800.0, -1.0], [1.0, 0.0]),
            (F.logsigmoid, [-800.0, 800.0], [-800.0, 0.0], [1.0, 0.0]),
            (F.mish, [800.0], [800.0], [1.0]),
            (F.selu, [800.0], [800.0 * 1.0507009873554805], [1.0507009873554805])]:
        x = _f64(values)
        y = fn(x)
        y.sum().backward()
        assert y.tolist() == want and x.grad.tolist() == slopes, fn.__name__



@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")     # hardswish(-inf): NaN
@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")  # 1e30 in f16
def test_an_infinite_input_sends_back_pytorchs_slopes_not_nan():
    """hardswish's slope at +inf is 1 and prelu's d/dw there is 0, as PyTorch 2.13's
    (written out; live below): their unused branch multiplied inf by a zero gradient."""
    x = _f64([inf, 800.0, 1e308, -800.0, -inf])
    F.hardswish(x).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0, 0.0, 0.0]
    for dtype in ("float16", "float32"):                # inf there: 1e30, 1e308
        x = tinyffn.tensor([1e30, 1e308, 5.0], dtype=dtype, requires_grad=True)
        F.hardswish(x).sum().backward()
        assert x.grad.tolist() == [1.0, 1.0, 1.0], dtype
    x = _f64([[inf, -2.0], [3.0, -inf]])
    w = tinyffn.tensor([0.25, -0.5], dtype="float64", requires_grad=True)
    y = F.prelu(x, w)
    assert y.tolist() == [[inf, 1.0], [3.0, inf]]
    (y * tinyffn.tensor([[1.0, 2.0], [3.0, 4.0]], dtype="float64")).sum().backward()
    assert w.grad.tolist() == [0.0, -inf] and x.grad.tolist() == [[1.0, -1.0], [3.0, -2.0]]


def test_an_infinite_input_matches_pytorch_live():
    torch = pytest.importorskip("torch")
    values = [inf, 800.0, 3.0, 0.0, -3.0, -800.0]
    for name in ("hardswish", "prelu"):
        got, want = [], []
        for lib in (tinyffn, torch):
            x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
            w = lib.tensor([0.25], dtype=lib.float64, requires_grad=True)
            F_ = F if lib is tinyffn else torch.nn.functional
            y = F_.prelu(x, w) if name == "prelu" else F_.hardswish(x)
            y.sum().backward()
            (got if lib is tinyffn else want).append(
                (x.grad.tolist(), w.grad.tolist() if w.grad is not None else None))
        assert got == want, name


# ----------------------------------------------------------------------------- float16
_HALF_X = np.concatenate([np.linspace(-12, 12, 2001), [-3.0, 3.0, 6.0, -60000.0, 60000.0]])
_HALF = {   # name: tinyffn's call on a float16 x (torch's: the same with torch's F)
    "elu": lambda F_, x: F_.elu(x), "selu": lambda F_, x: F_.selu(x),
    "celu": lambda F_, x: F_.celu(x, 1.5), "mish": lambda F_, x: F_.mish(x),
    "hardswish": lambda F_, x: F_.hardswish(x), "hardsigmoid": lambda F_, x: F_.hardsigmoid(x),
    "logsigmoid": lambda F_, x: F_.logsigmoid(x), "relu6": lambda F_, x: F_.relu6(x),
    "hardtanh": lambda F_, x: F_.hardtanh(x, -0.1, 0.7),
    "softsign": lambda F_, x: F_.softsign(x), "tanhshrink": lambda F_, x: F_.tanhshrink(x),
    "softmin": lambda F_, x: F_.softmin(x[:2000].reshape(40, 50), 1),
    "threshold": lambda F_, x: F_.threshold(x, 0.1, 0.3),
}


def _ulps(got, want):
    """|got - want| in float16 units of the last place at want (both float16 arrays)."""
    spacing = np.spacing(np.abs(want.astype(np.float16))).astype(np.float64)
    return np.abs(got.astype(np.float64) - want.astype(np.float64)) / spacing


@pytest.mark.parametrize("name", _HALF)
def test_float16_is_within_one_ulp_of_pytorchs(name):
    """PyTorch computes these in float32 and rounds once (softsign, tanhshrink and
    softmin are a few float16 ops in PyTorch, and the same ops here); so do we:
    within 1 float16 ulp of torch's (most are bit-equal)."""
    torch = pytest.importorskip("torch")
    x16 = _HALF_X.astype(np.float16)
    got = _HALF[name](F, tinyffn.tensor(x16))
    assert dtype_name(got.dtype) == "float16"
    want = _HALF[name](torch.nn.functional, torch.tensor(x16)).numpy()
    assert np.array_equal(np.isnan(got.numpy()), np.isnan(want)), name
    ok = ~np.isnan(want)
    assert _ulps(got.numpy()[ok], want[ok]).max() <= 1, name


_HALF_TRUTH = {   # the widened ones: name -> the float64 value
    "elu": lambda x: np.where(x > 0, x, np.expm1(x)),
    "selu": lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
    "mish": lambda x: x * np.tanh(_softplus(x)),
    "hardswish": lambda x: x * np.clip(x + 3, 0, 6) / 6,
    "hardsigmoid": lambda x: np.clip(x + 3, 0, 6) / 6,
    "logsigmoid": lambda x: -_softplus(-x),
}


@pytest.mark.parametrize("name", _HALF_TRUTH)
def test_float16_is_computed_in_float32_and_rounded_once(name):
    """Against float64 truth, without torch: within one float16 ulp (in float16 itself,
    logsigmoid's log1p(exp(-|x|)) and mish's softplus lose bits; exp(12) overflows)."""
    x16 = _HALF_X.astype(np.float16)
    got = _HALF[name](F, tinyffn.tensor(x16)).numpy()
    with np.errstate(over="ignore", invalid="ignore"):
        want = _HALF_TRUTH[name](x16.astype(np.float64))
    assert got.dtype == np.float16 and np.isfinite(got).all()
    assert _ulps(got, want).max() <= 1, name


def test_float16_gradients_come_back_in_float16():
    x = tinyffn.tensor([-4.0, -1.0, 0.5, 3.0], dtype="float16", requires_grad=True)
    w = tinyffn.tensor([0.25], dtype="float16", requires_grad=True)
    (F.elu(x) + F.hardswish(x) + F.prelu(x, w) + F.logsigmoid(x)).sum().backward()
    assert dtype_name(x.grad.dtype) == "float16" and dtype_name(w.grad.dtype) == "float16"


# ----------------------------------------------------------------------------- modules
REPRS = {   # the module, as PyTorch 2.13 prints it
    "nn.ELU()": "ELU(alpha=1.0)", "nn.ELU(0.5)": "ELU(alpha=0.5)", "nn.SELU()": "SELU()",
    "nn.CELU()": "CELU(alpha=1.0)", "nn.Mish()": "Mish()", "nn.Hardswish()": "Hardswish()",
    "nn.Hardsigmoid()": "Hardsigmoid()", "nn.LogSigmoid()": "LogSigmoid()",
    "nn.ReLU6()": "ReLU6()", "nn.Hardtanh()": "Hardtanh(min_val=-1.0, max_val=1.0)",
    "nn.Hardtanh(-2, 3)": "Hardtanh(min_val=-2, max_val=3)", "nn.Softsign()": "Softsign()",
    "nn.Tanhshrink()": "Tanhshrink()", "nn.Softmin()": "Softmin(dim=None)",
    "nn.Softmin(1)": "Softmin(dim=1)", "nn.Threshold(0.1, 20)": "Threshold(threshold=0.1, value=20)",
    "nn.GLU()": "GLU(dim=-1)", "nn.LogSoftmax()": "LogSoftmax(dim=None)",
    "nn.LogSoftmax(dim=1)": "LogSoftmax(dim=1)", "nn.PReLU()": "PReLU(num_parameters=1)",
    "nn.PReLU(3, 0.1)": "PReLU(num_parameters=3)",
    "nn.Sequential(nn.Linear(2, 4), nn.Mish(), nn.Linear(4, 2))":
        "Sequential(\n  (0): Linear(in_features=2, out_features=4, bias=True)\n  (1): Mish()\n"
        "  (2): Linear(in_features=4, out_features=2, bias=True)\n)",
}


@pytest.mark.parametrize("case", REPRS)
def test_modules_print_as_pytorchs(case):
    assert repr(eval(case, {"nn": nn})) == REPRS[case]


def test_the_written_reprs_are_pytorchs():
    torch = pytest.importorskip("torch")
    for case, text in REPRS.items():
        assert repr(eval(case, {"nn": torch.nn})) == text, case


def test_modules_keep_pytorchs_attributes():
    torch = pytest.importorskip("torch")
    for case in ["nn.ELU(0.5)", "nn.SELU()", "nn.CELU(2.0)", "nn.Mish()", "nn.Hardswish()",
                 "nn.ReLU6()", "nn.Hardtanh(-2.0, 3.0)", "nn.Threshold(0.5, 2.0)",
                 "nn.Softmin(0)", "nn.GLU(1)", "nn.LogSoftmax(0)", "nn.PReLU(3, 0.1)"]:
        ours, theirs = eval(case, {"nn": nn}), eval(case, {"nn": torch.nn})
        names = [k for k in vars(theirs) if not k.startswith("_") and k != "training"]
        assert {k: getattr(ours, k) for k in names} == {k: vars(theirs)[k] for k in names}, case


def test_prelu_module_learns_one_slope_per_channel():
    m = nn.PReLU(3, 0.1, dtype="float64")
    assert [n for n, _ in m.named_parameters()] == ["weight"]
    assert m.weight.shape == (3,) and m.weight.tolist() == [0.1, 0.1, 0.1]
    x = tinyffn.tensor(-np.arange(24.0).reshape(2, 3, 4), dtype="float64")
    m(x).sum().backward()
    assert m.weight.grad.tolist() == [-60.0, -92.0, -124.0]      # Σ x over each channel
    m.weight.data[...] = 7.0
    m.reset_parameters()
    assert m.weight.tolist() == [0.1, 0.1, 0.1]
    assert dtype_name(nn.PReLU().weight.dtype) == "float32"


# ----------------------------------------------------------------------------- errors
ERRORS = [   # call, the exception, words its message must hold
    ("F.elu(T.tensor([1, 2]))", TypeError, "elu: input has dtype int64"),
    ("F.relu6(T.tensor([1, 2]))", TypeError, "cast with x.float()"),
    ("F.elu(x, inplace=True)", ValueError, "elu: inplace=True is not supported"),
    ("nn.Hardswish(inplace=True)", ValueError, "Hardswish: inplace=True"),
    ("nn.ReLU6(True)", ValueError, "ReLU6: inplace=True"),
    ("F.elu(x, alpha='1')", TypeError, "elu: alpha must be a number"),
    ("F.celu(x, 0.0)", ValueError, "celu: alpha must not be 0"),
    ("F.hardtanh(x, 2.0, 1.0)", ValueError, "min_val (2.0) cannot be greater than max_val (1.0)"),
    ("nn.Hardtanh(1.0, 1.0)", ValueError, "max_val (1.0) must be greater than min_val (1.0)"),
    ("F.threshold(x, None, 1.0)", TypeError, "threshold: threshold must be a number"),
    ("F.prelu(x, T.ones(3, dtype='float64'))", ValueError,
     "weight has 3 slopes but input of shape (2, 4) has 4 channel(s) on axis 1"),
    ("F.prelu(x[0], T.ones(4, dtype='float64'))", ValueError, "has 1 channel(s)"),
    ("F.prelu(x, T.ones(1, 4, dtype='float64'))", ValueError, "weight must be a number (0-d) or 1-d"),
    ("F.prelu(x, T.ones(1))", TypeError, "input is float64 but weight is float32"),
    ("F.prelu(x, [0.25])", TypeError, "prelu: weight must be a tinyffn Tensor"),
    ("nn.PReLU(0)", ValueError, "PReLU: num_parameters must be a positive integer"),
    ("F.softmin(x, 2)", ValueError, "softmin: axis 2 is out of range for an input of shape "
                                    "(2, 4); use an integer in [-2, 1]"),
    ("nn.Softmin(-3)(x)", ValueError, "softmin: axis -3 is out of range"),
    ("F.softmin(x, 1, dtype=T.int64)", TypeError, "softmin: dtype must be a float dtype"),
    ("F.softsign([1.0])", TypeError, "softsign: input must be a tinyffn Tensor"),
]


@pytest.mark.parametrize("case, error, words", ERRORS, ids=[e[0] for e in ERRORS])
def test_bad_input_is_refused_with_a_clear_message(case, error, words):
    x = tinyffn.tensor(X, dtype="float64")
    with pytest.raises(error) as caught:
        eval(case, {"F": F, "nn": nn, "T": tinyffn, "x": x})
    assert words in str(caught.value)


def test_prelu_weight_on_another_device_is_refused():
    x = tinyffn.tensor(X, dtype="float64", device="strict")
    with pytest.raises(tinyffn.DeviceError, match="prelu: input is on strict but weight on cpu"):
        F.prelu(x, tinyffn.tensor([0.1], dtype="float64"))


X = [[0.5, -2.0, 3.7, 0.7], [-4.0, 1.5, 0.25, -0.5]]


# PyTorch 2.13's values (torch.nn.functional / torch.nn, float64 unless named)
EXPECTED = {
    'F.elu(a)': ('float64', [[-0.9999999999999064, -0.9816843611112658, -0.950212931632136, -0.6321205588285577, -9.999999999500001e-11, 0.0], [1e-10, 1.0, 3.0, 6.0, 6.5, 25.0]]),
    'F.elu(a, 0.5)': ('float64', [[-0.4999999999999532, -0.4908421805556329, -0.475106465816068, -0.31606027941427883, -4.9999999997500004e-11, 0.0], [1e-10, 1.0, 3.0, 6.0, 6.5, 25.0]]),
    'F.elu(a, -0.5)': ('float64', [[0.4999999999999532, 0.4908421805556329, 0.475106465816068, 0.31606027941427883, 4.9999999997500004e-11, 0.0], [1e-10, 1.0, 3.0, 6.0, 6.5, 25.0]]),
    'F.elu(big)': ('float64', [-1.0, 800.0, -1.0, inf, nan]),
    'F.selu(a)': ('float64', [[-1.758099340847212, -1.7258986281898945, -1.6705687287671118, -1.1113307378125625, -1.7580993407594719e-10, 0.0], [1.0507009873554805e-10, 1.0507009873554805, 3.1521029620664414, 6.304205924132883, 6.829556417810623, 26.26752468388701]]),
    'F.selu(big)': ('float64', [-1.7580993408473766, 840.5607898843843, -1.7580993408473766, inf, nan]),
    'F.celu(a)': ('float64', [[-0.9999999999999064, -0.9816843611112658, -0.950212931632136, -0.6321205588285577, -9.999999999500001e-11, 0.0], [1e-10, 1.0, 3.0, 6.0, 6.5, 25.0]]),
    'F.celu(a, 2.0)': ('float64', [[-1.999999388195359, -1.7293294335267746, -1.5537396797031404, -0.7869386805747332, -9.99999999975e-11, 0.0], [1e-10, 1.0, 3.0, 6.0, 6.5, 25.0]]),
    'F.celu(a, -0.7)': ('float64', [[-2.8689216840022815e+18, -211.5173043777844, -50.15809694501582, -2.2209137185186676, -1.0000000000714285e-10, 0.0], [1e-10, 1.0, 3.0, 6.0, 6.5, 25.0]]),
    'F.mish(a)': ('float64', [[-2.807286890651921e-12, -0.07259174079202535, -0.1456474612756246, -0.30340146137410895, -5.99999999968e-11, 0.0], [6.000000000320001e-11, 0.8650983882673103, 2.9865350049679575, 5.999926634065252, 6.499970703939837, 25.0]]),
    'F.mish(big)': ('float64', [-0.0, 800.0, nan, inf, nan]),
    'F.hardswish(a)': ('float64', [[-0.0, -0.0, -0.0, -0.3333333333333333, -4.9999999998333336e-11, 0.0], [5.000000000166667e-11, 0.6666666666666666, 3.0, 6.0, 6.5, 25.0]]),
    'F.hardswish(big)': ('float64', [-0.0, 800.0, nan, inf, nan]),
    'F.hardsigmoid(a)': ('float64', [[0.0, 0.0, 0.0, 0.3333333333333333, 0.49999999998333333, 0.5], [0.5000000000166667, 0.6666666666666666, 1.0, 1.0, 1.0, 1.0]]),
    'F.hardsigmoid(big)': ('float64', [0.0, 1.0, 0.0, 1.0, nan]),
    'F.logsigmoid(a)': ('float64', [[-30.000000000000092, -4.0181499279178094, -3.048587351573742, -1.3132616875182228, -0.6931471806099453, -0.6931471805599453], [-0.6931471805099453, -0.31326168751822286, -0.04858735157374206, -0.0024756851377304495, -0.0015023101597542838, -1.3887943864867583e-11]]),
    'F.logsigmoid(big)': ('float64', [-800.0, 0.0, -inf, 0.0, nan]),
    'F.relu6(a)': ('float64', [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1e-10, 1.0, 3.0, 6.0, 6.0, 6.0]]),
    'F.relu6(big)': ('float64', [0.0, 6.0, 0.0, 6.0, nan]),
    'F.hardtanh(a)': ('float64', [[-1.0, -1.0, -1.0, -1.0, -1e-10, 0.0], [1e-10, 1.0, 1.0, 1.0, 1.0, 1.0]]),
    'F.hardtanh(a, -3.0, 6.0)': ('float64', [[-3.0, -3.0, -3.0, -1.0, -1e-10, 0.0], [1e-10, 1.0, 3.0, 6.0, 6.0, 6.0]]),
    'F.hardtanh(a, 0.0, 0.0)': ('float64', [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]),
    'F.hardtanh(big)': ('float64', [-1.0, 1.0, -1.0, 1.0, nan]),
    'F.softsign(a)': ('float64', [[-0.967741935483871, -0.8, -0.75, -0.5, -9.999999999e-11, 0.0], [9.999999999e-11, 0.5, 0.75, 0.8571428571428571, 0.8666666666666667, 0.9615384615384616]]),
    'F.softsign(big)': ('float64', [-0.9987515605493134, 0.9987515605493134, nan, nan, nan]),
    'F.tanhshrink(a)': ('float64', [[-29.0, -3.000670700260933, -2.0049452463132695, -0.23840584404423515, 0.0, 0.0], [0.0, 0.23840584404423515, 2.0049452463132695, 5.000012288349204, 5.500004520648596, 24.0]]),
    'F.softmin(a, 0)': ('float64', [[0.9999999999999065, 0.9933071490757153, 0.9975273768433653, 0.9990889488055994, 0.9984988177434129, 0.999999999986112], [9.357622967903555e-14, 0.006692850924284856, 0.0024726231566347748, 0.0009110511944006454, 0.0015011822565870986, 1.3887943864771146e-11]]),
    'F.softmin(a, dim=1)': ('float64', [[0.9999999999925699, 5.1090890280253645e-12, 1.879528816525118e-12, 2.5436656473580234e-13, 9.357622969706393e-14, 9.357622968770648e-14], [0.7034086545580553, 0.25876958277985046, 0.035020654778531154, 0.001743575733746092, 0.001057532140047956, 9.768899909609014e-12]]),
    'F.softmin(b, 1, dtype=T.float32)': ('float32', [[[0.8668133020401001, 0.8668133020401001, 0.8668133020401001, 0.8668133020401001], [0.11731041967868805, 0.11731041967868805, 0.11731041967868805, 0.11731041967868805], [0.01587623916566372, 0.01587623916566372, 0.01587623916566372, 0.01587623916566372]], [[0.8668133020401001, 0.8668133020401001, 0.8668133020401001, 0.8668133020401001], [0.11731041967868805, 0.11731041967868805, 0.11731041967868805, 0.11731041967868805], [0.01587623916566372, 0.01587623916566372, 0.01587623916566372, 0.01587623916566372]]]),
    'F.threshold(a, 1.0, -2.0)': ('float64', [[-2.0, -2.0, -2.0, -2.0, -2.0, -2.0], [-2.0, -2.0, 3.0, 6.0, 6.5, 25.0]]),
    'F.threshold(a, 0.0, 0.0)': ('float64', [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1e-10, 1.0, 3.0, 6.0, 6.5, 25.0]]),
    'F.threshold(big, 5.0, 7.5)': ('float64', [7.5, 800.0, 7.5, inf, nan]),
    'F.prelu(b, w3)': ('float64', [[[-0.6000000000000001, -0.55, -0.5, -0.45], [2.0, 1.75, 1.5, 1.25], [-4.0, -3.0, -2.0, -1.0]], [[0.0, 0.5, 1.0, 1.5], [2.0, 2.5, 3.0, 3.5], [4.0, 4.5, 5.0, 5.5]]]),
    'F.prelu(b, w1)': ('float64', [[[-1.5, -1.375, -1.25, -1.125], [-1.0, -0.875, -0.75, -0.625], [-0.5, -0.375, -0.25, -0.125]], [[0.0, 0.5, 1.0, 1.5], [2.0, 2.5, 3.0, 3.5], [4.0, 4.5, 5.0, 5.5]]]),
    'F.prelu(a, w0)': ('float64', [[-9.0, -1.2, -0.8999999999999999, -0.3, -3e-11, 0.0], [1e-10, 1.0, 3.0, 6.0, 6.5, 25.0]]),
    'F.prelu(a[0], w1)': ('float64', [-7.5, -1.0, -0.75, -0.25, -2.5e-11, 0.0]),
    'F.prelu(a[0, 3], w1)': ('float64', -0.25),
    'F.prelu(a, w6)': ('float64', [[-3.0, -0.8, -0.8999999999999999, 0.4, -5e-11, 0.0], [1e-10, 1.0, 3.0, 6.0, 6.5, 25.0]]),
    'nn.ELU(0.3)(a)': ('float64', [[-0.2999999999999719, -0.29450530833337973, -0.2850638794896408, -0.1896361676485673, -2.99999999985e-11, 0.0], [1e-10, 1.0, 3.0, 6.0, 6.5, 25.0]]),
    'nn.SELU()(a)': ('float64', [[-1.758099340847212, -1.7258986281898945, -1.6705687287671118, -1.1113307378125625, -1.7580993407594719e-10, 0.0], [1.0507009873554805e-10, 1.0507009873554805, 3.1521029620664414, 6.304205924132883, 6.829556417810623, 26.26752468388701]]),
    'nn.CELU(1.5)(a)': ('float64', [[-1.4999999969082696, -1.3957748231657976, -1.296997075145081, -0.729874321451112, -9.999999999666667e-11, 0.0], [1e-10, 1.0, 3.0, 6.0, 6.5, 25.0]]),
    'nn.Mish()(a)': ('float64', [[-2.807286890651921e-12, -0.07259174079202535, -0.1456474612756246, -0.30340146137410895, -5.99999999968e-11, 0.0], [6.000000000320001e-11, 0.8650983882673103, 2.9865350049679575, 5.999926634065252, 6.499970703939837, 25.0]]),
    'nn.Hardswish()(a)': ('float64', [[-0.0, -0.0, -0.0, -0.3333333333333333, -4.9999999998333336e-11, 0.0], [5.000000000166667e-11, 0.6666666666666666, 3.0, 6.0, 6.5, 25.0]]),
    'nn.Hardsigmoid()(a)': ('float64', [[0.0, 0.0, 0.0, 0.3333333333333333, 0.49999999998333333, 0.5], [0.5000000000166667, 0.6666666666666666, 1.0, 1.0, 1.0, 1.0]]),
    'nn.LogSigmoid()(a)': ('float64', [[-30.000000000000092, -4.0181499279178094, -3.048587351573742, -1.3132616875182228, -0.6931471806099453, -0.6931471805599453], [-0.6931471805099453, -0.31326168751822286, -0.04858735157374206, -0.0024756851377304495, -0.0015023101597542838, -1.3887943864867583e-11]]),
    'nn.ReLU6()(a)': ('float64', [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1e-10, 1.0, 3.0, 6.0, 6.0, 6.0]]),
    'nn.Hardtanh(-2.0, 2.0)(a)': ('float64', [[-2.0, -2.0, -2.0, -1.0, -1e-10, 0.0], [1e-10, 1.0, 2.0, 2.0, 2.0, 2.0]]),
    'nn.Softsign()(a)': ('float64', [[-0.967741935483871, -0.8, -0.75, -0.5, -9.999999999e-11, 0.0], [9.999999999e-11, 0.5, 0.75, 0.8571428571428571, 0.8666666666666667, 0.9615384615384616]]),
    'nn.Tanhshrink()(a)': ('float64', [[-29.0, -3.000670700260933, -2.0049452463132695, -0.23840584404423515, 0.0, 0.0], [0.0, 0.23840584404423515, 2.0049452463132695, 5.000012288349204, 5.500004520648596, 24.0]]),
    'nn.Softmin(1)(a)': ('float64', [[0.9999999999925699, 5.1090890280253645e-12, 1.879528816525118e-12, 2.5436656473580234e-13, 9.357622969706393e-14, 9.357622968770648e-14], [0.7034086545580553, 0.25876958277985046, 0.035020654778531154, 0.001743575733746092, 0.001057532140047956, 9.768899909609014e-12]]),
    'nn.Softmin(0)(b)': ('float64', [[[0.9975273768433653, 0.9975273768433653, 0.9975273768433653, 0.9975273768433653], [0.9975273768433653, 0.9975273768433653, 0.9975273768433653, 0.9975273768433653], [0.9975273768433653, 0.9975273768433653, 0.9975273768433653, 0.9975273768433653]], [[0.0024726231566347748, 0.0024726231566347748, 0.0024726231566347748, 0.0024726231566347748], [0.0024726231566347748, 0.0024726231566347748, 0.0024726231566347748, 0.0024726231566347748], [0.0024726231566347748, 0.0024726231566347748, 0.0024726231566347748, 0.0024726231566347748]]]),
    'nn.Threshold(0.5, 9.0)(a)': ('float64', [[9.0, 9.0, 9.0, 9.0, 9.0, 9.0], [9.0, 1.0, 3.0, 6.0, 6.5, 25.0]]),
    'nn.GLU()(a)': ('float64', [[-8.068242641099854, -1.9999999999, -1.5], [9.975273768433654e-11, 0.998498817743263, 2.999999999958336]]),
    'nn.GLU(0)(b)': ('float64', [[[-3.0, -3.4235263216102, -3.6552928931500244, -3.679085142871396], [-3.5231883119115293, -3.234496369925648, -2.8577223804673, -2.426719423121609], [-1.964027580075817, -1.4835195860541102, -0.9933071490757153, -0.497964931142052]]]),
    'nn.LogSoftmax(1)(a)': ('float64', [[-30.890350021548276, -4.890350021548276, -3.890350021548276, -1.8903500215482756, -0.8903500216482756, -0.8903500215482756], [-25.000000015070835, -24.000000015170833, -22.000000015170833, -19.000000015170833, -18.500000015170833, -1.5170832031005985e-08]]),
    'nn.LogSoftmax(dim=0)(b)': ('float64', [[[-6.00247568513773, -6.00247568513773, -6.00247568513773, -6.00247568513773], [-6.00247568513773, -6.00247568513773, -6.00247568513773, -6.00247568513773], [-6.00247568513773, -6.00247568513773, -6.00247568513773, -6.00247568513773]], [[-0.002475685137730357, -0.002475685137730357, -0.002475685137730357, -0.002475685137730357], [-0.002475685137730357, -0.002475685137730357, -0.002475685137730357, -0.002475685137730357], [-0.002475685137730357, -0.002475685137730357, -0.002475685137730357, -0.002475685137730357]]]),
    'nn.PReLU(dtype=T.float64, **kw)(a)': ('float64', [[-7.5, -1.0, -0.75, -0.25, -2.5e-11, 0.0], [1e-10, 1.0, 3.0, 6.0, 6.5, 25.0]]),
    'nn.PReLU(3, 0.1, dtype=T.float64, **kw)(b)': ('float64', [[[-0.6000000000000001, -0.55, -0.5, -0.45], [-0.4, -0.35000000000000003, -0.30000000000000004, -0.25], [-0.2, -0.15000000000000002, -0.1, -0.05]], [[0.0, 0.5, 1.0, 1.5], [2.0, 2.5, 3.0, 3.5], [4.0, 4.5, 5.0, 5.5]]]),
}

# PyTorch 2.13's gradients of L = Σ f · (1, 2, 3, ...)/10
EXPECTED_GRADS = {
    'F.elu(a) da': ('float64', [[9.357622968840175e-15, 0.003663127777746836, 0.014936120510359183, 0.14715177646857694, 0.49999999995, 0.6], [0.7, 0.8, 0.9, 1.0, 1.1, 1.2]]),
    'F.elu(a, -0.5) da': ('float64', [[-4.6788114844200876e-15, -0.001831563888873418, -0.007468060255179591, -0.07357588823428847, -0.249999999975, -0.3], [0.7, 0.8, 0.9, 1.0, 1.1, 1.2]]),
    'F.elu(big) dbig': ('float64', [0.0, 0.2, 0.0, 0.4, 0.5]),
    'F.selu(a) da': ('float64', [[1.6451630773416184e-14, 0.006440142531496428, 0.026259183624079464, 0.25870744121392564, 0.8790496703357833, 1.054859604508426], [0.7354906911488363, 0.8405607898843844, 0.9456308886199324, 1.0507009873554805, 1.1557710860910286, 1.2608411848265766]]),
    'F.celu(a, 2.0) da': ('float64', [[3.059023205018258e-08, 0.027067056647322542, 0.06693904804452894, 0.2426122638850534, 0.499999999975, 0.6], [0.7, 0.8, 0.9, 1.0, 1.1, 1.2]]),
    'F.celu(a, -0.7) da': ('float64', [[4.098462609644361e+17, 60.63352246956504, 21.79632922415004, 1.6690936224701545, 0.5000000085863779, 0.6000000102179393], [0.7, 0.8, 0.9, 1.0, 1.1, 1.2]]),
    'F.mish(a) da': ('float64', [[-2.713710660963392e-13, -0.010754641958696068, -0.02801793435969625, 0.023686702350958006, 0.29999999996800003, 0.36], [0.4200000000448, 0.8392289760798338, 0.9189962198364992, 1.00013414050621, 1.10005939663934, 1.2]]),
    'F.mish(big) dbig': ('float64', [0.0, 0.2, nan, nan, nan]),
    'F.hardswish(a) da': ('float64', [[0.0, 0.0, 0.0, 0.06666666666666668, 0.24999999998333333, 0.3], [0.3500000000233333, 0.6666666666666666, 0.9, 1.0, 1.1, 1.2]]),
    'F.hardsigmoid(a) da': ('float64', [[0.0, 0.0, 0.0, 0.06666666865348816, 0.0833333358168602, 0.10000000298023223], [0.11666667014360427, 0.13333333730697633, 0.0, 0.0, 0.0, 0.0]]),
    'F.logsigmoid(a) da': ('float64', [[0.09999999999999065, 0.1964027580075817, 0.28577223804672996, 0.29242343145200195, 0.2500000000125, 0.3], [0.3499999999825, 0.2151531370959961, 0.04268328585981011, 0.0024726231566347748, 0.0016513004824106907, 1.6665532637725373e-11]]),
    'F.logsigmoid(big) dbig': ('float64', [0.1, 0.0, 0.3, 0.0, nan]),
    'F.relu6(a) da': ('float64', [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.7, 0.8, 0.9, 0.0, 0.0, 0.0]]),
    'F.hardtanh(a) da': ('float64', [[0.0, 0.0, 0.0, 0.0, 0.5, 0.6], [0.7, 0.0, 0.0, 0.0, 0.0, 0.0]]),
    'F.hardtanh(a, -3.0, 6.0) da': ('float64', [[0.0, 0.0, 0.0, 0.4, 0.5, 0.6], [0.7, 0.8, 0.9, 0.0, 0.0, 0.0]]),
    'F.hardtanh(a, 0.0, 0.0) da': ('float64', [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]),
    'F.softsign(a) da': ('float64', [[0.000104058272632674, 0.008, 0.018750000000000003, 0.1, 0.4999999999, 0.6], [0.6999999998599999, 0.2, 0.056249999999999994, 0.020408163265306117, 0.019555555555555548, 0.0017751479289940808]]),
    'F.tanhshrink(a) da': ('float64', [[0.1, 0.19973180986339484, 0.2970401888503679, 0.23201026335438957, 0.0, 0.0], [0.0, 0.46402052670877914, 0.8911205665511038, 0.9999754234525947, 1.0999900545955692, 1.2]]),
    'F.softmin(a, 0) da': ('float64', [[5.614952947041204e-14, 0.00398883400247413, 0.0014799055748160692, 0.0005461327080731147, 0.0008993572250517608, 8.332778911208386e-12], [-5.6145737807416065e-14, -0.003988834002474093, -0.001479905574816029, -0.0005461327080730959, -0.0008993572250517642, -8.332766318746962e-12]]),
    'F.softmin(a, dim=1) da': ('float64', [[1.0473566458479752e-12, -5.109089027971854e-13, -3.7590576330305504e-13, -7.630996942047429e-14, -3.7430491878727565e-14, -4.678811484375523e-14], [0.023794327523921452, -0.017123514364559233, -0.005819481144386944, -0.0004640924789756971, -0.0003872395314455967, -4.553995669814672e-12]]),
    'F.threshold(a, 1.0, -2.0) da': ('float64', [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.9, 1.0, 1.1, 1.2]]),
    'F.threshold(a, 0.0, 0.0) da': ('float64', [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.7, 0.8, 0.9, 1.0, 1.1, 1.2]]),
    'F.prelu(b, w3) db': ('float64', [[[0.010000000000000002, 0.020000000000000004, 0.03, 0.04000000000000001], [-0.25, -0.3, -0.35, -0.4], [1.8, 2.0, 2.2, 2.4]], [[0.13, 1.4, 1.5, 1.6], [1.7, 1.8, 1.9, 2.0], [2.1, 2.2, 2.3, 2.4]]]),
    'F.prelu(b, w3) dw3': ('float64', [-5.0, -8.2, -5.0]),
    'F.prelu(a, w0) da': ('float64', [[0.03, 0.06, 0.09, 0.12, 0.15, 0.18], [0.7, 0.8, 0.9, 1.0, 1.1, 1.2]]),
    'F.prelu(a, w0) dw0': ('float64', -5.1000000000500005),
    'F.prelu(a, w6) dw6': ('float64', [-3.0, -0.8, -0.8999999999999999, -0.4, -5e-11, 0.0]),
    'F.prelu(a[0], w1) dw1': ('float64', [-5.1000000000500005]),
    'nn.Hardsigmoid()(a) da': ('float64', [[0.0, 0.0, 0.0, 0.06666666865348816, 0.0833333358168602, 0.10000000298023223], [0.11666667014360427, 0.13333333730697633, 0.0, 0.0, 0.0, 0.0]]),
    'nn.GLU(0)(b) db': ('float64', [[[0.05, 0.12449186624037092, 0.21931757358900147, 0.3270297904774575], [0.44039853898894116, 0.5544850919872539, 0.6668018887757033, 0.776550215398915], [0.8838124110341177, 0.9890130573694068, 1.0926378639832868, 1.1951158347409248]], [[-0.15000000000000002, -0.25850408342175396, -0.2949178998622228, -0.26846361372659916], [-0.20998717080701323, -0.14721780474472693, -0.09487098543491519, -0.056906047759471196], [-0.031792871183923994, -0.016299344583337864, -0.007312862337869037, -0.002432143016921807]]]),
    'nn.LogSoftmax(1)(a) da': ('float64', [[0.09999999999991933, 0.1842105404209388, 0.2570797989450493, 0.08286022662758666, -0.3620752829536434, -0.26207528303985095], [0.6999999999208387, 0.7999999997848174, 0.8999999984100032, 0.9999999680640608, 1.0999999473465378, -4.499999913526258]]),
    'nn.ReLU6()(a) da': ('float64', [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.7, 0.8, 0.9, 0.0, 0.0, 0.0]]),
}
