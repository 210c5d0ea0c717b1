"""More of ``torch.optim.lr_scheduler``, reached as the others, ``tinyffn.optim.lr_scheduler.X``
(:mod:`tinyffn.lr_scheduler` imports them; its docstring has the closed-form design):

* ``PolynomialLR``, ``CosineAnnealingWarmRestarts`` (with PyTorch's ``step(epoch)``,
  fractional epochs included) and ``OneCycleLR``: closed forms of the step count.
  OneCycleLR reads them, as PyTorch's, from values it stores in each group, and cycles
  SGD's ``momentum`` or Adam's beta1.

``ReduceLROnPlateau``, a schedule of a metric, is in lr_scheduler_plateau.py.

**ChainedScheduler** is in lr_scheduler_more.py. PyTorch's steps several schedulers
together, each from the lr the one before left. From closed forms that is faithful only
for schedules that are a factor of the base lr, a LambdaLR of the product of their factors
(PyTorch's example, ConstantLR(factor=0.1, total_iters=2) chained with ExponentialLR
(gamma=0.9), is ``LambdaLR(opt, lambda t: (0.1 if t < 2 else 1.0) * 0.9 ** t)``); a
CosineAnnealingLR is not, so the chain steps each scheduler by PyTorch's recursive rule.
"""
from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from . import optim
from .arguments import _number, _whole, is_real
from .lr_scheduler import LRScheduler, _check_optimizer


def _finite(x: float) -> bool:
    """For the settings that are numbers >= 0, and finite."""
    return 0 <= x < math.inf


def _per_group(owner: str, name: str, value: Any, n: int, ok, wanted: str,
               why: str) -> list:
    """One number for every group, or a list of one per group: a list of n floats."""
    several = isinstance(value, (list, tuple))
    if several and len(value) != n:
        raise ValueError(f"{owner}: got {len(value)} values of {name} for {n} parameter "
                         "groups; pass one number for every group, or a list of one per "
                         "group, in param_groups order")
    values = list(value) if several else [value] * n
    return [_number(owner, f"{name}[{i}]" if several else name, v, ok, wanted, why)
            for i, v in enumerate(values)]


