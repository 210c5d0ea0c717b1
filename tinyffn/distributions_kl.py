"""The KL divergences of ``tinyffn.distributions``: PyTorch's lookup rule and the closed
forms of ``torch.distributions.kl`` (PyTorch 2.13) among the classes here.

``kl_divergence(p, q)`` (in :mod:`tinyffn.distributions`, with ``register_kl``) calls the
function registered for the most specific pair of classes, PyTorch's rule: among the
registered pairs (P, Q) with p an instance of P and q of Q, the least in the lexicographic
subclass order, P first; if the least with Q first is another function, the pair is
ambiguous, and PyTorch's RuntimeWarning asks for ``register_kl`` of the more specific pair.

The closed forms: each family with itself; across families, PyTorch's pairs (Beta-Normal,
Exponential-Gamma, Uniform-Gumbel, ...) and its +inf pairs, where q gives 0 to a set p
does not (Normal-Uniform: p's real line against q's interval); LowRankMultivariateNormal
with itself and with MultivariateNormal; any two of one ExponentialFamily by the Bregman
divergence of its log-normaliser F, KL = F(θq) − F(θp) − <θq − θp, ∇F(θp)>.
"""
from __future__ import annotations

import math
import warnings

from . import creation as C
from . import grad_mode, higher_order, linalg
from .distributions import (Exponential, ExponentialFamily, Laplace, Normal, Uniform,
                            _KL_REGISTRY, kl_divergence, register_kl)
from .distributions_extra import (Binomial, Cauchy, Geometric, Gumbel, Independent,
                                  LogNormal, OneHotCategorical, Poisson, _EULER,
                                  _sum_rightmost)
from .distributions_gamma import Beta, Gamma
from .distributions_matrix import (LowRankMultivariateNormal, _batch_lowrank_logdet,
                                   _batch_lowrank_mahalanobis)
from .distributions_more import (Bernoulli, MultivariateNormal, _kl_categorical_categorical,
                                 _mahalanobis)
from .distributions_transformed import TransformedDistribution
from .distributions_unit import ContinuousBernoulli
from .torch_extras import diag_embed
from .torch_functions import erf, where
from .torch_shapes import broadcast_tensors


# ----------------------------------------------------------------------------- lookup
class _Match:
    """A registered pair, ordered as PyTorch's: (P1, Q1) <= (P2, Q2) when P1 is a subclass
    of P2 and, if P1 is P2, Q1 one of Q2."""

    def __init__(self, *types):
        self.types = types

    def __le__(self, other) -> bool:
        for x, y in zip(self.types, other.types):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True

    def __lt__(self, other) -> bool:
        return self <= other and self.types != other.types


def _dispatch_kl(type_p, type_q):
    """The function registered for the most specific pair above (type_p, type_q), or None."""
    matches = [(P, Q) for P, Q in _KL_REGISTRY
               if issubclass(type_p, P) and issubclass(type_q, Q)]
    if not matches:
        return None
    left_p, left_q = min(_Match(*m) for m in matches).types
    right_q, right_p = min(_Match(*reversed(m)) for m in matches).types
    left_fn, right_fn = _KL_REGISTRY[left_p, left_q], _KL_REGISTRY[right_p, right_q]
    if left_fn is not right_fn:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
                      f"Please register_kl({left_p.__name__}, {right_q.__name__})",
                      RuntimeWarning, stacklevel=3)
    return left_fn


def _expfamily_entropy(d):
    """ExponentialFamily's entropy, as PyTorch's: F(θ) − <θ, ∇F(θ)> − E[k(x)], ∇F by autograd
    at a detached θ (so it carries no gradient to the parameters, as PyTorch's)."""
    with grad_mode.enable_grad():
        theta = [t.detach().requires_grad_() for t in d._natural_params]
        F = d._log_normalizer(*theta)
        gF = higher_order.grad(F.sum(), theta, create_graph=True)
        H = F - d._mean_carrier_measure
        for t, g in zip(theta, gF):
            H = H - (t * g).reshape(*d.batch_shape, -1).sum(-1)
        return H


def _infinite_like(t):
    return C.full(t.shape, math.inf, dtype=t.dtype, device=t.device)


def _x_log_x(t):
    """t log t, 0 at 0; t < 0 only where the pair's KL is +inf (masked by the caller), so
    clamped to 0 there, to keep the log quiet."""
    t = t.clamp(min=0.0)
    return t.xlogy(t)


