"""The curvature of the FFN's loss: its sharpness, and gradient descent meeting it at 2/η.

    python demos/ffn_curvature.py [--device cpu|cuda|strict] [--out DIR] [--quick]
                                  [--steps N] [--every K] [--lr η [η ...]]

The sharpness is the largest eigenvalue λ_max of the Hessian H of the training loss with
respect to all the FFN's parameters (W1, b1, W2, b2 as one vector θ). H is never built:
power iteration needs only products H v, and each is one more backward through the
recorded gradient (``tinyffn.grad(..., create_graph=True)``, docs/autograd.md §8):

    g(θ) = dL/dθ, recorded;   H v = d(g · v)/dθ   (v held fixed)

1. The check. At a tiny size (d = 2, d_ff = 8: 42 parameters) the demo also builds H
   column by column (H e_j for each unit vector e_j) and prints its eigenvalues from
   ``numpy.linalg.eigvalsh`` beside what power iteration found.
2. Gradient descent at several learning rates η. On a quadratic loss with curvature λ a
   step θ ← θ - η g is stable only if λ < 2/η. Cohen et al. (2021, "Gradient descent on
   neural networks typically occurs at the edge of stability") report that full-batch
   gradient descent on networks first sharpens (λ_max rises) until it reaches about 2/η
   and then hovers there, the loss still falling but no longer at every step. The demo
   trains the same FFN from the same start at each η, measures λ_max every K steps (power
   iteration warm-started from the previous direction, until λ changes by less than
   1e-5 relative or after 100 products), and at the end
   checks that estimate against ``eigvalsh`` of the full Hessian. It prints what it
   measured against 2/η; whether the run looks like the paper's is read from those numbers.
3. λ_max at initialisation for ReLU, GELU and SwiGLU FFNs of matched parameter counts.

The task: d = 8, 256 positions x ~ N(0, 1), targets 8 · teacher(x) for a fixed GELU FFN four
times wider (d_ff = 128) than the student (d_ff = 4d = 32); mean squared error. Everything
is in float64, so that λ_max is measured, not float32's rounding.
Figure: λ_max against the step for each η, 2/η dashed; and the loss, per step.
"""
from __future__ import annotations

import argparse
from typing import Callable, Sequence

import numpy as np

import tinyffn
from tinyffn import accounting as A
from tinyffn import functional as F
from tinyffn import nn, optim
from tinyffn.__main__ import positive    # the CLI's argparse type: an integer >= 1

from _common import header, parse_args, plt, run_script, save_figure, shown, table

NAME = "ffn_curvature"
DTYPE = "float64"
SEED = 0
D, N, STEPS, EVERY = 8, 256, 1000, 20           # the default size (docs/figures draws it too)
D_QUICK, N_QUICK, STEPS_QUICK, EVERY_QUICK = 4, 64, 200, 10
TARGET_SCALE = 8.0      # targets are 8 · teacher(x): far from the student's start
LRS = (0.3, 0.8, 1.3)   # η: 2/η = 6.7, 2.5, 1.5, against λ_max ≈ 0.9 at the start
TOL, MAX_ITERATIONS = 1e-5, 100   # each measurement in training: power iteration, warm-started,
                                  # until λ changes by < 1e-5 relative (at most 100 products)


