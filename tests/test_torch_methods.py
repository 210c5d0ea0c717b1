"""The Tensor methods a PyTorch user reaches for: where and masked_fill, var and std, any
and all, the casts, clone, softmax; and those of torch_methods.py: add, sub, mul, div,
matmul, t, contiguous, cpu, cuda, the in-place methods (zero_, fill_, copy_, normal_,
uniform_, add_, sub_, mul_, div_), the everyday names (neg, square, rsqrt, eq, isnan,
logical_and, view_as, type_as, new_zeros, ...), ``x[key] = value``, and what a missing
in-place name says.

References: NumPy written out here, gradcheck, and PyTorch 2.13's values written out as
numbers (computed once with torch; these tests run without it).
"""
import itertools
import re
import subprocess
import sys

import numpy as np
import pytest

import numpy_reference as ref
import tinyffn
from tinyffn import nn
from tinyffn.autograd import Scope
from tinyffn.backend import dtype_name


def f64(values, device="cpu", requires_grad=True):
    return tinyffn.tensor(values, dtype="float64", device=device, requires_grad=requires_grad)


# ----------------------------------------------------------------------------- where
def test_where_passes_back_zeros_not_nans_where_an_inf_arrives(device):
    """The discarded side gets an exact 0, also where gy is inf: gy * mask would give
    inf * 0 = NaN. PyTorch 2.13: x.grad = [inf, 0, 1], w.grad = [0, inf, 0]."""
    x, w = f64([1.0, 2.0, 3.0], device), f64([4.0, 5.0, 6.0], device)
    c = tinyffn.tensor([True, False, True], device=device)
    y = tinyffn.where(c, x, w)
    np.testing.assert_array_equal(y.numpy(), [1.0, 5.0, 3.0])
    y.backward(tinyffn.tensor([np.inf, np.inf, 1.0], dtype="float64", device=device))
    np.testing.assert_array_equal(x.grad.numpy(), [np.inf, 0.0, 1.0])
    np.testing.assert_array_equal(w.grad.numpy(), [0.0, np.inf, 0.0])


def test_where_promotes_its_three_tensors_together(device):
    """Condition and x both bool, other float32: x is made float first (torch 2.13 gives
    float32 [1.0, 0.5]); the strict backend refuses to mix bool and float in its where."""
    c = tinyffn.tensor([True, False], device=device)
    y = tinyffn.where(c, c, tinyffn.tensor([0.5, 0.5], device=device))
    assert y.tolist() == [1.0, 0.5] and dtype_name(y.dtype) == "float32"


def test_where_sums_a_broadcast_gradient_back():
    c = tinyffn.tensor([[True, False, True], [False, False, True]])     # (2, 3)
    x = f64([1.0, 2.0, 3.0])                                             # (3,): each row
    w = f64([[10.0], [20.0]])                                            # (2, 1): each column
    tinyffn.where(c, x, w).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 0.0, 2.0])     # count of c per column
    np.testing.assert_array_equal(w.grad.numpy(), [[1.0], [2.0]])      # count of ~c per row


def test_where_takes_pytorchs_result_dtypes():
    c = tinyffn.tensor([True, False])
    assert dtype_name(tinyffn.where(c, 1.0, 0.0).dtype) == "float32"     # torch: float32
    assert dtype_name(tinyffn.where(c, 2, 0).dtype) == "int64"           # torch: int64
    x32 = tinyffn.tensor([1.0, 2.0])
    assert dtype_name(tinyffn.where(c, x32, 0.5).dtype) == "float32"
    assert dtype_name(tinyffn.where(c, tinyffn.tensor([1, 2]), 0.5).dtype) == "float32"
    y = x32.where(c, tinyffn.tensor([7.0, 8.0], dtype="float64"))
    assert dtype_name(y.dtype) == "float64"
    np.testing.assert_array_equal(y.numpy(), [1.0, 8.0])


def test_where_refuses_a_condition_that_is_not_a_mask(device):
    x = tinyffn.tensor([1.0, -1.0], device=device)
    with pytest.raises(TypeError, match=r"condition must be a bool tensor, such as x > 0, "
                                        r"got a float32 tensor; compare it first \(c != 0\)"):
        tinyffn.where(x, x, 0.0)
    with pytest.raises(TypeError, match="got list"):
        tinyffn.where([True, False], x, 0.0)
    with pytest.raises(ValueError, match=r"where: shapes \(3,\) \(condition\), \(2,\) and \(\) "
                                         "cannot be broadcast"):
        tinyffn.where(tinyffn.tensor([True, False, True], device=device), x, 0.0)


def test_where_draws_the_mask_as_an_input_without_gradient():
    c = tinyffn.tensor([True, False])
    x = f64([1.0, 2.0])
    y = tinyffn.where(c, x, 0.0)
    assert y.grad_fn.name == "where" and y.grad_fn.needs_input_grad == (False, True, False)


# ----------------------------------------------------------------------------- masked_fill
def test_a_causal_mask_with_masked_fill_gives_numpys_attention_weights(device):
    T = 4
    s = np.random.default_rng(3).standard_normal((T, T))
    scores = tinyffn.tensor(s, device=device, requires_grad=True)
    future = tinyffn.tensor(np.triu(np.ones((T, T), dtype=bool), k=1), device=device)
    a = scores.masked_fill(future, float("-inf")).softmax(-1)
    expected = ref.softmax(np.where(np.triu(np.ones((T, T)), k=1) == 1, -np.inf, s), axis=-1)
    np.testing.assert_allclose(a.numpy(), expected, rtol=1e-5, atol=1e-7)
    assert np.all(np.triu(a.numpy(), k=1) == 0)
    (a * tinyffn.tensor(s, device=device)).sum().backward()
    assert np.all(np.triu(scores.grad.numpy(), k=1) == 0)              # masked: no gradient
    assert np.all(np.isfinite(scores.grad.numpy()))


def test_masked_fill_is_gradchecked():
    mask = tinyffn.tensor([[True, False, False], [False, True, False]])
    x = f64(np.random.default_rng(0).standard_normal((2, 3)))
    assert tinyffn.gradcheck(lambda x: x.masked_fill(mask, 0.25) * x, [x])


def test_masked_fill_keeps_the_tensors_dtype():
    mask = tinyffn.tensor([True, False])
    x16 = tinyffn.tensor([1.0, 2.0], dtype="float16")
    y = x16.masked_fill(mask, float("-inf"))                 # torch 2.13: [-inf, 2.], float16
    assert dtype_name(y.dtype) == "float16"
    np.testing.assert_array_equal(y.numpy(), [-np.inf, 2.0])
    y = tinyffn.tensor([1.0, 2.0]).masked_fill(mask, tinyffn.tensor(0.5, dtype="float64"))
    assert dtype_name(y.dtype) == "float32"
    np.testing.assert_array_equal(y.numpy(), [0.5, 2.0])
    np.testing.assert_array_equal(tinyffn.tensor([1, 2]).masked_fill(mask, 5).numpy(), [5, 2])


