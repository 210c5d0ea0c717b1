"""The names of tinyffn/torch_accumulate.py (addmm, baddbmm, addcmul, addcdiv, var_mean, std_mean,
nansum, nanmean, cummax, cummin, logcumsumexp), of tinyffn/torch_select.py (clone,
masked_select, meshgrid, fliplr, flipud, rot90, searchsorted, bucketize) and
``F.kl_div`` / ``nn.KLDivLoss``.

Each case is one call, written once and run with the names of tinyffn and of torch.
References: PyTorch 2.13, live where it is installed, and its values and gradients written
out in ``EXPECTED`` and ``EXPECTED_GRADS`` (those tests run without it, on every device);
cummax's and logcumsumexp's values by a loop in NumPy; gradcheck on every device.
"""
import math
import warnings

import numpy as np
import pytest

import tinyffn
import torch_parity

X = [[0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5]]
W = [[1.0, 2.0, -3.0, 0.5], [0.5, -0.5, 0.25, 2.0]]
N = [[1.0, 3.0, 3.0, 2.0, math.nan, 5.0, math.nan], [2.0, 1.0, 1.0, -1.0, 0.0, 7.0, 8.0]]
P = [[0.1, 0.2, 0.7, 0.0], [0.25, 0.25, 0.25, 0.25]]         # rows of probabilities

CASES = [
    "T.addmm(b, a, a.T)", "T.addmm(x, a, x3[0], beta=0.5, alpha=-2)",
    "b.addmm(a, a.T, beta=0, alpha=3)", "T.addmm(nan2, a, a.T, beta=0)",
    "T.baddbmm(x3[:, :, :3], x3, x3.mT)", "T.baddbmm(v, x3, x3.mT / 10, beta=0.5, alpha=-2)",
    "x3[:1, :, :1].baddbmm(x3, x3.mT, alpha=0.25)", "T.baddbmm(nan2[:1, :1], x3, x3.mT, beta=0)",
    "T.addcmul(x, x, w)", "x.addcmul(w, x[0], value=0.5)", "T.addcmul(i, i, i, value=2)",
    "T.addcdiv(x, x, w)", "x.addcdiv(w, w.abs() + 1, value=-2)",
    "T.var_mean(x)", "T.var_mean(x, 1)", "T.var_mean(x, (0, 1), keepdim=True)",
    "T.var_mean(x, 0, correction=0)", "T.std_mean(x, 1)", "T.std_mean(x, unbiased=False)",
    "T.nansum(n)", "T.nansum(n, 1)", "n.nansum(0, keepdim=True)", "T.nansum(i)",
    "T.nanmean(n)", "T.nanmean(n, 1)", "n.nanmean(0)", "T.nanmean(n.half(), 1)",
    "T.cummax(n, 1)", "T.cummin(n, 1)", "n.cummax(0)", "T.cummin(i, 1)", "T.cummax(x, -1)",
    "T.cummax(s, 0)",
    "T.logcumsumexp(x, 1)", "x.logcumsumexp(0)", "T.logcumsumexp(wide, 0)",
    "T.logcumsumexp(x.half(), 1)",
    "T.clone(x)", "T.masked_select(x, x > 0)", "x.masked_select(m)", "T.masked_select(i, m[0, :3])",
    "T.meshgrid(v, v[:2], indexing='ij')", "T.meshgrid([v, v[:2]], indexing='xy')",
    "T.meshgrid(v, v[:2], x[0], indexing='xy')", "T.meshgrid(s, indexing='ij')",
    "T.fliplr(x)", "x.flipud()", "T.rot90(x)", "T.rot90(x, 2)", "x.rot90(-1)",
    "T.rot90(x3, 1, (2, 0))", "T.rot90(x, 4)",
    "T.searchsorted(srt, v)", "T.searchsorted(srt, v, right=True)",
    "T.searchsorted(srt, q, side='right')", "T.searchsorted(srt, 2.0)",
    "T.searchsorted(rows, x)", "T.searchsorted(srt, q, out_int32=True)",
    "T.bucketize(q, srt)", "T.bucketize(q, srt, right=True)", "T.bucketize(x, srt, out_int32=True)",
    "F.kl_div(lp, p, reduction='sum')", "F.kl_div(lp, p, reduction='batchmean')",
    "F.kl_div(lp, p, reduction='none')", "F.kl_div(lp, lq, reduction='sum', log_target=True)",
    "F.kl_div(lp, p)", "nn.KLDivLoss(reduction='batchmean')(lp, p)",
    "nn.KLDivLoss(reduction='sum', log_target=True)(lp, lq)",
]


