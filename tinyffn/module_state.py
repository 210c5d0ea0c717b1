"""What ``Module.state_dict``, ``Module.load_state_dict`` and ``Module.to`` do to a
module's tensors (and what ``p.data = t`` checks).

:class:`tinyffn.module.Module` keeps these methods, with their docstrings; their bodies
are here, so that module.py reads as the tree of modules, parameters and buffers and how
calling a module runs. Loading and moving work on the tensors in place: each Parameter
and buffer stays the same object (an optimizer built on the parameters still holds them)
and gets a new array, as ``x -= y`` does under ``no_grad``; only ``load_state_dict(...,
assign=True)`` puts the given tensors in their places instead, as PyTorch's.
``array_like`` is also how an optimizer loads its saved state.

:func:`state_slots` lists what a state holds, in PyTorch's order: module by module (every
path of a shared one), its parameters, its persistent buffers, then its extra state
(``_extra_state``, for a class that defines ``get_extra_state`` to save it, or
``set_extra_state`` to load it: :mod:`tinyffn.module_api`).
"""
from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import Any, Iterable, Iterator, NamedTuple

from .arguments import type_name
from .backend import FLOAT_DTYPES, device_and_dtype, dtype_name, get_backend
from .in_place import as_view
from .module_api import EXTRA_STATE, overrides
from .tensor import Tensor


class IncompatibleKeys(NamedTuple):
    """What ``load_state_dict`` returns, as PyTorch's ``_IncompatibleKeys``: the module's
    keys the state lacked and the state's keys the module lacks. A tuple, so ``missing,
    unexpected = model.load_state_dict(...)`` unpacks it."""

    missing_keys: list
    unexpected_keys: list

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"            # PyTorch's words
        return (f"IncompatibleKeys(missing_keys={self.missing_keys!r}, "
                f"unexpected_keys={self.unexpected_keys!r})")


def state_slots(module: Any, extra: str) -> Iterator[tuple[str, Any, str | None]]:
    """(state_dict key, the module that holds it, attribute name) for each parameter and
    persistent buffer, and (key, module, None) for the extra state of each module whose
    class overrides ``extra`` ("get_extra_state" when saving, "set_extra_state" when
    loading, as PyTorch decides)."""
    from .module import _own_buffers, _own_parameters   # module.py imports this file
    for path, m in module.named_modules(remove_duplicate=False):
        head = f"{path}." if path else ""
        for name, _ in [*_own_parameters(m), *_own_buffers(m, persistent=True)]:
            yield head + name, m, name
        if overrides(m, extra):
            yield head + EXTRA_STATE, m, None


def state_dict(module: Any, destination: Any, prefix: str, keep_vars: bool) -> Any:
    """``module.state_dict(destination=, prefix=, keep_vars=)``: each entry under
    ``prefix`` + its key, into ``destination`` (a new dict if None), which is returned."""
    owner = f"{type(module).__name__}.state_dict"
    if destination is None:
        destination = {}
    elif not isinstance(destination, MutableMapping):
        raise TypeError(f"{owner}: destination must be a dict to fill, got "
                        f"{type_name(destination)}")
    if not isinstance(prefix, str):
        raise TypeError(f"{owner}: prefix must be a string that starts every key "
                        f"(\"model.\"), got {type_name(prefix)}")
    for key, m, name in state_slots(module, "get_extra_state"):
        if name is None:
            destination[prefix + key] = m.get_extra_state()
        else:
            t = vars(m)[name]
            destination[prefix + key] = t if keep_vars else as_view(
                Tensor(t.backend.xp.asarray(t.data, copy=True), _backend=t.backend),
                "model.state_dict()", t)
    return destination


