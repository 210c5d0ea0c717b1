"""tinyffn.optim.swa_utils (tinyffn/swa_utils.py): AveragedModel's SWA and EMA averages
beside torch.optim.swa_utils over 35 training steps (float64), and against a NumPy
average written here, which runs without torch; SWALR's lrs beside torch's and against
its closed form and torch's numbers written out; saving and resuming; update_bn without
BatchNorm (with it: test_batchnorm.py); errors."""
import numpy as np
import pytest

import tinyffn
from tinyffn import nn, optim
from tinyffn.optim import swa_utils

STEPS = 35
_rng = np.random.default_rng(3)
WEIGHTS = {"l1.weight": _rng.normal(size=(4, 3)), "l1.bias": _rng.normal(size=4),
           "l2.weight": _rng.normal(size=(1, 4)), "l2.bias": _rng.normal(size=1)}


def make_net(lib):
    """Linear(3, 4), tanh, Linear(4, 1), times a float buffer ``scale``; an int64 buffer
    ``count`` besides (a step count), both changed by hand each step."""
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.l1, self.l2 = lib.nn.Linear(3, 4), lib.nn.Linear(4, 1)
            self.register_buffer("scale", lib.tensor([1.0]))
            self.register_buffer("count", lib.tensor([0, 7]))

        def forward(self, x):
            return self.l2(self.l1(x).tanh()) * self.scale

    net = Net()
    if lib is tinyffn:
        for name, p in net.named_parameters():
            p.data = tinyffn.tensor(WEIGHTS[name])
        net.scale = tinyffn.tensor([1.0], dtype="float64")
        net.count = tinyffn.tensor([0, 7], dtype="int64")
    else:                       # float64, under torch's default dtype float32 (see below)
        net.double()
        with lib.no_grad():
            for name, p in net.named_parameters():
                p.copy_(lib.tensor(WEIGHTS[name]))
    return net


def batch(t):
    rng = np.random.default_rng(200 + t)
    return rng.normal(size=(8, 3)), rng.normal(size=(8, 1))


def run(lib, averaging, steps=STEPS, use_buffers=False, averaged=None, start=0, net=None):
    """SGD on the net for ``steps`` steps, ``averaged.update_parameters(net)`` after each;
    ``averaging(swa_utils)`` gives AveragedModel's keywords. Returns the averaged model,
    the net and every step's averaged parameters as NumPy arrays."""
    net = net or make_net(lib)
    avg = averaged or lib.optim.swa_utils.AveragedModel(
        net, use_buffers=use_buffers, **averaging(lib.optim.swa_utils))
    opt = lib.optim.SGD(net.parameters(), lr=0.02)      # no state: run() resumes
    history = []
    for t in range(start, start + steps):
        x, y = (lib.tensor(a) for a in batch(t))
        opt.zero_grad()
        ((net(x) - y) ** 2).mean().backward()
        opt.step()
        if lib is tinyffn:
            net.scale = tinyffn.tensor([1.0 + 0.01 * t], dtype="float64")
            net.count = tinyffn.tensor([t + 1, 7 - t], dtype="int64")
        else:
            net.scale.fill_(1.0 + 0.01 * t)
            net.count.copy_(lib.tensor([t + 1, 7 - t]))
        avg.update_parameters(net)
        history.append({k: v.detach().numpy().copy() for k, v in avg.state_dict().items()})
    return avg, net, history


def torch_run(averaging, **kw):
    """run() with torch, its default dtype left float32 as tinyffn's: an EMA of an int64
    buffer is computed in the default dtype and truncated, so both round as float32."""
    torch = pytest.importorskip("torch")
    return run(torch, averaging, **kw)


AVERAGES = {
    "swa": lambda s: {},
    "swa_multi": lambda s: {"multi_avg_fn": s.get_swa_multi_avg_fn()},
    "swa_avg_fn": lambda s: {"avg_fn": s.get_swa_avg_fn()},
    "ema_multi": lambda s: {"multi_avg_fn": s.get_ema_multi_avg_fn(0.9)},
    "ema_avg_fn": lambda s: {"avg_fn": s.get_ema_avg_fn(0.8)},
    "ema_custom": lambda s: {"avg_fn": lambda a, c, n: 0.7 * a + 0.3 * c},
}


