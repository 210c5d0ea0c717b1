"""Drawing the computation graph: DOT text from a tensor, then rendering it to SVG or PNG.

:func:`to_dot` is a pure function: it reads the graph that produced a tensor and returns
DOT text (Graphviz's graph language), needing no program and no package, so tests can
compare it as a string. Node ids are given in the order of the graph walk (``n0``,
``n1``, ...), never from ``id()``, so the same model draws the same text on every run.

What the drawing shows:

* **Tensors** are boxes: the shape, a name (``w1.weight`` for a module's parameter or
  buffer, ``tensor.name`` for a named input), and on request the dtype, the values and the
  gradient (the numbers when there are at most 8, else the norm, as micrograd shows them).
  Parameters are blue, inputs and buffers grey, the output green; constants (the 2 in
  ``x * 2``) are just their number.
* **Ops** are yellow ellipses with their attributes (``sum axis=(0,)``).
* **Modules** are nested clusters (an FFN holding its ``w1``, ``act`` and ``w2``), and
  composed functions (``linear``, ``gelu``, ``softmax``) are dashed clusters. ``depth``
  folds every module nested ``depth`` levels deep into one 3-D box; ``expand=False``
  folds every composed function into one ellipse.
* With ``show_grads``, an edge into a broadcasting op is labelled ``Σ over axes (0,)``
  when backward has to sum the gradient back to that input's shape: how a bias of shape
  (d_ff,) receives one gradient from all T positions.

Rendering is a separate step, in :mod:`tinyffn.rendering`: :func:`render` and
:func:`pipe` (also offered here), and the ``graphviz.Digraph`` that :func:`draw_graph`
returns (``.render()``, ``.pipe()``, inline display in Jupyter), run Graphviz's ``dot``,
or ``graphviz-pure`` where ``dot`` is missing, and raise :class:`RendererNotFoundError`
saying how to install one when neither is found.
"""
from __future__ import annotations

from typing import Any

from . import autograd, grad_mode, hooks
from .autograd import Context
from .backend import dtype_name
from .module import Parameter
from .naming import (constant_text, format_values, graph_names, inputs_ordered, is_constant,
                     op_settings, scope_label, summed_axes)
from .rendering import (INSTALL_HELP, RENDERERS, TEXT_FORMATS, RendererNotFoundError,
                        find_renderer, pipe, render)

__all__ = [
    "to_dot", "dot_body", "draw_graph", "RANKDIRS",
    # rendering, defined in rendering.py
    "INSTALL_HELP", "RENDERERS", "TEXT_FORMATS", "RendererNotFoundError", "find_renderer",
    "pipe", "render",
]

RANKDIRS = ("TB", "LR", "BT", "RL")

GRAPH_ATTRS = 'graph [fontname=Helvetica fontsize=11 rankdir={rankdir}]\n'
NODE_ATTRS = 'node [fontname=Helvetica fontsize=10]\n'
EDGE_ATTRS = 'edge [fontname=Helvetica fontsize=9 arrowsize=0.6]\n'
STYLES = {
    "op": 'shape=ellipse style=filled fillcolor="#fff3b0"',
    "hook view": 'shape=ellipse style="filled,dashed" fillcolor="#fff3b0"',
    "function": 'shape=ellipse style=filled fillcolor="#fff3b0" peripheries=2',
    "module": 'shape=box3d style=filled fillcolor="#f4d8f0"',
    "parameter": 'shape=box style="rounded,filled" fillcolor="#cfe2ff"',
    "input": 'shape=box style="rounded,filled" fillcolor="#e9ecef"',
    "tensor": 'shape=box style=rounded',
    "output": 'shape=box style="rounded,filled" fillcolor="#c7ebd1"',
    "constant": 'shape=plaintext',
    "point": 'shape=point width=0.08',
}
HIGHLIGHT = ' fillcolor="#ffc107" style="filled,rounded" penwidth=3'
# Frame titles sit in the top-left corner: centred, they were crossed by the edges that
# enter a frame from above (the input's edge into a module's first op).
CLUSTER_STYLES = {
    "module": 'labeljust=l style=rounded color="#6c757d"',
    "function": 'labeljust=l style="rounded,dashed" color="#adb5bd"',
}
BROADCAST_EDGE = 'color="#d63384" fontcolor="#d63384"'
INPUT_NUMBER = 'fontcolor="#0d6efd"'     # the 0 and 1 on the edges into x - w


