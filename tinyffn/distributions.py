"""Probability distributions, as ``torch.distributions``: a VAE's reparameterised sample,
a policy's log-probability, a KL term.

Each distribution holds its parameters as tensors (numbers become tensors of the default
float dtype; parameters broadcast together into ``batch_shape``) and answers, as PyTorch's::

    d.sample(sample_shape)    draws of shape sample_shape + batch_shape + event_shape, no gradient
    d.rsample(sample_shape)   the same draws as a function of the parameters (reparameterised):
                              Normal: loc + scale · eps, eps ~ N(0, 1), so d/d loc = 1, d/d scale = eps
    d.log_prob(value)         log p(value), differentiable in value and the parameters
    d.entropy(), d.cdf(v), d.icdf(q), d.mean, d.mode, d.variance, d.stddev, d.expand(shape)
    kl_divergence(p, q)       KL(p ‖ q) = E_p[log p(x) − log q(x)], closed forms per pair

Everything is composed from tinyffn ops (no new primitive, so no new backward), inside a
frame named after the distribution and method. Draws come from the generator that
:func:`tinyffn.manual_seed` seeds (NumPy on the host, moved to the parameters' device), so a
seed fixes them on every backend (not PyTorch's values: its generator differs).

``validate_args`` is on by default, as in PyTorch: a parameter outside its constraint (a
scale <= 0, probs outside [0, 1]) and a ``log_prob`` value outside the support raise a
ValueError naming the distribution. ``Distribution.set_default_validate_args(False)`` turns
the checks off (each is a host read of a comparison).

This file: the base classes (Distribution, ExponentialFamily), the constraints, Normal,
Uniform, Laplace, Exponential and the KL registry; the other classes are in the
``distributions_*.py`` files (docs/source_map.md says which), the KL closed forms in
:mod:`tinyffn.distributions_kl`; transforms and constraints are named here as
``distributions.transforms`` and ``distributions.constraints``, as PyTorch's.
"""
from __future__ import annotations

import math
import sys
from typing import Any, Callable

import numpy as np

from . import backend as backends
from . import creation as C
from . import grad_mode
from .arguments import is_real, type_name
from .generators import generator as rng_of
from .tensor import Tensor
from .torch_functions import erf
from .torch_shapes import broadcast_tensors
from .torch_special import erfinv

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


# ----------------------------------------------------------------------------- constraints
class Constraint:
    """A set of allowed values: ``check(v)`` is a bool tensor, True where v is inside
    (reduced over ``event_dim`` trailing axes). Its repr is PyTorch's (``GreaterThan(...)``)."""

    def __init__(self, name: str, check: Callable, event_dim: int = 0, **bounds: Any):
        self.name, self._check, self.event_dim, self.bounds = name, check, event_dim, bounds

    def check(self, value):
        return self._check(value, **self.bounds)

    @property
    def is_discrete(self) -> bool:
        return self.name in ("Boolean", "OneHot", "IntegerInterval", "IntegerGreaterThan")

    def __getattr__(self, name: str):
        """A bound by its name, as PyTorch's attributes: ``interval(0, 1).upper_bound``."""
        bounds = self.__dict__.get("bounds", {})     # absent while copy/pickle rebuild it
        if name in bounds:
            return bounds[name]
        raise AttributeError(f"constraint {self.__dict__.get('name')} has no attribute "
                             f"{name!r}")

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={_shown(v)}" for k, v in self.bounds.items())
        return f"{self.name}({shown})"


def _shown(v: Any) -> Any:
    return (float(v.item()) if v.ndim == 0 else f"tensor of shape {v.shape}") \
        if isinstance(v, Tensor) else v


_real = Constraint("Real", lambda v: v == v)                       # not NaN
_positive = Constraint("GreaterThan", lambda v, lower_bound: v > lower_bound, lower_bound=0.0)
_nonnegative = Constraint("GreaterThanEq", lambda v, lower_bound: v >= lower_bound,
                          lower_bound=0.0)


