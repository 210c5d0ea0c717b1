"""bitwise_and/or/xor/not, the shifts (and << >>), gcd, lcm, frexp, ldexp, nextafter,
result_type, promote_types, can_cast (tinyffn/torch_integers.py): names ported scripts
hit AttributeError on.

References: NumPy's own np.bitwise_and, np.left_shift, np.gcd, np.lcm, np.frexp,
np.nextafter on values where NumPy's answer is defined; PyTorch 2.13's answers written out
for the edges (shifts past the width, int8 overflow, bools, dtypes), so they run without
torch; torch live where installed; gradcheck for the two with a gradient.
"""
import math

import numpy as np
import pytest

import tinyffn
from tinyffn.backend import dtype_name

A = [-128, -7, -1, 0, 1, 5, 127]
B = [3, 2, -1, 0, 6, -3, 1]


def _t(v, device, dtype="int64"):
    return tinyffn.tensor(v, dtype=dtype, device=device)


@pytest.mark.parametrize("dtype", ["int8", "int64", "uint8"])
def test_bitwise_and_gcd_lcm_match_numpy(dtype, device):
    a, b = np.array(A, dtype=np.int64).astype(dtype), np.array(B, dtype=np.int64).astype(dtype)
    x, w = _t(a.tolist(), device, dtype), _t(b.tolist(), device, dtype)
    for ours, theirs in ((tinyffn.bitwise_and, np.bitwise_and), (tinyffn.bitwise_or,
                         np.bitwise_or), (tinyffn.bitwise_xor, np.bitwise_xor),
                         (tinyffn.gcd, np.gcd), (tinyffn.lcm, np.lcm)):
        y = ours(x, w)
        assert dtype_name(y.dtype) == dtype, ours
        np.testing.assert_array_equal(y.numpy(), theirs(a, b), err_msg=ours.__name__)
    np.testing.assert_array_equal(tinyffn.bitwise_not(x).numpy(), np.bitwise_not(a))
    np.testing.assert_array_equal(x.bitwise_and(3).numpy(), a & 3)
    np.testing.assert_array_equal(tinyffn.bitwise_or(3, x).numpy(), a | 3)   # a number first


def test_gcd_lcm_edges_are_pytorchs(device):
    """torch 2.13: gcd(int8 [-128, 0, -12, 0], [0, 0, 18, -5]) and lcm's wrap-around."""
    x, w = _t([-128, 0, -12, 0], device, "int8"), _t([0, 0, 18, -5], device, "int8")
    assert x.gcd(w).tolist() == [-128, 0, 6, 5]
    x, w = _t([-128, 0, -12, 100], device, "int8"), _t([3, 0, 18, -3], device, "int8")
    assert tinyffn.lcm(x, w).tolist() == [-128, 0, 36, 44]
    assert dtype_name(tinyffn.gcd(_t([4], device, "int8"), _t([6], device)).dtype) == "int64"


def test_shifts_are_pytorchs_at_the_edges(device):
    """torch 2.13's answers: bits past the width are lost, a shift of the width or more
    (or a negative one) gives 0, or -1 for a negative x shifted right."""
    i8 = _t([-128, -1, 0, 1, 127], device, "int8")
    assert (i8 << 1).tolist() == [0, -2, 0, 2, -2]
    assert (i8 >> 1).tolist() == [-64, -1, 0, 0, 63]
    assert (i8 << 8).tolist() == [0] * 5 and (i8 << 300).tolist() == [0] * 5
    x, k = _t([1, -1, 5, -8], device), _t([64, 64, -1, 1], device)
    assert (x << k).tolist() == [0, 0, 0, -16]
    assert (x >> k).tolist() == [0, -1, 0, -4]
    assert (1 << _t([1, 2], device)).tolist() == [2, 4]                      # reflected
    assert (_t([1, 2], device, "uint8") << 300).tolist() == [0, 0]
    y = tinyffn.tensor([True, False], device=device) << 1                     # int64, as torch
    assert y.tolist() == [2, 0] and dtype_name(y.dtype) == "int64"
    x = _t([3, -9, 100], device)
    np.testing.assert_array_equal(x.bitwise_left_shift(_t([0, 3, 7], device)).numpy(),
                                  np.left_shift([3, -9, 100], [0, 3, 7]))
    np.testing.assert_array_equal(tinyffn.bitwise_right_shift(x, 2).numpy(),
                                  np.right_shift([3, -9, 100], 2))


