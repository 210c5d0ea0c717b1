"""Elementwise primitives of the gamma, error and Bessel families (``torch.lgamma``,
``torch.special.*``): functions no composition of exp, log and erf reaches, computed by
the backend's special-function library (``ctx.backend.special(name)``: SciPy on the CPU,
``cupyx.scipy.special`` on the GPU), each with its derivative in closed form, most of
them another function of the family (lgamma' = digamma, digamma' = polygamma(1, .), ...).

Notation as in elementwise.py: ``gy = dL/dy`` arrives from above, the backward returns
``gx = gy * dy/dx``. Integers and bools compute in float32, PyTorch's default float dtype;
float16 in float32 and rounded once, as PyTorch. Poles give what PyTorch gives:
lgamma(0) = lgamma(-1) = inf, digamma(0) = -inf, digamma(-1) = NaN.

Under create_graph (:mod:`tinyffn.higher_order`) ``ctx.backend.special(name)`` is the op of
that name here (digamma is Digamma, polygamma(n, .) is Polygamma with that n, ...), so
each derivative is differentiated by its own backward in turn, the chain never leaving
the family: lgamma -> digamma -> polygamma(1) -> polygamma(2) -> ..., i0 <-> i1 and
i0e <-> i1e. Zeta's derivative in x stays refused at every order.
"""
from __future__ import annotations

import math

from ..autograd import Context, Function
from .elementwise import _broadcast_error, as_float, sign_of
from .shape import sum_to_shape

TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)
SQRT_PI_OVER_2 = math.sqrt(math.pi) / 2
SQRT_2PI = math.sqrt(2 * math.pi)


def _special(ctx: Context, name: str, *args):
    """The backend's ``scipy.special.<name>(*args)``, in the dtype of the last argument."""
    return ctx.backend.special(name)(*args)


def _digamma(ctx: Context, x):
    """ψ(x), the backend's, with ψ(+0) = -inf and ψ(-0) = +inf as SciPy's and PyTorch's:
    CuPy 13's digamma (Cephes's psi) tests ``x == 0`` and gives -inf at both zeros. Under
    create_graph (x a tensor) the backend's digamma is :class:`Digamma`, which comes here."""
    y = _special(ctx, "digamma", x)
    if not isinstance(x, ctx.backend.array_type):
        return y
    return ctx.xp.where(x == 0, ctx.xp.copysign(y, -x), y)          # |y| is inf at ±0


def _nonzero(xp, x):
    """x with its zeros replaced by 1: a safe divisor where the quotient is not used."""
    return xp.where(x == 0, xp.ones_like(x), x)


class Lgamma(Function):
    """y = ln |Γ(x)| (SciPy's gammaln; inf at the poles 0, -1, -2, ..., and at ±inf, as
    C's lgamma and PyTorch, where SciPy's gammaln(-inf) is -inf).

    dy/dx = ψ(x), the digamma function Γ'(x) / Γ(x)."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        xp = ctx.xp
        x = as_float(ctx, x)
        ctx.save_for_backward(x)
        y = _special(ctx, "gammaln", x)
        return xp.where(xp.isinf(x), xp.abs(x), y)                  # lgamma(-inf) = +inf

    @staticmethod
    def backward(ctx: Context, gy):
        (x,) = ctx.saved_tensors
        return gy * _digamma(ctx, x)


class Digamma(Function):
    """y = ψ(x) = d/dx ln Γ(x) (-inf at 0, NaN at -1, -2, ..., as PyTorch).

    dy/dx = ψ₁(x) = polygamma(1, x), the trigamma function."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        x = as_float(ctx, x)
        ctx.save_for_backward(x)
        return _digamma(ctx, x)

    @staticmethod
    def backward(ctx: Context, gy):
        (x,) = ctx.saved_tensors
        return gy * _special(ctx, "polygamma", ctx.xp.asarray(1.0, dtype=x.dtype), x)


