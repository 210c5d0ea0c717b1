"""tinyffn.optim.lr_scheduler against PyTorch's numbers: each schedule's lr sequence as
torch.optim.lr_scheduler (2.13) printed it, written out below so that the tests run
without torch (and once more against live torch where it is installed); warmup then
cosine against its formula in NumPy; resuming; the lr a training step really uses; the
errors."""
import math

import numpy as np
import pytest

import tinyffn
from tinyffn import nn, optim
from tinyffn.optim import lr_scheduler

LRS = (0.1, 0.03)       # two parameter groups, each with its own base lr
STEPS = 20


def make_optimizer(lrs=LRS, cls=optim.SGD):
    return cls([{"params": [nn.Parameter(tinyffn.zeros(2, dtype="float64"))], "lr": lr}
                for lr in lrs], lr=1.0)


def aiayn(t):
    """Attention Is All You Need's factor, warmup 4, steps counted from 1 (d^-0.5 left out)."""
    return min((t + 1) ** -0.5, (t + 1) * 4 ** -1.5)


# name -> the scheduler, built from a module (tinyffn's or torch's) on an optimizer
SCHEDULES = {
    "LambdaLR": lambda m, opt: m.LambdaLR(opt, [lambda t: 0.95 ** t, aiayn]),
    "LambdaLR-one": lambda m, opt: m.LambdaLR(opt, lambda t: 1 / (t + 1)),
    "StepLR": lambda m, opt: m.StepLR(opt, step_size=3, gamma=0.5),
    "LinearLR": lambda m, opt: m.LinearLR(opt, start_factor=0.25, end_factor=0.75,
                                          total_iters=8),
    "LinearLR-defaults": lambda m, opt: m.LinearLR(opt),
    "CosineAnnealingLR": lambda m, opt: m.CosineAnnealingLR(opt, T_max=8, eta_min=0.001),
    "ExponentialLR": lambda m, opt: m.ExponentialLR(opt, gamma=0.8),
    "MultiStepLR": lambda m, opt: m.MultiStepLR(opt, milestones=[3, 7, 12], gamma=0.5),
    "MultiStepLR-defaults": lambda m, opt: m.MultiStepLR(opt, milestones=[4]),
    "ConstantLR": lambda m, opt: m.ConstantLR(opt, factor=0.25, total_iters=6),
    "ConstantLR-defaults": lambda m, opt: m.ConstantLR(opt),
    # the bounds PyTorch takes: gamma = 0, a milestone at 1
    "StepLR-gamma-0": lambda m, opt: m.StepLR(opt, step_size=2, gamma=0.0),
    "MultiStepLR-gamma-0": lambda m, opt: m.MultiStepLR(opt, milestones=[1], gamma=0.0),
    "SequentialLR": lambda m, opt: m.SequentialLR(
        opt, [m.LinearLR(opt, start_factor=0.1, total_iters=5),
              m.CosineAnnealingLR(opt, T_max=10, eta_min=0.002)], milestones=[5]),
    "SequentialLR-3": lambda m, opt: m.SequentialLR(
        opt, [m.LinearLR(opt, start_factor=0.5, total_iters=4),
              m.StepLR(opt, step_size=2, gamma=0.5),
              m.CosineAnnealingLR(opt, T_max=6)], milestones=[3, 10]),
    "SequentialLR-at-1": lambda m, opt: m.SequentialLR(
        opt, [m.ConstantLR(opt, factor=0.1, total_iters=1),
              m.ExponentialLR(opt, gamma=0.9)], milestones=[1]),
}

