"""tinyffn.nn: Module bookkeeping, Linear, the FFN and the gated FFN against NumPy, their
gradients, the position-wise property, the seed's worked example, saving and loading."""
import math
import warnings

import numpy as np
import pytest

import numpy_reference as ref
import tinyffn
from tinyffn import functional as F
from tinyffn import nn
from tinyffn.autograd import Scope
from tinyffn.backend import dtype_name


def params_numpy(module):
    return {name: p.numpy() for name, p in module.named_parameters()}


# ----------------------------------------------------------------------------- Linear
def test_linear_shapes_and_pytorch_initialisation():
    layer = nn.Linear(64, 200)
    assert layer.weight.shape == (200, 64) and layer.bias.shape == (200,)
    bound = 1 / math.sqrt(64)
    for p in (layer.weight, layer.bias):
        values = p.numpy()
        assert np.abs(values).max() <= bound
        assert dtype_name(p.dtype) == "float32" and p.requires_grad and p.is_leaf
    # U(-b, b) has mean 0 and standard deviation b / sqrt(3); with 12,800 draws the sample
    # mean is within 0.03 b and the sample deviation within 3 % (both about six sigma)
    assert abs(layer.weight.numpy().mean()) < 0.03 * bound
    np.testing.assert_allclose(layer.weight.numpy().std(), bound / math.sqrt(3), rtol=0.03)
    # the bias has the same bound 1/sqrt(in), filled: 200 draws inside 0.9 b have
    # probability 0.9^200 ≈ 7e-10, and their deviation is within 20 % (six sigma)
    assert np.abs(layer.bias.numpy()).max() > 0.9 * bound
    np.testing.assert_allclose(layer.bias.numpy().std(), bound / math.sqrt(3), rtol=0.2)


def test_linear_is_reproducible_under_manual_seed():
    tinyffn.manual_seed(123)
    a = nn.Linear(3, 4)
    tinyffn.manual_seed(123)
    b = nn.Linear(3, 4)
    c = nn.Linear(3, 4)
    np.testing.assert_array_equal(a.weight.numpy(), b.weight.numpy())
    np.testing.assert_array_equal(a.bias.numpy(), b.bias.numpy())
    assert not np.array_equal(b.weight.numpy(), c.weight.numpy())


def test_linear_dtype_device_and_forward(device):
    layer = nn.Linear(3, 2, dtype="float64", device=device)
    assert layer.weight.device == device and dtype_name(layer.bias.dtype) == "float64"
    x = np.random.default_rng(0).normal(size=(5, 3))
    y = layer(tinyffn.tensor(x, device=device))
    np.testing.assert_allclose(y.numpy(), ref.linear(x, layer.weight.numpy(), layer.bias.numpy()),
                               rtol=1e-12)
    assert nn.Linear(3, 2, bias=False).bias is None


def test_linear_rejects_bad_sizes():
    with pytest.raises(ValueError, match=r"Linear: in_features must be a positive integer, got 0"):
        nn.Linear(0, 3)


# ----------------------------------------------------------------------------- Module
def test_parameter_names_follow_pytorch():
    ffn = nn.FFN(2)
    assert [name for name, _ in ffn.named_parameters()] == [
        "w1.weight", "w1.bias", "w2.weight", "w2.bias"]
    assert [name for name, _ in ffn.named_modules()] == ["", "w1", "act", "w2"]
    assert [type(m).__name__ for m in ffn.children()] == ["Linear", "ReLU", "Linear"]
    gated = nn.GatedFFN(3)
    assert [name for name, _ in gated.named_parameters()] == ["w1.weight", "w2.weight", "w3.weight"]
    model = nn.Sequential(nn.FFN(2), nn.GELU(), nn.Linear(2, 1))
    assert [name for name, _ in model.named_parameters()] == [
        "0.w1.weight", "0.w1.bias", "0.w2.weight", "0.w2.bias", "2.weight", "2.bias"]
    # each parameter carries its path from the outermost module, for graph labels
    assert [p.name for p in model.parameters()] == [n for n, _ in model.named_parameters()]


def test_shared_parameters_are_listed_once_but_saved_under_every_path():
    layer = nn.Linear(2, 2)
    model = nn.Sequential(layer, nn.ReLU(), layer)
    assert len(list(model.parameters())) == 2
    assert [name for name, _ in model.named_modules()] == ["", "0", "1"]
    assert [name for name, _ in model.named_modules(remove_duplicate=False)] == ["", "0", "1", "2"]
    # state_dict keys are PyTorch's: a shared layer is saved once per path
    assert list(model.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    model.load_state_dict(model.state_dict())
    torch = pytest.importorskip("torch")
    t_layer = torch.nn.Linear(2, 2)
    t_model = torch.nn.Sequential(t_layer, torch.nn.ReLU(), t_layer)
    assert list(t_model.state_dict()) == list(model.state_dict())
    model.load_state_dict({k: v.detach().numpy() for k, v in t_model.state_dict().items()})
    np.testing.assert_array_equal(model[2].weight.numpy(), t_layer.weight.detach().numpy())


def test_apply_visits_children_before_parents_in_pytorchs_order():
    """Module.apply(fn), nanoGPT's model.apply(_init_weights). The order, a shared module
    under each parent, is torch.nn.Module.apply's (PyTorch 2.13, written out)."""
    model = nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.ReLU(), nn.Linear(3, 3)),
                          nn.Linear(3, 1))
    seen = []
    record = lambda m: seen.append(f"{type(m).__name__}{getattr(m, 'in_features', '')}")  # noqa: E731
    assert model.apply(record) is model
    assert seen == ["Linear2", "ReLU", "Linear3", "Sequential", "Linear3", "Sequential"]
    shared = nn.Linear(1, 1)
    seen = []
    nn.Sequential(shared, nn.Sequential(shared)).apply(lambda m: seen.append(m))
    assert [type(m).__name__ for m in seen] == ["Linear", "Linear", "Sequential", "Sequential"]
    assert seen[0] is seen[1] is shared


def test_apply_visits_a_module_held_twice_by_one_parent_once():
    """torch's named_children lists a module under two attribute names once, so
    torch.nn.Module.apply calls fn on it once (PyTorch 2.13: ['Linear', 'Sequential'])."""
    model = nn.Sequential(nn.Linear(2, 2))
    model.alias = model[0]
    seen = []
    model.apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Linear", "Sequential"]


