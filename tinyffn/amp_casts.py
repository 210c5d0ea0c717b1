"""What autocast does besides choosing each op's dtype (:mod:`tinyffn.amp`): the float16
copies of the weights it keeps for a region, the ops whose explicit ``dtype`` it leaves
alone, the ops that run in the widest dtype of their inputs, and the one it refuses. Each
is PyTorch's CUDA policy (``ATen/autocast_mode.h``, ``autocast_mode.cpp``).

**The cast cache.** A weight used twice in a region (a tied embedding, a layer applied
twice, an RNN cell over time steps) is cast to float16 once: the first use records a cast
node and keeps its float16 copy; the next uses get that copy, so one cast node feeds every
user, and ``w.grad`` is the cast's backward of their summed gradients. As in PyTorch, only
float32 leaves that require grad and are not views are kept (the parameters), only while
gradients are recorded, and the copies are dropped when the outermost region is left
(``autocast(cache_enabled=False)`` turns it off, for the region and the ones it holds).
Unlike PyTorch's, a copy is not handed out stale: tinyffn's in-place ops (``w.add_``, an
optimizer's step, ``load_state_dict``) give the weight a new array, and a copy made from
another array is cast again. A write into the array itself (``w.data[...] = v``) is not
seen, and the copy stays stale, as in PyTorch: write ``w.copy_(v)`` instead. Inside a
checkpointed block nothing is kept or reused, so the rerun in backward
records the same ops as the first run (``utils.checkpoint`` compares them).

**An explicit dtype wins.** ``F.softmax(x, -1, dtype=tinyffn.float16)``, ``log_softmax``,
``prod`` and ``cumsum`` run in the dtype asked for, as they would outside a region:
PyTorch runs them in float32 only when no dtype is given (its ``fp32_set_opt_dtype``).

**Promote.** ``tinyffn.dot`` or ``tensordot`` of a float16 and a float32 tensor, which
PyTorch refuses outside autocast, runs in float32 inside a region (PyTorch's ``promote``
list: the widest float dtype of the inputs; float64 is left as it is, so float64 with
float32 is still refused); two float16 tensors stay float16, two float32 ones float32.

**Refused.** ``F.binary_cross_entropy`` (and ``nn.BCELoss``) of CUDA tensors in a
``"cuda"`` region raises, as PyTorch's does: in float16, probabilities above 1 - 2⁻¹²
round to 1 and log(1 - p) is lost; ``binary_cross_entropy_with_logits`` takes the
logits and computes in float32. In a ``"cpu"`` region it runs in float32, as PyTorch's CPU
autocast runs it.
"""
from __future__ import annotations

import contextlib
import weakref
from typing import Any, Iterator

from .backend import dtype_name
from .grad_mode import STATE

__all__ = ["cached_cast", "clear_cache", "outside_autocast", "promoted", "refuse_unsafe"]

_CACHE: dict = {}   # (id(w), dtype name) -> (weak reference to w, w.data when cast, the copy)


def cached_cast(a: Any, name: str, cache_enabled: bool) -> Any:
    """``a`` cast to the dtype ``name`` for an op in a region: the region's float16 copy
    of a weight (module docstring), made now if there is none yet."""
    keep = (cache_enabled and name == "float16" and dtype_name(a.dtype) == "float32"
            and a.requires_grad and a.grad_fn is None and getattr(a, "_view", None) is None
            and STATE.grad_enabled
            and not any(s.kind == "function" and s.name == "checkpoint" for s in STATE.scope))
    if not keep:
        return a.to(dtype=name)
    key = (id(a), name)
    entry = _CACHE.get(key)
    if entry is not None and entry[0]() is a and entry[1] is a.data:
        return entry[2]
    cast = a.to(dtype=name)
    _CACHE[key] = (weakref.ref(a), a.data, cast)    # a.data: a new array means new values
    return cast


def clear_cache() -> None:
    """Drop every float16 copy: ``tinyffn.amp`` calls it when the outermost region is left,
    as ``torch.clear_autocast_cache``."""
    _CACHE.clear()


@contextlib.contextmanager
def outside_autocast(when: bool = True) -> Iterator[None]:
    """Run the body as outside every region, ``when`` true: the body of an op given an
    explicit dtype, or promoted; PyTorch's autocast, once it has cast an op's inputs,
    leaves the ops that op runs alone too."""
    saved = STATE.autocast
    if when:
        STATE.autocast = None
    try:
        yield
    finally:
        STATE.autocast = saved


def promoted(op: str, *tensors: Any) -> tuple:
    """``tensors`` as PyTorch's ``promote`` policy hands them to ``op`` in a region of
    their device: float16 ones cast to float32 where one of them is float32."""
    from .amp import is_autocast_enabled        # amp.py imports this module
    names = [dtype_name(t.dtype) for t in tensors]
    if "float32" not in names or "float16" not in names or \
            not is_autocast_enabled(tensors[0].device):
        return tensors
    return tuple(t.to(dtype="float32") if n == "float16" else t for t, n in zip(tensors, names))


def refuse_unsafe(op: str, input: Any) -> None:
    """Raise for ``binary_cross_entropy`` of a CUDA tensor in a ``"cuda"`` region, with
    PyTorch's reason and its fix."""
    from .amp import is_autocast_enabled
    if input.device == "cuda" and is_autocast_enabled("cuda"):
        raise RuntimeError(
            f"{op}: F.binary_cross_entropy and nn.BCELoss are unsafe to autocast (PyTorch "
            "refuses them too): in float16 a probability above 1 - 2^-12 rounds to 1 and "
            "log(1 - p) is lost. Drop the sigmoid before it and pass the logits to "
            "F.binary_cross_entropy_with_logits (or nn.BCEWithLogitsLoss), which autocast "
            "runs in float32; or compute this loss outside the region "
            "(with tinyffn.autocast('cuda', enabled=False):, input.float())")
