"""The families ``torch.distributions`` builds from others, built the same way (the base
class and the KL registry are in :mod:`tinyffn.distributions`, which imports this file;
import from there):

    HalfNormal, HalfCauchy   |X| of Normal(0, scale), Cauchy(0, scale): AbsTransform
    Pareto                   scale · exp(E), E ~ Exponential(alpha)
    Weibull                  scale · E^(1/concentration), E ~ Exponential(1)
    Kumaraswamy              (1 − U^(1/b))^(1/a), U ~ Uniform(0, 1)
    LogisticNormal           StickBreakingTransform of a Normal: onto the simplex
    InverseGamma             1 / X, X ~ Gamma: PowerTransform(−1)
    Chi2                     Gamma(df/2, 1/2), a Gamma subclass

Each TransformedDistribution's log_prob is the change of variables of
:mod:`tinyffn.distributions_transformed`; their closed forms (mean, mode, variance,
entropy, cdf) are PyTorch 2.13's, written out. Every rsample is differentiable in the
parameters (through the base's rsample and the transforms). FisherSnedecor and
GeneralizedPareto (plain Distributions in PyTorch) are in
:mod:`tinyffn.distributions_fisher_pareto`, named here too. Their KL closed forms are in
:mod:`tinyffn.distributions_kl_pareto`.
"""
from __future__ import annotations

import math

from . import creation as C
from .distributions import (Distribution, Exponential, Normal, Uniform, _broadcast_all,
                            _nonnegative, _positive, _real)
from .distributions_constraints import greater_than_eq, simplex, unit_interval
from .distributions_extra import _EULER, Cauchy
from .distributions_fisher_pareto import FisherSnedecor, GeneralizedPareto
from .distributions_gamma import Gamma
from .distributions_transformed import TransformedDistribution
from .distributions_transforms import (AbsTransform, AffineTransform, ExpTransform,
                                       PowerTransform, StickBreakingTransform)
from .torch_functions import where

__all__ = ["HalfNormal", "HalfCauchy", "Pareto", "Weibull", "Kumaraswamy", "LogisticNormal",
           "InverseGamma", "Chi2", "FisherSnedecor", "GeneralizedPareto"]

_LOG_2 = math.log(2.0)


def _check_params(d: Distribution, names) -> None:
    """The base class's parameter check for parameters that are properties of a base
    distribution (PyTorch checks those through getattr too), with its message."""
    if not d._validate_args:
        return
    for name in names:
        value, constraint = getattr(d, name), d.arg_constraints[name]
        if not bool(constraint.check(value).all()):
            raise ValueError(
                f"Expected parameter {name} (Tensor of shape {value.shape}) of distribution "
                f"{d!r} to satisfy the constraint {constraint!r}, but found invalid "
                f"values:\n{value}")


class _Folded(TransformedDistribution):
    """|X| of a base symmetric about 0 (HalfNormal, HalfCauchy): log_prob the base's + log 2
    on x >= 0, cdf 2 F(x) − 1, icdf F⁻¹((q + 1)/2), entropy the base's − log 2."""

    arg_constraints = {"scale": _positive}
    support = _nonnegative
    has_rsample = True

    def __init__(self, base, validate_args=None):
        super().__init__(base, AbsTransform(), validate_args=validate_args)
        _check_params(self, ("scale",))

    scale = property(lambda self: self.base_dist.scale)
    mode = property(lambda self: C.zeros_like(self.scale))

    def log_prob(self, value):
        value = self._value(value, "log_prob")
        with self._scope("log_prob"):
            return where(value >= 0, self.base_dist.log_prob(value) + _LOG_2, -math.inf)

    def cdf(self, value):
        value = self._value(value, "cdf")
        with self._scope("cdf"):
            return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, value):
        with self._scope("icdf"):
            return self.base_dist.icdf((value + 1) / 2)

    def entropy(self):
        with self._scope("entropy"):
            return self.base_dist.entropy() - _LOG_2


class HalfNormal(_Folded):
    """|X|, X ~ Normal(0, scale): p(x) = 2 N(x; 0, scale) on x >= 0; mean scale √(2/π),
    variance scale² (1 − 2/π), mode 0; rsample |scale · eps|."""

    def __init__(self, scale, validate_args=None):
        super().__init__(Normal(0.0, scale, validate_args=False), validate_args)

    mean = property(lambda self: self.scale * math.sqrt(2 / math.pi))
    variance = property(lambda self: self.scale ** 2 * (1 - 2 / math.pi))


