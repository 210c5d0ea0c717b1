"""``F.embedding`` and ``nn.Embedding`` with PyTorch's options: ``max_norm`` (with
``norm_type``), ``scale_grad_by_freq``, and ``sparse`` (refused); ``embedding_bag`` takes
the first two from here.

The lookup itself is one ``getitem`` of the table (``_lookup`` in
:mod:`tinyffn.functional_extra`, which ``embedding_bag`` shares). The options change what
happens around it, as PyTorch's do:

* ``max_norm``: *before* the lookup, each row of the table that the indices read and whose
  ``norm_type``-norm exceeds ``max_norm`` is scaled down to norm max_norm / (norm + 1e-7)
  times its own, **in the table itself**, outside any graph (PyTorch's
  ``embedding_renorm_``, run under ``no_grad``). The lookup then reads the new rows; its
  gradient is the plain lookup's, the rescaling not differentiated. As every change in
  place here (:mod:`tinyffn.in_place`), the table gets a new array: a graph that saved the
  old one, and a tensor that shared it (``from_pretrained``'s argument), keep the old
  values, where in PyTorch they would see the new ones (and that graph's backward fail).
* ``scale_grad_by_freq``: the backward divides each row's gradient by the number of times
  the batch read that row: dW_i = Σ_{p: idx_p = i} gy_p / count_i, the mean of the rows'
  gradients instead of their sum (PyTorch's ``embedding_backward``). It is not the
  derivative of the lookup, so no primitive computes it: a gradient hook on the looked-up
  rows divides gy by each position's count on its way into getitem's backward, and a
  ``clone`` after the hook keeps the output's own gradient (``y.grad``,
  ``tinyffn.grad(L, y)``) unscaled, as PyTorch's. Differentiated again (create_graph), the
  scaling is PyTorch's too: a second backward is scaled where it crosses the lookup, and
  the recorded scaling passes its gradient back unscaled (see :func:`_scaled`). That
  equals finite differences of the first derivative where the loss treats positions apart
  (L = Σ f(y_p)); where it couples them, neither PyTorch's nor this is that derivative.
"""
from __future__ import annotations

from typing import Any

from . import grad_mode
from .arguments import is_real
from .backend import DEFAULTS
from .composed import where
from .creation import ones, tensor, zeros
from .functional_extra import _check_indices, _check_padding_idx, _lookup, _table
from .generators import generator
from .module import Module, Parameter
from .tensor import Tensor

RENORM_EPS = 1e-7       # PyTorch's: scale = max_norm / (norm + 1e-7)


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None,
              max_norm: float | None = None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """y = W[idx]: the rows of the table ``weight`` (num_embeddings, embedding_dim) that
    the integer indices ``input`` pick, as ``F.embedding``. Shapes: idx (...) -> y (...,
    embedding_dim). ``padding_idx`` (negative counts from the end): that row gets no
    gradient (it is read from ``W.detach()``); its values are the table's, as PyTorch's.
    One ``getitem``, whose backward adds gy into the rows read (a row read twice gets
    both); ``nn.Embedding`` is this function with a table of its own.

    ``max_norm``: the rows read whose ``norm_type``-norm is above it are first scaled, in
    ``weight`` itself, to norm ≈ max_norm; ``scale_grad_by_freq``: each row's gradient
    is divided by how many times ``input`` reads it (see the module docstring);
    ``sparse=True`` is refused (tinyffn has no sparse tensors).
    """
    op = "embedding"
    _check_options(op, max_norm, norm_type, scale_grad_by_freq, sparse)
    _check_indices(op, input, _table(op, weight, padding_idx))
    if max_norm is not None:
        _renorm_(weight, input, max_norm, norm_type)
    y = _lookup(op, input, weight, padding_idx, read=False)
    return _by_frequency(y, input, weight.shape[0]) if scale_grad_by_freq else y


