"""``tinyffn.nn.utils.parametrize``, as ``torch.nn.utils.parametrize``: a parameter computed
from another one, so that a constraint holds by construction (a weight of unit norm, a
weight whose largest singular value is 1, a symmetric matrix).

``register_parametrization(module, "weight", p)`` moves the weight W into
``module.parametrizations.weight.original`` (the tensor the optimizer now learns, call it
θ) and makes ``module.weight`` a computed attribute: each read is p(θ), a fresh graph, so
the gradient of the loss reaches θ through p. With ``p.right_inverse``, θ starts at
right_inverse(W) (weight norm: the norm g and direction v of W; a tuple of tensors
becomes ``original0``, ``original1``, ...), so that p(θ) = W and the module computes
what it did; assigning ``module.weight = W'`` sets θ = right_inverse(W') the same way.
Several parametrizations on one tensor apply in the order registered.

As in PyTorch, the module's class becomes a subclass made for it, ``ParametrizedLinear``,
which holds the computed attribute (a property) and is dropped again by
``remove_parametrizations``; ``state_dict`` has ``parametrizations.weight.original``.
"""
from __future__ import annotations

from typing import Any

from . import grad_mode
from .containers import ModuleDict, ModuleList
from .module import Module, Parameter
from .tensor import Tensor


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, in order, and its unconstrained value(s):
    ``original`` (or ``original0``, ``original1``, ... when right_inverse gives several).
    Calling it computes the constrained tensor."""

    def __init__(self, modules: list, original: Tensor, unsafe: bool = False):
        super().__init__(modules)
        self.unsafe = unsafe
        first = modules[0]
        value = original
        with grad_mode.no_grad():
            if hasattr(first, "right_inverse"):
                value = first.right_inverse(original)
        self.is_tensor = isinstance(value, Tensor)
        values = {"original": value} if self.is_tensor else \
            {f"original{i}": v for i, v in enumerate(value)}
        for name, v in values.items():      # parameters stay parameters, buffers buffers
            if isinstance(original, Parameter):
                setattr(self, name, Parameter(v.detach()))
            else:
                self.register_buffer(name, v.detach())
        self.ntensors = len(values)

    def right_inverse(self, value: Tensor) -> None:
        """θ from a value of the constrained tensor, through each right_inverse (last
        parametrization first); the parameters keep their identity (optimizers hold them)."""
        with grad_mode.no_grad():
            for p in reversed(list(self)):
                if hasattr(p, "right_inverse"):
                    value = p.right_inverse(value)
                elif p is not self[0]:
                    raise RuntimeError(f"{type(p).__name__} has no right_inverse: a value "
                                       "cannot be assigned through it")
            if self.is_tensor:
                self.original.data = value.data
            else:
                for i, v in enumerate(value):
                    getattr(self, f"original{i}").data = v.data

    def forward(self) -> Tensor:
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for p in list(self)[1:]:
            x = p(x)
        return x


def register_parametrization(module: Module, tensor_name: str, parametrization: Module, *,
                             unsafe: bool = False) -> Module:
    """``module.<tensor_name>`` computed as ``parametrization(original)`` from now on (see
    the module docstring); returns the module. Unless ``unsafe``, the parametrization
    must give a tensor of the same shape and dtype as the one it replaces."""
    if not isinstance(module, Module) or not isinstance(parametrization, Module):
        raise TypeError("register_parametrization: module and parametrization must be "
                        "tinyffn nn.Modules (a parametrization is a Module whose forward "
                        "maps the original to the constrained tensor)")
    if is_parametrized(module, tensor_name):
        plist = module.parametrizations[tensor_name]
        if not unsafe:                  # checked before appending: a refused one is not kept
            before = plist()
            _check_same(tensor_name, before, parametrization(before), unsafe)
        plist.append(parametrization)
        return module
    original = vars(module).get(tensor_name)
    if not isinstance(original, Tensor):
        raise ValueError(f"register_parametrization: {type(module).__name__} has no "
                         f"parameter or buffer {tensor_name!r} to parametrize")
    plist = ParametrizationList([parametrization], original, unsafe)
    if not unsafe:
        _check_same(tensor_name, original, plist(), unsafe)
    if not is_parametrized(module):
        cls = type(module)
        module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), {"_unparametrized": cls})
        module.parametrizations = ModuleDict()
    delattr(module, tensor_name)
    module.parametrizations[tensor_name] = plist
    setattr(type(module), tensor_name, property(
        lambda self: self.parametrizations[tensor_name](),
        lambda self, value: self.parametrizations[tensor_name].right_inverse(value)))
    return module


def _check_same(name: str, before: Tensor, after: Any, unsafe: bool) -> None:
    if unsafe:
        return
    if not isinstance(after, Tensor) or after.shape != before.shape or \
            after.dtype != before.dtype:
        got = f"{after.shape}, {after.dtype}" if isinstance(after, Tensor) else type(after)
        raise ValueError(f"register_parametrization: the parametrization of {name!r} gives "
                         f"{got}, where {name} is {before.shape}, {before.dtype}; it must "
                         "keep the shape and dtype (or pass unsafe=True)")


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether the module has parametrizations (on ``tensor_name``, if given)."""
    plists = vars(module).get("parametrizations")
    if not isinstance(plists, ModuleDict):
        return False
    return tensor_name is None or tensor_name in plists


def remove_parametrizations(module: Module, tensor_name: str,
                            leave_parametrized: bool = True) -> Module:
    """Undo ``register_parametrization`` for ``tensor_name``: the tensor becomes a plain
    parameter (or buffer) again, holding its current constrained value
    (``leave_parametrized=True``) or the original θ (False, possible only when θ has the
    tensor's shape). As in PyTorch, a single θ is that tensor, the same object, so an
    optimizer holding it keeps it. The last one removed gives the module its own class
    back."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"remove_parametrizations: {type(module).__name__} has no "
                         f"parametrization on {tensor_name!r}")
    plist = module.parametrizations[tensor_name]
    with grad_mode.no_grad():
        if leave_parametrized:
            value = plist()
        elif plist.is_tensor:
            value = plist.original
        else:
            raise ValueError(f"remove_parametrizations: {tensor_name!r}'s original is "
                             f"{plist.ntensors} tensors; leave_parametrized=False needs one")
    if plist.is_tensor:     # θ itself comes back, so an optimizer holding it keeps it
        restored = plist.original
        restored.data = value.data
    else:
        restored = Parameter(value.detach()) if isinstance(plist.original0, Parameter) \
            else value.detach()
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    if not len(module.parametrizations):
        del module.parametrizations
        module.__class__ = module._unparametrized
    if isinstance(restored, Parameter):
        setattr(module, tensor_name, restored)
    else:                   # a buffer again, in state_dict as before
        module.register_buffer(tensor_name, restored)
    return module


__all__ = ["register_parametrization", "remove_parametrizations", "is_parametrized",
           "ParametrizationList"]
