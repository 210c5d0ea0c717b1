"""tinyffn.nn.init: the scales against their formulas (written out here) and PyTorch's,
the statistics of the values drawn, and what happens to the tensor and its graph."""
import math

import numpy as np
import pytest

import tinyffn
from tinyffn import nn, optim
from tinyffn.backend import dtype_name
from tinyffn.nn import init

N_OUT, N_IN = 400, 300                 # big enough for the sample statistics below


def sample_std_ok(values, std):
    """The sample std of n normal values is within 5 standard errors (std / sqrt(2n))."""
    n = values.size
    return abs(values.std() - std) < 5 * std / math.sqrt(2 * n)


@pytest.mark.parametrize("name, want", [("linear", 1.0), ("sigmoid", 1.0), ("tanh", 5 / 3),
                                        ("relu", math.sqrt(2)), ("selu", 0.75)])
def test_calculate_gain_table(name, want):
    assert init.calculate_gain(name) == pytest.approx(want, rel=1e-15)


@pytest.mark.parametrize("slope", [None, 0, 0.2, math.sqrt(5)])
def test_leaky_relu_gain(slope):
    s = 0.01 if slope is None else slope
    assert init.calculate_gain("leaky_relu", slope) == pytest.approx(
        math.sqrt(2 / (1 + s * s)), rel=1e-15)


def test_gains_are_pytorchs():
    torch = pytest.importorskip("torch")
    for name in init.NONLINEARITIES:
        assert init.calculate_gain(name) == pytest.approx(torch.nn.init.calculate_gain(name))
    assert init.calculate_gain("leaky_relu", 0.3) == pytest.approx(
        torch.nn.init.calculate_gain("leaky_relu", 0.3))


def test_bad_gain_arguments_are_refused():
    with pytest.raises(ValueError, match="calculate_gain: unknown nonlinearity='gelu'; use one "
                                         "of 'linear'"):
        init.calculate_gain("gelu")
    with pytest.raises(ValueError, match="negative slope of leaky_relu must be a number, got "
                                         "'0.2'"):
        init.calculate_gain("leaky_relu", "0.2")


def test_fixed_values(device):
    w = tinyffn.randn(3, 4, device=device)
    assert init.zeros_(w) is w
    np.testing.assert_array_equal(w.numpy(), np.zeros((3, 4)))
    np.testing.assert_array_equal(init.ones_(w).numpy(), np.ones((3, 4)))
    np.testing.assert_array_equal(init.constant_(w, 0.25).numpy(), np.full((3, 4), 0.25))
    counts = init.constant_(tinyffn.zeros(2, dtype="int64", device=device), 3)
    assert dtype_name(counts.dtype) == "int64" and counts.numpy().tolist() == [3, 3]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_normal_and_uniform_statistics_and_dtype(dtype, device):
    w = tinyffn.zeros(N_OUT, N_IN, dtype=dtype, device=device)
    init.normal_(w, mean=1.5, std=0.02)
    v = w.numpy()
    assert dtype_name(w.dtype) == dtype and w.device == device
    assert abs(v.mean() - 1.5) < 5 * 0.02 / math.sqrt(v.size)
    assert sample_std_ok(v - 1.5, 0.02)
    init.uniform_(w, -0.5, 2.0)
    v = w.numpy()
    assert v.min() >= -0.5 and v.max() < 2.0
    assert v.min() < -0.49 and v.max() > 1.99                  # the whole interval is used
    assert abs(v.mean() - 0.75) < 5 * (2.5 / math.sqrt(12)) / math.sqrt(v.size)


@pytest.mark.parametrize("fn, bound", [
    (lambda w: init.xavier_uniform_(w), math.sqrt(6 / (N_IN + N_OUT))),
    (lambda w: init.xavier_uniform_(w, gain=2.0), 2 * math.sqrt(6 / (N_IN + N_OUT))),
    (lambda w: init.kaiming_uniform_(w), math.sqrt(3) * math.sqrt(2) / math.sqrt(N_IN)),  # a=0
    (lambda w: init.kaiming_uniform_(w, nonlinearity="relu", mode="fan_out"),
     math.sqrt(3) * math.sqrt(2) / math.sqrt(N_OUT)),
    (lambda w: init.kaiming_uniform_(w, a=math.sqrt(5)), 1 / math.sqrt(N_IN)),
], ids=["xavier", "xavier-gain2", "kaiming-leaky", "kaiming-relu-fan-out", "kaiming-a-sqrt5"])
def test_uniform_scales(fn, bound, device):
    w = fn(tinyffn.zeros(N_OUT, N_IN, device=device)).numpy()
    assert np.abs(w).max() <= bound * (1 + 1e-6)
    assert np.abs(w).max() > 0.99 * bound                      # not a narrower interval


