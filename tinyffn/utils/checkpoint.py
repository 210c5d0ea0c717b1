"""``tinyffn.utils.checkpoint``, as ``torch.utils.checkpoint``: activation checkpointing.

Training memory is mostly the activations that ops save for backward; in an FFN those are
the hidden layer's (T, d_ff) arrays, each four times the (T, d) input they come from
(d_ff = 4d): one with ReLU (its output, which W2's gradient reads too), four with the
composed GELU. ``y = checkpoint(block, x, use_reentrant=False)`` runs the block as usual,
building its part of the graph, and then drops what its nodes saved: until backward
only x (and the block's output) stay. When backward reaches the first of those nodes,
the block is run again on the same inputs and every node of the block gets the arrays
its second run saved; the walk goes on as if nothing had happened. Memory falls by the
block's activations, and the price is one more forward of the block: for an FFN 16·T·d²
FLOPs on top of the step's 48·T·d², a third more (docs/autograd.md §5 measures both).

How it is done here, PyTorch's non-reentrant form written for tinyffn's graph:

* forward: the block runs inside a ``checkpoint`` frame (drawings show it), with every
  recorded op's node collected (not its output, which dies as usual: :class:`_Nodes`);
  at the end each node has its saved arrays replaced by a :class:`_Region` that can
  bring them back (``Context._freed``, read by ``Context.saved_tensors`` only when a
  node has none).
* backward: the first ``saved_tensors`` of a node of the block runs the block again, with
  recording on, the random generator's state of the first run (dropout draws the same
  mask) and its autocast regions (the same float16 casts), and hands the i-th recorded
  node of the second run's saved arrays to the i-th node of the first. A block that records different ops the second time (a branch on a
  random number without ``preserve_rng_state``, an input changed in place) is an error,
  :class:`CheckpointError`, not a wrong gradient. So is a rerun whose ops read other
  tensors than the first run's (``lambda h: layer(h)`` in a loop reads the last layer at
  backward), or need other gradients (a parameter frozen between forward and backward).
* the block's nodes keep their region; the region keeps them weakly, so a checkpointed
  graph has no reference cycle and is freed by refcounting alone, as every graph here.

The graph is the ordinary one, so ``loss.backward()``, ``tinyffn.grad`` and parameters
used inside the block (found by the walk, not passed as inputs) work as without
checkpointing. Not supported: ``use_reentrant=True`` (PyTorch's older form, whose
gradients differ where no input requires a gradient), gradients of gradients
(``create_graph=True``) through a checkpointed block, and checkpoints nested inside one
another (the inner one runs as a plain call, its nodes recomputed with the outer's).
"""
from __future__ import annotations

import weakref
from contextlib import nullcontext
from typing import Any, Callable

from .. import amp, grad_mode
from ..generators import default_generator
from ..grad_mode import STATE

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "noop_context_fn"]

DETERMINISM_CHECKS = ("default", "none")
_active = 0                      # > 0 while a checkpointed block's forward (first or second) runs


class CheckpointError(RuntimeError):
    """The block's second run differs from its first (as ``torch.utils.checkpoint``'s)."""


def noop_context_fn() -> tuple:
    """The default ``context_fn``: no context around either run."""
    return nullcontext(), nullcontext()


def checkpoint(function: Callable, *args: Any, use_reentrant: bool | None = None,
               context_fn: Callable[[], tuple] | None = None,
               determinism_check: str = "default", debug: bool = False,
               early_stop: bool = True, preserve_rng_state: bool = True,
               **kwargs: Any) -> Any:
    """``function(*args, **kwargs)``, its saved activations dropped and recomputed in backward.

    ``use_reentrant``: False (or None, the same here; PyTorch 2.13 runs its reentrant form
    for None and warns) -- True is refused. ``preserve_rng_state``: the second run starts
    from the default generator's state at the first, so dropout masks agree.
    ``context_fn``: returns two context managers, entered around the first run and the
    second (None: :func:`noop_context_fn`, PyTorch's default). ``determinism_check``: 'default' compares the two runs' recorded ops (name,
    shape, dtype) and raises :class:`CheckpointError` at the first difference; 'none' skips
    it. ``debug``: the error lists both runs' ops in full. ``early_stop`` is accepted
    (tinyffn always reruns the whole block).
    """
    context_fn = noop_context_fn if context_fn is None else context_fn
    _check_options(use_reentrant, context_fn, determinism_check, debug, early_stop,
                   preserve_rng_state)
    if not STATE.grad_enabled or _active:    # nothing recorded, or inside another block
        return function(*args, **kwargs)
    region = _Region(function, args, kwargs, context_fn, determinism_check, debug,
                     default_generator.get_state() if preserve_rng_state else None)
    forward_context, _ = _contexts(context_fn)
    with forward_context:
        out, nodes = region.run()
    region.drop(nodes)
    return out


