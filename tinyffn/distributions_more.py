"""Bernoulli, Categorical and MultivariateNormal, as ``torch.distributions``'s, with their KL
closed forms (the base class, the continuous scalar distributions and the KL registry are
in :mod:`tinyffn.distributions`, which imports this file; import from there)."""
from __future__ import annotations

import math

import numpy as np

from . import backend as backends
from . import creation as C
from . import grad_mode, linalg
from .distributions import (Constraint, Distribution, ExponentialFamily, _broadcast_all,
                            _interval, _real, register_kl)
from .functional_extra import softplus
from .binary_losses import binary_cross_entropy_with_logits
from .tensor import Tensor
from .torch_functions import softmax, where
from .linalg_cholesky import _factorable
from .sorting import _gathered
from .torch_shapes import broadcast_tensors

_simplex = Constraint("Simplex", lambda v: (v >= 0).all(-1) & ((v.sum(-1) - 1).abs() < 1e-6),
                      event_dim=1)
_boolean = Constraint("Boolean", lambda v: (v == 0) | (v == 1))
_lower_cholesky = Constraint("LowerCholesky", lambda v: (v.tril() == v).all(-1).all(-1)
                             & (v.diagonal(dim1=-2, dim2=-1) > 0).all(-1), event_dim=2)
_positive_definite = Constraint(
    "PositiveDefinite", lambda v: ((v - v.mT).abs() <= 1e-6).all(-1).all(-1)
    & _factorable(v), event_dim=2)                  # cholesky_ex(v).info == 0, no read


class _IndependentReal(Constraint):
    def __repr__(self) -> str:
        return "IndependentConstraint(Real(), 1)"


_real_vector = _IndependentReal("IndependentConstraint", lambda v: (v == v).all(-1), 1)


def _integer_interval(low: int, high: int) -> Constraint:
    return Constraint("IntegerInterval", lambda v, lower_bound, upper_bound:
                      (v == v.floor()) & (v >= lower_bound) & (v <= upper_bound),
                      lower_bound=low, upper_bound=high)


def _one_of(op: str, probs, logits):
    if (probs is None) == (logits is None):
        raise ValueError(f"{op}: Either `probs` or `logits` must be specified, but not both.")
    return ("probs", probs) if logits is None else ("logits", logits)


def _uniform_draws(d: Distribution, shape: tuple) -> Tensor:
    """u ~ U[0, 1) of ``shape`` from d's seeded generator, float64, on d.probs's device."""
    return C._filled(d._rng().random(shape), "float64", d.probs.device, False)


def _clamp_probs(probs: Tensor) -> Tensor:
    """probs in [eps, 1 − eps], so that their logs stay finite (PyTorch's clamp_probs)."""
    eps = float(np.finfo(backends.dtype_name(probs.dtype)).eps)
    return probs.clamp(min=eps, max=1 - eps)


