"""``nn.ParameterList`` and ``nn.ParameterDict`` (param_containers.py): registration (names,
``state_dict`` keys and order, loading, ``to``, optimizers, copies, ``tinyffn.save``), the
list and dict methods, labels for the graph drawer, repr, and errors. Each scenario is
checked against torch 2.13's answers written out here (CI has no torch) and, where torch is
installed, live against torch.
"""
from __future__ import annotations

import copy
import pickle
from collections import OrderedDict

import numpy as np
import pytest

import tinyffn
from tinyffn import graphviz, nn


def build(model, lib):
    """A Linear, a ParameterList and a ParameterDict (from a plain dict, keys unsorted)."""
    model.lin = lib.nn.Linear(2, 2)
    model.heads = lib.nn.ParameterList([lib.zeros(2), lib.nn.Parameter(lib.ones(3))])
    model.experts = lib.nn.ParameterDict({"z": lib.zeros(1), "y": lib.ones(1, 2)})


class Model(nn.Module):                  # at top level, so that pickle finds the class
    def __init__(self):
        super().__init__()
        build(self, tinyffn)

    def forward(self, x):
        return self.lin(x) * self.heads[0] + self.experts["y"]


def model_of(lib):
    if lib is tinyffn:
        return Model()

    class Model_(lib.nn.Module):
        def __init__(self):
            super().__init__()
            build(self, lib)
    Model_.__name__ = "Model"
    return Model_()


# torch 2.13's answers for model_of(torch)
KEYS = ["lin.weight", "lin.bias", "heads.0", "heads.1", "experts.y", "experts.z"]
REPR = """Model(
  (lin): Linear(in_features=2, out_features=2, bias=True)
  (heads): ParameterList(
      (0): Parameter containing: [float32 of size 2]
      (1): Parameter containing: [float32 of size 3]
  )
  (experts): ParameterDict(
      (y): Parameter containing: [float32 of size 1x2]
      (z): Parameter containing: [float32 of size 1]
  )
)"""


def test_names_keys_and_order_are_pytorchs():
    model = model_of(tinyffn)
    assert [n for n, _ in model.named_parameters()] == KEYS
    assert list(model.state_dict()) == KEYS
    assert [p.name for p in model.parameters()] == KEYS      # graph labels: full paths
    assert all(type(p) is nn.Parameter and p.requires_grad for p in model.parameters())
    assert repr(model) == REPR


def test_against_torch_live():
    torch = pytest.importorskip("torch")
    ours, theirs = model_of(tinyffn), model_of(torch)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    # torch's ParameterDict writes torch.FloatTensor where its ParameterList writes
    # torch.float32; tinyffn writes its dtype name in both
    their_repr = (repr(theirs).replace("torch.float32", "float32")
                  .replace("torch.FloatTensor", "float32"))
    assert repr(ours) == their_repr
    one = [torch.zeros(3, 4)]
    assert repr(nn.ParameterList([tinyffn.zeros(3, 4)])) == \
        repr(torch.nn.ParameterList(one)).replace("torch.float32", "float32")
    assert repr(nn.ParameterList()) == repr(torch.nn.ParameterList()) == "ParameterList()"
    sd = {k: v.detach().numpy() for k, v in theirs.state_dict().items()}
    ours.load_state_dict(sd)
    for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_array_equal(p.numpy(), q.detach().numpy(), err_msg=name)


def test_one_parameter_repr_is_pytorchs_one_liner():
    assert repr(nn.ParameterList([tinyffn.zeros(3, 4)])) == \
        "ParameterList(  (0): Parameter containing: [float32 of size 3x4])"
    assert repr(nn.ParameterDict({"a": tinyffn.zeros((), dtype="float64")})) == \
        "ParameterDict(  (a): Parameter containing: [float64 of size ])"


def test_a_tensor_is_wrapped_sharing_its_array_and_a_parameter_kept():
    t, p = tinyffn.zeros(2), nn.Parameter(tinyffn.ones(2), requires_grad=False)
    pl = nn.ParameterList([t, p])
    assert type(pl[0]) is nn.Parameter and pl[0].requires_grad
    assert pl[0].data is t.data                      # shared, as torch's Parameter(t)
    assert pl[1] is p and not pl[1].requires_grad
    pd = nn.ParameterDict([("a", t)])
    assert type(pd["a"]) is nn.Parameter and pd["a"].data is t.data


