"""tinyffn.special (torch.special's names), the top-level lgamma, digamma, polygamma, erfc,
erfinv, i0, mvlgamma and their Tensor methods (torch_special.py), and the primitives of
ops/special_functions.py seen through them.

Each case is one call, written once and run with the names of tinyffn and of torch
(``T.special.log_ndtr`` is either's). References: PyTorch 2.13, live where it is installed,
and its values and gradients written out in ``EXPECTED`` and ``EXPECTED_GRADS`` (those
tests run without it, on every device); SciPy in float64 where torch's own value is off;
gradcheck on every device; the errors.
"""
import math

import numpy as np
import pytest
from scipy import special as sp

import tinyffn
import torch_parity

inf, nan = math.inf, math.nan
# through the poles of lgamma and digamma (0, -1, -2), negative non-integers, tiny, large
G = [0.0, -0.0, -1.0, -2.0, -2.5, -0.5, -1.25, 1e-300, 0.5, 1.0, 2.0, 3.0, 7.5, 200.0,
     inf, nan]
GP = [0.0, -0.0, -2.5, -0.5, -1.25, 0.5, 1.0, 3.0, 7.5, 200.0]    # polygamma: no -1, -2
E = [-1.5, -1.0, -0.999, -0.3, 0.0, 0.5, 0.9999999, 1.0, 2.0, nan]   # erfinv: ±1 and past
C = [-30.0, -1.0, 0.0, 1.0, 5.0, 10.0, 26.0, 30.0, inf, -inf]           # erfc, erfcx far out
N = [-40.0, -20.0, -5.0, -1.0000001, -1.0, -0.5, 0.0, 3.0, 10.0, 40.0, -inf, inf]  # log_ndtr
P = [0.0, 1e-300, 1e-10, 0.025, 0.5, 0.975, 1.0 - 1e-10, 1.0, 1.5]                  # ndtri
B = [-30.0, -3.0, -0.5, 0.0, 0.5, 3.0, 30.0]                                         # Bessel
S = [0.0, -1.0, 0.5, 2.0, 1e-300, inf]                                               # entr

CASES = [
    "T.lgamma(g)", "g.lgamma()", "T.special.gammaln(g)", "T.lgamma(g.float())", "T.lgamma(i)",
    "T.digamma(g)", "g.digamma()", "T.special.psi(g)", "T.digamma(g.float())", "T.digamma(i)",
    "T.polygamma(1, gp)", "gp.polygamma(2)", "T.special.polygamma(0, gp)",
    "T.polygamma(3, gp.float())", "T.polygamma(1, i + 1)",
    "T.erfc(c)", "c.erfc()", "T.special.erfc(c.float())", "T.erfc(i)",
    "T.special.erfcx(c)", "T.special.erfcx(c.float())",
    "T.erfinv(e)", "e.erfinv()", "T.special.erfinv(e.float())", "T.erfinv(i - 1)",
    "T.special.log_ndtr(n)", "T.special.log_ndtr(n.float())", "T.special.ndtr(n[3:])",
    "T.special.ndtr(n[3:].float())", "T.special.ndtri(p)", "T.special.ndtri(p.float())",
    "T.i0(b)", "b.i0()", "T.special.i0(b.float())", "T.special.i0e(b)", "T.special.i1(b)",
    "T.special.i1e(b)", "T.special.i1e(i)",
    "T.mvlgamma(g[8:14], 1)", "g[8:14].mvlgamma(3)", "T.special.multigammaln(g[10:14].float(), 4)",
    "T.special.xlog1py(c, b[:4].flip(0).repeat(3)[:10])", "T.special.xlog1py(s, s - 1.5)",
    "T.special.xlog1py(0.0, n)", "T.special.xlog1py(i, 2.0)",
    "T.special.entr(s)", "T.special.entr(s.float())",
    "T.special.zeta(z, q)", "T.special.zeta(2.0, q)", "T.special.zeta(z.float(), 1.5)",
    "T.special.expit(b)", "T.special.logit(p[:8], eps=1e-6)", "T.special.xlogy(b.abs(), 2.0)",
    "T.special.sinc(b)", "T.special.log1p(b.abs())", "T.special.expm1(b)", "T.special.exp2(b)",
    "T.special.round(b * 1.3)", "T.special.round(b * 1.37, decimals=1)",
    "T.special.softmax(b, 0)", "T.special.log_softmax(b, -1)", "T.special.logsumexp(b, 0)",
    "T.special.erf(c)",
]
for name in ("lgamma", "digamma", "erfc", "erfinv", "i0"):      # float16: in float32, rounded
    CASES.append(f"T.{name}(h.half())")
for name in ("ndtr", "i0e", "i1", "i1e", "entr"):       # torch's CPU has no float16 erfcx,
    CASES.append(f"T.special.{name}(h.half())")               # log_ndtr, ndtri: tinyffn does
CASES.append("T.polygamma(2, h.half())")


def run(module, case: str, requires_grad: str = "", **tensor_kwargs):
    inputs = {}
    values = dict(g=G, gp=GP, e=E, c=C, n=N, p=P, b=B, s=S, z=[2.0, 3.5, 1.0, 0.5, 4.0],
                  q=[1.0, 2.0, 0.5, 3.0, 0.25], h=[-0.75, 0.25, 0.5, 0.99, 1.5, 4.0],
                  gg=[-2.5, -0.5, 0.5, 1.5, 7.5], gb=[-3.0, -0.5, 0.5, 3.0],
                  ge=[-0.9, -0.3, 0.5, 0.99], gn=[-40.0, -5.0, -1.5, -0.5, 0.0, 3.0, 10.0],
                  gq=[0.5, 1.0, 2.5, 4.0], gx=[0.2, 0.0, 1.5, 0.0], gy=[0.5, -0.5, 2.0, 1.0])
    for name, v in values.items():
        inputs[name] = module.tensor(v, dtype=module.float64, **tensor_kwargs)
        if name == requires_grad:
            inputs[name].requires_grad_(True)
    inputs["i"] = module.tensor([[0, 1, 2], [3, 4, 5]], **tensor_kwargs)
    if "half" in case and tensor_kwargs.get("device") == "strict":
        pytest.skip("the strict backend has no float16")
    y = eval(case, {}, {"T": module, **inputs})
    return (y, inputs[requires_grad]) if requires_grad else y


