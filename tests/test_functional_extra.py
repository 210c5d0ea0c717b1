"""F.leaky_relu, F.glu, F.normalize, F.one_hot, F.softplus, F.pad (tinyffn/functional_extra.py),
F.embedding with PyTorch's max_norm and scale_grad_by_freq (embedding_lookup.py), F.l1_loss
(losses.py), and the modules nn.LeakyReLU, nn.Softplus, nn.Flatten, nn.L1Loss, nn.Embedding.

Each case is one call, written once and run with tinyffn's ``F`` and ``nn`` and with
torch's. References: PyTorch 2.13, live where it is installed, and its values and
gradients written out in ``EXPECTED`` and ``EXPECTED_GRADS`` (computed once with torch;
those tests run without it, on every device); gradcheck for every differentiable one.
"""
import math

import numpy as np
import pytest

import tinyffn
import torch_parity
from tinyffn import functional as F
from tinyffn import nn
from tinyffn.backend import dtype_name

inf = math.inf
X = [[0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5]]
Z = [[3.0, 4.0], [0.0, 0.0]]                          # a row of zeros: normalize by eps
B = (np.arange(24.0).reshape(2, 3, 4) * 0.25 - 2.0).tolist()
T = [[1.0, -2.0, 2.0, 0.0], [-4.0, 0.0, 0.25, 1.0]]   # targets; one equal entry (the kink)
S = [[-30.0, -1.0, 0.0, 0.5], [9.5, 19.5, 20.5, 50.0]]        # softplus: across the threshold
TABLE = (np.arange(15.0).reshape(5, 3) * 0.5 - 3.0).tolist()  # an embedding table (5, 3)

CASES = [
    "F.leaky_relu(x)", "F.leaky_relu(x, 0.2)", "F.leaky_relu(x, -0.5)", "F.leaky_relu(x, 1)",
    "F.glu(x)", "F.glu(x, 0)", "F.glu(b, 0)", "F.glu(b, -1)",
    "F.normalize(x)", "F.normalize(x, dim=0)", "F.normalize(z)", "F.normalize(x, p=1)",
    "F.normalize(x, 3.0, 1)", "F.normalize(x, p=math.inf)", "F.normalize(b, dim=-1)",
    "F.normalize(z, eps=0.5)", "F.normalize(v, dim=0)", "F.normalize(x, p=0)",
    "F.one_hot(i)", "F.one_hot(i, 5)", "F.one_hot(i.reshape(2, 2))", "F.one_hot(e, 3)",
    "F.one_hot(i0, 3)",
    "F.l1_loss(x, t)", "F.l1_loss(x, t, reduction='sum')", "F.l1_loss(x, t, reduction='none')",
    "nn.LeakyReLU(0.1)(x)", "nn.Flatten()(b)", "nn.Flatten(0)(b)", "nn.Flatten(0, 1)(b)",
    "nn.Flatten(-2)(b)", "nn.L1Loss()(x, t)", "nn.L1Loss(reduction='none')(x, t)",
    "F.softplus(s)", "F.softplus(s, 2.0)", "F.softplus(s, 0.5, 5.0)", "F.softplus(s, -1.0)",
    "F.softplus(x, threshold=0.0)", "nn.Softplus()(s)", "nn.Softplus(2.0, 10.0)(s)",
    "F.pad(x, (1, 2))", "F.pad(x, (0, 0, 1, 0))", "F.pad(x, (-1, 1, 1, -1), value=2.5)",
    "F.pad(b, (1, 1, 0, 0, 1, 0))", "F.pad(x, (-2, -2))", "F.pad(k, (1, 0), value=7)",
    "F.pad(x, (0, 0))", "F.pad(x, [2, -1, 0, 1], 'constant', -1.0)", "F.pad(x > 0, (1, 1))",
    "F.pad(v, (0, 3), value=math.inf)", "F.pad(b, (0, 0, -3, 0))",
    "F.embedding(k, table)", "F.embedding(k, table, padding_idx=1)",
    "F.embedding(k[0], table, padding_idx=-1)", "F.embedding(k[0, 0], table)",
    "F.embedding(e, table)",
    # max_norm: rows 0, 3 and 4 (norms 4.39, 3.54, 6.10) are scaled to norm 3 before the lookup
    "F.embedding(k, table, max_norm=3.0)", "F.embedding(k, table, None, 2.0, 1.0)",
    "F.embedding(k, table, max_norm=1.0, norm_type=math.inf, padding_idx=4)",
    "nn.Embedding.from_pretrained(table, max_norm=3.0)(k)",
    "F.embedding(k, table, scale_grad_by_freq=True)",
]


def run(module, case: str, requires_grad: str = "", **tensor_kwargs):
    """``case`` evaluated with ``module``'s F and nn (tinyffn or torch) and inputs; the
    input named ``requires_grad`` requires a gradient (returned with the result)."""
    inputs = {}
    for name, values in dict(x=X, z=Z, b=B, t=T, v=[3.0, -4.0], s=S, table=TABLE).items():
        inputs[name] = module.tensor(values, dtype=module.float64, **tensor_kwargs)
        if name == requires_grad:
            inputs[name].requires_grad_(True)
    inputs.update(i=module.tensor([0, 3, 1, 3], **tensor_kwargs),
                  e=module.zeros(0, dtype=module.int64, **tensor_kwargs),
                  i0=module.tensor(2, **tensor_kwargs),
                  k=module.tensor([[0, 4, 2], [4, 1, 3]], **tensor_kwargs))
    F_ = module.functional if module is tinyffn else module.nn.functional
    y = eval(case, {"math": math}, {"F": F_, "nn": module.nn, **inputs})
    return (y, inputs[requires_grad]) if requires_grad else y


plain = torch_parity.plain      # (dtype name, nested lists), as the tests compare


def assert_same(actual, expected, case):
    torch_parity.assert_close(actual, expected, case, atol=1e-14)   # a cancellation


# dL/d(input) for L = Σ f · (1, 2, 3, ...)/10: a backward that forgets gy shows
GRAD_CASES = [
    ("F.leaky_relu(x)", "x"), ("F.leaky_relu(x, -0.5)", "x"), ("F.glu(x)", "x"),
    ("F.glu(b, 0)", "b"), ("F.normalize(x)", "x"), ("F.normalize(z)", "z"),
    ("F.normalize(x, p=1)", "x"), ("F.normalize(x, 3.0, 0)", "x"),
    ("F.normalize(x, p=0)", "x"),                    # the count: its own gradient is 0
    ("F.l1_loss(x, t)", "x"), ("F.l1_loss(x, t, reduction='none')", "t"),
    ("nn.Flatten()(b)", "b"),
    ("F.softplus(s)", "s"), ("F.softplus(s, 2.0)", "s"), ("F.softplus(s, -1.0)", "s"),
    ("nn.Softplus(2.0, 10.0)(s)", "s"), ("F.pad(x, (-1, 1, 1, -1), value=2.5)", "x"),
    ("F.pad(b, (1, 1, 0, 0, 1, 0))", "b"), ("F.embedding(k, table)", "table"),
    ("F.embedding(k, table, padding_idx=1)", "table"),
    ("F.embedding(k, table, max_norm=3.0)", "table"),          # the lookup's: not rescaled
    ("F.embedding(k, table, scale_grad_by_freq=True)", "table"),  # row 4's gradient halved
    ("F.embedding(k, table, padding_idx=4, scale_grad_by_freq=True)", "table"),
]


