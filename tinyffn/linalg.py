"""``tinyffn.linalg``: the norms of ``torch.linalg``, which scripts use to watch weights
and gradients (``torch.linalg.vector_norm(p.grad)``): ``vector_norm``, ``matrix_norm``
and ``norm``, which picks one of the two as PyTorch's does.

All are composed of :func:`tinyffn.norm`'s nodes (mul, abs, pow, sum, amax, where) or,
for a matrix's 1 and inf norms, a sum of absolute values and an ``amax`` (``amin`` for
-1 and -inf), so the gradients follow from the primitives': ties share, as PyTorch's
``amax``'s do; the norms of singular values (ord 2, -2 and ``"nuc"``) are ``svdvals``'
``amax``, ``amin`` and ``sum``.

The decompositions, as ``torch.linalg``'s (names, defaults, named tuples, batching over
leading axes, float32 and float64): ``svdvals``, ``svd``, ``matrix_rank``, ``det``,
``slogdet``, ``inv``, ``solve``, ``eigvalsh``, ``eigh``, ``qr``. Each is one primitive of
:mod:`tinyffn.ops.decompositions` (the math and PyTorch's gradients are there), computed
by the backend's ``xp.linalg``; a singular matrix raises :class:`LinAlgError`, a
``RuntimeError`` as ``torch.linalg.LinAlgError`` is. ``pinv``, ``lstsq``, ``cond``,
``matrix_power``, ``multi_dot``, ``matmul``, ``vecdot`` and ``diagonal`` are composed of
these in :mod:`tinyffn.linalg_extra`, and ``cholesky``, ``cholesky_ex``, ``solve_triangular``
and ``matrix_exp`` (primitives of :mod:`tinyffn.ops.cholesky`) are wrapped in
:mod:`tinyffn.linalg_cholesky`; both are imported at the end of this file.
"""
from __future__ import annotations

import math
from typing import Any, NamedTuple

