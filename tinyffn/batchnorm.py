"""Batch normalization, as PyTorch 2.13 defines it: ``F.batch_norm`` and ``nn.BatchNorm1d``,
``nn.BatchNorm2d`` (the norm of the conv nets that get ported, and what
``optim.swa_utils.update_bn`` recomputes).

Where LayerNorm normalises each position over its features, BatchNorm normalises each
channel c over the batch: over every axis but 1 (N, and L or H, W)::

    mean_c = mean(x[:, c]),   var_c = mean((x[:, c] - mean_c)^2)     (biased: / n)
    y[:, c] = (x[:, c] - mean_c) / sqrt(var_c + eps) · weight_c + bias_c

with n = N · L (or N · H · W) values per channel. In training the statistics are the
batch's, and each call folds them into running estimates, kept outside the graph::

    running_mean ← (1 − momentum) · running_mean + momentum · mean_c
    running_var  ← (1 − momentum) · running_var  + momentum · var_c · n / (n − 1)

(PyTorch's rule: the running variance is the *unbiased* one, the normalisation uses the
biased one). In evaluation the running estimates take the batch's place, so y no longer
depends on the other examples. The modules' ``momentum=None`` is the cumulative average:
the k-th training call weighs its batch by 1/k (``num_batches_tracked`` = k), so after k
calls the running statistics are the plain means of the k batches'.

Composed of primitives in a frame named ``batch_norm``: no backward is written here. With
x̂ = (x − mean) r, r = 1/sqrt(var + eps) and g = gy · weight, per channel over its n values,
training's gradients add up to LayerNorm's form::

    dL/dx = r (g − mean(g) − x̂ mean(g x̂)),   dL/dweight = Σ gy x̂,   dL/dbias = Σ gy

and in evaluation (constant statistics) dL/dx = g r. Kept next to the modules, as
pooling.py keeps its functions beside theirs.
"""
from __future__ import annotations

import math
from typing import Any

