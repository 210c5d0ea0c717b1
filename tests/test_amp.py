"""Mixed precision: tinyffn.autocast and tinyffn.amp.GradScaler (tinyffn/amp.py).

References: PyTorch's CUDA autocast lists as its documentation gives them (the table
below, written out by hand), torch's CPU autocast where its lists agree with them, torch's
GradScaler step by step, and float16's own arithmetic (what 2^-24 rounds to).
"""
import math

import numpy as np
import pytest

import tinyffn
import tinyffn.nn as nn
import tinyffn.nn.functional as F
from tinyffn.autograd import Context, topological_order
from tinyffn.backend import dtype_name

FLOAT32_OPS_BY_PYTORCHS_CUDA_LIST = {
    # name: (function of h (float16, (5, 16)), the dtype PyTorch's CUDA autocast returns)
    "softmax": (lambda h: F.softmax(h, -1), "float32"),
    "log_softmax": (lambda h: F.log_softmax(h, -1), "float32"),
    "layer_norm": (lambda h: F.layer_norm(h, (16,)), "float32"),
    "cross_entropy": (lambda h: F.cross_entropy(h, tinyffn.arange(5, device=h.device)),
                      "float32"),
    "mse_loss": (lambda h: F.mse_loss(h, h.detach()), "float32"),
    "l1_loss": (lambda h: F.l1_loss(h, h.detach()), "float32"),
    "sum": (lambda h: h.sum(), "float32"),
    "exp": (lambda h: h.exp(), "float32"),
    "log": (lambda h: h.abs().log(), "float32"),
    "pow": (lambda h: h ** 2, "float32"),
    "softplus": (lambda h: F.softplus(h), "float32"),
    "cumsum": (lambda h: h.cumsum(0), "float32"),
    "expm1": (lambda h: h.expm1(), "float32"),
    "reciprocal": (lambda h: h.reciprocal(), "float32"),
    "number / tensor": (lambda h: 2 / h, "float32"),
    "tensor / number": (lambda h: h / 2, "float16"),
    "cosh": (lambda h: h.cosh(), "float32"),
    # torch 2.13's AT_FORALL_FP32 (ATen/autocast_mode.h), which CUDA registers, lists it
    "rms_norm": (lambda h: F.rms_norm(h, (16,)), "float32"),
    # not listed: they run in the dtype they are given
    "relu": (lambda h: h.relu(), "float16"),
    "gelu": (lambda h: F.gelu(h), "float16"),
    "gelu tanh (x³ inside)": (lambda h: F.gelu(h, approximate="tanh"), "float16"),
    "silu": (lambda h: F.silu(h), "float16"),
    "mean": (lambda h: h.mean(), "float16"),
    "var": (lambda h: h.var(), "float16"),
    "tanh": (lambda h: h.tanh(), "float16"),
    "dropout": (lambda h: F.dropout(h, 0.5), "float16"),
}


def graph_ops(y):
    return [v.fn.op_name() for v in topological_order(y) if isinstance(v, Context)]


@pytest.fixture
def h16(device):
    if device == "strict":
        pytest.skip("the strict backend has no float16")
    tinyffn.manual_seed(0)
    return tinyffn.randn(5, 16, device=device).half()


@pytest.mark.parametrize("name", FLOAT32_OPS_BY_PYTORCHS_CUDA_LIST)
def test_each_kind_of_op_runs_in_the_dtype_of_pytorchs_cuda_lists(name, h16, device):
    """On each device: on a GPU, CuPy's float16 kernels (erf, cumsum, ...) run too."""
    fn, dtype = FLOAT32_OPS_BY_PYTORCHS_CUDA_LIST[name]
    with tinyffn.autocast(device):
        assert str(fn(h16).dtype) == dtype
    assert str(fn(h16).dtype) == "float16"           # outside: float16 stays float16


@pytest.mark.parametrize("name", FLOAT32_OPS_BY_PYTORCHS_CUDA_LIST)
@pytest.mark.cuda
@pytest.mark.skipif(not tinyffn.cuda_available(), reason="needs a 'cuda' region (a GPU, "
                    "or TINYFFN_FAKE_CUDA=1)")
