"""RMSprop, Adagrad, NAdam, RAdam, Adamax and Adadelta (tinyffn/optim_extra.py), Rprop and
ASGD (tinyffn/optim_more.py) against
torch.optim: a small network trained 20 steps from the same weights, live where torch is
installed and against torch's numbers written out where it is not; saving and resuming;
the arguments torch refuses; a learning-rate schedule on them."""
import inspect

import numpy as np
import pytest

import tinyffn
from tinyffn import nn, optim
from tinyffn.optim import lr_scheduler

NAMES = ["RMSprop", "Adagrad", "NAdam", "RAdam", "Adamax", "Adadelta", "Rprop", "ASGD"]
_rng = np.random.default_rng(0)
W1, B1, W2 = _rng.normal(size=(3, 4)), _rng.normal(size=4), _rng.normal(size=(4, 1))

# optimizer -> several (constructor settings, settings of group 0 (w1, b1), of group 1 (w2))
CASES = {
    "RMSprop": [({}, {}, {}),
                ({"lr": 0.01, "momentum": 0.9, "weight_decay": 0.1}, {}, {"alpha": 0.9}),
                ({"lr": 0.003, "centered": True, "eps": 1e-6}, {"momentum": 0.5},
                 {"maximize": True})],
    "Adagrad": [({}, {}, {}),
                ({"lr": 0.1, "lr_decay": 0.05, "initial_accumulator_value": 0.5}, {},
                 {"weight_decay": 0.1}),
                ({"lr": 0.05, "eps": 1e-3}, {"maximize": True}, {"lr_decay": 0.1})],
    "NAdam": [({}, {}, {}),
              ({"lr": 0.01, "betas": (0.8, 0.99), "momentum_decay": 0.01}, {},
               {"weight_decay": 0.1}),
              ({"lr": 0.02, "weight_decay": 0.1, "decoupled_weight_decay": True},
               {"maximize": True}, {"eps": 1e-3})],
    "RAdam": [({}, {}, {}),      # 20 steps: ρ_t passes 5 at step 6 with β2 = 0.999
              ({"lr": 0.01, "betas": (0.8, 0.9), "weight_decay": 0.1}, {}, {}),
              ({"lr": 0.02, "weight_decay": 0.1, "decoupled_weight_decay": True},
               {"maximize": True}, {"betas": (0.9, 0.99)})],
    "Adamax": [({}, {}, {}),
               ({"lr": 0.05, "betas": (0.5, 0.9), "weight_decay": 0.1}, {}, {}),
               ({"lr": 0.02, "eps": 1e-3}, {"maximize": True}, {"lr": 0.01})],
    "Adadelta": [({}, {}, {}),
                 ({"lr": 0.5, "rho": 0.5, "weight_decay": 0.1}, {}, {}),
                 ({"eps": 1e-4}, {"maximize": True}, {"rho": 0.99})],
    "Rprop": [({}, {}, {}),
              ({"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.2)}, {}, {"lr": 0.01}),
              ({"lr": 0.02}, {"maximize": True}, {"etas": (0.6, 1.1)})],
    "ASGD": [({}, {}, {}),       # t0 < 20: the average ax moves away from the weights
             ({"lr": 0.05, "lambd": 0.01, "alpha": 0.5, "t0": 5, "weight_decay": 0.1}, {},
              {"t0": 12}),
             ({"lr": 0.02, "t0": 3}, {"maximize": True}, {"lambd": 0.1, "alpha": 1.0})],
}


def batch(t):
    """Step t's inputs (8, 3) and targets (8, 1)."""
    rng = np.random.default_rng(100 + t)
    return rng.normal(size=(8, 3)), rng.normal(size=(8, 1))


def train(lib, name, settings, steps=20, opt_state=None, start=0, weights=(W1, B1, W2),
          schedule=None, device=None):
    """``steps`` steps of ``lib.optim.<name>`` (lib tinyffn or torch) on a tanh network
    from ``weights``: w1, b1 in group 0 and w2 in group 1, each with its settings.
    ``schedule(lib.optim.lr_scheduler, opt)``, if given, makes a scheduler stepped after
    each step. Returns the weights, the optimizer and each step's lrs."""
    defaults, group0, group1 = settings
    on = {"device": device} if device else {}
    ps = [lib.nn.Parameter(lib.tensor(w, **on)) for w in weights]
    opt = getattr(lib.optim, name)([{"params": ps[:2], **group0},
                                    {"params": ps[2:], **group1}], **defaults)
    if opt_state is not None:
        opt.load_state_dict(opt_state)
    sched = schedule(lib.optim.lr_scheduler, opt) if schedule else None
    lrs = []
    for t in range(start, start + steps):
        x, y = (lib.tensor(a, **on) for a in batch(t))
        opt.zero_grad()
        (((x @ ps[0] + ps[1]).tanh() @ ps[2] - y) ** 2).mean().backward()
        opt.step()
        lrs.append([g["lr"] for g in opt.param_groups])
        if sched:
            sched.step()
    return [p.detach().numpy() for p in ps], opt, lrs


def torch_train(name, settings, **kw):
    """train() with torch in float64 throughout: NAdam's μ product is a float32 tensor
    under torch's default dtype, rounding its steps by ~1e-7 (tinyffn's is a float64)."""
    torch = pytest.importorskip("torch")
    default = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        return train(torch, name, settings, **kw)
    finally:
        torch.set_default_dtype(default)


CASE_IDS = [(name, i) for name in NAMES for i in range(len(CASES[name]))]


@pytest.mark.parametrize("name, i", CASE_IDS)
def test_training_matches_torch(name, i):
    """20 steps of each optimizer, several settings each, two parameter groups: every
    weight as torch.optim's (they agree to 2e-13 measured; PyTorch 2.13)."""
    ours, _, _ = train(tinyffn, name, CASES[name][i])
    theirs, _, _ = torch_train(name, CASES[name][i])
    for a, b, what in zip(ours, theirs, ("w1", "b1", "w2")):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-13, err_msg=f"{name} {what}")
        assert not np.array_equal(a, (W1, B1, W2)[("w1", "b1", "w2").index(what)])


@pytest.mark.parametrize("name", NAMES)
def test_every_backend_takes_the_same_steps(name, device):
    """The update uses only the array API (xp.sqrt, xp.maximum, xp.full_like): on the
    strict backend (and a GPU) it reaches torch's w2 (written out below). Nothing runs on
    the CPU beside it, which tests/fake_cuda.py could not tell from the device."""
    (_, _, w2), opt, _ = train(tinyffn, name, CASES[name][1], device=device)
    np.testing.assert_allclose(w2.ravel(), TORCH_W2[name], rtol=1e-9, atol=1e-12)
    assert all(s["step"] == 20 for s in opt.state.values())


# torch.optim's w2 after train(torch, name, CASES[name][1]) (PyTorch 2.13.0, CPU, float64)
TORCH_W2 = {
    "RMSprop": [-0.38880061601210375, -0.34270459352192806, 0.018487236272622616,
                0.24677385407088645],
    "Adagrad": [-0.4644918113313101, -0.33707456709234807, 0.13279333064717638,
                0.6969523477898386],
    "NAdam": [-0.5570356344915803, -0.3309963954192805, 0.2750629931740364, 0.892362887752716],
    "RAdam": [-0.5522122152771651, -0.3376494202023946, 0.27841244420509514,
              0.9099642863873171],
    "Adamax": [-0.3930369191526376, -0.3024311754402803, 0.09693245076430383,
               0.6410729513482777],
    "Adadelta": [-0.5469194145394238, -0.316381470320606, 0.395824005086437,
                 1.0234052613630669],
    "Rprop": [-0.3250413070760601, -0.2960648243379046, 0.31321803637413276,
              0.6949352444426777],
    "ASGD": [-0.33291306434155554, -0.28183029045311264, -0.021659058068638628,
             0.6035482119234918],
}


@pytest.mark.parametrize("name", NAMES)
def test_training_matches_torchs_numbers_written_out(name):
    """The second case of each, against torch's w2 pasted in: runs without torch."""
    (_, _, w2), _, _ = train(tinyffn, name, CASES[name][1])
    np.testing.assert_allclose(w2.ravel(), TORCH_W2[name], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_state_dict_resumes_exactly(name):
    """8 steps, state_dict, a new optimizer on the weights reached loads it, 12 more steps:
    the same weights, bit for bit, as 20 steps uninterrupted (every setting and every
    state array saved; the last case of each, with its groups' own settings)."""
    settings = CASES[name][-1]
    whole, _, _ = train(tinyffn, name, settings, steps=20)
    half, opt, _ = train(tinyffn, name, settings, steps=8)
    saved = opt.state_dict()
    fresh = getattr(optim, name)([nn.Parameter(tinyffn.zeros(1))])      # other settings
    with pytest.raises(ValueError, match="the state is for 3 parameters in 2 group"):
        fresh.load_state_dict(saved)
    resumed, _, _ = train(tinyffn, name, ({}, {}, {}), steps=12, start=8, weights=half,
                          opt_state=saved)
    for a, b in zip(whole, resumed):
        np.testing.assert_array_equal(a, b)


# what each keeps per parameter, under PyTorch's names (RMSprop's last two as configured)
STATE_KEYS = {"RMSprop": ["step", "square_avg", "momentum_buffer", "grad_avg"],
              "Adagrad": ["step", "sum"], "NAdam": ["step", "mu_product", "exp_avg",
                                                   "exp_avg_sq"],
              "RAdam": ["step", "exp_avg", "exp_avg_sq"],
              "Adamax": ["step", "exp_avg", "exp_inf"],
              "Adadelta": ["step", "square_avg", "acc_delta"],
              "Rprop": ["step", "prev", "step_size"], "ASGD": ["step", "eta", "mu", "ax"]}


@pytest.mark.parametrize("name", NAMES)
def test_state_dict_has_torchs_layout(name):
    """The state keys, written out, and the group keys torch saves (less its foreach,
    capturable, differentiable and fused, which choose an implementation)."""
    settings = CASES[name][-1]
    _, opt, _ = train(tinyffn, name, settings, steps=2)
    state = opt.state_dict()["state"]
    expected = STATE_KEYS[name] if name != "RMSprop" else ["step", "square_avg", "grad_avg"]
    assert list(state[2]) == expected
    if name == "RMSprop":                           # group 0 has momentum 0.5
        assert list(state[0]) == STATE_KEYS[name]
    assert all(isinstance(s["step"], int) and s["step"] == 2 for s in state.values())
    pytest.importorskip("torch")
    _, topt, _ = torch_train(name, settings, steps=2)
    tstate = topt.state_dict()
    assert [sorted(s) for s in state.values()] == [sorted(s) for s in tstate["state"].values()]
    for ours, theirs in zip(opt.state_dict()["param_groups"], tstate["param_groups"]):
        impl = {"foreach", "capturable", "differentiable", "fused"}
        assert set(ours) == set(theirs) - impl
        assert {k: v for k, v in ours.items() if k != "params"} == {
            k: v for k, v in theirs.items() if k not in impl | {"params"}}
        for key, value in opt.state_dict()["state"].items():
            for k, v in value.items():
                np.testing.assert_allclose(np.asarray(v.numpy() if hasattr(v, "numpy") else v),
                                           tstate["state"][key][k].numpy(), rtol=1e-12)


def test_adagrad_state_starts_with_the_group_as_torchs():
    """PyTorch's Adagrad fills each parameter's state when it is added, so its state_dict
    lists them before any step: step 0 and sum the initial accumulator value."""
    w = nn.Parameter(tinyffn.zeros(2, 3))
    opt = optim.Adagrad([w], initial_accumulator_value=0.25)
    opt.add_param_group({"params": [b := nn.Parameter(tinyffn.zeros(3))],
                         "initial_accumulator_value": 2.0})
    state = opt.state_dict()["state"]
    assert sorted(state) == [0, 1] and state[0]["step"] == 0 and state[1]["step"] == 0
    np.testing.assert_array_equal(state[0]["sum"].numpy(), np.full((2, 3), 0.25))
    np.testing.assert_array_equal(state[1]["sum"].numpy(), np.full(3, 2.0))
    opt.state[b].clear()                            # torch's way to restart a parameter
    b.grad = tinyffn.tensor([1.0, 2.0, 0.0])
    opt.step()                                      # w has no grad: left alone
    assert opt.state[w]["step"] == 0 and opt.state[b]["step"] == 1
    np.testing.assert_allclose(opt.state[b]["sum"], [3.0, 6.0, 2.0])
    np.testing.assert_allclose(b.numpy(), -0.01 * np.array([1, 2, 0]) / (np.sqrt([3, 6, 2])
                                                                         + 1e-10))


# torch.optim's defaults (PyTorch 2.13), written out
DEFAULTS = {
    "RMSprop": {"lr": 0.01, "momentum": 0.0, "alpha": 0.99, "eps": 1e-8, "centered": False,
                "weight_decay": 0.0, "maximize": False},
    "Adagrad": {"lr": 0.01, "lr_decay": 0.0, "eps": 1e-10, "weight_decay": 0.0,
                "initial_accumulator_value": 0.0, "maximize": False},
    "NAdam": {"lr": 0.002, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0.0,
              "momentum_decay": 0.004, "decoupled_weight_decay": False, "maximize": False},
    "RAdam": {"lr": 0.001, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0.0,
              "maximize": False, "decoupled_weight_decay": False},
    "Adamax": {"lr": 0.002, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0.0,
               "maximize": False},
    "Adadelta": {"lr": 1.0, "rho": 0.9, "eps": 1e-6, "weight_decay": 0.0, "maximize": False},
    "Rprop": {"lr": 0.01, "etas": (0.5, 1.2), "step_sizes": (1e-6, 50), "maximize": False},
    "ASGD": {"lr": 0.01, "lambd": 1e-4, "alpha": 0.75, "t0": 1e6, "weight_decay": 0.0,
             "maximize": False},
}


@pytest.mark.parametrize("name", NAMES)
def test_defaults_and_argument_names_are_torchs(name):
    cls = getattr(optim, name)
    opt = cls([nn.Parameter(tinyffn.zeros(2))])
    assert opt.hyperparameters() == DEFAULTS[name]
    assert list(opt.hyperparameters()) == list(DEFAULTS[name])     # torch's group order
    torch = pytest.importorskip("torch")
    theirs = inspect.signature(getattr(torch.optim, name)).parameters
    ours = inspect.signature(cls).parameters
    impl = {"foreach", "capturable", "differentiable", "fused"}
    assert list(ours) == [k for k in theirs if k not in impl]
    for k, p in ours.items():
        if k != "params":
            assert p.default == theirs[k].default, k
            assert p.kind == theirs[k].kind or name in ("RMSprop", "ASGD") and k == "maximize", k
    t = torch.nn.Parameter(torch.zeros(2))
    tdefaults = getattr(torch.optim, name)([t]).defaults
    assert {k: v for k, v in tdefaults.items() if k not in impl} == DEFAULTS[name]


# arguments torch refuses (each a ValueError there too), and how tinyffn says it
BAD = [("RMSprop", {"lr": -1.0}, "lr must be >= 0, got -1.0"),
       ("RMSprop", {"alpha": -0.5}, "alpha must be >= 0, got -0.5"),
       ("RMSprop", {"momentum": -0.1}, "momentum must be >= 0"),
       ("RMSprop", {"eps": -1e-8}, "eps must be >= 0"),
       ("RMSprop", {"weight_decay": float("nan")}, "weight_decay must be >= 0, got nan"),
       ("Adagrad", {"lr_decay": -1.0}, "lr_decay must be >= 0"),
       ("Adagrad", {"initial_accumulator_value": -1.0},
        "initial_accumulator_value must be >= 0"),
       ("Adagrad", {"eps": -1.0}, "eps must be >= 0"),
       ("NAdam", {"betas": (1.0, 0.999)}, r"betas must be two numbers in \[0, 1\)"),
       ("NAdam", {"betas": (0.9, -0.1)}, "beta must be >= 0"),
       ("NAdam", {"momentum_decay": -1.0}, "momentum_decay must be >= 0"),
       ("RAdam", {"betas": (0.9, 1.0)}, r"betas must be two numbers in \[0, 1\)"),
       ("RAdam", {"weight_decay": -0.1}, "weight_decay must be >= 0"),
       ("Adamax", {"betas": (0.9, 1.5)}, r"betas must be two numbers in \[0, 1\)"),
       ("Adamax", {"eps": -1.0}, "eps must be >= 0"),
       ("Adadelta", {"rho": 1.5}, r"rho must be in \[0, 1\], got 1.5"),
       ("Adadelta", {"rho": -0.5}, "rho must be >= 0"),
       ("Adadelta", {"lr": -1.0}, "lr must be >= 0"),
       ("Rprop", {"lr": -1.0}, "lr must be >= 0"),
       ("Rprop", {"etas": (1.5, 1.2)}, r"etas must be two numbers \(etaminus, etaplus with "
        r"0 < etaminus < 1 < etaplus\), got \(1.5, 1.2\)"),
       ("Rprop", {"etas": (0.5, 1.0)}, "etas must be two numbers"),
       ("ASGD", {"lr": -0.1}, "lr must be >= 0"),
       ("ASGD", {"weight_decay": -0.1}, "weight_decay must be >= 0")]


@pytest.mark.parametrize("name, kwargs, message", BAD)
def test_bad_arguments_are_refused_as_in_torch(name, kwargs, message):
    p = nn.Parameter(tinyffn.zeros(2))
    with pytest.raises(ValueError, match=f"{name}: {message}"):
        getattr(optim, name)([p], **kwargs)
    with pytest.raises(ValueError, match=f"{name}.param_groups\\[1\\]: {message}"):
        getattr(optim, name)([{"params": [p]}, {"params": [nn.Parameter(tinyffn.zeros(2))],
                                                **kwargs}])
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError):
        getattr(torch.optim, name)([torch.nn.Parameter(torch.zeros(2))], **kwargs)


@pytest.mark.parametrize("name, kwargs", [("Adadelta", {"rho": 1.0}), ("Adadelta", {"rho": 0}),
                                          ("NAdam", {"betas": (0.0, 0.0)}),
                                          ("RMSprop", {"alpha": 0.0, "momentum": 0.0})])
def test_the_edges_torch_accepts_are_accepted(name, kwargs):
    """torch's ranges are closed there: Adadelta's rho in [0, 1], betas from 0. With
    rho = 1 square_avg and acc_delta stay 0, so each step is lr · sqrt(ε)/sqrt(ε) · g = g."""
    p = nn.Parameter(tinyffn.tensor([1.0, -2.0], dtype="float64"))
    opt = getattr(optim, name)([p], **kwargs)
    for _ in range(3):
        p.grad = tinyffn.tensor([0.5, 4.0], dtype="float64")
        opt.step()
    if kwargs == {"rho": 1.0}:
        np.testing.assert_allclose(p.numpy(), [-0.5, -14.0], rtol=1e-12)
    torch = pytest.importorskip("torch")
    q = torch.nn.Parameter(torch.tensor([1.0, -2.0], dtype=torch.float64))
    topt = getattr(torch.optim, name)([q], **kwargs)
    for _ in range(3):
        q.grad = torch.tensor([0.5, 4.0], dtype=torch.float64)
        topt.step()
    np.testing.assert_allclose(p.numpy(), q.detach().numpy(), rtol=1e-13)


@pytest.mark.parametrize("name, key", [("RMSprop", "centered"), ("NAdam", "maximize"),
                                       ("RAdam", "decoupled_weight_decay")])
def test_flags_must_be_bools(name, key):
    with pytest.raises(TypeError, match=f"{name}: {key} must be True or False, got 1"):
        getattr(optim, name)([nn.Parameter(tinyffn.zeros(2))], **{key: 1})


def test_another_optimizers_setting_is_refused_not_kept_as_a_label():
    """RMSprop given Adam's betas, Adagrad given SGD's momentum, Adam given RMSprop's
    alpha would each ignore it in silence; a near-miss is named."""
    p = nn.Parameter(tinyffn.zeros(2))
    for cls, key in ((optim.RMSprop, "betas"), (optim.Adagrad, "momentum"),
                     (optim.Adam, "alpha"), (optim.Adadelta, "betas")):
        with pytest.raises(KeyError, match=f"'{key}' is another optimizer's setting"):
            cls([{"params": [p], key: 0.5}])
    with pytest.raises(KeyError, match="did you mean 'momentum_decay'"):
        optim.NAdam([{"params": [p], "momentum_decy": 0.5}])
    from tinyffn.param_groups import OPTIMIZER_SETTINGS
    for name in NAMES:
        assert set(DEFAULTS[name]) <= OPTIMIZER_SETTINGS


def test_what_rmsprop_keeps_cannot_change_after_its_first_step():
    """momentum > 0 and centered add state arrays; torch would fail with a KeyError in
    the next step, so the change is refused when written."""
    p = nn.Parameter(tinyffn.ones(2))
    opt = optim.RMSprop([p])
    p.grad = tinyffn.ones(2)
    opt.step()
    for key, value in (("momentum", 0.9), ("centered", True)):
        with pytest.raises(ValueError, match="changes what the optimizer keeps"):
            opt.param_groups[0][key] = value
    opt.param_groups[0]["alpha"] = 0.5                  # a number in the math: fine


@pytest.mark.parametrize("name", NAMES)
def test_float32_weights_stay_float32(name):
    (w1, b1, w2), opt, _ = train(tinyffn, name, CASES[name][-1], steps=3,
                                 weights=[w.astype(np.float32) for w in (W1, B1, W2)])
    assert w1.dtype == b1.dtype == w2.dtype == np.float32
    for state in opt.state.values():
        assert all(v.dtype == np.float32 for v in state.values() if hasattr(v, "dtype"))


def one_cycle(schedules, opt):
    return schedules.OneCycleLR(opt, max_lr=[0.05, 0.02], total_steps=21)


@pytest.mark.parametrize("name, settings", [
    ("RMSprop", ({"momentum": 0.9}, {}, {})),           # cycles momentum
    ("NAdam", ({}, {}, {})),                            # cycles betas[0]
    ("Adamax", ({}, {}, {"betas": (0.8, 0.99)}))])
def test_one_cycle_lr_schedules_them_as_torchs(name, settings):
    """OneCycleLR sets each group's lr and momentum (RMSprop's) or beta1 (the Adams')
    every step; the weights and lrs match torch's."""
    ours, opt, lrs = train(tinyffn, name, settings, schedule=one_cycle)
    theirs, topt, tlrs = torch_train(name, settings, schedule=one_cycle)
    np.testing.assert_allclose(lrs, tlrs, rtol=1e-12)
    assert len({lr for lr, _ in lrs}) > 10
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-13)
    key = "momentum" if name == "RMSprop" else "betas"
    assert [g[key] for g in opt.param_groups] == [g[key] for g in topt.param_groups]


