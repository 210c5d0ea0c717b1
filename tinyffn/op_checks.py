"""What a Function's forward and backward hand back, checked before the engine uses it.

A Function is free code, the user's as much as the library's: its forward may return a
NumPy scalar (NumPy's reductions do) or, by mistake, a Tensor; its backward may return
too few gradients, or a gradient of the output's shape where the forward broadcast the
input. :mod:`tinyffn.autograd` calls the two functions here right after ``forward`` and
``backward``, so such a mistake is an error that names the op and says what to return,
not a failure deep inside NumPy or a ``.grad`` of the wrong shape. The gradient a user
hands ``backward`` for the root (``y.backward(g)``) is checked here too (:func:`root_grad`).
"""
from __future__ import annotations

import inspect
import math
import types
from typing import Any

from .backend import check_one_device
from .grad_mode import STATE, check_finite
from .node import Context
from . import autograd, tensor as _tensor  # used at call time only (both import this)

__all__ = ["forward_array", "checked_grads"]

_SUM_BACK = ("; forward broadcast it: sum the gradient back to its shape with "
             "tinyffn.ops.sum_to_shape(ctx.xp, g, ctx.input_shapes[{}])")


def forward_array(fn: type, y: Any, backend: Any) -> Any:
    """``fn.forward``'s result as an array of ``backend``: NumPy's reductions return a
    NumPy scalar, which becomes a 0-d array. Anything else is a mistake in the op."""
    if isinstance(y, _tensor.Tensor):
        raise TypeError(f"{fn.op_name()}.forward returned a Tensor; forward computes on the "
                        "raw arrays it is given, with ctx.xp, and returns an array (return "
                        "y.data, or move the Tensor arithmetic out of forward). If an input's "
                        ".data was set to a Tensor (x.data = t: a Parameter takes one, other "
                        "tensors an array), set it to an array: x.data = t.data")
    if not (hasattr(y, "dtype") and hasattr(y, "shape")):
        raise TypeError(f"{fn.op_name()}.forward returned a {type(y).__name__}; it must "
                        "return one array (ctx.xp.asarray(...) makes one)")
    return backend.xp.asarray(y)


def checked_grads(ctx: "autograd.Context", grads: Any) -> tuple:
    """``ctx.fn.backward``'s result as one gradient per input, each of its input's shape,
    None where ``needs_input_grad`` is False. An op may mix dtypes (float64 data @ float32
    weight); as in PyTorch, each gradient is cast to its input's dtype, so a float32
    parameter never receives a float64 ``.grad``."""
    if not isinstance(grads, tuple):    # one_per_input, written out: this runs per node
        grads = (grads,)
    parents = ctx.parents
    if len(grads) != len(parents):
        one_per_input(ctx, grads)       # raises, saying so
    checked = []
    for i, g in enumerate(grads):
        if g is None or not ctx.needs_input_grad[i]:    # a lazy backward's extra: dropped
            checked.append(None)
            continue
        if not isinstance(g, ctx.backend.array_type):
            g = _backward_array(ctx, i, g)
        # autograd.shape_and_dtype(parent), written out: this runs for every gradient
        parent = parents[i]
        if isinstance(parent, Context):
            shape, dtype = parent.out_shape, parent.out_dtype
        else:
            shape, dtype = parent.data.shape, parent.data.dtype
        if g.shape != shape:
            check_grad_shape(ctx, i, g.shape, shape)
        if g.dtype is not dtype and g.dtype != dtype:   # `is`: NumPy's dtypes are shared
            g = ctx.xp.astype(g, dtype)
        if STATE.anomaly:
            check_finite(ctx, g, f"backward produced (gradient of input {i})")
        checked.append(g)
    return tuple(checked)


def summed(backend: Any, a: Any, b: Any) -> Any:
    """a + b, two gradients of one tensor. NumPy adds two 0-d arrays into a scalar
    (``np.float64``), made a 0-d array again: every gradient is an array (or, under
    create_graph, a Tensor), which backwards, hooks and ``.grad.data`` rely on."""
    s = a + b
    if s.shape or isinstance(s, (backend.array_type, _tensor.Tensor)):
        return s
    return backend.xp.asarray(s)


def one_per_input(ctx: "autograd.Context", grads: Any) -> tuple:
    """A backward's result as a tuple of one gradient per input, or an error saying so."""
    if not isinstance(grads, tuple):
        grads = (grads,)
    if len(grads) != len(ctx.parents):
        raise RuntimeError(f"{ctx.fn.op_name()}.backward returned {len(grads)} gradients for "
                           f"{len(ctx.parents)} inputs; return one per input (None where unused)")
    return grads


