"""F.scaled_dot_product_attention (tinyffn/attention.py) and nn.MultiheadAttention
(tinyffn/attention_modules.py) against PyTorch 2.13.

Each case in ``CASES`` is one call, written once and run with tinyffn's and torch's names;
the MultiheadAttention cases load the same weights into both (``load_state_dict``, key for
key). References: torch live where it is installed, its values and gradients written out
in ``EXPECTED`` and ``EXPECTED_GRADS`` (computed once with torch 2.13; those run without
it, on every device), NumPy written out by hand, and gradcheck.
"""
import math
import re

import numpy as np
import pytest

import tinyffn
import torch_parity
from tinyffn import functional as F
from tinyffn import nn


def _values(*shape, start=0.0):
    """Fixed inputs that differ entry by entry: sin(1.3 i + start)."""
    return np.sin(1.3 * np.arange(math.prod(shape)) + start).reshape(shape)


INPUTS = dict(
    q=_values(2, 3, 2), k=_values(2, 4, 2, start=1.0), v=_values(2, 4, 3, start=2.0),
    h=_values(1, 4, 3, 2), kh=_values(1, 2, 4, 2, start=1.0), vh=_values(1, 2, 4, 3, start=2.0),
    x=_values(3, 2, 4, start=3.0), xb=_values(2, 3, 4, start=3.0),
    kk=_values(5, 2, 3, start=4.0), y5=_values(5, 4, start=6.0), vv=_values(5, 2, 5, start=5.0),
    mf=np.array([[0.0, -np.inf, 0.5, -1.0], [-np.inf] * 4, [1.0, 0.0, -2.0, 0.25]]),
)
BOOL_INPUTS = dict(
    mb=np.array([[True, False, True, True], [False] * 4, [True, True, False, True]]),
    mb2=np.array([[True, False, False, True], [True, True, True, True], [False, False, True, False]]),
    mp=np.array([[[True, True, True, False]], [[True, True, False, False]]]),      # (2, 1, 4)
    kpm=np.array([[False, False, True], [False, True, True]]),         # (N, S): True = padding
    kpm_full=np.array([[False, False, False], [True, True, True]]),    # batch 1: every key
    causal=np.triu(np.ones((3, 3), bool), 1),                          # True = not allowed
)

SDPA = "F.scaled_dot_product_attention"
CASES = [
    f"{SDPA}(q, k, v)", f"{SDPA}(q, k, v, is_causal=True)", f"{SDPA}(q, k, v, attn_mask=mb)",
    f"{SDPA}(q, k, v, attn_mask=mb2)", f"{SDPA}(q, k, v, attn_mask=mf)",
    f"{SDPA}(q, k, v, attn_mask=mp)", f"{SDPA}(q, k, v, scale=0.7)", f"{SDPA}(q[0], k, v)",
    f"{SDPA}(q[:, :2], k[:, :3], v[:, :3], is_causal=True)",
    f"{SDPA}(k, q, v[:, :3], is_causal=True)", f"{SDPA}(h, kh, vh, enable_gqa=True)",
    "mha()(x, x, x)", "mha()(x, x, x, need_weights=False)[0]",
    "mha(batch_first=True)(xb, xb, xb, average_attn_weights=False)",
    "mha()(x, x, x, key_padding_mask=kpm)", "mha()(x, x, x, key_padding_mask=kpm_full)",
    "mha()(x, x, x, key_padding_mask=kpm_full, need_weights=False)[0]",
    "mha()(x, x, x, attn_mask=causal, is_causal=True)",
    "mha()(x, x, x, attn_mask=causal, key_padding_mask=kpm, need_weights=False)[0]",
    "mha(kdim=3, vdim=5)(x, kk, vv)", "mha(bias=False)(x[:, 0], x[:, 0], x[:, 0])",
    "mha()(x[:, 1], y5, y5 * 2, need_weights=False)[0]",
]
# dL/d(input or parameter) for L = Σ y · (1, 2, 3, ...)/10
GRAD_CASES = [(f"{SDPA}(q, k, v)", w) for w in "qkv"] + [
    (f"{SDPA}(q, k, v, attn_mask=mb)", "q"), (f"{SDPA}(q, k, v, attn_mask=mb)", "k"),
    (f"{SDPA}(q, k, v, attn_mask=mf)", "mf"), (f"{SDPA}(q, k, v, is_causal=True)", "k"),
    (f"{SDPA}(h, kh, vh, enable_gqa=True)", "kh"), (f"{SDPA}(h, kh, vh, enable_gqa=True)", "vh"),
    ("mha()(x, x, x)[0]", "x"), ("mha()(x, x, x)[0]", "in_proj_weight"),
    ("mha()(x, x, x)[0]", "out_proj.weight"), ("mha()(x, x, x)[0]", "in_proj_bias"),
    ("mha()(x, x, x, key_padding_mask=kpm_full, need_weights=False)[0]", "x"),
    ("mha(batch_first=True)(xb, xb, xb, attn_mask=causal, is_causal=True)[0]", "xb"),
    ("mha(kdim=3, vdim=5)(x, kk, vv)[0]", "k_proj_weight"),
    ("mha(kdim=3, vdim=5)(x, kk, vv)[0]", "vv"),
]


def mha_weights(kw):
    """Fixed weights for an embed_dim 4 layer, by PyTorch's parameter names."""
    shapes = {"in_proj_weight": (12, 4), "in_proj_bias": (12,), "out_proj.weight": (4, 4),
              "out_proj.bias": (4,)}
    if "kdim" in kw:
        del shapes["in_proj_weight"]
        shapes.update(q_proj_weight=(4, 4), k_proj_weight=(4, kw["kdim"]),
                      v_proj_weight=(4, kw["vdim"]))
    if kw.get("bias") is False:
        shapes = {k: s for k, s in shapes.items() if "bias" not in k}
    return {k: 0.5 * _values(*s, start=i) for i, (k, s) in enumerate(sorted(shapes.items()))}


def run(module, case: str, requires_grad: str = "", dtype: str = "float64", **tensor_kwargs):
    """``case`` evaluated with ``module``'s names (tinyffn or torch), its inputs and weights
    in ``dtype``; the input or the layer's parameter named ``requires_grad`` is returned
    with the result."""
    f64 = getattr(module, dtype)
    inputs = {k: module.tensor(a.tolist(), dtype=f64, **tensor_kwargs) for k, a in INPUTS.items()}
    inputs.update({k: module.tensor(a.tolist(), **tensor_kwargs) for k, a in BOOL_INPUTS.items()})
    if requires_grad in inputs:
        inputs[requires_grad].requires_grad_(True)
    made = []

    def mha(**kw):
        layer = module.nn.MultiheadAttention(4, 2, dtype=f64, **kw, **tensor_kwargs)
        layer.load_state_dict({k: module.tensor(a.tolist(), dtype=f64, **tensor_kwargs)
                               for k, a in mha_weights(kw).items()})
        made.append(layer)
        return layer
    F_ = module.functional if module is tinyffn else module.nn.functional
    y = eval(case, {}, {"F": F_, "mha": mha, **inputs})
    return torch_parity.picked(y, inputs, made, requires_grad)


def grad_of(module, case: str, wrt: str, dtype: str = "float64", **tensor_kwargs):
    y, x = run(module, case, requires_grad=wrt, dtype=dtype, **tensor_kwargs)
    return torch_parity.weighted_grad(module, y, x, **tensor_kwargs)


plain = torch_parity.plain


def assert_same(actual, expected, case):
    torch_parity.assert_close(actual, expected, case, rtol=1e-10, atol=1e-14)


# live torch, EXPECTED(_GRADS) on every device, their check; a query whose keys are all
# padded gives NaN with need_weights=True, in both (NumPy warns as it computes it)
NAN_ROWS = pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
torch_parity.tests(globals(), marks=(NAN_ROWS,))


# ----------------------------------------------------------------------------- by hand
def numpy_attention(q, k, v, keep=None, scale=None):
    """softmax(q k^T · scale, masked where keep is False) v, in NumPy; a row with no key
    kept gives zeros (PyTorch 2.13's rule)."""
    s = q @ np.swapaxes(k, -1, -2) * (1 / math.sqrt(q.shape[-1]) if scale is None else scale)
    if keep is not None:
        s = np.where(keep, s, -np.inf)
    m = s.max(axis=-1, keepdims=True)
    e = np.exp(s - np.where(np.isfinite(m), m, 0))
    total = e.sum(axis=-1, keepdims=True)
    w = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return w @ v


@pytest.mark.parametrize("mask", [None, "mb", "causal"])
def test_numpy_by_hand(device, mask):
    q, k, v = INPUTS["q"], INPUTS["k"], INPUTS["v"]
    keep = {None: None, "mb": BOOL_INPUTS["mb"], "causal": np.tril(np.ones((3, 4), bool))}[mask]
    t = [tinyffn.tensor(a, device=device) for a in (q, k, v)]
    kw = {"mb": {"attn_mask": tinyffn.tensor(BOOL_INPUTS["mb"], device=device)},
          "causal": {"is_causal": True}}.get(mask, {})
    y = F.scaled_dot_product_attention(*t, **kw)
    np.testing.assert_allclose(y.numpy(), numpy_attention(q, k, v, keep), rtol=1e-12, atol=1e-15)
    if mask == "mb":                       # row 1 has no key: zeros, not NaN
        assert (y.numpy()[:, 1] == 0).all()


