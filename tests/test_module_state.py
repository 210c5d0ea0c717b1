"""Module state beyond parameters, and two layers a PyTorch user reaches for: buffers
(``register_buffer``) with PyTorch's state_dict keys and order, ``to`` and loading;
``ModuleDict``; ``Embedding`` against NumPy, finite differences and PyTorch's rules.

The PyTorch lists below were printed by torch 2.13 for the same structures (written out,
so these tests run without torch)."""
import re

import numpy as np
import pytest

import tinyffn
from tinyffn import autograd, nn
from tinyffn.backend import dtype_name
from tinyffn.graphviz import to_dot
from tinyffn.naming import graph_names

PARAMETER_STYLE = 'fillcolor="#cfe2ff"'
INPUT_STYLE = 'fillcolor="#e9ecef"'


class Block(nn.Module):
    """Buffers of each kind among a parameter and a submodule."""

    def __init__(self):
        super().__init__()
        self.register_buffer("scale", tinyffn.ones(2))
        self.lin = nn.Linear(2, 2)
        self.register_buffer("steps", tinyffn.zeros((), dtype="int64"))
        self.weight = nn.Parameter(tinyffn.zeros(2))
        self.register_buffer("cache", tinyffn.zeros(3), persistent=False)
        self.register_buffer("empty", None)

    def forward(self, x):
        return self.lin(x) * self.scale + self.weight


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("mask", tinyffn.ones(2, dtype="bool"))
        self.first = Block()
        self.bias = nn.Parameter(tinyffn.zeros(2))
        self.blocks = nn.ModuleDict({"b": Block(), "a": nn.Linear(2, 1)})


# torch.nn with torch.ones/zeros in the same places: Model().state_dict().keys(), ...
TORCH_STATE_DICT_KEYS = [
    "bias", "mask", "first.weight", "first.scale", "first.steps", "first.lin.weight",
    "first.lin.bias", "blocks.b.weight", "blocks.b.scale", "blocks.b.steps",
    "blocks.b.lin.weight", "blocks.b.lin.bias", "blocks.a.weight", "blocks.a.bias"]
TORCH_NAMED_BUFFERS = ["mask", "first.scale", "first.steps", "first.cache", "blocks.b.scale",
                       "blocks.b.steps", "blocks.b.cache"]
TORCH_NAMED_PARAMETERS = [
    "bias", "first.weight", "first.lin.weight", "first.lin.bias", "blocks.b.weight",
    "blocks.b.lin.weight", "blocks.b.lin.bias", "blocks.a.weight", "blocks.a.bias"]