@pytest.mark.parametrize("fn, std", [
    (lambda w: init.xavier_normal_(w), math.sqrt(2 / (N_IN + N_OUT))),
    (lambda w: init.kaiming_normal_(w, nonlinearity="relu"), math.sqrt(2 / N_IN)),
    (lambda w: init.kaiming_normal_(w, mode="fan_out", nonlinearity="tanh"),
     (5 / 3) / math.sqrt(N_OUT)),
], ids=["xavier", "kaiming-relu", "kaiming-tanh-fan-out"])
def test_normal_scales(fn, std, device):
    w = fn(tinyffn.zeros(N_OUT, N_IN, device=device)).numpy()
    assert sample_std_ok(w, std)


def test_fans_of_a_weight_with_more_axes():
    # (out, in, k): fan_in = in·k, fan_out = out·k, as PyTorch's convolution weights
    w = init.kaiming_normal_(tinyffn.zeros(200, 30, 10), nonlinearity="relu")
    assert sample_std_ok(w.numpy(), math.sqrt(2 / 300))
    w = init.xavier_uniform_(tinyffn.zeros(200, 30, 10))
    assert np.abs(w.numpy()).max() <= math.sqrt(6 / (300 + 2000)) * (1 + 1e-6)


def test_linear_starts_as_kaiming_uniform_with_a_sqrt5():
    """nn.Linear's documented initialisation, drawn the same way: the same seed gives the
    same weight (b is drawn after W, so the generators are at the same place)."""
    tinyffn.manual_seed(7)
    layer = nn.Linear(30, 20)
    tinyffn.manual_seed(7)
    w = init.kaiming_uniform_(tinyffn.zeros(20, 30), a=math.sqrt(5))
    np.testing.assert_allclose(w.numpy(), layer.weight.numpy(), rtol=1e-6)


def test_a_seed_gives_the_same_values_on_every_device(device):
    tinyffn.manual_seed(3)
    there = init.xavier_normal_(tinyffn.zeros(5, 4, device=device)).numpy()
    tinyffn.manual_seed(3)
    here = init.xavier_normal_(tinyffn.zeros(5, 4)).numpy()
    np.testing.assert_array_equal(there, here)


def test_a_parameter_stays_the_same_object_and_keeps_learning():
    ffn = nn.FFN(4)
    w2 = ffn.w2.weight
    opt = optim.SGD(ffn.parameters(), lr=0.1)
    assert init.zeros_(ffn.w2.weight) is w2
    assert ffn.w2.weight is w2 and w2.requires_grad and w2.grad_fn is None
    assert any(p is w2 for p in ffn.parameters())
    x = tinyffn.randn(3, 4)
    np.testing.assert_array_equal(ffn(x).numpy(), np.broadcast_to(ffn.w2.bias.numpy(), (3, 4)))
    (ffn(x) ** 2).sum().backward()
    opt.step()                                   # the optimizer still holds it
    assert np.abs(w2.numpy()).max() > 0


def test_zero_w2_makes_the_residual_sublayer_the_identity():
    block = nn.FFN(8, bias=False)
    init.zeros_(block.w2.weight)
    x = tinyffn.randn(5, 8, requires_grad=True)
    y = x + block(x)
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones((5, 8)))     # only the residual path


def test_a_graph_keeps_the_values_it_saved():
    """init_ gives the tensor a new array: a graph built before keeps the old values, so
    its backward is still the derivative of what it computed."""
    w = tinyffn.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x = tinyffn.tensor([4.0, 5.0, 6.0], requires_grad=True)
    y = (w * x).sum()
    init.zeros_(w)
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(w.numpy(), [0.0, 0.0, 0.0])


