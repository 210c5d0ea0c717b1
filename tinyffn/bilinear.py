"""The bilinear layer, as PyTorch 2.13 defines it: ``F.bilinear`` and ``nn.Bilinear``.

Where :func:`~tinyffn.functional.linear` maps one vector, y = W x + b, a bilinear layer
pairs two: each output is a quadratic form in x1 and x2, one matrix A_o per output::

    y_o = x1ᵀ A_o x2 + b_o = Σ_i Σ_j x1_i W[o, i, j] x2_j + b_o        W (O, I, J), b (O,)

Composed of a matrix product and a sum, so the graph shows how: z = x1 · W (the (I, O·J)
matrix W is, read as I rows), then y_o = Σ_j z[o, j] x2_j. Their gradients are
dL/dx1_i = Σ_o gy_o (A_o x2)_i, dL/dx2_j = Σ_o gy_o (A_oᵀ x1)_j,
dL/dW[o, i, j] = Σ gy_o x1_i x2_j and dL/db = Σ gy (sums over the leading axes).
"""
from __future__ import annotations

import math
from typing import Any

from . import grad_mode, init
from .arguments import _is_int, type_name
from .backend import DEFAULTS, dtype_name
from .creation import empty
from .module import Module, Parameter
from .tensor import Tensor


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor,
             bias: Tensor | None = None) -> Tensor:
    """y = x1ᵀ A x2 + b, as ``F.bilinear``: y[..., o] = Σ_ij x1[..., i] W[o, i, j]
    x2[..., j] + b[o] (formulas in the module docstring).

    Shapes: input1 (..., I) and input2 (..., J) with the same leading axes (no
    broadcasting, as PyTorch), weight (O, I, J), bias (O,) or None -> (..., O). Float
    dtypes may mix and promote, as in :func:`tinyffn.functional.linear`.
    """
    _check_bilinear(input1, input2, weight, bias)
    O, I, J = weight.shape
    lead = input1.shape[:-1]
    B = math.prod(lead)                                     # the positions, flattened
    with grad_mode.scope("function", "bilinear"):
        x1 = input1.reshape(B, I)                                   # (B, I)
        w = weight.permute(1, 0, 2).reshape(I, O * J)               # (I, O·J)
        z = (x1 @ w).reshape(B, O, J)                               # (B, O, J): x1ᵀ A_o
        y = (z * input2.reshape(B, 1, J)).sum(axis=-1)              # (B, O): · x2
        if bias is not None:
            y = y + bias
        return y.reshape(*lead, O)                                  # (..., O)


def _check_bilinear(x1: Any, x2: Any, weight: Any, bias: Any) -> None:
    op = "bilinear"
    for name, t in (("input1", x1), ("input2", x2), ("weight", weight), ("bias", bias)):
        if t is None and name == "bias":
            continue
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}: {name} must be a tinyffn Tensor, got {type_name(t)}; "
                            "convert arrays (and torch tensors) with tinyffn.tensor(...)")
        if not t.backend.is_floating(t.dtype):
            raise TypeError(f"{op}: {name} has dtype {dtype_name(t.dtype)}; a layer computes "
                            "in floating point: cast it with .to(dtype='float32')")
    if x1.ndim == 0 or x1.ndim != x2.ndim or x1.shape[:-1] != x2.shape[:-1]:
        raise ValueError(f"{op}: input1 {x1.shape} and input2 {x2.shape} must be (..., I) and "
                         "(..., J) with the same leading axes (PyTorch does not broadcast "
                         "them either)")
    if weight.ndim != 3 or weight.shape[1:] != (x1.shape[-1], x2.shape[-1]):
        raise ValueError(f"{op}: weight must have shape (O, I, J) = (O, {x1.shape[-1]}, "
                         f"{x2.shape[-1]}) for input1 {x1.shape} and input2 {x2.shape}, "
                         f"got {weight.shape}")
    if bias is not None and bias.shape != weight.shape[:1]:
        raise ValueError(f"{op}: bias must have shape (O,) = ({weight.shape[0]},), one entry "
                         f"per output of weight {weight.shape}, got {bias.shape}")


class Bilinear(Module):
    """y = x1ᵀ A x2 + b as a module, as ``torch.nn.Bilinear``: weight (out_features,
    in1_features, in2_features), bias (out_features,). Shapes: (..., in1_features) and
    (..., in2_features) -> (..., out_features).

    Initialised as PyTorch's: weight and bias ~ U(-1/sqrt(in1_features),
    1/sqrt(in1_features)), drawn from :func:`tinyffn.manual_seed`'s generator, weight
    first (not PyTorch's numbers, whose generator differs).
    """

    def __init__(self, in1_features: int, in2_features: int, out_features: int,
                 bias: bool = True, device: Any = None, dtype: Any = None):
        super().__init__()
        for name, n in (("in1_features", in1_features), ("in2_features", in2_features),
                        ("out_features", out_features)):
            if not (_is_int(n) and n > 0):
                raise ValueError(f"Bilinear: {name} must be a positive int, got {n!r}")
        self.in1_features, self.in2_features, self.out_features = (
            in1_features, in2_features, out_features)
        dtype, device = dtype or DEFAULTS.float, device or "cpu"
        self.weight = Parameter(empty(out_features, in1_features, in2_features, dtype=dtype,
                                      device=device))
        self.bias = Parameter(empty(out_features, dtype=dtype, device=device)) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """weight and bias redrawn from U(-1/sqrt(in1_features), 1/sqrt(in1_features))."""
        bound = 1 / math.sqrt(self.in1_features)
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
