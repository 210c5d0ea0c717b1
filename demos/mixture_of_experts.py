"""A mixture of FFN experts: eight FFNs' parameters for about one FFN's FLOPs per position.

    python demos/mixture_of_experts.py [--device cpu|cuda] [--out DIR] [--quick] [--steps N]
                                       [--capacity-factor C]

The task: the inputs x in R^16 come from 8 clusters, and each cluster has its own target
function, a random ReLU FFN (the "teacher" of that cluster): y = teacher_c(x). One FFN of
width d_ff = 4d must fit all eight functions with one set of weights; a mixture of experts
(``nn.MoEFFN``, Switch's top-1 routing) can give each cluster an expert of its own.

Five students, each trained the same way (Adam, mini-batches of 256, the same data order):

* FFN d_ff = 4d: the seed's FFN, the baseline (16d² FLOPs per position);
* MoE 8 × 4d, top 1: 8 experts of the baseline's size, each position sent to one, with
  the load-balancing loss (× 0.01): 8 times the parameters, the baseline's FLOPs plus the
  router's 2·d·E;
* the same without the load-balancing loss;
* MoE 8 × 2d, top 2 (Mixtral's top 2, experts half as wide): the same FLOPs again, half
  the parameters of the top-1 mixture;
* FFN d_ff = 32d: as many parameters as the top-1 mixture, every one used for every
  position: 8 times the FLOPs.

Counted, not assumed: the parameters by ``count_parameters`` and the FLOPs per position by
a ``FlopCounter`` around a forward pass, each checked against its formula.

What to look for (the default run; --quick is too short to say much): the mixtures reach
less than half the baseline's held-out error, as low as the 8-times-wider FFN does with 8
times the FLOPs; without the load-balancing loss an expert can end up with no position at
all (a "dead" expert, an empty column in its routing table), with it every expert is used;
and the routing tables show experts specializing in clusters, which nothing told them about.

``--capacity-factor C`` gives the three mixtures Switch's capacity, C = ⌈c·N·k/E⌉ choices
per expert of a forward's N·k (N = 256 in training; in the evaluation, the 2048 held-out
points at once); the output then says which share of the choices was dropped, on the
held-out points and in training, and the held-out error of the same mixtures evaluated
without the limit (FLOPs are counted with the limit: dropped choices cost none). A point
all of whose choices were dropped gets y = 0: this task has no residual connection to carry
it, so each one costs the error of predicting 0; the output gives the share of such points
and the error there and at the others (docs/ffn.md has the figures for c = 1, 1.25, 2).
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import tinyffn
from tinyffn import accounting as A
from tinyffn import nn, optim
from tinyffn.__main__ import positive    # the CLI's argparse type: an integer >= 1

from _common import header, parse_args, plt, run_script, save_figure, shown, table

NAME = "mixture_of_experts"
D = 16                  # model width
CLUSTERS = 8            # input clusters, each with its own target function
EXPERTS = 8
TEACHER_WIDTH = 32      # hidden width of each cluster's random target FFN
BATCH = 256
LR = 3e-3
AUX = 0.01              # weight of the load-balancing loss (Switch's value)
SEED = 0


def positive_float(text: str) -> float:
    """--capacity-factor's argparse type: a finite number above 0."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {text!r}")
    return value


def add_arguments(parser) -> None:
    parser.add_argument("--steps", type=positive, help="training steps (default 600; 40 quick)")
    parser.add_argument("--capacity-factor", type=positive_float, metavar="C",
                        help="the mixtures' capacity factor (default: none, nothing dropped)")


