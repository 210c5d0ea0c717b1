"""Cholesky, triangular solves, the matrix exponential and the pseudo-inverse of
``tinyffn.linalg``, with the backward formulas PyTorch uses.

Notation as in :mod:`.decompositions`: A (..., n, n), batched over the leading axes ``...``;
``gy`` the gradient of the output, ``gA`` the one returned; ^T swaps the last two axes.

All three are written with the array-API standard's functions alone (``xp.linalg.cholesky``,
``xp.matmul``, ``xp.linalg.solve``), so they run on every backend. The triangular solve is
forward (or back) substitution, row by row, as LAPACK's ``trsm``: NumPy has no batched
triangular solve (SciPy's is a loop), and a general ``solve`` would pivot and refuse a zero
on the diagonal, where PyTorch returns infinities and NaN, as substitution does.

Under create_graph (:mod:`tinyffn.higher_order`) Cholesky's backward records as it is
(``xp.linalg.inv`` is then the Inv op); the substitution writes into X row by row, and
expm branches on norms, so there the two other backwards call their own op instead
(SolveTriangular, MatrixExp), whose backward differentiates it again.
"""
from __future__ import annotations

import math

from ..autograd import Context, Function
from .decompositions import _broadcast, _diag_embed, _diagonal, _mT, _symmetric
from .shape import sum_to_shape


def _phi(xp, X):
    """The lower triangle of X with its diagonal halved: Φ(X) of the Cholesky backward."""
    return xp.tril(X) - _diag_embed(xp, _diagonal(xp, X)) / 2


