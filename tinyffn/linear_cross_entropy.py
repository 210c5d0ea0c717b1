"""PyTorch 2.13's ``F.linear_cross_entropy`` and ``nn.LinearCrossEntropyLoss``: a language
model's last step, the hidden states projected to the vocabulary and scored against the
next tokens, in one call:

    loss = cross_entropy(linear(input, linear_weight, linear_bias), target, ...)

``linear_weight`` is (C, in_features), or (C, d_1, ..., d_K, in_features) for a loss over
K more axes, whose logits are (N, C, d_1, ..., d_K) (PyTorch's layout, classes on axis 1).
Composed of ``linear`` and ``cross_entropy``, so its gradients are theirs. tinyffn's
``cross_entropy`` takes the classes last, so the logits go to it as rows of C (axis 1
moved last, then flattened), and a ``'none'`` loss is shaped back.

With ``options`` (a :class:`LinearCrossEntropyOptions`, as PyTorch's) the rows go through
in chunks of ``batch_chunk_size``, each a ``checkpoint`` block (tinyffn.utils.checkpoint):
a chunk's (rows, C) logits are made, reduced to its losses and dropped, and made again
in backward, so the graph never holds the whole (N, C) logits, a language model's
largest tensor (N tokens times a vocabulary). The values and gradients are the reference
path's (to rounding). As PyTorch's, the chunked path takes class indices with
``label_smoothing`` 0 and no extra axes; otherwise ``options`` is ignored with a warning.
"""
from __future__ import annotations

import math
from typing import Any

import warnings

from . import grad_mode, losses
from .arguments import _is_int, tensor_arg
from .functional import linear
from .loss_modules import _Loss, _weight_buffer

_CHUNKING, _POLICIES = ("auto",), ("accurate", "balanced", "compact", "auto")


