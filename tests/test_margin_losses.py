"""soft_margin_loss, multilabel_soft_margin_loss, multi_margin_loss, multilabel_margin_loss,
triplet_margin_loss and triplet_margin_with_distance_loss (tinyffn/margin_losses.py) and
their modules (tinyffn/loss_modules.py), as PyTorch's.

Each case is one call, written once and run with the names of tinyffn and of torch
(tests/torch_parity.py): PyTorch 2.13 live where it is installed, and its values written
out in ``EXPECTED`` and ``EXPECTED_GRADS`` for every device. The inputs hold the edges:
hinges exactly at their kinks (multi_margin's z = 0, where PyTorch's slope is 0),
a -1-ended target with a class listed twice and entries after the -1, an all-target row,
a row whose first entry is -1, triplets where the swap changes the negative distance;
every reduction.
"""
import numpy as np
import pytest

import tinyffn
import tinyffn.nn as tnn
import torch_parity

X = [[0.3, -1.2, 2.0, 0.5], [0.5, 0.0, -0.7, 1.5], [1.0, 0.2, 0.3, -0.4]]
PM = [[1.0, -1.0, 1.0, -1.0], [-1.0, -1.0, 1.0, 1.0], [1.0, 1.0, -1.0, 1.0]]
ML = [[1.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0, 1.0]]
CW = [0.5, 2.0, 1.0, 0.25]
Y = [2, 0, 3]                               # row 1: 0.5 - 0.0 + ... : z = 1 - 0.5 + 0.5 = 1
YK = [3, 3, 1]                              # row 0: z = 1 - 0.5 + (-0.5)... see KINK
KINK = [[0.5, -0.5, 0.2, 0.5], [0.0, 1.0, 0.0, -3.0], [1.0, 0.0, 2.0, 1.0]]   # z = 0 at [0, 1]
MT = [[2, 0, -1, 1], [3, 3, -1, -1], [-1, 0, 1, 2]]   # ended by -1; 3 twice; row 2 empty
MT_ALL = [[0, 1, 2, 3], [1, -1, 0, 0], [2, 1, 0, -1]]
A = [[0.0, 0.0], [1.0, 1.0], [0.5, -0.5], [2.0, 0.0]]
P = [[0.3, 0.4], [1.0, 2.0], [0.5, 0.5], [2.0, 1.0]]
N = [[1.0, 0.0], [1.5, 1.0], [0.5, -1.5], [2.5, 0.5]]   # row 0: d(p, n) < d(a, n): swap

FUNCTIONS = ["soft_margin_loss", "multilabel_soft_margin_loss", "multi_margin_loss",
             "multilabel_margin_loss", "triplet_margin_loss",
             "triplet_margin_with_distance_loss", "pairwise_distance", "cosine_similarity"]
CASES = [
    "soft_margin_loss(x, pm)",
    "soft_margin_loss(x, pm, reduction='sum')",
    "soft_margin_loss(x, pm, reduction='none')",
    "soft_margin_loss(x.float(), pm.float())",
    "multilabel_soft_margin_loss(x, ml)",
    "multilabel_soft_margin_loss(x, ml, reduction='none')",
    "multilabel_soft_margin_loss(x, ml, weight=cw, reduction='sum')",
    "multilabel_soft_margin_loss(x[0], ml[0], reduction='none')",
    "multi_margin_loss(x, y)",
    "multi_margin_loss(x, y, reduction='none')",
    "multi_margin_loss(x, y, p=2, margin=0.7, reduction='sum')",
    "multi_margin_loss(x, y, weight=cw, reduction='none')",
    "multi_margin_loss(kink, yk, reduction='none')",
    "multi_margin_loss(x[1], y[1], p=2, reduction='none')",
    "multi_margin_loss(x[1], y[1:2], reduction='none')",
    "multi_margin_loss(x.float(), y, margin=-0.5)",
    "multilabel_margin_loss(x, mt)",
    "multilabel_margin_loss(x, mt, reduction='none')",
    "multilabel_margin_loss(x, mt_all, reduction='sum')",
    "multilabel_margin_loss(x[0], mt[0], reduction='none')",
    "multilabel_margin_loss(x.float(), mt)",
    "triplet_margin_loss(a, p, n)",
    "triplet_margin_loss(a, p, n, reduction='none')",
    "triplet_margin_loss(a, p, n, swap=True, reduction='none')",
    "triplet_margin_loss(a, p, n, margin=0.5, p=1, eps=1e-3, reduction='sum')",
    "triplet_margin_loss(a[0], p[0], n[0], margin=2.0)",
    "triplet_margin_loss(a, p[:1], n, reduction='none')",
    "triplet_margin_with_distance_loss(a, p, n, reduction='none')",
    "triplet_margin_with_distance_loss(a, p, n, swap=True, margin=0.3)",
    "triplet_margin_with_distance_loss(a, p, n, distance_function=lambda u, v: "
    "1 - cosine_similarity(u, v), margin=0.5, reduction='none')",
    "triplet_margin_loss(a.float(), p.float(), n.float(), swap=True)",
]


