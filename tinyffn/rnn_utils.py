"""``tinyffn.nn.utils.rnn``, as ``torch.nn.utils.rnn``: batches of sequences of different
lengths.

``pad_sequence`` stacks sequences (L_i, *) into one (L, N, *) tensor, each padded to the
longest; ``unpad_sequence`` cuts them out again. A *packed* sequence holds the same
entries without the padding: the examples sorted longest first, then time step by time
step, the entries of the examples still running at that step,

    data = [x_0[0], x_1[0], x_2[0], x_0[1], x_1[1], x_0[2], ...]     (lengths 3, 2, 1)
    batch_sizes = [3, 2, 1]                  (how many examples run at each step)

so a recurrent layer (``nn.RNN``, ``nn.LSTM``, ``nn.GRU``, which take one) never computes
on padding, and each example's final state is the one at its own last step.
``pack_padded_sequence`` and ``pad_packed_sequence`` go between the two forms, and keep
the examples' order (``sorted_indices`` and ``unsorted_indices``). Every conversion is one
gather (``getitem``) or one ``index_put``, so gradients pass through. Their indices are
made on the host, from the lengths and ``batch_sizes`` (both on the CPU, as PyTorch wants
them), so they are not range-checked on the device, and the examples' order is kept on the
host too: none reads from the device (on a GPU, a wait for every queued kernel).
"""
from __future__ import annotations

import weakref
from typing import Any, NamedTuple

import numpy as np

from .arguments import _is_int, tensor_arg
from .backend import dtype_name
from .creation import stack, tensor
from .tensor import Tensor


class PackedSequence(NamedTuple):
    """A batch of sequences without padding (see the module docstring), as PyTorch's:
    ``data`` (Σ lengths, *), ``batch_sizes`` (int64, on the CPU), and the permutation
    that sorted the examples longest first (``sorted_indices``) and its inverse
    (``unsorted_indices``), None when they came sorted."""
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None = None
    unsorted_indices: Tensor | None = None


