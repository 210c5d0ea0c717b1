"""python -m tinyffn: the graph and step commands."""
import argparse
import math
import os
import re
import shutil
import subprocess
import sys
import weakref
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import tinyffn
import tinyffn.__main__ as cli
from tinyffn import nn
from tinyffn.__main__ import COMMANDS, main

needs_renderer = pytest.mark.skipif(not any(shutil.which(p) for p in ("dot", "graphviz-pure")),
                                    reason="no dot or graphviz-pure on PATH")


def test_commands_are_listed():
    assert list(COMMANDS) == ["graph", "step"]


def test_graph_prints_dot_text(capsys):
    assert main(["graph", "--activation", "gelu", "--d-model", "4"]) == 0
    dot = capsys.readouterr().out
    assert dot.startswith("digraph {") and dot.endswith("}\n")
    assert 'label="erf"' in dot and 'label="act: GELU"' in dot
    assert 'label="w1.weight\\n(16, 4)"' in dot            # d_ff = 4 d


def test_graph_options_reach_the_drawing(capsys):
    assert main(["graph", "--gated", "--depth", "1"]) == 0
    dot = capsys.readouterr().out
    assert dot.count("box3d") == 4                          # w1, act, w3, w2
    assert main(["graph", "--no-expand", "--rankdir", "LR"]) == 0
    dot = capsys.readouterr().out
    assert "rankdir=LR" in dot and dot.count("peripheries=2") == 2    # two linears
    assert main(["graph"]) == 0
    assert "rankdir=TB" in capsys.readouterr().out                   # top to bottom by default
    assert main(["graph", "--show-grads"]) == 0
    dot = capsys.readouterr().out
    assert "Σ over axes (0,)" in dot and "grad " in dot and "L = ½ Σ y²" in dot


def test_graph_fused_draws_one_node_per_linear_and_activation(capsys):
    assert main(["graph", "--fused", "--activation", "gelu"]) == 0
    dot = capsys.readouterr().out
    assert dot.count('label="linear"') == 2 and dot.count('label="gelu\\napproximate=') == 1
    assert 'label="matmul"' not in dot and 'label="erf"' not in dot


def test_graph_autocast_draws_the_casts_and_the_dtypes(capsys):
    assert main(["graph", "--autocast", "--show-grads"]) == 0
    dot = capsys.readouterr().out
    # W1, b1, W2, b2 to float16; y back to float32 for the loss's pow (autocast's list)
    assert dot.count('label="cast\\ndtype=float16"') == 4
    assert dot.count('label="cast\\ndtype=float32"') == 1
    assert 'label="x (cast)\\n(3, 4)\\nfloat16"' in dot           # x's cast: no node
    assert 'label="w1.weight\\n(16, 4)\\nfloat32' in dot            # the weights stay
    assert main(["graph"]) == 0
    assert "cast" not in capsys.readouterr().out


