"""``F.embedding_bag`` and ``nn.EmbeddingBag``, as PyTorch's: the rows of a table that the
indices of each *bag* pick, reduced to one row per bag (their sum, mean or max), without
the (bags, length, dim) tensor of ``embedding`` in between: a bag of words, the features
of a recommender.

Bags are given as PyTorch gives them: a 2-D input (B, N), B bags of N indices each, or a
1-D input with ``offsets``, where bag b is ``input[offsets[b]:offsets[b + 1]]`` (the last
runs to the end of input; with ``include_last_offset`` offsets has one more entry, the
end of the last bag). An empty bag gives a row of zeros.

A composition: each index's row is one ``embedding`` (a ``getitem`` of the table), its
bag a number per index, and the bags reduced with ``index_add`` (sum, mean) or
``scatter_reduce`` (max; ties share the gradient evenly, where PyTorch gives it all to
one of them). ``padding_idx``: those indices are left out of their bags, not counted in
a mean, and the table's row gets no gradient from here.

``max_norm`` and ``scale_grad_by_freq`` are ``F.embedding``'s (:mod:`tinyffn.embedding_lookup`):
every row the input reads (padding indices too, as PyTorch's) is first rescaled in the
table itself to norm at most max_norm; each row's gradient is divided by how many times
the input reads it (mode "max" refuses it, as PyTorch). PyTorch 2.13's CPU kernel divides
by another row's count where the rows are read unequally often (it indexes the counts
by the group's number in the sorted indices, not by its row): row 4 read once in
[1, 2, 1, 4, 1, 0, 2] gets 1/3 there, 1 here, as F.embedding gives it.
"""
from __future__ import annotations

import math
from typing import Any

from . import grad_mode
from .arguments import tensor_arg
from .backend import DEFAULTS, dtype_name
from .creation import tensor, zeros
from .embedding_lookup import _by_frequency, _check_options, _renorm_
from .functional_extra import _check_indices, _check_padding_idx, _lookup, _refuse_indices, \
    _table
from .generators import generator
from .module import Module, Parameter
from .ops.shape import CheckedKey, GetItem, IndexAdd
from .scatter import _index_added

MODES = ("sum", "mean", "max")


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """One row per bag: the ``mode`` ("sum", "mean" or "max") of the rows of ``weight``
    (num_embeddings, embedding_dim) that the bag's indices pick, as
    ``F.embedding_bag``. ``input`` (B, N) is B bags of N indices; a 1-D input is cut into
    bags at ``offsets`` (1-D int64, starting at 0, non-decreasing, at most len(input)).
    ``per_sample_weights`` (input's shape; mode "sum" only) scale each row first.
    ``padding_idx``: those indices are left out of their bags. Output (B, embedding_dim),
    weight's dtype. ``max_norm`` (with ``norm_type``): every row ``input`` reads is first
    rescaled, in ``weight`` itself, to norm at most max_norm; ``scale_grad_by_freq``: each
    row's gradient divided by how many times ``input`` reads it (not in mode "max", as
    PyTorch); both as ``F.embedding``'s. ``sparse=True`` is refused (no sparse tensors)."""
    return _bags("embedding_bag", input, weight, offsets, mode, per_sample_weights,
                 include_last_offset, padding_idx, max_norm, norm_type, scale_grad_by_freq,
                 sparse)


