"""The Tensor methods a PyTorch user reaches for: where and masked_fill, var and std, any
and all, the casts, clone, softmax.

References: NumPy written out here, gradcheck, and PyTorch 2.13's values written out as
numbers (computed once with torch; these tests run without it).
"""
import numpy as np
import pytest

import numpy_reference as ref
import tinyffn
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
