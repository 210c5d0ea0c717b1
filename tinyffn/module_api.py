"""The ``torch.nn.Module`` methods that reach a module's parts by name, and the labels of
parts added to a module that is already inside a model.

:class:`ModuleAPI` is a base class of :class:`tinyffn.module.Module`, so every module has
these methods; module.py stays the tree itself (attributes, naming, buffers, calling).

* ``add_module(name, module)`` (also ``register_module``) and ``register_parameter(name,
  param)``: ``self.<name> = value`` for a name held in a string (``f"layer{i}"``), with
  PyTorch's checks on the name: a string (else TypeError), neither empty nor holding a
  "." (which joins the parts of a path), and not an attribute that holds something else
  (KeyError).
* ``get_submodule("blocks.0")``, ``get_parameter("blocks.0.weight")``,
  ``get_buffer("norm.running_mean")``: one part of a dotted path at a time, as PyTorch's;
  an AttributeError names the first part that is missing or of the wrong kind.
* ``get_extra_state()`` / ``set_extra_state(state)``: what a module saves besides its
  tensors (a step count, a config). A class that defines ``get_extra_state`` has
  ``<path>._extra_state`` in its ``state_dict``; one that defines ``set_extra_state`` is
  given that entry by ``load_state_dict`` (which expects it when ``strict``). The
  defaults here raise, as PyTorch's, since ``state_dict`` asks only modules that
  override them (:func:`overrides`).

**Labels.** ``Module.__setattr__`` labels each tensor of a child with its path in the
model (``blocks.0.weight``, for graph labels). Modules are built inside out, so a child
is often assigned before its parent is in a model; each module remembers its own path
(under :data:`PATH_KEY` in its ``__dict__``, set by :func:`relabel`; a name no user picks,
so a module's own ``self._path = "ckpt.pt"`` stays as it is, and a ``_path`` property
is never written to), and the assignment of the parent into the model
relabels everything under it. A child added later to a module already in a model
(``model.blocks.append(block)``, ``add_module``, ``model.ffn.act = GELU()``) starts its
labels with that module's path: ``blocks.3.weight``, not ``3.weight``.
"""
from __future__ import annotations

from typing import Any

from .arguments import type_name

EXTRA_STATE = "_extra_state"        # the last part of an extra state's state_dict key


class ModuleAPI:
    """PyTorch's ``add_module``, ``register_module``, ``register_parameter``,
    ``get_submodule``, ``get_parameter``, ``get_buffer``, ``get_extra_state`` and
    ``set_extra_state``, for :class:`tinyffn.module.Module` (its base class)."""

    def add_module(self, name: str, module: Any) -> None:
        """Make ``module`` (a Module, or None for none yet) the child ``name``, as
        ``self.<name> = module``; PyTorch's checks on the name (see the module docstring).
        Replacing a child keeps its place, as in PyTorch."""
        from .module import Module          # at call time: module.py imports this file
        owner = f"{type(self).__name__}.add_module"
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{owner}: {type_name(module)} is not a Module subclass; wrap "
                            "a function in a Module subclass whose forward calls it")
        _check_name(self, owner, "module", name, Module)
        if module is not None and any(m is self for m in module.modules()):
            raise ValueError(f"{owner}: module {name!r} contains this "
                             f"{type(self).__name__}; a module tree cannot have cycles")
        setattr(self, name, module)                 # labelled by Module.__setattr__

    def register_module(self, name: str, module: Any) -> None:
        """``add_module(name, module)``, under its other PyTorch name."""
        self.add_module(name, module)

    def register_parameter(self, name: str, param: Any) -> None:
        """Make ``param`` (a Parameter, or None for none yet) the parameter ``name``, as
        ``self.<name> = param``; PyTorch's checks on the name (see the module docstring).
        A parameter set to None is in neither ``parameters()`` nor ``state_dict``."""
        from .module import Parameter       # at call time: module.py imports this file
        owner = f"{type(self).__name__}.register_parameter"
        _check_name(self, owner, "parameter", name, Parameter)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"{owner}: cannot assign '{type_name(param)}' object to parameter "
                            f"{name!r} (nn.Parameter or None required); wrap a tensor as "
                            "nn.Parameter(t), or use register_buffer for state that is "
                            "not learned")
        setattr(self, name, param)

    # -- parts by dotted path ----------------------------------------------------------
    def get_submodule(self, target: str) -> Any:
        """The module at dotted path ``target`` (``"blocks.0"``; ``""`` is this module),
        as PyTorch's; AttributeError naming the first part that is missing or no Module."""
        return _walk(self, "get_submodule", target, target)

    def get_parameter(self, target: str) -> Any:
        """The Parameter at dotted path ``target`` (``"blocks.0.weight"``), as PyTorch's;
        AttributeError naming the first part that is missing or of the wrong kind."""
        from .module import Parameter       # at call time: module.py imports this file
        module, name = _last(self, "get_parameter", target)
        value = getattr(module, name)
        if not isinstance(value, Parameter):
            raise AttributeError(
                f"{type(self).__name__}.get_parameter({target!r}): `{name}` is not an "
                f"nn.Parameter (it is {type_name(value)}); the parameters of "
                f"{type(module).__name__} are: {_listed(module.named_parameters(recurse=False))}")
        return value

    def get_buffer(self, target: str) -> Any:
        """The buffer at dotted path ``target`` (``"norm.running_mean"``; None for one
        registered as None), as PyTorch's; AttributeError naming the first part that is
        missing or no buffer."""
        module, name = _last(self, "get_buffer", target)
        if name not in vars(module).get("_buffer_names", {}):
            raise AttributeError(
                f"{type(self).__name__}.get_buffer({target!r}): `{name}` is not a buffer "
                f"(it is {type_name(getattr(module, name))}); the buffers of "
                f"{type(module).__name__} are: {_listed(module.named_buffers(recurse=False))}")
        return getattr(module, name)

    # -- extra state -------------------------------------------------------------------
    def get_extra_state(self) -> Any:
        """Override to save more than tensors: ``state_dict`` stores what it returns under
        ``<path>._extra_state``, as PyTorch's. Not overridden, it raises (and
        ``state_dict`` does not call it)."""
        raise RuntimeError(
            f"{type(self).__name__}.get_extra_state: not defined by {type(self).__name__}; "
            "define get_extra_state(self) in the class to save extra state in "
            "state_dict (and set_extra_state(self, state) to load it back)")

    def set_extra_state(self, state: Any) -> None:
        """Override to load what ``get_extra_state`` saved: ``load_state_dict`` calls it
        with the entry ``<path>._extra_state``, as PyTorch's. Not overridden, it raises."""
        raise RuntimeError(
            f"{type(self).__name__}.set_extra_state: not defined by {type(self).__name__}; "
            "define set_extra_state(self, state) in the class to load the state "
            "get_extra_state saved")


