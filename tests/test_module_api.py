"""The ``torch.nn.Module`` API by name (module_api.py), ``state_dict``'s and
``load_state_dict``'s PyTorch arguments and extra state (module_state.py), and the list
methods of ``Sequential`` and ``ModuleList`` (containers.py), against PyTorch.

Each scenario below is one function of ``lib``, the ``torch`` or the ``tinyffn`` module: it
builds modules with ``lib.nn``, does something, and returns plain data (names, class
names, exception class names, flags). Every scenario is run three ways: tinyffn against
torch 2.13 live (where torch is installed); tinyffn against torch 2.13's answer written out
in ``EXPECTED`` (so a CI without torch still compares with PyTorch); and ``EXPECTED``
against torch live, so that the written answers cannot drift. Error messages are checked
the same way: tinyffn's must hold PyTorch's words (``ERRORS``). Where tinyffn differs from
PyTorch on purpose (torch's ModuleList.insert with a negative index, a buffer assigned a
Parameter, ...), the tests below the tables say what tinyffn does and why, with
expectations written by hand.
"""
from collections import OrderedDict

import numpy as np
import pytest

import tinyffn
from tinyffn import nn

SCENARIOS = {}


def scenario(fn):
    SCENARIOS[fn.__name__] = fn
    return fn


def outcome(fn):
    """"ok" if ``fn()`` returns, else the class name of what it raised."""
    try:
        fn()
    except Exception as e:          # the class is the answer compared
        return type(e).__name__
    return "ok"


def layout(container):
    """(path, class name) of every module below ``container``, each path of a shared one."""
    return [(path, type(m).__name__)
            for path, m in container.named_modules(remove_duplicate=False) if path]


def dtype_of(t):
    return str(t.dtype).removeprefix("torch.")


def three(lib):
    """A ReLU, a Tanh and a Sigmoid: children whose classes show where each one went."""
    return [lib.nn.ReLU(), lib.nn.Tanh(), lib.nn.Sigmoid()]


# ----------------------------------------------------------------------------- containers
@scenario
def modulelist_insert(lib):
    blocks = lib.nn.ModuleList(three(lib))
    returned = blocks.insert(1, lib.nn.GELU())
    end = lib.nn.ModuleList(three(lib))
    end.insert(3, lib.nn.GELU())
    return [returned is None, layout(blocks), layout(end)]


@scenario
def sequential_insert(lib):
    seq = lib.nn.Sequential(*three(lib))
    returned = seq.insert(-1, lib.nn.GELU())
    first = lib.nn.Sequential(*three(lib)).insert(-3, lib.nn.GELU())
    past = lib.nn.Sequential(*three(lib))
    return [returned is seq, layout(seq), layout(first),
            outcome(lambda: past.insert(4, lib.nn.GELU())),
            outcome(lambda: past.insert(-4, lib.nn.GELU())), layout(past)]


@scenario
def pop(lib):
    blocks, seq = lib.nn.ModuleList(three(lib)), lib.nn.Sequential(*three(lib))
    first, last = blocks.pop(0), seq.pop(-1)
    return [type(first).__name__, layout(blocks), type(last).__name__, layout(seq),
            outcome(lambda: blocks.pop(2)), outcome(lambda: seq.pop(-3)), layout(seq)]


@scenario
def pop_a_slice(lib):
    blocks, seq = lib.nn.ModuleList(three(lib)), lib.nn.Sequential(*three(lib))
    head, tail = blocks.pop(slice(0, 2)), seq.pop(slice(1, None))
    return [type(head).__name__, layout(head), layout(blocks),
            type(tail).__name__, layout(tail), layout(seq)]


@scenario
def delete(lib):
    blocks, seq = lib.nn.ModuleList(three(lib)), lib.nn.Sequential(*three(lib))
    del blocks[1]
    del seq[::2]
    other = lib.nn.ModuleList(three(lib))
    return [layout(blocks), layout(seq), outcome(lambda: other.__delitem__(3)),
            outcome(lambda: other.__delitem__("1")), layout(other)]


@scenario
def delete_renumbers_named_children(lib):
    """PyTorch renumbers a Sequential built from an OrderedDict too: the names go."""
    a, b, c = three(lib)
    seq = lib.nn.Sequential(OrderedDict([("w1", a), ("act", b), ("w2", c)]))
    del seq[1]
    return layout(seq)


@scenario
def delete_a_shared_child(lib):
    """A module held twice is two places: deleting one leaves the other."""
    relu, tanh = lib.nn.ReLU(), lib.nn.Tanh()
    blocks = lib.nn.ModuleList([relu, relu, tanh])
    del blocks[0]
    seq = lib.nn.Sequential(relu, tanh, relu)
    popped = seq.pop(1)
    return [layout(blocks), blocks[0] is relu, popped is tanh, layout(seq)]


@scenario
def modulelist_add(lib):
    blocks, gelu = lib.nn.ModuleList(three(lib)), lib.nn.GELU()
    total = blocks + [gelu]
    from_seq = blocks + lib.nn.Sequential(lib.nn.GELU())
    return [type(total).__name__, layout(total), total[3] is gelu, total[0] is blocks[0],
            layout(blocks), layout(from_seq), outcome(lambda: blocks + 5)]


@scenario
def modulelist_iadd(lib):
    blocks = lib.nn.ModuleList(three(lib))
    before = blocks
    blocks += [lib.nn.GELU()]
    return [blocks is before, layout(blocks), outcome(lambda: blocks.__iadd__(5)),
            outcome(lambda: blocks.__iadd__([5])), len(blocks)]


@scenario
def sequential_add(lib):
    seq, other = lib.nn.Sequential(*three(lib)), lib.nn.Sequential(lib.nn.GELU())
    total = seq + other
    before = seq
    seq += other
    return [type(total).__name__, layout(total), total[3] is other[0], seq is before,
            layout(seq), outcome(lambda: seq + lib.nn.ModuleList([lib.nn.GELU()])),
            outcome(lambda: seq + [lib.nn.GELU()]), outcome(lambda: seq.__iadd__([])),
            len(seq)]


