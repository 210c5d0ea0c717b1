"""Module backward hooks (tinyffn/hooks.py, BackwardHook): register_full_backward_hook and
register_full_backward_pre_hook, as in PyTorch 2.13.

Each behaviour is checked twice: against torch itself when it is installed, and against the
numbers torch 2.13 gave for the same model, written out, in a test that always runs. The
model is Linear(2, 3) -> ReLU -> Linear(3, 1) with small exact weights, so every gradient is
exact in float64.
"""
import warnings

import numpy as np
import pytest

import tinyffn
from tinyffn import nn

W1, B1 = [[1.0, 2.0], [-1.0, 0.5], [0.5, -2.0]], [0.5, 0.0, 1.0]
W2, B2 = [[1.0, -1.0, 2.0]], [0.25]
X = [[1.0, -1.0], [2.0, 0.5]]


def model(device="cpu"):
    """The stack in tinyffn, float64, with the weights above."""
    first, last = nn.Linear(2, 3, device=device).double(), nn.Linear(3, 1, device=device).double()
    for p, values in ((first.weight, W1), (first.bias, B1), (last.weight, W2), (last.bias, B2)):
        p.data = tinyffn.tensor(values, dtype="float64", device=device).data
    return nn.Sequential(first, nn.ReLU(), last)


def torch_model(torch):
    first, last = torch.nn.Linear(2, 3).double(), torch.nn.Linear(3, 1).double()
    with torch.no_grad():
        for p, values in ((first.weight, W1), (first.bias, B1), (last.weight, W2),
                          (last.bias, B2)):
            p.copy_(torch.tensor(values))
    return torch.nn.Sequential(first, torch.nn.ReLU(), last)


def values(grads):
    """A hook's tuple as nested lists (None stays None): comparable across libraries."""
    return [None if g is None else
            (g.numpy() if isinstance(g, tinyffn.Tensor) else g.detach().numpy()).tolist()
            for g in grads]


def record(m, log):
    """Both kinds of hook on every module of ``m``, logging what each sees, in order."""
    for name, sub in m.named_modules():
        sub.register_full_backward_pre_hook(
            lambda mod, go, n=name: log.append((n, "pre", values(go))))
        sub.register_full_backward_hook(
            lambda mod, gi, go, n=name: log.append((n, "full", values(gi), values(go))))


G_OUT = [[14.5], [11.5]]                            # dL/dy for L = sum(y²): 2y
G_HIDDEN = [[14.5, -14.5, 29.0], [11.5, -11.5, 23.0]]      # into ReLU's output
G_RELU_IN = [[0.0, 0.0, 29.0], [11.5, 0.0, 23.0]]         # through ReLU's mask
G_X = [[14.5, -58.0], [23.0, -23.0]]
# what torch 2.13 hooks see on this model, in the order they fire
SEEN_X_REQUIRES_GRAD = [
    ("", "pre", [G_OUT]),
    ("2", "pre", [G_OUT]),
    ("2", "full", [G_HIDDEN], [G_OUT]),
    ("1", "pre", [G_HIDDEN]),
    ("1", "full", [G_RELU_IN], [G_HIDDEN]),
    ("0", "pre", [G_RELU_IN]),
    ("0", "full", [G_X], [G_RELU_IN]),
    ("", "full", [G_X], [G_OUT]),
]
# data that needs no gradient: grad_input is (None,) and the hook of each module that gets
# it fires at its output, right after its pre-hook
SEEN_X_DATA = [
    ("", "pre", [G_OUT]),
    ("", "full", [None], [G_OUT]),
    ("2", "pre", [G_OUT]),
    ("2", "full", [G_HIDDEN], [G_OUT]),
    ("1", "pre", [G_HIDDEN]),
    ("1", "full", [G_RELU_IN], [G_HIDDEN]),
    ("0", "pre", [G_RELU_IN]),
    ("0", "full", [None], [G_RELU_IN]),
]
W1_GRAD = [[23.0, 5.75], [0.0, 0.0], [75.0, -17.5]]


# ----------------------------------------------------------------------------- what the hooks see
@pytest.mark.parametrize("x_requires_grad, expected", [(True, SEEN_X_REQUIRES_GRAD),
                                                       (False, SEEN_X_DATA)])