@pytest.mark.parametrize("use_buffers", [False, True])
@pytest.mark.parametrize("kind", list(AVERAGES))
def test_averages_match_torch_every_step(kind, use_buffers):
    """35 steps: every averaged parameter and buffer, and n_averaged, as torch's at every
    step, float64; the state_dict keys are torch's, in its order. torch's
    get_swa_multi_avg_fn fails on an integer buffer (its addcdiv refuses integer
    division); tinyffn's truncates the average, as torch's default SWA does."""
    _, _, ours = run(tinyffn, AVERAGES[kind], use_buffers=use_buffers)
    if kind == "swa_multi" and use_buffers:     # torch's fails on the int64 buffer
        pytest.importorskip("torch")
        with pytest.raises(RuntimeError, match="Integer division with addcdiv"):
            torch_run(AVERAGES[kind], use_buffers=use_buffers)
        _, _, theirs = torch_run(AVERAGES["swa"], use_buffers=use_buffers)
    else:
        _, _, theirs = torch_run(AVERAGES[kind], use_buffers=use_buffers)
    assert list(ours[0]) == list(theirs[0]) == [
        "n_averaged", "module.scale", "module.count", "module.l1.weight", "module.l1.bias",
        "module.l2.weight", "module.l2.bias"]
    # against torch's default SWA there, which divides exactly: swa_multi's lerp weight
    # 1 / (n + 1) is a float32 (torch's too), so the two part by ~1e-9
    atol = 1e-8 if kind == "swa_multi" and use_buffers else 1e-12
    for t, (a, b) in enumerate(zip(ours, theirs)):
        for key in a:
            np.testing.assert_allclose(a[key], b[key], rtol=0, atol=atol,
                                       err_msg=f"{kind} step {t} {key}")
            assert a[key].dtype == b[key].dtype, key
    assert ours[-1]["n_averaged"] == STEPS


def numpy_average(kind, use_buffers):
    """The average by hand: every step's net (from a tinyffn run without averaging, so
    only the net's own training is shared), then the SWA mean or the EMA."""
    net, seen = make_net(tinyffn), []

    class Recorder(nn.Module):
        def update_parameters(self, model):
            seen.append({**{k: v.numpy() for k, v in model.named_parameters()},
                         **{k: v.numpy() for k, v in model.named_buffers()}})
    run(tinyffn, None, averaged=Recorder(), net=net)
    keys = list(seen[0])
    out = {}
    for key in keys:
        values = np.stack([s[key] for s in seen])
        averaged = use_buffers or key not in ("scale", "count")
        if not averaged:
            out[key] = values[-1]
        elif kind == "swa":
            out[key] = values.mean(axis=0)
        else:                                       # EMA, decay 0.9
            e = values[0].astype(np.float64)
            for v in values[1:]:
                e = 0.9 * e + 0.1 * v
                e = np.trunc(e) if values.dtype.kind == "i" else e
            out[key] = e
    return out


@pytest.mark.parametrize("use_buffers", [False, True])
@pytest.mark.parametrize("kind", ["swa", "ema_multi"])
def test_averages_match_numpy(kind, use_buffers, request):
    """Without torch: SWA is the mean of the 35 nets, EMA the recursion by hand; with
    use_buffers the float buffer is averaged too, else it is the net's last."""
    avg, _, history = run(tinyffn, AVERAGES[kind], use_buffers=use_buffers)
    expected = numpy_average(kind, use_buffers)
    for key, value in expected.items():
        if key == "count" and use_buffers:
            continue        # truncated at each step, in float32: the torch test checks it
        np.testing.assert_allclose(history[-1]["module." + key], value, rtol=1e-12,
                                   atol=1e-13, err_msg=key)
    assert not np.allclose(history[-1]["module.l1.weight"], avg.module.l1.weight.numpy() * 0)


