"""F.leaky_relu, F.glu, F.normalize, F.one_hot (tinyffn/functional_extra.py), F.l1_loss
(losses.py), and the modules nn.LeakyReLU, nn.Flatten and nn.L1Loss.

Each case is one call, written once and run with tinyffn's ``F`` and ``nn`` and with
torch's. References: PyTorch 2.13, live where it is installed, and its values and
gradients written out in ``EXPECTED`` and ``EXPECTED_GRADS`` (computed once with torch;
those tests run without it, on every device); gradcheck for every differentiable one.
"""
import math

import numpy as np
import pytest

import tinyffn
import torch_parity
from tinyffn import functional as F
from tinyffn import nn
from tinyffn.backend import dtype_name

X = [[0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5]]
Z = [[3.0, 4.0], [0.0, 0.0]]                          # a row of zeros: normalize by eps
B = (np.arange(24.0).reshape(2, 3, 4) * 0.25 - 2.0).tolist()
T = [[1.0, -2.0, 2.0, 0.0], [-4.0, 0.0, 0.25, 1.0]]   # targets; one equal entry (the kink)

CASES = [
    "F.leaky_relu(x)", "F.leaky_relu(x, 0.2)", "F.leaky_relu(x, -0.5)", "F.leaky_relu(x, 1)",
    "F.glu(x)", "F.glu(x, 0)", "F.glu(b, 0)", "F.glu(b, -1)",
    "F.normalize(x)", "F.normalize(x, dim=0)", "F.normalize(z)", "F.normalize(x, p=1)",
    "F.normalize(x, 3.0, 1)", "F.normalize(x, p=math.inf)", "F.normalize(b, dim=-1)",
    "F.normalize(z, eps=0.5)", "F.normalize(v, dim=0)",
    "F.one_hot(i)", "F.one_hot(i, 5)", "F.one_hot(i.reshape(2, 2))", "F.one_hot(e, 3)",
    "F.one_hot(i0, 3)",
    "F.l1_loss(x, t)", "F.l1_loss(x, t, reduction='sum')", "F.l1_loss(x, t, reduction='none')",
    "nn.LeakyReLU(0.1)(x)", "nn.Flatten()(b)", "nn.Flatten(0)(b)", "nn.Flatten(0, 1)(b)",
    "nn.Flatten(-2)(b)", "nn.L1Loss()(x, t)", "nn.L1Loss(reduction='none')(x, t)",
]


def run(module, case: str, requires_grad: str = "", **tensor_kwargs):
    """``case`` evaluated with ``module``'s F and nn (tinyffn or torch) and inputs; the
    input named ``requires_grad`` requires a gradient (returned with the result)."""
    inputs = {}
    for name, values in dict(x=X, z=Z, b=B, t=T, v=[3.0, -4.0]).items():
        inputs[name] = module.tensor(values, dtype=module.float64, **tensor_kwargs)
        if name == requires_grad:
            inputs[name].requires_grad_(True)
    inputs.update(i=module.tensor([0, 3, 1, 3], **tensor_kwargs),
                  e=module.zeros(0, dtype=module.int64, **tensor_kwargs),
                  i0=module.tensor(2, **tensor_kwargs))
    F_ = module.functional if module is tinyffn else module.nn.functional
    y = eval(case, {"math": math}, {"F": F_, "nn": module.nn, **inputs})
    return (y, inputs[requires_grad]) if requires_grad else y


plain = torch_parity.plain      # (dtype name, nested lists), as the tests compare


def assert_same(actual, expected, case):
    assert actual[0] == expected[0], f"{case}: dtype {actual[0]}, expected {expected[0]}"
    a, e = np.asarray(actual[1]), np.asarray(expected[1])
    assert a.shape == e.shape, f"{case}: shape {a.shape}, expected {e.shape}"
    np.testing.assert_allclose(a, e, rtol=1e-12, atol=1e-14, err_msg=case)   # a cancellation


# dL/d(input) for L = Σ f · (1, 2, 3, ...)/10: a backward that forgets gy shows
GRAD_CASES = [
    ("F.leaky_relu(x)", "x"), ("F.leaky_relu(x, -0.5)", "x"), ("F.glu(x)", "x"),
    ("F.glu(b, 0)", "b"), ("F.normalize(x)", "x"), ("F.normalize(z)", "z"),
    ("F.normalize(x, p=1)", "x"), ("F.normalize(x, 3.0, 0)", "x"),
    ("F.l1_loss(x, t)", "x"), ("F.l1_loss(x, t, reduction='none')", "t"),
    ("nn.Flatten()(b)", "b"),
]


