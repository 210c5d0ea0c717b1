"""The schedules of tinyffn/lr_scheduler_more.py (MultiplicativeLR, CyclicLR,
ChainedScheduler) against PyTorch's numbers: the lrs and momenta torch.optim.lr_scheduler
2.13 printed, written out below so that the tests run without torch, and against live torch
for 60+ steps, SGD and Adam, where it is installed; state_dict keys as torch's and resuming
midway as an uninterrupted run; the errors."""
import math

import numpy as np
import pytest

import tinyffn
from tinyffn import nn, optim
from tinyffn.optim import lr_scheduler

LRS = (0.1, 0.03)       # two parameter groups, each with its own base lr
# torch's own attributes, for its machinery (warnings about the call order), not the schedule
TORCH_ONLY_KEYS = {"_step_count", "_get_lr_called_within_step", "_is_initial"}


def make_optimizer(cls="SGD", lrs=LRS):
    kwargs = {"momentum": 0.5} if cls == "SGD" else {}
    return getattr(optim, cls)([{"params": [nn.Parameter(tinyffn.zeros(2, dtype="float64"))],
                                 "lr": lr} for lr in lrs], lr=1.0, **kwargs)


def make_torch_optimizer(torch, cls="SGD", lrs=LRS):
    kwargs = {"momentum": 0.5} if cls == "SGD" else {}
    return getattr(torch.optim, cls)([{"params": [torch.nn.Parameter(torch.zeros(2))],
                                       "lr": lr} for lr in lrs], lr=1.0, **kwargs)


def momenta(opt):
    return [g["betas"][0] if "betas" in g else g["momentum"] for g in opt.param_groups]


# name -> (the optimizer, the scheduler built from a module (tinyffn's or torch's) on it,
# the steps written out below)
SCHEDULES = {
    "MultiplicativeLR": ("SGD", lambda m, opt: m.MultiplicativeLR(
        opt, lambda t: 0.9 if t % 3 else 1.05), 12),
    "CyclicLR": ("SGD", lambda m, opt: m.CyclicLR(
        opt, base_lr=[0.01, 0.002], max_lr=[0.1, 0.05], step_size_up=3, step_size_down=5),
        18),
    "CyclicLR-triangular2-Adam": ("Adam", lambda m, opt: m.CyclicLR(
        opt, base_lr=0.01, max_lr=0.1, step_size_up=2, mode="triangular2",
        base_momentum=[0.8, 0.7], max_momentum=[0.9, 0.95]), 14),
    "CyclicLR-exp_range": ("SGD", lambda m, opt: m.CyclicLR(
        opt, base_lr=0.01, max_lr=0.1, step_size_up=2, mode="exp_range", gamma=0.9,
        cycle_momentum=False), 10),
    "ChainedScheduler-step-exponential": ("SGD", lambda m, opt: m.ChainedScheduler(
        [m.StepLR(opt, step_size=4, gamma=0.5), m.ExponentialLR(opt, gamma=0.9)],
        optimizer=opt), 10),
    "ChainedScheduler-warmup-cosine": ("SGD", lambda m, opt: m.ChainedScheduler(
        [m.LinearLR(opt, start_factor=0.25, total_iters=4),
         m.CosineAnnealingLR(opt, T_max=6, eta_min=0.001)]), 14),
}

