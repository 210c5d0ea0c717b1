"""The rest of ``torch.distributions.transforms`` (importable from
``tinyffn.distributions.transforms`` and ``tinyffn.distributions``, as PyTorch's): maps onto
matrices and transforms made of other transforms.

    LowerCholeskyTransform        L = tril(x, −1) + diag(exp(diag x)): a Cholesky factor
    PositiveDefiniteTransform     Σ = L Lᵀ of that L
    CorrCholeskyTransform         D(D − 1)/2 reals onto the Cholesky factor of a correlation
                                  matrix (rows of unit length): tanh, then signed stick breaking
    CatTransform, StackTransform  one transform per slice along a dim (torch.cat / torch.stack)
    CumulativeDistributionTransform  y = F(x), a distribution's cdf: log|det J| = log p(x)

Each is composed of tinyffn ops (the gradients flow through y and log|det J|); errors are
PyTorch's (its AssertionError where it raises one).
"""
from __future__ import annotations

import math

from . import creation as C
from . import linalg
from .distributions_constraints import (cat, corr_cholesky, independent, lower_cholesky,
                                        positive_definite, real, real_vector, stack,
                                        unit_interval)
from .distributions_extra import _sum_rightmost
from .distributions_transforms import Transform
from .functional_extra import pad, softplus
from .more_functions import _index_selected
from .numerics import finfo


def _tril_positions(n: int, diag: int) -> list:
    """Flat indices i·n + j of the entries j <= i + diag of an n × n matrix, row by row
    (PyTorch's tril mask ``arange < arange.view(-1, 1) + diag + 1``). Made here on the host,
    inside [0, n·n): the gathers below do not range-check them on the device (a read back,
    on a GPU a wait for every kernel queued before it)."""
    return [i * n + j for i in range(n) for j in range(n) if j <= i + diag]


def _vec_to_tril_matrix(vec, diag: int = 0):
    """(..., N) -> (..., n, n): vec's entries in row order at j <= i + diag, zeros elsewhere
    (PyTorch's ``vec_to_tril_matrix``); a gather from vec with one zero appended."""
    N = vec.shape[-1]
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * N + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if abs(round(n) - n) > finfo(vec.dtype).eps:       # PyTorch checks n rounding up only
        raise ValueError(f"The size of last dimension is {N} which cannot be expressed as the "
                         "lower triangular part of a square D x D matrix.")
    n = round(n)
    where = dict(zip(_tril_positions(n, diag), range(N)))
    index = [where.get(k, N) for k in range(n * n)]        # N: the appended zero
    flat = _index_selected(pad(vec, [0, 1]), vec.ndim - 1,                # (..., n·n)
                           C.tensor(index, dtype="int64", device=vec.device))
    return flat.reshape(*vec.shape[:-1], n, n)                           # (..., n, n)


