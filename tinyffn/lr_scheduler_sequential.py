"""``SequentialLR``, as ``torch.optim.lr_scheduler``'s, reached as the others,
``tinyffn.optim.lr_scheduler.SequentialLR`` (:mod:`tinyffn.lr_scheduler` imports it, and
its docstring has the design): schedulers run one after another, as warmup then cosine
decay.
"""
from __future__ import annotations

from bisect import bisect_right
from typing import Mapping, Sequence

from . import optim
from .arguments import _is_int, type_name
from .lr_scheduler import LRScheduler, _check_optimizer
from .lr_scheduler_plateau import ReduceLROnPlateau

__all__ = ["SequentialLR"]


class SequentialLR(LRScheduler):
    """Schedulers one after another (PyTorch's ``SequentialLR``): ``schedulers[0]`` sets
    the lr from step 0, and ``schedulers[i]`` from step ``milestones[i - 1]`` on, counting
    its own steps from 0 there. With milestones m_1 < m_2 < ... and m_0 = 0, at step t the
    scheduler i with m_i ≤ t < m_{i+1} sets the lr, at its step t − m_i. Warmup then
    cosine decay (nanoGPT's schedule), w steps up and n − w down::

        warmup = LinearLR(opt, start_factor=0.01, total_iters=w)
        cosine = CosineAnnealingLR(opt, T_max=n - w, eta_min=0.1 * lr)
        sched = SequentialLR(opt, [warmup, cosine], milestones=[w])

    lr_t = lr · (0.01 + 0.99 t / w) for t < w, then 0.1 lr + 0.9 lr (1 + cos(π (t − w) /
    (n − w))) / 2. Build the schedulers on the optimizer first; each sets the lr as it is
    built, and this one undoes their first steps and starts ``schedulers[0]`` at step 0,
    as PyTorch's does (with ``last_epoch=k``, the scheduler whose turn it is at k + 1, at
    its own step). Its ``state_dict`` holds each scheduler's.
    """

    def __init__(self, optimizer: optim.Optimizer, schedulers: Sequence[LRScheduler],
                 milestones: Sequence[int], last_epoch: int = -1):
        name = "SequentialLR"
        _check_optimizer(name, optimizer)
        if not isinstance(schedulers, (list, tuple)) or not schedulers:
            raise ValueError(f"{name}: schedulers must be a list of one or more schedulers "
                             f"built on the optimizer, got {schedulers!r}")
        for i, scheduler in enumerate(schedulers):
            nested, plateau = (isinstance(scheduler, c) for c in (SequentialLR,
                                                                   ReduceLROnPlateau))
            chain = isinstance(scheduler, ChainedScheduler)
            if not isinstance(scheduler, LRScheduler) or nested or plateau or chain:
                raise TypeError(
                    f"{name}: schedulers[{i}] is {type_name(scheduler)}; each must be a "
                    "tinyffn scheduler (StepLR, LinearLR, CosineAnnealingLR, ...)" + (
                        ", not a SequentialLR: list its schedulers here instead, with its "
                        "milestones moved by the step at which it would start" if nested
                        else ", stepped without a metric" if plateau else
                        ", not a ChainedScheduler (PyTorch's fails at its milestone)" if chain else ""))
            if scheduler.optimizer is not optimizer:
                raise ValueError(
                    f"{name}: schedulers[{i}] ({type(scheduler).__name__}) was built on "
                    f"another optimizer ({type(scheduler.optimizer).__name__}); build every "
                    "scheduler on the optimizer given to SequentialLR, whose lr they set "
                    "in turn")
        if not isinstance(milestones, (list, tuple)) or len(milestones) != len(schedulers) - 1:
            raise ValueError(
                f"{name}: milestones must list one step for each scheduler after the first, "
                f"at which it takes over ({len(schedulers) - 1} for {len(schedulers)} "
                f"schedulers), got milestones={milestones!r}")
        if not all(_is_int(m) for m in milestones) or any(
                b <= a for a, b in zip([0, *milestones], milestones)):
            raise ValueError(f"{name}: milestones must be increasing whole numbers >= 1 "
                             "(the steps at which schedulers[1], schedulers[2], ... take "
                             f"over), got {list(milestones)}")
        self._schedulers = list(schedulers)
        self._milestones = [int(m) for m in milestones]
        for scheduler in self._schedulers:      # undo the first step each took when built
            scheduler.last_epoch -= 1
        super().__init__(optimizer, last_epoch)

    def _current(self) -> tuple:
        """The scheduler whose turn it is at t = ``last_epoch``, and the step it starts at."""
        i = bisect_right(self._milestones, self.last_epoch)
        return self._schedulers[i], self._milestones[i - 1] if i else 0

    def get_lr(self) -> list:
        return self._current()[0].get_lr()

    def step(self) -> None:
        """t ← t + 1; the scheduler whose turn it is sets the lr at its own step, t minus
        the milestone it started at (at the milestone, its step 0, as PyTorch's)."""
        self.last_epoch += 1
        scheduler, start = self._current()
        scheduler.last_epoch = self.last_epoch - start - 1
        scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self) -> dict:
        state = super().state_dict()
        state["_schedulers"] = [scheduler.state_dict() for scheduler in self._schedulers]
        return state

    def load_state_dict(self, state_dict: Mapping) -> None:
        self._check_state(state_dict)
        saved = state_dict["_schedulers"]
        if len(saved) != len(self._schedulers):
            raise ValueError(f"SequentialLR.load_state_dict: the state has {len(saved)} "
                             f"schedulers, this SequentialLR {len(self._schedulers)}")
        for scheduler, state in zip(self._schedulers, saved):
            scheduler.load_state_dict(state)
        super().load_state_dict({**state_dict, "_schedulers": self._schedulers})


# a chain may not be one of the schedulers; the chain's module imports this one
from .lr_scheduler_more import ChainedScheduler  # noqa: E402
