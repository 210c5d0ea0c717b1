"""The margin and triplet losses of ``torch.nn.functional``: ``soft_margin_loss``,
``multilabel_soft_margin_loss``, ``multi_margin_loss``, ``multilabel_margin_loss``,
``triplet_margin_loss`` and ``triplet_margin_with_distance_loss``.

Composed from primitives, as :mod:`tinyffn.more_losses` (whose helpers they share), and
reached as ``F.soft_margin_loss``, ...; their modules are in :mod:`tinyffn.loss_modules`.
``reduction`` is ``"mean"``, ``"sum"`` or ``"none"``; PyTorch's deprecated
``size_average`` and ``reduce`` keep their places and are refused. The hinges,
max(0, z), are ``where(z > 0, z, 0)``: slope 0 at the kink, as PyTorch's kernels
(``if (z > 0)``); the triplet losses use ``clamp(min=0)``, slope 1 there, as PyTorch's
``clamp_min``.
"""
from __future__ import annotations

from typing import Any, Callable

from . import grad_mode
from .activations_extra import logsigmoid
from .backend import DeviceError, dtype_name
from .composed import minimum, where
from .creation import arange
from .distances import pairwise_distance
from .functional import _check_tensor
from .losses import _beside_input, _check_reduction, _elementwise_target, _reduce
from .more_losses import _check_margin, _refuse_legacy
from .tensor import Tensor
from .torch_select import _broadcast


def soft_margin_loss(input: Tensor, target: Any, size_average: Any = None, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:
    """Two-class logistic loss on labels y = ±1, as ``F.soft_margin_loss``:
    L_i = log(1 + exp(-y_i x_i)), dL/dx = -y sigmoid(-y x).

    Computed as -logsigmoid(y x), so a large -y x gives its value, not inf (PyTorch
    computes log1p(exp(...)) and overflows to inf past -y x ≈ 89 in float32, 710 in
    float64). Shapes equal: input (...), target (...) -> () or (...) for "none".
    """
    op = "soft_margin_loss"
    _refuse_legacy(op, size_average, reduce)
    target = _elementwise_target(op, input, target, reduction)
    _floating(op, input)
    with grad_mode.scope("function", op):
        return _reduce(-logsigmoid(target * input), reduction)


def multilabel_soft_margin_loss(input: Tensor, target: Any, weight: Tensor | None = None,
                                size_average: Any = None, reduce: Any = None,
                                reduction: str = "mean") -> Tensor:
    """One-vs-all logistic loss over C classes, as ``F.multilabel_soft_margin_loss``:
    for each row x (C scores) and targets y in {0, 1} (C of them, several may be 1)::

        L = -1/C Σ_c w_c (y_c log sigmoid(x_c) + (1 - y_c) log sigmoid(-x_c))

    binary_cross_entropy_with_logits averaged over the class axis (the last), then
    reduced over the rows. dL/dx_c = w_c (sigmoid(x_c) - y_c) / C. ``weight``: a tensor
    broadcasting to input's shape (usually (C,)). Shapes: input and target (N, C) ->
    () or (N,) for "none"; (C,) -> ().
    """
    op = "multilabel_soft_margin_loss"
    _refuse_legacy(op, size_average, reduce)
    target = _elementwise_target(op, input, target, reduction)
    _floating(op, input)
    if input.ndim == 0:
        raise ValueError(f"{op}: input must have a class axis, (C,) or (N, C), got a 0-d "
                         "tensor (PyTorch refuses it too)")
    if weight is not None:
        weight = _beside_input(op, "weight", weight, input)
        if _broadcast(op, weight.shape, input.shape) != input.shape:
            raise ValueError(f"{op}: weight of shape {weight.shape} does not broadcast to "
                             f"input's {input.shape}; give one weight per class, (C,)")
    with grad_mode.scope("function", op):
        loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))   # (..., C)
        if weight is not None:
            loss = loss * weight
        return _reduce(loss.sum(axis=-1) / input.shape[-1], reduction)           # (...)