def test_a_region_of_another_device_leaves_a_cpu_tensor_alone(name):
    """A 'cuda' region casts CUDA tensors only: a float16 CPU tensor's softmax, layer_norm,
    ... stay float16 in it, as outside (PyTorch's regions are per device type). They came
    back float32 (mutation audit 6)."""
    fn, _ = FLOAT32_OPS_BY_PYTORCHS_CUDA_LIST[name]
    tinyffn.manual_seed(0)
    h16 = tinyffn.randn(5, 16).half()
    with tinyffn.autocast("cuda"):
        assert str(fn(h16).dtype) == "float16"


def test_matrix_products_run_in_float16_and_float64_is_left_alone():
    tinyffn.manual_seed(0)
    x, w = tinyffn.randn(5, 8), tinyffn.randn(16, 8, requires_grad=True)
    with tinyffn.autocast("cpu"):
        assert str((x @ w.T).dtype) == "float16"
        assert str(F.linear(x, w, tinyffn.zeros(16)).dtype) == "float16"
        assert str(tinyffn.einsum("td,fd->tf", x, w).dtype) == "float16"
        assert str(F.conv1d(x.T[None], w[:, :, None]).dtype) == "float16"
        q = tinyffn.randn(1, 5, 8)
        assert str(F.scaled_dot_product_attention(q, q, q).dtype) == "float16"
        assert str((x.double() @ w.T.double()).dtype) == "float64"
        assert str((x + w[:5, :].half()).dtype) == "float32"    # promotion, as in PyTorch
        assert str(nn.Embedding(4, 8)(tinyffn.tensor([1, 2])).dtype) == "float32"
    assert str((x @ w.T).dtype) == "float32"


def test_the_lower_precision_list_agrees_with_torchs_cpu_autocast():
    """Where torch's CPU lists are its CUDA lists (the matrix products, the losses), the
    same calls give the same dtypes in torch."""
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    x, w = np.ones((5, 8), np.float32), np.ones((16, 8), np.float32)
    tx, tw = torch.tensor(x), torch.tensor(w)
    x_, w_ = tinyffn.tensor(x), tinyffn.tensor(w)
    cases = [(lambda a, b: a @ b.T, lambda a, b: a @ b.T),
             (lambda a, b: tf.linear(a, b), lambda a, b: F.linear(a, b)),
             (lambda a, b: tf.mse_loss(a, a.detach()), lambda a, b: F.mse_loss(a, a.detach())),
             (lambda a, b: tf.l1_loss(a @ b.T, a @ b.T), lambda a, b: F.l1_loss(a @ b.T, a @ b.T)),
             (lambda a, b: torch.relu(a @ b.T), lambda a, b: (a @ b.T).relu())]
    for torch_fn, ours in cases:
        with torch.autocast("cpu", dtype=torch.float16):
            expected = str(torch_fn(tx, tw).dtype).replace("torch.", "")
        with tinyffn.autocast("cpu"):
            assert str(ours(x_, w_).dtype) == expected


def test_the_other_listed_products_and_the_unlisted_functions_agree_with_torchs_cpu_autocast():
    """The convolutions and prelu are on both of PyTorch's float16 lists (a float32 input
    runs in float16); the functions on neither list, which tinyffn composes from listed
    primitives, leave a float32 input float32."""
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    x, x2 = np.ones((1, 4, 5), np.float32), np.ones((1, 4, 5, 5), np.float32)
    w1, w2 = np.ones((4, 3, 2), np.float32), np.ones((4, 3, 2, 2), np.float32)
    cases = {
        "conv_transpose1d": lambda lib, f, t: f.conv_transpose1d(t(x), t(w1)),
        "conv_transpose2d": lambda lib, f, t: f.conv_transpose2d(t(x2), t(w2)),
        "conv2d": lambda lib, f, t: f.conv2d(t(x2), t(w2).transpose(0, 1)),
        "prelu": lambda lib, f, t: f.prelu(t(x), t(np.ones(1, np.float32))),
        "gelu": lambda lib, f, t: f.gelu(t(x)),
        "gelu tanh": lambda lib, f, t: f.gelu(t(x), approximate="tanh"),
        "silu": lambda lib, f, t: f.silu(t(x)),
        "mish": lambda lib, f, t: f.mish(t(x)),
        "logsigmoid": lambda lib, f, t: f.logsigmoid(t(x)),
        "hardswish": lambda lib, f, t: f.hardswish(t(x)),
        "softsign": lambda lib, f, t: f.softsign(t(x)),
        "tanhshrink": lambda lib, f, t: f.tanhshrink(t(x)),
        "dropout": lambda lib, f, t: f.dropout(t(x), 0.5),
        "sqrt": lambda lib, f, t: t(x).sqrt(),
        "var_mean": lambda lib, f, t: lib.var_mean(t(x))[0],
    }
    for name, call in cases.items():
        with torch.autocast("cpu", dtype=torch.float16):
            expected = str(call(torch, tf, torch.tensor).dtype).replace("torch.", "")
        with tinyffn.autocast("cpu"):
            assert str(call(tinyffn, F, tinyffn.tensor).dtype) == expected, name