def test_parameter_list_methods():
    a, b, c = (nn.Parameter(tinyffn.full((2,), float(v))) for v in (1, 2, 3))
    pl = nn.ParameterList()
    assert pl.append(a) is pl and pl.extend([b]) is pl
    pl += [c]
    assert len(pl) == 3 and list(pl) == [a, b, c]
    assert pl[-1] is c and pl[1] is b
    part = pl[1:]
    assert type(part) is nn.ParameterList and list(part) == [b, c]
    assert [n for n, _ in part.named_parameters()] == ["0", "1"]
    d = nn.Parameter(tinyffn.zeros(2))
    pl[1] = d                                        # replaced in its place
    assert list(pl) == [a, d, c]
    assert [n for n, _ in pl.named_parameters()] == ["0", "1", "2"]
    pl.extend(pl)                                    # its own entries once, as a list's
    assert list(pl) == [a, d, c, a, d, c]
    assert "0" not in dir(pl) and "append" in dir(pl)


def test_parameter_dict_methods():
    a, b, c = (nn.Parameter(tinyffn.full((2,), float(v))) for v in (1, 2, 3))
    pd = nn.ParameterDict(OrderedDict([("b", b), ("a", a)]))   # an OrderedDict keeps order
    assert list(pd) == ["b", "a"] and list(pd.keys()) == ["b", "a"]
    assert list(pd.values()) == [b, a] and list(pd.items()) == [("b", b), ("a", a)]
    assert "a" in pd and "q" not in pd and 3 not in pd and len(pd) == 2
    assert list(reversed(pd)) == ["a", "b"]
    pd["b"] = c                                      # replacing keeps the key's place
    assert list(pd.items()) == [("b", c), ("a", a)]
    del pd["b"]
    pd["b"] = b                                      # a new key goes last
    assert list(pd) == ["a", "b"]
    assert pd.pop("a") is a and list(pd) == ["b"]
    assert pd.get("a") is None and pd.get("b") is b and pd.get("a", 5) == 5
    assert pd.setdefault("c", c) is c and pd.setdefault("c", a) is c
    assert pd.popitem() == ("c", c) and list(pd) == ["b"]
    pd.update([("x", a)])
    pd |= {"w": c}
    assert list(pd) == ["b", "x", "w"]
    joined = pd | {"v": a, "b": c}
    assert list(joined.items()) == [("b", c), ("x", a), ("w", c), ("v", a)]
    assert list(pd) == ["b", "x", "w"]               # | leaves both as they were
    copied = pd.copy()
    assert list(copied.items()) == list(pd.items()) and copied is not pd
    pd.clear()
    assert len(pd) == 0 and list(pd.parameters()) == []


def test_plain_dict_keys_are_sorted_as_pytorchs():
    pd = nn.ParameterDict({"b": tinyffn.zeros(1), "a": tinyffn.zeros(1), "c": tinyffn.zeros(1)})
    assert list(pd) == ["a", "b", "c"]
    assert list(nn.ParameterDict([("b", tinyffn.zeros(1)), ("a", tinyffn.zeros(1))])) == \
        ["b", "a"]


def test_sort_order_against_torch_live():
    torch = pytest.importorskip("torch")
    keys = ["b", "a", "c"]
    for how in (dict, OrderedDict, list):
        ours = nn.ParameterDict(how([(k, tinyffn.zeros(1)) for k in keys]))
        theirs = torch.nn.ParameterDict(how([(k, torch.zeros(1)) for k in keys]))
        assert list(ours) == list(theirs), how


def test_registered_for_to_optimizers_requires_grad_and_backward():
    model = model_of(tinyffn)
    model.to(dtype="float64")
    assert all(p.dtype == np.float64 for p in model.parameters())
    model.requires_grad_(False)
    assert not model.heads[1].requires_grad and not model.experts["z"].requires_grad
    model.requires_grad_(True)
    x = tinyffn.tensor(np.arange(6.0).reshape(3, 2))
    model(x).sum().backward()
    # d/d heads.0 of sum(lin(x) * h + y) is the column sums of lin(x); of experts.y, 3 rows
    lin = x.numpy() @ model.lin.weight.numpy().T + model.lin.bias.numpy()
    np.testing.assert_allclose(model.heads[0].grad.numpy(), lin.sum(0))
    np.testing.assert_allclose(model.experts["y"].grad.numpy(), [[3.0, 3.0]])
    before = model.experts["y"].numpy().copy()
    tinyffn.optim.SGD(model.parameters(), lr=0.5).step()
    np.testing.assert_allclose(model.experts["y"].numpy(), before - 1.5)


