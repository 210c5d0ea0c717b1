"""A differential fuzzer: random programs of 3-12 ops, run in tinyffn and in PyTorch.

Each program is Python text written once in the names both libraries share (``M`` is
``tinyffn`` or ``torch``, ``F`` is ``M.nn.functional``), so the program a failure prints is
exactly the one that ran, and runs as it is under ``import torch as M`` too. A program is a
list of statements, one tensor each: leaves (float64 or float32, some non-contiguous views
made leaves: ``M.tensor(...).t().requires_grad_()``, ``[:, ::2]``), then ops drawn from
:data:`OPS` (elementwise, broadcasting binary ops, matmul, reductions with ``dim`` and
``keepdim``, views and indexing, ``cat``/``stack``, softmax, the activations, the norms,
``index_select``, ``gather``, ...), whose inputs are any earlier tensor, so one tensor feeds
several ops and a leaf can meet itself. Some statements step outside the graph: ``detach()``,
a ``no_grad()`` island, in-place methods on a fresh copy outside the graph (tinyffn records
no in-place op on a tensor that needs a gradient, and refuses one: docs/api.md, "PyTorch's
in-place methods"). One intermediate may ``retain_grad()``.

Then a harness, also text: ``out.backward(gy)`` (or ``M.autograd.backward`` of several
outputs) with a random ``gy``, or, for the second-order variant, ``M.autograd.grad(...,
create_graph=True)`` and the backward of a weighted sum of those gradients. What is
compared: every output's values and dtype, every leaf's ``.grad`` (None where torch's is
None), the retained tensor's ``.grad``, and the first-order gradients of the second-order
run. A program whose torch run fails, or gives values not finite or large, is dropped
(the generator should not write it; :func:`campaign` counts them).

A failing program is shrunk (:func:`shrink`): the output moved to the smallest failing
tensor, everything it does not need removed, and each remaining op cut into a leaf of its
values while the failure stays. ``python tests/torch_fuzz.py SECONDS [SEED [JOBS [ORDER]]]``
runs a campaign in worker processes (a segfault in torch costs one seed, recorded as a crash)
and prints each distinct failure, shrunk; :func:`parse` makes a printed program a
:class:`Program` again.
"""

import dataclasses
import math
import re
import sys
import time
import types
import warnings

import numpy as np

import tinyffn
from tinyffn.backend import dtype_name

# ----------------------------------------------------------------------------- programs
@dataclasses.dataclass
class Stmt:
    """One statement defining the tensor ``name``; ``code`` may span lines."""
    name: str
    code: str
    shape: tuple
    dtype: str                       # "float64" or "float32"
    rg: bool                         # requires grad
    leaf: bool = False
    tied: bool = False               # may hold exact repeats (relu's zeros, expand's copies)
    uses: tuple = ()


@dataclasses.dataclass
class Program:
    stmts: list
    outs: list                       # names of the outputs backward starts from
    gys: list                        # a cotangent (nested list) per output
    retained: str | None = None
    order: int = 1                   # 1: backward(gy); 2: grad(create_graph) then backward
    weights: list = dataclasses.field(default_factory=list)   # order 2: one per leaf

    def by_name(self):
        return {s.name: s for s in self.stmts}

    def leaves(self):
        return [s.name for s in self.stmts if s.leaf and s.rg]

    def body(self) -> str:
        lines = []
        for s in self.stmts:
            lines.append(s.code)
            if s.name == self.retained:
                lines.append(f"{s.name}.retain_grad()")
        return "\n".join(lines)

    def harness(self) -> str:
        by = self.by_name()
        gy = [f"M.tensor({lit(g)}, dtype=M.{by[o].dtype})" for o, g in zip(self.outs, self.gys)]
        leaves = self.leaves()
        if self.order == 1:
            if len(self.outs) == 1:
                return f"{self.outs[0]}.backward({gy[0]})"
            return f"M.autograd.backward([{', '.join(self.outs)}], [{', '.join(gy)}])"
        outs = self.outs[0] if len(self.outs) == 1 else f"[{', '.join(self.outs)}]"
        gys = gy[0] if len(self.outs) == 1 else f"[{', '.join(gy)}]"
        terms = " + ".join(f"(g[{i}] * M.tensor({lit(w)}, dtype=g[{i}].dtype)).sum()"
                           for i, w in enumerate(self.weights))
        return (f"g = M.autograd.grad({outs}, [{', '.join(leaves)}], {gys}, "
                f"create_graph=True, materialize_grads=True)\n"
                f"s = {terms}\n"
                f"if s.requires_grad:\n    s.backward()")

    def source(self) -> str:
        return self.body() + "\n" + self.harness()

    def script(self, note="") -> str:
        """A standalone program: run it with tinyffn, then with ``import torch as M``."""
        shown = self.outs + ([self.retained] if self.retained else [])
        prints = [f"print('{o} =', {o})" for o in shown[:len(self.outs)]]
        prints += [f"print('{x}.grad =', {x}.grad)" for x in self.leaves()]
        if self.retained:
            prints.append(f"print('{self.retained}.grad =', {self.retained}.grad)")
        if self.order == 2:
            prints.append("print('g =', g)")
        head = f"# {note}\n" if note else ""
        return (f"{head}import tinyffn as M          # or: import torch as M\n"
                f"F = M.nn.functional\n{self.source()}\n" + "\n".join(prints))


def lit(a) -> str:
    """A nested list literal of an array (float64's shortest exact repr)."""
    a = np.asarray(a)
    if a.dtype == bool:
        return repr(a.tolist())
    if a.dtype.kind in "iu":
        return repr(a.astype(np.int64).tolist())
    return repr(a.astype(np.float64).tolist()).replace("inf", "float('inf')")


def parse(source: str) -> Program:
    """The :class:`Program` whose :meth:`Program.source` (or :meth:`Program.script`) is
    ``source``: a program printed by a campaign (or written by hand in that form) run
    again, shrunk, or pinned in a test without its seed, which a change to the generator
    gives another program. Shapes come from running the statements with tinyffn; dtypes
    and ``requires_grad`` from the text, as the generator decides them (a leaf is an
    ``M.tensor(...)``, a detached or no_grad tensor needs no gradient)."""
    import ast
    lines = source.splitlines()
    stmts, outs, gys, weights, retained, order = [], [], [], [], None, 1
    ns = {"float": float}

    def text(node):
        return "\n".join(lines[node.lineno - 1:node.end_lineno])

    def value(node):                  # M.tensor(LIT, dtype=...) -> LIT
        return eval(compile(ast.Expression(node.args[0]), "<lit>", "eval"), ns)

    for node in ast.parse(source).body:
        call = node.value if isinstance(node, (ast.Expr, ast.Assign)) else None
        name = call.func.attr if isinstance(call, ast.Call) and \
            isinstance(call.func, ast.Attribute) else None
        if isinstance(node, (ast.Import, ast.ImportFrom)) or \
                isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "F" or \
                isinstance(call, ast.Call) and getattr(call.func, "id", "") == "print":
            continue                   # the lines :meth:`Program.script` adds
        if isinstance(node, ast.Expr) and name == "retain_grad":
            retained = call.func.value.id
        elif isinstance(node, ast.Expr) and name == "backward":
            if isinstance(call.func.value, ast.Name):            # out.backward(gy)
                outs, gys = [call.func.value.id], [value(call.args[0])]
            else:                                                # M.autograd.backward
                outs = [e.id for e in call.args[0].elts]
                gys = [value(e) for e in call.args[1].elts]
        elif isinstance(node, ast.Assign) and name == "grad":    # g = M.autograd.grad(...)
            order = 2
            o, gy = call.args[0], call.args[2]
            outs = [e.id for e in o.elts] if isinstance(o, ast.List) else [o.id]
            gys = [value(e) for e in gy.elts] if isinstance(gy, ast.List) else [value(gy)]
        elif isinstance(node, ast.Assign) and order == 2 and \
                isinstance(node.targets[0], ast.Name) and node.targets[0].id == "s":
            terms = [c for c in ast.walk(node.value)       # g[i] * M.tensor(w, ...)
                     if isinstance(c, ast.BinOp) and isinstance(c.op, ast.Mult)]
            weights = [value(c.right) for c in sorted(terms, key=lambda c: c.col_offset)]
        elif isinstance(node, ast.If):                           # if s.requires_grad:
            pass
        elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) or \
                isinstance(node, ast.With):
            target = (node.body[0] if isinstance(node, ast.With) else node).targets[0].id
            code = text(node)
            rhs = code.split("=", 1)[1].strip()
            uses = tuple(sorted(set(re.findall(r"\b[xcv]\d+\b", rhs)) - {target}))
            by = {s.name: s for s in stmts}
            leaf = rhs.startswith("M.tensor(")
            if leaf:
                dtype = "float32" if "M.float32" in rhs else "float64"
                rg = "requires_grad" in rhs
            else:
                dtype = "float64" if any(by[u].dtype == "float64" for u in uses) \
                    else "float32"
                rg = any(by[u].rg for u in uses) and not (
                    ".detach()" in rhs or isinstance(node, ast.With))
            stmts.append(Stmt(target, code, None, dtype, rg, leaf=leaf, uses=uses))
        else:                          # an in-place method or item write on the last one
            stmts[-1].code += "\n" + text(node)
    run_ns = {"M": tinyffn, "F": tinyffn.nn.functional, "float": float}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile("\n".join(s.code for s in stmts), "<parse>", "exec"), run_ns)
    for s in stmts:
        s.shape = tuple(run_ns[s.name].shape)
    return Program(stmts, outs, [np.asarray(g) for g in gys], retained, order,
                   [np.asarray(w) for w in weights])


# ----------------------------------------------------------------------------- running
def run(program: Program, lib) -> dict:
    """Run ``program`` with ``lib`` (tinyffn or torch): name -> result. Values are NumPy
    arrays (float64) with their dtype name, ``None`` for a missing gradient; an exception
    is returned under ``"error"``."""
    F = lib.nn.functional
    ns = {"M": lib, "F": F, "float": float}
    result = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(compile(program.source(), "<fuzz>", "exec"), ns)
        except Exception as e:          # noqa: BLE001 - what failed is the result
            return {"error": e, "ns": ns}
        for o in program.outs:
            result[o] = plain(ns[o])
        for x in program.leaves():
            result[f"{x}.grad"] = plain(ns[x].grad)
        if program.retained:
            result[f"{program.retained}.grad"] = plain(ns[program.retained].grad)
        if program.order == 2:
            for i, g in enumerate(ns["g"]):
                result[f"g[{i}]"] = plain(g)
    result["ns"] = ns
    return result


def plain(t):
    if t is None:
        return None
    if isinstance(t, tinyffn.Tensor):         # the name: strict's dtypes print otherwise
        return dtype_name(t.dtype), t.numpy().astype(np.float64)
    return str(t.dtype).removeprefix("torch."), torch_numpy(t).astype(np.float64)


def torch_numpy(t):
    """A torch tensor's values as a NumPy array. Not ``.numpy(force=True)`` alone: on a
    ZeroTensor (the gradient torch gives through sgn's derivative) that sits at a nonzero
    offset, as a part of one cat's or stack's backward split, torch 2.13 reads through a
    null data pointer and the process dies (a segfault: seed 1018271 before add and sub
    were drawn; ``a, b`` leaves, ``M.cat([a, b]).sgn().sum().backward()``, then
    ``b.grad.numpy(force=True)``). Its values are zeros."""
    t = t.detach()
    if t._is_zerotensor():
        return np.zeros(tuple(t.shape), dtype=str(t.dtype).removeprefix("torch."))
    return t.numpy(force=True)


def tolerances(dtype):
    return (1e-7, 1e-9) if dtype == "float64" else (2e-3, 2e-4)


def compare(ours: dict, theirs: dict, program: Program, reference: str = "torch") -> str | None:
    """None if tinyffn's results are torch's, else a line saying the first difference.
    Float32 tolerances wherever the program holds a float32 tensor (a float64 result may
    have gone through float32: a 0-d float64 times a float32 tensor is float32)."""
    if "error" in ours:
        e = ours["error"]
        return f"tinyffn raised {type(e).__name__}: {str(e).splitlines()[0][:300]}"
    wide = all(s.dtype == "float64" for s in program.stmts)
    for key, want in theirs.items():
        if key == "ns":
            continue
        got = ours[key]
        if program.order == 2 and (got is None) != (want is None) and np.allclose(
                (got or want)[1], 0, rtol=0, atol=tolerances(
                    (got or want)[0] if wide else "float32")[1]):
            # a gradient that depends on no tensor needing one (of a piecewise-linear
            # function): tinyffn records none, so s has no graph to x, where PyTorch
            # backpropagates zeros (and the other way round where one op records a
            # constant gradient); deliberate, said by op_checks.root_grad's error. Zeros up
            # to rounding count too (torch's second derivative of copysign(x, cos x), 0, is
            # 4e-16 in places: seed 6022173)
            continue
        if want is None or got is None:
            if (want is None) != (got is None):
                return f"{key}: tinyffn {'None' if got is None else 'a tensor'}, {reference} " \
                       f"{'None' if want is None else 'a tensor'}"
            continue
        if got[0] != want[0]:
            return f"{key}: dtype {got[0]}, {reference}'s {want[0]}"
        if got[1].shape != want[1].shape:
            return f"{key}: shape {got[1].shape}, {reference}'s {want[1].shape}"
        rtol, atol = tolerances(want[0] if wide else "float32")
        scale = max(1.0, float(np.max(np.abs(want[1]), initial=0.0)))
        if not np.allclose(got[1], want[1], rtol=rtol, atol=atol * scale, equal_nan=True):
            i = np.unravel_index(np.argmax(np.abs(got[1] - want[1])), want[1].shape) \
                if want[1].ndim else ()
            return f"{key}: tinyffn {got[1][i]!r} at {i}, {reference} {want[1][i]!r}"
    return None


