"""Optimizers: turn the gradients left in ``p.grad`` into parameter updates.

Usage, as in PyTorch::

    opt = tinyffn.optim.Adam(model.parameters(), lr=1e-3)
    for x, y in batches:
        opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.step()

Parameters may come in groups, each with its own settings (PyTorch's parameter groups);
a setting a group leaves out takes the constructor's value, kept in ``opt.defaults``::

    opt = tinyffn.optim.AdamW([{"params": matrices, "weight_decay": 0.1},
                               {"params": biases, "weight_decay": 0.0}], lr=3e-4)

Each optimizer writes one ``update(w, g, state, xp, **settings)`` in the notation of
PyTorch's documentation: w = θ_{t-1} the parameter's array, g its gradient, ``state`` the
optimizer's memory for this parameter (momentum, moment estimates), ``xp`` the parameter's
array namespace, and the settings of the parameter's group as keywords (``lr``, ...). The
update works on raw arrays, so nothing it computes is recorded in any graph, and it builds
new arrays: ``p.grad`` is only read, and ``p.data`` is replaced, not overwritten. The state
keeps no reference to ``p.grad``'s array either.

Learning-rate schedules (warmup, cosine decay) are in ``tinyffn.optim.lr_scheduler``, as in
PyTorch; the code is in :mod:`tinyffn.lr_scheduler`.
"""
from __future__ import annotations

import sys
from typing import Any, Iterable, Mapping

from . import grad_mode
from .arguments import is_real, type_name
from .backend import backend_of_array, dtype_name
from .module import Module
from .module_state import zero_grads
from .optim_state import load_state
from .param_groups import EMPTY, NAMES, SCHEDULE_KEYS, ParamGroup, checked_group, ordered
from .tensor import Tensor
from . import lr_scheduler      # optim.lr_scheduler, as torch.optim.lr_scheduler

# optim is a module, not a package: name lr_scheduler under it too, so that
# `from tinyffn.optim.lr_scheduler import CosineAnnealingLR` works as with torch (see nn.py)
sys.modules[__name__ + ".lr_scheduler"] = lr_scheduler


