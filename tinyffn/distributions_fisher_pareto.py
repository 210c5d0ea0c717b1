"""FisherSnedecor and GeneralizedPareto, as ``torch.distributions``' (plain Distributions
there, not transformed ones; :mod:`tinyffn.distributions_family` re-exports them, and
:mod:`tinyffn.distributions` imports that file: import from there).
"""
from __future__ import annotations

import math

from .distributions import Distribution, _broadcast_all, _positive, _real
from .distributions_constraints import interval
from .distributions_gamma import Gamma
from .numerics import finfo
from .torch_functions import where


class FisherSnedecor(Distribution):
    """F(df1, df2) = (X1/df1) / (X2/df2), Xi ~ χ²(dfi): log p(x) = lgamma((d1 + d2)/2)
    − lgamma(d1/2) − lgamma(d2/2) + (d1/2) log(d1/d2) + (d1/2 − 1) log x
    − ((d1 + d2)/2) log(1 + (d1/d2) x); mean d2/(d2 − 2) (NaN for d2 <= 2), mode
    (d1 − 2)/d1 · d2/(d2 + 2) (NaN for d1 <= 2), variance 2 d2² (d1 + d2 − 2) /
    (d1 (d2 − 2)² (d2 − 4)) (NaN for d2 <= 4); rsample X1/X2 of Gamma(dfi/2, dfi) draws,
    each clamped at the dtype's tiny, as PyTorch's. No entropy (PyTorch has none)."""

    arg_constraints = {"df1": _positive, "df2": _positive}
    support = _positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        self.df1, self.df2 = _broadcast_all("FisherSnedecor", df1=df1, df2=df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        super().__init__(self.df1.shape, (), validate_args)

    def expand(self, batch_shape, _instance=None):
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        batch_shape = tuple(batch_shape)
        new.df1, new.df2 = (v.expand(*batch_shape) for v in (self.df1, self.df2))
        new._gamma1, new._gamma2 = (g.expand(batch_shape) for g in (self._gamma1, self._gamma2))
        new._batch_shape = batch_shape
        return new

    @property
    def mean(self):
        d2 = where(self.df2 > 2, self.df2, 3.0)
        return where(self.df2 > 2, d2 / (d2 - 2), math.nan)

    @property
    def mode(self):
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        return where(self.df1 <= 2, math.nan, mode)

    @property
    def variance(self):
        d1, d2 = self.df1, where(self.df2 > 4, self.df2, 5.0)
        v = 2 * d2 ** 2 * (d1 + d2 - 2) / (d1 * (d2 - 2) ** 2 * (d2 - 4))
        return where(self.df2 > 4, v, math.nan)

    def rsample(self, sample_shape=()):
        x1 = self._gamma1.rsample(sample_shape)
        x2 = self._gamma2.rsample(sample_shape)
        with self._scope("rsample"):
            tiny = finfo(x2.dtype).tiny
            return (x1 / x2.clamp(min=tiny)).clamp(min=tiny)

    def log_prob(self, value):
        value = self._value(value, "log_prob")
        with self._scope("log_prob"):
            ct1, ct2, ct3 = self.df1 * 0.5, self.df2 * 0.5, self.df1 / self.df2
            t1 = (ct1 + ct2).lgamma() - ct1.lgamma() - ct2.lgamma()
            t2 = ct1 * ct3.log() + (ct1 - 1) * value.log()
            t3 = (ct1 + ct2) * (ct3 * value).log1p()
            return t1 + t2 - t3

    def entropy(self):
        raise NotImplementedError("FisherSnedecor has no closed-form entropy (PyTorch's has "
                                  "none either); estimate it as -log_prob(x).mean() over "
                                  "x = rsample((n,))")


class GeneralizedPareto(Distribution):
    """Generalized Pareto(loc, scale, ξ = concentration), PyTorch's (after TensorFlow
    Probability's): z = (x − loc)/scale, log p = −log scale − (1/ξ + 1) log1p(ξ z) (−z where
    |ξ| <= 1e-8, torch.isclose(ξ, 0)); log survival −log1p(ξ z)/ξ (−z); cdf
    1 − exp(log survival); icdf loc + scale expm1(−ξ log1p(−q))/ξ (loc − scale log1p(−q));
    support [loc, loc − scale/ξ] for ξ < 0, [loc, inf) otherwise; mean loc + scale/(1 − ξ)
    (NaN for ξ >= 1), variance scale² / ((1 − ξ)² (1 − 2ξ)) (NaN for ξ >= ½), mode loc,
    entropy log scale + ξ + 1; rsample icdf(u), u ~ U[0, 1)."""

    arg_constraints = {"loc": _real, "scale": _positive, "concentration": _real}
    has_rsample = True
    _params = (("loc", 0), ("scale", 0), ("concentration", 0))

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = _broadcast_all(
            "GeneralizedPareto", loc=loc, scale=scale, concentration=concentration)
        super().__init__(self.loc.shape, (), validate_args)

    @property
    def support(self):
        c = self.concentration
        upper = where(c < 0, self.loc - self.scale / where(c < 0, c, -1.0), math.inf)
        return interval(self.loc, upper)

    def _safe(self):
        """(ξ == 0 by torch.isclose, ξ with 1 where it is 0: the untaken branch finite)"""
        eq_zero = self.concentration.abs() <= 1e-8
        return eq_zero, where(eq_zero, 1.0, self.concentration)

    mode = property(lambda self: self.loc)

    @property
    def mean(self):
        valid = self.concentration < 1
        safe = where(valid, self.concentration, 0.5)
        return where(valid, self.loc + self.scale / (1 - safe), math.nan)

    @property
    def variance(self):
        valid = self.concentration < 0.5
        safe = where(valid, self.concentration, 0.25)
        return where(valid, self.scale ** 2 / ((1 - safe) ** 2 * (1 - 2 * safe)), math.nan)

    def rsample(self, sample_shape=()):
        u = self._draw("random", self._extended_shape(sample_shape), self.loc)
        with self._scope("rsample"):
            return self.icdf(u)

    def log_prob(self, value):
        value = self._value(value, "log_prob")
        with self._scope("log_prob"):
            z = (value - self.loc) / self.scale
            eq_zero, safe = self._safe()
            y = 1 / safe + 1
            nonzero = where(y == 0, y, y * (safe * z).log1p())
            return -self.scale.log() - where(eq_zero, z, nonzero)

    def log_survival_function(self, value):
        """log P(X > value)."""
        value = self._value(value, "log_survival_function")
        with self._scope("log_survival_function"):
            z = (value - self.loc) / self.scale
            eq_zero, safe = self._safe()
            return where(eq_zero, -z, -(safe * z).log1p() / safe)

    def log_cdf(self, value):
        """log P(X <= value) = log1p(−exp(log survival))."""
        with self._scope("log_cdf"):
            return (-self.log_survival_function(value).exp()).log1p()

    def cdf(self, value):
        with self._scope("cdf"):
            return self.log_cdf(value).exp()

    def icdf(self, value):
        with self._scope("icdf"):
            eq_zero, safe = self._safe()
            logu = (-value).log1p()
            nonzero = self.loc + self.scale / safe * (-safe * logu).expm1()
            return where(eq_zero, self.loc - self.scale * logu, nonzero)

    def entropy(self):
        with self._scope("entropy"):
            return (self.scale.log() + self.concentration + 1).expand(*self._batch_shape)
