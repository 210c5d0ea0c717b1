"""Uniform, Laplace and Exponential, as ``torch.distributions``' (the base class, Normal and
the KL registry are in :mod:`tinyffn.distributions`, which imports this file; import from
there). Their log_prob, cdf, icdf, entropy and moments are written out; their draws are
reparameterised, each a differentiable function of the parameters at a fixed NumPy draw:

    Uniform      low + (high − low) u,                u ~ U(0, 1)
    Laplace      loc − scale · sign(u) log(1 − |u|),  u ~ U(eps − 1, 1)
    Exponential  e / rate,                            e ~ Exponential(1)
"""
from __future__ import annotations

import math

import numpy as np

from . import backend as backends
from .distributions import (Distribution, ExponentialFamily, _broadcast_all, _greater_than,
                            _interval, _less_than, _nonnegative, _positive, _real)
from .torch_functions import where

__all__ = ["Uniform", "Laplace", "Exponential"]


class Uniform(Distribution):
    """U[low, high): p(x) = 1 / (high − low) on [low, high). rsample = low + (high − low) u."""

    support = property(lambda self: _interval(self.low, self.high))
    arg_constraints = property(lambda self: {"low": _less_than(self.high),
                                             "high": _greater_than(self.low)})
    has_rsample = True
    _params = (("low", 0), ("high", 0))

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = _broadcast_all("Uniform", low=low, high=high)
        super().__init__(self.low.shape, (), validate_args)

    mean = property(lambda self: (self.high + self.low) / 2)
    mode = property(lambda self: self.high * math.nan)
    stddev = property(lambda self: (self.high - self.low) / math.sqrt(12))
    variance = property(lambda self: (self.high - self.low) ** 2 / 12)

    def rsample(self, sample_shape=()):
        u = self._draw("random", self._extended_shape(sample_shape), self.low)
        with self._scope("rsample"):
            return self.low + u * (self.high - self.low)

    def log_prob(self, value):
        value = self._value(value, "log_prob")
        with self._scope("log_prob"):
            inside = (value >= self.low) & (value < self.high)             # high: −inf
            return where(inside, -(self.high - self.low).log(), -math.inf)

    def entropy(self):
        with self._scope("entropy"):
            return (self.high - self.low).log()

    def cdf(self, value):
        value = self._value(value, "cdf")
        with self._scope("cdf"):
            return ((value - self.low) / (self.high - self.low)).clamp(0, 1)

    def icdf(self, value):
        with self._scope("icdf"):
            return value * (self.high - self.low) + self.low


class Laplace(Distribution):
    """Laplace(loc, scale): p(x) = exp(−|x − loc| / scale) / (2 scale).
    rsample = loc − scale · sign(u) · log(1 − |u|), u ~ U(−1, 1)."""

    arg_constraints = {"loc": _real, "scale": _positive}
    support = _real
    has_rsample = True
    _params = (("loc", 0), ("scale", 0))

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = _broadcast_all("Laplace", loc=loc, scale=scale)
        super().__init__(self.loc.shape, (), validate_args)

    mean = mode = property(lambda self: self.loc)
    stddev = property(lambda self: math.sqrt(2) * self.scale)
    variance = property(lambda self: 2 * self.scale ** 2)

    def rsample(self, sample_shape=()):
        eps = np.finfo(backends.dtype_name(self.loc.dtype)).eps    # u = −1 would give log 0
        u = self._draw("uniform", self._extended_shape(sample_shape), self.loc,
                       low=eps - 1, high=1)
        with self._scope("rsample"):
            return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value):
        value = self._value(value, "log_prob")
        with self._scope("log_prob"):
            return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def entropy(self):
        with self._scope("entropy"):
            return 1 + (2 * self.scale).log()

    def cdf(self, value):
        value = self._value(value, "cdf")
        with self._scope("cdf"):
            z = value - self.loc
            return 0.5 - 0.5 * z.sign() * (-z.abs() / self.scale).expm1()

    def icdf(self, value):
        with self._scope("icdf"):
            term = value - 0.5
            return self.loc - self.scale * term.sign() * (-2 * term.abs()).log1p()


class Exponential(ExponentialFamily):
    """Exponential(rate): p(x) = rate · exp(−rate x), x >= 0. rsample = E / rate, E ~ Exp(1)."""

    arg_constraints = {"rate": _positive}
    support = _nonnegative
    has_rsample = True
    _params = (("rate", 0),)

    def __init__(self, rate, validate_args=None):
        (self.rate,) = _broadcast_all("Exponential", rate=rate)
        super().__init__(self.rate.shape, (), validate_args)

    mean = stddev = property(lambda self: self.rate.reciprocal())
    mode = property(lambda self: self.rate * 0)
    variance = property(lambda self: self.rate ** -2)

    def rsample(self, sample_shape=()):
        e = self._draw("standard_exponential", self._extended_shape(sample_shape), self.rate)
        with self._scope("rsample"):
            return e / self.rate

    def log_prob(self, value):
        value = self._value(value, "log_prob")
        with self._scope("log_prob"):
            return self.rate.log() - self.rate * value

    def entropy(self):
        with self._scope("entropy"):
            return 1.0 - self.rate.log()

    def cdf(self, value):
        value = self._value(value, "cdf")
        with self._scope("cdf"):
            return 1 - (-self.rate * value).exp()

    def icdf(self, value):
        with self._scope("icdf"):
            return -(-value).log1p() / self.rate

    # as an exponential family: θ = −rate, T(x) = x, F(θ) = −log(−θ), E[k] = 0
    _mean_carrier_measure = 0
    _natural_params = property(lambda self: (-self.rate,))

    def _log_normalizer(self, x):
        return -(-x).log()
