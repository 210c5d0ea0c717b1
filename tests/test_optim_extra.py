"""RMSprop, Adagrad, NAdam, RAdam, Adamax and Adadelta (tinyffn/optim_extra.py) against
torch.optim: a small network trained 20 steps from the same weights, live where torch is
installed and against torch's numbers written out where it is not; saving and resuming;
the arguments torch refuses; a learning-rate schedule on them."""
import inspect

import numpy as np
import pytest

import tinyffn
from tinyffn import nn, optim
from tinyffn.optim import lr_scheduler

NAMES = ["RMSprop", "Adagrad", "NAdam", "RAdam", "Adamax", "Adadelta"]
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
}


def batch(t):
    """Step t's inputs (8, 3) and targets (8, 1)."""
    rng = np.random.default_rng(100 + t)
    return rng.normal(size=(8, 3)), rng.normal(size=(8, 1))


def train(lib, name, settings, steps=20, opt_state=None, start=0, weights=(W1, B1, W2),
          schedule=None):
    """``steps`` steps of ``lib.optim.<name>`` (lib tinyffn or torch) on a tanh network
    from ``weights``: w1, b1 in group 0 and w2 in group 1, each with its settings.
    Returns the weights, the optimizer and the lrs seen."""
    defaults, group0, group1 = settings
    ps = [lib.nn.Parameter(lib.tensor(w)) for w in weights]
    opt = getattr(lib.optim, name)([{"params": ps[:2], **group0},
                                    {"params": ps[2:], **group1}], **defaults)
    if opt_state is not None:
        opt.load_state_dict(opt_state)
    sched = schedule(opt) if schedule else None
    lrs = []
    for t in range(start, start + steps):
        x, y = (lib.tensor(a) for a in batch(t))
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
}


@pytest.mark.parametrize("name", NAMES)
def test_training_matches_torchs_numbers_written_out(name):
    """The second case of each, against torch's w2 pasted in: runs without torch."""
    (_, _, w2), _, _ = train(tinyffn, name, CASES[name][1])
    np.testing.assert_allclose(w2.ravel(), TORCH_W2[name], rtol=1e-9, atol=1e-12)