# torch 2.13's get_last_lr() after building and after each step, for SCHEDULES on
# optimizers with groups of lr 0.1 and 0.03 (SGD with momentum 0.5)
TORCH_LRS = {
    "MultiplicativeLR": [
        (0.1, 0.03), (0.09000000000000001, 0.027), (0.08100000000000002, 0.0243),
        (0.08505000000000001, 0.025515), (0.07654500000000002, 0.0229635),
        (0.06889050000000002, 0.020667150000000002),
        (0.07233502500000002, 0.021700507500000004),
        (0.06510152250000002, 0.019530456750000005),
        (0.058591370250000024, 0.017577411075000004),
        (0.061520938762500026, 0.018456281628750005),
        (0.055368844886250025, 0.016610653465875005),
        (0.049831960397625025, 0.014949588119287505),
        (0.05232355841750628, 0.015697067525251882),
    ],
    "CyclicLR": [
        (0.01, 0.002), (0.04, 0.018000000000000002), (0.07, 0.034), (0.1, 0.05),
        (0.082, 0.040400000000000005), (0.064, 0.0308),
        (0.046000000000000006, 0.021200000000000004),
        (0.028000000000000004, 0.011600000000000001), (0.01, 0.002),
        (0.04, 0.018000000000000002), (0.07, 0.034), (0.1, 0.05),
        (0.082, 0.040400000000000005), (0.064, 0.0308),
        (0.046000000000000006, 0.021200000000000004),
        (0.028000000000000004, 0.011600000000000001), (0.01, 0.002),
        (0.04, 0.018000000000000002), (0.07, 0.034),
    ],
    "CyclicLR-triangular2-Adam": [
        (0.01, 0.01), (0.05500000000000001, 0.05500000000000001), (0.1, 0.1),
        (0.05500000000000001, 0.05500000000000001), (0.01, 0.01), (0.0325, 0.0325),
        (0.05500000000000001, 0.05500000000000001), (0.0325, 0.0325), (0.01, 0.01),
        (0.02125, 0.02125), (0.0325, 0.0325), (0.02125, 0.02125), (0.01, 0.01),
        (0.015625, 0.015625), (0.02125, 0.02125),
    ],
    "CyclicLR-exp_range": [
        (0.01, 0.01), (0.05050000000000001, 0.05050000000000001), (0.0829, 0.0829),
        (0.04280500000000001, 0.04280500000000001), (0.01, 0.01),
        (0.03657205000000001, 0.03657205000000001),
        (0.05782969000000001, 0.05782969000000001),
        (0.03152336050000001, 0.03152336050000001), (0.01, 0.01),
        (0.027433922005000007, 0.027433922005000007),
        (0.041381059609000015, 0.041381059609000015),
    ],
    "ChainedScheduler-step-exponential": [
        (0.1, 0.03), (0.09000000000000001, 0.027), (0.08100000000000002, 0.0243),
        (0.07290000000000002, 0.02187), (0.03280500000000001, 0.009841500000000001),
        (0.02952450000000001, 0.008857350000000002),
        (0.02657205000000001, 0.007971615000000001),
        (0.02391484500000001, 0.007174453500000001),
        (0.010761680250000006, 0.0032285040750000007),
        (0.009685512225000005, 0.002905653667500001),
        (0.008716961002500004, 0.0026150883007500006),
    ],
    "ChainedScheduler-warmup-cosine": [
        (0.025, 0.0075), (0.04088629300589238, 0.01231277901044316),
        (0.047148077533125735, 0.01433557753312573),
        (0.04119500052870897, 0.012757500528708964),
        (0.025850769556128608, 0.008350769556128596),
        (0.007658743633856584, 0.0029696327663119378), (0.001, 0.001),
        (0.007631742512670284, 0.002942631645125639), (0.025750000000000002, 0.00825),
        (0.05050000000000004, 0.01550000000000001),
        (0.07525000000000008, 0.02275000000000002),
        (0.0933682574873298, 0.028057368354874383),
        (0.1000000000000001, 0.03000000000000003),
        (0.09336825748732981, 0.02805736835487439),
        (0.07525000000000011, 0.02275000000000003),
    ],
}
TORCH_MOMENTA = {
    "CyclicLR": [
        (0.9, 0.9), (0.8666666666666667, 0.8666666666666667),
        (0.8333333333333334, 0.8333333333333334), (0.8, 0.8),
        (0.8200000000000001, 0.8200000000000001), (0.8400000000000001, 0.8400000000000001),
        (0.86, 0.86), (0.88, 0.88), (0.9, 0.9), (0.8666666666666667, 0.8666666666666667),
        (0.8333333333333334, 0.8333333333333334), (0.8, 0.8),
        (0.8200000000000001, 0.8200000000000001), (0.8400000000000001, 0.8400000000000001),
        (0.86, 0.86), (0.88, 0.88), (0.9, 0.9), (0.8666666666666667, 0.8666666666666667),
        (0.8333333333333334, 0.8333333333333334),
    ],
    "CyclicLR-triangular2-Adam": [
        (0.9, 0.95), (0.8500000000000001, 0.825), (0.8, 0.7), (0.8500000000000001, 0.825),
        (0.9, 0.95), (0.875, 0.8875), (0.8500000000000001, 0.825), (0.875, 0.8875),
        (0.9, 0.95), (0.8875000000000001, 0.91875), (0.875, 0.8875),
        (0.8875000000000001, 0.91875), (0.9, 0.95), (0.89375, 0.934375),
        (0.8875000000000001, 0.91875),
    ],
}
# the others keep SGD's momentum, 0.5


