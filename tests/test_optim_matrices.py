"""Adafactor and Muon (tinyffn/optim_matrices.py) against torch.optim: weights of several
shapes (a wide and a tall matrix, a vector, a 3-D tensor, a 0-d one) trained 10 steps
from the same values, live where torch is installed (Muon with torch's bfloat16 cast
taken out, and with it in, loosely) and against torch's numbers written out where it is
not, on every backend; the Newton-Schulz iteration against NumPy's SVD; saving and
resuming; the arguments torch refuses; an FFN that learns with Muon and AdamW."""
import contextlib
import inspect
from unittest import mock

import numpy as np
import pytest

import tinyffn
import tinyffn.functional as F
from tinyffn import nn, optim
from tinyffn.optim_matrices import _NS_COEFFICIENTS, _newton_schulz

SHAPES = [(3, 5), (5,), (5, 2), (2, 3, 4), ()]
_rng = np.random.default_rng(0)
WEIGHTS = [_rng.normal(size=s) for s in SHAPES]

# optimizer -> (constructor settings, [(indices into SHAPES, that group's settings), ...])
CASES = {
    "Adafactor": [
        ({}, [([0, 1], {}), ([2, 3, 4], {})]),
        ({"lr": 0.05, "weight_decay": 0.1, "eps": (1e-6, 1e-2)},
         [([0, 1], {"maximize": True}), ([2, 3, 4], {"beta2_decay": -0.5, "d": 1.5})])],
    "Muon": [       # Muon takes 2-D weights only: the wide (3, 5) and the tall (5, 2)
        ({}, [([0], {}), ([2], {})]),
        ({"lr": 0.02, "weight_decay": 0.05, "momentum": 0.9,
          "adjust_lr_fn": "match_rms_adamw"}, [([0], {"nesterov": False}),
                                               ([2], {"ns_steps": 3})]),
        ({"lr": 0.05, "adjust_lr_fn": "original", "ns_coefficients": (2.0, -1.5, 0.5)},
         [([2], {"eps": 0.1}), ([0], {"momentum": 0.0})])],
}
CASE_IDS = [(name, i) for name in CASES for i in range(len(CASES[name]))]


def train(lib, name, settings, steps=10, dtype="float64", device=None, weights=WEIGHTS,
          opt_state=None, start=0):
    """``steps`` steps of ``lib.optim.<name>`` on L = Σ over the groups' weights of
    Σ (tanh(w) - target_t)², fresh targets each step. Returns the weights and optimizer."""
    defaults, groups = settings
    on = {"device": device} if device else {}
    ps = [lib.nn.Parameter(lib.tensor(w, dtype=getattr(lib, dtype), **on)) for w in weights]
    opt = getattr(lib.optim, name)([{"params": [ps[i] for i in idx], **group}
                                    for idx, group in groups], **defaults)
    if opt_state is not None:
        opt.load_state_dict(opt_state)
    used = sorted(i for idx, _ in groups for i in idx)
    for t in range(start, start + steps):
        targets = np.random.default_rng(100 + t)
        opt.zero_grad()
        loss = 0
        for i in used:
            target = lib.tensor(targets.normal(size=SHAPES[i]), dtype=getattr(lib, dtype), **on)
            loss = loss + ((ps[i].tanh() - target) ** 2).sum()
        loss.backward()
        opt.step()
    return [p.detach().numpy() for p in ps], opt


@contextlib.contextmanager
def torch_without_bfloat16(torch):
    """torch's Muon casts the update to bfloat16 for Newton-Schulz; with ``.bfloat16()``
    a copy instead, torch's own code runs in the weights' dtype, as tinyffn's does."""
    with mock.patch.object(torch.Tensor, "bfloat16", lambda self: self.clone()):
        yield


