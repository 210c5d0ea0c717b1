"""nn.RNN, LSTM, GRU and RNNCell, LSTMCell, GRUCell (tinyffn/recurrent.py,
recurrent_layers.py) against PyTorch 2.13.

References: torch live where it is installed (values and the gradients of the input, the
initial states and every parameter, over the configurations where a bug could hide), its
values and gradients for a few calls written out in ``EXPECTED`` and ``EXPECTED_GRADS``
(computed once with torch 2.13; those run without it, on every device), one step of each
cell written out in NumPy, and gradcheck.
"""
import math

import numpy as np
import pytest

import tinyffn
import torch_parity
from tinyffn import nn

rng = np.random.default_rng(0)


def _values(*shape, start=0.0):
    """Fixed values that differ entry by entry: sin(1.3 i + start)."""
    return np.sin(1.3 * np.arange(math.prod(shape)) + start).reshape(shape)


def _flat(result) -> list:
    """(output, h_n) or (output, (h_n, c_n)) or a cell's h' or (h', c') -> the tensors."""
    if isinstance(result, tuple):
        return [t for r in result for t in _flat(r)]
    return [result]


def _copy_parameters(ours, theirs) -> None:
    """torch's parameters into ours, by name: the two lists of names must be equal."""
    state = theirs.state_dict()
    assert list(ours.state_dict()) == list(state)
    ours.load_state_dict({k: tinyffn.tensor(v.numpy()) for k, v in state.items()})


# ----------------------------------------------------------------------------- against torch
# (layer, args, kwargs, input shape, states given?): each a configuration a bug could hide in
LAYERS = [
    ("RNN", (3, 4), {}, (5, 2, 3), True),
    ("RNN", (3, 4, 2), {"nonlinearity": "relu", "bias": False, "batch_first": True},
     (2, 4, 3), True),
    ("RNN", (3, 4), {"bidirectional": True}, (4, 3), False),
    ("LSTM", (3, 4), {}, (5, 2, 3), True),
    ("LSTM", (3, 4, 2), {"bidirectional": True, "proj_size": 2}, (4, 2, 3), True),
    ("LSTM", (3, 4, 2), {"batch_first": True, "bias": False}, (2, 4, 3), False),
    ("LSTM", (3, 4), {"proj_size": 3, "batch_first": True}, (4, 3), True),
    ("GRU", (3, 4), {}, (5, 2, 3), True),
    ("GRU", (3, 4, 2), {"bidirectional": True, "batch_first": True}, (2, 4, 3), True),
    ("GRU", (3, 4), {"bias": False}, (4, 3), True),
    ("RNNCell", (3, 4), {}, (2, 3), True),
    ("RNNCell", (3, 4), {"nonlinearity": "relu", "bias": False}, (3,), True),
    ("LSTMCell", (3, 4), {}, (2, 3), True),
    ("LSTMCell", (3, 4), {}, (3,), False),
    ("GRUCell", (3, 4), {}, (2, 3), True),
    ("GRUCell", (3, 4), {"bias": False}, (3,), True),
]


def _layer_id(case) -> str:
    kind, args, kw, shape, states = case
    options = ", ".join(f"{k}={v}" for k, v in kw.items())
    return f"{kind}{args} {options} x{shape}{' h0' if states else ''}"


def _states(kind, args, kw, shape) -> list:
    """The initial states' shapes, PyTorch's, for an input of ``shape``."""
    unbatched = len(shape) == (1 if kind.endswith("Cell") else 2)
    batch = () if unbatched else (shape[0] if kw.get("batch_first") or kind.endswith("Cell")
                                  else shape[1],)
    if kind.endswith("Cell"):
        return [batch + (args[1],)] * (2 if kind == "LSTMCell" else 1)
    D = (2 if kw.get("bidirectional") else 1) * (args[2] if len(args) > 2 else 1)
    h = (D,) + batch + (kw.get("proj_size") or args[1],)
    return [h, (D,) + batch + (args[1],)] if kind == "LSTM" else [h]


@pytest.mark.parametrize("case", LAYERS, ids=_layer_id)
def test_values_and_every_gradient_are_pytorchs(case):
    torch = pytest.importorskip("torch")
    kind, args, kw, shape, given = case
    theirs = getattr(torch.nn, kind)(*args, **kw, dtype=torch.float64)
    ours = getattr(nn, kind)(*args, **kw, dtype="float64")
    _copy_parameters(ours, theirs)
    arrays = [rng.standard_normal(shape)] + ([rng.standard_normal(s) for s in
                                              _states(kind, args, kw, shape)] if given else [])
    xs = [tinyffn.tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    pack = (lambda s: tuple(s) if kind.startswith("LSTM") else s[0]) if given else None
    y = _flat(ours(xs[0], pack(xs[1:])) if given else ours(xs[0]))
    yt = _flat(theirs(ts[0], pack(ts[1:])) if given else theirs(ts[0]))
    assert [a.shape for a in y] == [tuple(b.shape) for b in yt]
    gys = [rng.standard_normal(a.shape) for a in y]
    for a, b, gy in zip(y, yt, gys):             # every output, the states too, carries a gy
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-14)
    sum((a * tinyffn.tensor(gy)).sum() for a, gy in zip(y, gys)).backward()
    sum((b * torch.tensor(gy)).sum() for b, gy in zip(yt, gys)).backward()
    for a, b in zip(xs, ts):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-11, atol=1e-13)
    for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-11, atol=1e-13,
                                   err_msg=name)


