"""Whole-function derivatives, as ``torch.autograd.functional``: ``jacobian``, ``vjp``, ``jvp``,
and (in :mod:`tinyffn.autograd_hessian`) ``hessian``, ``vhp``, ``hvp``.

For f: inputs -> outputs, the Jacobian of output i by input j is the array

    J[i][j][o, n] = d outputs[i][o] / d inputs[j][n],  shape outputs[i].shape + inputs[j].shape

Reverse mode gives it one row at a time. One backward from outputs[i] with the one-hot
cotangent e_o (1 at element o, 0 elsewhere) computes sum_o' e_o[o'] d outputs[i][o'] / dx
= d outputs[i][o] / dx, for every input x at once: row o of every J[i][j]. So ``jacobian``
runs f once, keeps its graph (``retain_graph=True``) and backpropagates once per output
element; ``vjp`` is a single backward with the cotangent v (v^T J).

``jvp`` (J v) uses the double-backward trick, as torch's: the backward with a cotangent u,
g(u) = J^T u, is linear in u, so its own backward with the cotangent v is d(v . J^T u)/du
= J v. That needs the first backward recorded (``create_graph``), which every op of f must
allow (``twice_differentiable``); for an f with another op (a Function of your own
that does not declare it) and ``create_graph=False``, J v is taken row by row instead, one
backward per output element, each row dotted with v.

``create_graph=True`` records the derivatives themselves, so they can be differentiated
again: a Hessian is the Jacobian of the gradient (:mod:`tinyffn.autograd_hessian`). As in
torch, an input that requires grad then enters f through a view of itself (so the results
are differentiable with respect to it, and to a v that requires grad); otherwise, and
always without ``create_graph``, each input is detached into a fresh leaf, so f's graph
starts at exactly those tensors (a parameter f uses is a constant here) and the results are
out of any graph. There is no forward mode (no tangent rule per op):
``strategy="forward-mode"`` is refused.
"""
from __future__ import annotations

from typing import Any, Callable, Iterator

from . import autograd, grad_mode
from .arguments import type_name
from .backend import check_one_device, dtype_name
from .creation import ones_like, stack, zeros_like
from .tensor import Tensor

__all__ = ["jacobian", "vjp", "jvp", "hessian", "hvp", "vhp"]


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


def _fresh(x: Tensor, create_graph: bool, need_graph: bool = True) -> Tensor:
    """A new tensor for x, where f's graph starts (torch's ``_grad_preprocess``): with
    create_graph, a view of x if x requires grad (the results stay differentiable with
    respect to x); else x detached (a leaf that requires grad if ``need_graph``). A new
    object even so, so a tensor passed twice is two inputs, as in torch."""
    if create_graph and x.requires_grad:
        return x.view_as(x)
    return x.detach().requires_grad_(need_graph)


def _prepare(op: str, inputs: Any, create_graph: bool) -> tuple:
    """(was it a tuple, the inputs as fresh tensors), each checked to be floating point."""
    inputs_tuple, inputs = _as_tuple(op, "inputs", inputs)
    for k, x in enumerate(inputs):
        if not x.backend.is_floating(x.dtype):
            raise TypeError(f"{op}: input {k} has dtype {dtype_name(x.dtype)}: only "
                            "floating-point inputs have derivatives; convert it with .double()")
    return inputs_tuple, tuple(_fresh(x, create_graph) for x in inputs)


def _outputs(op: str, func: Callable, inputs: tuple, strict: bool) -> tuple:
    """(was it a tuple, f's outputs as a tuple); strict=True: each must come from the
    inputs (else its derivatives are 0). Call it under ``enable_grad``."""
    outputs_tuple, outputs = _as_tuple(op, "the outputs of func", func(*inputs))
    for i, y in enumerate(outputs):
        if strict and not y.requires_grad:
            raise RuntimeError(f"{op}: output {i} (shape {tuple(y.shape)}) does not require "
                               "grad: it was not computed from the inputs, which strict=True "
                               "refuses; without strict its derivatives are zeros")
    return outputs_tuple, outputs


def _zeros(x: Tensor) -> Tensor:
    return Tensor(x.backend.xp.zeros(x.shape, dtype=x.data.dtype), _backend=x.backend)


def _grads(outputs: tuple, inputs: tuple, cotangents: tuple, create_graph: bool) -> tuple:
    """sum_i cotangents[i]^T d outputs[i] / d inputs[j] for each input j (torch.autograd.grad
    of several outputs): None where no output reaches input j. An output that is None or
    needs no grad adds nothing (its derivatives are 0)."""
    totals = [None] * len(inputs)
    for y, c in zip(outputs, cotangents):
        if y is None or not y.requires_grad:
            continue
        if c is not None and c.dtype != y.dtype:        # v in float32, y in float64, say
            c = c.to(dtype=y.dtype)
        grads = autograd.grad(y, inputs, c, retain_graph=True, create_graph=create_graph,
                              allow_unused=True)
        for j, g in enumerate(grads):
            if g is not None:
                totals[j] = g if totals[j] is None else totals[j] + g
    return tuple(totals)


