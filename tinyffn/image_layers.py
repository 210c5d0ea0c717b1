"""The small layers a CNN port needs beside convolutions and pools, as PyTorch 2.13
defines them, each composed of existing ops:

* ``F.pixel_shuffle`` / ``F.pixel_unshuffle`` (``nn.PixelShuffle``, ``nn.PixelUnshuffle``):
  channels traded for resolution, (*, C·r², H, W) <-> (*, C, H·r, W·r), one reshape,
  permute, reshape (a super-resolution net's upsampling); ``F.channel_shuffle``
  (``nn.ChannelShuffle``), ShuffleNet's interleaving of channel groups, alike;
* the padding modules ``ZeroPad1d/2d``, ``ConstantPad1d/2d``, ``ReflectionPad1d/2d``,
  ``ReplicationPad1d/2d``, ``CircularPad1d/2d``: ``F.pad`` with their mode;
* ``F.dropout1d`` / ``F.dropout2d`` (``nn.Dropout1d``, ``nn.Dropout2d``): dropout of whole
  channels (Tompson et al. 2015), for feature maps whose neighbouring entries are
  correlated, so zeroing single entries would regularise little::

      y[n, c, ...] = x[n, c, ...] · m[n, c],   m = 1/(1 - p) with probability 1 - p, else 0

  The mask is ``F.dropout`` of ones of shape (N, C, 1, ...): the same generator, checks
  and scaling, broadcast over the channel's entries; dL/dx = gy · m.
"""
from __future__ import annotations

import warnings
from typing import Any

from . import grad_mode
from .arguments import _is_int, check_inplace, check_probability
from .creation import ones
from .functional import dropout
from .functional_extra import pad
from .module import Module
from .tensor import Tensor


