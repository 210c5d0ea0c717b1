"""Activation checkpointing on a deep stack of FFN blocks: memory against compute.

    python demos/checkpointing.py [--device cpu|cuda|strict] [--out DIR] [--quick]
                                  [--layers L] [--tokens T] [--d D] [--repeats N]

The stack: L pre-norm residual blocks, each x + FFN(LayerNorm(x)) with d_ff = 4d and
GELU (a transformer without its attention), on T positions; the loss is mean(h²) of the
last output. One training step (forward and backward; the optimizer's update is the same
whatever is checkpointed, so it is left out) is run plainly and with
``checkpoint_sequential(stack, k, x)`` for k from 1 to L (the divisors of L and
L // 2 + 1; ``--all-k``: every k). As PyTorch's, it cuts
the L blocks into k-1 segments of m = L // k blocks, each checkpointed, and a last
segment of the n = L - (k-1)·m blocks left over, run plainly (k = 1: nothing is
checkpointed).

What a block saves for backward, counted from its ops (float32 entries; A for short):

    LayerNorm    x - μ and x̂ (T, d) each, 1/σ and var + eps (T, 1) each
    W1           its input LayerNorm(x)                               (T, d)
    GELU         erf's input a/√2, a, and ½(1 + erf) (T, d_ff) each   3 · 4·T·d
    W2           its input GELU(a)                                    (T, d_ff)
    A = 3·T·d + 16·T·d + 2·T = 19·T·d + 2·T

The block's input is saved by nobody (LayerNorm's first ops, a mean and a subtraction,
save nothing), so a plain step holds L·A between forward and backward. A checkpointed
segment holds only its input, s = T·d entries, once forward has passed it (the first
segment's input is x, there already). So the model of what is held until backward is

    held(k) = (k - 2)⁺ · s + n · A + s        (the last s: the loss's saved copy of h)

(in bytes, 4 per entry, plus the loss itself and, per checkpointed segment, the 45-byte
random generator state it keeps for its rerun: the tests check it byte for byte)

and in backward, when a segment reruns, its m blocks' A come back on top of the
boundaries not yet reached, plus the parameters' gradients G (which backward makes):

    peak(k) ≈ (k - 2)⁺ · s + max(n, m) · A + s + G

leaving out the temporaries of the op running at the peak (a few (T, d_ff) arrays) and,
on the CPU, the graph's Python objects, which tracemalloc counts in the peak. Where the
last segment is the longer (n > m) it also counts too much: backward frees the last
segment's A as it makes their gradients, so n · A and all of G are never alive at once
(the plain step's peak is below the model).

Chen et al. (2016, "Training Deep Nets with Sublinear Memory Cost") minimise k·s +
(L/k)·A: k* = √(L·A/s). Their O(√L) is the case A = s, a layer saving about what it
passes on. A pre-norm FFN block saves about 19 times its input, so here k* ≈ √(19·L),
and checkpointing every block is best until L ≈ 2·19 (k = L beats k = L/2 while the
L/2 boundaries it adds cost less than the block's A it saves: L·s/2 < A); the table and
figure show where the measured minimum lies. A k that does not divide L leaves a long
plain last segment.

The price, exact: a checkpointed segment's forward runs twice, so with r = (k-1)·m
blocks rerun, the step's FLOPs are plain + r · (one block's forward), and its matmul
FLOPs 48·L·T·d² + 16·r·T·d² (forward 16·T·d² per block, backward twice that).

Memory is measured with ``tracemalloc`` on the CPU (NumPy reports its arrays to it):
"held" is the arrays alive after forward (a snapshot of NumPy's allocations), "peak" the
most bytes alive during backward (arrays and the graph's Python objects, which tracemalloc
cannot tell apart at the peak). On the GPU, a ``cupy.cuda.MemoryHook`` counts the bytes
arrays ask CuPy's memory pool for and give back (each request's own size: the pool rounds
it up to 512 bytes, which would add 448 bytes to every (T, 1) array at the --quick size),
which is the same two quantities for device arrays. Figure: memory, time and FLOPs
against k, √L and k* marked.
"""
from __future__ import annotations

import gc
import math
import statistics
import time
import tracemalloc

import numpy as np
from matplotlib.ticker import FuncFormatter

import tinyffn
from tinyffn import nn
from tinyffn.__main__ import positive    # the CLI's argparse type: an integer >= 1
from tinyffn.utils.checkpoint import checkpoint_sequential

