"""Whole-function derivatives, as ``torch.autograd.functional``: ``jacobian``, ``vjp``, ``jvp``.

For f: inputs -> outputs, the Jacobian of output i by input j is the array

    J[i][j][o, n] = d outputs[i][o] / d inputs[j][n],  shape outputs[i].shape + inputs[j].shape

Reverse mode gives it one row at a time. One backward from outputs[i] with the one-hot
cotangent e_o (1 at element o, 0 elsewhere) computes sum_o' e_o[o'] d outputs[i][o'] / dx
= d outputs[i][o] / dx, for every input x at once: row o of every J[i][j]. So ``jacobian``
runs f once, keeps its graph (``retain_graph=True``) and backpropagates once per output
element; ``vjp`` is a single backward with the cotangent v (v^T J), and ``jvp`` (J v) is
sum_n J[o, n] v[n] taken row by row: one backward per output element, not two backwards
as torch's (which differentiates the backward itself).

What tinyffn cannot do, and why: its backward computes on raw arrays and records no graph
(``tinyffn.grad`` refuses ``create_graph=True``), so there are no gradients of gradients:
no ``hessian``, ``hvp`` or ``vhp``, and no ``create_graph=True`` here. It has no forward
mode either (no tangent rule per op), so ``strategy="forward-mode"`` is refused. Those
raise NotImplementedError saying what to use instead.

Every function detaches the inputs into fresh leaves that require grad and runs f under
``enable_grad``, so f's graph starts at exactly those tensors (a parameter f uses
is a constant here), and returns tensors that are out of the graph.
"""
from __future__ import annotations

from typing import Any, Callable, Iterator

from . import autograd, grad_mode
from .arguments import type_name
from .backend import check_one_device, dtype_name
from .tensor import Tensor

__all__ = ["jacobian", "vjp", "jvp", "hessian", "hvp", "vhp"]

_NO_DOUBLE_BACKWARD = ("tinyffn's backward computes on raw arrays and records no graph, so "
                       "it cannot differentiate a gradient (no double backward)")


# ----------------------------------------------------------------------------- helpers
def _as_tuple(op: str, what: str, value: Any) -> tuple:
    """(was it a tuple, the tensors as a tuple): one Tensor or a tuple of them, as torch."""
    is_tuple = isinstance(value, tuple)
    values = value if is_tuple else (value,)
    for i, v in enumerate(values):
        if not isinstance(v, Tensor):
            where = f"entry {i} of the tuple is" if is_tuple else "got"
            raise TypeError(f"{op}: {what} must be a Tensor or a tuple of Tensors; {where} "
                            f"{type_name(v)}" + (" (pass a tuple, not a list)"
                                                 if isinstance(v, list) else ""))
    return is_tuple, values


def _run(op: str, func: Callable, inputs: Any, create_graph: bool) -> tuple:
    """Fresh leaves for the inputs, f's outputs from them, and whether each was a tuple."""
    if create_graph:
        raise NotImplementedError(f"{op}: create_graph=True (a differentiable result) is not "
                                  f"supported: {_NO_DOUBLE_BACKWARD}; leave it False")
    inputs_tuple, inputs = _as_tuple(op, "inputs", inputs)
    for k, x in enumerate(inputs):
        if not x.backend.is_floating(x.dtype):
            raise TypeError(f"{op}: input {k} has dtype {dtype_name(x.dtype)}: only "
                            "floating-point inputs have derivatives; convert it with .double()")
    inputs = tuple(x.detach().requires_grad_() for x in inputs)
    with grad_mode.enable_grad():               # a graph is needed, even inside no_grad()
        outputs = func(*inputs)
    outputs_tuple, outputs = _as_tuple(op, "the outputs of func", outputs)
    return inputs_tuple, inputs, outputs_tuple, outputs


def _check_outputs_require_grad(op: str, outputs: tuple, strict: bool) -> None:
    """strict=True: every output must come from the inputs (else its derivatives are 0)."""
    for i, y in enumerate(outputs):
        if strict and not y.requires_grad:
            raise RuntimeError(f"{op}: output {i} (shape {tuple(y.shape)}) does not require "
                               "grad: it was not computed from the inputs, which strict=True "
                               "refuses; without strict its derivatives are zeros")


def _zeros(x: Tensor) -> Any:
    return x.backend.xp.zeros(x.shape, dtype=x.data.dtype)


def _rows(y: Tensor, inputs: tuple) -> Iterator[tuple]:
    """For each element o of y (row-major), the arrays d y[o] / d x for every input x
    (None where y does not depend on x): one backward with the one-hot cotangent e_o."""
    n, xp = y.numel(), y.backend.xp
    for o in range(n if y.requires_grad else 0):
        one_hot = xp.zeros(n, dtype=y.data.dtype)      # made on y's device: no copy to it
        one_hot[o] = 1
        e_o = Tensor(xp.reshape(one_hot, tuple(y.shape)), _backend=y.backend)
        grads = autograd.grad(y, inputs, e_o, retain_graph=True, allow_unused=True)
        yield tuple(None if g is None else g.data for g in grads)
    for _ in range(0 if y.requires_grad else n):        # y depends on no input
        yield (None,) * len(inputs)


