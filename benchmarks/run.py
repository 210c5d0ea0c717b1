"""How fast is tinyffn, and how far from the hardware's limit? Measured side by side.

Usage::

    python benchmarks/run.py [--device cpu|cuda] [--json out.json] [--quick]
                             [--sections ffn,overhead,chain,memory] [--threads N]
                             [--stat median|min]

Sections (each a function below, each printing one table):

1. ``ffn``: one FFN training step (forward, then backward to all parameter gradients and
   dL/dx), float32, for ReLU, exact GELU, tanh GELU, Swish and SwiGLU (rows marked
   ``+fused`` use ``fused=True``: one-node Linears and activations), against (a) its
   matrix products alone, (b) the same step written by hand with NumPy (CuPy on a GPU)
   and (c) PyTorch when installed. Before anything is timed, the gradients of all three
   are checked against each other: a benchmark of a wrong computation is worthless.
2. ``overhead``: a chain of 2,000 elementwise ops on a tensor of 4 numbers, forward and
   backward: here the arithmetic is nothing and the time is the engine's per-op
   bookkeeping (Python calls, graph nodes), in microseconds per op.
3. ``chain``: a chain of 100,000 such ops: building it and backpropagating through it
   (the walk is iterative, so it must neither crash nor crawl).
4. ``memory``: the peak memory of one FFN step against the least it could be.

On ``--device cuda`` the FFN section starts with (T, d) = (8192, 4096) and, right after
it, tinyffn's throughput as a fraction of PyTorch's and its TFLOP/s at that size (issue
6's GPU target); the other sizes follow.
``--quick`` runs tiny sizes with one or two repeats, to check that the harness works
(the test suite runs it); its times mean nothing. ``--json`` writes every number.

How times are taken (warm-up, interleaved rounds, medians, a fresh process per FFN
configuration) is explained in benchmarks/timing.py; the references in
benchmarks/reference.py; memory measurement in benchmarks/memory.py. On a small shared
machine, read the ``noise`` column before the ratios: ``--threads 1`` and ``--stat min``
give steadier numbers when other work shares the cores.
"""
from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

if __package__ in (None, ""):       # run as a script: make `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

import tinyffn
from benchmarks import machine, memory, reference, timing
from benchmarks.reference import ACTIVATIONS
from benchmarks.timing import Candidate
from tinyffn import nn
from tinyffn.__main__ import positive

SECTIONS = ("ffn", "overhead", "chain", "memory")
RATIOS = (("tinyffn", "gemm"), ("handwritten", "gemm"), ("torch", "gemm"), ("tinyffn", "torch"))


@dataclass(frozen=True)
class Settings:
    """How much to measure: sizes and repeat counts (the defaults, or ``--quick``)."""

    ffn_sizes: tuple            # (T, d) pairs; d_ff = 4d (SwiGLU: its default d_ff)
    cuda_extra_sizes: tuple     # added on --device cuda
    warmup: int                 # untimed calls of each candidate before timing
    budget_s: float             # seconds of timed rounds aimed for per FFN configuration
    min_repeats: int
    max_repeats: int
    overhead_ops: int           # length of the per-op overhead chain
    overhead_repeats: int
    chain_ops: int              # length of the long chain
    chain_repeats: int
    memory_sizes: tuple         # (T, d) pairs for the peak-memory section
    fresh_processes: bool       # time each FFN configuration in new processes (see timing.py)
    stat: str = "median"        # what the FFN table prints: "median" or "min" (JSON has both)
    threads: int | None = None  # --threads: cap BLAS/OpenMP/PyTorch threads (None: their own)


DEFAULT = Settings(ffn_sizes=((64, 64), (512, 256), (2048, 512), (1024, 1024)),
                   cuda_extra_sizes=((8192, 4096),), warmup=2,
                   budget_s=4.0, min_repeats=5, max_repeats=50,
                   overhead_ops=2_000, overhead_repeats=15,
                   chain_ops=100_000, chain_repeats=3,
                   memory_sizes=((512, 256), (2048, 512)), fresh_processes=True)
