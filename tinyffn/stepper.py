"""Stepping through backward one node at a time, to watch the chain rule work.

:func:`backward_steps` is the walk that ``loss.backward()`` runs (:func:`tinyffn.autograd.walk`,
through :func:`~tinyffn.autograd.iter_backward`), paused after each node: every step holds the
op, its inputs' shapes, the gradient that arrived at its output (dL/dy) and the
gradients it passed to its inputs (dL/dx_i), and can describe itself in words::

    for step in tinyffn.backward_steps(loss):
        print(step.describe())

Running the steps to the end leaves in every ``.grad`` exactly what ``loss.backward()``
would: it is the same walk, not a copy of it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

from . import autograd
from .naming import format_values, graph_names, is_constant, scope_label, summed_axes


@dataclass
class Step(autograd.BackwardStep):
    """A :class:`~tinyffn.autograd.BackwardStep` that knows the names in its graph.

    Attributes (besides ``index``, ``node``, ``gy``, ``grads``, ``op``, ``tensor``,
    ``parents`` and ``input_shapes``):
        names: id() of each module and parameter -> its path (``w1.weight``).
    """

    names: dict = field(default_factory=dict, repr=False)

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
            return f"constant {format_values(parent.data)}"
        return "input"

    def describe(self) -> str:
        """This step in a few lines: what arrived at the op's output, what each input got."""
        node = self.node
        where = f"   (in {self.where})" if self.where else ""
        lines = [f"step {self.index}: {self.op}{where}",
                 f"  dL/dy arrives at its output {tuple(node.out_shape)}: {format_values(self.gy)}"]
        for i, (x, g) in enumerate(zip(self.parents, self.grads)):
            head = f"  input {i}, {self.label(x)} {self.input_shapes[i]}"
            if g is None:
                lines.append(f"{head}: needs no gradient")
                continue
            axes = summed_axes(node, i)
            summed = f"  (summed over axes {axes})" if axes else ""
            lines.append(f"{head}, gets dL/dx = {format_values(g)}{summed}")
        return "\n".join(lines)


def backward_steps(loss: Any, grad: Any = None, retain_graph: bool = False) -> Iterator[Step]:
    """Backpropagate from ``loss``, yielding a :class:`Step` after each op node.

    The nodes come in the order backward processes them: reverse topological order,
    from ``loss`` back towards the parameters, each exactly once. Gradients reach the
    leaves' ``.grad`` as the walk passes them; stopping early leaves them partial. The
    arguments are those of ``loss.backward()``.
    """
    names = graph_names(autograd.topological_order(loss, every_input=True))
    for step in autograd.iter_backward(loss, grad, retain_graph):
        yield Step(step.index, step.node, step.gy, step.grads, names)
