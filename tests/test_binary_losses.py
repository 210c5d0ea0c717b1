"""binary_cross_entropy(_with_logits), smooth_l1_loss and huber_loss
(tinyffn/binary_losses.py) and their modules (tinyffn/loss_modules.py), as PyTorch's; and
PyTorch 2.13's ``weight`` of huber_loss, mse_loss and l1_loss (tinyffn/losses.py).

Each case is one call, written once and run with the names of tinyffn and of torch
(tests/torch_parity.py): PyTorch 2.13 live where it is installed, and its values written
out in ``EXPECTED`` and ``EXPECTED_GRADS`` for every device. The inputs hold the edges:
logits of ±inf and ±50, targets 0, 1 and between, probabilities 0 and 1, differences at
0, at ±β and at ±inf; every reduction, ``weight`` and ``pos_weight``.
"""
import math
import warnings

import numpy as np
import pytest

import tinyffn
import tinyffn.nn as tnn
import torch_parity

inf, nan = math.inf, math.nan

Z = [-inf, -3.0, 0.0, 2.0, inf, 50.0, -50.0, 40.0, -40.0, 0.0, inf, -inf, 0.3]   # logits
Y = [0.0, 1.0, 0.5, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.25]            # targets
ZF = [-3.0, 0.0, 2.0, 50.0, -50.0, 0.3]                       # finite: for the gradients
YF = [1.0, 1.0, 0.0, 1.0, 0.0, 0.7]
P = [0.0, 1e-50, 0.3, 1.0, 1.0, 0.0, 0.999, 1e-5, 0.5]        # probabilities
Q = [0.0, 1.0, 0.5, 1.0, 0.0, 1.0, 0.2, 1.0, 0.5]
PF = [0.3, 0.999, 1e-5, 0.5, 0.9, 0.01]                        # p (1 - p) > 1e-12
QF = [0.5, 0.2, 1.0, 0.5, 0.0, 1.0]
D = [-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 0.7, -0.7, inf, -inf]   # input - 0
DF = [-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 0.7, -0.7, 0.3]

FUNCTIONS = ["binary_cross_entropy_with_logits", "binary_cross_entropy", "smooth_l1_loss",
             "huber_loss", "mse_loss", "l1_loss"]
WD = [1.0, 2.0, 0.5, 0.0, 1.5, 1.0, 3.0, 0.25, 2.0, 1.0]        # a weight per entry of DF
CASES = [
    "binary_cross_entropy_with_logits(z, y, reduction='none')",
    "binary_cross_entropy_with_logits(zf, yf)",
    "binary_cross_entropy_with_logits(zf, yf, reduction='sum')",
    "binary_cross_entropy_with_logits(z, y, reduction='none', pos_weight=pw)",
    "binary_cross_entropy_with_logits(z2, y2, reduction='none', pos_weight=pwc)",
    "binary_cross_entropy_with_logits(z2, y2, w2, pos_weight=pwc)",
    "binary_cross_entropy_with_logits(z2, y2, weight=wr, reduction='none')",
    "binary_cross_entropy_with_logits(z2.float(), y2.float(), reduction='none')",
    "binary_cross_entropy(p, q, reduction='none')",
    "binary_cross_entropy(pf, qf)",
    "binary_cross_entropy(pf, qf, reduction='sum')",
    "binary_cross_entropy(pf, qf, weight=wf, reduction='none')",
    "binary_cross_entropy(pf.float(), qf.float(), reduction='none')",
    "smooth_l1_loss(d, zero, reduction='none')",
    "smooth_l1_loss(d, zero, reduction='none', beta=0.7)",
    "smooth_l1_loss(d, zero, reduction='none', beta=0.0)",
    "smooth_l1_loss(df, zero_f)", "smooth_l1_loss(df, zero_f, reduction='sum', beta=2.0)",
    "huber_loss(d, zero, reduction='none')",
    "huber_loss(d, zero, reduction='none', delta=0.5)",
    "huber_loss(df, zero_f)", "huber_loss(df, zero_f, reduction='sum', delta=2.5)",
    "huber_loss(df.float(), zero_f.float(), delta=0.7)",
    # weight: mse_loss's and l1_loss's 'mean' divide by Σ w, huber_loss's by the count
    "mse_loss(df, zero_f, weight=wd)", "mse_loss(df, zero_f, reduction='sum', weight=wd)",
    "mse_loss(df, zero_f, reduction='none', weight=wd)", "mse_loss(df.float(), zero_f.float(), weight=wd)",
    "l1_loss(df, zero_f, weight=wd)", "l1_loss(df, zero_f, reduction='none', weight=wd)",
    "huber_loss(df, zero_f, weight=wd)", "huber_loss(df, zero_f, 'sum', 0.5, wd)",
    "huber_loss(df, zero_f, reduction='none', weight=wd)",
]


