"""Gradients of gradients: ``backward(create_graph=True)``, ``grad(..., create_graph=True)``.

An ordinary backward computes on raw arrays and records nothing (:mod:`tinyffn.autograd`):
its gradients are numbers, the end of the story. A second derivative (a Hessian-vector
product, a gradient penalty, Newton's method) needs the gradient's own computation as a
graph, to backpropagate through it in turn.

tinyffn records it without a second set of derivative formulas. Each primitive's backward
is written against ``ctx.xp`` with Python's operators (``gy * w``, ``xp.matmul(gy, w.mT)``),
so under create_graph the walk runs that very backward with

* ``gy`` a Tensor: every ``*``, ``@``, ``+`` on it is a recorded op;
* ``ctx.xp`` a :class:`~tinyffn.graph_xp.GraphNamespace`: ``exp``, ``sum``, ``matmul``, ...
  as recorded tinyffn ops;
* ``ctx.saved_tensors`` giving each saved array back as the tensor it was: the op's input
  (the leaf itself, or a tensor made by the input's node) or its output (made by this very
  node). Mul's ``gx = gy * w`` then depends on w through the graph, and
  d(gx)/dw = gy is there for the next backward. A saved array that is neither (a mask,
  an index) is a constant, as it is for PyTorch.

The recorded gradients are the same numbers as the ordinary ones (the same code computes
them), and are themselves tensors with a ``grad_fn``: backpropagate through them as
through any result. Each recorded op counts in a FlopCounter as a forward op of its own.

Which ops may run this way is declared, not guessed: ``twice_differentiable = True`` on the
Function, each checked by ``gradgradcheck`` in tests/test_higher_order.py: every primitive
does (the fused Linear, GELU and Swish too, whose in-place backwards take a branch of
recorded ops when ``gy`` is a tensor). Any other op (a user's Function by default, or one
whose backward calls a backend routine on raw arrays) refuses create_graph by name, rather
than return a second derivative that silently treats a computed value as a constant.
"""
from __future__ import annotations

import contextlib
from typing import Any, Sequence

from . import autograd, grad_mode, op_checks, tensor as _tensor
from .arguments import either_name, grad_inputs, single_of_sequence
from .graph_xp import GraphBackend, namespace

__all__ = ["grad", "root_gradient", "recorded_backward", "RecordedContext",
           "twice_differentiable_ops", "one_root"]


# why a gradient may lack a graph (an error's last sentences): made without create_graph, or
# constant where recorded (nothing is recorded there, as in PyTorch's clamp and where)
_CONSTANT_GRADIENT = (" If this is a gradient, to differentiate it again pass "
                      "create_graph=True to the call that made it (tinyffn.grad(..., "
                      "create_graph=True)). If it was made with create_graph=True: where it is "
                      "constant in a tensor (the function was linear, or piecewise linear as "
                      "leaky_relu, hardtanh or clamp, in it) it has no graph leading there, "
                      "and that derivative is 0 (PyTorch's leaky_relu and hardtanh keep a "
                      "graph and give zeros; relu and abs keep one here too)")


