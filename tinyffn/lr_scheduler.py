"""Learning-rate schedules, as ``torch.optim.lr_scheduler`` (reached as
``tinyffn.optim.lr_scheduler``): warm the lr up, then decay it, one ``step()`` after each
optimizer step::

    opt = optim.AdamW(model.parameters(), lr=6e-4)
    warmup = LinearLR(opt, start_factor=0.01, total_iters=100)      # 100 steps up to 6e-4
    cosine = CosineAnnealingLR(opt, T_max=900, eta_min=6e-5)         # 900 down to 6e-5
    sched = SequentialLR(opt, [warmup, cosine], milestones=[100])
    for x, y in batches:
        ...; opt.step(); sched.step()

A scheduler counts its steps in ``last_epoch`` (PyTorch's name; t in the formulas) and
sets each group's lr to a function of t and the group's base lr: the closed forms of
PyTorch's documentation, computed from the count. PyTorch steps all but LambdaLR
recursively instead, from the lr the group holds (it keeps the closed forms for the
deprecated ``step(epoch)``). For one scheduler on an optimizer the two give
the same numbers to rounding (within 5e-15 relative over the tests' 20 steps, the drift
of PyTorch's recursion). They part where something else moves the lr between steps:

* two schedulers stepped together on one optimizer compound in PyTorch (its "chaining");
  here the last to step sets the lr, unless a ChainedScheduler steps them
  (lr_scheduler_more.py), with PyTorch's recursive rules. Run schedulers one after
  another with SequentialLR (lr_scheduler_sequential.py);
* an lr written by hand is carried on by PyTorch's recursive schedulers; here the next
  ``step()`` sets the schedule's value over it;
* ``last_epoch=k`` (resuming): building the scheduler takes t to k + 1, as in PyTorch, and
  sets the schedule's lr there, where PyTorch's LinearLR, CosineAnnealingLR and
  ExponentialLR keep the group's lr (and its SequentialLR starts its first scheduler
  whatever k is).

And ``load_state_dict`` sets the lrs saved, which PyTorch's leaves to the optimizer's.

Base lrs: as PyTorch's, a scheduler built on an optimizer stores each group's lr in the
group as ``initial_lr``, unless one is there (``group.setdefault``; a ``ParamGroup`` takes
this key besides the settings), and reads its ``base_lrs`` from it. So a second scheduler
on the optimizer, built after the first has set the lr, still starts from the lr the
optimizer was given (SequentialLR's schedulers are built so), and the optimizer's
``state_dict`` carries ``initial_lr``, from which ``last_epoch=k`` resumes.
"""
from __future__ import annotations

import math
import types
from bisect import bisect_right
from typing import Any, Callable, Mapping, Sequence

from . import optim     # optim imports this module as it starts: use optim.Optimizer in calls
from .arguments import _is_int, _number, _whole, is_real, type_name


