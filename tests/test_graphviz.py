"""The graph drawer: DOT structure, names, clusters, folding, stability, rendering."""
import operator
import os
import pathlib
import re
import shutil
import sys
import xml.etree.ElementTree as ET
from collections import Counter, OrderedDict

import numpy as np
import pytest

import tinyffn
from tinyffn import autograd, nn
from tinyffn.graphviz import (INSTALL_HELP, STYLES, RendererNotFoundError, draw_graph,
                              find_renderer, graph_names, pipe, render, to_dot)
from tinyffn.naming import COMMUTATIVE_OPS, is_constant, summed_axes

HAS_RENDERER = any(shutil.which(p) for p in ("dot", "graphviz-pure"))
needs_renderer = pytest.mark.skipif(not HAS_RENDERER, reason="no dot or graphviz-pure on PATH")

NODE = re.compile(r'^\t*(n\d+) \[label="((?:[^"\\]|\\.)*)" (.*)\]$')
EDGE = re.compile(r'^\t(n\d+) -> (n\d+)(?: \[label="([^"]*)".*\])?$')
OP_STYLE = 'shape=ellipse style=filled fillcolor="#fff3b0"'


def parse(dot):
    """{id: (label lines, attributes, enclosing cluster labels)} and [(from, to, label)]."""
    nodes, edges, stack = {}, [], []
    for line in dot.splitlines():
        if line.strip().startswith("subgraph cluster_"):
            stack.append(None)
        elif line.strip().startswith("label=") and stack and stack[-1] is None:
            stack[-1] = re.match(r'\s*label="([^"]*)"', line).group(1)
        elif line.strip() == "}" and stack:
            stack.pop()
        elif NODE.match(line):
            node_id, label, attrs = NODE.match(line).groups()
            nodes[node_id] = (label.split("\\n"), attrs, tuple(stack))
        elif EDGE.match(line):
            edges.append(EDGE.match(line).groups())
    return nodes, edges


def op_counts(dot):
    nodes, _ = parse(dot)
    return Counter(label[0] for label, attrs, _ in nodes.values()
                   if attrs.startswith(OP_STYLE) and "peripheries" not in attrs)


def node_named(nodes, name):
    (found,) = [v for v in nodes.values() if v[0][0] == name]
    return found


def ffn_output(activation="relu", gated=False, T=3, d=4):
    tinyffn.manual_seed(0)
    block = (nn.GatedFFN if gated else nn.FFN)(d, activation=activation)
    x = tinyffn.randn(T, d)
    x.name = "x"
    return block(x)


# ----------------------------------------------------------------------------- structure
def test_hand_made_linear_graph():
    x = tinyffn.ones(5, 3)
    x.name = "x"
    w = tinyffn.randn(2, 3, requires_grad=True)
    w.name = "W"
    b = tinyffn.zeros(2, requires_grad=True)
    b.name = "b"
    with autograd.scope("module", "Linear", object()):
        y = x @ w.T + b
    y.sum().backward()
    dot = to_dot(y, show_grads=True)
    nodes, edges = parse(dot)
    assert op_counts(dot) == {"transpose": 1, "matmul": 1, "add": 1}
    assert len(nodes) == 9                     # x, W, b, 3 ops, 2 intermediates, output
    assert len(edges) == 8                     # one per op input and one per op output
    assert node_named(nodes, "W")[0][1:3] == ["(2, 3)", "grad [[5, 5, 5], [5, 5, 5]]"]
    assert all(clusters == ("Linear",) for label, attrs, clusters in nodes.values()
               if attrs.startswith(OP_STYLE))
    # x @ W.T numbers its inputs (order matters), add does not; the bias is summed over T
    assert [e[2] for e in edges if e[2]] == ["0", "1", "Σ over axes (0,)"]
    numbered = {e[2]: nodes[e[0]][0][0] for e in edges if e[2] in ("0", "1")}
    assert numbered == {"0": "x", "1": "(3, 2)"}          # x @ W.T: x first, then W.T
    summed = next(e for e in edges if e[2] and "Σ" in e[2])
    assert nodes[summed[0]][0][0] == "b" and nodes[summed[1]][0] == ["add"]
    assert "Σ" not in to_dot(y)                # only with show_grads; the numbers always
    assert sorted(e[2] for e in parse(to_dot(y))[1] if e[2]) == ["0", "1"]