plain = torch_parity.plain

# torch's float64 trigamma, polygamma(n >= 1) and zeta agree with SciPy's (and Cephes's)
# to about 1e-10 relative: torch.polygamma(1, 3.0) is 0.39493406693194577, the true value
# 0.39493406684822643. Its float32 functions are its own, a few ulp from the true value
# (digamma(-0.5) in float32: 0.036489915, 16 ulp from the true 0.036489974, tinyffn's).
LOOSE = ("polygamma", "digamma(g) dg", "zeta", "T.digamma(gg) dgg", "lgamma(gg) dgg")


# CUDA's special functions, which CuPy calls, are not correctly rounded. The CUDA C++
# Programming Guide's accuracy tables (Mathematical Functions): in float32 erfcf and erfcxf
# 4 ulp, erfinvf 2, normcdfinvf (ndtri) 5, cyl_bessel_i0f and i1f 6, expf 2, lgammaf 6
# outside (-10.001, -2.264) and no bound inside; CuPy's float32 i0e and i1e multiply expf
# by cyl_bessel_i0f (i1f): 8.5 ulp. A float32 value from the GPU gets this many more ulps,
# absolute ones where it is subnormal (float32 erfc(10) is 2.1e-45, one or two of them).
# float64's tolerances, 1e-12 and more (4,500 ulp), exceed CUDA's double bounds (10 ulp at
# most: tgamma, in CuPy's polygamma) already, except lgamma's in (-23.0001, -2.2637),
# where none is given (G's -2.5); float16 is float32 rounded once, within its 2 ulp.
CUDA_EXTRA_ULPS = 9


def assert_same(actual, expected, case, device="cpu"):
    """dtype, shape and values to 1e-12 (1e-9 where torch's float64 is that far off;
    float32: 8 ulp, and CUDA_EXTRA_ULPS more on a GPU; float16: 2), NaN equal to NaN,
    infinities equal."""
    rtol = {"float64": 1e-9 if any(w in case for w in LOOSE) else 1e-12,
            "float32": 2e-6 if "digamma" in case else 9.6e-7, "float16": 2e-3}.get(actual[0], 0)
    atol = 1e-300
    if device == "cuda" and actual[0] == "float32":
        rtol += CUDA_EXTRA_ULPS * 2.0 ** -23
        atol = CUDA_EXTRA_ULPS * float(np.finfo(np.float32).smallest_subnormal)
    torch_parity.assert_close(actual, expected, case, rtol=rtol, atol=atol)


GRAD_CASES = [
    ("T.lgamma(gg)", "gg"), ("T.digamma(gg)", "gg"), ("T.polygamma(2, gg)", "gg"),
    ("T.erfc(c[1:8])", "c"), ("T.special.erfcx(c[:8])", "c"), ("T.erfinv(ge)", "ge"),
    ("T.special.ndtri(p[2:7])", "p"), ("T.special.ndtr(gn)", "gn"),
    ("T.special.log_ndtr(gn)", "gn"), ("T.i0(gb)", "gb"), ("T.special.i0e(gb)", "gb"),
    ("T.special.i1(b)", "b"), ("T.special.i1e(b)", "b"), ("T.mvlgamma(gq + 2, 3)", "gq"),
    ("T.special.xlog1py(gx, gy)", "gx"), ("T.special.xlog1py(gx, gy)", "gy"),
    ("T.special.entr(gq)", "gq"), ("T.special.zeta(z[:4] + 1.5, gq)", "gq"),
]


def grad_of(module, case: str, wrt: str, **tensor_kwargs):
    y, x = run(module, case, requires_grad=wrt, **tensor_kwargs)
    return torch_parity.weighted_grad(module, y, x, **tensor_kwargs)


_RUNTIME = pytest.mark.filterwarnings("ignore::RuntimeWarning")   # log(0), poles: as torch
torch_parity.tests(globals(), marks=(_RUNTIME,), assert_grad=assert_same)


@_RUNTIME
def test_far_tails_keep_their_digits(device):
    """erfc(10) = 2.09e-45 and erfc(26) = 5.66e-296 (1 - erf gives 0), log_ndtr(-40) =
    -804.608 and its gradient 40.025 (log(ndtr(-40)) is -inf), ndtri(1e-300) = -37.05;
    SciPy's float64 values, with its log_ndtr, as the reference."""
    t = lambda v: tinyffn.tensor(v, dtype="float64", device=device)    # noqa: E731
    np.testing.assert_allclose(tinyffn.erfc(t([10.0, 26.0])).numpy(), sp.erfc([10.0, 26.0]),
                               rtol=1e-14, atol=0)
    assert (1 - tinyffn.erf(t([10.0]))).tolist() == [0.0]
    x = tinyffn.tensor([-40.0, -10.0, -1.2, 0.5, 8.0], dtype="float64", device=device,
                       requires_grad=True)
    y = tinyffn.special.log_ndtr(x)
    np.testing.assert_allclose(y.numpy(), sp.log_ndtr(x.numpy()), rtol=1e-14, atol=1e-300)
    y.sum().backward()          # d/dx log Φ(x) = φ(x) / Φ(x) = exp(log φ(x) - log Φ(x))
    v = x.numpy()
    slope = np.exp(-v * v / 2 - 0.5 * np.log(2 * np.pi) - sp.log_ndtr(v))
    np.testing.assert_allclose(x.grad.numpy(), slope, rtol=1e-12, atol=0)
    assert math.isinf(tinyffn.special.ndtr(t([-40.0])).log().item())
    np.testing.assert_allclose(tinyffn.special.ndtri(t([1e-300, 1e-10])).numpy(),
                               sp.ndtri([1e-300, 1e-10]), rtol=1e-14)