class LRScheduler:
    """Base class, as PyTorch's: ``optimizer``; ``base_lrs``, each group's ``initial_lr``;
    ``last_epoch``, t, the steps taken (-1 before the first). ``step()`` adds one to t and
    sets each group's lr to ``get_lr()``, the schedule at t; ``get_last_lr()`` lists them.

    Building one takes a first step, as PyTorch's do: t becomes ``last_epoch + 1`` (0 for
    a new schedule) and each group's lr the schedule's value there. A subclass writes
    ``get_lr``: the lr of each group at ``self.last_epoch``, from ``self.base_lrs``.
    """

    def __init__(self, optimizer: optim.Optimizer, last_epoch: int = -1):
        name = type(self).__name__
        _check_optimizer(name, optimizer)
        if not _is_int(last_epoch) or last_epoch < -1:
            raise ValueError(f"{name}: last_epoch must be a whole number >= -1 (-1 for a new "
                             f"schedule, k to resume after step k), got {last_epoch!r}")
        groups = optimizer.param_groups
        if last_epoch == -1:
            for group in groups:
                group.setdefault("initial_lr", group["lr"])
        missing = [i for i, group in enumerate(groups) if "initial_lr" not in group]
        if missing:
            raise KeyError(
                f"{name}: last_epoch={last_epoch} resumes a schedule, but param_groups "
                f"{missing} have no 'initial_lr', the lr the schedule started from; load "
                "the optimizer's state_dict saved with the schedule first, or build the "
                "scheduler with last_epoch=-1 and load the scheduler's state_dict")
        self.optimizer = optimizer
        self.base_lrs = [group["initial_lr"] for group in groups]
        self.last_epoch = int(last_epoch)
        self.step()

    def get_lr(self) -> list:
        """The lr of each group at t = ``last_epoch``, from ``base_lrs`` (the closed form;
        PyTorch's ``get_lr`` is its recursive step and warns outside ``step``)."""
        raise NotImplementedError(f"{type(self).__name__} must define get_lr(): the lr of "
                                  "each group at self.last_epoch, from self.base_lrs")

    def step(self) -> None:
        """t ← t + 1, and each group's lr ← the schedule's at t. Call it after
        ``optimizer.step()``, once a step, as in PyTorch."""
        self.last_epoch += 1
        self._set_lrs(self.get_lr())

    def get_last_lr(self) -> list:
        """The lrs the last ``step()`` set, one per group, in ``param_groups`` order."""
        return list(self._last_lr)

    def _set_lrs(self, lrs: list) -> None:
        groups = self.optimizer.param_groups
        if len(groups) != len(self.base_lrs):
            raise ValueError(
                f"{type(self).__name__}: the optimizer has {len(groups)} parameter groups, "
                f"the scheduler was built for {len(self.base_lrs)}; build the scheduler "
                "after the last add_param_group")
        for group, lr in zip(groups, lrs):
            group["lr"] = lr                    # checked by the optimizer, a Python float
        self._last_lr = [group["lr"] for group in groups]

    # -- saving and resuming ---------------------------------------------------------------
    def state_dict(self) -> dict:
        """What resuming needs, as PyTorch's: every attribute but the optimizer
        (``base_lrs``, ``last_epoch``, the settings, ``_last_lr``), lists copied."""
        return {k: list(v) if isinstance(v, list) else v
                for k, v in vars(self).items() if k != "optimizer"}

    def load_state_dict(self, state_dict: Mapping) -> None:
        """Resume from a :meth:`state_dict` saved by the same kind of scheduler, and set each
        group's lr to the one saved (PyTorch's leaves that to the optimizer's
        ``load_state_dict``; here the order of the two loads does not matter)."""
        self._check_state(state_dict)
        self.__dict__.update({k: list(v) if isinstance(v, list) else v
                              for k, v in state_dict.items()})
        self._set_lrs(self._last_lr)

    def _check_state(self, state_dict: Mapping) -> None:
        cls = type(self).__name__
        name = f"{cls}.load_state_dict"
        keys, mine = sorted(state_dict), sorted(self.state_dict())
        if keys != mine:
            raise ValueError(f"{name}: the state has {keys}, but {cls} keeps {mine}; load "
                             f"a {cls}'s state_dict (one saved by another scheduler, or by "
                             "torch.optim.lr_scheduler, does not load)")
        n, saved = len(self.optimizer.param_groups), len(state_dict["base_lrs"])
        if saved != n:
            raise ValueError(f"{name}: the state is for {saved} parameter groups, the "
                             f"optimizer has {n}; build the optimizer with the groups it "
                             "had when the state was saved")


def _check_optimizer(owner: str, optimizer: Any) -> None:
    if not isinstance(optimizer, optim.Optimizer):
        got = type_name(optimizer)
        raise TypeError(
            f"{owner}: optimizer must be a tinyffn optimizer (optim.SGD, optim.Adam, "
            f"optim.AdamW or a subclass of optim.Optimizer), got {got}; build the scheduler "
            "on the optimizer whose param_groups' lr it should set" + (
                " (torch.optim's optimizers take torch.optim.lr_scheduler's schedulers)"
                if got.startswith("torch.") else ""))


def _lr_lambdas(owner: str, optimizer: optim.Optimizer, fn: Any, example: str) -> list:
    """``lr_lambda`` (LambdaLR, MultiplicativeLR): one function, or one per group."""
    n, several = len(optimizer.param_groups), isinstance(fn, (list, tuple))
    fns = list(fn) if several else [fn] * n
    if several and len(fns) != n:
        raise ValueError(f"{owner}: got {len(fns)} lr_lambdas for {n} parameter groups; "
                         "pass one function for every group, or a list of one per group, "
                         "in param_groups order")
    for i, f in enumerate(fns):
        if not callable(f):
            raise TypeError(f"{owner}: lr_lambda{f'[{i}]' if several else ''} must be a "
                            f"function of the step, such as lambda t: {example}; got "
                            f"{type_name(f)}")
    return fns


