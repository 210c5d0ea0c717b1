"""Hooks: functions of yours that the engine calls at fixed points, as PyTorch's do.

The kinds a learner reaches for to watch an FFN compute and learn without editing it:

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
* ``module.register_full_backward_pre_hook(fn)``: ``fn(module, grad_output)`` in backward,
  when dL/d(output) of a call arrives; ``module.register_full_backward_hook(fn)``:
  ``fn(module, grad_input, grad_output)`` once dL/d(input) of the call is computed (the
  gradient norm reaching each Linear of a deep stack). Each may return a tuple replacing
  what it got. They run as gradient hooks on identity views at the call's border
  (:class:`BackwardHook`).

Hooks run in the order they were registered (one registered with ``prepend=True``
first), each seeing the previous one's result; a forward hook registered
``with_kwargs=True`` sees the keyword arguments too, as PyTorch's.
Gradient hooks (backward hooks too) run with recording off (as in PyTorch without create_graph);
forward hooks run inside the module's frame, so what they compute is drawn there. Every
``register_*`` returns a :class:`RemovableHandle`: ``handle.remove()`` takes the hook
away, and ``with handle:`` removes it when the block ends.
"""
from __future__ import annotations

import itertools
import warnings
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
    recorded = isinstance(gy, _tensor.Tensor)   # create_graph: what the hook does is recorded
    with grad_mode.enable_grad() if recorded else grad_mode.no_grad():
        for fn in list(v._hooks.values()):      # a list: a hook may remove itself
            if isinstance(fn, _HookedView):     # a module's hooks: run_module_hooks
                continue
            g = _hook_argument(gy, v.backend)
            out = fn(g)
            if out is None:         # g, as the hook left it: g *= 0.5 gives g a new array
                out = g
            _check_gradient(f"register_hook: the hook {_name(fn)}", "or None to keep it",
                            out, shape, dtype, v.backend)
            gy = out if recorded else out.data
    return gy


def _hook_argument(gy: Any, backend: Any) -> Any:
    """The Tensor a hook gets for gradient ``gy``: a new one, so that ``g *= 0.5`` (which
    gives g a new array) changes what this hook returns alone. Under create_graph ``gy``
    is a Tensor that another input may hold too (add passes one gy to both of its inputs)
    or the caller's grad_output; one that requires grad is passed as it is (in place on it
    is refused, as it would not be recorded)."""
    if not isinstance(gy, _tensor.Tensor):
        return _tensor.Tensor(gy, _backend=backend)
    return gy if gy.requires_grad else _tensor.Tensor._wrap(gy.data, backend)


def _check_gradient(who: str, none_does: str, out: Any, shape: tuple, dtype: Any,
                    backend: Any) -> None:
    """Refuse a hook's result that cannot stand for a gradient of that shape and dtype."""
    if not isinstance(out, _tensor.Tensor):
        raise TypeError(f"{who} returned {type_name(out)}; return a Tensor to replace the "
                        f"gradient, {none_does}")
    if out.backend is not backend or out.shape != tuple(shape) or out.dtype != dtype:
        raise RuntimeError(
            f"{who} returned a {dtype_name(out.dtype)} tensor of shape {out.shape} on "
            f"{out.device}, but the gradient is {dtype_name(dtype)} of shape {tuple(shape)} "
            f"on {backend.device}; a hook may change a gradient's values, not its shape, "
            "dtype or device")


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


# ----------------------------------------------------------------------------- module backward hooks
def register_full_backward_pre_hook(module: Any, fn: Callable,
                                    prepend: bool = False) -> RemovableHandle:
    """``module.register_full_backward_pre_hook(fn)``: see :class:`BackwardHook`."""
    return _add(module, "_backward_pre_hooks", fn, f"{type(module).__name__}."
                "register_full_backward_pre_hook", "fn(module, grad_output)", prepend=prepend)


def register_full_backward_hook(module: Any, fn: Callable,
                                prepend: bool = False) -> RemovableHandle:
    """``module.register_full_backward_hook(fn)``: see :class:`BackwardHook`."""
    return _add(module, "_backward_hooks", fn, f"{type(module).__name__}."
                "register_full_backward_hook", "fn(module, grad_input, grad_output)",
                prepend=prepend)


_DROPPED = object()      # a view's answer when a module's backward hook put None in its place


