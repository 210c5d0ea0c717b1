"""The losses as modules, as ``torch.nn.CrossEntropyLoss``, ``nn.HuberLoss``: the base
class ``_Loss``, the losses of :mod:`tinyffn.losses` (``MSELoss`` to ``NLLLoss``), then
those of :mod:`tinyffn.binary_losses` and :mod:`tinyffn.more_losses` (``GaussianNLLLoss``
to ``CosineEmbeddingLoss``) and of :mod:`tinyffn.margin_losses` (``SoftMarginLoss`` to
``TripletMarginWithDistanceLoss``). Reached as ``tinyffn.nn.CrossEntropyLoss``, ... They live in this file so that nn.py stays a
file one can read in a sitting.

Each fixes the reduction and its options when it is made (checked then) and calls its
function; a ``weight`` or ``pos_weight`` tensor is a buffer, as in PyTorch, so
``loss_fn.to(device)`` moves it and ``state_dict`` holds it.
"""
from __future__ import annotations

from typing import Any

from . import binary_losses as B
from . import losses
from . import margin_losses as ML
from . import more_losses as M
from .arguments import check_choice, is_real
from .module import Module
from .tensor import Tensor

__all__ = ["MSELoss", "L1Loss", "CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss",
           "SmoothL1Loss", "HuberLoss", "KLDivLoss", "GaussianNLLLoss", "PoissonNLLLoss",
           "MarginRankingLoss", "HingeEmbeddingLoss", "CosineEmbeddingLoss", "SoftMarginLoss",
           "MultiLabelSoftMarginLoss", "MultiMarginLoss", "MultiLabelMarginLoss",
           "TripletMarginLoss", "TripletMarginWithDistanceLoss"]


class _Loss(Module):
    """A loss of :mod:`tinyffn.losses` as a module, as in ``torch.nn``: the reduction (and
    any option) is fixed when it is made, ``loss_fn(input, target)`` computes it."""

    def __init__(self, reduction: str = "mean"):
        super().__init__()
        losses._check_reduction(type(self).__name__, reduction)
        self.reduction = reduction

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return self.loss(input, target, reduction=self.reduction, **self.options())

    def options(self) -> dict:
        """The loss function's keyword arguments besides ``reduction``."""
        return {}

    def extra_repr(self) -> str:
        return f"reduction={self.reduction!r}"


def _weight_buffer(owner: str, name: str, w: Any) -> Tensor | None:
    if w is not None and not isinstance(w, Tensor):
        raise TypeError(f"{owner}: {name} must be a Tensor or None, got {type(w).__name__}"
                        + (f"; pass the reduction by name, reduction={w!r}"
                           if isinstance(w, str) else ""))
    return w


class MSELoss(_Loss):
    """:func:`tinyffn.functional.mse_loss`: mean (input - target)², shapes equal."""

    loss = staticmethod(losses.mse_loss)


class L1Loss(_Loss):
    """:func:`tinyffn.functional.l1_loss`: mean abs(input - target), shapes equal."""

    loss = staticmethod(losses.l1_loss)


class CrossEntropyLoss(_Loss):
    """:func:`tinyffn.functional.cross_entropy`: logits (..., C), integer targets (...) or
    class probabilities (N, C), PyTorch's ``weight`` (a buffer, as there), ``ignore_index``
    and ``label_smoothing``."""

    loss = staticmethod(losses.cross_entropy)

    def __init__(self, reduction: str = "mean", *, weight: Tensor | None = None,
                 ignore_index: int = losses.IGNORE_INDEX, label_smoothing: float = 0.0):
        super().__init__(reduction)
        losses.check_ignore_index("CrossEntropyLoss", ignore_index)
        losses.check_label_smoothing("CrossEntropyLoss", label_smoothing)
        self.register_buffer("weight", _weight_buffer("CrossEntropyLoss", "weight", weight))
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def options(self) -> dict:
        return {"weight": self.weight, "ignore_index": self.ignore_index,
                "label_smoothing": self.label_smoothing}


