"""PyTorch's quantiles, the min-and-max pair and the tests of sign and infinity a script
checking its activations reaches for, each a function and a Tensor method: ``quantile``,
``nanquantile``, ``aminmax``, ``isposinf``, ``isneginf``, ``signbit``, ``logit``; and
``cov`` and ``corrcoef``, composed of mean, matmul and division.

``quantile`` is PyTorch's own composition: the entries sorted (:func:`tinyffn.sort`,
NaN the largest), the rank r = q · (n − 1) in the input's dtype, the two neighbours
sorted[⌊r⌋] and sorted[⌈r⌉] read by ``gather`` and joined by ``lerp`` with weight
r − ⌊r⌋. So the gradient reaches the two entries each quantile sits between (1 − w and
w), and q too (n − 1 times the gap between them). ``aminmax`` is ``amin`` and ``amax``
(the gradient shared among ties, as PyTorch's). :class:`StatsMethods` is a base class
of ``Tensor`` (through ``TorchMethods``).
"""
from __future__ import annotations

from typing import Any, NamedTuple

from . import grad_mode
from . import tensor as _tensor  # the Tensor class, read at call time (tensor.py imports this)
from .arguments import is_real, tensor_arg, type_name
from .backend import dtype_name

INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The q-th quantiles of ``input`` (all of it, or along ``dim``), as ``torch.quantile``.

    For n sorted entries s_0 <= ... <= s_{n−1} the quantile q sits at rank r = q · (n − 1),
    between s_⌊r⌋ and s_⌈r⌉; ``interpolation`` picks the value there: ``"linear"``
    s_⌊r⌋ + (r − ⌊r⌋)(s_⌈r⌉ − s_⌊r⌋), ``"lower"`` s_⌊r⌋, ``"higher"`` s_⌈r⌉,
    ``"midpoint"`` their mean, ``"nearest"`` s at r rounded (half to even). A row with a
    NaN gives NaN (:func:`nanquantile` leaves NaN out).

    ``q``: a number or a 0- or 1-d tensor of input's dtype, each in [0, 1]. Shapes: a
    number q reduces ``dim`` (or everything); a 1-d q of k values puts an axis of k
    first, (k, ...). ``input`` float32 or float64, as PyTorch asks, with at most 2^24
    entries along ``dim`` (in all, for ``dim=None``), as PyTorch allows."""
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """:func:`quantile` of the entries that are not NaN, as ``torch.nanquantile``: the
    rank is q · (m − 1), m the count of numbers in the row; a row of NaN alone gives NaN."""
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)


def _quantile(op: str, input, q, dim, keepdim: bool, interpolation: str, ignore_nan: bool):
    from .creation import tensor            # creation imports tensor.py, which imports this
    from .sorting import _dim, _gathered, sort
    from .torch_extras import lerp
    x = tensor_arg(op, "input", input)
    if dtype_name(x.dtype) not in ("float32", "float64"):
        raise TypeError(f"{op}: input has dtype {dtype_name(x.dtype)}; PyTorch's {op} takes "
                        "float32 or float64 alone: cast with x.float()")
    if interpolation not in INTERPOLATIONS:
        raise ValueError(f"{op}: interpolation must be one of {', '.join(INTERPOLATIONS)}, "
                         f"got {interpolation!r}")
    if keepdim not in (True, False):
        raise TypeError(f"{op}: keepdim must be True or False, got {keepdim!r}")
    if not x.numel():
        raise ValueError(f"{op}: input of shape {x.shape} is empty; it has no quantiles "
                         "(PyTorch refuses it too)")
    if isinstance(q, _tensor.Tensor):
        if q.ndim > 1:
            raise ValueError(f"{op}: q must be a number or a 0- or 1-d tensor, got shape "
                             f"{q.shape}")
        if dtype_name(q.dtype) != dtype_name(x.dtype):
            raise TypeError(f"{op}: q has dtype {dtype_name(q.dtype)} but input "
                            f"{dtype_name(x.dtype)}; PyTorch asks for one dtype: "
                            f"q.to(x.dtype)")
        qs, values = q, q.detach().numpy().tolist()     # a read to the host, to check q
    elif is_real(q) and not isinstance(q, bool):
        qs = tensor(float(q), dtype=x.dtype, device=x.device)         # in x's dtype, as torch
        values = float(q)                               # checked as given: no read back
    else:
        raise TypeError(f"{op}: q must be a number or a tensor, got {type_name(q)}")
    if not all(0 <= v <= 1 for v in (values if isinstance(values, list) else [values])):
        raise ValueError(f"{op}: q must be in [0, 1], got {values}")
    axis = None if dim is None else _dim(op, dim, x.ndim)
    n = x.numel() if axis is None or not x.ndim else x.shape[axis]      # entries per row
    if n > 2 ** 24:     # q·(n - 1) in float32 could round to n, an index past the end
        raise ValueError(f"{op}: a row of {n} entries to take quantiles of, more than "
                         f"2^24 = {2 ** 24}, where a float32 rank q·(n - 1) no longer "
                         "holds every index; PyTorch refuses this too ('quantile() input "
                         "tensor is too large'). Sort and index instead: "
                         "x.sort(dim).values[..., k]")
    with grad_mode.scope("function", op):
        # (..., n); a 0-d x (dim 0 or -1 allowed, as torch) is one row of one entry
        rows = x.reshape(-1) if axis is None or not x.ndim else x.movedim(axis, -1)
        s = sort(rows, dim=-1).values                                    # NaN last
        with grad_mode.no_grad():
            nan = s.isnan()
        q1 = qs.reshape(-1)                                              # (k,)
        if ignore_nan:            # m - 1 of each row; a row of NaN alone: rank 0, its NaN
            ranks = q1 * ((~nan).sum(-1, keepdim=True).to(x.dtype) - 1)   # (..., k)
            ranks = ranks.masked_fill(ranks < 0, 0.0)
        else:                     # a row with a NaN: rank n - 1, the NaN
            last = s.shape[-1] - 1
            ranks = (q1 * last).expand(*s.shape[:-1], q1.shape[0])       # (..., k)
            ranks = ranks.masked_fill(nan.any(-1, keepdim=True), float(last))
        with grad_mode.no_grad():
            whole = {"lower": ranks.floor(), "higher": ranks.ceil(),
                     "nearest": ranks.round()}.get(interpolation, ranks)
            below, above = whole.floor().long(), whole.ceil().long()
        # below and above lie in [0, n - 1], as q lies in [0, 1]: gathers without a check
        y = _gathered(s, s.ndim - 1, below)                              # (..., k)
        if interpolation in ("linear", "midpoint"):
            w = ranks - below.to(x.dtype) if interpolation == "linear" else 0.5
            y = lerp(y, _gathered(s, s.ndim - 1, above), w)
        if isinstance(q, _tensor.Tensor) and q.ndim == 1:
            y = y.movedim(-1, 0)                                         # (k, ...)
        else:
            y = y.squeeze(-1)                                            # (...)
        if keepdim:
            lead = 1 if isinstance(q, _tensor.Tensor) and q.ndim == 1 else 0
            shape = [1] * x.ndim if axis is None else \
                [1 if i == axis else n for i, n in enumerate(x.shape)]
            y = y.reshape(tuple(y.shape[:lead]) + tuple(shape))
        return y


class AminmaxResult(NamedTuple):
    """What ``aminmax`` returns, as ``torch.return_types.aminmax``: ``.min``, ``.max``."""
    min: Any
    max: Any


def aminmax(input, *, dim=None, keepdim=False):
    """The smallest and the largest entries (of all of ``input``, or along ``dim``), as
    ``torch.aminmax``: ``lo, hi = x.aminmax()``. ``amin`` and ``amax``: the gradient of
    each is shared among the entries that tie for it, as PyTorch's."""
    from .sorting import _dim
    x = tensor_arg("aminmax", "input", input)
    if dim is not None:
        dim = _dim("aminmax", dim, x.ndim) if x.ndim else dim    # named, not IndexError
    if not x.numel() or (dim is not None and x.ndim and not x.shape[dim]):
        raise ValueError(f"aminmax: input of shape {x.shape} is empty along the reduction; "
                         "it has no min or max (PyTorch refuses it too)")
    return AminmaxResult(x.amin(dim=dim, keepdim=keepdim), x.amax(dim=dim, keepdim=keepdim))