def grad_of(module, case: str, wrt: str, **tensor_kwargs):
    y, x = run(module, case, requires_grad=wrt, **tensor_kwargs)
    return torch_parity.weighted_grad(module, y, x, **tensor_kwargs)


torch_parity.tests(globals())     # live torch, EXPECTED(_GRADS), their check


GRADCHECKED = {
    "leaky_relu": lambda x: F.leaky_relu(x, 0.1), "glu": lambda x: F.glu(x, -1),
    "normalize": F.normalize, "normalize-p1-dim0": lambda x: F.normalize(x, 1, 0),
    "l1_loss": lambda x: F.l1_loss(x, tinyffn.full((2, 4), 0.1, dtype="float64",
                                                    device=x.device)),
    "LeakyReLU": nn.LeakyReLU(0.3), "Flatten": nn.Flatten(0),
    "softplus": lambda x: F.softplus(x, 0.5, 1.0), "Softplus": nn.Softplus(),
    "pad": lambda x: F.pad(x, (1, -1, -1, 2), value=3.0),
    "embedding": lambda x: F.embedding(tinyffn.tensor([[0, 1], [1, 1]], device=x.device), x),
    "embedding-padding": lambda x: F.embedding(tinyffn.tensor([[0], [0]], device=x.device),
                                               x, 1),  # (row 1, the padding, is not read)
}


@pytest.mark.parametrize("name", GRADCHECKED)
def test_gradcheck(name, device):
    x = tinyffn.tensor([[0.5, -2.0, 3.0, 0.7], [-4.0, 1.5, 0.25, -0.5]], dtype="float64",
                       device=device, requires_grad=True)   # no entry at a kink
    assert tinyffn.gradcheck(GRADCHECKED[name], [x])


def test_leaky_relu_is_one_where_and_keeps_float16():
    x32 = tinyffn.tensor([-1.0, 2.0], requires_grad=True)
    assert F.leaky_relu(x32).grad_fn.name == "where"
    x = tinyffn.tensor([-1.0, 2.0], dtype="float16", requires_grad=True)
    y = F.leaky_relu(x)
    assert dtype_name(y.dtype) == "float16"
    y.sum().backward()
    assert x.grad.tolist() == [np.float16(0.01), 1.0]


def test_leaky_relu_of_float16_is_rounded_once_as_pytorchs():
    """PyTorch scales by 0.01 in float32 and rounds once; scaling by float16's 0.01
    (0.010002136) rounded -6.2773 to -0.06281 where PyTorch gives -0.06274."""
    x = np.array([-6.27734375, -1.572265625, -11.9765625, 3.0], dtype=np.float16)
    want = np.where(x > 0, x, (x.astype(np.float32) * np.float32(0.01)).astype(np.float16))
    assert want[0] == np.float16(-0.062744140625)
    got = F.leaky_relu(tinyffn.tensor(x)).numpy()
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, want)


def test_modules_print_as_pytorchs():
    assert repr(nn.LeakyReLU()) == "LeakyReLU(negative_slope=0.01)"
    assert repr(nn.Flatten()) == "Flatten(start_dim=1, end_dim=-1)"
    assert repr(nn.L1Loss()) == "L1Loss(reduction='mean')"
    assert list(nn.Flatten().parameters()) == []


def test_softplus_written_out_in_numpy(device):
    s = np.array(S)
    for beta, threshold in ((1.0, 20.0), (2.0, 10.0)):
        want = np.where(beta * s > threshold, s, np.log1p(np.exp(beta * s)) / beta)
        got = F.softplus(tinyffn.tensor(s, dtype="float64", device=device), beta, threshold)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-15)


def test_softplus_gradient_is_finite_where_exp_would_overflow(device):
    """exp(1000) is inf: the unused branch must not send back 0 · inf = NaN."""
    x = tinyffn.tensor([1000.0, -1000.0, 0.0], dtype="float64", device=device,
                       requires_grad=True)
    F.softplus(x).sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 0.5]


def test_softplus_of_float16_is_computed_in_float32_as_pytorchs(device):
    """In float16, exp overflows past 11.09: softplus(15.0) was inf and its gradient NaN,
    below the threshold 20. torch 2.13 computes in float32 and rounds once; these are
    its values bit for bit (checked live below where torch is installed)."""
    if device == "strict":
        pytest.skip("array_api_strict has no float16")
    s = np.array([-30.0, -1.0, 0.0, 0.5, 11.5, 15.0, 19.5, 20.5, 1000.0])
    h = tinyffn.tensor(s, dtype="float16", device=device, requires_grad=True)
    for beta, threshold in ((1.0, 20.0), (2.0, 25.0)):
        h.grad = None
        y = F.softplus(h, beta, threshold)
        x32 = s.astype(np.float16).astype(np.float32)
        bx = np.float32(beta) * x32
        want = np.where(bx > threshold, x32, np.log1p(np.exp(np.minimum(bx, 80))) / np.float32(beta))
        assert y.dtype == tinyffn.float16
        np.testing.assert_array_equal(y.numpy(), want.astype(np.float16))
        y.sum().backward()
        sig = np.where(bx > threshold, 1.0, 1 / (1 + np.exp(-bx)))
        assert h.grad.dtype == tinyffn.float16 and np.isfinite(h.grad.numpy()).all()
        np.testing.assert_array_equal(h.grad.numpy(), sig.astype(np.float32).astype(np.float16))
    torch = pytest.importorskip("torch")
    t = torch.tensor(s, dtype=torch.float16, requires_grad=True)
    theirs = torch.nn.functional.softplus(t)
    theirs.sum().backward()
    h.grad = None
    ours = F.softplus(h)
    ours.sum().backward()
    np.testing.assert_array_equal(ours.numpy(), theirs.detach().numpy())
    np.testing.assert_array_equal(h.grad.numpy(), t.grad.numpy())