def _tril_matrix_to_vec(mat, diag: int = 0):
    """(..., n, n) -> (..., N): the entries j <= i + diag in row order."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    flat = mat.reshape(*mat.shape[:-2], n * n)                           # (..., n·n)
    return _index_selected(flat, flat.ndim - 1, C.tensor(_tril_positions(n, diag),
                                                         dtype="int64", device=mat.device))


class LowerCholeskyTransform(Transform):
    """x (..., n, n) -> tril(x, −1) + diag(exp(diag x)): lower triangular with a positive
    diagonal (``transform_to(lower_cholesky)``); inverse tril(y, −1) + diag(log(diag y)).
    Not bijective (the upper triangle is dropped), no log|det J|, as PyTorch's."""

    domain, codomain = independent(real, 2), lower_cholesky

    def __eq__(self, other):
        return isinstance(other, LowerCholeskyTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(Transform):
    """x -> L Lᵀ, L = LowerCholeskyTransform()(x): a positive definite matrix
    (``transform_to(positive_definite)``); inverse through ``linalg.cholesky``."""

    domain, codomain = independent(real, 2), positive_definite

    def __eq__(self, other):
        return isinstance(other, PositiveDefiniteTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        L = LowerCholeskyTransform()(x)
        return L @ L.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(linalg.cholesky(y))


class CorrCholeskyTransform(Transform):
    """D(D − 1)/2 reals x onto the Cholesky factor L of a D × D correlation matrix (lower
    triangular, positive diagonal, rows of unit length), as PyTorch's: r = tanh(x) fills the
    strict lower triangle row by row; each row is a *signed* stick breaking,
    L_ij = r_ij Π_{k<j} sqrt(1 − r_ik²), L_ii = Π_{k<i} sqrt(1 − r_ik²).
    log|det J| (x against y's strict lower triangle, PyTorch's and Stan's) =
    ½ Σ_i Σ_{0<j<i} log(1 − Σ_{k<j} L_ik²) + Σ log(1 − tanh² x)."""

    domain, codomain, bijective = real_vector, corr_cholesky, True

    def __eq__(self, other):
        return isinstance(other, CorrCholeskyTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        eps = finfo(x.dtype).eps
        r = _vec_to_tril_matrix(x.tanh().clamp(min=-1 + eps, max=1 - eps), diag=-1)
        z1m_cumprod_sqrt = (1 - r ** 2).sqrt().cumprod(-1)                 # (..., D, D)
        r = r + C.eye(r.shape[-1], dtype=r.dtype, device=r.device)       # diagonal 1
        return r * pad(z1m_cumprod_sqrt[..., :-1], [1, 0], value=1)

    def _inverse(self, y):
        y_cumsum = 1 - (y * y).cumsum(-1)
        y_cumsum_shifted = pad(y_cumsum[..., :-1], [1, 0], value=1)
        t = _tril_matrix_to_vec(y, diag=-1) / _tril_matrix_to_vec(y_cumsum_shifted,
                                                                  diag=-1).sqrt()
        return (t.log1p() - (-t).log1p()) / 2                          # atanh

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        y1m_cumsum = 1 - (y * y).cumsum(-1)
        stick_breaking = 0.5 * _tril_matrix_to_vec(y1m_cumsum, diag=-2).log().sum(-1)
        tanh = -2 * (x + softplus(-2 * x) - math.log(2.0)).sum(-1)
        return stick_breaking + tanh

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        N = shape[-1]
        D = round((0.25 + 2 * N) ** 0.5 + 0.5)
        if D * (D - 1) // 2 != N:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return tuple(shape[:-1]) + (D, D)

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        D = shape[-1]
        return tuple(shape[:-2]) + (D * (D - 1) // 2,)


def _transforms(tseq, cache_size: int) -> list:
    tseq = list(tseq)
    if not all(isinstance(t, Transform) for t in tseq):
        raise AssertionError("All elements of tseq must be Transform instances")
    return [t.with_cache(cache_size) for t in tseq] if cache_size else tseq


def _check_along(dim: int, v, size: int, what: str, name: str, expected: str) -> None:
    """PyTorch's checks of the tensor a Cat/StackTransform is given."""
    if not -v.ndim <= dim < v.ndim:
        raise AssertionError(f"dim {dim} out of range for {what} with {v.ndim} dimensions")
    if v.shape[dim] != size:
        raise AssertionError(f"{name}.size({dim}) = {v.shape[dim]} must equal {expected} {size}")


class CatTransform(Transform):
    """``tseq[i]`` on the i-th slice of ``lengths[i]`` entries along ``dim`` (1 each by
    default), the results joined as torch.cat: y = cat([t_i(x_i)]); log|det J| the parts'
    (each summed over the event axes it lacks), joined along dim, or added where dim is
    an event axis; event_dim the largest of the parts'."""

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        self.transforms = _transforms(tseq, cache_size)
        super().__init__(cache_size=cache_size)
        self.lengths = [1] * len(self.transforms) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match transforms "
                                 f"({len(self.transforms)})")
        self.dim = dim

    event_dim = property(lambda self: max(t.event_dim for t in self.transforms))
    length = property(lambda self: sum(self.lengths))
    bijective = property(lambda self: all(t.bijective for t in self.transforms))
    domain = property(lambda self: cat([t.domain for t in self.transforms], self.dim,
                                       self.lengths))
    codomain = property(lambda self: cat([t.codomain for t in self.transforms], self.dim,
                                         self.lengths))

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _slices(self, v):
        start = 0
        for length in self.lengths:
            yield v.narrow(self.dim, start, length)
            start = start + length

    def _call(self, x):
        _check_along(self.dim, x, self.length, "tensor", "x", "length")
        return C.cat([t(s) for t, s in zip(self.transforms, self._slices(x))], self.dim)

    def _inverse(self, y):
        _check_along(self.dim, y, self.length, "tensor", "y", "length")
        return C.cat([t.inv(s) for t, s in zip(self.transforms, self._slices(y))], self.dim)

    def log_abs_det_jacobian(self, x, y):
        _check_along(self.dim, x, self.length, "x", "x", "length")
        _check_along(self.dim, y, self.length, "y", "y", "length")
        event_dim, parts = self.event_dim, []
        for t, xs, ys in zip(self.transforms, self._slices(x), self._slices(y)):
            parts.append(_sum_rightmost(t.log_abs_det_jacobian(xs, ys),
                                        event_dim - t.event_dim))
        dim = (self.dim - x.ndim if self.dim >= 0 else self.dim) + event_dim
        if dim < 0:                                  # dim is a batch axis of log|det J|
            return C.cat(parts, dim)
        return sum(parts[1:], parts[0])              # dim inside the event: one total


class StackTransform(Transform):
    """``tseq[i]`` on the i-th entry along ``dim``, joined as torch.stack:
    y = stack([t_i(x.select(dim, i))]); log|det J| the parts' stacked along dim."""

    def __init__(self, tseq, dim=0, cache_size=0):
        self.transforms = _transforms(tseq, cache_size)
        super().__init__(cache_size=cache_size)
        self.dim = dim

    bijective = property(lambda self: all(t.bijective for t in self.transforms))
    domain = property(lambda self: stack([t.domain for t in self.transforms], self.dim))
    codomain = property(lambda self: stack([t.codomain for t in self.transforms], self.dim))

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slices(self, v):
        return [v.select(self.dim, i) for i in range(v.shape[self.dim])]

    def _check(self, v, what: str, name: str) -> None:
        _check_along(self.dim, v, len(self.transforms), what, name, "len(transforms)")

    def _call(self, x):
        self._check(x, "tensor", "x")
        return C.stack([t(s) for t, s in zip(self.transforms, self._slices(x))], self.dim)

    def _inverse(self, y):
        self._check(y, "tensor", "y")
        return C.stack([t.inv(s) for t, s in zip(self.transforms, self._slices(y))], self.dim)

    def log_abs_det_jacobian(self, x, y):
        self._check(x, "x", "x")
        self._check(y, "y", "y")
        return C.stack([t.log_abs_det_jacobian(xs, ys) for t, xs, ys in
                        zip(self.transforms, self._slices(x), self._slices(y))], self.dim)


class CumulativeDistributionTransform(Transform):
    """y = F(x), the cdf of ``distribution`` (from its support onto [0, 1]; a Gaussian
    copula's marginals): inverse its icdf, log|det J| = log p(x), its log_prob; sign +1."""

    bijective, codomain, sign = True, unit_interval, +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    domain = property(lambda self: self.distribution.support)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)
