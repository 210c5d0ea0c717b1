"""``einsum``: an equation such as ``"btd,fd->btf"`` turned into the primitives it stands
for (getitem, sum, transpose, reshape, matmul, mul), with no backward of its own.

Einstein summation names every dimension of every operand with a letter. Letters shared
by operands are multiplied along, letters left out of the output are summed:

    "btd,fd->btf":   y[b, t, f] = sum_d x[b, t, d] w[f, d]      (the FFN's first matmul)
    "ii->":          y = sum_i x[i, i]                          (the trace)

The file reads top to bottom in three steps, as PyTorch computes it (without opt_einsum):

1. :func:`parse`: the equation as one list of subscripts per operand, and the output's.
2. :func:`plan`: a label for every dimension (``...`` becomes numbered labels), every
   label's size, the output's labels in order.
3. :func:`contract`: each operand on its own first (diagonals taken, labels no one else
   needs summed), then the operands two at a time, left to right, each pair by one
   matmul (batch, M, K) @ (batch, K, N); then the output's order.

Since every step is a Tensor op, the graph shows what an equation became, and its
gradient is the primitives' (``einsum("td,fd->tf", x, w)`` draws as ``x @ w.T`` does:
one transpose, one matmul), checked end to end by gradcheck.
"""
from __future__ import annotations

import math
import string
from collections import Counter

from . import grad_mode
from .arguments import type_name
from .backend import check_one_device
from .tensor import Tensor

ELLIPSIS = "..."
LETTERS = frozenset(string.ascii_letters)       # a-z and A-Z, as PyTorch's [a-zA-Z]


def einsum(equation, *operands):
    """Einstein summation, as ``torch.einsum``: ``einsum("ij,jk->ik", a, b)`` is ``a @ b``.

    ``equation`` names each operand's dimensions with letters (a-z, A-Z), the operands
    separated by ``,``; the output's letters follow ``->``, in its order. A letter in two
    operands is multiplied along; a letter not in the output is summed over; a letter
    repeated in one operand takes its diagonal (``"ii->i"``; ``"ii->"`` is the trace).
    Without ``->`` the output is every letter written once, in alphabetical order
    (capitals first), as PyTorch's. ``...`` stands for the dimensions an operand's letters
    leave; they broadcast between operands as NumPy's do (lined up from the right), and
    the output keeps them where its ``...`` is (first, without ``->``), or sums them when
    it has none. A dimension of size 1 broadcasts against its letter's size elsewhere.
    Spaces are ignored. ``einsum(eq, [a, b])`` takes the operands as one list.

    Shapes: as the equation says: "btd,fd->btf" takes x (B, T, d), w (F, d) to (B, T, F).
    dtypes: the operands are combined left to right, each step promoting as the matmul or
    the multiply it runs does: float32 with float64 gives float64 (PyTorch refuses to mix
    dtypes in a sum of products). A letter summed within one operand is a ``sum``, which
    makes bool and integer operands int64, as in PyTorch; a sum of products of two bool
    operands is refused, as in PyTorch.
    """
    if not isinstance(equation, str):
        raise TypeError(f"einsum: the equation must be a string such as 'ij,jk->ik', got "
                        f"{type_name(equation)}; PyTorch's other form, einsum(a, [0, 1], b, "
                        "[1, 2]), is not supported: write the subscripts as letters")
    operands = _operand_list(operands)
    terms, output = parse(equation, len(operands))
    for x in operands[1:]:
        check_one_device("einsum", "operands", operands[0], x)
    inputs, output, sizes = plan(equation, terms, output, [x.shape for x in operands])
    with grad_mode.scope("function", "einsum"):
        return contract(operands, inputs, output, sizes)


def _operand_list(operands: tuple) -> tuple:
    """The operands, given one by one or as one list or tuple, each a Tensor."""
    if len(operands) == 1 and getattr(operands[0], "_fields", None) == ("values", "indices"):
        raise TypeError(f"einsum: an operand is the pair (values, indices) from "
                        f"{getattr(operands[0], 'made_by', 'x.max(dim)')}; use its .values")
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    for i, x in enumerate(operands):
        if not isinstance(x, Tensor):
            raise TypeError(f"einsum: operand {i} must be a tinyffn Tensor, got "
                            f"{type_name(x)}; wrap it with tinyffn.tensor(...) (PyTorch's "
                            "einsum takes tensors only, too)")
    return operands


