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
(``y.grad_fn``), and the context keeps the input tensors (``ctx.inputs``): that chain of
references *is* the graph. Nothing points back from an input to its consumers, so the
graph holds no reference cycles and is freed by reference counting alone.

How backward walks it
---------------------
``loss.backward()`` (1) orders the graph topologically with an explicit stack, no
recursion, so a 100,000-op chain is fine, (2) visits the nodes from ``loss`` back to the
leaves, calling each ``backward`` with the gradient accumulated for its output, (3) adds
the gradients returned for each input into a running total, freeing each total as soon
as it has been consumed, and (4) stores the totals of leaf tensors in ``.grad``.
:func:`iter_backward` is that walk as a generator, one step per node, so a learner can
step through it; ``backward()`` simply runs it to the end.
"""
from __future__ import annotations

import collections
import contextlib
import math
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

from . import backend as _backend
from . import tensor as _tensor  # Tensor is defined there; used at call time only


class _State:
    """Process-wide switches. One instance; read on every op, so kept as plain attributes."""

    def __init__(self):
        self.grad_enabled = True
        self.anomaly = False
        self.scope: tuple = ()          # enclosing module / composed-function calls
        self.flop_counters: list = []   # active FlopCounters, innermost last


STATE = _State()


# ----------------------------------------------------------------------------- modes
@contextlib.contextmanager
def no_grad() -> Iterator[None]:
    """Run ops without recording a graph (as ``torch.no_grad``): for evaluation and updates."""
    previous, STATE.grad_enabled = STATE.grad_enabled, False
    try:
        yield
    finally:
        STATE.grad_enabled = previous


@contextlib.contextmanager
def enable_grad() -> Iterator[None]:
    """Record a graph again inside a :func:`no_grad` block."""
    previous, STATE.grad_enabled = STATE.grad_enabled, True
    try:
        yield
    finally:
        STATE.grad_enabled = previous


def is_grad_enabled() -> bool:
    """True unless inside :func:`no_grad` (then ops record no graph)."""
    return STATE.grad_enabled


@contextlib.contextmanager
def detect_anomaly() -> Iterator[None]:
    """Raise :class:`AnomalyError` as soon as a forward or backward produces NaN or inf.

    Slower (every result is scanned); use it to find *where* a NaN first appears.
    """
    previous, STATE.anomaly = STATE.anomaly, True
    try:
        yield
    finally:
        STATE.anomaly = previous


class AnomalyError(FloatingPointError):
    """A NaN or inf produced inside :func:`detect_anomaly`."""


@dataclass(frozen=True)
class Scope:
    """One enclosing call recorded on every op it runs: a module or a composed function.

    ``kind`` is ``"module"`` (``obj`` is the Module) or ``"function"`` (a composed op such
    as ``gelu``; ``obj`` is None). The graph drawer turns scopes into clusters.
    """

    kind: str
    name: str
    obj: Any = None


@contextlib.contextmanager
def scope(kind: str, name: str, obj: Any = None) -> Iterator[None]:
    """Tag every op run inside with ``Scope(kind, name, obj)`` (see :class:`Scope`)."""
    previous = STATE.scope
    STATE.scope = previous + (Scope(kind, name, obj),)
    try:
        yield
    finally:
        STATE.scope = previous


# ----------------------------------------------------------------------------- Function
class Context:
    """What one op call remembers for its backward: the graph node.

    Attributes:
        fn: the Function subclass.
        inputs: the input tensors, in forward order (the node's parents).
        needs_input_grad: one bool per input: does backward have to produce its gradient?
        xp: the array namespace of the inputs (``numpy``, CuPy's, ...).
        backend: the :class:`tinyffn.backend.Backend` (for ``erf``, ``index_add``).
        scope: the enclosing modules / composed functions, outermost first.
        attrs: the non-tensor keyword arguments of the call (``axis=0``, ``p=2``, ...).
    """

    __slots__ = ("fn", "inputs", "needs_input_grad", "xp", "backend", "scope", "attrs",
                 "out_shape", "_saved", "_freed", "__dict__")

    def __init__(self, fn, inputs, backend, attrs):
        self.fn = fn
        self.inputs = inputs
        self.needs_input_grad = tuple([t.requires_grad for t in inputs])
        self.backend = backend
        self.xp = backend.xp
        self.scope = STATE.scope
        self.attrs = attrs
        self._saved = ()
        self._freed = False

    def save_for_backward(self, *arrays: Any) -> None:
        """Keep arrays (or any values) for backward; released after ``backward()``."""
        self._saved = arrays

    @property
    def saved_tensors(self) -> tuple:
        """The values given to :meth:`save_for_backward`, in the same order."""
        if self._freed:
            raise RuntimeError(
                f"{self.fn.__name__}: trying to backward through the graph a second time; its "
                "saved arrays were freed by the first backward(). Call backward(retain_graph=True) "
                "the first time if you need to walk the graph again."
            )
        return self._saved

    def release(self) -> None:
        self._saved = ()
        self._freed = True

    @property
    def name(self) -> str:
        return self.fn.op_name()

    def __repr__(self) -> str:
        shapes = ", ".join(str(tuple(t.shape)) for t in self.inputs)
        return f"<{self.fn.__name__}Backward inputs=({shapes})>"


class Function:
    """Base class of every differentiable op, built-in or user-defined (PyTorch's style).

    Subclasses define two static methods:

    * ``forward(ctx, *xs, **attrs) -> y``: ``xs`` are raw arrays (one per tensor argument
      of ``apply``), ``attrs`` the keyword arguments; returns one array.
    * ``backward(ctx, gy) -> gx`` or ``(gx1, gx2, ...)``: one gradient per forward input,
      each of its input's shape, or None where ``ctx.needs_input_grad`` is False.

    and optionally ``flops(ctx, y) -> int``, the forward's floating-point operation count
    for :class:`tinyffn.FlopCounter` (default: one per output element).

    Call ``MyOp.apply(*tensors, **attrs)``. Python numbers and arrays among the positional
    arguments become constant tensors on the first tensor's device and dtype.
    """

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
    def op_name(cls) -> str:
        """The op's name in graphs, FLOP tables and errors: ``MatMul`` -> ``matmul``."""
        return cls.__name__.lower()

    @classmethod
    def apply(cls, *args: Any, **attrs: Any) -> "_tensor.Tensor":
        inputs = _tensor.as_tensors(args, cls)
        backend = inputs[0].backend
        for t in inputs:
            if t.backend is not backend:
                raise _backend.DeviceError(
                    f"{cls.op_name()}: inputs are on different devices ({inputs[0].device} and "
                    f"{t.device}); move them to one device with .to(device) first"
                )
        ctx = Context(cls, inputs, backend, attrs)
        y = cls.forward(ctx, *[t.data for t in inputs], **attrs)
        if not isinstance(y, backend.array_type):  # NumPy reductions return scalars
            y = backend.xp.asarray(y)
        ctx.out_shape = y.shape
        if STATE.anomaly:
            _check_finite(ctx, y, "forward produced")
        if STATE.flop_counters:
            n = cls.flops(ctx, y)
            for counter in STATE.flop_counters:
                counter.add(cls.op_name(), "forward", n)
        if STATE.grad_enabled and any(ctx.needs_input_grad):
            return _tensor.Tensor._wrap(y, backend, True, ctx)
        return _tensor.Tensor._wrap(y, backend)


def _check_finite(ctx: Context, y: Any, what: str) -> None:
    xp = ctx.xp
    if not bool(xp.all(xp.isfinite(y))):
        shapes = ", ".join(str(tuple(t.shape)) for t in ctx.inputs)
        raise AnomalyError(f"{ctx.fn.op_name()}: {what} NaN or inf (input shapes {shapes})")


# ----------------------------------------------------------------------------- the walk
def topological_order(root: "_tensor.Tensor", every_input: bool = False) -> list:
    """Tensors of ``root``'s graph that require grad, inputs before the ops that use them.

    Iterative depth-first search with an explicit stack; parents are visited in the order
    of the op's inputs, so the order is the same on every run. With ``every_input`` the
    inputs that need no gradient (data, constants such as the 2 in ``x * 2``) are included
    too: backward skips them, the graph drawer shows them.
    """
    order, visited = [], set()
    stack = [(root, False)]
    while stack:
        t, children_done = stack.pop()
        if children_done:
            order.append(t)
            continue
        if id(t) in visited:
            continue
        visited.add(id(t))
        stack.append((t, True))
        if t.grad_fn is not None:
            for parent in reversed(t.grad_fn.inputs):
                if (every_input or parent.requires_grad) and id(parent) not in visited:
                    stack.append((parent, False))
    return order


@dataclass
class BackwardStep:
    """One node of the backward walk (see :func:`iter_backward`).

    Attributes:
        index: 0 for the first node processed (the root), 1 for the next, ...
        tensor: the op's output tensor (``tensor.grad_fn`` is the node).
        gy: the gradient arriving at the output, dL/dy (an array).
        grads: one array (or None) per input: what the op passes back, dL/dx_i.
    """

    index: int
    tensor: Any
    gy: Any
    grads: tuple

    @property
    def op(self) -> str:
        return self.tensor.grad_fn.name

    @property
    def inputs(self) -> tuple:
        return self.tensor.grad_fn.inputs

    @property
    def input_shapes(self) -> tuple:
        return tuple(tuple(t.shape) for t in self.inputs)


def iter_backward(root: "_tensor.Tensor", grad: Any = None, retain_graph: bool = False,
                  capture: dict | None = None) -> Iterator[BackwardStep]:
    """Backpropagate from ``root``, yielding a :class:`BackwardStep` after each node.

    Gradients reaching leaf tensors are accumulated into their ``.grad``. If ``capture`` is
    given (a dict whose keys are ``id()`` of tensors) the gradient of each of those tensors
    is stored under its key instead, and no ``.grad`` is touched (see :func:`grad`). Each running
    total is dropped once its node has consumed it, so only the gradients still needed are
    alive at any time. Unless ``retain_graph``, each node's saved arrays are freed after use.
    """
    gy = _root_grad(root, grad)
    order = topological_order(root)
    totals = {id(root): gy}          # id(tensor) -> dL/dtensor summed over its consumers
    step = 0
    for t in reversed(order):
        g = totals.pop(id(t), None)
        if g is None:                # no path from root reaches t through differentiable ops
            continue
        if capture is not None and id(t) in capture:
            capture[id(t)] = g
        ctx = t.grad_fn
        if ctx is None:
            if capture is None:
                t._accumulate_grad(g)
            continue
        if capture is None and t._retains_grad:
            t._accumulate_grad(g)
        grads = _call_backward(ctx, g)
        for parent, g_parent in zip(ctx.inputs, grads):
            if g_parent is None or not parent.requires_grad:
                continue
            key = id(parent)
            totals[key] = g_parent if key not in totals else totals[key] + g_parent
        if not retain_graph:
            ctx.release()
        yield BackwardStep(step, t, g, grads)
        step += 1


def run_to_end(steps: Iterator[BackwardStep]) -> None:
    """Run a backward walk, dropping each step as soon as it is made: a step holds the
    gradients of its node, which would otherwise stay alive while the next node runs."""
    collections.deque(steps, maxlen=0)


def _call_backward(ctx: Context, gy: Any) -> tuple:
    """Run one node's backward and check what it returns: one gradient per input, each of
    its input's shape. An op may mix dtypes (float64 data @ float32 weight); as in PyTorch,
    each gradient is cast to its input's dtype, so a float32 parameter never receives a
    float64 ``.grad``."""
    grads = ctx.fn.backward(ctx, gy)
    if not isinstance(grads, tuple):
        grads = (grads,)
    inputs = ctx.inputs
    if len(grads) != len(inputs):
        raise RuntimeError(f"{ctx.fn.op_name()}.backward returned {len(grads)} gradients for "
                           f"{len(inputs)} inputs; return one per input (None where unused)")
    checked = []
    for i, (t, g) in enumerate(zip(inputs, grads)):
        if g is not None and t.requires_grad:
            if g.shape != t.data.shape:
                raise RuntimeError(
                    f"{ctx.fn.op_name()}.backward: gradient of input {i} has shape "
                    f"{tuple(g.shape)} but the input has shape {tuple(t.shape)}")
            if g.dtype != t.data.dtype:
                g = ctx.xp.astype(g, t.data.dtype)
            if STATE.anomaly:
                _check_finite(ctx, g, f"backward produced (gradient of input {i})")
        checked.append(g)
    if STATE.flop_counters:
        n = ctx.fn.flops(ctx, _ShapeOnly(ctx.out_shape)) * sum(ctx.needs_input_grad)
        for counter in STATE.flop_counters:
            counter.add(ctx.fn.op_name(), "backward", n)
    return tuple(checked)


class _ShapeOnly:
    """Stands in for the forward output when counting backward FLOPs (only .shape is read)."""

    __slots__ = ("shape",)

    def __init__(self, shape):
        self.shape = shape


def _root_grad(root: "_tensor.Tensor", grad: Any) -> Any:
    if not root.requires_grad:
        raise RuntimeError("backward: this tensor does not require grad and has no grad_fn; "
                           "create the leaves with requires_grad=True")
    if grad is None:
        if math.prod(root.shape) != 1:
            raise RuntimeError(f"backward: grad can be implicitly created only for scalar "
                               f"outputs, but the output has shape {tuple(root.shape)}; pass "
                               "grad=<tensor of that shape>, or reduce it first (e.g. .sum())")
        return root.backend.xp.ones(root.shape, dtype=root.data.dtype)
    g = grad.data if isinstance(grad, _tensor.Tensor) else root.backend.asarray(grad)
    if tuple(g.shape) != tuple(root.shape):
        raise RuntimeError(f"backward: grad has shape {tuple(g.shape)} but the output has "
                           f"shape {tuple(root.shape)}; they must match")
    return root.backend.xp.astype(g, root.data.dtype) if g.dtype != root.data.dtype else g


def grad(output: "_tensor.Tensor", inputs: Sequence["_tensor.Tensor"], grad_output: Any = None,
         retain_graph: bool = False) -> tuple:
    """dL/d(input) for each input, as tensors, without touching any ``.grad`` (``torch.autograd.grad``).

    An input that ``output`` does not depend on gets a zero gradient.
    """
    inputs = tuple(inputs)
    captured = {id(t): None for t in inputs}
    run_to_end(iter_backward(output, grad_output, retain_graph, capture=captured))
    out = []
    for t in inputs:
        g = captured[id(t)]
        if g is None:
            g = t.backend.xp.zeros(t.shape, dtype=t.data.dtype)
        out.append(_tensor.Tensor(g, _backend=t.backend))
    return tuple(out)
