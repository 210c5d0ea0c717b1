"""Train the FFN on a task that needs its non-linearity: ReLU, GELU, Swish, SwiGLU, and none.

    python demos/train_activations.py [--device cpu|cuda] [--out DIR] [--quick] [--steps N]

The task: two interleaved spiral arms in the plane; say which arm a point (x1, x2) lies on.
The model is the seed's FFN itself with d = 2: a point is one "position" x in R², and the
two outputs of FFN(x) = W2 σ(W1 x + b1) + b2 are the logits of the two arms (trained with
cross-entropy). No straight line separates the arms, so this is exactly what σ is for.

Every variant gets the same data, the same initial random state, the same optimizer
(full-batch Adam) and the same number of steps, and its d_ff is chosen so the parameter
counts match (the gated FFN has three matrices, so it gets a narrower hidden layer).

What to look for: the four non-linear variants end with a small loss and 95 % or more of
the held-out points right (at the default size ReLU is the slowest to get there); the
linear model (the same two Linear layers with σ removed, which collapse into one linear
map) stays near chance. Figures: the loss curves, and each model's decision regions.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

import tinyffn
from tinyffn import accounting as A
from tinyffn import functional as F
from tinyffn import nn
from tinyffn.__main__ import positive    # the CLI's argparse type: an integer >= 1

from _common import fit, header, parse_args, plt, run_script, save_figure, shown, table

NAME = "train_activations"
D = 2                   # model width: a point in the plane; also the number of classes
D_FF = 32               # hidden width of the plain FFN; the others are matched to its count
TURNS = 2.0             # how many times each arm winds around the centre
LR = 0.02
SEED = 0


def add_arguments(parser) -> None:
    parser.add_argument("--steps", type=positive, help="training steps (default 2000; 250 quick)")


def main(argv: list | None = None) -> dict:
    """Train five models on the spirals; returns {"results": {model name: {"params", "d_ff",
    "loss", "train_acc", "test_acc"}}, "steps": ..., "figures": [two PNG paths]}."""
    args = parse_args(NAME, __doc__.split("\n")[0], argv, add_arguments)
    steps = args.steps or (250 if args.quick else 2000)
    n_points = 300 if args.quick else 600

    header(f"Two spirals, {n_points} training points and {n_points} held-out points")
    data = make_data(n_points, args.device)
    models = build_models(args.device)
    print(f"Matched parameter counts (the plain FFN has d_ff = {D_FF}):")
    print(table(["model", "σ", "d_ff", "parameters"],
                [[name, sigma, d_ff, A.count_parameters(m)]
                 for name, (m, sigma, d_ff) in models.items()]))

    header(f"Training: full-batch Adam, lr {LR}, {steps} steps, the same seed for each")
    histories, results = {}, {}
    for name, (model, _, d_ff) in models.items():
        histories[name] = train(model, data, steps, name)
        results[name] = evaluate(model, data, histories[name], d_ff)
    print(table(["model", "params", "train loss", "train acc", "test acc"],
                [[name, r["params"], r["loss"], f"{r['train_acc']:.1%}", f"{r['test_acc']:.1%}"]
                 for name, r in results.items()]))
    linear = results["linear (no σ)"]
    print(f"Without σ the two layers are one linear map W2 W1 x + (W2 b1 + b2): a straight "
          f"boundary,\nright on {linear['test_acc']:.0%} of the held-out points where "
          "chance is 50%.")

    figures = [plot_losses(histories, args.out),
               plot_regions(models, data, args.out, size=60 if args.quick else 150)]
    print("\nFigures: " + ", ".join(shown(p) for p in figures))
    return {"results": results, "steps": steps, "figures": figures}


# ----------------------------------------------------------------------------- data
def spirals(n: int, rng: np.random.Generator) -> tuple:
    """n points on two spiral arms; label 0 or 1 is the arm. Returns X (n, 2), labels (n,).

    A point at radius r in [0, 1] sits at angle 2π·TURNS·r, plus π for arm 1, plus a
    little noise. Points are denser near the centre, where the arms are closest.
    """
    r = np.sqrt(rng.random(n))                                       # (n,)
    label = rng.integers(0, 2, n)                                    # (n,)
    angle = 2 * np.pi * TURNS * r + np.pi * label
    X = np.stack([r * np.cos(angle), r * np.sin(angle)], axis=1)     # (n, 2)
    X += 0.02 * rng.standard_normal(X.shape)
    return X.astype(np.float32), label


def make_data(n: int, device: str) -> dict:
    """Training and held-out sets, as tensors on ``device`` (targets too)."""
    rng = np.random.default_rng(SEED)
    (X, y), (X_test, y_test) = spirals(n, rng), spirals(n, rng)
    return {"X": tinyffn.tensor(X, device=device), "y": tinyffn.tensor(y, device=device),
            "X_test": tinyffn.tensor(X_test, device=device),
            "y_test": tinyffn.tensor(y_test, device=device)}


# ----------------------------------------------------------------------------- models
def gated_width_for(budget: int) -> int:
    """The gated FFN's d_ff whose parameter count (biases on) is closest to ``budget``."""
    return min(range(1, budget),
               key=lambda g: abs(A.gated_ffn_params(D, g, bias=True) - budget))


