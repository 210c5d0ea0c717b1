"""nn.utils.rnn (tinyffn/rnn_utils.py): pad_sequence, unpad_sequence, pack_padded_sequence,
pad_packed_sequence, pack_sequence, unpack_sequence.

References: the packed layout written out by hand (time-major, the running sequences
longest first); round trips; gradients through packing and padding (each entry's
gradient comes back to where it came from); PyTorch 2.13 live where installed; the errors.
"""
import numpy as np
import pytest

import tinyffn
from tinyffn.nn.utils import rnn

r = np.random.default_rng(0)
SEQS = [r.standard_normal((n, 2)) for n in (3, 5, 2)]


def _tensors(device="cpu", requires_grad=False):
    return [tinyffn.tensor(s, device=device, requires_grad=requires_grad) for s in SEQS]


def test_the_packed_layout_by_hand(device):
    """Lengths 3, 5, 2, sorted longest first (5, 3, 2: examples 1, 0, 2); step t holds the
    sequences still running at t."""
    packed = rnn.pack_sequence(_tensors(device), enforce_sorted=False)
    assert packed.batch_sizes.tolist() == [3, 3, 2, 1, 1]
    assert packed.sorted_indices.tolist() == [1, 0, 2]
    assert packed.unsorted_indices.tolist() == [1, 0, 2]
    want = []
    for t in range(5):
        want += [SEQS[i][t] for i in (1, 0, 2) if t < len(SEQS[i])]
    np.testing.assert_array_equal(packed.data.numpy(), np.array(want))
    padded, lengths = rnn.pad_packed_sequence(packed, batch_first=True, padding_value=-7.0)
    assert padded.shape == (3, 5, 2) and lengths.tolist() == [3, 5, 2]
    for i, s in enumerate(SEQS):
        np.testing.assert_array_equal(padded.numpy()[i, :len(s)], s)
        assert (padded.numpy()[i, len(s):] == -7.0).all()
    for s, back in zip(SEQS, rnn.unpack_sequence(packed)):
        np.testing.assert_array_equal(back.numpy(), s)


def test_pad_and_unpad(device):
    padded = rnn.pad_sequence(_tensors(device), padding_value=1.5)
    assert padded.shape == (5, 3, 2)
    assert (padded.numpy()[3:, 0] == 1.5).all() and (padded.numpy()[2:, 2] == 1.5).all()
    left = rnn.pad_sequence(_tensors(device), batch_first=True, padding_side="left")
    np.testing.assert_array_equal(left.numpy()[0, 2:], SEQS[0])
    for s, back in zip(SEQS, rnn.unpad_sequence(padded, [3, 5, 2])):
        np.testing.assert_array_equal(back.numpy(), s)
    by_numpy = rnn.unpad_sequence(padded, np.array([3, 5, 2]))     # NumPy lengths, as PyTorch
    assert [b.shape[0] for b in by_numpy] == [3, 5, 2]
    by_length = padded.index_select(1, tinyffn.tensor([1, 0, 2], device=device))
    sorted_pack = rnn.pack_padded_sequence(by_length, [5, 3, 2])
    assert sorted_pack.sorted_indices is None and sorted_pack.batch_sizes.tolist() == [3, 3, 2,
                                                                                       1, 1]


def test_gradients_come_back_to_each_entry():
    seqs = _tensors(requires_grad=True)
    packed = rnn.pack_sequence(seqs, enforce_sorted=False)
    weights = np.arange(packed.data.numel(), dtype=float).reshape(packed.data.shape)
    (packed.data * tinyffn.tensor(weights)).sum().backward()
    flat = iter(weights)                        # the packed rows, in the layout's order
    for t in range(5):
        for i in (1, 0, 2):
            if t < len(SEQS[i]):
                np.testing.assert_array_equal(seqs[i].grad.numpy()[t], next(flat))
    padded, _ = rnn.pad_packed_sequence(rnn.pack_sequence(_tensors(requires_grad=False),
                                                          enforce_sorted=False))
    assert not padded.requires_grad


def test_as_pytorchs():
    torch = pytest.importorskip("torch")
    ours = [tinyffn.tensor(s) for s in SEQS]
    theirs = [torch.tensor(s) for s in SEQS]
    for kw in (dict(), dict(batch_first=True, padding_value=-1.0),
               dict(batch_first=True, padding_side="left")):
        np.testing.assert_array_equal(rnn.pad_sequence(ours, **kw).numpy(),
                                      torch.nn.utils.rnn.pad_sequence(theirs, **kw).numpy())
    a = rnn.pack_sequence(ours, enforce_sorted=False)
    b = torch.nn.utils.rnn.pack_sequence(theirs, enforce_sorted=False)
    np.testing.assert_array_equal(a.data.numpy(), b.data.numpy())
    for x, y in zip(a[1:], b[1:]):
        assert x.tolist() == y.tolist()
    pa, la = rnn.pad_packed_sequence(a, total_length=7)
    pb, lb = torch.nn.utils.rnn.pad_packed_sequence(b, total_length=7)
    np.testing.assert_array_equal(pa.numpy(), pb.numpy())
    assert la.tolist() == lb.tolist()