def test_a_buffer_is_drawn_as_an_input_and_a_parameter_as_a_parameter():
    """A module's buffer is named by its path, but it is no parameter: it gets the input
    style and sits outside the module's frame; the weight gets the parameter style inside."""
    class Scaled(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(tinyffn.ones(3))
            self.register_buffer("scale", tinyffn.full((3,), 2.0))

        def forward(self, x):
            return x * self.weight * self.scale

    nodes, _ = parse(to_dot(Scaled()(tinyffn.randn(2, 3))))
    scale, weight = node_named(nodes, "scale"), node_named(nodes, "weight")
    assert scale[1] == STYLES["input"] and scale[2] == ()
    assert weight[1] == STYLES["parameter"] and weight[2] == ("Scaled",)


def test_linear_module_names_its_parameters():
    layer = nn.Linear(3, 2)
    nodes, _ = parse(to_dot(layer(tinyffn.randn(4, 3))))
    assert node_named(nodes, "weight")[2] == ("Linear",)
    assert node_named(nodes, "bias")[2] == ("Linear",)
    assert node_named(nodes, "transpose")[2] == ("Linear", "linear")


EXPECTED_OPS = {
    "relu": {"transpose": 2, "matmul": 2, "add": 2, "relu": 1},
    # x (1 + erf(x / sqrt 2)) / 2: div, erf, add, mul by 0.5, mul by x
    "gelu": {"transpose": 2, "matmul": 2, "add": 3, "div": 1, "erf": 1, "mul": 2},
    # x (1 + tanh(c (x + a x^3))) / 2: pow, 4 mul, 2 add, tanh
    "gelu_tanh": {"transpose": 2, "matmul": 2, "add": 4, "pow": 1, "mul": 4, "tanh": 1},
    # x sigmoid(beta x)
    "swish": {"transpose": 2, "matmul": 2, "add": 2, "mul": 1, "sigmoid": 1},
}
ACTIVATION_CLASS = {"relu": "ReLU", "gelu": "GELU", "gelu_tanh": "GELU", "swish": "Swish"}
CONSTANTS = {"relu": 0, "gelu": 3, "gelu_tanh": 4, "swish": 0}


@pytest.mark.parametrize("activation", sorted(EXPECTED_OPS))
def test_ffn_graph_matches_its_composition(activation):
    dot = to_dot(ffn_output(activation))
    nodes, edges = parse(dot)
    assert op_counts(dot) == EXPECTED_OPS[activation]
    assert sum(attrs == "shape=plaintext" for _, attrs, _ in nodes.values()) == \
        CONSTANTS[activation]
    n_ops = sum(EXPECTED_OPS[activation].values())
    assert len(nodes) == 2 * n_ops + 5 + CONSTANTS[activation]   # + x and 4 parameters
    act = f"act: {ACTIVATION_CLASS[activation]}"
    for name, layer in [("w1.weight", "w1: Linear"), ("w1.bias", "w1: Linear"),
                        ("w2.weight", "w2: Linear"), ("w2.bias", "w2: Linear")]:
        assert node_named(nodes, name)[2] == ("FFN", layer)
    assert node_named(nodes, "x")[2] == ()
    act_ops = [clusters for label, attrs, clusters in nodes.values()
               if attrs.startswith(OP_STYLE) and clusters[:2] == ("FFN", act)]
    assert len(act_ops) == n_ops - 6           # all but the two linears' 3 ops each
    if activation != "relu":                   # composed activations get a dashed cluster
        assert all(len(c) == 3 and c[2] in ("gelu", "swish") for c in act_ops)


@pytest.mark.parametrize("activation", ["swish", "gelu"])
def test_gated_ffn_graph(activation):
    dot = to_dot(ffn_output(activation, gated=True))
    nodes, edges = parse(dot)
    act = {"swish": {"mul": 1, "sigmoid": 1}, "gelu": {"add": 1, "div": 1, "erf": 1, "mul": 2}}
    expected = Counter({"transpose": 3, "matmul": 3, "mul": 1}) + Counter(act[activation])
    assert op_counts(dot) == expected          # no biases: no add outside the activation
    for k in (1, 2, 3):
        assert node_named(nodes, f"w{k}.weight")[2] == ("GatedFFN", f"w{k}: Linear")
    x_id = next(i for i, v in nodes.items() if v[0][0] == "x")
    assert [nodes[e[1]][0][0] for e in edges if e[0] == x_id] == ["matmul", "matmul"]


# ----------------------------------------------------------------------------- folding
def test_depth_zero_draws_the_ffn_as_one_box():
    nodes, edges = parse(to_dot(ffn_output("gelu"), depth=0))
    assert len(nodes) == 3 and len(edges) == 2                # x -> FFN -> y
    label, attrs, clusters = node_named(nodes, "FFN")
    assert "box3d" in attrs and clusters == ()
    assert label[1] == "11 ops" and "w1.weight (16, 4)" in label and "w2.bias (4,)" in label


def test_depth_one_draws_the_submodules_as_boxes():
    dot = to_dot(ffn_output("gelu"), depth=1)
    nodes, edges = parse(dot)
    assert op_counts(dot) == {}
    boxes = [label[0] for label, attrs, _ in nodes.values() if "box3d" in attrs]
    assert boxes == ["w1: Linear", "act: GELU", "w2: Linear"]
    assert all(c == ("FFN",) for label, attrs, c in nodes.values() if "box3d" in attrs)
    assert len(edges) == 6


def test_depth_counts_every_module_level():
    """depth=2 folds the modules two levels below the outermost, not one."""
    tinyffn.manual_seed(0)
    seq = nn.Sequential(nn.FFN(2, 4))
    nodes, _ = parse(to_dot(seq(tinyffn.randn(3, 2)), depth=2))
    assert [(label[0], c) for label, attrs, c in nodes.values() if "box3d" in attrs] == [
        ("0.w1: Linear", ("Sequential", "0: FFN")), ("0.act: ReLU", ("Sequential", "0: FFN")),
        ("0.w2: Linear", ("Sequential", "0: FFN"))]


def test_expand_false_draws_composed_functions_as_one_node():
    dot = to_dot(ffn_output("gelu"), expand=False)
    nodes, edges = parse(dot)
    assert op_counts(dot) == {}
    folded = [(label[0], c) for label, attrs, c in nodes.values() if "peripheries=2" in attrs]
    assert folded == [("linear", ("FFN", "w1: Linear")), ("gelu", ("FFN", "act: GELU")),
                      ("linear", ("FFN", "w2: Linear"))]
    assert "shape=plaintext" not in dot        # gelu's constants are folded in
    assert node_named(nodes, "w1.weight")[2] == ("FFN", "w1: Linear")   # still an input
    w1 = next(i for i, v in nodes.items() if v[0][0] == "w1.weight")
    assert [nodes[e[1]][0][0] for e in edges if e[0] == w1] == ["linear"]


def test_expand_false_folds_a_function_with_the_functions_it_calls():
    from tinyffn import functional as F
    logits = tinyffn.randn(3, 4, requires_grad=True)
    nodes, _ = parse(to_dot(F.cross_entropy(logits, [0, 1, 3]), expand=False))
    folded = [(label, c) for label, attrs, c in nodes.values() if "peripheries=2" in attrs]
    assert folded == [(["cross_entropy", "9 ops"], ())]     # log_softmax's ops inside it


def test_a_folded_call_of_one_op_says_1_op_not_1_ops():
    """index_select, index_add and topk are one primitive each: the MoE figure read
    'index_select / 1 ops'."""
    x = tinyffn.randn(3, 4, requires_grad=True)
    nodes, _ = parse(to_dot(x.index_select(0, tinyffn.tensor([0, 2])), expand=False))
    folded = [label for label, attrs, c in nodes.values() if "peripheries=2" in attrs]
    assert folded == [["index_select", "1 op"]]


def test_two_calls_of_one_module_are_two_clusters():
    layer = nn.Linear(2, 2)
    y = layer(layer(tinyffn.randn(1, 2)))
    nodes, _ = parse(to_dot(y))
    assert to_dot(y).count('label="Linear" labeljust=l style=rounded') == 2
    assert node_named(nodes, "weight")[2] == ()      # shared by both calls


def test_several_outermost_modules_are_prefixed():
    a, b = nn.Linear(2, 2), nn.ReLU()
    y = b(a(tinyffn.randn(1, 2)))
    names = graph_names(autograd.topological_order(y, every_input=True))
    assert sorted(names[id(p)] for p in a.parameters()) == ["Linear.bias", "Linear.weight"]
    c, d = nn.Linear(2, 2), nn.Linear(2, 2)
    y = d(c(tinyffn.randn(1, 2)))
    names = graph_names(autograd.topological_order(y, every_input=True))
    assert names[id(c.weight)] == "Linear0.weight" and names[id(d.weight)] == "Linear1.weight"


def test_a_submodule_also_called_on_its_own_keeps_its_path():
    """ffn.w1(x) before ffn(x) once made w1 an outermost module: 'Linear0.weight'."""
    f = nn.FFN(2, 4)
    x = tinyffn.randn(3, 2)
    y = (f.w2(f.act(f.w1(x))) + f(x)).sum()
    names = graph_names(autograd.topological_order(y, every_input=True))
    assert names[id(f.w1.weight)] == "w1.weight" and names[id(f.w2.bias)] == "w2.bias"
    assert "Linear0" not in to_dot(y)


def test_sums_over_positions_are_labelled_for_fused_linear_and_batched_matmul():
    labels = {}
    for fused in (False, True):
        f = nn.FFN(2, 4, fused=fused)
        loss = (f(tinyffn.randn(5, 3, 2)) ** 2).sum()
        _, edges = parse(to_dot(loss, show_grads=True))
        labels[fused] = sorted(label.split(": ")[-1] for _, _, label in edges   # fused: 2: Σ
                               if label and "Σ" in label)
    # each bias is summed over the batch and position axes, each weight over the batch
    # axis (its gradient is one matrix product per batch entry), fused or not
    assert labels[True] == labels[False] == ["Σ over axes (0, 1)"] * 2 + ["Σ over axes (0,)"] * 2
    w = tinyffn.randn(2, 4, requires_grad=True)
    x = tinyffn.randn(5, 3, 2, requires_grad=True)
    v = tinyffn.randn(2, requires_grad=True)
    for y, source in (((x @ w).sum(), w), ((v @ tinyffn.randn(5, 2, 4)).sum(), v)):
        nodes, edges = parse(to_dot(y, show_grads=True))
        (summed,) = [(a, label) for a, _, label in edges if label and "Σ" in label]
        assert summed[1] == f"{0 if source is v else 1}: Σ over axes (0,)"    # batch axis of 5
        assert nodes[summed[0]][0][0] == f"{tuple(source.shape)}"


# ----------------------------------------------------------------------------- labels
def test_values_dtypes_and_norms():
    x = tinyffn.tensor([[1.0, -0.5]], requires_grad=True)
    big = tinyffn.ones(2, 6, requires_grad=True)
    h = x @ big                                 # held: its box shows its values
    y = h.sum()
    nodes, _ = parse(to_dot(y, show_values=True, show_dtypes=True))
    labels = [label for label, _, _ in nodes.values()]
    assert ["(1, 2)", "float32", "value [[1, -0.5]]"] in labels
    assert ["(1, 6)", "float32", "value [[0.5, 0.5, 0.5, 0.5, 0.5, 0.5]]"] in labels
    assert ["(2, 6)", "float32", "value norm 3.464"] in labels   # 12 values: the norm
    assert ["()", "float32", "value 3"] in labels


def test_small_values_keep_four_significant_digits():
    """Four decimal places drew a gradient of 2e-05 as 0: 'no gradient', the wrong lesson."""
    from tinyffn.naming import format_values
    assert format_values(np.array([1.5e-4, 4.9e-5, -3e-6])) == "[0.00015, 4.9e-05, -3e-06]"
    assert format_values(np.array([[1.0, -0.5]])) == "[[1, -0.5]]"
    assert format_values(np.array(123456.5)) == "1.235e+05"
    assert format_values(np.array([12345.0, 3.0, -0.0])) == "[12345, 3, 0]"   # integers: exact
    w = tinyffn.tensor([1e-5, 3e-6], requires_grad=True)
    loss = (w * w).sum()
    loss.backward(retain_graph=True)
    assert "grad [2e-05, 6e-06]" in to_dot(loss, show_grads=True)


def test_at_most_eight_values_are_drawn_and_nine_are_a_norm():
    from tinyffn.naming import format_values
    assert format_values(np.arange(8.0)) == "[0, 1, 2, 3, 4, 5, 6, 7]"
    assert format_values(np.arange(9.0)) == "norm 14.28"        # sqrt(0 + 1 + 4 + ... + 64)


def test_an_intermediate_nobody_holds_is_freed_and_drawn_without_values():
    x = tinyffn.tensor([[1.0, -0.5]], requires_grad=True)
    y = (x @ tinyffn.ones(2, 6)).sum()          # the matmul's output is no longer held
    labels = [label for label, _, _ in parse(to_dot(y, show_values=True))[0].values()]
    assert ["(1, 6)", "value freed"] in labels
    with tinyffn.autograd.keep_intermediates(retain_grad=True) as kept:
        y = (x @ tinyffn.ones(2, 6)).sum()
    assert [t.shape for t in kept] == [(1, 6), ()]
    y.backward()
    labels = [label for label, _, _ in parse(to_dot(y, show_values=True, show_grads=True))[0]
              .values()]
    assert ["(1, 6)", "value [[0.5, 0.5, 0.5, 0.5, 0.5, 0.5]]", "grad [[1, 1, 1, 1, 1, 1]]"] \
        in labels


def test_a_constant_is_drawn_once_per_use_though_the_engine_shares_it():
    x = tinyffn.tensor([1.0, -0.5], requires_grad=True)
    a, b = x * 2, x.exp() * 2
    assert a.grad_fn.parents[1] is b.grad_fn.parents[1]     # one shared tensor
    nodes, edges = parse(to_dot(a + b))
    twos = [n for n, (label, attrs, _) in nodes.items() if label == ["2"]]
    assert len(twos) == 2 and all("plaintext" in nodes[n][1] for n in twos)
    targets = {target for source, target, _ in edges if source in twos}
    assert [nodes[t][0] for t in targets] == [["mul"], ["mul"]]


def test_output_is_stable_across_builds():
    first, second = to_dot(ffn_output("swish")), to_dot(ffn_output("swish"))
    assert first == second
    ids = re.findall(r"^\t*(n\d+) \[", first, flags=re.M)
    assert sorted(ids, key=lambda s: int(s[1:])) == [f"n{k}" for k in range(len(ids))]


def test_highlight_lights_the_tensor_and_its_op():
    y = ffn_output()
    nodes, _ = parse(to_dot(y, highlight=y))
    lit = [label[0] for label, attrs, _ in nodes.values() if "penwidth=3" in attrs]
    assert lit == ["add", "(3, 4)"]


def test_bad_arguments_are_explained():
    with pytest.raises(TypeError, match="expected a Tensor"):
        to_dot([1, 2])
    with pytest.raises(ValueError, match="requires_grad=True"):
        to_dot(tinyffn.ones(2))
    y = ffn_output()
    with pytest.raises(ValueError, match="depth"):
        to_dot(y, depth=-1)
    with pytest.raises(ValueError, match="rankdir"):
        to_dot(y, rankdir="sideways")
    with pytest.raises(TypeError, match="highlight takes tensors or op nodes .* got int"):
        to_dot(y, highlight=[y, 5])


# ----------------------------------------------------------------------------- rendering
def test_draw_graph_is_a_digraph_with_the_same_source():
    graphviz = pytest.importorskip("graphviz")
    y = ffn_output("gelu")
    g = draw_graph(y, depth=1, rankdir="LR")
    assert isinstance(g, graphviz.Digraph)
    assert g.source == to_dot(y, depth=1, rankdir="LR")


@needs_renderer
def test_svg_and_png_render(tmp_path):
    pytest.importorskip("graphviz")
    y = ffn_output("gelu", gated=True)
    path = render(y, tmp_path / "ffn.svg")
    assert ET.parse(path).getroot().tag.endswith("svg")
    g = draw_graph(y, show_grads=True)
    svg = g._repr_mimebundle_()["image/svg+xml"]             # what Jupyter displays
    assert ET.fromstring(svg.encode()).tag.endswith("svg")
    assert g.pipe(format="png").startswith(b"\x89PNG")
    assert pathlib.Path(g.render(tmp_path / "drawing")) == tmp_path / "drawing.svg"
    assert (tmp_path / "drawing.svg").exists()


def test_missing_renderer_gives_install_instructions(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))                # no dot, no graphviz-pure
    y = ffn_output()
    with pytest.raises(RendererNotFoundError) as error:
        find_renderer()
    assert "apt-get install graphviz" in str(error.value)
    assert "brew install graphviz" in str(error.value)
    assert "pip install graphviz-pure" in str(error.value)
    with pytest.raises(RendererNotFoundError):
        render(y, tmp_path / "y.svg")
    assert not (tmp_path / "y.svg").exists()
    pytest.importorskip("graphviz")
    g = draw_graph(y)
    assert g.source == to_dot(y)                             # the text needs no program
    with pytest.raises(RendererNotFoundError, match="apt-get install graphviz"):
        g.pipe()
    with pytest.raises(RendererNotFoundError):
        g._repr_mimebundle_()
    with pytest.raises(RendererNotFoundError):
        g.render(tmp_path / "y")
    assert str(INSTALL_HELP) in str(error.value)
    # the DOT text itself needs no renderer, through every door
    assert g.pipe(format="dot") == to_dot(y).encode()
    assert pathlib.Path(g.render(tmp_path / "z", format="dot")).read_text() == to_dot(y)
    assert render(y, tmp_path / "y.gv").read_text() == to_dot(y)
    assert pathlib.Path(g.render(outfile=tmp_path / "o.dot")).read_text() == to_dot(y)