# torch.optim.lr_scheduler 2.13's get_last_lr() after building and after each of 20 steps,
# for SCHEDULES on torch.optim.SGD with groups of lr 0.1 and 0.03. Where torch steps
# recursively, its last digits carry rounding (0.1000000000000001 at the cosine's 2·T_max).
TORCH_LRS = {
    "LambdaLR": [
        (0.1, 0.00375), (0.095, 0.0075), (0.09025, 0.01125), (0.0857375, 0.015),
        (0.081450625, 0.013416407864998738), (0.07737809374999999, 0.01224744871391589),
        (0.07350918906249998, 0.011338934190276817),
        (0.06983372960937498, 0.010606601717798213),
        (0.06634204312890622, 0.009999999999999998),
        (0.0630249409724609, 0.009486832980505138),
        (0.05987369392383787, 0.009045340337332909),
        (0.05688000922764597, 0.008660254037844385),
        (0.05403600876626367, 0.008320502943378437),
        (0.051334208327950485, 0.008017837257372732),
        (0.04876749791155296, 0.007745966692414835), (0.046329123015975304, 0.0075),
        (0.04401266686517654, 0.007276068751089989),
        (0.04181203352191771, 0.0070710678118654745),
        (0.039721431845821824, 0.006882472016116853),
        (0.03773536025353073, 0.006708203932499369),
        (0.03584859224085419, 0.006546536707079772),
    ],
    "LambdaLR-one": [
        (0.1, 0.03), (0.05, 0.015), (0.03333333333333333, 0.009999999999999998),
        (0.025, 0.0075), (0.020000000000000004, 0.006),
        (0.016666666666666666, 0.004999999999999999),
        (0.014285714285714285, 0.004285714285714285), (0.0125, 0.00375),
        (0.011111111111111112, 0.003333333333333333), (0.010000000000000002, 0.003),
        (0.009090909090909092, 0.002727272727272727),
        (0.008333333333333333, 0.0024999999999999996),
        (0.007692307692307693, 0.002307692307692308),
        (0.007142857142857143, 0.0021428571428571425), (0.006666666666666667, 0.002),
        (0.00625, 0.001875), (0.0058823529411764705, 0.001764705882352941),
        (0.005555555555555556, 0.0016666666666666666),
        (0.005263157894736842, 0.0015789473684210524), (0.005000000000000001, 0.0015),
        (0.004761904761904762, 0.0014285714285714284),
    ],
    "StepLR": [
        (0.1, 0.03), (0.1, 0.03), (0.1, 0.03), (0.05, 0.015), (0.05, 0.015), (0.05, 0.015),
        (0.025, 0.0075), (0.025, 0.0075), (0.025, 0.0075), (0.0125, 0.00375),
        (0.0125, 0.00375), (0.0125, 0.00375), (0.00625, 0.001875), (0.00625, 0.001875),
        (0.00625, 0.001875), (0.003125, 0.0009375), (0.003125, 0.0009375),
        (0.003125, 0.0009375), (0.0015625, 0.00046875), (0.0015625, 0.00046875),
        (0.0015625, 0.00046875),
    ],
    "LinearLR": [
        (0.025, 0.0075), (0.03125, 0.009375), (0.0375, 0.01125),
        (0.043750000000000004, 0.013125), (0.05, 0.015), (0.05625, 0.016875),
        (0.0625, 0.018750000000000003), (0.06875, 0.020625000000000004),
        (0.075, 0.022500000000000003), (0.075, 0.022500000000000003),
        (0.075, 0.022500000000000003), (0.075, 0.022500000000000003),
        (0.075, 0.022500000000000003), (0.075, 0.022500000000000003),
        (0.075, 0.022500000000000003), (0.075, 0.022500000000000003),
        (0.075, 0.022500000000000003), (0.075, 0.022500000000000003),
        (0.075, 0.022500000000000003), (0.075, 0.022500000000000003),
        (0.075, 0.022500000000000003),
    ],
    "LinearLR-defaults": [
        (0.03333333333333333, 0.009999999999999998),
        (0.04666666666666667, 0.013999999999999999), (0.060000000000000005, 0.018),
        (0.07333333333333335, 0.022), (0.08666666666666668, 0.026),
        (0.1, 0.029999999999999995), (0.1, 0.029999999999999995),
        (0.1, 0.029999999999999995), (0.1, 0.029999999999999995),
        (0.1, 0.029999999999999995), (0.1, 0.029999999999999995),
        (0.1, 0.029999999999999995), (0.1, 0.029999999999999995),
        (0.1, 0.029999999999999995), (0.1, 0.029999999999999995),
        (0.1, 0.029999999999999995), (0.1, 0.029999999999999995),
        (0.1, 0.029999999999999995), (0.1, 0.029999999999999995),
        (0.1, 0.029999999999999995), (0.1, 0.029999999999999995),
    ],
    "CosineAnnealingLR": [
        (0.1, 0.03), (0.0962320368593087, 0.028896253221413655),
        (0.0855017856687341, 0.025753048327204937),
        (0.06944282990207196, 0.021048909769293803), (0.0505, 0.0155),
        (0.03155717009792806, 0.0099510902307062),
        (0.0154982143312659, 0.0052469516727950615),
        (0.004767963140691306, 0.002103746778586342), (0.001, 0.001),
        (0.004767963140691307, 0.002103746778586342),
        (0.01549821433126591, 0.005246951672795064),
        (0.03155717009792807, 0.009951090230706203),
        (0.05050000000000005, 0.015500000000000014),
        (0.06944282990207204, 0.021048909769293828),
        (0.08550178566873419, 0.025753048327204965),
        (0.09623203685930878, 0.028896253221413683),
        (0.1000000000000001, 0.03000000000000003),
        (0.0962320368593088, 0.028896253221413686),
        (0.0855017856687342, 0.025753048327204965),
        (0.06944282990207205, 0.02104890976929383),
        (0.050500000000000066, 0.015500000000000017),
    ],
    "ExponentialLR": [
        (0.1, 0.03), (0.08000000000000002, 0.024),
        (0.06400000000000002, 0.019200000000000002),
        (0.051200000000000016, 0.015360000000000002),
        (0.04096000000000002, 0.012288000000000002),
        (0.03276800000000001, 0.009830400000000003),
        (0.026214400000000013, 0.007864320000000003),
        (0.02097152000000001, 0.0062914560000000026),
        (0.016777216000000008, 0.005033164800000003),
        (0.013421772800000007, 0.004026531840000003),
        (0.010737418240000006, 0.0032212254720000023),
        (0.008589934592000005, 0.002576980377600002),
        (0.0068719476736000045, 0.0020615843020800016),
        (0.005497558138880004, 0.0016492674416640014),
        (0.004398046511104004, 0.0013194139533312013),
        (0.0035184372088832034, 0.001055531162664961),
        (0.002814749767106563, 0.0008444249301319689),
        (0.0022517998136852503, 0.0006755399441055751),
        (0.0018014398509482003, 0.0005404319552844601),
        (0.0014411518807585604, 0.0004323455642275681),
        (0.0011529215046068484, 0.0003458764513820545),
    ],
    "MultiStepLR": [
        (0.1, 0.03), (0.1, 0.03), (0.1, 0.03), (0.05, 0.015), (0.05, 0.015), (0.05, 0.015),
        (0.05, 0.015), (0.025, 0.0075), (0.025, 0.0075), (0.025, 0.0075), (0.025, 0.0075),
        (0.025, 0.0075), (0.0125, 0.00375), (0.0125, 0.00375), (0.0125, 0.00375),
        (0.0125, 0.00375), (0.0125, 0.00375), (0.0125, 0.00375), (0.0125, 0.00375),
        (0.0125, 0.00375), (0.0125, 0.00375),
    ],
    "MultiStepLR-defaults": [
        (0.1, 0.03), (0.1, 0.03), (0.1, 0.03), (0.1, 0.03), (0.010000000000000002, 0.003),
        (0.010000000000000002, 0.003), (0.010000000000000002, 0.003),
        (0.010000000000000002, 0.003), (0.010000000000000002, 0.003),
        (0.010000000000000002, 0.003), (0.010000000000000002, 0.003),
        (0.010000000000000002, 0.003), (0.010000000000000002, 0.003),
        (0.010000000000000002, 0.003), (0.010000000000000002, 0.003),
        (0.010000000000000002, 0.003), (0.010000000000000002, 0.003),
        (0.010000000000000002, 0.003), (0.010000000000000002, 0.003),
        (0.010000000000000002, 0.003), (0.010000000000000002, 0.003),
    ],
    "ConstantLR": [
        (0.025, 0.0075), (0.025, 0.0075), (0.025, 0.0075), (0.025, 0.0075), (0.025, 0.0075),
        (0.025, 0.0075), (0.1, 0.03), (0.1, 0.03), (0.1, 0.03), (0.1, 0.03), (0.1, 0.03),
        (0.1, 0.03), (0.1, 0.03), (0.1, 0.03), (0.1, 0.03), (0.1, 0.03), (0.1, 0.03),
        (0.1, 0.03), (0.1, 0.03), (0.1, 0.03), (0.1, 0.03),
    ],
    "ConstantLR-defaults": [
        (0.03333333333333333, 0.009999999999999998),
        (0.03333333333333333, 0.009999999999999998),
        (0.03333333333333333, 0.009999999999999998),
        (0.03333333333333333, 0.009999999999999998),
        (0.03333333333333333, 0.009999999999999998), (0.1, 0.029999999999999995),
        (0.1, 0.029999999999999995), (0.1, 0.029999999999999995),
        (0.1, 0.029999999999999995), (0.1, 0.029999999999999995),
        (0.1, 0.029999999999999995), (0.1, 0.029999999999999995),
        (0.1, 0.029999999999999995), (0.1, 0.029999999999999995),
        (0.1, 0.029999999999999995), (0.1, 0.029999999999999995),
        (0.1, 0.029999999999999995), (0.1, 0.029999999999999995),
        (0.1, 0.029999999999999995), (0.1, 0.029999999999999995),
        (0.1, 0.029999999999999995),
    ],

    "StepLR-gamma-0": [(0.1, 0.03)] * 2 + [(0.0, 0.0)] * 19,
    "MultiStepLR-gamma-0": [(0.1, 0.03)] + [(0.0, 0.0)] * 20,
    "SequentialLR": [
        (0.010000000000000002, 0.003), (0.028000000000000004, 0.0084),
        (0.046000000000000006, 0.013799999999999998), (0.064, 0.0192),
        (0.082, 0.024599999999999997), (0.1, 0.03),
        (0.09760176929846254, 0.029314791228132145),
        (0.09064183272437243, 0.027326237921249254),
        (0.07980147736233119, 0.024228993532094616),
        (0.06614183272437242, 0.020326237921249254), (0.051, 0.015999999999999993),
        (0.03585816727562758, 0.011673762078750732),
        (0.02219852263766882, 0.007771006467905375),
        (0.011358167275627579, 0.0046737620787507365),
        (0.004398230701537477, 0.0026852087718678506), (0.002, 0.002),
        (0.004398230701537477, 0.0026852087718678506),
        (0.011358167275627612, 0.004673762078750746),
        (0.022198522637668902, 0.0077710064679054),
        (0.035858167275627725, 0.011673762078750777),
        (0.05100000000000021, 0.01600000000000006),
    ],
    "SequentialLR-3": [
        (0.05, 0.015), (0.0625, 0.01875), (0.075, 0.0225), (0.1, 0.03), (0.1, 0.03),
        (0.05, 0.015), (0.05, 0.015), (0.025, 0.0075), (0.025, 0.0075), (0.0125, 0.00375),
        (0.1, 0.03), (0.09330127018922195, 0.027990381056766583),
        (0.07500000000000001, 0.022500000000000003), (0.05, 0.015000000000000001),
        (0.025000000000000012, 0.007500000000000004),
        (0.006698729810778065, 0.0020096189432334197), (0.0, 0.0),
        (0.006698729810778065, 0.0020096189432334192), (0.025, 0.0075),
        (0.05000000000000004, 0.01500000000000001),
        (0.07500000000000008, 0.02250000000000002),
    ],
    "SequentialLR-at-1": [
        (0.010000000000000002, 0.003), (0.1, 0.03), (0.09000000000000001, 0.027),
        (0.08100000000000002, 0.0243), (0.07290000000000002, 0.02187),
        (0.06561000000000002, 0.019683000000000003),
        (0.05904900000000002, 0.017714700000000003),
        (0.05314410000000002, 0.015943230000000003),
        (0.04782969000000002, 0.014348907000000003),
        (0.043046721000000024, 0.012914016300000003),
        (0.03874204890000002, 0.011622614670000003),
        (0.03486784401000002, 0.010460353203000003),
        (0.03138105960900001, 0.009414317882700002),
        (0.028242953648100012, 0.008472886094430003),
        (0.025418658283290013, 0.007625597484987002),
        (0.022876792454961013, 0.006863037736488302),
        (0.020589113209464913, 0.0061767339628394724),
        (0.01853020188851842, 0.005559060566555525),
        (0.01667718169966658, 0.005003154509899972),
        (0.015009463529699923, 0.004502839058909975),
        (0.013508517176729932, 0.004052555153018977),
    ],
}


