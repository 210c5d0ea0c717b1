"""The names of tinyffn/torch_pointwise.py (frac, sinc, deg2rad, rad2deg, copysign,
float_power, heaviside, isin), the matrix builders and Tensor methods of
torch_linalg.py (qr, trace, kron, block_diag, cartesian_prod, x.det(), ...), cov and
corrcoef of torch_stats.py, and F.pdist.

Each case is one call, written once and run with the names of tinyffn and of torch.
References: PyTorch 2.13, live where it is installed, and its values and gradients
written out in ``EXPECTED`` and ``EXPECTED_GRADS`` (those run without it, on every
device); gradcheck in float64 on every device; the errors.
"""
import math

import numpy as np
import pytest

import tinyffn
import tinyffn.functional as tF
import torch_parity

X = [[0.5, -2.0, 3.25, 0.0], [-4.0, 1.5, 0.25, -0.5]]
W = [[1.0, 2.0, -3.0, -0.0], [0.5, -0.5, 0.25, 2.0]]
A = [[2.0, 1.0, 0.5], [1.0, 3.0, -1.0], [0.0, 1.0, 4.0]]
E = [-2.5, -0.0, 0.0, 1e-300, 0.75, 3.0, math.inf, -math.inf, math.nan]

CASES = [
    "T.frac(x)", "T.frac(e)", "x.frac()", "T.frac(x.float())",
    "T.sinc(x)", "T.sinc(e[:6])", "x.sinc()", "T.sinc(i)",
    "T.deg2rad(x)", "x.rad2deg()", "T.rad2deg(i)", "T.deg2rad(i)",
    "T.copysign(x, w)", "x.copysign(-1.0)", "T.copysign(i, w[:, :3])", "T.copysign(e, -e)",
    "T.float_power(x, 2)", "T.float_power(i, 3)", "x.abs().float().float_power(0.5)",
    "T.float_power(2, x)",
    "T.heaviside(x, w)", "x.heaviside(w[0])", "T.heaviside(e, e.flip(0))",
    "T.isin(i, i[0])", "T.isin(i, i[0], invert=True)", "T.isin(x, w)", "T.isin(2, i)",
    "T.isin(i, x)",
    "a.det()", "a.slogdet()", "a.inverse()", "a.svd().S", "a.svd(compute_uv=False)[0]",
    "a.qr()[1].abs()", "T.qr(a, some=False)[1].abs()", "a.qr()[0].abs()",
    "T.trace(a)", "x[:, :2].trace()", "T.trace(i)",
    "T.kron(x, a)", "a.kron(i[0])", "T.kron(i, i)", "T.kron(x[0], a[0])",
    "T.block_diag(a, x, a[0], x[0, 0])", "T.block_diag(i, a)", "T.block_diag(i)",
    "T.cartesian_prod(x[0], a[1])", "T.cartesian_prod(i[0], i[1], i[0])", "T.cartesian_prod(a[0])",
    "T.cov(x)", "x.cov(correction=0)", "T.cov(a, fweights=i[0], aweights=a[0].abs())",
    "T.cov(a, aweights=a[1].abs(), correction=2)", "T.cov(x[0])", "T.cov(i)",
    "T.corrcoef(x)", "a.corrcoef()", "T.corrcoef(x[1])",
    "F.pdist(x)", "F.pdist(a, 1)", "F.pdist(a, 0)", "F.pdist(a, math.inf)", "F.pdist(a, 3)",
]


def run(module, case: str, requires_grad: str = "", **tensor_kwargs):
    inputs = {}
    for name, v in dict(x=X, w=W, a=A, e=E).items():
        inputs[name] = module.tensor(v, dtype=module.float64, **tensor_kwargs)
        if name == requires_grad:
            inputs[name].requires_grad_(True)
    inputs["i"] = module.tensor([[1, 4, 2], [4, 0, 3]], **tensor_kwargs)
    F = tF if module is tinyffn else module.nn.functional
    y = eval(case, {"math": math}, {"T": module, "F": F, **inputs})
    return (y, inputs[requires_grad]) if requires_grad else y


plain = torch_parity.plain


