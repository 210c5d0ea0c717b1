"""pixel_shuffle / pixel_unshuffle, the padding modules and dropout1d / dropout2d
(tinyffn/image_layers.py): the index formula in NumPy loops, NumPy's np.pad modes, the
channel-dropout structure and scale on every device; gradcheck; PyTorch live (values,
repr, what it refuses) where it is installed.
"""
import numpy as np
import pytest

import tinyffn
from tinyffn import nn
import tinyffn.functional as F

rng = np.random.default_rng(11)


def test_pixel_shuffle_is_the_index_formula_and_unshuffle_its_inverse(device):
    x = rng.standard_normal((2, 8, 3, 2))                       # C·r² = 2·4, r = 2
    y = F.pixel_shuffle(tinyffn.tensor(x, device=device), 2).numpy()
    assert y.shape == (2, 2, 6, 4)
    for c in range(2):
        for i in range(2):
            for j in range(2):          # y[..., c, h·r + i, w·r + j] = x[..., c·r² + i·r + j, h, w]
                np.testing.assert_array_equal(y[:, c, i::2, j::2], x[:, c * 4 + i * 2 + j])
    back = F.pixel_unshuffle(tinyffn.tensor(y, device=device), 2).numpy()
    np.testing.assert_array_equal(back, x)


def test_pixel_shuffle_gradcheck(device):
    x = tinyffn.tensor(rng.standard_normal((9, 2, 2)), device=device, requires_grad=True)
    assert tinyffn.gradcheck(lambda v: F.pixel_shuffle(v, 3), [x])        # unbatched (C, H, W)
    y = tinyffn.tensor(rng.standard_normal((1, 1, 4, 2)), device=device, requires_grad=True)
    assert tinyffn.gradcheck(lambda v: F.pixel_unshuffle(v, 2), [y])


def test_pixel_shuffle_is_pytorchs():
    torch = pytest.importorskip("torch")
    x = rng.standard_normal((2, 3, 8, 2, 4))                    # two leading axes
    np.testing.assert_array_equal(nn.PixelShuffle(2)(tinyffn.tensor(x)).numpy(),
                                  torch.nn.PixelShuffle(2)(torch.tensor(x)).numpy())
    np.testing.assert_array_equal(nn.PixelUnshuffle(2)(tinyffn.tensor(x)).numpy(),
                                  torch.nn.PixelUnshuffle(2)(torch.tensor(x)).numpy())
    assert repr(nn.PixelShuffle(2)) == repr(torch.nn.PixelShuffle(2))
    assert repr(nn.PixelUnshuffle(3)) == repr(torch.nn.PixelUnshuffle(3))


@pytest.mark.parametrize("fn, shape, r, match", [
    ("pixel_shuffle", (5, 4, 4), 2, r"pixel_shuffle: the channel axis \(-3\) of shape "
                                    r"\(5, 4, 4\) has 5 entries, not divisible by upscale_factor² = 4"),
    ("pixel_shuffle", (4, 4), 2, r"pixel_shuffle: input must be a tinyffn Tensor of at least 3 axes"),
    ("pixel_unshuffle", (1, 5, 4), 2, r"pixel_unshuffle: height and width of shape \(1, 5, 4\)"),
    ("pixel_shuffle", (4, 4, 4), 0, r"pixel_shuffle: upscale_factor must be a positive integer"),
])
def test_pixel_shuffle_errors_and_torch_refuses_them_too(fn, shape, r, match):
    with pytest.raises(ValueError, match=match):
        getattr(F, fn)(tinyffn.zeros(*shape), r)
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        getattr(torch.nn.functional, fn)(torch.zeros(*shape), r)


def test_factor_1_is_the_identity_and_a_list_is_refused_by_name():
    x = np.arange(12.0).reshape(3, 2, 2)
    for fn in ("pixel_shuffle", "pixel_unshuffle", "channel_shuffle"):
        np.testing.assert_array_equal(getattr(F, fn)(tinyffn.tensor(x[None]), 1).numpy(), x[None])
    with pytest.raises(ValueError, match=r"channel_shuffle: input must be a tinyffn Tensor of "
                                         r"at least 3 axes \(N, C, \*\), as PyTorch's, got list"):
        F.channel_shuffle(x.tolist(), 1)