def test_copies_pickles_and_save_keep_them(tmp_path):
    model = model_of(tinyffn)
    model.heads[0].data = tinyffn.tensor([1.0, 2.0])
    path = tmp_path / "m.pt"
    tinyffn.save(model, path)
    for other in (copy.deepcopy(model), pickle.loads(pickle.dumps(model)),
                  tinyffn.load(path, weights_only=False)):
        assert [n for n, _ in other.named_parameters()] == KEYS
        assert type(other.heads) is nn.ParameterList and list(other.experts) == ["y", "z"]
        np.testing.assert_array_equal(other.heads[0].numpy(), [1.0, 2.0])
        assert other.heads[0] is not model.heads[0]
    tinyffn.save(model.state_dict(), path)
    fresh = model_of(tinyffn)
    fresh.load_state_dict(tinyffn.load(path))
    np.testing.assert_array_equal(fresh.heads[0].numpy(), [1.0, 2.0])


def test_labels_follow_the_model_and_the_graph_names_them():
    model = model_of(tinyffn)
    model.heads.append(tinyffn.zeros(4))             # added to a list already in a model
    model.experts["new"] = tinyffn.zeros(1)
    assert model.heads[2].name == "heads.2" and model.experts["new"].name == "experts.new"
    model.heads[1:]                                  # a slice, a copy, | leave labels alone
    model.experts.copy()
    model.experts | {"other": tinyffn.zeros(1)}
    assert [p.name for p in model.parameters()] == [n for n, _ in model.named_parameters()]
    dot = graphviz.to_dot(model(tinyffn.ones(3, 2)).sum())
    assert 'label="heads.0\\n(2,)"' in dot and 'label="experts.y\\n(1, 2)"' in dot


def test_a_plain_list_of_parameters_is_refused_naming_the_containers():
    model = nn.Module()
    with pytest.raises(TypeError, match=r"nn\.ParameterList\(\[\.\.\.\]\) or "
                                        r"nn\.ParameterDict"):
        model.heads = [nn.Parameter(tinyffn.zeros(2))]


@pytest.mark.parametrize("act, error, message", [
    (lambda pl, pd: pl[5], IndexError, r"ParameterList\[i\]: index 5 is out of range for 2"),
    (lambda pl, pd: pl.__setitem__(-3, tinyffn.zeros(1)), IndexError, "index -3 is out of range"),
    (lambda pl, pd: pl["a"], TypeError, "the index must be an int"),
    (lambda pl, pd: pl.append(3.0), TypeError, r"ParameterList\.append: item 2: expected a "
                                               "Parameter or a Tensor"),
    (lambda pl, pd: pl.extend(tinyffn.zeros(2)), TypeError,
     "ParameterList.extend should be called with an iterable, but got Tensor"),
    (lambda pl, pd: pl.extend(3), TypeError, "should be called with an iterable, but got int"),
    (lambda pl, pd: pl.extend([tinyffn.zeros(1), None]), TypeError, "item 1: expected"),
    (lambda pl, pd: pl(1), RuntimeError, "ParameterList should not be called"),
    (lambda pl, pd: pd["q"], KeyError, "has no parameter under 'q'"),
    (lambda pl, pd: pd.__setitem__(1, tinyffn.zeros(1)), TypeError, "a key must be a string"),
    (lambda pl, pd: pd.__setitem__("a.b", tinyffn.zeros(1)), KeyError, 'contain "\\.", got: a.b'),
    (lambda pl, pd: pd.__setitem__("keys", tinyffn.zeros(1)), KeyError,
     "attribute 'keys' already exists"),
    (lambda pl, pd: pd.__setitem__("training", tinyffn.zeros(1)), KeyError, "already exists"),
    (lambda pl, pd: pd.__setitem__("n", None), TypeError, "got None"),
    (lambda pl, pd: pd.__delitem__("nope"), KeyError, "nope"),
    (lambda pl, pd: pd.update(3), TypeError, "should be called with a dict or an iterable"),
    (lambda pl, pd: pd.update([("a",)]), ValueError, "element #0 has length 1; 2 is required"),
    (lambda pl, pd: pd.update([3]), TypeError, "element #0 should be a"),
    (lambda pl, pd: pd.update([("n", tinyffn.zeros(1)), ("m", "x")]), TypeError, "'m'"),
    (lambda pl, pd: nn.ParameterDict().popitem(), KeyError, "empty"),
    (lambda pl, pd: pd(1), RuntimeError, "ParameterDict should not be called"),
])
def test_errors(act, error, message):
    pl = nn.ParameterList([tinyffn.zeros(1), tinyffn.zeros(2)])
    pd = nn.ParameterDict({"a": tinyffn.zeros(1)})
    with pytest.raises(error, match=message):
        act(pl, pd)
    assert len(pl) == 2 and list(pd) == ["a"]        # a refused change changes nothing