def inputs_of(module, **tensor_kwargs):
    def t(values):
        return module.tensor(values, dtype=module.float64, **tensor_kwargs)

    def i(values):
        return module.tensor(values, dtype=module.int64, **tensor_kwargs)
    return dict(x=t(X), pm=t(PM), ml=t(ML), cw=t(CW), y=i(Y), yk=i(YK), kink=t(KINK),
                mt=i(MT), mt_all=i(MT_ALL), a=t(A), p=t(P), n=t(N))


def names_of(module):
    return {name: getattr(module.nn.functional, name) for name in FUNCTIONS}


def run(module, case: str, **tensor_kwargs):
    return eval(case, {**names_of(module), **inputs_of(module, **tensor_kwargs)})


plain = torch_parity.plain


def assert_same(actual, expected, case):
    torch_parity.assert_close(actual, expected, case, rtol=8 * np.finfo(expected[0]).eps,
                              atol=1e-15 if expected[0] == "float64" else 1e-7)


GRAD_CASES = [  # dL/d(wrt) of L = Σ loss · (1, 2, ...)/10
    ("soft_margin_loss(x, pm, reduction='none')", "x"),
    ("multilabel_soft_margin_loss(x, ml, weight=cw, reduction='none')", "x"),
    ("multi_margin_loss(x, y, reduction='none')", "x"),
    ("multi_margin_loss(x, y, p=2, margin=0.7, weight=cw, reduction='none')", "x"),
    ("multi_margin_loss(kink, yk, reduction='none')", "kink"),
    ("multilabel_margin_loss(x, mt, reduction='none')", "x"),
    ("multilabel_margin_loss(x, mt_all)", "x"),
    ("triplet_margin_loss(a, p, n, reduction='none')", "a"),
    ("triplet_margin_loss(a, p, n, swap=True, reduction='none')", "p"),
    ("triplet_margin_loss(a, p, n, swap=True, margin=0.5, p=1, eps=1e-3, reduction='none')",
     "n"),
    ("triplet_margin_with_distance_loss(a, p, n, swap=True, reduction='none')", "n"),
]


def grad_of(module, case: str, wrt: str, **tensor_kwargs):
    inputs = inputs_of(module, **tensor_kwargs)
    inputs[wrt].requires_grad_(True)
    y = eval(case, {**names_of(module), **inputs})
    return torch_parity.weighted_grad(module, y, inputs[wrt], **tensor_kwargs)


torch_parity.tests(globals())


