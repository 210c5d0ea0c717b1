"""tinyffn.utils.data: TensorDataset, DataLoader and default_collate, against slices
written out by hand, NumPy's permutation for the shuffled order, and torch.utils.data
(live where torch is installed)."""
import collections
import importlib
import math
import warnings

import numpy as np
import pytest

import tinyffn
from tinyffn import nn
from tinyffn.backend import dtype_name
from tinyffn.utils.data import (DataLoader, Dataset, Subset, TensorDataset, default_collate,
                                random_split)

X = np.arange(14.0).reshape(7, 2)
Y = np.array([3, 1, 4, 1, 5, 9, 2])


def dataset(device="cpu", **kwargs):
    return TensorDataset(tinyffn.tensor(X, device=device, **kwargs),
                         tinyffn.tensor(Y, device=device))


def test_imports_as_torch_utils_data():
    assert importlib.import_module("tinyffn.utils.data") is tinyffn.utils.data
    from tinyffn.utils.data import DataLoader as loader_class
    assert loader_class is DataLoader and tinyffn.utils.data.TensorDataset is TensorDataset
    assert "utils" in tinyffn.__all__


def test_tensor_dataset_gives_rows_as_tuples(device):
    ds = dataset(device)
    assert len(ds) == 7 and len(ds.tensors) == 2
    x, y = ds[3]
    assert x.tolist() == [6.0, 7.0] and y.item() == 1 and x.device == device
    assert isinstance(ds[3], tuple)


@pytest.mark.parametrize("batch_size, drop_last, sizes", [
    (1, False, [1] * 7), (3, False, [3, 3, 1]), (3, True, [3, 3]), (7, False, [7]),
    (10, False, [7]), (10, True, [])])
def test_batches_in_order_are_the_slices_written_out(batch_size, drop_last, sizes, device):
    loader = DataLoader(dataset(device), batch_size, drop_last=drop_last)
    batches = list(loader)
    assert len(loader) == len(batches) == len(sizes)
    for k, (batch, size) in enumerate(zip(batches, sizes)):
        assert isinstance(batch, list) and len(batch) == 2             # as PyTorch: a list
        xb, yb = batch
        rows = slice(k * batch_size, k * batch_size + size)
        assert xb.shape == (size, 2) and yb.shape == (size,) and xb.device == device
        np.testing.assert_array_equal(xb.numpy(), X[rows])
        np.testing.assert_array_equal(yb.numpy(), Y[rows])
        assert dtype_name(xb.dtype) == "float64" and dtype_name(yb.dtype) == "int64"


def test_shuffle_draws_numpys_permutation_from_the_seeded_generator():
    """manual_seed(s) seeds NumPy's PCG64 with s: each epoch is its next permutation."""
    tinyffn.manual_seed(5)
    loader = DataLoader(dataset(), batch_size=3, shuffle=True)
    epochs = [np.concatenate([yb.numpy() for _, yb in loader]) for _ in range(2)]
    rng = np.random.Generator(np.random.PCG64(5))
    for epoch in epochs:
        np.testing.assert_array_equal(epoch, Y[rng.permutation(7)])
    assert not np.array_equal(epochs[0], epochs[1])
    assert sorted(epochs[0].tolist()) == sorted(Y.tolist())     # each sample once


def test_shuffle_is_reproduced_by_manual_seed_on_every_device(device):
    def run(dev):
        tinyffn.manual_seed(9)
        return [xb.numpy() for xb, _ in DataLoader(dataset(dev), 2, shuffle=True)]
    for a, b in zip(run(device), run("cpu")):
        np.testing.assert_array_equal(a, b)


class Rows(Dataset):
    """The same samples as dataset(), through __getitem__ and __len__ (the general path)."""

    def __getitem__(self, i):
        return tinyffn.tensor(X[i]), tinyffn.tensor(Y[i])

    def __len__(self):
        return len(Y)


def test_a_tensor_dataset_batch_is_what_stacking_its_samples_gives():
    tinyffn.manual_seed(2)
    fast = list(DataLoader(dataset(), 3, shuffle=True))
    tinyffn.manual_seed(2)
    slow = list(DataLoader(Rows(), 3, shuffle=True))
    for (xa, ya), (xb, yb) in zip(fast, slow):
        np.testing.assert_array_equal(xa.numpy(), xb.numpy())
        assert ya.tolist() == yb.tolist() and xa.dtype == xb.dtype and ya.dtype == yb.dtype


