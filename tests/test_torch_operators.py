"""The names of tinyffn/torch_operators.py: add, sub, subtract, mul, multiply, div and
divide (rounding_mode), the comparisons and their aliases, absolute, fmax, fmin, and tan,
asin, acos, atanh, asinh, acosh (the primitives of ops/logs_and_angles.py) with their
``arc`` names.

Each case is one call, written once and run with the names of tinyffn and of torch.
References: PyTorch 2.13, live where it is installed and written out in ``EXPECTED`` and
``EXPECTED_GRADS`` (those run without it, on every device); the inverse functions against
NumPy's and composed with their forward functions; div's rounding modes against Python's
integer and float arithmetic; gradcheck and gradgradcheck on every device.
"""
import math

import numpy as np
import pytest

import tinyffn
import torch_parity

X = [[0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5]]
W = [[1.0, 2.0, -3.0, 0.0], [0.5, -0.5, 0.25, 2.0]]
NAN = math.nan

CASES = [
    "T.add(x, w)", "T.add(x, w, alpha=-2)", "T.add(2.0, x)", "T.add(i, 3)", "x.add(w[0])",
    "T.sub(x, w, alpha=0.5)", "T.subtract(x, 1.5)", "x.subtract(w, alpha=2)",
    "T.mul(x, w)", "T.multiply(i, 2)", "x.multiply(w)", "T.mul(3, x)",
    "T.div(x, w[1])", "T.div(i, 2)", "T.divide(x, 4)", "x.divide(w[1])",
    "T.div(x, w[1], rounding_mode='trunc')", "T.div(x, w[1], rounding_mode='floor')",
    "T.div(i, -3, rounding_mode='trunc')", "T.div(i, -3, rounding_mode='floor')",
    "T.div(i, j, rounding_mode='trunc')", "T.div(-i, j, rounding_mode='floor')",
    "x.div(0.75, rounding_mode='trunc')", "i.divide(j, rounding_mode='floor')",
    "T.eq(x, w)", "T.ne(x, 0)", "T.not_equal(x, w)", "T.lt(x, w)", "T.less(x, 0.5)",
    "T.le(x, w)", "T.less_equal(i, 2)", "T.gt(x, w)", "T.greater(x, w)", "T.ge(i, 2)",
    "T.greater_equal(x, w)", "x.greater(w)", "x.less_equal(w)", "x.not_equal(w)",
    "T.absolute(x)", "i.absolute()",
    "T.fmax(n, m)", "T.fmin(n, m)", "n.fmax(m)", "T.fmax(x, w)", "T.fmin(x, w[0])",
    "T.fmax(i, j)", "T.fmin(n.float(), m.float())",
    "T.tan(u)", "u.tan()", "T.tan(i)", "T.asin(u)", "T.arcsin(u)", "u.asin()", "T.acos(u)",
    "u.arccos()", "T.atanh(u)", "u.arctanh()", "T.asinh(x)", "x.arcsinh()", "T.asinh(big)",
    "T.acosh(c)", "c.arccosh()", "T.acosh(big.abs() + 1)", "T.asin(e)", "T.acos(e)",
    "T.atanh(e)", "T.acosh(e)", "T.asinh(e)", "T.tan(e)", "T.asin(i)",
]
for name in ("tan", "asin", "acos", "atanh", "asinh"):           # float32 and float16
    CASES += [f"T.{name}(u.float())", f"T.{name}(u.half())"]
CASES += ["T.acosh(c.float())", "T.acosh(c.half())"]
# a number first takes PyTorch's dtype beside the tensor (2.5 beside int64 is float32, 2
# beside a bool is int64), and edges the mutation audit found untested: ties in le and ge,
# the functions' alpha and rounding_mode, the methods' aliases
CASES += [
    "T.add(2.5, i)", "T.sub(2.5, i, alpha=2)", "T.mul(2.5, i)", "T.multiply(0.5, j)",
    "T.add(True, i)", "T.add(2, i > 0, alpha=3)", "T.div(2, j)",
    "T.div(7.5, j, rounding_mode='floor')", "T.divide(7, j, rounding_mode='trunc')",
    "T.subtract(x, w, alpha=-1.5)", "T.divide(i, j, rounding_mode='trunc')",
    "T.div(i, -2.5, rounding_mode='trunc')", "T.div(i, w[1], rounding_mode='trunc')",
    "T.less_equal(i, 3)", "T.ge(i, 3)", "x.less(w)", "x.greater_equal(w)", "n.fmin(m)",
    "u.arcsin()", "i.divide(-3, rounding_mode='trunc')", "T.add(True, i > 0)",
]