class PolynomialLR(LRScheduler):
    """lr_t = base_lr · (1 − min(t, T) / T)^p, with T = ``total_iters`` and p = ``power``:
    from base_lr down to 0 at step T, then 0 (PyTorch's ``PolynomialLR``, which multiplies
    the group's lr by ((1 − t/T) / (1 − (t−1)/T))^p each step up to T). p = 1 is a linear
    decay to 0; p = 0.5 holds the lr high for longer, p = 2 lowers it sooner."""

    def __init__(self, optimizer: optim.Optimizer, total_iters: int = 5, power: float = 1.0,
                 last_epoch: int = -1):
        self.total_iters = _whole("PolynomialLR", "total_iters", total_iters,
                                  "the steps from base_lr down to 0")
        self.power = _number("PolynomialLR", "power", power, _finite, ">= 0",
                             "the lr is base_lr · (1 - t / total_iters) ** power; a "
                             "negative power divides by 0 at total_iters")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        T = self.total_iters
        factor = (1.0 - min(T, self.last_epoch) / T) ** self.power
        return [base_lr * factor for base_lr in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    """SGDR (Loshchilov & Hutter 2017), PyTorch's ``CosineAnnealingWarmRestarts``::

        lr = η_min + (base_lr − η_min) · (1 + cos(π T_cur / T_i)) / 2

    half a cosine down towards η_min = ``eta_min`` over a cycle of T_i steps, then back to
    base_lr (a warm restart); the cycles are T_0, T_0·T_mult, T_0·T_mult², ... steps, T_i
    that of the step's, T_cur the steps into it (read-only attributes, computed from t).
    ``step(epoch)`` moves to ``epoch``, a number >= 0, as PyTorch's: stepped once a batch
    with ``epoch + i / batches`` it restarts at whole epochs; ``step()`` then goes on by 1.

    The cycle is found by adding up their lengths, exactly; PyTorch's ``step(epoch)``
    takes a logarithm, which lands a cycle early at some restarts (T_0 = 2, T_mult = 3:
    log₃ 243 < 5 in floats, so its ``step(242)`` gives η_min, not base_lr).
    """

    def __init__(self, optimizer: optim.Optimizer, T_0: int, T_mult: int = 1,
                 eta_min: float = 0.0, last_epoch: int = -1):
        name = "CosineAnnealingWarmRestarts"
        self.T_0 = _whole(name, "T_0", T_0, "the steps of the first cycle")
        self.T_mult = _whole(name, "T_mult", T_mult,
                             "each cycle is T_mult times as long as the one before")
        self.eta_min = _number(name, "eta_min", eta_min, lambda e: e >= 0, ">= 0",
                               "the lr each cycle falls towards")
        self._fraction = 0.0        # of an epoch, after step(epoch) with a fractional epoch
        super().__init__(optimizer, last_epoch)

    def _cycle(self) -> tuple:
        """(T_cur, T_i) at the position ``last_epoch + _fraction``."""
        position = self.last_epoch + self._fraction if self._fraction else self.last_epoch
        start, T_i = 0, self.T_0
        if self.T_mult == 1:
            return position % T_i, T_i          # PyTorch's epoch % T_0
        while position >= start + T_i:          # the cycles before the position's
            start, T_i = start + T_i, T_i * self.T_mult
        return position - start, T_i

    @property
    def T_cur(self) -> float:
        """The steps since the last restart (a fraction after ``step(epoch)``)."""
        return self._cycle()[0]

    @property
    def T_i(self) -> int:
        """The length of the cycle the schedule is in."""
        return self._cycle()[1]

    def get_lr(self) -> list:
        T_cur, T_i = self._cycle()
        cosine = 1 + math.cos(math.pi * T_cur / T_i)        # 2 at a restart, 0 at its end
        return [self.eta_min + (base_lr - self.eta_min) * cosine / 2
                for base_lr in self.base_lrs]

    def step(self, epoch: float | None = None) -> None:
        """t ← t + 1, or with ``epoch``, move to it (a real number >= 0, as PyTorch's)."""
        if epoch is None:
            super().step()
            return
        if not is_real(epoch) or not 0 <= epoch < math.inf:
            raise ValueError(f"CosineAnnealingWarmRestarts.step: epoch must be a number "
                             f">= 0 (the epoch to move to, such as epoch + i / batches), "
                             f"got {epoch!r}")
        self.last_epoch = math.floor(epoch)
        self._fraction = float(epoch - self.last_epoch)   # exact: epoch ≥ its floor ≥ epoch/2
        self._set_lrs(self.get_lr())


def _momentum_rule(name: str, optimizer: Any) -> tuple:
    """(use_beta1, ok, wanted) for OneCycleLR's and CyclicLR's momentum: Adam's beta1 in
    [0, 1), or SGD's momentum > 0 (SGD refuses to drop its buffers once it has state)."""
    use_beta1 = "betas" in optimizer.defaults       # PyTorch's test and name
    if not use_beta1 and "momentum" not in optimizer.defaults:
        raise ValueError(f"{name}: cycle_momentum=True cycles the optimizer's momentum (SGD's "
                         f"momentum, Adam's beta1), and {type(optimizer).__name__} has neither "
                         "setting; pass cycle_momentum=False")
    if use_beta1:
        return True, (lambda m: 0 <= m < 1), "in [0, 1), as it is beta1"
    return False, (lambda m: 0 < m < math.inf), "> 0 for SGD"

class OneCycleLR(LRScheduler):
    """The 1cycle policy (Smith & Topin 2018), PyTorch's ``OneCycleLR``, stepped once a
    batch: over T = ``total_steps`` (or ``epochs * steps_per_epoch``) the lr rises from
    max_lr / ``div_factor`` to ``max_lr`` for the first ``pct_start`` of the steps, then
    falls to max_lr / div_factor / ``final_div_factor``; ``three_phase=True`` (the paper's)
    comes back to the start in as many steps as it rose, then falls. The phases end at
    e_1 = pct_start·T − 1 and T − 1 (three: e_1, 2 e_1, T − 1); a step t in the phase from
    e_{i−1} (or 0) to e_i is at f = (t − e_{i−1}) / (e_i − e_{i−1}) of it, and the lr goes
    from a to b as ``anneal_strategy`` says::

        'cos':     lr = b + (a − b) · (cos(π f) + 1) / 2
        'linear':  lr = (b − a) · f + a

    As PyTorch's, it stores ``initial_lr`` (the start), ``max_lr`` and ``min_lr`` (the end)
    in each group and reads them there (so the optimizer's ``state_dict`` resumes it with
    ``last_epoch=k``). With ``cycle_momentum``, the momentum moves the other way, from
    ``max_momentum`` to ``base_momentum`` (stored in the groups too) while the lr rises:
    SGD's ``momentum``, or Adam's and AdamW's ``betas[0]``; an optimizer with neither is
    refused, as in PyTorch.

    Steps 0 to T are scheduled, and one more raises, as in PyTorch. Step T, set after the
    last of T optimizer steps, keeps the end of the cycle, as T − 1, where PyTorch goes on
    along the last phase (with 'linear', to an lr below 0, which tinyffn refuses).
    """

    def __init__(self, optimizer: optim.Optimizer, max_lr: float | Sequence[float],
                 total_steps: int | None = None, epochs: int | None = None,
                 steps_per_epoch: int | None = None, pct_start: float = 0.3,
                 anneal_strategy: str = "cos", cycle_momentum: bool = True,
                 base_momentum: float | Sequence[float] = 0.85,
                 max_momentum: float | Sequence[float] = 0.95, div_factor: float = 25.0,
                 final_div_factor: float = 1e4, three_phase: bool = False,
                 last_epoch: int = -1):
        name = "OneCycleLR"
        _check_optimizer(name, optimizer)
        groups = optimizer.param_groups
        if total_steps is not None:
            self.total_steps = _whole(name, "total_steps", total_steps,
                                      "the steps of the cycle")
        elif epochs is not None and steps_per_epoch is not None:
            self.total_steps = (_whole(name, "epochs", epochs, "total_steps is epochs · "
                                       "steps_per_epoch")
                                * _whole(name, "steps_per_epoch", steps_per_epoch,
                                         "total_steps is epochs · steps_per_epoch"))
        else:
            raise ValueError(f"{name}: give total_steps, or epochs and steps_per_epoch "
                             "(the number of optimizer steps the cycle lasts)")
        self.pct_start = _number(name, "pct_start", pct_start, lambda p: 0 <= p <= 1,
                                 "in [0, 1]", "the fraction of the steps the lr rises for")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"{name}: anneal_strategy must be 'cos' or 'linear', got "
                             f"{anneal_strategy!r}")
        self.anneal_strategy = anneal_strategy
        for flag, value in (("cycle_momentum", cycle_momentum), ("three_phase", three_phase)):
            if not isinstance(value, bool):
                raise TypeError(f"{name}: {flag} must be True or False, got {value!r}")
        self.three_phase, self.cycle_momentum = three_phase, cycle_momentum
        self._check_phases()
        n = len(groups)
        max_lrs = _per_group(name, "max_lr", max_lr, n, _finite, ">= 0", "the peak lr")
        div = _number(name, "div_factor", div_factor, lambda x: _finite(x) and x > 0, "> 0",
                      "the lr starts at max_lr / div_factor")
        final = _number(name, "final_div_factor", final_div_factor,
                        lambda x: _finite(x) and x > 0, "> 0",
                        "the lr ends at max_lr / div_factor / final_div_factor")
        keys = ("initial_lr", "max_lr", "min_lr")
        if cycle_momentum:
            keys += ("max_momentum", "base_momentum")
            self.use_beta1, ok, wanted = _momentum_rule(name, optimizer)
            momenta = [_per_group(name, key, value, n, ok, wanted, "the momentum's range")
                       for key, value in (("max_momentum", max_momentum),
                                          ("base_momentum", base_momentum))]
        if last_epoch == -1:        # as PyTorch's: the values the schedule reads
            for i, group in enumerate(groups):
                group.update(initial_lr=max_lrs[i] / div, max_lr=max_lrs[i])
                group["min_lr"] = group["initial_lr"] / final
                if cycle_momentum:
                    group.update(max_momentum=momenta[0][i], base_momentum=momenta[1][i])
        missing = [i for i, group in enumerate(groups) if any(k not in group for k in keys)]
        if missing:
            raise KeyError(f"{name}: last_epoch={last_epoch} resumes a cycle, but "
                           f"param_groups {missing} lack some of {list(keys)}; load the "
                           "optimizer's state_dict saved with the schedule first")
        super().__init__(optimizer, last_epoch)

    def _phases(self) -> list:
        """PyTorch's phases: (the step it ends at, the group's keys of the lr and the
        momentum it goes from and to)."""
        T, end = self.total_steps, float(self.pct_start * self.total_steps) - 1
        if self.three_phase:
            return [(end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                    (float(2 * self.pct_start * T) - 2, "max_lr", "initial_lr",
                     "base_momentum", "max_momentum"),
                    (T - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum")]
        return [(end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                (T - 1, "max_lr", "min_lr", "base_momentum", "max_momentum")]

    def _check_phases(self) -> None:
        """PyTorch divides by 0 where a phase some step falls in has no length."""
        ends = [phase[0] for phase in self._phases()]
        if ends[0] == 0 or ends[-1] == ends[-2]:        # step 0 in the first; T in the last
            raise ValueError(
                f"OneCycleLR: pct_start={self.pct_start} with total_steps={self.total_steps}"
                f"{' and three_phase=True' if self.three_phase else ''} gives a phase of no "
                "steps (PyTorch divides by zero there); choose another pct_start")

    def _at(self, group: Mapping, t: int) -> tuple:
        """(lr, momentum) of a group at step t: its phase, and the fraction f of it."""
        start = 0.0
        phases = self._phases()
        for i, (end, lr_from, lr_to, m_from, m_to) in enumerate(phases):
            if t <= end or i == len(phases) - 1:
                # f > 1 only at t = T, past the last phase's end T - 1: PyTorch goes on
                # along the phase there (with 'linear', to an lr below 0); the end is kept
                f = min((t - start) / (end - start), 1.0)
                momentum = self._anneal(group[m_from], group[m_to], f) \
                    if self.cycle_momentum else None
                return self._anneal(group[lr_from], group[lr_to], f), momentum
            start = end

    def _anneal(self, a: float, b: float, f: float) -> float:
        """From a (f = 0) to b (f = 1), as PyTorch's ``_annealing_cos`` and ``_linear``."""
        if self.anneal_strategy == "cos":
            return b + (a - b) / 2.0 * (math.cos(math.pi * f) + 1)
        return (b - a) * f + a

    def get_lr(self) -> list:
        return [self._at(group, self.last_epoch)[0] for group in self.optimizer.param_groups]

    def step(self) -> None:
        """t ← t + 1: each group's lr, and its momentum with ``cycle_momentum``, at t."""
        if self.last_epoch + 1 > self.total_steps:
            raise ValueError(
                f"OneCycleLR.step: step {self.last_epoch + 1} is past the cycle, which "
                f"schedules steps 0 to total_steps={self.total_steps} (PyTorch raises here "
                "too); build it with the number of optimizer steps you take")
        super().step()
        self._set_momenta()

    def load_state_dict(self, state_dict: Mapping) -> None:
        super().load_state_dict(state_dict)
        self._set_momenta()

    def _set_momenta(self) -> None:
        if not self.cycle_momentum:
            return
        for group in self.optimizer.param_groups:
            momentum = self._at(group, self.last_epoch)[1]
            if self.use_beta1:
                group["betas"] = (momentum, *group["betas"][1:])
            else:
                group["momentum"] = momentum