def test_ndtr_keeps_its_digits_in_the_left_tail_where_torchs_does_not(device):
    """ndtr(x) = erfc(-x/√2)/2 is SciPy's ndtr to 1e-13 from -37 to 8 in float64, and to
    5e-6 from -6 to 5 in float32 (x/√2 rounds to float32, an error that erfc multiplies
    by 2x²). A deliberate
    difference: torch 2.13's ndtr(-20) is 0.0 in float64 (true: 2.75e-89) and its float32
    ndtr(-5) is 2.98e-7, 4% above the true 2.87e-7."""
    v = np.concatenate([np.linspace(-37, 8, 400), [-20.0, -5.0]])
    got = tinyffn.special.ndtr(tinyffn.tensor(v, dtype="float64", device=device)).numpy()
    np.testing.assert_allclose(got, sp.ndtr(v), rtol=1e-13, atol=0)
    w = np.linspace(-6, 5, 300, dtype=np.float32)
    got = tinyffn.special.ndtr(tinyffn.tensor(w, device=device)).numpy()
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, sp.ndtr(w.astype(np.float64)), rtol=5e-6, atol=0)


@_RUNTIME
def test_poles_are_torchs_and_polygamma_at_negative_integers_is_scipys(device):
    """lgamma(0) = lgamma(-1) = inf, digamma(0) = -inf, digamma(-0.0) = inf, digamma(-1) =
    NaN, as torch. polygamma(1, -1): inf here (SciPy's, the limit), 6.58e32 in torch 2.13,
    whose float64 trigamma does not see the pole: a deliberate difference."""
    x = tinyffn.tensor([0.0, -0.0, -1.0, -2.0], dtype="float64", device=device)
    assert x.lgamma().tolist() == [inf] * 4
    d = x.digamma().tolist()
    assert d[:2] == [-inf, inf] and all(map(math.isnan, d[2:]))
    assert x.polygamma(1).tolist() == [inf] * 4
    assert x.polygamma(2).tolist() == [-inf] * 4
    # digamma(±0) = ∓inf in float32, through polygamma(0, .) and as lgamma's slope too,
    # where CuPy 13's digamma gives -inf at both zeros
    z = tinyffn.tensor([0.0, -0.0], device=device, requires_grad=True)
    assert z.digamma().tolist() == z.polygamma(0).tolist() == [-inf, inf]
    z.lgamma().sum().backward()
    assert z.grad.tolist() == [-inf, inf]


def test_the_backend_keeps_float32_and_float16(device):
    """backend.special(name) answers in the float dtype of x (SciPy's polygamma answers
    float32 in float64, and float16 in float64 everywhere): float32 is SciPy's float64
    value rounded, float16 computed in float32 and rounded once."""
    be = tinyffn.tensor([0.0], device=device).backend
    v = np.array([0.3, 1.7, 4.5, -2.5])
    for dtype in ("float32",) if device == "strict" else ("float32", "float16"):
        x = be.asarray(v, dtype=dtype)
        y = be.special("polygamma")(be.asarray(1.0, dtype=dtype), x)
        assert tinyffn.backend.dtype_name(y.dtype) == dtype
        want = sp.polygamma(1, v.astype(dtype).astype("float32")).astype(dtype)
        if device == "cuda":        # CuPy's own polygamma: close, not bit for bit
            np.testing.assert_allclose(be.to_numpy(y), want, rtol=1e-3 if dtype == "float16"
                                       else 1e-6)
        else:
            np.testing.assert_array_equal(be.to_numpy(y), want)
    y = tinyffn.lgamma(tinyffn.tensor([1, 5], device=device))
    assert y.dtype == tinyffn.tensor([0.5], device=device).dtype        # float32, as torch
    assert y.tolist() == [0.0, float(np.float32(math.log(24)))]


def test_scaled_bessel_functions_stay_finite_far_out(device):
    """i0e(x) = exp(-|x|) I0(x) and i1e are finite where I0 overflows (past |x| = 713 in
    float64, 92 in float32), as SciPy's: the product exp(-|x|) * i0(x), which is CuPy 13's
    i0e, gives NaN or 0 there. SciPy's float64 values and gradients as the reference."""
    v = np.array([-1e6, -800.0, -100.0, 90.0, 700.0, 709.0, 714.0, 800.0, 1e4, 1e300])
    x = tinyffn.tensor(v, dtype="float64", device=device, requires_grad=True)
    y0, y1 = tinyffn.special.i0e(x), tinyffn.special.i1e(x)
    np.testing.assert_allclose(y0.numpy(), sp.i0e(v), rtol=4e-15, atol=0)
    np.testing.assert_allclose(y1.numpy(), sp.i1e(v), rtol=4e-15, atol=0)
    (y0 + 2 * y1).sum().backward()     # i0e' = i1e - sign(x) i0e, i1e' = i0e - i1e (sign + 1/x)
    want = sp.i1e(v) - np.sign(v) * sp.i0e(v) + 2 * (sp.i0e(v) - sp.i1e(v) * (np.sign(v) + 1 / v))
    # the terms cancel to a part in 2|x|: to 3e-15 of i0e, the size of the terms
    assert (np.abs(x.grad.numpy() - want) <= 3e-15 * sp.i0e(v)).all()
    w = np.array([-200.0, 85.0, 95.0, 150.0, 3e4], dtype=np.float32)
    for name in ("i0e", "i1e"):
        got = getattr(tinyffn.special, name)(tinyffn.tensor(w, device=device)).numpy()
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, getattr(sp, name)(w.astype(np.float64)), rtol=2.4e-7)