def sane(theirs: dict, limit=1e4) -> bool:
    """Torch ran, and every value it gave (outputs, gradients, every tensor the program
    made) is finite and moderate: past that, float32 overflows inside a second
    derivative (cosh(54)² in one, NaN in the other) and where each is exact is open."""
    if "error" in theirs:
        return False
    values = [v[1] for key, v in theirs.items() if key != "ns" and v is not None]
    values += [torch_numpy(t) for t in theirs["ns"].values()
               if type(t).__name__ == "Tensor" and t.is_floating_point()]
    return all(np.all(np.abs(v) < limit) for v in values)


def check(program: Program, torch):
    """(kind, message) of the difference between tinyffn and torch on ``program``, or
    None: kind "skip" where torch refuses it or its values are not moderate; "nearer"
    where float32 values differ past the tolerance but tinyffn's are as near the float64
    truth as torch's (:func:`nearer`): a badly conditioned program, not a bug here."""
    theirs = run(program, torch)
    if not sane(theirs):
        return "skip", repr(theirs.get("error", "not finite or large"))
    ours = run(program, tinyffn)
    message = compare(ours, theirs, program)
    if message is None:
        return None
    if message.startswith("tinyffn raised"):
        return message.split(":")[0], message
    far = nearer(program, ours, theirs, torch)
    return ("mismatch", message) if far is None else ("nearer", f"{message}; {far}")


def in_float64(program: Program) -> Program:
    """``program`` with every float32 tensor made float64: the truth its float32 run
    approximates."""
    stmts = [dataclasses.replace(s, code=s.code.replace("M.float32", "M.float64"),
                                 dtype="float64") for s in program.stmts]
    return dataclasses.replace(program, stmts=stmts)


def nearer(program: Program, ours: dict, theirs: dict, torch) -> str | None:
    """Where a program holding float32 tensors gives values beyond the float32 tolerance
    of torch's: a line saying how far each is from the float64 truth (torch's run of
    :func:`in_float64`) if tinyffn is no farther than torch on every result (with 1.5x
    slack for rounding), else None. Two float32 second-order gradients of ill-conditioned
    rows (fuzzer seeds 423634, 428803) were 40x and 20x nearer the truth here than in torch."""
    if all(s.dtype == "float64" for s in program.stmts):
        return None
    truth = run(in_float64(program), torch)
    if "error" in truth:
        return None
    worst = (0.0, 0.0, "")
    for key, want in theirs.items():
        if key == "ns" or want is None or ours.get(key) is None or truth.get(key) is None:
            continue
        if want[1].shape != ours[key][1].shape:
            return None
        t = truth[key][1]
        e_ours = float(np.max(np.abs(ours[key][1] - t), initial=0.0))
        e_theirs = float(np.max(np.abs(want[1] - t), initial=0.0))
        scale = max(1.0, float(np.max(np.abs(t), initial=0.0)))
        if e_ours > 1.5 * e_theirs + 2e-6 * scale:
            return None
        if e_theirs - e_ours > worst[1] - worst[0]:
            worst = (e_ours, e_theirs, key)
    return (f"float64 truth: {worst[2]} is {worst[0]:.2g} off here, {worst[1]:.2g} off in "
            "torch")


class OnDevice(types.ModuleType):
    """``tinyffn`` whose ``M.tensor``, ``M.eye`` and ``M.arange`` (the programs' makers of
    tensors) put them on ``device``: a program run with it computes there. For
    :func:`check_on_device`."""

    def __init__(self, device):
        super().__init__("tinyffn")
        self.on = device

    def tensor(self, data, **kwargs):
        return tinyffn.tensor(data, device=self.on, **kwargs)

    def eye(self, *args, **kwargs):
        return tinyffn.eye(*args, device=self.on, **kwargs)

    def arange(self, *args, **kwargs):
        return tinyffn.arange(*args, device=self.on, **kwargs)

    def __getattr__(self, name):
        return getattr(tinyffn, name)


def check_on_device(program: Program, device: str):
    """:func:`check` with tinyffn on the CPU (NumPy) as the reference, no torch: the
    program run on ``device`` ("cuda": CuPy's kernels, "strict") must give the CPU's
    values, dtypes and gradients, and raise nowhere the CPU does not."""
    theirs = run(program, tinyffn)
    if "error" in theirs or not all(
            np.all(np.abs(v[1]) < 1e4) for k, v in theirs.items() if k != "ns" and v):
        return "skip", repr(theirs.get("error", "not finite or large"))
    message = compare(run(program, OnDevice(device)), theirs, program, reference="cpu")
    if message is None:
        return None
    kind = message.split(":")[0] if message.startswith("tinyffn raised") else "mismatch"
    return kind, message


# ----------------------------------------------------------------------------- generating
def broadcast(*shapes):
    return tuple(np.broadcast_shapes(*shapes))


# Not in second-order programs: torch's double backward of logcumsumexp is wrong where
# the incoming gradient has zeros (tinyffn's agrees with central differences of the
# first-order gradient there: found by this fuzzer). lgamma and digamma: their second
# derivatives are torch's float64 trigamma, 4e-10 off the true value (SciPy's, here, is
# within 1 ulp), which a cancellation in a second-order gradient makes 5e-7 (seed 1003959,
# before add and sub were drawn: tinyffn 2e-13 from mpmath's value, torch 4.8e-7; the
# closed forms in tests/test_higher_order.py check tinyffn's).
# Of the EXTRA families: polygamma, psi, gammaln as lgamma and digamma; pdist, cdist and
# multi_margin_loss, whose double backward torch 2.13 does not implement ("the derivative
# for '_pdist_backward' is not implemented").
FIRST_ORDER_ONLY = ("logcumsumexp", "lgamma", "digamma",
                    "polygamma", "special.psi", "gammaln", "pdist", "cdist", "multi_margin")


class Gen:
    """Builds one random program from ``rng``."""

    def __init__(self, rng, order=1, extra=False, latest=False):
        self.rng = rng
        self.order = order
        self.extra = extra            # half the ops from EXTRA (seeds from EXTRA_FROM on)
        self.extras = (EXTRA + LATEST if latest else EXTRA) if extra else []
        r = rng.random()
        self.dtypes = ["float64"] if r < 0.7 else ["float32"] if r < 0.85 else \
            ["float64", "float32"]
        self.stmts = []
        self.count = 0

    # -- helpers
    def pick(self, seq):
        return seq[int(self.rng.integers(len(seq)))]

    def chance(self, p):
        return self.rng.random() < p

    def narrow(self):
        """Whether the program holds float32 tensors, where two ill-conditioned spots are
        not drawn: a norm over one entry (normalize, cosine_similarity, norm: x / |x|,
        whose second derivative, 0, is terms of gy / x² that cancel up to each library's
        own rounding: 0.0156 here, 0 in torch at x = -0.0032, seeds 2028276, 4004241,
        4007596), and layer_norm or rms_norm of tied values (a constant row: 1 / sqrt(eps)
        = 316 times a rounding of x - mean, seed 4033333). Both are right in float64."""
        return "float32" in self.dtypes

    def fresh(self, prefix):
        self.count += 1
        return f"{prefix}{self.count}"

    def values(self, shape):
        return np.round(self.rng.uniform(-2, 2, size=shape), 4)

    def leaf(self, shape, rg=True, dtype=None, plain_layout=False) -> Stmt:
        """A new leaf: contiguous, or a transposed or strided view of a bigger array made
        a leaf (``M.tensor(...).t().requires_grad_()``)."""
        dtype = dtype or self.pick(self.dtypes)
        name = self.fresh("x" if rg else "c")
        shape = tuple(shape)
        layout = 0 if plain_layout or not rg else int(self.rng.choice(3, p=[.6, .2, .2]))
        if layout == 1 and len(shape) >= 2:
            base = self.values(shape[::-1])
            make = f"M.tensor({lit(base)}, dtype=M.{dtype}).mT"
            if len(shape) == 2 and self.chance(0.5):
                make = f"M.tensor({lit(base)}, dtype=M.{dtype}).t()"
            if len(shape) > 2:            # a permutation of the reversed axes
                perm = list(range(len(shape)))[::-1]
                base = self.values([shape[p] for p in perm])
                make = f"M.tensor({lit(base)}, dtype=M.{dtype}).permute{tuple(perm)}"
        elif layout == 2 and len(shape) >= 1:
            base = self.values((shape[0] * 2,) + shape[1:])
            make = f"M.tensor({lit(base)}, dtype=M.{dtype})[::2]"
        else:
            grad = ", requires_grad=True" if rg else ""
            make = f"M.tensor({lit(self.values(shape))}, dtype=M.{dtype}{grad})"
        code = f"{name} = {make}" + (".requires_grad_()" if rg and layout else "")
        s = Stmt(name, code, shape, dtype, rg, leaf=True)
        self.stmts.append(s)
        return s

    def leaf_shape(self):
        ndim = int(self.rng.choice(4, p=[.05, .25, .4, .3]))
        return tuple(int(self.rng.choice([1, 2, 3, 4], p=[.15, .35, .3, .2])) for _ in range(ndim))

    def partner_shape(self, shape, into=False):
        """A shape that broadcasts with ``shape`` (to it, with ``into``)."""
        k = int(self.rng.integers(0, len(shape) + 1))
        out = [1 if self.chance(0.3) else n for n in shape[len(shape) - k:]]
        if self.chance(0.15) and k == len(shape) < 3 and not into:
            out = [int(self.rng.integers(1, 4))] + out
        return tuple(out)

    def operand(self, shape, same_dtype_as=None, exact=False, into=False):
        """A second operand for an op on a tensor of ``shape``: an earlier tensor that
        broadcasts with it (to it, with ``into``; or has it, with ``exact``), or a new leaf."""
        fits = [s for s in self.stmts if
                (s.shape == shape if exact else _broadcasts(s.shape, shape, into)) and
                (same_dtype_as is None or s.dtype == same_dtype_as)]
        if fits and self.chance(0.5):
            return self.pick(fits)
        new = shape if exact else self.partner_shape(shape, into)
        return self.leaf(new, rg=self.chance(0.75), dtype=same_dtype_as)

    def positive(self, name):
        return f"({name}.abs() + 0.5)"

    def dim(self, shape):
        return int(self.rng.integers(-len(shape), len(shape)))

    # -- the program
    def program(self, n_ops=None) -> Program:
        n_ops = n_ops or int(self.rng.integers(3, 13))
        for _ in range(int(self.rng.integers(1, 3))):
            self.leaf(self.leaf_shape(), rg=True)
        made = 0
        tries = 0
        while made < n_ops and tries < 200:
            tries += 1
            a = self.pick(self.stmts) if self.chance(0.4) else self.stmts[-1]
            r = self.rng.random()
            if r < 0.04:
                ok = self.step_outside(a)
            else:
                op = self.pick(self.extras) if self.extras and self.chance(0.5) else \
                    self.pick(OPS)
                ok = self.apply(op, a)
            made += bool(ok)
        return self.finish()

    def apply(self, op, a):
        before = len(self.stmts)
        got = op(self, a)           # None where op does not apply to a
        if got is None:
            del self.stmts[before:]       # leaves it made for nothing
            return False
        expr, shape, tied = got
        if math.prod(shape) > 96 or len(shape) > 4 or \
                self.order == 2 and any(name in expr for name in FIRST_ORDER_ONLY):
            del self.stmts[before:]
            return False
        name = self.fresh("v")
        uses = tuple(sorted(set(re.findall(r"\b[xcv]\d+\b", expr))))
        by = {s.name: s for s in self.stmts}
        ins = [by[u] for u in uses]
        dtype = "float64" if any(s.dtype == "float64" for s in ins) else "float32"
        rg = any(s.rg for s in ins)
        tied = tied or any(s.tied for s in ins)
        self.stmts.append(Stmt(name, f"{name} = {expr}", tuple(shape), dtype, rg, tied=tied,
                               uses=uses))
        return True

    def step_outside(self, a):
        """A tensor out of the graph: detach(), a no_grad() island, in-place methods on a
        copy that needs no gradient (never on one a graph saved: PyTorch would refuse the
        backward, and tinyffn keeps the old values, docs/api.md)."""
        name = self.fresh("v")
        kind = int(self.rng.integers(4))
        if kind == 0:
            # under create_graph an array two inputs of one op share (x and x.detach()) is
            # refused as ambiguous (docs/api.md, higher_order.RecordedContext): clone it
            clone = ".clone()" if self.order == 2 else ""
            code = f"{name} = {a.name}.detach(){clone}"
        elif kind == 1:
            code = f"with M.no_grad():\n    {name} = ({a.name} * 2).tanh() + {a.name}"
        elif kind == 2:
            inplace = self.pick(["mul_(1.5)", "add_(0.25)", "clamp_(-1.0, 1.0)", "exp_()",
                                 "sub_(0.5).abs_()", "neg_()", "tanh_()"])
            code = f"{name} = {a.name}.detach().clone()\n{name}.{inplace}"
        else:
            if not a.shape:
                return False
            code = f"{name} = {a.name}.detach().clone()\n{name}[0] = 0.75"
        self.stmts.append(Stmt(name, code, a.shape, a.dtype, False, tied=True, uses=(a.name,)))
        return True

    def finish(self) -> Program:
        rg = [s for s in self.stmts if s.rg and not s.leaf]
        if not rg:
            return None
        used = {u for s in self.stmts for u in s.uses}
        ends = [s for s in rg if s.name not in used]
        outs = [rg[-1]]
        if len(ends) > 1 and self.chance(0.3):
            outs = ends
        gys = [self.values(o.shape) for o in outs]
        inner = [s for s in rg if s not in outs]
        retained = self.pick(inner).name if inner and self.chance(0.4) else None
        p = Program(self.stmts, [o.name for o in outs], gys, retained, self.order)
        if self.order == 2:
            p.retained = None
            by = p.by_name()
            p.weights = [self.values(by[x].shape) for x in p.leaves()]
        return p


