"""The 2-D pools, adaptive_max_pool1d and the *_with_indices forms (tinyffn/pooling2d.py):
the defining max and mean in NumPy loops and gradcheck on every device, the gradient to
the first largest entry written out; values, input gradients and indices against
PyTorch 2.13 live where it is installed; the modules' repr; the errors.
"""
import numpy as np
import pytest

import tinyffn
from torch_parity import assert_forward_and_backward_as_torchs
from tinyffn import nn
import tinyffn.functional as F

rng = np.random.default_rng(5)

MAX_CASES = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
             dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 1), dilation=(1, 2), ceil_mode=True),
             dict(kernel_size=(2, 3), stride=2, ceil_mode=True)]
AVG_CASES = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
             dict(kernel_size=(3, 4), stride=(2, 3), padding=(1, 2), ceil_mode=True,
                  count_include_pad=False),
             dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
             dict(kernel_size=(2, 3), padding=1, divisor_override=5)]
ADAPTIVE = [1, (3, 5), (None, 3), (4, 2), 7]


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _loops(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
           count_include_pad=True, divisor_override=None, avg=False):
    """Each window's max (-inf padding) or mean (PyTorch's divisor) in plain loops."""
    (kh, kw), (ph, pw), (dh, dw) = _pair(kernel_size), _pair(padding), _pair(dilation)
    sh, sw = _pair(stride or kernel_size)
    H, W = x.shape[-2:]

    def n_out(L, k, s, p, d):
        reach = L + 2 * p - d * (k - 1) - 1
        n = (-(-reach // s) if ceil_mode else reach // s) + 1
        return n - 1 if ceil_mode and (n - 1) * s >= L + p else n
    Ho, Wo = n_out(H, kh, sh, ph, dh), n_out(W, kw, sw, pw, dw)
    y = np.empty(x.shape[:2] + (Ho, Wo))
    for i in range(Ho):
        for j in range(Wo):
            rows = [i * sh - ph + a * dh for a in range(kh)]
            cols = [j * sw - pw + b * dw for b in range(kw)]
            real = x[..., [r for r in rows if 0 <= r < H], :][..., [c for c in cols if 0 <= c < W]]
            if not avg:
                y[..., i, j] = real.max(axis=(-2, -1))
                continue
            clip = lambda lo, k, L, p: min(lo + k, L + p) - lo                 # noqa: E731
            area = clip(rows[0], kh, H, ph) * clip(cols[0], kw, W, pw) if count_include_pad \
                else real.shape[-2] * real.shape[-1]
            y[..., i, j] = real.sum(axis=(-2, -1)) / (divisor_override or area)
    return y


@pytest.mark.parametrize("kw", MAX_CASES[1:3])
def test_max_pool2d_is_the_defining_max(kw, device):
    x = rng.standard_normal((2, 3, 7, 8))
    y = F.max_pool2d(tinyffn.tensor(x, device=device), **kw)
    np.testing.assert_array_equal(y.numpy(), _loops(x, **kw))


@pytest.mark.parametrize("kw", AVG_CASES[2:])
def test_avg_pool2d_is_the_defining_mean(kw, device):
    x = rng.standard_normal((2, 3, 7, 8))
    y = F.avg_pool2d(tinyffn.tensor(x, device=device), **kw)
    np.testing.assert_allclose(y.numpy(), _loops(x, avg=True, **kw), rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("size", ADAPTIVE[1:3])
def test_adaptive_pools_are_the_defining_windows(size, device):
    x = rng.standard_normal((2, 3, 7, 8))
    t = tinyffn.tensor(x, device=device)
    Ho, Wo = (7 if size[0] is None else size[0]), size[1]
    win = lambda t_, L, n: slice(t_ * L // n, -(-(t_ + 1) * L // n))     # noqa: E731
    cells = [[x[..., win(i, 7, Ho), win(j, 8, Wo)] for j in range(Wo)] for i in range(Ho)]
    want_avg = np.array([[c.mean(axis=(-2, -1)) for c in row] for row in cells]).transpose(2, 3, 0, 1)
    want_max = np.array([[c.max(axis=(-2, -1)) for c in row] for row in cells]).transpose(2, 3, 0, 1)
    np.testing.assert_allclose(F.adaptive_avg_pool2d(t, size).numpy(), want_avg, rtol=1e-14,
                               atol=1e-15)
    np.testing.assert_array_equal(F.adaptive_max_pool2d(t, size).numpy(), want_max)


def test_the_gradient_goes_to_the_first_largest_entry_row_major(device):
    x = tinyffn.tensor([[[[1.0, 3.0, 3.0], [3.0, 0.0, 2.0], [2.0, 2.0, 1.0]]]], dtype="float64",
                       device=device, requires_grad=True)
    y, i = F.max_pool2d(x, 2, stride=1, return_indices=True)
    assert y.tolist() == [[[[3.0, 3.0], [3.0, 2.0]]]] and i.tolist() == [[[[1, 1], [3, 5]]]]
    y.sum().backward()
    assert x.grad.tolist() == [[[[0.0, 2.0, 0.0], [1.0, 0.0, 1.0], [0.0, 0.0, 0.0]]]]
    x.grad = None
    y, i = F.adaptive_max_pool2d(x, (1, 2), return_indices=True)       # windows cols 0-1, 1-2
    assert i.tolist() == [[[[1, 1]]]]
    y.sum().backward()
    assert x.grad.tolist() == [[[[0.0, 2.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]]


@pytest.mark.parametrize("fn, kw", [("max_pool2d", MAX_CASES[2]), ("avg_pool2d", AVG_CASES[2]),
                                    ("avg_pool2d", AVG_CASES[4]),
                                    ("adaptive_avg_pool2d", dict(output_size=(2, 3))),
                                    ("adaptive_max_pool2d", dict(output_size=(2, 2))),
                                    ("adaptive_max_pool1d", dict(output_size=3))])
def test_pooling_is_gradchecked(fn, kw, device):
    shape = (1, 1, 7) if fn.endswith("1d") else (1, 1, 5, 6)
    x = tinyffn.tensor(rng.permutation(np.prod(shape)).reshape(shape) / 7.0, device=device,
                       requires_grad=True)                             # no ties for max
    assert tinyffn.gradcheck(lambda v: getattr(F, fn)(v, **kw), [x])


# ----------------------------------------------------------------------------- torch
@pytest.mark.parametrize("fn, kw", [("max_pool2d", kw) for kw in MAX_CASES]
                         + [("avg_pool2d", kw) for kw in AVG_CASES]
                         + [("adaptive_avg_pool2d", dict(output_size=s)) for s in ADAPTIVE]
                         + [("adaptive_max_pool2d", dict(output_size=s)) for s in ADAPTIVE[1:4]]
                         + [("adaptive_max_pool1d", dict(output_size=s)) for s in (3, 5)]
                         + [("max_pool2d_with_indices", MAX_CASES[2]),
                            ("max_pool1d_with_indices", dict(kernel_size=3, stride=2, padding=1))])
def test_pooling_matches_torch_live(fn, kw):
    torch = pytest.importorskip("torch")
    x = rng.integers(0, 4, (2, 3, 7, 8)).astype(float)                 # ties, for the indices
    x = x[:, :, 0] if "1d" in fn else x
    ours, theirs = tinyffn.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    with_indices = "max" in fn
    extra = dict(return_indices=True) if with_indices and "with_indices" not in fn else {}
    y, yt = getattr(F, fn)(ours, **kw, **extra), getattr(torch.nn.functional, fn)(theirs, **kw, **extra)
    if with_indices:
        (y, i), (yt, it) = y, yt
        assert i.tolist() == it.tolist()
    assert_forward_and_backward_as_torchs(y, yt, [ours], [theirs], rng.standard_normal(y.shape),
                                          rtol=1e-14, atol=1e-15, grad_rtol=1e-13)
    unbatched = getattr(F, fn)(tinyffn.tensor(x[0]), **kw, **extra)
    unbatched = unbatched[0] if with_indices else unbatched
    np.testing.assert_allclose(unbatched.numpy(), y.numpy()[0], rtol=1e-15)


def test_the_modules_match_torch_live():
    torch = pytest.importorskip("torch")
    x = rng.standard_normal((2, 3, 7, 8))
    pairs = [(nn.MaxPool2d(3, 2, 1), torch.nn.MaxPool2d(3, 2, 1)),
             (nn.MaxPool2d((2, 3), ceil_mode=True), torch.nn.MaxPool2d((2, 3), ceil_mode=True)),
             (nn.AvgPool2d(2), torch.nn.AvgPool2d(2)),
             (nn.AvgPool2d(3, 1, 1, count_include_pad=False, divisor_override=2),
              torch.nn.AvgPool2d(3, 1, 1, count_include_pad=False, divisor_override=2)),
             (nn.AdaptiveAvgPool2d((2, None)), torch.nn.AdaptiveAvgPool2d((2, None))),
             (nn.AdaptiveMaxPool2d(3), torch.nn.AdaptiveMaxPool2d(3)),
             (nn.AdaptiveMaxPool1d(4), torch.nn.AdaptiveMaxPool1d(4))]
    for ours, theirs in pairs:
        a = x[:, :, 0] if isinstance(ours, nn.AdaptiveMaxPool1d) and \
            not isinstance(ours, nn.AdaptiveMaxPool2d) else x
        assert repr(ours) == repr(theirs)
        np.testing.assert_allclose(ours(tinyffn.tensor(a)).numpy(), theirs(torch.tensor(a)).numpy(),
                                   rtol=1e-14, atol=1e-15)
    y, i = nn.MaxPool2d(2, return_indices=True)(tinyffn.tensor(x))
    assert i.tolist() == torch.nn.MaxPool2d(2, return_indices=True)(torch.tensor(x))[1].tolist()
    assert list(nn.MaxPool2d(2).parameters()) == []


# ----------------------------------------------------------------------------- errors
@pytest.mark.parametrize("fn, shape, kw, match", [
    ("max_pool2d", (1, 2, 7, 8), dict(kernel_size=3, padding=2),
     r"max_pool2d: padding must be an int between 0 and kernel_size / 2 = \(1.5, 1.5\)"),
    ("avg_pool2d", (1, 2, 7, 8), dict(kernel_size=(2, 4), padding=(0, 3)),
     r"avg_pool2d: padding must be .*\(1, 2\)"),
    ("max_pool2d", (7, 8), dict(kernel_size=2),
     r"max_pool2d: input must be a tinyffn Tensor of 4-D \(N, C, H, W\) or unbatched 3-D "
     r"\(C, H, W\), got \(7, 8\)"),
    ("max_pool2d", (1, 2, 7, 8), dict(kernel_size=(3, 2), dilation=(4, 1)),
     r"max_pool2d: the window spans 9 rows \(kernel_size=3, dilation=4\)"),
    ("avg_pool2d", (1, 2, 7, 8), dict(kernel_size=2, divisor_override=0),
     r"avg_pool2d: divisor_override must be a nonzero"),
    ("max_pool2d", (1, 2, 7, 8), dict(kernel_size=(2, 0)),
     r"max_pool2d: kernel_size must be a positive integer or a 2-tuple"),
    ("avg_pool2d", (1, 2, 7, 8), dict(kernel_size=(3, 2, 1)),
     r"avg_pool2d: kernel_size must be a positive integer or a 2-tuple"),
    ("adaptive_max_pool2d", (1, 2, 7, 8), dict(output_size=(2, 3, 1)),
     r"adaptive_max_pool2d: output_size must be a positive integer or a 2-tuple"),
])
def test_pooling_errors_name_the_op_and_torch_refuses_them_too(fn, shape, kw, match):
    with pytest.raises(ValueError, match=match):
        getattr(F, fn)(tinyffn.zeros(*shape, dtype="float64"), **kw)
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        getattr(torch.nn.functional, fn)(torch.zeros(*shape, dtype=torch.float64), **kw)


def test_output_size_0_is_refused():
    """PyTorch returns an empty tensor; as adaptive_avg_pool1d, tinyffn refuses it."""
    with pytest.raises(ValueError, match=r"adaptive_avg_pool2d: output_size must be a positive"):
        F.adaptive_avg_pool2d(tinyffn.zeros(1, 2, 7, 8), (2, 0))


def test_integer_input_is_refused():
    with pytest.raises(TypeError, match=r"adaptive_max_pool2d: input must be floating point"):
        F.adaptive_max_pool2d(tinyffn.arange(16).reshape(1, 1, 4, 4), 2)


def test_avg_pool2d_module_counts_the_padding_by_default():
    """nn.AvgPool2d(3, 1, 1) on ones: a corner window holds 4 ones and 5 zeros of padding,
    divided by 9 (count_include_pad=True, PyTorch's default), not by 4."""
    y = nn.AvgPool2d(3, 1, 1)(tinyffn.ones(1, 1, 3, 3, dtype="float64")).numpy()[0, 0]
    np.testing.assert_allclose(y, [[4 / 9, 6 / 9, 4 / 9], [6 / 9, 1.0, 6 / 9],
                                   [4 / 9, 6 / 9, 4 / 9]], rtol=1e-15)
