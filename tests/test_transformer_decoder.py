"""nn.TransformerDecoderLayer, nn.TransformerDecoder and nn.Transformer
(tinyffn/transformer_decoder.py) against PyTorch 2.13.

Each case in ``CASES`` is one call, written once and run with tinyffn's and torch's names;
the modules load the same weights into both (``load_state_dict``, key for key) and run in
eval mode (dropout off). References: torch live where it is installed, its values and
gradients written out in ``EXPECTED`` and ``EXPECTED_GRADS`` (computed once with torch
2.13; those run without it, on every device), NumPy by hand, and gradcheck.
"""
import math
import warnings

import numpy as np
import pytest

import tinyffn
import torch_parity
from tinyffn import nn

D, H, D_FF = 4, 2, 6


def _values(*shape, start=0.0):
    """Fixed inputs that differ entry by entry: sin(1.3 i + start)."""
    return np.sin(1.3 * np.arange(math.prod(shape)) + start).reshape(shape)


INPUTS = dict(
    x=_values(3, 2, D, start=3.0), xb=_values(2, 3, D, start=3.0),     # tgt (T, N, d), T = 3
    m=_values(4, 2, D, start=5.0), mb=_values(2, 4, D, start=5.0),     # memory (S, N, d), S = 4
    fmask=np.array([[0.0, -0.5, 1.0, -np.inf], [0.25, 0.0, -np.inf, -1.0],
                    [-2.0, 0.5, 0.0, 0.0]]),                           # (T, S), added
    fsrc=np.array([[0.0, -1.0, 0.5, 0.0], [0.0, 0.0, -np.inf, 0.5], [1.0, 0.0, 0.0, -0.5],
                   [-np.inf, 0.0, 0.25, 0.0]]),                        # (S, S), added
    fkpm=np.array([[0.0, -0.75, 0.0, -np.inf], [0.5, 0.0, -np.inf, -np.inf]]),    # (N, S)
)
BOOL_INPUTS = dict(
    kpm_t=np.array([[False, False, True], [False, True, True]]),      # (N, T): True = padding
    kpm_m=np.array([[False, False, False, True], [False, False, True, True]]),    # (N, S)
    causal=np.triu(np.ones((3, 3), bool), 1),                          # True = not allowed
    mem_mask=np.array([[True, False, False, False], [False, True, False, False],
                       [False, False, False, False]]),                # (T, S)
)

CASES = [
    "tdl()(x, m)", "tdl(norm_first=True)(x, m)",
    "tdl(batch_first=True)(xb, mb, tgt_key_padding_mask=kpm_t, memory_key_padding_mask=kpm_m)",
    "tdl()(x, m, tgt_mask=gsm(3, dtype=f64), tgt_is_causal=True)",
    "tdl(norm_first=True, activation='gelu')(x, m, tgt_mask=causal, memory_mask=mem_mask, "
    "tgt_key_padding_mask=kpm_t, memory_key_padding_mask=kpm_m)",
    "tdl()(x, m, memory_mask=fmask, memory_key_padding_mask=fkpm)",
    "tdl(bias=False, layer_norm_eps=0.1)(x[:, 0], m[:, 0])", "tdl(activation=act_module)(x, m)",
    "dec(2)(x, m, tgt_mask=gsm(3, dtype=f64))",
    "dec(2, norm_first=True, final_norm=True)(x, m, tgt_key_padding_mask=kpm_t, "
    "memory_key_padding_mask=kpm_m)",
    "tf()(m, x, tgt_mask=gsm(3, dtype=f64), src_key_padding_mask=kpm_m, "
    "memory_key_padding_mask=kpm_m)",
    "tf(norm_first=True, batch_first=True)(mb, xb, tgt_mask=causal, src_key_padding_mask=kpm_m,"
    " tgt_key_padding_mask=kpm_t, memory_key_padding_mask=kpm_m)",
    "tf(activation='gelu')(m, x, src_mask=fsrc, memory_mask=fmask)",
    "tf(bias=False)(m[:, 1], x[:, 1], tgt_mask=gsm(3, dtype=f64), tgt_is_causal=True)",
]
DECODER_PARAMETERS = [
    "self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight",
    "self_attn.out_proj.bias", "multihead_attn.in_proj_weight", "multihead_attn.in_proj_bias",
    "multihead_attn.out_proj.weight", "multihead_attn.out_proj.bias", "linear1.weight",
    "linear1.bias", "linear2.weight", "linear2.bias", "norm1.weight", "norm1.bias",
    "norm2.weight", "norm2.bias", "norm3.weight", "norm3.bias"]
ENCODER_PARAMETERS = [k for k in DECODER_PARAMETERS if "multihead" not in k and "norm3" not in k]
TF_PARAMETERS = ([f"encoder.layers.0.{k}" for k in ENCODER_PARAMETERS]
                 + ["encoder.norm.weight", "encoder.norm.bias"]
                 + [f"decoder.layers.{i}.{k}" for i in (0, 1) for k in DECODER_PARAMETERS]
                 + ["decoder.norm.weight", "decoder.norm.bias"])
# dL/d(input) for L = Σ y · (1, 2, 3, ...)/10, one input per case
GRAD_CASES = [(CASES[2], "xb"), (CASES[2], "mb"), (CASES[5], "m"), (CASES[9], "x"),
              (CASES[11], "mb"), (CASES[12], "x")]
# the same L's gradients with respect to both inputs and every parameter, from one backward
ALL_GRAD_CASES = [CASES[3], CASES[4], CASES[10]]


def weights(names_shapes):
    """Fixed weights, 0.5·sin(...) from a start that differs name by name; LayerNorm gains
    around 1, so the norms' scaling is not near zero."""
    out = {}
    for i, (k, s) in enumerate(sorted(names_shapes.items())):
        w = 0.5 * _values(*s, start=i)
        out[k] = 1 + w if "norm" in k and k.endswith(".weight") else w
    return out


def load(module, layer, **tensor_kwargs):
    """``layer`` with :func:`weights` loaded, in eval mode (dropout off)."""
    shapes = {k: tuple(v.shape) for k, v in layer.state_dict().items()}
    layer.load_state_dict({k: module.tensor(a.tolist(), dtype=module.float64, **tensor_kwargs)
                           for k, a in weights(shapes).items()})
    return layer.eval()


def run(module, case: str, requires_grad: str = "", **tensor_kwargs):
    """``case`` evaluated with ``module``'s names (tinyffn or torch), its inputs and weights
    in float64, modules in eval mode; the input or the module's parameter named
    ``requires_grad`` is returned with the result."""
    f64 = module.float64
    inputs = {k: module.tensor(a.tolist(), dtype=f64, **tensor_kwargs) for k, a in INPUTS.items()}
    inputs.update({k: module.tensor(a.tolist(), **tensor_kwargs) for k, a in BOOL_INPUTS.items()})
    tensors = ("x", "xb", "m", "mb") if requires_grad == "all" else (requires_grad,)
    for k in tensors:
        if k in inputs:
            inputs[k].requires_grad_(True)
    made = []
    kw0 = {"dtype": f64, **tensor_kwargs}

    def loaded(layer):
        made.append(load(module, layer, **tensor_kwargs))
        return layer

    def tdl(**kw):
        return loaded(module.nn.TransformerDecoderLayer(D, H, D_FF, **kw, **kw0))

    def dec(n, final_norm=False, **kw):
        layer = module.nn.TransformerDecoderLayer(D, H, D_FF, **kw, **kw0)
        norm = module.nn.LayerNorm(D, **kw0) if final_norm else None
        return loaded(module.nn.TransformerDecoder(layer, n, norm=norm))

    def tf(**kw):
        with warnings.catch_warnings():     # torch's: enable_nested_tensor is True, but ...
            warnings.simplefilter("ignore")     # (its inference fast path; none here)
            return loaded(module.nn.Transformer(D, H, 1, 2, D_FF, **kw, **kw0))

    def gsm(sz, **kw):
        return module.nn.Transformer.generate_square_subsequent_mask(sz, **kw, **tensor_kwargs)
    names = {"tdl": tdl, "dec": dec, "tf": tf, "gsm": gsm, "f64": f64,
             "act_module": module.nn.GELU(approximate="tanh")}
    y = eval(case, {}, {**names, **inputs})
    if requires_grad == "all":              # the inputs and every parameter (all_grads)
        return y, {**{k: inputs[k] for k in tensors}, **dict(made[0].named_parameters())}
    return torch_parity.picked(y, inputs, made, requires_grad)


def grad_of(module, case: str, wrt: str, **tensor_kwargs):
    y, x = run(module, case, requires_grad=wrt, **tensor_kwargs)
    return torch_parity.weighted_grad(module, y, x, **tensor_kwargs)


def all_grads(module, case: str, **tensor_kwargs) -> dict:
    """name -> plain(dL/d·) for the inputs the case uses (of x, xb, m, mb) and every
    parameter of the module it builds, from one backward of L = Σ y · (1, 2, 3, ...)/10."""
    y, tensors = run(module, case, requires_grad="all", **tensor_kwargs)
    weights = np.arange(1.0, math.prod(y.shape) + 1).reshape(y.shape) / 10
    (y * module.tensor(weights.tolist(), dtype=module.float64, **tensor_kwargs)).sum().backward()
    return {k: plain(t.grad) for k, t in tensors.items() if t.grad is not None}


def assert_all_grads(actual: dict, expected: dict, case: str) -> None:
    assert sorted(actual) == sorted(expected), case
    for k in expected:
        assert_same(actual[k], expected[k], f"{case} d{k}")


plain = torch_parity.plain


def assert_same(actual, expected, case):
    torch_parity.assert_close(actual, expected, case, rtol=1e-12, atol=1e-13)


torch_parity.tests(globals())


@pytest.mark.parametrize("case", ALL_GRAD_CASES)
def test_every_gradient_is_pytorchs(case):
    torch = pytest.importorskip("torch")
    assert_all_grads(all_grads(tinyffn, case), all_grads(torch, case), case)


@pytest.mark.parametrize("case", ALL_GRAD_CASES)
def test_every_gradient_is_pytorchs_written_out(case, device):
    assert_all_grads(all_grads(tinyffn, case, device=device), EXPECTED_ALL_GRADS[case], case)


def test_the_written_out_gradients_are_pytorchs():
    assert sorted(EXPECTED_ALL_GRADS) == sorted(ALL_GRAD_CASES)
    torch = pytest.importorskip("torch")
    for case in ALL_GRAD_CASES:
        assert_all_grads(all_grads(torch, case), EXPECTED_ALL_GRADS[case], case)


# ----------------------------------------------------------------------------- by hand
def _decoder_layer(device="cpu", **kw):
    return load(tinyffn, nn.TransformerDecoderLayer(D, H, D_FF, dtype="float64", device=device,
                                                    **kw), device=device)


def _tiny_transformer(device="cpu", **kw):
    return load(tinyffn, nn.Transformer(D, H, 1, 1, D_FF, dtype="float64", device=device, **kw),
                device=device)


