"""The seed chapter's self-test, worked with tinyffn: (c) by hand, then (a), (b) and (e).

    python demos/seed_selftest.py [--device cpu|cuda] [--out DIR] [--quick]

What to look for:

* (c) the forward pass of the 2 -> 4 -> 2 example one step at a time, W1 x, ReLU, W2 h,
  ending in FFN((1, 0)) = (2, 0) and FFN((0, 1)) = (1, 2) (the chapter asks for them and
  gives no numbers: these are worked out by hand); the same numbers from ``nn.FFN`` on both
  positions at once.
* (a) 8d² + 5d parameters, counted entry by entry from real ``nn.FFN`` objects and from
  the formula; then §4's LLaMA-7B arithmetic (where the seed's "~6.7e9" comes from).
* (b) FFN FLOPs 16·T·d² against attention's 4·T²·d: measured with ``FlopCounter`` on small
  real forwards, then from the formulas at LLaMA-7B's size; the cross-over at T = 4d.
* (e) SwiGLU's three matrices, counted from real ``nn.GatedFFN`` objects, and the
  d_ff ≈ 8d/3 rule that brings the count back to 8d².

Where the seed's wording and the measured numbers differ, the demo says so. (d) asks
for an argument, not a number: docs/ffn.md answers it ("Why not let the FFN mix positions
too"), and demos/per_position_jacobian.py shows it.
"""
from __future__ import annotations

import tinyffn
from tinyffn import accounting as A
from tinyffn import nn

from _attention import SelfAttention, attention_core
from _common import header, parse_args, run_script, table, vector

NAME = "seed_selftest"

# Self-test (c): d = 2, d_ff = 4, zero biases, σ = ReLU.
W1 = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 1.0]]       # (d_ff, d): one detector per row
W2 = [[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0]]             # (d, d_ff): one output per column
INPUTS = [[1.0, 0.0], [0.0, 1.0]]
EXPECTED = [[2.0, 0.0], [1.0, 2.0]]       # worked out by hand (the chapter gives none)


def main(argv: list | None = None) -> dict:
    """Run the four parts; returns {"c": ..., "a": ..., "b": ..., "e": ..., "figures": []}."""
    args = parse_args(NAME, __doc__.split("\n")[0], argv, figures=False)
    print("The seed chapter's self-test, worked with tinyffn tensors "
          f"(device {args.device}).")
    return {
        "c": worked_example(args.device),
        "a": parameter_count(args.device, [2, 8] if args.quick else [2, 8, 64, 512]),
        "b": flop_count(args.device, 8 if args.quick else 16),
        "e": gated_parameter_count(args.device, 12 if args.quick else 96),
        "figures": [],              # numbers only: a table says these better than a picture
    }


# ----------------------------------------------------------------------------- (c)
def worked_example(device: str) -> dict:
    """FFN(x) = W2 relu(W1 x + b1) + b2 for the chapter's two inputs, step by step.

    Each row of W1 is a detector: (W1 x)_i scores how much of that pattern x holds. ReLU
    keeps the positive scores; W2 adds up the columns of the units that fired. Raises
    RuntimeError if the answers are not (2, 0) and (1, 2), worked out by hand.
    """
    header("(c) The forward pass by hand: d = 2, d_ff = 4, zero biases, σ = ReLU")
    w1 = tinyffn.tensor(W1, device=device)                     # (4, 2)
    w2 = tinyffn.tensor(W2, device=device)                     # (2, 4)
    b1 = tinyffn.zeros(4, device=device)
    b2 = tinyffn.zeros(2, device=device)
    print("hidden units 0 to 3, counted from 0 as in W1[i, :] and W2[:, i]")
    print(f"W1 rows (detectors) = {W1}\nW2 columns (contributions) = "
          f"{[list(c) for c in zip(*W2)]}")
    outputs = []
    for x_list in INPUTS:
        x = tinyffn.tensor(x_list, device=device)              # (2,)
        a = w1 @ x + b1                                        # (4, 2) @ (2,) -> (4,)
        h = a.relu()                                           # (4,)
        y = w2 @ h + b2                                        # (2, 4) @ (4,) -> (2,)
        off = [str(i) for i, v in enumerate(a.numpy()) if v <= 0]   # from 0, as W2[:, i]
        print(f"\nx = {vector(x)}")
        print(f"  a = W1 x + b1  = {vector(a)}   one score per hidden unit")
        print(f"  h = relu(a)    = {vector(h)}   unit{'s' * (len(off) > 1)} "
              f"{' and '.join(off)} off (score <= 0)")
        print(f"  y = W2 h + b2  = {vector(y)}")
        outputs.append(y.numpy().tolist())

    ffn = nn.FFN(2, 4, activation="relu", device=device)
    ffn.load_state_dict({"w1.weight": W1, "w1.bias": [0.0] * 4,
                         "w2.weight": W2, "w2.bias": [0.0] * 2})
    both = ffn(tinyffn.tensor(INPUTS, device=device))          # (T=2, d=2): two positions
    print(f"\nnn.FFN on both positions at once, X = {INPUTS} (T = 2, d = 2):")
    print(f"  FFN(X) = {both.numpy().tolist()}   (row t is FFN of position t alone)")
    if outputs != EXPECTED or both.numpy().tolist() != EXPECTED:
        raise RuntimeError(f"self-test (c): expected {EXPECTED}, got {outputs} step by step "
                           f"and {both.numpy().tolist()} from nn.FFN")
    print("Both agree with the hand computation: FFN((1, 0)) = (2, 0), FFN((0, 1)) = (1, 2).")
    return {"outputs": [tuple(y) for y in outputs], "ffn_outputs": both.numpy().tolist()}


