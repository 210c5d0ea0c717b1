"""The losses: mean squared and absolute error, cross-entropy, the negative log-likelihood.

Composed from primitives, as the rest of :mod:`tinyffn.functional`, which re-exports them
(``F.cross_entropy``, as ``torch.nn.functional.cross_entropy``). Each takes PyTorch's
``reduction``: ``"mean"`` (the default), ``"sum"`` or ``"none"`` (one loss per row).

The classification losses take the classes on the last axis, logits (..., C) with one
integer target per row (...), PyTorch's ``weight`` (one per class) and ``ignore_index``
(rows to leave out, such as padding); ``cross_entropy`` also takes ``label_smoothing``,
and class probabilities in place of the integer targets.
"""
from __future__ import annotations

import math
from typing import Any

from . import grad_mode
from .arguments import _is_int, check_choice, is_real
from .backend import DeviceError, dtype_name
from .creation import arange
from .functional import _check_tensor, _narrowed, _widened, log_softmax
from .ops.shape import CheckedKey, GetItem
from .tensor import Tensor
from .composed import where

REDUCTIONS = ("mean", "sum", "none")
IGNORE_INDEX = -100     # PyTorch's default: no class has it, so by default nothing is ignored


def mse_loss(input: Tensor, target: Any, reduction: str = "mean", *,
             weight: Any = None) -> Tensor:
    """Mean squared error: L = mean_i (input_i - target_i)^2.

    dL/dinput_i = 2 (input_i - target_i) / n (``"mean"``, n elements), without the 1/n for
    ``"sum"``; ``"none"`` returns the elementwise squares. ``target`` is a Tensor or array
    of the same shape as ``input`` (broadcasting is refused: it usually hides a bug).
    ``weight`` (PyTorch 2.13's, by name), of input's shape, scales each square: L =
    Σ w_i (input_i - target_i)² / Σ w_i for ``"mean"`` (divided by the weights' sum, not
    by n, as PyTorch), the weighted sum for ``"sum"``, w_i (input_i - target_i)² for
    ``"none"``; a gradient flows into the weights too.
    Shapes: input (...), target (...) -> () for "mean"/"sum", (...) for "none".
    """
    target = _elementwise_target("mse_loss", input, target, reduction)
    weight = _elementwise_weight("mse_loss", input, weight)
    with grad_mode.scope("function", "mse_loss"):
        d = input - target
        # d · d, not d ** 2: the same numbers, and a gradient 2 d gy whose own derivative
        # is a constant, as PyTorch's fused mse_loss_backward (its Hessian has no graph)
        return _weighted_reduce(d * d, weight, reduction, by_weight_sum=True)


def l1_loss(input: Tensor, target: Any, reduction: str = "mean", *,
            weight: Any = None) -> Tensor:
    """Mean absolute error: L = mean_i |input_i - target_i|, as ``F.l1_loss``.

    dL/dinput_i = sign(input_i - target_i) / n (``"mean"``), 0 where they are equal (the
    kink of |x|, as PyTorch); ``reduction``, ``weight`` (its ``"mean"`` divided by the
    weights' sum) and the shapes as :func:`mse_loss` (a target of another shape is
    refused, where PyTorch warns and broadcasts).
    """
    target = _elementwise_target("l1_loss", input, target, reduction)
    weight = _elementwise_weight("l1_loss", input, weight)
    with grad_mode.scope("function", "l1_loss"):
        return _weighted_reduce((input - target).abs(), weight, reduction, by_weight_sum=True)


def _elementwise_target(op: str, input: Tensor, target: Any, reduction: str) -> Tensor:
    """The arguments of a loss that compares ``input`` and ``target`` entry by entry,
    checked; ``target`` as a Tensor of input's shape."""
    _check_tensor(op, "input", input)
    _check_reduction(op, reduction)
    if not isinstance(target, Tensor):
        target = Tensor(input.backend.asarray(target, input.dtype), _backend=input.backend)
    elif dtype_name(target.dtype) == "bool":    # 0/1 labels as a mask: counted, as in
        target = target.to(dtype=input.dtype)   # PyTorch (input - mask itself is refused)
    if target.shape != input.shape:
        raise ValueError(f"{op}: input has shape {input.shape} but target has shape "
                         f"{target.shape}; they must be equal (reshape the target, e.g. a "
                         f"(T,) target for a (T, 1) prediction needs .reshape(T, 1))")
    return target


