"""The names ported training scripts use (tinyffn/torch_extras.py): lerp and lerp_ (the
EMA of weights), diag, diagonal, diag_embed, tile, repeat_interleave, chunk, split, empty_like,
is_tensor and detach_; and max(x, other), min(x, other), flip(dims=...).

Each case is one call, written once and run with the names of tinyffn and of torch.
References: PyTorch 2.13, live where it is installed, and its values and gradients written
out in ``EXPECTED`` and ``EXPECTED_GRADS`` (computed once with torch; those tests run
without it, on every device); NumPy written out by hand; gradcheck on every device.
"""
import math

import numpy as np
import pytest

import tinyffn
import torch_parity
from tinyffn import nn
from tinyffn.backend import dtype_name

X = [[0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5]]
E = [[1.0, 1.0, -1.0, 2.0], [0.0, 0.5, 0.25, 4.0]]            # lerp's end
W = [[0.1, 0.5, 0.9, 1.0], [-0.25, 0.49, 0.51, 2.0]]          # a weight per entry: both forms

CASES = [
    "T.lerp(x, e, 0.25)", "T.lerp(x, e, 0.75)", "T.lerp(x, e, 1.0)", "T.lerp(x, e, -0.5)",
    "T.lerp(x, e, w)", "T.lerp(x, e[0], 0.3)", "T.lerp(x, e, w[0])", "x.lerp(e, 0.5)",
    "x.lerp(e, w)",
    "T.diag(v)", "T.diag(v, 1)", "T.diag(v, -2)", "T.diag(x)", "T.diag(x, 1)", "T.diag(x, -1)",
    "T.diag(x, 3)", "T.diag(x, -5)", "T.diag(x.mT, 2)", "T.diag(i)", "T.diag(i[0], 1)",
    "T.diag(v[:0])", "T.diag(v[:0], 2)", "T.diag(x > 0)", "x.diag(2)", "v.diag(-1)",
    "T.diag_embed(x)", "T.diag_embed(v, 1)", "T.diag_embed(x, -2)", "x.diag_embed(1, 0, 2)",
    "T.diag_embed(x.reshape(2, 2, 2), -1, 3, 1)", "T.diag_embed(x > 0)", "T.diag_embed(i, 0, -1, 0)",
    "T.is_tensor(x)", "T.is_tensor(3.0)", "T.is_tensor(X)",
    "T.diagonal(x)", "T.diagonal(x, 1)", "T.diagonal(x, -1)", "x.diagonal(2, 1, 0)",
    "T.diagonal(x.reshape(2, 2, 2), 0, 1, 2)", "x.reshape(2, 2, 2).diagonal(1, -1, 0)",
    "T.diagonal(x, 5)", "i.diagonal(offset=1)",
    "T.tile(v, (2,))", "T.tile(x, (2,))", "x.tile(2, 1, 1)", "v.tile((2, 2))", "T.tile(i, (1, 2))",
    "T.repeat_interleave(v, 2)", "x.repeat_interleave(2)", "x.repeat_interleave(2, dim=1)",
    "T.repeat_interleave(x, T.tensor([1, 0]), dim=0)", "T.repeat_interleave(i[0])",
    "i.repeat_interleave(T.tensor([3]), dim=0)", "T.repeat_interleave(v, 2, output_size=6)",
    "T.chunk(x, 3, 1)", "T.split(x, [1, 3], 1)", "T.split(v, 2)",
    "T.max(x, e)", "x.min(e)", "T.max(v, v.flip(0))", "T.min(i, i.flip(1))", "x.flip(dims=[1])",
    "T.triu_indices(3, 4, 1)", "T.tril_indices(3, 3)", "T.tril_indices(2, 3, -1)",
    "T.triu_indices(3, 3, -1)", "T.triu_indices(0, 3)", "T.argwhere(x > 0)", "x.argwhere()",
]


def run(module, case: str, requires_grad: str = "", **tensor_kwargs):
    """``case`` evaluated with ``module`` (tinyffn or torch) as ``T``; the input named
    ``requires_grad`` requires a gradient (returned with the result)."""
    inputs = {}
    for name, values in dict(x=X, e=E, w=W, v=[3.0, -4.0, 0.5]).items():
        inputs[name] = module.tensor(values, dtype=module.float64, **tensor_kwargs)
        if name == requires_grad:
            inputs[name].requires_grad_(True)
    inputs["i"] = module.tensor([[0, 4, 2], [4, 1, 3]], **tensor_kwargs)
    y = eval(case, {"X": X}, {"T": module, **inputs})
    return (y, inputs[requires_grad]) if requires_grad else y


plain = torch_parity.plain      # (dtype name, nested lists), as the tests compare
assert_same = torch_parity.assert_close    # dtype, shape, values to 1e-12