def lr_sequence(name, module=lr_scheduler, make=make_optimizer):
    opt = make()
    sched = SCHEDULES[name](module, opt)
    lrs = [sched.get_last_lr()]
    for _ in range(STEPS):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr())
        assert [group["lr"] for group in opt.param_groups] == lrs[-1]
    return lrs


@pytest.mark.parametrize("name", SCHEDULES)
def test_lr_sequence_is_pytorchs(name):
    """The closed forms give torch's recursive numbers to rounding (5e-15 at most here)."""
    np.testing.assert_allclose(lr_sequence(name), TORCH_LRS[name], rtol=1e-12, atol=1e-18)


@pytest.mark.parametrize("name", SCHEDULES)
def test_lr_sequence_is_live_pytorchs(name):
    torch = pytest.importorskip("torch")

    def make():
        return torch.optim.SGD([{"params": [torch.nn.Parameter(torch.zeros(2))], "lr": lr}
                                for lr in LRS], lr=1.0)

    np.testing.assert_allclose(lr_sequence(name), lr_sequence(name, torch.optim.lr_scheduler,
                                                              make), rtol=1e-12, atol=1e-18)


def test_warmup_then_cosine_is_its_formula():
    """nanoGPT's schedule: linear warmup over w steps, cosine from there to eta_min at n,
    as SequentialLR of LinearLR and CosineAnnealingLR, against the closed form in NumPy."""
    w, n, s, eta_min = 10, 50, 0.01, 1e-3
    opt = make_optimizer(cls=optim.AdamW)
    sched = lr_scheduler.SequentialLR(opt, [
        lr_scheduler.LinearLR(opt, start_factor=s, total_iters=w),
        lr_scheduler.CosineAnnealingLR(opt, T_max=n - w, eta_min=eta_min)], milestones=[w])
    lrs = [sched.get_last_lr()]
    for _ in range(n):
        sched.step()
        lrs.append([group["lr"] for group in opt.param_groups])
    t = np.arange(n + 1)[:, None]                               # (n + 1, 1)
    base = np.array(LRS)[None, :]                               # (1, 2)
    warmup = base * (s + (1 - s) * t / w)
    cosine = eta_min + (base - eta_min) * (1 + np.cos(np.pi * (t - w) / (n - w))) / 2
    expected = np.where(t < w, warmup, cosine)                  # (n + 1, 2)
    np.testing.assert_allclose(lrs, expected, rtol=1e-12)
    assert lrs[w] == list(LRS) and lrs[n] == [eta_min, eta_min]