def run(module, case: str, requires_grad: str = "", **tensor_kwargs):
    inputs = {}
    values = dict(x=X, w=W, n=[1.0, NAN, NAN, -2.0, 3.0, -0.0],
                  m=[NAN, 2.0, NAN, -2.0, -1.0, 0.0],
                  u=[-0.99, -0.5, -1e-8, 0.0, 0.3, 0.9, 0.999999],
                  c=[1.0, 1.0 + 1e-9, 1.5, 3.0, 1e5],
                  big=[1e-300, -1e-8, 1e8, -1e300],
                  e=[-1.0, 1.0, 1.5, -2.0, math.inf, -math.inf, NAN])
    for name, v in values.items():
        inputs[name] = module.tensor(v, dtype=module.float64, **tensor_kwargs)
        if name == requires_grad:
            inputs[name].requires_grad_(True)
    inputs["i"] = module.tensor([[7, -7, 0, 5], [-6, 6, 3, -1]], **tensor_kwargs)
    inputs["j"] = module.tensor([[2, 2, -3, -2], [4, -4, 3, 1]], **tensor_kwargs)
    if "half" in case and tensor_kwargs.get("device") == "strict":
        pytest.skip("the strict backend has no float16")
    if case == "T.add(True, i > 0)" and tensor_kwargs.get("device") == "strict":
        pytest.skip("array_api_strict refuses bool + bool (PyTorch's is a logical or)")
    with np.errstate(all="ignore"):
        y = eval(case, {}, {"T": module, **inputs})
    return (y, inputs[requires_grad]) if requires_grad else y


plain = torch_parity.plain


def assert_same(actual, expected, case, device="cpu"):
    """dtype, shape and values to 1e-13 (float32: 2 ulp, float16: 1 ulp; the C library's
    and PyTorch's float32 functions are not correctly rounded; CUDA's, on a GPU, 2 ulp
    more), NaN equal to NaN."""
    dtype = expected[0]
    rtol = {"float16": 1e-3, "float32": 2.4e-7}.get(dtype, 1e-13)
    rtol *= 3 if device == "cuda" else 1
    torch_parity.assert_close(actual, expected, case, rtol=rtol, atol=0)


GRAD_CASES = [
    ("T.add(x, w, alpha=-2)", "w"), ("T.sub(x, w, alpha=0.5)", "w"), ("T.mul(x, w)", "x"),
    ("T.div(x, w[1])", "w"), ("T.div(x, w[1], rounding_mode='floor')", "x"),
    ("T.div(x, w[1], rounding_mode='trunc')", "w"),
    ("T.fmax(n, m)", "n"), ("T.fmax(n, m)", "m"), ("T.fmin(n, m)", "m"),
    ("T.fmax(x, w)", "x"), ("T.fmin(x, w)", "w"),
    # near ±1 (acosh: near 1) PyTorch's 1 - x² loses digits that (1 - x)(1 + x) keeps:
    # those points are tested against the exact derivative below, not against torch
    ("T.tan(u)", "u"), ("T.asin(u[:6])", "u"), ("T.acos(u[:6])", "u"),
    ("T.atanh(u[:6])", "u"), ("T.asinh(x)", "x"), ("T.asinh(big)", "big"),
    ("T.acosh(c[2:])", "c"), ("T.asin(e)", "e"),
    ("T.atanh(e)", "e"), ("T.acosh(e)", "e"), ("T.absolute(x)", "x"),
]


def grad_of(module, case: str, wrt: str, **tensor_kwargs):
    y, x = run(module, case, requires_grad=wrt, **tensor_kwargs)
    with np.errstate(all="ignore"):
        return torch_parity.weighted_grad(module, y, x, **tensor_kwargs)


torch_parity.tests(globals())


