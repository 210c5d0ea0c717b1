"""Checking a backward against finite differences, the way ``torch.autograd.gradcheck`` does.

For f: inputs -> outputs, the Jacobian J[o, j] = dy_o / dx_j is computed twice:

* numerically, by central differences:
  J_num[:, j] = (f(x + eps e_j) - f(x - eps e_j)) / (2 eps), each entry of x restored
  right after it is perturbed. The inputs are perturbed in their own dtype (as PyTorch
  does), so check float64 inputs: with eps = 1e-6, float32 has too few digits, and
  gradcheck warns. The differences are taken in float64.
* analytically, by one backward per output element o, with the cotangent r_o e_o for a
  random r_o (not 1), then dividing by r_o: a backward that forgets to multiply by the
  incoming gradient ``gy`` is off by the factor r_o and fails.

The two must agree within ``|J - J_num| <= atol + rtol |J_num|`` at every entry. A NaN on
either side is a disagreement, as in ``torch.allclose``: a backward that returns NaN
fails, and so does a function whose finite differences are NaN (a step of eps leaving its
domain: check it at a point further inside). A function returning several tensors (a
tuple or list) is checked output by output.
"""
from __future__ import annotations

import math
import warnings
from typing import Any, Callable, Sequence

import numpy as np

from . import autograd, grad_mode
from .arguments import is_real
from .backend import dtype_name
from .tensor import Tensor


class GradcheckError(AssertionError):
    """The analytical and numerical Jacobians disagree (the message says where)."""


def gradcheck(fn: Callable[..., Any], inputs: Sequence[Any], eps: float = 1e-6,
              atol: float = 1e-5, rtol: float = 1e-3, seed: int = 0,
              raise_exception: bool = True) -> bool:
    """True if ``fn``'s backward matches finite differences at ``inputs``; else raises
    :class:`GradcheckError` (or returns False, with ``raise_exception=False``).

    Args:
        fn: takes the inputs (positionally) and returns a Tensor, or a tuple or list of
            Tensors (each output is checked).
        inputs: tensors (those with ``requires_grad`` are checked) and any other arguments;
            a single Tensor stands for a one-element tuple, as in PyTorch.
        eps: the finite-difference step (> 0).
        atol, rtol: the tolerance, ``|analytical - numerical| <= atol + rtol * |numerical|``.
        seed: seeds the random cotangent scales.
        raise_exception: if False, return False instead of raising GradcheckError.

    Raises:
        GradcheckError: naming the output and input, the output and input elements, both
            values and the tolerance, at the first entry that disagrees.
    """
    for name, value, smallest in (("eps", eps, "> 0"), ("atol", atol, ">= 0"),
                                  ("rtol", rtol, ">= 0")):
        if not (is_real(value) and math.isfinite(value)
                and (value > 0 if name == "eps" else value >= 0)):
            raise ValueError(f"gradcheck: {name} must be a finite number {smallest}, "
                             f"got {value!r}")
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    checked = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    if not checked:
        raise ValueError("gradcheck: no input requires grad; create the inputs to check "
                         "with requires_grad=True")
    for i in checked:
        if dtype_name(inputs[i].dtype) != "float64":
            warnings.warn(f"gradcheck: input {i} is {dtype_name(inputs[i].dtype)}, not float64; "
                          f"finite differences with eps={eps:g} are unreliable below double "
                          "precision", stacklevel=2)
    analytical = _analytical_jacobians(fn, inputs, checked, np.random.default_rng(seed))
    numerical = _numerical_jacobians(fn, inputs, checked, eps)
    with grad_mode.no_grad():
        shapes = [tuple(y.shape) for y in _outputs(fn, inputs)]
    starts = np.cumsum([0] + [math.prod(shape) for shape in shapes])
    for i, ana, num in zip(checked, analytical, numerical):
        ok = np.abs(ana - num) <= atol + rtol * np.abs(num)     # False where either is NaN
        if ok.all():
            continue
        if not raise_exception:
            return False
        o, j = map(int, np.argwhere(~ok)[0])
        k = int(np.searchsorted(starts, o, side="right")) - 1   # the output entry o is in
        out_index = np.unravel_index(o - starts[k], shapes[k]) if shapes[k] else ()
        in_index = np.unravel_index(j, inputs[i].shape) if inputs[i].shape else ()
        output = "output" if len(shapes) == 1 else f"output {k}"
        raise GradcheckError(
            f"gradcheck failed for input {i} (shape {inputs[i].shape}): "
            f"d {output}{tuple(map(int, out_index))} / d input{tuple(map(int, in_index))} is "
            f"{ana[o, j]:.8g} by backward but {num[o, j]:.8g} by finite differences "
            f"(tolerance {atol} + {rtol} * |numerical|); {int((~ok).sum())} of {ok.size} "
            "Jacobian entries disagree")
    return True


