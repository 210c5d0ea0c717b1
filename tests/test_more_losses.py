"""gaussian_nll_loss, poisson_nll_loss, margin_ranking_loss, hinge_embedding_loss and
cosine_embedding_loss (tinyffn/more_losses.py) and their modules (tinyffn/loss_modules.py),
as PyTorch's.

Each case is one call, written once and run with the names of tinyffn and of torch
(tests/torch_parity.py): PyTorch 2.13 live where it is installed, and its values written
out in ``EXPECTED`` and ``EXPECTED_GRADS`` for every device. The inputs hold the edges:
variances of 0 and below eps (the straight-through clamp), every accepted var shape,
counts of 0, ½ and 1 (Stirling's mask), hinges exactly at their kinks, labels other
than ±1, a zero vector's cosine; every reduction.
"""
import math

import numpy as np
import pytest

import tinyffn
import tinyffn.nn as tnn
import torch_parity

X = [[0.3, -1.2, 2.0], [0.5, 0.0, -0.7]]
Y = [[1.0, 0.0, 2.5], [0.5, 3.0, -1.0]]
V = [[0.5, 1e-8, 2.0], [0.0, 1.0, 3.0]]             # 1e-8 and 0 are clamped to eps
CNT = [[0.0, 1.0, 2.0], [0.5, 3.0, 7.0]]            # counts; Stirling's term for y > 1
CNT_POS = [[0.2, 1.0, 2.0], [0.5, 3.0, 7.0]]        # > 0: the target's gradient is PyTorch's
RATE = [[0.3, 1.2, 2.0], [0.5, 0.0, 0.7]]           # λ, one of 0 (eps keeps log finite)
A1 = [0.3, -1.2, 2.0, 0.5, 1.0, 0.7]
A2 = [0.1, 0.3, 2.0, 0.7, -1.0, 0.2]                # A1 = A2 at 2.0: the kink for margin 0
T = [1.0, -1.0, 1.0, -1.0, 0.0, 1.0]
H = [0.3, -1.2, 2.0, 0.5, 1.0, 0.0]                 # 1.0 with y = -1: margin - x at 0
HT = [1.0, -1.0, -1.0, 0.0, -1.0, 1.0]
U = [[0.3, -1.2, 2.0], [0.5, 0.0, -0.7], [1.0, 2.0, 3.0], [0.2, 0.4, -0.1]]
W = [[0.1, 0.3, 2.0], [0.5, 0.1, 0.7], [1.0, 2.0, 3.0], [-0.3, 0.5, 0.8]]
CT = [1.0, -1.0, 0.0, -1.0]
UZ = [[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]]             # a zero row: cos 0 (PyTorch's 1e-12)
WZ = [[1.0, 2.0, 0.0], [0.0, 0.0, 0.0]]

FUNCTIONS = ["gaussian_nll_loss", "poisson_nll_loss", "margin_ranking_loss",
             "hinge_embedding_loss", "cosine_embedding_loss"]