def test_hooks_see_the_gradients_torch_gives(device, x_requires_grad, expected):
    m, log = model(device), []
    record(m, log)
    x = tinyffn.tensor(X, dtype="float64", requires_grad=x_requires_grad, device=device)
    (m(x) ** 2).sum().backward()
    assert log == expected
    assert (x.grad is None) != x_requires_grad
    if x_requires_grad:
        np.testing.assert_array_equal(x.grad.numpy(), G_X)
    np.testing.assert_array_equal(m[0].weight.grad.numpy(), W1_GRAD)     # hooks change nothing


@pytest.mark.parametrize("x_requires_grad", [True, False])
def test_hooks_see_what_torch_hooks_see(x_requires_grad):
    torch = pytest.importorskip("torch")
    theirs, log_t = torch_model(torch), []
    record(theirs, log_t)
    xt = torch.tensor(X, dtype=torch.float64, requires_grad=x_requires_grad)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # torch warns when no input requires grad
        (theirs(xt) ** 2).sum().backward()
    ours, log = model(), []
    record(ours, log)
    (ours(tinyffn.tensor(X, dtype="float64", requires_grad=x_requires_grad)) ** 2).sum().backward()
    assert log == log_t
    assert log == (SEEN_X_REQUIRES_GRAD if x_requires_grad else SEEN_X_DATA)


def test_the_hooks_run_without_recording_a_graph():
    m, seen = model(), []
    m[0].register_full_backward_hook(
        lambda mod, gi, go: seen.append((tinyffn.is_grad_enabled(), gi[0].requires_grad)))
    (m(tinyffn.tensor(X, dtype="float64", requires_grad=True)) ** 2).sum().backward()
    assert seen == [(False, False)]                   # torch 2.13: False, False


# ----------------------------------------------------------------------------- replacing
def replaced_grads(m, x):
    m[1].register_full_backward_hook(lambda mod, gi, go: (gi[0] * 3,))
    m[2].register_full_backward_pre_hook(lambda mod, go: (go[0] + 1,))
    (m(x) ** 2).sum().backward()
    return [values([t.grad])[0] for t in (x, m[0].weight, m[2].weight)]


REPLACED = [[[46.5, -186.0], [75.0, -75.0]],                    # torch 2.13: x.grad,
            [[75.0, 18.75], [0.0, 0.0], [243.0, -55.5]],        # the first weight's,
            [[43.75, 0.0, 66.75]]]                              # the last weight's


def test_returned_gradients_replace_grad_input_and_grad_output(device):
    """ReLU's hook triples the gradient it passes on; the last Linear's pre-hook adds 1 to
    dL/dy before the layer uses it (its weight's gradient sees the +1 too)."""
    x = tinyffn.tensor(X, dtype="float64", requires_grad=True, device=device)
    assert replaced_grads(model(device), x) == REPLACED


def test_replacing_matches_torch():
    torch = pytest.importorskip("torch")
    xt = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    theirs = replaced_grads(torch_model(torch), xt)
    assert replaced_grads(model(), tinyffn.tensor(X, dtype="float64", requires_grad=True)) \
        == theirs == REPLACED


def test_the_hook_sees_the_grad_output_the_pre_hooks_left():
    m, seen = model(), []
    m[2].register_full_backward_pre_hook(lambda mod, go: (go[0] * 10,))
    m[2].register_full_backward_pre_hook(lambda mod, go: seen.append(values(go)))  # None: kept
    m[2].register_full_backward_hook(lambda mod, gi, go: seen.append(values(go)))
    (m(tinyffn.tensor(X, dtype="float64")) ** 2).sum().backward()
    assert seen == [[[[145.0], [115.0]]]] * 2          # torch 2.13: 10 * G_OUT, twice