def grad(outputs: "_tensor.Tensor", inputs: Sequence["_tensor.Tensor"], grad_output: Any = None,
         retain_graph: bool | None = None, *, grad_outputs: Any = None,
         create_graph: bool = False, allow_unused: bool | None = None,
         materialize_grads: bool = False, is_grads_batched: bool = False) -> tuple:
    """dL/d(input) for each input, as tensors; no ``.grad`` changes (``torch.autograd.grad``).

    ``outputs`` is one tensor, or a sequence of them (their gradients add up, as PyTorch's:
    see :func:`one_root`). ``inputs`` is a sequence of tensors that require grad, or one
    Tensor (the result is still a tuple). ``grad_output`` (PyTorch's ``grad_outputs``) is
    dL/d(output), one per output, needed unless the output has one element. An input
    that the output does not depend on is an error, as in PyTorch, unless
    ``allow_unused=True`` (its gradient is None) or ``materialize_grads=True`` (zeros).
    With ``create_graph=True`` the gradients are recorded (this module's docstring): each
    has a ``grad_fn`` wherever it depends on a tensor that requires grad, and
    ``retain_graph`` defaults to True, as in PyTorch. ``is_grads_batched=True``: the first
    axis of each grad_output is a batch of cotangents, and each gradient gains that axis
    (one backward per cotangent here, where PyTorch vectorizes them).
    """
    grad_output = either_name("grad", "grad_output", grad_output, None, "grad_outputs",
                              grad_outputs)
    if is_grads_batched:
        return _batched(outputs, inputs, grad_output, retain_graph, create_graph, allow_unused,
                        materialize_grads)
    if isinstance(outputs, (list, tuple)) and len(outputs) > 1:
        output, grad_output = one_root("grad", outputs, grad_output)
    else:
        output = single_of_sequence("grad", "outputs", outputs)
        grad_output = single_of_sequence("grad", "grad_output", grad_output)
    if materialize_grads and allow_unused is False:
        raise ValueError("grad: materialize_grads=True gives unused inputs zeros, which "
                         "allow_unused=False forbids; leave allow_unused out")
    inputs = grad_inputs("grad", inputs)
    if isinstance(output, _tensor.Tensor) and not output.requires_grad:
        raise RuntimeError("grad: the output does not require grad and has no grad_fn; create "
                           "the leaves with requires_grad=True." + _CONSTANT_GRADIENT)
    captured = {id(autograd.node_of(t)): None for t in inputs}
    retain_graph = create_graph if retain_graph is None else retain_graph
    with grad_mode.enable_grad() if create_graph else contextlib.nullcontext():
        autograd.run_to_end(autograd.walk(output, grad_output, retain_graph, capture=captured,
                                          create_graph=create_graph))
    out = []
    for i, t in enumerate(inputs):
        g = captured[id(autograd.node_of(t))]
        if g is None and not materialize_grads:
            if not allow_unused:
                raise RuntimeError(f"grad: input {i} (shape {t.shape}) was not used to compute "
                                   "the output, so it has no gradient; pass allow_unused=True "
                                   "to get None for it, or materialize_grads=True for zeros."
                                   + _CONSTANT_GRADIENT)
            out.append(None)
            continue
        if g is None:               # as PyTorch's, requiring grad under create_graph
            out.append(_tensor.Tensor(t.backend.xp.zeros(t.shape, dtype=t.data.dtype),
                                      requires_grad=create_graph, _backend=t.backend))
            continue
        if isinstance(g, _tensor.Tensor):   # create_graph: the recorded gradient itself
            out.append(g)
            continue
        g = t.backend.xp.asarray(g, copy=True)  # its own array, as a .grad (_accumulate_grad)
        out.append(_tensor.Tensor(g, _backend=t.backend))
    return tuple(out)


def one_root(op: str, outputs: Any, grad_outputs: Any) -> tuple:
    """Several outputs as one root to walk from, as PyTorch takes them (``grad([y1, y2], x,
    [g1, g2])``, ``autograd.backward([y1, y2], [g1, g2])``): (s, None) with
    s = sum_k (y_k * g_k).sum(). The walk hands each y_k exactly g_k (the sums pass 1 back,
    the product 1 * g_k), recorded when g_k requires grad; a g_k of None is ones, for an
    output of one element. One output, or a list of one, comes back as it is."""
    outputs = list(outputs)
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    elif isinstance(grad_outputs, _tensor.Tensor) or not isinstance(grad_outputs, (list, tuple)):
        grad_outputs = [grad_outputs]
    if len(grad_outputs) != len(outputs):
        raise TypeError(f"{op}: {len(outputs)} outputs but {len(grad_outputs)} grad_outputs; "
                        "give one per output (None for an output of one element)")
    if len(outputs) == 1:
        return outputs[0], grad_outputs[0]
    if not outputs:
        raise RuntimeError(f"{op}: no outputs given; pass the tensors to differentiate")
    total = None
    with grad_mode.enable_grad():
        for k, (y, g) in enumerate(zip(outputs, grad_outputs)):
            if not isinstance(y, _tensor.Tensor):
                raise TypeError(f"{op}: output {k} is a {type(y).__name__}, not a Tensor")
            if not y.requires_grad:
                raise RuntimeError(f"{op}: output {k} does not require grad and has no grad_fn;"
                                   " create the leaves with requires_grad=True."
                                   + _CONSTANT_GRADIENT)
            checked = op_checks.root_grad(y, g, op)        # shape checked, y's dtype
            if not (isinstance(g, _tensor.Tensor) and g.requires_grad):
                g = _tensor.Tensor._wrap(checked, y.backend)
            term = (y * g.to(dtype=y.dtype)).sum()
            total = term if total is None else total + term
    return total, None


