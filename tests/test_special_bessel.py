"""tinyffn.special's Bessel functions, Airy Ai, the incomplete gamma functions
(ops/bessel.py and special.py) and the orthogonal polynomials (special_polynomials.py).

References: SciPy in float64 (``j0``, ``k0e``, ``gammainc``, ``eval_chebyt``, ...), the
closed forms of Chebyshev V and W (cos((n+1/2)θ) / cos(θ/2), sin((n+1/2)θ) / sin(θ/2) at
x = cos θ), NumPy's polynomial modules at integer points, gradcheck, and PyTorch 2.13 live
where it is installed, with its deliberate differences spelled out.
"""
import math

import numpy as np
import pytest
from scipy import special as sp

import tinyffn
from tinyffn import special as TS
from tinyffn.backend import dtype_name

inf, nan = math.inf, math.nan
_RUNTIME = pytest.mark.filterwarnings("ignore::RuntimeWarning")    # poles, as SciPy

# through 0 and -0, negatives (NaN for Y and K), tiny, the polynomial-to-asymptotic
# switch points of the Cephes codes (2, 5, 8), large (past float32's exp at 88, float64's
# at 709), the infinities and NaN
X = [-50.0, -3.0, -0.5, -1e-3, -0.0, 0.0, 1e-300, 1e-8, 0.3, 1.0, 2.0, 2.5, 5.0, 8.0, 10.0,
     90.0, 100.0, 750.0, 1e5, inf, -inf, nan]

REFERENCE = {
    "bessel_j0": sp.j0, "bessel_j1": sp.j1, "bessel_y0": sp.y0, "bessel_y1": sp.y1,
    "modified_bessel_i0": sp.i0, "modified_bessel_i1": sp.i1,
    "modified_bessel_k0": sp.k0, "modified_bessel_k1": sp.k1,
    "scaled_modified_bessel_k0": sp.k0e, "scaled_modified_bessel_k1": sp.k1e,
    "spherical_bessel_j0": lambda x: sp.spherical_jn(0, x),
    "airy_ai": lambda x: sp.airy(x)[0],
}


def _close(got, want, rtol, atol):
    """|got - want| <= rtol |want| + atol entry by entry (rtol may be an array), NaN equal to
    NaN, infinities equal."""
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        ok = (got == want) | (np.isnan(got) & np.isnan(want)) \
            | (np.abs(got - want) <= rtol * np.abs(want) + atol)
    assert ok.all(), f"got {got[~ok]}, want {want[~ok]}"


def _t(v, device, dtype="float64", **kw):
    return tinyffn.tensor(v, dtype=dtype, device=device, **kw)


@_RUNTIME
@pytest.mark.parametrize("name", REFERENCE)
def test_values_are_scipys_in_float64_and_float32(name, device):
    """float64: SciPy's to 1e-14 (spherical_bessel_j0 is composed: 4e-16 · |x| more, sin's
    argument reduction); float32: SciPy's float64 value rounded, to 4 ulp; integers compute
    in float32. On a GPU CuPy calls CUDA's j0, j1, y0, y1, whose error the CUDA C++
    Programming Guide bounds by 7 ulp (9 in float32) for |x| < 8 and otherwise by 5e-12
    (2.2e-6 in float32) absolute: those tolerances there, plus 1e-13 relative (1e-5 in
    float32) for the rest of the GPU's codes (CuPy's Cephes ports, CUDA's exp and log)."""
    if name == "airy_ai" and device == "cuda":
        pytest.skip("cupyx.scipy.special has no airy: test_airy_ai_has_no_gradient_and_refuses_on_a_gpu")
    fn, ref = getattr(TS, name), REFERENCE[name]
    v = np.array(X)
    got = fn(_t(X, device)).numpy()
    assert got.dtype == np.float64
    want = ref(v)
    rtol = 1e-14 + (4e-16 * np.abs(np.nan_to_num(v)) if name == "spherical_bessel_j0" else 0)
    gpu, jy = device == "cuda", name.startswith("bessel_")
    _close(got, want, rtol + 1e-13 * gpu, 5e-12 if gpu and jy else 1e-300)
    w = v.astype(np.float32)
    got32 = fn(_t(w, device, "float32")).numpy()
    assert got32.dtype == np.float32
    with np.errstate(all="ignore"):
        want32 = ref(w.astype(np.float64)).astype(np.float32)
    _close(got32, want32, 1e-5 if gpu else 4.8e-7, 2.2e-6 if gpu and jy else 1e-37)
    assert dtype_name(fn(tinyffn.tensor([1, 2], device=device)).dtype) == "float32"


