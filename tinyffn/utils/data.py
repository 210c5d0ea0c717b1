"""Batches for a training loop, as ``torch.utils.data``: a :class:`TensorDataset` of tensors
held in memory, split at random into a training and a validation :class:`Subset` by
:func:`random_split`, and a :class:`DataLoader` that walks one in batches, shuffled each
epoch::

    loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)
    for xb, yb in loader:               # xb: (32, d), yb: (32,), the last batch shorter
        ...

One process (``num_workers=0``: there are no workers, so :func:`get_worker_info` is
None), PyTorch's samplers (``sampler=``, ``batch_sampler=``; ``shuffle=True`` is a
:class:`RandomSampler`), PyTorch's ``default_collate``, which stacks the samples of a
batch into tensors, and ``default_convert`` for unbatched samples. The samplers live in
``sampler.py``, ``Dataset``, ``IterableDataset`` and the datasets that combine others
in ``dataset.py``; this module gathers them under torch's names. A shuffled order is a
permutation drawn from ``generator=`` (a :class:`tinyffn.Generator`) or else the one
:func:`tinyffn.manual_seed` seeds, anew at the start of each epoch, so a seed gives the
same batches again (not PyTorch's batches: its generator differs). Nothing here is
differentiable in itself: a batch is an indexing (``getitem``) of the dataset's tensors,
and a ``stack`` of the samples, which the graph records if they require grad.
"""
from __future__ import annotations

import collections.abc
import math
from typing import Any, Callable

import numpy as np

from ..arguments import _is_int, type_name
from ..generators import generator as seeded_generator
from ..creation import stack, tensor
from ..tensor import Tensor
from .dataset import ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler,
                      SubsetRandomSampler, WeightedRandomSampler)

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ConcatDataset", "ChainDataset",
           "StackDataset", "Subset", "random_split", "Sampler", "SequentialSampler",
           "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler", "BatchSampler",
           "DataLoader", "default_collate", "default_convert", "get_worker_info"]