# ----------------------------------------------------------------------------- gradcheck
F = tinyffn.nn.functional
GRADCHECKED = {     # every float input, away from the kinks
    "soft_margin": lambda x, y, z: F.soft_margin_loss(x * y, z.sign()),
    "multilabel_soft_margin": lambda x, y, z: F.multilabel_soft_margin_loss(
        x, (z > 0).double(), weight=y[0].abs() + 0.1, reduction="none"),
    "multi_margin p=2": lambda x, y, z: F.multi_margin_loss(
        x - y, tinyffn.tensor([2, 0], device=x.device), p=2, margin=0.8, weight=z[0].abs(),
        reduction="sum"),
    "multilabel_margin": lambda x, y, z: F.multilabel_margin_loss(
        x * 3 + z, tinyffn.tensor([[1, 2, -1, 0], [3, -1, 0, 0]], device=x.device)),
    "triplet swap": lambda x, y, z: F.triplet_margin_loss(x, y, z, margin=4.0, swap=True,
                                                          reduction="none"),
}


@pytest.mark.parametrize("name", GRADCHECKED)
def test_gradcheck(name, device="cpu"):
    """On the CPU: the written-out gradients above run on every device."""
    x = tinyffn.tensor([[1.3, -0.4, 0.05, 0.7], [-2.2, 0.9, 3.1, 0.2]], dtype="float64",
                       device=device, requires_grad=True)
    y = tinyffn.tensor([[0.2, 0.97, 0.01, -0.3], [0.5, 0.9, 0.33, 1.2]], dtype="float64",
                       device=device, requires_grad=True)
    z = tinyffn.tensor([[-0.6, 0.35, 0.8, 0.11], [0.4, -0.9, 0.25, -1.1]], dtype="float64",
                       device=device, requires_grad=True)
    assert tinyffn.gradcheck(GRADCHECKED[name], [x, y, z])


def test_soft_margin_is_finite_where_torch_overflows():
    """-logsigmoid(y x): 800 for y x = -800, where PyTorch's log1p(exp(800)) is inf."""
    loss = F.soft_margin_loss(tinyffn.tensor([-800.0, 30.0]), tinyffn.tensor([1.0, 1.0]),
                              reduction="none")
    np.testing.assert_allclose(loss.numpy(), [800.0, np.log1p(np.exp(-30.0))], rtol=1e-6)


# ----------------------------------------------------------------------------- modules
def test_modules_call_their_functions_with_their_options():
    torch = pytest.importorskip("torch")
    x, cw = np.array(X), np.array(CW)
    pairs = [
        ("SoftMarginLoss", dict(reduction="sum"), (x, np.array(PM))),
        ("MultiLabelSoftMarginLoss", dict(weight=cw, reduction="none"), (x, np.array(ML))),
        ("MultiMarginLoss", dict(p=2, margin=0.6, weight=cw), (x, np.array(Y))),
        ("MultiLabelMarginLoss", dict(reduction="none"), (x, np.array(MT))),
        ("TripletMarginLoss", dict(margin=0.5, p=1.0, eps=1e-3, swap=True, reduction="none"),
         (np.array(A), np.array(P), np.array(N))),
        ("TripletMarginWithDistanceLoss", dict(swap=True, margin=0.4, reduction="sum"),
         (np.array(A), np.array(P), np.array(N))),
    ]
    for cls, kw, args in pairs:
        ours = getattr(tnn, cls)(**{k: tinyffn.tensor(v) if k == "weight" else v
                                    for k, v in kw.items()})
        theirs = getattr(torch.nn, cls)(**{k: torch.tensor(v) if k == "weight" else v
                                           for k, v in kw.items()})
        assert list(ours.state_dict()) == list(theirs.state_dict()), cls
        got = ours(*map(tinyffn.tensor, args)).numpy()
        np.testing.assert_allclose(got, theirs(*map(torch.tensor, args)).numpy(),
                                   rtol=1e-13, atol=1e-15, err_msg=cls)


def test_module_defaults_and_reprs():
    assert repr(tnn.MultiMarginLoss()) == "MultiMarginLoss(p=1, margin=1.0, reduction='mean')"
    assert repr(tnn.TripletMarginLoss()) == ("TripletMarginLoss(margin=1.0, p=2.0, eps=1e-06, "
                                             "swap=False, reduction='mean')")
    loss_fn = tnn.TripletMarginWithDistanceLoss()
    assert isinstance(loss_fn.distance_function, tnn.PairwiseDistance)   # a submodule,
    assert dict(loss_fn.named_children()) == {"distance_function": loss_fn.distance_function}
    assert repr(tnn.SoftMarginLoss()) == "SoftMarginLoss(reduction='mean')"


