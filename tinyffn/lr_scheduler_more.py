"""Three more of ``torch.optim.lr_scheduler``, reached as the others,
``tinyffn.optim.lr_scheduler.X`` (:mod:`tinyffn.lr_scheduler` imports them):

* ``MultiplicativeLR``: lr_t = lr_{t−1} · λ(t), the product of λ(1) ... λ(t) times the
  base lr, multiplied in PyTorch's order (kept from step to step, so a step costs one λ);
* ``CyclicLR``: the cyclical learning rates of Smith (2017), a closed form of the step, as
  PyTorch's; it cycles SGD's ``momentum`` or Adam's beta1 the other way;
* ``ChainedScheduler``: several schedulers stepped together, each carrying on from the lr
  the one before it set, as PyTorch's. The other schedulers here set closed forms, so the
  chain steps each with PyTorch's recursive rule instead (``_TORCH_STEPS``): StepLR's
  lr · γ at each multiple of step_size, CosineAnnealingLR's η_min + (lr − η_min) · (1 +
  cos(π t / T)) / (1 + cos(π (t − 1) / T)), ... A LambdaLR, CyclicLR, OneCycleLR or
  CosineAnnealingWarmRestarts sets its closed form in a chain too, as in PyTorch.
"""
from __future__ import annotations

import math
import types
from typing import Any, Callable, Mapping, Sequence

from . import optim
from .arguments import _number, is_real, type_name
from .lr_scheduler import (ConstantLR, CosineAnnealingLR, ExponentialLR, LinearLR,
                           LRScheduler, MultiStepLR, StepLR, _check_optimizer, _lr_lambdas)
from .lr_scheduler_extra import PolynomialLR, _finite, _per_group, _momentum_rule
from .lr_scheduler_plateau import ReduceLROnPlateau
from .lr_scheduler_sequential import SequentialLR


def _saved(fn: Any) -> dict | None:
    """What PyTorch's state_dict keeps of a function it was given: a callable object's
    attributes, and nothing of a function or lambda, whose code cannot be saved."""
    if fn is None or isinstance(fn, (types.FunctionType, types.MethodType)) or not hasattr(
            fn, "__dict__"):
        return None
    return dict(vars(fn))


class MultiplicativeLR(LRScheduler):
    """lr_t = lr_{t−1} · λ(t) for t ≥ 1, lr_0 = base_lr: each step multiplies the lr by
    the factor λ = ``lr_lambda`` returns for it (one function, or one per group), PyTorch's
    ``MultiplicativeLR``. λ(0) is never called. As a closed form, base_lr · λ(1) · ... ·
    λ(t), multiplied in that order; the lrs reached are kept, so a step calls λ once (and
    ``last_epoch=k`` calls it k + 1 times). ``state_dict`` keeps of each λ what LambdaLR's
    does (a callable object's attributes), and PyTorch's keys."""

    def __init__(self, optimizer: optim.Optimizer,
                 lr_lambda: Callable[[int], float] | Sequence[Callable[[int], float]],
                 last_epoch: int = -1):
        _check_optimizer("MultiplicativeLR", optimizer)
        self.lr_lambdas = _lr_lambdas("MultiplicativeLR", optimizer, lr_lambda, "0.95")
        self._reached = None        # (t, the lrs at t): the product so far, not saved
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        t = self.last_epoch
        if self._reached is None or self._reached[0] > t:
            self._reached = (0, list(self.base_lrs))
        k, lrs = self._reached
        for k in range(k + 1, t + 1):
            lrs = [lr * self._factor(i, k) for i, lr in enumerate(lrs)]
        self._reached = (t, lrs)
        return list(lrs)

    def _factor(self, i: int, t: int) -> float:
        factor = self.lr_lambdas[i](t)
        if not is_real(factor) or not factor >= 0:
            raise (ValueError if is_real(factor) else TypeError)(
                f"MultiplicativeLR: lr_lambda({t}) returned {factor!r} for param_groups[{i}]"
                "; it must return a number >= 0, the factor the lr is multiplied by")
        return factor

    def state_dict(self) -> dict:
        state = super().state_dict()
        del state["_reached"]
        state["lr_lambdas"] = [_saved(fn) for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict: Mapping) -> None:
        self._check_state(state_dict)
        saved = state_dict["lr_lambdas"]
        super().load_state_dict({**state_dict, "lr_lambdas": self.lr_lambdas})
        for fn, attributes in zip(self.lr_lambdas, saved):
            if attributes is not None:
                fn.__dict__.update(attributes)
        self._reached = (self.last_epoch, list(self._last_lr))     # go on from the lr saved


