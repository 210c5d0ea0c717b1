"""How the drawer and the stepper speak of a graph: the same words in a picture and a sentence.

The dotted name of each module and parameter (``w1.weight``), a module call's label
(``w1: Linear``), an op's settings (``axes=(1, 0)``, ``p=2``), an array's values as text
(the numbers, or the norm of a large one), which leaves are shown as their value (the 2 in
``x * 2``), and the axes an op's backward sums over to give an input its gradient (the
``Σ over axes (0,)`` of a bias).
:mod:`tinyffn.graphviz` draws with these, :mod:`tinyffn.stepper` writes with them.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import grad_mode
from .autograd import Context
from .backend import backend_of_array, dtype_name
from .ops import Add, BroadcastTo, Div, Linear, MatMul, Maximum, Mul, Sub, Where
from .ops.activations import SQRT_2
from .ops.shape import broadcast_axes, key_text

# Ops whose backward sums the gradient over broadcast axes (``sum_to_shape``); MatMul
# over broadcast batch axes, and the fused Linear its bias over positions, see summed_axes.
BROADCASTING_OPS = (Add, Sub, Mul, Div, Maximum, Where, BroadcastTo, MatMul, Linear)
# Ops whose inputs can be swapped without changing the output or the gradients.
COMMUTATIVE_OPS = (Add, Mul, Maximum)
MAX_SHOWN_VALUES = 8        # larger tensors show their norm instead of their numbers
# A constant written as its symbol where it equals it in its own dtype: the exact GELU's
# x / √2 (functional.gelu) was drawn x / 1.414. Every other constant shows its number.
NAMED_CONSTANTS = {"√2": SQRT_2}


def graph_names(vertices: list) -> dict:
    """id() of each module, parameter and buffer met in the graph -> its dotted path
    (``w1.weight``, ``norm.running_mean``).

    Paths are taken from the outermost module among each op's scopes, by its
    ``named_modules()`` and ``named_parameters()``; that module itself gets "". A module
    also called on its own (``ffn.w1(x)`` beside ``ffn(x)``) keeps its path in the one
    that holds it (``w1``). When the graph holds several outermost modules, their paths
    start with the class name (and their position among them, where two share a class:
    ``FFN0.w1.weight``).
    """
    tops = []
    for v in vertices:
        scopes = v.scope if isinstance(v, Context) else ()
        top = next((s.obj for s in scopes if s.kind == "module"), None)
        if top is not None and all(top is not m for m in tops):
            tops.append(top)
    inside = {id(sub) for m in tops if hasattr(m, "named_modules")
              for path, sub in m.named_modules() if path}
    outermost = [m for m in tops if id(m) not in inside]
    classes = [type(m).__name__ for m in outermost]
    names = {}
    for i, module in enumerate(outermost):
        if not hasattr(module, "named_parameters"):    # a scope object that is no Module
            continue
        head = "" if len(outermost) == 1 else \
            classes[i] if classes.count(classes[i]) == 1 else f"{classes[i]}{i}"
        for path, obj in [*module.named_modules(), *module.named_parameters(),
                          *module.named_buffers()]:
            names.setdefault(id(obj), ".".join(p for p in (head, path) if p))
    return names


def scope_label(scope: grad_mode.Scope, names: dict) -> str:
    """``w1: Linear`` for a submodule, ``FFN`` for the outermost, ``gelu`` for a function."""
    path = names.get(id(scope.obj), "") if scope.kind == "module" else ""
    return f"{path}: {scope.name}" if path else scope.name


def op_settings(ctx: Context) -> list:
    """The op's attributes that are set, as ``key=value`` (``axes=(1, 0)``, ``p=2``), each
    cut to 24 characters: the lines under the op's name in a drawing, and after it in a step."""
    settings = []
    for key, value in ctx.attrs.items():
        if value is not None and value is not False:
            text = dtype_name(value) if key == "dtype" else \
                f"[{key_text(value, short=True)}]" if key == "key" else repr(value)
            settings.append(f"{key}={text if len(text) <= 24 else text[:21] + '...'}")
    return settings


def inputs_ordered(ctx: Context) -> bool:
    """Does the order of the op's inputs matter (x - w, x @ w, cat, where)? Then a drawing
    numbers the edges into it 0, 1, ..., as the stepper numbers the inputs; an op with one
    input, or a commutative one (add, mul, maximum), needs no numbers."""
    return len(ctx.parents) > 1 and not issubclass(ctx.fn, COMMUTATIVE_OPS)


def format_values(array: Any) -> str:
    """The numbers of a small array (``[1, 0.5]``), or the norm of a large one."""
    a = backend_of_array(array).to_numpy(array)
    if a.size > MAX_SHOWN_VALUES:
        return f"norm {float(np.linalg.norm(a.astype(np.float64))):.4g}"
    return _nested(a)


def _nested(a: np.ndarray) -> str:
    if a.ndim == 0:
        v = float(a)
        if v.is_integer() and abs(v) < 1e15:
            return str(int(v))          # a count or an integer value: every digit
        return f"{v:.4g}"               # 4 significant digits: a gradient of 2e-05 is not 0
    return "[" + ", ".join(_nested(row) for row in a) + "]"


def constant_text(t: Any) -> str:
    """A constant (:func:`is_constant`) as a drawing and a step write it: its symbol from
    :data:`NAMED_CONSTANTS` where its value is that number rounded to its dtype (GELU's
    √2, float32 1.4142135), else its number (``format_values``)."""
    a = backend_of_array(t.data).to_numpy(t.data)
    for symbol, value in NAMED_CONSTANTS.items():
        if a.dtype.kind == "f" and a == np.asarray(value).astype(a.dtype):
            return symbol
    return format_values(t.data)


def is_constant(t: Any) -> bool:
    """A leaf shown as its value, in drawings and in the stepper's words: 0-d, needing no
    gradient, unnamed (the 2 in ``x * 2``, or a ``tensor(2.0)``)."""
    return t.ndim == 0 and not t.requires_grad and t.name is None


def summed_axes(ctx: Context, i: int) -> tuple:
    """The axes that ``ctx``'s backward sums over to give its input ``i`` a gradient, if any.

    A broadcasting op computes the gradient at its output's shape and sums it back to
    each input's shape (``sum_to_shape``): a (d_ff,) bias added to (T, d_ff) gets (0,).
    A matmul sums over the batch axes its input was broadcast along ((B, T, d) @ (d, n):
    the weight's gradient over axis 0); the fused Linear sums as the composed one does.
    """
    if not (ctx.needs_input_grad[i] and issubclass(ctx.fn, BROADCASTING_OPS)):
        return ()
    own, out = tuple(ctx.input_shapes[i]), tuple(ctx.out_shape)
    if ctx.fn is MatMul:                # compare batch axes: out less its matrix axes
        n_matrix_axes = sum(len(s) > 1 for s in ctx.input_shapes)
        own, out = own[:-2], out[:len(out) - n_matrix_axes]
    elif ctx.fn is Linear and i < 2:    # as x @ w.T: the weight is summed over batch axes
        own, out = (own, own) if i == 0 else ((), out[:-2])
    return () if own == out else broadcast_axes(own, out)
