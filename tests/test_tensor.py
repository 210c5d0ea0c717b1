"""The Tensor API and its errors: creation, conversion, devices, and bad input."""
import copy
import operator
import pickle
import re
import subprocess
import sys

import numpy as np
import pytest

import tinyffn
from tinyffn import promotion
from tinyffn.backend import dtype_name


def test_creation_dtypes_follow_pytorch():
    assert tinyffn.tensor([1.0, 2.0]).dtype == np.float32
    assert tinyffn.tensor([1, 2]).dtype == np.int64
    assert tinyffn.tensor(np.zeros(2)).dtype == np.float64        # arrays keep their dtype
    assert tinyffn.tensor([1, 2], dtype="float64").dtype == np.float64
    assert tinyffn.tensor([1, 2], dtype=np.float32).dtype == np.float32
    assert tinyffn.zeros(2, 3).shape == (2, 3) and tinyffn.ones((4,)).numpy().tolist() == [1, 1, 1, 1]
    assert tinyffn.randn(2, 2, dtype="float64").dtype == np.float64
    r = tinyffn.rand(1000).numpy()
    assert r.min() >= 0 and r.max() < 1


def test_manual_seed_reproduces_and_is_device_independent(device):
    tinyffn.manual_seed(7)
    a = tinyffn.randn(5, device=device).numpy()
    tinyffn.manual_seed(7)
    b = tinyffn.randn(5).numpy()
    np.testing.assert_array_equal(a, b)


def test_tensor_properties_and_conversion(device):
    t = tinyffn.tensor([[1.0, 2.0], [3.0, 4.0]], device=device, requires_grad=True)
    assert t.shape == (2, 2) and t.ndim == 2 and t.device == device and t.is_leaf
    assert isinstance(t.numpy(), np.ndarray) and t.numpy().tolist() == [[1, 2], [3, 4]]
    assert t.sum().item() == 10.0
    d = t.detach()
    assert not d.requires_grad and d.grad_fn is None
    assert t.to(device) is t
    moved = t.to("cpu")
    assert moved.device == "cpu" and moved.requires_grad
    np.testing.assert_array_equal(moved.numpy(), t.numpy())
    assert t.T.shape == (2, 2) and t.T.numpy()[0, 1] == 3.0


def test_python_scalars_keep_float32():
    x = tinyffn.randn(3)
    for y in (x * 2, 2 * x, x + 1.5, 1.5 - x, x / 3, 3 / (x * x + 1), x ** 2, -x):
        assert y.dtype == np.float32


def _constant_of(x, number):
    """The constant tensor an op makes of ``number`` next to ``x``."""
    from tinyffn.ops import Mul
    from tinyffn.tensor import as_tensors
    return as_tensors((x, number), Mul)[1]


def test_numbers_become_constants_shared_per_value_dtype_and_sign():
    x = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    two = [(x * 2).grad_fn.parents[1] for _ in range(2)]
    assert two[0] is two[1] and two[0].item() == 2.0       # one constant, made once
    x64 = x.double()
    assert (x64 * 2).grad_fn.parents[1] is not two[0]      # another dtype, another one
    assert (x64 * 2).grad_fn.parents[1].dtype == np.float64
    assert (x * 2.0).grad_fn.parents[1] is not two[0]      # 2.0 is a float, 2 an int
    halves = [(x * 2.5).grad_fn.parents[1] for _ in range(2)]
    x * 3.5                                                # another number in between
    assert halves[0] is halves[1] is (x * 2.5).grad_fn.parents[1]   # a float is shared too
    ints = tinyffn.tensor([1, 2])
    assert _constant_of(ints, 0.5).dtype == np.float32       # int tensor * 0.5: float32 0.5
    assert _constant_of(ints, 2).dtype == np.int64
    with np.errstate(divide="ignore"):                      # -0.0 == 0.0, yet 1/-0 = -inf
        assert (1 / (x * 0.0)).tolist() == [np.inf, np.inf]
        assert (1 / (x * -0.0)).tolist() == [-np.inf, -np.inf]



def test_an_array_operand_is_copied_so_changing_it_later_changes_no_gradient():
    """x * a saves a for backward; the caller's NumPy array a, changed after the op,
    must not change x.grad (dy/dx = a as it was)."""
    a = np.array([1.0, 2.0], np.float32)
    x = tinyffn.tensor([3.0, 4.0], requires_grad=True)
    y = x * a
    a[:] = 0.0
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 2.0] and y.tolist() == [3.0, 8.0]

def test_repr_shows_values_and_grad_fn():
    x = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    assert repr(x) == "tensor([1., 2.], requires_grad=True)"
    assert repr(x * 2) == "tensor([2., 4.], grad_fn=<MulBackward>)"
    # a dtype other than the defaults (float32, int64, bool) is named, as torch 2.13 names
    # it: tensor([1., 2.], dtype=torch.float64), tensor([1, 2], dtype=torch.int32)
    assert repr(tinyffn.tensor([1.0, 2.0], dtype="float64")) == "tensor([1., 2.], dtype=float64)"
    assert repr(tinyffn.tensor([1, 2], dtype="int32")) == "tensor([1, 2], dtype=int32)"
    assert repr(tinyffn.tensor([True])) == "tensor([ True])"


def test_comparisons_and_argmax_are_not_differentiable():
    x = tinyffn.tensor([[1.0, 5.0], [7.0, 2.0]], requires_grad=True)
    assert (x > 3).numpy().tolist() == [[False, True], [True, False]]
    assert x.argmax(axis=1).numpy().tolist() == [1, 0]
    assert not (x == x).requires_grad


# ---------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("data, kind", [(None, "NoneType"), ("abc", "str"), ([1.0, None], "NoneType"),
                                        (np.array(["x"]), "str")])
def test_data_that_is_no_numbers_is_refused(data, kind):
    """A string once became a '<U3' tensor."""
    with pytest.raises(TypeError, match=f"tensor\\(\\): data must be numbers, not {kind}"):
        tinyffn.tensor(data)


def test_ragged_list_is_refused():
    with pytest.raises(ValueError, match="rectangular"):
        tinyffn.tensor([[1.0, 2.0], [3.0]])


def test_requires_grad_on_integers_is_refused():
    with pytest.raises(TypeError, match="only floating-point tensors can require gradients.*int64"):
        tinyffn.tensor([1, 2], requires_grad=True)


def test_unknown_device():
    with pytest.raises(tinyffn.DeviceError, match="unknown device 'tpu'; choose one of cpu, cuda"):
        tinyffn.zeros(2, device="tpu")


@pytest.mark.skipif(tinyffn.cuda_available(), reason="this machine has a GPU")
def test_cuda_without_cupy_says_which_extra_to_install():
    with pytest.raises(tinyffn.DeviceError, match=r"pip install -e \"\.\[cuda12\]\".*\[cuda13\]|no GPU"):
        tinyffn.zeros(2, device="cuda")


def test_mixing_devices_names_both():
    a = tinyffn.randn(2)
    b = tinyffn.randn(2, device="strict")
    with pytest.raises(tinyffn.DeviceError, match=r"add: inputs are on different devices "
                                                  r"\(cpu and strict\)"):
        a + b


def test_matmul_shape_mismatch_names_both_shapes():
    with pytest.raises(ValueError, match=r"matmul: shapes \(2, 3\) and \(4, 5\) are not aligned"):
        tinyffn.randn(2, 3) @ tinyffn.randn(4, 5)
    with pytest.raises(ValueError, match=r"batch axes of \(2, 3, 4\) and \(3, 4, 5\)"):
        tinyffn.randn(2, 3, 4) @ tinyffn.randn(3, 4, 5)
    with pytest.raises(ValueError, match=r"matmul: both operands need at least one axis, got "
                                         r"shapes \(\) and \(3,\); use \* for scalars"):
        tinyffn.tensor(2.0) @ tinyffn.randn(3)
    with pytest.raises(ValueError, match=r"the last axis of the first \(3\) must equal the only "
                                         r"axis of the second \(4\)"):
        tinyffn.randn(2, 3) @ tinyffn.randn(4)              # a 1-D second operand: a column


def test_broadcast_mismatch_names_both_shapes():
    with pytest.raises(ValueError, match=r"add: shapes \(2, 3\) and \(4,\) cannot be broadcast"):
        tinyffn.randn(2, 3) + tinyffn.randn(4)
    with pytest.raises(ValueError, match=r"broadcast_to: cannot broadcast shape \(3,\) to \(2, 4\)"):
        tinyffn.randn(3).broadcast_to(2, 4)


def test_backward_on_non_scalar_needs_grad():
    y = tinyffn.randn(3, requires_grad=True) * 2.0
    with pytest.raises(RuntimeError, match=r"only for an output of one element, not of shape \(3,\); pass grad="):
        y.backward()


def test_backward_grad_of_wrong_shape():
    y = tinyffn.randn(3, requires_grad=True) * 2.0
    with pytest.raises(RuntimeError, match=r"grad has shape \(2,\) but the output has shape \(3,\)"):
        y.backward(tinyffn.ones(2))
    y.backward(tinyffn.ones(3))       # the right shape works


def test_backward_without_requires_grad():
    with pytest.raises(RuntimeError, match="does not require grad"):
        tinyffn.randn(1).sum().backward()


def test_item_on_many_elements_and_bad_axes():
    with pytest.raises(ValueError, match="only one-element tensors"):
        tinyffn.randn(3).item()
    with pytest.raises(ValueError, match="sum: axis 2 is out of range for a tensor with 2 "
                                         "dimensions"):
        tinyffn.randn(2, 2).sum(axis=2)
    with pytest.raises(ValueError, match=r"permute: axes \(0, 0\) name the same axis twice"):
        tinyffn.randn(2, 3).permute(0, 0)
    with pytest.raises(ValueError, match="permute: a tensor of shape .* needs all 3 axes in some order"):
        tinyffn.randn(2, 3, 4).permute(1, 0)
    with pytest.raises(ValueError, match="sum: a 0-d tensor takes axis 0 or -1"):
        tinyffn.tensor(2.0).sum(axis=1)


def test_tensor_exponent_and_float_index_are_refused():
    x = tinyffn.randn(3)
    with pytest.raises(TypeError, match="pow: the exponent must be a number .*, got Tensor"):
        x ** x
    with pytest.raises(TypeError, match="getitem: index arrays must be integers or a bool "
                                        "mask, got float32"):
        x[x]


def test_numpy_operands_on_the_left_give_tensors_in_the_graph():
    """Without __array_ufunc__ = None, NumPy would build an object array of 0-d tensors."""
    x = tinyffn.tensor([1.0, -2.0, 3.0], requires_grad=True)
    w = np.array([2.0, 3.0, 4.0], dtype=np.float32)
    y = w * x + np.float32(1.0)
    assert isinstance(y, tinyffn.Tensor) and y.dtype == np.float32
    np.testing.assert_array_equal(y.numpy(), [3.0, -5.0, 13.0])
    (np.ones(3, dtype=np.float32) - y).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), -w)
    assert isinstance(np.zeros(3) < x, tinyffn.Tensor)


def test_python_conversions_follow_pytorch():
    x = tinyffn.tensor([0.5, -1.5])
    assert float(x.sum()) == -1.0 and int(x[1]) == -1
    assert bool(x[0]) and not bool(x.sum() > 0)
    with pytest.raises(ValueError, match=r"bool\(\): the truth value of a tensor with 2 "
                                         r"elements \(shape \(2,\)\) is ambiguous"):
        if x > 0:
            pass
    with pytest.raises(ValueError, match="item"):
        float(x)
    a = np.asarray(x)
    assert a.dtype == np.float32 and a.tolist() == [0.5, -1.5]
    assert np.asarray(x, dtype=np.float64).dtype == np.float64
    with pytest.raises(TypeError, match=r"tensor on 'strict' to a NumPy array implicitly; "
                                        r"call \.numpy\(\)"):
        np.asarray(x.to("strict"))


def test_number_to_the_power_of_a_tensor(device):
    x = tinyffn.tensor([-1.0, 0.0, 2.5], dtype="float64", requires_grad=True, device=device)
    np.testing.assert_allclose((3 ** x).numpy(), 3.0 ** np.array([-1.0, 0.0, 2.5]), rtol=1e-14)
    assert tinyffn.gradcheck(lambda t: 0.5 ** t, [x])
    for base in (0, -2.0, True, "2"):
        with pytest.raises(TypeError, match="base \\*\\* tensor needs a positive Python number"):
            base ** x


def test_an_integer_to_the_power_of_an_integer_tensor_is_exact(device):
    """As PyTorch: 2 ** int_tensor is int64 and exact (exp(t ln 2) in float32 is not past
    2 ** 24); a bool exponent or base counts as 0/1 in int64. Where PyTorch wraps around
    (2 ** 63) or answers 0 (2 ** -1), the error says what to write."""
    n = tinyffn.tensor([0, 3, 62], device=device)
    y = 2 ** n
    assert dtype_name(y.dtype) == "int64" and y.tolist() == [1, 8, 2 ** 62]
    assert ((-1) ** n).tolist() == [1, -1, 1] and (0 ** n).tolist() == [1, 0, 0]
    assert (3 ** tinyffn.tensor([True, False], device=device)).tolist() == [3, 1]
    b = tinyffn.tensor([True, False], device=device) ** 2
    assert dtype_name(b.dtype) == "int64" and b.tolist() == [1, 0]     # torch 2.13: int64
    with pytest.raises(ValueError, match=r"2 \*\* an integer tensor holding a negative "
                                         r"exponent .* \(2.0 \*\* t\)"):
        2 ** tinyffn.tensor([1, -1], device=device)
    with pytest.raises(OverflowError, match=r"2 \*\* 63 does not fit in int64 \(.*\); use "
                                            r"t\.float\(\)$"):     # int64 is the widest
        2 ** tinyffn.tensor([63], device=device)
    with pytest.raises(OverflowError, match=r"3 \*\* 5 does not fit in int8 \(-128 to 127\); "
                                            r"use t\.to\(dtype='int64'\) or t\.float\(\)$"):
        3 ** tinyffn.tensor([5], dtype="int8", device=device)
    with pytest.raises(OverflowError, match=r"^pow: \(-2\) \*\* 8 does not fit in int8"):
        (-2) ** tinyffn.tensor([7, 8], dtype="int8", device=device)  # 256; (-2) ** 7 fits
    assert (3 ** tinyffn.tensor([4], dtype="int8", device=device)).tolist() == [81]
    # a base outside the exponents' dtype: NumPy's "Python integer -2 out of bounds" came out
    for base, dtype in ((-2, "uint8"), (300, "int8")):
        with pytest.raises(OverflowError, match=rf"pow: the base {base} does not fit in "
                                                rf"{dtype} \(.*\), .* t.to\(dtype='int64'\)"):
            base ** tinyffn.tensor([0, 1], dtype=dtype, device=device)
    assert ((-2) ** tinyffn.tensor([0, 1, 3], dtype="int16", device=device)).tolist() == \
        [1, -2, -8]
    # the dtype's own limits are bases and powers it holds (torch 2.13 gives these): 255 ** 1
    # and -2 ** 63 were refused as not fitting, and so was an empty tensor of exponents
    for base, exponents, dtype, want in ((0, [0, 2], "uint8", [1, 0]), (255, [0, 1], "uint8",
                                         [1, 255]), (-128, [0, 1], "int8", [1, -128]),
                                         (-2, [63], "int64", [-2 ** 63]), (255, [], "uint8", [])):
        y = base ** tinyffn.tensor(exponents, dtype=dtype, device=device)
        assert y.tolist() == want and dtype_name(y.dtype) == dtype


