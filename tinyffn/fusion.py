"""``nn.utils.fusion``: a BatchNorm folded into the Linear or convolution before it, for
inference, as ``torch.nn.utils.fusion``.

In eval mode a BatchNorm is a fixed affine map per channel c,

    bn(z)_c = γ_c (z_c − μ_c) / sqrt(σ²_c + ε) + β_c = s_c z_c + (β_c − s_c μ_c),
    s_c = γ_c / sqrt(σ²_c + ε),

with μ, σ² its running statistics. Fed by a Linear (or a convolution), z_c = w_c · x + b_c
is affine in x too, and the composition of two affine maps is one:

    bn(linear(x))_c = (s_c w_c) · x + s_c (b_c − μ_c) + β_c,

so W' = diag(s) W and b' = s (b − μ) + β give one layer that computes both (the scale
multiplies the output channel's row of W: axis 0 of a Linear's or a convolution's
weight, axis 1 of a transposed convolution's, whose weight is (C_in, C_out/groups, ...)).
The fused layer saves the BatchNorm's pass at inference and computes the same outputs up
to rounding; in training the statistics change with every batch and nothing can be folded,
so both modules must be in eval mode, as PyTorch requires.
"""
from __future__ import annotations

import copy
from typing import Any

from .creation import ones_like, zeros_like
from .grad_mode import no_grad
from .module import Module, Parameter
from .tensor import Tensor

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights"]


def fuse_conv_bn_eval(conv: Module, bn: Module, transpose: bool = False) -> Module:
    """A new convolution computing ``bn(conv(x))``, as ``torch.nn.utils.fuse_conv_bn_eval``:
    a deep copy of ``conv`` given the weight and bias of :func:`fuse_conv_bn_weights`
    (``transpose=True`` for a transposed convolution). ``conv`` and ``bn`` are unchanged;
    both must be in eval mode and ``bn`` must keep running statistics."""
    _check_eval("fuse_conv_bn_eval", conv, bn)
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias,
        transpose)
    return fused


def fuse_conv_bn_weights(conv_w: Tensor, conv_b: Tensor | None, bn_rm: Tensor, bn_rv: Tensor,
                         bn_eps: float, bn_w: Tensor | None, bn_b: Tensor | None,
                         transpose: bool = False) -> tuple[Parameter, Parameter]:
    """The weight and bias of one convolution computing a convolution and then a BatchNorm
    in eval mode (module docstring), as ``torch.nn.utils.fuse_conv_bn_weights``:

        W' = W · s (s = bn_w / sqrt(bn_rv + bn_eps) along the output channel axis: 0, or 1
             with ``transpose``),   b' = (b − bn_rm) · s + bn_b

    Missing ``conv_b``, ``bn_w``, ``bn_b`` count as 0, 1, 0. Each result is a new
    Parameter in its input's dtype, requiring grad as its input did (as PyTorch's: a
    missing ``conv_b`` gives a bias that does not)."""
    op = "fuse_conv_bn_weights"
    _check_channels(op, "conv_w", conv_w, 1 if transpose else 0, bn_rm)
    with no_grad():
        w_dtype = conv_w.dtype
        b_dtype = conv_b.dtype if conv_b is not None else w_dtype
        conv_b, bn_w, bn_b = _defaults(conv_b, bn_w, bn_b, bn_rm)
        inv_std = (bn_rv + bn_eps).rsqrt()                           # (C,)
        channel = [1, -1] if transpose else [-1, 1]
        scale = (bn_w * inv_std).reshape(channel + [1] * (conv_w.ndim - 2))   # (C, 1, 1, ...)
        w = (conv_w * scale).to(dtype=w_dtype)                       # conv_w's shape
        b = ((conv_b - bn_rm) * inv_std * bn_w + bn_b).to(dtype=b_dtype)      # (C,)
    return Parameter(w, conv_w.requires_grad), Parameter(b, conv_b.requires_grad)


