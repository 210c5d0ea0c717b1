"""Second derivatives of a scalar function, as ``torch.autograd.functional``: ``hessian``,
``vhp`` (v^T H) and ``hvp`` (H v).

For a function f of the inputs x_0, x_1, ... that returns one number (a loss),

    H[i][j][n, m] = d^2 f / d x_i[n] d x_j[m],  shape inputs[i].shape + inputs[j].shape

is the Jacobian of the gradient: g = df/dx recorded (``create_graph=True``), then one
backward of g per element. Each is the way torch computes it, so each needs every op of
f to be twice differentiable (``tinyffn.higher_order.twice_differentiable_ops()``); any
other op refuses by name.

* ``hessian``: :func:`~tinyffn.autograd_functional.jacobian` of the function
  x -> df/dx (one backward for g, then one per element of the inputs).
* ``vhp``: one backward of g with the cotangent v: d(v . g)/dx = v^T H (two backwards).
* ``hvp``: H v without assuming H is symmetric, torch's double-backward trick: the backward
  of g with a cotangent w, b(w) = H^T w (recorded), is linear in w, and its backward with
  the cotangent v is d(v . H^T w)/dw = H v (three backwards). Where f is twice
  continuously differentiable H is symmetric and ``vhp`` gives the same numbers with one
  backward fewer, as torch's note says; ``hvp`` does not take that shortcut, so it agrees
  with torch's wherever f is not.
"""
from __future__ import annotations

from typing import Any, Callable

from . import autograd, grad_mode
from .autograd_functional import (_as_tuple, _filled, _finished, _grads, _prepare, _unpack,
                                  _zeros, _check_strategy, _checked_v, _jacobian)
from .creation import zeros_like
from .tensor import Tensor

__all__ = ["hessian", "vhp", "hvp"]


def _scalar(op: str, out: Any, strict: bool) -> Tensor:
    """f's output, checked to be one Tensor of one element (in torch's order)."""
    is_tuple, outs = _as_tuple(op, "the output of func", out)
    if strict and not outs[0].requires_grad:
        raise RuntimeError(f"{op}: the output of func (shape {tuple(outs[0].shape)}) does not "
                           "require grad: it was not computed from the inputs, which "
                           "strict=True refuses; without strict its derivatives are zeros")
    if is_tuple:
        raise RuntimeError(f"{op}: func must return a single Tensor (one number, such as a "
                           f"loss), not a tuple of {len(outs)}")
    if out.numel() != 1:
        raise RuntimeError(f"{op}: func must return a Tensor with a single element, got shape "
                           f"{tuple(out.shape)}; reduce it (.sum(), .mean()), or use jacobian "
                           "for the derivatives of every element")
    return out


def _gradient(op: str, out: Tensor, inputs: tuple, strict: bool) -> tuple:
    """df/dx for each input, recorded (None where f does not depend on x); strict=True:
    each must exist and depend on the inputs (else the second derivatives are 0)."""
    g = (autograd.grad(out, inputs, create_graph=True, allow_unused=True)
         if out.requires_grad else (None,) * len(inputs))
    for j, (gj, x) in enumerate(zip(g, inputs)):
        if strict and (gj is None or not gj.requires_grad):
            raise RuntimeError(
                f"{op}: the gradient of func with respect to input {j} (shape "
                f"{tuple(x.shape)}) does not depend on the inputs ("
                + ("func does not use input {j}" if gj is None else
                   f"func is linear in input {j}").format(j=j)
                + "), which strict=True refuses; without strict its second derivatives "
                "are zeros")
    return g


