"""The dataset classes of ``torch.utils.data`` that combine other datasets, and the two
kinds a :class:`~tinyffn.utils.data.DataLoader` reads, reached as
``tinyffn.utils.data.ConcatDataset`` and so on:

* a map-style :class:`Dataset` has ``__getitem__(index)`` and ``__len__()``; the loader
  asks for the indices a sampler gives (0 .. len - 1 in order, or shuffled);
* an :class:`IterableDataset` has ``__iter__()``, a stream of samples; the loader takes
  them in the order they come, batch_size at a time, with no sampler.

``ConcatDataset([a, b])`` (also ``a + b``) is a's samples, then b's; ``StackDataset(x, y)``
gives sample i as ``(x[i], y[i])`` (or a dict, from keywords); ``ChainDataset([s, t])``
(also ``s + t``) is the stream s, then the stream t. Nothing here draws random numbers or
computes: each sample is the one the inner dataset returns.
"""
from __future__ import annotations

import bisect
from typing import Any, Iterable

from ..arguments import _is_int, type_name

__all__ = ["Dataset", "IterableDataset", "ConcatDataset", "ChainDataset", "StackDataset"]


class Dataset:
    """A map-style dataset, as ``torch.utils.data.Dataset``: subclass it with
    ``__getitem__(index)``, a sample, and ``__len__()``, how many there are; a
    :class:`~tinyffn.utils.data.DataLoader` asks for indices 0 .. len - 1 (or what its
    ``sampler`` gives). ``a + b`` is ``ConcatDataset([a, b])``, as PyTorch's."""

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError(f"{type(self).__name__}: a Dataset subclass must define "
                                  "__getitem__(index), returning one sample")

    def __add__(self, other: Any) -> "ConcatDataset":
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A stream of samples, as ``torch.utils.data.IterableDataset``: subclass it with
    ``__iter__()``, which yields the samples (``__len__`` is optional: ``len(loader)``
    needs it). A DataLoader over one takes the samples in the order they come, in
    batches of ``batch_size`` (the last one shorter unless ``drop_last``); it takes no
    ``shuffle``, ``sampler`` or ``batch_sampler``. ``a + b`` is ``ChainDataset([a, b])``."""

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__}: an IterableDataset subclass must "
                                  "define __iter__(), yielding the samples")

    def __add__(self, other: Any) -> "ChainDataset":
        return ChainDataset([self, other])


class ConcatDataset(Dataset):
    """The samples of ``datasets`` one after the other, as ``torch.utils.data.ConcatDataset``:
    with lengths 3 and 4, samples 0-2 are the first's and 3-6 the second's 0-3.
    ``cumulative_sizes`` holds the running totals ([3, 7]): sample i is found by bisection
    in them. A negative index counts from the end, as PyTorch's (down to -len)."""

    def __init__(self, datasets: Iterable[Any]):
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ConcatDataset: datasets is empty; give at least one dataset "
                             "(PyTorch: 'datasets should not be an empty iterable')")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise TypeError(f"ConcatDataset: {type(d).__name__} is an IterableDataset, "
                                "which has no indices to concatenate; chain streams with "
                                "ChainDataset")
            if not (hasattr(d, "__getitem__") and hasattr(d, "__len__")):
                raise TypeError(f"ConcatDataset: each dataset needs __getitem__ and __len__, "
                                f"got {type_name(d)}")
        self.cumulative_sizes = self.cumsum(self.datasets)

    @staticmethod
    def cumsum(sequence: Iterable[Any]) -> list:
        """The running totals of the lengths: [3, 4] -> [3, 7]."""
        totals, s = [], 0
        for d in sequence:
            s += len(d)
            totals.append(s)
        return totals

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int) -> Any:
        if not _is_int(idx):
            raise TypeError(f"ConcatDataset: an index is an integer, got {type_name(idx)}")
        n = len(self)
        if idx < 0:
            if -idx > n:
                raise ValueError(f"ConcatDataset: index {idx} is below -{n}, the first of "
                                 f"{n} samples (PyTorch: 'absolute value of index should "
                                 "not exceed dataset length')")
            idx = n + idx
        if idx >= n:
            raise IndexError(f"ConcatDataset: index {idx} is outside the {n} samples")
        k = bisect.bisect_right(self.cumulative_sizes, idx)     # the dataset that holds idx
        return self.datasets[k][idx - (self.cumulative_sizes[k - 1] if k else 0)]


class ChainDataset(IterableDataset):
    """The streams of ``datasets`` (IterableDatasets) one after the other, as
    ``torch.utils.data.ChainDataset``; its length is the sum of theirs. Each is checked
    to be an IterableDataset when it is reached, as PyTorch's."""

    def __init__(self, datasets: Iterable[Any]):
        self.datasets = datasets

    def _checked(self, d: Any) -> Any:
        if not isinstance(d, IterableDataset):
            raise TypeError(f"ChainDataset: chains IterableDatasets only, got "
                            f"{type_name(d)}; join map-style datasets with ConcatDataset")
        return d

    def __iter__(self):
        for d in self.datasets:
            yield from self._checked(d)

    def __len__(self) -> int:
        return sum(len(self._checked(d)) for d in self.datasets)


class StackDataset(Dataset):
    """Sample i of several datasets of one length side by side, as
    ``torch.utils.data.StackDataset``: ``StackDataset(x, y)[i]`` is the tuple
    ``(x[i], y[i])``, ``StackDataset(image=x, label=y)[i]`` the dict
    ``{"image": x[i], "label": y[i]}``; ``datasets`` holds the tuple or the dict. Give
    them by position or by name, not both."""

    def __init__(self, *args: Any, **kwargs: Any):
        if args and kwargs:
            raise ValueError("StackDataset: give the datasets by position (samples as "
                             "tuples) or by keyword (samples as dicts), not both")
        if not (args or kwargs):
            raise ValueError("StackDataset: needs at least one dataset")
        self.datasets = args or kwargs
        lengths = [len(d) for d in (args or kwargs.values())]
        if len(set(lengths)) > 1:
            raise ValueError(f"StackDataset: the datasets have {lengths} samples; they must "
                             "have the same number (PyTorch: 'Size mismatch between "
                             "datasets')")
        self._length = lengths[0]

    def __getitem__(self, index: Any) -> Any:
        if isinstance(self.datasets, dict):
            return {key: d[index] for key, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __len__(self) -> int:
        return self._length