def test_named_children_lists_a_module_held_twice_once_as_pytorch():
    """torch.nn.Module.named_children skips a module it has already yielded, so children()
    of Sequential(a, a) is [a] (PyTorch 2.13, written out), while the container still
    counts, indexes, runs and prints both places, and state_dict saves both paths."""
    a = nn.Linear(1, 1)
    for container in (nn.Sequential(a, a), nn.ModuleList([a, a])):
        assert [name for name, _ in container.named_children()] == ["0"]
        assert list(container.children()) == [a]
        assert len(container) == 2 and list(container) == [a, a] and container[1] is a
        # Sequential prints both places; ModuleList folds the run as PyTorch's: (0-1): 2 x
        shown = "(1): Linear" if isinstance(container, nn.Sequential) else "(0-1): 2 x Linear"
        assert repr(container).count(shown) == 1
        assert [n for n, _ in container.named_modules(remove_duplicate=False)] == ["", "0", "1"]
    holder = nn.ModuleDict({"x": a, "y": a})
    assert [name for name, _ in holder.named_children()] == ["x"]
    assert list(holder.keys()) == ["x", "y"] and len(holder) == 2
    with tinyffn.no_grad():
        a.weight.fill_(2.0)
        a.bias.fill_(1.0)
    y = nn.Sequential(a, a)(tinyffn.ones(1, 1))
    assert y.item() == 7.0                          # 2 * (2 * 1 + 1) + 1: a ran twice
    assert list(nn.Sequential(a, a).state_dict()) == ["0.weight", "0.bias", "1.weight", "1.bias"]