def _unpack(result: tuple, is_tuple: bool) -> Any:
    return result if is_tuple else result[0]


def _detached(outputs: tuple, is_tuple: bool) -> Any:
    return _unpack(tuple(y.detach() for y in outputs), is_tuple)


# ----------------------------------------------------------------------------- jacobian
def jacobian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode") -> Any:
    """The Jacobian of ``func`` at ``inputs``, as ``torch.autograd.functional.jacobian``.

    ``J[i][j]`` has shape ``outputs[i].shape + inputs[j].shape`` and the dtype and device of
    ``inputs[j]``: ``J[i][j][o, n] = d outputs[i][o] / d inputs[j][n]``. One input and one
    output give one Tensor, a tuple of either gives a tuple, both tuples a tuple of tuples
    (``J[i][j]``). Cost: one forward, then one backward per output element (the graph is
    built once and retained for every row).

    Args:
        func: takes the input tensors (positionally), returns a Tensor or a tuple of them.
        inputs: a Tensor or a tuple of Tensors (floating point).
        create_graph: refused if True: there is no double backward in tinyffn.
        strict: if True, an output that does not depend on an input is an error (else
            its block is zeros, the mathematical value).
        vectorize: accepted for torch's code; the rows are computed the same way (in
            torch it is a speed option, a batched backward). As in torch, it cannot be
            combined with ``strict=True``.
        strategy: ``"reverse-mode"``; ``"forward-mode"`` is refused (no forward mode).
    """
    if strategy not in ("reverse-mode", "forward-mode"):
        raise ValueError(f'jacobian: strategy must be "reverse-mode" or "forward-mode", got '
                         f"{strategy!r}")
    if strategy == "forward-mode":
        raise NotImplementedError('jacobian: strategy="forward-mode" is not supported: '
                                  "tinyffn has no forward mode (no tangent rule per op); use "
                                  'strategy="reverse-mode" (the default), the same Jacobian '
                                  "by one backward per output element")
    if strict and vectorize:
        raise RuntimeError("jacobian: strict=True and vectorize=True are not supported "
                           "together (as in torch); set one of them to False")
    inputs_tuple, inputs, outputs_tuple, outputs = _run("jacobian", func, inputs, create_graph)
    _check_outputs_require_grad("jacobian", outputs, strict)
    jacobians = []
    for i, y in enumerate(outputs):
        rows = [[] for _ in inputs]                     # per input: one (x.shape) array per row
        for grads in _rows(y, inputs):
            for j, (x, g) in enumerate(zip(inputs, grads)):
                if g is None and strict:
                    raise RuntimeError(f"jacobian: output {i} (shape {tuple(y.shape)}) does "
                                       f"not depend on input {j} (shape {tuple(x.shape)}), "
                                       "which strict=True refuses; without strict its "
                                       "block is zeros")
                rows[j].append(_zeros(x) if g is None else g)
        blocks = []
        for x, x_rows in zip(inputs, rows):
            xp, shape = x.backend.xp, tuple(y.shape) + tuple(x.shape)
            J = (xp.reshape(xp.stack(x_rows), shape) if x_rows       # (y.numel(), *x.shape)
                 else xp.zeros(shape, dtype=x.data.dtype))           # y has no elements
            blocks.append(Tensor(J, _backend=x.backend))
        jacobians.append(_unpack(tuple(blocks), inputs_tuple))
    return _unpack(tuple(jacobians), outputs_tuple)


# ----------------------------------------------------------------------------- vjp, jvp
def _checked_v(op: str, v: Any, like: tuple, like_tuple: bool, what: str) -> tuple:
    """v as a tuple of arrays, one per tensor of ``like`` and of its shape (torch's rules);
    None only when ``like`` is one tensor of one element (v = 1)."""
    if v is None:
        if len(like) != 1 or like[0].numel() != 1:
            raise RuntimeError(f"{op}: v can be None only if {what} is a single Tensor with a "
                               "single element; pass v, shaped as it")
        return (like[0].backend.xp.ones(like[0].shape, dtype=like[0].data.dtype),)
    _, v = _as_tuple(op, "v", v)
    if len(v) != len(like):
        raise RuntimeError(f"{op}: v has {len(v)} tensors but {what} has {len(like)}; pass "
                           f"one per tensor" + (" in a tuple" if like_tuple else ""))
    for k, (vk, t) in enumerate(zip(v, like)):
        if tuple(vk.shape) != tuple(t.shape):
            raise RuntimeError(f"{op}: v[{k}] has shape {tuple(vk.shape)} but entry {k} of "
                               f"{what} has shape {tuple(t.shape)}; they must match")
        check_one_device(op, f"v[{k}] and entry {k} of {what}", vk, t)
    return tuple(vk.data for vk in v)


