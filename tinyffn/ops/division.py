"""Division with rounding: ``x // w`` (floor_divide), ``x % w`` (remainder, w's sign) and
fmod (x's sign), elementwise and broadcasting; integers stay integers.

Float operands are rounded as NumPy's and PyTorch's CPU kernels round them, from C's exact
fmod, never from a rounded x / w; see :func:`_floor_and_mod`. The results are staircases in
x and w: their derivatives are PyTorch's (0 for ``//``; 1 and -floor(x / w) or -trunc(x / w)
for the two remainders), with none at the jumps.
"""
from __future__ import annotations

import numbers

from .. import tensor as _tensor         # used at call time only (tensor.py imports ops)
from ..autograd import Context, Function
from .elementwise import _broadcast_error
from .shape import sum_to_shape


class _Division(Function):
    """What ``//``, ``%`` and fmod share: how a divisor given as a number is checked."""

    @classmethod
    def apply(cls, x, w, **attrs):
        """Function.apply, telling forward when the divisor needs no look for a 0.

        An integer divisor 0 is refused (:func:`_division_inputs`), and looking for one in
        an array reads it back from the device: on a GPU, a wait for every kernel queued
        before it. A divisor given as a number (``idx % 3``) is known here, on the host:
        one that is not 0, next to an integer or bool x (an integer division; next to a
        float x the number becomes a float and nothing is looked for), is passed on as
        such (``nonzero_divisor``), and forward does not look. A 0 goes on as any divisor,
        to be refused in forward. Every call comes here: ``x % 3``, ``remainder(x, 3)``,
        ``x %= 3``, ``x.remainder_(3)``."""
        integer_x = isinstance(x, _tensor.Tensor) and not x.is_floating_point()
        if integer_x and isinstance(w, numbers.Integral) and w != 0:   # (a bool counts: 1)
            attrs = {**attrs, "nonzero_divisor": True}
        return super().apply(x, w, **attrs)


def _division_inputs(fn: type, ctx: Context, x, w, nonzero_divisor: bool) -> None:
    """Refuse what PyTorch refuses in ``//``, ``%`` and ``fmod``: two bool operands (one
    bool next to a number or an integer counts as an integer, as there) and an integer
    divisor 0 (no integer is the answer; NumPy gives 0 with a RuntimeWarning, CuPy 0 in
    silence: its integer ``_floor_divide`` returns 0 for a 0 divisor, carray.cuh).
    ``nonzero_divisor``: w is a number the host saw was not 0 (``_Division.apply``), so
    w is not read back from the device to look for one."""
    xp, floats = ctx.xp, ctx.backend.float_dtypes
    if x.dtype not in floats and xp.isdtype(x.dtype, "bool"):    # then w is bool too
        raise TypeError(f"{fn.op_name()}: two bool operands are not supported, as in "
                        "PyTorch; cast one first (mask.long())")
    if w.dtype not in floats and not nonzero_divisor and bool(xp.any(w == 0)):
        raise ZeroDivisionError(f"{fn.op_name()}: integer division by zero (a divisor is 0), "
                                "as PyTorch's ZeroDivisionError; for inf and nan instead, "
                                "divide in floating point (x.float())")


def _floor_and_mod(ctx: Context, x, w) -> tuple:
    """(floor(x / w), x mod w with w's sign) for float x and w, as NumPy's and PyTorch's
    CPU kernels compute them: from C's fmod, which is exact, never from a rounded x / w
    (1.0 // 0.1 is 9: 0.1 is a little over 1/10; floor(1.0 / 0.1) would be 10). CuPy's
    own remainder is x - floor(x / w) w, so every backend comes here. float16 computes in
    float32 and rounds once, as NumPy does. A zero w gives x / w and fmod's NaN."""
    xp = ctx.xp
    dtype = xp.result_type(x, w)
    half = dtype == getattr(xp, "float16", None)            # (the strict backend has none)
    x, w = (xp.astype(v, xp.float32 if half else dtype, copy=False) for v in (x, w))
    mod = ctx.backend.fmod(x, w)                            # x - w trunc(x / w), exact
    div = (x - mod) / w                                     # that trunc, very nearly
    fix = (mod != 0) & ((w < 0) != (mod < 0))               # trunc, not floor, there
    mod, div = xp.where(fix, mod + w, mod), xp.where(fix, div - 1, div)
    floor = xp.floor(div)
    floor = xp.where(div - floor > 0.5, floor + 1, floor)   # snap to the integer it is
    floor = xp.where(div == 0, xp.copysign(xp.zeros_like(div), x / w), floor)
    floor = xp.where(w == 0, x / w, floor)
    return xp.astype(floor, dtype, copy=False), xp.astype(mod, dtype, copy=False)


