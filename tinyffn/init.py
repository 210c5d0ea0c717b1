"""Initialising parameters, as ``torch.nn.init`` (reached as ``tinyffn.nn.init``).

How a layer starts decides how its FFN learns: W1's scale sets how many of the d_ff
hidden units fire at first, W2's how large the block's first contribution is. Each
function here sets a tensor's values and returns the tensor::

    nn.init.normal_(ffn.w1.weight, std=0.02)       # GPT-2's initialisation
    nn.init.zeros_(ffn.w2.weight)                  # with zeros_(ffn.w2.bias) too, FFN(x) = 0
                                                   # at first, so x + FFN(x) starts as x

The scales follow the fans of a weight (out_features, in_features): fan_in = in,
fan_out = out. Xavier (Glorot & Bengio 2010) keeps the variance of activations and
gradients alike: std = gain · sqrt(2 / (fan_in + fan_out)). Kaiming (He et al. 2015)
keeps the forward variance through ReLUs: std = gain / sqrt(fan), gain = sqrt(2) for
ReLU. A uniform U(-bound, bound) with bound = sqrt(3) · std has that std.

Random values come from ``generator=`` (a :class:`tinyffn.Generator`), else from the one
:func:`tinyffn.manual_seed` seeds, drawn with NumPy
on the CPU and moved to the tensor's device, so a seed gives the same values on every
backend (not PyTorch's values: its generator differs). The tensor stays the same object
(a Parameter stays registered, an optimizer keeps it) and gets a new array of its shape
and dtype, as ``p -= ...`` does under ``no_grad`` (see ``in_place.in_place``); no graph
records it. So initialise the parameter itself: in tinyffn a slice ``w[0]``, ``w.T`` and
``w.detach()`` are copies, and initialising one leaves ``w`` as it was (PyTorch's
``kaiming_uniform_(w.T)`` is ``kaiming_uniform_(w, mode="fan_out")`` here). Refused: a
tensor with a ``grad_fn`` (its graph saved the old values) and the shared constants of
the engine (the 2 in ``x * 2``).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .arguments import check_choice, is_real, type_name
from .backend import dtype_name
from .in_place import check_not_view
from .creation import _check_fits, _check_number, tensor
from .generators import Generator, generator as rng_of
from .promotion import is_shared_constant
from .tensor import Tensor

# PyTorch's names; the linear ones (convolutions too) have gain 1
NONLINEARITIES = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                  "conv_transpose2d", "conv_transpose3d", "sigmoid", "tanh", "relu",
                  "leaky_relu", "selu")
FAN_MODES = ("fan_in", "fan_out")


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The factor that keeps activations' variance through ``nonlinearity`` (PyTorch's
    table): linear (and the convolutions) and sigmoid 1, tanh 5/3, relu sqrt(2),
    leaky_relu sqrt(2 / (1 + s²)) with negative slope s = ``param`` (0.01 by default),
    selu 3/4."""
    check_choice("calculate_gain", "nonlinearity", nonlinearity, NONLINEARITIES,
                 "pass the activation's name, e.g. 'relu'")
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        if isinstance(slope, bool) or not isinstance(slope, (int, float)):
            raise ValueError(f"calculate_gain: the negative slope of leaky_relu must be a "
                             f"number, got {param!r}")
        return math.sqrt(2.0 / (1 + slope ** 2))
    return {"tanh": 5.0 / 3, "relu": math.sqrt(2.0), "selu": 3.0 / 4}.get(nonlinearity, 1.0)


def _fans(op: str, t: Tensor) -> tuple:
    """(fan_in, fan_out) of a weight: (in, out) for (out, in); for more axes, each times
    the product of the trailing ones (a convolution's receptive field), as PyTorch."""
    _check_target(op, t)
    if t.ndim < 2:
        raise ValueError(f"{op}: a tensor of shape {t.shape} has no fan_in and fan_out; "
                         "they need a weight of at least 2 axes (out_features, in_features). "
                         "Initialise a bias with zeros_, uniform_ or normal_")
    receptive = math.prod(t.shape[2:])
    return t.shape[1] * receptive, t.shape[0] * receptive


# ----------------------------------------------------------------------------- fixed values
def constant_(tensor: Tensor, val: float) -> Tensor:
    """Every entry set to ``val`` (a number that the tensor's dtype can hold)."""
    return _constant("constant_", tensor, val)


