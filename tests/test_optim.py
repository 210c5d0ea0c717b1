"""tinyffn.optim against the update equations of PyTorch's documentation, written out in
NumPy, plus the invariants an optimizer must keep (grads untouched, dtype kept)."""
import functools
import inspect

import numpy as np
import pytest

import tinyffn
from tinyffn import nn, optim
from tinyffn.backend import dtype_name

W0 = np.random.default_rng(0).normal(size=(2, 3))
GRADS = [np.random.default_rng(i + 1).normal(size=(2, 3)) for i in range(4)]


def run(make_optimizer, device, grads=GRADS, w0=W0):
    """Apply one step per gradient in ``grads`` to a parameter starting at ``w0``."""
    p = nn.Parameter(tinyffn.tensor(w0, device=device))
    idle = nn.Parameter(tinyffn.tensor(w0, device=device))      # never gets a gradient
    opt = make_optimizer([p, idle])
    for g in grads:
        opt.zero_grad()
        p.grad = tinyffn.tensor(g, device=device)
        opt.step()
    np.testing.assert_array_equal(idle.numpy(), w0)              # skipped: grad is None
    return p.numpy()


def sgd_reference(w, grads, lr, momentum=0.0, dampening=0.0, weight_decay=0.0,
                  nesterov=False, maximize=False):
    b = None
    for g in grads:
        g = (-g if maximize else g) + weight_decay * w
        if momentum:
            b = g if b is None else momentum * b + (1 - dampening) * g
            g = g + momentum * b if nesterov else b
        w = w - lr * g
    return w


def adam_reference(w, grads, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                   decoupled=False, amsgrad=False, maximize=False):
    beta1, beta2 = betas
    m, v, v_max = np.zeros_like(w), np.zeros_like(w), np.zeros_like(w)
    for t, g in enumerate(grads, start=1):
        g = -g if maximize else g
        if decoupled:
            w = w - lr * weight_decay * w
        else:
            g = g + weight_decay * w
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g ** 2
        v_max = np.maximum(v_max, v)
        m_hat, v_hat = m / (1 - beta1 ** t), (v_max if amsgrad else v) / (1 - beta2 ** t)
        w = w - lr * m_hat / (np.sqrt(v_hat) + eps)
    return w


SGD_SETTINGS = [
    {}, {"momentum": 0.9}, {"weight_decay": 0.1}, {"momentum": 0.5, "weight_decay": 0.01},
    {"momentum": 0.9, "dampening": 0.3}, {"momentum": 0.9, "nesterov": True},
    {"momentum": 0.5, "maximize": True, "weight_decay": 0.1},
]
ADAM_SETTINGS = [
    {}, {"weight_decay": 0.1}, {"betas": (0.8, 0.99), "eps": 1e-3}, {"amsgrad": True},
    {"maximize": True, "weight_decay": 0.1},
]


@pytest.mark.parametrize("settings", SGD_SETTINGS)
def test_sgd_matches_the_update_equations(settings, device):
    w = run(lambda ps: optim.SGD(ps, lr=0.1, **settings), device)
    np.testing.assert_allclose(w, sgd_reference(W0, GRADS, lr=0.1, **settings), rtol=1e-12)


@pytest.mark.parametrize("settings", ADAM_SETTINGS)
def test_adam_matches_the_update_equations(settings, device):
    w = run(lambda ps: optim.Adam(ps, lr=0.01, **settings), device)
    np.testing.assert_allclose(w, adam_reference(W0, GRADS, lr=0.01, **settings), rtol=1e-12)


@pytest.mark.parametrize("settings", [{}, {"weight_decay": 0.5}, {"amsgrad": True},
                                      {"maximize": True}])
def test_adamw_matches_the_update_equations(settings, device):
    w = run(lambda ps: optim.AdamW(ps, lr=0.01, **settings), device)
    expected = adam_reference(W0, GRADS, lr=0.01, decoupled=True,
                              **{"weight_decay": 0.01, **settings})
    np.testing.assert_allclose(w, expected, rtol=1e-12)


@pytest.mark.parametrize("settings", [{"weight_decay": 0.5}, {"maximize": True,
                                                              "weight_decay": 0.1}])
def test_adam_with_decoupled_weight_decay_is_adamw(settings, device):
    """PyTorch 2.13's ``Adam(decoupled_weight_decay=True)``, the setting AdamW's groups hold
    (a script passing it failed with a TypeError); switched off in a group, AdamW is Adam."""
    w = run(lambda ps: optim.Adam(ps, lr=0.01, decoupled_weight_decay=True, **settings), device)
    expected = adam_reference(W0, GRADS, lr=0.01, decoupled=True, **settings)
    np.testing.assert_allclose(w, expected, rtol=1e-12)
    assert not np.allclose(w, adam_reference(W0, GRADS, lr=0.01, **settings), rtol=1e-6)

    def coupled_adamw(ps):
        opt = optim.AdamW(ps, lr=0.01, **settings)
        assert opt.param_groups[0]["decoupled_weight_decay"] is True
        opt.param_groups[0]["decoupled_weight_decay"] = False
        return opt
    np.testing.assert_allclose(run(coupled_adamw, device),
                               adam_reference(W0, GRADS, lr=0.01, **settings), rtol=1e-12)


@pytest.mark.parametrize("make", [
    lambda ps: optim.AdamW(ps, lr=0.01, weight_decay=0.1),
    lambda ps: optim.Adam(ps, lr=0.01, weight_decay=0.1, decoupled_weight_decay=True),
    lambda ps: optim.NAdam(ps, lr=0.01, weight_decay=0.1, decoupled_weight_decay=True),
    lambda ps: optim.RAdam(ps, lr=0.01, weight_decay=0.1, decoupled_weight_decay=True),
    lambda ps: optim.Adafactor(ps, lr=0.01, weight_decay=0.1),
    lambda ps: optim.Muon(ps, lr=0.01, weight_decay=0.1),
], ids=["AdamW", "Adam", "NAdam", "RAdam", "Adafactor", "Muon"])
def test_decoupled_weight_decay_rounds_once_as_pytorch(make, device):
    """θ ← θ (1 − γλ), one float32 rounding, as PyTorch's ``param.mul_(1 - lr *
    weight_decay)``: θ − γλθ rounds twice, and float32 AdamW had drifted 4e-7 from torch's
    in 20 steps (6e-8, Adam's own, now). A zero gradient leaves the decay alone."""
    w0 = np.random.default_rng(3).normal(size=(16, 8)).astype(np.float32)
    p = nn.Parameter(tinyffn.tensor(w0, device=device))
    opt = make([p])
    p.grad = tinyffn.zeros(16, 8, dtype="float32", device=device)
    opt.step()
    expected = w0 * np.float32(1 - 0.01 * 0.1)
    assert not np.array_equal(expected, w0 - np.float32(0.01 * 0.1) * w0)   # they differ here
    np.testing.assert_array_equal(p.numpy(), expected)


@pytest.mark.parametrize("name, settings", [
    *[("SGD", {"lr": 0.1, **s}) for s in SGD_SETTINGS],
    *[("Adam", {"lr": 0.01, **s}) for s in ADAM_SETTINGS],
    ("Adam", {"lr": 0.01, "weight_decay": 0.5, "decoupled_weight_decay": True}),
    ("AdamW", {"lr": 0.01}), ("AdamW", {"lr": 0.01, "amsgrad": True, "maximize": True}),
])
def test_optimizers_match_pytorch(name, settings):
    """Eight steps on the same gradients, against torch.optim itself (skipped without it)."""
    torch = pytest.importorskip("torch")
    grads = [np.random.default_rng(10 + i).normal(size=W0.shape) for i in range(8)]
    w = run(lambda ps: getattr(optim, name)(ps, **settings), "cpu", grads=grads)
    p = torch.nn.Parameter(torch.tensor(W0))
    opt = getattr(torch.optim, name)([p], **settings)
    for g in grads:
        p.grad = torch.tensor(g)
        opt.step()
    np.testing.assert_allclose(w, p.detach().numpy(), rtol=1e-10, atol=1e-14)


def test_sgd_momentum_by_hand():
    # g = 1 twice, lr 0.1, momentum 0.9: b = 1 then 0.9 + 1 = 1.9; w = 1 - 0.1 - 0.19
    w = run(lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9), "cpu",
            grads=[np.ones((1,)), np.ones((1,))], w0=np.ones((1,)))
    np.testing.assert_allclose(w, [0.71], rtol=1e-12)


def test_adam_first_step_is_lr_times_the_sign():
    g = np.array([[3.0, -0.02, 1e3]])
    w = run(lambda ps: optim.Adam(ps, lr=0.1), "cpu", grads=[g], w0=np.zeros((1, 3)))
    np.testing.assert_allclose(w, -0.1 * np.sign(g), rtol=1e-5)


def test_adamw_decay_is_decoupled_from_the_gradient_scale():
    # with a zero gradient Adam's step is 0, so AdamW only shrinks w by lr·λ per step ...
    w0 = np.array([2.0, -4.0])
    zero = [np.zeros(2)] * 3
    w = run(lambda ps: optim.AdamW(ps, lr=0.1, weight_decay=0.5), "cpu", grads=zero, w0=w0)
    np.testing.assert_allclose(w, w0 * (1 - 0.1 * 0.5) ** 3, rtol=1e-12)
    # ... while Adam's L2 term goes through the normalisation: about lr per step, any w
    w = run(lambda ps: optim.Adam(ps, lr=0.1, weight_decay=0.5), "cpu", grads=zero[:1], w0=w0)
    np.testing.assert_allclose(w, w0 - 0.1 * np.sign(w0), rtol=1e-6)


