"""``F.conv1d`` and ``nn.Conv1d``, as PyTorch 2.13 defines them, composed of primitives.

"Attention Is All You Need" (§3.3) describes the position-wise FFN as "two convolutions
with kernel size 1", and older code writes it ``nn.Conv1d(d, 4d, 1)``. A 1-D convolution
slides a kernel of K positions along the sequence; output position t reads the K input
positions t·stride + k·dilation (k = 0..K-1) of the padded input, all channels::

    y[n, o, t] = b[o] + Σ_c Σ_k  W[o, c, k] · x_pad[n, c, t·stride + k·dilation]

With K = 1 (and stride 1, no padding) that is y_t = W x_t + b at each position t: the
Linear of the FFN, the weight (out, in, 1) holding Linear's (out, in). With K = 3 each
output position sees its neighbours too, and the map is no longer position-wise
(docs/ffn.md, "The FFN as two convolutions of kernel size 1", shows both).

How it is computed (im2col): pad; copy out the K shifted windows, each a strided slice
(N, C_in, L_out), into one array (N, C_in, K, L_out) (the ``im2col`` primitive,
ops/windows.py); then one matmul with the weight flattened to (C_out, C_in·K).
``groups`` splits the channels into G groups that the matmul's batch axis keeps apart.
All of it runs in a frame named ``conv1d``, so no backward is written here: im2col's
(col2im) adds each window's gradient back onto the entries it read (an entry read by
two windows gets both), the matmul gives gx and gW as in ``linear``.
The code is written for n spatial axes (``_conv``, ``_im2col``, ``_ConvNd``): conv2d
and ``nn.Conv2d`` (convolution2d.py) are it with two.
"""
from __future__ import annotations

import math
from typing import Any

from . import grad_mode, init
from .arguments import _is_int, type_name
from .backend import DEFAULTS, dtype_name
from .creation import empty
from .functional_extra import pad
from .module import Module, Parameter
from .ops.windows import Im2Col
from .tensor import Tensor

PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """The 1-D convolution (a cross-correlation, as in PyTorch: the kernel is not flipped).

    Shapes: input (N, C_in, L) or unbatched (C_in, L), weight (C_out, C_in/groups, K),
    bias (C_out,) -> (N, C_out, L_out) or (C_out, L_out), with
    L_out = (L + 2·padding - dilation·(K - 1) - 1) // stride + 1.
    ``stride``, ``padding``, ``dilation``: an int or a 1-tuple; ``padding`` also 'valid'
    (0) or 'same' (L_out = L, stride 1 only; an odd total goes to the right, as PyTorch's).
    ``groups``: C_in and C_out split into that many groups, group g's outputs reading
    group g's inputs only.

    Derivatives (of the primitives it is made of): gW[o, c, k] = Σ_n,t gy[n, o, t] ·
    x_pad[n, c, t·stride + k·dilation], gx_pad[n, c, t·stride + k·dilation] +=
    Σ_o gy[n, o, t] W[o, c, k], gb = gy summed over n and t.
    """
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def _conv(op: str, n: int, x: Any, w: Any, b: Any, stride: Any, padding: Any, dilation: Any,
          groups: Any) -> Tensor:
    """conv1d (n = 1) and conv2d (n = 2): pad, im2col, one matmul per group."""
    x, w = _checked(op, n, x, w, b, groups)
    K = tuple(w.shape[2:])
    stride, dilation = _tuple("stride", stride, n, op), _tuple("dilation", dilation, n, op)
    pads = _paddings(op, padding, stride, dilation, K)
    unbatched, shape = x.ndim == n + 1, tuple(x.shape)
    C_out, G = w.shape[0], groups
    with grad_mode.scope("function", op):
        if unbatched:
            x = x.unsqueeze(0)                                    # (1, C_in, *S)
        if any(left or right for left, right in pads):
            x = pad(x, _pad_arg(pads))                            # (N, C_in, *S_pad)
        out = _out_sizes(op, shape, x.shape[2:], K, dilation, stride, pads)
        N, C_in = x.shape[:2]
        cols = _im2col(x, K, dilation, stride, out)               # (N, C_in, *K, *out)
        cols = cols.reshape(N, G, (C_in // G) * math.prod(K), math.prod(out))
        w_flat = w.reshape(G, C_out // G, (C_in // G) * math.prod(K))  # (G, C_out/G, C_in/G·ΠK)
        y = (w_flat @ cols).reshape(N, C_out, *out)               # (N, G, C_out/G, Πout)
        if b is not None:
            y = y + b.reshape(C_out, *(1,) * n)                   # (C_out, 1, ...) over n, t
        return y.squeeze(0) if unbatched else y


def _im2col(x: Tensor, K: tuple, dilation: tuple, stride: tuple, out: tuple) -> Tensor:
    """The windows of a padded x (lead..., *S) -> (lead..., *K, *out), one ``im2col`` node
    (ops/windows.py): windows[..., kh, kw, i, j] = x[..., i·sH + kh·dH, j·sW + kw·dW].
    Positions past the last of the ``out`` windows (ceil_mode's dropped window in pooling)
    are cut off first."""
    n = len(K)
    reach = tuple(s * (o - 1) + d * (k - 1) + 1 for k, d, s, o in zip(K, dilation, stride, out))
    if reach != tuple(x.shape[-n:]):
        x = x[(...,) + tuple(slice(0, r) for r in reach)]           # (lead, *reach)
    return Im2Col.apply(x, kernel_size=K, dilation=dilation, stride=stride)


def _out_sizes(op: str, shape: tuple, padded: tuple, K: tuple, dilation: tuple,
               stride: tuple, pads: tuple) -> tuple:
    """Each output length, (S_pad - span) // stride + 1; refused where the kernel does
    not fit."""
    out = []
    for i, (S, k, d, s) in enumerate(zip(padded, K, dilation, stride)):
        span = d * (k - 1) + 1                        # input positions one output reads
        if span > S:
            unit = ("positions",) if len(K) == 1 else ("planes", "rows", "columns")[-len(K):]
            unit = unit[i]
            raise ValueError(
                f"{op}: the kernel spans {span} {unit} (kernel_size={k}, dilation={d}) but "
                f"the padded input has {S} (input {shape}, padding {pads[i]}); pad more, or "
                "use a shorter kernel")
        out.append((S - span) // s + 1)
    return tuple(out)


def _pad_arg(pads: tuple) -> tuple:
    """((left, right) per axis, first axis first) -> F.pad's order, last axis first."""
    return tuple(c for pair in reversed(pads) for c in pair)


_LAYOUT = {1: ("(N, C_in, L)", "(C_in, L)", "for one sequence of channels use x.unsqueeze(0)",
               "(C_out, C_in/groups, kernel_size)",
               "a Linear's (out, in) weight is w.unsqueeze(-1) as a kernel of size 1",
               "channels come before length: (N, C_in, L), so a (N, L, C) tensor needs "
               "x.transpose(1, 2)"),
           2: ("(N, C_in, H, W)", "(C_in, H, W)", "for one image of one channel use "
               "x.unsqueeze(0)", "(C_out, C_in/groups, kH, kW)",
               "a Linear's (out, in) weight is w[:, :, None, None] as a 1×1 kernel",
               "channels come before height and width: (N, C_in, H, W), so a (N, H, W, C) "
               "image needs x.permute(0, 3, 1, 2)"),
           3: ("(N, C_in, D, H, W)", "(C_in, D, H, W)", "for one volume of one channel use "
               "x.unsqueeze(0)", "(C_out, C_in/groups, kD, kH, kW)",
               "a Linear's (out, in) weight is w[:, :, None, None, None] as a 1×1×1 kernel",
               "channels come before depth, height and width: (N, C_in, D, H, W), so a "
               "(N, D, H, W, C) volume needs x.permute(0, 4, 1, 2, 3)")}


def _checked(op: str, n: int, x: Any, w: Any, b: Any, groups: Any) -> tuple:
    """PyTorch's checks of a convolution's tensors, with what to do."""
    ws, w_hint, c_hint = _LAYOUT[n][3:]
    _check_ranks(op, n, x, w, b, groups, f"{ws}, got shape {tuple(w.shape)}; {w_hint}")
    C_out, C_per_group = w.shape[:2]
    if C_out % groups:
        raise ValueError(f"{op}: groups={groups} must divide the weight's C_out (weight "
                         f"shape {tuple(w.shape)}); give C_out a multiple of {groups}")
    C_in = x.shape[-n - 1]                      # (N, C_in, *S) or (C_in, *S)
    if C_in != C_per_group * groups:
        raise ValueError(
            f"{op}: input of shape {tuple(x.shape)} has {C_in} channels, but weight of "
            f"shape {tuple(w.shape)} with groups={groups} expects {C_per_group * groups} "
            f"(C_in/groups = {C_per_group}); {c_hint}")
    if b is not None and tuple(b.shape) != (C_out,):
        raise ValueError(f"{op}: bias must have shape (C_out,) = ({C_out},) for weight of "
                         f"shape {tuple(w.shape)}, got {tuple(b.shape)}")
    _check_dtypes(op, x, w, b)
    return x, w


def _check_ranks(op: str, n: int, x: Any, w: Any, b: Any, groups: Any, weight: str) -> None:
    """Tensors, of n + 2 axes (or an unbatched input of n + 1), a positive int ``groups``
    and no kernel of size 0: what a convolution and its transpose check first. ``weight``
    ends the weight's error: its layout, the shape got, what to do."""
    xs, xu, hint = _LAYOUT[n][:3]
    _check_tensors(op, x, w, b)
    if x.ndim not in (n + 1, n + 2):
        raise ValueError(f"{op}: input must be {n + 2}-D {xs} or unbatched {n + 1}-D {xu}, "
                         f"got shape {tuple(x.shape)}; {hint}")
    if w.ndim != n + 2:
        raise ValueError(f"{op}: weight must be {n + 2}-D {weight}")
    if not _is_int(groups) or groups < 1:
        raise ValueError(f"{op}: groups must be a positive integer, got {groups!r}")
    if 0 in w.shape[2:]:
        raise ValueError(f"{op}: weight of shape {tuple(w.shape)} has a kernel of size 0")


def _check_tensors(op: str, x: Any, w: Any, b: Any) -> None:
    for name, t in (("input", x), ("weight", w)) + ((("bias", b),) if b is not None else ()):
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}: {name} must be a tinyffn Tensor, got {type_name(t)}; "
                            "wrap it with tinyffn.tensor(...)")


def _check_dtypes(op: str, x: Tensor, w: Tensor, b: Any) -> None:
    """One floating dtype for the input, weight and bias, as PyTorch's."""
    for name, t in (("input", x), ("weight", w)) + ((("bias", b),) if b is not None else ()):
        if not t.backend.is_floating(t.dtype) and dtype_name(t.dtype) == dtype_name(x.dtype):
            raise TypeError(f"{op}: {name} has dtype {dtype_name(t.dtype)}; tinyffn's {op} "
                            "takes floating-point tensors (PyTorch's also computes integers, "
                            "on the CPU only): cast the input, weight and bias with .float()")
        if not t.backend.is_floating(t.dtype) or dtype_name(t.dtype) != dtype_name(x.dtype):
            raise TypeError(f"{op}: {name} has dtype {dtype_name(t.dtype)} but input has "
                            f"{dtype_name(x.dtype)}; the input, weight and bias must share "
                            "one floating dtype (as in PyTorch): cast with .to(dtype=...)")


def _tuple(name: str, v: Any, n: int, op: str, least: int = 1) -> tuple:
    """``stride``, ``dilation``, ``kernel_size``...: an int >= least, or an n-tuple of them."""
    t = tuple(v) if isinstance(v, (tuple, list)) and len(v) == n else (v,) * n
    if not all(_is_int(i) and i >= least for i in t):
        kind = "a positive integer" if least == 1 else f"an int >= {least}"
        raise ValueError(f"{op}: {name} must be {kind} or a {n}-tuple of "
                         f"{'one' if n == 1 else 'them'}, got {v!r}")
    return tuple(int(i) for i in t)


def _paddings(op: str, padding: Any, stride: tuple, dilation: tuple, K: tuple) -> tuple:
    """(left, right) zeros per axis: from an int or n-tuple, 'valid' (none) or 'same'."""
    n = len(K)
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * n
        if padding != "same":
            raise ValueError(f"{op}: padding must be an int, a {n}-tuple, 'valid' or 'same', "
                             f"got {padding!r}")
        if any(s != 1 for s in stride):
            s = stride[0] if n == 1 else stride
            raise ValueError(f"{op}: padding='same' is not supported for strided "
                             f"convolutions (stride={s}), as in PyTorch: the output "
                             "could not have the input's size; give padding as a number")
        totals = [d * (k - 1) for d, k in zip(dilation, K)]
        return tuple((t // 2, t - t // 2) for t in totals)
    p = _tuple("padding", padding, n, op, least=0) if _is_int(padding) or (
        isinstance(padding, (tuple, list)) and len(padding) == n) else None
    if p is None:
        raise ValueError(f"{op}: padding must be an int >= 0, a {n}-tuple of "
                         f"{'one' if n == 1 else 'them'}, 'valid' or 'same', got {padding!r}")
    return tuple((q, q) for q in p)


class _ConvNd(Module):
    """What Conv1d and Conv2d share (and ConvTranspose1d, 2d: conv_transpose.py): PyTorch's
    constructor, init, padding modes, repr."""
    _n: int = 1
    _transposed: bool = False      # the weight (in_channels, out_channels/groups, *K)

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None):
        super().__init__()
        cls, n = type(self).__name__, self._n
        for name, c in (("in_channels", in_channels), ("out_channels", out_channels),
                        ("groups", groups)):
            if not _is_int(c) or c < 1:
                raise ValueError(f"{cls}: {name} must be a positive integer, got {c!r}")
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"{cls}: groups={groups} must divide in_channels={in_channels} "
                             f"and out_channels={out_channels}")
        if padding_mode not in PADDING_MODES:
            raise ValueError(f"{cls}: padding_mode must be one of {PADDING_MODES}, got "
                             f"{padding_mode!r}")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size = _tuple("kernel_size", kernel_size, n, cls)
        self.stride = _tuple("stride", stride, n, cls)
        self.dilation = _tuple("dilation", dilation, n, cls)
        pads = _paddings(cls, padding, self.stride, self.dilation, self.kernel_size)  # checks
        self.padding = padding if isinstance(padding, str) else tuple(p for p, _ in pads)
        self.padding_mode = padding_mode
        self.transposed, self.output_padding = self._transposed, (0,) * n   # as PyTorch's
        shape = ((in_channels, out_channels // groups) if self._transposed else
                 (out_channels, in_channels // groups)) + self.kernel_size
        self.weight = Parameter(empty(*shape, dtype=dtype or DEFAULTS.float, device=device or "cpu"))
        self.bias = (Parameter(empty(out_channels, dtype=dtype or DEFAULTS.float,
                                     device=device or "cpu")) if bias else None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(math.prod(self.weight.shape[1:]))
            init.uniform_(self.bias, -bound, bound)

    def _conv(self, x: Any, padding: Any) -> Tensor:
        return _conv(f"conv{self._n}d", self._n, x, self.weight, self.bias, self.stride,
                     padding, self.dilation, self.groups)

    def forward(self, x: Tensor) -> Tensor:
        if self.padding_mode == "zeros":
            return self._conv(x, self.padding)
        pads = _paddings(type(self).__name__, self.padding, self.stride, self.dilation,
                         self.kernel_size)
        if not isinstance(x, Tensor) or x.ndim not in (self._n + 1, self._n + 2):
            self._conv(x, 0)                             # its error names the input's shape
        try:
            x = pad(x, _pad_arg(pads), mode=self.padding_mode)
        except ValueError as e:                         # say which module's setting it was
            raise ValueError(f"{type(self).__name__}(padding_mode={self.padding_mode!r}): "
                             f"{e}") from None
        return self._conv(x, 0)

    def extra_repr(self) -> str:
        n = self._n
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if any(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv1d(_ConvNd):
    """y = conv1d(x, W, b), as ``torch.nn.Conv1d``: W (out_channels, in_channels/groups,
    kernel_size), b (out_channels,). Shapes: (N, in_channels, L) or (in_channels, L) ->
    (N, out_channels, L_out) or (out_channels, L_out) (see :func:`conv1d`).

    Initialised as PyTorch's: ``kaiming_uniform_(W, a=sqrt(5))``, so W ~ U(-1/sqrt(fan_in),
    1/sqrt(fan_in)) with fan_in = in_channels/groups · kernel_size, and b from the same
    bound; drawn from :func:`tinyffn.manual_seed`'s generator, W first. ``padding_mode``:
    'zeros', or 'reflect', 'replicate', 'circular' (``F.pad`` in that mode, then no
    padding).
    ``Conv1d(d, 4 * d, 1)`` on (N, d, T) is ``Linear(d, 4 * d)`` on (N, T, d).
    """
    _n = 1
