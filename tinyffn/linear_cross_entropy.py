"""PyTorch 2.13's ``F.linear_cross_entropy`` and ``nn.LinearCrossEntropyLoss``: a language
model's last step, the hidden states projected to the vocabulary and scored against the
next tokens, in one call:

    loss = cross_entropy(linear(input, linear_weight, linear_bias), target, ...)

``linear_weight`` is (C, in_features), or (C, d_1, ..., d_K, in_features) for a loss over
K more axes, whose logits are (N, C, d_1, ..., d_K) (PyTorch's layout, classes on axis 1).
Composed of ``linear`` and ``cross_entropy``, so its gradients are theirs. tinyffn's
``cross_entropy`` takes the classes last, so the logits go to it as rows of C (axis 1
moved last, then flattened), and a ``'none'`` loss is shaped back.

PyTorch's ``options`` (``LinearCrossEntropyOptions``: a chunked path that never holds
the whole (N, C) logits) is not reproduced: ``options`` other than None is refused,
saying so. The reference path it falls back to, ``options=None``, is this one.
"""
from __future__ import annotations

import math
from typing import Any

from . import grad_mode, losses
from .arguments import tensor_arg
from .functional import linear
from .loss_modules import _Loss, _weight_buffer

_NO_OPTIONS = ("PyTorch's chunked path (options=LinearCrossEntropyOptions(...)) is not "
               "reproduced: tinyffn computes the logits whole, PyTorch's reference path; "
               "pass options=None (for less memory, split the rows into batches yourself)")


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
    ``label_smoothing`` are ``cross_entropy``'s. ``options`` must be None."""
    op = "linear_cross_entropy"
    if options is not None:
        raise NotImplementedError(f"{op}: {_NO_OPTIONS}")
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


class LinearCrossEntropyLoss(_Loss):
    """:func:`linear_cross_entropy` with its own projection, as
    ``torch.nn.LinearCrossEntropyLoss``: ``self.linear`` a ``Linear(in_features,
    num_classes · prod(out_features), bias)`` (no bias by default, as PyTorch's; its weight
    stored flat, reshaped to (C, *out_features, in_features) in forward), ``weight`` a
    buffer. ``options`` must be None."""

    def __init__(self, in_features: int, num_classes: int, *, out_features: tuple = (),
                 bias: bool = False, device: Any = None, dtype: Any = None,
                 reduction: str = "mean", weight: Any = None, ignore_index: int | None = None,
                 label_smoothing: float = 0.0, options: Any = None):
        from .nn import Linear          # nn.py gathers this file: imported when it is made
        super().__init__(reduction)
        owner = "LinearCrossEntropyLoss"
        if options is not None:
            raise NotImplementedError(f"{owner}: {_NO_OPTIONS}")
        if weight is not None and getattr(weight, "shape", None) != (num_classes,):
            raise ValueError(f"{owner}: expected weight of shape {(num_classes,)}, got "
                             f"{getattr(weight, 'shape', type(weight).__name__)}")
        losses.check_label_smoothing(owner, label_smoothing)
        if ignore_index is not None:
            losses.check_ignore_index(owner, ignore_index)
        self.register_buffer("weight", _weight_buffer(owner, "weight", weight))
        self.num_classes, self.out_features = num_classes, tuple(out_features)
        self.ignore_index, self.label_smoothing, self.options = ignore_index, label_smoothing, None
        self.linear = Linear(in_features, math.prod(self.out_features) * num_classes, bias,
                             device=device, dtype=dtype)

    def forward(self, input: Any, target: Any) -> Any:
        shape = (self.num_classes, *self.out_features)
        b = self.linear.bias
        return linear_cross_entropy(
            input, self.linear.weight.reshape((*shape, self.linear.in_features)), target,
            linear_bias=None if b is None else b.reshape(shape), weight=self.weight,
            reduction=self.reduction, ignore_index=self.ignore_index,
            label_smoothing=self.label_smoothing)

    def extra_repr(self) -> str:
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
                f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
                f"label_smoothing={self.label_smoothing}, options={self.options}")


__all__ = ["linear_cross_entropy", "LinearCrossEntropyLoss"]