class LambdaLR(LRScheduler):
    """lr_t = base_lr · λ(t), any schedule written as a function of the step t (PyTorch's
    ``LambdaLR``, which computes the same). ``lr_lambda`` is one function for every group,
    or a list of them, one per group. Attention Is All You Need's schedule for model width
    d and ``warmup`` steps, counting steps from 1, on an optimizer with lr=1.0::

        LambdaLR(opt, lambda t: d ** -0.5 * min((t + 1) ** -0.5, (t + 1) * warmup ** -1.5))

    ``state_dict`` keeps, of each λ, the attributes of a callable object (its
    ``__dict__``), and nothing of a function or lambda, whose code cannot be saved: build
    the scheduler with the same functions before loading, as in PyTorch.
    """

    def __init__(self, optimizer: optim.Optimizer,
                 lr_lambda: Callable[[int], float] | Sequence[Callable[[int], float]],
                 last_epoch: int = -1):
        _check_optimizer("LambdaLR", optimizer)
        self.lr_lambdas = _lr_lambdas("LambdaLR", optimizer, lr_lambda, "0.95 ** t")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        lrs = []
        for i, (fn, base_lr) in enumerate(zip(self.lr_lambdas, self.base_lrs)):
            factor = fn(self.last_epoch)
            if not is_real(factor) or not factor >= 0:
                where = f" for param_groups[{i}]" if len(self.base_lrs) > 1 else ""
                raise (ValueError if is_real(factor) else TypeError)(
                    f"LambdaLR: lr_lambda({self.last_epoch}) returned {factor!r}{where}; it "
                    "must return a number >= 0, the factor the base lr is multiplied by")
            lrs.append(base_lr * factor)
        return lrs

    def state_dict(self) -> dict:
        state = super().state_dict()
        state["lr_lambdas"] = [  # a callable object's attributes; of a function, nothing
            None if isinstance(fn, (types.FunctionType, types.MethodType))
            or not hasattr(fn, "__dict__") else dict(vars(fn)) for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict: Mapping) -> None:
        self._check_state(state_dict)
        saved = state_dict["lr_lambdas"]
        if len(saved) != len(self.lr_lambdas):
            raise ValueError(f"LambdaLR.load_state_dict: the state has {len(saved)} "
                             f"lr_lambdas, this scheduler {len(self.lr_lambdas)}")
        super().load_state_dict({**state_dict, "lr_lambdas": self.lr_lambdas})
        for fn, attributes in zip(self.lr_lambdas, saved):
            if attributes is not None:          # a callable object's own state
                fn.__dict__.update(attributes)


class StepLR(LRScheduler):
    """lr_t = base_lr · γ^⌊t / step_size⌋: the lr falls by a factor γ = ``gamma`` every
    ``step_size`` steps (PyTorch's ``StepLR``, which multiplies the group's lr by γ at
    each multiple of step_size)."""

    def __init__(self, optimizer: optim.Optimizer, step_size: int, gamma: float = 0.1,
                 last_epoch: int = -1):
        self.step_size = _whole("StepLR", "step_size", step_size,
                                "the lr falls by gamma every step_size steps")
        self.gamma = _number("StepLR", "gamma", gamma, lambda g: g >= 0, ">= 0",
                             "the factor the lr is multiplied by every step_size steps")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size)
                for base_lr in self.base_lrs]