class NLLLoss(_Loss):
    """:func:`tinyffn.functional.nll_loss`: log-probabilities (..., C), integer targets (...),
    PyTorch's ``weight`` (a buffer) and ``ignore_index``."""

    loss = staticmethod(losses.nll_loss)

    def __init__(self, reduction: str = "mean", *, weight: Tensor | None = None,
                 ignore_index: int = losses.IGNORE_INDEX):
        super().__init__(reduction)
        losses.check_ignore_index("NLLLoss", ignore_index)
        self.register_buffer("weight", _weight_buffer("NLLLoss", "weight", weight))
        self.ignore_index = ignore_index

    def options(self) -> dict:
        return {"weight": self.weight, "ignore_index": self.ignore_index}

class BCELoss(_Loss):
    """:func:`tinyffn.functional.binary_cross_entropy`: probabilities in [0, 1] against
    targets in [0, 1], shapes equal; ``weight`` (a buffer) rescales each entry."""

    loss = staticmethod(B.binary_cross_entropy)

    def __init__(self, weight: Tensor | None = None, reduction: str = "mean"):
        super().__init__(reduction)
        self.register_buffer("weight", _weight_buffer("BCELoss", "weight", weight))

    def options(self) -> dict:
        return {"weight": self.weight}


class BCEWithLogitsLoss(_Loss):
    """:func:`tinyffn.functional.binary_cross_entropy_with_logits`: logits against
    targets in [0, 1], computed stably; ``weight`` and ``pos_weight`` (one per class)
    are buffers."""

    loss = staticmethod(B.binary_cross_entropy_with_logits)

    def __init__(self, weight: Tensor | None = None, reduction: str = "mean",
                 pos_weight: Tensor | None = None):
        super().__init__(reduction)
        self.register_buffer("weight", _weight_buffer("BCEWithLogitsLoss", "weight", weight))
        self.register_buffer("pos_weight",
                             _weight_buffer("BCEWithLogitsLoss", "pos_weight", pos_weight))

    def options(self) -> dict:
        return {"weight": self.weight, "pos_weight": self.pos_weight}


class SmoothL1Loss(_Loss):
    """:func:`tinyffn.functional.smooth_l1_loss`: 0.5 d² / β below |d| = β, |d| - 0.5 β
    above."""

    loss = staticmethod(B.smooth_l1_loss)

    def __init__(self, reduction: str = "mean", beta: float = 1.0):
        super().__init__(reduction)
        if not (is_real(beta) and beta >= 0):
            raise ValueError(f"SmoothL1Loss: beta must be a number >= 0, got {beta!r}")
        self.beta = beta

    def options(self) -> dict:
        return {"beta": self.beta}

    def extra_repr(self) -> str:
        return f"reduction={self.reduction!r}, beta={self.beta}"


class HuberLoss(_Loss):
    """:func:`tinyffn.functional.huber_loss`: 0.5 d² below |d| = δ, δ (|d| - 0.5 δ) above."""

    loss = staticmethod(B.huber_loss)

    def __init__(self, reduction: str = "mean", delta: float = 1.0):
        super().__init__(reduction)
        if not (is_real(delta) and delta > 0):
            raise ValueError(f"HuberLoss: delta must be a number > 0, got {delta!r}")
        self.delta = delta

    def options(self) -> dict:
        return {"delta": self.delta}

    def extra_repr(self) -> str:
        return f"reduction={self.reduction!r}, delta={self.delta}"


class KLDivLoss(Module):
    """:func:`tinyffn.functional.kl_div`: log probabilities against probabilities (log
    probabilities with ``log_target``); ``reduction`` also ``"batchmean"``, and
    ``"mean"``, the default, warns as PyTorch's does (see ``kl_div``)."""

    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                 log_target: bool = False):
        super().__init__()
        if size_average is not None or reduce is not None:
            raise TypeError("KLDivLoss: size_average and reduce are PyTorch's deprecated "
                            "arguments; pass reduction= by name")
        check_choice("KLDivLoss", "reduction", reduction, B.KL_REDUCTIONS,
                     "pass it by name, reduction=...")
        if not isinstance(log_target, bool):
            raise TypeError(f"KLDivLoss: log_target must be True or False, got {log_target!r}")
        self.reduction, self.log_target = reduction, log_target

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return B.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)

    def extra_repr(self) -> str:
        return f"reduction={self.reduction!r}, log_target={self.log_target}"