def _interval(low, high) -> Constraint:
    return Constraint("Interval", lambda v, lower_bound, upper_bound:
                      (v >= lower_bound) & (v <= upper_bound), lower_bound=low, upper_bound=high)


def _less_than(high) -> Constraint:
    return Constraint("LessThan", lambda v, upper_bound: v < upper_bound, upper_bound=high)


def _greater_than(low) -> Constraint:
    return Constraint("GreaterThan", lambda v, lower_bound: v > lower_bound, lower_bound=low)


# ----------------------------------------------------------------------------- base class
class Distribution:
    """The base class, as ``torch.distributions.Distribution``: ``batch_shape`` (independent
    distributions side by side), ``event_shape`` (one draw's shape), argument checks, the
    shape of a draw, and the methods a subclass fills in."""

    has_rsample = has_enumerate_support = False
    arg_constraints: dict = {}
    support: Constraint | None = None
    _validate_default = True
    _params: tuple = ()                  # (attribute, event dims) that expand() broadcasts
    _inner: tuple = ()                   # distributions held inside, expanded alike

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn argument and sample checks on or off for distributions made from now on."""
        if value not in (True, False):
            raise ValueError(f"set_default_validate_args: expected True or False, got {value!r}")
        Distribution._validate_default = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape, self._event_shape = tuple(batch_shape), tuple(event_shape)
        self._validate_args = (Distribution._validate_default if validate_args is None
                               else bool(validate_args))
        if self._validate_args:
            for name, constraint in self.arg_constraints.items():
                if name not in self.__dict__:                 # derived, not given
                    continue
                value = self.__dict__[name]
                if not bool(constraint.check(value).all()):
                    raise ValueError(
                        f"Expected parameter {name} (Tensor of shape {value.shape}) of "
                        f"distribution {self!r} to satisfy the constraint {constraint!r}, but "
                        f"found invalid values:\n{value}")

    batch_shape = property(lambda self: self._batch_shape)
    event_shape = property(lambda self: self._event_shape)
    stddev = property(lambda self: self.variance.sqrt())

    def _extended_shape(self, sample_shape=()) -> tuple:
        if isinstance(sample_shape, int):
            sample_shape = (sample_shape,)
        return tuple(sample_shape) + self._batch_shape + self._event_shape

    def sample(self, sample_shape=()):
        """Draws of shape sample_shape + batch_shape + event_shape, out of the graph."""
        with grad_mode.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        raise NotImplementedError(f"{type(self).__name__} has no reparameterised sample "
                                  "(rsample); use sample(), which carries no gradient")

    def enumerate_support(self, expand=True):
        raise NotImplementedError(f"{type(self).__name__} has no enumerate_support")

    def sample_n(self, n: int):
        return self.sample((n,))

    def _missing(self, what: str):
        raise NotImplementedError(f"{type(self).__name__} does not implement {what}, as in "
                                  "PyTorch")

    # what a subclass fills in: NotImplementedError where it has none, as PyTorch's
    mean = property(lambda self: self._missing("mean"))
    mode = property(lambda self: self._missing("mode"))
    variance = property(lambda self: self._missing("variance"))

    def log_prob(self, value):
        self._missing("log_prob")

    def entropy(self):
        self._missing("entropy()")

    def cdf(self, value):
        self._missing("cdf")

    def icdf(self, value):
        self._missing("icdf")

    def perplexity(self):
        return self.entropy().exp()

    def expand(self, batch_shape, _instance=None):
        """The same distribution repeated over ``batch_shape`` (parameters expanded, no copy)."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        batch_shape = tuple(batch_shape)
        for name, event_dims in self._params:
            if name in self.__dict__:
                v = self.__dict__[name]
                setattr(new, name, v.expand(*(batch_shape + v.shape[v.ndim - event_dims:])))
        for name in self._inner:
            setattr(new, name, getattr(self, name).expand(batch_shape))
        new._batch_shape = batch_shape
        return new

    def _validate_sample(self, value, method: str = "log_prob"):
        """PyTorch's checks of a value given to log_prob/cdf: a tensor, broadcastable to
        batch_shape + event_shape, inside the support."""
        if not isinstance(value, Tensor):
            raise ValueError(f"The value argument to {method} must be a Tensor, got "
                             f"{type_name(value)}; wrap it with tinyffn.tensor(...)")
        expected = self._batch_shape + self._event_shape
        for i, j in zip(reversed(value.shape), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: "
                                 f"{value.shape} vs {expected} ({type(self).__name__}.{method})")
        if not bool(self.support.check(value).all()):
            raise ValueError(f"Expected value argument (Tensor of shape {value.shape}) to be "
                             f"within the support ({self.support!r}) of the distribution "
                             f"{self!r}, but found invalid values:\n{value}")

    def _value(self, value, method: str):
        if self._validate_args:
            self._validate_sample(value, method)
        return value

    def _draw(self, kind: str, shape: tuple, like: Tensor, **params) -> Tensor:
        """A leaf of NumPy draws ``rng.<kind>(size=shape, **params)`` in like's dtype, on
        like's device."""
        values = getattr(self._rng(), kind)(size=shape, **params)
        return C._filled(np.asarray(values), backends.dtype_name(like.dtype), like.device,
                         False)

    def _rng(self) -> np.random.Generator:
        return rng_of(None, type(self).__name__)

    def _scope(self, method: str):
        return grad_mode.scope("function", f"{type(self).__name__}.{method}")

    def __repr__(self) -> str:
        """PyTorch's: each given parameter, as a number when 0-d, else by its shape."""
        names = self.__dict__.get("_given") or [n for n in self.arg_constraints
                                                if n in self.__dict__]
        shown = ", ".join(f"{n}: {_shown(v) if v.ndim == 0 else v.shape}"
                          for n in names for v in [self.__dict__[n]])
        return f"{type(self).__name__}({shown})"