def test_a_float_mask_of_zeros_and_minus_inf_is_the_bool_mask(device):
    q, k, v = (tinyffn.tensor(INPUTS[n], device=device) for n in "qkv")
    keep = tinyffn.tensor(BOOL_INPUTS["mb2"], device=device)
    bias = tinyffn.zeros(3, 4, dtype="float64", device=device).masked_fill(~keep, -math.inf)
    a = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
    b = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
    np.testing.assert_array_equal(a.numpy(), b.numpy())


@NAN_ROWS
@pytest.mark.parametrize("kw", [{}, {"is_causal": True}])
def test_a_query_row_of_minus_inf_scores_gives_zeros_without_a_mask_too(device, kw):
    """PyTorch 2.13 zeros a row whose scores are all -inf whether or not a mask made them
    so: here a -inf in query row 1 against keys whose first feature is positive. Its output
    and its query's gradient are 0 (they were NaN); the other rows are untouched."""
    q = np.array([[1.0, 2.0], [-np.inf, 0.0], [0.5, 0.5]])
    k = np.array([[1.0, 0.0], [1.0, 0.5], [2.0, 1.0]])
    v = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    tq = tinyffn.tensor(q, device=device, requires_grad=True)
    y = F.scaled_dot_product_attention(tq, tinyffn.tensor(k, device=device),
                                       tinyffn.tensor(v, device=device), **kw)
    keep = np.tril(np.ones((3, 3), bool)) if kw else None
    np.testing.assert_allclose(y.numpy(), numpy_attention(q, k, v, keep), rtol=1e-12)
    assert (y.numpy()[1] == 0).all()
    y.sum().backward()
    assert (tq.grad.numpy()[1] == 0).all() and np.isfinite(tq.grad.numpy()).all()
    torch = pytest.importorskip("torch")
    b = [torch.tensor(a, requires_grad=True) for a in (q, k, v)]
    yb = torch.nn.functional.scaled_dot_product_attention(*b, **kw)
    yb.sum().backward()
    np.testing.assert_allclose(y.numpy(), yb.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(tq.grad.numpy(), b[0].grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("kw", [{}, {"is_causal": True}, {"attn_mask": "bool"},
                                {"attn_mask": "float"}])
@pytest.mark.parametrize("L, S", [(3, 0), (0, 3), (0, 0)])
def test_no_keys_or_no_queries_give_torchs_shapes(device, kw, L, S):
    """torch 2.13: with S = 0 keys each query gets zeros (L, Ev); with L = 0 the output is
    empty. With a mask the -inf-row test took the maximum of an empty axis and raised
    max's error about a (2, 3, 0) tensor the user never made."""
    q, k, v = (tinyffn.ones(2, n, w, dtype="float64", device=device, requires_grad=True)
               for n, w in ((L, 4), (S, 4), (S, 5)))
    if "attn_mask" in kw:
        kw = {"attn_mask": tinyffn.ones(L, S, device=device, dtype=kw["attn_mask"]
                                        if kw["attn_mask"] == "bool" else "float64")}
    y = F.scaled_dot_product_attention(q, k, v, **kw)
    assert y.shape == (2, L, 5) and (y.numpy() == 0).all()
    y.sum().backward()
    assert q.grad.shape == (2, L, 4) and (q.grad.numpy() == 0).all()


def test_float16_gives_float16_close_to_float64():
    q, k, v = (tinyffn.tensor(INPUTS[n] * 4) for n in "qkv")
    y = F.scaled_dot_product_attention(*(t.half() for t in (q, k, v)))
    assert y.dtype == tinyffn.float16
    ref = F.scaled_dot_product_attention(q, k, v).numpy()
    np.testing.assert_allclose(y.numpy().astype(float), ref, rtol=0, atol=4e-3)


# ----------------------------------------------------------------------------- gradcheck
@pytest.mark.parametrize("kw", [{}, {"is_causal": True}, {"attn_mask": "mb"}, {"attn_mask": "mf"},
                                {"scale": 0.3}])
def test_gradcheck_sdpa(device, kw):
    q, k, v = (tinyffn.tensor(INPUTS[n], device=device, requires_grad=True) for n in "qkv")
    extra = [] if "attn_mask" not in kw else [tinyffn.tensor(
        {**INPUTS, **BOOL_INPUTS}[kw["attn_mask"]], device=device,
        requires_grad=kw["attn_mask"] == "mf")]
    options = {k: w for k, w in kw.items() if k != "attn_mask"}
    assert tinyffn.gradcheck(
        lambda q, k, v, *m: F.scaled_dot_product_attention(q, k, v, *m, **options),
        [q, k, v, *extra])


def test_gradcheck_gqa(device):
    h, kh, vh = (tinyffn.tensor(INPUTS[n], device=device, requires_grad=True)
                 for n in ("h", "kh", "vh"))
    assert tinyffn.gradcheck(
        lambda a, b, c: F.scaled_dot_product_attention(a, b, c, enable_gqa=True), [h, kh, vh])


@pytest.mark.parametrize("need_weights", [True, False])
def test_gradcheck_multihead_attention_inputs_and_parameters(device, need_weights):
    mha = nn.MultiheadAttention(4, 2, kdim=3, dtype="float64", device=device)
    x = tinyffn.tensor(INPUTS["x"], device=device, requires_grad=True)
    kk = tinyffn.tensor(INPUTS["kk"], device=device, requires_grad=True)        # (S, N, 3)
    value = tinyffn.tensor(_values(5, 2, 4), device=device)                      # (S, N, 4)
    kpm = tinyffn.tensor([[False, False, False, True, True], [False, True, False, False, False]],
                         device=device)                                   # (N, S) = (2, 5)
    params = [p for n, p in mha.named_parameters()]
    assert len(params) == 6

    def f(x, kk, *params):                  # the parameters are perturbed in place
        y, w = mha(x, kk, value, key_padding_mask=kpm, need_weights=need_weights)
        return (y, w) if need_weights else y
    assert tinyffn.gradcheck(f, [x, kk, *params])


# ----------------------------------------------------------------------------- dropout
def test_dropout_zeroes_weights_at_rate_p_and_scales_the_rest():
    """v = I, so the output is the (dropped) weights themselves."""
    S, p = 64, 0.3
    q, k = tinyffn.randn(64, 8, dtype="float64"), tinyffn.randn(S, 8, dtype="float64")
    eye = tinyffn.eye(S, dtype="float64")
    kept = F.scaled_dot_product_attention(q, k, eye).numpy()                   # (64, S)
    dropped = F.scaled_dot_product_attention(q, k, eye, dropout_p=p).numpy()
    zero = dropped == 0
    n = zero.size
    assert abs(zero.mean() - p) < 5 * math.sqrt(p * (1 - p) / n)             # 4096 draws
    np.testing.assert_allclose(dropped[~zero], kept[~zero] / (1 - p), rtol=1e-12)
    tinyffn.manual_seed(5)
    a = F.scaled_dot_product_attention(q, k, eye, dropout_p=p).numpy()
    tinyffn.manual_seed(5)
    b = F.scaled_dot_product_attention(q, k, eye, dropout_p=p).numpy()
    np.testing.assert_array_equal(a, b)                          # the seed fixes the mask


def test_dropout_p_of_one_is_taken_and_drops_every_weight():
    """PyTorch takes dropout_p = 1 (the closed range [0, 1]): every weight dropped, so the
    output and every gradient are 0 (no 0/0 from the 1/(1 - p) rescaling)."""
    q, k, v = (tinyffn.tensor(INPUTS[n], requires_grad=True) for n in "qkv")
    y = F.scaled_dot_product_attention(q, k, v, dropout_p=1.0)
    (y * tinyffn.tensor(INPUTS["q"][..., :1] + 2)).sum().backward()
    assert y.shape == (2, 3, 3) and (y.numpy() == 0).all()
    for t in (q, k, v):
        assert (t.grad.numpy() == 0).all()


def test_dropped_positions_get_zero_gradient():
    """One query: out = Σ_j w_j m_j v_j, so value row j gets gradient w_j m_j gy: zero
    exactly where the weight was dropped, and only there."""
    S = 200
    q = tinyffn.randn(1, 4, dtype="float64")
    k = tinyffn.randn(S, 4, dtype="float64")
    v = tinyffn.eye(S, dtype="float64").requires_grad_(True)
    y = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)            # (1, S): weights
    (y * tinyffn.randn(1, S, dtype="float64")).sum().backward()
    dropped = y.detach().numpy()[0] == 0
    assert 50 < dropped.sum() < 150
    row_is_zero = (v.grad.numpy() == 0).all(axis=1)
    np.testing.assert_array_equal(row_is_zero, dropped)


def test_multihead_dropout_only_in_training():
    mha = nn.MultiheadAttention(4, 2, dropout=0.5, dtype="float64")
    x = tinyffn.tensor(INPUTS["x"])
    mha.eval()
    a, wa = mha(x, x, x)
    b, wb = mha(x, x, x)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    mha.train()
    c, wc = mha(x, x, x)
    assert (wc.numpy() != wa.numpy()).any()
    mha.dropout = 0.0
    d, _ = mha(x, x, x)
    np.testing.assert_allclose(d.numpy(), a.numpy(), rtol=1e-14)


# ----------------------------------------------------------------------------- float32, live
@NAN_ROWS
@pytest.mark.parametrize("case", CASES)
def test_float32_matches_torch(case):
    torch = pytest.importorskip("torch")
    y = plain(run(tinyffn, case, dtype="float32"))
    torch_parity.assert_close(y, plain(run(torch, case, dtype="float32")), case, rtol=1e-5,
                              atol=1e-6)
    assert (y[0] if isinstance(y[0], str) else y[0][0]) == "float32"


@pytest.mark.parametrize("case", GRAD_CASES, ids=torch_parity.grad_id)
def test_float32_gradients_match_torch(case):
    torch = pytest.importorskip("torch")
    torch_parity.assert_close(grad_of(tinyffn, *case, dtype="float32"),
                              grad_of(torch, *case, dtype="float32"), case, rtol=1e-5, atol=1e-5)



# ----------------------------------------------------------------------------- the layer
def test_parameters_are_pytorchs_names_shapes_and_init():
    mha = nn.MultiheadAttention(64, 4)
    shapes = {n: p.shape for n, p in mha.named_parameters()}
    assert shapes == {"in_proj_weight": (192, 64), "in_proj_bias": (192,),
                      "out_proj.weight": (64, 64), "out_proj.bias": (64,)}
    assert list(mha.state_dict()) == list(shapes)
    w = np.abs(mha.in_proj_weight.numpy())
    bound = math.sqrt(6 / (64 + 192))                       # xavier_uniform_, fans (64, 192)
    assert 0.95 * bound < w.max() <= bound
    assert np.abs(mha.out_proj.weight.numpy()).max() <= 1 / math.sqrt(64)   # Linear's own
    assert (mha.in_proj_bias.numpy() == 0).all() and (mha.out_proj.bias.numpy() == 0).all()
    assert mha.head_dim == 16 and type(mha.out_proj).__name__ == "NonDynamicallyQuantizableLinear"
    other = nn.MultiheadAttention(8, 2, kdim=3, vdim=5, bias=False)
    assert {n: p.shape for n, p in other.named_parameters()} == {
        "q_proj_weight": (8, 8), "k_proj_weight": (8, 3), "v_proj_weight": (8, 5),
        "out_proj.weight": (8, 8)}
    assert other.in_proj_weight is None and other.in_proj_bias is None


@pytest.mark.parametrize("kw", [{}, {"kdim": 3, "vdim": 5}, {"bias": False}])
def test_a_torch_layers_state_dict_loads_key_for_key(kw):
    torch = pytest.importorskip("torch")
    theirs = torch.nn.MultiheadAttention(8, 2, **kw)
    ours = nn.MultiheadAttention(8, 2, **kw)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    ours.load_state_dict(theirs.state_dict())
    for name, p in ours.state_dict().items():
        np.testing.assert_array_equal(p.numpy(), theirs.state_dict()[name].numpy())
    assert repr(ours) == repr(theirs)


def test_batch_first_is_the_transpose():
    a = nn.MultiheadAttention(4, 2, dtype="float64")
    b = nn.MultiheadAttention(4, 2, batch_first=True, dtype="float64")
    b.load_state_dict(a.state_dict())
    x = tinyffn.tensor(INPUTS["x"])                                    # (L, N, E)
    ya, wa = a(x, x, x)
    yb, wb = b(x.transpose(0, 1), x.transpose(0, 1), x.transpose(0, 1))
    np.testing.assert_allclose(yb.numpy(), ya.numpy().transpose(1, 0, 2), rtol=1e-14)
    np.testing.assert_allclose(wb.numpy(), wa.numpy(), rtol=1e-14)


def numpy_mha(q, k, v, params, H, mask=None):
    """nn.MultiheadAttention's output by hand, one (batch, head) pair at a time: q (L, N, E),
    k (S, N, kdim), v (S, N, vdim), params by PyTorch's names (NumPy), mask additive,
    broadcasting to (N, H, L, S)."""
    E = params["out_proj.weight"].shape[0]
    if "in_proj_weight" in params:
        wq, wk, wv = np.split(params["in_proj_weight"], 3)
    else:
        wq, wk, wv = (params[f"{n}_proj_weight"] for n in "qkv")
    bq, bk, bv = np.split(params.get("in_proj_bias", np.zeros(3 * E)), 3)
    Q, K, V = q @ wq.T + bq, k @ wk.T + bk, v @ wv.T + bv
    (L, N, _), S, hd = Q.shape, K.shape[0], E // H
    mask = np.zeros((N, H, L, S)) if mask is None else np.broadcast_to(mask, (N, H, L, S))
    heads = np.zeros((L, N, E))
    for n in range(N):
        for h in range(H):
            cols = slice(h * hd, (h + 1) * hd)
            s = Q[:, n, cols] @ K[:, n, cols].T / math.sqrt(hd) + mask[n, h]       # (L, S)
            w = np.exp(s - s.max(axis=1, keepdims=True))
            heads[:, n, cols] = (w / w.sum(axis=1, keepdims=True)) @ V[:, n, cols]
    return heads @ params["out_proj.weight"].T + params.get("out_proj.bias", 0)


def _mha_and_params(**kw):
    mha = nn.MultiheadAttention(4, 2, dtype="float64", **kw)
    mha.load_state_dict({k: tinyffn.tensor(a) for k, a in mha_weights(kw).items()})
    return mha, {k: p.numpy() for k, p in mha.state_dict().items()}


def test_a_mask_per_batch_and_head_is_read_batch_major_as_pytorchs():
    """attn_mask (N·H, L, S): entry n·H + h is for sequence n, head h (PyTorch's layout);
    each of the four differs, so reading it head-major mixes them up."""
    mha, params = _mha_and_params()
    x = INPUTS["x"]                                                     # (L, N, E) = (3, 2, 4)
    keep = np.ones((4, 3, 3), bool)
    keep[0, :, 0] = keep[1, :, 1] = keep[2, :, 2] = keep[3, 0, 1:] = False
    y, _ = mha(*(tinyffn.tensor(x),) * 3, attn_mask=tinyffn.tensor(~keep),
               need_weights=False)
    want = numpy_mha(x, x, x, params, 2, np.where(keep, 0.0, -np.inf).reshape(2, 2, 3, 3))
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-12, atol=1e-14)