CASES = [
    "gaussian_nll_loss(x, y, v)",
    "gaussian_nll_loss(x, y, v, reduction='sum')",
    "gaussian_nll_loss(x, y, v, reduction='none')",
    "gaussian_nll_loss(x, y, v, full=True, eps=1e-3, reduction='none')",
    "gaussian_nll_loss(x, y, v_row, reduction='none')",
    "gaussian_nll_loss(x, y, v_col, reduction='none')",
    "gaussian_nll_loss(x, y, v_axis0, reduction='none')",
    "gaussian_nll_loss(x, y_row, v, reduction='none')",
    "gaussian_nll_loss(x, y, 0.5, reduction='none')",
    "gaussian_nll_loss(x.float(), y.float(), v.float(), reduction='none')",
    "poisson_nll_loss(x, cnt)",
    "poisson_nll_loss(x, cnt, reduction='sum')",
    "poisson_nll_loss(x, cnt, reduction='none')",
    "poisson_nll_loss(x, cnt, full=True, reduction='none')",
    "poisson_nll_loss(rate, cnt, log_input=False, reduction='none')",
    "poisson_nll_loss(rate, cnt, False, True, eps=0.1, reduction='none')",
    "poisson_nll_loss(x.float(), cnt.float(), full=True)",
    "margin_ranking_loss(a1, a2, t)",
    "margin_ranking_loss(a1, a2, t, reduction='sum')",
    "margin_ranking_loss(a1, a2, t, reduction='none')",
    "margin_ranking_loss(a1, a2, t, margin=0.2, reduction='none')",
    "margin_ranking_loss(a1, one, t, 0.5, reduction='none')",
    "margin_ranking_loss(a1.float(), a2.float(), t.float(), margin=0.1)",
    "hinge_embedding_loss(h, ht)",
    "hinge_embedding_loss(h, ht, reduction='sum')",
    "hinge_embedding_loss(h, ht, reduction='none')",
    "hinge_embedding_loss(h, ht, margin=0.5, reduction='none')",
    "hinge_embedding_loss(h.float(), ht.float(), 2.0)",
    "cosine_embedding_loss(u, w, ct)",
    "cosine_embedding_loss(u, w, ct, reduction='sum')",
    "cosine_embedding_loss(u, w, ct, reduction='none')",
    "cosine_embedding_loss(u, w, ct, margin=0.5, reduction='none')",
    "cosine_embedding_loss(u[0], w[0], minus_one, margin=-0.5)",
    "cosine_embedding_loss(uz, wz, ct[1:3], reduction='none')",
    "cosine_embedding_loss(u.float(), w.float(), ct.float(), 0.1, reduction='none')",
]


def inputs_of(module, **tensor_kwargs):
    def t(values):
        return module.tensor(values, dtype=module.float64, **tensor_kwargs)
    return dict(x=t(X), y=t(Y), v=t(V), v_row=t([0.5, 1e-9]), v_col=t([[0.5], [1e-9]]),
                v_axis0=t([[0.5, 2.0, 0.0]]), y_row=t([Y[0]]), cnt=t(CNT), cnt_pos=t(CNT_POS),
                rate=t(RATE), a1=t(A1), a2=t(A2), t=t(T), one=t([1.0]), h=t(H), ht=t(HT),
                u=t(U), w=t(W), ct=t(CT), uz=t(UZ), wz=t(WZ), minus_one=t(-1.0))


def run(module, case: str, **tensor_kwargs):
    names = {name: getattr(module.nn.functional, name) for name in FUNCTIONS}
    return eval(case, {}, {**names, **inputs_of(module, **tensor_kwargs)})


plain = torch_parity.plain


def assert_same(actual, expected, case):
    """Equal dtypes and shapes, values to a few ulp (1e-15 absolute, for sums near 0)."""
    assert actual[0] == expected[0], f"{case}: dtype {actual[0]}, expected {expected[0]}"
    a, e = np.asarray(actual[1]), np.asarray(expected[1])
    assert a.shape == e.shape, f"{case}: shape {a.shape}, expected {e.shape}"
    eps = np.finfo(expected[0]).eps
    np.testing.assert_allclose(a, e, rtol=8 * eps, atol=eps if eps > 1e-10 else 1e-15,
                               err_msg=case)


# dL/d(wrt) of L = Σ loss · (1, 2, ...)/10. poisson_nll_loss(full=True)'s target gradient
# only where y > 0: at y = 0 PyTorch's is NaN, ours 0 (test_poisson_full_target_gradient)
GRAD_CASES = [
    ("gaussian_nll_loss(x, y, v, reduction='none')", "x"),
    ("gaussian_nll_loss(x, y, v, reduction='none')", "y"),
    ("gaussian_nll_loss(x, y, v, reduction='none')", "v"),
    ("gaussian_nll_loss(x, y, v, full=True, eps=1e-3)", "v"),
    ("gaussian_nll_loss(x, y, v_row, reduction='sum')", "v_row"),
    ("gaussian_nll_loss(x, y, v_axis0, reduction='none')", "v_axis0"),
    ("gaussian_nll_loss(x, y_row, v, reduction='none')", "y_row"),
    ("poisson_nll_loss(x, cnt, reduction='none')", "x"),
    ("poisson_nll_loss(x, cnt)", "cnt"),
    ("poisson_nll_loss(x, cnt_pos, full=True, reduction='none')", "cnt_pos"),
    ("poisson_nll_loss(rate, cnt, log_input=False, reduction='sum')", "rate"),
    ("margin_ranking_loss(a1, a2, t, reduction='none')", "a1"),
    ("margin_ranking_loss(a1, a2, t, margin=0.2)", "a2"),
    ("margin_ranking_loss(a1, a2, t, margin=0.2)", "t"),
    ("hinge_embedding_loss(h, ht, reduction='none')", "h"),
    ("hinge_embedding_loss(h, ht, margin=0.5, reduction='sum')", "h"),
    ("cosine_embedding_loss(u, w, ct, reduction='none')", "u"),
    ("cosine_embedding_loss(u, w, ct, margin=0.5)", "w"),
    ("cosine_embedding_loss(u, w, ct, margin=-0.5, reduction='sum')", "u"),
]