class LinearCrossEntropyOptions:
    """How :func:`linear_cross_entropy` chunks its rows, as PyTorch's: ``batch_chunk_size``
    rows per chunk (None: 'auto', as many rows as keep a chunk's logits no larger than the
    input, N · in_features entries, at least one). ``chunking_method`` ('auto' or PyTorch's
    'aspect_ratio:k'), ``acc_policy`` and ``acc_dtype`` are accepted and kept, with no
    effect (tinyffn accumulates in the dtype); ``allow_retain_graph`` is not needed here
    (a checkpoint block can be run backward again with ``retain_graph=True``)."""

    def __init__(self, allow_retain_graph: bool = False, batch_chunk_size: int | None = None,
                 chunking_method: str | None = "auto", acc_policy: str = "auto",
                 acc_dtype: Any = None):
        if batch_chunk_size is not None and not (
                _is_int(batch_chunk_size) and not isinstance(batch_chunk_size, bool)
                and batch_chunk_size > 0):
            raise ValueError(f"batch_chunk_size must be positive int or None, got "
                             f"{batch_chunk_size!r}")
        if chunking_method is not None and chunking_method not in _CHUNKING and not (
                isinstance(chunking_method, str) and chunking_method.startswith("aspect_ratio:")):
            raise ValueError(f"invalid chunking_method: {chunking_method!r}")
        if acc_policy not in _POLICIES:
            raise ValueError(f"invalid acc_policy: {acc_policy!r}")
        self.allow_retain_graph, self.batch_chunk_size = allow_retain_graph, batch_chunk_size
        self.chunking_method, self.acc_policy, self.acc_dtype = (chunking_method, acc_policy,
                                                                  acc_dtype)

    def __repr__(self) -> str:
        return (f"LinearCrossEntropyOptions(allow_retain_graph={self.allow_retain_graph}, "
                f"batch_chunk_size={self.batch_chunk_size}, chunking_method="
                f"{self.chunking_method!r}, acc_policy={self.acc_policy!r}, "
                f"acc_dtype={self.acc_dtype})")


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction="mean", ignore_index=None, label_smoothing=0.0,
                         options=None):
    """``cross_entropy(linear(input, linear_weight, linear_bias), target, ...)``, as
    ``torch.nn.functional.linear_cross_entropy``. Shapes: input (in_features,) or
    (N, in_features); linear_weight (C, in_features) or (C, d_1, ..., d_K, in_features)
    (K > 0 needs batched input); linear_bias (C, d_1, ..., d_K); target class indices
    (), (N) or (N, d_1, ..., d_K), or class probabilities of the logits' shape
    (N, C, d_1, ..., d_K). ``ignore_index`` None means -100 for class indices, and must be
    None with probabilities, as PyTorch's; ``weight``, ``reduction`` and
    ``label_smoothing`` are ``cross_entropy``'s. ``options``: None (the logits whole) or a
    :class:`LinearCrossEntropyOptions` (in chunks of rows, each recomputed in backward)."""
    op = "linear_cross_entropy"
    if options is not None and not isinstance(options, LinearCrossEntropyOptions):
        raise TypeError(f"{op}: options must be None or nn.LinearCrossEntropyOptions(...), got "
                        f"{type(options).__name__}")
    x = tensor_arg(op, "input", input)
    w = tensor_arg(op, "linear_weight", linear_weight)
    if x.ndim not in (1, 2):
        raise ValueError(f"{op}: expected input of shape (in_features,) or (N, in_features), "
                         f"got shape {x.shape}")
    if w.ndim < 2 or w.shape[-1] != x.shape[-1]:
        raise ValueError(f"{op}: linear_weight of shape {w.shape} does not fit input of shape "
                         f"{x.shape}: it must be (C, ..., in_features), here in_features = "
                         f"{x.shape[-1]}")
    C, extra, batch = w.shape[0], w.shape[1:-1], x.shape[:-1]
    if linear_bias is not None:
        tensor_arg(op, "linear_bias", linear_bias)
        if linear_bias.shape != (C, *extra):
            raise ValueError(f"{op}: expected linear_bias of shape {(C, *extra)} (the "
                             f"weight's without in_features), got {linear_bias.shape}")
    if extra and not batch:
        raise ValueError(f"{op}: a K-dimensional loss (linear_weight of shape {w.shape}) "
                         f"needs batched input (N, {x.shape[-1]}), got shape {x.shape}")
    logits_shape = (*batch, C, *extra)
    soft = getattr(target, "shape", None) == logits_shape
    if soft and ignore_index is not None:
        raise ValueError(f"{op}: ignore_index cannot be given when target holds class "
                         "probabilities (target has the logits' shape), as in PyTorch")
    ignore_index = losses.IGNORE_INDEX if ignore_index is None else ignore_index
    if options is not None:
        if not (soft or extra or label_smoothing):
            return _chunked(x, w, linear_bias, target, weight, reduction, ignore_index,
                            options.batch_chunk_size)
        warnings.warn(f"{op}: ``options`` ignored; chunked path needs class indices, "
                      f"label_smoothing == 0, out_features == (). Got label_smoothing="
                      f"{label_smoothing}, target of {'probabilities' if soft else 'indices'}, "
                      f"out_features={tuple(extra)}.", UserWarning, stacklevel=2)
    with grad_mode.scope("function", op):
        n = C * math.prod(extra)
        logits = linear(x, w.reshape(n, x.shape[-1]),
                        None if linear_bias is None else linear_bias.reshape(n))
        if not extra:                                       # (N, C) or (C,): both layouts
            return losses.cross_entropy(logits, target, reduction, weight=weight,
                                        ignore_index=ignore_index,
                                        label_smoothing=label_smoothing)
        rows = logits.reshape(logits_shape).movedim(1, -1).reshape(-1, C)  # (N·d_1···d_K, C)
        target = tensor_arg(op, "target", target)
        target = (target.movedim(1, -1) if soft else target).reshape(rows.shape[:1] + (
            (C,) if soft else ()))
        loss = losses.cross_entropy(rows, target, reduction, weight=weight,
                                    ignore_index=ignore_index, label_smoothing=label_smoothing)
        return loss.reshape((batch[0], *extra)) if reduction == "none" else loss