class Polygamma(Function):
    """y = ψₙ(x) = dⁿ/dxⁿ ψ(x), the n-th derivative of digamma, for an integer n >= 0 (an
    attribute, not an input: no gradient flows to n).

    dy/dx = ψₙ₊₁(x) = polygamma(n + 1, x)."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x, n):
        x = as_float(ctx, x)
        ctx.save_for_backward(x)
        if n == 0:                  # the library's polygamma(0, .) is its digamma: see there
            return _digamma(ctx, x)
        return _special(ctx, "polygamma", ctx.xp.asarray(float(n), dtype=x.dtype), x)

    @staticmethod
    def backward(ctx: Context, gy):
        (x,) = ctx.saved_tensors
        n1 = ctx.xp.asarray(float(ctx.attrs["n"] + 1), dtype=x.dtype)
        return gy * _special(ctx, "polygamma", n1, x)


class Erfc(Function):
    """y = erfc(x) = 1 - erf(x), computed as erfc itself, not 1 - erf: erfc(10) is 2.1e-45,
    where 1 - erf(10) is 0.

    dy/dx = -2/sqrt(pi) exp(-x²)."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        x = as_float(ctx, x)
        ctx.save_for_backward(x)
        return _special(ctx, "erfc", x)

    @staticmethod
    def backward(ctx: Context, gy):
        (x,) = ctx.saved_tensors
        return gy * (-TWO_OVER_SQRT_PI * ctx.xp.exp(-(x * x)))


class Erfcx(Function):
    """y = erfcx(x) = exp(x²) erfc(x), the scaled complementary error function: finite where
    erfc underflows (erfcx(30) = 0.0188, erfc(30) = 0 in float64), so log erfc(x) =
    log erfcx(x) - x² keeps its digits far out (log_ndtr's tail).

    dy/dx = 2 x y - 2/sqrt(pi)."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        x = as_float(ctx, x)
        y = _special(ctx, "erfcx", x)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx: Context, gy):
        x, y = ctx.saved_tensors
        return gy * (2 * x * y - TWO_OVER_SQRT_PI)


class Erfinv(Function):
    """y = erfinv(x), the inverse of erf on (-1, 1): ±inf at ±1, NaN beyond.

    dy/dx = 1 / erf'(y) = sqrt(pi)/2 exp(y²) (inf at ±1, as PyTorch)."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        x = as_float(ctx, x)
        y = _special(ctx, "erfinv", x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Context, gy):
        (y,) = ctx.saved_tensors
        return gy * (SQRT_PI_OVER_2 * ctx.xp.exp(y * y))


class Ndtri(Function):
    """y = Φ⁻¹(x), the inverse of the standard normal CDF Φ on (0, 1), to full precision in
    both tails (sqrt(2) erfinv(2x - 1) loses all its digits below x = 1e-16).

    dy/dx = 1 / φ(y) = sqrt(2 pi) exp(y² / 2), φ the normal density."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        x = as_float(ctx, x)
        y = _special(ctx, "ndtri", x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Context, gy):
        (y,) = ctx.saved_tensors
        return gy * (SQRT_2PI * ctx.xp.exp(y * y * 0.5))


class I0(Function):
    """y = I₀(x), the modified Bessel function of the first kind, order 0.

    dy/dx = I₁(x)."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        x = as_float(ctx, x)
        ctx.save_for_backward(x)
        return _special(ctx, "i0", x)

    @staticmethod
    def backward(ctx: Context, gy):
        (x,) = ctx.saved_tensors
        return gy * _special(ctx, "i1", x)