def grad_of(module, case: str, wrt: str, **tensor_kwargs):
    inputs = inputs_of(module, **tensor_kwargs)
    inputs[wrt].requires_grad_(True)
    names = {name: getattr(module.nn.functional, name) for name in FUNCTIONS}
    y = eval(case, {}, {**names, **inputs})
    return torch_parity.weighted_grad(module, y, inputs[wrt], **tensor_kwargs)


torch_parity.tests(globals())


# ----------------------------------------------------------------------------- gradcheck
F = tinyffn.nn.functional
GRADCHECKED = {     # every float input, away from the kinks and the clamp
    "gaussian_nll": lambda x, y, w: F.gaussian_nll_loss(x, y, w * w + 0.1),
    "gaussian_nll row var full": lambda x, y, w: F.gaussian_nll_loss(
        x, y * w, (y * y)[:, 0] + 0.2, full=True, reduction="none"),
    "gaussian_nll per-row var": lambda x, y, w: F.gaussian_nll_loss(
        x.T, y.T, w.T * w.T + 0.1, reduction="sum"),
    "poisson_nll": lambda x, y, w: F.poisson_nll_loss(x * w, y),
    "poisson_nll rate full": lambda x, y, w: F.poisson_nll_loss(
        x * x + 0.1, y * 3 + 1.5, log_input=False, full=True, reduction="none"),
    "margin_ranking": lambda x, y, w: F.margin_ranking_loss(x[0], y[0], w[0], margin=0.3,
                                                            reduction="none"),
    "hinge_embedding": lambda x, y, w: F.hinge_embedding_loss(
        x * w, tinyffn.tensor([[1.0, -1.0, -1.0], [-1.0, 1.0, 0.0]], dtype="float64",
                              device=x.device), margin=2.0, reduction="sum"),
    "cosine_embedding": lambda x, y, w: F.cosine_embedding_loss(
        x, y * w, tinyffn.tensor([1.0, -1.0], dtype="float64", device=x.device),
        margin=-0.5, reduction="none"),
}


@pytest.mark.parametrize("name", GRADCHECKED)
def test_gradcheck(name, device):
    x = tinyffn.tensor([[1.3, -0.4, 0.05], [-2.2, 0.9, 3.1]], dtype="float64", device=device,
                       requires_grad=True)
    y = tinyffn.tensor([[0.2, 0.97, 0.01], [0.5, 0.9, 0.33]], dtype="float64", device=device,
                       requires_grad=True)
    w = tinyffn.tensor([[1.5, 0.5, 2.0]], dtype="float64", device=device, requires_grad=True)
    assert tinyffn.gradcheck(GRADCHECKED[name], [x, y, w])


def test_gaussian_var_clamp_is_straight_through(device):
    """var below eps: the value uses eps exactly, the gradient is the slope at eps,
    ½ (1/eps - d²/eps²), not 0 (a plain clamp would give 0). Written by hand."""
    eps = 1e-3
    x = tinyffn.tensor([0.1, 0.0], dtype="float64", device=device)
    var = tinyffn.tensor([1e-5, 0.0], dtype="float64", device=device, requires_grad=True)
    loss = F.gaussian_nll_loss(x, tinyffn.zeros(2, dtype="float64", device=device), var,
                               eps=eps, reduction="none")
    assert loss.tolist() == pytest.approx([0.5 * (math.log(eps) + 0.01 / eps),
                                           0.5 * math.log(eps)], rel=1e-15)
    loss.sum().backward()
    np.testing.assert_allclose(var.grad.numpy(), [0.5 * (1 / eps - 0.01 / eps ** 2),
                                                  0.5 / eps], rtol=1e-13)


