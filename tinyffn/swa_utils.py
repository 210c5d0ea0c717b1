"""Weight averaging, as ``torch.optim.swa_utils`` (reached as ``tinyffn.optim.swa_utils``):
a copy of the model whose weights are an average of the trained model's over the steps.

* ``AveragedModel(model)``: ``update_parameters(model)`` after an optimizer step folds the
  model's weights into the copy's; calling it runs the copy. The average is SWA's equal
  weights by default, or an exponential moving average (EMA) with
  ``multi_avg_fn=get_ema_multi_avg_fn(0.999)``, as transformer recipes keep::

      ema = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.999))
      for x, y in batches:
          ...; opt.step(); ema.update_parameters(model)
      y_eval = ema(x_eval)

* ``SWALR``: anneals each group's lr to ``swa_lr`` over ``anneal_epochs`` steps;
* ``update_bn(loader, model)``: after training, recomputes every BatchNorm's running
  statistics for the averaged weights with one pass over the data (the statistics the
  copy carries were gathered for other weights)::

      update_bn(train_batches, swa_model)

An average is written into the copy's tensors as PyTorch writes in place: each Parameter
(or buffer) stays the same object and gets a new array, so an optimizer or a reference
held on the copy still sees it.
"""
from __future__ import annotations

import copy
import math
from typing import Any, Callable, Iterable, Mapping

from . import optim
from .arguments import _count, is_real, type_name
from .backend import FLOAT_DTYPES, dtype_name
from .batchnorm import _BatchNorm
from .creation import tensor
from .grad_mode import no_grad
from .lr_scheduler import LRScheduler, _check_optimizer
from .lr_scheduler_extra import _finite, _per_group
from .module import Module
from .module_state import array_like
from .tensor import Tensor


def _decay(owner: str, decay: Any) -> float:
    if not (is_real(decay) and 0.0 <= decay <= 1.0):
        raise ValueError(f"{owner}: decay must be a number in [0, 1] (the share of the "
                         f"average kept at each update; 0.999 is common), got {decay!r}")
    return float(decay)


def _store(t: Tensor, value: Any) -> None:
    """Write ``value`` into t as PyTorch's ``t.copy_(value)``: t keeps its dtype (a float
    written into an int buffer is truncated), device and identity; the shape must match."""
    value_shape = tuple(getattr(value, "shape", ()))
    if value_shape != tuple(t.shape):
        raise ValueError(f"AveragedModel: an average of shape {value_shape} cannot be "
                         f"written into {t.name or 'a tensor'} of shape {tuple(t.shape)}; "
                         "the averaging function must return its first argument's shape")
    t.data = array_like(t, value)


def _lerp(a: Tensor, b: Tensor, w: float) -> Tensor:
    """a + w (b - a), as PyTorch's ``lerp`` computes it on the CPU (from b's side when
    |w| >= 0.5, which is exact at w = 1)."""
    return a + w * (b - a) if abs(w) < 0.5 else b - (b - a) * (1 - w)


def _floating(t: Tensor) -> bool:
    return dtype_name(t.dtype) in FLOAT_DTYPES


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable:
    """The EMA, for ``AveragedModel(multi_avg_fn=...)``: updates a list of averages in place,
    W_ema ← decay · W_ema + (1 − decay) · W_model (PyTorch's ``lerp`` with weight
    1 − decay; integer tensors by the formula, truncated)."""
    decay = _decay("get_ema_multi_avg_fn", decay)

    @no_grad()
    def ema_update(ema_param_list: list, current_param_list: list, _: Any) -> None:
        for e, c in zip(ema_param_list, current_param_list):
            _store(e, _lerp(e, c, 1 - decay) if _floating(e) else e * decay + c * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn() -> Callable:
    """The equal-weight (SWA) average, for ``multi_avg_fn``: W_avg ← W_avg + (W_model −
    W_avg) / (n + 1) in place, n the models averaged so far (``lerp`` with 1 / (n + 1)).
    As in PyTorch, the weight 1 / (n + 1) is computed from the n_averaged tensor, so in
    the default dtype: float32 unless it was set to float64 (a relative error of ~1e-8
    in the weight; AveragedModel's default, with no function given, divides exactly)."""

    @no_grad()
    def swa_update(averaged_param_list: list, current_param_list: list,
                   num_averaged: Any) -> None:
        w = float(1 / (num_averaged + 1))
        for a, c in zip(averaged_param_list, current_param_list):
            _store(a, _lerp(a, c, w) if _floating(a) else a + (c - a) / (num_averaged + 1))
    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable:
    """The EMA, for ``AveragedModel(avg_fn=...)``: returns decay · W_ema + (1 − decay) ·
    W_model for one tensor."""
    decay = _decay("get_ema_avg_fn", decay)

    @no_grad()
    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged: Any) -> Tensor:
        return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn() -> Callable:
    """The SWA average, for ``avg_fn``: returns W_avg + (W_model − W_avg) / (n + 1)."""

    @no_grad()
    def swa_update(averaged_param: Tensor, current_param: Tensor, num_averaged: Any) -> Tensor:
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


