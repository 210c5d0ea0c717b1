"""The cost model: FFN and attention FLOPs against sequence length T (seed §5).

    python demos/cost_model.py [--device cpu|cuda] [--out DIR] [--quick] [--d D]

For each T the demo runs real forwards under ``tinyffn.FlopCounter`` and reads the FLOPs
of the matrix products:

* the FFN, ``nn.FFN(d)`` on X (T, d): two products of 2·T·d·d_ff, 16·T·d² in all;
* attention's two T² products, softmax(Q K^T / sqrt(d)) V on Q, K, V (T, d): the scores
  and the mixing, 2·T²·d each, the seed's ~4·T²·d;

and compares them with ``accounting.ffn_flops`` and ``accounting.attention_flops``. The
FFN grows like T, attention like T²; they cross where 16·T·d² = 4·T²·d, at T = 4d.

The seed leaves attention's four d x d projections (W_Q, W_K, W_V, W_O, another 8·T·d²)
out of "attention". They are measured too (a whole single-head ``SelfAttention``): counted
in, attention catches up with the FFN already at T = 2d.

Figure: FLOPs against T on log-log axes, measured points on formula lines, for the
chosen d and for LLaMA-7B's d = 4096 (formulas only), where the cross-over is T = 16,384.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

import tinyffn
from tinyffn import accounting as A
from tinyffn import nn
from tinyffn.__main__ import positive    # the CLI's argparse type: an integer >= 1

from _attention import SelfAttention, attention_core
from _common import header, parse_args, plt, run_script, save_figure, shown, table

NAME = "cost_model"
SEED = 0


def add_arguments(parser) -> None:
    parser.add_argument("--d", type=positive, help="model width d (default 64; 8 with --quick); "
                        "T runs over powers of 2 up to 1024 (128 quick), plus 2d and 4d")


def main(argv: list | None = None) -> dict:
    """Returns the measured and formula FLOPs per T and the cross-over T."""
    args = parse_args(NAME, __doc__.split("\n")[0], argv, add_arguments)
    d = args.d or (8 if args.quick else 64)
    powers = [2 ** k for k in range(2 if args.quick else 4, 8 if args.quick else 11)]
    lengths = sorted(set(powers) | {2 * d, 4 * d})          # both cross-overs are on the grid
    tinyffn.manual_seed(SEED)

    header(f"Forward matmul FLOPs at d = {d} (d_ff = 4d = {4 * d}), measured with FlopCounter")
    rows = measure(d, lengths, args.device)
    # "larger" compares the FFN with attention's T² products alone (the seed's comparison),
    # so it sits next to "FFN / attn", before the column that adds the projections.
    print(table(["T", "FFN measured", "16·T·d²", "attn measured", "4·T²·d", "FFN / attn",
                 "larger", "attn + proj"],
                [[r["T"], r["ffn"], r["ffn_formula"], r["attention"], r["attention_formula"],
                  r["ffn"] / r["attention"], r["larger"], r["attention_with_projections"]]
                 for r in rows]))
    matches = all(r["ffn"] == r["ffn_formula"] and r["attention"] == r["attention_formula"]
                  and r["attention_with_projections"] == A.attention_flops(r["T"], d, True)
                  for r in rows)
    if not matches:
        raise RuntimeError("a measured FLOP count differs from its formula; see the table")
    print("Every measured count equals its formula exactly.")

    crossover = measured_crossover(rows)
    with_projections = next(r["T"] for r in rows
                            if r["attention_with_projections"] >= r["ffn"])
    print(f"Measured cross-over: attention's T² products reach the FFN at T = {crossover} "
          f"= 4d\n(accounting.crossover_T({d}) = {A.crossover_T(d)}).")
    print(f"Counting the projections as attention's cost (attn + proj) it reaches the FFN at "
          f"T = {with_projections}:\n8·T·d² + 4·T²·d = 16·T·d² at T = 2d = {2 * d}. "
          "The seed's T = 4d compares the FFN\nwith the T² part alone.")
    if crossover != 4 * d:
        raise RuntimeError(f"measured cross-over at T = {crossover}, expected 4d = {4 * d}")

    T_llama, d_llama = 2048, 4096
    print(f"\nLLaMA-7B (d = {d_llama}), formulas: at T = {T_llama} the FFN costs "
          f"{A.ffn_flops(T_llama, d_llama) / A.attention_flops(T_llama, d_llama):g}× attention's "
          f"T² products;\nthey cross at T = {A.crossover_T(d_llama):,}.\n(LLaMA's FFN is SwiGLU, "
          f"three d × 11,008 matrices: 6·T·d·11,008 = {6 * 11008 / d_llama:g}·T·d², so 16·T·d² "
          "holds for it too.)")
    figure = plot_costs(rows, d, args.out)
    print(f"\nFigure: {shown(figure)}")
    return {"d": d, "rows": rows, "matches": matches, "crossover": crossover,
            "crossover_with_projections": with_projections, "figures": [figure]}


# ----------------------------------------------------------------------------- measuring
def measure(d: int, lengths: list, device: str) -> list:
    """One row per T: measured matmul FLOPs of the FFN, the attention core and the whole
    attention, next to the formulas."""
    ffn = nn.FFN(d, device=device)
    attention = SelfAttention(d, device=device)
    rows = []
    for T in lengths:
        x = tinyffn.randn(T, d, device=device)                      # (T, d)
        ffn_flops = A.measure_forward_flops(ffn, x).forward["matmul"]
        whole = A.measure_forward_flops(attention, x).forward["matmul"]
        q, k, v = (tinyffn.randn(T, d, device=device) for _ in range(3))
        with tinyffn.no_grad(), tinyffn.FlopCounter() as counter:
            attention_core(q, k, v)                                  # (T, d)
        core = counter.forward["matmul"]
        rows.append({"T": T, "ffn": ffn_flops, "ffn_formula": A.ffn_flops(T, d),
                     "attention": core, "attention_formula": A.attention_flops(T, d),
                     "attention_with_projections": whole,
                     "larger": "equal" if core == ffn_flops else
                               "FFN" if ffn_flops > core else "attention"})
    return rows


def measured_crossover(rows: list) -> int:
    """The first T at which the measured attention products cost at least the FFN."""
    return next(r["T"] for r in rows if r["attention"] >= r["ffn"])


# ----------------------------------------------------------------------------- figure
def plot_costs(rows: list, d: int, out: Path) -> Path:
    """Left: the chosen d, measured points on formula lines. Right: LLaMA-7B, formulas."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.6), layout="constrained")
    T = np.array([r["T"] for r in rows], dtype=float)
    fine = np.geomspace(T[0], T[-1], 200)
    left.plot(fine, 16 * fine * d ** 2, color="C0", label="FFN formula 16·T·d²")
    left.plot(T, [r["ffn"] for r in rows], "o", color="C0", label="FFN measured")
    left.plot(fine, 4 * fine ** 2 * d, color="C1", label="attention formula 4·T²·d")
    left.plot(T, [r["attention"] for r in rows], "s", color="C1",
              label="attention measured (QKᵀ, AV)")
    left.plot(T, [r["attention_with_projections"] for r in rows], "^--", color="C2", ms=5,
              label="attention + Q, K, V, O projections")
    _crossover_line(left, 4 * d, "T = 4d")
    _crossover_line(left, 2 * d, "2d", color="C2")     # where attn + proj meets the FFN
    left.set_title(f"measured with FlopCounter, d = {d}")
    _style(left)

    d_big = 4096
    big = np.geomspace(256, 131072, 200)
    right.plot(big, 16 * big * d_big ** 2, color="C0", label="FFN 16·T·d²")
    right.plot(big, 4 * big ** 2 * d_big, color="C1", label="attention 4·T²·d")
    _crossover_line(right, 4 * d_big, "T = 4d = 16,384")
    right.axvline(2048, color="grey", ls=":", lw=1)
    right.text(2048 * 1.1, 0.85, "LLaMA-7B\ntraining T = 2048", fontsize=8,
               transform=right.get_xaxis_transform())
    right.set_title(f"LLaMA-7B, d = {d_big} (formulas)")
    _style(right)
    fig.suptitle("Forward FLOPs of one layer's FFN and attention against sequence length")
    return save_figure(fig, out, "flops_vs_T")


def _crossover_line(ax, T: int, label: str, color: str = "black") -> None:
    ax.axvline(T, color=color, ls="--", lw=1)
    ax.text(T * 1.08, 0.03, label, fontsize=9, color=color, transform=ax.get_xaxis_transform())


def _style(ax) -> None:
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("sequence length T")
    ax.set_ylabel("forward matmul FLOPs")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)


if __name__ == "__main__":
    run_script(main)