@needs_renderer
@pytest.mark.skipif(os.name != "posix", reason="the stand-in renderer is a shell script")
def test_falls_back_to_graphviz_pure(tmp_path, monkeypatch):
    pytest.importorskip("graphviz")
    real = shutil.which("dot") or shutil.which("graphviz-pure")
    stand_in = tmp_path / "graphviz-pure"                    # dot's flags, another name
    stand_in.write_text(f'#!/bin/sh\nexec "{real}" "$@"\n')
    stand_in.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert shutil.which("dot") is None and find_renderer() == str(stand_in)
    g = draw_graph(ffn_output())
    assert ET.fromstring(g.pipe(encoding="utf-8").encode()).tag.endswith("svg")
    out = g.render(tmp_path / "ffn", format="png")
    assert out.endswith("ffn.png") and pathlib.Path(out).read_bytes().startswith(b"\x89PNG")
    with pytest.raises(TypeError, match="need Graphviz's dot"):
        g.pipe(renderer="cairo")
    # view() passes quiet=False, quiet_view=False to render(): they must not be refused
    out = g.render(tmp_path / "quiet", format="svg", quiet=False, quiet_view=False)
    assert ET.fromstring(pathlib.Path(out).read_bytes()).tag.endswith("svg")


def test_draw_graph_without_the_graphviz_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "graphviz", None)       # as if not installed
    monkeypatch.delitem(sys.modules, "tinyffn._digraph", raising=False)
    y = ffn_output()
    with pytest.raises(ImportError, match=r'pip install -e "\.\[viz\]"'):
        draw_graph(y)
    assert to_dot(y).startswith("digraph {")                 # the text needs no package


