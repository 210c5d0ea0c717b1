"""create_graph under review: random programs against torch's second derivatives, the
gradients that hooks, zero_grad and in-place changes leave, what the recorded backward
checks (as the ordinary one does), and what the recorded graphs keep alive."""
import gc
import weakref

import numpy as np
import pytest

import tinyffn
import tinyffn.nn.functional as F
from tinyffn import nn


def f64(values, **kwargs):
    return tinyffn.tensor(values, dtype=tinyffn.float64, **kwargs)


# ----------------------------------------------------------------------------- torch, live
# op name -> (number of arguments, fn(lib, F, args, index)); lib is tinyffn or torch, and
# every fn reads the same on both. Values that must be positive are made so (a * a + 0.5).
OPS = {
    "add": (2, lambda L, F, a, i: a[0] + a[1]),
    "sub": (2, lambda L, F, a, i: a[0] - a[1]),
    "mul": (2, lambda L, F, a, i: a[0] * a[1]),
    "div": (2, lambda L, F, a, i: a[0] / (a[1] * a[1] + 0.5)),
    "pow3": (1, lambda L, F, a, i: a[0] ** 3),
    "pow-1.5": (1, lambda L, F, a, i: (a[0] * a[0] + 0.5) ** -1.5),
    "sqrt": (1, lambda L, F, a, i: (a[0] * a[0] + 0.5).sqrt()),
    "exp": (1, lambda L, F, a, i: (a[0] * 0.5).exp()),
    "log": (1, lambda L, F, a, i: (a[0] * a[0] + 0.5).log()),
    "tanh": (1, lambda L, F, a, i: a[0].tanh()),
    "sigmoid": (1, lambda L, F, a, i: a[0].sigmoid()),
    "erf": (1, lambda L, F, a, i: L.erf(a[0])),
    "relu": (1, lambda L, F, a, i: F.relu(a[0])),
    "maximum": (2, lambda L, F, a, i: L.maximum(a[0], a[1])),
    "where": (2, lambda L, F, a, i: L.where(a[0] > 0, a[0], a[1])),
    "sum": (1, lambda L, F, a, i: a[0].sum(dim=-1)),
    "mean": (1, lambda L, F, a, i: a[0].mean()),
    "amax": (1, lambda L, F, a, i: a[0].amax(dim=0)),
    "matmul": (2, lambda L, F, a, i: a[0] @ a[1].transpose(-2, -1)),
    "reshape": (1, lambda L, F, a, i: a[0].reshape(-1)),
    "transpose": (1, lambda L, F, a, i: a[0].transpose(0, -1)),
    "index": (1, lambda L, F, a, i: a[0][i]),        # 1-D alone: the strict backend's limit
    "index_add": (2, lambda L, F, a, i: a[0].index_add(0, i, a[1])),
    "cat": (2, lambda L, F, a, i: L.cat([a[0], a[1]], dim=0)),
    "softmax": (1, lambda L, F, a, i: F.softmax(a[0], dim=-1)),
    "log_softmax": (1, lambda L, F, a, i: F.log_softmax(a[0], dim=-1)),
    "layer_norm": (1, lambda L, F, a, i: F.layer_norm(a[0], a[0].shape[-1:])),
    "gelu": (1, lambda L, F, a, i: F.gelu(a[0])),
    "silu": (1, lambda L, F, a, i: F.silu(a[0])),
    "mse": (2, lambda L, F, a, i: F.mse_loss(a[0], a[1])),
}
SHAPES = [(3, 4), (4,), (1, 4), (3, 1), (), (4, 4)]