def _bags(op, idx, weight, offsets, mode, per_sample_weights, include_last_offset,
          padding_idx, max_norm=None, norm_type=2, scale_grad_by_freq=False, sparse=False):
    w = tensor_arg(op, "weight", weight)
    _check_options(op, max_norm, norm_type, scale_grad_by_freq, sparse)
    if mode not in MODES:
        raise ValueError(f"{op}: mode must be 'sum', 'mean' or 'max', got {mode!r}")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError(f"{op}: mode 'max' does not take scale_grad_by_freq (PyTorch: 'max "
                         "mode does not support scaling the gradient by the frequency'): a "
                         "bag's gradient goes to its largest entries alone; use mode 'sum' "
                         "or 'mean', or leave scale_grad_by_freq=False")
    w = _table(op, w, padding_idx)
    n = w.shape[0]
    tensor_arg(op, "input", idx)            # its indices are checked by the lookup below
    if idx.ndim not in (1, 2):
        raise ValueError(f"{op}: input must be 2-D (bags, indices) or 1-D with offsets, got "
                         f"shape {idx.shape}")
    scale = per_sample_weights
    if scale is not None:
        tensor_arg(op, "per_sample_weights", scale)
        if mode != "sum":
            raise ValueError(f"{op}: per_sample_weights scale rows that are summed: mode must "
                             f"be 'sum', got {mode!r} (as in PyTorch)")
        if scale.shape != idx.shape or scale.dtype != w.dtype:
            raise ValueError(f"{op}: per_sample_weights must have input's shape, "
                             f"{idx.shape}, and the table's dtype, {dtype_name(w.dtype)}; got "
                             f"{scale.shape}, {dtype_name(scale.dtype)}")
    xp = w.backend.xp
    if idx.ndim == 2:
        if offsets is not None:
            raise ValueError(f"{op}: input of shape {idx.shape} is {idx.shape[0]} bags of "
                             f"{idx.shape[1]} indices; offsets must be None (they cut a 1-D "
                             "input into bags)")
        (n_bags, length), read = idx.shape, idx.reshape(-1)
        if max_norm is not None:            # the range, before the table changes
            _check_indices(op, idx, w)
        length = max(length, 1)             # (bags of no index: one empty place each)
        bag = xp.reshape(xp.broadcast_to(xp.arange(n_bags)[:, None], idx.shape), (-1,))
        place = xp.reshape(xp.broadcast_to(xp.arange(length), idx.shape), (-1,))
    else:
        _check_indices(op, idx, w, read=False)          # the range: read in _cut's one read
        n_bags, bag, place, length = _cut(op, idx, offsets, include_last_offset, mode == "max",
                                          n)
        read = idx if bag.shape[0] == idx.shape[0] else idx[:0]     # (no bag: none read)
    if max_norm is not None:                # every index of input, as PyTorch's renorm
        _renorm_(w, idx, max_norm, norm_type)
    scale = None if scale is None else scale.reshape(-1)[:read.shape[0]]
    if padding_idx is not None:             # left out of their bags: one read, which ones
        kept = xp.nonzero(read.data != int(padding_idx) % n)[0]
        read, bag, place = _as_tensor(read.data[kept], w), bag[kept], place[kept]
        scale = None if scale is None else GetItem.apply(scale, key=CheckedKey((kept,)))
    with grad_mode.scope("function", "embedding_bag"):
        unread = idx.ndim == 2 and max_norm is None     # the range not yet checked
        rows = _lookup(op, read, w, None, unread)           # (entries kept, embedding_dim)
        if scale_grad_by_freq:              # the table's gradient / each row's count
            rows = _by_frequency(rows, read, n)
        if scale is not None:
            rows = rows * scale.unsqueeze(-1)
        if mode == "max":
            return _bag_max(rows, bag, place, n_bags, length)
        out = zeros(n_bags, w.shape[1], dtype=w.dtype, device=w.device)
        total = _index_added(out, 0, _as_tensor(bag, w), rows)
        if mode == "sum":
            return total
        count = xp.zeros(n_bags, dtype=w.dtype)
        w.backend.index_add(count, (bag,), xp.ones(bag.shape, dtype=w.dtype))
        return total / _as_tensor(xp.maximum(count, 1)[:, None], w)   # an empty bag: 0 / 1