def test_an_unbatched_query_takes_a_key_padding_mask_of_shape_S():
    mha, params = _mha_and_params()
    x = INPUTS["x"][:, 0]                                               # (L, E) = (3, 4)
    pad = np.array([False, True, False])
    y, w = mha(*(tinyffn.tensor(x),) * 3, key_padding_mask=tinyffn.tensor(pad))
    want = numpy_mha(x[:, None], x[:, None], x[:, None], params, 2,
                     np.where(pad, -np.inf, 0.0))[:, 0]
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-12, atol=1e-14)
    assert w.shape == (3, 3) and (w.numpy()[:, 1] == 0).all()


def test_vdim_alone_gives_separate_projections_and_the_right_output():
    """vdim != embed_dim with kdim = embed_dim still needs q/k/v_proj_weight (PyTorch's
    rule: one stacked in_proj_weight only when kdim = vdim = embed_dim)."""
    mha, params = _mha_and_params(kdim=4, vdim=5)
    fresh = nn.MultiheadAttention(4, 2, vdim=5)
    assert {n: p.shape for n, p in fresh.named_parameters()} == {
        "q_proj_weight": (4, 4), "k_proj_weight": (4, 4), "v_proj_weight": (4, 5),
        "in_proj_bias": (12,), "out_proj.weight": (4, 4), "out_proj.bias": (4,)}
    mha = nn.MultiheadAttention(4, 2, vdim=5, dtype="float64")
    mha.load_state_dict({k: tinyffn.tensor(a) for k, a in params.items()})
    x, vv = INPUTS["x"], INPUTS["vv"][:3]                               # (3, 2, 4), (3, 2, 5)
    y, _ = mha(tinyffn.tensor(x), tinyffn.tensor(x), tinyffn.tensor(vv))
    np.testing.assert_allclose(y.numpy(), numpy_mha(x, x, vv, params, 2), rtol=1e-12)