def main(argv: list | None = None) -> dict:
    """Train five students; returns {"results": {name: {"params", "flops", "test_mse",
    "load", "experts_used", "aux_loss", "purity", "dropped", "dropped_in_training",
    "test_mse_dropless", "lost"}}, "routing" and "routing_no_aux":
    cluster × expert counts of the two top-1 mixtures, "steps", "figures"}."""
    args = parse_args(NAME, __doc__.split("\n")[0], argv, add_arguments)
    steps = args.steps or (40 if args.quick else 600)
    n_train, n_test = (512, 256) if args.quick else (8192, 2048)

    header(f"{CLUSTERS} clusters in R^{D}, each with its own random ReLU FFN as the target; "
           f"{n_train} training and {n_test} held-out points")
    data = make_data(n_train, n_test, args.device)
    models = build_models(args.device, args.capacity_factor)
    counts = {name: counted(model, data["x_test"]) for name, (model, _, _) in models.items()}
    print(table(["student", "parameters", "formula", "FLOPs / position", "formula"],
                [[name, c["params"], models[name][2][0], c["flops"], models[name][2][1]]
                 for name, c in counts.items()]))

    header(f"Training: Adam, lr {LR}, {steps} steps of {BATCH} points, the same order for each")
    histories, results = {}, {}
    for name, (model, aux, _) in models.items():
        histories[name], dropped = train(model, data, steps, aux)
        results[name] = {**counts[name], **evaluate(model, data), "dropped_in_training": dropped}
    print(table(["student", "params", "FLOPs / pos", "held-out MSE", "experts used",
                 "largest load", "aux loss", "dropped"],
                [[name, r["params"], r["flops"], f"{r['test_mse']:.4f}",
                  "-" if r["load"] is None else f"{r['experts_used']} of {EXPERTS}",
                  "-" if r["load"] is None else f"{max(r['load']):.0%}",
                  "-" if r["aux_loss"] is None else f"{r['aux_loss']:.2f}",
                  "-" if r["dropped"] is None else f"{r['dropped']:.1%}"]
                 for name, r in results.items()]))
    if args.capacity_factor is not None:
        print(f"Capacity factor {args.capacity_factor}: dropped, the share of the held-out "
              "choices past their expert's capacity; each dropped position's y is 0 (no "
              "residual here). The same mixtures, evaluated without the limit:")
        for name, r in results.items():
            if r["dropped"] is not None:
                lost = r["lost"]
                print(f"  {name.strip()}: held-out MSE {r['test_mse_dropless']:.4f}; "
                      f"{r['dropped_in_training']:.1%} of the choices dropped in training; "
                      f"{lost['share']:.1%} of the held-out points lost every choice"
                      + ("" if lost["mse"] is None else f" (error {lost['mse']:.3f} there, "
                         f"{lost['mse_others']:.4f} at the others)"))
    base = results["FFN 4d"]["test_mse"]
    for name in ("MoE 8×4d top-1", "MoE 8×2d top-2", "FFN 32d"):
        r = results[name]
        print(f"{name}: {r['test_mse'] / base:.0%} of the baseline's error, for "
              f"{r['params'] / results['FFN 4d']['params']:.1f}x its parameters and "
              f"{r['flops'] / results['FFN 4d']['flops']:.2f}x its FLOPs per position")
    print("Largest load: the busiest expert's share of the held-out choices, one per "
          f"position with top 1 and two with top 2 (even: {1 / EXPERTS:.1%}).\nAux loss, "
          "E · Σ_e (share of the choices) · (mean router probability): 1 when they are "
          f"even, at most {EXPERTS} when one expert takes them all (top 1), {EXPERTS // 2} "
          "when two do (top 2).")

    routings = {name: routing_table(models[name][0], data)
                 for name in ("MoE 8×4d top-1", "  same, no aux loss")}
    for name, routing in routings.items():
        label = name.strip().replace("same", "MoE 8×4d top-1")
        header(f"Which expert each cluster's held-out points go to ({label}), in % "
               "(rounded)")
        print(table(["cluster"] + [f"e{e}" for e in range(EXPERTS)],
                    [[c] + [f"{100 * n / max(1, row.sum()):.0f}" for n in row]
                     for c, row in enumerate(routing)]))
        print(f"Purity: {results[name]['purity']:.0%} of a cluster's points go to its busiest "
              "expert, on average (100%: one expert per cluster); the clusters were never "
              "shown to the router. An expert that no cluster uses is a column of zeros.")

    figures = [plot_losses(histories, args.out), plot_routing(routings, args.out)]
    print("\nFigures: " + ", ".join(shown(p) for p in figures))
    return {"results": results, "routing": routings["MoE 8×4d top-1"],
            "routing_no_aux": routings["  same, no aux loss"], "steps": steps,
            "figures": figures}