def _broadcasts(s, shape, into=False):
    try:
        both = np.broadcast_shapes(s, shape)
    except ValueError:
        return False
    return both == shape or not into


def result_shape(shape, key):
    return np.empty(shape)[key].shape


# ----------------------------------------------------------------------------- the ops
# Each takes (gen, a) and gives (expression, shape, makes_ties) or None where it does not
# apply to ``a``. Ties matter to max/sort-like ops, where torch leaves the choice open.

def unary(expr, tied=False, domain=None):
    def op(g, a):
        x = g.positive(a.name) if domain == "positive" else a.name
        return expr.format(x=x), a.shape, tied
    op.__name__ = expr
    return op


UNARY = [unary(e) for e in [
    "{x}.exp()", "M.tanh({x})", "{x}.sigmoid()", "M.sin({x})", "{x}.cos()", "-{x}",
    "{x}.square()", "{x}.expm1()", "M.erf({x})", "{x}.atan()", "{x}.sinh()", "M.cosh({x})",
    "{x}.exp2()", "{x} ** 3", "{x}.pow(2)", "F.gelu({x})", "F.gelu({x}, approximate='tanh')",
    "F.silu({x})", "F.softplus({x}, beta=2.0)", "F.elu({x}, alpha=0.7)", "F.selu({x})",
    "F.celu({x}, alpha=2.0)",   # not 1.3: torch's celu is 3e-8 off in float64 there
    "F.mish({x})", "F.hardswish({x})",   # no hardsigmoid: torch's slope is float32's 1/6
    # in float64 too, 3e-8 off (docs/api.md, hardsigmoid)
    "F.logsigmoid({x})", "F.softsign({x})", "F.tanhshrink({x})", "F.leaky_relu({x}, 0.1)",
    # + 0.37: the steps of remainder and floor away from 0 and the integers, which a
    # program's values hit in exact arithmetic, and the two libraries' roundings on either
    # side (logcumsumexp(log_softmax(x))[-1] is 0: -1.1e-16 in torch, 0.0 here, the true
    # value -1.06e-16; floor gives -1 and 0, seed 2007820)
    "{x} * 1.5", "2.0 - {x}", "{x} / 3.0", "1.7 ** {x}", "M.remainder({x} + 0.37, 1.3)",
    # not sigmoid(x).logit(): x up to a rounding that is each library's own, and
    # minimum(x.sigmoid().logit(), x) sends the whole gradient to one side or the
    # other (seed 2019753)
    "{x}.clone()", "({x}.sigmoid() * 0.9).logit()",
]] + [unary(e, tied=True) for e in [
    "{x}.relu()", "F.relu({x})", "{x}.abs()", "{x}.clamp(-0.5, 0.8)", "{x}.clamp(min=0.1)",
    "M.clamp_max({x}, 0.3)", "{x}.clip(max=-0.2)", "F.hardtanh({x}, -0.8, 0.9)",
    "F.relu6({x} * 4)", "F.softshrink({x}, 0.3)", "F.hardshrink({x}, 0.3)",
    "F.threshold({x}, 0.2, -1.0)", "({x} + 0.37).floor()", "{x}.sign() * {x}",
]] + [unary(e, domain="positive") for e in [
    "{x}.log()", "M.sqrt({x})", "{x}.rsqrt()", "{x}.reciprocal()", "M.log1p({x})",
    "{x}.log2()", "M.log10({x})", "{x} ** 0.5", "{x}.pow(-1.5)", "M.lgamma({x})",
    "M.digamma({x})",
]]


def binary(expr, dtype_strict=False, positive_b=False, exact=False, untied=False, ties=False):
    """``ties``: the result may repeat a value where b broadcasts (maximum(x, 0-d c) is c
    wherever x < c: topk's choice among them is open; seed 1035886)."""
    def op(g, a):
        b = g.operand(a.shape, same_dtype_as=a.dtype if dtype_strict else None, exact=exact)
        if untied and (a.tied or b.tied):
            return None
        y = g.positive(b.name) if positive_b else b.name
        a_, b_ = (a.name, y) if g.chance(0.8) or positive_b else (y, a.name)
        return expr.format(a=a_, b=b_), broadcast(a.shape, b.shape), ties or b is a  # a - a
    op.__name__ = expr
    return op


BINARY = [binary(e, ties=True) for e in ["M.maximum({a}, {b})", "{a}.minimum({b})"]] + [
    binary(e) for e in [
    "{a} + {b}", "{a} - {b}", "{a} * {b}",
    "M.hypot({a}, {b})", "M.logaddexp({a}, {b})",
    # + 0.1: no near-ties of a and b, equal up to roundings
    "M.where({a} > {b} + 0.1, {a}, {b} * 2)", "{a}.add({b}, alpha=0.5)", "{a}.sub({b})",
    "M.addcmul({a}, {a}, {b}, value=0.5)",
]] + [binary(e, positive_b=True) for e in [
    "{a} / {b}", "M.xlogy({a}, {b})", "{a}.div({b})", "M.addcdiv({a}, {a}, {b}, value=2.0)",
]] + [binary(e, dtype_strict=True) for e in ["{a}.lerp({b}, 0.3)"]] + [
    # not where zeros may be: atan2(±0, x < 0) is ±π, and the sign of a zero is torch's
    # choice (softshrink's band is -0.0 or 0.0 by its kernel's path: activations_extra.py)
    binary("M.atan2({a}, {b})", untied=True)]


def op_masked(g, a):
    mask = g.values(g.partner_shape(a.shape, into=True)) > 0   # a mask that would widen
    # x is refused by masked_fill, which keeps x's shape (docs/api.md); torch broadcasts
    if g.chance(0.5):
        return f"{a.name}.masked_fill(M.tensor({lit(mask)}), 0.7)", a.shape, True
    b = g.operand(a.shape)
    return (f"M.where(M.tensor({lit(mask)}), {a.name}, {b.name})",
            broadcast(a.shape, b.shape, mask.shape), False)


def op_matmul(g, a):
    if not a.shape:
        return None
    k = a.shape[-1]
    form = int(g.rng.integers(5))
    m = int(g.rng.integers(1, 4))
    if form == 0:                                       # (..., k) @ (k,)
        b = g.leaf((k,), rg=g.chance(0.8), dtype=a.dtype)
        return f"{a.name} @ {b.name}", a.shape[:-1], False
    if form == 1 and len(a.shape) == 2:                  # mm, addmm
        b = g.operand((k, m), same_dtype_as=a.dtype, exact=True)
        if g.chance(0.5):
            c = g.operand((a.shape[0], m), same_dtype_as=a.dtype, into=True)
            return f"M.addmm({c.name}, {a.name}, {b.name}, beta=0.5)", (a.shape[0], m), False
        return f"{a.name}.mm({b.name})", (a.shape[0], m), False
    if form == 2 and len(a.shape) == 3:                  # bmm
        b = g.operand((a.shape[0], k, m), same_dtype_as=a.dtype, exact=True)
        return f"M.bmm({a.name}, {b.name})", (a.shape[0], a.shape[1], m), False
    if form == 3:                                        # a @ b written as (bᵀ aᵀ)ᵀ
        batch = g.partner_shape(a.shape[:-2]) if len(a.shape) > 2 else ()
        b = g.leaf(batch + (k, m), rg=g.chance(0.8), dtype=a.dtype)
        shape = np.matmul(np.empty(a.shape), np.empty(b.shape)).shape
        if len(a.shape) == 1:
            return f"M.matmul({a.name}, {b.name})", shape, False
        return f"M.matmul({b.name}.mT, {a.name}.mT).mT", shape, False
    batch = g.partner_shape(a.shape[:-2]) if len(a.shape) > 2 else ()
    b = g.operand(batch + (k, m), same_dtype_as=a.dtype, exact=True)
    return f"{a.name} @ {b.name}", np.matmul(np.empty(a.shape), np.empty(b.shape)).shape, False


def reduce_dims(g, shape, allow_tuple=True):
    if not shape:
        return None
    if allow_tuple and len(shape) >= 2 and g.chance(0.3):
        k = int(g.rng.integers(1, len(shape) + 1))
        dims = sorted(g.rng.choice(len(shape), size=k, replace=False).tolist())
        return tuple(d - len(shape) if g.chance(0.3) else d for d in dims)
    return g.dim(shape)


def reduced(shape, dims, keepdim):
    dims = dims if isinstance(dims, tuple) else (dims,)
    dims = {d % len(shape) for d in dims}
    return tuple(1 if i in dims else n for i, n in enumerate(shape)
                 if keepdim or i not in dims)


def reduction(method, allow_tuple=True, untied=False, allow_all=True, spec=""):
    def op(g, a):
        if untied and a.tied:
            return None
        if not a.shape or (allow_all and g.chance(0.15)):
            if not allow_all or (method == "var" and math.prod(a.shape) <= 1):
                return None       # var of one entry: an error here, NaN in torch (api.md)
            if method == "norm" and math.prod(a.shape) <= 1 and g.narrow():
                return None
            return f"{a.name}.{method}({spec.lstrip(', ')})", (), False
        dims = reduce_dims(g, a.shape, allow_tuple)
        keep = g.chance(0.5)
        n = math.prod(a.shape[d] for d in (dims if isinstance(dims, tuple) else (dims,)))
        if method == "var" and n <= 1 or method == "norm" and n <= 1 and g.narrow():
            return None
        return (f"{a.name}.{method}(dim={dims}{spec}, keepdim={keep})",
                reduced(a.shape, dims, keep), False)
    op.__name__ = method + spec
    return op


REDUCTIONS = [
    reduction("sum"), reduction("mean"), reduction("amax"), reduction("amin"),
    reduction("var"), reduction("std", spec=", correction=0"), reduction("logsumexp",
                                                                         allow_all=False),
    reduction("prod", allow_tuple=False), reduction("nansum"),
    reduction("norm", allow_tuple=False, spec=", p=3", untied=True),
    reduction("norm", spec=", p=2", untied=True),
]


def op_max_dim(g, a):
    if not a.shape or a.tied:
        return None
    d, keep = g.dim(a.shape), g.chance(0.5)
    which = g.pick(["max", "min", "median"])
    return f"{a.name}.{which}(dim={d}, keepdim={keep})[0]", reduced(a.shape, d, keep), False


def op_sort(g, a):
    if not a.shape or a.tied:
        return None
    d = g.dim(a.shape)
    if g.chance(0.5):
        return f"{a.name}.sort(dim={d}, descending={g.chance(0.5)})[0]", a.shape, False
    k = int(g.rng.integers(1, a.shape[d] + 1))
    shape = list(a.shape)
    shape[d] = k
    return f"M.topk({a.name}, {k}, dim={d})[0]", tuple(shape), False


def along(method, tied=False, untied=False):
    def op(g, a):
        if not a.shape or untied and a.tied:
            # a row of zeros: normalize's gradient is gy / eps there, 1e12, and what is
            # left of it after x - x cancels is rounding, in torch and here
            return None
        d = g.dim(a.shape)
        if untied and a.shape[d] == 1 and g.narrow():
            return None
        return f"{method.format(x=a.name, d=d)}", a.shape, tied
    op.__name__ = method
    return op


ALONG = [along(e) for e in [
    "{x}.softmax(dim={d})", "F.log_softmax({x}, dim={d})", "F.softmin({x}, dim={d})",
    "{x}.cumsum(dim={d})", "M.cumprod({x}, dim={d})", "{x}.logcumsumexp(dim={d})",
    "{x}.flip({d})", "M.roll({x}, 1, {d})",
]] + [along("F.normalize({x}, dim={d})", untied=True)]


def op_reshape(g, a):
    n = math.prod(a.shape)
    dims = []
    rest = n
    while rest > 1 and len(dims) < 3:
        f = g.pick([d for d in range(1, rest + 1) if rest % d == 0])
        dims.append(f)
        rest //= f
    if rest > 1:
        dims.append(rest)
    if g.chance(0.3):
        dims.insert(int(g.rng.integers(len(dims) + 1)), 1)
    shape = tuple(dims)
    show = list(shape)
    if show and g.chance(0.4):
        show[int(g.rng.integers(len(show)))] = -1
    method = g.pick(["reshape", "view"]) if not a.leaf else "reshape"
    return f"{a.name}.{method}({', '.join(map(str, show)) if show else '()'})", shape, False


def op_transpose(g, a):
    if len(a.shape) < 2:
        return None
    form = int(g.rng.integers(4))
    if form == 0:
        d0, d1 = g.dim(a.shape), g.dim(a.shape)
        s = list(a.shape)
        s[d0], s[d1] = s[d1], s[d0]
        return f"{a.name}.transpose({d0}, {d1})", tuple(s), False
    if form == 1:
        perm = g.rng.permutation(len(a.shape)).tolist()
        return f"{a.name}.permute({', '.join(map(str, perm))})", \
            tuple(a.shape[p] for p in perm), False
    if form == 2:
        return f"{a.name}.mT", a.shape[:-2] + a.shape[:-3:-1], False
    src, dst = g.dim(a.shape), g.dim(a.shape)
    return f"{a.name}.movedim({src}, {dst})", np.moveaxis(np.empty(a.shape), src, dst).shape, False