def test_refusals():
    w = tinyffn.randn(3, 4, requires_grad=True)
    with pytest.raises(RuntimeError, match="normal_: this tensor was computed by mul"):
        init.normal_(w * 2)
    with pytest.raises(TypeError, match="xavier_uniform_: needs a tinyffn Tensor \\(a Parameter\\), "
                                        "got numpy.ndarray"):
        init.xavier_uniform_(np.zeros((3, 4)))
    with pytest.raises(ValueError, match=r"kaiming_normal_: a tensor of shape \(4,\) has no "
                                         "fan_in and fan_out"):
        init.kaiming_normal_(tinyffn.zeros(4))
    with pytest.raises(TypeError, match="uniform_: draws real numbers, but the tensor has "
                                        "dtype int64"):
        init.uniform_(tinyffn.zeros(3, dtype="int64"))
    with pytest.raises(ValueError, match="kaiming_uniform_: unknown mode='in'"):
        init.kaiming_uniform_(w, mode="in")
    with pytest.raises(ValueError, match="uniform_: the interval needs a <= b, got a=1.0, b=0.0"):
        init.uniform_(w, 1, 0)
    with pytest.raises(ValueError, match="normal_: std must be >= 0, got -1.0"):
        init.normal_(w, std=-1)
    with pytest.raises(ValueError, match="normal_: std must be >= 0, got nan"):
        init.normal_(w, std=float("nan"))


# ----------------------------------------------------------------------------- review additions
def test_leaky_relu_gain_refuses_a_bool_slope():
    """True is an int to Python, not a slope to PyTorch (it raises ValueError too)."""
    with pytest.raises(ValueError, match="negative slope of leaky_relu must be a number, "
                                         "got True"):
        init.calculate_gain("leaky_relu", True)