@pytest.mark.parametrize("name, i", CASE_IDS)
def test_training_matches_torch(name, i):
    """Every weight after 10 steps as torch.optim's, float64, each group with its own
    settings (measured: within 5e-16)."""
    torch = pytest.importorskip("torch")
    ours, _ = train(tinyffn, name, CASES[name][i])
    with torch_without_bfloat16(torch):
        theirs, _ = train(torch, name, CASES[name][i])
    used = {j for idx, _ in CASES[name][i][1] for j in idx}
    for j, (a, b, w) in enumerate(zip(ours, theirs, WEIGHTS)):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-14, err_msg=f"{name} {SHAPES[j]}")
        assert (np.abs(a - w).max() > 1e-3) == (j in used)


def test_float32_weights_stay_float32_and_match_torch():
    """float32 throughout (tinyffn's RMS a float32 array, torch's a Python float): within
    a few float32 ulps after 10 steps."""
    floats = [w.astype(np.float32) for w in WEIGHTS]
    ours, opt = train(tinyffn, "Adafactor", CASES["Adafactor"][1], dtype="float32",
                      weights=floats)
    assert all(w.dtype == np.float32 for w in ours)
    assert all(v.dtype == np.float32 for s in opt.state.values() for v in s.values()
               if hasattr(v, "dtype"))
    torch = pytest.importorskip("torch")
    theirs, _ = train(torch, "Adafactor", CASES["Adafactor"][1], dtype="float32",
                      weights=floats)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-6)


def test_muon_against_torchs_bfloat16_newton_schulz():
    """Unpatched, torch orthogonalizes in bfloat16 (8 bits of mantissa); tinyffn in the
    weights' float32. Over 10 steps of lr 0.02 the weights move ~0.15 and differ by
    ~2e-3 (measured 1.8e-3): the same algorithm, bfloat16's rounding apart."""
    torch = pytest.importorskip("torch")
    settings = ({"lr": 0.02}, [([0], {}), ([2], {})])
    floats = [w.astype(np.float32) for w in WEIGHTS]
    ours, _ = train(tinyffn, "Muon", settings, dtype="float32", weights=floats)
    theirs, _ = train(torch, "Muon", settings, dtype="float32", weights=floats)
    for j in (0, 2):
        assert np.abs(ours[j] - floats[j]).max() > 0.1
        np.testing.assert_allclose(ours[j], theirs[j], rtol=0, atol=5e-3)


@pytest.mark.parametrize("name", CASES)
def test_every_backend_takes_torchs_steps_written_out(name, device):
    """The second case of each against torch's weights pasted in (below): runs without
    torch, on NumPy, array_api_strict and the GPU."""
    ours, opt = train(tinyffn, name, CASES[name][1], device=device)
    for j, expected in TORCH_WEIGHTS[name].items():
        np.testing.assert_allclose(ours[j], expected, rtol=0, atol=1e-13)
    if name == "Adafactor":
        assert all(s["step"] == 10 for s in opt.state.values())


def test_the_written_out_weights_are_torchs():
    torch = pytest.importorskip("torch")
    for name in CASES:
        with torch_without_bfloat16(torch):
            theirs, _ = train(torch, name, CASES[name][1])
        assert set(TORCH_WEIGHTS[name]) == {j for idx, _ in CASES[name][1][1] for j in idx}
        for j, expected in TORCH_WEIGHTS[name].items():
            np.testing.assert_allclose(theirs[j], expected, rtol=0, atol=1e-15)


def test_newton_schulz_orthogonalizes_as_the_svd_says():
    """With the classic cubic (1.5, -0.5, 0) the iteration converges to U Vᵀ of G = U S Vᵀ
    (NumPy's SVD), wide or tall; with Muon's quintic, 5 steps leave every singular value
    in about (0.7, 1.2), far from G's own, spread over a factor 10."""
    xp = np
    rng = np.random.default_rng(1)
    u, _ = np.linalg.qr(rng.normal(size=(6, 6)))
    v, _ = np.linalg.qr(rng.normal(size=(4, 4)))
    g = u[:, :4] @ np.diag([3.0, 1.0, 0.5, 0.3]) @ v.T          # (6, 4), tall
    for a in (g, g.T):
        uu, _, vt = np.linalg.svd(a, full_matrices=False)
        np.testing.assert_allclose(_newton_schulz(a, xp, (1.5, -0.5, 0.0), 40), uu @ vt,
                                   atol=1e-10)
        s = np.linalg.svd(_newton_schulz(a, xp, _NS_COEFFICIENTS, 5), compute_uv=False)
        assert 0.65 < s.min() and s.max() < 1.25, s
    np.testing.assert_array_equal(_newton_schulz(np.zeros((2, 3)), xp), np.zeros((2, 3)))