@pytest.mark.parametrize("make", [
    lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.1),
    lambda ps: optim.Adam(ps, weight_decay=0.1),
    lambda ps: optim.AdamW(ps),
], ids=["sgd", "adam", "adamw"])
def test_step_leaves_grads_alone_and_keeps_the_dtype(make, device):
    a = nn.Parameter(tinyffn.randn(2, 3, device=device))
    b = nn.Parameter(tinyffn.randn(2, 3, device=device))
    shared = tinyffn.randn(2, 3, device=device)
    a.grad = b.grad = shared                                  # two parameters, one gradient array
    array, values = shared.data, shared.numpy()
    a0, b0 = a.numpy(), b.numpy()
    opt = make([a, b])
    opt.step()
    opt.step()
    assert a.grad.data is array
    np.testing.assert_array_equal(shared.numpy(), values)
    assert dtype_name(a.dtype) == "float32" and a.device == device
    # both moved, and by the same amounts as each would alone
    alone = nn.Parameter(tinyffn.tensor(a0, device=device))
    alone.grad = tinyffn.tensor(values, device=device)
    opt_alone = make([alone])
    opt_alone.step()
    opt_alone.step()
    np.testing.assert_allclose(a.numpy(), alone.numpy(), rtol=1e-6)
    assert not np.array_equal(b.numpy(), b0)


def test_zero_grad_forgets_gradients():
    ffn = nn.FFN(2)
    opt = optim.SGD(ffn.parameters(), lr=0.1)
    ffn(tinyffn.randn(3, 2)).sum().backward()
    grads = [p.grad for p in ffn.parameters()]
    opt.zero_grad(set_to_none=False)                   # zeros in place, as torch's zero_()
    for p, g in zip(ffn.parameters(), grads):
        np.testing.assert_array_equal(p.grad.numpy(), np.zeros(p.shape, np.float32))
        assert p.grad is g
    opt.zero_grad()
    assert all(p.grad is None for p in ffn.parameters())


def test_a_mismatched_grad_or_stale_state_is_refused_not_promoted():
    p = nn.Parameter(tinyffn.zeros(2))                 # float32
    with pytest.raises(RuntimeError, match=r"grad: assigned a float64 gradient of shape \(2,\) "
                                           r"on cpu to a float32 tensor"):
        p.grad = tinyffn.ones(2, dtype="float64")
    p.grad = tinyffn.ones(2)
    p.data = np.zeros(2)                               # float64 data under a float32 grad
    with pytest.raises(RuntimeError, match=r"SGD.step: parameter 0 is float64 of shape \(2,\) "
                                           r"on cpu but its grad is float32"):
        optim.SGD([p], lr=0.1).step()
    assert dtype_name(p.dtype) == "float64"
    # state made in float64, then the model moved to float32: NumPy would promote it back
    for make in (lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9), optim.Adam, optim.AdamW):
        lin = nn.Linear(3, 2, dtype="float64")
        opt = make(lin.parameters())
        lin(tinyffn.ones(3, dtype="float64")).sum().backward()
        opt.step()
        lin.to(dtype="float32")
        opt.zero_grad()
        lin(tinyffn.ones(3)).sum().backward()
        with pytest.raises(RuntimeError, match=r"parameter 0 is now float32 .* state \('\w+'\) "
                                               r"was made for float64 .* create the optimizer "
                                               r"after model.to"):
            opt.step()
        assert dtype_name(lin.weight.dtype) == "float32"
    # a state of another shape (p.data = t of a new shape): it broadcast into the new one
    p = nn.Parameter(tinyffn.ones(3))                  # torch 2.13: "output with shape [3]
    opt = optim.Adam([p])                              # doesn't match the broadcast shape"
    (p * p).sum().backward()
    opt.step()
    p.grad = None
    p.data, p.grad = tinyffn.ones(2, 3), tinyffn.ones(2, 3)
    with pytest.raises(RuntimeError, match=r"Adam.step: parameter 0 is now float32 of shape "
                                           r"\(2, 3\).* made for float32 of shape \(3,\)"):
        opt.step()


def test_a_0d_parameter_stays_an_array():
    p = nn.Parameter(tinyffn.tensor(2.0))
    (p * p).backward()
    optim.SGD([p], lr=0.25).step()                     # 2 - 0.25 · 4 = 1
    assert p.data.shape == () and hasattr(p.data, "ndim") and p.item() == 1.0


def test_optimizer_errors():
    with pytest.raises(ValueError, match="SGD: got an empty parameter list"):
        optim.SGD([], lr=0.1)
    p = nn.Parameter(tinyffn.zeros(2))
    with pytest.raises(ValueError, match="SGD: lr must be >= 0, got -1"):
        optim.SGD([p], lr=-1)
    with pytest.raises(ValueError, match=r"Adam: betas must be two numbers in \[0, 1\)"):
        optim.Adam([p], betas=(0.9, 1.0))
    with pytest.raises(TypeError, match=r"AdamW: parameter 1 is not a tinyffn tensor \(got numpy\.ndarray\)"):
        optim.AdamW([p, np.zeros(2)])
    with pytest.raises(ValueError, match="SGD: parameter 0 was computed by mul; an optimizer "
                                         "updates leaves"):
        optim.SGD([p * 2])
    with pytest.raises(TypeError, match=r"SGD: lr must be a number, got Tensor; pass "
                                        r"lr\.item\(\)"):
        optim.SGD([p], lr=tinyffn.tensor(0.1))          # p.data became a Tensor
    with pytest.raises(TypeError, match="Adam: eps must be a number, got str"):
        optim.Adam([p], eps="1e-8")
    with pytest.raises(ValueError, match=r"AdamW: betas must be two numbers in \[0, 1\)"):
        optim.AdamW([p], betas="ab")
    assert type(optim.SGD([p], lr=np.float64(0.1)).lr) is float   # keeps float32 weights
    q = nn.Parameter(tinyffn.zeros(2))
    with pytest.raises(ValueError, match="SGD: nesterov=True needs momentum > 0 and "
                                         "dampening = 0"):
        optim.SGD([p], nesterov=True)
    with pytest.raises(TypeError, match="Adam: amsgrad must be True or False, got 'yes'"):
        optim.Adam([p], amsgrad="yes")
    with pytest.raises(ValueError, match="SGD: parameter 2 is parameter 0 again; pass each "
                                         "parameter once"):
        optim.SGD([p, q, p], lr=0.1)                    # step() would move p twice
    opt = optim.SGD([p], lr=0.1)
    p.grad = tinyffn.zeros(2)
    p.data = np.zeros(3, dtype=np.float32)             # the data reshaped under its grad
    with pytest.raises(RuntimeError, match=r"SGD.step: parameter 0 is float32 of shape \(3,\) on "
                                           r"cpu but its grad is float32 of shape \(2,\)"):
        opt.step()


def test_a_float32_model_stays_float32_on_float64_data():
    ffn = nn.FFN(2)
    opt = optim.Adam(ffn.parameters())
    x = tinyffn.randn(4, 2, dtype="float64")                 # the data is float64 ...
    loss = ((ffn(x) - x) ** 2).mean()
    assert dtype_name(loss.dtype) == "float64"
    loss.backward()
    opt.step()
    for p in ffn.parameters():                               # ... the parameters stay float32
        assert dtype_name(p.grad.dtype) == "float32" and dtype_name(p.dtype) == "float32"


@pytest.mark.parametrize("make", [lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9),
                                  lambda ps: optim.Adam(ps, lr=0.1)], ids=["sgd", "adam"])
def test_a_0d_parameter_trains_for_many_steps(make):
    """NumPy's 0-d results are scalars: the state check once refused them at step 2."""
    p = nn.Parameter(tinyffn.tensor(2.0))
    opt = make([p])
    for _ in range(5):
        opt.zero_grad()
        (p * p).backward()
        opt.step()
    assert abs(p.item()) < 2.0 and p.data.shape == ()


def test_a_learning_rate_set_later_is_checked_and_kept_a_python_float():
    """A schedule's np.float64 learning rate once made float32 weights float64."""
    p = nn.Parameter(tinyffn.ones(2))
    opt = optim.SGD([p], lr=0.1)
    opt.lr = np.float64(0.05)
    assert type(opt.lr) is float
    p.grad = tinyffn.ones(2)
    opt.step()
    assert dtype_name(p.dtype) == "float32"
    np.testing.assert_allclose(p.numpy(), [0.95, 0.95], rtol=1e-7)
    with pytest.raises(ValueError, match="SGD: lr must be >= 0, got -1"):
        opt.lr = -1
    assert "\n    lr: 0.05\n    maximize: False\n    momentum: 0.0\n" in repr(opt)   # torch's repr