def _check_options(op: str, max_norm: Any, norm_type: Any, scale_grad_by_freq: Any,
                   sparse: Any) -> None:
    if max_norm is not None and not (is_real(max_norm) and not isinstance(max_norm, bool)):
        raise TypeError(f"{op}: max_norm must be a number or None, got {max_norm!r}")
    if not (is_real(norm_type) and not isinstance(norm_type, bool) and norm_type == norm_type):
        raise TypeError(f"{op}: norm_type must be a number (the p of the p-norm; inf too), "
                        f"got {norm_type!r}")
    for name, flag in (("scale_grad_by_freq", scale_grad_by_freq), ("sparse", sparse)):
        if not isinstance(flag, bool):
            raise TypeError(f"{op}: {name} must be True or False, got {flag!r}")
    if sparse:
        raise ValueError(f"{op}: sparse=True asks for a sparse gradient of the table, and "
                         "tinyffn has no sparse tensors; leave sparse=False: the gradient is "
                         "then dense, with the same values (zeros in the rows not read)")


def _renorm_(weight: Tensor, idx: Tensor, max_norm: float, norm_type: float) -> None:
    """PyTorch's ``embedding_renorm_``, in place and outside any graph: each row of
    ``weight`` that ``idx`` reads, with p-norm n > max_norm, times max_norm / (n + 1e-7).
    The norm in the table's dtype, the scale in float64 then rounded to it, as PyTorch
    (its norm is read as a double). A row read twice is scaled once: every copy of it is
    scaled from the old values and written back the same."""
    from .torch_functions import norm       # torch_functions.py imports functional.py
    with grad_mode.no_grad():
        flat = idx.reshape(-1)                                             # (N,)
        rows = weight[flat]                                                # (N, dim)
        n = norm(rows, norm_type, dim=1, keepdim=True).to(dtype="float64")  # (N, 1)
        scale = where(n > max_norm, max_norm / (n + RENORM_EPS), 1.0)      # (N, 1)
        weight[flat] = rows * scale.to(dtype=weight.dtype)


def _by_frequency(y: Tensor, idx: Tensor, n: int) -> Tensor:
    """y, whose gradient reaches the table divided by each position's count: the number
    of times idx reads that position's row (PyTorch's ``scale_grad_by_freq``; times
    1/count, as PyTorch, not / count, which rounds differently). A hook on the looked-up
    rows, then a ``clone``: y's own gradient stays gy."""
    if not y.requires_grad:
        return y
    with grad_mode.no_grad():                   # how many times each row is read
        flat = idx.reshape(-1)                                             # (N,)
        counts = zeros(n, dtype=y.dtype, device=y.device).index_add(
            0, flat, ones(flat.shape[0], dtype=y.dtype, device=y.device))  # (num_embeddings,)
        scale = 1 / counts[idx].unsqueeze(-1)    # PyTorch multiplies by 1/count   (..., 1)
    with grad_mode.scope("function", "embedding"):
        y.register_hook(lambda gy: _scaled(gy, scale))
        y.name = "rows (gradient / count)"                                 # (in graph drawings)
        return y.clone()


def _scaled(gy: Tensor, scale: Tensor) -> Tensor:
    """gy times 1/count, the hook of :func:`_by_frequency`. Under create_graph (gy in a
    graph) the values are the same, but the recorded step passes a gradient back unscaled,
    as PyTorch's ``embedding_dense_double_backward`` (a plain gather): a second backward
    is scaled once, where it crosses the lookup again, not twice. Its value is gy · s + 0
    (gy − gy.detach() is exactly 0 where gy is finite; elsewhere the where gives 0)."""
    if not gy.requires_grad:
        return gy * scale
    from .torch_functions import isfinite   # torch_functions.py imports functional.py
    return (gy * scale).detach() + where(isfinite(gy), gy - gy.detach(), 0.0)