class CyclicLR(LRScheduler):
    """Cyclical learning rates (Smith 2017), PyTorch's ``CyclicLR``, stepped once a batch:
    the lr climbs from ``base_lr`` towards ``max_lr`` over ``step_size_up`` steps, comes
    back over ``step_size_down`` (default: as many), and so on. With c = ⌊1 + t / S⌋ the
    cycle (from 1), S = up + down, x = 1 + t / S − c the fraction of it and r = up / S::

        h  = x / r             if x ≤ r, else (x − 1) / (r − 1)      # 0 → 1 → 0
        lr = base_lr + (max_lr − base_lr) · h · scale_fn(c or t)

    ``mode``: 'triangular' (scale 1), 'triangular2' (halved each cycle: 1 / 2^(c − 1)),
    'exp_range' (``gamma`` ** t); or your ``scale_fn`` of the cycle c (``scale_mode=
    'cycle'``) or of the step t ('iterations'), which then sets the mode. As PyTorch's it
    sets each group's lr to base_lr as it is built (last_epoch=-1), so ``initial_lr`` is
    base_lr, unless a scheduler built before on the optimizer set it: then step 0's lr is
    that ``initial_lr`` (PyTorch's first step reads it), base_lr's cycle from step 1. With ``cycle_momentum`` (the default) the momentum goes the other way, from
    ``max_momentum`` down to ``base_momentum`` at the lr's peak: SGD's ``momentum`` or
    Adam's beta1 (an optimizer with neither is refused, as by PyTorch); the two are stored
    in the groups too. ``state_dict`` has PyTorch's keys, and of a ``scale_fn`` keeps what
    PyTorch does: nothing of a function or lambda (build the scheduler with it again)."""

    def __init__(self, optimizer: optim.Optimizer, base_lr: float | Sequence[float],
                 max_lr: float | Sequence[float], step_size_up: int = 2000,
                 step_size_down: int | None = None, mode: str = "triangular",
                 gamma: float = 1.0, scale_fn: Callable[[float], float] | None = None,
                 scale_mode: str = "cycle", cycle_momentum: bool = True,
                 base_momentum: float | Sequence[float] = 0.8,
                 max_momentum: float | Sequence[float] = 0.9, last_epoch: int = -1):
        name = "CyclicLR"
        _check_optimizer(name, optimizer)
        n = len(optimizer.param_groups)
        base_lrs = _per_group(name, "base_lr", base_lr, n, _finite, ">= 0",
                              "the lr at the start of each cycle")
        self.max_lrs = _per_group(name, "max_lr", max_lr, n, _finite, ">= 0",
                                  "the lr at the peak of the first cycle")
        up = _number(name, "step_size_up", step_size_up, lambda s: 0 < s < math.inf, "> 0",
                     "the steps from base_lr up to max_lr; PyTorch divides by 0 at 0")
        down = up if step_size_down is None else _number(
            name, "step_size_down", step_size_down, _finite, ">= 0 or None (as step_size_up)",
            "the steps from max_lr back to base_lr")
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError(f"{name}: mode must be 'triangular', 'triangular2' or "
                             f"'exp_range', or give scale_fn; got mode={mode!r}")
        if scale_fn is not None and not callable(scale_fn):
            raise TypeError(f"{name}: scale_fn must be a function of the cycle or step (0 "
                            f"to 1, such as lambda c: 0.5 ** c), or None; got "
                            f"{type_name(scale_fn)}")
        if scale_mode not in ("cycle", "iterations"):
            raise ValueError(f"{name}: scale_mode must be 'cycle' (scale_fn of the cycle "
                             f"number) or 'iterations' (of the step), got {scale_mode!r}")
        self.mode = mode
        self.gamma = _number(name, "gamma", gamma, lambda g: 0 < g < math.inf, "> 0",
                             "exp_range scales the cycle's height by gamma ** step")
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode if scale_fn is not None else (   # as PyTorch's
            "iterations" if mode == "exp_range" else "cycle")
        if not isinstance(cycle_momentum, bool):
            raise TypeError(f"{name}: cycle_momentum must be True or False, got "
                            f"{cycle_momentum!r}")
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1, ok, wanted = _momentum_rule(name, optimizer)
            self.base_momentums = _per_group(name, "base_momentum", base_momentum, n, ok,
                                             wanted, "the momentum at the lr's peak")
            self.max_momentums = _per_group(name, "max_momentum", max_momentum, n, ok,
                                            wanted, "the momentum at base_lr")
        if last_epoch == -1:        # as PyTorch's: the start of the cycle, in the groups
            for i, group in enumerate(optimizer.param_groups):
                group["lr"] = base_lrs[i]
                if cycle_momentum:
                    group.update(max_momentum=self.max_momentums[i],
                                 base_momentum=self.base_momentums[i])
        super().__init__(optimizer, last_epoch)
        # as PyTorch's: the first step (above) ran from the groups' initial_lr, base_lr
        # only where no scheduler set initial_lr before; base_lr from the next step on
        self.base_lrs = base_lrs
        self._set_momenta()

    def scale_fn(self, x: float) -> float:
        """The scale of the cycle's height at cycle or step x: ``mode``'s, or yours."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma ** x

    def _heights(self) -> tuple:
        """(h, scale) at t: the fraction of the cycle's height, PyTorch's arithmetic."""
        t = self.last_epoch
        cycle = math.floor(1 + t / self.total_size)
        x = 1.0 + t / self.total_size - cycle
        h = x / self.step_ratio if x <= self.step_ratio else (x - 1) / (self.step_ratio - 1)
        return h, self.scale_fn(cycle if self.scale_mode == "cycle" else t)

    def get_lr(self) -> list:
        h, scale = self._heights()
        return [base_lr + (max_lr - base_lr) * h * scale
                for base_lr, max_lr in zip(self.base_lrs, self.max_lrs)]

    def step(self) -> None:
        """t ← t + 1: each group's lr, and its momentum with ``cycle_momentum``, at t."""
        super().step()
        self._set_momenta()

    def _set_momenta(self) -> None:
        if not self.cycle_momentum:
            return
        h, scale = self._heights()
        for group, lo, hi in zip(self.optimizer.param_groups, self.base_momentums,
                                 self.max_momentums):
            momentum = hi - (hi - lo) * h * scale
            if self.use_beta1:
                group["betas"] = (momentum, *group["betas"][1:])
            else:
                group["momentum"] = momentum

    def state_dict(self) -> dict:
        state = super().state_dict()
        state["_scale_fn_custom"] = _saved(self._scale_fn_custom)
        return state

    def load_state_dict(self, state_dict: Mapping) -> None:
        self._check_state(state_dict)
        fn, saved = self._scale_fn_custom, state_dict["_scale_fn_custom"]
        super().load_state_dict({**state_dict, "_scale_fn_custom": fn})
        if fn is not None and saved is not None:
            fn.__dict__.update(saved)
        self._set_momenta()


