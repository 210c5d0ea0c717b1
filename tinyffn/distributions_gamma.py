"""Gamma, Beta, Dirichlet and StudentT, as ``torch.distributions``'s, with the KL closed
forms of Gamma-Gamma, Beta-Beta and Dirichlet-Dirichlet (the base class and the KL registry
are in :mod:`tinyffn.distributions`, which imports this file; import from there).

log_prob, entropy, cdf (Gamma), mean, mode and variance are PyTorch's formulas, composed of
``lgamma``, ``digamma``, ``xlogy`` and ``gammainc``, so their gradients are exact.

Their draws are reparameterised (``rsample``, as PyTorch's): a Gamma(α, 1) draw is
``ops.StandardGamma``, the inverse CDF P⁻¹(α, u) of a uniform u, so it is a function of α at
a fixed u, differentiated implicitly, dx/dα = −(∂P/∂α)(x; α) / p(x; α) (the primitive's
docstring; PyTorch's ``_standard_gamma_grad`` approximates the same derivative). Beta and
Dirichlet normalise Gamma draws, x = g / Σ g, StudentT is loc + scale · N / sqrt(χ²/df),
χ² = 2 · Gamma(df/2, 1): their gradients are the exact derivatives of these compositions
(PyTorch's Dirichlet differentiates each coordinate's Beta marginal instead; both are
unbiased, E[dx/dα] = dE[x]/dα, and they differ draw by draw).
"""
from __future__ import annotations

import math

from . import creation as C
from .arguments import type_name
from .distributions import (Distribution, ExponentialFamily, _broadcast_all, _nonnegative,
                            _positive, _real, register_kl)
from .distributions_extra import _Independent
from .distributions_more import _interval, _simplex
from .ops import StandardGamma
from .special import gammainc
from .tensor import Tensor
from .torch_functions import where
from .torch_shapes import broadcast_tensors

_LGAMMA_HALF = math.lgamma(0.5)


def _standard_gamma(a: Tensor, u: Tensor) -> Tensor:
    """Gamma(a, 1) draws at the uniforms u (shape (*sample, *a.shape)), differentiable in a."""
    return StandardGamma.apply(a.expand(*u.shape), u)


class Gamma(ExponentialFamily):
    """Gamma(α = concentration, β = rate): p(x) = β^α x^(α−1) e^(−βx) / Γ(α), x >= 0;
    log_prob = α log β + (α − 1) log x − βx − lgamma(α); entropy = α − log β + lgamma(α)
    + (1 − α) ψ(α); cdf = P(α, βx) (regularized incomplete gamma); mean α/β,
    variance α/β², mode max((α − 1)/β, 0); rsample StandardGamma(α, u) / β."""

    arg_constraints = {"concentration": _positive, "rate": _positive}
    support = _nonnegative
    has_rsample = True
    _params = (("concentration", 0), ("rate", 0))

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = _broadcast_all("Gamma", concentration=concentration,
                                                       rate=rate)
        super().__init__(self.rate.shape, (), validate_args)

    mean = property(lambda self: self.concentration / self.rate)
    mode = property(lambda self: ((self.concentration - 1) / self.rate).clamp(min=0))
    variance = property(lambda self: self.concentration / self.rate ** 2)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = self._draw("random", shape, self.rate)
        with self._scope("rsample"):
            return _standard_gamma(self.concentration, u) / self.rate

    def log_prob(self, value):
        if not isinstance(value, Tensor) and isinstance(value, (int, float)):
            value = C.tensor(float(value), dtype=self.rate.dtype, device=self.rate.device)
        value = self._value(value, "log_prob")
        with self._scope("log_prob"):
            a, b = self.concentration, self.rate
            return a.xlogy(b) + (a - 1).xlogy(value) - b * value - a.lgamma()

    def entropy(self):
        with self._scope("entropy"):
            a = self.concentration
            return a - self.rate.log() + a.lgamma() + (1.0 - a) * a.digamma()

    def cdf(self, value):
        value = self._value(value, "cdf")
        with self._scope("cdf"):
            return gammainc(self.concentration, self.rate * value)

    _mean_carrier_measure = 0
    _natural_params = property(lambda self: (self.concentration - 1, -self.rate))

    def _log_normalizer(self, x, y):
        """F(α − 1, −β) = lgamma(α) − α log β"""
        return (x + 1).lgamma() + (x + 1) * (-y.reciprocal()).log()