def test_apply_initialises_a_model_as_nanogpt_does():
    def init_weights(module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                nn.init.zeros_(module.bias)

    tinyffn.manual_seed(0)
    ffn = nn.FFN(64).apply(init_weights)
    for name, p in ffn.named_parameters():
        values = p.numpy()
        if name.endswith("bias"):
            assert not values.any(), name
        else:                              # 64·256 samples of N(0, 0.02²)
            assert abs(values.mean()) < 0.001 and 0.019 < values.std() < 0.021, name


def test_apply_refuses_a_module_that_contains_itself():
    model = nn.FFN(2)
    model.loop = model
    with pytest.raises(ValueError, match="FFN: module 'loop' contains itself"):
        model.apply(lambda m: None)


def test_a_module_that_contains_itself_is_refused():
    model = nn.FFN(2)
    model.loop = model                                  # append() refuses this outright
    with pytest.raises(ValueError, match="FFN: module 'loop' contains itself"):
        model.state_dict()


def test_assignments_that_would_lose_a_parameter_or_module_are_refused():
    lin = nn.Linear(2, 2)
    with pytest.raises(TypeError, match=r"cannot assign a value of type Tensor to Linear\.weight, "
                                        r"which holds a Parameter: .*nn\.Parameter\(t\)"):
        lin.weight = lin.weight * 2                     # PyTorch refuses this too
    assert [name for name, _ in lin.named_parameters()] == ["weight", "bias"]
    lin.weight = nn.Parameter(lin.weight * 2)           # a new Parameter is fine ...
    lin.bias = None                                     # ... and so is None
    assert [name for name, _ in lin.named_parameters()] == ["weight"]
    ffn = nn.FFN(2)
    with pytest.raises(TypeError, match="to FFN.w2, which holds a Module: .* a Module or None"):
        ffn.w2 = 3

    class Forgetful(nn.Module):
        def __init__(self):
            self.lin = nn.Linear(2, 2)                  # no super().__init__() first

    with pytest.raises(AttributeError, match=r"cannot assign Linear 'lin' before "
                                             r"Module\.__init__\(\) has run: call "
                                             r"super\(\)\.__init__\(\) first in Forgetful"):
        Forgetful()


def test_module_list_registers_a_stack_of_blocks():
    class Stack(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.blocks = nn.ModuleList(nn.FFN(2) for _ in range(n))

        def forward(self, x):
            for block in self.blocks:
                x = x + block(x)                            # residual, as in a transformer
            return x

    model = Stack(3)
    assert len(model.blocks) == 3 and model.blocks[-1] is list(model.blocks)[2]
    names = [name for name, _ in model.named_parameters()]
    assert len(names) == 12 and names[:2] == ["blocks.0.w1.weight", "blocks.0.w1.bias"]
    x = tinyffn.randn(4, 2)
    model(x).sum().backward()
    assert all(p.grad is not None for p in model.parameters())
    assert model.blocks.append(nn.Linear(2, 2)) is model.blocks and len(model.blocks) == 4
    head = model.blocks[:2]                             # a slice is a ModuleList, as in torch
    assert type(head) is nn.ModuleList and list(head) == list(model.blocks)[:2]
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    first = seq[:2]
    assert type(first) is nn.Sequential and first(x).shape == (4, 3)
    assert first[0] is seq[0] and seq[-1].out_features == 1
    with pytest.raises(TypeError, match=r"ModuleList: item 4 is not a tinyffn Module \(got function\)"):
        model.blocks.append(lambda x: x)
    with pytest.raises(TypeError, match="ModuleList is a container, not a layer"):
        model.blocks(x)


@pytest.mark.parametrize("container", [list, tuple, lambda ms: dict(enumerate(ms))])
def test_modules_in_a_plain_container_are_refused_not_silently_lost(container):
    """PyTorch silently drops them from parameters(): an optimizer would never train them."""
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = container([nn.FFN(2), nn.FFN(2)])

    with pytest.raises(TypeError, match=r"Model\.blocks: modules or parameters inside a "
                                        r"(list|tuple|dict) are not registered.*"
                                        r"nn\.ModuleList"):
        Model()


def test_repr_reads_like_pytorch():
    assert repr(nn.FFN(2, activation="gelu_tanh")) == (
        "FFN(\n"
        "  (w1): Linear(in_features=2, out_features=8, bias=True)\n"
        "  (act): GELU(approximate='tanh')\n"
        "  (w2): Linear(in_features=8, out_features=2, bias=True)\n"
        ")")
    assert repr(nn.Sequential(nn.GatedFFN(3, d_ff=4), nn.Swish(beta=2.0))) == (
        "Sequential(\n"
        "  (0): GatedFFN(\n"
        "    (w1): Linear(in_features=3, out_features=4, bias=False)\n"
        "    (w2): Linear(in_features=4, out_features=3, bias=False)\n"
        "    (w3): Linear(in_features=3, out_features=4, bias=False)\n"
        "    (act): Swish(beta=1.0)\n"
        "  )\n"
        "  (1): Swish(beta=2.0)\n"
        ")")
    assert repr(nn.Parameter(tinyffn.zeros(2))).startswith("Parameter containing:\ntensor(")


def test_module_list_repr_folds_runs_of_alike_children_as_pytorchs():
    # torch.nn.ModuleList.__repr__ prints a run of children that print alike once
    blocks = nn.ModuleList([nn.FFN(2), nn.FFN(2), nn.FFN(2), nn.ReLU(), nn.FFN(2)])
    ffn = ("FFN(\n"
           "    (w1): Linear(in_features=2, out_features=8, bias=True)\n"
           "    (act): ReLU()\n"
           "    (w2): Linear(in_features=8, out_features=2, bias=True)\n"
           "  )")
    assert repr(blocks) == ("ModuleList(\n"
                            f"  (0-2): 3 x {ffn}\n"
                            "  (3): ReLU()\n"
                            f"  (4): {ffn}\n"
                            ")")
    assert repr(nn.ModuleList()) == "ModuleList()"
    assert repr(nn.ModuleList([nn.ReLU()])) == "ModuleList(\n  (0): ReLU()\n)"
    # the same settings print alike: different ones break the run
    assert "(0-1): 2 x Linear" not in repr(nn.ModuleList([nn.Linear(2, 3), nn.Linear(3, 2)]))


def test_a_module_list_subclass_prints_its_own_name_as_pytorchs():
    # torch's ModuleList.__repr__ starts with self._get_name(), the class's name
    class Blocks(nn.ModuleList):
        pass
    assert repr(Blocks([nn.ReLU(), nn.ReLU()])) == "Blocks(\n  (0-1): 2 x ReLU()\n)"
    assert repr(Blocks()) == "Blocks()"


@pytest.mark.parametrize("build", [
    lambda m: m.ModuleList([m.Linear(2, 3), m.Linear(2, 3), m.ReLU(), m.Linear(2, 3)]),
    lambda m: m.TransformerEncoder(m.TransformerEncoderLayer(8, 2, 16), 3),
    lambda m: m.Sequential(m.ModuleList([m.ReLU(), m.ReLU()]), m.ReLU()),
    # a long run that starts late: (1-5): 5 x Linear, then a run after it
    lambda m: m.ModuleList([m.ReLU()] + [m.Linear(2, 2) for _ in range(5)] + [m.ReLU()] * 2),
])
def test_module_list_repr_is_torchs(build):
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():         # torch's encoder warns of its nested-tensor path
        warnings.simplefilter("ignore", UserWarning)
        expected = repr(build(torch.nn))
    assert repr(build(nn)) == expected


def test_zero_grad_train_and_eval():
    ffn = nn.FFN(2)
    assert all(m.training is True for m in ffn.modules())   # new modules train, as torch's
    ffn(tinyffn.randn(3, 2)).sum().backward()
    assert all(p.grad is not None for p in ffn.parameters())
    ffn.zero_grad()
    assert all(p.grad is None for p in ffn.parameters())
    assert ffn.eval() is ffn
    assert not any(m.training for m in ffn.modules())
    ffn.train()
    assert all(m.training for m in ffn.modules())
    with pytest.raises(TypeError, match="FFN.train: mode must be True or False, got 'no'"):
        ffn.train("no")                                 # a non-empty string is truthy


@pytest.mark.parametrize("make", [lambda a: a, tinyffn.tensor], ids=["array", "tensor"])
def test_a_parameter_is_a_leaf_that_requires_grad(make):
    p = nn.Parameter(make(np.array([1.0, 2.0])))
    assert p.requires_grad and p.is_leaf and p.tolist() == [1.0, 2.0]
    (p * p).sum().backward()
    assert p.grad.tolist() == [2.0, 4.0]                    # 2p


def test_parameter_must_be_floating_point():
    with pytest.raises(TypeError, match="floating-point"):
        nn.Parameter(tinyffn.tensor([1, 2, 3]))


def test_call_records_the_module_scope_on_every_op():
    ffn = nn.FFN(2)
    x = tinyffn.randn(3, 2)
    y = ffn(x)
    # the last op is w2's bias add, inside linear, inside w2, inside the FFN
    assert y.grad_fn.scope == (Scope("module", "FFN", ffn), Scope("module", "Linear", ffn.w2),
                               Scope("function", "linear"))
    relu = y.grad_fn.parents[0].parents[0]                    # add <- matmul <- relu
    assert relu.name == "relu"
    assert relu.scope == (Scope("module", "FFN", ffn), Scope("module", "ReLU", ffn.act))


def test_module_to_moves_parameters_in_place(device):
    ffn = nn.FFN(2)
    before = list(ffn.parameters())
    values = params_numpy(ffn)
    ffn(tinyffn.randn(3, 2)).sum().backward()
    assert ffn.to(device, dtype="float64") is ffn
    assert list(ffn.parameters()) == before
    for name, p in ffn.named_parameters():
        assert p.device == device and dtype_name(p.dtype) == "float64"
        assert p.grad.device == device and dtype_name(p.grad.dtype) == "float64"
        np.testing.assert_allclose(p.numpy(), values[name], rtol=1e-7)
    y = ffn(tinyffn.randn(3, 2, dtype="float64", device=device))
    assert y.device == device
    with pytest.raises(TypeError, match="parameters must stay floating point"):
        ffn.to(dtype="int64")


# ----------------------------------------------------------------------------- state_dict
def test_state_dict_round_trip(device):
    tinyffn.manual_seed(1)
    source = nn.FFN(3, activation="gelu", device=device)
    state = source.state_dict()
    assert list(state) == ["w1.weight", "w1.bias", "w2.weight", "w2.bias"]
    assert state["w1.weight"].shape == (12, 3) and not state["w1.weight"].requires_grad
    tinyffn.manual_seed(2)
    target = nn.FFN(3, activation="gelu", device=device)
    x = tinyffn.randn(4, 3, device=device)
    assert not np.allclose(target(x).numpy(), source(x).numpy())
    assert target.load_state_dict(state) == ([], [])
    np.testing.assert_array_equal(target(x).numpy(), source(x).numpy())
    # loading copies: the state dict and the two models do not share arrays afterwards
    target.w1.weight.data = target.w1.weight.data * 0
    np.testing.assert_array_equal(source.w1.weight.numpy(), state["w1.weight"].numpy())


def test_state_dict_is_a_snapshot():
    ffn = nn.FFN(2)
    state = ffn.state_dict()
    saved = state["w2.bias"].numpy()
    ffn(tinyffn.randn(3, 2)).sum().backward()
    tinyffn.optim.SGD(ffn.parameters(), lr=0.5).step()
    assert not np.array_equal(ffn.w2.bias.numpy(), saved)
    np.testing.assert_array_equal(state["w2.bias"].numpy(), saved)


def test_load_state_dict_accepts_arrays_and_casts():
    ffn = nn.FFN(2, bias=False, dtype="float64")
    arrays = {name: np.full(p.shape, 0.5, dtype=np.float32) for name, p in ffn.named_parameters()}
    ffn.load_state_dict(arrays)
    assert dtype_name(ffn.w1.weight.dtype) == "float64"
    np.testing.assert_array_equal(ffn.w2.weight.numpy(), np.full((2, 8), 0.5))


def test_load_state_dict_errors():
    ffn = nn.FFN(2)
    state = ffn.state_dict()
    del state["w2.bias"]
    state["w3.weight"] = tinyffn.zeros(8, 2)
    with pytest.raises(RuntimeError, match=r"(?s)missing key\(s\): w2\.bias.*unexpected key\(s\): "
                                           r"w3\.weight"):
        ffn.load_state_dict(state)
    assert ffn.load_state_dict(state, strict=False) == (["w2.bias"], ["w3.weight"])
    wrong = nn.FFN(2).state_dict()
    wrong["w1.weight"] = tinyffn.zeros(4, 2)
    before = ffn.w1.bias.numpy()
    with pytest.raises(RuntimeError, match=r"size mismatch for w1\.weight: the checkpoint has "
                                           r"shape \(4, 2\), the model has \(8, 2\)"):
        ffn.load_state_dict(wrong)
    np.testing.assert_array_equal(ffn.w1.bias.numpy(), before)    # nothing was loaded
    with pytest.raises(TypeError, match="FFN.load_state_dict: expected a dict of name -> values "
                                        r"\(as state_dict\(\) returns\), got list"):
        ffn.load_state_dict(list(ffn.state_dict().items()))
    for bad, kind in [(None, "NoneType"), ("abc", "str"), ([[1.0], [1.0, 2.0]], "list")]:
        state = ffn.state_dict()
        state["w1.bias"] = bad
        with pytest.raises(RuntimeError, match=rf"w1\.bias: {kind} is not an array of numbers"):
            ffn.load_state_dict(state)
    # only missing or unexpected keys suggest strict=False; it cannot mend a bad shape
    with pytest.raises(RuntimeError) as e:
        ffn.load_state_dict(wrong, strict=False)
    assert "strict=False" not in str(e.value)


@pytest.mark.parametrize("edit, hint", [
    (lambda s: s.pop("w2.bias"), True),                              # missing only
    (lambda s: s.update({"w3.weight": tinyffn.zeros(8, 2)}), True),  # unexpected only
    (lambda s: s.update({"w1.weight": tinyffn.zeros(4, 2)}), False),  # a bad shape only
])
def test_load_state_dict_suggests_strict_false_only_for_key_problems(edit, hint):
    ffn = nn.FFN(2)
    state = ffn.state_dict()
    edit(state)
    with pytest.raises(RuntimeError, match="FFN.load_state_dict: the state does not fit") as e:
        ffn.load_state_dict(state)
    assert ("pass strict=False to skip missing/unexpected keys" in str(e.value)) == hint


# ----------------------------------------------------------------------------- FFN
@pytest.mark.parametrize("activation", nn.FFN_ACTIVATIONS)
def test_ffn_matches_numpy(activation, device):
    ffn = nn.FFN(3, d_ff=5, activation=activation, dtype="float64", device=device)
    x = np.random.default_rng(2).normal(size=(2, 4, 3))                 # (B, T, d)
    p = params_numpy(ffn)
    expected = ref.ffn(x, p["w1.weight"], p["w1.bias"], p["w2.weight"], p["w2.bias"],
                       ref.ACTIVATIONS[activation])
    y = ffn(tinyffn.tensor(x, device=device))
    assert y.shape == (2, 4, 3)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-12, atol=1e-14)


DTYPE_MODELS = [("FFN", a, fused) for a in nn.FFN_ACTIVATIONS for fused in (False, True)] \
    + [("GatedFFN", a, False) for a in nn.GATED_ACTIVATIONS]


@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("kind, activation, fused", DTYPE_MODELS)
def test_ffn_keeps_its_dtype_through_forward_and_backward(kind, activation, fused, dtype,
                                                           device):
    """A float16 (float32) model gives float16 (float32) outputs and gradients, every
    activation, composed and fused: a float64 erf once turned float16 GELU into float64."""
    if device == "strict" and dtype == "float16":
        pytest.skip("the array API standard has no float16")
    options = {"fused": fused} if kind == "FFN" else {}
    model = getattr(nn, kind)(3, activation=activation, dtype=dtype, device=device, **options)
    x = tinyffn.randn(2, 3, dtype=dtype, device=device, requires_grad=True)
    y = model(x)
    assert dtype_name(y.dtype) == dtype
    y.sum().backward()
    assert dtype_name(x.grad.dtype) == dtype
    for key, p in model.named_parameters():
        assert dtype_name(p.grad.dtype) == dtype, key


@pytest.mark.parametrize("activation", nn.GATED_ACTIVATIONS)
def test_gated_ffn_matches_numpy(activation, device):
    gated = nn.GatedFFN(3, d_ff=5, activation=activation, dtype="float64", device=device)
    x = np.random.default_rng(3).normal(size=(4, 3))
    p = params_numpy(gated)
    expected = ref.gated_ffn(x, p["w1.weight"], p["w2.weight"], p["w3.weight"],
                             ref.ACTIVATIONS[activation])
    np.testing.assert_allclose(gated(tinyffn.tensor(x, device=device)).numpy(), expected,
                               rtol=1e-12, atol=1e-14)


def _mish(x):
    return x * np.tanh(np.log1p(np.exp(x)))


def _elu(x):
    return np.where(x > 0, x, np.expm1(x))


OWN_ACTIVATIONS = [(lambda: nn.Mish(), _mish, "Mish"), (lambda: F.elu, _elu, "elu"),
                   (lambda: nn.ReLU(), ref.relu, "ReLU")]


@pytest.mark.parametrize("make_act, numpy_act, name", OWN_ACTIVATIONS,
                         ids=["module", "function", "relu-module"])
def test_ffn_and_gated_ffn_take_ones_own_activation(make_act, numpy_act, name, device):
    """A module or a function as σ, as torch's TransformerEncoderLayer takes: used as given
    (ReGLU is GatedFFN with nn.ReLU()), named in .activation, drawn as a child or in the repr."""
    x = np.random.default_rng(5).normal(size=(2, 4, 3))
    ffn = nn.FFN(3, d_ff=5, activation=make_act(), dtype="float64", device=device)
    p = params_numpy(ffn)
    expected = ref.ffn(x, p["w1.weight"], p["w1.bias"], p["w2.weight"], p["w2.bias"], numpy_act)
    np.testing.assert_allclose(ffn(tinyffn.tensor(x, device=device)).numpy(), expected,
                               rtol=1e-12, atol=1e-14)
    gated = nn.GatedFFN(3, d_ff=5, activation=make_act(), dtype="float64", device=device)
    p = params_numpy(gated)
    expected = ref.gated_ffn(x, p["w1.weight"], p["w2.weight"], p["w3.weight"], numpy_act)
    np.testing.assert_allclose(gated(tinyffn.tensor(x, device=device)).numpy(), expected,
                               rtol=1e-12, atol=1e-14)
    assert ffn.activation == gated.activation == name
    assert list(ffn.state_dict()) == ["w1.weight", "w1.bias", "w2.weight", "w2.bias"]
    shown = "(act): Mish()" if name == "Mish" else "(act): ReLU()" if name == "ReLU" else "act=elu"
    assert shown in repr(ffn) and shown in repr(gated)
    assert repr(ffn).count(name) == 1               # once: σ is not also kept as .activation
    xt = tinyffn.tensor(x[0], device=device, requires_grad=True)
    assert tinyffn.gradcheck(lambda x, *_: ffn(x), [xt, *ffn.parameters()])


def test_ffn_with_a_learnable_activation_trains_it():
    """nn.PReLU() as σ: its slope is a parameter of the block (act.weight), saved and given
    a gradient, dL/da = Σ over negative pre-activations of gy · z."""
    ffn = nn.FFN(3, d_ff=5, activation=nn.PReLU(init=0.2, dtype="float64"),
                 dtype="float64")
    assert list(ffn.state_dict()) == ["w1.weight", "w1.bias", "act.weight", "w2.weight",
                                      "w2.bias"]
    x = np.random.default_rng(6).normal(size=(4, 3))
    ffn(tinyffn.tensor(x)).sum().backward()
    p = params_numpy(ffn)
    z = x @ p["w1.weight"].T + p["w1.bias"]                 # pre-activations (4, 5)
    gh = np.ones((4, 3)) @ p["w2.weight"]                   # dL/dh (4, 5)
    np.testing.assert_allclose(ffn.act.weight.grad.numpy(), [np.sum((gh * z)[z < 0])],
                               rtol=1e-12)
    assert tinyffn.gradcheck(lambda x, *_: ffn(x), [tinyffn.tensor(x, requires_grad=True),
                                                    *ffn.parameters()])


@pytest.mark.parametrize("make", [
    lambda device: nn.FFN(3, d_ff=4, activation="gelu", dtype="float64", device=device),
    lambda device: nn.FFN(3, d_ff=4, activation="relu", dtype="float64", device=device),
    lambda device: nn.GatedFFN(3, d_ff=4, dtype="float64", device=device),
    lambda device: nn.GatedFFN(3, d_ff=4, activation="gelu", bias=True, dtype="float64",
                               device=device),
], ids=["ffn-gelu", "ffn-relu", "swiglu", "geglu-bias"])
def test_ffn_gradcheck_input_and_parameters(make, device):
    module = make(device)
    x = tinyffn.tensor(np.random.default_rng(4).normal(size=(2, 3)), device=device,
                       requires_grad=True)
    params = list(module.parameters())
    # gradcheck perturbs the parameters' arrays in place, so fn can ignore them
    assert tinyffn.gradcheck(lambda x, *_: module(x), [x, *params])


@pytest.mark.parametrize("make", [lambda: nn.FFN(4, activation="swish"), lambda: nn.GatedFFN(4)],
                         ids=["ffn", "gated"])
def test_ffn_is_position_wise(make):
    module = make()
    x = tinyffn.randn(2, 5, 4)                                           # (B, T, d)
    y = module(x).numpy()
    for b, t in [(0, 0), (1, 3)]:
        x2 = x.numpy()
        x2[b, t] += np.random.default_rng(t).normal(size=4)
        y2 = module(tinyffn.tensor(x2)).numpy()
        changed = np.any(y2 != y, axis=-1)                               # (B, T)
        expected = np.zeros((2, 5), dtype=bool)
        expected[b, t] = True
        np.testing.assert_array_equal(changed, expected)


def test_ffn_accepts_any_leading_shape():
    ffn = nn.FFN(3)
    x = tinyffn.randn(2, 4, 3)
    y = ffn(x).numpy()
    np.testing.assert_allclose(ffn(x.reshape(8, 3)).numpy(), y.reshape(8, 3), rtol=1e-6)
    np.testing.assert_allclose(ffn(x[1, 2]).numpy(), y[1, 2], rtol=1e-6)    # one position (d,)


def test_seed_self_test_c():
    """Seed §8, self-test (c): d = 2, d_ff = 4, the given W1 and W2, zero biases, ReLU."""
    ffn = nn.FFN(2, d_ff=4, activation="relu")
    ffn.load_state_dict({
        "w1.weight": [[1, 0], [0, 1], [1, 1], [-1, 1]],
        "w1.bias": [0, 0, 0, 0],
        "w2.weight": [[1, 0, 1, 0], [0, 1, 0, 1]],
        "w2.bias": [0, 0],
    })
    # (1, 0): W1 x = (1, 0, 1, -1), ReLU -> (1, 0, 1, 0), W2 h = (2, 0)
    # (0, 1): W1 x = (0, 1, 1, 1),  ReLU -> (0, 1, 1, 1), W2 h = (1, 2)
    y = ffn(tinyffn.tensor([[1.0, 0.0], [0.0, 1.0]]))
    np.testing.assert_array_equal(y.numpy(), [[2.0, 0.0], [1.0, 2.0]])


def test_ffn_defaults_and_sizes():
    ffn = nn.FFN(6)
    assert (ffn.d_model, ffn.d_ff) == (6, 24)
    assert ffn.w1.weight.shape == (24, 6) and ffn.w2.weight.shape == (6, 24)
    assert nn.GatedFFN(6).d_ff == 16                                   # int(2 · 24 / 3)
    assert nn.GatedFFN(6, multiple_of=5).d_ff == 20
    assert nn.gated_d_ff(4096, multiple_of=256) == 11008               # LLaMA-7B
    assert nn.GatedFFN(6, d_ff=7).w3.weight.shape == (7, 6)
    assert nn.gated_d_ff(2) == 5                        # ⌊16 / 3⌋ = 5, LLaMA's int(), not 6
    for d in range(1, 40):                              # 8d/3 ends in .67 for d = 1, 4, ...:
        assert nn.gated_d_ff(d) == int(2 * 4 * d / 3)   # floored, never rounded up
    with pytest.raises(ValueError, match="GatedFFN: got both d_ff=20 and multiple_of=16; "
                                         "multiple_of only rounds the default width"):
        nn.GatedFFN(8, d_ff=20, multiple_of=16)


def test_an_activation_class_instead_of_an_instance_is_refused_when_built():
    """nn.Mish for nn.Mish(): the FFN called the class on its hidden tensor, and the
    error came at the first forward, from deep inside (bool() of a tensor)."""
    for cls in (nn.ReLU, nn.Mish, nn.PReLU):
        for block in (nn.FFN, nn.GatedFFN):
            with pytest.raises(TypeError, match=rf"{block.__name__}: activation is the class "
                                                rf"{cls.__name__}; pass an instance, "
                                                rf"{cls.__name__}\(\)"):
                block(4, activation=cls)

def test_unknown_activation_lists_the_valid_ones():
    with pytest.raises(ValueError, match=r"FFN: unknown activation 'tanh'; choose one of 'relu', "
                                         r"'gelu', 'gelu_tanh', 'swish'"):
        nn.FFN(4, activation="tanh")
    with pytest.raises(ValueError, match=r"GatedFFN: unknown activation 'relu'; choose one of "
                                         r"'swish', 'gelu', or pass a module \(nn.Mish\(\)\) or "
                                         r"a function of one tensor \(F.elu\)$"):
        nn.GatedFFN(4, activation="relu")
    with pytest.raises(ValueError, match=r"FFN: unknown activation 3; choose one of "):
        nn.FFN(4, activation=3)
    # the names a reader of LLaMA or PyTorch tries say where to go instead
    with pytest.raises(ValueError, match=r"\(F.elu\); a gated FFN is "
                                         r"nn.GatedFFN\(d, activation='swish'\)$"):
        nn.FFN(4, activation="SwiGLU")
    with pytest.raises(ValueError, match=r"a gated FFN is nn.GatedFFN\(d, activation='gelu'\)$"):
        nn.FFN(4, activation="geglu")
    with pytest.raises(ValueError, match=r"; SiLU is 'swish' \(β = 1\)$"):
        nn.GatedFFN(4, activation="silu")
    with pytest.raises(ValueError, match=r"GELU: unknown approximate='fast'"):
        nn.GELU("fast")


def test_ffn_rejects_the_wrong_width():
    with pytest.raises(ValueError, match=r"FFN: input of shape \(3, 5\) must end in d_model=4"):
        nn.FFN(4)(tinyffn.randn(3, 5))
    with pytest.raises(ValueError, match=r"GatedFFN: input of shape \(5,\) must end in d_model=4"):
        nn.GatedFFN(4)(tinyffn.randn(5))
    with pytest.raises(ValueError, match=r"FFN: input of shape \(\) must end in d_model=4"):
        nn.FFN(4)(tinyffn.tensor(1.0))                  # a 0-d input has no last axis


@pytest.mark.parametrize("make", [
    *[lambda act=act: nn.FFN(1, d_ff=16, activation=act) for act in nn.FFN_ACTIVATIONS],
    lambda: nn.GatedFFN(1, d_ff=12),
], ids=[*nn.FFN_ACTIVATIONS, "swiglu"])
def test_ffn_learns_a_function_that_needs_the_nonlinearity(make):
    """y = x² on [-2, 2]: even, so the best linear fit leaves MSE = Var(x²) ≈ 1.42."""
    tinyffn.manual_seed(0)
    x = tinyffn.tensor(np.linspace(-2, 2, 64).reshape(64, 1), dtype="float32")   # (T, 1)
    y = x * x
    model = make()
    opt = tinyffn.optim.Adam(model.parameters(), lr=0.03)
    for _ in range(300):
        opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.step()
    assert loss.item() < 0.02


def test_containers_refuse_cycles_and_slices_keep_parameter_labels():
    inner = nn.Sequential(nn.Linear(2, 2))
    outer = nn.Sequential(inner)
    with pytest.raises(ValueError, match="Sequential: item 1 contains this Sequential"):
        inner.append(outer)
    seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2))
    seq[1:]
    assert seq[2].weight.name == "2.weight"             # not renamed by the slice


