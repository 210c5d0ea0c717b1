"""quantile, nanquantile, aminmax, isposinf, isneginf, signbit, logit (tinyffn/torch_stats.py):
ported numerics scripts hit AttributeError on them.

References: PyTorch 2.13's values written out (run on every device, without torch), NumPy's
own np.quantile / np.nanquantile (the same five interpolations) and np.signbit, torch live
where installed (values, shapes, gradients of the input and of q), and gradcheck.
"""
import math

import numpy as np
import pytest

import tinyffn

nan, inf = math.nan, math.inf
X = [[3.0, 1.0, 2.0, 5.0], [0.0, nan, 4.0, 1.0], [nan, nan, nan, nan]]
Q = [0.0, 0.25, 0.5, 0.9, 1.0]
# torch 2.13, float64: quantile(X, Q, dim=1).T and nanquantile(X, Q, dim=1).T
EXPECTED = {
    "linear": ([1.0, 1.75, 2.5, 4.4, 5.0], [0.0, 0.5, 1.0, 3.4, 4.0]),
    "lower": ([1.0, 1.0, 2.0, 3.0, 5.0], [0.0, 0.0, 1.0, 1.0, 4.0]),
    "higher": ([1.0, 2.0, 3.0, 5.0, 5.0], [0.0, 1.0, 1.0, 4.0, 4.0]),
    "midpoint": ([1.0, 1.5, 2.5, 4.0, 5.0], [0.0, 0.5, 1.0, 2.5, 4.0]),
    "nearest": ([1.0, 2.0, 3.0, 5.0, 5.0], [0.0, 0.0, 1.0, 4.0, 4.0]),
}


@pytest.mark.parametrize("interpolation", EXPECTED)
def test_quantiles_are_pytorchs_written_out(interpolation, device):
    x = tinyffn.tensor(X, dtype="float64", device=device)
    q = tinyffn.tensor(Q, dtype="float64", device=device)
    row0, row1_nan = EXPECTED[interpolation]
    got = tinyffn.quantile(x, q, dim=1, interpolation=interpolation).numpy().T   # (3, 5)
    np.testing.assert_allclose(got[0], row0, rtol=1e-15)
    assert np.isnan(got[1:]).all()                                  # a NaN in the row: NaN
    got = x.nanquantile(q, dim=1, interpolation=interpolation).numpy().T
    np.testing.assert_allclose(got[:2], [row0, row1_nan], rtol=1e-15)
    assert np.isnan(got[2]).all()                                   # all NaN: NaN


def test_nearest_rounds_half_to_even_as_pytorch(device):
    """ranks 0.5, 1.5, 2.5, 3.5 round to 0, 2, 2, 4 (torch 2.13: [0, 20, 20, 40])."""
    y = tinyffn.tensor([0.0, 10.0, 20.0, 30.0, 40.0], dtype="float64", device=device)
    q = tinyffn.tensor([0.125, 0.375, 0.625, 0.875], dtype="float64", device=device)
    assert tinyffn.quantile(y, q, interpolation="nearest").tolist() == [0.0, 20.0, 20.0, 40.0]