# ----------------------------------------------------------------------------- errors
x2 = np.array(X)
ERRORS = [  # (a call on F or torch's F, with float and int tensor makers; error; message;
            #  whether torch refuses it too)
    (lambda f, T, I: f.soft_margin_loss(T(x2), T(x2[:2])), ValueError,
     r"soft_margin_loss: input has shape \(3, 4\) but target has shape \(2, 4\)", True),
    (lambda f, T, I: f.multilabel_soft_margin_loss(T(x2), T(x2), weight=T(np.ones(3))),
     ValueError, r"multilabel_soft_margin_loss: shapes \(1, 3\) and \(3, 4\) cannot be "
     r"broadcast", True),
    (lambda f, T, I: f.multilabel_soft_margin_loss(T(0.5), T(1.0)), ValueError,
     r"multilabel_soft_margin_loss: input must have a class axis", True),
    (lambda f, T, I: f.multi_margin_loss(T(x2), I([0, 1, 2]), p=3), ValueError,
     r"multi_margin_loss: only p == 1 and p == 2 supported", True),
    (lambda f, T, I: f.multi_margin_loss(T(x2), I([0, 1])), ValueError,
     r"multi_margin_loss: target must hold one class per row of input \(3, 4\), shape "
     r"\(3,\), got \(2,\)", True),
    (lambda f, T, I: f.multi_margin_loss(T(x2), I([0, 1, 4])), IndexError,
     r"multi_margin_loss: target holds 0 to 4, but input has C = 4 classes: entries must "
     r"be in \[0, 3\]", True),
    (lambda f, T, I: f.multi_margin_loss(T(x2), T([0.0, 1.0, 2.0])), TypeError,
     r"multi_margin_loss: target must hold integer class indices, got dtype float64", True),
    (lambda f, T, I: f.multi_margin_loss(T(x2), I([0, 1, 2]), weight=T(np.ones(3))),
     ValueError, r"multi_margin_loss: weight must have shape \(C,\) = \(4,\)", True),
    (lambda f, T, I: f.multi_margin_loss(T(np.zeros((2, 3, 4))), I([0, 1])), ValueError,
     r"multi_margin_loss: input must be scores \(C,\) or \(N, C\)", True),
    (lambda f, T, I: f.multilabel_margin_loss(T(x2), I([[0, 1, -1, 2]])), ValueError,
     r"multilabel_margin_loss: target must have input's shape \(3, 4\)", True),
    (lambda f, T, I: f.multilabel_margin_loss(T(x2), I([[0, -2, 1, 1]] * 3)), IndexError,
     r"multilabel_margin_loss: target holds -2 to 1, .* entries must be in \[-1, 3\] "
     r"\(-1 ends the list of targets\)", True),
    (lambda f, T, I: f.triplet_margin_loss(T(x2), T(x2[0]), T(x2)), ValueError,
     r"triplet_margin_loss: anchor, positive and negative must have the same number of "
     r"axes, got shapes \(3, 4\), \(4,\) and \(3, 4\)", True),
    (lambda f, T, I: f.triplet_margin_loss(T(x2), T(x2), T(x2), margin=0), ValueError,
     r"triplet_margin_loss: margin must be greater than 0, got 0", True),
    (lambda f, T, I: f.triplet_margin_with_distance_loss(T(x2), T(x2), T(x2), margin=-1.0),
     ValueError, r"triplet_margin_with_distance_loss: margin must be greater than 0", True),
    (lambda f, T, I: f.soft_margin_loss(T(x2), T(x2), True), TypeError,
     r"soft_margin_loss: size_average and reduce are PyTorch's deprecated arguments", False),
    (lambda f, T, I: f.multilabel_margin_loss(T(x2), I(MT), reduction="avg"), ValueError,
     r"multilabel_margin_loss: unknown reduction='avg'", True),
    (lambda f, T, I: f.multilabel_soft_margin_loss(T(x2), T(x2), weight=T(np.ones((2, 1, 4)))),
     ValueError, r"multilabel_soft_margin_loss: weight of shape \(2, 1, 4\) does not broadcast "
     r"to input's \(3, 4\)", False),          # torch averages a (2, 3) loss, silently
    (lambda f, T, I: f.multilabel_margin_loss(T(np.zeros((2, 3, 4))), I(np.zeros((2, 3, 4)))),
     ValueError, r"multilabel_margin_loss: input must be scores \(C,\) or \(N, C\)", True),
    (lambda f, T, I: f.triplet_margin_loss(T(x2), T(x2), T(x2), swap=1), TypeError,
     r"triplet_margin_loss: swap must be True or False, got 1", True),
    (lambda f, T, I: f.multi_margin_loss(I(np.zeros((3, 4))), I([0, 1, 2])), TypeError,
     r"multi_margin_loss: input must be floating point \(scores\), got int64", True),
    (lambda f, T, I: f.multilabel_margin_loss(T(np.zeros((2, 0))), I(np.zeros((2, 0)))),
     ValueError, r"multilabel_margin_loss: input must be scores \(C,\) or \(N, C\) with "
     r"C > 0, got shape \(2, 0\)", True),
    (lambda f, T, I: f.multilabel_margin_loss([[0.1]], I([[0]])), TypeError,
     r"multilabel_margin_loss: input must be a tinyffn Tensor, got list", True),
]