# ----------------------------------------------------------------------------- buffers
def test_the_lists_above_are_what_torch_prints():
    """Where torch is installed, rebuild the structures in torch and compare."""
    torch = pytest.importorskip("torch")

    class TorchBlock(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("scale", torch.ones(2))
            self.lin = torch.nn.Linear(2, 2)
            self.register_buffer("steps", torch.zeros((), dtype=torch.int64))
            self.weight = torch.nn.Parameter(torch.zeros(2))
            self.register_buffer("cache", torch.zeros(3), persistent=False)
            self.register_buffer("empty", None)

    class TorchModel(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("mask", torch.ones(2, dtype=torch.bool))
            self.first = TorchBlock()
            self.bias = torch.nn.Parameter(torch.zeros(2))
            self.blocks = torch.nn.ModuleDict({"b": TorchBlock(),
                                               "a": torch.nn.Linear(2, 1)})

    model = TorchModel()
    assert list(model.state_dict()) == TORCH_STATE_DICT_KEYS
    assert [name for name, _ in model.named_buffers()] == TORCH_NAMED_BUFFERS
    assert [name for name, _ in model.named_parameters()] == TORCH_NAMED_PARAMETERS
    model.double()
    assert model.first.steps.dtype == torch.int64 and model.mask.dtype == torch.bool
    assert repr(torch.nn.Embedding(10, 3, padding_idx=-2)) == "Embedding(10, 3, padding_idx=8)"


def test_state_dict_keys_and_order_are_pytorchs():
    model = Model()
    assert list(model.state_dict()) == TORCH_STATE_DICT_KEYS
    assert [name for name, _ in model.named_buffers()] == TORCH_NAMED_BUFFERS
    assert [name for name, _ in model.named_parameters()] == TORCH_NAMED_PARAMETERS
    assert [name for name, _ in model.named_buffers(recurse=False)] == ["mask"]
    assert [name for name, _ in model.first.named_buffers("first")] == \
        ["first.scale", "first.steps", "first.cache"]
    assert list(model.buffers()) == [t for _, t in model.named_buffers()]
    assert model.first.scale is dict(model.named_buffers())["first.scale"]
    # a buffer is no parameter: neither listed nor handed to an optimizer
    assert not any(t is b for t in model.parameters() for b in model.buffers())
    state = model.state_dict()
    assert dtype_name(state["first.steps"].dtype) == "int64"
    assert dtype_name(state["mask"].dtype) == "bool"


def test_non_persistent_buffers_are_neither_saved_nor_loaded():
    model = Block()
    assert "cache" not in model.state_dict() and "cache" in dict(model.named_buffers())
    state = model.state_dict()
    state["cache"] = tinyffn.ones(3)
    with pytest.raises(RuntimeError, match=r"unexpected key\(s\): cache"):
        model.load_state_dict(state)
    assert model.load_state_dict(state, strict=False) == ([], ["cache"])
    np.testing.assert_array_equal(model.cache.numpy(), np.zeros(3))


def test_a_shared_buffer_is_listed_once_but_saved_under_every_path():
    shared = Block()
    model = nn.ModuleList([shared, shared])
    assert [name for name, _ in model.named_buffers()] == ["0.scale", "0.steps", "0.cache"]
    assert [name for name, _ in model.named_buffers(remove_duplicate=False)] == \
        ["0.scale", "0.steps", "0.cache", "1.scale", "1.steps", "1.cache"]
    assert "1.steps" in model.state_dict()
    mask, first, second = tinyffn.ones(2), Block(), Block()   # one tensor in two modules
    first.register_buffer("mask", mask)
    second.register_buffer("mask", mask)
    pair = nn.ModuleList([first, second])
    assert [name for name, _ in pair.named_buffers() if "mask" in name] == ["0.mask"]
    assert [name for name in pair.state_dict() if "mask" in name] == ["0.mask", "1.mask"]


def test_to_moves_every_buffer_and_casts_only_floating_ones(device):
    model = Model()
    model.first.steps = tinyffn.tensor(7)
    before = dict(model.named_buffers())
    assert model.to(device, dtype="float64") is model
    after = dict(model.named_buffers())
    assert all(after[name] is before[name] for name in before)   # in place, as parameters
    kinds = {name: dtype_name(t.dtype) for name, t in after.items()}
    assert kinds == {"mask": "bool", "first.scale": "float64", "first.steps": "int64",
                     "first.cache": "float64", "blocks.b.scale": "float64",
                     "blocks.b.steps": "int64", "blocks.b.cache": "float64"}   # torch's
    assert all(t.device == device for t in model.buffers())
    assert int(model.first.steps.item()) == 7
    assert model.float().first.scale.dtype == model.first.lin.weight.dtype
    assert dtype_name(model.first.scale.dtype) == "float32"
    assert dtype_name(model.double().first.steps.dtype) == "int64"
    y = model.first(tinyffn.randn(3, 2, dtype="float64", device=device))
    assert y.device == device


def test_load_state_dict_round_trip_fills_buffers_in_their_dtype(device):
    source, target = Model().to(device), Model().to(device)
    source.first.steps = tinyffn.tensor(5, device=device)
    source.first.scale = tinyffn.tensor([2.0, 3.0], device=device)
    source.mask = tinyffn.tensor([True, False], device=device)
    scale = target.first.scale
    assert target.load_state_dict(source.state_dict()) == ([], [])
    assert target.first.scale is scale                           # loaded in place
    np.testing.assert_array_equal(target.first.scale.numpy(), [2.0, 3.0])
    assert int(target.first.steps.item()) == 5
    assert dtype_name(target.first.steps.dtype) == "int64"
    np.testing.assert_array_equal(target.mask.numpy(), [True, False])
    # a float checkpoint into the int buffer keeps the buffer's dtype
    target.load_state_dict({**source.state_dict(), "first.steps": np.float64(9.0)})
    assert dtype_name(target.first.steps.dtype) == "int64" and int(target.first.steps.item()) == 9


def test_load_state_dict_reports_buffers_as_it_reports_parameters():
    model = Model()
    state = model.state_dict()
    del state["first.steps"]
    with pytest.raises(RuntimeError, match=r"missing key\(s\): first\.steps"):
        model.load_state_dict(state)
    assert model.load_state_dict(state, strict=False) == (["first.steps"], [])
    state = model.state_dict()
    state["first.scale"] = tinyffn.zeros(3)
    state["bias"] = tinyffn.ones(2)                            # a good value beside it
    with pytest.raises(RuntimeError, match=r"size mismatch for first\.scale: the checkpoint "
                                           r"has shape \(3,\), the model has \(2,\)"):
        model.load_state_dict(state)
    np.testing.assert_array_equal(model.bias.numpy(), np.zeros(2))   # nothing was loaded


def test_assigning_to_a_buffer_replaces_it_and_del_unregisters_it():
    model = Block()
    new = tinyffn.tensor([5.0, 6.0, 7.0])
    model.scale = new                                           # as torch: still a buffer
    assert dict(model.named_buffers())["scale"] is new and new.name == "scale"
    np.testing.assert_array_equal(model.state_dict()["scale"].numpy(), [5.0, 6.0, 7.0])
    model.scale = None                                          # registered, nothing saved
    assert "scale" not in model.state_dict() and model.scale is None
    model.scale = tinyffn.ones(2)
    assert list(model.state_dict())[:2] == ["weight", "scale"]  # in its registered place
    del model.scale
    assert "scale" not in dict(model.named_buffers())
    model.scale = tinyffn.ones(2)                               # now a plain attribute
    assert "scale" not in model.state_dict()
    model.register_buffer("steps", tinyffn.tensor(3), persistent=False)   # re-registered
    assert "steps" not in model.state_dict()


def test_buffers_are_not_trained():
    model = Block()
    optimizer = tinyffn.optim.SGD(model.parameters(), lr=0.1)
    scale = model.scale.numpy()
    model(tinyffn.randn(4, 2)).sum().backward()
    optimizer.step()
    assert model.scale.grad is None and not model.scale.requires_grad
    np.testing.assert_array_equal(model.scale.numpy(), scale)
    assert model.requires_grad_(True) is model and not model.scale.requires_grad


def test_buffers_are_named_by_their_path_like_parameters():
    model = Model()
    assert model.first.scale.name == "first.scale"
    assert model.blocks["b"].steps.name == "blocks.b.steps"
    stack = nn.ModuleList([Block(), Block()])
    stack[1:]                                                   # a slice renames nothing
    assert stack[1].scale.name == "1.scale"


@pytest.mark.parametrize("name, value, error, message", [
    ("bias", tinyffn.ones(2), ValueError, r"Model\.bias is already a parameter"),
    ("first", tinyffn.ones(2), ValueError, r"Model\.first is already a submodule"),
    ("note", tinyffn.ones(2), ValueError, r"Model\.note is already an attribute"),
    ("forward", tinyffn.ones(2), ValueError, r"Model\.forward is already a method"),
    ("a.b", tinyffn.ones(2), ValueError, r"'a\.b' cannot name a buffer: .* without '\.'"),
    ("", tinyffn.ones(2), ValueError, r"'' cannot name a buffer: a name is a non-empty"),
    (3, tinyffn.ones(2), TypeError, r"a buffer's name must be a string, got int"),
    ("x", [1.0, 2.0], TypeError, r"buffer 'x' must be a tinyffn Tensor or None, got list; "
                                 r"wrap it with tinyffn\.tensor"),
    ("x", nn.Parameter(tinyffn.ones(2)), TypeError,
     r"'x' is a Parameter, which a module learns.*self\.x = nn\.Parameter\(t\)"),
])
def test_register_buffer_errors_say_how_to_fix_them(name, value, error, message):
    model = Model()
    model.note = "a note"
    with pytest.raises(error, match=rf"Model\.register_buffer: {message}"):
        model.register_buffer(name, value)
    assert [n for n, _ in model.named_buffers(recurse=False)] == ["mask"]


def test_buffer_assignments_and_early_registration_are_checked():
    model = Model()
    with pytest.raises(TypeError, match=r"cannot assign a value of type int to Model\.mask, "
                                        r"which is a buffer \(register_buffer\); assign a "
                                        r"tinyffn Tensor or None"):
        model.mask = 3
    with pytest.raises(TypeError, match=r"to Model\.mask, which is a buffer.*del module\.mask"):
        model.mask = nn.Parameter(tinyffn.ones(2))
    assert dtype_name(model.mask.dtype) == "bool"

    class Early(nn.Module):
        def __init__(self):
            self.register_buffer("x", tinyffn.ones(1))         # before super().__init__()

    with pytest.raises(AttributeError, match=r"Early\.register_buffer: cannot register buffer "
                                             r"'x' before Module\.__init__\(\) has run"):
        Early()


def test_a_buffer_is_drawn_by_its_path_as_an_input_not_as_a_parameter():
    tinyffn.manual_seed(0)
    model = nn.Sequential(Block())
    y = model(tinyffn.randn(3, 2))
    names = graph_names(autograd.topological_order(y, every_input=True))
    assert names[id(model[0].scale)] == "0.scale"
    dot = to_dot(y)
    (scale,) = [line for line in dot.splitlines() if 'label="0.scale\\n(2,)"' in line]
    (weight,) = [line for line in dot.splitlines() if 'label="0.weight\\n(2,)"' in line]
    assert INPUT_STYLE in scale and PARAMETER_STYLE not in scale
    assert PARAMETER_STYLE in weight


# ----------------------------------------------------------------------------- ModuleDict
class Experts(nn.Module):
    def __init__(self):
        super().__init__()
        self.experts = nn.ModuleDict({"relu": nn.FFN(2), "gelu": nn.FFN(2, activation="gelu")})

    def forward(self, x):
        return sum(expert(x) for expert in self.experts.values())


def test_module_dict_names_children_by_their_keys():
    model = Experts()
    names = [name for name, _ in model.named_parameters()]
    # torch.nn.ModuleDict of two torch FFNs with w1, act, w2: the same names, in this order
    assert names == ["experts.relu.w1.weight", "experts.relu.w1.bias", "experts.relu.w2.weight",
                     "experts.relu.w2.bias", "experts.gelu.w1.weight", "experts.gelu.w1.bias",
                     "experts.gelu.w2.weight", "experts.gelu.w2.bias"]
    assert list(model.state_dict()) == names
    assert model.experts["gelu"].w1.weight.name == "experts.gelu.w1.weight"
    experts = model.experts
    assert list(experts) == ["relu", "gelu"] == list(experts.keys())
    assert [m for _, m in experts.items()] == list(experts.values()) == list(experts.children())
    assert len(experts) == 2 and "relu" in experts and "tanh" not in experts and 3 not in experts
    assert experts["relu"].activation == "relu"
    assert repr(experts).startswith("ModuleDict(\n  (relu): FFN(")


def test_module_dict_update_pop_del_and_clear():
    relu, gelu, swish = nn.ReLU(), nn.GELU(), nn.Swish()
    d = nn.ModuleDict([("x", relu), ("y", gelu)])               # pairs, as torch takes
    d.update([("x", swish), ("z", relu)])                       # replacing keeps x's place
    assert list(d) == ["x", "y", "z"] and d["x"] is swish
    d.update(nn.ModuleDict({"w": gelu}))
    d.update({"v": nn.Linear(2, 2)})
    d.update([["u", relu]])                                     # a list pair too, as torch
    assert list(d) == ["x", "y", "z", "w", "v", "u"] and d["u"] is relu
    del d["u"]
    assert [name for name, _ in d.named_parameters()] == ["v.weight", "v.bias"]
    assert d.pop("v").out_features == 2 and "v" not in d
    assert list(d.parameters()) == []
    del d["y"]
    assert list(d) == ["x", "z", "w"]
    d["y"] = gelu                                               # a new key goes last
    assert list(d) == ["x", "z", "w", "y"]
    d.clear()
    assert len(d) == 0 and list(d) == []
    assert len(nn.ModuleDict()) == 0


def test_module_dict_errors():
    d = nn.ModuleDict({"relu": nn.ReLU()})
    with pytest.raises(TypeError, match=r"ModuleDict: a key must be a string .* got int 3; "
                                        r"use str\(3\)"):
        d[3] = nn.ReLU()
    with pytest.raises(ValueError, match=r"ModuleDict\['a\.b'\] cannot be named 'a\.b': .* "
                                         r"without '\.'"):
        d["a.b"] = nn.ReLU()
    for taken in ("keys", "forward", "training", ""):
        with pytest.raises(ValueError, match=rf"ModuleDict\[{taken!r}\] cannot be named"):
            d[taken] = nn.ReLU()
    with pytest.raises(TypeError, match=r"ModuleDict\['f'\] is not a tinyffn Module \(got "
                                        r"function\)"):
        d["f"] = lambda x: x
    with pytest.raises(KeyError, match=r"ModuleDict has no module under 'gelu'; its keys are "
                                       r"\['relu'\]"):
        d["gelu"]
    with pytest.raises(KeyError, match="no module under 'gelu'"):
        d.pop("gelu")
    with pytest.raises(ValueError, match=r"ModuleDict\['loop'\] contains this ModuleDict"):
        d["loop"] = nn.Sequential(d)
    with pytest.raises(TypeError, match=r"ModuleDict\.update: element 0 must be a \(key, "
                                        r"module\) pair, got ReLU"):
        d.update([nn.ReLU()])
    # a string or a container of two is one element, not unpacked into a (key, module) pair
    for whole, name in (("ab", "str"), (nn.Sequential(nn.ReLU(), nn.ReLU()), "Sequential")):
        with pytest.raises(TypeError, match=rf"element 0 must be a \(key, module\) pair, got "
                                            rf"{name}$"):
            d.update([whole])
    with pytest.raises(ValueError, match=r"element 1 must be a \(key, module\) pair, got 3 "
                                         r"items"):
        d.update([("a", nn.ReLU()), ("b", nn.ReLU(), 1)])
    with pytest.raises(TypeError, match=r"expected a dict or an iterable of \(key, module\) "
                                        r"pairs, got int"):
        nn.ModuleDict(3)
    with pytest.raises(TypeError, match=r"ModuleDict is a container, not a layer: call the "
                                        r"modules inside"):
        d(tinyffn.ones(2))
    assert list(d) == ["relu"]


def test_plain_dict_of_modules_points_to_module_dict():
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.experts = {"relu": nn.ReLU()}

    with pytest.raises(TypeError, match=r"nn\.ModuleDict\(\{\.\.\.\}\) for a dict"):
        Model()


def test_module_dict_calls_are_framed_by_their_keys():
    tinyffn.manual_seed(0)
    dot = to_dot(Experts()(tinyffn.randn(3, 2)))
    frames = re.findall(r'label="([^"]*)" labeljust=l style=rounded', dot)
    assert frames == ["Experts", "experts.relu: FFN", "experts.relu.w1: Linear",
                      "experts.relu.act: ReLU", "experts.relu.w2: Linear", "experts.gelu: FFN",
                      "experts.gelu.w1: Linear", "experts.gelu.act: GELU",
                      "experts.gelu.w2: Linear"]
    assert 'label="experts.gelu.w2.bias\\n(2,)"' in dot


# ----------------------------------------------------------------------------- Embedding
def test_embedding_matches_numpy_fancy_indexing(device):
    emb = nn.Embedding(10, 4, dtype="float64", device=device)
    w = emb.weight.numpy()
    ids = np.array([[1, 0, 9], [3, 3, 2]])                     # (B, T)
    y = emb(tinyffn.tensor(ids, device=device))
    assert y.shape == (2, 3, 4) and y.device == device
    np.testing.assert_array_equal(y.numpy(), w[ids])
    np.testing.assert_array_equal(emb(tinyffn.tensor(7, device=device)).numpy(), w[7])
    assert emb(tinyffn.tensor(np.zeros(0, dtype=np.int64), device=device)).shape == (0, 4)
    assert dtype_name(nn.Embedding(3, 2).weight.dtype) == "float32"


def test_embedding_gradcheck_on_the_weight(device):
    emb = nn.Embedding(5, 3, dtype="float64", device=device)
    ids = tinyffn.tensor([[0, 4, 2], [2, 2, 1]], device=device)
    assert tinyffn.gradcheck(lambda w: emb(ids), [emb.weight])


def test_a_repeated_index_receives_the_sum_of_its_gradients(device):
    emb = nn.Embedding(4, 2, dtype="float64", device=device)
    gy = np.arange(10.0).reshape(5, 2)
    ids = np.array([1, 1, 2, 1, 0])
    emb(tinyffn.tensor(ids, device=device)).backward(tinyffn.tensor(gy, device=device))
    expected = np.zeros((4, 2))
    np.add.at(expected, ids, gy)
    np.testing.assert_array_equal(emb.weight.grad.numpy(), expected)
    assert expected[1].tolist() == (gy[0] + gy[1] + gy[3]).tolist()
    emb.weight.grad = None
    emb(tinyffn.tensor([1, 1, 2], device=device)).sum().backward()
    np.testing.assert_array_equal(emb.weight.grad.numpy()[:, 0], [0, 2, 1, 0])


def test_the_padding_row_starts_at_zero_and_gets_no_gradient(device):
    emb = nn.Embedding(5, 3, padding_idx=-2, dtype="float64", device=device)
    assert emb.padding_idx == 3                                 # torch counts from the end too
    np.testing.assert_array_equal(emb.weight.numpy()[3], np.zeros(3))
    assert np.all(emb.weight.numpy()[[0, 1, 2, 4]] != 0)
    ids = tinyffn.tensor([3, 1, 3, 4], device=device)
    y = emb(ids)
    assert 'label="padding row\\n(1, 3)"' in to_dot(y)               # drawn as a constant
    y.sum().backward()
    np.testing.assert_array_equal(emb.weight.grad.numpy(), [[0] * 3, [1] * 3, [0] * 3,
                                                            [0] * 3, [1] * 3])
    # the forward still reads the row: a pretrained padding vector comes out as it is
    table = np.arange(15.0).reshape(5, 3)
    pre = nn.Embedding.from_pretrained(tinyffn.tensor(table, device=device), freeze=False,
                                       padding_idx=0)
    y = pre(tinyffn.tensor([0, 2, 0], device=device))
    np.testing.assert_array_equal(y.numpy(), table[[0, 2, 0]])
    y.sum().backward()
    np.testing.assert_array_equal(pre.weight.grad.numpy()[:, 0], [0, 0, 1, 0, 0])
    last = nn.Embedding(3, 2, padding_idx=2, device=device)     # padding at either end
    last(tinyffn.tensor([2, 0], device=device)).sum().backward()
    np.testing.assert_array_equal(last.weight.grad.numpy()[:, 0], [1, 0, 0])


def test_embedding_starts_standard_normal_and_follows_the_seed():
    tinyffn.manual_seed(3)
    w = nn.Embedding(2000, 50).weight.numpy()
    assert abs(w.mean()) < 0.01 and abs(w.std() - 1) < 0.01    # N(0, 1), as torch's
    tinyffn.manual_seed(3)
    np.testing.assert_array_equal(nn.Embedding(2000, 50).weight.numpy(), w)


def test_embedding_from_pretrained():
    table = tinyffn.tensor(np.arange(6.0).reshape(3, 2), dtype="float64")
    emb = nn.Embedding.from_pretrained(table)
    assert not emb.weight.requires_grad and isinstance(emb.weight, nn.Parameter)
    assert emb.weight.data is table.data                       # shared, as torch's
    assert (emb.num_embeddings, emb.embedding_dim, emb.padding_idx) == (3, 2, None)
    assert list(emb.state_dict()) == ["weight"]
    assert nn.Embedding.from_pretrained(table, freeze=False).weight.requires_grad
    with pytest.raises(ValueError, match=r"from_pretrained: embeddings must be 2-D "
                                         r"\(num_embeddings, embedding_dim\), got shape \(6,\)"):
        nn.Embedding.from_pretrained(tinyffn.zeros(6))
    with pytest.raises(TypeError, match="embeddings must be a tinyffn Tensor, got numpy.ndarray"):
        nn.Embedding.from_pretrained(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="padding_idx must be an integer in"):
        nn.Embedding.from_pretrained(table, padding_idx=3)


def test_embedding_repr_is_pytorchs():
    assert repr(nn.Embedding(10, 3)) == "Embedding(10, 3)"                 # torch's strings
    assert repr(nn.Embedding(10, 3, padding_idx=-2)) == "Embedding(10, 3, padding_idx=8)"
    assert repr(nn.Embedding(4, 3, padding_idx=-4)) == "Embedding(4, 3, padding_idx=0)"  # -n


@pytest.mark.parametrize("ids, error, message", [
    (tinyffn.tensor([1.0, 2.0]), TypeError,
     r"Embedding: indices must be integers, got dtype float32; make them int64: idx.long\(\)"),
    (tinyffn.tensor([True, False]), TypeError, r"indices must be integers, got dtype bool"),
    (tinyffn.tensor([2, -1]), IndexError,
     r"Embedding: index -1 is out of range for num_embeddings=5: indices must lie in "
     r"\[0, 5\) \(negative ones are refused, as in PyTorch\)"),
    (tinyffn.tensor([[0, 5], [7, 1]]), IndexError, r"index 7 is out of range for "
                                                   r"num_embeddings=5"),
    (tinyffn.tensor([4, 5]), IndexError, r"Embedding: index 5 is out of range for "
                                         r"num_embeddings=5"),          # n itself: one past
    ([0, 1], TypeError, r"Embedding: the indices must be a tinyffn Tensor, got list"),
])
def test_embedding_refuses_bad_indices(ids, error, message):
    with pytest.raises(error, match=message):
        nn.Embedding(5, 2)(ids)


def test_embedding_refuses_indices_on_another_device():
    emb = nn.Embedding(5, 2, device="strict")
    with pytest.raises(tinyffn.DeviceError, match=r"Embedding: the indices are on cpu but the "
                                                  r"table on strict; move them with "
                                                  r"\.to\('strict'\)"):
        emb(tinyffn.tensor([1]))


@pytest.mark.parametrize("args, message", [
    ((0, 3), r"Embedding: num_embeddings must be a positive integer, got 0"),
    ((2.0, 3), r"num_embeddings must be a positive integer, got 2\.0"),
    ((True, 3), r"num_embeddings must be a positive integer, got True"),
    ((4, -1), r"Embedding: embedding_dim must be a positive integer, got -1"),
    ((4, 3, 4), r"Embedding: padding_idx must be an integer in \[-4, 4\), a row of the "
                r"table \(num_embeddings=4\), got 4"),
    ((4, 3, -5), r"padding_idx must be an integer in \[-4, 4\).*got -5"),
    ((4, 3, 1.0), r"padding_idx must be an integer .* got 1\.0"),
])
def test_embedding_refuses_bad_sizes(args, message):
    with pytest.raises(ValueError, match=message):
        nn.Embedding(*args)