def test_named_0d_tensors_are_boxes_and_large_whole_numbers_keep_their_exponent():
    from tinyffn.naming import format_values, is_constant
    assert is_constant(tinyffn.tensor(2.0))
    named = tinyffn.tensor(2.0)
    named.name = "scale"
    assert not is_constant(named)                         # drawn as a box with its name
    assert format_values(np.array(1e20)) == "1e+20"       # not 100000000000000000000
    assert format_values(np.array(12345.0)) == "12345"
    assert format_values(np.array(999999999999999.0)) == "999999999999999"   # below 1e15: whole
    assert format_values(np.array(1e15)) == "1e+15"       # from 1e15 on: the exponent


def test_a_learnable_scalar_is_not_drawn_as_a_constant():
    s = tinyffn.tensor(2.0, requires_grad=True)
    assert not is_constant(s)
    x = tinyffn.ones(3, requires_grad=True)
    (x * s).sum().backward()
    assert "grad 3" in to_dot(x * s, show_grads=True)        # s is a leaf box with dL/ds = 3


def test_no_sum_is_drawn_for_an_input_that_gets_no_gradient():
    w = tinyffn.randn(4, 3, requires_grad=True)
    c = tinyffn.ones(3)                                       # data: no gradient
    y = w + c
    y.sum().backward()
    assert summed_axes(y.grad_fn, 1) == ()
    assert "Σ" not in to_dot(y, show_grads=True)


def test_maximum_sums_a_broadcast_input_back():
    x = tinyffn.randn(4, 3, requires_grad=True)
    b = tinyffn.zeros(3, requires_grad=True)
    y = x.maximum(b)
    assert summed_axes(y.grad_fn, 1) == (0,) and summed_axes(y.grad_fn, 0) == ()


# ----------------------------------------------------------------------------- audit: structure
DOT_STRING = re.compile(r'label="((?:[^"\\]|\\.)*)"')
CLUSTER = re.compile(r'subgraph cluster_\d+ \{\n\t*label="((?:[^"\\]|\\.)*)" (.*)\n')


def unescape(text):
    """A DOT string as Graphviz reads it: \\" is ", \\\\ is one backslash, \\n a new line."""
    def one(m):
        assert m.group(1) in '"\\n', f"unexpected escape \\{m.group(1)} in {text!r}"
        return "\n" if m.group(1) == "n" else m.group(1)
    return re.sub(r"\\(.)", one, text)


def last(attrs, name):
    """The value Graphviz uses for attribute ``name``: the last one given."""
    values = re.findall(rf'\b{name}=("[^"]*"|\S+)', attrs)
    return values[-1].strip('"') if values else None


def test_each_op_node_has_an_arrow_from_every_input_and_one_to_its_output():
    x = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    x.name = "x"
    y = (x * x + x.exp() * 2).sum()                       # x * x: one tensor used twice
    nodes, edges = parse(to_dot(y))
    ops = sorted((n for n, (_, attrs, _) in nodes.items() if attrs.startswith(OP_STYLE)),
                 key=lambda n: int(n[1:]))
    ctxs = [v for v in autograd.topological_order(y, every_input=True)
            if isinstance(v, autograd.Context)]
    assert [nodes[n][0][0] for n in ops] == [ctx.name for ctx in ctxs]
    for n, ctx in zip(ops, ctxs):
        sources = [s for s, t, _ in edges if t == n]
        assert len(sources) == len(ctx.parents), ctx.name
        assert all(not nodes[s][1].startswith(OP_STYLE) for s in sources)
        (out,) = [t for s, t, _ in edges if s == n]       # to its own output's box
        assert not nodes[out][1].startswith(OP_STYLE)
    mul = next(n for n in ops if nodes[n][0] == ["mul"])
    assert [nodes[s][0][0] for s, t, _ in edges if t == mul] == ["x", "x"]


def test_parameters_inputs_and_the_output_are_told_apart_by_colour():
    nodes, _ = parse(to_dot(ffn_output()))
    fill = {name: last(node_named(nodes, name)[1], "fillcolor")
            for name in ("w1.weight", "w1.bias", "w2.weight", "w2.bias", "x")}
    (output,) = [last(attrs, "fillcolor") for label, attrs, _ in nodes.values()
                 if label == ["(3, 4)"] and "filled" in (last(attrs, "style") or "")]
    assert len({fill[n] for n in fill if n != "x"}) == 1              # every parameter alike
    assert len({fill["w1.weight"], fill["x"], output}) == 3          # three different colours


def test_highlight_fills_the_lit_nodes():
    y = ffn_output()
    nodes, _ = parse(to_dot(y, highlight=y))
    lit = [label[0] for label, attrs, _ in nodes.values() if "penwidth=3" in attrs]
    assert lit == ["add", "(3, 4)"]
    others = {last(attrs, "fillcolor") for label, attrs, _ in nodes.values()
              if "penwidth=3" not in attrs}
    for label, attrs, _ in nodes.values():
        if "penwidth=3" in attrs:                         # lit: a colour no other node has
            assert "filled" in last(attrs, "style") and last(attrs, "fillcolor") not in others


def test_highlighting_a_parameter_folded_into_a_box_lights_the_box():
    tinyffn.manual_seed(0)
    ffn = nn.FFN(4)
    y = ffn(tinyffn.randn(3, 4))
    nodes, _ = parse(to_dot(y, depth=1, highlight=ffn.w1.weight))
    assert [label[0] for label, attrs, _ in nodes.values() if "penwidth=3" in attrs] == \
        ["w1: Linear"]


def test_constants_sit_in_the_cluster_of_the_op_that_uses_them():
    nodes, edges = parse(to_dot(ffn_output("gelu")))
    constants = [n for n, (_, attrs, _) in nodes.items() if attrs == "shape=plaintext"]
    assert len(constants) == CONSTANTS["gelu"]
    for n in constants:
        (target,) = [t for s, t, _ in edges if s == n]
        assert nodes[n][2] == nodes[target][2] == ("FFN", "act: GELU", "gelu")