class AveragedModel(Module):
    """A deep copy of ``model`` (``self.module``, moved to ``device`` if given) whose
    parameters hold a running average of ``model``'s, as PyTorch's.

    ``update_parameters(model)``: the first call copies the model's parameters; each later
    one averages them in with ``avg_fn(average, current, n_averaged)`` (returns the new
    average of one tensor), or ``multi_avg_fn(averages, currents, n_averaged)`` (updates
    the lists in place), or, with neither, the equal-weight SWA average. With
    ``use_buffers=True`` the buffers are averaged too; otherwise they are copied from the
    model each time. ``n_averaged``, an int64 buffer, counts the calls; ``state_dict`` has
    it and ``module.<name>`` for every tensor of the copy, as PyTorch's. The functions are
    not saved. Calling the AveragedModel calls the copy.
    """

    def __init__(self, model: Module, device: Any = None, avg_fn: Callable | None = None,
                 multi_avg_fn: Callable | None = None, use_buffers: bool = False):
        super().__init__()
        if not isinstance(model, Module):
            raise TypeError(f"AveragedModel: model must be a tinyffn Module, got "
                            f"{type_name(model)}")
        if avg_fn is not None and multi_avg_fn is not None:
            raise ValueError("AveragedModel: pass avg_fn (returns one tensor's new average) "
                             "or multi_avg_fn (updates the lists in place), not both")
        for name, fn in (("avg_fn", avg_fn), ("multi_avg_fn", multi_avg_fn)):
            if fn is not None and not callable(fn):
                raise TypeError(f"AveragedModel: {name} must be a function, such as "
                                f"get_ema_{name}(0.999), got {type_name(fn)}")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype="int64",
                                                  device="cpu" if device is None else device))
        self.avg_fn, self.multi_avg_fn = avg_fn, multi_avg_fn
        self.use_buffers = bool(use_buffers)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.module(*args, **kwargs)

    def _pairs(self, model: Module, what: str) -> tuple[list, list]:
        mine, theirs = (list(getattr(m, what)()) for m in (self.module, model))
        ours, its = ([tuple(t.shape) for t in ts] for ts in (mine, theirs))
        if ours != its:
            raise ValueError(f"AveragedModel.update_parameters: the model has {len(its)} "
                             f"{what} of shapes {its}, the average {len(ours)} of shapes "
                             f"{ours}; pass the model this AveragedModel was made from")
        return mine, theirs

    def update_parameters(self, model: Module) -> None:
        """Fold ``model``'s current weights into the average (see the class docstring)."""
        if not isinstance(model, Module):
            raise TypeError("AveragedModel.update_parameters: model must be the tinyffn "
                            f"Module being trained, got {type_name(model)}")
        mine, theirs = self._pairs(model, "parameters")
        if self.use_buffers:
            more = self._pairs(model, "buffers")
            mine, theirs = mine + more[0], theirs + more[1]
        # the model's tensors on the average's device and in its dtype, outside any graph
        current = [Tensor(array_like(a, b), _backend=a.backend) for a, b in zip(mine, theirs)]
        n = int(self.n_averaged.item())
        with no_grad():
            if n == 0:
                for a, c in zip(mine, current):
                    _store(a, c.data)
            elif self.multi_avg_fn is not None:
                self.multi_avg_fn(mine, current, _n_on(mine[0], n) if mine else n)
            else:
                fn = self.avg_fn or get_swa_avg_fn()
                for a, c in zip(mine, current):
                    _store(a, _array(fn(a.detach(), c, _n_on(a, n))))
        if not self.use_buffers:            # buffers follow the model's
            for a, b in zip(*self._pairs(model, "buffers")):
                _store(a, array_like(a, b))
        self.n_averaged.data = array_like(self.n_averaged, n + 1)


