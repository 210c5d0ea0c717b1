"""The names of tinyffn/torch_math.py: expm1, log2, log10, exp2, sinh, cosh, atan/arctan,
atan2/arctan2, logaddexp, hypot, xlogy, clamp_min, clamp_max.

Each case is one call, written once and run with the names of tinyffn and of torch.
References: PyTorch 2.13, live where it is installed, and its values and gradients written
out in ``EXPECTED`` and ``EXPECTED_GRADS`` (those tests run without it, on every device);
relative error against torch at tiny, large and infinite x; gradcheck on every device.
"""
import math

import numpy as np
import pytest

import tinyffn
import torch_parity

X = [[0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5]]
X1 = [[0.5, -2.0, 3.0, 0.75], [-4.0, 1.5, 0.25, -0.5]]      # no 0: xlogy's gradient jumps there
W = [[1.0, 2.0, -3.0, 0.0], [0.5, -0.5, 0.25, 2.0]]
# tiny, small, zero, large, near the overflow of exp, past it, infinite, NaN
E = [1e-10, 1e-5, -1e-7, 0.0, -0.0, 0.5, -3.0, 30.0, 709.0, 710.0, -800.0,
     -math.inf, math.inf, math.nan]

CASES = [
    "T.expm1(e)", "x.expm1()", "T.expm1(e.float())", "T.expm1(i)",
    "T.log2(p)", "x.abs().log2()", "T.log2(i)", "T.log10(p)", "p.log10()",
    "T.exp2(x)", "T.exp2(i)", "x.exp2()",
    "T.sinh(e)", "x.sinh()", "T.sinh(e.float())", "T.cosh(e)", "x.cosh()", "T.cosh(i)",
    "T.atan(e)", "x.atan()", "T.arctan(i)",
    "T.atan2(x, w)", "x.atan2(w)", "T.arctan2(x, w[0])", "T.atan2(z, -z)", "T.atan2(i, i.flip(1))",
    "T.logaddexp(x, w)", "x.logaddexp(w)", "T.logaddexp(big, big)", "T.logaddexp(e, e.flip(0))",
    "T.logaddexp(x.float(), w.float())",
    "T.hypot(x, w)", "x.hypot(w[1])", "T.hypot(big, -big)", "T.hypot(e, e.flip(0))",
    "T.hypot(h, h)",
    "T.xlogy(x.abs(), w.abs())", "x.xlogy(w.abs())", "T.xlogy(z, e)", "T.xlogy(2.0, p)",
    "T.xlogy(p, 3.0)",
    "T.clamp_min(x, 0.25)", "x.clamp_min(w)", "T.clamp_max(x, 0.25)", "x.clamp_max(w)",
    "T.clamp_min(i, 2)", "T.clamp_max(i, 2)",
]
for name in ("expm1", "sinh", "cosh", "log2", "log10", "exp2", "atan"):      # float16
    CASES.append(f"T.{name}(q.half())")
for name in ("logaddexp", "hypot", "xlogy", "atan2"):
    CASES.append(f"T.{name}(q.half(), q.half().flip(0).abs())")


def run(module, case: str, requires_grad: str = "", **tensor_kwargs):
    inputs = {}
    values = dict(x=X, x1=X1, w=W, y6=[0.0, 2.0, -1.0, 1e-300, math.nan, math.inf], e=E, p=[0.001, 0.5, 8.0, 1000.0, 3.0], z=[0.0] * len(E),
                  big=[1e300, -1e300, 3e307, 1e-300],
                  q=[1e-3, 0.1, -0.7, 3.0, 11.0, 60000.0])
    for name, v in values.items():
        inputs[name] = module.tensor(v, dtype=module.float64, **tensor_kwargs)
        if name == requires_grad:
            inputs[name].requires_grad_(True)
    inputs["h"] = module.tensor([1e20, -3e19, 0.0], dtype=module.float32, **tensor_kwargs)
    inputs["i"] = module.tensor([[0, 4, 2], [4, 1, 3]], **tensor_kwargs)
    if "half" in case and tensor_kwargs.get("device") == "strict":
        pytest.skip("the strict backend has no float16")
    y = eval(case, {}, {"T": module, **inputs})
    return (y, inputs[requires_grad]) if requires_grad else y


plain = torch_parity.plain

# CUDA's math functions (what CuPy calls) are not correctly rounded: exp, log, log2,
# log10, tanh, atan2, hypot are within 1 to 2 ulp in float64 and float32 by the CUDA Math
# API's accuracy tables, against about 1 ulp (often less) for the C library NumPy calls.
# A test that pins a value to the last bit or two of the C library's gives CuPy this many
# more ulps; on the CPU backends it stays as strict.
CUDA_EXTRA_ULPS = 2


def _ulps(device: str, n: float) -> float:
    return n + (CUDA_EXTRA_ULPS if device == "cuda" else 0)


def assert_same(actual, expected, case):
    """dtype, shape and values to 1e-12 (float32: 4 ulp, float16: 2, as the composed
    expm1, sinh and cosh may round differently from the C library's), NaN equal to NaN,
    and the sign of every zero."""
    rtol = {"float64": 1e-12, "float32": 4.8e-7, "float16": 2e-3}.get(actual[0], 0)
    torch_parity.assert_close(actual, expected, case, rtol=rtol, atol=0)
    a, e = np.asarray(actual[1], dtype=float), np.asarray(expected[1], dtype=float)
    number = ~np.isnan(e)                                   # a NaN's sign bit means nothing
    np.testing.assert_array_equal(np.signbit(a[number]), np.signbit(e[number]), err_msg=case)