def gradgradcheck(fn: Callable[..., Any], inputs: Sequence[Any], grad_outputs: Any = None,
                  eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3, seed: int = 0,
                  raise_exception: bool = True) -> bool:
    """True if ``fn``'s second derivatives, by a backward through its recorded backward
    (``create_graph=True``), match finite differences of its first derivatives; else
    raises :class:`GradcheckError` (``torch.autograd.gradgradcheck``).

    It is :func:`gradcheck` of the vector-Jacobian product ``(x, v) -> v^T df/dx`` (what
    ``grad(fn(x), x, v, create_graph=True)`` returns), checked with respect to the inputs
    x and to the cotangents v: ``grad_outputs``, one per output of fn, random by default
    (from ``seed``). The arguments are :func:`gradcheck`'s.
    """
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    checked = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    if not checked:
        raise ValueError("gradgradcheck: no input requires grad; create the inputs to check "
                         "with requires_grad=True")
    with grad_mode.enable_grad():
        ys = _outputs(fn, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(seed)
        grad_outputs = tuple(Tensor(y.backend.asarray(rng.standard_normal(y.shape), y.dtype),
                                    requires_grad=True, _backend=y.backend) for y in ys)
    grad_outputs = (grad_outputs,) if isinstance(grad_outputs, Tensor) else tuple(grad_outputs)
    if len(grad_outputs) != len(ys):
        raise ValueError(f"gradgradcheck: fn returns {len(ys)} outputs but {len(grad_outputs)} "
                         "grad_outputs were given; give one per output, of its shape")
    n = len(inputs)

    def vector_jacobian_product(*args: Any) -> tuple:
        xs, vs = args[:n], args[n:]
        with grad_mode.enable_grad():
            ys = [y for y in _outputs(fn, xs)]
            used = [(y, v) for y, v in zip(ys, vs) if y.requires_grad]
            if not used:                # fn depends on no input: every gradient is 0
                return tuple(xs[i] * 0 for i in checked)
            if len(used) == 1:
                (y, v), = used
            else:                       # one output standing for all: sum_k v_k . y_k
                y, v = sum((y * v).sum() for y, v in used), None
            return autograd.grad(y, [xs[i] for i in checked], v, create_graph=True,
                                 materialize_grads=True)

    return gradcheck(vector_jacobian_product, inputs + grad_outputs, eps, atol, rtol, seed,
                     raise_exception)


def _outputs(fn: Callable[..., Any], inputs: tuple) -> tuple:
    """fn's outputs, always as a tuple of Tensors."""
    y = fn(*inputs)
    ys = tuple(y) if isinstance(y, (tuple, list)) else (y,)
    if not ys or not all(isinstance(t, Tensor) for t in ys):
        got = (f"an empty {type(y).__name__}" if not ys else f"{type(y).__name__}"
               + (f" of {', '.join(type(t).__name__ for t in ys)}"
                  if isinstance(y, (tuple, list)) else ""))
        raise TypeError(f"gradcheck: fn must return a Tensor or a tuple of Tensors, got {got}")
    return ys


def _analytical_jacobians(fn, inputs, checked, rng) -> list:
    """J[o, j] by backward: one autograd.grad per output entry, with a random cotangent."""
    with grad_mode.enable_grad():               # a graph is needed, even inside no_grad()
        ys = _outputs(fn, inputs)
    blocks = [[] for _ in checked]              # per checked input: one block of rows per y
    for y in ys:
        jacobians = [np.zeros((y.numel(), inputs[i].numel())) for i in checked]
        for o in range(y.numel() if y.requires_grad else 0):    # else y depends on no input
            r = rng.uniform(0.5, 2.0) * rng.choice([-1.0, 1.0])
            cotangent = np.zeros(y.numel())
            cotangent[o] = r
            cotangent = Tensor(y.backend.asarray(cotangent.reshape(y.shape), y.dtype),
                               _backend=y.backend)
            grads = autograd.grad(y, [inputs[i] for i in checked], cotangent, retain_graph=True,
                                  materialize_grads=True)      # an unused input: zeros
            for jacobian, g in zip(jacobians, grads):
                jacobian[o] = g.numpy().astype(np.float64).ravel() / r
        for block, jacobian in zip(blocks, jacobians):
            block.append(jacobian)
    return [np.concatenate(block) for block in blocks]


def _numerical_jacobians(fn, inputs, checked, eps) -> list:
    """J[o, j] by central differences, perturbing one input entry j at a time."""
    jacobians = []
    with grad_mode.no_grad():
        for i in checked:
            t = inputs[i]
            original = t.data
            base = t.numpy()
            columns = []
            try:
                for j in range(base.size):
                    f = []
                    for step in (eps, -eps):
                        shifted = base.copy()
                        shifted.flat[j] += step
                        t.data = t.backend.from_numpy(shifted)
                        f.append(np.concatenate([y.numpy().astype(np.float64).ravel()
                                                 for y in _outputs(fn, inputs)]))
                        t.data = original        # restore the entry before the next one
                    columns.append((f[0] - f[1]) / (2 * eps))
            finally:
                t.data = original
            n_out = columns[0].size if columns else sum(y.numel() for y in _outputs(fn, inputs))
            jacobians.append(np.stack(columns, axis=1) if columns else np.zeros((n_out, 0)))
    return jacobians
