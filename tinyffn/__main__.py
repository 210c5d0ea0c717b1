"""The command line: ``python -m tinyffn <command> ...``.

* ``graph``: draw the computation graph of an FFN (a gated FFN, a mixture of experts) on
  random input.
* ``step``: walk backward through the seed chapter's worked example, one node at a time.

Each command is a pair in :data:`COMMANDS`: a function that adds its options to an
argparse parser, and a function that runs it and returns the exit code.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import sys

import tinyffn
from tinyffn import grad_mode, nn
from tinyffn.graphviz import RANKDIRS, to_dot
from tinyffn.rendering import TEXT_FORMATS, RendererNotFoundError, find_renderer, render
from tinyffn.stepper import backward_steps

# The seed's self-test (c): d = 2, d_ff = 4, zero biases, ReLU, x = (1, 0).
SEED_W1 = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 1.0]]      # (d_ff, d)
SEED_W2 = [[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0]]            # (d, d_ff)
SEED_X = [1.0, 0.0]                                               # (d,)


# ----------------------------------------------------------------------------- graph
def graph_arguments(parser: argparse.ArgumentParser) -> None:
    activations = sorted(set(nn.FFN_ACTIVATIONS + nn.GATED_ACTIVATIONS))
    parser.add_argument("--activation", type=activation_name, choices=activations,
                        help="σ (default: relu; swish with --gated, which makes SwiGLU; "
                             "gelu with --gated makes GEGLU)")
    parser.add_argument("--d-model", type=positive, default=4, metavar="D",
                        help="model width d (default 4)")
    parser.add_argument("--d-ff", type=positive, metavar="D_FF",
                        help="hidden width (default 4d; 2/3 of 4d with --gated)")
    parser.add_argument("--tokens", type=positive, default=3, metavar="T",
                        help="positions T (default 3): the input x is (T, d)")
    parser.add_argument("--gated", action="store_true", help="a gated FFN: W2 (σ(W1 x) ⊙ W3 x)")
    parser.add_argument("--experts", type=positive, metavar="E",
                        help="a mixture of E such FFNs with a router (nn.MoEFFN)")
    parser.add_argument("--top-k", type=positive, metavar="K",
                        help="with --experts: the experts each position goes to (default: "
                             "2, or 1 with one expert)")
    parser.add_argument("--out", type=picture_path, metavar="FILE",
                        help="write the picture here (.svg, .png or .pdf; .dot for the DOT "
                             "text); without it, print the DOT text")
    parser.add_argument("--depth", type=natural, metavar="K",
                        help="fold modules this deep into one box (0 = all; default: "
                             "fold none)")
    parser.add_argument("--no-expand", action="store_true",
                        help="draw each composed function (linear, gelu, swish) as one node")
    parser.add_argument("--show-grads", action="store_true",
                        help="end in the loss L = ½ Σ y², run backward, show the gradients")
    parser.add_argument("--rankdir", choices=RANKDIRS, default="TB",
                        help="layout direction (default TB: top to bottom)")
    parser.add_argument("--fused", action="store_true",
                        help="the fast form: each Linear and the activation as one node")
    parser.add_argument("--autocast", action="store_true",
                        help="mixed precision (tinyffn.autocast): the matmuls in float16, "
                             "with the cast nodes that take the weights there")


def graph(args: argparse.Namespace) -> int:
    block_type = nn.GatedFFN if args.gated else nn.FFN
    valid = nn.GATED_ACTIVATIONS if args.gated else nn.FFN_ACTIVATIONS
    if args.activation is not None and args.activation not in valid:
        print(f"tinyffn graph: {block_type.__name__} takes --activation {' or '.join(valid)}, "
              f"not {args.activation}", file=sys.stderr)
        return 2
    if args.top_k is not None and args.experts is None:
        print("tinyffn graph: --top-k chooses among the experts of a mixture: add --experts E",
              file=sys.stderr)
        return 2
    if args.experts is not None and (args.top_k or 1) > args.experts:
        print(f"tinyffn graph: --top-k {args.top_k} is more than the {args.experts} experts "
              "there are", file=sys.stderr)
        return 2
    tinyffn.manual_seed(0)
    options = {} if args.activation is None else {"activation": args.activation}
    if args.experts is None:
        block = block_type(args.d_model, args.d_ff, fused=args.fused, **options)
    else:
        block = nn.MoEFFN(args.d_model, args.experts, args.top_k or min(2, args.experts),
                          args.d_ff, gated=args.gated, fused=args.fused, **options)
    # a mixture's x requires grad, so that the gather of the experts' rows is drawn too
    # (nothing is recorded of a constant's index_select)
    x = tinyffn.randn(args.tokens, args.d_model, requires_grad=args.experts is not None)
    x.name = "x"
    with tinyffn.autocast("cpu", enabled=args.autocast):
        if isinstance(block, (nn.FFN, nn.GatedFFN)):    # named as the formula names them,
            *held, root = named_forward(block, x)       # held: a freed tensor loses its name
        else:
            root = block(x)                         # (T, d)
        if args.show_grads:
            root = (root ** 2).sum() / 2            # L = ½ Σ y², a scalar
            root.name = "L = ½ Σ y²"
    if args.show_grads:
        root.backward()
    idle = [] if args.experts is None else \
        [e for e, n in enumerate(block.tokens_per_expert.tolist()) if n == 0]
    if idle:        # on stderr: without --out, stdout is the DOT text
        one = len(idle) == 1
        print(f"tinyffn graph: expert{'' if one else 's'} {', '.join(map(str, idle))} "
              f"{'was' if one else 'were'} chosen by no position: {'it' if one else 'they'} "
              f"did not run and {'is' if one else 'are'} not drawn (more --tokens spread "
              "the choices)", file=sys.stderr)
    dot = to_dot(root, show_grads=args.show_grads, expand=not args.no_expand, depth=args.depth,
                 rankdir=args.rankdir, show_dtypes=args.autocast)
    if args.out is None:
        sys.stdout.write(dot)
        return 0
    print(f"wrote {render(dot, args.out)}")
    return 0


# ----------------------------------------------------------------------------- step
def step_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--frames", type=pathlib.Path, metavar="DIR",
                        help="also write one SVG of the graph per step, the current node lit")


def step(args: argparse.Namespace) -> int:
    if args.frames is not None:
        find_renderer()                             # fail before printing half a walk
        args.frames.mkdir(parents=True, exist_ok=True)
    # `kept` holds every intermediate tensor, and so its value and .grad, for the frames
    with grad_mode.keep_intermediates(retain_grad=True) as kept:
        ffn, x, a, h, y, loss = seed_example()
    print("The seed's worked example: FFN(x) = W2 relu(W1 x + b1) + b2 with d = 2, d_ff = 4,")
    print(f"W1 = {SEED_W1}, W2 = {SEED_W2}, zero biases, x = {SEED_X}.\n")
    print(f"Forward:  a = W1 x + b1 = {a.tolist()},  h = relu(a) = {h.tolist()},")
    print(f"          y = W2 h + b2 = {y.tolist()},  loss L = ½ Σ y² = {loss.item():g}.\n")
    print("Backward visits each op once, from the loss back to the parameters. At each op,")
    print("dL/d(out), the gradient of the loss with respect to the op's own output, arrives,")
    print("and each input receives dL/d(in) = dL/d(out) · d(out)/d(in), its share by the")
    print("chain rule. (out and in are the op's; x, a, h and y are the FFN's tensors.)\n")
    for s in backward_steps(loss):
        print(s.describe() + "\n")
        if args.frames is not None:
            frame = to_dot(loss, show_values=True, show_grads=True, highlight=s.node)
            render(frame, args.frames / f"step_{s.index:02d}_{s.op}.svg")
    print("Gradients of the parameters:")
    for name, p in ffn.named_parameters():
        print(f"  {name:10} {p.grad.tolist()}")
    check, *_, check_loss = seed_example()
    check_loss.backward()
    same = all(p.grad.tolist() == q.grad.tolist()
               for p, q in zip(ffn.parameters(), check.parameters()))
    print(f"loss.backward() on a fresh copy gives the same gradients: {'yes' if same else 'NO'}")
    if args.frames is not None:
        print(f"frames written to {args.frames}/")
    del kept                                        # held until the last frame was drawn
    return 0 if same else 1


def named_forward(ffn: nn.Module, x: tinyffn.Tensor) -> tuple:
    """The tensors of ``y = ffn(x)`` named as the formulas name them, so that a drawing's
    boxes and the stepper's lines say which line of the formula each tensor is:

    * an ``nn.FFN``: (a, h, y), a = W1 x + b1, h = σ(a), y = W2 h + b2 (the seed chapter);
    * an ``nn.GatedFFN``: (g, v, h, y), g = σ(W1 x) the gate, v = W3 x the value,
      h = g ⊙ v, y = W2 h (activations.md).

    They are caught by forward hooks (h as the input of ``w2``, so that an activation given
    as a plain function, ``F.elu``, which takes no hook, is caught too), as one reads the
    activations inside a PyTorch model; the hooks are
    removed. Hold the tensors while drawing: the graph keeps no intermediate tensor
    (autograd.md §5), and the box of one that was freed shows its shape alone."""
    caught = {}                                     # name -> the tensor it names

    def keep(name, t):          # returns None: a hook's module keeps its input and output
        caught[name] = t
    if isinstance(ffn, nn.GatedFFN):
        names = ("g", "v", "h", "y")
        handles = [ffn.act.register_forward_hook(lambda m, args, out: keep("g", out)),
                   ffn.w3.register_forward_hook(lambda m, args, out: keep("v", out)),
                   ffn.w2.register_forward_pre_hook(lambda m, args: keep("h", args[0]))]
    else:
        names = ("a", "h", "y")
        handles = [ffn.w1.register_forward_hook(lambda m, args, out: keep("a", out)),
                   ffn.w2.register_forward_pre_hook(lambda m, args: keep("h", args[0]))]
    try:
        caught["y"] = ffn(x)                        # (..., d)
    finally:
        for handle in handles:
            handle.remove()
    for name, t in caught.items():                  # (..., d_ff) each, and y (..., d)
        t.name = name
    return tuple(caught[name] for name in names)


def seed_example() -> tuple:
    """(ffn, x, a, h, y, loss) of the worked example: a = W1 x + b1, h = relu(a), y = W2 h + b2
    and L = ½ Σ y² (so dL/dy = y). Each is named (:func:`named_forward`), so that the
    stepper's printout calls the tensors by these names."""
    ffn = nn.FFN(2, 4, activation="relu")
    ffn.load_state_dict({"w1.weight": SEED_W1, "w1.bias": [0.0] * 4,
                         "w2.weight": SEED_W2, "w2.bias": [0.0] * 2})
    x = tinyffn.tensor(SEED_X)
    x.name = "x"
    a, h, y = named_forward(ffn, x)                 # (4,), (4,), (2,)
    loss = (y ** 2).sum() / 2                       # ()
    loss.name = "L = ½ Σ y²"
    return ffn, x, a, h, y, loss