def _bag_max(rows, bag, place, n_bags: int, length: int):
    """The max of each bag's rows: the rows laid out as (bags, longest bag, dim), each at
    (its bag, its place in it), -inf where none is, and amax over the middle axis; ties
    share the gradient (amax's rule). An empty bag is a row of zeros."""
    be, dim = rows.backend, rows.shape[1]
    xp = be.xp
    key = CheckedKey((bag[:, None], place[:, None], xp.arange(dim)[None, :]))
    laid = IndexAdd.apply(zeros(n_bags, length, dim, dtype=rows.dtype, device=rows.device),
                          rows, key=key)
    placed = xp.zeros((n_bags, length), dtype=xp.int64)
    be.index_add(placed, (bag, place), xp.ones(bag.shape, dtype=xp.int64))
    least = -math.inf if be.is_floating(rows.dtype) else int(xp.iinfo(rows.dtype).min)
    laid = laid.masked_fill(_as_tensor(placed == 0, rows)[..., None], least)
    empty = _as_tensor(xp.all(placed == 0, axis=1)[:, None], rows)
    return laid.amax(1).masked_fill(empty, 0)


def _cut(op: str, idx, offsets: Any, include_last_offset: bool, longest: bool, rows: int):
    """(number of bags, the bag of each index, its place in the bag, the longest bag's
    length when ``longest`` is asked): a 1-D input cut at offsets. One read from the device
    checks the offsets and the indices (in [0, rows), for the lookup) and finds the longest
    bag: on a GPU one wait for the kernels queued before, not three."""
    if offsets is None:
        raise ValueError(f"{op}: a 1-D input needs offsets, the start of each bag (1-D int64, "
                         "e.g. tinyffn.tensor([0, 3])); or give a 2-D input, one bag per row")
    o = tensor_arg(op, "offsets", offsets)
    if o.ndim != 1 or dtype_name(o.dtype) not in ("int64", "int32"):
        raise TypeError(f"{op}: offsets must be a 1-D int64 tensor, got shape {o.shape}, "
                        f"dtype {dtype_name(o.dtype)}")
    if o.device != idx.device:
        raise ValueError(f"{op}: offsets are on {o.device} but input on {idx.device}; move "
                         f"them with .to('{idx.device}')")
    xp, n, d = idx.backend.xp, idx.shape[0], _int64(o)
    if include_last_offset and not d.shape[0]:
        raise ValueError(f"{op}: with include_last_offset, offsets needs at least one entry "
                         "(the end of the input)")
    n_bags, end = (d.shape[0] - 1 if include_last_offset else d.shape[0]), n
    starts = d[:n_bags]
    ends = xp.concat([starts[1:], xp.asarray([end], dtype=xp.int64)]) if n_bags else starts
    zero = xp.asarray(0, dtype=xp.int64)
    bad = zero
    if d.shape[0]:
        last = (d[-1] == n) if include_last_offset else (d[-1] <= n)
        bad = xp.astype(~((d[0] == 0) & xp.all(d[1:] >= d[:-1]) & last), xp.int64)
    outside = xp.astype(xp.any((idx.data < 0) | (idx.data >= rows)), xp.int64)
    most = xp.max(ends - starts) if longest and n_bags else zero
    bad, outside, length = (int(v) for v in idx.backend.to_numpy(xp.stack([bad, outside, most])))
    if bad:
        raise ValueError(f"{op}: offsets must start at 0, never decrease and end at most at "
                         f"input's length {n} (bag b is input[offsets[b]:offsets[b + 1]]); "
                         f"with include_last_offset the last one is that length (PyTorch 2.13 "
                         f"reads entries past a smaller one into the last bag, or not, by dtype "
                         f"and mode); got {o.tolist()}")
    if outside:
        _refuse_indices(op, idx, rows)
    if not n_bags:                                  # no bag: no entry is in one
        return 0, xp.zeros(0, dtype=xp.int64), xp.zeros(0, dtype=xp.int64), 1
    marks = xp.zeros(end + 1, dtype=xp.int64)       # +1 where a bag (bar the first) starts
    idx.backend.index_add(marks, (starts[1:],), xp.ones(max(n_bags - 1, 0), dtype=xp.int64))
    bag = xp.cumulative_sum(marks, axis=0)[:end]
    place = xp.arange(end) - starts[bag] if end else bag
    return n_bags, bag, place, max(length, 1)