@pytest.mark.parametrize("name, settings, schedule", [
    ("SGD", {"lr": 0.1, "momentum": 0.9}, {2: {"lr": 0.05}, 4: {"momentum": 0.5}}),
    ("Adam", {"lr": 0.01}, {1: {"lr": 0.02}, 3: {"betas": (0.8, 0.99), "eps": 1e-6}}),
    ("AdamW", {"lr": 0.01}, {2: {"weight_decay": 0.1}, 5: {"lr": 0.001}}),
])
def test_param_groups_schedule_as_in_pytorch(name, settings, schedule):
    """``for g in opt.param_groups: g[key] = value`` between steps, against torch.optim."""
    torch = pytest.importorskip("torch")
    grads = [np.random.default_rng(20 + i).normal(size=W0.shape) for i in range(7)]
    p, t = nn.Parameter(tinyffn.tensor(W0)), torch.nn.Parameter(torch.tensor(W0))
    opts = getattr(optim, name)([p], **settings), getattr(torch.optim, name)([t], **settings)
    for step, g in enumerate(grads):
        for opt in opts:
            for group in opt.param_groups:
                group.update(schedule.get(step, {}))
        p.grad, t.grad = tinyffn.tensor(g), torch.tensor(g)
        for opt in opts:
            opt.step()
    np.testing.assert_allclose(p.numpy(), t.detach().numpy(), rtol=1e-10, atol=1e-14)
    group = opts[0].param_groups[0]
    assert group["params"][0] is p and set(group) == set(opts[1].param_groups[0]) - {
        "foreach", "differentiable", "fused", "capturable", "initial_lr"}


def test_param_groups_changes_are_checked_and_kept_consistent():
    p = nn.Parameter(tinyffn.ones(2))
    opt = optim.Adam([p], lr=0.1)
    (group,) = opt.param_groups
    with pytest.raises(ValueError, match="Adam: lr must be >= 0, got -1"):
        group["lr"] = -1
    with pytest.raises(KeyError, match="'momentum' is not a setting of this optimizer; its "
                                       "settings are lr, betas, eps"):
        group["momentum"] = 0.9
    with pytest.raises(KeyError, match="the parameters are fixed: make a new optimizer"):
        group["params"] = [nn.Parameter(tinyffn.ones(2))]
    group.update(dict(group))                           # the same parameters: no change
    group["amsgrad"] = True                             # before the first step: fine
    p.grad = tinyffn.ones(2)
    opt.step()
    with pytest.raises(ValueError, match=r"amsgrad=False changes what the optimizer keeps "
                                         r"per parameter \(\['exp_avg', 'exp_avg_sq', "
                                         r"'max_exp_avg_sq', 'step'\] -> "):
        group["amsgrad"] = False
    assert opt.amsgrad is True and opt.lr == 0.1 and opt.param_groups[0]["lr"] == 0.1
    stepped = optim.Adam([p], lr=0.1)
    stepped.step()
    with pytest.raises(ValueError, match=r"amsgrad=True changes what the optimizer keeps"):
        stepped.param_groups[0]["amsgrad"] = True          # growing the state, too


def test_param_groups_update_checks_settings_together_and_lr_alone():
    """``update`` is one change (Nesterov needs momentum, so both go at once); ``lr``
    needs no constructor, so a subclass whose constructor takes lr alone still schedules."""
    p = nn.Parameter(tinyffn.ones(2))
    opt = optim.SGD([p], lr=0.1, momentum=0.9, nesterov=True)
    opt.param_groups[0].update(momentum=0.0, nesterov=False)
    assert (opt.momentum, opt.nesterov) == (0.0, False)
    with pytest.raises(ValueError, match="nesterov=True needs momentum > 0"):
        opt.param_groups[0].update({"nesterov": True})

    class PlainSGD(optim.SGD):
        def __init__(self, params, lr=0.1):
            super().__init__(params, lr=lr)

    plain = PlainSGD([p])
    for group in plain.param_groups:
        group["lr"] = 0.2
    assert plain.lr == 0.2


@pytest.mark.parametrize("name, settings",
                         [("SGD", s) for s in SGD_SETTINGS] + [("Adam", s) for s in ADAM_SETTINGS])
def test_state_survives_gradients_zeroed_and_accumulated_in_place(name, settings):
    """zero_grad(set_to_none=False) zeros p.grad's array and backward() adds into it; SGD's
    momentum buffer once was that array, so the next zero_grad wiped the momentum."""
    lr = 0.1
    p = nn.Parameter(tinyffn.tensor(W0))
    opt = getattr(optim, name)([p], lr=lr, **settings)
    for g in GRADS:
        opt.zero_grad(set_to_none=False)
        (p * tinyffn.tensor(g)).sum().backward()         # dL/dp = g, added into p.grad
        opt.step()
    reference = sgd_reference if name == "SGD" else adam_reference
    np.testing.assert_allclose(p.numpy(), reference(W0, GRADS, lr, **settings), rtol=1e-12)


def test_a_frozen_parameter_is_accepted_and_left_alone():
    """Fine-tuning freezes some parameters with requires_grad_(False), then passes
    model.parameters(), as in PyTorch."""
    ffn = nn.FFN(2)
    ffn.w1.weight.requires_grad_(False)
    frozen = ffn.w1.weight.numpy()
    opt = optim.SGD(ffn.parameters(), lr=0.1)
    ffn(tinyffn.randn(3, 2)).sum().backward()
    opt.step()
    assert ffn.w1.weight.grad is None
    np.testing.assert_array_equal(ffn.w1.weight.numpy(), frozen)
    assert ffn.w1.bias.grad is not None


def train_mse(model, opt, steps, device="cpu"):
    """One SGD-style step per i in ``steps`` on an MSE loss, batch i drawn from seed i."""
    for i in steps:
        rng = np.random.default_rng(i)
        x, y = (tinyffn.tensor(rng.standard_normal((5, 3)), dtype="float32", device=device)
                for _ in range(2))
        opt.zero_grad()
        ((model(x) - y) ** 2).mean().backward()
        opt.step()


@pytest.mark.parametrize("make", [
    lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True),
    lambda ps: optim.Adam(ps, lr=0.05, amsgrad=True),
    lambda ps: optim.AdamW(ps, lr=0.05, weight_decay=0.1),
], ids=["sgd", "adam", "adamw"])
def test_training_resumes_exactly_from_saved_states(make, device):
    """Three steps, save model and optimizer, two more steps; a fresh model and optimizer
    loaded from the saves take the same two steps to the same numbers."""
    tinyffn.manual_seed(0)
    model = nn.FFN(3).to(device)
    opt = make(model.parameters())
    train_mse(model, opt, range(3), device)
    saved_model, saved_opt = model.state_dict(), opt.state_dict()
    train_mse(model, opt, range(3, 5), device)
    tinyffn.manual_seed(1)                                   # other initial weights
    resumed = nn.FFN(3).to(device)
    resumed.load_state_dict(saved_model)
    resumed_opt = make(resumed.parameters())
    resumed_opt.lr = 123.0                                   # overwritten by the load
    resumed_opt.load_state_dict(saved_opt)
    assert resumed_opt.lr == opt.lr
    train_mse(resumed, resumed_opt, range(3, 5), device)
    for (name, a), b in zip(model.named_parameters(), resumed.parameters()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=name)


def test_a_saved_optimizer_state_is_a_copy_and_is_checked_on_loading():
    p = nn.Parameter(tinyffn.zeros(2))
    opt = optim.Adam([p], lr=0.1)
    p.grad = tinyffn.ones(2)
    opt.step()
    saved = opt.state_dict()
    assert saved["param_groups"][0]["lr"] == 0.1 and saved["state"][0]["step"] == 1
    opt.step()
    np.testing.assert_allclose(saved["state"][0]["exp_avg"].numpy(), [0.1, 0.1])    # not 0.19
    snapshot = opt.state_dict()
    snapshot["state"][0]["exp_avg"].data[...] = 123.0     # editing a snapshot, the other way round,
    np.testing.assert_allclose(opt.state[p]["exp_avg"], [0.19, 0.19])   # leaves the optimizer alone
    with pytest.raises(ValueError, match=r"state is for 1 parameters in 1 group\(s\); this "
                                         "optimizer has one group of 2"):
        optim.Adam([p, nn.Parameter(tinyffn.zeros(1))]).load_state_dict(saved)
    with pytest.raises(ValueError, match=r"SGD.load_state_dict: parameter 0's state has "
                                         r"\['exp_avg', 'exp_avg_sq', 'step'\]; SGD as "
                                         r"configured keeps \['momentum_buffer'\]"):
        optim.SGD([p], lr=0.1, momentum=0.9).load_state_dict(
            {"state": saved["state"], "param_groups": [{"lr": 0.1, "momentum": 0.9, "params": [0]}]})
    saved["param_groups"][0]["lr"] = -1.0
    with pytest.raises(ValueError, match="Adam: lr must be >= 0, got -1"):
        optim.Adam([p]).load_state_dict(saved)
    saved["param_groups"][0]["lr"] = 0.1
    saved["state"][0]["exp_avg"] = tinyffn.zeros(3)
    with pytest.raises(ValueError, match=r"state 'exp_avg' of parameter 0 has shape \(3,\), the "
                                         r"parameter \(2,\)"):
        optim.Adam([p]).load_state_dict(saved)