def test_step_lr_on_adagrad_and_no_momentum_to_cycle():
    step = lambda schedules, opt: schedules.StepLR(opt, step_size=5, gamma=0.5)  # noqa: E731
    ours, _, lrs = train(tinyffn, "Adagrad", CASES["Adagrad"][1], schedule=step)
    assert [lr for lr, _ in lrs] == [0.1] * 5 + [0.05] * 5 + [0.025] * 5 + [0.0125] * 5
    p = nn.Parameter(tinyffn.zeros(2))
    with pytest.raises(ValueError, match="Adadelta has neither setting"):
        lr_scheduler.OneCycleLR(optim.Adadelta([p]), max_lr=0.1, total_steps=5)
    theirs, _, tlrs = torch_train("Adagrad", CASES["Adagrad"][1], schedule=step)
    assert lrs == tlrs
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("name, i", [(n, i) for n in ("Rprop", "ASGD") for i in range(3)])
def test_rprop_and_asgd_match_torch_over_40_steps(name, i):
    """Longer than the others: Rprop's step sizes hit Γ_max and flip signs many times,
    ASGD's average runs for 20+ steps past t0. Every weight and every state entry as
    torch.optim's, float64 (measured max difference 2.2e-16)."""
    ours, opt, _ = train(tinyffn, name, CASES[name][i], steps=40)
    theirs, topt, _ = torch_train(name, CASES[name][i], steps=40)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)
    for (k, s), t in zip(opt.state_dict()["state"].items(), topt.state_dict()["state"].values()):
        for key, value in s.items():
            np.testing.assert_allclose(np.asarray(value.numpy() if hasattr(value, "numpy")
                                                  else value), t[key].numpy(), atol=1e-12)


