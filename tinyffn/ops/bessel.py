"""Elementwise primitives of the Bessel functions of integer order and the regularized
incomplete gamma functions (``torch.special.bessel_j0``, ..., ``gammainc``), computed by the
backend's special-function library (``ctx.backend.special(name)``: SciPy on the CPU,
``cupyx.scipy.special`` on the GPU, which has j0, j1, y0, y1, k0, k1, k0e, k1e, gammainc,
gammaincc and gammaincinv), each with its derivative in closed form, another function of the
family (``StandardGamma``, a Gamma draw, its derivative in a by a difference of gammainc):

    J₀' = -J₁,   J₁' = J₀ - J₁/x,   Y₀' = -Y₁,   Y₁' = Y₀ - Y₁/x,
    K₀' = -K₁,   K₁' = -K₀ - K₁/x   (DLMF 10.6.2, 10.29.2).

PyTorch 2.13 computes these without a gradient (its results do not require grad, so a loss
through them trains nothing, silently); tinyffn gives the derivative. gammainc(a, x) has one
in x alone, as PyTorch: backward raises if a needs one.

Notation as in elementwise.py: ``gy = dL/dy`` arrives from above, the backward returns
``gx = gy * dy/dx``. Integers and bools compute in float32, float16 in float32 and rounded
once (the backend's ``special`` does that).
"""
from __future__ import annotations

import math

from ..autograd import Context, Function
from .elementwise import _broadcast_error, as_float
from .shape import sum_to_shape
from .special_functions import _nonzero, _special   # the family's shared helpers


def _scaled_k(ctx: Context, order: int, x):
    """k0e(x) (``order`` 0) or k1e(x) = exp(x) K_order(x), the library's, except far out:
    past x = 700 (float64; 79 otherwise) the asymptotic expansion (DLMF 10.40.2)

        exp(x) K_ν(x) ~ (π / (2x))^(1/2) Σ_k a_k(ν) / x^k,
        a_k(ν) = (4ν² - 1²)(4ν² - 3²) ... (4ν² - (2k-1)²) / (k! 8^k),

    14 terms, below 1e-18 relative there. cupyx.scipy.special (CuPy 13) computes k0e as
    exp(x) * k0(x): exp(x) overflows past 709 (88 in float32) and K0 underflows, giving
    inf or NaN where the answer is about sqrt(π / 2x)."""
    xp = ctx.xp
    y = _special(ctx, "k1e" if order else "k0e", x)
    far = 700.0 if xp.finfo(x.dtype).bits == 64 else 79.0
    t = xp.maximum(xp.astype(x, xp.float64), xp.asarray(far, dtype=xp.float64))   # no 1/0
    term = xp.ones_like(t)
    s = term
    for k in range(1, 15):
        term = term * (4 * order * order - (2 * k - 1) ** 2) / (8 * k) / t
        s = s + term
    z = s * xp.sqrt(math.pi / (2 * t))
    return xp.where(x > far, xp.astype(z, x.dtype), y)


class J0(Function):
    """y = J₀(x), the Bessel function of the first kind, order 0.

    dy/dx = -J₁(x)."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        x = as_float(ctx, x)
        y = _special(ctx, "j0", x)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx: Context, gy):
        x, _ = ctx.saved_tensors
        return gy * -_special(ctx, "j1", x)


class J1(Function):
    """y = J₁(x), the Bessel function of the first kind, order 1.

    dy/dx = J₀(x) - y / x, and 1/2 at x = 0 (its limit)."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        x = as_float(ctx, x)
        y = _special(ctx, "j1", x)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx: Context, gy):
        x, y = ctx.saved_tensors
        xp = ctx.xp
        dy = _special(ctx, "j0", x) - y / _nonzero(xp, x)
        return gy * xp.where(x == 0, xp.full_like(dy, 0.5), dy)