def zeros_(tensor: Tensor) -> Tensor:
    """Every entry set to 0 (a bias; W2 and b2, so that x + FFN(x) starts as x)."""
    return _constant("zeros_", tensor, 0)


def ones_(tensor: Tensor) -> Tensor:
    """Every entry set to 1 (a norm's gain)."""
    return _constant("ones_", tensor, 1)


def _constant(op: str, tensor: Tensor, val: Any, name: str = "val") -> Tensor:
    """``val`` into every entry, if the tensor's dtype holds it: in range, and whole for an
    integer dtype (PyTorch truncates 1.5 to 1 in silence). ``Tensor.fill_`` comes here too."""
    _check_number(op, name, val)
    _check_target(op, tensor)
    _check_fits(op, name, val, tensor.dtype)
    return _set(op, tensor, lambda shape: np.full(shape, val), random=False)


def eye_(tensor: Tensor) -> Tensor:
    """The identity: a 2-D tensor (m, n) gets 1 where row = column and 0 elsewhere, as
    ``torch.eye(m, n)``; a residual layer starting as the identity keeps its input."""
    _check_target("eye_", tensor)
    if tensor.ndim != 2:
        raise ValueError(f"eye_: needs a 2-D tensor (a weight matrix), got shape "
                         f"{tensor.shape}, as PyTorch does")
    return _set("eye_", tensor, lambda shape: np.eye(*shape), random=False)


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """The identity of a convolution, as PyTorch's: a 3-, 4- or 5-D weight (out, in, *k)
    gets 1 at [g·(out/groups) + d, d, centre of k] for each of the ``groups`` groups and
    d < min(out/groups, in), 0 elsewhere, so that the convolution passes each of its first
    input channels through to one output channel unchanged."""
    _check_target("dirac_", tensor)
    if tensor.ndim not in (3, 4, 5):
        raise ValueError(f"dirac_: needs a 3-, 4- or 5-D tensor (a convolution's weight: "
                         f"out, in, *kernel), got shape {tensor.shape}, as PyTorch does")
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
        raise ValueError(f"dirac_: groups must be a whole number >= 1, got {groups!r}")
    if tensor.shape[0] % groups:
        raise ValueError(f"dirac_: the tensor's {tensor.shape[0]} output channels (dim 0) "
                         f"must be divisible by groups={groups}")
    per = tensor.shape[0] // groups

    def values(shape: tuple) -> np.ndarray:
        out = np.zeros(shape)
        centre = tuple(k // 2 for k in shape[2:])
        for g in range(groups):
            for d in range(min(per, shape[1])):
                out[(g * per + d, d) + centre] = 1
        return out

    return _set("dirac_", tensor, values, random=False)


# ----------------------------------------------------------------------------- random values
def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0,
             generator: Generator | None = None) -> Tensor:
    """Entries drawn from U(a, b)."""
    return _uniform("uniform_", tensor, a, b, generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0,
            generator: Generator | None = None) -> Tensor:
    """Entries drawn from N(mean, std²)."""
    return _normal("normal_", tensor, mean, std, generator)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0,
                  b: float = 2.0, generator: Generator | None = None) -> Tensor:
    """Entries drawn from N(mean, std²) truncated to [a, b] (bounds in the values' units,
    not in stds, as PyTorch's): GPT's and ViT's initialisation, ``trunc_normal_(w, std=0.02)``.

    Exact, by the inverse CDF, as PyTorch draws it: with Φ the standard normal CDF and
    α, β the bounds in stds, u ~ U(Φ(α), Φ(β)) and x = mean + std · Φ⁻¹(u) (SciPy's
    ``ndtr`` and ``ndtri``). Where both bounds lie above the mean the mirrored interval
    [-β, -α] is drawn and negated, since Φ keeps its digits in the lower tail (Φ(-8) =
    6e-16; Φ(8) rounds to 1), so a far interval is sampled exactly, where PyTorch warns."""
    mean, std, a, b = _numbers("trunc_normal_", mean=mean, std=std, a=a, b=b)
    if not std > 0:
        raise ValueError(f"trunc_normal_: std must be > 0, got {std}")
    if not a < b:
        raise ValueError(f"trunc_normal_: the interval needs a < b, got a={a}, b={b}")
    rng = rng_of(generator, "trunc_normal_")
    return _set("trunc_normal_", tensor,
                lambda shape: _truncated_normal(rng, shape, mean, std, a, b))