PADS = [("ZeroPad1d", ((1, 2),), "constant"), ("ZeroPad2d", (1,), "constant"),
        ("ConstantPad1d", (1, 3.5), "constant"), ("ConstantPad2d", ((1, 0, 2, 1), -1.0), "constant"),
        ("ReflectionPad1d", (2,), "reflect"), ("ReflectionPad2d", ((1, 0, 2, 1),), "reflect"),
        ("ReplicationPad1d", ((0, 3),), "edge"), ("ReplicationPad2d", ((1, 0, 2, 1),), "edge"),
        ("CircularPad1d", (2,), "wrap"), ("CircularPad2d", ((1, 0, 2, 1),), "wrap")]


@pytest.mark.parametrize("cls, args, np_mode", PADS, ids=[p[0] for p in PADS])
def test_padding_modules_are_numpys_pad(device, cls, args, np_mode):
    x = rng.standard_normal((2, 3, 4, 5))
    x = x[0] if "1d" in cls else x                                  # (C, L) or (N, C, H, W)
    layer = getattr(nn, cls)(*args)
    pd = layer.padding
    widths = [(0, 0)] * (x.ndim - len(pd) // 2) + [pd[i:i + 2] for i in range(len(pd) - 2, -1, -2)]
    kw = {"constant_values": args[1]} if cls.startswith("Constant") else {}
    want = np.pad(x, widths, mode=np_mode, **kw)
    np.testing.assert_array_equal(layer(tinyffn.tensor(x, device=device)).numpy(), want)
    torch = pytest.importorskip("torch")
    theirs = getattr(torch.nn, cls)(*args)
    assert repr(layer) == repr(theirs)


def test_padding_module_errors():
    with pytest.raises(ValueError, match=r"ReflectionPad2d: padding must be an int or a 4-tuple "
                                         r"\(left, right, top, bottom\) of ints, got \(1, 2\)"):
        nn.ReflectionPad2d((1, 2))
    with pytest.raises(ValueError, match=r"pad: mode='reflect' needs counts"):
        nn.ReflectionPad1d(4)(tinyffn.zeros(2, 3))


@pytest.mark.parametrize("fn, shape", [("dropout1d", (40, 30, 3)), ("dropout1d", (50, 4)),
                                       ("dropout2d", (40, 30, 2, 2))])
def test_channel_dropout_zeroes_whole_channels_and_scales_the_rest(device, fn, shape):
    x = tinyffn.tensor(rng.uniform(1, 2, shape), device=device, requires_grad=True)
    y = getattr(F, fn)(x, p=0.3)
    ratio = (y / x).detach().numpy()
    channels = ratio.reshape(*shape[:-1 if fn == "dropout1d" else -2], -1)
    assert np.allclose(channels, channels[..., :1])                 # one draw per channel
    assert set(np.round(np.unique(channels), 12)) == {0.0, round(1 / 0.7, 12)}
    dropped = (channels[..., 0] == 0).mean()
    assert abs(dropped - 0.3) < 0.1                                 # 1200 or 50 draws
    y.sum().backward()                                              # dL/dx = m
    np.testing.assert_allclose(x.grad.numpy(), ratio, rtol=1e-12)
    assert getattr(F, fn)(x, 0.3, training=False) is x


def test_dropout_modules_and_errors():
    layer = nn.Dropout2d(0.25)
    x = tinyffn.ones(2, 3, 2, 2)
    assert layer.eval()(x) is x
    with pytest.raises(ValueError, match=r"dropout1d: input must be .* 3-D \(N, C, L\)"):
        F.dropout1d(tinyffn.ones(2, 3, 4, 5))
    with pytest.raises(ValueError, match=r"dropout2d: .* 4-D \(N, C, H, W\) or 3-D .*, got "
                       r"\(2, 3\); .* F.dropout drops the entries of \(N, C\)"):
        F.dropout2d(tinyffn.ones(2, 3))
    with pytest.raises(TypeError, match=r"dropout2d: input has dtype"):
        F.dropout2d(tinyffn.ones(2, 3, 4, 5, dtype="int64"))
    with pytest.warns(UserWarning, match=r"dropout2d: Received a 3D input"):
        y = F.dropout2d(tinyffn.ones(20, 30, 4), 0.5)
    assert np.allclose(y.numpy(), y.numpy()[..., :1])               # (N, C, L): one draw per (n, c)
    torch = pytest.importorskip("torch")
    assert repr(nn.Dropout1d(0.3)) == repr(torch.nn.Dropout1d(0.3))
    assert repr(nn.Dropout2d()) == repr(torch.nn.Dropout2d())
    with pytest.raises(RuntimeError):
        torch.nn.functional.dropout1d(torch.ones(2, 3, 4, 5))