@pytest.mark.parametrize("name", SCHEDULES)
def test_a_fresh_optimizer_and_scheduler_loaded_midway_go_on_identically(name):
    """Seven steps, save both states; a fresh optimizer (made with other lrs) and a
    scheduler built the same way, loaded, take the next thirteen steps as the original."""
    opt = make_optimizer()
    sched = SCHEDULES[name](lr_scheduler, opt)
    for _ in range(7):
        opt.step()
        sched.step()
    saved_opt, saved = opt.state_dict(), sched.state_dict()
    fresh_opt = make_optimizer(lrs=(0.5, 0.7))
    fresh = SCHEDULES[name](lr_scheduler, fresh_opt)
    fresh_opt.load_state_dict(saved_opt)
    fresh.load_state_dict(saved)
    saved["base_lrs"][0] = 123.0                        # the scheduler kept copies
    assert fresh.last_epoch == sched.last_epoch == 7 and fresh.base_lrs == list(LRS)
    for _ in range(13):
        assert fresh.get_last_lr() == sched.get_last_lr()
        assert [g["lr"] for g in fresh_opt.param_groups] == sched.get_last_lr()
        for o, s in ((opt, sched), (fresh_opt, fresh)):
            o.step()
            s.step()
    assert fresh.get_last_lr() == sched.get_last_lr()