def test_masked_fill_refuses_what_pytorch_would_truncate_or_reshape():
    mask = tinyffn.tensor([True, False])
    with pytest.raises(TypeError, match=r"the value 0.5 is not of the tensor.s dtype, int64 "
                                        r"\(PyTorch truncates it"):
        tinyffn.tensor([1, 2]).masked_fill(mask, 0.5)
    with pytest.raises(ValueError, match=r"a number or a 0-d tensor, got shape \(2,\)"):
        tinyffn.tensor([1.0, 2.0]).masked_fill(mask, tinyffn.tensor([3.0, 4.0]))
    with pytest.raises(ValueError, match=r"mask of shape \(2, 2\) does not broadcast to the "
                                         r"tensor's shape \(2,\)"):
        tinyffn.tensor([1.0, 2.0]).masked_fill(tinyffn.tensor([[True, False]] * 2), 0.0)
    with pytest.raises(TypeError, match=r"masked_fill: the mask must be a bool tensor, such "
                                        r"as x > 0, got an int64 tensor"):
        tinyffn.tensor([1.0, 2.0]).masked_fill(tinyffn.tensor([1, 0]), 0.0)   # torch refuses too
    x = tinyffn.arange(12.0).reshape(3, 4)              # found by review: lists of NumPy
    assert x[[np.int64(0), np.int64(2)]].shape == (2, 4)   # ints were refused as tuples
    with pytest.raises(TypeError, match=r"getitem: PyTorch reads a uint8 index as a mask"):
        x[tinyffn.tensor([1, 0], dtype="uint8")]         # torch: row 0 (a mask); NumPy: 1, 0
    flags = tinyffn.zeros(3, dtype="bool")              # torch 2.13: [True, False, True]
    mask = tinyffn.tensor([True, False, True])
    assert flags.masked_fill(mask, 1).tolist() == flags.masked_fill(mask, True).tolist() == \
        [True, False, True]
    with pytest.raises(ValueError, match=r"masked_fill: value 100000.0 does not fit in "
                                         r"float16"):        # torch: "without overflow"
        tinyffn.zeros(2, dtype="float16").masked_fill(mask[:2], 1e5)
    with pytest.raises(ValueError, match=r"value 70000 does not fit in float16"):
        tinyffn.zeros(2, dtype="float16").masked_fill(mask[:2], tinyffn.tensor(70000))
    for fill in (float("-inf"), float("nan"), 65504.0):         # torch 2.13 takes these
        tinyffn.zeros(2, dtype="float16").masked_fill(mask[:2], fill)
    with pytest.raises(TypeError, match=r"masked_fill: a bool tensor takes True or False "
                                        r"\(or 1 and 0\), got 0.5"):
        flags.masked_fill(mask, 0.5)
    with pytest.raises(TypeError, match=r"masked_fill: a bool tensor takes True or False "
                                        r"\(or 1 and 0\), got 2 \(PyTorch would read it as True"):
        flags.masked_fill(mask, 2)                      # torch 2.13: [True, False, True]


# ----------------------------------------------------------------------------- var, std
def test_var_and_std_match_pytorchs_values_and_gradients():
    """PyTorch 2.13, float64: t.var(dim=1) = [2.3333333333333333, 0] and its gradient;
    t.std() = 1.0327955589886446 and its gradient (both unbiased, PyTorch's default)."""
    rows = [[1.0, 2.0, 4.0], [3.0, 3.0, 3.0]]
    t = f64(rows)
    v = t.var(dim=1)
    v.sum().backward()
    np.testing.assert_allclose(v.numpy(), [2.333333333333333, 0.0], rtol=1e-15)
    np.testing.assert_allclose(t.grad.numpy(), [[-1.3333333333333335, -0.3333333333333335,
                                                 1.6666666666666665], [0.0, 0.0, 0.0]],
                               rtol=1e-14)
    t = f64(rows)
    s = t.std()
    s.backward()
    assert s.item() == pytest.approx(1.0327955589886446, rel=1e-15)
    np.testing.assert_allclose(t.grad.numpy(), [
        [-0.3227486121839514, -0.12909944487358055, 0.25819888974716115],
        [0.06454972243679032, 0.06454972243679032, 0.06454972243679032]], rtol=1e-13)


@pytest.mark.parametrize("kwargs, ddof", [({}, 1), ({"correction": 0}, 0),
                                          ({"unbiased": False}, 0), ({"unbiased": True}, 1),
                                          ({"correction": 2}, 2)])
@pytest.mark.parametrize("axes", [{}, {"dim": 0}, {"axis": (0, 2), "keepdims": True},
                                  {"dim": -1, "keepdim": True}])
def test_var_and_std_match_numpy_for_every_correction_and_axis(kwargs, ddof, axes, device):
    a = np.random.default_rng(5).standard_normal((3, 4, 5))
    x = tinyffn.tensor(a, dtype="float64", device=device)
    axis = axes.get("dim", axes.get("axis"))
    keep = axes.get("keepdim", axes.get("keepdims", False))
    np.testing.assert_allclose(x.var(**axes, **kwargs).numpy(),
                               np.var(a, axis=axis, ddof=ddof, keepdims=keep), rtol=1e-12)
    np.testing.assert_allclose(x.std(**axes, **kwargs).numpy(),
                               np.std(a, axis=axis, ddof=ddof, keepdims=keep), rtol=1e-12)


def test_std_of_a_constant_row_passes_back_zeros_as_pytorch():
    """d std / dx = (x - mean) / ((n - c) std) is 0 / 0 where std = 0: PyTorch 2.13 gives 0
    there (a constant feature must not turn a whole batch's gradients into NaN)."""
    t = f64([[1.0, 2.0, 4.0], [3.0, 3.0, 3.0]])
    s = t.std(dim=1, keepdim=True)
    (s * f64([[1.0], [2.0]], requires_grad=False)).sum().backward()
    np.testing.assert_allclose(s.numpy(), [[1.5275252316519465], [0.0]], rtol=1e-15)
    np.testing.assert_allclose(t.grad.numpy(), [
        [-0.43643578047198484, -0.10910894511799625, 0.5455447255899809], [0.0, 0.0, 0.0]],
        rtol=1e-14)
    u = tinyffn.tensor([2.0, 2.0], requires_grad=True)
    u.std(correction=0).backward()
    np.testing.assert_array_equal(u.grad.numpy(), [0.0, 0.0])          # torch 2.13: [0, 0]
    assert dtype_name(u.std().dtype) == "float32"


def test_var_and_std_of_float16_are_computed_in_float32_as_pytorch():
    """(x - mean)² overflows float16 past 256: var([200, -200, 0]) and std([300, -300, 250])
    were inf, with zero gradients. PyTorch 2.13 computes in float32 and rounds the result:
    40000 and 333 (float16), var's gradient [200, -200, 0]; std's gradient written out from
    float64 NumPy, (x - mean) / ((n - 1) std) (PyTorch's own, in float16: [0.3254, -0.5752,
    0.2502])."""
    x = tinyffn.tensor([200.0, -200.0, 0.0], dtype="float16", requires_grad=True)
    v = x.var()
    v.backward()
    assert dtype_name(v.dtype) == "float16" and v.item() == 40000.0
    np.testing.assert_array_equal(x.grad.numpy(), [200.0, -200.0, 0.0])
    assert dtype_name(x.grad.dtype) == "float16"
    x = tinyffn.tensor([300.0, -300.0, 250.0], dtype="float16", requires_grad=True)
    s = x.std()
    s.backward()
    assert dtype_name(s.dtype) == "float16" and s.item() == 333.0
    np.testing.assert_allclose(x.grad.numpy(), [0.32540701, -0.5757201, 0.25031309],
                               rtol=1e-3)


def test_var_and_std_are_gradchecked_and_drawn_in_their_frames():
    x = f64(np.random.default_rng(2).standard_normal((3, 4)))
    assert tinyffn.gradcheck(lambda x: x.var(dim=1), [x])
    assert tinyffn.gradcheck(lambda x: x.std(dim=0, correction=0), [x])
    assert x.std().grad_fn.scope == (Scope("function", "std"),)
    assert x.var().grad_fn.scope == (Scope("function", "var"),)


def test_var_of_integers_is_float32():
    y = tinyffn.tensor([1, 2, 4]).var()
    assert dtype_name(y.dtype) == "float32" and y.item() == pytest.approx(7 / 3)