def _filled(op: str, grads: tuple, like: tuple, strict: bool, create_graph: bool,
            unused: Callable, constant: Callable) -> tuple:
    """The results: zeros where a gradient is None (unless strict: ``unused(k)`` says why
    not), detached unless create_graph; with strict and create_graph, a result that does
    not require grad (``constant(k)``) is an error too, as in torch (torch's
    ``_fill_in_zeros``)."""
    out = []
    for k, (g, t) in enumerate(zip(grads, like)):
        if g is None:
            if strict:
                raise RuntimeError(f"{op}: {unused(k)}, which strict=True refuses; without "
                                   "strict it is zeros")
            g = _zeros(t)
        elif strict and create_graph and not g.requires_grad:
            raise RuntimeError(f"{op}: {constant(k)}, so it cannot be differentiated again: "
                               "strict=True refuses that when create_graph=True")
        out.append(g if create_graph else g.detach())
    return tuple(out)


def _rows(y: Tensor, inputs: tuple, create_graph: bool) -> Iterator[tuple]:
    """For each element o of y (row-major), d y[o] / d x for every input x, a Tensor (None
    where y does not depend on x): one backward with the one-hot cotangent e_o."""
    n, xp = y.numel(), y.backend.xp
    for o in range(n if y.requires_grad else 0):
        one_hot = xp.zeros(n, dtype=y.data.dtype)      # made on y's device: no copy to it
        one_hot[o] = 1
        e_o = Tensor(xp.reshape(one_hot, tuple(y.shape)), _backend=y.backend)
        yield autograd.grad(y, inputs, e_o, retain_graph=True, create_graph=create_graph,
                            allow_unused=True)
    for _ in range(0 if y.requires_grad else n):        # y depends on no input
        yield (None,) * len(inputs)


def _unpack(result: tuple, is_tuple: bool) -> Any:
    return result if is_tuple else result[0]


def _finished(outputs: tuple, is_tuple: bool, create_graph: bool) -> Any:
    """f's outputs as returned: with their graph under create_graph, else detached."""
    return _unpack(tuple(y if create_graph else y.detach() for y in outputs), is_tuple)