# dL/d(input) for L = Σ f · (1, 2, 3, ...)/10: a backward that forgets gy shows
GRAD_CASES = [
    ("T.lerp(x, e, 0.25)", "x"), ("T.lerp(x, e, 0.75)", "e"), ("T.lerp(x, e, w)", "x"),
    ("T.lerp(x, e, w)", "e"), ("T.lerp(x, e, w)", "w"), ("T.lerp(x, e[0], 0.3)", "e"),
    ("T.diag(v, 1)", "v"), ("T.diag(v, -2)", "v"), ("T.diag(x, 1)", "x"), ("T.diag(x, -1)", "x"),
    ("T.diag(x.mT)", "x"), ("T.diagonal(x, 1)", "x"), ("x.reshape(2, 2, 2).diagonal(1, -1, 0)", "x"),
    ("T.diag_embed(x, 1)", "x"), ("x.diag_embed(-1, 2, 0)", "x"), ("T.diag_embed(v)", "v"),
    ("T.tile(x, (2,))", "x"), ("x.repeat_interleave(2, dim=1)", "x"),
    ("T.repeat_interleave(x, T.tensor([1, 3]), dim=0)", "x"), ("T.max(v, v.flip(0))", "v"),
    ("x.min(e)", "e"),
]


def grad_of(module, case: str, wrt: str, **tensor_kwargs):
    y, x = run(module, case, requires_grad=wrt, **tensor_kwargs)
    return torch_parity.weighted_grad(module, y, x, **tensor_kwargs)


torch_parity.tests(globals())     # live torch, EXPECTED(_GRADS), their check


# ----------------------------------------------------------------------------- gradcheck
def _f64(values, device):
    return tinyffn.tensor(values, dtype="float64", device=device, requires_grad=True)


GRADCHECKED = {
    "lerp-number": (lambda x, e: tinyffn.lerp(x, e, 0.3), (X, E)),
    "lerp-large-number": (lambda x, e: x.lerp(e, 0.8), (X, E)),
    "lerp-tensor": (tinyffn.lerp, (X, E, W)),
    "diag-vector": (lambda v: tinyffn.diag(v, -1), ([3.0, -4.0, 0.5],)),
    "diag-matrix": (lambda x: x.diag(1), (X,)),
    "diagonal": (lambda x: x.reshape(2, 2, 2).diagonal(-1, 2, 0), (X,)),
    "diag_embed": (lambda x: x.reshape(2, 2, 2).diag_embed(1, 0, 2), (X,)),
    "tile": (lambda x: tinyffn.tile(x, (2, 1, 2)), (X,)),
    "repeat_interleave": (lambda x: x.repeat_interleave(tinyffn.tensor([2, 0, 1, 3]), 1), (X,)),
    "max-of-two": (tinyffn.max, (X, E)),
}


@pytest.mark.parametrize("name", GRADCHECKED)
def test_gradcheck(name, device):
    fn, values = GRADCHECKED[name]
    assert tinyffn.gradcheck(fn, [_f64(v, device) for v in values])


# ----------------------------------------------------------------------------- by hand
def test_lerp_written_out_in_numpy(device):
    """input + w (end - input) for w < 0.5, end - (end - input)(1 - w) from 0.5 on."""
    x, e, w = np.array(X), np.array(E), np.array(W)
    want = np.where(np.abs(w) < 0.5, x + w * (e - x), e - (e - x) * (1 - w))
    got = tinyffn.lerp(*(tinyffn.tensor(a, dtype="float64", device=device) for a in (x, e, w)))
    np.testing.assert_array_equal(got.numpy(), want)
    assert tinyffn.lerp(tinyffn.tensor(X, device=device), tinyffn.tensor(E, device=device),
                        1.0).tolist() == E                     # the end, exactly


@pytest.mark.parametrize("w", [0.1, 0.3, 0.5, 0.55, 0.9, -0.4, -0.6, 1.5])
def test_lerp_takes_pytorchs_form_on_each_side_of_one_half(w, device):
    """The two forms round differently (on 18 to 40 of these 64 pairs, by the weight), so
    bit equality checks the form chosen: below 0.5 in abs, input + w (end - input)."""
    r = np.random.default_rng(0)
    x, e = r.standard_normal(64), r.standard_normal(64)
    small, large = x + w * (e - x), e - (e - x) * (1 - w)
    assert np.any(small != large)
    got = tinyffn.lerp(tinyffn.tensor(x, device=device), tinyffn.tensor(e, device=device), w)
    np.testing.assert_array_equal(got.numpy(), small if abs(w) < 0.5 else large)


def test_a_tensor_weight_takes_pytorchs_form_per_entry(device):
    """Each entry takes the form its own weight picks: below 0.5 in abs, input + w (end -
    input), else end - (end - input)(1 - w); the forms differ in the last bit on some of
    these pairs, so bit equality checks the choice entry by entry (negative weights too)."""
    r = np.random.default_rng(1)
    x, e, w = r.standard_normal(256), r.standard_normal(256), r.uniform(-1.5, 1.5, 256)
    small, large = x + w * (e - x), e - (e - x) * (1 - w)
    picked = np.abs(w) < 0.5
    assert np.any((small != large) & picked) and np.any((small != large) & ~picked)
    got = tinyffn.lerp(*(tinyffn.tensor(a, device=device) for a in (x, e, w)))
    np.testing.assert_array_equal(got.numpy(), np.where(picked, small, large))