# ----------------------------------------------------------------------------- 1. parse
def parse(equation: str, n_operands: int) -> tuple:
    """``"bij,bjk->bik"`` as ``([["b", "i", "j"], ["b", "j", "k"]], ["b", "i", "k"])``: the
    subscripts of each operand and of the output (None without ``->``); ``"..."`` is one
    subscript. Spaces are dropped; any other character but letters, ``,`` between the
    operands and one ``...`` per operand is refused, as are output letters that no operand
    has or that the output repeats, and a count of operands other than ``n_operands``."""
    lhs, arrow, rhs = equation.partition("->")
    terms, start = [], 0
    for i, text in enumerate(lhs.split(",")):
        terms.append(_subscripts(equation, text, start, f"operand {i}"))
        start += len(text) + 1
    output = _subscripts(equation, rhs, len(lhs) + 2, "the output") if arrow else None
    if len(terms) != n_operands:
        raise ValueError(f"einsum: {equation!r} has subscripts for {len(terms)} operand"
                         f"{'s' * (len(terms) != 1)} (separated by ','), but {n_operands} "
                         f"{'were' if n_operands != 1 else 'was'} given; pass one tensor "
                         "per ','-separated term")
    for letter, count in Counter(s for s in output or () if s != ELLIPSIS).items():
        if not any(letter in term for term in terms):
            raise ValueError(f"einsum: the output subscript {letter!r} of {equation!r} is in "
                             "no operand; each output letter must name a dimension of an "
                             "input")
        if count > 1:
            raise ValueError(f"einsum: the output subscript {letter!r} appears {count} "
                             f"times in {equation!r}; write it once (a letter repeated in "
                             "an operand takes that operand's diagonal)")
    return terms, output


def _subscripts(equation: str, text: str, start: int, what: str) -> list:
    """The subscripts of ``text``, ``what`` (an operand or the output) of ``equation``,
    where it starts at index ``start``: letters, and ``"..."`` once at most."""
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c in LETTERS:
            out.append(c)
        elif text.startswith(ELLIPSIS, i):
            if ELLIPSIS in out:
                raise ValueError(f"einsum: {what} of {equation!r} has a second '...'; one "
                                 "'...' stands for all the dimensions its letters leave")
            out.append(ELLIPSIS)
            i += len(ELLIPSIS) - 1
        elif c == ".":
            raise ValueError(f"einsum: {what} of {equation!r} has a '.' at index "
                             f"{start + i} that is not part of '...'")
        elif c != " ":
            raise ValueError(f"einsum: {equation!r} has {c!r} at index {start + i}; the "
                             "subscripts are letters (a-z, A-Z), with ',' between operands, "
                             "'->' before the output, '...' for unnamed dimensions, and "
                             "spaces anywhere")
        i += 1
    return out


# ----------------------------------------------------------------------------- 2. plan
def plan(equation: str, terms: list, output: list | None, shapes: list) -> tuple:
    """The labels of every operand's dimensions, the output's labels in order, and the
    size of every label: ``(inputs, output, sizes)``.

    A label is a letter, or ``"...0"``, ``"...1"``, ... for the dimensions ``...`` stands
    for, numbered so that every operand's line up from the right (an operand whose
    ``...`` covers fewer dimensions has the last ones), as broadcasting lines them up.
    A label's size is the same in every operand, or 1 where it broadcasts; a repeated
    label (a diagonal) must have one size within its operand.
    """
    covered = []                                # how many dimensions each '...' stands for
    for i, (term, shape) in enumerate(zip(terms, shapes)):
        named = len(term) - (ELLIPSIS in term)
        if named > len(shape) or named < len(shape) and ELLIPSIS not in term:
            hint = ("at most one letter per dimension ('...' may stand for none)"
                    if ELLIPSIS in term else "one letter per dimension"
                    + (", or '...' for the rest" if named < len(shape) else ""))
            raise ValueError(f"einsum: operand {i} has {len(shape)} dimensions (shape "
                             f"{shape}), but its subscripts {''.join(term)!r} name {named}; "
                             f"write {hint}")
        covered.append(len(shape) - named)
    n = max(covered, default=0)
    ellipsis = [f"...{j}" for j in range(n)]
    inputs = [[label for s in term for label in (ellipsis[n - k:] if s == ELLIPSIS else [s])]
              for term, k in zip(terms, covered)]
    sizes, seen_in = {}, {}                     # label -> size; -> first operand with it
    for i, (labels, shape) in enumerate(zip(inputs, shapes)):
        own = {}
        for label, size in zip(labels, shape):
            if own.setdefault(label, size) != size:
                raise ValueError(f"einsum: {_label_text(label)} is repeated in operand {i} "
                                 f"(shape {shape}) to take a diagonal, so its dimensions "
                                 f"must have one size, not {own[label]} and {size}")
        for label, size in own.items():
            if sizes.get(label, 1) == 1:
                if size != 1 or label not in sizes:
                    sizes[label], seen_in[label] = size, i
            elif size not in (1, sizes[label]):
                j = seen_in[label]
                raise ValueError(f"einsum: {_label_text(label)} has size {sizes[label]} in "
                                 f"operand {j} (shape {shapes[j]}) but {size} in operand {i} "
                                 f"(shape {shape}); its sizes must be equal (or 1, to "
                                 "broadcast)")
    if output is None:                          # PyTorch's rule: '...', then letters seen once
        counts = Counter(s for term in terms for s in term if s != ELLIPSIS)
        return inputs, ellipsis + sorted(s for s, c in counts.items() if c == 1), sizes
    return inputs, [label for s in output for label in (ellipsis if s == ELLIPSIS else [s])], sizes