def test_forward_calls_the_averaged_copy_and_training_leaves_it_alone():
    avg, net, _ = run(tinyffn, AVERAGES["ema_multi"], steps=5)
    x = tinyffn.tensor(batch(99)[0])
    np.testing.assert_array_equal(avg(x).numpy(), avg.module(x).numpy())
    assert not np.allclose(avg(x).numpy(), net(x).numpy())
    assert avg.module is not net and avg.module.l1.weight is not net.l1.weight
    assert [n for n, _ in avg.named_parameters()] == [
        "module.l1.weight", "module.l1.bias", "module.l2.weight", "module.l2.bias"]
    ids = [id(p) for p in avg.parameters()]
    avg.update_parameters(net)              # written in place: the same Parameter objects
    assert [id(p) for p in avg.parameters()] == ids
    assert all(p.grad is None for p in avg.parameters())
    torch = pytest.importorskip("torch")
    tavg, tnet, _ = torch_run(AVERAGES["ema_multi"], steps=5)
    tavg.update_parameters(tnet)
    np.testing.assert_allclose(avg(x).numpy(), tavg(torch.tensor(x.numpy())).detach().numpy(),
                               rtol=1e-12)


@pytest.mark.parametrize("kind", ["swa", "ema_multi"])
def test_state_dict_round_trip_resumes_exactly(kind):
    """20 steps, save the net, its average and nothing else; a fresh AveragedModel loads
    the average: 15 more steps end where 35 uninterrupted do, bit for bit."""
    whole, _, _ = run(tinyffn, AVERAGES[kind])
    half, net, _ = run(tinyffn, AVERAGES[kind], steps=20)
    saved = half.state_dict()
    assert int(saved["n_averaged"].item()) == 20
    fresh = swa_utils.AveragedModel(make_net(tinyffn), **AVERAGES[kind](swa_utils))
    fresh.load_state_dict(saved)
    assert int(fresh.n_averaged.item()) == 20
    resumed, _, _ = run(tinyffn, None, steps=15, start=20, averaged=fresh, net=net)
    for (k, a), b in zip(whole.state_dict().items(), resumed.state_dict().values()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=k)


def test_torchs_state_dict_loads_and_ours_loads_into_torch():
    """The same keys and shapes: an average saved by torch resumes here, and back."""
    torch = pytest.importorskip("torch")
    tavg, _, _ = torch_run(AVERAGES["swa"], steps=6)
    avg = swa_utils.AveragedModel(make_net(tinyffn))
    avg.load_state_dict({k: v.detach().numpy() for k, v in tavg.state_dict().items()})
    assert int(avg.n_averaged.item()) == 6 and avg.n_averaged.dtype == np.int64
    np.testing.assert_array_equal(avg.module.l2.weight.numpy(),
                                  tavg.module.l2.weight.detach().numpy())
    tfresh = torch.optim.swa_utils.AveragedModel(make_net(torch))
    tfresh.load_state_dict({k: torch.tensor(v.numpy()) for k, v in avg.state_dict().items()})
    assert int(tfresh.n_averaged) == 6