def multi_margin_loss(input: Tensor, target: Any, p: int = 1, margin: float = 1.0,
                      weight: Tensor | None = None, size_average: Any = None,
                      reduce: Any = None, reduction: str = "mean") -> Tensor:
    """Multi-class hinge (Weston & Watkins, Crammer & Singer), as ``F.multi_margin_loss``:
    for scores x (C,) and the true class y, every other class's score should stay
    ``margin`` below x_y::

        L = 1/C Σ_{i ≠ y} w_y · max(0, margin - x_y + x_i)^p          p = 1 or 2

    dL/dx_i = w_y p z_i^(p-1) / C for each active z_i = margin - x_y + x_i > 0 (i ≠ y),
    and dL/dx_y = minus their sum. ``weight`` (C,): a weight per true class.
    Shapes: input (N, C) with integer target (N,) -> () or (N,) for "none"; input (C,)
    with a 0-d or (1,) target -> () or the target's shape.
    """
    op = "multi_margin_loss"
    _refuse_legacy(op, size_average, reduce)
    _check_tensor(op, "input", input)
    _check_reduction(op, reduction)
    _floating(op, input)
    if p not in (1, 2) or isinstance(p, bool):
        raise ValueError(f"{op}: only p == 1 and p == 2 supported (as PyTorch), got {p!r}")
    _check_margin(op, margin)
    if input.ndim not in (1, 2) or input.shape[-1] == 0:
        raise ValueError(f"{op}: input must be scores (C,) or (N, C) with C > 0, got shape "
                         f"{input.shape}")
    C = input.shape[-1]
    target = _class_indices(op, target, input, low=0)
    wanted = ((), (1,)) if input.ndim == 1 else ((input.shape[0],),)
    if target.shape not in wanted:
        raise ValueError(f"{op}: target must hold one class per row of input {input.shape}, "
                         f"shape {' or '.join(map(str, wanted))}, got {target.shape}")
    if weight is not None:
        weight = _beside_input(op, "weight", weight, input)
        if weight.shape != (C,):
            raise ValueError(f"{op}: weight must have shape (C,) = ({C},), one weight per "
                             f"class, got {weight.shape}")
    x = input.reshape(-1, C)                                            # (N, C)
    y = target.reshape(-1, 1)                                           # (N, 1)
    is_y = arange(C, device=input.device).reshape(1, C) == y            # (N, C), no graph
    with grad_mode.scope("function", op):
        x_y = where(is_y, x, 0.0).sum(axis=1, keepdims=True)            # (N, 1)
        z = margin - x_y + x                                            # (N, C)
        h = where(is_y | (z <= 0), 0.0, z)                              # max(0, z), i ≠ y
        if p == 2:
            h = h * h
        if weight is not None:
            h = h * where(is_y, weight, 0.0).sum(axis=1, keepdims=True)   # w_y, (N, 1)
        return _reduce((h.sum(axis=1) / C).reshape(target.shape), reduction)


def multilabel_margin_loss(input: Tensor, target: Any, size_average: Any = None,
                           reduce: Any = None, reduction: str = "mean") -> Tensor:
    """Multi-label hinge, as ``F.multilabel_margin_loss``: each target class j should
    score at least 1 above each non-target class i::

        L = 1/C Σ_{j in targets} Σ_{i not in targets} max(0, 1 - (x_j - x_i))

    ``target`` is PyTorch's format: integer class indices of input's shape, the targets
    first, ended by the first -1 (what follows it is ignored, but must still be in
    [-1, C), as PyTorch checks); a class listed twice counts twice, as in PyTorch.
    Computed on all (j, i) pairs at once, (N, C, C), weighted by how often j is listed
    and whether i is not a target. Shapes: input and target (N, C) -> () or (N,) for
    "none"; (C,) -> ().
    """
    op = "multilabel_margin_loss"
    _refuse_legacy(op, size_average, reduce)
    _check_tensor(op, "input", input)
    _check_reduction(op, reduction)
    _floating(op, input)
    if input.ndim not in (1, 2) or input.shape[-1] == 0:
        raise ValueError(f"{op}: input must be scores (C,) or (N, C) with C > 0, got shape "
                         f"{input.shape}")
    target = _class_indices(op, target, input, low=-1)
    if target.shape != input.shape:
        raise ValueError(f"{op}: target must have input's shape {input.shape} (class indices "
                         f"ended by -1), got {target.shape}")
    C = input.shape[-1]
    with grad_mode.no_grad():           # which classes are targets: integers, no graph
        t = target.reshape(-1, C)                                       # (N, K = C)
        listed = (t < 0).long().cumsum(1) == 0                         # before the first -1
        one_hot = t.reshape(-1, C, 1) == arange(C, device=input.device)   # (N, K, C)
        count = (one_hot & listed.reshape(-1, C, 1)).to(input.dtype).sum(axis=1)   # (N, C)
        others = (count == 0).to(input.dtype)                           # (N, C): not a target
        pairs = count.reshape(-1, C, 1) * others.reshape(-1, 1, C)      # (N, C_j, C_i)
    with grad_mode.scope("function", op):
        x = input.reshape(-1, C)                                        # (N, C)
        z = 1 - x.reshape(-1, C, 1) + x.reshape(-1, 1, C)               # (N, C_j, C_i)
        hinge = where(z > 0, z, 0.0) * pairs
        return _reduce((hinge.sum(axis=(1, 2)) / C).reshape(input.shape[:-1]), reduction)


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor,
                        margin: float = 1.0, p: float = 2, eps: float = 1e-06,
                        swap: bool = False, size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:
    """Triplet loss (Schroff et al. 2015, FaceNet), as ``F.triplet_margin_loss``: the
    anchor should be nearer the positive than the negative by ``margin``::

        L_i = max(0, margin + d(a_i, p_i) - d(a_i, n_i)),  d = pairwise_distance(·, ·, p, eps)

    ``swap`` (Balntas et al. 2016) uses min(d(a, n), d(p, n)) for the negative's
    distance. margin must be > 0, as PyTorch requires. Shapes: (N, D) each (broadcasting
    as pairwise_distance's, with equal numbers of axes) -> () or (N,) for "none";
    (D,) each -> ().
    """
    op = "triplet_margin_loss"
    _refuse_legacy(op, size_average, reduce)
    _check_triplet(op, anchor, positive, negative, margin, swap, reduction)

    def distance(x1: Tensor, x2: Tensor) -> Tensor:
        return pairwise_distance(x1, x2, p, eps)
    with grad_mode.scope("function", op):
        return _triplet(anchor, positive, negative, distance, margin, swap, reduction, op)


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function: Callable | None = None,
                                      margin: float = 1.0, swap: bool = False,
                                      reduction: str = "mean") -> Tensor:
    """:func:`triplet_margin_loss` with any distance, as
    ``F.triplet_margin_with_distance_loss``: L_i = max(0, margin + d(a_i, p_i) -
    d(a_i, n_i)), d = ``distance_function`` (a callable of two tensors returning one
    distance per row, ``pairwise_distance`` if None; ``lambda x, y: 1 -
    F.cosine_similarity(x, y)`` for the cosine distance). Its gradient is the
    distance's, composed. margin must be > 0, as PyTorch requires."""
    op = "triplet_margin_with_distance_loss"
    _check_triplet(op, anchor, positive, negative, margin, swap, reduction)
    if distance_function is not None and not callable(distance_function):
        raise TypeError(f"{op}: distance_function must be a callable of two tensors (or "
                        f"None for pairwise_distance), got {type(distance_function).__name__}")
    with grad_mode.scope("function", op):
        return _triplet(anchor, positive, negative, distance_function or pairwise_distance,
                        margin, swap, reduction, op)


