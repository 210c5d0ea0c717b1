"""LowRankMultivariateNormal, Wishart and LKJCholesky, as ``torch.distributions``'s (the base
class and the KL registry are in :mod:`tinyffn.distributions`, which imports this file;
import from there).

LowRankMultivariateNormal is N(loc, W Wᵀ + D) with W (n, m) and D diagonal: its log_prob
and entropy never form the n × n covariance, only the m × m capacitance C = I + Wᵀ D⁻¹ W
(Woodbury's identity for the inverse, the matrix determinant lemma for the determinant).
Wishart(df, Σ) is the law of Σᵢ xᵢ xᵢᵀ, xᵢ ~ N(0, Σ), drawn by Bartlett's decomposition,
reparameterised (its χ² draws are Gamma's StandardGamma). LKJCholesky(d, η) is the law of
the Cholesky factor L of a correlation matrix with density ∝ det(L Lᵀ)^(η − 1), drawn by
PyTorch's onion method.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from . import backend as backends
from . import creation as C
from . import linalg
from .arguments import type_name
from .distributions import (Distribution, ExponentialFamily, _broadcast_all,
                            _greater_than, _positive, _real)
from .distributions_constraints import corr_cholesky
from .distributions_extra import _Independent
from .distributions_gamma import Beta, Gamma
from .distributions_more import (_Derived, _lower_cholesky, _mahalanobis, _positive_definite,
                                 _real_vector)
from .linalg_cholesky import cholesky_solve
from .special import multigammaln
from .tensor import Tensor
from .torch_extras import diag_embed
from .torch_functions import where

_LOG_2 = math.log(2.0)


# ----------------------------------------------------------------------------- low rank
def _batch_capacitance_tril(W: Tensor, D: Tensor) -> Tensor:
    """Cholesky factor of C = I + Wᵀ D⁻¹ W (..., m, m), W (..., n, m), D (..., n)."""
    K = (W.mT / D.unsqueeze(-2)) @ W                                    # (..., m, m)
    return linalg.cholesky(K + C.eye(W.shape[-1], dtype=W.dtype, device=W.device))


def _batch_lowrank_logdet(W: Tensor, D: Tensor, capacitance_tril: Tensor) -> Tensor:
    """log|W Wᵀ + D| = log|C| + log|D| (the matrix determinant lemma)."""
    return 2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + D.log().sum(-1)


def _batch_lowrank_mahalanobis(W: Tensor, D: Tensor, x: Tensor, capacitance_tril) -> Tensor:
    """xᵀ (W Wᵀ + D)⁻¹ x = xᵀ D⁻¹ x − |Lc⁻¹ Wᵀ D⁻¹ x|² (Woodbury's identity), x (..., n)."""
    Wt_Dinv_x = ((W.mT / D.unsqueeze(-2)) @ x.unsqueeze(-1)).squeeze(-1)   # (..., m)
    return (x ** 2 / D).sum(-1) - _mahalanobis(capacitance_tril, Wt_Dinv_x)


class LowRankMultivariateNormal(Distribution):
    """N(loc, Σ), Σ = W Wᵀ + diag(D) (W = cov_factor (..., n, m), D = cov_diag (..., n) > 0):
    log_prob = −½ (n log 2π + log|Σ| + (x − loc)ᵀ Σ⁻¹ (x − loc)) through the capacitance
    C = I + Wᵀ D⁻¹ W (m × m); entropy ½ (n (1 + log 2π) + log|Σ|); rsample loc + W ε_W
    + √D ε_D; ``covariance_matrix``, ``precision_matrix``, ``scale_tril`` and ``variance``
    as PyTorch's."""

    arg_constraints = {"loc": _real_vector, "cov_factor": _Independent(_real, 2),
                       "cov_diag": _Independent(_positive, 1)}
    support = _real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        for name, v in (("loc", loc), ("cov_factor", cov_factor), ("cov_diag", cov_diag)):
            if not isinstance(v, Tensor):
                raise TypeError(f"LowRankMultivariateNormal: {name} must be a Tensor, got "
                                f"{type_name(v)}")
        if loc.ndim < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = loc.shape[-1:]
        if cov_factor.ndim < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if cov_factor.shape[-2:-1] != event_shape:
            raise ValueError(f"cov_factor must be a batch of matrices with shape "
                             f"{event_shape[0]} x m, got {cov_factor.shape}")
        if cov_diag.shape[-1:] != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}, "
                             f"got {cov_diag.shape}")
        try:
            batch = tuple(np.broadcast_shapes(loc.shape[:-1], cov_factor.shape[:-2],
                                              cov_diag.shape[:-1]))
        except ValueError:
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor "
                             f"{cov_factor.shape}, cov_diag {cov_diag.shape}") from None
        n, m = event_shape[0], cov_factor.shape[-1]
        self.loc = loc.expand(*batch, n)
        self.cov_factor = cov_factor.expand(*batch, n, m)
        self.cov_diag = cov_diag.expand(*batch, n)
        self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag = cov_factor, cov_diag
        super().__init__(batch, event_shape, validate_args)
        with self._scope("__init__"):
            self._capacitance_tril = _batch_capacitance_tril(cov_factor, cov_diag)

    mean = mode = property(lambda self: self.loc)

    def _full(self, M: Tensor) -> Tensor:
        return M.expand(*self._batch_shape, *self._event_shape, *self._event_shape)

    @property
    def variance(self):
        W, D = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        return ((W ** 2).sum(-1) + D).expand(*self._batch_shape, *self._event_shape)

    @property
    def scale_tril(self):
        """√D · cholesky(I + (D^-½ W)(D^-½ W)ᵀ), the Cholesky factor of Σ."""
        n = self._event_shape[0]
        d_sqrt = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)          # (..., n, 1)
        A = self._unbroadcasted_cov_factor / d_sqrt
        K = A @ A.mT + C.eye(n, dtype=A.dtype, device=A.device)
        return self._full(d_sqrt * linalg.cholesky(K))

    @property
    def covariance_matrix(self):
        W = self._unbroadcasted_cov_factor
        return self._full(W @ W.mT + diag_embed(self._unbroadcasted_cov_diag))

    @property
    def precision_matrix(self):
        """D⁻¹ − Aᵀ A, A = Lc⁻¹ Wᵀ D⁻¹ (Woodbury)."""
        Wt_Dinv = self._unbroadcasted_cov_factor.mT / self._unbroadcasted_cov_diag.unsqueeze(-2)
        A = linalg.solve_triangular(self._capacitance_tril, Wt_Dinv, upper=False)
        return self._full(diag_embed(self._unbroadcasted_cov_diag.reciprocal()) - A.mT @ A)

    def expand(self, batch_shape, _instance=None):
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        batch_shape = tuple(batch_shape)
        n, m = self._event_shape[0], self.cov_factor.shape[-1]
        new.loc = self.loc.expand(*batch_shape, n)
        new.cov_diag = self.cov_diag.expand(*batch_shape, n)
        new.cov_factor = self.cov_factor.expand(*batch_shape, n, m)
        new._batch_shape = batch_shape
        return new

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps_W = self._draw("standard_normal", shape[:-1] + self.cov_factor.shape[-1:], self.loc)
        eps_D = self._draw("standard_normal", shape, self.loc)
        with self._scope("rsample"):
            W_eps = (self._unbroadcasted_cov_factor @ eps_W.unsqueeze(-1)).squeeze(-1)
            return self.loc + W_eps + self._unbroadcasted_cov_diag.sqrt() * eps_D

    def _log_det(self) -> Tensor:
        return _batch_lowrank_logdet(self._unbroadcasted_cov_factor,
                                     self._unbroadcasted_cov_diag, self._capacitance_tril)

    def log_prob(self, value):
        value = self._value(value, "log_prob")
        with self._scope("log_prob"):
            M = _batch_lowrank_mahalanobis(self._unbroadcasted_cov_factor,
                                           self._unbroadcasted_cov_diag, value - self.loc,
                                           self._capacitance_tril)
            return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + self._log_det() + M)

    def entropy(self):
        with self._scope("entropy"):
            H = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._log_det())
            return H.expand(*self._batch_shape)