def isposinf(input):
    """Where ``input`` is +inf, as ``torch.isposinf``: a bool tensor (all False for integers)."""
    x = tensor_arg("isposinf", "input", input)
    return x.isinf() & (x > 0)


def isneginf(input):
    """Where ``input`` is −inf, as ``torch.isneginf``: a bool tensor (all False for integers)."""
    x = tensor_arg("isneginf", "input", input)
    return x.isinf() & (x < 0)


def signbit(input):
    """Where the sign bit of ``input`` is set, as ``torch.signbit``: True for −0.0 and for
    negative numbers (and for a NaN that carries it), a bool tensor."""
    x = tensor_arg("signbit", "input", input)
    xp = x.backend.xp           # the bools stay on x's device: no copy through the host
    return _tensor.Tensor(xp.signbit(x.data) if x.backend.is_floating(x.dtype)
                          else xp.less(x.data, 0), _backend=x.backend)


def logit(input, eps=None):
    """log(p / (1 − p)), the inverse of sigmoid, as ``torch.logit``; with ``eps``, p is
    first clamped to [eps, 1 − eps] (so 0 and 1 give finite values, gradient 0 outside):

        d/dp = 1 / (p (1 − p)).

    Without ``eps``, p outside [0, 1] gives NaN, 0 and 1 give ∓inf, as PyTorch's."""
    x = tensor_arg("logit", "input", input)
    if eps is not None and not is_real(eps):
        raise TypeError(f"logit: eps must be a number or None, got {type_name(eps)}")
    with grad_mode.scope("function", "logit"):
        p = x if eps is None else x.clamp(float(eps), 1.0 - float(eps))
        return (p / (1 - p)).log()


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows of ``input`` (N, M), M
    observations each (a 1-D input is one variable; a 0-d result then), as ``torch.cov``:
    with weights w = fweights · aweights (1s when none) and μ = Σ w x / Σ w,

        cov = (x − μ) diag(w) (x − μ)^T / (Σ w − correction · Σ(w · aweights) / Σ w)

    the divisor being Σ w − correction without aweights (N − 1 unweighted). A divisor
    <= 0 warns, as PyTorch's, and gives inf or NaN. ``fweights``: integer counts per
    observation, >= 0; ``aweights``: floating importance weights, >= 0; each 1-D, length M.
    Integers compute in float32."""
    import warnings
    from .torch_math import _float
    x = _float(tensor_arg("cov", "input", input))
    if x.ndim > 2:
        raise ValueError(f"cov: input must have at most 2 axes (variables, observations), "
                         f"got shape {x.shape}")
    x2 = x.reshape(1, -1) if x.ndim < 2 else x                  # (N, M)
    M = x2.shape[1]
    w = None
    for name, v, integral in (("fweights", fweights, True), ("aweights", aweights, False)):
        if v is None:
            continue
        tensor_arg("cov", name, v)
        if v.ndim > 1 or v.numel() != M:
            raise ValueError(f"cov: {name} must be 1-D with one weight per observation "
                             f"({M}), got shape {v.shape}")
        if v.backend.is_floating(v.dtype) == integral:
            raise TypeError(f"cov: {name} must be {'an integer' if integral else 'a floating'}"
                            f" tensor, as in PyTorch, got {dtype_name(v.dtype)}")
        if bool((v < 0).any()):
            raise ValueError(f"cov: {name} cannot be negative")
        w = v if w is None else w * v
    if aweights is not None and (dtype_name(x.dtype), dtype_name(aweights.dtype)) == (
            "float32", "float64"):
        x2 = x2.to(dtype="float64")             # float32 x, float64 aweights: float64, as torch
    with grad_mode.scope("function", "cov"):
        if w is None:
            w_sum, mean = M, x2.mean(1, keepdim=True)               # (N, 1)
            norm = M - correction
        else:
            w = w.to(dtype=x2.dtype)
            w_sum = w.sum()
            mean = (x2 * w).sum(1, keepdim=True) / w_sum            # (N, 1)
            norm = w_sum - (0 if correction == 0 else correction if aweights is None else
                            correction * (w * aweights).sum() / w_sum)
        if float(norm) <= 0:
            warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly "
                          "less than the number of observations.", UserWarning, stacklevel=2)
            norm = 0                # +0, as PyTorch's clamp: norm · 0 is −0 for a norm < 0,
                                    # and the variances would come out −inf
        d = x2 - mean                                               # (N, M)
        c = d @ (d if w is None else d * w).mT                      # (N, N)
        c = c / norm
        return c.reshape(()) if c.numel() == 1 else c


def corrcoef(input):
    """Pearson's correlation coefficients of the rows of ``input``, as ``torch.corrcoef``:
    cov / (σ_i σ_j) with σ the square roots of cov's diagonal, clipped to [−1, 1]; a 1-D
    input gives 1 (NaN if it is constant)."""
    x = tensor_arg("corrcoef", "input", input)
    with grad_mode.scope("function", "corrcoef"):
        c = cov(x)
        if c.ndim == 0:
            return c / c
        sd = c.diagonal().sqrt()                                    # (N,)
        return (c / sd.unsqueeze(1) / sd.unsqueeze(0)).clamp(-1, 1)


class StatsMethods:
    """The Tensor methods of the functions above, as PyTorch's."""

    __slots__ = ()          # Tensor has slots: a base class without them would add a __dict__

    def quantile(self, q, dim=None, keepdim=False, *, interpolation="linear"):
        return quantile(self, q, dim, keepdim, interpolation=interpolation)

    def nanquantile(self, q, dim=None, keepdim=False, *, interpolation="linear"):
        return nanquantile(self, q, dim, keepdim, interpolation=interpolation)

    def aminmax(self, *, dim=None, keepdim=False): return aminmax(self, dim=dim, keepdim=keepdim)
    def isposinf(self): return isposinf(self)
    def isneginf(self): return isneginf(self)
    def signbit(self): return signbit(self)
    def logit(self, eps=None): return logit(self, eps)

    def cov(self, *, correction=1, fweights=None, aweights=None):
        return cov(self, correction=correction, fweights=fweights, aweights=aweights)

    def corrcoef(self): return corrcoef(self)


__all__ = ["cov", "corrcoef", "quantile", "nanquantile", "aminmax", "AminmaxResult", "isposinf", "isneginf",
           "signbit", "logit", "StatsMethods"]