# ----------------------------------------------------------------------------- helpers
def _triplet(a: Tensor, p: Tensor, n: Tensor, distance: Callable, margin: float, swap: bool,
             reduction: str, op: str) -> Tensor:
    d_pos, d_neg = distance(a, p), distance(a, n)
    if swap:                            # the positive may be nearer the negative
        d_neg = minimum(d_neg, distance(p, n))
    for d in (d_pos, d_neg):
        if not isinstance(d, Tensor):
            raise TypeError(f"{op}: the distance function must return a tinyffn Tensor, got "
                            f"{type(d).__name__}")
    return _reduce((margin + d_pos - d_neg).clamp(min=0.0), reduction)


def _check_triplet(op: str, anchor: Any, positive: Any, negative: Any, margin: Any,
                   swap: Any, reduction: str) -> None:
    for name, t in (("anchor", anchor), ("positive", positive), ("negative", negative)):
        _check_tensor(op, name, t)
        if t.backend is not anchor.backend:
            raise DeviceError(f"{op}: {name} is on {t.device} but anchor on {anchor.device}; "
                              f"move it with .to('{anchor.device}')")
    _check_reduction(op, reduction)
    _check_margin(op, margin)
    if not margin > 0:
        raise ValueError(f"{op}: margin must be greater than 0, got {margin} (PyTorch "
                         "refuses it too)")
    if not isinstance(swap, bool):
        raise TypeError(f"{op}: swap must be True or False, got {swap!r}")
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise ValueError(f"{op}: anchor, positive and negative must have the same number of "
                         f"axes, got shapes {anchor.shape}, {positive.shape} and "
                         f"{negative.shape}")


def _floating(op: str, x: Tensor) -> None:
    if not x.backend.is_floating(x.dtype):
        raise TypeError(f"{op}: input must be floating point (scores), got "
                        f"{dtype_name(x.dtype)}; cast it with input.to(dtype='float32')")


def _class_indices(op: str, target: Any, input: Tensor, low: int) -> Tensor:
    """``target`` as an integer Tensor on input's device, each entry in [low, C)."""
    if not isinstance(target, Tensor):
        target = Tensor(input.backend.asarray(target), _backend=input.backend)
    elif target.backend is not input.backend:
        raise DeviceError(f"{op}: target is on {target.device} but input on {input.device}; "
                          f"move it with .to('{input.device}')")
    if not input.backend.xp.isdtype(target.dtype, "integral"):
        raise TypeError(f"{op}: target must hold integer class indices, got dtype "
                        f"{dtype_name(target.dtype)}; cast it with target.long()")
    C, xp = input.shape[-1], input.backend.xp
    if not target.numel():
        return target
    least, most = input.backend.to_numpy(xp.stack([xp.min(target.data), xp.max(target.data)]))
    if least < low or most >= C:                        # read together: one wait for a GPU
        raise IndexError(f"{op}: target holds {least} to {most}, but input has C = {C} "
                         f"classes: entries must be in [{low}, {C - 1}]"
                         + (" (-1 ends the list of targets)" if low < 0 else ""))
    return target


__all__ = ["soft_margin_loss", "multilabel_soft_margin_loss", "multi_margin_loss",
           "multilabel_margin_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss"]
