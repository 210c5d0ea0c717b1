"""``F.conv2d``, ``nn.Conv2d`` and im2col itself, ``F.unfold`` / ``F.fold`` (``nn.Unfold``,
``nn.Fold``), as PyTorch 2.13 defines them, composed of primitives.

An image is (N, C, H, W). A 2-D convolution slides a kH × kW kernel over it; output
pixel (i, j) reads the kH·kW input pixels (i·sH + kh·dH, j·sW + kw·dW) of the padded
input, all channels::

    y[n, o, i, j] = b[o] + Σ_c Σ_kh Σ_kw  W[o, c, kh, kw] · x_pad[n, c, i·sH + kh·dH, j·sW + kw·dW]

im2col turns that into one matmul. Cut the windows out, ``unfold``: column l = i·W_out + j
holds window (i, j), its C·kH·kW entries in (c, kh, kw) order, a matrix
(N, C·kH·kW, L) with L = H_out·W_out. The weight flattened to (C_out, C·kH·kW) times
it is y as (N, C_out, L): each output pixel is the dot product of the kernel with its
window. With kernel = stride = p (a ViT's patch embedding) the windows are the
non-overlapping p × p patches, and conv2d is a Linear on each flattened patch.

``fold`` is unfold's adjoint: it adds each column back onto the pixels it was cut from
(a pixel in two windows gets both), so <fold(u), v> = <u, unfold(v)>; fold(unfold(x))
is x times the number of windows holding each pixel. Both are primitives of
ops/windows.py: unfold one ``im2col`` node (``_im2col`` in convolution.py, which conv1d
uses too), fold one ``col2im``; each copies or adds kH·kW strided slices, one per
kernel tap, and each one's backward is the other's forward.
"""
from __future__ import annotations

from typing import Any

from . import grad_mode
from .arguments import type_name
from .convolution import _conv, _ConvNd, _im2col, _out_sizes, _pad_arg, _tuple
from .functional_extra import pad
from .module import Module
from .ops.windows import Col2Im
from .tensor import Tensor


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """The 2-D convolution (a cross-correlation, as PyTorch's): ``unfold``, then one
    matmul with the weight flattened to (C_out, C_in/groups · kH · kW) per group.

    Shapes: input (N, C_in, H, W) or unbatched (C_in, H, W), weight
    (C_out, C_in/groups, kH, kW), bias (C_out,) -> (N, C_out, H_out, W_out), with
    H_out = (H + 2·pH - dH·(kH - 1) - 1) // sH + 1 (W_out alike). ``stride``,
    ``padding``, ``dilation``: an int or a 2-tuple (H, W); ``padding`` also 'valid' or
    'same' (stride 1 only; an odd total goes to the bottom and the right, as PyTorch's).
    ``groups`` splits C_in and C_out, group g's outputs reading group g's inputs only.

    Derivatives (of the primitives it is made of): gW[o, c, kh, kw] = Σ_n,i,j
    gy[n, o, i, j] · x_pad[n, c, i·sH + kh·dH, j·sW + kw·dW]; gx_pad gets Σ_o gy[n, o, i, j]
    W[o, c, kh, kw] at each pixel a window read (fold of Wᵀ gy); gb = gy summed over n, i, j.
    """
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


class Conv2d(_ConvNd):
    """y = conv2d(x, W, b), as ``torch.nn.Conv2d``: W (out_channels, in_channels/groups,
    kH, kW), b (out_channels,); (N, in_channels, H, W) or (in_channels, H, W) ->
    (N, out_channels, H_out, W_out) (see :func:`conv2d`).

    As Conv1d: PyTorch's init, ``kaiming_uniform_(W, a=sqrt(5))`` (bound
    1/sqrt(fan_in), fan_in = in_channels/groups · kH · kW, b from the same bound), its
    attributes (``kernel_size=(3, 3)``...), ``state_dict`` keys and repr; ``padding_mode``
    'reflect', 'replicate' or 'circular' pads with ``F.pad`` in that mode, then
    convolves without padding. ``Conv2d(3, d, kernel_size=p, stride=p)`` is a ViT's
    patch embedding.
    """
    _n = 2


def _check(op: str, x: Any, dims: tuple, shapes: str) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: input must be a tinyffn Tensor, got {type_name(x)}")
    if x.ndim not in dims:
        raise ValueError(f"{op}: input must be {shapes}, got shape {tuple(x.shape)}")