from _common import header, parse_args, plt, run_script, save_figure, shown, table

NAME = "checkpointing"
SEED = 0
L, T, D, REPEATS = 64, 256, 32, 3            # the default size
L_QUICK, T_QUICK, D_QUICK, REPEATS_QUICK = 8, 16, 8, 1
NUMPY_DOMAIN = 389047       # the tracemalloc domain NumPy reports array buffers in
MiB = 2 ** 20


def add_arguments(parser) -> None:
    parser.add_argument("--layers", type=positive, help=f"blocks L (default {L}; "
                        f"{L_QUICK} quick)")
    parser.add_argument("--tokens", type=positive, help=f"positions T (default {T}; "
                        f"{T_QUICK} quick)")
    parser.add_argument("--d", type=positive, help=f"width d (default {D}; {D_QUICK} quick)")
    parser.add_argument("--repeats", type=positive, help="timed steps per k, the median "
                        f"shown (default {REPEATS}; {REPEATS_QUICK} quick)")
    parser.add_argument("--all-k", action="store_true", help="measure every k from 1 to L "
                        "(default: the divisors of L and L // 2 + 1; the model is drawn for all)")


class Block(nn.Module):
    """A transformer's FFN sublayer, pre-norm: y = x + FFN(LayerNorm(x)), (T, d) -> (T, d)."""

    def __init__(self, d: int, device: str):
        super().__init__()
        self.norm = nn.LayerNorm(d, device=device)
        self.ffn = nn.FFN(d, activation="gelu", device=device)

    def forward(self, x: tinyffn.Tensor) -> tinyffn.Tensor:
        return x + self.ffn(self.norm(x))


def main(argv: list | None = None) -> dict:
    """Returns {"rows": [one dict per k, the plain step first], "layers", "tokens", "d",
    "saved_per_block" (A, entries), "optimum" (k*), "figures": [PNG path], ...}."""
    args = parse_args(NAME, __doc__.split("\n")[0], argv, add_arguments)
    layers = args.layers or (L_QUICK if args.quick else L)
    tokens = args.tokens or (T_QUICK if args.quick else T)
    d = args.d or (D_QUICK if args.quick else D)
    repeats = args.repeats or (REPEATS_QUICK if args.quick else REPEATS)
    A, s = saved_per_block(tokens, d), tokens * d
    optimum = math.sqrt(layers * A / s)

    header(f"{layers} blocks x + FFN(LayerNorm(x)), T = {tokens}, d = {d}, d_ff = {4 * d}, "
           f"GELU, float32, on {args.device}")
    stack = make_stack(layers, d, args.device)
    x = tinyffn.randn(tokens, d, device=args.device, requires_grad=True)
    meter = Meter(args.device)
    block_forward = one_block_forward_flops(stack, x)
    step(stack, x, 2 if layers > 1 else None, meter, count=False)   # imports, caches: not arrays
    plain = step(stack, x, None, meter)
    rows = [describe("none", plain, plain, layers, tokens, d, None, block_forward)]
    for k in (range(1, layers + 1) if args.all_k else measured_ks(layers)):
        result = step(stack, x, k, meter)
        rows.append(describe(k, result, plain, layers, tokens, d, k, block_forward))
    for row in rows:
        row["ms"] = 1e3 * time_steps(stack, x, None if row["k"] == "none" else row["k"],
                                     repeats, args.device)

    print(f"A = 19·T·d + 2·T = {A:,} entries saved per block; s = T·d = {s:,} per boundary "
          f"(A/s = {A / s:.2f}). Parameters' gradients G = {mib(plain['grad_bytes']):.2f} MiB.")
    print(table(["k", "segments", "held MiB", "model", "peak MiB", "model", "time ms",
                 "FLOPs ÷ plain", "FLOPs = formula", "grads = plain"],
                [[r["k"], r["segments"], mib(r["held"]), mib(r["held_model"]), mib(r["peak"]),
                  mib(r["peak_model"]), r["ms"], f"{r['flops_ratio']:.3f}",
                  "yes" if r["flops_match"] else "NO", "yes" if r["same_grads"] else "NO"]
                 for r in rows]))
    best = min(rows[1:], key=lambda r: r["peak"])
    print(f"Least peak at k = {best['k']} ({mib(best['peak']):.2f} MiB, "
          f"{best['peak'] / plain['peak']:.0%} of the plain step's, for "
          f"{best['flops_ratio']:.2f}x its FLOPs). The model's k* = √(L·A/s) = {optimum:.1f}; "
          f"Chen et al.'s √L = {math.sqrt(layers):.1f} assumes A = s.")
    if meter.kind == "tracemalloc":
        print(f"Held counts NumPy's arrays only; the plain step's graph also held "
              f"{mib(plain['held_total'] - plain['held']):.2f} MiB of Python objects, which "
              "the peak includes.")
        objects = plain["held_total"] - plain["held"]
        checkpointed = [r["peak"] for r in rows if r["m"]]       # k > 1: segments rerun
        if objects > plain["held"] and checkpointed and min(checkpointed) >= plain["peak"]:
            print(f"At this size those objects outweigh the arrays ({mib(plain['held']):.2f} "
                  "MiB): checkpointing saves arrays,\nand its reruns make Python objects of "
                  "their own, so here it did not lower the peak (it does at\nthe default "
                  "size, where the arrays dominate).")
    figure = save_figure(draw(rows, layers, tokens, d, optimum, f"{layers} blocks, "
                              f"T = {tokens}, d = {d}, on {args.device}"), args.out,
                         "memory_vs_k")
    print(f"\nFigure: {shown(figure)}")
    return {"rows": rows, "layers": layers, "tokens": tokens, "d": d, "saved_per_block": A,
            "block_forward_flops": block_forward, "optimum": optimum, "meter": meter.kind,
            "figures": [figure]}