def _int64(o):
    return o.backend.xp.astype(o.data, o.backend.xp.int64)


def _as_tensor(array, like):
    """An index or mask array as a tinyffn Tensor on ``like``'s device."""
    from .tensor import Tensor       # tensor.py is imported by then
    return Tensor(array, _backend=like.backend)


class EmbeddingBag(Module):
    """One row per bag of indices: the sum, mean or max of the rows of a table W
    (num_embeddings, embedding_dim) that the bag picks, as PyTorch's ``nn.EmbeddingBag``;
    :func:`embedding_bag` with this table. W starts N(0, 1), as PyTorch's; the padding row
    (``padding_idx``) starts at zeros. Called as ``bag(input, offsets=None,
    per_sample_weights=None)``."""

    def __init__(self, num_embeddings: int, embedding_dim: int, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode="mean", sparse=False, _weight=None,
                 include_last_offset=False, padding_idx=None, *, device=None, dtype=None):
        super().__init__()
        from .nn import _check_size     # nn.py imports this file
        _check_size("EmbeddingBag", "num_embeddings", num_embeddings)
        _check_size("EmbeddingBag", "embedding_dim", embedding_dim)
        n = num_embeddings
        _check_padding_idx("EmbeddingBag", padding_idx, n)
        if mode not in MODES:
            raise ValueError(f"EmbeddingBag: mode must be 'sum', 'mean' or 'max', got {mode!r}")
        self.num_embeddings, self.embedding_dim, self.mode = n, embedding_dim, mode
        self.padding_idx = None if padding_idx is None else int(padding_idx) % n
        self.include_last_offset = include_last_offset
        _check_options("EmbeddingBag", max_norm, norm_type, scale_grad_by_freq, sparse)
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is not None:
            if tuple(_weight.shape) != (n, embedding_dim):
                raise ValueError(f"EmbeddingBag: _weight must have shape {(n, embedding_dim)}, "
                                 f"got {tuple(_weight.shape)}")
            self.weight = Parameter(_weight)
            return
        values = generator().standard_normal((n, embedding_dim))
        if self.padding_idx is not None:
            values[self.padding_idx] = 0
        self.weight = Parameter(tensor(values, dtype=dtype or DEFAULTS.float,
                                       device=device or "cpu"))

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, mode="mean", sparse=False,
                        include_last_offset=False, padding_idx=None) -> "EmbeddingBag":
        """An EmbeddingBag whose table is ``embeddings`` (its array shared, as PyTorch's);
        ``freeze=True``: no gradient."""
        tensor_arg("EmbeddingBag.from_pretrained", "embeddings", embeddings)
        if embeddings.ndim != 2:
            raise ValueError(f"EmbeddingBag.from_pretrained: embeddings must be 2-D "
                             f"(num_embeddings, embedding_dim), got shape {embeddings.shape}")
        module = cls(*embeddings.shape, max_norm, norm_type, scale_grad_by_freq, mode, sparse,
                     embeddings, include_last_offset, padding_idx)
        module.weight.requires_grad_(not freeze)
        return module

    def forward(self, input, offsets=None, per_sample_weights=None):
        return _bags("EmbeddingBag", input, self.weight, offsets, self.mode,
                     per_sample_weights, self.include_last_offset, self.padding_idx,
                     self.max_norm, self.norm_type, self.scale_grad_by_freq, self.sparse)

    def extra_repr(self) -> str:
        """As PyTorch prints it: the options left at their defaults are not shown."""
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm!r}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type!r}"
        if self.scale_grad_by_freq:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq!r}"
        s += f", mode={self.mode!r}"
        return s + ("" if self.padding_idx is None else f", padding_idx={self.padding_idx}")


__all__ = ["embedding_bag", "EmbeddingBag"]
