"""PyTorch's names for broadcasting, stacking, splitting and selecting that ported PyTorch
code reaches for, each a function and (where torch has one) a Tensor method:
``broadcast_to``, ``broadcast_tensors``, ``broadcast_shapes``, ``swapaxes``/``swapdims``,
``atleast_1d``/``2d``/``3d``, ``hstack``, ``vstack``/``row_stack``, ``dstack``,
``column_stack``, ``concat``/``concatenate``, ``tensor_split``, ``hsplit``, ``vsplit``,
``dsplit``, ``ravel``, ``select``, ``take``, ``diagflat``, the aliases ``true_divide``,
``positive``, ``sgn``, ``fix``, ``msort``, ``numel``; and the Tensor methods
``sum_to_size``, ``adjoint``, ``mH`` and ``H``. The vector products (``mv``, ``inner``,
``cross``, ...) are in torch_products.py.

None is a primitive: each is a reshape, ``expand``, ``transpose``, slices, ``cat`` or a
``getitem``, so each gradient is the one of what it is made of and the graph shows those
ops inside the function's frame. tinyffn has no complex dtype, so ``sgn`` is ``sign`` and
``mH`` is ``mT``, as PyTorch's are for real tensors.
"""
from __future__ import annotations

from . import grad_mode
from .arguments import _is_int, sizes_arg, tensor_arg, type_name
from .backend import dtype_name
from .torch_names import _axis


# ----------------------------------------------------------------------------- broadcasting
def broadcast_shapes(*shapes) -> tuple:
    """The shape that tensors of these shapes broadcast to, as ``torch.broadcast_shapes``
    (an int stands for a 1-D shape); an error names the first pair that does not."""
    return _broadcast_shape("broadcast_shapes", shapes)


def _broadcast_shape(op: str, shapes) -> tuple:
    out: tuple = ()
    for shape in shapes:
        shape = (shape,) if _is_int(shape) else shape
        if not isinstance(shape, (tuple, list)) or not all(_is_int(n) and n >= 0
                                                           for n in shape):
            raise TypeError(f"{op}: each shape must be a tuple of ints >= 0 (or "
                            f"an int), got {shape!r}")
        n = max(len(out), len(shape))
        a, b = (1,) * (n - len(out)) + out, (1,) * (n - len(shape)) + tuple(shape)
        if any(p != q and 1 not in (p, q) for p, q in zip(a, b)):
            raise ValueError(f"{op}: shapes {a} and {tuple(shape)} cannot be "
                             "broadcast together; each trailing axis must match or be 1")
        out = tuple(q if p == 1 else p for p, q in zip(a, b))
    return tuple(int(n) for n in out)


def broadcast_to(input, size):
    """``input.expand(size)``, as ``torch.broadcast_to``: -1 keeps an axis's length."""
    x = tensor_arg("broadcast_to", "input", input)
    return x.expand(*(size if isinstance(size, (tuple, list)) else (size,)))


def broadcast_tensors(*tensors) -> tuple:
    """The tensors expanded to their common shape, as ``torch.broadcast_tensors`` (each an
    ``expand``, so each gradient is summed back over the axes it was repeated along)."""
    ts = [tensor_arg("broadcast_tensors", f"tensors[{i}]", t) for i, t in enumerate(tensors)]
    shape = _broadcast_shape("broadcast_tensors", [t.shape for t in ts])
    return tuple(t if t.shape == shape else t.expand(*shape) for t in ts)


def swapaxes(input, axis0, axis1):
    """``input.transpose(axis0, axis1)``, as ``torch.swapaxes`` (NumPy's name)."""
    return tensor_arg("swapaxes", "input", input).transpose(axis0, axis1)


def swapdims(input, dim0, dim1):
    """``input.transpose(dim0, dim1)``, as ``torch.swapdims``."""
    return tensor_arg("swapdims", "input", input).transpose(dim0, dim1)


