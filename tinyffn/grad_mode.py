"""Grad mode and the other switches every op reads, with the context managers that set them.

``no_grad()`` stops recording graphs (for evaluation and updates), ``detect_anomaly()``
checks every result for NaN and inf, ``keep_intermediates()`` keeps op outputs to look
at later, and ``scope()`` tags ops with the module or composed function they ran in, which
drawings turn into frames. Each one sets a field of :data:`STATE` for the length of a
``with`` block; :meth:`tinyffn.autograd.Function.apply` reads them on every op call.
PyTorch keeps the same things in ``torch.autograd.grad_mode`` and ``torch.autograd.anomaly_mode``.
"""
from __future__ import annotations

import contextlib
import functools
import inspect
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from .arguments import type_name


class _State:
    """Process-wide switches. One instance; read on every op, so kept as plain attributes.

    Unlike PyTorch's grad mode these are shared by all threads: ``no_grad()`` in one thread
    stops recording in every thread. A ``threading.local`` would cost about 30 ns per read,
    a few percent of a small op's time; tinyffn runs one training loop per process.
    """

    def __init__(self):
        self.grad_enabled = True
        self.anomaly = False
        self.scope: tuple = ()          # enclosing module / composed-function calls
        self.flop_counters: list = []   # active FlopCounters, innermost last
        self.kept: list | None = None   # where keep_intermediates() collects op outputs
        self.autocast = None            # inside tinyffn.autocast: amp.autocast_inputs


STATE = _State()


# ----------------------------------------------------------------------------- modes
class _Switch:
    """``STATE.<field> = value`` for the length of a ``with`` block, or of each call of a
    function it decorates; then as it was. One object may be entered again while in use
    (a decorated function that recurses): each exit restores what its entry found."""

    def __init__(self, name: str, field: str, value: Any):
        self.name, self.field, self.value, self._previous = name, field, value, []

    def __enter__(self) -> None:
        self._previous.append(getattr(STATE, self.field))
        setattr(STATE, self.field, self.value)

    def __exit__(self, *exc_info: Any) -> None:
        setattr(STATE, self.field, self._previous.pop())

    def __call__(self, fn: Callable) -> Callable:
        return _decorated(self.name, fn, lambda: self)


def _decorated(name: str, fn: Any, switch: Callable[[], Any]) -> Callable:
    """``fn``, running inside the context manager ``switch()`` on each call."""
    if not callable(fn):
        raise TypeError(f"{name}: takes no argument, or a function to decorate; got "
                        f"{type_name(fn)}")
    if inspect.isgeneratorfunction(fn) or inspect.iscoroutinefunction(fn):
        kind = "generator" if inspect.isgeneratorfunction(fn) else "coroutine"
        call = f"{name}(mode)" if name == "set_grad_enabled" else f"{name}()"
        raise TypeError(f"{name}: cannot decorate the {kind} function {fn.__name__}: its "
                        "body runs later, after the call has returned and the mode is "
                        f"back; write `with {call}:` inside its body instead")

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        with switch():
            return fn(*args, **kwargs)
    return run


def no_grad(fn: Callable | None = None) -> Any:
    """Run ops without recording a graph (as ``torch.no_grad``): for evaluation and updates.

    ``with no_grad():``, or a decorator, written ``@no_grad()`` or ``@no_grad`` (not of a
    generator function). It holds for the whole process, every thread, not only the
    calling thread (see _State).
    """
    switch = _Switch("no_grad", "grad_enabled", False)
    return switch if fn is None else switch(fn)


def enable_grad(fn: Callable | None = None) -> Any:
    """Record a graph again inside a :func:`no_grad` block (also a decorator, as no_grad)."""
    switch = _Switch("enable_grad", "grad_enabled", True)
    return switch if fn is None else switch(fn)


def inference_mode(mode: Any = True) -> Any:
    """``torch.inference_mode``: here :func:`no_grad` by another name, since tinyffn has
    no inference tensors (PyTorch's way to skip its version counters as well). As in
    PyTorch, ``inference_mode(False)`` turns recording *on* (as :func:`enable_grad`), and
    it decorates written ``@inference_mode()`` or ``@inference_mode``."""
    if not isinstance(mode, bool):      # @inference_mode, without the call
        return _Switch("inference_mode", "grad_enabled", False)(mode)
    return _Switch("inference_mode", "grad_enabled", not mode)