class Beta(ExponentialFamily):
    """Beta(a = concentration1, b = concentration0) on [0, 1]: p(x) = x^(a−1) (1 − x)^(b−1)
    / B(a, b); log_prob = (a − 1) log x + (b − 1) log(1 − x) + lgamma(a + b) − lgamma(a)
    − lgamma(b); mean a/(a + b), variance ab / ((a + b)² (a + b + 1)); entropy and mode those
    of Dirichlet([a, b]), as PyTorch's; rsample g₁/(g₁ + g₀), g ~ Gamma(a, 1), Gamma(b, 1)."""

    arg_constraints = {"concentration1": _positive, "concentration0": _positive}
    support = _interval(0.0, 1.0)
    has_rsample = True
    _params = (("concentration1", 0), ("concentration0", 0))

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = _broadcast_all(
            "Beta", concentration1=concentration1, concentration0=concentration0)
        super().__init__(self.concentration1.shape, (), validate_args)

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        """(a − 1)/(a + b − 2) of the clamped (a − 1, b − 1); 1 where a, b < 1 (Dirichlet's
        one-hot of the first index, as PyTorch's); NaN where a = b = 1."""
        a1, b1 = (self.concentration1 - 1).clamp(min=0), (self.concentration0 - 1).clamp(min=0)
        both_below = (self.concentration1 < 1) & (self.concentration0 < 1)
        return where(both_below, 1.0, a1 / where(both_below, 1.0, a1 + b1))

    @property
    def variance(self):
        a, b = self.concentration1, self.concentration0
        total = a + b
        return a * b / (total ** 2 * (total + 1))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = self._draw("random", shape + (2,), self.concentration1)
        with self._scope("rsample"):
            g = _standard_gamma(C.stack([self.concentration1, self.concentration0], -1), u)
            return g[..., 0] / g.sum(-1)

    def log_prob(self, value):
        value = self._value(value, "log_prob")
        with self._scope("log_prob"):
            a, b = self.concentration1, self.concentration0
            return ((a - 1).xlogy(value) + (b - 1).xlogy(1.0 - value)) \
                + (a + b).lgamma() - (a.lgamma() + b.lgamma())

    _natural_params = property(lambda self: (self.concentration1, self.concentration0))

    def _log_normalizer(self, x, y):
        """F(a, b) = log B(a, b)"""
        return x.lgamma() + y.lgamma() - (x + y).lgamma()

    def entropy(self):
        with self._scope("entropy"):
            a, b = self.concentration1, self.concentration0
            a0 = a + b
            return (a.lgamma() + b.lgamma()) - a0.lgamma() - (2 - a0) * a0.digamma() \
                - ((a - 1.0) * a.digamma() + (b - 1.0) * b.digamma())


class Dirichlet(ExponentialFamily):
    """Dirichlet(α) on the simplex in K = α.shape[-1] dimensions:
    log p(x) = Σ (α_k − 1) log x_k + lgamma(α0) − Σ lgamma(α_k), α0 = Σ α_k;
    mean α/α0, variance α (α0 − α) / (α0² (α0 + 1)); entropy Σ lgamma(α_k) − lgamma(α0)
    − (K − α0) ψ(α0) − Σ (α_k − 1) ψ(α_k); rsample g / Σ g, g_k ~ Gamma(α_k, 1)."""

    arg_constraints = {"concentration": _Independent(_positive, 1)}
    support = _simplex
    has_rsample = True
    _params = (("concentration", 1),)

    def __init__(self, concentration, validate_args=None):
        if not isinstance(concentration, Tensor):
            raise TypeError(f"Dirichlet: concentration must be a Tensor (..., K), got "
                            f"{type_name(concentration)}")
        if concentration.ndim < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args)

    mean = property(lambda self: self.concentration / self.concentration.sum(-1, keepdim=True))

    @property
    def mode(self):
        """(α − 1)⁺ / Σ (α − 1)⁺; where every α_k < 1, (1, 0, ..., 0), as PyTorch's (the
        one-hot row of the argmax of its all-NaN row 0/0)."""
        c1 = (self.concentration - 1).clamp(min=0)
        below = (self.concentration < 1).all(-1, keepdim=True)              # (..., 1)
        mode = c1 / where(below, 1.0, c1.sum(-1, keepdim=True))             # (..., K)
        k = C.arange(c1.shape[-1], device=c1.device)     # PyTorch's one-hot of the argmax
        first = (k == 0).to(dtype=mode.dtype)           # of its row 0/0 (all NaN): index 0
        return where(below, first, mode)

    @property
    def variance(self):
        a0 = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (a0 - self.concentration) / (a0 ** 2 * (a0 + 1))

    def rsample(self, sample_shape=()):
        u = self._draw("random", self._extended_shape(sample_shape), self.concentration)
        with self._scope("rsample"):
            g = _standard_gamma(self.concentration, u)                  # (*sample, *batch, K)
            return g / g.sum(-1, keepdim=True)

    def log_prob(self, value):
        value = self._value(value, "log_prob")
        with self._scope("log_prob"):
            a = self.concentration
            return (a - 1.0).xlogy(value).sum(-1) + a.sum(-1).lgamma() - a.lgamma().sum(-1)

    _natural_params = property(lambda self: (self.concentration,))

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - x.sum(-1).lgamma()

    def entropy(self):
        with self._scope("entropy"):
            a = self.concentration
            k, a0 = a.shape[-1], a.sum(-1)
            return a.lgamma().sum(-1) - a0.lgamma() - (k - a0) * a0.digamma() \
                - ((a - 1.0) * a.digamma()).sum(-1)