QUICK = Settings(ffn_sizes=((16, 16), (32, 32)), cuda_extra_sizes=(), warmup=1, budget_s=0.0,
                 min_repeats=2, max_repeats=2,
                 overhead_ops=200, overhead_repeats=2,
                 chain_ops=1_000, chain_repeats=1,
                 memory_sizes=((32, 16),), fresh_processes=False)


class WrongResultError(RuntimeError):
    """tinyffn's step disagrees with the hand-written or PyTorch one: nothing is timed."""


# ----------------------------------------------------------------------------- devices
@dataclass
class Device:
    """The device under test and what runs on it besides tinyffn.

    Attributes:
        name: ``"cpu"`` or ``"cuda"``.
        xp, erf: the array module and erf function of the hand-written step (NumPy and
            SciPy's erf on the CPU, CuPy and cupyx's erf on the GPU).
        sync: waits until the device has finished the work queued so far.
        torch: the PyTorch module when it is installed and can use this device, else None.
        torch_sync: PyTorch's wait for the device.
        torch_note: why PyTorch is missing, when it is.
    """

    name: str
    xp: Any
    erf: Callable
    sync: Callable[[], None]
    torch: Any
    torch_sync: Callable[[], None]
    torch_note: str = ""

    @property
    def hand_label(self) -> str:
        return "cupy" if self.name == "cuda" else "numpy"


def open_device(name: str, with_torch: bool = True) -> Device:
    """The :class:`Device` for ``name``; raises tinyffn's DeviceError if it is unusable.

    With ``with_torch=False`` PyTorch is not even imported (see :func:`measure_numpy_family`).
    """
    tinyffn.backend.get_backend(name)          # fails early, with tinyffn's own message
    if name == "cuda":
        import cupy
        import cupyx.scipy.special
        xp, erf, sync = cupy, cupyx.scipy.special.erf, cupy.cuda.Device().synchronize
    else:
        import scipy.special
        xp, erf, sync = np, scipy.special.erf, timing.no_sync
    torch, note = load_torch(name) if with_torch else (None, "PyTorch not loaded")
    torch_sync = torch.cuda.synchronize if torch is not None and name == "cuda" else timing.no_sync
    return Device(name, xp, erf, sync, torch, torch_sync, note)


def load_torch(device: str) -> tuple:
    """(torch, "") if PyTorch is installed and can run on ``device``, else (None, reason)."""
    try:
        import torch
    except ImportError:
        return None, "PyTorch is not installed"
    if device == "cuda" and not torch.cuda.is_available():
        return None, f"PyTorch {torch.__version__} cannot use the GPU"
    return torch, ""


def to_numpy(a: Any) -> np.ndarray:
    """A NumPy copy of a NumPy or CuPy array."""
    return a.get() if hasattr(a, "get") else np.array(a)


# ----------------------------------------------------------------------------- 1. FFN step
def ffn_width(activation: str, d: int) -> int:
    """d_ff: 4d for the plain FFN; SwiGLU's default, 2/3 of 4d (the same parameter count)."""
    return nn.gated_d_ff(d) if reference.is_gated(activation) else 4 * d


@dataclass
class FFNProblem:
    """One FFN training step in tinyffn: the module, its input x (T, d), the cotangent gy.

    ``step()`` is the step the harness times: ``y = ffn(x); y.backward(gy)``, after
    clearing the gradients of the previous step (so no step pays for accumulating).
    """

    activation: str
    ffn: Any
    x: Any
    gy: Any

    @classmethod
    def build(cls, activation: str, T: int, d: int, device: str, seed: int = 0) -> "FFNProblem":
        tinyffn.manual_seed(seed)
        fused = activation != reference.base_activation(activation)
        if reference.is_gated(activation):
            ffn = nn.GatedFFN(d, ffn_width(activation, d), activation="swish", device=device,
                              fused=fused)
        else:
            ffn = nn.FFN(d, ffn_width(activation, d), device=device, fused=fused,
                         activation=reference.base_activation(activation))
        x = tinyffn.randn(T, d, requires_grad=True, device=device)
        gy = tinyffn.randn(T, d, device=device)                      # a fixed random dL/dy
        return cls(activation, ffn, x, gy)

    @property
    def d_ff(self) -> int:
        return self.ffn.d_ff

    @property
    def params(self) -> dict:
        """The parameter arrays by name (``"w1.weight"``, ...), shared, not copied."""
        return {name: p.data for name, p in self.ffn.named_parameters()}

    def clear_grads(self) -> None:
        self.ffn.zero_grad()
        self.x.grad = None

    def step(self) -> Any:
        self.clear_grads()
        y = self.ffn(self.x)                    # (T, d)
        y.backward(self.gy)
        return y

    def grads(self) -> dict:
        """After ``step()``: every gradient as a NumPy array, keyed like ``params`` + "x"."""
        g = {name: p.grad.numpy() for name, p in self.ffn.named_parameters()}
        g["x"] = self.x.grad.numpy()
        return g


