"""The schedules of tinyffn/lr_scheduler_extra.py (PolynomialLR, CosineAnnealingWarmRestarts,
OneCycleLR, ReduceLROnPlateau) against PyTorch's numbers: the lr sequences (and OneCycleLR's
momenta) torch.optim.lr_scheduler 2.13 printed, written out below so that the tests run
without torch, and once more against live torch where it is installed; resuming from
state_dict midway, bit for bit; a chain of factor schedules as one LambdaLR of their
product (ChainedScheduler itself is tested in test_lr_scheduler_more.py); the errors."""
import math

import numpy as np
import pytest

import tinyffn
from tinyffn import nn, optim
from tinyffn.optim import lr_scheduler

LRS = (0.1, 0.03)       # two parameter groups, each with its own base lr


def make_optimizer(lrs=LRS, cls=optim.SGD):
    return cls([{"params": [nn.Parameter(tinyffn.zeros(2, dtype="float64"))], "lr": lr}
                for lr in lrs], lr=1.0)


def make_torch_optimizer(torch, cls="SGD"):
    return getattr(torch.optim, cls)([{"params": [torch.nn.Parameter(torch.zeros(2))],
                                       "lr": lr} for lr in LRS], lr=1.0)


# name -> (the scheduler, built from a module (tinyffn's or torch's) on an optimizer; the
# steps taken after building it, enough to cross every phase and restart)
SCHEDULES = {
    "PolynomialLR": (lambda m, opt: m.PolynomialLR(opt, total_iters=8, power=2.0), 11),
    "PolynomialLR-defaults": (lambda m, opt: m.PolynomialLR(opt), 7),
    "CosineAnnealingWarmRestarts": (lambda m, opt: m.CosineAnnealingWarmRestarts(
        opt, T_0=3, T_mult=2, eta_min=0.001), 22),                 # restarts at 3, 9, 21
    "CosineAnnealingWarmRestarts-defaults": (
        lambda m, opt: m.CosineAnnealingWarmRestarts(opt, T_0=4), 9),
    "OneCycleLR": (lambda m, opt: m.OneCycleLR(opt, max_lr=[1.0, 0.3], total_steps=12,
                                               base_momentum=[0.85, 0.8]), 11),
    "OneCycleLR-linear-3": (lambda m, opt: m.OneCycleLR(
        opt, max_lr=0.5, epochs=3, steps_per_epoch=5, pct_start=0.25,
        anneal_strategy="linear", three_phase=True, div_factor=10.0,
        final_div_factor=100.0), 14),
    "OneCycleLR-no-warmup": (lambda m, opt: m.OneCycleLR(         # from max_lr down at once
        opt, max_lr=[1.0, 0.3], total_steps=6, pct_start=0.0, div_factor=1.0), 5),
}
ONE_CYCLES = [name for name in SCHEDULES if name.startswith("OneCycleLR")]

# torch 2.13's get_last_lr() after building and after each step, for SCHEDULES on
# torch.optim.SGD with groups of lr 0.1 and 0.03 (OneCycleLR sets its own; its sequences
# stop at total_steps - 1, the cycle's last phase end: see test_one_cycle_at_total_steps)
TORCH_LRS = {
    "PolynomialLR": [
        (0.1, 0.03), (0.0765625, 0.02296875), (0.05625, 0.016874999999999998),
        (0.03906250000000001, 0.01171875), (0.02500000000000001, 0.0075000000000000015),
        (0.014062500000000006, 0.004218750000000001),
        (0.006250000000000002, 0.0018750000000000004),
        (0.0015625000000000005, 0.0004687500000000001), (0.0, 0.0), (0.0, 0.0), (0.0, 0.0),
        (0.0, 0.0),
    ],
    "PolynomialLR-defaults": [
        (0.1, 0.03), (0.08000000000000002, 0.024), (0.060000000000000005, 0.018),
        (0.04000000000000001, 0.012), (0.02, 0.005999999999999998), (0.0, 0.0), (0.0, 0.0),
        (0.0, 0.0),
    ],
    "CosineAnnealingWarmRestarts": [
        (0.1, 0.03), (0.07525000000000001, 0.02275),
        (0.025750000000000012, 0.008250000000000004), (0.1, 0.03),
        (0.09336825748732973, 0.02805736835487436), (0.07525000000000001, 0.02275),
        (0.0505, 0.0155), (0.025750000000000012, 0.008250000000000004),
        (0.007631742512670284, 0.002942631645125639), (0.1, 0.03),
        (0.09831332840130888, 0.02950592448119149),
        (0.09336825748732973, 0.02805736835487436),
        (0.0855017856687341, 0.025753048327204937), (0.07525000000000001, 0.02275),
        (0.06331154273257478, 0.01925287615398655), (0.0505, 0.0155),
        (0.03768845726742523, 0.011747123846013448),
        (0.025750000000000012, 0.008250000000000004),
        (0.0154982143312659, 0.0052469516727950615),
        (0.007631742512670284, 0.002942631645125639),
        (0.0026866715986911243, 0.001494075518808511), (0.1, 0.03),
        (0.09957652063800362, 0.029875950489920252),
    ],
    "CosineAnnealingWarmRestarts-defaults": [
        (0.1, 0.03), (0.08535533905932738, 0.02560660171779821), (0.05, 0.015),
        (0.014644660940672627, 0.004393398282201788), (0.1, 0.03),
        (0.08535533905932738, 0.02560660171779821), (0.05, 0.015),
        (0.014644660940672627, 0.004393398282201788), (0.1, 0.03),
        (0.08535533905932738, 0.02560660171779821),
    ],
    "OneCycleLR": [
        (0.040000000000000036, 0.01200000000000001),
        (0.3497896542195831, 0.10493689626587491),
        (0.8792851591221287, 0.2637855477366386),
        (0.9944154354509117, 0.29832463063527354),
        (0.9330129698414117, 0.2799038909524235), (0.811745653949763, 0.24352369618492892),
        (0.6473789976951033, 0.194213699308531),
        (0.46263710266697505, 0.13879113080009253),
        (0.28306099820869923, 0.08491829946260977),
        (0.1334775301888306, 0.04004325905664918),
        (0.03456698742539522, 0.010370096227618567), (4e-06, 1.2e-06),
    ],
    "OneCycleLR-linear-3": [
        (0.05, 0.05), (0.21363636363636362, 0.21363636363636362),
        (0.37727272727272726, 0.37727272727272726),
        (0.4590909090909091, 0.4590909090909091),
        (0.29545454545454547, 0.29545454545454547),
        (0.13181818181818178, 0.13181818181818178),
        (0.04708823529411765, 0.04708823529411765),
        (0.04126470588235294, 0.04126470588235294),
        (0.03544117647058824, 0.03544117647058824),
        (0.029617647058823533, 0.029617647058823533),
        (0.023794117647058823, 0.023794117647058823),
        (0.01797058823529412, 0.01797058823529412),
        (0.012147058823529414, 0.012147058823529414),
        (0.006323529411764707, 0.006323529411764707),
        (0.0005000000000000004, 0.0005000000000000004),
    ],
    "OneCycleLR-no-warmup": [
        (0.9330194006220301, 0.27990582018660903), (0.7500249999999999, 0.2250075),
        (0.50005, 0.150015), (0.2500750000000001, 0.07502250000000003),
        (0.06708059937796987, 0.02012417981339096), (0.0001, 2.9999999999999997e-05),
    ],
}
# and each group's momentum after building and after each step (SGD's momentum; torch gives
# Adam's betas[0] the same numbers)
TORCH_MOMENTA = {
    "OneCycleLR": [
        (0.95, 0.95), (0.9177302443521267, 0.9015953665281902),
        (0.8625744625914449, 0.8188616938871675), (0.8505584586887436, 0.8008376880331154),
        (0.856698729810778, 0.8100480947161671), (0.8688255099070633, 0.828238264860595),
        (0.8852622412794547, 0.8528933619191822), (0.9037365046793212, 0.8806047570189818),
        (0.9216941869558779, 0.9075412804338169), (0.9366525935914912, 0.9299788903872369),
        (0.9465436874322102, 0.9448155311483153), (0.95, 0.95),
    ],
    "OneCycleLR-linear-3": [
        (0.95, 0.95), (0.9136363636363636, 0.9136363636363636),
        (0.8772727272727272, 0.8772727272727272), (0.859090909090909, 0.859090909090909),
        (0.8954545454545454, 0.8954545454545454), (0.9318181818181818, 0.9318181818181818),
        (0.95, 0.95), (0.95, 0.95), (0.95, 0.95), (0.95, 0.95), (0.95, 0.95), (0.95, 0.95),
        (0.95, 0.95), (0.95, 0.95), (0.95, 0.95),
    ],
    "OneCycleLR-no-warmup": [
        (0.856698729810778, 0.856698729810778), (0.875, 0.875),
        (0.8999999999999999, 0.8999999999999999), (0.9249999999999999, 0.9249999999999999),
        (0.9433012701892219, 0.9433012701892219), (0.95, 0.95),
    ],
}