@pytest.mark.parametrize("name", SCHEDULES)
def test_loading_the_scheduler_alone_sets_the_lr(name):
    """PyTorch leaves the lr to the optimizer's load_state_dict; here the scheduler's sets
    it too, so a scheduler built after loading the optimizer, or loaded alone, resumes."""
    opt = make_optimizer()
    sched = SCHEDULES[name](lr_scheduler, opt)
    for _ in range(7):
        sched.step()
    fresh_opt = make_optimizer()
    fresh = SCHEDULES[name](lr_scheduler, fresh_opt)
    assert fresh.get_last_lr() != sched.get_last_lr()
    fresh.load_state_dict(sched.state_dict())
    assert [g["lr"] for g in fresh_opt.param_groups] == sched.get_last_lr()
    fresh.step()
    sched.step()
    assert fresh.get_last_lr() == sched.get_last_lr()


def test_lambda_state_keeps_a_callable_objects_attributes_as_pytorch():
    class Warmup:
        def __init__(self, steps):
            self.steps = steps

        def __call__(self, t):
            return min(1.0, (t + 1) / self.steps)

    opt = make_optimizer()
    sched = lr_scheduler.LambdaLR(opt, [Warmup(4), lambda t: 1.0])
    saved = sched.state_dict()
    assert saved["lr_lambdas"] == [{"steps": 4}, None]  # a lambda's code is not saved
    fresh = lr_scheduler.LambdaLR(make_optimizer(), [Warmup(10), lambda t: 1.0])
    fresh.load_state_dict(saved)
    assert fresh.lr_lambdas[0].steps == 4 and fresh.get_last_lr() == [0.025, 0.03]


def test_sequential_undoes_its_schedulers_first_steps_as_pytorch():
    """Each scheduler stepped to 0 when it was built; SequentialLR takes them back to -1
    and steps the first, so the later ones start at 0 at their milestones."""
    opt = make_optimizer()
    warmup = lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=5)
    cosine = lr_scheduler.CosineAnnealingLR(opt, T_max=10)
    assert (warmup.last_epoch, cosine.last_epoch) == (0, 0)
    sched = lr_scheduler.SequentialLR(opt, [warmup, cosine], milestones=[5])
    assert (sched.last_epoch, warmup.last_epoch, cosine.last_epoch) == (0, 0, -1)
    for _ in range(6):
        sched.step()
    assert (sched.last_epoch, warmup.last_epoch, cosine.last_epoch) == (6, 4, 1)
    assert sched.get_lr() == sched.get_last_lr() == cosine.get_last_lr()   # cosine's turn
    saved = sched.state_dict()
    assert [s["last_epoch"] for s in saved["_schedulers"]] == [4, 1]
    assert saved["_milestones"] == [5] and saved["last_epoch"] == 6


def test_a_training_step_uses_the_scheduled_lr():
    """After k scheduler steps, one SGD step moves each parameter by exactly lr_k · g,
    lr_k the schedule's value at k for its group."""
    T, eta_min = 6, 0.004
    w0 = np.random.default_rng(0).normal(size=(2, 3))
    params = [nn.Parameter(tinyffn.tensor(w0)) for _ in LRS]
    opt = optim.SGD([{"params": [p], "lr": lr} for p, lr in zip(params, LRS)], lr=1.0)
    sched = lr_scheduler.CosineAnnealingLR(opt, T_max=T, eta_min=eta_min)
    for k in range(T + 2):
        before = [p.numpy() for p in params]
        gs = [np.random.default_rng(k + 10 * i).normal(size=w0.shape) for i in range(2)]
        for p, g in zip(params, gs):
            p.grad = tinyffn.tensor(g)
        opt.step()
        for p, g, w, base_lr, lr in zip(params, gs, before, LRS, sched.get_last_lr()):
            assert lr == pytest.approx(eta_min + (base_lr - eta_min)
                                       * (1 + math.cos(math.pi * k / T)) / 2, rel=1e-12)
            np.testing.assert_array_equal(p.numpy(), w - lr * g)
        sched.step()


def test_base_lrs_are_kept_in_the_groups_as_initial_lr():
    """As PyTorch's: the first scheduler stores each group's lr as "initial_lr", a later
    one reads its base lrs from there (not the lr the first one set), the optimizer's
    state_dict carries it, and it is not a setting passed to update."""
    opt = make_optimizer()
    first = lr_scheduler.LinearLR(opt, start_factor=0.5)
    assert [g["lr"] for g in opt.param_groups] == [0.05, 0.015]
    assert [g["initial_lr"] for g in opt.param_groups] == list(LRS)
    second = lr_scheduler.StepLR(opt, step_size=2)
    assert first.base_lrs == second.base_lrs == list(LRS)
    assert [g["initial_lr"] for g in opt.state_dict()["param_groups"]] == list(LRS)
    assert "initial_lr" in repr(opt)                    # PyTorch's repr lists it too
    for group in opt.param_groups:
        group["params"][0].grad = tinyffn.ones(2, dtype="float64")
    opt.step()                                          # update() would refuse the key
    assert opt.param_groups[0]["params"][0].numpy().tolist() == [-0.1, -0.1]   # StepLR's
    fresh = make_optimizer()
    fresh.load_state_dict(opt.state_dict())
    assert fresh.param_groups[1]["initial_lr"] == 0.03
    single = optim.SGD([nn.Parameter(tinyffn.zeros(2))], lr=0.1)
    lr_scheduler.StepLR(single, step_size=2)
    assert single.hyperparameters() == {**single.defaults, "lr": 0.1}   # no initial_lr
    given = optim.SGD([{"params": [nn.Parameter(tinyffn.zeros(2))], "initial_lr": 0.2}],
                      lr=0.1)                           # a group that has one keeps it
    assert lr_scheduler.StepLR(given, step_size=2).get_last_lr() == [0.2]
    with pytest.raises(ValueError, match=r"SGD.param_groups\[0\]: initial_lr must be >= 0"):
        opt.param_groups[0]["initial_lr"] = -1.0
    with pytest.raises(KeyError, match="'inital_lr' is not a setting of this optimizer.* did "
                                       "you mean 'initial_lr'"):
        opt.param_groups[0]["inital_lr"] = 0.1          # a near-miss is no label