def handwritten_candidate(problem: FFNProblem, dev: Device) -> Callable[[], tuple]:
    """The hand-written step (reference (b)) on the problem's own arrays."""
    p, x, gy = problem.params, problem.x.data, problem.gy.data
    return lambda: reference.handwritten_step(p, x, gy, problem.activation, dev.xp, dev.erf)


def torch_candidate(problem: FFNProblem, dev: Device) -> tuple:
    """PyTorch's step (reference (c)) on copies of the problem's values: (step, leaves)."""
    p = {name: to_numpy(a) for name, a in problem.params.items()}
    return reference.make_torch_step(dev.torch, p, problem.x.numpy(), problem.gy.numpy(),
                                     problem.activation, dev.name)


def check_gradients(activation: str, T: int, d: int, dev: Device) -> None:
    """Raise :class:`WrongResultError` unless tinyffn's y and gradients match the others'.

    tinyffn is compared with the hand-written step and with PyTorch (when present) on
    the same values, array by array: y and every gradient (each parameter's and x's).
    """
    problem = FFNProblem.build(activation, T, d, dev.name)
    tiny_y = to_numpy(problem.step().data)
    tiny = {"y": tiny_y, **problem.grads()}
    y, grads = handwritten_candidate(problem, dev)()
    references = {dev.hand_label: {"y": to_numpy(y), **{k: to_numpy(g) for k, g in grads.items()}}}
    if dev.torch is not None:
        step, leaves = torch_candidate(problem, dev)
        y = step().detach().cpu().numpy()
        references["torch"] = {"y": y, **{k: t.grad.cpu().numpy() for k, t in leaves.items()}}
    where = f"{activation} FFN at (T, d) = ({T}, {d})"
    for other, arrays in references.items():
        if set(arrays) != set(tiny):
            raise WrongResultError(f"{where}: tinyffn produced {sorted(tiny)}, {other} "
                                   f"produced {sorted(arrays)}")
        for name, want in arrays.items():
            check_close(f"{where}: tinyffn's {name} against {other}'s", tiny[name], want)


def check_close(what: str, got: np.ndarray, want: np.ndarray) -> None:
    """Raise :class:`WrongResultError` unless ``got`` is float32 and equals ``want`` within
    float32 tolerance: each entry within 1e-4 of its value plus 1e-4 of the largest value.

    (float32 sums of a few hundred terms, added in different orders, differ by ~1e-6.)
    """
    if got.dtype != np.float32 or got.shape != want.shape:
        raise WrongResultError(f"{what}: got dtype {got.dtype}, shape {got.shape}; expected "
                               f"float32, shape {want.shape}")
    err = np.abs(got.astype(np.float64) - want)
    tol = 1e-4 * np.abs(want) + 1e-4 * float(np.max(np.abs(want)))
    if not np.all(err <= tol):
        worst = np.unravel_index(np.argmax(err - tol), err.shape)
        raise WrongResultError(f"{what}: entry {tuple(int(i) for i in worst)} is "
                               f"{got[worst]:.6g}, expected {want[worst]:.6g} (tolerance "
                               f"{tol[worst]:.2g}); fix the engine before timing it")