# ReduceLROnPlateau: the metric given at each step (a plateau at 0.69 of 13 epochs, long
# enough for the default patience of 10), and the schedulers
METRICS = [1.0, 0.9, 0.9, 0.95, 0.91, 0.89995, 0.8, 0.85, 0.85, 0.85, 0.85, 0.7, 0.7, 0.7,
           0.7, 0.7, 0.69] + [0.69] * 13
PLATEAUS = {    # "max" modes see the metrics negated: higher is better
    "min": lambda m, opt: m.ReduceLROnPlateau(opt, factor=0.5, patience=2, cooldown=1,
                                              min_lr=[0.02, 0.001]),
    "max-abs": lambda m, opt: m.ReduceLROnPlateau(opt, mode="max", factor=0.3, patience=0,
                                                  threshold=0.05, threshold_mode="abs",
                                                  min_lr=0.005),
    "eps": lambda m, opt: m.ReduceLROnPlateau(opt, factor=0.5, patience=1, eps=0.004),
    "defaults": lambda m, opt: m.ReduceLROnPlateau(opt),
    "max-rel": lambda m, opt: m.ReduceLROnPlateau(opt, mode="max", patience=3, threshold=0.05),
    "factor-0": lambda m, opt: m.ReduceLROnPlateau(opt, factor=0.0, patience=4,
                                                   min_lr=[0.01, 0.0]),
    "min-abs": lambda m, opt: m.ReduceLROnPlateau(opt, factor=0.5, patience=1, cooldown=2,
                                                  threshold=0.1, threshold_mode="abs"),
}
TORCH_PLATEAU_LRS = {
    "min": [
        (0.1, 0.03), (0.1, 0.03), (0.1, 0.03), (0.1, 0.03), (0.1, 0.03), (0.05, 0.015),
        (0.05, 0.015), (0.05, 0.015), (0.05, 0.015), (0.05, 0.015), (0.025, 0.0075),
        (0.025, 0.0075), (0.025, 0.0075), (0.025, 0.0075), (0.025, 0.0075),
        (0.02, 0.00375), (0.02, 0.00375), (0.02, 0.00375), (0.02, 0.00375),
        (0.02, 0.00375), (0.02, 0.001875), (0.02, 0.001875), (0.02, 0.001875),
        (0.02, 0.001875), (0.02, 0.001), (0.02, 0.001), (0.02, 0.001), (0.02, 0.001),
        (0.02, 0.001), (0.02, 0.001), (0.02, 0.001),
    ],
    "max-abs": [
        (0.1, 0.03), (0.1, 0.03), (0.1, 0.03), (0.03, 0.009), (0.009, 0.005),
        (0.005, 0.005), (0.005, 0.005), (0.005, 0.005), (0.005, 0.005), (0.005, 0.005),
        (0.005, 0.005), (0.005, 0.005), (0.005, 0.005), (0.005, 0.005), (0.005, 0.005),
        (0.005, 0.005), (0.005, 0.005), (0.005, 0.005), (0.005, 0.005), (0.005, 0.005),
        (0.005, 0.005), (0.005, 0.005), (0.005, 0.005), (0.005, 0.005), (0.005, 0.005),
        (0.005, 0.005), (0.005, 0.005), (0.005, 0.005), (0.005, 0.005), (0.005, 0.005),
        (0.005, 0.005),
    ],
    "eps": [
        (0.1, 0.03), (0.1, 0.03), (0.1, 0.03), (0.1, 0.03), (0.05, 0.015), (0.05, 0.015),
        (0.025, 0.0075), (0.025, 0.0075), (0.025, 0.0075), (0.0125, 0.0075),
        (0.0125, 0.0075), (0.00625, 0.0075), (0.00625, 0.0075), (0.00625, 0.0075),
        (0.00625, 0.0075), (0.00625, 0.0075), (0.00625, 0.0075), (0.00625, 0.0075),
        (0.00625, 0.0075), (0.00625, 0.0075), (0.00625, 0.0075), (0.00625, 0.0075),
        (0.00625, 0.0075), (0.00625, 0.0075), (0.00625, 0.0075), (0.00625, 0.0075),
        (0.00625, 0.0075), (0.00625, 0.0075), (0.00625, 0.0075), (0.00625, 0.0075),
        (0.00625, 0.0075),
    ],
    "defaults": [
        (0.1, 0.03), (0.1, 0.03), (0.1, 0.03), (0.1, 0.03), (0.1, 0.03), (0.1, 0.03),
        (0.1, 0.03), (0.1, 0.03), (0.1, 0.03), (0.1, 0.03), (0.1, 0.03), (0.1, 0.03),
        (0.1, 0.03), (0.1, 0.03), (0.1, 0.03), (0.1, 0.03), (0.1, 0.03), (0.1, 0.03),
        (0.1, 0.03), (0.1, 0.03), (0.1, 0.03), (0.1, 0.03), (0.1, 0.03), (0.1, 0.03),
        (0.1, 0.03), (0.1, 0.03), (0.1, 0.03), (0.1, 0.03), (0.010000000000000002, 0.003),
        (0.010000000000000002, 0.003), (0.010000000000000002, 0.003),
    ],
    "max-rel": [(0.1, 0.03)] * 11 + [(0.010000000000000002, 0.003)] * 20,
    "factor-0": [(0.1, 0.03)] * 22 + [(0.01, 0.0)] * 9,
    "min-abs": [
        (0.1, 0.03), (0.1, 0.03), (0.1, 0.03), (0.05, 0.015), (0.05, 0.015), (0.05, 0.015),
        (0.05, 0.015), (0.05, 0.015), (0.025, 0.0075), (0.025, 0.0075), (0.025, 0.0075),
        (0.025, 0.0075), (0.025, 0.0075), (0.025, 0.0075), (0.0125, 0.00375),
        (0.0125, 0.00375), (0.0125, 0.00375), (0.0125, 0.00375), (0.00625, 0.001875),
        (0.00625, 0.001875), (0.00625, 0.001875), (0.00625, 0.001875),
        (0.003125, 0.0009375), (0.003125, 0.0009375), (0.003125, 0.0009375),
        (0.003125, 0.0009375), (0.0015625, 0.00046875), (0.0015625, 0.00046875),
        (0.0015625, 0.00046875), (0.0015625, 0.00046875), (0.00078125, 0.000234375),
    ],
}
# and the state_dict of ReduceLROnPlateau(opt), all defaults, before any step
TORCH_PLATEAU_DEFAULTS = {
    "factor": 0.1, "default_min_lr": 0, "min_lrs": [0, 0], "patience": 10, "cooldown": 0,
    "eps": 1e-08, "last_epoch": 0, "_last_lr": [0.1, 0.03], "mode_worse": math.inf,
    "mode": "min", "threshold": 0.0001, "threshold_mode": "rel", "best": math.inf,
    "cooldown_counter": 0, "num_bad_epochs": 0,
}

