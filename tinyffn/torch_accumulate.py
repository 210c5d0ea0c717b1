"""PyTorch's fused updates, paired statistics and running reductions, each a function and a
Tensor method: ``addmm``, ``baddbmm``, ``addcmul``, ``addcdiv``, ``var_mean``,
``std_mean``, ``nansum``, ``nanmean``, ``cummax``, ``cummin``, ``logcumsumexp``.

All are composed, in a frame of their name: ``addmm`` and ``baddbmm`` of a matmul, muls
and an add; ``nansum`` and ``nanmean`` of a ``where`` that puts 0 in place of NaN (so a NaN gets no
gradient, as in PyTorch) and a sum. The running ones work on the (n, n) triangle of
positions j <= i along ``dim``, as ``cumprod`` does (:mod:`tinyffn.torch_names`):
``logcumsumexp`` is logsumexp over row i of the triangle, so it is as stable as
``logsumexp`` and its gradient is the softmax of each row; ``cummax``/``cummin`` find
each row's index without a graph and read the values at those indices with ``gather``,
so the gradient goes to the entry chosen, as PyTorch's. O(n²) memory along ``dim``: past
``CUMPROD_LIMIT`` entries of the triangle they are refused, saying so.
:class:`AccumulateMethods` is a base class of ``Tensor`` (through ``TorchMethods``).
"""
from __future__ import annotations

from . import grad_mode
from .arguments import is_real, tensor_arg
from .backend import dtype_name
from .composed import ValuesIndices
from .torch_names import CUMPROD_LIMIT, _axis, movedim


class CummaxResult(ValuesIndices):
    """What ``cummax`` returns, as ``torch.return_types.cummax``: ``.values``, ``.indices``."""
    __slots__ = ()
    made_by = "x.cummax(dim)"


class CumminResult(ValuesIndices):
    """What ``cummin`` returns, as ``torch.return_types.cummin``: ``.values``, ``.indices``."""
    __slots__ = ()
    made_by = "x.cummin(dim)"


def _number(op: str, name: str, v):
    if not is_real(v):
        raise TypeError(f"{op}: {name} must be a number, got {v!r}")
    return v


def _half(x):
    return dtype_name(x.dtype) == "float16"


def _check_input_broadcasts(op: str, x, out: tuple, what: str = "product") -> None:
    """Refuse an ``input`` that does not broadcast to the product's shape ``out``."""
    if x.ndim > len(out) or any(s not in (1, o) for s, o in zip(x.shape[::-1], out[::-1])):
        raise ValueError(f"{op}: input of shape {x.shape} does not broadcast to the {what}'s "
                         f"shape {out}")


def _scaled_sum(x, y, beta, alpha):
    """beta · x + alpha · y, the end of every ``add*`` function (addmm, baddbmm, addmv,
    addr): x is not read when beta = 0, so a NaN in it does not appear, as in PyTorch."""
    y = y if alpha == 1 else y * alpha
    return y if beta == 0 else y + (x if beta == 1 else x * beta)