def test_batch_first_cross_attention_with_S_not_L():
    """batch_first: the batch is axis 0, so a query (N, L, E) against keys (N, S, E) with
    S != L is fine, and a key of another batch size is refused."""
    mha, params = _mha_and_params(batch_first=True)
    q, kv = INPUTS["xb"], INPUTS["y5"][None].repeat(2, axis=0) * [[[1.0]], [[-0.5]]]
    y, w = mha(tinyffn.tensor(q), tinyffn.tensor(kv), tinyffn.tensor(kv))   # (2, 3, 4), (2, 5, 4)
    want = numpy_mha(q.transpose(1, 0, 2), *(kv.transpose(1, 0, 2),) * 2, params, 2)
    np.testing.assert_allclose(y.numpy(), want.transpose(1, 0, 2), rtol=1e-12)
    assert w.shape == (2, 3, 5)
    with pytest.raises(ValueError, match=r"batch size.*batch_first=True: \(N, L, E\)"):
        mha(tinyffn.tensor(q), tinyffn.tensor(kv[:1]), tinyffn.tensor(kv[:1]))


def test_multihead_dropout_is_the_same_with_and_without_the_weights():
    """In training the fast path (need_weights=False) drops attention weights too, the same
    ones for the same seed (one draw of shape (N, H, L, S) either way)."""
    mha = nn.MultiheadAttention(4, 2, dropout=0.5, dtype="float64")
    x = tinyffn.tensor(INPUTS["x"])
    mha.eval()
    plain_y = mha(x, x, x, need_weights=False)[0].numpy()
    mha.train()
    tinyffn.manual_seed(3)
    a = mha(x, x, x)[0].numpy()
    tinyffn.manual_seed(3)
    b = mha(x, x, x, need_weights=False)[0].numpy()
    np.testing.assert_allclose(b, a, rtol=1e-12)
    assert not np.allclose(b, plain_y)


def test_multihead_attention_refuses_bad_sizes_and_dropout():
    for kw, match in [({"dropout": 1.5}, r"dropout must be a probability in \[0, 1\], got 1.5"),
                      ({"dropout": -0.1}, r"dropout .* got -0.1"),
                      ({"dropout": "0.1"}, r"dropout .* got '0.1'"),
                      ({"kdim": 0}, "kdim"), ({"vdim": -2}, "vdim")]:
        with pytest.raises(ValueError, match=match):
            nn.MultiheadAttention(4, 2, **kw)
    assert nn.MultiheadAttention(4, 2, dropout=1.0).dropout == 1.0


def test_the_graph_shows_one_frame_that_opens_into_matmul_and_softmax():
    q, k, v = (tinyffn.tensor(INPUTS[n], requires_grad=True) for n in "qkv")
    dot = tinyffn.to_dot(F.scaled_dot_product_attention(q, k, v, is_causal=True))
    assert 'label="scaled_dot_product_attention"' in dot and 'label="softmax"' in dot
    assert dot.count("matmul") >= 2


# ----------------------------------------------------------------------------- errors
def _t(*shape, dtype="float64"):
    return tinyffn.zeros(*shape, dtype=dtype)


@pytest.mark.parametrize("args, kw, error, match", [
    ((_t(2, 3, 4), _t(2, 5, 3), _t(2, 5, 6)), {}, ValueError,
     r"last axis E = 4 must equal the key's, 3.*query \(2, 3, 4\), key \(2, 5, 3\)"),
    ((_t(2, 3, 4), _t(2, 5, 4), _t(2, 4, 6)), {}, ValueError, r"one length S.*got 5 and 4"),
    ((_t(4), _t(5, 4), _t(5, 6)), {}, ValueError, r"at least 2-D.*query \(4,\)"),
    ((_t(2, 3, 4), _t(3, 5, 4), _t(3, 5, 6)), {}, ValueError, r"batch.*broadcast.*query \(2, 3, 4\)"),
    ((_t(2, 3, 4), _t(2, 5, 4, dtype="float32"), _t(2, 5, 6)), {}, TypeError,
     r"one dtype, got float64, float32, float64"),
    ((_t(3, 4), _t(5, 4), _t(5, 6)), {"attn_mask": tinyffn.ones(4, 5, dtype="bool")}, ValueError,
     r"attn_mask of shape \(4, 5\) does not broadcast to the scores' shape \(3, 5\)"),
    ((_t(3, 4), _t(5, 4), _t(5, 6)), {"attn_mask": tinyffn.ones(2, 3, 5, dtype="bool")},
     ValueError, r"attn_mask of shape \(2, 3, 5\)"),
    ((_t(3, 4), _t(5, 4), _t(5, 6)), {"attn_mask": _t(3, 5, dtype="float32")}, TypeError,
     r"attn_mask has dtype float32.*bool.*float64"),
    ((_t(3, 4), _t(5, 4), _t(5, 6)), {"attn_mask": tinyffn.ones(3, 5, dtype="bool"),
                                     "is_causal": True}, ValueError, r"not both"),
    ((_t(1, 6, 3, 4), _t(1, 4, 5, 4), _t(1, 4, 5, 6)), {"enable_gqa": True}, ValueError,
     r"key and value heads \(axis -3: 4, 4\) must be equal and divide the query heads \(6\)"),
    ((_t(3, 4), _t(5, 4), _t(5, 6)), {"dropout_p": 1.5}, ValueError, r"dropout_p .* \[0, 1\]"),
    ((_t(1, 4, 3, 4), _t(1, 2, 5, 4), _t(1, 2, 5, 6)), {}, ValueError,
     r"must broadcast.*key \(1, 2, 5, 4\).*grouped-query.*pass enable_gqa=True"),
    ((_t(2, 3, 4), _t(2, 5, 4), _t(2, 5, 6, dtype="float32")), {}, TypeError,
     r"one dtype, got float64, float64, float32"),
    ((_t(2, 3, 4, dtype="int64"),) * 3, {}, TypeError,
     r"dtype int64.*floating point.*\.float\(\)"),
    ((_t(2, 3, 4), _t(2, 5, 4), _t(3, 5, 6)), {}, ValueError,
     r"batch.*broadcast.*value \(3, 5, 6\)"),
    ((_t(3, 4), _t(5, 4), _t(5, 6)), {"attn_mask": np.ones((3, 5), bool)}, TypeError,
     r"attn_mask must be a tinyffn Tensor.*got numpy.ndarray"),
    ((_t(3, 4), _t(5, 4), _t(5, 6)), {"is_causal": "yes"}, TypeError,
     r"is_causal must be True or False, got 'yes'"),
    ((_t(3, 4), _t(5, 4), _t(5, 6)), {"enable_gqa": None}, TypeError,
     r"enable_gqa must be True or False, got None"),
    ((_t(3, 4), _t(5, 4), _t(5, 6)), {"scale": math.inf}, TypeError, r"scale must be a finite"),
    ((_t(3, 4), _t(5, 4), _t(5, 6)), {"scale": math.nan}, TypeError, r"scale must be a finite"),
    ((_t(3, 4), _t(5, 4), _t(5, 6)), {"enable_gqa": True}, ValueError,
     r"enable_gqa needs a heads axis.*query \(3, 4\)"),
    ((_t(1, 4, 3, 4), _t(1, 2, 5, 4), _t(1, 4, 5, 6)), {"enable_gqa": True}, ValueError,
     r"key and value heads \(axis -3: 2, 4\) must be equal"),
])
def test_sdpa_refuses_with_the_shapes_named(args, kw, error, match):
    with pytest.raises(error, match=match):
        F.scaled_dot_product_attention(*args, **kw)


def test_the_grouped_query_hint_comes_only_where_key_heads_divide_the_querys():
    """(1, 4, 3, 4) against (1, 2, 5, 4): 2 key heads serve 4 query heads, so the refusal
    says to pass enable_gqa=True; (2, 3, 4) against (3, 5, 4) is a batch of 2 against a
    batch of 3, where that hint would mislead."""
    with pytest.raises(ValueError, match="pass enable_gqa=True"):
        F.scaled_dot_product_attention(_t(1, 4, 3, 4), _t(1, 2, 5, 4), _t(1, 2, 5, 6))
    with pytest.raises(ValueError, match="must broadcast") as info:
        F.scaled_dot_product_attention(_t(2, 3, 4), _t(3, 5, 4), _t(3, 5, 6))
    assert "enable_gqa" not in str(info.value)
    with pytest.raises(ValueError, match="must broadcast") as info:    # one key head, and
        F.scaled_dot_product_attention(_t(2, 4, 3, 4), _t(3, 1, 5, 4), _t(3, 1, 5, 6))  # N clash
    assert "enable_gqa" not in str(info.value)


