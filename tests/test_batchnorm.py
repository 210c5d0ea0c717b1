"""F.batch_norm, nn.BatchNorm1d, nn.BatchNorm2d (tinyffn/batchnorm.py) and
optim.swa_utils.update_bn: the defining per-channel formulas and the running-statistics
rule in NumPy; the closed-form gradient; gradcheck on every device; the modules beside
torch live, state copied (outputs, gradients, running statistics over several training
steps, momentum=None, eval mode, affine=False, track_running_stats=False); torch's numbers
written out for a machine without it; update_bn beside torch's; state_dict round trips;
the graph; the errors.
"""
import numpy as np
import pytest

import tinyffn
from tinyffn import functional as F
from tinyffn import nn
from tinyffn.autograd import Scope
from tinyffn.backend import dtype_name
from tinyffn.optim import swa_utils
from test_functional import graph_nodes
from test_norms import PRIMITIVE_NAMES

rng = np.random.default_rng(11)
SHAPES = [(5, 3), (4, 3, 6), (2, 3, 4, 5)]      # (N, C), (N, C, L), (N, C, H, W)


def _axes(x):
    return (0,) + tuple(range(2, x.ndim))


def _np_batch_norm(x, rm, rv, w, b, training, momentum, eps):
    """y and the new running statistics, channel by channel in a loop (float64)."""
    y = np.empty_like(x)
    rm = None if rm is None else rm.copy()
    rv = None if rv is None else rv.copy()
    for c in range(x.shape[1]):
        xc = x[:, c]
        if training:
            mean, var = xc.mean(), ((xc - xc.mean()) ** 2).mean()
            if rm is not None:
                n = xc.size
                rm[c] = (1 - momentum) * rm[c] + momentum * mean
                rv[c] = (1 - momentum) * rv[c] + momentum * var * n / (n - 1)
        else:
            mean, var = rm[c], rv[c]
        y[:, c] = (xc - mean) / np.sqrt(var + eps) * (1 if w is None else w[c]) \
            + (0 if b is None else b[c])
    return y, rm, rv


def _tensors(device, *arrays, requires_grad=False):
    return [None if a is None else tinyffn.tensor(a, dtype="float64", device=device,
                                                  requires_grad=requires_grad)
            for a in arrays]