def test_pad_written_out_in_numpy(device):
    x = np.array(X)
    padded = F.pad(tinyffn.tensor(x, device=device), (1, -2, 0, 1), value=9.0).numpy()
    np.testing.assert_array_equal(padded, np.pad(x[:, :2], ((0, 1), (1, 0)),
                                                 constant_values=9.0))
    b = np.array(B)
    np.testing.assert_array_equal(F.pad(tinyffn.tensor(b, device=device), (2, 1, 0, 0, 0, 3)).numpy(),
                                  np.pad(b, ((0, 3), (0, 0), (2, 1))))


NUMPY_PAD_MODES = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


@pytest.mark.parametrize("mode", NUMPY_PAD_MODES)
def test_pad_modes_written_out_in_numpy(device, mode):
    # the docstring's row: [1 2 3] padded (2, 2)
    row = tinyffn.tensor([[1.0, 2.0, 3.0]], device=device)
    expected = {"reflect": [3, 2, 1, 2, 3, 2, 1], "replicate": [1, 1, 1, 2, 3, 3, 3],
                "circular": [2, 3, 1, 2, 3, 1, 2]}[mode]
    assert F.pad(row, (2, 2), mode=mode).tolist() == [expected]
    # NumPy's np.pad in its names for the same modes, counts >= 0, 1 to 3 axes padded
    rng = np.random.default_rng(0)
    for shape, pad in [((2, 5), (0, 3)), ((1, 2, 5), (4, 1)), ((2, 3, 4), (1, 2, 2, 0)),
                       ((1, 2, 3, 4), (2, 1, 0, 2)), ((1, 1, 3, 4, 5), (1, 2, 2, 0, 1, 1)),
                       ((2, 2, 3, 4), (3, 3, 1, 2, 1, 1))]:
        x = rng.standard_normal(shape)
        widths = [(0, 0)] * (len(shape) - len(pad) // 2) + \
            [(pad[2 * i], pad[2 * i + 1]) for i in reversed(range(len(pad) // 2))]
        ours = F.pad(tinyffn.tensor(x, device=device), pad, mode=mode).numpy()
        np.testing.assert_array_equal(ours, np.pad(x, widths, mode=NUMPY_PAD_MODES[mode]))


@pytest.mark.parametrize("mode, counts", [("reflect", [2, 3, 2]), ("replicate", [3, 1, 3]),
                                          ("circular", [2, 3, 2])])
def test_pad_modes_send_an_entry_the_gradients_of_its_copies(device, mode, counts):
    x = tinyffn.tensor([[1.0, 2.0, 3.0]], device=device, requires_grad=True)
    F.pad(x, (2, 2), mode=mode).sum().backward()        # 7 outputs, each a copy of one entry
    assert x.grad.tolist() == [counts]
    scope = F.pad(x, (1, 1), mode=mode).grad_fn.scope          # drawn in a frame "pad"
    assert [s.name for s in scope if s.kind == "function"][0] == "pad"


@pytest.mark.parametrize("mode", NUMPY_PAD_MODES)
def test_gradcheck_pad_modes(device, mode):
    x = tinyffn.tensor(np.random.default_rng(1).standard_normal((2, 3, 4)), device=device,
                       requires_grad=True)
    assert tinyffn.gradcheck(lambda x: F.pad(x, (2, 1, -1, 2), mode=mode), [x])


@pytest.mark.parametrize("mode", NUMPY_PAD_MODES)
def test_pad_modes_with_negative_counts_are_pytorchs(mode):
    """A negative count crops: after the padding in reflect and replicate mode, before it in
    circular mode, as PyTorch 2.13 does."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    cases = [((1, 2, 5), (-2, 3)), ((1, 2, 5), (3, -2)), ((1, 2, 5), (-1, -1)),
             ((2, 3, 4), (2, -1, -1, 2)), ((1, 1, 3, 4, 5), (-2, 1, 1, -1, 2, 0))]
    for shape, pad in cases:
        a = rng.standard_normal(shape)
        t = torch.tensor(a, requires_grad=True)
        theirs = torch.nn.functional.pad(t, pad, mode=mode)
        w = rng.standard_normal(tuple(theirs.shape))
        (theirs * torch.tensor(w)).sum().backward()
        x = tinyffn.tensor(a, requires_grad=True)
        ours = F.pad(x, pad, mode=mode)
        (ours * tinyffn.tensor(w)).sum().backward()
        np.testing.assert_array_equal(ours.numpy(), theirs.detach().numpy())
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-15, atol=1e-15)


def test_a_numpy_number_as_the_value_raises_no_warning():
    """The range check compared np.float16(2) with float32's largest number, which NumPy
    casts to float16 first: 'RuntimeWarning: overflow encountered in cast' from pad, full,
    masked_fill and fill_ (an error under -W error), though the result was right."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert F.pad(tinyffn.ones(2), (1, 1), value=np.float16(2)).tolist() == [2, 1, 1, 2]
        assert tinyffn.full((2,), np.float32(2), dtype="float64").tolist() == [2.0, 2.0]
        x = tinyffn.ones(2, dtype="float64").masked_fill(tinyffn.tensor([True, False]),
                                                         np.float32(0.5))
        assert x.tolist() == [0.5, 1.0]
    with pytest.raises(ValueError, match=r"full: fill_value 1e\+300 does not fit in float32"):
        tinyffn.full((2,), np.float64(1e300), dtype="float32")


def test_embedding_is_what_the_module_computes(device):
    emb = nn.Embedding(5, 3, padding_idx=1, dtype="float64", device=device)
    idx = tinyffn.tensor([[0, 1], [4, 1]], device=device)
    y = F.embedding(idx, emb.weight, padding_idx=1)
    np.testing.assert_array_equal(y.numpy(), emb(idx).numpy())
    np.testing.assert_array_equal(y.numpy(), emb.weight.numpy()[idx.numpy()])
    y.sum().backward()
    assert emb.weight.grad.tolist() == [[1.0] * 3, [0.0] * 3, [0.0] * 3, [0.0] * 3, [1.0] * 3]


def test_embedding_of_a_table_holding_only_the_padding_row_stays_in_the_graph(device):
    # the lookup did not require grad, so its backward raised (fuzzer seed 6023202);
    # PyTorch: a graph, and a zero gradient for the table
    table = tinyffn.tensor([[0.7, 0.2]], dtype="float64", device=device, requires_grad=True)
    y = F.embedding(tinyffn.tensor([[0], [0]], device=device), table, padding_idx=0)
    assert y.requires_grad and y.tolist() == [[[0.7, 0.2]], [[0.7, 0.2]]]
    y.backward(tinyffn.ones((2, 1, 2), dtype="float64", device=device))
    assert table.grad.tolist() == [[0.0, 0.0]]


def test_embedding_padding_idx_counts_from_the_end_down_to_minus_n(device):
    """padding_idx -1 is the last row and -3 the first of a 3-row table, in the values and
    in the gradient (the padding row gets none); -3 = -num_embeddings is allowed, -4 and 3
    are refused, as PyTorch's. Gradients written out: rows 0 and 2 read twice, row 1 once."""
    idx = tinyffn.tensor([2, 0, 1, 2, 0], device=device)
    table = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    for padding_idx, grad in [(-1, [[2.0] * 2, [1.0] * 2, [0.0] * 2]),
                              (-3, [[0.0] * 2, [1.0] * 2, [2.0] * 2])]:
        w = tinyffn.tensor(table, dtype="float64", device=device, requires_grad=True)
        y = F.embedding(idx, w, padding_idx=padding_idx)
        np.testing.assert_array_equal(y.detach().numpy(), table[[2, 0, 1, 2, 0]])
        y.sum().backward()
        assert w.grad.tolist() == grad, padding_idx
    for bad in (-4, 3):
        with pytest.raises(ValueError, match=r"embedding: padding_idx must be an integer in "
                                             r"\[-3, 3\)"):
            F.embedding(idx, tinyffn.tensor(table, device=device), padding_idx=bad)


def test_embedding_max_norm_rescales_the_rows_read_in_the_table_itself(device):
    """PyTorch's embedding_renorm_: before the lookup, each row read whose norm n exceeds
    max_norm is multiplied by max_norm / (n + 1e-7), in the table, outside the graph; rows
    not read keep theirs even when longer. By hand: row 0 (3, 4), n = 5 -> (3, 4) · 2 /
    (5 + 1e-7); row 2 (1, -2) read twice, scaled once; row 3 (6, 8) not read; row 1 short."""
    w = tinyffn.tensor([[3.0, 4.0], [0.3, 0.4], [1.0, -2.0], [6.0, 8.0]], dtype="float64",
                       device=device, requires_grad=True)
    y = F.embedding(tinyffn.tensor([2, 0, 1, 2], device=device), w, max_norm=2.0)
    s0, s2 = 2 / (5 + 1e-7), 2 / (math.sqrt(5) + 1e-7)
    expected = [[3 * s0, 4 * s0], [0.3, 0.4], [s2, -2 * s2], [6.0, 8.0]]
    np.testing.assert_allclose(w.detach().numpy(), expected, rtol=1e-15)
    np.testing.assert_array_equal(y.detach().numpy(), w.detach().numpy()[[2, 0, 1, 2]])
    y.sum().backward()                  # the lookup's gradient: the rescaling is not in it
    assert w.grad.tolist() == [[1.0, 1.0], [1.0, 1.0], [2.0, 2.0], [0.0, 0.0]]
    table = tinyffn.tensor(TABLE, dtype="float64", device=device)   # 1-norms 7.5, 3, 1.5, 6, 10.5
    emb = nn.Embedding.from_pretrained(table, max_norm=1.0, norm_type=1.0)
    emb(tinyffn.tensor([1, 3], device=device))
    norms = np.abs(emb.weight.numpy()).sum(axis=1)
    np.testing.assert_allclose(norms, [7.5, 1.0, 1.5, 1.0, 10.5], rtol=1e-6)


def test_embedding_max_norm_changes_the_table_as_torchs():
    torch = pytest.importorskip("torch")
    for kwargs in (dict(max_norm=2.0), dict(max_norm=1.5, norm_type=1.0),
                   dict(max_norm=0.5, norm_type=math.inf, padding_idx=2)):
        ours, theirs = tinyffn.tensor(TABLE, dtype="float32"), torch.tensor(TABLE)
        idx = [[0, 4, 2], [4, 2, 3]]
        F.embedding(tinyffn.tensor(idx), ours, **kwargs)
        torch.nn.functional.embedding(torch.tensor(idx), theirs, **kwargs)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=2e-7, err_msg=kwargs)


def test_embedding_scale_grad_by_freq_divides_the_tables_gradient_alone(device):
    """Row 0 read three times: its gradient is the mean of its three gy rows (written
    out), row 2's twice: half their sum; y's own gradient is gy, unscaled, as PyTorch's."""
    w = tinyffn.tensor(TABLE, dtype="float64", device=device, requires_grad=True)
    for module in (False, True):
        w.grad = None
        idx = tinyffn.tensor([0, 2, 0, 0, 1, 2], device=device)
        if module:
            emb = nn.Embedding.from_pretrained(w, freeze=False, scale_grad_by_freq=True)
            y, table = emb(idx), emb.weight
        else:
            y, table = F.embedding(idx, w, scale_grad_by_freq=True), w
        y.retain_grad()
        gy = tinyffn.arange(18.0, dtype="float64", device=device).reshape(6, 3)
        y.backward(gy)
        assert y.grad.tolist() == gy.tolist()
        assert table.grad.tolist()[:3] == [[5.0, 6.0, 7.0], [12.0, 13.0, 14.0],
                                           [9.0, 10.0, 11.0]]


def _scaled_second_derivative(lib, grad, coupled):
    """d/dw of Σ g² (1, 2) for g = dL/dw through a scale_grad_by_freq lookup (create_graph)."""
    w = lib.tensor((np.arange(8.0).reshape(4, 2) / 3).tolist(), dtype=lib.float64,
                   requires_grad=True)
    F_ = lib.nn.functional
    y = F_.embedding(lib.tensor([0, 2, 0, 1]), w, scale_grad_by_freq=True)
    loss = (y.sum(0) ** 3).sum() + (y[0] * y[3]).sum() if coupled else (y ** 3).sum()
    (g,) = grad(loss, [w], create_graph=True)
    (h,) = grad((g * g * lib.tensor([[1.0, 2.0]], dtype=lib.float64)).sum(), [w])
    return h.numpy()


def test_embedding_scale_grad_by_freq_second_derivative_is_scaled_once():
    """Row 0 is read twice: a second backward divides by its count where it crosses the
    lookup, and the recorded first derivative passes its gradient back unscaled, as
    PyTorch's embedding_dense_double_backward. For L = Σ y³ that is also what finite
    differences of the first derivative give (written out: torch 2.13's and FD's)."""
    h = _scaled_second_derivative(tinyffn, tinyffn.grad, coupled=False)
    np.testing.assert_allclose(h, [[0.0, 8 / 3], [32 / 3, 72.0], [256 / 3, 1000 / 3],
                                   [0.0, 0.0]], rtol=1e-13)
    torch = pytest.importorskip("torch")
    for coupled in (False, True):       # coupled: PyTorch's numbers, not finite differences'
        np.testing.assert_allclose(h if not coupled else _scaled_second_derivative(
            tinyffn, tinyffn.grad, coupled), _scaled_second_derivative(
            torch, torch.autograd.grad, coupled), rtol=1e-13)


def test_embedding_options_are_checked_and_printed_as_pytorchs():
    with pytest.raises(ValueError, match=r"embedding: sparse=True .* no sparse tensors; "
                                         r"leave sparse=False"):
        F.embedding(tinyffn.tensor([0]), tinyffn.eye(2), sparse=True)
    with pytest.raises(ValueError, match=r"Embedding: sparse=True"):
        nn.Embedding(3, 2, sparse=True)
    with pytest.raises(TypeError, match=r"embedding: max_norm must be a number or None"):
        F.embedding(tinyffn.tensor([0]), tinyffn.eye(2), max_norm="2")
    with pytest.raises(TypeError, match=r"Embedding: norm_type must be a number"):
        nn.Embedding.from_pretrained(tinyffn.eye(2), norm_type=None)
    assert repr(nn.Embedding(4, 2, 1, 1.0, 1.0, True)) == (
        "Embedding(4, 2, padding_idx=1, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True)")
    assert repr(nn.Embedding(4, 2, max_norm=2.0)) == "Embedding(4, 2, max_norm=2.0)"


def test_each_is_drawn_in_a_frame_of_its_name():
    x = tinyffn.tensor(X, requires_grad=True)
    for y, name in [(F.softplus(x), "softplus"), (nn.Softplus()(x), "softplus"),
                    (F.pad(x, (1, 1)), "pad"), (F.pad(x, (-1, 0)), "pad"),
                    (F.embedding(tinyffn.tensor([1]), x), "embedding"),
                    (F.embedding(tinyffn.tensor([1]), x, scale_grad_by_freq=True), "embedding"),
                    (nn.Embedding(3, 2)(tinyffn.tensor([1])), "embedding")]:
        assert [s.name for s in y.grad_fn.scope if s.kind == "function"][0] == name
    assert F.pad(x, (0, 0)) is not x                   # a new tensor, as PyTorch's
    cropped = F.pad(x, (-1, 0))
    with tinyffn.no_grad():
        cropped.zero_()                                 # not a view of x: its own to change
    assert x.tolist() == X


def test_softplus_module_prints_as_pytorchs():
    assert repr(nn.Softplus()) == "Softplus(beta=1.0, threshold=20.0)"
    assert repr(nn.Softplus(2, 10)) == "Softplus(beta=2, threshold=10)"
    assert list(nn.Softplus().parameters()) == []


def test_embedding_refuses_indices_on_another_device():
    with pytest.raises(tinyffn.DeviceError, match=r"embedding: the indices are on cpu but "
                                                  r"the table on strict"):
        F.embedding(tinyffn.tensor([0]), tinyffn.zeros(2, 2, device="strict"))


@pytest.mark.parametrize("call, error, match", [
    ("F.leaky_relu(n)", TypeError, "leaky_relu: input has dtype int64"),
    ("F.leaky_relu(x, inplace=True)", ValueError, "inplace"),
    ("F.leaky_relu(x, 'a')", TypeError, "negative_slope must be a number"),
    ("F.glu(x[:, :3])", ValueError, "dim -1 of shape .* has length 3"),
    ("F.glu(x[0, 0])", ValueError, "a 0-d tensor has no dim"),
    ("F.glu(x, 2)", ValueError, r"dim must be an integer in \[-2, 1\]"),
    ("F.normalize(x[0])", ValueError, "for a vector pass dim=0"),
    ("F.normalize(x, eps=-1)", ValueError, "eps must be a number >= 0"),
    ("F.normalize(x, p='max')", ValueError, "norm: p must be"),
    ("F.one_hot(n.int())", TypeError, "an int64 tensor .* got int32"),
    ("F.one_hot(x)", TypeError, "got float32"),
    ("F.one_hot(n, 3)", ValueError, "smaller than num_classes=3, got 3"),
    ("F.one_hot(n - 1)", ValueError, "must be >= 0, got -1"),
    ("F.one_hot(n[:0])", ValueError, "cannot infer num_classes from an empty tensor"),
    ("F.one_hot(n, -2)", ValueError, "num_classes must be an integer >= 0"),
    ("F.l1_loss(x, x[0])", ValueError, "l1_loss: input has shape"),
    ("F.l1_loss(x, x, reduction='avg')", ValueError, "reduction"),
    ("nn.LeakyReLU(inplace=True)", ValueError, "inplace"),
    ("F.softplus(n)", TypeError, "softplus: input has dtype int64"),
    ("F.softplus(x, 0)", ValueError, "softplus: beta must not be 0"),
    ("F.softplus(x, 'a')", TypeError, "softplus: beta must be a number"),
    ("F.pad(x, (1,))", ValueError, r"pad: pad has 1 counts, but needs an even number, two per "
                                   r"axis, for at most the 2 axes of shape \(2, 4\)"),
    ("F.pad(x, (1, 1) * 3)", ValueError, "pad: pad has 6 counts"),
    ("F.pad(x[0], (1, 1), mode='reflect')", ValueError,
     r"pad: mode='reflect' pads the last 1, 2 or 3 axes of a tensor with 1 or 2 axes more .*"
     r"got 2 counts for shape \(4,\)"),
    ("F.pad(x, (1, 1, 1, 1), mode='replicate')", ValueError, r"got 4 counts for shape \(2, 4\)"),
    ("F.pad(x, (4, 0), mode='reflect')", ValueError,
     r"pad: mode='reflect' needs counts of at most 3 \(the entries it can mirror\) along an "
     r"axis of 4; got \(4, 0\) for shape \(2, 4\)"),
    ("F.pad(x, (0, 5), mode='circular')", ValueError, "needs counts of at most 4"),
    ("F.pad(x, (-2, 3), mode='circular')", ValueError,
     r"would wrap around the 2 entries left after the cut more than once"),
    ("F.pad(x[:, :0], (1, 0), mode='replicate')", ValueError,      # as PyTorch; not index -1
     r"pad: mode='replicate' has no entry to copy along an empty axis \(shape \(2, 0\)\)"),
    ("F.pad(x, (1, 1), mode='replicate', value=1)", ValueError,
     r"pad: mode='replicate' copies entries of the input and takes no value \(got 1\)"),
    ("F.pad(x, (1, 1), mode='wrap')", ValueError, r"pad: mode must be one of \('constant'"),
    ("F.pad(x, (1.0, 1))", TypeError, "pad: pad must be a tuple of ints"),
    ("F.pad(x, 1)", TypeError, "pad: pad must be a tuple of ints"),
    ("F.pad(n, (1, 1), value=0.5)", TypeError, r"pad: value 0\.5 is not a whole number, and "
                                               r"the dtype is int64"),
    ("F.pad(x, (1, 1), value=x[0, 0])", TypeError, "pad: value must be a number, got Tensor"),
    ("F.pad(x, (-3, -2))", ValueError, r"pad: the counts \(-3, -2\) cut more than the 4 "
                                       r"entries of axis 1"),
    ("F.pad([1.0], (1, 1))", TypeError, "pad: input must be a tinyffn Tensor, got list"),
    ("F.embedding(x, x)", TypeError, "embedding: indices must be integers, got dtype float32"),
    ("F.embedding(n, x[0])", ValueError, r"embedding: the table must be 2-D .* shape \(4,\)"),
    ("F.embedding(n, x, padding_idx=2)", ValueError, r"embedding: padding_idx must be an "
                                                     r"integer in \[-2, 2\)"),
    ("F.embedding(n, x)", IndexError, r"embedding: index 3 is out of range for "
                                      r"num_embeddings=2"),
    ("F.embedding([0], x)", TypeError, "embedding: the indices must be a tinyffn Tensor"),
])
def test_errors_name_the_function_and_the_fix(call, error, match):
    names = {"F": F, "nn": nn, "x": tinyffn.tensor(X), "n": tinyffn.tensor([0, 3, 1])}
    with pytest.raises(error, match=match):
        eval(call, {}, names)


EXPECTED = {
    'F.leaky_relu(x)': ('float64', [[0.5, -0.02, 3.0, 0.0], [-0.04, 1.5, 0.25, -0.005]]),
    'F.leaky_relu(x, 0.2)': ('float64', [[0.5, -0.4, 3.0, 0.0], [-0.8, 1.5, 0.25, -0.1]]),
    'F.leaky_relu(x, -0.5)': ('float64', [[0.5, 1.0, 3.0, -0.0], [2.0, 1.5, 0.25, 0.25]]),
    'F.leaky_relu(x, 1)': ('float64', [[0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5]]),
    'F.glu(x)': ('float64', [[0.4762870634112167, -1.0], [-2.2487060035431923, 0.566311003197218]]),
    'F.glu(x, 0)': ('float64', [[0.00899310498104578, -1.6351489523872873, 1.686529502657394, 0.0]]),
    'F.glu(b, 0)': ('float64', [[[-1.4621171572600098, -1.3602747570557094, -1.2263617142904655, -1.0649410024603883], [-0.8807970779778823, -0.6784879013256679, -0.4620709099893783, -0.2349783374564981], [0.0, 0.24066827816396766, 0.4853438846243218, 0.7327669725674808]]]),
    'F.glu(b, -1)': ('float64', [[[-0.3648510476127127, -0.38972524294429045], [-0.3775406687981454, -0.3283676243356515], [0.0, 0.16979467479384824]], [[0.8175744761936437, 1.0649410024603883], [1.848283639957513, 2.114805037108483], [2.912063307745931, 3.175323547792417]]]),
    'F.normalize(x)': ('float64', [[0.13736056394868904, -0.5494422557947561, 0.8241633836921342, 0.0], [-0.9284141650970551, 0.3481553119113957, 0.058025885318565944, -0.11605177063713189]]),
    'F.normalize(x, dim=0)': ('float64', [[0.12403473458920847, -0.8, 0.9965457582448796, 0.0], [-0.9922778767136677, 0.6, 0.08304547985373997, -1.0]]),
    'F.normalize(z)': ('float64', [[0.6, 0.8], [0.0, 0.0]]),
    'F.normalize(x, p=1)': ('float64', [[0.09090909090909091, -0.36363636363636365, 0.5454545454545454, 0.0], [-0.64, 0.24, 0.04, -0.08]]),
    'F.normalize(x, 3.0, 1)': ('float64', [[0.15267381577001715, -0.6106952630800686, 0.916042894620103, 0.0], [-0.9823326082160866, 0.3683747280810325, 0.06139578801350541, -0.12279157602701082]]),
    'F.normalize(x, p=math.inf)': ('float64', [[0.16666666666666666, -0.6666666666666666, 1.0, 0.0], [-1.0, 0.375, 0.0625, -0.125]]),
    'F.normalize(b, dim=-1)': ('float64', [[[-0.6064784348631227, -0.5306686305052324, -0.454858826147342, -0.3790490217894517], [-0.7302967433402214, -0.5477225575051661, -0.3651483716701107, -0.18257418583505536], [0.0, 0.2672612419124244, 0.5345224838248488, 0.8017837257372732]], [[0.3563483225498992, 0.44543540318737396, 0.5345224838248488, 0.6236095644623235], [0.41816669879145335, 0.470437536140385, 0.5227083734893166, 0.5749792108382483], [0.44292808231533737, 0.47983875584161545, 0.5167494293678936, 0.5536601028941717]]]),
    'F.normalize(z, eps=0.5)': ('float64', [[0.6, 0.8], [0.0, 0.0]]),
    'F.normalize(v, dim=0)': ('float64', [0.6, -0.8]),
    'F.normalize(x, p=0)': ('float64', [[0.16666666666666666, -0.6666666666666666, 1.0, 0.0], [-1.0, 0.375, 0.0625, -0.125]]),
    'F.one_hot(i)': ('int64', [[1, 0, 0, 0], [0, 0, 0, 1], [0, 1, 0, 0], [0, 0, 0, 1]]),
    'F.one_hot(i, 5)': ('int64', [[1, 0, 0, 0, 0], [0, 0, 0, 1, 0], [0, 1, 0, 0, 0], [0, 0, 0, 1, 0]]),
    'F.one_hot(i.reshape(2, 2))': ('int64', [[[1, 0, 0, 0], [0, 0, 0, 1]], [[0, 1, 0, 0], [0, 0, 0, 1]]]),
    'F.one_hot(e, 3)': ('int64', []),
    'F.one_hot(i0, 3)': ('int64', [0, 0, 1]),
    'F.l1_loss(x, t)': ('float64', 0.5625),
    "F.l1_loss(x, t, reduction='sum')": ('float64', 4.5),
    "F.l1_loss(x, t, reduction='none')": ('float64', [[0.5, 0.0, 1.0, 0.0], [0.0, 1.5, 0.0, 1.5]]),
    'nn.LeakyReLU(0.1)(x)': ('float64', [[0.5, -0.2, 3.0, 0.0], [-0.4, 1.5, 0.25, -0.05]]),
    'nn.Flatten()(b)': ('float64', [[-2.0, -1.75, -1.5, -1.25, -1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75], [1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0, 3.25, 3.5, 3.75]]),
    'nn.Flatten(0)(b)': ('float64', [-2.0, -1.75, -1.5, -1.25, -1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0, 3.25, 3.5, 3.75]),
    'nn.Flatten(0, 1)(b)': ('float64', [[-2.0, -1.75, -1.5, -1.25], [-1.0, -0.75, -0.5, -0.25], [0.0, 0.25, 0.5, 0.75], [1.0, 1.25, 1.5, 1.75], [2.0, 2.25, 2.5, 2.75], [3.0, 3.25, 3.5, 3.75]]),
    'nn.Flatten(-2)(b)': ('float64', [[-2.0, -1.75, -1.5, -1.25, -1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75], [1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0, 3.25, 3.5, 3.75]]),
    'nn.L1Loss()(x, t)': ('float64', 0.5625),
    "nn.L1Loss(reduction='none')(x, t)": ('float64', [[0.5, 0.0, 1.0, 0.0], [0.0, 1.5, 0.0, 1.5]]),
    'F.softplus(s)': ('float64', [[9.357622968839737e-14, 0.31326168751822286, 0.6931471805599453, 0.9740769841801067], [9.50007484902863, 19.500000003398267, 20.5, 50.0]]),
    'F.softplus(s, 2.0)': ('float64', [[4.37825538134826e-27, 0.06346400552148625, 0.34657359027997264, 0.6566308437591114], [9.500000002801398, 19.5, 20.5, 50.0]]),
    'F.softplus(s, 0.5, 5.0)': ('float64', [[6.11804547427441e-07, 0.9481539683602134, 1.3862943611198906, 1.6518788397576871], [9.517228967524352, 19.5, 20.5, 50.0]]),
    'F.softplus(s, -1.0)': ('float64', [[-30.0, -1.3132616875182228, -0.6931471805599453, -0.4740769841801067], [-7.484902862926717e-05, -3.398267813720959e-09, -1.2501528656053015e-09, -1.9287498479639178e-22]]),
    'F.softplus(x, threshold=0.0)': ('float64', [[0.5, 0.1269280110429725, 3.0, 0.6931471805599453], [0.018149927917809738, 1.5, 0.25, 0.4740769841801067]]),
    'nn.Softplus()(s)': ('float64', [[9.357622968839737e-14, 0.31326168751822286, 0.6931471805599453, 0.9740769841801067], [9.50007484902863, 19.500000003398267, 20.5, 50.0]]),
    'nn.Softplus(2.0, 10.0)(s)': ('float64', [[4.37825538134826e-27, 0.06346400552148625, 0.34657359027997264, 0.6566308437591114], [9.5, 19.5, 20.5, 50.0]]),
    'F.pad(x, (1, 2))': ('float64', [[0.0, 0.5, -2.0, 3.0, 0.0, 0.0, 0.0], [0.0, -4.0, 1.5, 0.25, -0.5, 0.0, 0.0]]),
    'F.pad(x, (0, 0, 1, 0))': ('float64', [[0.0, 0.0, 0.0, 0.0], [0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5]]),
    'F.pad(x, (-1, 1, 1, -1), value=2.5)': ('float64', [[2.5, 2.5, 2.5, 2.5], [-2.0, 3.0, 0.0, 2.5]]),
    'F.pad(b, (1, 1, 0, 0, 1, 0))': ('float64', [[[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]], [[0.0, -2.0, -1.75, -1.5, -1.25, 0.0], [0.0, -1.0, -0.75, -0.5, -0.25, 0.0], [0.0, 0.0, 0.25, 0.5, 0.75, 0.0]], [[0.0, 1.0, 1.25, 1.5, 1.75, 0.0], [0.0, 2.0, 2.25, 2.5, 2.75, 0.0], [0.0, 3.0, 3.25, 3.5, 3.75, 0.0]]]),
    'F.pad(x, (-2, -2))': ('float64', [[], []]),
    'F.pad(k, (1, 0), value=7)': ('int64', [[7, 0, 4, 2], [7, 4, 1, 3]]),
    'F.pad(x, (0, 0))': ('float64', [[0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5]]),
    "F.pad(x, [2, -1, 0, 1], 'constant', -1.0)": ('float64', [[-1.0, -1.0, 0.5, -2.0, 3.0], [-1.0, -1.0, -4.0, 1.5, 0.25], [-1.0, -1.0, -1.0, -1.0, -1.0]]),
    'F.pad(x > 0, (1, 1))': ('bool', [[False, True, False, True, False, False], [False, False, True, True, False, False]]),
    'F.pad(v, (0, 3), value=math.inf)': ('float64', [3.0, -4.0, inf, inf, inf]),
    'F.pad(b, (0, 0, -3, 0))': ('float64', [[], []]),
    'F.embedding(k, table)': ('float64', [[[-3.0, -2.5, -2.0], [3.0, 3.5, 4.0], [0.0, 0.5, 1.0]], [[3.0, 3.5, 4.0], [-1.5, -1.0, -0.5], [1.5, 2.0, 2.5]]]),
    'F.embedding(k, table, padding_idx=1)': ('float64', [[[-3.0, -2.5, -2.0], [3.0, 3.5, 4.0], [0.0, 0.5, 1.0]], [[3.0, 3.5, 4.0], [-1.5, -1.0, -0.5], [1.5, 2.0, 2.5]]]),
    'F.embedding(k[0], table, padding_idx=-1)': ('float64', [[-3.0, -2.5, -2.0], [3.0, 3.5, 4.0], [0.0, 0.5, 1.0]]),
    'F.embedding(k[0, 0], table)': ('float64', [-3.0, -2.5, -2.0]),
    'F.embedding(e, table)': ('float64', []),
    'F.embedding(k, table, max_norm=3.0)': ('float64', [[[-2.051290329520237, -1.709408607933531, -1.3675268863468248], [1.4746174327731993, 1.720387004902066, 1.9661565770309326], [0.0, 0.5, 1.0]], [[1.4746174327731993, 1.720387004902066, 1.9661565770309326], [-1.5, -1.0, -0.5], [1.2727921701357865, 1.6970562268477154, 2.121320283559644]]]),
    'F.embedding(k, table, None, 2.0, 1.0)': ('float64', [[[-0.7999999893333334, -0.6666666577777779, -0.5333333262222223], [0.5714285659863946, 0.6666666603174604, 0.7619047546485261], [0.0, 0.5, 1.0]], [[0.5714285659863946, 0.6666666603174604, 0.7619047546485261], [-0.9999999666666679, -0.6666666444444452, -0.3333333222222226], [0.49999999166666675, 0.6666666555555557, 0.8333333194444447]]]),
    'F.embedding(k, table, max_norm=1.0, norm_type=math.inf, padding_idx=4)': ('float64', [[[-0.9999999666666679, -0.8333333055555565, -0.6666666444444452], [0.7499999812500004, 0.8749999781250005, 0.9999999750000006], [0.0, 0.5, 1.0]], [[0.7499999812500004, 0.8749999781250005, 0.9999999750000006], [-0.9999999333333378, -0.6666666222222252, -0.3333333111111126], [0.599999976000001, 0.7999999680000013, 0.9999999600000016]]]),
    'nn.Embedding.from_pretrained(table, max_norm=3.0)(k)': ('float64', [[[-2.051290329520237, -1.709408607933531, -1.3675268863468248], [1.4746174327731993, 1.720387004902066, 1.9661565770309326], [0.0, 0.5, 1.0]], [[1.4746174327731993, 1.720387004902066, 1.9661565770309326], [-1.5, -1.0, -0.5], [1.2727921701357865, 1.6970562268477154, 2.121320283559644]]]),
    'F.embedding(k, table, scale_grad_by_freq=True)': ('float64', [[[-3.0, -2.5, -2.0], [3.0, 3.5, 4.0], [0.0, 0.5, 1.0]], [[3.0, 3.5, 4.0], [-1.5, -1.0, -0.5], [1.5, 2.0, 2.5]]]),
}
EXPECTED_GRADS = {
    'F.leaky_relu(x) dx': ('float64', [[0.1, 0.002, 0.3, 0.004], [0.005, 0.6, 0.7, 0.008]]),
    'F.leaky_relu(x, -0.5) dx': ('float64', [[0.1, -0.1, 0.3, -0.2], [-0.25, 0.6, 0.7, -0.4]]),
    'F.glu(x) dx': ('float64', [[0.09525741268224334, 0.1, 0.0022588329865456, -0.1], [0.16865295026573943, 0.15101626751925817, -0.295360899285118, 0.1410022273209567]]),
    'F.glu(b, 0) db': ('float64', [[[0.07310585786300049, 0.15545997223493824, 0.24527234285809307, 0.34078112078732425], [0.44039853898894116, 0.5427903210605343, 0.6468992739851296, 0.751930679860794], [0.8573167141401901, 0.9626731126558706, 1.0677565461735081, 1.172427156107969]], [[-0.039322386648296376, -0.06058667544737398, -0.06711590343164979, -0.06306461259332757], [-0.05249679270175331, -0.03881607499915332, -0.02453630079078782, -0.011295248928974808], [0.0, 0.00898339770633201, 0.01564916313385458, 0.020204469343839133]]]),
    'F.normalize(x) dx': ('float64', [[0.021770353531490337, 0.07775126261246548, 0.04820578281972861, 0.10988845115895123], [0.04978112989619732, 0.16411361504240873, 0.16661439393829303, 0.17739900292679422]]),
    'F.normalize(z) dz': ('float64', [[-0.006399999999999996, 0.004799999999999999], [300000000000.0, 400000000000.0]]),
    'F.normalize(x, p=1) dx': ('float64', [[6.938893903907228e-18, 0.05454545454545455, 0.03636363636363636, 0.07272727272727274], [0.046079999999999996, 0.12992, 0.14592, 0.09408]]),
    'F.normalize(x, 3.0, 0) dx': ('float64', [[0.0268830941630854, 0.16710941233747592, -0.019371625390774902, 0.8], [0.003360386770385665, 0.22281254978330123, 0.23245950468929832, 0.0]]),
    'F.normalize(x, p=0) dx': ('float64', [[0.03333333333333333, 0.06666666666666667, 0.09999999999999999, 0.13333333333333333], [0.125, 0.15, 0.175, 0.2]]),
    'F.l1_loss(x, t) dx': ('float64', [[-0.0125, 0.0, 0.0125, 0.0], [0.0, 0.0125, 0.0, -0.0125]]),
    "F.l1_loss(x, t, reduction='none') dt": ('float64', [[0.1, -0.0, -0.3, -0.0], [-0.0, -0.6, -0.0, 0.8]]),
    'nn.Flatten()(b) db': ('float64', [[[0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8], [0.9, 1.0, 1.1, 1.2]], [[1.3, 1.4, 1.5, 1.6], [1.7, 1.8, 1.9, 2.0], [2.1, 2.2, 2.3, 2.4]]]),
    'F.softplus(s) ds': ('float64', [[9.357622968839301e-15, 0.05378828427399903, 0.15, 0.24898373248074185], [0.4999625768862447, 0.5999999979610392, 0.7, 0.8]]),
    'F.softplus(s, 2.0) ds': ('float64', [[8.75651076269652e-28, 0.02384058440442351, 0.15, 0.292423431452002], [0.4999999971986018, 0.6, 0.7, 0.8]]),
    'F.softplus(s, -1.0) ds': ('float64', [[0.1, 0.146211715726001, 0.15, 0.15101626751925817], [3.742311375530562e-05, 2.038960684768108e-09, 8.751070053767023e-10, 1.5429998783711344e-22]]),
    'nn.Softplus(2.0, 10.0)(s) ds': ('float64', [[8.75651076269652e-28, 0.02384058440442351, 0.15, 0.292423431452002], [0.5, 0.6, 0.7, 0.8]]),
    'F.pad(x, (-1, 1, 1, -1), value=2.5) dx': ('float64', [[0.0, 0.5, 0.6, 0.7], [0.0, 0.0, 0.0, 0.0]]),
    'F.pad(b, (1, 1, 0, 0, 1, 0)) db': ('float64', [[[2.0, 2.1, 2.2, 2.3], [2.6, 2.7, 2.8, 2.9], [3.2, 3.3, 3.4, 3.5]], [[3.8, 3.9, 4.0, 4.1], [4.4, 4.5, 4.6, 4.7], [5.0, 5.1, 5.2, 5.3]]]),
    'F.embedding(k, table) dtable': ('float64', [[0.1, 0.2, 0.3], [1.3, 1.4, 1.5], [0.7, 0.8, 0.9], [1.6, 1.7, 1.8], [1.4, 1.6, 1.7999999999999998]]),
    'F.embedding(k, table, padding_idx=1) dtable': ('float64', [[0.1, 0.2, 0.3], [0.0, 0.0, 0.0], [0.7, 0.8, 0.9], [1.6, 1.7, 1.8], [1.4, 1.6, 1.7999999999999998]]),
    'F.embedding(k, table, max_norm=3.0) dtable': ('float64', [[0.1, 0.2, 0.3], [1.3, 1.4, 1.5], [0.7, 0.8, 0.9], [1.6, 1.7, 1.8], [1.4, 1.6, 1.7999999999999998]]),
    'F.embedding(k, table, scale_grad_by_freq=True) dtable': ('float64', [[0.1, 0.2, 0.3], [1.3, 1.4, 1.5], [0.7, 0.8, 0.9], [1.6, 1.7, 1.8], [0.7, 0.8, 0.8999999999999999]]),
    'F.embedding(k, table, padding_idx=4, scale_grad_by_freq=True) dtable': ('float64', [[0.1, 0.2, 0.3], [1.3, 1.4, 1.5], [0.7, 0.8, 0.9], [1.6, 1.7, 1.8], [0.0, 0.0, 0.0]]),
}