def test_module_arguments_sit_where_pytorch_puts_them():
    """named_parameters('', False) meant remove_duplicate=False, where PyTorch's second
    argument is recurse; nn.SiLU(True) meant fused, where PyTorch's is inplace (now refused
    as ReLU(True) is)."""
    ffn = nn.FFN(2)
    assert list(ffn.named_parameters("", False)) == []          # the FFN owns none itself
    assert [n for n, _ in ffn.w1.named_parameters("w1", False)] == ["w1.weight", "w1.bias"]
    assert list(ffn.parameters(recurse=False)) == [] and len(list(ffn.parameters())) == 4
    with pytest.raises(ValueError, match="SiLU: inplace=True is not supported"):
        nn.SiLU(True)                               # PyTorch's inplace, never fused
    assert not nn.SiLU(False).fused and not nn.SiLU(False).inplace and nn.SiLU(fused=True).fused
    for make in (lambda: nn.GELU("none", True),
                 lambda: nn.Swish(1.0, True), lambda: nn.Linear(2, 3, True, "cpu"),
                 lambda: nn.FFN(4, 16, "gelu", True, "cpu"),      # was dtype='cpu'
                 lambda: nn.GatedFFN(4, None, "swish", False, 1, "float64")):
        with pytest.raises(TypeError, match="positional argument"):
            make()
    assert nn.Linear(2, 3, device="cpu", dtype="float64").weight.dtype == np.float64
    for ffn in (nn.FFN(4, 16, "gelu", True, device="cpu", dtype="float64", fused=True),
                nn.GatedFFN(4, None, "swish", False, 1, dtype="float64", device="cpu")):
        assert all(p.dtype == np.float64 and p.device == "cpu" for p in ffn.parameters())