# ----------------------------------------------------------------------------- (a)
def parameter_count(device: str, widths: list) -> dict:
    """8d² + 5d: the entries of W1 (4d, d), W2 (d, 4d), b1 (4d,), b2 (d,), counted from real
    ``nn.FFN(d)`` objects and compared with ``accounting.ffn_params``; then §4's totals."""
    header("(a) Parameters of the FFN with d_ff = 4d: 8d² + 5d")
    rows, counted = [], {}
    for d in widths:
        ffn = nn.FFN(d, device=device)
        sizes = {name: p.numel() for name, p in ffn.named_parameters()}
        n = A.count_parameters(ffn)
        if not n == sum(sizes.values()) == A.ffn_params(d) == 8 * d * d + 5 * d:
            raise RuntimeError(f"self-test (a): nn.FFN({d}) has {n} parameters, "
                               f"the formula says {8 * d * d + 5 * d}")
        counted[d] = n
        rows.append([d, sizes["w1.weight"], sizes["w2.weight"], sizes["w1.bias"],
                     sizes["w2.bias"], n, 8 * d * d + 5 * d])
    print(table(["d", "W1", "W2", "b1", "b2", "counted", "8d²+5d"], rows))
    d = widths[-1]
    no_bias = A.count_parameters(nn.FFN(d, bias=False, device=device))
    attention = A.count_parameters(SelfAttention(d, device=device))
    print(f"Without biases (as in LLaMA) nn.FFN({d}) has {no_bias:,} = 8d²;\nattention's "
          f"W_Q, W_K, W_V, W_O have {attention:,} = 4d²;\none block {no_bias + attention:,} "
          f"= 12d² = accounting.block_params({d}) = {A.block_params(d):,}.")

    totals = A.llama7b_totals()
    print("\n§4 for LLaMA-7B (d = 4096, 32 layers, vocabulary 32,000), from the formulas:")
    print(table(["term", "parameters", "≈"], [
        ["12d² per block", totals["per_block"], f"{totals['per_block']:.2e}"],
        ["× 32 blocks", totals["blocks"], f"{totals['blocks']:.2e}"],
        ["embedding V·d", totals["embedding"], f"{totals['embedding']:.2e}"],
        ["total, output tied to embedding", totals["total_tied"], f"{totals['total_tied']:.2e}"],
        ["total, separate output matrix", totals["total_untied"],
         f"{totals['total_untied']:.2e}"],
        ["exact LLaMA-7B (SwiGLU, norms)", totals["exact"], f"{totals['exact']:.2e}"]]))
    print("Note: the seed ties the output projection to the embedding and quotes ~6.7e9; "
          f"tied gives {totals['total_tied'] / 1e9:.2f}e9.\n"
          f"~6.7e9 needs a separate output matrix ({totals['total_untied'] / 1e9:.2f}e9), "
          f"which LLaMA has (exact count {totals['exact'] / 1e9:.2f}e9).")
    return {"counted": counted, "formula": {d: A.ffn_params(d) for d in widths},
            "no_bias": no_bias, "attention": attention, "llama7b": totals}


