"""More of ``torch.nn.functional``, reached as ``F.leaky_relu``, ``F.glu``, ``F.normalize``
and ``F.one_hot`` (:mod:`tinyffn.functional` imports them, as it does the losses).

Composed as the rest of functional.py, in a frame of their name: ``leaky_relu`` is one
``where``, ``glu`` a ``chunk``, a ``sigmoid`` and a ``mul`` (the gate that SwiGLU, the
gated FFN of LLaMA, puts a Swish in), ``normalize`` a division by ``tinyffn.norm``.
``one_hot`` makes integer labels and records no graph. They live here so that
functional.py stays a file one can read in a sitting.
"""
from __future__ import annotations

from typing import Any

from . import grad_mode
from .arguments import _is_int, check_inplace, is_real
from .backend import dtype_name
from .composed import where
from .tensor import Tensor


def _floating(op: str, x: Any) -> Tensor:
    """``x``, a floating-point Tensor (PyTorch refuses integers here too)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: input must be a tinyffn Tensor, got {type(x).__name__}; "
                        "wrap it with tinyffn.tensor(...)")
    if not x.backend.is_floating(x.dtype):
        raise TypeError(f"{op}: input has dtype {dtype_name(x.dtype)}; {op} computes in "
                        "floating point (PyTorch refuses integers too): cast with x.float()")
    return x


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """LeakyReLU(x) = x where x > 0, else negative_slope · x, as ``F.leaky_relu``:

        d/dx = 1 where x > 0, else negative_slope (also at 0, as PyTorch).

    One ``where`` between x and ``negative_slope * x``, so the unused branch passes back an
    exact 0. docs/custom_ops.md writes the same function as a primitive of its own, to
    show how one is made. ``inplace``: only a false value
    (:func:`tinyffn.arguments.check_inplace`)."""
    x = _floating("leaky_relu", input)
    check_inplace("leaky_relu", inplace)
    if not is_real(negative_slope):
        raise TypeError(f"leaky_relu: negative_slope must be a number, got {negative_slope!r}")
    with grad_mode.scope("function", "leaky_relu"):
        return where(x > 0, x, x * float(negative_slope))


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """The gated linear unit (Dauphin et al. 2017), as ``F.glu``: ``a, b = x.chunk(2, dim)``,
    then a · sigmoid(b); the length of ``dim`` must be even, and halves.

        d/da = sigmoid(b),    d/db = a · sigmoid(b) (1 - sigmoid(b)).

    The gated FFN's ancestor: SwiGLU (``nn.GatedFFN``) gates with swish(x W) instead,
    GLU with sigmoid, both over the two halves of one projection."""
    x = _floating("glu", input)
    if x.ndim == 0:
        raise ValueError("glu: a 0-d tensor has no dim to halve (PyTorch refuses it too)")
    if not _is_int(dim) or not -x.ndim <= dim < x.ndim:
        raise ValueError(f"glu: dim must be an integer in [{-x.ndim}, {x.ndim - 1}] for a "
                         f"tensor of shape {x.shape}, got {dim!r}")
    if x.shape[dim] % 2:
        raise ValueError(f"glu: the halved dim must have an even length, but dim {dim} of "
                         f"shape {x.shape} has length {x.shape[dim]}")
    with grad_mode.scope("function", "glu"):
        a, b = x.chunk(2, dim)                          # each half of dim
        return a * b.sigmoid()


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12) -> Tensor:
    """x / max(‖x‖_p, eps) along ``dim``, as ``F.normalize``: each slice along dim scaled
    to p-norm 1 (a zero slice stays 0; ``eps`` keeps the division finite). The norm is
    :func:`tinyffn.norm` (``keepdim=True``) with ``clamp(min=eps)``, PyTorch's own form, so
    the gradient is theirs: through the norm where it exceeds eps, x / eps alone below.
    ``p`` is a number > 0 or ±inf; ``dim`` one axis (PyTorch's default, 1, wants 2 axes)."""
    from .torch_functions import norm                # torch_functions.py imports functional.py
    x = _floating("normalize", input)
    if not (is_real(eps) and eps >= 0):
        raise ValueError(f"normalize: eps must be a number >= 0, got {eps!r}")
    if not _is_int(dim) or not -max(x.ndim, 1) <= dim < max(x.ndim, 1):
        raise ValueError(f"normalize: dim must be an integer in [{-max(x.ndim, 1)}, "
                         f"{max(x.ndim, 1) - 1}] for a tensor of shape {x.shape}, got {dim!r}"
                         + ("; for a vector pass dim=0" if x.ndim == 1 else ""))
    with grad_mode.scope("function", "normalize"):
        return x / norm(x, p, dim, keepdim=True).clamp(min=float(eps))   # norm: 1 on dim


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """Integer class labels (...) as rows of 0s and 1s (..., num_classes), as ``F.one_hot``:
    y[..., c] = 1 where tensor[...] = c, int64. ``num_classes=-1`` takes the largest label
    plus one. ``tensor`` must be int64 (as PyTorch wants), each label in [0, num_classes).
    Not differentiable: an int64 tensor outside any graph."""
    if not isinstance(tensor, Tensor) or dtype_name(tensor.dtype) != "int64":
        raise TypeError(f"one_hot: takes an int64 tensor of class labels, as PyTorch, got "
                        f"{dtype_name(tensor.dtype) if isinstance(tensor, Tensor) else type(tensor).__name__}"
                        "; cast with .long() (or wrap a list with tinyffn.tensor)")
    if not _is_int(num_classes) or num_classes < -1:
        raise ValueError(f"one_hot: num_classes must be an integer >= 0, or -1 to take the "
                         f"largest label plus one, got {num_classes!r}")
    xp, labels = tensor.backend.xp, tensor.data
    n = tensor.numel()
    if num_classes == -1:
        if n == 0:
            raise ValueError("one_hot: cannot infer num_classes from an empty tensor (as "
                             "PyTorch says); pass num_classes")
        num_classes = int(xp.max(labels)) + 1
    if n and int(xp.min(labels)) < 0:
        raise ValueError(f"one_hot: class labels must be >= 0, got {int(xp.min(labels))}")
    if n and int(xp.max(labels)) >= num_classes:
        raise ValueError(f"one_hot: class labels must be smaller than num_classes="
                         f"{num_classes}, got {int(xp.max(labels))}")
    classes = xp.arange(num_classes, dtype=xp.int64)                     # (C,)
    rows = xp.astype(labels[..., None] == classes, xp.int64)             # (..., C)
    return Tensor(rows, _backend=tensor.backend)


__all__ = ["leaky_relu", "glu", "normalize", "one_hot"]