def test_prelu_of_float32_runs_in_float16_in_a_region_as_torchs():
    """F.prelu is on PyTorch's float16 list: a float32 input and weight are cast and the
    result is float16; the weight's gradient comes back float32. It used to raise, its
    masked_fill taking autocast's float16 for a wrong value."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    w = np.array([0.25, -0.5, 2.0], np.float32)
    prelu = nn.PReLU(3)
    with tinyffn.no_grad():
        prelu.weight.copy_(tinyffn.tensor(w))
    xt = tinyffn.tensor(x, requires_grad=True)
    with tinyffn.autocast("cpu"):
        y = prelu(xt)
    tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    with torch.autocast("cpu", dtype=torch.float16):
        ty = torch.nn.functional.prelu(tx, tw)
    assert str(y.dtype) == "float16" and ty.dtype == torch.float16
    np.testing.assert_array_equal(y.numpy(), ty.detach().numpy())
    gy = rng.standard_normal((2, 3, 4)).astype(np.float16)
    y.backward(tinyffn.tensor(gy))
    ty.backward(torch.tensor(gy))
    assert str(prelu.weight.grad.dtype) == "float32" and str(xt.grad.dtype) == "float32"
    np.testing.assert_allclose(prelu.weight.grad.numpy(), tw.grad.numpy(), rtol=2e-3)
    np.testing.assert_allclose(xt.grad.numpy(), tx.grad.numpy(), rtol=2e-3)


def ffn_and_data(seed=0, d=8):
    tinyffn.manual_seed(seed)
    ffn = nn.FFN(d)
    return ffn, tinyffn.randn(6, d), tinyffn.randn(6, d)


def test_an_ffn_under_autocast_keeps_float32_weights_and_gradients_and_draws_its_casts():
    ffn, x, target = ffn_and_data()
    with tinyffn.autocast("cpu"):
        y = ffn(x)
        loss = F.mse_loss(y, target)
    assert str(y.dtype) == "float16" and str(loss.dtype) == "float32"
    # W1, b1 to float16 in the first linear, W2, b2 in the second, y back to float32 in
    # mse_loss (x's cast is recorded by no node: x needs no gradient)
    assert graph_ops(loss).count("cast") == 5
    assert "cast" in tinyffn.to_dot(loss)
    loss.backward()
    for name, p in ffn.named_parameters():
        assert str(p.dtype) == "float32" and str(p.grad.dtype) == "float32", name
    # and the numbers are the float32 FFN's, to float16's precision
    grads16 = {n: p.grad.numpy().copy() for n, p in ffn.named_parameters()}
    ffn.zero_grad()
    loss32 = F.mse_loss(ffn(x), target)
    loss32.backward()
    np.testing.assert_allclose(loss.item(), loss32.item(), rtol=5e-3)
    for n, p in ffn.named_parameters():
        scale = np.abs(p.grad.numpy()).max()
        np.testing.assert_allclose(grads16[n], p.grad.numpy(), atol=5e-3 * scale, err_msg=n)


def test_an_ffn_step_under_autocast_matches_torchs():
    torch = pytest.importorskip("torch")
    ffn, x, target = ffn_and_data(seed=1)
    tffn = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 8))
    with torch.no_grad():
        for (tname, tp), (name, p) in zip(tffn.named_parameters(), ffn.named_parameters()):
            tp.copy_(torch.tensor(p.numpy()))
    with tinyffn.autocast("cpu"):
        loss = F.mse_loss(ffn(x), target)
    loss.backward()
    with torch.autocast("cpu", dtype=torch.float16):
        tloss = torch.nn.functional.mse_loss(tffn(torch.tensor(x.numpy())),
                                             torch.tensor(target.numpy()))
    tloss.backward()
    assert str(tloss.dtype) == "torch.float32"
    np.testing.assert_allclose(loss.item(), tloss.item(), rtol=2e-3)
    for tp, p in zip(tffn.parameters(), ffn.parameters()):
        scale = tp.grad.abs().max().item()
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), atol=2e-3 * scale)


def test_regions_nest_disable_and_decorate():
    x = tinyffn.ones(2, 2)
    assert not tinyffn.is_autocast_enabled("cpu")
    with tinyffn.autocast("cpu"):
        assert tinyffn.is_autocast_enabled("cpu") and not tinyffn.is_autocast_enabled("cuda")
        with tinyffn.autocast("cpu", enabled=False):
            assert str((x @ x).dtype) == "float32"
            assert not tinyffn.is_autocast_enabled("cpu")
        assert str((x @ x).dtype) == "float16"
    assert not tinyffn.is_autocast_enabled("cpu")

    @tinyffn.autocast("cpu")
    def product(a):
        return a @ a

    assert str(product(x).dtype) == "float16" and str((x @ x).dtype) == "float32"
    with pytest.raises(ZeroDivisionError):          # an error inside leaves the region
        with tinyffn.autocast("cpu"):
            1 / 0
    assert not tinyffn.is_autocast_enabled("cpu")
    assert tinyffn.get_autocast_dtype("cpu") == tinyffn.float16


def test_a_float32_function_inside_a_float16_one_still_computes_in_float32():
    """The softmax of an attention: its exp and sum in float32, as PyTorch's attention
    kernels compute it, then the product with the values in float16."""
    tinyffn.manual_seed(0)
    q = tinyffn.randn(1, 4, 8, requires_grad=True)
    with tinyffn.autocast("cpu"):
        y = F.scaled_dot_product_attention(q, q, q)
    dtypes = {v.fn.op_name(): str(v.out_dtype) for v in topological_order(y)
              if isinstance(v, Context)}
    assert dtypes["exp"] == dtypes["sum"] == "float32"
    assert dtypes["matmul"] == str(y.dtype) == "float16"


def test_regions_left_out_of_order_each_remove_their_own():
    outer, inner = tinyffn.autocast("cpu"), tinyffn.autocast("cpu", enabled=False)
    outer.__enter__()
    inner.__enter__()
    outer.__exit__(None, None, None)        # by hand, in the wrong order
    assert not tinyffn.is_autocast_enabled("cpu")
    inner.__exit__(None, None, None)
    assert not tinyffn.is_autocast_enabled("cpu")
    inner.__enter__()
    outer.__enter__()
    inner.__exit__(None, None, None)
    assert tinyffn.is_autocast_enabled("cpu")   # outer's region is what is left
    outer.__exit__(None, None, None)
    assert not tinyffn.is_autocast_enabled("cpu")


def test_strict_tensors_are_not_cast_by_a_cpu_region():
    x = tinyffn.ones(2, 2, device="strict")
    with tinyffn.autocast("cpu"):
        assert dtype_name((x @ x).dtype) == "float32"


@pytest.mark.parametrize("kwargs, error, match", [
    ({"device_type": "strict"}, ValueError, "'strict' is not supported.*has no float16"),
    ({"device_type": "cuda:0"}, ValueError, "use 'cuda' or 'cpu' .a device type has no index"),
    ({"device_type": "gpu"}, ValueError, "devices are 'cpu' and 'cuda'"),
    ({"device_type": 0}, ValueError, "must be a string"),
    ({"device_type": "cpu", "dtype": tinyffn.float32}, ValueError,
     "must be float16.*float32 is what runs outside"),
    ({"device_type": "cpu", "dtype": "bfloat16"}, ValueError, "no bfloat16"),
    ({"device_type": "cpu", "enabled": 1}, TypeError, "True or False"),
])
def test_autocast_refuses_what_it_cannot_do(kwargs, error, match):
    with pytest.raises(error, match=match):
        tinyffn.autocast(**kwargs)


@pytest.mark.skipif(tinyffn.cuda_available(), reason="needs a machine without a GPU")
def test_cuda_without_a_gpu_warns_and_disables_as_in_pytorch():
    with pytest.warns(UserWarning, match="no GPU is usable"):
        region = tinyffn.autocast("cuda")
    with region:
        assert not tinyffn.is_autocast_enabled("cuda")
    with pytest.warns(UserWarning, match="no GPU is usable"):
        assert not tinyffn.amp.GradScaler().is_enabled()


# ----------------------------------------------------------------------------- GradScaler
def test_float16_gradients_underflow_without_scaling_and_survive_with_it():
    """dL/dy = 1e-8 is below float16's smallest subnormal (2^-24 ≈ 6e-8): it rounds to 0
    in the matmul's backward, and W gets no gradient at all. Scaled by 2^16 it survives,
    and unscaled in float32 it is the true gradient."""
    tinyffn.manual_seed(0)
    x = tinyffn.rand(4, 8)
    w = nn.Parameter(tinyffn.randn(3, 8))
    opt = tinyffn.optim.SGD([w], lr=0.0)

    def loss_fn():
        with tinyffn.autocast("cpu"):
            return (x @ w.T).float().sum() * 1e-8

    loss_fn().backward()
    assert np.all(w.grad.numpy() == 0)
    w.grad = None
    scaler = tinyffn.amp.GradScaler("cpu")
    scaler.scale(loss_fn()).backward()
    scaler.unscale_(opt)
    expected = np.tile(x.numpy().sum(axis=0) * 1e-8, (3, 1))
    np.testing.assert_allclose(w.grad.numpy(), expected, rtol=2e-3)


def test_grad_scaler_steps_skips_and_rescales_as_torchs():
    """Six steps of SGD, two of them with an inf gradient planted: the scale, the skipped
    steps and the weights after each step are torch's."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    w0, xs = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((6, 5, 4))
    w = nn.Parameter(tinyffn.tensor(w0))
    tw = torch.nn.Parameter(torch.tensor(w0))
    opt, topt = tinyffn.optim.SGD([w], lr=0.1), torch.optim.SGD([tw], lr=0.1)
    kw = dict(init_scale=2.0 ** 10, growth_factor=4.0, backoff_factor=0.25, growth_interval=2)
    scaler, tscaler = tinyffn.amp.GradScaler("cpu", **kw), torch.amp.GradScaler("cpu", **kw)
    for step, x in enumerate(xs.astype(np.float32)):
        before = w.detach().numpy().copy()
        for s, param, o, lib in ((scaler, w, opt, tinyffn), (tscaler, tw, topt, torch)):
            o.zero_grad()
            s.scale((lib.tensor(x) @ param.T).square().sum()).backward()
            if step in (1, 4):
                with lib.no_grad():
                    param.grad[0, 0] = math.inf
            s.step(o)
            s.update()
        assert np.array_equal(w.detach().numpy(), before) == (step in (1, 4)), step
        assert scaler.get_scale() == tscaler.get_scale(), step
        np.testing.assert_allclose(w.detach().numpy(), tw.detach().numpy(), rtol=1e-6,
                                   atol=1e-6)
    # steps 1 and 4 back off (x 0.25); steps 2 and 3 are two good ones in a row: x 4
    assert scaler.get_scale() == 2.0 ** 10 * 0.25 * 4 * 0.25
    assert scaler.state_dict() == tscaler.state_dict()


