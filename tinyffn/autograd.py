"""Reverse-mode automatic differentiation: ``Function``, its context, and the backward walk.

How a graph is built
--------------------
Every differentiable operation is a subclass of :class:`Function` with two static
methods side by side::

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):          # x: a raw array (NumPy, CuPy, ...)
            y = ctx.xp.exp(x)
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, gy):        # gy = dL/dy, same shape as y
            (y,) = ctx.saved_tensors
            return gy * y             # dL/dx = dL/dy * dy/dx = gy * exp(x)

``Exp.apply(t)`` unwraps the tensor ``t`` to its array, runs ``forward``, and wraps the
result in a new tensor ``y``. If any input requires a gradient, ``y`` keeps the context
(``y.grad_fn``, a :class:`Context`, defined in node.py): the graph's *node* for this op
call. A node links to its parents, one per input (``ctx.parents``): the node that made
that input, or the input tensor itself when it is a leaf (a parameter, the data, a
constant). That chain of references *is* the graph, as ``grad_fn.next_functions`` is in
PyTorch.

The graph links node to node, not tensor to tensor, and that matters for memory: an
intermediate result such as ``x @ W1.T`` is kept only by the variable that names it,
so once the forward pass moves on it is freed, unless its consumer saved it for
backward (``ctx.save_for_backward``). A node does not keep its inputs (their shapes
and dtypes it reads off its parents), and it keeps only a weak reference to its output
(``ctx.output``): the output tensor while anyone holds it, else None. Nothing points
back from an input to its consumers, so the graph holds no reference cycles and is
freed by reference counting alone.

How backward walks it
---------------------
``loss.backward()`` orders the graph topologically with an explicit stack, no recursion,
so a 100,000-op chain is fine. :func:`walk` then visits each vertex from ``loss`` back to
the leaves with a running total dL/dt per tensor t, and (steps numbered as in
docs/autograd.md §3 and in walk's comments) (1) pops the total, complete now, (2) runs
any hooks (:mod:`tinyffn.hooks`), (3) at a leaf adds it into ``.grad``, or at an op node
(4) calls ``backward`` with it, (5) adds each input's share to that input's total and
(6) frees the op's saved arrays. It pauses after each node: ``backward()`` runs it to the
end, :func:`tinyffn.stepper.iter_backward` hands each pause to a learner as a
``BackwardStep``, so stepping through it runs the very same code.
"""
from __future__ import annotations

import collections
import contextlib
import math
import types
import weakref
from typing import Any, Iterator

from .arguments import grad_inputs
from .backend import dtype_name
from . import hooks, op_checks, tensor as _tensor  # used at call time only (all import this)
# the graph's node, and how a leaf shows in next_functions, live in node.py
from .node import NO_ATTRS, AccumulateGrad, Context, node_of, shape_and_dtype
# The switches every op reads live in grad_mode.py; autograd's names too (torch.autograd.no_grad)
from .grad_mode import (STATE, AnomalyError, Scope, check_finite, detect_anomaly, enable_grad,
                        is_grad_enabled, keep_intermediates, no_grad, scope, set_detect_anomaly)

__all__ = [
    "Function", "Context", "AccumulateGrad", "NO_ATTRS", "node_of", "shape_and_dtype",
    "topological_order", "backward", "walk", "run_to_end", "grad", "refuse_bool",
    # from grad_mode.py
    "STATE", "AnomalyError", "Scope", "detect_anomaly", "enable_grad", "is_grad_enabled",
    "keep_intermediates", "no_grad", "scope", "set_detect_anomaly",
]