# CosineAnnealingWarmRestarts(T_0=3, T_mult=2, eta_min=0.001) stepped to each of EPOCHS with
# step(epoch), then three times with step(): torch 2.13's lrs
EPOCHS = [0.0, 0.5, 1.25, 2.0, 2.75, 3.5, 5.0, 6.2, 8.99, 9.0, 9.5]
TORCH_EPOCH_LRS = [
    (0.1, 0.03), (0.09336825748732973, 0.02805736835487436),
    (0.06331154273257478, 0.01925287615398655),
    (0.025750000000000012, 0.008250000000000004),
    (0.0026866715986911243, 0.001494075518808511),
    (0.09831332840130888, 0.02950592448119149), (0.07525000000000001, 0.02275),
    (0.04532584106825117, 0.013984337282619025),
    (0.0010006785337523761, 0.0010001987624123122), (0.1, 0.03),
    (0.09957652063800362, 0.029875950489920252),
    (0.0962320368593087, 0.028896253221413655), (0.08977099034441614, 0.02700362343422291),
    (0.08063369073593167, 0.02432704072062645),
]

# PyTorch's own ChainedScheduler example, ChainedScheduler([ConstantLR(opt, factor=0.1,
# total_iters=2), ExponentialLR(opt, gamma=0.9)]): torch 2.13's lrs at steps 0 to 5
TORCH_CHAINED_LRS = [
    (0.010000000000000002, 0.003), (0.009000000000000003, 0.0027),
    (0.08100000000000003, 0.024300000000000002),
    (0.07290000000000003, 0.021870000000000004),
    (0.06561000000000003, 0.019683000000000003),
    (0.059049000000000025, 0.017714700000000003),
]


def momenta(opt):
    return [g["betas"][0] if "betas" in g else g["momentum"] for g in opt.param_groups]


def sequences(name, module=lr_scheduler, opt=None):
    """The lrs and momenta after building and after each step."""
    build, steps = SCHEDULES[name]
    opt = make_optimizer() if opt is None else opt
    sched = build(module, opt)
    lrs, moms = [sched.get_last_lr()], [momenta(opt)]
    for _ in range(steps):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr())
        moms.append(momenta(opt))
        assert [group["lr"] for group in opt.param_groups] == lrs[-1]
    return lrs, moms


@pytest.mark.parametrize("name", SCHEDULES)
def test_lr_sequence_is_pytorchs(name):
    """Alone on an optimizer, the closed forms give torch's numbers to rounding
    (PolynomialLR, which torch steps recursively, within 4e-16; the others bit for bit)."""
    lrs, moms = sequences(name)
    np.testing.assert_allclose(lrs, TORCH_LRS[name], rtol=1e-14, atol=1e-18)
    if name in TORCH_MOMENTA:
        assert moms == [list(m) for m in TORCH_MOMENTA[name]]


@pytest.mark.parametrize("name", ONE_CYCLES)
def test_one_cycle_cycles_adams_beta1(name):
    opt = make_optimizer(cls=optim.Adam)
    lrs, moms = sequences(name, opt=opt)
    assert lrs == [list(lr) for lr in TORCH_LRS[name]]
    assert moms == [list(m) for m in TORCH_MOMENTA[name]]
    assert all(g["betas"][1] == 0.999 for g in opt.param_groups)     # beta2 untouched


@pytest.mark.parametrize("cls", ["SGD", "Adam"])
@pytest.mark.parametrize("name", SCHEDULES)
def test_lr_sequence_is_live_pytorchs(name, cls):
    torch = pytest.importorskip("torch")
    ours = sequences(name, opt=make_optimizer(cls=getattr(optim, cls)))
    theirs = sequences(name, torch.optim.lr_scheduler, make_torch_optimizer(torch, cls))
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-14, atol=1e-18)
    if name in TORCH_MOMENTA:
        assert ours[1] == theirs[1]


@pytest.mark.parametrize("name", ONE_CYCLES)
def test_one_cycle_at_total_steps_ends_the_cycle_and_stepping_past_it_raises(name):
    """Step T, after the last optimizer step of T, is the cycle's end, as step T - 1:
    min_lr, and the momentum the last phase ends at (PyTorch goes on along the last phase
    there, below 0 with 'linear'); step T + 1 raises, as PyTorch's, and changes nothing."""
    build, steps = SCHEDULES[name]
    opt = make_optimizer()
    sched = build(lr_scheduler, opt)
    for _ in range(steps + 1):
        sched.step()
    assert sched.last_epoch == sched.total_steps == steps + 1
    assert sched.get_last_lr() == list(TORCH_LRS[name][-1])      # step T - 1's
    np.testing.assert_allclose(sched.get_last_lr(), [g["min_lr"] for g in opt.param_groups],
                               rtol=1e-14)
    assert momenta(opt) == [0.95, 0.95]                 # max_momentum, as at step T - 1
    with pytest.raises(ValueError, match=rf"OneCycleLR.step: step {steps + 2} is past the "
                                         rf"cycle, which schedules steps 0 to "
                                         rf"total_steps={steps + 1} \(PyTorch raises"):
        sched.step()
    assert sched.last_epoch == steps + 1
    assert sched.get_last_lr() == list(TORCH_LRS[name][-1])