@_RUNTIME
@pytest.mark.parametrize("name", REFERENCE)
def test_values_match_torch_where_torch_is_right(name):
    """PyTorch 2.13's own float64 codes agree with SciPy to about 1e-10 (its bessel_j0(10)
    is 3e-11 off, airy_ai(-3) 5e-9): compared to 1e-8 here. Its float32 ones are further
    off far out (bessel_j0(10) is 3e-11 from SciPy's, 2e-8 off at
    most on this grid, near zeros; bessel_j0(1e5) in float32: -0.0017124, the true -0.0017192), so float32
    is compared below |x| = 20; and its float32 modified_bessel_i0(90) and i1(90) are inf,
    where I₀(90) = 5.14e37 fits float32: tinyffn's is finite (a deliberate difference)."""
    torch = pytest.importorskip("torch")
    fn, tfn = getattr(TS, name), getattr(torch.special, name)
    got = fn(_t(X, "cpu")).numpy()
    np.testing.assert_allclose(got, tfn(torch.tensor(X, dtype=torch.float64)).numpy(),
                               rtol=1e-8, atol=2e-8)
    near = [v for v in X if not abs(v) > 20]
    got32 = fn(_t(near, "cpu", "float32")).numpy()
    want32 = tfn(torch.tensor(near, dtype=torch.float32)).numpy()
    np.testing.assert_allclose(got32, want32, rtol=2e-6, atol=1e-37)
    if name in ("modified_bessel_i0", "modified_bessel_i1"):
        assert math.isinf(tfn(torch.tensor([90.0])).item())
        assert fn(_t([90.0], "cpu", "float32")).item() == pytest.approx(5.1e37, rel=0.01)


def test_scaled_k_stays_finite_far_out(device):
    """exp(x) K₀(x) and exp(x) K₁(x) past x = 709 (88 in float32), where CuPy 13's
    exp(x) * k0(x) is inf or NaN: the asymptotic expansion there, to SciPy's 1e-15."""
    v = np.array([650.0, 700.0, 701.0, 750.0, 1e4, 1e300])
    rtol = 1e-13 if device == "cuda" else 1e-15          # below 700: the GPU's exp and k0
    for name, ref in (("scaled_modified_bessel_k0", sp.k0e), ("scaled_modified_bessel_k1", sp.k1e)):
        np.testing.assert_allclose(getattr(TS, name)(_t(v, device)).numpy(), ref(v),
                                   rtol=rtol, atol=0)
        w = np.array([80.0, 100.0, 1e4], dtype=np.float32)
        got = getattr(TS, name)(_t(w, device, "float32")).numpy()
        np.testing.assert_allclose(got, ref(w.astype(np.float64)), rtol=4.8e-7)


GRADCHECKED = {
    "bessel_j0": [-3.0, 0.0, 2.5], "bessel_j1": [-3.0, 0.0, 2.5], "bessel_y0": [0.3, 2.5, 9.0],
    "bessel_y1": [0.3, 2.5, 9.0], "modified_bessel_k0": [0.3, 2.5, 9.0],
    "modified_bessel_k1": [0.3, 2.5, 9.0], "scaled_modified_bessel_k0": [0.3, 2.5, 9.0],
    "scaled_modified_bessel_k1": [0.3, 2.5, 9.0], "modified_bessel_i0": [-2.0, 0.5],
    "modified_bessel_i1": [-2.0, 0.0, 0.5], "spherical_bessel_j0": [-7.0, -0.2, 0.0, 0.45, 0.55],
}


@pytest.mark.parametrize("name", GRADCHECKED)
def test_gradcheck(name, device):
    """PyTorch gives these no gradient; tinyffn's are J₀' = -J₁, K₀' = -K₁, ... (checked
    against central differences)."""
    assert tinyffn.gradcheck(getattr(TS, name), [_t(GRADCHECKED[name], device,
                                                    requires_grad=True)])


def test_spherical_bessel_j0_keeps_its_gradient_near_zero(device):
    """d/dx sin(x)/x = cos(x)/x - sin(x)/x² cancels near 0 (at x = 1e-6 the quotient's
    derivative is all rounding): the Taylor series gives -x/3 + x³/30 to the last digit."""
    x = _t([1e-6, -1e-3, 0.4999], device, requires_grad=True)
    y = TS.spherical_bessel_j0(x)
    y.sum().backward()
    v = x.numpy()
    np.testing.assert_allclose(y.numpy(), np.sin(v) / v, rtol=2e-16)
    series = -v / 3 + v ** 3 / 30 - v ** 5 / 840                   # to 1e-20 for |x| <= 1e-3
    want = np.where(np.abs(v) < 0.01, series, np.cos(v) / v - np.sin(v) / v ** 2)
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-12)