def test_in_place_forms(device):
    x = _t([12, 7], device)
    assert x.gcd_(_t([8, 21], device)) is x and x.tolist() == [4, 7]
    x.bitwise_left_shift_(1)
    x.bitwise_xor_(1)
    assert x.tolist() == [9, 15]
    m = tinyffn.tensor([True, False], device=device)
    m.bitwise_not_()
    assert m.tolist() == [False, True]


@pytest.mark.parametrize("call, message", [
    (lambda d: tinyffn.bitwise_and(tinyffn.tensor([1.0], device=d), 1), "float32"),
    (lambda d: tinyffn.bitwise_not(tinyffn.tensor([1.0], device=d)), "bitwise_not"),
    (lambda d: tinyffn.tensor([1], device=d) << tinyffn.tensor([1.5], device=d), "float32"),
    (lambda d: tinyffn.tensor([True], device=d) >> tinyffn.tensor([True], device=d), "bool"),
    (lambda d: tinyffn.gcd(tinyffn.tensor([True], device=d), tinyffn.tensor([True], device=d)),
     "bool"),
    (lambda d: tinyffn.gcd(tinyffn.tensor([4], device=d), 6), r"tinyffn\.tensor\(6\)"),
    (lambda d: tinyffn.lcm(tinyffn.tensor([1.0], device=d), tinyffn.tensor([2.0], device=d)),
     "float32"),
])
def test_what_pytorch_refuses_is_refused_by_name(call, message, device):
    with pytest.raises(TypeError, match=message):
        call(device)


def test_a_number_outside_the_dtype_is_refused_by_the_operators_too(device):
    """int8 & 1000 came out int64 (the number widened the result, as for a comparison),
    where tinyffn.result_type says int8 and PyTorch wraps 1000 to -24; refused as add
    refuses it. A number inside the range keeps int8."""
    x = tinyffn.tensor([1, 2], dtype="int8", device=device)
    for call in (lambda: x & 1000, lambda: 1000 ^ x, lambda: x | -129,
                 lambda: tinyffn.bitwise_and(x, 1000)):
        with pytest.raises(OverflowError, match=r"bitwise_\w+: the number -?\d+ does not fit "
                                                r"in int8 \(-128 to 127\)"):
            call()
    y = x & 127
    assert dtype_name(y.dtype) == "int8" and y.tolist() == [1, 2]


@pytest.mark.parametrize("fn", [tinyffn.gcd, tinyffn.lcm, tinyffn.bitwise_left_shift,
                                tinyffn.bitwise_right_shift, tinyffn.ldexp])
def test_shapes_that_do_not_broadcast_are_refused_by_name(fn, device):
    """The backend's own message (NumPy's 'shape mismatch: objects cannot be broadcast',
    or mul's for ldexp) named neither the function nor, for ldexp, the shapes given;
    torch says 'The size of tensor a (3) must match the size of tensor b (2)'."""
    with pytest.raises(ValueError, match=rf"^{fn.__name__}: shapes \(3,\) and \(2,\) cannot"):
        fn(_t([4, 6, 8], device), _t([2, 3], device))