def test_adafactor_keeps_row_and_column_averages_as_torch():
    """A (3, 5) matrix keeps row_var (3, 1) and col_var (1, 5), 8 numbers, not 15; a 3-D
    weight factors its last two axes; a vector and a 0-d weight keep ``variance``. By
    hand at step 1 (β̂_1 = 0): R, C are the row and column means of g²."""
    _, opt = train(tinyffn, "Adafactor", CASES["Adafactor"][0], steps=1)
    state = opt.state_dict()["state"]
    shapes = {i: {k: tuple(v.shape) for k, v in s.items() if k != "step"}
              for i, s in state.items()}
    assert shapes == {0: {"row_var": (3, 1), "col_var": (1, 5)}, 1: {"variance": (5,)},
                      2: {"row_var": (5, 1), "col_var": (1, 2)},
                      3: {"row_var": (2, 3, 1), "col_var": (2, 1, 4)}, 4: {"variance": ()}}
    target = np.random.default_rng(100).normal(size=(3, 5))
    g2 = (2 * (np.tanh(WEIGHTS[0]) - target) * (1 - np.tanh(WEIGHTS[0]) ** 2)) ** 2
    np.testing.assert_allclose(state[0]["row_var"].numpy(), g2.mean(1, keepdims=True))
    np.testing.assert_allclose(state[0]["col_var"].numpy(), g2.mean(0, keepdims=True))
    torch = pytest.importorskip("torch")
    _, topt = train(torch, "Adafactor", CASES["Adafactor"][0], steps=1)
    tstate = topt.state_dict()
    for i, s in state.items():
        assert sorted(s) == sorted(tstate["state"][i])
        for k, v in s.items():
            if k != "step":
                np.testing.assert_allclose(v.numpy(), tstate["state"][i][k].numpy(),
                                           rtol=1e-14)
    for ours, theirs in zip(opt.state_dict()["param_groups"], tstate["param_groups"]):
        assert ours == {k: v for k, v in theirs.items() if k != "foreach"}


def adafactor_reference(w, grads, lr=1e-2, beta2_decay=-0.8, eps1=2.220446049250313e-16,
                        eps2=1e-3, d=1.0):
    """PyTorch's documented algorithm in NumPy, for a matrix (factored) or a vector."""
    r, c, v = np.zeros((w.shape[0], 1)), np.zeros((1, w.shape[-1])), np.zeros(w.shape)
    for t, g in enumerate(grads, start=1):
        keep = t ** beta2_decay
        alpha = max(eps2, np.sqrt(np.mean(w ** 2))) * min(lr, 1 / np.sqrt(t))
        if w.ndim == 2:
            r = (1 - keep) * r + keep * np.mean(g ** 2, axis=1, keepdims=True)
            c = (1 - keep) * c + keep * np.mean(g ** 2, axis=0, keepdims=True)
            v_hat = r @ c / max(np.mean(r), eps1)
        else:
            v = v_hat = (1 - keep) * v + keep * g ** 2
        u = g / np.sqrt(np.maximum(v_hat, eps1 ** 2))
        w = w - alpha * u / max(1.0, np.sqrt(np.mean(u ** 2)) / d)
    return w