@pytest.mark.parametrize("kind, args, kw", [
    ("RNN", (10, 20), {}), ("RNN", (10, 20, 2), {"nonlinearity": "relu", "dropout": 0.5}),
    ("LSTM", (10, 20, 2), {"batch_first": True}),
    ("LSTM", (4, 3, 2), {"proj_size": 2, "bias": False, "dropout": 0.25,
                         "bidirectional": True, "batch_first": True}),
    ("GRU", (4, 3), {"bidirectional": True}), ("RNNCell", (4, 3), {"nonlinearity": "relu"}),
    ("LSTMCell", (4, 3), {"bias": False}), ("GRUCell", (4, 3), {}),
])
def test_repr_parameters_and_state_dict_are_pytorchs(kind, args, kw):
    ours = getattr(nn, kind)(*args, **kw)
    written = {("LSTM", (10, 20, 2)): "LSTM(10, 20, num_layers=2, batch_first=True)",
               ("RNNCell", (4, 3)): "RNNCell(4, 3, nonlinearity=relu)",
               ("RNN", (10, 20, 2)): "RNN(10, 20, num_layers=2, dropout=0.5)"}
    if (kind, args) in written:
        assert repr(ours) == written[kind, args]
    torch = pytest.importorskip("torch")
    theirs = getattr(torch.nn, kind)(*args, **kw)
    assert repr(ours) == repr(theirs)
    assert [(n, p.shape) for n, p in ours.named_parameters()] == [
        (n, tuple(p.shape)) for n, p in theirs.named_parameters()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for attr in ("input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout",
                 "bidirectional", "proj_size", "mode", "nonlinearity"):
        if hasattr(theirs, attr):
            assert getattr(ours, attr) == getattr(theirs, attr), attr


def test_parameter_names_and_shapes_written_out():
    """A 2-layer bidirectional LSTM with a projection: PyTorch's names, shapes and order."""
    lstm = nn.LSTM(5, 3, 2, bidirectional=True, proj_size=2)
    expected = [(f"{name}_l{k}{suffix}", shape)
                for k, H_in in ((0, 5), (1, 4))           # layer 1 reads 2 directions · 2
                for suffix in ("", "_reverse")
                for name, shape in (("weight_ih", (12, H_in)), ("weight_hh", (12, 2)),
                                    ("bias_ih", (12,)), ("bias_hh", (12,)),
                                    ("weight_hr", (2, 3)))]
    assert [(n, p.shape) for n, p in lstm.named_parameters()] == expected
    assert [len(w) for w in lstm.all_weights] == [5] * 4
    assert "LSTM" in nn.__all__ and "GRUCell" in nn.__all__


def test_init_is_uniform_within_one_over_sqrt_hidden_size():
    """Every parameter ~ U(±1/√hidden_size), from tinyffn's generator (a seed repeats it)."""
    lstm = nn.LSTM(50, 100, dtype="float64")
    bound = 1 / math.sqrt(100)
    for name, p in lstm.named_parameters():
        a = p.numpy()
        assert np.abs(a).max() <= bound and np.abs(a).max() > 0.95 * bound, name
    w = lstm.weight_ih_l0.numpy()
    assert abs(w.std() - bound / math.sqrt(3)) < 0.02 * bound
    tinyffn.manual_seed(3)
    a = nn.GRUCell(3, 4).weight_hh.numpy()
    tinyffn.manual_seed(3)
    np.testing.assert_array_equal(nn.GRUCell(3, 4).weight_hh.numpy(), a)


# ----------------------------------------------------------------------------- written out
# Each case builds a layer whose parameters are fixed values (sin, by name), in float64;
# ``joined`` flattens all its outputs into one vector, so one gradient sees them all.
INPUTS = dict(x=_values(3, 2, 3), xu=_values(3, 3, start=1.0), h0=_values(4, 2, 2, start=2.0),
              c0=_values(4, 2, 3, start=3.0), hc=_values(2, 3, start=4.0),
              cc=_values(2, 3, start=5.0))
CASES = [
    "joined(lstm(3, 3, 2, bidirectional=True, proj_size=2)(x, (h0, c0)))",
    "joined(gru(3, 2, 2, bidirectional=True)(x, h0))",
    "joined(rnn(3, 2, nonlinearity='relu', batch_first=True)(x))",
    "joined(lstm(3, 3, bias=False)(xu))",
    "joined(lstm_cell(3, 3)(x[0], (hc, cc)))",
    "joined(gru_cell(3, 3)(xu[0], hc[0]))",
    "joined(rnn_cell(3, 3)(x[1], hc))",
]
GRAD_CASES = [(CASES[0], n) for n in ("x", "c0", "weight_hh_l1_reverse", "weight_hr_l0")] + [
    (CASES[1], "h0"), (CASES[1], "weight_ih_l1_reverse"), (CASES[3], "weight_hh_l0"),
    (CASES[4], "cc"), (CASES[5], "bias_hh"), (CASES[6], "hc")]


def run(module, case: str, requires_grad: str = "", **tensor_kwargs):
    """``case`` evaluated with ``module``'s names (tinyffn or torch), float64; the input or
    the layer's parameter named ``requires_grad`` is returned too."""
    f64 = module.float64
    inputs = {k: module.tensor(a.tolist(), dtype=f64, **tensor_kwargs) for k, a in INPUTS.items()}
    if requires_grad in inputs:
        inputs[requires_grad].requires_grad_(True)
    made = []

    def maker(kind):
        def make(*args, **kw):
            layer = getattr(module.nn, kind)(*args, **kw, dtype=f64, **tensor_kwargs)
            layer.load_state_dict({n: module.tensor(0.6 * _values(*p.shape, start=i), dtype=f64,
                                                    **tensor_kwargs)
                                   for i, (n, p) in enumerate(layer.state_dict().items())})
            made.append(layer)
            return layer
        return make

    def joined(result):
        return module.cat([t.reshape(-1) for t in _flat(result)])
    names = dict(lstm="LSTM", gru="GRU", rnn="RNN", lstm_cell="LSTMCell", gru_cell="GRUCell",
                 rnn_cell="RNNCell")
    y = eval(case, {}, {**{k: maker(v) for k, v in names.items()}, "joined": joined, **inputs})
    return torch_parity.picked(y, inputs, made, requires_grad)


def grad_of(module, case: str, wrt: str, **tensor_kwargs):
    y, x = run(module, case, requires_grad=wrt, **tensor_kwargs)
    return torch_parity.weighted_grad(module, y, x, **tensor_kwargs)


plain = torch_parity.plain


def assert_same(actual, expected, case, device="cpu"):
    tol = 1e-9 if device == "cuda" else 1e-12
    torch_parity.assert_close(actual, expected, case, rtol=tol, atol=tol)


torch_parity.tests(globals())


# ----------------------------------------------------------------------------- by hand
def _sigmoid(a):
    return 1 / (1 + np.exp(-a))


def test_one_step_of_each_cell_by_hand(device):
    """The recurrences written out in NumPy, gate blocks in PyTorch's order."""
    x, h, c = rng.standard_normal((2, 3)), rng.standard_normal((2, 4)), rng.standard_normal((2, 4))
    t = {k: tinyffn.tensor(v, device=device) for k, v in dict(x=x, h=h, c=c).items()}
    for kind, G in (("RNNCell", 1), ("LSTMCell", 4), ("GRUCell", 3)):
        cell = getattr(nn, kind)(3, 4, dtype="float64", device=device)
        w_ih, w_hh, b_ih, b_hh = (p.numpy() for p in cell.parameters())
        gi, gh = x @ w_ih.T + b_ih, h @ w_hh.T + b_hh                  # (2, G·4) each
        if kind == "RNNCell":
            expected, got = np.tanh(gi + gh), cell(t["x"], t["h"])
        elif kind == "LSTMCell":
            i, f, g, o = np.split(gi + gh, 4, axis=1)
            c_new = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
            h_new, c_got = _sigmoid(o) * np.tanh(c_new), None
            got, c_got = cell(t["x"], (t["h"], t["c"]))
            np.testing.assert_allclose(c_got.numpy(), c_new, rtol=1e-12, atol=1e-14)
            expected = h_new
        else:
            (ir, iz, i_n), (hr, hz, hn) = np.split(gi, 3, axis=1), np.split(gh, 3, axis=1)
            r, z = _sigmoid(ir + hr), _sigmoid(iz + hz)
            n = np.tanh(i_n + r * hn)
            expected, got = (1 - z) * n + z * h, cell(t["x"], t["h"])
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-12, atol=1e-14, err_msg=kind)