def test_var_refuses_what_would_be_nan_or_ambiguous():
    x = tinyffn.tensor([[1.0, 2.0]])
    with pytest.raises(ValueError, match=r"var: 1 element\(s\) per result leave no degrees of "
                                         r"freedom with correction=1; .* correction=0"):
        x.var(dim=0)
    with pytest.raises(ValueError, match="std: 2 element.s. per result .* correction=2"):
        x.std(correction=2)
    with pytest.raises(ValueError, match="correction must be a number >= 0"):
        x.var(correction=-1)
    with pytest.raises(ValueError, match="correction must be a number >= 0.* got '1'"):
        x.var(correction="1")
    with pytest.raises(TypeError, match="pass correction or unbiased"):
        x.var(correction=0, unbiased=False)
    with pytest.raises(TypeError, match="unbiased must be True or False, got 0"):
        x.var(unbiased=0)
    with pytest.raises(TypeError, match="pass axis or dim"):
        x.std(axis=0, dim=1)


# ----------------------------------------------------------------------------- any, all
def test_any_and_all_follow_numpy_and_count_nan_as_true(device):
    a = np.array([[0.0, np.nan, 0.0], [1.0, 2.0, 0.0]])
    x = tinyffn.tensor(a, device=device)
    assert x.any().item() is True and x.all().item() is False
    np.testing.assert_array_equal(x.any(dim=1).numpy(), [True, True])
    np.testing.assert_array_equal(x.all(1).numpy(), [False, False])
    np.testing.assert_array_equal(x.all(axis=0, keepdims=True).numpy(), [[False, True, False]])
    np.testing.assert_array_equal((x > 0).any(0).numpy(), [True, True, False])
    assert tinyffn.tensor([1.0, np.nan]).all().item() is True           # torch 2.13: True
    assert dtype_name(x.any().dtype) == "bool" and x.any().grad_fn is None


def test_any_and_all_keep_the_reduced_axes_under_both_names(device):
    a = np.array([[0.0, 1.0, 0.0], [1.0, 2.0, 0.0]])
    x = tinyffn.tensor(a, device=device)
    for op in ("any", "all"):
        expected = getattr(np, op)(a != 0, axis=1, keepdims=True)         # (2, 1)
        for y in (getattr(x, op)(dim=1, keepdim=True), getattr(x, op)(1, True),
                  getattr(x, op)(axis=1, keepdims=True)):
            np.testing.assert_array_equal(y.numpy(), expected, strict=True)


def test_any_and_all_over_no_dims_reduce_nothing_as_pytorch():
    """Unlike sum and mean, whose dim=() is every axis, torch 2.13's x.any(dim=()) reduces
    no axis: [[False, True], [False, True]] here; NumPy's axis=() is the same."""
    x = tinyffn.tensor([[0.0, 1.0], [0.0, np.nan]])
    for y in (x.any(dim=()), x.all(dim=[]), x.any(dim=(), keepdim=True), x.all(axis=())):
        np.testing.assert_array_equal(y.numpy(), [[False, True], [False, True]], strict=True)


# ----------------------------------------------------------------------------- casts, clone
def test_pytorchs_cast_methods_give_their_dtypes():
    x = tinyffn.tensor([1.5, -1.7, 2.9, 0.0])
    np.testing.assert_array_equal(x.long().numpy(), [1, -1, 2, 0])      # toward zero, as torch
    assert dtype_name(x.long().dtype) == "int64" and dtype_name(x.int().dtype) == "int32"
    assert dtype_name(x.half().dtype) == "float16"
    np.testing.assert_array_equal(tinyffn.tensor([0.0, -0.0, np.nan, 2.0]).bool().numpy(),
                                  [False, False, True, True])           # torch 2.13
    w = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    w.half().sum().backward()
    assert dtype_name(w.grad.dtype) == "float32"


def test_clone_copies_the_memory_and_passes_the_gradient(device):
    x = f64([1.0, 2.0], device)
    y = x.clone()
    assert y.data is not x.data and y.grad_fn.name == "clone"
    (y * 3).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])
    original = tinyffn.tensor([1.0, 2.0])
    z = original.clone()
    z.data[0] = 5.0                              # the copy's own memory: the original keeps 1
    assert z.grad_fn is None and z.numpy()[0] == 5.0 and original.numpy()[0] == 1.0


def test_softmax_methods_are_the_functional_ones():
    x = tinyffn.tensor(np.random.default_rng(1).standard_normal((2, 5)), dtype="float64")
    np.testing.assert_allclose(x.softmax(-1).numpy(), ref.softmax(x.numpy(), axis=-1),
                               rtol=1e-13)
    np.testing.assert_allclose(x.log_softmax(0).numpy(), ref.log_softmax(x.numpy(), axis=0),
                               rtol=1e-13)
    np.testing.assert_allclose(x.softmax(0).numpy(), ref.softmax(x.numpy(), axis=0),
                               rtol=1e-13)
    np.testing.assert_allclose(x.log_softmax(-1).numpy(),
                               ref.log_softmax(x.numpy(), axis=-1), rtol=1e-13)
    with pytest.raises(TypeError):
        x.softmax()                              # dim is required, as torch.Tensor.softmax's


# ----------------------------------------------------------------------------- torch_methods.py
# The Tensor methods of TorchMethods (tinyffn/torch_methods.py). PyTorch 2.13's values are
# written out; the tests marked so compare with torch too where it is installed.
XA = [[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]]
YA = [[2.0, 1.0, -1.0], [3.0, -0.5, 2.0]]


def test_arithmetic_methods_give_pytorchs_values_and_gradients(device):
    x, y = f64(XA, device), f64(YA, device)
    added, subbed = x.add(y, alpha=2.5), x.sub(y, alpha=-3)
    np.testing.assert_array_equal(added.numpy(), [[6.0, 0.5, 0.5], [8.0, 2.75, 4.0]])
    np.testing.assert_array_equal(subbed.numpy(), [[7.0, 1.0, 0.0], [9.5, 2.5, 5.0]])
    np.testing.assert_array_equal(x.mul(y).numpy(), [[2.0, -2.0, -3.0], [1.5, -2.0, -2.0]])
    np.testing.assert_allclose(x.div(y).numpy(), [[0.5, -2.0, -3.0], [1 / 6, -8.0, -0.5]],
                               rtol=1e-15)
    np.testing.assert_array_equal(x.matmul(y.t()).numpy(), [[-3.0, 10.0], [6.0, -2.5]])
    (added * subbed).sum().backward()           # torch 2.13's gradients
    np.testing.assert_array_equal(x.grad.numpy(), [[13.0, 1.5, 0.5], [17.5, 5.25, 9.0]])
    np.testing.assert_array_equal(y.grad.numpy(), [[35.5, 4.0, 1.5], [47.75, 14.5, 24.5]])
    n = tinyffn.tensor([1, 2], device=device)
    assert n.add(tinyffn.tensor([3, 4], device=device), alpha=2).tolist() == [7, 10]
    assert n.sub(1, alpha=3).tolist() == [-2, -1] and dtype_name(n.sub(1, alpha=3).dtype) == "int64"
    assert x.add(y).grad_fn.parents == (x, y)   # alpha 1: the operator itself, no mul


def test_add_scales_other_in_the_results_dtype(device):
    """x.add(y, alpha) is x + alpha * y computed in the result's dtype, as PyTorch's:
    float16 y scaled first overflowed at 65504 and gave -inf next to a float64 x, and an
    int32 y wrapped around next to an int64 x (PyTorch 2.13's values)."""
    if device == "strict":
        pytest.skip("the array API standard has no float16")
    x = tinyffn.tensor([1.0, 2.0], dtype="float64", device=device, requires_grad=True)
    y = tinyffn.tensor([65504.0, 1.0], dtype="float16", device=device, requires_grad=True)
    for z, expected in ((x.add(y, alpha=2), [131009.0, 4.0]), (x.sub(y, alpha=2),
                                                                [-131007.0, 0.0])):
        assert dtype_name(z.dtype) == "float64"
        np.testing.assert_array_equal(z.numpy(), expected)
    x.add(y, alpha=-3).sum().backward()
    assert dtype_name(y.grad.dtype) == "float16" and y.grad.tolist() == [-3.0, -3.0]
    n = tinyffn.tensor([2 ** 30], dtype="int32", device=device)
    big = tinyffn.tensor([1], dtype="int64", device=device).add(n, alpha=4)
    assert dtype_name(big.dtype) == "int64" and big.tolist() == [2 ** 32 + 1]
    h = tinyffn.tensor([1.0], dtype="float16", device=device)       # a float16 result
    assert h.add(tinyffn.tensor(2.0, dtype="float64", device=device), alpha=2).tolist() == [5.0]
    assert dtype_name(h.add(tinyffn.tensor(2.0, dtype="float64", device=device),
                            alpha=2).dtype) == "float16"