def measure_numpy_family(activation: str, T: int, d: int, device: str, cfg: Settings,
                         problem: FFNProblem | None = None) -> timing.Timings:
    """Time the GEMMs, tinyffn and the hand-written step, interleaved, in this process.

    PyTorch is not imported here: its threads and its use of the C allocator would change
    what these three cost (see :func:`timing.in_fresh_process`); it is timed on its own.
    ``problem``: one already built (in-process runs share it with :func:`measure_torch`).
    """
    dev = open_device(device, with_torch=False)
    with machine.threads_limited(cfg.threads):
        problem = problem or FFNProblem.build(activation, T, d, device)
        p, x, gy = problem.params, problem.x.data, problem.gy.data
        candidates = [Candidate("gemm", lambda: reference.gemm_step(p, x, gy), dev.sync),
                      Candidate("tinyffn", problem.step, dev.sync),
                      Candidate("handwritten", handwritten_candidate(problem, dev), dev.sync)]
        return timing.measure(candidates, cfg.warmup, cfg.budget_s, cfg.min_repeats,
                              cfg.max_repeats)


def measure_torch(activation: str, T: int, d: int, device: str, cfg: Settings,
                  problem: FFNProblem | None = None) -> timing.Timings:
    """Time PyTorch's step on the same values, alone."""
    dev = open_device(device)
    with machine.threads_limited(cfg.threads, dev.torch):
        step, _ = torch_candidate(problem or FFNProblem.build(activation, T, d, device), dev)
        return timing.measure([Candidate("torch", step, dev.torch_sync)], cfg.warmup,
                              cfg.budget_s, cfg.min_repeats, cfg.max_repeats)


def bench_ffn_config(activation: str, T: int, d: int, dev: Device, cfg: Settings) -> dict:
    """Time one configuration: GEMMs, tinyffn, hand-written, torch; one JSON row.

    By default the first three run in one new process and PyTorch in another (with
    ``--quick``, in this process: quicker, and its times mean nothing anyway).
    """
    if cfg.fresh_processes:         # each process builds its own (same seed, same values)
        t = timing.in_fresh_process(measure_numpy_family, activation, T, d, dev.name, cfg)
        if dev.torch is not None:
            t = t.merged(timing.in_fresh_process(measure_torch, activation, T, d, dev.name, cfg))
    else:   # built once: at (8192, 4096) on a GPU, building is ~5 s of random numbers
        problem = FFNProblem.build(activation, T, d, dev.name)
        t = measure_numpy_family(activation, T, d, dev.name, cfg, problem)
        if dev.torch is not None:
            t = t.merged(measure_torch(activation, T, d, dev.name, cfg, problem))
        del problem
    names = list(t.seconds)
    pairs = [(a, b) for a, b in RATIOS if a in names and b in names]
    d_ff = ffn_width(activation, d)
    return {"activation": activation, "T": T, "d": d, "d_ff": d_ff,
            "repeats": {n: t.repeats(n) for n in names},
            "gemm_flops": reference.gemm_flops(T, d, d_ff, activation),
            "ms": {n: t.median_ms(n) for n in names},
            "min_ms": {n: t.min_ms(n) for n in names},
            "ratios": {f"{a}/{b}": t.ratio(a, b) for a, b in pairs},
            "min_ratios": {f"{a}/{b}": t.min_ratio(a, b) for a, b in pairs},
            "noise": t.noise(),
            "page_faults": t.page_faults,
            "times_ms": t.as_dict()}


def bench_ffn(dev: Device, cfg: Settings, rows: list | None = None,
              after_row: Callable[[], None] = lambda: None) -> list:
    """Section 1: the FFN training step, every activation at every size.

    Measures wall time per step (median over interleaved rounds, see benchmarks/timing.py)
    and the ratios that tell where tinyffn stands: against the matrix products alone (the
    floor: nothing but BLAS), against a hand-written step (what a careful user of the array
    library gets without an engine) and against PyTorch (a production engine). Each row
    is appended to ``rows`` as soon as it is measured, then ``after_row()`` is called (the
    JSON file is saved there).
    """
    # on the GPU its target's size comes first, with its summary: a run that
    # benchmarks/gpu_check.sh stops at its time limit still has them
    sizes = (cfg.cuda_extra_sizes if dev.name == "cuda" else ()) + cfg.ffn_sizes
    T0, d0 = min(sizes, key=lambda s: s[0] * s[1])
    for activation in ACTIVATIONS:
        check_gradients(activation, T0, d0, dev)
    checked = f"tinyffn, {dev.hand_label}" + (", torch" if dev.torch is not None else "")
    print("\n1. FFN training step, float32: y = ffn(x); y.backward(gy), all gradients incl. dL/dx")
    print(f"   gradients checked equal ({checked}) at (T, d) = ({T0}, {d0}) for every activation")
    where = "in new processes (torch in its own)" if cfg.fresh_processes else "in this process"
    print(f"   ms: {'median' if cfg.stat == 'median' else 'fastest'} round, after warm-up; "
          f"GEMMs, tinyffn and {dev.hand_label} interleaved {where}")
    print("   noise: worst median/min of the row (1.00 = quiet machine; above ~1.3, rerun); "
          "faults: tinyffn's page faults per step" + (f"; {dev.torch_note}" if dev.torch_note else ""))
    rows = [] if rows is None else rows
    for T, d in sizes:
        for activation in ACTIVATIONS:
            rows.append(bench_ffn_config(activation, T, d, dev, cfg))
            print_ffn_row(rows[-1], dev, cfg.stat, header=len(rows) == 1)
            after_row()
        if dev.name == "cuda" and (T, d) == sizes[0]:
            print_throughput_against_torch(rows, cfg)
    return rows


