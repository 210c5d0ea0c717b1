"""``tinyffn.special``: the names of ``torch.special`` (PyTorch 2.13), most used first.

Where a tinyffn function computes the same thing (``expit`` is ``sigmoid``, ``gammaln``
is ``lgamma``, ``xlogy``, ``logit``, ``sinc``, ``softmax``, ...), the name here calls it.
The rest are the primitives of :mod:`tinyffn.ops.special_functions` (``erfcx``,
``ndtri``, ``i0e``, ``i1``, ``i1e``, ``zeta``) and :mod:`tinyffn.ops.bessel` (``bessel_j0``,
..., ``gammainc``; PyTorch gives these no gradient, tinyffn does, and gammainc's in x as
PyTorch's), or are composed of them, each in a frame of its name, so that their gradients
follow (``airy_ai`` and the orthogonal polynomials of :mod:`tinyffn.special_polynomials`
have none, as in PyTorch: their results do not require grad):

* ``ndtr(x)`` = erfc(-x/√2) / 2, SciPy's formula: no cancellation in either tail (torch
  2.13's ndtr(-20) is 0.0 in float64, the true value 2.75e-89; its float32 ndtr(-5) is 4%
  high);
* ``log_ndtr(x)`` = log(erfcx(-x/√2) / 2) - x²/2 for x < -1, where ndtr underflows
  (log_ndtr(-40) = -804.6, log(ndtr(-40)) = -inf), and log1p(-erfc(x/√2) / 2) elsewhere
  (PyTorch's two branches), with the untaken branch's input replaced by a harmless value
  (the double where), so its inf does not reach the gradient;
* ``xlog1py`` and ``entr`` as :func:`tinyffn.xlogy` is built;
* ``spherical_bessel_j0(x)`` = sin(x) / x, by its Taylor series below |x| = 1/2, where
  the quotient's derivative cos(x)/x - sin(x)/x² cancels.

Integers and bools compute in float32, float16 in float32 and rounded once, as PyTorch.
"""
from __future__ import annotations

import math

from . import torch_functions as _tf
from .arguments import tensor_arg
from .ops.bessel import Gammainc, Gammaincc, J0, J1, K0, K0e, K1, K1e, Y0, Y1
from .ops.special_functions import Erfcx, I0e, I1, I1e, Ndtri, Zeta
from .special_polynomials import (chebyshev_polynomial_t, chebyshev_polynomial_u,
                                  chebyshev_polynomial_v, chebyshev_polynomial_w,
                                  hermite_polynomial_h, hermite_polynomial_he,
                                  laguerre_polynomial_l, legendre_polynomial_p,
                                  shifted_chebyshev_polynomial_t,
                                  shifted_chebyshev_polynomial_u,
                                  shifted_chebyshev_polynomial_v,
                                  shifted_chebyshev_polynomial_w)
from .torch_math import _binary, _composed
from .torch_math import _float as _tf_float
from .torch_special import digamma, erfc, erfinv, i0, lgamma, mvlgamma, polygamma

_SQRT_HALF = math.sqrt(0.5)

__all__ = ["erf", "erfc", "erfcx", "erfinv", "expit", "logit", "xlogy", "xlog1py", "gammaln",
           "digamma", "psi", "polygamma", "multigammaln", "log_ndtr", "ndtr", "ndtri", "i0",
           "i0e", "i1", "i1e", "sinc", "entr", "log1p", "expm1", "exp2", "round", "softmax",
           "log_softmax", "logsumexp", "zeta", "gammainc", "gammaincc", "bessel_j0",
           "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
           "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
           "scaled_modified_bessel_k1", "spherical_bessel_j0", "airy_ai",
           "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
           "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
           "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
           "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
           "laguerre_polynomial_l", "legendre_polynomial_p"]


# ----------------------------------------------------------------------------- error function
def erf(input):
    """erf(x), as ``torch.special.erf``: :func:`tinyffn.erf`."""
    return _tf.erf(input)


def erfcx(input):
    """exp(x²) erfc(x), as ``torch.special.erfcx``: finite where erfc underflows
    (erfcx(30) = 0.0188). The Erfcx primitive; gradient 2x erfcx(x) - 2/sqrt(pi)."""
    return Erfcx.apply(tensor_arg("erfcx", "input", input))