class HalfCauchy(_Folded):
    """|X|, X ~ Cauchy(0, scale): p(x) = 2 / (π scale (1 + (x/scale)²)) on x >= 0; mean inf,
    variance inf (the Cauchy's), mode 0."""

    def __init__(self, scale, validate_args=None):
        super().__init__(Cauchy(0.0, scale, validate_args=False), validate_args)

    mean = property(lambda self: C.full(self._extended_shape(), math.inf,
                                        dtype=self.scale.dtype, device=self.scale.device))
    variance = property(lambda self: self.base_dist.variance)


class Pareto(TransformedDistribution):
    """Pareto type I: scale · exp(E), E ~ Exponential(alpha), on [scale, inf):
    p(x) = alpha scale^alpha / x^(alpha + 1); mean alpha scale/(alpha − 1) (inf for
    alpha <= 1), variance scale² alpha / ((alpha − 1)² (alpha − 2)) (inf for alpha <= 2),
    mode scale, entropy log(scale/alpha) + 1 + 1/alpha."""

    arg_constraints = {"alpha": _positive, "scale": _positive}

    def __init__(self, scale, alpha, validate_args=None):
        self.scale, self.alpha = _broadcast_all("Pareto", scale=scale, alpha=alpha)
        super().__init__(Exponential(self.alpha, validate_args=validate_args),
                         [ExpTransform(), AffineTransform(0, self.scale)],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape)
        new.scale, new.alpha = (v.expand(*batch_shape) for v in (self.scale, self.alpha))
        return new

    support = property(lambda self: greater_than_eq(self.scale))
    mode = property(lambda self: self.scale)

    @property
    def mean(self):
        a = self.alpha.clamp(min=1)
        return where(a > 1, a * self.scale / where(a > 1, a - 1, 1.0), math.inf)

    @property
    def variance(self):
        a = self.alpha.clamp(min=2)
        safe = where(a > 2, a, 3.0)                    # the untaken branch stays finite
        return where(a > 2, self.scale ** 2 * safe / ((safe - 1) ** 2 * (safe - 2)),
                     math.inf)

    def entropy(self):
        with self._scope("entropy"):
            return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())