def test_without_shapes_an_unnamed_tensor_is_a_point():
    x = tinyffn.ones(2, requires_grad=True)
    x.name = "x"
    nodes, _ = parse(to_dot((x.exp() * 2).sum(), show_shapes=False))
    unnamed = [attrs for label, attrs, _ in nodes.values() if label == [""]]
    assert len(unnamed) == 3                              # exp's, mul's and sum's outputs
    assert all(last(attrs, "shape") == "point" for attrs in unnamed)
    assert last(node_named(nodes, "x")[1], "shape") == "box"


class _TwoOutputs(nn.Module):
    def forward(self, x):
        h = x.exp()
        return h, h.tanh()                                # h leaves the module, and is used in it


def test_a_folded_box_draws_no_arrow_back_from_its_own_output():
    x = tinyffn.ones(2, requires_grad=True)
    h, g = _TwoOutputs()(x)
    nodes, edges = parse(to_dot(h + g, depth=0))
    (box,) = [n for n, (_, attrs, _) in nodes.items() if "box3d" in attrs]
    assert len([s for s, t, _ in edges if t == box]) == 1     # from x only
    assert len([t for s, t, _ in edges if s == box]) == 2     # to h and to tanh(h)
    reached = {n: {t for s, t, _ in edges if s == n} for n in nodes}
    for _ in nodes:                                       # the transitive closure
        reached = {n: r.union(*(reached[m] for m in r)) for n, r in reached.items()}
    assert not any(n in r for n, r in reached.items())    # the drawing of a DAG is a DAG


def test_sums_are_labelled_on_arrows_into_ops_not_into_folded_boxes():
    f = nn.FFN(2, 4)
    loss = (f(tinyffn.randn(5, 3, 2)) ** 2).sum()
    loss.backward()
    for options in ({"expand": False}, {"depth": 1}):
        nodes, edges = parse(to_dot(loss, show_grads=True, **options))
        labelled = [nodes[t] for _, t, label in edges if label and "Σ" in label]
        assert all(attrs.startswith(OP_STYLE) and "peripheries" not in attrs
                   for _, attrs, _ in labelled), options


class _Borrower(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)

    def forward(self, x, w):
        return self.lin(x) @ w


class _Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = _Borrower()
        self.ab = nn.Linear(2, 2)             # "ab" starts with "a", but ab.weight is not a's

    def forward(self, x):
        return self.a(x, self.ab.weight)


def test_a_parameter_is_not_drawn_in_a_module_whose_name_merely_prefixes_its_own():
    nodes, _ = parse(to_dot(_Tied()(tinyffn.randn(1, 2))))
    assert node_named(nodes, "ab.weight")[2] == ("_Tied",)
    assert node_named(nodes, "a.lin.weight")[2] == ("_Tied", "a: _Borrower", "a.lin: Linear")


