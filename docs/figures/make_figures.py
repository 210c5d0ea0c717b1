"""Every figure in docs/, drawn by the real engine: graphs from tinyffn.to_dot, plots of
numbers that tinyffn computes (activations and their autograd derivatives, FLOPs measured
by FlopCounter, the hidden units of a trained FFN).

    python docs/figures/make_figures.py [--out DIR] [--only NAME ...]

Writes into docs/figures/ by default (commit the results); tests/test_docs.py runs it
into a temporary folder and checks it writes exactly the files committed here, the graphs
with the same nodes, edges and labels and the plots at the same size. Graphs are
SVG, rendered by Graphviz's ``dot`` (or graphviz-pure); plots are PNG, by matplotlib.
Everything is seeded, so a rerun redraws the same pictures.
"""
from __future__ import annotations

import argparse
import pathlib
import sys
from typing import Callable

import numpy as np

import tinyffn
from tinyffn import FlopCounter, accounting, nn, optim
from tinyffn import functional as F
from tinyffn.__main__ import named_forward, seed_example
from tinyffn.graphviz import render, to_dot

HERE = pathlib.Path(__file__).resolve().parent
FIGURES: dict[str, Callable[[pathlib.Path], None]] = {}


def figure(name: str):
    """Register a function that writes the file ``name`` into the folder it is given."""
    def register(fn):
        FIGURES[name] = fn
        return fn
    return register


def named_input(*shape) -> tinyffn.Tensor:
    x = tinyffn.randn(*shape)
    x.name = "x"
    return x


# ----------------------------------------------------------------------------- graphs
@figure("first_graph.svg")
def first_graph(out: pathlib.Path) -> None:
    """autograd.md: L = sum(relu(x W^T + b)) written with bare tensors."""
    tinyffn.manual_seed(0)
    x = named_input(3, 2)
    w = tinyffn.randn(4, 2, requires_grad=True)
    b = tinyffn.zeros(4, requires_grad=True)
    w.name, b.name = "W", "b"
    loss = (x @ w.T + b).relu().sum()
    loss.name = "L"
    render(to_dot(loss, rankdir="LR"), out / "first_graph.svg")


@figure("gradient_graph.svg")
def gradient_graph(out: pathlib.Path) -> None:
    """autograd.md §8: the recorded gradient of sum(tanh(x * x)), each node's backward framed.

    The gradient that the sum sends to tanh's output, ones, is passed as grad_outputs of
    tanh(x * x) and named gy (the same graph and value): the sum's backward would make it
    an unnamed (2,) box."""
    x = tinyffn.tensor([0.5, 1.0], requires_grad=True)
    x.name = "x"
    gy = tinyffn.ones(2)                            # d sum(t) / dt
    gy.name = "gy"
    (g,) = tinyffn.grad((x * x).tanh(), [x], grad_outputs=[gy], create_graph=True)
    g.name = "dy/dx"
    render(to_dot(g), out / "gradient_graph.svg")


@figure("linear.svg")
def linear(out: pathlib.Path) -> None:
    """ffn.md: nn.Linear(3, 2) on 4 positions: transpose, matmul, add."""
    tinyffn.manual_seed(0)
    layer = nn.Linear(3, 2)
    render(to_dot(layer(named_input(4, 3))), out / "linear.svg")


def ffn_graph(out: pathlib.Path, name: str, block: nn.Module, d: int, **options) -> None:
    """block on x of 3 positions; a plain FFN's a = W1 x + b1, h = σ(a) and y, a gated one's
    g = σ(W1 x), v = W3 x, h = g ⊙ v and y, are named as in the formulas, the stepper and
    ``python -m tinyffn graph``."""
    x = named_input(3, d)
    named = named_forward(block, x)
    render(to_dot(named[-1], **options), out / name)    # all held: drawn with their names


@figure("ffn_relu.svg")
def ffn_relu(out: pathlib.Path) -> None:
    tinyffn.manual_seed(0)
    ffn_graph(out, "ffn_relu.svg", nn.FFN(4), 4)