def test_gradients_reach_the_rows_of_the_dataset():
    x = tinyffn.tensor(X, requires_grad=True)
    for k, (xb,) in enumerate(DataLoader(TensorDataset(x), batch_size=3)):
        (xb * (k + 1)).sum().backward()
    assert x.grad.numpy()[:, 0].tolist() == [1, 1, 1, 2, 2, 2, 3]


def test_a_training_loop_over_a_loader_fits_a_line():
    tinyffn.manual_seed(0)
    x = tinyffn.randn(64, 3)
    y = x @ tinyffn.tensor([[1.0], [-2.0], [0.5]]) + 0.25
    model = nn.Linear(3, 1)
    opt = tinyffn.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(30):
        for xb, yb in DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True):
            opt.zero_grad()
            tinyffn.functional.mse_loss(model(xb), yb).backward()
            opt.step()
    np.testing.assert_allclose(model.weight.numpy(), [[1.0, -2.0, 0.5]], atol=1e-3)
    np.testing.assert_allclose(model.bias.numpy(), [0.25], atol=1e-3)


def test_unbatched_and_custom_collate():
    samples = list(DataLoader(dataset(), batch_size=None))
    assert len(samples) == 7 and isinstance(samples[0], list) and samples[2][1].item() == 4
    sums = list(DataLoader(dataset(), batch_size=4, collate_fn=lambda b: len(b)))
    assert sums == [4, 3]


Point = collections.namedtuple("Point", "x y")


def test_default_collate_written_out():
    assert default_collate([1.5, 2.0]).dtype == tinyffn.float64        # as PyTorch's
    assert default_collate([1, 2]).dtype == tinyffn.int64
    assert default_collate([True, False]).dtype == tinyffn.bool
    assert default_collate([np.float32(1), np.float32(2)]).dtype == tinyffn.float32
    pairs = default_collate([(1, 2.0), (3, 4.0)])
    assert isinstance(pairs, list) and pairs[0].tolist() == [1, 3] and pairs[1].tolist() == [2.0, 4.0]
    d = default_collate([{"a": tinyffn.ones(2)}, {"a": tinyffn.zeros(2)}])
    assert d["a"].tolist() == [[1.0, 1.0], [0.0, 0.0]]
    p = default_collate([Point(1, 2), Point(3, 4)])
    assert isinstance(p, Point) and p.x.tolist() == [1, 3]
    assert default_collate([np.ones(2), np.zeros(2)]).tolist() == [[1.0, 1.0], [0.0, 0.0]]
    assert default_collate(["a", "b"]) == ["a", "b"]
    with pytest.raises(ValueError, match="default_collate: each sample of the batch must have "
                                         r"the same number of fields, got \[1, 2\]"):
        default_collate([(1,), (1, 2)])
    with pytest.raises(TypeError, match="default_collate: a batch holds tensors.*got object"):
        default_collate([object()])


def test_default_collate_is_pytorchs_live():
    pytest.importorskip("torch")
    from torch.utils.data import default_collate as theirs
    for batch in ([1.5, 2.0], [1, 2], [True, False], [(1, 2.0), (3, 4.0)],
                  [np.ones(2, np.float32), np.zeros(2, np.float32)]):
        ours, want = default_collate(batch), theirs(batch)
        for a, b in (zip(ours, want) if isinstance(want, list) else [(ours, want)]):
            assert a.tolist() == b.tolist()
            assert dtype_name(a.dtype) == str(b.dtype).removeprefix("torch.")
        assert type(ours) is type(want) or isinstance(ours, tinyffn.Tensor)


STRUCTURED = [                                  # samples of each kind a dataset may return
    [("a", 1), ("b", 2)], [np.str_("a"), np.str_("b")], [b"x", b"y"],
    [np.float32(1.5), np.float32(2)], [np.int16(3), np.int16(4)], [np.bool_(True), np.bool_(False)],
    [{"a": (1, [2.5]), "b": {"c": np.float64(1)}}, {"a": (2, [3.5]), "b": {"c": np.float64(2)}}],
    [Point(np.ones(2), "p"), Point(np.zeros(2), "q")], [[1, 2.5], [3, 4.5]],
]


def _described(value):
    """The structure of a batch: container types, tensors as (dtype, values)."""
    if hasattr(value, "dtype") and hasattr(value, "tolist") and not isinstance(value, np.generic):
        return ("tensor", str(value.dtype).removeprefix("torch."), value.tolist())
    if isinstance(value, dict):
        return {k: _described(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_described(v) for v in value])
    return (type(value).__name__, value)