def test_frexp_matches_numpy_and_its_gradient_is_two_to_minus_e(device):
    v = np.array([0.0, -0.0, 1.0, -3.5, 1e-310, 5e-324, math.inf, -math.inf, math.nan,
                  0.75, 1024.0, np.nextafter(1.0, 0.0), 1.7e308])
    m, e = tinyffn.frexp(tinyffn.tensor(v, dtype="float64", device=device))
    want_m, want_e = np.frexp(v)
    np.testing.assert_array_equal(m.numpy(), want_m)
    np.testing.assert_array_equal(e.numpy(), want_e)
    assert dtype_name(e.dtype) == "int32"
    x = tinyffn.tensor([3.0, 0.7, -40.0], dtype="float64", device=device, requires_grad=True)
    assert tinyffn.gradcheck(lambda x: x.frexp().mantissa, (x,))    # away from powers of 2
    x.frexp().mantissa.sum().backward()
    assert x.grad.tolist() == [0.25, 1.0, 2.0 ** -6]           # torch 2.13: 2^-exponent
    with pytest.raises(TypeError, match="frexp: takes a floating"):
        tinyffn.frexp(tinyffn.tensor([1, 2], device=device))


def test_frexp_float16_and_float32_match_numpy():
    for dt in (np.float16, np.float32):
        v = np.array([0.1, 65504 if dt == np.float16 else 3e38, np.finfo(dt).smallest_subnormal,
                      np.nextafter(dt(1), dt(0))], dtype=dt)
        m, e = tinyffn.frexp(tinyffn.tensor(v))
        np.testing.assert_array_equal(m.numpy(), np.frexp(v)[0])
        np.testing.assert_array_equal(e.numpy(), np.frexp(v)[1])


def test_ldexp_dtypes_values_and_gradients(device):
    i = tinyffn.tensor([3, 4], device=device)
    y = tinyffn.ldexp(tinyffn.tensor([1, 2], device=device), i)      # int, int: float32
    assert y.tolist() == [8.0, 32.0] and dtype_name(y.dtype) == "float32"
    x = tinyffn.tensor([1.5, -2.0], dtype="float64", device=device, requires_grad=True)
    e = tinyffn.tensor([0.5, -3.0], dtype="float64", device=device, requires_grad=True)
    assert tinyffn.gradcheck(tinyffn.ldexp, (x, e))
    assert dtype_name(x.ldexp(i).dtype) == "float64"
    with pytest.raises(TypeError, match="ldexp: other must be a Tensor"):
        tinyffn.ldexp(x, 3)


def test_nextafter_matches_numpy(device):
    a = np.array([1.0, 2.0, 0.0, -0.0, 1e30], dtype=np.float32)
    b = np.array([2.0, 0.0, 1.0, -1.0, math.inf], dtype=np.float32)
    y = tinyffn.nextafter(tinyffn.tensor(a, device=device), tinyffn.tensor(b, device=device))
    np.testing.assert_array_equal(y.numpy(), np.nextafter(a, b))
    v = np.array([1.0, 0.0, math.inf, -math.inf, math.nan, -5.0])
    w = np.array([2.0, -1.0, 0.0, math.inf, 1.0, -math.inf])
    x = tinyffn.tensor(v, dtype="float64", device=device, requires_grad=True)
    y = tinyffn.nextafter(x, tinyffn.tensor(w, dtype="float64", device=device))
    np.testing.assert_array_equal(y.detach().numpy(), np.nextafter(v, w))
    y[:2].sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 0, 0, 0, 0]        # torch 2.13: 1 for input
    # where input equals other the result is other: PyTorch 2.13 gives 0 to both there,
    # and other gets zeros everywhere (its value only says which way to step)
    e, o = (tinyffn.tensor(v, dtype="float64", device=device, requires_grad=True)
            for v in ([1.0, 2.0, -0.5], [1.0, 3.0, -1.0]))
    tinyffn.nextafter(e, o).sum().backward()
    assert e.grad.tolist() == [0.0, 1.0, 1.0] and o.grad.tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(TypeError, match="nextafter: takes floating"):
        tinyffn.nextafter(tinyffn.tensor([1], device=device), tinyffn.tensor([2], device=device))


