"""tinyffn.utils.data's samplers and dataset classes, and DataLoader(sampler=, batch_sampler=)
over them and over an IterableDataset.

Random orders come from NumPy's PCG64 through tinyffn.Generator, so they are not torch's:
the tests check what an order must be (a permutation; draws that follow the weights, by a
chi-square test; the same order from the same seed; none of the global stream's numbers
when a generator is given), NumPy's own draws for the seed, and against torch.utils.data
(live, where torch is installed) everything that is not random: lengths, batches, the
refusals."""
import collections

import numpy as np
import pytest

import tinyffn
from tinyffn.utils.data import (BatchSampler, ChainDataset, ConcatDataset, DataLoader, Dataset,
                                IterableDataset, RandomSampler, Sampler, SequentialSampler,
                                StackDataset, SubsetRandomSampler, TensorDataset,
                                WeightedRandomSampler, default_convert, get_worker_info)


def gen(seed):
    return tinyffn.Generator().manual_seed(seed)


def lists(batches):
    return [[t.tolist() for t in b] if isinstance(b, list) else b.tolist() for b in batches]


# ----------------------------------------------------------------------------- samplers
def test_sequential_and_batch_samplers_written_out():
    assert list(SequentialSampler(range(5))) == [0, 1, 2, 3, 4]
    assert len(SequentialSampler(range(5))) == 5
    for drop_last, want in ((False, [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]),
                            (True, [[0, 1, 2], [3, 4, 5], [6, 7, 8]])):
        b = BatchSampler(SequentialSampler(range(10)), 3, drop_last)
        assert list(b) == want and len(b) == len(want)
    assert list(BatchSampler([4, 2, 7], 2, False)) == [[4, 2], [7]]        # any iterable
    assert list(BatchSampler(range(6), 3, True)) == [[0, 1, 2], [3, 4, 5]]


def test_random_sampler_without_replacement_is_a_new_permutation_each_epoch():
    s = RandomSampler(range(10), generator=gen(4))
    first, second = list(s), list(s)
    assert sorted(first) == sorted(second) == list(range(10)) and first != second
    rng = np.random.default_rng(4)                  # the seed's own PCG64 permutations
    assert [first, second] == [rng.permutation(10).tolist(), rng.permutation(10).tolist()]
    long = list(RandomSampler(range(4), num_samples=10, generator=gen(1)))
    assert len(long) == 10 and sorted(long[:4]) == sorted(long[4:8]) == [0, 1, 2, 3]
    assert len(set(long[8:])) == 2                   # the last permutation cut short


def test_random_sampler_with_replacement_draws_uniform_indices():
    s = RandomSampler(range(6), replacement=True, num_samples=3000, generator=gen(2))
    drawn = np.array(list(s))
    np.testing.assert_array_equal(drawn, np.random.default_rng(2).integers(0, 6, 3000))
    counts = np.bincount(drawn, minlength=6)
    assert len(s) == 3000 and counts.sum() == 3000 and len(counts) == 6
    chi2 = ((counts - 500) ** 2 / 500).sum()
    assert chi2 < 20.5          # chi-square, 5 degrees of freedom: p = 0.001 at 20.5


def test_subset_random_sampler_permutes_its_indices():
    idx = [10, 20, 30, 40, 50]
    s = SubsetRandomSampler(idx, generator=gen(3))
    order = list(s)
    assert sorted(order) == idx and len(s) == 5
    assert order == [idx[i] for i in np.random.default_rng(3).permutation(5)]