def run(module, case: str, requires_grad: str = "", **tensor_kwargs):
    inputs = {}
    values = dict(x=X, w=W, n=N, p=P, v=[1.0, 2.5, -1.0], s=[2.0], b=[1.0, -1.0],
                  a=[[1.0, 2.0, 0.5], [-1.0, 0.25, 3.0]], nan2=[[math.nan, 1.0], [2.0, 3.0]],
                  wide=[-1000.0, 0.0, -math.inf, 5.0, math.inf, 1.0],
                  x3=np.arange(24.0).reshape(2, 3, 4).tolist(),
                  srt=[-1.0, 0.0, 0.5, 0.5, 2.0], q=[0.5, -3.0, 2.0, 9.0, math.nan, 0.25, -math.inf],
                  rows=[[-1.0, 0.0, 1.0], [0.0, 0.25, 1.5]])
    for name, v in values.items():
        inputs[name] = module.tensor(v, dtype=module.float64, **tensor_kwargs)
        if name == requires_grad:
            inputs[name].requires_grad_(True)
    p = inputs["p"]
    inputs["lp"] = (inputs["x"].softmax(-1) if module is tinyffn else inputs["x"].softmax(-1)).log()
    inputs["lq"] = (p + 0.01).log() - (p + 0.01).sum(-1, keepdim=True).log()
    inputs["i"] = module.tensor([[0, 4, 2], [4, 1, 3]], **tensor_kwargs)
    inputs["m"] = module.tensor([[True, False, True, True], [False, False, True, False]],
                                **tensor_kwargs)
    if "half" in case and tensor_kwargs.get("device") == "strict":
        pytest.skip("the strict backend has no float16")
    F = module.nn.functional
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)        # kl_div's 'mean', as torch's
        y = eval(case, {}, {"T": module, "F": F, "nn": module.nn, **inputs})
    if isinstance(y, tuple) and not hasattr(y, "values"):
        y = tuple(y)
    elif hasattr(y, "values") and not callable(y.values):
        y = (y.values, y.indices)
    return (y, inputs[requires_grad]) if requires_grad else y


plain = torch_parity.plain


def assert_same(actual, expected, case):
    """dtype, shape and values to 1e-12 (float16 to 1 ulp), NaN equal to NaN."""
    if isinstance(expected, tuple) and isinstance(expected[0], tuple):
        for a, e in zip(actual, expected):
            assert_same(a, e, case)
        assert len(actual) == len(expected), case
        return
    torch_parity.assert_close(actual, expected, case,
                              rtol=1e-3 if expected[0] == "float16" else 1e-12, atol=1e-15)


GRAD_CASES = [
    ("T.addmm(b, a, a.T, beta=0.5, alpha=-2)", "a"), ("T.addmm(b, a, a.T, beta=0.5)", "b"),
    ("T.baddbmm(x3[:, :, :3], x3, x3.mT / 10, beta=2)", "x3"),
    ("T.baddbmm(b[:1], x3, x3.mT, beta=0.5, alpha=3)", "b"),
    ("T.addcmul(x, x, w, value=3)", "w"), ("T.addcdiv(x, x, w, value=0.5)", "w"),
    ("T.var_mean(x, 1)[0] + T.var_mean(x, 1)[1]", "x"), ("T.std_mean(x)[0] * 2", "x"),
    ("T.nansum(n, 1)", "n"), ("T.nanmean(n, 1)", "n"), ("T.nanmean(n)", "n"),
    ("T.cummax(n, 1).values", "n"), ("T.cummin(x, 1).values", "x"), ("n.cummax(0).values", "n"),
    ("T.logcumsumexp(x, 1)", "x"), ("T.logcumsumexp(wide[:2], 0)", "wide"),
    ("T.clone(x) * x", "x"), ("T.masked_select(x, x > 0)", "x"),
    ("T.meshgrid(v, v[:2], indexing='xy')[0]", "v"), ("T.meshgrid(v, x[0], indexing='ij')[1]", "x"),
    ("T.fliplr(x)", "x"), ("T.rot90(x3, 1, (2, 0))", "x3"), ("T.rot90(x, -1)", "x"),
    ("F.kl_div(x.log_softmax(-1), p, reduction='batchmean')", "x"),
    ("F.kl_div(x.log_softmax(-1), w.softmax(-1), reduction='sum')", "w"),
    ("F.kl_div(x, w, reduction='sum', log_target=True)", "w"),
]


def grad_of(module, case: str, wrt: str, **tensor_kwargs):
    y, x = run(module, case, requires_grad=wrt, **tensor_kwargs)
    return torch_parity.weighted_grad(module, y, x, **tensor_kwargs)


torch_parity.tests(globals(), marks=(pytest.mark.filterwarnings("ignore::RuntimeWarning"),),
                   assert_grad=torch_parity.assert_close)


def test_cummax_cummin_and_logcumsumexp_against_a_loop_in_numpy(device):
    """Running max/min (a tie to the later index, NaN staying) and log Σ exp by a Python
    loop with math.log(math.fsum(...)) relative to the row's running max, on random rows
    with repeated values."""
    r = np.random.default_rng(0)
    a = r.integers(-3, 4, (5, 40)).astype(float) + r.choice([0.0, 0.5], (5, 40))
    a[2, 7] = a[3, 30] = np.nan
    x = tinyffn.tensor(a, device=device)
    for op, better in (("cummax", np.greater_equal), ("cummin", np.less_equal)):
        values, indices = getattr(tinyffn, op)(x, 1)
        for row, vs, js in zip(a, values.numpy(), indices.numpy()):
            best = 0
            for k, v in enumerate(row):
                if np.isnan(v) or not np.isnan(row[best]) and better(v, row[best]):
                    best = k
                assert js[k] == best and (vs[k] == row[best] or np.isnan(row[best])), (op, k)
    b = r.standard_normal((3, 50)) * 30
    got = tinyffn.logcumsumexp(tinyffn.tensor(b, device=device), 1).numpy()
    for row, ys in zip(b, got):
        for k in range(len(row)):
            c = row[:k + 1].max()
            want = c + math.log(math.fsum(math.exp(v - c) for v in row[:k + 1]))
            assert abs(ys[k] - want) <= 1e-13 * max(1, abs(want)), k