def _beside_input(op: str, name: str, w: Any, input: Tensor) -> Tensor:
    """A loss's second operand (a ``weight``, ``pos_weight``, target, ...) as a Tensor on
    input's device: a number, list or array is made a Tensor of input's dtype, as a target
    is; a Tensor elsewhere is refused."""
    if not isinstance(w, Tensor):
        return Tensor(input.backend.asarray(w, input.dtype), _backend=input.backend)
    if w.backend is not input.backend:
        raise DeviceError(f"{op}: {name} is on {w.device} but input on {input.device}; "
                          f"move it with .to('{input.device}')")
    return w


def _elementwise_weight(op: str, input: Tensor, weight: Any) -> Tensor | None:
    """PyTorch 2.13's ``weight`` of the elementwise losses, checked: None, or a Tensor of
    input's shape (not broadcast, as PyTorch) on input's device (:func:`_beside_input`)."""
    if weight is None:
        return None
    weight = _beside_input(op, "weight", weight, input)
    if weight.shape != input.shape:
        raise ValueError(f"{op}: weight has shape {weight.shape} but input has shape "
                         f"{input.shape}; weights and input must have the same size, as in "
                         "PyTorch (one weight per entry: expand it, e.g. "
                         "w.expand(*input.shape))")
    return weight


def _weighted_reduce(loss: Tensor, weight: Tensor | None, reduction: str,
                     by_weight_sum: bool) -> Tensor:
    """``loss`` (one entry per element) times ``weight``, reduced. PyTorch 2.13's
    ``"mean"`` of a weighted loss divides by Σ w in mse_loss and l1_loss
    (``by_weight_sum``) but by the number of entries in huber_loss."""
    if weight is None:
        return _reduce(loss, reduction)
    weighted = loss * weight
    if reduction == "mean" and by_weight_sum:
        return _narrowed(_widened(weighted).sum() / _widened(weight).sum(), weighted)
    return _reduce(weighted, reduction)


def cross_entropy(input: Tensor, target: Any, reduction: str = "mean", *, weight: Any = None,
                  ignore_index: int = IGNORE_INDEX, label_smoothing: float = 0.0) -> Tensor:
    """Cross-entropy of integer class targets: L = mean_n -log softmax(logits_n)[targets_n].

    ``input`` are the logits and ``target`` the targets (PyTorch's names for the arguments;
    the math names below). Computed as :func:`nll_loss` of ``log_softmax(logits)`` (stable
    for large logits). The class axis is the last one.

    dL/dlogits_n = (softmax(logits_n) - onehot(targets_n)) / N for ``"mean"`` over N rows.

    ``ignore_index``: rows whose target is this value add no loss and get no gradient,
    and ``"mean"`` divides by the rows left (PyTorch's default, -100, is no class).
    ``label_smoothing`` ε in [0, 1]: the target is (1 - ε) onehot + ε/C for every class,
    so L_n = (1 - ε) (-log p_n[t_n]) + ε mean_c(-log p_n[c]) (AIAYN trains with ε = 0.1).

    ``weight``: one factor per class, shape (C,), as PyTorch's (a constant: no gradient;
    one that requires grad is refused, as there).
    Row n counts w[t_n] times, L_n = w[t_n] (-log p_n[t_n]), and ``"mean"`` divides by
    the sum of the weights picked, Σ_n w[t_n] over the rows kept (not by their number),
    as PyTorch does. With ``label_smoothing`` the spread term is weighted per class, as
    PyTorch's: L_n = (1 - ε) w[t_n] (-log p_n[t_n]) + ε/C Σ_c w[c] (-log p_n[c]), over
    the same Σ_n w[t_n] for ``"mean"``.

    Shapes: logits (..., C), targets (...) integers in [0, C) (a Tensor, array or list)
    -> () for "mean"/"sum", (...) for "none".

    Floating-point targets are class probabilities instead, one distribution per row, as
    PyTorch's (knowledge distillation, mixup): L_n = -Σ_c w_c y_nc log p_nc, y smoothed
    first to (1 - ε) y + ε/C, and ``"mean"`` divides by the number of rows (weights or
    not, as PyTorch); an ``ignore_index`` other than -100 is refused, as by PyTorch. Shapes:
    logits and targets (C,) or
    (N, C): for more axes the two libraries' layouts (classes last here, on axis 1 in
    PyTorch) cannot be told apart, so that is refused with how to say which.
    """
    logits, targets = input, target
    _check_tensor("cross_entropy", "logits", logits)
    _check_reduction("cross_entropy", reduction)
    _check_class_axis("cross_entropy", "logits", logits)
    check_label_smoothing("cross_entropy", label_smoothing)
    weight = _class_weight("cross_entropy", "logits", logits, weight)
    if _floating(logits, targets):
        return _soft_cross_entropy(logits, targets, reduction, weight, ignore_index,
                                   label_smoothing)
    with grad_mode.scope("function", "cross_entropy"):
        return _picked_nll("cross_entropy", "logits", log_softmax(logits, axis=-1), targets,
                           reduction, ignore_index, label_smoothing, weight)


