"""Multinomial and NegativeBinomial, as ``torch.distributions``'s (the base class and the KL
registry are in :mod:`tinyffn.distributions`, which imports this file; import from there).

Multinomial counts n draws of a Categorical into K bins; NegativeBinomial counts the
successes before ``total_count`` failures, a Poisson whose rate is Gamma distributed.
Multinomial draws on the device (its Categorical's inverse-CDF draws, counted);
NegativeBinomial's Poisson draws are NumPy's, on the host; neither has an rsample (as
PyTorch's).
"""
from __future__ import annotations

import math

import numpy as np

from . import creation as C
from . import grad_mode
from .activations_extra import logsigmoid
from .arguments import type_name
from .default_dtype import get_default_dtype
from .distributions import Distribution, _broadcast_all, _real
from .distributions_extra import Binomial, _derive, _nonnegative_integer
from .distributions_gamma import Gamma
from .distributions_more import Categorical, _one_of, _real_vector, _simplex
from .distributions_constraints import greater_than_eq, half_open_interval, multinomial
from .scatter import _scatter_added
from .tensor import Tensor
from .torch_functions import where
from .torch_shapes import broadcast_tensors


class Multinomial(Distribution):
    """Multinomial(n, p): the counts x (K,) of n = total_count draws of Categorical(p);
    log_prob(x) = lgamma(Σx + 1) − Σ lgamma(x + 1) + Σ x log p (0 · log 0 = 0: a count of 0
    where a logit is −inf adds 0); mean n p, variance n p (1 − p);
    entropy = n H(Categorical) − lgamma(n + 1) + Σ_i Σ_{k=1..n} Binomial(n, p_i)(k) lgamma(k + 1),
    as PyTorch's. One n (an int) for the whole batch, as PyTorch."""

    arg_constraints = {"probs": _simplex, "logits": _real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int) or isinstance(total_count, bool):
            raise NotImplementedError(f"Multinomial: inhomogeneous total_count is not "
                                      f"supported (as in PyTorch): give one int, got "
                                      f"{type_name(total_count)}")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args)

    probs = property(lambda self: self._categorical.probs)
    logits = property(lambda self: self._categorical.logits)
    param_shape = property(lambda self: self._categorical.param_shape)
    support = property(lambda self: multinomial(self.total_count))
    mean = property(lambda self: self.probs * self.total_count)
    variance = property(lambda self: self.total_count * self.probs * (1 - self.probs))

    _inner = ("_categorical",)          # expand() expands it too (Distribution.expand)

    def sample(self, sample_shape=()):
        """PyTorch's: total_count Categorical draws, counted into K bins by a scatter_add of
        ones, all on the device (the draws lie in [0, K) by making, so the scatter does not
        range-check them: nothing is read back, where a host draw read probs, a GPU wait)."""
        if isinstance(sample_shape, int):
            sample_shape = (sample_shape,)
        with grad_mode.no_grad():
            k = self._categorical.sample((self.total_count,) + tuple(sample_shape))
            k = k.permute(*range(1, k.ndim), 0)                       # (*s, *batch, n)
            counts = C.zeros(*self._extended_shape(sample_shape), dtype=self.probs.dtype,
                             device=self.probs.device)                # (*s, *batch, K)
            ones = C.ones(*k.shape, dtype=self.probs.dtype, device=self.probs.device)
            return _scatter_added(counts, counts.ndim - 1, k, ones)

    def log_prob(self, value):
        value = self._value(value, "log_prob")
        with self._scope("log_prob"):
            logits, value = broadcast_tensors(self.logits, value.to(dtype=self.logits.dtype))
            logits = where((value == 0) & (logits == -math.inf), 0.0, logits)
            return (value.sum(-1) + 1).lgamma() - (value + 1).lgamma().sum(-1) \
                + (logits * value).sum(-1)

    def entropy(self):
        n = self.total_count
        with self._scope("entropy"):
            term1 = n * self._categorical.entropy() - math.lgamma(n + 1)
            binomial = Binomial(n, probs=self.probs, validate_args=False)   # (*batch, K)
            k = C.arange(1, n + 1, dtype=self.probs.dtype, device=self.probs.device)
            k = k.reshape(-1, *(1,) * (len(self._batch_shape) + 1))      # (n, 1, ..., 1)
            weights = binomial.log_prob(k).exp() * (k + 1).lgamma()       # (n, *batch, K)
            return term1 + weights.sum(0).sum(-1)


class NegativeBinomial(Distribution):
    """NegativeBinomial(r = total_count, p): the number k of successes (each with probability
    p) before r failures; P(k) = Γ(k + r) / (k! Γ(r)) p^k (1 − p)^r, as PyTorch's
    log_prob = r logsigmoid(−logits) + k logsigmoid(logits) + lgamma(r + k) − lgamma(k + 1)
    − lgamma(r) (0 where r + k = 0); mean r e^logits = r p/(1 − p), variance mean/(1 − p),
    mode floor((r − 1) e^logits)⁺. Draws Poisson(Gamma(r, e^(−logits))), as PyTorch's."""

    arg_constraints = {"total_count": greater_than_eq(0), "probs": half_open_interval(0.0, 1.0),
                       "logits": _real}
    support = _nonnegative_integer
    _params = (("total_count", 0), ("probs", 0), ("logits", 0))

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        name, param = _one_of("NegativeBinomial", probs, logits)
        if isinstance(total_count, Tensor) and not total_count.backend.is_floating(
                total_count.dtype):                         # counts as int64, as Binomial
            total_count = total_count.to(dtype=param.dtype if isinstance(param, Tensor)
                                         else get_default_dtype())
        n, param = _broadcast_all("NegativeBinomial", total_count=total_count,
                                  **{name: param})
        self.total_count = n.to(dtype=param.dtype)
        setattr(self, name, param)
        self._given = ("total_count", name)
        super().__init__(param.shape, (), validate_args)
        _derive(self)

    param_shape = property(lambda self: getattr(self, self._given[1]).shape)
    mean = property(lambda self: self.total_count * self.logits.exp())
    variance = property(lambda self: self.mean / (-self.logits).sigmoid())

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    def sample(self, sample_shape=()):
        """Poisson draws at rates drawn from Gamma(total_count, e^(−logits)) (host NumPy)."""
        with self._scope("sample"):
            gamma = Gamma(self.total_count.detach(), (-self.logits.detach()).exp(),
                          validate_args=False)
            rate = gamma.sample(sample_shape).numpy().astype(np.float64)
        return self._draw("poisson", rate.shape, self.probs, lam=rate)

    def entropy(self):
        raise NotImplementedError("NegativeBinomial has no closed-form entropy (PyTorch's has "
                                  "none either); estimate it as -log_prob(x).mean() over "
                                  "x = sample((n,))")

    def log_prob(self, value):
        value = self._value(value, "log_prob")
        with self._scope("log_prob"):
            r, logits = self.total_count, self.logits
            value = value.to(dtype=logits.dtype)
            unnormalized = r * logsigmoid(-logits) + value * logsigmoid(logits)
            # r = k = 0: P(0) = 1, where PyTorch masks its inf − inf to 0; r read as 1 there
            # gives that 0 with no inf computed
            r_safe = where(r + value == 0.0, 1.0, r)
            norm = -(r_safe + value).lgamma() + (1.0 + value).lgamma() + r_safe.lgamma()
            return unnormalized - norm