@_RUNTIME
def test_gammainc_values_and_x_gradient(device):
    """P(a, x) and Q(a, x) are SciPy's (Q computed directly: Q(5, 40) = 5e-13, 1 - P
    would keep 3 digits); d/dx P = x^(a-1) e^(-x) / Γ(a), -that for Q, 1 at x = 0 for
    a = 1 (PyTorch's 0 · ln 0 gives NaN there: a deliberate difference); no gradient in
    a, as PyTorch: backward raises."""
    a_v = [0.5, 1.0, 2.0, 5.0, 0.0, -1.0, 30.0, 1.0, 3.0]
    x_v = [0.0, 0.5, 3.0, 40.0, 1.0, 1.0, 1e-3, 0.0, inf]
    a, rtol = _t(a_v, device), 1e-12 if device == "cuda" else 1e-14     # CuPy's own codes
    np.testing.assert_allclose(TS.gammainc(a, _t(x_v, device)).numpy(), sp.gammainc(a_v, x_v),
                               rtol=rtol, atol=0)
    np.testing.assert_allclose(TS.gammaincc(a, _t(x_v, device)).numpy(),
                               sp.gammaincc(a_v, x_v), rtol=rtol, atol=0)
    av, xv = np.array([0.5, 1.0, 2.5, 1.0, 3.0]), np.array([0.7, 2.0, 4.0, 0.0, 0.0])
    x = _t(xv, device, requires_grad=True)
    for fn, sign in ((TS.gammainc, 1), (TS.gammaincc, -1)):
        x.grad = None
        fn(_t(av, device), x).sum().backward()
        want = sign * np.exp(sp.xlogy(av - 1, xv) - xv - sp.gammaln(av))
        np.testing.assert_allclose(x.grad.numpy(), want, rtol=rtol * 10)
        assert x.grad.tolist()[3:] == [sign * 1.0, 0.0]
        assert tinyffn.gradcheck(lambda t: fn(_t([0.5, 2.0], device), t),
                                 [_t([0.3, 2.2], device, requires_grad=True)])
    a = _t([2.0], device, requires_grad=True)
    with pytest.raises(NotImplementedError, match="gammainc: the derivative with respect to a"):
        TS.gammainc(a, _t([1.0], device)).sum().backward()
    assert dtype_name(TS.gammainc(tinyffn.tensor([1, 2], device=device), 1.0).dtype) == "float32"


def test_gammainc_gradient_in_x_is_torchs():
    torch = pytest.importorskip("torch")
    av, xv = [0.5, 1.0, 2.5, 4.0], [0.7, 2.0, 4.0, 0.1]
    x = _t(xv, "cpu", requires_grad=True)
    tx = torch.tensor(xv, dtype=torch.float64, requires_grad=True)
    for fn, tfn in ((TS.gammainc, torch.special.gammainc),
                    (TS.gammaincc, torch.special.gammaincc)):
        x.grad, tx.grad = None, None
        y, ty = fn(_t(av, "cpu"), x), tfn(torch.tensor(av, dtype=torch.float64), tx)
        np.testing.assert_allclose(y.numpy(), ty.detach().numpy(), rtol=1e-13)
        (y * _t([1.0, -2.0, 0.5, 3.0], "cpu")).sum().backward()
        (ty * torch.tensor([1.0, -2.0, 0.5, 3.0], dtype=torch.float64)).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
    with pytest.raises(NotImplementedError):        # torch refuses d/da as well
        ta = torch.tensor([2.0], dtype=torch.float64, requires_grad=True)
        torch.special.gammainc(ta, torch.tensor([1.0], dtype=torch.float64)).backward()


def test_airy_ai_has_no_gradient_and_refuses_on_a_gpu(device):
    """As PyTorch: Ai's result does not require grad. cupyx.scipy.special (CuPy 13) has no
    Airy function: on a GPU it raises, saying to compute on the CPU."""
    x = _t([-3.0, 0.0, 1.5], device, requires_grad=True)
    if device == "cuda":
        with pytest.raises(NotImplementedError, match="airy_ai: the cuda backend has no "
                           "Airy function .*compute it on the CPU"):
            TS.airy_ai(x)
        return
    y = TS.airy_ai(x)
    assert not y.requires_grad
    np.testing.assert_allclose(y.numpy(), sp.airy([-3.0, 0.0, 1.5])[0], rtol=1e-15)