class GaussianNLLLoss(_Loss):
    """:func:`tinyffn.functional.gaussian_nll_loss`: ``loss_fn(input, target, var)``,
    ½ (log max(var, eps) + (input - target)² / max(var, eps)); options by name only."""

    loss = staticmethod(M.gaussian_nll_loss)

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean"):
        super().__init__(reduction)
        M._gaussian_options("GaussianNLLLoss", full, eps)
        self.full, self.eps = full, eps

    def forward(self, input: Tensor, target: Any, var: Any) -> Tensor:
        return M.gaussian_nll_loss(input, target, var, self.full, self.eps, self.reduction)

    def extra_repr(self) -> str:
        return f"full={self.full}, eps={self.eps}, reduction={self.reduction!r}"


class PoissonNLLLoss(_Loss):
    """:func:`tinyffn.functional.poisson_nll_loss`: exp(x) - y x for log rates x (or
    x - y log(x + eps) with ``log_input=False``), Stirling's term with ``full``."""

    loss = staticmethod(M.poisson_nll_loss)

    def __init__(self, log_input: bool = True, full: bool = False, size_average: Any = None,
                 eps: float = 1e-8, reduce: Any = None, reduction: str = "mean"):
        super().__init__(reduction)
        M._refuse_legacy("PoissonNLLLoss", size_average, reduce)
        M._poisson_options("PoissonNLLLoss", log_input, full, eps)
        self.log_input, self.full, self.eps = log_input, full, eps

    def options(self) -> dict:
        return {"log_input": self.log_input, "full": self.full, "eps": self.eps}

    def extra_repr(self) -> str:
        return (f"log_input={self.log_input}, full={self.full}, eps={self.eps}, "
                f"reduction={self.reduction!r}")


class _MarginLoss(_Loss):
    """A loss with a ``margin`` (and PyTorch's deprecated arguments, refused)."""

    def __init__(self, margin: float, size_average: Any, reduce: Any, reduction: str):
        super().__init__(reduction)
        M._refuse_legacy(type(self).__name__, size_average, reduce)
        M._check_margin(type(self).__name__, margin)
        self.margin = margin

    def options(self) -> dict:
        return {"margin": self.margin}

    def extra_repr(self) -> str:
        return f"margin={self.margin}, reduction={self.reduction!r}"


class _PairMarginLoss(_MarginLoss):
    """A margin loss of two inputs and a target: ``loss_fn(input1, input2, target)``."""

    def forward(self, input1: Tensor, input2: Tensor, target: Any) -> Tensor:
        return self.loss(input1, input2, target, reduction=self.reduction, margin=self.margin)