def fuse_linear_bn_eval(linear: Module, bn: Module) -> Module:
    """A new Linear computing ``bn(linear(x))``, as ``torch.nn.utils.fuse_linear_bn_eval``:
    a deep copy of ``linear`` given the weight and bias of :func:`fuse_linear_bn_weights`.
    Both must be in eval mode; ``bn.num_features`` must be ``linear.out_features`` or 1."""
    _check_eval("fuse_linear_bn_eval", linear, bn)
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(
            f"fuse_linear_bn_eval: to fuse, linear.out_features == bn.num_features or "
            f"bn.num_features == 1, got linear.out_features={linear.out_features} and "
            f"bn.num_features={bn.num_features}")
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias)
    return fused


def fuse_linear_bn_weights(linear_w: Tensor, linear_b: Tensor | None, bn_rm: Tensor,
                           bn_rv: Tensor, bn_eps: float, bn_w: Tensor | None,
                           bn_b: Tensor | None) -> tuple[Parameter, Parameter]:
    """The weight (d_out, d_in) and bias (d_out,) of one Linear computing a Linear and then
    a BatchNorm in eval mode (module docstring), as
    ``torch.nn.utils.fuse_linear_bn_weights``:

        W' = diag(s) W,   b' = (b − bn_rm) · s + bn_b,   s = bn_w / sqrt(bn_rv + bn_eps)

    A missing ``linear_b`` counts as 0 (``bn_w``, ``bn_b`` as 1, 0, where PyTorch's would
    fail). Each result is a new Parameter in its input's dtype, requiring grad as its
    input did."""
    if bn_rm.shape[0] != 1:
        _check_channels("fuse_linear_bn_weights", "linear_w", linear_w, 0, bn_rm)
    with no_grad():
        w_dtype = linear_w.dtype
        b_dtype = linear_b.dtype if linear_b is not None else w_dtype
        linear_b, bn_w, bn_b = _defaults(linear_b, bn_w, bn_b, bn_rm)
        scale = bn_w * (bn_rv + bn_eps).rsqrt()                      # (d_out,) or (1,)
        w = linear_w * scale.unsqueeze(-1).to(dtype=w_dtype)         # (d_out, d_in)
        b = ((linear_b - bn_rm) * scale + bn_b).to(dtype=b_dtype)    # (d_out,)
    return Parameter(w, linear_w.requires_grad), Parameter(b, linear_b.requires_grad)


def _defaults(b: Tensor | None, bn_w: Tensor | None, bn_b: Tensor | None, bn_rm: Tensor):
    """A missing layer bias and BatchNorm bias as zeros, a missing BatchNorm scale as ones
    (frozen: made here, they need no gradient)."""
    return (zeros_like(bn_rm) if b is None else b, ones_like(bn_rm) if bn_w is None else bn_w,
            zeros_like(bn_rm) if bn_b is None else bn_b)


def _check_eval(op: str, layer: Module, bn: Module) -> None:
    """Both modules in eval mode, and a BatchNorm that keeps running statistics (the
    statistics it normalises with in eval mode are what is folded)."""
    if layer.training or bn.training:
        raise AssertionError(f"{op}: fusion only for eval! Call .eval() on both modules first "
                             f"(training: {type(layer).__name__} {layer.training}, "
                             f"{type(bn).__name__} {bn.training})")
    if getattr(bn, "running_mean", None) is None or getattr(bn, "running_var", None) is None:
        raise AssertionError(f"{op}: bn.running_mean and bn.running_var must not be None "
                             f"(a BatchNorm made with track_running_stats=True)")


def _check_channels(op: str, name: str, w: Any, axis: int, bn_rm: Tensor) -> None:
    """The BatchNorm's channels are the layer's outputs: one statistic per row (axis 0) of
    the weight, or per column (axis 1) of a transposed convolution's."""
    C = bn_rm.shape[0]
    if w.ndim <= axis or w.shape[axis] != C:
        raise ValueError(f"{op}: the BatchNorm has {C} channels but {name} {tuple(w.shape)} "
                         f"has {w.shape[axis] if w.ndim > axis else 'no'} output channels on "
                         f"axis {axis}; fuse a layer with the BatchNorm that follows it")