def test_zeta_has_no_gradient_in_x_as_torch(device):
    x = tinyffn.tensor([2.0, 3.0], dtype="float64", device=device, requires_grad=True)
    q = tinyffn.tensor([1.0, 2.0], dtype="float64", device=device, requires_grad=True)
    with pytest.raises(NotImplementedError, match="zeta: the derivative with respect to x"):
        tinyffn.special.zeta(x, q).sum().backward()
    tinyffn.special.zeta(x.detach(), q).sum().backward()
    np.testing.assert_allclose(q.grad.numpy(), [-2 * sp.zeta(3.0, 1.0), -3 * sp.zeta(4.0, 2.0)],
                               rtol=1e-13)


GRADCHECKED = {
    "lgamma": (tinyffn.lgamma, [[-2.5, -0.5, 0.3, 4.0]]),
    "digamma": (tinyffn.digamma, [[-2.5, -0.5, 0.3, 4.0]]),
    "polygamma": (lambda x: tinyffn.polygamma(2, x), [[-1.5, 0.3, 4.0]]),
    "erfc": (tinyffn.erfc, [[-2.0, 0.1, 3.0]]),
    "erfinv": (tinyffn.erfinv, [[-0.9, 0.2, 0.6]]),
    "i0": (tinyffn.i0, [[-3.0, 0.0, 2.0]]),
    "mvlgamma": (lambda x: tinyffn.mvlgamma(x, 3), [[1.2, 2.0, 6.5]]),
    "erfcx": (tinyffn.special.erfcx, [[-2.0, 0.0, 5.0]]),
    "ndtr": (tinyffn.special.ndtr, [[-6.0, 0.0, 2.0]]),
    "log_ndtr": (tinyffn.special.log_ndtr, [[-40.0, -1.5, -0.5, 3.0]]),
    "ndtri": (tinyffn.special.ndtri, [[0.01, 0.5, 0.9]]),
    "i0e": (tinyffn.special.i0e, [[-3.0, -0.2, 2.0]]),
    "i1": (tinyffn.special.i1, [[-3.0, 0.0, 2.0]]),
    "i1e": (tinyffn.special.i1e, [[-3.0, 0.0, 2.0]]),
    "xlog1py": (tinyffn.special.xlog1py, [[0.5, -2.0, 3.0], [0.2, 1.5, -0.5]]),
    "entr": (tinyffn.special.entr, [[0.2, 1.0, 3.0]]),
    "zeta": (lambda q: tinyffn.special.zeta(3.0, q), [[0.5, 1.0, 4.0]]),
    "expit": (tinyffn.special.expit, [[-2.0, 0.5]]),
    "logit": (lambda x: tinyffn.special.logit(x, eps=1e-6), [[0.2, 0.7]]),
    "xlogy": (tinyffn.special.xlogy, [[0.2, 1.5], [0.5, 2.0]]),
    "gammaln": (tinyffn.special.gammaln, [[0.2, 1.5]]),
    "psi": (tinyffn.special.psi, [[0.2, 1.5]]),
    "multigammaln": (lambda x: tinyffn.special.multigammaln(x, 2), [[1.2, 3.0]]),
    "sinc": (tinyffn.special.sinc, [[0.2, 1.5]]),
    "log1p": (tinyffn.special.log1p, [[0.2, 1.5]]),
    "expm1": (tinyffn.special.expm1, [[0.2, -1.5]]),
    "exp2": (tinyffn.special.exp2, [[0.2, -1.5]]),
    "softmax": (lambda x: tinyffn.special.softmax(x, 0), [[0.2, -1.5, 3.0]]),
    "log_softmax": (lambda x: tinyffn.special.log_softmax(x, 0), [[0.2, -1.5, 3.0]]),
    "logsumexp": (lambda x: tinyffn.special.logsumexp(x, 0), [[0.2, -1.5, 3.0]]),
    "erf": (tinyffn.special.erf, [[0.2, -1.5]]),
}


@pytest.mark.parametrize("name", GRADCHECKED)
def test_gradcheck(name, device):
    fn, values = GRADCHECKED[name]
    assert tinyffn.gradcheck(fn, [tinyffn.tensor(v, dtype="float64", device=device,
                                                 requires_grad=True) for v in values])


def test_every_name_of_torch_special_listed_here_is_there():
    assert sorted(tinyffn.special.__all__) == sorted(
        n for n in vars(tinyffn.special) if n in tinyffn.special.__all__)
    torch = pytest.importorskip("torch")
    for name in tinyffn.special.__all__:
        assert hasattr(torch.special, name), name


@pytest.mark.parametrize("call, error, words", [
    ("T.lgamma([1.0])", TypeError, "lgamma: input must be a tinyffn Tensor"),
    ("T.polygamma(-1, x)", ValueError, "polygamma: n must be >= 0, got -1"),
    ("T.polygamma(1.5, x)", TypeError, "polygamma: n must be an int, got float"),
    ("x.polygamma(True)", TypeError, "polygamma: n must be an int, got bool"),
    ("T.mvlgamma(x, 0)", ValueError, "mvlgamma: p must be >= 1, got 0"),
    ("T.special.zeta(x, x[:2])", ValueError, "zeta: shapes (3,) and (2,) cannot be broadcast"),
    ("T.special.xlog1py('a', x)", TypeError, "xlog1py: input must be a tinyffn Tensor or a number"),
    ("T.special.erfcx(None)", TypeError, "erfcx: input must be a tinyffn Tensor"),
])
def test_errors_name_the_op_and_say_what_to_do(call, error, words):
    x = tinyffn.tensor([0.5, 1.0, 2.0], dtype="float64")
    with pytest.raises(error, match=None) as info:
        eval(call, {"T": tinyffn, "x": x})
    assert words in str(info.value), str(info.value)


