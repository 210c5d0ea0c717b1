"""F.embedding_bag and nn.EmbeddingBag (tinyffn/embedding_bag.py).

Each case is one call, written once and run with the names of tinyffn and of torch:
PyTorch 2.13 live where installed, its values and gradients written out in ``EXPECTED``
and ``EXPECTED_GRADS`` (run on every device without torch). The bags are also reduced by
hand in Python, gradcheck runs on every device, and the module is compared with torch's
(repr, state_dict, from_pretrained).
"""

import numpy as np
import pytest

import tinyffn
import tinyffn.functional as F
import torch_parity
from tinyffn import nn
from tinyffn.backend import dtype_name

W = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [-2.0, 3.0, 1.0], [0.75, -0.25, 4.0],
     [1.0, 2.0, -3.0]]                                          # (5, 3), no ties in a column
I1 = "T.tensor([1, 2, 0, 4, 4, 1, 3])"
P1 = "T.tensor([0.5, -1.0, 2.0, 1.0, 0.25, 3.0, -2.0], dtype=T.float64)"

CASES = [
    *[f"F.embedding_bag({I1}, w, T.tensor([0, 2, 2, 5]), mode='{m}')" for m in ("sum", "mean", "max")],
    *[f"F.embedding_bag({I1}, w, T.tensor([0, 3]), mode='{m}', padding_idx=4)"
      for m in ("sum", "mean", "max")],
    "F.embedding_bag(T.tensor([[1, 2, 3], [4, 4, 0]]), w)",
    "F.embedding_bag(T.tensor([[1, 2, 3], [4, 4, 0]]), w, mode='max', padding_idx=-1)",
    f"F.embedding_bag({I1}, w, T.tensor([0, 2, 2, 7]), mode='sum', include_last_offset=True)",
    f"F.embedding_bag({I1}, w, T.tensor([0, 4]), mode='sum', per_sample_weights={P1})",
    f"F.embedding_bag({I1}, w, T.tensor([0, 4, 7]), mode='mean', include_last_offset=True, "
    "padding_idx=1)",
    "F.embedding_bag(T.tensor([3]), w, T.tensor([0, 0, 1]), mode='max')",
    # max_norm rescales the rows read in w first; scale_grad_by_freq divides each row's
    # gradient by its count (each row read equally often: PyTorch 2.13's CPU kernel gets
    # the others wrong, see test_scale_grad_by_freq_divides_each_rows_gradient_by_its_count)
    f"F.embedding_bag({I1}, w, T.tensor([0, 2, 2, 5]), max_norm=2.0)",
    "F.embedding_bag(T.tensor([[1, 3, 1], [3, 4, 4]]), w, mode='max', max_norm=2.5, "
    "norm_type=1.0, padding_idx=4)",
    "F.embedding_bag(T.tensor([1, 3, 1, 0, 3, 0]), w, T.tensor([0, 2, 5]), mode='sum', "
    "scale_grad_by_freq=True)",
    "F.embedding_bag(T.tensor([[1, 3, 1], [3, 4, 4]]), w, scale_grad_by_freq=True, "
    "padding_idx=4)",
]


def run(module, case: str, requires_grad: str = "", **tensor_kwargs):
    inputs = {"w": module.tensor(W, dtype=module.float64, **tensor_kwargs)}
    if requires_grad:
        inputs[requires_grad].requires_grad_(True)
    device = tensor_kwargs.get("device")
    tensor = (lambda *a, **k: module.tensor(*a, **k, device=device)) if device else module.tensor
    functional = F if module is tinyffn else module.nn.functional

    class T:
        def __getattr__(self, name):
            return tensor if name == "tensor" else getattr(module, name)
    y = eval(case, {}, {"T": T(), "F": functional, **inputs})
    return (y, inputs[requires_grad]) if requires_grad else y


plain = torch_parity.plain
assert_same = torch_parity.assert_close
GRAD_CASES = [(c, "w") for c in CASES]


def grad_of(module, case: str, wrt: str, **tensor_kwargs):
    y, x = run(module, case, requires_grad=wrt, **tensor_kwargs)
    return torch_parity.weighted_grad(module, y, x, **tensor_kwargs)


torch_parity.tests(globals())


