"""Drawing indices at random, as PyTorch's ``randperm`` (a shuffled order of 0 .. n-1, to
visit a data set in batches) and ``multinomial`` (a token drawn from a language model's
probabilities: ``next_id = probs.multinomial(1)``).

Both draw from ``generator=`` or the one :func:`tinyffn.manual_seed` seeds, with NumPy on the CPU,
and move the result to the device asked for, as every random function of
:mod:`tinyffn.creation` does: a seed gives the same indices on every backend (not
PyTorch's indices, as its generator differs). The results are integer tensors, outside
any graph: an index drawn has no gradient.
"""
from __future__ import annotations

import numpy as np

from . import backend as backends
from .arguments import _is_int
from .creation import _check_fits, _filled
from .generators import generator as rng_of
from .tensor import Tensor
from .torch_functions import _tensor_input


def randperm(n, *, generator=None, dtype=None, device="cpu", requires_grad=False) -> Tensor:
    """0, 1, ..., n - 1 in a random order, as ``torch.randperm``: ``x[randperm(len(x))]``
    shuffles the rows of x. int64 unless ``dtype`` says otherwise (a float dtype gives the
    same numbers as floats, as PyTorch's; bool is refused, and so is a dtype that cannot
    hold n - 1). From ``generator``, else the one ``manual_seed`` seeds."""
    if not _is_int(n) or n < 0:
        raise (ValueError if _is_int(n) else TypeError)(
            f"randperm: n must be an integer >= 0 (how many indices to shuffle), got {n!r}")
    dtype = dtype or "int64"
    if backends.dtype_name(dtype) == "bool":
        raise TypeError("randperm: a permutation of 0 .. n-1 has no bool form (PyTorch "
                        "refuses it too); pass an integer or float dtype")
    _check_fits("randperm", "n - 1 =", max(n - 1, 0), dtype)
    name = backends.dtype_name(dtype)
    exact = 2 ** (np.finfo(name).nmant + 1) if name in backends.FLOAT_DTYPES else n
    if n > exact + 1:                   # every integer up to ``exact`` is a float of ``name``
        raise ValueError(f"randperm: n={n} is too large for {name}, whose integers are exact "
                         f"only up to {exact}: the permutation would repeat numbers (PyTorch "
                         f"refuses n > {exact + 1} too); pass a wider dtype")
    return _filled(rng_of(generator, "randperm").permutation(n), dtype, device, requires_grad)


def multinomial(input, num_samples, replacement=False, *, generator=None) -> Tensor:
    """Indices drawn by the weights in ``input``, as ``torch.multinomial``: from a vector
    (n,) of n categories, ``num_samples`` indices, shape (num_samples,); from a matrix
    (rows, n), that many for each row, shape (rows, num_samples). int64, on input's device.

    The weights need not add up to 1 (each row is divided by its sum), but each must be
    finite and >= 0 and a row's sum > 0, else the error is PyTorch's. ``replacement=False``
    (the default) draws distinct indices, so ``num_samples`` may not exceed n: the
    first with probability p_i / Σ p, the next by the weights of those left, and so on.
    Once every category of positive weight is drawn, the zero-weight ones follow in the
    order of their indices, as PyTorch also draws them then (in an unspecified order).
    ``replacement=True`` draws each index anew: a zero weight is never drawn.

    How: with replacement, the inverse of each row's cumulative distribution at uniform
    u (NumPy's ``searchsorted``); without, the keys p_i / e_i with e_i ~ Exp(1), largest
    first (Efraimidis and Spirakis 2006; PyTorch's method too): the largest key is index i
    with probability p_i / Σ p, and the next ones follow as draws from the rest.
    """
    probs = _tensor_input("multinomial", input)
    if not probs.backend.is_floating(probs.dtype):
        raise TypeError(f"multinomial: input must hold floating-point weights, got dtype "
                        f"{backends.dtype_name(probs.dtype)} (PyTorch refuses it too); "
                        "cast it with .float()")
    if probs.ndim not in (1, 2):
        raise ValueError(f"multinomial: input must be 1-D (n weights) or 2-D (rows of n "
                         f"weights), got shape {probs.shape}")
    if not _is_int(num_samples) or num_samples <= 0:
        raise ValueError(f"multinomial: num_samples must be an integer > 0, got {num_samples!r}")
    if not isinstance(replacement, bool):
        raise TypeError(f"multinomial: replacement must be True or False, got {replacement!r}")
    p = probs.numpy().astype(np.float64).reshape(-1, probs.shape[-1])     # (rows, n)
    n = p.shape[1]
    if not replacement and num_samples > n:
        raise ValueError(f"multinomial: cannot draw {num_samples} distinct indices out of "
                         f"{n} categories; pass num_samples <= {n}, or replacement=True")
    if not np.all(np.isfinite(p) & (p >= 0)):
        raise ValueError("multinomial: the weights contain inf, NaN or an entry < 0 (as "
                         "PyTorch says: probability tensor contains either `inf`, `nan` or "
                         "element < 0)")
    if p.shape[0] and not np.all(p.sum(axis=1) > 0):
        row = int(np.argmin(p.sum(axis=1)))
        raise ValueError(f"multinomial: row {row} of the weights adds up to 0, an invalid "
                         "distribution (PyTorch: sum of probabilities <= 0); every row needs "
                         "a positive weight")
    rng = rng_of(generator, "multinomial")
    drawn = _with_replacement(rng, p, num_samples) if replacement else \
        _without_replacement(rng, p, num_samples)                          # (rows, k)
    drawn = drawn.reshape(probs.shape[:-1] + (num_samples,))
    return _filled(drawn, "int64", probs.device, False)


def _with_replacement(rng: np.random.Generator, p: np.ndarray, k: int) -> np.ndarray:
    """k draws per row: the first i whose cumulative weight exceeds u · total. Dividing the
    cumulative sums by their last entry makes the last positive one exactly 1 > u, so no
    draw lands past it, on a trailing zero weight."""
    cdf = np.cumsum(p, axis=1)                                             # (rows, n)
    cdf /= cdf[:, -1:]
    u = rng.random((p.shape[0], k))                                        # (rows, k)
    return np.stack([np.searchsorted(c, row_u, side="right") for c, row_u in zip(cdf, u)]) \
        if p.shape[0] else np.zeros((0, k), dtype=np.int64)


def _without_replacement(rng: np.random.Generator, p: np.ndarray, k: int) -> np.ndarray:
    """The k largest keys p_i / e_i per row, e_i ~ Exp(1), in order (ties, the zero weights,
    by index: a stable sort of the negated keys)."""
    keys = p / rng.exponential(size=p.shape)                               # (rows, n)
    return np.argsort(-keys, axis=1, kind="stable")[:, :k]                 # (rows, k)


__all__ = ["randperm", "multinomial"]