# ----------------------------------------------------------------------------- Wishart
def _mvdigamma(x: Tensor, p: int) -> Tensor:
    """Σ_{i<p} ψ(x − i/2), the derivative of the multivariate log-gamma in x."""
    i = C.arange(p, dtype=x.dtype, device=x.device) / 2
    return (x.unsqueeze(-1) - i).digamma().sum(-1)


class Wishart(ExponentialFamily):
    """Wishart(ν = df, Σ = L Lᵀ) on p × p positive definite matrices (ν > p − 1):
    log p(X) = −ν (p log 2 / 2 + Σ log Lᵢᵢ) − log Γ_p(ν/2) + (ν − p − 1)/2 log|X|
    − tr(Σ⁻¹ X)/2; mean ν Σ, mode (ν − p − 1) Σ (NaN for ν <= p + 1), variance
    ν (Σᵢⱼ² + Σᵢᵢ Σⱼⱼ); entropy PyTorch's (the multivariate digamma); rsample by
    Bartlett: X = (L A)(L A)ᵀ, A lower triangular, Aᵢᵢ = √χ²(ν − i), Aᵢⱼ ~ N(0, 1)."""

    support = _positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {"covariance_matrix": _positive_definite, "precision_matrix": _positive_definite,
                "scale_tril": _lower_cholesky,
                "df": _greater_than(self._event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        given = [(name, M) for name, M in (("covariance_matrix", covariance_matrix),
                                           ("precision_matrix", precision_matrix),
                                           ("scale_tril", scale_tril)) if M is not None]
        if len(given) != 1:
            raise ValueError("Wishart: Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        name, M = given[0]
        if not isinstance(M, Tensor) or M.ndim < 2 or M.shape[-1] != M.shape[-2]:
            raise ValueError(f"Wishart: {name} must be a Tensor of square matrices (..., p, p), "
                             f"at least two-dimensional, with optional leading batch "
                             f"dimensions; got {getattr(M, 'shape', type_name(M))}")
        if isinstance(df, Tensor):
            batch = tuple(np.broadcast_shapes(M.shape[:-2], df.shape))
            self.df = df.expand(*batch)
        else:
            (df_t,) = _broadcast_all("Wishart", df=df)
            batch, self.df = M.shape[:-2], df_t.to(dtype=M.dtype, device=M.device)
        p = M.shape[-1]
        # PyTorch's two looks at df (the error, then the warning), read back together: one
        # wait for a GPU, not two
        too_low, low = C.stack([(self.df <= p - 1).any(), (self.df < p).any()]).tolist()
        if too_low:
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        setattr(self, name, M.expand(*batch, p, p))
        self._given = (name, "df")
        if low:
            warnings.warn("Low df values detected. Singular samples are highly likely to "
                          "occur for ndim - 1 < df < ndim.", UserWarning, stacklevel=2)
        self._event_shape = (p, p)                 # arg_constraints reads it
        super().__init__(batch, (p, p), validate_args)
        with self._scope("__init__"):
            self._unbroadcasted_scale_tril = (
                M if name == "scale_tril" else linalg.cholesky(M) if name == "covariance_matrix"
                else linalg.cholesky(linalg.inv(M)))

    def _full(self, M: Tensor) -> Tensor:
        return M.expand(*self._batch_shape, *self._event_shape)

    scale_tril = _Derived(lambda self: self._full(self._unbroadcasted_scale_tril))
    covariance_matrix = _Derived(lambda self: self._full(
        self._unbroadcasted_scale_tril @ self._unbroadcasted_scale_tril.mT))
    precision_matrix = _Derived(lambda self: self._full(cholesky_solve(
        C.eye(self._event_shape[-1], dtype=self.df.dtype, device=self.df.device),
        self._unbroadcasted_scale_tril)))

    def expand(self, batch_shape, _instance=None):
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        batch_shape = tuple(batch_shape)
        new.df = self.df.expand(*batch_shape)
        for name in ("covariance_matrix", "precision_matrix", "scale_tril"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(*batch_shape, *self._event_shape))
        new._batch_shape = batch_shape
        return new

    def _df(self) -> Tensor:
        return self.df.reshape(*self._batch_shape, 1, 1)

    mean = property(lambda self: self._df() * self.covariance_matrix)

    @property
    def mode(self):
        factor = self.df - self._event_shape[-1] - 1
        factor = factor.masked_fill(factor <= 0, math.nan)
        return factor.reshape(*self._batch_shape, 1, 1) * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        d = V.diagonal(dim1=-2, dim2=-1)
        return self._df() * (V ** 2 + d.unsqueeze(-1) * d.unsqueeze(-2))

    def rsample(self, sample_shape=(), max_try_correction=None):
        """Bartlett's X = (L A)(L A)ᵀ. A draw that is not positive definite (a χ² of a low df
        underflowing) is drawn again, up to ``max_try_correction`` (10) times, with
        PyTorch's warning."""
        if isinstance(sample_shape, int):
            sample_shape = (sample_shape,)
        tries = 10 if max_try_correction is None else max_try_correction
        X = self._bartlett(tuple(sample_shape))
        bad = ~_positive_definite.check(X.detach())
        if bool(bad.any()):
            warnings.warn("Singular sample detected.", UserWarning, stacklevel=2)
            for _ in range(tries):
                X = _where_matrix(bad, self._bartlett(tuple(sample_shape)), X)
                bad = ~_positive_definite.check(X.detach())
                if not bool(bad.any()):
                    break
        return X

    def _bartlett(self, sample_shape: tuple) -> Tensor:
        p = self._event_shape[-1]
        shape = sample_shape + self._batch_shape
        with self._scope("rsample"):
            i = C.arange(p, dtype=self.df.dtype, device=self.df.device)
            chi2 = Gamma(0.5 * (self.df.unsqueeze(-1) - i), 0.5,
                         validate_args=False).rsample(sample_shape)            # (*s, *B, p)
            eps = float(np.finfo(backends.dtype_name(self.df.dtype)).eps)
            z = self._draw("standard_normal", shape + (p, p), self.df).tril(-1)
            A = diag_embed(chi2.sqrt().clamp(min=eps)) + z                      # (*s, *B, p, p)
            LA = self._unbroadcasted_scale_tril @ A
            return LA @ LA.mT

    def log_prob(self, value):
        value = self._value(value, "log_prob")
        with self._scope("log_prob"):
            nu, p = self.df, self._event_shape[-1]
            L = self._unbroadcasted_scale_tril
            return -nu * (p * _LOG_2 / 2 + L.diagonal(dim1=-2, dim2=-1).log().sum(-1)) \
                - multigammaln(nu / 2, p) \
                + (nu - p - 1) / 2 * linalg.slogdet(value).logabsdet \
                - cholesky_solve(value, L).diagonal(dim1=-2, dim2=-1).sum(-1) / 2

    def entropy(self):
        with self._scope("entropy"):
            nu, p = self.df, self._event_shape[-1]
            L = self._unbroadcasted_scale_tril
            return (p + 1) * (p * _LOG_2 / 2 + L.diagonal(dim1=-2, dim2=-1).log().sum(-1)) \
                + multigammaln(nu / 2, p) - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p) \
                + nu * p / 2

    @property
    def _natural_params(self):
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (self.df - p - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        return (y + (p + 1) / 2) * (-linalg.slogdet(-2 * x).logabsdet + _LOG_2 * p) \
            + multigammaln(y + (p + 1) / 2, p)


def _where_matrix(mask: Tensor, a: Tensor, b: Tensor) -> Tensor:
    """a where mask (one bool per matrix), else b."""
    return where(mask.unsqueeze(-1).unsqueeze(-1), a, b)


# ----------------------------------------------------------------------------- LKJ
class LKJCholesky(Distribution):
    """LKJCholesky(d = dim, η = concentration): the lower Cholesky factor L (d × d) of a
    correlation matrix R = L Lᵀ with density ∝ det(R)^(η − 1) (Lewandowski, Kurowicka &
    Joe, 2009); log p(L) = Σ_{i=2..d} (2(η − 1) + d − i) log Lᵢᵢ − log normaliser, as
    PyTorch's. Draws by the onion method (LKJ 2009, §3.2), vectorised as PyTorch's: row i
    (0-based) is √yᵢ uᵢ, uᵢ uniform on the sphere of its first i axes, with Lᵢᵢ = √(1 − yᵢ),
    yᵢ ~ Beta(i/2, η + (d − 2)/2 − (i − 1)/2). PyTorch 2.13 draws row i >= 2 from
    Beta(i − ½, ·) instead (its offset lacks the ½ that NumPyro's has), so its correlations
    are not exchangeable (E[r₀₂²] = 1/4, not 1/5, at d = 3, η = 1.5) and do not follow its
    own log_prob; these do (the test of the seeded draws). No rsample, as PyTorch's."""

    arg_constraints = {"concentration": _positive}
    support = corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if not isinstance(dim, int) or isinstance(dim, bool) or dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. "
                             f"Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = _broadcast_all("LKJCholesky", concentration=concentration)
        super().__init__(self.concentration.shape, (dim, dim), validate_args)
        with self._scope("__init__"):
            marginal_conc = self.concentration + 0.5 * (dim - 2)
            offset = 0.5 * C.arange(dim - 1, dtype=self.concentration.dtype,
                                    device=self.concentration.device)
            offset = C.cat([offset[:1] * 0, offset])              # (d,): 0, 0, ½, 1, ...
            self._beta = Beta(offset + 0.5, marginal_conc.unsqueeze(-1) - offset,
                              validate_args=False)                 # row i: Beta(i/2, β_i)

    def expand(self, batch_shape, _instance=None):
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        batch_shape = tuple(batch_shape)
        new.concentration = self.concentration.expand(*batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        new._batch_shape = batch_shape
        return new

    def sample(self, sample_shape=()):
        y = self._beta.sample(sample_shape).unsqueeze(-1)                  # (*s, *B, d, 1)
        shape = self._extended_shape(sample_shape)
        with self._scope("sample"):
            u = self._draw("standard_normal", shape, self.concentration).tril(-1)
            row = C.arange(self.dim, device=u.device).reshape(-1, 1)           # (d, 1)
            norm = (u ** 2).sum(-1, keepdim=True).sqrt()
            u = (u / norm.masked_fill(row == 0, 1.0)).masked_fill(row == 0, 0.0)
            w = y.sqrt() * u
            tiny = float(np.finfo(backends.dtype_name(w.dtype)).tiny)
            diag = (1 - (w ** 2).sum(-1)).clamp(min=tiny).sqrt()
            return (w + diag_embed(diag)).detach()

    def entropy(self):
        raise NotImplementedError("LKJCholesky has no entropy (PyTorch's has none either); "
                                  "estimate it as -log_prob(x).mean() over x = sample((n,))")

    def log_prob(self, value):
        value = self._value(value, "log_prob")
        with self._scope("log_prob"):
            d, eta = self.dim, self.concentration
            diag = value.diagonal(dim1=-1, dim2=-2)[..., 1:]                  # (..., d − 1)
            order = C.arange(2, d + 1, dtype=eta.dtype, device=eta.device)
            order = 2 * (eta - 1).unsqueeze(-1) + d - order
            unnormalized = (order * diag.log()).sum(-1)
            dm1 = d - 1
            alpha = eta + 0.5 * dm1
            normalize = 0.5 * dm1 * math.log(math.pi) + multigammaln(alpha - 0.5, dm1) \
                - alpha.lgamma() * dm1
            return unnormalized - normalize