def _label_text(label: str) -> str:
    """How an error names a label: ``subscript 'j'``, or ``dimension 0 of '...'``."""
    return f"subscript {label!r}" if label in LETTERS else f"dimension {label[3:]} of '...'"


# ----------------------------------------------------------------------------- 3. contract
def contract(operands: tuple, inputs: list, output: list, sizes: dict) -> Tensor:
    """The result, from ``operands`` whose dimensions carry the labels ``inputs``.

    Each operand alone first (:func:`_prepare`): its diagonals, and its labels no other
    operand and not the output has, summed out right away. Then left to right, the result
    so far and the next operand (:func:`_contract_pair`), each label summed at the last
    operand that has it. Last, the output's order (one transpose, if the order differs).
    """
    prepared = [_prepare(x, labels, sizes) for x, labels in zip(operands, inputs)]
    terms = []
    for i, (x, labels) in enumerate(prepared):
        others = [other for j, (_, other) in enumerate(prepared) if j != i]
        terms.append(_sum_out(x, labels, set(output).union(*others)))
    y, labels = terms[0]
    for t in range(1, len(terms)):
        needed = set(output).union(*(later for _, later in terms[t + 1:]))
        y, labels = _contract_pair(y, labels, *terms[t], needed, sizes)
    y = _permuted(y, labels, output)
    return y.clone() if y is operands[0] else y      # "ij->ij": a new tensor, as always


def _prepare(x: Tensor, labels: list, sizes: dict) -> tuple:
    """``x`` with each label once: every repeated label's diagonal taken, and every
    dimension of size 1 whose label is longer elsewhere dropped (``x`` is constant along
    that label, which the other operands bring). Returns ``(x, labels)``."""
    for label in dict.fromkeys(labels):
        if labels.count(label) > 1:
            x, labels = _diagonal(x, labels, label)
    if any(n == 1 and sizes[label] != 1 for label, n in zip(labels, x.shape)):
        labels = [label for label, n in zip(labels, x.shape) if n != 1 or sizes[label] == 1]
        x = x.reshape(tuple(sizes[label] for label in labels))   # size-1 dimensions dropped
    return x, labels


def _diagonal(x: Tensor, labels: list, label: str) -> tuple:
    """y[..., k, ...] = x[..., k, ..., k, ...]: the diagonal over the r dimensions (each of
    size n) that ``label`` names. Moved side by side (a transpose, unless they are) and
    merged into one dimension of n^r entries (a reshape), the diagonal is every
    (1 + n + ... + n^(r-1))-th of them: for an n x n matrix, x[0, 0], x[1, 1], ... lie
    n + 1 apart in its rows laid end to end. A slice with that step (a getitem) takes
    them: basic indexing, which every backend has, costing the size of y forward and of x
    backward. Returns ``(y, labels of y)``, the diagonal where ``label`` first stood.
    """
    at = [i for i, other in enumerate(labels) if other == label]
    rest = [i for i in range(at[0], len(labels)) if labels[i] != label]
    axes = tuple(range(at[0])) + tuple(at) + tuple(rest)
    if axes != tuple(range(len(labels))):
        x = x.permute(axes)                                     # the repeats side by side
    n, r = x.shape[at[0]], len(at)
    x = x.reshape(x.shape[:at[0]] + (n ** r,) + x.shape[at[0] + r:])   # r dimensions -> 1
    y = x[(slice(None),) * at[0] + (slice(None, None, sum(n ** j for j in range(r))),)]
    return y, labels[:at[0]] + [label] + [labels[i] for i in rest]