from . import grad_mode
from . import ops
from .ops.decompositions import LinAlgError
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
    for 0 the count of nonzero entries (its gradient is 0: a count's derivative is 0
    wherever it exists). ``dtype``: x is
    cast to it first. :func:`tinyffn.norm` computes it (gradient 0 where x = 0); a float16
    x is computed in float32 and rounded. A negative ord gives (Σ |x|^ord)^(1/ord) too, 0
    where an entry is 0, as PyTorch's."""
    x = _input("vector_norm", x, dtype)
    if not is_real(ord) or isinstance(ord, bool) or ord != ord:
        raise ValueError(f"linalg.vector_norm: ord must be a number (inf and -inf too), got "
                         f"{ord!r}" + ("; for a matrix norm use linalg.matrix_norm"
                                       if isinstance(ord, str) else ""))
    return _norm(x, ord, dim, keepdim)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """The matrix norm of each matrix in the axes ``dim`` = (rows, cols) of ``A``, as
    ``torch.linalg.matrix_norm``: ``"fro"`` sqrt(Σ a²); 1 the largest column sum of |a|
    (max over cols of Σ over rows), -1 the smallest; inf the largest row sum, -inf the
    smallest; 2 the largest singular value, -2 the smallest, ``"nuc"`` their sum (from
    :func:`svdvals`). ``dtype``: A is cast to it first."""
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
    if ord in (2, -2, "nuc") and not isinstance(ord, bool):        # from the singular values
        with grad_mode.scope("function", "matrix_norm"):
            others = [a for a in range(x.ndim) if a not in (rows, cols)]
            sv = svdvals(x.permute(*others, rows, cols))                # (..., k)
            y = sv.sum(-1) if ord == "nuc" else sv.amax(-1) if ord == 2 else sv.amin(-1)
            return y.unsqueeze(min(rows, cols)).unsqueeze(max(rows, cols)) if keepdim else y
    if ord == "fro":
        return _norm(x, "fro", (rows, cols), keepdim)
    if ord not in (1, -1, math.inf, -math.inf) or isinstance(ord, bool):
        raise ValueError(f"linalg.matrix_norm: ord must be 'fro', 'nuc', 2, -2, 1, -1, inf or -inf, got "
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


# ----------------------------------------------------------------------- decompositions
class SVDResult(NamedTuple):
    U: Tensor
    S: Tensor
    Vh: Tensor


class SlogdetResult(NamedTuple):
    sign: Tensor
    logabsdet: Tensor


class QRResult(NamedTuple):
    Q: Tensor
    R: Tensor


class EighResult(NamedTuple):
    eigenvalues: Tensor
    eigenvectors: Tensor


def _matrix(op: str, A: Any, square: bool = False) -> Tensor:
    """A, checked: a float32 or float64 tensor of at least 2 axes (square if asked)."""
    if not isinstance(A, Tensor):
        raise TypeError(f"linalg.{op}: expected a tinyffn Tensor, got {type(A).__name__}; "
                        "wrap it with tinyffn.tensor(...)")
    name = dtype_name(A.dtype)
    if name not in ("float32", "float64"):
        raise TypeError(f"linalg.{op}: A has dtype {name}; the decompositions take float32 "
                        "or float64 (PyTorch's CPU refuses integers and float16 too): call "
                        "A.float() or A.double() first")
    if A.ndim < 2:
        raise ValueError(f"linalg.{op}: A must have at least 2 axes (a matrix, or a batch "
                         f"of them), got shape {A.shape}")
    if square and A.shape[-1] != A.shape[-2]:
        raise ValueError(f"linalg.{op}: A must be batches of square matrices, but they are "
                         f"{A.shape[-2]} by {A.shape[-1]} matrices (shape {A.shape})")
    return A


def _apply(op: str, fn: Any, *xs: Tensor, B: Any = None, equation: str = "A X = B",
           **attrs: Any) -> Tensor:
    """fn.apply(*xs), a backend's LinAlgError raised as tinyffn's, naming op, A's shape and
    (for solve) B's as the caller passed it."""
    try:
        return fn.apply(*xs, **attrs)
    except Exception as e:
        if type(e).__name__ != "LinAlgError":
            raise
        if "converge" in str(e):        # an SVD's iteration: NaN or inf in A, as a rule
            raise LinAlgError(f"linalg.{op}: the SVD of A (shape {xs[0].shape}) did not "
                              "converge; does A hold NaN or inf? (PyTorch refuses those "
                              f"too); the backend says: {e}") from e
        what = ("it has no inverse" if B is None else
                f"{equation} has no unique solution (B of shape {B.shape})")
        raise LinAlgError(f"linalg.{op}: A (shape {xs[0].shape}) is singular, so {what}; "
                          f"the backend says: {e}") from e


def svdvals(A):
    """The singular values of A (..., m, n): (..., min(m, n)), largest first, as
    ``torch.linalg.svdvals``. Gradient U diag(gS) Vh (ops.Svdvals)."""
    return _apply("svdvals", ops.Svdvals, _matrix("svdvals", A))


def svd(A, full_matrices=True):
    """A = U diag(S) Vh, as ``torch.linalg.svd``: a named tuple (U, S, Vh) with U
    (..., m, m), S (..., k), Vh (..., n, n), k = min(m, n); with ``full_matrices=False``
    U (..., m, k) and Vh (..., k, n). Signs of each singular vector pair are the LAPACK
    driver's (torch's may differ). Gradients as PyTorch's (ops.Svd): infinite where two
    singular values are equal and U or Vh is used."""
    x = _matrix("svd", A)
    m, n = x.shape[-2:]
    k = min(m, n)
    ku, kv = (m, n) if full_matrices else (k, k)
    y = _apply("svd", ops.Svd, x, full_matrices=bool(full_matrices))   # (..., m·ku + k + kv·n)
    batch = x.shape[:-2]
    U = y[..., :m * ku].reshape(*batch, m, ku)
    S = y[..., m * ku:m * ku + k]
    Vh = y[..., m * ku + k:].reshape(*batch, kv, n)
    return SVDResult(U, S, Vh)


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False):
    """The number of singular values above max(atol, rtol · σ_max) in each matrix of A, an
    int64 tensor (...), as ``torch.linalg.matrix_rank``: with neither given rtol is
    eps · max(m, n) (eps of A's dtype); with atol > 0 alone, rtol is 0. ``hermitian``: A
    is symmetric (its lower triangle is read) and |eigenvalues| are used. No gradient.
    As PyTorch's, the cutoff is compared in float64 (float32's σ = 0.1 is above atol = 0.1)
    and rtol's default holds where atol <= 0, entry by entry for a tensor atol."""
    x = _matrix("matrix_rank", A, square=hermitian)
    with grad_mode.no_grad():
        s = eigvalsh(x).abs() if hermitian else svdvals(x)          # (..., k)
        s = s.to(dtype="float64")               # PyTorch's tolerances are doubles
        a = _as(0.0 if atol is None else atol, s)           # (..., 1), or 0-d
        if rtol is None:    # eps · max(m, n) where atol is not given or <= 0, else 0
            default = float(x.backend.xp.finfo(x.dtype).eps) * max(x.shape[-2:])
            r = s.new_tensor(default) if atol is None else (a <= 0).to(dtype="float64") * default
        else:
            r = _as(rtol, s)
        biggest = s.amax(-1, True) if s.shape[-1] else s.sum(-1, True)   # (..., 1)
        tol = a.maximum(r * biggest)
        return (s > tol).to(dtype="int64").sum(-1)