def test_step_returns_the_optimizers_result_or_none_when_skipped():
    w = nn.Parameter(tinyffn.ones(2))
    opt = tinyffn.optim.SGD([w], lr=1.0)
    scaler = tinyffn.amp.GradScaler("cpu", init_scale=4.0)
    scaler.scale((w * 3).sum()).backward()
    assert w.grad.tolist() == [12.0, 12.0]
    scaler.unscale_(opt)
    assert w.grad.tolist() == [3.0, 3.0]            # clip here, on the true gradients
    scaler.step(opt)                                # does not unscale again
    assert w.tolist() == [-2.0, -2.0]
    scaler.update()
    w.grad = tinyffn.tensor([math.nan, 1.0])
    assert scaler.step(opt) is None and w.tolist() == [-2.0, -2.0]
    scaler.update()
    assert scaler.get_scale() == 2.0


def test_a_disabled_scaler_passes_everything_through():
    w = nn.Parameter(tinyffn.ones(2))
    opt = tinyffn.optim.SGD([w], lr=1.0)
    scaler = tinyffn.amp.GradScaler("cpu", enabled=False)
    loss = (w * 3).sum()
    assert scaler.scale(loss) is loss
    loss.backward()
    scaler.step(opt)
    scaler.update()
    assert w.tolist() == [-2.0, -2.0] and scaler.get_scale() == 1.0
    assert scaler.state_dict() == {}


