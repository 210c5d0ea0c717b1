"""Independent, OneHotCategorical, LogNormal, Gumbel, Cauchy, Poisson, Geometric and
Binomial, as ``torch.distributions``'s (the base class is in :mod:`tinyffn.distributions`,
which imports this file; import from there; their KL closed forms are in
:mod:`tinyffn.distributions_kl`).

Independent moves batch axes into the event (a diagonal Gaussian posterior's log_prob
summed over its features); LogNormal (exp of a Normal) and Gumbel (loc − scale · log(−log u))
are PyTorch's transformed distributions with their closed forms written out. The counts
(Poisson, Geometric, Binomial) draw with NumPy from tinyffn's generator, no rsample.
"""
from __future__ import annotations

import math

import numpy as np

from . import backend as backends
from . import creation as C
from .arguments import type_name
from .default_dtype import get_default_dtype
from .binary_losses import binary_cross_entropy_with_logits
from .distributions import (Constraint, Distribution, ExponentialFamily, Normal, _broadcast_all,
                            _nonnegative, _positive, _real)
from .distributions_more import (Categorical, _clamp_probs, _integer_interval, _one_of,
                                 _real_vector, _simplex, _interval)
from .functional_extra import one_hot
from .tensor import Tensor
from .torch_functions import where
from .torch_math import atan
from .torch_shapes import broadcast_tensors

_EULER = 0.57721566490153286060


class _Independent(Constraint):
    """``base`` reinterpreted over n more trailing axes: inside where every entry of those
    axes is (PyTorch's ``constraints.independent``)."""

    def __init__(self, base: Constraint, n: int):
        super().__init__("IndependentConstraint", None, base.event_dim + n)
        self.base, self.n = base, n

    def check(self, value):
        inside = self.base.check(value)
        for _ in range(self.n):
            inside = inside.all(-1)
        return inside

    def __repr__(self) -> str:
        return f"IndependentConstraint({self.base!r}, {self.n})"


_one_hot = Constraint("OneHot", lambda v: ((v == 0) | (v == 1)).all(-1) & (v.sum(-1) == 1),
                      event_dim=1)
_nonnegative_integer = Constraint("IntegerGreaterThan", lambda v, lower_bound:
                                  (v == v.floor()) & (v >= lower_bound), lower_bound=0)


def _sum_rightmost(x: Tensor, n: int) -> Tensor:
    """x summed over its last n axes (PyTorch's _sum_rightmost)."""
    return x if n == 0 else x.reshape(*x.shape[:x.ndim - n], -1).sum(-1)


def _logits_or_probs(self, op: str, probs, logits) -> Tensor:
    """Set the given one of probs/logits (broadcast, as a float tensor) and derive the
    other, as PyTorch's binary probs_to_logits/logits_to_probs: logits = log p − log(1 − p)
    of p clamped to [eps, 1 − eps], probs = sigmoid(logits)."""
    name, param = _one_of(op, probs, logits)
    (param,) = _broadcast_all(op, **{name: param})
    setattr(self, name, param)
    self._given = (name,)
    return param


def _derive(self) -> None:
    with self._scope("__init__"):
        if "probs" in self._given:
            p = _clamp_probs(self.probs)
            self.logits = p.log() - (-p).log1p()
        else:
            self.probs = self.logits.sigmoid()