def print_throughput_against_torch(rows: list, cfg: Settings) -> None:
    """Issue 6's GPU target, read off the rows so far: at their largest size, tinyffn's
    steps per second as a fraction of PyTorch's (torch ms / tinyffn ms; target >= 0.8)."""
    T, d = max(((r["T"], r["d"]) for r in rows), key=lambda s: s[0] * s[1])
    key = "ms" if cfg.stat == "median" else "min_ms"
    print(f"\n   throughput against PyTorch at (T, d) = ({T}, {d}), torch ms / tinyffn ms "
          "(issue 6's target: >= 0.8):")
    for r in rows:
        if (r["T"], r["d"]) == (T, d) and "torch" in r[key]:
            ms = r[key]
            tflops = r["gemm_flops"] / (ms["tinyffn"] * 1e-3) / 1e12
            print(f"   {r['activation']:<12} {ms['torch'] / ms['tinyffn']:.2f}   "
                  f"(tinyffn: {tflops:.3g} TFLOP/s, the step's matmul FLOPs over its time)")


def print_ffn_row(row: dict, dev: Device, stat: str, header: bool) -> None:
    """One line of the FFN table (printed as soon as it is measured).

    ``stat`` picks the summary printed: "median" or "min" (the fastest round of each);
    ratios are of those times. ``noise`` is the worst median / min of the row's
    candidates (well above 1: the row was disturbed); ``faults`` tinyffn's page faults
    per step (memory the allocator gave back to the OS and faults in again).
    """
    ms = row["ms"] if stat == "median" else row["min_ms"]
    ratios = row["ratios"] if stat == "median" else row["min_ratios"]
    long = {"gemm": "GEMMs", "tinyffn": "tinyffn", "handwritten": dev.hand_label, "torch": "torch"}
    short = {**long, "gemm": "GEMM", "tinyffn": "tiny"}                 # for the ratio headers
    cols = [("activation", 12, row["activation"]), ("T", 5, row["T"]), ("d", 5, row["d"]),
            ("d_ff", 5, row["d_ff"]), ("reps", 4, row["repeats"]["tinyffn"]),
            ("noise", 5, f"{row['noise']:.2f}"), ("faults", 6, f"{row['page_faults']['tinyffn']:.0f}")]
    for name in long:
        if name in ms:
            cols.append((f"{long[name]} ms", 10, fmt(ms[name])))
    for key, value in ratios.items():
        a, b = key.split("/")
        label = f"{short[a]}/{short[b]}"
        cols.append((label, max(len(label), 5), f"{value:.2f}"))
    if dev.name == "cuda":
        cols += [(f"TFLOP/s {long[n]}", 13, f"{row['gemm_flops'] / (ms[n] * 1e-3) / 1e12:.3g}")
                 for n in ("tinyffn", "gemm", "torch") if n in ms]
    if header:
        print("  ".join(f"{h:>{w}}" if i else f"{h:<{w}}" for i, (h, w, _) in enumerate(cols)))
    print("  ".join(f"{v:>{w}}" if i else f"{v:<{w}}" for i, (_, w, v) in enumerate(cols)),
          flush=True)