def test_float16_lerp_is_computed_in_float32_and_rounded_once(device):
    """As PyTorch computes it: in float16, end - input overflowed (lerp(-6e4, 6e4, 0.5)
    was -inf, not 0) and the three roundings were up to 24 units of the last place from
    torch 2.13; in float32, rounded once, it equals torch's on these values."""
    if device == "strict":
        pytest.skip("array_api_strict has no float16")
    r = np.random.default_rng(2)
    x16, e16 = (r.standard_normal(200) * 20).astype(np.float16), (r.standard_normal(200) * 20).astype(np.float16)
    w16 = r.uniform(-1.5, 1.5, 200).astype(np.float16)
    x32, e32, w32 = x16.astype(np.float32), e16.astype(np.float32), w16.astype(np.float32)
    want = np.where(np.abs(w32) < 0.5, x32 + w32 * (e32 - x32), e32 - (e32 - x32) * (1 - w32))
    x = tinyffn.tensor(x16, device=device, requires_grad=True)
    w = tinyffn.tensor(w16, device=device, requires_grad=True)
    y = tinyffn.lerp(x, tinyffn.tensor(e16, device=device), w)
    assert y.dtype == tinyffn.float16
    np.testing.assert_array_equal(y.numpy(), want.astype(np.float16))
    y.sum().backward()
    assert x.grad.dtype == tinyffn.float16 and w.grad.dtype == tinyffn.float16
    np.testing.assert_array_equal(w.grad.numpy(), (e32 - x32).astype(np.float16))
    far = tinyffn.tensor([-6e4, 6e4], dtype="float16", device=device)
    assert tinyffn.lerp(far[:1], far[1:], 0.5).tolist() == [0.0]
    assert tinyffn.lerp(far[:1], far[1:], 0.25).tolist() == [-30000.0]
    torch = pytest.importorskip("torch")
    theirs = torch.lerp(torch.tensor(x16), torch.tensor(e16), torch.tensor(w16))
    np.testing.assert_array_equal(y.numpy(), theirs.numpy())


def test_lerp_matches_torch_live_to_the_last_bit_or_so():
    """torch 2.13's CPU kernel fuses each multiply-add (an FMA, one rounding), tinyffn's
    mul and add round twice: up to one unit in the last place apart (10 of 64 at w=0.3)."""
    torch = pytest.importorskip("torch")
    r = np.random.default_rng(0)
    x, e = r.standard_normal(64), r.standard_normal(64)
    for w in (0.3, 0.5, 0.55, r.random(64)):
        tw = torch.tensor(w) if isinstance(w, np.ndarray) else w
        ours = tinyffn.lerp(tinyffn.tensor(x), tinyffn.tensor(e),
                            tinyffn.tensor(w) if isinstance(w, np.ndarray) else w)
        np.testing.assert_allclose(ours.numpy(),
                                   torch.lerp(torch.tensor(x), torch.tensor(e), tw).numpy(),
                                   rtol=2.3e-16, atol=2.3e-16)


def test_diag_written_out_in_numpy(device):
    v = np.array([3.0, -4.0, 0.5])
    for k in (0, 1, -2):
        got = tinyffn.diag(tinyffn.tensor(v, dtype="float64", device=device), k).numpy()
        np.testing.assert_array_equal(got, np.diag(v, k))
    x = np.array(X)
    for k in (0, 1, -1, 3, -2):
        np.testing.assert_array_equal(tinyffn.tensor(x, device=device).diag(k).numpy(),
                                      np.diag(x, k))


def test_diag_keeps_an_inf_off_the_zeros():
    """A where, not v times the identity: inf · 0 would be NaN (torch 2.13: [[inf, 0], [0, 1]])."""
    assert tinyffn.diag(tinyffn.tensor([math.inf, 1.0])).tolist() == [[math.inf, 0.0],
                                                                      [0.0, 1.0]]


# ----------------------------------------------------------------------------- lerp_: the EMA
def test_the_ema_idiom_updates_the_average_in_place(device):
    """ema_p.lerp_(p, 1 - decay) under no_grad: ema_p stays the same object, gets
    ema + (1 - decay)(p - ema), and no graph is recorded."""
    model = nn.Linear(3, 2, dtype="float64", device=device)
    ema = nn.Linear(3, 2, dtype="float64", device=device)
    before = [p.numpy() for p in ema.parameters()]
    decay = 0.9
    with tinyffn.no_grad():
        for ema_p, p in zip(ema.parameters(), model.parameters()):
            assert ema_p.lerp_(p, 1 - decay) is ema_p
    for old, ema_p, p in zip(before, ema.parameters(), model.parameters()):
        np.testing.assert_allclose(ema_p.numpy(), old + (1 - decay) * (p.numpy() - old),
                                   rtol=1e-15)
        assert ema_p.is_leaf and ema_p.requires_grad and isinstance(ema_p, nn.Parameter)