# ----------------------------------------------------------------------------- by hand
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_each_bag_reduced_by_hand(mode, device):
    """Bags cut at random offsets (some empty), a padding index left out, weights per
    index for a sum: each bag's rows listed in Python and reduced with NumPy."""
    r = np.random.default_rng(0)
    w = r.standard_normal((7, 4))
    idx = r.integers(0, 7, 20)
    offsets = np.sort(r.integers(0, 21, 6))
    offsets[0] = 0
    scale = r.standard_normal(20) if mode == "sum" else None
    t = lambda a: None if a is None else tinyffn.tensor(a, device=device)   # noqa: E731
    got = F.embedding_bag(t(idx), t(w), t(offsets), mode=mode, padding_idx=2,
                          per_sample_weights=t(scale)).numpy()
    ends = list(offsets[1:]) + [20]
    for b, (start, end) in enumerate(zip(offsets, ends)):
        rows = [w[i] * (1 if scale is None else scale[p]) for p, i in
                enumerate(idx[start:end], start) if i != 2]
        want = np.zeros(4) if not rows else {"sum": np.sum, "mean": np.mean,
                                              "max": np.max}[mode](rows, axis=0)
        np.testing.assert_allclose(got[b], want, rtol=1e-13, atol=1e-15)


def test_gradcheck(device):
    w = tinyffn.tensor(W, dtype="float64", device=device, requires_grad=True)
    s = tinyffn.tensor([0.5, -1.0, 2.0, 1.0, 0.25], dtype="float64", device=device,
                       requires_grad=True)
    idx = tinyffn.tensor([1, 2, 0, 4, 1], device=device)
    off = tinyffn.tensor([0, 2, 2], device=device)
    for mode in ("sum", "mean", "max"):
        assert tinyffn.gradcheck(lambda w: F.embedding_bag(idx, w, off, mode=mode), [w])
    assert tinyffn.gradcheck(lambda w, s: F.embedding_bag(
        idx, w, off, mode="sum", per_sample_weights=s, padding_idx=0), [w, s])


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_a_float32_table_gives_float32_and_bags_of_no_index_give_zeros(mode, device):
    """float32 in, float32 out, the gradient too (a count or a -inf of another dtype would
    widen it); a 2-D input of no columns is B empty bags: rows of zeros, in every mode
    (PyTorch 2.13 refuses that input: "step must be nonzero")."""
    w = tinyffn.tensor(np.array(W, dtype=np.float32), device=device, requires_grad=True)
    y = F.embedding_bag(tinyffn.tensor([1, 2, 0, 4], device=device), w,
                        tinyffn.tensor([0, 1, 1], device=device), mode=mode)
    y.sum().backward()
    assert dtype_name(y.dtype) == "float32" == dtype_name(w.grad.dtype)
    none = tinyffn.tensor(np.zeros((2, 0), dtype=np.int64), device=device)
    assert F.embedding_bag(none, w, mode=mode).tolist() == [[0.0] * 3] * 2


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_no_offsets_is_no_bag(mode, device):
    """A 1-D input with empty offsets: no bag, so (0, dim), as PyTorch 2.13's sum and mean
    (its max crashes); the table gets a zero gradient."""
    w = tinyffn.tensor(np.array(W), device=device, requires_grad=True)
    y = F.embedding_bag(tinyffn.tensor([1, 2, 4], device=device), w,
                        tinyffn.tensor(np.zeros(0, dtype=np.int64), device=device), mode=mode)
    assert y.shape == (0, 3)
    (y * 2).sum().backward()
    assert w.grad.tolist() == [[0.0] * 3] * len(W)
    if mode == "sum":                                   # weights of the entries: none read
        scale = tinyffn.ones(3, dtype=w.dtype, device=device)
        assert F.embedding_bag(tinyffn.tensor([1, 2, 4], device=device), w,
                               tinyffn.tensor(np.zeros(0, dtype=np.int64), device=device),
                               mode=mode, per_sample_weights=scale).shape == (0, 3)


def test_a_bag_of_max_ties_shares_the_gradient():
    """Two equal rows in one bag: the max is either, and each gets half of gy (amax's
    rule; PyTorch gives all of it to one). Their sum is what raising both changes."""
    w = tinyffn.tensor([[1.0, 5.0], [1.0, 2.0]], dtype="float64", requires_grad=True)
    F.embedding_bag(tinyffn.tensor([[0, 1]]), w, mode="max").sum().backward()
    assert w.grad.tolist() == [[0.5, 1.0], [0.5, 0.0]]