def test_weighted_random_sampler_follows_the_weights_by_a_chi_square_test():
    """With replacement: counts of 20,000 draws against n p_i (weights [1, 2, 3, 4, 0]),
    chi-square over the four categories of positive weight, 3 degrees of freedom. With the
    fixed seed the statistic is fixed; the threshold 16.27 is its p = 0.001 point
    (scipy.stats.chi2.isf(0.001, 3) = 16.266), so a sampler that ignored the weights (or
    normalised them wrongly) fails by far."""
    w = [1.0, 2.0, 3.0, 4.0, 0.0]
    s = WeightedRandomSampler(w, 20000, generator=gen(11))
    counts = np.bincount(list(s), minlength=5)
    expected = 20000 * np.array(w[:4]) / 10
    stat = ((counts[:4] - expected) ** 2 / expected).sum()
    assert counts[4] == 0 and counts.sum() == 20000 and len(s) == 20000
    assert stat < 16.27
    uniform = ((counts[:4] - 5000) ** 2 / 5000).sum()
    assert uniform > 1000                   # the same test tells uniform draws apart
    distinct = list(WeightedRandomSampler(w, 4, replacement=False, generator=gen(0)))
    assert sorted(distinct) == [0, 1, 2, 3]                 # a zero weight never drawn
    w_tensor = WeightedRandomSampler(tinyffn.tensor([1, 3]), 2)
    assert w_tensor.weights.dtype == tinyffn.float64 and w_tensor.weights.tolist() == [1, 3]


SAMPLERS = {
    "RandomSampler": lambda g: RandomSampler(range(20), generator=g),
    "RandomSampler-replacement": lambda g: RandomSampler(range(20), True, 30, generator=g),
    "SubsetRandomSampler": lambda g: SubsetRandomSampler(list(range(5, 25)), generator=g),
    "WeightedRandomSampler": lambda g: WeightedRandomSampler([1.0] * 20, 15, generator=g),
    "WeightedRandomSampler-distinct": lambda g: WeightedRandomSampler([1.0] * 20, 15, False,
                                                                      generator=g),
}


@pytest.mark.parametrize("name", SAMPLERS)
def test_a_generator_repeats_the_order_and_leaves_the_global_stream_alone(name):
    make = SAMPLERS[name]
    tinyffn.manual_seed(0)
    a = list(make(gen(7)))
    after = tinyffn.randn(3).numpy()                 # the global stream was not drawn from
    tinyffn.manual_seed(0)
    np.testing.assert_array_equal(tinyffn.randn(3).numpy(), after)
    tinyffn.manual_seed(123)                         # another global seed: the same order
    assert list(make(gen(7))) == a and list(make(gen(8))) != a
    tinyffn.manual_seed(5)                           # no generator: the global stream
    b = list(make(None))
    assert list(make(gen(5))) == b


def test_shuffle_is_a_random_sampler_of_the_loaders_generator():
    ds = TensorDataset(tinyffn.arange(9))
    loader = DataLoader(ds, batch_size=4, shuffle=True, generator=gen(6))
    assert isinstance(loader.sampler, RandomSampler) and loader.sampler.generator is not None
    assert isinstance(loader.batch_sampler, BatchSampler)
    got = [i for (b,) in loader for i in b.tolist()]
    assert got == list(RandomSampler(ds, generator=gen(6)))


def test_sampler_lengths_are_torchs_live():
    torch = pytest.importorskip("torch")
    from torch.utils import data as T
    cases = [("SequentialSampler", (range(7),), {}), ("RandomSampler", (range(7),), {}),
             ("RandomSampler", (range(7),), {"num_samples": 20}),
             ("RandomSampler", (range(7), True, 3), {}),
             ("SubsetRandomSampler", ([3, 1, 4],), {}),
             ("WeightedRandomSampler", ([0.1, 0.9, 0.4], 5), {}),
             ("WeightedRandomSampler", ([0.1, 0.9, 0.4], 2, False), {})]
    for name, args, kwargs in cases:
        ours, theirs = globals()[name](*args, **kwargs), getattr(T, name)(*args, **kwargs)
        assert len(ours) == len(theirs) == len(list(theirs)) == len(list(ours)), name
        if name.startswith("Random") and not (args[1:] and args[1]):
            for order in (list(ours), list(theirs)):     # whole permutations, then part of one
                full = len(order) // 7 * 7
                assert all(sorted(order[i:i + 7]) == list(range(7)) for i in range(0, full, 7))
                assert len(set(order[full:])) == len(order) - full, name
    for n, b, drop in [(10, 3, False), (10, 3, True), (9, 3, True), (2, 5, False), (2, 5, True)]:
        ours = BatchSampler(SequentialSampler(range(n)), b, drop)
        theirs = T.BatchSampler(T.SequentialSampler(range(n)), b, drop)
        assert list(ours) == list(theirs) and len(ours) == len(theirs)
    assert torch.utils.data.get_worker_info() is get_worker_info() is None


