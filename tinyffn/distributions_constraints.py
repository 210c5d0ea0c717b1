"""``tinyffn.distributions.constraints``, as ``torch.distributions.constraints``: the sets of
values that distributions' ``arg_constraints`` and ``support`` name and that transforms'
``domain`` and ``codomain`` are, each a :class:`~tinyffn.distributions.Constraint` whose
``check(value)`` is a bool tensor and whose repr is PyTorch's::

    constraints.positive                     GreaterThan(lower_bound=0.0)
    constraints.interval(-1.0, 1.0)          Interval(lower_bound=-1.0, upper_bound=1.0)
    constraints.independent(positive, 1)     IndependentConstraint(GreaterThan(...), 1)

These are the objects tinyffn's distributions already hold (``Normal.arg_constraints["scale"]
is constraints.positive``), named. :func:`~tinyffn.distributions.biject_to` maps one to a
transform from the reals onto it (``distributions_transformed.py``).
"""
from __future__ import annotations

from .distributions import (Constraint, _greater_than, _interval, _less_than, _nonnegative,
                            _positive, _real)
from .distributions_extra import _Independent, _nonnegative_integer, _one_hot
from .distributions_more import (_boolean, _integer_interval, _lower_cholesky,
                                 _positive_definite, _simplex)


class independent(_Independent):
    """``base_constraint`` over ``reinterpreted_batch_ndims`` more trailing axes: a value is
    inside where every entry of those axes is (PyTorch's ``constraints.independent``)."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        if not isinstance(base_constraint, Constraint):
            raise TypeError(f"constraints.independent: base_constraint must be a Constraint, "
                            f"got {type(base_constraint).__name__}")
        n = reinterpreted_batch_ndims
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise ValueError(f"constraints.independent: reinterpreted_batch_ndims must be an "
                             f"int >= 0, got {n!r}")
        super().__init__(base_constraint, n)

    base_constraint = property(lambda self: self.base)
    reinterpreted_batch_ndims = property(lambda self: self.n)


def interval(lower_bound, upper_bound) -> Constraint:
    """lower_bound <= x <= upper_bound: ``Interval(lower_bound=..., upper_bound=...)``."""
    return _interval(lower_bound, upper_bound)


def greater_than(lower_bound) -> Constraint:
    """x > lower_bound: ``GreaterThan(lower_bound=...)``."""
    return _greater_than(lower_bound)


def greater_than_eq(lower_bound) -> Constraint:
    """x >= lower_bound: ``GreaterThanEq(lower_bound=...)``."""
    return Constraint("GreaterThanEq", lambda v, lower_bound: v >= lower_bound,
                      lower_bound=lower_bound)


def less_than(upper_bound) -> Constraint:
    """x < upper_bound: ``LessThan(upper_bound=...)``."""
    return _less_than(upper_bound)


def integer_interval(lower_bound, upper_bound) -> Constraint:
    """An integer in [lower_bound, upper_bound]: ``IntegerInterval(...)``."""
    return _integer_interval(lower_bound, upper_bound)


real = _real
real_vector = independent(real, 1)
positive = _positive
nonnegative = _nonnegative
unit_interval = _interval(0.0, 1.0)
simplex = _simplex
boolean = _boolean
one_hot = _one_hot
nonnegative_integer = _nonnegative_integer
positive_integer = Constraint("IntegerGreaterThan", lambda v, lower_bound:
                              (v == v.floor()) & (v >= lower_bound), lower_bound=1)
lower_cholesky = _lower_cholesky
positive_definite = _positive_definite