class LinearLR(LRScheduler):
    """lr_t = base_lr · (s + (e − s) · min(t, T) / T), with s = ``start_factor``, e =
    ``end_factor``, T = ``total_iters``: the factor moves in a straight line from s to e
    over T steps, then stays e (PyTorch's ``LinearLR``). A warmup is s small and e = 1;
    a linear decay to 0 is s = 1, e = 0. As in PyTorch, s is in (0, 1] and e in [0, 1]."""

    def __init__(self, optimizer: optim.Optimizer, start_factor: float = 1.0 / 3,
                 end_factor: float = 1.0, total_iters: int = 5, last_epoch: int = -1):
        self.start_factor = _number("LinearLR", "start_factor", start_factor,
                                    lambda f: 0 < f <= 1, "in (0, 1], as in PyTorch",
                                    "the lr at step 0 is base_lr · start_factor")
        self.end_factor = _number("LinearLR", "end_factor", end_factor, lambda f: 0 <= f <= 1,
                                  "in [0, 1], as in PyTorch",
                                  "the lr from step total_iters on is base_lr · end_factor")
        self.total_iters = _whole("LinearLR", "total_iters", total_iters,
                                  "the steps from start_factor to end_factor")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        s, e, T = self.start_factor, self.end_factor, self.total_iters
        return [base_lr * (s + (e - s) * min(T, self.last_epoch) / T)
                for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """lr_t = η_min + (base_lr − η_min) · (1 + cos(π t / T_max)) / 2: half a cosine, from
    base_lr at t = 0 down to η_min = ``eta_min`` at t = T_max (SGDR without restarts,
    PyTorch's ``CosineAnnealingLR``). Past T_max the cosine goes on, back up to base_lr at
    2·T_max, as PyTorch's does; to hold η_min, stop stepping at T_max, or hand over to
    another scheduler with SequentialLR.

    PyTorch steps the recursive form lr_t = η_min + (lr_{t−1} − η_min) · (1 + cos(π t /
    T_max)) / (1 + cos(π (t − 1) / T_max)), which its documentation calls an approximation
    of this closed form; alone on an optimizer they agree to rounding.
    """

    def __init__(self, optimizer: optim.Optimizer, T_max: int, eta_min: float = 0.0,
                 last_epoch: int = -1):
        self.T_max = _whole("CosineAnnealingLR", "T_max", T_max,
                            "the steps from base_lr down to eta_min")
        self.eta_min = _number("CosineAnnealingLR", "eta_min", eta_min, lambda e: e >= 0,
                               ">= 0", "the lr reached at step T_max")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        cosine = (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2  # 1 -> 0 -> 1
        return [self.eta_min + (base_lr - self.eta_min) * cosine for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """lr_t = base_lr · γ^k, k the number of ``milestones`` ≤ t: the lr falls by a factor
    γ = ``gamma`` at each milestone (PyTorch's ``MultiStepLR``, which multiplies the
    group's lr by γ there). The milestones are increasing steps ≥ 1, none at all a
    constant lr; PyTorch also takes a repeated one as γ², written here as one with γ²."""

    def __init__(self, optimizer: optim.Optimizer, milestones: Sequence[int],
                 gamma: float = 0.1, last_epoch: int = -1):
        if not isinstance(milestones, (list, tuple)) or not all(
                _is_int(m) for m in milestones) or any(
                b <= a for a, b in zip([0, *milestones], milestones)):
            raise ValueError(f"MultiStepLR: milestones must be a list of increasing whole "
                             f"numbers >= 1, the steps at which the lr is multiplied by "
                             f"gamma, got {milestones!r}")
        self.gamma = _number("MultiStepLR", "gamma", gamma, lambda g: g >= 0, ">= 0",
                             "the factor the lr is multiplied by at each milestone")
        self.milestones = [int(m) for m in milestones]
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        k = bisect_right(self.milestones, self.last_epoch)
        return [base_lr * self.gamma ** k for base_lr in self.base_lrs]


class ConstantLR(LRScheduler):
    """lr_t = base_lr · f for t < T, then base_lr, with f = ``factor`` and T =
    ``total_iters``: a constant warmup (PyTorch's ``ConstantLR``, which multiplies the
    group's lr by f at step 0 and divides it by f at T). f is in (0, 1]; PyTorch fails at
    T on 0."""

    def __init__(self, optimizer: optim.Optimizer, factor: float = 1.0 / 3,
                 total_iters: int = 5, last_epoch: int = -1):
        self.factor = _number("ConstantLR", "factor", factor, lambda f: 0 < f <= 1,
                              "in (0, 1]",
                              "the lr before step total_iters is base_lr · factor")
        self.total_iters = _whole("ConstantLR", "total_iters", total_iters,
                                  "the steps at base_lr · factor")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        f = self.factor if self.last_epoch < self.total_iters else 1.0
        return [base_lr * f for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    """lr_t = base_lr · γ^t: the lr falls by a factor γ = ``gamma`` > 0 every step
    (PyTorch's ``ExponentialLR``, which multiplies the group's lr by γ each step)."""

    def __init__(self, optimizer: optim.Optimizer, gamma: float, last_epoch: int = -1):
        self.gamma = _number("ExponentialLR", "gamma", gamma, lambda g: 0 < g < math.inf,
                             "> 0", "the factor the lr is multiplied by every step")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        return [base_lr * self.gamma ** self.last_epoch for base_lr in self.base_lrs]


# more schedules, each group in a file of its own
from .lr_scheduler_sequential import SequentialLR
from .lr_scheduler_extra import CosineAnnealingWarmRestarts, OneCycleLR, PolynomialLR
from .lr_scheduler_plateau import ReduceLROnPlateau
from .lr_scheduler_more import ChainedScheduler, CyclicLR, MultiplicativeLR

__all__ = ["LRScheduler", "LambdaLR", "StepLR", "LinearLR", "CosineAnnealingLR", "MultiStepLR",
           "ConstantLR", "ExponentialLR", "SequentialLR", "PolynomialLR",
           "CosineAnnealingWarmRestarts", "OneCycleLR", "ReduceLROnPlateau",
           "MultiplicativeLR", "CyclicLR", "ChainedScheduler"]
