"""PyTorch's argument names and positions in the functions ported code calls most:
``F.cross_entropy(input=logits, target=y)``, ``F.linear(input, weight, bias)``, ...

Torch-free: the signatures written out (a rename back to the math names, or a
tinyffn-only argument such as ``fused`` moved into a slot PyTorch uses, fails here), and
keyword calls under PyTorch's names giving the positional calls' numbers, on every device.
With torch: the same names compared mechanically with torch 2.13's signatures, and the
keyword calls with torch's values. Then the same for tinyffn.* and Tensor methods where an
audit against torch's stubs (all overloads) found a torch keyword refused:
``zeros_like(input=x)``, ``arange(end=n)``, ``x.pow(exponent=2)``, ``x.split(split_size=1)``.
Last, the Tensor methods' sizes by keyword (``x.view(size=(2, 3))``, ``x.permute(dims=...)``)
and the other keywords a mechanical audit of torch 2.13's stubs found refused
(``copy_(other, non_blocking)``, ``div_(rounding_mode=)``, ``norm(dtype=)``, ``max(other=)``):
torch-free against its values written out, with torch against torch's, and that audit.
"""
import inspect
import re

import numpy as np
import pytest

import tinyffn
import tinyffn.nn.functional as F

# tinyffn's signatures, written out: PyTorch's names and order; tinyffn's own after a `*`
SIGNATURES = {
    "linear": "(input, weight, bias=None, *, fused=False)",
    "relu": "(input, inplace=False)",
    "sigmoid": "(input)",
    "tanh": "(input)",
    "gelu": "(input, approximate='none', *, fused=False)",
    "silu": "(input, inplace=False, *, fused=False)",
    "softmax": "(input, axis=None, *, dim=None, dtype=None)",
    "log_softmax": "(input, axis=None, *, dim=None, dtype=None)",
    "cross_entropy": "(input, target, reduction='mean', *, weight=None, ignore_index=-100, "
                     "label_smoothing=0.0)",
    "nll_loss": "(input, target, reduction='mean', *, weight=None, ignore_index=-100)",
}
# torch's arguments left out on purpose (deprecated, or a warning level)
LEFT_OUT = {"size_average", "reduce", "_stacklevel"}
# slots where tinyffn's positional argument differs, documented in docs/api.md: softmax's
# `axis` is torch's `dim` (the same axis); the losses' third is `reduction`, where torch's
# is `weight`, and a tensor there is refused naming weight=... (the test below)
OTHER_SLOTS = {("softmax", 1), ("log_softmax", 1), ("cross_entropy", 2), ("nll_loss", 2)}

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.0, -0.3]])
W = np.array([[0.2, -0.4, 1.0], [0.7, 0.1, -0.6]])
T = [2, 0]
# name -> (keyword arguments under PyTorch's names, the same call's positional arguments:
# by position as far as tinyffn's order goes)
CALLS = {
    "linear": (lambda x: dict(input=x, weight=x.new_tensor(W), bias=None),
               lambda x: (x, x.new_tensor(W))),
    "relu": (lambda x: dict(input=x, inplace=False), lambda x: (x,)),
    "sigmoid": (lambda x: dict(input=x), lambda x: (x,)),
    "tanh": (lambda x: dict(input=x), lambda x: (x,)),
    "gelu": (lambda x: dict(input=x, approximate="tanh"), lambda x: (x, "tanh")),
    "silu": (lambda x: dict(input=x, inplace=False), lambda x: (x,)),
    "softmax": (lambda x: dict(input=x, dim=0), lambda x: (x, 0)),
    "log_softmax": (lambda x: dict(input=x, dim=0), lambda x: (x, 0)),
    "cross_entropy": (lambda x: dict(input=x, target=T, reduction="sum", label_smoothing=0.1),
                      lambda x: (x, T, "sum", {"label_smoothing": 0.1})),
    "nll_loss": (lambda x: dict(input=x, target=T, ignore_index=0),
                 lambda x: (x, T, {"ignore_index": 0})),
}