def test_convolutions_have_gain_1_as_in_pytorch():
    for name in ("conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                 "conv_transpose3d"):
        assert init.calculate_gain(name) == 1.0


@pytest.mark.parametrize("shape", [(6, 7), (8, 5, 3), (8, 5, 3, 4), (5, 1)])  # fan_in 1 too
def test_fans_multiply_every_trailing_axis(shape):
    """The same seed gives uniform_ with the bound written out: exact, so no statistics."""
    receptive = math.prod(shape[2:])
    fan_in, fan_out = shape[1] * receptive, shape[0] * receptive
    for fn, bound in [
            (lambda w: init.xavier_uniform_(w), math.sqrt(6 / (fan_in + fan_out))),
            (lambda w: init.kaiming_uniform_(w), math.sqrt(3) * math.sqrt(2 / fan_in)),
            (lambda w: init.kaiming_uniform_(w, mode="fan_out"),
             math.sqrt(3) * math.sqrt(2 / fan_out)),
            (lambda w: init.kaiming_uniform_(w, mode="FAN_OUT"),          # PyTorch lowercases
             math.sqrt(3) * math.sqrt(2 / fan_out))]:
        tinyffn.manual_seed(5)
        got = fn(tinyffn.zeros(*shape)).numpy()
        tinyffn.manual_seed(5)
        want = init.uniform_(tinyffn.zeros(*shape), -bound, bound).numpy()
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("shape", [(6, 7), (8, 5, 3), (5, 1)])
def test_normal_inits_draw_mean_0_and_the_std_written_out(shape):
    """The same seed gives normal_(w, 0, std) with std written out: exact, so the mean is
    checked too (the sample std alone would not see a shifted mean)."""
    receptive = math.prod(shape[2:])
    fan_in, fan_out = shape[1] * receptive, shape[0] * receptive
    for fn, std in [
            (lambda w: init.xavier_normal_(w), math.sqrt(2 / (fan_in + fan_out))),
            (lambda w: init.kaiming_normal_(w), math.sqrt(2 / fan_in)),             # a=0
            (lambda w: init.kaiming_normal_(w, mode="fan_out", nonlinearity="tanh"),
             (5 / 3) / math.sqrt(fan_out))]:
        tinyffn.manual_seed(5)
        got = fn(tinyffn.zeros(*shape)).numpy()
        tinyffn.manual_seed(5)
        want = init.normal_(tinyffn.zeros(*shape), 0.0, std).numpy()
        np.testing.assert_array_equal(got, want)


def test_degenerate_distributions_are_allowed_as_in_pytorch():
    w = tinyffn.zeros(3)
    np.testing.assert_array_equal(init.uniform_(w, 0.5, 0.5).numpy(), [0.5, 0.5, 0.5])
    np.testing.assert_array_equal(init.normal_(w, mean=0.25, std=0).numpy(), [0.25, 0.25, 0.25])


@pytest.mark.parametrize("shape", [(3, 0), (0, 0), (0, 4, 2)])
def test_a_weight_without_entries_is_left_as_it_is(shape):
    for fn in (init.xavier_uniform_, init.xavier_normal_, init.kaiming_uniform_,
               init.kaiming_normal_):
        assert fn(tinyffn.zeros(*shape)).shape == shape


def test_a_nan_bound_is_refused():
    with pytest.raises(ValueError, match="uniform_: the interval needs a <= b, got a=nan"):
        init.uniform_(tinyffn.zeros(3), float("nan"), 1.0)


def test_parameters_that_are_not_numbers_are_refused():
    with pytest.raises(TypeError, match="normal_: the distribution's parameters must be real "
                                        "numbers, got mean=0.0, std='0.1'"):
        init.normal_(tinyffn.zeros(3), std="0.1")
    with pytest.raises(TypeError, match="uniform_: .* got a=None, b=1"):
        init.uniform_(tinyffn.zeros(3), None, 1)
    with pytest.raises(TypeError, match=r"constant_: val must be a number \(a bool, an int or a float\), got NoneType"):
        init.constant_(tinyffn.zeros(3), None)
    with pytest.raises(TypeError, match=r"constant_: val must be a number \(a bool, an int or a float\), got list"):
        init.constant_(tinyffn.zeros(2, 3), [1, 2, 3])
    w = init.normal_(tinyffn.zeros(3), np.float32(1), np.float64(0))   # NumPy's numbers
    np.testing.assert_array_equal(w.numpy(), [1, 1, 1])


def test_a_value_the_dtype_cannot_hold_is_refused():
    with pytest.raises(ValueError, match="constant_: val 10000000000.0 does not fit in float16"):
        init.constant_(tinyffn.zeros(2, dtype="float16"), 1e10)
    with pytest.raises(ValueError, match="constant_: val 1099511627776 does not fit in int32"):
        init.constant_(tinyffn.zeros(2, dtype="int32"), 2 ** 40)
    with pytest.raises(TypeError, match="constant_: val 1.5 is not a whole number, and the "
                                        "dtype is int64"):      # torch truncates it to 1
        init.constant_(tinyffn.zeros(2, dtype="int64"), 1.5)
    assert np.isinf(init.constant_(tinyffn.zeros(2, dtype="float16"), math.inf).numpy()).all()


@pytest.mark.parametrize("dtype", ["bool", "int32", "uint8"])
def test_random_values_need_a_floating_tensor(dtype):
    with pytest.raises(TypeError, match=f"uniform_: draws real numbers, but the tensor has "
                                        f"dtype {dtype}"):
        init.uniform_(tinyffn.zeros(3, dtype=dtype))
    with pytest.raises(TypeError, match="kaiming_normal_: draws real numbers"):
        init.kaiming_normal_(tinyffn.zeros(3, 3, dtype=dtype))


def test_the_new_array_belongs_to_the_tensors_backend(device):
    w = tinyffn.zeros(3, 4, device=device)
    kind = type(w.data)
    for fn in (init.zeros_, init.normal_, init.uniform_, init.xavier_normal_,
               init.kaiming_uniform_):
        assert type(fn(w).data) is kind, fn.__name__
    assert (w * 2).shape == (3, 4)


def test_float64_values_have_float64_precision():
    w = tinyffn.zeros(1000, dtype="float64")
    for fn in (init.normal_, init.uniform_):
        v = fn(w).numpy()
        assert np.any(v.astype(np.float32).astype(np.float64) != v), fn.__name__


def test_fixed_values_are_exact():
    assert not np.signbit(init.zeros_(tinyffn.ones(3)).numpy()).any()      # +0.0, as PyTorch
    big = init.constant_(tinyffn.zeros(1, dtype="int64"), 2 ** 53 + 1)     # not through float
    assert big.numpy().tolist() == [2 ** 53 + 1]


def test_the_engines_shared_constants_cannot_be_initialised():
    x = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    three = (x * 3).grad_fn.parents[1]             # the 3 every `* 3` shares
    with pytest.raises(RuntimeError, match="zeros_: this tensor is one of the engine's shared "
                                           "number constants"):
        init.zeros_(three)
    np.testing.assert_array_equal((tinyffn.tensor([1.0, 2.0]) * 3).numpy(), [3.0, 6.0])


def test_nn_init_imports_as_in_pytorch():
    import importlib
    assert importlib.import_module("tinyffn.nn.init") is init is tinyffn.init
    # and nn.functional, as `import torch.nn.functional as F`
    assert importlib.import_module("tinyffn.nn.functional") is tinyffn.functional
    assert tinyffn.nn.functional is tinyffn.functional
    from tinyffn.nn.functional import relu
    assert relu is tinyffn.functional.relu
    from tinyffn.nn.init import kaiming_uniform_
    assert kaiming_uniform_ is init.kaiming_uniform_


# ----------------------------------------------------------------------------- trunc_normal_
# The truncated normal's moments, written out from SciPy's truncnorm (an independent
# implementation): (mean, std, a, b) -> (mean, std) of the distribution.
TRUNCATED = {
    (0.0, 1.0, -2.0, 2.0): (0.0, 0.8796256610342398),
    (0.0, 1.0, 8.0, 9.0): (8.121188992979867, 0.11894764723259385),     # a far tail
    (1.0, 2.0, -1.0, 6.0): (1.5374996912498426, 1.530442603289127),
}


@pytest.mark.parametrize("params", TRUNCATED)
def test_trunc_normal_draws_the_truncated_normal(params, device):
    mean, std, a, b = params
    w = init.trunc_normal_(tinyffn.zeros(40000, dtype="float64", device=device), mean, std, a, b)
    v = w.numpy()
    assert a <= v.min() and v.max() <= b and w.device == device
    want_mean, want_std = TRUNCATED[params]
    assert abs(v.mean() - want_mean) < 4 * want_std / math.sqrt(len(v))
    assert abs(v.std() - want_std) < 0.02 * want_std
    # every quantile: the largest gap between the sample's CDF and the exact one (KS)
    from scipy.stats import truncnorm
    exact = truncnorm((a - mean) / std, (b - mean) / std, loc=mean, scale=std)
    np.testing.assert_allclose([exact.mean(), exact.std()], TRUNCATED[params], rtol=1e-9)
    ks = np.abs(exact.cdf(np.sort(v)) - np.arange(1, len(v) + 1) / len(v)).max()
    assert ks < 1.63 / math.sqrt(len(v))            # the 1% critical value


def test_trunc_normal_matches_pytorchs_distribution():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    theirs = torch.nn.init.trunc_normal_(torch.empty(40000, dtype=torch.float64), 0.0, 0.02,
                                         -0.04, 0.04).numpy()
    ours = init.trunc_normal_(tinyffn.zeros(40000, dtype="float64"), std=0.02, a=-0.04,
                              b=0.04).numpy()
    assert -0.04 <= ours.min() and ours.max() <= 0.04
    np.testing.assert_allclose(np.quantile(ours, [0.1, 0.25, 0.5, 0.75, 0.9]),
                               np.quantile(theirs, [0.1, 0.25, 0.5, 0.75, 0.9]), atol=1e-3)


def test_trunc_normal_keeps_dtype_object_and_seed(device):
    w = nn.Parameter(tinyffn.zeros(3, 4, device=device))
    assert init.trunc_normal_(w, std=0.02) is w and dtype_name(w.dtype) == "float32"
    tinyffn.manual_seed(5)
    here = init.trunc_normal_(tinyffn.zeros(3, 4)).numpy()
    tinyffn.manual_seed(5)
    np.testing.assert_array_equal(init.trunc_normal_(tinyffn.zeros(3, 4, device=device)).numpy(),
                                  here)


@pytest.mark.parametrize("kwargs, error, match", [
    ({"std": 0.0}, ValueError, "std must be > 0"),
    ({"a": 1.0, "b": 1.0}, ValueError, "needs a < b"),
    ({"a": "x"}, TypeError, "must be real numbers"),
])
def test_trunc_normal_refusals(kwargs, error, match):
    with pytest.raises(error, match=f"trunc_normal_: .*{match}"):
        init.trunc_normal_(tinyffn.zeros(3), **kwargs)
    with pytest.raises(TypeError, match="trunc_normal_: draws real numbers"):
        init.trunc_normal_(tinyffn.zeros(3, dtype="int64"))


# ----------------------------------------------------------------------------- orthogonal_
def _rows_orthonormal(m: np.ndarray, gain: float) -> bool:
    """Qᵀ Q = gain² I for a tall (or square) m, Q Qᵀ = gain² I for a wide one."""
    small = m.T @ m if m.shape[0] >= m.shape[1] else m @ m.T
    return np.allclose(small, gain ** 2 * np.eye(small.shape[0]), rtol=0, atol=1e-12)


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (5, 5), (3, 2, 4), (8, 2, 2), (4, 1), (1, 4)])
@pytest.mark.parametrize("gain", [1, 2.5])
def test_orthogonal_makes_the_rows_or_the_columns_orthonormal(shape, gain, device):
    """The first axis the rows, the others flattened (3, 2, 4) -> (3, 8), as PyTorch."""
    w = nn.Parameter(tinyffn.zeros(*shape, dtype="float64", device=device))
    assert init.orthogonal_(w, gain) is w and w.shape == shape
    assert _rows_orthonormal(w.numpy().reshape(shape[0], -1), gain)