GRAD_CASES = [
    ("T.expm1(e[:11])", "e"), ("T.log2(p)", "p"), ("T.log10(p)", "p"), ("T.exp2(x)", "x"),
    ("T.sinh(e[:9])", "e"), ("T.cosh(e[:9])", "e"), ("T.atan(x)", "x"),
    ("T.atan2(x, w)", "x"), ("T.atan2(x, w)", "w"), ("T.atan2(x[0], w[1, 1])", "w"),
    ("T.logaddexp(x, w)", "x"), ("T.logaddexp(x, w)", "w"), ("T.logaddexp(x, x)", "x"),
    ("T.hypot(x1, w)", "x1"), ("T.hypot(x1, w)", "w"), ("T.hypot(big[:3], big[:3])", "big"),
    ("T.xlogy(x.abs(), w.abs() + 1)", "x"), ("T.xlogy(x.abs() + 1, w.abs() + 1)", "w"),
    ("T.xlogy(x, p[:4])", "x"), ("T.xlogy(z[:5], y6[:5])", "z"), ("T.xlogy(x1[0, 3] - x1, y6[1:5])", "x1"),
    ("T.clamp_min(x, 0.25)", "x"), ("x.clamp_min(w)", "w"), ("T.clamp_max(x, 0.0)", "x"),
]


def grad_of(module, case: str, wrt: str, **tensor_kwargs):
    y, x = run(module, case, requires_grad=wrt, **tensor_kwargs)
    return torch_parity.weighted_grad(module, y, x, **tensor_kwargs)


_RUNTIME = pytest.mark.filterwarnings("ignore::RuntimeWarning")   # log(0), exp(800): as torch
torch_parity.tests(globals(), marks=(_RUNTIME,),
                   assert_grad=lambda a, e, case: torch_parity.assert_close(a, e, case, 1e-12, 1e-300))


@_RUNTIME
def test_expm1_sinh_cosh_keep_every_digit_next_to_torch():
    """Relative error against torch.expm1, sinh, cosh and their gradients, float64: at
    most 2 ulp (exp(x) - 1 at 1e-10 is off by 8e-7), infinities and NaN where torch's.
    expm1's gradient is compared with exp(x) itself: torch's is expm1(x) + 1, which
    cancels for x < -1 (3 digits left at x = -30, 0 at x = -700); tinyffn's is exp(x)."""
    torch = pytest.importorskip("torch")
    v = E[:9] + [-800.0, -1e-300, 5e-324, 1e-3, -0.9, 1.1, 20.0, -700.0, -30.0]
    for name in ("expm1", "sinh", "cosh"):
        x, t = (m.tensor(v, dtype=m.float64, requires_grad=True) for m in (tinyffn, torch))
        y, z = getattr(tinyffn, name)(x), getattr(torch, name)(t)
        y.sum().backward()
        z.sum().backward()
        slope = np.exp(np.array(v)) if name == "expm1" else t.grad.numpy()
        for ours, theirs in ((y.numpy(), z.detach().numpy()), (x.grad.numpy(), slope)):
            finite = np.isfinite(theirs)
            np.testing.assert_array_equal(ours[~finite], theirs[~finite], err_msg=name)
            err = np.abs(ours - theirs)[finite] - 4.5e-16 * np.abs(theirs[finite])
            assert err.max() <= 1e-323, (name, err.max())     # cosh'(5e-324): 0 here


def test_expm1_against_math_expm1(device):
    """math.expm1 (the C library's, correctly rounded for these) on 2000 values spread over
    1e-300 .. 700, both signs, float64."""
    r = np.random.default_rng(0)
    v = r.choice([-1.0, 1.0], 2000) * 10.0 ** r.uniform(-300, 2.8, 2000)
    got = tinyffn.expm1(tinyffn.tensor(v, device=device)).numpy()
    want = np.array([math.expm1(a) for a in v])
    np.testing.assert_allclose(got, want, rtol=_ulps(device, 2) * 2.2e-16, atol=0)


def test_expm1_gradient_is_exp_to_2_ulp_and_its_float32_tail_is_minus_one(device):
    """The gradient is e^x to 2 ulp from -740 to 700 (NumPy's exp as the reference), and
    float32 expm1 is -1 exactly from -18 down: a first form, Kahan's (u - 1) x / log u,
    gave gradient 0 below x = -37 and expm1(-98) = -0.99999 in float32 (log of a
    subnormal u)."""
    v = np.concatenate([-np.logspace(-300, np.log10(740), 1500), np.logspace(-300, 2.84, 1500)])
    x = tinyffn.tensor(v, device=device, requires_grad=True)
    tinyffn.expm1(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp(v), rtol=_ulps(device, 2) * 2.2e-16,
                               atol=0)
    tail = np.linspace(-18.0, -103.0, 500, dtype=np.float32)
    assert tinyffn.expm1(tinyffn.tensor(tail, device=device)).tolist() == [-1.0] * 500


