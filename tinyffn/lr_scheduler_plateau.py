"""``ReduceLROnPlateau``, as ``torch.optim.lr_scheduler``'s, reached as the others,
``tinyffn.optim.lr_scheduler.ReduceLROnPlateau`` (:mod:`tinyffn.lr_scheduler` imports it).

A schedule of a metric, ``step(val_loss)``, not of the step: unlike the closed forms of
the other schedulers it keeps state (the best value, the bad epochs, the cooldown) and
multiplies the lr each group holds, as PyTorch's; its ``state_dict`` has PyTorch's keys.
"""
from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from . import optim
from .arguments import _count, _number, type_name
from .lr_scheduler import LRScheduler, _check_optimizer
from .lr_scheduler_extra import _finite, _per_group

__all__ = ["ReduceLROnPlateau"]


class ReduceLROnPlateau(LRScheduler):
    """Lower the lr when a metric stops improving (PyTorch's ``ReduceLROnPlateau``), with
    ``sched.step(val_loss)`` once an epoch. A value better than ``best`` (``mode`` 'min':
    below best · (1 − ``threshold``), or best − threshold if ``threshold_mode`` is 'abs';
    'max': above best · (1 + threshold) or best + threshold) becomes the best, any other
    is a bad epoch. After more than ``patience`` bad epochs in a row, each group's lr
    becomes max(lr · ``factor``, its ``min_lr``), unless that lowers it by ``eps`` or less;
    then for ``cooldown`` epochs no bad epoch is counted.

    The lr is state, not a function of the step: a reduction multiplies the lr the group
    holds, as PyTorch's. ``last_epoch`` counts the calls; the attributes are PyTorch's, so
    ``state_dict`` has its keys (and a PyTorch state loads). ``min_lr`` is a number for
    every group (a group added later too, as in PyTorch) or a list of one per group.
    """

    def __init__(self, optimizer: optim.Optimizer, mode: str = "min", factor: float = 0.1,
                 patience: int = 10, threshold: float = 1e-4, threshold_mode: str = "rel",
                 cooldown: int = 0, min_lr: float | Sequence[float] = 0, eps: float = 1e-8):
        name = "ReduceLROnPlateau"
        _check_optimizer(name, optimizer)
        self.factor = _number(name, "factor", factor, lambda f: 0 <= f < 1, "in [0, 1)",
                              "the lr is multiplied by it on a plateau; PyTorch refuses "
                              "factor >= 1, which would not reduce it")
        n, why = len(optimizer.param_groups), "the lowest lr a reduction goes to"
        self.default_min_lr = None if isinstance(min_lr, (list, tuple)) else \
            _number(name, "min_lr", min_lr, _finite, ">= 0", why)
        self.min_lrs = _per_group(name, "min_lr", min_lr, n, _finite, ">= 0", why)
        self.patience = _count(name, "patience", patience,
                               "the bad epochs in a row that are tolerated")
        self.cooldown = _count(name, "cooldown", cooldown,
                               "the epochs after a reduction in which none is counted")
        self.eps = _number(name, "eps", eps, _finite, ">= 0",
                           "a reduction by no more than eps is skipped")
        self.optimizer = optimizer
        self.last_epoch = 0
        self._last_lr = [group["lr"] for group in optimizer.param_groups]
        self._init_is_better(mode, threshold, threshold_mode)
        self._reset()

    def _init_is_better(self, mode: str, threshold: float, threshold_mode: str) -> None:
        name = "ReduceLROnPlateau"
        if mode not in ("min", "max"):
            raise ValueError(f"{name}: mode must be 'min' (lower is better: a loss) or "
                             f"'max' (higher is better: an accuracy), got {mode!r}")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"{name}: threshold_mode must be 'rel' (better by a fraction "
                             f"threshold of best) or 'abs' (by threshold), got "
                             f"{threshold_mode!r}")
        self.threshold = _number(name, "threshold", threshold, _finite, ">= 0",
                                 "how much better than best a value must be")
        self.mode, self.threshold_mode = mode, threshold_mode
        self.mode_worse = math.inf if mode == "min" else -math.inf   # best before any value

    def _reset(self) -> None:
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    @property
    def in_cooldown(self) -> bool:
        """True while reductions wait: ``cooldown`` epochs after each."""
        return self.cooldown_counter > 0

    def _is_better(self, a: float, best: float) -> bool:
        if self.mode == "min":
            return a < (best * (1.0 - self.threshold) if self.threshold_mode == "rel"
                        else best - self.threshold)
        return a > (best * (self.threshold + 1.0) if self.threshold_mode == "rel"
                    else best + self.threshold)

    def get_lr(self) -> list:
        """Refused: the lr follows the metric, not the step (as PyTorch's has none)."""
        raise TypeError("ReduceLROnPlateau has no lr as a function of the step: it lowers "
                        "the lr when the metric passed to step(metrics) stops improving; "
                        "read the lrs with get_last_lr()")

    def step(self, metrics: Any) -> None:
        """One epoch's metric (a number, or a one-element tensor): count it good or bad,
        and on a plateau reduce the lrs."""
        try:
            current = float(metrics)
        except (TypeError, ValueError):
            raise TypeError(f"ReduceLROnPlateau.step: metrics must be a number, such as "
                            f"the validation loss (loss.item()), got {type_name(metrics)}"
                            ) from None
        self.last_epoch += 1
        if self._is_better(current, self.best):
            self.best, self.num_bad_epochs = current, 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0             # bad epochs in the cooldown are not counted
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def _reduce_lr(self) -> None:
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise ValueError(
                    f"ReduceLROnPlateau: the optimizer has {len(groups)} parameter groups, "
                    f"min_lr was given for {len(self.min_lrs)}; set sched.min_lrs to a list "
                    "of one per group after add_param_group")
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, min_lr in zip(groups, self.min_lrs):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, min_lr)
            if old_lr - new_lr > self.eps:
                group["lr"] = new_lr

    def load_state_dict(self, state_dict: Mapping) -> None:
        """Resume from a :meth:`state_dict` (this class's or PyTorch's, which has the same
        keys), and set each group's lr to the one saved."""
        name = "ReduceLROnPlateau.load_state_dict"
        keys, mine = sorted(state_dict), sorted(self.state_dict())
        if keys != mine:
            raise ValueError(f"{name}: the state has {keys}, but ReduceLROnPlateau keeps "
                             f"{mine}; load a ReduceLROnPlateau's state_dict")
        n, saved = len(self.optimizer.param_groups), len(state_dict["_last_lr"])
        if saved != n:
            raise ValueError(f"{name}: the state is for {saved} parameter groups, the "
                             f"optimizer has {n}; build the optimizer with the groups it "
                             "had when the state was saved")
        state = {k: list(v) if isinstance(v, list) else v for k, v in state_dict.items()}
        self._init_is_better(state["mode"], state["threshold"], state["threshold_mode"])
        self.__dict__.update(state)
        for group, lr in zip(self.optimizer.param_groups, self._last_lr):
            group["lr"] = lr
