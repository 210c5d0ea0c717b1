"""The binary cross-entropies, the smooth L1 (Huber) losses and the KL divergence, as
``torch.nn.functional``'s.

Composed from primitives, as the losses of :mod:`tinyffn.losses` (whose ``reduction``
checks and target handling they share), and reached as ``F.binary_cross_entropy``, ...
through :mod:`tinyffn.functional`. Each compares ``input`` and ``target`` entry by entry:
equal shapes, ``reduction`` ``"mean"``, ``"sum"`` or ``"none"``.

Where the formula has two pieces (the sides of sigmoid's logarithm, the square and the
line of smooth L1), each piece is picked with ``where``, and the operand of the piece
not taken is replaced by a harmless value first: ``where``'s backward gives that piece a
gradient of 0, and 0 times an infinite local derivative (log at 0, a square at inf) would
be NaN. ``abs`` and ``relu`` are avoided at the kinks for the same care: their gradient 0
at x = 0 would make log σ's slope at 0 come out 0 instead of ½.
"""
from __future__ import annotations

import warnings
from typing import Any

from . import grad_mode
from .amp_casts import refuse_unsafe
from .arguments import check_choice, is_real
from .backend import dtype_name
from .composed import where
from .functional import _check_tensor
from .losses import (_beside_input, _check_reduction, _elementwise_target,
                     _elementwise_weight, _reduce, _weighted_reduce)
from .tensor import Tensor

KL_REDUCTIONS = ("mean", "batchmean", "sum", "none")   # kl_div's: batchmean as well
LOG_FLOOR = -100.0          # PyTorch clamps BCE's logs here: p = 0 costs 100, not inf


def binary_cross_entropy_with_logits(input: Tensor, target: Any, weight: Any = None,
                                     reduction: str = "mean", pos_weight: Any = None) -> Tensor:
    """Binary cross-entropy of logits x against targets y in [0, 1], as
    ``F.binary_cross_entropy_with_logits``: with σ the sigmoid and pw ``pos_weight``,
    L_i = -w_i [pw y_i log σ(x_i) + (1 - y_i) log(1 - σ(x_i))], computed as PyTorch does,
    without ever forming σ(x):

        L_i = w_i [(1 - y_i) x_i - lw_i log σ(x_i)],   lw = 1 + (pw - 1) y,
        log σ(x) = min(x, 0) - log1p(exp(-|x|))        (no exp overflows; log1p keeps
                                                        a tiny loss, 1e-18, nonzero)

    dL/dx_i = w_i [(1 - y_i) - lw_i σ(-x_i)], which is w_i (σ(x_i) - y_i) without
    ``pos_weight``. A logit of ±inf whose label agrees (-inf with y = 0, inf with y = 1)
    gives NaN (inf - inf), as in PyTorch, and gradient 0.

    ``weight``: one factor per entry, broadcast to input's shape (a rescaling, as
    PyTorch's; ``"mean"`` still divides by the number of entries). ``pos_weight``: the
    weight of the positive term, one per class on the last axis (shape (C,)), or
    anything that broadcasts to input's shape; pw > 1 favours recall. Both are operands of
    the graph: one that requires grad gets its gradient (PyTorch refuses one).
    Shapes: input (...), target (...) floating point -> () for "mean"/"sum", (...) for "none".
    """
    op = "binary_cross_entropy_with_logits"
    target = _binary_target(op, input, target, reduction, weight)
    weight = _factor(op, "weight", weight, input)
    pos_weight = _factor(op, "pos_weight", pos_weight, input)
    with grad_mode.scope("function", op):
        x = input
        right = x >= 0                                                  # no graph
        minus_abs = where(right, -x, x)             # -|x|, slope -1 at 0 (abs's would be 0)
        log_sigmoid = where(right, 0.0, x) - minus_abs.exp().log1p()
        if pos_weight is None:
            loss = (1 - target) * x - log_sigmoid
        else:
            loss = (1 - target) * x - (1 + (pos_weight - 1) * target) * log_sigmoid
        return _reduce(loss if weight is None else loss * weight, reduction)