def test_loading_a_state_from_another_optimizer_is_refused():
    p = nn.Parameter(tinyffn.zeros(2))
    adamw = optim.AdamW([p])
    p.grad = tinyffn.ones(2)
    adamw.step()
    saved = adamw.state_dict()
    with pytest.raises(ValueError, match="Adam.load_state_dict: the state was saved by AdamW; "
                                         "load it into AdamW"):
        optim.Adam([p]).load_state_dict(saved)          # same keys, other weight decay
    torch_like = {"state": {}, "param_groups": [{"lr": 1e-3, "foreach": None, "params": [0]}]}
    with pytest.raises(ValueError, match=r"the saved hyperparameters \['foreach'\] are not "
                                         r"SGD's .* or by torch.optim, does not load"):
        optim.SGD([p], lr=0.1).load_state_dict(torch_like)
    saved["state"][0]["step"] = np.int64(1)             # a count, however it was stored
    resumed = optim.AdamW([p])
    resumed.load_state_dict(saved)
    assert type(resumed.state[p]["step"]) is int and resumed.state[p]["step"] == 1


def test_a_loaded_state_must_be_one_the_optimizer_could_have_made():
    p = nn.Parameter(tinyffn.zeros(2))
    adam = optim.Adam([p], amsgrad=True)
    p.grad = tinyffn.ones(2)
    adam.step()
    for edit, message in [(lambda s: s["state"][0].update(step=-1), r"step of parameter 0 "
                           r"must be a whole number >= 0, got -1"),
                          (lambda s: s["state"][0].update(step=2.7), r"got 2.7"),
                          (lambda s: s["state"][0].pop("exp_avg"),
                           r"state has \['exp_avg_sq', 'max_exp_avg_sq', 'step'\]; Adam as "
                           r"configured keeps \['exp_avg', 'exp_avg_sq', 'max_exp_avg_sq', "
                           r"'step'\]"),
                          (lambda s: s["state"][0].pop("max_exp_avg_sq"),
                           r"keeps \['exp_avg', 'exp_avg_sq', 'max_exp_avg_sq', 'step'\]")]:
        saved = adam.state_dict()
        edit(saved)
        with pytest.raises(ValueError, match=message):
            optim.Adam([p]).load_state_dict(saved)
    saved = adam.state_dict()
    saved["state"][0]["step"] = np.float64(1.0)           # a whole number, however stored
    resumed = optim.Adam([p])
    resumed.load_state_dict(saved)
    assert resumed.amsgrad and resumed.state[p]["step"] == 1
    # the smallest count: step 0 with zero moments is a fresh state (torch loads it too),
    # so the next step is Adam's first, -lr g / (|g| + eps) for the gradient of ones
    saved = adam.state_dict()
    zeros = tinyffn.zeros(2)
    saved["state"][0].update(step=0, exp_avg=zeros, exp_avg_sq=zeros, max_exp_avg_sq=zeros)
    resumed = optim.Adam([p], amsgrad=True)
    resumed.load_state_dict(saved)
    before = p.numpy()
    resumed.step()
    np.testing.assert_allclose(p.numpy(), before - 1e-3, rtol=0, atol=1e-9)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW"])
def test_default_hyperparameters_match_torch(name):
    torch = pytest.importorskip("torch")
    w0 = np.random.default_rng(0).normal(size=(2, 3))
    grads = [np.random.default_rng(i).normal(size=(2, 3)) for i in range(3)]
    p = nn.Parameter(tinyffn.tensor(w0))
    tp = torch.nn.Parameter(torch.tensor(w0))
    opt, topt = getattr(optim, name)([p]), getattr(torch.optim, name)([tp])
    for g in grads:
        p.grad, tp.grad = tinyffn.tensor(g), torch.tensor(g)
        opt.step()
        topt.step()
    np.testing.assert_allclose(p.numpy(), tp.detach().numpy(), rtol=1e-10, atol=1e-14)


def test_momentum_buffer_is_not_the_grad_array():
    p = nn.Parameter(tinyffn.zeros(2))
    opt = optim.SGD([p], lr=0.1, momentum=0.9)
    p.grad = tinyffn.ones(2)
    opt.step()
    p.grad.data *= 0.0                   # e.g. in-place clipping/zeroing of the old grad
    p.grad = tinyffn.ones(2)
    opt.step()                           # b = 0.9·1 + 1 = 1.9 ; w = -0.1 - 0.19
    np.testing.assert_allclose(p.numpy(), [-0.29, -0.29], rtol=1e-6)


def test_nesterov_with_dampening_is_refused_as_in_torch():
    torch = pytest.importorskip("torch")
    p = nn.Parameter(tinyffn.zeros(2))
    with pytest.raises(ValueError):
        torch.optim.SGD([torch.nn.Parameter(torch.zeros(2))], lr=0.1, momentum=0.9,
                        dampening=0.1, nesterov=True)
    with pytest.raises(ValueError, match="nesterov=True needs momentum > 0 and dampening = 0"):
        optim.SGD([p], lr=0.1, momentum=0.9, dampening=0.1, nesterov=True)


def test_numpy_float64_betas_keep_float32_weights():
    p = nn.Parameter(tinyffn.ones(2))
    opt = optim.Adam([p], betas=(np.float64(0.9), np.float64(0.999)))
    for _ in range(2):
        p.grad = tinyffn.ones(2)
        opt.step()
    assert dtype_name(p.dtype) == "float32"


def test_bools_are_not_numbers_and_ints_are_not_flags():
    p = nn.Parameter(tinyffn.zeros(2))
    with pytest.raises(TypeError, match="lr must be a number, got bool"):
        optim.SGD([p], lr=True)
    with pytest.raises(TypeError, match="nesterov must be True or False, got 1"):
        optim.SGD([p], lr=0.1, momentum=0.9, nesterov=1)


def test_a_state_for_permuted_parameters_is_refused():
    p, q = nn.Parameter(tinyffn.zeros(2)), nn.Parameter(tinyffn.zeros(3))
    saved = optim.SGD([p, q], lr=0.1).state_dict()
    saved["param_groups"][0]["params"] = [1, 0]
    with pytest.raises(ValueError, match="this optimizer has one group of 2"):
        optim.SGD([p, q], lr=0.1).load_state_dict(saved)


@pytest.mark.parametrize("name, key, value", [("SGD", "momentum", np.float64(0.8)),
                                              ("Adam", "betas", (np.float64(0.8), np.float64(0.99))),
                                              ("Adam", "eps", np.float64(1e-6))])
def test_a_setting_written_through_param_groups_keeps_float32_weights(name, key, value):
    p = nn.Parameter(tinyffn.ones(2))
    opt = getattr(optim, name)([p], lr=0.1, **({"momentum": 0.9} if name == "SGD" else {}))
    opt.param_groups[0][key] = value                  # a schedule's NumPy number
    for _ in range(2):
        p.grad = tinyffn.ones(2)
        opt.step()
    assert dtype_name(p.dtype) == "float32"


def test_a_param_group_counts_its_keys():
    g = optim.SGD([nn.Parameter(tinyffn.ones(2))], lr=0.1).param_groups[0]
    assert len(g) == len(list(g)) == len(dict(g))


def test_state_is_keyed_by_parameter_as_in_pytorch():
    """opt.state[p] is how PyTorch code reads an optimizer's moments; it was a list."""
    w, unused = nn.Parameter(tinyffn.tensor([1.0, -2.0])), nn.Parameter(tinyffn.zeros(3))
    opt = optim.Adam([w, unused], lr=0.1)
    w.grad = tinyffn.tensor([0.5, -1.0])
    opt.step()
    assert [id(p) for p in opt.state] == [id(w), id(unused)]
    assert opt.state[unused] == {}                                        # no gradient yet
    assert opt.state[w]["step"] == 1
    np.testing.assert_allclose(opt.state[w]["exp_avg"], [0.05, -0.1])           # (1 - β1) g
    np.testing.assert_allclose(opt.state[w]["exp_avg_sq"], [0.00025, 0.001])       # (1 - β2) g²
    sgd = optim.SGD([w], lr=0.1, momentum=0.9)
    sgd.step()
    np.testing.assert_allclose(sgd.state[w]["momentum_buffer"], [0.5, -1.0])
    resumed = optim.Adam([w, unused], lr=0.1)
    resumed.load_state_dict(opt.state_dict())
    np.testing.assert_allclose(resumed.state[w]["exp_avg_sq"], [0.00025, 0.001])
    assert resumed.state[unused] == {}


def test_state_dict_numbers_parameters_by_their_place_not_the_states_order():
    """opt.state.pop(p) (PyTorch's way to reset one parameter's moments) made step() a
    KeyError, and putting the state back moved p to the end of the dict: state_dict then
    gave a's momentum to b and b's to a."""
    a = nn.Parameter(tinyffn.tensor([1.0, 2.0]))
    b = nn.Parameter(tinyffn.tensor([3.0, 4.0]))
    opt = optim.SGD([a, b], lr=0.1, momentum=0.9)
    a.grad, b.grad = tinyffn.tensor([1.0, 1.0]), tinyffn.tensor([100.0, 100.0])
    opt.step()
    saved = opt.state.pop(a)
    opt.step()                                          # a starts again: buffer = g
    np.testing.assert_array_equal(opt.state[a]["momentum_buffer"], [1.0, 1.0])
    opt.state.pop(a)
    opt.state[a] = saved                                # now last in the dict
    state = opt.state_dict()["state"]
    np.testing.assert_array_equal(state[0]["momentum_buffer"].numpy(), [1.0, 1.0])
    np.testing.assert_array_equal(state[1]["momentum_buffer"].numpy(), [190.0, 190.0])