@pytest.mark.parametrize("samples", STRUCTURED, ids=range(len(STRUCTURED)))
def test_batches_of_every_kind_of_sample_are_pytorchs_live(samples):
    """torch's default_collate (batch_size=2) and default_convert (batch_size=None): strings
    as given (a tuple field stays a tuple; NumPy's str_ is a string), NumPy numbers as
    0-d tensors, also inside dicts, lists and namedtuples."""
    pytest.importorskip("torch")
    from torch.utils import data as tdata
    for batch_size in (2, None):
        ours = [_described(b) for b in DataLoader(samples, batch_size=batch_size)]
        theirs = [_described(b) for b in tdata.DataLoader(samples, batch_size=batch_size)]
        assert ours == theirs, batch_size


def test_a_subset_takes_a_tensor_of_indices_as_pytorchs():
    data = dataset()
    tinyffn.manual_seed(0)
    order = tinyffn.randperm(7)
    part = Subset(data, order[:3])
    assert part.indices == order[:3].tolist() and isinstance(part.indices[0], int)
    assert [part[j][1].item() for j in range(3)] == [Y[i] for i in order[:3].tolist()]
    for bad in (tinyffn.tensor([1.5]), tinyffn.tensor(2), tinyffn.tensor([[1]])):
        with pytest.raises(TypeError, match="Subset: indices must be ints"):
            Subset(data, bad)


def test_batches_and_lengths_are_pytorchs_live():
    torch = pytest.importorskip("torch")
    from torch.utils import data as tdata
    theirs_ds = tdata.TensorDataset(torch.tensor(X), torch.tensor(Y))
    for kwargs in ({"batch_size": 3}, {"batch_size": 3, "drop_last": True},
                   {"batch_size": 1}, {"batch_size": 10, "drop_last": True}):
        theirs, ours = tdata.DataLoader(theirs_ds, **kwargs), DataLoader(dataset(), **kwargs)
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs, strict=True):
            assert type(a) is type(b) is list
            assert [t.tolist() for t in a] == [t.tolist() for t in b]
    theirs_one = list(tdata.DataLoader(theirs_ds, batch_size=None))[0]
    ours_one = list(DataLoader(dataset(), batch_size=None))[0]
    assert type(theirs_one) is type(ours_one) is list
    assert len(tdata.DataLoader(theirs_ds, batch_size=None)) == 7
    tuple_ds = TensorDataset(tinyffn.zeros(4))
    assert len(DataLoader(tuple_ds, batch_size=3)) == math.ceil(4 / 3)


@pytest.mark.parametrize("kwargs, error, match", [
    ({"num_workers": 2}, ValueError, r"DataLoader: num_workers=2 asks for worker processes.*"
                                     "num_workers=0"),
    ({"num_workers": -1}, ValueError, "num_workers must be an integer >= 0"),
    ({"generator": np.random.default_rng(0)}, TypeError,
     r"DataLoader: generator must be a tinyffn.Generator or None, got "
     r"numpy.random._generator.Generator; make one with tinyffn.Generator\(\).manual_seed"),
    ({"batch_size": 0}, ValueError, "batch_size should be a positive integer value"),
    ({"batch_size": 2.0}, ValueError, "batch_size should be a positive integer value"),
    ({"shuffle": "yes"}, TypeError, "shuffle must be True or False"),
    ({"drop_last": 1}, TypeError, "drop_last must be True or False"),
    ({"collate_fn": 3}, TypeError, "collate_fn must be callable, got int"),
    ({"timeout": 5}, TypeError, "unexpected keyword argument 'timeout'"),   # worker option
])
def test_loader_refusals(kwargs, error, match):
    with pytest.raises(error, match=match):
        DataLoader(dataset(), **kwargs)


def test_dataset_refusals():
    with pytest.raises(TypeError, match=r"DataLoader: dataset must have __getitem__ and "
                                        r"__len__ .* got generator"):
        DataLoader(x for x in range(3))
    with pytest.raises(ValueError, match=r"TensorDataset: the tensors have \[7, 6\] samples"):
        TensorDataset(tinyffn.zeros(7), tinyffn.zeros(6))
    with pytest.raises(TypeError, match="TensorDataset: takes tinyffn Tensors, got list"):
        TensorDataset([1, 2])
    with pytest.raises(ValueError, match="TensorDataset: a 0-d tensor has no samples"):
        TensorDataset(tinyffn.tensor(1.0))
    with pytest.raises(ValueError, match="TensorDataset: needs at least one tensor"):
        TensorDataset()
    with pytest.raises(NotImplementedError, match="Empty: a Dataset subclass must define "
                                                  "__getitem__"):
        type("Empty", (Dataset,), {})()[0]


