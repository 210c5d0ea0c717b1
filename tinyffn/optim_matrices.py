"""Two optimizers that treat a weight as a matrix, not as a bag of numbers, reached as
``tinyffn.optim.Adafactor`` and ``tinyffn.optim.Muon`` (:mod:`tinyffn.optim` imports
them), with PyTorch 2.13's arguments, defaults and state names:

* ``Adafactor`` (Shazeer & Stern 2018): Adam's second moment, but for a matrix (d, d_ff)
  only its row means (d, 1) and column means (1, d_ff) are kept, d + d_ff numbers instead
  of d · d_ff; the step is relative to the weight's own size (T5 and PaLM trained with it);
* ``Muon`` (Jordan et al. 2024): momentum, then the update matrix orthogonalized by a few
  Newton-Schulz iterations, so that every direction of the weight moves by about the same
  amount (nanoGPT speedruns, Moonshot's Kimi). For 2-D weights only: recipes give the
  biases, norms and embeddings to AdamW, as PyTorch's documentation says.

As in tinyffn's Adam, Adafactor's ``step`` count is a Python int (PyTorch keeps a 0-d
float32 tensor). Neither reads a number back to the host during a step: the norms
PyTorch turns into Python floats with ``.item()`` stay 0-d arrays here. ``foreach``
chooses an implementation of the same math and is not a setting here.
"""
from __future__ import annotations

import math
from typing import Any, Iterable, Mapping

from .arguments import is_real, type_name
from .optim import Optimizer, _flag, _non_negative
from .optim_extra import _checked
from .tensor import Tensor


def _rms(xp, a):
    """sqrt(mean(a²)) over every entry, a 0-d array in a's dtype (on a's device)."""
    return xp.sqrt(xp.sum(a * a) / max(math.prod(a.shape), 1))


class Adafactor(Optimizer):
    """Adafactor (Shazeer & Stern 2018) as PyTorch 2.13 writes it, with lr γ, decay rate
    τ = ``beta2_decay``, ``eps`` = (ε1, ε2), clipping threshold d and weight decay λ::

        g   ← -g                                  (if maximize)
        β̂_t = 1 - t^τ                             the second moment's decay: 0 at t = 1,
                                                  then 1 - 2^-0.8 = 0.43, ... → 1
        ρ_t = min(γ, 1/sqrt(t))                   the relative step size
        α_t = max(ε2, RMS(θ_{t-1})) · ρ_t         ... times the weight's size, RMS before λ
        θ   ← θ_{t-1} - γ λ θ_{t-1}               decoupled weight decay (if λ ≠ 0)
        a matrix (..., m, n), factored over its last two axes:
          R_t = β̂_t R_{t-1} + (1 - β̂_t) mean(g², axis=-1)    row_var (..., m, 1)
          C_t = β̂_t C_{t-1} + (1 - β̂_t) mean(g², axis=-2)    col_var (..., 1, n)
          V̂_t = R_t C_t / max(mean(R_t, axis=-2), ε1)        the rank-1 estimate of g²
        a vector (or a 0-d parameter):
          V̂_t = β̂_t V̂_{t-1} + (1 - β̂_t) g²                   variance, its own shape
        U_t = g / sqrt(max(V̂_t, ε1²))
        Û_t = U_t / max(1, RMS(U_t) / d)          update clipping: RMS(Û_t) ≤ d
        θ_t = θ - α_t Û_t

    R_t C_t / mean(R_t) is the outer product of the row and column means over the mean
    of all g² (Shazeer & Stern's rank-1 fit of V̂), so Adam's denominator costs m + n
    numbers, not m · n. ε1 = None (the default) takes the dtype's machine epsilon
    (2.2e-16 in float64, 1.2e-7 in float32). As in PyTorch, and unlike the paper, γ caps ρ_t
    (the paper's constant 0.01 is γ's default) and scales the weight decay, and ε1 clamps
    V̂ and its normaliser instead of being added to g².
    """

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 1e-2,
                 beta2_decay: float = -0.8, eps: tuple = (None, 1e-3), d: float = 1.0,
                 weight_decay: float = 0.0, *, maximize: bool = False):
        super().__init__(params, dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d,
                                      weight_decay=weight_decay, maximize=maximize))

    def check_settings(self, owner: str, settings: dict) -> dict:
        s = _checked(owner, super().check_settings(owner, settings), ("d", "weight_decay"))
        tau = s["beta2_decay"]
        if not is_real(tau):
            raise TypeError(f"{owner}: beta2_decay must be a number, got {type_name(tau)}")
        if not tau <= 0:
            raise ValueError(f"{owner}: beta2_decay must be <= 0 (β̂_t = 1 - t^beta2_decay "
                             f"grows towards 1), got {tau}")
        s["beta2_decay"] = float(tau)
        if not s["d"] >= 1:
            raise ValueError(f"{owner}: d, the clipping threshold, must be >= 1, got {s['d']}")
        eps = s["eps"]
        if not isinstance(eps, (tuple, list)) or len(eps) != 2:
            raise ValueError(f"{owner}: eps must be two numbers (eps1 or None, eps2), "
                             f"got {eps!r}")
        s["eps"] = (None if eps[0] is None else _non_negative(owner, "eps1", eps[0]),
                    _non_negative(owner, "eps2", eps[1]))
        return s

    def state_keys(self, settings: Mapping) -> tuple:
        """Every key a parameter may have: which ones depends on its shape
        (:meth:`param_state_keys`)."""
        return ("step", "row_var", "col_var", "variance")

    def param_state_keys(self, settings: Mapping, shape: tuple) -> tuple:
        return ("step", "row_var", "col_var") if len(shape) > 1 else ("step", "variance")

    def state_shape(self, key: str, shape: tuple) -> tuple:
        if key == "row_var":
            return shape[:-1] + (1,)                            # (..., m, 1)
        if key == "col_var":
            return shape[:-2] + (1,) + shape[-1:]               # (..., 1, n)
        return shape

    def update(self, w, g, state, xp, *, lr, beta2_decay, eps, d, weight_decay, maximize):
        eps1, eps2 = eps
        if eps1 is None:
            eps1 = float(xp.finfo(w.dtype).eps)
        g = -g if maximize else g
        if not state:
            state["step"] = 0
            for key in self.param_state_keys({}, w.shape)[1:]:
                state[key] = xp.zeros(self.state_shape(key, w.shape), dtype=w.dtype)
        state["step"] += 1
        t = state["step"]
        keep = t ** beta2_decay                     # 1 - β̂_t, the new term's weight
        rho = min(lr, 1 / math.sqrt(t))
        alpha = xp.maximum(_rms(xp, w), eps2) * rho             # 0-d, before the decay
        if weight_decay:
            w = w * (1 - lr * weight_decay)     # one rounding, as PyTorch's mul_
        if w.ndim > 1:
            r = state["row_var"] = state["row_var"] + keep * (
                xp.mean(g * g, axis=-1, keepdims=True) - state["row_var"])  # (..., m, 1)
            c = state["col_var"] = state["col_var"] + keep * (
                xp.mean(g * g, axis=-2, keepdims=True) - state["col_var"])  # (..., 1, n)
            v = r * c / xp.maximum(xp.mean(r, axis=-2, keepdims=True), eps1)  # (..., m, n)
        else:
            v = state["variance"] = state["variance"] + keep * (g * g - state["variance"])
        u = g / xp.sqrt(xp.maximum(v, eps1 * eps1))
        clip = xp.maximum(_rms(xp, u) / d, 1.0)
        return w - (alpha / clip) * u