def test_gaussian_infinite_var_is_kept():
    """An infinite variance is above eps: loss inf (log inf), as PyTorch's, not NaN."""
    x = tinyffn.tensor([0.5])
    assert F.gaussian_nll_loss(x, x * 0, tinyffn.tensor([math.inf])).item() == math.inf


def test_poisson_full_target_gradient_is_zero_where_stirling_is_masked(device):
    """Stirling's term is 0 where y <= 1, so it adds no slope there: the target's gradient
    is -x alone (PyTorch's is NaN at y = 0: 0 · log 0 in its backward)."""
    x = tinyffn.tensor([0.3, -0.5, 1.0], dtype="float64", device=device)
    y = tinyffn.tensor([0.0, 0.5, 1.0], dtype="float64", device=device, requires_grad=True)
    F.poisson_nll_loss(x, y, full=True, reduction="sum").backward()
    assert y.grad.tolist() == [-0.3, 0.5, -1.0]


def test_cosine_gradient_at_a_zero_row(device):
    """A zero x1 row: c = 0, and dc/dx1 = x2 / sqrt(1e-12 (|x2|² + 1e-12)), the exact
    derivative (PyTorch 2.13's differs from it by 2e-9 relative: 447213.5963934 for
    447213.5954999). Here y = -1 and margin 0 puts c - margin at the clamp's kink,
    where the gradient passes, as PyTorch's clamp."""
    x1 = tinyffn.tensor([[0.0, 0.0, 0.0]], dtype="float64", device=device, requires_grad=True)
    x2 = tinyffn.tensor([[1.0, 2.0, 0.0]], dtype="float64", device=device)
    loss = F.cosine_embedding_loss(x1, x2, tinyffn.tensor([-1.0], dtype="float64",
                                                          device=device), reduction="sum")
    assert loss.item() == 0.0
    loss.backward()
    scale = 1 / math.sqrt(1e-12 * (5 + 1e-12))
    np.testing.assert_allclose(x1.grad.numpy(), [[scale, 2 * scale, 0.0]], rtol=1e-14)


# ----------------------------------------------------------------------------- modules
def test_modules_call_their_functions_with_their_options():
    torch = pytest.importorskip("torch")
    x, y, v = np.array(X), np.array(Y), np.array(V)
    a1, a2, t = np.array(A1), np.array(A2), np.array(T)
    u, w, ct = np.array(U), np.array(W), np.array(CT)
    pairs = [
        (tnn.GaussianNLLLoss(full=True, eps=1e-2, reduction="none"),
         torch.nn.GaussianNLLLoss(full=True, eps=1e-2, reduction="none"), (x, y, v)),
        (tnn.PoissonNLLLoss(False, True, eps=0.1, reduction="sum"),
         torch.nn.PoissonNLLLoss(False, True, eps=0.1, reduction="sum"),
         (np.array(RATE), np.array(CNT))),
        (tnn.MarginRankingLoss(0.3, reduction="none"),
         torch.nn.MarginRankingLoss(0.3, reduction="none"), (a1, a2, t)),
        (tnn.HingeEmbeddingLoss(0.5), torch.nn.HingeEmbeddingLoss(0.5), (np.array(H),
                                                                         np.array(HT))),
        (tnn.CosineEmbeddingLoss(0.2, reduction="sum"),
         torch.nn.CosineEmbeddingLoss(0.2, reduction="sum"), (u, w, ct)),
    ]
    for ours, theirs, args in pairs:
        got = ours(*map(tinyffn.tensor, args)).numpy()
        np.testing.assert_allclose(got, theirs(*map(torch.tensor, args)).numpy(),
                                   rtol=1e-13, err_msg=type(ours).__name__)