def checkpoint_sequential(functions: Any, segments: int, input: Any,
                          use_reentrant: bool | None = None, **kwargs: Any) -> Any:
    """Run ``functions`` (an ``nn.Sequential`` or a list of callables) one after another
    on ``input``, split into ``segments`` runs of ``len // segments`` functions each (the
    last one takes the rest); every segment but the last is checkpointed, as PyTorch's.
    ``kwargs``: ``preserve_rng_state`` and the other options of :func:`checkpoint`."""
    functions = list(functions.children()) if hasattr(functions, "children") else list(functions)
    if isinstance(segments, bool) or not isinstance(segments, int) or segments < 1:
        raise ValueError(f"checkpoint_sequential: segments must be an int >= 1, got {segments!r}")
    if segments > len(functions):
        raise ValueError(f"checkpoint_sequential: {segments} segments of {len(functions)} "
                         "functions; use at most one segment per function")
    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(_run_segment(functions[start:end + 1]), input,
                           use_reentrant=use_reentrant, **kwargs)
    return _run_segment(functions[end + 1:])(input)


def _run_segment(functions: list) -> Callable:
    def run(x: Any) -> Any:
        for f in functions:
            x = f(x)
        return x
    return run


class _Region:
    """One checkpointed call: how to run it again, and the first run's nodes to refill."""

    def __init__(self, function, args, kwargs, context_fn, determinism_check, debug, rng):
        self.function, self.args, self.kwargs = function, args, kwargs  # kept, as PyTorch keeps them
        self.context_fn, self.determinism_check, self.debug = context_fn, determinism_check, debug
        self.rng = rng                    # the default generator's state before the first run
        self.autocast = amp.entered_regions()   # the rerun runs in the first run's dtypes
        self.nodes: list = []             # weak references to the first run's nodes, in order
        self.facts: list = []             # each one's (op, shape, dtype), for the comparison
        self.reads: list = []             # (weak ref to a tensor from outside, its array then)
        self.reruns = 0                   # second runs so far (the stepper says where one ran)

    def run(self, rerun: bool = False) -> tuple:
        """Run the block in a ``checkpoint`` frame; its output and its recorded nodes."""
        global _active
        outer = STATE.kept
        share = outer is not None and not rerun   # inside keep_intermediates(): it sees them too
        kept = [] if share else _Nodes()
        STATE.kept, _active = kept, _active + 1
        try:
            with grad_mode.scope("function", "checkpoint"):
                out = self.function(*self.args, **self.kwargs)
        finally:
            STATE.kept, _active = outer, _active - 1
        if not share:
            return out, list(kept)
        outer.extend(kept)
        return out, [t.grad_fn for t in kept]

    def drop(self, nodes: list) -> None:
        """Free what the first run's nodes saved: each can now only get it back from here.
        Note the array of each tensor the block read from outside (a leaf, or an input
        made by an op), to tell a change in place before the rerun."""
        from ..tensor import Tensor
        self.nodes = [weakref.ref(node) for node in nodes]   # the nodes hold self: no cycle
        self.facts = [_facts(node) for node in nodes]
        seen = {id(node) for node in nodes}
        for node in nodes:
            # _freed: rerun me on the first saved_tensors (False again once refilled);
            # _checkpoint stays, so create_graph refuses the node (higher_order.py)
            node._saved, node._freed, node._checkpoint = (), self, self
            for p in node.parents:
                if id(p) not in seen:
                    seen.add(id(p))
                    t = p if isinstance(p, Tensor) else p.output   # None: no one can change it
                    if t is not None:
                        self.reads.append((weakref.ref(t), t.data))

    def recompute(self) -> None:
        """Run the block again and give each first-run node its second run's saved arrays."""
        for ref, array in self.reads:
            t = ref()
            if t is not None and t.data is not array:
                raise CheckpointError(
                    f"checkpoint: a tensor the block read, of shape {tuple(t.shape)}, was "
                    "changed in place between forward and backward; rerunning the block would "
                    "use its new values. Run backward before changing it (optimizer.step())")
        after = default_generator.get_state()
        if self.rng is not None:
            default_generator.set_state(self.rng)
        _, recompute_context = _contexts(self.context_fn)
        try:
            with grad_mode.enable_grad(), amp.regions_restored(self.autocast), \
                    recompute_context:
                _, again = self.run(rerun=True)
        finally:
            default_generator.set_state(after)
        self.reruns += 1
        nodes = [ref() for ref in self.nodes]     # None: a node no longer in any graph
        if self.determinism_check == "default":
            self._compare(nodes, again)
        for first, second in zip(nodes, again):
            if first is not None and first._freed is self:   # not one backward released
                first._saved, first._freed = second._saved, False

    def _compare(self, nodes: list, again: list) -> None:
        from ..tensor import Tensor
        for k, (facts, second) in enumerate(zip(self.facts, again)):
            if facts != _facts(second):
                self._mismatch(f"op {k} was {_show(facts)} the first time and "
                               f"{_show(_facts(second))} the second", again)
        if len(again) != len(self.facts):
            n = len(self.facts)
            self._mismatch(f"the first run recorded {n} op{'' if n == 1 else 's'}, the "
                           f"second {len(again)}", again)
        # the same ops must read the same tensors: a node of the block at the same place,
        # else the very node or leaf from outside; a leaf that needs no gradient may be
        # made anew by each run (the constant 2 in h * 2, a mask)
        place = {id(node): k for k, node in enumerate(nodes) if node is not None}
        place_again = {id(node): k for k, node in enumerate(again)}
        for k, (first, second) in enumerate(zip(nodes, again)):
            if first is None:
                continue
            if first.needs_input_grad != second.needs_input_grad:
                self._mismatch(
                    f"op {k} ({first.name}) needed the gradients of its inputs "
                    f"{first.needs_input_grad} the first time and {second.needs_input_grad} "
                    "the second (a tensor's requires_grad changed between forward and "
                    "backward)", again)
            for i, (p, q) in enumerate(zip(first.parents, second.parents)):
                if id(p) in place:
                    same = place[id(p)] == place_again.get(id(q))
                else:       # (a node where a constant was: needs_input_grad differed)
                    same = p is q or isinstance(p, Tensor) and not p._requires_grad
                if not same:
                    shape = tuple(first.input_shapes[i])
                    self._mismatch(
                        f"op {k} ({first.name}) read another tensor as its input {i} (of "
                        f"shape {shape}) the second time (a lambda made in a loop reads the "
                        "loop's variable when it reruns: bind it, lambda h, layer=layer: "
                        "layer(h))", again)

    def _mismatch(self, what: str, again: list) -> None:
        message = (f"checkpoint: the block's second run differs from its first: {what}. The "
                   "block must record the same ops on the same tensors each time: keep "
                   "preserve_rng_state=True for random ops, and do not branch on state that "
                   "changes between forward and backward")
        if self.debug:
            message += ("\nfirst run:  " + ", ".join(_show(f) for f in self.facts)
                        + "\nsecond run: " + ", ".join(_show(_facts(n)) for n in again))
        else:
            message += " (debug=True lists both runs' ops)"
        raise CheckpointError(message)