def inputs_of(module, **tensor_kwargs):
    def t(values):
        return module.tensor(values, dtype=module.float64, **tensor_kwargs)
    z2 = np.array(ZF[:4] * 3).reshape(3, 4)
    return dict(z=t(Z), y=t(Y), zf=t(ZF), yf=t(YF), p=t(P), q=t(Q), pf=t(PF), qf=t(QF), d=t(D),
                df=t(DF), zero=t([0.0] * len(D)), zero_f=t([0.0] * len(DF)), pw=t([3.0]),
                z2=t(z2.tolist()), y2=t([[1.0, 0.0, 0.5, 1.0]] * 3),
                pwc=t([0.5, 2.0, 1.0, 4.0]), w2=t([[1.0], [0.5], [2.0]]), wr=t([0.0, 1.0, 2.0, 3.0]),
                wf=t([1.0, 2.0, 0.5, 0.0, 1.5, 1.0]), wd=t(WD))


def run(module, case: str, **tensor_kwargs):
    names = {name: getattr(module.nn.functional, name) for name in FUNCTIONS}
    return eval(case, {}, {**names, **inputs_of(module, **tensor_kwargs)})


plain = torch_parity.plain


def assert_same(actual, expected, case):
    """Equal dtypes and shapes, values to a few ulp and 1e-16 absolute (a gradient of
    4e-18, σ(-40), may come out 0 on one side: both are within the rounding of 1)."""
    assert actual[0] == expected[0], f"{case}: dtype {actual[0]}, expected {expected[0]}"
    a, e = np.asarray(actual[1]), np.asarray(expected[1])
    assert a.shape == e.shape, f"{case}: shape {a.shape}, expected {e.shape}"
    eps = np.finfo(expected[0]).eps
    np.testing.assert_allclose(a, e, rtol=8 * eps, atol=eps * 1e-0 if eps > 1e-10 else 1e-16,
                               err_msg=case)


# dL/d(wrt) of L = Σ loss · (1, 2, ...)/10. binary_cross_entropy's gradient is compared
# where p (1 - p) > 1e-12 only: below, PyTorch's hand-written backward caps it (see
# test_bce_gradient_at_saturated_probabilities)
GRAD_CASES = [
    ("binary_cross_entropy_with_logits(z, y, reduction='none')", "z"),
    ("binary_cross_entropy_with_logits(zf, yf)", "zf"),
    ("binary_cross_entropy_with_logits(zf, yf)", "yf"),
    ("binary_cross_entropy_with_logits(z2, y2, w2, pos_weight=pwc)", "z2"),
    ("binary_cross_entropy_with_logits(z2, y2, reduction='none', pos_weight=pwc)", "y2"),
    ("binary_cross_entropy(pf, qf)", "pf"), ("binary_cross_entropy(pf, qf)", "qf"),
    ("binary_cross_entropy(pf, qf, weight=wf, reduction='none')", "pf"),
    ("smooth_l1_loss(d, zero, reduction='none')", "d"),
    ("smooth_l1_loss(d, zero, reduction='none', beta=0.7)", "d"),
    ("smooth_l1_loss(d, zero, reduction='none', beta=0.0)", "d"),
    ("smooth_l1_loss(df, zero_f)", "zero_f"),
    ("huber_loss(d, zero, reduction='none', delta=0.5)", "d"),
    ("huber_loss(df, zero_f, reduction='sum', delta=2.5)", "df"),
    ("mse_loss(df, zero_f, weight=wd)", "df"), ("mse_loss(df, zero_f, weight=wd)", "wd"),
    ("l1_loss(df, zero_f, weight=wd)", "wd"), ("huber_loss(df, zero_f, weight=wd)", "wd"),
]


def grad_of(module, case: str, wrt: str, **tensor_kwargs):
    inputs = inputs_of(module, **tensor_kwargs)
    inputs[wrt].requires_grad_(True)
    names = {name: getattr(module.nn.functional, name) for name in FUNCTIONS}
    y = eval(case, {}, {**names, **inputs})
    return torch_parity.weighted_grad(module, y, inputs[wrt], **tensor_kwargs)


torch_parity.tests(     # ±inf logits: inf - inf and 0 · inf, NaN as in PyTorch
    globals(), marks=[pytest.mark.filterwarnings("ignore::RuntimeWarning")])