# ----------------------------------------------------------------------------- the text
def to_dot(root: Any, *, show_shapes: bool = True, show_dtypes: bool = False,
           show_values: bool = False, show_grads: bool = False, expand: bool = True,
           depth: int | None = None, rankdir: str = "TB", highlight: Any = None) -> str:
    """The DOT text of the graph that produced ``root`` (a Tensor).

    Args:
        show_shapes / show_dtypes / show_values / show_grads: what each tensor box shows.
            Gradients are the ``.grad`` that backward left (on parameters and inputs, and on
            tensors you called ``.retain_grad()`` on); ``show_grads`` also labels the edges
            where backward sums over broadcast axes.
        expand: False draws each composed function (gelu, softmax, ...) as one node.
        depth: draw modules nested this deep (0 = the outermost) as one box each.
        rankdir: the direction of the layout: "TB" (top to bottom), "LR", "BT" or "RL".
        highlight: a tensor or a list of tensors to draw highlighted, with the op that
            made each (the backward stepper highlights the node being processed).
    """
    return "digraph {\n" + "".join(dot_body(
        root, show_shapes=show_shapes, show_dtypes=show_dtypes, show_values=show_values,
        show_grads=show_grads, expand=expand, depth=depth, rankdir=rankdir,
        highlight=highlight)) + "}\n"


def dot_body(root: Any, *, show_shapes=True, show_dtypes=False, show_values=False,
             show_grads=False, expand=True, depth=None, rankdir="TB", highlight=None) -> list:
    """The lines between ``digraph {`` and ``}`` (a Digraph's ``body``); see :func:`to_dot`."""
    _check_arguments(root, depth, rankdir)
    layout = _Layout(root, expand, depth)
    lit = layout.highlighted(highlight)
    ids, nodes = {}, {}               # node key -> "n<k>"; node key -> its DOT statement
    for v in layout.vertices:         # number the nodes in walk order: inputs first
        keys = [*layout.constants_of(v), layout.owner[id(v)]] if isinstance(v, Context) else []
        keys += [("tensor", id(v))] if id(v) in layout.kind_of else []
        for key in keys:
            if key not in ids:
                ids[key] = f"n{len(ids)}"
                label, style = layout.label_and_style(key, v, show_shapes, show_dtypes,
                                                      show_values, show_grads)
                lit_style = HIGHLIGHT if key in lit else ""
                nodes[key] = f'{ids[key]} [label="{_escape(label)}" {style}{lit_style}]\n'
    body = [GRAPH_ATTRS.format(rankdir=rankdir), NODE_ATTRS, EDGE_ATTRS]
    body += _clusters(nodes, layout.cluster_of, layout.names)
    return ["\t" + line for line in body + _edges(layout, ids, show_grads)]