# ----------------------------------------------------------------------------- fused updates
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """beta · input + alpha · (mat1 @ mat2), as ``torch.addmm``: mat1 (n, m), mat2 (m, p),
    input broadcastable to (n, p) (a bias row (p,) is the usual input). With beta = 0
    ``input`` is not read, so a NaN in it does not appear, as in PyTorch."""
    x = tensor_arg("addmm", "input", input)
    a, b = tensor_arg("addmm", "mat1", mat1), tensor_arg("addmm", "mat2", mat2)
    beta, alpha = _number("addmm", "beta", beta), _number("addmm", "alpha", alpha)
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(f"addmm: mat1 and mat2 must be matrices (n, m) and (m, p), got shapes "
                         f"{a.shape} and {b.shape}")
    _check_input_broadcasts("addmm", x, (a.shape[0], b.shape[1]))
    with grad_mode.scope("function", "addmm"):
        return _scaled_sum(x, a @ b, beta, alpha)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta · input + alpha · (batch1 @ batch2), batch by batch, as ``torch.baddbmm``:
    batch1 (b, n, m), batch2 (b, m, p), input broadcastable to (b, n, p) (attention scores
    written as ``baddbmm(mask, q, k.mT, alpha=scale)``). With beta = 0 ``input`` is not read,
    so a NaN in it does not appear, as in PyTorch."""
    x = tensor_arg("baddbmm", "input", input)
    a, b = tensor_arg("baddbmm", "batch1", batch1), tensor_arg("baddbmm", "batch2", batch2)
    beta, alpha = _number("baddbmm", "beta", beta), _number("baddbmm", "alpha", alpha)
    if a.ndim != 3 or b.ndim != 3 or a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise ValueError(f"baddbmm: batch1 and batch2 must be batches of matrices (b, n, m) and "
                         f"(b, m, p), got shapes {a.shape} and {b.shape}; for other shapes "
                         "use matmul, which broadcasts")
    _check_input_broadcasts("baddbmm", x, (a.shape[0], a.shape[1], b.shape[2]))
    with grad_mode.scope("function", "baddbmm"):
        return _scaled_sum(x, a @ b, beta, alpha)                        # (b, n, p)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta · input + alpha · Σ_i batch1[i] @ batch2[i], as ``torch.addbmm``: batch1 (b, n,
    m), batch2 (b, m, p), the b products summed into one (n, p) matrix, input broadcastable
    to (n, p). With beta = 0 ``input`` is not read, as in PyTorch."""
    x = tensor_arg("addbmm", "input", input)
    a, b = tensor_arg("addbmm", "batch1", batch1), tensor_arg("addbmm", "batch2", batch2)
    beta, alpha = _number("addbmm", "beta", beta), _number("addbmm", "alpha", alpha)
    if a.ndim != 3 or b.ndim != 3 or a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise ValueError(f"addbmm: batch1 and batch2 must be batches of matrices (b, n, m) and "
                         f"(b, m, p), got shapes {a.shape} and {b.shape}")
    _check_input_broadcasts("addbmm", x, (a.shape[1], b.shape[2]))
    with grad_mode.scope("function", "addbmm"):
        return _scaled_sum(x, (a @ b).sum(0), beta, alpha)              # (n, p)


def addcmul(input, tensor1, tensor2, *, value=1):
    """input + value · tensor1 · tensor2, elementwise with broadcasting, as
    ``torch.addcmul`` (the step of Adam-like optimizers)."""
    x = tensor_arg("addcmul", "input", input)
    t1, t2 = tensor_arg("addcmul", "tensor1", tensor1), tensor_arg("addcmul", "tensor2", tensor2)
    _number("addcmul", "value", value)
    with grad_mode.scope("function", "addcmul"):
        return x + (t1 * t2 if value == 1 else value * t1 * t2)


def addcdiv(input, tensor1, tensor2, *, value=1):
    """input + value · tensor1 / tensor2, elementwise with broadcasting, as
    ``torch.addcdiv``; two integer tensors are refused, as PyTorch refuses them (their
    quotient would be floored by some and not by others)."""
    x = tensor_arg("addcdiv", "input", input)
    t1, t2 = tensor_arg("addcdiv", "tensor1", tensor1), tensor_arg("addcdiv", "tensor2", tensor2)
    _number("addcdiv", "value", value)
    if not (x.backend.is_floating(t1.dtype) or x.backend.is_floating(t2.dtype)):
        raise TypeError(f"addcdiv: tensor1 and tensor2 are both integers ({dtype_name(t1.dtype)}, "
                        f"{dtype_name(t2.dtype)}); cast one with .float() (PyTorch refuses too)")
    with grad_mode.scope("function", "addcdiv"):
        return x + (t1 / t2 if value == 1 else value * t1 / t2)