@pytest.mark.filterwarnings("ignore::RuntimeWarning")    # inf where the C library's is inf
@pytest.mark.parametrize("dtype, ulp", [("float64", 2.0), ("float32", 2.5)])
def test_sinh_and_cosh_within_2_ulp_of_the_c_library_and_finite_where_it_is(dtype, ulp, device):
    """Values and gradients (cosh and sinh) within 2 ulp of NumPy's float64 sinh/cosh (the
    C library's) over ±720 (±95 in float32), rounded to the dtype; the gradient finite
    wherever the C library's value is (an earlier form was inf from |x| = 709.8 to 710.5,
    and up to 6 ulp off in float32)."""
    if device == "strict" and dtype == "float32":
        pytest.skip("one dtype is enough on the strict backend")
    top = 720.0 if dtype == "float64" else 95.0
    r = np.random.default_rng(3)
    v = np.concatenate([r.uniform(-top, top, 3000), r.uniform(-3, 3, 1000),
                        np.linspace(top - 11.5, top - 9.2, 200)]).astype(dtype)
    wide = v.astype("float64")
    eps = np.finfo(dtype).eps
    for name, slope in (("sinh", np.cosh), ("cosh", np.sinh)):
        x = tinyffn.tensor(v, device=device, requires_grad=True)
        y = getattr(tinyffn, name)(x)
        y.sum().backward()
        with np.errstate(over="ignore"):
            for ours, want in ((y.numpy(), getattr(np, name)(wide).astype(dtype)),
                               (x.grad.numpy(), slope(wide).astype(dtype))):
                finite = np.isfinite(want)
                np.testing.assert_array_equal(ours[~finite], want[~finite], err_msg=name)
                np.testing.assert_allclose(ours[finite], want[finite],
                                           rtol=_ulps(device, ulp) * eps, atol=0, err_msg=name)


def test_log10_and_log2_are_exact_at_powers(device):
    x = tinyffn.tensor([10.0 ** k for k in range(-5, 16)], dtype="float64", device=device)
    y = tinyffn.log2(tinyffn.exp2(tinyffn.arange(-20, 30, device=device)))
    if device == "cuda":        # CUDA's log10, log2 and exp2 are 1-2 ulp (see CUDA_EXTRA_ULPS)
        np.testing.assert_allclose(tinyffn.log10(x).numpy(), range(-5, 16), rtol=5e-16)
        np.testing.assert_allclose(y.numpy(), range(-20, 30), rtol=5e-7)
        return
    assert tinyffn.log10(x).tolist() == list(range(-5, 16))
    assert y.tolist() == list(range(-20, 30))


@_RUNTIME                   # hypot(3e38, 3e38) is 4.2e38: past float32, inf as in torch
def test_hypot_does_not_overflow_and_logaddexp_does_not_either(device):
    """hypot(1e20, 1e20) in float32 is 1.41e20 (sqrt(a² + b²) gives inf);
    logaddexp(1000, 1000) = 1000 + ln 2 (log(exp(a) + exp(b)) gives inf)."""
    a = tinyffn.tensor([1e20, 3e38], dtype="float32", device=device)
    np.testing.assert_allclose(tinyffn.hypot(a, a).numpy(), [1.4142135e20, np.inf], rtol=1e-7)
    b = tinyffn.tensor([1000.0, -1000.0], dtype="float64", device=device)
    np.testing.assert_allclose(tinyffn.logaddexp(b, b).numpy(), [1000 + math.log(2),
                                                                  -1000 + math.log(2)], rtol=1e-15)


def test_hypot_at_infinities_nan_and_signed_zeros_is_c99s(device):
    """math.hypot (C99's: an infinity wins over a NaN, and the result is never -0.0) on every
    pair of ±inf, NaN, ±0 and 1: hypot(inf, NaN) was NaN (m = max(|a|, |b|) is NaN) where
    torch and C give inf, hypot(inf, inf) was NaN after a change that left out the inf
    edge, and hypot(-0, -0) was -0.0."""
    v = [math.inf, -math.inf, math.nan, 0.0, -0.0, 1.0]
    a, b = zip(*[(p, q) for p in v for q in v])
    for dtype in ("float64", "float32"):
        got = tinyffn.hypot(tinyffn.tensor(a, dtype=dtype, device=device),
                            tinyffn.tensor(b, dtype=dtype, device=device)).numpy()
        want = np.array([math.hypot(p, q) for p, q in zip(a, b)], dtype=dtype)
        np.testing.assert_array_equal(got, want, err_msg=dtype)
        assert not np.signbit(got[~np.isnan(got)]).any(), dtype


def test_float16_operands_compute_in_float32_rounded_once(device):
    """logaddexp, hypot and atan2 of float16 are NumPy's float32 result rounded to float16,
    bit for bit (PyTorch's opmath): computed in float16 they drift by an ulp."""
    if device == "strict":
        pytest.skip("the strict backend has no float16")
    r = np.random.default_rng(3)
    a = (r.standard_normal(3000) * np.repeat([0.01, 1.0, 30.0], 1000)).astype(np.float16)
    b = (r.standard_normal(3000) * 5).astype(np.float16)
    for name, ref in (("logaddexp", np.logaddexp), ("hypot", np.hypot), ("atan2", np.arctan2)):
        got = getattr(tinyffn, name)(tinyffn.tensor(a, device=device),
                                     tinyffn.tensor(b, device=device)).numpy()
        want = ref(a.astype(np.float32), b.astype(np.float32)).astype(np.float16)
        assert got.dtype == np.float16
        if device == "cuda":    # CUDA's float32 is 1-2 ulp off NumPy's: a float16 tie may flip
            np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32),
                                       rtol=2.0 ** -10, atol=2.0 ** -24, err_msg=name)
        else:
            np.testing.assert_array_equal(got, want, err_msg=name)