# ----------------------------------------------------------------------------- data
def make_data(n_train: int, n_test: int, device: str) -> dict:
    """Points around CLUSTERS centres (radius 3, noise 0.5), each labelled with its cluster,
    and the target y = teacher_c(x): a random ReLU FFN per cluster, of TEACHER_WIDTH units."""
    rng = np.random.default_rng(SEED)
    centres = rng.normal(size=(CLUSTERS, D))
    centres *= 3 / np.linalg.norm(centres, axis=1, keepdims=True)
    w1 = rng.normal(size=(CLUSTERS, TEACHER_WIDTH, D)) / np.sqrt(D)
    w2 = rng.normal(size=(CLUSTERS, D, TEACHER_WIDTH)) / np.sqrt(TEACHER_WIDTH)

    def sample(n):
        c = rng.integers(0, CLUSTERS, n)
        x = centres[c] + 0.5 * rng.normal(size=(n, D))
        h = np.maximum(np.einsum("nhd,nd->nh", w1[c], x), 0)          # teacher_c's hidden
        y = np.einsum("ndh,nh->nd", w2[c], h)
        return [tinyffn.tensor(a.astype(np.float32), device=device) for a in (x, y)] + [c]

    (x, y, _), (x_test, y_test, c_test) = sample(n_train), sample(n_test)
    return {"x": x, "y": y, "x_test": x_test, "y_test": y_test, "cluster_test": c_test}


# ----------------------------------------------------------------------------- models
def build_models(device: str, capacity_factor: float | None = None) -> dict:
    """name -> (model, weight of the load-balancing loss, (parameter formula, FLOPs
    formula)), each made right after ``manual_seed(SEED)``; the mixtures with
    ``capacity_factor``."""
    d, c = D, capacity_factor
    makers = {
        "FFN 4d": (lambda: nn.FFN(d, 4 * d, device=device), 0.0,
                   (A.ffn_params(d), A.ffn_flops(1, d))),
        "MoE 8×4d top-1": (lambda: nn.MoEFFN(d, EXPERTS, 1, 4 * d, capacity_factor=c,
                                             device=device), AUX,
                           (A.moe_ffn_params(d, EXPERTS), A.moe_ffn_flops(1, d, EXPERTS, 1))),
        "  same, no aux loss": (lambda: nn.MoEFFN(d, EXPERTS, 1, 4 * d, capacity_factor=c,
                                                  device=device), 0.0,
                                (A.moe_ffn_params(d, EXPERTS),
                                 A.moe_ffn_flops(1, d, EXPERTS, 1))),
        "MoE 8×2d top-2": (lambda: nn.MoEFFN(d, EXPERTS, 2, 2 * d, capacity_factor=c,
                                             device=device), AUX,
                           (A.moe_ffn_params(d, EXPERTS, 2 * d),
                            A.moe_ffn_flops(1, d, EXPERTS, 2, 2 * d))),
        "FFN 32d": (lambda: nn.FFN(d, 32 * d, device=device), 0.0,
                    (A.ffn_params(d, 32 * d), A.ffn_flops(1, d, 32 * d))),
    }
    models = {}
    for name, (make, aux, formulas) in makers.items():
        tinyffn.manual_seed(SEED)
        models[name] = (make(), aux, formulas)
    return models


