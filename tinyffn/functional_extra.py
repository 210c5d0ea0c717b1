"""More of ``torch.nn.functional``, reached as ``F.leaky_relu``, ``F.glu``, ``F.normalize``,
``F.one_hot``, ``F.softplus`` and ``F.pad`` (:mod:`tinyffn.functional` imports them, as it
does the losses), and the lookup under ``F.embedding`` (``_lookup``; the function, with
PyTorch's options, is in :mod:`tinyffn.embedding_lookup`).

Composed as the rest of functional.py, in a frame of their name: ``leaky_relu`` is one
``where``, ``glu`` a ``chunk``, a ``sigmoid`` and a ``mul`` (the gate that SwiGLU, the
gated FFN of LLaMA, puts a Swish in), ``normalize`` a division by ``tinyffn.norm``,
``softplus`` a ``where`` between x and log1p(exp(x)), ``pad`` a ``getitem`` (to crop) and
a ``cat`` with constant blocks, the embedding lookup one ``getitem`` of the table
(``embedding_bag`` calls it too). ``one_hot`` makes integer labels and records no graph.
They live here so that functional.py stays a file one can read in a sitting.
"""
from __future__ import annotations

from typing import Any

from . import grad_mode
from .arguments import _is_int, check_inplace, is_real, tensor_arg, type_name
from .backend import DeviceError, dtype_name
from .composed import where
from .creation import _check_fits, arange, cat, full, tensor
from .in_place import as_view
from .ops.shape import CheckedKey, GetItem
from .more_functions import _index_selected
from .tensor import Tensor


def _floating(op: str, x: Any) -> Tensor:
    """``x``, a floating-point Tensor (PyTorch refuses integers here too)."""
    tensor_arg(op, "input", x)
    from .functional import _check_floating         # functional.py imports this file
    _check_floating(op, "input", x)
    return x


def _widened(x: Tensor) -> Tensor:
    """float16 computed in float32 (a cast node), as PyTorch computes it ("opmath"), and
    :func:`_narrowed` back: one rounding instead of one per op, and no float16 overflow."""
    from .functional import _widened as widened     # functional.py imports this file
    return widened(x)