def sequences(name, module=lr_scheduler, opt=None, steps=None):
    cls, build, written = SCHEDULES[name]
    opt = opt if opt is not None else make_optimizer(cls)
    sched = build(module, opt)
    lrs, moms = [sched.get_last_lr()], [momenta(opt)]
    for _ in range(written if steps is None else steps):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr())
        moms.append(momenta(opt))
        assert [group["lr"] for group in opt.param_groups] == lrs[-1]
    return lrs, moms


@pytest.mark.parametrize("name", SCHEDULES)
def test_lr_sequence_is_pytorchs(name):
    """Bit for bit: the chain takes torch's recursive steps, CyclicLR torch's arithmetic,
    MultiplicativeLR its products in torch's order."""
    lrs, moms = sequences(name)
    assert lrs == [list(lr) for lr in TORCH_LRS[name]]
    assert moms == [list(m) for m in TORCH_MOMENTA.get(name, [(0.5, 0.5)] * len(moms))]


# 60+ steps beside live torch, on SGD (momentum) and Adam (beta1); SCHEDULES on two
# groups, the rest on three
LRS3 = (0.1, 0.03, 0.5)
LIVE = {
    **{name: build for name, (_, build, _) in SCHEDULES.items()},
    "MultiplicativeLR-per-group": lambda m, opt: m.MultiplicativeLR(
        opt, [lambda t: 0.97, lambda t: 1.0 + 0.01 * (t % 5), lambda t: 0.5 ** (t % 2)]),
    "CyclicLR-scale_fn-iterations": lambda m, opt: m.CyclicLR(
        opt, base_lr=[0.01, 0.002, 0.005], max_lr=0.2, step_size_up=4, step_size_down=9,
        scale_fn=lambda x: 1 / (1 + 0.05 * x), scale_mode="iterations",
        base_momentum=0.6, max_momentum=[0.9, 0.95, 0.99]),
    "CyclicLR-scale_fn-cycle": lambda m, opt: m.CyclicLR(
        opt, base_lr=0.01, max_lr=[0.1, 0.2, 0.3], step_size_up=5,
        scale_fn=lambda c: 0.8 ** c, mode="ignored when scale_fn is given"),
    "CyclicLR-exp_range-momentum": lambda m, opt: m.CyclicLR(
        opt, base_lr=0.001, max_lr=0.1, step_size_up=6, step_size_down=2, mode="exp_range",
        gamma=0.99),
    "ChainedScheduler-step-exponential-long": lambda m, opt: m.ChainedScheduler(
        [m.StepLR(opt, step_size=7, gamma=0.5), m.ExponentialLR(opt, gamma=0.97)]),
    "ChainedScheduler-warmup-cosine-long": lambda m, opt: m.ChainedScheduler(
        [m.LinearLR(opt, start_factor=0.1, total_iters=10),
         m.CosineAnnealingLR(opt, T_max=20, eta_min=0.001)], optimizer=opt),
    "ChainedScheduler-four": lambda m, opt: m.ChainedScheduler(
        [m.ConstantLR(opt, factor=0.1, total_iters=20), m.ExponentialLR(opt, gamma=0.9),
         m.MultiStepLR(opt, milestones=[5, 30], gamma=0.5),
         m.PolynomialLR(opt, total_iters=50, power=1.5)]),
    "ChainedScheduler-closed-forms": lambda m, opt: m.ChainedScheduler(
        [m.MultiplicativeLR(opt, lambda t: 0.98),
         m.CosineAnnealingWarmRestarts(opt, T_0=5, T_mult=2, eta_min=0.01),
         m.LambdaLR(opt, lambda t: 1 + t % 4), m.LinearLR(opt, 0.5, 0.25, 30)]),
    "ChainedScheduler-cyclic-momentum": lambda m, opt: m.ChainedScheduler(
        [m.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=4),
         m.ExponentialLR(opt, gamma=0.98)]),
}


