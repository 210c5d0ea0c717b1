"""Hooks: functions of yours that the engine calls at fixed points, as PyTorch's do.

Three kinds, the ones a learner reaches for to watch an FFN compute and learn without
editing it:

* ``t.register_hook(fn)``, a gradient hook: during backward, once dL/dt is complete (every
  consumer of ``t`` has passed its share back), ``fn(grad)`` runs with it as a Tensor. If
  ``fn`` returns a Tensor, that replaces the gradient from there on (so does ``grad *=
  0.5`` inside ``fn``, as in PyTorch): it is what reaches ``t.grad`` (for a leaf or a
  ``retain_grad()`` tensor) and what the op that made ``t`` backpropagates. The hook is
  kept on the graph vertex standing for ``t`` (:func:`tinyffn.autograd.node_of`: the op
  node that made it, or ``t`` itself for a leaf), so a hook set on an activation inside a
  module's ``forward`` still runs after the Python name is gone.
* ``module.register_forward_pre_hook(fn)``: ``fn(module, args)`` before ``forward``; it
  may return new positional arguments (a tuple, or one value).
* ``module.register_forward_hook(fn)``: ``fn(module, args, output)`` after ``forward``;
  it may return a new output. ``ffn.act.register_forward_hook(...)`` sees the hidden
  activations σ(W1 x + b1), (T, d_ff): which "keys" of the FFN's memory fire.

Hooks run in the order they were registered (a forward hook registered with
``prepend=True`` first), each seeing the previous one's result; a forward hook registered
``with_kwargs=True`` sees the keyword arguments too, as PyTorch's.
Gradient hooks run with gradient recording off (as in PyTorch without create_graph);
forward hooks run inside the module's frame, so what they compute is drawn there. Every
``register_*`` returns a :class:`RemovableHandle`: ``handle.remove()`` takes the hook
away, and ``with handle:`` removes it when the block ends.
"""
from __future__ import annotations

import itertools
from typing import Any, Callable

from . import autograd, grad_mode
from . import tensor as _tensor
from .arguments import type_name
from .backend import dtype_name


class RemovableHandle:
    """What ``register_hook`` and the forward-hook registrations return.

    ``remove()`` takes the hook away (a second call does nothing); ``with handle:`` removes
    it when the block ends. ``id`` orders the hooks of one owner.
    """

    _ids = itertools.count()

    def __init__(self, hooks: dict):
        self.id = next(RemovableHandle._ids)
        self._hooks = hooks

    def remove(self) -> None:
        self._hooks.pop(self.id, None)

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.remove()


def _add(owner: Any, attr: str, fn: Callable, where: str, calls: str, entry: Any = None,
         prepend: bool = False) -> RemovableHandle:
    """Register ``fn`` in ``owner.<attr>`` (a dict made on first use, id -> ``entry``, the
    function unless given), last, or first with ``prepend``."""
    if not callable(fn):
        raise TypeError(f"{where}: the hook must be a function {calls}, got {type_name(fn)}")
    hooks = getattr(owner, attr)
    if hooks is None:
        hooks = {}
        object.__setattr__(owner, attr, hooks)
    handle = RemovableHandle(hooks)
    later = list(hooks.items()) if prepend else []
    for key, _ in later:                # the same dict (handles hold it), in a new order
        del hooks[key]
    hooks[handle.id] = fn if entry is None else entry
    hooks.update(later)
    return handle


# ----------------------------------------------------------------------------- gradients
def register_grad_hook(t: Any, fn: Callable) -> RemovableHandle:
    """``t.register_hook(fn)``: see the module docstring."""
    if not t.requires_grad:
        raise RuntimeError("register_hook: this tensor does not require grad, so backward "
                           "never computes its gradient; create it with requires_grad=True "
                           "(or call .requires_grad_()) before the forward pass")
    return _add(autograd.node_of(t), "_hooks", fn, "register_hook", "of the gradient, fn(grad)")