class _Layout:
    """Where each op and tensor of the graph is drawn: in which node, in which cluster.

    The graph's vertices (:func:`tinyffn.autograd.topological_order`) are op nodes and
    leaf tensors; an op node is drawn as its op and its output's box. Node keys:
    ``("op", id(ctx))`` for an op drawn as itself, ``("tensor", id(v))`` for the box of a
    leaf or of an op's output, ``("constant", id(ctx), i)`` for a constant, drawn once per
    use (input ``i`` of op ``ctx``: the engine shares one tensor per number, see
    :func:`tinyffn.promotion.as_tensors`), and ``("group", (kind, id(scope)), ...)`` for a
    folded module or function call (one per call: each call has its own Scope object).
    """

    def __init__(self, root: Any, expand: bool, depth: int | None):
        self.vertices = autograd.topological_order(root, every_input=True)
        self.names = graph_names(self.vertices)
        self.ops = [v for v in self.vertices if isinstance(v, Context)]
        self.owner = {}               # id(ctx) -> key of the node that draws the op
        self.cluster_of = {}          # node key -> the scopes around it, outermost first
        self.members = {}             # group key -> the op nodes folded into it
        for ctx in self.ops:
            folded = _folded_scopes(ctx.scope, expand, depth)
            key = ("op", id(ctx)) if folded is None else _group_key(folded)
            self.owner[id(ctx)] = key
            self.cluster_of[key] = ctx.scope if folded is None else folded[:-1]
            if folded is not None:
                self.members.setdefault(key, []).append(ctx)
        self.consumers = {}           # id(vertex) -> keys of the nodes that use its tensor
        for ctx in self.ops:
            for parent in ctx.parents:
                self.consumers.setdefault(id(parent), []).append(self.owner[id(ctx)])
        self.kind_of = {}             # id(vertex) -> its kind, for tensors drawn as a box
        self.folded_into = {}         # group key -> the vertices hidden inside it
        self.constants = {}           # ("constant", id(ctx), i) -> the constant it draws
        for ctx in self.ops:
            for i, x in enumerate(ctx.parents):
                key, owner = ("constant", id(ctx), i), self.owner[id(ctx)]
                if _tensor_kind(x, None, self.names) == "constant" and owner[0] != "group":
                    self.constants[key] = x               # (in a folded box: hidden)
                    self.cluster_of[key] = self.cluster_of[owner]
        for v in self.vertices:
            kind = _tensor_kind(v, self.vertices[-1], self.names)
            if kind == "constant":
                continue              # drawn once per use, above
            box = self._box_hiding(v, kind)
            if box is not None:
                self.folded_into.setdefault(box, []).append(v)
                continue
            self.kind_of[id(v)] = kind
            self.cluster_of[("tensor", id(v))] = self._tensor_cluster(v, kind)

    def constants_of(self, ctx: Context) -> list:
        """The keys of the constants drawn as inputs of op ``ctx``, in input order."""
        return [key for key in (("constant", id(ctx), i) for i in range(len(ctx.parents)))
                if key in self.constants]

    def source(self, ctx: Context, i: int) -> tuple:
        """The key of the node drawing input ``i`` of op ``ctx`` (if it is drawn at all)."""
        key = ("constant", id(ctx), i)
        return key if key in self.constants else ("tensor", id(ctx.parents[i]))

    def _box_hiding(self, t: Any, kind: str) -> tuple | None:
        """The folded box ``t`` disappears into, or None when it gets a box of its own.

        Hidden: a tensor made inside a folded box and used only there, and a parameter
        used only inside one folded module.
        """
        uses = set(self.consumers.get(id(t), []))
        if isinstance(t, Context):
            box = self.owner[id(t)]
            return box if box[0] == "group" and kind != "output" and uses <= {box} else None
        if len(uses) != 1 or next(iter(uses))[0] != "group":
            return None
        (box,) = uses
        return box if kind == "parameter" and box[-1][0] == "module" else None

    def _tensor_cluster(self, t: Any, kind: str) -> tuple:
        """An op's output sits beside its op; inputs outside every cluster; parameters in
        the innermost call their users share of the module that owns them."""
        if isinstance(t, Context):
            return self.cluster_of[self.owner[id(t)]]
        clusters = [self.cluster_of[use] for use in self.consumers.get(id(t), [])]
        if kind == "input" or not clusters:
            return ()
        shared = clusters[0]
        for c in clusters[1:]:
            n = 0
            while n < min(len(shared), len(c)) and shared[n] is c[n]:
                n += 1
            shared = shared[:n]
        while kind == "parameter" and shared and \
                not _owns(shared[-1], self.names[id(t)], self.names):
            shared = shared[:-1]
        return shared

    def label_and_style(self, key, t, show_shapes, show_dtypes, show_values, show_grads):
        """The label and DOT attributes of node ``key``; ``t`` is the vertex it was met at."""
        if key[0] == "constant":
            return constant_text(self.constants[key]), STYLES["constant"]
        if key[0] == "op":
            return _op_label(t), STYLES["hook view" if hooks.hooked_view(t) else "op"]
        if key[0] == "group":
            return self._group_label(key)
        kind = self.kind_of[id(t)]
        label = _tensor_label(t, kind, self.names, show_shapes, show_dtypes, show_values,
                              show_grads)
        return label, STYLES[kind if label else "point"]

    def _group_label(self, key: tuple) -> tuple:
        """A folded call: its name, its number of ops, and the parameters folded into it."""
        members = self.members[key]
        scope = members[0].scope[len(key) - 2]     # key = ("group", *scopes): the last one
        lines = [scope_label(scope, self.names),
                 f"{len(members)} op{'' if len(members) == 1 else 's'}"]
        lines += [f"{self.names[id(t)]} {tuple(t.shape)}"         # parameters: leaves
                  for t in self.folded_into.get(key, []) if id(t) in self.names]
        return "\n".join(lines), STYLES[scope.kind]

    def highlighted(self, highlight: Any) -> set:
        """Keys of the nodes to light: each chosen tensor's box and the node of its op.

        A chosen op node (a Context, such as a backward step's ``node``) stands for its output.
        """
        chosen = [] if highlight is None else \
            highlight if isinstance(highlight, (list, tuple)) else [highlight]
        keys = set()
        for t in chosen:
            if not isinstance(t, Context) and not hasattr(t, "grad_fn"):
                raise TypeError(f"to_dot: highlight takes tensors or op nodes (a backward "
                                f"step's .node), got {type(t).__name__}")
            v = t if isinstance(t, Context) else autograd.node_of(t)
            if id(v) in self.kind_of:
                keys.add(("tensor", id(v)))
            if id(v) in self.owner:
                keys.add(self.owner[id(v)])
            elif id(v) not in self.kind_of:          # a leaf folded into a box: light the box
                keys.update(self.consumers.get(id(v), []))
        return keys