@pytest.mark.parametrize("alpha", [1, 2])
@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("int64", "float64")])
def test_add_with_alpha_of_a_tensor_on_another_device_names_both(alpha, dtypes):
    """x.add(y, alpha) with y elsewhere is add's DeviceError, as x + y is: working out the
    result's dtype first once mixed NumPy and array_api_strict dtypes in NumPy's
    result_type, a TypeError about NumPy dtypes (and UserWarnings) instead."""
    x = tinyffn.tensor([1, 2], dtype=dtypes[0])
    y = tinyffn.tensor([1, 2], dtype=dtypes[1], device="strict")
    for op in ("add", "sub"):
        with pytest.raises(tinyffn.DeviceError, match=f"{op}: inputs are on different "
                                                      r"devices \(cpu and strict\)"):
            getattr(x, op)(y, alpha=alpha)


def test_arithmetic_methods_refuse_what_pytorch_refuses():
    n = tinyffn.tensor([1, 2])
    with pytest.raises(TypeError, match="add: alpha=1.5 is not an integer, and x has dtype "
                                        r"int64; PyTorch refuses this too"):
        n.add(n, alpha=1.5)
    with pytest.raises(TypeError, match="sub: alpha must be a number, got bool"):
        tinyffn.tensor([1.0]).sub(1.0, alpha=True)
    with pytest.raises(TypeError, match="add: alpha=1.0 is not an integer"):    # also at 1
        n.add(n, alpha=1.0)
    m = tinyffn.tensor([True, False])
    for other in (m, True):
        with pytest.raises(TypeError, match=r"add: alpha=2 on bool tensors .* write x \| y"):
            m.add(other, alpha=2)


BOOL_ALPHA = [(1, [3, 2], "int64"), (1.5, [4.0, 3.0], "float32"),     # torch 2.13: a bool x
              ([1, 2], [3, 4], "int64")]                                # with numbers adds


@pytest.mark.parametrize("other, values, dtype", BOOL_ALPHA)
def test_alpha_on_a_bool_tensor_with_numbers_is_arithmetic_as_pytorch(other, values, dtype):
    m = tinyffn.tensor([True, False])
    y = m.add(tinyffn.tensor(other) if isinstance(other, list) else other, alpha=2)
    assert y.tolist() == values and dtype_name(y.dtype) == dtype
    torch = pytest.importorskip("torch")
    t = torch.tensor([True, False]).add(torch.tensor(other) if isinstance(other, list)
                                        else other, alpha=2)
    assert t.tolist() == values and str(t.dtype) == "torch." + dtype


def test_alpha_takes_no_part_in_the_dtype_as_pytorch(device):
    """torch: float16 + int64 * 0.5 is float16 (alpha is no operand); it was float32."""
    if device == "strict":
        pytest.skip("the array API standard has no float16")
    h = tinyffn.tensor([1.0, 2.0], dtype="float16", device=device)
    k = tinyffn.tensor([1, 3], device=device)
    for y, values in [(h.add(k, alpha=0.5), [1.5, 3.5]), (h.sub(k, alpha=2), [-1.0, -4.0])]:
        assert dtype_name(y.dtype) == "float16" and y.tolist() == values
    y = k.sub(tinyffn.tensor([1.5, 1.0], device=device), alpha=2)     # int - float: float32
    assert dtype_name(y.dtype) == "float32" and y.tolist() == [-2.0, 1.0]


def test_arithmetic_methods_are_gradchecked():
    x, y = f64(XA), f64(YA)
    assert tinyffn.gradcheck(lambda x, y: x.add(y, alpha=-0.5) * x.sub(y, alpha=2.0), [x, y])
    assert tinyffn.gradcheck(lambda x, y: x.mul(y).div(y + 5.0).matmul(y.t()), [x, y])


def test_methods_match_torch_live():
    torch = pytest.importorskip("torch")
    x, y = f64(XA), f64(YA)
    tx, ty = (torch.tensor(v, dtype=torch.float64) for v in (XA, YA))
    for ours, theirs in [(x.add(y, alpha=2.5), tx.add(ty, alpha=2.5)),
                         (x.sub(y, alpha=-3), tx.sub(ty, alpha=-3)), (x.t(), tx.t()),
                         (x.matmul(y.t()), tx.matmul(ty.t())), (x.div(y), tx.div(ty)),
                         (x.sub(y), tx.sub(ty)), (x.tril(), tx.tril()), (x.triu(), tx.triu()),
                         (x.norm(dim=1), tx.norm(dim=1))]:
        np.testing.assert_allclose(ours.detach().numpy(), theirs.numpy(), rtol=1e-15)
    assert tinyffn.tensor(2.0).t().shape == tuple(torch.tensor(2.0).t().shape) == ()


def test_method_defaults_are_pytorchs(device):
    """alpha=1, diagonal=0, keepdim=False, as torch 2.13's methods (values written out)."""
    x, y = f64(XA, device), f64(YA, device)
    np.testing.assert_array_equal(x.sub(y).numpy(), [[-1.0, -3.0, 4.0], [-2.5, 4.5, -3.0]])
    np.testing.assert_array_equal(x.tril().numpy(), [[1.0, 0.0, 0.0], [0.5, 4.0, 0.0]])
    np.testing.assert_array_equal(x.triu().numpy(), [[1.0, -2.0, 3.0], [0.0, 4.0, -1.0]])
    np.testing.assert_allclose(x.norm(dim=1).numpy(), [3.7416573867739413, 4.153311931459037],
                               rtol=1e-15)


def test_t_transposes_a_matrix_and_refuses_more_axes(device):
    x = f64(XA, device)
    assert x.t().tolist() == [[1.0, 0.5], [-2.0, 4.0], [3.0, -1.0]]
    assert x.t().grad_fn.name == "transpose"
    v = f64([1.0, 2.0], device)
    assert v.t().tolist() == [1.0, 2.0] and tinyffn.tensor(3.0, device=device).t().item() == 3.0
    with pytest.raises(ValueError, match=r"t: a tensor of shape \(1, 2, 3\) has 3 axes, and "
                                         r"t\(\) transposes at most 2; write x.mT"):
        x.reshape(1, 2, 3).t()


def test_contiguous_and_cpu_are_the_tensor_itself_on_the_cpu():
    x = tinyffn.tensor(XA).T                     # a strided view of the array underneath
    assert x.contiguous() is x and x.cpu() is x
    assert x.contiguous().numpy().tolist() == [[1.0, 0.5], [-2.0, 4.0], [3.0, -1.0]]


def test_cpu_and_cuda_move_a_tensor_as_to(device):
    x = tinyffn.tensor([1.0, 2.0], device=device, requires_grad=True)
    back = x.cpu()
    assert back.device == "cpu" and back.tolist() == [1.0, 2.0] and back.requires_grad
    assert (back is x) == (device == "cpu")
    assert x.is_cuda == (device == "cuda") and back.is_cuda is False
    if tinyffn.cuda_available():
        for there in (x.cuda(), x.cuda(0), x.cuda("cuda:0")):
            assert there.device == "cuda" and there.tolist() == [1.0, 2.0]
        assert (x.cuda() is x) == (device == "cuda")
    else:
        with pytest.raises(tinyffn.DeviceError, match="cuda"):
            x.cuda()
    with pytest.raises(tinyffn.DeviceError, match="tinyffn uses one GPU"):
        x.cuda(1)


