"""A tour of the feed-forward block in five demos, about 13 seconds on a 2-core CPU.

    python demos/tour.py [--device cpu|cuda] [--out DIR] [--quick]

1. seed_selftest          the chapter's worked example and its counts, step by step
2. train_activations      ReLU, GELU, Swish, SwiGLU and no σ at all, on two spirals
3. key_value_memory       the FFN as a sum of (detector, contribution) pairs
4. per_position_jacobian  the FFN never mixes positions; attention always does
5. cost_model             FLOPs against T: the FFN's 16·T·d², attention's 4·T²·d, T = 4d

Each runs with its default sizes (``--quick``: the tiny sizes the tests use) and writes
its figures to ``<out>/<demo>/`` (default ``out/tour/``). Every demo is also a script of
its own, with the same options; run one to see it alone.
"""
from __future__ import annotations

import math

import cost_model
import key_value_memory
import per_position_jacobian
import seed_selftest
import train_activations
from _common import Stopwatch, parse_args, run_script, shown, table

NAME = "tour"
DEMOS = [seed_selftest, train_activations, key_value_memory, per_position_jacobian,
         cost_model]


def main(argv: list | None = None) -> dict:
    """Run the five demos in order; returns {demo name: its result, with "seconds"}."""
    args = parse_args(NAME, __doc__.split("\n")[0], argv)
    print("The FFN tour: FFN(x) = W2 σ(W1 x + b1) + b2, applied to every position alone, "
          f"on device {args.device}.")
    results = {}
    for number, demo in enumerate(DEMOS, start=1):
        banner(number, demo)
        argv_demo = ["--device", args.device, "--out", args.out / demo.NAME]
        with Stopwatch() as clock:
            results[demo.NAME] = demo.main(argv_demo + (["--quick"] if args.quick else []))
        results[demo.NAME]["seconds"] = clock.seconds
    summary(results, args.out)
    return results


def banner(number: int, demo) -> None:
    """A rule, the demo's number and name, its one-line description, a rule."""
    rule = "=" * 80
    print(f"\n{rule}\n {number}/{len(DEMOS)}  {demo.NAME}\n {demo.__doc__.splitlines()[0]}\n{rule}")


def summary(results: dict, out) -> None:
    """One line per demo: what it showed, how long it took; then where the figures are."""
    selftest = results["seed_selftest"]
    training = results["train_activations"]["results"]
    memory = results["key_value_memory"]
    jacobian = results["per_position_jacobian"]
    cost = results["cost_model"]
    non_linear = min(r["test_acc"] for name, r in training.items() if "linear" not in name)
    lines = {
        "seed_selftest": "FFN((1, 0)) = ({:g}, {:g}), FFN((0, 1)) = ({:g}, {:g}); "
                         "counts = formulas".format(*sum(selftest["c"]["outputs"], ())),
        "train_activations": f"held-out accuracy ≥ {math.floor(non_linear * 100)}% with σ, "
                             f"{training['linear (no σ)']['test_acc']:.0%} without",
        "key_value_memory": f"sum over units = forward pass to "
                            f"{memory['reconstruction_error']:.0e}",
        "per_position_jacobian": f"off-block-diagonal |J|: FFN "
                                 f"{jacobian['ffn_off_block_norm']:g}, attention "
                                 f"{jacobian['attention_off_block_norm']:.3g}",
        "cost_model": f"measured = formula; cross-over at T = {cost['crossover']} = 4d "
                      f"(d = {cost['d']})",
    }
    print(f"\n{'=' * 80}\n Summary\n{'=' * 80}")
    print(table(["demo", "seconds", "what it showed"],
                [[name, f"{results[name]['seconds']:.1f}", lines[name]] for name in lines]))
    total = sum(r["seconds"] for r in results.values())
    print(f"\nAll five in {total:.1f} s. Figures, in {shown(out)}/:")
    for name, result in results.items():
        for figure in result.get("figures", []):
            print(f"  {shown(figure)}")


if __name__ == "__main__":
    run_script(main)
