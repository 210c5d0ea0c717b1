"""PyTorch's argument names and positions in the functions ported code calls most:
``F.cross_entropy(input=logits, target=y)``, ``F.linear(input, weight, bias)``, ...

Torch-free: the signatures written out (a rename back to the math names, or a
tinyffn-only argument such as ``fused`` moved into a slot PyTorch uses, fails here), and
keyword calls under PyTorch's names giving the positional calls' numbers, on every device.
With torch: the same names compared mechanically with torch 2.13's signatures, and the
keyword calls with torch's values.
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