def _chunked(x, w, b, target, weight, reduction, ignore_index, rows):
    """The loss over chunks of ``rows`` rows, each a ``checkpoint`` block: the whole (N, C)
    logits are never held, one chunk's at a time, in forward and again in backward."""
    from .creation import as_tensor, cat
    from .torch_functions import where
    from .utils.checkpoint import checkpoint
    unbatched = x.ndim == 1
    target = target if hasattr(target, "narrow") else as_tensor(target, device=x.device)
    x, target = (x.unsqueeze(0), target.reshape(1)) if unbatched else (x, target)  # (N, in)
    N, C = x.shape[0], w.shape[0]
    rows = rows or max(1, x.shape[1] * N // C)          # 'auto': chunk logits <= the input

    def block(xs, ts):                                  # one chunk's losses, its own logits
        part = "none" if reduction == "none" else "sum"
        return losses.cross_entropy(linear(xs, w, b), ts, part, weight=weight,
                                    ignore_index=ignore_index)

    with grad_mode.scope("function", "linear_cross_entropy"):
        parts = [checkpoint(block, x.narrow(0, i, min(rows, N - i)),
                            target.narrow(0, i, min(rows, N - i)), use_reentrant=False)
                 for i in range(0, N, rows)]
        if reduction == "none":
            loss = cat(parts, 0)                        # (N,)
            return loss.reshape(()) if unbatched else loss
        total = sum(parts[1:], parts[0])
        if reduction == "sum":
            return total
        kept = target != ignore_index                   # "mean": over Σ w[t] of rows kept
        count = (kept if weight is None else where(kept, weight[where(kept, target, 0)], 0))
        return total / count.to(dtype=total.dtype).sum()


class LinearCrossEntropyLoss(_Loss):
    """:func:`linear_cross_entropy` with its own projection, as
    ``torch.nn.LinearCrossEntropyLoss``: ``self.linear`` a ``Linear(in_features,
    num_classes · prod(out_features), bias)`` (no bias by default, as PyTorch's; its weight
    stored flat, reshaped to (C, *out_features, in_features) in forward), ``weight`` a
    buffer. ``options``: None, or a :class:`LinearCrossEntropyOptions` to chunk the rows."""

    def __init__(self, in_features: int, num_classes: int, *, out_features: tuple = (),
                 bias: bool = False, device: Any = None, dtype: Any = None,
                 reduction: str = "mean", weight: Any = None, ignore_index: int | None = None,
                 label_smoothing: float = 0.0, options: Any = None):
        from .nn import Linear          # nn.py gathers this file: imported when it is made
        super().__init__(reduction)
        owner = "LinearCrossEntropyLoss"
        if options is not None and not isinstance(options, LinearCrossEntropyOptions):
            raise TypeError(f"{owner}: options must be None or nn.LinearCrossEntropyOptions"
                            f"(...), got {type(options).__name__}")
        if weight is not None and getattr(weight, "shape", None) != (num_classes,):
            raise ValueError(f"{owner}: expected weight of shape {(num_classes,)}, got "
                             f"{getattr(weight, 'shape', type(weight).__name__)}")
        losses.check_label_smoothing(owner, label_smoothing)
        if ignore_index is not None:
            losses.check_ignore_index(owner, ignore_index)
        self.register_buffer("weight", _weight_buffer(owner, "weight", weight))
        self.num_classes, self.out_features = num_classes, tuple(out_features)
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing
        self.options = options
        self.linear = Linear(in_features, math.prod(self.out_features) * num_classes, bias,
                             device=device, dtype=dtype)

    def forward(self, input: Any, target: Any) -> Any:
        shape = (self.num_classes, *self.out_features)
        b = self.linear.bias
        return linear_cross_entropy(
            input, self.linear.weight.reshape((*shape, self.linear.in_features)), target,
            linear_bias=None if b is None else b.reshape(shape), weight=self.weight,
            reduction=self.reduction, ignore_index=self.ignore_index,
            label_smoothing=self.label_smoothing, options=self.options)

    def extra_repr(self) -> str:
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
                f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
                f"label_smoothing={self.label_smoothing}, options={self.options}")


__all__ = ["linear_cross_entropy", "LinearCrossEntropyLoss", "LinearCrossEntropyOptions"]