# ----------------------------------------------------------------------------- in place
def test_zero_fill_and_copy_give_the_same_tensor_a_new_array(device):
    p = tinyffn.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
    (p * p).sum().backward()
    g = p.grad
    old = g.data
    assert g.zero_() is g and p.grad is g and g.tolist() == [0.0, 0.0, 0.0]
    assert g.data is not old                     # the old array keeps its values
    assert tinyffn.tensor(old, device=device).tolist() == [2.0, 4.0, 6.0]
    n = tinyffn.zeros(2, 3, dtype="int64", device=device)
    assert n.fill_(tinyffn.tensor(7)).tolist() == [[7] * 3] * 2 and dtype_name(n.dtype) == "int64"
    z = tinyffn.zeros(2, 3, device=device)
    z.copy_(tinyffn.tensor([1, 2, 3]))           # broadcast, cast and moved, as torch 2.13
    assert z.tolist() == [[1.0, 2.0, 3.0]] * 2 and dtype_name(z.dtype) == "float32"
    assert z.device == device
    i = tinyffn.zeros(2, 2, dtype="int32", device=device)
    src = f64([[1.7, -1.7], [2.5, 0.2]], requires_grad=False)       # on the cpu
    assert i.copy_(src).tolist() == [[1, -1], [2, 0]]            # toward zero, as torch
    s, c = tinyffn.tensor([1.0, 2.0], device=device), tinyffn.zeros(2, device=device)
    c.copy_(s).data[0] = 9.0                     # an array of its own, writable: src keeps
    assert s.tolist() == [1.0, 2.0] and c.tolist() == [9.0, 2.0]      # its values


def test_in_place_methods_follow_the_rules_of_x_minus_equals_y():
    """PyTorch 2.13 refuses each on a leaf that requires grad ("a leaf Variable that
    requires grad is being used in an in-place operation"); inside no_grad it runs."""
    w = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    for call, new in [("zero_()", "x = tinyffn.zeros_like(x)"),
                      ("fill_(1.0)", "x = tinyffn.full_like(x, value)"),
                      ("copy_(tinyffn.ones(2))", "x = other.expand(*x.shape)"),
                      ("normal_()", "x = tinyffn.randn_like(x) * std + mean"),
                      ("uniform_()", "x = tinyffn.rand_like(x) * (b - a) + a")]:
        op = call.split("(")[0]
        with pytest.raises(RuntimeError, match=f"{op}: x (or y )?requires grad, and tinyffn "
                                               f"does not record in-place ops.*write "
                                               f"{re.escape(new)} for a new tensor"):
            eval("w." + call)
    z = tinyffn.zeros(2)
    with pytest.raises(RuntimeError, match="copy_: x or y requires grad"):
        z.copy_(w)                              # PyTorch would record it; tinyffn cannot
    with tinyffn.no_grad():
        assert w.fill_(3.0) is w and w.tolist() == [3.0, 3.0] and w.requires_grad
        z.copy_(w)
    assert z.tolist() == [3.0, 3.0] and not z.requires_grad