def op_expand(g, a):
    if not any(n == 1 for n in a.shape) and len(a.shape) >= 3:
        return None
    new = [int(g.rng.integers(2, 4)) for _ in range(int(g.rng.integers(0, 2)))]
    sizes = new + [int(g.rng.integers(2, 4)) if n == 1 and g.chance(0.7) else
                   (-1 if g.chance(0.5) else n) for n in a.shape]
    shape = tuple(new) + tuple(n if s == -1 else s for s, n in zip(sizes[len(new):], a.shape))
    if not sizes:
        return None
    if g.chance(0.3):
        return f"{a.name}.expand({', '.join(map(str, sizes))})", shape, True
    if g.chance(0.5):
        reps = [int(g.rng.integers(1, 3)) for _ in range(len(a.shape) + int(g.rng.integers(2)))]
        shape = np.tile(np.empty(a.shape), reps).shape
        return f"{a.name}.repeat({', '.join(map(str, reps))})" if len(reps) >= len(a.shape) \
            else None, shape, True
    b = g.leaf(shape, rg=False, plain_layout=True)
    return f"{a.name}.expand_as({b.name}) * {b.name}", shape, True


def op_getitem(g, a):
    key, text = [], []
    ellipsis = False
    i = 0
    while i < len(a.shape):
        n = a.shape[i]
        r = g.rng.random()
        if r < 0.15 and n > 0:
            j = int(g.rng.integers(-n, n))
            key.append(j)
            text.append(str(j))
        elif r < 0.25:
            key.append(None)
            text.append("None")
            continue
        elif r < 0.35 and not ellipsis:
            ellipsis = True
            key.append(Ellipsis)
            text.append("...")
            i = len(a.shape) - int(g.rng.integers(0, len(a.shape) - i + 1))
            continue
        elif r < 0.45 and not any(isinstance(k, list) for k in key):
            idx = g.rng.integers(0, n, size=int(g.rng.integers(1, 4))).tolist()
            key.append(idx)
            text.append(repr(idx))
        else:
            start = int(g.rng.integers(-n, n)) if g.chance(0.4) else None
            stop = int(g.rng.integers(-n, n + 1)) if g.chance(0.3) else None
            step = int(g.pick([1, 2, 3])) if g.chance(0.4) else None
            key.append(slice(start, stop, step))
            text.append(("" if start is None else str(start)) + ":" +
                        ("" if stop is None else str(stop)) + (f":{step}" if step else ""))
        i += 1
    if not key:
        key, text = [Ellipsis], ["..."]
    if any(isinstance(k, list) for k in key) and \
            any(k is None or type(k) is int for k in key):
        # an index array next to an integer or None: NumPy and PyTorch may order the axes
        # differently, and tinyffn refuses the ambiguous cases (docs/quickstart.md,
        # "Indexing is NumPy's")
        return None
    shape = result_shape(a.shape, tuple(key))
    if 0 in shape:
        return None
    ties = any(isinstance(k, list) and len(set(k)) < len(k) for k in key)
    return f"{a.name}[{', '.join(text)}]", shape, ties