@pytest.mark.parametrize("make", [tinyffn.randn, tinyffn.rand])
def test_random_samples_refuse_a_non_float_dtype(make):
    """randn(3, dtype="int64") once truncated its samples to (mostly) zeros."""
    tinyffn.manual_seed(1)
    for dtype in ("int64", "bool", "complex64"):
        with pytest.raises(TypeError, match=f"{make.__name__}: samples need a floating dtype "
                                            f"\\(float16, float32 or float64\\), got {dtype}"):
            make(3, dtype=dtype)
    after_errors = make(3).numpy()
    tinyffn.manual_seed(1)
    np.testing.assert_array_equal(make(3).numpy(), after_errors)   # no draw was spent
    assert make(2, dtype="float16").dtype == np.float16


def test_the_engine_constructor_points_lists_to_tensor():
    """Tensor(data) takes backend arrays; its error once offered 'a list' as the fix."""
    with pytest.raises(tinyffn.DeviceError, match=r"type list \(from builtins\); pass a NumPy "
                                                  r"or CuPy array, or build the tensor with "
                                                  r"tinyffn\.tensor\(\.\.\.\)"):
        tinyffn.Tensor([1.0, 2.0])
    assert tinyffn.Tensor(np.zeros(2)).shape == (2,)


def test_axes_must_be_distinct_integers():
    """axis=True once summed over axis 1; axis=1.5 failed inside Python's tuple()."""
    x = tinyffn.randn(2, 3)
    for axis in (True, 1.5, "0", (0, 1.0)):
        with pytest.raises(TypeError, match="axis must be None, an int or a tuple of ints"):
            x.sum(axis=axis)
    with pytest.raises(ValueError, match=r"mean: axes \(1, -1\) name the same axis twice"):
        x.mean(axis=(1, -1))
    assert x.amax(axis=[np.int64(0)]).shape == (3,)
    for n in (True, "3", float("inf")):
        with pytest.raises(TypeError, match="arange: end must be a finite number"):
            tinyffn.arange(n)
    for args in ((-1,), (5, 2), (0, 3, 0)):                # refused, as torch.arange does
        with pytest.raises(ValueError, match="arange: no values from .* step must be nonzero"):
            tinyffn.arange(*args)


def test_arange_takes_start_end_and_step_as_pytorch():
    np.testing.assert_array_equal(tinyffn.arange(2, 5).numpy(), [2, 3, 4])
    assert dtype_name(tinyffn.arange(2, 5).dtype) == "int64"
    np.testing.assert_array_equal(tinyffn.arange(5, 0, -2).numpy(), [5, 3, 1])
    floats = tinyffn.arange(0, 1, 0.25)
    assert dtype_name(floats.dtype) == "float32"
    np.testing.assert_array_equal(floats.numpy(), [0, 0.25, 0.5, 0.75])
    assert tinyffn.arange(0).shape == (0,)
    assert dtype_name(tinyffn.arange(3, dtype="float64").dtype) == "float64"
    assert tinyffn.arange(4.0, dtype="int32").tolist() == [0, 1, 2, 3]       # whole floats
    with pytest.raises(TypeError, match=r"arange: start=0, end=2, step=0.5 are not all whole "
                                        r"numbers, and the dtype is int64"):
        tinyffn.arange(0, 2, 0.5, dtype="int64")      # it gave [0, 0, 1, 1]; torch refuses


@pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")  # torch's
def test_tensor_of_a_pytorch_tensor_keeps_its_dtype():
    torch = pytest.importorskip("torch")
    t = tinyffn.tensor(torch.tensor([0.1, 1e-9], dtype=torch.float64))
    assert dtype_name(t.dtype) == "float64" and t.numpy()[1] == 1e-9


@pytest.mark.parametrize("make", [tinyffn.tensor, tinyffn.from_numpy, tinyffn.as_tensor])
def test_a_big_endian_array_becomes_a_native_tensor_of_the_same_values(make):
    """A '>f4' array (from a file written on another machine) kept its byte order: the
    tensor's dtype was '>f4', not equal to float32, while every op's result was native."""
    big = np.array([1.5, -2.0, 3.25], dtype=">f4")
    t = make(big)
    assert t.dtype == np.float32 and t.dtype.isnative and t.tolist() == [1.5, -2.0, 3.25]
    assert make(np.array([7, -1], dtype=">i8")).dtype == np.int64


def test_a_parameter_of_a_big_endian_array_is_native_and_trains():
    """Parameter(array) (and Tensor(array)) kept a '>f4' array's byte order where tensor()
    no longer does: p.dtype was not float32, and AdamW.step refused the parameter with
    "parameter 0 is float32 ... but its grad is float32 ...; a gradient must match"."""
    big = np.array([1.5, -2.0], dtype=">f4")
    assert tinyffn.Tensor(big).dtype == np.float32 and tinyffn.Tensor(big).dtype.isnative
    p = tinyffn.nn.Parameter(big)
    assert p.dtype == np.float32 and p.dtype.isnative and p.tolist() == [1.5, -2.0]
    opt = tinyffn.optim.AdamW([p], lr=0.1, weight_decay=0.0)
    (p * p).sum().backward()
    opt.step()                          # Adam's first step moves each entry by lr * sign(g)
    np.testing.assert_allclose(p.numpy(), [1.4, -1.9], rtol=1e-6)


def test_shapes_are_integers_not_bools():
    """zeros(True) once made shape (1,): bool is an int subclass in Python."""
    with pytest.raises(TypeError, match=r"zeros: expected integers, got \(True,\)"):
        tinyffn.zeros(True)
    assert tinyffn.zeros(np.int64(2), 3).shape == (2, 3)


# What PyTorch makes a view of w (a change of it in place reaches w), and such a change:
# change(x, lib) with lib tinyffn or torch.
VIEWS_OF_W = [
    ("x[key]", lambda w: w[:, 1], lambda x, lib: x.zero_()),
    ("x[key]", lambda w: w[0], lambda x, lib: x.fill_(-1.0)),
    ("x[key]", lambda w: w[..., None], lambda x, lib: x.__iadd__(1.0)),
    ("x.reshape(...) or x.view(...)", lambda w: w.view(-1), lambda x, lib: x.add_(1.0)),
    ("x.reshape(...) or x.view(...)", lambda w: w.flatten(), lambda x, lib: x.__imul__(2.0)),
    ("x.reshape(...) or x.view(...)", lambda w: w.unsqueeze(0), lambda x, lib: x.copy_(x * 0)),
    ("x.T or x.transpose(...)", lambda w: w.T, lambda x, lib: x.mul_(2.0)),
    ("x.permute(...)", lambda w: w.permute(1, 0), lambda x, lib: x.sub_(1.0)),
    ("x.expand(...)", lambda w: w[0:1].expand(3, 3), lambda x, lib: x.div_(2.0)),
    ("x.detach()", lambda w: w.detach(), lambda x, lib: x.uniform_()),
    ("x.detach()", lambda w: w.detach(), lambda x, lib: lib.nn.init.zeros_(x)),
    ("x[key]", lambda w: w[1], lambda x, lib: lib.nn.init.normal_(x)),
]


@pytest.mark.parametrize("made_by, view, change", VIEWS_OF_W)
def test_a_change_in_place_of_what_pytorch_makes_a_view_is_refused(device, made_by, view,
                                                                   change):
    """In PyTorch ``w[:, 1].zero_()`` zeroes a column of w; here w's tensors share no
    memory, so the change would be lost (an ablation that ablates nothing): refused,
    with how x was made and the forms that work. A clone is x's own to change."""
    w = tinyffn.tensor(np.arange(9.0).reshape(3, 3), device=device, requires_grad=True)
    with tinyffn.no_grad():
        x = view(w)
        with pytest.raises(RuntimeError, match=(
                rf"x was made from another tensor by {re.escape(made_by)}, which in "
                r"PyTorch shares that tensor's memory.*\(w\[key\] = value, .*"
                r"x = x\.clone\(\)")):
            change(x, tinyffn)
        assert w.tolist() == np.arange(9.0).reshape(3, 3).tolist()
        change(x.clone(), tinyffn)                      # a copy of its own: allowed
        w[:, 1] = 0                                     # the form the message gives
    assert w.numpy()[:, 1].tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("made_by, view, change", VIEWS_OF_W)
def test_what_is_refused_as_a_view_is_one_in_pytorch(made_by, view, change):
    """The reason for the refusal above, checked: each change reaches w in torch 2.13
    (which refuses to write into an expand, whose entries share memory)."""
    torch = pytest.importorskip("torch")
    w = torch.arange(9.0).reshape(3, 3)
    if made_by == "x.expand(...)":
        with pytest.raises(RuntimeError, match="more than one element of the written-to"):
            change(view(w), torch)
        return
    change(view(w), torch)
    assert not torch.equal(w, torch.arange(9.0).reshape(3, 3))


def test_a_view_of_a_tensor_no_one_holds_is_free_to_change(device):
    """``w = x.clone().detach().requires_grad_()``, the idiom PyTorch recommends, then
    ``w -= lr * w.grad``: the clone is gone, so nothing can see the change miss it (found
    by review: it was refused). A view of a view answers to the first tensor while it
    lives: ``w.T.reshape(-1)`` is a view of w, and w.T need not be kept."""
    w = tinyffn.randn(2, 3, device=device).clone().detach().requires_grad_()
    (w * w).sum().backward()
    with tinyffn.no_grad():
        w -= 0.1 * w.grad
        tinyffn.randn(2, 3, device=device).T.mul_(2)
    base = tinyffn.ones(2, 3, device=device)
    chained = base.T.reshape(-1)
    with pytest.raises(RuntimeError, match=r"made from another tensor by x\.reshape"):
        chained.zero_()
    del base
    assert chained.zero_().tolist() == [0.0] * 6
    x = tinyffn.ones(2, 3, device=device)
    v = x.detach()
    row = v[0]
    del x                               # row is still a view of v (found by review)
    with pytest.raises(RuntimeError, match=r"made from another tensor by x\[key\]"):
        row.add_(100)
    model = tinyffn.nn.Linear(2, 2, device=device)
    state = model.state_dict()
    del model
    assert state["bias"].zero_().tolist() == [0.0, 0.0]


def test_copies_change_in_place_as_in_pytorch(device):
    """Index arrays copy in PyTorch too (torch 2.13: ``v[[0, 2]].zero_()`` leaves v), and
    so does pickling or copying a view; a state_dict entry is refused, as in PyTorch it
    shares the parameter's memory."""
    w = tinyffn.tensor([[1.0, 2.0], [3.0, 4.0]], device=device)
    v = tinyffn.tensor([1.0, 2.0, 3.0], device=device)
    assert v[[0, 2]].zero_().tolist() == [0.0, 0.0] and v.tolist() == [1.0, 2.0, 3.0]
    assert pickle.loads(pickle.dumps(w[0])).zero_().tolist() == [0.0, 0.0]
    assert copy.deepcopy(w.T).fill_(1.0).tolist() == [[1.0, 1.0], [1.0, 1.0]]
    model = tinyffn.nn.Linear(2, 2, device=device)
    state = model.state_dict()
    with pytest.raises(RuntimeError, match=r"zero_: x was made from another tensor by "
                                           r"model\.state_dict\(\)"):
        state["weight"].zero_()
    pickle.loads(pickle.dumps(state))["weight"].zero_()        # a saved state may change
    for copied in (w.repeat(2, 1), tinyffn.tensor(5.0).sort().values,
                   tinyffn.tensor(5.0, device=device).topk(1).values):
        copied.zero_()                  # new tensors in PyTorch, though made by a reshape
    assert state["weight"].clone().zero_().tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_in_place_update_inside_no_grad_keeps_the_parameter():
    """``p -= lr * p.grad`` once rebound the loop variable only: the model never trained."""
    lin = tinyffn.nn.Linear(3, 1)
    x, target = tinyffn.randn(8, 3), tinyffn.randn(8, 1)
    losses = []
    for _ in range(3):
        lin.zero_grad()
        loss = ((lin(x) - target) ** 2).mean()
        loss.backward()
        losses.append(loss.item())
        with tinyffn.no_grad():
            for p in lin.parameters():
                p -= 0.1 * p.grad
    assert losses[2] < losses[1] < losses[0]
    assert [type(p) for p in lin.parameters()] == [tinyffn.nn.Parameter] * 2
    # the values, by hand: x -= y, += , *=, /= on a tensor that needs no gradient
    a = tinyffn.tensor([1.0, 2.0])
    same = a
    a += 1
    a *= 3
    a -= tinyffn.tensor([1.0, 1.0])
    a /= 2
    assert a is same and a.tolist() == [2.5, 4.0]


def test_in_place_where_a_gradient_is_needed_or_the_shape_would_change_is_refused():
    w = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"x -= y: x or y requires grad, and tinyffn does not "
                                           r"record in-place ops; .*no_grad"):
        w -= 1
    c = tinyffn.zeros(2)
    with pytest.raises(RuntimeError, match="x \\+= y: x or y requires grad"):
        c += w                                          # c would depend on w
    with pytest.raises(RuntimeError, match=r"x \+= y: the result has shape \(3, 2\) .* x has "
                                           r"shape \(2,\)"):
        c += tinyffn.ones(3, 2)
    with pytest.raises(RuntimeError, match="dtype float32, but x has shape .* dtype int64"):
        i = tinyffn.tensor([1, 2])
        i *= 0.5
    # arrays a graph saved keep their values: backward still sees the forward's w
    x = tinyffn.tensor([3.0, 4.0], requires_grad=True)
    w = tinyffn.tensor([1.0, 2.0])
    y = (x * w).sum()
    w += 10
    y.backward()
    assert x.grad.tolist() == [1.0, 2.0]


def test_T_of_more_than_two_axes_reverses_them_and_warns_as_pytorch():
    """q @ k.T of a batch reversed the batch axis too without a word; torch 2.13 warns."""
    x = tinyffn.zeros(2, 3, 4)
    with pytest.warns(UserWarning, match=r"x\.T on a tensor of shape \(2, 3, 4\) reverses all 3 "
                                         r"axes; to transpose a batch of matrices write x\.mT"):
        assert x.T.shape == (4, 3, 2)
    assert x.mT.shape == (2, 4, 3) and tinyffn.zeros(2, 3).T.shape == (3, 2)
    assert tinyffn.zeros(3).T.shape == (3,)                  # 1-d: NumPy's identity, no warning


