"""``F.ctc_loss`` and ``nn.CTCLoss``, as PyTorch's: the connectionist temporal
classification loss (Graves et al., 2006), for a sequence of T frames labelled with a
shorter sequence of S symbols and no alignment between them (speech to text).

A frame-level path over the C classes (one of them the *blank*) reads as a labelling by
merging repeats, then dropping blanks: "aa-ab-" is "aab". The loss is -log of the
probability of all paths that read as the target. The forward algorithm sums them: put
blanks around the symbols, l' = (blank, l1, blank, l2, ..., blank) of length 2S + 1, and
let α_t(s) be the log-probability of the paths through frames 0..t that end on l'_s:

    α_0(0) = lp_0(blank),  α_0(1) = lp_0(l1)
    α_t(s) = logsumexp(α_{t-1}(s), α_{t-1}(s - 1), α_{t-1}(s - 2)) + lp_t(l'_s)

where the third term counts only if l'_s is a symbol unlike l'_{s-2} (a path may skip the
blank between two different symbols, not between repeats). The loss is -logsumexp of the
two last states, α_{T-1}(2S) and α_{T-1}(2S - 1).

Here the recursion is written with tinyffn ops, one step per frame for the whole batch,
so its gradient is autograd's: the true derivative with respect to ``log_probs``.
PyTorch's own backward adds exp(log_probs) to it, a term that cancels through the
log_softmax that usually makes log_probs, so gradients through log_softmax agree and
gradients with respect to log_probs themselves differ. States no path reaches hold
-1e30, not -inf: logsumexp of -inf alone has a NaN gradient; exp(-1e30 - m) is exactly 0,
so they change nothing, and a loss that stays near 1e30 (T too short for the target) is
reported as inf, as PyTorch's (0 with ``zero_infinity``).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import grad_mode
from .arguments import check_choice
from .backend import dtype_name
from .composed import where
from .creation import cat, full, stack, tensor
from .module import Module
from .tensor import Tensor

UNREACHED = -1e30               # log-probability of a state no path has reached
_BY_NAME = "pass blank, reduction and zero_infinity by name"


def ctc_loss(log_probs: Tensor, targets: Any, input_lengths: Any, target_lengths: Any,
             blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """The CTC loss of the module docstring, as ``F.ctc_loss``. ``log_probs`` (T, N, C)
    (or unbatched (T, C)) are log-probabilities (a log_softmax over C); ``targets`` (N, S)
    padded, or 1-D, the N targets one after another; ``input_lengths`` and
    ``target_lengths`` (N,) tensors or sequences of ints, each input length at most T.
    ``reduction`` "mean" (each loss divided by its target length, then the batch mean, as
    PyTorch's), "sum" or "none"; ``zero_infinity`` gives an impossible target (T too short)
    a loss of 0 and no gradient. One read of the lengths and targets to the host."""
    check_choice("ctc_loss", "reduction", reduction, ("mean", "sum", "none"), _BY_NAME)
    lp, lengths, labels, unbatched = _checked(log_probs, targets, input_lengths,
                                              target_lengths, blank)
    T, N, C = lp.shape
    S = max([len(t) for t in labels] + [0])
    # l' per example: blank, l1, blank, ..., lS, blank (padded with blanks), and where a
    # path may skip from s - 2 to s (a symbol unlike the one two back)
    ext = np.full((N, 2 * S + 1), blank, dtype=np.int64)
    for n, t in enumerate(labels):
        ext[n, 1:2 * len(t):2] = t
    skip = np.zeros(ext.shape, dtype=bool)
    skip[:, 3::2] = ext[:, 3::2] != ext[:, 1:-2:2]
    ends = np.array([2 * len(t) for t in labels])
    from .sorting import _gathered      # sorting.py's imports lead back here
    with grad_mode.scope("function", "ctc_loss"):
        # the gathers' indices are made here from checked targets: not checked again (a
        # check reads a flag back from the device, on a GPU a wait)
        index = tensor(ext, device=lp.device)[:, None, :].expand(N, T, 2 * S + 1)
        emit = _gathered(lp.permute(1, 0, 2), 2, index)               # (N, T, 2S + 1)
        running = np.array(lengths)[:, None]
        states = np.arange(2 * S + 1)
        first = (states <= np.minimum(1, ends[:, None])) & (running > 0)  # states 0 and 1
        alpha = where(tensor(first, device=lp.device), emit[:, 0], UNREACHED)
        # no frame at all: the empty path, log 1 on state 0 (an empty target's end)
        alpha = where(tensor((states == 0) & (running == 0), device=lp.device), 0.0, alpha)
        skip_t = tensor(skip, device=lp.device)
        frames = tensor(np.arange(T)[:, None, None] < running, device=lp.device)   # (T, N, 1)
        for t in range(1, int(max(lengths + [1]))):
            one_back = _shifted(alpha, 1)
            two_back = where(skip_t, _shifted(alpha, 2), UNREACHED)
            step = stack([alpha, one_back, two_back], dim=-1).logsumexp(-1) + emit[:, t]
            alpha = where(frames[t], step, alpha)       # one copy to the device, not T
        last = tensor(np.stack([ends, np.maximum(ends - 1, 0)], axis=1), device=lp.device)
        final = _gathered(alpha, 1, last)                              # (N, 2)
        final = where(tensor(np.stack([ends >= 0, ends > 0], axis=1), device=lp.device),
                      final, UNREACHED)             # an empty target ends on state 0 only
        loss = -final.logsumexp(-1)                                    # (N,)
        impossible = loss > -UNREACHED / 2
        loss = where(impossible, 0.0 if zero_infinity else float("inf"), loss)
        if reduction == "mean":
            per = tensor(np.maximum([len(t) for t in labels], 1), dtype=lp.dtype,
                         device=lp.device)
            return (loss / per).mean()
        if reduction == "sum":
            return loss.sum()
        return loss[0] if unbatched else loss


def _shifted(alpha: Tensor, k: int) -> Tensor:
    """alpha moved k states to the right along its last axis, UNREACHED coming in."""
    n, states = alpha.shape
    come_in = full((n, min(k, states)), UNREACHED, dtype=alpha.dtype, device=alpha.device)
    return cat([come_in, alpha[:, :states - k]], dim=-1) if states > k else come_in


def _ints(op: str, name: str, v: Any, n: int, read: Any = None) -> list:
    """A tensor or sequence of n non-negative ints, as a list (a tensor read to the host,
    unless ``read`` holds its values, read already with the targets)."""
    values = (v.tolist() if read is None else read) if isinstance(v, Tensor) else list(v) \
        if isinstance(v, (list, tuple)) else [v] if n == 1 else None
    values = values if isinstance(values, list) else [values]
    if len(values) != n or not all(isinstance(i, int) and not isinstance(i, bool) and i >= 0
                                   for i in values):
        raise ValueError(f"{op}: {name} must be {n} non-negative ints (one per example), got "
                         f"{v!r}")
    return values


def _checked(log_probs: Any, targets: Any, input_lengths: Any, target_lengths: Any,
             blank: Any) -> tuple:
    op = "ctc_loss"
    if not isinstance(log_probs, Tensor) or log_probs.ndim not in (2, 3):
        raise ValueError(f"{op}: log_probs must be a tinyffn Tensor (T, N, C), or (T, C) for "
                         f"one example, got {getattr(log_probs, 'shape', type(log_probs))}")
    if dtype_name(log_probs.dtype) not in ("float32", "float64"):
        raise TypeError(f"{op}: log_probs must be float32 or float64, got {log_probs.dtype}; "
                        "cast with .float()")
    unbatched = log_probs.ndim == 2
    lp = log_probs.unsqueeze(1) if unbatched else log_probs               # (T, N, C)
    T, N, C = lp.shape
    if not isinstance(blank, int) or not 0 <= blank < C:
        raise ValueError(f"{op}: blank must be a class in [0, {C}), got {blank!r}")
    if not isinstance(targets, Tensor) or not targets.backend.xp.isdtype(targets.dtype,
                                                                         "integral"):
        raise TypeError(f"{op}: targets must be an integer tinyffn Tensor, got "
                        f"{getattr(targets, 'dtype', type(targets).__name__)}")
    flat, read = _read_together(targets, input_lengths, target_lengths)    # one read
    lengths = _ints(op, "input_lengths", input_lengths, N, read[0])
    if max(lengths + [0]) > T:
        raise ValueError(f"{op}: input_lengths {lengths} exceed the T = {T} frames of "
                         f"log_probs {tuple(log_probs.shape)}")
    sizes = _ints(op, "target_lengths", target_lengths, N, read[1])
    if flat.ndim == 2 and not unbatched or unbatched and flat.ndim == 1 and \
            flat.shape[0] >= sizes[0]:                       # padded: (N, S), or (S,) for one
        rows = flat if flat.ndim == 2 else flat[None]
        if rows.shape[0] != N or max(sizes + [0]) > rows.shape[1]:
            raise ValueError(f"{op}: padded targets {tuple(targets.shape)} must have a row "
                             f"per example ({N}), each at least as long as its target_length "
                             f"{sizes}")
        labels = [rows[n, :s] for n, s in enumerate(sizes)]
    elif flat.ndim == 1 and flat.shape[0] == sum(sizes):     # the N targets one after another
        cuts = np.cumsum([0] + sizes)
        labels = [flat[a:b] for a, b in zip(cuts[:-1], cuts[1:])]
    else:
        raise ValueError(f"{op}: targets of shape {tuple(targets.shape)} must be (N, S) "
                         f"padded, or 1-D holding sum(target_lengths) = {sum(sizes)} labels")
    for t in labels:
        if len(t) and ((t < 0) | (t >= C) | (t == blank)).any():
            raise ValueError(f"{op}: target labels must be classes in [0, {C}) other than "
                             f"blank={blank}, got {t.tolist()}")
    return lp, lengths, labels, unbatched


def _read_together(targets: Tensor, *lengths: Any) -> tuple:
    """The targets as a NumPy int64 array, and the values of each length given as an
    integer tensor on their device (None for the others), in one read to the host: on a GPU
    each read waits for it (PyTorch too reads the lengths to the host)."""
    along = [isinstance(v, Tensor) and v.device == targets.device and
             v.backend.xp.isdtype(v.dtype, "integral") for v in lengths]
    parts = [targets] + [v for v, a in zip(lengths, along) if a]
    with grad_mode.no_grad():
        values = cat([t.reshape(-1).to(dtype="int64") for t in parts]).tolist()
    flat = np.asarray(values[:targets.numel()], dtype=np.int64).reshape(targets.shape)
    rest, read = values[targets.numel():], []
    for v, a in zip(lengths, along):
        k = v.numel() if a else 0
        read.append((rest[:k] if v.ndim else rest[0]) if a else None)
        rest = rest[k:]
    return flat, read


class CTCLoss(Module):
    """:func:`ctc_loss` as a module, as ``torch.nn.CTCLoss``:
    ``loss_fn(log_probs, targets, input_lengths, target_lengths)``."""

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False):
        super().__init__()
        check_choice("CTCLoss", "reduction", reduction, ("mean", "sum", "none"), _BY_NAME)
        self.blank, self.reduction, self.zero_infinity = blank, reduction, zero_infinity

    def forward(self, log_probs: Tensor, targets: Any, input_lengths: Any,
                target_lengths: Any) -> Tensor:
        return ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                        self.reduction, self.zero_infinity)

    def extra_repr(self) -> str:
        return ""


__all__ = ["ctc_loss", "CTCLoss"]
