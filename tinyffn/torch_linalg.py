"""PyTorch's top-level names for the decompositions of :mod:`tinyffn.linalg`: ``det``,
``slogdet`` and ``inverse`` (aliases of ``linalg.det``, ``linalg.slogdet``, ``linalg.inv``),
the older ``svd(input, some=True, compute_uv=True)``, which returns V, not Vh, and
``qr(input, some=True)``; ``matrix_power`` (``linalg.matrix_power``) and ``pinverse``
(``linalg.pinv``); and the matrix builders ``trace``, ``kron``, ``block_diag`` and
``cartesian_prod``, composed of diagonal, sum, reshape, mul, cat and meshgrid, so their
gradients follow from those. :class:`LinalgMethods` is a base class of ``Tensor``
(through ``TorchMethods``): ``x.det()``, ``x.slogdet()``, ``x.inverse()``, ``x.svd()``,
``x.qr()``, ``x.trace()``, ``x.kron(other)``, ``x.matrix_power(n)``, ``x.pinverse()``,
as torch's. ``cholesky`` (the older ``torch.cholesky``), ``cholesky_solve``,
``cholesky_inverse`` and ``matrix_exp`` call :mod:`tinyffn.linalg`'s, with their methods.

linalg.py imports tensor.py, which imports this file (for the methods): linalg, creation
and the Tensor class are read at call time.
"""
from __future__ import annotations

from typing import Any, NamedTuple

from . import grad_mode
from .arguments import tensor_arg


class SVDLegacyResult(NamedTuple):
    U: Any
    S: Any
    V: Any


def det(input):
    """The determinant of each square matrix, as ``torch.det`` (``linalg.det``)."""
    from . import linalg
    return linalg.det(input)


def slogdet(input):
    """(sign, logabsdet), as ``torch.slogdet`` (``linalg.slogdet``)."""
    from . import linalg
    return linalg.slogdet(input)


def logdet(input):
    """log det A of each square matrix, as ``torch.logdet``: ``linalg.slogdet``'s logabsdet
    plus log(sign), so -inf for a singular A and nan for det A < 0 (a real log of a
    negative number), as PyTorch's. The sign is detached: the gradient is slogdet's,
    g · A^{-T}. For a positive-definite A, 2 · log(diag(cholesky(A))).sum() is the same."""
    from . import linalg
    sign, logabsdet = linalg.slogdet(input)
    with grad_mode.scope("function", "logdet"):
        return logabsdet.masked_fill(sign < 0, float("nan"))


def inverse(input):
    """A^{-1}, as ``torch.inverse`` (``linalg.inv``); a singular A raises
    ``linalg.LinAlgError``."""
    from . import linalg
    return linalg.inv(input)


def svd(input, some=True, compute_uv=True):
    """input = U diag(S) V^T, as ``torch.svd``: a named tuple (U, S, V) with V, not
    ``linalg.svd``'s Vh; ``some=True`` gives the reduced U (..., m, k) and V (..., n, k),
    ``some=False`` the full ones. With ``compute_uv=False``, U (..., m, m) and V (..., n, n)
    are zeros (``some`` has no effect), as PyTorch's, and S is ``linalg.svdvals``."""
    from . import linalg
    if not compute_uv:
        S = linalg.svdvals(input)
        m, n = input.shape[-2:]
        batch = input.shape[:-2]
        return SVDLegacyResult(input.new_zeros(*batch, m, m), S, input.new_zeros(*batch, n, n))
    U, S, Vh = linalg.svd(input, full_matrices=not some)
    return SVDLegacyResult(U, S, Vh.mT)


def qr(input, some=True):
    """input = Q R, as ``torch.qr``: ``linalg.qr`` with mode 'reduced' (``some=True``) or
    'complete' (``some=False``); a named tuple (Q, R)."""
    from . import linalg
    return linalg.qr(input, mode="reduced" if some else "complete")


def trace(input):
    """The sum of the main diagonal of a 2-D ``input``, as ``torch.trace`` (integers sum to
    int64, as ``sum``); a 0-d tensor. The gradient is gy on the diagonal, 0 elsewhere."""
    x = tensor_arg("trace", "input", input)
    if x.ndim != 2:
        raise ValueError(f"trace: input must be a matrix (2-D), got shape {x.shape}; for a "
                         "batch use x.diagonal(dim1=-2, dim2=-1).sum(-1)")
    with grad_mode.scope("function", "trace"):
        return x.diagonal().sum()