def grad_of(module, case: str, wrt: str, **tensor_kwargs):
    y, x = run(module, case, requires_grad=wrt, **tensor_kwargs)
    weights = np.arange(1.0, math.prod(y.shape) + 1).reshape(y.shape) / 10
    (y * module.tensor(weights.tolist(), dtype=module.float64, **tensor_kwargs)).sum().backward()
    return plain(x.grad)


torch_parity.tests(globals())     # live torch, EXPECTED(_GRADS), their check


GRADCHECKED = {
    "leaky_relu": lambda x: F.leaky_relu(x, 0.1), "glu": lambda x: F.glu(x, -1),
    "normalize": F.normalize, "normalize-p1-dim0": lambda x: F.normalize(x, 1, 0),
    "l1_loss": lambda x: F.l1_loss(x, tinyffn.full((2, 4), 0.1, dtype="float64",
                                                    device=x.device)),
    "LeakyReLU": nn.LeakyReLU(0.3), "Flatten": nn.Flatten(0),
}


@pytest.mark.parametrize("name", GRADCHECKED)
def test_gradcheck(name, device):
    x = tinyffn.tensor([[0.5, -2.0, 3.0, 0.7], [-4.0, 1.5, 0.25, -0.5]], dtype="float64",
                       device=device, requires_grad=True)   # no entry at a kink
    assert tinyffn.gradcheck(GRADCHECKED[name], [x])


def test_leaky_relu_is_one_where_and_keeps_float16():
    x = tinyffn.tensor([-1.0, 2.0], dtype="float16", requires_grad=True)
    y = F.leaky_relu(x)
    assert dtype_name(y.dtype) == "float16" and y.grad_fn.name == "where"
    y.sum().backward()
    assert x.grad.tolist() == [np.float16(0.01), 1.0]


def test_modules_print_as_pytorchs():
    assert repr(nn.LeakyReLU()) == "LeakyReLU(negative_slope=0.01)"
    assert repr(nn.Flatten()) == "Flatten(start_dim=1, end_dim=-1)"
    assert repr(nn.L1Loss()) == "L1Loss(reduction='mean')"
    assert list(nn.Flatten().parameters()) == []


@pytest.mark.parametrize("call, error, match", [
    ("F.leaky_relu(n)", TypeError, "leaky_relu: input has dtype int64"),
    ("F.leaky_relu(x, inplace=True)", ValueError, "inplace"),
    ("F.leaky_relu(x, 'a')", TypeError, "negative_slope must be a number"),
    ("F.glu(x[:, :3])", ValueError, "dim -1 of shape .* has length 3"),
    ("F.glu(x[0, 0])", ValueError, "a 0-d tensor has no dim"),
    ("F.glu(x, 2)", ValueError, r"dim must be an integer in \[-2, 1\]"),
    ("F.normalize(x[0])", ValueError, "for a vector pass dim=0"),
    ("F.normalize(x, eps=-1)", ValueError, "eps must be a number >= 0"),
    ("F.normalize(x, p=0)", ValueError, "norm: p must be"),
    ("F.one_hot(n.int())", TypeError, "an int64 tensor .* got int32"),
    ("F.one_hot(x)", TypeError, "got float32"),
    ("F.one_hot(n, 3)", ValueError, "smaller than num_classes=3, got 3"),
    ("F.one_hot(n - 1)", ValueError, "must be >= 0, got -1"),
    ("F.one_hot(n[:0])", ValueError, "cannot infer num_classes from an empty tensor"),
    ("F.one_hot(n, -2)", ValueError, "num_classes must be an integer >= 0"),
    ("F.l1_loss(x, x[0])", ValueError, "l1_loss: input has shape"),
    ("F.l1_loss(x, x, reduction='avg')", ValueError, "reduction"),
    ("nn.LeakyReLU(inplace=True)", ValueError, "inplace"),
])
def test_errors_name_the_function_and_the_fix(call, error, match):
    names = {"F": F, "nn": nn, "x": tinyffn.tensor(X), "n": tinyffn.tensor([0, 3, 1])}
    with pytest.raises(error, match=match):
        eval(call, {}, names)