def _program(seed):
    """Input shapes and a list of (op, argument positions, index array), each step checked
    to run by running it on tinyffn (a step that raises, or leaves float range, is drawn
    again)."""
    rng = np.random.default_rng(seed)
    shapes = [SHAPES[rng.integers(len(SHAPES))] for _ in range(rng.integers(1, 4))]
    inputs = [rng.standard_normal(s) for s in shapes]
    values = [f64(a) for a in inputs]
    steps, names = [], sorted(OPS)
    while len(steps) < 4:
        name = names[rng.integers(len(names))]
        args = [max(0, len(values) - int(rng.geometric(0.5))) for _ in range(OPS[name][0])]
        first = values[args[0]]
        index = rng.integers(0, first.shape[0] if first.ndim else 1, size=3)
        try:
            y = OPS[name][1](tinyffn, F, [values[a] for a in args], tinyffn.tensor(index))
        except (ValueError, IndexError, RuntimeError, TypeError):
            continue
        if name == "index" and first.ndim != 1:
            continue
        if y.dtype == tinyffn.float64 and np.all(np.abs(y.numpy()) < 1e6):
            values.append(y)
            steps.append((name, args, index))
    return inputs, steps, rng


def _derivatives(lib, F, inputs, steps, v, us, tensor, index_tensor):
    """g = d(out)/d(inputs) against grad_output v (which requires grad), recorded; then the
    gradient of s = sum(g * u + g^2 / 2) with respect to the inputs and v."""
    grad = tinyffn.grad if lib is tinyffn else lib.autograd.grad
    xs = [tensor(a, requires_grad=True) for a in inputs]
    values = list(xs)
    for name, args, index in steps:
        values.append(OPS[name][1](lib, F, [values[a] for a in args], index_tensor(index)))
    out = values[-1]
    v = tensor(v(out.shape), requires_grad=True)
    gs = grad(out, xs, v, create_graph=True, allow_unused=True)
    s = sum((g * tensor(u(g.shape)) + 0.5 * g * g).sum() for g, u in zip(gs, us)
            if g is not None)
    hs = grad(s, xs + [v], allow_unused=True)
    return gs, hs


@pytest.mark.parametrize("seed", range(60))
def test_random_programs_match_torch_second_derivatives(seed, device):
    """Four steps over the twice-differentiable ops (and softmax, layer_norm, gelu, silu,
    mse built from them), broadcasting, inputs used twice: the recorded gradients and the
    gradients of a function of them, with respect to the inputs and to the grad_output,
    against torch 2.13's in float64."""
    torch = pytest.importorskip("torch")
    import torch.nn.functional as TF
    inputs, steps, rng = _program(seed)
    draws = [int(d) for d in rng.integers(1 << 30, size=5)]

    def draw(k):
        return lambda shape: np.random.default_rng(draws[k]).standard_normal(tuple(shape))

    v, us = draw(0), [draw(k) for k in range(1, 5)]
    gs, hs = _derivatives(tinyffn, F, inputs, steps, v, us,
                          lambda a, **kw: tinyffn.tensor(a, dtype=tinyffn.float64,
                                                         device=device, **kw),
                          lambda i: tinyffn.tensor(i, device=device))
    gt, ht = _derivatives(torch, TF, inputs, steps, v, us,
                          lambda a, **kw: torch.tensor(a, dtype=torch.float64, **kw),
                          torch.tensor)
    for i, (g, want) in enumerate(zip(gs, gt)):
        assert (g is None) == (want is None), f"input {i}: {steps}"
        if g is not None:
            np.testing.assert_allclose(g.numpy(), want.detach().numpy(), rtol=1e-10,
                                       atol=1e-12, err_msg=f"g of input {i}: {steps}")
    for i, (h, want) in enumerate(zip(hs, ht)):
        want = None if want is None else want.numpy(force=True)
        if h is None:           # torch's may be zeros where no path reaches the input
            assert want is None or not want.any(), f"h of input {i}: {steps}"
        else:
            np.testing.assert_allclose(h.numpy(), 0 if want is None else want, rtol=1e-9,
                                       atol=1e-11, err_msg=f"h of input {i}: {steps}")