def test_averages_on_every_backend(device):
    """The update uses only array API calls: on the strict backend (and a GPU) the EMA of
    a parameter stepped by hand is the NumPy one; n_averaged lives on the device given."""
    p = nn.Parameter(tinyffn.tensor([1.0, -2.0, 4.0], dtype="float64", device=device))

    class One(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = p

        def forward(self, x):
            return x * self.w
    model = One()
    ema = swa_utils.AveragedModel(model, device=device,
                                  multi_avg_fn=swa_utils.get_ema_multi_avg_fn(0.5))
    swa = swa_utils.AveragedModel(model, device=device)
    expected_ema = expected_sum = None
    for t in range(6):
        value = np.array([1.0, -2.0, 4.0]) * (t + 1)
        p.data = tinyffn.tensor(value, dtype="float64", device=device)
        ema.update_parameters(model)
        swa.update_parameters(model)
        expected_ema = value if expected_ema is None else 0.5 * expected_ema + 0.5 * value
        expected_sum = value if expected_sum is None else expected_sum + value
        np.testing.assert_allclose(ema.module.w.numpy(), expected_ema, rtol=1e-15)
        np.testing.assert_allclose(swa.module.w.numpy(), expected_sum / (t + 1), rtol=1e-15)
    assert ema.module.w.device == p.device and ema.n_averaged.device == p.device


def test_an_update_reads_n_averaged_once(monkeypatch):
    """Each .item() waits for the GPU: the default SWA average of a model with 4
    parameters and 2 buffers reads n_averaged once per update, not once per tensor."""
    net = make_net(tinyffn)
    swa = swa_utils.AveragedModel(net, use_buffers=True)
    swa.update_parameters(net)
    reads = []
    item = tinyffn.Tensor.item
    monkeypatch.setattr(tinyffn.Tensor, "item", lambda t: reads.append(t) or item(t))
    swa.update_parameters(net)
    assert len(reads) == 1 and reads[0] is swa.n_averaged
    assert swa.n_averaged.item() == 2


def test_a_float32_average_of_a_float64_model_stays_float32():
    net = make_net(tinyffn)
    avg = swa_utils.AveragedModel(net.to(dtype="float32"))
    net.double()
    avg.update_parameters(net)
    avg.update_parameters(net)
    assert all(p.dtype == np.float32 for p in avg.parameters())


def test_lerp_is_exact_at_weight_one_and_torchs_at_one_half():
    # PyTorch's lerp computes b - (b - a)(1 - w) for |w| >= 0.5: with w = 1 (EMA decay 0)
    # the average is the model's weight exactly, where a + w (b - a) loses it (1e16 + (1 -
    # 1e16) is 0.0, not 1.0); w = 1/2 is SWA's second average
    a = np.array([1e16, 0.1, -3.0, 1e-300])
    b = np.array([1.0, 0.7, 5.0, 2.0])
    net, avg_net = nn.Linear(4, 1, bias=False, dtype="float64"), None
    for decay, n, expected in ((0.0, None, b), (None, 1, b - (b - a) * 0.5)):
        fn = (swa_utils.get_ema_multi_avg_fn(decay) if n is None
              else swa_utils.get_swa_multi_avg_fn())
        avg_net = swa_utils.AveragedModel(net, multi_avg_fn=fn)
        net.weight.data = a.reshape(1, 4).copy()
        avg_net.update_parameters(net)                       # the first call copies a
        net.weight.data = b.reshape(1, 4).copy()
        avg_net.update_parameters(net)                       # then averages b in
        np.testing.assert_array_equal(avg_net.module.weight.numpy()[0], expected)
    torch = pytest.importorskip("torch")
    ta, tb = torch.tensor(a), torch.tensor(b)
    np.testing.assert_array_equal(torch.lerp(ta, tb, 1.0).numpy(), b)
    np.testing.assert_array_equal(torch.lerp(ta, tb, 0.5).numpy(), b - (b - a) * 0.5)


def test_errors():
    net = make_net(tinyffn)
    with pytest.raises(ValueError, match="AveragedModel: pass avg_fn .* or multi_avg_fn"):
        swa_utils.AveragedModel(net, avg_fn=swa_utils.get_swa_avg_fn(),
                                multi_avg_fn=swa_utils.get_swa_multi_avg_fn())
    with pytest.raises(TypeError, match="AveragedModel: model must be a tinyffn Module, got "
                                        "list"):
        swa_utils.AveragedModel([net.l1.weight])
    with pytest.raises(TypeError, match="avg_fn must be a function"):
        swa_utils.AveragedModel(net, avg_fn=0.999)
    for fn in (swa_utils.get_ema_avg_fn, swa_utils.get_ema_multi_avg_fn):
        with pytest.raises(ValueError, match=f"{fn.__name__}: decay must be a number in "
                                             r"\[0, 1\].*got 1.5"):
            fn(1.5)
    avg = swa_utils.AveragedModel(net)
    with pytest.raises(ValueError, match=r"update_parameters: the model has 2 parameters of "
                                         r"shapes \[\(5, 3\), \(5,\)\], the average 4 of "
                                         r"shapes \[\(4, 3\), \(4,\), \(1, 4\), \(1,\)\]"):
        avg.update_parameters(nn.Linear(3, 5))
    bad = swa_utils.AveragedModel(net, avg_fn=lambda a, c, n: a.sum())
    bad.update_parameters(net)
    with pytest.raises(ValueError, match=r"an average of shape \(\) cannot be written into "
                                         r"module.l1.weight of shape \(4, 3\)"):
        bad.update_parameters(net)
    with pytest.raises(TypeError, match="update_parameters: model must be the tinyffn Module"):
        avg.update_parameters(net.state_dict())
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError):
        torch.optim.swa_utils.get_ema_avg_fn(1.5)