def assert_same(actual, expected, case):
    """dtype, shape and values to 1e-12 (float32: 4 ulp), NaN equal to NaN, and the sign
    of every zero where the result is a float."""
    if isinstance(expected, bool):
        assert actual is expected, case
        return
    if isinstance(expected[0], tuple):                  # slogdet's (sign, logabsdet)
        for a, e in zip(actual, expected, strict=True):
            assert_same(a, e, case)
        return
    rtol = {"float64": 1e-12, "float32": 4.8e-7}.get(expected[0], 0)
    torch_parity.assert_close(actual, expected, case, rtol=rtol, atol=1e-14)
    if expected[0].startswith("float"):
        a, e = np.asarray(actual[1], dtype=float), np.asarray(expected[1], dtype=float)
        number = ~np.isnan(e) & (np.abs(e) > 1e-13)         # the sign of a rounding: noise
        exact_zero = (e == 0) & ~np.isnan(e)
        keep = number if "det" in case or "qr" in case else number | exact_zero  # LAPACK's zeros
        np.testing.assert_array_equal(np.signbit(a[keep]), np.signbit(e[keep]), err_msg=case)


GRAD_CASES = [
    ("T.frac(x)", "x"), ("T.sinc(x)", "x"), ("T.sinc(w)", "w"), ("T.deg2rad(x)", "x"),
    ("T.rad2deg(x)", "x"), ("T.copysign(x, w)", "x"), ("T.float_power(x, 3)", "x"),
    ("T.float_power(2, x)", "x"), ("a.det()", "a"), ("a.inverse()", "a"),
    ("T.trace(a)", "a"), ("T.kron(x, a)", "x"), ("T.kron(x, a)", "a"),
    ("T.block_diag(a, x, a[0])", "a"), ("T.block_diag(a, x)", "x"),
    ("T.cartesian_prod(x[0], a[1])", "x"), ("T.cov(x)", "x"),
    ("T.cov(a, fweights=i[0], aweights=a[0].abs())", "a"), ("T.corrcoef(x)", "x"),
    ("F.pdist(x)", "x"), ("F.pdist(a, 1)", "a"), ("F.pdist(a, 3)", "a"),
]


def grad_of(module, case: str, wrt: str, **tensor_kwargs):
    y, x = run(module, case, requires_grad=wrt, **tensor_kwargs)
    return torch_parity.weighted_grad(module, y, x, **tensor_kwargs)


def assert_grad(actual, expected, case):
    torch_parity.assert_close(actual, expected, case, rtol=1e-10, atol=1e-13)


_RUNTIME = pytest.mark.filterwarnings("ignore::RuntimeWarning")   # sin(inf), inf - inf: as torch
_QR = pytest.mark.filterwarnings("ignore:torch.qr is deprecated")     # torch's own warning
torch_parity.tests(globals(), marks=(_RUNTIME, _QR), assert_grad=assert_grad)


GRADCHECKS = {
    "frac": (tinyffn.frac, [[[0.3, -1.7], [2.6, -0.2]]]), "sinc": (tinyffn.sinc, [W]), "deg2rad": (tinyffn.deg2rad, [X]),
    "copysign": (lambda a: tinyffn.copysign(a, -1.0), [X]),
    "float_power": (lambda a: tinyffn.float_power(a, 3), [X]),
    "trace": (tinyffn.trace, [A]), "kron": (tinyffn.kron, [X, A]),
    "block_diag": (tinyffn.block_diag, [A, X]),
    "cartesian_prod": (tinyffn.cartesian_prod, [X[0], A[1]]),
    "cov": (tinyffn.cov, [X]), "corrcoef": (tinyffn.corrcoef, [X]),
    "pdist": (tF.pdist, [X]), "det": (lambda a: a.det(), [A]),
}


@pytest.mark.parametrize("name", sorted(GRADCHECKS))
def test_gradcheck(name, device):
    fn, values = GRADCHECKS[name]
    assert tinyffn.gradcheck(fn, [tinyffn.tensor(v, dtype="float64", device=device,
                                                 requires_grad=True) for v in values])