def test_adafactor_at_its_epsilons_by_hand(device):
    """From zero weights (RMS 0: the step is ε2 ρ_t): an all-zero gradient (R = 0, so
    mean(R) = 0: 0/0 without ε1), one of 1e-9 (mean(R) ~ 1e-18, under float64's ε1 =
    2.2e-16, which then sets the step), one with a zero row (V̂ = 0 there: 0/0 without
    ε1² clamping it), an ordinary one: PyTorch's algorithm in NumPy, and torch.optim."""
    rng = np.random.default_rng(5)
    grads = [np.zeros((3, 4))] + [rng.normal(size=(3, 4)) for _ in range(3)]
    grads[1] *= 1e-9
    grads[2][1] = 0.0
    for shape in ((3, 4), (4,)):
        gs = [g if len(shape) == 2 else g[1] for g in grads]     # a vector: 0, 0, g, ...
        w = nn.Parameter(tinyffn.zeros(*shape, dtype="float64", device=device))
        opt = optim.Adafactor([w], d=1.5)
        for g in gs:
            w.grad = tinyffn.tensor(g, device=device)
            opt.step()
        expected = adafactor_reference(np.zeros(shape), gs, d=1.5)
        assert np.isfinite(expected).all() and (expected != 0).all()
        np.testing.assert_allclose(w.numpy(), expected, rtol=1e-13, atol=1e-18)
        if device != "cpu":
            continue
        torch = pytest.importorskip("torch")
        q = torch.nn.Parameter(torch.zeros(*shape, dtype=torch.float64))
        topt = torch.optim.Adafactor([q], d=1.5)
        for g in gs:
            q.grad = torch.tensor(g)
            topt.step()
        np.testing.assert_allclose(w.numpy(), q.detach().numpy(), rtol=1e-13, atol=1e-18)


@pytest.mark.parametrize("name", CASES)
def test_state_dict_resumes_exactly(name):
    """4 steps, state_dict, a new optimizer on the weights reached loads it, 6 more: the
    same weights, bit for bit, as 10 uninterrupted (row_var's (3, 1) shape loads)."""
    settings = CASES[name][-1]
    whole, _ = train(tinyffn, name, settings)
    half, opt = train(tinyffn, name, settings, steps=4)
    saved = opt.state_dict()
    resumed, _ = train(tinyffn, name, ({}, settings[1]), steps=6, start=4, weights=half,
                       opt_state=saved)
    for a, b in zip(whole, resumed):
        np.testing.assert_array_equal(a, b)


def test_a_factored_state_of_the_wrong_shape_is_refused():
    w = nn.Parameter(tinyffn.zeros(3, 5, dtype="float64"))
    opt = optim.Adafactor([w])
    w.grad = tinyffn.ones(3, 5, dtype="float64")
    opt.step()
    saved = opt.state_dict()
    saved["state"][0]["row_var"] = tinyffn.zeros(3, 5, dtype="float64")
    with pytest.raises(ValueError, match=r"state 'row_var' of parameter 0 has shape \(3, 5\),"
                                         r" the parameter \(3, 5\) \(so \(3, 1\) expected\)"):
        optim.Adafactor([w]).load_state_dict(saved)
    saved["state"][0] = {"step": 1, "variance": tinyffn.zeros(3, 5, dtype="float64")}
    with pytest.raises(ValueError, match=r"has \['step', 'variance'\]; Adafactor as "
                                         r"configured keeps \['col_var', 'row_var', 'step'\]"):
        optim.Adafactor([w]).load_state_dict(saved)
    opt.state[w]["col_var"] = tinyffn.zeros(3, 5, dtype="float64").data
    with pytest.raises(RuntimeError, match=r"state \('col_var'\) was made for float64 of "
                                           r"shape \(3, 5\)"):
        opt.step()


# torch.optim's defaults (PyTorch 2.13), written out; its `foreach` chooses an implementation
DEFAULTS = {
    "Adafactor": {"lr": 0.01, "beta2_decay": -0.8, "eps": (None, 0.001), "d": 1.0,
                  "weight_decay": 0.0, "maximize": False},
    "Muon": {"lr": 0.001, "weight_decay": 0.1, "momentum": 0.95, "nesterov": True,
             "ns_coefficients": (3.4445, -4.775, 2.0315), "eps": 1e-07, "ns_steps": 5,
             "adjust_lr_fn": None},
}