def test_last_epoch_resumes_from_the_optimizers_saved_state():
    """PyTorch's other way to resume: load the optimizer (it carries initial_lr), then
    build the scheduler with last_epoch=k; its first step takes it to k + 1."""
    opt = make_optimizer()
    sched = lr_scheduler.CosineAnnealingLR(opt, T_max=10)
    for _ in range(4):
        sched.step()
    fresh_opt = make_optimizer(lrs=(0.5, 0.7))
    fresh_opt.load_state_dict(opt.state_dict())
    fresh = lr_scheduler.CosineAnnealingLR(fresh_opt, T_max=10, last_epoch=4)
    sched.step()
    assert fresh.base_lrs == list(LRS) and fresh.last_epoch == 5
    assert fresh.get_last_lr() == sched.get_last_lr()
    opt = make_optimizer()              # SequentialLR: the scheduler whose turn is k + 1
    warmup = lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=5)
    cosine = lr_scheduler.CosineAnnealingLR(opt, T_max=10, eta_min=0.002)
    seq = lr_scheduler.SequentialLR(opt, [warmup, cosine], [5], last_epoch=6)
    assert seq.last_epoch == 7 and cosine.last_epoch == 2
    np.testing.assert_allclose(seq.get_last_lr(), TORCH_LRS["SequentialLR"][7], rtol=1e-12)
    with pytest.raises(KeyError, match=r"last_epoch=4 resumes a schedule, but param_groups "
                                       r"\[0, 1\] have no 'initial_lr'"):
        lr_scheduler.CosineAnnealingLR(make_optimizer(), T_max=10, last_epoch=4)


def test_step_sets_the_schedule_over_an_lr_written_by_hand():
    """The closed form: the next step writes the schedule's value (PyTorch's recursive
    schedulers would carry the hand-written lr on)."""
    opt = make_optimizer()
    sched = lr_scheduler.CosineAnnealingLR(opt, T_max=8, eta_min=0.001)
    opt.param_groups[0]["lr"] = 0.5
    sched.step()
    np.testing.assert_allclose(sched.get_last_lr(), TORCH_LRS["CosineAnnealingLR"][1],
                               rtol=1e-12)
    sched.get_last_lr()[0] = 7.0                        # a copy
    assert sched.get_last_lr()[0] != 7.0


def test_reachable_as_torch_names_it():
    import tinyffn.optim.lr_scheduler as by_import
    from tinyffn.optim.lr_scheduler import CosineAnnealingLR
    import tinyffn.lr_scheduler

    assert by_import is tinyffn.optim.lr_scheduler is tinyffn.lr_scheduler
    assert CosineAnnealingLR is tinyffn.lr_scheduler.CosineAnnealingLR


class TorchLikeSGD:
    """Stands in for torch.optim.SGD: errors name its module."""


TorchLikeSGD.__module__ = "torch.optim.sgd"


def two_groups():
    return make_optimizer()


def sequential(milestones, n=2, other=None, schedulers=None):
    opt = two_groups()
    if schedulers is None:
        schedulers = [lr_scheduler.StepLR(opt, 2) for _ in range(n)]
    if other is not None:
        schedulers[other] = lr_scheduler.StepLR(two_groups(), 2)
    return lr_scheduler.SequentialLR(opt, schedulers, milestones)