class Y0(Function):
    """y = Y₀(x), the Bessel function of the second kind, order 0 (-inf at 0, NaN for
    x < 0).

    dy/dx = -Y₁(x)."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        x = as_float(ctx, x)
        y = _special(ctx, "y0", x)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx: Context, gy):
        x, _ = ctx.saved_tensors
        return gy * -_special(ctx, "y1", x)


class Y1(Function):
    """y = Y₁(x), the Bessel function of the second kind, order 1 (-inf at 0, NaN for
    x < 0).

    dy/dx = Y₀(x) - y / x."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        x = as_float(ctx, x)
        y = _special(ctx, "y1", x)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx: Context, gy):
        x, y = ctx.saved_tensors
        return gy * (_special(ctx, "y0", x) - y / x)


class K0(Function):
    """y = K₀(x), the modified Bessel function of the second kind, order 0 (inf at 0, NaN
    for x < 0).

    dy/dx = -K₁(x)."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        x = as_float(ctx, x)
        y = _special(ctx, "k0", x)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx: Context, gy):
        x, _ = ctx.saved_tensors
        return gy * -_special(ctx, "k1", x)


class K1(Function):
    """y = K₁(x), the modified Bessel function of the second kind, order 1 (inf at 0, NaN
    for x < 0).

    dy/dx = -K₀(x) - y / x."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        x = as_float(ctx, x)
        y = _special(ctx, "k1", x)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx: Context, gy):
        x, y = ctx.saved_tensors
        return gy * (-_special(ctx, "k0", x) - y / x)


class K0e(Function):
    """y = exp(x) K₀(x), K₀ scaled so that it does not underflow (k0(800) is 0).

    dy/dx = y - exp(x) K₁(x) = y - k1e(x)."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        x = as_float(ctx, x)
        y = _scaled_k(ctx, 0, x)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx: Context, gy):
        x, y = ctx.saved_tensors
        return gy * (y - _scaled_k(ctx, 1, x))


class K1e(Function):
    """y = exp(x) K₁(x).

    dy/dx = y (1 - 1/x) - k0e(x)."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        x = as_float(ctx, x)
        y = _scaled_k(ctx, 1, x)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx: Context, gy):
        x, y = ctx.saved_tensors
        return gy * (y * (1 - 1 / x) - _scaled_k(ctx, 0, x))


def _gamma_density(ctx: Context, a, x):
    """x^(a-1) exp(-x) / Γ(a), the derivative in x of gammainc(a, x), as
    exp((a - 1) ln x - x - ln Γ(a)), with (a - 1) ln x = 0 where a = 1 (so 1 at x = 0 there,
    where PyTorch's 0 · ln 0 gives NaN), NaN for x < 0 (outside the domain)."""
    xp = ctx.xp
    a1 = a - 1
    log_x = xp.where(x > 0, xp.log(xp.where(x > 0, x, xp.ones_like(x))),   # no log(0) warning
                     xp.where(x == 0, xp.full_like(x, -math.inf), xp.full_like(x, math.nan)))
    power = a1 * log_x                                              # broadcast shape
    power = xp.where(a1 == 0, xp.zeros_like(power), power)          # x^0 = 1, at x = 0 too
    return xp.exp(power - x - _special(ctx, "gammaln", a))


def _incomplete_gamma(ctx: Context, name: str, a, x):
    try:
        y = _special(ctx, name, a, x)
    except ValueError as e:
        raise _broadcast_error(name, a, x) from e
    ctx.save_for_backward(a, x)
    return y


class _IncompleteGamma(Function):
    """gammainc or gammaincc: y = f(a, x) (broadcasting; a and x of one float dtype, as
    ``tinyffn.special.gammainc`` passes them); the subclass gives the name and the sign of
    dy/dx."""

    twice_differentiable = True
    _name = ""
    _sign = 1

    @classmethod
    def backward(cls, ctx: Context, gy):
        a, x = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise NotImplementedError(
                f"{cls._name}: the derivative with respect to a (input) is not implemented, "
                "as in PyTorch; pass a without requires_grad (a.detach()) to get dy/dx")
        gx = gy * (cls._sign * _gamma_density(ctx, a, x))          # broadcast shape
        return None, sum_to_shape(ctx.xp, gx, x.shape)