def _floating(logits: Tensor, targets: Any) -> bool:
    """Whether cross_entropy's targets are probabilities (floating point), not indices."""
    dtype = targets.dtype if isinstance(targets, Tensor) else \
        logits.backend.asarray(targets).dtype
    return logits.backend.is_floating(dtype)


def _soft_cross_entropy(logits: Tensor, probs: Any, reduction: str, weight: Tensor | None,
                        ignore_index: int, smoothing: float) -> Tensor:
    """cross_entropy of class probabilities: -Σ_c w_c y_c log softmax(logits)_c per row."""
    op, shape, be = "cross_entropy", logits.shape, logits.backend
    if not isinstance(probs, Tensor):
        probs = Tensor(be.asarray(probs, logits.dtype), _backend=be)
    elif probs.backend is not be:
        raise DeviceError(f"{op}: targets are on {probs.device} but logits on "
                          f"{logits.device}; move them with .to('{logits.device}')")
    if probs.dtype != logits.dtype:
        raise TypeError(f"{op}: probability targets are {dtype_name(probs.dtype)} but logits "
                        f"{dtype_name(logits.dtype)}; cast them: targets.to(logits.dtype)")
    if probs.shape != shape:
        raise ValueError(
            f"{op}: floating-point targets are class probabilities, one row per row of "
            f"logits, so of shape {shape}; got {probs.shape}" + (
                "; for class indices pass integers: targets.long()"
                if probs.shape == shape[:-1] else ""))
    if logits.ndim > 2:
        C, order = shape[-1], ", ".join(map(str, [0, *range(2, logits.ndim), 1]))
        raise ValueError(
            f"{op}: logits and probability targets of shape {shape} fit two layouts: "
            "PyTorch's, classes on axis 1 (N, C, ...), and tinyffn's, classes on the last "
            "axis, which give different losses. Say which with 2-d tensors, which both "
            f"libraries read alike: for PyTorch's, x.permute({order}).reshape(-1, {C}) of "
            f"both, for tinyffn's, x.reshape(-1, {C})")
    check_ignore_index(op, ignore_index)
    if ignore_index != IGNORE_INDEX:
        raise ValueError(f"{op}: ignore_index={ignore_index} picks rows by class index, but "
                         "these targets are probabilities (floating point), for which "
                         "PyTorch refuses it too; leave it out, or pass integer targets")
    with grad_mode.scope("function", op):
        logp = log_softmax(logits, axis=-1)
        if smoothing:
            probs = probs * (1 - smoothing) + smoothing / shape[-1]
        terms = logp * probs if weight is None else logp * probs * weight
        return _reduce(-terms.sum(axis=-1), reduction)


def nll_loss(input: Tensor, target: Any, reduction: str = "mean", *, weight: Any = None,
             ignore_index: int = IGNORE_INDEX) -> Tensor:
    """Negative log-likelihood of integer class targets: L = mean_n -log_probs_n[targets_n],
    for log-probabilities such as ``log_softmax``'s (``cross_entropy`` is the two in one).

    ``input`` are the log-probabilities and ``target`` the targets (PyTorch's names).
    Shapes, ``weight`` and ``ignore_index`` as :func:`cross_entropy`'s: log_probs (..., C),
    targets (...) in [0, C).
    """
    log_probs, targets = input, target
    _check_tensor("nll_loss", "log_probs", log_probs)
    _check_reduction("nll_loss", reduction)
    _check_class_axis("nll_loss", "log_probs", log_probs)
    if not log_probs.backend.is_floating(log_probs.dtype):      # PyTorch refuses them too
        raise TypeError(f"nll_loss: log_probs must be floating point (log-probabilities), "
                        f"got {dtype_name(log_probs.dtype)}")
    weight = _class_weight("nll_loss", "log_probs", log_probs, weight)
    with grad_mode.scope("function", "nll_loss"):
        return _picked_nll("nll_loss", "log_probs", log_probs, targets, reduction,
                           ignore_index, 0.0, weight)


def _check_class_axis(op: str, name: str, x: Tensor) -> None:
    if x.ndim == 0:
        raise ValueError(f"{op}: {name} must have a class axis, shape (..., C); got a 0-d "
                         "tensor")


