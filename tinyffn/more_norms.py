"""Group, instance and local response normalization, as PyTorch 2.13 defines them:
``F.group_norm``, ``F.instance_norm``, ``F.local_response_norm`` and the modules
``nn.GroupNorm``, ``nn.InstanceNorm1d``, ``nn.InstanceNorm2d``, ``nn.LocalResponseNorm``.

They differ from :func:`~tinyffn.normalization.layer_norm` and
:func:`~tinyffn.batchnorm.batch_norm` only in the values each mean and variance is taken
over, for an input (N, C, *)::

    batch_norm     each channel c over the batch:       x[:, c, ...]          (N · L values)
    instance_norm  each example n and channel c:         x[n, c, ...]          (L values)
    group_norm     each example n and group g of C/G     x[n, g·C/G : (g+1)·C/G, ...]
                   channels:                                                   (C/G · L values)
    layer_norm     each position over its last axes

then y = (x - mean) / sqrt(var + eps) · weight_c + bias_c, the variance biased (/ n).
GroupNorm with G = 1 is a LayerNorm over (C, *) with a weight per channel; with G = C it
is InstanceNorm. Local response normalization (AlexNet's) divides instead by a power of
the mean square over ``size`` neighbouring channels.

All are composed from primitives in a frame of their name, so no backward is written
here: with x̂ = (x - mean) r, r = 1/sqrt(var + eps) and g = gy · weight, each group's
gradient is LayerNorm's, dL/dx = r (g - mean(g) - x̂ mean(g x̂)). float16 is normalized in
float32 (cast nodes either side), as the other norms.
"""
from __future__ import annotations

import math
import warnings
from typing import Any

from . import grad_mode
from .arguments import _is_int, is_real, type_name
from .backend import DEFAULTS, dtype_name
from .batchnorm import _NormBase, _update
from .creation import ones, zeros
from .functional import _narrowed, _widened
from .functional_extra import pad
from .module import Module, Parameter
from .tensor import Tensor


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-05) -> Tensor:
    """Group normalization (Wu & He 2018), as ``F.group_norm``: the C channels of each
    example split into ``num_groups`` groups of C/G consecutive channels, each group
    brought to mean 0 and variance 1 over its C/G · L values, then · weight_c + bias_c::

        x (N, C, *) -> (N, G, C/G · L):  mean, var = mean(x), mean((x - mean)^2) per (n, g)
        y = (x - mean) / sqrt(var + eps) · weight + bias      weight, bias (C,) or None

    No batch statistics: each example is normalized on its own, in training and eval
    alike. C must be a multiple of ``num_groups``. Shapes: input (N, C, *) -> the same.
    """
    N, C = _check_norm_input("group_norm", input, weight, bias, eps, min_ndim=2)
    if not (_is_int(num_groups) and num_groups > 0):
        raise ValueError(f"group_norm: num_groups must be a positive int, got {num_groups!r}")
    if C % num_groups:
        raise ValueError(f"group_norm: the input's {C} channels (axis 1 of {input.shape}) do "
                         f"not split into num_groups={num_groups} equal groups; pick a "
                         f"num_groups that divides {C}")
    group = C // num_groups * math.prod(input.shape[2:])       # values per group
    if N * group == 1:                  # PyTorch's check: every group a single value
        raise ValueError(f"group_norm: Expected more than 1 value per channel when training, "
                         f"got input size {input.shape} with num_groups={num_groups}: each "
                         "group holds one value, whose variance is 0 (PyTorch refuses it too)")
    with grad_mode.scope("function", "group_norm"):
        x = _widened(input).reshape(N, num_groups, group)          # (N, G, C/G · L)
        centred = x - x.mean(axis=-1, keepdims=True)               # (N, G, C/G · L)
        var = (centred * centred).mean(axis=-1, keepdims=True)     # (N, G, 1), biased
        y = (centred * (var + eps) ** -0.5).reshape(input.shape)   # (N, C, *)
        return _narrowed(_per_channel(y, weight, bias), input)


