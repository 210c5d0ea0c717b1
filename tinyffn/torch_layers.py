"""PyTorch's module-level names for layer functions: ``torch.conv2d``, ``torch.layer_norm``,
``torch.batch_norm``... (a ported model, or code written before ``torch.nn.functional``
existed, calls them there). Each is ``tinyffn.functional``'s function, by the same name
where PyTorch 2.13's two take the same arguments in the same order (``conv1d``,
``conv2d``, ``conv_transpose1d``, ``conv_transpose2d``, ``avg_pool1d``, ``bilinear``,
``pixel_shuffle``, ``pixel_unshuffle``, ``channel_shuffle``: tinyffn/__init__.py imports
those from functional), and a wrapper with PyTorch's signature where it differs:

* ``max_pool1d`` / ``max_pool2d`` take no ``return_indices`` (``torch.max_pool1d`` has none;
  ``F.max_pool1d_with_indices`` gives them);
* ``layer_norm`` and ``group_norm`` take a last ``cudnn_enable(d)`` flag, ignored;
* ``batch_norm`` and ``instance_norm`` take the weight and bias *before* the running
  statistics, every argument required, as ``torch.batch_norm(input, weight, bias,
  running_mean, running_var, training, momentum, eps, cudnn_enabled)``:
  ``F.batch_norm(input, running_mean, running_var, weight, bias, ...)`` puts them the
  other way round, so ``tinyffn.batch_norm = F.batch_norm`` would have normalized with a
  ported call's weight as its running mean.
"""
from __future__ import annotations

from typing import Any

from .batchnorm import batch_norm as _batch_norm
from .more_norms import group_norm as _group_norm, instance_norm as _instance_norm
from .normalization import layer_norm as _layer_norm
from .pooling import _max_pool
from .tensor import Tensor


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False) -> Tensor:
    """``torch.max_pool1d``: ``F.max_pool1d`` without ``return_indices``; ``stride=()``
    (PyTorch's default) means kernel_size."""
    return _max_pool("max_pool1d", 1, input, kernel_size, stride, padding, dilation,
                     ceil_mode, False)


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False) -> Tensor:
    """``torch.max_pool2d``: ``F.max_pool2d`` without ``return_indices``; ``stride=()``
    (PyTorch's default) means kernel_size."""
    return _max_pool("max_pool2d", 2, input, kernel_size, stride, padding, dilation,
                     ceil_mode, False)


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-05,
               cudnn_enable: bool = True) -> Tensor:
    """``torch.layer_norm``: ``F.layer_norm``, and a ``cudnn_enable`` flag that changes
    nothing here."""
    return _layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-05,
               cudnn_enabled: bool = True) -> Tensor:
    """``torch.group_norm``: ``F.group_norm``, and a ``cudnn_enabled`` flag that changes
    nothing here."""
    return _group_norm(input, num_groups, weight, bias, eps)


def batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
               running_mean: Tensor | None, running_var: Tensor | None, training: bool,
               momentum: float, eps: float, cudnn_enabled: bool) -> Tensor:
    """``torch.batch_norm``, in its order (weight and bias first, all required):
    ``F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum,
    eps)``."""
    return _batch_norm(input, running_mean, running_var, weight, bias, training, momentum,
                       eps)


def instance_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
                  running_mean: Tensor | None, running_var: Tensor | None,
                  use_input_stats: bool, momentum: float, eps: float,
                  cudnn_enabled: bool) -> Tensor:
    """``torch.instance_norm``, in its order (weight and bias first, all required):
    ``F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
    momentum, eps)``."""
    return _instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                          momentum, eps)
