"""PyTorch's argument names and positions in the functions ported code calls most:
``F.cross_entropy(input=logits, target=y)``, ``F.linear(input, weight, bias)``, ...

Torch-free: the signatures written out (a rename back to the math names, or a
tinyffn-only argument such as ``fused`` moved into a slot PyTorch uses, fails here), and
keyword calls under PyTorch's names giving the positional calls' numbers, on every device.
With torch: the same names compared mechanically with torch 2.13's signatures, and the
keyword calls with torch's values. Then the same for tinyffn.* and Tensor methods where an
audit against torch's stubs (all overloads) found a torch keyword refused:
``zeros_like(input=x)``, ``arange(end=n)``, ``x.pow(exponent=2)``, ``x.split(split_size=1)``.
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