def test_a_float16_loss_is_scaled_in_float32_and_its_gradient_must_fit_float16():
    """A mean is not on autocast's float32 list, so a loss may be float16. S times it may
    not fit in float16 (tinyffn refuses x16 * 65536), so it is scaled in float32; but
    dL/dloss = S goes back through the cast into float16, where 2^16 is inf: the first
    step is skipped and S halves, as PyTorch's scaler does (its scaled loss is inf)."""
    w = nn.Parameter(tinyffn.ones(4, 4))
    opt = tinyffn.optim.SGD([w], lr=1.0)
    scaler = tinyffn.amp.GradScaler("cpu")
    for step in range(2):
        opt.zero_grad()
        with tinyffn.autocast("cpu"):
            loss = (tinyffn.ones(2, 4) @ w).mean()
        assert str(loss.dtype) == "float16"
        scaled = scaler.scale(loss)
        assert str(scaled.dtype) == "float32" and scaled.item() == 4.0 * 2 ** (16 - step)
        with np.errstate(over="ignore"):
            scaled.backward()
        scaler.unscale_(opt)
        if step == 0:
            assert np.all(np.isinf(w.grad.numpy()))
        else:
            np.testing.assert_array_equal(w.grad.numpy(), np.full((4, 4), 0.25))
        scaler.step(opt)
        scaler.update()
    assert scaler.get_scale() == 2.0 ** 15
    np.testing.assert_array_equal(w.detach().numpy(), np.full((4, 4), 0.75))