class Optimizer:
    """Holds the parameters in groups, each with its settings, and one state dict per
    parameter; ``step`` applies ``update`` to each parameter with its group's settings.

    A subclass passes its constructor's settings on as ``defaults``, checks a group's
    settings in ``check_settings`` and writes the math in ``update``. A parameter whose
    ``.grad`` is None (it took no part in the loss, or it is frozen with
    ``requires_grad_(False)``) is skipped.
    """

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], defaults: Mapping):
        name = type(self).__name__
        if isinstance(params, (Tensor, Mapping)):   # iterating gives its rows, or keys
            raise TypeError(f"{name}: params is one {type_name(params)}; pass a list: [w], "
                            "model.parameters(), or for groups [{'params': [w]}, ...]")
        if isinstance(params, Module):
            raise TypeError(f"{name}: params is the module {type(params).__name__}, not its "
                            "parameters; pass model.parameters()")
        if not isinstance(defaults, Mapping):  # Optimizer(params, lr) before groups came
            raise TypeError(f"{name}: defaults must be a dict of the settings, such as "
                            f"{{'lr': lr}}, got {type_name(defaults)}")
        self.defaults = self.check_settings(name, dict(defaults))
        self.param_groups: list = []        # ParamGroup: "params" and its settings
        # parameter -> what update() keeps for it (momentum, moments), as torch's opt.state[p]
        self.state: dict = {}
        groups = ordered(name, params)
        if not groups:
            raise ValueError(EMPTY.format(owner=name))
        if not isinstance(groups[0], Mapping):
            groups = [{"params": groups}]   # a list of parameters: one group
        for group in groups:
            self._add_group(group, len(groups) > 1)

    def add_param_group(self, param_group: Mapping) -> None:
        """Add a group, as PyTorch's: ``{"params": [...], "lr": 0.01}``; a setting it leaves
        out takes ``opt.defaults``' value (fine-tuning adds the layers it unfreezes)."""
        self._add_group(param_group, True)

    def _add_group(self, group: Any, several: bool) -> None:
        i = len(self.param_groups)
        owner = f"{type(self).__name__}.param_groups[{i}]" if several else type(self).__name__
        group = checked_group(self, owner, group)
        self.param_groups.append(group)
        self.state.update({p: {} for p in group["params"]})

    def check_settings(self, owner: str, settings: dict) -> dict:
        """One group's settings, checked and made Python numbers, in a new dict; ``owner``
        starts the error messages. A subclass checks its own after calling this one."""
        settings = dict(settings)
        # Python floats: a NumPy float64 lr would turn float32 weights into float64
        for key in ("lr",) + SCHEDULE_KEYS:
            if key in settings:
                settings[key] = _non_negative(owner, key, settings[key])
        return settings

    # -- one group: opt.lr, opt.momentum, ... read and write the group's setting -----------
    def __getattr__(self, key: str) -> Any:     # only called when no attribute has the name
        if key in self.__dict__.get("defaults", ()):
            return self._only_group(key)[key]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {key!r}")

    def __setattr__(self, key: str, value: Any) -> None:
        if key in self.__dict__.get("defaults", ()):    # a schedule: opt.lr = 0.5 * opt.lr
            self._only_group(key)[key] = value
        else:
            super().__setattr__(key, value)

    def _only_group(self, key: str | None = None) -> "ParamGroup":
        """The one group; with several, ``opt.lr`` has no single answer, so it is refused
        rather than answered with group 0's."""
        n = len(self.param_groups)
        if n == 1:
            return self.param_groups[0]
        at = f'opt.param_groups[i]["{key}"]' if key else "opt.param_groups[i]"
        raise AttributeError(
            f"{type(self).__name__} has {n} parameter groups, each with its own "
            f"{key or 'settings'}: use {at}, i from 0 to {n - 1}" + (
                f'; to set every group\'s: for g in opt.param_groups: g["{key}"] = value'
                if key else ""))

    def hyperparameters(self) -> dict:
        """The one group's settings as they are now: ``{"lr": 0.001, ...}`` (with several
        groups, read ``opt.param_groups[i]``)."""
        return {k: v for k, v in self._only_group().items() if k in self.defaults}

    @property
    def params(self) -> list:
        """Every group's parameters, in order: ``state_dict`` numbers them this way."""
        return [p for group in self.param_groups for p in group["params"]]

    def _owner(self, i: int) -> str:
        """How errors name group i: by the optimizer's name alone while it has one."""
        name = type(self).__name__
        return name if len(self.param_groups) == 1 else f"{name}.param_groups[{i}]"

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget every parameter's gradient (see :func:`tinyffn.module_state.zero_grads`)."""
        zero_grads(self.params, set_to_none)

    def step(self, closure: Any = None) -> Any:
        """Update every parameter that has a gradient, with its group's settings:
        ``p.data = update(p.data, p.grad.data, state, xp, **settings)``. A ``closure``
        (zero_grad, forward, backward, return the loss) runs first, with grad enabled, as
        PyTorch's; step returns its loss (None without one)."""
        loss = None
        if closure is not None:
            with grad_mode.enable_grad():
                loss = closure()
        for i, group in enumerate(self.param_groups):
            settings = {k: group[k] for k in self.defaults}     # no labels, no schedule keys
            for j, p in enumerate(group["params"]):
                if p.grad is None:
                    continue
                state = self.state.setdefault(p, {})     # torch's opt.state.pop(p) resets p
                self._check_fits(i, j, p, state)
                xp = p.backend.xp
                p.data = xp.asarray(self.update(p.data, p.grad.data, state, xp, **settings))
        return loss

    def _check_fits(self, i: int, j: int, p: Tensor, state: dict) -> None:
        """The gradient and the saved state must match the parameter's shape, dtype and
        device: NumPy would otherwise promote a float32 parameter to float64 in silence.
        Parameter j of group i is named as that, or "parameter j" with one group."""
        name = f"{type(self).__name__}.step"
        several = len(self.param_groups) > 1
        what = f"parameter {j} of param_groups[{i}]" if several else f"parameter {j}"
        g = p.grad
        if g.shape != p.shape or g.dtype != p.dtype or g.backend is not p.backend:
            raise RuntimeError(f"{name}: {what} is {_describe(p)} but its grad is "
                               f"{_describe(g)}; a gradient must match its parameter")
        for key, value in state.items():
            if hasattr(value, "dtype") and (
                    value.dtype != p.dtype or backend_of_array(value) is not p.backend
                    or value.ndim and tuple(value.shape) != self.state_shape(key, p.shape)):
                raise RuntimeError(
                    f"{name}: {what} is now {_describe(p)}, but this optimizer's "
                    f"state ({key!r}) was made for {dtype_name(value.dtype)} of shape "
                    f"{tuple(value.shape)} on {backend_of_array(value).device}; create the "
                    "optimizer after model.to(...) (or p.data = ...), or a new one after")

    def update(self, w: Any, g: Any, state: dict, xp: Any, **settings: Any) -> Any:
        """The math: θ_t from w = θ_{t-1} and g, with the group's settings as keywords."""
        raise NotImplementedError(f"{type(self).__name__} must define "
                                  "update(w, g, state, xp, **settings)")

    # -- saving and resuming ---------------------------------------------------------------
    def state_keys(self, settings: Mapping) -> tuple:
        """What ``update`` keeps per parameter under a group's settings (checked on loading)."""
        return ()

    def param_state_keys(self, settings: Mapping, shape: tuple) -> tuple:
        """:meth:`state_keys` for a parameter of ``shape``: the same for every shape, but
        Adafactor's follow it (a matrix's row and column averages, a vector's own)."""
        return self.state_keys(settings)

    def state_shape(self, key: str, shape: tuple) -> tuple:
        """The shape of state array ``key`` for a parameter of ``shape`` (checked on each
        step and on loading): the parameter's own, less for Adafactor's factored ones."""
        return shape

    def _index_lists(self) -> list:
        """Each group's parameters as indices into :attr:`params`: ``[[0, 1], [2]]``."""
        out, start = [], 0
        for group in self.param_groups:
            out.append(list(range(start, start + len(group["params"]))))
            start += len(group["params"])
        return out

    def state_dict(self) -> dict:
        """What resuming training needs, laid out as PyTorch's: ``state`` (parameter index,
        counted over all groups in order -> its momentum, moments, step count, as copies)
        and ``param_groups`` (per group its settings, its parameters' indices and, if they
        came with them, their ``param_names``). Save it beside the model's."""
        state = {i: {k: Tensor(p.backend.xp.asarray(v, copy=True), _backend=p.backend)
                     if hasattr(v, "dtype") else v for k, v in s.items()}
                 for i, p in enumerate(self.params) if (s := self.state.get(p))}
        groups = [{**{k: list(v) if k == NAMES else v for k, v in group.items()
                      if k != "params"}, "params": indices}
                  for group, indices in zip(self.param_groups, self._index_lists())]
        return {"state": state, "optimizer": type(self).__name__, "param_groups": groups}

    def load_state_dict(self, state_dict: Mapping) -> None:
        """Resume from a :meth:`state_dict`: the same groups of parameters in the same order
        (their values come from the model's own ``load_state_dict``). Settings go through
        ``check_settings``; arrays are copied to each parameter's device and dtype; saved
        ``param_names`` replace the groups' (as in PyTorch, they are not compared)."""
        load_state(self, state_dict)                # optim_state.py

    def __repr__(self) -> str:
        """PyTorch's: one block per group, its settings sorted by name."""
        return f"{type(self).__name__} (\n" + "\n".join(
            f"Parameter Group {i}\n" + "".join(f"    {k}: {group[k]}\n"
                                                for k in sorted(group) if k != "params")
            for i, group in enumerate(self.param_groups)) + ")"