class BackwardHook:
    """The backward hooks of one call of a module (PyTorch's ``torch.utils.hooks.BackwardHook``).

    ``Module.__call__`` makes one when the module has backward hooks. Each hook needs a
    gradient that only this call of the module produces or receives, so the call puts an
    *identity view* at its border, as PyTorch does: ``t.reshape(t.shape)``, the Reshape
    primitive to the tensor's own shape, an op node that shares ``t``'s array.

    * ``setup_input_hook(args)``, before ``forward`` (if full hooks are registered): the
      positional argument that requires grad is replaced by its view. The gradient that
      reaches the view is dL/dx through this call alone, not through a residual path
      around it, and it is complete once every op of the call has run its backward.
    * ``setup_output_hook(y)``, after the forward hooks: the output (a Tensor, or a tensor
      in a tuple) is replaced by its view, which receives dL/d(output).

    The walk reaches the output view first: ``grad_output`` (one entry per output) goes
    through the pre-hooks, ``fn(module, grad_output)``, a tuple returned replacing it. Then
    the call's ops run their backward, and at the input view the hooks ``fn(module,
    grad_input, grad_output)`` run; a tuple returned replaces ``grad_input`` (one entry per
    positional argument). An entry is None for a non-tensor, a tensor that does not require
    grad, or an output nothing used; a hook that puts None where a gradient was drops it:
    nothing flows on from there. When no positional input requires grad, the hooks run at
    the output view with ``grad_input`` all None and may not replace it. The hooks are those
    registered when the module was called; a view's tensor hooks run before them, and its
    own gradient (``retain_grad()``, :func:`tinyffn.grad`) is the one before them (see
    :func:`run_module_hooks`). All as in PyTorch 2.13, except one limit: PyTorch passes all of a call's inputs through one
    node with many outputs, so its hooks see and can replace every gradient at one moment;
    tinyffn's nodes have one output each, so a call with hooks may have at most one output
    and (with full hooks) one positional input that require grad. More are refused when
    the module is called.
    """

    def __init__(self, module: Any):
        self.module = module
        # the hooks at call time, as PyTorch: a later (un)registration leaves this call alone
        self.hooks = list((module._backward_hooks or {}).values())
        self.pre_hooks = list((module._backward_pre_hooks or {}).values())
        self.n_inputs = self.n_outputs = 0
        self.input_index = self.output_index = None     # where the views stand
        self.grad_output = None      # from the output view to the input view, in backward

    def setup_input_hook(self, args: tuple) -> tuple:
        """``args`` with the positional input that requires grad replaced by its view."""
        self.n_inputs = len(args)
        i = self._watched(args, "positional input") if self.hooks else None
        if i is None:
            return args
        self.input_index = i
        return (*args[:i], self._view(args[i], "input"), *args[i + 1:])

    def setup_output_hook(self, y: Any) -> Any:
        """``y`` with its output that requires grad replaced by its view."""
        if not isinstance(y, (_tensor.Tensor, tuple)):
            warnings.warn(f"{type(self.module).__name__}: for backward hooks to be called, "
                          "the module's output should be a Tensor or a tuple of Tensors, "
                          f"but it is {type_name(y)}", stacklevel=3)
            return y
        outputs = (y,) if isinstance(y, _tensor.Tensor) else y
        self.n_outputs = len(outputs)
        i = self._watched(outputs, "output")
        if i is None:
            return y
        self.output_index = i
        if isinstance(y, _tensor.Tensor):
            return self._view(y, "output")
        items = [*y[:i], self._view(y[i], "output"), *y[i + 1:]]
        return tuple(items) if type(y) is tuple else type(y)(*items)     # a namedtuple too

    def _watched(self, values: tuple, what: str) -> int | None:
        """The position of the one tensor in ``values`` that requires grad, or None."""
        if not grad_mode.STATE.grad_enabled:
            return None
        found = [i for i, t in enumerate(values)
                 if isinstance(t, _tensor.Tensor) and t.requires_grad]
        if len(found) > 1:
            raise RuntimeError(
                f"{type(self.module).__name__}: {what}s {found} require grad, but with "
                f"backward hooks tinyffn watches one {what} per call (PyTorch any number: "
                "its hooks see all of them in one node with many outputs, tinyffn's nodes "
                "have one); detach() those that need no gradient, or watch each tensor with "
                "t.register_hook(fn) instead")
        return found[0] if found else None

    def _view(self, t: Any, side: str) -> Any:
        view = t.reshape(tuple(t.shape))         # the identity, sharing t's array
        _add(view.grad_fn, "_hooks", _HookedView(self, side), "", "")
        return view

    def output_reached(self, g: Any) -> Any:
        """At the output view: the pre-hooks, and the hooks too if no input is watched."""
        grad_output = tuple(g if i == self.output_index else None
                            for i in range(self.n_outputs))
        for fn in self.pre_hooks:
            out = fn(self.module, grad_output)
            if out is not None:
                grad_output = self._checked(fn, "pre-hook", out, "grad_output", g,
                                            self.output_index)
        if self.input_index is None:    # no positional input requires grad (or no hooks)
            for fn in self.hooks:
                out = fn(self.module, (None,) * self.n_inputs, grad_output)
                if out is not None and not (isinstance(out, tuple) and
                                            all(x is None for x in out)):
                    raise RuntimeError(
                        f"{type(self.module).__name__}: the backward hook {_name(fn)} "
                        "returned a gradient, but no positional input of the module "
                        "requires grad, so there is nothing to replace; return None (or "
                        "None for every entry), as PyTorch requires")
        else:
            self.grad_output = grad_output
        gy = grad_output[self.output_index]
        return _DROPPED if gy is None else gy

    def input_reached(self, g: Any) -> Any:
        """At the input view: the hooks, with ``grad_input`` and the saved ``grad_output``."""
        if self.grad_output is None:    # the gradient came without passing the output
            return None
        grad_input = tuple(g if i == self.input_index else None for i in range(self.n_inputs))
        for fn in self.hooks:
            out = fn(self.module, grad_input, self.grad_output)
            if out is not None:
                grad_input = self._checked(fn, "hook", out, "grad_input", g, self.input_index)
        self.grad_output = None
        gx = grad_input[self.input_index]
        return _DROPPED if gx is None else gx

    def _checked(self, fn: Callable, kind: str, out: Any, name: str, g: Any, i: int) -> tuple:
        """A hook's replacement ``name`` tuple: as long as before, entry i a gradient like g."""
        who = f"{type(self.module).__name__}: the backward {kind} {_name(fn)}"
        n = self.n_outputs if name == "grad_output" else self.n_inputs
        if not isinstance(out, (tuple, list)):
            raise TypeError(f"{who} returned {type_name(out)}; return None, or a tuple like "
                            f"{name} ({n} entries)")
        if len(out) != n:
            raise RuntimeError(f"{who} returned {len(out)} entries, but {name} has {n}; "
                               "return a tuple of the same length")
        if out[i] is not None:      # (the others go nowhere; PyTorch checks none)
            _check_gradient(f"{who}, in {name}[{i}],", "or None to drop it", out[i],
                            g.shape, g.dtype, g.backend)
        return tuple(out)