def test_scale_takes_lists_and_tuples_and_state_dicts_round_trip():
    scaler = tinyffn.amp.GradScaler("cpu", init_scale=8.0)
    a, b = tinyffn.tensor(1.0), tinyffn.tensor(2.0)
    scaled = scaler.scale([a, (b,)])
    assert scaled[0].item() == 8.0 and scaled[1][0].item() == 16.0
    assert type(scaled) is list and type(scaled[1]) is tuple     # as torch's type(outputs)
    other = tinyffn.amp.GradScaler("cpu")
    other.load_state_dict(scaler.state_dict())
    assert other.get_scale() == 8.0 and other.state_dict() == scaler.state_dict()


SCALER_W0 = np.array([[1.0, -2.0], [0.5, 3.0], [-1.5, 2.5]], np.float32)
# per round: the parameter whose gradient gets an inf, and whether opt2 is stepped or
# only unscaled
SCALER_ROUNDS = [(None, True), (None, True), ("a", True), ("b", True), ("c", False), ("c", True)]


def scaler_rounds(lib, parameter, sgd, grad_scaler):
    """The scale and the weights after each of SCALER_ROUNDS, then the scale after
    update(new_scale=3.0), in the library ``lib`` (tinyffn or torch)."""
    a, b, c = (parameter(lib.tensor(row)) for row in SCALER_W0)
    opt1 = sgd([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.25)
    opt2 = sgd([c], lr=0.25)
    scaler = grad_scaler("cpu", init_scale=8.0, growth_interval=1)
    seen = []
    for planted, step_opt2 in SCALER_ROUNDS:
        opt1.zero_grad()
        opt2.zero_grad()
        scaler.scale((a + b * 2.0 + c * 3.0).square().sum()).backward()
        if planted is not None:
            with lib.no_grad():
                dict(a=a, b=b, c=c)[planted].grad[1] = math.inf
        scaler.step(opt1)
        if step_opt2:
            scaler.step(opt2)
        else:
            scaler.unscale_(opt2)
        scaler.update()
        seen.append((scaler.get_scale(), [p.detach().numpy().copy() for p in (a, b, c)]))
    scaler.update(new_scale=3.0)
    seen.append((scaler.get_scale(), []))
    return seen


def test_two_optimizers_and_param_groups_skip_and_rescale_as_torchs():
    """One scaler, two optimizers, the first with two param groups: an inf in any gradient
    of any group skips that optimizer's step, not the other's, and backs the scale off,
    also when the optimizer was only unscaled; two good rounds in a row grow it twice
    (growth_interval=1); update(new_scale) sets it. Round by round, torch's."""
    torch = pytest.importorskip("torch")
    ours = scaler_rounds(tinyffn, nn.Parameter, tinyffn.optim.SGD, tinyffn.amp.GradScaler)
    theirs = scaler_rounds(torch, torch.nn.Parameter, torch.optim.SGD, torch.amp.GradScaler)
    assert [s for s, _ in ours] == [s for s, _ in theirs] == [16, 32, 16, 8, 4, 2, 3]
    for r, ((_, ws), (_, tws)) in enumerate(zip(ours, theirs)):
        for w, tw in zip(ws, tws):
            np.testing.assert_allclose(w, tw, rtol=1e-6, err_msg=f"round {r}")


def test_state_dicts_load_from_and_into_torchs_scaler():
    """Every setting and the growth tracker travel, whichever library saved them."""
    torch = pytest.importorskip("torch")
    kw = dict(init_scale=2.0 ** 5, growth_factor=4.0, backoff_factor=0.125, growth_interval=3)
    tscaler = torch.amp.GradScaler("cpu", **kw)
    tw = torch.nn.Parameter(torch.ones(2))
    topt = torch.optim.SGD([tw], lr=0.1)
    for _ in range(2):              # two good steps: the tracker at 2
        tscaler.scale(tw.sum()).backward()
        tscaler.step(topt)
        tscaler.update()
    ours = tinyffn.amp.GradScaler("cpu")
    ours.load_state_dict(tscaler.state_dict())
    assert ours.state_dict() == tscaler.state_dict()
    assert ours.state_dict()["_growth_tracker"] == 2
    fresh = torch.amp.GradScaler("cpu")
    fresh.load_state_dict(ours.state_dict())
    assert fresh.state_dict() == tscaler.state_dict()


def scaler_after_backward():
    w = nn.Parameter(tinyffn.ones(2))
    opt = tinyffn.optim.SGD([w], lr=1.0)
    scaler = tinyffn.amp.GradScaler("cpu")
    scaler.scale(w.sum()).backward()
    return scaler, opt, w


def test_the_order_of_calls_is_checked():
    scaler, opt, w = scaler_after_backward()
    scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match="already called on this optimizer"):
        scaler.unscale_(opt)
    scaler.step(opt)
    with pytest.raises(RuntimeError, match="already called on this optimizer"):
        scaler.step(opt)
    with pytest.raises(RuntimeError, match="called after step"):
        scaler.unscale_(opt)
    scaler.update()
    with pytest.raises(RuntimeError, match="no optimizer was unscaled or stepped"):
        scaler.update()