def test_methods_are_the_functions():
    a = tinyffn.tensor(A, dtype="float64")
    assert a.svd(some=False).V.shape == (3, 3)
    np.testing.assert_allclose(a.svd().V.numpy(), np.linalg.svd(np.array(A))[2].T)
    np.testing.assert_allclose(a.kron(a).numpy(), np.kron(np.array(A), np.array(A)))
    q, r = a.qr()
    np.testing.assert_allclose((q @ r).numpy(), A, atol=1e-14)


def test_heaviside_and_isin_give_no_gradient():
    x = tinyffn.tensor(X, dtype="float64", requires_grad=True)
    assert not tinyffn.heaviside(x, x).requires_grad
    assert not tinyffn.isin(x, x).requires_grad


@_RUNTIME                                   # 0 / 0: NumPy's warning, torch's NaN
def test_cov_with_no_degrees_of_freedom_warns_as_torch():
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        y = tinyffn.cov(tinyffn.tensor([1.0]))
    assert math.isnan(y.item())


@pytest.mark.parametrize("call, error, words", [
    (lambda: tinyffn.frac(tinyffn.tensor([1, 2])), TypeError, "frac: input has dtype int64"),
    (lambda: tinyffn.trace(tinyffn.ones(2, 2, 2)), ValueError, "trace: input must be a matrix"),
    (lambda: tinyffn.block_diag(tinyffn.ones(1, 1, 1)), ValueError, "block_diag: tensors[0]"),
    (lambda: tinyffn.cartesian_prod(tinyffn.ones(2, 2)), ValueError, "cartesian_prod: tensors[0]"),
    (lambda: tinyffn.heaviside(tinyffn.ones(2), tinyffn.tensor([1])), TypeError,
     "must share a dtype"),
    (lambda: tinyffn.isin(1, 2), TypeError, "isin: elements or test_elements"),
    (lambda: tinyffn.float_power(tinyffn.ones(2), tinyffn.ones(2)), TypeError,
     "float_power: one of input and exponent"),
    (lambda: tinyffn.cov(tinyffn.ones(2, 3), fweights=tinyffn.ones(3)), TypeError,
     "cov: fweights must be an integer tensor"),
    (lambda: tinyffn.cov(tinyffn.ones(2, 3), aweights=tinyffn.ones(2)), ValueError,
     "one weight per observation (3)"),
    (lambda: tinyffn.cov(tinyffn.ones(2, 3), fweights=tinyffn.tensor([1, -1, 1])), ValueError,
     "fweights cannot be negative"),
    (lambda: tF.pdist(tinyffn.ones(2, 2, 2)), ValueError, "pdist: input must be a matrix"),
    (lambda: tF.pdist(tinyffn.ones(2, 2), -1), ValueError, "pdist: p must be a number >= 0"),
])
def test_errors_name_the_op_and_say_what_to_do(call, error, words):
    with pytest.raises(error) as info:
        call()
    assert words in str(info.value)


