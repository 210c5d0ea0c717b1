"""F.softshrink, F.hardshrink, F.rrelu and nn.Softshrink, nn.Hardshrink, nn.RReLU
(tinyffn/activations_extra.py, activation_modules.py): ported activation bake-offs hit
AttributeError on them.

References: PyTorch 2.13's values and gradients written out below (run on every device,
without torch), the band |x| <= λ written out in NumPy, torch live where installed
(values, the sign of zeros, gradients, float16), and gradcheck on every device.
"""
import math

import numpy as np
import pytest

import tinyffn
from tinyffn import functional as F
from tinyffn import nn

inf, nan = math.inf, math.nan
X = [-inf, -2.0, -0.5, -0.25, -0.0, 0.0, 0.25, 0.5, 2.0, inf, nan]    # ±λ = ±0.5 included
GY = [float(i) for i in range(1, 12)]
# torch 2.13, float64: (values, gradient of sum(y * GY))
EXPECTED = {
    "softshrink": ([-inf, -1.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.5, inf, nan],
                   [1.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 9.0, 10.0, 11.0]),
    "hardshrink": ([-inf, -2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, inf, nan],
                   [1.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 9.0, 10.0, 11.0]),
    "rrelu": ([-inf, -0.4, -0.1, -0.05, -0.0, 0.0, 0.25, 0.5, 2.0, inf, nan],
              [0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 7.0, 8.0, 9.0, 10.0, 2.2]),
}
CALLS = {
    "softshrink": lambda F_, x: F_.softshrink(x, 0.5),
    "hardshrink": lambda F_, x: F_.hardshrink(x, 0.5),
    "rrelu": lambda F_, x: F_.rrelu(x, 0.1, 0.3),               # eval: slope 0.2
}


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")   # the sum of -inf and inf
@pytest.mark.parametrize("name", EXPECTED)
def test_values_and_gradients_are_pytorchs_written_out(name, device):
    x = tinyffn.tensor(X, dtype="float64", device=device, requires_grad=True)
    y = CALLS[name](F, x)
    (y * tinyffn.tensor(GY, dtype="float64", device=device)).sum().backward()
    want_y, want_g = EXPECTED[name]
    np.testing.assert_array_equal(y.numpy(), want_y)
    np.testing.assert_allclose(x.grad.numpy(), want_g, rtol=1e-15)   # torch's scalar path


@pytest.mark.parametrize("lambd", [0.0, 0.3, 1.7])
def test_the_band_written_out_in_numpy(lambd, device):
    v = np.linspace(-3, 3, 61)
    x = tinyffn.tensor(v, dtype="float64", device=device)
    band = np.abs(v) <= lambd
    np.testing.assert_allclose(F.softshrink(x, lambd).numpy(),
                               np.where(band, 0.0, v - np.sign(v) * lambd), atol=1e-15)
    np.testing.assert_array_equal(F.hardshrink(x, lambd).numpy(), np.where(band, 0.0, v))
    np.testing.assert_array_equal(F.hardshrink(x, -1.0).numpy(), v)    # nothing in the band


