"""The 3-D members of the convolution family, as PyTorch 2.13's: ``conv3d`` and its
transpose, the pools (max, average, adaptive, power-average), ``max_unpool3d``,
``dropout3d``, and the modules ``Conv3d``, ``ConvTranspose3d``, ``MaxPool3d``,
``AvgPool3d``, ``AdaptiveAvgPool3d``, ``AdaptiveMaxPool3d``, ``LPPool3d``,
``MaxUnpool3d``, ``Dropout3d``, ``BatchNorm3d``, ``InstanceNorm3d`` and the 3-D pads.

A volume is (N, C, D, H, W), or unbatched (C, D, H, W). Nothing here is new: the 1-D
and 2-D code already slides its windows over n spatial axes (``im2col`` cuts kD·kH·kW
taps, then one matmul per group; a pool reduces each window), so each function below is
that code called with n = 3, and each module its 2-D sibling with ``_n = 3``.
"""
from __future__ import annotations

from typing import Any

from .batchnorm import _BatchNorm
from .conv_transpose import _conv_transpose, _ConvTransposeNd
from .convolution import _conv, _ConvNd
from .image_layers import (CircularPad2d, ConstantPad2d, Dropout2d, ReflectionPad2d,
                           ReplicationPad2d, ZeroPad2d, _channel_dropout, _shape)
from .more_norms import _InstanceNorm
from .pooling import _avg_pool, _max_pool
from .pooling2d import (AdaptiveAvgPool2d, AdaptiveMaxPool2d, AvgPool2d, LPPool2d, MaxPool2d,
                        _adaptive_max, _lp_pool)
from .pooling import _adaptive_avg
from .tensor import Tensor
from .unpooling import MaxUnpool2d, _max_unpool


# ----------------------------------------------------------------------------- functions
def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """The 3-D convolution (a cross-correlation, as PyTorch's): input (N, C_in, D, H, W)
    or (C_in, D, H, W), weight (C_out, C_in/groups, kD, kH, kW), bias (C_out,) ->
    (N, C_out, D_out, H_out, W_out), each out = (S + 2·p - d·(k - 1) - 1) // s + 1;
    arguments as :func:`~tinyffn.functional.conv2d`'s, with 3-tuples."""
    return _conv("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None,
                     stride: Any = 1, padding: Any = 0, output_padding: Any = 0,
                     groups: int = 1, dilation: Any = 1) -> Tensor:
    """conv3d's adjoint, as ``F.conv_transpose3d``: weight (C_in, C_out/groups, kD, kH,
    kW); each out = (S - 1)·s - 2·p + d·(k - 1) + output_padding + 1; arguments as
    :func:`~tinyffn.functional.conv_transpose2d`'s, with 3-tuples."""
    return _conv_transpose("conv_transpose3d", 3, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


def max_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False):
    """The largest entry of each kD × kH × kW window, as ``F.max_pool3d``: (N, C, D, H, W)
    or (C, D, H, W); sizes and arguments as :func:`~tinyffn.functional.max_pool2d`'s.
    Indices: each maximum's position (plane·H + row)·W + column in its volume."""
    return _max_pool("max_pool3d", 3, input, kernel_size, stride, padding, dilation,
                     ceil_mode, return_indices)


def max_pool3d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None,
                            padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple:
    """:func:`max_pool3d` and its indices, whatever ``return_indices`` says."""
    return _max_pool("max_pool3d_with_indices", 3, input, kernel_size, stride, padding,
                     dilation, ceil_mode, True)


def avg_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
    """The mean of each window, as ``F.avg_pool3d``; divisor and arguments as
    :func:`~tinyffn.functional.avg_pool2d`'s."""
    return _avg_pool("avg_pool3d", 3, input, kernel_size, stride, padding, ceil_mode,
                     count_include_pad, divisor_override)


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    """The mean of each of D_out × H_out × W_out windows covering the input, as
    ``F.adaptive_avg_pool3d`` (windows as adaptive_avg_pool1d's, on each axis)."""
    return _adaptive_avg("adaptive_avg_pool3d", 3, input, output_size)