def _batched(outputs, inputs, grad_output, retain_graph, create_graph, allow_unused,
             materialize_grads) -> tuple:
    """grad(..., is_grads_batched=True): one grad per cotangent along grad_output's first
    axis, each gradient stacked on a new first axis (None where every one is None)."""
    from .creation import stack         # creation.py imports tensor.py, which imports this
    if grad_output is None:
        raise ValueError("grad: is_grads_batched=True needs grad_outputs, each with a first "
                         "axis that is the batch of cotangents")
    several = isinstance(grad_output, (list, tuple))
    batches = list(grad_output) if several else [grad_output]
    n = batches[0].shape[0] if batches and batches[0] is not None and batches[0].ndim else 0
    if n == 0 or any(g is None or g.ndim == 0 or g.shape[0] != n for g in batches):
        shapes = [getattr(g, "shape", None) for g in batches]
        raise ValueError("grad: is_grads_batched=True needs every grad_output to have the same "
                         f"first axis (the batch), got shapes {shapes}")
    keep = create_graph if retain_graph is None else retain_graph
    rows = [grad(outputs, inputs, [g[i] for g in batches] if several else batches[0][i],
                 retain_graph=keep or i < n - 1, create_graph=create_graph,
                 allow_unused=allow_unused, materialize_grads=materialize_grads)
            for i in range(n)]
    return tuple(None if column[0] is None else stack(list(column)) for column in zip(*rows))


def root_gradient(root: "_tensor.Tensor", grad: Any, g: Any) -> "_tensor.Tensor":
    """dL/d(root) under create_graph, as a tensor: ``grad`` itself when it is a tensor
    (its own graph kept, so a vector-Jacobian product can be differentiated with respect to
    the vector), in root's dtype; else ``g``, the checked array, as a constant."""
    if isinstance(grad, _tensor.Tensor):
        return grad if grad.dtype == g.dtype else grad.to(dtype=g.dtype)
    return _tensor.Tensor._wrap(g, root.backend)


class RecordedContext:
    """A node as its backward sees it under create_graph: the node's attributes, with
    ``xp`` the recorded namespace, ``backend`` its facts alone, and ``saved_tensors``
    given back as tensors (see the module docstring)."""

    __slots__ = ("node", "xp", "backend")

    def __init__(self, node: "autograd.Context"):
        self.node = node
        self.xp = namespace(node.backend)
        self.backend = GraphBackend(node.backend)

    def __getattr__(self, name: str) -> Any:   # fn, attrs, input_shapes, needs_input_grad, ...
        return getattr(self.node, name)

    @property
    def saved_tensors(self) -> tuple:
        node = self.node
        return tuple([_as_tensor(node, s) for s in node.saved_tensors])  # raises if freed

    def __repr__(self) -> str:
        return f"<recorded {self.node!r}>"

    def input_tensor(self, i: int, rebuild: Any) -> "_tensor.Tensor":
        """Input i as the tensor it was in the forward pass, for an op that did not save it
        (Svdvals keeps U, S, Vh, not A). Its value is ``rebuild(xp, *saved)``, the input
        rebuilt from the node's saved arrays (U diag(S) Vh, equal to it up to rounding), not
        the input's array now: a leaf or a live tensor may have been changed in place since
        (``A.mul_(-1)`` gives A a new array). Its gradient goes where the input's did: for the
        leaf or the live tensor t, it is t + (value − t), the difference a constant; else a
        new tensor standing for the output of the node that made the input."""
        value = rebuild(self.node.xp, *self.node.saved_tensors)
        p = self.node.parents[i]
        t = p if not isinstance(p, autograd.Context) else p.output
        if t is None:
            return _tensor.Tensor._wrap(value, self.node.backend, True, p)
        return t + _tensor.Tensor._wrap(value - t.data, self.node.backend)