def text(f) -> str:
    """The signature without annotations, as docs/api.md writes it."""
    sig = inspect.signature(f)
    return str(sig.replace(parameters=[p.replace(annotation=p.empty)
                                       for p in sig.parameters.values()],
                           return_annotation=sig.empty))


def test_functions_take_pytorchs_argument_names():
    assert {name: text(getattr(F, name)) for name in SIGNATURES} == SIGNATURES


@pytest.mark.parametrize("name", sorted(CALLS))
def test_keyword_calls_under_pytorchs_names_compute_the_positional_calls(name, device):
    x = tinyffn.tensor(X, dtype="float64", device=device)
    kwargs, args = CALLS[name]
    f, args = getattr(F, name), args(x)
    options = args[-1] if isinstance(args[-1], dict) else {}
    np.testing.assert_array_equal(f(**kwargs(x)).numpy(),
                                  f(*args[:len(args) - bool(options)], **options).numpy())


def test_a_torch_positional_argument_cannot_land_in_tinyffns_own():
    """fused is keyword-only; torch's weight, size_average or reduce by position, where the
    losses take reduction, is refused naming what to write."""
    x, w = tinyffn.tensor(X), tinyffn.tensor(W)
    with pytest.raises(TypeError, match=r"takes from 2 to 3 positional arguments"):
        F.linear(x, w, None, True)
    with pytest.raises(TypeError, match=r"takes from 1 to 2 positional arguments"):
        F.gelu(x, "none", True)
    for bad, hint in ((tinyffn.ones(3), r"class weights .* weight=\.\.\."),
                      (None, r"weight, the deprecated size_average and reduce.*by name"),
                      (True, r"size_average and reduce.* pass reduction=\.\.\.")):
        with pytest.raises(TypeError, match=rf"cross_entropy: reduction must be one of .*{hint}"):
            F.cross_entropy(x, T, bad)
    with pytest.raises(TypeError, match=r"MSELoss: .*got a bool; PyTorch's .*size_average"):
        tinyffn.nn.MSELoss(True)


def torch_signature(f) -> inspect.Signature:
    """inspect's, or, for a function written in C (F.linear, F.gelu), its docstring's first
    line, ``linear(input, weight, bias=None) -> Tensor``."""
    try:
        return inspect.signature(f)
    except (TypeError, ValueError):
        args = re.match(r"\w+\((.*?)\)", f.__doc__.strip()).group(1)
        scope = {}
        exec(f"def f({args}): pass", scope)
        return inspect.signature(scope["f"])


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_signatures_agree_with_pytorchs(name):
    """Every torch keyword is taken (LEFT_OUT aside), each torch positional slot holds the
    same argument here or none (a TypeError), OTHER_SLOTS aside, the defaults agree, and
    tinyffn's own arguments are keyword-only: so a call from PyTorch code means the same."""
    torch = pytest.importorskip("torch")
    theirs = torch_signature(getattr(torch.nn.functional, name)).parameters
    ours = inspect.signature(getattr(F, name)).parameters
    positional = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.POSITIONAL_ONLY)
    assert set(theirs) - set(ours) <= LEFT_OUT
    our_slots = [p for p in ours if ours[p].kind in positional]
    for i, p in enumerate(p for p in theirs if theirs[p].kind in positional):
        assert i >= len(our_slots) or our_slots[i] == p or (name, i) in OTHER_SLOTS, (i, p)
    for p in set(theirs) & set(ours):
        assert theirs[p].default == ours[p].default, p
    for p in set(ours) - set(theirs):
        assert ours[p].kind == inspect.Parameter.KEYWORD_ONLY or \
            (name, our_slots.index(p)) in OTHER_SLOTS, p


@pytest.mark.parametrize("name", sorted(CALLS))
def test_keyword_calls_compute_pytorchs_numbers(name):
    torch = pytest.importorskip("torch")
    kwargs = CALLS[name][0]
    theirs = kwargs(torch.tensor(X))
    theirs = {k: torch.tensor(v) if isinstance(v, list) else v for k, v in theirs.items()}
    expected = getattr(torch.nn.functional, name)(**theirs).numpy()
    np.testing.assert_allclose(getattr(F, name)(**kwargs(tinyffn.tensor(X))).numpy(), expected,
                               rtol=1e-12, atol=1e-15)