EXPECTED = {
    'T.frac(x)': ('float64', [[0.5, 0.0, 0.25, 0.0], [0.0, 0.5, 0.25, -0.5]]),
    'T.frac(e)': ('float64', [-0.5, 0.0, 0.0, 1e-300, 0.75, 0.0, math.nan, math.nan, math.nan]),
    'x.frac()': ('float64', [[0.5, 0.0, 0.25, 0.0], [0.0, 0.5, 0.25, -0.5]]),
    'T.frac(x.float())': ('float32', [[0.5, 0.0, 0.25, 0.0], [0.0, 0.5, 0.25, -0.5]]),
    'T.sinc(x)': ('float64', [[0.6366197723675814, -3.8981718325193755e-17, -0.06925510124285435, 1.0], [-3.8981718325193755e-17, -0.2122065907891938, 0.9003163161571061, 0.6366197723675814]]),
    'T.sinc(e[:6])': ('float64', [0.12732395447351627, 1.0, 1.0, 1.0, 0.3001054387190354, 3.8981718325193755e-17]),
    'x.sinc()': ('float64', [[0.6366197723675814, -3.8981718325193755e-17, -0.06925510124285435, 1.0], [-3.8981718325193755e-17, -0.2122065907891938, 0.9003163161571061, 0.6366197723675814]]),
    'T.sinc(i)': ('float32', [[-2.7827534054836178e-08, 2.7827534054836178e-08, 2.7827534054836178e-08], [2.7827534054836178e-08, 1.0, -2.530538223410872e-09]]),
    'T.deg2rad(x)': ('float64', [[0.008726646259971648, -0.03490658503988659, 0.05672320068981571, 0.0], [-0.06981317007977318, 0.026179938779914945, 0.004363323129985824, -0.008726646259971648]]),
    'x.rad2deg()': ('float64', [[28.64788975654116, -114.59155902616465, 186.21128341751756, 0.0], [-229.1831180523293, 85.94366926962348, 14.32394487827058, -28.64788975654116]]),
    'T.rad2deg(i)': ('float32', [[57.295780181884766, 229.18312072753906, 114.59156036376953], [229.18312072753906, 0.0, 171.88734436035156]]),
    'T.deg2rad(i)': ('float32', [[0.01745329238474369, 0.06981316953897476, 0.03490658476948738], [0.06981316953897476, 0.0, 0.05235987901687622]]),
    'T.copysign(x, w)': ('float64', [[0.5, 2.0, -3.25, -0.0], [4.0, -1.5, 0.25, 0.5]]),
    'x.copysign(-1.0)': ('float64', [[-0.5, -2.0, -3.25, -0.0], [-4.0, -1.5, -0.25, -0.5]]),
    'T.copysign(i, w[:, :3])': ('float64', [[1.0, 4.0, -2.0], [4.0, -0.0, 3.0]]),
    'T.copysign(e, -e)': ('float64', [2.5, 0.0, -0.0, -1e-300, -0.75, -3.0, -math.inf, math.inf, math.nan]),
    'T.float_power(x, 2)': ('float64', [[0.25, 4.0, 10.5625, 0.0], [16.0, 2.25, 0.0625, 0.25]]),
    'T.float_power(i, 3)': ('float64', [[1.0, 64.0, 8.0], [64.0, 0.0, 27.0]]),
    'x.abs().float().float_power(0.5)': ('float64', [[0.7071067811865476, 1.4142135623730951, 1.8027756377319946, 0.0], [2.0, 1.224744871391589, 0.5, 0.7071067811865476]]),
    'T.float_power(2, x)': ('float64', [[1.4142135623730951, 0.25, 9.513656920021768, 1.0], [0.0625, 2.8284271247461903, 1.189207115002721, 0.7071067811865476]]),
    'T.heaviside(x, w)': ('float64', [[1.0, 0.0, 1.0, -0.0], [0.0, 1.0, 1.0, 0.0]]),
    'x.heaviside(w[0])': ('float64', [[1.0, 0.0, 1.0, -0.0], [0.0, 1.0, 1.0, 0.0]]),
    'T.heaviside(e, e.flip(0))': ('float64', [0.0, -math.inf, math.inf, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0]),
    'T.isin(i, i[0])': ('bool', [[True, True, True], [True, False, False]]),
    'T.isin(i, i[0], invert=True)': ('bool', [[False, False, False], [False, True, True]]),
    'T.isin(x, w)': ('bool', [[True, False, False, True], [False, False, True, True]]),
    'T.isin(2, i)': ('bool', True),
    'T.isin(i, x)': ('bool', [[False, False, False], [False, True, False]]),
    'a.det()': ('float64', 22.5),
    'a.slogdet()': (('float64', 1.0), ('float64', 3.1135153092103747)),
    'a.inverse()': ('float64', [[0.5777777777777777, -0.15555555555555556, -0.1111111111111111], [-0.17777777777777778, 0.35555555555555557, 0.11111111111111112], [0.044444444444444446, -0.08888888888888889, 0.2222222222222222]]),
    'a.svd().S': ('float64', [4.209856820552508, 3.659855034884874, 1.4603310152411886]),
    'a.svd(compute_uv=False)[0]': ('float64', [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]),
    'a.qr()[1].abs()': ('float64', [[2.23606797749979, 2.2360679774997894, 5.551115123125783e-17], [0.0, 2.449489742783178, 0.6123724356957945], [0.0, 0.0, 4.107919181288746]]),
    'T.qr(a, some=False)[1].abs()': ('float64', [[2.23606797749979, 2.2360679774997894, 5.551115123125783e-17], [0.0, 2.449489742783178, 0.6123724356957945], [0.0, 0.0, 4.107919181288746]]),
    'a.qr()[0].abs()': ('float64', [[0.8944271909999157, 0.408248290463863, 0.18257418583505539], [0.4472135954999579, 0.8164965809277261, 0.36514837167011077], [0.0, 0.4082482904638631, 0.9128709291752768]]),
    'T.trace(a)': ('float64', 9.0),
    'x[:, :2].trace()': ('float64', 2.0),
    'T.trace(i)': ('int64', 1),
    'T.kron(x, a)': ('float64', [[1.0, 0.5, 0.25, -4.0, -2.0, -1.0, 6.5, 3.25, 1.625, 0.0, 0.0, 0.0], [0.5, 1.5, -0.5, -2.0, -6.0, 2.0, 3.25, 9.75, -3.25, 0.0, 0.0, -0.0], [0.0, 0.5, 2.0, -0.0, -2.0, -8.0, 0.0, 3.25, 13.0, 0.0, 0.0, 0.0], [-8.0, -4.0, -2.0, 3.0, 1.5, 0.75, 0.5, 0.25, 0.125, -1.0, -0.5, -0.25], [-4.0, -12.0, 4.0, 1.5, 4.5, -1.5, 0.25, 0.75, -0.25, -0.5, -1.5, 0.5], [-0.0, -4.0, -16.0, 0.0, 1.5, 6.0, 0.0, 0.25, 1.0, -0.0, -0.5, -2.0]]),
    'a.kron(i[0])': ('float64', [[2.0, 8.0, 4.0, 1.0, 4.0, 2.0, 0.5, 2.0, 1.0], [1.0, 4.0, 2.0, 3.0, 12.0, 6.0, -1.0, -4.0, -2.0], [0.0, 0.0, 0.0, 1.0, 4.0, 2.0, 4.0, 16.0, 8.0]]),
    'T.kron(i, i)': ('int64', [[1, 4, 2, 4, 16, 8, 2, 8, 4], [4, 0, 3, 16, 0, 12, 8, 0, 6], [4, 16, 8, 0, 0, 0, 3, 12, 6], [16, 0, 12, 0, 0, 0, 12, 0, 9]]),
    'T.kron(x[0], a[0])': ('float64', [1.0, 0.5, 0.25, -4.0, -2.0, -1.0, 6.5, 3.25, 1.625, 0.0, 0.0, 0.0]),
    'T.block_diag(a, x, a[0], x[0, 0])': ('float64', [[2.0, 1.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 3.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.5, -2.0, 3.25, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, -4.0, 1.5, 0.25, -0.5, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 1.0, 0.5, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5]]),
    'T.block_diag(i, a)': ('float64', [[1.0, 4.0, 2.0, 0.0, 0.0, 0.0], [4.0, 0.0, 3.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 2.0, 1.0, 0.5], [0.0, 0.0, 0.0, 1.0, 3.0, -1.0], [0.0, 0.0, 0.0, 0.0, 1.0, 4.0]]),
    'T.block_diag(i)': ('int64', [[1, 4, 2], [4, 0, 3]]),
    'T.cartesian_prod(x[0], a[1])': ('float64', [[0.5, 1.0], [0.5, 3.0], [0.5, -1.0], [-2.0, 1.0], [-2.0, 3.0], [-2.0, -1.0], [3.25, 1.0], [3.25, 3.0], [3.25, -1.0], [0.0, 1.0], [0.0, 3.0], [0.0, -1.0]]),
    'T.cartesian_prod(i[0], i[1], i[0])': ('int64', [[1, 4, 1], [1, 4, 4], [1, 4, 2], [1, 0, 1], [1, 0, 4], [1, 0, 2], [1, 3, 1], [1, 3, 4], [1, 3, 2], [4, 4, 1], [4, 4, 4], [4, 4, 2], [4, 0, 1], [4, 0, 4], [4, 0, 2], [4, 3, 1], [4, 3, 4], [4, 3, 2], [2, 4, 1], [2, 4, 4], [2, 4, 2], [2, 0, 1], [2, 0, 4], [2, 0, 2], [2, 3, 1], [2, 3, 4], [2, 3, 2]]),
    'T.cartesian_prod(a[0])': ('float64', [2.0, 1.0, 0.5]),
    'T.cov(x)': ('float64', [[4.682291666666667, -0.9947916666666666], [-0.9947916666666666, 5.557291666666667]]),
    'x.cov(correction=0)': ('float64', [[3.51171875, -0.74609375], [-0.74609375, 4.16796875]]),
    'T.cov(a, fweights=i[0], aweights=a[0].abs())': ('float64', [[0.33333333333333337, -0.04938271604938269, -0.6419753086419754], [-0.04938271604938269, 2.5679012345679015, -1.1851851851851853], [-0.6419753086419754, -1.1851851851851853, 1.8765432098765433]]),
    'T.cov(a, aweights=a[1].abs(), correction=2)': ('float64', [[2.0000000000000013, 1.0000000000000004, -4.500000000000003], [1.0000000000000004, 21.333333333333343, -12.666666666666673], [-4.500000000000003, -12.666666666666671, 15.333333333333341]]),
    'T.cov(x[0])': ('float64', 4.682291666666667),
    'T.cov(i)': ('float32', [[2.3333334922790527, -3.1666665077209473], [-3.1666665077209473, 4.333333492279053]]),
    'T.corrcoef(x)': ('float64', [[1.0, -0.19501647928406088], [-0.1950164792840609, 1.0]]),
    'a.corrcoef()': ('float64', [[1.0, 0.3273268353539886, -0.8910421112136305], [0.3273268353539886, 1.0, -0.7205766921228921], [-0.8910421112136306, -0.7205766921228921, 1.0]]),
    'T.corrcoef(x[1])': ('float64', 1.0),
    'F.pdist(x)': ('float64', [6.461423991660043]),
    'F.pdist(a, 1)': ('float64', [4.5, 5.5, 8.0]),
    'F.pdist(a, 0)': ('float64', [3.0, 2.0, 3.0]),
    'F.pdist(a, math.inf)': ('float64', [2.0, 3.5, 5.0]),
    'F.pdist(a, 3)': ('float64', [2.3130325045913707, 3.7053975277103093, 5.117229946912048]),
}
EXPECTED_GRADS = {
    'T.frac(x) dx': ('float64', [[0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8]]),
    'T.sinc(x) dx': ('float64', [[-0.12732395447351627, -0.1, -0.05887861661018703, 0.0], [-0.125, 0.08488263631567744, -0.5409866979175637, 1.0185916357881302]]),
    'T.sinc(w) dw': ('float64', [[-0.1, 0.1, 0.09999999999999999, 0.0], [-0.6366197723675813, 0.7639437268410975, -0.5409866979175637, 0.4]]),
    'T.deg2rad(x) dx': ('float64', [[0.0017453292519943296, 0.003490658503988659, 0.005235987755982988, 0.006981317007977318], [0.008726646259971648, 0.010471975511965976, 0.012217304763960306, 0.013962634015954637]]),
    'T.rad2deg(x) dx': ('float64', [[5.729577951308233, 11.459155902616466, 17.188733853924695, 22.918311805232932], [28.64788975654116, 34.37746770784939, 40.10704565915762, 45.836623610465864]]),
    'T.copysign(x, w) dx': ('float64', [[0.1, -0.2, -0.3, 0.0], [-0.5, -0.6, 0.7, -0.8]]),
    'T.float_power(x, 3) dx': ('float64', [[0.07500000000000001, 2.4000000000000004, 9.50625, 0.0], [24.0, 4.05, 0.13124999999999998, 0.6000000000000001]]),
    'T.float_power(2, x) dx': ('float64', [[0.09802581434685473, 0.03465735902799726, 1.9783093412783104, 0.2772588722239781], [0.02166084939249829, 1.1763097721622566, 0.5770068912061739, 0.3921032573874189]]),
    'a.det() da': ('float64', [[1.3, -0.4, 0.1], [-0.35000000000000003, 0.8, -0.2], [-0.25, 0.25, 0.5]]),
    'a.inverse() da': ('float64', [[0.011259259259259264, -0.03081481481481481, -0.018962962962962956], [-0.01585185185185186, -0.025037037037037035, -0.01540740740740741], [-0.05037037037037036, -0.0674074074074074, -0.04148148148148147]]),
    'T.trace(a) da': ('float64', [[0.1, 0.0, 0.0], [0.0, 0.1, 0.0], [0.0, 0.0, 0.1]]),
    'T.kron(x, a) dx': ('float64', [[17.95, 21.4, 24.85, 28.299999999999997], [59.349999999999994, 62.8, 66.25, 69.69999999999999]]),
    'T.kron(x, a) da': ('float64', [[-8.5, -8.600000000000001, -8.7], [-9.700000000000001, -9.8, -9.899999999999997], [-10.899999999999995, -11.000000000000002, -11.100000000000001]]),
    'T.block_diag(a, x, a[0]) da': ('float64', [[5.8999999999999995, 6.1000000000000005, 6.3], [1.1, 1.2, 1.3], [2.1, 2.2, 2.3]]),
    'T.block_diag(a, x) dx': ('float64', [[2.5, 2.6, 2.7, 2.8], [3.2, 3.3, 3.4, 3.5]]),
    'T.cartesian_prod(x[0], a[1]) dx': ('float64', [[0.9, 2.7, 4.5, 6.3], [0.0, 0.0, 0.0, 0.0]]),
    'T.cov(x) dx': ('float64', [[-0.5479166666666666, 0.20208333333333328, 0.34375, 0.002083333333333331], [-0.8729166666666667, 0.1770833333333334, 0.71875, -0.02291666666666667]]),
    'T.cov(a, fweights=i[0], aweights=a[0].abs()) da': ('float64', [[-0.29945892394452056, 0.16012802926383185, -0.3322969059594573], [-0.6864197530864197, 0.5629629629629629, 0.12345679012345681], [-0.854320987654321, 0.7802469135802469, 0.0740740740740741]]),
    'T.corrcoef(x) dx': ('float64', [[-0.10779518884746161, 0.05455177965611594, 0.050154201149526983, 0.003089208041818691], [-0.017331650970293544, -0.06684627927235119, 0.09737570686490005, -0.013197776622255315]]),
    'F.pdist(x) dx': ('float64', [[0.06964409092807232, -0.05416762627738959, 0.04642939395204822, 0.007738232325341369], [-0.06964409092807232, 0.05416762627738959, -0.04642939395204822, -0.007738232325341369]]),
    'F.pdist(a, 1) da': ('float64', [[0.30000000000000004, -0.1, -0.1], [0.19999999999999998, 0.4, -0.4], [-0.5, -0.3, 0.5]]),
    'F.pdist(a, 3) da': ('float64', [[0.07695786506470612, -0.07476468701709484, -0.13638661181608341], [-0.007234686798500464, 0.12059062684018781, -0.32846726034144696], [-0.06972317826620565, -0.04582593982309298, 0.4648538721575304]]),
}