def _scaled_bessel(ctx: Context, order: int, x):
    """i0e(x) (``order`` 0) or i1e(x) = exp(-|x|) I_order(x), the library's, except far out:
    past |x| = 700 (float64; 79 otherwise) the asymptotic expansion (DLMF 10.40.1)

        exp(-x) I_ν(x) ~ (2 π x)^(-1/2) Σ_k (-1)^k a_k(ν) / x^k,
        a_k(ν) = (4ν² - 1²)(4ν² - 3²) ... (4ν² - (2k-1)²) / (k! 8^k),

    14 terms in float64, below 1e-18 relative there. cupyx.scipy.special (CuPy 13)
    computes i0e as exp(-|x|) * i0(x): exp(-|x|) leaves the normal numbers past 708 (87 in
    float32) and I0 overflows past 713 (92), giving NaN, inf or 0 where the answer is
    about 1 / sqrt(2 π |x|)."""
    xp = ctx.xp
    y = _special(ctx, "i1e" if order else "i0e", x)
    far = 700.0 if xp.finfo(x.dtype).bits == 64 else 79.0
    x64 = xp.astype(x, xp.float64)
    t = xp.maximum(xp.abs(x64), xp.asarray(far, dtype=xp.float64))   # |x|, or far: no 1/0
    term = xp.ones_like(t)
    s = term
    for k in range(1, 15):
        term = term * ((2 * k - 1) ** 2 - 4 * order * order) / (8 * k) / t
        s = s + term
    z = s / xp.sqrt(2 * math.pi * t)
    if order:
        z = sign_of(xp, x64) * z                                   # i1e is odd
    return xp.where(xp.abs(x) > far, xp.astype(z, x.dtype), y)


class I0e(Function):
    """y = exp(-|x|) I₀(x), I₀ scaled so that it does not overflow (i0(800) is inf).

    dy/dx = exp(-|x|) I₁(x) - sign(x) y = i1e(x) - sign(x) y."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        x = as_float(ctx, x)
        y = _scaled_bessel(ctx, 0, x)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx: Context, gy):
        x, y = ctx.saved_tensors
        return gy * (_scaled_bessel(ctx, 1, x) - sign_of(ctx.xp, x) * y)


class I1(Function):
    """y = I₁(x), the modified Bessel function of the first kind, order 1.

    dy/dx = I₀(x) - I₁(x) / x, and 1/2 at x = 0 (its limit)."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        x = as_float(ctx, x)
        y = _special(ctx, "i1", x)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx: Context, gy):
        x, y = ctx.saved_tensors
        xp = ctx.xp
        dy = _special(ctx, "i0", x) - y / _nonzero(xp, x)
        return gy * xp.where(x == 0, xp.full_like(dy, 0.5), dy)


class I1e(Function):
    """y = exp(-|x|) I₁(x).

    dy/dx = i0e(x) - y (sign(x) + 1/x), and 1/2 at x = 0 (its limit)."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        x = as_float(ctx, x)
        y = _scaled_bessel(ctx, 1, x)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx: Context, gy):
        x, y = ctx.saved_tensors
        xp = ctx.xp
        dy = _scaled_bessel(ctx, 0, x) - y * (sign_of(xp, x) + 1 / _nonzero(xp, x))
        return gy * xp.where(x == 0, xp.full_like(dy, 0.5), dy)


class Zeta(Function):
    """y = ζ(x, q) = Σₖ (k + q)^(-x), the Hurwitz zeta function (broadcasting; x and q of
    one float dtype, as ``tinyffn.special.zeta`` passes them).

    dy/dq = -x ζ(x + 1, q). dy/dx is not implemented, as in PyTorch: a graph that needs
    it raises NotImplementedError in backward."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x, q):
        try:
            y = _special(ctx, "zeta", x, q)
        except ValueError as e:
            raise _broadcast_error("zeta", x, q) from e
        ctx.save_for_backward(x, q)
        return y

    @staticmethod
    def backward(ctx: Context, gy):
        x, q = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise NotImplementedError(
                "zeta: the derivative with respect to x (the exponent) is not implemented, "
                "as in PyTorch; pass x without requires_grad (x.detach()) to get dy/dq")
        gq = gy * (-x * _special(ctx, "zeta", x + 1, q))            # broadcast shape
        return None, sum_to_shape(ctx.xp, gq, q.shape)


__all__ = ["Lgamma", "Digamma", "Polygamma", "Erfc", "Erfcx", "Erfinv", "Ndtri", "I0", "I0e",
           "I1", "I1e", "Zeta"]
