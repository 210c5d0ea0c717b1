"""``linalg.cholesky``, ``cholesky_ex``, ``solve_triangular`` and ``matrix_exp``, as
``torch.linalg``'s, over the primitives of :mod:`tinyffn.ops.cholesky` (the math and
PyTorch's gradients are there); and ``torch.cholesky_solve`` and ``torch.cholesky_inverse``,
composed of two triangular solves, so their gradients follow from ``SolveTriangular``'s.
Imported at the end of :mod:`tinyffn.linalg`.
"""
from __future__ import annotations

from typing import NamedTuple

from . import grad_mode
from .backend import dtype_name
from .creation import eye
from .linalg import LinAlgError, _apply, _matrix
from .ops import Cholesky, MatrixExp, SolveTriangular
from .ops.cholesky import first_bad_minor
from .tensor import Tensor


class CholeskyExResult(NamedTuple):
    """``linalg.cholesky_ex``'s result, as torch's: the factor and LAPACK's ``info``."""
    L: Tensor
    info: Tensor


def cholesky_ex(A, *, upper=False, check_errors=False):
    """(L, info), as ``torch.linalg.cholesky_ex``: L as :func:`cholesky`'s, and ``info``
    (int32, (...)) 0 where a matrix is positive-definite, else the order k of its first
    leading minor that is not. Such a matrix's L is all NaN (PyTorch's holds a partial
    factor: meaningless either way). ``check_errors=True`` raises as :func:`cholesky`."""
    return _cholesky("cholesky_ex", A, upper, check_errors)


def cholesky(A, *, upper=False):
    """A = L L^T for each symmetric positive-definite matrix of A (..., n, n), as
    ``torch.linalg.cholesky``: L lower triangular with a positive diagonal, read from A's
    lower triangle; ``upper=True``: U = L^T with A = U^T U, read from A's upper triangle.
    A matrix that is not positive-definite raises :class:`LinAlgError` naming the order
    of its first leading minor that is not (and the batch element), as PyTorch's.
    Gradient: PyTorch's, symmetric, in both triangles (ops.Cholesky)."""
    return _cholesky("cholesky", A, upper, True).L


def _factorable(A) -> Tensor:
    """True for each matrix of A (..., n, n) whose Cholesky factor holds no NaN, i.e.
    ``cholesky_ex(A).info == 0`` (a factor is all NaN where info is not 0), without
    cholesky_ex's read of the device: that read only decides whether to look for the
    failing minor, and the positive_definite constraint asks whether, not where (each read
    a wait for a GPU: a Wishart draw, an argument check)."""
    x = _matrix("cholesky_ex", A, square=True)
    with grad_mode.no_grad():
        L = _apply("cholesky_ex", Cholesky, x)                          # (..., n, n)
        return ~L.isnan().any(-1).any(-1)                                # (...)


def _cholesky(op: str, A, upper: bool, check: bool) -> CholeskyExResult:
    x = _matrix(op, A, square=True)
    L = _apply(op, Cholesky, x.mT if upper else x)                  # (..., n, n)
    with grad_mode.no_grad():
        # one read to the host, which PyTorch's cholesky_ex does not make (LAPACK's info
        # stays on the device): ours comes from n slogdets, computed only where needed
        failed = bool(L.isnan().any()) if L.numel() else False
        xp = x.backend.xp
        info = xp.zeros(x.shape[:-2], dtype=xp.int32)
        if failed:      # the minors' determinants; one rounded the other way counts as the last
            info = first_bad_minor(xp, (x.mT if upper else x).data)
            lost = xp.any(xp.isnan(L.data), axis=(-2, -1)) & (info == 0)
            info = xp.where(lost, xp.full((), x.shape[-1], dtype=xp.int32), info)
        info = Tensor(info, _backend=x.backend)
    if check and failed:
        bad = [i for i, k in enumerate(info.reshape(-1).tolist()) if k]
        where = f"(Batch element {bad[0]}): " if x.ndim > 2 else ""
        k = info.reshape(-1).tolist()[bad[0]]
        raise LinAlgError(f"linalg.{op}: {where}The factorization could not be completed "
                          f"because the input is not positive-definite (the leading minor "
                          f"of order {k} is not positive-definite); A has shape {x.shape}. "
                          "A covariance or Gram matrix can lose definiteness to rounding: "
                          "add a small multiple of the identity to it")
    return CholeskyExResult(L.mT if upper else L, info)