class ExponentialFamily(Distribution):
    """p(x) = exp(<t(x), θ> − F(θ) + k(x)), as torch's ExponentialFamily: a subclass gives θ
    (``_natural_params``, a tuple), F (``_log_normalizer(*θ)``) and E[k(x)]
    (``_mean_carrier_measure``); the entropy F − <θ, ∇F> − E[k] and the KL of two of one
    family follow, ∇F by autograd (distributions_kl.py)."""

    _natural_params = property(lambda self: _unset(self, "_natural_params"))
    _mean_carrier_measure = property(lambda self: _unset(self, "_mean_carrier_measure"))

    def _log_normalizer(self, *natural_params):
        _unset(self, "_log_normalizer")

    def entropy(self):
        with self._scope("entropy"):
            return _expfamily_entropy(self)


def _unset(d, name: str):
    raise NotImplementedError(f"{type(d).__name__} (an ExponentialFamily) must define {name}")


def _broadcast_all(op: str, **values: Any) -> list:
    """The values as tensors broadcast together: numbers take the first tensor's dtype and
    device (the default float dtype when none is a tensor), as PyTorch's broadcast_all."""
    like = next((v for v in values.values() if isinstance(v, Tensor)), None)
    out = []
    for name, v in values.items():
        if isinstance(v, Tensor):
            if not v.backend.is_floating(v.dtype):
                raise TypeError(f"{op}: {name} must be a float tensor, got dtype "
                                f"{backends.dtype_name(v.dtype)}; cast it with .float()")
        elif is_real(v) and not isinstance(v, bool):
            v = C.tensor(float(v), dtype=None if like is None else like.dtype,
                         device="cpu" if like is None else like.device)
        else:
            raise TypeError(f"{op}: {name} must be a Tensor or a number, got {type_name(v)}")
        out.append(v)
    try:
        return list(broadcast_tensors(*out)) if len(out) > 1 else out
    except ValueError as e:
        shapes = ", ".join(f"{n} {v.shape}" for n, v in zip(values, out))
        raise ValueError(f"{op}: the parameters' shapes do not broadcast together: "
                         f"{shapes}") from e