def test_xlogy_of_zero_and_nan_is_nan(device):
    """0 · log(y) is 0 for every y but NaN, as torch.xlogy (and scipy.special.xlogy)."""
    y = [math.nan, 0.0, -1.0, math.inf, 2.0]
    got = tinyffn.xlogy(tinyffn.zeros(5, dtype="float64", device=device),
                        tinyffn.tensor(y, dtype="float64", device=device)).tolist()
    assert math.isnan(got[0]) and got[1:] == [0.0] * 4


@_RUNTIME
def test_gradients_where_torch_gives_nan_are_finite_here(device):
    """Deliberate differences: at the origin hypot's gradient is 0 (torch: NaN), xlogy's dy
    at x = y = 0 is 0 (torch: NaN), logaddexp of two equal infinities gives 1/2 each
    (torch: NaN)."""
    a = tinyffn.tensor([0.0, 3.0], dtype="float64", device=device, requires_grad=True)
    b = tinyffn.tensor([0.0, 4.0], dtype="float64", device=device, requires_grad=True)
    tinyffn.hypot(a, b).sum().backward()
    np.testing.assert_allclose([a.grad.tolist(), b.grad.tolist()], [[0, 0.6], [0, 0.8]],
                               rtol=1e-15, atol=0)
    a.grad = b.grad = None
    tinyffn.xlogy(a, b).sum().backward()
    assert a.grad.tolist()[0] == 0.0 and b.grad.tolist() == [0.0, 0.75]
    c = tinyffn.tensor([math.inf, -math.inf], dtype="float64", device=device, requires_grad=True)
    d = tinyffn.tensor([math.inf, -math.inf], dtype="float64", device=device, requires_grad=True)
    tinyffn.logaddexp(c, d).sum().backward()
    assert c.grad.tolist() == [0.5, 0.5] and d.grad.tolist() == [0.5, 0.5]


GRADCHECKED = {
    "expm1": (tinyffn.expm1, [[1e-9, -0.3, 2.0, -5.0]]),
    "log2": (tinyffn.log2, [[0.3, 2.0, 7.0]]), "log10": (tinyffn.log10, [[0.3, 2.0, 7.0]]),
    "exp2": (tinyffn.exp2, [[0.3, -2.0, 3.0]]),
    "sinh": (tinyffn.sinh, [[1e-9, -0.3, 0.99, 1.01, -2.0, 5.0]]),
    "cosh": (tinyffn.cosh, [[1e-9, -0.3, 1.5, -2.5, 5.0]]),
    "atan": (tinyffn.atan, [[0.3, -2.0, 7.0]]),
    "atan2": (tinyffn.atan2, [X1, W]), "logaddexp": (tinyffn.logaddexp, [X, W]),
    "hypot": (tinyffn.hypot, [X1, W]),
    "xlogy": (lambda x, y: tinyffn.xlogy(x, y.abs() + 0.5), [X1, W]),
    "clamp_min": (lambda x, w: tinyffn.clamp_min(x, w + 0.1), [X, W]),
    "clamp_max": (lambda x, w: x.clamp_max(w + 0.1), [X, W]),
}


@pytest.mark.parametrize("name", GRADCHECKED)
def test_gradcheck(name, device):
    fn, values = GRADCHECKED[name]
    assert tinyffn.gradcheck(fn, [tinyffn.tensor(v, dtype="float64", device=device,
                                                 requires_grad=True) for v in values])


@pytest.mark.parametrize("call, error, words", [
    ("T.expm1([1.0])", TypeError, "must be a tinyffn Tensor"),
    ("T.atan2(x, 'a')", TypeError, "other must be a tinyffn Tensor or a number"),
    ("T.logaddexp(x, x[:, :3])", ValueError, "(2, 4) and (2, 3)"),
    ("T.hypot([1.0], x)", TypeError, "input must be a tinyffn Tensor or a number"),
    ("T.xlogy(2.0, 3.0)", TypeError, "needs at least one Tensor"),
])
def test_errors_name_the_op_and_say_what_to_do(call, error, words):
    x = tinyffn.tensor(X, dtype="float64")
    with pytest.raises(error) as info:
        eval(call, {"T": tinyffn, "x": x})
    assert words in str(info.value) and call[2:call.index("(")] in str(info.value)






