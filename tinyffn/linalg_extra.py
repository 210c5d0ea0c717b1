"""More of ``torch.linalg``, composed of :mod:`tinyffn.linalg`'s decompositions and the
primitives, so every gradient follows from theirs: ``pinv`` (the Pinv primitive, whose
backward stays finite where singular values repeat) and ``lstsq`` (through it), ``cond``
(a ratio of singular values, or norm(A) · norm(A^{-1})), ``matrix_power`` (repeated
squaring, ``inv`` for n < 0), ``multi_dot``, ``matmul``, ``vecdot`` and ``diagonal``
(PyTorch's ``linalg`` spellings of the tensor functions).

The spectral notebook a FFN learner writes uses them as in PyTorch: the condition number
of W1 while it trains (``linalg.cond(W1)``), a least-squares probe from the hidden
activations H (T, d_ff) to a target Y (``linalg.lstsq(H, Y).solution``, or
``linalg.pinv(H) @ Y``).
"""
from __future__ import annotations

import math
import numbers
from typing import Any, NamedTuple

from . import grad_mode
from .backend import dtype_name
from .composed import where
from .creation import eye, stack, zeros
from .linalg import LinAlgError, _apply, _matrix, inv, matrix_norm, svdvals
from .ops.cholesky import Pinv
from .tensor import Tensor
from .torch_extras import diagonal as _diagonal
from .torch_shapes import _broadcast_shape


class LstsqResult(NamedTuple):
    """``linalg.lstsq``'s result, as ``torch.linalg.lstsq``'s named tuple."""
    solution: Any
    residuals: Any
    rank: Any
    singular_values: Any


def _tolerances(x: Tensor, atol: Any, rtol: Any) -> tuple:
    """(atol, rtol) as numbers, with matrix_rank's defaults: rtol eps · max(m, n) when
    atol is not given (or <= 0, as PyTorch's ``where(atol > 0, 0, eps · max(m, n))``),
    else 0; atol 0 when not given."""
    if rtol is None:
        eps = float(x.backend.xp.finfo(x.dtype).eps)
        rtol = eps * max(x.shape[-2:]) if atol is None or atol <= 0 else 0.0
    return float(atol or 0.0), float(rtol)


def _pinv_tolerances(x: Tensor, atol: Any, rtol: Any) -> tuple:
    """pinv's (x, atol, rtol): numbers as :func:`_tolerances`; a tolerance given as a
    tensor (one per matrix, broadcast against A's batch shape, as PyTorch's) becomes a
    float64 array, with rtol's default where(atol > 0, 0, eps · max(m, n)) entry by entry,
    and x is broadcast to the batch shape they make together."""
    for name, v in (("atol", atol), ("rtol", rtol)):
        if isinstance(v, Tensor):
            if v.requires_grad:
                raise ValueError(f"linalg.pinv: {name} requires grad, but the cutoff has no "
                                 f"derivative (as in PyTorch): pass {name}.detach()")
            if v.device != x.device:
                raise ValueError(f"linalg.pinv: {name} is on {v.device} but A on {x.device}; "
                                 f"move it with .to('{x.device}')")
        elif v is not None and not isinstance(v, numbers.Real):
            raise TypeError(f"linalg.pinv: {name} must be a number or a tensor, got {v!r}")
    if not isinstance(atol, Tensor) and not isinstance(rtol, Tensor):
        return (x, *_tolerances(x, atol, rtol))
    xp = x.backend.xp
    a = _float64(xp, 0.0 if atol is None else atol)
    r = _float64(xp, float(xp.finfo(x.dtype).eps) * max(x.shape[-2:]) if rtol is None else rtol)
    if rtol is None and atol is not None:                   # PyTorch's rule, entry by entry
        r = xp.where(a > 0, xp.zeros_like(r), r)
    try:
        batch = _broadcast_shape("linalg.pinv", [x.shape[:-2], a.shape, r.shape])
    except ValueError:
        raise ValueError(f"linalg.pinv: tolerances of shapes {tuple(a.shape)} (atol) and "
                         f"{tuple(r.shape)} (rtol) do not broadcast against A's batch "
                         f"shape {x.shape[:-2]}: give one per matrix") from None
    if batch != x.shape[:-2]:               # a tolerance per matrix of a larger batch
        x = x.broadcast_to(*batch, *x.shape[-2:])
    return x, a, r