class MarginRankingLoss(_PairMarginLoss):
    """:func:`tinyffn.functional.margin_ranking_loss`: ``loss_fn(input1, input2, target)``,
    max(0, -y (x1 - x2) + margin)."""

    loss = staticmethod(M.margin_ranking_loss)

    def __init__(self, margin: float = 0.0, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean"):
        super().__init__(margin, size_average, reduce, reduction)


class HingeEmbeddingLoss(_MarginLoss):
    """:func:`tinyffn.functional.hinge_embedding_loss`: x for y = 1, max(0, margin - x)
    for y = -1."""

    loss = staticmethod(M.hinge_embedding_loss)

    def __init__(self, margin: float = 1.0, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean"):
        super().__init__(margin, size_average, reduce, reduction)


class CosineEmbeddingLoss(_PairMarginLoss):
    """:func:`tinyffn.functional.cosine_embedding_loss`: ``loss_fn(input1, input2,
    target)``, 1 - cos for y = 1, max(0, cos - margin) for y = -1."""

    loss = staticmethod(M.cosine_embedding_loss)

    def __init__(self, margin: float = 0.0, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean"):
        super().__init__(margin, size_average, reduce, reduction)


class _LegacyLoss(_Loss):
    """A loss whose signature keeps PyTorch's deprecated arguments (refused)."""

    def __init__(self, size_average: Any, reduce: Any, reduction: str):
        super().__init__(reduction)
        M._refuse_legacy(type(self).__name__, size_average, reduce)


class SoftMarginLoss(_LegacyLoss):
    """:func:`tinyffn.functional.soft_margin_loss`: log(1 + exp(-y x)) for labels ±1."""

    loss = staticmethod(ML.soft_margin_loss)

    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)


class MultiLabelSoftMarginLoss(_LegacyLoss):
    """:func:`tinyffn.functional.multilabel_soft_margin_loss`: the logistic loss of each
    class averaged over the C classes; ``weight`` (a buffer) rescales each class."""

    loss = staticmethod(ML.multilabel_soft_margin_loss)

    def __init__(self, weight: Tensor | None = None, size_average: Any = None,
                 reduce: Any = None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", _weight_buffer(type(self).__name__, "weight", weight))

    def options(self) -> dict:
        return {"weight": self.weight}


class MultiMarginLoss(_LegacyLoss):
    """:func:`tinyffn.functional.multi_margin_loss`: 1/C Σ_{i ≠ y} w_y max(0, margin -
    x_y + x_i)^p, p = 1 or 2; ``weight`` (C,), a buffer, weighs each true class."""

    loss = staticmethod(ML.multi_margin_loss)

    def __init__(self, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                 size_average: Any = None, reduce: Any = None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        owner = type(self).__name__
        if p not in (1, 2) or isinstance(p, bool):
            raise ValueError(f"{owner}: only p == 1 and p == 2 supported (as PyTorch), got {p!r}")
        M._check_margin(owner, margin)
        weight = _weight_buffer(owner, "weight", weight)
        if weight is not None and weight.ndim != 1:
            raise ValueError(f"{owner}: expected weight to be None or a 1-D tensor (one "
                             f"weight per class), got shape {weight.shape}")
        self.p, self.margin = p, margin
        self.register_buffer("weight", weight)

    def options(self) -> dict:
        return {"p": self.p, "margin": self.margin, "weight": self.weight}

    def extra_repr(self) -> str:
        return f"p={self.p}, margin={self.margin}, reduction={self.reduction!r}"


class MultiLabelMarginLoss(_LegacyLoss):
    """:func:`tinyffn.functional.multilabel_margin_loss`: 1/C Σ_j Σ_i max(0, 1 - (x_j -
    x_i)) over target classes j and the others i; targets as class indices ended by -1."""

    loss = staticmethod(ML.multilabel_margin_loss)

    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)


class TripletMarginLoss(_LegacyLoss):
    """:func:`tinyffn.functional.triplet_margin_loss`: ``loss_fn(anchor, positive,
    negative)``, max(0, margin + d(a, p) - d(a, n)) with the p-norm distance."""

    def __init__(self, margin: float = 1.0, p: float = 2.0, eps: float = 1e-06,
                 swap: bool = False, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        _check_triplet_options(type(self).__name__, margin, swap)
        for name, v in (("p", p), ("eps", eps)):
            if not is_real(v):
                raise TypeError(f"TripletMarginLoss: {name} must be a number, got {v!r}")
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return ML.triplet_margin_loss(anchor, positive, negative, self.margin, self.p,
                                      self.eps, self.swap, reduction=self.reduction)

    def extra_repr(self) -> str:
        return (f"margin={self.margin}, p={self.p}, eps={self.eps}, swap={self.swap}, "
                f"reduction={self.reduction!r}")


class TripletMarginWithDistanceLoss(_Loss):
    """:func:`tinyffn.functional.triplet_margin_with_distance_loss`: ``loss_fn(anchor,
    positive, negative)`` with any ``distance_function``; by default an
    ``nn.PairwiseDistance()``, a submodule, as in PyTorch."""

    def __init__(self, *, distance_function: Any = None, margin: float = 1.0,
                 swap: bool = False, reduction: str = "mean"):
        super().__init__(reduction)
        from .more_modules import PairwiseDistance
        _check_triplet_options(type(self).__name__, margin, swap)
        if distance_function is not None and not callable(distance_function):
            raise TypeError(f"TripletMarginWithDistanceLoss: distance_function must be a "
                            f"callable or None, got {type(distance_function).__name__}")
        self.distance_function = distance_function or PairwiseDistance()
        self.margin, self.swap = margin, swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return ML.triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction)

    def extra_repr(self) -> str:
        return f"margin={self.margin}, swap={self.swap}, reduction={self.reduction!r}"


def _check_triplet_options(owner: str, margin: Any, swap: Any) -> None:
    M._check_margin(owner, margin)
    if not margin > 0:
        raise ValueError(f"{owner}: expected margin to be greater than 0, got {margin} "
                         "(PyTorch refuses it too)")
    if not isinstance(swap, bool):
        raise TypeError(f"{owner}: swap must be True or False, got {swap!r}")