def _describe(t: Tensor) -> str:
    return f"{dtype_name(t.dtype)} of shape {t.shape} on {t.device}"


def _flag(owner: str, name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{owner}: {name} must be True or False, got {value!r}")
    return value


def _non_negative(owner: str, name: str, value: Any) -> float:
    """A hyperparameter as a Python float >= 0. A Tensor learning rate would turn every
    parameter's data into a Tensor; a NumPy float64 one could promote float32 weights."""
    if not is_real(value):
        raise TypeError(f"{owner}: {name} must be a number, got {type_name(value)}"
                        + ("; pass lr.item()" if isinstance(value, Tensor) else ""))
    if not value >= 0:
        raise ValueError(f"{owner}: {name} must be >= 0, got {value}")
    return float(value)


class SGD(Optimizer):
    """Stochastic gradient descent with optional momentum and L2 weight decay.

    With learning rate γ, momentum μ, dampening τ, weight decay λ (PyTorch's ``SGD``)::

        g   ← -g                                (if maximize: ascend instead)
        g   ← g + λ θ_{t-1}                     (if λ ≠ 0)
        b_t ← g                                 at the first step      } if μ ≠ 0
        b_t ← μ b_{t-1} + (1 - τ) g             afterwards             }
        g   ← g + μ b_t  if nesterov,  else g ← b_t                    }
        θ_t ← θ_{t-1} - γ g
    """

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 1e-3,
                 momentum: float = 0.0, dampening: float = 0.0, weight_decay: float = 0.0,
                 nesterov: bool = False, maximize: bool = False):
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov,
                                      maximize=maximize))

    def check_settings(self, owner: str, settings: dict) -> dict:
        s = super().check_settings(owner, settings)
        for key in ("momentum", "dampening", "weight_decay"):
            s[key] = _non_negative(owner, key, s[key])
        for key in ("nesterov", "maximize"):
            s[key] = _flag(owner, key, s[key])
        if s["nesterov"] and (not s["momentum"] or s["dampening"]):
            raise ValueError(f"{owner}: nesterov=True needs momentum > 0 and dampening = 0, "
                             f"got momentum={s['momentum']}, dampening={s['dampening']}")
        return s

    def state_keys(self, settings: Mapping) -> tuple:
        return ("momentum_buffer",) if settings["momentum"] else ()

    def update(self, w, g, state, xp, *, lr, momentum, dampening, weight_decay, nesterov,
               maximize):
        if maximize:
            g = -g
        if weight_decay:
            g = g + weight_decay * w
        if momentum:
            if "momentum_buffer" in state:          # b_t = μ b_{t-1} + (1 - τ) g, b_1 = g
                b = momentum * state["momentum_buffer"] + (1 - dampening) * g
            else:                                   # its own array, not p.grad's:
                b = xp.asarray(g, copy=True)        # nothing else may change it
            state["momentum_buffer"] = b
            g = g + momentum * b if nesterov else b
        return w - lr * g


