"""nn.TransformerEncoderLayer, nn.TransformerEncoder and
nn.Transformer.generate_square_subsequent_mask (tinyffn/transformer_modules.py) against
PyTorch 2.13 (the decoder and nn.Transformer: test_transformer_decoder.py).

Each case in ``CASES`` is one call, written once and run with tinyffn's and torch's names;
the layers load the same weights into both (``load_state_dict``, key for key) and run in
eval mode (dropout off). References: torch live where it is installed, its values and
gradients written out in ``EXPECTED`` and ``EXPECTED_GRADS`` (computed once with torch
2.13; those run without it, on every device), NumPy by hand, and gradcheck.
"""
import math

import numpy as np
import pytest

import tinyffn
import torch_parity
from tinyffn import nn
from tinyffn.backend import dtype_name

D, H, D_FF = 4, 2, 6


def _values(*shape, start=0.0):
    """Fixed inputs that differ entry by entry: sin(1.3 i + start)."""
    return np.sin(1.3 * np.arange(math.prod(shape)) + start).reshape(shape)


INPUTS = dict(x=_values(3, 2, D, start=3.0), xb=_values(2, 3, D, start=3.0))   # (T, N, d)
BOOL_INPUTS = dict(
    kpm=np.array([[False, False, True], [False, True, True]]),     # (N, T): True = padding
    causal=np.triu(np.ones((3, 3), bool), 1),                      # True = not allowed
)

CASES = [
    "tel()(x)", "tel(norm_first=True)(x)", "tel(activation='gelu')(x)",
    "tel(activation='gelu', norm_first=True, batch_first=True)(xb)",
    "tel(batch_first=True)(xb, src_key_padding_mask=kpm)",
    "tel()(x, src_mask=gsm(3, dtype=f64), is_causal=True)",
    "tel(norm_first=True)(x, src_mask=causal, src_key_padding_mask=kpm)",
    "tel(bias=False, layer_norm_eps=0.1)(x[:, 0])",
    "tel(activation=act_module)(x)", "enc(2)(x, mask=gsm(3, dtype=f64))",
    "enc(2, norm_first=True, final_norm=True)(x, src_key_padding_mask=kpm)",
    "gsm(4)", "gsm(2, dtype=f64)",
]
PARAMETERS = ["self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight",
              "self_attn.out_proj.bias", "linear1.weight", "linear1.bias", "linear2.weight",
              "linear2.bias", "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias"]
# dL/d(input or parameter) for L = Σ y · (1, 2, 3, ...)/10
GRAD_CASES = [(c, w) for c in ("tel()(x, src_mask=gsm(3, dtype=f64), is_causal=True)",
                               "tel(activation='gelu', norm_first=True)(x, "
                               "src_key_padding_mask=kpm)")
              for w in ["x"] + PARAMETERS] + [
    ("tel(batch_first=True)(xb, src_key_padding_mask=kpm)", "xb"),
    ("enc(2)(x, mask=gsm(3, dtype=f64))", "x"),
    ("enc(2)(x, mask=gsm(3, dtype=f64))", "layers.0.linear1.weight"),
]


def layer_weights(names_shapes):
    """Fixed weights, 0.5·sin(...) from a start that differs name by name; LayerNorm gains
    around 1, so the norms' scaling is not near zero."""
    out = {}
    for i, (k, s) in enumerate(sorted(names_shapes.items())):
        w = 0.5 * _values(*s, start=i)
        out[k] = 1 + w if k.endswith("norm1.weight") or k.endswith("norm2.weight") else w
    return out


def run(module, case: str, requires_grad: str = "", dtype: str = "float64", **tensor_kwargs):
    """``case`` evaluated with ``module``'s names (tinyffn or torch), its inputs and weights
    in ``dtype``, layers in eval mode; the input or the layer's parameter named
    ``requires_grad`` is returned with the result."""
    f64 = getattr(module, dtype)
    inputs = {k: module.tensor(a.tolist(), dtype=f64, **tensor_kwargs) for k, a in INPUTS.items()}
    inputs.update({k: module.tensor(a.tolist(), **tensor_kwargs) for k, a in BOOL_INPUTS.items()})
    if requires_grad in inputs:
        inputs[requires_grad].requires_grad_(True)
    made = []

    def loaded(layer):
        shapes = {k: tuple(v.shape) for k, v in layer.state_dict().items()}
        layer.load_state_dict({k: module.tensor(a.tolist(), dtype=f64, **tensor_kwargs)
                               for k, a in layer_weights(shapes).items()})
        made.append(layer.eval())
        return layer

    def tel(**kw):
        return loaded(module.nn.TransformerEncoderLayer(D, H, D_FF, dtype=f64, **kw,
                                                        **tensor_kwargs))

    def enc(n, final_norm=False, **kw):
        layer = module.nn.TransformerEncoderLayer(D, H, D_FF, dtype=f64, **kw, **tensor_kwargs)
        norm = module.nn.LayerNorm(D, dtype=f64, **tensor_kwargs) if final_norm else None
        return loaded(module.nn.TransformerEncoder(layer, n, norm=norm,
                                                   enable_nested_tensor=False))

    def gsm(sz, **kw):
        return module.nn.Transformer.generate_square_subsequent_mask(sz, **kw, **tensor_kwargs)
    act_module = module.nn.GELU(approximate="tanh")
    names = {"tel": tel, "enc": enc, "gsm": gsm, "act_module": act_module, "f64": f64}
    y = eval(case, {}, {**names, **inputs})
    return torch_parity.picked(y, inputs, made, requires_grad)


def grad_of(module, case: str, wrt: str, dtype: str = "float64", **tensor_kwargs):
    y, x = run(module, case, requires_grad=wrt, dtype=dtype, **tensor_kwargs)
    return torch_parity.weighted_grad(module, y, x, **tensor_kwargs)


plain = torch_parity.plain


def assert_same(actual, expected, case):
    torch_parity.assert_close(actual, expected, case, rtol=1e-10, atol=1e-13)


torch_parity.tests(globals())



# ----------------------------------------------------------------------------- by hand
def _layer(device="cpu", **kw):
    layer = nn.TransformerEncoderLayer(D, H, D_FF, dtype="float64", device=device, **kw)
    shapes = {k: tuple(v.shape) for k, v in layer.state_dict().items()}
    layer.load_state_dict({k: tinyffn.tensor(a, device=device)
                           for k, a in layer_weights(shapes).items()})
    return layer.eval()