class _Lender(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(2, 2)
        self.b = _Borrower()

    def forward(self, x):
        return self.b(self.a(x), self.a.weight)


def test_a_parameter_used_by_two_sibling_calls_is_drawn_in_their_shared_cluster():
    nodes, _ = parse(to_dot(_Lender()(tinyffn.randn(1, 2))))
    assert node_named(nodes, "a.weight")[2] == ("_Lender",)     # used in a and in b
    assert node_named(nodes, "a.bias")[2] == ("_Lender", "a: Linear")


def test_names_with_quotes_and_backslashes_survive_the_dot_text():
    odd = ['say "hi"', "C:\\new"]
    seq = nn.Sequential(OrderedDict([(odd[0], nn.Linear(2, 2)), (odd[1], nn.ReLU())]))
    x = tinyffn.randn(1, 2)
    x.name = 'x "\\n" y'
    dot = to_dot(seq(x))
    labels = [unescape(s) for s in DOT_STRING.findall(dot)]
    clusters = [unescape(label) for label, _ in CLUSTER.findall(dot)]
    assert clusters == ["Sequential", 'say "hi": Linear', "linear", "C:\\new: ReLU"]
    assert 'say "hi".weight\n(2, 2)' in labels and 'say "hi".bias\n(2,)' in labels
    assert 'x "\\n" y\n(1, 2)' in labels


def test_module_clusters_are_solid_and_function_clusters_dashed():
    clusters = CLUSTER.findall(to_dot(ffn_output("gelu")))
    assert [label for label, _ in clusters] == ["FFN", "w1: Linear", "linear", "act: GELU",
                                                "gelu", "w2: Linear", "linear"]
    for label, attrs in clusters:
        assert ("dashed" in last(attrs, "style")) == (label in ("linear", "gelu")), label


def test_an_op_label_lists_only_the_attributes_that_are_set():
    x = tinyffn.ones(2, 3, requires_grad=True)
    nodes, _ = parse(to_dot(x.sum(axis=0).sum()))           # keepdims=False, axis=None: unset
    assert sorted(label for label, attrs, _ in nodes.values() if label[0] == "sum") == \
        [["sum"], ["sum", "axis=(0,)"]]


def test_an_attribute_is_shortened_only_beyond_24_characters():
    x = tinyffn.ones(1, requires_grad=True)
    nodes, _ = parse(to_dot(x.reshape(*[1] * 8).reshape(*[1] * 9).sum()))
    assert [label for label, _, _ in nodes.values() if label[0] == "reshape"] == [
        ["reshape", "shape=(1, 1, 1, 1, 1, 1, 1, 1)"],       # 24 characters: whole
        ["reshape", "shape=(1, 1, 1, 1, 1, 1, 1,..."]]       # 27: the first 21 and "..."


def test_a_dtype_attribute_is_drawn_by_its_name():
    x = tinyffn.ones(2, requires_grad=True)
    nodes, _ = parse(to_dot(x.to(dtype="float64").sum()))
    assert node_named(nodes, "cast")[0] == ["cast", "dtype=float64"]


def test_an_index_is_drawn_as_written_in_brackets():
    """The key as x[...] writes it, index arrays by their shape; it was the repr of the
    normalized tuple, cut after 21 characters (``key=(slice(None, None, 4)...``)."""
    x = tinyffn.ones(3, 3, requires_grad=True)
    labels = [node_named(parse(to_dot(y.sum()))[0], "getitem")[0]
              for y in (x[1:, 0], x[..., None], tinyffn.einsum("ii->i", x), x[[0, 2], [1, 1]])]
    assert labels == [["getitem", "key=[1:, 0]"], ["getitem", "key=[..., None]"],
                      ["getitem", "key=[::4]"], ["getitem", "key=[i(2,), i(2,)]"]]


def test_depth_must_be_an_integer_not_a_bool():
    with pytest.raises(ValueError, match="depth must be None or an integer >= 0, got True"):
        to_dot(ffn_output(), depth=True)


def test_a_named_grad_output_names_the_gy_box_of_a_recorded_gradient():
    """autograd.md §8's figure: dy/dx of y = sum(tanh(x x)), drawn with the gradient the
    sum sends to tanh's output passed as a named grad_outputs: the same value, and the
    same DOT text but for the grey box, which says gy instead of a bare (2,)."""
    drawings, values = [], []
    for named in (False, True):
        x = tinyffn.tensor([0.5, 1.0], dtype="float64", requires_grad=True)
        x.name = "x"
        if named:
            gy = tinyffn.ones(2, dtype="float64")
            gy.name = "gy"
            (g,) = tinyffn.grad((x * x).tanh(), [x], grad_outputs=[gy], create_graph=True)
        else:
            (g,) = tinyffn.grad((x * x).tanh().sum(), [x], create_graph=True)
        drawings.append(to_dot(g))
        values.append(g.numpy())
    x = np.array([0.5, 1.0])
    for value in values:
        np.testing.assert_allclose(value, 2 * x * (1 - np.tanh(x * x) ** 2), rtol=1e-12)
    assert drawings[1] == drawings[0].replace('n0 [label="(2,)"', 'n0 [label="gy\\n(2,)"', 1)
    assert drawings[1] != drawings[0]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gelu_s_constant_is_drawn_as_root_2_and_other_constants_as_their_numbers(dtype):
    """The exact GELU's x / √2 was drawn x / 1.414. A constant that is √2 rounded to its
    own dtype says √2, in a drawing and in a step; any other keeps its number, 1.414 and
    √2 rounded to float32 but held in float64 (which is not √2) included."""
    from tinyffn import functional as F
    x = tinyffn.randn(2, 3, dtype=dtype, requires_grad=True)
    nodes, _ = parse(to_dot(F.gelu(x).sum()))
    constants = sorted(label[0] for label, attrs, _ in nodes.values()
                       if attrs == STYLES["constant"])
    assert constants == ["0.5", "1", "√2"]
    assert numbered_inputs(to_dot(F.gelu(x).sum()), "div") == ["(2, 3)", "√2"]     # x / √2
    (step,) = [s for s in tinyffn.backward_steps(F.gelu(x).sum()) if s.op == "div"]
    assert "input 1, constant √2 ()" in step.describe()
    nodes, _ = parse(to_dot(F.gelu(x, approximate="tanh").sum()))
    assert "√2" not in {label[0] for label, _, _ in nodes.values()}       # √(2/π) = 0.7979
    f32_root_2 = float(np.float32(np.sqrt(2)))
    for other in (1.414, f32_root_2 if dtype == "float64" else 1.5):
        nodes, _ = parse(to_dot((x / other).sum()))
        assert f"{other:.4g}" in {label[0] for label, _, _ in nodes.values()}, other


def numbered_inputs(dot, op):
    """The first line of each box drawn into the one op node labelled ``op``, in the order
    of the numbers on their edges (None where an edge has no number)."""
    nodes, edges = parse(dot)
    (target,) = [n for n, (label, _, _) in nodes.items() if label[0] == op]
    into = [(label, nodes[s][0][0]) for s, t, label in edges if t == target]
    if any(label is None for label, _ in into):
        return None
    return [source for _, source in sorted(into, key=lambda e: int(e[0]))]


def test_inputs_are_numbered_where_their_order_matters_and_only_there():
    """1 - a is drawn with the 1 to the right of a (the layout decides), so an unnumbered
    drawing read as a - 1. Each edge into an op whose inputs cannot be swapped carries the
    input's number, the stepper's input 0, input 1; commutative ops carry none."""
    a = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    b = tinyffn.tensor([3.0, -4.0], requires_grad=True)
    w = tinyffn.ones(2, 2, requires_grad=True)
    c = tinyffn.tensor([True, False])
    a.name, b.name, w.name, c.name = "a", "b", "w", "c"
    ordered = {"sub": (1 - a, ["1", "a"]), "div": (a / 2, ["a", "2"]),
               "matmul": (a @ w, ["a", "w"]), "cat": (tinyffn.cat([b, a]), ["b", "a"]),
               "where": (tinyffn.where(c, b, a), ["c", "b", "a"]),
               "atan2": (tinyffn.atan2(b, a), ["b", "a"])}
    for op, (y, sources) in ordered.items():
        assert numbered_inputs(to_dot(y.sum()), op) == sources, op
        assert autograd.node_of(y).fn not in COMMUTATIVE_OPS
    for op, y in {"add": a + b, "mul": 2 * a, "maximum": a.maximum(b)}.items():
        assert numbered_inputs(to_dot(y.sum()), op) is None, op
    assert numbered_inputs(to_dot((-a).sum()), "neg") is None       # one input: no number


@pytest.mark.parametrize("op", COMMUTATIVE_OPS, ids=lambda f: f.__name__)
def test_the_unnumbered_ops_are_commutative_in_value_and_gradient(op):
    """What leaving the numbers off claims: f(x, w) = f(w, x), and swapping the inputs
    swaps their gradients (maximum's ties included: each side gets half)."""
    x = tinyffn.tensor([1.0, -2.0, 3.0], dtype="float64", requires_grad=True)
    w = tinyffn.tensor([1.0, 5.0, -1.0], dtype="float64", requires_grad=True)
    gy = tinyffn.tensor([0.5, 2.0, -1.0], dtype="float64")
    grads = []
    for first, second in ((x, w), (w, x)):
        y = op.apply(first, second)
        y.backward(gy)
        grads.append((first.grad.numpy().copy(), second.grad.numpy().copy(), y.numpy()))
        x.grad = w.grad = None
    (gx, gw, y), (gw_swapped, gx_swapped, y_swapped) = grads
    np.testing.assert_array_equal(y, y_swapped)
    np.testing.assert_array_equal(gx, gx_swapped)
    np.testing.assert_array_equal(gw, gw_swapped)


@pytest.mark.parametrize("op", [operator.add, operator.sub, operator.mul, operator.truediv,
                                lambda x, b: x.maximum(b)], ids=["add", "sub", "mul", "div", "max"])
def test_every_broadcasting_op_names_the_axes_its_backward_sums(op):
    x = tinyffn.randn(4, 3, requires_grad=True)
    b = tinyffn.ones(3, requires_grad=True)
    c = tinyffn.ones(4, 1, requires_grad=True)
    assert summed_axes(op(x, b).grad_fn, 1) == (0,) and summed_axes(op(x, b).grad_fn, 0) == ()
    assert summed_axes(op(b, x).grad_fn, 0) == (0,)
    assert summed_axes(op(x, c).grad_fn, 1) == (1,)
    y = op(x, b).sum()
    y.backward()
    assert b.grad.shape == (3,)                             # what the label claims was summed
    nodes, edges = parse(to_dot(y, show_grads=True))
    (summed,) = [(s, label) for s, _, label in edges if label and "Σ" in label]
    number = "" if op in (operator.add, operator.mul) or op.__name__ == "<lambda>" else "1: "
    assert summed[1] == number + "Σ over axes (0,)" and nodes[summed[0]][0][0] == "(3,)"


def test_several_outermost_modules_are_numbered_by_their_position_among_them():
    """The docstring of graph_names: the position among the outermost modules."""
    a, r, c = nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2)
    y = c(r(a(tinyffn.randn(1, 2))))
    names = graph_names(autograd.topological_order(y, every_input=True))
    assert names[id(a.weight)] == "Linear0.weight" and names[id(c.weight)] == "Linear2.weight"


# ----------------------------------------------------------------------------- audit: rendering
def _stand_in(folder, name, script):
    program = folder / name
    program.write_text("#!/bin/sh\n" + script)
    program.chmod(0o755)
    return program


@pytest.mark.skipif(os.name != "posix", reason="the stand-in renderers are shell scripts")
def test_dot_is_preferred_to_graphviz_pure(tmp_path, monkeypatch):
    _stand_in(tmp_path, "graphviz-pure", "exit 0\n")
    dot = _stand_in(tmp_path, "dot", "exit 0\n")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert find_renderer() == str(dot)