# PyTorch's step of each scheduler from the lr the group holds (its get_lr), t its step
# after the increment, b the group's base lr: what a chain applies in turn.
_TORCH_STEPS = {
    StepLR: lambda s, lr, b, i, t: lr if t == 0 or t % s.step_size else lr * s.gamma,
    MultiStepLR: lambda s, lr, b, i, t: lr * s.gamma if t in s.milestones else lr,
    ConstantLR: lambda s, lr, b, i, t: (lr * s.factor if t == 0 else lr * (1.0 / s.factor)
                                        if t == s.total_iters else lr),
    LinearLR: lambda s, lr, b, i, t: (
        lr * s.start_factor if t == 0 else lr if t > s.total_iters else
        lr * (1.0 + (s.end_factor - s.start_factor) / (
            s.total_iters * s.start_factor + (t - 1) * (s.end_factor - s.start_factor)))),
    ExponentialLR: lambda s, lr, b, i, t: lr if t == 0 else lr * s.gamma,
    PolynomialLR: lambda s, lr, b, i, t: lr if t == 0 or t > s.total_iters else lr * (
        (1.0 - t / s.total_iters) / (1.0 - (t - 1) / s.total_iters)) ** s.power,
    CosineAnnealingLR: lambda s, lr, b, i, t: (
        lr if t == 0 else
        lr + (b - s.eta_min) * (1 - math.cos(math.pi / s.T_max)) / 2     # from the trough
        if (t - 1 - s.T_max) % (2 * s.T_max) == 0 else
        (1 + math.cos(math.pi * t / s.T_max)) / (1 + math.cos(math.pi * (t - 1) / s.T_max))
        * (lr - s.eta_min) + s.eta_min),
    MultiplicativeLR: lambda s, lr, b, i, t: lr if t == 0 else lr * s._factor(i, t),
}


def _rule(s: LRScheduler) -> Callable | None:
    """s's recursive step in _TORCH_STEPS, or None for a closed form."""
    return next((f for cls, f in _TORCH_STEPS.items() if isinstance(s, cls)), None)