def test_post_norm_and_pre_norm_by_hand():
    """norm_first=False: h1 = n1(x + sa(x)), h2 = n2(h1 + ca(h1, m)), n3(h2 + ffn(h2));
    norm_first=True: h1 = x + sa(n1(x)), h2 = h1 + ca(n2(h1), m), h2 + ffn(n3(h2));
    LayerNorm and the FFN in NumPy, attention from the layer's own modules (their tests
    check them against PyTorch)."""
    x, mem = INPUTS["x"], INPUTS["m"]
    for norm_first in (False, True):
        layer = _decoder_layer(norm_first=norm_first)
        sd = {k: v.numpy() for k, v in layer.state_dict().items()}

        def attn(module, q, kv):
            return module(tinyffn.tensor(q), tinyffn.tensor(kv), tinyffn.tensor(kv),
                          need_weights=False)[0].numpy()

        def sa(v):
            return attn(layer.self_attn, v, v)

        def ca(v):
            return attn(layer.multihead_attn, v, mem)

        def ffn(v):
            return (np.maximum(v @ sd["linear1.weight"].T + sd["linear1.bias"], 0)
                    @ sd["linear2.weight"].T + sd["linear2.bias"])

        def n(i, v):
            mu, var = v.mean(-1, keepdims=True), v.var(-1, keepdims=True)
            return (v - mu) / np.sqrt(var + 1e-5) * sd[f"norm{i}.weight"] + sd[f"norm{i}.bias"]
        if norm_first:
            h1 = x + sa(n(1, x))
            h2 = h1 + ca(n(2, h1))
            expected = h2 + ffn(n(3, h2))
        else:
            h1 = n(1, x + sa(x))
            h2 = n(2, h1 + ca(h1))
            expected = n(3, h2 + ffn(h2))
        y = layer(tinyffn.tensor(x), tinyffn.tensor(mem))
        np.testing.assert_allclose(y.numpy(), expected, rtol=1e-12, atol=1e-13)


def test_transformer_is_its_encoder_then_its_decoder(device):
    model = _tiny_transformer(device)
    src, tgt = (tinyffn.tensor(INPUTS[k], device=device) for k in ("m", "x"))
    kpm = tinyffn.tensor(BOOL_INPUTS["kpm_m"], device=device)
    memory = model.encoder(src, src_key_padding_mask=kpm)
    expected = model.decoder(tgt, memory, memory_key_padding_mask=kpm)
    y = model(src, tgt, src_key_padding_mask=kpm, memory_key_padding_mask=kpm)
    np.testing.assert_array_equal(y.numpy(), expected.numpy())


def test_masks_keep_what_they_hide_out_of_the_output(device):
    """With a causal tgt_mask, tgt position 2 does not reach outputs 0 and 1; a memory
    position padded in memory_key_padding_mask reaches no output; unpadded ones do."""
    layer = _decoder_layer(device)
    x, mem = INPUTS["x"].copy(), INPUTS["m"].copy()
    causal = tinyffn.tensor(BOOL_INPUTS["causal"], device=device)
    kpm = tinyffn.tensor(BOOL_INPUTS["kpm_m"], device=device)     # batch 1: keys 2, 3 padded

    def y(x, mem):
        return layer(tinyffn.tensor(x, device=device), tinyffn.tensor(mem, device=device),
                     tgt_mask=causal, memory_key_padding_mask=kpm).numpy()
    base = y(x, mem)
    x2 = x.copy()
    x2[2] += 1.0
    changed = y(x2, mem)
    np.testing.assert_array_equal(changed[:2], base[:2])
    assert not np.allclose(changed[2], base[2])
    m2 = mem.copy()
    m2[2:, 1] += 1.0                    # padded keys of batch 1
    np.testing.assert_array_equal(y(x, m2), base)
    m2[1, 1] += 1.0                     # an unpadded one
    assert not np.allclose(y(x, m2)[:, 1], base[:, 1])


# ----------------------------------------------------------------------------- gradcheck
def test_gradcheck_decoder_layer_inputs_and_every_parameter(device):
    layer = _decoder_layer(device, norm_first=True, activation="gelu")
    x, mem = (tinyffn.tensor(INPUTS[k], device=device, requires_grad=True) for k in ("x", "m"))
    causal = tinyffn.tensor(BOOL_INPUTS["causal"], device=device)
    kpm = tinyffn.tensor(BOOL_INPUTS["kpm_m"], device=device)
    params = [p for _, p in layer.named_parameters()]
    assert len(params) == 18

    def f(x, mem, *params):                 # the parameters are perturbed in place
        return layer(x, mem, tgt_mask=causal, memory_key_padding_mask=kpm)
    assert tinyffn.gradcheck(f, [x, mem, *params])


def test_gradcheck_transformer(device):
    model = _tiny_transformer(device)
    src, tgt = (tinyffn.tensor(INPUTS[k], device=device, requires_grad=True) for k in "mx")
    causal = tinyffn.tensor(BOOL_INPUTS["causal"], device=device)
    kpm = tinyffn.tensor(BOOL_INPUTS["kpm_m"], device=device)
    assert len(list(model.parameters())) == 12 + 2 + 18 + 2
    # the inputs and one parameter of each part; the layers' own gradchecks take every one
    named = dict(model.named_parameters())
    params = [named[k] for k in ("encoder.layers.0.linear1.weight", "encoder.norm.weight",
                                 "decoder.layers.0.multihead_attn.in_proj_weight",
                                 "decoder.norm.bias")]

    def f(src, tgt, *params):
        return model(src, tgt, tgt_mask=causal, src_key_padding_mask=kpm,
                     memory_key_padding_mask=kpm)
    assert tinyffn.gradcheck(f, [src, tgt, *params])


# ----------------------------------------------------------------------------- the modules
def test_names_are_pytorchs():
    torch = pytest.importorskip("torch")
    for kw in ({}, {"bias": False}):
        ours = nn.TransformerDecoderLayer(8, 2, 16, **kw)
        theirs = torch.nn.TransformerDecoderLayer(8, 2, 16, **kw)
        assert ({k: tuple(v.shape) for k, v in ours.state_dict().items()}
                == {k: tuple(v.shape) for k, v in theirs.state_dict().items()})
        assert list(ours.state_dict()) == list(theirs.state_dict())
        assert str(ours) == str(theirs)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = torch.nn.Transformer(8, 2, 2, 3, 16, **kw)
        ours = nn.Transformer(8, 2, 2, 3, 16, **kw)
        assert ({k: tuple(v.shape) for k, v in ours.state_dict().items()}
                == {k: tuple(v.shape) for k, v in theirs.state_dict().items()})
        assert list(ours.state_dict()) == list(theirs.state_dict())
        ours.load_state_dict({k: tinyffn.tensor(v.numpy()) for k, v in
                              theirs.state_dict().items()})
        for a, b in zip(ours.decoder.layers, theirs.decoder.layers):
            assert str(a) == str(b)


def test_names_and_sizes_written_out():
    layer = nn.TransformerDecoderLayer(8, 2, 16)
    assert list(layer.state_dict()) == DECODER_PARAMETERS
    d, d_ff = 8, 16
    assert sum(p.numel() for p in layer.parameters()) == \
        2 * (4 * d * d + 4 * d) + 2 * d * d_ff + d_ff + d + 6 * d
    assert layer.activation is tinyffn.functional.relu and layer.dropout3.p == 0.1
    model = nn.Transformer()
    assert (model.d_model, model.nhead, model.batch_first) == (512, 8, False)
    assert len(model.encoder.layers) == len(model.decoder.layers) == 6
    assert sum(p.numel() for p in model.parameters()) == 44140544      # torch's count
    assert model.encoder.norm.normalized_shape == model.decoder.norm.normalized_shape == (512,)
    model = nn.Transformer(8, 2, 1, 1, 16, layer_norm_eps=0.25)     # the final norms' too
    assert {m.eps for m in model.modules() if isinstance(m, nn.LayerNorm)} == {0.25}
    assert model.encoder.norm.eps == model.decoder.norm.eps == 0.25


def test_reset_parameters_is_xavier_on_every_matrix_as_pytorch():
    """Each parameter with two axes within xavier's bound sqrt(6 / (fan_in + fan_out));
    linear2.weight (8, 512) beyond Linear's own bound 1/sqrt(512), so it was redrawn;
    vectors untouched: LayerNorm gains 1, attention biases 0, Linear biases nonzero."""
    model = nn.Transformer(8, 2, 1, 1, 512)
    for name, p in model.named_parameters():
        w = np.abs(p.numpy())
        if p.ndim > 1:
            assert w.max() <= math.sqrt(6 / sum(p.shape)), name
        elif "norm" in name and name.endswith("weight"):
            assert (w == 1).all(), name
        elif "in_proj_bias" in name or "out_proj.bias" in name or "norm" in name:
            assert (w == 0).all(), name
        else:
            assert w.max() > 0, name
    assert np.abs(model.decoder.layers[0].linear2.weight.numpy()).max() > 1 / math.sqrt(512)
    custom = nn.Linear(8, 512)          # used as given, and redrawn too, as PyTorch
    model = nn.Transformer(8, 2, 1, 1, 16, custom_encoder=custom)
    assert model.encoder is custom
    assert np.abs(custom.weight.numpy()).max() <= math.sqrt(6 / 520) < 1 / math.sqrt(8)


def test_a_custom_decoder_is_used_and_given_the_memory():
    class Memory(nn.Module):                    # a decoder that returns what it is given
        def forward(self, tgt, memory, **masks):
            return memory
    decoder = Memory()
    model = nn.Transformer(4, 2, 1, 1, 8, dropout=0.0, custom_decoder=decoder)
    assert model.decoder is decoder
    src, tgt = tinyffn.tensor(INPUTS["x"]), tinyffn.zeros(2, 2, 4, dtype="float64")
    model.to(tinyffn.float64)
    np.testing.assert_array_equal(model(src, tgt).numpy(), model.encoder(src).numpy())


def test_dropout_only_in_training():
    layer = _decoder_layer()
    x, mem = tinyffn.tensor(INPUTS["x"]), tinyffn.tensor(INPUTS["m"])
    a = layer(x, mem).numpy()
    np.testing.assert_array_equal(layer(x, mem).numpy(), a)       # eval: deterministic
    layer.train()
    assert not np.allclose(layer(x, mem).numpy(), a)               # p = 0.1 on 6 dropouts
    np.testing.assert_array_equal(_decoder_layer(dropout=0.0).train()(x, mem).numpy(), a)


@pytest.mark.parametrize("i, zeroed", [(1, "self_attn.out_proj"),
                                       (2, "multihead_attn.out_proj"), (3, "linear2")])
def test_each_dropout_sits_after_its_block(i, zeroed):
    """dropout{i} with p = 1 (the rest 0, training) drops block i's output: the same as
    zeroing the Linear that ends that block (self-attention, cross-attention, FFN)."""
    x, mem = tinyffn.tensor(INPUTS["x"]), tinyffn.tensor(INPUTS["m"])
    layer = _decoder_layer(dropout=0.0).train()
    getattr(layer, f"dropout{i}").p = 1.0
    reference = _decoder_layer()
    with tinyffn.no_grad():
        for w in reference.get_submodule(zeroed).parameters():
            w.mul_(0.0)
    np.testing.assert_allclose(layer(x, mem).numpy(), reference(x, mem).numpy(), rtol=1e-12)