def kron(input, other):
    """The Kronecker product, as ``torch.kron``: for a (a0, a1, ...) and b (b0, b1, ...)
    (the one with fewer axes padded with leading 1s), y[i·b0 + k, j·b1 + l, ...] =
    a[i, j, ...] · b[k, l, ...], shape (a0·b0, a1·b1, ...). Each entry of a times the
    whole of b: a reshaped to (a0, 1, a1, 1, ...) times b to (1, b0, 1, b1, ...), then
    merged pairwise."""
    a, b = tensor_arg("kron", "input", input), tensor_arg("kron", "other", other)
    n = max(a.ndim, b.ndim)
    sa, sb = (1,) * (n - a.ndim) + a.shape, (1,) * (n - b.ndim) + b.shape
    with grad_mode.scope("function", "kron"):
        a2 = a.reshape(*[s for d in sa for s in (d, 1)])            # (a0, 1, a1, 1, ...)
        b2 = b.reshape(*[s for d in sb for s in (1, d)])            # (1, b0, 1, b1, ...)
        return (a2 * b2).reshape(*[p * q for p, q in zip(sa, sb)])  # (a0·b0, a1·b1, ...)


def block_diag(*tensors):
    """The matrices on a block diagonal, zeros elsewhere, as ``torch.block_diag``: each a
    0-d (a 1 x 1 block), 1-D (one row) or 2-D tensor; the result has their promoted
    dtype, shape (Σ rows, Σ columns). No tensor gives a (1, 0) float32 tensor, as torch."""
    from .creation import cat, zeros
    from .promotion import as_tensors
    from .torch_math import _Named
    if not tensors:
        return zeros(1, 0)
    for i, t in enumerate(tensors):
        tensor_arg("block_diag", f"tensors[{i}]", t)
        if t.ndim > 2:
            raise ValueError(f"block_diag: tensors[{i}] has shape {t.shape}; each must be "
                             "0-d, 1-D or 2-D")
    tensors = as_tensors(tensors, _Named("block_diag"))      # one dtype, PyTorch's promotion
    dtype = tensors[0].dtype
    blocks = [t.reshape(1, 1) if t.ndim == 0 else t.reshape(1, -1) if t.ndim == 1 else t
              for t in tensors]
    width = sum(m.shape[1] for m in blocks)
    with grad_mode.scope("function", "block_diag"):
        rows, left = [], 0
        for m in blocks:
            r, c = m.shape
            pad = dict(dtype=dtype, device=m.device)
            rows.append(cat([zeros(r, left, **pad), m,
                             zeros(r, width - left - c, **pad)], dim=1))   # (r, width)
            left += c
        return cat(rows, dim=0) if len(rows) > 1 else rows[0]             # (Σ r, width)


def cartesian_prod(*tensors):
    """Every combination of one entry of each 1-D tensor, in order, as
    ``torch.cartesian_prod``: shape (n1 · n2 · ..., k) for k tensors (one tensor is
    returned as it is). The tensors must share a dtype, as ``meshgrid``'s."""
    from .creation import stack
    from .torch_select import meshgrid
    for i, t in enumerate(tensors):
        tensor_arg("cartesian_prod", f"tensors[{i}]", t)
        if t.ndim != 1:
            raise ValueError(f"cartesian_prod: tensors[{i}] has shape {t.shape}; each must "
                             "be 1-D")
    if not tensors:
        raise ValueError("cartesian_prod: needs at least one tensor")
    if len(tensors) == 1:
        return tensors[0]
    with grad_mode.scope("function", "cartesian_prod"):
        grids = meshgrid(*tensors, indexing="ij")                 # k of (n1, n2, ...)
        return stack([g.reshape(-1) for g in grids], dim=1)       # (n1 · n2 · ..., k)