def _narrowed(y: Tensor, input: Tensor) -> Tensor:
    from .functional import _narrowed as narrowed
    return narrowed(y, input)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """LeakyReLU(x) = x where x > 0, else negative_slope · x, as ``F.leaky_relu``:

        d/dx = 1 where x > 0, else negative_slope (also at 0, as PyTorch).

    One ``where`` between x and ``negative_slope * x``, so the unused branch passes back an
    exact 0. docs/custom_ops.md writes the same function as a primitive of its own, to
    show how one is made. ``inplace``: only a false value
    (:func:`tinyffn.arguments.check_inplace`). float16 is computed in float32, rounded
    once, as PyTorch (a float16 slope of 0.01 is 0.01000214)."""
    x = _floating("leaky_relu", input)
    check_inplace("leaky_relu", inplace)
    if not is_real(negative_slope):
        raise TypeError(f"leaky_relu: negative_slope must be a number, got {negative_slope!r}")
    with grad_mode.scope("function", "leaky_relu"):
        x16, x = x, _widened(x)
        return _narrowed(where(x > 0, x, x * float(negative_slope)), x16)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """The gated linear unit (Dauphin et al. 2017), as ``F.glu``: ``a, b = x.chunk(2, dim)``,
    then a · sigmoid(b); the length of ``dim`` must be even, and halves.

        d/da = sigmoid(b),    d/db = a · sigmoid(b) (1 - sigmoid(b)).

    The gated FFN's ancestor: SwiGLU (``nn.GatedFFN``) gates with swish(x W) instead,
    GLU with sigmoid, both over the two halves of one projection. float16 is computed in
    float32, rounded once, as PyTorch."""
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
        a, b = _widened(x).chunk(2, dim)                # each half of dim
        return _narrowed(a * b.sigmoid(), x)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12) -> Tensor:
    """x / max(‖x‖_p, eps) along ``dim``, as ``F.normalize``: each slice along dim scaled
    to p-norm 1 (a zero slice stays 0; ``eps`` keeps the division finite). The norm is
    :func:`tinyffn.norm` (``keepdim=True``) with ``clamp(min=eps)``, PyTorch's own form, so
    the gradient is theirs: through the norm where it exceeds eps, x / eps alone below.
    ``p`` is any number or ±inf (0 and p < 0 mean what they mean for :func:`tinyffn.norm`);
    ``dim`` one axis (PyTorch's default, 1, wants 2 axes)."""
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
    if num_classes == -1 and n == 0:
        raise ValueError("one_hot: cannot infer num_classes from an empty tensor (as "
                         "PyTorch says); pass num_classes")
    if n:                               # one read to the host: the smallest and largest label
        low, high = (int(v) for v in tensor.backend.to_numpy(
            xp.stack([xp.min(labels), xp.max(labels)])))
        num_classes = high + 1 if num_classes == -1 else num_classes
        if low < 0:
            raise ValueError(f"one_hot: class labels must be >= 0, got {low}")
        if high >= num_classes:
            raise ValueError(f"one_hot: class labels must be smaller than num_classes="
                             f"{num_classes}, got {high}")
    classes = xp.arange(num_classes, dtype=xp.int64)                     # (C,)
    rows = xp.astype(labels[..., None] == classes, xp.int64)             # (..., C)
    return Tensor(rows, _backend=tensor.backend)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """Softplus(x) = log(1 + exp(β x)) / β, a smooth ReLU, as ``F.softplus``; where
    β x > ``threshold`` it is x itself, as PyTorch's (there the two differ by less than
    exp(-threshold) / β, and exp(β x) would overflow). A float16 x is computed in float32
    and rounded once, as PyTorch (in float16, exp(x) is inf from x = 11.1 on):

        d/dx = sigmoid(β x) = exp(β x) / (1 + exp(β x)),   1 above the threshold.

    One ``where`` between x and ``log1p(exp(β x)) / β``; exp reads β x with the entries
    above the threshold set to 0, so that its unused branch stays finite (an inf there
    would send back 0 · inf = NaN). A float16 x is computed in float32 and the result
    rounded once, as PyTorch computes it: in float16, exp overflows past β x ≈ 11.1, so
    softplus(15.0) would be inf (and its gradient NaN) below the default threshold 20."""
    x = _floating("softplus", input)
    for name, v in (("beta", beta), ("threshold", threshold)):
        if not is_real(v):
            raise TypeError(f"softplus: {name} must be a number, got {v!r}")
    if beta == 0:
        raise ValueError("softplus: beta must not be 0 (it divides); PyTorch's default is 1")
    with grad_mode.scope("function", "softplus"):
        w = _widened(x)                                 # float16: float32 (a cast node)
        bx = w * float(beta)
        linear = bx > float(threshold)                  # bool, outside the graph
        smooth = bx.masked_fill(linear, 0.0).exp().log1p() / float(beta)
        return _narrowed(where(linear, w, smooth), x)


