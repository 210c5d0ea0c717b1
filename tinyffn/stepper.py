"""Stepping through backward one node at a time, to watch the chain rule work.

:func:`iter_backward` is the walk that ``loss.backward()`` runs (:func:`tinyffn.autograd.walk`),
paused after each node, each pause a :class:`BackwardStep`; :func:`backward_steps` dresses
each one as a :class:`Step` that knows the names in its graph: every step holds the
op, its inputs' shapes, the gradient that arrived at its output (dL/d(out), ``gy``) and
the gradients it passed to its inputs (dL/d(in) for each, ``grads``), and can describe
itself in words ("out" and "in" are the op's own, whatever the tensors are called)::

    for step in tinyffn.backward_steps(loss):
        print(step.describe())

Running the steps to the end leaves in every ``.grad`` exactly what ``loss.backward()``
would: it is the same walk, not a copy of it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

from . import autograd, hooks
from .naming import (constant_text, format_values, graph_names, is_constant, op_settings,
                     scope_label, summed_axes)


@dataclass
class BackwardStep:
    """One node of the backward walk (see :func:`iter_backward`).

    Attributes:
        index: 0 for the first node processed (the root's), 1 for the next, ...
        node: the op's :class:`~tinyffn.autograd.Context`.
        gy: the gradient arriving at the op's output y, dL/dy (an array).
        grads: one array (or None) per input x_i: what the op passes back, dL/dx_i.
    """

    index: int
    node: autograd.Context
    gy: Any
    grads: tuple

    @property
    def op(self) -> str:
        return self.node.name

    @property
    def tensor(self) -> Any:
        """The op's output tensor, if anything outside the graph still holds it."""
        return self.node.output

    @property
    def parents(self) -> tuple:
        return self.node.parents

    @property
    def input_shapes(self) -> tuple:
        return tuple(tuple(shape) for shape in self.node.input_shapes)


def iter_backward(root: Any, grad: Any = None, retain_graph: bool = False,
                  capture: dict | None = None) -> Iterator[BackwardStep]:
    """Backpropagate from ``root``, yielding a :class:`BackwardStep` after each op node.

    Gradients reaching leaf tensors are accumulated into their ``.grad`` (and into the
    ``.grad`` of a non-leaf output that called ``retain_grad()``, if it is still alive).
    If ``capture`` is given (a dict whose keys are ``id()`` of graph vertices, see
    :func:`~tinyffn.autograd.node_of`) the gradient of each of those vertices is stored
    under its key instead, no ``.grad`` is touched, and only the op nodes that lead to
    those vertices run and give a step (see :func:`tinyffn.grad`). Each
    running total is dropped once its node has consumed it, so only the gradients still
    needed are alive at any time. Unless ``retain_graph``, each node's saved arrays are
    freed after use. A step arrives once the leaves right after its node are stored, so
    at the last step every ``.grad`` is complete.
    """
    steps = autograd.walk(root, grad, retain_graph, capture, hold_steps=True)
    for index, (node, gy, grads) in enumerate(steps):
        yield BackwardStep(index, node, gy, grads)


@dataclass
class Step(BackwardStep):
    """A :class:`BackwardStep` that knows the names in its graph.

    Attributes (besides ``index``, ``node``, ``gy``, ``grads``, ``op``, ``tensor``,
    ``parents`` and ``input_shapes``):
        names: id() of each module, parameter and buffer -> its path (``w1.weight``).
        reran: this op's backward read arrays that a ``checkpoint`` had dropped, and so ran
            the checkpointed block's forward again (tinyffn/utils/checkpoint.py).
    """

    names: dict = field(default_factory=dict, repr=False)
    reran: bool = False

    @property
    def where(self) -> str:
        """The modules and functions the op ran in: ``FFN › w2: Linear › linear``."""
        return " › ".join(scope_label(s, self.names) for s in self.node.scope)

    def label(self, parent: Any) -> str:
        """A name for an input of this step (one of ``parents``): ``w1.bias``, ``x``,
        ``matmul output``, ..."""
        if isinstance(parent, autograd.Context):
            out = parent.output
            return (out.name if out is not None else None) or f"{parent.name} output"
        name = self.names.get(id(parent)) or parent.name
        if name:
            return name
        if is_constant(parent):
            return f"constant {constant_text(parent)}"
        return "input"

    def describe(self) -> str:
        """This step in a few lines: the op with its settings, as a drawing labels it
        (``transpose axes=(1, 0)``), dL/d(out), what arrived at the op's output, and
        dL/d(in), what each input got. out and in are this op's own output and inputs, not
        a model's x and y; the output is named if it has a name, each input by :meth:`label`."""
        node = self.node
        where = f"   (in {self.where})" if self.where else ""
        out = node.output
        name = f" {out.name}" if out is not None and out.name else ""
        op = " ".join([self.op, *op_settings(node)])      # as the drawing labels the op
        lines = [f"step {self.index}: {op}{where}",
                 f"  dL/d(out) arrives at its output{name} {tuple(node.out_shape)}: "
                 f"{format_values(self.gy)}"]
        if self.reran:
            lines.append("  (checkpoint: the block's saved arrays, dropped after forward, were "
                         "needed here:\n   the block's forward ran again to recompute them)")
        side = hooks.hooked_view(node)
        if side is not None:          # a view of hooks.BackwardHook
            lines.append(f"  (identity view at the module's {side}: dL/d(out) is what its "
                         "backward hooks left)")
        for i, (x, g) in enumerate(zip(self.parents, self.grads)):
            head = f"  input {i}, {self.label(x)} {self.input_shapes[i]}"
            if g is None:
                lines.append(f"{head}: needs no gradient")
                continue
            axes = summed_axes(node, i)
            summed = f"  (summed over axes {axes})" if axes else ""
            lines.append(f"{head}, gets dL/d(in) = {format_values(g)}{summed}")
        return "\n".join(lines)


def backward_steps(loss: Any, grad: Any = None, retain_graph: bool = False) -> Iterator[Step]:
    """Backpropagate from ``loss``, yielding a :class:`Step` after each op node.

    The nodes come in the order backward processes them: reverse topological order,
    from ``loss`` back towards the parameters, each exactly once. Gradients reach the
    leaves' ``.grad`` as the walk passes them; stopping early leaves them partial. The
    arguments are those of ``loss.backward()``.
    """
    order = autograd.topological_order(loss, every_input=True)
    names = graph_names(order)
    reruns = {}             # id() of each checkpoint region in the graph -> its reruns so far
    for v in order:
        region = getattr(v, "_checkpoint", None)
        if region is not None:
            reruns[id(region)] = region.reruns
    for step in iter_backward(loss, grad, retain_graph):
        region = getattr(step.node, "_checkpoint", None)
        reran = region is not None and region.reruns != reruns[id(region)]
        if reran:
            reruns[id(region)] = region.reruns
        yield Step(step.index, step.node, step.gy, step.grads, names, reran)
