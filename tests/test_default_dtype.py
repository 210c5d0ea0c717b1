"""set_default_dtype / get_default_dtype: everything that makes a float without a dtype
follows the setting, as in PyTorch, and an integer or complex dtype is refused.

Each case is written out (float64 under float64, float32 after setting it back) and, where
torch is installed, compared with torch under the same default."""
import math

import numpy as np
import pytest

import tinyffn
from tinyffn.backend import DEFAULTS


@pytest.fixture(autouse=True)
def restore_default():
    """Every test here ends with both libraries' default float32, pass or fail."""
    yield
    tinyffn.set_default_dtype(tinyffn.float32)
    assert DEFAULTS.float == "float32"
    try:
        import torch
    except ImportError:
        return
    torch.set_default_dtype(torch.float32)


def _torch_default(name):
    torch = pytest.importorskip("torch")
    torch.set_default_dtype(getattr(torch, name))       # restored by restore_default
    return torch


# Each case runs on the module m, tinyffn or torch: the same spelling in both libraries.
CASES = {
    "tensor(1.5)": lambda m: m.tensor(1.5),
    "tensor([1, 2.5])": lambda m: m.tensor([1, 2.5]),
    "zeros": lambda m: m.zeros(2, 3),
    "ones": lambda m: m.ones(2),
    "empty": lambda m: m.empty(2),
    "randn": lambda m: m.randn(2),
    "rand": lambda m: m.rand(2),
    "full(1.5)": lambda m: m.full((2,), 1.5),
    "arange(0, 2, 0.5)": lambda m: m.arange(0, 2, 0.5),
    "linspace": lambda m: m.linspace(0, 1, 5),
    "eye": lambda m: m.eye(2),
    "int * 2.5": lambda m: m.tensor([1, 2]) * 2.5,
    "2.5 + int": lambda m: 2.5 + m.tensor([1, 2]),
    "int / int": lambda m: m.tensor([1, 2]) / m.tensor([2, 4]),
    "int / 2": lambda m: m.tensor([1, 2]) / 2,
    "bool + 0.5": lambda m: m.tensor([True, False]) + 0.5,
    "int.exp()": lambda m: m.tensor([1, 2]).exp(),
    "int.sqrt()": lambda m: m.tensor([1, 2]).sqrt(),
    "int.sigmoid()": lambda m: m.tensor([1, 2]).sigmoid(),
    "int ** 0.5": lambda m: m.tensor([1, 2]) ** 0.5,
    "log2(int)": lambda m: m.log2(m.tensor([1, 2])),
    "clamp(int, 0.5)": lambda m: m.clamp(m.tensor([0, 2]), 0.5),
    "Linear": lambda m: m.nn.Linear(2, 3).weight,
    "Linear bias": lambda m: m.nn.Linear(2, 3).bias,
    "Conv1d": lambda m: m.nn.Conv1d(2, 3, 2).weight,
    "LayerNorm": lambda m: m.nn.LayerNorm(3).weight,
    "BatchNorm1d": lambda m: m.nn.BatchNorm1d(3).weight,
    "BatchNorm1d running_var": lambda m: m.nn.BatchNorm1d(3).running_var,
    "MaxPool1d of int / 2": lambda m: m.nn.MaxPool1d(2)(m.tensor([[[1, 2, 3, 4]]]) / 2),
    "Embedding": lambda m: m.nn.Embedding(4, 3).weight,
    "MultiheadAttention": lambda m: m.nn.MultiheadAttention(4, 2).in_proj_weight,
    "PReLU": lambda m: m.nn.PReLU().weight,
    "square_subsequent_mask": lambda m: m.nn.Transformer.generate_square_subsequent_mask(3),
    "TransformerEncoderLayer": lambda m: m.nn.TransformerEncoderLayer(
        4, 2, dim_feedforward=8).linear1.weight,
}


@pytest.mark.parametrize("case", CASES)
def test_follows_the_default_and_back(case):
    make = CASES[case]
    assert make(tinyffn).dtype == tinyffn.float32
    tinyffn.set_default_dtype(tinyffn.float64)
    assert make(tinyffn).dtype == tinyffn.float64
    tinyffn.set_default_dtype(tinyffn.float32)
    assert make(tinyffn).dtype == tinyffn.float32


@pytest.mark.parametrize("name", ["float64", "float16"])
@pytest.mark.parametrize("case", CASES)
def test_matches_torch(case, name):
    torch = _torch_default(name)
    tinyffn.set_default_dtype(name)
    expected = CASES[case](torch).dtype
    assert str(expected) == f"torch.{name}"            # the case does follow torch's default
    assert CASES[case](tinyffn).dtype == np.dtype(name)