def _as(v: Any, s: Tensor) -> Tensor:
    """atol or rtol, a number or a tensor (broadcast against the batch), as a column."""
    if isinstance(v, Tensor):
        return v.to(dtype=s.dtype).unsqueeze(-1)
    return s.new_tensor(float(v))


def det(A):
    """The determinant of each square matrix of A (..., n, n): (...), as
    ``torch.linalg.det``. Gradient gy · adj(A)^T, the cofactor matrix (ops.Det)."""
    return _apply("det", ops.Det, _matrix("det", A, square=True))


def slogdet(A):
    """(sign, logabsdet) with det(A) = sign · exp(logabsdet), as ``torch.linalg.slogdet``:
    sign 0 and logabsdet -inf for a singular A. Gradient (of logabsdet) g · A^{-T}."""
    x = _matrix("slogdet", A, square=True)
    y = _apply("slogdet", ops.Slogdet, x)                           # (..., 2)
    return SlogdetResult(y[..., 0], y[..., 1])


def inv(A):
    """A^{-1} for each square matrix of A (..., n, n), as ``torch.linalg.inv``; a
    singular A raises LinAlgError. Gradient −A^{-T} gY A^{-T}."""
    return _apply("inv", ops.Inv, _matrix("inv", A, square=True))


def solve(A, B, *, left=True):
    """X with A X = B (``left=False``: X A = B), as ``torch.linalg.solve``: A (..., n, n),
    B (..., n, k), or a batch of vectors (..., n) when B is 1-D or B's shape is A's without
    the last axis; batch axes broadcast. A singular A raises LinAlgError. Gradients
    gB = A^{-T} gX, gA = −gB X^T (ops.Solve)."""
    x = _matrix("solve", A, square=True)
    if not isinstance(B, Tensor):
        raise TypeError(f"linalg.solve: expected B a tinyffn Tensor, got {type(B).__name__}")
    if B.dtype != x.dtype:
        raise TypeError(f"linalg.solve: A has dtype {dtype_name(x.dtype)} and B "
                        f"{dtype_name(B.dtype)}; they must match, as in PyTorch: cast one")
    vector = B.ndim == 1 or (B.ndim == x.ndim - 1 and B.shape == x.shape[:-1])
    b = B.unsqueeze(-1 if left else -2) if vector else B            # (..., n, 1) or (..., 1, n)
    if b.ndim < 2 or b.shape[-2 if left else -1] != x.shape[-1]:
        raise ValueError(f"linalg.solve: A of shape {x.shape} and B of shape {B.shape} do "
                         f"not fit: B must be (..., {x.shape[-1]}, k) or a batch of vectors "
                         f"(..., {x.shape[-1]})" + ("" if left else " (left=False: B is "
                                                    f"(..., k, {x.shape[-1]}))"))
    try:
        X = _apply("solve", ops.Solve, x, b, B=B) if left else \
            _apply("solve", ops.Solve, x.mT, b.mT, B=B, equation="X A = B").mT   # A^T X^T = B^T
    except ValueError as e:
        raise ValueError(f"linalg.solve: the batch axes of A {x.shape} and B {B.shape} "
                         "cannot be broadcast together") from e
    return X.squeeze(-1 if left else -2) if vector else X


def _hermitian(op: str, A: Any, UPLO: str) -> Tensor:
    x = _matrix(op, A, square=True)
    if UPLO not in ("L", "U"):
        raise ValueError(f"linalg.{op}: UPLO must be 'L' or 'U', got {UPLO!r}")
    return x