def test_lerp_in_place_follows_the_rules_of_x_minus_equals_y(device):
    p = tinyffn.tensor([1.0, 2.0], device=device, requires_grad=True)
    ema = tinyffn.zeros(2, device=device)
    with pytest.raises(RuntimeError, match=r"^lerp_: x or y requires grad, and tinyffn does "
                                           r"not record in-place ops.*x = x\.lerp\(\.\.\.\)"):
        ema.lerp_(p, 0.1)
    assert ema.tolist() == [0.0, 0.0]
    ema.lerp_(p.detach(), 0.5)                      # nothing needs a gradient: allowed
    assert ema.tolist() == [0.5, 1.0]
    h = tinyffn.zeros(2, dtype="float64", device=device)
    with tinyffn.no_grad():
        h.lerp_(p, 0.25)
    assert dtype_name(h.dtype) == "float64" and h.tolist() == [0.25, 0.5]
    if device != "strict":                      # (array_api_strict has no float16)
        h = tinyffn.zeros(2, dtype="float16", device=device)
        with tinyffn.no_grad():
            h.lerp_(p, 0.25)                    # a float32 result, cast back to float16
        assert h.dtype == tinyffn.float16 and h.tolist() == [0.25, 0.5]
    base = tinyffn.zeros(2, 2, device=device)
    with pytest.raises(RuntimeError, match=r"^lerp_: x was made from another tensor by x\[key\]"):
        base[0].lerp_(p.detach(), 0.5)
    with pytest.raises(RuntimeError, match=r"^lerp_: x\.lerp\(\.\.\.\) has shape \(2, 2\)"):
        ema.lerp_(base, 0.5)                        # would broadcast x to a new shape


def test_lerp_in_place_matches_torch_live():
    torch = pytest.importorskip("torch")
    t, p = torch.zeros(2, 3), torch.nn.Parameter(torch.tensor(X[0][:3] + X[1][:3]).reshape(2, 3))
    ours, q = tinyffn.zeros(2, 3), nn.Parameter(tinyffn.tensor(X[0][:3] + X[1][:3]).reshape(2, 3))
    with torch.no_grad():
        for _ in range(3):
            t.lerp_(p, 0.1)
    with tinyffn.no_grad():
        for _ in range(3):
            ours.lerp_(q, 0.1)
    np.testing.assert_allclose(ours.numpy(), t.numpy(), rtol=1e-7)


# ----------------------------------------------------------------------------- detach_
def test_detach_in_place_makes_a_leaf_as_pytorch(device):
    """torch 2.13: y = x * 2; z = y * 3; y.detach_() leaves y a leaf without grad and
    z's graph as it was: z.sum().backward() gives x.grad = 6."""
    x = tinyffn.tensor([1.0, 2.0], device=device, requires_grad=True)
    y = x * 2
    z = y * 3
    assert y.detach_() is y
    assert y.grad_fn is None and not y.requires_grad and y.is_leaf
    assert y.tolist() == [2.0, 4.0] and not (y * 5).requires_grad
    z.sum().backward()
    assert x.grad.tolist() == [6.0, 6.0]
    x.detach_()                                     # a leaf that required grad
    assert not x.requires_grad and x.grad.tolist() == [6.0, 6.0]


def test_detach_in_place_drops_a_retained_grad():
    x = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    z = (y * 3).sum()
    y.detach_()
    z.backward()
    assert y.grad is None and x.grad.tolist() == [6.0, 6.0]


def test_detach_in_place_refuses_views_as_pytorch():
    """torch 2.13: "Can't detach views in-place. Use detach() instead", also for a slice
    of a tensor without grad; x.detach().detach_() is allowed."""
    x = tinyffn.tensor([[1.0, 2.0]], requires_grad=True)
    z = tinyffn.zeros(2, 2)
    for view in (x[0], x.T, x.reshape(2), z[0]):
        with pytest.raises(RuntimeError, match=r"^detach_: x was made from another tensor by "
                                               r".*write x = x\.detach\(\)"):
            view.detach_()
    d = x.detach()
    assert d.detach_() is d and x.requires_grad
    three = (x * 3).grad_fn.parents[1]                 # the 3 in x * 3, shared by the graphs
    with pytest.raises(RuntimeError, match=r"^detach_: x is a shared constant"):
        three.detach_()


def test_detach_in_place_matches_torch_live():
    torch = pytest.importorskip("torch")
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = y * 3
    y.detach_()
    z.sum().backward()
    assert y.grad_fn is None and not y.requires_grad and y.is_leaf
    assert x.grad.tolist() == [6.0, 6.0]
    with pytest.raises(RuntimeError, match="Can't detach views in-place"):
        torch.zeros(2, 2)[0].detach_()
    x.detach().detach_()


# ----------------------------------------------------------------------------- the graph
def test_each_is_drawn_in_a_frame_of_its_name():
    x = tinyffn.tensor(X, requires_grad=True)
    for y, name in [(tinyffn.lerp(x, 1.0, 0.1), "lerp"), (x.lerp(x * 2, x), "lerp"),
                    (x.diag(), "diag"), (tinyffn.diag(x[0]), "diag"),
                    (x.diagonal(1), "diagonal"), (x.repeat_interleave(2), "repeat_interleave")]:
        assert [s.name for s in y.grad_fn.scope if s.kind == "function"][0] == name