def test_gammainc_x_gradient_sums_over_broadcast_a(device):
    """x (a scalar) broadcast against a (3,): dL/dx sums the three densities (a mutation
    audit found the sum unchecked)."""
    av = np.array([0.5, 2.0, 3.5])
    x = _t(1.5, device, requires_grad=True)
    TS.gammainc(_t(av, device), x).sum().backward()
    assert x.grad.shape == ()
    want = np.exp(sp.xlogy(av - 1, 1.5) - 1.5 - sp.gammaln(av)).sum()
    np.testing.assert_allclose(x.grad.item(), want, rtol=1e-13)

# ----------------------------------------------------------------------------- polynomials
def _chebyshev_vw(kind):
    """V_n and W_n on (-1, 1) from x = cos θ: cos((n+1/2)θ) / cos(θ/2) and
    sin((n+1/2)θ) / sin(θ/2)."""
    def f(n, x):
        t = np.arccos(x)
        if kind == "v":
            return np.cos((n + 0.5) * t) / np.cos(t / 2)
        return np.sin((n + 0.5) * t) / np.sin(t / 2)
    return f


POLYNOMIALS = {     # name: (reference p(n, x) in float64, the x it holds on)
    "chebyshev_polynomial_t": (sp.eval_chebyt, None),
    "chebyshev_polynomial_u": (sp.eval_chebyu, None),
    "chebyshev_polynomial_v": (_chebyshev_vw("v"), (-1, 1)),
    "chebyshev_polynomial_w": (_chebyshev_vw("w"), (-1, 1)),
    "shifted_chebyshev_polynomial_t": (sp.eval_sh_chebyt, None),
    "shifted_chebyshev_polynomial_u": (sp.eval_sh_chebyu, None),
    "shifted_chebyshev_polynomial_v": (lambda n, x: _chebyshev_vw("v")(n, 2 * x - 1), (0, 1)),
    "shifted_chebyshev_polynomial_w": (lambda n, x: _chebyshev_vw("w")(n, 2 * x - 1), (0, 1)),
    "hermite_polynomial_h": (sp.eval_hermite, None),
    "hermite_polynomial_he": (sp.eval_hermitenorm, None),
    "laguerre_polynomial_l": (sp.eval_laguerre, None),
    "legendre_polynomial_p": (sp.eval_legendre, None),
}
PX = np.array([-3.0, -1.0, -0.7, -0.0, 0.2, 0.5, 0.9, 1.0, 1.3, 4.0])
PN = np.array([0, 1, 2, 3, 5, 7, 10, 25])


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_values(name, device):
    """Every (n, x) pair of a grid at once (n a column, x a row: broadcasting), against
    SciPy's eval_* (or the closed form of V and W on their interval) to 1e-12 of the
    polynomial's scale; n < 0 gives 0; no gradient, as PyTorch."""
    ref, interval = POLYNOMIALS[name]
    x = PX if interval is None else PX[(PX > interval[0]) & (PX < interval[1])]
    xt = _t(x, device, requires_grad=True)
    y = getattr(TS, name)(xt, tinyffn.tensor(PN[:, None], device=device))
    assert y.shape == (len(PN), len(x)) and dtype_name(y.dtype) == "float64"
    assert not y.requires_grad
    want = ref(PN[:, None], x[None, :])
    scale = np.maximum(1.0, np.abs(want))
    assert (np.abs(y.numpy() - want) <= 1e-12 * scale).all(), (y.numpy(), want)
    assert getattr(TS, name)(xt, -2).tolist() == [0.0] * len(x)


def test_polynomials_are_exact_at_integers():
    """At integer x the recurrences of T, H and He are integer arithmetic: T₁₀, H₁₀, He₁₀
    at -2, 0, 1, 3 equal NumPy's power series (cheb2poly, ...: integer coefficients, summed
    exactly below 2^53); L₁₀ and P₁₀ (rational) NumPy's lagval and legval."""
    from numpy.polynomial import chebyshev, hermite, hermite_e, laguerre, legendre, polynomial
    x = np.array([-2.0, 0.0, 1.0, 3.0])
    unit = np.eye(11)[10]                                   # the coefficients of p₁₀
    for name, to_power_series in (("chebyshev_polynomial_t", chebyshev.cheb2poly),
                                  ("hermite_polynomial_h", hermite.herm2poly),
                                  ("hermite_polynomial_he", hermite_e.herme2poly)):
        want = polynomial.polyval(x, to_power_series(unit))
        assert getattr(TS, name)(_t(x, "cpu"), 10).tolist() == want.tolist(), name
    for name, val in (("laguerre_polynomial_l", laguerre.lagval),
                      ("legendre_polynomial_p", legendre.legval)):
        np.testing.assert_allclose(getattr(TS, name)(_t(x, "cpu"), 10).numpy(), val(x, unit),
                                   rtol=1e-14)