def ndtr(input):
    """Φ(x), the standard normal CDF, as ``torch.special.ndtr``: erfc(-x/√2) / 2, to the
    last digits in the left tail, where torch's float64 ndtr(-20) is 0.0 (true: 2.75e-89).
    Gradient φ(x) = exp(-x²/2) / sqrt(2π), through erfc's."""
    return _composed("ndtr", input, lambda x: erfc(x * -_SQRT_HALF) * 0.5)


def log_ndtr(input):
    """log Φ(x), as ``torch.special.log_ndtr``, accurate in the far left tail
    (log_ndtr(-40) = -804.608, where log(ndtr(-40)) is -inf): log(erfcx(-x/√2)/2) - x²/2
    for x < -1, log1p(-erfc(x/√2)/2) elsewhere. Gradient φ(x) / Φ(x) through them."""
    from .composed import where     # composed.py imports tensor.py, which imports this

    def fn(x):
        left = x < -1.0                                     # bool, outside the graph
        xl = where(left, x, -1.0)                           # harmless where not taken:
        xr = where(left, 0.0, x)                            # erfcx(+28) would overflow
        tail = (erfcx(xl * -_SQRT_HALF) * 0.5).log() - xl * xl * 0.5
        return where(left, tail, (erfc(xr * _SQRT_HALF) * -0.5).log1p())
    return _composed("log_ndtr", input, fn)


def ndtri(input):
    """Φ⁻¹(x), the inverse of ndtr on (0, 1), as ``torch.special.ndtri``, accurate in both
    tails (±inf at 0 and 1). The Ndtri primitive; gradient sqrt(2π) exp(ndtri(x)²/2)."""
    return Ndtri.apply(tensor_arg("ndtri", "input", input))


# ----------------------------------------------------------------------------- logistic
def expit(input):
    """1 / (1 + exp(-x)), as ``torch.special.expit``: :func:`tinyffn.sigmoid`."""
    return _tf.sigmoid(input)


def logit(input, eps=None):
    """log(p / (1 - p)), p clamped to [eps, 1 - eps] if eps is given, as
    ``torch.special.logit``: :func:`tinyffn.logit`."""
    from .torch_stats import logit as _logit
    return _logit(input, eps)


def xlogy(input, other):
    """x · log(y), 0 where x = 0, as ``torch.special.xlogy``: :func:`tinyffn.xlogy`."""
    from .torch_math import xlogy as _xlogy
    return _xlogy(input, other)


def xlog1py(input, other):
    """x · log1p(y), and 0 where x = 0 (unless y is NaN), as ``torch.special.xlog1py``.
    Gradients log1p(y) and x / (1 + y), PyTorch's, except at x = 0, y = -1, where d/dy is
    0 here (NaN in PyTorch), as :func:`tinyffn.xlogy`'s at x = y = 0."""
    from .composed import where

    def fn(x, y):
        zero = (x == 0) & ~y.isnan()
        ys = where(zero & ((y <= -1) | y.isinf()), 0.0, y)  # log1p y = 0 where 0 · it is not 0
        xl = x * ys.log1p()
        return where(zero, xl + 0.0, xl)                    # + 0.0: no -0.0
    return _binary("xlog1py", input, other, fn, ("input", "other"), widen=False)


def entr(input):
    """-x ln x for x > 0, 0 at x = 0, -inf for x < 0, as ``torch.special.entr``. Gradient
    -(ln x + 1) for x > 0; 0 at x = 0 and for x < 0, where PyTorch's is inf and NaN."""
    from .composed import where

    def fn(x):
        positive = x > 0
        xs = where(positive, x, 1.0)                        # log(0) = -inf kept out
        inside = where(x < 0, -math.inf, 0.0)   # -inf only where it is the answer, so that
        return where(positive, -(xs * xs.log()), where(x.isnan(), x, inside))  # detect_anomaly
                                                            # does not stop an entr of x >= 0
    return _composed("entr", input, fn)