@pytest.mark.parametrize("cls", ["SGD", "Adam"])
@pytest.mark.parametrize("name", LIVE)
def test_lrs_and_momenta_are_live_pytorchs(name, cls):
    torch = pytest.importorskip("torch")
    lrs = LRS if name in SCHEDULES else LRS3
    ours, theirs = make_optimizer(cls, lrs), make_torch_optimizer(torch, cls, lrs)
    sched, torch_sched = LIVE[name](lr_scheduler, ours), LIVE[name](
        torch.optim.lr_scheduler, theirs)
    for t in range(65):
        assert sched.get_last_lr() == torch_sched.get_last_lr(), t
        assert [g["lr"] for g in ours.param_groups] == [g["lr"] for g in theirs.param_groups]
        assert momenta(ours) == momenta(theirs), t
        ours.step()
        theirs.step()
        sched.step()
        torch_sched.step()


# ------------------------------------------------------------------- saving and resuming
@pytest.mark.parametrize("name", LIVE)
def test_loaded_midway_goes_on_as_an_uninterrupted_run(name):
    """23 steps, save both states; a fresh optimizer (other lrs) and scheduler, loaded in
    either order, take 40 more steps as the original: lrs and momenta, every step."""
    build, lrs = LIVE[name], LRS if name in SCHEDULES else LRS3
    for scheduler_first in (False, True):
        opt = make_optimizer("Adam", lrs)
        sched = build(lr_scheduler, opt)
        for _ in range(23):
            sched.step()
        fresh_opt = make_optimizer("Adam", (0.7, 0.2, 0.9)[:len(lrs)])
        fresh = build(lr_scheduler, fresh_opt)
        loads = [lambda: fresh_opt.load_state_dict(opt.state_dict()),
                 lambda: fresh.load_state_dict(sched.state_dict())]
        for load in loads[::-1] if scheduler_first else loads:
            load()
        for _ in range(40):
            assert fresh.get_last_lr() == sched.get_last_lr()
            assert [g["lr"] for g in fresh_opt.param_groups] == sched.get_last_lr()
            assert momenta(fresh_opt) == momenta(opt)
            sched.step()
            fresh.step()


@pytest.mark.parametrize("name, torch_keys", [
    ("MultiplicativeLR", ["base_lrs", "last_epoch", "_last_lr", "lr_lambdas"]),
    ("CyclicLR", ["base_lrs", "last_epoch", "_last_lr", "max_lrs", "total_size",
                  "step_ratio", "mode", "gamma", "_scale_fn_custom", "scale_mode",
                  "cycle_momentum", "use_beta1", "base_momentums", "max_momentums"]),
    ("CyclicLR-exp_range", ["base_lrs", "last_epoch", "_last_lr", "max_lrs", "total_size",
                            "step_ratio", "mode", "gamma", "_scale_fn_custom", "scale_mode",
                            "cycle_momentum"]),
    ("ChainedScheduler-step-exponential", ["_last_lr", "_schedulers"]),
])
def test_state_dict_has_pytorchs_keys(name, torch_keys):
    """torch 2.13's keys (written out), less its machinery's, and live where installed."""
    sched = SCHEDULES[name][1](lr_scheduler, make_optimizer())
    assert sorted(sched.state_dict()) == sorted(torch_keys)
    try:
        import torch
    except ImportError:
        return
    theirs = SCHEDULES[name][1](torch.optim.lr_scheduler, make_torch_optimizer(torch))
    assert sorted(theirs.state_dict().keys() - TORCH_ONLY_KEYS) == sorted(torch_keys)