# ----------------------------------------------------------------------------- .grad
@pytest.mark.parametrize("zero", ["optimizer", "module"])
def test_zero_grad_without_none_detaches_a_recorded_grad(zero):
    """zero_grad(set_to_none=False) after backward(create_graph=True): the next recorded
    .grad is d(x^2)/dx = 2x alone, whose derivative is 2. Before, the zeroed .grad kept its
    graph (of 3x^2) and the next backward added into it: d/dx came out 2 + 6x."""
    layer = nn.Linear(3, 1, bias=False).double()
    x = layer.weight
    (x ** 3).sum().backward(create_graph=True)
    if zero == "optimizer":
        tinyffn.optim.SGD([x], lr=0.1).zero_grad(set_to_none=False)
    else:
        layer.zero_grad(set_to_none=False)
    assert x.grad.grad_fn is None and not x.grad.requires_grad
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((1, 3)))
    (x ** 2).sum().backward(create_graph=True)
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.numpy())
    (h,) = tinyffn.grad(x.grad.sum(), [x])
    np.testing.assert_allclose(h.numpy(), np.full((1, 3), 2.0))


def test_a_recorded_grad_is_the_leafs_own_tensor():
    """backward(v, create_graph=True) through an add gives x and w one gradient, v itself:
    each .grad is a tensor of its own (a Clone, as PyTorch's), so adding a later plain
    backward into x.grad changes neither w.grad nor v."""
    x, w = f64([1.0, 2.0], requires_grad=True), f64([3.0, 4.0], requires_grad=True)
    v = f64([0.5, -1.0], requires_grad=True)
    (x + w).backward(v, create_graph=True)
    assert x.grad is not w.grad and x.grad is not v and x.grad.grad_fn is not None
    (x * 2.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.5, 1.0])
    np.testing.assert_allclose(w.grad.numpy(), [0.5, -1.0])
    np.testing.assert_allclose(v.numpy(), [0.5, -1.0])


def test_an_output_changed_in_place_after_forward_is_read_as_saved():
    """The recorded backward reads what forward saved, as the ordinary backward does: a
    change of the output under no_grad (y += 1 gives y a new array) changes neither g =
    v exp(x) nor its derivative v exp(x)."""
    x_np = np.array([0.5, -1.0, 2.0])
    x = f64(x_np, requires_grad=True)
    y = x.exp()
    with tinyffn.no_grad():
        y += 1.0
    v = f64([1.0, 2.0, 3.0])
    (g,) = tinyffn.grad(y, [x], v, create_graph=True)
    np.testing.assert_allclose(g.numpy(), v.numpy() * np.exp(x_np), rtol=1e-15)
    (h,) = tinyffn.grad(g.sum(), [x])
    np.testing.assert_allclose(h.numpy(), v.numpy() * np.exp(x_np), rtol=1e-15)


# ----------------------------------------------------------------------------- hooks
@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("hooked", ["a", "b"])
def test_a_hook_changing_its_gradient_in_place_changes_only_that_one(create_graph, hooked):
    """y = a + b, a = exp(x), b = sin(x): add hands one gradient to both. ``g *= 0.5`` in
    a's (or b's) hook halves the share through it alone, and leaves the caller's
    grad_output as it was. Under create_graph the hook got that shared tensor itself, so
    the other share was halved too whenever it was read after the hook ran."""
    x_np, v_np = np.array([0.5, -1.0, 2.0]), np.array([1.0, 2.0, 3.0])
    x = f64(x_np, requires_grad=True)
    a, b = x.exp(), x.sin()

    def halve(g):
        g *= 0.5

    (a if hooked == "a" else b).register_hook(halve)
    v = f64(v_np)
    for y in (a + b, b + a):                   # the walk meets a first, then b first
        (g,) = tinyffn.grad(y, [x], v, retain_graph=True, create_graph=create_graph)
        half_a, half_b = (0.5, 1.0) if hooked == "a" else (1.0, 0.5)
        want = v_np * np.exp(x_np) * half_a + v_np * np.cos(x_np) * half_b
        np.testing.assert_allclose(g.numpy(), want, rtol=1e-15)
    np.testing.assert_array_equal(v.numpy(), v_np)


