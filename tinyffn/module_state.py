"""What ``Module.load_state_dict`` and ``Module.to`` do to a module's tensors (and what
``p.data = t`` checks).

:class:`tinyffn.module.Module` keeps these methods, with their docstrings; their bodies
are here, so that module.py reads as the tree of modules, parameters and buffers and how
calling a module runs. Both work on the tensors in place: each Parameter and buffer stays
the same object (an optimizer built on the parameters still holds them) and gets a new
array, as ``x -= y`` does under ``no_grad``. ``array_like`` is also how an optimizer loads
its saved state.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from .backend import FLOAT_DTYPES, device_and_dtype, dtype_name, get_backend
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


def load_state_dict(module: Any, state_dict: Mapping, strict: bool) -> IncompatibleKeys:
    """``module.load_state_dict(state_dict, strict)``: check every value first, then copy
    them all, so that an error changes nothing."""
    owner = f"{type(module).__name__}.load_state_dict"
    if not isinstance(state_dict, Mapping):
        raise TypeError(f"{owner}: expected a dict of name -> values (as state_dict() "
                        f"returns), got {type(state_dict).__name__}")
    tensors = dict(module._state_tensors())
    missing = [name for name in tensors if name not in state_dict]
    unexpected = [name for name in state_dict if name not in tensors]
    arrays, problems = {}, []
    for name, t in tensors.items():
        if name in state_dict:
            try:
                arrays[name] = array_like(t, state_dict[name])
            except (TypeError, ValueError) as e:
                problems.append(f"{name}: {type(state_dict[name]).__name__} is not an "
                                f"array of numbers ({e})")
                continue
            if tuple(arrays[name].shape) != t.shape:
                problems.append(f"size mismatch for {name}: the checkpoint has shape "
                                f"{tuple(arrays[name].shape)}, the model has {t.shape}")
    key_problems = strict and bool(missing or unexpected)
    if strict and missing:
        problems.append("missing key(s): " + ", ".join(missing))
    if strict and unexpected:
        problems.append("unexpected key(s): " + ", ".join(unexpected))
    if problems:
        raise RuntimeError(
            f"{owner}: the state does not fit this {type(module).__name__}:\n  "
            + "\n  ".join(problems) + "\n  (its keys are: " + ", ".join(tensors) + "; "
            "a state saved from a model built differently, e.g. another d_model or "
            "bias=False, does not fit"
            + ("; pass strict=False to skip missing/unexpected keys)" if key_problems else ")"))
    for name, array in arrays.items():
        tensors[name].data = array
    return IncompatibleKeys(missing, unexpected)


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
