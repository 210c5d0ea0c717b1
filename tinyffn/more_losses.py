"""The likelihood and embedding losses of ``torch.nn.functional``: ``gaussian_nll_loss``,
``poisson_nll_loss``, ``margin_ranking_loss``, ``hinge_embedding_loss`` and
``cosine_embedding_loss``.

Composed from primitives, as :mod:`tinyffn.binary_losses` (whose pattern, and whose
``reduction`` check, they share), and reached as ``F.gaussian_nll_loss``, ... through
:mod:`tinyffn.functional`. ``reduction`` is ``"mean"``, ``"sum"`` or ``"none"``; PyTorch's
deprecated ``size_average`` and ``reduce`` keep their places in the signatures and are
refused. Shapes follow PyTorch's documented ones; a mismatch is refused with the shapes,
where PyTorch would often broadcast silently.
"""
from __future__ import annotations

import math
from typing import Any

from . import grad_mode
from .arguments import is_real
from .backend import DeviceError
from .composed import where
from .functional import _check_tensor
from .losses import _beside_input, _check_reduction, _elementwise_target, _reduce
from .tensor import Tensor
from .torch_select import _broadcast

COSINE_EPS = 1e-12          # PyTorch adds it to each squared norm: a zero vector gives cos 0


def gaussian_nll_loss(input: Tensor, target: Any, var: Any, full: bool = False,
                      eps: float = 1e-6, reduction: str = "mean") -> Tensor:
    """Negative log likelihood of ``target`` under N(input, var), as
    ``F.gaussian_nll_loss``: L_i = ½ (log v_i + (x_i - y_i)² / v_i) (+ ½ log 2π with
    ``full``), v = max(var, eps).

    dL/dx = (x - y) / v, dL/dy = -(x - y) / v, dL/dvar = ½ (1/v - (x - y)² / v²). The
    clamp is PyTorch's: made under ``no_grad`` on a clone, so it changes the value and
    not the gradient (straight-through): where var < eps the gradient is the slope at
    v = eps, not 0. Written here as ``where(var < eps, var - var.detach() + eps, var)``
    (var - var.detach() is 0 with slope 1): exactly eps in value, slope 1 in var.

    ``var``: one variance per entry (input's shape), one per row (input's shape without
    its last axis, or with it 1), a shape equal to input's but for one axis of size 1,
    or a number for all; negative entries are refused, as by PyTorch. ``target``:
    input's shape or broadcasting to it along axes of size 1. Shapes: input (...) ->
    () for "mean"/"sum", (...) for "none".
    """
    op = "gaussian_nll_loss"
    _check_tensor(op, "input", input)
    _check_reduction(op, reduction)
    if not input.backend.is_floating(input.dtype):
        raise TypeError(f"{op}: input must be floating point (the Gaussian's means), got "
                        f"{input.dtype}; cast it with input.to(dtype='float32')")
    _gaussian_options(op, full, eps)
    target = _beside_input(op, "target", target, input)
    if _broadcast(op, target.shape, input.shape) != input.shape:
        raise ValueError(f"{op}: target of shape {target.shape} does not broadcast to input's "
                         f"shape {input.shape}; give it input's shape")
    var = _variance(op, var, input)
    with grad_mode.scope("function", op):
        low = var < eps                                                 # no graph
        small = where(low, var, 0.0)        # finite: an inf var would make inf - inf
        v = where(low, small - small.detach() + eps, var)   # max(var, eps), slope 1 in var
        d = input - target
        loss = 0.5 * (v.log() + d ** 2 / v)
        if full:
            loss = loss + 0.5 * math.log(2 * math.pi)
        return _reduce(loss, reduction)