def test_a_layer_is_its_cell_run_along_the_sequence(device):
    """GRU's output at step t is GRUCell's state after steps 1..t, with the same weights;
    the reverse direction's is the cell run from the last step back to t."""
    gru = nn.GRU(3, 4, bidirectional=True, dtype="float64", device=device)
    x = tinyffn.tensor(rng.standard_normal((5, 2, 3)), device=device)
    output, h_n = gru(x)
    for direction, suffix, steps in ((0, "", range(5)), (1, "_reverse", range(4, -1, -1))):
        cell = nn.GRUCell(3, 4, dtype="float64", device=device)
        cell.load_state_dict({k: getattr(gru, f"{k}_l0{suffix}") for k in cell.state_dict()})
        h = None
        for t in steps:
            h = cell(x[t], h)
            np.testing.assert_allclose(output[t, :, 4 * direction:4 * direction + 4].numpy(),
                                       h.numpy(), rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(h_n[direction].numpy(), h.numpy(), rtol=1e-12, atol=1e-14)


# ----------------------------------------------------------------------------- gradcheck
@pytest.mark.parametrize("kind", ["RNNCell", "LSTMCell", "GRUCell"])
def test_gradcheck_each_cell(device, kind):
    cell = getattr(nn, kind)(2, 2, dtype="float64", device=device)
    x, h, c = (tinyffn.tensor(rng.standard_normal(s), device=device, requires_grad=True)
               for s in ((2, 2), (2, 2), (2, 2)))
    if kind == "LSTMCell":
        assert tinyffn.gradcheck(lambda x, h, c, *p: cell(x, (h, c)), [x, h, c, *cell.parameters()])
    else:
        assert tinyffn.gradcheck(lambda x, h, *p: cell(x, h), [x, h, *cell.parameters()])


def test_gradcheck_two_layer_bidirectional_lstm():
    """Through x, h0 and c0 the check reaches every layer, direction and step; of the
    parameters (all compared with torch's gradients above) one of each kind."""
    lstm = nn.LSTM(2, 2, 2, bidirectional=True, proj_size=1, dtype="float64")
    x, h0, c0 = (tinyffn.tensor(rng.standard_normal(s), requires_grad=True)
                 for s in ((2, 1, 2), (4, 1, 1), (4, 1, 2)))
    params = [lstm.weight_ih_l1_reverse, lstm.weight_hh_l0, lstm.bias_ih_l1,
              lstm.bias_hh_l0_reverse, lstm.weight_hr_l1]
    assert tinyffn.gradcheck(lambda x, h0, c0, *p: tuple(_flat(lstm(x, (h0, c0)))),
                             [x, h0, c0, *params])


# ----------------------------------------------------------------------------- behaviour
def test_a_tiny_sequence_task_trains():
    """An LSTM learns to report the first of 5 signs at the end of the sequence (it must
    remember it past four distractors): the loss falls from about 1 to below 0.05. (On
    the CPU only: the other devices run the same ops in the tests above.)"""
    signs = np.random.default_rng(1).choice([-1.0, 1.0], size=(5, 32, 1))   # (L, N, 1)
    x, target = tinyffn.tensor(signs).float(), tinyffn.tensor(signs[0]).float()
    lstm, head = nn.LSTM(1, 6), nn.Linear(6, 1)
    opt = tinyffn.optim.Adam([*lstm.parameters(), *head.parameters()], lr=0.1)
    losses = []
    for _ in range(30):
        output, (h_n, c_n) = lstm(x)
        loss = ((head(h_n[0]) - target) ** 2).mean()                # h_n[0]: (N, 6)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[0] > 0.5 and losses[-1] < 0.05, losses[::5]


def test_state_dict_round_trip_gives_the_same_outputs(device):
    a = nn.LSTM(3, 4, 2, bidirectional=True, proj_size=2, dtype="float64", device=device)
    b = nn.LSTM(3, 4, 2, bidirectional=True, proj_size=2, dtype="float64", device=device)
    x = tinyffn.tensor(rng.standard_normal((4, 2, 3)), device=device)
    assert not np.allclose(a(x)[0].numpy(), b(x)[0].numpy())
    b.load_state_dict(a.state_dict())
    for u, v in zip(_flat(a(x)), _flat(b(x))):
        np.testing.assert_array_equal(u.numpy(), v.numpy())


def test_dropout_between_layers_only_while_training():
    """Training with dropout=0.5 and two layers: outputs differ from eval's, which has none
    (the eval output equals the same layer's with dropout=0). One layer warns, as torch."""
    x = tinyffn.tensor(rng.standard_normal((4, 2, 3)))
    tinyffn.manual_seed(0)
    gru = nn.GRU(3, 4, 2, dropout=0.5, dtype="float64")
    tinyffn.manual_seed(0)
    plain_gru = nn.GRU(3, 4, 2, dtype="float64")
    assert not np.allclose(gru(x)[0].numpy(), plain_gru(x)[0].numpy())
    gru.eval()
    np.testing.assert_array_equal(gru(x)[0].numpy(), plain_gru(x)[0].numpy())
    with pytest.warns(UserWarning, match=r"dropout=0.5 and num_layers=1"):
        nn.LSTM(3, 4, dropout=0.5)


def test_states_default_to_zeros_and_batch_first_leaves_h_n_alone():
    lstm = nn.LSTM(3, 4, 2, batch_first=True, dtype="float64")
    x = tinyffn.tensor(rng.standard_normal((2, 5, 3)))                # (N, L, H_in)
    zeros = (tinyffn.zeros(2, 2, 4, dtype="float64"), tinyffn.zeros(2, 2, 4, dtype="float64"))
    (y, (h, c)), (y0, (h0, c0)) = lstm(x), lstm(x, zeros)
    assert y.shape == (2, 5, 4) and h.shape == c.shape == (2, 2, 4)
    for a, b in ((y, y0), (h, h0), (c, c0)):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    np.testing.assert_allclose(y[:, -1].numpy(), h[-1].numpy(), rtol=1e-15)   # last layer


# ----------------------------------------------------------------------------- errors
def _t(*shape, dtype="float64"):
    return tinyffn.zeros(*shape, dtype=dtype)


class PackedSequence(tuple):
    """Stands in for torch's, which the layers recognise by name."""


@pytest.mark.parametrize("make, args, error, match", [
    (lambda: nn.LSTM(3, 4), (_t(5, 2, 7),), ValueError,
     r"LSTM: input of shape \(5, 2, 7\) has 7 features on its last axis, but input_size=3"),
    (lambda: nn.GRU(3, 4), (_t(5, 2, 3, 1),), ValueError,
     r"GRU: expected input to be 2-D \(L, H_in\) or 3-D \(L, N, H_in\), got shape "
     r"\(5, 2, 3, 1\)"),
    (lambda: nn.RNN(3, 4, 2), (_t(5, 2, 3), _t(2, 3, 4)), ValueError,
     r"RNN: h0 must have shape \(2, 2, 4\) for input of shape \(5, 2, 3\), got \(2, 3, 4\)"),
    (lambda: nn.RNN(3, 4), (_t(5, 3), _t(1, 1, 4)), ValueError,
     r"RNN: h0 must have shape \(1, 4\) for input of shape \(5, 3\), got \(1, 1, 4\)"),
    (lambda: nn.LSTM(3, 4, proj_size=2), (_t(5, 2, 3), (_t(1, 2, 2), _t(1, 2, 2))), ValueError,
     r"LSTM: c0 must have shape \(1, 2, 4\) for input of shape \(5, 2, 3\), got \(1, 2, 2\)"),
    (lambda: nn.LSTM(3, 4), (_t(5, 2, 3), _t(1, 2, 4)), TypeError,
     r"LSTM: hx must be a tuple \(h0, c0\), got Tensor"),
    (lambda: nn.GRU(3, 4), (_t(0, 2, 3),), ValueError,
     r"GRU: input of shape \(0, 2, 3\) has no time steps"),
    (lambda: nn.GRU(3, 4), (_t(5, 2, 3, dtype="float32"),), TypeError,
     r"GRU: input has dtype float32 but the parameters have float64; convert"),
    (lambda: nn.LSTMCell(3, 4), (_t(2, 5),), ValueError,
     r"LSTMCell: input of shape \(2, 5\) has 5 features on its last axis, but input_size=3"),
    (lambda: nn.LSTMCell(3, 4), (_t(2, 3), (_t(3, 4), _t(3, 4))), ValueError,
     r"LSTMCell: hx\[0\] must have shape \(2, 4\) for input of shape \(2, 3\), got \(3, 4\)"),
    (lambda: nn.GRUCell(3, 4), (_t(3), _t(2, 4)), ValueError,
     r"GRUCell: hx must have shape \(4,\) for input of shape \(3,\), got \(2, 4\)"),
    (lambda: nn.RNNCell(3, 4), (_t(1, 2, 3),), ValueError,
     r"RNNCell: expected input to be 1-D \(input_size,\) or 2-D \(N, input_size\), got "
     r"shape \(1, 2, 3\)"),
])
def test_forward_errors_name_the_layer_and_the_shapes(make, args, error, match):
    """Each refused by PyTorch too."""
    layer = make()
    layer.to(dtype="float64")
    with pytest.raises(error, match=match):
        layer(*args)
    torch = pytest.importorskip("torch")
    theirs = getattr(torch.nn, type(layer).__name__)(
        layer.input_size, layer.hidden_size, **({"num_layers": layer.num_layers,
                                                "proj_size": layer.proj_size}
                                               if isinstance(layer, nn.LSTM) else
                                               {"num_layers": layer.num_layers}
                                               if isinstance(layer, nn.RNNBase) else {}),
        dtype=torch.float64)

    def torch_of(a):
        if isinstance(a, tuple):
            return tuple(torch_of(b) for b in a)
        return torch.tensor(a.numpy())
    with pytest.raises((RuntimeError, ValueError, TypeError, IndexError)):
        theirs(*(torch_of(a) for a in args))


def test_a_foreign_packed_sequence_is_refused_with_what_to_do():
    with pytest.raises(TypeError, match=r"LSTM: got a PackedSequence from test_recurrent; "
                                        r"the layers .* take tinyffn's, made by"):
        nn.LSTM(3, 4)(PackedSequence((_t(5, 3), _t(2))))
    with pytest.raises(TypeError, match=r"GRUCell: got a PackedSequence .* a cell takes one "
                                        r"step"):
        nn.GRUCell(3, 4)(PackedSequence((_t(5, 3), _t(2))))
    torch = pytest.importorskip("torch")
    packed = torch.nn.utils.rnn.pack_padded_sequence(torch.zeros(5, 2, 3), [5, 3])
    with pytest.raises(TypeError, match=r"GRU: got a PackedSequence from torch"):
        nn.GRU(3, 4)(packed)


def test_packed_sequences_run_each_sequence_to_its_own_end(device):
    """A packed batch gives, for each sequence, the outputs and final state of that
    sequence run alone (so padding never enters), in the batch's order; the output is
    packed alike, and gradients reach every sequence."""
    from tinyffn.nn.utils import rnn
    tinyffn.manual_seed(0)
    lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True, dtype="float64", device=device)
    r = np.random.default_rng(0)
    seqs = [tinyffn.tensor(r.standard_normal((n, 3)), device=device, requires_grad=True)
            for n in (2, 5, 3)]
    out, (h, c) = lstm(rnn.pack_sequence(seqs, enforce_sorted=False))
    assert isinstance(out, rnn.PackedSequence) and out.batch_sizes.tolist() == [3, 3, 2, 1, 1]
    for i, (s, o) in enumerate(zip(seqs, rnn.unpack_sequence(out))):
        alone, (h1, c1) = lstm(s)                              # unbatched, (L_i, 2·4)
        np.testing.assert_allclose(o.numpy(), alone.numpy(), atol=1e-14)
        np.testing.assert_allclose(h.numpy()[:, i], h1.numpy(), atol=1e-14)
        np.testing.assert_allclose(c.numpy()[:, i], c1.numpy(), atol=1e-14)
    (out.data.sum() + h.sum()).backward()
    assert all(s.grad is not None and np.abs(s.grad.numpy()).min() > 0 for s in seqs)