# ----------------------------------------------------------------------------- gradcheck
F = tinyffn.nn.functional
GRADCHECKED = {
    "bce_with_logits": lambda x, y, w: F.binary_cross_entropy_with_logits(x, y, w),
    "bce_with_logits pos_weight": lambda x, y, w: F.binary_cross_entropy_with_logits(
        x, y, reduction="sum", pos_weight=w[0] * 3),
    "bce": lambda x, y, w: F.binary_cross_entropy(x.sigmoid(), y, w, reduction="none"),
    "smooth_l1": lambda x, y, w: F.smooth_l1_loss(x, y * 2, beta=0.8),
    "smooth_l1 beta 0": lambda x, y, w: F.smooth_l1_loss(x, y, "sum", beta=0.0),
    "huber": lambda x, y, w: F.huber_loss(x * w, y, "none", delta=0.6),
    "huber weight": lambda x, y, w: F.huber_loss(x, y, delta=0.6, weight=w.expand(2, 3)),
    "mse weight": lambda x, y, w: F.mse_loss(x, y, weight=w.expand(2, 3)),
    "l1 weight": lambda x, y, w: F.l1_loss(x, y, weight=w.expand(2, 3)),
}


@pytest.mark.parametrize("name", GRADCHECKED)
def test_gradcheck(name, device):
    """Every float input: logits or predictions, targets, weights; away from the kinks."""
    x = tinyffn.tensor([[1.3, -0.4, 0.05], [-2.2, 0.9, 3.1]], dtype="float64", device=device,
                       requires_grad=True)
    y = tinyffn.tensor([[0.2, 0.97, 0.01], [0.5, 0.9, 0.33]], dtype="float64", device=device,
                       requires_grad=True)
    w = tinyffn.tensor([[1.5, 0.5, 2.0]], dtype="float64", device=device, requires_grad=True)
    assert tinyffn.gradcheck(GRADCHECKED[name], [x, y, w])


def test_bce_with_logits_slope_at_zero_is_sigmoid_minus_target(device):
    """log σ written with abs and relu would have slope 0 at x = 0 (their kinks); the
    gradient there must be σ(0) - y = 0.5 - y."""
    x = tinyffn.zeros(3, dtype="float64", device=device, requires_grad=True)
    y = tinyffn.tensor([0.0, 1.0, 0.25], dtype="float64", device=device)
    F.binary_cross_entropy_with_logits(x, y, reduction="sum").backward()
    assert x.grad.tolist() == [0.5, -0.5, 0.25]


def test_bce_gradient_at_saturated_probabilities(device):
    """Where p (1 - p) < 1e-12 the gradient is the derivative of the clamped loss, not
    PyTorch's capped w (p - y) / max(p (1 - p), 1e-12): -y/p + (1 - y)/(1 - p) while no
    log is clamped, 0 for a clamped log's part. Values written by hand."""
    p = tinyffn.tensor([0.0, 0.0, 1.0, 1.0, 1e-20, 1e-50], dtype="float64", device=device,
                       requires_grad=True)
    y = tinyffn.tensor([0.0, 1.0, 1.0, 0.0, 1.0, 1.0], dtype="float64", device=device)
    loss = F.binary_cross_entropy(p, y, reduction="none")
    assert loss.tolist() == [0.0, 100.0, 0.0, 100.0, pytest.approx(46.0517, rel=1e-5), 100.0]
    loss.sum().backward()
    np.testing.assert_allclose(p.grad.numpy(), [1.0, 0.0, -1.0, 0.0, -1e20, 0.0], rtol=1e-12)


def test_bce_of_a_saturated_sigmoid_is_finite(device):
    """float32 sigmoid(20) is exactly 1.0: the loss is clamped at 100 and the gradient
    finite (log's backward never sees 0 / 0)."""
    x = tinyffn.tensor([20.0, -120.0], device=device, requires_grad=True)
    loss = F.binary_cross_entropy(x.sigmoid(), tinyffn.tensor([0.0, 1.0], device=device))
    assert loss.item() == 100.0
    loss.backward()
    assert np.isfinite(x.grad.numpy()).all()