def test_a_module_pre_hook_changing_grad_output_in_place_under_create_graph():
    """A backward pre-hook halving grad_output in place halves every gradient of the
    module, recorded or not, and leaves the caller's grad_output alone."""
    tinyffn.manual_seed(3)
    ffn = nn.FFN(4, activation="gelu").double()
    x = tinyffn.randn(3, 4, dtype=tinyffn.float64, requires_grad=True)
    v = tinyffn.randn(3, 4, dtype=tinyffn.float64)
    v_np = v.numpy().copy()
    (plain,) = tinyffn.grad(ffn(x), [x], v)

    def halve(module, grad_output):
        grad_output[0].mul_(0.5)

    ffn.register_full_backward_pre_hook(halve)
    for create_graph in (False, True):
        (g,) = tinyffn.grad(ffn(x), [x], v, create_graph=create_graph)
        np.testing.assert_allclose(g.numpy(), 0.5 * plain.numpy(), rtol=1e-14)
    np.testing.assert_array_equal(v.numpy(), v_np)


def test_module_backward_hooks_are_recorded_as_torchs():
    """A pre-hook multiplying grad_output by tanh of itself and a hook halving grad_input,
    on a GELU FFN: the gradient penalty's gradients into the weights, through what the
    hooks computed, as torch 2.13's."""
    torch = pytest.importorskip("torch")
    tinyffn.manual_seed(5)
    ffn = nn.FFN(4, 8, activation="gelu").double()
    x_np = np.random.default_rng(6).standard_normal((3, 4))
    weights = {name: torch.tensor(p.numpy(), requires_grad=True)
               for name, p in ffn.named_parameters()}

    class TorchFFN(torch.nn.Module):
        def forward(self, x):
            h = torch.nn.functional.gelu(x @ weights["w1.weight"].T + weights["w1.bias"])
            return h @ weights["w2.weight"].T + weights["w2.bias"]

    results = []
    for module, lib, params in ((ffn, tinyffn, list(ffn.parameters())),
                                (TorchFFN(), torch, list(weights.values()))):
        module.register_full_backward_pre_hook(lambda m, go: (go[0] * go[0].tanh(),))
        module.register_full_backward_hook(lambda m, gi, go: (gi[0] * 0.5,))
        x = lib.tensor(x_np, requires_grad=True)
        grad = tinyffn.grad if lib is tinyffn else torch.autograd.grad
        (gx,) = grad((module(x) ** 2).sum(), [x], create_graph=True)
        results.append([gx.detach().numpy()] + [
            h.numpy() for h in grad((gx * gx).sum(), params)])
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-13)


# ----------------------------------------------------------------------------- the call
def test_create_graph_records_under_no_grad_as_pytorch():
    """torch 2.13 records a create_graph backward under no_grad too (its engine sets grad
    mode to create_graph): d/dx 3x^2 = 6x."""
    x = f64([0.5, -1.0, 2.0], requires_grad=True)
    y = (x ** 3).sum()
    with tinyffn.no_grad():
        (g,) = tinyffn.grad(y, [x], create_graph=True)
    assert g.requires_grad
    (h,) = tinyffn.grad(g.sum(), [x])
    np.testing.assert_allclose(h.numpy(), 6 * x.numpy())
    y = (x ** 3).sum()
    with tinyffn.no_grad():
        y.backward(create_graph=True)
    np.testing.assert_allclose(tinyffn.grad(x.grad.sum(), [x])[0].numpy(), 6 * x.numpy())


def test_a_grad_output_of_another_dtype_keeps_its_graph():
    """v in float32, y in float64: g is float64 (y's dtype, as torch's) and d/dv of
    sum(g) = exp(x) comes back to v in float32."""
    x = f64([0.5, -1.0, 2.0], requires_grad=True)
    v = tinyffn.tensor([1.0, 2.0, 3.0], requires_grad=True)            # float32
    (g,) = tinyffn.grad(x.exp(), [x], v, create_graph=True)
    assert g.dtype == tinyffn.float64
    np.testing.assert_allclose(g.numpy(), v.numpy() * np.exp(x.numpy()), rtol=1e-15)
    (gv,) = tinyffn.grad(g.sum(), [v])
    assert gv.dtype == tinyffn.float32
    np.testing.assert_allclose(gv.numpy(), np.exp(x.numpy()).astype(np.float32), rtol=1e-7)
    x.backward(v, create_graph=True)                  # the root a leaf: its .grad is v
    assert x.grad.dtype == tinyffn.float64
    np.testing.assert_array_equal(x.grad.numpy(), v.numpy().astype(np.float64))