class Adam(Optimizer):
    """Adam (Kingma & Ba 2015), with weight decay as an L2 term added to the gradient, or
    decoupled from it with ``decoupled_weight_decay=True`` (then it is :class:`AdamW`).

    With learning rate γ, betas (β1, β2), eps ε, weight decay λ (PyTorch's ``Adam``)::

        g   ← -g                                (if maximize: ascend instead)
        g   ← g + λ θ_{t-1}                     (if λ ≠ 0; decoupled: θ ← θ - γλθ instead)
        m_t = β1 m_{t-1} + (1 - β1) g           first moment, m_0 = 0
        v_t = β2 v_{t-1} + (1 - β2) g²          second moment, v_0 = 0
        v_t ← max(v_max, v_t), kept as v_max    (if amsgrad: the denominator never shrinks)
        m̂_t = m_t / (1 - β1^t),  v̂_t = v_t / (1 - β2^t)     bias corrections
        θ_t = θ_{t-1} - γ m̂_t / (sqrt(v̂_t) + ε)

    The first step moves every entry by about γ in the direction of -sign(g). The state
    keeps m, v and v_max under PyTorch's names, ``exp_avg``, ``exp_avg_sq`` and
    ``max_exp_avg_sq`` (``opt.state[p]["exp_avg"]``), and the step count t as ``step``.
    """

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0, amsgrad: bool = False, maximize: bool = False,
                 *, decoupled_weight_decay: bool = False):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize,
                                      decoupled_weight_decay=decoupled_weight_decay))

    def check_settings(self, owner: str, settings: dict) -> dict:
        s = super().check_settings(owner, settings)
        betas = s["betas"]
        if not isinstance(betas, (tuple, list)) or len(betas) != 2 or not all(
                _non_negative(owner, "beta", beta) < 1.0 for beta in betas):
            raise ValueError(f"{owner}: betas must be two numbers in [0, 1), got {betas}")
        s["betas"] = tuple(float(beta) for beta in betas)
        s["eps"] = _non_negative(owner, "eps", s["eps"])
        s["weight_decay"] = _non_negative(owner, "weight_decay", s["weight_decay"])
        for key in ("amsgrad", "maximize", "decoupled_weight_decay"):
            s[key] = _flag(owner, key, s[key])
        return s

    def state_keys(self, settings: Mapping) -> tuple:
        return ("step", "exp_avg", "exp_avg_sq") + (
            ("max_exp_avg_sq",) if settings["amsgrad"] else ())

    def update(self, w, g, state, xp, *, lr, betas, eps, weight_decay, amsgrad, maximize,
               decoupled_weight_decay):
        if maximize:
            g = -g
        if weight_decay and decoupled_weight_decay:
            w = w * (1 - lr * weight_decay)     # AdamW's θ - γλθ, one rounding (torch's mul_)
        elif weight_decay:
            g = g + weight_decay * w
        return self.adam_step(w, g, state, xp, lr=lr, betas=betas, eps=eps, amsgrad=amsgrad)

    def adam_step(self, w, g, state, xp, *, lr, betas, eps, amsgrad):
        """The moment updates and the bias-corrected step, shared by Adam and AdamW."""
        beta1, beta2 = betas
        if not state:
            state.update(step=0, exp_avg=xp.zeros_like(w), exp_avg_sq=xp.zeros_like(w))
        state["step"] += 1
        t = state["step"]
        m = state["exp_avg"] = beta1 * state["exp_avg"] + (1 - beta1) * g
        v = state["exp_avg_sq"] = beta2 * state["exp_avg_sq"] + (1 - beta2) * (g * g)
        if amsgrad:
            v = state["max_exp_avg_sq"] = v if t == 1 else xp.maximum(state["max_exp_avg_sq"], v)
        m_hat = m / (1 - beta1 ** t)
        v_hat = v / (1 - beta2 ** t)
        return w - lr * m_hat / (xp.sqrt(v_hat) + eps)


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter 2019), PyTorch's ``AdamW``::

        θ ← θ_{t-1} - γ λ θ_{t-1}               decay the weights directly ...
        then Adam's step on θ with the unchanged gradient g (no λ θ added to g).

    Unlike Adam's L2 term, the decay is not rescaled by 1/sqrt(v̂), so every weight
    shrinks by the same fraction γλ per step. Default λ = 0.01 as in PyTorch. As in
    PyTorch 2.13, it is ``Adam(decoupled_weight_decay=True)``, the setting in its groups.
    """

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.01, amsgrad: bool = False, maximize: bool = False):
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                         amsgrad=amsgrad, maximize=maximize, decoupled_weight_decay=True)


# the other optimizers and swa_utils, in files of their own
from . import optim_extra as _extra, optim_more as _more, optim_lbfgs as _lbfgs  # noqa: E402
from . import optim_matrices as _matrices  # noqa: E402
from . import swa_utils  # noqa: E402

RMSprop, Adagrad, NAdam, RAdam, Adamax, Adadelta = (_extra.RMSprop, _extra.Adagrad, _extra.NAdam,
                                                    _extra.RAdam, _extra.Adamax, _extra.Adadelta)
Rprop, ASGD, LBFGS = _more.Rprop, _more.ASGD, _lbfgs.LBFGS
Adafactor, Muon = _matrices.Adafactor, _matrices.Muon
sys.modules[__name__ + ".swa_utils"] = swa_utils