def test_asgd_ax_is_the_mean_of_the_weights_since_t0():
    """Hand-checked in NumPy: with t0 = 3, ax is θ_t up to step 5, then the mean of the
    weights of steps 5..t; eta follows lr / (1 + λ lr t)^α."""
    p = nn.Parameter(tinyffn.tensor([1.0, -2.0, 0.5], dtype="float64"))
    opt = optim.ASGD([p], lr=0.1, lambd=0.01, alpha=0.75, t0=3)
    seen = []
    for t in range(1, 13):
        p.grad = tinyffn.tensor(np.cos(np.arange(3.0) + t) + p.numpy())
        opt.step()
        seen.append(p.numpy())
        ax = opt.state[p]["ax"]
        np.testing.assert_allclose(ax, seen[-1] if t <= 5 else np.mean(seen[4:], axis=0),
                                   rtol=1e-13)
        assert opt.state[p]["eta"] == pytest.approx(0.1 / (1 + 0.01 * 0.1 * t) ** 0.75,
                                                    rel=1e-15)


def test_rprop_step_sizes_by_hand():
    """Two entries: one gradient keeps its sign (step ×1.2, capped at Γ_max = 0.05), one
    flips (step ×0.5, and that entry waits a step, then moves with the step kept, then
    flips again): hand-written."""
    p = nn.Parameter(tinyffn.tensor([0.0, 0.0], dtype="float64"))
    opt = optim.Rprop([p], lr=0.03, step_sizes=(1e-6, 0.05))
    moves = []
    for g in ([1.0, 1.0], [2.0, -1.0], [3.0, -1.0], [1.0, 1.0]):
        before = p.numpy()
        p.grad = tinyffn.tensor(g, dtype="float64")
        opt.step()
        moves.append(p.numpy() - before)
    np.testing.assert_allclose(moves, [[-0.03, -0.03], [-0.036, 0.0], [-0.0432, 0.015],
                                       [-0.05, 0.0]], rtol=1e-14)
    np.testing.assert_allclose(opt.state[p]["step_size"], [0.05, 0.0075], rtol=1e-14)