def test_default_hyperparameters_are_torchs_even_without_torch():
    """torch.optim's defaults (PyTorch 2.13), written out: the comparison with torch above
    is skipped where torch is missing."""
    p = nn.Parameter(tinyffn.zeros(2))
    assert optim.SGD([p]).hyperparameters() == {
        "lr": 1e-3, "momentum": 0.0, "dampening": 0.0, "weight_decay": 0.0,
        "nesterov": False, "maximize": False}
    adam = {"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0.0,
            "amsgrad": False, "maximize": False, "decoupled_weight_decay": False}
    assert optim.Adam([p]).hyperparameters() == adam
    assert optim.AdamW([p]).hyperparameters() == {**adam, "weight_decay": 0.01,
                                                   "decoupled_weight_decay": True}
    # and they are the ones used: one SGD step moves w by 1e-3 g
    w = run(optim.SGD, "cpu", grads=[np.array([2.0, -4.0])], w0=np.zeros(2))
    np.testing.assert_allclose(w, [-2e-3, 4e-3], rtol=1e-12)


def test_nesterov_with_dampening_is_refused_even_without_torch():
    p = nn.Parameter(tinyffn.zeros(2))
    with pytest.raises(ValueError, match="nesterov=True needs momentum > 0 and dampening = 0, "
                                         "got momentum=0.9, dampening=0.1"):
        optim.SGD([p], lr=0.1, momentum=0.9, dampening=0.1, nesterov=True)


@pytest.mark.parametrize("name, key", [("SGD", "lr"), ("SGD", "momentum"),
                                       ("SGD", "weight_decay"), ("Adam", "eps"),
                                       ("AdamW", "weight_decay")])
def test_a_nan_hyperparameter_is_refused(name, key):
    """NaN >= 0 is False, but so is NaN < 0: a check written ``value < 0`` lets a NaN
    through, and the first step makes every weight NaN."""
    p = nn.Parameter(tinyffn.zeros(2))
    with pytest.raises(ValueError, match=f"{name}: {key} must be >= 0, got nan"):
        getattr(optim, name)([p], **{key: float("nan")})


@pytest.mark.parametrize("make", [
    lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1,
                         maximize=True),
    lambda ps: optim.Adam(ps, lr=0.01, betas=(0.8, 0.99), eps=1e-6, amsgrad=True,
                          maximize=True),
    lambda ps: optim.AdamW(ps, lr=0.01, weight_decay=0.1, maximize=True),
], ids=["sgd", "adam", "adamw"])
def test_every_setting_survives_saving_and_loading(make):
    """A loaded state replaces all hyperparameters: one missing from state_dict (here
    maximize) would silently fall back to its default and train the other way."""
    p, q = nn.Parameter(tinyffn.tensor(W0)), nn.Parameter(tinyffn.tensor(W0))
    saved = make([p])
    keywords = set(inspect.signature(type(saved).__init__).parameters) - {"self"}
    if isinstance(saved, optim.AdamW):      # fixed, not a keyword, but in its groups (PyTorch's)
        keywords.add("decoupled_weight_decay")
    assert set(saved.state_dict()["param_groups"][0]) == keywords    # params and every setting
    default = type(saved)([q])
    default.load_state_dict(saved.state_dict())
    assert default.hyperparameters() == saved.hyperparameters()
    for g in GRADS[:2]:                                 # and they take the same steps
        p.grad, q.grad = tinyffn.tensor(g), tinyffn.tensor(g)
        saved.step()
        default.step()
    np.testing.assert_array_equal(q.numpy(), p.numpy())


def test_a_loaded_state_is_copied_in_the_parameters_dtype():
    """Moments saved from a float64 model load into a float32 one as float32 copies."""
    p64 = nn.Parameter(tinyffn.tensor(W0))
    opt64 = optim.Adam([p64], lr=0.01)
    p64.grad = tinyffn.tensor(GRADS[0])
    opt64.step()
    saved = opt64.state_dict()
    p = nn.Parameter(tinyffn.tensor(p64.numpy(), dtype="float32"))     # the model's values
    opt = optim.Adam([p], lr=0.01)
    opt.load_state_dict(saved)
    state = opt.state[p]
    assert dtype_name(state["exp_avg"].dtype) == dtype_name(state["exp_avg_sq"].dtype) == "float32"
    saved["state"][0]["exp_avg"].data[...] = 123.0          # editing the checkpoint afterwards
    assert not np.any(opt.state[p]["exp_avg"] == 123.0)
    p.grad = tinyffn.tensor(GRADS[1], dtype="float32")
    opt.step()                                              # no stale-state error, no float64
    assert dtype_name(p.dtype) == "float32"
    expected = adam_reference(W0, GRADS[:2], lr=0.01)
    np.testing.assert_allclose(p.numpy(), expected, rtol=1e-5)


def test_a_state_dict_lists_only_the_parameters_with_state_as_pytorchs():
    """PyTorch's state_dict()["state"] has an entry for a parameter once a step has updated
    it; a parameter that never had a gradient has none, not an empty one."""
    a, b = nn.Parameter(tinyffn.ones(2)), nn.Parameter(tinyffn.ones(3))
    opt = optim.Adam([a, b], lr=0.1)
    assert opt.state_dict()["state"] == {}
    (a * 2.0).sum().backward()
    opt.step()
    saved = opt.state_dict()
    assert list(saved["state"]) == [0] and saved["state"][0]["step"] == 1
    resumed = optim.Adam([a, b], lr=0.1)
    resumed.load_state_dict(saved)
    assert resumed.state[b] == {} and resumed.state[a]["step"] == 1


# ----------------------------------------------------------------------- parameter groups
A0 = np.array([[0.5, -1.0], [1.5, 2.0]])
B0 = np.array([0.25, -0.75, 1.0])


def group_grads(t):
    """The gradients of step t for a (2, 2) and b (3,): exact in binary, no generator."""
    return (np.array([[1.0, -2.0], [0.5, 3.0]]) * (-1.0) ** t + 0.25 * t,
            np.array([-1.5, 0.5, 2.0]) - 0.5 * t)


# optimizer, constructor settings, the settings of a's group and of b's
GROUP_CASES = {
    "SGD": ({"lr": 0.1, "momentum": 0.9},
            [{"weight_decay": 0.1}, {"lr": 0.05, "momentum": 0.5, "nesterov": True}]),
    "Adam": ({"lr": 0.01},
             [{"betas": (0.8, 0.99)}, {"lr": 0.02, "weight_decay": 0.1, "amsgrad": True}]),
    "AdamW": ({"lr": 0.01, "betas": (0.9, 0.95)},
              [{"weight_decay": 0.1}, {"lr": 0.03, "weight_decay": 0.0}]),
}
# torch.optim's a and b after the five steps of run_groups (PyTorch 2.13.0, CPU, float64)
TORCH_GROUP_RESULTS = {
    "SGD": ([[-0.25907565305, -0.8591088688999999], [0.73046134335, 0.5767635037999997]],
            [1.35078125, -0.5523437499999999, 0.5203125000000001]),
    "Adam": ([[0.4741340397624698, -0.9935440381712751], [1.465954968393373, 1.9820317603887356]],
             [0.3498806836840011, -0.7481330566116092, 0.9086212184161712]),
    "AdamW": ([[0.4718120848433918, -0.9871429445654232],
               [1.4594485079372985, 1.9715286251890205]],
              [0.3985722343712389, -0.7623867449795214, 0.8626169219743727]),
}


def run_groups(module, name, steps=5):
    """Five steps of ``module.optim.<name>`` (tinyffn's or torch's) on a and b, each in its
    own group with the settings of GROUP_CASES."""
    defaults, (settings_a, settings_b) = GROUP_CASES[name]
    if module is optim:
        a, b = nn.Parameter(tinyffn.tensor(A0)), nn.Parameter(tinyffn.tensor(B0))
        tensor = tinyffn.tensor
    else:
        a, b = module.nn.Parameter(module.tensor(A0)), module.nn.Parameter(module.tensor(B0))
        tensor = module.tensor
    opt = getattr(optim if module is optim else module.optim, name)(
        [{"params": [a], **settings_a}, {"params": [b], **settings_b}], **defaults)
    for t in range(steps):
        ga, gb = group_grads(t)
        a.grad, b.grad = tensor(ga), tensor(gb)
        opt.step()
    return a.detach().numpy(), b.detach().numpy()