# ----------------------------------------------------------------------------- the model
def measured_ks(layers: int) -> list:
    """The divisors of L (equal segments), and L // 2 + 1, the k whose last, plain segment
    is longest (L/2 blocks or so: nearly the memory of k = 2, with more reruns)."""
    ks = {k for k in range(1, layers + 1) if layers % k == 0}
    if layers > 2:
        ks.add(layers // 2 + 1)
    return sorted(ks)


def saved_per_block(T: int, d: int) -> int:
    """A: entries one block saves for backward, 19·T·d + 2·T (the module docstring's list)."""
    return 19 * T * d + 2 * T


def segments(layers: int, k: int | None) -> tuple:
    """(m, n): checkpoint_sequential's checkpointed segment length and its last, plain
    segment's; (0, L) for the plain step and for k = 1."""
    if k is None or k == 1:
        return 0, layers
    m = layers // k
    return m, layers - (k - 1) * m


def predicted(layers: int, T: int, d: int, k: int | None, grad_bytes: int,
              state_bytes: int = 0, itemsize: int = 4) -> tuple:
    """(held, peak) in bytes, the module docstring's model. Besides the arrays it lists,
    the loss (one number) is held, and each checkpointed segment keeps the random
    generator's state (``state_bytes``, on the CPU) for its rerun."""
    A, s = saved_per_block(T, d), T * d
    m, n = segments(layers, k)
    boundaries = max((k or 1) - 2, 0)
    extra = itemsize + (k - 1 if m else 0) * state_bytes
    held = (boundaries * s + n * A + s) * itemsize + extra
    peak = (boundaries * s + max(n, m) * A + s) * itemsize + extra + grad_bytes
    return held, peak


# ----------------------------------------------------------------------------- measuring
def make_stack(layers: int, d: int, device: str) -> nn.Sequential:
    tinyffn.manual_seed(SEED)
    return nn.Sequential(*[Block(d, device) for _ in range(layers)])


def loss_of(stack: nn.Sequential, x: tinyffn.Tensor, k: int | None) -> tinyffn.Tensor:
    h = stack(x) if k is None else checkpoint_sequential(stack, k, x, use_reentrant=False)
    return (h * h).mean()


def clear_grads(stack: nn.Sequential, x: tinyffn.Tensor) -> None:
    x.grad = None
    for p in stack.parameters():
        p.grad = None


def step(stack: nn.Sequential, x: tinyffn.Tensor, k: int | None, meter: "Meter",
         count: bool = True) -> dict:
    """One measured step: memory held after forward and at the peak of backward, FLOPs,
    and the gradients (copied to NumPy after the measurement)."""
    clear_grads(stack, x)
    with tinyffn.FlopCounter() as flops:
        with meter:
            loss = loss_of(stack, x, k)
            held, held_total = meter.held()
            meter.reset_peak()
            loss.backward()
            peak = meter.peak()
    del loss
    if not count:
        return {}
    grads = [x.grad] + [p.grad for p in stack.parameters()]
    return {"held": held, "held_total": held_total, "peak": peak, "flops": flops.total,
            "matmul": flops.by_op.get("matmul", 0), "grads": [g.numpy() for g in grads],
            "grad_bytes": sum(p.grad.numpy().nbytes for p in stack.parameters()),
            "state_bytes": meter.state_bytes}


def time_steps(stack: nn.Sequential, x: tinyffn.Tensor, k: int | None, repeats: int,
               device: str) -> float:
    """Median seconds of ``repeats`` steps, forward and backward (the GPU waited for)."""
    seconds = []
    for _ in range(repeats):
        clear_grads(stack, x)
        sync(device)
        start = time.perf_counter()
        loss_of(stack, x, k).backward()
        sync(device)
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds)