def check_grad_shape(ctx: "autograd.Context", i: int, g_shape: tuple, shape: tuple) -> None:
    """Refuse a gradient of input i whose shape is not the input's."""
    if tuple(g_shape) != tuple(shape):
        raise RuntimeError(
            f"{ctx.fn.op_name()}.backward: gradient of input {i} has shape "
            f"{tuple(g_shape)} but the input has shape {tuple(shape)}"
            + (_SUM_BACK.format(i) if _broadcasts_to(shape, g_shape) else ""))


def array_method_error(fn: type, e: AttributeError) -> AttributeError:
    """``e``, raised inside ``fn.forward``, with a hint where a Tensor method was called on
    a raw array (``x.exp()`` for ``ctx.xp.exp(x)``); other AttributeErrors as they are."""
    obj = getattr(e, "obj", None)       # what the attribute was looked up on: an array?
    if type(e) is not AttributeError or isinstance(obj, (_tensor.Tensor, types.ModuleType, type)) \
            or not (hasattr(obj, "dtype") and hasattr(obj, "shape")):
        return e
    return AttributeError(f"{fn.op_name()}.forward: {e}. forward computes on the raw arrays it "
                          "is given, not Tensors: write ctx.xp.exp(x) for x.exp(), and "
                          "ctx.xp.sum(x, axis=0) for x.sum(0)")


def attrs_key_error(ctx: "autograd.Context", e: KeyError) -> KeyError:
    """``e``, raised inside a backward, with a hint where it is a setting missing from
    ``ctx.attrs`` that forward took by position: a name the attrs lack that is a parameter
    of forward (``forward(ctx, x, alpha)``); other KeyErrors as they are."""
    key = e.args[0] if e.args else None
    if type(e) is not KeyError or not isinstance(key, str) or key in ctx.attrs:
        return e
    try:
        parameters = inspect.signature(ctx.fn.forward).parameters
    except (TypeError, ValueError):     # a forward without a signature Python can read
        return e
    if key not in parameters:
        return e
    name = ctx.fn.__name__
    return KeyError(f"{ctx.fn.op_name()}.backward: {key!r} is not in ctx.attrs, which holds "
                    f"the keyword arguments of apply ({dict(ctx.attrs)}); pass settings by "
                    f"keyword, {name}.apply(x, {key}=...): a number given by position is an "
                    "input of the op, as the 2 in x * 2")


def _backward_array(ctx: "autograd.Context", i: int, g: Any) -> Any:
    """A gradient that is not an array of the backend: NumPy's 0-d results are scalars,
    which become 0-d arrays; anything else is a mistake in the op's backward."""
    if isinstance(g, _tensor.Tensor) or not (hasattr(g, "dtype") and hasattr(g, "shape")):
        raise TypeError(f"{ctx.fn.op_name()}.backward returned a {type(g).__name__} as the "
                        f"gradient of input {i}; return one array per input, computed from gy "
                        "with ctx.xp (None where no gradient is needed)")
    return ctx.xp.asarray(g)


def _broadcasts_to(shape: tuple, target: tuple) -> bool:
    return len(shape) <= len(target) and all(n in (1, m) for n, m in zip(shape[::-1], target[::-1]))


def root_grad(root: "_tensor.Tensor", grad: Any, op: str) -> Any:
    """dL/d(root), an array of root's dtype: ``grad`` checked, or ones for one element."""
    name = "grad" if op == "backward" else "grad_output"
    if not root.requires_grad:
        raise RuntimeError(f"{op}: this tensor does not require grad and has no grad_fn; "
                           "create the leaves with requires_grad=True. To differentiate "
                           "a gradient again, pass create_graph=True to the call that made "
                           "it; a gradient from create_graph=True has none where it depends "
                           "on no tensor that requires grad (the gradient of a linear or "
                           "piecewise-linear function): its own derivative is 0, where "
                           "PyTorch may return zeros")
    if grad is None:
        if math.prod(root.shape) != 1:
            raise RuntimeError(f"{op}: dL/d(output) is implied only for an output of one "
                               f"element, not of shape {tuple(root.shape)}; pass "
                               f"{name}=<tensor of that shape>, or reduce it first (.sum())")
        return root.backend.xp.ones(root.shape, dtype=root.data.dtype)
    if isinstance(grad, _tensor.Tensor):
        check_one_device(op, f"the output and its {name}", root, grad)
    g = grad.data if isinstance(grad, _tensor.Tensor) else root.backend.asarray(grad)
    if tuple(g.shape) != tuple(root.shape):
        raise RuntimeError(f"{op}: {name} has shape {tuple(g.shape)} but the output has "
                           f"shape {tuple(root.shape)}; they must match")
    return root.backend.xp.astype(g, root.data.dtype) if g.dtype != root.data.dtype else g