def test_meshgrid_without_indexing_warns_as_pytorch_and_gives_ij(device):
    v = tinyffn.tensor([1.0, 2.0, 3.0], device=device)
    with pytest.warns(UserWarning, match="indexing="):
        a, b = tinyffn.meshgrid(v, v[:2])
    assert a.shape == b.shape == (3, 2) and a.tolist()[2] == [3.0, 3.0]


def test_kl_div_mean_warns_as_pytorch_and_gives_its_number(device):
    """'mean' divides by every entry (PyTorch's number, and its warning); 'batchmean' by
    the rows: for (2, 4) inputs, 4 times more."""
    x = tinyffn.tensor(X, dtype="float64", device=device).log_softmax(-1)
    p = tinyffn.tensor(P, dtype="float64", device=device)
    with pytest.warns(UserWarning, match="batchmean"):
        mean = tinyffn.nn.functional.kl_div(x, p)
    batch = tinyffn.nn.functional.kl_div(x, p, reduction="batchmean")
    np.testing.assert_allclose(batch.item(), 4 * mean.item(), rtol=1e-15)
    want = sum(t * (math.log(t) - v) for rt, rx in zip(P, x.tolist()) for t, v in zip(rt, rx) if t)
    np.testing.assert_allclose(batch.item(), want / 2, rtol=1e-14)


def test_searchsorted_against_numpy(device):
    r = np.random.default_rng(1)
    s = np.sort(r.integers(0, 10, 30).astype(float))
    v = r.integers(-1, 12, 200).astype(float) + r.choice([0.0, 0.5], 200)
    for side in ("left", "right"):
        got = tinyffn.searchsorted(tinyffn.tensor(s, device=device), tinyffn.tensor(v, device=device),
                                   side=side)
        np.testing.assert_array_equal(got.numpy(), np.searchsorted(s, v, side=side))
        assert got.numpy().dtype == np.int64 and not got.requires_grad



def test_searchsorted_of_a_float_number_among_integers_keeps_its_fraction(device):
    """A number is compared as it is: 1.5 among the integers [1, 2, 3] goes at 1 (NumPy's,
    torch's), not at 0 (it was cast to the sequence's int64 first, becoming 1)."""
    s = tinyffn.tensor([1, 2, 3], device=device)
    for v in (1.5, 2.5, -0.5, 3.5, 2):
        for right in (False, True):
            side = "right" if right else "left"
            want = int(np.searchsorted([1, 2, 3], v, side=side))
            assert tinyffn.searchsorted(s, v, right=right).item() == want, (v, side)
            assert tinyffn.bucketize(v, s, right=right).item() == want, (v, side)


def test_an_unsorted_sequence_is_refused_by_name(device):
    """searchsorted on [3, 1, 2] counted the entries below each value (2.0 gave 1, torch's
    binary search 2, NumPy's 2): an answer to a different question, said nowhere. Refused,
    row by row, saying to sort."""
    x = tinyffn.tensor([[1.0, 2.0, 3.0], [3.0, 1.0, 2.0]], device=device)
    v = tinyffn.tensor([[2.0], [2.0]], device=device)
    for call in (lambda: tinyffn.searchsorted(x[1], 2.0), lambda: tinyffn.searchsorted(x, v),
                 lambda: tinyffn.bucketize(v, x[1])):
        with pytest.raises(ValueError, match="not sorted along its last axis.*sort"):
            call()
    assert tinyffn.searchsorted(x[:1], v[:1]).tolist() == [[1]]     # the sorted row alone


def test_cummax_cummin_of_an_empty_axis_are_empty(device):
    """Along an axis of length 0, cummax/cummin give empty values and int64 indices of the
    input's shape, as torch's: they raised max's 'holds no elements' error about a
    (3, 0, 0) tensor the user never made."""
    x = tinyffn.zeros((0, 3), dtype="float64", device=device, requires_grad=True)
    for op in ("cummax", "cummin"):
        for dim in (0, 1, -2):
            values, indices = getattr(tinyffn, op)(x, dim)
            assert values.shape == indices.shape == (0, 3) and values.requires_grad
            assert indices.numpy().dtype == np.int64
            values.sum().backward()
            assert x.grad.shape == (0, 3)



def test_searchsorted_with_nan_in_the_sequence_is_numpys(device):
    """NaN sorts last and counts as larger than every number, NumPy's rule: a NaN value goes
    before the first NaN (left) or after the last (right). PyTorch's binary search gives
    position-dependent answers here (the module docstring)."""
    s = np.array([1.0, 2.0, 2.0, np.nan, np.nan])
    v = np.array([0.0, 2.0, 3.0, np.inf, np.nan])
    for side in ("left", "right"):
        got = tinyffn.searchsorted(tinyffn.tensor(s, device=device),
                                   tinyffn.tensor(v, device=device), side=side)
        np.testing.assert_array_equal(got.numpy(), np.searchsorted(s, v, side=side))