@pytest.mark.parametrize("call, error, match", [
    (lambda s, o, w: s.step(o, lambda: 0.0), RuntimeError, "closure is not supported"),
    (lambda s, o, w: s.scale(1.0), TypeError, "must be a tensor"),
    (lambda s, o, w: s.unscale_(w), TypeError, "expected an optimizer"),
    (lambda s, o, w: s.update(new_scale=0.0), ValueError, "finite number > 0"),
    (lambda s, o, w: s.update(new_scale=math.inf), ValueError, "finite number > 0"),
    (lambda s, o, w: s.set_growth_factor(1.0), ValueError, "must be > 1.0"),
    (lambda s, o, w: s.set_backoff_factor(1.0), ValueError, r"must be in \(0, 1\)"),
    (lambda s, o, w: s.set_backoff_factor(0.0), ValueError, r"must be in \(0, 1\)"),
    (lambda s, o, w: s.set_growth_interval(0), ValueError, "int >= 1"),
    (lambda s, o, w: s.load_state_dict({}), RuntimeError, "state dict is empty"),
    (lambda s, o, w: tinyffn.amp.GradScaler("cpu", init_scale=math.inf), ValueError,
     "init_scale"),
    (lambda s, o, w: tinyffn.amp.GradScaler("cpu", init_scale=0.0), ValueError,
     "init_scale"),
])
def test_grad_scaler_refuses_bad_calls(call, error, match):
    scaler, opt, w = scaler_after_backward()
    with pytest.raises(error, match=match):
        call(scaler, opt, w)