def _batch_trace_XXT(M):
    """tr(M Mᵀ) = Σ M², over the last two axes."""
    return (M ** 2).sum(-1).sum(-1)


# ----------------------------------------------------------------------------- same family
@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    """½ (σp²/σq² + (μp − μq)²/σq² − 1 − log(σp²/σq²))"""
    var_ratio = (p.scale / q.scale) ** 2
    t1 = ((p.loc - q.loc) / q.scale) ** 2
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    """log((hq − lq) / (hp − lp)) where q covers p, else inf"""
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return where((q.low > p.low) | (q.high < p.high), math.inf, result)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    d = (p.loc - q.loc).abs()
    return -scale_ratio.log() + d / q.scale + scale_ratio * (-d / p.scale).exp() - 1


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    """r − 1 − log r, r = λq / λp"""
    rate_ratio = q.rate / p.rate
    return -rate_ratio.log() + rate_ratio - 1


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError("kl_divergence: Independent distributions with different "
                                  f"reinterpreted_batch_ndims ({p.reinterpreted_batch_ndims} "
                                  f"vs {q.reinterpreted_batch_ndims})")
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist),
                          p.reinterpreted_batch_ndims)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehot_onehot(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(LogNormal, LogNormal)
def _kl_lognormal_lognormal(p, q):
    """KL is unchanged by the same invertible map (exp) of both: KL of the Normals"""
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    """−log r − μq/βq + μp/βq + γ r + exp(μq/βq + lgamma(1 + r) − μp/βq) − (1 + γ), r = βp/βq"""
    r, a, b = p.scale / q.scale, q.loc / q.scale, p.loc / q.scale
    return -r.log() - a + b + r * _EULER + (a + (1 + r).lgamma() - b).exp() - (1 + _EULER)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    """log(((γp + γq)² + (μp − μq)²) / (4 γp γq))"""
    return ((p.scale + q.scale) ** 2 + (p.loc - q.loc) ** 2).log() \
        - (4 * p.scale * q.scale).log()


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    """λp (log λp − log λq) − (λp − λq)"""
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    return -p.entropy() - (-q.probs).log1p() / p.probs - q.logits


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    """n (p log(p/q) + (1 − p) log((1 − p)/(1 − q))) for equal n; inf where np > nq"""
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count "
                                  "is not implemented (as in PyTorch)")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p()
                          - (-q.probs).log1p())
    return where(p.total_count > q.total_count, math.inf, kl)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    """KL is unchanged by one invertible map of both: the bases' KL, where the transforms
    and event shapes are equal (else NotImplementedError, as PyTorch's)."""
    if p.transforms != q.transforms:
        raise NotImplementedError("kl_divergence: TransformedDistributions with different "
                                  "transforms (as in PyTorch, only equal ones reduce to "
                                  "the bases' KL)")
    if p.event_shape != q.event_shape:
        raise NotImplementedError(f"kl_divergence: TransformedDistributions with different "
                                  f"event shapes {p.event_shape} and {q.event_shape}")
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """F(θq) − F(θp) − <θq − θp, ∇F(θp)> (the Bregman divergence of the log-normaliser F;
    ∇F by autograd), for two of one family only, as PyTorch's."""
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential "
                                  "families cannot be computed using Bregman divergences "
                                  f"({type(p).__name__} and {type(q).__name__}): register a "
                                  "closed form with register_kl")
    with grad_mode.enable_grad():
        p_theta = [t.detach().requires_grad_() for t in p._natural_params]
        q_theta = q._natural_params
        F = p._log_normalizer(*p_theta)
        gF = higher_order.grad(F.sum(), p_theta, create_graph=True)
        result = q._log_normalizer(*q_theta) - F
        for pt, qt, g in zip(p_theta, q_theta, gF):
            result = result - _sum_rightmost((qt - pt) * g, len(q.event_shape))
        return result


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p, q):
    """E_p[x] (logit_p − logit_q) + log C(λp) + log(1 − λp) − log C(λq) − log(1 − λq)"""
    t1 = p.mean * (p.logits - q.logits)
    t2 = p._cont_bern_log_norm() + (-p.probs).log1p()
    t3 = -q._cont_bern_log_norm() - (-q.probs).log1p()
    return t1 + t2 + t3


def _lowrank_check(p, q, what: str):
    if p.event_shape != q.event_shape:
        raise ValueError(f"kl_divergence: KL-divergence between two {what} with different "
                         f"event shapes cannot be computed: {p.event_shape} vs "
                         f"{q.event_shape}")