def load_state_dict(module: Any, state_dict: Mapping, strict: bool,
                    assign: bool) -> IncompatibleKeys:
    """``module.load_state_dict(state_dict, strict, assign)``: check every value first,
    then copy them all (or, with ``assign``, put them in place), so that an error changes
    nothing (but a lazy layer found in the state is built first, as its first call would);
    last, ``set_extra_state`` with each extra state, in the state's order."""
    owner = f"{type(module).__name__}.load_state_dict"
    if not isinstance(state_dict, Mapping):
        raise TypeError(f"{owner}: expected a dict of name -> values (as state_dict() "
                        f"returns), got {type(state_dict).__name__}")
    for path, m in list(module.named_modules()):   # a lazy layer takes its size from
        if hasattr(m, "_load_lazily"):             # the state first (lazy_modules.py)
            m._load_lazily(state_dict, f"{path}." if path else "")
    slots = {key: (m, name) for key, m, name in state_slots(module, "set_extra_state")}
    missing = [key for key in slots if key not in state_dict]
    unexpected = [key for key in state_dict if key not in slots]
    arrays, problems = {}, []
    for key, (m, name) in slots.items():
        if key not in state_dict or name is None:
            continue
        t, value = vars(m)[name], state_dict[key]
        if assign:
            problem = _assign_problem(key, t, value)
            problems += [problem] if problem else []
            continue
        try:
            arrays[key] = array_like(t, value)
        except (TypeError, ValueError) as e:
            problems.append(f"{key}: {type(value).__name__} is not an array of numbers ({e})")
            continue
        if tuple(arrays[key].shape) != t.shape:
            problems.append(f"size mismatch for {key}: the checkpoint has shape "
                            f"{tuple(arrays[key].shape)}, the model has {t.shape}")
    key_problems = strict and bool(missing or unexpected)
    if strict and missing:
        problems.append("missing key(s): " + ", ".join(missing))
    if strict and unexpected:
        problems.append("unexpected key(s): " + ", ".join(unexpected))
    if problems:
        raise RuntimeError(
            f"{owner}: the state does not fit this {type(module).__name__}:\n  "
            + "\n  ".join(problems) + "\n  (its keys are: " + ", ".join(slots) + "; "
            "a state saved from a model built differently, e.g. another d_model or "
            "bias=False, does not fit"
            + ("; pass strict=False to skip missing/unexpected keys)" if key_problems else ")"))
    for key, (m, name) in slots.items():
        if key not in state_dict:
            continue
        if name is None:
            m.set_extra_state(state_dict[key])
        elif assign:
            _assign(m, name, state_dict[key])
        else:
            vars(m)[name].data = arrays[key]
    return IncompatibleKeys(missing, unexpected)


def _assign_problem(key: str, t: Tensor, value: Any) -> str | None:
    """Why ``value`` cannot take the place of ``t`` (the tensor under ``key``) with
    ``assign=True``, or None: it must be a Tensor of t's shape; a parameter that requires
    grad needs a floating dtype; a buffer is no Parameter."""
    from .module import Parameter           # module.py imports this file
    if not isinstance(value, Tensor):
        return (f"{key}: assign=True puts the value itself in the model, so it must be a "
                f"tinyffn Tensor, got {type_name(value)}; wrap it with tinyffn.tensor(...), "
                "or load without assign (which copies arrays and lists)")
    if value.shape != t.shape:
        return (f"size mismatch for {key}: the checkpoint has shape {value.shape}, the model "
                f"has {t.shape}")
    if isinstance(t, Parameter) and t.requires_grad and not value.backend.is_floating(
            value.dtype):
        return (f"{key}: the parameter requires grad, so it must be floating point, and the "
                f"checkpoint's is {dtype_name(value.dtype)}; cast it first (t.float())")
    if not isinstance(t, Parameter) and isinstance(value, Parameter):
        return (f"{key}: a buffer cannot be a Parameter (PyTorch would make it a parameter "
                "here); give a plain tensor, p.detach()")
    return None