class Embedding(Module):
    """y = W[idx]: the rows of a table W (num_embeddings, embedding_dim) that integer
    indices pick, as PyTorch's ``nn.Embedding``. Shapes: idx (...) -> y (..., embedding_dim).

    The lookup is onehot(idx) @ W done by indexing (:class:`tinyffn.ops.shape.GetItem`),
    so its backward adds gy into the rows read: dW[i] = Σ over positions p with idx_p = i
    of gy_p (a row read twice gets both gradients); it is :func:`embedding` with this
    table, as in PyTorch. W starts N(0, 1), as PyTorch's.
    ``padding_idx`` (negative counts from the end): that row starts at zeros and gets no
    gradient, for padding tokens; the lookup reads it from ``W.detach()``. ``max_norm``,
    ``norm_type``, ``scale_grad_by_freq``: :func:`embedding`'s (``max_norm`` rescales the
    rows read in W itself, at each call); ``sparse=True`` is refused.
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0,
                 scale_grad_by_freq: bool = False, sparse: bool = False, *,
                 device: Any = None, dtype: Any = None):
        super().__init__()
        self._set_sizes(num_embeddings, embedding_dim, padding_idx, max_norm, norm_type,
                        scale_grad_by_freq, sparse)
        values = generator().standard_normal((num_embeddings, embedding_dim))
        if self.padding_idx is not None:
            values[self.padding_idx] = 0
        self.weight = Parameter(tensor(values, dtype=dtype or DEFAULTS.float,
                                       device=device or "cpu"))

    def _set_sizes(self, num_embeddings: Any, embedding_dim: Any, padding_idx: Any,
                   max_norm: Any, norm_type: Any, scale_grad_by_freq: Any, sparse: Any) -> None:
        from .nn import _check_size             # nn.py imports this file
        _check_size("Embedding", "num_embeddings", num_embeddings)
        _check_size("Embedding", "embedding_dim", embedding_dim)
        n = num_embeddings
        _check_padding_idx("Embedding", padding_idx, n)
        _check_options("Embedding", max_norm, norm_type, scale_grad_by_freq, sparse)
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.padding_idx = None if padding_idx is None else int(padding_idx) % n
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse

    @classmethod
    def from_pretrained(cls, embeddings: Tensor, freeze: bool = True,
                        padding_idx: int | None = None, max_norm: float | None = None,
                        norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                        sparse: bool = False) -> "Embedding":
        """An Embedding whose table is ``embeddings`` (num_embeddings, embedding_dim), its
        array shared, as PyTorch's; ``freeze=True``: no gradient (``requires_grad=False``).
        The padding row is kept as it is (only its gradient is cut). The options are
        ``Embedding``'s (a ``max_norm`` rescaling gives the module's table a new array;
        ``embeddings`` keeps its values, where PyTorch's shares the change)."""
        from .functional import _check_tensor   # functional.py imports this file
        _check_tensor("Embedding.from_pretrained", "embeddings", embeddings)
        if embeddings.ndim != 2:
            raise ValueError(f"Embedding.from_pretrained: embeddings must be 2-D "
                             f"(num_embeddings, embedding_dim), got shape {embeddings.shape}")
        module = cls.__new__(cls)
        Module.__init__(module)
        module._set_sizes(*embeddings.shape, padding_idx, max_norm, norm_type,
                          scale_grad_by_freq, sparse)
        module.weight = Parameter(embeddings)
        module.weight.requires_grad_(not freeze)
        return module

    def forward(self, idx: Tensor) -> Tensor:
        op = "Embedding"                        # F.embedding, its errors naming the module
        _check_indices(op, idx, self.weight)
        if self.max_norm is not None:
            _renorm_(self.weight, idx, self.max_norm, self.norm_type)
        y = _lookup(op, idx, self.weight, self.padding_idx, read=False)
        return _by_frequency(y, idx, self.num_embeddings) if self.scale_grad_by_freq else y

    def extra_repr(self) -> str:
        """As PyTorch prints it: the options left at their defaults are not shown."""
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            s += ", scale_grad_by_freq=True"
        return s


__all__ = ["embedding", "Embedding"]