# ----------------------------------------------------------------------------- at least n axes
def _at_least(op: str, tensors, fill):
    """One tensor in, one out; several (or one list) in, a tuple out, as PyTorch's."""
    one = len(tensors) == 1 and not isinstance(tensors[0], (tuple, list))
    items = tensors[0] if len(tensors) == 1 and not one else tensors
    out = tuple(fill(tensor_arg(op, f"tensors[{i}]", t)) for i, t in enumerate(items))
    return out[0] if one else out


def atleast_1d(*tensors):
    """A 0-d tensor as shape (1,), others unchanged, as ``torch.atleast_1d``."""
    return _at_least("atleast_1d", tensors, lambda t: t.reshape(1) if t.ndim == 0 else t)


def atleast_2d(*tensors):
    """0-d as (1, 1), (n,) as (1, n), others unchanged, as ``torch.atleast_2d``."""
    return _at_least("atleast_2d", tensors,
                     lambda t: t.reshape(1, -1) if t.ndim < 2 else t)


def atleast_3d(*tensors):
    """0-d as (1, 1, 1), (n,) as (1, n, 1), (m, n) as (m, n, 1), others unchanged, as
    ``torch.atleast_3d`` (NumPy's rule: a matrix gains a trailing axis)."""
    def fill(t):
        if t.ndim == 0:
            return t.reshape(1, 1, 1)
        if t.ndim == 1:
            return t.reshape(1, -1, 1)
        return t.unsqueeze(-1) if t.ndim == 2 else t
    return _at_least("atleast_3d", tensors, fill)


# ----------------------------------------------------------------------------- stacking
def _joined(op: str, tensors, fill, dim_of):
    from .creation import cat      # creation.py imports tensor.py, which imports this
    from .tensor import Tensor
    if isinstance(tensors, (str, bytes, Tensor)) or not hasattr(tensors, "__iter__"):
        raise TypeError(f"{op}: tensors must be a list or tuple of tinyffn Tensors, got "
                        f"{type_name(tensors)}")
    ts = [fill(tensor_arg(op, f"tensors[{i}]", t)) for i, t in enumerate(tensors)]
    if not ts:
        raise ValueError(f"{op}: expects a non-empty list of tensors")
    with grad_mode.scope("function", op):
        return cat(ts, dim=dim_of(ts))


def hstack(tensors):
    """The tensors joined column-wise, as ``torch.hstack``: 1-D ones end to end (dim 0),
    others along dim 1; 0-d tensors count as (1,)."""
    return _joined("hstack", tensors, atleast_1d,
                   lambda ts: 0 if all(t.ndim == 1 for t in ts) else 1)


def vstack(tensors):
    """The tensors joined row-wise (dim 0) after ``atleast_2d``, as ``torch.vstack``: two
    vectors of length n give a (2, n) matrix."""
    return _joined("vstack", tensors, atleast_2d, lambda ts: 0)


def row_stack(tensors):
    """``vstack``, as ``torch.row_stack``."""
    return _joined("row_stack", tensors, atleast_2d, lambda ts: 0)


def dstack(tensors):
    """The tensors joined depth-wise (dim 2) after ``atleast_3d``, as ``torch.dstack``."""
    return _joined("dstack", tensors, atleast_3d, lambda ts: 2)


def column_stack(tensors):
    """The tensors side by side as columns, as ``torch.column_stack``: 0-d and 1-D ones
    become (n, 1) columns, others are joined along dim 1 as they are."""
    return _joined("column_stack", tensors,
                   lambda t: t.reshape(-1, 1) if t.ndim < 2 else t, lambda ts: 1)


def concat(tensors, dim=0):
    """``cat``, as ``torch.concat``."""
    from .creation import cat
    return cat(tensors, dim=dim)


def concatenate(tensors, axis=0, *, dim=None):
    """``cat``, as ``torch.concatenate`` (NumPy's name; ``axis`` or PyTorch's ``dim``)."""
    from .creation import cat
    return cat(tensors, axis, dim=dim)