def _class_weight(op: str, name: str, x: Tensor, weight: Any) -> Tensor | None:
    """``weight`` as a constant (C,) Tensor of ``x``'s dtype and device, checked."""
    if weight is None:
        return None
    C = x.shape[-1]
    if isinstance(weight, str):
        raise TypeError(f"{op}: weight must be a Tensor of {C} class weights, got {weight!r}")
    if not isinstance(weight, Tensor):
        weight = Tensor(x.backend.asarray(weight, x.dtype), _backend=x.backend)
    elif weight.backend is not x.backend:
        raise DeviceError(f"{op}: weight is on {weight.device} but {name} on {x.device}; "
                          f"move it with .to('{x.device}')")
    if weight.shape != (C,):
        raise ValueError(f"{op}: weight must hold one factor per class, shape ({C},) for "
                         f"{name} of shape {x.shape}, got shape {weight.shape}")
    if not weight.backend.is_floating(weight.dtype):
        raise TypeError(f"{op}: weight must be floating point, got "
                        f"{dtype_name(weight.dtype)}; cast it with weight.float()")
    if weight.requires_grad and grad_mode.STATE.grad_enabled:   # else .grad stays None, silently
        raise ValueError(f"{op}: weight requires grad, but class weights are a constant (no "
                         "gradient), as in PyTorch, which refuses one too; pass "
                         "weight.detach()")
    return weight.detach().to(dtype=x.dtype)     # a constant, as PyTorch's (no gradient)


def _picked_nll(op: str, name: str, logp: Tensor, targets: Any, reduction: str,
                ignore_index: int, smoothing: float = 0.0, weight: Tensor | None = None
                ) -> Tensor:
    """-logp at each row's target class (weighted, smoothed, ignored rows left out),
    reduced: what both losses share."""
    t, n_ignored = _class_targets(op, name, logp, targets, ignore_index)
    C = logp.shape[-1]
    lead_shape = logp.shape[:-1]
    N = math.prod(lead_shape)
    rows, t = logp.reshape(N, C), t.reshape(N)                       # (N, C), (N,)
    kept = t != ignore_index                                         # (N,) bool, no graph
    ignoring = n_ignored > 0
    if ignoring:
        t = t * kept                    # an ignored row picks class 0, then counts for 0
    # t is in [0, C) now (checked above): a CheckedKey, which getitem reads no flag to check
    pick = CheckedKey((arange(N, device=logp.device).data, t.data))
    picked = GetItem.apply(rows, key=pick)                           # (N,): log p[target]
    if not (ignoring or smoothing or weight is not None):            # the plain loss
        return _reduce(-picked.reshape(lead_shape) if reduction == "none" else -picked,
                       reduction)
    nll = -picked
    if weight is not None:
        w_t = GetItem.apply(weight, key=CheckedKey((t.data,)))      # (N,): w[target]
        nll = nll * w_t
    if smoothing:
        spread = -rows.mean(axis=-1) if weight is None else -(rows * weight).sum(axis=-1) / C
        nll = (1 - smoothing) * nll + smoothing * spread
    if ignoring:
        # where, not a 0/1 weight: an ignored row's -inf or nan logits (a masked class, a
        # padding row) would give 0 * inf = nan; PyTorch's ignored rows count 0 whatever
        # they hold, and pass no gradient back
        kept.name = "kept rows"                                      # (in graph drawings)
        nll = where(kept, nll, 0.0)
    if reduction == "none":
        return nll.reshape(lead_shape)
    if reduction == "mean" and ignoring:
        n_kept = N - n_ignored
        if n_kept == 0:
            raise ValueError(f"{op}: every target is ignore_index ({ignore_index}), so the "
                             "mean over no rows is undefined (PyTorch answers nan); pass "
                             "reduction='sum' to get 0")
    if reduction == "mean" and weight is not None:   # over the weights picked, as PyTorch
        total = _widened(where(kept, w_t, 0.0) if ignoring else w_t).sum()     # no graph
        return _narrowed(_widened(nll).sum() / total, nll)
    if reduction == "mean" and ignoring:
        # float16 sums in float32, as mean() does: past 65504 rows neither the total
        # nor the count is a float16 number
        return _narrowed(_widened(nll).sum() / n_kept, nll)
    return _reduce(nll, reduction)


def check_ignore_index(op: str, ignore_index: Any) -> None:
    if not _is_int(ignore_index):
        raise TypeError(f"{op}: ignore_index must be an int (the target value of rows to "
                        f"leave out), got {ignore_index!r}")