def _truncated_normal(rng: np.random.Generator, shape: tuple, mean: float, std: float,
                      a: float, b: float) -> np.ndarray:
    from scipy.special import ndtr, ndtri      # SciPy: a core dependency (setup.cfg)
    alpha, beta = (a - mean) / std, (b - mean) / std          # the bounds in stds
    mirrored = alpha > 0
    if mirrored:
        alpha, beta = -beta, -alpha
    z = ndtri(rng.uniform(ndtr(alpha), ndtr(beta), size=shape))   # N(0, 1) in [α, β]
    return np.clip(mean + std * (-z if mirrored else z), a, b)    # (rounding stays inside)


def xavier_uniform_(tensor: Tensor, gain: float = 1.0,
                    generator: Generator | None = None) -> Tensor:
    """U(-bound, bound), bound = gain · sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _fans("xavier_uniform_", tensor)
    bound = gain * math.sqrt(6.0 / max(fan_in + fan_out, 1))    # (no fans: no entries)
    return _uniform("xavier_uniform_", tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0,
                   generator: Generator | None = None) -> Tensor:
    """N(0, std²), std = gain · sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _fans("xavier_normal_", tensor)
    return _normal("xavier_normal_", tensor, 0.0,
                   gain * math.sqrt(2.0 / max(fan_in + fan_out, 1)), generator)


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu",
                     generator: Generator | None = None) -> Tensor:
    """U(-bound, bound), bound = sqrt(3) · gain / sqrt(fan), gain from
    :func:`calculate_gain` (``a`` is leaky_relu's slope). ``nn.Linear`` starts this way
    with a = sqrt(5): bound = 1 / sqrt(in_features)."""
    bound = math.sqrt(3.0) * _kaiming_std("kaiming_uniform_", tensor, a, mode, nonlinearity)
    return _uniform("kaiming_uniform_", tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu",
                    generator: Generator | None = None) -> Tensor:
    """N(0, std²), std = gain / sqrt(fan): He initialisation (gain sqrt(2) for ReLU)."""
    return _normal("kaiming_normal_", tensor, 0.0,
                   _kaiming_std("kaiming_normal_", tensor, a, mode, nonlinearity), generator)


def _kaiming_std(op: str, tensor: Tensor, a: float, mode: str, nonlinearity: str) -> float:
    if isinstance(mode, str):
        mode = mode.lower()                         # PyTorch accepts "FAN_OUT" too
    check_choice(op, "mode", mode, FAN_MODES, "pass 'fan_in' or 'fan_out'")
    fan_in, fan_out = _fans(op, tensor)
    fan = fan_in if mode == "fan_in" else fan_out
    return calculate_gain(nonlinearity, a) / math.sqrt(max(fan, 1))   # (fan 0: no entries)