@pytest.mark.parametrize("name", EXPECTED)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_against_torch_live(name, dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    v = np.concatenate([X, rng.normal(size=200), [-0.3, 0.3, -0.1, 0.1]]).astype(dtype)
    gy = rng.normal(size=v.shape).astype(dtype)
    x, xt = tinyffn.tensor(v, requires_grad=True), torch.tensor(v, requires_grad=True)
    y, yt = CALLS[name](F, x), CALLS[name](torch.nn.functional, xt)
    (y * tinyffn.tensor(gy)).sum().backward()
    (yt * torch.tensor(gy)).sum().backward()
    want = yt.detach().numpy()
    assert y.numpy().dtype == want.dtype
    np.testing.assert_array_equal(y.numpy(), want)
    tol = 1e-3 if dtype == "float16" else 1e-6
    ok = ~np.isnan(v)      # torch's gradient at NaN is 1 on its scalar path, 0 on its vector one
    np.testing.assert_allclose(x.grad.numpy()[ok], xt.grad.numpy()[ok], rtol=tol, atol=0)


GRADCHECKED = {
    "softshrink": lambda x: F.softshrink(x, 0.3), "hardshrink": lambda x: F.hardshrink(x, 1.0),
    "rrelu-eval": lambda x: F.rrelu(x, 0.05, 0.45),
    "rrelu-train": lambda x: (tinyffn.manual_seed(3), F.rrelu(x, 0.1, 0.9, training=True))[1],
    "Softshrink": nn.Softshrink(0.2), "Hardshrink": nn.Hardshrink(), "RReLU": nn.RReLU().eval(),
}


@pytest.mark.parametrize("name", GRADCHECKED)
def test_gradcheck(name, device):
    x = tinyffn.tensor([[0.7, -2.0, 3.7, 0.1], [-4.0, 1.5, 0.25, -0.6]], dtype="float64",
                       device=device, requires_grad=True)        # no entry on ±λ or 0
    assert tinyffn.gradcheck(GRADCHECKED[name], [x])


def test_rrelu_training_draws_one_slope_per_entry_in_the_range(device):
    v = np.linspace(-2, 2, 4001)
    x = tinyffn.tensor(v, dtype="float64", device=device, requires_grad=True)
    tinyffn.manual_seed(0)
    y = F.rrelu(x, 0.1, 0.3, training=True)
    y.sum().backward()
    a, neg = x.grad.numpy(), v <= 0
    assert (a[~neg] == 1).all()
    assert a[neg].min() >= 0.1 and a[neg].max() < 0.3 and len(np.unique(a[neg])) > 1900
    assert abs(a[neg].mean() - 0.2) < 0.005                       # U[0.1, 0.3): mean 0.2
    np.testing.assert_allclose(y.numpy()[neg], v[neg] * a[neg], rtol=1e-15)
    tinyffn.manual_seed(0)                                        # the same seed, the same slopes
    np.testing.assert_array_equal(F.rrelu(x, 0.1, 0.3, training=True).numpy(), y.numpy())


def test_rrelu_module_follows_train_and_eval():
    m, x = nn.RReLU(0.1, 0.3), tinyffn.tensor([-1.0] * 500, dtype="float64")
    slopes = -m(x).numpy()
    assert m.training and len(np.unique(slopes)) > 400 and ((0.1 <= slopes) & (slopes < 0.3)).all()
    assert m.eval()(x).tolist() == [-0.2] * 500


def test_modules_print_and_keep_attributes_as_pytorchs():
    assert [repr(m) for m in (nn.Softshrink(), nn.Hardshrink(0.3), nn.RReLU())] == [
        "Softshrink(0.5)", "Hardshrink(0.3)", "RReLU(lower=0.125, upper=0.3333333333333333)"]
    assert (nn.Softshrink().lambd, nn.Hardshrink().lambd) == (0.5, 0.5)
    r = nn.RReLU()
    assert (r.lower, r.upper, r.inplace) == (1 / 8, 1 / 3, False)


def test_modules_print_as_torchs_live():
    torch = pytest.importorskip("torch")
    for args in [(), (0.25,)]:
        assert repr(nn.Softshrink(*args)) == repr(torch.nn.Softshrink(*args))
        assert repr(nn.Hardshrink(*args)) == repr(torch.nn.Hardshrink(*args))
    assert repr(nn.RReLU(0.2, 0.4)) == repr(torch.nn.RReLU(0.2, 0.4))


@pytest.mark.parametrize("call, error, words", [
    (lambda x: F.softshrink(x, -1.0), ValueError, "lambd must be >= 0"),
    (lambda x: F.rrelu(x, 0.5, 0.2), ValueError, "lower (0.5) must be <= upper (0.2)"),
    (lambda x: F.rrelu(x, training="yes"), TypeError, "training must be True or False"),
    (lambda x: F.rrelu(x, inplace=True), ValueError, "inplace"),
    (lambda x: F.hardshrink(x, "0.5"), TypeError, "lambd must be a number"),
    (lambda x: F.softshrink(x.long()), TypeError, "softshrink: input has dtype int64"),
])
def test_bad_input_is_refused_with_a_clear_message(call, error, words):
    with pytest.raises(error, match=words.replace("(", r"\(").replace(")", r"\)")):
        call(tinyffn.tensor([1.0, -1.0]))