class Bernoulli(ExponentialFamily):
    """Bernoulli(p): P(x = 1) = p, P(x = 0) = 1 − p, with p = sigmoid(logits).
    log_prob(x) = x log p + (1 − x) log(1 − p) = −BCEWithLogits(logits, x)."""

    arg_constraints = {"probs": _interval(0.0, 1.0), "logits": _real}
    support = _boolean
    has_enumerate_support = True
    _params = (("probs", 0), ("logits", 0))

    def __init__(self, probs=None, logits=None, validate_args=None):
        name, param = _one_of("Bernoulli", probs, logits)
        (param,) = _broadcast_all("Bernoulli", **{name: param})
        setattr(self, name, param)
        self._given = (name,)
        super().__init__(param.shape, (), validate_args)
        with self._scope("__init__"):
            if name == "probs":
                p = _clamp_probs(param)
                self.logits = p.log() - (-p).log1p()
            else:
                self.probs = param.sigmoid()

    mean = property(lambda self: self.probs)
    variance = property(lambda self: self.probs * (1 - self.probs))

    @property
    def mode(self):
        one = (self.probs >= 0.5).to(dtype=self.probs.dtype)
        return where(self.probs == 0.5, math.nan, one)          # a tie has no mode

    def enumerate_support(self, expand=True):
        """0 and 1 as (2, 1, ..., 1), expanded to (2, *batch) by default."""
        values = C.arange(2, dtype=self.probs.dtype, device=self.probs.device)
        values = values.reshape(-1, *(1,) * len(self._batch_shape))
        return values.expand(2, *self._batch_shape) if expand else values

    def sample(self, sample_shape=()):
        """1 where u < p, u ~ U[0, 1): u drawn on the host, compared on the device in
        float64 (nothing read back: a policy samples every step)."""
        u = _uniform_draws(self, self._extended_shape(sample_shape))
        with grad_mode.no_grad():
            return (u < self.probs.detach().to(dtype="float64")).to(dtype=self.probs.dtype)

    def log_prob(self, value):
        value = self._value(value, "log_prob")
        with self._scope("log_prob"):
            logits, value = broadcast_tensors(self.logits, value.to(dtype=self.logits.dtype))
            return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        with self._scope("entropy"):
            return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    _mean_carrier_measure = 0
    _natural_params = property(lambda self: (self.logits,))      # F(θ) = log(1 + e^θ)

    def _log_normalizer(self, x):
        return softplus(x)


class Categorical(Distribution):
    """Categorical(probs) over {0, ..., K − 1} (K = probs.shape[-1]): P(x = k) = probs[k],
    probs = softmax(logits). probs are normalised to sum to 1, logits to logsumexp 0."""

    arg_constraints = {"probs": _simplex, "logits": _real_vector}
    has_enumerate_support = True
    _params = (("probs", 1), ("logits", 1))

    def __init__(self, probs=None, logits=None, validate_args=None):
        name, param = _one_of("Categorical", probs, logits)
        if not isinstance(param, Tensor):
            raise TypeError(f"Categorical: {name} must be a Tensor (..., K), got "
                            f"{type(param).__name__}")
        if param.ndim < 1:
            raise ValueError(f"Categorical: `{name}` parameter must be at least "
                             f"one-dimensional, got shape {param.shape}")
        self._given = (name,)
        validate = Distribution._validate_default if validate_args is None else validate_args
        if validate and name == "probs" and not bool(
                ((param >= 0).all(-1) & (param.sum(-1) > 0)).all()):     # before dividing
            raise ValueError(f"Expected parameter probs (Tensor of shape {param.shape}) of "
                             f"distribution Categorical(probs: {param.shape}) to satisfy the "
                             "constraint Simplex() once divided by their sum: each row needs "
                             f"entries >= 0 and a sum > 0, but found invalid values:\n{param}")
        with self._scope("__init__"):
            if name == "probs":
                self.probs = param / param.sum(-1, keepdim=True)
            else:
                self.logits = param - param.logsumexp(-1, keepdim=True)
        super().__init__(param.shape[:-1], (), validate_args)
        with self._scope("__init__"):
            if name == "probs":
                self.logits = _clamp_probs(self.probs).log()
            else:
                self.probs = softmax(self.logits, -1)

    support = property(lambda self: _integer_interval(0, self.probs.shape[-1] - 1))
    param_shape = property(lambda self: self.probs.shape)
    mode = property(lambda self: self.probs.argmax(-1))

    @property
    def mean(self):
        return C.full(self._batch_shape, math.nan, dtype=self.probs.dtype,
                      device=self.probs.device)

    variance = mean

    def enumerate_support(self, expand=True):
        """0, ..., K − 1 (int64) as (K, 1, ..., 1), expanded to (K, *batch) by default."""
        k = self.probs.shape[-1]
        values = C.arange(k, device=self.probs.device).long()
        values = values.reshape(-1, *(1,) * len(self._batch_shape))
        return values.expand(k, *self._batch_shape) if expand else values

    def sample(self, sample_shape=()):
        """Inverse-CDF draws: the first k with u · total < cumsum(probs)[k], u ~ U[0, 1)
        drawn on the host, the rest on the device in float64 (nothing read back)."""
        u = _uniform_draws(self, self._extended_shape(sample_shape))   # (*sample, *batch)
        with grad_mode.no_grad():
            cdf = self.probs.detach().to(dtype="float64").cumsum(-1)      # (*batch, K)
            k = (cdf <= u.unsqueeze(-1) * cdf[..., -1:]).sum(-1)          # (*sample, *batch)
            return k.clamp(max=cdf.shape[-1] - 1).long()

    def log_prob(self, value):
        value = self._value(value, "log_prob")
        with self._scope("log_prob"):
            k, log_pmf = broadcast_tensors(value.long().unsqueeze(-1), self.logits)
            if self._validate_args:     # the support's check read value: in [0, K), whole
                return _gathered(log_pmf, log_pmf.ndim - 1, k[..., :1]).squeeze(-1)
            return log_pmf.gather(-1, k[..., :1]).squeeze(-1)

    def entropy(self):
        with self._scope("entropy"):
            low = float(np.finfo(backends.dtype_name(self.logits.dtype)).min)
            return -(self.logits.clamp(min=low) * self.probs).sum(-1)