@pytest.mark.parametrize("interpolation", EXPECTED)
@pytest.mark.parametrize("dim", [None, 0, 1, -1])
def test_against_numpys_quantile(interpolation, dim, device):
    rng = np.random.default_rng(1)
    v = rng.normal(size=(4, 5, 6))
    v[1, 2, 3] = nan
    q = np.array([0.0, 0.1, 0.35, 0.5, 0.77, 1.0])
    x, qt = (tinyffn.tensor(a, dtype="float64", device=device) for a in (v, q))
    method = "nearest" if interpolation == "nearest" else interpolation   # same names
    for ours, theirs in ((tinyffn.quantile, np.quantile), (tinyffn.nanquantile, np.nanquantile)):
        for keepdim in (False, True):
            got = ours(x, qt, dim, keepdim, interpolation=interpolation).numpy()
            with np.errstate(invalid="ignore"):
                want = theirs(v, q, axis=dim, keepdims=keepdim, method=method)
            if keepdim and dim is None:            # NumPy keeps every axis too
                want = want.reshape((len(q),) + (1,) * v.ndim)
            assert got.shape == want.shape
            np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("func", ["quantile", "nanquantile"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_against_torch_live(func, dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    v = rng.normal(size=(5, 7, 6)).astype(dtype)
    v[1, 2, 3], v[0, :, 1] = nan, nan
    qv = np.array([0.0, 0.1, 0.25, 0.5, 0.73, 1.0], dtype)
    eps = np.finfo(dtype).eps
    for interpolation in EXPECTED:
        for q in (0.35, qv):
            for dim, keepdim in ((None, False), (None, True), (0, False), (1, True), (-1, False)):
                args = (q if isinstance(q, float) else tinyffn.tensor(q), dim, keepdim)
                got = getattr(tinyffn, func)(tinyffn.tensor(v), *args,
                                             interpolation=interpolation).numpy()
                targs = (q if isinstance(q, float) else torch.tensor(q), dim, keepdim)
                want = getattr(torch, func)(torch.tensor(v), *targs,
                                            interpolation=interpolation).numpy()
                assert got.shape == want.shape and got.dtype == want.dtype
                # torch's lerp fuses a multiply-add: its last bit may differ
                np.testing.assert_allclose(got, want, rtol=2 * eps, atol=2 * eps)


def test_gradients_of_input_and_q_are_torchs_live():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    v, qv, gy = rng.normal(size=(6, 5)), np.array([0.1, 0.5, 0.85]), rng.normal(size=(3, 5))
    x, q = (tinyffn.tensor(a, requires_grad=True) for a in (v, qv))
    xt, qtt = (torch.tensor(a, requires_grad=True) for a in (v, qv))
    (tinyffn.quantile(x, q, dim=0) * tinyffn.tensor(gy)).sum().backward()
    (torch.quantile(xt, qtt, dim=0) * torch.tensor(gy)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(q.grad.numpy(), qtt.grad.numpy(), rtol=1e-14, atol=1e-15)


def test_gradient_goes_to_the_two_neighbours_written_out(device):
    """[1, 5, 2, 0] sorted is [0, 1, 2, 5]: q = 0.3 sits at rank 0.9 (0.1 to 0, 0.9 to 1),
    q = 0.7 at 2.1 (0.9 to 2, 0.1 to 5); dq = 3 · (gap): 3 and 9 (torch 2.13 the same)."""
    x = tinyffn.tensor([1.0, 5.0, 2.0, 0.0], dtype="float64", device=device, requires_grad=True)
    q = tinyffn.tensor([0.3, 0.7], dtype="float64", device=device, requires_grad=True)
    tinyffn.quantile(x, q).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.9, 0.1, 0.9, 0.1], rtol=1e-14)
    np.testing.assert_allclose(q.grad.numpy(), [3.0, 9.0], rtol=1e-14)


@pytest.mark.parametrize("func", ["quantile", "nanquantile"])
@pytest.mark.parametrize("dim", [0, -1, None])
@pytest.mark.parametrize("keepdim", [False, True])
def test_a_0d_input_takes_dim_0_or_minus_1_as_torch(func, dim, keepdim, device):
    """torch 2.13: quantile(tensor(2.5), 0.3, dim=0) is 2.5 with shape (), and with q = [0.2,
    0.9] it is [2.5, 2.5], keepdim or not; the gradient is 1 per quantile. dim 0 raised an
    IndexError ('tuple index out of range') from inside the function."""
    x = tinyffn.tensor(2.5, dtype="float64", device=device, requires_grad=True)
    y = getattr(tinyffn, func)(x, 0.3, dim=dim, keepdim=keepdim)
    assert y.shape == () and y.item() == 2.5
    q = tinyffn.tensor([0.2, 0.9], dtype="float64", device=device)
    ys = getattr(x, func)(q, dim, keepdim)
    assert ys.shape == (2,) and ys.numpy().tolist() == [2.5, 2.5]
    (y + ys.sum()).backward()
    assert x.grad.item() == 3.0


@pytest.mark.parametrize("interpolation", ["linear", "midpoint", "lower"])
def test_gradcheck(interpolation, device):
    x = tinyffn.tensor(np.random.default_rng(4).normal(size=(3, 5)), dtype="float64",
                       device=device, requires_grad=True)
    q = tinyffn.tensor([0.1, 0.6], dtype="float64", device=device,
                       requires_grad=interpolation == "linear")
    assert tinyffn.gradcheck(
        lambda x, q: tinyffn.quantile(x, q, dim=1, interpolation=interpolation), [x, q])
    assert tinyffn.gradcheck(lambda x: x.nanquantile(0.3, dim=0), [x])


def test_aminmax_written_out_and_its_gradient_shared_among_ties(device):
    """torch 2.13: aminmax([1, 2, 2, 0]) = (0, 2); the gradient of min + 2 max is
    [0, 1, 1, 1] (the tie at 2 shares the 2)."""
    x = tinyffn.tensor([1.0, 2.0, 2.0, 0.0], dtype="float64", device=device, requires_grad=True)
    lo, hi = tinyffn.aminmax(x)
    assert (lo.item(), hi.item()) == (0.0, 2.0)
    (lo + 2 * hi).backward()
    assert x.grad.tolist() == [0.0, 1.0, 1.0, 1.0]
    m = tinyffn.tensor([[3, 1], [2, 7]], device=device).aminmax(dim=1, keepdim=True)
    assert m.min.tolist() == [[1], [2]] and m.max.tolist() == [[3], [7]]
    assert tinyffn.aminmax(x, keepdim=True).max.shape == (1,)


def test_aminmax_against_torch_live():
    torch = pytest.importorskip("torch")
    v = np.random.default_rng(5).normal(size=(3, 4, 5)).astype(np.float32)
    for kw in ({}, {"dim": 1}, {"dim": -1, "keepdim": True}, {"keepdim": True}):
        got, want = tinyffn.aminmax(tinyffn.tensor(v), **kw), torch.aminmax(torch.tensor(v), **kw)
        for g, w in ((got.min, want.min), (got.max, want.max)):
            assert g.shape == tuple(w.shape)
            np.testing.assert_array_equal(g.numpy(), w.numpy())


def test_isposinf_isneginf_signbit(device):
    v = [-0.0, 0.0, -1.0, inf, -inf, nan, 2.0]
    x = tinyffn.tensor(v, dtype="float64", device=device)
    assert tinyffn.isposinf(x).tolist() == [False, False, False, True, False, False, False]
    assert x.isneginf().tolist() == [False, False, False, False, True, False, False]
    assert tinyffn.signbit(x).tolist() == np.signbit(v).tolist()   # -0.0 True
    i = tinyffn.tensor([-1, 0, 2], device=device)
    assert tinyffn.signbit(i).tolist() == [True, False, False]
    assert not tinyffn.isposinf(i).any().item() and not i.isneginf().any().item()


def test_signbit_stays_on_the_device(device, monkeypatch):
    """signbit's bools are made on x's device: a copy of them to the host and back (a GPU
    sync and two transfers per call) fails here on the strict backend, whose arrays, as
    CuPy's, reach tinyffn.tensor() only through that copy (backend.numpy_or_native)."""
    from tinyffn import backend as B
    real = B.numpy_or_native

    def host_only(data):
        if hasattr(data, "__array_namespace__") and not isinstance(data, np.ndarray):
            raise AssertionError("signbit copied its result through the host")
        return real(data)
    monkeypatch.setattr(B, "numpy_or_native", host_only)
    for v, dtype, want in (([-0.0, 1.0, -2.0], "float32", [True, False, True]),
                           ([-1, 0, 2], "int64", [True, False, False])):
        x = tinyffn.tensor(v, dtype=dtype, device=device)
        y = tinyffn.signbit(x)
        assert y.device == device and B.dtype_name(y.dtype) == "bool" and y.tolist() == want


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning",
                            "ignore:invalid value:RuntimeWarning")
def test_logit_written_out(device):
    """torch 2.13: logit([0, 0.25, 1, 1.5]) = [-inf, -1.0986123, inf, nan]; with eps 0.1,
    [-2.1972246, -1.0986123, 2.1972246, 2.1972246] (log 9 = 2.1972246)."""
    x = tinyffn.tensor([0.0, 0.25, 1.0, 1.5], dtype="float64", device=device)
    got = tinyffn.logit(x).numpy()
    assert got[0] == -inf and got[2] == inf and np.isnan(got[3])
    np.testing.assert_allclose(got[1], -math.log(3), rtol=1e-15)
    np.testing.assert_allclose(x.logit(eps=0.1).numpy(),
                               [-math.log(9), -math.log(3), math.log(9), math.log(9)], rtol=1e-14)


def test_logit_gradient_is_torchs_live():
    torch = pytest.importorskip("torch")
    v = [0.05, 0.1, 0.25, 0.5, 0.9, 0.97]
    for eps in (None, 0.1):
        x, xt = tinyffn.tensor(v, requires_grad=True), torch.tensor(v, requires_grad=True)
        tinyffn.logit(x, eps).sum().backward()
        torch.logit(xt, eps).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=2e-6)


