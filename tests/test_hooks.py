"""Hooks (tinyffn/hooks.py): gradient hooks on tensors, forward hooks on modules.

The semantics are PyTorch's; where a test pins a number PyTorch also gives, the value was
checked against torch 2.13 and is written out here, so the tests run without it.
"""
import numpy as np
import pytest

import numpy_reference as ref
import tinyffn
from tinyffn import hooks, nn
from tinyffn.autograd import Scope


def leaf(values, device="cpu"):
    return tinyffn.tensor(values, requires_grad=True, device=device)


# ----------------------------------------------------------------------------- gradient hooks
def test_a_hook_sees_the_gradient_and_its_result_flows_on(device):
    x = leaf([1.0, 2.0, 3.0], device)
    h = x * 2                                   # dL/dh = 2h for L = sum(h * h)
    seen = []

    def scale(g):
        seen.append(g.numpy())
        return g * 10
    h.register_hook(scale)
    (h * h).sum().backward()
    assert len(seen) == 1
    np.testing.assert_allclose(seen[0], [4.0, 8.0, 12.0])
    # what x receives is built on the hook's result: dL/dx = 2 * (10 * 2h) (torch: 80, 160, 240)
    np.testing.assert_allclose(x.grad.numpy(), [80.0, 160.0, 240.0])


def test_a_tensor_used_twice_calls_its_hook_once_with_the_total():
    x = leaf([1.0, 1.0])
    h = x * 3
    calls = []
    h.register_hook(lambda g: calls.append(g.numpy()))
    (h * h + h).sum().backward()                # dL/dh = 2h + 1 = 7, complete (torch: [7, 7])
    assert len(calls) == 1
    np.testing.assert_allclose(calls[0], [7.0, 7.0])
    # a hook returning None changes nothing: dL/dx = 3 * 7
    np.testing.assert_allclose(x.grad.numpy(), [21.0, 21.0])


def test_a_leaf_hook_runs_before_the_gradient_is_accumulated(device):
    x = leaf([1.0, 1.0], device)
    x.register_hook(lambda g: g * 10)
    (x * x).sum().backward()
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [40.0, 40.0])    # 2 * (2x * 10), as torch


def test_hooks_chain_in_registration_order_and_remove():
    x = leaf([1.0])
    order = []
    first = x.register_hook(lambda g: order.append("first") or g + 1)
    x.register_hook(lambda g: order.append(("second", g.item())) or g * 2)
    (x * 3).sum().backward()
    assert order == ["first", ("second", 4.0)]
    assert x.grad.item() == 8.0                 # (3 + 1) * 2, not 3 * 2 + 1
    first.remove()
    first.remove()                              # a second remove does nothing
    x.grad = None
    (x * 3).sum().backward()
    assert x.grad.item() == 6.0


def test_a_hook_returning_none_hands_the_gradient_on_to_the_next():
    x = leaf([1.0])
    seen = []
    x.register_hook(lambda g: seen.append(g.item()))        # None: keeps the gradient
    x.register_hook(lambda g: g * 5)                        # and the next hook still runs
    (x * 3).sum().backward()
    assert seen == [3.0] and x.grad.item() == 15.0          # torch 2.13: 15


def test_a_hook_that_updates_its_argument_in_place_changes_the_gradient(device):
    """def hook(g): g *= 0.5 returns None, but in PyTorch 2.13 the halving holds: x.grad is
    [4.5, 9] for L = sum((3x)²), x = [1, 2], with the hook on h = 3x and on x. It was
    [18, 36], the update silently lost (tinyffn's g *= 0.5 gives g a new array)."""
    x = leaf([1.0, 2.0], device)
    h = x * 3

    def halve(g):
        g *= 0.5
    h.register_hook(halve)
    x.register_hook(halve)
    (h * h).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [4.5, 9.0])


def test_a_handle_used_with_with_removes_its_hook():
    x = leaf([2.0])
    with x.register_hook(lambda g: g * 0):
        (x * 3).sum().backward()
    assert x.grad.item() == 0.0
    x.grad = None
    (x * 3).sum().backward()
    assert x.grad.item() == 3.0


def test_a_hook_may_remove_itself_while_running():
    x = leaf([1.0])
    calls = []

    def once(g):
        calls.append(g.item())
        handle.remove()
    handle = x.register_hook(once)
    (x * 2).sum().backward()
    (x * 2).sum().backward()
    assert calls == [2.0]


def test_the_hook_lives_on_the_graph_node_not_the_python_name():
    """A hook set inside a forward on a local variable still runs: it is kept on the op
    node that made the tensor, which the graph holds."""
    x = leaf([1.0, -2.0])
    seen = []

    def forward(x):
        h = x.relu()
        h.register_hook(lambda g: seen.append(g.numpy()))
        return (h * 5).sum()                    # h goes out of scope here
    forward(x).backward()
    np.testing.assert_allclose(seen[0], [5.0, 5.0])
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 0.0])