class Gammainc(_IncompleteGamma):
    """y = P(a, x) = γ(a, x) / Γ(a), the regularized lower incomplete gamma function
    (a > 0, x >= 0; NaN outside).

    dy/dx = x^(a-1) exp(-x) / Γ(a). dy/da is not implemented, as in PyTorch."""

    _name = "gammainc"
    _sign = 1

    @staticmethod
    def forward(ctx: Context, a, x):
        return _incomplete_gamma(ctx, "gammainc", a, x)


class Gammaincc(_IncompleteGamma):
    """y = Q(a, x) = 1 - P(a, x), computed directly (Q(1, 40) = 4.2e-18, not 0).

    dy/dx = -x^(a-1) exp(-x) / Γ(a). dy/da is not implemented, as in PyTorch."""

    _name = "gammaincc"
    _sign = -1

    @staticmethod
    def forward(ctx: Context, a, x):
        return _incomplete_gamma(ctx, "gammaincc", a, x)


class StandardGamma(Function):
    """y = P⁻¹(a, u): a Gamma(a, 1) draw by inverse CDF from a uniform u in (0, 1)
    (``gammaincinv``; floored at the dtype's tiny, as PyTorch clamps its draws), so the draw
    is a function of a at a fixed u and has a derivative (implicit reparameterisation,
    Figurnov et al. 2018): differentiating P(a, y) = u,

        dy/da = −(∂P/∂a)(a, y) / p(y; a),   dy/du = 1 / p(y; a),   p = y^(a−1) e^(−y) / Γ(a).

    ∂P/∂a has no closed form: it is a central difference in a (step 1e-4 · a, in float64)
    of P where P < ½ and of −Q = P − 1 above, each accurate in its own tail; about 1e-8
    relative. PyTorch's ``_standard_gamma_grad`` fits an approximation instead (off by up to
    3e-4 relative), and draws y its own way, so only the formula, not a draw, is shared."""

    @classmethod
    def op_name(cls) -> str:
        return "standard_gamma"

    @staticmethod
    def forward(ctx: Context, a, u):
        xp = ctx.xp
        try:
            y = _special(ctx, "gammaincinv", a, u)
        except ValueError as e:
            raise _broadcast_error("standard_gamma", a, u) from e
        y = xp.maximum(y, xp.asarray(xp.finfo(y.dtype).smallest_normal, dtype=y.dtype))
        ctx.save_for_backward(a, u, y)
        return y

    @staticmethod
    def backward(ctx: Context, gy):
        xp = ctx.xp
        a, u, y = (xp.astype(v, xp.float64) for v in ctx.saved_tensors)
        density = _gamma_density(ctx, a, y)                             # broadcast shape
        ga = gu = None
        if ctx.needs_input_grad[0]:
            h = 1e-4 * a
            lower = _special(ctx, "gammainc", a, y) < 0.5
            dP = xp.where(lower, _special(ctx, "gammainc", a + h, y)
                          - _special(ctx, "gammainc", a - h, y),
                          _special(ctx, "gammaincc", a - h, y)
                          - _special(ctx, "gammaincc", a + h, y)) / (2 * h)
            dy = xp.astype(-dP / density, gy.dtype)
            ga = sum_to_shape(xp, gy * dy, a.shape)
        if ctx.needs_input_grad[1]:
            gu = sum_to_shape(xp, gy * xp.astype(1 / density, gy.dtype), u.shape)
        return ga, gu


__all__ = ["J0", "J1", "Y0", "Y1", "K0", "K1", "K0e", "K1e", "Gammainc", "Gammaincc",
           "StandardGamma"]