def hessian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode") -> Any:
    """The Hessian of a scalar ``func`` at ``inputs``, as ``torch.autograd.functional.hessian``.

    ``H[i][j]`` has shape ``inputs[i].shape + inputs[j].shape``:
    ``H[i][j][n, m] = d^2 func / d inputs[i][n] d inputs[j][m]``; one Tensor for one input,
    a tuple of tuples for a tuple of inputs. Computed as torch does, as the Jacobian of the
    gradient (recorded): one backward for the gradient, then one per element of the
    inputs, each through the recorded backward.

    Args:
        func: takes the input tensors, returns a Tensor with a single element.
        inputs: a Tensor or a tuple of Tensors (floating point).
        create_graph: if True, H is recorded (differentiable again: third derivatives).
        strict: if True, an input the gradient does not depend on (func linear in it, or
            not using it), or a block H[i][j] that is not computed from input j, is an
            error (else zeros, the mathematical value). Not with ``vectorize=True``.
        vectorize: accepted, as in :func:`~tinyffn.autograd_functional.jacobian`.
        outer_jacobian_strategy: ``"reverse-mode"``; ``"forward-mode"`` is refused.
    """
    _check_strategy("hessian", "outer_jacobian_strategy", outer_jacobian_strategy)
    if strict and vectorize:
        raise RuntimeError("hessian: strict=True and vectorize=True are not supported "
                           "together (as in torch); set one of them to False")
    inputs_tuple, _ = _as_tuple("hessian", "inputs", inputs)

    def gradient(*xs: Tensor) -> Any:        # x -> df/dx, whose Jacobian is H
        g = _gradient("hessian", _scalar("hessian", func(*xs), strict), xs, strict)
        return _unpack(tuple(_zeros(x) if gj is None else gj for gj, x in zip(g, xs)),
                       inputs_tuple)

    return _jacobian("hessian", gradient, inputs, create_graph, strict,
                       lambda i: f"the gradient by input {i}")


def _second_order(op: str, func: Callable, inputs: Any, v: Any, create_graph: bool,
                  strict: bool) -> tuple:
    """vhp's and hvp's first steps: (was inputs a tuple, fresh inputs, v, f's output, its
    recorded gradient). Call it under ``enable_grad``."""
    inputs_tuple, inputs = _prepare(op, inputs, create_graph)
    v = _checked_v(op, v, inputs, inputs_tuple, "inputs", create_graph)
    out = _scalar(op, func(*inputs), strict)
    return inputs_tuple, inputs, v, out, _gradient(op, out, inputs, strict)


def vhp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """``(func(inputs), v^T H)``, as ``torch.autograd.functional.vhp``.

    ``vhp[j] = sum_i sum_n v[i][n] H[i][j][n, ...]``, shaped as ``inputs[j]``: the
    gradient g recorded, then one backward of g with the cotangent v, d(v . g)/dx (two
    backwards in all).

    Args:
        func, inputs: as in :func:`hessian`.
        v: a Tensor (or tuple) shaped as the inputs; may be None only when inputs is one
            Tensor of one element.
        create_graph: if True, the output and v^T H keep their graph.
        strict: if True, an input the gradient does not depend on is an error (else
            zeros); with create_graph, so is a v^T H that depends on neither the inputs
            nor v.

    Returns:
        ``(func(inputs), vhp)``: the output, and one Tensor per input.
    """
    with grad_mode.enable_grad():
        inputs_tuple, inputs, v, out, g = _second_order("vhp", func, inputs, v,
                                                        create_graph, strict)
        result = _filled("vhp", _grads(g, inputs, v, create_graph), inputs, strict,
                         create_graph, lambda j: f"no second derivative reaches input {j}",
                         lambda j: f"v^T H for input {j} does not depend on the inputs or v")
    return _finished((out,), False, create_graph), _unpack(result, inputs_tuple)


def hvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """``(func(inputs), H v)``, as ``torch.autograd.functional.hvp``.

    ``hvp[i] = sum_j sum_m H[i][j][..., m] v[j][m]``, shaped as ``inputs[i]``, by torch's
    double-backward trick (module docstring): the gradient g recorded, b = H^T w recorded
    for zero cotangents w that require grad, then d(v . b)/dw = H v. Three backwards; H's
    symmetry is not used (``vhp`` gives the same numbers, one backward sooner, where f is
    twice continuously differentiable).

    Args:
        func, inputs, v, create_graph: as in :func:`vhp`.
        strict: as in :func:`vhp`, for H v.

    Returns:
        ``(func(inputs), hvp)``: the output, and one Tensor per input.
    """
    with grad_mode.enable_grad():
        inputs_tuple, inputs, v, out, g = _second_order("hvp", func, inputs, v,
                                                        create_graph, strict)
        # b is linear in w, so w's value never reaches H v: zeros, free of inf and nan
        w = tuple(zeros_like(x.detach(), requires_grad=True) for x in inputs)
        b = _grads(g, inputs, w, create_graph=True)      # b[k] = sum_j H[j][k]^T w[j]
        Hv = _grads(b, w, v, create_graph)               # d(sum_k v[k] . b[k]) / dw[j]
        result = _filled("hvp", Hv, inputs, strict, create_graph,
                         lambda j: f"no second derivative reaches input {j}",
                         lambda j: f"H v for input {j} does not depend on the inputs or v")
    return _finished((out,), False, create_graph), _unpack(result, inputs_tuple)