_PAD_MODES = ("constant", "reflect", "replicate", "circular")


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:
    """``input`` with ``value`` added around it, as ``F.pad``: ``pad`` holds pairs of counts
    (before, after) for the last axis first, then the axis before it, and so on:
    ``pad(x, (1, 2))`` adds 1 entry before and 2 after along the last axis,
    ``pad(x, (0, 0, 1, 0))`` one row on top. A negative count cuts that many entries
    instead. ``value`` (None: 0) is a number the dtype holds (a fraction into an integer
    tensor is refused; PyTorch truncates it). Shapes: (..., n) -> (..., before + n + after).

    ``mode`` fills the added entries as PyTorch's: ``"constant"`` with ``value``;
    ``"reflect"`` with the mirror image, the edge entry not repeated ([1 2 3] padded (2, 2)
    is [3 2 1 2 3 2 1]; counts < n); ``"replicate"`` with the edge entry ([1 1 1 2 3 3 3]);
    ``"circular"`` by wrapping around ([2 3 1 2 3 1 2]; counts <= n). The other modes pad
    the last 1, 2 or 3 axes of a tensor with 1 or 2 more (a batch and a channel axis), as
    in PyTorch, and take no ``value``.

    Constant mode, per padded axis: a ``getitem`` that crops (for negative counts) and a
    ``cat`` with blocks of ``value``, so each kept entry gets its own gradient back and the
    added ones send nothing. The other modes, per padded axis: one ``index_select`` of
    the entry each output position copies (see :func:`_copied_from`), whose
    backward adds the gradients of an entry's copies into it."""
    x = tensor_arg("pad", "input", input)
    if mode not in _PAD_MODES:
        raise ValueError(f"pad: mode must be one of {_PAD_MODES}, got {mode!r}")
    if not isinstance(pad, (tuple, list)) or not all(_is_int(p) for p in pad):
        raise TypeError(f"pad: pad must be a tuple of ints, (before, after) per axis from "
                        f"the last, got {pad!r}")
    if len(pad) % 2 or len(pad) // 2 > x.ndim:
        raise ValueError(f"pad: pad has {len(pad)} counts, but needs an even number, two per "
                         f"axis, for at most the {x.ndim} axes of shape {x.shape}")
    if mode != "constant":
        return _pad_copying(x, [int(p) for p in pad], mode, value)
    value = 0 if value is None else value
    if not (isinstance(value, bool) or is_real(value)):
        raise TypeError(f"pad: value must be a number, got {type_name(value)}")
    _check_fits("pad", "value", value, x.dtype)
    y = x
    with grad_mode.scope("function", "pad"):
        for i in range(len(pad) // 2):
            axis, before, after = x.ndim - 1 - i, int(pad[2 * i]), int(pad[2 * i + 1])
            n = y.shape[axis]
            start, stop = max(-before, 0), n - max(-after, 0)
            if stop < start:
                raise ValueError(f"pad: the counts ({before}, {after}) cut more than the "
                                 f"{n} entries of axis {axis} (shape {x.shape})")
            if (start, stop) != (0, n):                 # negative counts: crop
                y = y[(slice(None),) * axis + (slice(start, stop),)]
            blocks = [full(y.shape[:axis] + (count,) + y.shape[axis + 1:], value,
                           dtype=dtype_name(x.dtype), device=x.device) if count > 0 else None
                      for count in (before, after)]               # (..., count, ...)
            if any(b is not None for b in blocks):              # (..., before + n + after, ...)
                y = cat([b for b in (blocks[0], y, blocks[1]) if b is not None], axis)
    return y.clone() if y is x else as_view(y, None)     # a tensor of its own, as PyTorch's


def _pad_copying(x: Tensor, pad: list, mode: str, value: Any) -> Tensor:
    """:func:`pad` in the modes that copy entries of x: one ``index_select`` (a
    ``getitem``) per padded axis."""
    k = len(pad) // 2
    if not k or x.ndim not in (k + 1, k + 2):
        raise ValueError(f"pad: mode={mode!r} pads the last 1, 2 or 3 axes of a tensor with 1 "
                         f"or 2 axes more (batch, channels), as in PyTorch; got {len(pad)} "
                         f"counts for shape {x.shape}. Pad a 1-D x as x[None], then [0]")
    if value is not None and value != 0:
        raise ValueError(f"pad: mode={mode!r} copies entries of the input and takes no value "
                         f"(got {value!r}); use mode='constant' to pad with a value")
    y = x
    with grad_mode.scope("function", "pad"):
        for i in range(k):
            axis = x.ndim - 1 - i
            index = _copied_from(x.shape[axis], pad[2 * i], pad[2 * i + 1], mode, x.shape)
            if index != list(range(x.shape[axis])):     # made inside the axis: not checked
                y = _index_selected(y, axis, tensor(index, dtype="int64", device=x.device))
    return y.clone() if y is x else as_view(y, None)     # a tensor of its own, as PyTorch's


def _copied_from(n: int, before: int, after: int, mode: str, shape: tuple) -> list:
    """Which of an axis's n entries each output position copies, as PyTorch's padding:
    position j of the padded axis is input position i = j - before, and an i outside
    [0, n) is reflected (-i, or 2(n - 1) - i), clamped to the edge (replicate), or taken
    modulo the cropped length (circular). A negative count crops: after the padding
    (reflect, replicate), or before it (circular), as PyTorch does."""
    limit = {"reflect": n - 1, "circular": n}.get(mode)
    if limit is not None and max(before, after) > limit:
        raise ValueError(f"pad: mode={mode!r} needs counts of at most {limit} (the entries "
                         f"it can {'mirror' if mode == 'reflect' else 'wrap around once'}) "
                         f"along an axis of {n}; got ({before}, {after}) for shape {shape}")
    if n == 0 and before + after > 0:
        raise ValueError(f"pad: mode={mode!r} has no entry to copy along an empty axis (shape "
                         f"{shape}), as in PyTorch; pad it with mode='constant'")
    lo, hi = max(-before, 0), n - max(-after, 0)                  # the entries kept
    if n + before + after < 0 or (mode == "circular" and hi < lo):
        raise ValueError(f"pad: the counts ({before}, {after}) cut more than the {n} entries "
                         f"of an axis of shape {shape}")
    if mode == "circular":
        if max(before, after) > hi - lo:
            raise ValueError(f"pad: mode='circular' with counts ({before}, {after}) along an "
                             f"axis of {n} (shape {shape}) would wrap around the {hi - lo} "
                             "entries left after the cut more than once")
        return [lo + i % (hi - lo) for i in range(-max(before, 0), hi - lo + max(after, 0))]
    if mode == "reflect":
        return [-i if i < 0 else 2 * (n - 1) - i if i >= n else i
                for i in range(-before, n + after)]
    return [min(max(i, 0), n - 1) for i in range(-before, n + after)]          # replicate


def _lookup(op: str, idx: Any, weight: Any, padding_idx: Any, read: bool = True) -> Tensor:
    """y = W[idx], one ``getitem`` (PyTorch's options around it are in
    :mod:`tinyffn.embedding_lookup`), with errors that name ``op`` (``"Embedding"`` for
    the module); ``padding_idx`` (negative counts from the end): that row gets no gradient
    (it is read from ``W.detach()``); ``read=False``: idx's range was checked by the
    caller (see :func:`_check_indices`)."""
    w = _table(op, weight, padding_idx)
    n = w.shape[0]
    _check_indices(op, idx, w, read)
    with grad_mode.scope("function", "embedding"):
        p = None if padding_idx is None else int(padding_idx) % n
        if p is not None and w.requires_grad:   # the padding row as a constant: no gradient
            row = w[p:p + 1].detach()                                # (1, embedding_dim)
            row.name = "padding row"                                 # (in graph drawings)
            parts = [part for part in (w[:p], row, w[p + 1:]) if part.shape[0]]
            if n == 1:      # only the padding row: an empty slice keeps w in the graph, so
                parts = [w[:0], row]    # the lookup requires grad and w's gradient is 0
            w = cat(parts)
        # W[idx] in the x[i, j] form the array API standard takes, one index per axis:
        rows = idx.unsqueeze(-1)                                     # (..., 1)
        cols = arange(w.shape[1], device=w.device)                   # (embedding_dim,)
        # rows checked above, cols an arange: a CheckedKey, which getitem does not read back
        return GetItem.apply(w, key=CheckedKey((rows.data, cols.data)))   # (..., embedding_dim)



def _table(op: str, weight: Any, padding_idx: Any) -> Tensor:
    """An embedding table, checked: a 2-D tensor, and padding_idx None or one of its rows."""
    w = tensor_arg(op, "weight", weight)
    if w.ndim != 2:
        raise ValueError(f"{op}: the table must be 2-D (num_embeddings, embedding_dim), got "
                         f"shape {w.shape}")
    _check_padding_idx(op, padding_idx, w.shape[0])
    return w


def _check_padding_idx(op: str, padding_idx: Any, n: int) -> None:
    """padding_idx None, or a row of a table of n rows (a negative one from the end)."""
    if padding_idx is not None and not (_is_int(padding_idx) and -n <= padding_idx < n):
        raise ValueError(f"{op}: padding_idx must be an integer in [-{n}, {n}), a row of the "
                         f"table (num_embeddings={n}), got {padding_idx!r}")


def _check_indices(op: str, idx: Any, weight: Tensor, read: bool = True) -> None:
    """The indices of a lookup: an integer Tensor on the table's device, in [0, n). That
    last check reads from the device; ``read=False`` leaves it to the caller, which reads
    it together with its own (embedding_bag's offsets): one wait for a GPU, not two."""
    tensor_arg(op, "the indices", idx)
    if idx.device != weight.device:
        raise DeviceError(f"{op}: the indices are on {idx.device} but the table on "
                          f"{weight.device}; move them with .to('{weight.device}')")
    n, xp = weight.shape[0], idx.backend.xp
    if not xp.isdtype(idx.dtype, "integral"):
        raise TypeError(f"{op}: indices must be integers, got dtype "
                        f"{dtype_name(idx.dtype)}; make them int64: idx.long(), or "
                        "tinyffn.tensor(ids, dtype='int64')")
    if read and idx.numel() and bool(xp.any((idx.data < 0) | (idx.data >= n))):  # one read
        _refuse_indices(op, idx, n)


def _refuse_indices(op: str, idx: Tensor, n: int) -> None:
    """Raise for lookup indices found outside [0, n), naming one."""
    xp = idx.backend.xp
    low, high = int(xp.min(idx.data)), int(xp.max(idx.data))
    raise IndexError(f"{op}: index {low if low < 0 else high} is out of range "
                     f"for num_embeddings={n}: indices must lie in [0, {n}) "
                     "(negative ones are refused, as in PyTorch)")


__all__ = ["leaky_relu", "glu", "normalize", "one_hot", "softplus", "pad"]