S = lr_scheduler
ERRORS = {      # name -> (the call, the error, a distinctive part of its message)
    "not-an-optimizer": (
        lambda: S.StepLR([nn.Parameter(tinyffn.zeros(2))], 3), TypeError,
        r"StepLR: optimizer must be a tinyffn optimizer .* got list; build the scheduler on "
        r"the optimizer"),
    "torch-optimizer": (
        lambda: S.LambdaLR(TorchLikeSGD(), lambda t: 1.0), TypeError,
        r"got torch.optim.sgd.TorchLikeSGD; .* \(torch.optim's optimizers take "
        r"torch.optim.lr_scheduler's schedulers\)"),
    "sequential-not-an-optimizer": (
        lambda: S.SequentialLR("opt", [], []), TypeError,
        r"SequentialLR: optimizer must be a tinyffn optimizer"),
    "lambda-count": (
        lambda: S.LambdaLR(two_groups(), [lambda t: 1.0]), ValueError,
        r"LambdaLR: got 1 lr_lambdas for 2 parameter groups; pass one function for every "
        r"group, or a list of one per group"),
    "lambda-not-callable": (
        lambda: S.LambdaLR(two_groups(), 0.5), TypeError,
        r"LambdaLR: lr_lambda must be a function of the step, such as .* got float"),
    "lambda-list-not-callable": (
        lambda: S.LambdaLR(two_groups(), [abs, "t"]), TypeError,
        r"LambdaLR: lr_lambda\[1\] must be a function of the step, such as .* got str"),
    "lambda-negative": (
        lambda: S.LambdaLR(two_groups(), [abs, lambda t: t - 1]), ValueError,
        r"LambdaLR: lr_lambda\(0\) returned -1 for param_groups\[1\]; it must return a "
        r"number >= 0"),
    "lambda-negative-one-group": (      # one group: no "for param_groups[0]"
        lambda: S.LambdaLR(make_optimizer(lrs=(0.1,)), lambda t: -0.5), ValueError,
        r"LambdaLR: lr_lambda\(0\) returned -0.5; it must return a number >= 0"),
    "lambda-tensor": (
        lambda: S.LambdaLR(two_groups(), lambda t: tinyffn.tensor(1.0)), TypeError,
        r"LambdaLR: lr_lambda\(0\) returned tensor\(.*\) for param_groups\[0\]"),
    "step_size-0": (
        lambda: S.StepLR(two_groups(), step_size=0), ValueError,
        r"StepLR: step_size must be >= 1 \(the lr falls by gamma every step_size steps\), "
        r"got 0"),
    "step_size-float": (
        lambda: S.StepLR(two_groups(), step_size=2.5), TypeError,
        r"StepLR: step_size must be a whole number of steps .* got 2.5; pass int\(2.5\)"),
    "gamma-negative": (
        lambda: S.StepLR(two_groups(), step_size=2, gamma=-0.5), ValueError,
        r"StepLR: gamma must be a number >= 0"),
    "T_max-0": (
        lambda: S.CosineAnnealingLR(two_groups(), T_max=0), ValueError,
        r"CosineAnnealingLR: T_max must be >= 1 \(the steps from base_lr down to eta_min\)"),
    "T_max-negative": (
        lambda: S.CosineAnnealingLR(two_groups(), T_max=-3), ValueError,
        r"T_max must be >= 1 .*, got -3"),
    "eta_min-negative": (
        lambda: S.CosineAnnealingLR(two_groups(), T_max=5, eta_min=-1e-3), ValueError,
        r"CosineAnnealingLR: eta_min must be a number >= 0"),
    "total_iters-0": (
        lambda: S.LinearLR(two_groups(), total_iters=0), ValueError,
        r"LinearLR: total_iters must be >= 1"),
    "start_factor-0": (
        lambda: S.LinearLR(two_groups(), start_factor=0.0), ValueError,
        r"LinearLR: start_factor must be a number in \(0, 1\], as in PyTorch .* got 0.0"),
    "start_factor-above-1": (
        lambda: S.LinearLR(two_groups(), start_factor=1.5), ValueError,
        r"start_factor must be a number in \(0, 1\], .* got 1.5"),
    "end_factor-negative": (
        lambda: S.LinearLR(two_groups(), end_factor=-0.1), ValueError,
        r"LinearLR: end_factor must be a number in \[0, 1\], as in PyTorch .* got -0.1"),
    "end_factor-above-1": (
        lambda: S.LinearLR(two_groups(), end_factor=2.0), ValueError,
        r"end_factor must be a number in \[0, 1\], .* got 2.0"),
    "exponential-gamma-0": (
        lambda: S.ExponentialLR(two_groups(), gamma=0), ValueError,
        r"ExponentialLR: gamma must be a number > 0 \(the factor the lr is multiplied by "
        r"every step\), got 0"),
    "exponential-gamma-nan": (
        lambda: S.ExponentialLR(two_groups(), gamma=float("nan")), ValueError,
        r"ExponentialLR: gamma must be a number > 0 .* got nan"),
    "exponential-gamma-inf": (
        lambda: S.ExponentialLR(two_groups(), gamma=math.inf), ValueError,
        r"ExponentialLR: gamma must be a number > 0 .* got inf"),
    "multistep-gamma-negative": (
        lambda: S.MultiStepLR(two_groups(), [2], gamma=-0.1), ValueError,
        r"MultiStepLR: gamma must be a number >= 0 \(the factor the lr is multiplied by at "
        r"each milestone\), got -0.1"),
    "multistep-repeated": (
        lambda: S.MultiStepLR(two_groups(), [3, 3]), ValueError,
        r"MultiStepLR: milestones must be a list of increasing whole numbers >= 1, the "
        r"steps at which the lr is multiplied by gamma, got \[3, 3\]"),
    "multistep-decreasing": (
        lambda: S.MultiStepLR(two_groups(), (7, 3)), ValueError,
        r"MultiStepLR: milestones must be a list of increasing .* got \(7, 3\)"),
    "multistep-0": (
        lambda: S.MultiStepLR(two_groups(), [0, 4]), ValueError,
        r"MultiStepLR: milestones must be .* whole numbers >= 1, .* got \[0, 4\]"),
    "multistep-float": (
        lambda: S.MultiStepLR(two_groups(), [2.0]), ValueError,
        r"MultiStepLR: milestones must be .* whole numbers .* got \[2.0\]"),
    "multistep-not-a-list": (
        lambda: S.MultiStepLR(two_groups(), 5), ValueError,
        r"MultiStepLR: milestones must be a list .* got 5"),
    "constant-factor-0": (
        lambda: S.ConstantLR(two_groups(), factor=0.0), ValueError,
        r"ConstantLR: factor must be a number in \(0, 1\] \(the lr before .* got 0.0"),
    "constant-factor-above-1": (
        lambda: S.ConstantLR(two_groups(), factor=1.5), ValueError,
        r"ConstantLR: factor must be a number in \(0, 1\] .* got 1.5"),
    "constant-total_iters-0": (
        lambda: S.ConstantLR(two_groups(), total_iters=0), ValueError,
        r"ConstantLR: total_iters must be >= 1 \(the steps at base_lr · factor\), got 0"),
    "constant-total_iters-float": (
        lambda: S.ConstantLR(two_groups(), total_iters=2.5), TypeError,
        r"ConstantLR: total_iters must be a whole number of steps .* pass int\(2.5\)"),
    "last_epoch-below-minus-1": (
        lambda: S.StepLR(two_groups(), 3, last_epoch=-2), ValueError,
        r"StepLR: last_epoch must be a whole number >= -1"),
    "milestones-repeated": (
        lambda: sequential([5, 5], n=3), ValueError,
        r"SequentialLR: milestones must be increasing whole numbers >= 1 \(the steps at "
        r"which schedulers\[1\], schedulers\[2\], ... take over\), got \[5, 5\]"),
    "milestones-decreasing": (
        lambda: sequential([10, 5], n=3), ValueError,
        r"milestones must be increasing .* got \[10, 5\]"),
    "milestone-0": (
        lambda: sequential([0]), ValueError,
        r"milestones must be increasing whole numbers >= 1 .* got \[0\]"),
    "milestone-float": (
        lambda: sequential([2.5]), ValueError,
        r"milestones must be increasing whole numbers .* got \[2.5\]"),
    "milestones-too-many": (
        lambda: sequential([5, 10]), ValueError,
        r"SequentialLR: milestones must list one step for each scheduler after the first, "
        r"at which it takes over \(1 for 2 schedulers\), got milestones=\[5, 10\]"),
    "milestones-too-few": (
        lambda: sequential([], n=2), ValueError,
        r"\(1 for 2 schedulers\), got milestones=\[\]"),
    "another-optimizer": (
        lambda: sequential([5], other=1), ValueError,
        r"SequentialLR: schedulers\[1\] \(StepLR\) was built on another optimizer \(SGD\); "
        r"build every scheduler on the optimizer given to SequentialLR"),
    "no-schedulers": (
        lambda: sequential([], schedulers=[]), ValueError,
        r"SequentialLR: schedulers must be a list of one or more schedulers"),
    "not-a-scheduler": (
        lambda: sequential([5], schedulers=[0.1, 0.2]), TypeError,
        r"SequentialLR: schedulers\[0\] is float; each must be a tinyffn scheduler"),
}