def test_transpose_swaps_two_axes_as_pytorch_and_permute_reorders():
    m = np.arange(6.0).reshape(2, 3)
    t = tinyffn.tensor(m)
    # transpose(0, 1) of a matrix once returned it unchanged (NumPy's identity permutation)
    np.testing.assert_array_equal(t.transpose(0, 1).numpy(), m.T)
    np.testing.assert_array_equal(t.transpose(-2, -1).numpy(), m.T)
    x = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(tinyffn.tensor(x).transpose(0, 2).numpy(), np.swapaxes(x, 0, 2))
    np.testing.assert_array_equal(tinyffn.tensor(x).transpose(1, 2, 0).numpy(),
                                  x.transpose(1, 2, 0))
    np.testing.assert_array_equal(tinyffn.tensor(x).permute(2, 0, 1).numpy(),
                                  x.transpose(2, 0, 1))
    assert tinyffn.gradcheck(lambda a: a.transpose(-1, 0), [tinyffn.randn(2, 3, 4,
                                                                       dtype="float64",
                                                                       requires_grad=True)])
    # one axis is NumPy's permutation of a vector; of a matrix or more it is too few
    np.testing.assert_array_equal(tinyffn.tensor([1.0, 2.0]).transpose(0).numpy(), [1.0, 2.0])
    with pytest.raises(ValueError, match=r"transpose: a tensor of shape \(2, 3, 4\) needs all 3 "
                                         r"axes in some order, got 1"):
        tinyffn.tensor(x).transpose(1)


def test_numpy_numbers_keep_the_tensor_dtype():
    """np.float64(1.5) and 0-d arrays once turned a float32 graph into float64."""
    x = tinyffn.rand(3) + 0.5                           # positive, so x ** 1.5 is real
    for y in (x ** np.float64(1.5), x * np.array(2.0), x * np.int64(2), x + np.float64(1)):
        assert dtype_name(y.dtype) == "float32"
    np.testing.assert_allclose((x * np.array(2.0)).numpy(), 2 * x.numpy())
    assert dtype_name((x * np.ones(3)).dtype) == "float64"     # an array with axes promotes
    with pytest.raises(TypeError, match="pow: the exponent must be a number .*, got numpy\\.ndarray"):
        x ** np.array([1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="add: cannot use an argument of type str"):
        x + "a"
    with pytest.raises(OverflowError, match="too large for int64"):
        tinyffn.tensor(2 ** 70)
    # past int64 but below 2^64, NumPy reads Python ints as uint64, or beside a small one as
    # float64: both came out as tensors (uint64, or float32 9.223372e+18) where torch 2.13
    # refuses all four ("Overflow when unpacking long long")
    for data in (2 ** 63, [2 ** 64 - 1], [1, 2 ** 63], [True, 2 ** 63]):
        with pytest.raises(OverflowError, match="too large for int64"):
            tinyffn.tensor(data)
    assert dtype_name(tinyffn.tensor(np.uint64(5)).dtype) == "uint64"  # NumPy's keep theirs
    assert dtype_name(tinyffn.tensor([2 ** 63 - 1, -2 ** 63]).dtype) == "int64"


def test_a_0d_tensor_reduces_over_axis_0_or_minus_1_as_pytorch():
    s = tinyffn.tensor(3.0, requires_grad=True)
    for op in ("sum", "mean", "amax"):
        for axis in (0, -1, (0,)):
            assert getattr(s, op)(axis=axis).item() == 3.0
    assert s.max(0) == (3.0, 0)                             # torch.max(s, 0): (3., 0)
    assert tinyffn.functional.softmax(s).item() == 1.0


def test_iterating_a_tensor_walks_its_first_axis():
    x = tinyffn.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)  # not square
    assert len(x) == 3 and len(x[0]) == 2            # as len() of NumPy's array and torch's
    rows = list(x)
    assert [r.tolist() for r in rows] == [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    assert [v.item() for v in x[0]] == [1.0, 2.0]    # a 1-d tensor iterates over its entries
    sum(r.sum() for r in rows).backward()
    assert x.grad.tolist() == [[1.0, 1.0]] * 3
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        list(tinyffn.tensor(1.0))
    with pytest.raises(TypeError, match=r"len\(\) of a 0-d tensor"):
        len(tinyffn.tensor(1.0))


def test_each_leaf_owns_its_gradient_array():
    """The two inputs of an add once received one array: scaling a.grad in place scaled b's."""
    a = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    b = tinyffn.tensor([3.0, 4.0], requires_grad=True)
    ((a + b) * 2).sum().backward()
    a.grad.data *= 0.5                                  # e.g. hand-written gradient clipping
    assert a.grad.tolist() == [1.0, 1.0] and b.grad.tolist() == [2.0, 2.0]
    x = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    x.sum().backward()                                  # once a read-only broadcast view
    x.grad.data[0] = 5.0
    g = tinyffn.tensor([1.0, 1.0])
    x.grad = None
    x.backward(g)                                       # once g's own array
    g.data[0] = 100.0
    assert x.grad.tolist() == [1.0, 1.0]


def test_unsupported_float_dtypes_and_a_dtype_passed_as_device_are_named():
    x = tinyffn.randn(2, requires_grad=True)
    for dtype in ("float128", "complex64"):             # once: a silent copy with no graph
        with pytest.raises(TypeError, match=f"to: tinyffn computes with bool, integer and "
                                            f"float16/32/64 tensors, not {dtype}"):
            x.to(dtype=dtype)
    assert dtype_name(x.to(dtype="int64").dtype) == "int64"     # no graph, as in PyTorch
    with pytest.raises(tinyffn.DeviceError, match=r"unknown device 'float64'; .*float64 is a "
                                                  r"dtype: pass dtype='float64'"):
        tinyffn.nn.Linear(2, 2).to("float64")


def test_integers_meet_floats_in_the_floats_dtype_as_in_pytorch():
    """NumPy computes int64 with float32 in float64; the graph downstream became float64."""
    x = tinyffn.randn(3, requires_grad=True)
    i = tinyffn.tensor([1, 2, 3])
    for y in (x + i, i * x, (i > 1) * x, i * 0.5, x * np.int64(2),
              tinyffn.functional.mse_loss(x, i)):
        assert dtype_name(y.dtype) == "float32"
    np.testing.assert_allclose((x * i).numpy(), x.numpy() * np.array([1.0, 2.0, 3.0]))
    (x * i).sum().backward()
    assert x.grad.tolist() == [1.0, 2.0, 3.0]
    assert dtype_name((x.double() + i).dtype) == "float64"   # the float's own width
    assert (x + x.double()).grad_fn.parents[0] is x    # a narrower float: the op widens it
    assert dtype_name((i + i).dtype) == "int64" and dtype_name((i * 2).dtype) == "int64"


def test_a_bool_tensor_meets_numbers_as_in_pytorch():
    """mask + 2 once built the constant 2 as a bool (True): the sum was [True, True]."""
    mask = tinyffn.tensor([True, False])
    assert (mask + 2).tolist() == [3, 2] and dtype_name((mask + 2).dtype) == "int64"
    assert (mask * 5).tolist() == [5, 0]
    assert (mask * 0.5).tolist() == [0.5, 0.0] and dtype_name((mask * 0.5).dtype) == "float32"


BOOL_MINUS = {   # each refused by torch 2.13: "Subtraction, the `-` operator, with a bool
    # tensor is not supported. If you are trying to invert a mask, use the `~` ..."
    "mask - 1": lambda m, x: m - 1, "1 - mask": lambda m, x: 1 - m,
    "mask - 1.5": lambda m, x: m - 1.5, "mask - mask": lambda m, x: m - m,
    "x - mask": lambda m, x: x - m, "mask - x": lambda m, x: m - x,
    "x - True": lambda m, x: x - True, "True - x": lambda m, x: True - x,
    "mask.sub(1)": lambda m, x: m.sub(1), "x.sub(mask, alpha=2)": lambda m, x: x.sub(m, alpha=2),
    "x.sub(True, alpha=2)": lambda m, x: x.sub(True, alpha=2),
    "x.sub(False, alpha=2)": lambda m, x: x.sub(False, alpha=2),
    "-mask": lambda m, x: -m, "neg(mask)": lambda m, x: tinyffn.neg(m),
}


@pytest.mark.parametrize("form", BOOL_MINUS)
def test_a_bool_operand_of_minus_is_refused_as_in_pytorch(device, form):
    """``1 - mask`` once gave int64 [0, 1] and ``-mask`` NumPy's own error; PyTorch refuses
    both, because a mask meant to be inverted is written ``~mask``."""
    mask = tinyffn.tensor([True, False], device=device)
    x = tinyffn.tensor([1.0, 2.0], device=device, requires_grad=True)
    word = "negation" if form in ("-mask", "neg(mask)") else "subtraction"
    with pytest.raises(TypeError, match=f"{word} .* bool .* write ~mask"):
        BOOL_MINUS[form](mask, x)


def test_minus_next_to_a_bool_refusal_still_computes(device):
    """The neighbours of the refused forms: + with a bool, - of integers and floats."""
    mask = tinyffn.tensor([True, False], device=device)
    i = tinyffn.tensor([5, 7], device=device)
    assert (mask + 1).tolist() == [2, 1] and (~mask).tolist() == [False, True]
    assert (i - 1).tolist() == [4, 6] and (1 - i).tolist() == [-4, -6] and (-i).tolist() == [-5, -7]
    assert (i - mask.long()).tolist() == [4, 7] and (mask ^ mask).tolist() == [False, False]
    x = tinyffn.tensor([1.0, 2.0], device=device)
    assert (x - 1).tolist() == [0.0, 1.0] and (x - i).tolist() == [-4.0, -5.0]


def test_pytorch_refuses_the_same_bool_minus_forms():
    torch = pytest.importorskip("torch")
    mask, x = torch.tensor([True, False]), torch.tensor([1.0, 2.0])
    for form, f in BOOL_MINUS.items():
        f = {"neg(mask)": lambda m, x: torch.neg(m)}.get(form, f)
        with pytest.raises(RuntimeError, match="bool tensors? is not supported"):
            f(mask, x)


def test_integer_division_gives_float32(device):
    i = tinyffn.tensor([1, 2, 3], device=device)
    for y in (i / 2, i / i, 1 / i):
        assert dtype_name(y.dtype) == "float32"
    np.testing.assert_allclose((i / 2).numpy(), [0.5, 1.0, 1.5])


def test_in_place_edge_cases():
    x = tinyffn.zeros(3)
    x += np.ones(3)                                     # a float64 array: x stays float32
    assert dtype_name(x.dtype) == "float32" and x.tolist() == [1.0, 1.0, 1.0]
    # the shared constants of the graph (the 3 in x * 3) cannot be changed through a graph
    y = tinyffn.tensor([1.0, 1.0], requires_grad=True) * 3
    three = y.grad_fn.parents[1]
    with pytest.raises(RuntimeError, match="x is a shared constant of the graph"):
        three += 1
    assert (tinyffn.tensor([1.0]) * 3).item() == 3.0


def test_transpose_of_one_axis_with_itself_changes_nothing():
    x = tinyffn.randn(2, 3)
    assert x.transpose(1, 1).shape == (2, 3) and x.transpose(-1, 1).shape == (2, 3)
    assert tinyffn.randn(3).transpose(0, -1).shape == (3,)
    assert tinyffn.tensor(1.0).transpose(0, -1).shape == ()
    with pytest.raises(ValueError, match="transpose: axis 2 is out of range"):
        x.transpose(0, 2)


def test_tensors_and_modules_deep_copy_and_pickle():
    import copy
    import pickle
    ffn = tinyffn.nn.FFN(2)
    twin = copy.deepcopy(ffn)
    twin.w1.weight.data[0, 0] = 99.0                    # an independent copy ...
    assert ffn.w1.weight.data[0, 0] != 99.0
    x = tinyffn.randn(3, 2)
    assert twin.w2.weight.backend is ffn.w2.weight.backend     # ... on the same device
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(ffn))(x).numpy(), ffn(x).numpy())


def test_copies_of_a_parameter_leave_its_grad_behind_as_pytorchs():
    """PyTorch 2.13 (written out): copy.deepcopy and pickle of a Parameter give .grad None
    (Parameter.__deepcopy__ copies only the data), so a deep-copied model starts with no
    gradients, and an optimizer built on it steps nothing before a backward. A plain
    leaf's deepcopy keeps its .grad, as torch.Tensor's does."""
    import copy
    import pickle
    model = tinyffn.nn.Linear(2, 1)
    model(tinyffn.ones(1, 2)).sum().backward()
    assert model.weight.grad is not None
    for twin in (copy.deepcopy(model), pickle.loads(pickle.dumps(model))):
        assert all(p.grad is None for p in twin.parameters())
        before = twin.weight.numpy()
        tinyffn.optim.SGD(twin.parameters(), lr=1.0).step()
        np.testing.assert_array_equal(twin.weight.numpy(), before)
        assert twin.weight.requires_grad and isinstance(twin.weight, tinyffn.nn.Parameter)
    assert model.weight.grad is not None                # the original keeps its own
    leaf = tinyffn.ones(2, requires_grad=True)
    (leaf * 2.0).sum().backward()
    assert copy.deepcopy(leaf).grad.tolist() == [2.0, 2.0]


def test_a_result_of_an_op_pickles_as_a_leaf_and_refuses_deepcopy_as_pytorchs():
    """PyTorch 2.13 (written out): ``pickle.loads(pickle.dumps(w * 2))`` is a leaf that
    requires grad, grad_fn None, the same values; ``copy.deepcopy(w * 2)`` raises "Only
    Tensors created explicitly by the user (graph leaves) support the deepcopy protocol".
    Both failed here with "cannot pickle 'module' object", from deep inside the graph."""
    import copy
    import pickle
    w = tinyffn.tensor([1.0, -2.0], requires_grad=True)
    y = w * 2
    back = pickle.loads(pickle.dumps(y))
    assert back.tolist() == [2.0, -4.0] and back.requires_grad and back.grad_fn is None
    assert y.grad_fn is not None                        # the original keeps its graph
    with pytest.raises(RuntimeError, match="deepcopy: this tensor is the result of mul, not a "
                                           "leaf.*x.detach\\(\\).clone\\(\\)"):
        copy.deepcopy(y)
    holder = tinyffn.nn.Linear(2, 2)
    holder.last = holder(w)                             # a forward's output kept on a module
    with pytest.raises(RuntimeError, match="result of .*not a leaf"):
        copy.deepcopy(holder)
    assert copy.deepcopy(y.detach()).tolist() == [2.0, -4.0]


def test_autograd_grad_returns_arrays_of_its_own():
    a = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    b = tinyffn.tensor([3.0, 4.0], requires_grad=True)
    ga, gb = tinyffn.grad((a + b).sum(), [a, b])
    ga.data *= 2                                        # once: read-only, or shared with gb
    assert gb.tolist() == [1.0, 1.0]


def test_a_0d_tensor_counts_like_a_number_within_its_kind_as_in_pytorch():
    """A 0-d float64 tensor once made a float32 graph float64 (NumPy's rule)."""
    x = tinyffn.tensor([1.0, 2.0, 3.0], requires_grad=True)
    s = tinyffn.tensor(0.5, dtype="float64", requires_grad=True)
    y = x * s
    assert dtype_name(y.dtype) == "float32" and y.tolist() == [0.5, 1.0, 1.5]
    y.sum().backward()
    # d(sum x s)/ds = sum x, in s's own dtype; d/dx = s
    assert dtype_name(s.grad.dtype) == "float64" and s.grad.item() == 6.0
    assert x.grad.tolist() == [0.5, 0.5, 0.5]
    i32 = tinyffn.tensor(np.array([1, 2], dtype=np.int32))
    half = tinyffn.tensor([1.0, 2.0], dtype="float16")
    cases = [
        (half * tinyffn.tensor(2.0), "float16"),                    # 0-d float32: weak
        (i32 + tinyffn.tensor(2), "int32"),                         # 0-d int64: weak
        (i32 * tinyffn.tensor(0.5, dtype="float64"), "float64"),    # a higher kind decides
        (tinyffn.tensor(1.0, dtype="float16") + tinyffn.tensor(2.0, dtype="float64"), "float64"),
        (x + x.double(), "float64"),                                # two tensors with axes
    ]
    for y, expected in cases:
        assert dtype_name(y.dtype) == expected