@pytest.mark.parametrize("n, lengths, sizes", [
    (10, [0.9, 0.1], [9, 1]), (10, [0.33, 0.33, 0.34], [4, 3, 3]),
    (10, [0.25] * 4, [3, 3, 2, 2]), (10, [3, 7], [3, 7]), (7, [1, 0], [7, 0]),
    (5, [0.0, 1.0], [0, 5])])
def test_random_split_sizes_are_pytorchs_and_the_subsets_partition_the_dataset(n, lengths, sizes):
    data = TensorDataset(tinyffn.arange(n))
    tinyffn.manual_seed(3)
    parts = random_split(data, lengths)
    assert [len(p) for p in parts] == sizes
    seen = sorted(i for p in parts for i in p.indices)
    assert seen == list(range(n))                               # disjoint, all of them
    tinyffn.manual_seed(3)
    assert [p.indices for p in random_split(data, lengths)] == [p.indices for p in parts]
    order = np.random.default_rng(3).permutation(n).tolist()   # manual_seed's generator
    assert [i for p in parts for i in p.indices] == order
    for p in parts:
        assert [p[j][0].item() for j in range(len(p))] == p.indices
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():                     # torch warns of an empty split
        warnings.simplefilter("ignore", UserWarning)
        theirs = torch.utils.data.random_split(
            torch.utils.data.TensorDataset(torch.arange(n)), lengths)
    assert [len(p) for p in theirs] == sizes


def test_random_split_sizes_are_pytorchs_live_over_many_lengths():
    """floor(n f) each, then the rest one at a time from the first split: a rounding rule
    (round, ceil) or the rest given from the last split would differ from torch here
    (n = 7, [0.5, 0.5] is [4, 3]; n = 10, [0.25] * 4 is [3, 3, 2, 2])."""
    torch = pytest.importorskip("torch")
    fractions = [[0.9, 0.1], [0.8, 0.1, 0.1], [1 / 3] * 3, [0.5, 0.5], [0.25] * 4, [0.1] * 10,
                 [0.33, 0.33, 0.34], [0.05, 0.95], [0.2, 0.3, 0.5], [1, 0], [0.0, 1.0], [0.6, 0.4]]
    for n in [*range(0, 24), 97, 100, 101, 1001]:
        for lengths in fractions + [[n], [n // 3, n // 3, n - 2 * (n // 3)]]:
            with warnings.catch_warnings():             # torch warns of an empty split
                warnings.simplefilter("ignore", UserWarning)
                theirs = [len(p) for p in torch.utils.data.random_split(range(n), lengths)]
            assert [len(p) for p in random_split(range(n), lengths)] == theirs, (n, lengths)


def test_a_loader_over_a_subset_batches_its_samples_in_order():
    data = dataset()
    part = Subset(data, [5, 0, 3])
    assert len(part) == 3 and part.dataset is data
    (xb, yb), = list(DataLoader(part, batch_size=4))
    np.testing.assert_array_equal(xb.numpy(), X[[5, 0, 3]])
    np.testing.assert_array_equal(yb.numpy(), Y[[5, 0, 3]])
    assert [s[1].item() for s in part[[2, 0]]] == [Y[3], Y[5]]     # a list: samples


def test_random_split_and_subset_errors():
    data = dataset()
    with pytest.raises(ValueError, match=r"random_split: lengths \[3, 3\] must be counts >= 0 "
                                         r"adding up to the 7 samples"):
        random_split(data, [3, 3])
    with pytest.raises(ValueError, match=r"lengths \[0.9, 0.05\] must be"):
        random_split(data, [0.9, 0.05])                 # fractions adding up to 0.95
    with pytest.raises(ValueError, match=r"a fraction must be in \[0, 1\]"):
        random_split(data, [1.5, -0.5])
    with pytest.raises(TypeError, match=r"random_split: generator must be a tinyffn.Generator"):
        random_split(data, [0.5, 0.5], generator=object())
    with pytest.raises(TypeError, match=r"lengths must be ints \(counts\) or floats"):
        random_split(data, ["a"])
    with pytest.raises(IndexError, match=r"Subset: indices \[7\] are outside a dataset of 7"):
        Subset(data, [0, 7])
    with pytest.raises(TypeError, match=r"Subset: indices must be ints"):
        Subset(data, [0.5])