def test_float16_parameters_are_refused_with_what_to_do():
    w = nn.Parameter(tinyffn.ones(2).half())
    opt = tinyffn.optim.SGD([w], lr=1.0)
    scaler = tinyffn.amp.GradScaler("cpu", init_scale=2.0)
    scaler.scale(w.float().sum()).backward()
    with pytest.raises(ValueError, match="gradients are float16.*model.half"):
        scaler.step(opt)


def test_a_step_without_gradients_is_refused():
    w = nn.Parameter(tinyffn.ones(2))
    with pytest.raises(RuntimeError, match="no parameter of the optimizer has a gradient"):
        tinyffn.amp.GradScaler("cpu").step(tinyffn.optim.SGD([w], lr=1.0))


def test_a_training_loop_with_autocast_and_grad_scaler_tracks_float32(device):
    """The PyTorch recipe, on each device: twenty Adam steps of an FFN with autocast and a
    GradScaler follow the float32 run's losses to float16's precision."""
    if device == "strict":
        pytest.skip("the strict backend has no float16")
    losses = {}
    for mixed in (False, True):
        ffn, x, target = ffn_and_data(seed=2)
        ffn.to(device)
        x, target = x.to(device), target.to(device)
        opt = tinyffn.optim.Adam(ffn.parameters(), lr=1e-2)
        scaler = tinyffn.amp.GradScaler(device, enabled=mixed)
        losses[mixed] = []
        for _ in range(20):
            opt.zero_grad()
            with tinyffn.autocast(device, enabled=mixed):
                loss = F.mse_loss(ffn(x), target)
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
            nn.utils.clip_grad_norm_(ffn.parameters(), 1.0)
            scaler.step(opt)
            scaler.update()
            losses[mixed].append(loss.item())
        assert all(str(p.dtype) == "float32" for p in ffn.parameters())
    assert losses[False][-1] < 0.8 * losses[False][0]
    np.testing.assert_allclose(losses[True], losses[False], rtol=2e-2)


# ----------------------------------------------------------------------------- review 20
def test_a_checkpointed_block_is_recomputed_in_the_autocast_state_of_its_forward():
    """torch.utils.checkpoint records the autocast state and reruns the block in it; the
    backward here runs outside the region, as PyTorch advises, and the gradients are the
    uncheckpointed run's, bit for bit (the same float16 ops)."""
    from tinyffn.utils.checkpoint import checkpoint
    grads = []
    for wrap in (lambda f, x: f(x), checkpoint):
        ffn, x, target = ffn_and_data(seed=3)
        x.requires_grad_()
        with tinyffn.autocast("cpu"):
            y = wrap(ffn, x)
            loss = F.mse_loss(y, target)
        assert str(y.dtype) == "float16"
        loss.backward()
        grads.append([x.grad.numpy()] + [p.grad.numpy() for p in ffn.parameters()])
        assert not tinyffn.is_autocast_enabled("cpu")
    for g, g_checkpointed in zip(*grads):
        np.testing.assert_array_equal(g, g_checkpointed)


def test_step_passes_keyword_arguments_on_to_the_optimizer():
    """torch's GradScaler.step calls optimizer.step(*args, **kwargs); only a closure is
    refused."""
    seen = []

    class SGDWithFlag(tinyffn.optim.SGD):
        def step(self, closure=None, *, flag=None):
            seen.append(flag)
            return super().step()

    scaler, _, w = scaler_after_backward()
    scaler.step(SGDWithFlag([w], lr=1.0), flag="passed")
    assert seen == ["passed"]


def test_autocast_refuses_to_decorate_a_generator_function_as_no_grad_does():
    """The region would be left when the call returns the generator, before its body
    runs: the body would run in float32 without a word."""
    def batches():
        yield tinyffn.ones(2, 2) @ tinyffn.ones(2, 2)

    with pytest.raises(TypeError, match="cannot decorate the generator function batches"):
        tinyffn.autocast("cpu")(batches)