# ----------------------------------------------------------------------------- continuous
class Normal(ExponentialFamily):
    """N(loc, scale²): p(x) = exp(−(x − loc)² / (2 scale²)) / (scale √(2π)).

    log_prob = −(x − loc)² / (2 scale²) − log scale − log √(2π);
    entropy = ½ + log √(2π) + log scale; cdf = ½ (1 + erf((x − loc) / (scale √2)));
    rsample = loc + scale · eps."""

    arg_constraints = {"loc": _real, "scale": _positive}
    support = _real
    has_rsample = True
    _params = (("loc", 0), ("scale", 0))

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = _broadcast_all("Normal", loc=loc, scale=scale)
        super().__init__(self.loc.shape, (), validate_args)

    mean = mode = property(lambda self: self.loc)
    stddev = property(lambda self: self.scale)
    variance = property(lambda self: self.scale ** 2)

    def rsample(self, sample_shape=()):
        eps = self._draw("standard_normal", self._extended_shape(sample_shape), self.loc)
        with self._scope("rsample"):
            return self.loc + eps * self.scale

    def log_prob(self, value):
        value = self._value(value, "log_prob")
        with self._scope("log_prob"):
            return -((value - self.loc) ** 2) / (2 * self.scale ** 2) - self.scale.log() \
                - _LOG_SQRT_2PI

    def entropy(self):
        with self._scope("entropy"):
            return 0.5 + _LOG_SQRT_2PI + self.scale.log()

    def cdf(self, value):
        value = self._value(value, "cdf")
        with self._scope("cdf"):
            return 0.5 * (1 + erf((value - self.loc) / (self.scale * math.sqrt(2))))

    def icdf(self, value):
        with self._scope("icdf"):
            return self.loc + self.scale * erfinv(2 * value - 1) * math.sqrt(2)

    # as an exponential family: θ = (loc / scale², −1 / (2 scale²)), T(x) = (x, x²),
    # F(θ) = −θ1² / (4 θ2) + ½ log(−π / θ2), E[k] = 0 (the ½ log 2π of F)
    _mean_carrier_measure = 0
    _natural_params = property(lambda self: (self.loc / self.scale ** 2,
                                             -0.5 * (self.scale ** 2).reciprocal()))

    def _log_normalizer(self, x, y):
        return -0.25 * x ** 2 / y + 0.5 * (-math.pi / y).log()


# ----------------------------------------------------------------------------- KL
_KL_REGISTRY: dict = {}


def register_kl(type_p, type_q):
    """A decorator, as ``torch.distributions.register_kl``: ``@register_kl(Normal, Normal)``
    over ``def kl(p, q)`` makes kl_divergence use it for that pair (and subclasses)."""
    for t in (type_p, type_q):
        if not (isinstance(t, type) and issubclass(t, Distribution)):
            raise TypeError(f"register_kl: expected subclasses of Distribution, got {t!r}")

    def decorator(fn):
        _KL_REGISTRY[type_p, type_q] = fn
        return fn
    return decorator


def kl_divergence(p, q):
    """KL(p ‖ q) = E_p[log p(x) − log q(x)], batch_shape-shaped, from the closed form
    registered for the most specific pair of p's and q's classes (PyTorch's rule, in
    distributions_kl.py with the closed forms)."""
    fn = _dispatch_kl(type(p), type(q))
    if fn is not None:
        with grad_mode.scope("function", "kl_divergence"):
            return fn(p, q)
    raise NotImplementedError(f"kl_divergence: no closed form for {type(p).__name__} and "
                              f"{type(q).__name__}; register one with @register_kl("
                              f"{type(p).__name__}, {type(q).__name__}), or estimate it as "
                              "(p.log_prob(x) - q.log_prob(x)).mean() over x = p.rsample((n,))")


from .distributions_continuous import Exponential, Laplace, Uniform  # noqa: E402
from .distributions_more import Bernoulli, Categorical, MultivariateNormal  # noqa: E402
from .distributions_extra import (Binomial, Cauchy, Geometric, Gumbel,  # noqa: E402
                                  Independent, LogNormal, OneHotCategorical,
                                  OneHotCategoricalStraightThrough, Poisson)
