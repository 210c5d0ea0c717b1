"""``tinyffn.distributions.transforms``, as ``torch.distributions.transforms``: invertible
maps y = f(x) with log |det ∂y/∂x|, the pieces of a
:class:`~tinyffn.distributions.TransformedDistribution` (change of variables)::

    t(x)                          y = f(x)
    t.inv(y)                      x = f⁻¹(y) (t.inv is a Transform too: t.inv.inv is t)
    t.log_abs_det_jacobian(x, y)  log |det ∂y/∂x|, x's shape less t.domain.event_dim axes
    t.domain, t.codomain          the constraints x and y satisfy (event_dim: axes of one event)
    t.bijective, t.sign           one to one; +1 increasing, −1 decreasing (univariate)

With ``cache_size=1`` a transform keeps its last pair (x, y): ``t.inv(y)`` of the very y it
returned gives back that x object, no inverse computed (SAC: in float32, atanh(tanh(x)) is
7.97 at x = 8 and inf at x = 10; the cache keeps x exact and in the graph).

Every map is composed of tinyffn ops, so gradients flow through y and log |det J|.
"""
from __future__ import annotations

import math
import numbers

from . import creation as C
from .distributions import _broadcast_all
from .distributions_constraints import independent, positive, real, real_vector, simplex
from .distributions_constraints import interval as _interval_of
from .distributions_constraints import unit_interval
from .distributions_extra import _sum_rightmost
from .activations_extra import logsigmoid
from .functional_extra import pad, softplus
from .numerics import finfo
from .torch_shapes import broadcast_shapes


class Transform:
    """The base class: subclasses give ``_call(x)``, ``_inverse(y)`` and, when bijective,
    ``log_abs_det_jacobian(x, y)``; ``cache_size`` 0 (no cache) or 1 (the last (x, y))."""

    bijective = False
    domain = real
    codomain = real

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size, self._inv = cache_size, None
        if cache_size == 1:
            self._cached_x_y = None, None

    @property
    def event_dim(self) -> int:
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self) -> "Transform":
        """The inverse transform (``t.inv.inv is t``), made once."""
        if self._inv is None:
            self._inv = _InverseTransform(self)
        return self._inv

    @property
    def sign(self):
        raise NotImplementedError(f"{type(self).__name__}.sign is not defined")

    def with_cache(self, cache_size=1):
        """This transform with that cache size (itself if it has it already)."""
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __call__(self, x):
        """y = f(x); with cache_size=1 the y of the last x when x is that same object."""
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = x, y
        return y

    def _inv_call(self, y):
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = x, y
        return x

    def _call(self, x):
        raise NotImplementedError(f"{type(self).__name__} has no forward map")

    def _inverse(self, y):
        raise NotImplementedError(f"{type(self).__name__} has no inverse")

    def log_abs_det_jacobian(self, x, y):
        """log |det ∂y/∂x| at the pair (x, y = self(x))."""
        raise NotImplementedError(f"{type(self).__name__}.log_abs_det_jacobian is not "
                                  "defined (the transform is not bijective)")

    def forward_shape(self, shape):
        """The shape of y for an x of ``shape``."""
        return shape

    def inverse_shape(self, shape):
        """The shape of x for a y of ``shape``."""
        return shape

    def __repr__(self) -> str:
        return type(self).__name__ + "()"


class _InverseTransform(Transform):
    """f⁻¹ of a transform f: calls f's inverse (through f's cache), log|det| negated."""

    def __init__(self, transform: Transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    domain = property(lambda self: self._inv.codomain)
    codomain = property(lambda self: self._inv.domain)
    bijective = property(lambda self: self._inv.bijective)
    sign = property(lambda self: self._inv.sign)
    inv = property(lambda self: self._inv)

    def with_cache(self, cache_size=1):
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    __hash__ = object.__hash__

    def __call__(self, x):
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._inv!r})"


class ComposeTransform(Transform):
    """parts[-1] ∘ ... ∘ parts[0]: log|det J| the sum of the parts', each summed over the
    axes by which the composition's event is wider than that part's (PyTorch's)."""

    def __init__(self, parts, cache_size=0):
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = list(parts)

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = object.__hash__

    @property
    def domain(self):
        if not self.parts:
            return real
        domain = self.parts[0].domain
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim += part.domain.event_dim - part.codomain.event_dim
            event_dim = max(event_dim, part.domain.event_dim)
        return independent(domain, event_dim - domain.event_dim) \
            if event_dim > domain.event_dim else domain

    @property
    def codomain(self):
        if not self.parts:
            return real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim += part.codomain.event_dim - part.domain.event_dim
            event_dim = max(event_dim, part.codomain.event_dim)
        return independent(codomain, event_dim - codomain.event_dim) \
            if event_dim > codomain.event_dim else codomain

    bijective = property(lambda self: all(p.bijective for p in self.parts))

    @property
    def sign(self):
        sign = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    @property
    def inv(self):
        if self._inv is None:
            self._inv = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv._inv = self
        return self._inv

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return C.zeros_like(x)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        total, event_dim = None, self.domain.event_dim
        for part, x, y in zip(self.parts, xs[:-1], xs[1:]):
            term = _sum_rightmost(part.log_abs_det_jacobian(x, y),
                                  event_dim - part.domain.event_dim)
            total = term if total is None else total + term
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return total

    def forward_shape(self, shape):
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self) -> str:
        return type(self).__name__ + "(\n    " + ",\n    ".join(map(repr, self.parts)) + "\n)"


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """base_transform with its last ``reinterpreted_batch_ndims`` batch axes read as event
    axes: the same map, log|det J| summed over those axes."""

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims,
                                    cache_size=cache_size)

    domain = property(lambda self: independent(self.base_transform.domain,
                                               self.reinterpreted_batch_ndims))
    codomain = property(lambda self: independent(self.base_transform.codomain,
                                                 self.reinterpreted_batch_ndims))
    bijective = property(lambda self: self.base_transform.bijective)
    sign = property(lambda self: self.base_transform.sign)

    def _call(self, x):
        if x.ndim < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.ndim < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y),
                              self.reinterpreted_batch_ndims)

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_transform!r}, {self.reinterpreted_batch_ndims})"