def test_max_norm_rescales_every_row_read_in_the_table(device):
    """Each row input reads (the padding row too, and those of a bag of no index) whose
    2-norm is above max_norm is rescaled in w itself, outside the graph, to max_norm /
    (norm + 1e-7) times its own; rows not read keep their values. PyTorch 2.13's table
    after the same call, to the bit."""
    w = tinyffn.tensor(W, dtype="float64", device=device, requires_grad=True)
    F.embedding_bag(tinyffn.tensor([4, 0, 3], device=device), w,
                    tinyffn.tensor([0, 0, 2], device=device), max_norm=2.0, padding_idx=4)
    assert w.is_leaf and w.grad_fn is None
    assert w.detach().numpy().tolist() == RENORMED


RENORMED = [[0.4364357614243666, -0.8728715228487332, 1.7457430456974663], W[1], W[2],
            [0.36788359466842335, -0.12262786488947444, 1.962045838231591],
            [0.5345224695391348, 1.0690449390782697, -1.6035674086174045]]    # torch 2.13's


def test_max_norm_rescales_the_table_as_torchs():
    torch = pytest.importorskip("torch")
    w = torch.tensor(W, dtype=torch.float64, requires_grad=True)
    torch.nn.functional.embedding_bag(torch.tensor([4, 0, 3]), w, torch.tensor([0, 0, 2]),
                                      max_norm=2.0, padding_idx=4)
    assert w.detach().tolist() == RENORMED


def test_scale_grad_by_freq_divides_each_rows_gradient_by_its_count(device):
    """dW_r = Σ over the positions p reading row r of gy[bag of p] / count_r, count_r the
    times input reads r (in any bag), as F.embedding's: summed by hand. PyTorch 2.13's CPU
    kernel divides a row by the count of another where counts differ (it indexes counts
    by the row group's number, i, in the sorted indices: here row 2, read twice, by 3,
    and row 4, read once, by 3); its weights' gradient is not changed, as here."""
    idx, off = [1, 2, 1, 4, 1, 0, 2], [0, 3, 3, 5]
    bag = [0, 0, 0, 2, 2, 3, 3]
    w = tinyffn.tensor(W, dtype="float64", device=device, requires_grad=True)
    s = tinyffn.tensor([0.5, -1.0, 2.0, 1.0, 0.25, 3.0, -2.0], dtype="float64",
                       device=device, requires_grad=True)
    gy = np.arange(1.0, 13.0).reshape(4, 3) / 8
    y = F.embedding_bag(tinyffn.tensor(idx, device=device), w,
                        tinyffn.tensor(off, device=device), mode="sum",
                        scale_grad_by_freq=True, per_sample_weights=s)
    (y * tinyffn.tensor(gy, device=device)).sum().backward()
    want = np.zeros((5, 3))
    for p, (i, b) in enumerate(zip(idx, bag)):
        want[i] += gy[b] * s.tolist()[p] / idx.count(i)
    np.testing.assert_allclose(w.grad.numpy(), want, rtol=1e-15)
    assert s.grad.tolist() == [float(np.dot(gy[b], W[i])) for i, b in zip(idx, bag)]


# ----------------------------------------------------------------------------- module
def test_module_as_torchs():
    torch = pytest.importorskip("torch")
    ours = nn.EmbeddingBag(5, 3, mode="max", padding_idx=1)
    theirs = torch.nn.EmbeddingBag(5, 3, mode="max", padding_idx=1)
    assert repr(ours) == repr(theirs) == "EmbeddingBag(5, 3, mode='max', padding_idx=1)"
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["weight"]
    assert ours.weight.numpy()[1].tolist() == [0, 0, 0]
    theirs.weight.data = torch.tensor(ours.weight.numpy())
    idx, off = [1, 2, 0, 4, 3], [0, 3]
    y = ours(tinyffn.tensor(idx), tinyffn.tensor(off))
    yt = theirs(torch.tensor(idx), torch.tensor(off))
    np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), rtol=1e-6)
    opts = dict(max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True, mode="sum")
    assert repr(nn.EmbeddingBag(5, 3, **opts)) == repr(torch.nn.EmbeddingBag(5, 3, **opts)) \
        == "EmbeddingBag(5, 3, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True, mode='sum')"
    frozen = nn.EmbeddingBag.from_pretrained(tinyffn.tensor(W), mode="sum")
    assert not frozen.weight.requires_grad and frozen.mode == "sum"
    assert frozen(tinyffn.tensor([[0, 1]])).tolist() == [[2.0, -0.75, 1.5]]