class set_grad_enabled:
    """Turn recording on or off, as ``torch.set_grad_enabled``: at once when called, and
    back to what it was at the end of a ``with`` block. One loop body can then serve
    training and evaluation: ``with set_grad_enabled(training): loss = ...``."""

    def __init__(self, mode: bool):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled: mode must be True or False, got {mode!r}")
        self.previous, self.mode = STATE.grad_enabled, mode
        STATE.grad_enabled = mode

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc_info: Any) -> None:
        STATE.grad_enabled = self.previous

    def __call__(self, fn: Callable) -> Callable:
        """As a decorator: the mode holds while ``fn`` runs, not from the decoration on."""
        STATE.grad_enabled = self.previous
        mode = self.mode
        return _decorated("set_grad_enabled", fn, lambda: set_grad_enabled(mode))


def is_grad_enabled() -> bool:
    """True unless inside :func:`no_grad` (then ops record no graph)."""
    return STATE.grad_enabled


def detect_anomaly() -> _Switch:
    """Raise :class:`AnomalyError` as soon as a forward or backward produces NaN or inf.

    Slower (every result is scanned); use it to find *where* a NaN first appears.
    """
    return _Switch("detect_anomaly", "anomaly", True)


class set_detect_anomaly:
    """Turn :func:`detect_anomaly` on or off, as ``torch.autograd.set_detect_anomaly``: at
    once when called, and back to what it was at the end of a ``with`` block.
    ``check_nan=False`` (PyTorch's, to check less) is refused: the check here is one."""

    def __init__(self, mode: bool, check_nan: bool = True):
        if not isinstance(mode, bool):
            raise TypeError(f"set_detect_anomaly: mode must be True or False, got {mode!r}")
        if check_nan is not True:
            raise ValueError("set_detect_anomaly: check_nan=False is not supported: tinyffn's "
                             "anomaly check looks at every result for NaN and inf together")
        self.previous, STATE.anomaly = STATE.anomaly, mode

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc_info: Any) -> None:
        STATE.anomaly = self.previous


@contextlib.contextmanager
def keep_intermediates(retain_grad: bool = False) -> Iterator[list]:
    """Keep every tensor that a recorded op makes inside the block, to look at later.

    The graph does not keep intermediate results (see :mod:`tinyffn.autograd`), so after
    ``y = ffn(x)`` the pre-activation inside the FFN is gone. Inside this block each op
    output is appended to the list it yields, in the order made, and stays alive as long
    as the list does (so bind it: ``with keep_intermediates() as kept:``): a drawing then
    shows its values, and with ``retain_grad=True`` its ``.grad`` after backward. It
    costs the memory the graph normally saves.
    """
    previous, kept = STATE.kept, []
    STATE.kept = kept
    try:
        yield kept
    finally:
        STATE.kept = previous
    if retain_grad:
        for t in kept:
            t.retain_grad()


class AnomalyError(FloatingPointError):
    """A NaN or inf produced inside :func:`detect_anomaly`."""


def check_finite(ctx: Any, y: Any, what: str) -> None:
    """Under :func:`detect_anomaly`: raise if array ``y``, which op node ``ctx``'s forward or
    backward ``what`` (``"forward produced"``), holds a NaN or inf."""
    xp = ctx.xp
    if not bool(xp.all(xp.isfinite(y))):
        shapes = ", ".join(str(tuple(shape)) for shape in ctx.input_shapes)
        raise AnomalyError(f"{ctx.fn.op_name()}: {what} NaN or inf (input shapes {shapes})")


@dataclass(frozen=True)
class Scope:
    """One enclosing call recorded on every op it runs: a module or a composed function.

    ``kind`` is ``"module"`` (``obj`` is the Module) or ``"function"`` (a composed op such
    as ``gelu``; ``obj`` is None). The graph drawer turns scopes into clusters.
    """

    kind: str
    name: str
    obj: Any = None


@contextlib.contextmanager
def scope(kind: str, name: str, obj: Any = None) -> Iterator[None]:
    """Tag every op run inside with ``Scope(kind, name, obj)`` (see :class:`Scope`)."""
    previous = STATE.scope
    STATE.scope = previous + (Scope(kind, name, obj),)
    try:
        yield
    finally:
        STATE.scope = previous