def test_multihead_attention_refuses_with_the_shapes_named():
    with pytest.raises(ValueError, match=r"embed_dim = 8 must be divisible by num_heads = 3"):
        nn.MultiheadAttention(8, 3)
    for flag in ("add_bias_kv", "add_zero_attn"):
        with pytest.raises(NotImplementedError, match=flag):
            nn.MultiheadAttention(8, 2, **{flag: True})
    mha = nn.MultiheadAttention(8, 2, dtype="float64")
    x = _t(3, 2, 8)
    cases = [
        ((_t(3, 2, 7), x, x), {}, r"query's last axis must be 8.*query \(3, 2, 7\)"),
        ((x[:, 0], x, x), {}, r"all be 3-D \(batched\) or all 2-D.*query \(3, 8\), key \(3, 2, 8\)"),
        ((x, _t(4, 2, 8), x), {}, r"one shape but the last axis.*key \(4, 2, 8\), value \(3, 2, 8\)"),
        ((x, _t(3, 5, 8), _t(3, 5, 8)), {}, r"batch size.*batch_first=False: \(L, N, E\)"),
        ((x, x, x), {"attn_mask": tinyffn.ones(2, 3, dtype="bool")},
         r"attn_mask has shape \(2, 3\); it must be \(L, S\) = \(3, 3\) or .* \(4, 3, 3\)"),
        ((x, x, x), {"attn_mask": tinyffn.ones(5, 3, 3, dtype="bool")}, r"\(5, 3, 3\)"),
        ((x, x, x), {"key_padding_mask": tinyffn.ones(3, 2, dtype="bool")},
         r"key_padding_mask has shape \(3, 2\); it must be \(N, S\) = \(2, 3\)"),
        ((x, x, x), {"is_causal": True}, r"is_causal=True .* needs attn_mask"),
    ]
    for args, kw, match in cases:
        with pytest.raises(ValueError, match=match):
            mha(*args, **kw)
    with pytest.raises(TypeError, match=r"attn_mask has dtype float32"):
        mha(x, x, x, attn_mask=_t(3, 3, dtype="float32"))
    # an unbatched input's mask is named as the user passed it, not as unsqueezed inside
    for shape in ((1, 3), (4,)):
        with pytest.raises(ValueError, match=r"unbatched \(2-D\) query the key_padding_mask "
                           rf"must be 1-D, \(S,\) = \(3,\).*got shape "
                           rf"{re.escape(str(shape))}") as info:
            mha(x[:, 0], x[:, 0], x[:, 0], key_padding_mask=tinyffn.zeros(*shape, dtype="bool"))
        assert ("mask[0]" in str(info.value)) == (len(shape) == 2)     # the hint for (1, S) only