def test_packed_sequences_as_pytorchs():
    torch = pytest.importorskip("torch")
    from tinyffn.nn.utils import rnn
    r = np.random.default_rng(1)
    for batch_first in (False, True):
        ours = nn.GRU(3, 4, num_layers=2, batch_first=batch_first, dtype="float64")
        theirs = torch.nn.GRU(3, 4, num_layers=2, batch_first=batch_first, dtype=torch.float64)
        for key, value in ours.state_dict().items():
            theirs.state_dict()[key].copy_(torch.tensor(value.numpy()))
        x = r.standard_normal((4, 5, 3) if batch_first else (5, 4, 3))
        got, want = [], []
        for m, pack, out in ((ours, rnn, got), (theirs, torch.nn.utils.rnn, want)):
            xm = m.weight_ih_l0.new_tensor(x) if m is theirs else tinyffn.tensor(x)
            xm.requires_grad_(True)
            y, h = m(pack.pack_padded_sequence(xm, [2, 5, 1, 4], batch_first=batch_first,
                                               enforce_sorted=False))
            (y.data.sum() + 2 * h.sum()).backward()
            out += [y.data.detach().numpy(), h.detach().numpy(), xm.grad.numpy()]
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, atol=1e-13)


@pytest.mark.parametrize("make, error, match", [
    (lambda: nn.LSTM(3, 4, proj_size=4), ValueError,
     r"LSTM: proj_size must be an int from 0 \(no projection\) to hidden_size - 1 = 3, got 4"),
    (lambda: nn.GRU(3, 4, num_layers=0), ValueError, r"GRU: num_layers must be a positive int"),
    (lambda: nn.RNN(0, 4), ValueError, r"RNN: input_size must be a positive int, got 0"),
    (lambda: nn.RNN(3, 4, nonlinearity="gelu"), ValueError,
     r"RNN: nonlinearity must be 'tanh' or 'relu', got 'gelu'"),
    (lambda: nn.LSTM(3, 4, 2, dropout=1.5), ValueError,
     r"LSTM: dropout must be a number in \[0, 1\].*got 1.5"),
    (lambda: nn.GRU(3, 4, batch_first=1), TypeError, r"GRU: batch_first must be a bool, got int"),
    (lambda: nn.RNNCell(3, 4, nonlinearity="sigmoid"), ValueError,
     r"RNNCell: nonlinearity must be 'tanh' or 'relu', got 'sigmoid'"),
    (lambda: nn.LSTMCell(3, 0), ValueError, r"LSTMCell: hidden_size must be a positive int"),
])
def test_constructor_errors(make, error, match):
    with pytest.raises(error, match=match):
        make()