nan, inf = math.nan, math.inf
EXPECTED = {
    'T.expm1(e)': ('float64', [1.00000000005e-10, 1.0000050000166668e-05, -9.999999500000016e-08, 0.0, -0.0, 0.6487212707001282, -0.950212931632136, 10686474581523.463, 8.218407461554972e+307, inf, -1.0, -1.0, inf, nan]),
    'x.expm1()': ('float64', [[0.6487212707001282, -0.8646647167633873, 19.085536923187668, 0.0], [-0.9816843611112658, 3.481689070338065, 0.2840254166877415, -0.3934693402873666]]),
    'T.expm1(e.float())': ('float32', [1.000000013351432e-10, 1.0000049769587349e-05, -9.999999406318238e-08, 0.0, -0.0, 0.6487212777137756, -0.9502129554748535, 10686474223616.0, inf, inf, -1.0, -1.0, inf, nan]),
    'T.expm1(i)': ('float32', [[0.0, 53.598148345947266, 6.389056205749512], [53.598148345947266, 1.718281865119934, 19.08553695678711]]),
    'T.log2(p)': ('float64', [-9.965784284662087, -1.0, 3.0, 9.965784284662087, 1.584962500721156]),
    'x.abs().log2()': ('float64', [[-1.0, 1.0, 1.584962500721156, -inf], [2.0, 0.5849625007211562, -2.0, -1.0]]),
    'T.log2(i)': ('float32', [[-inf, 2.0, 1.0], [2.0, 0.0, 1.5849624872207642]]),
    'T.log10(p)': ('float64', [-3.0, -0.3010299956639812, 0.9030899869919435, 3.0, 0.47712125471966244]),
    'p.log10()': ('float64', [-3.0, -0.3010299956639812, 0.9030899869919435, 3.0, 0.47712125471966244]),
    'T.exp2(x)': ('float64', [[1.4142135623730951, 0.25, 8.0, 1.0], [0.0625, 2.8284271247461903, 1.189207115002721, 0.7071067811865476]]),
    'T.exp2(i)': ('float32', [[1.0, 16.0, 4.0], [16.0, 2.0, 8.0]]),
    'x.exp2()': ('float64', [[1.4142135623730951, 0.25, 8.0, 1.0], [0.0625, 2.8284271247461903, 1.189207115002721, 0.7071067811865476]]),
    'T.sinh(e)': ('float64', [1e-10, 1.0000000000166668e-05, -1.0000000000000015e-07, 0.0, -0.0, 0.5210953054937474, -10.017874927409903, 5343237290762.231, 4.109203730777486e+307, 1.1169973830808557e+308, -inf, -inf, inf, nan]),
    'x.sinh()': ('float64', [[0.5210953054937474, -3.626860407847019, 10.017874927409903, 0.0], [-27.28991719712775, 2.1292794550948173, 0.2526123168081683, -0.5210953054937474]]),
    'T.sinh(e.float())': ('float32', [1.000000013351432e-10, 9.999999747378752e-06, -1.0000000116860974e-07, 0.0, -0.0, 0.5210952758789062, -10.017874717712402, 5343237111808.0, inf, inf, -inf, -inf, inf, nan]),
    'T.cosh(e)': ('float64', [1.0, 1.00000000005, 1.000000000000005, 1.0, 1.0, 1.1276259652063807, 10.067661995777765, 5343237290762.231, 4.109203730777486e+307, 1.1169973830808557e+308, inf, inf, inf, nan]),
    'x.cosh()': ('float64', [[1.1276259652063807, 3.7621956910836314, 10.067661995777765, 1.0], [27.308232836016487, 2.352409615243247, 1.0314130998795732, 1.1276259652063807]]),
    'T.cosh(i)': ('float32', [[1.0, 27.308231353759766, 3.7621958255767822], [27.308231353759766, 1.5430805683135986, 10.067662239074707]]),
    'T.atan(e)': ('float64', [1e-10, 9.999999999666668e-06, -9.999999999999966e-08, 0.0, -0.0, 0.4636476090008061, -1.2490457723982544, 1.5374753309166493, 1.569385890494629, 1.5693878770220004, -1.5695463274459376, -1.5707963267948966, 1.5707963267948966, nan]),
    'x.atan()': ('float64', [[0.4636476090008061, -1.1071487177940904, 1.2490457723982544, 0.0], [-1.3258176636680326, 0.982793723247329, 0.24497866312686414, -0.4636476090008061]]),
    'T.arctan(i)': ('float32', [[0.0, 1.3258177042007446, 1.1071487665176392], [1.3258177042007446, 0.7853981852531433, 1.249045729637146]]),
    'T.atan2(x, w)': ('float64', [[0.4636476090008061, -0.7853981633974483, 2.356194490192345, 0.0], [-1.446441332248135, 1.892546881191539, 0.7853981633974483, -0.24497866312686414]]),
    'x.atan2(w)': ('float64', [[0.4636476090008061, -0.7853981633974483, 2.356194490192345, 0.0], [-1.446441332248135, 1.892546881191539, 0.7853981633974483, -0.24497866312686414]]),
    'T.arctan2(x, w[0])': ('float64', [[0.4636476090008061, -0.7853981633974483, 2.356194490192345, 0.0], [-1.3258176636680326, 0.6435011087932844, 3.058451421701352, -1.5707963267948966]]),
    'T.atan2(z, -z)': ('float64', [3.141592653589793, 3.141592653589793, 3.141592653589793, 3.141592653589793, 3.141592653589793, 3.141592653589793, 3.141592653589793, 3.141592653589793, 3.141592653589793, 3.141592653589793, 3.141592653589793, 3.141592653589793, 3.141592653589793, 3.141592653589793]),
    'T.atan2(i, i.flip(1))': ('float32', [[0.0, 0.7853981852531433, 1.5707963705062866], [0.9272952079772949, 0.7853981852531433, 0.6435011029243469]]),
    'T.logaddexp(x, w)': ('float64', [[1.4740769841801067, 2.01814992791781, 3.0024756851377306, 0.6931471805599453], [0.5110477448485938, 1.6269280110429725, 0.9431471805599453, 2.0788897342925496]]),
    'x.logaddexp(w)': ('float64', [[1.4740769841801067, 2.01814992791781, 3.0024756851377306, 0.6931471805599453], [0.5110477448485938, 1.6269280110429725, 0.9431471805599453, 2.0788897342925496]]),
    'T.logaddexp(big, big)': ('float64', [1e+300, -1e+300, 3e+307, 0.6931471805599453]),
    'T.logaddexp(e, e.flip(0))': ('float64', [nan, inf, -1e-07, 0.0, 710.0, 709.0, 30.000000000000004, 30.000000000000004, 709.0, 710.0, 0.0, -1e-07, inf, nan]),
    'T.logaddexp(x.float(), w.float())': ('float32', [[1.4740769863128662, 2.0181498527526855, 3.0024757385253906, 0.6931471824645996], [0.5110477209091187, 1.6269279718399048, 0.9431471824645996, 2.078889846801758]]),
    'T.hypot(x, w)': ('float64', [[1.118033988749895, 2.8284271247461903, 4.242640687119285, 0.0], [4.031128874149275, 1.5811388300841898, 0.3535533905932738, 2.0615528128088303]]),
    'x.hypot(w[1])': ('float64', [[0.7071067811865476, 2.0615528128088303, 3.010398644698074, 2.0], [4.031128874149275, 1.5811388300841898, 0.3535533905932738, 2.0615528128088303]]),
    'T.hypot(big, -big)': ('float64', [1.4142135623730952e+300, 1.4142135623730952e+300, 4.242640687119285e+307, 1.414213562373095e-300]),
    'T.hypot(e, e.flip(0))': ('float64', [nan, inf, inf, 800.0, 710.0, 709.0001763046325, 30.14962686336267, 30.14962686336267, 709.0001763046325, 710.0, 800.0, inf, inf, nan]),
    'T.hypot(h, h)': ('float32', [1.414213581995256e+20, 4.242640658024838e+19, 0.0]),
    'T.xlogy(x.abs(), w.abs())': ('float64', [[0.0, 1.3862943611198906, 3.295836866004329, 0.0], [-2.772588722239781, -1.0397207708399179, -0.34657359027997264, 0.34657359027997264]]),
    'x.xlogy(w.abs())': ('float64', [[0.0, -1.3862943611198906, 3.295836866004329, 0.0], [2.772588722239781, -1.0397207708399179, -0.34657359027997264, -0.34657359027997264]]),
    'T.xlogy(z, e)': ('float64', [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, nan]),
    'T.xlogy(2.0, p)': ('float64', [-13.815510557964274, -1.3862943611198906, 4.1588830833596715, 13.815510557964274, 2.1972245773362196]),
    'T.xlogy(p, 3.0)': ('float64', [0.0010986122886681097, 0.5493061443340549, 8.788898309344878, 1098.6122886681098, 3.295836866004329]),
    'T.clamp_min(x, 0.25)': ('float64', [[0.5, 0.25, 3.0, 0.25], [0.25, 1.5, 0.25, 0.25]]),
    'x.clamp_min(w)': ('float64', [[1.0, 2.0, 3.0, 0.0], [0.5, 1.5, 0.25, 2.0]]),
    'T.clamp_max(x, 0.25)': ('float64', [[0.25, -2.0, 0.25, 0.0], [-4.0, 0.25, 0.25, -0.5]]),
    'x.clamp_max(w)': ('float64', [[0.5, -2.0, -3.0, 0.0], [-4.0, -0.5, 0.25, -0.5]]),
    'T.clamp_min(i, 2)': ('int64', [[2, 4, 2], [4, 2, 3]]),
    'T.clamp_max(i, 2)': ('int64', [[0, 2, 2], [2, 1, 2]]),
    'T.expm1(q.half())': ('float16', [0.0010013580322265625, 0.10516357421875, -0.50341796875, 19.078125, 59872.0, inf]),
    'T.sinh(q.half())': ('float16', [0.0010004043579101562, 0.10015869140625, -0.7587890625, 10.015625, 29936.0, inf]),
    'T.cosh(q.half())': ('float16', [1.0, 1.0048828125, 1.2548828125, 10.0703125, 29936.0, inf]),
    'T.log2(q.half())': ('float16', [-9.96875, -3.322265625, nan, 1.5849609375, 3.458984375, 15.875]),
    'T.log10(q.half())': ('float16', [-3.0, -1.0, nan, 0.47705078125, 1.041015625, 4.77734375]),
    'T.exp2(q.half())': ('float16', [1.0009765625, 1.0712890625, 0.61572265625, 8.0, 2048.0, inf]),
    'T.atan(q.half())': ('float16', [0.0010004043579101562, 0.09967041015625, -0.61083984375, 1.2490234375, 1.48046875, 1.5703125]),
    'T.logaddexp(q.half(), q.half().flip(0).abs())': ('float16', [60000.0, 11.0, 3.025390625, 3.095703125, 11.0, 60000.0]),
    'T.hypot(q.half(), q.half().flip(0).abs())': ('float16', [60000.0, 11.0, 3.080078125, 3.080078125, 11.0, 60000.0]),
    'T.xlogy(q.half(), q.half().flip(0).abs())': ('float16', [0.0110015869140625, 0.23974609375, -0.76904296875, -1.0693359375, -25.328125, -inf]),
    'T.atan2(q.half(), q.half().flip(0).abs())': ('float16', [0.0, 0.00908660888671875, -0.229248046875, 1.341796875, 1.5615234375, 1.5703125]),
}