class Weibull(TransformedDistribution):
    """scale · E^(1/k), E ~ Exponential(1), k = concentration: p(x) = (k/scale)
    (x/scale)^(k−1) exp(−(x/scale)^k) on x > 0; mean scale Γ(1 + 1/k), variance
    scale² (Γ(1 + 2/k) − Γ(1 + 1/k)²), mode scale ((k − 1)/k)^(1/k) (NaN for k < 1;
    PyTorch's too, except where 1/k is an integer), entropy γ (1 − 1/k) + log(scale/k) + 1."""

    arg_constraints = {"scale": _positive, "concentration": _positive}
    support = _positive

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = _broadcast_all("Weibull", scale=scale,
                                                        concentration=concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        super().__init__(Exponential(C.ones_like(self.scale), validate_args=validate_args),
                         [PowerTransform(exponent=self.concentration_reciprocal),
                          AffineTransform(0, self.scale)], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = object.__new__(type(self))
        new.scale, new.concentration = (v.expand(*batch_shape)
                                        for v in (self.scale, self.concentration))
        new.concentration_reciprocal = new.concentration.reciprocal()
        TransformedDistribution.__init__(
            new, self.base_dist.expand(batch_shape),
            [PowerTransform(exponent=new.concentration_reciprocal),
             AffineTransform(0, new.scale)], validate_args=False)
        new._validate_args = self._validate_args
        return new

    mean = property(lambda self: self.scale * (1 + self.concentration_reciprocal).lgamma().exp())

    @property
    def mode(self):
        k = self.concentration
        ratio = (k - 1) / k
        root = (where(ratio > 0, ratio, 1.0).log() / k).exp()     # no log(0) at k = 1
        return self.scale * where(ratio > 0, root, where(ratio == 0, C.zeros_like(k), math.nan))

    @property
    def variance(self):
        r = self.concentration_reciprocal
        return self.scale ** 2 * ((1 + 2 * r).lgamma().exp() - (2 * (1 + r).lgamma()).exp())

    def entropy(self):
        with self._scope("entropy"):
            r = self.concentration_reciprocal
            return _EULER * (1 - r) + (self.scale * r).log() + 1


def _kumaraswamy_moment(a, b, n: int):
    """E[Xⁿ] = b Γ(1 + n/a) Γ(b) / Γ(1 + n/a + b)"""
    arg1 = 1 + n / a
    return b * (arg1.lgamma() + b.lgamma() - (arg1 + b).lgamma()).exp()


class Kumaraswamy(TransformedDistribution):
    """(1 − U^(1/b))^(1/a), U ~ Uniform(0, 1), a = concentration1, b = concentration0:
    p(x) = a b x^(a−1) (1 − x^a)^(b−1) on [0, 1]; mean b B(1 + 1/a, b), variance
    b B(1 + 2/a, b) − mean²; entropy (1 − 1/b) + (1 − 1/a) (ψ(b + 1) + γ) − log(ab);
    mode ((a − 1)/(ab − 1))^(1/a), NaN where a < 1 or b < 1 (PyTorch 2.13's formula takes the
    log of 1 − b and gives NaN for every a, b)."""

    arg_constraints = {"concentration1": _positive, "concentration0": _positive}
    support = unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = _broadcast_all(
            "Kumaraswamy", concentration1=concentration1, concentration0=concentration0)
        b = self.concentration0
        super().__init__(Uniform(C.zeros_like(b), C.ones_like(b), validate_args=validate_args),
                         [PowerTransform(exponent=b.reciprocal()), AffineTransform(1.0, -1.0),
                          PowerTransform(exponent=self.concentration1.reciprocal())],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape)
        new.concentration1, new.concentration0 = (
            v.expand(*batch_shape) for v in (self.concentration1, self.concentration0))
        return new

    mean = property(lambda self: _kumaraswamy_moment(self.concentration1,
                                                     self.concentration0, 1))

    @property
    def mode(self):
        a, b = self.concentration1, self.concentration0
        ok = (a >= 1) & (b >= 1) & (a * b > 1)
        inner = ok & (a > 1)                           # a = 1: the mode is 0, no log(0)
        a1, ab1 = where(inner, a - 1, 1.0), where(inner, a * b - 1, 1.0)
        root = ((a1.log() - ab1.log()) / a).exp()
        return where(inner, root, where(ok, C.zeros_like(a), math.nan))

    @property
    def variance(self):
        a, b = self.concentration1, self.concentration0
        return _kumaraswamy_moment(a, b, 2) - self.mean ** 2

    def entropy(self):
        with self._scope("entropy"):
            a, b = self.concentration1, self.concentration0
            h0 = (b + 1).digamma() + _EULER
            return (1 - b.reciprocal()) + (1 - a.reciprocal()) * h0 - a.log() - b.log()


class LogisticNormal(TransformedDistribution):
    """StickBreakingTransform of Normal(loc, scale) over the last axis: a point of the
    K-simplex from K − 1 Gaussian coordinates (a Normal with no batch axis is expanded to
    one, as PyTorch's); log_prob by the change of variables."""

    arg_constraints = {"loc": _real, "scale": _positive}
    support = simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base = Normal(loc, scale, validate_args=validate_args)
        if not base.batch_shape:
            base = base.expand((1,))
        super().__init__(base, StickBreakingTransform(), validate_args=validate_args)

    loc = property(lambda self: self.base_dist.base_dist.loc)
    scale = property(lambda self: self.base_dist.base_dist.scale)


class InverseGamma(TransformedDistribution):
    """1/X, X ~ Gamma(concentration α, rate β): p(y) = β^α y^(−α−1) e^(−β/y) / Γ(α);
    mean β/(α − 1) (inf for α <= 1), variance β² / ((α − 1)² (α − 2)) (inf for α <= 2),
    mode β/(α + 1), entropy α + log β + lgamma(α) − (1 + α) ψ(α)."""

    arg_constraints = {"concentration": _positive, "rate": _positive}
    support = _positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = C.full((), -1.0, dtype=base.rate.dtype, device=base.rate.device)
        super().__init__(base, PowerTransform(neg_one), validate_args=validate_args)

    concentration = property(lambda self: self.base_dist.concentration)
    rate = property(lambda self: self.base_dist.rate)
    mode = property(lambda self: self.rate / (self.concentration + 1))

    @property
    def mean(self):
        a = self.concentration
        return where(a > 1, self.rate / where(a > 1, a - 1, 1.0), math.inf)

    @property
    def variance(self):
        a = where(self.concentration > 2, self.concentration, 3.0)
        return where(self.concentration > 2, self.rate ** 2 / ((a - 1) ** 2 * (a - 2)),
                     math.inf)

    def entropy(self):
        with self._scope("entropy"):
            a = self.concentration
            return a + self.rate.log() + a.lgamma() - (1 + a) * a.digamma()


class Chi2(Gamma):
    """χ² with df degrees of freedom: exactly Gamma(df/2, 1/2) (``df`` = 2 concentration)."""

    arg_constraints = {"df": _positive}

    def __init__(self, df, validate_args=None):
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)
        _check_params(self, ("df",))

    df = property(lambda self: self.concentration * 2)