def test_returning_none_for_a_gradient_drops_it():
    """As torch 2.13: a full hook's (None,) leaves x.grad None, and nothing reaches the
    layers before. (A pre-hook's (None,) drops dL/dy too; torch then still runs the
    module's hooks, with zeros, and gives the input zeros: tinyffn runs nothing.)"""
    m = model()
    m[1].register_full_backward_hook(lambda mod, gi, go: (None,))
    x = tinyffn.tensor(X, dtype="float64", requires_grad=True)
    (m(x) ** 2).sum().backward()
    assert x.grad is None and m[0].weight.grad is None
    assert m[2].weight.grad is not None
    m, calls = model(), []
    m[2].register_full_backward_pre_hook(lambda mod, go: (None,))
    m[2].register_full_backward_hook(lambda mod, gi, go: calls.append(gi))
    (m(x) ** 2).sum().backward()
    assert calls == [] and m[2].weight.grad is None and m[2].bias.grad is None


def test_tensor_hooks_on_the_views_run_before_the_module_hooks():
    """Torch 2.13 on the same calls: y's tensor hook (x3), then the pre-hook (x10), then the
    tensor hook on the input view (x2), then the full hook (+1): a.grad = 121."""
    layer = nn.Linear(2, 2)
    layer.weight.data = tinyffn.ones(2, 2).data
    layer.register_full_backward_pre_hook(lambda m, go: (go[0] * 10,))
    layer.register_full_backward_hook(lambda m, gi, go: (gi[0] + 1,))
    layer.register_forward_hook(
        lambda m, args, y: args[0].register_hook(lambda g: g * 2) and None)
    a = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    y = layer(a)
    y.register_hook(lambda g: g * 3)
    y.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [121.0, 121.0])


class Keep(nn.Module):
    """Retains the gradient of the input view its forward receives."""

    def forward(self, x):
        self.seen = x
        x.retain_grad()
        return x * 1


def test_the_views_own_gradients_are_the_ones_before_the_module_hooks():
    """Torch 2.13: retain_grad() and autograd.grad on a module's output see [1, 1], the
    gradient before the pre-hook (x10), and a retained input view [1, 1], before the hook
    (x100); what flows on is replaced (a.grad [7, 7], then [100, 100])."""
    layer = nn.Linear(2, 2)
    layer.register_full_backward_pre_hook(lambda m, go: (go[0] * 10,))
    layer.register_full_backward_hook(lambda m, gi, go: (gi[0] * 0 + 7,))
    a = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    y = layer(a)
    y.retain_grad()
    y.sum().backward()
    assert y.grad.tolist() == [1.0, 1.0] and a.grad.tolist() == [7.0, 7.0]
    y = layer(a)
    assert tinyffn.grad(y.sum(), [y])[0].tolist() == [1.0, 1.0]
    a.grad, keep = None, Keep()
    keep.register_full_backward_hook(lambda m, gi, go: (gi[0] * 100,))
    keep(a * 1).sum().backward()
    assert keep.seen.grad.tolist() == [1.0, 1.0] and a.grad.tolist() == [100.0, 100.0]


# ----------------------------------------------------------------------------- order and handles
def hook_order(m):
    order = []
    m.register_full_backward_hook(lambda mod, gi, go: order.append("a"))
    m.register_full_backward_hook(lambda mod, gi, go: order.append("b"), prepend=True)
    m.register_full_backward_pre_hook(lambda mod, go: order.append("pa"))
    m.register_full_backward_pre_hook(lambda mod, go: order.append("pb"), prepend=True)
    m.register_full_backward_hook(lambda mod, gi, go: order.append("c"))        # appended
    m.register_full_backward_pre_hook(lambda mod, go: order.append("pc"))
    return order


def test_prepend_runs_a_hook_first():
    layer, x = nn.Linear(2, 2), tinyffn.tensor([1.0, 2.0], requires_grad=True)
    order = hook_order(layer)
    layer(x).sum().backward()
    assert order == ["pb", "pa", "pc", "b", "a", "c"]    # torch 2.13


def test_prepend_order_matches_torch():
    torch = pytest.importorskip("torch")
    layer = torch.nn.Linear(2, 2)
    order = hook_order(layer)
    layer(torch.ones(2, requires_grad=True)).sum().backward()
    assert order == ["pb", "pa", "pc", "b", "a", "c"]


def test_handles_remove_the_hooks_for_later_calls():
    layer, calls = nn.Linear(2, 2), []
    x = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    full = layer.register_full_backward_hook(lambda m, gi, go: calls.append("full"))
    with layer.register_full_backward_pre_hook(lambda m, go: calls.append("pre")):
        layer(x).sum().backward()
    layer(x).sum().backward()
    full.remove()
    full.remove()                                       # twice is harmless
    layer(x).sum().backward()
    assert calls == ["pre", "full", "full"]