def test_one_cycle_at_total_steps_against_live_pytorch():
    """Where the two part: torch's lr at step T continues the last phase past its end."""
    torch = pytest.importorskip("torch")
    for name, below in (("OneCycleLR", False), ("OneCycleLR-linear-3", True)):
        build, steps = SCHEDULES[name]
        opt = make_torch_optimizer(torch)
        sched = build(torch.optim.lr_scheduler, opt)
        for _ in range(steps + 1):
            opt.step()
            sched.step()
        min_lrs = [g["min_lr"] for g in opt.param_groups]
        assert all((lr < m) if below else (lr > m) for lr, m in zip(sched.get_last_lr(),
                                                                     min_lrs))
        if below:
            assert sched.get_last_lr()[0] < 0
        with pytest.raises(ValueError, match="Tried to step"):
            sched.step()


def test_one_cycle_stores_pytorchs_keys_in_the_groups_and_resumes_from_them():
    """initial_lr = max_lr / div_factor, max_lr, min_lr = initial_lr / final_div_factor,
    max_momentum, base_momentum: in the groups, as PyTorch's, so the optimizer's
    state_dict carries them and last_epoch=k resumes from it; update never sees them."""
    opt = make_optimizer()
    sched = lr_scheduler.OneCycleLR(opt, max_lr=[1.0, 0.3], total_steps=12,
                                    base_momentum=[0.85, 0.8])
    group = opt.param_groups[1]
    assert {k: group[k] for k in ("initial_lr", "max_lr", "min_lr", "max_momentum",
                                  "base_momentum")} == {
        "initial_lr": 0.3 / 25, "max_lr": 0.3, "min_lr": 0.3 / 25 / 1e4,
        "max_momentum": 0.95, "base_momentum": 0.8}
    for g in opt.param_groups:
        g["params"][0].grad = tinyffn.ones(2, dtype="float64")
    for _ in range(5):
        opt.step()
        sched.step()
    fresh_opt = make_optimizer(lrs=(0.5, 0.7))
    fresh_opt.load_state_dict(opt.state_dict())
    fresh = lr_scheduler.OneCycleLR(fresh_opt, max_lr=[1.0, 0.3], total_steps=12,
                                    last_epoch=5)
    sched.step()
    assert fresh.last_epoch == 6 and fresh.base_lrs == [0.04, 0.012]
    assert fresh.get_last_lr() == sched.get_last_lr() == list(TORCH_LRS["OneCycleLR"][6])
    assert momenta(fresh_opt) == momenta(opt) == list(TORCH_MOMENTA["OneCycleLR"][6])
    with pytest.raises(KeyError, match=r"OneCycleLR: last_epoch=5 resumes a cycle, but "
                                       r"param_groups \[0, 1\] lack some of \['initial_lr', "
                                       r"'max_lr', 'min_lr', 'max_momentum', "
                                       r"'base_momentum'\]; load the optimizer's state_dict"):
        lr_scheduler.OneCycleLR(make_optimizer(), max_lr=1.0, total_steps=12, last_epoch=5)


def test_one_cycle_without_cycle_momentum_leaves_the_momentum():
    opt = optim.SGD([nn.Parameter(tinyffn.zeros(2))], lr=0.1, momentum=0.5)
    sched = lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=12, cycle_momentum=False)
    for _ in range(6):
        sched.step()
    assert opt.momentum == 0.5 and "max_momentum" not in opt.param_groups[0]
    assert sched.get_last_lr() == [TORCH_LRS["OneCycleLR"][6][0]]


def test_one_cycle_sgd_momentum_is_the_one_a_step_uses():
    """With cycle_momentum, SGD's update runs with the scheduled momentum: b_2 = μ_1 b_1 + g."""
    w = nn.Parameter(tinyffn.zeros(2, dtype="float64"))
    opt = optim.SGD([w], lr=0.1)                        # momentum 0: OneCycleLR sets it
    sched = lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=12)
    for _ in range(2):
        w.grad = tinyffn.ones(2, dtype="float64")
        opt.step()
        sched.step()
    mu = TORCH_MOMENTA["OneCycleLR"][1][0]
    np.testing.assert_array_equal(opt.state[w]["momentum_buffer"], [mu + 1, mu + 1])


# ---------------------------------------------------------------- CosineAnnealingWarmRestarts
def test_warm_restarts_step_to_fractional_epochs_as_pytorch():
    """step(epoch) with fractional epochs (one step a batch), then step() goes on from
    there by 1; last_epoch is the whole part, T_cur and T_i follow, as in PyTorch."""
    opt = make_optimizer()
    sched = lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.001)
    lrs = []
    for epoch in EPOCHS:
        sched.step(epoch)
        lrs.append(sched.get_last_lr())
        assert sched.last_epoch == math.floor(epoch)
    assert (sched.T_cur, sched.T_i) == (0.5, 12)        # 9.5: 0.5 into the third cycle
    for _ in range(3):
        sched.step()
        lrs.append(sched.get_last_lr())
    assert (sched.last_epoch, sched.T_cur, sched.T_i) == (12, 3.5, 12)
    np.testing.assert_allclose(lrs, TORCH_EPOCH_LRS, rtol=1e-14)
    assert [g["lr"] for g in opt.param_groups] == lrs[-1]


def test_warm_restarts_fractional_epochs_against_live_pytorch():
    torch = pytest.importorskip("torch")
    for T_mult in (1, 2, 3):
        runs = []
        for module, opt in ((lr_scheduler, make_optimizer()),
                            (torch.optim.lr_scheduler, make_torch_optimizer(torch))):
            sched = module.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=T_mult,
                                                       eta_min=0.001)
            lrs = []
            for epoch in EPOCHS + [13.5, 29.0, 40.25]:
                sched.step(epoch)
                lrs.append(sched.get_last_lr() + [sched.last_epoch, sched.T_cur, sched.T_i])
            for _ in range(3):
                sched.step()
                lrs.append(sched.get_last_lr() + [sched.last_epoch, sched.T_cur, sched.T_i])
            runs.append(lrs)
        np.testing.assert_allclose(*runs, rtol=1e-14)


