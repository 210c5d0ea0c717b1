"""What autocast does besides choosing dtypes (tinyffn/amp_casts.py): the cast cache, an
explicit dtype, dot's and tensordot's promotion and binary_cross_entropy's refusal.

References: torch's CPU autocast, which caches casts as its CUDA autocast does; torch's
CUDA policies as ``ATen/autocast_mode.h`` lists them (``fp32_set_opt_dtype`` for softmax,
``promote`` for dot, ``binary_cross_entropy`` banned), which a CPU-only torch cannot run,
so those are checked by dtype and against NumPy; exact small-integer arithmetic, where a
gradient counted twice or dropped would show.
"""
import numpy as np
import pytest

import tinyffn
import tinyffn.nn as nn
import tinyffn.nn.functional as F
from tinyffn.autograd import Context, topological_order


def nodes(y):
    return [v for v in topological_order(y) if isinstance(v, Context)]


def casts_of(y, w):
    """The cast nodes whose input is ``w``."""
    return [c for c in nodes(y) if c.fn.op_name() == "cast" and c.parents[0] is w]


def twice_applied(cache_enabled=True, seed=0):
    """A Linear applied twice (as a tied or recurrent layer is) under autocast."""
    tinyffn.manual_seed(seed)
    lin, x = nn.Linear(8, 8), tinyffn.randn(4, 8)
    with tinyffn.autocast("cpu", cache_enabled=cache_enabled):
        loss = lin(lin(x).relu()).float().square().sum()
    return lin, x, loss


# ----------------------------------------------------------------------------- the cache
def test_a_weight_used_twice_is_cast_once_and_its_cast_feeds_both_uses():
    lin, _, loss = twice_applied()
    (cast,) = casts_of(loss, lin.weight)
    users = [c for c in nodes(loss) if any(p is cast for p in c.parents)]
    assert len(users) == 2                  # each linear's first op on W (its W.T)
    assert len(casts_of(loss, lin.bias)) == 1
    plain, _, uncached = twice_applied(cache_enabled=False)
    assert len(casts_of(uncached, plain.weight)) == len(casts_of(uncached, plain.bias)) == 2
    assert len(nodes(loss)) == len(nodes(uncached)) - 2    # W's and b's second casts


def test_the_cached_run_gives_torchs_gradients_and_the_uncached_runs():
    torch = pytest.importorskip("torch")
    lin, x, loss = twice_applied()
    loss.backward()
    plain, _, loss2 = twice_applied(cache_enabled=False)
    loss2.backward()
    tlin = torch.nn.Linear(8, 8)
    with torch.no_grad():
        tlin.weight.copy_(torch.tensor(lin.weight.numpy()))
        tlin.bias.copy_(torch.tensor(lin.bias.numpy()))
    with torch.autocast("cpu", dtype=torch.float16):        # torch caches the casts too
        tloss = tlin(tlin(torch.tensor(x.numpy())).relu()).float().square().sum()
    tloss.backward()
    for name, p, tp in (("weight", lin.weight, tlin.weight), ("bias", lin.bias, tlin.bias)):
        assert str(p.grad.dtype) == "float32"
        scale = np.abs(tp.grad.numpy()).max()
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), atol=2e-3 * scale,
                                   err_msg=name)
        np.testing.assert_allclose(p.grad.numpy(), getattr(plain, name).grad.numpy(),
                                   atol=2e-3 * scale, err_msg=name)


def test_the_gradient_reaches_the_weight_once_per_use():
    """Small integers: every float16 product and sum is exact, so w.grad is exactly
    3 · (column sums of x), and a use counted twice or dropped would show."""
    x = tinyffn.tensor(np.arange(12, dtype=np.float32).reshape(4, 3) % 5)
    w = nn.Parameter(tinyffn.ones(2, 3))
    with tinyffn.autocast("cpu"):
        y = F.linear(x, w) + F.linear(x, w) * 2.0
        assert len(casts_of(y, w)) == 1
    y.float().sum().backward()
    expected = np.tile(3 * x.numpy().sum(axis=0), (2, 1))
    np.testing.assert_array_equal(w.grad.numpy(), expected)


def test_what_is_cached_and_when_the_cache_is_dropped():
    w = nn.Parameter(tinyffn.ones(2, 2))
    x = tinyffn.ones(2, 2)
    with tinyffn.autocast("cpu"):
        with tinyffn.no_grad():
            x @ w                           # under no_grad: not kept, as in torch
        a = x @ w
        with tinyffn.autocast("cpu"):       # a nested region shares the outer's cache
            b = x @ w
        c = x @ w.detach()                  # not a leaf that requires grad: cast anew
        d = x @ w.detach()
        h = x @ w
        g = w * 1.0                         # computed, not a leaf: cast at each use
        g1, g2 = x @ g, x @ g
        with tinyffn.no_grad():
            w.add_(1.0)                     # a new array: the copy would be stale
        e = x @ w
    with tinyffn.autocast("cpu"):           # a new region: a new copy
        f = x @ w
    assert a.grad_fn.parents[1] is b.grad_fn.parents[1] is h.grad_fn.parents[1]
    assert c.grad_fn is None and d.grad_fn is None
    assert g1.grad_fn.parents[1] is not g2.grad_fn.parents[1]
    assert e.grad_fn.parents[1] is not a.grad_fn.parents[1]
    assert f.grad_fn.parents[1] is not e.grad_fn.parents[1]
    np.testing.assert_array_equal(e.numpy(), np.full((2, 2), 4.0))  # torch's: stale 2.0s
    (a.float().sum() + e.float().sum()).backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.full((2, 2), 4.0))


