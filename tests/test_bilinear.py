"""F.bilinear and nn.Bilinear (tinyffn/bilinear.py): the defining sum in NumPy on every
device, gradcheck on every device, values and gradients beside torch live, the module's
init bound, repr and state_dict keys, and the errors, each input also refused by torch.
"""
import numpy as np
import pytest

import tinyffn
from tinyffn import functional as F
from tinyffn import nn

rng = np.random.default_rng(5)


def _t(device, *arrays, requires_grad=False):
    return [tinyffn.tensor(a, dtype="float64", device=device, requires_grad=requires_grad)
            for a in arrays]


@pytest.mark.parametrize("lead", [(), (4,), (2, 3)])
def test_bilinear_is_the_defining_sum(lead, device):
    x1, x2 = rng.standard_normal(lead + (2,)), rng.standard_normal(lead + (3,))
    w, b = rng.standard_normal((4, 2, 3)), rng.standard_normal(4)
    want = np.einsum("...i,oij,...j->...o", x1, w, x2) + b
    y = F.bilinear(*_t(device, x1, x2, w, b))
    assert y.shape == lead + (4,)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(F.bilinear(*_t(device, x1, x2, w)).numpy(), want - b,
                               rtol=1e-12, atol=1e-12)


def test_bilinear_is_gradchecked(device):
    args = _t(device, rng.standard_normal((3, 2)), rng.standard_normal((3, 3)),
              rng.standard_normal((2, 2, 3)), rng.standard_normal(2), requires_grad=True)
    assert tinyffn.gradcheck(F.bilinear, args)


def test_bilinear_matches_torch():
    torch = pytest.importorskip("torch")
    arrays = (rng.standard_normal((2, 3, 2)), rng.standard_normal((2, 3, 3)),
              rng.standard_normal((4, 2, 3)), rng.standard_normal(4))
    ours, theirs = _t("cpu", *arrays, requires_grad=True), \
        [torch.tensor(a, requires_grad=True) for a in arrays]
    y, ty = F.bilinear(*ours), torch.nn.functional.bilinear(*theirs)
    np.testing.assert_allclose(y.numpy(), ty.detach().numpy(), rtol=1e-12, atol=1e-13)
    gy = rng.standard_normal(y.shape)
    (y * tinyffn.tensor(gy)).sum().backward()
    (ty * torch.tensor(gy)).sum().backward()
    for a, ta in zip(ours, theirs):
        np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-12, atol=1e-13)


def test_module_is_pytorchs_layer():
    torch = pytest.importorskip("torch")
    ours, theirs = nn.Bilinear(5, 3, 4), torch.nn.Bilinear(5, 3, 4)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert ours.weight.shape == (4, 5, 3) and ours.bias.shape == (4,)
    for p in (ours.weight, ours.bias):          # U(±1/sqrt(in1_features)), spread over it
        assert float(p.abs().max()) <= 5 ** -0.5 and float(p.abs().max()) > 0.3
    ours.load_state_dict({k: tinyffn.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    x1, x2 = rng.standard_normal((6, 5)).astype("float32"), rng.standard_normal((6, 3)).astype(
        "float32")
    np.testing.assert_allclose(ours(tinyffn.tensor(x1), tinyffn.tensor(x2)).numpy(),
                               theirs(torch.tensor(x1), torch.tensor(x2)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    assert nn.Bilinear(2, 2, 1, bias=False).bias is None


ERRORS = [  # (a call on F or torch's F, with its tensor maker; message)
    (lambda f, T: f.bilinear(T(np.zeros((6, 2))), T(np.zeros((5, 3))), T(np.zeros((4, 2, 3)))),
     r"bilinear: input1 \(6, 2\) and input2 \(5, 3\) must be \(\.\.\., I\) and \(\.\.\., J\) "
     r"with the same leading axes"),
    (lambda f, T: f.bilinear(T(np.zeros((5, 2))), T(np.zeros((1, 5, 3))), T(np.zeros((4, 2, 3)))),
     r"bilinear: input1 \(5, 2\) and input2 \(1, 5, 3\) must be"),
    (lambda f, T: f.bilinear(T(np.zeros((5, 3))), T(np.zeros((5, 3))), T(np.zeros((4, 2, 3)))),
     r"bilinear: weight must have shape \(O, I, J\) = \(O, 3, 3\) for input1 \(5, 3\) and "
     r"input2 \(5, 3\), got \(4, 2, 3\)"),
    (lambda f, T: f.bilinear(T(np.zeros((5, 2))), T(np.zeros((5, 3))), T(np.zeros((4, 2, 3))),
                             T(np.zeros(3))),
     r"bilinear: bias must have shape \(O,\) = \(4,\), one entry per output of weight "
     r"\(4, 2, 3\), got \(3,\)"),
]


@pytest.mark.parametrize("call, message", ERRORS)
def test_errors_name_the_op_and_the_shapes(call, message):
    with pytest.raises(ValueError, match=message):
        call(F, lambda a: tinyffn.tensor(a, dtype="float64"))
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match="bilinear"):        # torch refuses it too
        call(torch.nn.functional, torch.tensor)


def test_integer_inputs_are_refused():
    x = tinyffn.tensor([[1, 2]])
    with pytest.raises(TypeError, match=r"bilinear: input1 has dtype int64; a layer computes "
                                        r"in floating point"):
        F.bilinear(x, x.float(), tinyffn.zeros(1, 2, 2))


@pytest.mark.parametrize("at", [0, 3])
def test_arrays_are_refused_naming_the_argument_and_torch_refuses_them_too(at):
    """input1 and bias as NumPy arrays (bias may be None, not an array)."""
    args = [np.ones((2, 3)), np.ones((2, 4)), np.ones((5, 3, 4)), np.ones(5)]
    ours = [a if i == at else tinyffn.tensor(a) for i, a in enumerate(args)]
    name = ("input1", "input2", "weight", "bias")[at]
    with pytest.raises(TypeError, match=rf"bilinear: {name} must be a tinyffn Tensor, got "):
        F.bilinear(*ours)
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError):
        torch.nn.functional.bilinear(*(a if i == at else torch.tensor(a)
                                       for i, a in enumerate(args)))


def test_module_checks_its_sizes_and_keeps_its_dtype():
    for args in ((0, 3, 4), (2, 3, -1), (2.5, 3, 4)):
        with pytest.raises(ValueError, match=r"Bilinear: (in1|out)_features must be a positive "
                                             r"int, got "):
            nn.Bilinear(*args)
    layer = nn.Bilinear(2, 3, 1, dtype="float64")
    assert str(layer.weight.dtype) == str(layer.bias.dtype) == "float64"