class Cholesky(Function):
    """L = cholesky(A): A (..., n, n) symmetric positive-definite, of which only the lower
    triangle is read; L lower triangular with a positive diagonal, A = L L^T.

    PyTorch's backward. From dA = dL L^T + L dL^T,  dL = L Φ(L^{-1} dA L^{-T}), with Φ(X)
    the lower triangle of X with its diagonal halved; its adjoint, made symmetric:

        S = L^{-T} Φ(L^T gL) L^{-1},   gA = (S + S^T) / 2          (..., n, n)

    given to both triangles, as ``Eigvalsh``'s (so a symmetric A built from a tensor gets
    the exact gradient). A matrix that is not positive-definite (a NaN included) comes back
    all NaN: :func:`first_bad_minor` says where it failed (tinyffn.linalg raises, or
    returns it as ``cholesky_ex``'s info)."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, A):
        xp = ctx.xp
        A = _symmetric(xp, A, "L")
        # CuPy raises only when asked (raising_linalg); else a failed factor is unspecified
        with ctx.backend.raising_linalg():
            try:
                L = xp.linalg.cholesky(A)
            except Exception as e:          # raised for the whole batch: one by one
                if type(e).__name__ != "LinAlgError":
                    raise
                L = _one_by_one(xp, A)
        # a second guard: a pivot <= 0 or NaN that the library did not report
        n = A.shape[-1]
        ok = xp.all(_diagonal(xp, L) > 0, axis=-1) if n else xp.ones(A.shape[:-2], dtype=xp.bool)
        ok = xp.expand_dims(xp.expand_dims(ok, axis=-1), axis=-1)       # (..., 1, 1)
        L = xp.where(ok, xp.tril(L), xp.full((), math.nan, dtype=L.dtype))   # not copied
        ctx.save_for_backward(L)
        return L

    @staticmethod
    def backward(ctx: Context, gL):
        xp = ctx.xp
        (L,) = ctx.saved_tensors
        Linv = xp.linalg.inv(L)                                    # (..., n, n), lower
        S = xp.matmul(xp.matmul(_mT(xp, Linv), _phi(xp, xp.matmul(_mT(xp, L), gL))), Linv)
        return (S + _mT(xp, S)) / 2


def _one_by_one(xp, A):
    """The Cholesky factor of each matrix of A, NaN for those that have none."""
    n = A.shape[-1]
    flat = xp.reshape(A, (-1, n, n))                                # (B, n, n)
    out = []
    for i in range(flat.shape[0]):
        try:
            out.append(xp.linalg.cholesky(flat[i, ...]))
        except Exception as e:
            if type(e).__name__ != "LinAlgError":
                raise
            out.append(xp.full((n, n), math.nan, dtype=A.dtype))
    return xp.reshape(xp.stack(out, axis=0), A.shape) if out else A


def first_bad_minor(xp, A):
    """For each matrix of A (..., n, n), read from its lower triangle: 0 if it is
    positive-definite, else the order k of its first leading minor A[:k, :k] that is not
    (LAPACK's ``info``, PyTorch's ``cholesky_ex(A).info``), int32 (...).

    A leading minor is positive-definite iff the ones before it are and its determinant
    is positive (the k-th Cholesky pivot is det A_k / det A_{k−1}), so k is the first
    determinant that is not positive. n slogdets: meant for the error path only."""
    A = _symmetric(xp, A, "L")
    n = A.shape[-1]
    info = xp.zeros(A.shape[:-2], dtype=xp.int32)
    for k in range(1, n + 1):
        sign, logabsdet = xp.linalg.slogdet(A[..., :k, :k])
        bad = (info == 0) & (~(sign > 0) | xp.isnan(logabsdet))    # a NaN minor is bad too
        info = xp.where(bad, xp.full((), k, dtype=xp.int32), info)
    return info


def _triangle(xp, A, lower: bool, unit: bool):
    """The triangle of A a triangular solve reads: ``tril`` or ``triu``, its diagonal
    taken as ones when ``unit`` (only the strict triangle read)."""
    n = A.shape[-1]
    if not unit:
        return xp.tril(A) if lower else xp.triu(A)
    T = xp.tril(A, k=-1) if lower else xp.triu(A, k=1)
    return T + xp.eye(n, dtype=A.dtype)


def substitute(xp, T, B, lower: bool):
    """X with T X = B for a triangular T (..., n, n) and B (..., n, k) of the same batch
    shape, by forward substitution (``lower``; first row first) or back substitution:
    x_i = (b_i − Σ_j T_ij x_j) / T_ii over the rows j already solved. A zero T_ii gives
    inf and NaN, as LAPACK's trsm (no pivoting, no check)."""
    n = T.shape[-1]
    X = xp.zeros(B.shape, dtype=B.dtype)                            # (..., n, k)
    rows = range(n) if lower else range(n - 1, -1, -1)
    for i in rows:
        done = slice(0, i) if lower else slice(i + 1, n)
        r = B[..., i:i + 1, :] - xp.matmul(T[..., i:i + 1, done], X[..., done, :])  # (.., 1, k)
        X[..., i:i + 1, :] = r / T[..., i:i + 1, i:i + 1]
    return X