def test_update_bn_returns_at_once_as_torchs_does_without_batchnorm():
    """torch's update_bn resets and recomputes BatchNorm statistics, and returns before
    reading the loader when there is none: so does tinyffn's, for this model without one
    (with BatchNorm: tests/test_batchnorm.py)."""
    def loader():
        raise AssertionError("the loader was read")
        yield
    net = make_net(tinyffn)
    before = {k: v.numpy() for k, v in net.state_dict().items()}
    assert swa_utils.update_bn(loader(), net) is None
    assert swa_utils.update_bn(loader(), swa_utils.AveragedModel(net), device="cpu") is None
    for k, v in net.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), before[k])
    assert net.training
    with pytest.raises(TypeError, match="update_bn: model must be a tinyffn Module"):
        swa_utils.update_bn([], None)
    torch = pytest.importorskip("torch")
    assert torch.optim.swa_utils.update_bn(loader(), make_net(torch)) is None


# ---- SWALR ---------------------------------------------------------------------------------
def swalr_lrs(lib, strategy, epochs, steps=16, set_at=None):
    """Two groups (lr 0.5 and 0.2, swa_lr 0.05 and 0.01), SWALR stepped ``steps`` times;
    ``set_at=(k, lr)`` writes group 0's lr by hand before step k. The lrs after each."""
    ps = [lib.nn.Parameter(lib.zeros(2)) for _ in range(2)]
    opt = lib.optim.SGD([{"params": ps[:1]}, {"params": ps[1:], "lr": 0.2}], lr=0.5)
    sched = lib.optim.swa_utils.SWALR(opt, swa_lr=[0.05, 0.01], anneal_epochs=epochs,
                                      anneal_strategy=strategy)
    lrs = [[g["lr"] for g in opt.param_groups]]
    for k in range(steps):
        if set_at and set_at[0] == k:
            opt.param_groups[0]["lr"] = set_at[1]
        opt.step()
        sched.step()
        lrs.append([g["lr"] for g in opt.param_groups])
    return lrs, sched, opt


SWALR_CASES = [(s, e) for s in ("cos", "linear") for e in (0, 1, 10)]


@pytest.mark.parametrize("strategy, epochs", SWALR_CASES)
def test_swalr_lrs_are_torchs_bit_for_bit(strategy, epochs):
    """The same recursion as torch's: the same floats, also after an lr set by hand."""
    torch = pytest.importorskip("torch")
    assert swalr_lrs(tinyffn, strategy, epochs)[0] == swalr_lrs(torch, strategy, epochs)[0]
    assert (swalr_lrs(tinyffn, strategy, epochs, set_at=(3, 0.3))[0]
            == swalr_lrs(torch, strategy, epochs, set_at=(3, 0.3))[0])


@pytest.mark.parametrize("strategy, epochs", SWALR_CASES)
def test_swalr_follows_its_closed_form(strategy, epochs):
    """lr_k = α(t) swa_lr + (1 − α(t)) lr_0, t = min(1, k / epochs) (1 at once for 0)."""
    lrs, _, _ = swalr_lrs(tinyffn, strategy, epochs)
    for k, got in enumerate(lrs):
        t = 1.0 if epochs == 0 else min(1.0, k / epochs)
        alpha = (1 - np.cos(np.pi * t)) / 2 if strategy == "cos" else t
        np.testing.assert_allclose(got, [alpha * s + (1 - alpha) * lr0 for s, lr0 in
                                         ((0.05, 0.5), (0.01, 0.2))], rtol=1e-13)