def build_models(device: str) -> dict:
    """name -> (model, σ, d_ff), each made right after ``manual_seed(SEED)``.

    All have biases: with d = 2 the biases are a large share of what places the ReLU
    kinks away from the origin. The plain FFNs have 2·d·d_ff + d_ff + d parameters, the
    gated one 3·d·d_ff + 2·d_ff + d, so it gets d_ff = 20 to the others' 32: 162 each.
    """
    budget = A.ffn_params(D, D_FF)
    g = gated_width_for(budget)
    makers = {
        "ReLU": (lambda: nn.FFN(D, D_FF, activation="relu", device=device), "relu", D_FF),
        "GELU": (lambda: nn.FFN(D, D_FF, activation="gelu", device=device), "gelu", D_FF),
        "Swish": (lambda: nn.FFN(D, D_FF, activation="swish", device=device), "swish", D_FF),
        "SwiGLU": (lambda: nn.GatedFFN(D, g, activation="swish", bias=True, device=device),
                   "swish ⊙ linear", g),
        "linear (no σ)": (lambda: nn.Sequential(nn.Linear(D, D_FF, device=device),
                                                nn.Linear(D_FF, D, device=device)), "none", D_FF),
    }
    models = {}
    for name, (make, sigma, d_ff) in makers.items():
        tinyffn.manual_seed(SEED)
        models[name] = (make(), sigma, d_ff)
    return models


# ----------------------------------------------------------------------------- training
def train(model: nn.Module, data: dict, steps: int, name: str) -> list:
    """Cross-entropy of the two logits FFN(x) against the arm, on all points each step."""
    return fit(model, lambda: F.cross_entropy(model(data["X"]), data["y"]), steps, LR, name)


def accuracy(model: nn.Module, X: tinyffn.Tensor, y: tinyffn.Tensor) -> float:
    """The fraction of points whose larger logit is their own arm."""
    with tinyffn.no_grad():
        predicted = model(X).argmax(axis=-1)                          # (n,)
    return float((predicted == y).numpy().mean())


def evaluate(model: nn.Module, data: dict, history: list, d_ff: int) -> dict:
    return {"params": A.count_parameters(model), "d_ff": d_ff, "loss": history[-1],
            "train_acc": accuracy(model, data["X"], data["y"]),
            "test_acc": accuracy(model, data["X_test"], data["y_test"])}


# ----------------------------------------------------------------------------- figures
def plot_losses(histories: dict, out: Path) -> Path:
    """Training loss against step, one line per model, log scale."""
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for name, history in histories.items():
        ax.plot(history, label=name, lw=1.6, ls="--" if "linear" in name else "-")
    ax.set_yscale("log")
    ax.set_xlabel("Adam step (full batch)")
    ax.set_ylabel("cross-entropy (training set)")
    ax.set_title("Two spirals: FFN variants at matched parameter counts")
    ax.legend()
    ax.grid(alpha=0.3, which="both")
    return save_figure(fig, out, "loss_curves")


def plot_regions(models: dict, data: dict, out: Path, size: int = 150) -> Path:
    """Each model's predicted arm over a grid of the plane, with the held-out points."""
    device = data["X"].device
    axis = np.linspace(-1.15, 1.15, size, dtype=np.float32)
    grid = np.stack(np.meshgrid(axis, axis), axis=-1).reshape(-1, 2)   # (size², 2)
    X_test, y_test = data["X_test"].numpy(), data["y_test"].numpy()
    fig, axes = plt.subplots(1, len(models), figsize=(3.1 * len(models), 3.3))
    for ax, (name, (model, _, _)) in zip(axes, models.items()):
        with tinyffn.no_grad():
            arm = model(tinyffn.tensor(grid, device=device)).argmax(axis=-1).numpy()
        ax.contourf(axis, axis, arm.reshape(size, size), levels=[-0.5, 0.5, 1.5],
                    colors=["#cfe0f3", "#f7d7c4"])
        ax.scatter(X_test[:, 0], X_test[:, 1], c=y_test, cmap="coolwarm", s=4)
        ax.set_title(name)
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_aspect("equal")
    fig.suptitle("Decision regions (held-out points on top)")
    return save_figure(fig, out, "decision_regions")


if __name__ == "__main__":
    run_script(main)