def test_backward_inputs_with_create_graph_keeps_the_grad_outputs_graph():
    """backward(v, inputs=[x], create_graph=True): x.grad = v 3x^2 is recorded in v too."""
    x = f64([0.5, -1.0, 2.0], requires_grad=True)
    v = f64([1.0, 2.0, 3.0], requires_grad=True)
    (x ** 3).backward(v, inputs=[x], create_graph=True)
    assert v.grad is None
    (gv,) = tinyffn.grad(x.grad.sum(), [v])
    np.testing.assert_allclose(gv.numpy(), 3 * x.numpy() ** 2)


def test_a_recorded_gradient_without_a_graph_is_explained():
    """clamp's gradient (a where) is constant in x: it has no graph to x, and
    differentiating it again says why (PyTorch raises too), instead of only asking for
    requires_grad. leaky_relu's too (PyTorch's keeps a graph and gives zeros). (relu's
    keeps a graph, as PyTorch's: test_autograd_functional.py.)"""
    x = f64([1.0, -2.0, 3.0], requires_grad=True)
    (g,) = tinyffn.grad(x.clamp(-1.5, 2.0).sum(), [x], create_graph=True)
    with pytest.raises(RuntimeError, match=r"does not require grad.*create_graph=True.*"
                                           r"piecewise linear as leaky_relu, hardtanh or clamp"):
        tinyffn.grad(g.sum(), [x])
    w = f64([1.0, 2.0, 3.0], requires_grad=True)
    (g,) = tinyffn.grad((x.clamp(-1.5, 2.0) * w).sum(), [x], create_graph=True)   # to w only
    with pytest.raises(RuntimeError, match=r"input 0 .* was not used.*create_graph=True"):
        tinyffn.grad(g.sum(), [x])
    (h,) = tinyffn.grad(g.sum(), [x], materialize_grads=True)
    np.testing.assert_array_equal(h.numpy(), np.zeros(3))
    (g,) = tinyffn.grad(F.leaky_relu(x).sum(), [x], create_graph=True)
    assert not g.requires_grad
    with pytest.raises(RuntimeError, match=r"piecewise linear as leaky_relu"):
        tinyffn.grad(g.sum(), [x])


# ----------------------------------------------------------------------------- the checks
def _op(backward, forward=None):
    """A twice-differentiable Function y = x^2 with the given backward."""
    class Op(tinyffn.Function):
        twice_differentiable = True

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x if forward is None else forward(ctx, x)

    Op.backward = staticmethod(backward)
    return Op


def test_the_recorded_backward_checks_its_results_as_the_ordinary_one():
    """The count, the shape, and under detect_anomaly the values of each gradient, each
    error naming the op, as :func:`tinyffn.op_checks.checked_grads` for a plain backward."""
    x = f64([0.0, 1.0], requires_grad=True)
    two = _op(lambda ctx, gy: (gy, gy))
    with pytest.raises(RuntimeError, match="op.backward returned 2 gradients for 1 inputs"):
        tinyffn.grad(two.apply(x).sum(), [x], create_graph=True)
    wide = _op(lambda ctx, gy: ctx.xp.broadcast_to(gy, (3, 2)))
    with pytest.raises(RuntimeError, match=r"op.backward: gradient of input 0 has shape "
                                           r"\(3, 2\) but the input has shape \(2,\)"):
        tinyffn.grad(wide.apply(x).sum(), [x], create_graph=True)
    # -inf made of constants alone (a recorded op's forward would be checked itself)
    log0 = _op(lambda ctx, gy: ctx.xp.log(ctx.xp.zeros(ctx.input_shapes[0], dtype=gy.dtype)))
    for create_graph in (False, True):
        with tinyffn.autograd.detect_anomaly(), np.errstate(divide="ignore"):
            with pytest.raises(tinyffn.AnomalyError, match=r"op: backward produced .*input 0"):
                tinyffn.grad(log0.apply(x).sum(), [x], create_graph=create_graph)