def test_diagonal_tile_and_repeat_interleave_written_out_in_numpy(device):
    r = np.random.default_rng(0)
    a = r.standard_normal((3, 4, 5))
    t = tinyffn.tensor(a, device=device)
    for k, d1, d2 in ((0, 0, 1), (1, 1, 2), (-2, 2, 0), (3, -1, -2)):
        np.testing.assert_array_equal(t.diagonal(k, d1, d2).numpy(), np.diagonal(a, k, d1, d2))
    for dims in ((2,), (2, 1), (1, 3, 2, 1)):
        np.testing.assert_array_equal(tinyffn.tile(t, dims).numpy(), np.tile(a, dims))
    counts = [0, 2, 1, 3]
    np.testing.assert_array_equal(
        t.repeat_interleave(tinyffn.tensor(counts, device=device), dim=1).numpy(),
        np.repeat(a, counts, axis=1))
    np.testing.assert_array_equal(t.repeat_interleave(2).numpy(), np.repeat(a, 2))


def test_empty_like_is_zeros_like():
    x = tinyffn.tensor(X, requires_grad=True)
    e = tinyffn.empty_like(x, dtype=tinyffn.int64)
    assert dtype_name(e.dtype) == "int64" and e.shape == x.shape and not e.requires_grad
    assert e.tolist() == [[0] * 4] * 2 and tinyffn.empty_like(x, requires_grad=True).is_leaf
    p = tinyffn.tensor([2, 0, 1])
    inverse = tinyffn.empty_like(p)
    inverse[p] = tinyffn.arange(3)                                  # the idiom it serves
    assert inverse.tolist() == [1, 2, 0]


def test_max_and_min_of_two_tensors_are_maximum_and_minimum_as_pytorch():
    """PyTorch's torch.max(x, other) and x.max(other): ties share the gradient, as there."""
    x = tinyffn.tensor([1.0, 4.0, 2.0], requires_grad=True)
    y = tinyffn.tensor([3.0, 2.0, 2.0])
    for out in (tinyffn.max(x, y), x.max(y)):
        assert out.tolist() == [3.0, 4.0, 2.0]
    assert tinyffn.min(x, y).tolist() == x.min(y).tolist() == [1.0, 2.0, 2.0]
    tinyffn.max(x, y).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 0.5]


def test_is_tensor_counts_parameters():
    assert tinyffn.is_tensor(nn.Parameter(tinyffn.zeros(2)))
    assert not tinyffn.is_tensor(np.zeros(2)) and not tinyffn.is_tensor(None)


# ----------------------------------------------------------------------------- refusals
@pytest.mark.parametrize("call, error, match", [
    ("T.lerp(n, n, 0.5)", TypeError, r"lerp: input has dtype int64; .* cast with x\.float\(\)"),
    ("T.lerp(x, [1.0], 0.5)", TypeError, "lerp: end must be a Tensor or a number, got list"),
    ("T.lerp(x, x, n[0])", TypeError, "lerp: weight has dtype int64"),
    ("T.lerp(x, x, True)", TypeError, "lerp: weight must be a Tensor or a number, got bool"),
    ("T.lerp(X, x, 0.5)", TypeError, "lerp: input must be a tinyffn Tensor, got list"),
    ("T.lerp(x, x[:, :3], 0.5)", ValueError, r"lerp: shapes input \(2, 4\), end \(2, 3\) cannot "
                                             "be broadcast together"),
    ("T.lerp(x, x, T.ones(2, 3))", ValueError, r"lerp: shapes input \(2, 4\), end \(2, 4\), "
                                               r"weight \(2, 3\) cannot be broadcast"),
    ("x.lerp_(x[0].reshape(1, 1, 4), 0.5)", RuntimeError, r"lerp_: x\.lerp\(\.\.\.\) has shape "
                                                          r"\(1, 2, 4\)"),
    ("T.diag(x[0, 0])", ValueError, r"diag: takes a vector .* got shape \(\) \(0-D"),
    ("T.diag(x.reshape(1, 2, 4))", ValueError, r"got shape \(1, 2, 4\) \(3-D.*x\[\.\.\., i, i\]"),
    ("T.diag(x, 0.5)", TypeError, "diag: diagonal must be an int, got 0.5"),
    ("T.diag(X)", TypeError, "diag: input must be a tinyffn Tensor, got list"),
    ("T.diagonal(x[0])", ValueError, r"diagonal: needs at least 2 axes, got shape \(4,\)"),
    ("T.diagonal(x, 0, 1, -1)", ValueError, "dim1=1 and dim2=-1 must be two different axes"),
    ("T.diagonal(x, 0.5)", TypeError, "diagonal: offset must be an int, got 0.5"),
    ("T.tile(x, 2.0)", TypeError, "tile: dims must be a tuple of ints, got 2.0"),
    ("T.repeat_interleave(x, T.tensor([1, 2, 3]), dim=0)", ValueError,
     "repeat_interleave: repeats must have one count per slice along dim 0: 2, got 3"),
    ("T.repeat_interleave(x, -1)", ValueError, "repeats must be >= 0, got -1"),
    ("T.repeat_interleave(x, 2.0)", TypeError, "repeats must be an int or an integer tensor"),
    ("T.repeat_interleave(x, T.tensor([1.0]))", TypeError, "repeats must be an int or a 0-d"),
    ("T.repeat_interleave(x, 2, output_size=3)", ValueError, "output_size=3, but the repeats "
                                                             "add up to 16"),
    ("T.max(x, x, True)", TypeError, "max: with a tensor in place of dim, x.max.other. is "
                                     "the elementwise maximum, which takes no keepdim"),
    ("x.flip(0, dims=[1])", TypeError, "flip: takes the dims by position or as dims=, not both"),
    ("T.chunk(X, 2)", TypeError, "chunk: input must be a tinyffn Tensor, got list"),
    ("T.triu_indices(-1, 3)", ValueError, "triu_indices: row must be an int >= 0, got -1"),
    ("T.tril_indices(3, 3, 0.5)", ValueError, "tril_indices: offset must be an int, got 0.5"),
])
def test_errors_name_the_function_and_the_fix(call, error, match):
    names = {"T": tinyffn, "x": tinyffn.tensor(X), "X": X, "n": tinyffn.tensor([0, 1])}
    with pytest.raises(error, match=match):
        eval(call, {}, names)