# torch.optim.swa_utils.SWALR's group-0 lrs from swalr_lrs(torch, "cos", 10), PyTorch 2.13
TORCH_COS_10 = [0.5, 0.48898771616640957, 0.45702882373436315, 0.40725168176580645,
                0.34452882373436317, 0.275, 0.20547117626563682, 0.1427483182341936,
                0.09297117626563683, 0.06101228383359043, 0.05]


def test_swalr_matches_torchs_numbers_written_out():
    lrs, _, _ = swalr_lrs(tinyffn, "cos", 10)
    assert [lr for lr, _ in lrs[:11]] == TORCH_COS_10
    assert all(lr == 0.05 for lr, _ in lrs[10:])


def test_swalr_state_dict_resumes_exactly():
    whole, _, _ = swalr_lrs(tinyffn, "cos", 10, steps=14)
    part, sched, opt = swalr_lrs(tinyffn, "cos", 10, steps=4)
    saved, opt_saved = sched.state_dict(), opt.state_dict()
    assert saved["_step_count"] == 5 and saved["_anneal_strategy"] == "cos"
    assert "anneal_func" not in saved and opt_saved["param_groups"][1]["swa_lr"] == 0.01
    ps = [nn.Parameter(tinyffn.zeros(2)) for _ in range(2)]
    opt2 = optim.SGD([{"params": ps[:1]}, {"params": ps[1:], "lr": 0.2}], lr=0.5)
    opt2.load_state_dict(opt_saved)
    sched2 = swa_utils.SWALR(opt2, swa_lr=[0.05, 0.01], anneal_strategy="linear")
    sched2.load_state_dict(saved)
    assert sched2.anneal_func(0.5) == pytest.approx(0.5) and sched2._anneal_strategy == "cos"
    rest = []
    for _ in range(10):
        opt2.step()
        sched2.step()
        rest.append([g["lr"] for g in opt2.param_groups])
    assert part + rest == whole


def test_swalr_errors():
    opt = optim.SGD([nn.Parameter(tinyffn.zeros(2))], lr=0.5)
    with pytest.raises(ValueError, match="SWALR: anneal_strategy must be 'cos' or 'linear', "
                                         "got 'cosine'"):
        swa_utils.SWALR(opt, swa_lr=0.05, anneal_strategy="cosine")
    with pytest.raises(ValueError, match="SWALR: anneal_epochs must be a whole number >= 0"):
        swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=-1)
    with pytest.raises(ValueError, match="SWALR: anneal_epochs must be a whole number >= 0"):
        swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=2.5)
    with pytest.raises(ValueError, match="SWALR: got 2 values of swa_lr for 1 parameter "
                                         "groups"):
        swa_utils.SWALR(opt, swa_lr=[0.05, 0.01])
    with pytest.raises(ValueError, match="SWALR: swa_lr must be a number >= 0"):
        swa_utils.SWALR(opt, swa_lr=-0.05)
    with pytest.raises(TypeError, match="SWALR: optimizer must be a tinyffn optimizer"):
        swa_utils.SWALR([opt], swa_lr=0.05)
    sched = swa_utils.SWALR(opt, swa_lr=0.05)
    opt.add_param_group({"params": [nn.Parameter(tinyffn.zeros(2))]})
    with pytest.raises(ValueError, match="the optimizer has 2 parameter groups, the "
                                         "scheduler was built for 1"):
        sched.step()
    torch = pytest.importorskip("torch")
    topt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(2))], lr=0.5)
    for kw in ({"anneal_strategy": "cosine"}, {"anneal_epochs": -1}, {"anneal_epochs": 2.5}):
        with pytest.raises(ValueError):
            torch.optim.swa_utils.SWALR(topt, swa_lr=0.05, **kw)
