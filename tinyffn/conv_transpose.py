"""``F.conv_transpose1d``, ``F.conv_transpose2d`` and ``nn.ConvTranspose1d``,
``nn.ConvTranspose2d``, as PyTorch 2.13 defines them, composed of primitives (a U-Net's
decoder and a GAN's generator upsample with them).

A transposed convolution is the adjoint of a convolution, which is how it is computed
here. Read conv (convolution.py) with a weight W of shape (C_a, C_b/G, *K) as a linear
map A from x (N, C_b, *S) to y (N, C_a, *L): unfold cuts the windows of the zero-padded
x (im2col), then one matmul per group with W flattened to W_f (C_a, C_b/G · ΠK)::

    A x = W_f · unfold(x)

The adjoint Aᵀ is the map with <Aᵀ y, x> = <y, A x> for every x and y. Transposing each
step and reversing their order::

    <y, W_f · unfold(x)> = <W_fᵀ · y, unfold(x)> = <fold(W_fᵀ · y), x>,   so
    Aᵀ y = fold(W_fᵀ · y)

the second step because fold is unfold's adjoint (convolution2d.py: each column entry is
added back onto the position its window read, and the padding's share is dropped).
That is ``conv_transpose(y, W)``: the same W, now read as (C_in, C_out/G, *K) with
C_in = C_a channels in and C_out = C_b out. Entry by entry, each input position t
spreads its channels over a window of the output that starts at t·stride - padding,
overlapping windows adding::

    x[n, o, t·stride + k·dilation - padding] += Σ_c W[c, o mod C_out/G, k] · y[n, c, t]
                                   (c in o's group), plus b[o] everywhere

The output length is S = (L - 1)·stride - 2·padding + dilation·(K - 1) + 1 +
output_padding: a convolution with stride s maps s input lengths to the same L (its
floor division drops the rest), and ``output_padding`` (< stride or < dilation) says
which one to build; the positions it adds at the end are read by no window and hold the
bias alone. This also explains the two names: conv's gradient with respect to its
input is conv_transpose of gy with conv's weight (backward of a matmul is a matmul
with the transpose), so a transposed convolution is not an inverse ("deconvolution")
but conv's backward run forwards. The graph records one matmul and one ``col2im``
(fold's); their backward gives gy's conv (unfold of gy, then a matmul) for the input
and the usual matmul gradient for W, so no backward is written here.
"""
from __future__ import annotations

import math
from typing import Any

