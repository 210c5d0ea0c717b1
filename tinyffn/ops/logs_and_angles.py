"""Elementwise primitives that the array library computes to the last bit and a composition
would not: log2, log10, exp2 (log(x) / log(10) gives 2.9999999999999996 for x = 1000, and
differs from log10 in the last bit for over half of all x), the inverse tangents atan
and atan2, which no composition of exp, log, sin and cos reaches, tan, and the inverse
sine and cosine and the inverse hyperbolic functions (asinh(x) = log(x + sqrt(x² + 1))
loses every digit for small x and overflows for large x; the library's does neither).

Notation as in elementwise.py: ``gy = dL/dy`` arrives from above, the backward returns
``gx = gy * dy/dx`` for each input. Integers and bools compute in float32, PyTorch's
default float dtype; float16 in float32 and rounded once (NumPy's and CuPy's float16
loops), as PyTorch.
"""
from __future__ import annotations

import math

from ..autograd import Context, Function
from .elementwise import _broadcast_error, as_float
from .shape import sum_to_shape

LN2, LN10 = math.log(2.0), math.log(10.0)


class Log2(Function):
    """y = log2(x).    dy/dx = 1 / (x ln 2)."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        x = as_float(ctx, x)
        ctx.save_for_backward(x)
        return ctx.xp.log2(x)

    @staticmethod
    def backward(ctx: Context, gy):
        (x,) = ctx.saved_tensors
        return gy / (x * LN2)


class Log10(Function):
    """y = log10(x).    dy/dx = 1 / (x ln 10).

    float32 and float16 are computed in float64 and rounded once: NumPy's float32 log10
    is an ulp off at powers of ten (log10(100) = 1.9999999, log10(1000) = 3.0000002),
    where PyTorch's, and float64's, are exact."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        x = as_float(ctx, x)
        ctx.save_for_backward(x)
        if x.dtype == ctx.xp.float64:
            return ctx.xp.log10(x)
        return ctx.xp.astype(ctx.xp.log10(ctx.xp.astype(x, ctx.xp.float64)), x.dtype)

    @staticmethod
    def backward(ctx: Context, gy):
        (x,) = ctx.saved_tensors
        return gy / (x * LN10)


class Exp2(Function):
    """y = 2^x (exact at integers: exp2(3) is 8.0).    dy/dx = 2^x ln 2 = y ln 2."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        x = as_float(ctx, x)
        y = ctx.xp.pow(ctx.xp.asarray(2.0, dtype=x.dtype), x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Context, gy):
        (y,) = ctx.saved_tensors
        return gy * (y * LN2)


class Atan(Function):
    """y = atan(x), in (-pi/2, pi/2).    dy/dx = 1 / (1 + x^2)."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        x = as_float(ctx, x)
        ctx.save_for_backward(x)
        return ctx.xp.atan(x)

    @staticmethod
    def backward(ctx: Context, gy):
        (x,) = ctx.saved_tensors
        return gy / (1 + x * x)


class Atan2(Function):
    """y = atan2(x, w), the angle of the point (w, x) (x the height, w the width, as
    ``torch.atan2(input, other)``), in [-pi, pi], broadcasting.

    dy/dx = w / (x^2 + w^2),  dy/dw = -x / (x^2 + w^2); 0 at the origin, where the angle
    has no derivative (PyTorch gives 0 there too).
    """

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x, w):
        floats = ctx.backend.float_dtypes
        if x.dtype not in floats and w.dtype not in floats:
            x, w = as_float(ctx, x), as_float(ctx, w)
        try:
            y = ctx.xp.atan2(x, w)
        except ValueError as e:
            raise _broadcast_error("atan2", x, w) from e
        ctx.save_for_backward(x, w)
        return y

    @staticmethod
    def backward(ctx: Context, gy):
        x, w = ctx.saved_tensors
        xp = ctx.xp
        r2 = x * x + w * w                                  # broadcast shape
        origin = r2 == 0
        scale = gy / xp.where(origin, xp.ones_like(r2), r2)
        zero = xp.zeros_like(scale)
        gx = gw = None
        if ctx.needs_input_grad[0]:
            gx = sum_to_shape(xp, xp.where(origin, zero, scale * w), x.shape)
        if ctx.needs_input_grad[1]:
            gw = sum_to_shape(xp, xp.where(origin, zero, -scale * x), w.shape)
        return gx, gw


class Tan(Function):
    """y = tan(x).    dy/dx = 1 / cos²(x) = 1 + y²."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        y = ctx.xp.tan(as_float(ctx, x))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Context, gy):
        (y,) = ctx.saved_tensors
        return gy * (1 + y * y)


class Asin(Function):
    """y = asin(x), in [-pi/2, pi/2] for x in [-1, 1] (NaN outside).

    dy/dx = 1 / sqrt(1 - x²), written (1 - x)(1 + x) so that it keeps its digits near
    x = ±1; infinite at ±1, as PyTorch's."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        x = as_float(ctx, x)
        ctx.save_for_backward(x)
        return ctx.xp.asin(x)

    @staticmethod
    def backward(ctx: Context, gy):
        (x,) = ctx.saved_tensors
        return gy / ctx.xp.sqrt((1 - x) * (1 + x))


class Acos(Function):
    """y = acos(x), in [0, pi] for x in [-1, 1].    dy/dx = -1 / sqrt(1 - x²)."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        x = as_float(ctx, x)
        ctx.save_for_backward(x)
        return ctx.xp.acos(x)

    @staticmethod
    def backward(ctx: Context, gy):
        (x,) = ctx.saved_tensors
        return -gy / ctx.xp.sqrt((1 - x) * (1 + x))


class Atanh(Function):
    """y = atanh(x), for x in (-1, 1) (±inf at ±1).    dy/dx = 1 / (1 - x²)."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        x = as_float(ctx, x)
        ctx.save_for_backward(x)
        return ctx.xp.atanh(x)

    @staticmethod
    def backward(ctx: Context, gy):
        (x,) = ctx.saved_tensors
        return gy / ((1 - x) * (1 + x))


class Asinh(Function):
    """y = asinh(x) = log(x + sqrt(x² + 1)).    dy/dx = 1 / sqrt(x² + 1)."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        x = as_float(ctx, x)
        ctx.save_for_backward(x)
        return ctx.xp.asinh(x)

    @staticmethod
    def backward(ctx: Context, gy):
        (x,) = ctx.saved_tensors
        return gy / ctx.xp.sqrt(x * x + 1)


class Acosh(Function):
    """y = acosh(x) = log(x + sqrt(x² - 1)), for x >= 1.    dy/dx = 1 / sqrt(x² - 1),
    written (x - 1)(x + 1) to keep its digits near 1."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x):
        x = as_float(ctx, x)
        ctx.save_for_backward(x)
        return ctx.xp.acosh(x)

    @staticmethod
    def backward(ctx: Context, gy):
        (x,) = ctx.saved_tensors
        # + 0.0 turns the -0.0 at x = -1 (outside the domain) into +0.0: +inf, as PyTorch's
        return gy / ctx.xp.sqrt((x - 1) * (x + 1) + 0.0)


__all__ = ["Log2", "Log10", "Exp2", "Atan", "Atan2", "Tan", "Asin", "Acos", "Atanh", "Asinh",
           "Acosh"]