def test_a_call_keeps_the_hooks_it_was_made_with():
    """As torch 2.13: the hooks are taken when the module is called, so one removed before
    backward still runs for that call, and one registered after the call does not."""
    layer, calls = nn.Linear(2, 2), []
    x = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    handle = layer.register_full_backward_hook(lambda m, gi, go: calls.append(1))
    y = layer(x)
    handle.remove()
    layer.register_full_backward_hook(lambda m, gi, go: calls.append(2))
    y.sum().backward()
    assert calls == [1]


# ----------------------------------------------------------------------------- calls and graphs
SQUARE_W, SQUARE_B = [[1.0, 2.0], [0.5, -1.0]], [0.0, 1.0]
TWICE = [([[[6.0, -8.0], [3.5, 1.0]]], [[[1.0, 10.0], [2.0, 3.0]]]),    # the second call
         ([[[2.0, 20.0], [4.0, 6.0]]], [[[6.0, -8.0], [3.5, 1.0]]])]    # then the first


def called_twice(layer, x, weights):
    seen = []
    layer.register_full_backward_hook(lambda m, gi, go: seen.append((values(gi), values(go))))
    (layer(layer(x)) * weights).sum().backward()
    return seen


def test_a_module_called_twice_runs_its_hooks_once_per_call(device):
    layer = nn.Linear(2, 2, device=device).double()
    layer.weight.data = tinyffn.tensor(SQUARE_W, dtype="float64", device=device).data
    layer.bias.data = tinyffn.tensor(SQUARE_B, dtype="float64", device=device).data
    x = tinyffn.tensor(X, dtype="float64", requires_grad=True, device=device)
    weights = tinyffn.tensor([[1.0, 10.0], [2.0, 3.0]], dtype="float64", device=device)
    assert called_twice(layer, x, weights) == TWICE
    np.testing.assert_array_equal(x.grad.numpy(), [[2.0, 20.0], [4.0, 6.0]])
    np.testing.assert_array_equal(layer.weight.grad.numpy(), [[18.0, 1.25], [-7.0, 38.0]])


def test_a_module_called_twice_matches_torch():
    torch = pytest.importorskip("torch")
    layer = torch.nn.Linear(2, 2).double()
    with torch.no_grad():
        layer.weight.copy_(torch.tensor(SQUARE_W))
        layer.bias.copy_(torch.tensor(SQUARE_B))
    xt = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    assert called_twice(layer, xt, torch.tensor([[1.0, 10.0], [2.0, 3.0]],
                                                dtype=torch.float64)) == TWICE


class Residual(nn.Module):
    """y = sum(x) + sum(layer(x)), per row: x reaches the loss around the layer too."""

    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def forward(self, x):
        return x.sum(1, keepdim=True) + self.layer(x).sum(1, keepdim=True)


def test_grad_input_is_the_gradient_through_the_module_only():
    """With a residual path, x.grad holds both paths; the layer's hook sees its own share
    (torch 2.13: [[1.5, 1.5], [5.25, 5.25]], x.grad [[4.5, 4.5], [15.75, 15.75]])."""
    block, seen = Residual(model()[0]), []
    block.layer.register_full_backward_hook(lambda m, gi, go: seen.append(values(gi)))
    x = tinyffn.tensor(X, dtype="float64", requires_grad=True)
    (block(x) ** 2).sum().backward()
    assert seen == [[[[1.5, 1.5], [5.25, 5.25]]]]
    np.testing.assert_array_equal(x.grad.numpy(), [[4.5, 4.5], [15.75, 15.75]])


class Scale(nn.Module):
    def forward(self, a, b, c=2.0):
        return a * b * c