def sync(device: str) -> None:
    if device == "cuda":
        tinyffn.cuda.synchronize()


def one_block_forward_flops(stack: nn.Sequential, x: tinyffn.Tensor) -> int:
    """FLOPs of one block's forward, as the counter counts them (a rerun costs this)."""
    with tinyffn.FlopCounter() as flops:
        stack[0](x)
    return flops.total


def describe(k, result: dict, plain: dict, layers: int, T: int, d: int, k_value: int | None,
             block_forward: int) -> dict:
    """A table row: the measurement, the model beside it, the FLOP formulas checked."""
    m, n = segments(layers, k_value)
    reruns = (k_value - 1) * m if k_value else 0
    held_model, peak_model = predicted(layers, T, d, k_value, result["grad_bytes"],
                                       result["state_bytes"])
    matmul_formula = 48 * layers * T * d * d + 16 * reruns * T * d * d
    flops_formula = plain["flops"] + reruns * block_forward
    return {"k": k, "segments": "plain" if not m else f"{k_value - 1}×{m} + {n}",
            "m": m, "n": n, "reruns": reruns, "held": result["held"],
            "held_total": result["held_total"], "peak": result["peak"],
            "held_model": held_model, "peak_model": peak_model, "flops": result["flops"],
            "matmul": result["matmul"], "matmul_formula": matmul_formula,
            "flops_formula": flops_formula,
            "flops_match": result["flops"] == flops_formula and result["matmul"] == matmul_formula,
            "flops_ratio": result["flops"] / plain["flops"],
            "same_grads": all(np.array_equal(a, b) for a, b in zip(result["grads"], plain["grads"])),
            "grad_bytes": result["grad_bytes"], "state_bytes": result["state_bytes"]}


def mib(n: int) -> float:
    return n / MiB


class Meter:
    """``with meter:`` measures array memory: ``held()`` now, ``peak()`` since ``reset_peak()``.

    CPU (NumPy, array-api-strict): tracemalloc. ``held()`` returns (NumPy's arrays, every
    traced byte); the peak is every traced byte. GPU: a CuPy memory hook adds up the bytes
    requested from the memory pool and subtracts them when given back (arrays made before
    the ``with`` are not counted, as tracemalloc does not count them either).
    """

    def __init__(self, device: str):
        # by the arrays' library, not the device's name: the tests' stand-in for a GPU
        # (tests/fake_cuda.py) is NumPy under the name "cuda"
        array = tinyffn.zeros(1, device=device).data
        self.kind = "cupy" if type(array).__module__.startswith("cupy") else "tracemalloc"
        self.hook = _cupy_hook() if self.kind == "cupy" else None
        # a checkpointed segment keeps the generator's state, a NumPy array: counted here
        # on the CPU, not by the GPU's pool
        self.state_bytes = 0 if self.hook is not None else \
            tinyffn.default_generator.get_state().numpy().nbytes

    def __enter__(self) -> "Meter":
        gc.collect()
        if self.hook is not None:
            self.hook.__enter__()
            self.hook.start()
        else:
            tracemalloc.start()
        return self

    def __exit__(self, *exc) -> None:
        if self.hook is not None:
            self.hook.__exit__(*exc)
        else:
            tracemalloc.stop()

    def held(self) -> tuple:
        if self.hook is not None:
            return self.hook.current, self.hook.current
        total, _ = tracemalloc.get_traced_memory()
        arrays = tracemalloc.take_snapshot().filter_traces(
            [tracemalloc.DomainFilter(True, NUMPY_DOMAIN)])
        return sum(t.size for t in arrays.traces), total

    def reset_peak(self) -> None:
        if self.hook is not None:
            self.hook.peak = self.hook.current
        else:
            tracemalloc.reset_peak()

    def peak(self) -> int:
        if self.hook is not None:
            return self.hook.peak
        return tracemalloc.get_traced_memory()[1]