@pytest.mark.parametrize("call, error, match", [
    ("RandomSampler(range(3), replacement=1)", TypeError,
     "RandomSampler: replacement should be a boolean value"),
    ("RandomSampler(range(3), num_samples=0)", ValueError,
     "RandomSampler: num_samples should be a positive integer value, but got num_samples=0"),
    ("RandomSampler([])", ValueError, "num_samples should be a positive integer value"),
    ("RandomSampler(range(3), num_samples=2.0)", ValueError, "num_samples should be a pos"),
    ("WeightedRandomSampler([1.0, 2.0], 0)", ValueError,
     "WeightedRandomSampler: num_samples should be a positive integer value"),
    ("WeightedRandomSampler([1.0, 2.0], True)", ValueError, "num_samples should be a pos"),
    ("WeightedRandomSampler([1.0, 2.0], 2, replacement=None)", ValueError,
     "WeightedRandomSampler: replacement should be a boolean value"),
    ("WeightedRandomSampler([[1.0, 2.0]], 2)", ValueError,
     r"WeightedRandomSampler: weights should be a 1d sequence .* shape \(1, 2\)"),
    ("BatchSampler(range(3), 0, False)", ValueError,
     "BatchSampler: batch_size should be a positive integer value"),
    ("BatchSampler(range(3), 2, None)", ValueError,
     "BatchSampler: drop_last should be a boolean value"),
])
def test_sampler_refusals_are_torchs(call, error, match):
    with pytest.raises(error, match=match):
        eval(call)
    torch = pytest.importorskip("torch")
    with pytest.raises(error):                       # torch refuses the same, with the same type
        eval(call, {name: getattr(torch.utils.data, name) for name in
                    ("RandomSampler", "WeightedRandomSampler", "BatchSampler")})


def test_batch_sampler_refuses_a_sampler_that_is_not_iterable():
    """torch accepts BatchSampler(5, ...) and fails at iter(); tinyffn names it at once."""
    with pytest.raises(TypeError, match=r"BatchSampler: sampler must be an iterable of indices "
                                        r"\(a Sampler, a list\), got int"):
        BatchSampler(5, 2, False)


def test_bad_weights_are_refused_when_drawn_as_torchs_and_no_generator_is_refused():
    s = WeightedRandomSampler([1.0, -1.0], 2)
    with pytest.raises(ValueError, match="multinomial"):
        list(s)
    for make in (lambda g: RandomSampler(range(3), generator=g),
                 lambda g: SubsetRandomSampler([1], generator=g),
                 lambda g: WeightedRandomSampler([1.0], 1, generator=g)):
        with pytest.raises(TypeError, match="generator must be a tinyffn.Generator or None"):
            make(np.random.default_rng(0))
    with pytest.raises(NotImplementedError, match="Mine: a Sampler subclass must define"):
        iter(type("Mine", (Sampler,), {})())


# ----------------------------------------------------------------------------- DataLoader
X = np.arange(16.0).reshape(8, 2)


def test_a_loader_follows_its_sampler_and_batch_sampler(device):
    ds = TensorDataset(tinyffn.tensor(X, device=device), tinyffn.arange(8, device=device))
    order = [5, 0, 7, 3, 3]
    loader = DataLoader(ds, batch_size=2, sampler=order)
    batches = list(loader)
    assert len(loader) == len(batches) == 3
    for b, rows in zip(batches, [[5, 0], [7, 3], [3]]):
        np.testing.assert_array_equal(b[0].numpy(), X[rows])
        assert b[1].tolist() == rows and b[0].device == device
    by_batch = DataLoader(ds, batch_sampler=[[1, 2, 3], [6]])
    assert [b[1].tolist() for b in by_batch] == [[1, 2, 3], [6]] and len(by_batch) == 2
    one_by_one = DataLoader(ds, batch_size=None, sampler=[4, 1])     # unbatched, converted
    assert [s[1].item() for s in one_by_one] == [4, 1] and len(one_by_one) == 2
    weighted = DataLoader(ds, batch_size=3, sampler=WeightedRandomSampler([0, 0, 1, 0, 0, 0, 0, 1], 6))
    assert set(i for b in weighted for i in b[1].tolist()) == {2, 7} and len(weighted) == 2
    subset = DataLoader(ds, batch_size=4, sampler=SubsetRandomSampler([0, 2, 4, 6], gen(0)))
    assert sorted(subset.__iter__().__next__()[1].tolist()) == [0, 2, 4, 6]