@scenario
def named_sequential_appends_by_number(lib):
    """append, += and + on a Sequential with named children (and a slice of one)."""
    def named():
        a, b, c = three(lib)
        return lib.nn.Sequential(OrderedDict([("w1", a), ("act", b), ("w2", c)]))
    appended = named().append(lib.nn.GELU())
    added = named()
    added += lib.nn.Sequential(lib.nn.GELU())
    part = named()[1:]
    part.append(lib.nn.GELU())
    return [layout(appended), layout(added), layout(named() + lib.nn.Sequential()),
            layout(part)]


@scenario
def sequential_append_returns_it(lib):
    seq = lib.nn.Sequential(lib.nn.ReLU())
    return [seq.append(lib.nn.Tanh()) is seq, seq.extend([lib.nn.GELU()]) is seq, layout(seq),
            outcome(lambda: seq.append(5))]


@scenario
def state_dict_after_insert_and_pop(lib):
    """The keys of a model whose ModuleList changed, and which values went where."""
    torch_like = lib

    class Model(torch_like.nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = torch_like.nn.ModuleList(
                [torch_like.nn.Linear(2, 2), torch_like.nn.Linear(2, 3)])
            self.head = torch_like.nn.Linear(3, 1)

    model = Model()
    second = model.blocks[1]
    model.blocks.insert(0, lib.nn.Linear(2, 4, bias=False))
    model.blocks.pop(1)
    return [list(model.state_dict()), model.blocks[1] is second,
            [n for n, _ in model.named_parameters()]]


# ----------------------------------------------------------------------------- by name
@scenario
def add_module(lib):
    m = lib.nn.Linear(2, 3)
    m.register_buffer("buf", lib.zeros(2))
    m.plain = 5
    relu, tanh = lib.nn.ReLU(), lib.nn.Tanh()
    checks = [outcome(lambda: m.add_module("x", 5)), outcome(lambda: m.add_module(3, relu)),
              outcome(lambda: m.add_module("a.b", relu)), outcome(lambda: m.add_module("", relu)),
              outcome(lambda: m.add_module("weight", relu)),
              outcome(lambda: m.add_module("buf", relu)),
              outcome(lambda: m.add_module("plain", relu)),
              outcome(lambda: m.add_module("forward", relu)),
              m.add_module("act", relu), m.register_module("norm", lib.nn.GELU())]
    m.add_module("act", tanh)                   # replaced in its place
    m.add_module("empty", None)
    return [checks, [n for n, _ in m.named_children()], m.act is tanh, m.empty is None,
            list(m.state_dict())]


@scenario
def register_parameter(lib):
    m = lib.nn.Linear(2, 3)
    m.register_buffer("buf", lib.zeros(2))
    m.add_module("act", lib.nn.ReLU())
    m.plain = 5
    p = lib.nn.Parameter(lib.ones(1))
    checks = [outcome(lambda: m.register_parameter(1, None)),
              outcome(lambda: m.register_parameter("a.b", p)),
              outcome(lambda: m.register_parameter("", p)),
              outcome(lambda: m.register_parameter("buf", p)),
              outcome(lambda: m.register_parameter("act", p)),
              outcome(lambda: m.register_parameter("plain", p)),
              outcome(lambda: m.register_parameter("t", lib.zeros(2))),
              outcome(lambda: m.register_parameter("t", 5)),
              m.register_parameter("gain", None)]
    listed = [n for n, _ in m.named_parameters()], list(m.state_dict())
    m.register_parameter("gain", p)
    new_weight = lib.nn.Parameter(lib.ones(3, 2))
    m.register_parameter("weight", new_weight)          # keeps its place
    after = [n for n, _ in m.named_parameters()], m.weight is new_weight, m.gain is p
    m.register_parameter("bias", None)
    return [checks, listed, after, [n for n, _ in m.named_parameters()], list(m.state_dict()),
            m.bias is None]


@scenario
def registering_before_init(lib):
    class Late(lib.nn.Module):
        def __init__(self):
            self.register_parameter("w", None)

    return outcome(Late)


def _tree(lib):
    """Sequential(a: Linear, b: Sequential(Linear, Block)), Block with a parameter, a
    buffer, a buffer set to None and a plain attribute."""
    class Block(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = lib.nn.Parameter(lib.ones(2))
            self.register_buffer("running", lib.zeros(2))
            self.register_buffer("nothing", None)
            self.note = "x"

    return lib.nn.Sequential(OrderedDict(
        [("a", lib.nn.Linear(2, 2)), ("b", lib.nn.Sequential(lib.nn.Linear(2, 2), Block()))]))


@scenario
def get_submodule(lib):
    model = _tree(lib)
    return [model.get_submodule("") is model, model.get_submodule("b.0") is model.b[0],
            model.get_submodule("b") is model.b] + [
        outcome(lambda t=t: model.get_submodule(t))
        for t in ("b.5", "c.0", "a.weight", "a.forward", "a.", "b.1.note")]


@scenario
def get_parameter(lib):
    model = _tree(lib)
    return [model.get_parameter("a.weight") is model.a.weight,
            model.get_parameter("b.1.scale") is model.b[1].scale] + [
        outcome(lambda t=t: model.get_parameter(t))
        for t in ("weight", "a", "b.1.running", "x.weight", "", "b.1.note", "a.nothing")]


@scenario
def get_buffer(lib):
    model = _tree(lib)
    return [model.get_buffer("b.1.running") is model.b[1].running,
            model.get_buffer("b.1.nothing") is None] + [
        outcome(lambda t=t: model.get_buffer(t))
        for t in ("a.weight", "a.zzz", "a.training", "", "b", "b.1.note", "c.running")]


@scenario
def named_modules_memo(lib):
    relu, tanh = lib.nn.ReLU(), lib.nn.Tanh()
    seq = lib.nn.Sequential(relu, tanh, relu)
    memo = {relu}
    listed = [n for n, _ in seq.named_modules(memo)]
    kept = {relu}
    every = [n for n, _ in seq.named_modules(kept, remove_duplicate=False)]
    return [listed, len(memo), tanh in memo, every, len(kept),
            [n for n, _ in seq.named_modules(None, "top")],
            [n for n, _ in seq.named_modules(prefix="top", remove_duplicate=False)]]


@scenario
def named_parameters_of_a_shared_parameter(lib):
    a, b = lib.nn.Linear(2, 2), lib.nn.Linear(2, 2)
    b.weight = a.weight
    model = lib.nn.Sequential(a, b)
    return [[n for n, _ in model.named_parameters()],
            [n for n, _ in model.named_parameters(remove_duplicate=False)],
            [n for n, _ in model.named_parameters(prefix="m", recurse=False)],
            list(model.state_dict())]


# ----------------------------------------------------------------------------- state_dict
@scenario
def state_dict_arguments(lib):
    model = _tree(lib)
    live = model.state_dict(keep_vars=True)
    copied = model.state_dict()
    given = {"step": 3}
    filled = model.state_dict(destination=given, prefix="net.")
    return [list(live), live["a.weight"] is model.a.weight,
            live["b.1.running"] is model.b[1].running, copied["a.weight"] is model.a.weight,
            type(live["b.1.scale"]).__name__, filled is given, list(given)]


def _counted(lib, get=True, put=True):
    """A module with a step count saved as extra state (get/set as asked), and a Linear."""
    class Counted(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.count = 0
            self.lin = lib.nn.Linear(1, 1)

        if get:
            def get_extra_state(self):
                return {"count": self.count}
        if put:
            def set_extra_state(self, state):
                self.count = state["count"]

    class Outer(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = Counted()
            self.out = lib.nn.Linear(1, 1)

    return Outer()


@scenario
def extra_state_is_saved_and_loaded(lib):
    model = _counted(lib)
    model.inner.count = 7
    state = model.state_dict()
    fresh = _counted(lib)
    result = fresh.load_state_dict(state)
    return [list(state), state["inner._extra_state"], list(result), fresh.inner.count,
            model.state_dict(prefix="m.")["m.inner._extra_state"],
            list(model.state_dict(keep_vars=True))]


@scenario
def extra_state_keys_missing_and_unexpected(lib):
    state = _counted(lib).state_dict()
    without = {k: v for k, v in state.items() if "extra" not in k}
    lin = lib.nn.Linear(1, 1)
    with_extra = {**lin.state_dict(), "_extra_state": 3}
    saved_only = _counted(lib, put=False)
    return [outcome(lambda: _counted(lib).load_state_dict(without)),
            list(_counted(lib).load_state_dict(without, strict=False)),
            outcome(lambda: lin.load_state_dict(with_extra)),
            list(lin.load_state_dict(with_extra, strict=False)),
            list(saved_only.state_dict()),
            outcome(lambda: saved_only.load_state_dict(saved_only.state_dict())),
            list(_counted(lib, get=False).state_dict()),
            outcome(lambda: lin.get_extra_state()), outcome(lambda: lin.set_extra_state(3))]


@scenario
def load_with_assign(lib):
    m = lib.nn.Linear(2, 3)
    old = m.weight
    w, b = lib.ones(3, 2, dtype=lib.float64), lib.zeros(3)
    result = m.load_state_dict({"weight": w, "bias": b}, assign=True)
    first = [list(result), type(m.weight).__name__, dtype_of(m.weight), m.weight is w,
             m.weight is old, m.weight.requires_grad, m.weight.tolist()]
    m.weight.requires_grad_(False)
    p = lib.nn.Parameter(lib.ones(3, 2))
    m.load_state_dict({"weight": p, "bias": b}, assign=True)
    return [first, m.weight is p, p.requires_grad, m.bias is b,
            outcome(lambda: m.load_state_dict({"weight": lib.ones(2, 2), "bias": b},
                                              assign=True)),
            outcome(lambda: m.load_state_dict({"weight": [[1.0, 2.0]] * 3, "bias": b},
                                              assign=True)),
            outcome(lambda: lib.nn.Linear(2, 3).load_state_dict(
                {"weight": lib.ones(3, 2, dtype=lib.int64), "bias": b}, assign=True)),
            m.weight is p]


@scenario
def load_with_assign_buffers_and_ties(lib):
    model = _tree(lib)
    running = lib.ones(2)
    state = {**model.state_dict(), "b.1.running": running}
    model.load_state_dict(state, assign=True)
    a, b = lib.nn.Linear(2, 2), lib.nn.Linear(2, 2)
    b.weight = a.weight
    tied = lib.nn.Sequential(a, b)
    tied.load_state_dict(tied.state_dict(), assign=True)     # two copies: the tie is gone
    still_tied = a.weight is b.weight
    b.weight = a.weight
    tied.load_state_dict(tied.state_dict(keep_vars=True), assign=True)   # one Parameter
    return [model.b[1].running is running, [n for n, _ in model.named_buffers()],
            still_tied, a.weight is b.weight,
            outcome(lambda: lib.nn.Linear(2, 2).load_state_dict({"weight": lib.ones(2, 2)},
                                                                 strict=False, assign=True))]


# torch 2.13's answers to the scenarios above (printed by running them with lib=torch)
EXPECTED = {
    "modulelist_insert": [
        True, [("0", "ReLU"), ("1", "GELU"), ("2", "Tanh"), ("3", "Sigmoid")],
        [("0", "ReLU"), ("1", "Tanh"), ("2", "Sigmoid"), ("3", "GELU")]],
    "sequential_insert": [
        True, [("0", "ReLU"), ("1", "Tanh"), ("2", "GELU"), ("3", "Sigmoid")],
        [("0", "GELU"), ("1", "ReLU"), ("2", "Tanh"), ("3", "Sigmoid")],
        "IndexError", "IndexError", [("0", "ReLU"), ("1", "Tanh"), ("2", "Sigmoid")]],
    "pop": ["ReLU", [("0", "Tanh"), ("1", "Sigmoid")], "Sigmoid", [("0", "ReLU"), ("1", "Tanh")],
            "IndexError", "IndexError", [("0", "ReLU"), ("1", "Tanh")]],
    "pop_a_slice": ["ModuleList", [("0", "ReLU"), ("1", "Tanh")], [("0", "Sigmoid")],
                    "Sequential", [("1", "Tanh"), ("2", "Sigmoid")], [("0", "ReLU")]],
    "delete": [[("0", "ReLU"), ("1", "Sigmoid")], [("0", "Tanh")], "IndexError", "TypeError",
               [("0", "ReLU"), ("1", "Tanh"), ("2", "Sigmoid")]],
    "delete_renumbers_named_children": [("0", "ReLU"), ("1", "Sigmoid")],
    "delete_a_shared_child": [[("0", "ReLU"), ("1", "Tanh")], True, True,
                              [("0", "ReLU"), ("1", "ReLU")]],
    "modulelist_add": [
        "ModuleList", [("0", "ReLU"), ("1", "Tanh"), ("2", "Sigmoid"), ("3", "GELU")], True,
        True, [("0", "ReLU"), ("1", "Tanh"), ("2", "Sigmoid")],
        [("0", "ReLU"), ("1", "Tanh"), ("2", "Sigmoid"), ("3", "GELU")], "TypeError"],
    "modulelist_iadd": [True, [("0", "ReLU"), ("1", "Tanh"), ("2", "Sigmoid"), ("3", "GELU")],
                        "TypeError", "TypeError", 4],
    "sequential_add": [
        "Sequential", [("0", "ReLU"), ("1", "Tanh"), ("2", "Sigmoid"), ("3", "GELU")], True,
        True, [("0", "ReLU"), ("1", "Tanh"), ("2", "Sigmoid"), ("3", "GELU")], "ValueError",
        "ValueError", "ValueError", 4],
    "named_sequential_appends_by_number": [
        [("w1", "ReLU"), ("act", "Tanh"), ("w2", "Sigmoid"), ("3", "GELU")],
        [("w1", "ReLU"), ("act", "Tanh"), ("w2", "Sigmoid"), ("3", "GELU")],
        [("0", "ReLU"), ("1", "Tanh"), ("2", "Sigmoid")],
        [("act", "Tanh"), ("w2", "Sigmoid"), ("2", "GELU")]],
    "sequential_append_returns_it": [True, True, [("0", "ReLU"), ("1", "Tanh"), ("2", "GELU")],
                                     "TypeError"],
    "state_dict_after_insert_and_pop": [
        ["blocks.0.weight", "blocks.1.weight", "blocks.1.bias", "head.weight", "head.bias"],
        True, ["blocks.0.weight", "blocks.1.weight", "blocks.1.bias", "head.weight",
               "head.bias"]],
    "add_module": [["TypeError", "TypeError", "KeyError", "KeyError", "KeyError", "KeyError",
                    "KeyError", "KeyError", None, None],
                   ["act", "norm"], True, True, ["weight", "bias", "buf"]],
    "register_parameter": [
        ["TypeError", "KeyError", "KeyError", "KeyError", "KeyError", "KeyError", "TypeError",
         "TypeError", None],
        (["weight", "bias"], ["weight", "bias", "buf"]),
        (["weight", "bias", "gain"], True, True), ["weight", "gain"],
        ["weight", "gain", "buf"], True],
    "registering_before_init": "AttributeError",
    "get_submodule": [True, True, True, "AttributeError", "AttributeError", "AttributeError",
                      "AttributeError", "AttributeError", "AttributeError"],
    "get_parameter": [True, True, "AttributeError", "AttributeError", "AttributeError",
                      "AttributeError", "AttributeError", "AttributeError", "AttributeError"],
    "get_buffer": [True, True, "AttributeError", "AttributeError", "AttributeError",
                   "AttributeError", "AttributeError", "AttributeError", "AttributeError"],
    "named_modules_memo": [["", "1"], 3, True, ["", "1"], 1, ["top", "top.0", "top.1"],
                           ["top", "top.0", "top.1", "top.2"]],
    "named_parameters_of_a_shared_parameter": [
        ["0.weight", "0.bias", "1.bias"], ["0.weight", "0.bias", "1.weight", "1.bias"], [],
        ["0.weight", "0.bias", "1.weight", "1.bias"]],
    "state_dict_arguments": [
        ["a.weight", "a.bias", "b.0.weight", "b.0.bias", "b.1.scale", "b.1.running"], True,
        True, False, "Parameter", True,
        ["step", "net.a.weight", "net.a.bias", "net.b.0.weight", "net.b.0.bias",
         "net.b.1.scale", "net.b.1.running"]],
    "extra_state_is_saved_and_loaded": [
        ["inner._extra_state", "inner.lin.weight", "inner.lin.bias", "out.weight", "out.bias"],
        {"count": 7}, [[], []], 7, {"count": 7},
        ["inner._extra_state", "inner.lin.weight", "inner.lin.bias", "out.weight",
         "out.bias"]],
    "extra_state_keys_missing_and_unexpected": [
        "RuntimeError", [["inner._extra_state"], []], "RuntimeError", [[], ["_extra_state"]],
        ["inner._extra_state", "inner.lin.weight", "inner.lin.bias", "out.weight", "out.bias"],
        "RuntimeError", ["inner.lin.weight", "inner.lin.bias", "out.weight", "out.bias"],
        "RuntimeError", "RuntimeError"],
    "load_with_assign": [
        [[[], []], "Parameter", "float64", False, False, True,
         [[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]]],
        True, False, False, "RuntimeError", "RuntimeError", "RuntimeError", True],
    "load_with_assign_buffers_and_ties": [True, ["b.1.running"], False, True, "ok"],
}


def _plain(value):
    """Tuples as lists, so that written answers and answers compare alike."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


@pytest.mark.parametrize("name", SCENARIOS)
def test_each_scenario_gives_what_pytorch_gives(name):
    torch = pytest.importorskip("torch")
    assert _plain(SCENARIOS[name](tinyffn)) == _plain(SCENARIOS[name](torch))


@pytest.mark.parametrize("name", SCENARIOS)
def test_each_scenario_gives_pytorchs_written_answer(name):
    assert _plain(SCENARIOS[name](tinyffn)) == _plain(EXPECTED[name])


def test_one_written_answer_per_scenario():
    assert set(EXPECTED) == set(SCENARIOS)


def test_the_written_answers_are_pytorchs():
    torch = pytest.importorskip("torch")
    wrong = [name for name, fn in SCENARIOS.items()
             if _plain(fn(torch)) != _plain(EXPECTED[name])]
    assert not wrong, f"EXPECTED differs from torch {torch.__version__} for {wrong}"


# ----------------------------------------------------------------------------- messages
# (what is called, PyTorch 2.13's message): tinyffn raises the same class of error, and its
# message holds PyTorch's words (and then says what to do)
ERRORS = {
    "add_module_not_a_module": (lambda lib: lib.nn.Linear(1, 1).add_module("x", 5),
                                "int is not a Module subclass"),
    "add_module_name_type": (lambda lib: lib.nn.Linear(1, 1).add_module(3, lib.nn.ReLU()),
                             "module name should be a string. Got int"),
    "add_module_dot": (lambda lib: lib.nn.Linear(1, 1).add_module("a.b", lib.nn.ReLU()),
                       'module name can\'t contain ".", got: a.b'),
    "add_module_empty": (lambda lib: lib.nn.Linear(1, 1).add_module("", lib.nn.ReLU()),
                         'module name can\'t be empty string ""'),
    "add_module_taken": (lambda lib: lib.nn.Linear(1, 1).add_module("weight", lib.nn.ReLU()),
                         "attribute 'weight' already exists"),
    "register_parameter_name_type": (lambda lib: lib.nn.Linear(1, 1).register_parameter(1, None),
                                     "parameter name should be a string. Got int"),
    "register_parameter_dot": (lambda lib: lib.nn.Linear(1, 1).register_parameter("a.b", None),
                               'parameter name can\'t contain "."'),
    "register_parameter_empty": (lambda lib: lib.nn.Linear(1, 1).register_parameter("", None),
                                 'parameter name can\'t be empty string ""'),
    "register_parameter_taken": (
        lambda lib: lib.nn.Sequential(lib.nn.ReLU()).register_parameter("0", None),
        "attribute '0' already exists"),
    "register_parameter_value": (
        lambda lib: lib.nn.Linear(1, 1).register_parameter("t", 5),
        "cannot assign 'int' object to parameter 't' ("),
    "get_submodule_missing": (lambda lib: _tree(lib).get_submodule("b.5"),
                              "Sequential has no attribute `5`"),
    "get_submodule_not_a_module": (lambda lib: _tree(lib).get_submodule("a.weight"),
                                   "`weight` is not an nn.Module"),
    "get_parameter_missing": (lambda lib: _tree(lib).get_parameter("a.zzz"),
                              "Linear has no attribute `zzz`"),
    "get_parameter_not_a_parameter": (lambda lib: _tree(lib).get_parameter("b.1.running"),
                                      "`running` is not an nn.Parameter"),
    "get_buffer_not_a_buffer": (lambda lib: _tree(lib).get_buffer("a.weight"),
                                "`weight` is not a buffer"),
    "sequential_add_other": (lambda lib: lib.nn.Sequential() + [lib.nn.ReLU()],
                             "add operator supports only objects of Sequential class"),
    "modulelist_extend_other": (lambda lib: lib.nn.ModuleList().extend(5),
                                "ModuleList.extend should be called with an iterable, but "
                                "got int"),
    "missing_extra_state": (lambda lib: _counted(lib).load_state_dict(
        {k: v for k, v in _counted(lib).state_dict().items() if "extra" not in k}),
        "inner._extra_state"),
}


def _raised(fn, lib):
    with pytest.raises(Exception) as info:
        fn(lib)
    return type(info.value).__name__, info.value.args[0]


# the class of each error, as PyTorch 2.13 raises it
ERROR_KINDS = {name: "KeyError" for name in ERRORS if name.endswith(("_dot", "_empty", "_taken"))}
ERROR_KINDS |= {name: "AttributeError" for name in ERRORS if name.startswith("get_")}
ERROR_KINDS |= {name: "TypeError" for name in ("add_module_not_a_module", "add_module_name_type",
                                               "register_parameter_name_type",
                                               "register_parameter_value",
                                               "modulelist_extend_other")}
ERROR_KINDS |= {"sequential_add_other": "ValueError", "missing_extra_state": "RuntimeError"}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_hold_pytorchs_words(name):
    fn, words = ERRORS[name]
    kind, message = _raised(fn, tinyffn)
    assert kind == ERROR_KINDS[name] and words in message, message
    assert len(message) > len(words) + 20, "and then say what to do"


@pytest.mark.parametrize("name", ERRORS)
def test_the_written_words_are_pytorchs(name):
    torch = pytest.importorskip("torch")
    fn, words = ERRORS[name]
    kind, message = _raised(fn, torch)
    assert kind == ERROR_KINDS[name] and words in message, message


# ----------------------------------------------------------------------------- labels
class Model(nn.Module):
    """Containers inside a model: their parameters' labels carry the model's paths."""

    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2), nn.Linear(2, 2)])
        self.head = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2))
        self.experts = nn.ModuleDict({"a": nn.Linear(2, 2)})


def labels_are_paths(model):
    """Every parameter's and buffer's label is its path in ``model`` (as drawings use)."""
    named = [*model.named_parameters(), *model.named_buffers()]
    return [t.name for _, t in named] == [n for n, _ in named]


@pytest.mark.parametrize("change", [
    lambda m: m.blocks.insert(0, nn.Linear(2, 2)),
    lambda m: m.blocks.insert(-1, nn.Linear(2, 2)),
    lambda m: m.blocks.pop(0),
    lambda m: m.blocks.pop(slice(0, 2)),
    lambda m: m.blocks.__delitem__(1),
    lambda m: m.blocks.__delitem__(slice(None, None, 2)),
    lambda m: m.blocks.append(nn.Linear(2, 2)),
    lambda m: m.blocks.extend([nn.Linear(2, 2)]),
    lambda m: m.blocks.__iadd__([nn.Linear(2, 2)]),
    lambda m: m.blocks.__setitem__(0, nn.Linear(2, 2)),
    lambda m: m.head.insert(1, nn.Tanh()),
    lambda m: m.head.pop(0),
    lambda m: m.head.__iadd__(nn.Sequential(nn.Linear(2, 2))),
    lambda m: m.experts.__setitem__("b", nn.Linear(2, 2)),
    lambda m: m.blocks[0].add_module("extra", nn.Linear(2, 2)),
    lambda m: m.blocks[1].register_parameter("gain", nn.Parameter(tinyffn.ones(2))),
    lambda m: m.head.register_module("tail", nn.Linear(2, 2)),
    lambda m: m.blocks + [nn.Linear(2, 2)],
    lambda m: m.head + nn.Sequential(nn.Linear(2, 2)),
    lambda m: m.load_state_dict(
        {k: tinyffn.zeros(*v.shape) for k, v in m.state_dict().items()}, assign=True),
], ids=["insert", "insert_negative", "pop", "pop_slice", "del", "del_slice", "append", "extend",
        "iadd", "setitem", "seq_insert", "seq_pop", "seq_iadd", "moduledict_setitem",
        "add_module", "register_parameter", "register_module", "modulelist_add",
        "sequential_add", "assign"])
def test_labels_stay_the_paths_in_the_model(change):
    """A drawing labels a parameter met outside its module's call by ``p.name``: after
    any change to a container inside a model (or ``+``, which builds a new one from its
    modules), each label is still the tensor's path in the model (blocks.1.weight, not
    1.weight)."""
    model = Model()
    assert labels_are_paths(model)
    change(model)
    assert labels_are_paths(model), [(n, p.name) for n, p in model.named_parameters()]


def test_labels_after_pop_name_the_new_places():
    model = Model()
    third = model.blocks[2].weight
    model.blocks.pop(0)
    assert third.name == "blocks.1.weight"
    model.blocks.insert(0, nn.Linear(2, 2))
    assert third.name == "blocks.2.weight" and model.blocks[0].bias.name == "blocks.0.bias"


def test_a_container_in_no_model_labels_from_itself():
    blocks = nn.ModuleList([nn.Linear(2, 2)])
    blocks.insert(0, nn.Linear(2, 2))
    assert [p.name for p in blocks.parameters()] == ["0.weight", "0.bias", "1.weight", "1.bias"]


# ----------------------------------------------------------------------------- differences
def test_modulelist_insert_is_a_lists():
    """PyTorch 2.13's ModuleList.insert takes no negative index (KeyError, after moving
    some modules), puts one past the end under its number (a gap, "10"), and takes a
    non-module; tinyffn's is Sequential.insert's: a negative index from the end, out of
    range an IndexError, the module checked, nothing changed by an error."""
    blocks = nn.ModuleList(three(tinyffn))
    blocks.insert(-1, nn.GELU())
    assert layout(blocks) == [("0", "ReLU"), ("1", "Tanh"), ("2", "GELU"), ("3", "Sigmoid")]
    with pytest.raises(IndexError, match=r"ModuleList\.insert: index 10 is out of range for 4 "
                                         r"modules \(from -4 to 4\)"):
        blocks.insert(10, nn.GELU())
    with pytest.raises(TypeError, match=r"ModuleList\.insert: the module is not a tinyffn "
                                        r"Module \(got int\)"):
        blocks.insert(0, 5)
    with pytest.raises(TypeError, match=r"the index must be an int, got bool"):
        blocks.insert(True, nn.GELU())
    with pytest.raises(ValueError, match="contains this ModuleList"):
        blocks.insert(0, blocks)
    assert len(blocks) == 4


def test_inserting_among_named_children_is_refused_clearly():
    """PyTorch fails with KeyError('2') (changing nothing); tinyffn says why. At the end
    nothing moves, so it is an append, as in PyTorch."""
    a, b, c = three(tinyffn)
    seq = nn.Sequential(OrderedDict([("w1", a), ("act", b), ("w2", c)]))
    with pytest.raises(ValueError, match=r"Sequential\.insert: the children are named \['w1', "
                                         r"'act', 'w2'\], not numbered 0 to 2"):
        seq.insert(1, nn.GELU())
    assert seq.insert(3, nn.GELU()) is seq
    assert layout(seq) == [("w1", "ReLU"), ("act", "Tanh"), ("w2", "Sigmoid"), ("3", "GELU")]
    part = nn.Sequential(*three(tinyffn))[1:]           # children "1", "2"
    with pytest.raises(ValueError, match="a child has that name"):
        part.insert(2, nn.GELU())                       # PyTorch replaces child "2"
    assert layout(part) == [("1", "Tanh"), ("2", "Sigmoid")]


def test_pop_defaults_to_the_last_and_checks_its_index():
    """PyTorch's pop(key) has no default; tinyffn's pops the last, as a list's."""
    blocks = nn.ModuleList(three(tinyffn))
    assert type(blocks.pop()).__name__ == "Sigmoid" and len(blocks) == 2
    with pytest.raises(IndexError, match=r"ModuleList\.pop: index 2 is out of range for 2 "
                                         "modules"):
        blocks.pop(2)
    with pytest.raises(IndexError, match="index -1 is out of range for 0 modules"):
        nn.Sequential().pop()
    with pytest.raises(TypeError, match=r"ModuleList\.del: the index must be an int or a "
                                        r"slice, got str"):
        del blocks["0"]


def test_a_container_extended_by_itself_doubles_as_a_list_does():
    """``c += c`` and ``c.extend(c)``: PyTorch 2.13 raises "dictionary changed size during
    iteration" with one module already added (checked live where torch is installed);
    tinyffn appends c's modules once, as ``list.extend`` does."""
    blocks, seq = nn.ModuleList(three(tinyffn)), nn.Sequential(*three(tinyffn))
    blocks += blocks
    seq.extend(seq)
    doubled = [(str(i), kind) for i, kind in enumerate(["ReLU", "Tanh", "Sigmoid"] * 2)]
    assert layout(blocks) == doubled and layout(seq) == doubled
    assert blocks[0] is blocks[3] and seq[2] is seq[5]
    torch = pytest.importorskip("torch")
    theirs = torch.nn.ModuleList(three(torch))
    with pytest.raises(RuntimeError, match="dictionary changed size during iteration"):
        theirs += theirs
    assert len(theirs) == 4


def test_a_modulelist_plus_what_holds_no_modules_says_so():
    """PyTorch: TypeError "int is not a Module subclass"; tinyffn's said only that an int
    has no attribute 'parameters' (an AttributeError from the labels it keeps)."""
    blocks = nn.ModuleList(three(tinyffn))
    for other in ([3], [nn.GELU(), lambda x: x], "ab"):
        with pytest.raises(TypeError, match=r"ModuleList: item \d is not a tinyffn Module "
                                            r"\(got (int|function|str)\)"):
            blocks + other
    assert layout(blocks) == [("0", "ReLU"), ("1", "Tanh"), ("2", "Sigmoid")]


def test_add_module_and_register_parameter_take_a_plain_none_attribute():
    """PyTorch refuses to register over a plain attribute set to None (KeyError); tinyffn
    cannot tell it from a child or parameter registered as None, so takes it, as
    assigning ``self.x = module`` does in both."""
    class Slots(nn.Module):
        def __init__(self):
            super().__init__()
            self.x = None
            self.y = None
            self.register_buffer("z", None)

    m = Slots()
    m.add_module("x", nn.ReLU())
    m.register_parameter("y", nn.Parameter(tinyffn.ones(1)))
    assert [n for n, _ in m.named_children()] == ["x"]
    assert [n for n, _ in m.named_parameters()] == ["y"]
    with pytest.raises(KeyError, match="attribute 'z' already exists \\(a buffer of Slots\\)"):
        m.add_module("z", nn.ReLU())


def test_add_module_refuses_a_cycle():
    """PyTorch takes ``m.add_module("me", m)``, and its repr then recurses forever."""
    m = nn.Sequential(nn.ReLU())
    outer = nn.Sequential(m)
    with pytest.raises(ValueError, match=r"Sequential\.add_module: module 'me' contains this "
                                         "Sequential; a module tree cannot have cycles"):
        m.add_module("me", outer)
    assert [n for n, _ in m.named_children()] == ["0"]


def test_get_submodule_names_what_is_there():
    model = _tree(tinyffn)
    with pytest.raises(AttributeError, match=r"Sequential\.get_submodule\('b\.5'\): Sequential "
                                             r"has no attribute `5`; its submodules are: 0, 1"):
        model.get_submodule("b.5")
    with pytest.raises(AttributeError, match=r"`running` is not an nn\.Parameter \(it is "
                                             r"Tensor\); the parameters of Block are: scale"):
        model.get_parameter("b.1.running")
    with pytest.raises(TypeError, match=r"get_buffer: the target must be a dotted path string"):
        model.get_buffer(5)             # PyTorch: AttributeError, 'int' has no 'split'


def test_assign_refuses_a_parameter_as_a_buffer():
    """PyTorch 2.13 turns the buffer into a parameter (it leaves named_buffers and joins
    named_parameters, and an optimizer built later trains it); tinyffn refuses, changing
    nothing, and says what to pass."""
    model = _tree(tinyffn)
    state = {**model.state_dict(), "b.1.running": nn.Parameter(tinyffn.ones(2))}
    old = model.a.weight
    with pytest.raises(RuntimeError, match=r"b\.1\.running: a buffer cannot be a Parameter"):
        model.load_state_dict(state, assign=True)
    assert model.a.weight is old and [n for n, _ in model.named_buffers()] == ["b.1.running"]


def test_state_dict_refuses_what_is_no_dict_or_prefix():
    """PyTorch fails inside, on the first key ('NoneType' object is not subscriptable)."""
    lin = nn.Linear(1, 1)
    with pytest.raises(TypeError, match=r"Linear\.state_dict: destination must be a dict to "
                                        "fill, got list"):
        lin.state_dict(destination=[])
    with pytest.raises(TypeError, match=r"prefix must be a string"):
        lin.state_dict(prefix=None)
    with pytest.raises(TypeError):
        lin.state_dict(None, "x.")      # keyword-only: PyTorch's positional form is deprecated


# ----------------------------------------------------------------------------- tinyffn's own
def test_state_dict_copies_by_default_and_keep_vars_gives_the_tensors(device):
    """tinyffn's documented difference stays: a state_dict() entry is a copy that refuses
    changes in place; keep_vars=True gives the module's own tensors, as PyTorch's."""
    lin = nn.Linear(2, 2, device=device)
    copied, live = lin.state_dict(), lin.state_dict(keep_vars=True)
    assert live["weight"] is lin.weight and live["bias"] is lin.bias
    assert copied["weight"] is not lin.weight
    np.testing.assert_array_equal(copied["weight"].numpy(), lin.weight.numpy())
    with pytest.raises(RuntimeError, match=r"model\.state_dict\(\)"):
        copied["weight"].zero_()
    with tinyffn.no_grad():
        lin.weight.zero_()
    assert np.any(copied["weight"].numpy() != 0)         # the copy stayed


def test_assign_puts_the_given_tensors_in_place(device):
    """The module holds the tensors given (no copy), on their device, in their dtype;
    a plain tensor is wrapped as a Parameter that shares its array."""
    lin = nn.Linear(2, 3, device=device)
    w = tinyffn.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype="float64", device=device)
    b = nn.Parameter(tinyffn.zeros(3, device=device), requires_grad=False)
    lin.load_state_dict({"weight": w, "bias": b}, assign=True)
    assert isinstance(lin.weight, nn.Parameter) and lin.weight.data is w.data
    assert lin.weight.requires_grad and lin.bias is b and b.requires_grad
    assert lin.weight.dtype == w.dtype and lin.weight.name == "weight"
    y = lin(tinyffn.ones(1, 2, dtype="float64", device=device))
    y.sum().backward()
    np.testing.assert_allclose(y.numpy(), [[3.0, 7.0, 11.0]])
    np.testing.assert_allclose(lin.weight.grad.numpy(), np.ones((3, 2)))


def test_assign_keeps_a_frozen_parameter_frozen(device):
    """PyTorch keeps the module's requires_grad, for a plain tensor given (wrapped) and for
    a Parameter given (changed in place): a frozen weight stays frozen after loading."""
    lin = nn.Linear(2, 2, device=device).requires_grad_(False)
    w = tinyffn.ones(2, 2, device=device)
    b = nn.Parameter(tinyffn.zeros(2, device=device))
    lin.load_state_dict({"weight": w, "bias": b}, assign=True)
    assert isinstance(lin.weight, nn.Parameter) and lin.bias is b
    assert not lin.weight.requires_grad and not b.requires_grad
    torch = pytest.importorskip("torch")
    theirs = torch.nn.Linear(2, 2).requires_grad_(False)
    tb = torch.nn.Parameter(torch.zeros(2))
    theirs.load_state_dict({"weight": torch.ones(2, 2), "bias": tb}, assign=True)
    assert not theirs.weight.requires_grad and not tb.requires_grad


def test_a_failed_load_changes_nothing_and_sets_no_extra_state():
    model = _counted(tinyffn)
    state = {**model.state_dict(), "out.weight": tinyffn.ones(2, 2)}
    state["inner._extra_state"] = {"count": 5}
    fresh = _counted(tinyffn)
    weight = fresh.inner.lin.weight.numpy()
    for assign in (False, True):
        with pytest.raises(RuntimeError, match=r"size mismatch for out\.weight"):
            fresh.load_state_dict(state, assign=assign)
        assert fresh.inner.count == 0
        np.testing.assert_array_equal(fresh.inner.lin.weight.numpy(), weight)


def test_extra_state_survives_save_and_load(tmp_path):
    model = _counted(tinyffn)
    model.inner.count = 11
    tinyffn.save(model.state_dict(), tmp_path / "m.pt")
    fresh = _counted(tinyffn)
    fresh.load_state_dict(tinyffn.load(tmp_path / "m.pt"))
    assert fresh.inner.count == 11
    np.testing.assert_array_equal(fresh.out.weight.numpy(), model.out.weight.numpy())


def test_extra_state_under_every_path_of_a_shared_module():
    """As parameters: a module held twice saves and loads its extra state at each path."""
    model = _counted(tinyffn)
    model.again = model.inner
    assert [k for k in model.state_dict() if "extra" in k] == ["inner._extra_state",
                                                               "again._extra_state"]


def test_memo_is_the_set_named_modules_fills():
    relu = nn.ReLU()
    model = nn.Sequential(nn.Sequential(relu), relu)
    memo = set()
    assert [n for n, _ in model.named_modules(memo)] == ["", "0", "0.0"]
    assert memo == {model, model[0], relu}
    assert [n for n, _ in model.named_modules({model[0]})] == ["", "1"]   # and what is below


def test_a_module_class_with_eq_and_no_hash_still_lists_its_parameters():
    """Defining __eq__ makes a class unhashable (so does @dataclass). tinyffn walked the
    tree by id() until memo came in, then hashed each module, and parameters(),
    state_dict() and to() all raised "unhashable type"; PyTorch's raise so too. Without
    a memo the walk is by id() again."""
    class Tagged(nn.Module):
        def __init__(self, tag):
            super().__init__()
            self.tag, self.lin = tag, nn.Linear(2, 2)

        def __eq__(self, other):
            return isinstance(other, Tagged) and other.tag == self.tag

    model = nn.Sequential(Tagged("a"), Tagged("a"))
    assert [n for n, _ in model.named_modules()] == ["", "0", "0.lin", "1", "1.lin"]
    assert len(list(model.parameters())) == 4
    assert list(model.state_dict()) == ["0.lin.weight", "0.lin.bias", "1.lin.weight",
                                        "1.lin.bias"]
    with pytest.raises(TypeError, match="unhashable"):      # a memo holds modules
        list(model.named_modules(set()))


def test_labels_hold_the_model_path_for_an_empty_container_filled_later_and_a_plain_assignment():
    """The common pattern self.layers = nn.ModuleList() then append(...) in a loop, and
    model.ffn.act = ... on a module already in a model: each tensor's label is its path
    in the model, the names named_parameters gives, also after a slice and a wrap."""
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList()
            for _ in range(2):
                self.layers.append(nn.Linear(3, 3))
            self.ffn = nn.Sequential(nn.Linear(3, 3))

    def labels_are_paths(model):
        named = [*model.named_parameters(), *model.named_buffers()]
        assert [t.name for _, t in named] == [name for name, _ in named]

    model = Model()
    labels_are_paths(model)
    assert model.layers[1].weight.name == "layers.1.weight"
    model.ffn.extra = nn.Linear(3, 3)
    model.ffn.register_buffer("mask", tinyffn.ones(3))
    labels_are_paths(model)
    assert model.ffn.extra.bias.name == "ffn.extra.bias"
    top = nn.Sequential(model)
    model.layers[:1]                                      # a slice changes no path
    model.layers.insert(0, nn.Linear(3, 3))
    model.ffn.add_module("out", nn.Linear(3, 3))
    labels_are_paths(top)
    assert model.layers[0].weight.name == "0.layers.0.weight"
    assert model.ffn.out.weight.name == "0.ffn.out.weight"


def test_a_slice_or_a_sum_of_a_container_leaves_its_modules_their_model_path():
    """``model.layers[1:]`` and ``model.layers + other`` build new containers of the same
    modules; a child added to one of those modules afterwards is still labelled with its
    path in the model (a slice that kept its own numbering gave 1.extra.weight)."""
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([nn.Sequential(nn.Linear(2, 2)) for _ in range(3)])

    model = Model()
    model.layers[1:]
    model.layers + nn.ModuleList([nn.Linear(2, 2)])
    model.layers[2].extra = nn.Linear(2, 2)
    model.layers[1][0].inner = nn.Linear(2, 2)
    assert model.layers[2].extra.weight.name == "layers.2.extra.weight"
    assert model.layers[1][0].inner.bias.name == "layers.1.0.inner.bias"
    named = [*model.named_parameters()]
    assert [t.name for _, t in named] == [name for name, _ in named]


def test_the_remembered_path_leaves_a_modules_own_path_attribute_alone():
    """tinyffn keeps a module's path under a name of its own: a module that stores a file
    path as ``self._path`` keeps it when assigned into a model, and its labels do not start
    with it; a class with a ``_path`` property is assigned into a model all the same."""
    class Loader(nn.Module):
        def __init__(self, path):
            super().__init__()
            self._path = path
            self.lin = nn.Linear(2, 2)

    class WithProperty(nn.Module):
        _path = property(lambda self: "read-only")

        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)

    loader = Loader("runs/ckpt.pt")
    assert loader.lin.weight.name == "lin.weight"
    model = nn.Module()
    model.loader = loader
    model.part = WithProperty()
    model.loader.extra = nn.Linear(2, 2)
    assert loader._path == "runs/ckpt.pt" and model.part._path == "read-only"
    assert [p.name for p in model.parameters()] == [
        "loader.lin.weight", "loader.lin.bias", "loader.extra.weight", "loader.extra.bias",
        "part.lin.weight", "part.lin.bias"]
