"""Fractional max pooling: the window starts against the formula written out in NumPy, each
output against a loop over its window, indices written out from PyTorch 2.13, gradients by
gradcheck, and PyTorch live (where installed) bit for bit on the same samples."""
import numpy as np
import pytest

import tinyffn
import tinyffn.functional as F
from tinyffn import nn
from tinyffn.backend import dtype_name
from tinyffn.gradcheck import gradcheck


def starts_by_hand(u, L, L_out, k):
    """PyTorch's generate_intervals, in float32 as its kernel computes for float32 input."""
    if L_out == 1:
        return [L - k]
    alpha = np.float32(L - k) / np.float32(L_out - 1)
    u = np.float32(u)
    return [int(np.float32(np.float32(i) + u) * alpha) - int(u * alpha)
            for i in range(L_out - 1)] + [L - k]


def pooled_by_hand(x, u, out, k):
    """(N, C, *S) float32 -> the output and flat indices, a loop over planes and windows;
    2-D samples go to (W, H), 3-D ones to (T, H, W)."""
    n = x.ndim - 2
    y = np.zeros(x.shape[:2] + tuple(out), x.dtype)
    index = np.zeros(y.shape, np.int64)
    for b, c in np.ndindex(*x.shape[:2]):
        samples = u[b, c][::-1] if n == 2 else u[b, c]
        starts = [starts_by_hand(samples[a], x.shape[2 + a], out[a], k[a]) for a in range(n)]
        for o in np.ndindex(*out):
            window = tuple(slice(starts[a][o[a]], starts[a][o[a]] + k[a]) for a in range(n))
            block = x[b, c][window]
            at = np.unravel_index(np.argmax(block), block.shape)        # first largest
            y[(b, c) + o] = block[at]
            index[(b, c) + o] = np.ravel_multi_index(
                tuple(starts[a][o[a]] + at[a] for a in range(n)), x.shape[2:])
    return y, index


CASES = [((2, 3, 7, 9), (4, 5), (2, 2)), ((1, 2, 10, 8), (3, 6), (3, 2)),
         ((1, 2, 6, 6), (1, 6), (3, 1)), ((2, 1, 5, 6, 7), (3, 4, 2), (2, 2, 2))]


@pytest.mark.parametrize("shape, out, k", CASES)
def test_each_output_is_the_largest_entry_of_its_window(shape, out, k, device):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    n = len(out)
    u = rng.random(shape[:2] + (n,)).astype(np.float32)
    fn = F.fractional_max_pool2d if n == 2 else F.fractional_max_pool3d
    y, index = fn(tinyffn.tensor(x, device=device), k, output_size=out, return_indices=True,
                  _random_samples=tinyffn.tensor(u, device=device))
    want_y, want_index = pooled_by_hand(x, u, out, k)
    np.testing.assert_array_equal(y.numpy(), want_y)
    np.testing.assert_array_equal(index.numpy(), want_index)
    assert (dtype_name(y.dtype), dtype_name(index.dtype)) == ("float32", "int64")


def test_the_samples_go_to_w_then_h_as_pytorchs():
    """torch.nn.functional.fractional_max_pool2d(arange(63).reshape(1, 1, 7, 9), 2,
    output_size=(4, 5), return_indices=True, _random_samples=[[s]]) in PyTorch 2.13."""
    x = tinyffn.arange(63, dtype="float32").reshape(1, 1, 7, 9)
    for s, want in (([0.1, 0.9], [[10, 11, 13, 15, 17], [28, 29, 31, 33, 35],
                                  [37, 38, 40, 42, 44], [55, 56, 58, 60, 62]]),
                    ([0.9, 0.1], [[10, 12, 14, 15, 17], [19, 21, 23, 24, 26],
                                  [37, 39, 41, 42, 44], [55, 57, 59, 60, 62]])):
        y, index = F.fractional_max_pool2d(x, 2, output_size=(4, 5), return_indices=True,
                                           _random_samples=tinyffn.tensor([[s]]))
        assert index.tolist() == [[want]]
        assert y.tolist() == [[[[float(i) for i in row] for row in want]]]


@pytest.mark.parametrize("dtype, fourth", [("float32", 8), ("float64", 7)])
def test_the_starts_are_computed_in_the_inputs_dtype(dtype, fourth):
    """u = 0.19999996 (float32), 11 -> 5 with k = 1: α = 2.5 and (3 + u) · α is 7.9999999
    in float64 but rounds to 8 in float32; PyTorch 2.13's indices, written out, follow the
    input's dtype (float64 arithmetic on a float32 input gave 7)."""
    u = float(np.float32(0.19999995827674866))
    x = tinyffn.arange(121, dtype=dtype).reshape(1, 1, 11, 11)
    _, index = F.fractional_max_pool2d(x, 1, output_size=5, return_indices=True,
                                       _random_samples=tinyffn.tensor([[[u, 0.5]]], dtype=dtype))
    assert index.tolist()[0][0][0] == [0, 2, 5, fourth, 10]           # W from u, H from 0.5
    assert [row[0] for row in index.tolist()[0][0]] == [0, 22, 55, 77, 110]
    other = "float64" if dtype == "float32" else "float32"      # cast to x's dtype first
    _, again = F.fractional_max_pool2d(x, 1, output_size=5, return_indices=True,
                                       _random_samples=tinyffn.tensor([[[u, 0.5]]], dtype=other))
    assert again.tolist() == index.tolist()