def test_the_feed_forward_block_is_the_seeds_ffn_with_d_ff_dim_feedforward(device):
    """linear1 -> σ -> linear2 is nn.FFN(d, d_ff=dim_feedforward) with the same weights,
    and both are W2 relu(W1 x + b1) + b2 in NumPy."""
    layer = _layer(device)
    ffn = nn.FFN(D, D_FF, activation="relu", dtype="float64", device=device)
    ffn.load_state_dict({"w1.weight": layer.linear1.weight, "w1.bias": layer.linear1.bias,
                         "w2.weight": layer.linear2.weight, "w2.bias": layer.linear2.bias})
    x = tinyffn.tensor(INPUTS["x"], device=device)
    sd = {k: v.numpy() for k, v in layer.state_dict().items()}
    by_hand = (np.maximum(INPUTS["x"] @ sd["linear1.weight"].T + sd["linear1.bias"], 0)
               @ sd["linear2.weight"].T + sd["linear2.bias"])
    np.testing.assert_allclose(layer._ff_block(x).numpy(), by_hand, rtol=1e-12)
    np.testing.assert_allclose(ffn(x).numpy(), by_hand, rtol=1e-12)


def test_post_norm_and_pre_norm_by_hand():
    """norm_first=False: norm2(h + ffn(h)), h = norm1(x + attn(x)); norm_first=True:
    h + ffn(norm2(h)), h = x + attn(norm1(x)); LayerNorm and the FFN in NumPy, attention
    from the layer's own self_attn (its own tests check it against PyTorch)."""
    x = INPUTS["x"]

    def norm(v, w, b):
        mu, var = v.mean(-1, keepdims=True), v.var(-1, keepdims=True)
        return (v - mu) / np.sqrt(var + 1e-5) * w + b
    for norm_first in (False, True):
        layer = _layer(norm_first=norm_first)
        sd = {k: v.numpy() for k, v in layer.state_dict().items()}

        def attn(v):
            t = tinyffn.tensor(v)
            return layer.self_attn(t, t, t, need_weights=False)[0].numpy()

        def ffn(v):
            return (np.maximum(v @ sd["linear1.weight"].T + sd["linear1.bias"], 0)
                    @ sd["linear2.weight"].T + sd["linear2.bias"])

        def n1(v):
            return norm(v, sd["norm1.weight"], sd["norm1.bias"])

        def n2(v):
            return norm(v, sd["norm2.weight"], sd["norm2.bias"])
        if norm_first:
            h = x + attn(n1(x))
            expected = h + ffn(n2(h))
        else:
            h = n1(x + attn(x))
            expected = n2(h + ffn(h))
        np.testing.assert_allclose(layer(tinyffn.tensor(x)).numpy(), expected, rtol=1e-10)


def test_the_causal_mask_is_zero_on_and_below_the_diagonal_minus_inf_above(device):
    m = nn.Transformer.generate_square_subsequent_mask(5, device=device)
    assert dtype_name(m.dtype) == "float32" and m.shape == (5, 5)
    expected = np.where(np.triu(np.ones((5, 5), bool), 1), -np.inf, 0.0)
    np.testing.assert_array_equal(m.numpy(), expected)
    assert nn.Transformer.generate_square_subsequent_mask(0).shape == (0, 0)
    for sz in (np.int64(5), tinyffn.tensor(5), tinyffn.tensor(5, dtype="int32")):
        # a size from x.shape[0] of a NumPy array or a 0-d tensor, which torch.full accepts
        np.testing.assert_array_equal(nn.Transformer.generate_square_subsequent_mask(
            sz, device=device).numpy(), expected)
    for sz in (5.0, True, tinyffn.tensor(5.0), tinyffn.tensor([5])):
        with pytest.raises(ValueError, match="sz must be a non-negative integer"):
            nn.Transformer.generate_square_subsequent_mask(sz)


def test_a_float_causal_mask_is_the_bool_one(device):
    layer = _layer(device)
    x = tinyffn.tensor(INPUTS["x"], device=device)
    a = layer(x, src_mask=nn.Transformer.generate_square_subsequent_mask(
        3, dtype="float64", device=device))
    b = layer(x, src_mask=tinyffn.tensor(BOOL_INPUTS["causal"], device=device))
    np.testing.assert_array_equal(a.numpy(), b.numpy())


# ----------------------------------------------------------------------------- gradcheck
@pytest.mark.parametrize("kw", [{}, {"norm_first": True, "activation": "gelu"}])
def test_gradcheck_layer_inputs_and_every_parameter(device, kw):
    layer = _layer(device, **kw)
    x = tinyffn.tensor(INPUTS["x"], device=device, requires_grad=True)
    mask = tinyffn.tensor(BOOL_INPUTS["causal"], device=device)
    kpm = tinyffn.tensor([[False, False, False], [False, False, True]], device=device)
    params = [p for _, p in layer.named_parameters()]
    assert len(params) == 12

    def f(x, *params):                      # the parameters are perturbed in place
        return layer(x, src_mask=mask, src_key_padding_mask=kpm)
    assert tinyffn.gradcheck(f, [x, *params])


def test_gradcheck_encoder(device):
    enc = nn.TransformerEncoder(_layer(device), 2, norm=nn.LayerNorm(D, dtype="float64",
                                                                     device=device))
    x = tinyffn.tensor(INPUTS["x"], device=device, requires_grad=True)
    params = [p for _, p in enc.named_parameters()]
    assert len(params) == 2 * 12 + 2
    assert tinyffn.gradcheck(lambda x, *params: enc(x), [x, *params])


# ----------------------------------------------------------------------------- the module
def test_names_and_shapes_are_pytorchs():
    torch = pytest.importorskip("torch")
    for kw in ({}, {"bias": False}):
        ours = nn.TransformerEncoderLayer(8, 2, 16, **kw)
        theirs = torch.nn.TransformerEncoderLayer(8, 2, 16, **kw)
        assert ({k: tuple(v.shape) for k, v in ours.state_dict().items()}
                == {k: tuple(v.shape) for k, v in theirs.state_dict().items()})
        assert str(ours) == str(theirs)
        ours.load_state_dict({k: tinyffn.tensor(v.numpy()) for k, v in
                              theirs.state_dict().items()})
    enc = torch.nn.TransformerEncoder(theirs, 2, enable_nested_tensor=False)
    ours = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, bias=False), 2)
    assert list(ours.state_dict()) == list(enc.state_dict())


