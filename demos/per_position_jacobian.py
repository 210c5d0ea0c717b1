"""Per-position vs cross-position: the Jacobians of the FFN and of self-attention (§2.1, §7).

    python demos/per_position_jacobian.py [--device cpu|cuda] [--out DIR] [--quick]

For an input X of T positions, X (T, d), and an output Y = f(X) (T, d), the Jacobian
J[(t, j), (s, k)] = dY[t, j] / dX[s, k] is a (T·d) x (T·d) matrix of T x T blocks; block
(t, s) says how output position t depends on input position s.

The demo computes J with the engine's own reverse mode,
``tinyffn.autograd.functional.jacobian`` (as ``torch.autograd.functional.jacobian``): one
backward pass per output element Y[t, j], with the one-hot cotangent e_(t, j), gives
row (t, j).
Then it looks at the blocks off the diagonal (t != s):

* FFN(X): every one is exactly zero: position t's output never sees position s. The
  diagonal blocks are W2 diag(σ'(a_t)) W1: the same weights everywhere, only the ReLU
  pattern of position t differs.
* single-head self-attention, softmax(Q K^T / sqrt(d)) V W_O^T, built from the same
  primitives: every block is non-zero: each output position depends on every input.

Figure: |J| for both, side by side, on a log scale over four decades; white squares are
entries that are exactly 0, the darkest (the colour bar's arrow) entries below 1e-4 of the
largest.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.colors import LogNorm

import tinyffn
from tinyffn import nn

from _attention import SelfAttention
from _common import header, parse_args, plt, run_script, save_figure, shown, table

NAME = "per_position_jacobian"
DTYPE = "float64"
SEED = 0


def main(argv: list | None = None) -> dict:
    """Returns the Jacobians' off-block-diagonal and total norms for the FFN and attention."""
    args = parse_args(NAME, __doc__.split("\n")[0], argv)
    T, d = (4, 3) if args.quick else (8, 4)
    tinyffn.manual_seed(SEED)
    X = tinyffn.randn(T, d, dtype=DTYPE, device=args.device)
    ffn = nn.FFN(d, activation="relu", dtype=DTYPE, device=args.device)
    attention = SelfAttention(d, dtype=DTYPE, device=args.device)

    header(f"Jacobians dY/dX over all positions: T = {T}, d = {d}, one backward per "
           f"output element ({T * d} each)")
    jacobians = {"FFN": jacobian(ffn, X), "attention": jacobian(attention, X)}
    norms = {name: block_norms(J, T, d) for name, J in jacobians.items()}
    print(table(["f(X)", "|J| (Frobenius)", "|off-block-diagonal part|", "|off| / |J|",
                 f"zero blocks (of {T * (T - 1)})"],
                [[name, n["total"], n["off_block"], f"{n['off_block'] / n['total']:.0%}",
                  n["zero_blocks"]] for name, n in norms.items()]))

    header("The FFN's diagonal blocks: J_tt = W2 diag(relu'(a_t)) W1, a_t = W1 x_t + b1")
    block_error = check_diagonal_blocks(ffn, X, jacobians["FFN"])
    if norms["FFN"]["off_block"] != 0.0:
        raise RuntimeError(f"the FFN's Jacobian has off-diagonal blocks of norm "
                           f"{norms['FFN']['off_block']}: a position saw another position")
    if not norms["attention"]["off_block"] > 0.0:
        raise RuntimeError("the attention's Jacobian is block-diagonal: nothing was mixed")
    print("So changing input position s moves only output position s in the FFN, and every "
          "output\nposition in attention: the FFN transforms, attention mixes.")

    figure = plot_jacobians(jacobians, T, d, args.out)
    print(f"\nFigure: {shown(figure)}")
    return {"T": T, "d": d,
            "ffn_off_block_norm": norms["FFN"]["off_block"],
            "attention_off_block_norm": norms["attention"]["off_block"],
            "ffn_norm": norms["FFN"]["total"], "attention_norm": norms["attention"]["total"],
            "ffn_diagonal_block_error": block_error, "figures": [figure]}


