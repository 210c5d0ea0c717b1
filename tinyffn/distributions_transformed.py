"""TransformedDistribution, as ``torch.distributions.TransformedDistribution``: draws of a
base distribution pushed through transforms, Y = f(X), with the density by the change of
variables

    log p_Y(y) = log p_X(x) − log |det ∂f/∂x|,   x = f⁻¹(y),

each transform's log|det J| summed over the event axes it does not own (PyTorch's
``_sum_rightmost`` bookkeeping). SAC's squashed Gaussian policy::

    pi = TransformedDistribution(Normal(mu, std), [TanhTransform(cache_size=1)])
    a = pi.rsample()                 # tanh(mu + std · eps), differentiable in mu and std
    pi.log_prob(a)                   # Normal's at atanh(a) (the cached x) − log(1 − a²)

And ``biject_to(constraint)`` / ``transform_to(constraint)``: a transform from the reals
onto a constraint's set (PyTorch's registries), to optimise a constrained parameter
unconstrained.
"""
from __future__ import annotations

import numbers

from . import grad_mode
from .arguments import type_name
from .distributions import Constraint, Distribution
from .distributions_constraints import independent
from .distributions_extra import Independent, _Independent, _sum_rightmost
from .distributions_transforms import (AffineTransform, ComposeTransform, ExpTransform,
                                       IndependentTransform, SigmoidTransform,
                                       SoftmaxTransform, StickBreakingTransform, Transform,
                                       identity_transform)
from .distributions_transforms_more import (CatTransform, CorrCholeskyTransform,
                                            LowerCholeskyTransform, PositiveDefiniteTransform,
                                            StackTransform)


class TransformedDistribution(Distribution):
    """base_distribution's draws through ``transforms`` (one Transform or a list, applied
    in order); log_prob by the change of variables; cdf/icdf through monotone transforms."""

    arg_constraints: dict = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        if not isinstance(base_distribution, Distribution):
            raise TypeError(f"TransformedDistribution: base_distribution must be a "
                            f"Distribution, got {type_name(base_distribution)}")
        if isinstance(transforms, Transform):
            self.transforms = [transforms]
        elif isinstance(transforms, list):
            if not all(isinstance(t, Transform) for t in transforms):
                raise ValueError("transforms must be a Transform or a list of Transforms")
            self.transforms = transforms
        else:
            raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
        base_shape = base_distribution.batch_shape + base_distribution.event_shape
        base_event_dim = len(base_distribution.event_shape)
        transform = ComposeTransform(self.transforms)
        if len(base_shape) < transform.domain.event_dim:
            raise ValueError(f"base_distribution needs to have shape with size at least "
                             f"{transform.domain.event_dim}, but got {base_shape}.")
        forward_shape = tuple(transform.forward_shape(base_shape))
        expanded_base_shape = tuple(transform.inverse_shape(forward_shape))
        if base_shape != expanded_base_shape:                  # a transform's parameters
            base_batch_shape = expanded_base_shape[:len(expanded_base_shape) - base_event_dim]
            base_distribution = base_distribution.expand(base_batch_shape)
        reinterpreted_batch_ndims = transform.domain.event_dim - base_event_dim
        if reinterpreted_batch_ndims > 0:
            base_distribution = Independent(base_distribution, reinterpreted_batch_ndims)
        self.base_dist = base_distribution
        change = transform.codomain.event_dim - transform.domain.event_dim
        event_dim = max(transform.codomain.event_dim, base_event_dim + change)
        cut = len(forward_shape) - event_dim
        super().__init__(forward_shape[:cut], forward_shape[cut:], validate_args)

    has_rsample = property(lambda self: self.base_dist.has_rsample)

    def _missing(self, what: str):
        """mean, mode, variance and entropy(): NotImplementedError, as PyTorch's (a subclass
        with a closed form overrides them)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement {what} (a "
                                  "TransformedDistribution has no general closed form, as in "
                                  "PyTorch); estimate it from rsample((n,)) draws")

    @property
    def support(self):
        """The last transform's codomain, over every event axis."""
        if not self.transforms:
            return self.base_dist.support
        support = self.transforms[-1].codomain
        if len(self.event_shape) > support.event_dim:
            support = independent(support, len(self.event_shape) - support.event_dim)
        return support

    def expand(self, batch_shape, _instance=None):
        """The base expanded to the batch shape the transforms map onto ``batch_shape``."""
        new = object.__new__(type(self))
        batch_shape = tuple(batch_shape)
        shape = batch_shape + self.event_shape
        for t in reversed(self.transforms):
            shape = tuple(t.inverse_shape(shape))
        new.base_dist = self.base_dist.expand(shape[:len(shape) - len(self.base_dist.event_shape)])
        new.transforms = self.transforms
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=()):
        """A base draw through the transforms, out of the graph."""
        with grad_mode.no_grad():
            x = self.base_dist.sample(sample_shape)
            for transform in self.transforms:
                x = transform(x)
            return x

    def rsample(self, sample_shape=()):
        x = self.base_dist.rsample(sample_shape)
        with self._scope("rsample"):
            for transform in self.transforms:
                x = transform(x)
            return x

    def log_prob(self, value):
        """log p_base(x) − Σ log|det J| along the inverse path from value back to x."""
        value = self._value(value, "log_prob")
        with self._scope("log_prob"):
            event_dim = len(self.event_shape)
            log_prob, y = 0.0, value
            for transform in reversed(self.transforms):
                x = transform.inv(y)
                event_dim += transform.domain.event_dim - transform.codomain.event_dim
                log_prob = log_prob - _sum_rightmost(transform.log_abs_det_jacobian(x, y),
                                                     event_dim - transform.domain.event_dim)
                y = x
            return log_prob + _sum_rightmost(self.base_dist.log_prob(y),
                                             event_dim - len(self.base_dist.event_shape))

    def _monotonize_cdf(self, value):
        """q, or 1 − q where the transforms decrease (their signs' product −1)."""
        sign = 1
        for transform in self.transforms:
            sign = sign * transform.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value):
        """The base's cdf at the inverse of value (1 − it where the map decreases)."""
        with self._scope("cdf"):
            for transform in self.transforms[::-1]:
                value = transform.inv(value)
            if self._validate_args:
                self.base_dist._validate_sample(value, "cdf")
            return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value):
        with self._scope("icdf"):
            value = self.base_dist.icdf(self._monotonize_cdf(value))
            for transform in self.transforms:
                value = transform(value)
            return value