@figure("ffn_gelu.svg")
def ffn_gelu(out: pathlib.Path) -> None:
    tinyffn.manual_seed(0)
    ffn_graph(out, "ffn_gelu.svg", nn.FFN(4, activation="gelu"), 4)


@figure("ffn_gelu_folded.svg")
def ffn_gelu_folded(out: pathlib.Path) -> None:
    tinyffn.manual_seed(0)
    ffn_graph(out, "ffn_gelu_folded.svg", nn.FFN(4, activation="gelu"), 4, expand=False)


@figure("layer_norm.svg")
def layer_norm(out: pathlib.Path) -> None:
    """ffn.md: nn.LayerNorm(4) on 3 positions, expanded: the primitives of the norm."""
    tinyffn.manual_seed(0)
    x = named_input(3, 4).requires_grad_()
    render(to_dot(nn.LayerNorm(4)(x)), out / "layer_norm.svg")


@figure("gated_ffn.svg")
def gated_ffn(out: pathlib.Path) -> None:
    tinyffn.manual_seed(0)
    ffn_graph(out, "gated_ffn.svg", nn.GatedFFN(4), 4, expand=False)


@figure("moe_ffn.svg")
def moe_ffn(out: pathlib.Path) -> None:
    """ffn.md: nn.MoEFFN(4, 2 experts, top 1) on 3 positions, composed functions folded and
    each expert (and the router's Linear) folded into one box (depth=1): one gather of the
    rows sorted by expert, each expert on its slice, one index_add back, the weights. Drawn
    open (depth=None) it was 55 edges at 1645 px wide, each expert's Linears repeating the
    FFN's graph above it and its labels half size on the page. The layer is made before x,
    as ``python -m tinyffn graph --experts 2 --top-k 1`` makes it: then the router sends two
    positions to expert 0
    and one to expert 1, and both experts are drawn (made after x, all three went to
    expert 0 and expert 1 was absent)."""
    tinyffn.manual_seed(0)
    moe = nn.MoEFFN(4, num_experts=2, top_k=1)
    x = named_input(3, 4).requires_grad_()
    render(to_dot(moe(x), expand=False, depth=1), out / "moe_ffn.svg")


@figure("ffn_autocast.svg")
def ffn_autocast(out: pathlib.Path) -> None:
    """training.md: nn.FFN(4) on 3 positions inside tinyffn.autocast("cpu"), dtypes shown:
    a cast node takes each float32 weight and bias to float16 before its matmul or add."""
    tinyffn.manual_seed(0)
    ffn = nn.FFN(4)
    x = named_input(3, 4)
    with tinyffn.autocast("cpu"):
        a, h, y = named_forward(ffn, x)             # a, h held: drawn with their names
    render(to_dot(y, show_dtypes=True), out / "ffn_autocast.svg")


@figure("ffn_depth0.svg")
def ffn_depth0(out: pathlib.Path) -> None:
    tinyffn.manual_seed(0)
    ffn_graph(out, "ffn_depth0.svg", nn.FFN(4, activation="gelu"), 4, depth=0)


@figure("ffn_depth1.svg")
def ffn_depth1(out: pathlib.Path) -> None:
    tinyffn.manual_seed(0)
    ffn_graph(out, "ffn_depth1.svg", nn.FFN(4, activation="gelu"), 4, depth=1)


@figure("ffn_grads.svg")
def ffn_grads(out: pathlib.Path) -> None:
    """An FFN (d = 2, d_ff = 4) on T = 3 positions, after backward of L = ½ Σ y²."""
    tinyffn.manual_seed(0)
    ffn = nn.FFN(2, 4)
    a, h, y = named_forward(ffn, named_input(3, 2))  # (T, d) = (3, 2); a, h held: named
    loss = (y ** 2).sum() / 2
    loss.name = "L = ½ Σ y²"
    loss.backward()
    render(to_dot(loss, show_grads=True), out / "ffn_grads.svg")