EXPECTED = {
    'F.leaky_relu(x)': ('float64', [[0.5, -0.02, 3.0, 0.0], [-0.04, 1.5, 0.25, -0.005]]),
    'F.leaky_relu(x, 0.2)': ('float64', [[0.5, -0.4, 3.0, 0.0], [-0.8, 1.5, 0.25, -0.1]]),
    'F.leaky_relu(x, -0.5)': ('float64', [[0.5, 1.0, 3.0, -0.0], [2.0, 1.5, 0.25, 0.25]]),
    'F.leaky_relu(x, 1)': ('float64', [[0.5, -2.0, 3.0, 0.0], [-4.0, 1.5, 0.25, -0.5]]),
    'F.glu(x)': ('float64', [[0.4762870634112167, -1.0], [-2.2487060035431923, 0.566311003197218]]),
    'F.glu(x, 0)': ('float64', [[0.00899310498104578, -1.6351489523872873, 1.686529502657394, 0.0]]),
    'F.glu(b, 0)': ('float64', [[[-1.4621171572600098, -1.3602747570557094, -1.2263617142904655, -1.0649410024603883], [-0.8807970779778823, -0.6784879013256679, -0.4620709099893783, -0.2349783374564981], [0.0, 0.24066827816396766, 0.4853438846243218, 0.7327669725674808]]]),
    'F.glu(b, -1)': ('float64', [[[-0.3648510476127127, -0.38972524294429045], [-0.3775406687981454, -0.3283676243356515], [0.0, 0.16979467479384824]], [[0.8175744761936437, 1.0649410024603883], [1.848283639957513, 2.114805037108483], [2.912063307745931, 3.175323547792417]]]),
    'F.normalize(x)': ('float64', [[0.13736056394868904, -0.5494422557947561, 0.8241633836921342, 0.0], [-0.9284141650970551, 0.3481553119113957, 0.058025885318565944, -0.11605177063713189]]),
    'F.normalize(x, dim=0)': ('float64', [[0.12403473458920847, -0.8, 0.9965457582448796, 0.0], [-0.9922778767136677, 0.6, 0.08304547985373997, -1.0]]),
    'F.normalize(z)': ('float64', [[0.6, 0.8], [0.0, 0.0]]),
    'F.normalize(x, p=1)': ('float64', [[0.09090909090909091, -0.36363636363636365, 0.5454545454545454, 0.0], [-0.64, 0.24, 0.04, -0.08]]),
    'F.normalize(x, 3.0, 1)': ('float64', [[0.15267381577001715, -0.6106952630800686, 0.916042894620103, 0.0], [-0.9823326082160866, 0.3683747280810325, 0.06139578801350541, -0.12279157602701082]]),
    'F.normalize(x, p=math.inf)': ('float64', [[0.16666666666666666, -0.6666666666666666, 1.0, 0.0], [-1.0, 0.375, 0.0625, -0.125]]),
    'F.normalize(b, dim=-1)': ('float64', [[[-0.6064784348631227, -0.5306686305052324, -0.454858826147342, -0.3790490217894517], [-0.7302967433402214, -0.5477225575051661, -0.3651483716701107, -0.18257418583505536], [0.0, 0.2672612419124244, 0.5345224838248488, 0.8017837257372732]], [[0.3563483225498992, 0.44543540318737396, 0.5345224838248488, 0.6236095644623235], [0.41816669879145335, 0.470437536140385, 0.5227083734893166, 0.5749792108382483], [0.44292808231533737, 0.47983875584161545, 0.5167494293678936, 0.5536601028941717]]]),
    'F.normalize(z, eps=0.5)': ('float64', [[0.6, 0.8], [0.0, 0.0]]),
    'F.normalize(v, dim=0)': ('float64', [0.6, -0.8]),
    'F.one_hot(i)': ('int64', [[1, 0, 0, 0], [0, 0, 0, 1], [0, 1, 0, 0], [0, 0, 0, 1]]),
    'F.one_hot(i, 5)': ('int64', [[1, 0, 0, 0, 0], [0, 0, 0, 1, 0], [0, 1, 0, 0, 0], [0, 0, 0, 1, 0]]),
    'F.one_hot(i.reshape(2, 2))': ('int64', [[[1, 0, 0, 0], [0, 0, 0, 1]], [[0, 1, 0, 0], [0, 0, 0, 1]]]),
    'F.one_hot(e, 3)': ('int64', []),
    'F.one_hot(i0, 3)': ('int64', [0, 0, 1]),
    'F.l1_loss(x, t)': ('float64', 0.5625),
    "F.l1_loss(x, t, reduction='sum')": ('float64', 4.5),
    "F.l1_loss(x, t, reduction='none')": ('float64', [[0.5, 0.0, 1.0, 0.0], [0.0, 1.5, 0.0, 1.5]]),
    'nn.LeakyReLU(0.1)(x)': ('float64', [[0.5, -0.2, 3.0, 0.0], [-0.4, 1.5, 0.25, -0.05]]),
    'nn.Flatten()(b)': ('float64', [[-2.0, -1.75, -1.5, -1.25, -1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75], [1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0, 3.25, 3.5, 3.75]]),
    'nn.Flatten(0)(b)': ('float64', [-2.0, -1.75, -1.5, -1.25, -1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0, 3.25, 3.5, 3.75]),
    'nn.Flatten(0, 1)(b)': ('float64', [[-2.0, -1.75, -1.5, -1.25], [-1.0, -0.75, -0.5, -0.25], [0.0, 0.25, 0.5, 0.75], [1.0, 1.25, 1.5, 1.75], [2.0, 2.25, 2.5, 2.75], [3.0, 3.25, 3.5, 3.75]]),
    'nn.Flatten(-2)(b)': ('float64', [[-2.0, -1.75, -1.5, -1.25, -1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75], [1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0, 3.25, 3.5, 3.75]]),
    'nn.L1Loss()(x, t)': ('float64', 0.5625),
    "nn.L1Loss(reduction='none')(x, t)": ('float64', [[0.5, 0.0, 1.0, 0.0], [0.0, 1.5, 0.0, 1.5]]),
}
EXPECTED_GRADS = {
    'F.leaky_relu(x) dx': ('float64', [[0.1, 0.002, 0.3, 0.004], [0.005, 0.6, 0.7, 0.008]]),
    'F.leaky_relu(x, -0.5) dx': ('float64', [[0.1, -0.1, 0.3, -0.2], [-0.25, 0.6, 0.7, -0.4]]),
    'F.glu(x) dx': ('float64', [[0.09525741268224334, 0.1, 0.0022588329865456, -0.1], [0.16865295026573943, 0.15101626751925817, -0.295360899285118, 0.1410022273209567]]),
    'F.glu(b, 0) db': ('float64', [[[0.07310585786300049, 0.15545997223493824, 0.24527234285809307, 0.34078112078732425], [0.44039853898894116, 0.5427903210605343, 0.6468992739851296, 0.751930679860794], [0.8573167141401901, 0.9626731126558706, 1.0677565461735081, 1.172427156107969]], [[-0.039322386648296376, -0.06058667544737398, -0.06711590343164979, -0.06306461259332757], [-0.05249679270175331, -0.03881607499915332, -0.02453630079078782, -0.011295248928974808], [0.0, 0.00898339770633201, 0.01564916313385458, 0.020204469343839133]]]),
    'F.normalize(x) dx': ('float64', [[0.021770353531490337, 0.07775126261246548, 0.04820578281972861, 0.10988845115895123], [0.04978112989619732, 0.16411361504240873, 0.16661439393829303, 0.17739900292679422]]),
    'F.normalize(z) dz': ('float64', [[-0.006399999999999996, 0.004799999999999999], [300000000000.0, 400000000000.0]]),
    'F.normalize(x, p=1) dx': ('float64', [[6.938893903907228e-18, 0.05454545454545455, 0.03636363636363636, 0.07272727272727274], [0.046079999999999996, 0.12992, 0.14592, 0.09408]]),
    'F.normalize(x, 3.0, 0) dx': ('float64', [[0.0268830941630854, 0.16710941233747592, -0.019371625390774902, 0.8], [0.003360386770385665, 0.22281254978330123, 0.23245950468929832, 0.0]]),
    'F.l1_loss(x, t) dx': ('float64', [[-0.0125, 0.0, 0.0125, 0.0], [0.0, 0.0125, 0.0, -0.0125]]),
    "F.l1_loss(x, t, reduction='none') dt": ('float64', [[0.1, -0.0, -0.3, -0.0], [-0.0, -0.6, -0.0, 0.8]]),
    'nn.Flatten()(b) db': ('float64', [[[0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8], [0.9, 1.0, 1.1, 1.2]], [[1.3, 1.4, 1.5, 1.6], [1.7, 1.8, 1.9, 2.0], [2.1, 2.2, 2.3, 2.4]]]),
}