def test_the_inverse_functions_against_numpy_and_as_inverses(device):
    """asin(sin(t)) = t on (-pi/2, pi/2), acos(cos(t)) = t on (0, pi), atanh(tanh(t)),
    asinh(sinh(t)), acosh(cosh(t)) for t > 0; each against NumPy's to 1 ulp (CUDA's
    functions, on a GPU, are within 2 ulp of the truth: 4 there)."""
    ulp = 2.3e-16 * (4 if device == "cuda" else 1)
    t = np.linspace(-1.5, 1.5, 41)
    pos = np.linspace(0.05, 3.0, 30)
    T = lambda a: tinyffn.tensor(a, dtype="float64", device=device)
    for fn, ref, forward, ts in ((tinyffn.asin, np.arcsin, np.sin, t),
                                 (tinyffn.acos, np.arccos, np.cos, pos),
                                 (tinyffn.atanh, np.arctanh, np.tanh, t),
                                 (tinyffn.asinh, np.arcsinh, np.sinh, t),
                                 (tinyffn.acosh, np.arccosh, np.cosh, pos)):
        got = fn(T(forward(ts))).numpy()
        np.testing.assert_allclose(got, ref(forward(ts)), rtol=ulp, atol=0)
        np.testing.assert_allclose(got, ts, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(tinyffn.tan(T(t)).numpy(), np.tan(t), rtol=ulp)


def test_derivatives_near_the_ends_of_the_domain_keep_their_digits(device):
    """d asin/dx, d acos/dx, d atanh/dx at x = 0.999999 and d acosh/dx at 1 + 1e-9, against
    the exact derivative of the float64 x (Decimal, 40 digits): within 4e-16 relative.
    PyTorch 2.13's 1 - x² and x² - 1 give 5.5e-12 (asin), 1.1e-11 (atanh) and 2.5e-10
    (acosh) relative error there."""
    from decimal import Decimal, getcontext
    getcontext().prec = 40
    cases = ((tinyffn.asin, 0.999999, lambda d: 1 / (1 - d * d).sqrt()),
             (tinyffn.acos, 0.999999, lambda d: -1 / (1 - d * d).sqrt()),
             (tinyffn.atanh, 0.999999, lambda d: 1 / (1 - d * d)),
             (tinyffn.acosh, 1 + 1e-9, lambda d: 1 / (d * d - 1).sqrt()))
    for fn, v, exact in cases:
        x = tinyffn.tensor([v], dtype="float64", device=device, requires_grad=True)
        fn(x).sum().backward()
        want = float(exact(Decimal(v)))
        assert abs(x.grad.tolist()[0] - want) <= 4e-16 * abs(want), fn.__name__


def test_div_rounding_modes_against_python(device):
    """trunc: toward zero (C's integer division, math.trunc of the float quotient); floor:
    Python's //, for every sign of either operand, integers and floats."""
    pairs = [(a, b) for a in (-7, -6, -1, 0, 1, 5, 7) for b in (-3, -2, -1, 1, 2, 3)]
    a = tinyffn.tensor([p[0] for p in pairs], device=device)
    b = tinyffn.tensor([p[1] for p in pairs], device=device)
    trunc = tinyffn.div(a, b, rounding_mode="trunc")
    floor = tinyffn.div(a, b, rounding_mode="floor")
    assert trunc.dtype == floor.dtype == a.dtype
    assert trunc.tolist() == [int(p / q) for p, q in pairs]
    assert floor.tolist() == [p // q for p, q in pairs]
    af, bf = a.double() * 1.25, b.double()
    assert tinyffn.div(af, bf, rounding_mode="trunc").tolist() == \
        [float(math.trunc(p * 1.25 / q)) for p, q in pairs]
    assert tinyffn.div(af, bf, rounding_mode="floor").tolist() == [p * 1.25 // q for p, q in pairs]


def test_div_trunc_at_the_integer_minimum(device):
    """-128 / 3 in int8 truncates to -42, as in PyTorch and C: it came out +43 when the
    quotient was floor(|x| / |w|) · sign, as |-128| is -128 in int8 (and 127 / -128 came
    out 1). Each integer dtype's minimum and maximum, divisors of both signs and the
    minimum itself, against Python's exact integers."""
    for dtype, bits in (("int8", 8), ("int16", 16), ("int32", 32), ("int64", 64)):
        lo, hi = -2 ** (bits - 1), 2 ** (bits - 1) - 1
        a = tinyffn.tensor([lo, lo, lo + 1, hi, hi, lo, -7], dtype=dtype, device=device)
        b = tinyffn.tensor([3, -7, -3, -2, lo, lo, 2], dtype=dtype, device=device)
        toward_zero = lambda p, q: -(-p // q) if (p < 0) != (q < 0) else p // q   # exact
        got = tinyffn.div(a, b, rounding_mode="trunc")
        assert got.dtype == a.dtype, dtype
        assert got.tolist() == [toward_zero(p, q) for p, q in zip(a.tolist(), b.tolist())]
        assert tinyffn.div(a, 3, rounding_mode="trunc").tolist() == \
            [toward_zero(p, 3) for p in a.tolist()], dtype


def test_fmax_and_fmin_ignore_one_nan_and_keep_two(device):
    n = tinyffn.tensor([1.0, NAN, NAN, 2.0], device=device, requires_grad=True)
    m = tinyffn.tensor([NAN, 3.0, NAN, 2.0], device=device, requires_grad=True)
    y = tinyffn.fmax(n, m)
    got = y.tolist()
    assert got[:2] == [1.0, 3.0] and math.isnan(got[2]) and got[3] == 2.0
    y.sum().backward()
    assert n.grad.tolist() == [1.0, 0.0, 1.0, 1.0]      # a tie, and both NaN: to input,
    assert m.grad.tolist() == [0.0, 1.0, 0.0, 0.0]      # as PyTorch's
    assert tinyffn.fmin(n, m).tolist()[:2] == [1.0, 3.0]


def test_gradcheck_and_gradgradcheck_of_the_new_primitives(device):
    r = np.random.default_rng(0)
    inside = r.uniform(-0.8, 0.8, (2, 3))
    for fn, a in ((tinyffn.tan, inside), (tinyffn.asin, inside), (tinyffn.acos, inside),
                  (tinyffn.atanh, inside), (tinyffn.asinh, inside * 4),
                  (tinyffn.acosh, 1.2 + np.abs(inside) * 3)):
        x = tinyffn.tensor(a, dtype="float64", device=device, requires_grad=True)
        assert tinyffn.gradcheck(fn, [x]) and tinyffn.gradgradcheck(fn, [x]), fn.__name__


@pytest.mark.parametrize("call, error, words", [
    ("T.add([1.0], x)", TypeError, "must be a tinyffn Tensor"),
    ("T.add(2, 3)", TypeError, "must be a tinyffn Tensor"),
    ("T.mul(2.5, [x])", TypeError, "must be a tinyffn Tensor"),
    ("T.add(300, x.abs().byte())", OverflowError, "does not fit in uint8"),
    ("T.mul(1e-7, x.half())", ValueError, "float16"),     # as x.half() * 1e-7 is refused
    ("T.div(1e-7, x.half())", ValueError, "float16"),
    ("T.div(x, x, rounding_mode='round')", ValueError, "'trunc' or 'floor'"),
    ("T.fmax(x, 1.0)", TypeError, "other must be a tinyffn Tensor"),
    ("T.fmin(x > 0, x > 1)", TypeError, "bool tensor"),
    ("T.fmax(x, x[:, :2])", ValueError, "shapes (2, 4) and (2, 2) cannot be broadcast"),
    ("T.asin([0.5])", TypeError, "must be a tinyffn Tensor"),
])
def test_errors_name_the_function(call, error, words):
    x = tinyffn.tensor(X, dtype="float64")
    with pytest.raises(error) as info:
        eval(call, {"T": tinyffn, "x": x})
    assert words in str(info.value) and call[2:call.index("(")] in str(info.value)



nan, inf = math.nan, math.inf  # as the values below are printed
EXPECTED = {
    'T.add(x, w)': ('float64', [[1.5, 0.0, 0.0, 0.0], [-3.5, 1.0, 0.5, 1.5]]),
    'T.add(x, w, alpha=-2)': ('float64', [[-1.5, -6.0, 9.0, 0.0], [-5.0, 2.5, -0.25, -4.5]]),
    'T.add(2.0, x)': ('float64', [[2.5, 0.0, 5.0, 2.0], [-2.0, 3.5, 2.25, 1.5]]),
    'T.add(i, 3)': ('int64', [[10, -4, 3, 8], [-3, 9, 6, 2]]),
    'x.add(w[0])': ('float64', [[1.5, 0.0, 0.0, 0.0], [-3.0, 3.5, -2.75, -0.5]]),
    'T.sub(x, w, alpha=0.5)': ('float64', [[0.0, -3.0, 4.5, 0.0], [-4.25, 1.75, 0.125, -1.5]]),
    'T.subtract(x, 1.5)': ('float64', [[-1.0, -3.5, 1.5, -1.5], [-5.5, 0.0, -1.25, -2.0]]),
    'x.subtract(w, alpha=2)': ('float64', [[-1.5, -6.0, 9.0, 0.0], [-5.0, 2.5, -0.25, -4.5]]),
    'T.mul(x, w)': ('float64', [[0.5, -4.0, -9.0, 0.0], [-2.0, -0.75, 0.0625, -1.0]]),
    'T.multiply(i, 2)': ('int64', [[14, -14, 0, 10], [-12, 12, 6, -2]]),
    'x.multiply(w)': ('float64', [[0.5, -4.0, -9.0, 0.0], [-2.0, -0.75, 0.0625, -1.0]]),
    'T.mul(3, x)': ('float64', [[1.5, -6.0, 9.0, 0.0], [-12.0, 4.5, 0.75, -1.5]]),
    'T.div(x, w[1])': ('float64', [[1.0, 4.0, 12.0, 0.0], [-8.0, -3.0, 1.0, -0.25]]),
    'T.div(i, 2)': ('float32', [[3.5, -3.5, 0.0, 2.5], [-3.0, 3.0, 1.5, -0.5]]),
    'T.divide(x, 4)': ('float64', [[0.125, -0.5, 0.75, 0.0], [-1.0, 0.375, 0.0625, -0.125]]),
    'x.divide(w[1])': ('float64', [[1.0, 4.0, 12.0, 0.0], [-8.0, -3.0, 1.0, -0.25]]),
    "T.div(x, w[1], rounding_mode='trunc')": ('float64', [[1.0, 4.0, 12.0, 0.0], [-8.0, -3.0, 1.0, -0.0]]),
    "T.div(x, w[1], rounding_mode='floor')": ('float64', [[1.0, 4.0, 12.0, 0.0], [-8.0, -3.0, 1.0, -1.0]]),
    "T.div(i, -3, rounding_mode='trunc')": ('int64', [[-2, 2, 0, -1], [2, -2, -1, 0]]),
    "T.div(i, -3, rounding_mode='floor')": ('int64', [[-3, 2, 0, -2], [2, -2, -1, 0]]),
    "T.div(i, j, rounding_mode='trunc')": ('int64', [[3, -3, 0, -2], [-1, -1, 1, -1]]),
    "T.div(-i, j, rounding_mode='floor')": ('int64', [[-4, 3, 0, 2], [1, 1, -1, 1]]),
    "x.div(0.75, rounding_mode='trunc')": ('float64', [[0.0, -2.0, 4.0, 0.0], [-5.0, 2.0, 0.0, -0.0]]),
    "i.divide(j, rounding_mode='floor')": ('int64', [[3, -4, 0, -3], [-2, -2, 1, -1]]),
    'T.eq(x, w)': ('bool', [[False, False, False, True], [False, False, True, False]]),
    'T.ne(x, 0)': ('bool', [[True, True, True, False], [True, True, True, True]]),
    'T.not_equal(x, w)': ('bool', [[True, True, True, False], [True, True, False, True]]),
    'T.lt(x, w)': ('bool', [[True, True, False, False], [True, False, False, True]]),
    'T.less(x, 0.5)': ('bool', [[False, True, False, True], [True, False, True, True]]),
    'T.le(x, w)': ('bool', [[True, True, False, True], [True, False, True, True]]),
    'T.less_equal(i, 2)': ('bool', [[False, True, True, False], [True, False, False, True]]),
    'T.gt(x, w)': ('bool', [[False, False, True, False], [False, True, False, False]]),
    'T.greater(x, w)': ('bool', [[False, False, True, False], [False, True, False, False]]),
    'T.ge(i, 2)': ('bool', [[True, False, False, True], [False, True, True, False]]),
    'T.greater_equal(x, w)': ('bool', [[False, False, True, True], [False, True, True, False]]),
    'x.greater(w)': ('bool', [[False, False, True, False], [False, True, False, False]]),
    'x.less_equal(w)': ('bool', [[True, True, False, True], [True, False, True, True]]),
    'x.not_equal(w)': ('bool', [[True, True, True, False], [True, True, False, True]]),
    'T.absolute(x)': ('float64', [[0.5, 2.0, 3.0, 0.0], [4.0, 1.5, 0.25, 0.5]]),
    'i.absolute()': ('int64', [[7, 7, 0, 5], [6, 6, 3, 1]]),
    'T.fmax(n, m)': ('float64', [1.0, 2.0, nan, -2.0, 3.0, -0.0]),
    'T.fmin(n, m)': ('float64', [1.0, 2.0, nan, -2.0, -1.0, -0.0]),
    'n.fmax(m)': ('float64', [1.0, 2.0, nan, -2.0, 3.0, -0.0]),
    'T.fmax(x, w)': ('float64', [[1.0, 2.0, 3.0, 0.0], [0.5, 1.5, 0.25, 2.0]]),
    'T.fmin(x, w[0])': ('float64', [[0.5, -2.0, -3.0, 0.0], [-4.0, 1.5, -3.0, -0.5]]),
    'T.fmax(i, j)': ('int64', [[7, 2, 0, 5], [4, 6, 3, 1]]),
    'T.fmin(n.float(), m.float())': ('float32', [1.0, 2.0, nan, -2.0, -1.0, -0.0]),
    'T.tan(u)': ('float64', [-1.5236767410179022, -0.5463024898437905, -1e-08, 0.0, 0.30933624960962325, 1.2601582175503392, 1.5574042991414163]),
    'u.tan()': ('float64', [-1.5236767410179022, -0.5463024898437905, -1e-08, 0.0, 0.30933624960962325, 1.2601582175503392, 1.5574042991414163]),
    'T.tan(i)': ('float32', [[0.8714479804039001, -0.8714479804039001, 0.0, -3.3805148601531982], [0.2910062074661255, -0.2910062074661255, -0.14254654943943024, -1.5574077367782593]]),
    'T.asin(u)': ('float64', [-1.4292568534704693, -0.5235987755982989, -1e-08, 0.0, 0.30469265401539747, 1.1197695149986342, 1.5693821131146521]),
    'T.arcsin(u)': ('float64', [-1.4292568534704693, -0.5235987755982989, -1e-08, 0.0, 0.30469265401539747, 1.1197695149986342, 1.5693821131146521]),
    'u.asin()': ('float64', [-1.4292568534704693, -0.5235987755982989, -1e-08, 0.0, 0.30469265401539747, 1.1197695149986342, 1.5693821131146521]),
    'T.acos(u)': ('float64', [3.000053180265366, 2.0943951023931957, 1.5707963367948967, 1.5707963267948966, 1.2661036727794992, 0.45102681179626236, 0.0014142136802445852]),
    'u.arccos()': ('float64', [3.000053180265366, 2.0943951023931957, 1.5707963367948967, 1.5707963267948966, 1.2661036727794992, 0.45102681179626236, 0.0014142136802445852]),
    'T.atanh(u)': ('float64', [-2.6466524123622457, -0.5493061443340548, -1.0000000000000002e-08, 0.0, 0.30951960420311175, 1.4722194895832204, 7.254328619247669]),
    'u.arctanh()': ('float64', [-2.6466524123622457, -0.5493061443340548, -1.0000000000000002e-08, 0.0, 0.30951960420311175, 1.4722194895832204, 7.254328619247669]),
    'T.asinh(x)': ('float64', [[0.48121182505960347, -1.4436354751788103, 1.8184464592320668, 0.0], [-2.0947125472611012, 1.1947632172871094, 0.24746646154726346, -0.48121182505960347]]),
    'x.arcsinh()': ('float64', [[0.48121182505960347, -1.4436354751788103, 1.8184464592320668, 0.0], [-2.0947125472611012, 1.1947632172871094, 0.24746646154726346, -0.48121182505960347]]),
    'T.asinh(big)': ('float64', [1e-300, -9.999999999999999e-09, 19.11382792451231, -691.4686750787736]),
    'T.acosh(c)': ('float64', [0.0, 4.4721361396399915e-05, 0.9624236501192069, 1.762747174039086, 12.206072645505174]),
    'c.arccosh()': ('float64', [0.0, 4.4721361396399915e-05, 0.9624236501192069, 1.762747174039086, 12.206072645505174]),
    'T.acosh(big.abs() + 1)': ('float64', [0.0, 0.0001414213556897163, 19.11382793451231, 691.4686750787736]),
    'T.asin(e)': ('float64', [-1.5707963267948966, 1.5707963267948966, nan, nan, nan, nan, nan]),
    'T.acos(e)': ('float64', [3.141592653589793, 0.0, nan, nan, nan, nan, nan]),
    'T.atanh(e)': ('float64', [-inf, inf, nan, nan, nan, nan, nan]),
    'T.acosh(e)': ('float64', [nan, 0.0, 0.9624236501192069, nan, inf, nan, nan]),
    'T.asinh(e)': ('float64', [-0.881373587019543, 0.881373587019543, 1.1947632172871094, -1.4436354751788103, inf, -inf, nan]),
    'T.tan(e)': ('float64', [-1.5574077246549023, 1.5574077246549023, 14.101419947171719, 2.185039863261519, nan, nan, nan]),
    'T.asin(i)': ('float32', [[nan, nan, 0.0, nan], [nan, nan, nan, -1.5707963705062866]]),
    'T.tan(u.float())': ('float32', [-1.5236767530441284, -0.5463024973869324, -9.99999993922529e-09, 0.0, 0.30933627486228943, 1.2601581811904907, 1.5574042797088623]),
    'T.tan(u.half())': ('float16', [-1.5244140625, -0.54638671875, -0.0, 0.0, 0.309326171875, 1.259765625, 1.5576171875]),
    'T.asin(u.float())': ('float32', [-1.4292569160461426, -0.5235987901687622, -9.99999993922529e-09, 0.0, 0.30469265580177307, 1.1197694540023804, 1.5693727731704712]),
    'T.asin(u.half())': ('float16', [-1.4306640625, -0.5234375, -0.0, 0.0, 0.3046875, 1.119140625, 1.5703125]),
    'T.acos(u.float())': ('float32', [3.0000531673431396, 2.094395160675049, 1.5707963705062866, 1.5707963705062866, 1.2661036252975464, 0.4510268568992615, 0.001423572306521237]),
    'T.acos(u.half())': ('float16', [3.001953125, 2.09375, 1.5703125, 1.5703125, 1.265625, 0.451171875, 0.0]),
    'T.atanh(u.float())': ('float32', [-2.646652936935425, -0.5493061542510986, -9.99999993922529e-09, 0.0, 0.30951961874961853, 1.4722193479537964, 7.247732639312744]),
    'T.atanh(u.half())': ('float16', [-2.658203125, -0.54931640625, -0.0, 0.0, 0.3095703125, 1.4716796875, inf]),
    'T.asinh(u.float())': ('float32', [-0.8742848038673401, -0.4812118411064148, -9.99999993922529e-09, 0.0, 0.29567307233810425, 0.8088668584823608, 0.88137286901474]),
    'T.asinh(u.half())': ('float16', [-0.87451171875, -0.481201171875, -0.0, 0.0, 0.295654296875, 0.80859375, 0.88134765625]),
    'T.acosh(c.float())': ('float32', [0.0, 0.0, 0.9624236822128296, 1.7627471685409546, 12.206072807312012]),
    'T.acosh(c.half())': ('float16', [0.0, 0.0, 0.96240234375, 1.7626953125, inf]),
    'T.add(2.5, i)': ('float32', [[9.5, -4.5, 2.5, 7.5], [-3.5, 8.5, 5.5, 1.5]]),
    'T.sub(2.5, i, alpha=2)': ('float32', [[-11.5, 16.5, 2.5, -7.5], [14.5, -9.5, -3.5, 4.5]]),
    'T.mul(2.5, i)': ('float32', [[17.5, -17.5, 0.0, 12.5], [-15.0, 15.0, 7.5, -2.5]]),
    'T.multiply(0.5, j)': ('float32', [[1.0, 1.0, -1.5, -1.0], [2.0, -2.0, 1.5, 0.5]]),
    'T.add(True, i)': ('int64', [[8, -6, 1, 6], [-5, 7, 4, 0]]),
    'T.add(2, i > 0, alpha=3)': ('int64', [[5, 2, 2, 5], [2, 5, 5, 2]]),
    'T.div(2, j)': ('float32', [[1.0, 1.0, -0.6666666865348816, -1.0], [0.5, -0.5, 0.6666666865348816, 2.0]]),
    "T.div(7.5, j, rounding_mode='floor')": ('float32', [[3.0, 3.0, -3.0, -4.0], [1.0, -2.0, 2.0, 7.0]]),
    "T.divide(7, j, rounding_mode='trunc')": ('int64', [[3, 3, -2, -3], [1, -1, 2, 7]]),
    'T.subtract(x, w, alpha=-1.5)': ('float64', [[2.0, 1.0, -1.5, 0.0], [-3.25, 0.75, 0.625, 2.5]]),
    "T.divide(i, j, rounding_mode='trunc')": ('int64', [[3, -3, 0, -2], [-1, -1, 1, -1]]),
    "T.div(i, -2.5, rounding_mode='trunc')": ('float32', [[-2.0, 2.0, -0.0, -2.0], [2.0, -2.0, -1.0, 0.0]]),
    "T.div(i, w[1], rounding_mode='trunc')": ('float64', [[14.0, 14.0, 0.0, 2.0], [-12.0, -12.0, 12.0, -0.0]]),
    'T.less_equal(i, 3)': ('bool', [[False, True, True, False], [True, False, True, True]]),
    'T.ge(i, 3)': ('bool', [[True, False, False, True], [False, True, True, False]]),
    'x.less(w)': ('bool', [[True, True, False, False], [True, False, False, True]]),
    'x.greater_equal(w)': ('bool', [[False, False, True, True], [False, True, True, False]]),
    'n.fmin(m)': ('float64', [1.0, 2.0, nan, -2.0, -1.0, -0.0]),
    'u.arcsin()': ('float64', [-1.4292568534704693, -0.5235987755982989, -1e-08, 0.0, 0.30469265401539747, 1.1197695149986342, 1.5693821131146521]),
    "i.divide(-3, rounding_mode='trunc')": ('int64', [[-2, 2, 0, -1], [2, -2, -1, 0]]),
    'T.add(True, i > 0)': ('bool', [[True, True, True, True], [True, True, True, True]]),
}

EXPECTED_GRADS = {
    'T.add(x, w, alpha=-2) dw': ('float64', [[-0.2, -0.4, -0.6, -0.8], [-1.0, -1.2, -1.4, -1.6]]),
    'T.sub(x, w, alpha=0.5) dw': ('float64', [[-0.05, -0.1, -0.15, -0.2], [-0.25, -0.3, -0.35, -0.4]]),
    'T.mul(x, w) dx': ('float64', [[0.1, 0.4, -0.8999999999999999, 0.0], [0.25, -0.3, 0.175, 1.6]]),
    'T.div(x, w[1]) dw': ('float64', [[0.0, 0.0, 0.0, 0.0], [7.8, -1.9999999999999996, -17.2, 0.1]]),
    "T.div(x, w[1], rounding_mode='floor') dx": ('float64', [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]),
    "T.div(x, w[1], rounding_mode='trunc') dw": ('float64', [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]),
    'T.fmax(n, m) dn': ('float64', [0.1, 0.0, 0.3, 0.4, 0.5, 0.6]),
    'T.fmax(n, m) dm': ('float64', [0.0, 0.2, 0.0, 0.0, 0.0, 0.0]),
    'T.fmin(n, m) dm': ('float64', [0.0, 0.2, 0.0, 0.0, 0.5, 0.0]),
    'T.fmax(x, w) dx': ('float64', [[0.0, 0.0, 0.3, 0.4], [0.0, 0.6, 0.7, 0.0]]),
    'T.fmin(x, w) dw': ('float64', [[0.0, 0.0, 0.3, 0.0], [0.0, 0.6, 0.0, 0.0]]),
    'T.tan(u) du': ('float64', [0.3321590811118935, 0.25968928208190495, 0.3, 0.4, 0.5478444576612735, 1.5527992399557886, 2.397855705688916]),
    'T.asin(u[:6]) du': ('float64', [0.7088812050083355, 0.23094010767585035, 0.30000000000000004, 0.4, 0.5241424183609591, 1.3764944032233708, 0.0]),
    'T.acos(u[:6]) du': ('float64', [-0.7088812050083355, -0.23094010767585035, -0.30000000000000004, -0.4, -0.5241424183609591, -1.3764944032233708, 0.0]),
    'T.atanh(u[:6]) du': ('float64', [5.025125628140697, 0.26666666666666666, 0.30000000000000004, 0.4, 0.5494505494505494, 3.157894736842106, 0.0]),
    'T.asinh(x) dx': ('float64', [[0.08944271909999159, 0.08944271909999159, 0.09486832980505137, 0.4], [0.12126781251816648, 0.3328201177351375, 0.6790997501017323, 0.7155417527999327]]),
    'T.asinh(big) dbig': ('float64', [0.1, 0.2, 3e-09, 0.0]),
    'T.acosh(c[2:]) dc': ('float64', [0.0, 0.0, 0.08944271909999159, 0.07071067811865475, 3.00000000015e-06]),
    'T.asin(e) de': ('float64', [inf, inf, nan, nan, nan, nan, nan]),
    'T.atanh(e) de': ('float64', [inf, inf, -0.24, -0.13333333333333333, -0.0, -0.0, nan]),
    'T.acosh(e) de': ('float64', [inf, inf, 0.2683281572999747, 0.23094010767585035, 0.0, 0.0, nan]),
    'T.absolute(x) dx': ('float64', [[0.1, -0.2, 0.3, 0.0], [-0.5, 0.6, 0.7, -0.8]]),
}