# ----------------------------------------------------------------------------- the function
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_is_the_defining_formula(shape, training, device):
    x = rng.standard_normal(shape) * 3 + 1
    C = shape[1]
    rm, rv = rng.standard_normal(C), rng.uniform(0.5, 2, C)
    w, b = rng.standard_normal(C), rng.standard_normal(C)
    want, want_rm, want_rv = _np_batch_norm(x, rm, rv, w, b, training, 0.3, 1e-3)
    xt, rmt, rvt, wt, bt = _tensors(device, x, rm, rv, w, b)
    y = F.batch_norm(xt, rmt, rvt, wt, bt, training=training, momentum=0.3, eps=1e-3)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(rmt.numpy(), want_rm, rtol=1e-12, atol=1e-14)   # in place
    np.testing.assert_allclose(rvt.numpy(), want_rv, rtol=1e-12, atol=1e-14)
    if training:            # and without running tensors, nothing to update
        y2 = F.batch_norm(xt, None, None, wt, bt, training=True, eps=1e-3)
        np.testing.assert_allclose(y2.numpy(), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("shape", SHAPES)
def test_batch_norm_gradients_are_the_closed_form(shape, device):
    """Training: dL/dx = r (g - mean g - x̂ mean(g x̂)) per channel, g = gy w; dL/dw = Σ gy x̂,
    dL/db = Σ gy. Eval (constant statistics): dL/dx = gy w r."""
    x, gy = rng.standard_normal(shape), rng.standard_normal(shape)
    C, axes, eps = shape[1], _axes(x), 1e-5
    w, b, rm, rv = rng.standard_normal(C), rng.standard_normal(C), rng.standard_normal(C), \
        rng.uniform(0.5, 2, C)
    bc = (1, C) + (1,) * (x.ndim - 2)
    mean = x.mean(axis=axes, keepdims=True)
    r = 1 / np.sqrt(((x - mean) ** 2).mean(axis=axes, keepdims=True) + eps)
    xhat, g = (x - mean) * r, gy * w.reshape(bc)
    want_gx = r * (g - g.mean(axis=axes, keepdims=True)
                   - xhat * (g * xhat).mean(axis=axes, keepdims=True))
    xt, wt, bt = _tensors(device, x, w, b, requires_grad=True)
    F.batch_norm(xt, None, None, wt, bt, training=True, eps=eps).backward(
        tinyffn.tensor(gy, device=device, dtype="float64"))
    np.testing.assert_allclose(xt.grad.numpy(), want_gx, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(wt.grad.numpy(), (gy * xhat).sum(axis=axes), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(bt.grad.numpy(), gy.sum(axis=axes), rtol=1e-9, atol=1e-12)
    xt = _tensors(device, x, requires_grad=True)[0]
    rmt, rvt = _tensors(device, rm, rv)
    F.batch_norm(xt, rmt, rvt, wt, bt, eps=eps).backward(
        tinyffn.tensor(gy, device=device, dtype="float64"))
    np.testing.assert_allclose(xt.grad.numpy(), gy * (w / np.sqrt(rv + eps)).reshape(bc),
                               rtol=1e-12)


@pytest.mark.parametrize("shape", [(3, 2), (2, 2, 3), (2, 2, 2, 3)])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_is_gradchecked(shape, training, device):
    C = shape[1]
    x, w, b = _tensors(device, rng.standard_normal(shape), rng.standard_normal(C),
                       rng.standard_normal(C), requires_grad=True)
    rm, rv = _tensors(device, rng.standard_normal(C), rng.uniform(0.5, 2, C))
    stats = (None, None) if training else (rm, rv)
    assert tinyffn.gradcheck(lambda *a: F.batch_norm(a[0], *stats, a[1], a[2],
                                                     training=training), [x, w, b])


def test_batch_norm_with_a_strided_weight_has_the_closed_form_gradient():
    """A weight that is a strided view made a leaf (w = base[::2]), and a permuted input:
    x's gradient is the closed form's. PyTorch 2.13's CPU backward reads such a weight as if
    contiguous (base[0], base[1], ...) and gets x's gradient wrong (fuzzer seed 6021270;
    docs/api.md, batch_norm), so torch is asked with contiguous copies."""
    x, gy, base = rng.standard_normal((4, 3)), rng.standard_normal((4, 3)), rng.standard_normal(6)
    w = base[::2]
    xt = tinyffn.tensor(x, requires_grad=True)
    wt = tinyffn.tensor(base)[::2].requires_grad_()
    F.batch_norm(xt, None, None, wt, None, training=True).backward(tinyffn.tensor(gy))
    mean, var = x.mean(0), x.var(0)
    r = 1 / np.sqrt(var + 1e-5)
    xhat, g = (x - mean) * r, gy * w
    want = r * (g - g.mean(0) - xhat * (g * xhat).mean(0))
    np.testing.assert_allclose(xt.grad.numpy(), want, rtol=1e-9, atol=1e-12)
    # a permuted input (its gradient too was wrong in PyTorch, seed 6067108): the same
    xp = tinyffn.tensor(np.ascontiguousarray(x.T)).permute(1, 0).requires_grad_()
    F.batch_norm(xp, None, None, wt, None, training=True).backward(tinyffn.tensor(gy))
    np.testing.assert_allclose(xp.grad.numpy(), want, rtol=1e-9, atol=1e-12)
    torch = pytest.importorskip("torch")
    tx = torch.tensor(x, requires_grad=True)
    torch.nn.functional.batch_norm(tx, None, None, torch.tensor(w.copy()), None,
                                   training=True).backward(torch.tensor(gy))
    np.testing.assert_allclose(xt.grad.numpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_batch_norm_function_matches_torch():
    torch = pytest.importorskip("torch")
    for shape in SHAPES:
        C = shape[1]
        x, rm, rv = rng.standard_normal(shape), rng.standard_normal(C), rng.uniform(0.5, 2, C)
        for training, affine in [(True, True), (True, False), (False, True), (False, False)]:
            w, b = (rng.standard_normal(C), rng.standard_normal(C)) if affine else (None, None)
            ours = _tensors("cpu", x, rm, rv, w, b)
            theirs = [None if a is None else torch.tensor(a) for a in (x, rm, rv, w, b)]
            y = F.batch_norm(*ours, training=training, momentum=0.25, eps=1e-4)
            t = torch.nn.functional.batch_norm(*theirs, training=training, momentum=0.25,
                                               eps=1e-4)
            np.testing.assert_allclose(y.numpy(), t.numpy(), rtol=1e-10, atol=1e-12)
            for a, ta in zip(ours[1:3], theirs[1:3]):
                np.testing.assert_allclose(a.numpy(), ta.numpy(), rtol=1e-12, atol=1e-14)


# ----------------------------------------------------------------------------- the modules
MODULE_CASES = [("BatchNorm1d", (6, 3), {}), ("BatchNorm1d", (4, 3, 5), {}),
                ("BatchNorm2d", (3, 3, 4, 2), {}),
                ("BatchNorm1d", (4, 3, 5), dict(momentum=None)),
                ("BatchNorm2d", (3, 3, 4, 2), dict(momentum=None, eps=1e-3)),
                ("BatchNorm1d", (6, 3), dict(affine=False)),
                ("BatchNorm2d", (3, 3, 4, 2), dict(momentum=0.5, affine=False)),
                ("BatchNorm1d", (4, 3, 5), dict(track_running_stats=False)),
                ("BatchNorm2d", (3, 3, 4, 2), dict(track_running_stats=False)),
                ("BatchNorm1d", (6, 3), dict(bias=False))]


@pytest.mark.parametrize("cls,shape,kw", MODULE_CASES)
def test_batchnorm_modules_match_torch_live(cls, shape, kw):
    """State copied from torch (random weight and bias), then five training steps and an
    eval step: outputs, input/weight/bias gradients and every buffer, float64."""
    torch = pytest.importorskip("torch")
    C = shape[1]
    theirs = getattr(torch.nn, cls)(C, **kw).double()
    with torch.no_grad():
        for p in theirs.parameters():
            p.copy_(torch.tensor(rng.standard_normal(C)))
    ours = getattr(nn, cls)(C, **kw).double()
    ours.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for step in range(6):
        if step == 5:
            ours.eval(), theirs.eval()
        x = rng.standard_normal(shape) * (step + 1) + step
        gy = rng.standard_normal(shape)
        xo = tinyffn.tensor(x, dtype="float64", requires_grad=True)
        xt = torch.tensor(x, requires_grad=True)
        yo, yt = ours(xo), theirs(xt)
        np.testing.assert_allclose(yo.numpy(), yt.detach().numpy(), rtol=1e-10, atol=1e-12)
        yo.backward(tinyffn.tensor(gy, dtype="float64"))
        yt.backward(torch.tensor(gy))
        np.testing.assert_allclose(xo.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-12)
        for (name, p), tp in zip(ours.named_parameters(), theirs.parameters()):
            np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-9,
                                       atol=1e-12, err_msg=name)
            p.grad, tp.grad = None, None
        sd, tsd = ours.state_dict(), theirs.state_dict()
        for k, v in tsd.items():
            np.testing.assert_allclose(sd[k].numpy(), v.numpy(), rtol=1e-12, atol=1e-14,
                                       err_msg=f"{k} after step {step}")
    if kw.get("track_running_stats", True):
        assert ours.num_batches_tracked.item() == 5
        assert dtype_name(ours.num_batches_tracked.dtype) == "int64"


# torch 2.13: BatchNorm1d(3).double(), weight [1.5, -0.5, 2], bias [0.1, 0.2, -0.3], one
# training step on x[n, c, l] = ((6n + 2c + l)^2 mod 7) / 2 with gy = cos(6n + 2c + l)
TORCH_Y = [[[-1.530657322, -0.5271758922], [-0.5944227956, 0.0745648243], [-1.425069684, 2.1751532667]], [[-0.5271758922, -1.530657322], [0.4090586342, -0.5944227956], [-1.425069684, -1.425069684]], [[2.4832683974, -0.5271758922], [0.7435524441, 0.4090586342], [2.1751532667, -1.425069684]], [[0.4763055377, 2.4832683974], [0.4090586342, 0.7435524441], [-3.2251811594, 2.1751532667]]]  # noqa: E501
TORCH_GX = [[[0.3821789994, -0.5679140198], [-0.2175292548, 0.3568589928], [-0.3232611453, 2.272748875]], [[0.2747454236, -0.111730036], [-0.1128497073, 0.1136085288], [-0.9908429561, 2.0459351196]], [[-0.0411875878, 0.1689313068], [-0.2064166321, 0.2980343801], [-2.1962858754, 1.0393522553]], [[-0.3545463921, 0.2495223059], [-0.4831892758, 0.2514829682], [-1.1808303691, -0.6668159041]]]  # noqa: E501
TORCH_GW = [0.16383815464385657, -1.7025581384818875, 0.960991899193194]
TORCH_GB = [6.654696913475248, -3.2253675219027422, -3.9702439315918037]
TORCH_RUNNING = ([0.08125, 0.08125, 0.13125], [0.9638392857142857, 0.9638392857142857,
                                               0.9352678571428572])
TORCH_EVAL_Y = [[[-0.0241395191, 0.7397959921], [-0.7772008384, -0.2679104976], [1.4966127779, 3.5646562769]], [[0.7397959921, -0.0241395191], [-0.0132653272, -0.7772008384], [1.4966127779, 1.4966127779]], [[3.0316025256, 0.7397959921], [0.2413798432, -0.0132653272], [3.5646562769, 1.4966127779]], [[1.5037315033, 3.0316025256], [-0.0132653272, 0.2413798432], [0.4625910283, 3.5646562769]]]  # noqa: E501


def test_batchnorm_gives_torchs_numbers_written_out(device):
    k = np.arange(24.0).reshape(4, 3, 2)
    x = tinyffn.tensor(k ** 2 % 7 / 2, dtype="float64", device=device, requires_grad=True)
    bn = nn.BatchNorm1d(3, dtype="float64", device=device)
    bn.load_state_dict({"weight": [1.5, -0.5, 2.0], "bias": [0.1, 0.2, -0.3]}, strict=False)
    y = bn(x)
    y.backward(tinyffn.tensor(np.cos(k), dtype="float64", device=device))
    np.testing.assert_allclose(y.numpy(), TORCH_Y, atol=2e-10)
    np.testing.assert_allclose(x.grad.numpy(), TORCH_GX, atol=2e-10)
    np.testing.assert_allclose(bn.weight.grad.numpy(), TORCH_GW, rtol=1e-12)
    np.testing.assert_allclose(bn.bias.grad.numpy(), TORCH_GB, rtol=1e-12)
    np.testing.assert_allclose(bn.running_mean.numpy(), TORCH_RUNNING[0], rtol=1e-12)
    np.testing.assert_allclose(bn.running_var.numpy(), TORCH_RUNNING[1], rtol=1e-12)
    # torch's CPU eval kernel is 3e-9 off the float64 formula at [1, 1, 0] (it gives
    # -0.0132653272, NumPy's (x - rm) / sqrt(rv + eps) * w + b -0.0132653302), hence atol
    np.testing.assert_allclose(bn.eval()(x).numpy(), TORCH_EVAL_Y, atol=5e-9)


def test_momentum_none_keeps_the_plain_mean_of_the_batches_statistics(device):
    bn = nn.BatchNorm2d(2, momentum=None, dtype="float64", device=device)
    xs = [rng.standard_normal((3, 2, 2, 2)) * s + s for s in (1, 2, 5, 0.5)]
    for x in xs:
        bn(tinyffn.tensor(x, dtype="float64", device=device))
    np.testing.assert_allclose(bn.running_mean.numpy(),
                               np.mean([x.mean(axis=(0, 2, 3)) for x in xs], axis=0), rtol=1e-12)
    np.testing.assert_allclose(bn.running_var.numpy(),              # unbiased, / (n - 1)
                               np.mean([x.var(axis=(0, 2, 3), ddof=1) for x in xs], axis=0),
                               rtol=1e-12)
    assert bn.num_batches_tracked.item() == 4


def test_eval_uses_the_running_statistics_unless_none_are_kept(device):
    x = tinyffn.tensor(rng.standard_normal((4, 2)) * 3 + 2, dtype="float64", device=device)
    tracked = nn.BatchNorm1d(2, dtype="float64", device=device).eval()
    np.testing.assert_allclose(tracked(x).numpy(), x.numpy() / np.sqrt(1 + 1e-5), rtol=1e-12)
    assert tracked.num_batches_tracked.item() == 0            # eval counts nothing
    free = nn.BatchNorm1d(2, track_running_stats=False, dtype="float64", device=device).eval()
    want = (x.numpy() - x.numpy().mean(0)) / np.sqrt(x.numpy().var(0) + 1e-5)
    np.testing.assert_allclose(free(x).numpy(), want, rtol=1e-10)
    assert free.running_mean is None and free.num_batches_tracked is None


def test_reset_running_stats_and_reset_parameters():
    bn = nn.BatchNorm1d(3)
    bn(tinyffn.randn(5, 3) * 4 + 1)
    with tinyffn.no_grad():
        bn.weight.fill_(2.0)
    keep = bn.running_mean
    bn.reset_running_stats()
    assert bn.running_mean is keep                            # in place, as PyTorch's
    assert bn.running_mean.tolist() == [0.0] * 3 and bn.running_var.tolist() == [1.0] * 3
    assert bn.num_batches_tracked.item() == 0 and bn.weight.tolist() == [2.0] * 3
    bn.reset_parameters()
    assert bn.weight.tolist() == [1.0] * 3 and bn.bias.tolist() == [0.0] * 3
    nn.BatchNorm1d(3, track_running_stats=False, affine=False).reset_parameters()   # no-op


def test_state_dict_round_trips_within_tinyffn_and_with_torch():
    bn = nn.BatchNorm2d(3)
    for _ in range(3):
        bn(tinyffn.randn(2, 3, 4, 4) * 2 + 1)
    sd = bn.state_dict()
    assert list(sd) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    assert dtype_name(sd["num_batches_tracked"].dtype) == "int64" and sd["num_batches_tracked"].item() == 3
    other = nn.BatchNorm2d(3)
    other.load_state_dict(sd)
    x = tinyffn.randn(2, 3, 4, 4)
    np.testing.assert_array_equal(other.eval()(x).numpy(), bn.eval()(x).numpy())
    torch = pytest.importorskip("torch")
    theirs = torch.nn.BatchNorm2d(3)
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in sd.items()})
    np.testing.assert_allclose(theirs.eval()(torch.tensor(x.numpy())).detach().numpy(),
                               bn(x).numpy(), rtol=1e-6, atol=1e-6)
    back = nn.BatchNorm2d(3)
    back.load_state_dict(theirs.state_dict())
    assert back.num_batches_tracked.item() == 3


def test_float16_is_normalised_in_float32():
    x = rng.standard_normal((8, 3)) * 100
    bn = nn.BatchNorm1d(3)                     # float32 running statistics, as torch's
    y = bn(tinyffn.tensor(x, dtype="float16"))
    assert dtype_name(y.dtype) == "float16" and dtype_name(bn.running_mean.dtype) == "float32"
    want = (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5)
    np.testing.assert_allclose(y.numpy().astype(float), want, atol=5e-3)


# ----------------------------------------------------------------------------- the graph
def test_batch_norm_is_composed_inside_a_function_scope():
    x = tinyffn.randn(4, 3, 2, requires_grad=True)
    bn = nn.BatchNorm1d(3)
    nodes = graph_nodes(bn(x))
    names = {node.name for node in nodes}
    assert names <= PRIMITIVE_NAMES and "mean" in names, names - PRIMITIVE_NAMES
    for node in nodes:
        assert node.scope[:2] == (Scope("module", "BatchNorm1d", bn),
                                  Scope("function", "batch_norm")), node.scope
    assert not bn.running_mean.requires_grad and bn.running_mean.grad_fn is None


# ----------------------------------------------------------------------------- update_bn
def _bn_net(lib):
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4, momentum=0.3),
                             lib.nn.ReLU(), lib.nn.Linear(4, 2), lib.nn.BatchNorm1d(2))