def fmt(ms: float) -> str:
    """Milliseconds with three significant figures, never in scientific notation."""
    return f"{ms:.0f}" if ms >= 100 else f"{ms:.1f}" if ms >= 10 else f"{ms:.2f}" if ms >= 1 \
        else f"{ms:.3f}"


# ----------------------------------------------------------------------------- 2, 3. chains
def build_chain(x: Any, n_ops: int) -> Any:
    """``n_ops`` elementwise ops on ``x``: tanh and multiplication by 1.0, alternating.

    Written once for tinyffn and PyTorch tensors alike. The factor 1.0 keeps the values in
    tanh's near-linear range, so neither values nor gradients decay to subnormal numbers
    (whose slow arithmetic would swamp what is measured); the multiplication still goes
    through each engine's handling of a Python number.
    """
    y = x
    for _ in range(n_ops // 2):
        y = y.tanh() * 1.0
    return y


@dataclass
class ChainEngine:
    """How to make a chain's leaf and its cotangent in one engine, and wait for it."""

    name: str
    leaf: Callable[[], Any]             # x, shape (4,), requires grad
    ones_like: Callable[[Any], Any]     # the cotangent for y.backward
    sync: Callable[[], None]


def chain_engines(dev: Device) -> list:
    """tinyffn, and PyTorch when present, on the device under test."""
    values = np.linspace(-1, 1, 4, dtype=np.float32)
    engines = [ChainEngine(
        "tinyffn",
        lambda: tinyffn.tensor(values, requires_grad=True, device=dev.name),
        lambda y: tinyffn.ones(*y.shape, device=dev.name),
        dev.sync)]
    if dev.torch is not None:
        torch, where = dev.torch, "cuda" if dev.name == "cuda" else "cpu"
        engines.append(ChainEngine(
            "torch",
            lambda: torch.tensor(values, device=where, requires_grad=True),
            torch.ones_like,
            dev.torch_sync))
    return engines


def time_chain(engine: ChainEngine, n_ops: int) -> tuple:
    """(seconds to build the chain, seconds to backpropagate through it), one run."""
    x = engine.leaf()
    engine.sync()
    start = time.perf_counter()
    y = build_chain(x, n_ops)
    engine.sync()
    built = time.perf_counter()
    y.backward(engine.ones_like(y))
    engine.sync()
    done = time.perf_counter()
    return built - start, done - built


def time_chains(dev: Device, n_ops: int, repeats: int) -> dict:
    """Median build and backward seconds per engine, runs interleaved across engines."""
    engines = chain_engines(dev)
    for engine in engines:                               # warm-up
        time_chain(engine, min(n_ops, 200))
    runs = {e.name: [] for e in engines}
    for _ in range(repeats):
        for engine in engines:
            gc.collect()                                 # free the last chain outside the clock
            runs[engine.name].append(time_chain(engine, n_ops))
    return {name: {"build_s": statistics.median(b for b, _ in rs),
                   "backward_s": statistics.median(g for _, g in rs)}
            for name, rs in runs.items()}


def bench_overhead(dev: Device, cfg: Settings) -> dict:
    """Section 2: per-op overhead, in microseconds per op, forward and backward.

    On a tensor of 4 numbers an op's arithmetic takes nanoseconds; what is measured is
    everything else an engine does per op: Python calls, checks, creating the output
    tensor and its graph node, and in backward visiting the node and accumulating its
    gradient. This is the cost that dominates small models and long elementwise chains.
    """
    n = cfg.overhead_ops
    medians = time_chains(dev, n, cfg.overhead_repeats)
    result = {"n_ops": n, "shape": [4], "repeats": cfg.overhead_repeats}
    print(f"\n2. Per-op overhead: {n:,} elementwise ops (tanh, * 1.0) on shape (4,), "
          f"median of {cfg.overhead_repeats}")
    print(f"{'engine':<10}{'forward us/op':>15}{'backward us/op':>16}{'total us/op':>13}")
    for name, m in medians.items():
        row = {"forward_us_per_op": 1e6 * m["build_s"] / n,
               "backward_us_per_op": 1e6 * m["backward_s"] / n}
        row["total_us_per_op"] = row["forward_us_per_op"] + row["backward_us_per_op"]
        result[name] = row
        print(f"{name:<10}{row['forward_us_per_op']:>15.2f}{row['backward_us_per_op']:>16.2f}"
              f"{row['total_us_per_op']:>13.2f}")
    if "torch" in result:
        result["tinyffn/torch"] = result["tinyffn"]["total_us_per_op"] / \
            result["torch"]["total_us_per_op"]
        print(f"tinyffn / torch: {result['tinyffn/torch']:.2f}")
    return result


def bench_chain(dev: Device, cfg: Settings) -> dict:
    """Section 3: a 100,000-op chain, build and backward seconds.

    A recursive graph walk would overflow Python's stack long before this length; an
    iterative one must also stay linear in the number of nodes (no quadratic list
    operations), which the backward time shows. Python's cyclic garbage collector stays
    on, as in a user's program: every graph node is a few Python objects, and the
    collector's passes over a growing graph show up in the build time.
    """
    n = cfg.chain_ops
    medians = time_chains(dev, n, cfg.chain_repeats)
    result = {"n_ops": n, "repeats": cfg.chain_repeats, **medians}
    print(f"\n3. Long chain: {n:,} elementwise ops on shape (4,), median of {cfg.chain_repeats}")
    print(f"{'engine':<10}{'build s':>10}{'backward s':>12}")
    for name, m in medians.items():
        print(f"{name:<10}{m['build_s']:>10.3f}{m['backward_s']:>12.3f}")
    return result


# ----------------------------------------------------------------------------- 4. memory
def bench_memory(dev: Device, cfg: Settings) -> list:
    """Section 4: peak memory of one ReLU FFN training step against its analytic minimum.

    Measured on the CPU whatever ``--device`` says (tracemalloc sees host memory only).
    peak = the arrays alive before the step (parameters, x, gy) + the most the step adds
    at any moment; the minimum is :func:`memory.analytic_minimum_bytes`. Each step runs once
    untimed first, so caches filled on first use are not counted. The same is measured
    for the hand-written NumPy step (tracemalloc) and PyTorch (its profiler).
    """
    cpu = dev if dev.name == "cpu" else open_device("cpu")
    MB = 2 ** 20
    print("\n4. Peak memory of one ReLU FFN training step (CPU; MB = 2**20 bytes)")
    print("   peak = parameters + x + gy + the most allocated during the step "
          "(tracemalloc; torch: its profiler's allocation events)")
    print(f"{'T':>5}{'d':>6}{'minimum MB':>12}{'tinyffn MB':>12}{'ratio':>7}{'+fused MB':>11}"
          f"{'ratio':>7}{'numpy MB':>10}{'ratio':>7}"
          + (f"{'torch MB':>10}{'ratio':>7}" if cpu.torch is not None else ""))
    rows = []
    for T, d in cfg.memory_sizes:
        problem = FFNProblem.build("relu", T, d, "cpu")
        before = sum(a.nbytes for a in problem.params.values()) \
            + problem.x.data.nbytes + problem.gy.data.nbytes
        minimum = memory.analytic_minimum_bytes(T, d, problem.d_ff)
        fused = FFNProblem.build("relu+fused", T, d, "cpu")     # same seed, same values
        peaks = {}
        for name, fn, owner in (("tinyffn", problem.step, problem),
                                ("tinyffn+fused", fused.step, fused),
                                ("handwritten", handwritten_candidate(problem, cpu), problem)):
            fn()                                # a first, unmeasured run fills caches
            owner.clear_grads()
            peaks[name] = before + memory.traced_peak_bytes(fn)
            owner.clear_grads()
        if cpu.torch is not None:
            step, leaves = torch_candidate(problem, cpu)
            step()
            for t in leaves.values():           # a free counted during the step would
                t.grad = None                   # hide as much allocation
            extra = memory.torch_peak_bytes(cpu.torch, step)
            peaks["torch"] = None if extra is None else before + extra
        rows.append({"activation": "relu", "T": T, "d": d, "d_ff": problem.d_ff,
                     "minimum_bytes": minimum, "peak_bytes": peaks,
                     "ratio": {k: None if v is None else v / minimum for k, v in peaks.items()}})
        cells = [f"{T:>5}{d:>6}{minimum / MB:>12.2f}"]
        for name, width in (("tinyffn", 12), ("tinyffn+fused", 11), ("handwritten", 10),
                            ("torch", 10)):
            if name in peaks:
                v = peaks[name]
                cells.append(f"{'n/a':>{width}}{'':>7}" if v is None
                             else f"{v / MB:>{width}.2f}{v / minimum:>7.2f}")
        print("".join(cells))
    return rows


# ----------------------------------------------------------------------------- main
def parse_args(argv: list | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python benchmarks/run.py",
        description="Benchmark tinyffn against BLAS, hand-written NumPy and PyTorch.")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                        help="where tinyffn and PyTorch run (default: cpu; cuda needs CuPy)")
    parser.add_argument("--json", metavar="PATH", help="also write every result to this file")
    parser.add_argument("--quick", action="store_true",
                        help="tiny sizes, 1-2 repeats: checks the harness, times mean nothing")
    parser.add_argument("--threads", type=positive, metavar="N",
                        help="cap BLAS, OpenMP and PyTorch at N threads (default: their own "
                             "choice); 1 gives steadier times on a busy machine")
    parser.add_argument("--stat", choices=("median", "min"), default="median",
                        help="what the FFN table prints (the JSON holds both): the median "
                             "round (the default), or the fastest (steadier on a busy machine)")
    parser.add_argument("--sections", default=",".join(SECTIONS),
                        help=f"comma-separated subset of {','.join(SECTIONS)} (default: all)")
    args = parser.parse_args(argv)
    args.sections = [s.strip() for s in args.sections.split(",") if s.strip()]
    unknown = [s for s in args.sections if s not in SECTIONS]
    if unknown:
        parser.error(f"unknown section(s) {', '.join(unknown)}; choose from {', '.join(SECTIONS)}")
    return args