def test_one_class_is_allowed_and_has_no_margin_to_keep():
    """C = 1: no other class, so the hinge sums are empty and the loss is 0 (as torch's)."""
    x = tinyffn.tensor([[0.3], [0.1]])
    y = F.multi_margin_loss(x, tinyffn.tensor([0, 0]), reduction="none")
    z = F.multilabel_margin_loss(x, tinyffn.tensor([[0], [-1]]), reduction="none")
    assert y.numpy().tolist() == z.numpy().tolist() == [0.0, 0.0]


@pytest.mark.parametrize("name, target", [("soft_margin_loss", PM),
                                          ("multilabel_margin_loss", MT)])
def test_the_graph_shows_the_losss_frame(name, target):
    x = tinyffn.tensor(X, dtype="float64", requires_grad=True)
    dot = tinyffn.to_dot(getattr(F, name)(x, tinyffn.tensor(target)))
    assert f'label="{name}"' in dot


@pytest.mark.parametrize("call, error, message, torch_refuses", ERRORS)
def test_errors_name_the_op_and_the_shapes(call, error, message, torch_refuses):
    with pytest.raises(error, match=message):
        call(F, lambda a: tinyffn.tensor(a, dtype="float64"),
             lambda a: tinyffn.tensor(a, dtype="int64"))
    torch = pytest.importorskip("torch")
    if torch_refuses:
        with pytest.raises(Exception):
            call(torch.nn.functional, lambda a: torch.tensor(a, dtype=torch.float64),
                 lambda a: torch.tensor(a, dtype=torch.int64))


MODULE_ERRORS = [
    (lambda: tnn.MultiMarginLoss(p=3), ValueError, r"MultiMarginLoss: only p == 1 and p == 2"),
    (lambda: tnn.MultiMarginLoss(weight=tinyffn.ones(2, 2)), ValueError,
     r"MultiMarginLoss: expected weight to be None or a 1-D tensor"),
    (lambda: tnn.TripletMarginWithDistanceLoss(margin=0.0), ValueError,
     r"TripletMarginWithDistanceLoss: expected margin to be greater than 0"),
    (lambda: tnn.TripletMarginWithDistanceLoss(distance_function="l2"), TypeError,
     r"TripletMarginWithDistanceLoss: distance_function must be a callable"),
    (lambda: tnn.MultiLabelMarginLoss(reduce=False), TypeError,
     r"MultiLabelMarginLoss: size_average and reduce are PyTorch's deprecated arguments"),
    (lambda: tnn.SoftMarginLoss(reduction="avg"), ValueError,
     r"SoftMarginLoss: unknown reduction='avg'"),
]