def run_grad_hooks(v: Any, gy: Any) -> Any:
    """dL/d(the tensor vertex ``v`` stands for), passed through ``v``'s gradient hooks.

    Called by :func:`tinyffn.autograd.walk` for a vertex with hooks, before the gradient
    is stored or backpropagated. A hook's result must be a Tensor of the gradient's
    shape, dtype and device, or None: then the gradient is its argument, which ``g *= 0.5``
    in the hook changes (an in-place update gives ``g`` a new array of its dtype).
    """
    shape, dtype = autograd.shape_and_dtype(v)
    with grad_mode.no_grad():
        for fn in list(v._hooks.values()):      # a list: a hook may remove itself
            g = _tensor.Tensor(gy, _backend=v.backend)
            out = fn(g)
            if out is None:         # g, as the hook left it: g *= 0.5 gives g a new array
                out = g
            if not isinstance(out, _tensor.Tensor):
                raise TypeError(f"register_hook: the hook {_name(fn)} returned "
                                f"{type_name(out)}; return a Tensor to replace the gradient, "
                                "or None to keep it")
            if out.backend is not v.backend or out.shape != tuple(shape) or out.dtype != dtype:
                raise RuntimeError(
                    f"register_hook: the hook {_name(fn)} returned a {dtype_name(out.dtype)} "
                    f"tensor of shape {out.shape} on {out.device}, but the gradient is "
                    f"{dtype_name(dtype)} of shape {tuple(shape)} on {v.backend.device}; a "
                    "hook may change a gradient's values, not its shape, dtype or device")
            gy = out.data
    return gy


def _name(fn: Callable) -> str:
    return repr(getattr(fn, "__qualname__", type(fn).__name__))


# ----------------------------------------------------------------------------- modules
def register_forward_pre_hook(module: Any, fn: Callable, prepend: bool = False,
                              with_kwargs: bool = False) -> RemovableHandle:
    """``module.register_forward_pre_hook(fn)``: see the module docstring. As in PyTorch,
    ``prepend`` runs it before the hooks already there, and ``with_kwargs`` calls
    ``fn(module, args, kwargs)``, which may return a new ``(args, kwargs)``."""
    calls = "fn(module, args, kwargs)" if with_kwargs else "fn(module, args)"
    return _add(module, "_forward_pre_hooks", fn, f"{type(module).__name__}."
                "register_forward_pre_hook", calls, (fn, bool(with_kwargs)), prepend)


def register_forward_hook(module: Any, fn: Callable, prepend: bool = False,
                          with_kwargs: bool = False) -> RemovableHandle:
    """``module.register_forward_hook(fn)``: see the module docstring; ``prepend`` and
    ``with_kwargs`` as for the pre-hook (``fn(module, args, kwargs, output)``)."""
    calls = "fn(module, args, kwargs, output)" if with_kwargs else "fn(module, args, output)"
    return _add(module, "_forward_hooks", fn, f"{type(module).__name__}."
                "register_forward_hook", calls, (fn, bool(with_kwargs)), prepend)


def run_forward_pre_hooks(module: Any, args: tuple, kwargs: dict) -> tuple:
    """``(args, kwargs)`` passed through the module's pre-hooks: a hook returning a tuple
    replaces the args, one returning another value replaces them with ``(value,)``, None
    keeps them; a ``with_kwargs`` hook returns None or a new ``(args, kwargs)``."""
    for fn, with_kwargs in list(module._forward_pre_hooks.values()):
        if not with_kwargs:
            out = fn(module, args)
            if out is not None:
                args = out if isinstance(out, tuple) else (out,)
            continue
        out = fn(module, args, kwargs)
        if out is not None:
            if not (isinstance(out, tuple) and len(out) == 2 and isinstance(out[1], dict)):
                raise RuntimeError(f"{type(module).__name__}: the forward pre-hook "
                                   f"{_name(fn)}, registered with_kwargs=True, returned "
                                   f"{type_name(out)}; return None or a tuple (args, kwargs)")
            args, kwargs = out
            args = args if isinstance(args, tuple) else (args,)
    return args, kwargs


def run_forward_hooks(module: Any, args: tuple, kwargs: dict, y: Any) -> Any:
    """``forward``'s output passed through the module's forward hooks (None keeps it)."""
    for fn, with_kwargs in list(module._forward_hooks.values()):
        out = fn(module, args, kwargs, y) if with_kwargs else fn(module, args, y)
        if out is not None:
            y = out
    return y