def test_cache_enabled_false_holds_for_the_regions_inside_it():
    w = nn.Parameter(tinyffn.ones(2, 2))
    x = tinyffn.ones(2, 2)
    with tinyffn.autocast("cpu", cache_enabled=False):
        inner = tinyffn.autocast("cpu")                     # None: as the region around
        assert not inner.cache_enabled
        with inner:
            a, b = x @ w, x @ w
        with tinyffn.autocast("cpu", cache_enabled=True):
            c, d = x @ w, x @ w
    assert a.grad_fn.parents[1] is not b.grad_fn.parents[1]
    assert c.grad_fn.parents[1] is d.grad_fn.parents[1]
    assert tinyffn.autocast("cpu").cache_enabled
    with pytest.raises(TypeError, match="cache_enabled must be True or False"):
        tinyffn.autocast("cpu", cache_enabled=1)


def test_a_checkpointed_block_reuses_no_cast_so_its_rerun_records_the_same_ops():
    """W is cast before the block; a block that took that copy would record no cast, and
    its rerun in backward (a new region, an empty cache) one: the ops would differ and
    backward would raise. In the block each use casts W anew, so its two gradients are
    summed in float32, not in float16 as through the shared cast: equal to float16's
    precision."""
    from tinyffn.utils.checkpoint import checkpoint
    grads = []
    for wrap in (lambda f, x: f(x), checkpoint):
        tinyffn.manual_seed(0)
        lin, x = nn.Linear(4, 4), tinyffn.randn(3, 4)
        with tinyffn.autocast("cpu"):
            h = lin(x)
            loss = wrap(lambda t: lin(lin(t).relu()), h).float().sum()
        loss.backward()
        grads.append(lin.weight.grad.numpy())
    np.testing.assert_allclose(*grads, rtol=2e-3, atol=2e-3 * np.abs(grads[0]).max())


# ----------------------------------------------------------------------------- explicit dtype
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_an_explicit_dtype_wins_over_autocasts_float32(name):
    """PyTorch's fp32_set_opt_dtype: float32 only where no dtype is given."""
    torch = pytest.importorskip("torch")
    tinyffn.manual_seed(0)
    x = tinyffn.randn(3, 5, requires_grad=True)
    fn = getattr(F, name)
    with tinyffn.autocast("cpu"):
        y = fn(x, -1, dtype=tinyffn.float16)
        assert str(fn(x.half(), -1).dtype) == "float32"             # no dtype: float32
        assert str(fn(x.half(), -1, dtype=tinyffn.float64).dtype) == "float64"
    assert str(y.dtype) == "float16"
    tx = torch.tensor(x.numpy(), requires_grad=True)
    ty = getattr(torch.nn.functional, name)(tx, -1, dtype=torch.float16)
    np.testing.assert_allclose(y.numpy().astype(np.float32), ty.detach().float().numpy(),
                               rtol=1e-3, atol=1e-3)
    gy = np.linspace(-1, 1, 15, dtype=np.float16).reshape(3, 5)
    y.backward(tinyffn.tensor(gy))
    ty.backward(torch.tensor(gy))
    assert str(x.grad.dtype) == "float32"
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-2, atol=2e-3)


def test_cumsum_and_prod_keep_an_explicit_dtype_in_a_region():
    h = tinyffn.tensor([[1.0, 2.0], [3.0, 4.0]]).half()
    with tinyffn.autocast("cpu"):
        assert str(h.cumsum(0).dtype) == str(h.prod().dtype) == "float32"
        assert str(h.cumsum(0, dtype=tinyffn.float16).dtype) == "float16"
        assert str(h.prod(dtype=tinyffn.float16).dtype) == "float16"
        assert h.prod(dtype=tinyffn.float16).item() == 24.0


# ----------------------------------------------------------------------------- dot: promote
def test_dot_of_float16_and_float32_is_refused_outside_a_region_as_torch_refuses_it():
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match="same dtype"):
        torch.dot(torch.ones(3), torch.ones(3).half())
    with pytest.raises(TypeError, match=r"got float32 and float16 \(PyTorch refuses this too\)"
                       r".*dot\(input.to\(dtype='float16'\), tensor\)"):
        tinyffn.dot(tinyffn.ones(3), tinyffn.ones(3).half())


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=[
    pytest.mark.cuda, pytest.mark.skipif(not tinyffn.cuda_available(), reason="no GPU")])])