EXPECTED = {
    'T.lgamma(g)': ('float64', [inf, inf, inf, inf, -0.05624371649767405, 1.2655121234846454, 1.3664317612369763, 690.7755278982137, 0.5723649429247001, 0.0, 0.0, 0.6931471805599453, 7.534364236758733, 857.9336698258575, inf, nan]),
    'g.lgamma()': ('float64', [inf, inf, inf, inf, -0.05624371649767405, 1.2655121234846454, 1.3664317612369763, 690.7755278982137, 0.5723649429247001, 0.0, 0.0, 0.6931471805599453, 7.534364236758733, 857.9336698258575, inf, nan]),
    'T.special.gammaln(g)': ('float64', [inf, inf, inf, inf, -0.05624371649767405, 1.2655121234846454, 1.3664317612369763, 690.7755278982137, 0.5723649429247001, 0.0, 0.0, 0.6931471805599453, 7.534364236758733, 857.9336698258575, inf, nan]),
    'T.lgamma(g.float())': ('float32', [inf, inf, inf, inf, -0.056243717670440674, 1.2655121088027954, 1.366431713104248, inf, 0.5723649263381958, 0.0, 0.0, 0.6931471824645996, 7.534364223480225, 857.9336547851562, inf, nan]),
    'T.lgamma(i)': ('float32', [[inf, 0.0, 0.0], [0.6931471824645996, 1.7917594909667969, 3.178053855895996]]),
    'T.digamma(g)': ('float64', [-inf, inf, nan, nan, 1.1031566406452433, 0.03648997397857639, 3.714139120213528, -9.999999999999999e+299, -1.9635100260214229, -0.5772156649015328, 0.422784335098467, 0.922784335098467, 1.9467574842460869, 5.295815283219911, inf, nan]),
    'g.digamma()': ('float64', [-inf, inf, nan, nan, 1.1031566406452433, 0.03648997397857639, 3.714139120213528, -9.999999999999999e+299, -1.9635100260214229, -0.5772156649015328, 0.422784335098467, 0.922784335098467, 1.9467574842460869, 5.295815283219911, inf, nan]),
    'T.special.psi(g)': ('float64', [-inf, inf, nan, nan, 1.1031566406452433, 0.03648997397857639, 3.714139120213528, -9.999999999999999e+299, -1.9635100260214229, -0.5772156649015328, 0.422784335098467, 0.922784335098467, 1.9467574842460869, 5.295815283219911, inf, nan]),
    'T.digamma(g.float())': ('float32', [-inf, inf, nan, nan, 1.1031566858291626, 0.03648991510272026, 3.714138984680176, -inf, -1.9635108709335327, -0.5772159099578857, 0.4227842092514038, 0.9227842092514038, 1.946757435798645, 5.295815467834473, inf, nan]),
    'T.digamma(i)': ('float32', [[-inf, -0.5772159099578857, 0.4227842092514038], [0.9227842092514038, 1.2561177015304565, 1.5061177015304565]]),
    'T.polygamma(1, gp)': ('float64', [inf, inf, 9.53924664493752, 8.934802200117687, 19.18187964748933, 4.934802202073678, 1.6449340676383375, 0.39493406693194577, 0.14261589669891445, 0.00501252083322917]),
    'gp.polygamma(2)': ('float64', [-inf, -inf, -0.1082040516417282, -0.82879664423432, 123.72136678366235, -16.828796644234316, -2.404113806319188, -0.15411380631918856, -0.02030525253664467, -2.51253124973959e-05]),
    'T.special.polygamma(0, gp)': ('float64', [-inf, inf, 1.1031566406452433, 0.03648997397857639, 3.714139120213528, -1.9635100260214229, -0.5772156649015328, 0.922784335098467, 1.9467574842460869, 5.295815283219911]),
    'T.polygamma(3, gp.float())': ('float32', [inf, inf, 194.74789428710938, 193.40908813476562, 1558.220947265625, 97.40908813476562, 6.493939399719238, 0.11893940716981888, 0.005772436503320932, 2.5188126073771855e-07]),
    'T.polygamma(1, i + 1)': ('float32', [[1.644934058189392, 0.6449340581893921, 0.3949340581893921], [0.2838229537010193, 0.2213229537010193, 0.18132296204566956]]),
    'T.erfc(c)': ('float64', [2.0, 1.8427007929497148, 1.0, 0.15729920705028513, 1.537459794428035e-12, 2.088487583762545e-45, 5.663192408856143e-296, 0.0, 0.0, 2.0]),
    'c.erfc()': ('float64', [2.0, 1.8427007929497148, 1.0, 0.15729920705028513, 1.537459794428035e-12, 2.088487583762545e-45, 5.663192408856143e-296, 0.0, 0.0, 2.0]),
    'T.special.erfc(c.float())': ('float32', [2.0, 1.8427008390426636, 1.0, 0.15729920566082, 1.5374598295869735e-12, 1.401298464324817e-45, 0.0, 0.0, 0.0, 2.0]),
    'T.erfc(i)': ('float32', [[1.0, 0.15729920566082, 0.004677734803408384], [2.2090496713644825e-05, 1.5417258580896487e-08, 1.5374598295869735e-12]]),
    'T.special.erfcx(c)': ('float64', [inf, 5.008980080762283, 1.0, 0.427583576155807, 0.11070463773306861, 0.05614099274382259, 0.02168358485056291, 0.018795888861416754, 0.0, inf]),
    'T.special.erfcx(c.float())': ('float32', [inf, 5.0089802742004395, 1.0, 0.42758357524871826, 0.11070463061332703, 0.05614099279046059, 0.02168358489871025, 0.018795888870954514, 0.0, inf]),
    'T.erfinv(e)': ('float64', [nan, -inf, -2.3267537655135246, -0.2724627147267543, 0.0, 0.4769362762044699, 3.7665625816384707, inf, nan, nan]),
    'e.erfinv()': ('float64', [nan, -inf, -2.3267537655135246, -0.2724627147267543, 0.0, 0.4769362762044699, 3.7665625816384707, inf, nan, nan]),
    'T.special.erfinv(e.float())': ('float32', [nan, -inf, -2.326756238937378, -0.27246272563934326, 0.0, 0.4769362807273865, 3.7439212799072266, inf, nan, nan]),
    'T.erfinv(i - 1)': ('float32', [[-inf, 0.0, inf], [nan, nan, nan]]),
    'T.special.log_ndtr(n)': ('float64', [-804.6084420137539, -203.9171553710973, -15.064998393988727, -1.8410217975227958, -1.841021645009264, -1.1759117615936185, -0.6931471805599453, -0.0013508099647481923, -7.619853024160498e-24, -0.0, -inf, -0.0]),
    'T.special.log_ndtr(n.float())': ('float32', [-804.6084594726562, -203.9171600341797, -15.064998626708984, -1.8410217761993408, -1.8410214185714722, -1.175911784172058, -0.6931471824645996, -0.001350810518488288, -7.619853608132182e-24, -0.0, -inf, -0.0]),
    'T.special.ndtr(n[3:])': ('float64', [0.15865522973438578, 0.15865525393145702, 0.3085375387259869, 0.5, 0.9986501019683699, 1.0, 1.0, 0.0, 1.0]),
    'T.special.ndtr(n[3:].float())': ('float32', [0.15865522623062134, 0.15865525603294373, 0.3085375428199768, 0.5, 0.998650074005127, 1.0, 1.0, 0.0, 1.0]),
    'T.special.ndtri(p)': ('float64', [-inf, -37.0470962993612, -6.361340902404056, -1.9599639845400545, 0.0, 1.959963984540054, 6.361340889697422, inf, nan]),
    'T.special.ndtri(p.float())': ('float32', [-inf, -inf, -6.3613409996032715, -1.9599637985229492, 0.0, 1.959964394569397, inf, inf, nan]),
    'T.i0(b)': ('float64', [781672297823.9775, 4.880792585865024, 1.0634833707413236, 1.0, 1.0634833707413236, 4.880792585865024, 781672297823.9775]),
    'b.i0()': ('float64', [781672297823.9775, 4.880792585865024, 1.0634833707413236, 1.0, 1.0634833707413236, 4.880792585865024, 781672297823.9775]),
    'T.special.i0(b.float())': ('float32', [781672185856.0, 4.880792617797852, 1.063483476638794, 0.9999999403953552, 1.063483476638794, 4.880792617797852, 781672185856.0]),
    'T.special.i0e(b)': ('float64', [0.0731459464822373, 0.24300035416182536, 0.6450352704491501, 1.0, 0.6450352704491501, 0.24300035416182536, 0.0731459464822373]),
    'T.special.i1(b)': ('float64', [-768532038938.9569, -3.9533702174026093, -0.25789430539089636, 0.0, 0.25789430539089636, 3.9533702174026093, 768532038938.9569]),
    'T.special.i1e(b)': ('float64', [-0.07191633059864755, -0.19682671329730084, -0.15642080318487173, 0.0, 0.15642080318487173, 0.19682671329730084, 0.07191633059864755]),
    'T.special.i1e(i)': ('float32', [[0.0, 0.207910418510437, 0.2152692824602127], [0.1968267261981964, 0.1787508726119995, 0.16397225856781006]]),
    'T.mvlgamma(g[8:14], 1)': ('float64', [0.5723649429247001, 0.0, 0.0, 0.6931471805599453, 7.534364236758733, 857.9336698258575]),
    'g[8:14].mvlgamma(3)': ('float64', [inf, inf, 1.5963125911388552, 2.694924879806965, 21.49327233740008, 2567.577518929217]),
    'T.special.multigammaln(g[10:14].float(), 4)': ('float32', [3.885772228240967, 4.2912373542785645, 27.99785804748535, 3419.2900390625]),
    'T.special.xlog1py(c, b[:4].flip(0).repeat(3)[:10])': ('float64', [-0.0, 0.6931471805599453, 0.0, nan, 0.0, -6.931471805599453, nan, nan, nan, inf]),
    'T.special.xlog1py(s, s - 1.5)': ('float64', [0.0, nan, -inf, 0.8109302162163288, nan, inf]),
    'T.special.xlog1py(0.0, n)': ('float64', [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    'T.special.xlog1py(i, 2.0)': ('float32', [[0.0, 1.0986123085021973, 2.1972246170043945], [3.295836925506592, 4.394449234008789, 5.493061542510986]]),
    'T.special.entr(s)': ('float64', [0.0, -inf, 0.34657359027997264, -1.3862943611198906, 6.907755278982137e-298, -inf]),
    'T.special.entr(s.float())': ('float32', [0.0, -inf, 0.3465735912322998, -1.3862943649291992, 0.0, -inf]),
    'T.special.zeta(z, q)': ('float64', [1.6449340668482266, 0.12673386731705663, inf, nan, 256.4636906681982]),
    'T.special.zeta(2.0, q)': ('float64', [1.6449340668482266, 0.6449340668482266, 4.93480220054468, 0.39493406684822646, 17.197329154507113]),
    'T.special.zeta(z.float(), 1.5)': ('float32', [0.9348021745681763, 0.3070961534976959, inf, nan, 0.2348485141992569]),
    'T.special.expit(b)': ('float64', [9.357622968839299e-14, 0.04742587317756678, 0.3775406687981454, 0.5, 0.6224593312018546, 0.9525741268224334, 0.9999999999999065]),
    'T.special.logit(p[:8], eps=1e-6)': ('float64', [-13.815509557963773, -13.815509557963773, -13.815509557963773, -3.6635616461296463, 0.0, 3.6635616461296454, 13.815509557935018, 13.815509557935018]),
    'T.special.xlogy(b.abs(), 2.0)': ('float64', [20.79441541679836, 2.0794415416798357, 0.34657359027997264, 0.0, 0.34657359027997264, 2.0794415416798357, 20.79441541679836]),
    'T.special.sinc(b)': ('float64', [-1.1437264410803267e-16, 3.8981718325193755e-17, 0.6366197723675814, 1.0, 0.6366197723675814, 3.8981718325193755e-17, -1.1437264410803267e-16]),
    'T.special.log1p(b.abs())': ('float64', [3.4339872044851463, 1.3862943611198906, 0.4054651081081644, 0.0, 0.4054651081081644, 1.3862943611198906, 3.4339872044851463]),
    'T.special.expm1(b)': ('float64', [-0.9999999999999064, -0.950212931632136, -0.3934693402873666, 0.0, 0.6487212707001282, 19.085536923187668, 10686474581523.463]),
    'T.special.exp2(b)': ('float64', [9.313225746154785e-10, 0.125, 0.7071067811865476, 1.0, 1.4142135623730951, 8.0, 1073741824.0]),
    'T.special.round(b * 1.3)': ('float64', [-39.0, -4.0, -1.0, 0.0, 1.0, 4.0, 39.0]),
    'T.special.round(b * 1.37, decimals=1)': ('float64', [-41.1, -4.1, -0.7, 0.0, 0.7, 4.1, 41.1]),
    'T.special.softmax(b, 0)': ('float64', [8.756510762677355e-27, 4.658886145093201e-15, 5.6756852326203004e-14, 9.357622968819693e-14, 1.542811203188511e-13, 1.8795288165349696e-12, 0.9999999999978113]),
    'T.special.log_softmax(b, -1)': ('float64', [-60.00000000000219, -33.00000000000219, -30.50000000000219, -30.00000000000219, -29.50000000000219, -27.00000000000219, -2.1886936707436385e-12]),
    'T.special.logsumexp(b, 0)': ('float64', 30.00000000000219),
    'T.special.erf(c)': ('float64', [-1.0, -0.8427007929497149, 0.0, 0.8427007929497149, 0.9999999999984626, 1.0, 1.0, 1.0, 1.0, -1.0]),
    'T.lgamma(h.half())': ('float16', [1.576171875, 1.2880859375, 0.572265625, 0.00571441650390625, -0.12078857421875, 1.7919921875]),
    'T.digamma(h.half())': ('float16', [-2.89453125, -4.2265625, -1.9638671875, -0.59326171875, 0.0364990234375, 1.255859375]),
    'T.erfc(h.half())': ('float16', [1.7109375, 0.7236328125, 0.4794921875, 0.161376953125, 0.033905029296875, 0.0]),
    'T.erfinv(h.half())': ('float16', [-0.8134765625, 0.225341796875, 0.47705078125, 1.8271484375, nan, nan]),
    'T.i0(h.half())': ('float16', [1.1455078125, 1.015625, 1.0634765625, 1.2607421875, 1.646484375, 11.3046875]),
    'T.special.ndtr(h.half())': ('float16', [0.2265625, 0.5986328125, 0.69140625, 0.8388671875, 0.93310546875, 1.0]),
    'T.special.i0e(h.half())': ('float16', [0.54150390625, 0.79150390625, 0.6455078125, 0.468017578125, 0.36767578125, 0.20703125]),
    'T.special.i1(h.half())': ('float16', [-0.402099609375, 0.1259765625, 0.2578125, 0.55810546875, 0.9814453125, 9.7578125]),
    'T.special.i1e(h.half())': ('float16', [-0.18994140625, 0.09808349609375, 0.1563720703125, 0.2073974609375, 0.218994140625, 0.1787109375]),
    'T.special.entr(h.half())': ('float16', [-inf, 0.3466796875, 0.3466796875, 0.00971221923828125, -0.6083984375, -5.546875]),
    'T.polygamma(2, h.half())': ('float16', [-124.5625, -129.375, -16.828125, -2.46875, -0.82861328125, -0.08001708984375]),
}

EXPECTED_GRADS = {
    'T.lgamma(gg) dgg': ('float64', [0.11031566406452434, 0.007297994795715278, -0.5890530078064269, 0.014595989591430478, 0.9733787421230434]),
    'T.digamma(gg) dgg': ('float64', [0.9539246644937521, 1.7869604400235375, 1.4804406606221034, 0.3739208803886687, 0.07130794834945722]),
    'T.polygamma(2, gg) dgg': ('float64', [19.474787621918757, 38.681818206800486, 29.222727310200725, 0.5636364136009747, 0.0028862183282893465]),
    'T.erfc(c[1:8]) dc': ('float64', [0.0, -0.041510749742059476, -0.22567583341910252, -0.12453224922617841, -6.268346612406935e-12, -2.0988281156772085e-44, -1.7682209959597615e-294, -0.0, 0.0, 0.0]),
    'T.special.erfcx(c[:8]) dc': ('float64', [-inf, -2.229267865724016, -0.33851375012865376, -0.10928480591355944, -0.010666394882413166, -0.0033355873314365515, -0.0005829284063688656, -0.0005006683284058511, 0.0, 0.0]),
    'T.erfinv(ge) dge': ('float64', [0.3428042811451842, 0.19090407176810986, 0.33377544569158485, 9.780350589498564]),
    'T.special.ndtri(p[2:7]) dp': ('float64', [0.0, 0.0, 153572369.8196382, 3.4220166160665446, 0.7519884823893, 6.844033232133083, 767861787.0309745, 0.0, 0.0]),
    'T.special.ndtr(gn) dgn': ('float64', [0.0, 2.97343902946859e-07, 0.038855278699767515, 0.14082613070571978, 0.19947114020071635, 0.002659109047162802, 5.386219038694454e-23]),
    'T.special.log_ndtr(gn) dgn': ('float64', [4.0024968847212365, 1.0373007934251701, 0.581603149986763, 0.4564311081472258, 0.3989422804014327, 0.0026627034252753984, 5.386219038694494e-23]),
    'T.i0(gb) dgb': ('float64', [-0.395337021740261, -0.05157886107817927, 0.07736829161726891, 1.581348086961044]),
    'T.special.i0e(gb) dgb': ('float64', [0.0046173640864524525, 0.09772289345285567, -0.1465843401792835, -0.01846945634580981]),
    'T.special.i1(b) db': ('float64', [75605456319.2679, 0.7126005026794975, 0.16430842798785925, 0.2, 0.27384737997976544, 2.1378015080384922, 529238194234.87524]),
    'T.special.i1e(b) db': ('float64', [-0.00011675951363651766, -0.003887052713581818, 0.05273185826836047, 0.2, 0.08788643044726746, -0.011661158140745453, -0.0008173165954556235]),
    'T.mvlgamma(gq + 2, 3) dgq': ('float64', [0.11624309497222862, 0.4097450621684354, 1.1244435706309714, 1.9293313941781407]),
    'T.special.xlog1py(gx, gy) dgx': ('float64', [0.04054651081081644, -0.13862943611198905, 0.32958368660043286, 0.2772588722239781]),
    'T.special.xlog1py(gx, gy) dgy': ('float64', [0.013333333333333336, 0.0, 0.15, 0.0]),
    'T.special.entr(gq) dgq': ('float64', [-0.030685281944005473, -0.2, -0.5748872195622465, -0.9545177444479563]),
    'T.special.zeta(z[:4] + 1.5, gq) dgq': ('float64', [-7.9837097011449405, -1.0173430619844488, -0.048878438692244786, -0.0320158928980458]),
}


def test_entr_and_log_ndtr_run_under_detect_anomaly(device):
    """detect_anomaly stops at the first op whose result holds NaN or inf. entr built a
    tensor of -inf for every x (the x < 0 answer) and so stopped on entr([0.5, 2.0]);
    log_ndtr's untaken branches get harmless inputs, so neither stops on finite answers.
    The gradients are -(ln x + 1) (0 at x = 0, a deliberate difference from torch's inf)
    and φ(x)/Φ(x), from SciPy."""
    x = tinyffn.tensor([0.0, 0.5, 2.0], dtype="float64", device=device, requires_grad=True)
    with tinyffn.detect_anomaly():
        tinyffn.special.entr(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, -(math.log(0.5) + 1), -(math.log(2) + 1)],
                               rtol=1e-14)
    v = np.array([-40.0, -3.0, -1.0, 0.5, 8.0])
    slope = np.exp(-v * v / 2 - 0.5 * np.log(2 * np.pi) - sp.log_ndtr(v))
    for dtype, rtol in (("float64", 1e-12), ("float32", 1e-5)):   # float32's exp overflows
        x = tinyffn.tensor(v, dtype=dtype, device=device, requires_grad=True)   # past 88
        with tinyffn.detect_anomaly():
            tinyffn.special.log_ndtr(x).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), slope, rtol=rtol, atol=1e-30)