def check_label_smoothing(op: str, label_smoothing: Any) -> None:
    if not (is_real(label_smoothing) and 0 <= label_smoothing <= 1):
        raise ValueError(f"{op}: label_smoothing must be a number in [0, 1] (the weight "
                         f"moved from the target class to all classes), got "
                         f"{label_smoothing!r}")


def _check_reduction(op: str, reduction: Any) -> None:
    if reduction is None or isinstance(reduction, bool):    # torch's size_average or reduce
        check_choice(op, "reduction", reduction, REDUCTIONS, "PyTorch's optional arguments "
                     "before reduction (weight, the deprecated size_average and reduce) are "
                     "not taken by position here: pass reduction=... (and any weight=...) by "
                     "name")
    check_choice(op, "reduction", reduction, REDUCTIONS, "class weights (PyTorch's weight "
                 "argument, its first optional one) go by name here, weight=... (cross_entropy, "
                 "nll_loss and their modules take them)")


def _reduce(x: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return x.mean()
    if reduction == "sum":
        return x.sum()
    return x


def _class_targets(op: str, name: str, logits: Tensor, targets: Any,
                   ignore_index: int) -> tuple:
    """``targets`` as an integer Tensor on the device of ``logits`` (the input called
    ``name``: logits or log-probabilities), checked against them, and how many of them
    are ``ignore_index``; errors name ``op``. One read to the host: the two counts."""
    check_ignore_index(op, ignore_index)
    ignore_index = int(ignore_index)    # a NumPy int is no operand of the strict backend
    be = logits.backend
    if isinstance(targets, Tensor):
        if targets.backend is not be:
            raise DeviceError(f"{op}: targets are on {targets.device} but {name} on "
                              f"{logits.device}; move them with .to('{logits.device}')")
    else:
        targets = Tensor(be.asarray(targets), _backend=be)
    C = logits.shape[-1]
    if not be.xp.isdtype(targets.dtype, "integral"):
        raise TypeError(f"{op}: targets must be integer class indices in [0, {C}), "
                        f"got dtype {dtype_name(targets.dtype)}; for one-hot or soft targets write "
                        f"-(p * {'log_softmax(logits)' if name == 'logits' else name})"
                        ".sum(axis=-1).mean()")
    targets = targets.to(dtype="int64")     # as PyTorch's: uint8 targets meet -100 exactly
    pytorchs = logits.ndim > 2 and targets.shape == logits.shape[:1] + logits.shape[2:]
    order = ", ".join(map(str, [0, *range(2, logits.ndim), 1]))
    if pytorchs and targets.shape == logits.shape[:-1]:     # (2, 4, 4) with (2, 4)
        raise ValueError(f"{op}: {name} of shape {logits.shape} and targets of shape "
                         f"{targets.shape} fit two layouts: PyTorch's, classes on axis 1 "
                         "(N, C, ...), and tinyffn's, classes on the last axis, which give "
                         f"different losses. Say which with 2-d {name}, which both libraries "
                         f"read alike: for PyTorch's, {name}.permute({order}).reshape(-1, {C}), "
                         f"for tinyffn's, {name}.reshape(-1, {C}); and targets.reshape(-1)")
    if targets.shape != logits.shape[:-1]:
        hint = ""
        if op == "cross_entropy" and targets.shape == logits.shape:   # F.one_hot's int64
            hint = ("; for class probabilities (one-hot rows) pass floating point: "
                    "targets.float()")
        elif pytorchs:
            hint = (f"; tinyffn takes the classes on the last axis, where PyTorch takes "
                    f"them on axis 1: for (N, C, ...) {name} pass {name}.permute({order})")
        raise ValueError(f"{op}: {name} of shape {logits.shape} need targets of shape "
                         f"{logits.shape[:-1]} (one class index per row), got {targets.shape}"
                         + hint)
    t, xp = targets.data, be.xp
    ignored = t == ignore_index
    outside = ((t < 0) | (t >= C)) & ~ignored
    counts = xp.stack([xp.sum(xp.astype(outside, xp.int64)),           # (2,): both counts,
                       xp.sum(xp.astype(ignored, xp.int64))])          # read together
    n_outside, n_ignored = (int(n) for n in be.to_numpy(counts))
    if n_outside:
        low, high = targets.numpy().min(), targets.numpy().max()
        raise ValueError(f"{op}: targets must lie in [0, {C}) for {C} classes ({name} "
                         f"of shape {logits.shape}), or equal ignore_index ({ignore_index}); "
                         f"got values from {low} to {high}")
    return targets, n_ignored