# ----------------------------------------------------------------------------- statistics
def var_mean(input, dim=None, *, correction=None, keepdim=False, unbiased=None):
    """(var, mean) over ``dim`` (an int, a tuple, None: every entry), as ``torch.var_mean``:
    ``correction`` 1 unless given (``unbiased=False`` is correction 0), as ``var``."""
    x = tensor_arg("var_mean", "input", input)
    with grad_mode.scope("function", "var_mean"):
        v = x.var(dim, correction=correction, keepdim=keepdim, unbiased=unbiased)
        return v, _mean(x, dim, keepdim)


def std_mean(input, dim=None, *, correction=None, keepdim=False, unbiased=None):
    """(std, mean) over ``dim``, as ``torch.std_mean``: the square root of ``var_mean``'s."""
    x = tensor_arg("std_mean", "input", input)
    with grad_mode.scope("function", "std_mean"):
        s = x.std(dim, correction=correction, keepdim=keepdim, unbiased=unbiased)
        return s, _mean(x, dim, keepdim)


def _mean(x, dim, keepdim):
    return x.mean(dim=dim, keepdim=keepdim) if dim is not None else (
        x.mean(dim=tuple(range(x.ndim)), keepdim=True) if keepdim else x.mean())


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """The sum over ``dim`` with NaN read as 0, as ``torch.nansum``: a ``where`` and a sum,
    so a NaN's gradient is 0. Integers sum in int64, as ``sum``."""
    x = tensor_arg("nansum", "input", input)
    with grad_mode.scope("function", "nansum"):
        return _nan_zeroed(x).sum(dim=dim, keepdim=keepdim, dtype=dtype)


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean over ``dim`` of the entries that are not NaN, as ``torch.nanmean``
    (all NaN: NaN): nansum / their count. Floating point only, as in PyTorch; float16
    in float32, rounded once."""
    x = tensor_arg("nanmean", "input", input)
    if dtype is not None:
        x = x.to(dtype=dtype)
    if not x.backend.is_floating(x.dtype):
        raise TypeError(f"nanmean: takes a floating-point tensor, got {dtype_name(x.dtype)}; "
                        "cast it with .float() (PyTorch refuses it too)")
    with grad_mode.scope("function", "nanmean"):
        w = x.float() if _half(x) else x
        y = _nan_zeroed(w).sum(dim=dim, keepdim=keepdim) / \
            (~w.isnan()).to(dtype=w.dtype).sum(dim=dim, keepdim=keepdim)
        return y.half() if _half(x) else y


def _nan_zeroed(x):
    from .composed import where
    return where(x.isnan(), 0.0, x) if x.backend.is_floating(x.dtype) else x


# ----------------------------------------------------------------------------- running reductions
def _triangle(op: str, x, dim):
    """(axis, n, upto): ``upto`` the (n, n) bool triangle j <= i along axis ``dim``."""
    from .creation import arange
    a = _axis(op, dim, x.ndim)
    n = x.shape[a] if x.ndim else 1
    if n * x.numel() > CUMPROD_LIMIT:
        raise ValueError(f"{op}: along dim {dim} of a tensor of shape {x.shape} this "
                         f"composition needs {n * x.numel():,} entries (n² per row; the limit "
                         f"is {CUMPROD_LIMIT:,}); split the axis into chunks and carry each "
                         "chunk's last value into the next")
    j = arange(n, device=x.device)
    return a, n, j.reshape(n, 1) >= j


def logcumsumexp(input, dim):
    """y_i = log Σ_{j<=i} exp(x_j) along ``dim``, as ``torch.logcumsumexp``: logsumexp
    over row i of the triangle (the others -inf), stable for any range
    (logcumsumexp([-1000, 0]) is [-1000, 0]); the gradient is each row's softmax.
    Floating point only, as in PyTorch; float16 in float32, rounded once."""
    from .composed import where
    from .more_functions import logsumexp
    x = tensor_arg("logcumsumexp", "input", input)
    if not x.backend.is_floating(x.dtype):
        raise TypeError(f"logcumsumexp: takes a floating-point tensor, got "
                        f"{dtype_name(x.dtype)}; cast it with .float() (PyTorch refuses it too)")
    a, n, upto = _triangle("logcumsumexp", x, dim)
    with grad_mode.scope("function", "logcumsumexp"):
        w = x.float() if _half(x) else x
        if x.ndim == 0:
            return w.clone()
        t = where(upto, movedim(w, a, -1).unsqueeze(-2), float("-inf"))   # (..., n, n)
        y = movedim(logsumexp(t, -1), -1, a)
        return y.half() if _half(x) else y


def cummax(input, dim):
    """The running maximum along ``dim`` and where it was found, as ``torch.cummax``:
    (values, indices), a tie going to the later index and a NaN, once met, staying (at the
    latest NaN), as PyTorch's. The values are read at the indices (a ``gather``), so the
    gradient goes to the entry chosen, as PyTorch's."""
    return _running("cummax", input, dim, CummaxResult)