from . import grad_mode
from .arguments import _is_int, is_real, type_name
from .backend import DEFAULTS, dtype_name
from .creation import ones, tensor, zeros
from .module import Module, Parameter
from .tensor import Tensor


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None,
               training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Batch normalization (Ioffe & Szegedy 2015), as ``torch.nn.functional.batch_norm``
    (formulas in the module docstring): input (N, C, *) -> the same shape; running_mean,
    running_var, weight and bias of shape (C,) or None.

    ``training=True`` normalises with the batch's mean and biased variance and, if the
    running tensors are given, updates them in place (outside the graph) with
    ``momentum`` and the unbiased variance; it needs more than one value per channel.
    ``training=False`` normalises with running_mean and running_var, which must be given.
    A float16 input is normalised in float32 (cast nodes), as the other norms.
    """
    x, C, axes = _check_batch_norm(input, running_mean, running_var, weight, bias,
                                   training, momentum, eps)
    stats = (1, C) + (1,) * (input.ndim - 2)                  # (1, C, 1, ...): broadcasts
    with grad_mode.scope("function", "batch_norm"):
        x = x.to(dtype="float32") if dtype_name(x.dtype) == "float16" else x
        if training:
            mean = x.mean(axis=axes, keepdims=True)                   # (1, C, 1, ...)
            centred = x - mean                                        # (N, C, *)
            var = (centred * centred).mean(axis=axes, keepdims=True)  # (1, C, 1, ...), biased
            if running_mean is not None:
                _update(running_mean, running_var, mean, var, x.numel() // C, momentum)
        else:
            centred = x - running_mean.reshape(stats)                 # (N, C, *)
            var = running_var.reshape(stats)                          # (1, C, 1, ...)
        y = centred * (var + eps) ** -0.5                             # (N, C, *)
        if weight is not None:
            y = y * weight.reshape(stats)
        if bias is not None:
            y = y + bias.reshape(stats)
        return y.to(dtype=input.dtype) if dtype_name(input.dtype) == "float16" else y


def _update(running_mean: Tensor, running_var: Tensor, mean: Tensor, var: Tensor, n: int,
            momentum: float) -> None:
    """The running statistics moved toward the batch's, in place and outside the graph
    (each keeps its object, dtype and device, as PyTorch's buffers do)."""
    C = running_mean.shape[0]
    with grad_mode.no_grad():
        mean, var = mean.detach().reshape(C), var.detach().reshape(C)     # (C,)
        running_mean.copy_((1 - momentum) * running_mean + momentum * mean)
        running_var.copy_((1 - momentum) * running_var + momentum * var * (n / (n - 1)))


def _check_batch_norm(x: Any, running_mean: Any, running_var: Any, weight: Any, bias: Any,
                      training: Any, momentum: Any, eps: Any) -> tuple:
    """The arguments of batch_norm checked; returns (x, C, the axes reduced over)."""
    op = "batch_norm"
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: input must be a tinyffn Tensor, got {type_name(x)}; convert "
                        "arrays (and torch tensors) with tinyffn.tensor(...)")
    if x.ndim < 2:
        raise ValueError(f"{op}: input of shape {x.shape} has no channel axis; batch norm "
                         "takes (N, C) or (N, C, ...) and normalises each channel (axis 1)")
    if not x.backend.is_floating(x.dtype):
        raise TypeError(f"{op}: input has dtype {dtype_name(x.dtype)}; normalization computes "
                        "in floating point: cast it with x.to(dtype='float32')")
    C = x.shape[1]
    if (running_mean is None) != (running_var is None):
        raise ValueError(f"{op}: running_mean and running_var must both be tensors or both "
                         "be None (as PyTorch requires)")
    if running_mean is None and not training:
        raise ValueError(f"{op}: training=False normalises with running_mean and running_var, "
                         "but they are None; pass them, or training=True for the batch's "
                         "own statistics")
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if t is not None and not isinstance(t, Tensor):
            raise TypeError(f"{op}: {name} must be a tinyffn Tensor or None, got {type_name(t)}")
        if t is not None and t.shape != (C,):
            raise ValueError(f"{op}: {name} must have shape (C,) = ({C},), one entry per "
                             f"channel of the input {x.shape} (axis 1), got {t.shape}")
        if t is not None and not t.is_floating_point():   # an int buffer would truncate
            raise TypeError(f"{op}: {name} must be a float tensor, got {dtype_name(t.dtype)}"
                            f"; make it with dtype= the input's ({dtype_name(x.dtype)})")
    if training:
        _check_batch_size(op, x)
    if momentum is None:
        raise TypeError(f"{op}: momentum must be a number; the modules' momentum=None (the "
                        "cumulative average) passes 1/num_batches_tracked here, as PyTorch's")
    if not (is_real(momentum) and math.isfinite(momentum)):
        raise TypeError(f"{op}: momentum must be a finite number (the weight of the batch's "
                        f"statistics in the running ones), got {momentum!r}")
    if not (is_real(eps) and math.isfinite(eps) and (eps > 0 if training else eps >= 0)):
        raise ValueError(f"{op}: eps must be a finite number, positive in training (it keeps "
                         f"the division finite for a constant channel), got {eps!r}")
    return x, C, (0,) + tuple(range(2, x.ndim))


def _check_batch_size(op: str, x: Tensor) -> None:
    """Training needs two values per channel for a variance (PyTorch's words)."""
    if x.numel() <= x.shape[1]:
        raise ValueError(f"{op}: Expected more than 1 value per channel when training, got "
                         f"input size {x.shape}: a variance needs two values; use a batch "
                         "of 2 or more, or eval() mode (the running statistics)")