def test_rprop_skips_a_nan_gradient_entry_as_torch():
    """torch.sign(NaN) is 0, so PyTorch's Rprop leaves that weight and its step size as
    they are for that step (prev keeps the NaN, whose product gives sign 0 again next
    step, step size x1) and goes on; written out from torch 2.13, and checked live."""
    nan = float("nan")
    grads = ([nan, 1.0], [1.0, 1.0], [1.0, -1.0])
    p = nn.Parameter(tinyffn.tensor([1.0, 2.0], dtype="float64"))
    opt = optim.Rprop([p], lr=0.1)
    seen = []
    for g in grads:
        p.grad = tinyffn.tensor(g, dtype="float64")
        opt.step()
        seen.append((p.numpy().copy(), np.array(opt.state[p]["step_size"])))
    expected = [([1.0, 1.9], [0.1, 0.1]), ([0.9, 1.78], [0.1, 0.12]),
                ([0.78, 1.78], [0.12, 0.06])]
    for (w, step), (w_want, step_want) in zip(seen, expected):
        np.testing.assert_allclose(w, w_want, rtol=1e-14)
        np.testing.assert_allclose(step, step_want, rtol=1e-14)
    torch = pytest.importorskip("torch")
    tp = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    topt = torch.optim.Rprop([tp], lr=0.1)
    for g, (w, step) in zip(grads, seen):
        tp.grad = torch.tensor(g, dtype=torch.float64)
        topt.step()
        np.testing.assert_array_equal(w, tp.detach().numpy())
        np.testing.assert_array_equal(step, topt.state[tp]["step_size"].numpy())


@pytest.mark.parametrize("name, kwargs, message", [
    ("Rprop", {"step_sizes": (1.0, 0.5)}, r"step_sizes must be two numbers \(the smallest"),
    ("Rprop", {"step_sizes": 0.1}, "step_sizes must be two numbers"),
    ("Rprop", {"etas": 0.5}, "etas must be two numbers"),
    ("ASGD", {"lambd": -1.0}, "lambd must be >= 0"),
    ("ASGD", {"t0": float("nan")}, "t0 must be >= 0")])
def test_settings_torch_leaves_unchecked_are_checked(name, kwargs, message):
    """torch takes these without a word (a reversed step_sizes clamps every step to the
    max; a negative lambd grows the weights); tinyffn names the setting."""
    with pytest.raises(ValueError, match=f"{name}: {message}"):
        getattr(optim, name)([nn.Parameter(tinyffn.zeros(2))], **kwargs)
