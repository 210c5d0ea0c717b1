"""x[key] with index arrays mixed with slices, ``...`` and masks, on every device: the
strict backend has only the array API's indexing, so its keys go through
tinyffn/ops/takes.py (a permute, a reshape and one ``take``), and must give NumPy's
result, shape and gradient exactly.

References: NumPy's own ``x[key]`` and ``numpy.add.at`` (the gradient), finite
differences (gradcheck), and PyTorch where it is installed (its layout of the block of
index arrays is NumPy's for the keys tinyffn takes).
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tinyffn
from tinyffn.ops import IndexAdd, takes
from tinyffn.ops.shape import normalize_key

SHAPE = (2, 3, 4)
I2, I3 = np.array([1, 0]), np.array([2, -1, 2])         # repeats: their gradients add
KEYS = {                                                 # name -> key of NumPy arrays
    "x[:, i]": (slice(None), I3),
    "x[i, :, 1:3]": (I2, slice(None), slice(1, 3)),
    "x[..., i]": (Ellipsis, I3),
    "x[i, :, j] (apart: the block first)": (I2, slice(None), np.array([[0], [3]])),
    "x[:, i, j]": (slice(None), I3, np.array([[1], [0]])),
    "x[i]": (I2,),
    "x[None, :, i, ::-2]": (None, slice(None), I3, slice(None, None, -2)),
    "x[1, i]": (1, I3),
    "x[:, mask]": (slice(None), np.array([True, False, True])),
    "x[1:, mask2]": (slice(1, None), np.array([[True, False, False, True]] * 2 + [[False] * 4])),
}


def _tensor_key(key, device):
    return tuple(tinyffn.tensor(k, device=device) if isinstance(k, np.ndarray) else k
                 for k in key)


@pytest.mark.parametrize("name", KEYS)
def test_mixed_keys_give_numpys_values_shape_and_gradient(device, name):
    key = KEYS[name]
    x = np.arange(24.0).reshape(SHAPE)
    t = tinyffn.tensor(x, device=device, requires_grad=True)
    y = t[_tensor_key(key, device)]
    want = x[key]
    assert y.shape == want.shape
    np.testing.assert_array_equal(y.numpy(), want)
    w = np.random.default_rng(0).standard_normal(want.shape)
    (y * tinyffn.tensor(w, device=device)).sum().backward()
    gx = np.zeros(SHAPE)
    np.add.at(gx, key, w)               # a repeated index gets the sum of its gradients
    np.testing.assert_array_equal(t.grad.numpy(), gx)


def test_a_mixed_key_passes_gradcheck_on_every_device(device):
    x = tinyffn.tensor(np.random.default_rng(1).standard_normal(SHAPE), device=device,
                       requires_grad=True)
    key = _tensor_key(KEYS["x[i, :, j] (apart: the block first)"], device)
    assert tinyffn.gradcheck(lambda x: x[key] ** 2, [x])


@pytest.mark.parametrize("name", ["x[:, i]", "x[i, :, j] (apart: the block first)"])
def test_index_add_reads_its_gradient_back_at_a_mixed_key(device, name):
    """IndexAdd's backward (getitem's, run forward) reads gy at the key: dL/dv = gy[key]."""
    key = KEYS[name]
    v_shape = np.zeros(SHAPE)[key].shape
    v = tinyffn.tensor(np.ones(v_shape), device=device, requires_grad=True)
    x = tinyffn.zeros(*SHAPE, dtype="float64", device=device)
    y = IndexAdd.apply(x, v, key=normalize_key(_tensor_key(key, device), x))
    gy = np.arange(24.0).reshape(SHAPE) ** 2
    (y * tinyffn.tensor(gy, device=device)).sum().backward()
    np.testing.assert_array_equal(v.grad.numpy(), gy[key])


@st.composite
def _keys(draw):
    """A shape of up to 4 axes (some empty) and a key of slices, ints, None, index arrays
    (broadcasting against each other), an ``...`` and True/False, anywhere."""
    shape = tuple(draw(st.lists(st.integers(0, 3), min_size=1, max_size=4)))
    block = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    key = []
    for n in shape:
        kind = draw(st.sampled_from(["slice", "int", "array", "array", "none"]))
        if kind == "none":
            key.append(None)
        if kind == "int" and n:
            key.append(draw(st.integers(-n, n - 1)))
        elif kind == "array" and n:
            sub = tuple(1 if draw(st.booleans()) else b
                        for b in block[draw(st.integers(0, len(block))):])
            values = draw(st.lists(st.integers(-n, n - 1), min_size=int(np.prod(sub)),
                                   max_size=int(np.prod(sub))))
            key.append(np.array(values, dtype=draw(st.sampled_from(["int8", "int64"])))
                       .reshape(sub))
        else:                           # the standard leaves slices past the ends unspecified
            bound = st.one_of(st.none(), st.integers(-n, n)) if n else st.none()
            key.append(slice(draw(bound), draw(bound), draw(st.sampled_from([None, 2, -1]))))
    cut = draw(st.integers(0, len(key)))
    key = key[:cut] + [Ellipsis] + key[cut + draw(st.integers(0, len(key) - cut)):] \
        if draw(st.booleans()) else key[:max(cut, 1)]
    if draw(st.booleans()):
        key.insert(draw(st.integers(0, len(key))), draw(st.booleans()))
    if not any(isinstance(k, (np.ndarray, bool)) for k in key):
        key.append(Ellipsis)            # basic indexing wants it (normalize_key adds it)
    return shape, tuple(key)


@settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
@given(_keys())
def test_takes_give_numpys_indexing_in_the_strict_namespace(case):
    """NumPy's full rule, True/False and integers among the arrays too (keys that
    tinyffn's Tensor refuses, where PyTorch lays them out otherwise, included)."""
    xp = pytest.importorskip("array_api_strict")
    shape, key = case
    x = np.arange(float(np.prod(shape))).reshape(shape)
    try:
        want = x[key]
    except IndexError:                  # too many indices for the shape drawn
        return
    got = takes.getitem(xp, xp.asarray(x), tuple(xp.asarray(k) if isinstance(k, np.ndarray)
                                                 else k for k in key))
    got = np.from_dlpack(got)
    assert got.shape == want.shape, key
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("shape, key, want", [
    ((2, 3, 4), (0, slice(None), I2), (2, 3)),                      # apart: the block first
    ((5, 3, 4, 6), (slice(None), I3, 0, I2[:, None]), (5, 2, 3)),   # together: in place
])
def test_an_integer_among_the_index_arrays_counts_as_one_of_them(shape, key, want):
    """NumPy reads an integer beside index arrays as a 0-d one, so it keeps them apart or
    joins them, which moves the block (keys that tinyffn's Tensor refuses, as PyTorch lays
    them out otherwise)."""
    xp = pytest.importorskip("array_api_strict")
    x = np.arange(float(np.prod(shape))).reshape(shape)
    got = takes.getitem(xp, xp.asarray(x), tuple(xp.asarray(k) if isinstance(k, np.ndarray)
                                                 else k for k in key))
    got = np.from_dlpack(got)
    assert got.shape == x[key].shape == want
    np.testing.assert_array_equal(got, x[key])


def test_pytorch_lays_out_the_keys_as_numpy():
    torch = pytest.importorskip("torch")
    x = np.arange(24.0).reshape(SHAPE)
    for name, key in KEYS.items():
        if "-2" in name:                # PyTorch has no negative steps
            continue
        got = torch.from_numpy(x)[tuple(torch.from_numpy(k) if isinstance(k, np.ndarray)
                                        else k for k in key)]
        assert got.shape == x[key].shape, name
        np.testing.assert_array_equal(got.numpy(), x[key])