def _lowrank_A(q):
    """A = Lc⁻¹ Wqᵀ Dq⁻¹, so that Σq⁻¹ = Dq⁻¹ − Aᵀ A (Woodbury)."""
    Wt_Dinv = q._unbroadcasted_cov_factor.mT / q._unbroadcasted_cov_diag.unsqueeze(-2)
    return linalg.solve_triangular(q._capacitance_tril, Wt_Dinv, upper=False)


def _lowrank_terms(q, p_loc):
    """½ log|Σq| and the Mahalanobis term of (μq − μp) under Σq."""
    logdet = _batch_lowrank_logdet(q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag,
                                   q._capacitance_tril)
    M = _batch_lowrank_mahalanobis(q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag,
                                   q.loc - p_loc, q._capacitance_tril)
    return logdet, M


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrank_lowrank(p, q):
    """½ (log|Σq| − log|Σp| + tr(Σq⁻¹ Σp) + Mahalanobis − n), Σq⁻¹ by Woodbury:
    tr(Σq⁻¹ Σp) = tr((Dq⁻¹ − AᵀA)(Dp + Wp Wpᵀ))"""
    _lowrank_check(p, q, "Low Rank Multivariate Normals")
    logdet_q, term3 = _lowrank_terms(q, p.loc)
    logdet_p = _batch_lowrank_logdet(p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag,
                                     p._capacitance_tril)
    A = _lowrank_A(q)
    Wp, Dp, Dq = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag, \
        q._unbroadcasted_cov_diag
    term21 = (Dp / Dq).sum(-1)
    term22 = _batch_trace_XXT(Wp * Dq.rsqrt().unsqueeze(-1))
    term23 = _batch_trace_XXT(A * Dp.sqrt().unsqueeze(-2))
    term24 = _batch_trace_XXT(A @ Wp)
    term2 = term21 + term22 - term23 - term24
    return 0.5 * (logdet_q - logdet_p + term2 + term3 - p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_mvn_lowrank(p, q):
    """as LowRank-LowRank, with Σp = Lp Lpᵀ: tr(Σq⁻¹ Σp) = |Dq^-½ Lp|² − |A Lp|²"""
    _lowrank_check(p, q, "(Low Rank) Multivariate Normals")
    logdet_q, term3 = _lowrank_terms(q, p.loc)
    Lp = p._unbroadcasted_scale_tril
    logdet_p = 2 * Lp.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    A = _lowrank_A(q)
    term2 = _batch_trace_XXT(Lp * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1)) \
        - _batch_trace_XXT(A @ Lp)
    return 0.5 * (logdet_q - logdet_p + term2 + term3 - p.event_shape[0])


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrank_mvn(p, q):
    """as MVN-MVN, with Σp = Wp Wpᵀ + Dp: tr(Σq⁻¹ Σp) = |Lq⁻¹ Wp|² + |Lq⁻¹ √Dp|²"""
    _lowrank_check(p, q, "(Low Rank) Multivariate Normals")
    Lq = q._unbroadcasted_scale_tril
    logdet_p = _batch_lowrank_logdet(p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag,
                                     p._capacitance_tril)
    term1 = 2 * Lq.diagonal(dim1=-2, dim2=-1).log().sum(-1) - logdet_p
    term3 = _mahalanobis(Lq, q.loc - p.loc)
    n, m = p.event_shape[0], p._unbroadcasted_cov_factor.shape[-1]
    batch = broadcast_tensors(Lq[..., 0, 0], p._unbroadcasted_cov_factor[..., 0, 0],
                              p._unbroadcasted_cov_diag[..., 0])[0].shape
    Lq = Lq.expand(*batch, n, n)
    Wp = p._unbroadcasted_cov_factor.expand(*batch, n, m)
    Dp = diag_embed(p._unbroadcasted_cov_diag.sqrt()).expand(*batch, n, n)
    term2 = _batch_trace_XXT(linalg.solve_triangular(Lq, Wp, upper=False)) \
        + _batch_trace_XXT(linalg.solve_triangular(Lq, Dp, upper=False))
    return 0.5 * (term1 + term2 + term3 - n)


# ----------------------------------------------------------------------------- across families
@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    """−H(p) − (p log λ − λ)"""
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p, q):
    return -p.entropy() - p.mean * q.logits - (-q.probs).log1p() - q._cont_bern_log_norm()