from .distributions_gamma import Beta, Dirichlet, Gamma, StudentT  # noqa: E402
from . import distributions_constraints as constraints  # noqa: E402
from . import distributions_transforms as transforms  # noqa: E402
from .distributions_transforms import (AbsTransform, AffineTransform,  # noqa: E402
                                       ComposeTransform, ExpTransform, IndependentTransform,
                                       PowerTransform, ReshapeTransform, SigmoidTransform,
                                       SoftmaxTransform, SoftplusTransform,
                                       StickBreakingTransform, TanhTransform, Transform,
                                       identity_transform)
from .distributions_transformed import (TransformedDistribution, biject_to,  # noqa: E402
                                        transform_to)
from .distributions_family import (Chi2, FisherSnedecor, GeneralizedPareto,  # noqa: E402
                                   HalfCauchy, HalfNormal, InverseGamma, Kumaraswamy,
                                   LogisticNormal, Pareto, Weibull)
from .distributions_relaxed import (ExpRelaxedCategorical, LogitRelaxedBernoulli,  # noqa
                                    RelaxedBernoulli, RelaxedOneHotCategorical)
from .distributions_transforms_more import (CatTransform, CorrCholeskyTransform,  # noqa
                                            CumulativeDistributionTransform, StackTransform,
                                            LowerCholeskyTransform, PositiveDefiniteTransform)
from .distributions_mixture import MixtureSameFamily  # noqa: E402
from .distributions_counts import Multinomial, NegativeBinomial  # noqa: E402
from .distributions_unit import ContinuousBernoulli, VonMises  # noqa: E402
from .distributions_matrix import (LKJCholesky, LowRankMultivariateNormal,  # noqa: E402
                                   Wishart)
from .distributions_kl import _dispatch_kl, _expfamily_entropy  # noqa: E402
from . import distributions_kl_pareto  # noqa: E402
_KL_ONLY = (distributions_kl_pareto,)   # imported for its register_kl calls: Pareto's pairs

# distributions is a module, not a package: name constraints and transforms under it too, so
# that `from tinyffn.distributions.transforms import TanhTransform` works as with torch
sys.modules[__name__ + ".constraints"] = constraints
sys.modules[__name__ + ".transforms"] = transforms

__all__ = ["Distribution", "Normal", "Uniform", "Laplace", "Exponential", "Bernoulli",
           "Categorical", "MultivariateNormal", "Independent", "OneHotCategorical",
           "OneHotCategoricalStraightThrough", "LogNormal", "Gumbel", "Cauchy", "Poisson",
           "Geometric", "Binomial", "Gamma", "Beta", "Dirichlet", "StudentT",
           "kl_divergence", "register_kl", "TransformedDistribution", "biject_to",
           "transform_to", "constraints", "transforms", "Transform", "ComposeTransform",
           "IndependentTransform", "ReshapeTransform", "ExpTransform", "PowerTransform",
           "SigmoidTransform", "SoftplusTransform", "TanhTransform", "AbsTransform",
           "AffineTransform", "SoftmaxTransform", "StickBreakingTransform",
           "identity_transform", "HalfNormal", "HalfCauchy", "Pareto", "Weibull",
           "Kumaraswamy", "LogisticNormal", "InverseGamma", "Chi2", "FisherSnedecor",
           "GeneralizedPareto", "LogitRelaxedBernoulli", "RelaxedBernoulli",
           "ExpRelaxedCategorical", "RelaxedOneHotCategorical", "CatTransform",
           "StackTransform", "LowerCholeskyTransform", "PositiveDefiniteTransform",
           "CorrCholeskyTransform", "CumulativeDistributionTransform", "ExponentialFamily", "MixtureSameFamily", "Multinomial",
           "NegativeBinomial", "ContinuousBernoulli", "VonMises", "LowRankMultivariateNormal",
           "Wishart", "LKJCholesky"]