class TensorDataset(Dataset):
    """Samples that are rows of tensors, as ``torch.utils.data.TensorDataset``: sample i is
    ``(t[i] for t in tensors)``, a tuple, so all tensors need the same length along their
    first axis (the number of samples). ``tensors`` holds them, the tensors themselves."""

    def __init__(self, *tensors: Tensor):
        for t in tensors:
            if not isinstance(t, Tensor):
                raise TypeError(f"TensorDataset: takes tinyffn Tensors, got {type_name(t)}; "
                                "wrap it with tinyffn.tensor(...)")
            if t.ndim == 0:
                raise ValueError("TensorDataset: a 0-d tensor has no samples along a first "
                                 "axis; give each tensor one row per sample")
        if not tensors:
            raise ValueError("TensorDataset: needs at least one tensor")
        if len({t.shape[0] for t in tensors}) > 1:
            raise ValueError(f"TensorDataset: the tensors have {[t.shape[0] for t in tensors]} "
                             "samples (their first axes); they must have the same number, "
                             "one row per sample (PyTorch: 'Size mismatch between tensors')")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order, as
    ``torch.utils.data.Subset``: sample i is ``dataset[indices[i]]``. ``dataset`` and
    ``indices`` (a list of ints; a 1-D integer tensor is read as one, as in
    ``Subset(data, tinyffn.randperm(n)[:k])``) are kept as attributes, as PyTorch's."""

    def __init__(self, dataset: Any, indices: Any):
        if isinstance(indices, Tensor):     # its entries; floats or other ranks refused below
            indices = indices.tolist() if indices.ndim == 1 else [indices]
        indices = [int(i) for i in indices] if all(_is_int(i) for i in indices) else None
        if indices is None:
            raise TypeError("Subset: indices must be ints, positions in the dataset")
        n = len(dataset)
        outside = [i for i in indices if not -n <= i < n]
        if outside:
            raise IndexError(f"Subset: indices {outside[:5]} are outside a dataset of {n} "
                             "samples")
        self.dataset, self.indices = dataset, indices

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, list):                 # PyTorch's batched read: a list
            return [self.dataset[self.indices[i]] for i in index]
        return self.dataset[self.indices[index]]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(dataset: Any, lengths: Any, generator: Any = None) -> list:
    """``dataset`` split at random into non-overlapping :class:`Subset` s of the given
    ``lengths``, as ``torch.utils.data.random_split``: ``train, val = random_split(data,
    [0.9, 0.1])``. Lengths are counts that add up to ``len(dataset)``, or fractions that
    add up to 1, each made ``floor(n * f)`` and the samples left over given one at a time
    to the splits in turn from the first (PyTorch's rule, so the sizes are PyTorch's). The
    order is a permutation from ``generator`` (a :class:`tinyffn.Generator`), else from
    the one :func:`tinyffn.manual_seed` seeds; not PyTorch's permutation."""
    rng = seeded_generator(generator, "random_split")
    n, lengths = len(dataset), list(lengths)
    if not lengths or not all(_is_int(k) or isinstance(k, float) for k in lengths):
        raise TypeError(f"random_split: lengths must be ints (counts) or floats (fractions), "
                        f"got {lengths!r}")
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:          # as PyTorch: [1, 0] too
        if any(not 0 <= f <= 1 for f in lengths):
            raise ValueError(f"random_split: a fraction must be in [0, 1], got {lengths!r}")
        counts = [math.floor(n * f) for f in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
    if any(not _is_int(k) or k < 0 for k in lengths) or sum(lengths) != n:
        raise ValueError(f"random_split: lengths {lengths!r} must be counts >= 0 adding up to "
                         f"the {n} samples of the dataset, or fractions adding up to 1")
    order = rng.permutation(n).tolist()
    ends = np.cumsum(lengths).tolist()
    return [Subset(dataset, order[end - k:end]) for end, k in zip(ends, lengths)]


def default_collate(batch: list) -> Any:
    """A list of samples as one batch, as PyTorch's ``default_collate``: tensors are stacked
    along a new first axis ((B, ...) from B samples of shape (...)), Python floats become a
    float64 tensor and ints (and bools) an int64 (bool) one, as PyTorch's, NumPy arrays and
    numbers tensors of their dtype; a tuple or list of fields is collated field by field
    (giving a list, as PyTorch's; a namedtuple stays one), a dict key by key; strings stay
    as given (the loader's list, or a field's tuple, as PyTorch's)."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(batch)                                             # (B, ...)
    if isinstance(elem, np.ndarray):
        return stack([tensor(a) for a in batch])
    if isinstance(elem, float):
        return tensor(batch, dtype="float64")
    if isinstance(elem, (str, bytes)):           # also NumPy's str_: as given, as PyTorch's
        return batch                             # (the loader's list, a field's tuple)
    if isinstance(elem, (int, np.generic)):                     # bool, int, NumPy numbers
        return tensor(np.asarray(batch))
    if isinstance(elem, collections.abc.Mapping):
        return type(elem)({key: default_collate([d[key] for d in batch]) for key in elem})
    if isinstance(elem, collections.abc.Sequence):
        if len({len(sample) for sample in batch}) > 1:
            raise ValueError("default_collate: each sample of the batch must have the same "
                             f"number of fields, got {sorted({len(s) for s in batch})}")
        fields = [default_collate(samples) for samples in zip(*batch)]    # tuples
        return type(elem)(*fields) if hasattr(elem, "_fields") else fields
    raise TypeError(f"default_collate: a batch holds tensors, NumPy arrays, numbers, strings, "
                    f"dicts or sequences of them, got {type_name(elem)}; pass collate_fn")


def default_convert(data: Any) -> Any:
    """One sample made of tensors, as PyTorch's ``default_convert`` (what a DataLoader with
    ``batch_size=None`` gives each sample to): NumPy arrays and numbers become tensors of
    their dtype, inside dicts, lists and tuples too; a tuple becomes a list (a namedtuple
    stays one); tensors, Python numbers, strings and arrays of strings or objects stay as
    they are."""
    if isinstance(data, np.ndarray) and data.dtype.kind not in "SaUO" or \
            isinstance(data, (np.number, np.bool_)):
        return tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return type(data)({key: default_convert(value) for key, value in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*[default_convert(d) for d in data])
    if isinstance(data, (tuple, list)):
        return [default_convert(d) for d in data]
    return data


def get_worker_info() -> None:
    """None, as ``torch.utils.data.get_worker_info()`` returns in the main process: tinyffn
    makes every batch there (a DataLoader has no worker processes), so an
    IterableDataset that splits its stream by worker reads all of it."""
    return None


class DataLoader:
    """The samples of ``dataset`` in batches of ``batch_size``, as
    ``torch.utils.data.DataLoader``: ``for xb, yb in DataLoader(TensorDataset(x, y), 32,
    shuffle=True)``. Each batch is ``collate_fn`` (by default :func:`default_collate`) of
    the list of its samples: for a TensorDataset, a list of tensors (B, ...), one per
    tensor. ``len(loader)`` is the number of batches: ceil(n / batch_size), or
    floor with ``drop_last=True`` (which leaves out a last, shorter batch).
    ``batch_size=None`` yields the samples one by one, unbatched (each through
    :func:`default_convert`, or ``collate_fn``).

    The order, as PyTorch's: ``sampler`` (an iterable of indices) if given, else a
    :class:`RandomSampler` of ``generator`` with ``shuffle=True`` (a new permutation each
    epoch, from ``generator``, else from the one ``manual_seed`` seeds), else a
    :class:`SequentialSampler`; a :class:`BatchSampler` groups it into batches.
    ``batch_sampler`` (an iterable of lists of indices) replaces both, and then
    ``batch_size``, ``shuffle``, ``sampler`` and ``drop_last`` must be left as they are.
    An :class:`IterableDataset` is read in the order it yields, batch_size samples at a
    time (no sampler, no shuffle). A TensorDataset with the default collate is read with
    one ``index_select`` (a ``getitem``) per tensor and batch, ``x[idx]``, which gives
    what stacking the samples gives. ``num_workers`` only 0 (one process: tensors in
    memory need no workers), ``pin_memory`` is accepted and changes nothing (copies to
    the GPU are complete when they return); ``generator`` is keyword-only, as PyTorch's
    worker options before it are not taken."""

    def __init__(self, dataset: Any, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Any = None, batch_sampler: Any = None, num_workers: int = 0,
                 collate_fn: Callable | None = None, pin_memory: bool = False,
                 drop_last: bool = False, *, generator: Any = None):
        iterable = isinstance(dataset, IterableDataset)
        if not iterable and not hasattr(dataset, "__getitem__"):
            raise TypeError(f"DataLoader: dataset must have __getitem__ and __len__ (a "
                            f"TensorDataset, or a Dataset subclass), or be an "
                            f"IterableDataset, got {type_name(dataset)}; wrap a stream in an "
                            "IterableDataset subclass whose __iter__ yields the samples")
        if batch_size is not None and not (_is_int(batch_size) and batch_size > 0):
            raise ValueError(f"DataLoader: batch_size should be a positive integer value (or "
                             f"None, for samples one by one), but got batch_size={batch_size!r}")
        for name, value in (("shuffle", shuffle), ("drop_last", drop_last),
                            ("pin_memory", pin_memory)):
            if not isinstance(value, bool) and not (name == "shuffle" and value is None):
                raise TypeError(f"DataLoader: {name} must be True or False, got {value!r}")
        if not _is_int(num_workers) or num_workers < 0:
            raise ValueError(f"DataLoader: num_workers must be an integer >= 0, got "
                             f"{num_workers!r}")
        if num_workers > 0:
            raise ValueError(f"DataLoader: num_workers={num_workers} asks for worker "
                             "processes, which tinyffn does not have: batches are made in the "
                             "main process; pass num_workers=0 (tensors in memory need no "
                             "workers)")
        seeded_generator(generator, "DataLoader")          # refuses what is no Generator
        if collate_fn is not None and not callable(collate_fn):
            raise TypeError(f"DataLoader: collate_fn must be callable, got "
                            f"{type_name(collate_fn)}")
        self._check_order(dataset, iterable, batch_size, shuffle, sampler, batch_sampler,
                          drop_last)
        if batch_sampler is not None:
            batch_size, drop_last = None, False
        if sampler is None and not iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else \
                SequentialSampler(dataset)
        if batch_size is not None and not iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset, self.batch_size, self.shuffle = dataset, batch_size, bool(shuffle)
        self.sampler, self.batch_sampler, self.generator = sampler, batch_sampler, generator
        self.drop_last, self.num_workers, self.pin_memory = drop_last, 0, pin_memory
        batched = batch_sampler is not None or (iterable and batch_size is not None)
        self.collate_fn = collate_fn if collate_fn is not None else \
            default_collate if batched else default_convert

    @staticmethod
    def _check_order(dataset, iterable, batch_size, shuffle, sampler, batch_sampler,
                     drop_last) -> None:
        """PyTorch's refusals of order options that contradict each other."""
        if batch_size is None and drop_last:
            raise ValueError("DataLoader: batch_size=None option disables auto-batching and "
                             "is mutually exclusive with drop_last")
        if iterable:
            for name, value in (("shuffle", shuffle), ("sampler", sampler),
                                ("batch_sampler", batch_sampler)):
                if value is not None and value is not False:
                    raise ValueError(f"DataLoader with IterableDataset: expected unspecified "
                                     f"{name} option, but got {name}={value!r}; the stream's "
                                     "own order is the order (shuffle inside its __iter__)")
            return
        if sampler is not None and shuffle:
            raise ValueError("DataLoader: sampler option is mutually exclusive with shuffle: "
                             "the sampler gives the order; leave shuffle out (a RandomSampler "
                             "shuffles)")
        if batch_sampler is not None and (batch_size != 1 or shuffle or sampler is not None
                                          or drop_last):
            raise ValueError("DataLoader: batch_sampler option is mutually exclusive with "
                             "batch_size, shuffle, sampler, and drop_last: the batch sampler "
                             "gives each batch's indices; give those to it (BatchSampler("
                             "sampler, batch_size, drop_last))")
        if batch_sampler is None and sampler is None and not hasattr(dataset, "__len__"):
            raise TypeError(f"DataLoader: dataset ({type(dataset).__name__}) has no __len__, "
                            "which the default samplers need; define it, or pass sampler= "
                            "or batch_sampler=")

    def __len__(self) -> int:
        if isinstance(self.dataset, IterableDataset):
            n, b = len(self.dataset), self.batch_size
            return n if b is None else n // b if self.drop_last else math.ceil(n / b)
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)

    def __iter__(self):
        if isinstance(self.dataset, IterableDataset):
            yield from self._stream()
            return
        if self.batch_sampler is None:              # unbatched: each sample converted
            for i in self.sampler:
                yield self.collate_fn(self.dataset[i])
            return
        whole = type(self.dataset) is TensorDataset and self.collate_fn is default_collate
        for idx in self.batch_sampler:                                  # (B,) indices
            if whole and all(_is_int(i) and 0 <= i < len(self.dataset) for i in idx):
                idx = np.asarray(idx, dtype=np.int64)  # one getitem per tensor: what
                yield [t.index_select(0, tensor(idx, device=t.device))  # stacking gives
                       for t in self.dataset.tensors]                   # (B, ...) each
            elif callable(getattr(self.dataset, "__getitems__", None)):
                yield self.collate_fn(self.dataset.__getitems__(list(idx)))
            else:
                yield self.collate_fn([self.dataset[i] for i in idx])

    def _stream(self):
        """The batches of an IterableDataset: batch_size samples at a time, as they come."""
        samples = iter(self.dataset)
        if self.batch_size is None:
            for sample in samples:
                yield self.collate_fn(sample)
            return
        while batch := [s for _, s in zip(range(self.batch_size), samples)]:
            if self.drop_last and len(batch) < self.batch_size:
                return
            yield self.collate_fn(batch)
