"""PyTorch's vector and matrix-vector products that ported PyTorch code reaches for, each a
function and a Tensor method: ``mv``, ``addmv``, ``addr``, ``inner``, ``vdot``, ``cross``
(and the product of ``linalg.cross``, :func:`_cross`) and ``dist``.

None is a primitive: each is a ``matmul``, a ``tensordot``, or products and a sum of
slices, so each gradient is the one of what it is made of (``cross``'s: ga = b × gy,
gb = gy × a) and the graph shows those ops inside the function's frame. tinyffn has no
complex dtype, so ``vdot`` is ``dot``, as PyTorch's is for real tensors.
"""
from __future__ import annotations

import warnings

from . import grad_mode
from .arguments import tensor_arg
from .torch_accumulate import _check_input_broadcasts, _number, _scaled_sum
from .torch_names import _axis, _one_dtype
from .torch_shapes import _broadcast_shape, broadcast_tensors


def mv(input, vec):
    """The matrix-vector product, y_i = Σ_j input_ij · vec_j, as ``torch.mv``: input
    (n, m), vec (m,), one dtype. One ``matmul``."""
    a, v = tensor_arg("mv", "input", input), tensor_arg("mv", "vec", vec)
    if a.ndim != 2 or v.ndim != 1 or a.shape[1] != v.shape[0]:
        raise ValueError(f"mv: input must be a matrix (n, m) and vec a vector (m,), got shapes "
                         f"{a.shape} and {v.shape}")
    a, v = _one_dtype("mv", a, v, ("input", "vec"))
    with grad_mode.scope("function", "mv"):
        return a @ v


def addmv(input, mat, vec, *, beta=1, alpha=1):
    """beta · input + alpha · (mat @ vec), as ``torch.addmv``: mat (n, m), vec (m,), input
    broadcastable to (n,), the three of one dtype (PyTorch refuses a mix). With beta = 0
    ``input`` is not read (a NaN in it does not appear), as in PyTorch."""
    x = tensor_arg("addmv", "input", input)
    a, v = tensor_arg("addmv", "mat", mat), tensor_arg("addmv", "vec", vec)
    beta, alpha = _number("addmv", "beta", beta), _number("addmv", "alpha", alpha)
    if a.ndim != 2 or v.ndim != 1 or a.shape[1] != v.shape[0]:
        raise ValueError(f"addmv: mat must be a matrix (n, m) and vec a vector (m,), got "
                         f"shapes {a.shape} and {v.shape}")
    _check_input_broadcasts("addmv", x, (a.shape[0],))
    a, v = _one_dtype("addmv", a, v, ("mat", "vec"))       # as mv; and input too, as
    x, a = _one_dtype("addmv", x, a, ("input", "mat", "vec"))     # PyTorch refuses a mix
    with grad_mode.scope("function", "addmv"):
        return _scaled_sum(x, a @ v, beta, alpha)


def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """beta · input + alpha · outer(vec1, vec2), as ``torch.addr``: vec1 (n,), vec2 (m,),
    input broadcastable to (n, m). With beta = 0 ``input`` is not read."""
    x = tensor_arg("addr", "input", input)
    u, v = tensor_arg("addr", "vec1", vec1), tensor_arg("addr", "vec2", vec2)
    beta, alpha = _number("addr", "beta", beta), _number("addr", "alpha", alpha)
    if u.ndim != 1 or v.ndim != 1:
        raise ValueError(f"addr: vec1 and vec2 must be vectors, got shapes {u.shape} and "
                         f"{v.shape}")
    _check_input_broadcasts("addr", x, (u.shape[0], v.shape[0]), "outer product")
    with grad_mode.scope("function", "addr"):
        return _scaled_sum(x, u.reshape(-1, 1) * v, beta, alpha)


def inner(input, other):
    """The sum over the last axes of both, as ``torch.inner``: (…, n) and (…, n) give the
    shape of input's leading axes then other's; 1-D with 1-D is ``dot``; a 0-d tensor
    multiplies. A ``tensordot`` over the last axes."""
    x, w = tensor_arg("inner", "input", input), tensor_arg("inner", "other", other)
    if x.ndim == 0 or w.ndim == 0:
        with grad_mode.scope("function", "inner"):
            return x * w
    if x.shape[-1] != w.shape[-1]:
        raise ValueError(f"inner: the last axes must have one length, got shapes {x.shape} "
                         f"and {w.shape}")
    from .torch_names import tensordot
    with grad_mode.scope("function", "inner"):
        return tensordot(x, w, dims=([x.ndim - 1], [w.ndim - 1]))