def test_var_mean_keepdim_over_every_axis_keeps_every_axis(device):
    """var_mean(x, keepdim=True) with no dim gives both of shape (1, 1), NumPy's keepdims."""
    a = np.arange(8.0).reshape(2, 4) ** 2
    for op, ref in (("var_mean", np.var), ("std_mean", np.std)):
        v, m = getattr(tinyffn, op)(tinyffn.tensor(a, device=device), keepdim=True, correction=0)
        assert v.shape == m.shape == (1, 1)
        np.testing.assert_allclose(v.numpy(), ref(a, keepdims=True), rtol=1e-15)
        np.testing.assert_allclose(m.numpy(), a.mean(keepdims=True), rtol=1e-15)


def test_nanmean_of_float16_sums_in_float32(device):
    """60000 + 60000 overflows float16: the mean of [60000, 60000, NaN] is 60000 here, the
    float32 sum rounded once, as torch.mean gives (torch.nanmean gives inf)."""
    if device == "strict":
        pytest.skip("the strict backend has no float16")
    x = tinyffn.tensor([60000.0, 60000.0, math.nan], dtype="float16", device=device)
    y = tinyffn.nanmean(x)
    assert y.numpy().dtype == np.float16 and y.item() == 60000.0


def test_searchsorted_right_true_with_side_left_is_refused():
    with pytest.raises(ValueError, match="searchsorted: right=True and side='left' disagree"):
        tinyffn.searchsorted(tinyffn.tensor([1.0, 2.0]), 1.0, right=True, side="left")


GRADCHECKED = {
    "addmm": (lambda b, a, c: tinyffn.addmm(b, a, c, beta=0.5, alpha=2), [[1.0, 2.0], X, [r[:2] for r in W] * 2]),
    "baddbmm": (lambda b, a, c: tinyffn.baddbmm(b, a.reshape(2, 2, 2), c.reshape(2, 2, 2),
                                                beta=0.5, alpha=2), [[1.0, 2.0], X, W]),
    "addcmul": (lambda x, w: tinyffn.addcmul(x, x, w, value=0.3), [X, W]),
    "addcdiv": (lambda x, w: tinyffn.addcdiv(x, x, w, value=0.3), [X, W]),
    "var_mean": (lambda x: tinyffn.var_mean(x, 1)[0] * tinyffn.var_mean(x, 1)[1], [X]),
    "std_mean": (lambda x: tinyffn.std_mean(x, 0)[0] + tinyffn.std_mean(x, 0)[1], [X]),
    "nansum": (lambda x: tinyffn.nansum(x * x, 1), [X]),
    "nanmean": (lambda x: tinyffn.nanmean(x, 0), [X]),
    "cummax": (lambda x: tinyffn.cummax(x, 1).values, [X]),
    "cummin": (lambda x: x.cummin(0).values, [X]),
    "logcumsumexp": (lambda x: tinyffn.logcumsumexp(x, 1), [X]),
    "clone": (tinyffn.clone, [X]), "masked_select": (lambda x: tinyffn.masked_select(x, tinyffn.tensor(
        [True, False, True, True], device=x.device)), [X]),
    "meshgrid": (lambda x, w: tinyffn.meshgrid(x[0], w[1], indexing="xy")[1] * 2, [X, W]),
    "fliplr": (tinyffn.fliplr, [X]), "flipud": (tinyffn.flipud, [X]),
    "rot90": (lambda x: tinyffn.rot90(x, 3), [X]),
    "kl_div": (lambda x, w: tinyffn.nn.functional.kl_div(x.log_softmax(-1), w.softmax(-1),
                                                        reduction="batchmean"), [X, W]),
}


@pytest.mark.parametrize("name", GRADCHECKED)
def test_gradcheck(name, device):
    fn, values = GRADCHECKED[name]
    assert tinyffn.gradcheck(fn, [tinyffn.tensor(v, dtype="float64", device=device,
                                                 requires_grad=True) for v in values])