def test_orthogonal_is_numpys_qr_with_the_sign_fix_written_out():
    """Q of A = QR, A of N(0, 1) draws (transposed when wide), each column of Q times the
    sign of R's diagonal entry: Mezzadri's fix, which makes R's diagonal positive."""
    for rows, cols in ((5, 3), (3, 5)):
        tinyffn.manual_seed(11)
        w = init.orthogonal_(tinyffn.zeros(rows, cols, dtype="float64")).numpy()
        a = np.random.Generator(np.random.PCG64(11)).normal(0.0, 1.0, size=(rows, cols))
        a = a.T if rows < cols else a
        q, r = np.linalg.qr(a)
        want = q * np.sign(np.diag(r))
        np.testing.assert_array_equal(w, want.T if rows < cols else want)
        tall = w.T if rows < cols else w
        assert np.all(np.diag(tall.T @ a) > 0)            # R = Qᵀ A: its diagonal positive


def test_orthogonal_is_seeded_and_the_same_on_every_device(device):
    tinyffn.manual_seed(4)
    here = init.orthogonal_(tinyffn.zeros(4, 6)).numpy()
    tinyffn.manual_seed(4)
    there = init.orthogonal_(tinyffn.zeros(4, 6, device=device)).numpy()
    np.testing.assert_array_equal(there, here)
    assert not np.array_equal(init.orthogonal_(tinyffn.zeros(4, 6)).numpy(), here)