def test_cyclic_state_keeps_a_callable_objects_attributes_not_a_lambda():
    """As torch's: a scale_fn lambda is saved as None (the scheduler is built with it
    again); a callable object's attributes are saved and loaded into the fresh one."""
    class Decay:
        def __init__(self, rate):
            self.rate = rate

        def __call__(self, c):
            return self.rate ** c

    def build(scale_fn):
        return lr_scheduler.CyclicLR(make_optimizer(), 0.01, 0.1, step_size_up=3,
                                     scale_fn=scale_fn)

    assert build(lambda c: 1.0).state_dict()["_scale_fn_custom"] is None
    assert build(None).state_dict()["_scale_fn_custom"] is None
    sched = build(Decay(0.5))
    for _ in range(7):
        sched.step()
    assert sched.state_dict()["_scale_fn_custom"] == {"rate": 0.5}
    fresh = build(Decay(0.9))
    fresh.load_state_dict(sched.state_dict())
    assert fresh._scale_fn_custom.rate == 0.5 and fresh.get_last_lr() == sched.get_last_lr()
    sched.step()
    fresh.step()
    assert fresh.get_last_lr() == sched.get_last_lr()


def test_multiplicative_state_keeps_a_callable_objects_attributes():
    class Factor:
        def __init__(self, f):
            self.f = f

        def __call__(self, t):
            return self.f

    opt = make_optimizer()
    sched = lr_scheduler.MultiplicativeLR(opt, [Factor(0.5), lambda t: 0.9])
    sched.step()
    state = sched.state_dict()
    assert state["lr_lambdas"] == [{"f": 0.5}, None]
    fresh = lr_scheduler.MultiplicativeLR(make_optimizer(), [Factor(2.0), lambda t: 0.9])
    fresh.load_state_dict(state)
    fresh.step()
    sched.step()
    assert fresh.get_last_lr() == sched.get_last_lr() == [0.1 * 0.25, 0.03 * 0.9 * 0.9]


def test_multiplicative_last_epoch_resumes_at_the_product():
    """last_epoch=k: the product of λ(1) ... λ(k + 1), as the run that took those steps."""
    opt = make_optimizer()
    sched = lr_scheduler.MultiplicativeLR(opt, lambda t: 1 - 0.01 * t)
    for _ in range(8):
        sched.step()
    resumed = lr_scheduler.MultiplicativeLR(opt, lambda t: 1 - 0.01 * t, last_epoch=7)
    assert resumed.get_last_lr() == sched.get_last_lr()
    np.testing.assert_allclose(resumed.get_last_lr(),
                               [lr * math.prod(1 - 0.01 * t for t in range(1, 9))
                                for lr in LRS], rtol=1e-15)


# ------------------------------------------------------------------------------- CyclicLR
def test_cyclic_sets_the_lr_and_momentum_as_it_is_built_as_pytorch():
    """The groups' lr becomes base_lr (and initial_lr with it), their momentum
    max_momentum, stored in the groups with base_momentum."""
    opt = make_optimizer()
    sched = lr_scheduler.CyclicLR(opt, base_lr=[0.02, 0.004], max_lr=1.0, step_size_up=3)
    assert [g["lr"] for g in opt.param_groups] == [0.02, 0.004] == sched.get_last_lr()
    assert [g["initial_lr"] for g in opt.param_groups] == [0.02, 0.004] == sched.base_lrs
    assert momenta(opt) == [0.9, 0.9]
    assert [(g["max_momentum"], g["base_momentum"]) for g in opt.param_groups] == [
        (0.9, 0.8)] * 2


def test_cyclic_built_after_another_scheduler_starts_at_initial_lr_as_pytorch():
    """PyTorch's CyclicLR takes its first step from the groups' initial_lr, which a
    scheduler built before it has already set: step 0 is 0.1 (StepLR's initial_lr), not
    base_lr 0.01; base_lr's cycle from step 1. torch 2.13's lrs, alone and in a chain."""
    torch_lrs = [[0.1, 0.03], [0.022857142857142854, 0.008857142857142855],
                 [0.035714285714285705, 0.01571428571428571]]

    def build(m, opt):
        return m.ChainedScheduler([m.StepLR(opt, step_size=7, gamma=0.7), m.CyclicLR(
            opt, base_lr=[0.01, 0.002], max_lr=[0.1, 0.05], step_size_up=7)])

    opt = make_optimizer()
    chain = build(lr_scheduler, opt)
    assert chain._schedulers[1].get_last_lr() == pytest.approx(torch_lrs[0], rel=1e-12)
    for t, lrs in enumerate(torch_lrs):
        if t:
            chain.step()
        assert chain.get_last_lr() == pytest.approx(lrs, rel=1e-12)
        assert [g["lr"] for g in opt.param_groups] == pytest.approx(lrs, rel=1e-12)
    torch = pytest.importorskip("torch")
    topt, opt = make_torch_optimizer(torch), make_optimizer()
    tchain, chain = build(torch.optim.lr_scheduler, topt), build(lr_scheduler, opt)
    for _ in range(40):
        assert chain.get_last_lr() == pytest.approx(tchain.get_last_lr(), rel=1e-12)
        assert momenta(opt) == pytest.approx(momenta(topt), rel=1e-12)
        topt.step()
        tchain.step()
        chain.step()


