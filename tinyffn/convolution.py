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

How it is computed (im2col): pad; take the K shifted windows, each a strided slice
(N, C_in, L_out), and stack them (N, C_in, K, L_out); then one matmul with the weight
flattened to (C_out, C_in·K). ``groups`` splits the channels into G groups that the
matmul's batch axis keeps apart. All of it runs in a frame named ``conv1d``, so no
backward is written here: the slices send gradients back to the entries they read
(an entry read by two windows gets both), the matmul gives gx and gW as in ``linear``.
"""
from __future__ import annotations

import math
from typing import Any

from . import grad_mode, init
from .arguments import _is_int, type_name
from .backend import DEFAULTS, dtype_name
from .creation import empty, stack
from .functional_extra import pad
from .module import Module, Parameter
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
    x, w = _checked(input, weight, bias, groups)
    stride, dilation = _single("stride", stride), _single("dilation", dilation)
    left, right = _padding(padding, stride, dilation, w.shape[-1])
    unbatched = x.ndim == 2
    C_out, _, K = w.shape
    with grad_mode.scope("function", "conv1d"):
        if unbatched:
            x = x.unsqueeze(0)                                       # (1, C_in, L)
        if left or right:
            x = pad(x, (left, right))                                # (N, C_in, L_pad)
        N, C_in, L_pad = x.shape
        span = dilation * (K - 1) + 1                # input positions one output reads
        if span > L_pad:
            raise ValueError(
                f"conv1d: the kernel spans {span} positions (kernel_size={K}, dilation="
                f"{dilation}) but the padded input has {L_pad} (input {tuple(input.shape)}, "
                f"padding ({left}, {right})); pad more, or use a shorter kernel")
        L_out = (L_pad - span) // stride + 1
        last = stride * (L_out - 1) + 1              # length of each window's slice
        windows = stack([x[:, :, k * dilation:k * dilation + last:stride]   # (N, C_in, L_out)
                         for k in range(K)], axis=2)                      # (N, C_in, K, L_out)
        G = groups
        cols = windows.reshape(N, G, (C_in // G) * K, L_out)     # (N, G, C_in/G·K, L_out)
        w_flat = w.reshape(G, C_out // G, (C_in // G) * K)       # (G, C_out/G, C_in/G·K)
        y = (w_flat @ cols).reshape(N, C_out, L_out)             # (N, G, C_out/G, L_out)
        if bias is not None:
            y = y + bias.reshape(C_out, 1)                       # (C_out, 1) over n and t
        return y.squeeze(0) if unbatched else y


def _checked(x: Any, w: Any, b: Any, groups: Any) -> tuple:
    """PyTorch's checks of conv1d's tensors, with what to do."""
    for name, t in (("input", x), ("weight", w)) + ((("bias", b),) if b is not None else ()):
        if not isinstance(t, Tensor):
            raise TypeError(f"conv1d: {name} must be a tinyffn Tensor, got {type_name(t)}; "
                            "wrap it with tinyffn.tensor(...)")
    if x.ndim not in (2, 3):
        raise ValueError(f"conv1d: input must be 3-D (N, C_in, L) or unbatched 2-D (C_in, L), "
                         f"got shape {tuple(x.shape)}; for one sequence of channels use "
                         "x.unsqueeze(0)")
    if w.ndim != 3:
        raise ValueError(f"conv1d: weight must be 3-D (C_out, C_in/groups, kernel_size), got "
                         f"shape {tuple(w.shape)}; a Linear's (out, in) weight is "
                         "w.unsqueeze(-1) as a kernel of size 1")
    if not _is_int(groups) or groups < 1:
        raise ValueError(f"conv1d: groups must be a positive integer, got {groups!r}")
    C_out, C_per_group, K = w.shape
    if K == 0:
        raise ValueError(f"conv1d: weight of shape {tuple(w.shape)} has a kernel of size 0")
    if C_out % groups:
        raise ValueError(f"conv1d: groups={groups} must divide the weight's C_out (weight "
                         f"shape {tuple(w.shape)}); give C_out a multiple of {groups}")
    C_in = x.shape[-2]                          # (N, C_in, L) or (C_in, L)
    if C_in != C_per_group * groups:
        raise ValueError(
            f"conv1d: input of shape {tuple(x.shape)} has {C_in} channels, but weight of "
            f"shape {tuple(w.shape)} with groups={groups} expects {C_per_group * groups} "
            f"(C_in/groups = {C_per_group}); channels come before length: (N, C_in, L), "
            "so a (N, L, C) tensor needs x.transpose(1, 2)")
    if b is not None and tuple(b.shape) != (C_out,):
        raise ValueError(f"conv1d: bias must have shape (C_out,) = ({C_out},) for weight of "
                         f"shape {tuple(w.shape)}, got {tuple(b.shape)}")
    for name, t in (("input", x), ("weight", w)) + ((("bias", b),) if b is not None else ()):
        if not t.backend.is_floating(t.dtype) and dtype_name(t.dtype) == dtype_name(x.dtype):
            raise TypeError(f"conv1d: {name} has dtype {dtype_name(t.dtype)}; tinyffn's conv1d "
                            "takes floating-point tensors (PyTorch's also computes integers, "
                            "on the CPU only): cast the input, weight and bias with .float()")
        if not t.backend.is_floating(t.dtype) or dtype_name(t.dtype) != dtype_name(x.dtype):
            raise TypeError(f"conv1d: {name} has dtype {dtype_name(t.dtype)} but input has "
                            f"{dtype_name(x.dtype)}; the input, weight and bias must share "
                            "one floating dtype (as in PyTorch): cast with .to(dtype=...)")
    return x, w


def _single(name: str, v: Any, op: str = "conv1d") -> int:
    """``stride``, ``dilation`` or ``kernel_size``: a positive int or a 1-tuple of one."""
    n = v[0] if isinstance(v, (tuple, list)) and len(v) == 1 else v
    if not _is_int(n) or n < 1:
        raise ValueError(f"{op}: {name} must be a positive integer or a 1-tuple of one, "
                         f"got {v!r}")
    return int(n)


def _padding(padding: Any, stride: int, dilation: int, K: int) -> tuple:
    """(left, right) zeros: from an int or 1-tuple, 'valid' (none) or 'same'."""
    if isinstance(padding, str):
        if padding == "valid":
            return 0, 0
        if padding != "same":
            raise ValueError(f"conv1d: padding must be an int, a 1-tuple, 'valid' or 'same', "
                             f"got {padding!r}")
        if stride != 1:
            raise ValueError(f"conv1d: padding='same' is not supported for strided "
                             f"convolutions (stride={stride}), as in PyTorch: the output "
                             "could not have the input's length; give padding as a number")
        total = dilation * (K - 1)
        return total // 2, total - total // 2
    p = padding[0] if isinstance(padding, (tuple, list)) and len(padding) == 1 else padding
    if not _is_int(p) or p < 0:
        raise ValueError(f"conv1d: padding must be an int >= 0, a 1-tuple of one, 'valid' or "
                         f"'same', got {padding!r}")
    return int(p), int(p)


class Conv1d(Module):
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

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None):
        super().__init__()
        for name, n in (("in_channels", in_channels), ("out_channels", out_channels),
                        ("groups", groups)):
            if not _is_int(n) or n < 1:
                raise ValueError(f"Conv1d: {name} must be a positive integer, got {n!r}")
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"Conv1d: groups={groups} must divide in_channels={in_channels} "
                             f"and out_channels={out_channels}")
        if padding_mode not in PADDING_MODES:
            raise ValueError(f"Conv1d: padding_mode must be one of {PADDING_MODES}, got "
                             f"{padding_mode!r}")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size = (_single("kernel_size", kernel_size, "Conv1d"),)
        self.stride = (_single("stride", stride, "Conv1d"),)
        self.dilation = (_single("dilation", dilation, "Conv1d"),)
        _padding(padding, self.stride[0], self.dilation[0], self.kernel_size[0])   # checks
        self.padding = padding if isinstance(padding, str) else (_padding(padding, 1, 1, 1)[0],)
        self.padding_mode = padding_mode
        shape = (out_channels, in_channels // groups, self.kernel_size[0])
        self.weight = Parameter(empty(*shape, dtype=dtype or DEFAULTS.float, device=device or "cpu"))
        self.bias = (Parameter(empty(out_channels, dtype=dtype or DEFAULTS.float,
                                     device=device or "cpu")) if bias else None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.weight.shape[1] * self.weight.shape[2])
            init.uniform_(self.bias, -bound, bound)

    def forward(self, x: Tensor) -> Tensor:
        if self.padding_mode == "zeros":
            return conv1d(x, self.weight, self.bias, self.stride, self.padding, self.dilation,
                          self.groups)
        left, right = _padding(self.padding, self.stride[0], self.dilation[0],
                               self.kernel_size[0])
        if not isinstance(x, Tensor) or x.ndim not in (2, 3):
            conv1d(x, self.weight, self.bias)            # its error names the input's shape
        try:
            x = pad(x, (left, right), mode=self.padding_mode)
        except ValueError as e:                         # say which module's setting it was
            raise ValueError(f"Conv1d(padding_mode={self.padding_mode!r}): {e}") from None
        return conv1d(x, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)

    def extra_repr(self) -> str:
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,):
            s += f", padding={self.padding}"
        if self.dilation != (1,):
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s