class SolveTriangular(Function):
    """X = T^{-1} B with T the triangle of A (..., n, n) that ``upper`` names (the
    diagonal taken as ones if ``unitriangular``; the other triangle is not read), B
    (..., n, k), batch axes broadcasting; tinyffn.linalg turns ``left=False`` into
    transposes.

    dX = T^{-1} (dB − dT X), so  gB = T^{-T} gX  (a substitution with T^T, the other way),
    gA = the same triangle of −gB X^T (the strict one if ``unitriangular``), each summed
    back over the batch axes its input was broadcast along."""

    twice_differentiable = True

    @classmethod
    def op_name(cls) -> str:
        return "solve_triangular"

    @staticmethod
    def forward(ctx: Context, A, B, upper=False, unitriangular=False):
        xp = ctx.xp
        batch = tuple(_broadcast(a, b) for a, b in zip(
            (1,) * (B.ndim - A.ndim) + A.shape[:-2], (1,) * (A.ndim - B.ndim) + B.shape[:-2]))
        T = xp.broadcast_to(_triangle(xp, A, not upper, unitriangular), batch + A.shape[-2:])
        X = substitute(xp, T, xp.broadcast_to(B, batch + B.shape[-2:]), lower=not upper)
        ctx.save_for_backward(A, T, X)
        return X                                                    # (..., n, k)

    @staticmethod
    def backward(ctx: Context, gX):
        xp = ctx.xp
        A, T, X = ctx.saved_tensors
        upper, unit = ctx.attrs.get("upper", False), ctx.attrs.get("unitriangular", False)
        if isinstance(gX, ctx.backend.array_type):
            gB = substitute(xp, _mT(xp, T), gX, lower=upper)         # (..., n, k)
        else:               # create_graph: T^T is the other triangle of A^T, recorded
            gB = SolveTriangular.apply(_mT(xp, A), gX, upper=not upper, unitriangular=unit)
        gA = None
        if ctx.needs_input_grad[0]:
            G = -xp.matmul(gB, _mT(xp, X))                            # (..., n, n)
            k = (1 if upper else -1) if unit else 0
            G = xp.triu(G, k=k) if upper else xp.tril(G, k=k)
            gA = sum_to_shape(xp, G, A.shape)
        return gA, sum_to_shape(xp, gB, ctx.input_shapes[1]) if ctx.needs_input_grad[1] else None


# Padé [13/13] of exp (Higham 2005, "The scaling and squaring method revisited"): b_j
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
           129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0,
           1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152        # the largest 1-norm for which degree 13 is exact in float64


def expm(xp, A):
    """exp(A) for A (..., n, n) by scaling and squaring: each matrix scaled by 2^−s so its
    1-norm is at most θ13, the Padé [13/13] approximant r = q(A)^{-1} p(A), then squared s
    times (s per matrix, as SciPy's ``expm`` and Higham's algorithm)."""
    n = A.shape[-1]
    if n == 0 or math.prod(A.shape) == 0:
        return xp.zeros(A.shape, dtype=A.dtype)
    norm = xp.max(xp.sum(xp.abs(A), axis=-2), axis=-1)                # (...,) 1-norm
    s = xp.ceil(xp.log2(xp.maximum(norm / _THETA13, xp.asarray(1.0, dtype=A.dtype))))
    s = xp.where(xp.isfinite(s), s, xp.zeros_like(s))               # a NaN or inf A: no loop
    A = A / xp.expand_dims(xp.expand_dims(2.0 ** s, axis=-1), axis=-1)    # (..., n, n)
    b, I = _PADE13, xp.eye(n, dtype=A.dtype)
    A2 = xp.matmul(A, A)
    A4 = xp.matmul(A2, A2)
    A6 = xp.matmul(A4, A2)
    U = xp.matmul(A, xp.matmul(A6, b[13] * A6 + b[11] * A4 + b[9] * A2)
                  + b[7] * A6 + b[5] * A4 + b[3] * A2 + b[1] * I)
    V = xp.matmul(A6, b[12] * A6 + b[10] * A4 + b[8] * A2) + b[6] * A6 + b[4] * A4 \
        + b[2] * A2 + b[0] * I
    E = xp.linalg.solve(V - U, V + U)                                # (..., n, n)
    for j in range(int(xp.max(s)) if s.ndim else int(s)):
        more = xp.expand_dims(xp.expand_dims(s > j, axis=-1), axis=-1)
        E = xp.where(more, xp.matmul(E, E), E)
    return E