def _float64(xp: Any, v: Any) -> Any:
    """A tolerance, a number or a tensor, as a float64 array (a number's is 0-d)."""
    if isinstance(v, Tensor):
        return xp.astype(v.data, xp.float64)
    return xp.asarray(float(v), dtype=xp.float64)


def _cutoff(x: Tensor, s: Tensor, atol: Any, rtol: Any) -> Tensor:
    """max(atol, rtol · σ_max) per matrix, (..., 1), tolerances as :func:`_tolerances`."""
    atol, rtol = _tolerances(x, atol, rtol)
    biggest = s.amax(-1, True) if s.shape[-1] else s.sum(-1, True)   # (..., 1)
    return (biggest * rtol).clamp(min=atol)


def pinv(A, *, atol=None, rtol=None, hermitian=False):
    """The Moore-Penrose pseudo-inverse A⁺ (..., n, m) of A (..., m, n), as
    ``torch.linalg.pinv``: with A = U diag(S) Vh, A⁺ = Vh^T diag(1/σ) U^T over the σ above
    max(atol, rtol · σ_max) (the others give 0), compared in float64 as PyTorch's; rtol
    defaults to eps · max(m, n) where atol is not given or <= 0. A tolerance may be a
    tensor, one per matrix, broadcast against A's batch shape. ``hermitian`` is accepted
    and the SVD used all the same (so of a non-symmetric A this is A⁺, where PyTorch's eigh
    reads only A's lower triangle).
    One primitive, :class:`~tinyffn.ops.Pinv`, with PyTorch's backward formula in A and A⁺,
    so the gradient is finite where singular values repeat (A = 2 I), as PyTorch's. An A
    holding NaN or inf raises LinAlgError, as ``svd`` does (on a GPU, CuPy's SVD returns
    NaN instead: it checks cuSOLVER's status only when asked, a wait for the device)."""
    x, atol, rtol = _pinv_tolerances(_matrix("pinv", A, square=bool(hermitian)), atol, rtol)
    return _apply("pinv", Pinv, x, atol=atol, rtol=rtol)   # NumPy's LinAlgError as tinyffn's