INTEGER_CASES = {     # integers in, integers out: no default float involved
    "tensor([1, 2])": lambda m: m.tensor([1, 2]),
    "arange(3)": lambda m: m.arange(3),
    "full(1)": lambda m: m.full((2,), 1),
    "int * 2": lambda m: m.tensor([1, 2]) * 2,
    "randint": lambda m: m.randint(0, 3, (2,)),
    "zeros_like(int)": lambda m: m.zeros_like(m.tensor([1, 2])),
}


@pytest.mark.parametrize("case", INTEGER_CASES)
def test_integers_stay_int64(case):
    tinyffn.set_default_dtype(tinyffn.float64)
    assert INTEGER_CASES[case](tinyffn).dtype == tinyffn.int64


def test_values_are_float64_not_rounded_float32():
    tinyffn.set_default_dtype(tinyffn.float64)
    assert tinyffn.tensor(0.1).item() == 0.1            # float32 gives 0.10000000149
    assert tinyffn.tensor([1, 0.1]).numpy().tolist() == [1.0, 0.1]
    y = tinyffn.tensor([1, 3]) * 0.1
    np.testing.assert_array_equal(y.numpy(), np.array([1, 3]) * 0.1)
    np.testing.assert_array_equal((tinyffn.tensor([1]) / tinyffn.tensor([3])).numpy(), [1 / 3])
    np.testing.assert_array_equal(tinyffn.arange(0, 0.3, 0.1).numpy(), np.arange(0, 0.3, 0.1))
    # an integer beyond float32's 2**24 compares exactly with a float in float64
    assert (tinyffn.tensor([16777217]) == 16777216.0).item() is False
    tinyffn.set_default_dtype(tinyffn.float32)
    assert (tinyffn.tensor([16777217]) == 16777216.0).item() is True
    assert tinyffn.tensor(0.1).item() == float(np.float32(0.1))


def test_arrays_and_numpy_scalars_keep_their_dtype():
    tinyffn.set_default_dtype(tinyffn.float64)
    assert tinyffn.tensor(np.ones(2, np.float32)).dtype == tinyffn.float32
    assert tinyffn.tensor(np.float32(1)).dtype == tinyffn.float32
    assert tinyffn.tensor([1.5], dtype="float32").dtype == tinyffn.float32
    assert tinyffn.zeros(2, dtype=tinyffn.float16).dtype == tinyffn.float16
    assert tinyffn.nn.Linear(2, 3, dtype="float32").weight.dtype == tinyffn.float32
    x = tinyffn.ones(2, dtype="float32")
    assert (x * 2.5).dtype == tinyffn.float32         # a float tensor keeps its dtype
    tinyffn.set_default_dtype(tinyffn.float32)
    assert tinyffn.tensor(np.ones(2)).dtype == tinyffn.float64


# a list holding NumPy numbers: (list, default, torch 2.13's dtype), written out for CI
LIST_DTYPES = [
    ([np.float32(1), 2], "float64", "float32"),        # an int does not widen a float
    ([np.float32(1), 2.0], "float64", "float64"),      # a Python float is the default
    ([np.float32(1), 2.0], "float32", "float32"),
    ([np.float16(1), 2], "float32", "float16"),
    ([np.float16(1), 2.5], "float32", "float32"),
    ([1, np.float32(2)], "float64", "float32"),
    ([[np.float32(1)], [2]], "float64", "float32"),
    ([np.float64(1), 2], "float32", "float64"),        # np.float64 is a Python float too
    ([np.int32(1), 2], "float32", "int64"),
    ([np.int8(1), np.uint8(2)], "float32", "int16"),
    ([np.uint8(1), True], "float32", "uint8"),
    ([np.int64(2 ** 10), np.float16(1)], "float32", "float16"),   # any float beats an int
    ([True, np.float32(1)], "float64", "float32"),
    ([np.float32(1), np.float64(2)], "float32", "float64"),
]


@pytest.mark.parametrize("data, default, expected", LIST_DTYPES)
def test_a_list_of_numpy_numbers_is_promoted_as_torch_does(data, default, expected):
    tinyffn.set_default_dtype(default)
    assert tinyffn.tensor(data).dtype == np.dtype(expected)
    np.testing.assert_array_equal(tinyffn.tensor(data).numpy(), np.array(data, dtype=expected))


@pytest.mark.parametrize("data, default, expected", LIST_DTYPES)
def test_list_dtypes_written_out_are_torchs(data, default, expected):
    torch = _torch_default(default)
    assert str(torch.tensor(data).dtype) == f"torch.{expected}"