@pytest.mark.parametrize("name", CASES)
def test_defaults_and_argument_names_are_torchs(name):
    opt = getattr(optim, name)([nn.Parameter(tinyffn.zeros(2, 2))])
    assert opt.hyperparameters() == DEFAULTS[name]
    assert list(opt.hyperparameters()) == list(DEFAULTS[name])
    torch = pytest.importorskip("torch")
    theirs = inspect.signature(getattr(torch.optim, name)).parameters
    ours = inspect.signature(getattr(optim, name)).parameters
    assert list(ours) == [k for k in theirs if k != "foreach"]
    for k, p in ours.items():
        assert k == "params" or (p.default, p.kind) == (theirs[k].default, theirs[k].kind), k
    tdefaults = getattr(torch.optim, name)([torch.nn.Parameter(torch.zeros(2, 2))]).defaults
    assert {k: v for k, v in tdefaults.items() if k != "foreach"} == DEFAULTS[name]


# arguments torch refuses (a ValueError there, at the first step for Muon's ns_*)
BAD = [("Adafactor", {"lr": -1.0}, "lr must be >= 0, got -1.0"),
       ("Adafactor", {"beta2_decay": 0.5}, "beta2_decay must be <= 0"),
       ("Adafactor", {"eps": (-1.0, 1e-3)}, "eps1 must be >= 0"),
       ("Adafactor", {"eps": (None, -1.0)}, "eps2 must be >= 0"),
       ("Adafactor", {"d": 0.5}, "d, the clipping threshold, must be >= 1, got 0.5"),
       ("Adafactor", {"weight_decay": -0.1}, "weight_decay must be >= 0"),
       ("Muon", {"lr": -1.0}, "lr must be >= 0"),
       ("Muon", {"momentum": -0.5}, "momentum must be >= 0"),
       ("Muon", {"weight_decay": -0.1}, "weight_decay must be >= 0"),
       ("Muon", {"adjust_lr_fn": "spectral"}, "adjust_lr_fn must be None, 'original' or "
        "'match_rms_adamw', got 'spectral'"),
       ("Muon", {"ns_steps": 100}, "ns_steps must be a whole number from 0 to 99"),
       ("Muon", {"ns_coefficients": (3.0, -4.0)}, r"ns_coefficients must be three numbers")]


@pytest.mark.parametrize("name, kwargs, message", BAD)
def test_bad_arguments_are_refused_as_in_torch(name, kwargs, message):
    p = nn.Parameter(tinyffn.zeros(2, 2))
    with pytest.raises(ValueError, match=f"{name}: {message}"):
        getattr(optim, name)([p], **kwargs)
    with pytest.raises(ValueError, match=f"{name}.param_groups\\[1\\]: {message}"):
        getattr(optim, name)([{"params": [p]}, {"params": [nn.Parameter(
            tinyffn.zeros(2, 2))], **kwargs}])
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError):
        t = torch.nn.Parameter(torch.zeros(2, 2))
        topt = getattr(torch.optim, name)([t], **kwargs)
        t.grad = torch.ones(2, 2)
        topt.step()


def test_muon_refuses_what_is_not_a_matrix_and_says_to_use_adamw():
    w, b = nn.Parameter(tinyffn.zeros(3, 4)), nn.Parameter(tinyffn.zeros(4))
    with pytest.raises(ValueError, match=r"Muon: parameter 1 has shape \(4,\) \(1-D\); Muon "
                                         r"updates 2-D weight matrices only.*AdamW"):
        optim.Muon([w, b])
    opt = optim.Muon([w])
    with pytest.raises(ValueError, match=r"parameter 0 of param_groups\[1\] has shape "
                                         r"\(2, 3, 4\) \(3-D\)"):
        opt.add_param_group({"params": [nn.Parameter(tinyffn.zeros(2, 3, 4))]})
    assert len(opt.param_groups) == 1 and list(opt.state) == [w]    # left as it was
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError, match="Muon only supports 2D parameters"):
        torch.optim.Muon([torch.nn.Parameter(torch.zeros(4))])