class MatrixExp(Function):
    """Y = exp(A) = Σ_k A^k / k!, A (..., n, n), by scaling and squaring (:func:`expm`).

    The derivative of exp at A in direction E is the upper-right block of
    exp([[A, E], [0, A]]) (Mathias 1996); its adjoint, for the gradient gY, is the same with
    A^T:  gA = upper-right n × n block of exp([[A^T, gY], [0, A^T]]); under create_graph
    that exp is this op again, recorded (its derivative the same construction, 4n × 4n)."""

    twice_differentiable = True

    @classmethod
    def op_name(cls) -> str:
        return "matrix_exp"

    @staticmethod
    def forward(ctx: Context, A):
        ctx.save_for_backward(A)
        return expm(ctx.xp, A)

    @staticmethod
    def backward(ctx: Context, gY):
        xp = ctx.xp
        (A,) = ctx.saved_tensors
        n, At = A.shape[-1], _mT(xp, A)
        gY = xp.broadcast_to(gY, A.shape)
        top = xp.concat([At, gY], axis=-1)                           # (..., n, 2n)
        bottom = xp.concat([xp.zeros_like(At), At], axis=-1)         # (..., n, 2n)
        M = xp.concat([top, bottom], axis=-2)                        # (..., 2n, 2n)
        del top, bottom                 # not kept alive through expm, whose peak is large
        M = expm(xp, M) if isinstance(gY, ctx.backend.array_type) else MatrixExp.apply(M)
        return M[..., :n, n:]


class Pinv(Function):
    """P = A⁺, the Moore-Penrose pseudo-inverse of A (..., m, n), (..., n, m): with
    A = U diag(σ) Vh, P = Vh^T diag(1/σ) U^T over the σ above max(atol, rtol · σ_max)
    (the others count as 0), compared in float64; ``atol`` and ``rtol`` numbers, or float64
    arrays of the batch shape (one cutoff per matrix).

    PyTorch's backward (Golub and Pereyra), right where the rank does not change nearby:
    dP = −P dA P + P P^T dA^T (I − A P) + (I − P A) dA^T P^T P, whose adjoint is

        gA = −P^T gP P^T + (I − A P) gP^T P P^T + P^T P gP^T (I − P A)     (..., m, n)

    It reads A and P only, so it stays finite where singular values repeat (A = 2 I),
    where the gradient through the SVD's factors divides by σ_i² − σ_j² = 0."""

    twice_differentiable = True

    @staticmethod
    def forward(ctx: Context, A, atol: float, rtol: float):
        xp = ctx.xp
        U, S, Vh = xp.linalg.svd(A, full_matrices=False)   # (.., m, k), (.., k), (.., k, n)
        # the cutoff and the comparison in float64, as PyTorch's (its tolerances are
        # doubles): in float32, atol=0.1 rounds to 0.1f and would drop σ = 0.1f
        s = xp.astype(S, xp.float64)                                     # (.., k)
        biggest = xp.max(s, axis=-1, keepdims=True) if S.shape[-1] else s   # (.., 0): empty
        atol, rtol = (xp.expand_dims(xp.asarray(t, dtype=xp.float64), axis=-1)
                      for t in (atol, rtol))                             # (.., 1) each
        keep = s > xp.maximum(biggest * rtol, atol)                      # (.., k)
        inverse = xp.where(keep, 1 / xp.where(keep, S, xp.ones_like(S)), xp.zeros_like(S))
        P = xp.matmul(_mT(xp, Vh) * inverse[..., None, :], _mT(xp, U))
        ctx.save_for_backward(A, P)
        return P

    @staticmethod
    def backward(ctx: Context, gP):
        xp = ctx.xp
        A, P = ctx.saved_tensors
        Pt, gPt = _mT(xp, P), _mT(xp, gP)
        left = xp.matmul(gPt, xp.matmul(P, Pt))             # gP^T P P^T        (m, n)
        right = xp.matmul(xp.matmul(Pt, P), gPt)            # P^T P gP^T        (m, n)
        return (-xp.matmul(xp.matmul(Pt, gP), Pt)
                + left - xp.matmul(A, xp.matmul(P, left))        # (I − A P) left
                + right - xp.matmul(xp.matmul(right, P), A))     # right (I − P A)


__all__ = ["Cholesky", "SolveTriangular", "MatrixExp", "Pinv", "first_bad_minor", "substitute",
           "expm"]