@pytest.mark.parametrize("name", sorted(GROUP_CASES))
def test_param_groups_match_pytorchs_numbers_written_out(name):
    """Two groups with their own lr, weight decay, momentum or betas, against torch.optim's
    results pasted in (so this runs where torch is not installed)."""
    a, b = run_groups(optim, name)
    expected_a, expected_b = TORCH_GROUP_RESULTS[name]
    np.testing.assert_allclose(a, expected_a, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(b, expected_b, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("name", sorted(GROUP_CASES))
def test_param_groups_match_pytorch(name):
    """The same five steps against torch.optim itself (skipped without it)."""
    torch = pytest.importorskip("torch")
    for ours, theirs in zip(run_groups(optim, name), run_groups(torch, name)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("name", sorted(GROUP_CASES))
def test_each_group_steps_as_an_optimizer_of_its_own_settings(name):
    """The hand-written NumPy references above, one group at a time: a group's settings
    are the constructor's, overridden by the group's own."""
    defaults, (settings_a, settings_b) = GROUP_CASES[name]
    a, b = run_groups(optim, name)
    grads_a, grads_b = zip(*(group_grads(t) for t in range(5)))
    if name == "SGD":
        reference = sgd_reference
    else:
        reference = functools.partial(adam_reference, decoupled=name == "AdamW")
        defaults = {"weight_decay": 0.01 if name == "AdamW" else 0.0, **defaults}
    np.testing.assert_allclose(a, reference(A0, grads_a, **{**defaults, **settings_a}),
                               rtol=1e-12)
    np.testing.assert_allclose(b, reference(B0, grads_b, **{**defaults, **settings_b}),
                               rtol=1e-12)


def test_a_schedule_on_one_group_changes_only_that_groups_steps():
    a, b = nn.Parameter(tinyffn.tensor(A0)), nn.Parameter(tinyffn.tensor(A0))
    opt = optim.SGD([{"params": [a]}, {"params": [b]}], lr=0.1)
    grads = [group_grads(t)[0] for t in range(4)]
    for t, g in enumerate(grads):
        if t == 2:
            opt.param_groups[1]["lr"] = 0.01
        a.grad, b.grad = tinyffn.tensor(g), tinyffn.tensor(g)
        opt.step()
    np.testing.assert_array_equal(a.numpy(), sgd_reference(A0, grads, lr=0.1))
    np.testing.assert_array_equal(
        b.numpy(), sgd_reference(sgd_reference(A0, grads[:2], lr=0.1), grads[2:], lr=0.01))
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.01] and opt.defaults["lr"] == 0.1
    for group in opt.param_groups:                      # every group, as in PyTorch
        group["lr"] = 0.5 * group["lr"]
    assert [g["lr"] for g in opt.param_groups] == [0.05, 0.005]


@pytest.mark.parametrize("make", [
    lambda decay, no_decay: optim.SGD([{"params": decay, "momentum": 0.9, "nesterov": True},
                                       {"params": no_decay, "lr": 0.02}], lr=0.1),
    lambda decay, no_decay: optim.Adam([{"params": decay, "amsgrad": True},
                                        {"params": no_decay, "lr": 0.02}], lr=0.05),
    lambda decay, no_decay: optim.AdamW([{"params": decay, "weight_decay": 0.1},
                                         {"params": no_decay, "weight_decay": 0.0}], lr=0.05),
], ids=["sgd", "adam", "adamw"])
def test_two_groups_resume_exactly_from_a_saved_state(make):
    """Three steps, save; the run goes on for two. A fresh model and an optimizer over the
    same groups, made with other settings (the defaults), loaded from the saves, take the
    same two steps to the same numbers. With SGD only the first group keeps momentum."""
    def groups(model):
        ps = list(model.parameters())
        return [p for p in ps if p.ndim >= 2], [p for p in ps if p.ndim < 2]

    tinyffn.manual_seed(0)
    model = nn.FFN(3, dtype="float64")
    opt = make(*groups(model))
    train_mse(model, opt, range(3))
    saved_model, saved_opt = model.state_dict(), opt.state_dict()
    assert [g["params"] for g in saved_opt["param_groups"]] == [[0, 1], [2, 3]]  # by group
    train_mse(model, opt, range(3, 5))
    tinyffn.manual_seed(1)
    resumed = nn.FFN(3, dtype="float64")
    resumed.load_state_dict(saved_model)
    decay, no_decay = groups(resumed)
    resumed_opt = type(opt)([{"params": decay}, {"params": no_decay}])
    resumed_opt.load_state_dict(saved_opt)
    assert [dict(g, params=None) for g in resumed_opt.param_groups] == \
           [dict(g, params=None) for g in saved_opt["param_groups"]]
    train_mse(resumed, resumed_opt, range(3, 5))
    for (name, p), q in zip(model.named_parameters(), resumed.parameters()):
        np.testing.assert_array_equal(p.numpy(), q.numpy(), err_msg=name)


def test_a_state_for_other_groups_does_not_load():
    a, b, c = (nn.Parameter(tinyffn.zeros(2)) for _ in range(3))
    saved = optim.SGD([{"params": [a, b]}, {"params": [c]}], lr=0.1).state_dict()
    assert [g["params"] for g in saved["param_groups"]] == [[0, 1], [2]]
    with pytest.raises(ValueError, match=r"state is for 3 parameters in 2 group\(s\) of sizes "
                                         r"\[2, 1\]; this optimizer has one group of 3"):
        optim.SGD([a, b, c], lr=0.1).load_state_dict(saved)
    with pytest.raises(ValueError, match=r"this optimizer has 2 groups of sizes \[1, 2\]; make "
                                         r"it with the groups of the optimizer saved"):
        optim.SGD([{"params": [a]}, {"params": [b, c]}], lr=0.1).load_state_dict(saved)
    saved["param_groups"][1]["momentum"] = -1.0
    with pytest.raises(ValueError, match=r"SGD.param_groups\[1\]: momentum must be >= 0"):
        optim.SGD([{"params": [a, b]}, {"params": [c]}], lr=0.1).load_state_dict(saved)


def test_a_group_takes_the_constructors_settings_it_leaves_out():
    a, b, c = (nn.Parameter(tinyffn.zeros(2)) for _ in range(3))
    opt = optim.Adam([{"params": [a], "lr": 0.5}, {"params": b, "amsgrad": True}],
                     lr=0.1, betas=(0.8, 0.9))
    assert opt.defaults == {"lr": 0.1, "betas": (0.8, 0.9), "eps": 1e-8, "weight_decay": 0.0,
                            "amsgrad": False, "maximize": False,
                            "decoupled_weight_decay": False}
    assert (opt.param_groups[0]["lr"], opt.param_groups[0]["betas"]) == (0.5, (0.8, 0.9))
    assert opt.param_groups[1]["params"] == [b]          # one tensor: a group of one
    assert (opt.param_groups[1]["lr"], opt.param_groups[1]["amsgrad"]) == (0.1, True)
    opt.add_param_group({"params": [c], "eps": 1e-3})    # from the defaults, not group 0
    assert {k: v for k, v in opt.param_groups[2].items() if k != "params"} == {
        **opt.defaults, "eps": 1e-3}
    assert opt.params == [a, b, c] and list(opt.state) == [a, b, c]
    c.grad = tinyffn.ones(2)
    opt.step()                                           # the added group steps
    np.testing.assert_allclose(c.numpy(), [-0.1 / (1 + 1e-3)] * 2, rtol=1e-6)   # its own eps
    np.testing.assert_array_equal(a.numpy(), [0.0, 0.0])


def test_opt_lr_is_the_one_groups_and_refused_with_several():
    a, b = nn.Parameter(tinyffn.zeros(2)), nn.Parameter(tinyffn.zeros(2))
    one = optim.SGD([{"params": [a], "lr": 0.3}], lr=0.1)   # a list of one dict: one group
    assert one.lr == 0.3
    one.momentum = 0.5                                       # writes the group's, checked
    assert one.param_groups[0]["momentum"] == 0.5
    with pytest.raises(ValueError, match="SGD: momentum must be >= 0, got -1"):
        one.momentum = -1
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.2}], lr=0.1)
    with pytest.raises(AttributeError, match=r'SGD has 2 parameter groups, each with its own '
                                             r'lr: use opt\.param_groups\[i\]\["lr"\]'):
        opt.lr
    with pytest.raises(AttributeError, match=r'for g in opt\.param_groups: g\["momentum"\]'):
        opt.momentum = 0.9
    assert [g["momentum"] for g in opt.param_groups] == [0.0, 0.0]
    with pytest.raises(AttributeError, match=r"each with its own settings: use "
                                             r"opt\.param_groups\[i\], i from 0 to 1"):
        opt.hyperparameters()
    one.add_param_group({"params": [b]})                     # now two: no single lr
    with pytest.raises(AttributeError, match="SGD has 2 parameter groups"):
        one.lr