def test_module_zero_grad_can_fill_zeros_as_pytorch():
    lin = nn.Linear(2, 3)
    (lin(tinyffn.randn(4, 2)) ** 2).sum().backward()
    held = lin.weight.grad
    lin.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.numpy().any() for p in lin.parameters())
    assert lin.weight.grad is held               # zeroed in place, as PyTorch does
    lin.zero_grad()
    assert all(p.grad is None for p in lin.parameters())


def test_loss_modules_are_the_functional_losses():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    logits, y = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    targets = np.array([0, 2, 1, 2])
    for reduction in ("mean", "sum", "none"):
        mine = nn.CrossEntropyLoss(reduction)(tinyffn.tensor(logits), tinyffn.tensor(targets))
        theirs = torch.nn.CrossEntropyLoss(reduction=reduction)(torch.tensor(logits),
                                                                 torch.tensor(targets))
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-12)
        logp = torch.log_softmax(torch.tensor(logits), dim=-1)
        mine = nn.NLLLoss(reduction)(tinyffn.tensor(logp.numpy()), tinyffn.tensor(targets))
        theirs = torch.nn.NLLLoss(reduction=reduction)(logp, torch.tensor(targets))
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-12)
        mine = nn.MSELoss(reduction=reduction)(tinyffn.tensor(logits), tinyffn.tensor(y))
        theirs = torch.nn.MSELoss(reduction=reduction)(torch.tensor(logits), torch.tensor(y))
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-12)
    assert repr(nn.MSELoss("sum")) == "MSELoss(reduction='sum')"
    with pytest.raises(ValueError, match="CrossEntropyLoss: unknown reduction='avg'"):
        nn.CrossEntropyLoss("avg")