def _sum_out(x: Tensor, labels: list, needed: set) -> tuple:
    """``x`` summed over its labels that are not ``needed``: ``(x, the labels kept)``."""
    axes = tuple(i for i, label in enumerate(labels) if label not in needed)
    if not axes:
        return x, labels
    return x.sum(axis=axes), [label for label in labels if label in needed]


def _contract_pair(a: Tensor, la: list, b: Tensor, lb: list, needed: set,
                   sizes: dict) -> tuple:
    """``a`` (labels ``la``) and ``b`` (labels ``lb``) as one tensor, labelled
    batch + left + right. Their labels fall in four groups:

    * batch: in both, and ``needed`` later (a later operand or the output has it);
    * summed: in both, needed no more: multiplied and summed, the matmul's K;
    * left, right: in ``a`` only, in ``b`` only (kept): the matmul's M and N.

    y[batch, left, right] = sum_summed a[batch, left, summed] b[batch, summed, right], as
    one matmul (batch, M, K) @ (batch, K, N), each group of labels merged into one
    dimension by a reshape where it has more than one label. Without batch labels, a's
    left labels stay as they are, matmul's broadcast dimensions, as for ``x @ w.T`` with
    x (B, T, d). With nothing to sum, a broadcast multiply, as PyTorch does.
    """
    batch = [label for label in la if label in lb and label in needed]
    summed = [label for label in la if label in lb and label not in needed]
    left = [label for label in la if label not in lb]
    right = [label for label in lb if label not in la]

    def shape(labels):
        return tuple(sizes[label] for label in labels)

    labels = batch + left + right
    if not summed:          # y[batch, left, right] = a[batch, left] b[batch, right]
        a = _reshaped(_permuted(a, la, batch + left), shape(batch + left) + (1,) * len(right))
        b = _permuted(b, lb, batch + right)
        if batch:           # without batch labels, broadcasting adds b's leading 1s itself
            b = _reshaped(b, shape(batch) + (1,) * len(left) + shape(right))
        return a * b, labels                                    # (batch, left, right)
    _check_not_bool(a, b, summed)
    k = math.prod(shape(summed))
    if batch:
        m, n = math.prod(shape(left)), math.prod(shape(right))
        a = _reshaped(_permuted(a, la, batch + left + summed), shape(batch) + (m, k))
        b = _reshaped(_permuted(b, lb, batch + summed + right), shape(batch) + (k, n))
    else:                   # a (left, K) @ b (K, N): 1-D where left or right is empty
        a = _reshaped(_permuted(a, la, left + summed), shape(left) + (k,))
        b = _reshaped(_permuted(b, lb, summed + right),
                      (k, math.prod(shape(right))) if right else (k,))
    y = a @ b                                           # (batch, M, N), or (left, N)
    return _reshaped(y, shape(labels)), labels          # (batch, left, right)


def _permuted(x: Tensor, labels: list, order: list) -> Tensor:
    """``x`` with its dimensions in ``order`` (a transpose, unless they are already)."""
    if labels == order:
        return x
    return x.permute(tuple(labels.index(label) for label in order))


def _reshaped(x: Tensor, shape: tuple) -> Tensor:
    """``x`` in ``shape`` (a reshape, unless it has that shape already)."""
    return x if x.shape == shape else x.reshape(shape)


def _check_not_bool(a: Tensor, b: Tensor, summed: list) -> None:
    """A sum of products of two bool tensors has no one answer (a count in PyTorch's
    ``sum``, an OR in NumPy's ``matmul``); PyTorch refuses it, and so does tinyffn."""
    xp = a.backend.xp
    if xp.isdtype(a.dtype, "bool") and xp.isdtype(b.dtype, "bool"):
        raise TypeError(f"einsum: summing products of two bool tensors over "
                        f"{', '.join(_label_text(label) for label in summed)} is refused, "
                        "as in PyTorch (NumPy would answer with OR); cast first: "
                        "x.to(dtype='int64') to count, or x.float()")