@pytest.mark.parametrize("call, error, words", [
    ("T.addmm(x, x, x)", ValueError, "(n, m) and (m, p)"),
    ("T.addmm(x, x[:, :2].T, x[:, :2])", ValueError, "does not broadcast"),
    # input (1, 2, 3) against the product (1, 2, 2), a 4-D input, beta not a number:
    # PyTorch refuses each (without the check the add broadcast them, or said nothing)
    ("T.baddbmm(x[None, :, :3], x[None], x[None].mT)", ValueError, "does not broadcast"),
    ("T.baddbmm(x[None, None, :, :2], x[None], x[None].mT)", ValueError, "does not broadcast"),
    ("T.addmm(x, x.T, x, beta='2')", TypeError, "beta must be a number"),
    ("T.addcdiv(x, i, i)", TypeError, "both integers"),
    ("T.nanmean(i)", TypeError, "floating-point"),
    ("T.logcumsumexp(i, 0)", TypeError, "floating-point"),
    ("T.cummax(x, 2)", IndexError, "dim=2 is out of range"),
    ("T.cummax(x > 0, 0)", TypeError, "bool"),
    ("T.clone(x, memory_format='channels_last')", ValueError, "one layout"),
    ("T.masked_select(x, i)", TypeError, "bool tensor"),
    ("T.masked_select(x, x[:, :3] > 0)", ValueError, "cannot be broadcast"),
    ("T.meshgrid(x, indexing='ij')", ValueError, "1-D or 0-d"),
    ("T.meshgrid(x[0], x[0], indexing='yx')", ValueError, "'ij' or 'xy'"),
    ("T.fliplr(x[0])", ValueError, "at least 2 axes"),
    ("T.rot90(x, 1, (0, 0))", ValueError, "two different axes"),
    ("T.searchsorted(x, x[:, :1].T)", ValueError, "one sequence per row"),
    ("T.searchsorted(x[0], x, side='middle')", ValueError, "'left' or 'right'"),
    ("T.bucketize(x, x)", ValueError, "1-D"),
])
def test_errors_name_the_op_and_say_what_to_do(call, error, words):
    x = tinyffn.tensor(X, dtype="float64")
    i = tinyffn.tensor([[1, 2], [3, 4]])
    with pytest.raises(error) as info:
        eval(call, {"T": tinyffn, "x": x, "i": i})
    assert words in str(info.value) and call[2:call.index("(")] in str(info.value)


def test_kl_div_errors():
    x = tinyffn.tensor(X, dtype="float64")
    with pytest.raises(ValueError, match="kl_div: unknown reduction='avg'"):
        tinyffn.nn.functional.kl_div(x, x, reduction="avg")
    with pytest.raises(ValueError, match="KLDivLoss: unknown reduction='avg'"):
        tinyffn.nn.KLDivLoss(reduction="avg")
    with pytest.raises(TypeError, match="kl_div: size_average and reduce"):
        tinyffn.nn.functional.kl_div(x, x, True)
    with pytest.raises(ValueError, match=r"kl_div: input has shape \(2, 4\) but target"):
        tinyffn.nn.functional.kl_div(x, x[0], reduction="sum")