def test_loss_modules_match_numpy_without_torch():
    """The check above needs torch; this one does not. The reduction is fixed when the
    module is made, checked there, and shown in its repr."""
    rng = np.random.default_rng(1)
    logits, y = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    targets = np.array([0, 2, 1, 2])
    rows = ref.cross_entropy_rows(logits, targets)
    for reduction, reduce in (("mean", np.mean), ("sum", np.sum), ("none", lambda a: a)):
        loss = nn.CrossEntropyLoss(reduction)(tinyffn.tensor(logits), targets)
        np.testing.assert_allclose(loss.numpy(), reduce(rows), rtol=1e-12)
        loss = nn.NLLLoss(reduction=reduction)(tinyffn.tensor(ref.log_softmax(logits)), targets)
        np.testing.assert_allclose(loss.numpy(), reduce(rows), rtol=1e-12)
        loss = nn.MSELoss(reduction)(tinyffn.tensor(logits), tinyffn.tensor(y))
        np.testing.assert_allclose(loss.numpy(), reduce((logits - y) ** 2), rtol=1e-12)
        assert repr(nn.NLLLoss(reduction)) == f"NLLLoss(reduction='{reduction}')"
    for loss_type in (nn.MSELoss, nn.CrossEntropyLoss, nn.NLLLoss):
        with pytest.raises(ValueError, match=rf"{loss_type.__name__}: unknown reduction='avg'"):
            loss_type("avg")