def test_one_entry_per_positional_argument():
    """grad_input has one entry per positional argument: None for a number and for a tensor
    that needs no gradient; a keyword tensor has none, though it gets its .grad. (Torch 2.13
    gives zeros, not None, for the tensor b that needs no gradient, because another input
    does: ([12, 16], 0, None); with none that does it gives None.)"""
    m, seen = Scale(), []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append((values(gi), values(go))))
    a = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    b = tinyffn.tensor([3.0, 4.0])
    (m(a, b, 2.0) * 2).sum().backward()
    assert seen == [([[12.0, 16.0], None, None], [[2.0, 2.0]])]
    c = tinyffn.tensor([1.0, 1.0], requires_grad=True)
    m(b, a, c=c).sum().backward()               # a as the second argument: (None, g)
    assert seen[1] == ([None, [3.0, 4.0]], [[1.0, 1.0]])
    np.testing.assert_array_equal(c.grad.numpy(), [3.0, 8.0])


def test_one_entry_per_positional_argument_as_torch():
    torch = pytest.importorskip("torch")

    class TorchScale(torch.nn.Module):
        def forward(self, a, b, c=2.0):
            return a * b * c
    m, seen = TorchScale(), []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append((values(gi), values(go))))
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0])
    (m(a, b, 2.0) * 2).sum().backward()
    c = torch.tensor([1.0, 1.0], requires_grad=True)
    m(b, a, c=c).sum().backward()
    assert seen == [([[12.0, 16.0], [0.0, 0.0], None], [[2.0, 2.0]]),     # zeros: see above
                    ([[0.0, 0.0], [3.0, 4.0]], [[1.0, 1.0]])]
    assert c.grad.tolist() == [3.0, 8.0]


class Pair(nn.Module):
    """(a constant copy of 3a, 2a, 7): one output in the graph, one that needs no gradient."""

    def forward(self, a):
        return (a * 3).detach(), a * 2, 7


def test_a_tuple_output_has_one_grad_output_entry_each():
    m, seen = Pair(), []
    m.register_full_backward_pre_hook(lambda mod, go: seen.append(values(go)))
    m.register_full_backward_hook(lambda mod, gi, go: seen.append(values(gi)))
    a = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    z, y, n = m(a)
    assert n == 7 and z.grad_fn is None
    (y * 5).sum().backward()
    assert seen == [[None, [5.0, 5.0], None], [[10.0, 10.0]]]      # torch 2.13


def replace_by_length(m, a):
    """A pre-hook returns 3 entries (one per output of m), a hook 1 (one per input): what
    the hook saw as grad_output, and a's gradient. Written once for tinyffn and torch."""
    seen = []
    m.register_full_backward_pre_hook(lambda mod, go: (None, go[1] * 2, None))
    m.register_full_backward_hook(lambda mod, gi, go: seen.append(values(go)) or (gi[0] + 1,))
    _, y, _ = m(a)
    (y * 5).sum().backward()
    return seen, a.grad.tolist()


def test_a_tuple_output_replaces_grad_output_and_grad_input_each_by_its_length():
    """torch 2.13 gives a.grad [21, 21] and the hook sees grad_output (None, [10, 10], None)."""
    a = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    assert replace_by_length(Pair(), a) == ([[None, [10.0, 10.0], None]], [21.0, 21.0])


def test_a_tuple_output_as_torch():
    torch = pytest.importorskip("torch")

    class TorchPair(torch.nn.Module):
        def forward(self, a):
            return (a * 3).detach(), a * 2, 7
    m, seen = TorchPair(), []
    m.register_full_backward_pre_hook(lambda mod, go: seen.append(values(go)))
    m.register_full_backward_hook(lambda mod, gi, go: seen.append(values(gi)))
    _, y, _ = m(torch.tensor([1.0, 2.0], requires_grad=True))
    (y * 5).sum().backward()
    assert seen == [[None, [5.0, 5.0], None], [[10.0, 10.0]]]
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    assert replace_by_length(TorchPair(), a) == ([[None, [10.0, 10.0], None]], [21.0, 21.0])


def test_no_hook_under_no_grad_and_no_trace_once_removed():
    """Under no_grad nothing is recorded, so nothing runs (as torch); a module whose hooks
    were all removed draws the same graph as one that never had any."""
    m, calls = model(), []
    handle = m.register_full_backward_hook(lambda mod, gi, go: calls.append(1))
    x = tinyffn.tensor(X, dtype="float64", requires_grad=True)
    with tinyffn.no_grad():
        assert m(x).grad_fn is None
    hooked = tinyffn.to_dot(m(x))
    assert "backward hooks: input" in hooked and "backward hooks: output" in hooked
    handle.remove()
    assert tinyffn.to_dot(m(x)) == tinyffn.to_dot(model()(x)) != hooked
    assert calls == []