def test_logit_gradcheck(device):
    x = tinyffn.tensor([[0.05, 0.3], [0.6, 0.97]], dtype="float64", device=device,
                       requires_grad=True)
    assert tinyffn.gradcheck(lambda x: tinyffn.logit(x), [x])
    assert tinyffn.gradcheck(lambda x: tinyffn.logit(x, eps=0.2), [x])


@pytest.mark.parametrize("call, error, words", [
    (lambda x: tinyffn.quantile(x.long(), 0.5), TypeError, "float32 or float64"),
    (lambda x: tinyffn.quantile(x.half(), 0.5), TypeError, "input has dtype float16"),
    (lambda x: tinyffn.quantile(x, 1.5), ValueError, r"quantile: q must be in \[0, 1\], got 1.5"),
    (lambda x: tinyffn.quantile(x, tinyffn.tensor([0.5, -0.1])), ValueError, "in \\[0, 1\\]"),
    (lambda x: tinyffn.quantile(x, tinyffn.tensor([[0.5]])), ValueError, "0- or 1-d"),
    (lambda x: tinyffn.quantile(x, tinyffn.tensor([0.5], dtype="float64")), TypeError,
     "q has dtype float64 but input float32"),
    (lambda x: tinyffn.quantile(x, 0.5, interpolation="cubic"), ValueError,
     "interpolation must be one of linear"),
    (lambda x: tinyffn.quantile(x[:0], 0.5), ValueError, r"shape \(0, 3\) is empty"),
    (lambda x: tinyffn.quantile(x, "0.5"), TypeError, "q must be a number or a tensor"),
    (lambda x: tinyffn.quantile(x, 0.5, dim=2), Exception, "dim"),
    (lambda x: tinyffn.aminmax(x[:0]), ValueError, "aminmax: input of shape"),
    (lambda x: tinyffn.aminmax(x, dim=2), ValueError,
     r"aminmax: dim 2 is out of range for a tensor with 2 dimensions"),
    (lambda x: x.aminmax(dim=-3), ValueError, r"aminmax: dim -3 is out of range"),
    (lambda x: tinyffn.aminmax(x, dim=1.0), TypeError, "aminmax: dim must be an int"),
    (lambda x: tinyffn.logit(x, eps="0.1"), TypeError, "eps must be a number"),
])
def test_bad_input_is_refused_with_a_clear_message(call, error, words):
    with pytest.raises(error, match=words):
        call(tinyffn.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))