def test_step_into_a_closed_pipe_exits_quietly():
    """`python -m tinyffn step | head -1`: no BrokenPipeError traceback, exit status 1.
    The reader is gone before the first write (its end of the pipe closed at the start):
    a reader that reads a line first would usually leave after the child had written all
    of its 3 KB into the pipe's buffer, and the handler would never run."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        step = subprocess.run([sys.executable, "-m", "tinyffn", "step"], stdout=write_end,
                              stderr=subprocess.PIPE, timeout=60)
    finally:
        os.close(write_end)
    assert step.returncode == 1 and step.stderr == b""


def test_graph_refuses_an_activation_the_block_lacks(capsys):
    assert main(["graph", "--gated", "--activation", "relu"]) == 2
    assert "swish or gelu" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["graph", "--d-model", "0"])
    assert exit_.value.code == 2 and "integer from 1 to 2147483647" in capsys.readouterr().err


def test_a_gated_name_for_activation_points_at_gated(capsys):
    for name, activation in [("swiglu", "swish"), ("GeGLU", "gelu")]:
        with pytest.raises(SystemExit) as exit_:
            main(["graph", "--activation", name])
        assert exit_.value.code == 2
        assert f"{name} is a gated FFN: use --gated --activation {activation}" in \
            capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["graph", "--activation", "tanh"])             # no hint: argparse's own message
    assert "invalid choice: 'tanh'" in capsys.readouterr().err


@pytest.mark.parametrize("command", [[], ["graph"], ["step"]])
def test_help_is_plain_text_with_examples_and_defaults(command, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(command + ["--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    assert "``" not in text and ":func:" not in text        # no reStructuredText markup
    examples = text[text.index("\nexamples:\n"):].splitlines()[2:]
    assert examples and all(e.startswith("  python -m tinyffn " + " ".join(command))
                            for e in examples)
    if command:                                             # each option shown exists
        options = {w for e in examples for w in e.split() if w.startswith("--")}
        assert options and all(f"  {o}" in text for o in options)
    if command == ["graph"]:
        one_line = " ".join(text.split())
        for default in ("(default 4)", "(default 3)", "default TB", "default: relu",
                        "default: fold none"):
            assert default in one_line


@needs_renderer
def test_graph_writes_svg(tmp_path, capsys):
    out = tmp_path / "ffn.svg"
    assert main(["graph", "--gated", "--activation", "gelu", "--out", str(out)]) == 0
    assert ET.parse(out).getroot().tag.endswith("svg")


def test_graph_without_renderer_says_how_to_install(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert main(["graph", "--out", str(tmp_path / "ffn.svg")]) == 1
    assert "apt-get install graphviz" in capsys.readouterr().err
    assert main(["step", "--frames", str(tmp_path / "frames")]) == 1
    assert capsys.readouterr().out == ""                    # failed before printing anything


def test_step_prints_the_walk(capsys):
    assert main(["step"]) == 0
    out = capsys.readouterr().out
    assert "a = W1 x + b1 = [1.0, 0.0, 1.0, -1.0],  h = relu(a) = [1.0, 0.0, 1.0, 0.0]" in out
    assert "y = W2 h + b2 = [2.0, 0.0],  loss L = ½ Σ y² = 2." in out
    assert out.count("\nstep ") == 10
    assert "  w1.weight  [[2.0, 0.0], [0.0, 0.0], [2.0, 0.0], [0.0, 0.0]]" in out
    assert "gives the same gradients: yes" in out
    # the seed's weights, whose second columns x = (1, 0) hides from every value above
    assert ("W1 = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 1.0]], "
            "W2 = [[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0]], zero biases") in out
    # dL/dh = W2ᵀ y, by hand: y = (2, 0)
    assert "input 0, h (4,), gets dL/d(in) = [2, 0, 2, 0]" in out
    assert "frames written" not in out


@needs_renderer
def test_step_writes_one_frame_per_step(tmp_path, capsys):
    folder = tmp_path / "new" / "frames"                    # missing folders are made
    assert main(["step", "--frames", str(folder)]) == 0
    assert capsys.readouterr().out.endswith(f"frames written to {folder}/\n")
    frames = sorted(folder.glob("*.svg"))
    assert [f.name for f in frames][:3] == ["step_00_div.svg", "step_01_sum.svg",
                                           "step_02_pow.svg"]
    assert len(frames) == 10
    for frame in frames:
        assert ET.parse(frame).getroot().tag.endswith("svg")
    relu = (folder / "step_06_relu.svg").read_text()
    assert "value [1, 0, 1, " in relu        # a = W1 x = (1, 0, 1, -1); dot writes - as &#45;
    assert "grad [2, 0, 2, 0]" in relu                      # dL/dh, an intermediate's grad


def test_module_runs_as_a_program():
    result = subprocess.run([sys.executable, "-m", "tinyffn", "step"], capture_output=True,
                            text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert "step 9: transpose" in result.stdout
    bad = subprocess.run([sys.executable, "-m", "tinyffn"], capture_output=True, text=True,
                         check=False)
    assert bad.returncode == 2 and "graph" in bad.stderr


def test_graph_out_dot_writes_the_text_without_a_renderer(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", "")                         # no dot, no graphviz-pure
    assert main(["graph", "--out", str(tmp_path / "new" / "ffn.dot")]) == 0
    assert capsys.readouterr().out == f"wrote {tmp_path / 'new' / 'ffn.dot'}\n"
    assert main(["graph"]) == 0
    assert (tmp_path / "new" / "ffn.dot").read_text() == capsys.readouterr().out


@needs_renderer
def test_graph_out_creates_missing_folders(tmp_path):
    path = tmp_path / "a" / "b" / "ffn.svg"
    assert main(["graph", "--out", str(path)]) == 0
    assert ET.parse(path).getroot().tag.endswith("svg")


def test_graph_out_with_an_unknown_suffix_is_refused_before_drawing(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["graph", "--out", str(tmp_path / "ffn.xyz")])
    assert stop.value.code == 2
    assert "does not end in one of .svg, .png, .pdf, .dot, .gv" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_an_unwritable_out_or_frames_path_is_one_line_not_a_traceback(tmp_path, capsys):
    folder = tmp_path / "ffn.svg"
    folder.mkdir()
    a_file = tmp_path / "notes.txt"
    a_file.write_text("")
    assert main(["graph", "--out", str(folder)]) == 1
    assert capsys.readouterr().err.startswith("tinyffn graph: cannot write there: [Errno 21]")
    assert main(["step", "--frames", str(a_file)]) == 1
    assert "tinyffn step: cannot write there: [Errno 17] File exists" in capsys.readouterr().err


def test_sizes_too_large_for_memory_are_one_line(monkeypatch, capsys):
    def no_memory(*args, **kwargs):
        raise MemoryError("Unable to allocate 298. GiB for an array")
    monkeypatch.setattr("tinyffn.nn.FFN.__init__", no_memory)
    assert main(["graph", "--d-model", "100000"]) == 1
    assert capsys.readouterr().err == ("tinyffn graph: not enough memory (Unable to allocate "
                                       "298. GiB for an array); choose smaller sizes\n")


def test_a_size_numpy_cannot_describe_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["graph", "--d-model", str(10 ** 20)])
    assert stop.value.code == 2
    assert "expected an integer from 1 to 2147483647" in capsys.readouterr().err


def test_graph_defaults_and_sizes_reach_the_model(capsys):
    assert main(["graph"]) == 0
    dot = capsys.readouterr().out
    assert 'label="x\\n(3, 4)"' in dot and 'label="w1.weight\\n(16, 4)"' in dot
    assert main(["graph", "--tokens", "5", "--d-model", "3", "--d-ff", "7"]) == 0
    dot = capsys.readouterr().out
    assert 'label="x\\n(5, 3)"' in dot and 'label="w1.weight\\n(7, 3)"' in dot


def test_show_grads_are_those_of_half_the_sum_of_squares(capsys):
    torch = pytest.importorskip("torch")
    assert main(["graph", "--show-grads"]) == 0
    first = capsys.readouterr().out
    assert main(["graph", "--show-grads"]) == 0
    assert capsys.readouterr().out == first                 # seeded: the same picture twice
    tinyffn.manual_seed(0)                                  # the CLI's model and input, in torch
    ffn, x = nn.FFN(4), tinyffn.randn(3, 4)
    W1, b1, W2, b2 = (torch.tensor(p.numpy(), requires_grad=True) for p in ffn.parameters())
    y = torch.relu(torch.tensor(x.numpy()) @ W1.T + b1) @ W2.T + b2
    (0.5 * (y ** 2).sum()).backward()
    shown = re.search(r'label="w2\.bias\\n\(4,\)\\ngrad \[([^\]]*)\]"', first).group(1)
    torch.testing.assert_close(torch.tensor([float(v) for v in shown.split(", ")]), b2.grad,
                               rtol=1e-3, atol=1e-3)


def test_show_grads_are_seeded_and_those_of_half_the_sum_of_squares_without_torch(capsys):
    """The check above needs torch; this one recomputes dL/db2 = Σ_t y_t in NumPy."""
    assert main(["graph", "--show-grads"]) == 0
    first = capsys.readouterr().out
    assert main(["graph", "--show-grads"]) == 0
    assert capsys.readouterr().out == first                 # seeded: the same picture twice
    tinyffn.manual_seed(0)                                  # the CLI's model and input
    ffn, x = nn.FFN(4), tinyffn.randn(3, 4)
    W1, b1, W2, b2 = (p.numpy().astype(np.float64) for p in ffn.parameters())
    y = np.maximum(x.numpy() @ W1.T + b1, 0) @ W2.T + b2
    shown = re.search(r'label="w2\.bias\\n\(4,\)\\ngrad \[([^\]]*)\]"', first).group(1)
    np.testing.assert_allclose([float(v) for v in shown.split(", ")], y.sum(axis=0),
                               rtol=1e-3, atol=1e-3)


def test_sizes_are_integers_up_to_the_largest_numpy_can_describe():
    assert cli.positive("2147483647") == 2 ** 31 - 1 and cli.natural("0") == 0
    for text, parse in (("2147483648", cli.positive), ("0", cli.positive), ("-1", cli.natural),
                        ("2.5", cli.positive)):
        with pytest.raises(argparse.ArgumentTypeError, match=r"expected an integer from [01] "
                                                              r"to 2147483647"):
            parse(text)


def test_depth_0_folds_everything_and_d_ff_0_is_a_usage_error(capsys):
    assert main(["graph", "--depth", "0"]) == 0
    capsys.readouterr()
    with pytest.raises(SystemExit) as stop:
        main(["graph", "--d-ff", "0"])
    assert stop.value.code == 2


def test_an_upper_case_suffix_is_accepted(tmp_path, capsys):
    assert main(["graph", "--out", str(tmp_path / "ffn.DOT")]) == 0
    assert (tmp_path / "ffn.DOT").read_text().startswith("digraph {")


def test_step_says_NO_and_fails_when_the_check_disagrees(monkeypatch, capsys):
    calls = []

    def seed_example():
        calls.append(1)
        ffn = nn.FFN(2, 4, activation="relu")
        ffn.load_state_dict({"w1.weight": cli.SEED_W1, "w1.bias": [0.0] * 4,
                             "w2.weight": cli.SEED_W2,
                             "w2.bias": [0.0, 0.0] if len(calls) == 1 else [0.0, 1.0]})
        x = tinyffn.tensor(cli.SEED_X)
        a = ffn.w1(x)
        h = ffn.act(a)
        y = ffn.w2(h)
        return ffn, x, a, h, y, (y ** 2).sum() / 2
    monkeypatch.setattr(cli, "seed_example", seed_example)
    assert main(["step"]) == 1          # w1's gradients still agree, w2's do not
    assert "gives the same gradients: NO" in capsys.readouterr().out


def test_graph_experts_draws_a_mixture_each_expert_between_a_gather_and_an_index_add(capsys):
    assert main(["graph", "--experts", "3", "--top-k", "1", "--tokens", "6"]) == 0
    dot = capsys.readouterr().out
    assert 'label="gate.weight\\n(3, 4)"' in dot                   # the router: E × d
    used = sum(f'label="experts.{e}: FFN"' in dot for e in range(3))
    # the choices sorted by expert: one gather of all the rows, each expert that some
    # position chose runs once, on its slice of them, and one index_add puts them back
    assert 1 <= used <= 3
    assert dot.count('label="index_select"') == dot.count('label="index_add\\n') == 1
    assert len(re.findall(r'label="getitem\\nkey=\[\d+:\d+\]"', dot)) == used
    assert 'label="softmax"' in dot and 'label="topk"' in dot          # the router's frames
    assert main(["graph", "--experts", "2", "--gated", "--no-expand"]) == 0
    dot = capsys.readouterr().out
    assert 'label="experts.0: GatedFFN"' in dot and 'label="experts.1: GatedFFN"' in dot
    # top 2 of 2: the 6 choices, 3 for each expert, a slice each, one index_add back
    assert 'label="getitem\\nkey=[0:3]"' in dot and 'label="getitem\\nkey=[3:6]"' in dot
    assert dot.count('label="index_add\\n') == 1


def test_graph_experts_says_which_experts_no_position_chose_and_so_are_not_drawn(capsys):
    """--experts 4 --top-k 2 on 3 positions draws three experts: expert 2 got no position,
    did not run, and left nothing in the graph; the command says so, on stderr, so the
    DOT text on stdout stays DOT."""
    assert main(["graph", "--experts", "4", "--top-k", "2"]) == 0
    out, err = capsys.readouterr()
    drawn = [e for e in range(4) if f'label="experts.{e}: FFN"' in out]
    # the reference: the same layer on the same input, as the command builds them
    tinyffn.manual_seed(0)
    moe = nn.MoEFFN(4, 4, 2)
    moe(tinyffn.randn(3, 4))
    chosen = [e for e, n in enumerate(moe.tokens_per_expert.tolist()) if n > 0]
    assert drawn == chosen == [0, 1, 3]
    assert "expert 2 was chosen by no position: it did not run and is not drawn" in err
    assert main(["graph", "--experts", "2", "--top-k", "2"]) == 0    # every expert runs
    assert capsys.readouterr().err == ""


def test_graph_top_k_needs_experts_and_at_most_that_many(capsys):
    assert main(["graph", "--top-k", "1"]) == 2
    assert "add --experts E" in capsys.readouterr().err
    assert main(["graph", "--experts", "2", "--top-k", "3"]) == 2
    assert "--top-k 3 is more than the 2 experts" in capsys.readouterr().err
    # as many as there are is fine, and one expert alone defaults to top 1
    assert main(["graph", "--experts", "2", "--top-k", "2"]) == 0
    capsys.readouterr()
    assert main(["graph", "--experts", "1"]) == 0
    dot = capsys.readouterr().out
    assert dot.count('label="index_add\\n') == 1 and 'label="experts.0: FFN"' in dot


def test_graph_experts_takes_the_ffn_options_and_defaults_to_top_2(capsys):
    assert main(["graph", "--experts", "2", "--d-ff", "5", "--activation", "gelu",
                 "--fused"]) == 0
    dot = capsys.readouterr().out
    assert 'label="experts.0.w1.weight\\n(5, 4)"' in dot             # d_ff = 5
    assert dot.count('label="gelu\\napproximate=') == 2 and 'label="erf"' not in dot
    assert dot.count('label="matmul"') == 1                          # the router's alone
    # top 2 of 2: the 6 choices sorted by expert, each expert's slice all 3 positions
    assert 'label="getitem\\nkey=[0:3]"' in dot and 'label="getitem\\nkey=[3:6]"' in dot


def _labels_and_edges(dot):
    labels = dict(re.findall(r'^\t*(n\d+) \[label="([^"]*)"', dot, re.M))   # nodes, not edges
    return labels, re.findall(r'(n\d+) -> (n\d+)', dot)


@pytest.mark.parametrize("fused", [False, True])
def test_graph_names_a_h_and_y_at_the_tensors_the_formula_names(fused, capsys):
    """a = W1 x + b1 is what w1's last op makes and relu reads, h = relu(a) what relu makes
    and w2 reads, y the output: the names the stepper uses, on the right boxes."""
    assert main(["graph", *(["--fused"] if fused else [])]) == 0
    labels, edges = _labels_and_edges(capsys.readouterr().out)
    node = {text.split("\\n")[0]: n for n, text in labels.items()
            if text.split("\\n")[0] in ("a", "h", "y", "w1.bias", "w2.bias")}
    made_by = {dst: src for src, dst in edges}
    read_by = {src: dst for src, dst in edges}
    assert (labels[node["a"]], labels[node["h"]], labels[node["y"]]) == \
        ("a\\n(3, 16)", "h\\n(3, 16)", "y\\n(3, 4)")
    first, last = ("linear", "linear") if fused else ("add", "add")
    assert labels[made_by[node["a"]]] == first and read_by[node["w1.bias"]] == made_by[node["a"]]
    assert labels[made_by[node["h"]]] == labels[read_by[node["a"]]] == "relu"
    assert labels[read_by[node["h"]]] == ("linear" if fused else "matmul")
    assert labels[made_by[node["y"]]] == last and read_by[node["w2.bias"]] == made_by[node["y"]]


def test_named_forward_names_the_formula_s_tensors_and_leaves_no_hook():
    tinyffn.manual_seed(0)
    ffn, x = nn.FFN(3, 5, activation="gelu"), tinyffn.randn(2, 3)
    a, h, y = cli.named_forward(ffn, x)
    W1, b1, W2, b2 = (p.numpy() for p in ffn.parameters())
    erf = np.vectorize(math.erf)
    a_np = x.numpy() @ W1.T + b1
    h_np = 0.5 * a_np * (1 + erf(a_np / np.sqrt(2)))
    np.testing.assert_allclose(a.numpy(), a_np, rtol=1e-5)
    np.testing.assert_allclose(h.numpy(), h_np, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(y.numpy(), h_np @ W2.T + b2, rtol=1e-5, atol=1e-6)
    assert (a.name, h.name, y.name) == ("a", "h", "y")
    a_later = ffn.w1(x)                     # a hook left on w1, or on w2's input, would
    h_later = ffn.act(a_later)              # keep these
    ffn.w2(h_later)
    kept = [weakref.ref(a_later), weakref.ref(h_later)]
    del a_later, h_later
    assert [k() for k in kept] == [None, None]
    labels, _ = _labels_and_edges(tinyffn.to_dot(cli.named_forward(ffn, x)[-1]))
    assert "a\\n(2, 5)" not in labels.values()          # a freed: its box shows the shape only


def test_named_forward_of_an_ffn_whose_activation_is_a_plain_function():
    """An activation given as a function (F.elu) takes no hook: h is caught as w2's input
    (it raised AttributeError: 'function' object has no attribute 'register_forward_hook')."""
    tinyffn.manual_seed(0)
    ffn, x = nn.FFN(3, 5, activation=tinyffn.nn.functional.elu), tinyffn.randn(2, 3)
    a, h, y = cli.named_forward(ffn, x)
    a_np = a.numpy()
    np.testing.assert_allclose(h.numpy(), np.where(a_np > 0, a_np, np.expm1(a_np)), rtol=1e-6)
    assert (a.name, h.name, y.name) == ("a", "h", "y")


@pytest.mark.parametrize("fused", [False, True])
def test_graph_gated_names_g_v_h_and_y_at_the_tensors_the_formula_names(fused, capsys):
    """activations.md's g = σ(W1 x), v = W3 x, h = g ⊙ v, y = W2 h: g is what the swish
    makes and the mul reads, v what w3 makes and the mul reads, h what the mul makes and
    w2 reads, y the output."""
    assert main(["graph", "--gated", *(["--fused"] if fused else [])]) == 0
    labels, edges = _labels_and_edges(capsys.readouterr().out)
    node = {text.split("\\n")[0]: n for n, text in labels.items()
            if text.split("\\n")[0] in ("g", "v", "h", "y", "w1.weight", "w3.weight")}
    made_by = {dst: src for src, dst in edges}
    reads = {}
    for src, dst in edges:
        reads.setdefault(src, []).append(dst)
    linear = "linear" if fused else "matmul"
    assert [labels[node[n]] for n in "gvhy"] == ["g\\n(3, 10)", "v\\n(3, 10)", "h\\n(3, 10)",
                                                   "y\\n(3, 4)"]
    assert labels[made_by[node["g"]]].split("\\n")[0] == ("swish" if fused else "mul")  # x σ(x)
    assert reads[node["g"]] == reads[node["v"]] == [made_by[node["h"]]]
    assert labels[made_by[node["h"]]] == "mul"
    assert labels[made_by[node["v"]]] == labels[reads[node["h"]][0]] == linear   # no biases

    def downstream(n):
        out, todo = set(), [n]
        while todo:
            out.add(todo[-1])
            todo += reads.get(todo.pop(), [])
        return out
    assert node["g"] in downstream(node["w1.weight"]) - downstream(node["w3.weight"])
    assert node["v"] in downstream(node["w3.weight"]) - downstream(node["w1.weight"])


def test_named_forward_of_a_gated_ffn_matches_the_formula_and_leaves_no_hook():
    tinyffn.manual_seed(0)
    block, x = nn.GatedFFN(3, 5, activation="gelu", bias=True), tinyffn.randn(2, 3)
    g, v, h, y = cli.named_forward(block, x)
    (W1, b1), (W2, b2), (W3, b3) = ((m.weight.numpy(), m.bias.numpy())
                                    for m in (block.w1, block.w2, block.w3))
    pre = x.numpy() @ W1.T + b1
    g_np = 0.5 * pre * (1 + np.vectorize(math.erf)(pre / np.sqrt(2)))      # GeGLU's gate
    v_np = x.numpy() @ W3.T + b3
    for t, want in ((g, g_np), (v, v_np), (h, g_np * v_np), (y, (g_np * v_np) @ W2.T + b2)):
        np.testing.assert_allclose(t.numpy(), want, rtol=1e-5, atol=1e-6)
    assert (g.name, v.name, h.name, y.name) == ("g", "v", "h", "y")
    assert not any(m._forward_hooks or m._forward_pre_hooks for m in block.modules())


def test_graph_experts_folded_keeps_every_node_ffn_md_names(capsys):
    """ffn.md's MoE figure (the command in reading_graphs.md) folds each expert into one
    box; the text beside it names the gather, the slices, cat, index_add, topk, mul and
    sum: all are still drawn, and nothing of an expert's inside is."""
    assert main(["graph", "--experts", "2", "--top-k", "1", "--no-expand", "--depth", "1"]) == 0
    labels, _ = _labels_and_edges(capsys.readouterr().out)
    heads = [text.split("\\n") for text in labels.values()]
    assert [h[:2] for h in heads if h[0].startswith("experts.")] == \
        [["experts.0: FFN", "7 ops"], ["experts.1: FFN", "7 ops"]]       # 2 transposes,
    ops = {h[0] for h in heads}                                           # matmuls, adds; relu
    assert {"index_select", "getitem", "cat", "index_add", "softmax", "topk", "mul",
            "sum", "gate: Linear"} <= ops
    assert sorted(h[1] for h in heads if h[0] == "getitem") == ["key=[0:2]", "key=[2:3]"]
    assert not ops & {"relu", "matmul", "linear"}