def test_update_bn_matches_torchs():
    torch = pytest.importorskip("torch")
    theirs, ours = _bn_net(torch), _bn_net(tinyffn)
    ours.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    batches = [(rng.standard_normal((5, 3)) * 2 + 1, rng.standard_normal(5)) for _ in range(4)]
    for model in (theirs, ours):            # stale statistics, to be replaced
        model(tinyffn.randn(5, 3) if model is ours else torch.randn(5, 3))
        model.eval()
    torch.optim.swa_utils.update_bn([[torch.tensor(x, dtype=torch.float32), y]
                                     for x, y in batches], theirs)
    swa_utils.update_bn([(tinyffn.tensor(x), y) for x, y in batches], ours)
    for k, v in theirs.state_dict().items():
        np.testing.assert_allclose(ours.state_dict()[k].numpy(), v.numpy(), rtol=1e-5,
                                   atol=1e-6, err_msg=k)
    assert not ours.training and not ours[1].training         # mode restored
    assert ours[1].momentum == 0.3 and ours[4].momentum == 0.1
    assert ours[1].num_batches_tracked.item() == 4


def test_update_bn_recomputes_the_mean_of_the_batches_statistics(device):
    """Without torch: a BatchNorm fed the loader's tensors directly ends with the plain
    mean of the batches' means and unbiased variances, whatever it held before."""
    bn = nn.BatchNorm1d(3, momentum=0.9, dtype="float64", device=device)
    bn(tinyffn.tensor(rng.standard_normal((4, 3)) + 50, dtype="float64", device=device))
    xs = [rng.standard_normal((6, 3)) * s for s in (1, 3, 0.5)]
    swa_utils.update_bn([tinyffn.tensor(x, dtype="float64") for x in xs], bn, device=device)
    np.testing.assert_allclose(bn.running_mean.numpy(), np.mean([x.mean(0) for x in xs], 0),
                               rtol=1e-12)
    np.testing.assert_allclose(bn.running_var.numpy(),
                               np.mean([x.var(0, ddof=1) for x in xs], 0), rtol=1e-12)
    assert bn.momentum == 0.9 and bn.training and bn.num_batches_tracked.item() == 3