def vjp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """``(func(inputs), v^T J)``, as ``torch.autograd.functional.vjp``: one backward.

    ``vjp[j] = sum_i sum_o v[i][o] d outputs[i][o] / d inputs[j]``, shaped as
    ``inputs[j]``: what ``tinyffn.grad(outputs, inputs, v)`` gives, for fresh inputs.

    Args:
        func, inputs: as in :func:`jacobian`.
        v: the cotangent, a Tensor (or tuple) shaped as the outputs; may be None only when
            func returns one Tensor of one element.
        create_graph: refused if True (no double backward).
        strict: if True, an input that no output depends on is an error (else zeros).

    Returns:
        ``(outputs, vjp)``: the outputs out of the graph, and one Tensor per input (a
        tuple if inputs was one).
    """
    inputs_tuple, inputs, outputs_tuple, outputs = _run("vjp", func, inputs, create_graph)
    _check_outputs_require_grad("vjp", outputs, strict)
    v = _checked_v("vjp", v, outputs, outputs_tuple, "the output of func")
    totals = [None] * len(inputs)
    for y, vy in zip(outputs, v):
        if not y.requires_grad:                          # depends on no input: adds 0
            continue
        cotangent = Tensor(y.backend.asarray(vy, y.dtype), _backend=y.backend)
        grads = autograd.grad(y, inputs, cotangent, retain_graph=True, allow_unused=True)
        for j, g in enumerate(grads):
            if g is not None:
                totals[j] = g.data if totals[j] is None else totals[j] + g.data
    for j, x in enumerate(inputs):
        if totals[j] is None and strict:
            raise RuntimeError(f"vjp: no output depends on input {j} (shape {tuple(x.shape)}), "
                               "which strict=True refuses; without strict its vjp is zeros")
    result = tuple(Tensor(_zeros(x) if g is None else g, _backend=x.backend)
                   for x, g in zip(inputs, totals))
    return _detached(outputs, outputs_tuple), _unpack(result, inputs_tuple)


def jvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """``(func(inputs), J v)``, as ``torch.autograd.functional.jvp``, by reverse mode.

    ``jvp[i][o] = sum_j sum_n d outputs[i][o] / d inputs[j][n] v[j][n]``, shaped as
    ``outputs[i]``. Cost: tinyffn has no forward mode and no double backward (torch's
    route), so this takes J one row at a time: one backward per output element, each row
    dotted with v and dropped (memory: one row). Fine for small outputs; for a large one
    prefer :func:`vjp` (one backward) where the math allows.

    Args:
        func, inputs: as in :func:`jacobian`.
        v: the tangent, a Tensor (or tuple) shaped as the inputs; may be None only when
            inputs is one Tensor of one element.
        create_graph: refused if True (no double backward).
        strict: if True, an input that no output depends on is an error (else zeros).

    Returns:
        ``(outputs, jvp)``: the outputs out of the graph, and one Tensor per output.
    """
    inputs_tuple, inputs, outputs_tuple, outputs = _run("jvp", func, inputs, create_graph)
    v = _checked_v("jvp", v, inputs, inputs_tuple, "inputs")
    _check_outputs_require_grad("jvp", outputs, strict)
    used = [False] * len(inputs)
    result = []
    for y in outputs:
        xp = y.backend.xp
        if strict and y.requires_grad and y.numel() == 0:    # no rows to say what y reads
            empty = Tensor(_zeros(y), _backend=y.backend)
            grads = autograd.grad(y, inputs, empty, retain_graph=True, allow_unused=True)
            used = [u or g is not None for u, g in zip(used, grads)]
        values = []                                      # one scalar per element of y
        for grads in _rows(y, inputs):
            total = xp.zeros((), dtype=y.data.dtype)
            for j, (g, vj) in enumerate(zip(grads, v)):
                if g is not None:
                    used[j] = True
                    total = total + xp.astype(xp.sum(g * vj), y.data.dtype)
            values.append(total)
        Jv = (xp.reshape(xp.stack(values), y.shape) if values
              else xp.zeros(y.shape, dtype=y.data.dtype))
        result.append(Tensor(Jv, _backend=y.backend))
    for j, x in enumerate(inputs):
        if strict and not used[j]:
            raise RuntimeError(f"jvp: no output depends on input {j} (shape {tuple(x.shape)}), "
                               "which strict=True refuses")
    return _detached(outputs, outputs_tuple), _unpack(tuple(result), outputs_tuple)


# ----------------------------------------------------------------------------- refused
def _second_order(op: str) -> NotImplementedError:
    return NotImplementedError(
        f"{op}: second derivatives are not supported: {_NO_DOUBLE_BACKWARD}. What exists: "
        "first derivatives, tinyffn.autograd.functional.jacobian, vjp and jvp, and "
        "tinyffn.grad; for second derivatives use torch.autograd.functional." + op)


def hessian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode") -> Any:
    """Refused: a Hessian is the Jacobian of a gradient, which needs a double backward."""
    raise _second_order("hessian")


def vhp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """Refused: v^T H needs the gradient of a gradient (a double backward)."""
    raise _second_order("vhp")


def hvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """Refused: H v needs the gradient of a gradient (a double backward)."""
    raise _second_order("hvp")