@pytest.mark.parametrize("call, match", [
    ("rnn.pack_padded_sequence(x, [3, 5, 2])", r"lengths \[3, 5, 2\] must be in decreasing "
                                               "order with enforce_sorted=True"),
    ("rnn.pack_padded_sequence(x, [5, 3])", r"lengths must be 3 ints"),
    ("rnn.pack_padded_sequence(x, [6, 3, 2])", r"lengths must be 3 ints .* in \[1, 5\], got "
                                               r"\[6, 3, 2\]$"),    # >= 1, not [0, 5]
    ("rnn.pack_padded_sequence(x, [5, 3, 0])", r"in \[1, 5\], got \[5, 3, 0\] \(a packed "
                                               r"sequence has no empty example: PyTorch's "
                                               r"'Length of all samples has to be greater"),
    ("rnn.unpad_sequence(x, [6, 3, 0])", r"unpad_sequence: lengths must be 3 ints .* "
                                         r"in \[0, 5\], got \[6, 3, 0\]$"),  # 0: empty
    ("rnn.pack_padded_sequence(x, [5, 3, True])", r"lengths must be 3 ints"),
    ("rnn.pad_packed_sequence(rnn.pack_sequence(s, False), total_length=2)",
     "total_length=2 is shorter than the longest sequence, 5"),
    ("rnn.pad_sequence([])", "a non-empty list"),
    ("rnn.pad_sequence([s[0], s[1][:, :1]])", "must share their trailing shape"),
    ("rnn.pad_sequence(s, padding_side='middle')", "padding_side must be"),
])
def test_errors(call, match):
    s = _tensors()
    names = {"rnn": rnn, "s": s, "x": rnn.pad_sequence(s)}
    with pytest.raises((ValueError, TypeError), match=match):
        eval(call, {}, names)


def test_ties_batch_first_and_total_length(device):
    """Equal lengths are sorted enough for enforce_sorted; a batch_first input packs by its
    axis 1 (time); total_length pads past the longest (equal to it is allowed). The
    layout written out as in the first test. (A mutation audit found each unchecked.)"""
    x = r.standard_normal((3, 4, 2))                                  # (N, L, *)
    packed = rnn.pack_padded_sequence(tinyffn.tensor(x, device=device), [4, 2, 2],
                                      batch_first=True)
    assert packed.batch_sizes.tolist() == [3, 3, 1, 1] and packed.sorted_indices is None
    want = [x[i, t] for t in range(4) for i in range(3) if t < (4, 2, 2)[i]]
    np.testing.assert_array_equal(packed.data.numpy(), np.array(want))
    padded, lengths = rnn.pad_packed_sequence(packed, batch_first=True, padding_value=-1.0,
                                              total_length=6)
    assert padded.shape == (3, 6, 2) and lengths.tolist() == [4, 2, 2]
    expected = np.full((3, 6, 2), -1.0)
    for i, k in enumerate((4, 2, 2)):
        expected[i, :k] = x[i, :k]
    np.testing.assert_array_equal(padded.numpy(), expected)
    assert rnn.pad_packed_sequence(packed, total_length=4)[0].shape == (4, 3, 2)


def test_a_packed_sequence_built_by_hand(device):
    """Its order is read from the device once and checked there, on the host (a gather on
    the GPU would wrap an index around): pack_padded_sequence's own is kept on the host,
    and batch_sizes (on the CPU) is checked before the unchecked write it leads to."""
    from host_reads import counting_host_reads
    x = _tensors(device)
    made = rnn.pack_sequence(x, enforce_sorted=False)
    back = tinyffn.tensor([1, 0, 2], device=device)                 # as made.unsorted_indices
    hand = rnn.PackedSequence(made.data, made.batch_sizes, made.sorted_indices, back)
    padded, lengths = rnn.pad_packed_sequence(hand)
    np.testing.assert_array_equal(padded.numpy(), rnn.pad_packed_sequence(made)[0].numpy())
    assert lengths.tolist() == [3, 5, 2]
    if device == "strict":
        with counting_host_reads() as reads:
            rnn.pad_packed_sequence(rnn.PackedSequence(made.data, made.batch_sizes, None,
                                                       tinyffn.tensor([2, 1, 0], device=device)))
        assert dict(reads) == {"array": 1}
    bad = [(tinyffn.tensor([1, 0, 3], device=device), IndexError, r"unsorted_indices must "
            r"hold indices in \[0, 3\) for a batch of 3 sequences, got \[1, 0, 3\]"),
           (tinyffn.tensor([1, -1, 0], device=device), IndexError, r"got \[1, -1, 0\]"),
           (tinyffn.tensor([1.0, 0.0, 2.0], device=device), TypeError, "1-D int64 tensor")]
    for order, error, match in bad:
        with pytest.raises(error, match=match):
            rnn.pad_packed_sequence(rnn.PackedSequence(made.data, made.batch_sizes, None, order))
    for sizes in ([3, 3, 2, 1], [3, 3, 2, 1, 2], [1, 3, 3, 2, 1], [3, 3, 2, 1, 0, 1]):
        with pytest.raises(ValueError, match="batch_sizes must be positive, non-increasing "
                                             r"and sum to data's 10 entries"):
            rnn.pad_packed_sequence(rnn.PackedSequence(made.data, tinyffn.tensor(sizes)))