@figure("backward_step.svg")
def backward_step(out: pathlib.Path) -> None:
    """One frame of `python -m tinyffn step --frames`: the seed example at the relu node."""
    with tinyffn.autograd.keep_intermediates(retain_grad=True) as kept:  # hold every value
        *_, loss = seed_example()                   # x, a, h, y and L named, as step does
    for step in tinyffn.backward_steps(loss):
        if step.op == "relu":
            frame = to_dot(loss, show_values=True, show_grads=True, highlight=step.node)
            render(frame, out / "backward_step.svg")
            break
    del kept                                        # held until the frame was drawn


# ----------------------------------------------------------------------------- plots
def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({"font.size": 9, "axes.grid": True, "grid.alpha": 0.3,
                         "svg.hashsalt": "tinyffn"})
    return plt


def save_png(fig, path: pathlib.Path) -> None:
    fig.savefig(path, dpi=100, metadata={"Software": None})


def value_and_derivative(fn, x: np.ndarray) -> tuple:
    """fn(x) and dfn/dx at every point, the derivative by tinyffn's backward."""
    t = tinyffn.tensor(x, dtype="float64", requires_grad=True)
    y = fn(t)
    y.sum().backward()                   # d(sum_i y_i)/dx_i = y'(x_i): elementwise fn
    return y.numpy(), t.grad.numpy()


ACTIVATIONS = {
    "ReLU": F.relu,
    "GELU (exact)": F.gelu,
    "GELU (tanh)": lambda x: F.gelu(x, approximate="tanh"),
    "Swish / SiLU": F.silu,
}


@figure("activations.png")
def activations(out: pathlib.Path) -> None:
    plt = pyplot()
    x = np.linspace(-4, 4, 801)
    fig, axes = plt.subplots(1, 3, figsize=(10.5, 3.2), layout="constrained")
    for label, fn in ACTIVATIONS.items():
        y, dy = value_and_derivative(fn, x)
        style = "--" if "tanh" in label else "-"
        axes[0].plot(x, y, style, label=label)
        axes[1].plot(x, dy, style, label=label)
    exact, _ = value_and_derivative(F.gelu, x)
    approx, _ = value_and_derivative(lambda t: F.gelu(t, approximate="tanh"), x)
    axes[2].plot(x, approx - exact, color="C2")
    axes[0].set(title="σ(x)", xlabel="x", ylim=(-1, 4))
    axes[1].set(title="σ'(x), by tinyffn's backward", xlabel="x", ylim=(-0.2, 1.2))
    axes[2].set(title="GELU tanh form − exact form", xlabel="x")
    axes[2].ticklabel_format(axis="y", style="sci", scilimits=(0, 0))
    axes[0].legend(loc="upper left")
    save_png(fig, out / "activations.png")
    plt.close(fig)


def attention_scores_and_mixing(x: tinyffn.Tensor) -> tinyffn.Tensor:
    """The two T×T products of self-attention (Q = K = V = x for counting): 4·T²·d."""
    scores = F.softmax(x @ x.T, axis=-1)            # (T, d) @ (d, T) -> (T, T)
    return scores @ x                               # (T, T) @ (T, d) -> (T, d)


