"""What tinyffn's FFN training step is measured against.

Every function here computes the step that tinyffn computes with ``y = ffn(x);
y.backward(gy)``: the forward pass of the FFN and the gradients of all parameters and of
the input x, for a given output cotangent gy = dL/dy::

    a = x W1^T + b1          (T, d_ff)        gW2 = gy^T h,   gb2 = sum_t gy
    h = σ(a)                 (T, d_ff)        gh  = gy W2                    (T, d_ff)
    y = h W2^T + b2          (T, d)           ga  = gh ⊙ σ'(a)
                                              gW1 = ga^T x,   gb1 = sum_t ga,   gx = ga W1

and for the gated FFN (SwiGLU: σ = SiLU, no biases, as in LLaMA)::

    a = x W1^T,  u = x W3^T,  m = σ(a) ⊙ u,  y = m W2^T
    gW2 = gy^T m,  gm = gy W2,  gu = gm ⊙ σ(a),  ga = gm ⊙ u ⊙ σ'(a)
    gW1 = ga^T x,  gW3 = gu^T x,  gx = ga W1 + gu W3

Weights are stored (out, in) as in ``nn.Linear``: W1, W3 (d_ff, d), W2 (d, d_ff).
Parameters and gradients travel in dicts keyed by tinyffn's parameter names
(``"w1.weight"``, ``"w1.bias"``, ...) plus ``"x"``, so the three implementations can be
compared key by key.

* :func:`gemm_step`: the matrix products alone (6, or 9 for the gated FFN), the floor for
  any engine that calls BLAS for them;
* :func:`handwritten_step`: the whole step written out by hand with the array module
  ``xp`` (NumPy, or CuPy on a GPU), the straightforward way, no buffer reuse;
* :func:`make_torch_step`: the same step in PyTorch, through its autograd.
"""
from __future__ import annotations

import math
from typing import Any, Callable

ACTIVATIONS = ("relu", "relu+fused", "gelu", "gelu+fused", "gelu_tanh", "swish", "swish+fused",
               "swiglu", "swiglu+fused")
FUSED = "+fused"    # the same step with tinyffn's fused ops (nn.FFN(..., fused=True))


def base_activation(activation: str) -> str:
    """The function computed: "gelu+fused" computes "gelu" (only tinyffn's graph differs)."""
    return activation.removesuffix(FUSED)

SQRT_2 = math.sqrt(2.0)
SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
GELU_TANH_COEFF = 0.044715


def is_gated(activation: str) -> bool:
    return base_activation(activation) == "swiglu"


def gemm_flops(T: int, d: int, d_ff: int, activation: str) -> int:
    """FLOPs of the step's matrix products: 3 × (2 or 3 matrices) × 2·T·d·d_ff.

    Each forward product costs 2·T·d·d_ff; the backward repeats each one twice (the
    gradient of the weight and of the input), so a step costs 3 × the forward. For the
    plain FFN at d_ff = 4d this is 3 × 16·T·d².
    """
    matrices = 3 if is_gated(activation) else 2
    return 3 * matrices * 2 * T * d * d_ff


# ----------------------------------------------------------------------------- (a) GEMMs
def gemm_step(p: dict, x: Any, gy: Any) -> None:
    """The matrix products of one training step, and nothing else.

    The activation and the bias terms are left out, so the products use the results of
    other products in place of h (and m). Every product allocates its result, as an
    engine's do.
    """
    if "w3.weight" in p:
        _gated_gemms(p, x, gy)
        return
    W1, W2 = p["w1.weight"], p["w2.weight"]
    a = x @ W1.T                    # (T, d) @ (d, d_ff) -> (T, d_ff), standing in for h
    y = a @ W2.T                    # (T, d_ff) @ (d_ff, d) -> (T, d)
    gh = gy @ W2                    # (T, d) @ (d, d_ff) -> (T, d_ff), standing in for ga
    gW2 = gy.T @ a                  # (d, T) @ (T, d_ff) -> (d, d_ff)
    gx = gh @ W1                    # (T, d_ff) @ (d_ff, d) -> (T, d)
    gW1 = gh.T @ x                  # (d_ff, T) @ (T, d) -> (d_ff, d)
    del y, gW2, gx, gW1


def _gated_gemms(p: dict, x: Any, gy: Any) -> None:
    """The nine products of the gated FFN step (3 forward, 6 backward)."""
    W1, W2, W3 = p["w1.weight"], p["w2.weight"], p["w3.weight"]
    a = x @ W1.T                    # (T, d_ff), standing in for m
    u = x @ W3.T                    # (T, d_ff)
    y = a @ W2.T                    # (T, d)
    gm = gy @ W2                    # (T, d_ff), standing in for ga and gu
    gW2 = gy.T @ a                  # (d, d_ff)
    gW1 = gm.T @ x                  # (d_ff, d)
    gW3 = gm.T @ x                  # (d_ff, d)
    gx1 = gm @ W1                   # (T, d): the two halves of gx (their sum is not a GEMM)
    gx3 = gm @ W3                   # (T, d)
    del u, y, gW2, gW1, gW3, gx1, gx3