def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
           stride: Any = 1) -> Tensor:
    """The sliding windows as columns (im2col), as ``F.unfold``: (N, C, H, W) or
    (C, H, W) -> (N, C·kH·kW, L) or (C·kH·kW, L), L = H_out·W_out (as conv2d's);
    y[n, (c·kH + kh)·kW + kw, i·W_out + j] = x_pad[n, c, i·sH + kh·dH, j·sW + kw·dW],
    zeros padded. Each argument an int or a 2-tuple. Gradient: each column entry's
    gradient added back onto the pixel it copies (:func:`fold` of gy)."""
    op = "unfold"
    _check(op, input, (3, 4), "4-D (N, C, H, W) or unbatched 3-D (C, H, W)")
    K, d = _tuple("kernel_size", kernel_size, 2, op), _tuple("dilation", dilation, 2, op)
    p, s = _tuple("padding", padding, 2, op, least=0), _tuple("stride", stride, 2, op)
    with grad_mode.scope("function", op):
        x = input.unsqueeze(0) if input.ndim == 3 else input       # (N, C, H, W)
        pads = tuple((q, q) for q in p)
        if any(p):
            x = pad(x, _pad_arg(pads))                              # (N, C, H_pad, W_pad)
        out = _out_sizes(op, tuple(input.shape), x.shape[2:], K, d, s, pads)
        N, C = x.shape[:2]
        cols = _im2col(x, K, d, s, out)                         # (N, C, kH, kW, H_out, W_out)
        y = cols.reshape(N, C * K[0] * K[1], out[0] * out[1])      # (N, C·kH·kW, L)
        return y if input.ndim == 4 else y.squeeze(0)


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1,
         padding: Any = 0, stride: Any = 1) -> Tensor:
    """Columns added back into an image (col2im), as ``F.fold``: (N, C·kH·kW, L) or
    (C·kH·kW, L) -> (N, C, H, W) or (C, H, W), (H, W) = ``output_size``; L must be the
    number of windows unfold cuts from (H, W) with these settings. unfold's adjoint:
    y[n, c, h, w] = Σ of the column entries that unfold copies from pixel (h, w), the
    padding's dropped. One ``col2im`` onto (N, C, H_pad, W_pad), then a crop.
    Gradient: unfold of gy."""
    op = "fold"
    _check(op, input, (2, 3), "3-D (N, C·kH·kW, L) or unbatched 2-D (C·kH·kW, L)")
    size, K = _tuple("output_size", output_size, 2, op), _tuple("kernel_size", kernel_size, 2, op)
    d, s = _tuple("dilation", dilation, 2, op), _tuple("stride", stride, 2, op)
    p = _tuple("padding", padding, 2, op, least=0)
    x = input.unsqueeze(0) if input.ndim == 2 else input           # (N, C·kH·kW, L)
    N, CK, L = x.shape
    if CK % (K[0] * K[1]):
        raise ValueError(f"fold: input of shape {tuple(input.shape)} has {CK} rows, not a "
                         f"multiple of kH·kW = {K[0] * K[1]} (kernel_size={K}); the rows "
                         "are (channel, kh, kw) triples, as unfold writes them")
    padded = (size[0] + 2 * p[0], size[1] + 2 * p[1])
    out = _out_sizes(op, tuple(input.shape), padded, K, d, s, ((p[0],) * 2, (p[1],) * 2))
    if L != out[0] * out[1]:
        raise ValueError(f"fold: input of shape {tuple(input.shape)} has {L} columns, but "
                         f"output_size={size} with kernel_size={K}, dilation={d}, padding="
                         f"{p}, stride={s} has {out[0]} × {out[1]} = {out[0] * out[1]} "
                         "windows; give the output_size and settings unfold was called with")
    with grad_mode.scope("function", op):
        y = _col2im(x.reshape(N, CK // (K[0] * K[1]), K[0] * K[1] * L), size, K, d, p, s, out)
        return y if input.ndim == 3 else y.squeeze(0)              # (N, C, H, W)


def _col2im(x: Tensor, size: tuple, K: tuple, d: tuple, p: tuple, s: tuple,
            out: tuple) -> Tensor:
    """fold's sum, for n spatial axes (conv_transpose1d uses n = 1): x (N, C, ΠK·Πout),
    its last axis in (k_0, ..., k_n-1, t_0, ..., t_n-1) order, each entry added onto
    position t_i·s_i + k_i·d_i of axis i of zeros (N, C, *padded), padded_i = size_i +
    2·p_i (one ``col2im`` node, ops/windows.py); then the padding cropped: (N, C, *size).
    Padded positions past the last window's reach get nothing: zeros are put there."""
    N, C = x.shape[:2]
    padded = tuple(S + 2 * q for S, q in zip(size, p))
    reach = tuple(si * (o - 1) + di * (k - 1) + 1 for k, di, si, o in zip(K, d, s, out))
    y = Col2Im.apply(x.reshape(N, C, *K, *out), size=reach, kernel_size=K, dilation=d,
                     stride=s)                                      # (N, C, *reach)
    if reach != padded:                     # what no window reaches: zeros on the right
        y = pad(y, _pad_arg(tuple((0, P - r) for P, r in zip(padded, reach))))
    if not any(p):
        return y
    return y[(slice(None),) * 2 + tuple(slice(q, q + S) for q, S in zip(p, size))]


class Unfold(Module):
    """:func:`unfold` as a module, as ``torch.nn.Unfold`` (no parameters)."""

    def __init__(self, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = (
            kernel_size, dilation, padding, stride)

    def forward(self, x: Tensor) -> Tensor:
        return unfold(x, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class Fold(Module):
    """:func:`fold` as a module, as ``torch.nn.Fold`` (no parameters)."""

    def __init__(self, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
                 stride: Any = 1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, x: Tensor) -> Tensor:
        return fold(x, self.output_size, self.kernel_size, self.dilation, self.padding,
                    self.stride)

    def extra_repr(self) -> str:
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
                f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}")