class _Derived:
    """A property that an instance attribute of the same name overrides (a given
    covariance_matrix is kept as given; otherwise it is computed from the scale_tril)."""

    def __init__(self, fn):
        self.fn = fn

    def __get__(self, obj, cls=None):
        return self if obj is None else self.fn(obj)


def _mahalanobis(L: Tensor, x: Tensor) -> Tensor:
    """x^T (L L^T)^{-1} x = |L^{-1} x|², for x (..., n) and L (..., n, n), batch axes broadcast."""
    z = linalg.solve_triangular(L, x.unsqueeze(-1), upper=False)        # (..., n, 1)
    return (z.squeeze(-1) ** 2).sum(-1)                                  # (...,)


class MultivariateNormal(Distribution):
    """N(loc, Σ) in n dimensions, Σ = L L^T (L = scale_tril, lower triangular):
    log p(x) = −½ (n log 2π + |L^{-1}(x − loc)|²) − Σ_i log L_ii;
    entropy = ½ n (1 + log 2π) + Σ_i log L_ii; rsample = loc + L eps, eps ~ N(0, I)."""

    arg_constraints = {"loc": _real_vector, "covariance_matrix": _positive_definite,
                       "precision_matrix": _positive_definite, "scale_tril": _lower_cholesky}
    support = _real_vector
    has_rsample = True
    _params = (("loc", 1), ("covariance_matrix", 2), ("precision_matrix", 2), ("scale_tril", 2))

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        if not isinstance(loc, Tensor):
            raise TypeError(f"MultivariateNormal: loc must be a Tensor (..., n), got "
                            f"{type(loc).__name__}")
        if loc.ndim < 1:
            raise ValueError("MultivariateNormal: loc must be at least one-dimensional.")
        given = [(name, M) for name, M in (("covariance_matrix", covariance_matrix),
                                           ("precision_matrix", precision_matrix),
                                           ("scale_tril", scale_tril)) if M is not None]
        if len(given) != 1:
            raise ValueError("MultivariateNormal: Exactly one of covariance_matrix or "
                             "precision_matrix or scale_tril may be specified.")
        name, M = given[0]
        n = loc.shape[-1]
        if not isinstance(M, Tensor) or M.ndim < 2 or M.shape[-2:] != (n, n):
            raise ValueError(f"MultivariateNormal: {name} must be a Tensor (..., {n}, {n}) "
                             f"(at least two-dimensional, with optional leading batch "
                             f"dimensions) to fit loc of shape {loc.shape}, got "
                             f"{getattr(M, 'shape', type(M).__name__)}")
        try:
            batch = tuple(np.broadcast_shapes(M.shape[:-2], loc.shape[:-1]))
        except ValueError:
            raise ValueError(f"MultivariateNormal: the batch axes of loc {loc.shape} and "
                             f"{name} {M.shape} do not broadcast together") from None
        setattr(self, name, M.expand(*batch, n, n))
        self.loc = loc.expand(*batch, n)
        self._given = ("loc", name)
        super().__init__(batch, (n,), validate_args)
        with self._scope("__init__"):
            self._unbroadcasted_scale_tril = (
                M if name == "scale_tril" else linalg.cholesky(M) if name == "covariance_matrix"
                else linalg.cholesky(linalg.inv(M)))

    mean = mode = property(lambda self: self.loc)

    def _full(self, M: Tensor) -> Tensor:
        return M.expand(*self._batch_shape, *self._event_shape, *self._event_shape)

    scale_tril = _Derived(lambda self: self._full(self._unbroadcasted_scale_tril))
    covariance_matrix = _Derived(lambda self: self._full(
        self._unbroadcasted_scale_tril @ self._unbroadcasted_scale_tril.mT))
    precision_matrix = _Derived(lambda self: self._full(
        linalg.inv(self._unbroadcasted_scale_tril @ self._unbroadcasted_scale_tril.mT)))

    @property
    def variance(self):
        return (self._unbroadcasted_scale_tril ** 2).sum(-1).expand(
            *self._batch_shape, *self._event_shape)

    def _half_log_det(self) -> Tensor:
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def rsample(self, sample_shape=()):
        eps = self._draw("standard_normal", self._extended_shape(sample_shape), self.loc)
        with self._scope("rsample"):
            Leps = self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)    # (..., n, 1)
            return self.loc + Leps.squeeze(-1)

    def log_prob(self, value):
        value = self._value(value, "log_prob")
        with self._scope("log_prob"):
            n = self._event_shape[0]
            M = _mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
            return -0.5 * (n * math.log(2 * math.pi) + M) - self._half_log_det()

    def entropy(self):
        with self._scope("entropy"):
            n = self._event_shape[0]
            H = 0.5 * n * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
            return H.expand(*self._batch_shape)