@figure("ffn_cost.png")
def ffn_cost(out: pathlib.Path) -> None:
    """FFN 16·T·d² against attention 4·T²·d: formulas, and FlopCounter on real forwards."""
    plt = pyplot()
    d = 16
    tinyffn.manual_seed(0)
    ffn = nn.FFN(d)
    T_line = np.arange(1, 257)
    T_measured = [8, 16, 32, 64, 96, 128, 192, 256]
    measured_ffn, measured_att = [], []
    for T in T_measured:
        x = tinyffn.randn(T, d)
        measured_ffn.append(accounting.measure_forward_flops(ffn, x).forward["matmul"])
        with tinyffn.no_grad(), FlopCounter() as counter:
            attention_scores_and_mixing(x)
        measured_att.append(counter.forward["matmul"])
    fig, ax = plt.subplots(figsize=(6, 3.6), layout="constrained")
    ax.plot(T_line, [accounting.ffn_flops(T, d) for T in T_line], label="FFN  16·T·d²")
    ax.plot(T_line, [accounting.attention_flops(T, d) for T in T_line],
            label="attention  4·T²·d")
    ax.plot(T_measured, measured_ffn, "o", color="C0", label="FlopCounter, nn.FFN")
    ax.plot(T_measured, measured_att, "s", color="C1", label="FlopCounter, QKᵀ and AV")
    cross = accounting.crossover_T(d)
    ax.axvline(cross, color="gray", linestyle=":")
    ax.annotate(f"T = 4d = {cross}", (cross, 0), xytext=(cross + 6, 3.0e6), color="gray")
    ax.set(title=f"Forward matmul FLOPs per layer, d = {d}", xlabel="positions T",
           ylabel="FLOPs")
    ax.legend()
    save_png(fig, out / "ffn_cost.png")
    plt.close(fig)


def key_value_data(n_keys: int, d: int) -> tuple:
    """n_keys random unit keys in R^d and a random value for each (as key_value_memory.md)."""
    rng = np.random.default_rng(0)
    keys = rng.standard_normal((n_keys, d))
    keys /= np.linalg.norm(keys, axis=1, keepdims=True)           # (N, d), unit rows
    values = rng.standard_normal((n_keys, d))                     # (N, d)
    return tinyffn.tensor(keys), tinyffn.tensor(values)           # float64


@figure("kv_memory.png")
def kv_memory(out: pathlib.Path) -> None:
    """key_value_memory.md's memory: a ReLU FFN (d = 8, d_ff = 64) storing 32 pairs."""
    plt = pyplot()
    keys, values = key_value_data(32, 8)
    tinyffn.manual_seed(0)
    memory = nn.FFN(8, 64, dtype="float64")
    opt = optim.Adam(memory.parameters(), lr=0.01)
    for _ in range(500):
        opt.zero_grad()
        F.mse_loss(memory(keys), values).backward()
        opt.step()
    with tinyffn.no_grad():
        hidden = memory.act(memory.w1(keys)).numpy()     # (N, d_ff): σ(W1 k + b1)
    fig, ax = plt.subplots(figsize=(8, 3.4), layout="constrained")
    image = ax.imshow(hidden, cmap="Blues", aspect="auto", interpolation="nearest")
    ax.set(title="σ(W1 k + b1): how strongly each hidden unit fires for each stored key",
           xlabel="hidden unit i  (detector row W1[i, :], contribution column W2[:, i])",
           ylabel="key")
    ax.grid(False)
    fig.colorbar(image, ax=ax)
    save_png(fig, out / "kv_memory.png")
    plt.close(fig)


@figure("edge_of_stability.png")
def edge_of_stability(out: pathlib.Path) -> None:
    """training.md: demos/ffn_curvature.py's runs at its default size, drawn by its draw()."""
    plt = pyplot()
    sys.path.insert(0, str(HERE.parent.parent / "demos"))
    try:
        import ffn_curvature as demo
    finally:
        sys.path.pop(0)
    data = demo.make_data(demo.D, demo.N, "cpu")
    runs = {eta: demo.train(data, eta, demo.STEPS, demo.EVERY, check_end=False)
            for eta in demo.LRS}
    fig = demo.draw(runs, f"d = {demo.D}, d_ff = {4 * demo.D}, {demo.N} positions",
                    figsize=(10, 3.6))
    save_png(fig, out / "edge_of_stability.png")
    plt.close(fig)


# ----------------------------------------------------------------------------- main
def main(argv: list | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=pathlib.Path, default=HERE,
                        help="folder to write into (default: docs/figures)")
    parser.add_argument("--only", nargs="+", choices=sorted(FIGURES), metavar="NAME",
                        help="draw only these figures")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.only or FIGURES:
        FIGURES[name](args.out)
        print(f"wrote {args.out / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
