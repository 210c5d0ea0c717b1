"""Checking a backward against finite differences, the way ``torch.autograd.gradcheck`` does.

For f: inputs -> y, the Jacobian J[o, j] = dy_o / dx_j is computed twice:

* numerically, by central differences in float64:
  J_num[:, j] = (f(x + eps e_j) - f(x - eps e_j)) / (2 eps), each entry of x restored
  right after it is perturbed;
* analytically, by one backward per output element o, with the cotangent r_o e_o for a
  random r_o (not 1), then dividing by r_o: a backward that forgets to multiply by the
  incoming gradient ``gy`` is off by the factor r_o and fails.

The two must agree within ``|J - J_num| <= atol + rtol |J_num|`` at every entry.
"""
from __future__ import annotations

import math
import warnings
from typing import Any, Callable, Sequence

import numpy as np

from . import autograd
from .backend import dtype_name
from .tensor import Tensor


class GradcheckError(AssertionError):
    """The analytical and numerical Jacobians disagree (the message says where)."""


def gradcheck(fn: Callable[..., Tensor], inputs: Sequence[Any], eps: float = 1e-6,
              atol: float = 1e-5, rtol: float = 1e-3, seed: int = 0) -> bool:
    """True if ``fn``'s backward matches finite differences at ``inputs``; else raises.

    Args:
        fn: takes the inputs (positionally) and returns one Tensor.
        inputs: tensors (those with ``requires_grad`` are checked) and any other arguments;
            a single Tensor stands for a one-element tuple, as in PyTorch.
        eps: the finite-difference step.
        atol, rtol: the tolerance, ``|analytical - numerical| <= atol + rtol * |numerical|``.
        seed: seeds the random cotangent scales.

    Raises:
        GradcheckError: naming the input, the output and input elements, both values and
            the tolerance, at the first entry that disagrees.
    """
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    checked = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    if not checked:
        raise ValueError("gradcheck: no input requires grad; create the inputs to check "
                         "with requires_grad=True")
    for i in checked:
        if dtype_name(inputs[i].dtype) != "float64":
            warnings.warn(f"gradcheck: input {i} is {dtype_name(inputs[i].dtype)}, not float64; "
                          "finite differences with eps=1e-6 are unreliable below double "
                          "precision", stacklevel=2)
    analytical = _analytical_jacobians(fn, inputs, checked, np.random.default_rng(seed))
    numerical = _numerical_jacobians(fn, inputs, checked, eps)
    y_shape = tuple(_output(fn, inputs).shape)
    for i, ana, num in zip(checked, analytical, numerical):
        bad = np.abs(ana - num) > atol + rtol * np.abs(num)
        if bad.any():
            o, j = map(int, np.argwhere(bad)[0])
            out_index = np.unravel_index(o, y_shape) if y_shape else ()
            in_index = np.unravel_index(j, inputs[i].shape) if inputs[i].shape else ()
            raise GradcheckError(
                f"gradcheck failed for input {i} (shape {inputs[i].shape}): "
                f"d output{tuple(map(int, out_index))} / d input{tuple(map(int, in_index))} is "
                f"{ana[o, j]:.8g} by backward but {num[o, j]:.8g} by finite differences "
                f"(tolerance {atol} + {rtol} * |numerical|); {int(bad.sum())} of {bad.size} "
                "Jacobian entries disagree")
    return True


def _output(fn: Callable[..., Tensor], inputs: tuple) -> Tensor:
    y = fn(*inputs)
    if not isinstance(y, Tensor):
        raise TypeError(f"gradcheck: fn must return a Tensor, got {type(y).__name__}")
    return y


def _analytical_jacobians(fn, inputs, checked, rng) -> list:
    y = _output(fn, inputs)
    n_out = y.numel()
    jacobians = [np.zeros((n_out, inputs[i].numel())) for i in checked]
    if not y.requires_grad:             # y does not depend on any input: J = 0
        return jacobians
    for o in range(n_out):
        r = rng.uniform(0.5, 2.0) * rng.choice([-1.0, 1.0])
        cotangent = np.zeros(y.numel())
        cotangent[o] = r
        cotangent = Tensor(y.backend.asarray(cotangent.reshape(y.shape), y.dtype),
                           _backend=y.backend)
        grads = autograd.grad(y, [inputs[i] for i in checked], cotangent, retain_graph=True)
        for jac, g in zip(jacobians, grads):
            jac[o, :] = g.numpy().ravel() / r
    return jacobians


def _numerical_jacobians(fn, inputs, checked, eps) -> list:
    jacobians = []
    with autograd.no_grad():
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
                        f.append(_output(fn, inputs).numpy().astype(np.float64).ravel())
                        t.data = original        # restore the entry before the next one
                    columns.append((f[0] - f[1]) / (2 * eps))
            finally:
                t.data = original
            n_out = columns[0].size if columns else math.prod(_output(fn, inputs).shape)
            jacobians.append(np.stack(columns, axis=1) if columns else np.zeros((n_out, 0)))
    return jacobians