def test_names_written_out():
    layer = nn.TransformerEncoderLayer(8, 2, 16)
    assert list(layer.state_dict()) == PARAMETERS
    assert layer.activation is tinyffn.functional.relu
    assert nn.TransformerEncoderLayer(8, 2, activation="gelu").activation is \
        tinyffn.functional.gelu
    assert layer.linear1.weight.shape == (16, 8) and layer.dropout.p == 0.1
    assert nn.TransformerEncoderLayer(8, 2).linear1.out_features == 2048


def test_dropout_only_in_training():
    layer = _layer()
    x = tinyffn.tensor(INPUTS["x"])
    a, b = layer(x).numpy(), layer(x).numpy()
    np.testing.assert_array_equal(a, b)                         # eval: deterministic
    layer.train()
    assert not np.allclose(layer(x).numpy(), a)                 # p = 0.1 on 4 dropouts
    no_drop = _layer(dropout=0.0).train()
    np.testing.assert_array_equal(no_drop(x).numpy(), a)


def test_the_encoders_layers_are_copies_not_one_layer():
    layer = _layer()
    enc = nn.TransformerEncoder(layer, 3)
    p = [m.linear1.weight for m in enc.layers]
    assert len({id(w) for w in p} | {id(layer.linear1.weight)}) == 4
    for w in p:
        np.testing.assert_array_equal(w.numpy(), layer.linear1.weight.numpy())
    with tinyffn.no_grad():
        p[0].mul_(2.0)
    np.testing.assert_array_equal(p[1].numpy(), layer.linear1.weight.numpy())


def test_refusals_say_what_to_do():
    with pytest.raises(ValueError, match="'relu' or 'gelu'.*not 'swish'"):
        nn.TransformerEncoderLayer(8, 2, activation="swish")
    with pytest.raises(TypeError, match=r"class GELU; pass an instance, GELU\(\)"):
        nn.TransformerEncoderLayer(8, 2, activation=nn.GELU)
    with pytest.raises(ValueError, match="dim_feedforward must be a positive integer"):
        nn.TransformerEncoderLayer(8, 2, dim_feedforward=0)
    layer = nn.TransformerEncoderLayer(8, 2, 16)
    with pytest.raises(ValueError, match=r"TransformerEncoderLayer: input of shape \(3, 2, 4\)"
                                         r" must end in d_model=8"):
        layer(tinyffn.zeros(3, 2, 4))
    with pytest.raises(ValueError, match="is_causal=True is a hint.*needs attn_mask"):
        layer(tinyffn.zeros(3, 2, 8), is_causal=True)
    with pytest.raises(ValueError, match="sz must be a non-negative integer"):
        nn.Transformer.generate_square_subsequent_mask(-1)
    with pytest.raises(TypeError, match="encoder_layer must be a module"):
        nn.TransformerEncoder("layer", 2)
    with pytest.raises(ValueError, match="TransformerEncoderLayer: d_model must be a positive"):
        nn.TransformerEncoderLayer(0, 2)
    with pytest.raises(TypeError, match="activation must be 'relu', 'gelu', a module or a "
                                        "function of one tensor, got int"):
        nn.TransformerEncoderLayer(8, 2, activation=3)
    with pytest.raises(ValueError, match="TransformerEncoder: num_layers must be a positive"):
        nn.TransformerEncoder(layer, 0)
    assert nn.TransformerEncoder(layer, 1, mask_check=False).mask_check is False



@pytest.mark.parametrize("norm_first", [False, True])
def test_each_dropout_module_runs_once_where_pytorch_runs_it(norm_first):
    # dropout (after σ), dropout1 (after attention) and dropout2 (after the FFN) are
    # separate modules, as PyTorch's: a hook, or a user's swap of one (layer.dropout2 =
    # nn.Identity()), acts on that one only. Each must see the tensor PyTorch gives it.
    layer = nn.TransformerEncoderLayer(D, H, D_FF, dropout=0.0, norm_first=norm_first,
                                       dtype="float64")
    seen = {}
    for name in ("dropout", "dropout1", "dropout2"):
        getattr(layer, name).register_forward_hook(
            lambda m, args, y, name=name: seen.setdefault(name, []).append(y.shape))
    layer(tinyffn.tensor(INPUTS["x"]))
    assert seen == {"dropout": [(3, 2, D_FF)], "dropout1": [(3, 2, D)],
                    "dropout2": [(3, 2, D)]}


def test_a_sequence_padded_throughout_gives_finite_values_as_pytorchs():
    # the layers call attention with need_weights=False, PyTorch's call, whose rule gives a
    # query with every key masked zero weights; the written-out weights would be NaN there
    # (softmax of -inf throughout), and the NaN would spread through the residual and norm
    layer = _layer(dropout=0.0).train()
    x = INPUTS["x"]
    kpm = np.array([[False, False, True], [True, True, True]])          # sequence 1: all pad
    y = layer(tinyffn.tensor(x), src_key_padding_mask=tinyffn.tensor(kpm)).numpy()
    assert np.isfinite(y).all()
    torch = pytest.importorskip("torch")
    theirs = torch.nn.TransformerEncoderLayer(D, H, D_FF, dropout=0.0, dtype=torch.float64)
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in layer.state_dict().items()})
    want = theirs(torch.tensor(x), src_key_padding_mask=torch.tensor(kpm)).detach().numpy()
    np.testing.assert_allclose(y, want, rtol=1e-12, atol=1e-14)


def test_the_encoder_passes_is_causal_on_to_its_layers():
    # is_causal=True without a mask is refused by each layer (PyTorch raises too): the
    # encoder must hand the hint on, not drop it and run unmasked.
    enc = nn.TransformerEncoder(_layer(), 2)
    with pytest.raises(ValueError, match="is_causal=True is a hint.*needs attn_mask"):
        enc(tinyffn.tensor(INPUTS["x"]), is_causal=True)