def test_module_defaults_and_reprs_are_pytorchs():
    assert repr(tnn.GaussianNLLLoss()) == "GaussianNLLLoss(full=False, eps=1e-06, reduction='mean')"
    assert repr(tnn.PoissonNLLLoss()) == ("PoissonNLLLoss(log_input=True, full=False, "
                                          "eps=1e-08, reduction='mean')")
    assert tnn.MarginRankingLoss().margin == 0.0 and tnn.CosineEmbeddingLoss().margin == 0.0
    assert repr(tnn.HingeEmbeddingLoss()) == "HingeEmbeddingLoss(margin=1.0, reduction='mean')"
    assert not isinstance(tnn.CosineEmbeddingLoss(), tnn.MarginRankingLoss)


# ----------------------------------------------------------------------------- errors
def _t(values, device):
    return tinyffn.tensor(values, device=device)


ERRORS = [
    (lambda x, d: F.gaussian_nll_loss(x, x, -1.0), ValueError,
     r"gaussian_nll_loss: var must be >= 0 \(a variance\), got -1\.0"),
    (lambda x, d: F.gaussian_nll_loss(x, x, x - 10), ValueError,
     r"gaussian_nll_loss: var has negative entries \(down to -12\.\d+"),
    (lambda x, d: F.gaussian_nll_loss(x, x, x[0].abs()), ValueError,
     r"gaussian_nll_loss: var of shape \(3,\) does not fit input's shape \(2, 3\)"),
    (lambda x, d: F.gaussian_nll_loss(x, x, x[:, :2] * 0 + 1), ValueError,
     r"gaussian_nll_loss: var of shape \(2, 2\) does not fit"),
    (lambda x, d: F.gaussian_nll_loss(x, x[0, :2], 1.0), ValueError,
     r"gaussian_nll_loss: shapes \(1, 2\) and \(2, 3\) cannot be broadcast"),
    (lambda x, d: F.gaussian_nll_loss(x, x[:1].expand(3, 3), 1.0), ValueError,
     r"gaussian_nll_loss: .*cannot be broadcast"),
    (lambda x, d: F.gaussian_nll_loss(x, x, 1.0, reduction="avg"), ValueError,
     r"gaussian_nll_loss: unknown reduction='avg'"),
    (lambda x, d: F.gaussian_nll_loss(x, x, [1.0]), TypeError,
     r"gaussian_nll_loss: var must be a tinyffn Tensor or a number, got list"),
    (lambda x, d: F.gaussian_nll_loss(x, x, 1.0, full=1), TypeError,
     r"gaussian_nll_loss: full must be True or False"),
    (lambda x, d: F.gaussian_nll_loss(x.long(), x, 1.0), TypeError,
     r"gaussian_nll_loss: input must be floating point"),
    (lambda x, d: F.poisson_nll_loss(x, x[0]), ValueError,
     r"poisson_nll_loss: input has shape \(2, 3\) but target has shape \(3,\)"),
    (lambda x, d: F.poisson_nll_loss(x, x, True, False, True), TypeError,
     r"poisson_nll_loss: size_average and reduce are PyTorch's deprecated arguments"),
    (lambda x, d: F.poisson_nll_loss(x, x, log_input="yes"), TypeError,
     r"poisson_nll_loss: log_input must be True or False"),
    (lambda x, d: F.poisson_nll_loss(x, x, reduction="batchmean"), ValueError,
     r"poisson_nll_loss: unknown reduction='batchmean'"),
    (lambda x, d: F.margin_ranking_loss(x[0], x[1], x), ValueError,
     r"margin_ranking_loss: input1, input2 and target must have the same number of axes, "
     r"got shapes \(3,\), \(3,\) and \(2, 3\)"),
    (lambda x, d: F.margin_ranking_loss(x[0], x[1, :2], x[0]), ValueError,
     r"margin_ranking_loss: shapes \(3,\) and \(2,\) cannot be broadcast"),
    (lambda x, d: F.margin_ranking_loss(x[0], x[1], x[0], "sum"), TypeError,
     r"margin_ranking_loss: margin must be a number, got 'sum'; .*reduction='sum'"),
    (lambda x, d: F.hinge_embedding_loss(x, x[0]), ValueError,
     r"hinge_embedding_loss: input has shape \(2, 3\) but target has shape \(3,\)"),
    (lambda x, d: F.hinge_embedding_loss(x, x, reduce=False), TypeError,
     r"hinge_embedding_loss: size_average and reduce"),
    (lambda x, d: F.cosine_embedding_loss(x, x, x), ValueError,
     r"cosine_embedding_loss: target must be 0-d .* got shape \(2, 3\)"),
    (lambda x, d: F.cosine_embedding_loss(x, x, _t([1.0, -1.0, 1.0], d)), ValueError,
     r"cosine_embedding_loss: input1 \(2, 3\) and input2 \(2, 3\) must be \(N, D\) for a "
     r"target \(N,\)"),
    (lambda x, d: F.cosine_embedding_loss(x, x[:, :2], _t([1.0, -1.0], d)), ValueError,
     r"cosine_embedding_loss: input1 \(2, 3\) and input2 \(2, 2\) must be"),
    (lambda x, d: F.cosine_embedding_loss(x[0], x[1], _t([1.0], d)), ValueError,
     r"cosine_embedding_loss: input1 \(3,\) .* a 0-d target; target has shape \(1,\)"),
    (lambda x, d: F.cosine_embedding_loss([1.0], x, x), TypeError,
     r"cosine_embedding_loss: input1 must be a tinyffn Tensor"),
    (lambda x, d: tnn.GaussianNLLLoss(eps=-1.0), ValueError,
     r"GaussianNLLLoss: eps must be a number >= 0"),
    (lambda x, d: tnn.PoissonNLLLoss(full=None), TypeError,
     r"PoissonNLLLoss: full must be True or False"),
    (lambda x, d: tnn.PoissonNLLLoss(reduction="avg"), ValueError,
     r"PoissonNLLLoss: unknown reduction='avg'"),
    (lambda x, d: tnn.MarginRankingLoss(size_average=True), TypeError,
     r"MarginRankingLoss: size_average and reduce"),
    (lambda x, d: tnn.HingeEmbeddingLoss("sum"), TypeError,
     r"HingeEmbeddingLoss: margin must be a number, got 'sum'"),
    (lambda x, d: tnn.CosineEmbeddingLoss(reduction=None), TypeError,
     r"CosineEmbeddingLoss: reduction must be one of"),
]