def renorm(input, p, dim, maxnorm):
    """Each slice of ``input`` along ``dim`` (x.select(dim, i)) whose p-norm exceeds
    ``maxnorm`` scaled down to norm maxnorm, as ``torch.renorm`` (an embedding's rows kept
    short): y = x · where(‖x_i‖_p > maxnorm, maxnorm / (‖x_i‖_p + 1e−7), 1), the norm over
    every other axis. Composed of ``linalg.vector_norm``, ``where`` and mul, so the
    gradient goes through the norm too, as PyTorch's. p > 0 (inf too), maxnorm >= 0, a
    floating input of at least 2 axes, as PyTorch asks."""
    from . import linalg
    from .arguments import is_real
    from .composed import where
    from .sorting import _dim
    x = tensor_arg("renorm", "input", input)
    if x.ndim < 2:
        raise ValueError(f"renorm: input needs at least 2 dimensions (slices along dim), got "
                         f"shape {x.shape}, as PyTorch refuses too")
    if not x.backend.is_floating(x.dtype):
        raise TypeError(f"renorm: input must be a floating tensor, got {x.dtype}; cast "
                        "first, x.float()")
    for name, v, low in (("p", p, "> 0"), ("maxnorm", maxnorm, ">= 0")):
        if not is_real(v) or isinstance(v, bool) or (v <= 0 if name == "p" else v < 0):
            raise ValueError(f"renorm: {name} must be a number {low}, got {v!r} (PyTorch "
                             "refuses it too)")
    axis = _dim("renorm", dim, x.ndim)
    others = tuple(a for a in range(x.ndim) if a != axis)
    with grad_mode.scope("function", "renorm"):
        norm = linalg.vector_norm(x, p, dim=others, keepdim=True)       # (1, .., n, .., 1)
        return x * where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)


def matrix_power(input, n):
    """A^n, as ``torch.matrix_power`` (``linalg.matrix_power``): n < 0 through inv(A)."""
    from . import linalg
    return linalg.matrix_power(input, n)


def pinverse(input, rcond=1e-15):
    """A⁺, as ``torch.pinverse`` (``linalg.pinv`` with rtol=rcond, PyTorch's default)."""
    from . import linalg
    return linalg.pinv(input, rtol=rcond)


def cholesky(input, upper=False):
    """L with input = L L^T, as the older ``torch.cholesky`` (``linalg.cholesky``; torch's
    warns that it is deprecated, this one does not)."""
    from . import linalg
    return linalg.cholesky(input, upper=upper)


def cholesky_solve(input, input2, upper=False):
    """X with A X = input, A = L L^T for L = ``input2``, as ``torch.cholesky_solve``."""
    from .linalg_cholesky import cholesky_solve as solve
    return solve(input, input2, upper)


def cholesky_inverse(input, upper=False):
    """A^{-1} from A's Cholesky factor ``input``, as ``torch.cholesky_inverse``."""
    from .linalg_cholesky import cholesky_inverse as inverse_of
    return inverse_of(input, upper)


def matrix_exp(input):
    """exp(A), as ``torch.matrix_exp`` (``linalg.matrix_exp``)."""
    from . import linalg
    return linalg.matrix_exp(input)


class LinalgMethods:
    """The Tensor methods of the functions above that torch's Tensor has."""

    __slots__ = ()          # Tensor has slots: a base class without them would add a __dict__

    def det(self): return det(self)
    def slogdet(self): return slogdet(self)
    def logdet(self): return logdet(self)
    def inverse(self): return inverse(self)
    def svd(self, some=True, compute_uv=True): return svd(self, some, compute_uv)
    def qr(self, some=True): return qr(self, some)
    def trace(self): return trace(self)
    def kron(self, other): return kron(self, other)
    def cholesky(self, upper=False): return cholesky(self, upper)
    def cholesky_solve(self, input2, upper=False): return cholesky_solve(self, input2, upper)
    def cholesky_inverse(self, upper=False): return cholesky_inverse(self, upper)
    def matrix_exp(self): return matrix_exp(self)
    def matrix_power(self, n): return matrix_power(self, n)
    def pinverse(self, rcond=1e-15): return pinverse(self, rcond)
    def renorm(self, p, dim, maxnorm): return renorm(self, p, dim, maxnorm)

    def renorm_(self, p, dim, maxnorm):
        from .in_place import _replaced
        return _replaced(self, "renorm", p, dim, maxnorm)


__all__ = ["det", "slogdet", "logdet", "inverse", "svd", "qr", "trace", "kron", "block_diag",
           "cartesian_prod", "matrix_power", "pinverse", "cholesky", "cholesky_solve",
           "cholesky_inverse", "matrix_exp", "renorm", "SVDLegacyResult", "LinalgMethods"]