def main(argv: list | None = None) -> int:
    """Run the chosen sections, print their tables, write JSON; returns the exit status."""
    args = parse_args(argv)
    cfg = dataclasses.replace(QUICK if args.quick else DEFAULT, stat=args.stat,
                              threads=args.threads)
    if args.device == "cuda" and not args.quick:
        # CuPy and PyTorch keep their own GPU memory pools, so the glibc effect that fresh
        # processes guard against on the CPU does not apply, while each new process would
        # pay CUDA's start-up; and GPU steps are short, so 2 s of rounds per row suffice
        # (benchmarks/gpu_check.sh must finish in minutes)
        cfg = dataclasses.replace(cfg, fresh_processes=False, budget_s=2.0)
    try:
        dev = open_device(args.device)
    except tinyffn.DeviceError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    with machine.threads_limited(args.threads, dev.torch):
        try:
            run_sections(args.sections, dev, cfg, args.quick, args.json)
        except WrongResultError as e:
            print(f"\nerror: wrong result, nothing timed: {e}", file=sys.stderr)
            return 1
    if args.json:
        print(f"wrote {args.json}")
    return 0


def run_sections(sections: list, dev: Device, cfg: Settings, quick: bool,
                 json_path: str | None = None) -> dict:
    """Print the machine, then each section's table; returns everything for the JSON.

    The JSON file, if asked for, is written before the first section, after each FFN row
    and after each section, so a run stopped part-way (benchmarks/gpu_check.sh's time
    limit) keeps what it measured, and leaves no earlier run's file behind.
    """
    info = machine.machine_info(dev.name, dev.torch)
    print(f"tinyffn benchmarks on {dev.name}{' (--quick: times mean nothing)' if quick else ''}")
    print(machine.describe(info))
    results = {"machine": info, "quick": quick}
    run_section = {"overhead": bench_overhead, "chain": bench_chain, "memory": bench_memory}

    def save() -> None:
        if json_path:
            Path(json_path).write_text(json.dumps(results, indent=1))

    started, results["elapsed_s"] = time.perf_counter(), 0.0
    save()
    for name in sections:
        if name == "ffn":               # the longest section: saved row by row
            results["ffn"] = []
            bench_ffn(dev, cfg, results["ffn"], save)
        else:
            results[name] = run_section[name](dev, cfg)
        results["elapsed_s"] = time.perf_counter() - started
        save()
    print(f"\n(took {results['elapsed_s']:.0f} s)")
    return results


if __name__ == "__main__":
    sys.exit(main())