@pytest.mark.parametrize("call, error, message", ERRORS)
def test_errors_name_the_op_and_the_shapes(call, error, message, device):
    x = tinyffn.tensor([[1.3, -0.4, 0.05], [-2.2, 0.9, 3.1]], device=device)
    with pytest.raises(error, match=message):
        call(x, device)


def test_var_on_another_device_is_refused():
    pytest.importorskip("array_api_strict")
    x = tinyffn.tensor([1.0, 2.0])
    with pytest.raises(tinyffn.backend.DeviceError, match=r"gaussian_nll_loss: var is on"):
        F.gaussian_nll_loss(x, x, tinyffn.tensor([1.0, 1.0], device="strict"))


EXPECTED = {
    'gaussian_nll_loss(x, y, v)': ('float64', 119998.6335492644),
    "gaussian_nll_loss(x, y, v, reduction='sum')": ('float64', 719991.8012955864),
    "gaussian_nll_loss(x, y, v, reduction='none')": ('float64', [[0.1434264097200273, 719993.092244721, 0.40907359027997264], [-6.907755278982137, 4.5, 0.5643061443340549]]),
    "gaussian_nll_loss(x, y, v, full=True, eps=1e-3, reduction='none')": ('float64', [[1.0623649429247, 717.4650608937136, 1.3280121234846454], [-2.5349391062863957, 5.418938533204672, 1.4832446775387276]]),
    "gaussian_nll_loss(x, y, v_row, reduction='none')": ('float64', [[0.1434264097200273, 1.0934264097200272, -0.09657359027997264], [-6.907755278982137, 4499993.092244721, 44993.09224472103]]),
    "gaussian_nll_loss(x, y, v_col, reduction='none')": ('float64', [[0.1434264097200273, 1.0934264097200272, -0.09657359027997264], [-6.907755278982137, 4499993.092244721, 44993.09224472103]]),
    "gaussian_nll_loss(x, y, v_axis0, reduction='none')": ('float64', [[0.1434264097200273, 0.7065735902799726, 124993.09224472102], [-0.34657359027997264, 2.5965735902799727, 44993.09224472103]]),
    "gaussian_nll_loss(x, y_row, v, reduction='none')": ('float64', [[0.1434264097200273, 719993.092244721, 0.40907359027997264], [124993.09224472102, 0.0, 2.255972811000722]]),
    "gaussian_nll_loss(x, y, 0.5, reduction='none')": ('float64', [[0.1434264097200273, 1.0934264097200272, -0.09657359027997264], [-0.34657359027997264, 8.653426409720028, -0.2565735902799726]]),
    "gaussian_nll_loss(x.float(), y.float(), v.float(), reduction='none')": ('float32', [[0.14342638850212097, 719993.0625, 0.4090735912322998], [-6.907755374908447, 4.5, 0.5643061399459839]]),
    'poisson_nll_loss(x, cnt)': ('float64', 2.3392359488183985),
    "poisson_nll_loss(x, cnt, reduction='sum')": ('float64', 14.03541569291039),
    "poisson_nll_loss(x, cnt, reduction='none')": ('float64', [[1.3498588075760032, 1.5011942119122021, 3.3890560989306504], [1.3987212707001282, 1.0, 5.396585303791409]]),
    "poisson_nll_loss(x, cnt, full=True, reduction='none')": ('float64', [[1.3498588075760032, 1.5011942119122021, 4.040862583535186], [1.3987212707001282, 2.764081543543057, 13.909849954910932]]),
    "poisson_nll_loss(rate, cnt, log_input=False, reduction='none')": ('float64', [[0.3, 1.0176784348727121, 0.6137056288801095], [0.8465735802799728, 55.2620422318571, 3.196724507571127]]),
    "poisson_nll_loss(rate, cnt, False, True, eps=0.1, reduction='none')": ('float64', [[0.3, 0.9376357355325089, 1.1679317951457813], [0.7554128118829954, 8.671836822525194, 10.775269510318992]]),
    'poisson_nll_loss(x.float(), cnt.float(), full=True)': ('float32', 4.16076135635376),
    'margin_ranking_loss(a1, a2, t)': ('float64', 0.0),
    "margin_ranking_loss(a1, a2, t, reduction='sum')": ('float64', 0.0),
    "margin_ranking_loss(a1, a2, t, reduction='none')": ('float64', [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    "margin_ranking_loss(a1, a2, t, margin=0.2, reduction='none')": ('float64', [2.7755575615628914e-17, 0.0, 0.2, 5.551115123125783e-17, 0.2, 0.0]),
    "margin_ranking_loss(a1, one, t, 0.5, reduction='none')": ('float64', [1.2, 0.0, 0.0, 0.0, 0.5, 0.8]),
    'margin_ranking_loss(a1.float(), a2.float(), t.float(), margin=0.1)': ('float32', 0.03333333507180214),
    'hinge_embedding_loss(h, ht)': ('float64', 0.5833333333333334),
    "hinge_embedding_loss(h, ht, reduction='sum')": ('float64', 3.5),
    "hinge_embedding_loss(h, ht, reduction='none')": ('float64', [0.3, 2.2, 0.0, 1.0, 0.0, 0.0]),
    "hinge_embedding_loss(h, ht, margin=0.5, reduction='none')": ('float64', [0.3, 1.7, 0.0, 0.5, 0.0, 0.0]),
    'hinge_embedding_loss(h.float(), ht.float(), 2.0)': ('float32', 1.0833333730697632),
    'cosine_embedding_loss(u, w, ct)': ('float64', 0.0903783745742759),
    "cosine_embedding_loss(u, w, ct, reduction='sum')": ('float64', 0.3615134982971036),
    "cosine_embedding_loss(u, w, ct, reduction='none')": ('float64', [0.22925348404426438, 0.0, 0.0, 0.13226001425283923]),
    "cosine_embedding_loss(u, w, ct, margin=0.5, reduction='none')": ('float64', [0.22925348404426438, 0.0, 0.0, 0.0]),
    'cosine_embedding_loss(u[0], w[0], minus_one, margin=-0.5)': ('float64', 1.2707465159557356),
    "cosine_embedding_loss(uz, wz, ct[1:3], reduction='none')": ('float64', [0.0, 0.0]),
    "cosine_embedding_loss(u.float(), w.float(), ct.float(), 0.1, reduction='none')": ('float32', [0.22925353050231934, 0.0, 0.0, 0.0322599932551384]),
}
EXPECTED_GRADS = {
    "gaussian_nll_loss(x, y, v, reduction='none') dx": ('float64', [[-0.13999999999999999, -240000.00000000003, -0.075], [0.0, -1.5, 0.060000000000000005]]),
    "gaussian_nll_loss(x, y, v, reduction='none') dy": ('float64', [[0.13999999999999999, 240000.00000000003, 0.075], [-0.0, 1.5, -0.060000000000000005]]),
    "gaussian_nll_loss(x, y, v, reduction='none') dv": ('float64', [[0.0020000000000000157, -143999900000.0, 0.065625], [200000.00000000003, -2.0, 0.09699999999999999]]),
    'gaussian_nll_loss(x, y, v, full=True, eps=1e-3) dv': ('float64', [[0.0003333333333333348, -11991.666666666666, 0.0036458333333333334], [8.333333333333334, -0.06666666666666667, 0.0026944444444444446]]),
    "gaussian_nll_loss(x, y, v_row, reduction='sum') dv_row": ('float64', [-0.1359999999999999, -454499850000.0]),
    "gaussian_nll_loss(x, y, v_axis0, reduction='none') dv_axis0": ('float64', [[0.402, -0.42350000000000004, -64499550000.00001]]),
    "gaussian_nll_loss(x, y_row, v, reduction='none') dy_row": ('float64', [[200000.14000000004, 240000.00000000003, 0.715]]),
    "poisson_nll_loss(x, cnt, reduction='none') dx": ('float64', [[0.13498588075760032, -0.13976115761755958, 1.616716829679195], [0.45948850828005133, -1.0, -3.9020488177251544]]),
    'poisson_nll_loss(x, cnt) dcnt': ('float64', [[-0.005, 0.02, -0.03333333333333333], [-0.008333333333333333, -0.0, 0.011666666666666665]]),
    "poisson_nll_loss(x, cnt_pos, full=True, reduction='none') dcnt_pos": ('float64', [[-0.03, 0.24, -0.3170558458320164], [-0.2, 0.6326394776673883, 1.6304032322903308]]),
    "poisson_nll_loss(rate, cnt, log_input=False, reduction='sum') drate": ('float64', [[0.1, 0.016666667361111095, 4.999999997368221e-10], [1.9999999711917127e-09, -29999999.900000002, -0.8999999857142861]]),
    "margin_ranking_loss(a1, a2, t, reduction='none') da1": ('float64', [-0.0, 0.0, -0.3, 0.0, -0.0, -0.0]),
    'margin_ranking_loss(a1, a2, t, margin=0.2) da2': ('float64', [0.016666666666666666, -0.0, 0.016666666666666666, -0.016666666666666666, 0.0, 0.0]),
    'margin_ranking_loss(a1, a2, t, margin=0.2) dt': ('float64', [-0.003333333333333333, 0.0, -0.0, 0.0033333333333333327, -0.03333333333333333, -0.0]),
    "hinge_embedding_loss(h, ht, reduction='none') dh": ('float64', [0.1, -0.2, 0.0, 0.0, -0.5, 0.6]),
    "hinge_embedding_loss(h, ht, margin=0.5, reduction='sum') dh": ('float64', [0.1, -0.1, 0.0, 0.0, 0.0, 0.1]),
    "cosine_embedding_loss(u, w, ct, reduction='none') du": ('float64', [[0.0020811382587106724, -0.02302544026015645, -0.014127434894907438], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [-0.3149047958398535, 0.34009717950778073, 0.7305791263488968]]),
    'cosine_embedding_loss(u, w, ct, margin=0.5) dw': ('float64', [[-0.0011051276720772725, 0.007710282402753502, -0.0011012859768115089], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, -0.0]]),
    "cosine_embedding_loss(u, w, ct, margin=-0.5, reduction='sum') du": ('float64', [[0.0020811382587106724, -0.02302544026015645, -0.014127434894907438], [0.08888282893360044, 0.01342312110426247, 0.06348773495263396], [0.0, 0.0, 0.0], [-0.07872619895996337, 0.08502429487694518, 0.1826447815872242]]),
}
