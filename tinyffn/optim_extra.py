"""The rest of ``torch.optim``'s common optimizers, reached as ``tinyffn.optim.RMSprop`` and
so on (:mod:`tinyffn.optim` imports them): ``RMSprop``, ``Adagrad``, ``NAdam``, ``RAdam``,
``Adamax`` and ``Adadelta``.

Each is :class:`tinyffn.optim.Optimizer` with PyTorch 2.13's settings and defaults, and one
``update(w, g, state, xp, **settings)`` whose docstring is the algorithm as PyTorch's
documentation writes it (γ the lr, λ the weight decay, g the gradient, θ the parameter).
``opt.state[p]`` keeps PyTorch's names (``square_avg``, ``sum``, ``exp_inf``, ...), so a
``state_dict`` has PyTorch's layout; as in tinyffn's Adam, the ``step`` count is a Python
int and NAdam's ``mu_product`` a Python float (PyTorch keeps 0-d tensors, float32 unless
the default dtype is float64: there its NAdam rounds μ's product to float32).

PyTorch's ``foreach``, ``fused``, ``capturable`` and ``differentiable`` choose between
implementations of the same math and are not settings here; ``maximize`` is a keyword,
as PyTorch's is in all but RMSprop (where it comes after ``capturable`` and ``foreach``,
so a call passing it by position would not mean the same). Adagrad fills its state when
a group is added, as PyTorch's does (``step`` 0 and ``sum`` the initial accumulator), so
its ``state_dict`` lists every parameter before the first step, as PyTorch's.
"""
from __future__ import annotations

import math
from typing import Any, Iterable, Mapping

from .optim import Optimizer, _flag, _non_negative
from .tensor import Tensor

def _decayed(w, g, weight_decay: float, maximize: bool):
    """The gradient every one of these steps with: g ← -g if maximize, then the L2 term
    g ← g + λθ_{t-1} (PyTorch's order)."""
    g = -g if maximize else g
    return g + weight_decay * w if weight_decay else g


def _decoupled_or_decayed(w, g, lr: float, weight_decay: float, decoupled: bool,
                          maximize: bool) -> tuple:
    """(θ, g) for NAdam's and RAdam's step: with ``decoupled_weight_decay`` θ ← θ - γλθ
    (AdamW's) and g ← -g if maximize; else θ as it is and :func:`_decayed`'s g."""
    if decoupled:
        return w * (1 - lr * weight_decay), -g if maximize else g   # PyTorch's mul_
    return w, _decayed(w, g, weight_decay, maximize)


def _checked(owner: str, s: dict, numbers: tuple = (), flags: tuple = ()) -> dict:
    """Settings >= 0 as Python floats, flags as bools, betas as two floats in [0, 1)."""
    for key in numbers:
        s[key] = _non_negative(owner, key, s[key])
    for key in flags + ("maximize",):
        s[key] = _flag(owner, key, s[key])
    if "betas" in s:
        betas = s["betas"]
        if not isinstance(betas, (tuple, list)) or len(betas) != 2 or not all(
                _non_negative(owner, "beta", beta) < 1.0 for beta in betas):
            raise ValueError(f"{owner}: betas must be two numbers in [0, 1), got {betas}")
        s["betas"] = tuple(float(beta) for beta in betas)
    return s