def _edges(layout: _Layout, ids: dict, show_grads: bool) -> list:
    """An arrow from each input into its op's node and from the node to its output."""
    edges, seen = [], set()
    for ctx in layout.ops:
        target = layout.owner[id(ctx)]
        for i, x in enumerate(ctx.parents):
            source = layout.source(ctx, i)
            made_inside = isinstance(x, Context) and layout.owner[id(x)] == target
            if source not in ids or made_inside:
                continue                      # folded away, or made inside the same box
            edge = f"{ids[source]} -> {ids[target]}"
            if target[0] == "op":
                edge += _edge_attributes(ctx, i, show_grads)
            if target[0] == "op" or edge not in seen:   # x * x draws two arrows into mul
                seen.add(edge)
                edges.append(edge + "\n")
        output = ("tensor", id(ctx))
        if output in ids and (target, output) not in seen:
            seen.add((target, output))
            edges.append(f"{ids[target]} -> {ids[output]}\n")
    return edges


def draw_graph(root: Any, *, show_shapes: bool = True, show_dtypes: bool = False,
               show_values: bool = False, show_grads: bool = False, expand: bool = True,
               depth: int | None = None, rankdir: str = "TB", highlight: Any = None) -> Any:
    """The drawing of :func:`to_dot` as a ``graphviz.Digraph``, ready to look at.

    In Jupyter it displays inline; ``.render("ffn")`` writes ``ffn.svg``; ``.pipe()``
    returns the SVG bytes; ``.source`` is the DOT text (equal to :func:`to_dot`'s) and
    needs no renderer. Needs the graphviz Python package (the ``viz`` extra:
    ``pip install -e ".[viz]"``); see the module docstring for the renderer it runs.
    """
    try:
        from ._digraph import Drawing
    except ModuleNotFoundError as e:
        if e.name != "graphviz":
            raise
        raise ImportError("draw_graph needs the graphviz Python package: from the repository, "
                          "pip install -e \".[viz]\" (or pip install graphviz); to_dot() gives "
                          "the DOT text without it") from e
    body = dot_body(root, show_shapes=show_shapes, show_dtypes=show_dtypes,
                    show_values=show_values, show_grads=show_grads, expand=expand,
                    depth=depth, rankdir=rankdir, highlight=highlight)
    return Drawing(body=body, format="svg")


# ----------------------------------------------------------------------------- helpers
def _check_arguments(root: Any, depth: Any, rankdir: str) -> None:
    if not hasattr(root, "grad_fn"):
        raise TypeError(f"to_dot: expected a Tensor, got {type(root).__name__}")
    if root.grad_fn is None:
        raise ValueError("to_dot: this tensor was not made by a recorded op, so it has no "
                         "graph to draw; give its inputs requires_grad=True (a Module's "
                         "parameters have it) and compute it outside no_grad()")
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 0):
        raise ValueError(f"to_dot: depth must be None or an integer >= 0, got {depth!r}")
    if rankdir not in RANKDIRS:
        raise ValueError(f"to_dot: rankdir must be one of {', '.join(RANKDIRS)}, got {rankdir!r}")


def _folded_scopes(scopes: tuple, expand: bool, depth: int | None) -> tuple | None:
    """The scopes down to the outermost one drawn folded into a single node, or None."""
    level = 0
    for i, s in enumerate(scopes):
        if s.kind == "module":
            if depth is not None and level >= depth:
                return scopes[:i + 1]
            level += 1
        elif not expand:
            return scopes[:i + 1]
    return None


def _group_key(scopes: tuple) -> tuple:
    """A node key for a folded scope call: one key per call, as each call has its Scope."""
    return ("group",) + tuple((s.kind, id(s)) for s in scopes)


