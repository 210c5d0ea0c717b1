"""The graph's node: what one op call remembers for its backward.

:meth:`tinyffn.autograd.Function.apply` makes one :class:`Context` per op call (the
op's forward and backward get it as ``ctx``); when an input requires a gradient, the
output tensor keeps it as its ``grad_fn``. The node links to
its parents, one per input: the node that made that input, or the input tensor itself
when it is a leaf. That chain of references is the graph; :mod:`tinyffn.autograd` walks
it backward. :class:`AccumulateGrad` is how PyTorch's ``next_functions`` shows a leaf.
"""
from __future__ import annotations

import types
from typing import Any

from .grad_mode import STATE
from . import tensor as _tensor  # in annotations only (tensor imports autograd, this)

__all__ = ["Context", "AccumulateGrad", "NO_ATTRS", "node_of", "shape_and_dtype"]

NO_ATTRS = types.MappingProxyType({})   # the attrs of every call without keyword arguments


class Context:
    """What one op call remembers for its backward: the graph node.

    Attributes:
        fn: the Function subclass.
        parents: one per input, in forward order: the node (Context) that made the input,
            or the input tensor itself when it has no ``grad_fn`` (a leaf).
        input_shapes / input_dtypes: the inputs' shapes and dtypes, read from the parents
            (the inputs themselves are not kept; see :mod:`tinyffn.autograd`'s docstring).
        needs_input_grad: one bool per input: does backward have to produce its gradient?
        out_shape / out_dtype: the shape and dtype of the output.
        xp: the array namespace of the inputs (``numpy``, CuPy's, ...).
        backend: the :class:`tinyffn.backend.Backend` (for ``erf``, ``index_add``).
        scope: the enclosing modules / composed functions, outermost first.
        attrs: the non-tensor keyword arguments of the call (``axis=0``, ``p=2``, ...).
    """

    # slots for what the engine sets on every node (cheaper to make, one per op); the
    # __dict__ is for a user's Function, which may stash anything on ctx (ctx.mask = ...)
    __slots__ = ("fn", "parents", "needs_input_grad", "xp", "backend", "scope", "attrs",
                 "out_shape", "out_dtype", "_output", "_saved", "_freed", "_hooks", "_out_id",
                 "__dict__", "__weakref__")     # weakref: a checkpoint's region (no cycle)

    def __init__(self, fn, inputs, backend, attrs):
        self.fn = fn
        # node_of and _requires_grad (the slot) of each input; one or two (nearly every
        # op) spelled out, as the loop's lists cost a quarter of this method
        if len(inputs) == 1:
            (a,) = inputs
            self.parents = (a if a.grad_fn is None else a.grad_fn,)
            self.needs_input_grad = (a._requires_grad,)
        elif len(inputs) == 2:
            a, b = inputs
            self.parents = (a if a.grad_fn is None else a.grad_fn,
                            b if b.grad_fn is None else b.grad_fn)
            self.needs_input_grad = (a._requires_grad, b._requires_grad)
        else:
            parents, needs = [], []
            for t in inputs:
                parents.append(t if t.grad_fn is None else t.grad_fn)
                needs.append(t._requires_grad)
            self.parents, self.needs_input_grad = tuple(parents), tuple(needs)
        self.backend = backend
        self.xp = backend.xp
        self.scope = STATE.scope
        self.attrs = attrs or NO_ATTRS  # most ops have none: share one empty mapping
        self._output = None
        self._saved = ()
        self._freed = False          # True once released; a checkpoint's region: refillable
        self._hooks = None           # the gradient hooks of its output (see hooks.py)

    def save_for_backward(self, *arrays: Any) -> None:
        """Keep arrays (or any values) for backward; released after ``backward()``."""
        self._saved = arrays

    @property
    def saved_tensors(self) -> tuple:
        """The values given to :meth:`save_for_backward`, in the same order. Once
        ``backward()`` has released them, a RuntimeError; in a checkpointed block, the
        first read reruns the block to refill them (tinyffn/utils/checkpoint.py)."""
        if self._freed:
            if self._freed is not True:     # a checkpointed block's: it reruns, refilling them
                self._freed.recompute()     # (tinyffn/utils/checkpoint.py)
                return self._saved
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
    def input_shapes(self) -> tuple:
        """The inputs' shapes, read off the parents (:func:`shape_and_dtype`, written out:
        most backwards ask for them)."""
        return tuple([p.out_shape if isinstance(p, Context) else p.data.shape
                      for p in self.parents])

    @property
    def input_dtypes(self) -> tuple:
        """The inputs' dtypes, read off the parents (as :attr:`input_shapes`)."""
        return tuple([p.out_dtype if isinstance(p, Context) else p.data.dtype
                      for p in self.parents])

    @property
    def next_functions(self) -> tuple:
        """``parents`` in PyTorch's form: one ``(node, 0)`` per input, ``(None, 0)`` for an
        input that needs no gradient, and a leaf wrapped in an :class:`AccumulateGrad`."""
        return tuple([(None if not need else p if isinstance(p, Context) else AccumulateGrad(p), 0)
                      for p, need in zip(self.parents, self.needs_input_grad)])

    @property
    def output(self) -> "_tensor.Tensor | None":
        """The tensor this op produced, while something outside the graph still holds it."""
        return None if self._output is None else self._output()

    @property
    def name(self) -> str:
        return self.fn.op_name()

    def __repr__(self) -> str:
        shapes = [tuple(shape) for shape in self.input_shapes]
        return f"<{self.fn.__name__}Backward input_shapes={shapes}>"


class AccumulateGrad:
    """A leaf as ``next_functions`` shows it, as PyTorch's: ``.variable`` is the leaf, and
    ``next_functions`` is empty, so a walker written for PyTorch stops there."""

    __slots__ = ("variable",)
    next_functions = ()

    def __init__(self, variable: "_tensor.Tensor"):
        self.variable = variable

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, AccumulateGrad) and other.variable is self.variable

    __hash__ = None         # as its equality follows the leaf

    def __repr__(self) -> str:
        return f"<AccumulateGrad variable shape={tuple(self.variable.shape)}>"


def node_of(t: "_tensor.Tensor") -> "Context | _tensor.Tensor":
    """The graph vertex standing for tensor ``t``: the op node that made it, else ``t``."""
    return t if t.grad_fn is None else t.grad_fn


def shape_and_dtype(v: "Context | _tensor.Tensor") -> tuple:
    """(shape, dtype) of the tensor graph vertex ``v`` stands for: an op node's output (which
    the node recorded, as the tensor may be gone), or a leaf tensor itself."""
    return (v.out_shape, v.out_dtype) if isinstance(v, Context) else (v.data.shape, v.data.dtype)