def test_smooth_l1_and_huber_have_finite_gradients_at_infinite_differences(device):
    """The square's branch is not taken at |d| = inf; its operand is replaced by 0 first,
    so its zero gradient times inf does not make NaN. PyTorch: ±1 (smooth L1), ±δ (Huber)."""
    x = tinyffn.tensor([inf, -inf], dtype="float64", device=device, requires_grad=True)
    F.smooth_l1_loss(x, tinyffn.zeros(2, dtype="float64", device=device), "sum").backward()
    assert x.grad.tolist() == [1.0, -1.0]
    x.grad = None
    F.huber_loss(x, tinyffn.zeros(2, dtype="float64", device=device), "sum", 0.5).backward()
    assert x.grad.tolist() == [0.5, -0.5]


def test_smooth_l1_and_huber_second_derivative_at_zero_difference_is_the_squares(device):
    """Inside |d| < β the loss is 0.5 d² / β (Huber: 0.5 d²), so d²L/dx² is 1 / β (1) at
    d = 0 too. It was 0 there: the square was of |d|, whose derivative sign(d) is 0 at 0
    (fuzzer seed 6022704; PyTorch gives 1 / β)."""
    x = tinyffn.tensor([0.25, 0.0, -0.1, 2.0], dtype="float64", device=device,
                       requires_grad=True)
    zero = tinyffn.zeros(4, dtype="float64", device=device)
    for loss, curvature in [(lambda x: F.smooth_l1_loss(x, zero, "sum", beta=0.5), 2.0),
                            (lambda x: F.huber_loss(x, zero, "sum", delta=0.7), 1.0)]:
        (g,) = tinyffn.autograd.grad(loss(x), [x], create_graph=True)
        (h,) = tinyffn.autograd.grad(g.sum(), [x])        # the Hessian's diagonal
        assert h.tolist() == [curvature, curvature, curvature, 0.0]    # 2.0: on the line


def test_smooth_l1_and_huber_at_the_joint_take_the_line_as_pytorch(device):
    """At |d| = β the square and the line meet with one value and slope (±1 smooth L1,
    ±δ Huber), but the curvature is the line's, 0, as PyTorch's backward takes the line
    there (x > β, else x / β: its second derivative at ±β is 0, checked live)."""
    x = tinyffn.tensor([0.5, -0.5], dtype="float64", device=device, requires_grad=True)
    zero = tinyffn.zeros(2, dtype="float64", device=device)
    for loss, slope in [(lambda x: F.smooth_l1_loss(x, zero, "sum", beta=0.5), 1.0),
                        (lambda x: F.huber_loss(x, zero, "sum", delta=0.5), 0.5)]:
        (g,) = tinyffn.autograd.grad(loss(x), [x], create_graph=True)
        (h,) = tinyffn.autograd.grad(g.sum(), [x])
        assert g.tolist() == [slope, -slope] and h.tolist() == [0.0, 0.0]