# Keller Jordan's quintic: the coefficients that make x ↦ ax + bx³ + cx⁵ steepest at 0
# while keeping singular values in about (0.7, 1.2) after 5 steps
_NS_COEFFICIENTS = (3.4445, -4.7750, 2.0315)


def _newton_schulz(g, xp, ns_coefficients: tuple = _NS_COEFFICIENTS, ns_steps: int = 5,
                   eps: float = 1e-7):
    """The orthogonalization at Muon's heart: for G = U S Vᵀ (its SVD), about U Vᵀ, every
    singular value moved near 1, by ``ns_steps`` iterations of the odd polynomial
    p(X) = aX + b(XXᵀ)X + c(XXᵀ)²X, which acts on each singular value s as
    s ↦ as + bs³ + cs⁵::

        X_0 = G / max(||G||_F, ε)       all singular values in [0, 1]
        A   = X Xᵀ                      (m, m), m ≤ n: a tall G is transposed first
        X   ← aX + (bA + cA²) X

    On raw arrays, in G's dtype: PyTorch runs it in bfloat16 whatever the weights' dtype
    (fast on a GPU, and the result is only about orthogonal anyway), so its float32
    updates differ from these by bfloat16's rounding, ~1e-2 relative; with the cast
    removed, PyTorch's and these agree to 1e-15 in float64.
    """
    a, b, c = ns_coefficients
    tall = g.shape[0] > g.shape[1]
    x = xp.matrix_transpose(g) if tall else g                   # (m, n), m <= n
    x = x / xp.maximum(xp.sqrt(xp.sum(x * x)), eps)
    for _ in range(ns_steps):
        gram = x @ xp.matrix_transpose(x)                       # (m, m)
        x = a * x + (b * gram + c * (gram @ gram)) @ x          # (m, n)
    return xp.matrix_transpose(x) if tall else x


_ADJUSTMENTS = (None, "original", "match_rms_adamw")