def run_module_hooks(v: Any, gy: Any) -> Any:
    """What op node ``v`` passes on to its input, given dL/d(its output) ``gy``: ``gy`` as
    the module's backward hooks leave it if ``v`` is a :class:`BackwardHook`'s view, None
    if they dropped it, else ``gy`` itself.

    Called by :func:`tinyffn.autograd.walk` after ``v``'s gradient hooks, and after
    ``retain_grad()`` and :func:`tinyffn.grad` took their copy: as in PyTorch, where these
    are hooks on the view's node, so the view's own gradient is the one before them.
    """
    recorded = isinstance(gy, _tensor.Tensor)   # create_graph: what the hooks do is recorded
    for fn in v._hooks.values():
        if isinstance(fn, _HookedView):
            with grad_mode.enable_grad() if recorded else grad_mode.no_grad():
                out = fn(_hook_argument(gy, v.backend))
            return None if out is _DROPPED else gy if out is None else \
                out if recorded else out.data
    return gy


class _HookedView:
    """The entry a :class:`BackwardHook` puts in its view's ``_hooks``."""

    def __init__(self, call: BackwardHook, side: str):
        self.call, self.side = call, side

    def __call__(self, g: Any) -> Any:
        reached = self.call.input_reached if self.side == "input" else self.call.output_reached
        return reached(g)


def hooked_view(node: Any) -> str | None:
    """The side, ``"input"`` or ``"output"``, when op node ``node`` is a view of a module's
    backward hooks (:class:`BackwardHook`), else None: drawings and the stepper say so."""
    return next((fn.side for fn in (node._hooks or {}).values()
                 if isinstance(fn, _HookedView)), None)