def test_a_list_operand_is_read_as_tinyffn_tensor_reads_it():
    """A list of Python floats was a float64 array, and made the result float64."""
    x = tinyffn.tensor([1.0, 2.0, 3.0])
    y = x * [0.5, 1.0, 2.0]
    assert dtype_name(y.dtype) == "float32" and y.tolist() == [0.5, 2.0, 6.0]
    assert dtype_name((tinyffn.tensor([1.0], dtype="float16") + [1.0, 2.0]).dtype) == "float32"
    assert dtype_name((tinyffn.tensor([1, 2]) + [1, 2]).dtype) == "int64"


def test_numpy_scalars_keep_their_dtype_in_tensor_as_in_pytorch():
    assert dtype_name(tinyffn.tensor(np.float64(0.7)).dtype) == "float64"
    assert dtype_name(tinyffn.tensor(np.float32(0.7)).dtype) == "float32"
    assert dtype_name(tinyffn.tensor(0.7).dtype) == "float32"


def test_float_valued_ops_on_integers_compute_in_float32(device):
    """NumPy computed exp of an int tensor in float64 (of a bool one in float16)."""
    F = tinyffn.functional
    from tinyffn.ops.activations import GELU as FusedGELU, Swish as FusedSwish
    i = tinyffn.tensor([1, 2, 3], device=device)
    v = np.array([1.0, 2.0, 3.0])
    erf = np.vectorize(__import__("math").erf)
    expected = {
        "exp": (lambda t: t.exp(), np.exp(v)), "log": (lambda t: t.log(), np.log(v)),
        "tanh": (lambda t: t.tanh(), np.tanh(v)),
        "sigmoid": (lambda t: t.sigmoid(), 1 / (1 + np.exp(-v))),
        "erf": (lambda t: t.erf(), erf(v)), "sqrt": (lambda t: t ** 0.5, np.sqrt(v)),
        "pow 2.0": (lambda t: t ** 2.0, v ** 2), "mean": (lambda t: t.mean(), v.mean()),
        # the fused primitives themselves (F.gelu and F.swish refuse integers, as PyTorch)
        "fused gelu": (lambda t: FusedGELU.apply(t, approximate="none"),
                       v * (1 + erf(v / np.sqrt(2))) / 2),
        "fused swish": (lambda t: FusedSwish.apply(t, beta=1.0), v / (1 + np.exp(-v))),
    }
    for name, (op, want) in expected.items():
        y = op(i)
        assert dtype_name(y.dtype) == "float32", name
        np.testing.assert_allclose(y.numpy(), want, rtol=1e-6, err_msg=name)
    # the activations and softmax refuse integers, as PyTorch 2.13 does (NotImplementedError
    # there), unless softmax is told a float dtype to cast to first
    for name, op in {"gelu": lambda t: F.gelu(t, fused=True), "silu": F.silu, "swish": F.swish,
                     "softmax": lambda t: F.softmax(t, 0),
                     "log_softmax": lambda t: F.log_softmax(t, 0)}.items():
        with pytest.raises(TypeError, match=f"{name}: .* has dtype int64; .*cast with x.float"):
            op(i)
    np.testing.assert_allclose(F.softmax(i, 0, dtype="float32").numpy(),
                               np.exp(v) / np.exp(v).sum(), rtol=1e-6)
    assert dtype_name((i ** 2).dtype) == "int64"                # an integer power stays integer
    mask = tinyffn.tensor([True, False], device=device)
    assert dtype_name(mask.exp().dtype) == "float32"
    np.testing.assert_allclose(mask.sigmoid().numpy(), [1 / (1 + np.exp(-1)), 0.5], rtol=1e-6)


def test_a_named_integer_input_keeps_its_name_in_the_drawing():
    h = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    m = tinyffn.tensor([1, 0])
    m.name = "mask"
    assert "mask" in tinyffn.to_dot((h * m).sum())


def test_complex_operands_are_refused_not_cast_to_real():
    """Ranked below float, a complex operand was cast to float: x * 1j gave zeros."""
    x = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    for make in (lambda: x * 1j, lambda: x + np.array([1j, 1j]),
                 lambda: tinyffn.tensor([1, 2]) * (2 + 3j)):
        with pytest.raises(TypeError, match="(mul|add): tinyffn computes with float, integer "
                                            "and bool tensors, not complex128"):
            make()


def test_reductions_take_pytorchs_dim_and_keepdim():
    data = np.array([[1.0, 5.0, 3.0], [7.0, 2.0, 7.0]], dtype=np.float32)
    x = tinyffn.tensor(data)
    np.testing.assert_array_equal(x.sum(dim=1).numpy(), [9.0, 16.0])
    np.testing.assert_allclose(x.mean(dim=(0, 1), keepdim=True).numpy(), [[25.0 / 6]], rtol=1e-6)
    np.testing.assert_array_equal(x.argmax(dim=1, keepdim=True).numpy(), [[1], [0]])
    assert x.argmax().item() == 3                    # of the flattened tensor, first on ties
    for bad in (dict(axis=0, dim=0), dict(keepdims=True, keepdim=True)):
        with pytest.raises(TypeError, match="sum: pass .* not both"):
            x.sum(**bad)
    # a NumPy name left at its default, in any type equal to it, counts as not given
    for default in (False, np.False_, 0):
        assert x.sum(1, keepdims=default, keepdim=True).shape == (2, 1)
    with pytest.raises(TypeError, match="keepdims must be True or False"):
        x.sum(0, 1)
    with pytest.raises(TypeError, match="keepdims must be True or False, got None"):
        x.sum(0, keepdims=None)
    # PyTorch's dim=() (or []) reduces every axis; NumPy's axis=() reduces none
    assert x.sum(dim=()).item() == 25.0 and x.mean(dim=[]).shape == ()
    assert x.sum(axis=()).shape == (2, 3)
    # the axes an op records (and a graph shows) are canonical: non-negative and sorted
    y = tinyffn.randn(2, 3, 4, requires_grad=True).sum(axis=(2, -3))
    assert y.grad_fn.attrs["axis"] == (0, 2)
    with pytest.raises(ValueError, match="argmax: axis 2 is out of range"):
        x.argmax(2)
    assert tinyffn.tensor([1.0, 3.0, 2.0]).argmax(dim=-1).item() == 1    # as torch.argmax
    assert tinyffn.tensor(3.0).argmax(dim=0).item() == 0


def test_max_over_dim_unpacks_as_pytorchs_values_and_indices():
    """``v, i = x.max(dim=1)`` is the PyTorch idiom, and PyTorch reads ``axis=1`` as
    ``dim=1``: with two rows, a values-only result would unpack silently into the rows.
    ``amax`` / ``amin`` give the values alone, over any axes."""
    x = tinyffn.tensor([[1.0, 5.0, 3.0], [7.0, 2.0, 7.0]], requires_grad=True)
    values, indices = x.max(dim=1)
    np.testing.assert_array_equal(values.numpy(), [5.0, 7.0])
    np.testing.assert_array_equal(indices.numpy(), [1, 0])
    assert x.max(dim=1, keepdim=True).indices.shape == (2, 1)
    for by_axis in (x.max(axis=1), x.min(axis=1, keepdims=True)):    # torch takes both names
        assert isinstance(by_axis, tinyffn.composed.MaxResult)
    np.testing.assert_array_equal(x.max(axis=1).indices.numpy(), [1, 0])
    np.testing.assert_array_equal(x.min(axis=1, keepdims=True).values.numpy(), [[1], [2]])
    np.testing.assert_array_equal(x.amax(1).numpy(), [5.0, 7.0])
    np.testing.assert_array_equal(x.amin(dim=(0, 1), keepdim=True).numpy(), [[1.0]])
    with pytest.raises(TypeError, match=r"max: dim must be one int .* x\.amax\(\(0, 1\)\)"):
        x.max(axis=(0, 1))
    with pytest.raises(TypeError, match=r"min: dim must be one int .*, got 1\.0$"):
        x.min(1.0)                                    # no amax hint for what is no axis
    with pytest.raises(ValueError, match=r"^max: axis 5 is out of range"):      # not amax
        x.max(5)
    for by_position in (x.max(1), x.max(1, True), x.min(1)):   # torch's out.max(1) idiom
        assert isinstance(by_position, tinyffn.composed.MaxResult)
    np.testing.assert_array_equal(x.max(1, True).indices.numpy(), [[1], [0]])
    np.testing.assert_array_equal(x.min(1).indices.numpy(), [0, 1])
    values.sum().backward()          # the tie at 7: all to the index returned, as torch's
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 1, 0], [1, 0, 0]])
    x.grad = None
    x.amax(1).sum().backward()                       # amax's tie shares it, as torch's
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 1, 0], [0.5, 0, 0.5]])


def test_reductions_by_dim_match_pytorch():
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(0).standard_normal((3, 4, 5))
    x, t = tinyffn.tensor(data), torch.tensor(data)
    for dim in (0, -1, (0, 2)):
        for keepdim in (False, True):
            for op in ("sum", "mean"):
                np.testing.assert_allclose(getattr(x, op)(dim=dim, keepdim=keepdim).numpy(),
                                           getattr(t, op)(dim=dim, keepdim=keepdim).numpy())
    for op in ("sum", "mean"):                   # PyTorch's dim=() is every axis, NumPy's
        np.testing.assert_allclose(getattr(x, op)(dim=()).numpy(),    # axis=() is none
                                   getattr(t, op)(dim=()).numpy(), strict=True)
        assert getattr(x, op)(axis=()).shape == (3, 4, 5)
    for op in ("max", "min"):
        with pytest.raises(TypeError, match=rf"{op}: dim must be one int .* x\.a{op}\(\(0, 2\)\)"):
            getattr(x, op)(dim=(0, 2))
        np.testing.assert_allclose(getattr(x, "a" + op)(dim=(0, 2), keepdim=True).numpy(),
                                   getattr(t, "a" + op)(dim=(0, 2), keepdim=True).numpy())
        with pytest.raises(TypeError, match=rf"{op}: dim must be one int .* got \(\); for the "
                                            "values over all axes pass no dim"):
            getattr(x, op)(dim=())
        with pytest.raises(TypeError, match=rf"arg{op}: dim must be None or an int, got \(\)"):
            getattr(x, "arg" + op)(dim=())              # as torch.argmax refuses it
    np.testing.assert_allclose(x.sum(dim=[]).numpy(), t.sum().numpy())   # a list, as ()
    for dim in (0, 1, -1):
        for keepdim in (False, True):
            for op in ("max", "min"):
                for mine, theirs in [(getattr(x, op)(dim=dim, keepdim=keepdim),
                                      getattr(t, op)(dim=dim, keepdim=keepdim)),
                                     (getattr(x, op)(axis=dim, keepdims=keepdim),  # torch's
                                      getattr(t, op)(axis=dim, keepdims=keepdim)),  # aliases
                                     (getattr(x, op)(dim, keepdim), getattr(t, op)(dim, keepdim))]:
                    np.testing.assert_array_equal(mine.values.numpy(), theirs.values.numpy())
                    np.testing.assert_array_equal(mine.indices.numpy(), theirs.indices.numpy())
            np.testing.assert_array_equal(x.argmax(dim=dim, keepdim=keepdim).numpy(),
                                          t.argmax(dim=dim, keepdim=keepdim).numpy())


def test_gradients_accumulate_into_the_same_grad_tensor_as_pytorch():
    x = tinyffn.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x * 2).sum().backward()
    g = x.grad
    (x * 2).sum().backward()
    assert g is x.grad                                   # a kept reference sees the sum
    np.testing.assert_array_equal(g.numpy(), [4.0, 4.0, 4.0])


def test_requires_grad_set_as_an_attribute_is_checked_as_requires_grad_():
    """An integer tensor would get its gradient truncated (2.5 -> 2) by the dtype cast."""
    t = tinyffn.tensor([1, 2])
    with pytest.raises(TypeError, match="only floating-point tensors can require gradients"):
        t.requires_grad = True
    assert not t.requires_grad
    x = tinyffn.ones(2, requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="computed by mul, and only a leaf's flag can change"):
        y.requires_grad = False
    y.requires_grad_(True)                               # no change: allowed, as in PyTorch
    x.requires_grad = False
    assert not x.requires_grad and y.requires_grad


def test_data_set_to_a_tensor_is_named_in_the_error():
    """x.data = t is a PyTorch idiom; a Parameter takes it (tests/test_torch_idioms.py),
    a plain tensor's .data is an array (a slot every op reads), and the op fails later."""
    x = tinyffn.randn(2, 2, requires_grad=True)
    x.data = tinyffn.randn(2, 2)
    with pytest.raises(TypeError, match=r"a Parameter takes one, other tensors an array\), "
                                        r"set it to an array: x\.data = t\.data"):
        x * 2


SHAPE_CALLS = ["size()", "size(-2)", "dim()", "view(3, 2)", "view(-1)", "unsqueeze(0)",
               "unsqueeze(-1)", "unsqueeze(2)", "squeeze()", "squeeze(1)", "squeeze((1, 3))",
               "squeeze(0)", "flatten()", "flatten(1)", "flatten(1, 2)", "flatten(-2, -1)",
               "expand(4, 2, 5, 3, -1)", "expand(-1, 7, -1, 2)", "mT"]


@pytest.mark.parametrize("call", SHAPE_CALLS)
def test_pytorchs_shape_methods_are_reshapes_with_pytorchs_results(call):
    """Shapes against NumPy written out; values and gradients against torch where installed."""
    data = np.random.default_rng(0).standard_normal((2, 1, 3, 1))
    x = tinyffn.tensor(data, requires_grad=True)
    got = eval(f"x.{call}")
    by_hand = {"size()": (2, 1, 3, 1), "size(-2)": 3, "dim()": 4, "view(3, 2)": (3, 2),
               "view(-1)": (6,), "unsqueeze(0)": (1, 2, 1, 3, 1),
               "unsqueeze(-1)": (2, 1, 3, 1, 1), "unsqueeze(2)": (2, 1, 1, 3, 1),
               "squeeze()": (2, 3), "squeeze(1)": (2, 3, 1), "squeeze((1, 3))": (2, 3),
               "squeeze(0)": (2, 1, 3, 1), "flatten()": (6,), "flatten(1)": (2, 3),
               "flatten(1, 2)": (2, 3, 1), "flatten(-2, -1)": (2, 1, 3),
               "expand(4, 2, 5, 3, -1)": (4, 2, 5, 3, 1), "expand(-1, 7, -1, 2)": (2, 7, 3, 2),
               "mT": (2, 1, 1, 3)}[call]
    if not isinstance(got, tinyffn.Tensor):
        assert got == by_hand
        return
    assert got.shape == by_hand
    gy = np.random.default_rng(1).standard_normal(got.shape)
    got.backward(gy)
    torch = pytest.importorskip("torch")
    t = torch.tensor(data, requires_grad=True)
    want = eval(f"t.{call}")
    want.backward(torch.tensor(gy))
    np.testing.assert_array_equal(got.numpy(), want.detach().numpy())
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-12)   # sums: order