def test_retain_grad_keeps_the_hooked_gradient():
    x = leaf([1.0, 1.0])
    h = x * 2
    h.retain_grad()
    h.register_hook(lambda g: g * 10)
    (h * h).sum().backward()
    np.testing.assert_allclose(h.grad.numpy(), [40.0, 40.0])    # torch 2.13: 40, 40
    np.testing.assert_allclose(x.grad.numpy(), [80.0, 80.0])


def test_grad_returns_the_hooked_gradient_as_torch_does():
    x = leaf([1.0, 1.0])
    h = x * 2
    h.register_hook(lambda g: g * 10)
    (gh,) = tinyffn.grad((h * h).sum(), [h])
    np.testing.assert_allclose(gh.numpy(), [40.0, 40.0])        # torch.autograd.grad: 40, 40
    y = leaf([1.0, 1.0])
    y.register_hook(lambda g: g * 10)
    (gy,) = tinyffn.grad((y * y).sum(), [y])
    np.testing.assert_allclose(gy.numpy(), [20.0, 20.0])        # torch: 20, 20
    assert y.grad is None


def test_the_stepper_shows_the_hooked_gradient():
    x = leaf([1.0, 2.0])
    h = x.exp()
    h.register_hook(lambda g: g * 0 + 3)
    steps = list(tinyffn.backward_steps((h * 1.0).sum()))
    exp_step = next(s for s in steps if s.op == "exp")
    np.testing.assert_allclose(exp_step.gy, [3.0, 3.0])
    np.testing.assert_allclose(x.grad.numpy(), 3 * np.exp([1.0, 2.0]), rtol=1e-6)


def test_hooks_run_without_recording_a_graph():
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    made = []
    x.register_hook(lambda g: made.append(g * w) or made[-1])
    (x * 1.0).sum().backward()
    assert not made[0].requires_grad and made[0].grad_fn is None      # as torch: no graph
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 4.0])
    assert w.grad is None