# ----------------------------------------------------------------------------- gamma family
def gammaln(input):
    """ln |Γ(x)|, as ``torch.special.gammaln``: :func:`tinyffn.lgamma`."""
    return lgamma(input)


def psi(input):
    """ψ(x), as ``torch.special.psi``: :func:`tinyffn.digamma`."""
    return digamma(input)


def multigammaln(input, p):
    """The multivariate log-gamma, as ``torch.special.multigammaln``:
    :func:`tinyffn.mvlgamma`."""
    return mvlgamma(input, p)


def zeta(input, other):
    """The Hurwitz zeta function ζ(x, q) = Σₖ (k + q)^(-x), as ``torch.special.zeta``
    (x = input, q = other, broadcasting; either may be a number). The Zeta primitive:
    gradient -x ζ(x + 1, q) for q; none for x, as in PyTorch (backward raises)."""
    return _binary("zeta", input, other, lambda x, q: Zeta.apply(x, q), ("input", "other"))


# ----------------------------------------------------------------------------- Bessel
def i0e(input):
    """exp(-|x|) I₀(x), as ``torch.special.i0e``. Gradient i1e(x) - sign(x) i0e(x)."""
    return I0e.apply(tensor_arg("i0e", "input", input))


def i1(input):
    """I₁(x), as ``torch.special.i1``. Gradient i0(x) - i1(x)/x (1/2 at 0)."""
    return I1.apply(tensor_arg("i1", "input", input))


def i1e(input):
    """exp(-|x|) I₁(x), as ``torch.special.i1e``."""
    return I1e.apply(tensor_arg("i1e", "input", input))


def _unary(op: str, fn, input):
    return fn.apply(tensor_arg(op, "input", input))


def bessel_j0(input):
    """J₀(x), the Bessel function of the first kind of order 0, as
    ``torch.special.bessel_j0``. The J0 primitive; gradient -J₁(x) (none in PyTorch)."""
    return _unary("bessel_j0", J0, input)


def bessel_j1(input):
    """J₁(x), as ``torch.special.bessel_j1``. The J1 primitive; gradient J₀(x) - J₁(x)/x."""
    return _unary("bessel_j1", J1, input)


def bessel_y0(input):
    """Y₀(x), the Bessel function of the second kind of order 0 (-inf at 0, NaN for x < 0),
    as ``torch.special.bessel_y0``. The Y0 primitive; gradient -Y₁(x)."""
    return _unary("bessel_y0", Y0, input)


def bessel_y1(input):
    """Y₁(x), as ``torch.special.bessel_y1``. The Y1 primitive; gradient Y₀(x) - Y₁(x)/x."""
    return _unary("bessel_y1", Y1, input)


def modified_bessel_i0(input):
    """I₀(x), as ``torch.special.modified_bessel_i0``: :func:`tinyffn.i0`."""
    return i0(input)


def modified_bessel_i1(input):
    """I₁(x), as ``torch.special.modified_bessel_i1``: :func:`i1`."""
    return i1(input)


def modified_bessel_k0(input):
    """K₀(x), the modified Bessel function of the second kind of order 0 (inf at 0, NaN for
    x < 0), as ``torch.special.modified_bessel_k0``. The K0 primitive; gradient -K₁(x)."""
    return _unary("modified_bessel_k0", K0, input)


def modified_bessel_k1(input):
    """K₁(x), as ``torch.special.modified_bessel_k1``. The K1 primitive; gradient
    -K₀(x) - K₁(x)/x."""
    return _unary("modified_bessel_k1", K1, input)


def scaled_modified_bessel_k0(input):
    """exp(x) K₀(x), as ``torch.special.scaled_modified_bessel_k0``: finite where K₀
    underflows (about sqrt(π / 2x) far out). The K0e primitive."""
    return _unary("scaled_modified_bessel_k0", K0e, input)


def scaled_modified_bessel_k1(input):
    """exp(x) K₁(x), as ``torch.special.scaled_modified_bessel_k1``. The K1e primitive."""
    return _unary("scaled_modified_bessel_k1", K1e, input)