def positive_float(text: str) -> float:
    """--lr's argparse type: a finite number above 0."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {text!r}")
    return value


def add_arguments(parser) -> None:
    parser.add_argument("--steps", type=positive,
                        help="gradient-descent steps per learning rate (default 1000; 200 quick)")
    parser.add_argument("--every", type=positive,
                        help="measure λ_max every K steps (default 20; 10 quick)")
    parser.add_argument("--lr", type=positive_float, nargs="+", metavar="η",
                        help=f"learning rates (default {' '.join(map(str, LRS))})")


def main(argv: list | None = None) -> dict:
    """Returns {"check": the tiny-size comparison, "runs": {η: run}, "sizes": ...,
    "activations": {name: λ_max at init}, "figures": [PNG path]}."""
    args = parse_args(NAME, __doc__.split("\n")[0], argv, add_arguments)
    steps = args.steps or (STEPS_QUICK if args.quick else STEPS)
    every = args.every or (EVERY_QUICK if args.quick else EVERY)
    lrs = tuple(args.lr or LRS)
    d, n = (D_QUICK, N_QUICK) if args.quick else (D, N)

    header("1. Power iteration on Hessian-vector products against the full Hessian "
           "(d = 2, d_ff = 8)")
    check = tiny_check(args.device)
    print(table(["", "value"], [
        ["parameters (rows of H)", check["n_params"]],
        ["|H - Hᵀ| largest entry", f"{check['asymmetry']:.1e}"],
        ["eigvalsh: largest eigenvalue", f"{check['eigvalsh_max']:.12f}"],
        ["eigvalsh: smallest eigenvalue", f"{check['eigvalsh_min']:.12f}"],
        [f"power iteration ({check['iterations']} products H v)",
         f"{check['power']:.12f}"],
        ["|power - eigvalsh|", f"{check['difference']:.1e}"]]))

    header(f"2. Full-batch gradient descent, d = {d}, d_ff = {4 * d}, {n} positions, "
           f"{steps} steps, λ_max every {every}")
    data = make_data(d, n, args.device)
    runs = {eta: train(data, eta, steps, every) for eta in lrs}
    print(table(["η", "2/η", "λ_max at 0", "max λ_max", "first ≥ 0.95·2/η",
                 "mean λ_max, last half", "mean ÷ 2/η", "loss rose", "final loss"],
                [[eta, 2 / eta, r["sharpness"][0], max(r["sharpness"]),
                  "never" if r["reached"] is None else f"step {r['reached']}",
                  r["late_mean"], f"{r['late_mean'] * eta / 2:.2f}",
                  f"{r['rises']} steps", r["loss"][-1]] for eta, r in runs.items()]))
    for eta, r in runs.items():
        print(f"η = {eta:g}: " + describe(eta, r))
    print("End of training, the warm-started estimate against eigvalsh of the full "
          "Hessian:")
    print(table(["η", "estimate", "eigvalsh max", "relative difference"],
                [[eta, r["sharpness"][-1], r["exact_end"],
                  f"{abs(r['sharpness'][-1] - r['exact_end']) / r['exact_end']:.1e}"]
                 for eta, r in runs.items()]))
    print(f"(Power iteration stops when one more product changes λ by < {TOL:g} relative; "
          "that is not\nits error, which is larger where the next eigenvalue is close to "
          "λ_max and v turns slowly.)")

    header("3. λ_max at initialisation, the same data, matched parameter counts")
    at_init = activations_at_init(data)
    print(table(["FFN", "d_ff", "parameters", "λ_max at init", "loss at init"],
                [[name, r["d_ff"], r["params"], r["sharpness"], r["loss"]]
                 for name, r in at_init.items()]))

    figure = save_figure(draw(runs, f"d = {d}, d_ff = {4 * d}, {n} positions"), args.out,
                         "sharpness")
    print(f"\nFigure: {shown(figure)}")
    return {"check": check, "runs": runs, "activations": at_init, "figures": [figure],
            "d": d, "n": n, "steps": steps, "every": every}


# ----------------------------------------------------------------------------- curvature
def hessian_vector_product(loss: tinyffn.Tensor,
                           params: Sequence[tinyffn.Tensor]) -> Callable[[list], tuple]:
    """v -> H v for the Hessian of ``loss`` in ``params``, v a list shaped like params.

    The gradient g = dL/dθ is recorded once (create_graph=True); each product is then one
    backward of g · v, a scalar whose derivative in θ is H v (v is a constant). The
    graph is kept (retain_graph) so the same g serves every v.
    """
    grads = tinyffn.grad(loss, list(params), create_graph=True)

    def product(v: list) -> tuple:
        g_dot_v = sum((g * u).sum() for g, u in zip(grads, v))          # scalar
        return tinyffn.grad(g_dot_v, list(params), retain_graph=True)

    return product


def inner(a: Sequence[tinyffn.Tensor], b: Sequence[tinyffn.Tensor]) -> float:
    """a · b for two parameter-shaped lists, as one flat vector each."""
    return sum(float((x * y).sum()) for x, y in zip(a, b))


def sharpness(loss: tinyffn.Tensor, params: Sequence[tinyffn.Tensor], v: list | None = None,
              iterations: int = 100, tol: float | None = None) -> tuple:
    """λ_max of the loss's Hessian by power iteration; returns (λ, direction, products).

    v ← H v / |H v| converges to the eigenvector of the eigenvalue largest in magnitude,
    and the Rayleigh quotient vᵀ H v (|v| = 1) to that eigenvalue. That is λ_max when
    λ_max > |λ_min|, as in every loss here (the check prints both ends). ``v``: where to
    start (else random); ``tol``: stop once λ changes by less than tol · |λ| (else run all
    ``iterations``).
    """
    product = hessian_vector_product(loss, params)
    if v is None:
        v = [tinyffn.randn(*p.shape, dtype=p.dtype, device=p.device) for p in params]
    lam = None
    for i in range(1, iterations + 1):
        norm = inner(v, v) ** 0.5
        v = [u / norm for u in v]
        Hv = product(v)
        new = inner(v, Hv)                                           # vᵀ H v, |v| = 1
        v = [h.detach() for h in Hv]
        if tol is not None and lam is not None and abs(new - lam) <= tol * abs(new):
            return new, v, i
        lam = new
    return lam, v, iterations


def full_hessian(loss: tinyffn.Tensor, params: Sequence[tinyffn.Tensor]) -> np.ndarray:
    """H as a NumPy (N, N) matrix, N the parameter count: column j is H e_j."""
    product = hessian_vector_product(loss, params)
    sizes = [p.numel() for p in params]
    H = np.zeros((sum(sizes), sum(sizes)))
    for j in range(H.shape[0]):
        e = np.zeros(H.shape[0])
        e[j] = 1.0
        pieces = np.split(e, np.cumsum(sizes)[:-1])
        v = [tinyffn.tensor(piece.reshape(p.shape), dtype=p.dtype, device=p.device)
             for piece, p in zip(pieces, params)]
        H[:, j] = np.concatenate([h.numpy().ravel() for h in product(v)])
    return H


def tiny_check(device: str) -> dict:
    """Power iteration (to a relative change of 1e-13) against eigvalsh of the full H,
    for a GELU FFN with d = 2, d_ff = 8 on 16 positions of random regression data."""
    tinyffn.manual_seed(SEED)
    ffn = nn.FFN(2, 8, activation="gelu", dtype=DTYPE, device=device)
    x = tinyffn.randn(16, 2, dtype=DTYPE, device=device)
    y = tinyffn.randn(16, 2, dtype=DTYPE, device=device)
    params = list(ffn.parameters())
    loss = F.mse_loss(ffn(x), y)
    H = full_hessian(loss, params)
    eigenvalues = np.linalg.eigvalsh(H)
    power, _, iterations = sharpness(loss, params, iterations=2000, tol=1e-13)
    return {"n_params": H.shape[0], "asymmetry": float(np.abs(H - H.T).max()),
            "eigvalsh_max": float(eigenvalues[-1]), "eigvalsh_min": float(eigenvalues[0]),
            "power": power, "iterations": iterations,
            "difference": abs(power - float(eigenvalues[-1])), "hessian": H,
            "model": ffn, "x": x, "y": y}


# ----------------------------------------------------------------------------- training
def make_data(d: int, n: int, device: str) -> dict:
    """x ~ N(0, 1) (n, d); y = TARGET_SCALE · teacher(x), teacher a GELU FFN of d_ff = 16d."""
    rng = np.random.default_rng(SEED)
    x = tinyffn.tensor(rng.standard_normal((n, d)), dtype=DTYPE, device=device)   # (n, d)
    tinyffn.manual_seed(SEED + 1)
    teacher = nn.FFN(d, 16 * d, activation="gelu", dtype=DTYPE, device=device)
    with tinyffn.no_grad():
        y = TARGET_SCALE * teacher(x)                                             # (n, d)
    return {"x": x, "y": y, "d": d, "device": device}


def student(data: dict, kind: str = "gelu") -> nn.Module:
    """The FFN being trained, made right after ``manual_seed(SEED)``: the same start at
    every η. ``kind``: "relu", "gelu", or "swiglu" (GatedFFN, biases on, d_ff matched)."""
    d, device = data["d"], data["device"]
    tinyffn.manual_seed(SEED)
    if kind == "swiglu":
        return nn.GatedFFN(d, gated_width(d), activation="swish", bias=True, dtype=DTYPE,
                           device=device)
    return nn.FFN(d, 4 * d, activation=kind, dtype=DTYPE, device=device)


def gated_width(d: int) -> int:
    """The gated FFN's d_ff whose parameter count (biases on) is closest to FFN(d, 4d)'s."""
    budget = A.ffn_params(d, 4 * d)
    return min(range(1, budget), key=lambda g: abs(A.gated_ffn_params(d, g, bias=True) - budget))


def train(data: dict, eta: float, steps: int, every: int, check_end: bool = True) -> dict:
    """Full-batch gradient descent θ ← θ - η g (optim.SGD, no momentum) from the shared
    start, λ_max measured every ``every`` steps on the loss of the current θ.
    ``check_end``: also λ_max at the last step from eigvalsh of the full Hessian
    (``exact_end``; None if False)."""
    model = student(data)
    params = list(model.parameters())
    opt = optim.SGD(params, lr=eta)
    losses, measured_at, sharp, v, products = [], [], [], None, 0
    for step in range(steps + 1):               # step `steps` is measured, not taken
        opt.zero_grad()
        loss = F.mse_loss(model(data["x"]), data["y"])
        losses.append(loss.item())
        if step % every == 0 or step == steps:
            lam, v, used = sharpness(loss, params, v, iterations=MAX_ITERATIONS, tol=TOL)
            products += used
            measured_at.append(step)
            sharp.append(lam)
        if step == steps:
            exact_end = (float(np.linalg.eigvalsh(full_hessian(loss, params))[-1])
                         if check_end else None)
            break
        loss.backward()
        opt.step()
    late = [s for t, s in zip(measured_at, sharp) if t >= steps // 2]
    threshold = 0.95 * 2 / eta
    reached = next((t for t, s in zip(measured_at, sharp) if s >= threshold), None)
    rises = sum(b > a for a, b in zip(losses, losses[1:]))
    return {"steps": measured_at, "sharpness": sharp, "loss": losses,
            "late_mean": float(np.mean(late)), "late_max": max(late), "late_min": min(late),
            "reached": reached, "rises": rises, "exact_end": exact_end, "products": products}


def describe(eta: float, r: dict) -> str:
    """One sentence on what the numbers show, read from them (no claim they do not make)."""
    edge = 2 / eta
    if r["reached"] is None:
        return (f"λ_max went from {r['sharpness'][0]:.3g} to {r['sharpness'][-1]:.3g}, "
                f"below 2/η = {edge:.3g} throughout; the loss rose on {r['rises']} steps.")
    start = ("started above 0.95·2/η" if r["reached"] == 0 else
             f"reached 0.95·2/η by step {r['reached']}")
    return (f"λ_max {start}; over the last half it stayed "
            f"within [{r['late_min']:.3g}, {r['late_max']:.3g}] (2/η = {edge:.3g}), and the "
            f"loss rose on {r['rises']} of {len(r['loss']) - 1} steps.")


def activations_at_init(data: dict) -> dict:
    """λ_max (power iteration to 1e-10) of the initial loss for three FFNs."""
    out = {}
    for name, kind in (("ReLU", "relu"), ("GELU", "gelu"), ("SwiGLU", "swiglu")):
        model = student(data, kind)
        params = list(model.parameters())
        loss = F.mse_loss(model(data["x"]), data["y"])
        lam, _, _ = sharpness(loss, params, iterations=2000, tol=1e-10)
        out[name] = {"sharpness": lam, "loss": loss.item(), "params": A.count_parameters(model),
                     "d_ff": gated_width(data["d"]) if kind == "swiglu" else 4 * data["d"]}
    return out


# ----------------------------------------------------------------------------- figure
def draw(runs: dict, title: str, figsize: tuple = (10, 3.8)):
    """Left: λ_max against the step for each η, 2/η dashed in the same colour. Right: the
    loss at every step (log scale)."""
    fig, (left, right) = plt.subplots(1, 2, figsize=figsize, layout="constrained")
    for i, (eta, r) in enumerate(runs.items()):
        color = f"C{i}"
        left.plot(r["steps"], r["sharpness"], color=color, lw=1.4, label=f"η = {eta:g}")
        left.axhline(2 / eta, color=color, ls="--", lw=1)
        right.plot(r["loss"], color=color, lw=1, label=f"η = {eta:g}")
    top = max(max(max(r["sharpness"]) for r in runs.values()), *(2 / eta for eta in runs))
    left.set(title="sharpness λ_max (dashed: 2/η)", xlabel="gradient-descent step",
             ylabel="largest eigenvalue of the Hessian", ylim=(0, 1.1 * top))
    right.set(title="training loss", xlabel="gradient-descent step", ylabel="mean squared error",
              yscale="log")
    for ax in (left, right):
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle(f"Full-batch gradient descent on an FFN ({title})")
    return fig


if __name__ == "__main__":
    run_script(main)