class _Nodes(list):
    """Where a block's run collects its recorded ops: each op's node, not its output.

    Keeping the outputs (as ``keep_intermediates`` does) would keep every array the block
    makes alive until it ends, not only what its ops save: nearly twice the memory of
    the block's saved activations, in the first run and again in the rerun."""

    def append(self, out) -> None:
        super().append(out.grad_fn)


def _facts(node) -> tuple:
    return node.fn.op_name(), tuple(node.out_shape), str(node.out_dtype)


def _show(facts: tuple) -> str:
    name, shape, dtype = facts
    return f"{name} -> {shape} {dtype}"


def _contexts(context_fn: Callable) -> tuple:
    contexts = context_fn()
    if not (isinstance(contexts, tuple) and len(contexts) == 2):
        raise TypeError("checkpoint: context_fn must return two context managers (one for "
                        f"the first run, one for the second), got {type(contexts).__name__}")
    return contexts


def _check_options(use_reentrant, context_fn, determinism_check, debug, early_stop,
                   preserve_rng_state) -> None:
    if use_reentrant is not None and not isinstance(use_reentrant, bool):
        raise TypeError(f"checkpoint: use_reentrant must be True or False, got {use_reentrant!r}")
    if use_reentrant:
        raise ValueError(
            "checkpoint: use_reentrant=True is not supported: tinyffn implements PyTorch's "
            "non-reentrant form, which PyTorch recommends; pass use_reentrant=False")
    if determinism_check not in DETERMINISM_CHECKS:
        raise ValueError(f"checkpoint: determinism_check={determinism_check!r} is not one of "
                         f"{', '.join(map(repr, DETERMINISM_CHECKS))}")
    if not callable(context_fn):
        raise TypeError(f"checkpoint: context_fn must be callable, got {type(context_fn).__name__}")
    for name, value in (("debug", debug), ("early_stop", early_stop),
                        ("preserve_rng_state", preserve_rng_state)):
        if not isinstance(value, bool):
            raise TypeError(f"checkpoint: {name} must be True or False, got {value!r}")