@register_kl(Beta, Exponential)
def _kl_beta_exponential(p, q):
    """−H(p) − log λ + λ E[x]"""
    return -p.entropy() - q.rate.log() \
        + q.rate * (p.concentration1 / (p.concentration1 + p.concentration0))


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    """−H(p) + lgamma(α) − α log β − (α − 1) E[log x] + β E[x]"""
    a, b = p.concentration1, p.concentration0
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (q.concentration - 1) * (a.digamma() - (a + b).digamma())
    return -p.entropy() + t2 - t3 + q.rate * a / (a + b)


@register_kl(Beta, Normal)
def _kl_beta_normal(p, q):
    """−H(p) + ½ log(2π σ²) + (E[x²] − 2μ E[x] + μ²) / (2σ²)"""
    a, b = p.concentration1, p.concentration0
    E = a / (a + b)
    var_normal = q.scale ** 2
    t2 = 0.5 * (var_normal * 2 * math.pi).log()
    t3 = (E * (1 - E) / (a + b + 1) + E ** 2) * 0.5
    return -p.entropy() + t2 + (t3 - q.loc * E + q.loc ** 2 * 0.5) / var_normal


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p, q):
    """−H(p) + log(high − low) where q covers [0, 1], else inf"""
    result = -p.entropy() + (q.high - q.low).log()
    return where((q.low > 0.0) | (q.high < 1.0), math.inf, result)


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p, q):
    t2 = 0.5 * (math.log(2.0 * math.pi) + (q.loc / q.scale) ** 2) + q.scale.log()
    t3 = (p.variance + p.mean ** 2 - 2.0 * q.loc * p.mean) / (2.0 * q.scale ** 2)
    return -p.entropy() + t2 + t3


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p, q):
    """as PyTorch's: inf unless q's interval is strictly inside [0, 1]'s ends (low < 0 and
    high > 1 is inf too there: its test reads `low >= 0 or high <= 1`)"""
    result = -p.entropy() + (q.high - q.low).log()
    return where((q.low >= 0.0) | (q.high <= 1.0), math.inf, result)


@register_kl(Exponential, Beta)
@register_kl(Exponential, ContinuousBernoulli)
@register_kl(Exponential, Uniform)
def _kl_exponential_infinity(p, q):
    """p's mass on (0, ∞) against q's bounded support: inf"""
    return _infinite_like(p.rate)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    ratio = q.rate / p.rate
    return -q.concentration * ratio.log() + ratio + q.concentration.lgamma() \
        + q.concentration * _EULER - (1 + _EULER)


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    scale_rate_prod = p.rate * q.scale
    loc_scale_ratio = q.loc / q.scale
    t1 = scale_rate_prod.log() - 1
    t2 = loc_scale_ratio.exp() * scale_rate_prod / (scale_rate_prod + 1)
    return t1 - loc_scale_ratio + t2 + scale_rate_prod.reciprocal()


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    var_normal = q.scale ** 2
    rate_sqr = p.rate ** 2
    t1 = 0.5 * (rate_sqr * var_normal * 2 * math.pi).log()
    return t1 - 1 + (rate_sqr.reciprocal() - q.loc / p.rate + q.loc ** 2 * 0.5) / var_normal


@register_kl(Gamma, Beta)
@register_kl(Gamma, ContinuousBernoulli)
@register_kl(Gamma, Uniform)
def _kl_gamma_infinity(p, q):
    return _infinite_like(p.concentration)


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.concentration / p.rate


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p, q):
    a = p.concentration
    beta_scale_prod = p.rate * q.scale
    loc_scale_ratio = q.loc / q.scale
    t1 = (a - 1) * a.digamma() - a.lgamma() - a
    t2 = beta_scale_prod.log() + a / beta_scale_prod
    t3 = (loc_scale_ratio - a * beta_scale_prod.reciprocal().log1p()).exp() - loc_scale_ratio
    return t1 + t2 + t3


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p, q):
    a = p.concentration
    var_normal = q.scale ** 2
    beta_sqr = p.rate ** 2
    t1 = 0.5 * (beta_sqr * var_normal * 2 * math.pi).log() - a - a.lgamma()
    t2 = 0.5 * (a ** 2 + a) / beta_sqr
    t3 = q.loc * a / p.rate
    return t1 + (a - 1) * a.digamma() + (t2 - t3 + 0.5 * q.loc ** 2) / var_normal