# ----------------------------------------------------------------------------- (b)
def flop_count(device: str, d: int) -> dict:
    """16·T·d² (FFN) against 4·T²·d (attention's two T² products), measured and formula.

    Measured: ``FlopCounter`` around a real ``nn.FFN(d)`` forward and around the attention
    core softmax(Q K^T / sqrt(d)) V, at T = d, 4d and 16d. Formula: LLaMA-7B's size.
    """
    header("(b) FLOPs: FFN 16·T·d² against attention ~4·T²·d")
    ffn = nn.FFN(d, device=device)
    rows, measured = [], {}
    for T in (d, 4 * d, 16 * d):
        x, q, k, v = (tinyffn.randn(T, d, device=device) for _ in range(4))
        ffn_flops = A.measure_forward_flops(ffn, x).forward["matmul"]
        with tinyffn.no_grad(), tinyffn.FlopCounter() as counter:
            attention_core(q, k, v)
        attn_flops = counter.forward["matmul"]
        if ffn_flops != A.ffn_flops(T, d) or attn_flops != A.attention_flops(T, d):
            raise RuntimeError(f"self-test (b): measured {ffn_flops}, {attn_flops}; formulas "
                               f"{A.ffn_flops(T, d)}, {A.attention_flops(T, d)}")
        measured[T] = (ffn_flops, attn_flops)
        rows.append([T, ffn_flops, 16 * T * d * d, attn_flops, 4 * T * T * d,
                     _dominant(ffn_flops, attn_flops)])
    print(f"Measured with FlopCounter at d = {d} (matmul FLOPs of one forward):")
    print(table(["T", "FFN measured", "16·T·d²", "attn measured", "4·T²·d", "larger"], rows))
    print(f"They meet at T = 4d = {4 * d}, as 16·T·d² = 4·T²·d  <=>  T = 4d.")

    T, d_llama = 2048, 4096
    ffn_big, attn_big = A.ffn_flops(T, d_llama), A.attention_flops(T, d_llama)
    crossover = A.crossover_T(d_llama)
    print(f"\nLLaMA-7B (d = {d_llama}, T = {T}), from the formulas:")
    print(f"  FFN       16·T·d² = {ffn_big:.3e} FLOPs per layer")
    print(f"  attention  4·T²·d = {attn_big:.3e} FLOPs per layer")
    print(f"  the FFN does {ffn_big / attn_big:g}× the work (= 4d / T); attention would "
          f"dominate beyond T = 4d = {crossover:,}.")
    return {"measured": measured, "d": d, "crossover_small": 4 * d,
            "llama_ffn": ffn_big, "llama_attention": attn_big, "llama_crossover": crossover}


def _dominant(ffn_flops: int, attn_flops: int) -> str:
    if ffn_flops == attn_flops:
        return "equal"
    return "FFN" if ffn_flops > attn_flops else "attention"


# ----------------------------------------------------------------------------- (e)
def gated_parameter_count(device: str, d: int) -> dict:
    """SwiGLU, y = W2 (Swish(W1 x) ⊙ W3 x): three d × d_ff matrices instead of two.

    Counted from real ``nn.GatedFFN`` objects at d_ff = 4d and at the default d_ff = 8d/3
    (LLaMA's rule); LLaMA-7B's own width (11008) from the formula.
    """
    header("(e) SwiGLU: three matrices, and d_ff ≈ 8d/3")
    plain = A.count_parameters(nn.FFN(d, bias=False, device=device))
    wide = nn.GatedFFN(d, d_ff=4 * d, device=device)
    wide_count = A.count_parameters(wide)
    expand_plain = 4 * d * d                                          # W1 alone
    expand_gated = wide.w1.weight.numel() + wide.w3.weight.numel()    # W1 and W3
    rule = nn.GatedFFN(d, device=device)
    rule_count = A.count_parameters(rule)
    print(table([f"FFN (d = {d}, no biases)", "d_ff", "expand params", "total", "/ 8d²"], [
        ["plain FFN", 4 * d, expand_plain, plain, plain / (8 * d * d)],
        ["SwiGLU, same d_ff", wide.d_ff, expand_gated, wide_count, wide_count / (8 * d * d)],
        ["SwiGLU, d_ff = 2/3·4d", rule.d_ff, 2 * d * rule.d_ff, rule_count,
         rule_count / (8 * d * d)]]))
    llama_d_ff = nn.gated_d_ff(4096, multiple_of=256)
    llama_count = A.gated_ffn_params(4096, multiple_of=256)
    print(f"LLaMA-7B: d_ff = 2/3·4·4096 = {8 * 4096 / 3:.1f}, rounded up to a multiple of 256 "
          f"= {llama_d_ff};\n3·d·d_ff = {llama_count:,} = {llama_count / (8 * 4096 ** 2):.4f} "
          "× 8d² (from the formula; a real GatedFFN(4096) would be 0.5 GB).")
    print(f"Note: the seed says the extra matrix 'triples' the expand parameters. Counted, "
          f"the expand side\ndoubles ({expand_plain:,} -> {expand_gated:,}) and the whole FFN "
          f"grows {wide_count / plain:g}× (8d² -> 12d²);\n3 is the number of matrices. "
          "Shrinking d_ff to 2/3 of 4d restores 8d², so FFN : attention\nparameters stay "
          "2 : 1; the seed's 'closer to 3 : 1' (§3b) holds only if d_ff stays at 4d.")
    if wide_count != 12 * d * d or abs(rule_count / (8 * d * d) - 1) > 0.01:
        raise RuntimeError(f"self-test (e): GatedFFN({d}) counts {wide_count} at d_ff = 4d and "
                           f"{rule_count} at d_ff = {rule.d_ff}")
    return {"plain": plain, "gated_same_d_ff": wide_count, "ratio_same_d_ff": wide_count / plain,
            "expand_ratio": expand_gated / expand_plain, "gated_d_ff": rule.d_ff,
            "gated_rule": rule_count, "llama_d_ff": llama_d_ff, "llama_count": llama_count}


if __name__ == "__main__":
    run_script(main)