def test_module_repr_lays_out_a_multi_line_extra_repr_as_pytorchs():
    """torch 2.13 prints each extra_repr line on its own, indented, before the children."""
    class Two(nn.Module):
        def __init__(self):
            super().__init__()
            self.act = nn.ReLU()

        def extra_repr(self):
            return "a=1\nb=2"
    assert repr(Two()) == "Two(\n  a=1\n  b=2\n  (act): ReLU()\n)"
    del Two.__init__
    assert repr(Two()) == "Two(\n  a=1\n  b=2\n)"


def test_module_repr_leaves_blank_lines_of_a_child_empty_as_pytorchs():
    """torch 2.13's _addindent indents a child's lines but leaves blank ones empty; the
    top level's own lines are indented whatever they hold. Written out from torch."""
    class Blank(nn.Module):
        def extra_repr(self):
            return "x\n\ny"
    assert repr(Blank()) == "Blank(\n  x\n  \n  y\n)"
    assert repr(nn.Sequential(Blank())) == "Sequential(\n  (0): Blank(\n    x\n\n    y\n  )\n)"


def test_a_generator_of_parameters_is_taken_whole():
    """The docstring's ParameterList(Parameter(...) for _ in range(h)): extend checks every
    item before adding any, so it must read a generator once, into a list."""
    pl = nn.ParameterList(tinyffn.ones(i + 1) for i in range(3))
    assert [p.shape for p in pl] == [(1,), (2,), (3,)]
    pl.extend(tinyffn.zeros(2) for _ in range(2))
    assert len(pl) == 5 and list(pl.state_dict()) == ["0", "1", "2", "3", "4"]


def test_another_parameter_attribute_is_not_an_entry_as_in_pytorch():
    """torch 2.13: pl.extra = Parameter(...) is registered (named_parameters has it) but
    is not an entry: len stays 1 and the repr lists (0) only."""
    pl = nn.ParameterList([tinyffn.ones(1)])
    pl.extra = nn.Parameter(tinyffn.ones(2))
    assert len(pl) == 1 and [p.shape for p in pl] == [(1,)]
    assert [name for name, _ in pl.named_parameters()] == ["0", "extra"]
    assert repr(pl) == "ParameterList(  (0): Parameter containing: [float32 of size 1])"


def test_a_dict_or_parameter_dict_puts_the_dicts_keys_first():
    """torch 2.13: {"b": ...} | ParameterDict({"a": ...}) has keys b, a; the other way
    a, b; a common key takes the right-hand value in the left-hand place."""
    pd = nn.ParameterDict({"a": tinyffn.ones(1), "c": tinyffn.ones(1)})
    b = tinyffn.zeros(2)
    assert list({"b": b} | pd) == ["b", "a", "c"]
    assert list(pd | {"b": b}) == ["a", "c", "b"]
    both = {"c": b} | pd
    assert list(both) == ["c", "a"] and both["c"].shape == (1,)
    both = pd | {"a": b}
    assert list(both) == ["a", "c"] and both["a"].shape == (2,)


def test_in_sees_keys_only_not_other_attributes():
    """As torch 2.13: "training" in pd is False (it is an attribute, not a key), and get
    gives the default for it."""
    pd = nn.ParameterDict({"a": tinyffn.ones(1)})
    assert "a" in pd and "training" not in pd and "_buffer_names" not in pd
    assert pd.get("training", 7) == 7 and list(pd) == ["a"]