class ReshapeTransform(Transform):
    """The event of shape in_shape reshaped to out_shape (same number of entries):
    log|det J| = 0, one per batch entry."""

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape, self.out_shape = tuple(in_shape), tuple(out_shape)
        if math.prod(self.in_shape) != math.prod(self.out_shape):
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    domain = property(lambda self: independent(real, len(self.in_shape)))
    codomain = property(lambda self: independent(real, len(self.out_shape)))

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x):
        return x.reshape(*x.shape[:x.ndim - len(self.in_shape)], *self.out_shape)

    def _inverse(self, y):
        return y.reshape(*y.shape[:y.ndim - len(self.out_shape)], *self.in_shape)

    def log_abs_det_jacobian(self, x, y):
        return C.zeros(x.shape[:x.ndim - len(self.in_shape)], dtype=x.dtype, device=x.device)

    def forward_shape(self, shape):
        return _swap_event(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return _swap_event(shape, self.out_shape, self.in_shape)


def _swap_event(shape, old, new):
    if len(shape) < len(old):
        raise ValueError("Too few dimensions on input")
    cut = len(shape) - len(old)
    if tuple(shape[cut:]) != old:
        raise ValueError(f"Shape mismatch: expected {tuple(shape[cut:])} but got {old}")
    return tuple(shape[:cut]) + new


class ExpTransform(Transform):
    """y = exp(x): log|det J| = x."""

    domain, codomain, bijective, sign = real, positive, True, 1

    def __eq__(self, other):
        return isinstance(other, ExpTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class PowerTransform(Transform):
    """y = x^exponent on x > 0: log|det J| = log |exponent · y / x|; sign that of exponent.
    Computed as exp(exponent · log x) (tinyffn's pow takes a number exponent only; x > 0
    here, so the two agree to rounding, and the gradient reaches a tensor exponent too)."""

    domain, codomain, bijective = positive, positive, True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        (self.exponent,) = _broadcast_all("PowerTransform", exponent=exponent)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    sign = property(lambda self: self.exponent.sign())

    def __eq__(self, other):
        return isinstance(other, PowerTransform) and bool((self.exponent == other.exponent)
                                                          .all().item())

    __hash__ = object.__hash__

    def _call(self, x):
        return (self.exponent * x.log()).exp()

    def _inverse(self, y):
        return (y.log() / self.exponent).exp()

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        return broadcast_shapes(shape, self.exponent.shape)

    inverse_shape = forward_shape


def _clipped_sigmoid(x):
    """sigmoid(x) in [tiny, 1 − eps], so that its inverse and logs stay finite."""
    info = finfo(x.dtype)
    return x.sigmoid().clamp(min=info.tiny, max=1.0 - info.eps)


class SigmoidTransform(Transform):
    """y = sigmoid(x) (clipped to [tiny, 1 − eps]): log|det J| = −softplus(−x) − softplus(x);
    inverse log y − log1p(−y) of y clipped the same way."""

    domain, codomain, bijective, sign = real, unit_interval, True, 1

    def __eq__(self, other):
        return isinstance(other, SigmoidTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return _clipped_sigmoid(x)

    def _inverse(self, y):
        info = finfo(y.dtype)
        y = y.clamp(min=info.tiny, max=1.0 - info.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        return -softplus(-x) - softplus(x)


class SoftplusTransform(Transform):
    """y = log(1 + eˣ): log|det J| = −softplus(−x); inverse log(−expm1(−y)) + y."""

    domain, codomain, bijective, sign = real, positive, True, 1

    def __eq__(self, other):
        return isinstance(other, SoftplusTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return softplus(x)

    def _inverse(self, y):
        return (-(-y).expm1()).log() + y

    def log_abs_det_jacobian(self, x, y):
        return -softplus(-x)


class TanhTransform(Transform):
    """y = tanh(x): log|det J| = log(1 − tanh²x) written stably as
    2 (log 2 − x − softplus(−2x)) (PyTorch's; 1 − y² rounds to 0 for large |x|);
    inverse atanh(y). SAC's squashed Gaussian: TanhTransform(cache_size=1)."""

    domain, codomain, bijective, sign = real, _interval_of(-1.0, 1.0), True, 1

    def __eq__(self, other):
        return isinstance(other, TanhTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return y.atanh()

    def log_abs_det_jacobian(self, x, y):
        return 2.0 * (math.log(2.0) - x - softplus(-2.0 * x))


class AbsTransform(Transform):
    """y = |x| (not bijective: the inverse returns y, the non-negative root)."""

    domain, codomain = real, positive

    def __eq__(self, other):
        return isinstance(other, AbsTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    """y = loc + scale · x over events of ``event_dim`` axes: log|det J| = Σ log |scale| over
    the event axes of scale (a number: every entry of x's), as PyTorch's."""

    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc, self.scale, self._event_dim = loc, scale, event_dim

    event_dim = property(lambda self: self._event_dim)
    domain = codomain = property(lambda self: real if self._event_dim == 0
                                 else independent(real, self._event_dim))

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self._event_dim, cache_size=cache_size)

    def __eq__(self, other):
        if not isinstance(other, AffineTransform):
            return False
        return all(a == b if isinstance(a, numbers.Number) and isinstance(b, numbers.Number)
                   else bool((a == b).all().item())
                   for a, b in ((self.loc, other.loc), (self.scale, other.scale)))

    __hash__ = object.__hash__

    @property
    def sign(self):
        if isinstance(self.scale, numbers.Number):
            return 1 if self.scale > 0 else -1 if self.scale < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        shape = x.shape
        if isinstance(self.scale, numbers.Number):
            result = C.full_like(x, math.log(abs(self.scale)))
        else:
            result = self.scale.abs().log()
        if self._event_dim:
            result = result.reshape(*result.shape[:result.ndim - self._event_dim], -1).sum(-1)
            shape = shape[:len(shape) - self._event_dim]
        return result.expand(*shape)

    def forward_shape(self, shape):
        return broadcast_shapes(shape, getattr(self.loc, "shape", ()),
                                getattr(self.scale, "shape", ()))

    inverse_shape = forward_shape


class SoftmaxTransform(Transform):
    """y = softmax(x) over the last axis (exp(x − max) / Σ); inverse log y (one of the
    preimages: softmax is not one to one), no log|det J|."""

    domain, codomain = real_vector, simplex

    def __eq__(self, other):
        return isinstance(other, SoftmaxTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        probs = (x - x.max(-1, True)[0]).exp()
        return probs / probs.sum(-1, True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape

    inverse_shape = forward_shape


class StickBreakingTransform(Transform):
    """K − 1 reals onto the K-simplex by stick breaking: z_k = sigmoid(x_k − log(K − k)),
    y_k = z_k Π_{j<k} (1 − z_j), the last y what is left; log|det J| =
    Σ (−x'_k + logsigmoid(x'_k) + log y_k), x' = x − log(K − k) (PyTorch's)."""

    domain, codomain, bijective = real_vector, simplex, True

    def __eq__(self, other):
        return isinstance(other, StickBreakingTransform)

    __hash__ = object.__hash__

    def _offset(self, x, n):
        return n - C.ones(x.shape[-1], dtype=x.dtype, device=x.device).cumsum(-1)

    def _call(self, x):
        z = _clipped_sigmoid(x - self._offset(x, x.shape[-1] + 1).log())
        z_cumprod = (1 - z).cumprod(-1)
        return pad(z, [0, 1], value=1) * pad(z_cumprod, [1, 0], value=1)  # (..., K)

    def _inverse(self, y):
        y_crop = y[..., :-1]                                               # (..., K − 1)
        sf = (1 - y_crop.cumsum(-1)).clamp(min=finfo(y.dtype).tiny)
        return y_crop.log() - sf.log() + self._offset(y_crop, y.shape[-1]).log()

    def log_abs_det_jacobian(self, x, y):
        x = x - self._offset(x, x.shape[-1] + 1).log()
        return (-x + logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return tuple(shape[:-1]) + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return tuple(shape[:-1]) + (shape[-1] - 1,)


# the rest of torch.distributions.transforms, named here too (they import this file's base)
from .distributions_transforms_more import (CatTransform,  # noqa: E402
                                            CorrCholeskyTransform,
                                            CumulativeDistributionTransform,
                                            LowerCholeskyTransform, PositiveDefiniteTransform,
                                            StackTransform)

__all__ = ["Transform", "ComposeTransform", "identity_transform", "IndependentTransform",
           "ReshapeTransform", "ExpTransform", "PowerTransform", "SigmoidTransform",
           "SoftplusTransform", "TanhTransform", "AbsTransform", "AffineTransform",
           "SoftmaxTransform", "StickBreakingTransform", "CatTransform", "StackTransform",
           "LowerCholeskyTransform", "PositiveDefiniteTransform", "CorrCholeskyTransform",
           "CumulativeDistributionTransform"]