def _cupy_hook():
    """A ``cupy.cuda.MemoryHook`` that keeps the bytes alive from the pool, and their peak.

    CuPy calls ``malloc_postprocess`` on every request the pool serves, cached or new, with
    ``size`` (the bytes asked for), ``mem_size`` (rounded up to 512) and ``mem_ptr`` (0 if
    the request failed), and ``free_postprocess`` when an array's memory goes back to the
    pool (not to the device), with the same ``mem_ptr`` (cupy/cuda/memory.pyx, CuPy 13).
    The requested sizes are kept: what arrays hold, as tracemalloc counts it on the CPU."""
    import cupy

    class PoolMeter(cupy.cuda.MemoryHook):
        name = "tinyffn_checkpointing_demo"

        def start(self) -> None:
            self.sizes, self.current, self.peak = {}, 0, 0

        def malloc_postprocess(self, **kwargs) -> None:
            if kwargs["mem_ptr"]:
                self.sizes[kwargs["mem_ptr"]] = kwargs["size"]
                self.current += kwargs["size"]
                self.peak = max(self.peak, self.current)

        def free_postprocess(self, **kwargs) -> None:
            self.current -= self.sizes.pop(kwargs["mem_ptr"], 0)

    return PoolMeter()


# ----------------------------------------------------------------------------- figure
def draw(rows: list, layers: int, T: int, d: int, optimum: float, title: str):
    """Left: memory against k, measured (markers) and the model for every k (lines).
    Right: the step's time and FLOPs against k."""
    plain, rows = rows[0], rows[1:]
    ks = [r["k"] for r in rows]
    every_k = range(1, layers + 1)
    model = [predicted(layers, T, d, k, plain["grad_bytes"], plain["state_bytes"])
             for k in every_k]
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    left.plot(every_k, [mib(held) for held, _ in model], "-", color="C0", lw=0.8, alpha=0.6,
              label="held, model (every k)")
    left.plot(ks, [mib(r["held"]) for r in rows], "o", color="C0", label="held until backward")
    left.plot(every_k, [mib(peak) for _, peak in model], "-", color="C1", lw=0.8, alpha=0.6,
              label="peak, model (every k)")
    left.plot(ks, [mib(r["peak"]) for r in rows], "s", color="C1", label="peak in backward")
    left.axhline(mib(plain["peak"]), color="grey", lw=0.8)
    left.text(layers, mib(plain["peak"]), "plain step's peak ", va="bottom", ha="right",
              fontsize=8, color="grey")
    left.set_yscale("log")
    for axis in (left.yaxis.set_major_formatter, left.yaxis.set_minor_formatter):
        axis(FuncFormatter(lambda v, _: f"{v:g}"))      # 30, not 3×10¹: MiB read as numbers
    right.plot(ks, [r["ms"] for r in rows], "o-", ms=4, color="C2", label="step time (ms)")
    right.axhline(plain["ms"], color="C2", lw=0.8, ls=":", label="plain step's time")
    flops = right.twinx()
    flops.plot(ks, [r["flops_ratio"] for r in rows], "^-", ms=4, color="C3",
               label="FLOPs ÷ plain")
    flops.set_ylabel("FLOPs ÷ plain step's")
    marks = [(math.sqrt(layers), "√L", "C4"), (min(optimum, layers), "k* = √(L·A/s)", "C5")]
    for ax in (left, right):
        for k, _, color in marks:
            ax.axvline(k, color=color, lw=1, ls="-.")
        ax.set_xlabel("segments k (checkpoint_sequential)")
    for k, text, color in marks:
        left.text(k, 0.02, f" {text}", color=color, transform=left.get_xaxis_transform(),
                  ha="right" if k > 0.8 * layers else "left")
    left.set_ylabel("MiB (log scale)")
    right.set_ylabel("ms per forward + backward")
    left.legend(fontsize=8, loc="upper center")
    handles = right.get_legend_handles_labels()
    more = flops.get_legend_handles_labels()
    right.legend(handles[0] + more[0], handles[1] + more[1], fontsize=8, loc="lower right")
    left.set_title("memory")
    right.set_title("compute")
    fig.suptitle(title)
    return fig


if __name__ == "__main__":
    run_script(main)