def test_param_group_errors_say_what_to_do():
    a, b = nn.Parameter(tinyffn.zeros(2)), nn.Parameter(tinyffn.zeros(3))
    with pytest.raises(ValueError, match=r"SGD.param_groups\[1\]: parameter 1 is parameter 0 "
                                         r"of param_groups\[0\]; some parameters appear in "
                                         r"more than one parameter group"):
        optim.SGD([{"params": [a]}, {"params": [b, a]}], lr=0.1)
    with pytest.raises(ValueError, match=r"SGD.param_groups\[1\]: got an empty parameter list"):
        optim.SGD([{"params": [a]}, {"params": []}], lr=0.1)
    with pytest.raises(ValueError, match=r"SGD.param_groups\[1\]: the group has no 'params' "
                                         r"\(it has lr\); give each group its parameters"):
        optim.SGD([{"params": [a]}, {"lr": 0.1}], lr=0.1)
    with pytest.raises(KeyError, match=r"SGD.param_groups\[1\]: 'betas' is not a setting of "
                                       r"SGD; its settings are lr, momentum"):
        optim.SGD([{"params": [a]}, {"params": [b], "betas": (0.9, 0.99)}], lr=0.1)
    with pytest.raises(TypeError, match=r"Adam: parameter 0 is int64; an optimizer steps "
                                        r"floating-point tensors"):
        optim.Adam([tinyffn.tensor([1, 2])])
    with pytest.raises(TypeError, match=r"SGD: the parameters are a set, whose order changes "
                                        r"from run to run .*; pass a list"):
        optim.SGD({a, b}, lr=0.1)
    with pytest.raises(TypeError, match=r"SGD.param_groups\[0\]: the parameters are a set"):
        optim.SGD([{"params": {a}}, {"params": [b]}], lr=0.1)
    with pytest.raises(TypeError, match=r"SGD.param_groups\[1\]: a parameter group is a dict "
                                        r"such as \{'params'"):
        optim.SGD([{"params": [a]}, [b]], lr=0.1)
    with pytest.raises(TypeError, match=r"SGD: params is one Parameter; pass a list: \[w\]"):
        optim.SGD(a, lr=0.1)
    for opt in (optim.SGD, optim.AdamW):    # torch: "'Linear' object is not iterable"
        with pytest.raises(TypeError, match=f"{opt.__name__}: params is the module Linear, not "
                                            r"its parameters; pass model.parameters\(\)"):
            opt(nn.Linear(2, 2), lr=0.1)
    with pytest.raises(TypeError, match=r"Optimizer: defaults must be a dict of the settings, "
                                        r"such as \{'lr': lr\}, got float"):
        optim.Optimizer([a], 0.1)                    # the signature before groups came
    with pytest.raises(ValueError, match=r"AdamW.param_groups\[1\]: betas must be two numbers"):
        optim.AdamW([{"params": [a]}, {"params": [b], "betas": (0.9, 1.5)}])
    opt = optim.SGD([{"params": [a]}, {"params": [b]}], lr=0.1)
    with pytest.raises(ValueError, match=r"SGD.param_groups\[2\]: parameter 0 is parameter 0 of "
                                         r"param_groups\[1\]; some parameters appear"):
        opt.add_param_group({"params": [b]})
    assert len(opt.param_groups) == 2


def test_a_group_setting_is_checked_when_written_and_changes_that_group_only():
    a, b = nn.Parameter(tinyffn.zeros(2)), nn.Parameter(tinyffn.zeros(3))
    opt = optim.Adam([{"params": [a]}, {"params": [b]}], lr=0.1)
    with pytest.raises(ValueError, match=r"Adam.param_groups\[1\]: lr must be >= 0, got -1"):
        opt.param_groups[1]["lr"] = -1
    with pytest.raises(KeyError, match=r"Adam.param_groups\[1\]: 'momentum' is not a setting"):
        opt.param_groups[1]["momentum"] = 0.9
    opt.param_groups[1]["eps"] = np.float64(1e-3)
    assert type(opt.param_groups[1]["eps"]) is float
    assert [g["eps"] for g in opt.param_groups] == [1e-8, 1e-3] and opt.defaults["eps"] == 1e-8
    a.grad = tinyffn.ones(2)
    opt.step()                                       # a has state now, b none
    opt.param_groups[1]["amsgrad"] = True            # b's group: fine
    with pytest.raises(ValueError, match=r"Adam.param_groups\[0\]: amsgrad=True changes what the "
                                         r"optimizer keeps per parameter"):
        opt.param_groups[0]["amsgrad"] = True
    assert [g["amsgrad"] for g in opt.param_groups] == [False, True]
    b.grad = tinyffn.ones(3)
    b.data = np.zeros(3)                             # float64 data under a float32 grad
    with pytest.raises(RuntimeError, match=r"Adam.step: parameter 0 of param_groups\[1\] is "
                                           r"float64 .* but its grad is float32"):
        opt.step()


def test_repr_is_pytorchs_one_block_per_group():
    a, b = nn.Parameter(tinyffn.zeros(2)), nn.Parameter(tinyffn.zeros(3))
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5, "momentum": 0.9}], lr=0.1)
    assert repr(opt) == (
        "SGD (\n"
        "Parameter Group 0\n    dampening: 0.0\n    lr: 0.1\n    maximize: False\n"
        "    momentum: 0.0\n    nesterov: False\n    weight_decay: 0.0\n"
        "\n"
        "Parameter Group 1\n    dampening: 0.0\n    lr: 0.5\n    maximize: False\n"
        "    momentum: 0.9\n    nesterov: False\n    weight_decay: 0.0\n"
        ")")


# ----------------------------------------------------------------------------- named parameters
def named_linear():
    m = nn.Linear(2, 1)
    m.weight.data = np.array([[0.5, -1.0]], dtype=np.float32)
    m.bias.data = np.array([0.25], dtype=np.float32)
    return m


def two_steps(opt, m):
    for _ in range(2):
        opt.zero_grad()
        (m(tinyffn.tensor([[1.0, 2.0]])) ** 2).sum().backward()
        opt.step()


def test_named_parameters_are_taken_and_their_names_kept_as_pytorch_does():
    """torch 2.13: AdamW(m.named_parameters(), lr=0.1) steps as AdamW(m.parameters()) (after
    two steps, weight [[0.6961422, -0.8008593]], bias [0.4466419]), and keeps the names in
    its group as "param_names", saved first in state_dict's groups, "params" last."""
    m = named_linear()
    opt = optim.AdamW(m.named_parameters(), lr=0.1)
    group = opt.param_groups[0]
    assert group["param_names"] == ["weight", "bias"] and group["params"] == [m.weight, m.bias]
    assert list(group)[:2] == ["params", "param_names"] and len(group) == 2 + 7
    two_steps(opt, m)
    np.testing.assert_allclose(m.weight.numpy(), [[0.6961421966552734, -0.8008593320846558]],
                               rtol=1e-6)
    np.testing.assert_allclose(m.bias.numpy(), [0.4466419219970703], rtol=1e-6)
    saved = opt.state_dict()["param_groups"][0]
    assert list(saved) == ["param_names", "lr", "betas", "eps", "weight_decay", "amsgrad",
                           "maximize", "decoupled_weight_decay", "params"]
    assert saved["param_names"] == ["weight", "bias"] and saved["params"] == [0, 1]
    assert saved["param_names"] is not group["param_names"]          # a snapshot
    assert "param_names" not in opt.hyperparameters()
    assert "    param_names: ['weight', 'bias']\n" in repr(opt)       # as torch's repr


def test_named_parameters_match_pytorch_live():
    torch = pytest.importorskip("torch")
    m, tm = named_linear(), torch.nn.Linear(2, 1)
    with torch.no_grad():
        tm.weight.copy_(torch.tensor([[0.5, -1.0]]))
        tm.bias.copy_(torch.tensor([0.25]))
    opt, topt = optim.AdamW(m.named_parameters(), lr=0.1), torch.optim.AdamW(
        tm.named_parameters(), lr=0.1)
    two_steps(opt, m)
    for _ in range(2):
        topt.zero_grad()
        (tm(torch.tensor([[1.0, 2.0]])) ** 2).sum().backward()
        topt.step()
    np.testing.assert_allclose(m.weight.numpy(), tm.weight.detach().numpy(), rtol=1e-6)
    ours, theirs = opt.state_dict()["param_groups"][0], topt.state_dict()["param_groups"][0]
    assert ours["param_names"] == theirs["param_names"]
    assert list(ours)[0] == list(theirs)[0] == "param_names" and list(theirs)[-1] == "params"


def test_named_groups_load_and_schedule_as_unnamed_ones():
    m = named_linear()
    opt = optim.SGD([{"params": [("weight", m.weight)], "lr": 0.5},
                     {"params": [("bias", m.bias)]}], lr=0.1, momentum=0.9)
    assert [g["param_names"] for g in opt.param_groups] == [["weight"], ["bias"]]
    scheduler = optim.lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=2)
    two_steps(opt, m)
    scheduler.step()
    saved = opt.state_dict()
    unnamed = optim.SGD([{"params": [m.weight], "lr": 0.5}, {"params": [m.bias]}], lr=0.1,
                        momentum=0.9)
    unnamed.load_state_dict(saved)           # saved names replace none, as in torch 2.13
    assert [g["param_names"] for g in unnamed.param_groups] == [["weight"], ["bias"]]
    named = optim.SGD([{"params": [("w", m.weight)], "lr": 0.5},
                       {"params": [("b", m.bias)]}], lr=0.1, momentum=0.9)
    named.load_state_dict(saved)             # and replace others, uncompared, as torch's
    assert [g["param_names"] for g in named.param_groups] == [["weight"], ["bias"]]
    named.load_state_dict(optim.SGD([{"params": [m.weight], "lr": 0.5}, {"params": [m.bias]}],
                                    lr=0.1, momentum=0.9).state_dict())
    assert [g["param_names"] for g in named.param_groups] == [["weight"], ["bias"]]   # kept
    assert named.state[m.weight] == {}       # the state loaded: a fresh one