def _variance(op: str, var: Any, input: Tensor) -> Tensor:
    """``var`` checked (>= 0, a shape PyTorch accepts) and as a Tensor that broadcasts to
    input's shape: a (..., ) var for a (..., D) input gets an axis, (..., 1)."""
    if is_real(var):
        if not var >= 0:
            raise ValueError(f"{op}: var must be >= 0 (a variance), got {var!r}")
        return input.new_ones(*input.shape) * var
    if not isinstance(var, Tensor):
        raise TypeError(f"{op}: var must be a tinyffn Tensor or a number, got "
                        f"{type(var).__name__}")
    if var.backend is not input.backend:
        raise DeviceError(f"{op}: var is on {var.device} but input on {input.device}; "
                          f"move it with .to('{input.device}')")
    if var.numel() and bool(input.backend.xp.any(var.data < 0)):
        raise ValueError(f"{op}: var has negative entries (down to {float(var.min())}); "
                         "variances must be >= 0")
    if var.shape == input.shape:
        return var
    if var.shape == input.shape[:-1]:                   # one variance per row
        return var.reshape(*var.shape, 1)                               # (..., 1)
    differ = [n for n, m in zip(var.shape, input.shape) if n != m]
    if var.ndim == input.ndim and differ == [1]:        # one axis of size 1 (homoscedastic)
        return var
    raise ValueError(f"{op}: var of shape {var.shape} does not fit input's shape "
                     f"{input.shape}; give one variance per entry {input.shape}, or input's "
                     "shape with one axis of size 1 (or without its last axis)")


def poisson_nll_loss(input: Tensor, target: Any, log_input: bool = True, full: bool = False,
                     size_average: Any = None, eps: float = 1e-8, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:
    """Negative log likelihood of counts ``target`` under Poisson(λ), as
    ``F.poisson_nll_loss``, dropping log(y!) : with ``log_input`` (the default) the input
    is log λ and L_i = exp(x_i) - y_i x_i, dL/dx = exp(x) - y (no log of 0 to guard);
    else the input is λ and L_i = x_i - y_i log(x_i + eps), dL/dx = 1 - y / (x + eps).

    ``full`` adds Stirling's approximation of log(y!), y log y - y + ½ log(2π y), where
    y > 1 (0 where y <= 1, as PyTorch's). Its operand is replaced by 2 where y <= 1
    before the logs, so a target that requires grad gets 0 there, not NaN (PyTorch
    gives NaN at y = 0). Shapes equal: input (...), target (...) -> () or (...) for "none".
    """
    op = "poisson_nll_loss"
    _refuse_legacy(op, size_average, reduce)
    target = _elementwise_target(op, input, target, reduction)
    _poisson_options(op, log_input, full, eps)
    with grad_mode.scope("function", op):
        if log_input:
            loss = input.exp() - target * input
        else:
            loss = input - target * (input + eps).log()
        if full:
            big = target > 1                                            # no graph
            y = where(big, target, 2.0)                 # log's operand, > 0 everywhere
            stirling = y * y.log() - y + 0.5 * (2 * math.pi * y).log()
            loss = loss + where(big, stirling, 0.0)
        return _reduce(loss, reduction)


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Any, margin: float = 0,
                        size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:
    """Ranking hinge, as ``F.margin_ranking_loss``: L_i = max(0, -y_i (x1_i - x2_i) +
    margin), y = 1 where x1 should rank above x2, -1 where below. dL/dx1 = -y where
    the hinge is active (its argument >= 0, PyTorch's clamp: slope 1 at the kink), else
    0; dL/dx2 = -dL/dx1. The three must have equal numbers of axes, as PyTorch checks,
    and broadcast together: input1 (N) or (), input2 and target the same -> () or (N)."""
    op = "margin_ranking_loss"
    input2, target = _pair(op, input1, input2, target, margin, reduction, size_average, reduce)
    if not input1.ndim == input2.ndim == target.ndim:
        raise ValueError(f"{op}: input1, input2 and target must have the same number of axes, "
                         f"got shapes {input1.shape}, {input2.shape} and {target.shape}")
    _broadcast(op, _broadcast(op, input1.shape, input2.shape), target.shape)
    with grad_mode.scope("function", op):
        return _reduce((-target * (input1 - input2) + margin).clamp(min=0.0), reduction)


def hinge_embedding_loss(input: Tensor, target: Any, margin: float = 1.0,
                         size_average: Any = None, reduce: Any = None,
                         reduction: str = "mean") -> Tensor:
    """Hinge on distances, as ``F.hinge_embedding_loss``: with y = 1 (similar pair) L_i =
    x_i, with y = -1 (dissimilar) L_i = max(0, margin - x_i); x is usually a distance.
    PyTorch's formula, kept: max(0, margin - x) where y != 1 plus x where y != -1, so any
    other label adds both. dL/dx = 1 where y = 1, -1 where y = -1 and margin - x >= 0,
    else 0. Shapes equal: input (...), target (...) -> () or (...) for "none"."""
    op = "hinge_embedding_loss"
    _refuse_legacy(op, size_average, reduce)
    _check_margin(op, margin)
    target = _elementwise_target(op, input, target, reduction)
    with grad_mode.scope("function", op):
        pushed = where(target != 1, (margin - input).clamp(min=0.0), 0.0)
        pulled = where(target != -1, input, 0.0)
        return _reduce(pushed + pulled, reduction)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Any, margin: float = 0,
                          size_average: Any = None, reduce: Any = None,
                          reduction: str = "mean") -> Tensor:
    """Cosine hinge, as ``F.cosine_embedding_loss``: with c_i the cosine of rows x1_i and
    x2_i, L_i = 1 - c_i where y_i = 1, max(0, c_i - margin) where y_i = -1, 0 for any
    other label. c = Σ x1 x2 / sqrt((Σ x1² + 1e-12)(Σ x2² + 1e-12)), PyTorch's, so a zero
    row gives c = 0, not NaN. dL/dc = -1 or 1 (0 below the margin); dc/dx1 =
    x2 / (|x1| |x2|) - c x1 / |x1|² (with the 1e-12 in the norms).

    Shapes: input1 and input2 (N, D) with target (N,) -> () or (N,) for "none", or (D,)
    with a 0-d target, as PyTorch.
    """
    op = "cosine_embedding_loss"
    input2, target = _pair(op, input1, input2, target, margin, reduction, size_average, reduce)
    if target.ndim > 1:
        raise ValueError(f"{op}: target must be 0-d (one pair) or 1-d (one label per row), "
                         f"got shape {target.shape}; multi-target is not supported")
    if not (input1.shape == input2.shape and input1.ndim == target.ndim + 1
            and input1.shape[:-1] == target.shape):
        raise ValueError(f"{op}: input1 {input1.shape} and input2 {input2.shape} must be "
                         f"(N, D) for a target (N,) or (D,) for a 0-d target; target has "
                         f"shape {target.shape}")
    axis = target.ndim                                  # the vectors' axis, the last
    with grad_mode.scope("function", op):
        dot = (input1 * input2).sum(axis=axis)                          # (N,) or ()
        sq1 = (input1 * input1).sum(axis=axis) + COSINE_EPS
        sq2 = (input2 * input2).sum(axis=axis) + COSINE_EPS
        cos = dot / (sq1 * sq2).sqrt()
        pos = where(target == 1, 1 - cos, 0.0)
        neg = where(target == -1, (cos - margin).clamp(min=0.0), 0.0)
        return _reduce(pos + neg, reduction)


