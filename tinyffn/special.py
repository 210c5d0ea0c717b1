"""``tinyffn.special``: the names of ``torch.special`` (PyTorch 2.13), most used first.

Where a tinyffn function computes the same thing (``expit`` is ``sigmoid``, ``gammaln``
is ``lgamma``, ``xlogy``, ``logit``, ``sinc``, ``softmax``, ...), the name here calls it.
The rest are the primitives of :mod:`tinyffn.ops.special_functions` (``erfcx``,
``ndtri``, ``i0e``, ``i1``, ``i1e``, ``zeta``) or are composed of them, each in a frame
of its name, so that their gradients follow:

* ``ndtr(x)`` = erfc(-x/√2) / 2, SciPy's formula: no cancellation in either tail (torch
  2.13's ndtr(-20) is 0.0 in float64, the true value 2.75e-89; its float32 ndtr(-5) is 4%
  high);
* ``log_ndtr(x)`` = log(erfcx(-x/√2) / 2) - x²/2 for x < -1, where ndtr underflows
  (log_ndtr(-40) = -804.6, log(ndtr(-40)) = -inf), and log1p(-erfc(x/√2) / 2) elsewhere
  (PyTorch's two branches), with the untaken branch's input replaced by a harmless value
  (the double where), so its inf does not reach the gradient;
* ``xlog1py`` and ``entr`` as :func:`tinyffn.xlogy` is built.

Integers and bools compute in float32, float16 in float32 and rounded once, as PyTorch.
"""
from __future__ import annotations

import math

from . import torch_functions as _tf
from .arguments import tensor_arg
from .ops.special_functions import Erfcx, I0e, I1, I1e, Ndtri, Zeta
from .torch_math import _binary, _composed
from .torch_special import digamma, erfc, erfinv, i0, lgamma, mvlgamma, polygamma

_SQRT_HALF = math.sqrt(0.5)

__all__ = ["erf", "erfc", "erfcx", "erfinv", "expit", "logit", "xlogy", "xlog1py", "gammaln",
           "digamma", "psi", "polygamma", "multigammaln", "log_ndtr", "ndtr", "ndtri", "i0",
           "i0e", "i1", "i1e", "sinc", "entr", "log1p", "expm1", "exp2", "round", "softmax",
           "log_softmax", "logsumexp", "zeta"]


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