# ----------------------------------------------------------------------------- KL
@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    """p log(p/q) + (1 − p) log((1 − p)/(1 − q)), via softplus of the logits (stable)"""
    t1 = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    t1 = where(p.probs == 0, 0.0, where(q.probs == 0, math.inf, t1))
    t2 = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    t2 = where(p.probs == 1, 0.0, where(q.probs == 1, math.inf, t2))
    return t1 + t2


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    """Σ_k p_k (log p_k − log q_k); inf where q_k = 0 < p_k; 0 · log 0 = 0"""
    t = p.probs * (p.logits - q.logits)
    zero_q, zero_p = broadcast_tensors(q.probs == 0, p.probs == 0)
    t = where(zero_p, 0.0, where(zero_q, math.inf, t))
    return t.sum(-1)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p, q):
    """½ (tr(Σq⁻¹ Σp) + (μq − μp)^T Σq⁻¹ (μq − μp) − n + log det Σq − log det Σp), with
    tr(Σq⁻¹ Σp) = |Lq⁻¹ Lp|²_F"""
    if p.event_shape != q.event_shape:
        raise ValueError(f"kl_divergence: KL-divergence between two Multivariate Normals with "
                         f"different event shapes cannot be computed: {p.event_shape} vs "
                         f"{q.event_shape}")
    Lp, Lq = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    n = p.event_shape[0]
    term2 = (linalg.solve_triangular(Lq, Lp, upper=False) ** 2).sum(-1).sum(-1)
    term3 = _mahalanobis(Lq, q.loc - p.loc)
    return q._half_log_det() - p._half_log_det() + 0.5 * (term2 + term3 - n)