# PyTorch 2.13's values (computed with torch; checked against it where it is installed)
nan = math.nan
EXPECTED = {
    'F.scaled_dot_product_attention(q, k, v)':
        ('float64', [[[0.257783400401639, -0.27858360300083107, -0.40682497535511786], [0.3559711531828122, 0.3078665360498986, -0.19126327765069784], [0.08345111551691303, -0.0003251610159444168, -0.0836250758986721]], [[-0.14750369153710619, -0.4666313852014445, -0.10214300634460302], [-0.21385769373109892, 0.3721893459754355, 0.41297812188106053], [-0.3292515377019507, -0.45603053744083516, 0.08527626853702254]]]),
    'F.scaled_dot_product_attention(q, k, v, is_causal=True)':
        ('float64', [[[0.9092974268256817, -0.1577456941432482, -0.9936910036334644], [0.1496051032537636, 0.405530622959082, 0.06735282997214387], [-0.08883226198868438, -0.13660395862853603, 0.015749464151454395]], [[-0.948844497918124, 0.05042268780681477, 0.9758205177669755], [-0.6349505046115838, -0.12059516404917264, 0.570432374369696], [0.05281033889518349, -0.258150416222655, -0.19092020679220265]]]),
    'F.scaled_dot_product_attention(q, k, v, attn_mask=mb)':
        ('float64', [[[0.33460561045343873, -0.4089903390740728, -0.5534144836956134], [0.0, 0.0, 0.0], [0.30851376359169924, 0.49700405868673414, -0.04261775655096503]], [[-0.6687288208721773, -0.2503910179163095, 0.5347702128907164], [0.0, 0.0, 0.0], [-0.384576429320045, -0.5917948167393265, 0.06796758879230122]]]),
    'F.scaled_dot_product_attention(q, k, v, attn_mask=mb2)':
        ('float64', [[[0.9083543835883201, 0.0702179548813511, -0.8707879422299691], [0.3559711531828122, 0.3078665360498986, -0.19126327765069784], [-0.3664791292519284, -0.9945525882039892, -0.1656041754483094]], [[-0.878721673490189, -0.5318736307391738, 0.5941705270921189], [-0.21385769373109892, 0.3721893459754355, 0.41297812188106053], [0.26408852138447286, 0.9999937428570207, 0.27090578830786904]]]),
    'F.scaled_dot_product_attention(q, k, v, attn_mask=mf)':
        ('float64', [[[0.11622289414563214, -0.6392040530469727, -0.45819556502993997], [0.0, 0.0, 0.0], [0.48234203720232016, 0.25078257379246, -0.3481739477444357]], [[-0.41910271652049824, 0.2042571170537839, 0.5283797956207441], [0.0, 0.0, 0.0], [-0.5380423488694355, -0.45767537941187, 0.2931870931034582]]]),
    'F.scaled_dot_product_attention(q, k, v, attn_mask=mp)':
        ('float64', [[[0.15373027087325464, -0.4276984656015064, -0.3825479479791274], [0.04141545733775839, 0.11202328960530503, 0.018516740158425735], [-0.08883226198868438, -0.13660395862853603, 0.015749464151454395]], [[0.19244755364816968, -0.5713837792209618, -0.49813653692156334], [-0.6349505046115838, -0.12059516404917264, 0.570432374369696], [0.01632347764551889, -0.47542666700989994, -0.27067563068959855]]]),
    'F.scaled_dot_product_attention(q, k, v, scale=0.7)':
        ('float64', [[[0.2581425078860803, -0.27561583787255495, -0.40559633544866563], [0.3552136831457514, 0.3058522014392778, -0.19158347191123512], [0.0852090516528543, 0.0004104280024908036, -0.08498947363305227]], [[-0.14890093311252273, -0.4638445387673851, -0.09925480845585141], [-0.2148215149873701, 0.36830609628000943, 0.411864413647765], [-0.3287911976971175, -0.45344458562599066, 0.08619940669489044]]]),
    'F.scaled_dot_product_attention(q[0], k, v)':
        ('float64', [[[0.257783400401639, -0.27858360300083107, -0.40682497535511786], [0.3559711531828122, 0.3078665360498986, -0.19126327765069784], [0.08345111551691303, -0.0003251610159444168, -0.0836250758986721]], [[-0.3948941590197904, -0.35432711541804285, 0.2053299823712802], [-0.10343033363103524, -0.05785371334248232, 0.07247873252964285], [-0.39350073784725914, 0.0904233177456667, 0.44187700100188915]]]),
    'F.scaled_dot_product_attention(q[:, :2], k[:, :3], v[:, :3], is_causal=True)':
        ('float64', [[[0.9092974268256817, -0.1577456941432482, -0.9936910036334644], [0.1496051032537636, 0.405530622959082, 0.06735282997214387]], [[-0.948844497918124, 0.05042268780681477, 0.9758205177669755], [-0.6349505046115838, -0.12059516404917264, 0.570432374369696]]]),
    'F.scaled_dot_product_attention(k, q, v[:, :3], is_causal=True)':
        ('float64', [[[0.9092974268256817, -0.1577456941432482, -0.9936910036334644], [-0.02520107814395464, 0.5351412284756287, 0.31150038167586147], [0.2813477329869503, -0.2736396839509879, -0.4277443228311335], [-0.08928177951353058, 0.20282058470459466, 0.19779031717239662]], [[-0.948844497918124, 0.05042268780681477, 0.9758205177669755], [-0.7067535296826963, -0.08147495351226262, 0.6631646204291498], [0.24173672254276524, -0.3835220050792923, -0.44692009676369193], [-0.16356814608928666, 0.45522458897220175, 0.40711223471163405]]]),
    'F.scaled_dot_product_attention(h, kh, vh, enable_gqa=True)':
        ('float64', [[[[0.257783400401639, -0.27858360300083107, -0.40682497535511786], [0.3559711531828122, 0.3078665360498986, -0.19126327765069784], [0.08345111551691303, -0.0003251610159444168, -0.0836250758986721]], [[0.4785242470813395, -0.034242220128472806, -0.49684375462908315], [0.051484659873196864, 0.4008580275736082, 0.16297344576820874], [0.3445144822961319, -0.2585383429224101, -0.4828318900687053]], [[-0.11759038020921397, 0.17284623642876107, 0.21006271176293914], [-0.42853911591063953, -0.09911380017650669, 0.37551346501514615], [-0.10963497856101184, -0.36307225352536665, -0.08460782648723683]], [[-0.28617937205670396, 0.3039521168291036, 0.44879304247620266], [-0.2503776317245459, -0.49964951584178713, -0.016933688696493865], [-0.14202107907972525, 0.3264272069334323, 0.31665887005150417]]]]),
    'mha()(x, x, x)':
        (('float64', [[[0.637158865957038, -0.3678989876291515, -0.9501827849465445, -0.3227043415942633], [0.46581903398459845, -0.6015977524396929, -0.997826487726194, -0.133649314853214]], [[0.4827666543675311, -0.7573411907655297, -1.1607109027117197, -0.13053400435883292], [0.8054869594865783, -0.8715220246109362, -1.5904224562298692, -0.41900722386070144]], [[1.0396727005699247, -0.6239799375718252, -1.5926530080605907, -0.6686394123375973], [0.8726804304352405, -0.3354838794605871, -1.155330312266792, -0.547349523013999]]]), ('float64', [[[0.2774679223159273, 0.32212107086414044, 0.40041100681993236], [0.6357435060998515, 0.21425529969021984, 0.15000119420992866], [0.15647178126779349, 0.6635493150795817, 0.17997890365262484]], [[0.3471934629393323, 0.14658831997563332, 0.5062182170850343], [0.6032052571314643, 0.20657456274443595, 0.19022018012409975], [0.25961667145357803, 0.5778630570515526, 0.1625202714948693]]])),
    'mha()(x, x, x, need_weights=False)[0]':
        ('float64', [[[0.637158865957038, -0.3678989876291516, -0.9501827849465445, -0.3227043415942633], [0.46581903398459845, -0.6015977524396929, -0.997826487726194, -0.13364931485321396]], [[0.4827666543675312, -0.7573411907655297, -1.16071090271172, -0.13053400435883294], [0.8054869594865783, -0.8715220246109362, -1.5904224562298692, -0.41900722386070144]], [[1.0396727005699247, -0.6239799375718253, -1.5926530080605907, -0.6686394123375973], [0.8726804304352405, -0.33548387946058705, -1.1553303122667917, -0.5473495230139991]]]),
    'mha(batch_first=True)(xb, xb, xb, average_attn_weights=False)':
        (('float64', [[[0.9134833871228278, -1.0988041609770554, -1.9113898238187041, -0.4924822128121129], [0.6568041322172105, -1.1432550788163987, -1.696362561037758, -0.24654358017884878], [0.6861775063469897, -1.1701406054780308, -1.750928570082868, -0.2707882233651393]], [[0.4537115694299445, 0.1183590296496655, -0.3110955131222661, -0.2101162763419796], [0.7122297455594477, 0.18819579749967924, -0.5041743092368378, -0.46087431390056033], [0.6721317128482804, 0.2020917893217713, -0.45105526885986297, -0.4249959937624711]]]), ('float64', [[[[0.3053701692162709, 0.2932024934128017, 0.40142733737092734], [0.41293726710245016, 0.36801146116956523, 0.21905127172798464], [0.3639463923024542, 0.45374911909986876, 0.1823044885976769]], [[0.3307627871752893, 0.32421144736661456, 0.3450257654580961], [0.6340768446050655, 0.25886985493822495, 0.10705330045670942], [0.5884708170341242, 0.30041103179772555, 0.11111815116815028]]], [[[0.380999417515729, 0.2272591262451219, 0.39174145623914913], [0.5250194449385935, 0.2755088248782493, 0.19947173018315728], [0.48466633559047706, 0.3437372376783792, 0.17159642673114367]], [[0.39252154096939473, 0.27164440130302814, 0.33583405772757713], [0.6892417672280718, 0.203228815677567, 0.10752941709436116], [0.6204624977050262, 0.25194353855743984, 0.1275939637375341]]]])),
    'mha()(x, x, x, key_padding_mask=kpm)':
        (('float64', [[[0.8796678633460501, -0.9428682948662779, -1.7314571941888004, -0.4798152055378385], [0.9880471915988683, -1.4462990462373486, -2.3115679221668626, -0.5199675486826081]], [[0.5083290965231834, -0.9873720204387543, -1.4018199020972983, -0.1264303463110001], [0.9880471915988683, -1.4462990462373486, -2.3115679221668626, -0.5199675486826081]], [[1.2074587120120486, -0.8778230682319478, -1.998298496721409, -0.7948996298282381], [0.9880471915988683, -1.4462990462373486, -2.3115679221668626, -0.5199675486826081]]]), ('float64', [[[0.4607473814904112, 0.5392526185095888, 0.0], [0.7537144314266666, 0.24628556857333345, 0.0], [0.1947173099953406, 0.8052826900046595, 0.0]], [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]])),
    'mha()(x, x, x, key_padding_mask=kpm_full)':
        (('float64', [[[0.637158865957038, -0.3678989876291515, -0.9501827849465445, -0.3227043415942633], [nan, nan, nan, nan]], [[0.4827666543675311, -0.7573411907655297, -1.1607109027117197, -0.13053400435883292], [nan, nan, nan, nan]], [[1.0396727005699247, -0.6239799375718252, -1.5926530080605907, -0.6686394123375973], [nan, nan, nan, nan]]]), ('float64', [[[0.2774679223159273, 0.32212107086414044, 0.40041100681993236], [0.6357435060998515, 0.21425529969021984, 0.15000119420992866], [0.15647178126779349, 0.6635493150795817, 0.17997890365262484]], [[nan, nan, nan], [nan, nan, nan], [nan, nan, nan]]])),
    'mha()(x, x, x, key_padding_mask=kpm_full, need_weights=False)[0]':
        ('float64', [[[0.637158865957038, -0.3678989876291516, -0.9501827849465445, -0.3227043415942633], [0.45464871341284085, -0.0788728470716241, -0.4968455018167322, -0.186938332415118]], [[0.4827666543675312, -0.7573411907655297, -1.16071090271172, -0.13053400435883294], [0.45464871341284085, -0.0788728470716241, -0.4968455018167322, -0.186938332415118]], [[1.0396727005699247, -0.6239799375718253, -1.5926530080605907, -0.6686394123375973], [0.45464871341284085, -0.0788728470716241, -0.4968455018167322, -0.186938332415118]]]),
    'mha()(x, x, x, attn_mask=causal, is_causal=True)':
        (('float64', [[[0.16799909453139544, -0.9510271688963328, -1.0274335623783872, 0.18803728547745166], [0.9880471915988683, -1.4462990462373486, -2.3115679221668626, -0.5199675486826081]], [[0.5083290965231834, -0.9873720204387543, -1.4018199020972983, -0.1264303463110001], [1.0185209198893528, -1.028517843757789, -1.9505667338221626, -0.5994786009646894]], [[1.0396727005699247, -0.6239799375718252, -1.5926530080605907, -0.6686394123375973], [0.8726804304352405, -0.3354838794605871, -1.155330312266792, -0.547349523013999]]]), ('float64', [[[1.0, 0.0, 0.0], [0.7537144314266666, 0.24628556857333345, 0.0], [0.15647178126779349, 0.6635493150795817, 0.17997890365262484]], [[1.0, 0.0, 0.0], [0.7422766528753201, 0.2577233471246799, 0.0], [0.25961667145357803, 0.5778630570515526, 0.1625202714948693]]])),
    'mha()(x, x, x, attn_mask=causal, key_padding_mask=kpm, need_weights=False)[0]':
        ('float64', [[[0.16799909453139544, -0.9510271688963328, -1.0274335623783872, 0.18803728547745166], [0.9880471915988683, -1.4462990462373486, -2.3115679221668626, -0.5199675486826081]], [[0.5083290965231835, -0.9873720204387544, -1.4018199020972986, -0.12643034631100017], [0.9880471915988683, -1.4462990462373486, -2.3115679221668626, -0.5199675486826081]], [[1.2074587120120484, -0.8778230682319479, -1.998298496721409, -0.7948996298282381], [0.9880471915988683, -1.4462990462373486, -2.3115679221668626, -0.5199675486826081]]]),
    'mha(kdim=3, vdim=5)(x, kk, vv)':
        (('float64', [[[0.3078153935470116, -0.7770764494342413, -1.0042522372886333, 0.035808240550127574], [0.3684372303438597, -0.864255503351329, -1.1465637543821816, -0.010363342085536853]], [[0.3393260886644484, -0.8725558777422749, -1.125230340263156, 0.017927152646445982], [0.3945525282602716, -0.8631072518100619, -1.1716031023187337, -0.03497429752033446]], [[0.31565770446588853, -0.8542661284010981, -1.0844238511041033, 0.03787444424177766], [0.4186991171065537, -0.980178424989974, -1.3054492838919804, -0.04332145925434941]]]), ('float64', [[[0.22539381568278727, 0.2121431994481324, 0.14200865120123682, 0.19555845347652578, 0.2248958801913178], [0.22188309501307263, 0.1788335727361913, 0.1769892322994385, 0.20407326890693234, 0.2182208310443653], [0.20445935158094564, 0.20226232128620386, 0.20434649269206057, 0.18806740279353598, 0.200864431647254]], [[0.18394423681273886, 0.21340083973870447, 0.2752262031376422, 0.15560053480742625, 0.1718281855034883], [0.19662646568529946, 0.20447576028839842, 0.20443805784667277, 0.19847687676952885, 0.19598283941010047], [0.17317456490945782, 0.22426442157052812, 0.22644129035866084, 0.20327124820456943, 0.1728484749567838]]])),
    'mha(bias=False)(x[:, 0], x[:, 0], x[:, 0])':
        (('float64', [[0.3637768357053298, -0.101747893422439, -0.4591180043815432, -0.32846098487138603], [0.16337630005743867, 0.1612169499907377, -0.012310642523718936, -0.17275243250430125], [-0.36966147600604804, -0.07842850725929522, 0.296171349693683, 0.35595093704534403]]), ('float64', [[0.23046549346646125, 0.1773641222488119, 0.5921703842847268], [0.5235029769133532, 0.27043608497494087, 0.2060609381117059], [0.19888758639242854, 0.5558627184688941, 0.24524969513867736]])),
    'mha()(x[:, 1], y5, y5 * 2, need_weights=False)[0]':
        ('float64', [[0.1503974664123361, -0.6933704197362968, -0.7683989693502554, 0.1731045868717919], [0.7109508443032906, -1.1602770877885058, -1.7664594630887516, -0.2952047056415422], [0.7661455606677421, -0.07587543391413394, -0.8055336730015148, -0.47918685443919884]]),
}
EXPECTED_GRADS = {
    'F.scaled_dot_product_attention(q, k, v) dq':
        ('float64', [[[-0.020685389033160518, -0.10274430537162346], [-0.07790985435696642, -0.27530166529242334], [-0.07668178157405192, -0.5883462784856721]], [[-0.4210732668110392, -0.27734688366064914], [-0.4475465077733853, -0.601857638120233], [-0.5964010386925274, -0.4284273663851282]]]),
    'F.scaled_dot_product_attention(q, k, v) dk':
        ('float64', [[[0.004800663597535006, 0.018226827104225917], [-0.15677648141091177, 0.011589532609147912], [0.201685801673875, -0.036508264993758206], [-0.04970998386049828, 0.0066919052803843795]], [[0.2585129828762176, 0.2865280190638682], [-0.1354821885479057, -0.1381342760776274], [-0.10123253979259365, -0.061821802539212774], [-0.02179825453571833, -0.08657194044702815]]]),
    'F.scaled_dot_product_attention(q, k, v) dv':
        ('float64', [[[0.24446879912787878, 0.31835379832053146, 0.39223879751318425], [0.34806031882930044, 0.41983496314658886, 0.4916096074638772], [0.32687102437655235, 0.41367583872524155, 0.5004806530739307], [0.28059985766626844, 0.3481353998076381, 0.4156709419490078]], [[0.7821955356503925, 0.8412914922299959, 0.9003874488095995], [1.1122949447498196, 1.2006598506852058, 1.2890247566205915], [0.8757459811011454, 0.9434450752429975, 1.0111441693848495], [1.1297635384986422, 1.2146035818418008, 1.2994436251849593]]]),
    'F.scaled_dot_product_attention(q, k, v, attn_mask=mb) dq':
        ('float64', [[[0.01332261493275669, -0.04458034204419538], [0.0, 0.0], [-0.22293222536674553, -0.3145465744670313]], [[-0.39690728236078854, -0.5413197389906872], [0.0, 0.0], [-0.3693411376736066, -0.1114163524941482]]]),
    'F.scaled_dot_product_attention(q, k, v, attn_mask=mb) dk':
        ('float64', [[[0.163382559399844, -0.046337248602259955], [-0.15089392465583548, 0.03674246217880516], [0.0, -0.021734100265069244], [-0.012488634744008582, 0.031328886688524044]], [[0.17808270902731343, 0.24710261916976675], [-0.05689125565131604, -0.13361042435192486], [0.25839562827253565, 0.08257390347843686], [-0.379587081648533, -0.1960660982962787]]]),
    'F.scaled_dot_product_attention(q, k, v, attn_mask=mf) dmf':
        ('float64', [[-0.040553759843147234, 0.0, 0.49653328734271396, -0.4559795274995666], [0.0, 0.0, 0.0, 0.0], [0.18834741956063156, 0.020071687166172275, -0.027369844447118957, -0.18104926227968504]]),
    'F.scaled_dot_product_attention(q, k, v, is_causal=True) dk':
        ('float64', [[[-0.060231027235986945, 0.1143137801323371], [-0.20275770677704655, -0.0502763867451273], [0.2629887340130336, -0.06403739338720982], [0.0, 0.0]], [[-0.11739220559388411, 0.010472748257211395], [-0.027348999340738017, -0.35040080207010726], [0.1447412049346221, 0.3399280538128958], [0.0, 0.0]]]),
    'F.scaled_dot_product_attention(h, kh, vh, enable_gqa=True) dkh':
        ('float64', [[[[0.015445767150502464, 0.10779171724424404], [-0.24376932976162716, -0.04031484318990607], [0.03254202950722318, -0.32526452613625917], [0.1957815331039015, 0.2577876520819214]], [[0.5831120739419188, 0.66585014564998], [-0.12535287127014003, 0.7052390234368122], [-0.7344534166704357, -1.7166730306061253], [0.27669421399865685, 0.3455838615193327]]]]),
    'F.scaled_dot_product_attention(h, kh, vh, enable_gqa=True) dvh':
        ('float64', [[[[1.4401320432083322, 1.6059908933618594, 1.771849743515387], [1.270334048696319, 1.4137082070392135, 1.5570823653821078], [1.3172469379148781, 1.4771449153960259, 1.6370428928771739], [1.0722869701804711, 1.2031559842029012, 1.3340249982253316]], [[3.7669070711584727, 3.910323385552136, 4.0537396999458], [3.8519574319936494, 3.9975254206232846, 4.14309340925292], [4.769432062651647, 4.948074158001489, 5.126716253351331], [3.511703434196232, 3.6440770358230905, 3.776450637449949]]]]),
    'mha()(x, x, x)[0] dx':
        ('float64', [[[-0.8728697819844052, -0.1871335343170779, 0.7727537795320101, 0.6005549959971483], [-1.963517136821038, -0.7024808088031337, 1.5876915498488562, 1.5518920684065818]], [[-1.7803316560886002, -0.5260574991169368, 1.498892126482679, 1.3279612752544032], [-1.3993653796000225, -0.28426429009861526, 1.2472846503576624, 0.9515586559628213]], [[-0.03024216377404154, -0.27702897886013605, -0.11796769090626272, 0.21391654059419143], [-0.825185962089144, -0.5950397261610284, 0.5068411026228027, 0.8661985286618176]]]),
    'mha()(x, x, x)[0] din_proj_weight':
        ('float64', [[-0.10930782372809372, 0.022643035340464773, 0.12142179458825278, 0.04231734030324136], [0.8152644220223719, 0.029582352048215133, -0.7994379329806579, -0.4572797733089919], [0.34493172498849956, -0.06314725015843642, -0.3787153558849914, -0.13946457800432244], [-0.3260064354200735, -0.15715288372846908, 0.24193001079539167, 0.2865848727222714], [0.7211546962066915, 0.35591909827833856, -0.5307388124575415, -0.6398631195543331], [-1.394739591692576, -0.9033689851661945, 0.9114393009970976, 1.3909868759244683], [-1.1666970251899789, 0.15553584559171912, 1.2499083381998184, 0.5131621871213942], [0.21891619157983838, 0.1264737276502757, -0.15125304358337083, -0.20739375161918638], [0.9270578053448628, 0.5443794536042909, -0.6358160730119781, -0.8845395631070677], [0.5665719662447599, 0.25977102713835787, -0.42759507530452506, -0.4885333906775623], [-0.6783306829732043, -0.5669833826733404, 0.37499590154375284, 0.7676053114772895], [-0.8924261608015729, -0.6140849459588613, 0.5638921533615927, 0.9157659269485047]]),
    'mha()(x, x, x)[0] dout_proj.weight':
        ('float64', [[-3.9472717797723416, -3.749417385318706, 1.2931007334819082, 4.65652761962846], [-4.287309611173548, -4.035592339446619, 1.4562333192157455, 5.009063943940879], [-4.627347442574754, -4.321767293574531, 1.6193659049495828, 5.361600268253296], [-4.967385273975959, -4.607942247702445, 1.7824984906834198, 5.714136592565714]]),
    'mha()(x, x, x)[0] din_proj_bias':
        ('float64', [0.6294877891738074, -2.759948396158715, -1.4460834338825985, 1.0600340866895281, 8.326672684688674e-17, -9.71445146547012e-17, 0.0, -2.7755575615628914e-16, 5.702502622165486, 3.648626239216735, -3.7504961320066594, -5.655132883362388]),
    'mha()(x, x, x, key_padding_mask=kpm_full, need_weights=False)[0] dx':
        ('float64', [[[-0.8728697819844051, -0.18713353431707808, 0.77275377953201, 0.6005549959971485], [0.0, 0.0, 0.0, 0.0]], [[-1.7803316560885998, -0.5260574991169368, 1.498892126482679, 1.327961275254403], [0.0, 0.0, 0.0, 0.0]], [[-0.03024216377404157, -0.277028978860136, -0.11796769090626266, 0.21391654059419146], [0.0, 0.0, 0.0, 0.0]]]),
    'mha(batch_first=True)(xb, xb, xb, attn_mask=causal, is_causal=True)[0] dxb':
        ('float64', [[[-1.035180137212846, -0.5379913360023976, 0.7473560328312098, 0.9378250626981319], [-0.708638699140837, 0.0721542040851337, 0.7472410292870615, 0.3276179959839062], [-0.06671651389103127, -0.005171856289594108, 0.06394958289246894, 0.03938473331912684]], [[-3.999489820895879, -0.8320996693587557, 3.5543184471911324, 2.7336517117235357], [-0.9398564021820826, 0.2595704472919249, 1.0787259833743819, 0.31754542662718227], [-0.1598805112588982, -0.007854718064518183, 0.1556782554960282, 0.09114222003953183]]]),
    'mha(kdim=3, vdim=5)(x, kk, vv)[0] dk_proj_weight':
        ('float64', [[-0.0977808784671601, -0.21944460983569672, -0.019621473690895508], [-0.15694538392761243, -0.30509241675469617, -0.006278344280637699], [-0.02686144131768872, 0.02290962849910834, 0.03911803889316047], [-0.24693269074817892, -0.27337123497766286, 0.10067972047581628]]),
    'mha(kdim=3, vdim=5)(x, kk, vv)[0] dvv':
        ('float64', [[[-0.0980181496497674, -0.1933541391488474, -0.005425861814296606, 0.19045131578964145, 0.10731686958177714], [-0.08021584080855818, -0.2426616634630647, -0.049607580648368815, 0.2161217240343885, 0.16523219668741887]], [[-0.15857261065469974, -0.14966165818513755, 0.07850397414562454, 0.19166110043779686, 0.024034265574395197], [0.02772731982234644, -0.3363737140852373, -0.20768646881815173, 0.22526193982517323, 0.3282010788920233]], [[-0.15489372750432437, -0.14587594095843007, 0.07685044084254558, 0.18699074676775862, 0.023189170605478676], [-0.22542888149343712, -0.2483498667673394, 0.09256228459476623, 0.2978704721751713, 0.06679772018265545]], [[-0.06266867376141494, -0.18892599039782604, -0.03840628849490185, 0.1683787160294181, 0.12848850710126422], [-0.30189060872138906, -0.16921930301917368, 0.21135867804479316, 0.2822957006124211, -0.06033113956563396]], [[-0.08427069210315141, -0.1954792823125532, -0.020310265974814334, 0.18461333759792045, 0.11907796908665233], [-0.11261102977786203, -0.2260265661387707, -0.008312653582455642, 0.2215793159466335, 0.12685706850877881]]]),
}


