"""PyTorch's in-place functional forms: ``F.relu_(x)``, ``F.elu_(x)``, ``F.leaky_relu_``,
``F.hardtanh_``, ``F.threshold_``, ``F.selu_``, ``F.celu_`` and ``F.rrelu_``.

Each computes the function of its name without the underscore (``F.elu(x, alpha)``) and
gives x the result's array, under the rules of ``x -= y`` (:mod:`tinyffn.in_place`): x
stays the same object and keeps its shape and dtype; a graph that saved x's old array,
and ``x.detach()``, keep the old values. Where a gradient would be needed (x requires
grad, outside ``no_grad()``) it is refused, as tinyffn records no in-place ops, with an
error naming the out-of-place form, ``x = F.relu(x)``; so is a view of a live tensor
(``w[0]``). Programs that call them on activations inside ``no_grad()``, or on data, run
unchanged; in a training graph, write the out-of-place form (PyTorch saves memory with
them, tinyffn would not).
"""
from __future__ import annotations

from typing import Any

from .arguments import type_name
from .in_place import _stored, check_in_place
from .tensor import Tensor


def relu_(input: Tensor) -> Tensor:
    """``F.relu(x)`` stored into x (see the module docstring); returns x."""
    return _in_place("relu", input)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """``F.elu(x, alpha)`` stored into x; returns x."""
    return _in_place("elu", input, alpha)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """``F.leaky_relu(x, negative_slope)`` stored into x; returns x."""
    return _in_place("leaky_relu", input, negative_slope)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """``F.hardtanh(x, min_val, max_val)`` stored into x; returns x."""
    return _in_place("hardtanh", input, min_val, max_val)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """``F.threshold(x, threshold, value)`` stored into x; returns x."""
    return _in_place("threshold", input, threshold, value)


def selu_(input: Tensor) -> Tensor:
    """``F.selu(x)`` stored into x; returns x."""
    return _in_place("selu", input)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """``F.celu(x, alpha)`` stored into x; returns x."""
    return _in_place("celu", input, alpha)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
           training: bool = False) -> Tensor:
    """``F.rrelu(x, lower, upper, training)`` stored into x (in training, the slopes drawn
    from :func:`tinyffn.manual_seed`'s generator); returns x."""
    return _in_place("rrelu", input, lower, upper, training)


def _in_place(name: str, x: Any, *args: Any) -> Any:
    """x takes the values of ``F.name(x, *args)``, under the rules of ``x -= y``."""
    from . import functional as F           # functional.py imports this file
    what, new = f"{name}_", f"x = F.{name}(x, ...)" if args else f"x = F.{name}(x)"
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: input must be a tinyffn Tensor, got {type_name(x)}; "
                        "convert arrays (and torch tensors) with tinyffn.tensor(...)")
    check_in_place(x, what, None, new)
    return _stored(x, getattr(F, name)(x, *args), what, f"F.{name}(x)", new)


__all__ = ["relu_", "elu_", "leaky_relu_", "hardtanh_", "threshold_", "selu_", "celu_",
           "rrelu_"]