def vdot(input, other):
    """``dot`` of two 1-D tensors, as ``torch.vdot``: PyTorch conjugates the first, and a
    real tensor is its own conjugate (tinyffn has no complex dtype)."""
    from .torch_names import dot
    x, w = tensor_arg("vdot", "input", input), tensor_arg("vdot", "other", other)
    if x.ndim != 1 or w.ndim != 1 or x.shape != w.shape:
        raise ValueError(f"vdot: takes two 1-D tensors of one length, got shapes {x.shape} and "
                         f"{w.shape}; for matrices use matmul")
    x, w = _one_dtype("vdot", x, w, ("input", "other"))
    with grad_mode.scope("function", "vdot"):
        return dot(x, w)


def cross(input, other, dim=None):
    """The cross product of 3-vectors along ``dim``, as ``torch.cross``: a × b =
    (a₁b₂ − a₂b₁, a₂b₀ − a₀b₂, a₀b₁ − a₁b₀); the two broadcast first. ``dim`` None takes
    the first axis of length 3 and warns, as PyTorch does (``linalg.cross`` takes -1)."""
    x, w = tensor_arg("cross", "input", input), tensor_arg("cross", "other", other)
    _same_ndim("cross", x, w)
    if dim is None:
        shape = _broadcast_shape("cross", (x.shape, w.shape))
        dim = next((i for i, n in enumerate(shape) if n == 3), None)
        if dim is None:
            raise ValueError(f"cross: no axis of length 3 in the broadcast shape {shape}; "
                             "pass dim=, the axis holding the 3-vectors")
        warnings.warn("cross: without dim the first axis of length 3 is taken, as "
                      "torch.cross does (and deprecates); pass dim= or use "
                      "tinyffn.linalg.cross (dim=-1)", UserWarning, stacklevel=2)
    return _cross("cross", x, w, dim)


def _same_ndim(op: str, x, w) -> None:
    if x.ndim != w.ndim:
        raise ValueError(f"{op}: input and other must have the same number of axes (PyTorch "
                         f"asks it too), got shapes {x.shape} and {w.shape}; unsqueeze one")


def _cross(op: str, x, w, dim):
    _same_ndim(op, x, w)
    x, w = _one_dtype(op, x, w, ("input", "other"))
    d = _axis(op, dim, x.ndim)
    if x.shape[d] != 3 or w.shape[d] != 3:
        raise ValueError(f"{op}: axis {dim} must have length 3 in both, got shapes {x.shape} "
                         f"and {w.shape}")
    _broadcast_shape(op, (x.shape, w.shape))        # the other axes must broadcast
    from .creation import stack
    lead = (slice(None),) * d
    with grad_mode.scope("function", op):
        x, w = broadcast_tensors(x, w)
        a = [x[lead + (i,)] for i in range(3)]
        b = [w[lead + (i,)] for i in range(3)]
        return stack([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                      a[0] * b[1] - a[1] * b[0]], dim=d)


def dist(input, other, p=2):
    """The p-norm of input − other over every entry, as ``torch.dist``: p = 2 the Euclidean
    distance, 0 the count of entries that differ (gradient 0: PyTorch 2.13's backward
    raises there), inf the largest |difference|. ``linalg.vector_norm`` of the broadcast
    difference."""
    x, w = tensor_arg("dist", "input", input), tensor_arg("dist", "other", other)
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        raise TypeError(f"dist: p must be a number, got {p!r}")
    from .linalg import vector_norm
    with grad_mode.scope("function", "dist"):
        return vector_norm(x - w, ord=p)


class ProductMethods:
    """The Tensor methods of the functions above."""

    __slots__ = ()          # Tensor has slots: a base class without them would add a __dict__

    def mv(self, vec): return mv(self, vec)
    def addmv(self, mat, vec, *, beta=1, alpha=1):
        return addmv(self, mat, vec, beta=beta, alpha=alpha)
    def addr(self, vec1, vec2, *, beta=1, alpha=1):
        return addr(self, vec1, vec2, beta=beta, alpha=alpha)
    def inner(self, other): return inner(self, other)
    def vdot(self, other): return vdot(self, other)
    def cross(self, other, dim=None): return cross(self, other, dim)
    def dist(self, other, p=2): return dist(self, other, p)


__all__ = ["mv", "addmv", "addr", "inner", "vdot", "cross", "dist", "ProductMethods"]