class _NormBase(Module):
    """What the BatchNorm and InstanceNorm modules share (PyTorch's ``_NormBase``):
    ``weight`` (ones) and ``bias`` (zeros) of shape (C,) with ``affine=True``; buffers
    ``running_mean`` (zeros), ``running_var`` (ones) and ``num_batches_tracked`` (int64 0)
    with ``track_running_stats=True``, else None. state_dict keys, their order and the
    repr are PyTorch's."""

    _dims: tuple = ()                   # the input ranks a subclass takes
    _shapes = ""                        # and their names, for the error

    def _check_input(self, input: Any) -> str:
        """A Tensor of one of the ranks the module takes, else an error; its class's name."""
        owner = type(self).__name__
        if not isinstance(input, Tensor):
            raise TypeError(f"{owner}: input must be a tinyffn Tensor, got {type_name(input)}")
        if input.ndim not in self._dims:
            raise ValueError(f"{owner}: expected {self._shapes} input, got {input.ndim}-D "
                             f"input of shape {input.shape}")
        return owner

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device: Any = None,
                 dtype: Any = None, *, bias: bool = True):
        super().__init__()
        owner = type(self).__name__
        if not (_is_int(num_features) and num_features > 0):
            raise ValueError(f"{owner}: num_features must be a positive int (C, the size of "
                             f"the input's axis 1), got {num_features!r}")
        if not (is_real(eps) and 0 <= eps < math.inf):
            raise ValueError(f"{owner}: eps must be a finite number >= 0 (positive to train; "
                             f"it keeps the division finite), got {eps!r}")
        if momentum is not None and not (is_real(momentum) and 0 <= momentum <= 1):
            raise ValueError(f"{owner}: momentum must be a number in [0, 1] (the weight of "
                             f"each batch in the running statistics) or None (their "
                             f"cumulative average), got {momentum!r}")
        self.num_features, self.eps, self.momentum = int(num_features), eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        dtype, device = dtype or DEFAULTS.float, device or "cpu"     # as nn.LayerNorm's
        C = self.num_features
        self.weight = Parameter(ones(C, dtype=dtype, device=device)) if affine else None
        self.bias = Parameter(zeros(C, dtype=dtype, device=device)) if affine and bias else None
        tracked = track_running_stats
        self.register_buffer("running_mean", zeros(C, dtype=dtype, device=device) if tracked
                             else None)
        self.register_buffer("running_var", ones(C, dtype=dtype, device=device) if tracked
                             else None)
        self.register_buffer("num_batches_tracked", tensor(0, dtype="int64", device=device)
                             if tracked else None)

    def reset_running_stats(self) -> None:
        """running_mean to 0, running_var to 1, num_batches_tracked to 0, in place."""
        if self.track_running_stats:
            with grad_mode.no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        """The running statistics reset, weight to 1 and bias to 0, in place."""
        self.reset_running_stats()
        with grad_mode.no_grad():
            if self.weight is not None:
                self.weight.fill_(1)
            if self.bias is not None:
                self.bias.zero_()

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class _BatchNorm(_NormBase):
    """What BatchNorm1d and BatchNorm2d share (PyTorch's ``_BatchNorm``, which
    ``update_bn`` looks for): the forward; with ``track_running_stats=False``, batch
    statistics in eval mode too."""

    def forward(self, input: Tensor) -> Tensor:
        owner = self._check_input(input)
        if input.shape[1] != self.num_features:
            raise ValueError(f"{owner}({self.num_features}): input of shape {input.shape} has "
                             f"{input.shape[1]} channels on axis 1, expected "
                             f"{self.num_features}")
        if self.training:
            _check_batch_size(owner, input)             # before num_batches_tracked moves
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:           # cumulative average: the k-th batch gets 1/k
                factor = 1.0 / float(self.num_batches_tracked.item())
        # batch statistics in training, and in eval when no running ones are kept
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        keep = not self.training or self.track_running_stats     # else leave them untouched
        return batch_norm(input, self.running_mean if keep else None,
                          self.running_var if keep else None, self.weight, self.bias,
                          use_batch, factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """Batch norm over (N, C) or (N, C, L), as ``torch.nn.BatchNorm1d``: each of the C
    features normalised over the N (and L) values of the batch; see :func:`batch_norm`."""

    _dims, _shapes = (2, 3), "2-D (N, C) or 3-D (N, C, L)"


class BatchNorm2d(_BatchNorm):
    """Batch norm over (N, C, H, W), as ``torch.nn.BatchNorm2d``: each channel normalised
    over its N · H · W values; see :func:`batch_norm`."""

    _dims, _shapes = (4,), "4-D (N, C, H, W)"