# ----------------------------------------------------------------------------- splitting
def tensor_split(input, indices_or_sections=None, dim=0, *, sections=None, indices=None):
    """Views of ``input`` along ``dim``, as ``torch.tensor_split`` (NumPy's
    ``array_split``): an int n gives n pieces, the first ``size % n`` one longer than the
    rest (n may exceed the length: the last pieces are empty); a list of indices cuts
    before each, read as Python slice bounds (``[1, 5]`` on length 7: [0:1], [1:5], [5:]).
    A 0-d int tensor counts as n, a 1-D one as the indices (read on the host). PyTorch's
    keywords ``sections=n`` and ``indices=[...]`` are taken too."""
    x = tensor_arg("tensor_split", "input", input)
    spec = _spec("tensor_split", indices_or_sections, sections, indices)
    return _split_at("tensor_split", x, spec, dim)


def _spec(op: str, indices_or_sections, sections, indices):
    """The one of indices_or_sections (by position) and PyTorch's keywords given."""
    given = [v for v in (indices_or_sections, sections, indices) if v is not None]
    if len(given) != 1:
        raise TypeError(f"{op}: give one of indices_or_sections (by position), sections=n or "
                        f"indices=[...], got {len(given)}")
    return given[0]


def _split_at(op: str, x, spec, dim, *, exact: bool = False):
    if x.ndim == 0:
        raise ValueError(f"{op}: input must have at least one axis, got a 0-d tensor")
    d = _axis(op, dim, x.ndim)
    n = x.shape[d]
    if hasattr(spec, "backend") and hasattr(spec, "data"):       # a tinyffn Tensor
        if spec.backend.is_floating(spec.dtype) or dtype_name(spec.dtype) == "bool" or \
                spec.ndim > 1:
            raise TypeError(f"{op}: a tensor indices_or_sections must be an integer tensor "
                            f"of 0 or 1 axes, got {dtype_name(spec.dtype)} of shape "
                            f"{spec.shape}")
        spec = spec.tolist()
    if _is_int(spec):
        if spec <= 0:
            raise ValueError(f"{op}: the number of sections must be >= 1, got {spec}")
        if exact and n % spec:
            raise ValueError(f"{op}: cannot split axis {d} of length {n} into {spec} equal "
                             f"parts (shape {x.shape}); give a divisor of {n}, or split points")
        small, extra = divmod(n, spec)
        lengths = [small + 1] * extra + [small] * (spec - extra)
        bounds = [sum(lengths[:i]) for i in range(spec + 1)]
        cuts = list(zip(bounds[:-1], bounds[1:]))
    elif isinstance(spec, (tuple, list)) and all(_is_int(i) for i in spec):
        points = [int(i) for i in spec]
        cuts = [slice(a, b).indices(n)[:2] for a, b in zip([0] + points, points + [None])]
        cuts = [(a, max(a, b)) for a, b in cuts]      # in range: the array API asks it
    else:
        raise TypeError(f"{op}: indices_or_sections must be an int or a list of ints, got "
                        f"{spec!r}")
    lead = (slice(None),) * d
    with grad_mode.scope("function", op):
        return tuple(x[lead + (slice(a, b),)] for a, b in cuts)


def _split_by_dim(op: str, input, spec, dim: int, need: int):
    x = tensor_arg(op, "input", input)
    if x.ndim < need:
        raise ValueError(f"{op}: needs a tensor of at least {need} axes, got shape {x.shape}")
    return _split_at(op, x, spec, dim, exact=True)


def hsplit(input, indices_or_sections=None, *, sections=None, indices=None):
    """``tensor_split`` along dim 1 (dim 0 for a 1-D tensor), as ``torch.hsplit``: an int
    must divide the length."""
    indices_or_sections = _spec("hsplit", indices_or_sections, sections, indices)
    x = tensor_arg("hsplit", "input", input)
    return _split_by_dim("hsplit", x, indices_or_sections, 0 if x.ndim == 1 else 1, 1)