def test_pytorchs_shape_methods_gradcheck_and_refuse_bad_axes():
    x = tinyffn.randn(2, 1, 3, dtype="float64", requires_grad=True)
    for f in (lambda x: x.unsqueeze(1).expand(2, 4, 1, 3).flatten(1) * x.sum(),
              lambda x: x.squeeze().mT.view(6) ** 2):
        assert tinyffn.gradcheck(f, [x])
    with pytest.raises(ValueError, match=r"unsqueeze: dim must be an integer in \[-4, 3\]"):
        x.unsqueeze(4)
    with pytest.raises(ValueError, match="flatten: start_dim 2 comes after end_dim 1"):
        x.flatten(2, 1)
    with pytest.raises(ValueError, match="expand: cannot expand shape"):
        x.expand(-1, 2, 1, 3)
    with pytest.raises(ValueError, match="size: axis 3 is out of range"):
        x.size(3)


def test_set_grad_enabled_and_backward_gradient_as_pytorch():
    x = tinyffn.ones(2, requires_grad=True)
    with tinyffn.set_grad_enabled(False):
        assert (x * 2).grad_fn is None
    assert tinyffn.is_grad_enabled()
    tinyffn.set_grad_enabled(False)                     # a plain call switches at once
    try:
        assert not tinyffn.is_grad_enabled()
    finally:
        tinyffn.set_grad_enabled(True)
    (x * 2).backward(gradient=tinyffn.tensor([1.0, 3.0]))
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 6.0])
    with pytest.raises(TypeError, match="backward: pass grad or gradient"):
        (x * 2).backward(tinyffn.ones(2), gradient=tinyffn.ones(2))


COMPOSED = {"sqrt": lambda x: x.abs().sqrt(), "abs": lambda x: x.abs(),
            "minimum": lambda x: x.minimum(x.T), "clamp": lambda x: x.clamp(-0.5, 0.7),
            "clamp-min": lambda x: x.clamp(min=0.1), "min": lambda x: x.min(dim=1)[0] + x.min(),
            "split": lambda x: x.split([1, 3], 1)[1] * x.split(2)[0].sum(),
            "chunk": lambda x: x.chunk(3, dim=-1)[1] - x.chunk(2)[1].sum()}


@pytest.mark.parametrize("name", COMPOSED)
def test_composed_tensor_methods_gradcheck_and_match_pytorch(name):
    # away from 0 and from the clamp bounds, where the derivative jumps
    data = np.array([[0.3, -1.2, 0.9, 2.0], [-0.4, 1.5, -2.2, 0.2],
                     [1.1, -0.8, 0.6, -1.7], [0.45, 1.3, -0.25, 0.8]])
    x = tinyffn.tensor(data, requires_grad=True)
    assert tinyffn.gradcheck(COMPOSED[name], [x])
    torch = pytest.importorskip("torch")
    np.testing.assert_allclose(COMPOSED[name](x).numpy(),
                               COMPOSED[name](torch.tensor(data)).numpy(), rtol=1e-12)


def test_composed_methods_at_their_kinks_and_pytorchs_pairs():
    x = tinyffn.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    x.abs().sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [-1, 0, 1])      # 0 at 0, as PyTorch
    m = tinyffn.tensor([[3.0, 1.0, 2.0], [0.5, 4.0, 0.5]])
    values, indices = m.min(dim=1)
    np.testing.assert_array_equal(values.numpy(), [1.0, 0.5])
    np.testing.assert_array_equal(indices.numpy(), [1, 0])           # first of a tie
    np.testing.assert_array_equal(m.argmin(dim=0).numpy(), [1, 0, 1])
    assert [p.shape for p in m.split(1, dim=1)] == [(2, 1)] * 3
    assert [p.shape for p in m.chunk(2, dim=1)] == [(2, 2), (2, 1)]
    with pytest.raises(ValueError, match=r"split: lengths \[1, 1\] must be integers >= 0 adding "
                                         r"up to 3"):
        m.split([1, 1], dim=1)
    with pytest.raises(ValueError, match="chunk: chunks must be a positive integer"):
        m.chunk(0)
    assert [p.shape for p in m.chunk(1)] == [(2, 3)]
    with pytest.raises(ValueError, match="clamp: give min, max or both"):
        m.clamp()


def test_assigned_grads_are_checked_and_read_only_ones_copied():
    x = tinyffn.zeros(2, dtype="float64", requires_grad=True)
    with pytest.raises(RuntimeError, match=r"grad: assigned a float32 gradient of shape \(2,\) "
                                           r"on cpu to a float64 tensor"):
        x.grad = tinyffn.zeros(2)
    with pytest.raises(TypeError, match="grad: assign a Tensor or None, got ndarray"):
        x.grad = np.zeros(2)
    x.grad = tinyffn.ones(1, dtype="float64").expand(2)   # a read-only broadcast view
    (x * 2).sum().backward()                              # adds into it in place
    np.testing.assert_array_equal(x.grad.numpy(), [3, 3])
    x.grad = None
    assert x.grad is None


def test_edge_shapes_of_pytorchs_shape_methods():
    assert tinyffn.zeros(2, 3).unsqueeze(-1).shape == (2, 3, 1)
    assert tinyffn.zeros(2, 3).unsqueeze(2).shape == (2, 3, 1)
    assert tinyffn.tensor(1.0).flatten().shape == (1,)
    for dims in ((1,), (0, 1)):                 # a 0-d tensor takes dims 0 and -1 only
        with pytest.raises(ValueError, match="flatten: axis 1 is out of range"):
            tinyffn.tensor(1.0).flatten(*dims)
    with pytest.raises(ValueError, match=r"unsqueeze: dim must be an integer in \[-3, 2\]"):
        tinyffn.zeros(2, 3).unsqueeze(-4)
    assert tinyffn.zeros(0, 3, 4).flatten(1).shape == (0, 12)


def test_set_grad_enabled_nests_and_decorates():
    @tinyffn.set_grad_enabled(False)
    def evaluate(x):
        return x * 2
    assert tinyffn.is_grad_enabled()                     # decorating switched nothing
    w = tinyffn.ones(2, requires_grad=True)
    assert evaluate(w).grad_fn is None and tinyffn.is_grad_enabled()
    with tinyffn.no_grad():
        with tinyffn.set_grad_enabled(True):
            assert (w * 2).grad_fn is not None
        assert not tinyffn.is_grad_enabled()
        with tinyffn.set_grad_enabled(False):
            pass
        assert not tinyffn.is_grad_enabled()
    assert tinyffn.is_grad_enabled()


@pytest.mark.parametrize("other", ["strict"])
def test_a_move_inside_no_grad_needs_no_gradient(other):
    w = tinyffn.ones(2, requires_grad=True)
    with tinyffn.no_grad():
        moved = (w * 2).to(other)
        assert not moved.requires_grad
        assert not w.to(other).requires_grad
    assert w.to(other).requires_grad                     # outside: a new leaf that does


@pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")  # torch's
def test_tensor_of_a_torch_parameter_takes_its_values():
    torch = pytest.importorskip("torch")
    p = torch.nn.Parameter(torch.tensor([0.5, 1.5]))
    np.testing.assert_array_equal(tinyffn.tensor(p).numpy(), [0.5, 1.5])


def test_an_assigned_read_only_grad_accumulates_on_every_backend(device):
    x = tinyffn.tensor([1.0, 2.0], device=device, requires_grad=True)
    x.grad = tinyffn.tensor(1.0, device=device).expand(2)    # a broadcast view
    g = x.grad
    (x * x).sum().backward()
    assert x.grad is g                                       # the same Tensor, updated
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 5.0])
    x.grad = tinyffn.tensor(1.0, device=device).expand(2)
    tinyffn.optim.SGD([x], lr=0.1).zero_grad(set_to_none=False)
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])


def test_chunk_of_an_empty_axis_gives_every_piece_and_nan_maxima_take_the_gradient():
    pieces = tinyffn.zeros(0, 2).chunk(3)
    assert [p.shape for p in pieces] == [(0, 2)] * 3              # as torch.chunk
    x = tinyffn.tensor([[1.0, float("nan"), 1.0], [2.0, 2.0, 5.0]], requires_grad=True)
    x.amax(axis=1).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 1, 0], [0, 0, 1]])
    x.grad = None
    x.min(dim=1).values.sum().backward()             # the index min returns, as torch's
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 1, 0], [1, 0, 0]])
    swish = tinyffn.functional.swish(tinyffn.tensor([1.0, 2.0]), np.array([1.0, 2.0]))
    np.testing.assert_allclose(swish.numpy(), [1 / (1 + np.exp(-1)), 2 / (1 + np.exp(-4))],
                               rtol=1e-6)


def test_edges_of_the_composed_shape_methods_and_their_arguments():
    assert tinyffn.randn(3).unsqueeze(-2).shape == (1, 3)
    assert tinyffn.zeros(2, 0, 3).squeeze().shape == (2, 0, 3)   # length 0 is not 1
    assert tinyffn.zeros(2, 3, 4).flatten(1, 1).shape == (2, 3, 4)
    assert [t.shape for t in tinyffn.zeros(0).split(2)] == [(0,)]   # as torch.split
    assert tinyffn.ones(2, 3).sum(0, keepdims=np.True_).shape == (1, 3)
    assert tinyffn.ones(1, 3).expand([2, 3]).shape == (2, 3)


NUMBER_KINDS = {   # a Python number of another kind than the tensor: torch 2.13's answers
    "mask == 0": (lambda b, i, u, f: b == 0, [False, True]),
    "mask < 1": (lambda b, i, u, f: b < 1, [False, True]),
    "mask >= 0.5": (lambda b, i, u, f: b >= 0.5, [True, False]),
    "mask == 1.5": (lambda b, i, u, f: b == 1.5, [False, False]),
    "i < 1.5": (lambda b, i, u, f: i < 1.5, [True, False]),
    "u8 < 1.5": (lambda b, i, u, f: u < 1.5, [True, False]),
    "u8 < 300": (lambda b, i, u, f: u < 300, [True, True]),
    "i == True": (lambda b, i, u, f: i == True, [True, False]),     # noqa: E712
    "i >= True": (lambda b, i, u, f: i >= True, [True, True]),
    "x < True": (lambda b, i, u, f: f < True, [False, False]),
    "mask & 1": (lambda b, i, u, f: b & 1, [1, 0]),
    "i & True": (lambda b, i, u, f: i & True, [1, 0]),
    "x32 == 0.1": (lambda b, i, u, f: (f * 0.1) == 0.1, [True, False]),   # in float32, as
    "x32 < 0.1": (lambda b, i, u, f: (f * 0.1) < 0.1, [False, False]),    # torch compares
    "i == 16777216.0": (lambda b, i, u, f: (i + 16777215) == 16777216.0, [True, True]),
    "u8 == np.int64(300)": (lambda b, i, u, f: (u + 43) == np.int64(300), [False, False]),
    "x == np.float64(2.0)": (lambda b, i, u, f: f == np.float64(2.0), [False, True]),
    "i < np.array(1.5)": (lambda b, i, u, f: i < np.array(1.5), [True, False]),
}


@pytest.mark.parametrize("form", NUMBER_KINDS)
def test_a_number_of_another_kind_compares_as_in_pytorch_on_every_backend(device, form):
    """``mask == 0`` and ``i < 1.5`` raised on the strict backend, whose array API refuses
    a Python number of another kind; NumPy compared them. Each operand is brought to the
    higher kind first now, on every backend."""
    b = tinyffn.tensor([True, False], device=device)
    i = tinyffn.tensor([1, 2], device=device)
    u = tinyffn.tensor([1, 2], dtype="uint8", device=device)
    f = tinyffn.tensor([1.0, 2.0], device=device)
    call, want = NUMBER_KINDS[form]
    assert call(b, i, u, f).tolist() == want


def test_comparisons_refuse_what_has_no_order_or_no_bits(device):
    """torch 2.13 refuses x < 1j and i ^ 2.5 (NotImplementedError); NumPy answered the first
    (ordering complex numbers lexicographically) and refused the second naming no op."""
    x = tinyffn.tensor([0.5, 2.0], device=device)
    i = tinyffn.tensor([1, 2], device=device)
    for compare in (lambda: x < 1j, lambda: x >= 1 + 0j):
        with pytest.raises(TypeError, match="complex numbers have no order"):
            compare()
    assert (x == 1j).tolist() == [False, False] and (x != 2 + 0j).tolist() == [True, False]
    for bits in (lambda: i ^ 2.5, lambda: i | np.float64(1), lambda: (i > 1) & [1.0, 0.0]):
        with pytest.raises(TypeError, match="bitwise_.*: needs bool or integer operands"):
            bits()
    assert (i & np.int64(3)).tolist() == [1, 2]


def test_tensors_of_two_kinds_compare_in_pytorchs_dtype_on_every_backend(device):
    """The strict backend refused int < float and mask == int; and NumPy compared int64
    with float32 in float64, where PyTorch compares in float32: torch 2.13 says
    16777217 == 16777216.0 (float32) is True, since float32 rounds 16777217 to 16777216."""
    b = tinyffn.tensor([True, False], device=device)
    i = tinyffn.tensor([1, 2], device=device)
    x = tinyffn.tensor([1.0, 2.5], device=device)
    assert (i < x).tolist() == [False, True] and (b == i).tolist() == [True, False]
    assert (i == x.double()).tolist() == [True, False] and (x == x.double()).tolist() == [True] * 2
    assert (i & b).tolist() == [1, 0] and dtype_name((i & b).dtype) == "int64"
    big = tinyffn.tensor([16777217], device=device)
    assert (big == tinyffn.tensor([16777216.0], device=device)).tolist() == [True]
    assert (big == tinyffn.tensor([16777216.0], dtype="float64", device=device)).tolist() == [False]