def test_module_takes_max_norm_and_scale_grad_by_freq(device):
    """nn.EmbeddingBag passes its options to F.embedding_bag at each call: the rows read
    rescaled in its weight, the gradient of a row read twice halved."""
    bag = nn.EmbeddingBag.from_pretrained(tinyffn.tensor(W, dtype="float64", device=device),
                                          freeze=False, max_norm=2.0,
                                          scale_grad_by_freq=True, mode="sum")
    bag(tinyffn.tensor([[4, 0, 3, 4]], device=device)).sum().backward()
    assert bag.weight.detach().numpy().tolist() == RENORMED
    assert bag.weight.grad.tolist() == [[1.0] * 3, [0.0] * 3, [0.0] * 3, [1.0] * 3, [1.0] * 3]
    with pytest.raises(ValueError, match="mode 'max' does not take scale_grad_by_freq"):
        nn.EmbeddingBag(5, 3, mode="max", scale_grad_by_freq=True)(tinyffn.tensor([[0]]))


def test_module_learns_on_every_device(device):
    bag = nn.EmbeddingBag(6, 2, mode="mean", device=device, dtype="float64")
    idx = tinyffn.tensor([0, 1, 2, 3, 4, 5], device=device)
    off = tinyffn.tensor([0, 3], device=device)
    target = tinyffn.tensor([[1.0, -1.0], [0.5, 2.0]], dtype="float64", device=device)
    opt = tinyffn.optim.SGD(bag.parameters(), lr=6.0)     # dL/dW: gy/3 per row, /4 by mse
    for _ in range(30):
        opt.zero_grad()
        loss = F.mse_loss(bag(idx, off), target)
        loss.backward()
        opt.step()
    assert loss.item() < 1e-6


# ----------------------------------------------------------------------------- refusals
@pytest.mark.parametrize("call, error, match", [
    ("F.embedding_bag(T.tensor([0, 1]), w)", ValueError, "a 1-D input needs offsets"),
    ("F.embedding_bag(T.tensor([[0, 1]]), w, T.tensor([0]))", ValueError,
     "offsets must be None"),
    ("F.embedding_bag(T.tensor([0, 1]), w, T.tensor([1]))", ValueError,
     "offsets must start at 0, never decrease"),
    ("F.embedding_bag(T.tensor([0, 1]), w, T.tensor([0, 2, 1]))", ValueError, "never decrease"),
    ("F.embedding_bag(T.tensor([0, 1]), w, T.tensor([0, 3]))", ValueError,
     "end at most at input's length 2"),
    ("F.embedding_bag(T.tensor([0, 1]), w, T.tensor([0, 1]), include_last_offset=True)",
     ValueError, "with include_last_offset the last one is that length"),
    ("F.embedding_bag(T.tensor([0, 1]), w, T.tensor([0])[:0], include_last_offset=True)",
     ValueError, "with include_last_offset, offsets needs at least one entry"),
    ("F.embedding_bag(T.tensor([0, 1]), w, T.tensor([0]), mode='prod')", ValueError,
     "mode must be 'sum', 'mean' or 'max'"),
    ("F.embedding_bag(T.tensor([0, 5]), w, T.tensor([0]))", IndexError,
     "index 5 is out of range for num_embeddings=5"),
    ("F.embedding_bag(T.tensor([0, 1]), w, T.tensor([0]), per_sample_weights=w[0, :2])",
     ValueError, "per_sample_weights scale rows that are summed: mode must be 'sum'"),
    ("F.embedding_bag(T.tensor([0, 1]), w, T.tensor([0]), mode='sum', "
     "per_sample_weights=w[0])", ValueError, r"per_sample_weights must have input's shape"),
    ("F.embedding_bag(T.tensor([0, 1]), w, T.tensor([0]), mode='max', "
     "scale_grad_by_freq=True)", ValueError, "mode 'max' does not take scale_grad_by_freq"),
    ("F.embedding_bag(T.tensor([0, 1]), w, T.tensor([0]), sparse=True)", ValueError,
     "tinyffn has no sparse tensors"),
    ("F.embedding_bag(T.tensor([0, 1]), w, T.tensor([0]), max_norm='1')", TypeError,
     "max_norm must be a number or None"),
    ("F.embedding_bag(T.tensor([0, 1]), w, T.tensor([0.0]))", TypeError,
     "offsets must be a 1-D int64 tensor"),
    ("F.embedding_bag(T.tensor([0, 1]), w, T.tensor([0]), padding_idx=5)", ValueError,
     r"padding_idx must be an integer in \[-5, 5\)"),
    ("nn.EmbeddingBag(5, 3, mode='min')", ValueError, "EmbeddingBag: mode must be"),
])
def test_errors_name_the_function_and_the_fix(call, error, match):
    names = {"T": tinyffn, "F": F, "nn": nn, "w": tinyffn.tensor(W)}
    with pytest.raises(error, match=match):
        eval(call, {}, names)