class RMSprop(Optimizer):
    """RMSprop (Hinton's lecture notes; Graves 2013 for the centered form), PyTorch's::

        g   ← g + λ θ_{t-1}                         (after g ← -g if maximize)
        v_t ← α v_{t-1} + (1 - α) g²                square_avg, v_0 = 0
        ṽ_t ← v_t
        g_ave_t ← α g_ave_{t-1} + (1 - α) g         } if centered: grad_avg, and
        ṽ_t ← ṽ_t - g_ave_t²                        } v minus the squared mean
        b_t ← μ b_{t-1} + g / (sqrt(ṽ_t) + ε)       } if μ > 0: momentum_buffer, b_0 = 0
        θ_t ← θ_{t-1} - γ b_t                       }
        θ_t ← θ_{t-1} - γ g / (sqrt(ṽ_t) + ε)       otherwise

    Each entry's step is divided by the root of its own recent squared gradients, so
    entries with large gradients move no faster than those with small ones.
    """

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 1e-2,
                 alpha: float = 0.99, eps: float = 1e-8, weight_decay: float = 0.0,
                 momentum: float = 0.0, centered: bool = False, *, maximize: bool = False):
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps,
                                      centered=centered, weight_decay=weight_decay,
                                      maximize=maximize))

    def check_settings(self, owner: str, settings: dict) -> dict:
        return _checked(owner, super().check_settings(owner, settings),
                        ("momentum", "alpha", "eps", "weight_decay"), ("centered",))

    def state_keys(self, settings: Mapping) -> tuple:
        return ("step", "square_avg") + (("momentum_buffer",) if settings["momentum"] else ()) \
            + (("grad_avg",) if settings["centered"] else ())

    def update(self, w, g, state, xp, *, lr, momentum, alpha, eps, centered, weight_decay,
               maximize):
        g = _decayed(w, g, weight_decay, maximize)
        if not state:
            state.update({key: 0 if key == "step" else xp.zeros_like(w)
                          for key in self.state_keys(dict(momentum=momentum,
                                                          centered=centered))})
        state["step"] += 1
        v = state["square_avg"] = alpha * state["square_avg"] + (1 - alpha) * (g * g)
        if centered:
            g_ave = state["grad_avg"] = alpha * state["grad_avg"] + (1 - alpha) * g
            v = v - g_ave * g_ave
        denom = xp.sqrt(v) + eps
        if momentum:
            b = state["momentum_buffer"] = momentum * state["momentum_buffer"] + g / denom
            return w - lr * b
        return w - lr * g / denom


class Adagrad(Optimizer):
    """Adagrad (Duchi et al. 2011), PyTorch's, with lr decay η::

        γ̃   ← γ / (1 + (t - 1) η)
        g   ← g + λ θ_{t-1}                         (after g ← -g if maximize)
        s_t ← s_{t-1} + g²                          sum, s_0 = initial_accumulator_value
        θ_t ← θ_{t-1} - γ̃ g / (sqrt(s_t) + ε)

    The sum only grows, so every entry's step shrinks with the gradients it has seen.
    """

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 1e-2,
                 lr_decay: float = 0.0, weight_decay: float = 0.0,
                 initial_accumulator_value: float = 0.0, eps: float = 1e-10, *,
                 maximize: bool = False):
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps,
                                      weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value,
                                      maximize=maximize))

    def _add_group(self, group: Any, several: bool) -> None:
        """As PyTorch's: each parameter's state starts when its group is added."""
        super()._add_group(group, several)
        added = self.param_groups[-1]
        for p in added["params"]:
            self._start(p.data, self.state[p], p.backend.xp,
                        added["initial_accumulator_value"])

    @staticmethod
    def _start(w, state: dict, xp: Any, s_0: float) -> None:
        state.update(step=0, sum=xp.full_like(w, s_0))

    def check_settings(self, owner: str, settings: dict) -> dict:
        return _checked(owner, super().check_settings(owner, settings),
                        ("lr_decay", "eps", "weight_decay", "initial_accumulator_value"))

    def state_keys(self, settings: Mapping) -> tuple:
        return ("step", "sum")

    def update(self, w, g, state, xp, *, lr, lr_decay, eps, weight_decay,
               initial_accumulator_value, maximize):
        if not state:                           # opt.state[p].clear() restarts p
            self._start(w, state, xp, initial_accumulator_value)
        state["step"] += 1
        lr = lr / (1 + (state["step"] - 1) * lr_decay)
        g = _decayed(w, g, weight_decay, maximize)
        s = state["sum"] = state["sum"] + g * g
        return w - lr * g / (xp.sqrt(s) + eps)


