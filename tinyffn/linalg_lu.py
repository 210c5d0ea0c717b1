"""The LU decomposition and what is built on it, as ``torch.linalg``: ``lu_factor``,
``lu_factor_ex``, ``lu``, ``lu_solve``, ``solve_ex``, ``inv_ex``, and the tensor forms
``tensorinv`` and ``tensorsolve``, with ``vander``.

Gaussian elimination with partial pivoting, as LAPACK's getrf: for each column j, the row
with the largest |entry| at or below the diagonal is swapped up (its 1-based index is
``pivots[j]``; the first such row on a tie, as LAPACK's), the entries below the pivot are
divided by it (the multipliers, L's column j) and each row below loses its multiplier
times the pivot's row. What remains is A[perm] = L U, L unit lower triangular and U upper
triangular, both kept in one matrix (``LU``: U on and above the diagonal, L below). A zero
pivot (a singular matrix) is skipped, its column's multipliers left 0, and ``info`` names
the first (1-based), as LAPACK's.

Each step is a handful of tinyffn ops (a row gather, a division, an outer product, a
``cat``), so the gradient of LU, L, U or a solve is autograd's, through the elimination
itself; the pivot order is a constant of the graph, as in PyTorch.
"""
from __future__ import annotations

from typing import Any, NamedTuple

from . import grad_mode
from .creation import cat, eye
from .linalg import _matrix, inv, solve
from .linalg_cholesky import solve_triangular
from .tensor import Tensor


class LUFactorResult(NamedTuple):
    LU: Tensor
    pivots: Tensor


class LUFactorExResult(NamedTuple):
    LU: Tensor
    pivots: Tensor
    info: Tensor


class LUResult(NamedTuple):
    P: Tensor
    L: Tensor
    U: Tensor


class SolveExResult(NamedTuple):
    result: Tensor
    info: Tensor


class InvExResult(NamedTuple):
    inverse: Tensor
    info: Tensor


def _getrf(A: Tensor) -> tuple:
    """(LU (..., m, n), row order perm (..., m) so that A[perm] = L U, pivots (..., k)
    1-based int32, info (...) int32), by the elimination of the module docstring."""
    xp = A.backend.xp
    m, n = A.shape[-2:]
    batch, k = A.shape[:-2], min(m, n)
    rows = xp.reshape(xp.arange(m), (1,) * len(batch) + (m,))
    perm = xp.broadcast_to(rows, batch + (m,))
    info = xp.zeros(batch, dtype=xp.int32)
    pivots, W = [], A
    for j in range(k):
        size = xp.abs(W.data[..., j:, j])                            # (..., m - j)
        p = xp.argmax(size, axis=-1) + j if m > j else xp.zeros(batch, dtype=xp.int64)
        pivots.append(p + 1)
        # swap rows j and p: the new row order, one gather for the whole batch
        swap = xp.where(rows == j, p[..., None], xp.where(rows == p[..., None], j, rows))
        perm = _picked(xp, perm, swap)
        W = _rows(W, swap)
        pivot = W[..., j, j]
        zero = pivot.data == 0
        info = xp.where((info == 0) & zero, j + 1, info)
        safe = pivot.where(_on(~zero, A), 1.0)
        l = W[..., j + 1:, j] / safe[..., None]                        # the multipliers
        below = W[..., j + 1:, j + 1:] - l[..., :, None] * W[..., j, j + 1:][..., None, :]
        W = cat([W[..., :j + 1, :], cat([W[..., j + 1:, :j], l[..., None], below], -1)], -2)
    piv = xp.stack(pivots, axis=-1) if pivots else xp.zeros(batch + (0,), dtype=xp.int64)
    return W, perm, xp.astype(piv, xp.int32), info


def _picked(xp, values: Any, index: Any) -> Any:
    """values[..., index[..., i]] for each i, batch by batch (the array API's
    take_along_axis, which not every backend has): a where and a sum per entry."""
    n = values.shape[-1]
    hit = index[..., :, None] == xp.reshape(xp.arange(n), (1,) * (index.ndim) + (n,))
    return xp.sum(xp.where(hit, values[..., None, :], 0), axis=-1)


def _rows(W: Tensor, order: Any) -> Tensor:
    """W's rows in ``order`` (..., m), a permutation tinyffn made, batch by batch: one
    gather, whose index is not checked (a check reads a flag back from the device)."""
    from .sorting import _gathered      # sorting.py's imports lead back here
    index = _on(order, W)[..., None].expand(*order.shape, W.shape[-1])
    return _gathered(W, W.ndim - 2, index)


def _on(array: Any, like: Tensor) -> Tensor:
    """An array of ``like``'s backend as a Tensor, where it is: ``tensor()`` would copy it
    to the host and back, on a GPU a wait for every kernel queued before it."""
    return Tensor(array, _backend=like.backend)


