"""ContinuousBernoulli (on [0, 1]) and VonMises (on the circle), as ``torch.distributions``'s
(the base class and the KL registry are in :mod:`tinyffn.distributions`, which imports this
file; import from there).

ContinuousBernoulli (Loaiza-Ganem & Cunningham, 2019) is the density on [0, 1] proportional
to p^x (1 − p)^(1 − x): a VAE's decoder for pixels in [0, 1], where Bernoulli's log_prob is
not normalised. Its normaliser C(p) = 2 atanh(1 − 2p) / (1 − 2p) is 0/0 at p = ½, so near
there (p in (0.499, 0.501], PyTorch's ``lims``) each quantity is a Taylor polynomial in
p − ½, as PyTorch's. VonMises(loc, κ) ∝ exp(κ cos(x − loc)): its I₀(κ) and I₁(κ) are the
polynomial fits PyTorch uses (Abramowitz & Stegun 9.8.1-9.8.4, ~1e-7 relative), and its
draws are PyTorch's rejection sampler (Best & Fisher, 1979), in float64 on the host.
"""
from __future__ import annotations

import math

import numpy as np

from . import creation as C
from . import grad_mode
from .distributions import (Distribution, ExponentialFamily, _broadcast_all, _interval,
                            _positive, _real)
from .binary_losses import binary_cross_entropy_with_logits
from .distributions_more import _clamp_probs, _one_of
from .tensor import Tensor
from .torch_functions import where
from .torch_shapes import broadcast_tensors


class ContinuousBernoulli(ExponentialFamily):
    """p(x) = C(λ) λ^x (1 − λ)^(1 − x) on [0, 1], λ = probs = sigmoid(logits) (clamped to
    [eps, 1 − eps]); C(λ) = 2 atanh(1 − 2λ)/(1 − 2λ), log C = log|log(1 − λ) − log λ|
    − log|1 − 2λ|; log_prob = −BCEWithLogits(logits, x) + log C;
    mean λ/(2λ − 1) + 1/(log(1 − λ) − log λ); cdf (λ^x (1 − λ)^(1 − x) + λ − 1)/(2λ − 1);
    rsample icdf(u) = (log1p(−λ + u(2λ − 1)) − log1p(−λ)) / (log λ − log1p(−λ)).
    Inside ``lims`` (default (0.499, 0.501)) the formulas at λ = lims[0] are replaced by
    Taylor polynomials in λ − ½, as PyTorch's."""

    arg_constraints = {"probs": _interval(0.0, 1.0), "logits": _real}
    support = _interval(0.0, 1.0)
    has_rsample = True
    _mean_carrier_measure = 0
    _params = (("probs", 0), ("logits", 0))

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        name, param = _one_of("ContinuousBernoulli", probs, logits)
        (param,) = _broadcast_all("ContinuousBernoulli", **{name: param})
        if name == "probs":
            if validate_args is not None and not bool(
                    self.arg_constraints["probs"].check(param).all()):
                raise ValueError("The parameter probs has invalid values")
            param = _clamp_probs(param)          # as PyTorch's: clamped before the checks
        setattr(self, name, param)
        self._given, self._lims = (name,), lims
        super().__init__(param.shape, (), validate_args)
        with self._scope("__init__"):
            if name == "probs":
                self.logits = param.log() - (-param).log1p()
            else:
                self.probs = _clamp_probs(param.sigmoid())

    param_shape = property(lambda self: getattr(self, self._given[0]).shape)

    def _outside_unstable_region(self) -> Tensor:
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self) -> Tensor:
        """λ, or lims[0] inside the unstable region (so the exact branch stays finite)."""
        return where(self._outside_unstable_region(), self.probs, self._lims[0])

    def _cont_bern_log_norm(self) -> Tensor:
        """log C(λ); inside lims the Taylor series log 2 + 4/3 x + 104/45 x², x = (λ − ½)²."""
        cut = self._cut_probs()
        below = where(cut <= 0.5, cut, 0.0)
        above = where(cut >= 0.5, cut, 1.0)
        log_norm = ((-cut).log1p() - cut.log()).abs().log() - where(
            cut <= 0.5, (-2.0 * below).log1p(), (2.0 * above - 1.0).log())
        x = (self.probs - 0.5) ** 2
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        cut = self._cut_probs()
        mus = cut / (2.0 * cut - 1.0) + 1.0 / ((-cut).log1p() - cut.log())
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x ** 2) * x
        return where(self._outside_unstable_region(), mus, taylor)

    @property
    def variance(self):
        cut = self._cut_probs()
        v = cut * (cut - 1.0) / (1.0 - 2.0 * cut) ** 2 \
            + 1.0 / ((-cut).log1p() - cut.log()) ** 2
        x = (self.probs - 0.5) ** 2
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return where(self._outside_unstable_region(), v, taylor)

    def rsample(self, sample_shape=()):
        u = self._draw("random", self._extended_shape(sample_shape), self.probs)
        with self._scope("rsample"):
            return self.icdf(u)

    def log_prob(self, value):
        value = self._value(value, "log_prob")
        with self._scope("log_prob"):
            logits, value = broadcast_tensors(self.logits, value.to(dtype=self.logits.dtype))
            return -binary_cross_entropy_with_logits(logits, value, reduction="none") \
                + self._cont_bern_log_norm()

    def cdf(self, value):
        value = self._value(value, "cdf")
        with self._scope("cdf"):
            cut = self._cut_probs()
            powers = (value * cut.log() + (1.0 - value) * (-cut).log1p()).exp()  # λ^x (1−λ)^(1−x)
            cdfs = (powers + cut - 1.0) / (2.0 * cut - 1.0)
            unbounded = where(self._outside_unstable_region(), cdfs, value)
            return where(value <= 0.0, 0.0, where(value >= 1.0, 1.0, unbounded))

    def icdf(self, value):
        with self._scope("icdf"):
            cut = self._cut_probs()
            x = ((-cut + value * (2.0 * cut - 1.0)).log1p() - (-cut).log1p()) \
                / (cut.log() - (-cut).log1p())
            return where(self._outside_unstable_region(), x, value)

    def entropy(self):
        with self._scope("entropy"):
            log_p0, log_p1 = (-self.probs).log1p(), self.probs.log()
            return self.mean * (log_p0 - log_p1) - self._cont_bern_log_norm() - log_p0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        """log((e^x − 1)/x), the Taylor series x/2 + x²/24 − x⁴/2880 near x = 0."""
        lo, hi = self._lims[0] - 0.5, self._lims[1] - 0.5
        outside = (x <= lo) | (x > hi)
        cut = where(outside, x, lo)
        log_norm = cut.expm1().abs().log() - cut.abs().log()
        taylor = 0.5 * x + x ** 2 / 24.0 - x ** 4 / 2880.0
        return where(outside, log_norm, taylor)