def pad_sequence(sequences: Any, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """The sequences (each (L_i, *), same * and dtype) padded with ``padding_value`` to the
    longest and stacked: (L, N, *), or (N, L, *) with ``batch_first``; ``padding_side``
    'left' pads before each sequence. Differentiable (a ``pad`` and a ``stack``)."""
    from .functional_extra import pad            # it imports tensor.py, as this does
    seqs = list(sequences)
    if not seqs or not all(isinstance(s, Tensor) and s.ndim >= 1 for s in seqs):
        raise ValueError("pad_sequence: sequences must be a non-empty list of tinyffn Tensors "
                         "of at least one axis (L_i, *)")
    if padding_side not in ("right", "left"):
        raise ValueError(f"pad_sequence: padding_side must be 'right' or 'left', got "
                         f"{padding_side!r}")
    rest = seqs[0].shape[1:]
    if any(s.shape[1:] != rest for s in seqs):
        raise ValueError(f"pad_sequence: the sequences must share their trailing shape "
                         f"{rest}, got {[s.shape for s in seqs]}")
    L = max(s.shape[0] for s in seqs)
    padded = []
    for s in seqs:
        extra = (0, 0) * len(rest) + ((L - s.shape[0], 0) if padding_side == "left"
                                      else (0, L - s.shape[0]))
        padded.append(pad(s, extra, value=padding_value) if L > s.shape[0] else s)
    return stack(padded, dim=0 if batch_first else 1)


def unpad_sequence(padded_sequences: Tensor, lengths: Any, batch_first: bool = False) -> list:
    """The sequences of a padded batch, each cut to its length: a list of (L_i, *)."""
    x = tensor_arg("unpad_sequence", "padded_sequences", padded_sequences)
    x = x if batch_first else x.transpose(0, 1)                        # (N, L, *)
    n = _lengths("unpad_sequence", lengths, x.shape[0], x.shape[1])
    return [x[i, :k] for i, k in enumerate(n)]


def pack_padded_sequence(input: Tensor, lengths: Any, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """A padded batch (L, N, *) (or (N, L, *) with ``batch_first``) as a PackedSequence,
    each example cut to its length (1 <= length <= L). With ``enforce_sorted`` the lengths
    must be in decreasing order; else the examples are sorted here (stably) and the
    permutation kept."""
    x = tensor_arg("pack_padded_sequence", "input", input)
    x = x.transpose(0, 1) if batch_first else x                        # (L, N, *)
    n = np.array(_lengths("pack_padded_sequence", lengths, x.shape[1], x.shape[0], least=1))
    if enforce_sorted:
        if (np.diff(n) > 0).any():
            raise ValueError(f"pack_padded_sequence: lengths {n.tolist()} must be in "
                             "decreasing order with enforce_sorted=True; sort the batch or "
                             "pass enforce_sorted=False")
        return _packed(x, n, None)
    return _packed(x, n, np.argsort(-n, kind="stable"))


def _packed(x: Tensor, n: Any, order: Any, indices: tuple | None = None) -> PackedSequence:
    """x (L, N, *) with lengths n packed, the examples taken in ``order`` (None: as they
    are, sorted already); ``indices``, the (sorted_indices, unsorted_indices) tensors of
    ``order`` where they exist already (a recurrent layer's output keeps its input's)."""
    from .more_functions import _index_selected      # it imports tensor.py, as this does
    n = n if order is None else n[order]
    # the (time, example) of each packed entry: time-major, the running examples in order
    time = np.concatenate([np.full((n > t).sum(), t) for t in range(int(n.max()))])
    example = np.concatenate([np.arange((n > t).sum()) for t in range(int(n.max()))])
    column = example if order is None else order[example]
    rows = x.reshape(x.shape[0] * x.shape[1], *x.shape[2:])          # (L·N, *)
    # made here, inside L·N rows: not range-checked again (a read of the device)
    data = _index_selected(rows, 0, tensor(time * x.shape[1] + column, device=x.device))
    batch_sizes = tensor([(n > t).sum() for t in range(int(n.max()))], dtype="int64")
    if order is None:
        return PackedSequence(data, batch_sizes)
    if indices is None:
        back = np.argsort(order)
        indices = (_kept(tensor(order, device=x.device), order),
                   _kept(tensor(back, device=x.device), back))
    return PackedSequence(data, batch_sizes, *indices)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False,
                        padding_value: float = 0.0, total_length: int | None = None) -> tuple:
    """A PackedSequence back as a padded batch and its lengths: ((L, N, *) or (N, L, *),
    int64 lengths), the examples in their original order; L the longest length, or
    ``total_length`` (at least that)."""
    from .index_writes import _embedded              # they import tensor.py, as this does
    from .more_functions import _index_selected
    if not isinstance(sequence, PackedSequence):
        raise TypeError(f"pad_packed_sequence: expected a PackedSequence, got "
                        f"{type(sequence).__name__}")
    data, sizes = sequence.data, np.asarray(sequence.batch_sizes.tolist(), dtype=np.int64)
    L, N = len(sizes), int(sizes[0]) if len(sizes) else 0
    if sizes.ndim != 1 or (sizes < 1).any() or (np.diff(sizes) > 0).any() or \
            sizes.sum() != data.shape[0]:
        raise ValueError(f"pad_packed_sequence: batch_sizes must be positive, non-increasing "
                         f"and sum to data's {data.shape[0]} entries (of shape "
                         f"{tuple(data.shape)}), got {sizes.tolist()}")
    if total_length is not None and total_length < L:
        raise ValueError(f"pad_packed_sequence: total_length={total_length} is shorter than "
                         f"the longest sequence, {L}")
    T = L if total_length is None else int(total_length)
    time = np.concatenate([np.full(k, t) for t, k in enumerate(sizes)])
    example = np.concatenate([np.arange(k) for k in sizes])
    lengths = np.array([(sizes > i).sum() for i in range(N)])          # sorted order
    out = data.new_full((T, N) + tuple(data.shape[1:]), padding_value)
    # each (time, example) once, inside (T, N) by the checks of batch_sizes above: written
    # unchecked, as a range check and a look for a place named twice read the device
    places = tensor(np.stack([time, example]), device=data.device).data    # one copy: (2, K)
    out = _embedded("pad_packed_sequence", out, data, (places[0, :], places[1, :]))
    if sequence.unsorted_indices is not None:
        back = sequence.unsorted_indices
        order = _host_order("pad_packed_sequence", "unsorted_indices", back, N)
        out, lengths = _index_selected(out, 1, back), lengths[order]        # checked on the host
    out = out.transpose(0, 1) if batch_first else out
    return out, tensor(lengths, dtype="int64")


def pack_sequence(sequences: Any, enforce_sorted: bool = True) -> PackedSequence:
    """A list of sequences (L_i, *) as a PackedSequence: ``pad_sequence`` then
    ``pack_padded_sequence``."""
    seqs = list(sequences)
    return pack_padded_sequence(pad_sequence(seqs), [s.shape[0] for s in seqs],
                                enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list:
    """A PackedSequence as the list of its sequences, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return [padded[i, :k] for i, k in enumerate(lengths.tolist())]


def _lengths(op: str, lengths: Any, N: int, L: int, least: int = 0) -> list:
    """The lengths as N Python ints in [least, L]: a list, a tuple, a NumPy array (NumPy's
    integers too, as PyTorch takes them) or an integer tensor. ``least=1`` where an empty
    sequence has no place (a PackedSequence: each example has a first step)."""
    values = lengths.tolist() if isinstance(lengths, Tensor) else list(lengths)
    if len(values) != N or not all(_is_int(k) and least <= k <= L for k in values):
        why = (" (a packed sequence has no empty example: PyTorch's 'Length of all samples "
               "has to be greater than 0')" if least > 0 and len(values) == N
               and any(_is_int(k) and k < least for k in values) else "")
        raise ValueError(f"{op}: lengths must be {N} ints (one per example) in [{least}, {L}], "
                         f"got {values}{why}")
    return [int(k) for k in values]


# The host copies of the permutations tinyffn made (or read once): id of the device tensor ->
# (a weak reference to it, its array then, the copy). Reading one back from the device
# would be, on a GPU, a wait for every kernel queued before it.
_ON_HOST: dict = {}


def _kept(t: Tensor, order: Any) -> Tensor:
    """t, an int64 tensor of ``order``'s values, its host copy kept for :func:`_host_order`;
    the entry goes when t does."""
    key = id(t)
    _ON_HOST[key] = (weakref.ref(t, lambda _: _ON_HOST.pop(key, None)), t.data, order)
    return t


def _host_order(op: str, name: str, t: Tensor, N: int) -> Any:
    """The values of a PackedSequence's ``sorted_indices`` or ``unsorted_indices`` as a
    NumPy array: the copy kept when tinyffn made them (or one read before), else read from
    the device once and checked to lie in [0, N) (a device gather would wrap one around)."""
    entry = _ON_HOST.get(id(t))
    if entry is not None and entry[0]() is t and entry[1] is t.data:   # a new array: new values
        return entry[2]
    if not isinstance(t, Tensor) or t.ndim != 1 or dtype_name(t.dtype) not in ("int64",
                                                                              "int32"):
        got = (f"{dtype_name(t.dtype)} of shape {t.shape}" if isinstance(t, Tensor)
               else type(t).__name__)
        raise TypeError(f"{op}: {name} must be a 1-D int64 tensor (a permutation of the "
                        f"batch), got {got}")
    order = np.asarray(t.tolist(), dtype=np.int64)
    if ((order < 0) | (order >= N)).any():
        raise IndexError(f"{op}: {name} must hold indices in [0, {N}) for a batch of {N} "
                         f"sequences, got {order.tolist()}")
    _kept(t, order)
    return order


__all__ = ["PackedSequence", "pad_sequence", "unpad_sequence", "pack_padded_sequence",
           "pad_packed_sequence", "pack_sequence", "unpack_sequence"]