# ----------------------------------------------------------------------------- Jacobians
def jacobian(f, X: tinyffn.Tensor) -> np.ndarray:
    """J[(t, j), (s, k)] = dY[t, j] / dX[s, k] for Y = f(X), by reverse mode, row by row.

    ``tinyffn.autograd.functional.jacobian`` runs a backward from Y with the cotangent
    e_(t, j) (one at (t, j), zero elsewhere), which computes
    sum_{t', j'} e[t', j'] dY[t', j'] / dX = dY[t, j] / dX: row (t, j) of J. It builds the
    graph once and keeps it for all T·d backward passes, and returns J shaped as
    Y.shape + X.shape; flattening each pair of axes gives the matrix.
    Shapes: X (T, d) -> J (T, d, T, d) -> (T·d, T·d).
    """
    J = tinyffn.autograd.functional.jacobian(f, X)           # (T, d, T, d)
    T, d = X.shape
    return J.numpy().reshape(T * d, T * d)                   # (T·d, T·d)


def block_norms(J: np.ndarray, T: int, d: int) -> dict:
    """The Frobenius norm of J, of its blocks off the diagonal (t != s), and how many of
    those blocks are exactly zero."""
    blocks = J.reshape(T, d, T, d)                           # [t, j, s, k]
    off = ~np.eye(T, dtype=bool)                             # (T, T): True where t != s
    off_entries = blocks.transpose(0, 2, 1, 3)[off]          # (T·(T-1), d, d)
    return {"total": float(np.linalg.norm(J)),
            "off_block": float(np.linalg.norm(off_entries)),
            "zero_blocks": int((np.abs(off_entries).max(axis=(1, 2)) == 0).sum())}


def check_diagonal_blocks(ffn: nn.FFN, X: tinyffn.Tensor, J: np.ndarray) -> float:
    """Compare each diagonal block of the autograd Jacobian with W2 diag(relu'(a_t)) W1."""
    W1, b1, W2 = ffn.w1.weight.numpy(), ffn.w1.bias.numpy(), ffn.w2.weight.numpy()
    x = X.numpy()
    T, d = x.shape
    blocks = J.reshape(T, d, T, d)
    rows, worst = [], 0.0
    for t in range(T):
        on = (W1 @ x[t] + b1 > 0).astype(float)              # (d_ff,): relu'(a_t)
        by_hand = W2 @ (on[:, None] * W1)                    # (d, d_ff) @ (d_ff, d) -> (d, d)
        err = float(np.abs(blocks[t, :, t, :] - by_hand).max())
        worst = max(worst, err)
        rows.append([f"t = {t}", int(on.sum()), err])
    print(table(["position", f"units on (of {len(on)})", "max |J_tt - W2 diag W1|"], rows))
    return worst


# ----------------------------------------------------------------------------- figure
def plot_jacobians(jacobians: dict, T: int, d: int, out: Path) -> Path:
    """|J| on a log colour scale, block boundaries drawn; exact zeros left white."""
    top = max(float(np.abs(J).max()) for J in jacobians.values())
    norm = LogNorm(vmin=top * 1e-4, vmax=top)
    cmap = plt.get_cmap("viridis").with_extremes(bad="white", under="#2a0a3a")
    fig, axes = plt.subplots(1, 2, figsize=(10.5, 5), layout="constrained")
    titles = {"FFN": "FFN: block-diagonal (per position)",
              "attention": "self-attention: dense (across positions)"}
    for ax, (name, J) in zip(axes, jacobians.items()):
        magnitude = np.ma.masked_equal(np.abs(J), 0.0)       # exact zeros -> "bad" -> white
        image = ax.imshow(magnitude, cmap=cmap, norm=norm, interpolation="nearest")
        for edge in np.arange(d, T * d, d) - 0.5:
            ax.axhline(edge, color="grey", lw=0.6)
            ax.axvline(edge, color="grey", lw=0.6)
        ticks = np.arange(T) * d + (d - 1) / 2
        ax.set_xticks(ticks, [str(s) for s in range(T)])
        ax.set_yticks(ticks, [str(t) for t in range(T)])
        ax.set_xlabel("input position s  (d entries each)")
        ax.set_ylabel("output position t")
        ax.set_title(titles[name])
    fig.colorbar(image, ax=axes, shrink=0.8, extend="min",     # the arrow: below 1e-4 · top
                 label="|dY[t, j] / dX[s, k]|  (white: exactly 0)")
    fig.suptitle(f"Jacobian of Y = f(X), X of {T} positions × d = {d}")
    return save_figure(fig, out, "jacobians")


if __name__ == "__main__":
    run_script(main)