nan, inf = math.nan, math.inf
EXPECTED = {
    'T.baddbmm(x3[:, :, :3], x3, x3.mT)': ('float64', [[[14.0, 39.0, 64.0], [42.0, 131.0, 220.0], [70.0, 223.0, 376.0]], [[746.0, 963.0, 1180.0], [966.0, 1247.0, 1528.0], [1186.0, 1531.0, 1876.0]]]),
    'T.baddbmm(v, x3, x3.mT / 10, beta=0.5, alpha=-2)': ('float64', [[[-2.3, -6.35, -12.9], [-7.1000000000000005, -23.949999999999996, -43.3], [-11.899999999999999, -41.55, -73.7]], [[-146.3, -188.75, -233.7], [-189.5, -244.75, -302.5], [-232.7, -300.74999999999994, -371.3]]]),
    'x3[:1, :, :1].baddbmm(x3, x3.mT, alpha=0.25)': ('float64', [[[3.5, 9.5, 15.5], [13.5, 35.5, 57.5], [23.5, 61.5, 99.5]], [[183.5, 237.5, 291.5], [241.5, 311.5, 381.5], [299.5, 385.5, 471.5]]]),
    'T.baddbmm(nan2[:1, :1], x3, x3.mT, beta=0)': ('float64', [[[14.0, 38.0, 62.0], [38.0, 126.0, 214.0], [62.0, 214.0, 366.0]], [[734.0, 950.0, 1166.0], [950.0, 1230.0, 1510.0], [1166.0, 1510.0, 1854.0]]]),
    'T.addmm(b, a, a.T)': ('float64', [[6.25, 0.0], [2.0, 9.0625]]),
    'T.addmm(x, a, x3[0], beta=0.5, alpha=-2)': ('float64', [[-23.75, -32.0, -36.5, -45.0], [-52.0, -53.75, -58.875, -63.75]]),
    'b.addmm(a, a.T, beta=0, alpha=3)': ('float64', [[15.75, 3.0], [3.0, 30.1875]]),
    'T.addmm(nan2, a, a.T, beta=0)': ('float64', [[5.25, 1.0], [1.0, 10.0625]]),
    'T.addcmul(x, x, w)': ('float64', [[1.0, -6.0, -6.0, 0.0], [-6.0, 0.75, 0.3125, -1.5]]),
    'x.addcmul(w, x[0], value=0.5)': ('float64', [[0.75, -4.0, -1.5, 0.0], [-3.875, 2.0, 0.625, -0.5]]),
    'T.addcmul(i, i, i, value=2)': ('int64', [[0, 36, 10], [36, 3, 21]]),
    'T.addcdiv(x, x, w)': ('float64', [[1.0, -3.0, 2.0, 0.0], [-12.0, -1.5, 1.25, -0.75]]),
    'x.addcdiv(w, w.abs() + 1, value=-2)': ('float64', [[-0.5, -3.333333333333333, 4.5, -0.6666666666666666], [-4.666666666666667, 2.1666666666666665, -0.15000000000000002, -1.8333333333333333]]),
    'T.var_mean(x)': (('float64', 4.516741071428571), ('float64', -0.15625)),
    'T.var_mean(x, 1)': (('float64', [4.229166666666667, 5.557291666666667]), ('float64', [0.375, -0.6875])),
    'T.var_mean(x, (0, 1), keepdim=True)': (('float64', [[4.516741071428571]]), ('float64', [[-0.15625]])),
    'T.var_mean(x, 0, correction=0)': (('float64', [5.0625, 3.0625, 1.890625, 0.0625]), ('float64', [-1.75, -0.25, 1.625, -0.25])),
    'T.std_mean(x, 1)': (('float64', [2.056493779875511, 2.357390859969273]), ('float64', [0.375, -0.6875])),
    'T.std_mean(x, unbiased=False)': (('float64', 1.9880011160711153), ('float64', -0.15625)),
    'T.nansum(n)': ('float64', 32.0),
    'T.nansum(n, 1)': ('float64', [14.0, 18.0]),
    'n.nansum(0, keepdim=True)': ('float64', [[3.0, 4.0, 4.0, 1.0, 0.0, 12.0, 8.0]]),
    'T.nansum(i)': ('int64', 14),
    'T.nanmean(n)': ('float64', 2.6666666666666665),
    'T.nanmean(n, 1)': ('float64', [2.8, 2.5714285714285716]),
    'n.nanmean(0)': ('float64', [1.5, 2.0, 2.0, 0.5, 0.0, 6.0, 8.0]),
    'T.nanmean(n.half(), 1)': ('float16', [2.80078125, 2.572265625]),
    'T.cummax(n, 1)': (('float64', [[1.0, 3.0, 3.0, 3.0, nan, nan, nan], [2.0, 2.0, 2.0, 2.0, 2.0, 7.0, 8.0]]), ('int64', [[0, 1, 2, 2, 4, 4, 6], [0, 0, 0, 0, 0, 5, 6]])),
    'T.cummin(n, 1)': (('float64', [[1.0, 1.0, 1.0, 1.0, nan, nan, nan], [2.0, 1.0, 1.0, -1.0, -1.0, -1.0, -1.0]]), ('int64', [[0, 0, 0, 0, 4, 4, 6], [0, 1, 2, 3, 3, 3, 3]])),
    'n.cummax(0)': (('float64', [[1.0, 3.0, 3.0, 2.0, nan, 5.0, nan], [2.0, 3.0, 3.0, 2.0, nan, 7.0, nan]]), ('int64', [[0, 0, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 1, 0]])),
    'T.cummin(i, 1)': (('int64', [[0, 0, 0], [4, 1, 1]]), ('int64', [[0, 0, 0], [0, 1, 1]])),
    'T.cummax(x, -1)': (('float64', [[0.5, 0.5, 3.0, 3.0], [-4.0, 1.5, 1.5, 1.5]]), ('int64', [[0, 0, 2, 2], [0, 1, 1, 1]])),
    'T.cummax(s, 0)': (('float64', [2.0]), ('int64', [0])),
    'T.logcumsumexp(x, 1)': ('float64', [[0.5, 0.5788897342925496, 3.08509724636431, 3.129808232499548], [-4.0, 1.5040784432705707, 1.7551006933343483, 1.8548220244178275]]),
    'x.logcumsumexp(0)': ('float64', [[0.5, -2.0, 3.0, 0.0], [0.5110477448485938, 1.5297504182726205, 3.0619675890031988, 0.4740769841801067]]),
    'T.logcumsumexp(wide, 0)': ('float64', [-1000.0, 0.0, 0.0, 5.006715348489118, inf, inf]),
    'T.logcumsumexp(x.half(), 1)': ('float16', [[0.5, 0.5791015625, 3.0859375, 3.12890625], [-4.0, 1.50390625, 1.7548828125, 1.8544921875]]),
    'T.clone(x)': ('float64', [[0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5]]),
    'T.masked_select(x, x > 0)': ('float64', [0.5, 3.0, 1.5, 0.25]),
    'x.masked_select(m)': ('float64', [0.5, 3.0, 0.0, 0.25]),
    'T.masked_select(i, m[0, :3])': ('int64', [0, 2, 4, 3]),
    "T.meshgrid(v, v[:2], indexing='ij')": (('float64', [[1.0, 1.0], [2.5, 2.5], [-1.0, -1.0]]), ('float64', [[1.0, 2.5], [1.0, 2.5], [1.0, 2.5]])),
    "T.meshgrid([v, v[:2]], indexing='xy')": (('float64', [[1.0, 2.5, -1.0], [1.0, 2.5, -1.0]]), ('float64', [[1.0, 1.0, 1.0], [2.5, 2.5, 2.5]])),
    "T.meshgrid(v, v[:2], x[0], indexing='xy')": (('float64', [[[1.0, 1.0, 1.0, 1.0], [2.5, 2.5, 2.5, 2.5], [-1.0, -1.0, -1.0, -1.0]], [[1.0, 1.0, 1.0, 1.0], [2.5, 2.5, 2.5, 2.5], [-1.0, -1.0, -1.0, -1.0]]]), ('float64', [[[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]], [[2.5, 2.5, 2.5, 2.5], [2.5, 2.5, 2.5, 2.5], [2.5, 2.5, 2.5, 2.5]]]), ('float64', [[[0.5, -2.0, 3.0, 0.0], [0.5, -2.0, 3.0, 0.0], [0.5, -2.0, 3.0, 0.0]], [[0.5, -2.0, 3.0, 0.0], [0.5, -2.0, 3.0, 0.0], [0.5, -2.0, 3.0, 0.0]]])),
    "T.meshgrid(s, indexing='ij')": (('float64', [2.0]),),
    'T.fliplr(x)': ('float64', [[0.0, 3.0, -2.0, 0.5], [-0.5, 0.25, 1.5, -4.0]]),
    'x.flipud()': ('float64', [[-4.0, 1.5, 0.25, -0.5], [0.5, -2.0, 3.0, 0.0]]),
    'T.rot90(x)': ('float64', [[0.0, -0.5], [3.0, 0.25], [-2.0, 1.5], [0.5, -4.0]]),
    'T.rot90(x, 2)': ('float64', [[-0.5, 0.25, 1.5, -4.0], [0.0, 3.0, -2.0, 0.5]]),
    'x.rot90(-1)': ('float64', [[-4.0, 0.5], [1.5, -2.0], [0.25, 3.0], [-0.5, 0.0]]),
    'T.rot90(x3, 1, (2, 0))': ('float64', [[[12.0, 0.0], [16.0, 4.0], [20.0, 8.0]], [[13.0, 1.0], [17.0, 5.0], [21.0, 9.0]], [[14.0, 2.0], [18.0, 6.0], [22.0, 10.0]], [[15.0, 3.0], [19.0, 7.0], [23.0, 11.0]]]),
    'T.rot90(x, 4)': ('float64', [[0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5]]),
    'T.searchsorted(srt, v)': ('int64', [4, 5, 0]),
    'T.searchsorted(srt, v, right=True)': ('int64', [4, 5, 1]),
    "T.searchsorted(srt, q, side='right')": ('int64', [4, 0, 5, 5, 5, 2, 0]),
    'T.searchsorted(srt, 2.0)': ('int64', 4),
    'T.searchsorted(rows, x)': ('int64', [[2, 0, 3, 1], [0, 2, 1, 0]]),
    'T.searchsorted(srt, q, out_int32=True)': ('int32', [2, 0, 4, 5, 5, 2, 0]),
    'T.bucketize(q, srt)': ('int64', [2, 0, 4, 5, 5, 2, 0]),
    'T.bucketize(q, srt, right=True)': ('int64', [4, 0, 5, 5, 5, 2, 0]),
    'T.bucketize(x, srt, out_int32=True)': ('int32', [[2, 0, 5, 1], [0, 4, 2, 1]]),
    "F.kl_div(lp, p, reduction='sum')": ('float64', 1.7340173432541477),
    "F.kl_div(lp, p, reduction='batchmean')": ('float64', 0.8670086716270738),
    "F.kl_div(lp, p, reduction='none')": ('float64', [[0.03272231395055025, 0.7040740640130896, -0.15880669800742886, 0.0], [1.1171319158244841, -0.2578680841755158, 0.05463191582448418, 0.24213191582448418]]),
    "F.kl_div(lp, lq, reduction='sum', log_target=True)": ('float64', 1.7228112511071445),
    'F.kl_div(lp, p)': ('float64', 0.21675216790676846),
    "nn.KLDivLoss(reduction='batchmean')(lp, p)": ('float64', 0.8670086716270738),
    "nn.KLDivLoss(reduction='sum', log_target=True)(lp, lq)": ('float64', 1.7228112511071445),
}