@pytest.mark.parametrize("call, error, message", MODULE_ERRORS)
def test_module_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


EXPECTED = {
    'soft_margin_loss(x, pm)': ('float64', 0.6307697710338495),
    "soft_margin_loss(x, pm, reduction='sum')": ('float64', 7.569237252406194),
    "soft_margin_loss(x, pm, reduction='none')": ('float64', [[0.5543552444685271, 0.26328246733803123, 0.1269280110429725, 0.9740769841801067], [0.9740769841801067, 0.6931471805599453, 1.103186048885458, 0.2014132779827524], [0.31326168751822286, 0.5981388693815918, 0.8543552444685272, 0.9130152523999526]]),
    'soft_margin_loss(x.float(), pm.float())': ('float32', 0.6307697892189026),
    'multilabel_soft_margin_loss(x, ml)': ('float64', 0.5474364377005162),
    "multilabel_soft_margin_loss(x, ml, reduction='none')": ('float64', [0.47966067675740937, 0.5679558729020655, 0.5946927634420736]),
    "multilabel_soft_margin_loss(x, ml, weight=cw, reduction='sum')": ('float64', 1.4091449189200564),
    "multilabel_soft_margin_loss(x[0], ml[0], reduction='none')": ('float64', 0.47966067675740937),
    'multi_margin_loss(x, y)': ('float64', 0.6833333333333332),
    "multi_margin_loss(x, y, reduction='none')": ('float64', [0.0, 0.625, 1.425]),
    "multi_margin_loss(x, y, p=2, margin=0.7, reduction='sum')": ('float64', 2.7475),
    "multi_margin_loss(x, y, weight=cw, reduction='none')": ('float64', [0.0, 0.3125, 0.35625]),
    "multi_margin_loss(kink, yk, reduction='none')": ('float64', [0.425, 3.25, 1.75]),
    "multi_margin_loss(x[1], y[1], p=2, reduction='none')": ('float64', 1.0625),
    "multi_margin_loss(x[1], y[1:2], reduction='none')": ('float64', [0.625]),
    'multi_margin_loss(x.float(), y, margin=-0.5)': ('float32', 0.14166666567325592),
    'multilabel_margin_loss(x, mt)': ('float64', 0.09999999999999999),
    "multilabel_margin_loss(x, mt, reduction='none')": ('float64', [0.3, 0.0, 0.0]),
    "multilabel_margin_loss(x, mt_all, reduction='sum')": ('float64', 1.25),
    "multilabel_margin_loss(x[0], mt[0], reduction='none')": ('float64', 0.3),
    'multilabel_margin_loss(x.float(), mt)': ('float32', 0.10000000149011612),
    'triplet_margin_loss(a, p, n)': ('float64', 1.0732228082566388),
    "triplet_margin_loss(a, p, n, reduction='none')": ('float64', [0.49999959999954013, 1.4999999999995, 0.9999979999999999, 1.2928936330275147]),
    "triplet_margin_loss(a, p, n, swap=True, reduction='none')": ('float64', [0.6937731972732345, 1.4999999999995, 0.9999979999999999, 1.2928936330275147]),
    "triplet_margin_loss(a, p, n, margin=0.5, p=1, eps=1e-3, reduction='sum')": ('float64', 2.1980000000000004),
    'triplet_margin_loss(a[0], p[0], n[0], margin=2.0)': ('float64', 1.4999995999995401),
    "triplet_margin_loss(a, p[:1], n, reduction='none')": ('float64', [0.49999959999954013, 1.421956855776271, 0.9219526864729584, 2.0393202970625617]),
    "triplet_margin_with_distance_loss(a, p, n, reduction='none')": ('float64', [0.49999959999954013, 1.4999999999995, 0.9999979999999999, 1.2928936330275147]),
    'triplet_margin_with_distance_loss(a, p, n, swap=True, margin=0.3)': ('float64', 0.4232229082567536),
    "triplet_margin_with_distance_loss(a, p, n, distance_function=lambda u, v: 1 - cosine_similarity(u, v), margin=0.5, reduction='none')": ('float64', [0.5, 0.5318973776404065, 1.3944271909999157, 0.5861534846910044]),
    'triplet_margin_loss(a.float(), p.float(), n.float(), swap=True)': ('float32', 1.1216661930084229),
}
EXPECTED_GRADS = {
    "soft_margin_loss(x, pm, reduction='none') dx": ('float64', [[-0.0425557483188341, 0.04629504330019648, -0.03576087660663526, 0.24898373248074185], [0.3112296656009273, 0.3, -0.46773144051771626, -0.14594041904508506], [-0.2420472792329956, -0.4501660026875221, 0.631886768492825, -0.7184251921349424]]),
    "multilabel_soft_margin_loss(x, ml, weight=cw, reduction='none') dx": ('float64', [[-0.005319468539854263, 0.01157376082504912, -0.0029800730505529388, 0.0038903708200115905], [0.015561483280046362, 0.05, 0.016590611391591698, -0.002280319047579454], [-0.010085303301374816, -0.06752490040312831, -0.03191681123912558, -0.011225393627108475]]),
    "multi_margin_loss(x, y, reduction='none') dx": ('float64', [[0.0, 0.0, 0.0, 0.0], [-0.1, 0.05, 0.0, 0.05], [0.075, 0.075, 0.075, -0.22499999999999998]]),
    "multi_margin_loss(x, y, p=2, margin=0.7, weight=cw, reduction='none') dx": ('float64', [[0.0, 0.0, 0.0, 0.0], [-0.095, 0.009999999999999998, 0.0, 0.085], [0.07875, 0.04875, 0.052500000000000005, -0.18000000000000002]]),
    "multi_margin_loss(kink, yk, reduction='none') dkink": ('float64', [[0.025, 0.0, 0.025, -0.05], [0.05, 0.05, 0.05, -0.15000000000000002], [0.075, -0.22499999999999998, 0.075, 0.075]]),
    "multilabel_margin_loss(x, mt, reduction='none') dx": ('float64', [[-0.025, 0.0, 0.0, 0.025], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]),
    'multilabel_margin_loss(x, mt_all) dx': ('float64', [[0.0, 0.0, 0.0, 0.0], [0.008333333333333333, -0.025, 0.008333333333333333, 0.008333333333333333], [0.0, -0.008333333333333333, -0.008333333333333333, 0.016666666666666666]]),
    "triplet_margin_loss(a, p, n, reduction='none') da": ('float64', [[0.040000032000044414, -0.08000012400016081], [0.2000001999998, -0.20000040000070005], [6.000000001118534e-13, -0.5999999999997], [0.28284311247501903, -0.11715728752518106]]),
    "triplet_margin_loss(a, p, n, swap=True, reduction='none') dp": ('float64', [[0.14682419825021426, 0.03038598323092582], [-2.0000020000010003e-07, 0.19999999999990004], [-3.0000030000015005e-07, 0.29999999999985], [-4.0000040000020006e-07, 0.39999999999980007]]),
    "triplet_margin_loss(a, p, n, swap=True, margin=0.5, p=1, eps=1e-3, reduction='none') dn": ('float64', [[-0.1, 0.1], [-0.2, 0.2], [0.3, 0.3], [-0.4, -0.4]]),
    "triplet_margin_with_distance_loss(a, p, n, swap=True, reduction='none') dn": ('float64', [[-0.08682423025030866, 0.04961404076913498], [-0.1999999999996, 4.0000080000079994e-07], [2.9999970000014993e-07, 0.29999999999985], [-0.282842712474619, -0.282842712474619]]),
}