# ------------------------------------------------- nn.attention.sdpa_kernel (nn_attention.py)
# torch 2.13 under sdpa_kernel(SDPBackend.MATH): the norm of each parameter's block of the
# Hessian-vector product in _hvp_through_encoder_layer
TORCH_HVP_NORMS = [3.0365813267311283, 2.993482846769104, 2.8469421849535657, 2.7157218504676948,
                   5.856447505452811, 3.7106446677552984, 5.792504764408722, 4.188279577986928,
                   4.57000772267884, 4.317828062294367, 3.4278926781013364, 0.939263837338201]


def _hvp_through_encoder_layer(lib, attention):
    """A Hessian-vector product of a causal TransformerEncoderLayer's loss, as a program
    written for PyTorch computes it (which on the CPU needs the MATH kernel: its fused one
    has no double backward); written once for tinyffn and torch."""
    layer = lib.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, batch_first=True)
    with lib.no_grad():
        for i, (_, p) in enumerate(layer.named_parameters()):
            p.copy_(lib.tensor(0.5 * np.sin(np.arange(p.numel()) + i).reshape(tuple(p.shape)),
                               dtype=lib.float64))
    params = list(layer.parameters())
    x = lib.tensor(np.cos(np.arange(24.0)).reshape(2, 3, 4), dtype=lib.float64)
    mask = lib.nn.Transformer.generate_square_subsequent_mask(3, dtype=lib.float64)
    with attention.sdpa_kernel(attention.SDPBackend.MATH):
        y = layer(x, is_causal=True, src_mask=mask)
        loss = (y * lib.tensor(np.sin(np.arange(24.0) * 0.7).reshape(2, 3, 4))).tanh().sum()
        grads = lib.autograd.grad(loss, params, create_graph=True)
        vs = [lib.tensor(np.cos(np.arange(p.numel()) * 0.3 + i).reshape(tuple(p.shape)))
              for i, p in enumerate(params)]
        hv = lib.autograd.grad(sum((g * v).sum() for g, v in zip(grads, vs)), params)
    return [float((h * h).sum()) ** 0.5 for h in hv]


