"""The FFN as a key-value memory (seed §6; Geva, Schuster, Berant & Levy 2021).

    python demos/key_value_memory.py [--device cpu|cuda] [--out DIR] [--quick] [--steps N]
                                     [--constant-lr]

Read one hidden unit i at a time and the FFN is a sum of (detector, contribution) pairs:

    FFN(x) = sum_i W2[:, i] · σ(W1[i, :] x + b1[i]) + b2

row W1[i, :] scores how much of its pattern x holds, σ gates the score, column W2[:, i]
is what the unit adds to the output when it fires. The demo

1. writes such a memory by hand: one unit per stored pair, its detector row the key, its
   contribution column the value, so key j switches on unit j alone;
2. trains an FFN (ReLU, d_ff = 4d) to store N random keys -> N random values with the
   mean squared error, N > d + 1 so that no linear map can store them all (full-batch
   Adam, its learning rate decaying to 0; ``--constant-lr`` shows why, at the default
   size: the small --quick memory stays put);
3. checks numerically, unit by unit, that the sum above is the forward pass;
4. shows which units fire for which key (a heat map) and the top units per key.

What to look for: the hand-written memory's heat map is a diagonal; the trained one is not.
Training spreads each pair over many units (about half fire for any key), and each unit
takes part in many pairs: the trained memory is distributed, yet the sum over units still
reproduces every stored value.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

import tinyffn
from tinyffn import functional as F
from tinyffn import nn
from tinyffn.__main__ import positive    # the CLI's argparse type: an integer >= 1

from _common import fit, header, parse_args, plt, run_script, save_figure, shown, table

NAME = "key_value_memory"
DTYPE = "float64"        # so the unit-by-unit sum agrees with the forward pass to ~1e-15
LR = 0.01
SEED = 0


def add_arguments(parser) -> None:
    parser.add_argument("--steps", type=positive, help="training steps (default 3000; 500 quick)")
    parser.add_argument("--constant-lr", action="store_true",
                        help=f"keep Adam's learning rate at {LR} instead of decaying it to 0: "
                        "watch the loss leave the exact fit it reaches (at the default "
                        "size and steps; the --quick memory stays put)")


def main(argv: list | None = None) -> dict:
    """Returns the training loss, recall, the reconstruction errors and the unit statistics."""
    args = parse_args(NAME, __doc__.split("\n")[0], argv, add_arguments)
    d, n_pairs = (8, 16) if args.quick else (16, 32)
    steps = args.steps or (500 if args.quick else 3000)
    keys, values = make_pairs(n_pairs, d, args.device)

    header(f"A memory written by hand: {n_pairs} pairs, one hidden unit per pair")
    by_hand = handwritten_memory(keys, values)
    hand_error = check_recall(by_hand, keys, values, "hand-written")

    header(f"A memory learned: nn.FFN(d={d}, d_ff={4 * d}, ReLU), {n_pairs} random pairs")
    print(f"No linear map stores {n_pairs} pairs in d = {d}: the best affine fit leaves MSE "
          f"{best_linear_mse(keys, values):.3f}.")
    tinyffn.manual_seed(SEED)
    ffn = nn.FFN(d, 4 * d, activation="relu", dtype=DTYPE, device=args.device)
    losses = fit(ffn, lambda: F.mse_loss(ffn(keys), values), steps, LR, "storing pairs",
                 decay=not args.constant_lr)
    schedule = "constant" if args.constant_lr else "decaying linearly to 0"
    lowest = int(np.argmin(losses))
    print(f"After {steps} full-batch Adam steps (lr {LR}, {schedule}): MSE {losses[-1]:.2e}; "
          f"lowest {losses[lowest]:.2e} at step {lowest + 1}.")
    if losses[-1] > 100 * losses[lowest]:
        print("The loss rose after its lowest point. Adam moves each weight by lr · m / (√v + "
              "eps), m and v running\naverages of its gradient and squared gradient: "
              "gradient descent with a step lr / (√v + eps) of its own,\nup to lr / eps = 1e6 "
              "for a weight with a tiny v. Such steps are too long to stay at a minimum:\n"
              "rounding noise there grows until the gradients are large again. A learning rate "
              "decaying to 0\n(the default) lets the weights settle.")
    error = check_recall(ffn, keys, values, "trained")

    header("The forward pass as a sum over units: sum_i W2[:, i] σ(W1[i, :] x + b1[i]) + b2")
    reconstruction = {"hand-written": max_sum_error(by_hand, keys),
                      "trained": max_sum_error(ffn, keys)}
    for name, err in reconstruction.items():
        print(f"{name:>12}: max |sum over units - FFN(keys)| = {err:.1e}")
        if err > 1e-9:
            raise RuntimeError(f"the unit-by-unit sum differs from the forward pass by {err}")

    header("Which units fire for which key")
    fired = firing(ffn, keys)
    stats = unit_statistics(fired)
    print(f"Trained: {stats['mean_active']:.0%} of the {4 * d} units fire for an average key;\n"
          f"an average unit fires for {stats['keys_per_unit']:.1f} of {n_pairs} keys; "
          f"{stats['dead']} never fire{'s' * (stats['dead'] == 1)}.")
    top = top_units(ffn, keys, values, fired, rows=4 if args.quick else 6)
    print(f"(top: the key's largest unit; the cosines compare its detector row with the key\n"
          f"and its contribution column with the value. A unit that was pair j's own memory\n"
          f"would have both cosines 1, as the hand-written ones do; two random directions in\n"
          f"d = {d} have |cos| ≈ 1/sqrt(d) = {d ** -0.5:.2f}.)")
    show_unit(ffn, keys, values, fired, unit=top[0][0], key=0)
    figure = plot_firing(firing(by_hand, keys), fired, args.out)
    print(f"\nFigure: {shown(figure)}")
    return {"loss": losses[-1], "lowest_loss": losses[lowest], "recall_error": error,
            "hand_recall_error": hand_error,
            "reconstruction_error": reconstruction["trained"],
            "hand_reconstruction_error": reconstruction["hand-written"],
            "units": stats, "top_units": top, "figures": [figure]}


# ----------------------------------------------------------------------------- the pairs
def make_pairs(n: int, d: int, device: str) -> tuple:
    """n random unit-length keys and n random values in R^d, as (n, d) tensors."""
    rng = np.random.default_rng(SEED)
    keys = rng.standard_normal((n, d))
    keys /= np.linalg.norm(keys, axis=1, keepdims=True)
    values = rng.standard_normal((n, d))
    return (tinyffn.tensor(keys, dtype=DTYPE, device=device),
            tinyffn.tensor(values, dtype=DTYPE, device=device))


def best_linear_mse(keys: tinyffn.Tensor, values: tinyffn.Tensor) -> float:
    """The least-squares error of the best affine map x -> A x + c (an FFN without σ)."""
    K, V = keys.numpy(), values.numpy()
    K1 = np.hstack([K, np.ones((len(K), 1))])                       # (n, d + 1)
    coef, *_ = np.linalg.lstsq(K1, V, rcond=None)
    return float(((K1 @ coef - V) ** 2).mean())


# ----------------------------------------------------------------------------- by hand
def handwritten_memory(keys: tinyffn.Tensor, values: tinyffn.Tensor) -> nn.FFN:
    """An FFN with d_ff = n whose unit j is the pair (key j, value j), exactly.

    Detector row j is the key scaled by β, with bias -β·τ: unit j fires only when
    k_j · x > τ. Choosing τ between the largest overlap of two different keys and 1 (a
    key's overlap with itself) makes key j switch on unit j alone, with strength
    β (1 - τ); contribution column j is value j divided by that strength.
    """
    K, V = keys.numpy(), values.numpy()
    n, d = K.shape
    overlap = K @ K.T                                                # (n, n), 1 on the diagonal
    tau = (1 + (overlap - 2 * np.eye(n)).max()) / 2                  # between max off-diag and 1
    beta = 1.0
    ffn = nn.FFN(d, n, activation="relu", dtype=DTYPE, device=keys.device)
    ffn.load_state_dict({"w1.weight": beta * K, "w1.bias": np.full(n, -beta * tau),
                         "w2.weight": V.T / (beta * (1 - tau)), "w2.bias": np.zeros(d)})
    print(f"W1 rows = the keys, b1 = -τ with τ = {tau:.3f} (keys overlap by at most "
          f"{(overlap - 2 * np.eye(n)).max():.3f}),\nW2 columns = the values / (1 - τ).")
    return ffn


# ----------------------------------------------------------------------------- checks
def check_recall(ffn: nn.FFN, keys: tinyffn.Tensor, values: tinyffn.Tensor, name: str) -> float:
    """Max |FFN(k_j) - v_j| over all pairs, and whether each output is nearest its own value."""
    with tinyffn.no_grad():
        recalled = ffn(keys).numpy()                                 # (n, d)
    V = values.numpy()
    error = float(np.abs(recalled - V).max())
    distances = ((recalled[:, None, :] - V[None, :, :]) ** 2).sum(-1)   # (n, n)
    nearest = float((distances.argmin(axis=1) == np.arange(len(V))).mean())
    print(f"{name}: max |FFN(k_j) - v_j| = {error:.1e}; the output lies nearest its own "
          f"value\nfor {nearest:.0%} of the keys")
    return error


def unit_sum(ffn: nn.FFN, keys: tinyffn.Tensor) -> tinyffn.Tensor:
    """FFN(keys) rebuilt one hidden unit at a time: b2 + sum_i W2[:, i] σ(W1[i, :] k + b1[i])."""
    W1, b1 = ffn.w1.weight, ffn.w1.bias                              # (d_ff, d), (d_ff,)
    W2, b2 = ffn.w2.weight, ffn.w2.bias                              # (d, d_ff), (d,)
    n, d = keys.shape
    total = b2.reshape(1, d).broadcast_to(n, d)                      # (n, d)
    for i in range(ffn.d_ff):
        detector, contribution = W1[i, :], W2[:, i]                  # (d,), (d,)
        strength = ffn.act(keys @ detector + b1[i])                  # (n,): how much unit i fires
        total = total + strength.reshape(n, 1) * contribution.reshape(1, d)   # (n, d)
    return total


def max_sum_error(ffn: nn.FFN, keys: tinyffn.Tensor) -> float:
    with tinyffn.no_grad():
        return float(np.abs(unit_sum(ffn, keys).numpy() - ffn(keys).numpy()).max())


# ----------------------------------------------------------------------------- the units
def firing(ffn: nn.FFN, keys: tinyffn.Tensor) -> np.ndarray:
    """σ(W1 k + b1) for every key: (n keys, d_ff units), as a NumPy array."""
    with tinyffn.no_grad():
        return ffn.act(ffn.w1(keys)).numpy()


def unit_statistics(fired: np.ndarray) -> dict:
    active = fired > 0                                               # (n, d_ff)
    return {"mean_active": float(active.mean(axis=1).mean()),
            "keys_per_unit": float(active.sum(axis=0).mean()),
            "dead": int((active.sum(axis=0) == 0).sum())}


def top_units(ffn: nn.FFN, keys, values, fired: np.ndarray, rows: int) -> dict:
    """For the first keys: the units that add the most to the output, with their share.

    A unit's contribution to key j is σ(...)·W2[:, i]; its size is the firing strength
    times |W2[:, i]|. For the top unit the table also gives the cosine of its detector
    row with the key and of its contribution column with the value: how far the unit
    is "this key's memory" the way a hand-written unit is (both cosines 1).
    """
    K, V = keys.numpy(), values.numpy()
    W1, W2 = ffn.w1.weight.numpy(), ffn.w2.weight.numpy()
    size = fired * np.linalg.norm(W2, axis=0)                        # (n, d_ff)
    top = tinyffn.tensor(size).topk(3)                  # each key's 3 largest: (n, 3), (n, 3)
    out, table_rows = {}, []
    for j in range(rows):
        order = top.indices[j].numpy()                               # (3,) units, largest first
        share = top.values[j].numpy() / size[j].sum()
        best = order[0]
        out[j] = [int(i) for i in order]
        table_rows.append([f"key {j}", int((fired[j] > 0).sum()),
                           ", ".join(f"{i} ({s:.0%})" for i, s in zip(order, share)),
                           f"{share.sum():.0%}", _cosine(W1[best], K[j]),
                           _cosine(W2[:, best], V[j])])
    print(table(["key", "units firing", "top units (share of output)", "top 3",
                 "cos(W1[top], k)", "cos(W2[:, top], v)"], table_rows))
    return out


def show_unit(ffn: nn.FFN, keys, values, fired: np.ndarray, unit: int, key: int) -> None:
    """One hidden unit as its pair: detector row W1[unit, :] beside the key it serves best,
    contribution column W2[:, unit] beside that key's value, and the keys it fires for."""
    row = ffn.w1.weight.numpy()[unit]                                # (d,)
    column = ffn.w2.weight.numpy()[:, unit]                          # (d,)
    print(f"\nUnit {unit}, key {key}'s largest contributor, as a (detector, contribution) pair:")
    lines = {f"detector W1[{unit}, :]": row, f"key {key}": keys.numpy()[key],
             f"contribution W2[:, {unit}]": column, f"value {key}": values.numpy()[key]}
    for label, v in lines.items():
        print(f"  {label}:\n    {_short(v)}")
    firing_keys = np.flatnonzero(fired[:, unit] > 0)
    print(f"  it fires for {len(firing_keys)} keys: {', '.join(map(str, firing_keys))}")


def _short(v: np.ndarray) -> str:
    return " ".join(f"{x:+.2f}" for x in v)


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def plot_firing(hand: np.ndarray, trained: np.ndarray, out: Path) -> Path:
    """Heat maps of σ(W1 k + b1): keys down, units across; trained units ordered by the key
    they fire for most, so any key-per-unit structure would show as a diagonal."""
    order = np.lexsort((-trained.max(axis=0), trained.argmax(axis=0)))
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.6), layout="constrained",
                             gridspec_kw={"width_ratios": [hand.shape[1], trained.shape[1]]})
    panels = [(hand, "written by hand: unit j stores pair j"),
              (trained[:, order], "trained: each pair spread over many units")]
    for ax, (fired, title) in zip(axes, panels):
        image = ax.imshow(fired, cmap="magma", aspect="auto", interpolation="nearest")
        ax.set_title(title)
        # the trained panel's ticks count places in the sorted order, not unit indices i
        ax.set_xlabel("hidden unit i" if fired is hand else
                      "hidden units, ordered by the key they fire for most (not by index i)")
        ax.set_ylabel("key j")
        fig.colorbar(image, ax=ax, label="σ(W1[i, :] k_j + b1[i])")
    fig.suptitle("Which units fire for which key")
    return save_figure(fig, out, "unit_firing")


if __name__ == "__main__":
    run_script(main)