EXPECTED_GRADS = {
    'T.baddbmm(x3[:, :, :3], x3, x3.mT / 10, beta=2) dx3': ('float64', [[[1.24, 1.62, 2.0, 1.58], [2.3200000000000003, 2.8200000000000003, 3.3200000000000003, 2.42], [3.4, 4.02, 4.64, 3.26]], [[13.84, 14.759999999999998, 15.680000000000001, 14.0], [16.36, 17.4, 18.44, 16.279999999999998], [18.88, 20.04, 21.200000000000003, 18.560000000000002]]]),
    'T.baddbmm(b[:1], x3, x3.mT, beta=0.5, alpha=3) db': ('float64', [8.55, 0.0]),
    'T.addmm(b, a, a.T, beta=0.5, alpha=-2) da': ('float64', [[0.6, -1.05, -3.2], [0.6000000000000001, -2.4, -5.300000000000001]]),
    'T.addmm(b, a, a.T, beta=0.5) db': ('float64', [0.2, 0.30000000000000004]),
    'T.addcmul(x, x, w, value=3) dw': ('float64', [[0.15000000000000002, -1.2000000000000002, 2.6999999999999997, 0.0], [-6.0, 2.6999999999999997, 0.5249999999999999, -1.2000000000000002]]),
    'T.addcdiv(x, x, w, value=0.5) dw': ('float64', [[-0.025, 0.05, -0.049999999999999996, -0.0], [4.0, -1.7999999999999998, -1.4, 0.05]]),
    'T.var_mean(x, 1)[0] + T.var_mean(x, 1)[1] dx': ('float64', [[0.03333333333333333, -0.13333333333333333, 0.19999999999999998, 0.0], [-0.39166666666666666, 0.3416666666666667, 0.175, 0.07500000000000001]]),
    'T.std_mean(x)[0] * 2 dx': ('float64', [[0.008822439212290381, -0.02478685302500631, 0.042431731449587076, 0.0021005807648310434], [-0.051674286814843665, 0.02226615610720906, 0.005461509988560712, -0.004621277682628295]]),
    'T.nansum(n, 1) dn': ('float64', [[0.1, 0.1, 0.1, 0.1, 0.0, 0.1, 0.0], [0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2]]),
    'T.nanmean(n, 1) dn': ('float64', [[0.02, 0.02, 0.02, 0.02, 0.0, 0.02, 0.0], [0.028571428571428574, 0.028571428571428574, 0.028571428571428574, 0.028571428571428574, 0.028571428571428574, 0.028571428571428574, 0.028571428571428574]]),
    'T.nanmean(n) dn': ('float64', [[0.008333333333333333, 0.008333333333333333, 0.008333333333333333, 0.008333333333333333, 0.0, 0.008333333333333333, 0.0], [0.008333333333333333, 0.008333333333333333, 0.008333333333333333, 0.008333333333333333, 0.008333333333333333, 0.008333333333333333, 0.008333333333333333]]),
    'T.cummax(n, 1).values dn': ('float64', [[0.1, 0.2, 0.7, 0.0, 1.1, 0.0, 0.7], [5.0, 0.0, 0.0, 0.0, 0.0, 1.3, 1.4]]),
    'T.cummin(x, 1).values dx': ('float64', [[0.1, 0.9, 0.0, 0.0], [2.6, 0.0, 0.0, 0.0]]),
    'n.cummax(0).values dn': ('float64', [[0.1, 1.1, 1.3, 1.5, 1.7, 0.6, 2.0999999999999996], [0.8, 0.0, 0.0, 0.0, 0.0, 1.3, 0.0]]),
    'T.logcumsumexp(x, 1) dx': ('float64', [[0.33628190273294034, 0.0193951996606856, 0.6268324249226288, 0.01749047268374512], [0.5069515305615425, 1.700983445297605, 0.3161367067291141, 0.07592831741173817]]),
    'T.logcumsumexp(wide[:2], 0) dwide': ('float64', [0.10000000000000095, 0.2, 0.0, 0.0, 0.0, 0.0]),
    'T.clone(x) * x dx': ('float64', [[0.1, -0.8, 1.7999999999999998, 0.0], [-4.0, 1.7999999999999998, 0.35, -0.8]]),
    'T.masked_select(x, x > 0) dx': ('float64', [[0.1, 0.0, 0.2, 0.0], [0.0, 0.3, 0.4, 0.0]]),
    "T.meshgrid(v, v[:2], indexing='xy')[0] dv": ('float64', [0.5, 0.7, 0.8999999999999999]),
    "T.meshgrid(v, x[0], indexing='ij')[1] dx": ('float64', [[1.5, 1.8, 2.1, 2.4000000000000004], [0.0, 0.0, 0.0, 0.0]]),
    'T.fliplr(x) dx': ('float64', [[0.4, 0.3, 0.2, 0.1], [0.8, 0.7, 0.6, 0.5]]),
    'T.rot90(x3, 1, (2, 0)) dx3': ('float64', [[[0.2, 0.8, 1.4, 2.0], [0.4, 1.0, 1.6, 2.2], [0.6, 1.2, 1.8, 2.4]], [[0.1, 0.7, 1.3, 1.9], [0.3, 0.9, 1.5, 2.1], [0.5, 1.1, 1.7, 2.3]]]),
    'T.rot90(x, -1) dx': ('float64', [[0.2, 0.4, 0.6, 0.8], [0.1, 0.3, 0.5, 0.7]]),
    "F.kl_div(x.log_softmax(-1), p, reduction='batchmean') dx": ('float64', [[-0.0013953857064637335, -0.009704115240675392, 0.008913191861670992, 0.0021863090854681404], [-0.01235669771790664, 0.02256491230329663, -0.0024537344236236175, -0.007754480161766365]]),
    "F.kl_div(x.log_softmax(-1), w.softmax(-1), reduction='sum') dw": ('float64', [[-0.0498067821809937, 0.0836695155827383, -0.003653392947343117, -0.030209340454401535], [0.03382065210329382, -0.023633562358975266, -0.026533235830075594, 0.016346146085757057]]),
    "F.kl_div(x, w, reduction='sum', log_target=True) dw": ('float64', [[0.4077422742688568, 3.694528049465325, -0.024893534183931976, 0.24730819060501924], [0.9067966988850705, -0.06065306597126335, 0.12840254166877416, 2.586169634625728]]),
}