def test_loader_batches_and_lengths_with_samplers_are_torchs_live():
    torch = pytest.importorskip("torch")
    from torch.utils import data as T
    ours_ds, theirs_ds = TensorDataset(tinyffn.tensor(X)), T.TensorDataset(torch.tensor(X))
    for kwargs in ({"sampler": [5, 0, 7, 3, 3], "batch_size": 2},
                   {"sampler": [5, 0, 7], "batch_size": 2, "drop_last": True},
                   {"sampler": [6, 1], "batch_size": None},
                   {"batch_sampler": [[1, 2, 3], [6], [0, 0]]}):
        ours, theirs = DataLoader(ours_ds, **kwargs), T.DataLoader(theirs_ds, **kwargs)
        assert len(ours) == len(theirs)
        assert lists(ours) == lists(theirs), kwargs


@pytest.mark.parametrize("kwargs", [
    {"sampler": [0, 1], "shuffle": True},
    {"batch_sampler": [[0]], "batch_size": 2}, {"batch_sampler": [[0]], "shuffle": True},
    {"batch_sampler": [[0]], "sampler": [0]}, {"batch_sampler": [[0]], "drop_last": True},
    {"batch_size": None, "drop_last": True},
])
def test_contradicting_order_options_are_refused_as_by_torch(kwargs):
    """torch 2.13: 'sampler option is mutually exclusive with shuffle', 'batch_sampler option
    is mutually exclusive with batch_size, shuffle, sampler, and drop_last', 'batch_size=None
    option disables auto-batching and is mutually exclusive with drop_last'."""
    with pytest.raises(ValueError, match=r"DataLoader: (sampler|batch_sampler|batch_size=None) "
                                         r"option (is|disables)"):
        DataLoader(TensorDataset(tinyffn.tensor(X)), **kwargs)
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError, match=r"(sampler|batch_sampler|batch_size=None) option "
                                         r"(is|disables)"):
        torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.tensor(X)), **kwargs)


def test_a_dataset_without_len_needs_a_sampler():
    class Keys(Dataset):
        def __getitem__(self, key):
            return {"a": 1.0, "b": 2.0}[key]
    assert [b.tolist() for b in DataLoader(Keys(), 2, sampler=["b", "a", "a"])] == \
        [[2.0, 1.0], [1.0]]
    with pytest.raises(TypeError, match=r"DataLoader: dataset \(Keys\) has no __len__, which "
                                        r"the default samplers need; .* pass sampler="):
        DataLoader(Keys())