EXPECTED = {
    'T.diag_embed(x)': ('float64', [[[0.5, 0.0, 0.0, 0.0], [0.0, -2.0, 0.0, 0.0], [0.0, 0.0, 3.0, 0.0], [0.0, 0.0, 0.0, 0.0]], [[-4.0, 0.0, 0.0, 0.0], [0.0, 1.5, 0.0, 0.0], [0.0, 0.0, 0.25, 0.0], [0.0, 0.0, 0.0, -0.5]]]),
    'T.diag_embed(v, 1)': ('float64', [[0.0, 3.0, 0.0, 0.0], [0.0, 0.0, -4.0, 0.0], [0.0, 0.0, 0.0, 0.5], [0.0, 0.0, 0.0, 0.0]]),
    'T.diag_embed(x, -2)': ('float64', [[[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.5, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, -2.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 3.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [-4.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 1.5, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.25, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, -0.5, 0.0, 0.0]]]),
    'x.diag_embed(1, 0, 2)': ('float64', [[[0.0, 0.5, 0.0, 0.0, 0.0], [0.0, -4.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, -2.0, 0.0, 0.0], [0.0, 0.0, 1.5, 0.0, 0.0]], [[0.0, 0.0, 0.0, 3.0, 0.0], [0.0, 0.0, 0.0, 0.25, 0.0]], [[0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, -0.5]], [[0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0]]]),
    'T.diag_embed(x.reshape(2, 2, 2), -1, 3, 1)': ('float64', [[[[0.0, 0.5, 0.0], [0.0, 3.0, 0.0]], [[0.0, 0.0, -2.0], [0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]], [[[0.0, -4.0, 0.0], [0.0, 0.25, 0.0]], [[0.0, 0.0, 1.5], [0.0, 0.0, -0.5]], [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]]),
    'T.diag_embed(x > 0)': ('bool', [[[True, False, False, False], [False, False, False, False], [False, False, True, False], [False, False, False, False]], [[False, False, False, False], [False, True, False, False], [False, False, True, False], [False, False, False, False]]]),
    'T.diag_embed(i, 0, -1, 0)': ('int64', [[[0, 0, 0], [4, 0, 0]], [[0, 4, 0], [0, 1, 0]], [[0, 0, 2], [0, 0, 3]]]),
    'T.lerp(x, e, 0.25)': ('float64', [[0.625, -1.25, 2.0, 0.5], [-3.0, 1.25, 0.25, 0.625]]),
    'T.lerp(x, e, 0.75)': ('float64', [[0.875, 0.25, 0.0, 1.5], [-1.0, 0.75, 0.25, 2.875]]),
    'T.lerp(x, e, 1.0)': ('float64', [[1.0, 1.0, -1.0, 2.0], [0.0, 0.5, 0.25, 4.0]]),
    'T.lerp(x, e, -0.5)': ('float64', [[0.25, -3.5, 5.0, -1.0], [-6.0, 2.0, 0.25, -2.75]]),
    'T.lerp(x, e, w)': ('float64', [[0.55, -0.5, -0.6000000000000001, 2.0], [-5.0, 1.01, 0.25, 8.5]]),
    'T.lerp(x, e[0], 0.3)': ('float64', [[0.65, -1.1, 1.8, 0.6], [-2.5, 1.35, -0.12499999999999999, 0.24999999999999997]]),
    'T.lerp(x, e, w[0])': ('float64', [[0.55, -0.5, -0.6000000000000001, 2.0], [-3.6, 1.0, 0.25, 4.0]]),
    'x.lerp(e, 0.5)': ('float64', [[0.75, -0.5, 1.0, 1.0], [-2.0, 1.0, 0.25, 1.75]]),
    'x.lerp(e, w)': ('float64', [[0.55, -0.5, -0.6000000000000001, 2.0], [-5.0, 1.01, 0.25, 8.5]]),
    'T.diag(v)': ('float64', [[3.0, 0.0, 0.0], [0.0, -4.0, 0.0], [0.0, 0.0, 0.5]]),
    'T.diag(v, 1)': ('float64', [[0.0, 3.0, 0.0, 0.0], [0.0, 0.0, -4.0, 0.0], [0.0, 0.0, 0.0, 0.5], [0.0, 0.0, 0.0, 0.0]]),
    'T.diag(v, -2)': ('float64', [[0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0], [3.0, 0.0, 0.0, 0.0, 0.0], [0.0, -4.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.5, 0.0, 0.0]]),
    'T.diag(x)': ('float64', [0.5, 1.5]),
    'T.diag(x, 1)': ('float64', [-2.0, 0.25]),
    'T.diag(x, -1)': ('float64', [-4.0]),
    'T.diag(x, 3)': ('float64', [0.0]),
    'T.diag(x, -5)': ('float64', []),
    'T.diag(x.mT, 2)': ('float64', []),
    'T.diag(i)': ('int64', [0, 1]),
    'T.diag(i[0], 1)': ('int64', [[0, 0, 0, 0], [0, 0, 4, 0], [0, 0, 0, 2], [0, 0, 0, 0]]),
    'T.diag(v[:0])': ('float64', []),
    'T.diag(v[:0], 2)': ('float64', [[0.0, 0.0], [0.0, 0.0]]),
    'T.diag(x > 0)': ('bool', [True, True]),
    'x.diag(2)': ('float64', [3.0, -0.5]),
    'v.diag(-1)': ('float64', [[0.0, 0.0, 0.0, 0.0], [3.0, 0.0, 0.0, 0.0], [0.0, -4.0, 0.0, 0.0], [0.0, 0.0, 0.5, 0.0]]),
    'T.is_tensor(x)': True,
    'T.is_tensor(3.0)': False,
    'T.is_tensor(X)': False,
    'T.diagonal(x)': ('float64', [0.5, 1.5]),
    'T.diagonal(x, 1)': ('float64', [-2.0, 0.25]),
    'T.diagonal(x, -1)': ('float64', [-4.0]),
    'x.diagonal(2, 1, 0)': ('float64', []),
    'T.diagonal(x.reshape(2, 2, 2), 0, 1, 2)': ('float64', [[0.5, 0.0], [-4.0, -0.5]]),
    'x.reshape(2, 2, 2).diagonal(1, -1, 0)': ('float64', [[-4.0], [0.25]]),
    'T.diagonal(x, 5)': ('float64', []),
    'i.diagonal(offset=1)': ('int64', [4, 3]),
    'T.tile(v, (2,))': ('float64', [3.0, -4.0, 0.5, 3.0, -4.0, 0.5]),
    'T.tile(x, (2,))': ('float64', [[0.5, -2.0, 3.0, 0.0, 0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5, -4.0, 1.5, 0.25, -0.5]]),
    'x.tile(2, 1, 1)': ('float64', [[[0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5]], [[0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5]]]),
    'v.tile((2, 2))': ('float64', [[3.0, -4.0, 0.5, 3.0, -4.0, 0.5], [3.0, -4.0, 0.5, 3.0, -4.0, 0.5]]),
    'T.tile(i, (1, 2))': ('int64', [[0, 4, 2, 0, 4, 2], [4, 1, 3, 4, 1, 3]]),
    'T.repeat_interleave(v, 2)': ('float64', [3.0, 3.0, -4.0, -4.0, 0.5, 0.5]),
    'x.repeat_interleave(2)': ('float64', [0.5, 0.5, -2.0, -2.0, 3.0, 3.0, 0.0, 0.0, -4.0, -4.0, 1.5, 1.5, 0.25, 0.25, -0.5, -0.5]),
    'x.repeat_interleave(2, dim=1)': ('float64', [[0.5, 0.5, -2.0, -2.0, 3.0, 3.0, 0.0, 0.0], [-4.0, -4.0, 1.5, 1.5, 0.25, 0.25, -0.5, -0.5]]),
    'T.repeat_interleave(x, T.tensor([1, 0]), dim=0)': ('float64', [[0.5, -2.0, 3.0, 0.0]]),
    'T.repeat_interleave(i[0])': ('int64', [1, 1, 1, 1, 2, 2]),
    'i.repeat_interleave(T.tensor([3]), dim=0)': ('int64', [[0, 4, 2], [0, 4, 2], [0, 4, 2], [4, 1, 3], [4, 1, 3], [4, 1, 3]]),
    'T.repeat_interleave(v, 2, output_size=6)': ('float64', [3.0, 3.0, -4.0, -4.0, 0.5, 0.5]),
    'T.chunk(x, 3, 1)': (('float64', [[0.5, -2.0], [-4.0, 1.5]]), ('float64', [[3.0, 0.0], [0.25, -0.5]])),
    'T.split(x, [1, 3], 1)': (('float64', [[0.5], [-4.0]]), ('float64', [[-2.0, 3.0, 0.0], [1.5, 0.25, -0.5]])),
    'T.split(v, 2)': (('float64', [3.0, -4.0]), ('float64', [0.5])),
    'T.max(x, e)': ('float64', [[1.0, 1.0, 3.0, 2.0], [0.0, 1.5, 0.25, 4.0]]),
    'x.min(e)': ('float64', [[0.5, -2.0, -1.0, 0.0], [-4.0, 0.5, 0.25, -0.5]]),
    'T.max(v, v.flip(0))': ('float64', [3.0, -4.0, 3.0]),
    'T.min(i, i.flip(1))': ('int64', [[0, 4, 0], [3, 1, 3]]),
    'x.flip(dims=[1])': ('float64', [[0.0, 3.0, -2.0, 0.5], [-0.5, 0.25, 1.5, -4.0]]),
    'T.triu_indices(3, 4, 1)': ('int64', [[0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3]]),
    'T.tril_indices(3, 3)': ('int64', [[0, 1, 1, 2, 2, 2], [0, 0, 1, 0, 1, 2]]),
    'T.tril_indices(2, 3, -1)': ('int64', [[1], [0]]),
    'T.triu_indices(3, 3, -1)': ('int64', [[0, 0, 0, 1, 1, 1, 2, 2], [0, 1, 2, 0, 1, 2, 1, 2]]),
    'T.triu_indices(0, 3)': ('int64', [[], []]),
    'T.argwhere(x > 0)': ('int64', [[0, 0], [0, 2], [1, 1], [1, 2]]),
    'x.argwhere()': ('int64', [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2], [1, 3]]),
}
EXPECTED_GRADS = {
    'T.diag_embed(x, 1) dx': ('float64', [[0.2, 0.8, 1.4, 2.0], [2.7, 3.3, 3.9, 4.5]]),
    'x.diag_embed(-1, 2, 0) dx': ('float64', [[0.2, 1.3, 2.4, 3.5], [0.7, 1.8, 2.9, 4.0]]),
    'T.diag_embed(v) dv': ('float64', [0.1, 0.5, 0.9]),
    'T.lerp(x, e, 0.25) dx': ('float64', [[0.07500000000000001, 0.15000000000000002, 0.22499999999999998, 0.30000000000000004], [0.375, 0.44999999999999996, 0.5249999999999999, 0.6000000000000001]]),
    'T.lerp(x, e, 0.75) de': ('float64', [[0.07500000000000001, 0.15000000000000002, 0.22499999999999998, 0.30000000000000004], [0.375, 0.44999999999999996, 0.5249999999999999, 0.6000000000000001]]),
    'T.lerp(x, e, w) dx': ('float64', [[0.09000000000000001, 0.1, 0.029999999999999992, 0.0], [0.625, 0.306, 0.34299999999999997, -0.8]]),
    'T.lerp(x, e, w) de': ('float64', [[0.010000000000000002, 0.1, 0.27, 0.4], [-0.125, 0.294, 0.357, 1.6]]),
    'T.lerp(x, e, w) dw': ('float64', [[0.05, 0.6000000000000001, -1.2, 0.8], [2.0, -0.6, 0.0, 3.6]]),
    'T.lerp(x, e[0], 0.3) de': ('float64', [[0.18, 0.24, 0.3, 0.36], [0.0, 0.0, 0.0, 0.0]]),
    'T.diag(v, 1) dv': ('float64', [0.2, 0.7, 1.2]),
    'T.diag(v, -2) dv': ('float64', [1.1, 1.7, 2.3]),
    'T.diag(x, 1) dx': ('float64', [[0.0, 0.1, 0.0, 0.0], [0.0, 0.0, 0.2, 0.0]]),
    'T.diag(x, -1) dx': ('float64', [[0.0, 0.0, 0.0, 0.0], [0.1, 0.0, 0.0, 0.0]]),
    'T.diag(x.mT) dx': ('float64', [[0.1, 0.0, 0.0, 0.0], [0.0, 0.2, 0.0, 0.0]]),
    'T.diagonal(x, 1) dx': ('float64', [[0.0, 0.1, 0.0, 0.0], [0.0, 0.0, 0.2, 0.0]]),
    'x.reshape(2, 2, 2).diagonal(1, -1, 0) dx': ('float64', [[0.0, 0.0, 0.0, 0.0], [0.1, 0.0, 0.2, 0.0]]),
    'T.tile(x, (2,)) dx': ('float64', [[0.6, 0.8, 1.0, 1.2000000000000002], [2.2, 2.4, 2.6, 2.8]]),
    'x.repeat_interleave(2, dim=1) dx': ('float64', [[0.30000000000000004, 0.7, 1.1, 1.5], [1.9, 2.3, 2.7, 3.1]]),
    'T.repeat_interleave(x, T.tensor([1, 3]), dim=0) dx': ('float64', [[0.1, 0.2, 0.3, 0.4], [2.7, 3.0, 3.3, 3.6]]),
    'T.max(v, v.flip(0)) dv': ('float64', [0.4, 0.2, 0.0]),
    'x.min(e) de': ('float64', [[0.0, 0.0, 0.3, 0.0], [0.0, 0.6, 0.35, 0.0]]),
}
