"""PyTorch's lazy layers: ``LazyLinear``, ``LazyConv1d/2d/3d``, ``LazyConvTranspose1d/2d/3d``,
``LazyBatchNorm1d/2d/3d`` and ``LazyInstanceNorm1d/2d/3d``, whose input size (in_features,
in_channels, num_features) is read from the first input instead of being given.

Until that first call the layer's parameters (and a norm's running statistics) are
:class:`UninitializedParameter` s (:class:`UninitializedBuffer` s): they are listed by
``parameters()``, so an optimizer may be built on them, but have no shape yet (reading
it raises, as in PyTorch). The first call reads the size, gives each its real shape, in
place (the same objects: an optimizer built before still holds them), runs the real
layer's initialisation (``Conv2d.reset_parameters``, Linear's U(±1/√in), the norms'
ones and zeros), and turns the module into the real layer, as PyTorch's
``cls_to_become``: a ``LazyLinear`` is a ``Linear`` from then on, ``repr`` and all.

``load_state_dict`` into a model with lazy layers builds each one found in the state as its
first call would, its size read from the saved weight, then loads (PyTorch materializes
from the checkpoint too, but leaves the layer lazy, its ``in_features`` 0).

Build order matters for the random numbers only: the weights are drawn at the first call,
as PyTorch's are, so a seed then gives the layer its eager twin would get if built there.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import grad_mode
from .arguments import type_name
from .backend import DEFAULTS
from .batchnorm import BatchNorm1d, BatchNorm2d
from .conv_transpose import ConvTranspose1d, ConvTranspose2d
from .convolution import Conv1d
from .convolution2d import Conv2d
from .creation import ones, zeros
from .layers3d import BatchNorm3d, Conv3d, ConvTranspose3d, InstanceNorm3d
from .module import Parameter
from .more_norms import InstanceNorm1d, InstanceNorm2d, _InstanceNorm
from .nn import Linear, _check_size, _uniform
from .tensor import Tensor

_NO_SHAPE = ("Can't access the shape of an uninitialized parameter or buffer: a lazy layer's "
             "parameters get their shape at the layer's first call. Call the model once on an "
             "example input first (or load a state_dict into it)")


class UninitializedParameter(Parameter):
    """A :class:`Parameter` of a lazy layer before its first call, as PyTorch's: no shape
    yet (``.shape``, ``numel()`` raise), a dtype and a device. ``materialize(shape)``
    gives it zeros of that shape and makes it a plain ``Parameter``, the same object."""

    __slots__ = ()
    cls_to_become = Parameter

    def __init__(self, requires_grad: bool = True, device: Any = None, dtype: Any = None):
        super().__init__(zeros(0, dtype=dtype or DEFAULTS.float, device=device or "cpu"),
                         requires_grad)

    @property
    def shape(self) -> tuple:
        raise RuntimeError(_NO_SHAPE)

    def materialize(self, shape: tuple, device: Any = None, dtype: Any = None) -> None:
        """Zeros of ``shape`` (on its device, in its dtype unless given); from now on a
        ``Parameter`` (a buffer's class: ``Tensor``)."""
        data = zeros(*shape, dtype=dtype or self.dtype, device=device or self.device)
        self.__class__ = self.cls_to_become
        self.backend = data.backend
        self.data = data.data

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"


class UninitializedBuffer(Tensor):
    """A buffer of a lazy norm (running_mean, running_var) before its first call, as
    PyTorch's: as :class:`UninitializedParameter`, but a plain ``Tensor`` once materialized."""

    __slots__ = ()
    cls_to_become = Tensor
    shape, materialize, __repr__ = (UninitializedParameter.shape,
                                    UninitializedParameter.materialize,
                                    UninitializedParameter.__repr__)

    def __init__(self, requires_grad: bool = False, device: Any = None, dtype: Any = None):
        t = zeros(0, dtype=dtype or DEFAULTS.float, device=device or "cpu")
        super().__init__(t.data, requires_grad=requires_grad, _backend=t.backend)


class LazyModuleMixin:
    """What the lazy layers share: the first call reads the input size
    (``initialize_parameters``), then the module becomes ``cls_to_become`` and runs."""

    cls_to_become: type = None

    def has_uninitialized_params(self) -> bool:
        """True until the first call, as PyTorch's."""
        return any(isinstance(t, (UninitializedParameter, UninitializedBuffer))
                   for t in vars(self).values())

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.initialize_parameters(*args, **kwargs)
        return self(*args, **kwargs)                # now the real layer's call

    def initialize_parameters(self, input: Any, *args: Any, **kwargs: Any) -> None:
        """Read the size from ``input`` (the first call's), then :meth:`_build`."""
        self._build(self._size_of(input))

    def _build(self, size: int) -> None:
        """What the first call does with the input size: the real init, the real class."""
        with grad_mode.no_grad():
            self._materialize(size)
        self.__class__ = self.cls_to_become

    def _load_lazily(self, state_dict: Any, prefix: str) -> None:
        """Before ``load_state_dict`` (module_state.py calls it): take the size from the
        saved weight (or statistic) and build as a first call would, so the state loads
        into the real layer (PyTorch materializes from the checkpoint too)."""
        for name, size_of in self._saved_sizes:
            value = state_dict.get(prefix + name) if hasattr(state_dict, "get") else None
            shape = tuple(getattr(value, "shape", None) or np.shape(value)) if \
                value is not None else ()
            if shape:
                return self._build(size_of(self, shape))

    def _unbuilt(self, *names: str) -> None:
        """Swap each parameter or buffer named for an uninitialized one of its dtype."""
        for name in names:
            t = getattr(self, name)
            if t is not None:
                kind = UninitializedParameter if isinstance(t, Parameter) else \
                    UninitializedBuffer
                setattr(self, name, kind(device=t.device, dtype=t.dtype))

    def _size(self, input: Any, ranks: tuple, axis_of: dict, what: str) -> int:
        """The input's size on the axis that sets the layer's (``axis_of``: rank -> axis)."""
        owner = type(self).__name__
        if not isinstance(input, Tensor):
            raise TypeError(f"{owner}: input must be a tinyffn Tensor, got {type_name(input)}")
        if input.ndim not in ranks:
            raise ValueError(f"{owner}: expected {what} input, got {input.ndim}-D input of "
                             f"shape {input.shape}")
        size = input.shape[axis_of.get(input.ndim, axis_of.get(None, 1))]
        if size < 1:
            raise ValueError(f"{owner}: input of shape {input.shape} has no features to "
                             "infer the layer's size from")
        return size


class LazyLinear(LazyModuleMixin, Linear):
    """``Linear`` whose ``in_features`` is the last axis of its first input, as
    ``torch.nn.LazyLinear``; then a ``Linear``, initialised as Linear is."""

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device: Any = None,
                 dtype: Any = None):
        super(Linear, self).__init__()                  # Module's: no weights drawn yet
        _check_size("LazyLinear", "out_features", out_features)
        self.in_features, self.out_features, self.fused = 0, out_features, False
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.bias = UninitializedParameter(device=device, dtype=dtype) if bias else None

    _saved_sizes = (("weight", lambda self, shape: shape[-1]),)

    def _size_of(self, input: Any) -> int:
        return self._size(input, range(1, 64), {None: -1}, "1-D or more")

    def _materialize(self, n: int) -> None:
        self.in_features = n
        bound, w = 1 / math.sqrt(n), self.weight                # Linear's draws, W then b
        for p, shape in ((w, (self.out_features, n)), (self.bias, (self.out_features,))):
            if p is not None:
                p.materialize(shape)
                p.data = _uniform(shape, bound, p.dtype, p.device)