def test_in_place_methods_refuse_what_does_not_fit():
    with pytest.raises(ValueError, match=r"fill_: the value must be a number or a 0-d "
                                         r"tensor, got shape \(2,\)"):
        tinyffn.zeros(3).fill_(tinyffn.ones(2))
    with pytest.raises(TypeError, match="fill_: value 1.5 is not a whole number"):
        tinyffn.zeros(3, dtype="int64").fill_(1.5)     # PyTorch truncates it to 1
    with pytest.raises(TypeError, match="fill_: value must be a number"):
        tinyffn.zeros(3).fill_("1")
    with pytest.raises(ValueError, match=r"copy_: other of shape \(2,\) does not broadcast "
                                         r"to x's shape \(3,\)"):
        tinyffn.zeros(3).copy_(tinyffn.ones(2))
    with pytest.raises(ValueError, match=r"copy_: other of shape \(2, 3\) does not broadcast"):
        tinyffn.zeros(3).copy_(tinyffn.ones(2, 3))     # it would broadcast the other way
    with pytest.raises(TypeError, match="copy_: other must be a tinyffn Tensor, got list"):
        tinyffn.zeros(3).copy_([1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="normal_: draws real numbers"):
        tinyffn.zeros(3, dtype="int64").normal_()


def test_normal_and_uniform_draw_what_nn_init_draws(device):
    x, y = tinyffn.zeros(1000, device=device), tinyffn.zeros(1000, device=device)
    tinyffn.manual_seed(3)
    assert x.normal_(1.0, 2.0) is x
    tinyffn.manual_seed(3)
    tinyffn.nn.init.normal_(y, 1.0, 2.0)
    np.testing.assert_array_equal(x.numpy(), y.numpy())
    assert 0.8 < x.numpy().mean() < 1.2 and 1.8 < x.numpy().std() < 2.2
    u = tinyffn.zeros(1000, device=device).uniform_(-0.5, 0.25)
    assert -0.5 <= u.numpy().min() and u.numpy().max() < 0.25 and u.numpy().min() < -0.45
    for draw, init in [("normal_", tinyffn.nn.init.normal_),       # torch's defaults:
                       ("uniform_", tinyffn.nn.init.uniform_)]:    # N(0, 1) and U(0, 1)
        tinyffn.manual_seed(4)
        x = getattr(tinyffn.zeros(5, device=device), draw)()
        tinyffn.manual_seed(4)
        y = init(tinyffn.zeros(5, device=device), 0.0, 1.0)
        np.testing.assert_array_equal(x.numpy(), y.numpy())
    w = nn.Linear(3, 2).weight
    with tinyffn.no_grad():
        w.normal_(0, 0.02)                       # GPT-2's initialisation, as in PyTorch
    assert w.requires_grad and w.numpy().std() < 0.1


# x[key] = value: (key, value) on x = arange(12.).reshape(3, 4); keys as NumPy reads them
SET_ITEM_CASES = [
    ("1, 2", 5.0), ("0", 7), ("-1, :", [1.0, 2.0, 3.0, 4.0]), (":, 1:3", 0.5),
    ("..., 0", np.array([9.0, 8.0, 7.0])), ("x > 6", -1.0), ("[0, 2]", 3.0),
    ("[0, 2], [1, 3]", np.array([10.0, 20.0])), (":, [True, False, True, False]", 4.0),
    ("[2, 2]", np.array([1.0, 2.0, 3.0, 4.0])), ("1", np.array([[6.0]])),   # (1, 1) into (4,)
]
# keys the array API standard cannot read (an index array needs one index per axis there)
PARTIAL_INDEX = {"[0, 2]", ":, [True, False, True, False]", "[2, 2]"}


def _set_item_key(text, x, lib):
    """The key of a case, read from its text with x in scope; its lists made index
    tensors (or masks) by ``lib`` (``tinyffn.tensor``, ``torch.tensor``, ``np.asarray``)."""
    class Keep:
        def __getitem__(self, key):
            return key
    names = {"x": x, "np": np}
    key = eval(f"Keep()[{text}]", {**names, "Keep": Keep})
    key = key if isinstance(key, tuple) else (key,)
    return tuple(lib(k) if isinstance(k, list) else k for k in key)


@pytest.mark.parametrize("text, value", SET_ITEM_CASES)
def test_item_assignment_writes_what_numpy_writes(device, text, value):
    """``x[key] = value`` gives x, the same object, NumPy's ``a[key] = v`` (a new array,
    under the rules of ``x -= y``), with index tensors and a bool mask as keys; what was
    read from x before keeps the old values, as every change in place here."""
    if device == "strict" and text in PARTIAL_INDEX:
        pytest.skip("the strict backend reads index arrays only with one index per axis")
    a = np.arange(12.0).reshape(3, 4)
    x = tinyffn.tensor(a, dtype="float32", device=device)
    before, old_row = x.detach(), x[0].clone()
    x_id = id(x)
    key = _set_item_key(text, x, lambda k: tinyffn.tensor(k, device=device))
    x[key] = tinyffn.tensor(value, device=device) if isinstance(value, np.ndarray) else value
    expected = a.copy()
    expected[_set_item_key(text, a, np.asarray)] = value
    assert id(x) == x_id and dtype_name(x.dtype) == "float32"
    np.testing.assert_array_equal(x.numpy(), expected)
    np.testing.assert_array_equal(before.numpy(), a)            # a snapshot, as documented
    np.testing.assert_array_equal(old_row.numpy(), a[0])


@pytest.mark.parametrize("text, value", SET_ITEM_CASES)
def test_item_assignment_writes_what_pytorch_writes(text, value):
    torch = pytest.importorskip("torch")
    a = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    x, t = tinyffn.tensor(a), torch.tensor(a)
    x[_set_item_key(text, x, tinyffn.tensor)] = tinyffn.tensor(value) \
        if isinstance(value, np.ndarray) else value
    t[_set_item_key(text, t, torch.tensor)] = torch.tensor(value, dtype=torch.float32) \
        if isinstance(value, (np.ndarray, list)) else value       # torch takes no list
    np.testing.assert_array_equal(x.numpy(), t.numpy())


def test_item_assignment_keeps_x_a_leaf_and_its_dtype(device):
    """A parameter inside ``no_grad()`` (PyTorch's ``w[0] = 0``), a ``.grad`` anywhere, an
    integer tensor counting (``counts[i] = n``), a bool mask, and nanoGPT's top-k line;
    values of a lower kind are cast to x's dtype, as in PyTorch."""
    w = nn.Linear(3, 2, device=device).weight
    with tinyffn.no_grad():
        w[0] = 0
        w[:, 2] = tinyffn.tensor([1, 2], device=device)         # int64 into float32
    assert w.requires_grad and w.is_leaf and dtype_name(w.dtype) == "float32"
    assert w.numpy()[0].tolist() == [0.0, 0.0, 1.0] and w.numpy()[1, 2] == 2.0
    w.sum().backward()
    w.grad[w.grad > 0] = 0.0                        # a .grad needs no gradient: anywhere
    assert w.grad.numpy().sum() == 0
    counts = tinyffn.zeros(3, dtype="int64", device=device)
    counts[1] = (tinyffn.arange(5, device=device) > 1).sum()
    counts[2] = True
    assert counts.tolist() == [0, 3, 1] and dtype_name(counts.dtype) == "int64"
    mask = tinyffn.zeros(2, 2, dtype="bool", device=device)
    mask[0, 1] = True
    assert mask.tolist() == [[False, True], [False, False]]
    logits = tinyffn.tensor([[1.0, 4.0, 2.0, 3.0]], device=device, requires_grad=True) * 1
    with tinyffn.no_grad():
        logits = logits * 1
        v, _ = logits.topk(2)
        logits[logits < v[:, -1:]] = -float("inf")     # nanoGPT's v[:, [-1]]
    assert logits.tolist() == [[-inf, 4.0, -inf, 3.0]]


def test_item_assignment_refuses_what_would_be_lost_or_cut(device):
    """Where a gradient would be needed, on what PyTorch makes a view (the change would
    reach the base there), a value of a higher kind or a fraction (PyTorch truncates), a
    shape that does not broadcast, an index out of range: each refused, saying what to
    write; x keeps its values."""
    x = tinyffn.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"x\[key\] = value: x requires grad, and tinyffn "
                       r"does not record in-place ops; .*no_grad.*x = x.masked_fill\(mask, "
                       r"value\) or x = tinyffn.where\(mask, values, x\) for a new tensor"):
        x[0] = 5.0
    y = tinyffn.zeros(3, device=device)
    with pytest.raises(RuntimeError, match=r"x\[key\] = value: x or y requires grad"):
        y[0] = x[1]
    m = tinyffn.zeros(2, 3, device=device)
    with pytest.raises(RuntimeError, match=r"x\[key\] = value: x was made from another tensor "
                                           r"by x\[key\].*w\[key\] = value"):
        m[0][1] = 5.0                               # in PyTorch m changes; here it could not
    with pytest.raises(RuntimeError, match=r"x \+= y: x was made from another tensor by "
                                           r"x\[key\].*for w\[key\] \+= y write w\[key\] = "
                                           r"w\[key\] \+ y"):
        m[0, 1] += 1.0
    m[0, 1] = m[0, 1] + 1.0                         # the form the message gives
    n = tinyffn.zeros(3, dtype="int64", device=device)
    with pytest.raises(TypeError, match=r"value 2.5 is not a whole number, and the dtype is "
                                        r"int64 \(PyTorch truncates it in silence\)"):
        n[0] = 2.5
    with pytest.raises(TypeError, match=r"x\[key\] = value: a value of dtype float32 into a "
                                        r"tensor of dtype int64 would be cut to x's dtype"):
        n[0] = tinyffn.tensor(2.0, device=device)
    with pytest.raises(TypeError, match=r"x\[key\] = value: tinyffn computes with float, "
                                        r"integer and bool tensors, not complex128"):
        m[0, 0] = 1 + 2j                    # was: '>' not supported between 'NoneType' and 'int'
    with pytest.raises(ValueError, match=r"x\[key\] = value: a value of shape \(4,\) does not "
                                         r"broadcast to \(3,\), the shape of x\[key\] for x "
                                         r"of shape \(2, 3\)"):
        m[0] = tinyffn.ones(4, device=device)
    with pytest.raises(IndexError, match=r"x\[key\] = value: cannot index a tensor of shape "
                                         r"\(2, 3\) with \[5\]"):
        m[5] = 1.0
    assert m.tolist() == [[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]] and n.tolist() == [0, 0, 0]
    assert x.tolist() == [1.0, 2.0, 3.0]


def test_a_missing_in_place_name_gets_pythons_suggestion_of_the_method():
    """No __getattr__ (it would slow every attribute read): Python's AttributeError names
    the out-of-place method, "Did you mean: 'unsqueeze'?", as the docs say (the in-place
    forms that keep x's shape, clamp_ and others, exist: in_place.py). Python
    prints the suggestion as it shows the error (3.11's traceback module does not), hence
    a process."""
    shown = subprocess.run([sys.executable, "-c", "import tinyffn\n"
                            "tinyffn.tensor([1.0]).unsqueeze_(0)"], capture_output=True, text=True)
    assert shown.stderr.rstrip().endswith("AttributeError: 'Tensor' object has no attribute "
                                          "'unsqueeze_'. Did you mean: 'unsqueeze'?")
    assert not hasattr(tinyffn.Tensor, "__getattr__")


# ------------------------------------------------- the rest of PyTorch's everyday vocabulary
# neg ... rsqrt, the comparison/test/logic names, *_as, new_*, add_ ... div_. Operands with a
# zero, a NaN and the infinities; torch 2.13's values and dtypes written out.
nan, inf = float("nan"), float("inf")
VOCAB_OPERANDS = {"f": [0.0, 4.0, nan, -1.0, inf], "i": [0, 2, -3], "b": [True, False],
                  "f2": [1.0, 0.0, 0.0, 2.0, 0.0], "b2": [True, True], "i2": [0, 0, 1]}