def vsplit(input, indices_or_sections=None, *, sections=None, indices=None):
    """``tensor_split`` along dim 0 of a tensor of 2 or more axes, as ``torch.vsplit``."""
    indices_or_sections = _spec("vsplit", indices_or_sections, sections, indices)
    return _split_by_dim("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input, indices_or_sections=None, *, sections=None, indices=None):
    """``tensor_split`` along dim 2 of a tensor of 3 or more axes, as ``torch.dsplit``."""
    indices_or_sections = _spec("dsplit", indices_or_sections, sections, indices)
    return _split_by_dim("dsplit", input, indices_or_sections, 2, 3)


# ----------------------------------------------------------------------------- other aliases
def true_divide(input, other):
    """``input / other``, true division (integers give floats), as ``torch.true_divide``."""
    return tensor_arg("true_divide", "input", input) / other


def positive(input):
    """``input`` itself, as ``torch.positive`` (unary +); a bool tensor is refused."""
    x = tensor_arg("positive", "input", input)
    if dtype_name(x.dtype) == "bool":
        raise TypeError("positive: unary + of a bool tensor is not defined (PyTorch refuses "
                        "it too); cast first, x.to(dtype='int64')")
    return x


def sgn(input):
    """``sign(input)``, as ``torch.sgn`` on a real tensor (for complex z it is z/|z|)."""
    return tensor_arg("sgn", "input", input).sign()


def fix(input):
    """``trunc(input)``: rounded toward zero, as ``torch.fix``."""
    return tensor_arg("fix", "input", input).trunc()


def msort(input):
    """The values sorted along dim 0, as ``torch.msort``: ``sort(input, dim=0).values``."""
    from .sorting import sort     # sorting.py imports tensor.py, which imports this
    return sort(tensor_arg("msort", "input", input), dim=0).values


def numel(input) -> int:
    """The number of entries, as ``torch.numel``."""
    return tensor_arg("numel", "input", input).numel()


def ravel(input):
    """``input.reshape(-1)``, as ``torch.ravel``."""
    return tensor_arg("ravel", "input", input).reshape(-1)


def select(input, dim, index):
    """The slice at ``index`` along ``dim``, that axis dropped, as ``torch.select``
    (``x.select(0, i)`` is ``x[i]``): one ``getitem``."""
    x = tensor_arg("select", "input", input)
    if x.ndim == 0:
        raise IndexError("select: cannot select from a 0-d tensor")
    d = _axis("select", dim, x.ndim)
    if not _is_int(index):        # a bool too: True would read as 1 (PyTorch refuses it)
        raise TypeError(f"select: index must be an int, got {index!r} "
                        f"({type_name(index)})")
    if not -x.shape[d] <= index < x.shape[d]:
        raise IndexError(f"select: index {index!r} is out of range for axis {d} of shape "
                         f"{x.shape} (expected an int in [{-x.shape[d]}, {x.shape[d]}))")
    return x[(slice(None),) * d + (int(index),)]


def take(input, index):
    """The entries of the flattened ``input`` at ``index``, in index's shape, as
    ``torch.take``: ``input.reshape(-1)[index]``, so repeated entries add up their
    gradients."""
    x, i = tensor_arg("take", "input", input), tensor_arg("take", "index", index)
    if i.backend.is_floating(i.dtype) or dtype_name(i.dtype) == "bool":
        raise TypeError(f"take: index must be an integer tensor, got {dtype_name(i.dtype)}")
    with grad_mode.scope("function", "take"):
        return x.reshape(-1)[i]


def diagflat(input, offset=0):
    """The flattened ``input`` laid on diagonal ``offset`` of a square matrix, as
    ``torch.diagflat``: ``diag(input.reshape(-1), offset)``."""
    from .torch_extras import diag
    return diag(tensor_arg("diagflat", "input", input).reshape(-1), offset)


def _sum_to_size(x, size):
    """x summed over the axes that ``size`` broadcasts along, as ``Tensor.sum_to_size``."""
    size = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    lead = x.ndim - len(size)
    if lead < 0 or not all(_is_int(n) for n in size) or \
            any(n not in (1, m) for n, m in zip(size, x.shape[lead:])):
        raise ValueError(f"sum_to_size: size {tuple(size)} is not expandable to the tensor's "
                         f"shape {x.shape}; each size must match its axis (counted from the "
                         "end) or be 1")
    # summed: the leading axes that size lacks, and each axis size has as 1 where x's is longer
    kept_at_1 = [lead + i for i, (n, m) in enumerate(zip(size, x.shape[lead:]))
                 if n == 1 and m != 1]
    axes = tuple(range(lead)) + tuple(kept_at_1)
    if not axes:
        return x
    with grad_mode.scope("function", "sum_to_size"):
        return x.sum(dim=axes, keepdim=True).reshape(tuple(size))


def _matrix_transposed(x, name: str, batches: bool):
    if x.ndim != 2 and not (batches and x.ndim > 2):
        also = " or batches of matrices" if batches else " (2-D tensors); for batches use .mH"
        raise ValueError(f"{name}: only matrices{also}, as PyTorch's, got shape {x.shape}")
    return x.mT


class ShapeMethods:
    """The Tensor methods of the functions above that PyTorch has as methods
    (``broadcast_to`` is Tensor's own; the stackers and ``broadcast_tensors`` are functions
    only, as there), and ``gather``, over :func:`tinyffn.sorting.gather`."""

    __slots__ = ()          # Tensor has slots: a base class without them would add a __dict__

    def gather(self, dim, index, *, sparse_grad=False):
        from . import sorting                   # sorting.py imports tensor.py
        return sorting.gather(self, dim, index, sparse_grad=sparse_grad)

    def swapaxes(self, axis0, axis1): return swapaxes(self, axis0, axis1)
    def swapdims(self, dim0, dim1): return swapdims(self, dim0, dim1)
    def tensor_split(self, indices_or_sections=None, dim=0, *, sections=None, indices=None):
        return tensor_split(self, indices_or_sections, dim, sections=sections, indices=indices)
    def hsplit(self, indices_or_sections=None, *, sections=None, indices=None):
        return hsplit(self, indices_or_sections, sections=sections, indices=indices)
    def vsplit(self, indices_or_sections=None, *, sections=None, indices=None):
        return vsplit(self, indices_or_sections, sections=sections, indices=indices)
    def dsplit(self, indices_or_sections=None, *, sections=None, indices=None):
        return dsplit(self, indices_or_sections, sections=sections, indices=indices)
    def true_divide(self, other): return true_divide(self, other)
    def positive(self): return positive(self)
    def sgn(self): return sgn(self)
    def fix(self): return fix(self)
    def msort(self): return msort(self)
    def ravel(self): return ravel(self)
    def select(self, dim, index): return select(self, dim, index)
    def take(self, index): return take(self, index)
    def diagflat(self, offset=0): return diagflat(self, offset)
    def sum_to_size(self, *sizes, size=None):
        return _sum_to_size(self, sizes_arg("sum_to_size", sizes, "size", size))

    def adjoint(self):
        """The conjugate transpose of the last two axes: ``mT`` for a real tensor."""
        return _matrix_transposed(self, "adjoint", True)

    @property
    def mH(self):
        """The conjugate transpose of the last two axes, as ``Tensor.mH``: ``mT`` here."""
        return _matrix_transposed(self, "mH", True)

    @property
    def H(self):
        """The conjugate transpose of a matrix, as ``Tensor.H``: ``T`` here."""
        return _matrix_transposed(self, "H", False)


__all__ = ["broadcast_shapes", "broadcast_to", "broadcast_tensors", "swapaxes", "swapdims",
           "atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "row_stack", "dstack",
           "column_stack", "concat", "concatenate", "tensor_split", "hsplit", "vsplit",
           "dsplit", "true_divide", "positive", "sgn", "fix", "msort", "numel", "ravel", "select", "take", "diagflat",
           "ShapeMethods"]