def lu_factor_ex(A, *, pivot=True, check_errors=False):
    """(LU, pivots, info), as ``torch.linalg.lu_factor_ex``: A (..., m, n) float32/64,
    LU as the module docstring packs it, pivots (..., min(m, n)) 1-based int32, info
    (...) int32, 0 or the first zero pivot (1-based). ``check_errors=True`` raises for a
    singular matrix; ``pivot=False`` is refused (PyTorch's CPU refuses it too)."""
    x = _matrix("lu_factor_ex", A)
    if not pivot:
        raise ValueError("linalg.lu_factor_ex: LU without pivoting is not supported (nor on "
                         "PyTorch's CPU); leave pivot=True")
    LU, _, piv, info = _getrf(x)
    if check_errors:
        _check_info("lu_factor_ex", info, x)
    return LUFactorExResult(LU, _on(piv, x), _on(info, x))


def lu_factor(A, *, pivot=True):
    """(LU, pivots), as ``torch.linalg.lu_factor``: :func:`lu_factor_ex` that raises
    LinAlgError where U has a zero on its diagonal (a singular matrix), as PyTorch 2.13's,
    for a rectangular matrix too (lu_factor_ex or lu factor any)."""
    LU, piv, info = lu_factor_ex(A, pivot=pivot)
    _check_info("lu_factor", info.data, A)
    return LUFactorResult(LU, piv)


def _check_info(op: str, info: Any, A: Tensor) -> None:
    xp = A.backend.xp
    if bool(xp.any(info > 0)):                                            # one read
        first = int(xp.max(info))
        from .linalg import LinAlgError
        raise LinAlgError(f"linalg.{op}: A (shape {A.shape}) is singular: its U has a zero "
                          f"on the diagonal (at {first}, 1-based); use lu_factor_ex to get "
                          "info instead of an error (or lu for P, L, U)")


def lu(A, *, pivot=True):
    """(P, L, U) with A = P L U, as ``torch.linalg.lu``: P (..., m, m) a permutation, L
    (..., m, k) unit lower triangular, U (..., k, n) upper triangular, k = min(m, n)."""
    x = _matrix("lu", A)
    if not pivot:
        raise ValueError("linalg.lu: LU without pivoting is not supported (nor on PyTorch's "
                         "CPU); leave pivot=True")
    W, perm, _, _ = _getrf(x)
    xp = x.backend.xp
    m, n = x.shape[-2:]
    k = min(m, n)
    P = xp.astype(xp.arange(m)[:, None] == perm[..., None, :], x.dtype)   # P[perm[i], i] = 1
    L = W[..., :, :k].tril(-1) + eye(m, k, dtype=W.dtype, device=x.device)
    U = W[..., :k, :].triu()
    return LUResult(_on(P, x), L, U)


def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """X with A X = B from A's ``lu_factor`` (``adjoint``: Aᵀ X = B; ``left=False``:
    X A = B), as ``torch.linalg.lu_solve``: the rows of B permuted as the pivots say, then
    two triangular solves (L unit lower, U upper)."""
    x = _matrix("lu_solve", LU, square=True)
    if not isinstance(B, Tensor) or B.ndim < 2:
        raise ValueError(f"linalg.lu_solve: B must be a tinyffn Tensor (..., n, k), got "
                         f"{getattr(B, 'shape', type(B).__name__)}")
    if not left:                        # X A = B  <=>  Aᵀ Xᵀ = Bᵀ (the other adjointness)
        return lu_solve(LU, pivots, B.mT, adjoint=not adjoint).mT
    from .torch_shapes import _broadcast_shape     # torch_shapes.py imports tensor.py
    xp, perm = x.backend.xp, _permutation(x, pivots)                  # A[perm] = L U
    batch = _broadcast_shape("linalg.lu_solve", (x.shape[:-2], B.shape[:-2]))
    B = B if B.shape[:-2] == batch else B.expand(*batch, *B.shape[-2:])
    perm = xp.broadcast_to(perm, batch + perm.shape[-1:])   # one row order per matrix of B
    if not adjoint:                     # L U X = B[perm]
        y = solve_triangular(x, _rows(B, perm), upper=False, unitriangular=True)
        return solve_triangular(x, y, upper=True)
    # Aᵀ X = B: Uᵀ Lᵀ (P⁻¹ X) = B, so solve Uᵀ z = B, Lᵀ w = z, then X[perm] = w
    z = solve_triangular(x.mT, B, upper=False)
    w = solve_triangular(x.mT, z, upper=True, unitriangular=True)
    return _rows(w, xp.argsort(perm, axis=-1))


def _permutation(x: Tensor, pivots: Any) -> Any:
    """The row order the sequential swaps of ``pivots`` (1-based) make: A[perm] = L U."""
    xp = x.backend.xp
    piv = (pivots.data if isinstance(pivots, Tensor) else xp.asarray(pivots)) - 1
    n = x.shape[-1]
    rows = xp.arange(n)
    perm = xp.broadcast_to(rows, piv.shape[:-1] + (n,))
    for j in range(piv.shape[-1]):
        p = xp.astype(piv[..., j:j + 1], xp.int64)
        at_p, at_j = _picked(xp, perm, p), perm[..., j:j + 1]
        perm = xp.where(rows == j, at_p, xp.where(rows == p, at_j, perm))
    return perm


