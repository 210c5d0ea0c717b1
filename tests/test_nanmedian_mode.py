"""nanmedian, mode and unique_consecutive (tinyffn/numerics.py): names ported scripts hit
AttributeError on; their tie rules are the point.

References: PyTorch 2.13's answers written out (values and the index chosen among ties and
NaNs), so they run without torch; a NumPy stable-sort reference for nanmedian and mode on
random rows with many ties; torch live where installed; gradcheck.
"""
import math

import numpy as np
import pytest

import tinyffn

nan = math.nan
ROWS = [[3.0, 1.0, nan, 1.0, 3.0, 2.0], [nan, nan, nan, 1.0, 1.0, 1.0],
        [2.0, 2.0, 1.0, 1.0, 5.0, 5.0]]


def test_nanmedian_is_pytorchs_written_out(device):
    """torch 2.13: nanmedian(ROWS, 1) = ([2, 1, 2], [5, 4, 0]); of all of it 1.0."""
    x = tinyffn.tensor(ROWS, dtype="float64", device=device)
    v, i = tinyffn.nanmedian(x, 1)
    assert v.tolist() == [2.0, 1.0, 2.0] and i.tolist() == [5, 4, 0]
    assert tinyffn.nanmedian(x).item() == 1.0
    v, i = x.nanmedian(0, keepdim=True)
    assert v.shape == (1, 6) and i.tolist() == [[2, 0, 2, 1, 0, 0]]
    all_nan = tinyffn.tensor([[nan, nan, nan]], device=device)
    v, i = all_nan.nanmedian(1)
    assert math.isnan(v.item()) and i.tolist() == [0]       # torch's index: any of them
    assert math.isnan(tinyffn.nanmedian(all_nan).item())
    ints = tinyffn.tensor([[4, 1, 3, 1]], device=device)
    assert tinyffn.nanmedian(ints, 1).indices.tolist() == [3]    # torch 2.13: the median
    with pytest.raises(ValueError, match="nanmedian: the tensor is empty"):
        tinyffn.nanmedian(tinyffn.zeros(0, device=device))


def test_mode_is_pytorchs_written_out(device):
    """torch 2.13: the smallest of the most frequent values, at its last place; each NaN
    counts once."""
    x = tinyffn.tensor(ROWS[1:] + [[3.0, 1.0, 1.0, 3.0, 3.0, 1.0]], device=device)
    v, i = tinyffn.mode(x)
    assert v.tolist() == [1.0, 1.0, 1.0] and i.tolist() == [5, 3, 5]
    v, i = tinyffn.tensor([1, 2, 2, 1, 3, 3, 3, 2], device=device).mode()
    assert (v.item(), i.item()) == (2, 7)
    v, i = tinyffn.tensor([[1, 2], [2, 1], [1, 1]], device=device).mode(0, keepdim=True)
    assert v.tolist() == [[1, 1]] and i.tolist() == [[2, 2]]
    v, i = tinyffn.tensor([1.0, 2.0, 2.0, 1.0, nan, nan, nan], device=device).mode()
    assert (v.item(), i.item()) == (1.0, 3)
    v, i = tinyffn.mode(tinyffn.tensor(3.0, device=device))
    assert (v.item(), i.item(), v.shape) == (3.0, 0, ())


def _stable_reference(a):
    """(nanmedian index, mode value, mode's last index) of a 1-D NumPy row."""
    order = np.argsort(np.where(np.isnan(a), np.inf, a), kind="stable")
    m = int((~np.isnan(a)).sum())
    values, counts = np.unique(a[~np.isnan(a)], return_counts=True)
    best = values[np.argmax(counts)] if m else nan
    return order[max(m - 1, 0) // 2], best, np.flatnonzero(a == best)[-1] if m else None


def test_many_ties_against_a_stable_sort_reference():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 4, size=(60, 13)).astype(float)
    a[rng.random(a.shape) < 0.2] = nan
    a[:, 0] = 0.0                       # a number in every row; NaN alone checked above
    x = tinyffn.tensor(a, dtype="float64")
    nm, md = tinyffn.nanmedian(x, 1), tinyffn.mode(tinyffn.tensor(np.nan_to_num(a, nan=9.0)))
    for r in range(a.shape[0]):
        k, _, _ = _stable_reference(a[r])
        assert nm.indices[r].item() == k
        _, value, last = _stable_reference(np.nan_to_num(a[r], nan=9.0))
        assert (md.values[r].item(), md.indices[r].item()) == (value, last)