class Function:
    """Base class of every differentiable op, built-in or user-defined (PyTorch's style).

    Subclasses define two static methods:

    * ``forward(ctx, *xs, **attrs) -> y``: ``xs`` are raw arrays (one per tensor argument
      of ``apply``), ``attrs`` the keyword arguments; returns one array.
    * ``backward(ctx, gy) -> gx`` or ``(gx1, gx2, ...)``: one gradient per forward input,
      each of its input's shape, or None where ``ctx.needs_input_grad`` is False.

    and optionally ``flops(ctx, y) -> int``, the forward's floating-point operation count
    for :class:`tinyffn.FlopCounter` (default: one per output element), and
    ``backward_flops(ctx)``, the backward's (default: the forward's once per input that
    needs a gradient).

    Call ``MyOp.apply(*tensors, **attrs)``. Python numbers and arrays among the positional
    arguments become constant tensors on the first tensor's device: a number takes the
    tensor's dtype, an array with axes keeps its own (see :mod:`tinyffn.promotion`).

    An op with no meaning for bool operands (``x - mask``) sets ``bool_refused`` to its
    error message: promotion raises it before it would turn a bool into 0s and 1s, and
    the op's forward for operands that are all bool (:func:`refuse_bool`).

    An op whose backward can also run on tensors, recorded, sets ``twice_differentiable``:
    then ``create_graph=True`` differentiates its gradient again (:mod:`tinyffn.higher_order`
    says what that asks of the backward); other ops refuse create_graph, by name.
    """

    bool_refused: str | None = None
    twice_differentiable: bool = False

    @staticmethod
    def forward(ctx: Context, *xs: Any, **attrs: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError("a Function subclass must define forward(ctx, *xs)")

    @staticmethod
    def backward(ctx: Context, gy: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError("a Function subclass must define backward(ctx, gy)")

    @staticmethod
    def flops(ctx: Context, y: Any) -> int:
        return math.prod(y.shape)

    @classmethod
    def backward_flops(cls, ctx: Context) -> int:
        """Exact for matmul, whose two gradients are products of the forward's size, and
        the right order for elementwise ops; an op whose gradients cost differently (the
        fused Linear's bias gradient is a sum) says so by overriding this."""
        y = types.SimpleNamespace(shape=ctx.out_shape)     # the output is gone: its shape
        return cls.flops(ctx, y) * sum(ctx.needs_input_grad)

    @classmethod
    def op_name(cls) -> str:
        """The op's name in graphs, FLOP tables and errors: ``MatMul`` -> ``matmul``."""
        return cls.__name__.lower()

    @classmethod
    def apply(cls, *args: Any, **attrs: Any) -> "_tensor.Tensor":
        if STATE.autocast is not None:              # mixed precision: amp.py
            args = STATE.autocast(cls, args)
        inputs = _tensor.as_tensors(args, cls)      # numbers become constants; one device
        backend = inputs[0].backend
        ctx = Context(cls, inputs, backend, attrs)
        try:
            # one or two inputs spelled out, as in Context: a comprehension is a call
            if len(inputs) == 1:
                y = cls.forward(ctx, inputs[0].data, **attrs)
            elif len(inputs) == 2:
                y = cls.forward(ctx, inputs[0].data, inputs[1].data, **attrs)
            else:
                y = cls.forward(ctx, *[t.data for t in inputs], **attrs)
        except AttributeError as e:     # x.exp() on a raw array: say what to write
            raise op_checks.array_method_error(cls, e) from e
        if not isinstance(y, backend.array_type):
            y0, y = y, op_checks.forward_array(cls, y, backend)
            if ctx._saved:          # a NumPy scalar saved as the output: save the array
                ctx._saved = tuple([y if a is y0 else a for a in ctx._saved])
        ctx.out_shape, ctx.out_dtype = y.shape, y.dtype
        if STATE.anomaly:
            check_finite(ctx, y, "forward produced")
        if STATE.flop_counters:
            n = cls.flops(ctx, y)
            for counter in STATE.flop_counters:
                counter.add(cls.op_name(), "forward", n)
        # an integer or boolean result has no derivative: it starts no graph, as in PyTorch
        if STATE.grad_enabled and True in ctx.needs_input_grad and y.dtype in backend.float_dtypes:
            out = _tensor.Tensor._wrap(y, backend, True, ctx)
            ctx._output = weakref.ref(out)
            ctx._out_id = id(y)     # for create_graph: which saved array is y (higher_order.py)
            if STATE.kept is not None:
                STATE.kept.append(out)
            return out
        return _tensor.Tensor._wrap(y, backend)


# ----------------------------------------------------------------------------- the walk
def topological_order(root: "_tensor.Tensor", every_input: bool = False) -> list:
    """The vertices of ``root``'s graph, each after every vertex it depends on.

    A vertex is an op node (a :class:`Context`) or a leaf tensor (see :func:`node_of`);
    the last one stands for ``root``. Iterative depth-first search with an explicit stack;
    parents are visited in the order of the op's inputs, so the order is the same on every
    run. Only vertices that require grad are included, unless ``every_input``: then the
    leaves that need no gradient (data, constants such as the 2 in ``x * 2``) are too:
    backward skips them, the graph drawer shows them.
    """
    order, visited = [], set()
    stack = [(node_of(root), False)]
    while stack:
        v, parents_done = stack.pop()
        if parents_done:
            order.append(v)
            continue
        if id(v) in visited:
            continue
        visited.add(id(v))
        stack.append((v, True))
        if isinstance(v, Context):
            for parent, needs_grad in zip(reversed(v.parents), reversed(v.needs_input_grad)):
                if (every_input or needs_grad) and id(parent) not in visited:
                    stack.append((parent, False))
    return order


def backward(root: "_tensor.Tensor", grad: Any = None, retain_graph: bool | None = None,
             inputs: Any = None, create_graph: bool = False) -> None:
    """``root.backward(grad, retain_graph)``: :func:`walk`, run to the end (steps not held).
    With ``inputs`` (PyTorch's), only those tensors' ``.grad`` accumulate: :func:`grad`'s walk.
    With ``create_graph`` the gradients are recorded too (:mod:`tinyffn.higher_order`), and
    ``retain_graph`` defaults to True, as in PyTorch."""
    if not isinstance(root, _tensor.Tensor):    # torch.autograd.backward([y1, y2], [g1, g2])
        root, grad = higher_order.one_root("backward", root, grad)
    retain_graph = create_graph if retain_graph is None else retain_graph
    captured = None
    if inputs is not None:
        inputs = {id(t): t for t in grad_inputs("backward", inputs)}.values()  # each once
        captured = {id(node_of(t)): None for t in inputs}
        checked = op_checks.root_grad(root, grad, "backward")   # named so in its errors
        grad = grad if create_graph and isinstance(grad, _tensor.Tensor) else checked
    with enable_grad() if create_graph else contextlib.nullcontext():
        run_to_end(walk(root, grad, retain_graph, capture=captured, create_graph=create_graph))
        for t in inputs or ():
            g = captured[id(node_of(t))]
            if g is not None:            # None: root does not depend on t, whose .grad stays
                t._accumulate_grad(g)


def walk(root: "_tensor.Tensor", grad: Any = None, retain_graph: bool = False,
         capture: dict | None = None, hold_steps: bool = False,
         create_graph: bool = False) -> Iterator[tuple]:
    """The backward walk itself, yielding ``(node, gy, grads)`` after each op node.

    ``stepper.iter_backward`` dresses each step as a ``BackwardStep``; :func:`backward`
    and :func:`grad` run it to the end, making no step objects. The arguments are
    ``iter_backward``'s, and ``hold_steps``:

    * False (``backward``, ``grad``): each step is handed out as soon as its node has run.
      The leaves after the last node are stored once the walk is resumed past it.
    * True (``iter_backward``, for a learner): a step is held until the leaves right after
      its node are stored, so when the last step arrives every ``.grad`` is complete. A
      held step keeps its node's gradients alive while those leaves copy theirs, which
      would raise the peak memory of a plain ``backward()`` (by a third for one Linear
      whose input needs a gradient), hence not the default.

    ``create_graph`` (``backward``, ``grad``) makes every gradient a Tensor whose ops are
    recorded: the same steps, each node's backward run by
    :func:`tinyffn.higher_order.recorded_backward`.
    """
    gy = op_checks.root_grad(root, grad, "backward" if capture is None else "grad")
    if create_graph:                 # gradients are tensors, their ops recorded
        gy = higher_order.root_gradient(root, grad, gy)
    order = topological_order(root)
    totals = {id(order[-1]): gy}     # id(vertex) -> dL/d(its tensor) summed over consumers
    needed = None                    # grad(): the vertices a captured one can be reached from
    if capture is not None:          # (parents come first): no other node runs, as in PyTorch
        needed = set()
        for v in order:
            if id(v) in capture or isinstance(v, Context) and any(id(p) in needed
                                                                  for p in v.parents):
                needed.add(id(v))
    step = None                      # the last op node's (node, gy, grads), not yet handed out
    # (1)-(6): the steps of docs/autograd.md §3; the rest serves grad(), retain_grad(), stepper
    for v in reversed(order):
        gy = totals.pop(id(v), None)     # (1) dL/d(v's tensor), complete: its consumers ran
        if gy is None:               # its consumers' backwards returned None for it (zero)
            continue
        if v._hooks:                 # (2) t.register_hook(fn) on the tensor v stands for
            gy = hooks.run_grad_hooks(v, gy)
        if capture is not None and id(v) in capture:    # grad(): kept here, not in .grad
            capture[id(v)] = gy
        if not isinstance(v, Context):           # (3) a leaf tensor: into its .grad,
            if capture is None and v._requires_grad:    # unless frozen since (as PyTorch)
                v._accumulate_grad(gy)
            continue
        if needed is not None and not any(id(p) in needed for p in v.parents):
            continue                 # grad(): nothing asked for lies below v
        if step is not None:         # hold_steps: the last node's leaves are stored now
            yield step
            step = None
        if capture is None and v._output is not None:   # retain_grad() on the op's output
            out = v._output()        # v.output, without a property call per node
            if out is not None and out._retains_grad:
                out._accumulate_grad(gy)
        if v._hooks:                 # (2) a module's backward hooks, if v is one's view
            gy = hooks.run_module_hooks(v, gy)
            if gy is None:           # they dropped it
                continue
        grads = _call_backward(v, gy) if not create_graph else \
            higher_order.recorded_backward(v, gy)   # (4) the op's backward: dL/d(each input)
        for parent, gx in zip(v.parents, grads):     # (5) add each input's share
            if gx is not None and (needed is None or id(parent) in needed):
                key = id(parent)
                totals[key] = gx if key not in totals else \
                    op_checks.summed(v.backend, totals[key], gx)
        if not retain_graph:         # (6) free the op's saved arrays
            v.release()
        if hold_steps:
            step = (v, gy, grads)
        else:
            yield v, gy, grads
        # drop this step's references: totals holds every gradient still needed, so each
        # array is freed once its last consumer has run (a leaf's grad, once copied)
        gy = grads = gx = None
    if step is not None:
        yield step


def run_to_end(steps: Iterator) -> None:
    """Run a backward walk, dropping each step as soon as it is made: a step holds the
    gradients of its node, which would otherwise stay alive while the next node runs."""
    collections.deque(steps, maxlen=0)


def refuse_bool(fn: type, x: Any, backend: Any) -> None:
    """Raise ``fn.bool_refused`` if the array ``x`` is bool (costs one hash for a float)."""
    if x.dtype not in backend.float_dtypes and dtype_name(x.dtype) == "bool":
        raise TypeError(fn.bool_refused)


def _call_backward(ctx: Context, gy: Any) -> tuple:
    """Run one node's backward: one gradient per input, each of its input's shape and
    dtype, None where ``needs_input_grad`` is False (checked in :mod:`tinyffn.op_checks`)."""
    try:
        grads = op_checks.checked_grads(ctx, ctx.fn.backward(ctx, gy))
    except KeyError as e:               # ctx.attrs["alpha"], alpha given by position
        raise op_checks.attrs_key_error(ctx, e) from e
    if STATE.flop_counters:
        n = ctx.fn.backward_flops(ctx)
        for counter in STATE.flop_counters:
            counter.add(ctx.fn.op_name(), "backward", n)
    return grads


def __getattr__(name: str) -> Any:
    """``gradcheck``, ``gradgradcheck`` and ``functional``, as torch.autograd's: imported
    when asked for (they import this module)."""
    if name in ("gradcheck", "gradgradcheck"):
        from .gradcheck import gradcheck, gradgradcheck
        return gradcheck if name == "gradcheck" else gradgradcheck
    if name == "functional":
        from . import autograd_functional as functional
        return functional
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# torch.autograd.grad, and the backward run under create_graph: they need the above
from . import higher_order  # noqa: E402
from .higher_order import grad  # noqa: E402