def binary_cross_entropy(input: Tensor, target: Any, weight: Any = None,
                         reduction: str = "mean") -> Tensor:
    """Binary cross-entropy of probabilities p against targets y, both in [0, 1], as
    ``F.binary_cross_entropy``: L_i = -w_i [y_i log p_i + (1 - y_i) log(1 - p_i)], each log
    clamped at -100 as PyTorch clamps it, so p = 0 or 1 costs at most 100 per entry.

    dL/dp_i = w_i (p_i - y_i) / (p_i (1 - p_i)) where neither log is clamped; a clamped
    log is constant, so its part of the gradient is 0. PyTorch's hand-written backward
    is w (p - y) / max(p (1 - p), 1e-12) everywhere, so the two part where p (1 - p) <
    1e-12, at probabilities within 1e-12 of 0 or 1 (a sigmoid saturated in float32 gives
    exactly 1.0): there PyTorch's gradient is ±1e12 (p - y), and 0 at p = y, where the
    derivative of what it computes is 1. For a sigmoid's output use
    :func:`binary_cross_entropy_with_logits`, exact everywhere.

    ``weight`` as in :func:`binary_cross_entropy_with_logits`. Entries outside [0, 1], and
    NaN, are refused, as by PyTorch; so are CUDA tensors in a "cuda" autocast region
    (``tinyffn.amp_casts``: float16 cannot hold 1 - p), as by PyTorch. Shapes: input (...),
    target (...) -> () or (...) for "none".
    """
    op = "binary_cross_entropy"
    target = _binary_target(op, input, target, reduction, weight)
    weight = _factor(op, "weight", weight, input)
    refuse_unsafe(op, input)            # in a "cuda" autocast region, as PyTorch refuses it
    xp = input.backend.xp
    named = (("input", input), ("target", target))
    # outside [0, 1], NaN too (or it would cost 100, slope 0): both flags in one read
    outside = input.backend.to_numpy(xp.stack([xp.any(~((t.data >= 0) & (t.data <= 1)))
                                               for _, t in named]))
    for (name, t), out in zip(named, outside):
        if out:
            got = ("NaN" if bool(xp.any(xp.isnan(t.data)))
                   else f"values from {float(t.min())} to {float(t.max())}")
            raise ValueError(f"{op}: every entry of {name} must lie in [0, 1] (probabilities"
                             f"{', or 0/1 labels' if name == 'target' else ''}), got {got}"
                             + ("; for logits use binary_cross_entropy_with_logits"
                                if name == "input" and got != "NaN" else ""))
    with grad_mode.scope("function", op):
        loss = -(target * _clamped_log(input) + (1 - target) * _clamped_log(1 - input))
        return _reduce(loss if weight is None else loss * weight, reduction)


def _clamped_log(p: Tensor) -> Tensor:
    """max(log p, -100), finite at p = 0: there p is replaced by 1 before the log (whose
    backward would divide 0 by 0) and the log by -100."""
    positive = p > 0                                                    # no graph
    return where(positive, where(positive, p, 1.0).log(), LOG_FLOOR).clamp(min=LOG_FLOOR)