# ----------------------------------------------------------------------------- helpers
def _refuse_legacy(op: str, size_average: Any, reduce: Any) -> None:
    if size_average is not None or reduce is not None:
        raise TypeError(f"{op}: size_average and reduce are PyTorch's deprecated arguments; "
                        "pass reduction= by name")


def _gaussian_options(op: str, full: Any, eps: Any) -> None:
    if not isinstance(full, bool):
        raise TypeError(f"{op}: full must be True or False, got {full!r}")
    if not (is_real(eps) and eps >= 0):
        raise ValueError(f"{op}: eps must be a number >= 0 (the least variance), got {eps!r}")


def _poisson_options(op: str, log_input: Any, full: Any, eps: Any) -> None:
    for name, flag in (("log_input", log_input), ("full", full)):
        if not isinstance(flag, bool):
            raise TypeError(f"{op}: {name} must be True or False, got {flag!r}")
    if not is_real(eps):
        raise TypeError(f"{op}: eps must be a number, got {eps!r}")


def _pair(op: str, input1: Any, input2: Any, target: Any, margin: Any, reduction: str,
          size_average: Any, reduce: Any) -> tuple:
    """The checks the two pairwise losses share; (input2, target) as tensors like input1's."""
    _refuse_legacy(op, size_average, reduce)
    _check_tensor(op, "input1", input1)
    _check_reduction(op, reduction)
    _check_margin(op, margin)
    return _beside_input(op, "input2", input2, input1), _beside_input(op, "target", target, input1)


def _check_margin(op: str, margin: Any) -> None:
    if not is_real(margin):
        raise TypeError(f"{op}: margin must be a number, got {margin!r}"
                        + (f"; pass the reduction by name, reduction={margin!r}"
                           if isinstance(margin, str) else ""))


__all__ = ["gaussian_nll_loss", "poisson_nll_loss", "margin_ranking_loss",
           "hinge_embedding_loss", "cosine_embedding_loss"]