def test_a_recorded_gradient_takes_its_inputs_dtype():
    """A backward that widens gy to float64 for a float32 input: the gradient comes back
    float32, recorded or not (PyTorch casts too)."""
    wide = _op(lambda ctx, gy: 2 * ctx.xp.astype(gy, ctx.xp.float64) * ctx.saved_tensors[0])
    x = tinyffn.tensor([0.5, 2.0], requires_grad=True)
    for create_graph in (False, True):
        (g,) = tinyffn.grad(wide.apply(x).sum(), [x], create_graph=create_graph)
        assert g.dtype == tinyffn.float32
        np.testing.assert_allclose(g.numpy(), [1.0, 4.0])


def test_a_gradient_for_an_input_that_needs_none_is_dropped():
    """A lazy backward computing both gradients: the one of the constant input is dropped
    (not checked, not passed on), recorded or not, as the ordinary walk drops it."""
    class Mul(tinyffn.Function):
        twice_differentiable = True

        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(x, w)
            return x * w

        @staticmethod
        def backward(ctx, gy):
            x, w = ctx.saved_tensors
            return gy * w, ctx.xp.sum(gy * x)          # the second of the wrong shape

    x = f64([0.5, 2.0], requires_grad=True)
    w = f64([3.0, 4.0])
    for create_graph in (False, True):
        (g,) = tinyffn.grad(Mul.apply(x, w).sum(), [x], create_graph=create_graph)
        np.testing.assert_allclose(g.numpy(), [3.0, 4.0])


def test_a_gradient_made_of_constants_alone_is_a_tensor(device):
    """floor_divide's backward returns raw zeros (computed from no tensor): under
    create_graph they become a constant Tensor, so the next backward (exp's, gy * y) gets
    a Tensor (a strict array meeting a tensor on the left of * raises). With q = exp(x) //
    0.5, d/dx of q + x q is q, and so is d/dx of that times x."""
    x_np = np.array([0.7, -1.2, 2.3])
    x = f64(x_np, requires_grad=True, device=device)
    q = x.exp() // 0.5
    (g,) = tinyffn.grad((q + x * q).sum(), [x], create_graph=True)
    np.testing.assert_allclose(g.numpy(), np.floor(np.exp(x_np) / 0.5))
    (h,) = tinyffn.grad((g * x).sum(), [x])
    np.testing.assert_allclose(h.numpy(), np.floor(np.exp(x_np) / 0.5))


def test_a_backend_routine_in_a_recorded_backward_is_refused_by_name():
    """ctx.backend.fmod computes on raw arrays: under create_graph it raises, naming it,
    rather than read the tensor as an array (erf and special have recorded versions)."""
    fmodish = _op(lambda ctx, gy: gy * ctx.backend.fmod(ctx.saved_tensors[0], 1.5))
    x = f64([0.5, 2.0], requires_grad=True)
    tinyffn.grad(fmodish.apply(x).sum(), [x])                           # fine once
    with pytest.raises(AttributeError, match=r"backend.fmod, which computes on raw arrays"):
        tinyffn.grad(fmodish.apply(x).sum(), [x], create_graph=True)


def test_a_setting_given_by_position_is_named_under_create_graph_too():
    class Scale(tinyffn.Function):
        twice_differentiable = True

        @staticmethod
        def forward(ctx, x, alpha):
            return x * alpha

        @staticmethod
        def backward(ctx, gy):
            return gy * ctx.attrs["alpha"], None

    x = f64([0.5, 2.0], requires_grad=True)
    for create_graph in (False, True):
        with pytest.raises(KeyError, match="'alpha' is not in ctx.attrs"):
            tinyffn.grad(Scale.apply(x, 2.0).sum(), [x], create_graph=create_graph)