def spherical_bessel_j0(input):
    """j₀(x) = sin(x) / x, 1 at 0 and 0 at ±inf, as ``torch.special.spherical_bessel_j0``:
    composed of sin, with the Taylor series Σₖ (-x²)ᵏ / (2k+1)! (9 terms, to 1e-19) below
    |x| = 1/2, so the gradient does not cancel near 0 (PyTorch gives none)."""
    from .composed import where

    def fn(x):
        small = x.abs() < 0.5                               # bool, outside the graph
        xs = where(small, x, 0.0)                           # harmless where not taken
        xl = where(small | x.isinf(), 1.0, x)
        x2 = xs * xs * -1.0
        term, series = x2 * (1.0 / 6.0), 1.0
        for k in range(2, 9):
            series = series + term
            term = term * x2 * (1.0 / ((2 * k) * (2 * k + 1)))
        large = where(x.isinf(), 0.0, xl.sin() / xl)
        return where(small, series + term, large)
    return _composed("spherical_bessel_j0", input, fn)


def airy_ai(input):
    """Ai(x), the Airy function of the first kind, as ``torch.special.airy_ai``, SciPy's
    ``airy``. No gradient, as in PyTorch (the result does not require grad). On a GPU it
    raises: cupyx.scipy.special (CuPy 13) has no Airy function."""
    from .tensor import Tensor
    x = _tf_float(tensor_arg("airy_ai", "input", input))
    be = x.backend
    try:
        airy = be.special("airy")
    except NotImplementedError as e:
        raise NotImplementedError(
            f"airy_ai: the {be.device} backend has no Airy function ({e}); compute it on "
            "the CPU: airy_ai(x.cpu()).to(x.device)") from e
    return Tensor(airy(x.data)[0], _backend=be)


def gammainc(input, other):
    """P(a, x) = γ(a, x) / Γ(a), the regularized lower incomplete gamma function, as
    ``torch.special.gammainc`` (a = input, x = other, broadcasting; either may be a number;
    integers compute in float32, where PyTorch refuses them). The Gammainc primitive:
    gradient x^(a-1) e^(-x) / Γ(a) for x; none for a, as in PyTorch (backward raises)."""
    return _binary("gammainc", input, other, lambda a, x: Gammainc.apply(a, x))


def gammaincc(input, other):
    """Q(a, x) = 1 - P(a, x), computed directly, as ``torch.special.gammaincc``. The
    Gammaincc primitive: gradient -x^(a-1) e^(-x) / Γ(a) for x; none for a."""
    return _binary("gammaincc", input, other, lambda a, x: Gammaincc.apply(a, x))


# ----------------------------------------------------------------------------- the rest
def sinc(input):
    """sin(πx) / (πx), 1 at 0, as ``torch.special.sinc``: :func:`tinyffn.sinc`."""
    from .torch_pointwise import sinc as _sinc
    return _sinc(input)


def log1p(input):
    """ln(1 + x), as ``torch.special.log1p``: :func:`tinyffn.log1p`."""
    from .more_functions import log1p as _log1p
    return _log1p(input)


def expm1(input):
    """exp(x) - 1, as ``torch.special.expm1``: :func:`tinyffn.expm1`."""
    from .torch_math import expm1 as _expm1
    return _expm1(input)


def exp2(input):
    """2^x, as ``torch.special.exp2``: :func:`tinyffn.exp2`."""
    from .torch_math import exp2 as _exp2
    return _exp2(input)


def round(input, *, decimals=0):
    """Round half to even, as ``torch.special.round``: :func:`tinyffn.round`."""
    from .torch_names import round as _round
    return _round(input, decimals=decimals)


def softmax(input, dim, dtype=None):
    """As ``torch.special.softmax``: :func:`tinyffn.softmax`."""
    return _tf.softmax(input, dim, dtype)


def log_softmax(input, dim, dtype=None):
    """As ``torch.special.log_softmax``: :func:`tinyffn.log_softmax`."""
    return _tf.log_softmax(input, dim, dtype)


def logsumexp(input, dim, keepdim=False):
    """log Σ exp(x) along dim, as ``torch.special.logsumexp``: :func:`tinyffn.logsumexp`."""
    from .more_functions import logsumexp as _logsumexp
    return _logsumexp(input, dim, keepdim)