def counted(model: nn.Module, x: tinyffn.Tensor) -> dict:
    """Parameters, and the forward pass's matmul FLOPs per position, measured."""
    flops = A.measure_forward_flops(model, x).forward["matmul"]
    return {"params": A.count_parameters(model), "flops": flops // x.shape[0]}


# ----------------------------------------------------------------------------- training
def train(model: nn.Module, data: dict, steps: int, aux: float) -> tuple:
    """Adam on mini-batches; the loss is the mean squared error, plus ``aux`` times the
    mixture's load-balancing loss. Returns the squared error at each step, and for a
    mixture the share of its choices dropped over all steps (None for an FFN)."""
    opt = optim.Adam(model.parameters(), lr=LR)
    order = tinyffn.Generator().manual_seed(SEED)       # the same batches for every student
    n, history, dropped = data["x"].shape[0], [], 0
    for _ in range(steps):
        idx = tinyffn.randint(0, n, (BATCH,), generator=order).to(data["x"].device)
        opt.zero_grad()
        x, y = data["x"].index_select(0, idx), data["y"].index_select(0, idx)   # x[idx]
        mse = (model(x) - y).square().mean()
        loss = mse + aux * model.aux_loss if aux else mse
        loss.backward()
        opt.step()
        history.append(mse.item())
        if isinstance(model, nn.MoEFFN):
            dropped += model.dropped_per_expert.sum().item()
    if not isinstance(model, nn.MoEFFN):
        return history, None
    return history, dropped / (steps * BATCH * model.top_k)


def evaluate(model: nn.Module, data: dict) -> dict:
    """Held-out error; for a mixture, each expert's share of the held-out choices, the
    share of them dropped, and the error without the capacity limit (the same when none)."""
    def held_out_errors():
        with tinyffn.no_grad():
            y = model(data["x_test"])
            return y, (y - data["y_test"]).square().mean(dim=-1).numpy()     # one per point
    if not isinstance(model, nn.MoEFFN):
        return {"test_mse": float(held_out_errors()[1].mean()), "load": None,
                "experts_used": None, "aux_loss": None, "purity": None, "dropped": None,
                "test_mse_dropless": None, "lost": None}
    capacity_factor, model.capacity_factor = model.capacity_factor, None
    dropless = float(held_out_errors()[1].mean())   # the same mixture, every choice served
    model.capacity_factor = capacity_factor
    y, errors = held_out_errors()               # last: tokens_per_expert, aux_loss are its
    mse = float(errors.mean())
    dropped = model.dropped_per_expert.sum().item() / model.tokens_per_expert.sum().item()
    # a point all of whose choices were dropped gets y = 0 exactly (nothing is added into
    # its row); a served point's y is 0 in every coordinate with probability 0
    lost = ~y.numpy().any(axis=-1)
    lost_errors = {"share": float(lost.mean()),
                   "mse": float(errors[lost].mean()) if lost.any() else None,
                   "mse_others": float(errors[~lost].mean())}
    counts = model.tokens_per_expert.numpy()
    load = (counts / counts.sum()).tolist()
    routing = routing_table(model, data)
    return {"test_mse": mse, "load": load, "experts_used": int((counts > 0).sum()),
            "aux_loss": model.aux_loss.item(), "dropped": dropped, "test_mse_dropless": dropless,
            "lost": lost_errors,
            "purity": float((routing.max(axis=1) / routing.sum(axis=1)).mean())}


def routing_table(model: nn.MoEFFN, data: dict) -> np.ndarray:
    """counts[c, e]: held-out points of cluster c whose first choice is expert e."""
    with tinyffn.no_grad():
        first = model.gate(data["x_test"]).argmax(dim=-1).numpy()     # softmax keeps the order
    counts = np.zeros((CLUSTERS, model.num_experts), dtype=np.int64)
    np.add.at(counts, (data["cluster_test"], first), 1)
    return counts


# ----------------------------------------------------------------------------- figures
def plot_losses(histories: dict, out: Path) -> Path:
    """Training error against step, one line per student, log scale."""
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for name, history in histories.items():
        ax.plot(history, label=name.strip(), lw=1.4, ls="--" if "FFN" in name else "-")
    ax.set_yscale("log")
    ax.set_xlabel(f"Adam step ({BATCH} points)")
    ax.set_ylabel("mean squared error (batch)")
    ax.set_title("One FFN against a mixture of FFN experts")
    ax.legend()
    ax.grid(alpha=0.3, which="both")
    return save_figure(fig, out, "moe_loss_curves")


def plot_routing(routings: dict, out: Path) -> Path:
    """Each cluster × expert table as a heat map, each row as shares of its cluster."""
    fig, axes = plt.subplots(1, len(routings), figsize=(4.6 * len(routings) + 1, 4.4))
    for ax, (name, routing) in zip(axes, routings.items()):
        shares = routing / np.maximum(1, routing.sum(axis=1, keepdims=True))
        image = ax.imshow(shares, cmap="Blues", vmin=0, vmax=1)
        ax.set_xlabel("expert (first choice)")
        ax.set_ylabel("input cluster")
        ax.set_xticks(range(routing.shape[1]))
        ax.set_yticks(range(routing.shape[0]))
        ax.set_title(name.strip().replace("same", "MoE 8×4d top-1"))
    fig.suptitle("Where each cluster is routed")
    fig.colorbar(image, ax=list(axes), label="share of the cluster's points")
    return save_figure(fig, out, "moe_routing")


if __name__ == "__main__":
    run_script(main)