def test_smooth_l1_with_beta_0_is_l1_loss_with_no_division_by_zero(device):
    """β = 0 has no square at all: the loss is |d|, computed as l1_loss (PyTorch does the
    same); the square's branch would divide by β = 0 (a warning, and NaN in a graph)."""
    x = tinyffn.tensor([0.5, -2.0, 0.0], dtype="float64", device=device, requires_grad=True)
    target = tinyffn.tensor([1.0, 1.0, 0.0], dtype="float64", device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loss = F.smooth_l1_loss(x, target, "sum", beta=0.0)
        loss.backward()
    assert loss.item() == 3.5 and x.grad.tolist() == [-1.0, -1.0, 0.0]


def test_weighted_mean_divides_by_the_weight_sum_except_in_huber(device):
    """PyTorch 2.13's weight: mse_loss's and l1_loss's 'mean' is Σ w L / Σ w, huber_loss's
    Σ w L / n (its source calls .mean()). By hand: d = (0.5, -1, 2), w = (1, 2, 0.5), Σ w
    = 3.5; Σ w d² = 4.25, Σ w |d| = 3.5, Σ w huber(d) = 0.125 + 1 + 0.75 over n = 3."""
    x = tinyffn.tensor([0.5, -1.0, 2.0], dtype="float64", device=device)
    zero, w = x.new_zeros(3), x.new_tensor([1.0, 2.0, 0.5])
    assert F.mse_loss(x, zero, weight=w).item() == 4.25 / 3.5
    assert F.l1_loss(x, zero, weight=w).item() == 1.0
    assert F.huber_loss(x, zero, weight=w).item() == 0.625
    assert F.mse_loss(x, zero, reduction="none", weight=w).tolist() == [0.25, 2.0, 2.0]


# ----------------------------------------------------------------------------- modules
def test_modules_call_their_functions_with_their_options():
    torch = pytest.importorskip("torch")
    x, y = np.array([[0.3, -1.2], [2.0, 0.1]]), np.array([[1.0, 0.0], [0.5, 1.0]])
    w, pw = np.array([2.0, 0.5]), np.array([3.0, 1.0])
    pairs = [
        (tnn.BCEWithLogitsLoss(tinyffn.tensor(w), "sum", pos_weight=tinyffn.tensor(pw)),
         torch.nn.BCEWithLogitsLoss(torch.tensor(w), reduction="sum", pos_weight=torch.tensor(pw))),
        (tnn.BCELoss(tinyffn.tensor(w), reduction="none"),
         torch.nn.BCELoss(torch.tensor(w), reduction="none")),
        (tnn.SmoothL1Loss(beta=0.5), torch.nn.SmoothL1Loss(beta=0.5)),
        (tnn.HuberLoss("sum", delta=0.3), torch.nn.HuberLoss("sum", delta=0.3)),
    ]
    for ours, theirs in pairs:
        xs = (1 / (1 + np.exp(-x))) if isinstance(ours, tnn.BCELoss) else x
        got = ours(tinyffn.tensor(xs), tinyffn.tensor(y)).numpy()
        np.testing.assert_allclose(got, theirs(torch.tensor(xs), torch.tensor(y)).numpy(),
                                   rtol=1e-13, err_msg=type(ours).__name__)


def test_loss_module_weights_are_buffers():
    m = tnn.BCEWithLogitsLoss(pos_weight=tinyffn.tensor([2.0, 1.0]))
    assert list(m.state_dict()) == ["pos_weight"] and m.weight is None
    assert "reduction='mean'" in repr(m) and "beta=0.5" in repr(tnn.SmoothL1Loss(beta=0.5))


# ----------------------------------------------------------------------------- errors
ERRORS = [
    (lambda x, t: F.binary_cross_entropy_with_logits(x, t[:, :2]), ValueError,
     r"binary_cross_entropy_with_logits: input has shape \(2, 3\) but target has shape \(2, 2\)"),
    (lambda x, t: F.binary_cross_entropy(x.sigmoid(), t.long()), TypeError,
     r"binary_cross_entropy: target must be floating point .* got int64.*target\.to\(dtype="),
    (lambda x, t: F.binary_cross_entropy_with_logits(x, t, reduction="avg"), ValueError,
     r"binary_cross_entropy_with_logits: unknown reduction='avg'; use one of"),
    (lambda x, t: F.binary_cross_entropy_with_logits(x, t, "sum"), TypeError,
     r"weight must be a Tensor or None, got 'sum'.*reduction='sum'"),
    (lambda x, t: F.binary_cross_entropy(x, t), ValueError,
     r"binary_cross_entropy: every entry of input must lie in \[0, 1\].*with_logits"),
    (lambda x, t: F.binary_cross_entropy(x.sigmoid(), t * 2), ValueError,
     r"binary_cross_entropy: every entry of target must lie in \[0, 1\]"),
    (lambda x, t: F.binary_cross_entropy_with_logits(x, t, pos_weight=x.new_ones(2)),
     ValueError, r"pos_weight of shape \(2,\) does not broadcast to input's shape \(2, 3\) "
                 r"\(one per class"),
    (lambda x, t: F.binary_cross_entropy(x.sigmoid(), t, weight=x.new_ones(2, 3, 1)),
     ValueError, r"binary_cross_entropy: weight of shape \(2, 3, 1\) does not broadcast"),
    (lambda x, t: F.binary_cross_entropy_with_logits(x.long(), t), TypeError,
     r"binary_cross_entropy_with_logits: input must be floating point, got int64"),
    (lambda x, t: F.smooth_l1_loss(x, t[0]), ValueError,
     r"smooth_l1_loss: input has shape \(2, 3\) but target has shape \(3,\)"),
    (lambda x, t: F.smooth_l1_loss(x, t, beta=-1.0), ValueError,
     r"smooth_l1_loss: beta must be a number >= 0"),
    (lambda x, t: F.huber_loss(x, t, delta=0.0), ValueError,
     r"huber_loss: delta must be a number > 0"),
    (lambda x, t: F.huber_loss(x, t, "mean_"), ValueError, r"huber_loss: unknown reduction='mean_'"),
    (lambda x, t: F.smooth_l1_loss([1.0], t), TypeError,
     r"smooth_l1_loss: input must be a tinyffn Tensor"),
    (lambda x, t: tnn.BCELoss("sum"), TypeError, r"BCELoss: weight must be a Tensor or None.*"
                                                 r"reduction='sum'"),
    (lambda x, t: tnn.BCEWithLogitsLoss(reduction="avg"), ValueError,
     r"BCEWithLogitsLoss: unknown reduction='avg'"),
    (lambda x, t: tnn.HuberLoss(delta=-1), ValueError, r"HuberLoss: delta must be a number > 0"),
    (lambda x, t: tnn.HuberLoss(delta=0), ValueError, r"HuberLoss: delta must be a number > 0"),
    (lambda x, t: tnn.SmoothL1Loss(beta=-1), ValueError, r"SmoothL1Loss: beta must be"),
    (lambda x, t: F.mse_loss(x, t, weight=x[0]), ValueError,     # PyTorch: no broadcasting
     r"mse_loss: weight has shape \(3,\) but input has shape \(2, 3\); .* same size"),
    (lambda x, t: F.huber_loss(x, t, weight=x[:, :1]), ValueError,
     r"huber_loss: weight has shape \(2, 1\) but input"),
]


@pytest.mark.parametrize("call, error, message", ERRORS)
def test_errors_name_the_op_and_the_shapes(call, error, message, device):
    x = tinyffn.tensor([[1.3, -0.4, 0.05], [-2.2, 0.9, 3.1]], device=device)
    t = tinyffn.tensor([[0.0, 1.0, 0.0], [0.5, 1.0, 0.25]], device=device)
    with pytest.raises(error, match=message):
        call(x, t)


@pytest.mark.parametrize("which", ["input", "target"])
def test_bce_refuses_nan_as_pytorch(which, device):
    """A NaN probability (a diverged model) is no entry of [0, 1]: PyTorch raises "all
    elements of input should be between 0 and 1". Let through, the clamped log would
    hide it as a loss of 100 with gradient 0."""
    p = tinyffn.tensor([0.5, 0.25], device=device)
    bad = tinyffn.tensor([0.5, nan], device=device)
    args = (bad, p) if which == "input" else (p, bad)
    with pytest.raises(ValueError, match=rf"binary_cross_entropy: every entry of {which} "
                                         r"must lie in \[0, 1\].*got NaN$"):
        F.binary_cross_entropy(*args)


def test_bool_targets_count_as_zero_and_one(device):
    x = tinyffn.tensor([0.3, -1.0], device=device)
    assert F.binary_cross_entropy_with_logits(x, x > 0).item() == pytest.approx(
        F.binary_cross_entropy_with_logits(x, tinyffn.tensor([1.0, 0.0], device=device)).item())


EXPECTED = {
    "binary_cross_entropy_with_logits(z, y, reduction='none')": ('float64', [nan, 3.048587351573742, 0.6931471805599453, 0.1269280110429725, nan, 50.0, 50.0, 4.248354255291589e-18, 0.0, 0.6931471805599453, inf, nan, 0.7793552444685271]),
    'binary_cross_entropy_with_logits(zf, yf)': ('float64', 1.0855029646075314),
    "binary_cross_entropy_with_logits(zf, yf, reduction='sum')": ('float64', 6.513017787645188),
    "binary_cross_entropy_with_logits(z, y, reduction='none', pos_weight=pw)": ('float64', [nan, 9.145762054721226, 1.3862943611198906, 0.3807840331289175, nan, 50.0, 150.0, 1.2745062765874767e-17, 0.0, 2.0794415416798357, inf, nan, 1.0565328667027907]),
    "binary_cross_entropy_with_logits(z2, y2, reduction='none', pos_weight=pwc)": ('float64', [[1.524293675786871, 0.6931471805599453, 1.1269280110429725, 7.714999391855671e-22], [1.524293675786871, 0.6931471805599453, 1.1269280110429725, 7.714999391855671e-22], [1.524293675786871, 0.6931471805599453, 1.1269280110429725, 7.714999391855671e-22]]),
    'binary_cross_entropy_with_logits(z2, y2, w2, pos_weight=pwc)': ('float64', 0.975440919655355),
    "binary_cross_entropy_with_logits(z2, y2, weight=wr, reduction='none')": ('float64', [[0.0, 0.6931471805599453, 2.253856022085945, 5.786249543891753e-22], [0.0, 0.6931471805599453, 2.253856022085945, 5.786249543891753e-22], [0.0, 0.6931471805599453, 2.253856022085945, 5.786249543891753e-22]]),
    "binary_cross_entropy_with_logits(z2.float(), y2.float(), reduction='none')": ('float32', [[3.0485873222351074, 0.6931471824645996, 1.1269279718399048, 1.9287498933537385e-22], [3.0485873222351074, 0.6931471824645996, 1.1269279718399048, 1.9287498933537385e-22], [3.0485873222351074, 0.6931471824645996, 1.1269279718399048, 1.9287498933537385e-22]]),
    "binary_cross_entropy(p, q, reduction='none')": ('float64', [0.0, 100.0, 0.7803238741323342, -0.0, 100.0, 100.0, 5.526404323252426, 11.512925464970229, 0.6931471805599453]),
    'binary_cross_entropy(pf, qf)': ('float64', 4.236759353649512),
    "binary_cross_entropy(pf, qf, reduction='sum')": ('float64', 25.420556121897068),
    "binary_cross_entropy(pf, qf, weight=wf, reduction='none')": ('float64', [0.7803238741323342, 11.052808646504852, 5.756462732485114, 0.0, 3.453877639491069, 4.605170185988091]),
    "binary_cross_entropy(pf.float(), qf.float(), reduction='none')": ('float32', [0.78032386302948, 5.52641487121582, 11.512925148010254, 0.6931471824645996, 2.3025848865509033, 4.605170249938965]),
    "smooth_l1_loss(d, zero, reduction='none')": ('float64', [1.5, 0.5, 0.125, 0.0, 0.125, 0.5, 2.5, 0.24499999999999997, 0.24499999999999997, inf, inf]),
    "smooth_l1_loss(d, zero, reduction='none', beta=0.7)": ('float64', [1.65, 0.65, 0.17857142857142858, 0.0, 0.17857142857142858, 0.65, 2.65, 0.35, 0.35, inf, inf]),
    "smooth_l1_loss(d, zero, reduction='none', beta=0.0)": ('float64', [2.0, 1.0, 0.5, 0.0, 0.5, 1.0, 3.0, 0.7, 0.7, inf, inf]),
    'smooth_l1_loss(df, zero_f)': ('float64', 0.5785),
    "smooth_l1_loss(df, zero_f, reduction='sum', beta=2.0)": ('float64', 3.8925),
    "huber_loss(d, zero, reduction='none')": ('float64', [1.5, 0.5, 0.125, 0.0, 0.125, 0.5, 2.5, 0.24499999999999997, 0.24499999999999997, inf, inf]),
    "huber_loss(d, zero, reduction='none', delta=0.5)": ('float64', [0.875, 0.375, 0.125, 0.0, 0.125, 0.375, 1.375, 0.22499999999999998, 0.22499999999999998, inf, inf]),
    'huber_loss(df, zero_f)': ('float64', 0.5785),
    "huber_loss(df, zero_f, reduction='sum', delta=2.5)": ('float64', 8.16),
    'huber_loss(df.float(), zero_f.float(), delta=0.7)': ('float32', 0.47049999237060547),
    'mse_loss(df, zero_f, weight=wd)': ('float64', 2.9136734693877555),
    "mse_loss(df, zero_f, reduction='sum', weight=wd)": ('float64', 35.6925),
    "mse_loss(df, zero_f, reduction='none', weight=wd)": ('float64', [4.0, 2.0, 0.125, 0.0, 0.375, 1.0, 27.0, 0.12249999999999998, 0.9799999999999999, 0.09]),
    'mse_loss(df.float(), zero_f.float(), weight=wd)': ('float64', 2.913673465957447),
    'l1_loss(df, zero_f, weight=wd)': ('float64', 1.3775510204081634),
    "l1_loss(df, zero_f, reduction='none', weight=wd)": ('float64', [2.0, 2.0, 0.25, 0.0, 0.75, 1.0, 9.0, 0.175, 1.4, 0.3]),
    'huber_loss(df, zero_f, weight=wd)': ('float64', 1.134625),
    "huber_loss(df, zero_f, 'sum', 0.5, wd)": ('float64', 6.9262500000000005),
    "huber_loss(df, zero_f, reduction='none', weight=wd)": ('float64', [1.5, 1.0, 0.0625, 0.0, 0.1875, 0.5, 7.5, 0.06124999999999999, 0.48999999999999994, 0.045]),
}
EXPECTED_GRADS = {
    "binary_cross_entropy_with_logits(z, y, reduction='none') dz": ('float64', [0.0, -0.19051482536448666, 0.0, -0.047681168808847076, 0.0, 0.6, -0.7, 0.0, 3.8235188297624304e-18, -0.5, 1.1, -1.2, 0.42177527185515673]),
    'binary_cross_entropy_with_logits(zf, yf) dzf': ('float64', [-0.015876235447040556, -0.008333333333333333, 0.014679951299631372, 0.0, 3.2145830799398636e-24, -0.002092624719805682]),
    'binary_cross_entropy_with_logits(zf, yf) dyf': ('float64', [0.05000000000000001, -0.0, -0.03333333333333333, -0.8333333333333334, 0.8333333333333334, -0.005]),
    'binary_cross_entropy_with_logits(z2, y2, w2, pos_weight=pwc) dz2': ('float64', [[-0.003969058861760139, 0.004166666666666667, 0.0031733089831490198, 0.0], [-0.0019845294308800695, 0.0020833333333333333, 0.0015866544915745099, 0.0], [-0.007938117723520278, 0.008333333333333333, 0.0063466179662980396, 0.0]]),
    "binary_cross_entropy_with_logits(z2, y2, reduction='none', pos_weight=pwc) dy2": ('float64', [[0.1475706324213129, 0.13862943611198905, -0.6, -20.0], [0.7378531621065645, 0.4158883083359672, -1.4, -40.0], [1.3281356917918161, 0.6931471805599453, -2.2, -60.0]]),
    'binary_cross_entropy(pf, qf) dpf': ('float64', [-0.015873015873015876, 13.329996663329984, -1666.6666666666667, 0.0, 0.1666666666666667, -1.6666666666666667]),
    'binary_cross_entropy(pf, qf) dqf': ('float64', [0.014121631006453394, -0.11511257964414257, 0.19188192441533714, -0.0, -0.03662040962227033, 0.0765853308355765]),
    "binary_cross_entropy(pf, qf, weight=wf, reduction='none') dpf": ('float64', [-0.09523809523809526, 319.9199199199196, -15000.0, 0.0, 7.500000000000002, -59.99999999999999]),
    "smooth_l1_loss(d, zero, reduction='none') dd": ('float64', [-0.1, -0.2, -0.15, 0.0, 0.25, 0.6, 0.7, 0.5599999999999999, -0.63, 1.0, -1.1]),
    "smooth_l1_loss(d, zero, reduction='none', beta=0.7) dd": ('float64', [-0.1, -0.2, -0.21428571428571427, 0.0, 0.35714285714285715, 0.6, 0.7, 0.8, -0.9, 1.0, -1.1]),
    "smooth_l1_loss(d, zero, reduction='none', beta=0.0) dd": ('float64', [-0.1, -0.2, -0.3, 0.0, 0.5, 0.6, 0.7, 0.8, -0.9, 1.0, -1.1]),
    'smooth_l1_loss(df, zero_f) dzero_f': ('float64', [0.010000000000000002, 0.010000000000000002, 0.005000000000000001, 0.0, -0.005000000000000001, -0.010000000000000002, -0.010000000000000002, -0.006999999999999999, 0.006999999999999999, -0.003]),
    "huber_loss(d, zero, reduction='none', delta=0.5) dd": ('float64', [-0.05, -0.1, -0.15, 0.0, 0.25, 0.3, 0.35, 0.4, -0.45, 0.5, -0.55]),
    "huber_loss(df, zero_f, reduction='sum', delta=2.5) ddf": ('float64', [-0.2, -0.1, -0.05, 0.0, 0.05, 0.1, 0.25, 0.06999999999999999, -0.06999999999999999, 0.03]),
    'mse_loss(df, zero_f, weight=wd) ddf': ('float64', [-0.0326530612244898, -0.0326530612244898, -0.004081632653061225, 0.0, 0.012244897959183675, 0.0163265306122449, 0.1469387755102041, 0.002857142857142857, -0.022857142857142857, 0.00489795918367347]),
    'mse_loss(df, zero_f, weight=wd) dwd': ('float64', [0.008867971678467302, -0.015621824239900047, -0.021744273219491884, -0.023785089546022497, -0.021744273219491884, -0.015621824239900047, 0.04968429820907955, -0.019785089546022497, -0.019785089546022497, -0.023050395668471477]),
    'l1_loss(df, zero_f, weight=wd) dwd': ('float64', [0.005081216159933361, -0.0030820491461890885, -0.007163681799250313, -0.011245314452311538, -0.007163681799250313, -0.0030820491461890885, 0.013244481466055811, -0.005531028738025824, -0.005531028738025824, -0.008796334860474804]),
    'huber_loss(df, zero_f, weight=wd) dwd': ('float64', [0.015, 0.005, 0.00125, 0.0, 0.00125, 0.005, 0.025, 0.00245, 0.00245, 0.00045]),
}