class ChainedScheduler(LRScheduler):
    """Several schedulers stepped as one, PyTorch's ``ChainedScheduler``: ``step()`` steps
    each in turn, and each carries on from the lr the one before it set. Build them on
    the optimizer first, then chain them: ConstantLR(factor=0.1, total_iters=20) and
    ExponentialLR(gamma=0.9) give lr · 0.1 · 0.9^t for t < 20, then lr · 0.9^t.

    Each scheduler here sets a closed form of its own step, the last built overwriting
    the others; chained, each takes PyTorch's recursive step instead (see the module
    docstring), from the lr the scheduler before it left, so the numbers are PyTorch's.
    Building the chain sets the lrs their first steps give together (each group's
    ``initial_lr`` through every scheduler's step 0), as building them did in PyTorch;
    so they must be new (last_epoch=-1, not yet stepped). To resume, build the chain as
    before and ``load_state_dict``: PyTorch's keys, ``_last_lr`` and ``_schedulers``.
    A ReduceLROnPlateau (stepped on a metric, as PyTorch says), a SequentialLR or a
    ChainedScheduler (list their schedulers here instead) is refused.
    """

    def __init__(self, schedulers: Sequence[LRScheduler],
                 optimizer: optim.Optimizer | None = None):
        name = "ChainedScheduler"
        if not isinstance(schedulers, (list, tuple)) or not schedulers:
            raise ValueError(f"{name}: schedulers must be a list of one or more schedulers "
                             f"built on the optimizer, got {schedulers!r}")
        for i, s in enumerate(schedulers):
            if not isinstance(s, LRScheduler) or isinstance(
                    s, (ReduceLROnPlateau, SequentialLR, ChainedScheduler)):
                raise (ValueError if isinstance(s, LRScheduler) else TypeError)(
                    f"{name}: schedulers[{i}] is {type_name(s)}; each must be a tinyffn "
                    "scheduler stepped without arguments (StepLR, LinearLR, ...)" + (
                        ", not a ReduceLROnPlateau, which needs a metric at each step"
                        if isinstance(s, ReduceLROnPlateau) else "" if not isinstance(
                            s, LRScheduler) else f", not a {type(s).__name__}: list its "
                        "schedulers here instead"))
        if optimizer is None:
            optimizer = schedulers[0].optimizer
        _check_optimizer(name, optimizer)
        for i, s in enumerate(schedulers):
            if s.optimizer is not optimizer:
                raise ValueError(f"{name}: schedulers[{i}] ({type(s).__name__}) was built "
                                 f"on another optimizer than {type(optimizer).__name__}; "
                                 "build every scheduler on the optimizer whose lr they set")
            if s.last_epoch != 0:
                raise ValueError(
                    f"{name}: schedulers[{i}] ({type(s).__name__}) is at step "
                    f"{s.last_epoch}, not 0; chain new schedulers (last_epoch=-1, not "
                    "stepped), and resume a chain with its load_state_dict")
        self.optimizer = optimizer
        self._schedulers = list(schedulers)
        lrs = [group["initial_lr"] for group in optimizer.param_groups]
        for s in self._schedulers:          # their first steps, each from the last's lr;
            lrs = self._step_one(s, lrs) if _rule(s) else s.get_last_lr()   # or as built
        self._last_lr = lrs

    @staticmethod
    def _step_one(s: LRScheduler, lrs: list) -> list:
        """s's step at its ``last_epoch`` from ``lrs``: PyTorch's recursive one for the
        schedulers that have one, else s's closed form (and momentum)."""
        rule = _rule(s)
        if rule is None:                    # a closed form, as PyTorch's
            s.last_epoch -= 1
            s.step()
        else:
            t = s.last_epoch
            s._set_lrs([rule(s, lr, b, i, t) for i, (lr, b) in enumerate(zip(lrs,
                                                                              s.base_lrs))])
        return s.get_last_lr()

    def step(self) -> None:
        """Each scheduler's next step, in turn, from the lr the one before it set."""
        lrs = [group["lr"] for group in self.optimizer.param_groups]
        for s in self._schedulers:
            s.last_epoch += 1
            lrs = self._step_one(s, lrs)
        self._last_lr = lrs

    def get_lr(self) -> list:
        raise NotImplementedError("ChainedScheduler has no schedule of its own: step() "
                                  "steps its schedulers; get_last_lr() reads the lrs")

    def state_dict(self) -> dict:
        """PyTorch's keys: ``_last_lr`` and ``_schedulers``, each scheduler's state."""
        return {"_last_lr": list(self._last_lr),
                "_schedulers": [s.state_dict() for s in self._schedulers]}

    def load_state_dict(self, state_dict: Mapping) -> None:
        """Load each scheduler's state, and set the lrs the chain had set."""
        keys = sorted(state_dict) if isinstance(state_dict, Mapping) else state_dict
        saved = state_dict.get("_schedulers") if isinstance(state_dict, Mapping) else None
        if keys != ["_last_lr", "_schedulers"] or len(saved) != len(self._schedulers):
            raise ValueError(
                f"ChainedScheduler.load_state_dict: expected a ChainedScheduler's state "
                f"with {len(self._schedulers)} schedulers (keys '_last_lr', '_schedulers'), "
                f"got {keys!r}" + (f" with {len(saved)}" if saved is not None else ""))
        for s, state in zip(self._schedulers, saved):
            s.load_state_dict(state)
        self._set_lrs(list(state_dict["_last_lr"]))

    def _set_lrs(self, lrs: list) -> None:
        for group, lr in zip(self.optimizer.param_groups, lrs):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]