def test_masks_combine_and_invert_as_in_pytorch(device):
    """``~``, ``&``, ``|``, ``^`` on bool masks (logical) and integer tensors (bitwise): the
    values torch 2.13 gives written out, then compared with torch where it is installed."""
    values = np.array([-1.5, 0.0, 2.0, 3.5], dtype=np.float32)
    x = tinyffn.tensor(values, device=device)
    mine = {"not": ~(x > 0), "and": (x > 0) & (x < 3), "or": (x < 0) | (x > 3),
            "xor": (x >= 0) ^ (x > 2), "int": ~tinyffn.tensor([1, 2], device=device) & 6}
    written = {"not": [True, True, False, False], "and": [False, False, True, False],
               "or": [True, False, False, True], "xor": [False, True, True, False],
               "int": [6, 4]}
    for key, want in written.items():
        assert mine[key].tolist() == want, key
        assert dtype_name(mine[key].dtype) == ("int64" if key == "int" else "bool")
        assert mine[key].device == device
    with pytest.raises(TypeError, match="bitwise_invert: needs bool or integer tensors, got "
                                        "float32; for a float 0/1 mask m write 1 - m"):
        ~x
    with pytest.raises(TypeError, match="bitwise_and: needs bool or integer tensors"):
        (x > 0) & x
    assert (True & (x > 0)).tolist() == ((x > 0) & True).tolist() == [False, False, True, True]
    np.testing.assert_array_equal((1 | tinyffn.tensor([2], device=device)).numpy(), [3])
    other = "strict" if device == "cpu" else "cpu"
    for op in (lambda a, b: a & b, lambda a, b: a == b):
        with pytest.raises(tinyffn.DeviceError, match="operands are on different devices"):
            op(x > 0, tinyffn.tensor([True] * 4, device=other))
    for foreign in (None, "a"):                     # not an operand: Python's own answer
        with pytest.raises(TypeError, match="unsupported operand"):
            (x > 0) & foreign
        assert (x == foreign) is False and (x != foreign) is True
    np.testing.assert_array_equal((x == [-1.5, 0.0, 0.0, 3.5]).numpy(), [1, 1, 0, 1])
    np.testing.assert_array_equal((x == np.float64(2.0)).numpy(), [0, 0, 1, 0])  # a float too
    assert (x == 2 + 0j).tolist() == [False, False, True, False]                 # elementwise
    torch = pytest.importorskip("torch")
    t = torch.tensor(values)
    theirs = {"not": ~(t > 0), "and": (t > 0) & (t < 3), "or": (t < 0) | (t > 3),
              "xor": (t >= 0) ^ (t > 2), "int": ~torch.tensor([1, 2]) & 6}
    for key, want in theirs.items():
        np.testing.assert_array_equal(mine[key].numpy(), want.numpy(), err_msg=key)
        assert dtype_name(mine[key].dtype) == str(want.dtype).removeprefix("torch.")
    np.testing.assert_array_equal((True & (x > 0)).numpy(), (t > 0).numpy())   # reflected
    with pytest.raises(TypeError, match="unsupported operand"):
        (x > 0) & (t > 0)                           # a torch tensor is no operand either
    assert (x == (t > 0)) is False and (x != (t > 0)) is True
    np.testing.assert_array_equal((x == 2 + 0j).numpy(), (t == 2 + 0j).numpy())


def test_format_abs_and_comparison_with_none_as_in_pytorch():
    """``f"{loss:.4f}"`` prints a 0-d tensor's value; ``abs(x)`` is ``x.abs()``; and
    ``t.grad == None`` is False, not an elementwise comparison whose truth is ambiguous."""
    x = tinyffn.tensor([-1.25, 2.0], requires_grad=True)
    loss = (x * x).sum()
    assert f"{loss:.4f}" == "5.5625" and f"{loss}" == "5.5625"
    assert f"{x}" == repr(x)
    with pytest.raises(TypeError, match=r"has shape \(1,\)"):    # one element, but not 0-d:
        f"{tinyffn.tensor([0.5]):.2f}"                           # torch refuses it too
    with pytest.raises(TypeError, match=r"format: '\.2f' formats a number, and this tensor "
                                        r"has shape \(2,\); format x\.item\(\)"):
        f"{x:.2f}"
    np.testing.assert_array_equal(abs(x).numpy(), [1.25, 2.0])
    assert abs(x).grad_fn is not None
    assert not np.signbit(abs(tinyffn.tensor([0.0])).numpy()[0])      # 0.0, not -0.0
    assert (x == None) is False and (x != None) is True              # noqa: E711
    with pytest.raises(TypeError):
        x < None


def test_to_takes_a_dtype_in_the_devices_place_as_pytorch(device):
    """``x.to(torch.float64)`` is PyTorch's spelling; here ``x.to(np.float64)`` (or the
    backend's own dtype object). A dtype *name* is still refused, with the keyword hint."""
    x = tinyffn.tensor([1.0, 2.0], device=device, requires_grad=True)
    y = x.to(np.float64)
    assert dtype_name(y.dtype) == "float64" and y.device == device and y.grad_fn is not None
    assert dtype_name(y.to(x.backend.dtype("float32")).dtype) == "float32"  # its own dtype
    model = tinyffn.nn.Linear(2, 3, device=device).to(np.float64)
    assert {dtype_name(p.dtype) for p in model.parameters()} == {"float64"}
    with pytest.raises(tinyffn.DeviceError, match=r"unknown device 'float64'.*pass "
                                                  r"dtype='float64'"):
        x.to("float64")
    other = tinyffn.tensor([1], dtype="int32", device="strict")       # x.to(y): y's device
    assert (x.to(other).device, dtype_name(x.to(other).dtype)) == ("strict", "int32")
    assert dtype_name(x.to(float).dtype) == "float64" and dtype_name(x.to(bool).dtype) == "bool"
    for not_a_dtype, name in ((str, "str"), (object, "object"), (complex, "complex128")):
        with pytest.raises(TypeError, match=f"to: tinyffn computes with bool, integer and "
                                            f"float16/32/64 tensors, not {name}"):
            x.to(not_a_dtype)                           # NumPy would make <U32 and O arrays
    with pytest.raises(TypeError, match="to: tinyffn computes with bool, integer and "
                                        "float16/32/64 tensors, not str32"):
        x.to(dtype="<U1")
    torch = pytest.importorskip("torch")
    with pytest.raises(tinyffn.DeviceError, match=r"torch\.float64 is PyTorch's dtype: pass "
                                                  r"NumPy's, such as np\.float64"):
        x.to(torch.float64)


def test_factories_take_the_shape_by_position_or_as_pytorchs_size_keyword():
    """torch 2.13: zeros(size=(2, 3)) works; zeros(size=2) and zeros(2, size=(2,)) raise."""
    for make in (tinyffn.zeros, tinyffn.ones, tinyffn.randn, tinyffn.rand):
        assert make(size=(2, 3)).shape == make(2, 3).shape == make((2, 3)).shape == (2, 3)
        assert make(size=[4]).shape == (4,) and make(size=()).shape == ()
        with pytest.raises(TypeError, match=f"{make.__name__}: size must be a tuple or list"):
            make(size=2)
        with pytest.raises(TypeError, match=f"{make.__name__}: size is given twice, by "
                                            r"position \(2,\) and as size=\(2,\)"):
            make(2, size=(2,))
    assert tinyffn.zeros(size=(2,)).tolist() == [0.0, 0.0]
    assert tinyffn.ones(size=(2,), dtype="int64").tolist() == [1, 1]
    tinyffn.manual_seed(3)
    a = tinyffn.randn(size=(3,))
    tinyffn.manual_seed(3)
    np.testing.assert_array_equal(a.numpy(), tinyffn.randn(3).numpy())


def test_zeros_like_and_ones_like_take_shape_dtype_and_device(device):
    x = tinyffn.randn(2, 3, dtype="float64", device=device, requires_grad=True) * 2
    z, o = tinyffn.zeros_like(x), tinyffn.ones_like(x, dtype="float32", requires_grad=True)
    np.testing.assert_array_equal(z.numpy(), np.zeros((2, 3)))
    np.testing.assert_array_equal(o.numpy(), np.ones((2, 3)))
    assert (dtype_name(z.dtype), dtype_name(o.dtype)) == ("float64", "float32")
    assert z.device == o.device == device and z.is_leaf and not z.requires_grad and o.requires_grad
    assert tinyffn.zeros_like(x, device="cpu").device == "cpu"
    with pytest.raises(TypeError, match=r"ones_like: needs a tinyffn Tensor, got numpy\.ndarray"):
        tinyffn.ones_like(np.ones(2))


@pytest.mark.parametrize("make", [
    lambda: tinyffn.tensor([1.0]), lambda: tinyffn.zeros(2), lambda: tinyffn.ones(2),
    lambda: tinyffn.full((2,), 1.5), lambda: tinyffn.eye(2), lambda: tinyffn.randn(2),
    lambda: tinyffn.rand(2), lambda: tinyffn.randint(5, (2,)), lambda: tinyffn.arange(3),
    lambda: tinyffn.linspace(0, 1, 3), lambda: tinyffn.zeros_like(tinyffn.ones(2)),
    lambda: tinyffn.ones_like(tinyffn.ones(2)), lambda: tinyffn.full_like(tinyffn.ones(2), 2.0),
    lambda: tinyffn.randn_like(tinyffn.ones(2)), lambda: tinyffn.rand_like(tinyffn.ones(2))])
def test_every_factory_makes_a_leaf_without_grad_unless_asked(make):
    """As PyTorch's factories: requires_grad=False by default."""
    t = make()
    assert t.is_leaf and t.requires_grad is False


@pytest.mark.parametrize("dtype, scalar", [("float16", np.float32(3.0)), ("int32", np.int64(3))])
def test_a_numpy_scalar_is_a_weak_number_as_in_torch(dtype, scalar):
    torch = pytest.importorskip("torch")
    t = tinyffn.tensor(2, dtype=dtype)                      # 0-d: only the scalar's dtype competes
    ours = t * scalar
    theirs = torch.from_numpy(t.numpy()) * scalar
    assert dtype_name(ours.dtype) == str(theirs.dtype).removeprefix("torch.") == dtype
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_the_number_cache_stays_bounded():
    x = tinyffn.ones(2)
    for i in range(promotion.MAX_NUMBERS + 10):
        x * (i + 0.5)                                        # ever new numbers, as a schedule makes
    assert len(promotion._NUMBERS) <= promotion.MAX_NUMBERS


def test_a_fresh_interpreter_draws_as_after_manual_seed_0():
    """The docs' examples show the numbers of a fresh interpreter (tests/test_docs.py runs
    them after manual_seed(0)): tinyffn's generator starts from seed 0."""
    code = "import tinyffn; print(tinyffn.randn(3, dtype='float64').numpy().tolist())"
    fresh = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout
    assert fresh.strip() == str(np.random.default_rng(0).standard_normal(3).tolist())


def test_manual_seed_is_numpys_generator():
    tinyffn.manual_seed(5)
    np.testing.assert_array_equal(tinyffn.randn(4, dtype="float64").numpy(),
                                  np.random.default_rng(5).standard_normal(4))


def test_cat_refuses_a_generator_with_a_clear_message():
    with pytest.raises(TypeError, match="pass a list or tuple of tensors, got generator"):
        tinyffn.cat(t for t in [tinyffn.ones(2), tinyffn.ones(2)])


def test_tensor_of_a_tensor_is_a_copy_of_its_values_on_every_device(device):
    """``tinyffn.tensor(t)`` reads t through numpy(), which copies from the GPU too."""
    t = tinyffn.randn(2, 3, dtype="float64", device=device, requires_grad=True)
    for where in (device, "cpu"):
        u = tinyffn.tensor(t, device=where)
        np.testing.assert_array_equal(u.numpy(), t.numpy())
        assert u.device == where and u.is_leaf and not u.requires_grad and u.data is not t.data


def test_comparisons_and_argmax_of_a_parameter_are_plain_tensors():
    """A mask of a module's weight (w > 0) is data, not a new Parameter."""
    w = tinyffn.nn.Parameter(tinyffn.tensor([1.0, -2.0, 3.0]))
    for result, want in [(w > 0, [True, False, True]), (~(w > 0), [False, True, False]),
                         (w == 3.0, [False, False, True]), (w.argmax(), 2)]:
        assert type(result) is tinyffn.Tensor and not result.requires_grad
        np.testing.assert_array_equal(result.numpy(), want)


def test_pow_method_is_the_operator():
    x = tinyffn.tensor([1.5, -2.0], requires_grad=True)
    x.pow(3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * np.array([1.5, -2.0]) ** 2, rtol=1e-6)
    assert x.pow(2).grad_fn.name == "pow"


# ------------------------------------------------- gaps a mutation audit of the core showed
def test_a_computed_tensor_moves_inside_no_grad():
    """The move guard is for recording only: inside no_grad a tensor computed before it
    (an evaluation step's output) moves, as in PyTorch, and needs no gradient there."""
    w = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    h = w * 3.0
    with tinyffn.no_grad():
        moved = h.to("strict")
    assert moved.device == "strict" and not moved.requires_grad and moved.is_leaf
    np.testing.assert_array_equal(moved.numpy(), [3.0, 6.0])


def test_an_assigned_grad_must_be_on_the_tensors_device(device):
    """Checked by device, not through the dtype: strict's dtypes never equal NumPy's, so
    only the cpu/cuda pair (one set of dtypes) tells a missing device check apart."""
    other = "strict" if device == "cpu" else "cpu"
    x = tinyffn.zeros(2, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match=rf"grad: assigned a float32 gradient of shape \(2,\) "
                                           rf"on {other} to a float32 tensor of shape \(2,\) "
                                           rf"on {device}"):
        x.grad = tinyffn.zeros(2, device=other)
    assert x.grad is None


def test_a_numpy_matrix_on_the_left_of_at_multiplies_from_the_left():
    """``a @ w`` with a NumPy ``a`` calls w.__rmatmul__(a): a @ w, not w @ a."""
    a = np.array([[1.0, 2.0], [0.0, 1.0]], dtype=np.float32)
    w = tinyffn.tensor([[1.0, 0.0], [3.0, 1.0]], requires_grad=True)
    y = a @ w
    np.testing.assert_array_equal(y.numpy(), a @ w.numpy())     # [[7, 2], [3, 1]]
    y.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), a.T @ np.ones((2, 2)))   # dL/dw = a^T 1


@pytest.mark.parametrize("op", ["==", "!=", "<", "<=", ">", ">="])
def test_each_comparison_matches_pytorch_with_broadcasting(op, device):
    torch = pytest.importorskip("torch")
    a = np.array([[-1.0, 0.0, 2.0], [2.0, 0.5, -3.0]], dtype=np.float32)
    b = np.array([2.0, 0.0, -3.0], dtype=np.float32)           # ties in every column
    f = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
         ">": operator.gt, ">=": operator.ge}[op]
    x, w = tinyffn.tensor(a, device=device), tinyffn.tensor(b, device=device)
    mine = {"t": f(x, w), "n": f(x, 0.0), "r": f(0.0, x)}
    ta, tb = torch.tensor(a), torch.tensor(b)
    theirs = {"t": f(ta, tb), "n": f(ta, 0.0), "r": f(0.0, ta)}
    for key, want in theirs.items():
        assert mine[key].shape == tuple(want.shape) and dtype_name(mine[key].dtype) == "bool"
        np.testing.assert_array_equal(mine[key].numpy(), want.numpy(), err_msg=f"{op} {key}")


def test_requires_grad_is_stored_as_a_bool():
    """Ops test ``True in needs_input_grad``: a flag of 2 (truthy, but != True) kept as is
    would make a leaf that says it requires grad and records nothing."""
    x = tinyffn.ones(2)
    x.requires_grad_(np.True_)                       # e.g. a flag computed with NumPy
    assert x.requires_grad is True
    x.requires_grad = 2
    assert x.requires_grad is True and (x * 3.0).grad_fn is not None


@pytest.mark.parametrize("low, high", [(0.0, None), (None, 0.0), (0.0, 0.0), (-1.0, 0.0)])
def test_clamp_at_a_bound_of_zero_matches_pytorch(low, high):
    """A bound of 0 is a bound (``clamp(min=0)`` is relu), not a missing one."""
    torch = pytest.importorskip("torch")
    data = np.array([-2.0, -0.5, 0.25, 1.5])                   # none on a bound
    x = tinyffn.tensor(data, dtype="float64", requires_grad=True)
    t = torch.tensor(data, requires_grad=True)
    x.clamp(low, high).sum().backward()
    t.clamp(low, high).sum().backward()
    np.testing.assert_array_equal(x.clamp(low, high).numpy(), t.clamp(low, high).detach().numpy())
    np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())