@_RUNTIME                                   # x / +0: NumPy's divide warning, torch's inf
@pytest.mark.parametrize("weights", [
    {"fweights": [1, 1, 1]}, {"aweights": [1.0, 2.0, 1.0]}, {}])
def test_cov_with_a_negative_divisor_gives_plus_inf_variances_as_torch(weights):
    # correction 5 > 3 observations: PyTorch clamps the divisor to +0, so the variances
    # (positive sums of squares) are +inf. The weighted path once made it -0 (norm · 0 of
    # a negative norm) and gave -inf variances, +inf covariances where torch has -inf.
    x = [[1.0, 2.0, 4.0], [0.0, 1.0, -3.0]]
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        y = tinyffn.cov(tinyffn.tensor(x), correction=5,
                        **{k: tinyffn.tensor(v) for k, v in weights.items()}).numpy()
    d = np.array(x) - np.array(x).mean(1, keepdims=True)   # hand-written: sign of d d^T / +0
    np.testing.assert_array_equal(y, np.where(d @ d.T > 0, math.inf, -math.inf))


def test_cov_of_float32_with_float64_aweights_is_float64_as_torch():
    x = tinyffn.tensor([[1.0, 2.0, 4.0], [0.0, 1.0, -3.0]], dtype="float32")
    w = tinyffn.tensor([1.0, 2.0, 1.0], dtype="float64")
    y = tinyffn.cov(x, aweights=w)
    assert y.dtype == "float64"
    xs, ws = np.array(x.numpy(), np.float64), w.numpy()        # numpy's weighted cov
    np.testing.assert_allclose(y.numpy(), np.cov(xs, aweights=ws), rtol=1e-12)
    torch = pytest.importorskip("torch")
    assert str(torch.cov(torch.tensor(x.numpy()), aweights=torch.tensor(ws)).dtype) == "torch.float64"