from . import grad_mode
from .convolution import _check_dtypes, _check_ranks, _ConvNd, _tuple
from .convolution2d import _col2im
from .tensor import Tensor


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None,
                     stride: Any = 1, padding: Any = 0, output_padding: Any = 0,
                     groups: int = 1, dilation: Any = 1) -> Tensor:
    """The transposed 1-D convolution, conv1d's adjoint, as ``F.conv_transpose1d``.

    Shapes: input (N, C_in, L) or unbatched (C_in, L), weight (C_in, C_out/groups, K),
    bias (C_out,) -> (N, C_out, L_out) or (C_out, L_out), with
    L_out = (L - 1)·stride - 2·padding + dilation·(K - 1) + output_padding + 1.
    Each argument an int or a 1-tuple; ``padding`` crops that many positions from each
    end of the full result; ``output_padding`` (smaller than stride or dilation) adds
    positions at the end. y = fold(Wᵀ x): see this module's docstring for why that is
    conv1d's adjoint, <conv_transpose1d(y, W), x> = <y, conv1d(x, W)>.

    Derivatives (of the primitives it is made of): gx = conv1d(gy, W) (same stride,
    padding, dilation, groups), gW[c, o, k] = Σ_n,t x[n, c, t] · gy[n, o, t·stride +
    k·dilation - padding], gb = gy summed over n and positions.
    """
    return _conv_transpose("conv_transpose1d", 1, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None,
                     stride: Any = 1, padding: Any = 0, output_padding: Any = 0,
                     groups: int = 1, dilation: Any = 1) -> Tensor:
    """The transposed 2-D convolution, conv2d's adjoint, as ``F.conv_transpose2d``.

    Shapes: input (N, C_in, H, W) or unbatched (C_in, H, W), weight
    (C_in, C_out/groups, kH, kW), bias (C_out,) -> (N, C_out, H_out, W_out), with
    H_out = (H - 1)·sH - 2·pH + dH·(kH - 1) + opH + 1 (W_out alike). Each argument an
    int or a 2-tuple (H, W); ``output_padding`` smaller than stride or dilation on each
    axis. ``ConvTranspose2d(C, C // 2, kernel_size=2, stride=2)`` doubles H and W, a
    U-Net's up-step. Computed as fold(Wᵀ x), one matmul per group and one col2im.

    Derivatives (of the primitives it is made of): gx = conv2d(gy, W) (same settings),
    gW[c, o, kh, kw] = Σ_n,i,j x[n, c, i, j] · gy[n, o, i·sH + kh·dH - pH,
    j·sW + kw·dW - pW], gb = gy summed over n, rows and columns.
    """
    return _conv_transpose("conv_transpose2d", 2, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


def _conv_transpose(op: str, n: int, x: Any, w: Any, b: Any, stride: Any, padding: Any,
                    output_padding: Any, groups: Any, dilation: Any) -> Tensor:
    """conv_transpose1d (n = 1) and 2d (n = 2): Wᵀ x per group, then col2im (fold)."""
    _checked(op, n, x, w, b, groups)
    K, L = tuple(w.shape[2:]), tuple(x.shape[-n:])
    s, d = _tuple("stride", stride, n, op), _tuple("dilation", dilation, n, op)
    if isinstance(padding, str):
        raise ValueError(f"{op}: padding must be an int or a {n}-tuple of ints, got "
                         f"{padding!r}; PyTorch's transposed convolutions take no 'same' "
                         "or 'valid'")
    p = _tuple("padding", padding, n, op, least=0)
    o = _tuple("output_padding", output_padding, n, op, least=0)
    if any(oi >= si and oi >= di for oi, si, di in zip(o, s, d)):
        raise ValueError(f"{op}: output_padding={o if n > 1 else o[0]} must be smaller than "
                         f"the stride ({s if n > 1 else s[0]}) or the dilation "
                         f"({d if n > 1 else d[0]}) on each axis, as in PyTorch: it picks "
                         "one of the output lengths a strided convolution maps to the "
                         "input's")
    size = tuple((Li - 1) * si - 2 * pi + di * (ki - 1) + oi + 1
                 for Li, si, pi, di, ki, oi in zip(L, s, p, d, K, o))
    if any(S < 1 for S in size):
        raise ValueError(f"{op}: padding={p if n > 1 else p[0]} crops away the whole output "
                         f"(input {tuple(x.shape)}, weight {tuple(w.shape)}: output size "
                         f"{size if n > 1 else size[0]}); use less padding")
    unbatched, G = x.ndim == n + 1, groups
    C_in, C_out = w.shape[0], w.shape[1] * G
    with grad_mode.scope("function", op):
        if unbatched:
            x = x.unsqueeze(0)                                          # (1, C_in, *L)
        N = x.shape[0]
        w_flat = w.reshape(G, C_in // G, (C_out // G) * math.prod(K))   # (G, C_in/G, C_out/G·ΠK)
        y = x.reshape(N, G, C_in // G, math.prod(L))                    # (N, G, C_in/G, ΠL)
        cols = w_flat.transpose(1, 2) @ y                               # (N, G, C_out/G·ΠK, ΠL)
        cols = cols.reshape(N, C_out, math.prod(K) * math.prod(L))      # (N, C_out, ΠK·ΠL)
        y = _col2im(cols, size, K, d, p, s, L)                          # (N, C_out, *size)
        if b is not None:
            y = y + b.reshape(C_out, *(1,) * n)                         # (C_out, 1, ...)
        return y.squeeze(0) if unbatched else y


def _checked(op: str, n: int, x: Any, w: Any, b: Any, groups: Any) -> None:
    """PyTorch's checks of a transposed convolution's tensors, with what to do."""
    ks = {1: "kernel_size", 2: "kH, kW", 3: "kD, kH, kW"}[n]
    _check_ranks(op, n, x, w, b, groups, f"(C_in, C_out/groups, {ks}), got shape "
                 f"{tuple(w.shape)}")
    C_in = x.shape[-n - 1]
    if w.shape[0] % groups:
        raise ValueError(f"{op}: groups={groups} must divide the weight's C_in (weight shape "
                         f"{tuple(w.shape)}); give C_in a multiple of {groups}")
    if C_in != w.shape[0]:
        raise ValueError(
            f"{op}: input of shape {tuple(x.shape)} has {C_in} channels, but weight of shape "
            f"{tuple(w.shape)} expects {w.shape[0]}: a transposed convolution's weight is "
            f"(C_in, C_out/groups, {ks}), the layout of the convolution it is the adjoint of "
            f"read the other way (conv's (C_out, C_in/groups, {ks}))")
    if b is not None and tuple(b.shape) != (w.shape[1] * groups,):
        raise ValueError(f"{op}: bias must have shape (C_out,) = ({w.shape[1] * groups},) for "
                         f"weight of shape {tuple(w.shape)} and groups={groups} (C_out = "
                         f"weight.shape[1] · groups), got {tuple(b.shape)}")
    _check_dtypes(op, x, w, b)


class _ConvTransposeNd(_ConvNd):
    """What ConvTranspose1d and 2d share: PyTorch's arguments (``dilation`` after
    ``bias``), its weight layout (in_channels, out_channels/groups, *K) and init, and
    ``forward(input, output_size=None)``."""
    _transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, output_padding: Any = 0, groups: int = 1, bias: bool = True,
                 dilation: Any = 1, padding_mode: str = "zeros", device: Any = None,
                 dtype: Any = None):
        cls = type(self).__name__
        if padding_mode != "zeros":
            raise ValueError(f"{cls}: only padding_mode='zeros' is supported, as in PyTorch, "
                             f"got {padding_mode!r}")
        if isinstance(padding, str):
            raise ValueError(f"{cls}: padding must be an int or a {self._n}-tuple of ints, "
                             f"got {padding!r}; transposed convolutions take no 'same' or "
                             "'valid'")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)
        self.output_padding = _tuple("output_padding", output_padding, self._n, cls, least=0)

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:
        """``output_size`` (the spatial sizes, or the whole shape) picks output_padding, as
        PyTorch's: each size between the smallest output and that plus stride - 1."""
        n = self._n
        o = self.output_padding if output_size is None else \
            self._output_padding(input, output_size)
        return _conv_transpose(f"conv_transpose{n}d", n, input, self.weight, self.bias,
                               self.stride, self.padding, o, self.groups, self.dilation)

    def _output_padding(self, x: Any, output_size: Any) -> tuple:
        n, cls = self._n, type(self).__name__
        if not isinstance(x, Tensor) or x.ndim not in (n + 1, n + 2):
            _conv_transpose(f"conv_transpose{n}d", n, x, self.weight, None, 1, 0, 0,
                            self.groups, 1)                     # its error names the shape
        size = [int(v) for v in output_size]
        if len(size) == x.ndim:
            size = size[-n:]                                    # the whole shape given
        if len(size) != n:
            raise ValueError(f"{cls}: for {x.ndim}-D input, output_size must have {n} or "
                             f"{x.ndim} elements (got {len(size)})")
        L = x.shape[-n:]
        least = [(Li - 1) * s - 2 * p + d * (k - 1) + 1 for Li, s, p, d, k in
                 zip(L, self.stride, self.padding, self.dilation, self.kernel_size)]
        most = [m + s - 1 for m, s in zip(least, self.stride)]
        if any(not a <= S <= b for a, S, b in zip(least, size, most)):
            raise ValueError(f"{cls}: requested an output size of {size}, but valid sizes "
                             f"range from {least} to {most} (for an input of spatial size "
                             f"{list(L)}), as in PyTorch")
        return tuple(S - m for S, m in zip(size, least))


class ConvTranspose1d(_ConvTransposeNd):
    """y = conv_transpose1d(x, W, b), as ``torch.nn.ConvTranspose1d``: W (in_channels,
    out_channels/groups, kernel_size), b (out_channels,); (N, in_channels, L) or
    (in_channels, L) -> (N, out_channels, L_out) (see :func:`conv_transpose1d`).

    Initialised as PyTorch's: ``kaiming_uniform_(W, a=sqrt(5))``, W and b ~
    U(±1/sqrt(fan_in)) with fan_in = W.shape[1] · kernel_size = out_channels/groups ·
    kernel_size (PyTorch reads the fan from the weight's layout). ``forward(x,
    output_size=...)`` chooses among the lengths a stride > 1 leaves open.
    """
    _n = 1


class ConvTranspose2d(_ConvTransposeNd):
    """y = conv_transpose2d(x, W, b), as ``torch.nn.ConvTranspose2d``: W (in_channels,
    out_channels/groups, kH, kW), b (out_channels,); (N, in_channels, H, W) or
    (in_channels, H, W) -> (N, out_channels, H_out, W_out) (see :func:`conv_transpose2d`).

    Init as ConvTranspose1d's (fan_in = out_channels/groups · kH · kW); ``forward(x,
    output_size=...)`` as PyTorch's, so a U-Net's decoder can match the encoder's odd
    sizes: ``up(x, output_size=skip.shape)``.
    """
    _n = 2