def cummin(input, dim):
    """The running minimum along ``dim`` and where it was found, as ``torch.cummin``."""
    return _running("cummin", input, dim, CumminResult)


def _running(op: str, input, dim, result):
    from .composed import where
    x = tensor_arg(op, "input", input)
    if dtype_name(x.dtype) == "bool":
        raise TypeError(f"{op}: takes numbers, got a bool tensor; cast it with .long()")
    a, n, upto = _triangle(op, x, dim)
    if x.ndim == 0 or x.numel() == 0:       # empty: no row to take a max of
        from .creation import zeros
        index = zeros(x.shape, dtype="int64", device=x.device)
        with grad_mode.scope("function", op):
            return result(x.clone(), index)
    from .creation import arange
    with grad_mode.no_grad():
        row = movedim(x.detach(), a, -1).unsqueeze(-2)                  # (..., 1, n)
        t = where(upto, row, row[..., :1])       # j > i: the first entry, which j <= i holds
        m = (t.amax(-1) if op == "cummax" else t.amin(-1)).unsqueeze(-1)   # (..., n, 1)
        nan = t.isnan()
        seen = nan.any(-1, keepdim=True)                                # a NaN so far
        hit = upto & where(seen, nan, t == m)                           # (..., n, n)
        j = arange(n, device=x.device)
        index = movedim(where(hit, j, -1).amax(-1), -1, a)              # the latest hit
    with grad_mode.scope("function", op):
        from .sorting import _gathered  # sorting.py imports tensor.py, which imports this
        return result(_gathered(x, a, index), index)    # index made above: in [0, n)


class AccumulateMethods:
    """The Tensor methods of the functions above."""

    __slots__ = ()          # Tensor has slots: a base class without them would add a __dict__

    def addmm(self, mat1, mat2, *, beta=1, alpha=1): return addmm(self, mat1, mat2, beta=beta, alpha=alpha)
    def baddbmm(self, batch1, batch2, *, beta=1, alpha=1): return baddbmm(self, batch1, batch2, beta=beta, alpha=alpha)
    def addbmm(self, batch1, batch2, *, beta=1, alpha=1):
        return addbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def addbmm_(self, batch1, batch2, *, beta=1, alpha=1):
        from .in_place import _replaced
        return _replaced(self, "addbmm", batch1, batch2, beta=beta, alpha=alpha)

    def addcmul(self, tensor1, tensor2, *, value=1): return addcmul(self, tensor1, tensor2, value=value)
    def addcdiv(self, tensor1, tensor2, *, value=1): return addcdiv(self, tensor1, tensor2, value=value)
    def nansum(self, dim=None, keepdim=False, *, dtype=None): return nansum(self, dim, keepdim, dtype=dtype)
    def nanmean(self, dim=None, keepdim=False, *, dtype=None): return nanmean(self, dim, keepdim, dtype=dtype)
    def logcumsumexp(self, dim): return logcumsumexp(self, dim)
    def cummax(self, dim): return cummax(self, dim)
    def cummin(self, dim): return cummin(self, dim)


__all__ = ["addmm", "baddbmm", "addbmm", "addcmul", "addcdiv", "var_mean", "std_mean", "nansum",
           "nanmean",
           "logcumsumexp", "cummax", "cummin", "CummaxResult", "CumminResult",
           "AccumulateMethods"]
