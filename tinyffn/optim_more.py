"""Two more of ``torch.optim``'s optimizers, reached as ``tinyffn.optim.Rprop`` and
``tinyffn.optim.ASGD`` (:mod:`tinyffn.optim` imports them), with PyTorch 2.13's arguments,
defaults and state names, as the ones in optim_extra.py:

* ``Rprop``: each entry's step size grows while its gradient keeps its sign and shrinks
  when the sign flips; only the sign of the gradient moves the weights;
* ``ASGD``: SGD with a decaying lr and a running average of the weights, ``ax``, kept
  in the state (Polyak averaging; read it from ``opt.state[p]["ax"]``).

As in tinyffn's Adam, the ``step`` count is a Python int, and ASGD's ``eta`` and ``mu`` are
Python floats (PyTorch keeps 0-d tensors, float32 unless the default dtype is float64:
there its eta rounds the step to float32). ``foreach``, ``capturable`` and
``differentiable`` choose between implementations of the same math and are not settings
here; ``maximize`` is a keyword, as Rprop's is in PyTorch (ASGD's comes after ``foreach``
there, so a call passing it by position would not mean the same).
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping

from .optim import Optimizer, _non_negative
from .optim_extra import _checked, _decayed
from .tensor import Tensor


def _pair(owner: str, name: str, value: Any, ok, wanted: str) -> tuple:
    """Two numbers for which ``ok(a, b)`` holds, as a tuple of Python floats."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise ValueError(f"{owner}: {name} must be two numbers ({wanted}), got {value!r}")
    a, b = (_non_negative(owner, name, v) for v in value)
    if not ok(a, b):
        raise ValueError(f"{owner}: {name} must be two numbers ({wanted}), got {value!r}")
    return a, b


class Rprop(Optimizer):
    """Resilient backpropagation (Riedmiller & Braun 1993), PyTorch's, with etas (η-, η+)
    and step sizes (Γ_min, Γ_max)::

        g  ← -g                                     (if maximize)
        s  ← sign(g · g_prev)                       g_prev, prev, starts 0
        η_t ← min(η_{t-1} η+, Γ_max)  where s > 0   step_size, η_0 = lr (at the first step)
        η_t ← max(η_{t-1} η-, Γ_min)  where s < 0,  and there g ← 0
        η_t ← η_{t-1}                 where s = 0
        θ_t ← θ_{t-1} - η_t sign(g)
        g_prev ← g

    A flipped sign means the last step jumped over a minimum: the step shrinks, and that
    entry waits one step (g ← 0, so s = 0 next time). The lr only sets η_0.
    """

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 1e-2,
                 etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, maximize: bool = False):
        super().__init__(params, dict(lr=lr, etas=etas, step_sizes=step_sizes,
                                      maximize=maximize))

    def check_settings(self, owner: str, settings: dict) -> dict:
        s = _checked(owner, super().check_settings(owner, settings))
        s["etas"] = _pair(owner, "etas", s["etas"], lambda minus, plus: 0 < minus < 1 < plus,
                          "etaminus, etaplus with 0 < etaminus < 1 < etaplus")
        s["step_sizes"] = _pair(owner, "step_sizes", s["step_sizes"], lambda lo, hi: lo <= hi,
                                "the smallest and largest step, 0 <= min <= max")
        return s

    def state_keys(self, settings: Mapping) -> tuple:
        return ("step", "prev", "step_size")

    def update(self, w, g, state, xp, *, lr, etas, step_sizes, maximize):
        eta_minus, eta_plus = etas
        step_min, step_max = step_sizes
        g = -g if maximize else g
        if not state:
            state.update(step=0, prev=xp.zeros_like(w), step_size=xp.full_like(w, lr))
        state["step"] += 1
        s = _sign(xp, g * state["prev"])
        # PyTorch's: η+ where s > 0, η- where s < 0, 1 where s = 0
        factor = xp.where(s > 0, xp.full_like(w, eta_plus), xp.where(
            s < 0, xp.full_like(w, eta_minus), xp.ones_like(w)))
        step = xp.minimum(xp.maximum(state["step_size"] * factor, xp.full_like(w, step_min)),
                          xp.full_like(w, step_max))
        state["step_size"] = step
        g = xp.where(s < 0, xp.zeros_like(w), g)
        state["prev"] = g
        return w - _sign(xp, g) * step


def _sign(xp, a):
    """torch.sign, [a > 0] - [a < 0]: 0 for NaN, where xp.sign gives NaN. So a NaN
    gradient entry leaves its weight and step size alone for that step, as PyTorch's
    Rprop, instead of turning both into NaN for good."""
    return xp.astype(a > 0, a.dtype) - xp.astype(a < 0, a.dtype)


class ASGD(Optimizer):
    """Averaged SGD (Polyak & Juditsky 1992; Bottou 2012's decaying lr), PyTorch's, with
    decay term λ = ``lambd``, power α = ``alpha`` and averaging start t0::

        g   ← g + λ_wd θ_{t-1}                      (after g ← -g if maximize)
        θ_t ← θ_{t-1} (1 - λ η_{t-1}) - η_{t-1} g   eta, η_0 = lr (at the first step)
        ax_t ← θ_t                                  if μ_{t-1} = 1, else
        ax_t ← ax_{t-1} + μ_{t-1} (θ_t - ax_{t-1})  ax, the averaged weights
        η_t ← γ / (1 + λ γ t)^α                     with γ the group's lr now
        μ_t ← 1 / max(1, t - t0)                    mu

    Up to step t0 + 2 ``ax`` is the weights themselves; at step t after that it is the
    mean of the weights of steps t0 + 2, ..., t (with PyTorch's default t0 = 1e6, never).
    """

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 1e-2,
                 lambd: float = 1e-4, alpha: float = 0.75, t0: float = 1e6,
                 weight_decay: float = 0, *, maximize: bool = False):
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0,
                                      weight_decay=weight_decay, maximize=maximize))

    def check_settings(self, owner: str, settings: dict) -> dict:
        return _checked(owner, super().check_settings(owner, settings),
                        ("lambd", "alpha", "t0", "weight_decay"))

    def state_keys(self, settings: Mapping) -> tuple:
        return ("step", "eta", "mu", "ax")

    def update(self, w, g, state, xp, *, lr, lambd, alpha, t0, weight_decay, maximize):
        g = _decayed(w, g, weight_decay, maximize)
        if not state:
            state.update(step=0, eta=lr, mu=1.0, ax=xp.zeros_like(w))
        state["step"] += 1
        t, eta, mu = state["step"], float(state["eta"]), float(state["mu"])
        w = w * (1 - lambd * eta) - eta * g
        state["ax"] = state["ax"] + (w - state["ax"]) * mu if mu != 1 else xp.asarray(
            w, copy=True)
        state["eta"] = lr / ((1 + lambd * lr * t) ** alpha)
        state["mu"] = 1 / max(1, t - t0)
        return w