def _n_on(t: Tensor, n: int) -> Tensor:
    """n_averaged (n, read once per update: each .item() waits for the GPU) on t's
    device, as PyTorch's ``n_averaged.to(device)``."""
    return tensor(n, dtype="int64", device=t.device)


def _array(value: Any) -> Any:
    return value.data if isinstance(value, Tensor) else value


def update_bn(loader: Iterable, model: Module, device: Any = None) -> None:
    """Recompute the running statistics of every BatchNorm in ``model`` with one pass over
    ``loader``, as PyTorch's: each BatchNorm's ``reset_running_stats()`` and ``momentum``
    set to None (the cumulative average, so each batch counts equally), then
    ``model(input)`` in train mode for each batch (``input = batch[0]`` when a batch is a
    list or tuple, moved to ``device`` if given); the momenta and the model's training
    mode are restored after (also if the loader or the model raises, where PyTorch leaves
    them changed). A model without BatchNorm returns at once, the loader unread. The
    forward passes build graphs, as PyTorch's do; only the running statistics change."""
    if not isinstance(model, Module):
        raise TypeError(f"update_bn: model must be a tinyffn Module, got {type_name(model)}")
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    try:
        for input in loader:
            if isinstance(input, (list, tuple)):
                input = input[0]
            if device is not None:
                input = input.to(device)
            model(input)
    finally:
        for module, momentum in momenta.items():
            module.momentum = momentum
        model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's lr from where it is to ``swa_lr`` over ``anneal_epochs`` steps,
    then holds it, as PyTorch's: with α(t) = (1 − cos(π t)) / 2 (``anneal_strategy="cos"``)
    or t (``"linear"``) and t = min(1, k / anneal_epochs) at the k-th ``step()``,

        lr_k = α(t_k) · swa_lr + (1 − α(t_k)) · lr_start

    PyTorch computes it recursively, recovering lr_start from the group's lr and the last
    α each step; this does the same (so the numbers are PyTorch's, bit for bit, and an lr
    set by hand between steps is carried on, as there). The step count k is the
    scheduler's own (``_step_count``, PyTorch's): with ``last_epoch=k`` the annealing
    still starts at the lr the group holds. ``swa_lr`` is one number or one per group and
    is stored in each group as ``group["swa_lr"]``.
    """

    def __init__(self, optimizer: optim.Optimizer, swa_lr: float | list, anneal_epochs: int = 10,
                 anneal_strategy: str = "cos", last_epoch: int = -1):
        _check_optimizer("SWALR", optimizer)
        swa_lrs = _per_group("SWALR", "swa_lr", swa_lr, len(optimizer.param_groups), _finite,
                             ">= 0", "the lr annealed to")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"SWALR: anneal_strategy must be 'cos' or 'linear', got "
                             f"{anneal_strategy!r}")
        self.anneal_epochs = _count("SWALR", "anneal_epochs", anneal_epochs,
                                    "the steps from the lr to swa_lr")
        self._anneal_strategy = anneal_strategy
        for group, lr in zip(optimizer.param_groups, swa_lrs):
            group["swa_lr"] = lr
        self._step_count = 0
        super().__init__(optimizer, last_epoch)

    @property
    def anneal_func(self) -> Callable[[float], float]:
        return self._cosine_anneal if self._anneal_strategy == "cos" else self._linear_anneal

    @staticmethod
    def _linear_anneal(t: float) -> float:
        return t

    @staticmethod
    def _cosine_anneal(t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr: float, swa_lr: float, alpha: float) -> float:
        return swa_lr if alpha == 1 else (lr - alpha * swa_lr) / (1 - alpha)

    def step(self) -> None:
        self._step_count += 1
        super().step()

    def get_lr(self) -> list:
        """The next lrs, from the groups' lrs now (PyTorch's recursion; it advances
        nothing, but called between steps it answers for the next step, not this one)."""
        groups = self.optimizer.param_groups
        if len(groups) != len(self.base_lrs):
            self._set_lrs([])                   # raises: built for other groups
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [g["swa_lr"] * alpha + self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha)
                * (1 - alpha) for g in groups]

    def load_state_dict(self, state_dict: Mapping) -> None:
        super().load_state_dict(state_dict)
        if self._anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"SWALR.load_state_dict: anneal_strategy must be 'cos' or "
                             f"'linear', got {self._anneal_strategy!r}")