VOCAB = {   # name -> (the call, on tinyffn's or torch's tensors, torch's values, dtype)
    "f.neg()": (lambda t: t["f"].neg(), [-0.0, -4.0, nan, 1.0, -inf], "float32"),
    "f.negative()": (lambda t: t["f"].negative(), [-0.0, -4.0, nan, 1.0, -inf], "float32"),
    "i.neg()": (lambda t: t["i"].neg(), [0, -2, 3], "int64"),
    "f.square()": (lambda t: t["f"].square(), [0.0, 16.0, nan, 1.0, inf], "float32"),
    "i.square()": (lambda t: t["i"].square(), [0, 4, 9], "int64"),
    "b.square()": (lambda t: t["b"].square(), [1, 0], "int64"),
    "f.reciprocal()": (lambda t: t["f"].reciprocal(), [inf, 0.25, nan, -1.0, 0.0], "float32"),
    "i.reciprocal()": (lambda t: t["i"].reciprocal(), [inf, 0.5, -0.3333333432674408], "float32"),
    "b.reciprocal()": (lambda t: t["b"].reciprocal(), [1.0, inf], "float32"),
    "f.rsqrt()": (lambda t: t["f"].rsqrt(), [inf, 0.5, nan, nan, 0.0], "float32"),
    "i.rsqrt()": (lambda t: t["i"].rsqrt(), [inf, 0.7071067690849304, nan], "float32"),
    "f.eq(0)": (lambda t: t["f"].eq(0), [True, False, False, False, False], "bool"),
    "f.ne(4)": (lambda t: t["f"].ne(4), [True, False, True, True, True], "bool"),
    "f.lt(4)": (lambda t: t["f"].lt(4), [True, False, False, True, False], "bool"),
    "f.le(0)": (lambda t: t["f"].le(0), [True, False, False, True, False], "bool"),
    "f.gt(0)": (lambda t: t["f"].gt(0), [False, True, False, False, True], "bool"),
    "f.ge(-1)": (lambda t: t["f"].ge(-1), [True, True, False, True, True], "bool"),
    "i.eq(i2)": (lambda t: t["i"].eq(t["i2"]), [True, False, False], "bool"),
    "f.isnan()": (lambda t: t["f"].isnan(), [False, False, True, False, False], "bool"),
    "f.isinf()": (lambda t: t["f"].isinf(), [False, False, False, False, True], "bool"),
    "f.isfinite()": (lambda t: t["f"].isfinite(), [True, True, False, True, False], "bool"),
    "f.isclose(f)": (lambda t: t["f"].isclose(t["f"]), [True, True, False, True, True], "bool"),
    "f.isclose(f, equal_nan)": (lambda t: t["f"].isclose(t["f"], equal_nan=True),
                                [True] * 5, "bool"),
    "f.logical_not()": (lambda t: t["f"].logical_not(), [True, False, False, False, False],
                        "bool"),
    "i.logical_not()": (lambda t: t["i"].logical_not(), [True, False, False], "bool"),
    "b.logical_not()": (lambda t: t["b"].logical_not(), [False, True], "bool"),
    "f.logical_and(f2)": (lambda t: t["f"].logical_and(t["f2"]),
                          [False, False, False, True, False], "bool"),
    "f.logical_or(f2)": (lambda t: t["f"].logical_or(t["f2"]), [True] * 5, "bool"),
    "f.logical_xor(f2)": (lambda t: t["f"].logical_xor(t["f2"]),
                          [True, True, True, False, True], "bool"),
    "b.logical_and(b2)": (lambda t: t["b"].logical_and(t["b2"]), [True, False], "bool"),
    "i.logical_or(i2)": (lambda t: t["i"].logical_or(t["i2"]), [False, True, True], "bool"),
    "i.type_as(f)": (lambda t: t["i"].type_as(t["f"]), [0.0, 2.0, -3.0], "float32"),
}


@pytest.mark.parametrize("name", VOCAB)
def test_everyday_methods_give_pytorchs_values_and_dtypes(device, name):
    operands = {k: tinyffn.tensor(v, device=device) for k, v in VOCAB_OPERANDS.items()}
    call, values, dtype = VOCAB[name]
    with np.errstate(divide="ignore", invalid="ignore"):
        y = call(operands)
    np.testing.assert_array_equal(y.numpy(), np.array(values, dtype=dtype))
    assert dtype_name(y.dtype) == dtype and y.device == device


def test_everyday_methods_match_torch_live():
    torch = pytest.importorskip("torch")
    ours = {k: tinyffn.tensor(v) for k, v in VOCAB_OPERANDS.items()}
    theirs = {k: torch.tensor(v) for k, v in VOCAB_OPERANDS.items()}
    for name, (call, _, _) in VOCAB.items():
        with np.errstate(divide="ignore", invalid="ignore"):
            y = call(ours)
        t = call(theirs)
        np.testing.assert_array_equal(y.numpy(), t.numpy(), err_msg=name)
        assert str(t.dtype) == "torch." + dtype_name(y.dtype), name


def test_everyday_arithmetic_methods_are_gradchecked_and_drawn_as_one_op():
    x = f64([[0.5, 2.0, 3.0], [1.5, 4.0, 0.25]])
    for name in ("neg", "negative", "square", "reciprocal", "rsqrt"):
        assert tinyffn.gradcheck(lambda x: getattr(x, name)(), [x]), name
    assert x.rsqrt().grad_fn.name == "pow" and x.square().grad_fn.name == "pow"
    assert x.reciprocal().grad_fn.name == "div" and x.neg().grad_fn.name == "neg"
    np.testing.assert_allclose(x.rsqrt().numpy(), 1 / np.sqrt(x.numpy()), rtol=1e-15)


def test_allclose_and_equal_methods_answer_python_bools():
    x = tinyffn.tensor([1.0, nan])
    assert x.allclose(x, equal_nan=True) is True and x.allclose(x) is False
    assert x.allclose(x + 1e-9, equal_nan=True) is True
    assert x.allclose(x + 1e-3, atol=0.0, rtol=1e-4, equal_nan=True) is False
    assert x.equal(tinyffn.tensor([1.0, 2.0])) is False and x[:1].equal(x[:1]) is True
    assert x.nelement() == 2
    z = tinyffn.tensor([0.0, 1.0], dtype="float64")   # torch's defaults: rtol 1e-5, atol 1e-8
    assert z.isclose(z * (1 + 1.2e-5)).tolist() == [True, False]
    assert z.isclose(z + 1.2e-8).tolist() == [False, True]
    assert z.allclose(z * (1 + 0.8e-5)) is True and z.allclose(z * (1 + 1.2e-5)) is False
    assert z.allclose(z + 0.8e-8) is True and z.allclose(z + 1.2e-8) is False


def test_repeat_tiles_as_pytorch_and_sums_the_gradient_back(device):
    """torch 2.13: arange(6).reshape(2, 3).repeat(1, 1, 2) has shape (1, 2, 6)."""
    x = tinyffn.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], device=device, requires_grad=True)
    y = x.repeat(1, 1, 2)
    assert y.shape == (1, 2, 6)
    assert y.tolist() == [[[0.0, 1.0, 2.0, 0.0, 1.0, 2.0], [3.0, 4.0, 5.0, 3.0, 4.0, 5.0]]]
    np.testing.assert_array_equal(x.repeat((2, 3)).numpy(), np.tile(x.detach().numpy(), (2, 3)))
    assert x.repeat(0, 2).shape == (0, 6) and tinyffn.tensor(5.0).repeat(3).tolist() == [5.0] * 3
    (x.repeat(2, 3) * tinyffn.arange(36.0, device=device).reshape(4, 9)).sum().backward()
    # each entry's gradient: the sum of the weights at its 6 copies (rows i, i + 2; columns
    # j, j + 3, j + 6 of the (4, 9) tiling): 0 + 3 + 6 + 18 + 21 + 24 = 72 for x[0, 0]
    assert x.grad.tolist() == [[72.0, 78.0, 84.0], [126.0, 132.0, 138.0]]
    assert tinyffn.gradcheck(lambda a: a.repeat(2, 1, 2), [f64([[1.0, -2.0]], device)])
    for bad in [(2,), (-1, 1)]:
        with pytest.raises(ValueError, match=r"repeat: needs a count >= 0 for each of x's 2 "
                                             r"axes \(shape \(2, 3\); more counts add"):
            x.repeat(*bad)


