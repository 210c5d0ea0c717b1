"""Counting floating-point operations as ops run.

Each :class:`~tinyffn.autograd.Function` says what its forward costs (``flops``; a
matrix product of (m, k) by (k, n) costs 2·m·n·k, one multiply and one add per term; an
elementwise op one per output element; shape ops nothing). A backward is counted as the
forward's cost once per input that needs a gradient: exact for matmul, whose two
gradients are matrix products of the same size, and the right order of magnitude for the
cheap elementwise ops.
"""
from __future__ import annotations

from collections import defaultdict

from .grad_mode import STATE


class FlopCounter:
    """Count the FLOPs of every op run inside ``with FlopCounter() as c:``.

    Attributes:
        forward: op name -> FLOPs of forward passes (e.g. ``{"matmul": 16 * T * d * d}``).
        backward: op name -> FLOPs of backward passes.

    Example (the seed's 16·T·d² for an FFN forward)::

        >>> import tinyffn
        >>> x, w1, w2 = tinyffn.randn(3, 2), tinyffn.randn(2, 8), tinyffn.randn(8, 2)
        >>> with tinyffn.FlopCounter() as c:
        ...     y = (x @ w1).relu() @ w2
        >>> c.by_op["matmul"] == 16 * 3 * 2 ** 2
        True
    """

    def __init__(self) -> None:
        self.forward: dict = defaultdict(int)
        self.backward: dict = defaultdict(int)

    def add(self, op: str, phase: str, n: int) -> None:
        (self.forward if phase == "forward" else self.backward)[op] += int(n)

    @property
    def by_op(self) -> dict:
        """op name -> FLOPs of forward and backward together."""
        ops = dict.fromkeys(list(self.forward) + list(self.backward))
        return {op: self.forward.get(op, 0) + self.backward.get(op, 0) for op in ops}

    @property
    def total(self) -> int:
        return sum(self.forward.values()) + sum(self.backward.values())

    def table(self) -> str:
        """A plain-text table: one row per op, forward, backward and total FLOPs."""
        rows = [f"{'op':<12}{'forward':>16}{'backward':>16}{'total':>16}"]
        for op, n in sorted(self.by_op.items(), key=lambda kv: -kv[1]):
            rows.append(f"{op:<12}{self.forward.get(op, 0):>16,}{self.backward.get(op, 0):>16,}"
                        f"{n:>16,}")
        rows.append(f"{'all':<12}{sum(self.forward.values()):>16,}"
                    f"{sum(self.backward.values()):>16,}{self.total:>16,}")
        return "\n".join(rows)

    def __enter__(self) -> "FlopCounter":
        STATE.flop_counters.append(self)
        return self

    def __exit__(self, *exc) -> None:
        STATE.flop_counters.remove(self)

    def __repr__(self) -> str:
        return f"FlopCounter(total={self.total:,})"