# ----------------------------------------------------------------------------- main
def positive(text: str) -> int:
    return _integer(text, 1)


def natural(text: str) -> int:
    return _integer(text, 0)


GATED_NAMES = {"swiglu": "swish", "geglu": "gelu"}     # the gated FFNs' own names


def activation_name(text: str) -> str:
    if text.lower() in GATED_NAMES:
        raise argparse.ArgumentTypeError(
            f"{text} is a gated FFN: use --gated --activation {GATED_NAMES[text.lower()]}")
    return text


PICTURE_SUFFIXES = (".svg", ".png", ".pdf") + tuple("." + f for f in TEXT_FORMATS)


def picture_path(text: str) -> pathlib.Path:
    path = pathlib.Path(text)
    if path.suffix.lower() not in PICTURE_SUFFIXES:
        raise argparse.ArgumentTypeError(
            f"{text!r} does not end in one of {', '.join(PICTURE_SUFFIXES)}; the suffix "
            "chooses the format")
    return path


MAX_SIZE = 2 ** 31 - 1      # beyond it NumPy cannot even describe the array


def _integer(text: str, low: int) -> int:
    if not text.lstrip("-").isdigit() or not low <= int(text) <= MAX_SIZE:
        raise argparse.ArgumentTypeError(f"expected an integer from {low} to {MAX_SIZE}, "
                                         f"got {text!r}")
    return int(text)


