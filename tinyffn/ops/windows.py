"""The sliding windows of a convolution (im2col) and their adjoint (col2im), as two primitives.

A convolution with a kernel of K_0 × ... × K_n-1 taps reads, for output position
(t_0, ..., t_n-1), the input positions t_i·stride_i + k_i·dilation_i. ``im2col`` copies
those windows out, one array holding every window:

    y[..., k_0, ..., k_n-1, t_0, ..., t_n-1] = x[..., t_0·s_0 + k_0·d_0, ..., t_n-1·s_n-1 + k_n-1·d_n-1]

so that the convolution becomes one matmul (convolution.py). ``col2im`` runs it
backwards: each window entry is added back onto the position it was copied from, and a
position read by several windows gets the sum. The two are each other's adjoint,
<col2im(u), v> = <u, im2col(v)>, so each one's backward is the other's forward.

How: one loop over the ΠK kernel taps. For a fixed tap k the entries t = 0..out-1 read
the strided slice k·d, k·d + s, ..., k·d + s·(out - 1) of x (a view, nothing computed),
so im2col copies ΠK slices into place and col2im adds ΠK slices into one zero array.
Composed of getitem and cat instead, the backward made a zero array the size of the
sliced input for every slice (getitem's gradient), then added them up: for a 3 × 3
conv2d that was about a quarter of a forward and backward (tests/test_ops.py checks both
ops against the windows written out element by element).
"""
from __future__ import annotations

import itertools
import math

from ..autograd import Context, Function
from .shape import _no_arithmetic


def _taps(K: tuple, dilation: tuple, stride: tuple, out: tuple):
    """(k, slices) for each kernel tap k = (k_0, ..., k_n-1): the strided slices of the
    spatial axes that tap reads, one output position apart per step."""
    for k in itertools.product(*(range(n) for n in K)):
        yield k, tuple(slice(i * d, i * d + s * (o - 1) + 1, s)
                       for i, d, s, o in zip(k, dilation, stride, out))


def _window_count(op: str, size: tuple, K: tuple, dilation: tuple, stride: tuple) -> tuple:
    """out_i = (size_i - span_i) // stride_i + 1 windows along each spatial axis."""
    spans = tuple(d * (k - 1) + 1 for k, d in zip(K, dilation))
    if any(span > S for span, S in zip(spans, size)):
        raise ValueError(f"{op}: a kernel of size {K} with dilation {dilation} spans "
                         f"{spans} positions, more than the {size} there are; pad the "
                         "input or use a smaller kernel")
    return tuple((S - span) // s + 1 for S, span, s in zip(size, spans, stride))


def _im2col(xp, x, kernel_size: tuple, dilation: tuple, stride: tuple):
    """(lead..., *S) -> (lead..., *K, *out): the windows copied out, one tap at a time."""
    K, n = kernel_size, len(kernel_size)
    out = _window_count("im2col", tuple(x.shape[x.ndim - n:]), K, dilation, stride)
    y = xp.empty(tuple(x.shape[:x.ndim - n]) + K + out, dtype=x.dtype)   # (lead, *K, *out)
    for k, window in _taps(K, dilation, stride, out):
        y[(...,) + k + (slice(None),) * n] = x[(...,) + window]           # (lead, *out)
    return y


def _col2im(xp, y, size: tuple, kernel_size: tuple, dilation: tuple, stride: tuple):
    """(lead..., *K, *out) -> (lead..., *size): each window entry added back where it was
    read; a position in several windows gets their sum."""
    K, n = kernel_size, len(kernel_size)
    out = _window_count("col2im", size, K, dilation, stride)
    if tuple(y.shape[y.ndim - 2 * n:]) != K + out:
        raise ValueError(f"col2im: input of shape {tuple(y.shape)} must end in the kernel "
                         f"{K} and the {out} windows of a size {size} with dilation "
                         f"{dilation} and stride {stride}; pass what im2col made")
    x = xp.zeros(tuple(y.shape[:y.ndim - 2 * n]) + size, dtype=y.dtype)  # (lead, *size)
    for k, window in _taps(K, dilation, stride, out):
        x[(...,) + window] += y[(...,) + k + (slice(None),) * n]          # (lead, *out)
    return x


class Im2Col(Function):
    """y = im2col(x): the sliding windows of x's last n axes (n = len(kernel_size)).

    Shapes: x (lead..., S_0, ..., S_n-1) -> y (lead..., K_0, ..., K_n-1, out_0, ...,
    out_n-1), out_i = (S_i - d_i·(K_i - 1) - 1) // s_i + 1 (no padding: pad x first),
    y[..., k, t] = x[..., t·s + k·d] on each spatial axis.

    dL/dx = col2im(gy): zeros of x's shape, then for each tap k,
    gx[..., k·d : k·d + s·(out - 1) + 1 : s] += gy[..., k, :]; a position read by several
    windows gets each of their gradients.
    """

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x, kernel_size, dilation, stride):
        return _im2col(ctx.xp, x, kernel_size, dilation, stride)

    @staticmethod
    def backward(ctx: Context, gy):
        n = len(ctx.attrs["kernel_size"])
        size = tuple(ctx.input_shapes[0][-n:])
        if not isinstance(gy, ctx.backend.array_type):  # create_graph: col2im recorded
            return Col2Im.apply(gy, size=size, **ctx.attrs)
        return _col2im(ctx.xp, gy, size, **ctx.attrs)

    flops = staticmethod(_no_arithmetic)

    @classmethod
    def backward_flops(cls, ctx: Context) -> int:
        """One addition per window entry (col2im)."""
        return math.prod(ctx.out_shape) if ctx.needs_input_grad[0] else 0


class Col2Im(Function):
    """y = col2im(x): windows added back onto an array of spatial ``size``, im2col's adjoint.

    Shapes: x (lead..., K_0, ..., K_n-1, out_0, ..., out_n-1) -> y (lead..., *size), the
    out_i those im2col cuts from ``size``: y = zeros, then for each tap k,
    y[..., k·d : k·d + s·(out - 1) + 1 : s] += x[..., k, :] (fold, and conv's gx).

    dL/dx = im2col(gy): each entry's gradient is gy where it landed,
    gx[..., k, t] = gy[..., t·s + k·d].
    """

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, x, size, kernel_size, dilation, stride):
        return _col2im(ctx.xp, x, size, kernel_size, dilation, stride)

    @staticmethod
    def backward(ctx: Context, gy):
        attrs = {k: v for k, v in ctx.attrs.items() if k != "size"}
        if not isinstance(gy, ctx.backend.array_type):  # create_graph: im2col recorded
            return Im2Col.apply(gy, **attrs)
        return _im2col(ctx.xp, gy, **attrs)

    @staticmethod
    def flops(ctx: Context, y) -> int:
        """One addition per window entry."""
        return math.prod(ctx.input_shapes[0])

    @classmethod
    def backward_flops(cls, ctx: Context) -> int:
        return 0                        # a gather: no arithmetic
