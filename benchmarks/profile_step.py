"""Where does one FFN training step spend its time? cProfile, summarised per op.

Usage::

    python benchmarks/profile_step.py [--activation relu] [--T 512] [--d 256] [--steps 20]
                                      [--threads N]

Prints three things:

1. the step's time next to its matrix products alone and the hand-written NumPy step
   (timed as in benchmarks/run.py), so the gap to explain is on screen, with the page
   faults each takes per step (memory the allocator gave back and must fault in again);
2. the time spent in each op's ``forward`` and ``backward`` (cumulative, so the NumPy
   calls inside an op count for that op), one line per Function subclass that ran, and
   what is left: the graph walk, tensor creation, module calls;
3. cProfile's own top functions by *self* time (``tottime``): NumPy's ufuncs and matmul
   are not Python functions, so their time shows up as the self time of the op method
   that called them.

cProfile adds a little to every Python call, so Python-heavy parts (the walk, small ops)
look somewhat bigger than they are; the NumPy work inside the ops is measured as is.
"""
from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
from pathlib import Path

if __package__ in (None, ""):       # run as a script: make `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import scipy.special

from benchmarks import machine, reference, run, timing
from tinyffn.autograd import Function


def function_classes() -> list:
    """Every Function subclass defined so far (the primitives and any fused op)."""
    found, stack = [], [Function]
    while stack:
        for sub in stack.pop().__subclasses__():
            found.append(sub)
            stack.append(sub)
    return found


def per_op_seconds(stats: pstats.Stats) -> dict:
    """op name -> {"forward": s, "backward": s, "calls": n}: cumulative time of its methods."""
    table = stats.stats            # (file, line, name) -> (calls, prim calls, tottime, cumtime, callers)
    ops = {}
    for cls in function_classes():
        for method in ("forward", "backward"):
            fn = cls.__dict__.get(method)
            code = getattr(getattr(fn, "__func__", fn), "__code__", None)
            key = code and (code.co_filename, code.co_firstlineno, code.co_name)
            if key in table:
                calls, _, _, cumtime, _ = table[key]
                entry = ops.setdefault(cls.op_name(), {"forward": 0.0, "backward": 0.0, "calls": 0})
                entry[method] += cumtime
                entry["calls"] += calls if method == "forward" else 0
    return ops


def main(argv: list | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python benchmarks/profile_step.py",
                                     description="cProfile one tinyffn FFN training step.")
    parser.add_argument("--activation", choices=reference.ACTIVATIONS, default="relu",
                        metavar="NAME", help=f"the FFN's activation, one of "
                        f"{', '.join(reference.ACTIVATIONS)}; +fused: the one-node forms "
                        "(default relu)")
    parser.add_argument("--T", type=run.positive, default=512,
                        help="positions T of the input (T, d) (default 512)")
    parser.add_argument("--d", type=run.positive, default=256,
                        help="model width d; d_ff = 4d, about 2/3 of that for swiglu (default 256)")
    parser.add_argument("--steps", type=run.positive, default=20,
                        help="steps profiled (default 20)")
    parser.add_argument("--top", type=run.positive, default=20,
                        help="cProfile lines shown (default 20)")
    parser.add_argument("--threads", type=run.positive, metavar="N",
                        help="cap BLAS at N threads (default: its own choice)")
    args = parser.parse_args(argv)
    with machine.threads_limited(args.threads):
        profile_step(args)
    return 0


def profile_step(args: argparse.Namespace) -> None:
    """Time the step against its GEMMs, then profile it and print the two summaries."""
    problem = run.FFNProblem.build(args.activation, args.T, args.d, "cpu")
    cpu = run.Device("cpu", np, scipy.special.erf, timing.no_sync, None, timing.no_sync)
    p, x, gy = problem.params, problem.x.data, problem.gy.data
    candidates = [timing.Candidate("gemm", lambda: reference.gemm_step(p, x, gy)),
                  timing.Candidate("tinyffn", problem.step),
                  timing.Candidate("handwritten", run.handwritten_candidate(problem, cpu))]
    t = timing.measure(candidates, warmup=2, budget_s=3.0, min_repeats=5, max_repeats=100)
    print(f"{args.activation} FFN step at (T, d, d_ff) = ({args.T}, {args.d}, {problem.d_ff}), "
          f"{t.repeats('tinyffn')} interleaved rounds:")
    print(f"  {'':<12}{'median ms':>10}{'min ms':>9}{'/ GEMMs':>9}{'page faults':>13}")
    for c in candidates:
        print(f"  {c.name:<12}{t.median_ms(c.name):>10.2f}{t.min_ms(c.name):>9.2f}"
              f"{t.ratio(c.name, 'gemm'):>9.2f}{t.page_faults[c.name]:>13.0f}")

    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(args.steps):
        problem.step()
    profiler.disable()
    stats = pstats.Stats(profiler)
    total = stats.total_tt

    ops = per_op_seconds(stats)
    per_step = 1e3 / args.steps
    print(f"\nper step under cProfile: {total * per_step:.2f} ms; by op (cumulative, ms/step):")
    print(f"  {'op':<12}{'calls':>6}{'forward':>10}{'backward':>10}{'share':>8}")
    in_ops = 0.0
    for name, e in sorted(ops.items(), key=lambda kv: -(kv[1]["forward"] + kv[1]["backward"])):
        both = e["forward"] + e["backward"]
        in_ops += both
        print(f"  {name:<12}{e['calls'] // args.steps:>6}{e['forward'] * per_step:>10.3f}"
              f"{e['backward'] * per_step:>10.3f}{both / total:>8.1%}")
    print(f"  {'outside ops':<12}{'':>6}{'':>10}{'':>10}{(total - in_ops) / total:>8.1%}"
          f"   ({(total - in_ops) * per_step:.3f} ms: graph walk, tensors, modules, checks)")

    print(f"\ntop {args.top} functions by self time (ms/step; NumPy calls count for their caller):")
    print(f"  {'calls':>6}{'self':>9}{'cumul.':>9}  function")
    names = qualified_names()
    rows = sorted(stats.stats.items(), key=lambda kv: -kv[1][2])[:args.top]
    for key, (calls, _, tottime, cumtime, _) in rows:
        print(f"  {calls / args.steps:>6.0f}{tottime * per_step:>9.3f}{cumtime * per_step:>9.3f}"
              f"  {names.get(key) or describe(key)}")


def qualified_names() -> dict:
    """(file, line, name) -> "MatMul.backward": readable names for cProfile's keys.

    cProfile knows a function by file, line and bare name (``backward``); Python knows
    the class it belongs to. Walk the loaded tinyffn and benchmarks modules to match them.
    """
    names = {}
    for module_name, module in list(sys.modules.items()):
        if not module_name.startswith(("tinyffn", "benchmarks")):
            continue
        for obj in vars(module).values():
            members = vars(obj).values() if isinstance(obj, type) else [obj]
            for member in members:
                fn = getattr(member, "__func__", getattr(member, "fget", member))
                code = getattr(fn, "__code__", None)
                if code is not None:
                    names[(code.co_filename, code.co_firstlineno, code.co_name)] = fn.__qualname__
    return names


def describe(key: tuple) -> str:
    """cProfile's key as text: ``shape.py:14(sum_to_shape)`` or ``{method 'astype' ...}``."""
    filename, line, name = key
    return name if filename == "~" else f"{Path(filename).name}:{line}({name})"


if __name__ == "__main__":
    sys.exit(main())