def solve_ex(A, B, *, left=True, check_errors=False):
    """(result, info), as ``torch.linalg.solve_ex``: :func:`~tinyffn.linalg.solve`'s X,
    and info (...) int32, 0 or the first zero pivot of A's LU; a singular matrix's X is
    NaN here (PyTorch's holds LAPACK's partial result). ``check_errors`` raises."""
    x = _matrix("solve_ex", A, square=True)
    safe, info = _nonsingular("solve_ex", x, check_errors)
    X = solve(safe, B, left=left)
    return SolveExResult(_nan_where(X, info, X.ndim - (x.ndim - 2)), _on(info, x))


def inv_ex(A, *, check_errors=False):
    """(inverse, info), as ``torch.linalg.inv_ex``: :func:`~tinyffn.linalg.inv`'s result
    and info as :func:`solve_ex`'s; a singular matrix's inverse is NaN here."""
    x = _matrix("inv_ex", A, square=True)
    safe, info = _nonsingular("inv_ex", x, check_errors)
    return InvExResult(_nan_where(inv(safe), info, 2), _on(info, x))


def _nonsingular(op: str, x: Tensor, check_errors: bool) -> tuple:
    """(x with its singular matrices replaced by I, so one solve serves the batch; info)."""
    with grad_mode.no_grad():
        _, _, _, info = _getrf(x.detach())
    if check_errors:
        _check_info(op, info, x)
    singular = _on(info > 0, x)[..., None, None]
    return x.where(~singular, eye(x.shape[-1], dtype=x.dtype, device=x.device)), info


def _nan_where(X: Tensor, info: Any, trailing: int) -> Tensor:
    singular = _on(info > 0, X).reshape(*info.shape, *(1,) * trailing)
    return X.where(~singular, float("nan"))


def tensorinv(A, ind=2):
    """The tensor B with tensordot(A, B, ind) = I, as ``torch.linalg.tensorinv``: A's first
    ``ind`` axes are rows, the rest columns (their products must be equal), and B has
    A.shape[ind:] + A.shape[:ind]. A reshape, ``inv``, a reshape."""
    if not isinstance(A, Tensor) or not isinstance(ind, int) or ind <= 0:
        raise ValueError(f"linalg.tensorinv: expected a tinyffn Tensor and a positive ind, "
                         f"got ind={ind!r}")
    rows, cols = A.shape[:ind], A.shape[ind:]
    m, n = _prod(rows), _prod(cols)
    if m != n:
        raise ValueError(f"linalg.tensorinv: the product of A's first {ind} axes {rows} "
                         f"({m}) must equal that of the rest {cols} ({n})")
    return inv(A.reshape(m, n)).reshape(*cols, *rows)


def tensorsolve(A, B, dims=None):
    """X with tensordot(A, X, X.ndim) = B, as ``torch.linalg.tensorsolve``: A's leading
    axes are B's shape, the rest X's; ``dims`` first moves those axes of A to the end.
    A reshape to a square matrix, ``solve``, a reshape."""
    if not isinstance(A, Tensor) or not isinstance(B, Tensor):
        raise TypeError("linalg.tensorsolve: A and B must be tinyffn Tensors")
    if dims is not None:
        dims = [d % A.ndim for d in dims]
        A = A.permute(*[d for d in range(A.ndim) if d not in dims], *dims)
    if A.shape[:B.ndim] != B.shape:
        raise ValueError(f"linalg.tensorsolve: A's leading axes {A.shape[:B.ndim]} must be "
                         f"B's shape {B.shape}")
    rest = A.shape[B.ndim:]
    m, n = _prod(B.shape), _prod(rest)
    if m != n:
        raise ValueError(f"linalg.tensorsolve: the product of B's shape ({m}) must equal that "
                         f"of A's other axes {rest} ({n})")
    return solve(A.reshape(m, n), B.reshape(m)).reshape(*rest)


def _prod(shape: tuple) -> int:
    out = 1
    for s in shape:
        out *= s
    return out


def vander(x, *, N=None):
    """The Vandermonde matrix of x (..., n): (..., n, N) with column j = x^j, as
    ``torch.linalg.vander`` (increasing powers, N = n by default). Differentiable."""
    if not isinstance(x, Tensor) or x.ndim < 1:
        raise ValueError("linalg.vander: x must be a tinyffn Tensor of at least one axis")
    N = x.shape[-1] if N is None else N
    if not isinstance(N, int) or N < 1:
        raise ValueError(f"linalg.vander: N must be a positive int, got {N!r}")
    from .creation import stack
    powers, p = [], x * 0 + 1
    for _ in range(N):                  # x^0, x^1, ...: products, so integers stay exact
        powers.append(p)
        p = p * x
    return stack(powers, dim=-1)


__all__ = ["lu_factor", "lu_factor_ex", "lu", "lu_solve", "solve_ex", "inv_ex", "tensorinv",
           "tensorsolve", "vander", "LUFactorResult", "LUFactorExResult", "LUResult",
           "SolveExResult", "InvExResult"]