class Count(IterableDataset):
    """0.0, 1.0, ..., n - 1 as a stream (as torch's docs' range example), with a length."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(float(i) for i in range(self.n))

    def __len__(self):
        return self.n


def test_a_loader_over_an_iterable_dataset_batches_the_stream_written_out():
    assert [b.tolist() for b in DataLoader(Count(7), batch_size=3)] == \
        [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0]]
    assert [b.tolist() for b in DataLoader(Count(7), 3, drop_last=True)] == \
        [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert list(DataLoader(Count(3), batch_size=None)) == [0.0, 1.0, 2.0]
    assert len(DataLoader(Count(7), 3)) == 3 and len(DataLoader(Count(7), 3, drop_last=True)) == 2
    assert list(DataLoader(Count(0), 3)) == []
    with pytest.raises(NotImplementedError, match="S: an IterableDataset subclass must define"):
        iter(type("S", (IterableDataset,), {})())


def test_a_loader_over_an_iterable_dataset_is_torchs_live():
    pytest.importorskip("torch")
    from torch.utils import data as T

    class TorchCount(T.IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(float(i) for i in range(self.n))

        def __len__(self):
            return self.n
    for n, kwargs in [(7, {"batch_size": 3}), (7, {"batch_size": 3, "drop_last": True}),
                      (6, {"batch_size": 3, "drop_last": True}), (3, {"batch_size": None}),
                      (2, {"batch_size": 5})]:
        ours, theirs = DataLoader(Count(n), **kwargs), T.DataLoader(TorchCount(n), **kwargs)
        assert len(ours) == len(theirs)
        assert [b if isinstance(b, float) else b.tolist() for b in ours] == \
            [b if isinstance(b, float) else b.tolist() for b in theirs]
    for kwargs in ({"shuffle": True}, {"sampler": [0]}, {"batch_sampler": [[0]]}):
        with pytest.raises(ValueError, match="DataLoader with IterableDataset: expected "
                                             "unspecified"):
            DataLoader(Count(3), **kwargs)
        with pytest.raises(ValueError, match="DataLoader with IterableDataset: expected "
                                             "unspecified"):
            T.DataLoader(TorchCount(3), **kwargs)


def test_worker_info_is_none_and_workers_are_refused():
    assert get_worker_info() is None
    with pytest.raises(ValueError, match="num_workers=2 asks for worker processes, which "
                                         "tinyffn does not have"):
        DataLoader(Count(3), num_workers=2)


# ----------------------------------------------------------------------------- datasets
def test_concat_dataset_written_out():
    a, b, c = list("abc"), [], list("defg")
    cat = ConcatDataset([a, b, c])
    assert cat.cumulative_sizes == [3, 3, 7] and len(cat) == 7
    assert [cat[i] for i in range(7)] == list("abcdefg")
    assert [cat[-i] for i in range(1, 8)] == list("gfedcba")
    added = TensorDataset(tinyffn.arange(2)) + TensorDataset(tinyffn.arange(5, 8))
    assert isinstance(added, ConcatDataset) and [added[i][0].item() for i in range(5)] == \
        [0, 1, 5, 6, 7]
    with pytest.raises(ValueError, match=r"ConcatDataset: index -8 is below -7"):
        cat[-8]
    with pytest.raises(IndexError, match=r"ConcatDataset: index 7 is outside the 7 samples"):
        cat[7]
    with pytest.raises(ValueError, match="ConcatDataset: datasets is empty"):
        ConcatDataset([])
    with pytest.raises(TypeError, match="ConcatDataset: Count is an IterableDataset"):
        ConcatDataset([a, Count(2)])


def test_concat_dataset_reads_each_part_at_a_nonnegative_index_and_checks_its_input():
    """A Dataset need not take negative indices: the second part's sample 0 is read at 0."""
    class Squares(Dataset):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            if not 0 <= i < 3:
                raise IndexError(f"Squares has no sample {i}")
            return i * i
    cat = ConcatDataset([Squares(), Squares()])
    assert [cat[i] for i in range(6)] == [0, 1, 4, 0, 1, 4] == [cat[i] for i in range(-6, 0)]
    with pytest.raises(TypeError, match=r"ConcatDataset: an index is an integer, got float"):
        cat[1.5]
    no_len = type("NoLen", (), {"__getitem__": lambda self, i: i})()
    with pytest.raises(TypeError, match=r"ConcatDataset: each dataset needs __getitem__ and "
                                        r"__len__, got .*NoLen"):
        ConcatDataset([[1], no_len])


def test_concat_dataset_is_torchs_live():
    torch = pytest.importorskip("torch")
    parts = [list(range(3)), [], list(range(10, 14)), [99]]
    ours, theirs = ConcatDataset(parts), torch.utils.data.ConcatDataset(parts)
    assert ours.cumulative_sizes == theirs.cumulative_sizes and len(ours) == len(theirs)
    assert [ours[i] for i in range(-8, 8)] == [theirs[i] for i in range(-8, 8)]
    with pytest.raises(ValueError):
        theirs[-9]                                  # as ours: ValueError below -len
    with pytest.raises(IndexError):
        theirs[8]


