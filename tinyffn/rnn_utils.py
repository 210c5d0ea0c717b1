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
gather (``getitem``) or one ``index_put``, so gradients pass through.
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .arguments import tensor_arg
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
    n = np.array(_lengths("pack_padded_sequence", lengths, x.shape[1], x.shape[0]))
    if (n < 1).any():
        raise ValueError(f"pack_padded_sequence: every length must be at least 1, got "
                         f"{n.tolist()}")
    if enforce_sorted:
        if (np.diff(n) > 0).any():
            raise ValueError(f"pack_padded_sequence: lengths {n.tolist()} must be in "
                             "decreasing order with enforce_sorted=True; sort the batch or "
                             "pass enforce_sorted=False")
        return _packed(x, n, None)
    return _packed(x, n, np.argsort(-n, kind="stable"))


def _packed(x: Tensor, n: Any, order: Any) -> PackedSequence:
    """x (L, N, *) with lengths n packed, the examples taken in ``order`` (None: as they
    are, sorted already)."""
    n = n if order is None else n[order]
    # the (time, example) of each packed entry: time-major, the running examples in order
    time = np.concatenate([np.full((n > t).sum(), t) for t in range(int(n.max()))])
    example = np.concatenate([np.arange((n > t).sum()) for t in range(int(n.max()))])
    column = example if order is None else order[example]
    rows = x.reshape(x.shape[0] * x.shape[1], *x.shape[2:])          # (L·N, *)
    data = rows.index_select(0, tensor(time * x.shape[1] + column, device=x.device))
    batch_sizes = tensor([(n > t).sum() for t in range(int(n.max()))], dtype="int64")
    if order is None:
        return PackedSequence(data, batch_sizes)
    return PackedSequence(data, batch_sizes, tensor(order, device=x.device),
                          tensor(np.argsort(order), device=x.device))


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False,
                        padding_value: float = 0.0, total_length: int | None = None) -> tuple:
    """A PackedSequence back as a padded batch and its lengths: ((L, N, *) or (N, L, *),
    int64 lengths), the examples in their original order; L the longest length, or
    ``total_length`` (at least that)."""
    if not isinstance(sequence, PackedSequence):
        raise TypeError(f"pad_packed_sequence: expected a PackedSequence, got "
                        f"{type(sequence).__name__}")
    data, sizes = sequence.data, np.asarray(sequence.batch_sizes.tolist(), dtype=np.int64)
    L, N = len(sizes), int(sizes[0]) if len(sizes) else 0
    if total_length is not None and total_length < L:
        raise ValueError(f"pad_packed_sequence: total_length={total_length} is shorter than "
                         f"the longest sequence, {L}")
    T = L if total_length is None else int(total_length)
    time = np.concatenate([np.full(k, t) for t, k in enumerate(sizes)])
    example = np.concatenate([np.arange(k) for k in sizes])
    lengths = np.array([(sizes > i).sum() for i in range(N)])          # sorted order
    out = data.new_full((T, N) + tuple(data.shape[1:]), padding_value)
    out = out.index_put((tensor(time, device=data.device), tensor(example, device=data.device)),
                        data)
    if sequence.unsorted_indices is not None:
        back = sequence.unsorted_indices
        out, lengths = out.index_select(1, back), lengths[np.asarray(back.tolist())]
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


def _lengths(op: str, lengths: Any, N: int, L: int) -> list:
    values = lengths.tolist() if isinstance(lengths, Tensor) else list(lengths)
    if len(values) != N or not all(isinstance(k, int) and 0 <= k <= L for k in values):
        raise ValueError(f"{op}: lengths must be {N} ints (one per example) in [0, {L}], got "
                         f"{values}")
    return values


__all__ = ["PackedSequence", "pad_sequence", "unpad_sequence", "pack_padded_sequence",
           "pad_packed_sequence", "pack_sequence", "unpack_sequence"]