def test_steps_read_nothing_back_to_the_host():
    """The RMS norms PyTorch reads with .item() stay on the device: a step, after the
    first, makes no read (pinned on the strict backend, as tests/test_host_reads.py)."""
    from host_reads import counting_host_reads
    ps = [nn.Parameter(tinyffn.randn(*s, device="strict")) for s in [(3, 5), (5,), (5, 2)]]
    opts = [optim.Adafactor(ps, weight_decay=0.1), optim.Muon([ps[0], ps[2]])]
    for p in ps:
        p.grad = tinyffn.randn(*p.shape, device="strict")
    for opt in opts:
        opt.step()
        with counting_host_reads() as reads:
            opt.step()
        assert dict(reads) == {}


def test_one_cycle_lr_cycles_muons_momentum_as_torchs():
    """Muon has a ``momentum``, so OneCycleLR cycles it with the lr; Adafactor has neither
    momentum nor betas and is refused, as by torch."""
    results = {}
    for lib in (tinyffn, pytest.importorskip("torch")):
        with torch_without_bfloat16(lib) if lib is not tinyffn else contextlib.nullcontext():
            ps = [lib.nn.Parameter(lib.tensor(WEIGHTS[i])) for i in (0, 2)]
            opt = lib.optim.Muon([{"params": ps[:1]}, {"params": ps[1:], "momentum": 0.9}])
            sched = lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=[0.1, 0.05], total_steps=8)
            for t in range(6):
                for p, g in zip(ps, (np.sin(WEIGHTS[0] + t), np.cos(WEIGHTS[2] * t))):
                    p.grad = lib.tensor(g)
                opt.step()
                sched.step()
            results[lib.__name__] = ([(g["lr"], g["momentum"]) for g in opt.param_groups],
                                     [p.detach().numpy() for p in ps])
        with pytest.raises(ValueError, match="momentum"):
            lib.optim.lr_scheduler.OneCycleLR(lib.optim.Adafactor(ps), max_lr=0.1,
                                              total_steps=8)
    ours, theirs = results["tinyffn"], results["torch"]
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-14)
    assert ours[0][0][1] != 0.95
    for a, b in zip(ours[1], theirs[1]):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-14)


@pytest.mark.parametrize("name", CASES)
def test_an_ffn_learns_with_it(name):
    """A recipe's split: Muon (or Adafactor) for the FFN's two weight matrices, AdamW for
    the biases; 60 steps on a fixed batch of y = tanh(x A) take the MSE below a fifth of
    where it began (measured: 0.87 to 0.034 with Muon, 0.075 with Adafactor)."""
    model = nn.FFN(4, 16)
    x = tinyffn.randn(32, 4)
    y = (x @ tinyffn.randn(4, 4)).tanh()
    matrices = [p for p in model.parameters() if p.ndim == 2]
    others = [p for p in model.parameters() if p.ndim != 2]
    opts = [getattr(optim, name)(matrices, lr=0.05 if name == "Muon" else 0.03),
            optim.AdamW(others, lr=0.01)]
    losses = []
    for _ in range(60):
        for opt in opts:
            opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        for opt in opts:
            opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0] / 5, (losses[0], losses[-1])