def _check_strategy(op: str, name: str, strategy: str) -> None:
    """``"reverse-mode"`` passes; ``"forward-mode"`` is refused (no forward mode)."""
    if strategy not in ("reverse-mode", "forward-mode"):
        raise ValueError(f'{op}: {name} must be "reverse-mode" or "forward-mode", got '
                         f"{strategy!r}")
    if strategy == "forward-mode":
        raise NotImplementedError(f'{op}: {name}="forward-mode" is not supported: '
                                  "tinyffn has no forward mode (no tangent rule per op); use "
                                  f'{name}="reverse-mode" (the default), the same derivatives '
                                  "by one backward per output element")


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
        create_graph: if True, J is recorded (each row's backward with create_graph), so
            it can be differentiated again, with respect to any input that requires grad.
        strict: if True, an output that does not depend on an input is an error (else
            its block is zeros, the mathematical value); with create_graph, so is a block
            that does not depend on the inputs (f linear in that input).
        vectorize: accepted for torch's code; the rows are computed the same way (in
            torch it is a speed option, a batched backward). As in torch, it cannot be
            combined with ``strict=True``.
        strategy: ``"reverse-mode"``; ``"forward-mode"`` is refused (no forward mode).
    """
    _check_strategy("jacobian", "strategy", strategy)
    if strict and vectorize:
        raise RuntimeError("jacobian: strict=True and vectorize=True are not supported "
                           "together (as in torch); set one of them to False")
    return _jacobian("jacobian", func, inputs, create_graph, strict, lambda i: f"output {i}")


def _jacobian(op: str, func: Callable, inputs: Any, create_graph: bool, strict: bool,
                name: Callable) -> Any:
    """:func:`jacobian`'s work, for ``op`` (``hessian`` runs it on the gradient), which
    calls output i ``name(i)`` in its errors."""
    with grad_mode.enable_grad():               # a graph is needed, even inside no_grad()
        inputs_tuple, inputs = _prepare(op, inputs, create_graph)
        outputs_tuple, outputs = _outputs(op, func, inputs, strict)
        jacobians = []
        for i, y in enumerate(outputs):
            rows = [[] for _ in inputs]                 # per input: one (x.shape) row each
            for grads in _rows(y, inputs, create_graph):
                for j, (x, g) in enumerate(zip(inputs, grads)):
                    where = (f"{name(i)} (shape {tuple(y.shape)}) by input {j} "
                             f"(shape {tuple(x.shape)})")
                    if g is None and strict:
                        raise RuntimeError(f"{op}: {name(i)} (shape {tuple(y.shape)}) does "
                                           f"not depend on input {j} (shape "
                                           f"{tuple(x.shape)}), which strict=True refuses; "
                                           "without strict its block is zeros")
                    if g is not None and strict and create_graph and not g.requires_grad:
                        raise RuntimeError(f"{op}: the derivative of {where} does not depend "
                                           "on the inputs (linear in it), so it cannot be "
                                           "differentiated again: strict=True refuses that "
                                           "when create_graph=True")
                    rows[j].append(_zeros(x) if g is None else g)
            blocks = []
            for x, x_rows in zip(inputs, rows):
                shape = tuple(y.shape) + tuple(x.shape)
                J = (stack(x_rows).reshape(shape) if x_rows       # (y.numel(), *x.shape)
                     else Tensor(x.backend.xp.zeros(shape, dtype=x.data.dtype),
                                 _backend=x.backend))             # y has no elements
                blocks.append(J if create_graph else J.detach())
            jacobians.append(_unpack(tuple(blocks), inputs_tuple))
    return _unpack(tuple(jacobians), outputs_tuple)


# ----------------------------------------------------------------------------- vjp, jvp
def _checked_v(op: str, v: Any, like: tuple, like_tuple: bool, what: str,
              create_graph: bool) -> tuple:
    """v as a tuple of tensors, one per tensor of ``like`` and of its shape (torch's rules),
    each a view if create_graph and it requires grad (the result is then differentiable
    with respect to v), else detached; None only when ``like`` is one tensor of one
    element (v = 1)."""
    if v is None:
        if len(like) != 1 or like[0].numel() != 1:
            raise RuntimeError(f"{op}: v can be None only if {what} is a single Tensor with a "
                               "single element; pass v, shaped as it")
        return (ones_like(like[0].detach()),)
    _, v = _as_tuple(op, "v", v)
    if len(v) != len(like):
        raise RuntimeError(f"{op}: v has {len(v)} tensors but {what} has {len(like)}; pass "
                           f"one per tensor" + (" in a tuple" if like_tuple else ""))
    for k, (vk, t) in enumerate(zip(v, like)):
        if tuple(vk.shape) != tuple(t.shape):
            raise RuntimeError(f"{op}: v[{k}] has shape {tuple(vk.shape)} but entry {k} of "
                               f"{what} has shape {tuple(t.shape)}; they must match")
        check_one_device(op, f"v[{k}] and entry {k} of {what}", vk, t)
    return tuple(_fresh(vk, create_graph, need_graph=False) for vk in v)


def vjp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """``(func(inputs), v^T J)``, as ``torch.autograd.functional.vjp``: one backward.

    ``vjp[j] = sum_i sum_o v[i][o] d outputs[i][o] / d inputs[j]``, shaped as
    ``inputs[j]``: what ``tinyffn.grad(outputs, inputs, v)`` gives, for fresh inputs.

    Args:
        func, inputs: as in :func:`jacobian`.
        v: the cotangent, a Tensor (or tuple) shaped as the outputs; may be None only when
            func returns one Tensor of one element.
        create_graph: if True, the outputs and v^T J keep their graph (differentiable with
            respect to the inputs and v where they require grad).
        strict: if True, an input that no output depends on is an error (else zeros); with
            create_graph, so is a v^T J that does not depend on the inputs or v.

    Returns:
        ``(outputs, vjp)``: the outputs (out of the graph unless create_graph), and one
        Tensor per input (a tuple if inputs was one).
    """
    with grad_mode.enable_grad():
        inputs_tuple, inputs = _prepare("vjp", inputs, create_graph)
        outputs_tuple, outputs = _outputs("vjp", func, inputs, strict)
        v = _checked_v("vjp", v, outputs, outputs_tuple, "the output of func", create_graph)
        grads = _grads(outputs, inputs, v, create_graph)
        result = _filled("vjp", grads, inputs, strict, create_graph,
                         lambda j: f"no output depends on input {j} (shape "
                                   f"{tuple(inputs[j].shape)})",
                         lambda j: f"v^T J for input {j} does not depend on the inputs or v")
    return _finished(outputs, outputs_tuple, create_graph), _unpack(result, inputs_tuple)


def jvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """``(func(inputs), J v)``, as ``torch.autograd.functional.jvp``, by reverse mode.

    ``jvp[i][o] = sum_j sum_n d outputs[i][o] / d inputs[j][n] v[j][n]``, shaped as
    ``outputs[i]``. Computed as torch's, by the double-backward trick (module docstring):
    one recorded backward with zero cotangents u that require grad, g = J^T u, then one
    backward of g with the cotangent v, d(v . J^T u)/du = J v: two backwards, whatever the
    sizes. That needs every op of func to be twice differentiable; where one is not and
    create_graph is False, J is taken one row at a time instead (one backward per output
    element, each row dotted with v and dropped), the same numbers at a cost that grows
    with the output.

    Args:
        func, inputs: as in :func:`jacobian`.
        v: the tangent, a Tensor (or tuple) shaped as the inputs; may be None only when
            inputs is one Tensor of one element.
        create_graph: if True, the outputs and J v keep their graph.
        strict: if True, an input that no output depends on is an error (else zeros); with
            create_graph, so is a J v that does not depend on the inputs or v.

    Returns:
        ``(outputs, jvp)``: the outputs (out of the graph unless create_graph), and one
        Tensor per output.
    """
    with grad_mode.enable_grad():
        inputs_tuple, inputs = _prepare("jvp", inputs, create_graph)
        v = _checked_v("jvp", v, inputs, inputs_tuple, "inputs", create_graph)
        outputs_tuple, outputs = _outputs("jvp", func, inputs, strict)
        if create_graph or all(_twice_differentiable(y) for y in outputs):
            Jv = _jvp_by_double_backward(outputs, inputs, v, create_graph, strict)
        else:
            Jv = _jvp_by_rows(outputs, inputs, v, strict)
        result = _filled("jvp", Jv, outputs, strict, create_graph,
                         lambda i: f"output {i} (shape {tuple(outputs[i].shape)}) has no J v "
                                   "(its recorded backward does not reach its cotangent)",
                         lambda i: f"J v for output {i} does not depend on the inputs or v")
    return _finished(outputs, outputs_tuple, create_graph), _unpack(result, outputs_tuple)


def _twice_differentiable(y: Tensor) -> bool:
    """Whether every op of y's graph can run its backward recorded (create_graph)."""
    return not y.requires_grad or all(
        getattr(node.fn, "twice_differentiable", False)
        for node in autograd.topological_order(y) if isinstance(node, autograd.Context))


def _check_every_input_used(grads: tuple, inputs: tuple) -> None:
    for j, (g, x) in enumerate(zip(grads, inputs)):
        if g is None:
            raise RuntimeError(f"jvp: no output depends on input {j} (shape "
                               f"{tuple(x.shape)}), which strict=True refuses")


def _jvp_by_double_backward(outputs: tuple, inputs: tuple, v: tuple, create_graph: bool,
                            strict: bool) -> tuple:
    """J v as torch computes it: g = J^T u recorded, then J v = d(v . g)/du."""
    # g is linear in u, so u's value never reaches J v: zeros, free of inf and nan
    u = tuple(zeros_like(y.detach(), requires_grad=True) for y in outputs)
    g = _grads(outputs, inputs, u, create_graph=True)    # g[j] = sum_i J[i][j]^T u[i]
    if strict:
        _check_every_input_used(g, inputs)
    return _grads(g, u, v, create_graph)                # d(sum_j v[j] . g[j]) / du[i]


def _jvp_by_rows(outputs: tuple, inputs: tuple, v: tuple, strict: bool) -> tuple:
    """J v one row at a time (func has an op that cannot be differentiated twice)."""
    used = [None] * len(inputs)                          # something non-None once used
    result = []
    for y in outputs:
        xp = y.backend.xp
        if strict and y.requires_grad and y.numel() == 0:    # no rows to say what y reads
            grads = autograd.grad(y, inputs, _zeros(y), retain_graph=True, allow_unused=True)
            used = [u if g is None else True for u, g in zip(used, grads)]
        values = []                                      # one scalar per element of y
        for grads in _rows(y, inputs, False):
            total = xp.zeros((), dtype=y.data.dtype)
            for j, (g, vj) in enumerate(zip(grads, v)):
                if g is not None:
                    used[j] = True
                    total = total + xp.astype(xp.sum(g.data * vj.data), y.data.dtype)
            values.append(total)
        Jv = (xp.reshape(xp.stack(values), y.shape) if values
              else xp.zeros(y.shape, dtype=y.data.dtype))
        result.append(Tensor(Jv, _backend=y.backend))
    if strict:
        _check_every_input_used(used, inputs)
    return tuple(result)


# the second derivatives, as torch.autograd.functional has them here too
from .autograd_hessian import hessian, hvp, vhp  # noqa: E402
