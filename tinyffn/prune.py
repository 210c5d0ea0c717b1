"""``tinyffn.nn.utils.prune``, as ``torch.nn.utils.prune``: weights set to zero by a mask,
the mask chosen by magnitude (``l1_unstructured``, ``ln_structured``), at random or by you.

``l1_unstructured(module, "weight", 0.3)`` moves the Parameter to ``weight_orig``, keeps
the mask in the buffer ``weight_mask`` and makes ``weight`` their product, recomputed by
a forward pre-hook, so the gradient reaches ``weight_orig`` masked; pruning again combines
the masks, and ``remove`` makes it permanent. How it works is in :mod:`tinyffn.prune_base`
(``BasePruningMethod``, ``PruningContainer``); this file holds the methods and functions.

``amount`` is how many entries (channels) to prune: an int is a count, a float in [0, 1]
a fraction of the candidates, rounded by Python's ``round`` as PyTorch's. Which entries:

* L1 (unstructured): the ``amount`` smallest |s|, s the importance scores (W by default);
* Ln (structured): along ``dim``, the channels (slices) of smallest ‖s_c‖_n are pruned;
  ``ln_structured(ffn.w1, "weight", 0.5, n=1, dim=0)`` drops half of W1's rows, half of
  the FFN's hidden units: its key-value memories (docs/key_value_memory.md).

Ties are broken by position: among equal scores the one with the lower (flat) index is
pruned first by L1, kept first by Ln, since tinyffn's ``topk`` keeps ties in index order
on every device. PyTorch's choice among ties is whatever its selection algorithm leaves
(on the CPU ``std::nth_element`` or ``std::partial_sort``; on CUDA a radix select): which
of several equal weights it prunes is not specified, and differs between its devices.
The number pruned is the same. The masks are computed outside any graph (``no_grad``),
with tensors on the weight's device.
"""
from __future__ import annotations

import numbers
from abc import abstractmethod
from collections.abc import Iterable
from typing import Any

from . import grad_mode
from .arguments import type_name
from .creation import cat, ones_like, rand, rand_like, zeros_like
from .module import Module
from .prune_base import BasePruningMethod, PruningContainer
from .sorting import topk
from .tensor import Tensor
from .torch_functions import norm

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured",
           "L1Unstructured", "RandomStructured", "LnStructured", "CustomFromMask",
           "identity", "random_unstructured", "l1_unstructured", "random_structured",
           "ln_structured", "global_unstructured", "custom_from_mask", "remove", "is_pruned"]