def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False):
    """The largest entry of each of D_out × H_out × W_out windows, as
    ``F.adaptive_max_pool3d``; ``return_indices`` as :func:`max_pool3d`'s."""
    return _adaptive_max("adaptive_max_pool3d", 3, input, output_size, return_indices)


def adaptive_max_pool1d_with_indices(input: Tensor, output_size: Any,
                                     return_indices: bool = False) -> tuple:
    """``F.adaptive_max_pool1d`` and its indices, whatever ``return_indices`` says."""
    return _adaptive_max("adaptive_max_pool1d_with_indices", 1, input, output_size, True)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size: Any,
                                     return_indices: bool = False) -> tuple:
    """``F.adaptive_max_pool2d`` and its indices, whatever ``return_indices`` says."""
    return _adaptive_max("adaptive_max_pool2d_with_indices", 2, input, output_size, True)


def adaptive_max_pool3d_with_indices(input: Tensor, output_size: Any,
                                     return_indices: bool = False) -> tuple:
    """:func:`adaptive_max_pool3d` and its indices, whatever ``return_indices`` says."""
    return _adaptive_max("adaptive_max_pool3d_with_indices", 3, input, output_size, True)


def lp_pool3d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None,
              ceil_mode: bool = False) -> Tensor:
    """The p-norm of each kD × kH × kW window, as ``F.lp_pool3d``:
    ``(avg_pool3d(x ** p) · kD · kH · kW) ** (1/p)``, as PyTorch computes it."""
    return _lp_pool("lp_pool3d", 3, input, norm_type, kernel_size, stride, ceil_mode)


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None,
                 padding: Any = 0, output_size: Any = None) -> Tensor:
    """max_pool3d's partial inverse, as ``F.max_unpool3d``: each value at its index from
    ``max_pool3d(..., return_indices=True)``, zeros elsewhere; sizes as
    :func:`~tinyffn.functional.max_unpool2d`'s."""
    return _max_unpool("max_unpool3d", 3, input, indices, kernel_size, stride, padding,
                       output_size)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Whole channels zeroed with probability ``p`` in training, the rest scaled by
    1/(1 - p), as ``F.dropout3d``: (N, C, D, H, W) or unbatched (C, D, H, W), one draw
    per channel."""
    if not isinstance(input, Tensor) or input.ndim not in (4, 5):
        raise ValueError(f"dropout3d: input must be a tinyffn Tensor of 5-D (N, C, D, H, W) "
                         f"or unbatched 4-D (C, D, H, W), got {_shape(input)}; PyTorch "
                         "deprecates other ranks: F.dropout drops single entries, dropout2d "
                         "the channels of (N, C, H, W)")
    lead = input.shape[:-3]
    return _channel_dropout("dropout3d", input, p, training, inplace, (*lead, 1, 1, 1))


# ----------------------------------------------------------------------------- modules
class Conv3d(_ConvNd):
    """y = conv3d(x, W, b), as ``torch.nn.Conv3d``: W (out_channels, in_channels/groups,
    kD, kH, kW); init, attributes, padding modes and repr as Conv2d's."""
    _n = 3


class ConvTranspose3d(_ConvTransposeNd):
    """y = conv_transpose3d(x, W, b), as ``torch.nn.ConvTranspose3d``: W (in_channels,
    out_channels/groups, kD, kH, kW); ``forward(input, output_size=None)``."""
    _n = 3


class MaxPool3d(MaxPool2d):
    """:func:`max_pool3d` as a module, as ``torch.nn.MaxPool3d``."""

    def forward(self, x: Tensor):
        return max_pool3d(x, self.kernel_size, self.stride, self.padding, self.dilation,
                          self.ceil_mode, self.return_indices)