def test_names_are_all_or_none_and_fixed():
    """torch 2.13 refuses the same mixes: "all optimizer params should be with/without
    names", "all optimizer param groups should be with/without names"."""
    m = named_linear()
    with pytest.raises(ValueError, match=r"SGD: some parameters come as \(name, parameter\) "
                                         r"pairs and some do not; pass all with names"):
        optim.SGD([("weight", m.weight), m.bias], lr=0.1)
    with pytest.raises(ValueError, match=r"SGD.param_groups\[1\]: this group's parameters "
                                         r"come without names, the other groups' with"):
        optim.SGD([{"params": [("weight", m.weight)]}, {"params": [m.bias]}], lr=0.1)
    opt = optim.SGD([m.weight], lr=0.1)
    with pytest.raises(ValueError, match=r"come with names, the other groups' without"):
        opt.add_param_group({"params": [("bias", m.bias)]})
    with pytest.raises(TypeError, match="parameter 0 is a tuple, but not a pair"):
        optim.SGD([(0, m.weight)], lr=0.1)
    with pytest.raises(ValueError, match=r"'param_names' must be a list of 1 strings"):
        optim.SGD([{"params": [m.weight], "param_names": ["w", "x"]}], lr=0.1)
    named = optim.SGD(m.named_parameters(), lr=0.1)
    group = named.param_groups[0]
    group.update(dict(group))                # the same names: nothing changes
    with pytest.raises(KeyError, match=r"'param_names' is not a setting of this optimizer; "
                                       r".*\(the names are fixed with the parameters\)"):
        group["param_names"] = ["a", "b"]
    assert optim.SGD([{"params": [m.weight], "param_names": ["w"]}],
                     lr=0.1).param_groups[0]["param_names"] == ["w"]


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW"])
def test_step_runs_a_closure_with_grad_enabled_and_returns_its_loss(name):
    """opt.step(closure), PyTorch's form (LBFGS's, and common in ported loops): the closure
    zeroes, runs forward and backward, and returns the loss; step runs it with grad
    enabled (even inside no_grad), then updates, and returns that loss. One step of SGD
    from w = (1, -2) on L = sum(w**2): the gradient 2w, written out."""
    w = nn.Parameter(tinyffn.tensor([1.0, -2.0]))
    opt = getattr(optim, name)([w], lr=0.1)
    calls = []

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        calls.append(loss)
        return loss

    with tinyffn.no_grad():
        returned = opt.step(closure)
    assert len(calls) == 1 and returned is calls[0] and returned.item() == 5.0
    reference = nn.Parameter(tinyffn.tensor([1.0, -2.0]))
    twin = getattr(optim, name)([reference], lr=0.1)
    reference.grad = tinyffn.tensor([2.0, -4.0])
    assert twin.step() is None
    np.testing.assert_array_equal(w.numpy(), reference.numpy())
    if name == "SGD":
        np.testing.assert_allclose(w.numpy(), [0.8, -1.6], rtol=1e-6)
    torch = pytest.importorskip("torch")
    t = torch.tensor([1.0, -2.0], requires_grad=True)
    t_opt = getattr(torch.optim, name)([t], lr=0.1)

    def t_closure():
        t_opt.zero_grad()
        loss = (t * t).sum()
        loss.backward()
        return loss

    with torch.no_grad():
        assert t_opt.step(t_closure).item() == 5.0
    np.testing.assert_allclose(w.numpy(), t.detach().numpy(), rtol=1e-6)


def test_a_key_of_your_own_is_a_label_kept_saved_and_never_passed_to_update():
    """As PyTorch's: {"params": ..., "name": "decay"} keeps "name" in the group for logging,
    in state_dict and repr; the step is the same as without it."""
    def make(labels):
        a = nn.Parameter(tinyffn.tensor(W0))
        b = nn.Parameter(tinyffn.tensor(W0[0]))
        extra = ({"name": "decay"}, {"name": "no_decay", "lr_scale": 0.5}) if labels else ({}, {})
        return a, b, optim.AdamW([{"params": [a], **extra[0]},
                                  {"params": [b], "weight_decay": 0.0, **extra[1]}], lr=0.1)
    a, b, opt = make(labels=True)
    a0, b0, plain = make(labels=False)
    a.grad = a0.grad = tinyffn.tensor(GRADS[0])
    b.grad = b0.grad = tinyffn.tensor(GRADS[0][0])
    opt.step(), plain.step()
    np.testing.assert_array_equal(a.numpy(), a0.numpy())     # labels change nothing
    np.testing.assert_array_equal(b.numpy(), b0.numpy())
    assert [g["name"] for g in opt.param_groups] == ["decay", "no_decay"]
    assert opt.param_groups[1]["lr_scale"] == 0.5 and "lr_scale" not in opt.param_groups[0]
    assert "name: no_decay" in repr(opt)
    saved = opt.state_dict()
    assert [g["name"] for g in saved["param_groups"]] == ["decay", "no_decay"]
    plain.load_state_dict(saved)                            # the labels come with the state
    assert plain.param_groups[1]["name"] == "no_decay"
    group = opt.param_groups[1]
    group["name"] = "frozen"                                # changed and added as a dict's
    group["note"] = "x"
    assert (group["name"], group["note"]) == ("frozen", "x")
    del group["note"]
    assert "note" not in group
    with pytest.raises(TypeError, match=r"AdamW.param_groups\[1\]: settings cannot be removed "
                                        r"\(tried 'lr'\); only a label of your own can"):
        del group["lr"]
    with pytest.raises(KeyError):
        del group["note"]
    group["initial_lr"] = 0.1                               # a scheduler's key, no label
    with pytest.raises(TypeError, match=r"settings cannot be removed \(tried 'initial_lr'\)"):
        del group["initial_lr"]
    single = optim.SGD([{"params": [nn.Parameter(tinyffn.zeros(2))], "name": "all"}], lr=0.1)
    assert single.hyperparameters() == single.defaults      # settings only


def test_a_setting_of_another_optimizer_or_a_near_miss_is_refused_not_kept_as_a_label():
    """Kept as labels, these would be silently ignored: SGD cannot use Adam's betas, and
    weight_decy is not weight_decay."""
    a = nn.Parameter(tinyffn.zeros(2))
    with pytest.raises(KeyError, match=r"SGD: 'betas' is not a setting of SGD; its settings are "
                                       r"lr, .*; 'betas' is another optimizer's setting, which "
                                       r"SGD would ignore"):
        optim.SGD([{"params": [a], "betas": (0.9, 0.99)}], lr=0.1)
    with pytest.raises(KeyError, match=r"'weight_decy' is not a setting of AdamW; .* did you "
                                       r"mean 'weight_decay'\?"):
        optim.AdamW([{"params": [a], "weight_decy": 0.1}])
    opt = optim.Adam([a])
    with pytest.raises(KeyError, match=r"'foreach' is not a setting of this optimizer; .*"
                                       r"another optimizer's setting"):
        opt.param_groups[0]["foreach"] = True               # torch's, not tinyffn's
    with pytest.raises(KeyError, match=r"did you mean 'betas'\?"):
        opt.param_groups[0]["beta"] = (0.9, 0.9)
    saved = opt.state_dict()
    saved["param_groups"][0]["eps_"] = 1e-6
    with pytest.raises(ValueError, match=r"the saved hyperparameters \['eps_'\] are not Adam's"):
        optim.Adam([a]).load_state_dict(saved)
    with pytest.raises(KeyError, match="a group's keys are strings, got 3"):
        optim.Adam([{"params": [a], 3: "x"}])


@pytest.mark.parametrize("key, meant", [("LR", "lr"), ("Weight-Decay", "weight_decay"),
                                        ("learning_rate", "lr"), ("epsilon", "eps"),
                                        ("beta_1", "betas"), ("b2", "betas"),
                                        ("wd", "weight_decay")])
def test_a_setting_in_capitals_or_under_another_librarys_name_is_no_label(key, meant):
    """Keras writes learning_rate, epsilon, beta_1; kept as labels, Adam would train with
    its default lr and eps in silence. SGD has no eps or betas: for it they are another
    optimizer's settings."""
    a = nn.Parameter(tinyffn.zeros(2))
    with pytest.raises(KeyError, match=rf"'{key}' is not a setting of Adam; .* did you mean "
                                       rf"'{meant}'\?"):
        optim.Adam([{"params": [a], key: 0.1}])
    with pytest.raises(KeyError, match=rf"did you mean '{meant}'\?"):
        optim.Adam([a]).param_groups[0][key] = 0.1
    saved = optim.Adam([a]).state_dict()
    saved["param_groups"][0][key] = 0.1
    with pytest.raises(ValueError, match=rf"the saved hyperparameters \['{key}'\] are not "):
        optim.Adam([a]).load_state_dict(saved)
    if meant in ("eps", "betas"):
        with pytest.raises(KeyError, match=rf"'{key}' is another optimizer's setting "
                                           rf"\('{meant}'\), which SGD would ignore"):
            optim.SGD([{"params": [a], key: 0.1}])
    for label in ("name", "lr_scale", "layer_id", "decay"):     # labels still
        assert optim.Adam([{"params": [a], label: 1}]).param_groups[0][label] == 1


def test_every_torch_optimizer_setting_is_known_so_none_is_taken_for_a_label():
    torch = pytest.importorskip("torch")
    from tinyffn.param_groups import OPTIMIZER_SETTINGS
    ours = {k for cls in (optim.SGD, optim.Adam, optim.AdamW)
            for k in cls([nn.Parameter(tinyffn.zeros(2, 2))]).defaults}
    theirs = set()
    for cls in vars(torch.optim).values():
        if isinstance(cls, type) and issubclass(cls, torch.optim.Optimizer) and \
                cls is not torch.optim.Optimizer:
            theirs |= set(cls([torch.nn.Parameter(torch.zeros(2, 2))]).defaults)
    assert ours | theirs <= OPTIMIZER_SETTINGS, sorted(ours | theirs - OPTIMIZER_SETTINGS)
    t = torch.nn.Parameter(torch.zeros(2))
    kept = torch.optim.AdamW([{"params": [t], "name": "decay"}])
    assert kept.state_dict()["param_groups"][0]["name"] == "decay"  # torch keeps labels too