def test_update_bn_restores_the_momenta_and_mode_when_the_loader_fails():
    net = _bn_net(tinyffn).eval()

    def loader():
        yield tinyffn.randn(5, 3)
        raise RuntimeError("disk gone")
    with pytest.raises(RuntimeError, match="disk gone"):
        swa_utils.update_bn(loader(), net)
    assert not net.training and net[1].momentum == 0.3 and net[4].momentum == 0.1


# ----------------------------------------------------------------------------- errors
def test_batchnorm_errors():
    bn = nn.BatchNorm1d(3)
    with pytest.raises(ValueError, match=r"BatchNorm1d: Expected more than 1 value per "
                                         r"channel when training, got input size \(1, 3\)"):
        bn(tinyffn.randn(1, 3))
    assert bn.num_batches_tracked.item() == 0                 # the count did not move
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        nn.BatchNorm2d(3)(tinyffn.randn(1, 3, 1, 1))
    assert bn.eval()(tinyffn.randn(1, 3)).shape == (1, 3)     # eval needs no batch
    with pytest.raises(ValueError, match=r"BatchNorm1d: expected 2-D \(N, C\) or 3-D \(N, C, "
                                         r"L\) input, got 4-D input of shape \(2, 3, 2, 2\)"):
        bn(tinyffn.randn(2, 3, 2, 2))
    with pytest.raises(ValueError, match=r"BatchNorm2d: expected 4-D \(N, C, H, W\) input"):
        nn.BatchNorm2d(3)(tinyffn.randn(2, 3, 4))
    with pytest.raises(ValueError, match=r"BatchNorm1d\(3\): input of shape \(4, 5\) has 5 "
                                         r"channels on axis 1, expected 3"):
        bn(tinyffn.randn(4, 5))
    with pytest.raises(TypeError, match="BatchNorm1d: input must be a tinyffn Tensor"):
        bn(np.ones((4, 3)))
    for kw, match in [(dict(num_features=0), "num_features must be a positive int"),
                      (dict(num_features=3, eps=-1), "eps must be a finite number >= 0"),
                      (dict(num_features=3, momentum=1.5), r"momentum must be a number in \[0, 1\]")]:
        with pytest.raises(ValueError, match=match):
            nn.BatchNorm1d(**kw)