def test_nextafter_gradient_as_pytorchs():
    torch = pytest.importorskip("torch")
    e, o = (torch.tensor(v, dtype=torch.float64, requires_grad=True)
            for v in ([1.0, 2.0, -0.5], [1.0, 3.0, -1.0]))
    torch.nextafter(e, o).sum().backward()
    assert e.grad.tolist() == [0.0, 1.0, 1.0] and o.grad.tolist() == [0.0, 0.0, 0.0]


# torch 2.13's answers: (first, second) -> result_type
RESULT_TYPES = [
    (([1], "int64"), 1.0, "float32"), (([1], "int8"), 1000, "int8"),
    (([1], "uint8"), -1, "uint8"), (([True], "bool"), 1, "int64"),
    (([1], "int64"), True, "int64"), ((1.0, "float64"), ([1.0], "float32"), "float32"),
    ((1.0, "float64"), ([1], "int64"), "float64"), ((1, "int64"), ([1], "int8"), "int8"),
    ((1.0, "float64"), 1, "float64"), (1, 2.0, "float32"), (True, 2, "int64"),
]


@pytest.mark.parametrize("first, second, want", RESULT_TYPES)
def test_result_type_is_pytorchs(first, second, want):
    def arg(a):
        return tinyffn.tensor(a[0], dtype=a[1]) if isinstance(a, tuple) else a
    assert dtype_name(tinyffn.result_type(arg(first), arg(second))) == want


def test_promote_types_and_can_cast_are_pytorchs():
    T = tinyffn
    assert T.promote_types(T.int8, T.uint8) == T.int16
    assert T.promote_types(T.float16, T.int64) == T.float16
    assert T.promote_types("bool", T.bool) == T.bool
    assert T.promote_types(T.float32, T.float64) == T.float64
    assert T.can_cast(T.float64, T.float16) and T.can_cast(T.int64, T.uint8)
    assert not T.can_cast(T.float64, T.int8) and not T.can_cast(T.int8, T.bool)
    assert T.can_cast(T.bool, T.float16)
    with pytest.raises(TypeError, match="promote_types: expected a dtype"):
        T.promote_types(T.int8, 3)


def test_live_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    for dtype in ("int8", "int16", "int32", "int64", "uint8"):
        a = rng.integers(-200, 200, size=40).astype(dtype)
        b = rng.integers(-200, 200, size=40).astype(dtype)
        s = rng.integers(-2, 70, size=40)
        x, w = tinyffn.tensor(a), tinyffn.tensor(b)
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "gcd", "lcm"):
            np.testing.assert_array_equal(getattr(tinyffn, name)(x, w).numpy(),
                                          getattr(torch, name)(ta, tb).numpy(), err_msg=name)
        k = s.astype(dtype) if dtype != "uint8" else np.abs(s).astype(dtype)
        for name in ("bitwise_left_shift", "bitwise_right_shift"):
            np.testing.assert_array_equal(
                getattr(tinyffn, name)(x, tinyffn.tensor(k)).numpy(),
                getattr(torch, name)(ta, torch.from_numpy(k)).numpy(), err_msg=name)
    v = rng.standard_normal(50) * np.exp(rng.uniform(-50, 50, 50))
    m, e = tinyffn.frexp(tinyffn.tensor(v, dtype="float32"))
    tm, te = torch.frexp(torch.tensor(v, dtype=torch.float32))
    np.testing.assert_array_equal(m.numpy(), tm.numpy())
    np.testing.assert_array_equal(e.numpy(), te.numpy())
    dts = [tinyffn.int8, tinyffn.uint8, tinyffn.int64, tinyffn.float16, tinyffn.float64,
           tinyffn.bool]
    tdts = [torch.int8, torch.uint8, torch.int64, torch.float16, torch.float64, torch.bool]
    for a, ta in zip(dts, tdts):
        for b, tb in zip(dts, tdts):
            assert str(tinyffn.promote_types(a, b)) == str(
                torch.promote_types(ta, tb)).removeprefix("torch."), (a, b)
            assert tinyffn.can_cast(a, b) == torch.can_cast(ta, tb), (a, b)