def test_module_requires_grad_freezes_and_float_double_cast():
    ffn = nn.FFN(2)
    assert ffn.requires_grad_(False) is ffn
    ffn(tinyffn.randn(3, 2, requires_grad=True)).sum().backward()
    assert all(p.grad is None for p in ffn.parameters())
    ffn.w2.requires_grad_()
    assert [p.requires_grad for p in ffn.parameters()] == [False, False, True, True]
    assert all(dtype_name(p.dtype) == "float64" for p in ffn.double().parameters())
    assert all(dtype_name(p.dtype) == "float32" for p in ffn.float().parameters())
    y = ffn.half()(tinyffn.randn(3, 2).half())                       # model.half(), as torch
    assert all(dtype_name(p.dtype) == "float16" for p in ffn.parameters())
    assert dtype_name(y.dtype) == "float16"


def test_a_container_item_is_replaced_in_place_as_in_pytorch():
    """model[-1] = Linear(...) (a new head, as fine-tuning code writes): PyTorch 2.13's
    Sequential and ModuleList replace the module under its name and in its place."""
    from collections import OrderedDict
    model = nn.Sequential(OrderedDict([("w1", nn.Linear(2, 3)), ("act", nn.ReLU()),
                                       ("w2", nn.Linear(3, 1))]))
    head = nn.Linear(3, 4)
    model[-1] = head
    assert model.w2 is head and model[2] is head
    assert list(model.state_dict()) == ["w1.weight", "w1.bias", "w2.weight", "w2.bias"]
    assert model(tinyffn.ones(5, 2)).shape == (5, 4)
    blocks = nn.ModuleList([nn.ReLU(), nn.Tanh(), nn.GELU()])
    blocks[1] = nn.Linear(1, 1)
    assert [type(m).__name__ for m in blocks] == ["ReLU", "Linear", "GELU"]
    assert [n for n, _ in blocks.named_parameters()] == ["1.weight", "1.bias"]
    with pytest.raises(IndexError, match="index 3 is out of range for 3 modules"):
        blocks[3] = nn.ReLU()
    with pytest.raises(TypeError, match="is not a tinyffn Module"):
        blocks[0] = 5
    with pytest.raises(TypeError, match="the index must be an int"):
        blocks[0:1] = [nn.ReLU()]
    torch = pytest.importorskip("torch")
    t_model = torch.nn.Sequential(OrderedDict([("w1", torch.nn.Linear(2, 3)),
                                               ("act", torch.nn.ReLU()),
                                               ("w2", torch.nn.Linear(3, 1))]))
    t_model[-1] = torch.nn.Linear(3, 4)
    assert list(t_model.state_dict()) == list(model.state_dict())


def test_sequential_of_named_children_and_extend_as_in_pytorch():
    """``Sequential(OrderedDict(...))`` names the children (its state_dict loads from
    torch's); a slice keeps the names; ``extend`` appends several."""
    from collections import OrderedDict
    torch = pytest.importorskip("torch")
    mine = nn.Sequential(OrderedDict([("w1", nn.Linear(2, 4)), ("act", nn.ReLU()),
                                      ("w2", nn.Linear(4, 1))]))
    theirs = torch.nn.Sequential(OrderedDict([("w1", torch.nn.Linear(2, 4)),
                                              ("act", torch.nn.ReLU()),
                                              ("w2", torch.nn.Linear(4, 1))]))
    assert list(mine.state_dict()) == list(theirs.state_dict())
    mine.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    x = np.random.default_rng(0).normal(size=(3, 2)).astype(np.float32)
    # float32 sums of a few terms of order 0.1-1: agree to their rounding, an absolute 1e-6
    # (an output near 0 once came out 3e-8 apart, 4e-6 relative, with torch's unseeded init)
    np.testing.assert_allclose(mine(tinyffn.tensor(x)).numpy(),
                               theirs(torch.tensor(x)).detach().numpy(), rtol=1e-6, atol=1e-6)
    tail = mine[1:]
    assert list(tail.state_dict()) == list(theirs[1:].state_dict()) == ["w2.weight", "w2.bias"]
    assert tail[1] is mine.w2 and mine.w1.weight.name == "w1.weight"
    blocks = nn.ModuleList([nn.ReLU()]).extend([nn.Linear(2, 2), nn.ReLU()])
    assert len(blocks) == 3 and list(dict(blocks.named_children())) == ["0", "1", "2"]
    part = nn.Sequential(nn.ReLU(), nn.ReLU(), nn.ReLU())[1:]     # children "1" and "2"
    with pytest.raises(ValueError, match=r"item 2 cannot be named '2': a child has that name "
                                         r"\(a slice keeps.*Sequential\(\*old, module\)"):
        part.append(nn.ReLU())
    assert len(nn.Sequential(*part).append(nn.ReLU())) == 3
    for bad in ("", "a.b", "forward", 3):
        with pytest.raises(ValueError, match=rf"Sequential: item 0 cannot be named {bad!r}"):
            nn.Sequential({bad: nn.ReLU()})


