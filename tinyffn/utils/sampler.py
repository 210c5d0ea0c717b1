"""The samplers of ``torch.utils.data``, reached as ``tinyffn.utils.data.RandomSampler``
and so on: what decides which indices of a map-style dataset a
:class:`~tinyffn.utils.data.DataLoader` reads, and in what order.

A sampler is an iterable of indices (a batch sampler: of lists of indices), iterated
anew each epoch; ``len(sampler)`` is how many it yields. ``DataLoader(shuffle=True)`` is
``RandomSampler(dataset, generator=generator)`` inside a ``BatchSampler``, as PyTorch's.

Random orders are drawn from ``generator`` (a :class:`tinyffn.Generator`), else from
the one :func:`tinyffn.manual_seed` seeds, when iteration starts: NumPy's PCG64, so a
seed repeats a tinyffn order, not PyTorch's (nor does it consume the generator as
PyTorch's samplers do: one permutation per pass over the data, one draw of
``num_samples`` indices with replacement).
"""
from __future__ import annotations

import itertools
import math
from typing import Any, Iterable, Iterator

import numpy as np

from ..arguments import _is_int, type_name
from ..generators import generator as seeded_generator

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler"]


def _positive_int(op: str, name: str, value: Any, error: type = ValueError) -> int:
    if not _is_int(value) or value <= 0:
        raise error(f"{op}: {name} should be a positive integer value, but got "
                    f"{name}={value!r}")
    return int(value)


def _flag(op: str, name: str, value: Any, error: type = ValueError) -> bool:
    if not isinstance(value, bool):
        raise error(f"{op}: {name} should be a boolean value, but got {name}={value!r}")
    return value


class Sampler:
    """The base class of samplers, as ``torch.utils.data.Sampler``: subclass it with
    ``__iter__()``, yielding indices of a dataset (or lists of them, for a batch
    sampler), and ``__len__()`` if ``len(loader)`` is wanted."""

    def __iter__(self) -> Iterator:
        raise NotImplementedError(f"{type(self).__name__}: a Sampler subclass must define "
                                  "__iter__(), yielding indices")


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1, as ``torch.utils.data.SequentialSampler``: the
    order of a DataLoader without ``shuffle``."""

    def __init__(self, data_source: Any):
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """Indices of ``data_source`` in a random order, as ``torch.utils.data.RandomSampler``.
    Without ``replacement``: a permutation of 0 .. n - 1 (a new one each epoch), and for
    ``num_samples`` > n further permutations, the last cut short, so each index comes up
    num_samples // n or one more times. With ``replacement``: ``num_samples`` independent
    uniform draws from 0 .. n - 1. ``num_samples`` defaults to n = len(data_source), read
    each time (``.num_samples``), and must be positive."""

    def __init__(self, data_source: Any, replacement: bool = False,
                 num_samples: int | None = None, generator: Any = None):
        self.data_source, self._num_samples = data_source, num_samples
        self.replacement = _flag("RandomSampler", "replacement", replacement, TypeError)
        seeded_generator(generator, "RandomSampler")     # refuses what is no Generator
        self.generator = generator
        _positive_int("RandomSampler", "num_samples", self.num_samples)

    @property
    def num_samples(self) -> int:
        """How many indices an epoch yields: ``num_samples``, else len(data_source)."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n, k = len(self.data_source), self.num_samples
        rng = seeded_generator(self.generator, "RandomSampler")
        if self.replacement:
            yield from rng.integers(0, n, size=k).tolist()                      # (k,)
            return
        for _ in range(k // n):
            yield from rng.permutation(n).tolist()
        if k % n:
            yield from rng.permutation(n)[:k % n].tolist()

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The entries of ``indices`` in a random order (a new permutation each epoch), as
    ``torch.utils.data.SubsetRandomSampler``: a shuffled walk over part of a dataset,
    such as the validation indices of a split."""

    def __init__(self, indices: Any, generator: Any = None):
        seeded_generator(generator, "SubsetRandomSampler")
        self.indices, self.generator = indices, generator

    def __iter__(self) -> Iterator:
        order = seeded_generator(self.generator, "SubsetRandomSampler").permutation(
            len(self.indices))
        for i in order.tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices of 0 .. len(weights) - 1, index i with probability
    weights[i] / sum(weights), as ``torch.utils.data.WeightedRandomSampler``: draws of
    :func:`tinyffn.multinomial` over the weights (a float64 tensor, ``.weights``), with
    ``replacement`` (the default, so a rare class can be drawn again and again) or
    without (distinct indices, so num_samples <= len(weights)). The weights are checked
    when drawn, as PyTorch's: each >= 0 and finite, their sum > 0."""

    def __init__(self, weights: Any, num_samples: int, replacement: bool = True,
                 generator: Any = None):
        from ..creation import tensor
        self.num_samples = _positive_int("WeightedRandomSampler", "num_samples", num_samples)
        self.replacement = _flag("WeightedRandomSampler", "replacement", replacement)
        seeded_generator(generator, "WeightedRandomSampler")
        w = np.asarray(weights.numpy() if hasattr(weights, "numpy") else weights)
        if w.ndim != 1 or w.dtype.kind not in "biuf":
            raise ValueError(f"WeightedRandomSampler: weights should be a 1d sequence of "
                             f"numbers but given weights have shape {w.shape} and dtype {w.dtype}")
        self.weights = tensor(w, dtype="float64")                              # (n,)
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        from ..sampling import multinomial
        yield from multinomial(self.weights, self.num_samples, self.replacement,
                               generator=self.generator).tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Lists of ``batch_size`` indices from ``sampler`` (any iterable of indices), in its
    order, as ``torch.utils.data.BatchSampler``: ``BatchSampler(SequentialSampler(range(10)),
    3, False)`` yields [0, 1, 2], [3, 4, 5], [6, 7, 8], [9]; ``drop_last=True`` leaves
    out the last list if it is shorter. ``len``: ceil(len(sampler) / batch_size), floor
    with ``drop_last``."""

    def __init__(self, sampler: Iterable, batch_size: int, drop_last: bool):
        self.batch_size = _positive_int("BatchSampler", "batch_size", batch_size)
        self.drop_last = _flag("BatchSampler", "drop_last", drop_last)
        if not hasattr(sampler, "__iter__"):
            raise TypeError(f"BatchSampler: sampler must be an iterable of indices (a "
                            f"Sampler, a list), got {type_name(sampler)}")
        self.sampler = sampler

    def __iter__(self) -> Iterator[list]:
        indices = iter(self.sampler)
        batch = list(itertools.islice(indices, self.batch_size))
        while batch and (len(batch) == self.batch_size or not self.drop_last):
            yield batch
            batch = list(itertools.islice(indices, self.batch_size))

    def __len__(self) -> int:
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)