def instance_norm(input: Tensor, running_mean: Tensor | None = None,
                  running_var: Tensor | None = None, weight: Tensor | None = None,
                  bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-05) -> Tensor:
    """Instance normalization (Ulyanov et al. 2016), as ``F.instance_norm``: each example's
    each channel x[n, c] (its L values) brought to mean 0 and variance 1 (biased), then
    · weight_c + bias_c. Style transfer's norm: no example sees another.

    ``use_input_stats=True`` (the default) uses each instance's own statistics; if
    ``running_mean`` and ``running_var`` (C,) are given they move in place, outside the
    graph, toward the instances' mean over the batch, as PyTorch's::

        running_mean ← (1 − momentum) · running_mean + momentum · mean_n(mean[n, c])
        running_var  ← (1 − momentum) · running_var  + momentum · mean_n(var[n, c] · L/(L − 1))

    ``use_input_stats=False`` normalizes with the running statistics, which must be given.
    Shapes: input (N, C, *) with at least one axis after C (more than one value per
    instance, for a variance) -> the same; running_mean, running_var, weight, bias (C,).
    """
    op = "instance_norm"
    _, C = _check_norm_input(op, input, weight, bias, eps, min_ndim=2,
                             running_mean=running_mean, running_var=running_var)
    if use_input_stats not in (True, False):
        raise TypeError(f"{op}: use_input_stats must be True or False, got {use_input_stats!r}")
    if (running_mean is None) != (running_var is None):
        raise ValueError(f"{op}: running_mean and running_var must both be tensors or both "
                         "be None (as PyTorch requires)")
    if not use_input_stats and running_mean is None:
        raise ValueError(f"{op}: use_input_stats=False normalizes with running_mean and "
                         "running_var, but they are None; pass them, or use_input_stats=True")
    L = math.prod(input.shape[2:])
    if use_input_stats and L == 1:
        raise ValueError(f"{op}: Expected more than 1 spatial element when training, got "
                         f"input size {input.shape}: each instance x[n, c] needs two values "
                         "or more for a variance (PyTorch refuses it too)")
    if not (is_real(momentum) and math.isfinite(momentum)):
        raise TypeError(f"{op}: momentum must be a finite number (the weight of the "
                        f"instances' statistics in the running ones), got {momentum!r}")
    axes = tuple(range(2, input.ndim))                              # the spatial axes
    with grad_mode.scope("function", op):
        x = _widened(input)
        if use_input_stats:
            mean = x.mean(axis=axes, keepdims=True)                   # (N, C, 1, ...)
            centred = x - mean                                        # (N, C, *)
            var = (centred * centred).mean(axis=axes, keepdims=True)  # (N, C, 1, ...)
            if running_mean is not None:        # the instances' mean over the batch
                _update(running_mean, running_var, mean.detach().mean(axis=0),
                        var.detach().mean(axis=0), L, momentum)
        else:
            stats = (1, C) + (1,) * (input.ndim - 2)
            centred = x - running_mean.reshape(stats)                 # (N, C, *)
            var = running_var.reshape(stats)                          # (1, C, 1, ...)
        y = centred * (var + eps) ** -0.5
        return _narrowed(_per_channel(y, weight, bias), input)