def smooth_l1_loss(input: Tensor, target: Any, reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:
    """Smooth L1, as ``F.smooth_l1_loss``: with d = input - target,
    L_i = 0.5 d_i² / β where |d_i| < β, else |d_i| - 0.5 β: a square near 0 (no kink), a
    line beyond β (an outlier pulls with slope 1, not 2|d|). dL/dd = d / β inside,
    sign(d) outside, continuous at |d| = β. β = 0 is :func:`~tinyffn.losses.l1_loss`, as
    in PyTorch. ``reduction`` and shapes as ``mse_loss``.
    """
    op = "smooth_l1_loss"
    target = _elementwise_target(op, input, target, reduction)
    if not (is_real(beta) and beta >= 0):
        raise ValueError(f"{op}: beta must be a number >= 0 (where the square turns into "
                         f"a line), got {beta!r}")
    with grad_mode.scope("function", op):
        d = input - target
        a = d.abs()
        if beta == 0:
            return _reduce(a, reduction)
        inside = a < beta                                               # no graph
        # the square of d, not of |d|: the same values and gradient, but |d|'s derivative
        # sign(d) is 0 at d = 0, which made the second derivative there 0, not 1 / β
        q = where(inside, d, 0.0)                   # the square's operand, finite outside
        return _reduce(where(inside, 0.5 * q * q / beta, a - 0.5 * beta), reduction)


def huber_loss(input: Tensor, target: Any, reduction: str = "mean",
               delta: float = 1.0, weight: Any = None) -> Tensor:
    """Huber loss, as ``F.huber_loss``: with d = input - target, L_i = 0.5 d_i² where
    |d_i| < δ, else δ (|d_i| - 0.5 δ): δ times :func:`smooth_l1_loss` with β = δ, so the
    line's slope is δ. dL/dd = d inside, δ sign(d) outside. δ must be > 0, as in PyTorch.
    ``weight`` (PyTorch 2.13's), of input's shape, scales each L_i; its ``"mean"`` is
    Σ w_i L_i / n, over the n entries (PyTorch's, where mse_loss and l1_loss divide by Σ w).
    """
    op = "huber_loss"
    target = _elementwise_target(op, input, target, reduction)
    weight = _elementwise_weight(op, input, weight)
    if not (is_real(delta) and delta > 0):
        raise ValueError(f"{op}: delta must be a number > 0 (where the square turns into "
                         f"a line), got {delta!r}")
    with grad_mode.scope("function", op):
        d = input - target
        a = d.abs()
        inside = a < delta                                              # no graph
        q = where(inside, d, 0.0)         # d, not |d|: as smooth_l1_loss's, d²L/dd² = 1 at 0
        loss = where(inside, 0.5 * q * q, delta * (a - 0.5 * delta))
        return _weighted_reduce(loss, weight, reduction, by_weight_sum=False)


def kl_div(input: Tensor, target: Any, size_average: Any = None, reduce: Any = None,
           reduction: str = "mean", log_target: bool = False) -> Tensor:
    """The Kullback-Leibler divergence of ``target`` from the distribution whose log
    probabilities are ``input``, as ``F.kl_div``: L_i = t_i (log t_i - x_i), written
    ``xlogy(t, t) - t x`` so that t = 0 adds 0; with ``log_target`` (t given as log t)
    exp(t_i) (t_i - x_i). ``reduction``: ``"batchmean"`` (Σ L / batch size, the
    divergence per example: what the math means), ``"sum"``, ``"none"``, or ``"mean"``,
    the default, Σ L / (number of entries), which is PyTorch's number, and PyTorch 2.13's
    UserWarning with it (it divides by the support size too). Shapes equal; the
    legacy ``size_average`` and ``reduce`` are refused.
    """
    op = "kl_div"
    if size_average is not None or reduce is not None:
        raise TypeError(f"{op}: size_average and reduce are PyTorch's deprecated arguments; "
                        "pass reduction= by name")
    check_choice(op, "reduction", reduction, KL_REDUCTIONS, "pass it by name, reduction=...")
    batchmean = reduction == "batchmean"
    target = _elementwise_target(op, input, target, "sum" if batchmean else reduction)
    if not isinstance(log_target, bool):
        raise TypeError(f"{op}: log_target must be True or False, got {log_target!r}")
    if reduction == "mean":
        warnings.warn("kl_div: reduction='mean' divides the total loss by the number of entries "
                      "(batch size times support size), as PyTorch does; reduction='batchmean' "
                      "divides by the batch size alone, which is the KL divergence per example",
                      UserWarning, stacklevel=2)
    from .torch_math import xlogy
    with grad_mode.scope("function", op):
        terms = (target.exp() * (target - input) if log_target
                 else xlogy(target, target) - target * input)
        if batchmean:
            return terms.sum() / (input.shape[0] if input.ndim else 1)
        return _reduce(terms, reduction)


def _binary_target(op: str, input: Tensor, target: Any, reduction: str, weight: Any) -> Tensor:
    """``target`` checked and as a Tensor of input's shape; input must be floating point.
    Integer targets are refused, as by PyTorch (bool ones count as 0 and 1)."""
    _check_tensor(op, "input", input)
    _check_reduction(op, reduction)
    if isinstance(weight, str):
        raise TypeError(f"{op}: weight must be a Tensor or None, got {weight!r}; PyTorch's "
                        f"third argument is weight: pass the reduction by name, "
                        f"reduction={weight!r}")
    if not input.backend.is_floating(input.dtype):
        raise TypeError(f"{op}: input must be floating point, got {dtype_name(input.dtype)}")
    if isinstance(target, Tensor) and not target.backend.is_floating(target.dtype) \
            and dtype_name(target.dtype) != "bool":
        raise TypeError(f"{op}: target must be floating point (probabilities or 0/1 labels), "
                        f"got {dtype_name(target.dtype)}, as PyTorch refuses; cast it with "
                        f"target.to(dtype={dtype_name(input.dtype)!r})")
    return _elementwise_target(op, input, target, reduction)


def _factor(op: str, name: str, w: Any, input: Tensor) -> Tensor | None:
    """A ``weight`` or ``pos_weight`` as a Tensor on input's device that broadcasts to
    input's shape without changing it (None stays None)."""
    if w is None:
        return None
    w = _beside_input(op, name, w, input)
    shape, other = list(input.shape), list(w.shape)
    fits = len(other) <= len(shape) and all(
        n in (1, m) for n, m in zip(reversed(other), reversed(shape)))
    if not fits:
        hint = " (one per class, on the last axis)" if name == "pos_weight" else ""
        raise ValueError(f"{op}: {name} of shape {w.shape} does not broadcast to input's "
                         f"shape {input.shape}{hint}; each of its trailing axes must match "
                         "input's or be 1")
    return w


__all__ = ["binary_cross_entropy_with_logits", "binary_cross_entropy", "smooth_l1_loss",
           "huber_loss", "kl_div"]