def op_shape_misc(g, a):
    form = int(g.rng.integers(7))
    if form == 0:
        d = int(g.rng.integers(0, len(a.shape) + 1))
        return f"{a.name}.unsqueeze({d})", a.shape[:d] + (1,) + a.shape[d:], False
    if form == 1:
        if 1 not in a.shape:
            return None
        if g.chance(0.5):
            return f"{a.name}.squeeze()", tuple(n for n in a.shape if n != 1), False
        d = a.shape.index(1)
        return f"{a.name}.squeeze({d})", a.shape[:d] + a.shape[d + 1:], False
    if form == 2 and len(a.shape) >= 2:
        s, e = sorted(g.rng.choice(len(a.shape), 2, replace=False).tolist())
        return f"{a.name}.flatten({s}, {e})", \
            a.shape[:s] + (math.prod(a.shape[s:e + 1]),) + a.shape[e + 1:], False
    if form == 3 and a.shape:
        d = g.dim(a.shape)
        n = a.shape[d]
        start = int(g.rng.integers(0, n))
        length = int(g.rng.integers(1, n - start + 1))
        s = list(a.shape)
        s[d] = length
        return f"{a.name}.narrow({d}, {start}, {length})", tuple(s), False
    if form == 4 and a.shape:
        d = g.dim(a.shape)
        n = a.shape[d]
        kind = int(g.rng.integers(3))
        s = list(a.shape)
        if kind == 0:
            k = int(g.rng.integers(1, n + 1))
            parts = np.array_split(np.arange(n), [i for i in range(-(-n // k), n, -(-n // k))])
            i = int(g.rng.integers(len(parts)))
            s[d] = len(parts[i])
            return f"{a.name}.chunk({k}, {d})[{i}]", tuple(s), False
        if kind == 1:
            size = int(g.rng.integers(1, n + 1))
            parts = list(range(0, n, size))
            i = int(g.rng.integers(len(parts)))
            s[d] = min(size, n - parts[i])
            return f"{a.name}.split({size}, dim={d})[{i}]", tuple(s), False
        i = int(g.rng.integers(n))
        del s[d]
        return f"M.unbind({a.name}, {d})[{i}]", tuple(s), False
    if form == 5 and len(a.shape) >= 2:
        k = int(g.rng.integers(-1, 2))
        return f"{a.name}.{g.pick(['tril', 'triu'])}({k})", a.shape, True
    if form == 6 and len(a.shape) >= 2:
        off = int(g.rng.integers(-1, 2))
        d1, d2 = g.rng.choice(len(a.shape), 2, replace=False).tolist()
        shape = np.diagonal(np.empty(a.shape), off, d1, d2).shape
        if 0 in shape:
            return None
        return f"{a.name}.diagonal({off}, {d1}, {d2})", shape, False
    return None


def op_join(g, a):
    if not a.shape:
        return None
    d = g.dim(a.shape)
    if g.chance(0.5):                       # cat
        s = list(a.shape)
        s[d] = int(g.rng.integers(1, 4))
        b = a if g.chance(0.2) else g.operand(tuple(s), exact=True)
        out = list(a.shape)
        out[d] += b.shape[d]
        return f"M.cat([{a.name}, {b.name}], dim={d})", tuple(out), b is a
    b = a if g.chance(0.2) else g.operand(a.shape, exact=True)
    d = int(g.rng.integers(-len(a.shape) - 1, len(a.shape) + 1))
    return f"M.stack([{a.name}, {b.name}], {d})", \
        np.stack([np.empty(a.shape)] * 2, d).shape, b is a


def op_index(g, a):
    if not a.shape:
        return None
    d = g.dim(a.shape)
    n = a.shape[d]
    form = int(g.rng.integers(3))
    if form == 0:
        idx = g.rng.integers(0, n, size=int(g.rng.integers(1, 5)))
        s = list(a.shape)
        s[d] = len(idx)
        return f"{a.name}.index_select({d}, M.tensor({lit(idx)}))", tuple(s), \
            len(set(idx.tolist())) < len(idx)
    s = [int(g.rng.integers(1, m + 1)) if form == 1 else m for m in a.shape]
    s[d] = int(g.rng.integers(1, 4))
    idx = g.rng.integers(0, n, size=s)
    call = f"{a.name}.gather({d}, M.tensor({lit(idx)}))" if form == 1 else \
        f"M.take_along_dim({a.name}, M.tensor({lit(idx)}), dim={d})"
    return call, tuple(s), True


def op_norms(g, a):
    if not a.shape or a.shape[-1] < 2:
        return None
    form = int(g.rng.integers(5))
    if (form == 0 or form == 1) and a.tied and g.narrow():
        return None
    if form == 0 or form == 1:
        k = 2 if len(a.shape) >= 2 and g.chance(0.4) else 1
        ns = a.shape[-k:]
        w = g.leaf(ns, dtype=a.dtype) if g.chance(0.6) else None
        b = g.leaf(ns, dtype=a.dtype) if g.chance(0.5) else None
        if form == 0 and b and not w and g.order == 2:
            # torch 2.13's double backward of layer_norm(x, bias=b) without a weight drops
            # d(gb)/d(gy) = I (seed 3007024: 0.15 off finite differences; tinyffn's is
            # checked in tests/test_higher_order.py)
            w = g.leaf(ns, dtype=a.dtype)
        ws = f", weight={w.name}" if w else ""
        if form == 0:
            bs = f", bias={b.name}" if b else ""
            return f"F.layer_norm({a.name}, {ns}{ws}{bs})", a.shape, False
        return f"F.rms_norm({a.name}, {ns}{ws}, eps=1e-6)", a.shape, False
    if form == 2:
        m = int(g.rng.integers(1, 4))
        w = g.leaf((m, a.shape[-1]), dtype=a.dtype, rg=g.chance(0.8))
        b = f", {g.leaf((m,), dtype=a.dtype).name}" if g.chance(0.5) else ""
        return f"F.linear({a.name}, {w.name}{b})", a.shape[:-1] + (m,), False
    if form == 3:
        b = g.operand(a.shape, exact=True)
        if a.tied or b.tied:                 # zero rows, as normalize's
            return None
        d = g.dim(a.shape)
        if a.shape[d] == 1 and g.narrow():
            return None
        # cos(x, x) is 1 up to each library's rounding: ties for amin (seed 6042438); marked
        # only where EXTRA is drawn, so older seeds keep their programs
        return f"F.cosine_similarity({a.name}, {b.name}, dim={d})", \
            reduced(a.shape, d, False), b is a and g.extra
    if a.shape[-1] % 2:
        return None
    return f"F.glu({a.name})", a.shape[:-1] + (a.shape[-1] // 2,), False


OPS = (UNARY + BINARY + REDUCTIONS + ALONG +
       [op_masked] * 2 + [op_matmul] * 4 + [op_max_dim, op_sort] + [op_reshape] * 3 +
       [op_transpose] * 3 + [op_expand] * 2 + [op_getitem] * 4 + [op_shape_misc] * 4 +
       [op_join] * 3 + [op_index] * 2 + [op_norms] * 3)


# ----------------------------------------------------------------------------- more ops
# Families the generator drew only from seed EXTRA_FROM on (seeds below it write the
# programs they always wrote: Gen draws from EXTRA only when asked). Each writes inputs in
# the op's domain: well-conditioned matrices for linalg (diagonally dominant, or AᵀA + nI),
# windows that fit for convolutions and pools, class indices in range for losses.
EXTRA_FROM = 6_000_000


def _ints(g, high, shape):
    return lit(g.rng.integers(0, high, size=shape))


def op_linalg(g, a):
    if len(a.shape) < 2 or a.shape[-1] > 4:
        return None
    m, n = a.shape[-2:]
    batch = a.shape[:-2]
    eye = f"{n} * M.eye({n}, dtype=M.{a.dtype})"
    # strictly diagonally dominant (off-diagonal row sums < 0.5 (n - 1) < n - 0.5): invertible,
    # condition number below 2n
    if m == n and g.chance(0.5):
        G = f"({a.name}.tanh() * 0.5 + {eye})"
    else:
        G = f"(({a.name}.mT @ {a.name}.tanh()).tanh() * 0.5 + {eye})"
    S = f"({a.name}.tanh().mT @ {a.name}.tanh() + {eye})"     # symmetric, eigenvalues >= n
    form = g.pick(["det", "slogdet", "logdet", "inv", "solve", "solve_right", "cholesky",
                   "svdvals", "eigvalsh", "eigvalsh_sym", "qr", "matrix_norm", "norm",
                   "matrix_exp", "matrix_power", "solve_triangular", "cholesky_solve",
                   "pinv", "trace", "multi_dot", "lstsq"])
    if form == "det":
        return f"M.linalg.det({G})", batch, False
    if form == "slogdet":
        return f"M.linalg.slogdet({G})[1]", batch, False
    if form == "logdet":
        return f"M.logdet({S})", batch, False
    if form == "inv":
        return f"M.linalg.inv({G})", batch + (n, n), False
    if form in ("solve", "solve_right"):
        k = int(g.rng.integers(1, 4))
        if form == "solve" and g.chance(0.3):
            b = g.operand(batch + (n,), same_dtype_as=a.dtype, exact=True)
            return f"M.linalg.solve({G}, {b.name})", batch + (n,), False
        shape = batch + ((n, k) if form == "solve" else (k, n))
        b = g.operand(shape, same_dtype_as=a.dtype, exact=True)
        left = "" if form == "solve" else ", left=False"
        return f"M.linalg.solve({G}, {b.name}{left})", shape, False
    if form == "cholesky":
        return f"M.linalg.cholesky({S})", batch + (n, n), False
    if form == "solve_triangular":
        k = int(g.rng.integers(1, 4))
        b = g.operand(batch + (n, k), same_dtype_as=a.dtype, exact=True)
        up = g.chance(0.5)
        L = f"M.linalg.cholesky({S})" + (".mT" if up else "")
        return f"M.linalg.solve_triangular({L}, {b.name}, upper={up})", batch + (n, k), False
    if form == "cholesky_solve":
        k = int(g.rng.integers(1, 4))
        b = g.operand(batch + (n, k), same_dtype_as=a.dtype, exact=True)
        return f"M.cholesky_solve({b.name}, M.linalg.cholesky({S}))", batch + (n, k), False
    if form == "matrix_exp":
        return f"M.linalg.matrix_exp({G} * 0.3)", batch + (n, n), False
    if form == "matrix_power":
        k = g.pick([1, 2, 3, -1, -2])
        return f"M.linalg.matrix_power({G}, {k})", batch + (n, n), False
    if form == "pinv":            # full rank and well conditioned; repeated singular values
        # (pinv(4 I) of a tied input, seed 6032127) are fine since pinv is one primitive
        return f"M.linalg.pinv({G})", batch + (n, n), False
    if form == "trace":
        return (f"{G}.trace()", (), False) if not batch else None
    if form == "multi_dot":
        if batch:
            return None
        b = g.leaf((n, int(g.rng.integers(1, 4))), dtype=a.dtype, rg=g.chance(0.8))
        return f"M.linalg.multi_dot([{a.name}, {G}, {b.name}])", (m, b.shape[1]), False
    if form == "lstsq":           # a tall, full-rank system: the least-squares solution
        if batch or m < n or a.tied:
            return None
        b = g.operand((m, 1), same_dtype_as=a.dtype, exact=True)
        return f"M.linalg.lstsq({a.name} + {m} * M.eye({m}, {n}, dtype=M.{a.dtype}), " \
               f"{b.name}).solution", (n, 1), False
    if a.tied:                     # repeated singular values or eigenvalues: no derivative
        return None
    if form == "svdvals":
        return f"M.linalg.svdvals({a.name})", batch + (min(m, n),), False
    if form == "eigvalsh":
        if g.order == 2 and m < n - 1:
            # S has the eigenvalue n twice or more (AᵀA has rank m), for every A: the second
            # derivative goes through eigh's backward, 1 / (L_j − L_i), and is NaN or right
            # by rounding alone, in either library (seeds 7106694, 7107376: NaN here, right
            # in torch; torch NaN, tinyffn right for other rows; docs/api.md, eigvalsh)
            return None
        # m < n: the smallest eigenvalue is n for every A, so across a batch a constant
        # (batch_norm of it in float32: rounding / sqrt(eps), seed 6116622)
        return f"M.linalg.eigvalsh({S})", batch + (n,), m < n
    if form == "eigvalsh_sym":
        if m != n:
            return None
        return f"M.linalg.eigvalsh({a.name} + {a.name}.mT)", batch + (n,), False
    if form == "qr":               # tall and full rank: Q and R unique with LAPACK's signs
        if m < n:                  # (an avg_pool's columns can be dependent: seed 6045982)
            return None
        i = int(g.rng.integers(2))
        mode = g.pick(["reduced", "complete"]) if m == n else "reduced"
        A = f"({a.name}.tanh() * 0.5 + {n} * M.eye({m}, {n}, dtype=M.{a.dtype}))"
        return f"M.linalg.qr({A}, mode='{mode}')[{i}]", \
            batch + ((m, n) if i == 0 else (n, n)), False
    if form == "matrix_norm":
        ord_ = g.pick(["'fro'", "'nuc'", "2", "-2", "1", "-1", "float('inf')"])
        keep = g.chance(0.3)
        shape = batch + ((1, 1) if keep else ())
        return f"M.linalg.matrix_norm({a.name}, ord={ord_}, keepdim={keep})", shape, False
    d = g.dim(a.shape)
    ord_ = g.pick(["2", "1", "3", "float('inf')", "0.5"])
    if a.shape[d] == 1 and g.narrow():
        return None
    return f"M.linalg.vector_norm({a.name}, {ord_}, dim={d})", reduced(a.shape, d, False), False


def _window(n, k, s, p, d, ceil=False):
    span = n + 2 * p - d * (k - 1) - 1
    if span < 0:
        return 0
    out = (-(-span // s) if ceil else span // s) + 1
    if ceil and (out - 1) * s >= n + p:
        out -= 1
    return out


def op_conv(g, a):
    if len(a.shape) < 2:
        return None
    two = len(a.shape) == 4 or len(a.shape) == 3 and g.chance(0.6)
    sp = 2 if two else 1
    c = a.shape[-sp - 1]
    spatial = a.shape[-sp:]
    groups = g.pick([q for q in range(1, c + 1) if c % q == 0])
    c_out = groups * int(g.rng.integers(1, 3))
    k = [int(g.rng.integers(1, 4)) for _ in spatial]
    s = [int(g.rng.integers(1, 3)) for _ in spatial]
    dl = [int(g.rng.integers(1, 3)) for _ in spatial]
    p = [int(g.rng.integers(0, 2)) for _ in spatial]
    out = [_window(n, *args) for n, *args in zip(spatial, k, s, p, dl)]
    same = g.chance(0.15)
    if same:
        out, s = list(spatial), [1] * sp
    if 0 in out:
        return None
    fmt = (lambda v: str(v[0])) if not two else (lambda v: str(tuple(v)))
    if not same and g.chance(0.3):           # the adjoint: conv_transpose, C_in -> C_out
        op_ = [int(g.rng.integers(0, max(ss, dd))) for ss, dd in zip(s, dl)]
        out = [(n - 1) * ss - 2 * pp + dd * (kk - 1) + oo + 1
               for n, ss, pp, dd, kk, oo in zip(spatial, s, p, dl, k, op_)]
        if min(out) < 1:
            return None
        w = g.leaf((c, c_out // groups) + tuple(k), dtype=a.dtype, rg=g.chance(0.8))
        b = f", {g.leaf((c_out,), dtype=a.dtype).name}" if g.chance(0.5) else ", None"
        return (f"F.conv_transpose{sp}d({a.name}, {w.name}{b}, {fmt(s)}, {fmt(p)}, "
                f"{fmt(op_)}, {groups}, {fmt(dl)})", a.shape[:-sp - 1] + (c_out,) + tuple(out),
                False)
    w = g.leaf((c_out, c // groups) + tuple(k), dtype=a.dtype, rg=g.chance(0.8))
    b = f", {g.leaf((c_out,), dtype=a.dtype).name}" if g.chance(0.5) else ", None"
    pad = "'same'" if same else fmt(p)
    name = "conv2d" if two else "conv1d"
    return (f"F.{name}({a.name}, {w.name}{b}, {fmt(s)}, {pad}, {fmt(dl)}, {groups})",
            a.shape[:-sp - 1] + (c_out,) + tuple(out), False)


def op_pool(g, a):
    if len(a.shape) < 2:
        return None
    two = len(a.shape) == 4 or len(a.shape) == 3 and g.chance(0.6)
    sp = 2 if two else 1
    spatial = a.shape[-sp:]
    kind = g.pick(["max", "avg", "adaptive_avg", "adaptive_max", "lp"])
    name = f"F.{kind}_pool{sp}d"
    if kind.startswith("adaptive"):
        if kind == "adaptive_max" and a.tied:
            return None
        size = [int(g.rng.integers(1, n + 2)) for n in spatial]
        arg = str(size[0]) if not two else str(tuple(size))
        return f"{name}({a.name}, {arg})", a.shape[:-sp] + tuple(size), False
    if kind == "max" and a.tied:
        return None
    k = [int(g.rng.integers(1, 4)) for _ in spatial]
    s = [int(g.rng.integers(1, 3)) for _ in spatial]
    p = [int(g.rng.integers(0, kk // 2 + 1)) for kk in k]
    dl = [int(g.rng.integers(1, 3)) if kind == "max" else 1 for _ in spatial]
    ceil = g.chance(0.3)
    if kind == "lp":
        p, ceil = [0] * sp, False
        if a.tied:                 # |x|^p at x = 0: the gradient of the root at 0
            return None
    out = [_window(n, *args, ceil=ceil) for n, *args in zip(spatial, k, s, p, dl)]
    if 0 in out:
        return None
    if any(not any(0 <= t * ss - pp + j * dd < n for j in range(kk))
           for n, o, kk, ss, pp, dd in zip(spatial, out, k, s, p, dl) for t in range(o)):
        # a window of padding only: tinyffn refuses it; torch 2.13 gives -inf and its
        # backward corrupts memory (max_pool2d of (3, 1, 4), kernel (2, 1), padding (1, 0),
        # dilation (2, 1): "double free or corruption", seed 6030370)
        return None
    fmt = (lambda v: str(v[0])) if not two else (lambda v: str(tuple(v)))
    if kind == "lp":
        return f"{name}({a.name}, 2, {fmt(k)}, {fmt(s)})", a.shape[:-sp] + tuple(out), False
    extra = f", dilation={fmt(dl)}" if kind == "max" else \
        f", count_include_pad={g.chance(0.5)}"
    return (f"{name}({a.name}, {fmt(k)}, {fmt(s)}, {fmt(p)}{extra}, ceil_mode={ceil})",
            a.shape[:-sp] + tuple(out), False)


def op_loss(g, a):
    if not a.shape:
        return None
    red = g.pick(["mean", "sum", "none"])
    rs = f", reduction='{red}'"
    form = g.pick(["cross_entropy", "cross_entropy", "nll", "mse", "l1", "smooth_l1", "huber",
                   "kl_div", "bce_logits", "bce", "gaussian_nll", "poisson_nll",
                   "soft_margin", "margin_ranking", "multilabel_soft_margin", "triplet",
                   "cosine_embedding", "hinge_embedding", "multi_margin"])
    if form in ("cross_entropy", "nll"):
        # (N, C) only: with more axes tinyffn takes classes last and refuses the shapes
        # where PyTorch's axis 1 could be meant (docs/api.md, cross_entropy)
        if len(a.shape) != 2:
            return None
        n, c = a.shape[0], a.shape[1]
        rest = a.shape[2:]
        t = g.rng.integers(0, c, size=(n,) + rest)
        args = ""
        if g.chance(0.4):
            args += f", weight=M.tensor({lit(np.round(g.rng.uniform(0.2, 2, c), 3))}, " \
                    f"dtype=M.{a.dtype})"
        if g.chance(0.3):
            ignore = int(g.rng.integers(0, c))
            if red == "mean" and not (t != ignore).any():
                return None
            args += f", ignore_index={ignore}"
        shape = (n,) + rest if red == "none" else ()
        if form == "nll":
            return f"F.nll_loss(F.log_softmax({a.name}, 1), M.tensor({lit(t)}){rs}{args})", \
                shape, False
        if g.chance(0.4):
            args += ", label_smoothing=0.1"
        if g.chance(0.25) and "ignore" not in args:     # class probabilities as the target
            c_ = g.leaf(a.shape, rg=False, dtype=a.dtype)
            return f"F.cross_entropy({a.name}, {c_.name}.softmax(1){rs}{args})", shape, False
        return f"F.cross_entropy({a.name}, M.tensor({lit(t)}){rs}{args})", shape, False
    shape = a.shape if red == "none" else ()
    if form == "multi_margin":
        if len(a.shape) != 2:
            return None
        t = g.rng.integers(0, a.shape[1], size=a.shape[:1])
        p = g.pick([1, 2])
        return (f"F.multi_margin_loss({a.name}, M.tensor({lit(t)}), p={p}, margin=0.8{rs})",
                a.shape[:1] if red == "none" else (), False)
    if form == "hinge_embedding":
        t = g.rng.choice([-1.0, 1.0], size=a.shape)
        return (f"F.hinge_embedding_loss({a.name}, M.tensor({lit(t)}, dtype=M.{a.dtype}), "
                f"margin=0.6{rs})", shape, False)
    if form in ("triplet", "cosine_embedding"):
        if len(a.shape) != 2 or a.tied:
            return None
        b = g.leaf(a.shape, dtype=a.dtype, rg=g.chance(0.7))
        if form == "cosine_embedding":
            t = g.rng.choice([-1.0, 1.0], size=a.shape[:1])
            return (f"F.cosine_embedding_loss({a.name}, {b.name}, M.tensor({lit(t)}, "
                    f"dtype=M.{a.dtype}), margin=0.2{rs})", a.shape[:1] if red == "none" else (),
                    False)
        c_ = g.leaf(a.shape, dtype=a.dtype, rg=g.chance(0.7))
        return (f"F.triplet_margin_loss({a.name}, {b.name}, {c_.name}, margin=0.5, "
                f"p={g.pick([1, 2, 3])}, swap={g.chance(0.3)}{rs})",
                a.shape[:1] if red == "none" else (), False)
    if form == "multilabel_soft_margin":
        if len(a.shape) != 2:
            return None
        t = g.rng.integers(0, 2, size=a.shape)
        return (f"F.multilabel_soft_margin_loss({a.name}, M.tensor({lit(t)}, "
                f"dtype=M.{a.dtype}){rs})", a.shape[:1] if red == "none" else (), False)
    b = g.operand(a.shape, same_dtype_as=a.dtype, exact=True)
    if b is a and form in ("l1", "smooth_l1", "huber"):          # at the kink
        return None
    if form == "mse":
        return f"F.mse_loss({a.name}, {b.name}{rs})", shape, False
    if form == "l1":
        return f"F.l1_loss({a.name}, {b.name}{rs})", shape, False
    if form == "smooth_l1":
        return f"F.smooth_l1_loss({a.name}, {b.name}{rs}, beta=0.5)", shape, False
    if form == "huber":
        return f"F.huber_loss({a.name}, {b.name}{rs}, delta=0.7)", shape, False
    if form == "kl_div":
        d = g.dim(a.shape)
        red = g.pick(["batchmean", "sum", "none"])
        log_t = g.chance(0.4)
        t = f"F.log_softmax({b.name}, {d})" if log_t else f"{b.name}.softmax({d})"
        return (f"F.kl_div(F.log_softmax({a.name}, {d}), {t}, reduction='{red}', "
                f"log_target={log_t})", a.shape if red == "none" else (), False)
    if form == "bce_logits":
        args = ""
        if g.chance(0.3):
            args += f", pos_weight=({g.leaf(a.shape[-1:], rg=False, dtype=a.dtype).name}" \
                    ".abs() + 0.5)"
        if g.chance(0.3):
            args += f", weight={g.leaf(a.shape, rg=False, dtype=a.dtype).name}.abs()"
        return f"F.binary_cross_entropy_with_logits({a.name}, {b.name}.sigmoid(){rs}{args})", \
            shape, False
    if form == "bce":
        return (f"F.binary_cross_entropy({a.name}.sigmoid() * 0.9 + 0.05, {b.name}.sigmoid()"
                f"{rs})", shape, False)
    if form == "gaussian_nll":
        v = g.operand(a.shape, same_dtype_as=a.dtype, exact=True)
        return f"F.gaussian_nll_loss({a.name}, {b.name}, {v.name}.abs() + 0.5{rs})", shape, \
            False
    if form == "poisson_nll":
        return f"F.poisson_nll_loss({a.name}, {b.name}.abs(){rs})", shape, False
    if form == "soft_margin":
        t = g.rng.choice([-1.0, 1.0], size=a.shape)
        return f"F.soft_margin_loss({a.name}, M.tensor({lit(t)}, dtype=M.{a.dtype}){rs})", \
            shape, False
    if b is a:
        return None
    t = g.rng.choice([-1.0, 1.0], size=a.shape)
    return (f"F.margin_ranking_loss({a.name}, {b.name}, M.tensor({lit(t)}, dtype=M.{a.dtype}),"
            f" margin=0.3{rs})", shape, False)


def op_attention(g, a):
    if len(a.shape) < 2:
        return None
    *batch, L, E = a.shape
    batch = tuple(batch)
    S, Ev = int(g.rng.integers(1, 5)), int(g.rng.integers(1, 4))
    args = ""
    kb = batch
    if len(batch) >= 1 and batch[-1] % 2 == 0 and g.chance(0.3):     # fewer key/value heads
        kb = batch[:-1] + (batch[-1] // 2,)
        args = ", enable_gqa=True"
    k = g.operand(kb + (S, E), same_dtype_as=a.dtype, exact=True)
    v = g.operand(kb + (S, Ev), same_dtype_as=a.dtype, exact=True)
    form = int(g.rng.integers(4))
    if form == 1:
        args += ", is_causal=True"
    elif form == 2:
        mask = g.rng.random((L, S)) < 0.7
        mask[:, 0] = True                      # no query without a key
        args += f", attn_mask=M.tensor({lit(mask)})"
    elif form == 3:
        m = g.operand((L, S), same_dtype_as=a.dtype, exact=True)
        args += f", attn_mask={m.name}"
    if g.chance(0.3):
        args += ", scale=0.7"
    # rows that see one key, the same one, are that key's value row exactly: with one key,
    # a matrix of rank 1, whose repeated singular values 0 make svdvals' second derivative
    # rounding in float32 (-16 here, 3.0 in torch, seed 6111660; equal in float64)
    single = [int(np.argmax(r)) for r in mask if r.sum() == 1] if form == 2 else []
    tied = S == 1 or len(single) > len(set(single))
    return f"F.scaled_dot_product_attention({a.name}, {k.name}, {v.name}{args})", \
        batch + (L, Ev), tied


EINSUM = {1: ["i->", "i,i->", "i,j->ij"], 2: ["ij->ji", "ij->j", "ij,jk->ik", "ij,ij->i",
                                              "ij,j->i", "ii->i", "ii->"],
          3: ["bij,bjk->bik", "bij->bji", "...j,...j->...", "bii->bi", "ijk->k"],
          4: ["bhij,bhjd->bhid", "abcd->dcba", "...ij->...ji"]}


def op_einsum(g, a):
    if not a.shape:
        return None
    eq = g.pick(EINSUM[len(a.shape)])
    lhs, out = eq.split("->")
    terms = lhs.split(",")
    if "ii" in terms[0] and a.shape[-1] != a.shape[-2]:
        return None
    sizes = dict(zip(terms[0].replace("...", ""), a.shape[-len(terms[0].replace("...", "")):]))
    ellipsis = a.shape[:len(a.shape) - len(terms[0].replace("...", ""))]
    ops = [a.name]
    for t in terms[1:]:
        letters = t.replace("...", "")
        shape = tuple(sizes.get(c) or sizes.setdefault(c, int(g.rng.integers(1, 4)))
                      for c in letters)
        shape = (ellipsis if t.startswith("...") else ()) + shape
        ops.append(g.operand(shape, same_dtype_as=a.dtype, exact=True).name)
    letters = out.replace("...", "")
    shape = (ellipsis if out.startswith("...") else ()) + tuple(sizes[c] for c in letters)
    return f"M.einsum('{eq}', {', '.join(ops)})", shape, False


def op_scatter(g, a):
    if not a.shape:
        return None
    d = g.dim(a.shape)
    n = a.shape[d]
    form = int(g.rng.integers(4))
    if form == 0:
        idx = g.rng.integers(0, n, size=int(g.rng.integers(1, 5)))
        s = list(a.shape)
        s[d] = len(idx)
        src = g.operand(tuple(s), same_dtype_as=a.dtype, exact=True)
        return f"{a.name}.index_add({d}, M.tensor({lit(idx)}), {src.name}, alpha=0.5)", \
            a.shape, False
    s = [int(g.rng.integers(1, m + 1)) for m in a.shape]
    s[d] = int(g.rng.integers(1, n + 1))
    if form == 1:
        idx = g.rng.integers(0, n, size=s)
        src = g.operand(tuple(s), same_dtype_as=a.dtype, exact=True)
        return f"M.scatter_add({a.name}, {d}, M.tensor({lit(idx)}), {src.name})", a.shape, False
    # scatter: distinct places along d in each line, as torch keeps one value of several
    full = list(s)
    full[d] = n
    idx = np.take(np.argsort(g.rng.random(full), axis=d), range(s[d]), axis=d)
    if form == 2:
        src = g.operand(tuple(s), same_dtype_as=a.dtype, exact=True)
        return f"{a.name}.scatter({d}, M.tensor({lit(idx)}), {src.name})", a.shape, False
    return f"{a.name}.scatter({d}, M.tensor({lit(idx)}), 0.25)", a.shape, True


def op_pad(g, a):
    if not a.shape:
        return None
    mode = g.pick(["constant", "constant", "reflect", "replicate", "circular"])
    k = int(g.rng.integers(1, min(3, len(a.shape)) + 1)) if mode == "constant" else \
        (2 if len(a.shape) == 4 or len(a.shape) == 3 and g.chance(0.5) else 1)
    if mode != "constant" and len(a.shape) not in (k + 1, k + 2):
        return None
    pads, shape = [], list(a.shape)
    for i in range(k):
        n = a.shape[-1 - i]
        top = n - 1 if mode == "reflect" else n if mode == "circular" else 2
        lo, hi = (int(g.rng.integers(0, top + 1)) for _ in range(2))
        if mode == "constant" and g.chance(0.2):
            lo = -int(g.rng.integers(0, n))             # a crop
        pads += [lo, hi]
        shape[-1 - i] = n + lo + hi
    if min(shape) <= 0:
        return None
    value = ", value=0.5" if mode == "constant" and g.chance(0.5) else ""
    return f"F.pad({a.name}, {tuple(pads)}, mode='{mode}'{value})", tuple(shape), True


def op_interpolate(g, a):
    if len(a.shape) not in (3, 4):
        return None
    sp = len(a.shape) - 2
    mode = g.pick(["nearest", "nearest-exact", "linear" if sp == 1 else "bilinear"])
    corners = ", align_corners=True" if mode in ("linear", "bilinear") and g.chance(0.4) else ""
    if g.chance(0.5):
        size = [int(g.rng.integers(1, 6)) for _ in range(sp)]
        arg = f"size={size[0] if sp == 1 else tuple(size)}"
    else:
        f = g.pick([0.5, 1.5, 2.0, 2.5])
        size = [math.floor(n * f) for n in a.shape[2:]]
        if 0 in size:
            return None
        arg = f"scale_factor={f}"
    return f"F.interpolate({a.name}, {arg}, mode='{mode}'{corners})", a.shape[:2] + tuple(size), \
        True


def op_unfold(g, a):
    if len(a.shape) not in (3, 4) or a.shape[-1] < 2 or a.shape[-2] < 2:
        return None
    *lead, H, W = a.shape
    k = (int(g.rng.integers(1, H + 1)), int(g.rng.integers(1, W + 1)))
    s = (int(g.rng.integers(1, 3)), int(g.rng.integers(1, 3)))
    L = ((H - k[0]) // s[0] + 1) * ((W - k[1]) // s[1] + 1)
    cols = f"F.unfold({a.name}, {k}, stride={s})"
    lead = tuple(lead)
    cshape = lead[:-1] + (lead[-1] * k[0] * k[1], L)
    if g.chance(0.5):
        return cols, cshape, True
    return f"F.fold({cols}, ({H}, {W}), {k}, stride={s})", a.shape, False


def op_tensor_unfold(g, a):
    if not a.shape:
        return None
    d = g.dim(a.shape)
    n = a.shape[d]
    size, step = int(g.rng.integers(1, n + 1)), int(g.rng.integers(1, 3))
    s = list(a.shape)
    s[d] = (n - size) // step + 1
    return f"{a.name}.unfold({d}, {size}, {step})", tuple(s) + (size,), True


def special(expr, domain=None):
    def op(g, a):
        x = {"positive": f"({a.name}.abs() + 0.5)", "unit": f"({a.name}.tanh() * 0.9)",
             "prob": f"({a.name}.sigmoid() * 0.9 + 0.05)", "above1": f"({a.name}.abs() + 1.6)",
             }.get(domain, a.name)
        return expr.format(x=x), a.shape, False
    op.__name__ = expr
    return op


SPECIAL = [special(e) for e in [
    "M.erfc({x})", "M.special.erfcx({x})", "M.i0({x})", "M.special.i0e({x})",
    "M.special.i1({x})", "M.special.i1e({x})", "M.sinc({x})", "M.special.ndtr({x})",
    "M.special.log_ndtr({x})", "M.special.expit({x})", "M.logaddexp2({x}, {x}.cos())",
    "M.deg2rad({x})", "M.rad2deg({x})", "M.fmod({x}, 0.7)", "M.frac({x} + 0.37)",
    "M.copysign({x}, {x}.cos())", "M.float_power({x}.abs() + 0.5, 1.5)",
    "M.special.xlog1py({x}, {x}.abs())", "M.nan_to_num({x})", "{x}.arctan2({x}.exp())",
]] + [special(e, "unit") for e in ["M.erfinv({x})"]] + [
    special(e, "prob") for e in ["M.special.ndtri({x})", "M.special.logit({x})"]] + [
    special(e, "positive") for e in [
        "M.polygamma(1, {x})", "M.polygamma(2, {x})", "M.special.entr({x})",
        "M.special.gammaln({x})", "M.special.psi({x})"]] + [
    special(e, "above1") for e in ["M.mvlgamma({x}, 2)", "M.special.multigammaln({x}, 3)"]]


def op_special(g, a):
    return g.pick(SPECIAL)(g, a)


def op_clamp_tensor(g, a):
    lo = g.operand(a.shape, same_dtype_as=a.dtype, into=True)
    if lo is a:
        return None
    if g.chance(0.5):
        return f"{a.name}.clamp(min={lo.name})", a.shape, True
    return f"M.clamp({a.name}, {lo.name} - 1.0, {lo.name} + 0.5)", a.shape, True


def op_lerp_tensor(g, a):
    b = g.operand(a.shape, same_dtype_as=a.dtype, into=True)
    w = g.operand(a.shape, same_dtype_as=a.dtype, into=True)
    return f"M.lerp({a.name}, {b.name}, {w.name}.sigmoid())", a.shape, False


def op_pointwise_pair(g, a):
    d = g.dim(a.shape) if a.shape else None
    form = int(g.rng.integers(10))
    if form == 6 and len(a.shape) == 2:
        b = g.operand((int(g.rng.integers(1, 3)), int(g.rng.integers(1, 3))),
                      same_dtype_as=a.dtype, exact=True)
        return f"M.block_diag({a.name}, {b.name})", \
            (a.shape[0] + b.shape[0], a.shape[1] + b.shape[1]), True
    if form == 7 and a.shape and not a.tied:
        b = g.operand(a.shape, same_dtype_as=a.dtype, into=True)
        if b is a or b.tied:
            return None
        keep = g.chance(0.3)
        return f"F.pairwise_distance({a.name}, {b.name}, p={g.pick([1.0, 2.0, 3.0])}, " \
               f"keepdim={keep})", a.shape[:-1] + ((1,) if keep else ()), False
    if form == 8 and a.shape:
        k = int(g.rng.integers(-1, 2))
        n = a.shape[-1] + abs(k)
        return f"M.diag_embed({a.name}, {k})", a.shape[:-1] + (n, n), True
    if form == 9 and a.shape and a.shape[-1] in (4, 6, 8) and len(a.shape) <= 3:
        n = a.shape[-1]
        return f"{a.name}.unflatten(-1, (2, {n // 2}))", a.shape[:-1] + (2, n // 2), False
    if form == 0 and d is not None and a.shape[d] == 3:
        b = g.operand(a.shape, same_dtype_as=a.dtype, exact=True)
        if b is a or a.tied or b.tied:   # x × x is 0 here, rounding in torch (seed 6025386)
            return None
        return f"M.linalg.cross({a.name}, {b.name}, dim={d})", a.shape, False
    if form == 1 and len(a.shape) == 2:
        b = g.operand((int(g.rng.integers(1, 4)), a.shape[1]), same_dtype_as=a.dtype,
                      exact=True)
        if a.tied or b.tied or b is a:
            return None
        p = g.pick(["2.0", "1.0", "3.0"])
        return f"M.cdist({a.name}, {b.name}, p={p}, compute_mode=" \
               f"'donot_use_mm_for_euclid_dist')", (a.shape[0], b.shape[0]), False
    if form == 2 and len(a.shape) == 1:
        b = g.operand((int(g.rng.integers(1, 4)),), same_dtype_as=a.dtype, exact=True)
        return f"M.outer({a.name}, {b.name})", a.shape + b.shape, False
    if form == 3 and len(a.shape) == 2:
        b = g.operand((int(g.rng.integers(1, 3)), int(g.rng.integers(1, 3))),
                      same_dtype_as=a.dtype, exact=True)
        return f"M.kron({a.name}, {b.name})", \
            (a.shape[0] * b.shape[0], a.shape[1] * b.shape[1]), False
    if form == 4 and len(a.shape) >= 1:
        b = g.operand(a.shape[-1:] + (int(g.rng.integers(1, 4)),), same_dtype_as=a.dtype,
                      exact=True)
        return f"M.tensordot({a.name}, {b.name}, dims=1)", a.shape[:-1] + b.shape[1:], False
    if form == 5 and a.shape and math.prod(a.shape[:-1]) >= 2 and not a.tied:
        return f"F.pdist({a.name}.reshape(-1, {a.shape[-1]}))", \
            (math.prod(a.shape[:-1]) * (math.prod(a.shape[:-1]) - 1) // 2,), False
    return None


def op_select_more(g, a):
    if not a.shape:
        return None
    d = g.dim(a.shape)
    n = a.shape[d]
    form = int(g.rng.integers(6))
    if form == 0:
        if a.tied:
            return None
        k = int(g.rng.integers(1, n + 1))
        keep = g.chance(0.5)
        return f"{a.name}.kthvalue({k}, dim={d}, keepdim={keep})[0]", \
            reduced(a.shape, d, keep), False
    if form == 1:
        if a.tied:
            return None
        return f"{a.name}.{g.pick(['cummax', 'cummin'])}({d})[0]", a.shape, True
    if form == 2:
        if a.tied:
            return None
        q = g.pick(["0.3", "0.5", "0.9"])
        interp = g.pick(["linear", "lower", "higher", "midpoint", "nearest"])
        return f"M.quantile({a.name}, {q}, dim={d}, interpolation='{interp}')", \
            reduced(a.shape, d, False), False
    if form == 3:
        r = int(g.rng.integers(1, 3))
        s = list(a.shape)
        s[d] *= r
        return f"{a.name}.repeat_interleave({r}, dim={d})", tuple(s), True
    if form == 4 and len(a.shape) >= 2:
        d2 = (d + 1) % len(a.shape)
        k = int(g.rng.integers(-1, 3))
        shape = np.rot90(np.empty(a.shape), k, (d % len(a.shape), d2)).shape
        return f"M.rot90({a.name}, {k}, ({d}, {d2}))", shape, False
    if form == 5 and n >= 2:
        s = list(a.shape)
        s[d] -= 1
        return f"M.diff({a.name}, dim={d})", tuple(s), False
    return None


def op_stats(g, a):
    if not a.shape:
        return None
    form = int(g.rng.integers(5))
    d = g.dim(a.shape)
    if form == 0 and a.shape[d] > 1:
        i = int(g.rng.integers(2))
        return f"M.{g.pick(['std_mean', 'var_mean'])}({a.name}, dim={d})[{i}]", \
            reduced(a.shape, d, False), False
    rows = (a.shape[0], a.shape[0]) if len(a.shape) == 2 and a.shape[0] > 1 else ()  # 1 row: 0-d
    if form == 1 and len(a.shape) == 2 and a.shape[1] > 1:
        return f"M.cov({a.name})", rows, False
    if form == 2 and len(a.shape) == 2 and a.shape[1] == 2 and g.narrow():
        # two observations: every coefficient is ±1 whatever the values, so its derivatives
        # are 0 up to rounding, which float32 makes 1e-3 in a second derivative (9e-4 here,
        # -6e-5 in torch, seed 7111127; 6e-13 apart in float64)
        return None
    if form == 2 and len(a.shape) == 2 and a.shape[1] > 1 and not a.tied:
        return f"M.corrcoef({a.name} + M.arange({a.shape[1]}, dtype=M.{a.dtype}))", rows, False
    if form == 3:
        return f"{a.name}.nanmean(dim={d})", reduced(a.shape, d, False), False
    if form == 4 and len(a.shape) == 1:
        k = int(g.rng.integers(-1, 2))
        n = a.shape[0] + abs(k)
        return f"M.diag({a.name}, {k})", (n, n), True
    return None


def op_shuffles(g, a):
    """pixel_shuffle, pixel_unshuffle, channel_shuffle, bilinear, masked_select, dot,
    aminmax, cholesky_inverse, max_unpool of max_pool's indices."""
    form = int(g.rng.integers(8))
    if form == 0 and len(a.shape) in (3, 4) and a.shape[-3] % 4 == 0:
        *lead, c, h, w = a.shape
        return f"F.pixel_shuffle({a.name}, 2)", tuple(lead) + (c // 4, 2 * h, 2 * w), False
    if form == 1 and len(a.shape) in (3, 4) and a.shape[-1] % 2 == 0 and a.shape[-2] % 2 == 0:
        *lead, c, h, w = a.shape
        return f"F.pixel_unshuffle({a.name}, 2)", tuple(lead) + (4 * c, h // 2, w // 2), False
    if form == 2 and len(a.shape) >= 3 and a.shape[1] % 2 == 0:
        return f"F.channel_shuffle({a.name}, 2)", a.shape, False
    if form == 3 and a.shape:
        n = a.shape[-1]
        m = int(g.rng.integers(1, 4))
        b = g.leaf(a.shape[:-1] + (int(g.rng.integers(1, 4)),), dtype=a.dtype, rg=g.chance(0.7))
        w = g.leaf((m, n, b.shape[-1]), dtype=a.dtype, rg=g.chance(0.8))
        bias = f", {g.leaf((m,), dtype=a.dtype).name}" if g.chance(0.5) else ""
        return f"F.bilinear({a.name}, {b.name}, {w.name}{bias})", a.shape[:-1] + (m,), False
    if form == 4 and a.shape:
        mask = g.values(a.shape) > -0.5
        if not mask.any():
            return None
        return f"{a.name}.masked_select(M.tensor({lit(mask)}))", (int(mask.sum()),), False
    if form == 5 and len(a.shape) == 1:
        b = g.operand(a.shape, same_dtype_as=a.dtype, exact=True)
        return f"M.dot({a.name}, {b.name})", (), False
    if form == 6 and a.shape and not a.tied:
        d = g.dim(a.shape)
        return f"M.aminmax({a.name}, dim={d})[{int(g.rng.integers(2))}]", \
            reduced(a.shape, d, False), False
    if form == 7 and len(a.shape) >= 2 and a.shape[-1] <= 4:
        n = a.shape[-1]
        L = f"M.linalg.cholesky({a.name}.tanh().mT @ {a.name}.tanh() + {n} * M.eye({n}, " \
            f"dtype=M.{a.dtype}))"
        return f"M.cholesky_inverse({L})", a.shape[:-2] + (n, n), False
    return None


def op_layers(g, a):
    if len(a.shape) < 2:
        return None
    c = a.shape[1]
    form = int(g.rng.integers(6))
    if form == 0 and len(a.shape) >= 2:           # embedding: a as the table
        if len(a.shape) != 2:
            return None
        idx = g.rng.integers(0, a.shape[0], size=(int(g.rng.integers(1, 4)),
                                                  int(g.rng.integers(1, 4))))
        pad = f", padding_idx={int(g.rng.integers(0, a.shape[0]))}" if g.chance(0.3) else ""
        return f"F.embedding(M.tensor({lit(idx)}), {a.name}{pad})", idx.shape + a.shape[1:], True
    if form == 1:
        w = g.leaf((g.pick([1, c]),), dtype=a.dtype)
        return f"F.prelu({a.name}, {w.name})", a.shape, False
    if a.tied and g.narrow():
        return None
    if form == 2 and len(a.shape) >= 3:
        groups = g.pick([q for q in range(1, c + 1) if c % q == 0])
        if math.prod(a.shape[2:]) * (c // groups) < 2:
            return None
        w = f", {g.leaf((c,), dtype=a.dtype).name}" if g.chance(0.5) else ""
        return f"F.group_norm({a.name}, {groups}{w})", a.shape, True
    if form == 3 and math.prod(a.shape) // c >= 2:
        # a contiguous weight: torch 2.13's batch_norm backward reads a strided one
        # (w = base[::2]) as if it were contiguous, and x's gradient is wrong (seed 6021270;
        # docs/api.md, batch_norm)
        w = g.leaf((c,), dtype=a.dtype, plain_layout=True).name if g.chance(0.5) else "None"
        b = g.leaf((c,), dtype=a.dtype).name if g.chance(0.5) else "None"
        if b != "None" and w == "None" and g.order == 2:
            # torch 2.13's double backward of batch_norm with a bias and no weight raises
            # ("Expected a proper Tensor but got None ... 'other'"), as layer_norm's is wrong
            w = g.leaf((c,), dtype=a.dtype, plain_layout=True).name
        # tied: over two entries the normalized values are ±1 exactly (seed 6042513);
        # contiguous(): torch 2.13's backward is wrong for a permuted input too (seed 6067108)
        return f"F.batch_norm({a.name}.contiguous(), None, None, {w}, {b}, training=True)", \
            a.shape, True
    if form == 4 and len(a.shape) >= 3 and math.prod(a.shape[2:]) >= 2:
        return f"F.instance_norm({a.name})", a.shape, True
    if form == 5 and len(a.shape) >= 3:
        return f"F.local_response_norm({a.name}, 2)", a.shape, False
    return None


EXTRA = ([op_linalg] * 8 + [op_conv] * 3 + [op_pool] * 3 + [op_loss] * 5 + [op_attention] * 2 +
         [op_einsum] * 2 + [op_scatter] * 2 + [op_pad] * 2 + [op_interpolate, op_unfold,
                                                              op_tensor_unfold] +
         [op_special] * 4 + [op_clamp_tensor, op_lerp_tensor] + [op_pointwise_pair] * 3 +
         [op_select_more] * 2 + [op_stats] * 2 + [op_layers] * 3 + [op_shuffles] * 3)



# Families of the names added after EXTRA (torch_operators.py, torch_shapes.py,
# torch_products.py), drawn from seed LATEST_FROM on, next to EXTRA's, so every older seed
# writes the program it always wrote.
LATEST_FROM = 7_000_000

LATEST_UNARY = [special(e) for e in ["M.asinh({x})", "{x}.arcsinh()", "M.absolute({x})"]] + [
    special(e, "unit") for e in ["M.asin({x})", "{x}.arccos()", "M.atanh({x})", "M.tan({x})",
                                 "{x}.acos()", "M.arcsin({x})"]] + [
    special(e, "above1") for e in ["M.acosh({x})", "{x}.arccosh()"]]


def op_latest_unary(g, a):
    return g.pick(LATEST_UNARY)(g, a)


def op_latest_pair(g, a):
    """Binary names: fmax/fmin (ties are decided as PyTorch's: tied inputs are fine), the
    operators as functions, div's rounding modes (gradient 0), dist."""
    b = g.operand(a.shape, same_dtype_as=a.dtype, into=True)
    form = int(g.rng.integers(6))
    if form == 0:
        return f"M.{g.pick(['fmax', 'fmin'])}({a.name}, {b.name})", a.shape, True
    if form == 1:
        alpha = g.pick(["1", "-0.5", "2.0"])
        return f"M.{g.pick(['add', 'sub', 'subtract'])}({a.name}, {b.name}, alpha={alpha})", \
            a.shape, False
    if form == 2:
        return f"M.{g.pick(['mul', 'multiply'])}({a.name}, {b.name})", a.shape, False
    if form == 3:
        return f"M.divide({a.name}, {b.name}.exp() + 0.5)", a.shape, False
    if form == 4:
        mode = g.pick(["trunc", "floor"])
        return f"M.div({a.name} * 3, 0.7, rounding_mode='{mode}')", a.shape, True
    if form == 5 and not a.tied and b is not a and not b.tied:
        return f"M.dist({a.name}, {b.name}, {g.pick(['2', '1', '3.0'])})", (), False
    return None


def op_latest_shapes(g, a):
    """Stacking, splitting and selecting names, and the vector products."""
    if not a.shape:
        k = int(g.rng.integers(1, 4))
        return f"M.atleast_{k}d({a.name})", (1,) * k, False
    d = g.dim(a.shape)
    n = a.shape[d]
    form = int(g.rng.integers(10))
    if form == 0:
        k = int(g.rng.integers(1, n + 2))
        lengths = [n // k + (i < n % k) for i in range(k)]
        s = list(a.shape)
        s[d] = lengths[0]
        return f"M.tensor_split({a.name}, {k}, dim={d})[0]", tuple(s), False
    if form == 1:
        i = int(g.rng.integers(-n, n))
        dd = d % len(a.shape)
        return f"{a.name}.select({d}, {i})", a.shape[:dd] + a.shape[dd + 1:], False
    if form == 2:
        idx = g.rng.integers(0, math.prod(a.shape), size=int(g.rng.integers(1, 5)))
        return f"M.take({a.name}, M.tensor({lit(idx)}))", (len(idx),), \
            len(set(idx.tolist())) < len(idx)
    if form == 3 and len(a.shape) == 2:
        b = g.operand(a.shape, same_dtype_as=a.dtype, exact=True)
        fn = g.pick(["vstack", "hstack", "dstack", "column_stack"])
        shape = {"vstack": (2 * a.shape[0], a.shape[1]), "hstack": (a.shape[0], 2 * a.shape[1]),
                 "dstack": a.shape + (2,), "column_stack": (a.shape[0], 2 * a.shape[1])}[fn]
        return f"M.{fn}([{a.name}, {b.name}])", shape, b is a or b.tied or a.tied
    if form == 4 and len(a.shape) == 2:
        v = g.operand((a.shape[1],), same_dtype_as=a.dtype, exact=True)
        if g.chance(0.5):
            return f"M.mv({a.name}, {v.name})", (a.shape[0],), False
        c = g.operand((a.shape[0],), same_dtype_as=a.dtype, exact=True)
        return f"M.addmv({c.name}, {a.name}, {v.name}, beta=0.5, alpha=-2)", (a.shape[0],), \
            False
    if form == 5 and len(a.shape) == 1:
        b = g.operand((int(g.rng.integers(1, 4)),), same_dtype_as=a.dtype, exact=True)
        c = g.operand((1, b.shape[0]), same_dtype_as=a.dtype, exact=True)
        return f"M.addr({c.name}, {a.name}, {b.name}, alpha=1.5)", a.shape + b.shape, False
    if form == 6:
        b = g.operand((int(g.rng.integers(1, 3)), a.shape[-1]), same_dtype_as=a.dtype,
                      exact=True)
        return f"M.inner({a.name}, {b.name})", a.shape[:-1] + b.shape[:-1], False
    if form == 7 and len(a.shape) == 1:
        b = g.operand(a.shape, same_dtype_as=a.dtype, exact=True)
        return f"M.vdot({a.name}, {b.name})", (), False
    if form == 8 and len(a.shape) >= 2:
        size = tuple(1 if g.chance(0.5) else m for m in a.shape[1:])
        return f"{a.name}.sum_to_size{size}", size, False
    if form == 9 and len(a.shape) >= 2:
        return f"{a.name}.{g.pick(['mH', 'adjoint()'])}", \
            a.shape[:-2] + (a.shape[-1], a.shape[-2]), False
    return None


LATEST = [op_latest_unary] * 3 + [op_latest_pair] * 3 + [op_latest_shapes] * 4

# ----------------------------------------------------------------------------- shrinking
def ancestors(program, names):
    by = program.by_name()
    keep, todo = set(), list(names)
    while todo:
        n = todo.pop()
        if n not in keep:
            keep.add(n)
            todo.extend(by[n].uses)
    return keep


def restricted(program, outs, gys, retained=None):
    keep = ancestors(program, outs + ([retained] if retained else []))
    stmts = [s for s in program.stmts if s.name in keep]
    p = Program(stmts, outs, gys, retained, program.order)
    if program.order == 2:
        old = dict(zip(program.leaves(), program.weights))
        p.weights = [old[x] for x in p.leaves()]
    return p


def cut(program, name, ns):
    """The program with tensor ``name`` made a leaf holding torch's values of it."""
    stmts = []
    for s in program.stmts:
        if s.name == name:
            v = torch_numpy(ns[name])
            grad = ", requires_grad=True" if s.rg else ""
            code = f"{name} = M.tensor({lit(v)}, dtype=M.{s.dtype}{grad})"
            s = dataclasses.replace(s, code=code, leaf=True, uses=())
        stmts.append(s)
    retained = None if program.retained == name else program.retained   # a leaf now
    p = Program(stmts, program.outs, program.gys, retained, program.order)
    if program.order == 2:
        old = dict(zip(program.leaves(), program.weights))
        rng = np.random.default_rng(0)
        by = p.by_name()
        p.weights = [old.get(x, np.round(rng.uniform(-2, 2, by[x].shape), 4))
                     for x in p.leaves()]
    p = restricted(p, p.outs, p.gys, p.retained)
    return p


def shrink(program, torch, budget=60):
    """A smaller program that still fails in the same way (first words of the message)."""
    first = check(program, torch)
    kind = first[0] if first else None

    def fails(p):
        nonlocal budget
        budget -= 1
        got = check(p, torch)
        return got is not None and got[0] == kind

    rng = np.random.default_rng(1)
    # 1. the output: the smallest failing tensor alone
    candidates = sorted((s for s in program.stmts if s.rg and not s.leaf),
                        key=lambda s: len(ancestors(program, [s.name])))
    for s in candidates:
        if budget <= 0:
            break
        gy = np.round(rng.uniform(-2, 2, s.shape), 4)
        for retained in ([None, program.retained] if program.retained else [None]):
            if retained == s.name:
                continue
            p = restricted(program, [s.name], [gy], retained)
            if fails(p):
                program = p
                break
        else:
            continue
        break
    # 2. cut ops into leaves, from the first, while it still fails
    changed = True
    while changed and budget > 0:
        changed = False
        ns = run(program, torch)["ns"]
        for s in list(program.stmts):
            if s.leaf or s.name in program.outs or budget <= 0:
                continue
            p = cut(program, s.name, ns)
            if fails(p):
                program, changed = p, True
                break
    return program


# ----------------------------------------------------------------------------- campaign
def generate(seed, order=None):
    rng = np.random.default_rng(seed)
    order = order or (2 if rng.random() < 0.25 else 1)
    while True:
        p = Gen(rng, order, extra=seed >= EXTRA_FROM, latest=seed >= LATEST_FROM).program()
        if p is not None:
            return p


def worker(first, stop, mode="check", order=None, out=sys.stdout):
    """Seeds ``first`` to ``stop - 1`` in this process, one line per seed on ``out`` as
    each ends (``@@`` and JSON), so a process that dies shows where. ``mode`` "check":
    :func:`check`, and a failure's shrunk script on a second line; "torch": only torch's
    part of it (its run of the program, and the reading of its values), to tell whose
    crash a crash is."""
    import faulthandler
    import json

    import torch
    torch.set_num_threads(1)
    faulthandler.enable()                  # a segfault's Python stack on stderr

    def emit(**record):
        print("@@ " + json.dumps(record), file=out, flush=True)
    for i in range(first, stop):
        p = generate(i, order)
        if mode == "torch":
            sane(run(p, torch))
            emit(seed=i, kind="torch ran", order=p.order)
            continue
        got = check(p, torch)
        kind = "ok" if got is None else got[0]
        emit(seed=i, kind=kind, order=p.order, message=got and got[1])
        if kind not in ("ok", "skip", "nearer"):
            small = shrink(p, torch)
            again = check(small, torch) or got
            emit(seed=i, kind=again[0], order=p.order, shrunk=small.script(again[1]),
                 message=again[1], calls=sorted(_calls(small)))


def _worker_command(first, stop, mode, order):
    return [sys.executable, __file__, "--worker", mode, str(first), str(stop)] + \
        ([str(order)] if order else [])


def _run_chunk(command, first, stop, mode, order):
    """(records, returncode, stderr's tail) of a worker on seeds first..stop-1."""
    import json
    import subprocess
    done = subprocess.run(command(first, stop, mode, order), capture_output=True, text=True)
    records = [json.loads(line[3:]) for line in done.stdout.splitlines()
               if line.startswith("@@ ")]
    return records, done.returncode, done.stderr[-2000:]


CRASHES = {"torch crashed": "torch_crashed", "crashed": "crashed", "worker error": "worker_errors"}


def campaign(seconds, seed=0, out=sys.stdout, jobs=1, chunk=200, order=None,
             command=_worker_command, count=None):
    """Programs from ``seed`` on for about ``seconds`` (or ``count`` of them; ``order``
    1 or 2 for one kind only), in worker processes of ``chunk`` seeds (``jobs`` at
    once), printing each distinct failure, shrunk, and the counts. A worker that dies
    (torch 2.13 segfaults inside some programs) loses nothing: the first seed it did not
    report is run alone, torch's part first, and recorded as "torch crashed" (or
    "crashed", where only the whole check dies; "worker error" for a Python error, the
    fuzzer's own; nothing where it passes alone, "crashed in a chunk" in the returned
    list; "crashed shrinking" where a failure's shrinking dies, the failure kept
    unshrunk); the rest of the chunk runs in a new worker. Returns the counts, the distinct
    failures (key: first seed) and the crashes (seed, kind, return code, stderr's end)."""
    from concurrent.futures import ThreadPoolExecutor
    stats = dict(graphs=0, compared=0, skipped=0, nearer=0, failed=0, order2=0,
                 torch_crashed=0, crashed=0, worker_errors=0)
    seen, crashes = {}, []
    start = time.time()

    def tally(r):
        stats["graphs"] += 1
        stats["order2"] += r.get("order") == 2
        if r["kind"] == "skip":
            stats["skipped"] += 1
        else:
            stats["compared"] += 1
            stats["nearer"] += r["kind"] == "nearer"
            stats["failed"] += r["kind"] not in ("ok", "nearer")

    def failure(r):
        key = (r["kind"], re.sub(r"[-\d.e]+|\b[xcv]\d+\b", "#", r["message"])[:80],
               tuple(r.get("calls", ())))
        if key not in seen:
            seen[key] = r["seed"]
            print(f"\n=== seed {r['seed']}: {r['message']}\n{r.get('shrunk', '')}", file=out,
                  flush=True)

    def chunk_of(first, stop):
        """Run seeds first..stop-1 to the end, however many workers die on the way."""
        results = []
        while first < stop:
            records, rc, err = _run_chunk(command, first, stop, "check", order)
            checked = {}
            for r in records:
                checked.setdefault(r["seed"], []).append(r)
            for s in sorted(checked):
                results.append(checked[s][-1])       # the shrunk record where there is one
            if rc == 0:
                break
            last = max(checked, default=first - 1)
            if last >= first and checked[last][-1]["kind"] not in ("ok", "skip", "nearer") \
                    and "shrunk" not in checked[last][-1]:
                # died shrinking: the failure stands, unshrunk
                crashes.append((last, "crashed shrinking", rc, err[-400:]))
                first = last + 1
                continue
            bad = last + 1
            alone, rc_torch, err_torch = _run_chunk(command, bad, bad + 1, "torch", order)
            if rc_torch < 0:                         # killed by a signal
                kind, rc, err = "torch crashed", rc_torch, err_torch
            elif rc_torch > 0:                       # a Python error: the fuzzer's own
                kind, rc, err = "worker error", rc_torch, err_torch
            else:
                alone, rc_alone, err_alone = _run_chunk(command, bad, bad + 1, "check", order)
                kind = "crashed" if rc_alone < 0 else "worker error" if rc_alone > 0 else \
                    "crashed in a chunk"
                if rc_alone:
                    rc, err = rc_alone, err_alone
                else:
                    results.append(alone[-1])
            stack = err.split("\nExtension modules")[0].strip()[-400:]  # faulthandler's
            crashes.append((bad, kind, rc, stack))
            if kind != "crashed in a chunk":
                results.append(dict(seed=bad, kind=kind))
            first = bad + 1
        return results

    next_seed = seed
    end = math.inf if count is None else seed + count

    def more():
        return next_seed < end and time.time() - start < seconds
    with ThreadPoolExecutor(jobs) as pool:
        pending = []
        while pending or more():
            while len(pending) < jobs and more():
                pending.append(pool.submit(chunk_of, next_seed, min(next_seed + chunk, end)))
                next_seed += chunk
            results = pending.pop(0).result()
            before = stats["graphs"]
            for r in results:
                if r["kind"] in CRASHES:
                    stats[CRASHES[r["kind"]]] += 1
                    stack = next(c[3] for c in crashes if c[0] == r["seed"])
                    print(f"\n=== seed {r['seed']}: {r['kind']}\n{stack}", file=out, flush=True)
                    continue
                tally(r)
                if r["kind"] not in ("ok", "skip", "nearer"):
                    failure(r)
            if stats["graphs"] // 2000 > before // 2000:
                print(f"# {time.time() - start:.0f} s, seeds {seed}..{results[-1]['seed']}: "
                      f"{stats}", file=out, flush=True)
    print(f"\n{stats}, distinct failures: {len(seen)}, crashes: {crashes}", file=out,
          flush=True)
    return stats, seen, crashes


def _calls(program):
    """The names of the functions and methods a program's ops call."""
    names = set()
    for s in program.stmts:
        if not s.leaf:
            rhs = s.code.split("=", 1)[1]
            names.update(a or b for a, b in re.findall(r"\.(\w+)\(|\b(?:M|F)\.(\w+)", rhs))
    return names - {"tensor"}


if __name__ == "__main__":
    if sys.argv[1] == "--worker":          # --worker MODE FIRST STOP [ORDER]
        worker(int(sys.argv[3]), int(sys.argv[4]), sys.argv[2],
               int(sys.argv[5]) if len(sys.argv) > 5 else None)
    else:                                   # SECONDS [SEED [JOBS [ORDER]]]
        campaign(float(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 0,
                 jobs=int(sys.argv[3]) if len(sys.argv) > 3 else 1,
                 order=int(sys.argv[4]) if len(sys.argv) > 4 else None)