# I₀ and I₁ by Abramowitz & Stegun's polynomials, PyTorch's coefficients (von_mises.py)
_I0_SMALL = [1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2]
_I0_LARGE = [0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2,
             -0.2057706e-1, 0.2635537e-1, -0.1647633e-1, 0.392377e-2]
_I1_SMALL = [0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2, 0.32411e-3]
_I1_LARGE = [0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1,
             0.2282967e-1, -0.2895312e-1, 0.1787654e-1, -0.420059e-2]


def _eval_poly(y: Tensor, coef: list) -> Tensor:
    result = coef[-1]
    for c in reversed(coef[:-1]):
        result = c + y * result
    return result


def _log_modified_bessel_fn(x: Tensor, order: int = 0) -> Tensor:
    """log I_order(x) for x > 0, order 0 or 1: a polynomial in (x/3.75)² below 3.75, and
    x − ½ log x + log(polynomial in 3.75/x) above, as PyTorch's (which evaluates each branch
    at every x; here each sees x clamped to its side, so the other's log stays finite)."""
    xs, xl = x.clamp(max=3.75), x.clamp(min=3.75)      # each branch on its side of 3.75
    small = _eval_poly((xs / 3.75) ** 2, (_I0_SMALL, _I1_SMALL)[order])
    if order == 1:
        small = xs.abs() * small
    small = small.log()
    large = xl - 0.5 * xl.log() + _eval_poly(3.75 / xl, (_I0_LARGE, _I1_LARGE)[order]).log()
    return where(x < 3.75, small, large)


class VonMises(Distribution):
    """VonMises(loc, κ = concentration) on the circle: log p(x) = κ cos(x − loc) − log 2π
    − log I₀(κ) (x any real, read modulo 2π); mean = mode = loc (the circular mean),
    variance 1 − I₁(κ)/I₀(κ) (the circular variance); draws by Best & Fisher's rejection
    sampler in (−π, π], no rsample and no entropy, as PyTorch's."""

    arg_constraints = {"loc": _real, "concentration": _positive}
    support = _real
    _params = (("loc", 0), ("concentration", 0))

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = _broadcast_all("VonMises", loc=loc,
                                                      concentration=concentration)
        super().__init__(self.loc.shape, (), validate_args)

    mean = mode = property(lambda self: self.loc)

    @property
    def variance(self):
        k = self.concentration
        return 1 - (_log_modified_bessel_fn(k, 1) - _log_modified_bessel_fn(k, 0)).exp()

    def log_prob(self, value):
        value = self._value(value, "log_prob")
        with self._scope("log_prob"):
            return self.concentration * (value - self.loc).cos() - math.log(2 * math.pi) \
                - _log_modified_bessel_fn(self.concentration, 0)

    def sample(self, sample_shape=()):
        """Best & Fisher (1979), as PyTorch's: with r = (1 + ρ²)/(2ρ), propose
        f = (1 + r z)/(r + z), z = cos(π u₁), accept where c(2 − c) > u₂ or
        log(c/u₂) + 1 ≥ c, c = κ (r − f); x = sign(u₃ − ½) acos f, shifted by loc."""
        shape = self._extended_shape(sample_shape)
        kappa = np.broadcast_to(self.concentration.detach().numpy().astype(np.float64), shape)
        tau = 1 + np.sqrt(1 + 4 * kappa ** 2)
        rho = (tau - np.sqrt(2 * tau)) / (2 * kappa)
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho ** 2) / (2 * rho))
        x, done, rng = np.zeros(shape), np.zeros(shape, dtype=bool), self._rng()
        while not done.all():
            u1, u2, u3 = rng.random((3,) + shape)
            z = np.cos(math.pi * u1)
            f = (1 + r * z) / (r + z)
            c = kappa * (r - f)
            with np.errstate(divide="ignore", invalid="ignore"):
                accept = ((c * (2 - c) - u2) > 0) | (np.log(c / u2) + 1 - c >= 0)
            x = np.where(accept & ~done, np.sign(u3 - 0.5) * np.arccos(f), x)
            done |= accept
        # shifted by loc on the device, in float64 as before: only κ is read back (the
        # loop's), not loc too (each read a wait for a GPU)
        x = C._filled(x, "float64", self.loc.device, False)                # (*s, *batch)
        with grad_mode.no_grad():
            x = (x + math.pi + self.loc.detach().to(dtype="float64")) % (2 * math.pi) - math.pi
        return x.to(dtype=self.loc.dtype)

    def entropy(self):
        raise NotImplementedError("VonMises has no entropy (PyTorch's has none either); "
                                  "estimate it as -log_prob(x).mean() over x = sample((n,))")