def test_the_ffn_dropout_comes_after_the_activation():
    # PyTorch's _ff_block: linear2(dropout(activation(linear1(x)))). With GELU the order
    # shows (ReLU commutes with dropout's 0-or-scale): each entry linear2 reads is 0 or
    # gelu(z) / (1 - p), z = linear1's output, not gelu(z / (1 - p))
    layer = _layer(dropout=0.5, activation="gelu").train()
    seen = {}
    layer.linear1.register_forward_hook(lambda m, args, z: seen.update(z=z.numpy()))
    layer.linear2.register_forward_pre_hook(lambda m, args: seen.update(h=args[0].numpy()))
    layer(tinyffn.tensor(INPUTS["x"]))
    z, h = seen["z"], seen["h"]
    gelu = z * 0.5 * (1.0 + np.vectorize(math.erf)(z / math.sqrt(2.0)))
    kept = h != 0
    assert 0 < kept.sum() < h.size                               # some dropped, some kept
    np.testing.assert_allclose(h[kept], gelu[kept] / 0.5, rtol=1e-12)


def test_dropout_reaches_the_attention_weights_too():
    # PyTorch's layer passes dropout to self_attn (on the attention weights): with the
    # three Dropout modules made identities, training output still differs from eval.
    layer = _layer(dropout=0.5)
    x = tinyffn.tensor(INPUTS["x"])
    a = layer(x).numpy()
    layer.dropout = layer.dropout1 = layer.dropout2 = nn.Identity()
    tinyffn.manual_seed(0)
    assert not np.allclose(layer.train()(x).numpy(), a)


# torch 2.13's values and gradients, float64 (float32 for gsm(4)), written out
inf = math.inf
EXPECTED = {'enc(2)(x, mask=gsm(3, dtype=f64))': ('float64',
                                       [[[1.2034307526664452, 0.12997650892119758,
                                          -1.1213191180203095, 0.012046052832508584],
                                         [1.1577742040394852, 0.19823857071827125,
                                          -1.177100865401504, 0.038514686268454806]],
                                        [[1.2533256469434795, 0.08799241820518916,
                                          -1.0507052660790814, -0.03498955530281116],
                                         [-1.7054953639183494, -0.2885408073919241,
                                          2.3182859743692648, 0.07073585507011565]],
                                        [[-1.5337294664793288, -0.48198617787422654,
                                          2.4173736746399825, 0.0018552280452563935],
                                         [0.2475155251730416, -0.3083034544996973,
                                          -1.2221128266430723, 0.7792352903643615]]]),
 'enc(2, norm_first=True, final_norm=True)(x, src_key_padding_mask=kpm)': ('float64',
                                                                           [[[-0.5581921355886228,
                                                                              -0.10019746596931882,
                                                                              0.14121991454301905,
                                                                              0.19840090595349308],
                                                                             [-0.5577590403060597,
                                                                              -0.10406173297593325,
                                                                              0.13905355667149025,
                                                                              0.19199186791302816]],
                                                                            [[-0.5610172146691287,
                                                                              0.03264440763779333,
                                                                              0.17380389601020751,
                                                                              0.3260555357299063],
                                                                             [-0.5607511996551616,
                                                                              0.0807748887970808,
                                                                              0.2716648492222084,
                                                                              0.44731636857692036]],
                                                                            [[-0.5428354585120688,
                                                                              -0.3902209103315063,
                                                                              0.2212321372123126,
                                                                              0.02081494751403147],
                                                                             [-0.5583810786609215,
                                                                              0.045949093130163515,
                                                                              0.13990337968836045,
                                                                              0.29106610387238524]]]),
 'gsm(2, dtype=f64)': ('float64', [[0.0, -inf], [0.0, 0.0]]),
 'gsm(4)': ('float32',
            [[0.0, -inf, -inf, -inf], [0.0, 0.0, -inf, -inf], [0.0, 0.0, 0.0, -inf],
             [0.0, 0.0, 0.0, 0.0]]),
 'tel()(x)': ('float64',
              [[[1.138591409656613, -0.6161242630383521, -0.7709650670671286, 0.27464670255301854],
                [1.3466252029521621, -0.46136849560056586, -0.8319319726360895, 0.175971610119996]],
               [[1.5511413709561905, -0.4226088156678739, -0.8134299880927013, 0.0750504066592396],
                [-1.749790943459353, 0.766560465941346, 1.725557747988149, -0.4856018774836683]],
               [[-2.034750122107641, -0.019900386590869117, 1.5503458219555974,
                 -0.009227109072124215],
                [0.5911069635220884, -0.9195414409204732, -0.5347179175795888,
                 0.456673863439502]]]),
 'tel()(x, src_mask=gsm(3, dtype=f64), is_causal=True)': ('float64',
                                                          [[[1.2225269581103735,
                                                             -0.6668795558266871,
                                                             -0.7457291530799272,
                                                             0.24659468547531788],
                                                            [1.081389094850773, -0.5011990525360287,
                                                             -0.8231484304603,
                                                             0.2852070507755014]],
                                                           [[1.7185887394736814,
                                                             -0.46351254585019247,
                                                             -0.7441596863832974,
                                                             -0.012215731522780892],
                                                            [-1.9219439889921215,
                                                             0.7417977967223955, 1.6761487206489127,
                                                             -0.38475522122404937]],
                                                           [[-2.034750122107641,
                                                             -0.019900386590869117,
                                                             1.5503458219555974,
                                                             -0.009227109072124215],
                                                            [0.5911069635220884,
                                                             -0.9195414409204732,
                                                             -0.5347179175795888,
                                                             0.456673863439502]]]),
 "tel(activation='gelu')(x)": ('float64',
                               [[[1.1571561295675323, -0.5732830217305508, -0.791392115493844,
                                  0.2640383645370451],
                                 [1.3617017278574757, -0.42862826818842975, -0.8439021806566905,
                                  0.16552517164038308]],
                                [[1.6073005219251717, -0.29085216595692065, -0.8468021996076484,
                                  0.02657384236575755],
                                 [-1.7363068641479404, 0.837640898277296, 1.7110526141194236,
                                  -0.5073225706506829]],
                                [[-2.055303669831926, 0.07019763855580215, 1.5644294712789837,
                                  -0.0403922889613314],
                                 [0.6681280109815521, -0.8411764085261616, -0.5985429187053032,
                                  0.4355472690044279]]]),
 "tel(activation='gelu', norm_first=True, batch_first=True)(xb)": ('float64',
                                                                   [[[1.4619950636512444,
                                                                      -1.8496203674622098,
                                                                      -1.704119243992468,
                                                                      0.823425031554244],
                                                                     [2.49608891772557,
                                                                      -1.1046910937290844,
                                                                      -1.964200841622319,
                                                                      -0.2959716916093271],
                                                                     [1.5915713309898294,
                                                                      -0.42615392706380995,
                                                                      -0.8258774274976801,
                                                                      -0.3469975150753475]],
                                                                    [[0.337006136070867,
                                                                      -1.6480979993703382,
                                                                      -1.0004565192880928,
                                                                      0.7008364232136999],
                                                                     [-0.8763203867199381,
                                                                      -0.7592870400783474,
                                                                      -0.3016397365246569,
                                                                      0.09589136150139854],
                                                                     [0.2676427192311157,
                                                                      -1.946690173564214,
                                                                      -1.7105993575433847,
                                                                      0.6067687762152759]]]),
 'tel(activation=act_module)(x)': ('float64',
                                   [[[1.157177696433609, -0.5732303721666074, -0.791416714798043,
                                      0.2640255218171486],
                                     [1.361730446371512, -0.42857513396865, -0.8439206933480687,
                                      0.16550610812249852]],
                                    [[1.607307661760332, -0.29082793526148903, -0.8468083525036013,
                                      0.02656614123379553],
                                     [-1.7362570704882092, 0.8378358091069492, 1.711012787399647,
                                      -0.5073869492962221]],
                                    [[-2.0552543909806125, 0.06993954654365755, 1.5643876925457756,
                                      -0.04029859554620687],
                                     [0.668167515214133, -0.8412023478139415, -0.5985360196181819,
                                      0.4355375155965368]]]),
 'tel(batch_first=True)(xb, src_key_padding_mask=kpm)': ('float64',
                                                         [[[1.160746625021505, -0.6485221662481017,
                                                            -0.7554080917161932,
                                                            0.2689243348888666],
                                                           [1.4188774745965027, -0.4184307612330551,
                                                            -0.8406159257891976,
                                                            0.13856992012563393],
                                                           [1.827978372237217, -0.5124317365062682,
                                                            -0.6721268994826495,
                                                            -0.07627672678974984]],
                                                          [[-2.179969096199817, 0.22227352404817152,
                                                            1.4332501826995672,
                                                            0.026282309371626993],
                                                           [-1.7162840452108357,
                                                            -0.6421786400976913, 0.9540136514633816,
                                                            0.4138902357350168],
                                                           [0.2438860289766028, -0.9310821964415809,
                                                            -0.4246618122385958,
                                                            0.5313896434529505]]]),
 'tel(bias=False, layer_norm_eps=0.1)(x[:, 0])': ('float64',
                                                  [[1.5712796126293609, -0.39586353703169436,
                                                    -0.3157859050032547, -0.3555696481536423],
                                                   [1.0235513402649927, 0.5206226346035693,
                                                    -0.4481919268542883, -1.6268598734706203],
                                                   [-1.1562166970444894, -0.4006147972982257,
                                                    0.30420097697539966, 1.772375639568901]]),
 'tel(norm_first=True)(x)': ('float64',
                             [[[1.9470894114458706, -2.717742173351827, -2.964839023101995,
                                0.5202558689211159],
                               [2.7789597278918388, -1.757123921609018, -2.8334320171383944,
                                -0.4083664540918537]],
                              [[1.9142133166475954, -0.9212133484197669, -1.507581656183655,
                                -0.426335257588468],
                               [-1.3143560905455258, 0.480412248237967, 1.420202456225922,
                                -0.4376748863315798]],
                              [[-0.9362007129221512, 0.04895643814917161, 0.46533693584658414,
                                -0.19765059498024973],
                               [-0.45599151718791364, -1.822753062821089, -1.1210982213510792,
                                0.8993048264232871]]]),
 'tel(norm_first=True)(x, src_mask=causal, src_key_padding_mask=kpm)': ('float64',
                                                                        [[[2.3856933431872167,
                                                                           -1.5923668959512884,
                                                                           -1.953010948012195,
                                                                           0.10760146643709989],
                                                                          [1.1800104655665395,
                                                                           -1.6295415550368615,
                                                                           -1.2011779726908043,
                                                                           1.0625665304498264]],
                                                                         [[1.91944573520209,
                                                                           -0.4059784978960237,
                                                                           -1.0550096899117596,
                                                                           -0.5783913384494319],
                                                                          [-1.2060932454476743,
                                                                           0.8668185244458134,
                                                                           1.8569654634898942,
                                                                           -0.38111420479144276]],
                                                                         [[-1.8459066677067666,
                                                                           -0.1628984285539692,
                                                                           1.1802446155706163,
                                                                           0.5997349807368473],
                                                                          [-0.3924610259562208,
                                                                           -0.09302907557637896,
                                                                           0.1855360475764149,
                                                                           0.17281260536351173]]])}