EXPECTED_GRADS = {
    'T.expm1(e[:11]) de': ('float64', [0.10000000001, 0.20000200001000001, 0.2999999700000015, 0.4, 0.5, 0.9892327624200768, 0.03485094785750476, 8549179665219.57, 7.396566715399475e+307, inf, 0.0, 0.0, 0.0, 0.0]),
    'T.log2(p) dp': ('float64', [144.26950408889635, 0.5770780163555854, 0.05410106403333613, 0.0005770780163555855, 0.24044917348149392]),
    'T.log10(p) dp': ('float64', [43.42944819032519, 0.17371779276130075, 0.016286043071371943, 0.00017371779276130074, 0.07238241365054197]),
    'T.exp2(x) dx': ('float64', [[0.09802581434685473, 0.03465735902799726, 1.6635532333438687, 0.2772588722239781], [0.02166084939249829, 1.1763097721622566, 0.5770068912061738, 0.3921032573874189]]),
    'T.sinh(e[:9]) de': ('float64', [0.1, 0.20000000001, 0.30000000000000154, 0.4, 0.5, 0.6765755791238284, 7.047363397044435, 4274589832609.785, 3.6982833576997374e+307, 0.0, 0.0, 0.0, 0.0, 0.0]),
    'T.cosh(e[:9]) de': ('float64', [1.0000000000000001e-11, 2.0000000000333336e-06, -3.0000000000000044e-08, 0.0, -0.0, 0.3126571832962484, -7.012512449186931, 4274589832609.785, 3.6982833576997374e+307, 0.0, 0.0, 0.0, 0.0, 0.0]),
    'T.atan(x) dx': ('float64', [[0.08, 0.04, 0.03, 0.4], [0.029411764705882353, 0.1846153846153846, 0.6588235294117647, 0.64]]),
    'T.atan2(x, w) dx': ('float64', [[0.08000000000000002, 0.05, -0.04999999999999999, 0.0], [0.015384615384615385, -0.12, 1.4, 0.3764705882352941]]),
    'T.atan2(x, w) dw': ('float64', [[-0.04000000000000001, 0.05, -0.04999999999999999, -0.0], [0.12307692307692308, -0.36, -1.4, 0.09411764705882353]]),
    'T.atan2(x[0], w[1, 1]) dw': ('float64', [[0.0, 0.0, 0.0, 0.0], [0.0, -0.10317965023847377, 0.0, 0.0]]),
    'T.logaddexp(x, w) dx': ('float64', [[0.03775406687981454, 0.003597241992418312, 0.2992582130530096, 0.2], [0.00549347131529659, 0.5284782467867294, 0.35, 0.060686544016994845]]),
    'T.logaddexp(x, w) dw': ('float64', [[0.06224593312018546, 0.1964027580075817, 0.0007417869469904323, 0.2], [0.4945065286847034, 0.07152175321327053, 0.35, 0.7393134559830052]]),
    'T.logaddexp(x, x) dx': ('float64', [[0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8]]),
    'T.hypot(x1, w) dx1': ('float64', [[0.044721359549995794, -0.1414213562373095, 0.21213203435596426, 0.4000000000000001], [-0.49613893835683387, 0.5692099788303082, 0.4949747468305832, -0.19402850002906638]]),
    'T.hypot(x1, w) dw': ('float64', [[0.08944271909999159, 0.1414213562373095, -0.21213203435596426, 0.0], [0.062017367294604234, -0.18973665961010275, 0.4949747468305832, 0.7761140001162655]]),
    'T.hypot(big[:3], big[:3]) dbig': ('float64', [0.1414213562373095, -0.282842712474619, 0.42426406871192845, 0.0]),
    'T.xlogy(x.abs(), w.abs() + 1) dx': ('float64', [[0.06931471805599453, -0.21972245773362198, 0.4158883083359672, 0.0], [-0.2027325540540822, 0.24327906486489861, 0.1562004859199468, -0.8788898309344879]]),
    'T.xlogy(x.abs() + 1, w.abs() + 1) dw': ('float64', [[0.07500000000000001, 0.20000000000000004, -0.3, 0.0], [1.6666666666666667, -1.0, 0.7, 0.4000000000000001]]),
    'T.xlogy(x, p[:4]) dx': ('float64', [[-0.6907755278982137, -0.13862943611198905, 0.6238324625039507, 2.763102111592855], [-3.4538776394910684, -0.4158883083359672, 1.455609079175885, 5.52620422318571]]),
    'T.xlogy(z[:5], y6[:5]) dz': ('float64', [0.0, 0.13862943611198905, 0.0, -276.3102111592855, nan, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    'T.xlogy(x1[0, 3] - x1, y6[1:5]) dx1': ('float64', [[-0.06931471805599453, nan, 207.2326583694641, nan], [-0.34657359027997264, nan, 483.5428695287495, nan]]),
    'T.clamp_min(x, 0.25) dx': ('float64', [[0.1, 0.0, 0.3, 0.0], [0.0, 0.6, 0.7, 0.0]]),
    'x.clamp_min(w) dw': ('float64', [[0.1, 0.2, 0.0, 0.0], [0.5, 0.0, 0.0, 0.8]]),
    'T.clamp_max(x, 0.0) dx': ('float64', [[0.0, 0.2, 0.0, 0.4], [0.5, 0.0, 0.0, 0.8]]),
}


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_log10_is_exact_at_powers_of_ten_in_float32_and_float16(dtype, device):
    """NumPy's float32 log10 gave log10(100) = 1.9999999 and log10(1000) = 3.0000002 (an ulp
    off; PyTorch's is exact): the integers, written out, and elsewhere the float64 value
    rounded once."""
    if device == "strict" and dtype == "float16":
        pytest.skip("the strict array-API backend has no float16")
    top, e = (16, 20.0) if dtype == "float32" else (4, 9.0)
    x = tinyffn.tensor([10.0 ** k for k in range(0, top + 1)], dtype=dtype, device=device)
    assert tinyffn.log10(x).tolist() == list(range(0, top + 1))
    v = np.exp(np.random.default_rng(0).uniform(-e, e, 2000)).astype(dtype)
    got = tinyffn.log10(tinyffn.tensor(v, device=device)).numpy()
    np.testing.assert_array_equal(got, np.log10(v.astype(np.float64)).astype(dtype))


def test_log10_float32_matches_torch_at_powers_of_ten():
    torch = pytest.importorskip("torch")
    v = (10.0 ** np.arange(-30, 31)).astype(np.float32)
    np.testing.assert_array_equal(tinyffn.log10(tinyffn.tensor(v)).numpy(),
                                  torch.log10(torch.tensor(v)).numpy())


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")   # -inf - -inf, read as a tie
def test_logaddexp2_written_out(device):
    """torch 2.13: logaddexp2([1, 1000, -inf, 5], [1, 1000, -inf, 3]) = [2, 1001, -inf,
    5.321928] (5 + log2(1.25)); the gradient to a is 1 / (1 + 2^(b - a)): 1/2 on a tie,
    0.8 at (5, 3)."""
    a = tinyffn.tensor([1.0, 1000.0, -math.inf, 5.0], dtype="float64", device=device,
                       requires_grad=True)
    b = tinyffn.tensor([1.0, 1000.0, -math.inf, 3.0], dtype="float64", device=device,
                       requires_grad=True)
    y = a.logaddexp2(b)
    np.testing.assert_allclose(y.numpy(), [2.0, 1001.0, -math.inf, 5 + math.log2(1.25)],
                               rtol=1e-15)
    y[3].backward()
    np.testing.assert_allclose([a.grad.numpy()[3], b.grad.numpy()[3]], [0.8, 0.2], rtol=1e-15)
    assert tinyffn.gradcheck(tinyffn.logaddexp2, [a[:2].detach().requires_grad_(),
                                                  b[2:].detach().requires_grad_()])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_logaddexp2_against_torch_live(dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    a, b = (np.concatenate([rng.normal(size=60) * 40, [1.0, 1e3, 3e38]]).astype(dtype)
            for _ in range(2))
    x, y = tinyffn.tensor(a, requires_grad=True), tinyffn.tensor(b, requires_grad=True)
    xt, yt = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    got, want = tinyffn.logaddexp2(x, y), torch.logaddexp2(xt, yt)
    got.sum().backward()
    want.sum().backward()
    eps = np.finfo(dtype).eps
    np.testing.assert_allclose(got.numpy(), want.detach().numpy(), rtol=4 * eps)
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=8 * eps, atol=eps)
    np.testing.assert_allclose(y.grad.numpy(), yt.grad.numpy(), rtol=8 * eps, atol=eps)


@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2", "hypot"])
def test_second_derivatives_hold_on_a_tie_and_at_0(name, device):
    """max(a, b) + log1p(exp(-|a - b|)) has kinks at a = b that cancel in the value and
    the gradient but not in the second derivative, which was 0 there; hypot's, through
    |a| and max(|a|, |b|), was 0 at a = 0 and on |a| = |b| (fuzzer seeds 1006581, 1008783).
    Now they choose the larger operand with where: central differences of the gradient,
    and the closed forms σ(1 - σ) = 1/4 (ln 2 / 4 for base 2) and b² / h³ (1 / |b| at a = 0)."""
    fn = getattr(tinyffn, name)
    a = tinyffn.tensor([0.5, -1.0, 2.0, 0.0], dtype="float64", device=device, requires_grad=True)
    b = tinyffn.tensor([0.5, 3.0, -2.0, 1.5], dtype="float64", device=device, requires_grad=True)
    if device == "cpu":                  # the closed forms below run on every device
        assert tinyffn.gradgradcheck(fn, [a, b])
    (ga,) = tinyffn.autograd.grad(fn(a, b).sum(), [a], create_graph=True)
    (gaa,) = tinyffn.autograd.grad(ga.sum(), [a])
    A, B = np.array([0.5, -1.0, 2.0, 0.0]), np.array([0.5, 3.0, -2.0, 1.5])
    if name == "hypot":
        want = B ** 2 / np.hypot(A, B) ** 3
    else:
        base = math.e if name == "logaddexp" else 2.0
        s = 1 / (1 + base ** (B - A))
        want = s * (1 - s) * math.log(base)
    np.testing.assert_allclose(gaa.numpy(), want, rtol=1e-12)
    assert gaa.numpy()[0] != 0