def orthogonal_(tensor: Tensor, gain: float = 1, generator: Generator | None = None) -> Tensor:
    """A (semi-)orthogonal matrix times ``gain`` (Saxe et al. 2013), as PyTorch draws it:
    the tensor seen as a matrix (rows, cols), its first axis the rows and the others
    flattened, gets Q of the QR factorisation of a matrix A of N(0, 1) entries (of
    (rows, cols), transposed first when rows < cols, so that Q is the tall one), with each
    column of Q times the sign of R's diagonal entry: Q R = A with R's diagonal positive,
    which makes Q uniform over the orthogonal matrices (Mezzadri 2007), and without that
    fix it would not be. Then Qᵀ Q = I for rows ≥ cols and Q Qᵀ = I for rows < cols: the
    rows (or columns) are orthonormal. From ``generator`` or the one ``manual_seed`` seeds, so a seed
    gives the same values on every device (not PyTorch's values). A tensor without
    entries is left as it is, as PyTorch leaves it."""
    _check_target("orthogonal_", tensor)
    if tensor.ndim < 2:
        raise ValueError(f"orthogonal_: needs a tensor of 2 or more axes (rows, cols, ...), "
                         f"got shape {tensor.shape}, as PyTorch does")
    (gain,) = _numbers("orthogonal_", gain=gain)
    rng = rng_of(generator, "orthogonal_")
    rows = tensor.shape[0]
    cols = math.prod(tensor.shape) // rows if rows else 0
    if rows * cols == 0:
        return tensor

    def values(shape: tuple) -> np.ndarray:
        a = rng.normal(0.0, 1.0, size=(rows, cols))                      # (rows, cols)
        q, r = np.linalg.qr(a.T if rows < cols else a)   # (max, min), (min, min)
        q = q * np.sign(np.diag(r))                      # R's diagonal made positive
        return gain * (q.T if rows < cols else q).reshape(shape)         # (rows, cols) as t

    return _set("orthogonal_", tensor, values)


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01,
            generator: Generator | None = None) -> Tensor:
    """A sparse weight (Martens 2010), as PyTorch's: a 2-D tensor (rows, cols) gets
    N(0, std²) entries, then in each column ceil(sparsity · rows) of them, at rows drawn
    at random, set to 0. ``sparsity`` is the fraction of each column zeroed, in [0, 1]
    (PyTorch zeroes a wrong count outside it). Both the values and the rows come from
    ``generator`` (PyTorch draws the rows from its global generator even when given one)."""
    _check_target("sparse_", tensor)
    if tensor.ndim != 2:
        raise ValueError(f"sparse_: needs a 2-D tensor (rows, cols), got shape "
                         f"{tensor.shape}, as PyTorch does")
    sparsity, std = _numbers("sparse_", sparsity=sparsity, std=std)
    if not 0 <= sparsity <= 1:
        raise ValueError(f"sparse_: sparsity is the fraction of each column set to 0, a "
                         f"number in [0, 1], got {sparsity}")
    if not std >= 0:
        raise ValueError(f"sparse_: std must be >= 0, got {std}")
    rng = rng_of(generator, "sparse_")
    rows = tensor.shape[0]
    zeros = math.ceil(sparsity * rows)

    def values(shape: tuple) -> np.ndarray:
        w = rng.normal(0.0, std, size=shape)                             # (rows, cols)
        order = rng.permuted(np.tile(np.arange(rows)[:, None], (1, shape[1])), axis=0)
        np.put_along_axis(w, order[:zeros], 0.0, axis=0)     # (zeros, cols) rows per column
        return w

    return _set("sparse_", tensor, values)


# ----------------------------------------------------------------------------- helpers
def _uniform(op: str, t: Tensor, a: Any, b: Any, generator: Any = None) -> Tensor:
    a, b = _numbers(op, a=a, b=b)
    if not a <= b:
        raise ValueError(f"{op}: the interval needs a <= b, got a={a}, b={b}")
    rng = rng_of(generator, op)
    return _set(op, t, lambda shape: rng.uniform(a, b, size=shape))


def _normal(op: str, t: Tensor, mean: Any, std: Any, generator: Any = None) -> Tensor:
    mean, std = _numbers(op, mean=mean, std=std)
    if not std >= 0:
        raise ValueError(f"{op}: std must be >= 0, got {std}")
    rng = rng_of(generator, op)
    return _set(op, t, lambda shape: rng.normal(mean, std, size=shape))


def _numbers(op: str, **values: Any) -> tuple:
    """The distribution's parameters as floats (Python's and NumPy's real numbers)."""
    if not all(is_real(v) for v in values.values()):
        given = ", ".join(f"{k}={v!r}" for k, v in values.items())
        raise TypeError(f"{op}: the distribution's parameters must be real numbers, got "
                        f"{given}")
    return tuple(float(v) for v in values.values())


def _set(op: str, t: Any, values: Any, random: bool = True) -> Tensor:
    """Give tensor ``t`` new values, ``values(shape)`` (a NumPy array), in its dtype and on
    its device; see the module docstring for why a new array and not in place."""
    _check_target(op, t)
    if random and not t.backend.is_floating(t.dtype):
        raise TypeError(f"{op}: draws real numbers, but the tensor has dtype "
                        f"{dtype_name(t.dtype)}; initialise a floating-point tensor")
    t.data = tensor(values(t.shape), dtype=dtype_name(t.dtype), device=t.device).data
    return t


def _check_target(op: str, t: Any) -> None:
    if not isinstance(t, Tensor):
        raise TypeError(f"{op}: needs a tinyffn Tensor (a Parameter), got {type_name(t)}")
    if t.grad_fn is not None:
        raise RuntimeError(f"{op}: this tensor was computed by {t.grad_fn.name}, and its "
                           "graph saved the values it had; initialise the parameter (or "
                           "other leaf tensor) itself")
    check_not_view(t, op)               # nn.init.zeros_(w.detach()) would leave w as it was
    if is_shared_constant(t):
        raise RuntimeError(f"{op}: this tensor is one of the engine's shared number "
                           "constants (the 2 in x * 2), which every op using that number "
                           "reads; initialise a parameter instead")