@register_kl(Gumbel, Beta)
@register_kl(Gumbel, ContinuousBernoulli)
@register_kl(Gumbel, Exponential)
@register_kl(Gumbel, Gamma)
@register_kl(Gumbel, Uniform)
def _kl_gumbel_infinity(p, q):
    return _infinite_like(p.loc)


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p, q):
    param_ratio = p.scale / q.scale
    t1 = (param_ratio / math.sqrt(2 * math.pi)).log()
    t2 = (math.pi * param_ratio * 0.5) ** 2 / 3
    t3 = ((p.loc + p.scale * _EULER - q.loc) / q.scale) ** 2 * 0.5
    return -t1 + t2 + t3 - (_EULER + 1)


@register_kl(Laplace, Beta)
@register_kl(Laplace, ContinuousBernoulli)
@register_kl(Laplace, Exponential)
@register_kl(Laplace, Gamma)
@register_kl(Laplace, Uniform)
def _kl_laplace_infinity(p, q):
    return _infinite_like(p.loc)


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    var_normal = q.scale ** 2
    scale_sqr_var_ratio = p.scale ** 2 / var_normal
    t1 = 0.5 * (2 * scale_sqr_var_ratio / math.pi).log()
    t2 = 0.5 * p.loc ** 2 - p.loc * q.loc + 0.5 * q.loc ** 2
    return -t1 + scale_sqr_var_ratio + t2 / var_normal - 1


@register_kl(Normal, Beta)
@register_kl(Normal, ContinuousBernoulli)
@register_kl(Normal, Exponential)
@register_kl(Normal, Gamma)
@register_kl(Normal, Uniform)
def _kl_normal_infinity(p, q):
    return _infinite_like(p.loc)


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    mean_scale_ratio = p.loc / q.scale
    var_scale_sqr_ratio = (p.scale / q.scale) ** 2
    loc_scale_ratio = q.loc / q.scale
    t1 = var_scale_sqr_ratio.log() * 0.5
    t2 = mean_scale_ratio - loc_scale_ratio
    t3 = (-mean_scale_ratio + 0.5 * var_scale_sqr_ratio + loc_scale_ratio).exp()
    return -t1 + t2 + t3 - (0.5 * (1 + math.log(2 * math.pi)))


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    loc_diff = p.loc - q.loc
    scale_ratio = p.scale / q.scale
    z = loc_diff / p.scale
    t2 = math.sqrt(2 / math.pi) * p.scale * (-0.5 * z ** 2).exp()
    t3 = loc_diff * erf(math.sqrt(0.5) * z)
    return -scale_ratio.log() + (t2 + t3) / q.scale - (0.5 * (1 + math.log(0.5 * math.pi)))


@register_kl(Poisson, Bernoulli)
@register_kl(Poisson, Binomial)
def _kl_poisson_infinity(p, q):
    """p's mass on every count against q's bounded support: inf"""
    return _infinite_like(p.rate)


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    width = p.high - p.low
    t1 = width.log()
    t2 = (q.concentration1 - 1) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    t3 = (q.concentration0 - 1) * (_x_log_x(1 - p.high) - _x_log_x(1 - p.low) + width) / width
    t4 = q.concentration1.lgamma() + q.concentration0.lgamma() \
        - (q.concentration1 + q.concentration0).lgamma()
    result = t3 + t4 - t1 - t2
    return where((p.high > 1.0) | (p.low < 0.0), math.inf, result)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p, q):
    """as PyTorch's: inf where p reaches either end of [0, 1] (high >= 1 or low <= 0)"""
    result = -p.entropy() - p.mean * q.logits - (-q.probs).log1p() - q._cont_bern_log_norm()
    return where((p.high >= 1.0) | (p.low <= 0.0), math.inf, result)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    return where(p.low < 0.0, math.inf, result)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    width = p.high - p.low
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    t4 = q.rate * (p.high + p.low) / 2
    result = -width.log() + t2 + t3 + t4
    return where(p.low < 0.0, math.inf, result)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    common_term = q.scale / (p.high - p.low)
    high_loc_diff = (p.high - q.loc) / q.scale
    low_loc_diff = (p.low - q.loc) / q.scale
    t1 = common_term.log() + 0.5 * (high_loc_diff + low_loc_diff)
    t2 = common_term * ((-high_loc_diff).exp() - (-low_loc_diff).exp())
    return t1 - t2


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    width = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / width).log()
    t2 = width ** 2 / 12
    t3 = ((p.high + p.low - 2 * q.loc) / 2) ** 2
    return t1 + 0.5 * (t2 + t3) / q.scale ** 2