def _reinterpreted_ndims(op: str, n: object) -> int:
    """reinterpreted_batch_ndims, checked: an int >= 0 (Independent, constraints.independent)."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise ValueError(f"{op}: reinterpreted_batch_ndims must be an int >= 0, got {n!r}")
    return n


# ----------------------------------------------------------------------------- wrappers
class Independent(Distribution):
    """The base distribution with its last ``reinterpreted_batch_ndims`` batch axes read as
    event axes: log_prob and entropy summed over them. Independent(Normal(loc, scale), 1)
    over (B, d) parameters is a diagonal Gaussian: batch_shape (B,), event_shape (d,)."""

    arg_constraints: dict = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        if not isinstance(base_distribution, Distribution):
            raise TypeError(f"Independent: base_distribution must be a Distribution, got "
                            f"{type_name(base_distribution)}")
        n = _reinterpreted_ndims("Independent", reinterpreted_batch_ndims)
        if n > len(base_distribution.batch_shape):
            raise ValueError("Expected reinterpreted_batch_ndims <= "
                             "len(base_distribution.batch_shape), actual "
                             f"{n} vs {len(base_distribution.batch_shape)}")
        shape = base_distribution.batch_shape + base_distribution.event_shape
        cut = len(shape) - n - len(base_distribution.event_shape)
        self.base_dist, self.reinterpreted_batch_ndims = base_distribution, n
        super().__init__(shape[:cut], shape[cut:], validate_args)

    has_rsample = property(lambda self: self.base_dist.has_rsample)
    # the base's values, while no axis is reinterpreted (PyTorch's): over event axes they
    # would be a cartesian product, which neither library enumerates
    has_enumerate_support = property(lambda self: not self.reinterpreted_batch_ndims
                                     and self.base_dist.has_enumerate_support)
    mean = property(lambda self: self.base_dist.mean)
    mode = property(lambda self: self.base_dist.mode)
    variance = property(lambda self: self.base_dist.variance)

    @property
    def support(self):
        s = self.base_dist.support
        return _Independent(s, self.reinterpreted_batch_ndims) \
            if self.reinterpreted_batch_ndims else s

    def expand(self, batch_shape, _instance=None):
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        batch_shape = tuple(batch_shape)
        new.base_dist = self.base_dist.expand(
            batch_shape + self._event_shape[:self.reinterpreted_batch_ndims])
        new._batch_shape = batch_shape
        return new

    def sample(self, sample_shape=()):
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=()):
        return self.base_dist.rsample(sample_shape)

    def enumerate_support(self, expand=True):
        if self.reinterpreted_batch_ndims:
            raise NotImplementedError(
                f"Independent: enumerating the support over {self.reinterpreted_batch_ndims} "
                "reinterpreted axes would be a cartesian product, which is not implemented "
                "(nor in PyTorch); enumerate base_dist's support instead")
        return self.base_dist.enumerate_support(expand=expand)

    def log_prob(self, value):
        with self._scope("log_prob"):
            return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self):
        with self._scope("entropy"):
            return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def __repr__(self) -> str:
        return f"Independent({self.base_dist!r}, {self.reinterpreted_batch_ndims})"


class OneHotCategorical(Distribution):
    """Categorical(probs) with values one-hot rows (..., K): log_prob(x) = log probs[argmax x];
    mean = probs, variance = probs (1 − probs), mode the one-hot row of the largest prob."""

    arg_constraints = {"probs": _simplex, "logits": _real_vector}
    support = _one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args)

    probs = property(lambda self: self._categorical.probs)
    logits = property(lambda self: self._categorical.logits)
    param_shape = property(lambda self: self._categorical.param_shape)
    mean = property(lambda self: self._categorical.probs)
    variance = property(lambda self: self.probs * (1 - self.probs))

    @property
    def mode(self):
        k = self.probs.shape[-1]
        return one_hot(self.probs.argmax(-1), k).to(dtype=self.probs.dtype)

    _inner = ("_categorical",)          # expand() expands it too (Distribution.expand)

    def enumerate_support(self, expand=True):
        """The K one-hot rows (K, 1, ..., 1, K), expanded to (K, *batch, K) by default."""
        k, batch = self._event_shape[0], self._batch_shape
        values = C.eye(k, dtype=self.probs.dtype, device=self.probs.device)
        values = values.reshape(k, *(1,) * len(batch), k)
        return values.expand(k, *batch, k) if expand else values

    def sample(self, sample_shape=()):
        k = self._categorical.sample(sample_shape)                # (*sample, *batch)
        return one_hot(k, self._event_shape[0]).to(dtype=self.probs.dtype)

    def log_prob(self, value):
        value = self._value(value, "log_prob")
        with self._scope("log_prob"):
            return self._categorical.log_prob(value.argmax(-1))

    def entropy(self):
        return self._categorical.entropy()

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """OneHotCategorical with the straight-through gradient (Bengio et al., 2013):
    rsample = sample + (probs − probs.detach()), the one-hot draw in value and d/d probs = 1."""

    has_rsample = True

    def rsample(self, sample_shape=()):
        x = self.sample(sample_shape)
        with self._scope("rsample"):
            return x + (self.probs - self.probs.detach())


# ----------------------------------------------------------------------------- continuous
class LogNormal(Distribution):
    """exp(X), X ~ Normal(loc, scale) (``base_dist``): log p(y) = Normal.log_prob(log y) − log y;
    entropy = Normal's + loc; mean = exp(loc + scale²/2), mode = exp(loc − scale²),
    variance = (exp(scale²) − 1) exp(2 loc + scale²); cdf(y) = Normal.cdf(log y);
    rsample = exp(loc + scale · eps)."""

    arg_constraints = {"loc": _real, "scale": _positive}
    support = _positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.base_dist = Normal(loc, scale, validate_args=validate_args)
        super().__init__(self.base_dist.batch_shape, (), validate_args)

    loc = property(lambda self: self.base_dist.loc)
    scale = property(lambda self: self.base_dist.scale)
    mean = property(lambda self: (self.loc + self.scale ** 2 / 2).exp())
    mode = property(lambda self: (self.loc - self.scale ** 2).exp())

    @property
    def variance(self):
        s2 = self.scale ** 2
        return s2.expm1() * (2 * self.loc + s2).exp()

    _inner = ("base_dist",)             # expand() expands it too (Distribution.expand)

    def rsample(self, sample_shape=()):
        x = self.base_dist.rsample(sample_shape)
        with self._scope("rsample"):
            return x.exp()

    def log_prob(self, value):
        value = self._value(value, "log_prob")
        with self._scope("log_prob"):
            x = value.log()
            return -x + self.base_dist.log_prob(x)

    def entropy(self):
        with self._scope("entropy"):
            return self.base_dist.entropy() + self.loc

    def cdf(self, value):
        with self._scope("cdf"):          # as PyTorch's: the base checks log(value)
            return self.base_dist.cdf(value.log())

    def icdf(self, value):
        with self._scope("icdf"):
            return self.base_dist.icdf(value).exp()


class Gumbel(Distribution):
    """Gumbel(loc, scale): log p(x) = z − exp(z) − log scale, z = (loc − x) / scale;
    cdf = exp(−exp(−(x − loc) / scale)); mean = loc + γ scale (γ: Euler's constant),
    variance = π² scale² / 6, entropy = log scale + 1 + γ;
    rsample = loc − scale · log(−log u), u ~ U(tiny, 1 − eps) as PyTorch's."""

    arg_constraints = {"loc": _real, "scale": _positive}
    support = _real
    has_rsample = True
    _params = (("loc", 0), ("scale", 0))

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = _broadcast_all("Gumbel", loc=loc, scale=scale)
        super().__init__(self.loc.shape, (), validate_args)

    mean = property(lambda self: self.loc + self.scale * _EULER)
    mode = property(lambda self: self.loc)
    stddev = property(lambda self: (math.pi / math.sqrt(6)) * self.scale)
    variance = property(lambda self: self.stddev ** 2)

    def rsample(self, sample_shape=()):
        info = np.finfo(backends.dtype_name(self.loc.dtype))
        u = self._draw("uniform", self._extended_shape(sample_shape), self.loc,
                       low=float(info.tiny), high=1 - float(info.eps))
        with self._scope("rsample"):
            return self.loc - self.scale * (-u.log()).log()

    def log_prob(self, value):
        value = self._value(value, "log_prob")
        with self._scope("log_prob"):
            z = (self.loc - value) / self.scale
            return (z - z.exp()) - self.scale.log()

    def entropy(self):
        with self._scope("entropy"):
            return self.scale.log() + (1 + _EULER)

    def cdf(self, value):
        value = self._value(value, "cdf")
        with self._scope("cdf"):
            return (-(-(value - self.loc) / self.scale).exp()).exp()

    def icdf(self, value):
        with self._scope("icdf"):
            return self.loc - self.scale * (-value.log()).log()


class Cauchy(Distribution):
    """Cauchy(loc, scale): p(x) = 1 / (π scale (1 + z²)), z = (x − loc) / scale;
    cdf = atan(z) / π + ½, icdf = loc + scale tan(π (q − ½)), entropy = log(4π scale);
    mean NaN, variance inf; rsample = loc + scale · eps, eps ~ Cauchy(0, 1)."""

    arg_constraints = {"loc": _real, "scale": _positive}
    support = _real
    has_rsample = True
    _params = (("loc", 0), ("scale", 0))

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = _broadcast_all("Cauchy", loc=loc, scale=scale)
        super().__init__(self.loc.shape, (), validate_args)

    mode = property(lambda self: self.loc)
    mean = property(lambda self: C.full(self._extended_shape(), math.nan,
                                        dtype=self.loc.dtype, device=self.loc.device))
    variance = property(lambda self: C.full(self._extended_shape(), math.inf,
                                            dtype=self.loc.dtype, device=self.loc.device))

    def rsample(self, sample_shape=()):
        eps = self._draw("standard_cauchy", self._extended_shape(sample_shape), self.loc)
        with self._scope("rsample"):
            return self.loc + eps * self.scale

    def log_prob(self, value):
        value = self._value(value, "log_prob")
        with self._scope("log_prob"):
            return -math.log(math.pi) - self.scale.log() \
                - (((value - self.loc) / self.scale) ** 2).log1p()

    def entropy(self):
        with self._scope("entropy"):
            return math.log(4 * math.pi) + self.scale.log()

    def cdf(self, value):
        value = self._value(value, "cdf")
        with self._scope("cdf"):
            return atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        with self._scope("icdf"):
            return (math.pi * (value - 0.5)).tan() * self.scale + self.loc


# ----------------------------------------------------------------------------- counts
class Poisson(ExponentialFamily):
    """Poisson(rate): P(k) = rate^k e^(−rate) / k!, k = 0, 1, ...;
    log_prob = k log rate − rate − lgamma(k + 1) (0 · log 0 = 0). No closed-form entropy
    (PyTorch raises NotImplementedError too)."""

    arg_constraints = {"rate": _nonnegative}
    support = _nonnegative_integer
    _params = (("rate", 0),)

    def __init__(self, rate, validate_args=None):
        (self.rate,) = _broadcast_all("Poisson", rate=rate)
        super().__init__(self.rate.shape, (), validate_args)

    mean = variance = property(lambda self: self.rate)
    mode = property(lambda self: self.rate.floor())

    def sample(self, sample_shape=()):
        lam = self.rate.detach().numpy().astype(np.float64)
        return self._draw("poisson", self._extended_shape(sample_shape), self.rate, lam=lam)

    def log_prob(self, value):
        value = self._value(value, "log_prob")
        with self._scope("log_prob"):
            rate, value = broadcast_tensors(self.rate, value.to(dtype=self.rate.dtype))
            return value.xlogy(rate) - rate - (value + 1).lgamma()

    _natural_params = property(lambda self: (self.rate.log(),))      # F(θ) = e^θ

    def _log_normalizer(self, x):
        return x.exp()

    def entropy(self):
        raise NotImplementedError("Poisson has no closed-form entropy (PyTorch's raises too); "
                                  "estimate it as -log_prob(x).mean() over x = sample((n,))")


class Geometric(Distribution):
    """Geometric(p): P(k) = (1 − p)^k p, k = 0, 1, ... failures before the first success;
    log_prob = k log(1 − p) + log p; mean = 1/p − 1, variance = (1/p − 1)/p, mode 0;
    entropy = BCE(logits, p) / p. Draws floor(log u / log(1 − p)), u ~ U(tiny, 1)."""

    arg_constraints = {"probs": _interval(0.0, 1.0), "logits": _real}
    support = _nonnegative_integer
    _params = (("probs", 0), ("logits", 0))

    def __init__(self, probs=None, logits=None, validate_args=None):
        param = _logits_or_probs(self, "Geometric", probs, logits)
        super().__init__(param.shape, (), validate_args)
        if self._validate_args and probs is not None and not bool((param > 0).all()):
            raise ValueError(f"Expected parameter probs (Tensor of shape {param.shape}) of "
                             f"distribution {self!r} to be positive but found invalid "
                             f"values:\n{param}")
        _derive(self)

    mean = property(lambda self: 1.0 / self.probs - 1.0)
    mode = property(lambda self: self.probs * 0)
    variance = property(lambda self: (1.0 / self.probs - 1.0) / self.probs)

    def sample(self, sample_shape=()):
        tiny = float(np.finfo(backends.dtype_name(self.probs.dtype)).tiny)
        p = self.probs.detach().numpy().astype(np.float64)
        u = self._rng().uniform(tiny, 1, size=self._extended_shape(sample_shape))
        with np.errstate(divide="ignore"):                 # p = 1: log 0, so k = −0
            k = np.floor(np.log(u) / np.log1p(-p))
        return C._filled(k, backends.dtype_name(self.probs.dtype), self.probs.device, False)

    def log_prob(self, value):
        value = self._value(value, "log_prob")
        with self._scope("log_prob"):
            value, probs = broadcast_tensors(value.to(dtype=self.probs.dtype), self.probs)
            probs = where((probs == 1) & (value == 0), 0.0, probs)   # 0 · log 0 = 0
            return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        with self._scope("entropy"):
            return binary_cross_entropy_with_logits(self.logits, self.probs,
                                                    reduction="none") / self.probs


class Binomial(Distribution):
    """Binomial(n, p): P(k) = C(n, k) p^k (1 − p)^(n − k), k = 0..n, total_count n;
    log_prob = k logits − lgamma(k + 1) − lgamma(n − k + 1) + lgamma(n + 1)
    − n (max(logits, 0) + log(1 + e^(−|logits|))), as PyTorch's (stable in the logits);
    entropy summed over k = 0..n (one n for the whole batch, as PyTorch)."""

    arg_constraints = {"total_count": _nonnegative_integer, "probs": _interval(0.0, 1.0),
                       "logits": _real}
    _params = (("total_count", 0), ("probs", 0), ("logits", 0))
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        name, param = _one_of("Binomial", probs, logits)
        if isinstance(total_count, Tensor) and not total_count.backend.is_floating(
                total_count.dtype):                   # counts as int64, as PyTorch takes them
            total_count = total_count.to(dtype=param.dtype if isinstance(param, Tensor)
                                         else get_default_dtype())
        n, param = _broadcast_all("Binomial", total_count=total_count, **{name: param})
        self.total_count = n.to(dtype=param.dtype)
        setattr(self, name, param)
        self._given = ("total_count", name)
        super().__init__(param.shape, (), validate_args)
        _derive(self)

    support = property(lambda self: _integer_interval(0, self.total_count))
    param_shape = property(lambda self: getattr(self, self._given[1]).shape)
    mean = property(lambda self: self.total_count * self.probs)
    variance = property(lambda self: self.total_count * self.probs * (1 - self.probs))

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().minimum(self.total_count)

    def sample(self, sample_shape=()):
        n = self.total_count.detach().numpy().astype(np.int64)
        p = self.probs.detach().numpy().astype(np.float64)
        return self._draw("binomial", self._extended_shape(sample_shape), self.probs, n=n, p=p)

    def log_prob(self, value):
        value = self._value(value, "log_prob")
        with self._scope("log_prob"):
            n, logits = self.total_count, self.logits
            clamped = (logits.clamp(min=0) + logits - logits.clamp(max=0)) / 2
            normalize = n * clamped + n * (-logits.abs()).exp().log1p() - (n + 1).lgamma()
            return value * logits - (value + 1).lgamma() - (n - value + 1).lgamma() \
                - normalize

    def _count(self, method: str) -> int:
        n = self.total_count.detach().numpy()
        if n.size and n.min() != n.max():
            raise NotImplementedError(f"Binomial.{method}: Inhomogeneous total count not "
                                      "supported (as in PyTorch): one total_count for the batch")
        return int(n.max()) if n.size else 0

    def enumerate_support(self, expand=True):
        """0, 1, ..., n as (n + 1, 1, ..., 1), expanded to (n + 1, *batch) by default; one n
        for the batch, as PyTorch's."""
        n = self._count("enumerate_support")
        values = C.arange(n + 1, dtype=self.probs.dtype, device=self.probs.device)
        values = values.reshape(-1, *(1,) * len(self._batch_shape))
        return values.expand(n + 1, *self._batch_shape) if expand else values

    def entropy(self):
        n = self._count("entropy")
        with self._scope("entropy"):
            k = C.arange(n + 1, dtype=self.probs.dtype, device=self.probs.device)
            k = k.reshape(-1, *(1,) * len(self._batch_shape))               # (n + 1, 1...)
            lp = self.log_prob(k)                                           # (n + 1, *batch)
            return -(lp.exp() * lp).sum(0)
