"""The Concrete / Gumbel-softmax relaxations of Bernoulli and Categorical (Maddison et al.,
2017; Jang et al., 2017), as ``torch.distributions``' (the base class and the KL registry
are in :mod:`tinyffn.distributions`, which imports this file; import from there).

A discrete gate (a mixture-of-experts router picking an expert) has no gradient through
its draw. The relaxation draws a point of the simplex instead, differentiable in the
logits::

    g_k = −log(−log u_k), u ~ U(0, 1)          Gumbel noise, one per category
    y = softmax((logits + g) / temperature)     RelaxedOneHotCategorical.rsample()

As the temperature goes to 0, y tends to the one-hot row of argmax(logits + g), which is a
Categorical(logits) draw (the Gumbel-max trick); a higher temperature gives smoother rows
and lower-variance gradients. ExpRelaxedCategorical is the same in log space
(log y = scores − logsumexp(scores)), with its density; RelaxedOneHotCategorical is its
ExpTransform. LogitRelaxedBernoulli / RelaxedBernoulli are the two-category case:
x = (logit(u) + logits)/temperature (logistic noise), y = sigmoid(x).
"""
from __future__ import annotations

import math

from . import creation as C
from .distributions import Distribution, _real
from .distributions_constraints import real_vector, simplex, unit_interval
from .distributions_extra import _derive, _logits_or_probs
from .distributions_more import Categorical, _clamp_probs, _interval, _real_vector, _simplex
from .distributions_transformed import TransformedDistribution
from .distributions_transforms import ExpTransform, SigmoidTransform
from .tensor import Tensor
from .torch_shapes import broadcast_tensors


def _temperature(temperature, like: Tensor) -> Tensor:
    """The temperature as a tensor (a number takes like's dtype and device)."""
    if isinstance(temperature, Tensor):
        return temperature
    return C.tensor(float(temperature), dtype=like.dtype, device=like.device)


class LogitRelaxedBernoulli(Distribution):
    """The logit of a RelaxedBernoulli draw: x = (logit(u) + logits) / temperature,
    u ~ U(0, 1) (both clamped to [eps, 1 − eps]); log p(x) = log t + d − 2 log1p(eᵈ),
    d = logits − t x (a logistic density). ``has_rsample`` is False, as PyTorch's, though
    ``rsample`` works."""

    arg_constraints = {"probs": _interval(0.0, 1.0), "logits": _real}
    support = _real
    _params = (("probs", 0), ("logits", 0))

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        param = _logits_or_probs(self, "LogitRelaxedBernoulli", probs, logits)
        self.temperature = _temperature(temperature, param)
        super().__init__(param.shape, (), validate_args)
        _derive(self)

    param_shape = property(lambda self: getattr(self, self._given[0]).shape)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = _clamp_probs(self._draw("random", shape, self.probs))
        with self._scope("rsample"):
            probs = _clamp_probs(self.probs.expand(*shape))
            return (u.log() - (-u).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value):
        value = self._value(value, "log_prob")
        with self._scope("log_prob"):
            logits, value = broadcast_tensors(self.logits, value)
            diff = logits - value * self.temperature
            return self.temperature.log() + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """sigmoid of a LogitRelaxedBernoulli draw (``base_dist``): values in (0, 1), a relaxed
    Bernoulli(probs) whose rsample is differentiable in probs/logits (and temperature)."""

    arg_constraints = {"probs": _interval(0.0, 1.0), "logits": _real}
    support = unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        super().__init__(LogitRelaxedBernoulli(temperature, probs, logits), SigmoidTransform(),
                         validate_args=validate_args)

    temperature = property(lambda self: self.base_dist.temperature)
    logits = property(lambda self: self.base_dist.logits)
    probs = property(lambda self: self.base_dist.probs)


class ExpRelaxedCategorical(Distribution):
    """The log of a RelaxedOneHotCategorical draw: scores = (logits + g)/t, g Gumbel noise
    (u clamped to [eps, 1 − eps]), x = scores − logsumexp(scores) (..., K); log p(x) =
    lgamma(K) + (K − 1) log t + Σ_k (s_k − logsumexp(s)), s = logits − t x (the Concrete
    density in log space). support ``real_vector`` (the draws lie on a submanifold of it)."""

    arg_constraints = {"probs": _simplex, "logits": _real_vector}
    support = real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = _temperature(temperature, self._categorical.logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args)

    param_shape = property(lambda self: self._categorical.param_shape)
    logits = property(lambda self: self._categorical.logits)
    probs = property(lambda self: self._categorical.probs)

    _inner = ("_categorical",)          # expand() expands it too (Distribution.expand)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)                   # (*sample, *batch, K)
        u = _clamp_probs(self._draw("random", shape, self.logits))
        with self._scope("rsample"):
            gumbels = -(-u.log()).log()
            scores = (self.logits + gumbels) / self.temperature
            return scores - scores.logsumexp(-1, keepdim=True)

    def log_prob(self, value):
        value = self._value(value, "log_prob")
        with self._scope("log_prob"):
            k = self._event_shape[0]
            logits, value = broadcast_tensors(self.logits, value)
            log_scale = math.lgamma(k) + self.temperature.log() * (k - 1)
            score = logits - value * self.temperature
            return (score - score.logsumexp(-1, keepdim=True)).sum(-1) + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    """exp of an ExpRelaxedCategorical draw (``base_dist``): a point of the K-simplex,
    softmax((logits + g)/temperature), the Gumbel-softmax; rsample differentiable in
    probs/logits and temperature; log_prob the Concrete density (validated on the simplex)."""

    arg_constraints = {"probs": _simplex, "logits": _real_vector}
    support = simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        super().__init__(ExpRelaxedCategorical(temperature, probs, logits,
                                               validate_args=validate_args),
                         ExpTransform(), validate_args=validate_args)

    temperature = property(lambda self: self.base_dist.temperature)
    logits = property(lambda self: self.base_dist.logits)
    probs = property(lambda self: self.base_dist.probs)