def test_as_methods_take_the_other_tensors_shape_dtype_and_device(device):
    x = tinyffn.tensor([1.0, 2.0, 3.0, 4.0], device=device, requires_grad=True)
    grid = tinyffn.zeros(2, 2, dtype="float64", device=device)
    assert x.view_as(grid).tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert x.reshape_as(grid).shape == (2, 2) and x[:2].expand_as(grid).tolist() == [[1.0, 2.0]] * 2
    y = x.type_as(grid)
    assert dtype_name(y.dtype) == "float64" and y.device == device and y.grad_fn.name == "cast"
    other = "strict" if device == "cpu" else "cpu"
    moved = x.detach().type_as(tinyffn.zeros(1, dtype="int64", device=other))
    assert moved.device == other and dtype_name(moved.dtype) == "int64"


def test_new_methods_make_leaves_in_selfs_dtype_and_device(device):
    """torch 2.13: x.new_zeros(2, 3) is float32 like x; i.new_tensor([1.5, 2]) is [1, 2]."""
    x = tinyffn.tensor([1.0], dtype="float64", device=device, requires_grad=True)
    i = tinyffn.tensor([5], device=device)
    for y, values, dtype in [(x.new_zeros(2, 3), [[0.0] * 3] * 2, "float64"),
                             (x.new_zeros((2,)), [0.0, 0.0], "float64"),
                             (x.new_ones(size=(1, 2)), [[1.0, 1.0]], "float64"),
                             (i.new_ones(3), [1, 1, 1], "int64"),
                             (x.new_full((2,), 7), [7.0, 7.0], "float64"),
                             (i.new_tensor([1.5, 2]), [1, 2], "int64"),
                             (x.new_ones(2, dtype="int32"), [1, 1], "int32"),
                             (i.new_tensor([1, 2], dtype=tinyffn.float32), [1.0, 2.0], "float32")]:
        assert y.tolist() == values and dtype_name(y.dtype) == dtype and y.device == device
        assert y.is_leaf and not y.requires_grad
    assert x.new_zeros(2, requires_grad=True).requires_grad
    other = "strict" if device == "cpu" else "cpu"
    assert x.new_full((1,), 2.5, device=other).device == other


def test_in_place_arithmetic_methods_follow_the_rules_of_x_minus_equals_y():
    """p.add_(g, alpha=-lr) ... as torch 2.13 (values from it), on the same object."""
    p = tinyffn.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with tinyffn.no_grad():
        assert p.add_(tinyffn.tensor([0.5, 0.5, 1.0]), alpha=-0.1) is p
        np.testing.assert_allclose(p.numpy(), [0.95, 1.95, 2.9], rtol=1e-7)
        assert p.sub_(1, alpha=2) is p and p.mul_(tinyffn.tensor(2.0)) is p and p.div_(4) is p
    np.testing.assert_allclose(p.numpy(), [-0.525, -0.025, 0.45], rtol=1e-6, atol=1e-7)
    q = tinyffn.tensor([1.0, 2.0])                      # alpha 1 by default
    assert q.add_(tinyffn.tensor([0.5, 0.25])).sub_(tinyffn.tensor(1.0)).tolist() == [0.5, 1.25]
    assert p.is_leaf and p.requires_grad and dtype_name(p.dtype) == "float32"
    with pytest.raises(RuntimeError, match=r"add_: x or y requires grad, .*tinyffn.no_grad"):
        p.add_(1)
    for call, message in [(lambda: tinyffn.tensor([1, 2]).div_(2), "div_: the result has shape "
                           r"\(2,\) and dtype float32, but x has .* int64"),
                          (lambda: tinyffn.tensor([1.0, 2.0]).add_(tinyffn.ones(2, 2)),
                           r"add_: the result has shape \(2, 2\)"),
                          (lambda: tinyffn.tensor([1, 2]).mul_(1.5), "mul_: the result .* float32")]:
        with pytest.raises(RuntimeError, match=message):
            call()
    with pytest.raises(TypeError, match="add_: alpha must be a number"):
        tinyffn.zeros(1).add_(1, alpha="2")
    # a result of x's kind is cast back, wrapping around, as torch 2.13 does
    k = tinyffn.tensor([7, -7], dtype="int32")
    assert k.add_(tinyffn.tensor([1, 1])).tolist() == [8, -6] and dtype_name(k.dtype) == "int32"
    u = tinyffn.tensor([200], dtype="uint8")
    u *= tinyffn.tensor([2])
    assert u.tolist() == [144] and dtype_name(u.dtype) == "uint8"
    with pytest.raises(RuntimeError, match="add_: the result has .* int64, but x has .* bool"):
        tinyffn.tensor([True]).add_(tinyffn.tensor([1]))


def test_a_list_with_alpha_is_read_as_a_tensor_not_repeated():
    """x.add([1., 2.], alpha=2) computed [1., 2.] * 2 in Python: the list, repeated."""
    assert tinyffn.zeros(2).add([1.0, 2.0], alpha=2).tolist() == [2.0, 4.0]
    with pytest.raises(ValueError, match=r"add: shapes \(4,\) and \(2,\) cannot be broadcast"):
        tinyffn.zeros(4).add([1.0, 2.0], alpha=2)
    y = tinyffn.zeros(2)
    assert y.sub_((1.0, 2.0), alpha=2).tolist() == [-2.0, -4.0]
    assert tinyffn.zeros(2).add(np.array([1, 2]), alpha=0.5).dtype == np.float32


def test_comparison_methods_refuse_what_the_operators_leave_to_python():
    """x == None is False (Python's answer, as torch's operator); x.eq(None) raises in
    torch 2.13 (TypeError), and so here."""
    x = tinyffn.tensor([1.0, 2.0])
    for name in ("eq", "ne", "lt", "le", "gt", "ge"):
        with pytest.raises(TypeError, match=f"{name}: other must be a Tensor, a number or an "
                                            "array, got NoneType"):
            getattr(x, name)(None)
    assert (x == None) is False and x.eq([1.0, 0.0]).tolist() == [True, False]   # noqa: E711


def test_logical_methods_refuse_what_is_not_a_tensor_or_a_number():
    """(other != 0) of a list is Python's True: x.logical_and([0, 0]) was x != 0."""
    x = tinyffn.tensor([1.0, 0.0])
    for other in ([0, 0], (0, 0), None, "a", np.array([0, 0])):
        for name in ("logical_and", "logical_or", "logical_xor"):
            with pytest.raises(TypeError, match=f"{name}: other must be a Tensor"):
                getattr(x, name)(other)
    assert x.logical_and(1).tolist() == [True, False] and x.logical_or(True).tolist() == [True] * 2
    with pytest.raises(TypeError, match="sub: subtraction with a bool operand"):
        tinyffn.zeros(2).sub_(tinyffn.tensor([True, False]), alpha=2)


@pytest.mark.parametrize("op", ["max", "min"])
def test_max_and_min_over_a_dim_send_the_gradient_to_the_index_they_return(op, device):
    """Small integers tie often; NaN wins as in PyTorch. Values, indices and gradients
    equal torch's for every dim, with and without keepdim, and on a 0-d tensor."""
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(3).integers(0, 3, size=(3, 4, 5)).astype(np.float64)
    data[1, 2, 3] = np.nan
    for dim, keepdim in itertools.product(range(-3, 3), (False, True)):
        x = tinyffn.tensor(data, device=device, requires_grad=True)
        t = torch.tensor(data, requires_grad=True)
        v, i = getattr(x, op)(dim, keepdim)
        tv, ti = getattr(t, op)(dim, keepdim)
        np.testing.assert_array_equal(v.numpy(), tv.detach().numpy())
        np.testing.assert_array_equal(i.numpy(), ti.numpy())
        weights = np.arange(1.0, 1.0 + tv.numel()).reshape(tuple(tv.shape))
        (v * tinyffn.tensor(weights, device=device)).sum().backward()
        (tv * torch.tensor(weights)).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())
    x = tinyffn.tensor(2.0, device=device, requires_grad=True)
    v, i = getattr(x, op)(0)
    v.backward()
    assert (v.item(), i.item(), x.grad.item()) == (2.0, 0, 1.0)