@pytest.mark.parametrize("dtypes, result", [
    (("float32", "float64"), "float64"), (("float16", "float32"), "float32"),
    (("float64", "float32"), "float64"), (("int64", "float64"), "float64")])
def test_copysign_result_has_the_promoted_dtype_as_torch(dtypes, result):
    # copysign once kept input's dtype: float32 input with float64 signs gave float32,
    # where PyTorch (and every other binary op here) promotes to float64.
    a = tinyffn.tensor([1.5, -2.25, 3.0] if "float" in dtypes[0] else [1, -2, 3], dtype=dtypes[0])
    b = tinyffn.tensor([-1.0, 2.0, -0.0], dtype=dtypes[1])
    y = tinyffn.copysign(a, b)
    assert y.dtype == result
    np.testing.assert_array_equal(y.numpy(), -np.abs(a.numpy()) * [1, -1, 1])
    torch = pytest.importorskip("torch")
    t = torch.copysign(torch.tensor(a.numpy()), torch.tensor(b.numpy()))
    assert str(t.dtype) == f"torch.{result}"



def test_matrix_power_and_pinverse_are_tensor_methods_as_torch():
    # torch.Tensor has both; tinyffn's Tensor had neither (AttributeError).
    a = np.array(A)
    t = tinyffn.tensor(A, dtype="float64")
    np.testing.assert_allclose(t.matrix_power(3).numpy(), a @ a @ a, rtol=1e-13)
    np.testing.assert_allclose(t.matrix_power(-1).numpy(), np.linalg.inv(a), rtol=1e-12)
    np.testing.assert_allclose(t.pinverse().numpy(), np.linalg.pinv(a), rtol=1e-12)
    u, s, vh = np.linalg.svd(a)                     # rcond 0.5 drops σ < 0.5 σ_max
    keep = s > 0.5 * s[0]
    np.testing.assert_allclose(t.pinverse(rcond=0.5).numpy(),
                               (vh.T[:, keep] / s[keep]) @ u[:, keep].T, rtol=1e-12)


def test_corrcoef_is_clipped_to_one_where_rounding_overshoots():
    # rows x and 3x correlate exactly; in float32 the quotient c / (σ_i σ_j) rounds to
    # 1.0000001 here, and torch.corrcoef clips it to [-1, 1]: so must tinyffn's.
    x = np.random.default_rng(1).standard_normal(5)
    r = tinyffn.corrcoef(tinyffn.tensor(np.stack([x, 3 * x]), dtype="float32")).numpy()
    assert np.abs(r).max() == 1.0
    np.testing.assert_allclose(r, np.ones((2, 2)), rtol=1e-6)


def test_block_diag_of_nothing_and_svd_without_uv_have_torchs_shapes():
    assert tinyffn.block_diag().shape == (1, 0)                  # torch.block_diag(): (1, 0)
    u, s, v = tinyffn.svd(tinyffn.tensor(np.ones((2, 4))), compute_uv=False)
    assert (u.shape, s.shape, v.shape) == ((2, 2), (2,), (4, 4))    # zeros (m, m), (n, n)
    assert not u.numpy().any() and not v.numpy().any()