def test_gradients_go_to_the_index_or_are_shared_as_pytorchs():
    x = tinyffn.tensor([3.0, 1.0, 1.0, 3.0, 3.0, 1.0], dtype="float64", requires_grad=True)
    x.nanmedian(0).values.backward()
    assert x.grad.tolist() == [0, 0, 0, 0, 0, 1.0]                  # torch 2.13
    x.grad = None
    tinyffn.nanmedian(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), [0, 1 / 3, 1 / 3, 0, 0, 1 / 3])
    x.grad = None
    x.mode(0).values.backward()
    assert x.grad.tolist() == [0, 0, 0, 0, 0, 1.0]
    y = tinyffn.tensor([[0.3, -1.2, 0.8, 2.0], [1.1, nan, -0.4, 0.1]], dtype="float64",
                       requires_grad=True)
    assert tinyffn.gradcheck(lambda y: y.nanmedian(1).values, (y,))
    assert tinyffn.gradcheck(lambda y: y.mode(0).values, (y,))


UNIQUE_CASES = [([1, 1, 2, 2, 3, 1, 1, 2], None), ([[1, 1], [1, 1], [2, 3], [2, 3]], 0),
                ([[1, 1, 2], [1, 1, 3]], 1), ([1.0, nan, nan, 2.0], None), (5, None),
                ([[True, True], [False, True]], 1)]


def test_unique_consecutive_is_pytorchs_written_out(device):
    x = tinyffn.tensor([1, 1, 2, 2, 3, 1, 1, 2], device=device)
    y, inverse, counts = tinyffn.unique_consecutive(x, return_inverse=True, return_counts=True)
    assert y.tolist() == [1, 2, 3, 1, 2] and counts.tolist() == [2, 2, 1, 2, 1]
    assert inverse.tolist() == [0, 0, 1, 1, 2, 3, 3, 4]
    m = tinyffn.tensor([[1, 1], [1, 1], [2, 3], [2, 3]], device=device)
    y, inverse, counts = m.unique_consecutive(True, True, dim=0)
    assert y.tolist() == [[1, 1], [2, 3]] and inverse.tolist() == [0, 0, 1, 1]
    assert counts.tolist() == [2, 2]
    y = tinyffn.tensor([1.0, nan, nan, 2.0], device=device).unique_consecutive()
    assert y.shape == (4,)                                          # NaN != NaN
    inverse = tinyffn.unique_consecutive(tinyffn.tensor(5, device=device),
                                         return_inverse=True)[1]
    assert inverse.shape == ()


def test_live_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    for n in (5, 16):           # torch's mode index is its sort's for more than 16
        a = rng.integers(0, 3, size=(30, n)).astype(float)
        a[rng.random(a.shape) < 0.25] = nan
        t = torch.tensor(a)
        for ours, theirs in ((tinyffn.nanmedian(tinyffn.tensor(a), 1), torch.nanmedian(t, 1)),
                             (tinyffn.mode(tinyffn.tensor(np.nan_to_num(a, nan=7.0))),
                              torch.mode(torch.tensor(np.nan_to_num(a, nan=7.0))))):
            np.testing.assert_array_equal(ours.values.numpy(), theirs.values.numpy())
            np.testing.assert_array_equal(ours.indices.numpy(), theirs.indices.numpy())
    a = rng.integers(0, 3, size=(4, 60))            # more than 16: the values still agree
    np.testing.assert_array_equal(tinyffn.mode(tinyffn.tensor(a)).values.numpy(),
                                  torch.mode(torch.tensor(a)).values.numpy())
    for v, d in UNIQUE_CASES:
        ours = tinyffn.unique_consecutive(tinyffn.tensor(v), True, True, d)
        theirs = torch.unique_consecutive(torch.tensor(v), return_inverse=True,
                                          return_counts=True, dim=d)
        for p, q in zip(ours, theirs):
            assert p.shape == tuple(q.shape)
            np.testing.assert_array_equal(p.numpy(), q.numpy())