def lstsq(A, B, rcond=None, *, driver=None):
    """X minimising ‖A X − B‖ (the smallest such X when A is rank-deficient), as
    ``torch.linalg.lstsq``: A (..., m, n), B (..., m, k) or (m,); a named tuple
    ``(solution, residuals, rank, singular_values)`` filled as PyTorch's CPU drivers fill
    it: ``'gelsy'`` (the default) the rank, ``'gelsd'`` and ``'gelss'`` the rank, the
    singular values and, for m > n and A of full rank, the squared residual of each
    column, ``'gels'`` the residuals; what a driver leaves out is an empty tensor. Computed
    as pinv(A) B with singular values below rcond · σ_max dropped (rcond defaults to
    eps · max(m, n); ``'gels'`` ignores it, as PyTorch's), so the gradients are ``pinv``'s.
    Where rcond drops a singular value, PyTorch's ``'gelsy'`` (pivoted QR) can find
    another rank and solution than this SVD cut, which is ``'gelsd'``'s. B is a batch of
    vectors when it is 1-D or has A's shape less its last axis (and B has A's number of
    axes or one fewer), as PyTorch's rule."""
    x = _matrix("lstsq", A)
    if driver not in (None, "gelsy", "gelsd", "gelss", "gels"):
        raise ValueError(f"linalg.lstsq: driver must be None, 'gelsy', 'gelsd', 'gelss' or "
                         f"'gels' (PyTorch's CPU drivers), got {driver!r}")
    if not isinstance(B, Tensor):
        raise TypeError(f"linalg.lstsq: expected B a tinyffn Tensor, got {type(B).__name__}")
    m, n = x.shape[-2:]
    if x.ndim - B.ndim not in (0, 1):
        raise ValueError(f"linalg.lstsq: A {x.shape} and B {B.shape}: B must have as many "
                         "axes as A (a batch of matrices, (..., m, k)) or one fewer (a "
                         "batch of vectors, (..., m), with A's batch shape), as in PyTorch")
    vector = B.ndim == 1 or B.shape == x.shape[:-1]                 # torch's rule
    b = B.unsqueeze(-1) if vector else B                            # (..., m, k)
    if B.dtype != x.dtype or b.ndim < 2 or b.shape[-2] != m:
        raise ValueError(f"linalg.lstsq: A {x.shape} ({x.dtype}) and B {B.shape} "
                         f"({B.dtype}) do not fit: B must be (..., {m}, k), ({m},) or "
                         f"A's batch of vectors (..., {m}), with A's dtype")
    if driver == "gels":
        rcond = 0.0                     # gels (QR) assumes full rank: PyTorch ignores rcond
    with grad_mode.no_grad():
        try:
            s = svdvals(x)                                          # (..., min(m, n))
        except LinAlgError as e:                                    # say whose SVD it was
            raise LinAlgError(str(e).replace("linalg.svdvals", "linalg.lstsq", 1)) from None
        cut = _cutoff(x, s, None, rcond)                            # (..., 1)
        rank = (s > cut).to(dtype="int64").sum(-1)
    # the cut in A's dtype, as LAPACK's gelsd makes it (float32's rcond=0.1 drops σ = 0.1f,
    # which pinv's float64 comparison keeps), and so the rank and the solution agree
    X = pinv(x, atol=cut.squeeze(-1), rtol=0.0) @ b                 # (..., n, k)
    empty = x.new_zeros(0)
    residuals = empty
    if driver in ("gelsd", "gelss", "gels") and m > n and bool((rank == n).all()):
        residuals = (x @ X - b).pow(2).sum(-2)                      # (..., k)
    solution = X.squeeze(-1) if vector else X
    if driver == "gels":
        rank = empty.to(dtype="int64")
    return LstsqResult(solution, residuals, rank,
                       s if driver in ("gelsd", "gelss") else empty)


def cond(A, p=None):
    """The condition number of each matrix of A, as ``torch.linalg.cond``: for p None, 2
    or −2, σ_max / σ_min (σ_min / σ_max for −2) of any (..., m, n), inf for a singular
    matrix; for 'fro', 'nuc', 1, −1, inf, −inf, matrix_norm(A, p) · matrix_norm(A^{-1}, p)
    of square matrices, inf where A is singular (as PyTorch's). Empty matrices (n = 0) and
    empty batches give zeros of the batch shape, as PyTorch's."""
    x = _matrix("cond", A)
    if p in ("fro", "nuc"):
        x = _matrix(f"cond(p={p})", A, square=True)
    if x.numel() == 0:                  # empty matrices, or an empty batch: 0, as PyTorch
        return x.new_zeros(*x.shape[:-2])
    if p in (None, 2, -2):
        s = svdvals(x)                                              # (..., k)
        big, small = s[..., 0], s[..., -1]
        return small / big if p == -2 else big / small
    if p not in ("fro", "nuc", 1, -1, math.inf, -math.inf):
        raise ValueError(f"linalg.cond: p must be None, 2, -2, 'fro', 'nuc', 1, -1, inf or "
                         f"-inf, got {p!r}")
    x = _matrix(f"cond(p={p})", A, square=True)
    if x.shape[-1] == 0:
        return x.sum(-1).sum(-1) * 0                                    # (...)
    try:
        return matrix_norm(x, p) * matrix_norm(inv(x), p)
    except LinAlgError:
        if x.ndim == 2:
            return x.new_tensor(math.inf)
        rows = [cond(a, p) for a in x.reshape(-1, *x.shape[-2:]).unbind(0)]  # one by one
        return stack(rows).reshape(*x.shape[:-2])