def test_warm_restarts_find_the_cycle_exactly_where_pytorchs_log_does_not():
    """T_0 = 2, T_mult = 3: the cycles start at 0, 2, 8, 26, 80, 242. At 242 the lr is
    base_lr again, stepping there one step at a time (as PyTorch's step() does too) or
    at once with step(242)."""
    opt = make_optimizer()
    sched = lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=3, eta_min=0.001)
    sched.step(242)
    assert sched.get_last_lr() == list(LRS) and (sched.T_cur, sched.T_i) == (0, 486)
    stepped = lr_scheduler.CosineAnnealingWarmRestarts(make_optimizer(), T_0=2, T_mult=3,
                                                       eta_min=0.001)
    for _ in range(242):
        stepped.step()
    assert stepped.get_last_lr() == list(LRS)


def test_pytorchs_step_epoch_lands_a_cycle_early_at_242():
    """The departure the docstring names: torch 2.13's step(242) takes log₃ 243 as a bit
    under 5 and lands at the end of the cycle before, at eta_min."""
    torch = pytest.importorskip("torch")
    sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        make_torch_optimizer(torch), T_0=2, T_mult=3, eta_min=0.001)
    sched.step(242)
    assert sched.get_last_lr() == [0.001, 0.001] and sched.T_i == 162


# ------------------------------------------------------------------------ ReduceLROnPlateau
def plateau_sequence(name, module=lr_scheduler, opt=None):
    opt = make_optimizer() if opt is None else opt
    sched = PLATEAUS[name](module, opt)
    sign = -1 if name.startswith("max") else 1
    lrs = [sched.get_last_lr()]
    for metric in METRICS:
        sched.step(sign * metric)
        lrs.append(sched.get_last_lr())
    return lrs, sched


@pytest.mark.parametrize("name", PLATEAUS)
def test_plateau_lrs_are_pytorchs(name):
    """Reductions after more than patience bad epochs, none in the cooldown, down to each
    group's min_lr, skipped when by no more than eps: torch's lrs exactly."""
    fresh = PLATEAUS[name](lr_scheduler, make_optimizer())
    assert (fresh.num_bad_epochs, fresh.cooldown_counter, fresh.in_cooldown) == (0, 0, False)
    lrs, sched = plateau_sequence(name)
    assert lrs == [list(lr) for lr in TORCH_PLATEAU_LRS[name]]
    assert sched.last_epoch == len(METRICS)


def test_plateau_defaults_are_pytorchs():
    state = lr_scheduler.ReduceLROnPlateau(make_optimizer()).state_dict()
    assert state == TORCH_PLATEAU_DEFAULTS


@pytest.mark.parametrize("name", PLATEAUS)
def test_plateau_lrs_and_state_are_live_pytorchs(name):
    torch = pytest.importorskip("torch")
    ours, sched = plateau_sequence(name)
    theirs, torch_sched = plateau_sequence(name, torch.optim.lr_scheduler,
                                           make_torch_optimizer(torch))
    assert ours == theirs
    assert sched.state_dict() == torch_sched.state_dict()       # the same keys and values


def test_plateau_loads_a_pytorch_state_and_goes_on_as_pytorch():
    torch = pytest.importorskip("torch")
    torch_opt = make_torch_optimizer(torch)
    torch_sched = PLATEAUS["min"](torch.optim.lr_scheduler, torch_opt)
    for metric in METRICS[:9]:
        torch_sched.step(metric)
    sched = PLATEAUS["min"](lr_scheduler, make_optimizer())
    sched.load_state_dict(torch_sched.state_dict())
    for metric in METRICS[9:]:
        torch_sched.step(metric)
        sched.step(metric)
        assert sched.get_last_lr() == torch_sched.get_last_lr()


def test_plateau_state_dict_round_trip_resumes_midway_bit_for_bit():
    """Saved in the cooldown after a reduction: a fresh scheduler on a fresh optimizer
    (other lrs), loaded, goes on as the original, state and all."""
    opt = make_optimizer()
    sched = PLATEAUS["min"](lr_scheduler, opt)
    for metric in METRICS[:10]:
        sched.step(metric)
    assert sched.in_cooldown and (sched.best, sched.last_epoch) == (0.8, 10)
    saved = sched.state_dict()
    fresh_opt = make_optimizer(lrs=(0.5, 0.7))
    fresh = PLATEAUS["min"](lr_scheduler, fresh_opt)
    fresh.load_state_dict(saved)
    saved["min_lrs"][0] = 123.0                         # the scheduler kept copies
    assert [g["lr"] for g in fresh_opt.param_groups] == sched.get_last_lr() == [0.025, 0.0075]
    for metric in METRICS[10:]:
        sched.step(metric)
        fresh.step(metric)
        assert fresh.get_last_lr() == sched.get_last_lr()
        assert fresh.state_dict() == sched.state_dict()
    with pytest.raises(ValueError, match=r"ReduceLROnPlateau.load_state_dict: the state has "
                                         r".*'step_size'.*; load a ReduceLROnPlateau's"):
        fresh.load_state_dict(lr_scheduler.StepLR(make_optimizer(), 2).state_dict())
    one = PLATEAUS["defaults"](lr_scheduler, make_optimizer(lrs=(0.1,)))
    with pytest.raises(ValueError, match=r"the state is for 2 parameter groups, the "
                                         r"optimizer has 1"):
        one.load_state_dict(saved)
    with pytest.raises(ValueError, match=r"ReduceLROnPlateau: mode must be 'min'"):
        fresh.load_state_dict({**fresh.state_dict(), "mode": "lowest"})


def test_plateau_multiplies_the_lr_the_group_holds(device):
    """Stateful, as PyTorch's: an lr set by hand is reduced from. The metric may be a
    one-element tensor (a loss), on any device."""
    opt = make_optimizer()
    sched = lr_scheduler.ReduceLROnPlateau(opt, patience=0)
    sched.step(tinyffn.tensor(1.0, device=device))
    opt.param_groups[0]["lr"] = 0.5
    sched.step(tinyffn.tensor([2.0], device=device))
    assert sched.get_last_lr() == [0.05, 0.003] and sched.best == 1.0
    with pytest.raises(TypeError, match=r"ReduceLROnPlateau.step: metrics must be a number, "
                                        r"such as the validation loss \(loss.item\(\)\), got "
                                        r"Tensor"):
        sched.step(tinyffn.tensor([1.0, 2.0], device=device))
    with pytest.raises(TypeError, match=r"ReduceLROnPlateau has no lr as a function of "
                                        r"the step"):
        sched.get_lr()


def test_plateau_skips_a_reduction_by_exactly_eps_as_pytorch():
    """A reduction by eps or less is skipped: 0.5 -> 0.25 with eps = 0.25 (torch: 0.5)."""
    sched = lr_scheduler.ReduceLROnPlateau(make_optimizer(lrs=(0.5, 1.0)), factor=0.5,
                                           patience=0, eps=0.25)
    sched.step(1.0)
    sched.step(1.0)
    assert sched.get_last_lr() == [0.5, 0.5]