# ----------------------------------------------------------------------------- mutation audit
# Each failed on a mutant of recurrent.py / recurrent_layers.py that the torch-free tests
# above let through.
def test_cells_draw_within_one_over_sqrt_hidden_size_not_input_size():
    for kind in ("RNNCell", "LSTMCell", "GRUCell"):
        cell = getattr(nn, kind)(50, 100, dtype="float64")      # 1/√50 would be 0.14
        for name, p in cell.named_parameters():
            a = np.abs(p.numpy())
            assert a.max() <= 0.1 and a.max() > 0.095, (kind, name)


def test_dropout_one_zeroes_the_second_layers_input_only():
    """dropout=1 while training: layer 0 reads x untouched (its h_n is the plain layer's),
    layer 1 reads zeros (its output is the same whatever x)."""
    x = tinyffn.tensor(rng.standard_normal((4, 2, 3)))
    tinyffn.manual_seed(0)
    gru = nn.GRU(3, 4, 2, dropout=1.0, dtype="float64")
    tinyffn.manual_seed(0)
    plain = nn.GRU(3, 4, 2, dtype="float64")
    y, h = gru(x)
    np.testing.assert_array_equal(h.numpy()[0], plain(x)[1].numpy()[0])
    np.testing.assert_array_equal(y.numpy(), gru(-x)[0].numpy())