# ----------------------------------------------------------------------------- mutation audit
# Each failed on a mutant of optim_matrices.py that the torch-free tests above let through.
def test_adafactor_caps_the_relative_step_at_one_over_sqrt_t(device):
    """lr = 0.5: ρ_t = min(lr, 1/√t) is 1/√t from t = 5 on (the cases above never get
    there, their lr under 1/√10): PyTorch's algorithm in NumPy, a matrix and a vector."""
    rng = np.random.default_rng(6)
    for shape in ((3, 4), (4,)):
        w0, grads = rng.normal(size=shape), [rng.normal(size=shape) for _ in range(6)]
        w = nn.Parameter(tinyffn.tensor(w0, device=device))
        opt = optim.Adafactor([w], lr=0.5)
        for g in grads:
            w.grad = tinyffn.tensor(g, device=device)
            opt.step()
        np.testing.assert_allclose(w.numpy(), adafactor_reference(w0, grads, lr=0.5),
                                   rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("adjust", [None, "original", "match_rms_adamw"])
def test_muon_two_steps_by_hand_with_the_svd(device, adjust):
    """With the cubic (1.5, -0.5, 0) run 40 times NS is U Vᵀ of its input (NumPy's SVD):
    two Nesterov steps on a tall and a wide weight, each scaled by its adjusted lr
    (√max(1, A/B), or 0.2 √max(A, B)) after the decoupled decay."""
    rng = np.random.default_rng(7)
    lr, wd, mu = 0.1, 0.05, 0.9
    for shape in ((5, 2), (2, 5)):
        w0, grads = rng.normal(size=shape), [rng.normal(size=shape) for _ in range(2)]
        w = nn.Parameter(tinyffn.tensor(w0, device=device))
        opt = optim.Muon([w], lr=lr, weight_decay=wd, momentum=mu, adjust_lr_fn=adjust,
                         ns_coefficients=(1.5, -0.5, 0.0), ns_steps=40)
        want, buf = w0, np.zeros(shape)
        A, B = shape
        scale = 0.2 * max(A, B) ** 0.5 if adjust == "match_rms_adamw" else max(1, A / B) ** 0.5
        for g in grads:
            w.grad = tinyffn.tensor(g, device=device)
            opt.step()
            buf = mu * buf + (1 - mu) * g
            u, _, vt = np.linalg.svd(mu * buf + (1 - mu) * g, full_matrices=False)
            want = want * (1 - lr * wd) - lr * scale * (u @ vt)
        np.testing.assert_allclose(w.numpy(), want, rtol=0, atol=1e-10)


# torch.optim's weights after train(torch, name, CASES[name][1]), by index into SHAPES
# (PyTorch 2.13.0, CPU, float64; Muon's without its bfloat16 cast)
TORCH_WEIGHTS = {
    "Adafactor": {0: [[0.0019962670294647105, -0.20846861923977045, 0.38010322616746367,
                       0.1903857138631664, -0.7536214982303436],
                      [0.39140440921425435, 1.3247152076307556, 1.0196209394415752,
                       -0.885278181196888, -1.6296895943127885],
                      [-0.8126643055364201, 0.22657517030485372, -2.2454077514703856,
                       -0.31988049291909315, -1.3199879945494741]],
                  1: [-0.8956918657501332, -0.69001736897326, -0.3098428879322965,
                      0.4424405151556009, 1.1403903826779525],
                  2: [[-0.25657358886839243, 1.1990284281331607],
                      [-0.49198324804463794, 0.3501650925384357],
                      [0.7734431441572308, 0.12676939578753932],
                      [-0.5255488518673043, -0.6671187557755429],
                      [-0.3108851532034771, 0.23149139609981453]],
                  3: [[[-0.8002711033846693, -0.25786546666504123, 0.04578620841914869,
                        0.36417169175382336],
                       [0.14673268439971657, 0.20501098353500194, -0.3577280847271152,
                        0.006695852362474171],
                       [0.1873667401194447, 1.1769756683528936, -0.9945341097862221,
                        1.31304461713136]],
                      [[1.1873434631311868, 0.5042289741942338, 0.13302064861655719,
                        -0.2450732683733616],
                       [1.1270114628795138, 1.6562512395184203, 1.539874792476117,
                        0.901829582497051],
                       [0.44221156539548034, -0.9618968564796503, -0.07718229109546305,
                        0.3768041109542485]]],
                  4: -0.8837452210373961},
    "Muon": {0: [[0.13453614805375233, -0.11662665880890948, 0.6455698525198227,
                  0.09043523289494139, -0.49998050976120395],
                 [0.3374898933239997, 1.290263819121714, 0.9235635807790132, -0.6684315561498178,
                  -1.1858393773059492],
                 [-0.5628884132234447, 0.0021466175204952493, -2.297526184807167,
                  -0.18387301461741937, -1.236835034365826]],
             2: [[-0.10184429051502274, 1.3233368564935155],
                 [-0.6372807499503792, 0.3193958564776366],
                 [0.8632738903459282, 0.057725354300889396],
                 [-0.7159525531732426, -0.8939314003420811],
                 [-0.41688501133714667, 0.23071870374777936]]},
}