@pytest.mark.parametrize("mode", ["min", "max"])
def test_plateau_an_equal_metric_is_a_bad_epoch_as_pytorch(mode):
    sched = lr_scheduler.ReduceLROnPlateau(make_optimizer(), mode=mode, patience=0,
                                           threshold=0.0, threshold_mode="abs")
    sched.step(1.0)
    sched.step(1.0)
    assert sched.get_last_lr() == [0.010000000000000002, 0.003]


def test_one_cycle_takes_a_beta1_of_0_as_pytorch():
    opt = make_optimizer(cls=optim.Adam)
    sched = lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10, base_momentum=0.0)
    for _ in range(2):                                  # to the peak, pct_start · 10 - 1
        sched.step()
    assert momenta(opt) == [0.0, 0.0]


def test_one_cycle_takes_a_final_div_factor_of_1_as_pytorch():
    """The cycle ends where it started: min_lr = initial_lr = max_lr / div_factor."""
    opt = make_optimizer()
    sched = lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10, final_div_factor=1.0)
    for _ in range(9):
        sched.step()
    assert [g["min_lr"] for g in opt.param_groups] == sched.get_last_lr() == [0.04, 0.04]


def test_plateau_min_lr_for_a_group_added_later():
    """One min_lr serves a group added later, as in PyTorch; a list must be made longer."""
    opt = make_optimizer()
    sched = lr_scheduler.ReduceLROnPlateau(opt, patience=0, min_lr=0.02)
    opt.add_param_group({"params": [nn.Parameter(tinyffn.zeros(2))], "lr": 1.0})
    sched.step(1.0)
    sched.step(1.0)
    assert sched.get_last_lr() == [0.02, 0.02, 0.1] and sched.min_lrs == [0.02] * 3
    opt = make_optimizer()
    sched = lr_scheduler.ReduceLROnPlateau(opt, patience=0, min_lr=[0.02, 0.0])
    opt.add_param_group({"params": [nn.Parameter(tinyffn.zeros(2))], "lr": 1.0})
    sched.step(1.0)
    with pytest.raises(ValueError, match=r"ReduceLROnPlateau: the optimizer has 3 parameter "
                                         r"groups, min_lr was given for 2; set sched.min_lrs"):
        sched.step(1.0)


def test_a_plateau_in_sequential_is_refused():
    opt = make_optimizer()
    plateau = lr_scheduler.ReduceLROnPlateau(opt)
    with pytest.raises(TypeError, match=r"SequentialLR: schedulers\[1\] is ReduceLROnPlateau; "
                                        r"each must be a tinyffn scheduler .*, stepped "
                                        r"without a metric"):
        lr_scheduler.SequentialLR(opt, [lr_scheduler.StepLR(opt, 2), plateau], [3])
    assert plateau.last_epoch == 0


# ---------------------------------------------------------------------------- all of them
@pytest.mark.parametrize("name", SCHEDULES)
def test_a_fresh_optimizer_and_scheduler_loaded_midway_go_on_identically(name):
    """Five steps, save both states; a fresh optimizer (other lrs) and scheduler, loaded
    in either order, take the remaining steps as the original, lrs and momenta."""
    build, steps = SCHEDULES[name]
    for scheduler_first in (False, True):
        opt = make_optimizer()
        sched = build(lr_scheduler, opt)
        for _ in range(5):
            sched.step()
        fresh_opt = make_optimizer(lrs=(0.5, 0.7))
        fresh = build(lr_scheduler, fresh_opt)
        loads = [lambda: fresh_opt.load_state_dict(opt.state_dict()),
                 lambda: fresh.load_state_dict(sched.state_dict())]
        for load in loads[::-1] if scheduler_first else loads:
            load()
        assert fresh.state_dict() == sched.state_dict()
        for _ in range(steps - 5):
            assert fresh.get_last_lr() == sched.get_last_lr()
            assert [g["lr"] for g in fresh_opt.param_groups] == sched.get_last_lr()
            assert momenta(fresh_opt) == momenta(opt)
            sched.step()
            fresh.step()
        assert fresh.get_last_lr() == sched.get_last_lr()


@pytest.mark.parametrize("name", SCHEDULES)
def test_loading_the_scheduler_alone_sets_the_lr_and_momentum(name):
    """As tinyffn's other schedulers: loading the scheduler's state sets the lrs saved
    (and OneCycleLR's momenta), whether or not the optimizer's state is loaded."""
    build, steps = SCHEDULES[name]
    opt = make_optimizer()
    sched = build(lr_scheduler, opt)
    for _ in range(5):
        sched.step()
    fresh_opt = make_optimizer()
    fresh = build(lr_scheduler, fresh_opt)
    assert fresh.get_last_lr() != sched.get_last_lr()
    fresh.load_state_dict(sched.state_dict())
    assert [g["lr"] for g in fresh_opt.param_groups] == sched.get_last_lr()
    assert momenta(fresh_opt) == momenta(opt)
    fresh.step()
    sched.step()
    assert fresh.get_last_lr() == sched.get_last_lr() and momenta(fresh_opt) == momenta(opt)


def test_warm_restarts_state_keeps_the_fraction_of_an_epoch():
    opt = make_optimizer()
    sched = lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2)
    sched.step(4.25)
    fresh = lr_scheduler.CosineAnnealingWarmRestarts(make_optimizer(), T_0=3, T_mult=2)
    fresh.load_state_dict(sched.state_dict())
    for s in (sched, fresh):
        s.step()
    assert fresh.get_last_lr() == sched.get_last_lr() and fresh.T_cur == 2.25


def test_reachable_as_torch_names_them():
    from tinyffn.optim.lr_scheduler import (CosineAnnealingWarmRestarts, OneCycleLR,
                                            PolynomialLR, ReduceLROnPlateau)
    import tinyffn.lr_scheduler_extra as extra
    import tinyffn.lr_scheduler_more as more
    import tinyffn.lr_scheduler_plateau as plateau
    import tinyffn.lr_scheduler_sequential as sequential

    for cls in (CosineAnnealingWarmRestarts, OneCycleLR, PolynomialLR):
        assert cls is getattr(extra, cls.__name__)
    assert ReduceLROnPlateau is plateau.ReduceLROnPlateau
    assert lr_scheduler.SequentialLR is sequential.SequentialLR
    for cls in (CosineAnnealingWarmRestarts, OneCycleLR, PolynomialLR, ReduceLROnPlateau):
        assert issubclass(cls, lr_scheduler.LRScheduler)    # as torch's, plateau included
    classes = {name for module in (lr_scheduler, extra, more, plateau, sequential)
               for name, obj in vars(module).items()
               if isinstance(obj, type) and obj.__module__ == module.__name__
               and not name.startswith("_")}
    assert sorted(lr_scheduler.__all__) == sorted(classes)     # `import *` gets them all