def matrix_power(A, n):
    """A^n for each square matrix of A (..., k, k), as ``torch.linalg.matrix_power``: n = 0
    the identity, n > 0 by repeated squaring (about log2 n products), n < 0 inv(A)^|n|.
    Integer matrices (and float16) take n >= 0, as PyTorch's, integers wrapping around on
    overflow; a negative n needs the inverse, so float32 or float64."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"linalg.matrix_power: n must be an int, got {type(n).__name__}")
    if n < 0 and isinstance(A, Tensor) and dtype_name(A.dtype) not in ("float32", "float64"):
        raise TypeError(f"linalg.matrix_power: n = {n} < 0 needs the inverse of A, and A has "
                        f"dtype {dtype_name(A.dtype)}; PyTorch refuses it too: call A.double() "
                        "first, or use n >= 0")
    if n < 0 or not isinstance(A, Tensor) or dtype_name(A.dtype) not in _MATMUL_DTYPES:
        x = _matrix("matrix_power", A, square=True)               # floats; or the error
    else:
        x = _matrix_of_any_dtype(A)
    if n < 0:
        x, n = inv(x), -n
    if n == 0:      # I in A's graph, as PyTorch's (A's gradient zeros): a where that never
        k = x.shape[-1]     # picks A, since A · 0 + I would be NaN wherever A holds NaN or inf
        never = zeros(k, k, dtype="bool", device=x.device)
        return where(never, x, eye(k, dtype=x.dtype, device=x.device))        # (..., k, k)
    result = None
    while n:
        if n & 1:
            result = x if result is None else result @ x
        n >>= 1
        if n:
            x = x @ x
    return result


_MATMUL_DTYPES = ("int8", "uint8", "int16", "int32", "int64", "float16", "float32", "float64")


def _matrix_of_any_dtype(A: Tensor) -> Tensor:
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise ValueError(f"linalg.matrix_power: A must be batches of square matrices, got "
                         f"shape {A.shape}")
    return A


def multi_dot(tensors):
    """The product of a list of matrices, as ``torch.linalg.multi_dot``: the first may be a
    1-D row vector and the last a 1-D column vector (their axes dropped from the result);
    the rest 2-D. Multiplied left to right (PyTorch picks the cheapest order; the value is
    the same up to rounding)."""
    ts = list(tensors)
    if len(ts) < 2:
        raise ValueError(f"linalg.multi_dot: expected at least 2 tensors, got {len(ts)}")
    for i, t in enumerate(ts):
        end = i in (0, len(ts) - 1)
        if not isinstance(t, Tensor) or not (t.ndim == 2 or (end and t.ndim == 1)):
            got = t.shape if isinstance(t, Tensor) else type(t).__name__
            raise ValueError(f"linalg.multi_dot: tensor {i} must be 2-D (the first and last "
                             f"may be 1-D), got {got}")
    y = ts[0]
    for t in ts[1:]:
        y = y @ t
    return y


def matmul(input, other):
    """``tinyffn.matmul``, under ``torch.linalg.matmul``'s name."""
    return input @ other


def vecdot(x, y, *, dim=-1):
    """Σ x · y along ``dim`` (real tensors: no conjugate), as ``torch.linalg.vecdot``;
    x and y broadcast."""
    return (x * y).sum(dim)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """``tinyffn.diagonal`` with ``torch.linalg.diagonal``'s defaults (the last two axes)."""
    return _diagonal(A, offset, dim1, dim2)


__all__ = ["pinv", "lstsq", "cond", "matrix_power", "multi_dot", "matmul", "vecdot",
           "diagonal", "LstsqResult"]