def test_the_views_are_drawn_as_what_they_are():
    m = model()
    m[0].register_full_backward_pre_hook(lambda mod, go: None)
    dot = tinyffn.to_dot(m(tinyffn.tensor(X, dtype="float64", requires_grad=True)))
    view = 'label="reshape (identity)\\nbackward hooks: output" shape=ellipse ' \
           'style="filled,dashed"'
    assert dot.count(view) == 1 and "backward hooks: input" not in dot   # pre-hooks only


def test_the_stepper_runs_the_hooks_and_says_where():
    m, seen = model(), []
    m[2].register_full_backward_hook(lambda mod, gi, go: seen.append(values(gi)))
    x = tinyffn.tensor(X, dtype="float64", requires_grad=True)
    steps = list(tinyffn.backward_steps((m(x) ** 2).sum()))
    assert seen == [[G_HIDDEN]]
    views = [s for s in steps if "identity view" in s.describe()]
    assert [s.op for s in views] == ["reshape", "reshape"]
    assert "identity view at the module's output: dL/d(out) is what its backward hooks left" in views[0].describe()
    assert "identity view at the module's input" in views[1].describe()
    np.testing.assert_array_equal(x.grad.numpy(), G_X)


def test_grad_and_retain_graph_run_the_hooks_each_time():
    m, calls = model(), []
    m[0].register_full_backward_hook(lambda mod, gi, go: calls.append(values(gi)))
    x = tinyffn.tensor(X, dtype="float64", requires_grad=True)
    loss = (m(x) ** 2).sum()
    (gx,) = tinyffn.grad(loss, [x], retain_graph=True)
    loss.backward()
    assert calls == [[G_X], [G_X]] and gx.tolist() == G_X


def test_state_and_parameters_do_not_change():
    m = model()
    before = {k: v.numpy() for k, v in m.state_dict().items()}
    m.register_full_backward_hook(lambda mod, gi, go: None)
    m[0].register_full_backward_pre_hook(lambda mod, go: None)
    assert list(m.state_dict()) == list(before)
    assert [n for n, _ in m.named_parameters()] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert [n for n, _ in m.named_children()] == ["0", "1", "2"]


# ----------------------------------------------------------------------------- refused
def test_a_hook_result_that_does_not_fit_is_refused():
    x = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    cases = [
        (lambda m, gi, go: gi[0], TypeError, r"Linear: the backward hook .* returned Tensor; "
                                             r"return None, or a tuple like grad_input \(1"),
        (lambda m, gi, go: (gi[0], gi[0]), RuntimeError, "returned 2 entries, but grad_input "
                                                         "has 1"),
        (lambda m, gi, go: (gi[0].sum(),), RuntimeError, r"in grad_input\[0\], returned a "
                                                         r"float32 tensor of shape \(\)"),
        (lambda m, gi, go: ("g",), TypeError, r"in grad_input\[0\], returned str; return a "
                                              "Tensor to replace the gradient, or None to drop"),
    ]
    for hook, error, message in cases:
        layer = nn.Linear(2, 2)
        layer.register_full_backward_hook(hook)
        with pytest.raises(error, match=message):
            layer(x).sum().backward()
    layer = nn.Linear(2, 2)
    layer.register_full_backward_pre_hook(lambda m, go: (go[0], go[0]))
    with pytest.raises(RuntimeError, match="pre-hook .* returned 2 entries, but grad_output has 1"):
        layer(x).sum().backward()


def test_a_hook_may_not_replace_a_gradient_no_input_gets():
    """As torch 2.13 (RuntimeError): with no positional input requiring grad there is no
    grad_input to replace; None, or a tuple of None, is fine."""
    layer = nn.Linear(2, 2)
    layer.register_full_backward_hook(lambda m, gi, go: (None,))
    layer(tinyffn.ones(2)).sum().backward()
    layer.register_full_backward_hook(lambda m, gi, go: (go[0],))
    with pytest.raises(RuntimeError, match="no positional input of the module requires grad"):
        layer(tinyffn.ones(2)).sum().backward()