def _as_tensor(node: "autograd.Context", s: Any) -> Any:
    """The saved array ``s`` as the tensor it was in the forward pass, when it was one: the
    node's output, or an input (a leaf's own array, or the output of the input's node).

    Identity is by ``id``: a node records its output array's (``_out_id``), and as ``s``
    has been alive since the forward pass, an array of that id then is ``s`` itself."""
    if not isinstance(s, node.backend.array_type):
        return s
    if id(s) == node._out_id:                       # the output: made by this node
        return _made_by(node, s)
    found = None
    for p in node.parents:
        if (p._out_id == id(s)) if isinstance(p, autograd.Context) else (p.data is s):
            if found is not None and found is not p:
                raise RuntimeError(
                    f"create_graph: {node.fn.op_name()} saved an array that two of its inputs "
                    "share (x and x.detach(), say), so which one it stands for is unknown; "
                    "clone one of them (x.detach().clone())")
            found = p
    if found is None:               # made inside forward (a mask, a count): a constant
        return _tensor.Tensor._wrap(s, node.backend)
    return _made_by(found, s) if isinstance(found, autograd.Context) else found


def _made_by(node: "autograd.Context", s: Any) -> "_tensor.Tensor":
    """A tensor holding ``s`` whose ``grad_fn`` is ``node``: the node's output tensor while
    it lives, else a new one standing for it (the graph links nodes, not tensors)."""
    out = node.output
    if out is not None and out.data is s:
        return out
    return _tensor.Tensor._wrap(s, node.backend, True, node)


def recorded_backward(ctx: "autograd.Context", gy: "_tensor.Tensor") -> tuple:
    """Run ``ctx``'s backward with gy a tensor, recording it: one gradient per input, each
    a tensor of its input's shape and dtype, or None where ``needs_input_grad`` is False."""
    fn = ctx.fn
    if not getattr(fn, "twice_differentiable", False):
        raise RuntimeError(
            f"create_graph: the backward of {fn.op_name()} ({fn.__name__}) cannot be recorded, "
            "so its gradient cannot be differentiated again; only the ops listed by "
            "tinyffn.higher_order.twice_differentiable_ops() can (a Function of your own can, "
            "if its backward uses ctx.xp alone: set twice_differentiable = True and check it "
            "with gradgradcheck)")
    if "_checkpoint" in ctx.__dict__:   # its saved arrays are a rerun's, not the graph's tensors
        raise RuntimeError(
            f"create_graph: {fn.op_name()} is inside a checkpointed block "
            "(tinyffn.utils.checkpoint), whose recomputed arrays are not the tensors of the "
            "graph, so its gradient cannot be differentiated again; call the block without "
            "checkpoint() for gradients of gradients")
    try:                                # framed in drawings as "<op> backward"
        with grad_mode.scope("function", f"{fn.op_name()} backward"):
            grads = fn.backward(RecordedContext(ctx), gy)
    except KeyError as e:               # ctx.attrs["alpha"], alpha given by position
        raise op_checks.attrs_key_error(ctx, e) from e
    except TypeError as e:              # np.tanh(x): NumPy's ufuncs refuse a Tensor
        if "__array_ufunc__" not in str(e):
            raise
        raise TypeError(
            f"create_graph: the backward of {fn.op_name()} ({fn.__name__}) called a NumPy "
            "function on a tensor: under create_graph, gy and the saved arrays are tensors, "
            "so compute with ctx.xp (ctx.xp.tanh(x), not np.tanh(x))") from e
    grads = op_checks.one_per_input(ctx, grads)
    checked = []
    for i, (g, needed, parent) in enumerate(zip(grads, ctx.needs_input_grad, ctx.parents)):
        if g is None or not needed:
            checked.append(None)
            continue
        if not isinstance(g, _tensor.Tensor):   # computed from constants alone: a constant
            g = _tensor.Tensor._wrap(ctx.backend.xp.asarray(g), ctx.backend)
        shape, dtype = autograd.shape_and_dtype(parent)
        op_checks.check_grad_shape(ctx, i, g.shape, shape)
        if g.dtype != dtype:
            g = g.to(dtype=dtype)
        if grad_mode.STATE.anomaly:
            grad_mode.check_finite(ctx, g.data, f"backward produced (gradient of input {i})")
        checked.append(g)
    return tuple(checked)


def twice_differentiable_ops() -> list:
    """The names of the primitives whose backward can be recorded (create_graph)."""
    from .ops import PRIMITIVES
    return [fn.op_name() for fn in PRIMITIVES if getattr(fn, "twice_differentiable", False)]