# ----------------------------------------------------------------------------- tinyffn.* and
# Tensor methods: the names a second audit found refused where torch takes them. Signatures
# written out, then each keyword call as torch writes it beside the
# positional call it must equal (strings, so torch evaluates the same text).
TOPLEVEL = {
    "zeros_like": "(input, *, dtype=None, device=None, requires_grad=False)",
    "ones_like": "(input, *, dtype=None, device=None, requires_grad=False)",
    "arange": "(start=None, end=None, step=1, *, dtype=None, device='cpu', requires_grad=False)",
    "concatenate": "(tensors, axis=0, *, dim=None)",
    "tensor_split": "(input, indices_or_sections=None, dim=0, *, sections=None, indices=None)",
    "hsplit": "(input, indices_or_sections=None, *, sections=None, indices=None)",
    "gather": "(input, dim, index, *, sparse_grad=False)",
    "true_divide": "(input, other)",
    "result_type": "(tensor, other)",
    "load": "(f, map_location=None, *, weights_only=True)",   # torch's 3rd: pickle_module
}
METHODS = {
    "pow": "(self, exponent)",
    "split": "(self, split_size, dim=0)",
    "gather": "(self, dim, index, *, sparse_grad=False)",
    "tensor_split": "(self, indices_or_sections=None, dim=0, *, sections=None, indices=None)",
    "hsplit": "(self, indices_or_sections=None, *, sections=None, indices=None)",
}
# keyword call (torch's names) -> the positional call; t is tinyffn or torch
KEYWORD_CALLS = {
    "t.zeros_like(input=x)": "t.zeros_like(x)",
    "t.ones_like(input=x, dtype=t.float64)": "t.ones_like(x, dtype=t.float64)",
    "t.arange(end=4, dtype=t.float64, device=x.device)": "t.arange(4.0, device=x.device)",
    "t.concatenate([x, x], dim=1)": "t.concatenate([x, x], 1)",
    "t.tensor_split(x, sections=2, dim=1)": "t.tensor_split(x, 2, 1)",
    "t.tensor_split(x, indices=[1], dim=1)": "t.tensor_split(x, [1], 1)",
    "t.hsplit(x, sections=3)": "t.hsplit(x, 3)",
    "t.vsplit(x, indices=[1])": "t.vsplit(x, [1])",
    "t.dsplit(x[None], sections=3)": "t.dsplit(x[None], 3)",
    "t.gather(x, 1, i, sparse_grad=False)": "t.gather(x, 1, i)",
    "t.true_divide(input=x, other=2.0)": "t.true_divide(x, 2.0)",
    "x.pow(exponent=2)": "x.pow(2)",
    "x.split(split_size=1)": "x.split(1)",
    "x.gather(1, i, sparse_grad=False)": "x.gather(1, i)",
    "x.tensor_split(sections=3, dim=1)": "x.tensor_split(3, 1)",
    "x.hsplit(indices=[2])": "x.hsplit([2])",
}


def _evaluate(t, x, expr):
    i = t.tensor([[0, 2, 1], [1, 1, 0]], device=x.device)
    y = eval(expr, {"t": t, "x": x, "i": i})
    return [v.tolist() for v in y] if isinstance(y, tuple) else y.tolist()


def test_top_level_functions_and_methods_take_pytorchs_names():
    assert {name: text(getattr(tinyffn, name)) for name in TOPLEVEL} == TOPLEVEL
    assert {name: text(getattr(tinyffn.Tensor, name)) for name in METHODS} == METHODS
    assert text(tinyffn.vsplit) == text(tinyffn.dsplit) == text(tinyffn.hsplit)
    T = tinyffn.Tensor
    assert text(T.vsplit) == text(T.dsplit) == text(T.hsplit)


@pytest.mark.parametrize("expr", sorted(KEYWORD_CALLS))
def test_torch_keyword_calls_compute_the_positional_calls(expr, device):
    x = tinyffn.tensor(X, dtype="float64", device=device)
    assert _evaluate(tinyffn, x, expr) == _evaluate(tinyffn, x, KEYWORD_CALLS[expr])


