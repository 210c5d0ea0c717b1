"""Batches for a training loop, as ``torch.utils.data``: a :class:`TensorDataset` of tensors
held in memory, split at random into a training and a validation :class:`Subset` by
:func:`random_split`, and a :class:`DataLoader` that walks one in batches, shuffled each
epoch::

    loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)
    for xb, yb in loader:               # xb: (32, d), yb: (32,), the last batch shorter
        ...

Only what a loop over tensors in memory needs: one process (``num_workers=0``), the
dataset's order or a shuffled one (no samplers), and PyTorch's ``default_collate``, which
stacks the samples of a batch into tensors. A shuffled order is a permutation drawn from
``generator=`` (a :class:`tinyffn.Generator`) or else the one :func:`tinyffn.manual_seed`
seeds, anew at the start of each epoch, so a seed gives the same batches again (not
PyTorch's batches: its generator differs). Nothing here is
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

__all__ = ["Dataset", "TensorDataset", "Subset", "random_split", "DataLoader",
           "default_collate"]


class Dataset:
    """A map-style dataset, as ``torch.utils.data.Dataset``: subclass it with
    ``__getitem__(index)``, a sample, and ``__len__()``, how many there are; a
    :class:`DataLoader` asks for indices 0 .. len - 1."""

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError(f"{type(self).__name__}: a Dataset subclass must define "
                                  "__getitem__(index), returning one sample")


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


def _converted(sample: Any) -> Any:
    """A sample of an unbatched loader, as PyTorch's ``default_convert``: NumPy arrays and
    numbers as tensors, inside dicts, lists and tuples too; a tuple as a list (a namedtuple
    stays one); the rest as it is."""
    if isinstance(sample, (np.ndarray, np.number, np.bool_)):
        return tensor(sample)
    if isinstance(sample, collections.abc.Mapping):
        return type(sample)({key: _converted(value) for key, value in sample.items()})
    if isinstance(sample, tuple) and hasattr(sample, "_fields"):
        return type(sample)(*[_converted(s) for s in sample])
    if isinstance(sample, (tuple, list)):
        return [_converted(s) for s in sample]
    return sample


class DataLoader:
    """The samples of ``dataset`` in batches of ``batch_size``, as
    ``torch.utils.data.DataLoader``: ``for xb, yb in DataLoader(TensorDataset(x, y), 32,
    shuffle=True)``. Each batch is ``collate_fn`` (by default :func:`default_collate`) of
    the list of its samples: for a TensorDataset, a list of tensors (B, ...), one per
    tensor. ``len(loader)`` is the number of batches: ceil(n / batch_size), or
    floor with ``drop_last=True`` (which leaves out a last, shorter batch).
    ``batch_size=None`` yields the samples one by one, unbatched (a tuple as a list, as
    PyTorch's ``default_convert`` gives it, or ``collate_fn`` of each).

    ``shuffle=True``: each epoch (each ``iter(loader)``) visits the samples in a new
    order, a permutation drawn from ``generator``, else from the one ``manual_seed``
    seeds. A TensorDataset
    with the default collate is read with one ``index_select`` (a ``getitem``) per tensor
    and batch, ``x[idx]``, which gives what stacking the samples gives. The arguments
    after ``shuffle`` are keyword-only (PyTorch's positional order runs through samplers
    tinyffn leaves out):
    ``num_workers`` only 0 (one process: tensors in memory need no workers),
    ``pin_memory`` is accepted and changes nothing (copies to the GPU are complete when
    they return)."""

    def __init__(self, dataset: Any, batch_size: int | None = 1, shuffle: bool | None = False,
                 *, num_workers: int = 0, collate_fn: Callable | None = None,
                 pin_memory: bool = False, drop_last: bool = False, generator: Any = None):
        if not (hasattr(dataset, "__getitem__") and hasattr(dataset, "__len__")):
            raise TypeError(f"DataLoader: dataset must have __getitem__ and __len__ (a "
                            f"TensorDataset, or a Dataset subclass), got {type_name(dataset)}; "
                            "iterable-style datasets are not in tinyffn")
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
        self.generator = generator
        if collate_fn is not None and not callable(collate_fn):
            raise TypeError(f"DataLoader: collate_fn must be callable, got "
                            f"{type_name(collate_fn)}")
        self.dataset, self.batch_size, self.shuffle = dataset, batch_size, bool(shuffle)
        self.drop_last, self.num_workers, self.pin_memory = drop_last, 0, pin_memory
        self.collate_fn = default_collate if collate_fn is None else collate_fn
        self._custom = collate_fn is not None

    def __len__(self) -> int:
        n = len(self.dataset)
        if self.batch_size is None:
            return n
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)

    def __iter__(self):
        n = len(self.dataset)
        order = seeded_generator(self.generator, "DataLoader").permutation(n) if self.shuffle \
            else np.arange(n)
        if self.batch_size is None:                 # unbatched: each sample converted
            for i in order:
                yield self.collate_fn(self.dataset[int(i)]) if self._custom else \
                    _converted(self.dataset[int(i)])
            return
        whole = type(self.dataset) is TensorDataset and self.collate_fn is default_collate
        for start in range(0, len(self) * self.batch_size, self.batch_size):
            idx = order[start:start + self.batch_size]                  # (B,)
            if whole:                  # one getitem per tensor: what stacking the rows gives
                yield [t.index_select(0, tensor(idx, device=t.device))         # (B, ...)
                       for t in self.dataset.tensors]
            else:
                yield self.collate_fn([self.dataset[int(i)] for i in idx])