# ----------------------------------------------------------------------------- memory
def test_recorded_gradients_hold_no_reference_cycle():
    """grad(create_graph=True) and a backward through its result leave nothing for the
    cycle collector: every tensor and node is freed by reference counting once dropped."""
    class Mark:
        pass

    gc.collect()
    gc.disable()
    try:
        tinyffn.manual_seed(0)
        ffn = nn.FFN(4, activation="gelu").double()
        x = tinyffn.randn(3, 4, dtype=tinyffn.float64, requires_grad=True)
        y = ffn(x)
        gs = tinyffn.grad(F.mse_loss(y, tinyffn.zeros_like(y)), [x, *ffn.parameters()],
                          create_graph=True)
        penalty = sum((g * g).sum() for g in gs)
        tinyffn.grad(penalty, list(ffn.parameters()))
        marks = [Mark() for _ in range(3)]
        for node, mark in zip((y.grad_fn, gs[0].grad_fn, penalty.grad_fn), marks):
            node.mark = mark                # a Context keeps no weak references itself
        refs = [weakref.ref(t) for t in (x, y, *gs, *marks)]
        del x, y, gs, penalty, node, marks, mark
        assert all(r() is None for r in refs)
    finally:
        gc.enable()


def test_backward_with_create_graph_makes_the_cycle_pytorch_warns_of():
    """x.grad's graph leads back to x, a cycle (PyTorch warns of the same); the cycle
    collector frees it, and x.grad = None breaks it."""
    gc.collect()
    gc.disable()
    try:
        x = tinyffn.randn(3, dtype=tinyffn.float64, requires_grad=True)
        (x.tanh() ** 3).sum().backward(create_graph=True)
        alive = weakref.ref(x)
        del x
        assert alive() is not None          # x -> x.grad -> its graph -> x
        gc.collect()
        assert alive() is None
        x = tinyffn.randn(3, dtype=tinyffn.float64, requires_grad=True)
        (x.tanh() ** 3).sum().backward(create_graph=True)
        x.grad = None
        alive = weakref.ref(x)
        del x
        assert alive() is None
    finally:
        gc.enable()


def test_a_power_of_one_is_a_new_array_so_its_product_with_x_records():
    """x ** 1 returned x's own array, so (x ** 1) * x saved one array for two inputs
    and create_graph refused it; torch gives g = 2x and its derivative 2."""
    x = tinyffn.tensor([0.5, -1.0, 2.0], dtype=tinyffn.float64, requires_grad=True)
    (g,) = tinyffn.grad(((x ** 1) * x).sum(), [x], create_graph=True)
    np.testing.assert_allclose(g.numpy(), [1.0, -2.0, 4.0])
    np.testing.assert_allclose(tinyffn.grad(g.sum(), [x])[0].numpy(), [2.0, 2.0, 2.0])


def test_a_plain_backward_into_a_recorded_grad_keeps_its_graph_consistent():
    """A plain backward after backward(create_graph=True) gave x.grad a new array under
    its recorded node, which then read it as a constant: the third derivative lost a
    term (21 for torch's 39 at x = 0.5). Now the plain gradient is added out of place,
    a constant of the graph: x.grad = 3x^2 (recorded) + 2x (a number)."""
    x = tinyffn.tensor([0.5], dtype=tinyffn.float64, requires_grad=True)
    (x ** 3).sum().backward(create_graph=True)
    (x ** 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.75 + 1.0])
    (h,) = tinyffn.grad((x.grad * x.grad).sum(), [x], create_graph=True)
    # d/dx (3x^2 + c)^2 = 2 (3x^2 + c) 6x with c = 2x held constant (= 1.0)
    np.testing.assert_allclose(h.numpy(), [2 * 1.75 * 3.0])
    # d/dx of 12 x (3x^2 + c) = 12 (3x^2 + c) + 12 x 6x = 21 + 18 = 39 at x = 0.5
    np.testing.assert_allclose(tinyffn.grad(h.sum(), [x])[0].numpy(), [39.0])