def test_torch_keyword_result_type_and_what_is_refused():
    x = tinyffn.tensor(X)
    assert tinyffn.result_type(tensor=x, other=2) == tinyffn.result_type(x, 2) == x.dtype
    with pytest.raises(ValueError, match=r"gather: sparse_grad=True: .*dense"):
        tinyffn.gather(x, 1, tinyffn.tensor([[0], [1]]), sparse_grad=True)
    with pytest.raises(TypeError, match=r"tensor_split: give one of .*got 2"):
        x.tensor_split(2, sections=2)
    with pytest.raises(TypeError, match=r"arange: give the end"):
        tinyffn.arange()


@pytest.mark.parametrize("expr", sorted(KEYWORD_CALLS))
def test_torch_keyword_calls_work_in_torch_with_the_same_numbers(expr):
    torch = pytest.importorskip("torch")
    ours = _evaluate(tinyffn, tinyffn.tensor(X, dtype="float64"), expr)
    assert _evaluate(torch, torch.tensor(X), expr) == ours    # exact: copies, x * x, x / 2


def test_pytorchs_unbiased_by_position_is_refused_naming_it():
    """torch.var(x, False) means unbiased=False (torch's overload var(input, unbiased));
    here dim is the second slot, so a bool there is refused, saying what to write."""
    x = tinyffn.tensor(X)
    for f, op in ((tinyffn.var, "var"), (tinyffn.std, "std"), (tinyffn.Tensor.var, "var"),
                  (tinyffn.var_mean, "var"), (tinyffn.std_mean, "std")):
        with pytest.raises(TypeError, match=rf"{op}: got False where dim goes; .*"
                                            r"pass unbiased=False \(or correction=0\) by name"):
            f(x, False)


def test_pytorchs_unbiased_by_position_means_what_the_message_says():
    torch = pytest.importorskip("torch")
    ours = tinyffn.var(tinyffn.tensor(X, dtype="float64"), unbiased=False).item()
    assert torch.var(torch.tensor(X), False).item() == pytest.approx(ours, rel=1e-14)


def test_load_takes_weights_only_by_name_only():
    """torch.load(f, None, pickle) passes pickle_module third; here that slot is refused,
    not read as weights_only."""
    with pytest.raises(TypeError, match=r"takes from 1 to 2 positional arguments"):
        tinyffn.load("unused.pt", None, True)