class FloorDivide(_Division):
    """y = floor(x / w), rounded as Python's ``//`` (so that x - w y is exactly x mod w,
    :class:`Remainder`'s y), broadcasting; integers stay integers.

    dy/dx = 0,  dy/dw = 0 wherever they exist: y is a staircase, which jumps where x / w is
    an integer. PyTorch refuses to backpropagate through floor_divide ("derivative ... is
    not implemented"); here the gradient is zeros, floor's derivative, which is what
    PyTorch gives for ``torch.floor(x / w)``, the same function. Like :class:`Sign`, the
    backward returns zeros without reading gy.
    """

    twice_differentiable = True

    @classmethod
    def op_name(cls) -> str:
        return "floor_divide"                   # PyTorch's name, not "floordivide"

    @staticmethod
    def forward(ctx: Context, x, w, nonzero_divisor=False):
        _division_inputs(FloorDivide, ctx, x, w, nonzero_divisor)
        try:
            x, w = ctx.xp.broadcast_arrays(x, w)
        except ValueError as e:
            raise _broadcast_error("floor_divide", x, w) from e
        if ctx.xp.result_type(x, w) in ctx.backend.float_dtypes:
            return _floor_and_mod(ctx, x, w)[0]
        return ctx.xp.floor_divide(x, w)

    @staticmethod
    def backward(ctx: Context, gy):
        xp = ctx.xp
        return tuple(xp.zeros(shape, dtype=gy.dtype) if needed else None
                     for shape, needed in zip(ctx.input_shapes, ctx.needs_input_grad))


class Remainder(_Division):
    """y = x mod w with the sign of w (Python's ``%``, ``torch.remainder``):
    y = x - w floor(x / w), computed exactly (C's fmod, then + w where the signs differ),
    broadcasting; integers stay integers.

    dy/dx = 1,  dy/dw = -floor(x / w)  (PyTorch's; at the jumps, where x / w is an integer,
    there is no derivative). A zero result takes x's sign, as PyTorch's (NumPy gives w's).
    The forward saves floor(x / w) for the backward when w requires grad (x % 2.5 saves
    nothing): a staircase, so a constant to create_graph, as it should be (its derivative
    is 0 wherever it has one).
    """

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x, w, nonzero_divisor=False):
        _division_inputs(Remainder, ctx, x, w, nonzero_divisor)
        xp = ctx.xp
        try:
            xb, wb = xp.broadcast_arrays(x, w)
        except ValueError as e:
            raise _broadcast_error("remainder", x, w) from e
        if xp.result_type(xb, wb) not in ctx.backend.float_dtypes:
            return xp.remainder(xb, wb)
        floor, y = _floor_and_mod(ctx, xb, wb)
        if ctx.needs_input_grad[1]:                         # gw's alone: x % 2.5 keeps none
            ctx.save_for_backward(floor)                    # broadcast shape
        return xp.where(y == 0, xp.copysign(y, xb), y)      # -5.0 % 2.5 is -0.0, as PyTorch

    @staticmethod
    def backward(ctx: Context, gy):
        x_shape, w_shape = ctx.input_shapes
        xp = ctx.xp
        gx = sum_to_shape(xp, gy, x_shape) if ctx.needs_input_grad[0] else None
        gw = None
        if ctx.needs_input_grad[1]:
            (floor,) = ctx.saved_tensors
            gw = sum_to_shape(xp, -gy * floor, w_shape)
        return gx, gw


class Fmod(_Division):
    """y = x mod w with the sign of x (C's fmod, ``torch.fmod``): y = x - w trunc(x / w),
    exact, broadcasting; integers stay integers. The array API standard has remainder but
    no fmod, so: floats by the backend's own fmod (C's, exact); integers as x mod w, minus
    w where that has w's sign and x has the other (|r - w| < |w|, so nothing overflows;
    |x| would, at the dtype's minimum).

    dy/dx = 1,  dy/dw = -trunc(x / w)  (PyTorch's; none at the jumps).
    """

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x, w, nonzero_divisor=False):
        _division_inputs(Fmod, ctx, x, w, nonzero_divisor)
        xp = ctx.xp
        dtype = xp.result_type(x, w)
        try:
            xb, wb = (xp.astype(v, dtype, copy=False) for v in xp.broadcast_arrays(x, w))
        except ValueError as e:
            raise _broadcast_error("fmod", x, w) from e
        ctx.save_for_backward(x, w)
        if dtype in ctx.backend.float_dtypes:
            return ctx.backend.fmod(xb, wb)
        r = xp.remainder(xb, wb)     # int8: abs(-128) is -128, so not sign(x) (|x| mod |w|)
        return xp.where((r != 0) & ((xb < 0) != (wb < 0)), r - wb, r)

    @staticmethod
    def backward(ctx: Context, gy):
        x, w = ctx.saved_tensors
        x_shape, w_shape = ctx.input_shapes
        xp = ctx.xp
        gx = sum_to_shape(xp, gy, x_shape) if ctx.needs_input_grad[0] else None
        gw = (sum_to_shape(xp, -gy * xp.trunc(x / w), w_shape)
              if ctx.needs_input_grad[1] else None)
        return gx, gw