def test_dot_promotes_mixed_inputs_to_float32_in_a_region(device):
    """PyTorch's CUDA ``promote`` list: the widest float dtype; float64 is not touched."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(5).astype(np.float32), rng.standard_normal(5).astype(np.float16)
    x = tinyffn.tensor(a, device=device, requires_grad=True)
    w = tinyffn.tensor(b, device=device, requires_grad=True)
    with tinyffn.autocast(device):
        y = tinyffn.dot(x, w)
        assert str(tinyffn.dot(w, w).dtype) == "float16"
        with pytest.raises(TypeError, match="got float64 and float32"):
            tinyffn.dot(x.double(), x)
    assert str(y.dtype) == "float32"
    np.testing.assert_allclose(y.item(), np.dot(a, b.astype(np.float32)), rtol=1e-6)
    y.backward()
    assert str(w.grad.dtype) == "float16" and str(x.grad.dtype) == "float32"
    np.testing.assert_array_equal(x.grad.numpy(), b.astype(np.float32))
    np.testing.assert_array_equal(w.grad.numpy(), a.astype(np.float16))


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=[
    pytest.mark.cuda, pytest.mark.skipif(not tinyffn.cuda_available(), reason="no GPU")])])
def test_tensordot_promotes_and_multiplies_float32_in_float32_in_a_region(device):
    """PyTorch's CUDA autocast lists tensordot as ``promote``, so its matmul is not cast
    to float16 (torch's CPU autocast, which does not list it, would multiply in float16)."""
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((3, 4, 5))
    x32 = tinyffn.tensor(a.astype(np.float32), device=device)
    w16 = tinyffn.tensor(b.astype(np.float16), device=device)
    with tinyffn.autocast(device):
        y = tinyffn.tensordot(x32, w16)
        assert str(tinyffn.tensordot(x32, w16.float()).dtype) == "float32"
        assert str(tinyffn.tensordot(x32.half(), w16).dtype) == "float16"
    with pytest.raises(TypeError, match="got float32 and float16"):
        tinyffn.tensordot(x32, w16)
    assert str(y.dtype) == "float32"
    expected = np.tensordot(a.astype(np.float32), b.astype(np.float16).astype(np.float32))
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-5, atol=1e-5)


# ----------------------------------------------------------------------------- BCE
def probabilities(device):
    tinyffn.manual_seed(0)
    p = tinyffn.rand(4, 3, device=device) * 0.98 + 0.01
    return p, (tinyffn.rand(4, 3, device=device) > 0.5).float()


def test_binary_cross_entropy_runs_in_float32_in_a_cpu_region_as_torchs():
    torch = pytest.importorskip("torch")
    p, y = probabilities("cpu")
    p16 = p.half().requires_grad_()
    with tinyffn.autocast("cpu"):
        loss = F.binary_cross_entropy(p16, y)
    tp = torch.tensor(p16.detach().numpy(), requires_grad=True)
    with torch.autocast("cpu", dtype=torch.float16):
        tloss = torch.nn.functional.binary_cross_entropy(tp, torch.tensor(y.numpy()))
    assert str(loss.dtype) == "float32" and tloss.dtype == torch.float32
    np.testing.assert_allclose(loss.item(), tloss.item(), rtol=1e-6)
    loss.backward()
    tloss.backward()
    np.testing.assert_allclose(p16.grad.numpy(), tp.grad.numpy(), rtol=1e-3)


@pytest.mark.cuda
@pytest.mark.skipif(not tinyffn.cuda_available(), reason="CuPy with a usable GPU is not "
                    "available")
def test_binary_cross_entropy_of_cuda_tensors_is_refused_in_a_cuda_region():
    p, y = probabilities("cuda")
    with tinyffn.autocast("cuda"):
        for call in (lambda: F.binary_cross_entropy(p, y), lambda: nn.BCELoss()(p, y)):
            with pytest.raises(RuntimeError, match="unsafe to autocast.*"
                               "binary_cross_entropy_with_logits"):
                call()
        assert str(F.binary_cross_entropy_with_logits(p, y).dtype) == "float32"
        with tinyffn.autocast("cuda", enabled=False):
            F.binary_cross_entropy(p, y)            # what the message offers
    F.binary_cross_entropy(p, y)


def test_a_cuda_region_does_not_refuse_cpu_tensors(monkeypatch):
    """torch's ban sits on CUDA tensors' dispatch: CPU tensors in a "cuda" region pass
    (a region made as if a GPU were here, which this test needs without one)."""
    monkeypatch.setattr(tinyffn.amp, "cuda_available", lambda: True)
    p, y = probabilities("cpu")
    with tinyffn.autocast("cuda"):
        assert tinyffn.is_autocast_enabled("cuda")
        assert str(F.binary_cross_entropy(p, y).dtype) == "float32"