def test_the_decoders_layers_are_copies_not_one_layer():
    layer = _decoder_layer()
    dec = nn.TransformerDecoder(layer, 3)
    p = [m.multihead_attn.in_proj_weight for m in dec.layers]
    assert len({id(w) for w in p} | {id(layer.multihead_attn.in_proj_weight)}) == 4
    for w in p:
        np.testing.assert_array_equal(w.numpy(), layer.multihead_attn.in_proj_weight.numpy())
    with tinyffn.no_grad():
        p[0].mul_(2.0)
    np.testing.assert_array_equal(p[1].numpy(), layer.multihead_attn.in_proj_weight.numpy())


def test_refusals_say_what_to_do():
    with pytest.raises(ValueError, match="TransformerDecoderLayer: activation should be "
                                         "'relu' or 'gelu'.*not 'swish'"):
        nn.TransformerDecoderLayer(8, 2, activation="swish")
    with pytest.raises(ValueError, match="TransformerDecoderLayer: d_model must be a positive"):
        nn.TransformerDecoderLayer(0, 2)
    layer = nn.TransformerDecoderLayer(8, 2, 16)
    with pytest.raises(ValueError, match=r"TransformerDecoderLayer: input of shape "
                                         r"\(3, 2, 4\) must end in d_model=8"):
        layer(tinyffn.zeros(3, 2, 4), tinyffn.zeros(5, 2, 8))
    with pytest.raises(ValueError, match=r"TransformerDecoderLayer: memory of shape "
                                         r"\(5, 2, 4\) must end in d_model=8"):
        layer(tinyffn.zeros(3, 2, 8), tinyffn.zeros(5, 2, 4))
    with pytest.raises(TypeError, match="memory .the encoder's output. must be a tinyffn"):
        layer(tinyffn.zeros(3, 2, 8), None)
    with pytest.raises(ValueError, match=r"memory of shape \(\) must end in d_model=8"):
        layer(tinyffn.zeros(3, 2, 8), tinyffn.tensor(1.0))
    with pytest.raises(ValueError, match="is_causal=True is a hint.*needs attn_mask"):
        layer(tinyffn.zeros(3, 2, 8), tinyffn.zeros(5, 2, 8), memory_is_causal=True)
    with pytest.raises(TypeError, match=r"decoder_layer must be a module "
                                        r"\(nn.TransformerDecoderLayer"):
        nn.TransformerDecoder("layer", 2)
    with pytest.raises(ValueError, match="TransformerDecoder: num_layers must be a positive"):
        nn.TransformerDecoder(layer, 0)
    model = nn.Transformer(8, 2, 1, 1, 16)
    with pytest.raises(ValueError, match=r"one batch size N, got src \(5, 2, 8\), tgt "
                                         r"\(3, 3, 8\) \(batch_first=False"):
        model(tinyffn.zeros(5, 2, 8), tinyffn.zeros(3, 3, 8))
    with pytest.raises(ValueError, match=r"one batch size N, got src \(2, 5, 8\), tgt "
                                         r"\(3, 3, 8\) \(batch_first=True"):
        nn.Transformer(8, 2, 1, 1, 16, batch_first=True)(tinyffn.zeros(2, 5, 8),
                                                         tinyffn.zeros(3, 3, 8))
    with pytest.raises(ValueError, match=r"must end in d_model=8, got src \(5, 2, 8\), tgt "
                                         r"\(3, 2, 4\)"):
        model(tinyffn.zeros(5, 2, 8), tinyffn.zeros(3, 2, 4))
    with pytest.raises(ValueError, match="both be batched.*or both unbatched"):
        model(tinyffn.zeros(5, 8), tinyffn.zeros(3, 2, 8))
    with pytest.raises(TypeError, match="Transformer: tgt must be a tinyffn Tensor"):
        model(tinyffn.zeros(5, 2, 8), [0.0])


def test_pytorch_refuses_the_same_shapes():
    """The two checks nn.Transformer.forward makes, refused by torch too (RuntimeError
    there; ValueError here, as tinyffn's other shape errors)."""
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = torch.nn.Transformer(8, 2, 1, 1, 16)
    with pytest.raises(RuntimeError, match="batch number of src and tgt must be equal"):
        model(torch.zeros(5, 2, 8), torch.zeros(3, 3, 8))
    with pytest.raises(RuntimeError, match="feature number of src and tgt must be equal"):
        model(torch.zeros(5, 2, 8), torch.zeros(3, 2, 4))


