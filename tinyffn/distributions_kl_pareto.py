"""The KL divergences of the families in :mod:`tinyffn.distributions_family` with PyTorch
2.13's closed forms (``torch.distributions.kl``): HalfNormal with itself (the Normals' KL:
both are folded at 0 by the same map), Pareto with itself, with Exponential, Gamma and
Normal (infinite where p's moments are), Uniform-Pareto, and PyTorch's +inf pairs, where q
gives 0 to a set p does not (a Normal's mass below any Pareto's scale). The lookup rule and
the other pairs are in :mod:`tinyffn.distributions_kl`.
"""
from __future__ import annotations

import math

from .distributions import Exponential, Laplace, Normal, Uniform, register_kl
from .distributions_extra import Gumbel
from .distributions_family import HalfNormal, Pareto
from .distributions_gamma import Beta, Gamma
from .distributions_kl import (_infinite_like, _kl_exponential_infinity, _kl_gamma_infinity,
                               _kl_gumbel_infinity, _kl_laplace_infinity,
                               _kl_normal_infinity, _kl_normal_normal)
from .distributions_unit import ContinuousBernoulli
from .torch_functions import where


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    """The Normals' KL (both folded at 0, the same map)"""
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    """αq log(sp/sq) − log(αq/αp) + αq/αp − 1; inf where p's support starts below q's"""
    scale_ratio, alpha_ratio = p.scale / q.scale, q.alpha / p.alpha
    result = q.alpha * scale_ratio.log() - alpha_ratio.log() + alpha_ratio - 1
    return where(p.scale < q.scale, math.inf, result)


@register_kl(Beta, Pareto)
def _kl_beta_infinity(p, q):
    return _infinite_like(p.concentration1)


@register_kl(ContinuousBernoulli, Pareto)
def _kl_continuous_bernoulli_infinity(p, q):
    """p's mass on [0, 1] below any Pareto's scale, or above a scale under 1: inf"""
    return _infinite_like(p.probs)


# p has mass below any Pareto's scale: the +inf functions distributions_kl.py already has
# for these families, registered for Pareto too
for _family, _infinity in ((Exponential, _kl_exponential_infinity),
                           (Gamma, _kl_gamma_infinity), (Gumbel, _kl_gumbel_infinity),
                           (Laplace, _kl_laplace_infinity), (Normal, _kl_normal_infinity)):
    register_kl(_family, Pareto)(_infinity)


@register_kl(Pareto, Beta)
@register_kl(Pareto, ContinuousBernoulli)
@register_kl(Pareto, Uniform)
def _kl_pareto_infinity(p, q):
    return _infinite_like(p.scale)


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p, q):
    """log(α/(s λ)) − 1/α + α s λ/(α − 1) − 1; inf for α <= 1 (no mean)"""
    scale_rate = p.scale * q.rate
    alpha1 = where(p.alpha > 1, p.alpha - 1, 1.0)
    result = (p.alpha / scale_rate).log() - p.alpha.reciprocal() \
        + p.alpha * scale_rate / alpha1 - 1
    return where(p.alpha <= 1, math.inf, result)


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p, q):
    common = p.scale.log() + p.alpha.reciprocal()
    alpha1 = where(p.alpha > 1, p.alpha - 1, 1.0)
    t1 = p.alpha.log() - common
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * common
    t4 = q.rate * p.alpha * p.scale / alpha1
    return where(p.alpha <= 1, math.inf, t1 + t2 + t3 + t4 - 1)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p, q):
    """inf for α <= 2 (no variance)"""
    var_normal = 2 * q.scale ** 2
    alpha1, alpha2 = (where(p.alpha > 2, p.alpha - k, 1.0) for k in (1, 2))
    common = p.scale / alpha1
    t1 = (math.sqrt(2 * math.pi) * q.scale * p.alpha / p.scale).log()
    t2 = p.alpha.reciprocal()
    t3 = p.alpha * common ** 2 / alpha2
    t4 = (p.alpha * common - q.loc) ** 2
    return where(p.alpha <= 2, math.inf, t1 - t2 + (t3 + t4) / var_normal - 1)


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    """−log(α s^α (h − l)) + (α + 1)(h log h − l log l − (h − l))/(h − l); inf where l < s"""
    width = p.high - p.low
    t1 = q.alpha.log() + q.alpha * q.scale.log() + width.log()
    t2 = (p.high.xlogy(p.high) - p.low.xlogy(p.low) - width) / width
    return where(p.low < q.scale, math.inf, t2 * (q.alpha + 1) - t1)