def overrides(module: Any, method: str) -> bool:
    """Whether ``module``'s class defines its own ``get_extra_state`` or
    ``set_extra_state`` (PyTorch's test for saving or loading extra state)."""
    return getattr(type(module), method) is not getattr(ModuleAPI, method)


# ----------------------------------------------------------------------------- names
def _check_name(module: Any, owner: str, what: str, name: Any, kind: type) -> None:
    """PyTorch's checks on the name of a new child or parameter: registered after
    ``Module.__init__``, a string, not empty, no ".", and not an attribute that holds
    something other than ``kind`` (or None)."""
    if "training" not in vars(module):
        raise AttributeError(f"{owner}: cannot register {what} {name!r} before "
                             "Module.__init__() has run: call super().__init__() first in "
                             f"{type(module).__name__}.__init__")
    if not isinstance(name, str):
        raise TypeError(f"{owner}: {what} name should be a string. Got {type_name(name)} "
                        f"({name!r}); use str({name!r})")
    if "." in name or not name:
        why = f'can\'t contain ".", got: {name}' if name else 'can\'t be empty string ""'
        raise KeyError(f"{owner}: {what} name {why}: a name is one part of a dotted path "
                       "(blocks.0.weight); use another character, such as '_'")
    held = vars(module).get(name)
    if hasattr(module, name) and not isinstance(held, kind) and not (
            name in vars(module) and held is None and
            name not in vars(module).get("_buffer_names", ())):
        raise KeyError(f"{owner}: attribute {name!r} already exists ({_what(module, name)} "
                       f"of {type(module).__name__}); give the {what} another name, or "
                       f"del the attribute first")


def _what(module: Any, name: str) -> str:
    """What the attribute ``name`` of ``module`` is, in words."""
    from .module import Module, Parameter   # at call time: module.py imports this file
    value = getattr(module, name)
    return ("a parameter" if isinstance(value, Parameter) else
            "a submodule" if isinstance(value, Module) else
            "a buffer" if name in vars(module).get("_buffer_names", ()) else
            "an attribute" if name in vars(module) else "a method or class attribute")


def _walk(root: Any, op: str, target: Any, path: str) -> Any:
    """The module at dotted ``path`` below ``root`` (``root`` for ""); ``op`` and
    ``target`` name the call in errors."""
    from .module import Module              # at call time: module.py imports this file
    if not isinstance(target, str):
        raise TypeError(f"{type(root).__name__}.{op}: the target must be a dotted path "
                        f"string (\"blocks.0\"), got {type_name(target)}")
    module = root
    for part in path.split(".") if path else ():
        if not hasattr(module, part):
            raise AttributeError(
                f"{type(root).__name__}.{op}({target!r}): {type(module).__name__} has no "
                f"attribute `{part}`; its submodules are: {_listed(module.named_children())}")
        module = getattr(module, part)
        if not isinstance(module, Module):
            raise AttributeError(f"{type(root).__name__}.{op}({target!r}): `{part}` is not "
                                 f"an nn.Module (it is {type_name(module)})")
    return module


def _last(root: Any, op: str, target: Any) -> tuple[Any, str]:
    """(the module that holds the last part of ``target``, that part), which it has."""
    path, _, name = target.rpartition(".") if isinstance(target, str) else ("", "", "")
    module = _walk(root, op, target, path)
    if not hasattr(module, name):
        raise AttributeError(f"{type(root).__name__}.{op}({target!r}): "
                             f"{type(module).__name__} has no attribute `{name}`")
    return module, name


def _listed(named) -> str:
    """``a, b, c`` from (name, value) pairs, or ``(none)``."""
    return ", ".join(name for name, _ in named) or "(none)"


# ----------------------------------------------------------------------------- labels
PATH_KEY = "_tinyffn_path"           # where a module keeps its path (module docstring)


def path_of(module: Any) -> str:
    """``module``'s path in the model it was last assigned into, with its dot
    (``"blocks.0."``); "" for a module assigned into none."""
    return vars(module).get(PATH_KEY, "")


def set_path(module: Any, path: str) -> None:
    """Make ``path`` the one :func:`path_of` gives, written into ``module.__dict__`` past
    any ``__setattr__`` or property."""
    vars(module)[PATH_KEY] = path


def relabel(module: Any, prefix: str) -> None:
    """Give ``module`` the path ``prefix`` and each module under it its own below that, and
    label each tensor with ``prefix`` and its path from ``module``."""
    for path, m in module.named_modules():
        set_path(m, f"{prefix}{path}." if path else prefix)
    for path, t in [*module.named_parameters(), *module.named_buffers()]:
        t.name = prefix + path
