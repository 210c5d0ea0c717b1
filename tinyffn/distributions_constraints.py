"""``tinyffn.distributions.constraints``, as ``torch.distributions.constraints``: the sets of
values that distributions' ``arg_constraints`` and ``support`` name and that transforms'
``domain`` and ``codomain`` are, each a :class:`~tinyffn.distributions.Constraint` whose
``check(value)`` is a bool tensor and whose repr is PyTorch's::

    constraints.positive                     GreaterThan(lower_bound=0.0)
    constraints.interval(-1.0, 1.0)          Interval(lower_bound=-1.0, upper_bound=1.0)
    constraints.independent(positive, 1)     IndependentConstraint(GreaterThan(...), 1)

These are the objects tinyffn's distributions already hold (``Normal.arg_constraints["scale"]
is constraints.positive``), named; below them the matrix sets (``corr_cholesky``,
``positive_semidefinite``, ...) and the piecewise ``cat``/``stack``.
:func:`~tinyffn.distributions.biject_to` maps one to a transform from the reals onto it
(``distributions_transformed.py``).
"""
from __future__ import annotations

from . import creation as C
from .distributions import (Constraint, _greater_than, _interval, _less_than, _nonnegative,
                            _positive, _real)
from .distributions_extra import (_Independent, _nonnegative_integer, _one_hot,
                                  _reinterpreted_ndims)
from .distributions_more import (_boolean, _integer_interval, _lower_cholesky,
                                 _positive_definite, _simplex)
from .linalg import eigvalsh
from .numerics import finfo
from .torch_functions import where


class independent(_Independent):
    """``base_constraint`` over ``reinterpreted_batch_ndims`` more trailing axes: a value is
    inside where every entry of those axes is (PyTorch's ``constraints.independent``)."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        if not isinstance(base_constraint, Constraint):
            raise TypeError(f"constraints.independent: base_constraint must be a Constraint, "
                            f"got {type(base_constraint).__name__}")
        super().__init__(base_constraint, _reinterpreted_ndims("constraints.independent",
                                                               reinterpreted_batch_ndims))

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


def half_open_interval(lower_bound, upper_bound) -> Constraint:
    """lower_bound <= x < upper_bound: ``HalfOpenInterval(...)`` (NegativeBinomial's probs)."""
    return Constraint("HalfOpenInterval", lambda v, lower_bound, upper_bound:
                      (v >= lower_bound) & (v < upper_bound), lower_bound=lower_bound,
                      upper_bound=upper_bound)


def multinomial(upper_bound) -> Constraint:
    """Counts along the last axis, each >= 0, summing to at most upper_bound:
    ``Multinomial(upper_bound=...)`` (PyTorch's repr is ``Multinomial()``); event_dim 1."""
    return Constraint("Multinomial", lambda v, upper_bound: (v >= 0).all(-1)
                      & (v.sum(-1) <= upper_bound), event_dim=1, upper_bound=upper_bound)


def _corr_cholesky_check(v):
    """Lower triangular, positive diagonal, each row of unit length to 10 n eps (PyTorch's
    tolerance, n the row length)."""
    tol = finfo(v.dtype).eps * v.shape[-1] * 10
    unit_rows = (((v.detach() ** 2).sum(-1).sqrt() - 1.0).abs() <= tol).all(-1)
    return _lower_cholesky.check(v) & unit_rows


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


# ----------------------------------------------------------------------------- matrices, pieces
def _square_check(v):
    return C.full(v.shape[:-2], v.shape[-2] == v.shape[-1], dtype="bool", device=v.device)


def _symmetric_check(v):
    """Square and equal to its transpose to 1e-6; a non-square v is False everywhere (its
    squareness is its shape's: known on the host, no read of the device, as PyTorch's
    ``square_check.all()`` is)."""
    square = _square_check(v)
    if v.shape[-2] != v.shape[-1]:
        return square
    return v.isclose(v.mT, atol=1e-6).all(-2).all(-1)


def _positive_semidefinite_check(v):
    """Symmetric with eigenvalues >= 0. Where some matrix is not symmetric, PyTorch returns
    the symmetric check alone (a symmetric but indefinite matrix then passes): that choice
    is made here on the device, with ``where``, not by reading ``symmetric.all()`` back
    (a wait for a GPU); the matrices not symmetric (NaN too) give eigvalsh the identity."""
    symmetric = _symmetric_check(v)
    if v.shape[-2] != v.shape[-1]:
        return symmetric
    eye = C.eye(v.shape[-1], dtype=v.dtype, device=v.device)
    safe = where(symmetric.unsqueeze(-1).unsqueeze(-1), v, eye)       # (..., n, n)
    return symmetric & ((eigvalsh(safe) >= 0).all(-1) | ~symmetric.all())


lower_triangular = Constraint("LowerTriangular", lambda v: (v.tril() == v).all(-1).all(-1),
                              event_dim=2)
corr_cholesky = Constraint("CorrCholesky", _corr_cholesky_check, event_dim=2)
square = Constraint("Square", _square_check, event_dim=2)
symmetric = Constraint("Symmetric", _symmetric_check, event_dim=2)
positive_semidefinite = Constraint("PositiveSemidefinite", _positive_semidefinite_check,
                                   event_dim=2)


def _pieces(cseq) -> list:
    cseq = list(cseq)
    if not all(isinstance(c, Constraint) for c in cseq):
        raise AssertionError("All elements of cseq must be Constraint instances")
    return cseq


def _in_range(dim: int, value, what: str = "value") -> None:
    if not -value.ndim <= dim < value.ndim:
        raise AssertionError(f"dim {dim} out of range for {what} with {value.ndim} dimensions")


class cat(Constraint):
    """``cseq[i]`` on the i-th slice of ``lengths[i]`` entries along ``dim`` (as torch.cat
    joins them): ``Cat()``; event_dim the largest of cseq's (PyTorch's
    ``constraints.cat``)."""

    def __init__(self, cseq, dim=0, lengths=None):
        self.cseq = _pieces(cseq)
        self.lengths = [1] * len(self.cseq) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.cseq):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match cseq "
                                 f"({len(self.cseq)})")
        self.dim = dim
        super().__init__("Cat", None, max(c.event_dim for c in self.cseq))

    is_discrete = property(lambda self: any(c.is_discrete for c in self.cseq))

    def check(self, value):
        _in_range(self.dim, value)
        checks, start = [], 0
        for c, length in zip(self.cseq, self.lengths):
            checks.append(c.check(value.narrow(self.dim, start, length)))
            start = start + length
        return C.cat(checks, self.dim)


class stack(Constraint):
    """``cseq[i]`` on the i-th entry along ``dim`` (as torch.stack joins them): ``Stack()``
    (PyTorch's ``constraints.stack``)."""

    def __init__(self, cseq, dim=0):
        self.cseq, self.dim = _pieces(cseq), dim
        event_dim = max(c.event_dim for c in self.cseq)
        super().__init__("Stack", None, event_dim + 1 if dim + event_dim < 0 else event_dim)

    is_discrete = property(lambda self: any(c.is_discrete for c in self.cseq))

    def check(self, value):
        _in_range(self.dim, value)
        return C.stack([c.check(value.select(self.dim, i))
                        for i, c in zip(range(value.shape[self.dim]), self.cseq)], self.dim)