def test_chain_dataset_and_stack_dataset():
    chained = ChainDataset([Count(2), Count(3)])
    assert list(chained) == [0.0, 1.0, 0.0, 1.0, 2.0] and len(chained) == 5
    assert list(Count(1) + Count(2)) == [0.0, 0.0, 1.0] and isinstance(Count(1) + Count(2),
                                                                       ChainDataset)
    with pytest.raises(TypeError, match="ChainDataset: chains IterableDatasets only, got list"):
        list(ChainDataset([Count(1), [1, 2]]))
    x, y = tinyffn.tensor(X), tinyffn.arange(8)
    pairs = StackDataset(x, y)
    assert len(pairs) == 8 and pairs[3][0].tolist() == [6.0, 7.0] and pairs[3][1].item() == 3
    named = StackDataset(image=x, label=y)
    assert set(named[2]) == {"image", "label"} and named[2]["label"].item() == 2
    one = StackDataset(list("abc"))                             # one dataset: 1-tuples
    assert len(one) == 3 and [one[i] for i in range(3)] == [("a",), ("b",), ("c",)]
    batch = next(iter(DataLoader(named, batch_size=3)))        # dicts collate key by key
    assert batch["label"].tolist() == [0, 1, 2] and batch["image"].shape == (3, 2)
    for args, kwargs, match in [((x, tinyffn.arange(7)), {}, r"the datasets have \[8, 7\]"),
                                ((x,), {"y": y}, "give the datasets by position .* or by keyword"),
                                ((), {}, "needs at least one dataset")]:
        with pytest.raises(ValueError, match="StackDataset: " + match):
            StackDataset(*args, **kwargs)


Point = collections.namedtuple("Point", "x y")


def described(v):
    """A value's structure: container types, tensors (tinyffn's or torch's) as (dtype, values)."""
    if hasattr(v, "dtype") and hasattr(v, "tolist") and not isinstance(v, np.ndarray):
        return ("tensor", str(v.dtype).removeprefix("torch."), v.tolist())
    if isinstance(v, np.ndarray):
        return "array"
    if isinstance(v, dict):
        return {k: described(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [type(v).__name__] + [described(x) for x in v]
    return v


def test_stack_dataset_is_torchs_live():
    pytest.importorskip("torch")
    from torch.utils import data as T
    a, b = [1.0, 2.0, 3.0], [[1, 2], [3, 4], [5, 6]]
    for ours, theirs in ((StackDataset(a, b), T.StackDataset(a, b)),
                         (StackDataset(p=a, q=b), T.StackDataset(p=a, q=b))):
        assert [ours[i] for i in range(3)] == [theirs[i] for i in range(3)]
        ob, tb = next(iter(DataLoader(ours, 2))), next(iter(T.DataLoader(theirs, 2)))
        assert described(ob) == described(tb)        # a list or dict of fields, collated
    with pytest.raises(ValueError, match="Size mismatch"):
        T.StackDataset(a, b[:2])


def test_default_convert_is_torchs_live():
    """torch's default_convert: NumPy arrays and numbers to tensors (also inside dicts,
    lists and tuples; a tuple to a list), strings, arrays of strings and Python numbers as
    they are."""
    samples = [np.arange(3), np.float32(1.5), (np.ones(2), 3), [np.int16(2), "s"],
               {"a": np.zeros(2, np.float32), "b": 1.0}, Point(np.ones(1), 2),
               np.array(["u", "v"]), "text", 7]
    want = [("tensor", "int64", [0, 1, 2]), ("tensor", "float32", 1.5),
            ["list", ("tensor", "float64", [1.0, 1.0]), 3], ["list", ("tensor", "int16", 2), "s"],
            {"a": ("tensor", "float32", [0.0, 0.0]), "b": 1.0},
            ["Point", ("tensor", "float64", [1.0]), 2], "array", "text", 7]

    assert [described(default_convert(s)) for s in samples] == want
    torch = pytest.importorskip("torch")
    assert [described(torch.utils.data.default_convert(s)) for s in samples] == want