class AvgPool3d(AvgPool2d):
    """:func:`avg_pool3d` as a module, as ``torch.nn.AvgPool3d``."""

    def forward(self, x: Tensor) -> Tensor:
        return avg_pool3d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                          self.count_include_pad, self.divisor_override)


class AdaptiveAvgPool3d(AdaptiveAvgPool2d):
    """:func:`adaptive_avg_pool3d` as a module, as ``torch.nn.AdaptiveAvgPool3d``."""

    def forward(self, x: Tensor) -> Tensor:
        return adaptive_avg_pool3d(x, self.output_size)


class AdaptiveMaxPool3d(AdaptiveMaxPool2d):
    """:func:`adaptive_max_pool3d` as a module, as ``torch.nn.AdaptiveMaxPool3d``."""

    def forward(self, x: Tensor):
        return adaptive_max_pool3d(x, self.output_size, self.return_indices)


class LPPool3d(LPPool2d):
    """:func:`lp_pool3d` as a module, as ``torch.nn.LPPool3d``."""
    _n = 3


class MaxUnpool3d(MaxUnpool2d):
    """:func:`max_unpool3d` as a module, as ``torch.nn.MaxUnpool3d``:
    ``forward(input, indices, output_size=None)``."""
    _n = 3


class Dropout3d(Dropout2d):
    """:func:`dropout3d` while ``training``, the identity after ``eval()``, as
    ``torch.nn.Dropout3d``."""

    def forward(self, x: Tensor) -> Tensor:
        return dropout3d(x, self.p, self.training)


class BatchNorm3d(_BatchNorm):
    """Batch norm over (N, C, D, H, W), as ``torch.nn.BatchNorm3d``: each channel
    normalised over its N · D · H · W values; see :func:`~tinyffn.functional.batch_norm`."""

    _dims, _shapes = (5,), "5-D (N, C, D, H, W)"


class InstanceNorm3d(_InstanceNorm):
    """Instance norm over (N, C, D, H, W) or unbatched (C, D, H, W), as
    ``torch.nn.InstanceNorm3d``: each example's each channel over its D · H · W values."""

    _dims, _shapes = (4, 5), "4-D (C, D, H, W) or 5-D (N, C, D, H, W)"


class ConstantPad3d(ConstantPad2d):
    """Pads the last three axes with ``value``, as ``torch.nn.ConstantPad3d``; padding an
    int or (left, right, top, bottom, front, back)."""
    _n = 3


class ZeroPad3d(ZeroPad2d):
    """Pads the last three axes with zeros, as ``torch.nn.ZeroPad3d``."""
    _n = 3


class ReflectionPad3d(ReflectionPad2d):
    """Pads (C, D, H, W) or (N, C, D, H, W) with its mirror image, as
    ``torch.nn.ReflectionPad3d``."""
    _n = 3


class ReplicationPad3d(ReplicationPad2d):
    """Pads (C, D, H, W) or (N, C, D, H, W) with its edges, as ``torch.nn.ReplicationPad3d``."""
    _n = 3


class CircularPad3d(CircularPad2d):
    """Pads (C, D, H, W) or (N, C, D, H, W) by wrapping around, as
    ``torch.nn.CircularPad3d``."""
    _n = 3


__all__ = ["conv3d", "conv_transpose3d", "max_pool3d", "max_pool3d_with_indices", "avg_pool3d",
           "adaptive_avg_pool3d", "adaptive_max_pool3d", "adaptive_max_pool1d_with_indices",
           "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d_with_indices", "lp_pool3d",
           "max_unpool3d", "dropout3d", "Conv3d", "ConvTranspose3d", "MaxPool3d", "AvgPool3d",
           "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "LPPool3d", "MaxUnpool3d", "Dropout3d",
           "BatchNorm3d", "InstanceNorm3d", "ConstantPad3d", "ZeroPad3d", "ReflectionPad3d",
           "ReplicationPad3d", "CircularPad3d"]