# torch 2.13's values and gradients, float64, written out
inf = math.inf
EXPECTED = {
    'dec(2)(x, m, tgt_mask=gsm(3, dtype=f64))':
        ('float64',
         [[[0.7667100169413301, 0.07163867246822317, -1.023174367496762, -0.2089442534490064],
           [0.781413249919088, 0.024315724576155304, -0.9645379169002444, -0.23050983956214424]],
          [[0.7831591818226766, 0.024210919531588063, -0.9451585084893859, -0.2437129993596634],
           [0.3888974979870421, 0.9914122903312563, -0.1681096899487279, -0.8719089701035269]],
          [[0.42854868107673677, 0.6780226609461403, -1.7008286975758506, 0.18002420584084522],
           [0.7320740949178235, 0.12950241342198804, -1.1857782355817674, -0.11151594717367115]]]),
    'dec(2, norm_first=True, final_norm=True)(x, m, tgt_key_padding_mask=kpm_t, memory_key_padding_mask=kpm_m)':
        ('float64',
         [[[0.5976704914402875, -0.48629837512542545, -1.2781277055167128, 0.16047824971148147],
           [0.594047452555592, -0.5977885665691196, -1.2840387287002628, 0.25389961375147]],
          [[0.5936459948297989, -0.170650988659207, -1.1323562979512436, -0.16858460476361292],
           [0.5197660150615043, 0.17400914448911184, -0.6232355252236433, -0.6590141841471356]],
          [[0.46732659083161415, 0.29105876827621446, -0.44151707887717273, -0.7922470582860622],
           [0.5441128656781598, 0.11250951066718617, -1.0623385987579694, -0.35805573077704406]]]),
    'tdl()(x, m)':
        ('float64',
         [[[0.8652163635560273, -0.652048023638974, -0.9105999060313904, 0.44678688151997287],
           [1.182547637082972, -0.7450869098675144, -0.8376508736910868, 0.3026693464137489]],
          [[1.4070175879869582, -0.8760059321594252, -0.6918367362313566, 0.1762024219314416],
           [0.24896900273887923, -0.2698374184686084, 1.8597664906113804, -0.8250998689051547]],
          [[-1.076929198541147, 0.3875732800228673, -0.5834143785946404, 0.7671709045111521],
           [0.7016447994317576, -0.4531795534130388, -0.9965857369957836, 0.49154823663601316]]]),
    'tdl()(x, m, memory_mask=fmask, memory_key_padding_mask=fkpm)':
        ('float64',
         [[[0.8728458633094854, -0.6566784110826114, -0.9084242923338127, 0.4439658028634699],
           [1.1664212148245243, -0.7486752408341825, -0.8388915337363804, 0.31172186363671267]],
          [[1.4136147090113516, -0.8851474793286971, -0.683247040051227, 0.17219680855865477],
           [0.5293332140463314, -0.5043822868968781, 1.7385229411485177, -0.8034622487283344]],
          [[-1.372425036049758, 1.6410701989276788, -0.6875550905031221, 0.501403950107984],
           [0.840434566019299, -0.5395966482674821, -0.9655766963067335, 0.4453658527531461]]]),
    'tdl()(x, m, tgt_mask=gsm(3, dtype=f64), tgt_is_causal=True)':
        ('float64',
         [[[1.128073298621292, -0.7662309805177796, -0.8360208321122927, 0.33352598161853864],
           [1.245119957615814, -0.7519296306584755, -0.8194817771749097, 0.26820463686058654]],
          [[1.4748137700291053, -0.9521448248710307, -0.6082889285577511, 0.13105503913479888],
           [-1.6047324166377623, 1.2537171136574188, 1.8308332054599024, -0.5364283214685748]],
          [[-1.076929198541147, 0.3875732800228673, -0.5834143785946404, 0.7671709045111521],
           [0.7016447994317576, -0.4531795534130388, -0.9965857369957836, 0.49154823663601316]]]),
    'tdl(activation=act_module)(x, m)':
        ('float64',
         [[[0.8887711096220847, -0.5973640801982363, -0.9385847987132274, 0.430976160528522],
           [1.1983746716676666, -0.714200800604917, -0.8504120253144261, 0.29107579943985773]],
          [[1.4418177428784118, -0.8006477291510319, -0.7169049429336576, 0.14652142349623437],
           [0.08896349137197031, 0.18106069166032338, 1.814628081307393, -0.8930321723447991]],
          [[-1.0605646171678949, 0.5672380591626854, -0.6682383429088595, 0.7386090581426927],
           [0.6993381777654298, -0.41524673990064354, -1.0137638636361632, 0.4876960616996064]]]),
    'tdl(batch_first=True)(xb, mb, tgt_key_padding_mask=kpm_t, memory_key_padding_mask=kpm_m)':
        ('float64',
         [[[1.0815659836265918, -0.7408461611609232, -0.8557752820391558, 0.3550396306664658],
           [1.3058089694417403, -0.7679189560825608, -0.7928990930209496, 0.2335780240511808],
           [1.4518846853988234, -0.9268796128781638, -0.6377688213984701, 0.14711982988493782]],
          [[-2.310729582548594, 1.348565877093038, 1.296290079769903, 0.013537092695900305],
           [-2.2887106722967094, 1.2707589191900868, 0.6058223497759757, 0.38249356466163703],
           [-0.5307860923606357, 0.1668687199407457, -0.8480622985302824, 0.739103078667012]]]),
    'tdl(bias=False, layer_norm_eps=0.1)(x[:, 0], m[:, 0])':
        ('float64',
         [[-0.5068314155551245, -0.9674667310075923, -0.5413762937242315, 1.2832789001381895],
          [0.7290170149546653, 1.3958969533089212, -0.5370228329472216, -1.1059794057811752],
          [-0.5514835353307911, -1.747604889276273, 0.9792828067123249, 0.887668031436496]]),
    'tdl(norm_first=True)(x, m)':
        ('float64',
         [[[0.9440993254357196, -2.456978711011847, -2.526772083864631, 0.6747487401948309],
           [2.328166806136526, -2.417114799909014, -3.455232054737156, -0.31869616772518805]],
          [[1.4424548555252694, -1.3329625809748804, -1.7266798712952856, -0.2569815485985447],
           [-0.3416880628591302, -0.12031803326064128, 0.5790217060403426, -0.2646771343050749]],
          [[-1.3033117714349083, 0.7939925966384695, 1.420155725671656, -0.6345282328789655],
           [0.18498810374530417, -1.0126405222397175, -1.1637381449769837, 0.07589722934327614]]]),
    "tdl(norm_first=True, activation='gelu')(x, m, tgt_mask=causal, memory_mask=mem_mask, tgt_key_padding_mask=kpm_t, memory_key_padding_mask=kpm_m)":
        ('float64',
         [[[2.5578083809400014, -1.8578789157942452, -2.8087780574929115, -0.44757925637635254],
           [1.9905827734996815, -0.20983768044593876, -0.9491548243273963, -0.46562821019740785]],
          [[1.108008865090938, -0.5954783650252184, -0.811976850574357, -0.2717698949845526],
           [-1.4399133514603795, 0.8053276984165421, 1.761523068368008, -0.5822466946914324]],
          [[-1.6922762374272415, 1.2365900553390357, 2.344539426825606, -0.4408711982824768],
           [0.12937792760300398, 0.6698855738015873, 0.289488664322514, -0.7978622158720857]]]),
    'tf()(m, x, tgt_mask=gsm(3, dtype=f64), src_key_padding_mask=kpm_m, memory_key_padding_mask=kpm_m)':
        ('float64',
         [[[0.3560996629943496, 0.19684706665859822, -1.855369567561645, 0.36956268156616],
           [0.31688356284888625, 0.2659569605108895, -1.9066387813458194, 0.4071625851014038]],
          [[0.39966860543149396, 0.12345180471464212, -1.7864298675153467, 0.3173361909432397],
           [0.39568768102155344, 0.15643746608207765, -1.7854214007183318, 0.29741342314620384]],
          [[0.24289992158642348, 0.38809867669685805, -1.9842807839697443, 0.47175997257030294],
           [0.269187390965878, 0.34302242366889274, -1.9600213314785242, 0.4522689437722565]]]),
    "tf(activation='gelu')(m, x, src_mask=fsrc, memory_mask=fmask)":
        ('float64',
         [[[0.3000385748592054, 0.34621281369637313, -1.9109343691241585, 0.373378537046767],
           [0.3231665204997314, 0.31268325315874534, -1.8813426761582717, 0.34616002273273827]],
          [[0.41221448531489574, 0.15693951768218156, -1.7457460418067057, 0.24725125329664144],
           [0.4197766430271865, 0.15963463374386624, -1.7249788475788816, 0.22071214395228111]],
          [[0.24811840573043564, 0.42939681632987714, -1.9647976825873972, 0.4202162800538203],
           [0.2191914962897323, 0.4488825592135295, -1.9979766100166396, 0.46871906601598723]]]),
    'tf(bias=False)(m[:, 1], x[:, 1], tgt_mask=gsm(3, dtype=f64), tgt_is_causal=True)':
        ('float64',
         [[1.001908233458693, -1.3544928850871003, -0.09234803476647617, -0.44964294285839795],
          [0.7048504055240615, -0.7648578981150048, 1.1936268578045153, -1.3597597597147857],
          [0.2785126414647999, -2.0421496698603976, 0.41172802550401805, 0.9986100787813483]]),
    'tf(norm_first=True, batch_first=True)(mb, xb, tgt_mask=causal, src_key_padding_mask=kpm_m, tgt_key_padding_mask=kpm_t, memory_key_padding_mask=kpm_m)':
        ('float64',
         [[[0.5967596904006317, -0.5670250832450079, -1.2780056101672774, 0.22277172137345208],
           [0.6002663856006766, -0.35548079340222183, -1.2382282168807865, 0.0315145225035225],
           [0.5952076479434987, -0.1937309732060942, -1.1498327688148386, -0.14184567255955405]],
          [[-1.5284491587908, -0.4526285631742866, 2.0727324785600887, 0.9694832359621008],
           [-1.50014219946031, -0.6233280167877031, 1.9575972822002556, 1.1339671628420223],
           [-1.4545271731151916, -0.8005370009640611, 1.7950432243440686, 1.3098503884100914]]]),
}
EXPECTED_GRADS = {
    'tdl(batch_first=True)(xb, mb, tgt_key_padding_mask=kpm_t, memory_key_padding_mask=kpm_m) dxb':
        ('float64',
         [[[0.007762407216308201, 0.002154700073055718, -0.027194740434079705,
            0.007480217899228401],
           [0.0008619355717865112, 0.01653507075516048, 0.0054589063930113365,
            -0.02695427366883263],
           [-0.017829539925736777, 0.014408598902513125, 0.03708781740055724, -0.0315584152913384]],
          [[0.5476281412763744, 0.3539400534233076, -0.07097286691677951, -1.1359973943710093],
           [-0.7002416846649457, 0.5110067311472677, 0.9750006828942186, -0.7857657293765404],
           [-0.1878217100922303, 0.30597663372250417, -0.2980696286946998, 0.17991470506442592]]]),
    'tdl(batch_first=True)(xb, mb, tgt_key_padding_mask=kpm_t, memory_key_padding_mask=kpm_m) dmb':
        ('float64',
         [[[0.003211899654768496, 0.0033705518421670543, -0.0014086623155722291,
            -0.004124182880853406],
           [0.020782137552460445, 0.030220629904792354, -0.0046141713528021775,
            -0.03268920076868786],
           [0.004368244391611526, -0.0055061703689461665, -0.007314032639412526,
            0.0015931800418164984],
           [0.0, 0.0, 0.0, 0.0]],
          [[0.41115658269228905, 0.4751870597577173, -0.15693261896678595, -0.5591456432509267],
           [0.6038600234473459, 0.32110329796795223, -0.4320705112995072, -0.5522600092796426],
           [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]]),
    'tdl()(x, m, memory_mask=fmask, memory_key_padding_mask=fkpm) dm':
        ('float64',
         [[[0.1053458126134887, 0.07353223728526549, -0.06600623793358121, -0.10884541994356298],
           [-0.23236934159632883, 0.49174317722457345, 0.49545078937974063, -0.22667816562415563]],
          [[0.35802538585681887, 0.271999972338729, -0.21250603788375838, -0.38569020475784405],
           [0.05134974206823995, 0.26360257385131225, 0.08967701738706477, -0.21562557964013954]],
          [[0.5515474197757779, 0.942204458323415, -0.04747024192302211, -0.9676009265412854],
           [0.0, 0.0, 0.0, 0.0]],
          [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]]),
    'dec(2, norm_first=True, final_norm=True)(x, m, tgt_key_padding_mask=kpm_t, memory_key_padding_mask=kpm_m) dx':
        ('float64',
         [[[0.12230121376653796, 0.006846036791249024, -0.06792353174244099, -0.06122371881534607],
           [0.06683771053164027, 0.5438303757961597, 0.40898821102387395, -1.0196562973516738]],
          [[0.11973014422741696, -0.011839754549696727, -0.02004743401727295, -0.08784295566044745],
           [-0.12016181566658432, -0.029821734815511414, 0.30835631153737025,
            -0.15837276105527417]],
          [[-0.003263578256739427, -0.04568313398213897, 0.496598669475417, -0.4476519572365386],
           [-0.8829169871592839, 0.37251015289300615, 0.3867344101080026, 0.12367242415827519]]]),
    'tf(norm_first=True, batch_first=True)(mb, xb, tgt_mask=causal, src_key_padding_mask=kpm_m, tgt_key_padding_mask=kpm_t, memory_key_padding_mask=kpm_m) dmb':
        ('float64',
         [[[0.0016343781799325894, -0.0038623879383022195, 0.005775876521252746,
            -0.0035478667628831145],
           [0.0024107054790537866, -0.0012983723375081084, -0.0015815010424022802,
            0.0004691679008565997],
           [0.00026352387738598574, 0.0004149656219717859, -0.0005006819510107873,
            -0.00017780754834698372],
           [0.0, 0.0, 0.0, 0.0]],
          [[0.33967543558962954, -0.15047488544066595, -0.33421820562221155, 0.14501765547324788],
           [-0.7421961827797494, 0.7975188258488404, 0.33789259074211886, -0.3932152338112098],
           [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]]),
    "tf(activation='gelu')(m, x, src_mask=fsrc, memory_mask=fmask) dx":
        ('float64',
         [[[-0.0022839548269167156, 0.01010032602620499, -0.0026075518594794126,
            -0.0011859032135192755],
           [-0.004943349618025764, 0.009875488605450903, -0.006389327672979575,
            0.005522163401479634]],
          [[0.0008659680793551951, 0.024942971497480287, -0.02126045045522335,
            0.0030004822703583005],
           [-0.0653715865602983, 0.16973850957558026, -0.10528268439019878, 0.0303436899687744]],
          [[-0.09478384763748073, 0.13053054916228207, -0.04773581523206099, 0.028370148366371653],
           [-0.09952103256973682, 0.09644550317074506, -0.01105760239155881, 0.03092079569047628]]]),
}
EXPECTED_ALL_GRADS = {
    'tdl()(x, m, tgt_mask=gsm(3, dtype=f64), tgt_is_causal=True)':
        {'linear1.bias': ('float64',
                          [-0.7908898194866092, -0.8004661132080075, 0.6199485323610908,
                           1.2220713213660739, 0.12216339238378082, -0.8330757039898051]),
         'linear1.weight': ('float64',
                            [[0.08422616721210452, -0.14412354420019352, 0.10973246533300263,
                              0.672314475523413],
                             [0.18991782456421716, -0.24954180465337095, -0.07325190257923597,
                              0.7335140914171965],
                             [-0.5462301659943047, -0.28599167091559985, 0.23619253209596935,
                              1.0991775708668914],
                             [-0.7159377013348964, -1.1812748369882056, -0.42337196357861373,
                              2.9990235530730076],
                             [0.0827950916186766, -0.17445788218679206, -0.28845432471473176,
                              0.20226717674930916],
                             [-0.22364577419991188, 0.6082177968228819, 1.0016163663390076,
                              -0.4766625602023926]]),
         'linear2.bias': ('float64',
                          [0.5943564515587987, 2.4047385383310136, -1.203634949448541,
                           -1.795460040441272]),
         'linear2.weight': ('float64',
                            [[0.2738014533434386, 0.49558676908932464, -0.03403910535774568,
                              -0.10035795813888876, 0.22386727443778537, 0.350523070676572],
                             [0.36375761041955806, 0.6841403127098287, 1.8898575789032388,
                              2.376605177383755, 0.9742198585477306, 0.5024662571273492],
                             [-0.1506099262684607, -0.3696776949471359, -0.8718159653250946,
                              -1.1559685370255723, -0.5669942219758606, -0.22668401408182845],
                             [-0.4869491374945361, -0.8100493868520177, -0.9840025082203987,
                              -1.1202786822192938, -0.6310929110096559, -0.6263053137220929]]),
         'm': ('float64',
               [[[0.07231565333330112, 0.04423908176370218, -0.0486478482308657,
                  -0.07026556659742877],
                 [0.0726471362563145, -0.032291520248582874, -0.08992302393832048,
                  -0.015817086891180398]],
                [[0.04608350671740119, 0.049345128037554434, -0.019683978820648942,
                  -0.0598760105919441],
                 [0.10928746142067206, -0.0679045069950687, -0.14561621357969384,
                  -0.009999826127563321]],
                [[0.05926066173445549, 0.10281363746472431, -0.004255606557561882,
                  -0.10509037700319449],
                 [0.049734818695041476, -0.047121718229168344, -0.07494482755320211,
                  0.007026411065261429]],
                [[0.07175537561757328, 0.04339983715442357, -0.04853656441496093,
                  -0.06936678540735136],
                 [0.07569821453379502, -0.037139241931729836, -0.09556762195928066,
                  -0.013989211925360446]]]),
         'multihead_attn.in_proj_bias': ('float64',
                                         [0.2852571070569254, -0.061036021378095696,
                                          -0.16888122675081832, -0.08378293850087028,
                                          1.0408340855860843e-17, -6.938893903907228e-18, 0.0,
                                          1.5178830414797062e-18, 0.07099098296969754,
                                          0.6568334762407481, 0.28041338802193433,
                                          -0.5068129705877111]),
         'multihead_attn.in_proj_weight': ('float64',
                                           [[-0.28958509219094447, -0.033842368275850215,
                                             0.022865886335415093, 0.1194281603961055],
                                            [0.07992648300771432, -0.015683342919479946,
                                             -0.015243575791150222, 0.02087549410518903],
                                            [0.164923323941326, 0.04206523969228027,
                                             -0.007563386127497656, -0.11783251293840173],
                                            [0.06352211733740339, 0.05680248993610045,
                                             0.00891938476793645, -0.13372422180237623],
                                            [0.07551554364027233, 0.03011800041114549,
                                             -0.05940248397927988, -0.06189819017484179],
                                            [0.03824742551387178, 0.04534942688211098,
                                             -0.013985588374349798, -0.052831683897639314],
                                            [0.032443395412768666, 0.05165311709269522,
                                             -0.0048090987785595115, -0.05422597367270448],
                                            [-0.0318141548495784, -0.01267591431256499,
                                             0.02503257038886487, 0.026068280825532704],
                                            [0.017438842594514045, -0.06604578206805249,
                                             -0.05277318127211152, 0.03781225372188646],
                                            [-0.1065990281214112, -0.044445285746792976,
                                             0.08282090437110715, 0.08875427555659252],
                                            [-0.14912987195769398, -0.009310930221395102,
                                             0.1441485461024372, 0.08643006468207358],
                                            [0.06881912979276578, 0.07332192016741917,
                                             -0.029592074278185845, -0.08915361057939139]]),
         'multihead_attn.out_proj.bias': ('float64',
                                          [-0.4311807970107039, 1.5706779593161064,
                                           -0.7991209828871817, -0.34037617941822096]),
         'multihead_attn.out_proj.weight': ('float64',
                                            [[-0.052642871813613795, 0.12082254913082131,
                                              0.31698150858913166, -0.07068063121106932],
                                             [0.5191813445622869, -0.3384417625050231,
                                              -1.0847905285805408, -0.12184984619325773],
                                             [-0.31433910527197473, 0.14806921467374745,
                                              0.5286347915880889, 0.1521130790689134],
                                             [-0.15219936747669843, 0.06954999870045434,
                                              0.23917422840332023, 0.040417398335413655]]),
         'norm1.bias': ('float64',
                        [-0.61340479306413, 1.6666688629150845, -0.5655420782910711,
                         -0.31140291627545114]),
         'norm1.weight': ('float64',
                          [0.5420074626725355, -0.9784731132783596, -0.5573546914035542,
                           -0.0486871114890564]),
         'norm2.bias': ('float64',
                        [-0.8524749685978905, 1.2348752944783759, -0.3826776240549342,
                         -0.1863865508015059]),
         'norm2.weight': ('float64',
                          [0.7198004357748194, -0.34998771638804466, -0.1160122290767931,
                           0.24934140716015515]),
         'norm3.bias': ('float64', [6.6, 7.2, 7.799999999999999, 8.4]),
         'norm3.weight': ('float64',
                          [1.148608843609233, -1.681520469363623, -5.349421728196305,
                           5.906600747568664]),
         'self_attn.in_proj_bias': ('float64',
                                    [-0.30075300739708, -0.007213416168422748, 0.21304974014042327,
                                     0.2883190422049313, 1.0408340855860843e-17,
                                     1.3877787807814457e-17, -2.42861286636753e-17,
                                     2.2551405187698492e-17, -0.08935128904951521,
                                     -0.7293867655901416, -0.3008689217697634,
                                     0.5684225973042343]),
         'self_attn.in_proj_weight': ('float64',
                                      [[0.20663938219895536, -0.09434449388908316,
                                        -0.2571134654039741, -0.04321060774926014],
                                       [0.07606425149962477, 0.0921617061156385,
                                        -0.026757954639671105, -0.10647714916064231],
                                       [-0.14581031097540306, 0.06998137511758322,
                                        0.1832501827143859, 0.02805704332509676],
                                       [-0.24761251628558742, 0.021201021511698784,
                                        0.2589550131256357, 0.11733930384344606],
                                       [-0.06357688384965891, 0.0014053372621773464,
                                        0.06432873599256879, 0.03301038578764769],
                                       [-0.0758545308023769, -0.11910575210099776,
                                        0.01213323246344204, 0.125597003043799],
                                       [-0.09937086430374559, -0.09999296810664622,
                                        0.045874860625298344, 0.12453591106781339],
                                       [0.0917592950528864, 0.03366490653053708,
                                        -0.07374864892753659, -0.07312026093206114],
                                       [-0.09301154697623329, -0.042769876644271294,
                                        0.07012976317071185, 0.0802891356440416],
                                       [-0.25882984538611103, -0.22186979908330307,
                                        0.14013002266219846, 0.29683903291785285],
                                       [0.0795966530938594, 0.009485657419659257,
                                        -0.07452184859687344, -0.04935467183286444],
                                       [0.23489110194923551, 0.14061672504410358,
                                        -0.15966148348058853, -0.22603524465914612]]),
         'self_attn.out_proj.bias': ('float64',
                                     [-0.8845937769658708, 1.6593490604291183, -0.20394612235779722,
                                      -0.5708091611054504]),
         'self_attn.out_proj.weight': ('float64',
                                       [[0.07282137095936664, -0.12666852392155392,
                                         -0.459217903373635, 0.0665391635840043],
                                        [-0.10845326413948964, 0.11681547659791065,
                                         0.4639358660395625, -0.1986874896142444],
                                        [-0.01671386141992689, -0.03529292590431665,
                                         -0.04158410089066676, 0.04562957506547307],
                                        [0.05234575460004991, 0.045145973227959935,
                                         0.03686613822473922, 0.08651875096476706]]),
         'x': ('float64',
               [[[0.07154373100683897, 0.03303750978090577, -0.07212910581667531,
                  -0.049243177465707416],
                 [0.0796828625025089, -0.2742366572070995, -0.23538454284779656,
                  0.13590238915396208]],
                [[0.1559827089336544, 0.17205448524236797, -0.046415472022212044,
                  -0.24665528172752899],
                 [0.11140256586894369, 0.40145515249287517, -0.20798284792028435,
                  -0.3769488904779183]],
                [[-0.9810445949161211, 1.2177905699337104, 0.11107714006259045,
                  -0.1886222124265535],
                 [-0.04484408766382553, 0.0652185018693484, -0.05398393496074384,
                  0.03782135201111243]]])},
    "tdl(norm_first=True, activation='gelu')(x, m, tgt_mask=causal, memory_mask=mem_mask, tgt_key_padding_mask=kpm_t, memory_key_padding_mask=kpm_m)":
        {'linear1.bias': ('float64',
                          [0.12371947322799905, 1.050272350258373, 0.49186804143214735,
                           -0.15388910964640173, 0.017424543503090098, 0.2228652853579914]),
         'linear1.weight': ('float64',
                            [[0.1827192775303018, 0.07544762436707612, -0.05064600661232375,
                              -0.06568985009042509],
                             [-0.139017314203511, 0.8189934840985661, 0.8380474324194787,
                              -0.518016609117828],
                             [-0.5441841254517195, 0.06016399491444052, 0.8654803473780681,
                              -0.15498448714517368],
                             [0.29635543268945663, 0.10683277629385478, -0.3992265025001678,
                              0.012899977676917083],
                             [-0.06584019033852792, 0.11785887341998122, 0.018233438976200278,
                              -0.020066933595560218],
                             [0.31634847132684396, 0.20523070707572097, -0.09496742495277004,
                              -0.13562621155875818]]),
         'linear2.bias': ('float64',
                          [6.6000000000000005, 7.199999999999999, 7.800000000000001, 8.4]),
         'linear2.weight': ('float64',
                            [[1.3950516608146475, 7.246139605086125, 7.946430486749548,
                              1.2167844900947062, -0.742913643907837, 0.5543739777377954],
                             [1.7377654276532448, 7.882856408583003, 8.39214511805956,
                              1.2551990188789521, -0.8128586802757495, 0.7920138037990943],
                             [2.0804791944918417, 8.51957321207988, 8.83785974936957,
                              1.293613547663198, -0.882803716643662, 1.029653629860393],
                             [2.423192961330439, 9.15629001557676, 9.283574380679582,
                              1.3320280764474441, -0.9527487530115747, 1.2672934559216924]]),
         'm': ('float64',
               [[[0.01704064264718079, 0.8987746868603619, 0.46380170921797303,
                  -0.6506418590005817],
                 [0.12257037341698312, 1.4770324380211932, 0.6676385206053909,
                  -1.1198473936079996]],
                [[-0.08086453917170693, 0.2484769117766465, 0.2137991048527223,
                  -0.13409489155846793],
                 [0.10731910810682518, 2.7422841250659356, 1.3597964743150526,
                  -2.0147961969716928]],
                [[0.14066873087228426, 1.3209262355623985, 0.5660237105525703, -1.0181048764692882],
                 [0.0, 0.0, 0.0, 0.0]],
                [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]]),
         'multihead_attn.in_proj_bias': ('float64',
                                         [0.4207808085769229, 0.07800955833070534,
                                          -1.87551436755262, -1.9033653562911446,
                                          -1.3877787807814457e-16, -2.220446049250313e-16, 0.0,
                                          -1.1102230246251565e-16, -6.28741713765913,
                                          1.8154068371866698, 7.258655542508115,
                                          2.0679568728339173]),
         'multihead_attn.in_proj_weight': ('float64',
                                           [[-0.33931256816048205, -0.3977934874266855,
                                             0.46505729941957274, 0.6895713808763061],
                                            [-0.04681113129957283, -0.05068985070602566,
                                             0.06159476066109747, 0.07131698189239191],
                                            [1.4483108996663159, 1.8196318309652515,
                                             -1.910112041243167, -3.127108223045665],
                                            [1.4751417246518104, 1.7768772472586236,
                                             -1.9774201479342408, -3.0415602562477018],
                                            [0.2961213996522242, 0.26814087276944304,
                                             -0.15266666090782335, -0.3498171786951828],
                                            [0.38699629834668187, 0.3454207022046777,
                                             -0.20219703190181465, -0.4535956405748853],
                                            [0.6673706264449645, 0.4639106634363195,
                                             -0.4191795083336233, -0.6881707183616694],
                                            [-1.3868621626955573, -1.1467864304460988,
                                             0.773334109041751, 1.5605183670543146],
                                            [-1.155542761118019, 0.3998861350343015,
                                             1.3694809065277938, 0.33278294160555033],
                                            [0.4232524368689135, 0.046688600742970765,
                                             -0.39827414485118123, -0.2597643351812729],
                                            [0.6123570018503375, -1.0553217669531683,
                                             -1.176951674814338, 0.42565537823199806],
                                            [0.1304908683846985, -0.409509626078757,
                                             -0.3495775589578177, 0.22248645100943742]]),
         'multihead_attn.out_proj.bias': ('float64',
                                          [5.160083421799714, 8.87607161960914, 8.687534323971406,
                                           7.27631063461974]),
         'multihead_attn.out_proj.weight': ('float64',
                                            [[2.5160488119412143, 0.07143363375232192,
                                              -2.939067145343489, -1.419026110163986],
                                             [5.632756728848486, 1.894906583467062,
                                              -4.9936888208388375, -3.6281630915999026],
                                             [5.442565832927517, 1.6409306800177896,
                                              -4.971893733830502, -3.4747493615618232],
                                             [3.9922220603597918, 0.3847451811965922,
                                              -4.32744986697558, -2.394627145550251]]),
         'norm1.bias': ('float64',
                        [4.967571890733926, 2.393442021654665, -3.68708601638692,
                         -4.366024402497895]),
         'norm1.weight': ('float64',
                          [7.642861295181026, -0.33088975585062436, 5.032567118383001,
                           0.6958323909591563]),
         'norm2.bias': ('float64',
                        [-1.4496652982141587, 0.6678019239339621, 1.8069377630253185,
                         0.29890554607965086]),
         'norm2.weight': ('float64',
                          [1.4598855992936448, -0.3954299670424612, 1.2896842143868896,
                           0.20692561654953864]),
         'norm3.bias': ('float64',
                        [-0.049557571552573926, 0.6233823067440999, 0.38306564523125375,
                         -0.41844308397273516]),
         'norm3.weight': ('float64',
                          [0.2885614924147062, 0.07280464787067503, 0.46023366313301667,
                           0.2950562928590968]),
         'self_attn.in_proj_bias': ('float64',
                                    [-0.3944195178973616, -0.4030822244121937, 0.03263298450789831,
                                     0.817379808392011, 8.326672684688674e-17,
                                     1.942890293094024e-16, 8.326672684688674e-17,
                                     -2.7755575615628914e-17, 3.4619884120284237,
                                     -5.999245468439163, -6.671570682906083, 2.4299707829121164]),
         'self_attn.in_proj_weight': ('float64',
                                      [[0.48485885574600335, 0.01723959542611216,
                                        -0.07140433249332956, -0.11213649055864242],
                                       [0.49550789763631375, 0.01761823174818622,
                                        -0.07297259863688842, -0.11459936438519994],
                                       [-0.013371264228035865, 0.005596443834295492,
                                        -0.0029737987323296107, -0.012231635762600421],
                                       [-0.3349188423150733, 0.14017780653332218,
                                        -0.07448669114035905, -0.3063738192115181],
                                       [0.0020587327808656566, 0.007998461471907985,
                                        0.0008198254928037411, -0.01871413955331526],
                                       [-0.04242491691065303, -0.16482666741047047,
                                        -0.016894387040757408, 0.38564782325464014],
                                       [-0.028967493790086105, -0.1125427181085289,
                                        -0.011535392107451886, 0.2633181568467341],
                                       [-0.0376908797874298, -0.14643427870970574,
                                        -0.015009205848924012, 0.3426148312131315],
                                       [6.859771220696467, -0.029161149454724866,
                                        -3.628449395379416, -1.5587074147694069],
                                       [-12.079155988336916, -0.41805846014842546,
                                        6.267132766755091, 3.8119629201895537],
                                       [-13.285482689424423, -0.0522693388330292, 6.995928999749108,
                                        3.265321087560311],
                                       [4.920990230215813, 0.19403625339141947, -2.544422698484397,
                                        -1.6063029273459875]]),
         'self_attn.out_proj.bias': ('float64',
                                     [4.6869303054049, 9.199106613446812, 9.97686564144637,
                                      6.1370974397019165]),
         'self_attn.out_proj.weight': ('float64',
                                       [[-1.4052817303306542, -4.926900973999201,
                                         -3.291701603801623, 0.8765403922473368],
                                        [-2.6481347984735515, -10.90934994901055,
                                         -8.152702318186773, 1.4382446585593311],
                                        [-2.99177324754928, -11.772375270621946, -8.688943708553762,
                                         1.6473197331437275],
                                        [-2.3507011658104675, -6.5347220288829995,
                                         -4.126384101997428, 1.4412455648411775]]),
         'x': ('float64',
               [[[2.7469166916880416, 0.3858377964374459, -0.8573673663482098, -1.2753871217772776],
                 [0.9894789895913293, 1.458584015196374, 2.647299681184779, -2.495362685972482]],
                [[1.2524022358776636, 0.6947943726735257, 1.105098730767284, 1.147704660681527],
                 [1.2540152331755237, 1.426109383922808, 1.4737354876710618, 1.6461398952306063]],
                [[1.634255919867167, 2.155643233302722, 1.9572161550749412, 1.6528846917551694],
                 [0.3161188621678036, 3.9176281545073097, 4.2496709849883185,
                  0.5165819983365678]]])},
    'tf()(m, x, tgt_mask=gsm(3, dtype=f64), src_key_padding_mask=kpm_m, memory_key_padding_mask=kpm_m)':
        {'decoder.layers.0.linear1.bias': ('float64',
                                           [-0.07850232825965445, -0.14390954829155658, 0.0,
                                            0.015122433386699004, -0.026824445714519675,
                                            -0.131314051477055]),
         'decoder.layers.0.linear1.weight': ('float64',
                                             [[-0.012432437089836778, -0.0160303596901149,
                                               0.06448382325855186, 0.07501466974474058],
                                              [-0.011261188090474836, -0.06395579337819629,
                                               0.07361033838944613, 0.2027938013929707],
                                              [0.0, 0.0, 0.0, 0.0],
                                              [-0.0012374932716979446, -0.01183854878514695,
                                               -0.029576414032967836, 0.03517851413979633],
                                              [-0.0015773531565560282, 0.020430562232417033,
                                               0.05105604173911843, -0.049896543731060554],
                                              [-0.012243468929505808, -0.00782932405377147,
                                               0.1291922699017989, 0.05211624323826943]]),
         'decoder.layers.0.linear2.bias': ('float64',
                                           [-0.12237448483233818, 0.37075384344006146,
                                            -0.33653945412529196, 0.0881600955175687]),
         'decoder.layers.0.linear2.weight': ('float64',
                                             [[-0.013678568268618184, 0.006968466064729387, 0.0,
                                               -0.04606847345569794, -0.09836875233851204,
                                               -0.10418650794501247],
                                              [0.22674052908213813, 0.19947950333057304, 0.0,
                                               0.05935472646090538, 0.1324164055492232,
                                               0.2903911196163311],
                                              [-0.25225285153316757, -0.22562827049329684, 0.0,
                                               -0.025257454687087694, -0.07017498184305582,
                                               -0.26939639188571946],
                                              [0.03919089071964762, 0.01918030109799444, 0.0,
                                               0.011971201681880254, 0.03612732863234467,
                                               0.08319178021440082]]),
         'decoder.layers.0.multihead_attn.in_proj_bias': ('float64',
                                                          [-0.011112933511927284,
                                                           0.009478273593009536,
                                                           0.006931834478630599,
                                                           0.003778239221922928,
                                                           5.637851296924623e-18,
                                                           -7.752045533271357e-18,
                                                           1.1926223897340549e-17,
                                                           -1.8973538018496328e-18,
                                                           0.004233916828508034,
                                                           -0.03607714037832758,
                                                           -0.023535102411163057,
                                                           0.023485915725235555]),
         'decoder.layers.0.multihead_attn.in_proj_weight': ('float64',
                                                            [[0.006725626996068766,
                                                              0.004969261405594624,
                                                              0.0013653929707533935,
                                                              -0.011612839132713628],
                                                             [-0.006564836650607543,
                                                              -0.003951961785620433,
                                                              -0.0008013976802359561,
                                                              0.009445253242216097],
                                                             [-0.0029346089152824622,
                                                              -0.0007471324161697359,
                                                              -0.0008888559082628121,
                                                              0.0016576193141582985],
                                                             [-0.00210170425019797,
                                                              4.214345058234392e-05,
                                                              -0.0002307460555323218,
                                                              3.7650782747052905e-05],
                                                             [-0.0032572987432179772,
                                                              -0.00012868390222067067,
                                                              0.0022125018441682145,
                                                              4.089422125829416e-05],
                                                             [-0.01148237023070596,
                                                              -0.0026413204208169468,
                                                              0.008543654965608069,
                                                              0.000489418737067403],
                                                             [-0.0020183921054500054,
                                                              0.00020130414777137914,
                                                              0.0016368143741705213,
                                                              -0.00021950832023011747],
                                                             [-0.0022200241887892413,
                                                              -0.0005589528066606516,
                                                              0.0015499742743101256,
                                                              0.00016786236390454545],
                                                             [0.05191202491208782,
                                                              0.00011474117218577759,
                                                              -0.019254091838579734,
                                                              -0.008591288475736097],
                                                             [-0.03905451677258114,
                                                              0.05610315681765637,
                                                              -0.00713234105471845,
                                                              -0.0031023449149785547],
                                                             [-0.07249871963370863,
                                                              0.029323908096641194,
                                                              0.014700084312279538,
                                                              0.0074253132425046615],
                                                             [-0.0052255217004383,
                                                              -0.042106141539404805,
                                                              0.019367140765239522,
                                                              0.007300294722761216]]),
         'decoder.layers.0.multihead_attn.out_proj.bias': ('float64',
                                                           [-0.16770723703820883,
                                                            0.29873903745526764,
                                                            -0.3582452617506068,
                                                            0.22721346133354794]),
         'decoder.layers.0.multihead_attn.out_proj.weight': ('float64',
                                                             [[-0.19298649277442229,
                                                               -0.008709157114699361,
                                                               0.19141307617288159,
                                                               0.1406617982733557],
                                                              [0.3721876126250647,
                                                               0.07575853350619507,
                                                               -0.3094499762352057,
                                                               -0.28779420347865753],
                                                              [-0.48119967210394904,
                                                               -0.16408095246155277,
                                                               0.33531809428739234,
                                                               0.38710019193396816],
                                                              [0.30199855225330663,
                                                               0.09703157607005708,
                                                               -0.21728119422506822,
                                                               -0.23996778672866637]]),
         'decoder.layers.0.norm1.bias': ('float64',
                                         [-0.16278650749911522, 0.29176721207283274,
                                          -0.3668959015360534, 0.22955721469706242]),
         'decoder.layers.0.norm1.weight': ('float64',
                                           [0.1332254805658272, -0.09966018921708908,
                                            -0.26188499611051913, 0.035652229241616984]),
         'decoder.layers.0.norm2.bias': ('float64',
                                         [-0.2206507526660375, 0.28153344057554475,
                                          -0.2859958928029366, 0.20442118527857545]),
         'decoder.layers.0.norm2.weight': ('float64',
                                           [-0.20930337484709755, 0.0776564710729181,
                                            0.16197095677088477, -0.14957982783750612]),
         'decoder.layers.0.norm3.bias': ('float64',
                                         [-0.20102174283907687, 0.24515542463232318,
                                          -0.26301188249568874, 0.22511957296281354]),
         'decoder.layers.0.norm3.weight': ('float64',
                                           [-0.1924290378753703, -0.13243662787137983,
                                            0.3147842821694441, 0.18099058618301586]),
         'decoder.layers.0.self_attn.in_proj_bias': ('float64',
                                                     [0.017897792056767486, -0.048385531658837494,
                                                      -0.013881781986401266, 0.02302720762453597,
                                                      0.0, 1.734723475976807e-18,
                                                      2.6020852139652106e-18, 2.168404344971009e-18,
                                                      0.16812057291498214, 0.10333570535090295,
                                                      -0.11283621264205827, -0.16370281476727408]),
         'decoder.layers.0.self_attn.in_proj_weight': ('float64',
                                                       [[0.009872263874724431, 0.03562818803894294,
                                                         0.00918873325814316,
                                                         -0.030712237272748775],
                                                        [0.022027621751055253,
                                                         -0.023732158909305516,
                                                         -0.034724271168998885,
                                                         0.005154755184206002],
                                                        [-0.006338621208873681,
                                                         -0.023622772621460047,
                                                         -0.006299506801337425,
                                                         0.020252551240919285],
                                                        [-0.028842962456205896,
                                                         -0.018943809242135505,
                                                         0.018708068892288127,
                                                         0.028952582271165858],
                                                        [0.006246980308758387,
                                                         -0.008044073800557217,
                                                         -0.010550540946795974,
                                                         0.002399559111309877],
                                                        [-0.024035008080700866,
                                                         -0.0038308332815484014,
                                                         0.021985521249760307,
                                                         0.015593035643572142],
                                                        [-0.024350272471040088,
                                                         -0.015703422339033105, 0.01594897830886302,
                                                         0.024236088369792748],
                                                        [0.0029942078110588924,
                                                         0.007306762022332281,
                                                         0.0009148927529661287,
                                                         -0.006817296542861162],
                                                        [0.058113099074120045, 0.04846738686223121,
                                                         -0.03218316064983681,
                                                         -0.06568530241276768],
                                                        [0.04651053083034001, 0.020897638831162586,
                                                         -0.0353303430136286,
                                                         -0.03979928957326362],
                                                        [-0.020868172023474803,
                                                         -0.020668181299450184,
                                                         0.009810743448667688,
                                                         0.025916906060360054],
                                                        [-0.0730016070912613, -0.03491430337531725,
                                                         0.05432253658097953,
                                                         0.06397673318197387]]),
         'decoder.layers.0.self_attn.out_proj.bias': ('float64',
                                                      [-0.3527557796154079, 0.3390799423658989,
                                                       -0.3442061629644355, 0.35788200021394456]),
         'decoder.layers.0.self_attn.out_proj.weight': ('float64',
                                                        [[0.029735319175749016,
                                                          -0.015334463619810067,
                                                          -0.05562525807356701,
                                                          0.04632922293822219],
                                                         [-0.029918850577682364,
                                                          0.02149675952120369, 0.07528090808681998,
                                                          -0.04160100861705209],
                                                         [0.04745571629730164, 0.007540564299174492,
                                                          -0.014466802283983383,
                                                          0.039926598974600415],
                                                         [-0.04727218489536829,
                                                          -0.013702860200568108,
                                                          -0.005188847729269572,
                                                          -0.04465481329577052]]),
         'decoder.layers.1.linear1.bias': ('float64',
                                           [0.0, 0.0, 0.0, 1.197187701611472, 0.6019234044995547,
                                            -0.87516009036076]),
         'decoder.layers.1.linear1.weight': ('float64',
                                             [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0],
                                              [0.0, 0.0, 0.0, 0.0],
                                              [1.474193963789315, -0.9720611207437649,
                                               -1.6015311647108503, 0.18829296907458748],
                                              [0.7422538438644511, -0.4913571512776225,
                                               -0.7974755019434819, 0.08880567050922566],
                                              [-1.0770898962376356, 0.7091861959376062,
                                               1.174883639457474, -0.14078214340170914]]),
         'decoder.layers.1.linear2.bias': ('float64',
                                           [-0.9882938916925722, 2.1911690271959303,
                                            -0.8317090437524072, -0.3711660917509506]),
         'decoder.layers.1.linear2.weight': ('float64',
                                             [[0.0, 0.0, 0.0, -0.787627456693792,
                                               -0.803725723929217, -0.15128354781947675],
                                              [0.0, 0.0, 0.0, 1.7364628140165936,
                                               1.7803208821544152, 0.3436835793754943],
                                              [0.0, 0.0, 0.0, -0.6587029622304256,
                                               -0.6713472969630498, -0.1267280493234371],
                                              [0.0, 0.0, 0.0, -0.290132395092376,
                                               -0.3052478612621481, -0.06567198223258044]]),
         'decoder.layers.1.multihead_attn.in_proj_bias': ('float64',
                                                          [-0.005258055514363456,
                                                           -0.030556787144051824,
                                                           -0.027127606257667775,
                                                           0.01429469905090163,
                                                           -1.3877787807814457e-17,
                                                           -1.734723475976807e-18,
                                                           1.3877787807814457e-17,
                                                           1.734723475976807e-17,
                                                           0.17019972566206204, 0.04208579759917148,
                                                           -0.14768392254304186,
                                                           -0.12109635017306994]),
         'decoder.layers.1.multihead_attn.in_proj_weight': ('float64',
                                                            [[-0.013797075162406053,
                                                              -0.0002436153810809889,
                                                              0.0041677498319152625,
                                                              0.0022942492828017],
                                                             [-0.0816376513306398,
                                                              -0.001050690647101087,
                                                              0.023301449476597774,
                                                              0.015141391182640523],
                                                             [-0.07221325926811047,
                                                              -0.0011093518232002124,
                                                              0.020846445541363952,
                                                              0.013209006613427686],
                                                             [0.0377734056634276,
                                                              0.0006638469943665027,
                                                              -0.011162314209707116,
                                                              -0.006619215447931167],
                                                             [-0.05636518140577543,
                                                              -0.020286857696459784,
                                                              0.0408666024302459,
                                                              0.005534642902952214],
                                                             [-0.012083073823020722,
                                                              -0.004522287465894728,
                                                              0.008841200863253573,
                                                              0.0012018527368830626],
                                                             [0.06585574781477817,
                                                              0.018401558346649555,
                                                              -0.052203332590008464,
                                                              -0.0021579124064692017],
                                                             [0.08161943397295163,
                                                              0.022936990657236485,
                                                              -0.06475068111281135,
                                                              -0.0026911198950003755],
                                                             [0.22211636808414092,
                                                              -0.25519517179095697,
                                                              0.0061218188487113835,
                                                              0.012393483895148282],
                                                             [0.06295040479897722,
                                                              -0.06241490705401928,
                                                              -0.00014242031636974733,
                                                              0.0007296039056147118],
                                                             [-0.14878236244615642,
                                                              0.23462918727291454,
                                                              -0.034633861483293886,
                                                              -0.015570792821863928],
                                                             [-0.13635830872121163,
                                                              0.1920432899272835,
                                                              -0.023718994645063735,
                                                              -0.009849041804623159]]),
         'decoder.layers.1.multihead_attn.out_proj.bias': ('float64',
                                                           [-0.24930090312680855,
                                                            0.5861704163494015, -0.9519367620584114,
                                                            0.6150672488358186]),
         'decoder.layers.1.multihead_attn.out_proj.weight': ('float64',
                                                             [[-0.24116853479052536,
                                                               -0.017145563451093,
                                                               0.2423039281456239,
                                                               0.18698145153150758],
                                                              [0.5784091839601259,
                                                               0.04900927094911656,
                                                               -0.5770250337512188,
                                                               -0.45827150128129057],
                                                              [-0.9330356651123497,
                                                               -0.07487140167185631,
                                                               0.9329647493720628,
                                                               0.7337708454918996],
                                                              [0.5957950159427494,
                                                               0.04300769417383275,
                                                               -0.5982436437664679,
                                                               -0.4624807957421167]]),
         'decoder.layers.1.norm1.bias': ('float64',
                                         [-0.2550300290918387, 0.6101936808050565,
                                          -0.9333552458901285, 0.6009850519983326]),
         'decoder.layers.1.norm1.weight': ('float64',
                                           [-0.38867833530583595, -0.21843326923278095,
                                            1.0829861554056672, -0.004166869967372733]),
         'decoder.layers.1.norm2.bias': ('float64',
                                         [-1.1263954868819723, 1.2098491707469203,
                                          -1.2186112727753209, 0.4031619785863139]),
         'decoder.layers.1.norm2.weight': ('float64',
                                           [-1.8448261608448442, -0.856987187803173,
                                            1.0683966487981633, -0.014114696175638583]),
         'decoder.layers.1.norm3.bias': ('float64',
                                         [-1.5688310202000144, 2.452796712793093,
                                          -0.5954978975496691, -0.2884677950434108]),
         'decoder.layers.1.norm3.weight': ('float64',
                                           [-2.384004638225021, 0.38174270721439446,
                                            0.698821327646496, 0.14305036156138295]),
         'decoder.layers.1.self_attn.in_proj_bias': ('float64',
                                                     [0.00016651223099543305,
                                                      -0.00033500771612048936,
                                                      -0.0004259415894677385,
                                                      -0.0001844625681891803,
                                                      1.0299920638612292e-18, 4.87890977618477e-19,
                                                      1.734723475976807e-18, 1.3010426069826053e-18,
                                                      0.00264776041227943, 0.04114237693985484,
                                                      0.019363314864204513,
                                                      -0.030783048850926167]),
         'decoder.layers.1.self_attn.in_proj_weight': ('float64',
                                                       [[7.206693500973562e-05,
                                                         -7.46373592297458e-05,
                                                         -0.000251746368196649,
                                                         0.00014495504665881909],
                                                        [-0.00021036862465697415,
                                                         5.036766796298557e-05,
                                                         0.000330813455093925,
                                                         -0.00013767229083616971],
                                                        [-0.0003663455055646626,
                                                         0.00013963988679144051,
                                                         0.0003779371439238038,
                                                         -0.00013671743176721485],
                                                        [-0.00032250102260156856,
                                                         0.00013750142215579442,
                                                         4.590481717493572e-05,
                                                         4.550775640041529e-05],
                                                        [-0.0012240547330238558,
                                                         0.0008596723589628908,
                                                         -0.0007021714934506988,
                                                         0.0005901422091095035],
                                                        [-0.00032347087791009945,
                                                         0.00027869918557488346,
                                                         -0.00013956062119753682,
                                                         0.00011411064230298774],
                                                        [0.0009854937655810931,
                                                         -0.0006073137057118557,
                                                         0.0006503707727587569,
                                                         -0.000548746136307603],
                                                        [0.0013089447573326235,
                                                         -0.0007483367161990573,
                                                         0.000917983742520567,
                                                         -0.000777269262612852],
                                                        [-0.001073220269318882,
                                                         0.00030615172089229806,
                                                         -0.004644570438394191,
                                                         0.003077534106733062],
                                                        [0.04459393147329945, -0.025831120896804574,
                                                         -0.035724563604880355,
                                                         0.013160072349740471],
                                                        [0.024706335853909356,
                                                         -0.014069538647423593,
                                                         -0.014682140624871186,
                                                         0.0041510783460831],
                                                        [-0.030324932312055256,
                                                         0.017635701793971798, 0.028532328091529516,
                                                         -0.011501464398607796]]),
         'decoder.layers.1.self_attn.out_proj.bias': ('float64',
                                                      [-0.16687839523258388, 0.25979856108271354,
                                                       -0.2893211864064429, 0.1964010205563132]),
         'decoder.layers.1.self_attn.out_proj.weight': ('float64',
                                                        [[0.2441172565853122, 0.11274227238608318,
                                                          -0.14862430483852948,
                                                          -0.2220187695805004],
                                                         [-0.38154459808304175,
                                                          -0.18079400912253973, 0.22815562163726752,
                                                          0.34796692618919484],
                                                         [0.4262928613903485, 0.2027848671500303,
                                                          -0.25415366956064717,
                                                          -0.38915224920618424],
                                                         [-0.2888655198926189, -0.13473313041357374,
                                                          0.17462235276190907,
                                                          0.2632040925974898]]),
         'decoder.norm.bias': ('float64', [6.6, 7.2, 7.799999999999999, 8.4]),
         'decoder.norm.weight': ('float64',
                                 [7.842816982672656, 2.645691129538427, -12.13149768082609,
                                  -0.03535028062986757]),
         'encoder.layers.0.linear1.bias': ('float64',
                                           [-0.15362327866256043, -0.3528319871831321,
                                            0.02229578839661594, 0.035451409838745694,
                                            -0.0048341833535965615, -0.2265302985320172]),
         'encoder.layers.0.linear1.weight': ('float64',
                                             [[-0.02496422057150679, -0.1048744934796805,
                                               0.09726159901089934, 0.1514423306375936],
                                              [-0.05579032873526103, -0.2449457488962664,
                                               0.21988289564797778, 0.3513943267606847],
                                              [-0.0262518455508532, -0.025939916045199934,
                                               0.03242319763654567, 0.0399137397529453],
                                              [-0.009910678524215235, -0.07282106736512275,
                                               -0.005538081167596416, 0.07556450723363117],
                                              [0.020683899133857438, -0.010754873035230806,
                                               -0.033640359486377565, -0.001713624844702893],
                                              [-0.03656408190961288, -0.1404494117714085,
                                               0.1462780125032387, 0.20708371795091043]]),
         'encoder.layers.0.linear2.bias': ('float64',
                                           [0.39710250001721525, 0.09849064541014711,
                                            -0.2923723227265797, -0.20322082270078262]),
         'encoder.layers.0.linear2.weight': ('float64',
                                             [[0.4029057658794362, 0.452286431226254,
                                               -0.013285571587079551, 0.018169380862326293,
                                               0.03688691958466089, 0.2368074710231181],
                                              [0.06815946753400334, 0.07054124487365694,
                                               0.01528182975136648, 0.0446246579181737,
                                               0.03772241210891976, 0.05207483819900742],
                                              [-0.29356106219509237, -0.323138795062183,
                                               0.02271164653787537, -0.006956309427272401,
                                               -0.03847440637413578, -0.18412438547426624],
                                              [-0.17750417121834716, -0.19968888103772792,
                                               -0.02470790470216229, -0.05583772935322758,
                                               -0.03613492531944487, -0.10475792374785929]]),
         'encoder.layers.0.norm1.bias': ('float64',
                                         [0.16661874295977325, -0.08451122055905005,
                                          -0.15979413523488634, 0.05071006297881172]),
         'encoder.layers.0.norm1.weight': ('float64',
                                           [0.20496724448216194, -0.1271934746869315,
                                            0.139719665334341, -0.10967154883892086]),
         'encoder.layers.0.norm2.bias': ('float64',
                                         [0.0938180039145369, 0.07782057909659394,
                                          -0.08584347788348948, -0.08579510512764144]),
         'encoder.layers.0.norm2.weight': ('float64',
                                           [0.0459065248430025, -0.08838727941808319,
                                            0.09241923537635527, -0.12327819192098796]),
         'encoder.layers.0.self_attn.in_proj_bias': ('float64',
                                                     [0.07259274388692101, -0.006744522007484683,
                                                      -0.056612099518940334, -0.02019210320822036,
                                                      3.469446951953614e-18, -8.239936510889834e-18,
                                                      -6.938893903907228e-18,
                                                      -4.336808689942018e-18, -0.009831509555538138,
                                                      0.3386194388668212, 0.19099211604831856,
                                                      -0.2364391042279087]),
         'encoder.layers.0.self_attn.in_proj_weight': ('float64',
                                                       [[0.031105436599275775, 0.04912647327615955,
                                                         -0.004822888487616285,
                                                         -0.05170670731820824],
                                                        [-0.030807262226793614,
                                                         -0.031969445054221855,
                                                         0.013703684019228751,
                                                         0.039300883900192166],
                                                        [-0.04047586849592038,
                                                         -0.055236438725099854,
                                                         0.010924503183204442,
                                                         0.06108102233472534],
                                                        [0.012380586307461649, 0.005114388037107072,
                                                         -0.009644400689346164,
                                                         -0.010274119811479594],
                                                        [0.00039759918461613553,
                                                         -0.02342027667374699,
                                                         -0.012927392337198258,
                                                         0.016504152059004983],
                                                        [-0.014845344878415202,
                                                         0.050910180852709944, 0.04208217236474678,
                                                         -0.028396317225614424],
                                                        [0.018867410825714456, 0.06659999549698449,
                                                         0.016763430737977786,
                                                         -0.057631599324707544],
                                                        [0.0023579519708384535,
                                                         0.028922874618887144, 0.013115718191177768,
                                                         -0.021905996113466643],
                                                        [-0.0035969666082873108,
                                                         -7.443498315855192e-05,
                                                         0.0035571440666800945,
                                                         0.0019774987253302137],
                                                        [-0.030406228639205925,
                                                         -0.06222501355492379,
                                                         -0.002884007834976431,
                                                         0.06068207611972297],
                                                        [0.019593524009326766,
                                                         -0.039621250794116734,
                                                         -0.04079080036146121, 0.0177982681634161],
                                                        [-0.035932160882863294, 0.04828476739724607,
                                                         0.06176439832121128,
                                                         -0.015240958993993053]]),
         'encoder.layers.0.self_attn.out_proj.bias': ('float64',
                                                      [0.3912448217362699, -0.21814948836547768,
                                                       -0.5296919549273928, 0.3565966215566006]),
         'encoder.layers.0.self_attn.out_proj.weight': ('float64',
                                                        [[-0.09346020568842431, 0.15066466362632006,
                                                          0.07253640582205872,
                                                          -0.0796763260639119],
                                                         [0.04153095614296492, -0.09124383532030622,
                                                          -0.022415801970293935,
                                                          0.062066834362187503],
                                                         [0.16345349928313757, -0.18988193584293833,
                                                          -0.12051734402480356,
                                                          0.07593463709078396],
                                                         [-0.11152424973767819, 0.13046110753692447,
                                                          0.07039674017303876,
                                                          -0.058325145389059585]]),
         'encoder.norm.bias': ('float64',
                               [0.15666552729615776, -0.03272828009156355, -0.1741750804709391,
                                -0.06045497991157571]),
         'encoder.norm.weight': ('float64',
                                 [0.1702663867333602, 0.022761223482969387, 0.10590324845992949,
                                  -0.05088667415166993]),
         'm': ('float64',
               [[[-0.05182372368230898, 0.0658668474056293, 0.10798913980597699,
                  -0.07272905579150238],
                 [0.024382814795060253, 0.009623801441402388, -0.06481723935739592,
                  0.03984628802969447]],
                [[-0.04928156835859162, 0.13266666809028071, 0.10903112120224641,
                  -0.0628905795601287],
                 [-0.008382028086862274, 0.00827424699935168, -0.006760811447466672,
                  0.008276148875275967]],
                [[0.34657199168627595, -0.2849487676711725, -0.46530390802164706,
                  0.40672023134565694],
                 [0.0, 0.0, 0.0, 0.0]],
                [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]]),
         'x': ('float64',
               [[[-0.002752637629702623, 0.011319450835524275, -0.002496404018026426,
                  0.0008305645357820132],
                 [-0.02796660647638423, 0.10877450524176766, 0.06690218744315801,
                  -0.049503609397038406]],
                [[0.013233099318381998, 0.027845437536676523, -0.025837906782694268,
                  -0.007137495030568312],
                 [-0.20035232112611384, 0.18330383671988235, -0.20697147652268788,
                  0.2610241191119106]],
                [[-0.12606964734896942, 0.16557641699147246, -0.02820834714239541,
                  0.008052212041850512],
                 [-0.03325211272855695, 0.038567983373229635, -0.018165616207881298,
                  0.01755251825803648]]])},
}


@pytest.mark.parametrize("which, hint", [("decoder", "tgt_is_causal"),
                                         ("decoder", "memory_is_causal"),
                                         ("transformer", "src_is_causal"),
                                         ("transformer", "tgt_is_causal"),
                                         ("transformer", "memory_is_causal")])
def test_a_causal_hint_without_its_mask_is_refused_through_the_stack_as_torch(which, hint):
    # each hint reaches the attention it is about (torch: "Need attn_mask if specifying the
    # is_causal hint"); a stack that dropped a hint would run without that refusal
    src, tgt = tinyffn.zeros(5, 2, 8), tinyffn.zeros(3, 2, 8)
    if which == "decoder":
        model = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16), 2)
        call = lambda **kw: model(tgt, src, **kw)              # noqa: E731
    else:
        model = nn.Transformer(8, 2, 1, 1, 16)
        call = lambda **kw: model(src, tgt, **kw)              # noqa: E731
    assert call().shape == (3, 2, 8)
    with pytest.raises(ValueError, match="is_causal=True is a hint.*needs attn_mask"):
        call(**{hint: True})