def test_entr_of_nan_is_nan_and_xlog1py_of_zero_is_plus_zero(device):
    """As torch 2.13: entr(NaN) = NaN (not the -inf of x < 0); xlog1py(0, y) = +0.0 for
    every y that is not NaN (0 · log1p(-0.5) would be -0.0), also for x = -0.0."""
    t = lambda v: tinyffn.tensor(v, dtype="float64", device=device)    # noqa: E731
    e = tinyffn.special.entr(t([nan, -1.0, 0.0])).tolist()
    assert math.isnan(e[0]) and e[1:] == [-inf, 0.0]
    y = tinyffn.special.xlog1py(t([0.0, -0.0, 0.0, 0.0]), t([-0.5, 2.0, inf, nan])).numpy()
    assert y[:3].tolist() == [0.0, 0.0, 0.0] and not np.signbit(y[:3]).any()
    assert math.isnan(y[3])


def test_lgamma_of_minus_inf_is_plus_inf_as_torch(device):
    """torch.lgamma(-inf) = +inf, as C's lgamma and Python's math.lgamma; SciPy's gammaln
    gives -inf, which tinyffn passed on, in every float dtype."""
    assert math.lgamma(-inf) == inf
    for dtype in ("float64", "float32") if device == "strict" else ("float64", "float32",
                                                                      "float16"):
        x = tinyffn.tensor([-inf, inf, -2.5], dtype=dtype, device=device)
        y = tinyffn.lgamma(x).tolist()
        assert y[:2] == [inf, inf]
        assert y[2] == pytest.approx(math.lgamma(-2.5), rel=1e-3)


def test_float32_erfinv_is_correctly_rounded(device):
    """float32 erfinv is SciPy's float64 erfinv rounded once, as torch's (0.5 ulp); SciPy's
    own float32 loop was up to 2.9 ulps off (erfinv(-0.8337192) among 22,000 of these)."""
    e = np.linspace(-0.999999, 0.999999, 20001).astype(np.float32)
    got = tinyffn.erfinv(tinyffn.tensor(e, device=device)).numpy()
    assert got.dtype == np.float32
    want = sp.erfinv(e.astype(np.float64))
    ulps = np.abs(got - want) / np.spacing(np.abs(want.astype(np.float32)))
    assert ulps.max() <= 0.5 + 1e-9