def _tensor_kind(t: Any, root: Any, names: dict) -> str:
    """What the box of vertex ``t`` shows: the output, an intermediate, or a kind of leaf."""
    if t is root:
        return "output"
    if isinstance(t, Context):
        return "tensor"
    if id(t) in names:              # a parameter, or a buffer: drawn as an input is
        return "parameter" if isinstance(t, Parameter) else "input"
    if is_constant(t):
        return "constant"
    return "input"


def _owns(scope: grad_mode.Scope, parameter: str, names: dict) -> bool:
    """Is ``scope`` a call of the module whose path is a prefix of ``parameter``'s name?"""
    path = names.get(id(scope.obj)) if scope.kind == "module" else None
    return path is not None and (path == "" or parameter.startswith(path + "."))


def _tensor_label(v, kind, names, show_shapes, show_dtypes, show_values, show_grads) -> str:
    """The box of vertex ``v``: a leaf tensor, or an op node standing for its output.

    An op's output that nobody holds any more was freed (the graph keeps only what
    backward needs), so its box shows the shape and dtype the node recorded, and no values.
    """
    t = v.output if isinstance(v, Context) else v          # None: an output already freed
    shape, dtype = autograd.shape_and_dtype(v)
    lines = [names.get(id(v)) or (t.name if t is not None else None) or ""]
    if show_shapes:
        lines.append(str(tuple(shape)))
    if show_dtypes:
        device = v.backend.device
        lines.append(dtype_name(dtype) + ("" if device == "cpu" else f" {device}"))
    if show_values:
        lines.append("value freed" if t is None else "value " + format_values(t.data))
    if show_grads and t is not None and t._grad is not None:    # ._grad: no warning for a
        lines.append("grad " + format_values(t._grad.data))     # non-leaf without one
    return "\n".join(line for line in lines if line)


def _op_label(ctx: Context) -> str:
    """The op's name and its non-default attributes, one per line: ``sum`` / ``axis=(0,)``;
    for the identity view of a module's backward hooks, what it is (hooks.BackwardHook)."""
    side = hooks.hooked_view(ctx)
    if side is not None:
        return f"{ctx.name} (identity)\nbackward hooks: {side}"
    return "\n".join([ctx.name, *op_settings(ctx)])


def _edge_attributes(ctx: Context, i: int, show_grads: bool) -> str:
    """The label of the edge from input ``i`` into op ``ctx``: the input's number where the
    order of the inputs matters (``x - w``: 0 and 1, as the stepper numbers them), and
    with ``show_grads`` the axes backward sums over to fit this input. The number sits
    mid-edge: as a headlabel, beside the op, it could not be told apart from its neighbour's."""
    number = f"{i}" if inputs_ordered(ctx) else ""
    axes = summed_axes(ctx, i) if show_grads else ()
    if axes:
        return f' [label="{number + ": " if number else ""}Σ over axes {axes}" {BROADCAST_EDGE}]'
    return f' [label="{number}" {INPUT_NUMBER}]' if number else ""


def _clusters(lines: dict, cluster_of: dict, names: dict) -> list:
    """The node statements wrapped in nested ``subgraph cluster_k { ... }`` blocks.

    Clusters are told apart by the identity of their Scope objects, so two calls of one
    module draw two clusters.
    """
    tree = {(): []}                   # path of scope ids -> node keys and ("cluster", path)s
    scope_at = {}                     # path -> the Scope that opens it, in first-seen order
    for key in lines:
        scopes = cluster_of[key]
        path = tuple(id(s) for s in scopes)
        for n, s in enumerate(scopes):
            if path[:n + 1] not in tree:
                tree[path[:n + 1]], scope_at[path[:n + 1]] = [], s
                tree[path[:n]].append(("cluster", path[:n + 1]))
        tree[path].append(key)
    number = {path: k for k, path in enumerate(scope_at)}
    out = []

    def write(path: tuple, indent: str) -> None:     # recursion as deep as modules nest
        for member in tree[path]:
            if member[0] != "cluster":
                out.append(indent + lines[member])
                continue
            s = scope_at[member[1]]
            out.append(f"{indent}subgraph cluster_{number[member[1]]} {{\n")
            out.append(f'{indent}\tlabel="{_escape(scope_label(s, names))}" '
                       f'{CLUSTER_STYLES.get(s.kind, CLUSTER_STYLES["function"])}\n')
            write(member[1], indent + "\t")
            out.append(indent + "}\n")

    write((), "")
    return out


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