@pytest.mark.skipif(os.name != "posix", reason="the stand-in renderer is a shell script")
def test_a_failing_renderer_raises_with_its_message(tmp_path, monkeypatch):
    _stand_in(tmp_path, "dot", "echo 'syntax error in line 1' >&2\nexit 1\n")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(RuntimeError, match="exit code 1: syntax error in line 1"):
        pipe("digraph {", "svg")
    with pytest.raises(RuntimeError, match="syntax error"):
        render("digraph {", tmp_path / "y.svg")
    assert not (tmp_path / "y.svg").exists()


def test_pipe_refuses_what_is_not_a_graph():
    with pytest.raises(TypeError, match="expected a Tensor, a graphviz Digraph or DOT text, got "
                                        "int"):
        pipe(42, "dot")


def test_render_without_a_renderer_writes_nothing(tmp_path, monkeypatch):
    pytest.importorskip("graphviz")
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    g = draw_graph(ffn_output())
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(RendererNotFoundError):
        g.render(out / "y")
    assert list(out.iterdir()) == []


def test_render_keeps_the_source_unless_cleanup(tmp_path, monkeypatch):
    pytest.importorskip("graphviz")
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))   # the fallback; .dot needs no program
    g = draw_graph(ffn_output())
    assert pathlib.Path(g.render(tmp_path / "kept", format="dot")) == tmp_path / "kept.dot"
    assert (tmp_path / "kept").read_text() == g.source      # the source, as graphviz leaves it
    g.render(tmp_path / "gone", format="dot", cleanup=True)
    assert (tmp_path / "gone.dot").read_text() == g.source and not (tmp_path / "gone").exists()


@pytest.mark.parametrize("renderer", ["dot", "fallback"])
def test_render_names_files_and_opens_the_viewer_as_graphviz_does(renderer, tmp_path, monkeypatch):
    """The fallback (no dot on PATH) behaves as graphviz's own render (dot on PATH)."""
    graphviz = pytest.importorskip("graphviz")
    if renderer == "dot" and shutil.which("dot") is None:
        pytest.skip("no dot on PATH")
    if renderer == "fallback":
        monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    monkeypatch.chdir(tmp_path)
    seen = []
    monkeypatch.setattr(graphviz, "view", lambda path, quiet: seen.append((path, quiet)))
    g = draw_graph(ffn_output())
    monkeypatch.setattr(g, "_view", lambda path, format, quiet: seen.append((path, quiet)))
    g.render(outfile=tmp_path / "o.dot")                  # the source: the outfile's name, .gv
    g.render("src.gv", outfile=tmp_path / "p.dot")        # the source: the filename given
    g.render(tmp_path / "a", format="dot")
    g.render(tmp_path / "b", format="dot", view=True)
    g.render(tmp_path / "c", format="dot", quiet_view=True)     # implies view=True
    g.render(tmp_path / "d.gv", format="dot")             # the format appended: d.gv.dot
    g.render(outfile=tmp_path / "E.DOT")                  # the suffix, read in lower case
    assert sorted(p.name for p in tmp_path.iterdir()) == \
        ["E.DOT", "E.gv", "a", "a.dot", "b", "b.dot", "c", "c.dot", "d.gv", "d.gv.dot",
         "o.dot", "o.gv", "p.dot", "src.gv"]
    assert [(pathlib.Path(path).name, quiet) for path, quiet in seen] == \
        [("b.dot", False), ("c.dot", True)]


# ----------------------------------------------------------------------------- audit 7


@pytest.mark.parametrize("d_in, d_out", [(2, 1), (1, 3)])
def test_a_fused_linear_with_a_size_one_axis_sums_its_weight_over_nothing(d_in, d_out):
    """x (5, d_in) @ W.T: dL/dW = gy^T x is one matrix product, no sum, even where W has an
    axis of 1 (a regression head (1, d), or d_in = 1) that a plain broadcast reading of
    (d_out, d_in) against the output (5, d_out) would call stretched; the bias (d_out,) is
    summed over the 5 positions."""
    from tinyffn import functional as F
    x = tinyffn.randn(5, d_in, requires_grad=True)
    w = tinyffn.randn(d_out, d_in, requires_grad=True)
    b = tinyffn.randn(d_out, requires_grad=True)
    y = F.linear(x, w, b, fused=True)
    assert [summed_axes(y.grad_fn, i) for i in range(3)] == [(), (), (0,)]
    _, edges = parse(to_dot(y.sum(), show_grads=True))
    assert [label for _, _, label in edges if label and "Σ" in label] == ["2: Σ over axes (0,)"]


def test_broadcast_to_names_the_axes_its_backward_sums():
    x = tinyffn.randn(3, requires_grad=True)
    c = tinyffn.randn(4, 1, requires_grad=True)
    assert summed_axes(x.broadcast_to(2, 3).grad_fn, 0) == (0,)
    assert summed_axes(c.broadcast_to(2, 4, 3).grad_fn, 0) == (0, 2)


def test_only_0d_leaves_are_constants_and_large_half_precision_arrays_have_a_norm():
    """A (3,) tensor of data is an input box, not a value on the edge; the norm of nine
    float16 entries of 100 is 300, though their squares' sum (90,000) is past float16's
    largest number (65,504)."""
    from tinyffn.naming import format_values
    data = tinyffn.ones(3)
    assert not is_constant(data) and not is_constant(tinyffn.ones(1))
    step = list(tinyffn.backward_steps((tinyffn.ones(3, requires_grad=True) * data).sum()))[1]
    assert step.describe().splitlines()[-1] == "  input 1, input (3,): needs no gradient"
    assert format_values(np.full(9, 100, dtype=np.float16)) == "norm 300"


HEAD = ("digraph {\n"
        "\tgraph [fontname=Helvetica fontsize=11 rankdir={rankdir}]\n"
        "\tnode [fontname=Helvetica fontsize=10]\n"
        "\tedge [fontname=Helvetica fontsize=9 arrowsize=0.6]\n")


def test_the_whole_text_of_a_small_graph_written_out():
    """(x * 2).sum(), line by line: x a grey input box, 2 a bare number, each op a yellow
    ellipse followed by its output's box, the output green; ids in walk order, inputs first."""
    x = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    x.name = "x"
    assert to_dot((x * 2).sum()) == HEAD.replace("{rankdir}", "TB") + (
        '\tn0 [label="x\\n(2,)" shape=box style="rounded,filled" fillcolor="#e9ecef"]\n'
        '\tn1 [label="2" shape=plaintext]\n'
        '\tn2 [label="mul" shape=ellipse style=filled fillcolor="#fff3b0"]\n'
        '\tn3 [label="(2,)" shape=box style=rounded]\n'
        '\tn4 [label="sum" shape=ellipse style=filled fillcolor="#fff3b0"]\n'
        '\tn5 [label="()" shape=box style="rounded,filled" fillcolor="#c7ebd1"]\n'
        "\tn0 -> n2\n\tn1 -> n2\n\tn2 -> n3\n\tn3 -> n4\n\tn4 -> n5\n}\n")