def eigvalsh(A, UPLO="L"):
    """The eigenvalues of each symmetric matrix of A (..., n, n), ascending (..., n), as
    ``torch.linalg.eigvalsh``: only the triangle ``UPLO`` ('L' lower, 'U' upper) is read.
    Gradient V diag(g) V^T (ops.Eigvalsh), symmetric, in both triangles, as PyTorch's."""
    return ops.Eigvalsh.apply(_hermitian("eigvalsh", A, UPLO), UPLO=UPLO)


def eigh(A, UPLO="L"):
    """(eigenvalues, eigenvectors) of each symmetric matrix of A, as ``torch.linalg.eigh``:
    A = V diag(L) V^T, L ascending (..., n), V's columns orthonormal (..., n, n), each
    with the LAPACK driver's sign. Only the triangle ``UPLO`` is read. Gradients as
    PyTorch's (ops.Eigh): infinite where two eigenvalues are equal and V is used."""
    x = _hermitian("eigh", A, UPLO)
    n = x.shape[-1]
    y = ops.Eigh.apply(x, UPLO=UPLO)                                           # (..., n + n·n)
    return EighResult(y[..., :n], y[..., n:].reshape(*x.shape[:-2], n, n))


def qr(A, mode="reduced"):
    """A = Q R, as ``torch.linalg.qr``: a named tuple (Q, R), Q's columns orthonormal, R
    upper triangular; ``mode`` 'reduced' (Q (..., m, k), R (..., k, n), k = min(m, n)),
    'complete' (Q (..., m, m), R (..., m, n)) or 'r' (Q empty, shape (0,), as PyTorch's).
    Signs are the LAPACK driver's (R's diagonal may be negative). Gradients as PyTorch's
    (ops.Qr), refused for mode='r' and for mode='complete' with m > n."""
    x = _matrix("qr", A)
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"linalg.qr: mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    m, n = x.shape[-2:]
    k = m if mode == "complete" else min(m, n)
    y = ops.Qr.apply(x, mode=mode)                                  # (..., m·k + k·n)
    batch = x.shape[:-2]
    R = y[..., m * k:].reshape(*batch, k, n)
    Q = y[..., :m * k].reshape(*batch, m, k) if mode != "r" else x.new_zeros(0)
    return QRResult(Q, R)


__all__ = ["vector_norm", "matrix_norm", "norm", "svdvals", "svd", "matrix_rank", "det",
           "slogdet", "inv", "solve", "eigvalsh", "eigh", "qr", "LinAlgError", "SVDResult",
           "SlogdetResult", "EighResult", "QRResult"]


from .linalg_extra import (LstsqResult, cond, diagonal, lstsq, matmul, matrix_power,  # noqa: E402
                           multi_dot, pinv, vecdot)
__all__ += ["pinv", "lstsq", "cond", "matrix_power", "multi_dot", "matmul", "vecdot",
            "diagonal", "LstsqResult"]
from .linalg_cholesky import (CholeskyExResult, cholesky, cholesky_ex,  # noqa: E402
                              matrix_exp, solve_triangular)
__all__ += ["cholesky", "cholesky_ex", "solve_triangular", "matrix_exp", "CholeskyExResult"]
from .linalg_lu import (InvExResult, LUFactorExResult, LUFactorResult, LUResult,  # noqa: E402
                        SolveExResult, inv_ex, lu, lu_factor, lu_factor_ex, lu_solve, solve_ex,
                        tensorinv, tensorsolve, vander)
__all__ += ["lu_factor", "lu_factor_ex", "lu", "lu_solve", "solve_ex", "inv_ex", "tensorinv",
            "tensorsolve", "vander", "LUFactorResult", "LUFactorExResult", "LUResult",
            "SolveExResult", "InvExResult"]
__all__ += ["cross"]


def cross(input, other, *, dim=-1):
    """The cross product of 3-vectors along ``dim`` (default the last), as
    ``torch.linalg.cross``: ``tinyffn.cross`` with ``dim=-1`` and no warning (the product
    is made in torch_products.py, of slices, products and a ``stack``)."""
    from .torch_products import _cross, tensor_arg
    x = tensor_arg("linalg.cross", "input", input)
    return _cross("linalg.cross", x, tensor_arg("linalg.cross", "other", other), dim)