def test_torch_refuses_the_same_replacement():
    torch = pytest.importorskip("torch")
    layer = torch.nn.Linear(2, 2)
    layer.register_full_backward_hook(lambda m, gi, go: (go[0],))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="no input requires gradient"):
            layer(torch.ones(2)).sum().backward()


def test_two_watched_tensors_are_refused_with_what_to_do():
    """PyTorch accepts these (its views are one node with many outputs); tinyffn's views
    have one output each, so it says so when the module is called."""
    a, b = (tinyffn.tensor([1.0, 2.0], requires_grad=True) for _ in range(2))
    m = Scale()
    m.register_full_backward_hook(lambda mod, gi, go: None)
    with pytest.raises(RuntimeError, match=r"Scale: positional inputs \[0, 1\] require grad, "
                                           r"but .* one positional input per call .* "
                                           r"detach\(\) .* t.register_hook\(fn\)"):
        m(a, b)
    m(a, b.detach())                                  # one is fine

    class Both(nn.Module):
        def forward(self, a):
            return a * 2, a * 3
    both = Both()
    both.register_full_backward_pre_hook(lambda mod, go: None)
    with pytest.raises(RuntimeError, match=r"Both: outputs \[0, 1\] require grad"):
        both(a)
    with tinyffn.no_grad():
        both(a)                                       # nothing to watch


def test_an_output_that_is_not_a_tensor_or_tuple_gets_torchs_warning():
    class Listed(nn.Module):
        def forward(self, a):
            return [a * 2]
    m, calls = Listed(), []
    m.register_full_backward_hook(lambda mod, gi, go: calls.append(1))
    with pytest.warns(UserWarning, match="Listed: for backward hooks to be called, the "
                                         "module's output should be a Tensor or a tuple"):
        (y,) = m(tinyffn.tensor([1.0], requires_grad=True))
    y.sum().backward()
    assert calls == []


def test_registration_refuses_a_non_function():
    with pytest.raises(TypeError, match=r"Linear.register_full_backward_hook: the hook must be "
                                        r"a function fn\(module, grad_input, grad_output\)"):
        nn.Linear(2, 2).register_full_backward_hook(None)
    with pytest.raises(TypeError, match=r"ReLU.register_full_backward_pre_hook: .* "
                                        r"fn\(module, grad_output\), got int"):
        nn.ReLU().register_full_backward_pre_hook(3)


class Leak(nn.Module):
    """Keeps the tensor its forward received, so it can reach the loss around the output."""

    def forward(self, x):
        self.kept = x
        return x * 2


def test_a_gradient_that_did_not_pass_the_output_runs_no_hook():
    """Torch 2.13: no call when only the kept input view reaches the loss (x.grad [3, 3]);
    with the output too, one call with its share: grad_input [5, 5], grad_output [1, 1];
    none when a later backward reaches that view again without passing the output."""
    m, calls = Leak(), []
    m.register_full_backward_hook(lambda mod, gi, go: calls.append((values(gi), values(go))))
    x = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    m(x)
    (m.kept * 3).sum().backward()
    assert calls == [] and x.grad.tolist() == [3.0, 3.0]
    y = m(x)
    (m.kept * 3 + y).sum().backward(retain_graph=True)
    assert calls == [([[5.0, 5.0]], [[1.0, 1.0]])] and x.grad.tolist() == [8.0, 8.0]
    (m.kept * 5).sum().backward()       # the same view again, not through the output
    assert len(calls) == 1 and x.grad.tolist() == [13.0, 13.0]


def test_a_forward_hook_may_not_change_the_input_view_in_place():
    """Torch 2.13 raises too ("Output 0 of BackwardHookFunction is a view and is being
    modified inplace"); in tinyffn no tensor that requires grad changes in place."""
    layer = nn.Linear(2, 2)
    layer.register_full_backward_hook(lambda m, gi, go: None)

    def double(m, args, y):
        args[0] *= 2
    layer.register_forward_hook(double)
    with pytest.raises(RuntimeError, match="does not record in-place ops"):
        layer(tinyffn.tensor([1.0, 2.0], requires_grad=True))