def test_a_tied_parameter_is_listed_once_as_in_torch():
    torch = pytest.importorskip("torch")
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
    model[1].weight = model[0].weight                    # weight tying across two modules
    t = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Linear(2, 2))
    t[1].weight = t[0].weight
    assert [n for n, _ in model.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert sum(p.numel() for p in t.parameters()) == 8
    assert sum(int(np.prod(p.shape)) for p in model.parameters()) == 8
    tinyffn.optim.SGD(model.parameters(), lr=0.1)        # no "parameter 2 is parameter 0 again"


def test_a_state_dict_is_a_snapshot_even_of_in_place_edits():
    lin = nn.Linear(2, 2)
    saved = lin.state_dict()
    before = saved["weight"].numpy().copy()
    lin.weight.data *= 0.0                               # NumPy in-place on the raw array
    np.testing.assert_array_equal(saved["weight"].numpy(), before)


def test_loading_copies_the_checkpoint_arrays():
    lin = nn.Linear(2, 2)
    ckpt = {k: v.numpy().copy() for k, v in lin.state_dict().items()}
    other = nn.Linear(2, 2)
    other.load_state_dict(ckpt)
    ckpt["weight"][...] = 7.0                            # editing the checkpoint afterwards
    assert not np.any(other.weight.numpy() == 7.0)


def test_a_tied_parameter_is_listed_once_even_without_torch():
    """torch's names for the same model (PyTorch 2.13), written out: the comparison above
    is skipped where torch is missing."""
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
    model[1].weight = model[0].weight
    assert [n for n, _ in model.named_parameters()] == ["0.weight", "0.bias", "1.bias"]
    assert list(model.state_dict()) == ["0.weight", "0.bias", "1.weight", "1.bias"]
    assert len(list(model.parameters())) == 3


def test_zero_grad_in_place_clears_inf_and_nan():
    """After a diverged step the gradients hold inf and NaN; zeros must replace them
    (inf * 0 and NaN * 0 are NaN), as torch's zero_grad(set_to_none=False) does."""
    lin = nn.Linear(2, 3)
    lin.weight.grad = tinyffn.tensor([[np.inf, np.nan]] * 3)
    lin.bias.grad = tinyffn.tensor([np.nan, -np.inf, 1.0])
    held = lin.weight.grad
    lin.zero_grad(set_to_none=False)
    assert lin.weight.grad is held
    np.testing.assert_array_equal(lin.weight.grad.numpy(), np.zeros((3, 2)))
    np.testing.assert_array_equal(lin.bias.grad.numpy(), np.zeros(3))


def test_zero_grads_sets_none_by_default():
    from tinyffn.module import zero_grads
    lin = nn.Linear(2, 2)
    lin(tinyffn.randn(3, 2)).sum().backward()
    zero_grads(lin.parameters())
    assert all(p.grad is None for p in lin.parameters())


def test_a_parameter_is_named_by_its_attribute_even_at_the_top():
    class Scale(nn.Module):
        def __init__(self):
            super().__init__()
            self.gain = nn.Parameter(tinyffn.ones(2))

    assert Scale().gain.name == "gain"
    lin = nn.Linear(2, 2)
    assert (lin.weight.name, lin.bias.name) == ("weight", "bias")


def test_slicing_a_nested_container_keeps_the_full_paths_as_labels():
    """A ModuleList slice renumbers its children ("0", "1", ...), and any slice of a nested
    container is a new top-level module: neither may relabel the model's parameters."""
    model = nn.Module()
    model.blocks = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2), nn.Linear(2, 2)])
    model.head = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2))
    tail, end = model.blocks[1:], model.head[2:]
    assert [n for n, _ in tail.named_parameters()] == ["0.weight", "0.bias", "1.weight", "1.bias"]
    assert [n for n, _ in end.named_parameters()] == ["2.weight", "2.bias"]
    assert [p.name for p in model.parameters()] == [n for n, _ in model.named_parameters()]
    assert model.blocks[1].weight.name == "blocks.1.weight"
    assert model.head[2].bias.name == "head.2.bias"


def test_appending_to_a_slice_refuses_a_taken_name_even_without_torch():
    part = nn.Sequential(nn.ReLU(), nn.ReLU(), nn.ReLU())[1:]     # children "1" and "2"
    assert list(dict(part.named_children())) == ["1", "2"]
    with pytest.raises(ValueError, match=r"Sequential: item 2 cannot be named '2': a child has "
                                         r"that name"):
        part.append(nn.ReLU())
    assert len(part) == 2


# ----------------------------------------------------------------------------- more of torch.nn
def test_activation_modules_give_pytorchs_values(device):
    """PyTorch 2.13's nn.Tanh, nn.Sigmoid and nn.Softmax on the same inputs (float32)."""
    x = tinyffn.tensor([0.5, -1.0], device=device)
    np.testing.assert_allclose(nn.Tanh()(x).numpy(), [0.46211716532707214, -0.7615941762924194],
                               rtol=1e-6)
    np.testing.assert_allclose(nn.Sigmoid()(x).numpy(), [0.622459352016449, 0.2689414322376251],
                               rtol=1e-6)
    m = tinyffn.tensor([[1.0, 2.0], [3.0, 0.0]], device=device)
    np.testing.assert_allclose(nn.Softmax(dim=0)(m).numpy(),
                               [[0.11920291930437088, 0.8807970285415649],
                                [0.8807970285415649, 0.11920291930437088]], rtol=1e-6)
    last = [[0.2689414322376251, 0.7310585975646973], [0.9525741338729858, 0.04742587357759476]]
    np.testing.assert_allclose(nn.Softmax(-1)(m).numpy(), last, rtol=1e-6)
    np.testing.assert_allclose(nn.Softmax()(m).numpy(), last, rtol=1e-6)   # None: the last
    assert nn.Identity(3, bias=False)(m) is m
    y = nn.Sequential(nn.Linear(2, 2, device=device), nn.Tanh(), nn.Identity())(m)
    assert y.grad_fn.name == "tanh" and y.grad_fn.scope[-1].name == "Tanh"


def test_activation_modules_print_and_gradcheck_as_pytorchs():
    model = nn.Sequential(nn.Identity(), nn.Tanh(), nn.Sigmoid(), nn.Softmax(dim=1))
    assert repr(model) == ("Sequential(\n  (0): Identity()\n  (1): Tanh()\n  (2): Sigmoid()\n"
                           "  (3): Softmax(dim=1)\n)")          # torch 2.13 prints the same
    assert repr(nn.Softmax()) == "Softmax(dim=None)" and list(model.parameters()) == []
    x = tinyffn.tensor([[0.3, -1.2, 2.0], [1.0, 0.5, -0.5]], dtype="float64", requires_grad=True)
    assert tinyffn.gradcheck(model, [x])
    torch = pytest.importorskip("torch")
    theirs = torch.nn.Sequential(torch.nn.Identity(), torch.nn.Tanh(), torch.nn.Sigmoid(),
                                 torch.nn.Softmax(dim=1))
    assert repr(theirs) == repr(model)
    np.testing.assert_allclose(model(x).numpy(), theirs(torch.tensor(x.numpy())).numpy(),
                               rtol=1e-14)


def test_module_cuda_and_cpu_are_to(device):
    ffn = nn.FFN(2, device=device)
    params = list(ffn.parameters())
    assert ffn.cpu() is ffn and list(ffn.parameters()) == params
    assert all(p.device == "cpu" for p in ffn.parameters())
    if tinyffn.cuda_available():
        assert ffn.cuda() is ffn and all(p.device == "cuda" for p in ffn.parameters())
        assert ffn.cuda(0) is ffn
    else:
        with pytest.raises(tinyffn.DeviceError, match="cuda"):
            ffn.cuda()
    with pytest.raises(tinyffn.DeviceError, match="tinyffn uses one GPU"):
        ffn.cuda(1)


@pytest.mark.parametrize("build, message", [
    (lambda: nn.FFN(4, d_ff=0), "FFN: d_ff must be a positive integer, got 0"),
    (lambda: nn.GatedFFN(4, d_ff=-3), "GatedFFN: d_ff must be a positive integer, got -3"),
    (lambda: nn.GatedFFN(4, multiple_of=0),
     "GatedFFN: multiple_of must be a positive integer, got 0"),
])
def test_ffn_widths_are_refused_by_the_block_itself(build, message):
    """The block names itself (not the Linear or gated_d_ff it would fail inside)."""
    with pytest.raises(ValueError, match=f"^{message}$"):
        build()


@pytest.mark.parametrize("block", [nn.FFN, nn.GatedFFN])
def test_an_array_input_to_an_ffn_is_refused_by_name(block):
    with pytest.raises(TypeError, match=rf"^{block.__name__}: the input must be a tinyffn Tensor, "
                                        "got numpy.ndarray; convert arrays"):
        block(4)(np.ones((2, 4)))
