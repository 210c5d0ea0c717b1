"""``torch.func``'s ``functional_call``: run a module with other tensors as its parameters.

MAML and other meta-learning code takes one inner SGD step with ``create_graph=True`` and
then runs the model with the *updated* weights, which are not Parameters but tensors on a
graph back to the originals::

    params = dict(model.named_parameters())
    grads = tinyffn.grad(inner_loss, list(params.values()), create_graph=True)
    fast = {n: p - lr * g for (n, p), g in zip(params.items(), grads)}
    outer_loss = loss_fn(tinyffn.func.functional_call(model, fast, (x,)), y)
    outer_loss.backward()            # through the inner step, into model's parameters

For the call only, each named attribute (``"fc1.weight"``, a buffer such as
``"norm.running_mean"`` too) is the given tensor; afterwards the module's own Parameters are
back, unchanged. As in PyTorch (``tie_weights=True``), a Parameter the module holds under
two names is replaced under both when either is given. Unlike PyTorch, which ignores them, a
name the module has no parameter or buffer for is an error: it is nearly always a typo,
and ignoring it would leave the module's own weight in the call.

The rest of ``torch.func`` (``grad``, ``vmap``, ``jacrev``, ...) is function transforms;
tinyffn has none: ``tinyffn.autograd.functional`` computes the same Jacobians, Hessians and
products on ordinary functions.
"""
from __future__ import annotations

from typing import Any

from .arguments import type_name
from .module import Module
from .tensor import Tensor

__all__ = ["functional_call"]


def functional_call(module: Module, parameter_and_buffer_dicts: Any, args: Any = None,
                    kwargs: Any = None, *, tie_weights: bool = True,
                    strict: bool = False) -> Any:
    """``module(*args, **kwargs)`` with the parameters and buffers named in
    ``parameter_and_buffer_dicts`` (a dict name -> Tensor, or a tuple of such dicts with no
    name twice) in place of the module's own, as ``torch.func.functional_call``. ``args``
    is a tuple of positional arguments, or one argument that is not a tuple. With
    ``strict=True`` every parameter and buffer must be given (a RuntimeError names the
    missing ones, as PyTorch's). Returns what the module
    returns; the module is left as it was, even if the call raises."""
    op = "functional_call"
    if not isinstance(module, Module):
        raise TypeError(f"{op}: module must be an nn.Module, got {type_name(module)}")
    given = _merged(op, parameter_and_buffer_dicts)
    owners = _owners(module)
    unknown = [name for name in given if name not in owners]
    if unknown:
        raise KeyError(f"{op}: {type(module).__name__} has no parameter or buffer named "
                       f"{', '.join(map(repr, unknown))}; its names are those of "
                       f"named_parameters() and named_buffers(): {', '.join(owners)}")
    if strict:
        missing = [name for name in owners if name not in given]
        if missing:
            raise RuntimeError(f"{op}: strict=True, but no tensor was given for "
                           f"{', '.join(map(repr, missing))}")
    if tie_weights:                 # a Parameter under two names follows whichever is given
        by_id = {id(owners[name][2]): value for name, value in given.items()}
        given = {name: given.get(name, by_id.get(id(original)))
                 for name, (_, _, original) in owners.items()
                 if name in given or id(original) in by_id}
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    swapped = []
    try:
        for name, value in given.items():
            holder, attribute, original = owners[name]
            vars(holder)[attribute] = value          # past __setattr__: no renaming
            swapped.append((holder, attribute, original))
        return module(*args, **(kwargs or {}))
    finally:
        for holder, attribute, original in reversed(swapped):
            vars(holder)[attribute] = original


def _merged(op: str, dicts: Any) -> dict:
    """One dict name -> Tensor from a dict or a tuple of dicts; a name in two is an error."""
    dicts = dicts if isinstance(dicts, (tuple, list)) else (dicts,)
    merged: dict = {}
    for d in dicts:
        if not isinstance(d, dict):
            raise TypeError(f"{op}: parameter_and_buffer_dicts must be a dict name -> Tensor "
                            f"or a tuple of such dicts, got {type_name(d)}")
        for name, value in d.items():
            if name in merged:
                raise ValueError(f"{op}: {name!r} appears in more than one dict; give each "
                                 "name once")
            if not isinstance(value, Tensor):
                raise TypeError(f"{op}: {name!r} must be a tinyffn Tensor, got "
                                f"{type_name(value)}")
            merged[name] = value
    return merged


def _owners(module: Module) -> dict:
    """Dotted name -> (submodule holding it, attribute name, the tensor now there), for
    every parameter and buffer, tied ones under each of their names."""
    owners = {}
    for prefix, sub in module.named_modules(remove_duplicate=False):
        for what in (sub.named_parameters, sub.named_buffers):
            for attribute, t in what(recurse=False, remove_duplicate=False):
                owners[f"{prefix}.{attribute}" if prefix else attribute] = (sub, attribute, t)
    return owners