def local_response_norm(input: Tensor, size: int, alpha: float = 0.0001, beta: float = 0.75,
                        k: float = 1.0) -> Tensor:
    """Local response normalization (Krizhevsky et al. 2012, AlexNet), as
    ``F.local_response_norm``: each value divided by a power of the mean square of the
    ``size`` channels around its own (zeros past the edges, always divided by ``size``)::

        y[n, c] = x[n, c] / (k + alpha/size · Σ_{c' = c − size//2}^{c + (size − 1)//2} x[n, c']^2)^beta

    Composed as PyTorch's: the squares padded with zeros along the channel axis, summed
    over ``size`` shifted windows. Shapes: input (N, C, *), 3 axes or more -> the same.
    """
    op = "local_response_norm"
    _check_norm_input(op, input, None, None, 1.0, min_ndim=3)
    if not (_is_int(size) and size > 0):
        raise ValueError(f"{op}: size must be a positive int (the number of channels to "
                         f"average over), got {size!r}")
    for name, v in (("alpha", alpha), ("beta", beta), ("k", k)):
        if not is_real(v):
            raise TypeError(f"{op}: {name} must be a number, got {v!r}")
    if input.numel() == 0:
        return input
    C = input.shape[1]
    with grad_mode.scope("function", op):
        x = _widened(input)
        square = pad(x * x, (0, 0) * (x.ndim - 2) + (size // 2, (size - 1) // 2))
        window = square[:, 0:C]                                     # (N, C, *)
        for i in range(1, size):                                    # size shifted windows
            window = window + square[:, i:i + C]
        return _narrowed(x / (window * (alpha / size) + k) ** beta, input)


def _per_channel(y: Tensor, weight: Tensor | None, bias: Tensor | None) -> Tensor:
    """y (N, C, *) · weight_c + bias_c, weight and bias (C,) or None."""
    stats = (1, y.shape[1]) + (1,) * (y.ndim - 2)                   # (1, C, 1, ...)
    if weight is not None:
        y = y * weight.reshape(stats)
    if bias is not None:
        y = y + bias.reshape(stats)
    return y


def _check_norm_input(op: str, x: Any, weight: Any, bias: Any, eps: Any, min_ndim: int,
                      **running: Any) -> tuple:
    """The input (N, C, *), its (C,) tensors and eps checked; returns (N, C)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: input must be a tinyffn Tensor, got {type_name(x)}; convert "
                        "arrays (and torch tensors) with tinyffn.tensor(...)")
    if x.ndim < min_ndim:
        raise ValueError(f"{op}: input of shape {x.shape} has {x.ndim} axes; it takes (N, C"
                         f"{', L' if min_ndim == 3 else ''}, ...), at least {min_ndim} axes, "
                         "normalizing over the channels of axis 1")
    if not x.backend.is_floating(x.dtype):
        raise TypeError(f"{op}: input has dtype {dtype_name(x.dtype)}; normalization computes "
                        "in floating point: cast it with x.to(dtype='float32')")
    C = x.shape[1]
    for name, t in (("weight", weight), ("bias", bias), *running.items()):
        if t is not None and not isinstance(t, Tensor):
            raise TypeError(f"{op}: {name} must be a tinyffn Tensor or None, got {type_name(t)}")
        if t is not None and t.shape != (C,):
            raise ValueError(f"{op}: {name} must have shape (C,) = ({C},), one entry per "
                             f"channel of the input {x.shape} (axis 1), got {t.shape}")
    if not (is_real(eps) and 0 < eps < math.inf):
        raise ValueError(f"{op}: eps must be a finite number > 0 (it keeps the division "
                         f"finite for a constant input), got {eps!r}")
    return x.shape[0], C


# ----------------------------------------------------------------------------- modules
class GroupNorm(Module):
    """:func:`group_norm` as a module, as ``torch.nn.GroupNorm``: ``weight`` (ones) and
    ``bias`` (zeros) of shape (num_channels,) with ``affine=True`` (no bias with
    ``bias=False``). num_channels must be a multiple of num_groups. Shapes: (N, C, *)."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-05,
                 affine: bool = True, device: Any = None, dtype: Any = None, *,
                 bias: bool = True):
        super().__init__()
        for name, n in (("num_groups", num_groups), ("num_channels", num_channels)):
            if not (_is_int(n) and n > 0):
                raise ValueError(f"GroupNorm: {name} must be a positive int, got {n!r}")
        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels ({num_channels}) must be divisible by "
                             f"num_groups ({num_groups}), as PyTorch requires")
        if not (is_real(eps) and 0 < eps < math.inf):
            raise ValueError(f"GroupNorm: eps must be a finite number > 0, got {eps!r}")
        self.num_groups, self.num_channels, self.eps, self.affine = (
            int(num_groups), int(num_channels), eps, affine)
        dtype, device = dtype or DEFAULTS.float, device or "cpu"
        C = self.num_channels
        self.weight = Parameter(ones(C, dtype=dtype, device=device)) if affine else None
        self.bias = Parameter(zeros(C, dtype=dtype, device=device)) if affine and bias else None

    def reset_parameters(self) -> None:
        """weight to 1 and bias to 0, in place."""
        with grad_mode.no_grad():
            if self.weight is not None:
                self.weight.fill_(1)
            if self.bias is not None:
                self.bias.zero_()

    def forward(self, input: Tensor) -> Tensor:
        if isinstance(input, Tensor) and input.ndim >= 2 and input.shape[1] != self.num_channels:
            raise ValueError(f"GroupNorm({self.num_groups}, {self.num_channels}): input of "
                             f"shape {input.shape} has {input.shape[1]} channels on axis 1")
        return group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
                f"affine={self.affine}, bias={self.bias is not None}")


