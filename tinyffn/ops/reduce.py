"""Reductions: sum, mean, max over some axes (``axis=None``: all of them).

Each backward has to put back the axes the forward removed: ``gy`` has the reduced shape,
so it is reshaped to the ``keepdims=True`` shape (1 on every reduced axis) and then
broadcast against ``x``.
"""
from __future__ import annotations

import math

from ..autograd import Context, Function
from .elementwise import as_float


def _kept_shape(x_shape: tuple, axis: tuple | None) -> tuple:
    """x's shape with every reduced axis set to 1: the shape of the keepdims result."""
    if axis is None:
        return (1,) * len(x_shape)
    return tuple(1 if i in axis else n for i, n in enumerate(x_shape))


def _reduced_shape(x_shape: tuple, axis: tuple | None) -> tuple:
    """x's shape without the reduced axes: the shape of the result without keepdims."""
    if axis is None:
        return ()
    return tuple(n for i, n in enumerate(x_shape) if i not in axis)


def _count(x_shape: tuple, axis: tuple | None) -> int:
    """How many elements each output element reduces over."""
    return math.prod(x_shape) if axis is None else math.prod(x_shape[i] for i in axis)


def _one_flop_per_input(ctx, y) -> int:
    """A reduction's cost: one add (or comparison) per element of x."""
    return math.prod(ctx.input_shapes[0])


class Sum(Function):
    """y = sum of x over ``axis``.    dy/dx_i = 1 for every summed element.

    gx = broadcast(reshape(gy, keepdims shape), x.shape)

    Bools and unsigned integers up to 32 bits are summed in int64, as PyTorch does (a
    count of a mask; the array API standard has no bool sum, and sums unsigned integers in
    uint64); uint64 stays uint64, as int64 cannot hold its values past 2^63.
    """

    @staticmethod
    def forward(ctx: Context, x, axis, keepdims):
        xp = ctx.xp
        if x.dtype not in ctx.backend.float_dtypes and x.dtype != xp.uint64 and \
                not xp.isdtype(x.dtype, "signed integer"):
            x = xp.astype(x, xp.int64)
        return xp.sum(x, axis=axis, keepdims=keepdims)

    @staticmethod
    def backward(ctx: Context, gy):
        x_shape = ctx.input_shapes[0]
        gy = ctx.xp.reshape(gy, _kept_shape(x_shape, ctx.attrs["axis"]))  # x.shape, 1 on axis
        return ctx.xp.broadcast_to(gy, x_shape)

    flops = staticmethod(_one_flop_per_input)


class Mean(Function):
    """y = sum of x over ``axis`` / n, n the number of elements reduced.    dy/dx_i = 1/n."""

    @staticmethod
    def forward(ctx: Context, x, axis, keepdims):
        return ctx.xp.mean(as_float(ctx, x), axis=axis, keepdims=keepdims)

    @staticmethod
    def backward(ctx: Context, gy):
        x_shape, axis = ctx.input_shapes[0], ctx.attrs["axis"]
        n = _count(x_shape, axis)
        if n > 65504 and gy.dtype == getattr(ctx.xp, "float16", None):
            gy = ctx.xp.astype(gy, ctx.xp.float32)     # n is inf in float16: divide in
        gy = gy / n                                    # float32 (gx is cast back to float16)
        gy = ctx.xp.reshape(gy, _kept_shape(x_shape, axis))            # x.shape, 1 on axis
        return ctx.xp.broadcast_to(gy, x_shape)

    flops = staticmethod(_one_flop_per_input)


class Max(Function):
    """y = max of x over ``axis``.

    dy/dx_i = 1 for the element that is the maximum, 0 for the others; when several
    elements tie for the maximum they share the gradient equally (mask / count), so the
    total passed back always equals gy.

    A maximum over no elements is undefined, so an empty reduced axis is an error; other
    axes may be empty (the max over axis 1 of a (0, 3) tensor has shape (0,), as in PyTorch).
    """

    @staticmethod
    def forward(ctx: Context, x, axis, keepdims):
        if _count(x.shape, axis) == 0:
            raise ValueError(f"max: axis={axis} of a tensor of shape {tuple(x.shape)} holds "
                             "no elements, and a maximum needs at least one; reduce over "
                             "non-empty axes only")
        xp = ctx.xp               # the standard's max takes no bools: any is their max
        y = xp.any(x, axis=axis, keepdims=True) if x.dtype == xp.bool else \
            xp.max(x, axis=axis, keepdims=True)
        ctx.save_for_backward(x, y)
        if keepdims:
            return y
        return xp.reshape(y, _reduced_shape(x.shape, axis))        # x.shape without axis

    @staticmethod
    def backward(ctx: Context, gy):
        x, y = ctx.saved_tensors
        xp = ctx.xp
        hit = (x == y) | (xp.isnan(x) & xp.isnan(y))           # a NaN maximum: the NaNs
        mask = xp.astype(hit, gy.dtype)                        # x's shape, 1 at the maxima
        share = mask / xp.sum(mask, axis=ctx.attrs["axis"], keepdims=True)
        return share * xp.reshape(gy, y.shape)                 # gy: x.shape, 1 on axis

    flops = staticmethod(_one_flop_per_input)