class NAdam(Optimizer):
    """Adam with Nesterov momentum (Dozat 2016), PyTorch's, with momentum decay ψ::

        θ_{t-1} ← θ_{t-1} - γ λ θ_{t-1}             if decoupled_weight_decay (AdamW's)
        g   ← g + λ θ_{t-1}                         otherwise (after g ← -g if maximize)
        μ_t ← β1 (1 - ½ 0.96^(t ψ)),  μ_{t+1} ← β1 (1 - ½ 0.96^((t+1) ψ))
        m_t ← β1 m_{t-1} + (1 - β1) g               exp_avg
        v_t ← β2 v_{t-1} + (1 - β2) g²              exp_avg_sq
        m̂_t ← μ_{t+1} m_t / (1 - Π_{i≤t+1} μ_i) + (1 - μ_t) g / (1 - Π_{i≤t} μ_i)
        v̂_t ← v_t / (1 - β2^t)
        θ_t ← θ_{t-1} - γ m̂_t / (sqrt(v̂_t) + ε)

    ``mu_product`` keeps Π_{i≤t} μ_i, a Python float.
    """

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, maximize: bool = False):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay,
                                      decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize))

    def check_settings(self, owner: str, settings: dict) -> dict:
        return _checked(owner, super().check_settings(owner, settings),
                        ("eps", "weight_decay", "momentum_decay"), ("decoupled_weight_decay",))

    def state_keys(self, settings: Mapping) -> tuple:
        return ("step", "mu_product", "exp_avg", "exp_avg_sq")

    def update(self, w, g, state, xp, *, lr, betas, eps, weight_decay, momentum_decay,
               decoupled_weight_decay, maximize):
        beta1, beta2 = betas
        w, g = _decoupled_or_decayed(w, g, lr, weight_decay, decoupled_weight_decay, maximize)
        if not state:
            state.update(step=0, mu_product=1.0, exp_avg=xp.zeros_like(w),
                         exp_avg_sq=xp.zeros_like(w))
        state["step"] += 1
        t = state["step"]
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (t * momentum_decay))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((t + 1) * momentum_decay))
        mu_product = state["mu_product"] = float(state["mu_product"]) * mu
        m = state["exp_avg"] = beta1 * state["exp_avg"] + (1 - beta1) * g
        v = state["exp_avg_sq"] = beta2 * state["exp_avg_sq"] + (1 - beta2) * (g * g)
        m_hat = (mu_next / (1 - mu_product * mu_next)) * m + ((1 - mu) / (1 - mu_product)) * g
        v_hat = v / (1 - beta2 ** t)
        return w - lr * m_hat / (xp.sqrt(v_hat) + eps)


class RAdam(Optimizer):
    """Rectified Adam (Liu et al. 2020), PyTorch's::

        θ_{t-1} ← θ_{t-1} - γ λ θ_{t-1}             if decoupled_weight_decay (AdamW's)
        g   ← g + λ θ_{t-1}                         otherwise (after g ← -g if maximize)
        m_t ← β1 m_{t-1} + (1 - β1) g,  v_t ← β2 v_{t-1} + (1 - β2) g²   as Adam's
        m̂_t ← m_t / (1 - β1^t)
        ρ_∞ ← 2 / (1 - β2) - 1,  ρ_t ← ρ_∞ - 2 t β2^t / (1 - β2^t)
        if ρ_t > 5:  l_t ← sqrt(1 - β2^t) / (sqrt(v_t) + ε)
                     r_t ← sqrt((ρ_t - 4)(ρ_t - 2) ρ_∞ / ((ρ_∞ - 4)(ρ_∞ - 2) ρ_t))
                     θ_t ← θ_{t-1} - γ m̂_t r_t l_t
        else:        θ_t ← θ_{t-1} - γ m̂_t      (SGD with momentum while v is young)
    """

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0, decoupled_weight_decay: bool = False, *,
                 maximize: bool = False):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      maximize=maximize,
                                      decoupled_weight_decay=decoupled_weight_decay))

    def check_settings(self, owner: str, settings: dict) -> dict:
        return _checked(owner, super().check_settings(owner, settings),
                        ("eps", "weight_decay"), ("decoupled_weight_decay",))

    def state_keys(self, settings: Mapping) -> tuple:
        return ("step", "exp_avg", "exp_avg_sq")

    def update(self, w, g, state, xp, *, lr, betas, eps, weight_decay, maximize,
               decoupled_weight_decay):
        beta1, beta2 = betas
        w, g = _decoupled_or_decayed(w, g, lr, weight_decay, decoupled_weight_decay, maximize)
        if not state:
            state.update(step=0, exp_avg=xp.zeros_like(w), exp_avg_sq=xp.zeros_like(w))
        state["step"] += 1
        t = state["step"]
        m = state["exp_avg"] = beta1 * state["exp_avg"] + (1 - beta1) * g
        v = state["exp_avg_sq"] = beta2 * state["exp_avg_sq"] + (1 - beta2) * (g * g)
        m_hat = m / (1 - beta1 ** t)
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * t * beta2 ** t / (1 - beta2 ** t)
        if rho_t <= 5.0:
            return w - lr * m_hat
        l_t = math.sqrt(1 - beta2 ** t) / (xp.sqrt(v) + eps)
        r_t = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf
                        / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
        return w - lr * m_hat * r_t * l_t