def test_a_shared_number_constant_follows_a_change():
    """int_tensor * 0.5 shares its 0.5 between calls; a change of default must not reuse
    the one made in the old dtype."""
    i = tinyffn.tensor([1, 2])
    assert (i * 0.5).dtype == tinyffn.float32
    tinyffn.set_default_dtype(tinyffn.float64)
    assert (i * 0.5).dtype == tinyffn.float64
    assert (i / 3).dtype == tinyffn.float64
    tinyffn.set_default_dtype(tinyffn.float32)
    assert (i * 0.5).dtype == tinyffn.float32
    assert (i / 3).dtype == tinyffn.float32


@pytest.mark.parametrize("d", [tinyffn.float64, "float64", np.float64, np.dtype("float64")])
def test_accepts_dtype_objects_and_names(d):
    tinyffn.set_default_dtype(d)
    assert tinyffn.get_default_dtype() == tinyffn.float64
    assert isinstance(tinyffn.get_default_dtype(), np.dtype)
    assert tinyffn.get_default_dtype() == tinyffn.tensor(1.5).dtype


def test_get_default_dtype_starts_as_float32():
    assert tinyffn.get_default_dtype() == tinyffn.float32 == tinyffn.zeros(1).dtype


@pytest.mark.parametrize("d", [tinyffn.int64, "int32", "bool", "complex64", None, "bfloat16",
                               "nonsense", 3])
def test_refuses_what_is_not_a_float_dtype(d):
    with pytest.raises(TypeError, match="set_default_dtype: .*float"):
        tinyffn.set_default_dtype(d)
    assert tinyffn.get_default_dtype() == tinyffn.float32     # unchanged


def test_torch_refuses_integer_and_complex_too():
    torch = pytest.importorskip("torch")
    for d in (torch.int64, torch.complex64):
        with pytest.raises(TypeError, match="only floating-point types"):
            torch.set_default_dtype(d)


def test_repr_names_the_dtype_only_when_not_the_default():
    tinyffn.set_default_dtype(tinyffn.float64)
    assert repr(tinyffn.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    assert repr(tinyffn.tensor([1.0, 2.0], dtype="float32")) == \
        "tensor([1., 2.], dtype=float32)"


def test_repr_matches_torch():
    torch = _torch_default("float64")
    tinyffn.set_default_dtype(tinyffn.float64)
    for make in (lambda m: m.tensor([1.0, 2.0]), lambda m: m.tensor([1.0], dtype=m.float32)):
        assert repr(make(tinyffn)) == repr(make(torch)).replace("torch.", "")


def test_finfo_without_a_type_is_the_defaults():
    tinyffn.set_default_dtype(tinyffn.float64)
    assert tinyffn.finfo().eps == float(np.finfo(np.float64).eps)
    tinyffn.set_default_dtype(tinyffn.float32)
    assert tinyffn.finfo().eps == float(np.finfo(np.float32).eps)


def test_finfo_matches_torch():
    torch = _torch_default("float64")
    tinyffn.set_default_dtype(tinyffn.float64)
    assert tinyffn.finfo().eps == torch.finfo().eps


def test_on_every_device(device):
    tinyffn.set_default_dtype(tinyffn.float64)
    i = tinyffn.tensor([1, 2], device=device)
    for y in (tinyffn.tensor([1.5], device=device), tinyffn.zeros(2, device=device),
              i * 0.5, i / i, i.exp(), tinyffn.nn.Linear(2, 3, device=device).weight):
        assert y.device == device and tinyffn.backend.dtype_name(y.dtype) == "float64"
    np.testing.assert_array_equal((i / 3).numpy(), np.array([1, 2]) / 3)


def test_a_float64_model_trains_in_float64():
    """The GP / numerics use: set float64 once, build and differentiate; gradcheck passes
    on the module's own parameters (float32 ones would fail it)."""
    tinyffn.set_default_dtype(tinyffn.float64)
    tinyffn.manual_seed(0)
    lin = tinyffn.nn.Linear(3, 2)
    x = tinyffn.randn(4, 3)
    loss = (lin(x) ** 2).sum()
    loss.backward()
    assert lin.weight.grad.dtype == tinyffn.float64
    # dL/dW = 2 (xW^T + b)^T x, by hand in NumPy
    W, b, xs = lin.weight.numpy(), lin.bias.numpy(), x.numpy()
    np.testing.assert_allclose(lin.weight.grad.numpy(), 2 * (xs @ W.T + b).T @ xs, rtol=1e-12)
    assert tinyffn.gradcheck(lambda w: (x @ w.T).tanh().sum(),
                             (tinyffn.randn(2, 3, requires_grad=True),))
    assert math.isclose(tinyffn.tensor(1.0).item() / 3, 1 / 3)