class _InstanceNorm(_NormBase):
    """What InstanceNorm1d and InstanceNorm2d share (PyTorch's ``_InstanceNorm``): the
    parameters and buffers of the BatchNorm modules (weight, bias, running_mean,
    running_var, num_batches_tracked), off by default; an unbatched input (no N axis)."""

    def __init__(self, num_features: int, eps: float = 1e-05, momentum: float = 0.1,
                 affine: bool = False, track_running_stats: bool = False, device: Any = None,
                 dtype: Any = None, *, bias: bool = True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)

    def forward(self, input: Tensor) -> Tensor:
        """Each instance's statistics in training, and in eval unless running statistics
        are tracked; then those (PyTorch's rule). num_batches_tracked does not move, and
        momentum=None leaves the running statistics as they are, as in PyTorch."""
        owner = self._check_input(input)
        unbatched = input.ndim == self._dims[0]
        axis = 0 if unbatched else 1                            # the channels
        if input.shape[axis] != self.num_features:
            if self.affine or self.track_running_stats:
                raise ValueError(f"{owner}({self.num_features}): input of shape "
                                 f"{input.shape} has {input.shape[axis]} channels on axis "
                                 f"{axis}, expected {self.num_features}")
            warnings.warn(f"{owner}: input's size at dim={axis} does not match num_features "
                          f"({self.num_features}); it is not used, as affine=False (PyTorch "
                          "warns too)", UserWarning, stacklevel=2)
        x = input.unsqueeze(0) if unbatched else input          # (N, C, *)
        y = instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                          self.training or not self.track_running_stats,
                          0.0 if self.momentum is None else self.momentum, self.eps)
        return y.squeeze(0) if unbatched else y


class InstanceNorm1d(_InstanceNorm):
    """Instance norm over (N, C, L) or unbatched (C, L), as ``torch.nn.InstanceNorm1d``:
    each example's each channel normalized over its L values; see :func:`instance_norm`."""

    _dims, _shapes = (2, 3), "2-D (C, L) or 3-D (N, C, L)"


class InstanceNorm2d(_InstanceNorm):
    """Instance norm over (N, C, H, W) or unbatched (C, H, W), as
    ``torch.nn.InstanceNorm2d``: each example's each channel over its H · W values."""

    _dims, _shapes = (3, 4), "3-D (C, H, W) or 4-D (N, C, H, W)"


class LocalResponseNorm(Module):
    """:func:`local_response_norm` as a module, as ``torch.nn.LocalResponseNorm``: no
    parameters. Shapes: (N, C, *), 3 axes or more."""

    def __init__(self, size: int, alpha: float = 0.0001, beta: float = 0.75, k: float = 1.0):
        super().__init__()
        if not (_is_int(size) and size > 0):
            raise ValueError(f"LocalResponseNorm: size must be a positive int, got {size!r}")
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        return local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