def test_clamp_passes_the_gradient_on_a_bound_and_none_at_a_nan_as_pytorch(device):
    """PyTorch 2.13: clamp(0, 1) of [-1, 0, 0.5, 1, 2, nan] has gradient [0, 1, 1, 1, 0, 0]:
    the bounds belong to the range, a NaN passes nothing (when clamp was maximum then
    minimum, the tie on a bound took half, and a NaN passed gy)."""
    x = tinyffn.tensor([-1.0, 0.0, 0.5, 1.0, 2.0, np.nan], requires_grad=True, device=device)
    y = x.clamp(0.0, 1.0)
    np.testing.assert_array_equal(y.numpy(), [0.0, 0.0, 0.5, 1.0, 1.0, np.nan])
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 1.0, 1.0, 1.0, 0.0, 0.0])


def test_clamp_to_tensor_bounds_gives_them_the_gradient_outside_the_range():
    """torch.clamp(x, lo, hi) with tensors (PyTorch 2.13 gives these numbers): x's
    gradient in [lo, hi], lo's below, hi's above, none at a NaN."""
    x = tinyffn.tensor([-2.0, 0.0, 0.5, 3.0, np.nan], dtype="float64", requires_grad=True)
    lo = tinyffn.tensor([-1.0, 0.0, 0.0, 0.0, 0.0], dtype="float64", requires_grad=True)
    hi = tinyffn.tensor(2.0, dtype="float64", requires_grad=True)
    y = x.clamp(lo, hi)
    np.testing.assert_array_equal(y.numpy(), [-1.0, 0.0, 0.5, 2.0, np.nan])
    (y * tinyffn.tensor([1.0, 2.0, 3.0, 4.0, 5.0], dtype="float64")).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 2.0, 3.0, 0.0, 0.0])
    np.testing.assert_array_equal(lo.grad.numpy(), [1.0, 0.0, 0.0, 0.0, 0.0])
    assert hi.grad.item() == 4.0
    assert tinyffn.gradcheck(lambda x, lo: x.clamp(lo, 1.5), [   # away from the kinks
        tinyffn.tensor([-1.0, 0.3, 0.7, 2.0, -0.2], dtype="float64", requires_grad=True),
        tinyffn.tensor([-0.5, 1.0, 0.0, 0.0, 0.0], dtype="float64", requires_grad=True)])


def test_clamp_to_a_nan_bound_is_nan_with_no_gradient_as_pytorch(device):
    """PyTorch 2.13: x = [-1, 0.5, 2] clamped to min=[nan, 0, 0] is [nan, 0.5, 2] with
    x.grad [0, 2, 3] and none for the bound (cotangent [1, 2, 3]); to max=[1, nan, 1],
    [-1, nan, 1] with x.grad [1, 0, 0], hi.grad [0, 0, 3]; to min=nan, all NaN. The NaN
    bound was passed over: x came back as it was, its gradient too."""
    dt = "float32" if device == "strict" else "float64"
    gy = tinyffn.tensor([1.0, 2.0, 3.0], dtype=dt, device=device)
    for bound, y_torch, gx_torch, gb_torch in [
            ("min", [np.nan, 0.5, 2.0], [0.0, 2.0, 3.0], [0.0, 0.0, 0.0]),
            ("max", [-1.0, np.nan, 1.0], [1.0, 0.0, 0.0], [0.0, 0.0, 3.0])]:
        x = tinyffn.tensor([-1.0, 0.5, 2.0], dtype=dt, device=device, requires_grad=True)
        b = tinyffn.tensor([np.nan, 0.0, 0.0] if bound == "min" else [1.0, np.nan, 1.0],
                           dtype=dt, device=device, requires_grad=True)
        y = x.clamp(**{bound: b})
        np.testing.assert_array_equal(y.numpy(), y_torch)
        (y * gy).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), gx_torch)
        np.testing.assert_array_equal(b.grad.numpy(), gb_torch)
    x = tinyffn.tensor([-1.0, 0.5, 2.0], device=device, requires_grad=True)
    for y in (x.clamp(min=np.nan), x.clamp(max=np.nan), x.clamp(0.0, np.nan),
              tinyffn.tensor([1, 5], device=device).clamp(min=np.nan)):
        assert np.isnan(y.numpy()).all()
    x.clamp(min=np.nan).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, 0.0])


def test_maximum_minimum_and_abs_at_a_nan_give_pytorchs_gradients(device):
    """PyTorch 2.13, maximum(x, w) with x = [1, nan, 3, 2], w = [2, 1, nan, 2]: x.grad
    [0, 1, 1, 0.5], w.grad [1, 1, 1, 0.5] (a NaN sends gy to both); minimum the mirror
    image; abs of [-1, 0, 0.5, nan]: [-1, 0, 1, 0]."""
    x = tinyffn.tensor([1.0, np.nan, 3.0, 2.0], requires_grad=True, device=device)
    w = tinyffn.tensor([2.0, 1.0, np.nan, 2.0], requires_grad=True, device=device)
    x.maximum(w).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 1.0, 1.0, 0.5])
    np.testing.assert_array_equal(w.grad.numpy(), [1.0, 1.0, 1.0, 0.5])
    x.grad = w.grad = None
    x.minimum(w).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0, 1.0, 0.5])
    np.testing.assert_array_equal(w.grad.numpy(), [0.0, 1.0, 1.0, 0.5])
    a = tinyffn.tensor([-1.0, 0.0, 0.5, np.nan], requires_grad=True, device=device)
    a.abs().sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [-1.0, 0.0, 1.0, 0.0])


# the sign bits PyTorch 2.13 gives for x = [-0.0, 0.0, -1.5, 2.0] (float64)
SIGNED_ZEROS = {
    "x.abs()": [0, 0, 0, 0], "-x": [0, 1, 0, 1], "x.sign()": [0, 0, 1, 0],
    "F.leaky_relu(x, 0.1)": [1, 0, 1, 0], "F.gelu(x)": [1, 0, 1, 0],
    "F.gelu(x, approximate='tanh')": [1, 0, 1, 0], "F.silu(x)": [1, 0, 1, 0],
    "x.clamp(min=0.0)": [1, 0, 0, 0], "x.clamp(max=0.0)": [1, 0, 1, 0],
    "F.hardtanh(x, -0.5, 0.5)": [1, 0, 1, 0], "F.elu(x)": [1, 0, 1, 0],
    "x.relu()": [0, 0, 0, 0],       # PyTorch: [1, 0, 0, 0]; docs/api.md, ops.ReLU: why not
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_the_sign_of_a_zero_is_pytorchs(dtype, device):
    """abs(-0.0) is 0.0 on every backend (maximum's choice on the tie of -0.0 and 0.0 is
    the array library's: NumPy's SIMD loop returns its second argument), and the other
    ops keep -0.0 where PyTorch keeps it. relu's -0.0 is the documented exception."""
    F = tinyffn.functional
    for case, want in SIGNED_ZEROS.items():
        x = tinyffn.tensor([-0.0, 0.0, -1.5, 2.0], dtype=dtype, device=device)
        got = eval(case, {"F": F, "x": x}).numpy()
        assert np.signbit(got).astype(int).tolist() == want, case
    torch = pytest.importorskip("torch")
    for case, want in SIGNED_ZEROS.items():
        x = torch.tensor([-0.0, 0.0, -1.5, 2.0], dtype=getattr(torch, dtype))
        got = eval(case, {"F": torch.nn.functional, "x": x}).numpy()
        assert np.signbit(got).astype(int).tolist() == (want if case != "x.relu()" else
                                                         [1, 0, 0, 0]), case


def test_argmax_and_argmin_of_a_0d_tensor_take_dim_0_as_pytorch():
    torch = pytest.importorskip("torch")
    x, t = tinyffn.tensor(3.0), torch.tensor(3.0)
    for op in ("argmax", "argmin"):
        for dim in (0, -1):
            for keepdim in (False, True):
                mine = getattr(x, op)(dim=dim, keepdim=keepdim)
                want = getattr(t, op)(dim=dim, keepdim=keepdim)
                assert mine.shape == tuple(want.shape) and mine.item() == want.item()


def test_split_into_three_or_more_unequal_lengths_matches_pytorch():
    torch = pytest.importorskip("torch")
    data = np.arange(12.0).reshape(2, 6)
    x, t = tinyffn.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    gys = [np.full((2, k), i + 1.0) for i, k in enumerate([1, 3, 0, 2])]
    for piece, want, gy in zip(x.split([1, 3, 0, 2], dim=1), t.split([1, 3, 0, 2], dim=1), gys):
        np.testing.assert_array_equal(piece.numpy(), want.detach().numpy())
        (piece * gy).sum().backward()
        (want * torch.tensor(gy)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())     # [1, 2, 2, 2, 4, 4]


def test_split_refuses_negative_lengths_and_a_zero_size_in_its_own_words():
    """torch refuses both too; [3, -1] adds up to 2, so only the sign check catches it."""
    x = tinyffn.zeros(2)
    with pytest.raises(ValueError, match=r"split: lengths \[3, -1\] must be integers >= 0"):
        x.split([3, -1])
    with pytest.raises(ValueError, match="split: the size of each piece must be positive, got 0"):
        x.split(0)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_min_abs_minimum_and_clamp_of_integers_are_exact(dtype):
    """-x wraps around for integers (uint8: -1 is 255; int8: -(-128) is -128), so the
    float recipes -max(-x) and maximum(-x, x) gave uint8 [0, 1, 2].min() = 1 and
    uint8 [1, 2].abs() = [255, 254]. Integers take the exact array functions, as PyTorch."""
    info = np.iinfo(dtype)
    a = np.array([[0, 1, 2], [info.min, info.max, 3]], dtype=dtype)
    b = np.array([[5, 0, info.max], [1, info.min, 3]], dtype=dtype)
    x = tinyffn.tensor(a)
    assert x.min().item() == a.min()
    for dim in (0, 1):
        values, indices = x.min(dim)
        np.testing.assert_array_equal(values.numpy(), a.min(axis=dim))
        np.testing.assert_array_equal(indices.numpy(), a.argmin(axis=dim))
        assert dtype_name(values.dtype) == dtype
    np.testing.assert_array_equal(x.min(dim=1, keepdim=True)[0].numpy(), a.min(1, keepdims=True))
    np.testing.assert_array_equal(x.abs().numpy(), np.abs(a))         # int8 -128 stays -128
    mine = x.minimum(tinyffn.tensor(b))
    np.testing.assert_array_equal(mine.numpy(), np.minimum(a, b))
    assert dtype_name(mine.dtype) == dtype
    np.testing.assert_array_equal(x.clamp(1, 3).numpy(), np.clip(a, 1, 3))
    # next to a float, the integers are made float first (as torch.minimum would): exact
    np.testing.assert_array_equal(x.clamp(max=1.5).numpy(),
                                  np.minimum(a.astype(np.float32), 1.5))
    y = x.clamp(max=[1.5, 1.5, 1.5])            # a list of floats too, read as float32
    np.testing.assert_array_equal(y.numpy(), np.minimum(a.astype(np.float32), 1.5))
    assert dtype_name(y.dtype) == "float32"                # torch 2.13: float32


def test_minimum_and_clamp_of_floats_with_a_narrow_integer_array_are_exact(device):
    """-other wrapped around for a uint8 or int8 NumPy operand (x.minimum(np.uint8(200))
    gave -56, x.clamp(max=np.array([-128], np.int8)) 128): an array or NumPy scalar is made
    a tensor first, then float, as a list already was."""
    x = tinyffn.tensor([300.0, 1.0], device=device)
    for other, expected in ((np.array([200, 200], np.uint8), [200.0, 1.0]),
                            (np.uint8(200), [200.0, 1.0]),
                            (np.array([-128, 5], np.int8), [-128.0, 1.0])):
        np.testing.assert_array_equal(x.minimum(other).numpy(), expected)
        np.testing.assert_array_equal(x.clamp(max=other).numpy(), expected)


def test_min_of_bools_and_minimum_with_a_list_as_pytorch():
    """bool min was a NumPy error about the - operator (torch: False); x.minimum(list)
    raised "bad operand type for unary -: 'list'" while x.maximum(list) worked."""
    assert tinyffn.tensor([True, False]).min().item() is False
    assert tinyffn.tensor([True, True]).min().item() is True
    x = tinyffn.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = x.minimum([0.0, 5.0, 2.0])
    assert dtype_name(y.dtype) == "float32"
    np.testing.assert_array_equal(y.numpy(), [0.0, -2.0, 2.0])
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 1.0, 0.0])
    np.testing.assert_array_equal(tinyffn.tensor([1, -2, 3]).minimum([0, 5, 2]).numpy(), [0, -2, 2])


def test_float16_scaled_by_a_number_float16_cannot_hold_is_refused():
    """PyTorch multiplies and divides a float16 tensor by a number in float32 and rounds
    once; as a float16 constant the number would be inf or 0: x * 65536 (a loss scale)
    all inf, mask * -1e9 NaN where the mask is 0, x / 7e4 all 0. Such a product is
    refused, naming the float32 spelling, which gives PyTorch 2.13's values (below)."""
    half = np.array([1e-3, 2.0, -3e-3], dtype=np.float16)
    x = tinyffn.tensor(half, requires_grad=True)
    for product in (lambda: x * 65536, lambda: 65536 * x, lambda: x * -1e9,
                    lambda: x * 2 ** -25):
        with pytest.raises(ValueError, match=r"^mul: the number .* is (inf|0) in float16 .*"
                                             r"compute in float32, as PyTorch does"):
            product()
    for quotient in (lambda: x / 7e4, lambda: 1e-8 / x):
        with pytest.raises(ValueError, match=r"^div: the number"):
            quotient()
    # a subnormal keeps a few digits: x * 1e-7 was 19% off PyTorch's (1.19e-07 in float16)
    for tiny in (1e-7, 3e-8, 2 ** -24, 1e-5, 4e-5):     # 4e-5: below 2 ** -14 = 6.1e-5
        with pytest.raises(ValueError, match=r"^mul: the number .* is .*, a subnormal with "
                                             r"few digits, in float16 \(its normal numbers"):
            x * tiny
    with np.errstate(over="ignore"):          # 2 * 65536 is inf in float16: expected
        y = (x.to(dtype="float32") * 65536).to(dtype="float16")      # what the message says
        np.testing.assert_array_equal(y.numpy(), np.array([65.5625, np.inf, -196.625],
                                                          np.float16))
        np.testing.assert_array_equal(((tinyffn.tensor(half).to(dtype="float32") / 7e4)
                                       .to(dtype="float16")).numpy(),
                                      np.array([0.0, 2.855e-05, -5.960e-08], np.float16))
        # numbers float16 holds as normal numbers go on: 65519 rounds to 65504
        assert (x * 65519.0).numpy()[0] == np.float16(1e-3) * np.float16(65504)
        assert (x * 2 ** -14).numpy()[1] == np.float16(2 ** -13)
        # add, sub and comparisons round the number to float16 in PyTorch too: inf, as here
        assert (tinyffn.tensor(np.array([-6e4], np.float16)) + 1e5).item() == np.inf
        assert not (x > 1e5).numpy().any()