COMMANDS = {
    "graph": (graph_arguments, graph, "draw the computation graph of an FFN"),
    "step": (step_arguments, step, "walk backward through the seed's worked example"),
}
# what --help shows under the description: a few command lines to copy
EXAMPLES = {
    None: ["graph --out ffn.svg", "graph --gated --activation gelu --show-grads",
           "step", "graph --help"],
    "graph": ["graph", "graph --activation gelu --d-model 4 --out ffn.svg",
              "graph --gated --depth 1 --out swiglu.png", "graph --show-grads --out ffn.dot",
              "graph --experts 2 --top-k 1 --no-expand --out moe.svg",
              "graph --autocast --out ffn_autocast.svg"],
    "step": ["step", "step --frames frames"],
}


def examples(command: str | None) -> str:
    lines = [f"  python -m tinyffn {example}" for example in EXAMPLES[command]]
    return "\n".join(["examples:"] + lines)


def main(argv: list | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tinyffn", epilog=examples(None),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="tinyffn's command line: draw the graph of an FFN, or watch backward\n"
                    "walk the seed chapter's worked example one node at a time.")
    commands = parser.add_subparsers(dest="command", required=True)
    for name, (add_arguments, _, help_text) in COMMANDS.items():
        add_arguments(commands.add_parser(name, help=help_text, description=help_text,
                                          epilog=examples(name),
                                          formatter_class=argparse.RawDescriptionHelpFormatter))
    args = parser.parse_args(argv)
    try:
        return COMMANDS[args.command][1](args)
    except RendererNotFoundError as e:
        print(f"tinyffn {args.command}: {e}", file=sys.stderr)
        return 1
    except MemoryError as e:                        # --d-model 100000: a 298 GiB weight
        print(f"tinyffn {args.command}: not enough memory ({e}); choose smaller sizes",
              file=sys.stderr)
        return 1
    except BrokenPipeError:
        # `python -m tinyffn step | head`: the reader left. Point stdout at /dev/null so
        # the flush at exit does not raise again (the recipe of Python's signal docs).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as e:                            # --out names a folder, --frames a file
        print(f"tinyffn {args.command}: cannot write there: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