def test_batch_norm_function_errors():
    x, c3 = tinyffn.randn(4, 3), tinyffn.zeros(3)
    cases = [
        (lambda: F.batch_norm(x, c3, None, training=True), ValueError,
         "running_mean and running_var must both be tensors or both be None"),
        (lambda: F.batch_norm(x, None, None), ValueError,
         "training=False normalises with running_mean and running_var, but they are None"),
        (lambda: F.batch_norm(x, tinyffn.zeros(4), tinyffn.ones(4)), ValueError,
         r"running_mean must have shape \(C,\) = \(3,\), one entry per channel of the input "
         r"\(4, 3\)"),
        (lambda: F.batch_norm(x, None, None, tinyffn.ones(2), training=True), ValueError,
         r"weight must have shape \(C,\) = \(3,\)"),
        # int running stats: the update 0.9 * 0 + 0.1 * mean would be cut to 0 in silence
        (lambda: F.batch_norm(x, tinyffn.zeros(3, dtype="int64"),
                              tinyffn.ones(3, dtype="int64"), training=True), TypeError,
         r"batch_norm: running_mean must be a float tensor, got int64; make it with dtype= "
         r"the input's \(float32\)"),
        (lambda: F.batch_norm(x, c3, tinyffn.ones(3), training=True, momentum=None), TypeError,
         "momentum must be a number; the modules' momentum=None"),
        (lambda: F.batch_norm(x, None, None, training=True, eps=0.0), ValueError,
         "eps must be a finite number, positive in training"),
        (lambda: F.batch_norm(tinyffn.randn(3), None, None, training=True), ValueError,
         r"input of shape \(3,\) has no channel axis"),
        (lambda: F.batch_norm(tinyffn.tensor([[1, 2], [3, 4]]), None, None, training=True),
         TypeError, "input has dtype int64"),
        (lambda: F.batch_norm(x.numpy(), None, None, training=True), TypeError,
         "batch_norm: input must be a tinyffn Tensor"),
        (lambda: F.batch_norm(tinyffn.randn(1, 3, 1), None, None, training=True), ValueError,
         r"batch_norm: Expected more than 1 value per channel when training, got input size "
         r"\(1, 3, 1\)"),
    ]
    for call, error, match in cases:
        with pytest.raises(error, match=match):
            call()
    assert F.batch_norm(x, c3, tinyffn.ones(3), eps=0.0).shape == (4, 3)   # eval: eps >= 0


def test_update_bn_refuses_a_model_that_is_not_a_module():
    with pytest.raises(TypeError, match="update_bn: model must be a tinyffn Module"):
        swa_utils.update_bn([], _bn_net)