EXPECTED = {
    "F.embedding_bag(T.tensor([1, 2, 0, 4, 4, 1, 3]), w, T.tensor([0, 2, 2, 5]), mode='sum')": ('float64', [[-0.5, 3.25, 0.5], [0.0, 0.0, 0.0], [2.5, 3.0, -4.0], [2.25, 0.0, 3.5]]),
    "F.embedding_bag(T.tensor([1, 2, 0, 4, 4, 1, 3]), w, T.tensor([0, 2, 2, 5]), mode='mean')": ('float64', [[-0.25, 1.625, 0.25], [0.0, 0.0, 0.0], [0.8333333333333334, 1.0, -1.3333333333333333], [1.125, 0.0, 1.75]]),
    "F.embedding_bag(T.tensor([1, 2, 0, 4, 4, 1, 3]), w, T.tensor([0, 2, 2, 5]), mode='max')": ('float64', [[1.5, 3.0, 1.0], [0.0, 0.0, 0.0], [1.0, 2.0, 2.0], [1.5, 0.25, 4.0]]),
    "F.embedding_bag(T.tensor([1, 2, 0, 4, 4, 1, 3]), w, T.tensor([0, 3]), mode='sum', padding_idx=4)": ('float64', [[0.0, 2.25, 2.5], [2.25, 0.0, 3.5]]),
    "F.embedding_bag(T.tensor([1, 2, 0, 4, 4, 1, 3]), w, T.tensor([0, 3]), mode='mean', padding_idx=4)": ('float64', [[0.0, 0.75, 0.8333333333333334], [1.125, 0.0, 1.75]]),
    "F.embedding_bag(T.tensor([1, 2, 0, 4, 4, 1, 3]), w, T.tensor([0, 3]), mode='max', padding_idx=4)": ('float64', [[1.5, 3.0, 2.0], [1.5, 0.25, 4.0]]),
    'F.embedding_bag(T.tensor([[1, 2, 3], [4, 4, 0]]), w)': ('float64', [[0.08333333333333333, 1.0, 1.5], [0.8333333333333334, 1.0, -1.3333333333333333]]),
    "F.embedding_bag(T.tensor([[1, 2, 3], [4, 4, 0]]), w, mode='max', padding_idx=-1)": ('float64', [[1.5, 3.0, 4.0], [0.5, -1.0, 2.0]]),
    "F.embedding_bag(T.tensor([1, 2, 0, 4, 4, 1, 3]), w, T.tensor([0, 2, 2, 7]), mode='sum', include_last_offset=True)": ('float64', [[-0.5, 3.25, 0.5], [0.0, 0.0, 0.0], [4.75, 3.0, -0.5]]),
    "F.embedding_bag(T.tensor([1, 2, 0, 4, 4, 1, 3]), w, T.tensor([0, 4]), mode='sum', per_sample_weights=T.tensor([0.5, -1.0, 2.0, 1.0, 0.25, 3.0, -2.0], dtype=T.float64))": ('float64', [[4.75, -2.875, -0.25], [3.25, 1.75, -10.25]]),
    "F.embedding_bag(T.tensor([1, 2, 0, 4, 4, 1, 3]), w, T.tensor([0, 4, 7]), mode='mean', include_last_offset=True, padding_idx=1)": ('float64', [[-0.16666666666666666, 1.3333333333333333, 0.0], [0.875, 0.875, 0.5]]),
    "F.embedding_bag(T.tensor([3]), w, T.tensor([0, 0, 1]), mode='max')": ('float64', [[0.0, 0.0, 0.0], [0.75, -0.25, 4.0], [0.0, 0.0, 0.0]]),
    'F.embedding_bag(T.tensor([1, 2, 0, 4, 4, 1, 3]), w, T.tensor([0, 2, 2, 5]), max_norm=2.0)': ('float64', [[0.21547753046086515, 0.9267837043087023, 0.017261234769567424], [0.0, 0.0, 0.0], [0.5018269001675454, 0.42173945176926875, -0.4871305905124476], [0.9339417973342117, 0.06368606755526278, 0.7310229191157955]]),
    "F.embedding_bag(T.tensor([[1, 3, 1], [3, 4, 4]]), w, mode='max', max_norm=2.5, norm_type=1.0, padding_idx=4)": ('float64', [[1.5, 0.25, 1.9999999600000007], [0.37499999250000016, -0.12499999750000004, 1.9999999600000007]]),
    "F.embedding_bag(T.tensor([1, 3, 1, 0, 3, 0]), w, T.tensor([0, 2, 5]), mode='sum', scale_grad_by_freq=True)": ('float64', [[2.25, 0.0, 3.5], [2.75, -1.0, 5.5], [0.5, -1.0, 2.0]]),
    'F.embedding_bag(T.tensor([[1, 3, 1], [3, 4, 4]]), w, scale_grad_by_freq=True, padding_idx=4)': ('float64', [[1.25, 0.08333333333333333, 1.0], [0.75, -0.25, 4.0]]),
}

