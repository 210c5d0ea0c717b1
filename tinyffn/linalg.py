"""``tinyffn.linalg``: the norms of ``torch.linalg``, which scripts use to watch weights
and gradients (``torch.linalg.vector_norm(p.grad)``): ``vector_norm``, ``matrix_norm``
and ``norm``, which picks one of the two as PyTorch's does.

All are composed of :func:`tinyffn.norm`'s nodes (mul, abs, pow, sum, amax, where) or,
for a matrix's 1 and inf norms, a sum of absolute values and an ``amax`` (``amin`` for
-1 and -inf), so the gradients follow from the primitives': ties share, as PyTorch's
``amax``'s do. The norms that need singular values (ord 2, -2 and ``"nuc"``) are refused:
tinyffn computes no SVD.
"""
from __future__ import annotations

import math
from typing import Any

from . import grad_mode
from .arguments import _is_int, is_real
from .backend import dtype_name
from .tensor import Tensor


def _norm(x: Tensor, p: Any, dim: Any, keepdim: bool) -> Tensor:
    """:func:`tinyffn.norm`, read at call time: torch_functions.py imports functional.py,
    which imports this file (through distances.py) for ``F.cosine_similarity``."""
    from .torch_functions import norm
    return norm(x, p, dim, keepdim)


def _input(op: str, x: Any, dtype: Any) -> Tensor:
    """x, a floating tensor, cast to ``dtype`` first where one is given (as PyTorch)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"linalg.{op}: expected a tinyffn Tensor, got {type(x).__name__}; "
                        "wrap it with tinyffn.tensor(...)")
    if dtype is not None:
        wanted = x.backend.dtype(dtype)
        widths = {"float16": 16, "float32": 32, "float64": 64}
        if widths.get(dtype_name(wanted), 64) < widths.get(dtype_name(x.dtype), 0):
            raise ValueError(f"linalg.{op}: dtype={dtype_name(wanted)} would narrow the "
                             f"{dtype_name(x.dtype)} input, which PyTorch refuses too; cast "
                             "it first, x.to(dtype=...), if that is meant")
        x = x.to(dtype=wanted)
    if not x.backend.is_floating(x.dtype):
        raise TypeError(f"linalg.{op}: the tensor has dtype {dtype_name(x.dtype)}; a norm "
                        "needs a floating-point tensor, as in PyTorch: call x.float() first, "
                        "or pass dtype=tinyffn.float32")
    return x


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """The vector ``ord``-norm of ``x``'s entries over ``dim`` (an int, a tuple, or None for
    every entry, whatever x's shape), as ``torch.linalg.vector_norm``:
    (Σ |x|^ord)^(1/ord) for a number ord > 0, max |x| for inf, min |x| for -inf, and
    for 0 the count of nonzero entries (recorded by no graph; PyTorch's gradient is 0
    there). ``dtype``: x is
    cast to it first. :func:`tinyffn.norm` computes it (gradient 0 where x = 0); a float16
    x is computed in float32 and rounded. A negative ord other than -inf is refused."""
    x = _input("vector_norm", x, dtype)
    if not is_real(ord) or isinstance(ord, bool) or (ord < 0 and ord != -math.inf):
        raise ValueError(f"linalg.vector_norm: ord must be a number >= 0, inf or -inf, got "
                         f"{ord!r}" + ("; for a matrix norm use linalg.matrix_norm"
                                       if isinstance(ord, str) else ""))
    if ord == 0:                    # a count (a NaN counts), recorded by no graph
        with grad_mode.no_grad():
            return (x != 0).to(dtype=x.dtype).sum(axis=_dims(dim), keepdims=keepdim)
    return _norm(x, ord, dim, keepdim)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """The matrix norm of each matrix in the axes ``dim`` = (rows, cols) of ``A``, as
    ``torch.linalg.matrix_norm``: ``"fro"`` sqrt(Σ a²); 1 the largest column sum of |a|
    (max over cols of Σ over rows), -1 the smallest; inf the largest row sum, -inf the
    smallest. ``dtype``: A is cast to it first. 2, -2 and ``"nuc"`` need singular values,
    which tinyffn does not compute: refused."""
    x = _input("matrix_norm", A, dtype)
    if x.ndim < 2:
        raise ValueError(f"linalg.matrix_norm: A must have at least 2 axes (a matrix, or a "
                         f"batch of them), got shape {x.shape}; for a vector use "
                         "linalg.vector_norm")
    if not (isinstance(dim, (tuple, list)) and len(dim) == 2 and all(map(_is_int, dim))):
        raise ValueError(f"linalg.matrix_norm: dim must be a pair of axes (rows, cols), got "
                         f"{dim!r}")
    rows, cols = (int(d) % x.ndim if -x.ndim <= d < x.ndim else d for d in dim)
    if not (0 <= rows < x.ndim and 0 <= cols < x.ndim) or rows == cols:
        raise ValueError(f"linalg.matrix_norm: dim {tuple(dim)} must name two different axes "
                         f"of A's {x.ndim}")
    if ord in (2, -2, "nuc"):
        raise NotImplementedError(f"linalg.matrix_norm: ord={ord!r} needs singular values, "
                                  "which tinyffn does not compute; 'fro', 1, -1, inf and "
                                  "-inf are supported")
    if ord == "fro":
        return _norm(x, "fro", (rows, cols), keepdim)
    if ord not in (1, -1, math.inf, -math.inf) or isinstance(ord, bool):
        raise ValueError(f"linalg.matrix_norm: ord must be 'fro', 1, -1, inf or -inf, got "
                         f"{ord!r}")
    summed, extreme = (rows, cols) if abs(ord) == 1 else (cols, rows)
    with grad_mode.scope("function", "matrix_norm"):
        s = x.abs().sum(axis=summed, keepdims=True)             # (..., 1, cols) for ord 1
        y = s.amax(extreme, True) if ord > 0 else s.amin(extreme, True)   # (..., 1, 1)
        return y if keepdim else y.squeeze((rows, cols))


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """A vector or a matrix norm, as ``torch.linalg.norm``: with ``dim`` an int (or one axis
    in a tuple), :func:`vector_norm` over it; with two axes, :func:`matrix_norm` over them;
    with neither ``dim`` nor ``ord``, the 2-norm of every entry (any shape); with ``ord``
    alone, A must be a vector or a matrix. ``ord`` None means 2 for a vector, ``"fro"`` for
    a matrix."""
    x = _input("norm", A, dtype)
    if isinstance(dim, (tuple, list)) and len(dim) == 2:
        return matrix_norm(x, "fro" if ord is None else ord, dim, keepdim)
    if dim is not None:
        one = dim[0] if isinstance(dim, (tuple, list)) and len(dim) == 1 else dim
        return vector_norm(x, 2 if ord is None else ord, one, keepdim)
    if ord is None:
        return vector_norm(x, 2, None, keepdim)
    if x.ndim == 1:
        return vector_norm(x, ord, None, keepdim)
    if x.ndim == 2:
        return matrix_norm(x, ord, (-2, -1), keepdim)
    raise ValueError(f"linalg.norm: with ord and no dim, A must be a vector or a matrix (as "
                     f"in PyTorch), got shape {x.shape}; pass dim, or flatten first")


def _dims(dim: Any) -> Any:
    """``dim`` as sum reads it: None (or ()) for every axis."""
    return None if dim is None or isinstance(dim, (tuple, list)) and not dim else dim


__all__ = ["vector_norm", "matrix_norm", "norm"]
