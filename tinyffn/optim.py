"""Optimizers: turn the gradients left in ``p.grad`` into parameter updates.

Usage, as in PyTorch::

    opt = tinyffn.optim.Adam(model.parameters(), lr=1e-3)
    for x, y in batches:
        opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.step()

Each optimizer writes one ``update(w, g, state, xp)`` in the notation of PyTorch's
documentation: w = θ_{t-1} the parameter's array, g its gradient, ``state`` the
optimizer's memory for this parameter (momentum, moment estimates), ``xp`` the
parameter's array namespace. The update works on raw arrays, so nothing it computes is
recorded in any graph, and it builds new arrays: ``p.grad`` is only read, and ``p.data``
is replaced, not overwritten. The state keeps no reference to ``p.grad``'s array either.
"""
from __future__ import annotations

import inspect
from collections.abc import MutableMapping
from typing import Any, Iterable, Iterator, Mapping

from .arguments import is_real, type_name
from .backend import backend_of_array, dtype_name
from .module import _array_like, zero_grads
from .tensor import Tensor


class Optimizer:
    """Holds the parameters and one state dict per parameter; ``step`` applies ``update``.

    A parameter whose ``.grad`` is None (it took no part in the loss, or it is frozen with
    ``requires_grad_(False)``) is skipped.
    """

    def __init__(self, params: Iterable[Tensor], lr: float):
        name = type(self).__name__
        self.params = list(params)
        if not self.params:
            raise ValueError(f"{name}: got an empty parameter list; pass model.parameters() "
                             "(a generator is consumed once: create it for this optimizer)")
        first = {}
        for i, p in enumerate(self.params):
            if not isinstance(p, Tensor):
                raise TypeError(f"{name}: parameter {i} is not a tinyffn tensor (got "
                                f"{type_name(p)}); pass a tinyffn model's parameters()")
            if not p.is_leaf:
                raise ValueError(f"{name}: parameter {i} was computed by {p.grad_fn.name}; "
                                 "an optimizer updates leaves (a module's parameters), "
                                 "which is where backward leaves the gradients")
            if id(p) in first:                  # step() would update it twice
                raise ValueError(f"{name}: parameter {i} is parameter {first[id(p)]} again; "
                                 "pass each parameter once (model.parameters() lists a "
                                 "shared one once)")
            first[id(p)] = i
        self.lr = lr
        # parameter -> what update() keeps for it (momentum, moments), as torch's opt.state[p]
        self.state: dict = {p: {} for p in self.params}

    @property
    def lr(self) -> float:
        """The learning rate γ; a schedule may set it between steps (``opt.lr = 0.5 * opt.lr``)."""
        return self._lr

    @lr.setter
    def lr(self, value: Any) -> None:
        # checked and made a Python float on every change: a NumPy float64 from a schedule
        # would otherwise turn float32 weights into float64
        self._lr = _non_negative(type(self).__name__, "lr", value)

    @property
    def param_groups(self) -> list:
        """PyTorch's list of parameter groups, here always one: a live view of this
        optimizer's hyperparameters, so the schedule idiom ``for g in opt.param_groups:
        g["lr"] = lr`` works (see :class:`ParamGroup`)."""
        return [ParamGroup(self)]

    def hyperparameters(self) -> dict:
        """The constructor's settings as they are now: ``{"lr": 0.001, ...}``."""
        return {k.lstrip("_"): v for k, v in vars(self).items() if k not in ("params", "state")}

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget every parameter's gradient (see :func:`tinyffn.module.zero_grads`)."""
        zero_grads(self.params, set_to_none)

    def step(self) -> None:
        """Update every parameter that has a gradient: ``p.data = update(p.data, p.grad.data)``."""
        for i, p in enumerate(self.params):
            if p.grad is None:
                continue
            state = self.state.setdefault(p, {})     # torch's opt.state.pop(p) resets p
            self._check_fits(i, p, state)
            p.data = p.backend.xp.asarray(self.update(p.data, p.grad.data, state, p.backend.xp))

    def _check_fits(self, i: int, p: Tensor, state: dict) -> None:
        """The gradient and the saved state must match the parameter's shape, dtype and
        device: NumPy would otherwise promote a float32 parameter to float64 in silence."""
        name = f"{type(self).__name__}.step"
        g = p.grad
        if g.shape != p.shape or g.dtype != p.dtype or g.backend is not p.backend:
            raise RuntimeError(f"{name}: parameter {i} is {_describe(p)} but its grad is "
                               f"{_describe(g)}; a gradient must match its parameter")
        for key, value in state.items():
            if hasattr(value, "dtype") and (value.dtype != p.dtype
                                            or backend_of_array(value) is not p.backend):
                raise RuntimeError(
                    f"{name}: parameter {i} is now {_describe(p)}, but this optimizer's "
                    f"state ({key!r}) was made for {dtype_name(value.dtype)} on "
                    f"{backend_of_array(value).device}; create the optimizer after "
                    "model.to(...), or a new one after moving the model")

    def update(self, w: Any, g: Any, state: dict, xp: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define update(w, g, state, xp)")

    # -- saving and resuming ---------------------------------------------------------------
    def state_keys(self) -> tuple:
        """What ``update`` keeps per parameter, as configured (checked on loading)."""
        return ()

    def state_dict(self) -> dict:
        """What resuming training needs, laid out as PyTorch's: ``state`` (parameter index
        -> its momentum, moments, step count, as copies) and ``param_groups`` (one group:
        the hyperparameters and the parameter indices). Save it beside the model's."""
        state = {i: {k: Tensor(p.backend.xp.asarray(v, copy=True), _backend=p.backend)
                     if hasattr(v, "dtype") else v for k, v in s.items()}
                 for i, p in enumerate(self.params) if (s := self.state.get(p))}
        return {"state": state, "optimizer": type(self).__name__,
                "param_groups": [{**self.hyperparameters(),
                                  "params": list(range(len(self.params)))}]}

    def load_state_dict(self, state_dict: Mapping) -> None:
        """Resume from a :meth:`state_dict`: the same parameters in the same order (their
        values come from the model's own ``load_state_dict``). Hyperparameters go through
        the constructor's checks; arrays are copied to each parameter's device and dtype."""
        cls = type(self).__name__
        name = f"{cls}.load_state_dict"
        saved_by = state_dict.get("optimizer", cls)
        if saved_by != cls:
            raise ValueError(f"{name}: the state was saved by {saved_by}; load it into "
                             f"{saved_by} (its state and hyperparameters are not {cls}'s)")
        groups = state_dict["param_groups"]
        if len(groups) != 1 or list(groups[0]["params"]) != list(range(len(self.params))):
            raise ValueError(f"{name}: the state is for {sum(len(g['params']) for g in groups)} "
                             f"parameters in {len(groups)} group(s); this optimizer has one "
                             f"group of {len(self.params)}")
        hyper = {k: v for k, v in groups[0].items() if k != "params"}
        known = set(inspect.signature(type(self).__init__).parameters) - {"self", "params"}
        if set(hyper) - known:
            raise ValueError(f"{name}: the saved hyperparameters {sorted(set(hyper) - known)} "
                             f"are not {cls}'s ({', '.join(sorted(known))}); a state saved by "
                             "another optimizer, or by torch.optim, does not load")
        checked = type(self)(self.params, **hyper)
        state = [{} for _ in self.params]
        for i, saved in state_dict["state"].items():
            p = self.params[int(i)]
            if saved and set(saved) != set(checked.state_keys()):
                raise ValueError(f"{name}: parameter {i}'s state has {sorted(saved)}; {cls} "
                                 f"as configured keeps {sorted(checked.state_keys())}")
            for key, value in saved.items():
                if key == "step":               # a count: an int, np.int64, a 0-d array
                    if not value >= 0 or value != int(value):
                        raise ValueError(f"{name}: step of parameter {i} must be a whole "
                                         f"number >= 0, got {value!r}")
                    value = int(value)
                elif hasattr(value, "shape"):
                    value = _array_like(p, value)   # a fresh array on p's device, p's dtype
                    if tuple(value.shape) != p.shape:
                        raise ValueError(f"{name}: state {key!r} of parameter {i} has shape "
                                         f"{tuple(value.shape)}, the parameter {p.shape}")
                state[int(i)][key] = value
        self._take_hyperparameters(checked)
        self.state = dict(zip(self.params, state))

    def _take_hyperparameters(self, checked: "Optimizer") -> None:
        """Take the settings of ``checked``, a new optimizer made by the constructor (so
        with its checks) from settings this one is to have."""
        vars(self).update({k: v for k, v in vars(checked).items() if k not in ("params", "state")})

    def __repr__(self) -> str:
        settings = ", ".join(f"{k}={v}" for k, v in self.hyperparameters().items())
        return f"{type(self).__name__}({settings})"


class ParamGroup(MutableMapping):
    """``opt.param_groups[0]``, as in PyTorch: ``"params"`` and the hyperparameters.

    It stores nothing itself: reading a key reads the optimizer's setting, and writing one
    (``group["lr"] = 0.01``, ``group["betas"] = (0.9, 0.99)``) changes it. ``lr`` goes
    through the optimizer's ``lr`` property; any other setting through the checks of the
    optimizer's constructor, so a subclass's settings must be its constructor's keywords
    (as :meth:`Optimizer.load_state_dict` also assumes). ``update`` checks its settings
    together (``nesterov=False, momentum=0.0`` in one call). Keys cannot be added or removed.
    """

    def __init__(self, optimizer: Optimizer):
        self._optimizer = optimizer

    def __getitem__(self, key: str) -> Any:
        if key == "params":
            return self._optimizer.params
        return self._optimizer.hyperparameters()[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.update({key: value})

    def update(self, other: Any = (), /, **changes: Any) -> None:
        opt, changes = self._optimizer, {**dict(other), **changes}
        same = changes.get("params")
        if same is not None and len(same) == len(opt.params) and all(
                p is q for p, q in zip(same, opt.params)):
            del changes["params"]                   # group.update(dict(group)): unchanged
        name, hyper = f"{type(opt).__name__}.param_groups[0]", opt.hyperparameters()
        for key in changes:
            if key not in hyper:
                raise KeyError(f"{name}: {key!r} is not a setting of this optimizer; its "
                               f"settings are {', '.join(hyper)}" + (
                                   " (the parameters are fixed: make a new optimizer)"
                                   if key == "params" else ""))
        if set(changes) <= {"lr"}:
            for value in changes.values():
                opt.lr = value
            return
        checked = type(opt)(opt.params, **{**hyper, **changes})
        if any(opt.state.values()) and set(checked.state_keys()) != set(opt.state_keys()):
            said = ", ".join(f"{k}={v!r}" for k, v in changes.items())
            raise ValueError(f"{name}: {said} changes what the optimizer keeps per parameter "
                             f"({sorted(opt.state_keys())} -> {sorted(checked.state_keys())}); "
                             "set it before the first step(), or make a new optimizer")
        opt._take_hyperparameters(checked)

    def __delitem__(self, key: str) -> None:
        raise TypeError(f"{type(self._optimizer).__name__}.param_groups[0]: settings cannot "
                        f"be removed (tried {key!r})")

    def __iter__(self) -> Iterator[str]:
        return iter(["params", *self._optimizer.hyperparameters()])

    def __len__(self) -> int:
        return 1 + len(self._optimizer.hyperparameters())

    def __repr__(self) -> str:
        return repr(dict(self))


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

    def __init__(self, params: Iterable[Tensor], lr: float = 1e-3, momentum: float = 0.0,
                 dampening: float = 0.0, weight_decay: float = 0.0, nesterov: bool = False,
                 maximize: bool = False):
        super().__init__(params, lr)
        self.momentum = _non_negative("SGD", "momentum", momentum)
        self.dampening = _non_negative("SGD", "dampening", dampening)
        self.weight_decay = _non_negative("SGD", "weight_decay", weight_decay)
        self.nesterov = _flag("SGD", "nesterov", nesterov)
        self.maximize = _flag("SGD", "maximize", maximize)
        if nesterov and (not self.momentum or self.dampening):
            raise ValueError("SGD: nesterov=True needs momentum > 0 and dampening = 0, got "
                             f"momentum={momentum}, dampening={dampening}")

    def state_keys(self) -> tuple:
        return ("momentum_buffer",) if self.momentum else ()

    def update(self, w, g, state, xp):
        if self.maximize:
            g = -g
        if self.weight_decay:
            g = g + self.weight_decay * w
        if self.momentum:
            if "momentum_buffer" in state:          # b_t = μ b_{t-1} + (1 - τ) g, b_1 = g
                b = self.momentum * state["momentum_buffer"] + (1 - self.dampening) * g
            else:                                   # its own array, not p.grad's:
                b = xp.asarray(g, copy=True)        # nothing else may change it
            state["momentum_buffer"] = b
            g = g + self.momentum * b if self.nesterov else b
        return w - self.lr * g


class Adam(Optimizer):
    """Adam (Kingma & Ba 2015), with weight decay as an L2 term added to the gradient.

    With learning rate γ, betas (β1, β2), eps ε, weight decay λ (PyTorch's ``Adam``)::

        g   ← -g                                (if maximize: ascend instead)
        g   ← g + λ θ_{t-1}                     (if λ ≠ 0)
        m_t = β1 m_{t-1} + (1 - β1) g           first moment, m_0 = 0
        v_t = β2 v_{t-1} + (1 - β2) g²          second moment, v_0 = 0
        v_t ← max(v_max, v_t), kept as v_max    (if amsgrad: the denominator never shrinks)
        m̂_t = m_t / (1 - β1^t),  v̂_t = v_t / (1 - β2^t)     bias corrections
        θ_t = θ_{t-1} - γ m̂_t / (sqrt(v̂_t) + ε)

    The first step moves every entry by about γ in the direction of -sign(g).
    """

    def __init__(self, params: Iterable[Tensor], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0, amsgrad: bool = False, maximize: bool = False):
        super().__init__(params, lr)
        name = type(self).__name__
        if not isinstance(betas, (tuple, list)) or len(betas) != 2 or not all(
                _non_negative(name, "beta", beta) < 1.0 for beta in betas):
            raise ValueError(f"{name}: betas must be two numbers in [0, 1), got {betas}")
        self.betas = tuple(float(beta) for beta in betas)
        self.eps = _non_negative(name, "eps", eps)
        self.weight_decay = _non_negative(name, "weight_decay", weight_decay)
        self.amsgrad = _flag(name, "amsgrad", amsgrad)
        self.maximize = _flag(name, "maximize", maximize)

    def state_keys(self) -> tuple:
        return ("step", "m", "v") + (("v_max",) if self.amsgrad else ())

    def update(self, w, g, state, xp):
        if self.maximize:
            g = -g
        if self.weight_decay:
            g = g + self.weight_decay * w
        return self.adam_step(w, g, state, xp)

    def adam_step(self, w, g, state, xp):
        """The moment updates and the bias-corrected step, shared by Adam and AdamW."""
        beta1, beta2 = self.betas
        if not state:
            state.update(step=0, m=xp.zeros_like(w), v=xp.zeros_like(w))
        state["step"] += 1
        t = state["step"]
        m = state["m"] = beta1 * state["m"] + (1 - beta1) * g
        v = state["v"] = beta2 * state["v"] + (1 - beta2) * (g * g)
        if self.amsgrad:
            v = state["v_max"] = v if t == 1 else xp.maximum(state["v_max"], v)
        m_hat = m / (1 - beta1 ** t)
        v_hat = v / (1 - beta2 ** t)
        return w - self.lr * m_hat / (xp.sqrt(v_hat) + self.eps)


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter 2019), PyTorch's ``AdamW``::

        θ ← θ_{t-1} - γ λ θ_{t-1}               decay the weights directly ...
        then Adam's step on θ with the unchanged gradient g (no λ θ added to g).

    Unlike Adam's L2 term, the decay is not rescaled by 1/sqrt(v̂), so every weight
    shrinks by the same fraction γλ per step. Default λ = 0.01 as in PyTorch.
    """

    def __init__(self, params: Iterable[Tensor], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.01, amsgrad: bool = False, maximize: bool = False):
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                         amsgrad=amsgrad, maximize=maximize)

    def update(self, w, g, state, xp):
        w = w - self.lr * self.weight_decay * w
        return self.adam_step(w, -g if self.maximize else g, state, xp)