def test_the_gradient_goes_to_each_windows_largest_entry():
    tinyffn.manual_seed(0)
    x = tinyffn.randn(2, 2, 7, 6, dtype="float64", requires_grad=True)
    u = tinyffn.rand(2, 2, 2, dtype="float64")
    assert gradcheck(lambda x: F.fractional_max_pool2d(x, (2, 3), output_size=(5, 3),
                                                       _random_samples=u), (x,))
    x3 = tinyffn.randn(1, 2, 4, 5, 5, dtype="float64", requires_grad=True)
    u3 = tinyffn.rand(1, 2, 3, dtype="float64")
    assert gradcheck(lambda x: F.fractional_max_pool3d(x, 2, output_ratio=0.5,
                                                       _random_samples=u3), (x3,))


def test_output_ratio_unbatched_input_drawn_samples_and_the_module():
    x = tinyffn.randn(3, 11, 10)                                       # (C, H, W)
    y = F.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.75))
    assert y.shape == (3, 5, 7)                                        # int(11·0.5), int(10·0.75)
    tinyffn.manual_seed(4)
    a = F.fractional_max_pool2d(x, 2, output_size=6)
    tinyffn.manual_seed(4)
    b, index = F.fractional_max_pool2d_with_indices(x, 2, output_size=6)
    np.testing.assert_array_equal(a.numpy(), b.numpy())                # the seeded generator
    assert index.shape == (3, 6, 6)
    u = tinyffn.rand(1, 3, 2)
    pool = nn.FractionalMaxPool2d(2, output_size=(6, 6), return_indices=True,
                                  _random_samples=u)
    y, i = pool(x.unsqueeze(0))
    want, want_i = F.fractional_max_pool2d(x.unsqueeze(0), 2, (6, 6), return_indices=True,
                                           _random_samples=u)
    np.testing.assert_array_equal(y.numpy(), want.numpy())
    np.testing.assert_array_equal(i.numpy(), want_i.numpy())
    # each index is where its maximum sits in its (H, W) plane
    planes = x.numpy().reshape(3, -1)
    np.testing.assert_array_equal(np.take_along_axis(planes, i.numpy().reshape(3, -1), 1),
                                  y.numpy().reshape(3, -1))
    assert nn.FractionalMaxPool3d(2, output_ratio=0.5)(tinyffn.randn(1, 1, 4, 6, 8)).shape == \
        (1, 1, 2, 3, 4)


def test_bad_sizes_are_refused_with_what_to_do():
    x = tinyffn.randn(1, 1, 6, 6)
    with pytest.raises(ValueError, match="either an output_size or an output_ratio"):
        F.fractional_max_pool2d(x, 2)
    with pytest.raises(ValueError, match=r"axis 1: output \+ kernel - 1 must be at most the "
                                         r"input, 6 \+ 2 - 1 > 6"):
        F.fractional_max_pool2d(x, 2, output_size=(3, 6))
    with pytest.raises(ValueError, match="between 0 and 1"):
        F.fractional_max_pool2d(x, 2, output_ratio=1.5)
    with pytest.raises(ValueError, match=r"pools axis 1 of 6 to int\(6 · ratio\) = 0 entries"):
        F.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.1))      # PyTorch: (1, 1, 3, 0)
    with pytest.raises(ValueError, match=r"shape \(1, 1, 2\)"):
        F.fractional_max_pool2d(x, 2, output_size=3, _random_samples=tinyffn.rand(1, 2, 2))
    with pytest.raises(ValueError, match="3-D or 4-D"):
        F.fractional_max_pool2d(tinyffn.randn(6, 6), 2, output_size=3)
    with pytest.raises(ValueError, match="either an output size, or a pooling ratio"):
        nn.FractionalMaxPool2d(2)
    with pytest.raises(ValueError, match="only one of"):
        nn.FractionalMaxPool2d(2, output_size=3, output_ratio=0.5)
    with pytest.raises(ValueError, match="between 0 and 1"):
        nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.5, 1.0))


@pytest.mark.parametrize("shape, out, k", CASES)
def test_pytorch_gives_the_same_values_indices_and_gradients(shape, out, k):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape).astype(np.float32)
    n = len(out)
    u = rng.random(shape[:2] + (n,)).astype(np.float32)
    g = rng.standard_normal(shape[:2] + tuple(out)).astype(np.float32)
    name = f"fractional_max_pool{n}d"
    xt = torch.tensor(x, requires_grad=True)
    yt, it = getattr(torch.nn.functional, name)(xt, k, output_size=out, return_indices=True,
                                                _random_samples=torch.tensor(u))
    (yt * torch.tensor(g)).sum().backward()
    xo = tinyffn.tensor(x, requires_grad=True)
    yo, io = getattr(F, name)(xo, k, output_size=out, return_indices=True,
                              _random_samples=tinyffn.tensor(u))
    (yo * tinyffn.tensor(g)).sum().backward()
    np.testing.assert_array_equal(yo.numpy(), yt.detach().numpy())
    np.testing.assert_array_equal(io.numpy(), it.numpy())
    np.testing.assert_array_equal(xo.grad.numpy(), xt.grad.numpy())