EXPECTED_GRADS = {'enc(2)(x, mask=gsm(3, dtype=f64)) dlayers.0.linear1.weight': ('float64',
                                                                [[-0.029088053416587992,
                                                                  -0.04789923691730337,
                                                                  0.10747267005778319,
                                                                  0.14204670277718406],
                                                                 [0.05872263892893087,
                                                                  -0.006574606736391528,
                                                                  -0.029418950805642705,
                                                                  0.044445636339268915],
                                                                 [-0.3564769601511016,
                                                                  -0.2898215044967355,
                                                                  0.5232386730138942,
                                                                  0.5308602549320219],
                                                                 [-1.0039358246688512,
                                                                  -2.27090722456445,
                                                                  0.7240292596741574,
                                                                  3.403623893345883],
                                                                 [-0.1759536452467429,
                                                                  -0.932849523843162,
                                                                  -0.15377797828397738,
                                                                  1.300391321434673],
                                                                 [-0.04257054064697077,
                                                                  -0.03226802969455944,
                                                                  0.14815380973815984,
                                                                  0.14912024101997257]]),
 'enc(2)(x, mask=gsm(3, dtype=f64)) dx': ('float64',
                                          [[[0.05465055588557429, -0.03444154288904409,
                                             -0.05229915784741438, -0.017166439254556708],
                                            [0.047189532084732186, -0.25746946521550707,
                                             0.055704183678437595, 0.051010540318792874]],
                                           [[0.07456386568511977, -0.05203384429553306,
                                             -0.029720218249573355, -0.09090197680648616],
                                            [-0.11073376331749538, -0.33476708790337284,
                                             0.23481566880818053, 0.10121922218633606]],
                                           [[-0.3430476902511496, 0.35489284520008507,
                                             0.3000997148086482, -0.3332237222892844],
                                            [0.26439058810487287, 0.4586584246349533,
                                             -1.4735152860791703, 0.7157025683227999]]]),
 'tel()(x, src_mask=gsm(3, dtype=f64), is_causal=True) dlinear1.bias': ('float64',
                                                                        [-0.6259313208276349,
                                                                         -0.9800579513399912,
                                                                         1.2911452766782654,
                                                                         2.5251048092285977,
                                                                         0.06398594012666979,
                                                                         -0.7905191190785181]),
 'tel()(x, src_mask=gsm(3, dtype=f64), is_causal=True) dlinear1.weight': ('float64',
                                                                          [[-0.1399631795603514,
                                                                            -0.23047707598189407,
                                                                            0.5171269593636614,
                                                                            0.683487061922858],
                                                                           [0.33179795494935305,
                                                                            -0.013254055060210906,
                                                                            -0.20961681921763925,
                                                                            0.17449806494455544],
                                                                           [-1.428422086826116,
                                                                            -1.2376701971332904,
                                                                            2.0278314732867484,
                                                                            2.231926121098824],
                                                                           [-2.09229380248777,
                                                                            -3.070809763132053,
                                                                            2.2396383225778127,
                                                                            4.94133492827395],
                                                                           [0.27568328345321663,
                                                                            -0.3931048990153728,
                                                                            -0.7548550851320862,
                                                                            0.4104751547000183],
                                                                           [-0.17471958785496683,
                                                                            -0.15430326443603387,
                                                                            0.7154883675404309,
                                                                            0.6361067754856207]]),
 'tel()(x, src_mask=gsm(3, dtype=f64), is_causal=True) dlinear2.bias': ('float64',
                                                                        [1.1860028338542563,
                                                                         2.9106064477088553,
                                                                         -0.6422509537352576,
                                                                         -3.454358327827854]),
 'tel()(x, src_mask=gsm(3, dtype=f64), is_causal=True) dlinear2.weight': ('float64',
                                                                          [[0.32239120692395046,
                                                                            0.327872089029292,
                                                                            0.7980188136407586,
                                                                            1.3944620738232008,
                                                                            0.7405044191343233,
                                                                            0.31643070652433103],
                                                                           [0.5962666404864962,
                                                                            0.6873305893693652,
                                                                            3.3935333516362123,
                                                                            3.616876775861957,
                                                                            0.6573959998439446,
                                                                            0.617467081636573],
                                                                           [-0.18821039005709897,
                                                                            -0.1697130250755564,
                                                                            -0.05980835853106603,
                                                                            -0.6904396932890277,
                                                                            -0.7115778983624308,
                                                                            -0.22389706407691137],
                                                                           [-0.7304474573533484,
                                                                            -0.8454896533231018,
                                                                            -4.131743806745904,
                                                                            -4.320899156396127,
                                                                            -0.6863225206158361,
                                                                            -0.7100007240839934]]),
 'tel()(x, src_mask=gsm(3, dtype=f64), is_causal=True) dnorm1.bias': ('float64',
                                                                      [-0.9847745940612667,
                                                                       1.2584406114813693,
                                                                       0.6446216224114341,
                                                                       -1.113718678183676]),
 'tel()(x, src_mask=gsm(3, dtype=f64), is_causal=True) dnorm1.weight': ('float64',
                                                                        [1.131433649293978,
                                                                         -0.6163759578196198,
                                                                         1.1442561721764495,
                                                                         -0.9692837273108104]),
 'tel()(x, src_mask=gsm(3, dtype=f64), is_causal=True) dnorm2.bias': ('float64',
                                                                      [6.6, 7.2, 7.799999999999999,
                                                                       8.4]),
 'tel()(x, src_mask=gsm(3, dtype=f64), is_causal=True) dnorm2.weight': ('float64',
                                                                        [-1.1927267663459327,
                                                                         -3.4315505480130555,
                                                                         -0.2767396148694461,
                                                                         5.3670065237060225]),
 'tel()(x, src_mask=gsm(3, dtype=f64), is_causal=True) dself_attn.in_proj_bias': ('float64',
                                                                                  [-0.1477490278703303,
                                                                                   0.12175053520748416,
                                                                                   0.1984443102352417,
                                                                                   -0.05020076255550524,
                                                                                   4.5102810375396984e-17,
                                                                                   -6.245004513516506e-17,
                                                                                   8.326672684688674e-17,
                                                                                   0.0,
                                                                                   -0.6341707276061321,
                                                                                   -1.2659906212966157,
                                                                                   -0.043131288886983477,
                                                                                   1.242915482787943]),
 'tel()(x, src_mask=gsm(3, dtype=f64), is_causal=True) dself_attn.in_proj_weight': ('float64',
                                                                                    [[0.13239423892724894,
                                                                                      -0.18004977778996084,
                                                                                      -0.22872044823311247,
                                                                                      0.057684873820264104],
                                                                                     [-0.04471929591744495,
                                                                                      -0.11788783772178571,
                                                                                      -0.018350421081881087,
                                                                                      0.10807040543344339],
                                                                                     [-0.1566126608903905,
                                                                                      -0.019608029510165253,
                                                                                      0.1461224110391795,
                                                                                      0.09778317708772746],
                                                                                     [-0.001546690356843572,
                                                                                      0.17164468466953103,
                                                                                      0.09337619453431584,
                                                                                      -0.12168863935082869],
                                                                                     [-0.09606962092228215,
                                                                                      -0.0959455807410529,
                                                                                      0.04473896000240735,
                                                                                      0.11988081953010535],
                                                                                     [-0.13076434479981358,
                                                                                      0.12879936402474804,
                                                                                      0.19967170280823743,
                                                                                      -0.021975470803387284],
                                                                                     [0.04804040908259835,
                                                                                      0.3774914636147181,
                                                                                      0.1539166395828379,
                                                                                      -0.295146422026234],
                                                                                     [0.097684587469492,
                                                                                      0.0778776335338382,
                                                                                      -0.056020235976778826,
                                                                                      -0.10784832853996082],
                                                                                     [-0.020441463174641364,
                                                                                      -0.1403580954266605,
                                                                                      -0.05464978905457869,
                                                                                      0.1111205863132991],
                                                                                     [-0.4654612006884993,
                                                                                      -0.35518603544095606,
                                                                                      0.27543750383996524,
                                                                                      0.502544454713898],
                                                                                     [-0.12771882284737998,
                                                                                      0.06667513133601774,
                                                                                      0.16338986190893115,
                                                                                      0.020738062003526514],
                                                                                     [0.06499791023439422,
                                                                                      0.17382275179601347,
                                                                                      0.027996854753078105,
                                                                                      -0.1588445000927707]]),
 'tel()(x, src_mask=gsm(3, dtype=f64), is_causal=True) dself_attn.out_proj.bias': ('float64',
                                                                                   [-0.6293314031430385,
                                                                                    1.420286947705068,
                                                                                    1.0060421112217068,
                                                                                    -1.796997655783736]),
 'tel()(x, src_mask=gsm(3, dtype=f64), is_causal=True) dself_attn.out_proj.weight': ('float64',
                                                                                     [[-0.11689756559541202,
                                                                                       0.025399800917070003,
                                                                                       -0.06766428984358097,
                                                                                       0.10749383856181652],
                                                                                      [0.03761923187877688,
                                                                                       0.3423671181386867,
                                                                                       0.41805141442331184,
                                                                                       -0.35316275704245376],
                                                                                      [0.36375758169418204,
                                                                                       0.08435674836960283,
                                                                                       0.1490467596442867,
                                                                                       -0.2654734563158585],
                                                                                      [-0.2844792479775468,
                                                                                       -0.4521236674253594,
                                                                                       -0.4994338842240176,
                                                                                       0.5111423747964956]]),
 'tel()(x, src_mask=gsm(3, dtype=f64), is_causal=True) dx': ('float64',
                                                             [[[0.16386824082021617,
                                                                -0.041020428698263375,
                                                                -0.239591306796537,
                                                                -0.030305792801222333],
                                                               [-0.040355498488321095,
                                                                -0.17670269846069417,
                                                                -0.18754083281049586,
                                                                0.2048084647523971]],
                                                              [[0.15940022218560346,
                                                                -0.09247415994160901,
                                                                -0.26822332078680294,
                                                                -0.19365898515441482],
                                                               [-0.20653952253982558,
                                                                -0.1068578272912799,
                                                                0.16777492445930062,
                                                                -0.024695694790960787]],
                                                              [[-0.8766076938550699,
                                                                0.6904999576665339,
                                                                1.6001831398409603,
                                                                -1.53593717319733],
                                                               [0.47385674110786613,
                                                                0.03613507179731426,
                                                                -0.9637400454070957,
                                                                0.4135095992025218]]]),
 "tel(activation='gelu', norm_first=True)(x, src_key_padding_mask=kpm) dlinear1.bias": ('float64',
                                                                                        [0.12287149167066533,
                                                                                         0.8750988957264807,
                                                                                         0.4789172482752464,
                                                                                         -0.18529893278915688,
                                                                                         -0.13668610467145795,
                                                                                         0.22917347584615497]),
 "tel(activation='gelu', norm_first=True)(x, src_key_padding_mask=kpm) dlinear1.weight": ('float64',
                                                                                          [[0.2194573961996428,
                                                                                            -0.021612203270139047,
                                                                                            -0.07451405407473696,
                                                                                            -0.026179916096222538],
                                                                                           [0.0015822633063067026,
                                                                                            0.4387485662840086,
                                                                                            0.3267464815683808,
                                                                                            -0.2730613013690225],
                                                                                           [-0.7085565712881394,
                                                                                            -0.06719427480551879,
                                                                                            0.4966001435534606,
                                                                                            0.05029828820334609],
                                                                                           [0.429538609343746,
                                                                                            0.1935804245577896,
                                                                                            -0.2430817754121874,
                                                                                            -0.10818849297085176],
                                                                                           [-0.03841730766006618,
                                                                                            0.1449563146065135,
                                                                                            -0.0048785555647652,
                                                                                            -0.042212275338191184],
                                                                                           [0.42306262990716553,
                                                                                            0.06664929304258536,
                                                                                            -0.1318133667695103,
                                                                                            -0.09499143073500402]]),
 "tel(activation='gelu', norm_first=True)(x, src_key_padding_mask=kpm) dlinear2.bias": ('float64',
                                                                                        [6.6000000000000005,
                                                                                         7.199999999999999,
                                                                                         7.800000000000001,
                                                                                         8.4]),
 "tel(activation='gelu', norm_first=True)(x, src_key_padding_mask=kpm) dlinear2.weight": ('float64',
                                                                                          [[1.7416440894712863,
                                                                                            4.563932059219343,
                                                                                            6.68799090961512,
                                                                                            2.7113090268778057,
                                                                                            -0.7091830254427327,
                                                                                            0.9130346954085375],
                                                                                           [2.079943712992562,
                                                                                            4.96646089468279,
                                                                                            7.055653641616821,
                                                                                            2.826183604288058,
                                                                                            -0.7619578588343492,
                                                                                            1.2295256374196672],
                                                                                           [2.418243336513837,
                                                                                            5.3689897301462395,
                                                                                            7.42331637361852,
                                                                                            2.9410581816983092,
                                                                                            -0.8147326922259658,
                                                                                            1.546016579430797],
                                                                                           [2.756542960035112,
                                                                                            5.771518565609688,
                                                                                            7.790979105620222,
                                                                                            3.055932759108561,
                                                                                            -0.8675075256175822,
                                                                                            1.8625075214419278]]),
 "tel(activation='gelu', norm_first=True)(x, src_key_padding_mask=kpm) dnorm1.bias": ('float64',
                                                                                      [3.8301498639649685,
                                                                                       -1.4033532880386377,
                                                                                       -4.58094058535856,
                                                                                       -1.0474391931258644]),
 "tel(activation='gelu', norm_first=True)(x, src_key_padding_mask=kpm) dnorm1.weight": ('float64',
                                                                                        [4.59698776443117,
                                                                                         -0.37065248889316565,
                                                                                         4.223390120720992,
                                                                                         0.22422171759046988]),
 "tel(activation='gelu', norm_first=True)(x, src_key_padding_mask=kpm) dnorm2.bias": ('float64',
                                                                                      [-0.03608283538138808,
                                                                                       0.6217156249505718,
                                                                                       0.3686992382051505,
                                                                                       -0.42446239628126037]),
 "tel(activation='gelu', norm_first=True)(x, src_key_padding_mask=kpm) dnorm2.weight": ('float64',
                                                                                        [0.33452392891579513,
                                                                                         -0.14855672897345779,
                                                                                         0.27000469780679404,
                                                                                         -0.061232765624582464]),
 "tel(activation='gelu', norm_first=True)(x, src_key_padding_mask=kpm) dself_attn.in_proj_bias": ('float64',
                                                                                                  [-0.017352788328744397,
                                                                                                   -0.030330568606612516,
                                                                                                   -0.029586541120457093,
                                                                                                   0.05335515521258722,
                                                                                                   3.469446951953614e-18,
                                                                                                   -1.9081958235744878e-17,
                                                                                                   -7.632783294297951e-17,
                                                                                                   4.163336342344337e-17,
                                                                                                   1.3059655019341294,
                                                                                                   -5.681496057125701,
                                                                                                   -4.3455525821667855,
                                                                                                   3.356635606213356]),
 "tel(activation='gelu', norm_first=True)(x, src_key_padding_mask=kpm) dself_attn.in_proj_weight": ('float64',
                                                                                                    [[-0.01024146341755601,
                                                                                                      0.025011690945504386,
                                                                                                      0.040625741275800806,
                                                                                                      -0.026863548270237722],
                                                                                                     [-0.017900835469983018,
                                                                                                      0.04371740113566531,
                                                                                                      0.07100886667989026,
                                                                                                      -0.04695422305577379],
                                                                                                     [-0.02658030741963834,
                                                                                                      0.014028397696434942,
                                                                                                      0.08088875722613992,
                                                                                                      0.0017970798422089589],
                                                                                                     [0.0479338366116916,
                                                                                                      -0.025298237243408572,
                                                                                                      -0.14587146835389525,
                                                                                                      -0.003240780107417629],
                                                                                                     [0.0039903789273128005,
                                                                                                      0.058787001487056234,
                                                                                                      0.009282486631538474,
                                                                                                      -0.09030935328416145],
                                                                                                     [0.0012032726290658806,
                                                                                                      0.0177268352511739,
                                                                                                      0.0027990730446549135,
                                                                                                      -0.027232193968268266],
                                                                                                     [-0.0018455787197950713,
                                                                                                      -0.027189407552865016,
                                                                                                      -0.004293216284972252,
                                                                                                      0.04176872012802661],
                                                                                                     [-0.008479768258527445,
                                                                                                      -0.12492551667509055,
                                                                                                      -0.01972577966457249,
                                                                                                      0.19191219715639388],
                                                                                                     [0.31734345472128145,
                                                                                                      -0.49674838523175535,
                                                                                                      -1.607314545766777,
                                                                                                      0.1707024650659133],
                                                                                                     [-1.4504931448062746,
                                                                                                      1.5230131307968209,
                                                                                                      6.951584572015218,
                                                                                                      0.2510432043931199],
                                                                                                     [-1.1019968296842582,
                                                                                                      1.1842274398090296,
                                                                                                      5.306290651969489,
                                                                                                      0.15921013863928168],
                                                                                                     [0.8666982433938504,
                                                                                                      -0.8044374244260538,
                                                                                                      -4.099307324124197,
                                                                                                      -0.29647006343330873]]),
 "tel(activation='gelu', norm_first=True)(x, src_key_padding_mask=kpm) dself_attn.out_proj.bias": ('float64',
                                                                                                   [6.214109561168071,
                                                                                                    7.759581102777795,
                                                                                                    7.885831306301005,
                                                                                                    8.140478029753131]),
 "tel(activation='gelu', norm_first=True)(x, src_key_padding_mask=kpm) dself_attn.out_proj.weight": ('float64',
                                                                                                     [[-2.4570322329459406,
                                                                                                       -2.2561939162177618,
                                                                                                       -0.6413569714659991,
                                                                                                       0.5939694355839318],
                                                                                                      [-3.2857844877947056,
                                                                                                       -2.8800210255827805,
                                                                                                       -0.7104046829428536,
                                                                                                       0.8648297988694711],
                                                                                                      [-3.3536777850676613,
                                                                                                       -2.922157649027691,
                                                                                                       -0.7079460311993638,
                                                                                                       0.8855931887031784],
                                                                                                      [-3.600632827255345,
                                                                                                       -3.0453288231498954,
                                                                                                       -0.6631354509607453,
                                                                                                       0.9907774177850227]]),
 "tel(activation='gelu', norm_first=True)(x, src_key_padding_mask=kpm) dx": ('float64',
                                                                             [[[0.9549907058876403,
                                                                                0.896244626305372,
                                                                                -0.7568796458845549,
                                                                                -0.09435568630845731],
                                                                               [-0.030200418745357283,
                                                                                0.891484187537091,
                                                                                -0.5132852147612607,
                                                                                2.252001445969526]],
                                                                              [[1.8231100242920548,
                                                                                0.7083600315951007,
                                                                                -0.3777617530999211,
                                                                                2.0462916972127654],
                                                                               [1.2315713790210436,
                                                                                1.4271307958550554,
                                                                                1.4760045328331006,
                                                                                1.6652932922908004]],
                                                                              [[1.6147782364114964,
                                                                                1.9017455240470074,
                                                                                1.925375115614486,
                                                                                1.9581011239270103],
                                                                               [1.9064414866806692,
                                                                                2.3386712491512958,
                                                                                2.4017084483235034,
                                                                                2.3531788158445317]]]),
 'tel(batch_first=True)(xb, src_key_padding_mask=kpm) dxb': ('float64',
                                                             [[[0.07263167605738965,
                                                                -0.030056675593797537,
                                                                -0.1494328637983216,
                                                                0.012853454597131327],
                                                               [0.03500383620850205,
                                                                0.04427317926572405,
                                                                -0.07314795325993906,
                                                                -0.06757062711638581],
                                                               [-0.26930699298300914,
                                                                0.18087645778280653,
                                                                0.3380144326383578,
                                                                -0.23181549386267744]],
                                                              [[-0.44176644467553716,
                                                                0.08879680487142871,
                                                                0.6232417269564414,
                                                                -1.3729089981499945],
                                                               [-0.7333039436369553,
                                                                0.46745951912237205,
                                                                0.910457795438724,
                                                                -0.6446133709241406],
                                                               [0.4738527714200949,
                                                                0.10168193212712057,
                                                                -0.9183743712463333,
                                                                0.3428396676991179]]])}