# ----------------------------------------------------------------------------- Tensor methods'
# sizes by keyword: PyTorch's methods take their sizes by position (x.view(2, 3), x.view((2,
# 3))) or as one sequence by name (x.view(size=(2, 3))); a third audit, against torch 2.13's
# stubs (the last test), found those keywords and a few others refused here.
KEYWORD_METHODS = {
    "reshape": "(self, *sizes, shape=None)",
    "view": "(self, *sizes, size=None)",
    "permute": "(self, *axes, dims=None)",
    "expand": "(self, *sizes, size=None, implicit=False)",
    "repeat": "(self, *sizes, repeats=None)",
    "tile": "(self, *sizes, dims=None)",
    "broadcast_to": "(self, *sizes, size=None)",
    "sum_to_size": "(self, *sizes, size=None)",
    "transpose": "(self, *axes, dim0=None, dim1=None)",
    "copy_": "(self, other, non_blocking=False)",
    "div_": "(self, other, *, rounding_mode=None)",
    "numpy": "(self, *, force=False)",
    "norm": "(self, p='fro', dim=None, keepdim=False, dtype=None)",
    "max": "(self, dim=None, keepdim=None, *, axis=None, keepdims=False, other=None)",
    "min": "(self, dim=None, keepdim=None, *, axis=None, keepdims=False, other=None)",
    "cuda": "(self, device=None, non_blocking=False)",
}
# each call as torch writes it -> torch 2.13's values, written out (x is X in float64)
KEYWORD_VALUES = {
    "x.reshape(shape=(3, 2))": [[0.5, -1.0], [2.0, 1.5], [0.0, -0.3]],
    "x.view(size=[-1])": [0.5, -1.0, 2.0, 1.5, 0.0, -0.3],
    "x.permute(dims=(1, 0))": [[0.5, 1.5], [-1.0, 0.0], [2.0, -0.3]],
    "x[:, :1].expand(size=(2, 2))": [[0.5, 0.5], [1.5, 1.5]],
    "x[0].expand(-1, implicit=True)": [0.5, -1.0, 2.0],
    "x[:1].repeat(repeats=(2, 1))": [[0.5, -1.0, 2.0], [0.5, -1.0, 2.0]],
    "x.tile(dims=(1, 2))": [[0.5, -1.0, 2.0, 0.5, -1.0, 2.0], [1.5, 0.0, -0.3, 1.5, 0.0, -0.3]],
    "x[0].broadcast_to(size=(2, 3))": [[0.5, -1.0, 2.0], [0.5, -1.0, 2.0]],
    "x.sum_to_size(size=(1, 3))": [[2.0, -1.0, 1.7]],
    "x.transpose(dim0=0, dim1=1)": [[0.5, 1.5], [-1.0, 0.0], [2.0, -0.3]],
    "x.transpose(0, dim1=-1)": [[0.5, 1.5], [-1.0, 0.0], [2.0, -0.3]],
    "x.clone().copy_(other=x[1], non_blocking=False)": [[1.5, 0.0, -0.3], [1.5, 0.0, -0.3]],
    "x.clone().div_(2, rounding_mode='floor')": [[0.0, -1.0, 1.0], [0.0, 0.0, -1.0]],
    "x.clone().div_(other=2, rounding_mode='trunc')": [[0.0, -0.0, 1.0], [0.0, 0.0, -0.0]],
    "x.numpy(force=False)": [[0.5, -1.0, 2.0], [1.5, 0.0, -0.3]],
    "x.max(other=x[1])": [[1.5, 0.0, 2.0], [1.5, 0.0, -0.3]],
    "x.min(other=x[1])": [[0.5, -1.0, -0.3], [1.5, 0.0, -0.3]],
    # float32 entries summed in float64: 0.3 rounded to float32 shows in the last digits
    "x.float().norm(p=1, dim=1, keepdim=True, dtype=t.float64)": [[3.5], [1.800000011920929]],
    "x.float().norm(2, 1, False, t.float64)": [2.29128784747792, 1.529705856415722],
}
# refused by both (a TypeError each in torch 2.13); here with the message that says why
KEYWORD_REFUSED = {
    "x.reshape(3, shape=(2,))": r"reshape: shape is given twice, by position \(3,\) and as "
                                r"shape=\(2,\); give it once",
    "x.view(2, size=(3,))": r"view: size is given twice",
    "x.view(size=6)": r"view: size must be a tuple or list of ints, such as \(2, 3\), got 6",
    "x.permute(1, dims=(0,))": r"permute: dims is given twice",
    "x.expand(2, size=(2, 3))": r"expand: size is given twice",
    "x.repeat(2, repeats=(1,))": r"repeat: repeats is given twice",
    "x.tile(2, dims=(2,))": r"tile: dims is given twice",
    "x.broadcast_to((2, 3), size=(2, 3))": r"broadcast_to: size is given twice",
    "x.sum_to_size(1, size=(3,))": r"sum_to_size: size is given twice",
    "x.transpose(0, 1, dim0=1)": r"transpose: dim0 is given twice, by position \(0\) and as dim0=1",
    "x.transpose(dim0=1)": r"transpose: give dim0 and dim1, by position or by name",
    "x.reshape(size=(3, 2))": r"reshape\(\) got an unexpected keyword argument 'size'",
    "x.max(1, other=x)": r"max: x\.max\(other=y\) takes a Tensor y and no dim",
    "x.min(other=2.0)": r"min: x\.min\(other=y\) takes a Tensor y and no dim",
}


def test_tensor_methods_take_pytorchs_keywords():
    assert {name: text(getattr(tinyffn.Tensor, name)) for name in KEYWORD_METHODS} == \
        KEYWORD_METHODS