def test_a_packed_batch_first_layer_runs_as_the_time_first_one(device):
    from tinyffn.nn.utils import rnn
    x = rng.standard_normal((3, 4, 2))                                 # (N, L, H_in)
    runs = []
    for batch_first in (True, False):
        tinyffn.manual_seed(0)
        gru = nn.GRU(2, 3, batch_first=batch_first, dtype="float64", device=device)
        xs = tinyffn.tensor(x if batch_first else x.transpose(1, 0, 2), device=device)
        out, h = gru(rnn.pack_padded_sequence(xs, [2, 4, 3], batch_first=batch_first,
                                              enforce_sorted=False))
        runs.append((out.data.numpy(), h.numpy()))
    for a, b in zip(*runs):
        np.testing.assert_array_equal(a, b)


# PyTorch 2.13's values (float64), written out so that a CI without torch checks them too
EXPECTED = {
    'joined(lstm(3, 3, 2, bidirectional=True, proj_size=2)(x, (h0, c0)))':
        ('float64', [-0.031220242155851466, 0.12428461675713179, 0.14324494774437524, -0.07511807068619686, 0.14753518259821138, -0.32454612821156614, 0.13850731008360084, 0.034729718624015755, 0.18729458288583023, -0.1068469810352098, 0.13799897960380708, -0.10131445340896719, 0.29532004323247896, -0.3725892663702115, 0.1307651670480674, 0.03215219764155651, 0.29462552044047047, -0.2223201957817713, 0.1472422635744859, -0.11895115447137891, 0.3807417893334627, -0.37817408803914865, 0.06776407682789057, 0.07000579755657932, 0.3633322854933591, -0.3185190896508374, 0.22698780014366698, -0.23126805555707403, 0.3093638622192781, -0.32960610443117594, 0.5045217068003653, -0.2580009357788556, 0.29462552044047047, -0.2223201957817713, 0.3807417893334627, -0.37817408803914865, 0.14324494774437524, -0.07511807068619686, 0.13850731008360084, 0.034729718624015755, -0.7189268360270327, -0.5252975433042341, -0.14160403756963486, -0.5174636819668492, -0.24582191210889925, 0.32623155545459487, -0.017192646004945217, -0.7110186184644496, -0.3187469142004332, 0.7408359780186834, -0.8763013113253063, -0.6530663272247232, 0.48532477945355146, 0.4610165659726826, -0.4935444025107623, 0.4585748247516964, 0.25000597176070927, -0.8974375235824066, 0.37324456748022333, 0.6241782721053915, 0.3927755898505292, -0.2322147448292617, 0.5533037795186734, 0.5967745366470804]),
    'joined(gru(3, 2, 2, bidirectional=True)(x, h0))':
        ('float64', [0.07196626701271963, 0.40877830306960905, 0.35858184636595314, 0.6381001579457464, 0.6042257323850168, -0.25772165910784306, 0.3795686381360311, 0.4009161452001812, -0.0152652422011052, -0.02995208587224807, 0.6624712134207296, 0.6074481778317528, 0.6130613550087916, -0.22158979820668004, 0.24383344918146158, 0.5419038028617583, 0.03254066394775316, -0.10276024095570005, 0.26099316966667563, 0.32548270629972653, 0.3635594614101318, -0.33290660873808764, 0.6237837484986817, 0.6444059255553088, 0.7029677136691552, 0.29470419159094896, 0.2669520924880646, 0.2031814503328221, -0.24694102440402843, 0.3258460347613039, -0.563899171753327, 0.7057251908544466, 0.03254066394775316, -0.10276024095570005, 0.3635594614101318, -0.33290660873808764, 0.35858184636595314, 0.6381001579457464, 0.3795686381360311, 0.4009161452001812]),
    "joined(rnn(3, 2, nonlinearity='relu', batch_first=True)(x))":
        ('float64', [1.3467620855519002, 0.0, 0.8659880023909482, 0.0, 0.5586849560620291, 0.0, 1.460443382337445, 0.0, 0.0, 0.0, 1.133618022771615, 0.0, 0.8659880023909482, 0.0, 1.460443382337445, 0.0, 1.133618022771615, 0.0]),
    'joined(lstm(3, 3, bias=False)(xu))':
        ('float64', [-0.12880288444865023, 0.10778527509455835, 0.02577606031744895, 0.08944820086896886, -0.10964984566921254, 0.09829912608932827, -0.08003422070734109, 0.03801908542920443, -0.10168502930603635, -0.08003422070734109, 0.03801908542920443, -0.10168502930603635, -0.14693688844679528, 0.06033341195985048, -0.38939884010306347]),
    'joined(lstm_cell(3, 3)(x[0], (hc, cc)))':
        ('float64', [-0.5418230296429508, -0.13690338707013036, 0.16375271385531065, -0.15616384855024648, -0.347904267854108, -0.12461426439699777, -0.8607126597709399, -0.28075077596982767, 0.5994601585963962, -0.23878199003919015, -0.6772249115824969, -0.42204318274966635]),
    'joined(gru_cell(3, 3)(xu[0], hc[0]))':
        ('float64', [-0.8302186187061548, -0.702084301368582, 0.1336386993912684]),
    'joined(rnn_cell(3, 3)(x[1], hc))':
        ('float64', [-0.2715210488981741, -0.5846242650106884, -0.02975008109998051, 0.9651419125887833, -0.90875231261773, -0.7964968968098717]),
}
EXPECTED_GRADS = {
    'joined(lstm(3, 3, 2, bidirectional=True, proj_size=2)(x, (h0, c0))) dx':
        ('float64', [[[-1.230161677883165, -1.615316451601279, 0.3659711605604212], [-1.4741219531765715, -0.6656776647105372, 1.1179859620733308]], [[0.13166818488085302, 0.507278727126631, 0.1397247457042323], [-0.881056304106647, -0.8303554704333533, 0.4368180727407644]], [[-0.04241116492703495, -0.12207404293916245, -0.02289816205635259], [0.4524690125013437, 0.1240755848188363, -0.38608886530144715]]]),
    'joined(lstm(3, 3, 2, bidirectional=True, proj_size=2)(x, (h0, c0))) dc0':
        ('float64', [[[0.5092316196395257, 0.5866426596463682, 1.24723886504332], [0.4377094182053589, 0.6614445384022066, 0.5112430147766212]], [[-0.16296785730077842, 0.7568463479032355, 1.7874172897548122], [0.02623365490563881, 0.8137057740714148, 2.0980228146259248]], [[0.26123005758570617, 0.12574274879037126, 1.1373100077033282], [0.13219891113133375, 0.5396366722700185, 0.9591090695614347]], [[1.2435675103909969, 0.051934645202656476, 0.34558424495025325], [0.9827762668521358, 0.38805212642403347, 0.2055477114479864]]]),
    'joined(lstm(3, 3, 2, bidirectional=True, proj_size=2)(x, (h0, c0))) dweight_hh_l1_reverse':
        ('float64', [[0.05403363249275667, 0.032480487858473295], [0.5122069584486751, -0.02831198095336457], [0.05894798418410402, -0.014392636026594074], [-0.6130685561859222, -0.3529819730953471], [0.2696246758820684, -0.03827830367646186], [0.45351204336259143, 0.04664740184966126], [0.25982987330164065, -0.013948217224196924], [0.4138645765933746, 0.040801553902089796], [1.9741643831361992, 0.03311776619831969], [0.19500425167148328, 0.08796091801720934], [0.04646260400394339, 0.011007152538204916], [0.07963606465904124, 0.021705207555212734]]),
    'joined(lstm(3, 3, 2, bidirectional=True, proj_size=2)(x, (h0, c0))) dweight_hr_l0':
        ('float64', [[-4.029151435809904, -3.678267317114064, 0.2320683534464342], [-1.3645548559867196, -1.5206571400829583, -0.19623010710050054]]),
    'joined(gru(3, 2, 2, bidirectional=True)(x, h0)) dh0':
        ('float64', [[[-0.15821271097903045, 0.2898147764551017], [0.42222937751491996, 0.8094644117499074]], [[-0.13544179863708097, 0.9090578819013585], [-1.1244177144400862, 0.05813453580030686]], [[0.9147053567764571, 1.1178558381639268], [2.9354378787796063, 3.376374336961458]], [[0.8612874328385378, 1.258451601536518], [-0.5484145215915173, 2.276084886096202]]]),
    'joined(gru(3, 2, 2, bidirectional=True)(x, h0)) dweight_ih_l1_reverse':
        ('float64', [[0.14975301171300703, -0.04517762862721389, -0.12832245142904924, 0.1755839723799837], [0.22703531751615091, -0.18844229469949886, -0.3379129573113874, 0.41248128234178205], [-0.6149656836626448, -0.22796399633521577, 0.23254181237799468, -0.23613436871275675], [-0.2437488299339901, -0.6817338901640889, 0.04144991044955397, 0.4327301599338007], [2.313683875292249, -0.8327028155120697, -2.9601201696635733, 3.0076438518661472], [2.7587431728949308, -0.45903411273212485, -2.7153699552842085, 3.209173102846283]]),
    'joined(lstm(3, 3, bias=False)(xu)) dweight_hh_l0':
        ('float64', [[-0.04263762382466473, 0.0452190862377473, -0.023320742200759206], [0.08872352423519671, -0.09138015853384271, 0.03946109475656444], [-0.04369549012158927, 0.04693821453845526, -0.02589362649946258], [0.012874503239167664, -0.013026440763167814, 0.004946190863739627], [-0.032643685017236565, 0.03643971328754612, -0.023930876536390873], [0.0021057361019276733, -0.004019685214978618, 0.007117272157475286], [0.029188080834952917, -0.042413119570928505, 0.05422582834964455], [-0.009783355798704811, -0.010733501266977023, 0.06513901844368425], [0.023651097969999924, -0.04513217889175795, 0.0798862685017248], [-0.006324165296919552, 0.007429361861412333, -0.00587101375129215], [0.010673914317710842, -0.009859931051454076, 0.0009619734997396996], [-0.01682344907476467, 0.019471387237064867, -0.01464260707624942]]),
    'joined(lstm_cell(3, 3)(x[0], (hc, cc))) dcc':
        ('float64', [[0.4050360355289904, 0.6763048494716437, 0.5360602923729044], [0.732800713087877, 0.8503224023437908, 0.9289696490172035]]),
    'joined(gru_cell(3, 3)(xu[0], hc[0])) dbias_hh':
        ('float64', [-0.001657590758266296, 0.0009199920224547902, -0.009913546602584832, 0.0022494923247693053, -0.021889492492110866, 0.03283455858783774, 0.00925932277620107, 0.010003633491648315, 0.049847648886054585]),
    'joined(rnn_cell(3, 3)(x[1], hc)) dhc':
        ('float64', [[0.074358246215133, -0.07753226834297328, -0.11583782813983816], [0.03948301974423253, -0.07434955114030213, -0.07925985542182197]]),
}