# -------------------------------------------------------------------------- ChainedScheduler
def test_a_chain_and_a_lambda_of_the_product_are_pytorchs():
    """PyTorch's ChainedScheduler of ConstantLR and ExponentialLR: the ChainedScheduler,
    and the LambdaLR of the product of their factors, one closed form."""
    opt = make_optimizer()
    chain = lr_scheduler.ChainedScheduler([lr_scheduler.ConstantLR(opt, 0.1, 2),
                                           lr_scheduler.ExponentialLR(opt, 0.9)])
    sched = lr_scheduler.LambdaLR(make_optimizer(),
                                  lambda t: (0.1 if t < 2 else 1.0) * 0.9 ** t)
    for s in (chain, sched):
        lrs = [s.get_last_lr()]
        for _ in range(5):
            s.step()
            lrs.append(s.get_last_lr())
        np.testing.assert_allclose(lrs, TORCH_CHAINED_LRS, rtol=1e-15)


def test_a_lambda_of_the_product_is_live_pytorchs_chain():
    """Three factor schedules chained in torch, as one LambdaLR here, and chained."""
    torch = pytest.importorskip("torch")
    L = torch.optim.lr_scheduler
    opt = make_torch_optimizer(torch)
    chain = L.ChainedScheduler([L.LinearLR(opt, start_factor=0.5, total_iters=4),
                                L.StepLR(opt, step_size=3, gamma=0.5),
                                L.PolynomialLR(opt, total_iters=8, power=2.0)], optimizer=opt)
    sched = lr_scheduler.LambdaLR(make_optimizer(), lambda t: (
        (0.5 + 0.5 * min(t, 4) / 4) * 0.5 ** (t // 3) * (1 - min(t, 8) / 8) ** 2))
    ours = make_optimizer()
    L = lr_scheduler
    ours_chain = L.ChainedScheduler([L.LinearLR(ours, start_factor=0.5, total_iters=4),
                                     L.StepLR(ours, step_size=3, gamma=0.5),
                                     L.PolynomialLR(ours, total_iters=8, power=2.0)])
    for _ in range(10):
        np.testing.assert_allclose(sched.get_last_lr(), chain.get_last_lr(), rtol=1e-15)
        assert ours_chain.get_last_lr() == chain.get_last_lr()      # torch's steps, exactly
        opt.step()
        for s in (chain, sched, ours_chain):
            s.step()


# ---------------------------------------------------------------------------------- errors
class NoMomentum(optim.Optimizer):
    """An optimizer with neither SGD's momentum nor Adam's betas."""

    def __init__(self, params, lr=0.1):
        super().__init__(params, {"lr": lr})

    def update(self, w, g, state, xp, *, lr):
        return w - lr * g


def two_groups():
    return make_optimizer()


S = lr_scheduler
ERRORS = {      # name -> (the call, the error, a distinctive part of its message)
    "polynomial-total_iters-0": (
        lambda: S.PolynomialLR(two_groups(), total_iters=0), ValueError,
        r"PolynomialLR: total_iters must be >= 1 \(the steps from base_lr down to 0\)"),
    "polynomial-power-negative": (
        lambda: S.PolynomialLR(two_groups(), power=-1.0), ValueError,
        r"PolynomialLR: power must be a number >= 0 .* a negative power divides by 0 at "
        r"total_iters\), got -1.0"),
    "polynomial-power-inf": (
        lambda: S.PolynomialLR(two_groups(), power=math.inf), ValueError,
        r"PolynomialLR: power must be a number >= 0 .* got inf"),
    "restarts-T_0-0": (
        lambda: S.CosineAnnealingWarmRestarts(two_groups(), T_0=0), ValueError,
        r"CosineAnnealingWarmRestarts: T_0 must be >= 1 \(the steps of the first cycle\)"),
    "restarts-T_0-float": (
        lambda: S.CosineAnnealingWarmRestarts(two_groups(), T_0=2.5), TypeError,
        r"T_0 must be a whole number of steps .* pass int\(2.5\)"),
    "restarts-T_mult-0": (
        lambda: S.CosineAnnealingWarmRestarts(two_groups(), T_0=2, T_mult=0), ValueError,
        r"CosineAnnealingWarmRestarts: T_mult must be >= 1 \(each cycle is T_mult times "
        r"as long as the one before\)"),
    "restarts-eta_min-negative": (
        lambda: S.CosineAnnealingWarmRestarts(two_groups(), T_0=2, eta_min=-1.0), ValueError,
        r"CosineAnnealingWarmRestarts: eta_min must be a number >= 0"),
    "restarts-epoch-negative": (
        lambda: S.CosineAnnealingWarmRestarts(two_groups(), T_0=2).step(-1), ValueError,
        r"CosineAnnealingWarmRestarts.step: epoch must be a number >= 0 \(the epoch to "
        r"move to, such as epoch \+ i / batches\), got -1"),
    "restarts-epoch-inf": (
        lambda: S.CosineAnnealingWarmRestarts(two_groups(), T_0=2).step(math.inf), ValueError,
        r"CosineAnnealingWarmRestarts.step: epoch must be a number >= 0 .* got inf"),
    "restarts-epoch-not-a-number": (
        lambda: S.CosineAnnealingWarmRestarts(two_groups(), T_0=2).step("3"), ValueError,
        r"epoch must be a number >= 0 .* got '3'"),
    "one-cycle-no-length": (
        lambda: S.OneCycleLR(two_groups(), max_lr=1.0), ValueError,
        r"OneCycleLR: give total_steps, or epochs and steps_per_epoch"),
    "one-cycle-epochs-only": (
        lambda: S.OneCycleLR(two_groups(), max_lr=1.0, epochs=3), ValueError,
        r"OneCycleLR: give total_steps, or epochs and steps_per_epoch"),
    "one-cycle-total_steps-0": (
        lambda: S.OneCycleLR(two_groups(), max_lr=1.0, total_steps=0), ValueError,
        r"OneCycleLR: total_steps must be >= 1 \(the steps of the cycle\), got 0"),
    "one-cycle-steps_per_epoch-float": (
        lambda: S.OneCycleLR(two_groups(), 1.0, epochs=2, steps_per_epoch=2.5), TypeError,
        r"OneCycleLR: steps_per_epoch must be a whole number of steps"),
    "one-cycle-pct_start": (
        lambda: S.OneCycleLR(two_groups(), 1.0, 10, pct_start=1.5), ValueError,
        r"OneCycleLR: pct_start must be a number in \[0, 1\] \(the fraction of the steps "
        r"the lr rises for\), got 1.5"),
    "one-cycle-empty-phase": (
        lambda: S.OneCycleLR(two_groups(), 1.0, 10, pct_start=0.1), ValueError,
        r"OneCycleLR: pct_start=0.1 with total_steps=10 gives a phase of no steps "
        r"\(PyTorch divides by zero there\)"),
    "one-cycle-empty-last-phase": (
        lambda: S.OneCycleLR(two_groups(), 1.0, 10, pct_start=1.0), ValueError,
        r"pct_start=1.0 with total_steps=10 gives a phase of no steps"),
    "one-cycle-empty-third-phase": (
        lambda: S.OneCycleLR(two_groups(), 1.0, 9, pct_start=5 / 9, three_phase=True),
        ValueError, r"total_steps=9 and three_phase=True gives a phase of no steps"),
    "one-cycle-anneal": (
        lambda: S.OneCycleLR(two_groups(), 1.0, 10, anneal_strategy="cosine"), ValueError,
        r"OneCycleLR: anneal_strategy must be 'cos' or 'linear', got 'cosine'"),
    "one-cycle-three_phase-not-bool": (
        lambda: S.OneCycleLR(two_groups(), 1.0, 10, three_phase=1), TypeError,
        r"OneCycleLR: three_phase must be True or False, got 1"),
    "one-cycle-max_lr-count": (
        lambda: S.OneCycleLR(two_groups(), [1.0], 10), ValueError,
        r"OneCycleLR: got 1 values of max_lr for 2 parameter groups; pass one number for "
        r"every group, or a list of one per group"),
    "one-cycle-max_lr-negative": (
        lambda: S.OneCycleLR(two_groups(), [1.0, -1.0], 10), ValueError,
        r"OneCycleLR: max_lr\[1\] must be a number >= 0 \(the peak lr\), got -1.0"),
    "one-cycle-div_factor-0": (
        lambda: S.OneCycleLR(two_groups(), 1.0, 10, div_factor=0), ValueError,
        r"OneCycleLR: div_factor must be a number > 0"),
    "one-cycle-final_div_factor-0": (
        lambda: S.OneCycleLR(two_groups(), 1.0, 10, final_div_factor=0), ValueError,
        r"OneCycleLR: final_div_factor must be a number > 0"),
    "one-cycle-no-momentum": (
        lambda: S.OneCycleLR(NoMomentum([nn.Parameter(tinyffn.zeros(2))]), 1.0, 10),
        ValueError,
        r"OneCycleLR: cycle_momentum=True cycles the optimizer's momentum \(SGD's momentum, "
        r"Adam's beta1\), and NoMomentum has neither setting; pass cycle_momentum=False"),
    "one-cycle-beta1-1": (
        lambda: S.OneCycleLR(make_optimizer(cls=optim.AdamW), 1.0, 10, max_momentum=1.0),
        ValueError, r"OneCycleLR: max_momentum must be a number in \[0, 1\), as it is beta1"),
    "one-cycle-sgd-momentum-0": (
        lambda: S.OneCycleLR(two_groups(), 1.0, 10, base_momentum=[0.8, 0.0]), ValueError,
        r"OneCycleLR: base_momentum\[1\] must be a number > 0 for SGD"),
    "one-cycle-sgd-momentum-inf": (
        lambda: S.OneCycleLR(two_groups(), 1.0, 10, max_momentum=math.inf), ValueError,
        r"OneCycleLR: max_momentum must be a number > 0 for SGD .* got inf"),
    "one-cycle-past-the-end": (
        lambda: S.OneCycleLR(two_groups(), 1.0, 10, last_epoch=10), KeyError,
        r"last_epoch=10 resumes a cycle"),
    "plateau-factor-1": (
        lambda: S.ReduceLROnPlateau(two_groups(), factor=1.0), ValueError,
        r"ReduceLROnPlateau: factor must be a number in \[0, 1\) \(.* PyTorch refuses "
        r"factor >= 1, which would not reduce it\), got 1.0"),
    "plateau-factor-negative": (
        lambda: S.ReduceLROnPlateau(two_groups(), factor=-0.5), ValueError,
        r"ReduceLROnPlateau: factor must be a number in \[0, 1\)"),
    "plateau-mode": (
        lambda: S.ReduceLROnPlateau(two_groups(), mode="minimum"), ValueError,
        r"ReduceLROnPlateau: mode must be 'min' \(lower is better: a loss\) or 'max' "
        r"\(higher is better: an accuracy\), got 'minimum'"),
    "plateau-threshold_mode": (
        lambda: S.ReduceLROnPlateau(two_groups(), threshold_mode="relative"), ValueError,
        r"ReduceLROnPlateau: threshold_mode must be 'rel' .* or 'abs' .* got 'relative'"),
    "plateau-threshold-negative": (
        lambda: S.ReduceLROnPlateau(two_groups(), threshold=-0.1), ValueError,
        r"ReduceLROnPlateau: threshold must be a number >= 0"),
    "plateau-min_lr-count": (
        lambda: S.ReduceLROnPlateau(two_groups(), min_lr=[0.1, 0.2, 0.3]), ValueError,
        r"ReduceLROnPlateau: got 3 values of min_lr for 2 parameter groups"),
    "plateau-min_lr-negative": (
        lambda: S.ReduceLROnPlateau(two_groups(), min_lr=-1e-3), ValueError,
        r"ReduceLROnPlateau: min_lr must be a number >= 0 \(the lowest lr a reduction "
        r"goes to\)"),
    "plateau-patience-float": (
        lambda: S.ReduceLROnPlateau(two_groups(), patience=2.5), ValueError,
        r"ReduceLROnPlateau: patience must be a whole number >= 0 \(the bad epochs in a row "
        r"that are tolerated\), got 2.5"),
    "plateau-cooldown-negative": (
        lambda: S.ReduceLROnPlateau(two_groups(), cooldown=-1), ValueError,
        r"ReduceLROnPlateau: cooldown must be a whole number >= 0"),
    "plateau-eps-negative": (
        lambda: S.ReduceLROnPlateau(two_groups(), eps=-1.0), ValueError,
        r"ReduceLROnPlateau: eps must be a number >= 0"),
    "plateau-not-an-optimizer": (
        lambda: S.ReduceLROnPlateau([nn.Parameter(tinyffn.zeros(2))]), TypeError,
        r"ReduceLROnPlateau: optimizer must be a tinyffn optimizer"),
    "plateau-metric-none": (
        lambda: S.ReduceLROnPlateau(two_groups()).step(None), TypeError,
        r"ReduceLROnPlateau.step: metrics must be a number, .* got NoneType"),
}


@pytest.mark.parametrize("call, error, message", ERRORS.values(), ids=list(ERRORS))
def test_errors_say_what_to_do(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_a_refused_one_cycle_leaves_the_groups_alone():
    opt = two_groups()
    with pytest.raises(ValueError, match="max_momentum"):
        lr_scheduler.OneCycleLR(opt, 1.0, 10, max_momentum=-0.5)
    assert "max_lr" not in opt.param_groups[0] and opt.param_groups[0]["momentum"] == 0.0
