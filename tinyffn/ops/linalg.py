"""Matrix multiplication, the op that does almost all of an FFN's arithmetic.

For matrices, y = x @ w with x (m, k), w (k, n), y (m, n):

    y[i, j] = sum_l x[i, l] w[l, j]
    dL/dx = gy @ w^T        (m, n) @ (n, k) -> (m, k)
    dL/dw = x^T @ gy        (k, m) @ (m, n) -> (k, n)

Each costs 2·m·n·k FLOPs (a multiply and an add per term), the same as the forward, so a
training step costs three times the forward when every input needs a gradient. For one
FFN on data that needs none, the first layer skips dL/dx: its backward costs 1× its
forward, the second layer's 2×, and the step 2.5× the forward.
"""
from __future__ import annotations

import math

from ..autograd import Context, Function
from .shape import sum_to_shape, summed


class MatMul(Function):
    """y = x @ w with NumPy's ``matmul`` rules: 1-D, 2-D, and batched with broadcasting.

    Shapes: x (..., m, k) @ w (..., k, n) -> y (..., m, n); the batch axes ``...``
    broadcast. A 1-D x is a row (k,) -> (1, k); a 1-D w is a column (k,) -> (k, 1); the
    added axis is removed from y. The backward applies the matrix rules above to the
    promoted shapes, sums over broadcast batch axes, then removes the added axes.
    """

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x, w):
        if x.ndim == 0 or w.ndim == 0:
            raise ValueError(f"matmul: both operands need at least one axis, got shapes "
                             f"{tuple(x.shape)} and {tuple(w.shape)}; use * for scalars")
        if x.shape[-1] != w.shape[-2 if w.ndim > 1 else 0]:
            raise ValueError(
                f"matmul: shapes {tuple(x.shape)} and {tuple(w.shape)} are not aligned: the last "
                f"axis of the first ({x.shape[-1]}) must equal the "
                f"{'second-to-last' if w.ndim > 1 else 'only'} axis of the second "
                f"({w.shape[-2 if w.ndim > 1 else 0]})")
        ctx.save_for_backward(x, w)
        try:
            return ctx.xp.matmul(x, w)
        except ValueError as e:
            raise ValueError(f"matmul: the batch axes of {tuple(x.shape)} and {tuple(w.shape)} "
                             "cannot be broadcast together") from e

    @staticmethod
    def backward(ctx: Context, gy):
        x, w = ctx.saved_tensors
        xp = ctx.xp
        x2 = xp.reshape(x, (1, x.shape[0])) if x.ndim == 1 else x      # (..., m, k)
        w2 = xp.reshape(w, (w.shape[0], 1)) if w.ndim == 1 else w      # (..., k, n)
        # gy lacks the axes forward removed from y: put back m = 1 (a 1-D x), n = 1 (a 1-D w)
        gy2 = gy
        if x.ndim == 1:     # before the last axis: (..., n) -> (..., 1, n); () -> (1,) if w is 1-D
            gy2 = xp.expand_dims(gy2, axis=gy2.ndim - (0 if w.ndim == 1 else 1))
        if w.ndim == 1:     # as the last axis: (..., m) -> (..., m, 1)
            gy2 = xp.expand_dims(gy2, axis=gy2.ndim)                    # (..., m, n)
        gx = gw = None
        if ctx.needs_input_grad[0]:
            gx = xp.matmul(gy2, xp.matrix_transpose(w2))               # (..., m, k)
            # sum the batch axes x did not have, drop an added m: (k,) or x's (..., m, k)
            gx = xp.reshape(sum_to_shape(xp, gx, x2.shape), x.shape)
        if ctx.needs_input_grad[1]:
            gw = xp.matmul(xp.matrix_transpose(x2), gy2)               # (..., k, n)
            # sum the batch axes w did not have, drop an added n: (k,) or w's (..., k, n)
            gw = xp.reshape(sum_to_shape(xp, gw, w2.shape), w.shape)
        return gx, gw

    @staticmethod
    def flops(ctx, y):
        """2·m·n·k per matrix product, times the number of products in the batch."""
        k = ctx.input_shapes[0][-1]
        return 2 * k * math.prod(y.shape)


class Linear(Function):
    """y = x @ w^T + b in one node: the fused form of ``functional.linear`` (``fused=True``).

    Shapes: x (..., in), w (out, in), b (out,) -> y (..., out). With x flattened to
    X (N, in) and gy to G (N, out), N the number of positions:

        dL/dx = gy @ w                      (..., out) @ (out, in) -> (..., in)
        dL/dw = G^T @ X                     (out, N) @ (N, in)    -> (out, in)
        dL/db = sum of G over positions     (out,)

    The same numbers as the composed transpose, matmul and add; one node instead of three,
    and the bias added in place, so the forward makes one (..., out) array, not two (the
    composed graph keeps none of them alive either: add saves nothing).
    Call as ``Linear.apply(x, w)`` or ``Linear.apply(x, w, b)``.
    """

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x, w, *b):
        xp = ctx.xp
        if x.shape[-1] != w.shape[1]:
            raise ValueError(f"linear: input of shape {tuple(x.shape)} does not fit weight of "
                             f"shape {tuple(w.shape)}; the last axis must be {w.shape[1]}")
        ctx.save_for_backward(x, w)
        y = xp.matmul(x, xp.matrix_transpose(w))               # (..., out)
        if b and xp.result_type(y, b[0]) == y.dtype:
            y += b[0]                                          # in place: y is ours
        elif b:
            y = y + b[0]                                       # a wider bias widens y
        return y

    @staticmethod
    def backward(ctx: Context, gy):
        x, w = ctx.saved_tensors
        xp = ctx.xp
        need_x, need_w = ctx.needs_input_grad[:2]
        n = math.prod(gy.shape[:-1])                           # N positions, 0 allowed
        gx = xp.matmul(gy, w) if need_x else None              # (..., in)
        gy2 = xp.reshape(gy, (n, w.shape[0]))                  # (N, out)
        gw = xp.matmul(xp.matrix_transpose(gy2), xp.reshape(x, (n, w.shape[1]))) \
            if need_w else None                                # (out, in)
        if len(ctx.parents) == 2:
            return gx, gw
        gb = summed(xp, gy2, 0) if ctx.needs_input_grad[2] else None    # (out,)
        return gx, gw, gb

    @staticmethod
    def flops(ctx, y):
        """2·N·in·out for the product (the bias add, N·out, is counted too)."""
        return 2 * ctx.input_shapes[0][-1] * math.prod(y.shape) + \
            (math.prod(y.shape) if len(ctx.parents) == 3 else 0)

    @classmethod
    def backward_flops(cls, ctx):
        """2·N·in·out for each of dL/dx and dL/dw that is needed, N·out for dL/db."""
        product = 2 * ctx.input_shapes[0][-1] * math.prod(ctx.out_shape)
        needs = ctx.needs_input_grad
        return product * (needs[0] + needs[1]) + \
            (math.prod(ctx.out_shape) if len(needs) == 3 and needs[2] else 0)