def test_a_hook_can_clip_the_gradient_of_a_hidden_layer():
    """Clipping dL/dh on the FFN's hidden activations changes what W1 receives exactly as a
    NumPy backward with the same clip does."""
    ffn = nn.FFN(3, 6, activation="gelu")
    x = tinyffn.randn(4, 3)
    ffn.act.register_forward_hook(
        lambda m, args, h: h.register_hook(lambda g: g.clamp(-0.05, 0.05)) and None)
    ffn(x).sum().backward()
    xs, w1, b1, w2 = (t.numpy().astype(np.float64) for t in (x, ffn.w1.weight, ffn.w1.bias,
                                                             ffn.w2.weight))
    a = xs @ w1.T + b1                                          # (T, d_ff)
    gh = np.clip(np.ones((4, 3)) @ w2, -0.05, 0.05)             # dL/dh, clipped
    phi = np.exp(-a * a / 2) / np.sqrt(2 * np.pi)
    ga = gh * (0.5 * (1 + ref.erf(a / np.sqrt(2))) + a * phi)   # GELU'(a)
    np.testing.assert_allclose(ffn.w1.weight.grad.numpy(), ga.T @ xs, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(ffn.w1.bias.grad.numpy(), ga.sum(0), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("bad, message", [
    (lambda g: g.numpy(), "returned numpy.ndarray; return a Tensor"),
    (lambda g: g.sum(), r"shape \(\) .* of shape \(2,\) on cpu; a hook may change a "
                        "gradient's values, not its shape, dtype or device"),
    (lambda g: g.double(), "float64 tensor .* float32"),
])
def test_a_hook_result_that_is_not_a_gradient_is_refused(bad, message):
    x = leaf([1.0, 2.0])
    x.register_hook(bad)
    with pytest.raises((TypeError, RuntimeError), match=message):
        (x * 2).sum().backward()


def test_a_hook_result_on_another_device_is_refused(device):
    """The device is checked by itself: a CPU result for a CUDA gradient has the very same
    (NumPy) dtype, so only the device tells the two apart."""
    other = "strict" if device == "cpu" else "cpu"
    x = leaf([1.0, 2.0], device)
    x.register_hook(lambda g: tinyffn.tensor(g.numpy(), device=other))
    with pytest.raises(RuntimeError, match=f"on {other}, but the gradient .* on {device}"):
        (x * 2).sum().backward()


def test_register_hook_refuses_what_backward_never_reaches():
    with pytest.raises(RuntimeError, match="does not require grad, .* requires_grad=True"):
        tinyffn.tensor([1.0]).register_hook(lambda g: g)
    with pytest.raises(TypeError, match="must be a function of the gradient, fn.grad., got int"):
        leaf([1.0]).register_hook(3)


def test_a_leaf_made_by_an_op_under_no_grad_takes_a_hook():
    """An op's result made without a graph, then given requires_grad_(), is a leaf like
    any other (a frozen layer's output fine-tuned from there on)."""
    with tinyffn.no_grad():
        h = tinyffn.tensor([1.0, 2.0]) * 3
    h.requires_grad_()
    h.register_hook(lambda g: g * 10)
    (h * h).sum().backward()
    np.testing.assert_allclose(h.grad.numpy(), [60.0, 120.0])     # 10 * 2h, as torch 2.13


# ----------------------------------------------------------------------------- forward hooks
def test_a_forward_hook_on_act_sees_the_ffn_hidden_activations(device):
    ffn = nn.FFN(4, activation="relu", device=device)
    x = tinyffn.randn(5, 4, device=device)
    hidden = []
    handle = ffn.act.register_forward_hook(lambda m, args, h: hidden.append((m, args, h)))
    y = ffn(x)
    (m, args, h), = hidden
    assert m is ffn.act and args[0].shape == (5, 16)
    w1, b1 = ffn.w1.weight.numpy(), ffn.w1.bias.numpy()
    np.testing.assert_allclose(h.numpy(), ref.relu(x.numpy() @ w1.T + b1), rtol=1e-5, atol=1e-6)
    handle.remove()
    np.testing.assert_array_equal(ffn(x).numpy(), y.numpy())
    assert len(hidden) == 1


def test_a_forward_hook_can_ablate_one_memory_slot(device):
    """Zeroing hidden unit j (one key-value pair of the FFN's memory) is the FFN with
    column j of W2 removed; the gradient flows through the hook's ops."""
    ffn = nn.FFN(3, 8, device=device)
    x = tinyffn.randn(4, 3, device=device)
    keep = np.ones(8, dtype=np.float32)
    keep[5] = 0
    ffn.act.register_forward_hook(lambda m, args, h: h * tinyffn.tensor(keep, device=device))
    y = ffn(x)
    w1, b1, w2, b2 = (p.numpy() for p in ffn.parameters())
    hs = ref.relu(x.numpy() @ w1.T + b1)
    expected = np.delete(hs, 5, axis=1) @ np.delete(w2, 5, axis=1).T + b2
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-5, atol=1e-6)
    y.sum().backward()
    np.testing.assert_array_equal(ffn.w2.weight.grad.numpy()[:, 5], 0)
    np.testing.assert_array_equal(ffn.w1.weight.grad.numpy()[5], 0)
    assert np.abs(ffn.w1.weight.grad.numpy()).sum() > 0


def test_what_a_forward_hook_computes_is_drawn_in_the_module_frame():
    relu = nn.ReLU()
    relu.register_forward_hook(lambda m, args, y: y * 2)
    y = relu(leaf([1.0, -1.0]))
    assert y.grad_fn.name == "mul"
    assert y.grad_fn.scope == (Scope("module", "ReLU", relu),)
    x = leaf([1.0, -1.0])
    seen = []
    relu.register_forward_pre_hook(lambda m, args: seen.append(args[0] + 1) or (seen[-1],))
    relu(x)
    assert seen[0].grad_fn.name == "add"
    assert seen[0].grad_fn.scope == (Scope("module", "ReLU", relu),)     # pre-hooks too


def test_a_pre_hook_replaces_the_arguments():
    layer = nn.Linear(2, 2, bias=False)
    x = tinyffn.tensor([[1.0, 2.0]])
    calls = []
    layer.register_forward_pre_hook(lambda m, args: calls.append(args) or args[0] * 0)
    np.testing.assert_array_equal(layer(x).numpy(), [[0.0, 0.0]])     # one value -> (value,)
    assert calls[0][0] is x
    layer2 = nn.Linear(2, 2, bias=False)
    layer2.register_forward_pre_hook(lambda m, args: (args[0] * 2,))
    np.testing.assert_allclose(layer2(x).numpy(), (2 * x.numpy()) @ layer2.weight.numpy().T,
                               rtol=1e-6)


def test_a_forward_hook_sees_the_arguments_the_pre_hooks_made():
    relu = nn.ReLU()
    relu.register_forward_pre_hook(lambda m, args: (args[0] * 2,))
    seen = []
    relu.register_forward_hook(lambda m, args, y: seen.append(args[0].numpy()))
    relu(tinyffn.tensor([1.0]))
    np.testing.assert_array_equal(seen, [[2.0]])            # torch 2.13: (tensor([2.]),)


def test_pre_hooks_and_forward_hooks_run_in_order_around_forward():
    order = []

    class Shout(nn.Module):
        def forward(self, x):
            order.append("forward")
            return x
    m = Shout()
    m.register_forward_hook(lambda m, a, y: order.append("after 1"))
    m.register_forward_pre_hook(lambda m, a: order.append("before 1"))
    m.register_forward_hook(lambda m, a, y: order.append("after 2"))
    m.register_forward_pre_hook(lambda m, a: order.append("before 2"))
    m(tinyffn.tensor([1.0]))
    assert order == ["before 1", "before 2", "forward", "after 1", "after 2"]


def test_forward_hooks_may_remove_themselves_while_running():
    calls = []
    relu = nn.ReLU()

    def pre_once(m, args):
        calls.append("before")
        pre.remove()

    def once(m, args, y):
        calls.append("after")
        post.remove()
    pre = relu.register_forward_pre_hook(pre_once)
    post = relu.register_forward_hook(once)
    relu(tinyffn.tensor([1.0]))
    relu(tinyffn.tensor([1.0]))
    assert calls == ["before", "after"]                     # as torch 2.13: each ran once


def test_forward_hook_registration_refuses_a_non_function():
    with pytest.raises(TypeError,
                       match=r"FFN.register_forward_hook: .* fn\(module, args, output\)"):
        nn.FFN(2).register_forward_hook(None)
    with pytest.raises(TypeError, match=r"ReLU.register_forward_pre_hook: .* fn\(module, args\)"):
        nn.ReLU().register_forward_pre_hook("hook")


def test_prepend_and_with_kwargs_as_in_pytorch():
    """PyTorch 2.13 on the same module: [6.] and the order ['b', 'a']: the pre-hook sees and
    replaces the keyword arguments, the forward hook reads them, and a prepended hook runs
    first."""
    class Scale(nn.Module):
        def forward(self, x, scale=1.0):
            return x * scale
    m, order = Scale(), []
    m.register_forward_hook(lambda mod, a, y: order.append("a"))
    m.register_forward_hook(lambda mod, a, y: order.append("b"), prepend=True)
    m.register_forward_pre_hook(lambda mod, a, kw: (a, {**kw, "scale": 3.0}), with_kwargs=True)
    m.register_forward_hook(lambda mod, a, kw, y: y + kw["scale"], with_kwargs=True)
    y = m(tinyffn.tensor([1.0]), scale=2.0)
    assert y.tolist() == [6.0] and order == ["b", "a"]
    handle = m.register_forward_pre_hook(lambda mod, a, kw: "not a pair", with_kwargs=True,
                                         prepend=True)
    with pytest.raises(RuntimeError, match=r"Scale: the forward pre-hook .* with_kwargs=True, "
                                           r"returned str; return None or a tuple \(args, "
                                           r"kwargs\)"):
        m(tinyffn.tensor([1.0]))
    handle.remove()                              # prepended, then removed: the rest stay
    assert m(tinyffn.tensor([1.0])).tolist() == [6.0]


def test_the_hooks_functions_append_and_pass_no_kwargs_by_default():
    """hooks.register_* called with the defaults api.md gives (prepend=False,
    with_kwargs=False): each hook runs after those before it, and with PyTorch's plain
    signatures; a with_kwargs or prepend default would reorder or break these calls."""
    m, order = nn.ReLU(), []
    for i in (1, 2):
        hooks.register_forward_pre_hook(m, lambda mod, a, i=i: order.append(f"pre {i}"))
        hooks.register_forward_hook(m, lambda mod, a, y, i=i: order.append(f"post {i}"))
        hooks.register_full_backward_pre_hook(m, lambda mod, g, i=i: order.append(f"bpre {i}"))
        hooks.register_full_backward_hook(m, lambda mod, gx, g, i=i: order.append(f"bw {i}"))
    m(leaf([1.0])).sum().backward()
    assert order == ["pre 1", "pre 2", "post 1", "post 2", "bpre 1", "bpre 2", "bw 1", "bw 2"]


@pytest.mark.parametrize("bad", [((1.0,),), ((1.0,), {}, {}), ((1.0,), "scale")])
def test_a_with_kwargs_pre_hook_must_return_an_args_kwargs_pair(bad):
    """A tuple, but not of two: torch 2.13 raises RuntimeError too ("must return None or a
    tuple of (new_args, new_kwargs)"); for a second entry that is no dict it raises a
    TypeError from forward(**kwargs), here the same RuntimeError, before forward runs."""
    relu = nn.ReLU()
    relu.register_forward_pre_hook(lambda mod, a, kw: bad, with_kwargs=True)
    with pytest.raises(RuntimeError, match=r"ReLU: the forward pre-hook .* returned tuple; "
                                           r"return None or a tuple \(args, kwargs\)"):
        relu(tinyffn.tensor([1.0]))