def test_cyclic_momentum_is_the_one_a_step_uses():
    """At the lr's peak SGD's momentum is base_momentum: one step there moves the weight
    by lr · (μ · buffer + g), checked by hand."""
    w = nn.Parameter(tinyffn.tensor([1.0], dtype="float64"))
    opt = optim.SGD([w], lr=1.0, momentum=0.5)
    sched = lr_scheduler.CyclicLR(opt, base_lr=0.0, max_lr=0.1, step_size_up=1,
                                  base_momentum=0.6, max_momentum=0.9)
    w.grad = tinyffn.tensor([1.0], dtype="float64")
    opt.step()                      # lr 0: buffer = g = 1, w unchanged
    sched.step()                    # t = 1, the peak: lr 0.1, momentum 0.6
    assert (opt.param_groups[0]["lr"], opt.param_groups[0]["momentum"]) == (0.1, 0.6)
    opt.step()                      # buffer = 0.6 · 1 + 1 = 1.6; w = 1 - 0.1 · 1.6
    assert w.data.tolist() == [1.0 - 0.1 * 1.6]


def test_cyclic_scale_fn_sets_the_mode_and_mode_sets_scale_mode_as_pytorch():
    opt = make_optimizer()
    assert lr_scheduler.CyclicLR(opt, 0.01, 0.1, mode="exp_range",
                                 scale_mode="cycle").scale_mode == "iterations"
    assert lr_scheduler.CyclicLR(opt, 0.01, 0.1, mode="triangular2",
                                 scale_mode="iterations").scale_mode == "cycle"
    sched = lr_scheduler.CyclicLR(opt, 0.01, 0.1, mode="exp_range", gamma=0.5,
                                  scale_fn=lambda x: 1.0, scale_mode="iterations")
    assert sched.scale_fn(3) == 1.0 and sched.scale_mode == "iterations"


# ----------------------------------------------------------------------- ChainedScheduler
def test_chain_of_constant_and_exponential_is_pytorchs_documented_example():
    """torch's docstring: lr 0.05, ConstantLR(0.1, 20) then ExponentialLR(0.9): 0.005 ·
    0.9^t up to step 19, then 0.05 · 0.9^t. (Its comment's lrs at 20 and 21, 0.06078 and
    0.05470, are ten times what torch 2.13 computes, 0.00608 and 0.00547.)"""
    opt = optim.SGD([nn.Parameter(tinyffn.zeros(2))], lr=0.05)
    sched = lr_scheduler.ChainedScheduler([lr_scheduler.ConstantLR(opt, 0.1, 20),
                                           lr_scheduler.ExponentialLR(opt, 0.9)], opt)
    lrs = [sched.get_last_lr()[0]]
    for _ in range(21):
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    expected = [0.05 * (0.1 if t < 20 else 1.0) * 0.9 ** t for t in range(22)]
    np.testing.assert_allclose(lrs, expected, rtol=1e-13)
    assert [round(lrs[t], 5) for t in (0, 1, 2, 19, 20, 21)] == [
        0.005, 0.0045, 0.00405, 0.00068, 0.00608, 0.00547]    # torch 2.13's, rounded


def test_chain_sets_each_schedulers_last_lr_and_step_as_pytorch():
    opt = make_optimizer()
    step, exp = lr_scheduler.StepLR(opt, 2, 0.5), lr_scheduler.ExponentialLR(opt, 0.9)
    chain = lr_scheduler.ChainedScheduler([step, exp])
    for _ in range(3):
        chain.step()
    assert step.last_epoch == exp.last_epoch == 3
    np.testing.assert_allclose(step.get_last_lr(), [lr * 0.5 * 0.9 ** 2 for lr in LRS],
                               rtol=1e-15)              # before ExponentialLR's step 3
    assert exp.get_last_lr() == chain.get_last_lr() == [g["lr"] for g in opt.param_groups]