def _bounds_transform(constraint, bijective: bool) -> Transform:
    name = constraint.name
    if name == "Real":
        return identity_transform
    if isinstance(constraint, _Independent):
        base = (biject_to if bijective else transform_to)(constraint.base)
        return IndependentTransform(base, constraint.n)
    if name == "IndependentConstraint":                 # real_vector of distributions_more
        return IndependentTransform(identity_transform, 1)
    if name in ("GreaterThan", "GreaterThanEq"):
        return ComposeTransform([ExpTransform(), AffineTransform(constraint.lower_bound, 1)])
    if name == "LessThan":
        return ComposeTransform([ExpTransform(), AffineTransform(constraint.upper_bound, -1)])
    if name in ("Interval", "HalfOpenInterval"):
        low, high = constraint.lower_bound, constraint.upper_bound
        if isinstance(low, numbers.Number) and low == 0 and \
                isinstance(high, numbers.Number) and high == 1:
            return SigmoidTransform()
        return ComposeTransform([SigmoidTransform(), AffineTransform(low, high - low)])
    if name == "Simplex":
        return StickBreakingTransform() if bijective else SoftmaxTransform()
    if name == "CorrCholesky":
        return CorrCholeskyTransform()
    if name in ("Cat", "Stack"):
        parts = [_bounds_transform(c, bijective) for c in constraint.cseq]
        return CatTransform(parts, constraint.dim, constraint.lengths) if name == "Cat" \
            else StackTransform(parts, constraint.dim)
    if not bijective and name == "LowerCholesky":
        return LowerCholeskyTransform()
    if not bijective and name in ("PositiveDefinite", "PositiveSemidefinite"):
        return PositiveDefiniteTransform()
    raise NotImplementedError(f"Cannot transform {name} constraints")


def biject_to(constraint) -> Transform:
    """A bijective transform from the reals onto ``constraint``'s set, as PyTorch's
    ``biject_to``: Real the identity, GreaterThan(Eq) exp then + lower_bound, LessThan
    upper_bound − exp, Interval and HalfOpenInterval sigmoid (then affine), Simplex stick
    breaking, CorrCholesky CorrCholeskyTransform, IndependentConstraint its base's over the
    extra axes, cat and stack a Cat/StackTransform of their pieces'."""
    if not isinstance(constraint, Constraint):
        raise TypeError(f"biject_to: expected a Constraint, got {type_name(constraint)}")
    return _bounds_transform(constraint, True)


def transform_to(constraint) -> Transform:
    """A transform from the reals onto ``constraint``'s set, not necessarily one to one
    (PyTorch's ``transform_to``): biject_to's, except softmax onto the Simplex, and (where
    biject_to has none) LowerCholeskyTransform onto LowerCholesky, PositiveDefiniteTransform
    onto PositiveDefinite and PositiveSemidefinite."""
    if not isinstance(constraint, Constraint):
        raise TypeError(f"transform_to: expected a Constraint, got {type_name(constraint)}")
    return _bounds_transform(constraint, False)