def test_orthogonal_shapes_are_pytorchs_live():
    torch = pytest.importorskip("torch")
    for shape in ((6, 4), (4, 6), (3, 2, 4)):
        theirs = torch.nn.init.orthogonal_(torch.empty(*shape, dtype=torch.float64), 2.0)
        ours = init.orthogonal_(tinyffn.zeros(*shape, dtype="float64"), 2.0)
        assert ours.shape == tuple(theirs.shape)
        for m in (ours.numpy(), theirs.numpy()):
            assert _rows_orthonormal(m.reshape(shape[0], -1), 2.0)
    empty = tinyffn.zeros(0, 3)
    assert init.orthogonal_(empty) is empty and empty.shape == (0, 3)   # torch: a no-op too
    with pytest.raises(ValueError):
        torch.nn.init.orthogonal_(torch.empty(3))


def test_orthogonal_refusals():
    with pytest.raises(ValueError, match=r"orthogonal_: needs a tensor of 2 or more axes .* "
                                         r"got shape \(3,\)"):
        init.orthogonal_(tinyffn.zeros(3))
    with pytest.raises(TypeError, match="orthogonal_: draws real numbers, but the tensor has "
                                        "dtype int64"):
        init.orthogonal_(tinyffn.zeros(3, 3, dtype="int64"))
    with pytest.raises(TypeError, match="orthogonal_: the distribution's parameters must be "
                                        "real numbers, got gain='a'"):
        init.orthogonal_(tinyffn.zeros(3, 3), "a")
    w = tinyffn.zeros(3, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="orthogonal_: this tensor was computed by mul"):
        init.orthogonal_(w * 2)
    with pytest.raises(RuntimeError, match=r"orthogonal_: x was made from another tensor by "
                                           r"x\.T or x\.transpose"):
        init.orthogonal_(w.detach().T)             # (w.T itself has a grad_fn: above)