class Muon(Optimizer):
    """Muon (Jordan et al. 2024), PyTorch 2.13's, with lr γ, weight decay λ, momentum μ
    and Newton-Schulz coefficients (a, b, c), ``ns_steps`` k, for 2-D weights (A, B)::

        B_t = μ B_{t-1} + (1 - μ) g                momentum_buffer, B_0 = 0
        B̃_t = μ B_t + (1 - μ) g  if nesterov,  else B_t
        O_t = NS_k(B̃_t)                            _newton_schulz below: ~ U Vᵀ of B̃_t
        θ   ← θ_{t-1} - γ λ θ_{t-1}                decoupled weight decay
        γ'  = γ sqrt(max(1, A / B))                adjust_lr_fn None or "original"
        γ'  = 0.2 γ sqrt(max(A, B))                "match_rms_adamw" (Moonshot's: the
                                                   update's RMS as AdamW's, so AdamW's γ, λ fit)
        θ_t = θ - γ' O_t

    PyTorch's buffer is this running average (``lerp``); its documentation writes
    B_t = μB_{t-1} + g and g + μB_t, the same matrices times 1/(1 - μ), which NS's
    first step divides out. The orthogonal O_t has singular values near 1 whatever
    the gradient's scale, so a direction the gradient barely visits moves as much as
    the dominant one. NS runs in the weights' dtype, where PyTorch casts to bfloat16
    (see _newton_schulz below). A parameter that is not 2-D is refused, as by PyTorch:
    give those to AdamW (see the ``optim`` section of docs/api.md).
    """

    def __init__(self, params: Iterable[Tensor] | Iterable[dict], lr: float = 1e-3,
                 weight_decay: float = 0.1, momentum: float = 0.95, nesterov: bool = True,
                 ns_coefficients: tuple = _NS_COEFFICIENTS, eps: float = 1e-7,
                 ns_steps: int = 5, adjust_lr_fn: str | None = None):
        super().__init__(params, dict(lr=lr, weight_decay=weight_decay, momentum=momentum,
                                      nesterov=nesterov, ns_coefficients=ns_coefficients,
                                      eps=eps, ns_steps=ns_steps, adjust_lr_fn=adjust_lr_fn))

    def _add_group(self, group: Any, several: bool) -> None:
        """As PyTorch's constructor, refuse a parameter that is not a matrix (here in
        ``add_param_group`` too, where PyTorch would fail at the first step)."""
        super()._add_group(group, several)
        added = self.param_groups[-1]
        for j, p in enumerate(added["params"]):
            if p.ndim != 2:
                self.param_groups.pop()
                for q in added["params"]:
                    self.state.pop(q, None)
                where = f" of param_groups[{len(self.param_groups)}]" if several else ""
                raise ValueError(
                    f"Muon: parameter {j}{where} has shape {p.shape} ({p.ndim}-D); Muon "
                    "updates 2-D weight matrices only. Give the others (biases, norms' "
                    "weights) to a second optimizer, as recipes do: Muon([p for p in "
                    "model.parameters() if p.ndim == 2]) and AdamW([p for p in "
                    "model.parameters() if p.ndim != 2])")

    def check_settings(self, owner: str, settings: dict) -> dict:
        s = super().check_settings(owner, settings)
        for key in ("weight_decay", "momentum", "eps"):
            s[key] = _non_negative(owner, key, s[key])
        s["nesterov"] = _flag(owner, "nesterov", s["nesterov"])
        abc = s["ns_coefficients"]
        if not isinstance(abc, (tuple, list)) or len(abc) != 3 or not all(map(is_real, abc)):
            raise ValueError(f"{owner}: ns_coefficients must be three numbers (a, b, c), "
                             f"got {abc!r}")
        s["ns_coefficients"] = tuple(float(v) for v in abc)
        k = s["ns_steps"]
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < 100:
            raise ValueError(f"{owner}: ns_steps must be a whole number from 0 to 99 (5 is "
                             f"usual), got {k!r}")
        if s["adjust_lr_fn"] not in _ADJUSTMENTS:
            raise ValueError(f"{owner}: adjust_lr_fn must be None, 'original' or "
                             f"'match_rms_adamw', got {s['adjust_lr_fn']!r}")
        return s

    def state_keys(self, settings: Mapping) -> tuple:
        return ("momentum_buffer",)

    def update(self, w, g, state, xp, *, lr, weight_decay, momentum, nesterov,
               ns_coefficients, eps, ns_steps, adjust_lr_fn):
        buf = state.get("momentum_buffer")
        buf = g * (1 - momentum) if buf is None else buf + (1 - momentum) * (g - buf)
        state["momentum_buffer"] = buf
        u = g + momentum * (buf - g) if nesterov else buf
        o = _newton_schulz(u, xp, ns_coefficients, ns_steps, eps)   # (A, B)
        rows, cols = w.shape
        if adjust_lr_fn == "match_rms_adamw":
            adjusted = lr * 0.2 * math.sqrt(max(rows, cols))
        else:
            adjusted = lr * math.sqrt(max(1, rows / cols))
        w = w * (1 - lr * weight_decay)         # one rounding, as PyTorch's mul_
        return w - adjusted * o