def _factor(op: str, name: str, r: Any) -> int:
    if not _is_int(r) or r < 1:
        raise ValueError(f"{op}: {name} must be a positive integer, got {r!r}")
    return int(r)


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """(*, C·r², H, W) -> (*, C, H·r, W·r), as ``F.pixel_shuffle``:
    y[..., c, h·r + i, w·r + j] = x[..., c·r² + i·r + j, h, w]. A reshape to
    (*, C, r, r, H, W), a permute to (*, C, H, r, W, r) and a reshape; the gradient is
    gy rearranged back (pixel_unshuffle of gy)."""
    op, r = "pixel_shuffle", _factor("pixel_shuffle", "upscale_factor", upscale_factor)
    x = _at_least_3d(op, input)
    *lead, C, H, W = x.shape
    if C % (r * r):
        raise ValueError(f"{op}: the channel axis (-3) of shape {tuple(x.shape)} has {C} "
                         f"entries, not divisible by upscale_factor² = {r * r}")
    k = len(lead)
    with grad_mode.scope("function", op):
        y = x.reshape(*lead, C // (r * r), r, r, H, W)              # (*, C, r, r, H, W)
        y = y.permute(*range(k), k, k + 3, k + 1, k + 4, k + 2)     # (*, C, H, r, W, r)
        return y.reshape(*lead, C // (r * r), H * r, W * r)         # (*, C, H·r, W·r)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """(*, C, H·r, W·r) -> (*, C·r², H, W), as ``F.pixel_unshuffle``, pixel_shuffle's
    inverse: y[..., c·r² + i·r + j, h, w] = x[..., c, h·r + i, w·r + j]."""
    op, r = "pixel_unshuffle", _factor("pixel_unshuffle", "downscale_factor", downscale_factor)
    x = _at_least_3d(op, input)
    *lead, C, H, W = x.shape
    if H % r or W % r:
        raise ValueError(f"{op}: height and width of shape {tuple(x.shape)} must be "
                         f"divisible by downscale_factor={r}")
    k = len(lead)
    with grad_mode.scope("function", op):
        y = x.reshape(*lead, C, H // r, r, W // r, r)               # (*, C, H, r, W, r)
        y = y.permute(*range(k), k, k + 2, k + 4, k + 1, k + 3)     # (*, C, r, r, H, W)
        return y.reshape(*lead, C * r * r, H // r, W // r)          # (*, C·r², H, W)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """The channels of each group dealt out in turn, as ``F.channel_shuffle`` (ShuffleNet,
    Zhang et al. 2017: after a grouped convolution, so the next one's groups see every
    earlier group): (N, C, *) with C = g·m, y[:, j·g + i] = x[:, i·m + j]. A reshape to
    (N, g, m, *), a transpose to (N, m, g, *) and a reshape back; the gradient is gy
    shuffled back (channel_shuffle of gy with m groups)."""
    op = "channel_shuffle"
    if not isinstance(input, Tensor) or input.ndim < 3:
        raise ValueError(f"{op}: input must be a tinyffn Tensor of at least 3 axes (N, C, *), "
                         f"as PyTorch's, got {_shape(input)}")
    g = _factor(op, "groups", groups)
    N, C, *rest = input.shape
    if C % g:
        raise ValueError(f"{op}: the {C} channels of input {tuple(input.shape)} must be "
                         f"divisible by groups={g}")
    with grad_mode.scope("function", op):
        y = input.reshape(N, g, C // g, *rest).transpose(1, 2)       # (N, C/g, g, *)
        return y.reshape(N, C, *rest)                                 # (N, C, *)


def _at_least_3d(op: str, x: Any) -> Tensor:
    if not isinstance(x, Tensor) or x.ndim < 3:
        shape = tuple(x.shape) if isinstance(x, Tensor) else type(x).__name__
        raise ValueError(f"{op}: input must be a tinyffn Tensor of at least 3 axes "
                         f"(*, C, H, W), got {shape}")
    return x


def _channel_dropout(op: str, x: Any, p: float, training: bool, inplace: bool,
                     mask_shape: tuple) -> Tensor:
    """x times F.dropout(ones(mask_shape)): one draw per channel, broadcast over it."""
    check_probability(op, p)
    check_inplace(op, inplace)
    if not x.backend.is_floating(x.dtype):
        raise TypeError(f"{op}: input has dtype {x.dtype}; dropout scales by 1/(1 - p), so "
                        "it needs floating point: cast with x.float()")
    if not training or p == 0:
        return x
    with grad_mode.scope("function", op):
        mask = dropout(ones(*mask_shape, dtype=x.dtype, device=x.device), p)   # (N, C, 1, ..)
        mask.name = f"{op} mask"
        return x * mask


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Whole channels zeroed with probability ``p`` in training, the rest scaled by
    1/(1 - p), as ``F.dropout1d``: (N, C, L) or unbatched (C, L), one draw per (n, c)."""
    if not isinstance(input, Tensor) or input.ndim not in (2, 3):
        raise ValueError(f"dropout1d: input must be a tinyffn Tensor of 3-D (N, C, L) or "
                         f"unbatched 2-D (C, L), got {_shape(input)}; a 4-D (N, C, H, W) "
                         "feature map takes dropout2d")
    lead = input.shape[:-1]
    return _channel_dropout("dropout1d", input, p, training, inplace, (*lead, 1))


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Whole channels zeroed with probability ``p`` in training, the rest scaled by
    1/(1 - p), as ``F.dropout2d``: (N, C, H, W), one draw per (n, c). A 3-D input is
    read as PyTorch 2.13 reads it, (N, C, L) with one draw per (n, c), with its warning
    (use dropout1d for that)."""
    if not isinstance(input, Tensor) or input.ndim not in (3, 4):
        raise ValueError(f"dropout2d: input must be a tinyffn Tensor of 4-D (N, C, H, W) or "
                         f"3-D (read as (N, C, L), as PyTorch 2.13 does), got {_shape(input)}; "
                         "PyTorch deprecates other ranks: F.dropout drops the entries of "
                         "(N, C), dropout1d the channels of (N, C, L)")
    if input.ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that "
                      "channel-wise 1D dropout behavior is desired - input is interpreted "
                      "as shape (N, C, L), as PyTorch 2.13 does; use dropout1d for that",
                      UserWarning, stacklevel=2)
    shape = input.shape[:2] + (1,) * (input.ndim - 2)
    return _channel_dropout("dropout2d", input, p, training, inplace, shape)


def _shape(x: Any) -> Any:
    return tuple(x.shape) if isinstance(x, Tensor) else type(x).__name__


class PixelShuffle(Module):
    """:func:`pixel_shuffle` as a module, as ``torch.nn.PixelShuffle``."""

    def __init__(self, upscale_factor: int):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, x: Tensor) -> Tensor:
        return pixel_shuffle(x, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """:func:`pixel_unshuffle` as a module, as ``torch.nn.PixelUnshuffle``."""

    def __init__(self, downscale_factor: int):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, x: Tensor) -> Tensor:
        return pixel_unshuffle(x, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Module):
    """:func:`channel_shuffle` as a module, as ``torch.nn.ChannelShuffle``."""

    def __init__(self, groups: int):
        super().__init__()
        self.groups = groups

    def forward(self, x: Tensor) -> Tensor:
        return channel_shuffle(x, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"


class Dropout1d(Module):
    """:func:`dropout1d` while ``training``, the identity after ``eval()``, as
    ``torch.nn.Dropout1d``."""

    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        check_probability(type(self).__name__, p)
        check_inplace(type(self).__name__, inplace)
        self.p, self.inplace = p, False

    def forward(self, x: Tensor) -> Tensor:
        return dropout1d(x, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout2d(Dropout1d):
    """:func:`dropout2d` while ``training``, the identity after ``eval()``, as
    ``torch.nn.Dropout2d``."""

    def forward(self, x: Tensor) -> Tensor:
        return dropout2d(x, self.p, self.training)


class _PadNd(Module):
    """``F.pad(x, padding, mode)``; padding an int (every side) or 2n ints, (left,
    right) for 1-D, (left, right, top, bottom) for 2-D, as PyTorch's padding modules."""
    _n, _mode, value = 1, "constant", 0.0

    def __init__(self, padding: Any):
        super().__init__()
        n = 2 * self._n
        t = (padding,) * n if _is_int(padding) else tuple(padding) \
            if isinstance(padding, (tuple, list)) else None
        if t is None or len(t) != n or not all(_is_int(q) for q in t):
            sides = "(" + ", ".join("left right top bottom front back".split()[:n]) + ")"
            raise ValueError(f"{type(self).__name__}: padding must be an int or a {n}-tuple "
                             f"{sides} of ints, got {padding!r}")
        self.padding = tuple(int(q) for q in t)

    def forward(self, x: Tensor) -> Tensor:
        if self._mode == "constant":
            return pad(x, self.padding, value=self.value)
        return pad(x, self.padding, mode=self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ConstantPad1d(_PadNd):
    """Pads the last axis with ``value``, as ``torch.nn.ConstantPad1d``."""

    def __init__(self, padding: Any, value: float):
        super().__init__(padding)
        self.value = value

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad2d(ConstantPad1d):
    """Pads the last two axes with ``value``, as ``torch.nn.ConstantPad2d``."""
    _n = 2


class ZeroPad1d(_PadNd):
    """Pads the last axis with zeros, as ``torch.nn.ZeroPad1d``."""


class ZeroPad2d(_PadNd):
    """Pads the last two axes with zeros, as ``torch.nn.ZeroPad2d``."""
    _n = 2


class ReflectionPad1d(_PadNd):
    """Pads (C, L) or (N, C, L) with its mirror image, as ``torch.nn.ReflectionPad1d``."""
    _mode = "reflect"


class ReflectionPad2d(_PadNd):
    """Pads (C, H, W) or (N, C, H, W) with its mirror image, as ``torch.nn.ReflectionPad2d``."""
    _n, _mode = 2, "reflect"


class ReplicationPad1d(_PadNd):
    """Pads (C, L) or (N, C, L) with its edge entries, as ``torch.nn.ReplicationPad1d``."""
    _mode = "replicate"


class ReplicationPad2d(_PadNd):
    """Pads (C, H, W) or (N, C, H, W) with its edges, as ``torch.nn.ReplicationPad2d``."""
    _n, _mode = 2, "replicate"


class CircularPad1d(_PadNd):
    """Pads (C, L) or (N, C, L) by wrapping around, as ``torch.nn.CircularPad1d``."""
    _mode = "circular"


class CircularPad2d(_PadNd):
    """Pads (C, H, W) or (N, C, H, W) by wrapping around, as ``torch.nn.CircularPad2d``."""
    _n, _mode = 2, "circular"