def test_the_values_indices_pair_and_lists_of_tensors_are_no_operands(device):
    """x[:, :2] * x.max(1) stacked (values, indices) into one constant and multiplied by
    both, outside the graph, without an error (torch refuses the pair: TypeError)."""
    x = tinyffn.tensor([[1.0, 3.0, 2.0], [0.5, -1.0, 4.0]], device=device, requires_grad=True)
    for use in (lambda: x[:, :2] * x.max(1), lambda: x.max(1) * x[:, :2],
                lambda: x[:, 0] == x.min(1), lambda: x[:, 0] - x.min(dim=1),
                lambda: x[:, :2].add(x.max(1)), lambda: x[:, :2].sub(x.max(1), alpha=2)):
        with pytest.raises(TypeError, match=r"an operand is the pair \(values, indices\) from "
                                            r"x\.max\(dim\) and x\.min\(dim\); use its "
                                            r"\.values"):
            use()
    with pytest.raises(TypeError, match=r"relu: input must be a tinyffn Tensor, got MaxResult; "
                                        r"it is the pair \(values, indices\) from x\.max\(dim\) "
                                        r"and x\.min\(dim\): pass its \.values"):
        tinyffn.relu(x.max(1))
    w = tinyffn.tensor(2.0, device=device, requires_grad=True)
    for use in (lambda: x + [x[0], x[1]], lambda: x[0].add([w, w]),
                lambda: x[:, :2] + [[w, 1.0]], lambda: x * [x.max(1)]):   # nested: looked into
        with pytest.raises(TypeError, match=r"(add|mul): an operand is a list of tensors, which "
                                            r"would be stacked outside the graph; .* tinyffn\.stack"):
            use()
    assert (x * [1.0, 2.0, 3.0]).shape == (2, 3) and (x.max(1).values * 2).tolist() == [6.0, 8.0]


def test_max_and_min_of_a_tensor_are_maximum_and_minimum():
    """torch's x.max(other) is the elementwise maximum (a 0-d tensor too, broadcast, as
    there): a tensor where a dim goes is ``other``; with a keepdim it is refused."""
    x = tinyffn.tensor([1.0, 5.0])
    assert x.max(tinyffn.tensor([2.0, 2.0])).tolist() == [2.0, 5.0]
    assert x.min(tinyffn.tensor([2.0, 2.0])).tolist() == [1.0, 2.0]
    assert x.max(tinyffn.tensor(3.0)).tolist() == [3.0, 5.0]
    for op, method in (("max", "maximum"), ("min", "minimum")):
        with pytest.raises(TypeError, match=rf"^{op}: .*elementwise {method}, which takes no"):
            getattr(x, op)(tinyffn.tensor([2.0, 2.0]), True)


def test_pytorch_dtype_names_are_numpys_dtypes():
    """dtype=torch.float64 is a PyTorch habit: tinyffn.float64 is NumPy's float64."""
    x = tinyffn.tensor([1.0, 2.0], dtype=tinyffn.float64)
    assert x.dtype == np.float64 and x.dtype == tinyffn.float64
    assert x.to(tinyffn.float16).dtype == np.float16
    assert tinyffn.zeros(2, dtype=tinyffn.int64).dtype == np.int64
    assert tinyffn.zeros(2, dtype=tinyffn.bool).dtype == np.bool_
    assert tinyffn.randn(2, dtype=tinyffn.float64, device="strict").numpy().dtype == np.float64
    for name in ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
                 "bool"):
        assert getattr(tinyffn, name) == np.dtype(name)
    namespace = {}
    exec("from tinyffn import *", namespace)
    assert "float32" in namespace and "bool" not in namespace    # Python's bool stays


def test_a_python_int_outside_an_integer_dtype_is_refused_naming_the_op(device):
    """NumPy raised its own OverflowError naming no op; CuPy may wrap around silently."""
    x = tinyffn.tensor(np.array([1, 2], np.uint8), device=device) if device != "strict" \
        else tinyffn.tensor([1, 2], dtype="int32", device=device)
    big = -1 if device != "strict" else 2 ** 40
    with pytest.raises(OverflowError, match=r"^add: the number .* does not fit in (uint8|int32) "
                                            r"\(.*\); cast the tensor to a wider dtype first"):
        x + big
    assert (x + 3).numpy().tolist() == [4, 5]                    # numbers that fit go on
    y = tinyffn.tensor([1, 2], dtype="int32", device=device)
    with pytest.raises(OverflowError, match=r"^mul: the number 1099511627776 does not fit in "
                                            r"int32 \(-2147483648 to 2147483647\)"):
        y * 2 ** 40


@pytest.mark.parametrize("dtype, scalar, expected", [("float16", np.float32(3.0), 6.0),
                                                     ("int32", np.int64(3), 6)])
def test_a_numpy_scalar_is_a_weak_number_even_without_torch(dtype, scalar, expected):
    """What torch gives (PyTorch 2.13: float16 6.0, int32 6), written out: the comparison
    above is skipped where torch is missing. A NumPy scalar taken for a 0-d array would
    compete as a tensor and widen the 0-d result to float32 (int64)."""
    y = tinyffn.tensor(2, dtype=dtype) * scalar
    assert dtype_name(y.dtype) == dtype and y.item() == expected


def test_a_bool_tensor_plus_one_counts_as_in_pytorch():
    """The numbers 0 and 1 fit a bool, but True + True is True: mask + 1 must be int64
    [2, 1] (PyTorch 2.13), not a logical or."""
    mask = tinyffn.tensor([True, False])
    assert (mask + 1).tolist() == [2, 1] and dtype_name((mask + 1).dtype) == "int64"
    assert (mask * 1).tolist() == [1, 0] and dtype_name((mask * 1).dtype) == "int64"
    assert (mask + 0).tolist() == [1, 0] and dtype_name((mask + 0).dtype) == "int64"


def test_a_number_constant_is_made_per_device():
    """CuPy arrays have NumPy's dtype objects, so the dtype alone does not tell a GPU's
    constant from the CPU's: the shared-constant cache must key on the device too. A second
    NumPy backend under another device name stands in for the GPU."""
    import dataclasses
    from tinyffn.backend import get_backend
    from tinyffn.tensor import Tensor
    cpu = get_backend("cpu")
    twin = dataclasses.replace(cpu, device="twin")
    assert twin.dtype("float32") == cpu.dtype("float32")    # one dtype object, two devices
    assert _constant_of(tinyffn.ones(2), 2.5).backend is cpu
    x = Tensor._wrap(np.ones(2, dtype=np.float32), twin)
    assert _constant_of(x, 2.5).backend is twin
    assert _constant_of(tinyffn.ones(2), 2.5).backend is cpu


class _AddScaled(tinyffn.Function):
    """y = x + c w, with the number c among the positional arguments."""

    @staticmethod
    def forward(ctx, x, w, c):
        return x + c * w

    @staticmethod
    def backward(ctx, gy):
        return gy, gy, None


def test_a_number_next_to_two_dtypes_takes_their_result_dtype_in_any_order():
    """A number once took the first tensor's dtype: next to a float32 and a float64 tensor,
    0.1 was rounded to float32 (0.10000000149...) before the float64 computation, and the
    result depended on the order of the arguments."""
    x32, w64 = tinyffn.zeros(2), tinyffn.ones(2, dtype="float64")
    for y in (_AddScaled.apply(x32, w64, 0.1), _AddScaled.apply(w64 * 0, x32 + 1, 0.1)):
        assert dtype_name(y.dtype) == "float64"
        assert y.tolist() == [0.1, 0.1]                     # 0.1 in float64, exactly
    i = tinyffn.tensor([1, 2])                              # an int tensor first: 0.5 in float32
    y = _AddScaled.apply(i, tinyffn.ones(2), 0.5)
    assert dtype_name(y.dtype) == "float32" and y.tolist() == [1.5, 2.5]


def test_the_number_cache_never_holds_more_than_its_bound():
    x = tinyffn.ones(2)
    promotion._NUMBERS.clear()
    for i in range(promotion.MAX_NUMBERS + 2):
        x * (i + 0.25)
        assert len(promotion._NUMBERS) <= promotion.MAX_NUMBERS


def test_bool_and_unsigned_sums_count_in_int64_as_pytorch(device):
    """(pred == y).sum() counts a mask: the array API standard has no bool sum (the strict
    backend refused it), and NumPy sums uint8 in uint64; PyTorch gives int64 for both."""
    mask = tinyffn.tensor([[True, False, True], [True, True, True]], device=device)
    assert dtype_name(mask.sum().dtype) == "int64" and mask.sum().item() == 5
    np.testing.assert_array_equal(mask.sum(axis=0).numpy(), [2, 1, 2])
    pixels = tinyffn.tensor(np.array([200, 100, 7], np.uint8), device=device)
    assert dtype_name(pixels.sum().dtype) == "int64" and pixels.sum().item() == 307
    assert dtype_name(tinyffn.tensor([1, 2], dtype="int32", device=device).sum().dtype) == "int64"


def test_integers_divided_by_a_number_their_dtype_cannot_hold_give_floats(device):
    """True division makes floats, so the number need not fit the integers' dtype:
    int8 [1, 100] / 300 is float32 [1/300, 1/3] in PyTorch; it was refused as int8."""
    i = tinyffn.tensor(np.array([1, 100], np.int8), device=device)
    y = i / 300
    assert dtype_name(y.dtype) == "float32"
    np.testing.assert_allclose(y.numpy(), [1 / 300, 1 / 3], rtol=1e-7)
    np.testing.assert_allclose((300 / i).numpy(), [300.0, 3.0], rtol=1e-7)
    np.testing.assert_allclose((i / 3).numpy(), [1 / 3, 100 / 3], rtol=1e-7)
    assert (i + 3).numpy().tolist() == [4, 103] and dtype_name((i + 3).dtype) == "int8"
    with pytest.raises(OverflowError, match="add: the number 300 does not fit in int8"):
        i + 300


def test_max_and_min_of_bools_on_every_backend(device):
    """The array API standard's max takes no bools (the strict backend refused x.max() and
    x.min() of a mask); a mask's max is any, its min all, as in PyTorch."""
    m = tinyffn.tensor([[True, False, True], [True, True, True]], device=device)
    assert m.max().item() is True and m.min().item() is False
    np.testing.assert_array_equal(m.amin(axis=1).numpy(), [False, True])
    np.testing.assert_array_equal(m.amax(axis=0).numpy(), [True, True, True])
    kept = m.amax(axis=1, keepdim=True)       # torch.amax(m, 1, keepdim=True): (2, 1)
    assert kept.shape == (2, 1) and kept.numpy().tolist() == [[True], [True]]
    values, indices = m.min(1)
    np.testing.assert_array_equal(values.numpy(), [False, True])
    np.testing.assert_array_equal(indices.numpy(), [1, 0])


def test_float16_scale_refusal_at_its_edges_and_for_zero_and_inf():
    """65520 is float16's halfway point to inf (it rounds to inf; 65519 to 65504) and 2^-25
    half its smallest subnormal (it rounds to 0): refused as factors, the message saying
    which (numbers between 0 and the smallest normal are refused as subnormals, above). 0, inf and NaN are float16 numbers themselves: x * 0 is 0 and x * inf ±inf, as in
    PyTorch. A number met first in an add is still refused as a factor afterwards."""
    with np.errstate(over="ignore"):
        assert np.float16(65520.0) == np.inf and np.float16(2.0 ** -25) == 0      # the edges
    x = tinyffn.tensor(np.array([1e-3, 2.0, -3e-3], dtype=np.float16))
    assert (x * 2.0 ** -14).tolist() == (x.numpy() * np.float16(2.0 ** -14)).tolist()  # normal
    for number, became in [(65520.0, "inf"), (-65520, "inf"), (65536, "inf"),
                           (2.0 ** -25, "0"), (-1e-8, "0")]:
        with pytest.raises(ValueError, match=rf"^mul: the number {number!r} is {became} in "
                                             r"float16 \(its normal numbers run from"):
            x * number
    for zero in (0, 0.0):
        assert (x * zero).numpy().tolist() == [0.0, 0.0, 0.0]
    assert (x * float("inf")).numpy().tolist() == [np.inf, np.inf, -np.inf]
    assert np.isnan((x * float("nan")).numpy()).all()
    with np.errstate(over="ignore"):
        assert (x + 1e5).numpy().tolist() == [np.inf] * 3
    with pytest.raises(ValueError, match=r"^mul: the number 100000.0 is inf in float16"):
        x * 1e5                                     # the add did not make it a shared constant


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int32"])
def test_a_python_int_fits_an_integer_dtype_at_both_ends_of_its_range(dtype):
    """Its dtype's min and max (0 and 255 for uint8) go on; one past either is refused."""
    info = np.iinfo(dtype)
    x = tinyffn.tensor(np.array([0, 1], dtype))
    for end in (info.min, info.max):
        y = x * end
        assert y.tolist() == [0, end] and dtype_name(y.dtype) == dtype
    for outside in (info.min - 1, info.max + 1):
        with pytest.raises(OverflowError, match=rf"^mul: the number {outside} does not fit in "
                                                rf"{dtype} \({info.min} to {info.max}\)"):
            x * outside


def test_abs_and_minimum_of_integers_next_to_floats_as_pytorch():
    """A signed integer's abs is its magnitude. An integer operand next to a float one is
    made float first, so uint8 200 stays 200 (-200 would wrap to 56), with the dtype
    maximum gives (float32 next to a number or a float32 array, as PyTorch), and the float
    operand keeps its gradient; next to a Python int an integer tensor stays integer."""
    ints = tinyffn.tensor([-5, 0, 7], dtype="int32")
    assert ints.abs().tolist() == [5, 0, 7] and dtype_name(ints.abs().dtype) == "int32"
    x = tinyffn.tensor([300.0, -1.0, 4.0], requires_grad=True)
    y = x.minimum(tinyffn.tensor(np.array([200, 5, 4], np.uint8)))
    assert dtype_name(y.dtype) == "float32"
    np.testing.assert_array_equal(y.numpy(), [200.0, -1.0, 4.0])
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 1.0, 0.5])      # the tie shares gy
    low = ints.minimum(2)
    assert low.tolist() == [-5, 0, 2] and dtype_name(low.dtype) == "int32"
    assert dtype_name(ints.clamp(-1, 3).dtype) == "int32"
    for other in (2.5, np.array([0.5, 0.5, 9.5], np.float32), np.array(2.5)):
        y = ints.minimum(other)
        assert dtype_name(y.dtype) == "float32" == dtype_name(ints.maximum(other).dtype)
        np.testing.assert_array_equal(y.numpy(), np.minimum([-5.0, 0.0, 7.0], other))


def test_a_uint64_sum_keeps_values_past_int64s_range():
    big = tinyffn.tensor(np.array([2 ** 63, 1], np.uint64))
    assert big.sum().item() == 2 ** 63 + 1 and dtype_name(big.sum().dtype) == "uint64"


def test_comparisons_with_a_number_outside_an_integer_dtype_are_exact(device):
    """The strict backend refused uint8 == -100 ("Python int scalars must be within the
    bounds of the dtype"), as CuPy may wrap the number; compared in int64 the answers are
    the mathematical ones (PyTorch 2.13 wraps 300 to 44: uint8 [0, 200] < 300 is
    [True, False] there)."""
    x = tinyffn.tensor(np.array([0, 200], np.uint8), device=device)
    assert (x == -100).numpy().tolist() == [False, False]
    assert (x < 300).numpy().tolist() == [True, True]
    assert (x != 256).numpy().tolist() == [True, True]
    assert (x < 100).numpy().tolist() == [True, False]                  # in range: as before
    assert x.minimum(-1).numpy().tolist() == [-1, -1]
    assert x.clamp(max=300).numpy().tolist() == [0, 200]