# ----------------------------------------------------------------------------- eye_, dirac_
@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 4), (0, 2)])
def test_eye_is_the_identity(shape, device):
    w = nn.Parameter(tinyffn.full(shape, 7.0, device=device))
    assert init.eye_(w) is w
    np.testing.assert_array_equal(w.numpy(), np.eye(*shape))
    assert dtype_name(w.dtype) == "float32" and w.requires_grad and w.grad_fn is None


def dirac_reference(shape, groups):
    """PyTorch's loop, written out: 1 at [g·per + d, d, centre] for d < min(per, in)."""
    out, per = np.zeros(shape), shape[0] // groups
    for g in range(groups):
        for d in range(min(per, shape[1])):
            out[(g * per + d, d) + tuple(k // 2 for k in shape[2:])] = 1
    return out


@pytest.mark.parametrize("shape, groups", [((4, 2, 3), 1), ((2, 4, 3), 1), ((6, 4, 3, 3), 2),
                                           ((4, 6, 3, 2, 5), 2), ((3, 3, 4, 4), 3)])
def test_dirac_is_the_identity_of_a_convolution(shape, groups, device):
    w = nn.Parameter(tinyffn.ones(*shape, device=device))
    assert init.dirac_(w, groups) is w
    np.testing.assert_array_equal(w.numpy(), dirac_reference(shape, groups))
    assert w.numpy().sum() == groups * min(shape[0] // groups, shape[1])


def test_dirac_passes_a_signal_through():
    """A 1-D convolution with the dirac weight, kernel 3, padding 1, written as a sum over
    taps: the output's first channels are the input's."""
    x = np.random.default_rng(0).normal(size=(2, 5))              # (in, L)
    w = init.dirac_(tinyffn.zeros(3, 2, 3)).numpy()                # (out, in, k)
    xp = np.pad(x, ((0, 0), (1, 1)))
    y = np.stack([sum(w[:, :, k] @ xp[:, k:k + 5] for k in range(3))])[0]   # (out, L)
    np.testing.assert_array_equal(y, np.vstack([x, np.zeros((1, 5))]))


def test_eye_and_dirac_match_torch():
    torch = pytest.importorskip("torch")
    for shape, groups in [((4, 2, 3), 1), ((6, 4, 3, 3), 2), ((4, 6, 3, 2, 5), 2)]:
        t = torch.empty(shape)
        torch.nn.init.dirac_(t, groups)
        np.testing.assert_array_equal(init.dirac_(tinyffn.zeros(*shape), groups).numpy(),
                                      t.numpy())
    t = torch.empty(3, 5)
    torch.nn.init.eye_(t)
    np.testing.assert_array_equal(init.eye_(tinyffn.zeros(3, 5)).numpy(), t.numpy())


def test_eye_and_dirac_refuse_what_torch_refuses():
    with pytest.raises(ValueError, match=r"eye_: needs a 2-D tensor .* got shape \(2, 2, 2\)"):
        init.eye_(tinyffn.zeros(2, 2, 2))
    with pytest.raises(ValueError, match=r"dirac_: needs a 3-, 4- or 5-D tensor .* \(3, 3\)"):
        init.dirac_(tinyffn.zeros(3, 3))
    with pytest.raises(ValueError, match="5 output channels .* divisible by groups=2"):
        init.dirac_(tinyffn.zeros(5, 2, 3), groups=2)
    with pytest.raises(ValueError, match="groups must be a whole number >= 1, got 0"):
        init.dirac_(tinyffn.zeros(4, 2, 3), groups=0)
    x = tinyffn.zeros(2, 2, requires_grad=True)
    with pytest.raises(RuntimeError, match="eye_: this tensor was computed by"):
        init.eye_(x * 2)
