"""MixtureSameFamily, as ``torch.distributions.MixtureSameFamily``: a mixture of k
distributions of one family, the components side by side on the last batch axis of
``component_distribution``, picked with the probabilities of ``mixture_distribution`` (a
Categorical over k)::

    p(x) = Σ_j π_j p_j(x),      log p(x) = logsumexp_j (log π_j + log p_j(x))

log_prob is differentiable in the weights and every component's parameters, so a Gaussian
mixture can be fitted by gradient descent on −log_prob (the example in docs/api.md). The
base class and the KL registry are in :mod:`tinyffn.distributions`, which imports this file.
"""
from __future__ import annotations

from . import grad_mode
from .arguments import type_name
from .distributions import Constraint, Distribution
from .distributions_more import Categorical
from .sorting import _gathered
from .torch_functions import log_softmax


class _MixtureSameFamilyConstraint(Constraint):
    """The component support checked at the value with the component axis put back, one
    bool per draw: PyTorch's constraints.MixtureSameFamilyConstraint."""

    def __init__(self, base: Constraint):
        super().__init__("MixtureSameFamilyConstraint", None, base.event_dim)
        self.base_constraint = base

    is_discrete = property(lambda self: self.base_constraint.is_discrete)

    def check(self, value):
        if value.ndim < self.event_dim:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.ndim}")
        inside = self.base_constraint.check(value.unsqueeze(-1 - self.event_dim))
        keep = value.ndim - self.event_dim
        return inside.reshape(*inside.shape[:keep], -1).all(-1)

    def __repr__(self) -> str:
        return f"MixtureSameFamilyConstraint({self.base_constraint!r})"


class MixtureSameFamily(Distribution):
    """Σ_j π_j p_j: π from ``mixture_distribution`` (Categorical, batch shape B or ()),
    p_j the components of ``component_distribution`` (batch shape B + (k,)); batch_shape B,
    event_shape the components'. log_prob = logsumexp(log π + log p_j(x)); cdf = Σ π_j F_j(x);
    mean = Σ π_j μ_j; variance = Σ π_j σ_j² + Σ π_j (μ_j − μ)² (the law of total variance);
    sample: a component index from π, then that component's draw; no rsample (PyTorch's has
    none)."""

    arg_constraints: dict = {}

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of "
                             f"torch.distributions.Categorical (got "
                             f"{type_name(mixture_distribution)}): "
                             "tinyffn.distributions.Categorical(logits=...)")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an instance of "
                             "torch.distributions.Distribution (got "
                             f"{type_name(component_distribution)})")
        mdbs = mixture_distribution.batch_shape
        cdbs = component_distribution.batch_shape[:-1]
        for size1, size2 in zip(reversed(mdbs), reversed(cdbs)):
            if size1 != 1 and size2 != 1 and size1 != size2:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mdbs}) is not "
                                 "compatible with `component_distribution.batch_shape`"
                                 f"({cdbs})")
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1] if component_distribution.batch_shape \
            else None
        if km != kc:
            raise ValueError(f"`mixture_distribution component` ({km}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({kc})")
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        self._num_component = km
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(cdbs, component_distribution.event_shape, validate_args)

    mixture_distribution = property(lambda self: self._mixture_distribution)
    component_distribution = property(lambda self: self._component_distribution)
    support = property(lambda self: _MixtureSameFamilyConstraint(
        self._component_distribution.support))

    def expand(self, batch_shape, _instance=None):
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        batch_shape = tuple(batch_shape)
        new._component_distribution = self._component_distribution.expand(
            batch_shape + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._batch_shape = batch_shape
        return new

    def _pad(self, x):
        """x with a component axis before the event axes: (..., 1, *event)."""
        return x.unsqueeze(-1 - self._event_ndims)

    def _weights(self):
        """π (..., k, 1, ..., 1): one trailing 1 per event axis, to meet p_j's values."""
        probs = self._mixture_distribution.probs
        return probs.reshape(*probs.shape, *(1,) * self._event_ndims)

    @property
    def mean(self):
        with self._scope("mean"):
            w = self._weights()
            return (w * self._component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self):
        with self._scope("variance"):
            w, axis = self._weights(), -1 - self._event_ndims
            comp = self._component_distribution
            mean_cond_var = (w * comp.variance).sum(axis)
            var_cond_mean = (w * (comp.mean - self._pad(self.mean)) ** 2).sum(axis)
            return mean_cond_var + var_cond_mean

    def cdf(self, value):
        with self._scope("cdf"):
            cdf_x = self._component_distribution.cdf(self._pad(value))     # (*s, *B, k)
            return (cdf_x * self._mixture_distribution.probs).sum(-1)

    def log_prob(self, value):
        value = self._value(value, "log_prob")
        with self._scope("log_prob"):
            log_prob_x = self._component_distribution.log_prob(self._pad(value))  # (*s, *B, k)
            log_mix_prob = log_softmax(self._mixture_distribution.logits, -1)       # (*B, k)
            return (log_prob_x + log_mix_prob).logsumexp(-1)                         # (*s, *B)

    def sample(self, sample_shape=()):
        """Every component draws, then each draw keeps the one its index picked."""
        if isinstance(sample_shape, int):
            sample_shape = (sample_shape,)
        with grad_mode.no_grad():
            gather_dim = len(sample_shape) + len(self._batch_shape)
            es = self._event_shape
            mix_sample = self._mixture_distribution.sample(sample_shape)
            mdbs = self._mixture_distribution.batch_shape            # B, or its last axes
            mix_sample = mix_sample.reshape(*sample_shape, *(1,) * (gather_dim - mix_sample.ndim),
                                            *mdbs).expand(*sample_shape, *self._batch_shape)
            comp_samples = self._component_distribution.sample(sample_shape)    # (*s, *B, k, *e)
            index = mix_sample.reshape(*mix_sample.shape, 1, *(1,) * len(es))
            index = index.expand(*mix_sample.shape, 1, *es)
            # the index is the Categorical's draw, in [0, k) by making: the gather does not
            # range-check it (a read back, on a GPU a wait for every kernel queued)
            return _gathered(comp_samples, gather_dim, index).squeeze(gather_dim)

    def entropy(self):
        raise NotImplementedError("MixtureSameFamily has no closed-form entropy (PyTorch's "
                                  "has none either); estimate it as -log_prob(x).mean() over "
                                  "x = sample((n,))")

    def __repr__(self) -> str:
        return (f"MixtureSameFamily(\n  {self._mixture_distribution!r},\n  "
                f"{self._component_distribution!r})")
