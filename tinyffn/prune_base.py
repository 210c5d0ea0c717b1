"""The machinery of ``tinyffn.nn.utils.prune`` (:mod:`tinyffn.prune`), as PyTorch's: how
a mask becomes a forward pre-hook, and how a second pruning combines with the first.

Pruning ``module.weight`` leaves three names where there was one::

    module.weight_orig     the Parameter, W: what the optimizer learns (and state_dict saves)
    module.weight_mask     a buffer, M, of W's shape: 1 keeps an entry, 0 prunes it (saved)
    module.weight          a plain attribute, M ⊙ W, recomputed before each forward

The pruning method itself is a forward pre-hook on the module (``__call__`` computes
M ⊙ W), so each forward records a fresh ``mul`` and the gradient reaching ``weight_orig``
is M ⊙ dL/d(weight): a pruned entry gets 0 and stays where it was. ``remove`` makes the
pruning permanent: ``weight`` is a Parameter again (the same object as ``weight_orig``,
so an optimizer still holds it) with M ⊙ W as its values, and the mask is gone.

Pruning the same tensor again combines the masks (:class:`PruningContainer`): the new
method sees only the entries (or, structured, the channels) still unpruned, so
``l1_unstructured(m, "weight", 0.5)`` twice prunes 50%, then half of the rest: 75%.
A pruning that fails (an ``amount`` larger than the survivors, or not an amount: 1.5)
leaves the tensor as it was: unpruned, or pruned by the earlier methods, whose hook
PyTorch's loses there.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from . import grad_mode
from .arguments import type_name
from .creation import ones_like
from .module import Module
from .tensor import Tensor
from .torch_functions import nonzero

__all__ = ["BasePruningMethod", "PruningContainer"]


class BasePruningMethod(ABC):
    """The base of every pruning method, as PyTorch's: a subclass defines
    ``compute_mask(t, default_mask)`` and ``PRUNING_TYPE`` (``"unstructured"``,
    ``"structured"``, with a ``dim``, or ``"global"``), which says what a
    :class:`PruningContainer` hands it when it prunes a tensor already pruned."""

    PRUNING_TYPE: str
    _tensor_name: str | None = None           # set by apply: the name of the tensor pruned

    def __call__(self, module: Module, inputs: tuple) -> None:
        """The forward pre-hook: ``module.<name> = mask ⊙ <name>_orig``, a fresh product."""
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The new mask, t's shape, from the importance scores ``t`` and the mask so far
        (``default_mask``: entries already pruned must stay pruned)."""

    def apply_mask(self, module: Module) -> Tensor:
        """M ⊙ W, from ``module.<name>_mask`` and ``module.<name>_orig``: recorded in the
        graph, so dL/dW = M ⊙ dL/d(M ⊙ W)."""
        if self._tensor_name is None:
            raise AssertionError(f"{type(self).__name__}.apply_mask: module "
                                 f"{type(module).__name__} has to be pruned first "
                                 "(this method was never applied)")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module: Module, name: str, *args: Any, importance_scores: Tensor = None,
              **kwargs: Any) -> "BasePruningMethod":
        """Prune ``module.<name>`` with ``cls(*args, **kwargs)``: move the parameter to
        ``<name>_orig``, register the mask as ``<name>_mask``, set ``<name>`` to the
        product and register the method as a forward pre-hook; returns the method (a
        :class:`PruningContainer` when the tensor was pruned before)."""
        method, before = _composite_method(cls, module, name, *args, **kwargs)
        orig = getattr(module, name)
        if importance_scores is not None:
            _check_scores(f"{cls.__name__}.apply", importance_scores, orig,
                          f"parameter {name} of {type(module).__name__}")
        else:
            importance_scores = orig
        container = isinstance(method, PruningContainer)
        if not container:                                   # first pruning: W -> W_orig
            module.register_parameter(name + "_orig", orig)
            delattr(module, name)
            default_mask = ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            with grad_mode.no_grad():
                mask = method.compute_mask(importance_scores.detach(), default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if not container:                               # put W back, as it was
                orig = getattr(module, name + "_orig")
                if name in vars(module):
                    delattr(module, name)
                delattr(module, name + "_orig")
                module.register_parameter(name, orig)
            else:             # the earlier pruning stays (PyTorch's loses its hook here)
                method._pruning_methods = method._pruning_methods[:-1]
                module.register_forward_pre_hook(before)
            raise
        return method

    def prune(self, t: Tensor, default_mask: Tensor = None,
              importance_scores: Tensor = None) -> Tensor:
        """t ⊙ mask, the mask computed from ``importance_scores`` (t by default) and
        ``default_mask`` (all ones by default): pruning a tensor that is no module's."""
        if importance_scores is not None:
            _check_scores(f"{type(self).__name__}.prune", importance_scores, t, "tensor t")
        else:
            importance_scores = t
        default_mask = default_mask if default_mask is not None else ones_like(t)
        with grad_mode.no_grad():
            mask = self.compute_mask(importance_scores.detach(), default_mask)
        return t * mask

    def remove(self, module: Module) -> None:
        """Make the pruning permanent: ``<name>`` the Parameter ``<name>_orig`` (the same
        object) holding M ⊙ W; ``<name>_orig`` and ``<name>_mask`` gone. The hook itself
        is taken off by the function :func:`remove`."""
        name = self._tensor_name
        if name is None:
            raise AssertionError(f"{type(self).__name__}.remove: module "
                                 f"{type(module).__name__} has to be pruned before pruning "
                                 "can be removed")
        with grad_mode.no_grad():
            weight = self.apply_mask(module)                # M ⊙ W
        if name in vars(module):
            delattr(module, name)
        orig = getattr(module, name + "_orig")
        orig.data = weight
        delattr(module, name + "_orig")
        delattr(module, name + "_mask")
        setattr(module, name, orig)


def _composite_method(cls, module: Module, name: str, *args: Any, **kwargs: Any) -> tuple:
    """``cls(*args, **kwargs)`` for ``module.<name>``; if the tensor is pruned already,
    its hook comes off and the new method joins it in a :class:`PruningContainer`. Returns
    (the method to apply, the hook taken off or None). The method is made first, so
    arguments it refuses leave the earlier hook in place (PyTorch's drops it)."""
    method = cls(*args, **kwargs)
    method._tensor_name = name
    old, keys = None, []
    for k, (hook, _) in (module._forward_pre_hooks or {}).items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            old = hook
            keys.append(k)
    if len(keys) > 1:
        raise AssertionError(f"{cls.__name__}.apply: {type(module).__name__}.{name} has "
                             f"{len(keys)} pruning hooks; avoid adding several to one tensor, "
                             "use a PruningContainer")
    for k in keys:
        del module._forward_pre_hooks[k]
    if old is None:
        return method, None
    container = old if isinstance(old, PruningContainer) else PruningContainer(old)
    container.add_pruning_method(method)
    return container, old


class PruningContainer(BasePruningMethod):
    """Several pruning methods applied to one tensor in turn, as PyTorch's: the last one
    computes its mask over what the earlier ones left (``compute_mask``). Made by
    ``apply`` when a tensor is pruned a second time; iterate it to see the methods."""

    def __init__(self, *args: BasePruningMethod) -> None:
        self._pruning_methods: tuple = ()
        if args and isinstance(args[0], BasePruningMethod):
            self._tensor_name = args[0]._tensor_name
        for method in args:
            self.add_pruning_method(method)

    def add_pruning_method(self, method: BasePruningMethod) -> None:
        """Append ``method``, which must prune the same tensor (the same name)."""
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"PruningContainer.add_pruning_method: {type_name(method)} is not "
                            "a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError("PruningContainer.add_pruning_method: can only add pruning "
                             f"methods acting on the parameter named '{self._tensor_name}'; "
                             f"found '{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx: int) -> BasePruningMethod:
        return self._pruning_methods[idx]

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The mask so far with the last method's mask written into its unpruned part:

        * unstructured: the entries where the mask is 1, as one vector (a fraction is
          of those);
        * structured: the channels along the method's ``dim`` not yet all zero;
        * global: all of t.

        So a pruned entry stays pruned, and the new amount counts the survivors only."""
        method = self._pruning_methods[-1]
        kind = method.PRUNING_TYPE
        new_mask = default_mask.to(dtype=t.dtype)
        if kind == "unstructured":
            kept = default_mask == 1
            part = method.compute_mask(t[kept], default_mask[kept])    # (n_kept,)
            return new_mask.masked_scatter(kept, part.to(dtype=new_mask.dtype))
        if kind == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to '
                                     f"have the attribute `dim` defined ({type(method).__name__} "
                                     "has none)")
            dim = method.dim + t.ndim if method.dim < 0 else method.dim
            if not 0 <= dim < t.ndim:
                raise IndexError(f"PruningContainer: dim={method.dim} is out of bounds for a "
                                 f"tensor of shape {t.shape}")
            others = [d for d in range(t.ndim) if d != dim]
            channels = nonzero(default_mask.sum(dim=others) != 0).reshape(-1)   # (n_kept,)
            part = method.compute_mask(t.index_select(dim, channels),
                                       default_mask.index_select(dim, channels))
            return new_mask.index_copy(dim, channels, part.to(dtype=new_mask.dtype))
        if kind == "global":
            return method.compute_mask(t, default_mask).to(dtype=new_mask.dtype)
        raise ValueError(f"Unrecognized PRUNING_TYPE {kind!r} of {type(method).__name__}; "
                         "use 'unstructured', 'structured' or 'global'")


def _check_scores(where: str, scores: Any, t: Tensor, what: str) -> None:
    if not isinstance(scores, Tensor):
        raise TypeError(f"{where}: importance_scores must be a tinyffn Tensor of the shape "
                        f"of {what}, got {type_name(scores)}")
    if scores.shape != t.shape:
        raise AssertionError(f"{where}: importance_scores should have the same shape as "
                             f"{what}, got {scores.shape} vs {t.shape}")