@pytest.mark.parametrize("call, error, message", ERRORS.values(), ids=list(ERRORS))
def test_errors_say_what_to_do(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("build", [
    lambda opt: lr_scheduler.MultiStepLR(opt, milestones=[]),
    lambda opt: lr_scheduler.ConstantLR(opt, factor=1.0)], ids=["no-milestones", "factor-1"])
def test_a_schedule_of_factor_1_keeps_the_base_lrs_as_pytorch(build):
    sched = build(make_optimizer())
    for _ in range(5):
        sched.step()
    assert sched.get_last_lr() == list(LRS)


def test_a_sequential_in_a_sequential_is_refused():
    opt = two_groups()
    inner = lr_scheduler.SequentialLR(opt, [lr_scheduler.StepLR(opt, 2)], [])
    with pytest.raises(TypeError, match=r"schedulers\[0\] is SequentialLR; .*, not a "
                                        r"SequentialLR: list its schedulers here instead"):
        lr_scheduler.SequentialLR(opt, [inner, lr_scheduler.StepLR(opt, 2)], [3])


def test_a_group_added_after_the_scheduler_is_refused_at_the_next_step():
    opt = two_groups()
    sched = lr_scheduler.StepLR(opt, 2)
    opt.add_param_group({"params": [nn.Parameter(tinyffn.zeros(2))], "lr": 0.5})
    with pytest.raises(ValueError, match=r"StepLR: the optimizer has 3 parameter groups, "
                                         r"the scheduler was built for 2; build the "
                                         r"scheduler after the last add_param_group"):
        sched.step()


def test_loading_another_schedulers_state_is_refused():
    opt = two_groups()
    cosine = lr_scheduler.CosineAnnealingLR(opt, T_max=5)
    with pytest.raises(ValueError, match=r"CosineAnnealingLR.load_state_dict: the state has "
                                         r".*'step_size'.*; load a CosineAnnealingLR's "
                                         r"state_dict \(one saved by another scheduler, or "
                                         r"by torch.optim.lr_scheduler, does not load\)"):
        cosine.load_state_dict(lr_scheduler.StepLR(two_groups(), 2).state_dict())
    single = optim.SGD([nn.Parameter(tinyffn.zeros(2))], lr=0.1)
    with pytest.raises(ValueError, match=r"the state is for 1 parameter groups, the "
                                         r"optimizer has 2"):
        cosine.load_state_dict(lr_scheduler.CosineAnnealingLR(single, T_max=5).state_dict())
    assert cosine.get_last_lr() == list(LRS)            # nothing changed