@pytest.mark.parametrize("expr", list(KEYWORD_VALUES))
def test_tensor_keyword_calls_give_torchs_values(expr, device):
    x = tinyffn.tensor(X, dtype="float64", device=device)
    np.testing.assert_allclose(_evaluate(tinyffn, x, expr), KEYWORD_VALUES[expr], rtol=1e-14)


def test_sizes_by_position_and_by_keyword_at_once_are_refused_naming_the_method():
    x = tinyffn.tensor(X)
    for expr, message in KEYWORD_REFUSED.items():
        with pytest.raises(TypeError, match=message):
            _evaluate(tinyffn, x, expr)
    with pytest.raises(ValueError, match=r"norm: dtype=float16 for a float32 tensor"):
        x.float().norm(dtype=tinyffn.float16)   # torch 2.13: RuntimeError, "without narrowing"
    assert x.view(size=(3, 2)).shape == x.view(3, 2).shape == x.view((3, 2)).shape == (3, 2)


@pytest.mark.parametrize("expr", list(KEYWORD_VALUES))
def test_tensor_keyword_calls_give_the_values_torch_gives(expr):
    torch = pytest.importorskip("torch")
    theirs = _evaluate(torch, torch.tensor(X), expr)
    np.testing.assert_allclose(theirs, KEYWORD_VALUES[expr], rtol=1e-14)
    np.testing.assert_allclose(_evaluate(tinyffn, tinyffn.tensor(X), expr), theirs, rtol=1e-14)


@pytest.mark.parametrize("expr", list(KEYWORD_REFUSED))
def test_what_torch_refuses_is_refused_here_saying_why(expr):
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError):
        _evaluate(torch, torch.tensor(X), expr)
    with pytest.raises(TypeError, match=KEYWORD_REFUSED[expr]):
        _evaluate(tinyffn, tinyffn.tensor(X), expr)


# torch's keywords of a Tensor method that tinyffn's lacks on purpose, and why
KEYWORDS_LEFT_OUT = {
    "view": {"dtype"},                  # reading the bytes as another dtype: not in tinyffn
    "uniform_": {"from_", "to"},        # torch's `from` is a Python keyword: a, b by position
    "requires_grad_": {"mode"},         # the stubs' name; torch itself refuses mode=
    "to": {"other"},                    # the stubs' name; torch itself refuses other=
    "pin_memory": {"device"},           # deprecated in torch
    "is_pinned": {"device"},            # deprecated in torch
    "tensor_split": {"tensor_indices_or_sections"},     # sections= or indices= say which
}
NEVER = {"out", "memory_format", "layout", "pin_memory", "names"}   # no such thing in tinyffn


def test_every_torch_keyword_of_a_tensor_method_is_taken():
    """torch 2.13's stubs, every overload of each TensorBase method (and torch.Tensor's
    Python methods): each keyword is one tinyffn's method of that name takes, but for
    KEYWORDS_LEFT_OUT."""
    torch = pytest.importorskip("torch")
    import ast
    import pathlib
    stubs = pathlib.Path(torch.__file__).parent / "_C" / "__init__.pyi"
    base = next(n for n in ast.parse(stubs.read_text(encoding="utf-8")).body
                if isinstance(n, ast.ClassDef) and n.name == "TensorBase")
    theirs = {}
    for f in base.body:
        if isinstance(f, ast.FunctionDef):
            a = f.args
            names = [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs][1:]
            theirs.setdefault(f.name, set()).update(names + ([a.vararg.arg] if a.vararg else []))
    for name, f in vars(torch.Tensor).items():
        try:                            # (some wrap a method written in C: no signature)
            theirs.setdefault(name, set()).update(list(inspect.signature(f).parameters)[1:])
        except (TypeError, ValueError):
            pass
    missing = {}
    for name, names in theirs.items():
        ours = getattr(tinyffn.Tensor, name, None)
        if name.startswith("_") or not inspect.isfunction(ours):
            continue
        params = inspect.signature(ours).parameters.values()
        if any(p.kind == p.VAR_KEYWORD for p in params):
            continue
        taken = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
        lacking = names - taken - NEVER - KEYWORDS_LEFT_OUT.get(name, set())
        if lacking:
            missing[name] = sorted(lacking)
    assert not missing