class StudentT(Distribution):
    """Student's t with df degrees of freedom, loc and scale, y = (x − loc) / scale:
    log p(x) = −½ (df + 1) log(1 + y²/df) − log scale − ½ log df − ½ log π − lgamma(df/2)
    + lgamma((df + 1)/2); mean loc (NaN for df <= 1), variance scale² df/(df − 2) (inf for
    1 < df <= 2, NaN for df <= 1); rsample loc + scale · N / sqrt(χ²/df)."""

    arg_constraints = {"df": _positive, "loc": _real, "scale": _positive}
    support = _real
    has_rsample = True
    _params = (("df", 0), ("loc", 0), ("scale", 0))

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = _broadcast_all("StudentT", df=df, loc=loc, scale=scale)
        super().__init__(self.df.shape, (), validate_args)

    mode = property(lambda self: self.loc)
    mean = property(lambda self: where(self.df <= 1, math.nan, self.loc))

    @property
    def variance(self):
        df = where(self.df > 2, self.df, 3.0)        # the untaken branch stays finite
        v = where(self.df > 2, self.scale ** 2 * df / (df - 2), math.inf)
        return where(self.df <= 1, math.nan, v)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        n = self._draw("standard_normal", shape, self.df)
        u = self._draw("random", shape, self.df)
        with self._scope("rsample"):
            chi2 = 2 * _standard_gamma(0.5 * self.df, u)                 # χ² with df degrees
            return self.loc + self.scale * n * (chi2 / self.df).rsqrt()

    def log_prob(self, value):
        value = self._value(value, "log_prob")
        with self._scope("log_prob"):
            df = self.df
            y = (value - self.loc) / self.scale
            Z = self.scale.log() + 0.5 * df.log() + 0.5 * math.log(math.pi) \
                + (0.5 * df).lgamma() - (0.5 * (df + 1.0)).lgamma()
            return -0.5 * (df + 1.0) * (y ** 2.0 / df).log1p() - Z

    def entropy(self):
        with self._scope("entropy"):
            df = self.df
            lbeta = (0.5 * df).lgamma() + _LGAMMA_HALF - (0.5 * (df + 1)).lgamma()
            return self.scale.log() + 0.5 * (df + 1) * ((0.5 * (df + 1)).digamma()
                                                        - (0.5 * df).digamma()) \
                + 0.5 * df.log() + lbeta


# ----------------------------------------------------------------------------- KL
@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    """αq log(βp/βq) + lgamma(αq) − lgamma(αp) + (αp − αq) ψ(αp) + (βq − βp) αp/βp"""
    return q.concentration * (p.rate / q.rate).log() \
        + (q.concentration.lgamma() - p.concentration.lgamma()) \
        + (p.concentration - q.concentration) * p.concentration.digamma() \
        + (q.rate - p.rate) * (p.concentration / p.rate)


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    sp = p.concentration1 + p.concentration0
    sq = q.concentration1 + q.concentration0
    t1 = q.concentration1.lgamma() + q.concentration0.lgamma() + sp.lgamma()
    t2 = p.concentration1.lgamma() + p.concentration0.lgamma() + sq.lgamma()
    t3 = (p.concentration1 - q.concentration1) * p.concentration1.digamma()
    t4 = (p.concentration0 - q.concentration0) * p.concentration0.digamma()
    t5 = (sq - sp) * sp.digamma()
    return t1 - t2 + t3 + t4 + t5


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    """lgamma(α0p) − lgamma(α0q) − Σ (lgamma(αp) − lgamma(αq)) + Σ (αp − αq)(ψ(αp) − ψ(α0p))"""
    a, b = broadcast_tensors(p.concentration, q.concentration)
    sp, sq = a.sum(-1), b.sum(-1)
    t4 = a.digamma() - sp.digamma().unsqueeze(-1)
    return sp.lgamma() - sq.lgamma() - (a.lgamma() - b.lgamma()).sum(-1) \
        + ((a - b) * t4).sum(-1)