def test_sdpa_kernel_lets_a_pytorch_hessian_vector_product_run_unchanged():
    before_tiny = tinyffn.get_default_dtype()
    tinyffn.set_default_dtype(tinyffn.float64)
    try:
        got = _hvp_through_encoder_layer(tinyffn, nn.attention)
    finally:
        tinyffn.set_default_dtype(before_tiny)
    np.testing.assert_allclose(got, TORCH_HVP_NORMS, rtol=1e-12)


def test_sdpa_kernel_matches_torch_live():
    torch = pytest.importorskip("torch")
    from torch.nn import attention as torch_attention
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    before_tiny = tinyffn.get_default_dtype()
    tinyffn.set_default_dtype(tinyffn.float64)
    try:
        want = _hvp_through_encoder_layer(torch, torch_attention)
        got = _hvp_through_encoder_layer(tinyffn, nn.attention)
    finally:
        torch.set_default_dtype(before)
        tinyffn.set_default_dtype(before_tiny)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_sdpa_kernel_is_importable_by_torchs_path_and_checks_its_argument():
    from tinyffn.nn.attention import SDPBackend, sdpa_kernel
    x = tinyffn.tensor(_values(2, 3, 2))
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.MATH], set_priority=True):
        inside = F.scaled_dot_product_attention(x, x, x)
    np.testing.assert_array_equal(inside.numpy(), F.scaled_dot_product_attention(x, x, x).numpy())
    # PyTorch 2.13's members and numbers (torch.nn.attention.SDPBackend.__members__)
    assert {m.name: int(m) for m in SDPBackend} == {
        "ERROR": -1, "MATH": 0, "FLASH_ATTENTION": 1, "EFFICIENT_ATTENTION": 2,
        "CUDNN_ATTENTION": 3, "OVERRIDEABLE": 4}
    # printed by name, as PyTorch's (an IntEnum prints its number since Python 3.11)
    assert str(SDPBackend.MATH) == f"{SDPBackend.MATH}" == "SDPBackend.MATH"
    assert repr(SDPBackend.MATH) == "<SDPBackend.MATH: 0>" and SDPBackend.MATH == 0
    with sdpa_kernel(SDPBackend.MATH) as given, sdpa_kernel([]) as empty:
        assert given == empty == {}                 # PyTorch's context manager yields {}
    # PyTorch 2.13 refuses a tuple, a set, a string: AssertionError("Backend must be an
    # instance of SDPBackend or a list of SDPBackend instances, got tuple")
    for bad, name in [((SDPBackend.MATH, SDPBackend.CUDNN_ATTENTION), "tuple"), ((), "tuple"),
                      ({SDPBackend.MATH}, "set"), ("math", "str"), (0, "int"), (None, "None")]:
        with pytest.raises(TypeError, match=r"sdpa_kernel: backends must be an instance of "
                                            rf"SDPBackend or a list of SDPBackend instances.*"
                                            rf"got {name}"):
            with sdpa_kernel(bad):
                pass
    with pytest.raises(TypeError, match=r"got tuple; write a list, \[SDPBackend.MATH, "
                                        r"SDPBackend.CUDNN_ATTENTION\]"):
        with sdpa_kernel((SDPBackend.MATH, SDPBackend.CUDNN_ATTENTION)):
            pass
    with pytest.raises(TypeError, match="the list must hold SDPBackend members.*got str"):
        with sdpa_kernel([SDPBackend.MATH, "flash"]):   # torch: every kernel disabled
            pass


def test_sdpa_kernel_takes_and_refuses_what_torchs_does():
    pytest.importorskip("torch")
    from torch.nn.attention import SDPBackend as TB, sdpa_kernel as torch_kernel
    from tinyffn.nn.attention import SDPBackend, sdpa_kernel
    for ours, theirs in [(SDPBackend.MATH, TB.MATH), ([SDPBackend.MATH], [TB.MATH]), ([], []),
                         ((SDPBackend.MATH,), (TB.MATH,)), ({SDPBackend.MATH}, {TB.MATH}),
                         ("math", "math"), (None, None)]:
        try:
            with torch_kernel(theirs) as want:
                pass
        except AssertionError:
            with pytest.raises(TypeError, match="must be an instance of SDPBackend or a list"):
                with sdpa_kernel(ours):
                    pass
        else:
            with sdpa_kernel(ours) as got:
                assert got == want