def test_the_whole_text_with_gradients_dtypes_and_a_sideways_layout():
    """w (2, 3) + b (3,): dL/dw = 1 everywhere, dL/db = 2 (b is added to both rows, so its
    edge carries the magenta 'Σ over axes (0,)'); rankdir=LR reaches the graph line."""
    w = tinyffn.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    b = tinyffn.tensor([0.5, 0.5, 0.5], requires_grad=True)
    w.name, b.name = "w", "b"
    y = (w + b).sum()
    y.backward()
    assert to_dot(y, show_grads=True, show_dtypes=True, rankdir="LR") == \
        HEAD.replace("{rankdir}", "LR") + (
        '\tn0 [label="w\\n(2, 3)\\nfloat32\\ngrad [[1, 1, 1], [1, 1, 1]]" shape=box '
        'style="rounded,filled" fillcolor="#e9ecef"]\n'
        '\tn1 [label="b\\n(3,)\\nfloat32\\ngrad [2, 2, 2]" shape=box style="rounded,filled" '
        'fillcolor="#e9ecef"]\n'
        '\tn2 [label="add" shape=ellipse style=filled fillcolor="#fff3b0"]\n'
        '\tn3 [label="(2, 3)\\nfloat32" shape=box style=rounded]\n'
        '\tn4 [label="sum" shape=ellipse style=filled fillcolor="#fff3b0"]\n'
        '\tn5 [label="()\\nfloat32" shape=box style="rounded,filled" fillcolor="#c7ebd1"]\n'
        "\tn0 -> n2\n"
        '\tn1 -> n2 [label="Σ over axes (0,)" color="#d63384" fontcolor="#d63384"]\n'
        "\tn2 -> n3\n\tn3 -> n4\n\tn4 -> n5\n}\n")


def test_the_whole_text_of_an_ordered_op_with_numbered_edges():
    """w (2, 3) - b (3,): sub's inputs cannot be swapped, so its edges carry 0 (w, in the
    blue of the numbers) and 1 (b), and b's, which backward sums over axis 0, says both:
    '1: Σ over axes (0,)' in magenta; dL/db = -2 (minus, twice)."""
    w = tinyffn.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    b = tinyffn.tensor([0.5, 0.5, 0.5], requires_grad=True)
    w.name, b.name = "w", "b"
    y = (w - b).sum()
    y.backward()
    assert to_dot(y, show_grads=True) == HEAD.replace("{rankdir}", "TB") + (
        '\tn0 [label="w\\n(2, 3)\\ngrad [[1, 1, 1], [1, 1, 1]]" shape=box '
        'style="rounded,filled" fillcolor="#e9ecef"]\n'
        '\tn1 [label="b\\n(3,)\\ngrad [-2, -2, -2]" shape=box style="rounded,filled" '
        'fillcolor="#e9ecef"]\n'
        '\tn2 [label="sub" shape=ellipse style=filled fillcolor="#fff3b0"]\n'
        '\tn3 [label="(2, 3)" shape=box style=rounded]\n'
        '\tn4 [label="sum" shape=ellipse style=filled fillcolor="#fff3b0"]\n'
        '\tn5 [label="()" shape=box style="rounded,filled" fillcolor="#c7ebd1"]\n'
        '\tn0 -> n2 [label="0" fontcolor="#0d6efd"]\n'
        '\tn1 -> n2 [label="1: Σ over axes (0,)" color="#d63384" fontcolor="#d63384"]\n'
        "\tn2 -> n3\n\tn3 -> n4\n\tn4 -> n5\n}\n")


def test_the_whole_text_of_a_folded_module():
    """nn.Linear(2, 1) at depth=0: one pink 3-D box naming its 3 ops (transpose, matmul,
    add) and the parameters folded into it, then * 2 and the sum outside it."""
    lin = nn.Linear(2, 1)
    x = tinyffn.ones(3, 2)
    x.name = "x"
    assert to_dot((lin(x) * 2).sum(), depth=0) == HEAD.replace("{rankdir}", "TB") + (
        '\tn0 [label="x\\n(3, 2)" shape=box style="rounded,filled" fillcolor="#e9ecef"]\n'
        '\tn1 [label="Linear\\n3 ops\\nweight (1, 2)\\nbias (1,)" shape=box3d style=filled '
        'fillcolor="#f4d8f0"]\n'
        '\tn2 [label="(3, 1)" shape=box style=rounded]\n'
        '\tn3 [label="2" shape=plaintext]\n'
        '\tn4 [label="mul" shape=ellipse style=filled fillcolor="#fff3b0"]\n'
        '\tn5 [label="(3, 1)" shape=box style=rounded]\n'
        '\tn6 [label="sum" shape=ellipse style=filled fillcolor="#fff3b0"]\n'
        '\tn7 [label="()" shape=box style="rounded,filled" fillcolor="#c7ebd1"]\n'
        "\tn0 -> n1\n\tn1 -> n2\n\tn2 -> n4\n\tn3 -> n4\n\tn4 -> n5\n\tn5 -> n6\n"
        "\tn6 -> n7\n}\n")


def test_a_parameter_used_inside_and_outside_a_folded_module_keeps_its_box():
    """lin.weight feeds the folded Linear and a sum outside it: it is drawn once, as a blue
    box with an arrow into each (folded away, the sum would read from nothing)."""
    lin = nn.Linear(2, 1)
    y = lin(tinyffn.ones(3, 2)).sum() + lin.weight.sum()
    nodes, edges = parse(to_dot(y, depth=0))
    (weight,) = [n for n, (label, _, _) in nodes.items() if label[0] == "weight"]
    assert nodes[weight][1].startswith('shape=box style="rounded,filled" fillcolor="#cfe2ff"')
    targets = sorted(nodes[b][0][0] for a, b, _ in edges if a == weight)
    assert targets == ["Linear", "sum"]


def test_the_dot_text_needs_no_renderer_whatever_the_suffix_says(tmp_path, monkeypatch):
    """A suffix in capitals is the DOT text too; an explicit format wins over the suffix; a
    Digraph gives its source; options only dot understands are refused by name."""
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    y = ffn_output()
    assert render(y, tmp_path / "Y.GV").read_text() == to_dot(y)
    assert render(y, tmp_path / "y.txt", format="dot").read_text() == to_dot(y)
    graphviz = pytest.importorskip("graphviz")
    assert pipe(graphviz.Digraph(body=["a -> b\n"]), "dot") == b"digraph {\na -> b\n}\n"
    out = draw_graph(y).render(outfile=tmp_path / "h.txt", format="dot")   # as graphviz
    assert pathlib.Path(out).read_text() == to_dot(y)
    with pytest.raises(TypeError, match=r"render\(\): the options renderer need Graphviz's dot"):
        draw_graph(y).render(tmp_path / "y", format="svg", renderer="cairo")
    assert not (tmp_path / "y").exists()


@needs_renderer
def test_a_path_without_a_suffix_is_drawn_as_svg(tmp_path):
    assert ET.parse(render(ffn_output(), tmp_path / "picture")).getroot().tag.endswith("svg")


def test_a_graph_on_a_device_is_drawn_and_stepped_as_on_the_cpu(device):
    """Labels read arrays (a constant's value and its √2, a small tensor's numbers, a
    gradient's norm) through the backend's ``to_numpy``, never ``np.asarray``, which CuPy
    refuses (and the strict backend, in the tests): the drawing with values and gradients
    and every step's words on the device are those on the CPU. float64, so no last-bit
    difference between devices reaches the 4 digits shown."""
    def drawn(dev):
        tinyffn.manual_seed(0)
        ffn = nn.FFN(3, 4, activation="gelu").double().to(dev)          # exact GELU: √2
        x = tinyffn.randn(2, 3, dtype="float64").to(dev)
        x.name = "x"
        loss = (ffn(x) ** 2).sum() / 2
        steps = [s.describe() for s in tinyffn.backward_steps(loss, retain_graph=True)]
        return to_dot(loss, show_values=True, show_grads=True), steps
    dot, steps = drawn(device)
    assert "√2" in dot and any("constant √2" in s for s in steps)
    assert (dot, steps) == drawn("cpu")