def test_loading_a_chain_checks_its_state():
    opt = make_optimizer()
    chain = lr_scheduler.ChainedScheduler([lr_scheduler.StepLR(opt, 2)])
    with pytest.raises(ValueError, match=r"ChainedScheduler.load_state_dict: expected a "
                                         r"ChainedScheduler's state with 1 schedulers"):
        chain.load_state_dict(lr_scheduler.StepLR(make_optimizer(), 2).state_dict())


# ----------------------------------------------------------------------------------- names
def test_reachable_as_torch_names_them():
    from tinyffn.optim.lr_scheduler import ChainedScheduler, CyclicLR, MultiplicativeLR
    import tinyffn.lr_scheduler_more as more

    for cls in (ChainedScheduler, CyclicLR, MultiplicativeLR):
        assert cls is getattr(more, cls.__name__) and cls.__name__ in lr_scheduler.__all__
        assert issubclass(cls, lr_scheduler.LRScheduler)        # as torch's


# ---------------------------------------------------------------------------------- errors
def _opt():
    return make_optimizer()


def _plateau_chain():
    opt = _opt()
    return lr_scheduler.ChainedScheduler([lr_scheduler.ReduceLROnPlateau(opt)])


def _two_optimizers_chain():
    return lr_scheduler.ChainedScheduler([lr_scheduler.StepLR(_opt(), 2),
                                          lr_scheduler.StepLR(_opt(), 2)])


def _stepped_chain():
    s = lr_scheduler.StepLR(_opt(), 2)
    s.step()
    return lr_scheduler.ChainedScheduler([s])


def _sequential_chain():
    opt = _opt()
    seq = lr_scheduler.SequentialLR(opt, [lr_scheduler.StepLR(opt, 2)], [])
    return lr_scheduler.ChainedScheduler([seq])


def _chain_in_sequential():
    opt = _opt()
    chain = lr_scheduler.ChainedScheduler([lr_scheduler.StepLR(opt, 2)])
    return lr_scheduler.SequentialLR(opt, [lr_scheduler.StepLR(opt, 2), chain], [2])


