"""Reductions: sum, mean, max, prod over some axes (``axis=None``: all of them); and the
running sum ``cumsum``, which keeps the axis it adds along.

Each backward has to put back the axes the forward removed: ``gy`` has the reduced shape,
so it is reshaped to the ``keepdims=True`` shape (1 on every reduced axis) and then
broadcast against ``x``.
"""
from __future__ import annotations

import math

from ..autograd import Context, Function
from .elementwise import as_float
from .shape import is_half, summed


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
    uint64); uint64 stays uint64, as int64 cannot hold its values past 2^63. float16 is
    summed in float32 and rounded once, as PyTorch sums it.
    """

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x, axis, keepdims):
        return summed(ctx.xp, _counted(ctx, x), axis, keepdims)

    @staticmethod
    def backward(ctx: Context, gy):
        x_shape = ctx.input_shapes[0]
        gy = ctx.xp.reshape(gy, _kept_shape(x_shape, ctx.attrs["axis"]))  # x.shape, 1 on axis
        return ctx.xp.broadcast_to(gy, x_shape)

    flops = staticmethod(_one_flop_per_input)


def _counted(ctx: Context, x):
    """x, or a bool or unsigned x of up to 32 bits in int64 (see :class:`Sum`): the dtype
    PyTorch sums, multiplies and accumulates them in."""
    xp = ctx.xp
    if x.dtype not in ctx.backend.float_dtypes and x.dtype != xp.uint64 and \
            not xp.isdtype(x.dtype, "signed integer"):
        x = xp.astype(x, xp.int64)
    return x


class Mean(Function):
    """y = sum of x over ``axis`` / n, n the number of elements reduced.    dy/dx_i = 1/n.

    float16 is averaged in float32 and rounded once, as :class:`Sum` sums it."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x, axis, keepdims):
        xp = ctx.xp
        if is_half(xp, x):
            return xp.astype(xp.mean(xp.astype(x, xp.float32), axis=axis, keepdims=keepdims),
                             x.dtype)
        return xp.mean(as_float(ctx, x), axis=axis, keepdims=keepdims)

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

    twice_differentiable = True

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


class Prod(Function):
    """y = product of x over ``axis``.    dy/dx_i = the product of the other elements.

    Where no element of a product is 0 that is y / x_i. With zeros it is not (0 / 0), and
    the cases are exact, as PyTorch's: with one zero, at x_i = 0 the product of the others
    (the nonzero ones), and 0 at every other element (their "others" include the zero);
    with two zeros or more, 0 everywhere. So

        gx = gy * (y / x                      where x != 0
                   prod of the nonzero x      where x == 0 and it is the only zero
                   0                          where x == 0 and there are more)

    Integers and bools multiply in int64, as :class:`Sum` adds them (PyTorch's dtype).
    """

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x, axis, keepdims):
        xp = ctx.xp
        x = _counted(ctx, x)
        y = xp.prod(x, axis=axis, keepdims=True)
        if not keepdims:
            y = xp.reshape(y, _reduced_shape(x.shape, axis))
        ctx.save_for_backward(x, y)     # the output itself: under create_graph, y is a tensor
        return y

    @staticmethod
    def backward(ctx: Context, gy):
        x, y = ctx.saved_tensors
        xp, axis = ctx.xp, ctx.attrs["axis"]
        y = xp.reshape(y, _kept_shape(x.shape, axis))                # x.shape, 1 on axis
        zero = x == 0
        nonzero_x = xp.where(zero, xp.ones((), dtype=x.dtype), x)
        n_zeros = xp.sum(xp.astype(zero, xp.int64), axis=axis, keepdims=True)
        others = xp.prod(nonzero_x, axis=axis, keepdims=True)      # the zero's gradient
        at_zero = xp.where(n_zeros == 1, others, xp.zeros((), dtype=x.dtype))
        local = xp.where(zero, at_zero, y / nonzero_x)              # x.shape: dy/dx
        return xp.reshape(gy, y.shape) * local                      # gy: x.shape, 1 on axis

    flops = staticmethod(_one_flop_per_input)


def cumulative_sum(xp, x, axis: int, reverse: bool = False):
    """The running sum of x along ``axis`` (a 0-d x is its own), from the end if ``reverse``;
    float16 runs in float32, each entry rounded once (see :func:`~tinyffn.ops.shape.summed`)."""
    if is_half(xp, x):
        return xp.astype(cumulative_sum(xp, xp.astype(x, xp.float32), axis, reverse), x.dtype)
    if x.ndim == 0:                 # as a (1,) array: an int32 x adds up in int64 as any
        return xp.reshape(xp.cumulative_sum(xp.reshape(x, (1,)), axis=0), ())
    if not reverse:
        return xp.cumulative_sum(x, axis=axis)
    return xp.flip(xp.cumulative_sum(xp.flip(x, axis=axis), axis=axis), axis=axis)


class Cumsum(Function):
    """y_i = x_1 + ... + x_i along ``axis`` (the running sum; y keeps x's shape).

    x_j counts in every y_i with i >= j, so dL/dx_j = gy_j + gy_{j+1} + ... + gy_n: the
    running sum of gy taken from the end (reversed, summed, reversed back).
    Integers and bools add up in int64, as :class:`Sum` adds them (PyTorch's dtype), and
    float16 in float32, rounded once per entry.
    """

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x, axis):
        return cumulative_sum(ctx.xp, _counted(ctx, x), axis)

    @staticmethod
    def backward(ctx: Context, gy):
        return cumulative_sum(ctx.xp, gy, ctx.attrs["axis"], reverse=True)