class _LazyConv(LazyModuleMixin):
    """The lazy convolutions: made as their layer with in_channels = groups and nothing
    drawn, then the weight and bias swapped for uninitialized ones."""

    def __init__(self, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                 padding_mode, device, dtype, **transposed):
        cls = self.cls_to_become
        cls.__init__(self, groups, out_channels, kernel_size, stride, padding,
                     dilation=dilation, groups=groups, bias=bias, padding_mode=padding_mode,
                     device=device, dtype=dtype, **transposed)
        self.in_channels = 0
        self._unbuilt("weight", "bias")

    def reset_parameters(self) -> None:
        """Nothing to draw before the first call (the real layer's runs then)."""

    _saved_sizes = (("weight", lambda self, shape: shape[0] if self._transposed else
                     shape[1] * self.groups),)

    def _size_of(self, input: Any) -> int:
        n = self._n
        c = self._size(input, (n + 1, n + 2), {n + 1: 0, n + 2: 1},
                       f"{n + 1}-D (unbatched) or {n + 2}-D (batched)")
        if c % self.groups:
            raise ValueError(f"{type(self).__name__}: the input's {c} channels (shape "
                             f"{input.shape}) are not divisible by groups={self.groups}")
        return c

    def _materialize(self, c: int) -> None:
        self.in_channels = c
        k, out, g = self.kernel_size, self.out_channels, self.groups
        self.weight.materialize(((c, out // g) if self._transposed else (out, c // g)) + k)
        if self.bias is not None:
            self.bias.materialize((out,))
        self.cls_to_become.reset_parameters(self)         # the real layer's init


def _conv_init(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
               bias=True, padding_mode="zeros", device=None, dtype=None):
    _LazyConv.__init__(self, out_channels, kernel_size, stride, padding, dilation, groups,
                       bias, padding_mode, device, dtype)


def _conv_transpose_init(self, out_channels, kernel_size, stride=1, padding=0,
                         output_padding=0, groups=1, bias=True, dilation=1,
                         padding_mode="zeros", device=None, dtype=None):
    _LazyConv.__init__(self, out_channels, kernel_size, stride, padding, dilation, groups,
                       bias, padding_mode, device, dtype, output_padding=output_padding)


class LazyConv1d(_LazyConv, Conv1d):
    """``Conv1d`` whose ``in_channels`` is read from the first input, as
    ``torch.nn.LazyConv1d``; then a ``Conv1d``."""
    cls_to_become = Conv1d
    __init__ = _conv_init


class LazyConv2d(_LazyConv, Conv2d):
    """``Conv2d`` whose ``in_channels`` is read from the first input; then a ``Conv2d``."""
    cls_to_become = Conv2d
    __init__ = _conv_init


class LazyConv3d(_LazyConv, Conv3d):
    """``Conv3d`` whose ``in_channels`` is read from the first input; then a ``Conv3d``."""
    cls_to_become = Conv3d
    __init__ = _conv_init


class LazyConvTranspose1d(_LazyConv, ConvTranspose1d):
    """``ConvTranspose1d`` whose ``in_channels`` is read from the first input; then a
    ``ConvTranspose1d``."""
    cls_to_become = ConvTranspose1d
    __init__ = _conv_transpose_init


class LazyConvTranspose2d(_LazyConv, ConvTranspose2d):
    """``ConvTranspose2d`` whose ``in_channels`` is read from the first input."""
    cls_to_become = ConvTranspose2d
    __init__ = _conv_transpose_init


class LazyConvTranspose3d(_LazyConv, ConvTranspose3d):
    """``ConvTranspose3d`` whose ``in_channels`` is read from the first input."""
    cls_to_become = ConvTranspose3d
    __init__ = _conv_transpose_init


class _LazyNorm(LazyModuleMixin):
    """The lazy norms: made as their layer with num_features = 1, then the weight, bias
    and running statistics swapped for uninitialized ones (num_batches_tracked stays)."""

    def __init__(self, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True):
        self.cls_to_become.__init__(self, 1, eps, momentum, affine, track_running_stats,
                                    device, dtype, bias=bias)
        self.num_features = 0
        self._unbuilt("weight", "bias", "running_mean", "running_var")

    _saved_sizes = tuple((name, lambda self, shape: shape[0]) for name in
                         ("weight", "bias", "running_mean", "running_var"))

    def _size_of(self, input: Any) -> int:
        lowest = self._dims[0]                  # an instance norm's unbatched rank: C first
        unbatched = {lowest: 0} if issubclass(self.cls_to_become, _InstanceNorm) else {}
        return self._size(input, self._dims, unbatched, self._shapes)

    def _materialize(self, C: int) -> None:
        self.num_features = C
        for name, fill in (("weight", ones), ("bias", zeros), ("running_mean", zeros),
                           ("running_var", ones)):
            t = getattr(self, name)
            if t is not None:
                t.materialize((C,))
                t.data = fill(C, dtype=t.dtype, device=t.device).data


class LazyBatchNorm1d(_LazyNorm, BatchNorm1d):
    """``BatchNorm1d`` whose ``num_features`` is the first input's axis 1, as
    ``torch.nn.LazyBatchNorm1d``; then a ``BatchNorm1d``."""
    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNorm, BatchNorm2d):
    """``BatchNorm2d`` whose ``num_features`` is read from the first input."""
    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyNorm, BatchNorm3d):
    """``BatchNorm3d`` whose ``num_features`` is read from the first input."""
    cls_to_become = BatchNorm3d


class LazyInstanceNorm1d(_LazyNorm, InstanceNorm1d):
    """``InstanceNorm1d`` whose ``num_features`` is read from the first input (axis 0 of
    an unbatched one), as ``torch.nn.LazyInstanceNorm1d``: note PyTorch's defaults here,
    ``affine=True`` and ``track_running_stats=True``, where ``InstanceNorm1d``'s are False."""
    cls_to_become = InstanceNorm1d


class LazyInstanceNorm2d(_LazyNorm, InstanceNorm2d):
    """``InstanceNorm2d`` whose ``num_features`` is read from the first input."""
    cls_to_become = InstanceNorm2d


class LazyInstanceNorm3d(_LazyNorm, InstanceNorm3d):
    """``InstanceNorm3d`` whose ``num_features`` is read from the first input."""
    cls_to_become = InstanceNorm3d


__all__ = ["LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d",
           "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d",
           "UninitializedParameter", "UninitializedBuffer", "LazyModuleMixin"]