ERRORS = [
    (lambda: lr_scheduler.MultiplicativeLR(_opt(), 0.9), TypeError,
     r"MultiplicativeLR: lr_lambda must be a function of the step, such as lambda t: "
     r"0.95; got float"),
    (lambda: lr_scheduler.MultiplicativeLR(_opt(), [lambda t: 0.9]), ValueError,
     r"MultiplicativeLR: got 1 lr_lambdas for 2 parameter groups"),
    (lambda: lr_scheduler.MultiplicativeLR(_opt(), lambda t: -1.0).step(), ValueError,
     r"MultiplicativeLR: lr_lambda\(1\) returned -1.0 for param_groups\[0\]; it must "
     r"return a number >= 0"),
    (lambda: lr_scheduler.MultiplicativeLR([], lambda t: 0.9), TypeError,
     r"MultiplicativeLR: optimizer must be a tinyffn optimizer"),
    (lambda: lr_scheduler.CyclicLR(optim.Adagrad([nn.Parameter(tinyffn.zeros(2))]), 0.01,
                                   0.1), ValueError,
     r"CyclicLR: cycle_momentum=True cycles the optimizer's momentum \(SGD's momentum, "
     r"Adam's beta1\), and Adagrad has neither setting; pass cycle_momentum=False"),
    (lambda: lr_scheduler.CyclicLR(_opt(), 0.01, 0.1, mode="triangle"), ValueError,
     r"CyclicLR: mode must be 'triangular', 'triangular2' or 'exp_range', or give "
     r"scale_fn; got mode='triangle'"),
    (lambda: lr_scheduler.CyclicLR(_opt(), [0.01], 0.1), ValueError,
     r"CyclicLR: got 1 values of base_lr for 2 parameter groups"),
    (lambda: lr_scheduler.CyclicLR(_opt(), 0.01, [0.1, 0.2, 0.3]), ValueError,
     r"CyclicLR: got 3 values of max_lr for 2 parameter groups"),
    (lambda: lr_scheduler.CyclicLR(_opt(), 0.01, 0.1, base_momentum=[0.8]), ValueError,
     r"CyclicLR: got 1 values of base_momentum for 2 parameter groups"),
    (lambda: lr_scheduler.CyclicLR(_opt(), 0.01, 0.1, step_size_up=0), ValueError,
     r"CyclicLR: step_size_up must be a number > 0 .*PyTorch divides by 0 at 0"),
    (lambda: lr_scheduler.CyclicLR(_opt(), 0.01, 0.1, step_size_down=-1), ValueError,
     r"CyclicLR: step_size_down must be a number >= 0 or None"),
    (lambda: lr_scheduler.CyclicLR(_opt(), -0.01, 0.1), ValueError,
     r"CyclicLR: base_lr must be a number >= 0"),
    (lambda: lr_scheduler.CyclicLR(_opt(), 0.01, 0.1, scale_mode="epoch"), ValueError,
     r"CyclicLR: scale_mode must be 'cycle' .* or 'iterations'"),
    (lambda: lr_scheduler.CyclicLR(_opt(), 0.01, 0.1, scale_fn=0.5), TypeError,
     r"CyclicLR: scale_fn must be a function"),
    (lambda: lr_scheduler.CyclicLR(_opt(), 0.01, 0.1, cycle_momentum=1), TypeError,
     r"CyclicLR: cycle_momentum must be True or False"),
    (lambda: lr_scheduler.CyclicLR(make_optimizer("Adam"), 0.01, 0.1, max_momentum=1.0),
     ValueError, r"CyclicLR: max_momentum must be a number in \[0, 1\), as it is beta1"),
    (lambda: lr_scheduler.CyclicLR(_opt(), 0.01, 0.1, base_momentum=0.0), ValueError,
     r"CyclicLR: base_momentum must be a number > 0 for SGD"),
    (lambda: lr_scheduler.ChainedScheduler([]), ValueError,
     r"ChainedScheduler: schedulers must be a list of one or more schedulers"),
    (_plateau_chain, ValueError,
     r"ChainedScheduler: schedulers\[0\] is .*ReduceLROnPlateau.*, not a "
     r"ReduceLROnPlateau, which needs a metric at each step"),
    (_sequential_chain, ValueError,
     r"schedulers\[0\] is .*SequentialLR.*, not a SequentialLR: list its schedulers here"),
    (lambda: lr_scheduler.ChainedScheduler([_opt()]), TypeError,
     r"ChainedScheduler: schedulers\[0\] is .*SGD; each must be a tinyffn scheduler"),
    (_two_optimizers_chain, ValueError,
     r"ChainedScheduler: schedulers\[1\] \(StepLR\) was built on another optimizer"),
    (_chain_in_sequential, TypeError,
     r"SequentialLR: schedulers\[1\] is ChainedScheduler; .*, not a ChainedScheduler "
     r"\(PyTorch's fails at its milestone\)"),
    (_stepped_chain, ValueError,
     r"ChainedScheduler: schedulers\[0\] \(StepLR\) is at step 1, not 0; chain new "
     r"schedulers"),
]


@pytest.mark.parametrize("call, error, message", ERRORS)
def test_errors_say_what_to_do(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("build", [
    lambda L, opt: L.CyclicLR(opt, 0.01, 0.1, mode="triangle"),
    lambda L, opt: L.CyclicLR(opt, [0.01], 0.1),
    lambda L, opt: L.MultiplicativeLR(opt, [lambda t: 0.9]),
    lambda L, opt: L.ChainedScheduler([]),
    lambda L, opt: L.ChainedScheduler([L.ReduceLROnPlateau(opt)]),
])
def test_pytorch_refuses_them_too(build):
    """The refusals that mean what torch's do raise torch's error type in torch."""
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError):
        build(torch.optim.lr_scheduler, make_torch_optimizer(torch))
    with pytest.raises(ValueError):
        build(lr_scheduler, make_optimizer())


def test_pytorch_refuses_cycle_momentum_without_momentum():
    torch = pytest.importorskip("torch")
    opt = torch.optim.Adagrad([torch.nn.Parameter(torch.zeros(2))])
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        torch.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1)