# ----------------------------------------------------------------------------- (b) by hand
def activation_forward(name: str, a: Any, xp: Any, erf: Callable) -> tuple:
    """h = σ(a), and what :func:`activation_backward` needs besides a.

    relu:       h = max(a, 0)
    gelu:       h = a Φ(a),  Φ(a) = (1 + erf(a / sqrt 2)) / 2
    gelu_tanh:  h = a (1 + t) / 2,  t = tanh(sqrt(2/pi) (a + 0.044715 a^3))
    swish:      h = a s,  s = sigmoid(a) = (1 + tanh(a / 2)) / 2  (no exp overflow)
    """
    if name == "relu":
        return xp.maximum(a, 0), None
    if name == "gelu":
        cdf = 0.5 * (1 + erf(a / SQRT_2))                 # Φ(a)
        return a * cdf, cdf
    if name == "gelu_tanh":
        # a * a * a, not a ** 3: NumPy's float32 power with exponent 3 goes through powf,
        # about 300 times slower here (31 ms against 0.1 ms on 512 x 1024 numbers)
        t = xp.tanh(SQRT_2_OVER_PI * (a + GELU_TANH_COEFF * (a * a * a)))
        return 0.5 * a * (1 + t), t
    if name == "swish":
        s = 0.5 * (1 + xp.tanh(0.5 * a))
        return a * s, s
    raise ValueError(f"unknown activation {name!r}; choose one of {', '.join(ACTIVATIONS)}")


def activation_backward(name: str, gh: Any, a: Any, saved: Any, xp: Any) -> Any:
    """ga = gh ⊙ σ'(a), with the local derivatives

    relu:       σ'(a) = 1 where a > 0, else 0
    gelu:       σ'(a) = Φ(a) + a φ(a),  φ(a) = exp(-a^2 / 2) / sqrt(2 pi)
    gelu_tanh:  σ'(a) = (1 + t) / 2 + a (1 - t^2) sqrt(2/pi) (1 + 3·0.044715 a^2) / 2
    swish:      σ'(a) = s (1 + a (1 - s))
    """
    if name == "relu":
        return gh * (a > 0)
    if name == "gelu":
        return gh * (saved + a * (INV_SQRT_2PI * xp.exp(-0.5 * a * a)))
    if name == "gelu_tanh":
        t = saved
        du = SQRT_2_OVER_PI * (1 + 3 * GELU_TANH_COEFF * a * a)
        return gh * (0.5 * (1 + t) + 0.5 * a * (1 - t * t) * du)
    if name == "swish":
        s = saved
        return gh * (s * (1 + a * (1 - s)))
    raise ValueError(f"unknown activation {name!r}; choose one of {', '.join(ACTIVATIONS)}")


def handwritten_step(p: dict, x: Any, gy: Any, activation: str, xp: Any,
                     erf: Callable) -> tuple:
    """One training step by hand: returns (y, grads), grads keyed like ``p`` plus ``"x"``."""
    activation = base_activation(activation)
    if is_gated(activation):
        return _handwritten_gated_step(p, x, gy, xp, erf)
    W1, b1, W2, b2 = p["w1.weight"], p["w1.bias"], p["w2.weight"], p["w2.bias"]
    a = x @ W1.T + b1                                   # (T, d_ff)
    h, saved = activation_forward(activation, a, xp, erf)
    y = h @ W2.T + b2                                   # (T, d)
    g = {"w2.weight": gy.T @ h,                         # (d, d_ff)
         "w2.bias": xp.sum(gy, axis=0)}                 # (d,)
    gh = gy @ W2                                        # (T, d_ff)
    ga = activation_backward(activation, gh, a, saved, xp)
    g["w1.weight"] = ga.T @ x                           # (d_ff, d)
    g["w1.bias"] = xp.sum(ga, axis=0)                   # (d_ff,)
    g["x"] = ga @ W1                                    # (T, d)
    return y, g


def _handwritten_gated_step(p: dict, x: Any, gy: Any, xp: Any, erf: Callable) -> tuple:
    """The SwiGLU step by hand (σ = SiLU = swish with beta = 1, no biases)."""
    W1, W2, W3 = p["w1.weight"], p["w2.weight"], p["w3.weight"]
    a = x @ W1.T                                        # (T, d_ff)
    u = x @ W3.T                                        # (T, d_ff)
    gate, s = activation_forward("swish", a, xp, erf)
    m = gate * u                                        # (T, d_ff)
    y = m @ W2.T                                        # (T, d)
    g = {"w2.weight": gy.T @ m}                         # (d, d_ff)
    gm = gy @ W2                                        # (T, d_ff)
    gu = gm * gate
    ga = activation_backward("swish", gm * u, a, s, xp)
    g["w1.weight"] = ga.T @ x                           # (d_ff, d)
    g["w3.weight"] = gu.T @ x                           # (d_ff, d)
    g["x"] = ga @ W1 + gu @ W3                          # (T, d)
    return y, g


# ----------------------------------------------------------------------------- (c) PyTorch
def make_torch_step(torch: Any, p: dict, x: Any, gy: Any, activation: str,
                    device: str) -> tuple:
    """PyTorch's version of the step, on copies of the same values.

    ``p``, ``x`` and ``gy`` are NumPy arrays. Returns ``(step, leaves)``: ``step()`` runs
    one training step (clearing the gradients first, as tinyffn's step does) and returns
    y; afterwards ``leaves[name].grad`` holds each gradient.
    """
    F = torch.nn.functional
    activation = base_activation(activation)
    dev = "cuda" if device == "cuda" else "cpu"
    leaves = {name: torch.tensor(v, device=dev, requires_grad=True)
              for name, v in {**p, "x": x}.items()}
    gy_t = torch.tensor(gy, device=dev)
    act = {"relu": F.relu, "gelu": F.gelu, "swish": F.silu,
           "gelu_tanh": lambda a: F.gelu(a, approximate="tanh")}

    def step():
        for t in leaves.values():
            t.grad = None
        L = leaves
        if is_gated(activation):
            m = F.silu(F.linear(L["x"], L["w1.weight"])) * F.linear(L["x"], L["w3.weight"])
            y = F.linear(m, L["w2.weight"])
        else:
            h = act[activation](F.linear(L["x"], L["w1.weight"], L["w1.bias"]))
            y = F.linear(h, L["w2.weight"], L["w2.bias"])
        y.backward(gy_t)
        return y

    return step, leaves