class Adamax(Optimizer):
    """Adam with the infinity norm (Kingma & Ba 2015, section 7), PyTorch's::

        g   ← g + λ θ_{t-1}                         (after g ← -g if maximize)
        m_t ← β1 m_{t-1} + (1 - β1) g               exp_avg
        u_t ← max(β2 u_{t-1}, |g| + ε)              exp_inf
        θ_t ← θ_{t-1} - γ m_t / ((1 - β1^t) u_t)
    """

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0, *, maximize: bool = False):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      maximize=maximize))

    def check_settings(self, owner: str, settings: dict) -> dict:
        return _checked(owner, super().check_settings(owner, settings),
                        ("eps", "weight_decay"))

    def state_keys(self, settings: Mapping) -> tuple:
        return ("step", "exp_avg", "exp_inf")

    def update(self, w, g, state, xp, *, lr, betas, eps, weight_decay, maximize):
        beta1, beta2 = betas
        g = _decayed(w, g, weight_decay, maximize)
        if not state:
            state.update(step=0, exp_avg=xp.zeros_like(w), exp_inf=xp.zeros_like(w))
        state["step"] += 1
        m = state["exp_avg"] = beta1 * state["exp_avg"] + (1 - beta1) * g
        u = state["exp_inf"] = xp.maximum(beta2 * state["exp_inf"], xp.abs(g) + eps)
        return w - (lr / (1 - beta1 ** state["step"])) * m / u


class Adadelta(Optimizer):
    """Adadelta (Zeiler 2012), PyTorch's, with an lr γ scaling its step (1.0 as Zeiler's)::

        g    ← g + λ θ_{t-1}                        (after g ← -g if maximize)
        v_t  ← ρ v_{t-1} + (1 - ρ) g²               square_avg
        Δx_t ← sqrt(u_{t-1} + ε) / sqrt(v_t + ε) g
        u_t  ← ρ u_{t-1} + (1 - ρ) Δx_t²            acc_delta
        θ_t  ← θ_{t-1} - γ Δx_t

    The ratio of the two running roots gives the step the parameter's own units.
    """

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 1.0,
                 rho: float = 0.9, eps: float = 1e-6, weight_decay: float = 0.0, *,
                 maximize: bool = False):
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay,
                                      maximize=maximize))

    def check_settings(self, owner: str, settings: dict) -> dict:
        s = _checked(owner, super().check_settings(owner, settings), ("eps", "weight_decay"))
        if not 0.0 <= _non_negative(owner, "rho", s["rho"]) <= 1.0:
            raise ValueError(f"{owner}: rho must be in [0, 1], got {s['rho']}")
        s["rho"] = float(s["rho"])
        return s

    def state_keys(self, settings: Mapping) -> tuple:
        return ("step", "square_avg", "acc_delta")

    def update(self, w, g, state, xp, *, lr, rho, eps, weight_decay, maximize):
        g = _decayed(w, g, weight_decay, maximize)
        if not state:
            state.update(step=0, square_avg=xp.zeros_like(w), acc_delta=xp.zeros_like(w))
        state["step"] += 1
        v = state["square_avg"] = rho * state["square_avg"] + (1 - rho) * (g * g)
        delta = xp.sqrt(state["acc_delta"] + eps) / xp.sqrt(v + eps) * g
        state["acc_delta"] = rho * state["acc_delta"] + (1 - rho) * (delta * delta)
        return w - lr * delta