def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    """X with A X = B (``left=False``: X A = B) for a triangular A (..., n, n), as
    ``torch.linalg.solve_triangular``: only the triangle ``upper`` names is read (its
    diagonal taken as ones if ``unitriangular``); B (..., n, k) (``left=False``: (..., k, n)),
    at least 2-D as in PyTorch; batch axes broadcast; B is cast to A's dtype, as
    PyTorch does. By substitution, so a zero on the
    diagonal gives inf and NaN, as PyTorch's. Gradients gB = A^{-T} gX and the triangle of
    −gB X^T (ops.SolveTriangular)."""
    x = _matrix("solve_triangular", A, square=True)
    if not isinstance(B, Tensor):
        raise TypeError(f"linalg.solve_triangular: expected B a tinyffn Tensor, got "
                        f"{type(B).__name__}")
    if B.dtype != x.dtype:          # PyTorch casts B to A's dtype (float32 A, float64 B: float32)
        B = B.to(dtype=x.dtype)
    n = x.shape[-1]
    if B.ndim < 2 or B.shape[-2 if left else -1] != n:
        need = f"(..., {n}, k)" if left else f"(..., k, {n}) (left=False)"
        raise ValueError(f"linalg.solve_triangular: A of shape {x.shape} and B of shape "
                         f"{B.shape} do not fit: B must be {need}" +
                         ("; B must be at least 2-D, as in PyTorch: B.unsqueeze(-1) makes "
                          "a vector a column" if B.ndim < 2 else ""))
    flags = dict(upper=bool(upper), unitriangular=bool(unitriangular))
    try:
        if left:
            return SolveTriangular.apply(x, B, **flags)
        # X A = B is A^T X^T = B^T, and A^T's triangle is the other one
        flags["upper"] = not flags["upper"]
        return SolveTriangular.apply(x.mT, B.mT, **flags).mT
    except ValueError as e:
        raise ValueError(f"linalg.solve_triangular: the batch axes of A {x.shape} and B "
                         f"{B.shape} cannot be broadcast together") from e


def matrix_exp(A):
    """exp(A) = Σ A^k / k! of each square matrix of A (..., n, n), as
    ``torch.linalg.matrix_exp``: scaling and squaring with a Padé [13/13] approximant
    (PyTorch uses Taylor polynomials; the values agree to rounding). Gradient: the
    upper-right block of exp([[A^T, gY], [0, A^T]]) (ops.MatrixExp)."""
    return MatrixExp.apply(_matrix("matrix_exp", A, square=True))


def cholesky_solve(B, L, upper=False):
    """X with A X = B where A = L L^T (``upper=True``: A = U^T U, L being U), as
    ``torch.cholesky_solve``: L (..., n, n) from :func:`cholesky` (only its triangle is
    read), B (..., n, k); batch axes broadcast. Two triangular solves, L Y = B then
    L^T X = Y (U^T Y = B then U X = Y), so L gets a gradient in its triangle only (PyTorch's formula also puts one
    in the triangle it does not read)."""
    x = _matrix("cholesky_solve", L, square=True)
    if not isinstance(B, Tensor) or B.ndim < 2 or B.shape[-2] != x.shape[-1]:
        got = B.shape if isinstance(B, Tensor) else type(B).__name__
        raise ValueError(f"cholesky_solve: B must be a tinyffn Tensor (..., n, k), at least "
                         f"2-D as in PyTorch, with n = {x.shape[-1]} rows as L {x.shape}; "
                         f"got {got}")
    if B.dtype != x.dtype:
        raise TypeError(f"cholesky_solve: B has dtype {dtype_name(B.dtype)} and L "
                        f"{dtype_name(x.dtype)}; they must match, as in PyTorch: cast one")
    lower = x.mT if upper else x                                    # L, or U^T: A = L L^T
    with grad_mode.scope("function", "cholesky_solve"):
        Y = solve_triangular(lower, B, upper=False)                 # L Y = B
        return solve_triangular(lower.mT, Y, upper=True)            # L^T X = Y


def cholesky_inverse(L, upper=False):
    """A^{-1} where A = L L^T (``upper=True``: U^T U), as ``torch.cholesky_inverse``:
    ``cholesky_solve`` of the identity."""
    x = _matrix("cholesky_inverse", L, square=True)
    with grad_mode.scope("function", "cholesky_inverse"):
        return cholesky_solve(eye(x.shape[-1], dtype=x.dtype, device=x.device), x, upper)


__all__ = ["cholesky", "cholesky_ex", "solve_triangular", "matrix_exp", "cholesky_solve",
           "cholesky_inverse", "CholeskyExResult"]