def test_polynomial_arguments_as_torchs():
    """n a number or a tensor, truncated toward zero (2.7 is 2, -0.5 is 0); the result dtype
    of the two arguments, integers in float32; a number for input next to a tensor n."""
    x32 = tinyffn.tensor([0.0, 1.0, 2.0])
    assert TS.chebyshev_polynomial_t(x32, 2.7).tolist() == [-1.0, 1.0, 7.0]
    assert TS.chebyshev_polynomial_t(x32, tinyffn.tensor([2.7, -0.5, 1.9])).tolist() == [
        -1.0, 1.0, 2.0]
    assert TS.chebyshev_polynomial_t(x32, 3).dtype == tinyffn.float32
    assert TS.chebyshev_polynomial_t(x32, tinyffn.tensor([3.0], dtype="float64")).dtype == \
        tinyffn.float64
    assert TS.hermite_polynomial_h(tinyffn.tensor([1, 2]), 3).dtype == tinyffn.float32
    assert TS.chebyshev_polynomial_t(2.0, tinyffn.tensor([2, 3])).tolist() == [7.0, 26.0]
    assert TS.legendre_polynomial_p(tinyffn.tensor([nan]), tinyffn.tensor([0, 1, 5])).tolist()[0] == 1.0
    assert all(map(math.isnan, TS.legendre_polynomial_p(tinyffn.tensor([nan]), 5).tolist()))


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomials_match_torch(name):
    """PyTorch 2.13's values over the grid, with n from -2 to 30 and a truncated float n.
    NaN x is left out: torch's U, W, Laguerre, Legendre and the shifted ones can give
    leftover memory there (legendre_polynomial_p(nan, 5): 0.0, 4.6e-41, -5.5e303), tinyffn NaN."""
    torch = pytest.importorskip("torch")
    n = np.array([-2, -1, 0, 1, 2, 3, 7, 9, 12, 30])[:, None]
    got = getattr(TS, name)(_t(PX, "cpu"), tinyffn.tensor(n)).numpy()
    want = getattr(torch.special, name)(torch.tensor(PX), torch.tensor(n)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-12)
    got = getattr(TS, name)(_t(PX, "cpu", "float32"), 4.9).numpy()
    want = getattr(torch.special, name)(torch.tensor(PX, dtype=torch.float32), 4.9).numpy()
    assert got.dtype == want.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("call, error, words", [
    ("T.special.bessel_j0([1.0])", TypeError, "bessel_j0: input must be a tinyffn Tensor"),
    ("T.special.airy_ai(None)", TypeError, "airy_ai: input must be a tinyffn Tensor"),
    ("T.special.gammainc(x, x[:2])", ValueError,
     "gammainc: shapes (3,) and (2,) cannot be broadcast"),
    ("T.special.gammaincc('a', x)", TypeError, "gammaincc: input must be a tinyffn Tensor or a number"),
    ("T.special.chebyshev_polynomial_t(2.0, 3)", TypeError,
     "chebyshev_polynomial_t: input or n must be a tinyffn Tensor"),
    ("T.special.hermite_polynomial_h(x, '3')", TypeError,
     "hermite_polynomial_h: n must be a tinyffn Tensor or a number, got str"),
    ("T.special.legendre_polynomial_p(x, x[:2])", ValueError,
     "legendre_polynomial_p: shapes (3,) (input) and (2,) (n) cannot be broadcast"),
    ("T.special.laguerre_polynomial_l(x, math.inf)", ValueError,
     "laguerre_polynomial_l: n must be finite, got inf"),
])
def test_errors_name_the_op_and_say_what_to_do(call, error, words):
    """torch refuses these too (a list, shapes that do not broadcast, two numbers, a
    string n; an infinite n it casts to an undefined int)."""
    x = tinyffn.tensor([0.5, 1.0, 2.0], dtype="float64")
    with pytest.raises(error) as info:
        eval(call, {"T": tinyffn, "x": x, "math": math})
    assert words in str(info.value), str(info.value)
