"""Tensor.unfold (tinyffn/torch_names.py) and PyTorch's module-level layer names,
``tinyffn.conv2d``, ``tinyffn.batch_norm``, ... (tinyffn/torch_layers.py, __init__.py).

References: the windows written out in NumPy, finite differences; PyTorch 2.13 live
where installed, each module-level name called positionally exactly as torch's is.
"""
import math

import numpy as np
import pytest

import tinyffn
from tinyffn import functional as F


def _values(*shape, start=0.0):
    return np.sin(1.3 * np.arange(math.prod(shape)) + start).reshape(shape)


# ----------------------------------------------------------------------------- Tensor.unfold
def test_unfold_windows_by_hand(device):
    x = tinyffn.tensor(np.arange(7.0), device=device)
    assert x.unfold(0, 3, 2).numpy().tolist() == [[0, 1, 2], [2, 3, 4], [4, 5, 6]]
    y = tinyffn.tensor(_values(2, 7, 3), device=device).unfold(-2, 3, 2)   # (2, 3, 3, 3)
    want = np.stack([_values(2, 7, 3)[:, 2 * t:2 * t + 3, :] for t in range(3)], axis=1)
    np.testing.assert_array_equal(y.numpy(), np.moveaxis(want, 2, -1))
    patches = tinyffn.tensor(_values(1, 4, 6), device=device).unfold(1, 2, 2).unfold(2, 3, 3)
    assert patches.shape == (1, 2, 2, 2, 3)                        # 2 × 2 patches of 2 × 3
    assert tinyffn.tensor(3.0).unfold(0, 1, 1).numpy().tolist() == [3.0]


def test_unfold_gradient_adds_overlapping_windows(device):
    x = tinyffn.tensor(np.arange(5.0), device=device, requires_grad=True)
    x.unfold(0, 3, 1).sum().backward()                             # windows per entry
    assert x.grad.numpy().tolist() == [1, 2, 3, 2, 1]
    x = tinyffn.tensor(_values(2, 5), device=device, requires_grad=True)
    assert tinyffn.gradcheck(lambda x: x.unfold(1, 2, 2), [x])


def test_unfold_is_pytorchs_and_refuses_what_it_refuses():
    torch = pytest.importorskip("torch")
    x = _values(3, 8, 2)
    for args in ((1, 3, 2), (0, 2, 1), (-1, 1, 1), (1, 8, 5)):
        a, t = tinyffn.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        y, yt = a.unfold(*args), t.unfold(*args)
        np.testing.assert_array_equal(y.numpy(), yt.detach().numpy())
        gy = _values(*y.shape, start=1.0)
        (y * tinyffn.tensor(gy)).sum().backward()
        (yt * torch.tensor(gy)).sum().backward()
        np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-14)
    for args, error, match in (((1, 9, 1), ValueError, r"unfold: size=9 is longer than "
                                                       r"dimension 1 of the tensor of shape"),
                               ((1, 2, 0), ValueError, r"unfold: step must be an int >= 1"),
                               ((1, -1, 1), ValueError, r"unfold: size must be an int >= 1"),
                               ((3, 2, 1), IndexError, r"unfold: dimension=3 is out of range")):
        with pytest.raises(error, match=match):
            tinyffn.tensor(x).unfold(*args)
        with pytest.raises((RuntimeError, IndexError)):
            torch.tensor(x).unfold(*args)


# ----------------------------------------------------------------------------- module level
X, W1, W2, WT = (_values(2, 4, 5, 6), _values(3, 4, 3), _values(3, 4, 3, 2),
                 _values(4, 3, 3, 2))
V = {"x": X, "x3": X[:, :, :, 0], "w1": W1, "w2": W2, "wt": WT, "b": _values(3, start=1.0),
     "g": _values(4, start=2.0) + 2, "bb": _values(4, start=3.0), "m": _values(4, start=4.0),
     "v": np.abs(_values(4, start=5.0)) + 0.5, "x1": _values(2, 3), "x2": _values(2, 5),
     "wb": _values(4, 3, 5, start=6.0), "ln_w": _values(6, start=7.0),
     "wt1": _values(4, 3, 3, start=8.0)}
# torch's positional calls, names of V for tensors, anything else passed as it is
CALLS = [("conv1d", ("x3", "w1", "b", 2, 1)), ("conv2d", ("x", "w2", "b", 1, (1, 0), 1, 1)),
         ("conv_transpose1d", ("x3", "wt1", None, 2, 1, 1)),
         ("conv_transpose2d", ("x", "wt", "b", 2, 0, 1, 1, 1)),
         ("max_pool1d", ("x3", 2, (), 0, 1, True)), ("max_pool2d", ("x", 2, 1, 1, 1, False)),
         ("max_pool1d", ("x3", 2)), ("max_pool2d", ("x", 2)),      # the defaults (odd sizes)
         ("layer_norm", ("x", (6,))), ("group_norm", ("x", 2)),    # the defaults (eps)
         ("avg_pool1d", ("x3", 3, 1, 1, False, False)),
         ("layer_norm", ("x", (6,), "ln_w", None, 1e-5, True)),
         ("group_norm", ("x", 2, "g", "bb", 1e-5, True)),
         ("batch_norm", ("x", "g", "bb", "m", "v", False, 0.1, 1e-5, True)),
         ("instance_norm", ("x", "g", "bb", None, None, True, 0.1, 1e-5, True)),
         ("bilinear", ("x1", "x2", "wb")), ("pixel_shuffle", ("x", 2)),
         ("pixel_unshuffle", ("x", 1)), ("channel_shuffle", ("x", 2))]


@pytest.mark.parametrize("name, args", CALLS, ids=[c[0] for c in CALLS])
def test_module_level_names_take_pytorchs_arguments(name, args):
    torch = pytest.importorskip("torch")
    ours = [tinyffn.tensor(V[a]) if isinstance(a, str) else
            tinyffn.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
    theirs = [torch.tensor(V[a]) if isinstance(a, str) else
              torch.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
    np.testing.assert_allclose(getattr(tinyffn, name)(*ours).numpy(),
                               getattr(torch, name)(*theirs).numpy(), rtol=1e-12, atol=1e-13)
    assert name in tinyffn.__all__


def test_the_aliases_are_functionals_and_batch_norms_order_is_torchs_not_fs():
    for name in ("conv1d", "conv2d", "conv_transpose2d", "bilinear", "channel_shuffle"):
        assert getattr(tinyffn, name) is getattr(F, name)
    x, g, b, m, v = (tinyffn.tensor(V[k]) for k in ("x", "g", "bb", "m", "v"))
    np.testing.assert_array_equal(tinyffn.batch_norm(x, g, b, m, v, False, 0.1, 1e-5, True).numpy(),
                                  F.batch_norm(x, m, v, g, b, False, 0.1, 1e-5).numpy())