def _assign(m: Any, name: str, value: Tensor) -> None:
    """``m.<name> = value``, as PyTorch's ``assign=True``: in a parameter's place, a
    Parameter (the one given, or one sharing the tensor's array) whose requires_grad is
    the old one's. The new tensor takes the old one's graph label."""
    from .module import Parameter           # module.py imports this file
    old = vars(m)[name]
    if isinstance(old, Parameter):
        if isinstance(value, Parameter):
            value.requires_grad_(old.requires_grad)
        else:
            value = Parameter(value, requires_grad=old.requires_grad)
    setattr(m, name, value)
    value.name = old.name


def check_new_data(p: Tensor, t: Tensor) -> None:
    """``p.data = t``: t must be floating point if p requires grad (as PyTorch checks), and
    fit p's ``.grad``, if p has one (PyTorch's next backward would fail, or mix dtypes)."""
    if p.requires_grad and not t.backend.is_floating(t.dtype):
        raise TypeError(f"p.data = t: p requires grad, so its data must be floating point, "
                        f"and t is {dtype_name(t.dtype)}; cast it first (t.float()), or make "
                        "p with requires_grad=False")
    g = p._grad
    if g is not None and (g.shape, g.dtype, g.device) != (t.shape, t.dtype, t.device):
        raise RuntimeError(f"p.data = t: p.grad is a {dtype_name(g.dtype)} gradient of shape "
                           f"{g.shape} on {g.device}, which would not fit t, "
                           f"{dtype_name(t.dtype)} of shape {t.shape} on {t.device}; clear "
                           "it first: p.grad = None (or optimizer.zero_grad())")


def array_like(t: Tensor, value: Any) -> Any:
    """``value`` (a Tensor, array or nested list) as a fresh array on t's device, in t's dtype."""
    if isinstance(value, Tensor):
        value = value.data if value.backend is t.backend else value.numpy()
    elif value is None or isinstance(value, (str, bytes)):
        raise TypeError("expected a Tensor, an array or a nested list")
    return t.backend.xp.asarray(t.backend.asarray(value, t.dtype), copy=True)


def to(module: Any, device: Any, dtype: Any) -> Any:
    """``module.to(device, dtype)``: each parameter (with its gradient) and buffer moved
    and cast, floating ones only; returns the module."""
    device, dtype = device_and_dtype(device, dtype)
    if dtype is not None and dtype_name(dtype) not in FLOAT_DTYPES:
        raise TypeError(f"{type(module).__name__}.to: parameters must stay floating point; "
                        f"got dtype {dtype_name(dtype)}, use one of {', '.join(FLOAT_DTYPES)}")
    for t in [*module.parameters(), *module.buffers()]:
        target = t.backend if device is None else get_backend(device)
        cast = dtype if dtype_name(t.dtype) in FLOAT_DTYPES else None
        grad, t.grad = t.grad, None
        t.data = _converted(t, target, cast)
        t.backend = target
        if grad is not None:
            t.grad = Tensor(_converted(grad, target, cast), _backend=target)
    return module


def _converted(t: Tensor, target: Any, dtype: Any) -> Any:
    """t's array on backend ``target``, cast to ``dtype`` if given (a new array)."""
    data = t.data if target is t.backend else target.from_numpy(t.numpy())
    if dtype is not None:
        data = target.xp.astype(data, target.dtype(dtype))
    return data


def zero_grads(params: Iterable[Tensor], set_to_none: bool = True) -> None:
    """Forget each parameter's gradient before the next backward: ``.grad = None``
    (PyTorch's default), or, with ``set_to_none=False``, zeros in the same ``.grad``
    Tensor (PyTorch writes them into its memory; here the Tensor gets a new zero array,
    so no array anyone else holds is written into). A ``.grad`` recorded by
    ``backward(create_graph=True)`` is detached first, as PyTorch's: else the next such
    backward would add into it, and its old graph into the new second derivatives."""
    for p in params:
        if p.grad is not None and not set_to_none:
            g = p.grad
            g.grad_fn, g._requires_grad = None, False       # PyTorch's grad.detach_()
            g.data = p.backend.xp.zeros_like(g.data)
        else:
            p.grad = None