EXPECTED_GRADS = {
    "F.embedding_bag(T.tensor([1, 2, 0, 4, 4, 1, 3]), w, T.tensor([0, 2, 2, 5]), mode='sum') dw": ('float64', [[0.7, 0.8, 0.9], [1.1, 1.3, 1.5], [0.1, 0.2, 0.3], [1.0, 1.1, 1.2], [1.4, 1.6, 1.8]]),
    "F.embedding_bag(T.tensor([1, 2, 0, 4, 4, 1, 3]), w, T.tensor([0, 2, 2, 5]), mode='mean') dw": ('float64', [[0.2333333333333333, 0.26666666666666666, 0.3], [0.55, 0.65, 0.75], [0.05, 0.1, 0.15], [0.5, 0.55, 0.6], [0.4666666666666666, 0.5333333333333333, 0.6]]),
    "F.embedding_bag(T.tensor([1, 2, 0, 4, 4, 1, 3]), w, T.tensor([0, 2, 2, 5]), mode='max') dw": ('float64', [[0.0, 0.0, 0.9], [1.1, 1.1, 0.0], [0.0, 0.2, 0.3], [0.0, 0.0, 1.2], [0.7, 0.8, 0.0]]),
    "F.embedding_bag(T.tensor([1, 2, 0, 4, 4, 1, 3]), w, T.tensor([0, 3]), mode='sum', padding_idx=4) dw": ('float64', [[0.1, 0.2, 0.3], [0.5, 0.7, 0.8999999999999999], [0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.0, 0.0, 0.0]]),
    "F.embedding_bag(T.tensor([1, 2, 0, 4, 4, 1, 3]), w, T.tensor([0, 3]), mode='mean', padding_idx=4) dw": ('float64', [[0.03333333333333333, 0.06666666666666667, 0.09999999999999999], [0.23333333333333334, 0.31666666666666665, 0.39999999999999997], [0.03333333333333333, 0.06666666666666667, 0.09999999999999999], [0.2, 0.25, 0.3], [0.0, 0.0, 0.0]]),
    "F.embedding_bag(T.tensor([1, 2, 0, 4, 4, 1, 3]), w, T.tensor([0, 3]), mode='max', padding_idx=4) dw": ('float64', [[0.0, 0.0, 0.3], [0.5, 0.5, 0.0], [0.0, 0.2, 0.0], [0.0, 0.0, 0.6], [0.0, 0.0, 0.0]]),
    'F.embedding_bag(T.tensor([[1, 2, 3], [4, 4, 0]]), w) dw': ('float64', [[0.13333333333333333, 0.16666666666666666, 0.19999999999999998], [0.03333333333333333, 0.06666666666666667, 0.09999999999999999], [0.03333333333333333, 0.06666666666666667, 0.09999999999999999], [0.03333333333333333, 0.06666666666666667, 0.09999999999999999], [0.26666666666666666, 0.3333333333333333, 0.39999999999999997]]),
    "F.embedding_bag(T.tensor([[1, 2, 3], [4, 4, 0]]), w, mode='max', padding_idx=-1) dw": ('float64', [[0.4, 0.5, 0.6], [0.1, 0.0, 0.0], [0.0, 0.2, 0.0], [0.0, 0.0, 0.3], [0.0, 0.0, 0.0]]),
    "F.embedding_bag(T.tensor([1, 2, 0, 4, 4, 1, 3]), w, T.tensor([0, 2, 2, 7]), mode='sum', include_last_offset=True) dw": ('float64', [[0.7, 0.8, 0.9], [0.7999999999999999, 1.0, 1.2], [0.1, 0.2, 0.3], [0.7, 0.8, 0.9], [1.4, 1.6, 1.8]]),
    "F.embedding_bag(T.tensor([1, 2, 0, 4, 4, 1, 3]), w, T.tensor([0, 4]), mode='sum', per_sample_weights=T.tensor([0.5, -1.0, 2.0, 1.0, 0.25, 3.0, -2.0], dtype=T.float64)) dw": ('float64', [[0.2, 0.4, 0.6], [1.25, 1.6, 1.95], [-0.1, -0.2, -0.3], [-0.8, -1.0, -1.2], [0.2, 0.325, 0.44999999999999996]]),
    "F.embedding_bag(T.tensor([1, 2, 0, 4, 4, 1, 3]), w, T.tensor([0, 4, 7]), mode='mean', include_last_offset=True, padding_idx=1) dw": ('float64', [[0.03333333333333333, 0.06666666666666667, 0.09999999999999999], [0.0, 0.0, 0.0], [0.03333333333333333, 0.06666666666666667, 0.09999999999999999], [0.2, 0.25, 0.3], [0.23333333333333334, 0.31666666666666665, 0.39999999999999997]]),
    "F.embedding_bag(T.tensor([3]), w, T.tensor([0, 0, 1]), mode='max') dw": ('float64', [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.4, 0.5, 0.6], [0.0, 0.0, 0.0]]),
    'F.embedding_bag(T.tensor([1, 2, 0, 4, 4, 1, 3]), w, T.tensor([0, 2, 2, 5]), max_norm=2.0) dw': ('float64', [[0.2333333333333333, 0.26666666666666666, 0.3], [0.55, 0.65, 0.75], [0.05, 0.1, 0.15], [0.5, 0.55, 0.6], [0.4666666666666666, 0.5333333333333333, 0.6]]),
    "F.embedding_bag(T.tensor([[1, 3, 1], [3, 4, 4]]), w, mode='max', max_norm=2.5, norm_type=1.0, padding_idx=4) dw": ('float64', [[0.0, 0.0, 0.0], [0.1, 0.2, 0.0], [0.0, 0.0, 0.0], [0.4, 0.5, 0.8999999999999999], [0.0, 0.0, 0.0]]),
    "F.embedding_bag(T.tensor([1, 3, 1, 0, 3, 0]), w, T.tensor([0, 2, 5]), mode='sum', scale_grad_by_freq=True) dw": ('float64', [[0.55, 0.65, 0.75], [0.25, 0.35, 0.44999999999999996], [0.0, 0.0, 0.0], [0.25, 0.35, 0.44999999999999996], [0.0, 0.0, 0.0]]),
    'F.embedding_bag(T.tensor([[1, 3, 1], [3, 4, 4]]), w, scale_grad_by_freq=True, padding_idx=4) dw': ('float64', [[0.0, 0.0, 0.0], [0.03333333333333333, 0.06666666666666667, 0.09999999999999999], [0.0, 0.0, 0.0], [0.21666666666666667, 0.2833333333333333, 0.35], [0.0, 0.0, 0.0]]),
}