class Identity(BasePruningMethod):
    """Prunes nothing: the mask stays all ones (a tensor that looks pruned, to combine
    with others later, or to have a mask to edit by hand)."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return default_mask

    @classmethod
    def apply(cls, module: Module, name: str) -> "Identity":
        return super().apply(module, name)


class _Unstructured(BasePruningMethod):
    """Prunes ``amount`` entries (an int, or a fraction of the entries), the ``k`` that
    :meth:`_chosen` names, on top of the mask so far."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: int | float) -> None:
        _check_amount(type(self).__name__, amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        k = _count(type(self).__name__, self.amount, t.numel())
        mask = default_mask.clone()
        if k == 0:
            return mask
        chosen = self._chosen(t.reshape(-1), k)                        # (k,) flat positions
        return mask.reshape(-1).index_fill(0, chosen, 0).reshape(t.shape)

    @abstractmethod
    def _chosen(self, t: Tensor, k: int) -> Tensor:
        """The k flat positions of t (1-D) to prune."""


class RandomUnstructured(_Unstructured):
    """Prunes ``amount`` entries chosen uniformly at random (those of the ``amount``
    largest of a ``rand_like(t)``, drawn from ``manual_seed``'s generator)."""

    def _chosen(self, t: Tensor, k: int) -> Tensor:
        return topk(rand_like(t), k).indices

    @classmethod
    def apply(cls, module: Module, name: str, amount: int | float) -> "RandomUnstructured":
        return super().apply(module, name, amount=amount)


class L1Unstructured(_Unstructured):
    """Prunes the ``amount`` entries of smallest |s| (s the importance scores, the
    weight by default); among equal |s| the lower flat index first (see the module
    docstring)."""

    def _chosen(self, t: Tensor, k: int) -> Tensor:
        return topk(t.abs(), k, largest=False).indices

    @classmethod
    def apply(cls, module: Module, name: str, amount: int | float,
              importance_scores: Tensor = None) -> "L1Unstructured":
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` whole channels along ``dim`` (each slice t[..., c, ...] all
    zero), chosen uniformly at random: those whose draw from ``rand(size of dim)`` is
    at most its ``amount``-th smallest."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: int | float, dim: int = -1) -> None:
        _check_amount(type(self).__name__, amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        op = type(self).__name__
        _check_structured(op, t, self.dim)
        n = t.shape[self.dim]
        k = _count(op, self.amount, n)
        if k == 0:
            return default_mask
        prob = rand(n, device=t.device)                           # (n,)
        keep = prob > prob.kthvalue(k).values                     # (n,), k of them False
        mask = _channels(t, self.dim, keep)
        return mask * default_mask.to(dtype=mask.dtype)

    @classmethod
    def apply(cls, module: Module, name: str, amount: int | float,
              dim: int = -1) -> "RandomStructured":
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the ``amount`` channels along ``dim`` of smallest Ln norm, ‖s_c‖_n over
    every other axis (``n`` as ``torch.norm``'s p: 1, 2, ``float('inf')``, ``'fro'``,
    ...); among equal norms the channel of higher index is pruned first."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: int | float, n: Any, dim: int = -1) -> None:
        _check_amount(type(self).__name__, amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        op = type(self).__name__
        _check_structured(op, t, self.dim)
        size = t.shape[self.dim]
        k = _count(op, self.amount, size)
        if k == 0:
            return default_mask
        dim = self.dim % t.ndim
        norms = norm(t, p=self.n, dim=[d for d in range(t.ndim) if d != dim])   # (size,)
        kept = topk(norms, size - k).indices                                     # (size - k,)
        mask = zeros_like(t).index_fill(dim, kept, 1)
        return mask * default_mask.to(dtype=mask.dtype)

    @classmethod
    def apply(cls, module: Module, name: str, amount: int | float, n: Any, dim: int,
              importance_scores: Tensor = None) -> "LnStructured":
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes where ``mask`` (a tensor of the weight's shape) is 0: the new mask is the
    old one times ``mask``."""

    PRUNING_TYPE = "global"

    def __init__(self, mask: Tensor) -> None:
        if not isinstance(mask, Tensor):
            raise TypeError(f"CustomFromMask: mask must be a tinyffn Tensor of the weight's "
                            f"shape (1 keeps, 0 prunes), got {type_name(mask)}")
        self.mask = mask

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"CustomFromMask: the mask has shape {self.mask.shape}, but "
                                 f"the tensor pruned has shape {default_mask.shape}; give a "
                                 "mask of the tensor's shape")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module: Module, name: str, mask: Tensor) -> "CustomFromMask":
        return super().apply(module, name, mask=mask)


# ----------------------------------------------------------------------------- functions
def identity(module: Module, name: str) -> Module:
    """Prune nothing (:class:`Identity`); returns the module."""
    Identity.apply(module, name)
    return module


def random_unstructured(module: Module, name: str, amount: int | float) -> Module:
    """Prune ``amount`` random entries of ``module.<name>``; returns the module."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module: Module, name: str, amount: int | float,
                    importance_scores: Tensor = None) -> Module:
    """Prune the ``amount`` entries of ``module.<name>`` of smallest |s| (s the
    importance scores, the tensor itself by default); returns the module."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module: Module, name: str, amount: int | float, dim: int) -> Module:
    """Prune ``amount`` random channels of ``module.<name>`` along ``dim``."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module: Module, name: str, amount: int | float, n: Any, dim: int,
                  importance_scores: Tensor = None) -> Module:
    """Prune the ``amount`` channels of ``module.<name>`` along ``dim`` of smallest Ln
    norm; ``dim=0`` of a Linear's weight: whole output units (rows)."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters: Iterable, pruning_method: type,
                        importance_scores: dict = None, **kwargs: Any) -> None:
    """Prune the (module, name) pairs of ``parameters`` as one vector: ``pruning_method``
    (an unstructured class, ``L1Unstructured``) with ``**kwargs`` (``amount=...``) over
    all their entries joined, so one layer can lose more than another. Each tensor gets
    its part of the mask by :func:`custom_from_mask`. ``importance_scores``: a dict
    (module, name) -> scores; a tensor without uses its values."""
    op = "global_unstructured"
    if not isinstance(parameters, Iterable):
        raise TypeError(f"{op}(): parameters is not an Iterable; pass a list of (module, "
                        "name) pairs, [(model.w1, 'weight'), (model.w2, 'weight')]")
    parameters = list(parameters)           # read twice; PyTorch's loses a generator's pairs
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError(f"{op}(): importance_scores must be of type dict, got "
                        f"{type_name(importance_scores)}")
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(f'{op}(): only "unstructured" PRUNING_TYPE is supported for the '
                        f"pruning_method; {pruning_method.__name__} is {method.PRUNING_TYPE!r}")
    with grad_mode.no_grad():
        scores = cat([importance_scores.get((m, name), getattr(m, name)).reshape(-1)
                      for m, name in parameters])                       # (Σ numel,)
        masks = cat([(getattr(m, name + "_mask") if hasattr(m, name + "_mask")
                      else ones_like(getattr(m, name))).reshape(-1)
                     for m, name in parameters])                        # (Σ numel,)
        final = PruningContainer(method).compute_mask(scores, masks)    # (Σ numel,)
    start = 0
    for m, name in parameters:
        param = getattr(m, name)
        custom_from_mask(m, name, mask=final[start:start + param.numel()].reshape(param.shape))
        start += param.numel()


def custom_from_mask(module: Module, name: str, mask: Tensor) -> Module:
    """Prune ``module.<name>`` where ``mask`` is 0; returns the module."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module: Module, name: str) -> Module:
    """Make the pruning of ``module.<name>`` permanent (:meth:`BasePruningMethod.remove`)
    and take its hook off; returns the module."""
    for k, (hook, _) in list((module._forward_pre_hooks or {}).items()):
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"Parameter '{name}' of module {type(module).__name__} has to be pruned "
                     "before pruning can be removed")


def is_pruned(module: Module) -> bool:
    """Whether ``module`` or a module inside it has a pruning hook."""
    return any(isinstance(hook, BasePruningMethod)
               for _, m in module.named_modules()
               for hook, _ in (m._forward_pre_hooks or {}).values())


# ----------------------------------------------------------------------------- checks
def _check_amount(op: str, amount: Any) -> None:
    """``amount`` is a non-negative int or a float in [0, 1], as PyTorch checks it."""
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"{op}: invalid type for amount: {amount!r} ({type_name(amount)}). "
                        "Must be int or float")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral) and not 0.0 <= float(amount) <= 1.0):
        raise ValueError(f"{op}: amount={amount} should either be a float in the range "
                         "[0, 1] or a non-negative integer (a fraction of the entries, or "
                         "how many to prune)")


def _count(op: str, amount: int | float, size: int) -> int:
    """How many of ``size`` candidates to prune: an int as it is, a float's share
    rounded (Python's round, half to even, as PyTorch's); no more than there are."""
    k = amount if isinstance(amount, numbers.Integral) else round(amount * size)
    if isinstance(amount, numbers.Integral) and amount > size:
        raise ValueError(f"{op}: amount={amount} should be smaller than the number of "
                         f"parameters to prune={size}")
    return int(k)


def _check_structured(op: str, t: Tensor, dim: int) -> None:
    """Structured pruning needs 2 axes or more, and ``dim`` one of them."""
    if t.ndim <= 1:
        raise ValueError(f"{op}: structured pruning can only be applied to multidimensional "
                         f"tensors. Found tensor of shape {t.shape} with {t.ndim} dims")
    if not -t.ndim <= dim < t.ndim:
        raise IndexError(f"{op}: invalid index dim={dim} for tensor of size {t.shape}")


def _channels(t: Tensor, dim: int, keep: Tensor) -> Tensor:
    """A mask of t's shape and dtype: 1 in the channels along ``dim`` where ``keep``."""
    shape = [1] * t.ndim
    shape[dim] = t.shape[dim]
    return keep.to(dtype=t.dtype).reshape(shape) * ones_like(t)   # t's shape