@pytest.mark.parametrize("func", ["quantile", "nanquantile"])
def test_more_than_2_to_the_24_entries_along_dim_is_refused_as_torch_refuses_it(func):
    """A rank q·(n - 1) in float32 rounds past n - 1 once n > 2^24 (n - 1 = 2^24 + 3 rounds
    to 2^24 + 4 = n): the gather that reads s at that rank would take an index out of range,
    which CuPy wraps around (quantile(x, 1.0) would be x's smallest entry). PyTorch refuses
    such an input, "quantile() input tensor is too large"; so does tinyffn, before sorting.
    (The count is of the dim reduced, as PyTorch's: 2^24 + 1 rows of one entry are fine.)"""
    n = 2 ** 24 + 1
    tall = tinyffn.zeros(1, 1).expand(n, 1)                   # (n, 1), no n entries held
    for call in (lambda: getattr(tinyffn, func)(tall, 1.0),
                 lambda: getattr(tinyffn, func)(tall, 0.5, dim=0)):
        with pytest.raises(ValueError, match=f"{func}: a row of {n} entries to take "
                           "quantiles of, more than 2\\^24"):
            call()
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match="quantile\\(\\) input tensor is too large"):
        getattr(torch, func)(torch.zeros(1, 1).expand(n, 1), 1.0)
