"""F.affine_grid and F.grid_sample (tinyffn/grid_sample.py).

References: the identity map reads the image back; points at pixel centres and between
them read what bilinear blending says, written out by hand; every mode, padding mode and
align_corners against a point-by-point loop (and a volume against it); gradcheck through the input,
the grid and theta on every device; a spatial transformer that learns a shift; PyTorch
2.13 live where installed (values and both gradients, 2-D and 3-D, every mode, padding
mode and align_corners); the errors.
"""
import itertools
import math

import numpy as np
import pytest

import tinyffn
import tinyffn.functional as F
from tinyffn.backend import dtype_name

rng = np.random.default_rng(0)
IMAGE = rng.standard_normal((2, 3, 5, 4))


def _points(ix, iy, W, H):
    """Pixel coordinates -> normalized ones (align_corners=False): x = (2·ix + 1) / W - 1."""
    return np.stack([(2 * np.asarray(ix) + 1) / W - 1, (2 * np.asarray(iy) + 1) / H - 1], -1)


@pytest.mark.parametrize("align_corners", [False, True])
def test_the_identity_map_reads_the_image_back(align_corners, device):
    x = tinyffn.tensor(IMAGE, device=device)
    theta = tinyffn.tensor(np.tile([[1.0, 0, 0], [0, 1, 0]], (2, 1, 1)), device=device)
    grid = F.affine_grid(theta, x.shape, align_corners=align_corners)
    assert grid.shape == (2, 5, 4, 2)
    for mode in ("bilinear", "nearest"):
        y = F.grid_sample(x, grid, mode=mode, align_corners=align_corners)
        np.testing.assert_allclose(y.numpy(), IMAGE, rtol=1e-12, atol=1e-14)


def test_bilinear_blends_the_four_pixels_around_a_point_written_out():
    """At pixel (ix, iy) = (1.25, 2.5): (1 - fx)(1 - fy) x[2, 1] + fx(1 - fy) x[2, 2]
    + (1 - fx) fy x[3, 1] + fx fy x[3, 2], fx = 0.25, fy = 0.5; a point half a pixel
    outside reads half of the edge pixel with zeros padding, all of it with border."""
    x = IMAGE[:1, :1]
    g = tinyffn.tensor(_points([[1.25, -0.5]], [[2.5, 0.0]], 4, 5)[None])      # (1, 1, 2, 2)
    y = F.grid_sample(tinyffn.tensor(x), g).numpy()[0, 0, 0]
    p = x[0, 0]
    want = 0.75 * 0.5 * p[2, 1] + 0.25 * 0.5 * p[2, 2] + 0.75 * 0.5 * p[3, 1] + 0.25 * 0.5 * p[3, 2]
    assert abs(y[0] - want) < 1e-14 and abs(y[1] - 0.5 * p[0, 0]) < 1e-14
    border = F.grid_sample(tinyffn.tensor(x), g, padding_mode="border").numpy()[0, 0, 0]
    assert abs(border[1] - p[0, 0]) < 1e-14
    reflected = F.grid_sample(tinyffn.tensor(x), tinyffn.tensor(_points(
        [[-1.25]], [[1.0]], 4, 5)[None]), padding_mode="reflection").numpy()[0, 0, 0, 0]
    assert abs(reflected - (0.75 * p[1, 0] + 0.25 * p[1, 1])) < 1e-14   # mirrored at the
    # image's edge, -0.5: -1.25 reads as 0.25


def _by_hand(image, points, mode, padding_mode, align_corners):
    """grid_sample of one (H, W) image at points (P, 2) of (x, y), point by point: the
    pixel coordinate, the padding (a clamp, or folding at the edges until inside), then the
    nearest pixel or the four around it, a pixel outside the image reading 0."""
    H, W = image.shape

    def source(v, L):
        i = (v + 1) / 2 * (L - 1) if align_corners else ((v + 1) * L - 1) / 2
        if padding_mode == "reflection":
            low, high = (0, L - 1) if align_corners else (-0.5, L - 0.5)
            while high > low and not low <= i <= high:
                i = 2 * low - i if i < low else 2 * high - i
            i = low if high == low else i
        return min(max(i, 0), L - 1) if padding_mode != "zeros" else i

    def pixel(r, c):
        return image[r, c] if 0 <= r < H and 0 <= c < W else 0.0
    out = []
    for x, y in points:
        ix, iy = source(x, W), source(y, H)
        if mode == "nearest":
            out.append(pixel(int(np.rint(iy)), int(np.rint(ix))))
            continue
        c, r = math.floor(ix), math.floor(iy)
        fx, fy = ix - c, iy - r
        out.append((1 - fx) * (1 - fy) * pixel(r, c) + fx * (1 - fy) * pixel(r, c + 1)
                   + (1 - fx) * fy * pixel(r + 1, c) + fx * fy * pixel(r + 1, c + 1))
    return np.array(out)


def test_every_mode_and_padding_at_points_inside_and_outside_by_hand(device):
    """Random points over the image and past its edges (x = 1 and y = -1 too), each mode,
    padding mode and align_corners against the point-by-point loop above; and a volume of
    two slices read at depth 0.25 (align_corners) is 3/4 of the first slice's reading and
    1/4 of the second's (the x, y, z order and the depth's stride)."""
    r = np.random.default_rng(1)
    images, points = r.standard_normal((2, 4, 5)), r.uniform(-1.7, 1.7, (14, 2))
    points[:2] = [[1.0, -1.0], [-1.0, 0.3]]
    t = lambda a: tinyffn.tensor(a, device=device)              # noqa: E731
    for mode, padding_mode, align_corners in itertools.product(
            ("bilinear", "nearest"), ("zeros", "border", "reflection"), (False, True)):
        how = dict(mode=mode, padding_mode=padding_mode, align_corners=align_corners)
        y = F.grid_sample(t(images[:1, None]), t(points[None, None]), **how)
        want = _by_hand(images[0], points, **how)
        np.testing.assert_allclose(y.numpy().ravel(), want, atol=1e-14, err_msg=str(how))
    at = np.concatenate([points, np.full((14, 1), -0.5)], -1)   # z = -0.5: depth 0.25
    y = F.grid_sample(t(images[None, None]), t(at[None, None, None]), align_corners=True)
    want = [0.75, 0.25] @ np.stack([_by_hand(i, points, "bilinear", "zeros", True)
                                    for i in images])
    np.testing.assert_allclose(y.numpy().ravel(), want, atol=1e-14)


def test_float32_stays_float32(device):
    """float32 theta, input and grid give a float32 grid, output and gradients in every
    mode: a Python float or an index made in float64 would widen them."""
    t = lambda a: tinyffn.tensor(np.asarray(a, dtype=np.float32), device=device)  # noqa: E731
    theta = t([[[0.9, 0.1, 0.05], [-0.2, 1.1, 0.1]]])
    for align_corners in (False, True):
        assert dtype_name(F.affine_grid(theta, (1, 1, 2, 3), align_corners).dtype) == "float32"
    x, g = t(IMAGE[:1, :1]).requires_grad_(), t(rng.uniform(-1.2, 1.2, (1, 2, 3, 2)))
    g.requires_grad_()
    for mode, padding_mode in itertools.product(("bilinear", "nearest"),
                                                ("zeros", "border", "reflection")):
        y = F.grid_sample(x, g, mode=mode, padding_mode=padding_mode)
        y.sum().backward()
        assert dtype_name(y.dtype) == dtype_name(x.grad.dtype) == "float32"
        assert g.grad is None or dtype_name(g.grad.dtype) == "float32"
        x.grad = g.grad = None


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")   # inf - inf
def test_a_nan_or_inf_point_reads_as_pytorchs_in_nearest_mode(device):
    """A diverging spatial transformer gives NaN points: they read what PyTorch 2.13 gives
    in nearest mode (its values written out), and bilinear does not fail (the pixel
    indices once came out of a NaN as -2**63, refused by the gather)."""
    x = tinyffn.tensor(np.arange(12.0).reshape(1, 1, 3, 4), device=device)
    g = tinyffn.tensor(np.array([[[[np.nan, 0.0], [0.2, np.inf], [0.1, 0.1]]]]), device=device)
    for padding_mode, want in (("zeros", [0, 0, 6]), ("border", [4, 10, 6]),
                               ("reflection", [4, 2, 6])):
        y = F.grid_sample(x, g, mode="nearest", padding_mode=padding_mode)
        assert y.numpy().ravel().tolist() == want
        y = F.grid_sample(x, g, padding_mode=padding_mode).numpy().ravel()
        assert abs(y[2] - 6.3) < 1e-12


def test_gradcheck(device):
    """Points whose fractional parts stay away from 0 and 1, where the blend has kinks."""
    x = tinyffn.tensor(IMAGE[:1, :1], device=device, requires_grad=True)
    ix = rng.integers(-1, 5, (1, 2, 2)) + rng.uniform(0.2, 0.8, (1, 2, 2))
    iy = rng.integers(-1, 6, (1, 2, 2)) + rng.uniform(0.2, 0.8, (1, 2, 2))
    g = tinyffn.tensor(_points(ix, iy, 4, 5), device=device, requires_grad=True)
    assert tinyffn.gradcheck(lambda x, g: F.grid_sample(x, g), [x, g])
    theta = tinyffn.tensor([[[0.9, 0.1, 0.05], [-0.2, 1.1, 0.1]]], dtype="float64",
                           device=device, requires_grad=True)
    assert tinyffn.gradcheck(lambda x, t: F.grid_sample(
        x, F.affine_grid(t, (1, 1, 2, 3)), padding_mode="reflection"), [x, theta])


def test_nearest_gives_the_grid_and_theta_gradient_zeros(device):
    """The nearest pixel stays the same under a small move of a point: the output is flat
    in the grid, whose gradient is zeros (an array, as PyTorch's, not None); gradcheck's
    finite differences agree away from the halfway points."""
    x = tinyffn.tensor(IMAGE[:1, :1], device=device)
    ix = rng.integers(-1, 5, (1, 1, 2)) + rng.uniform(-0.3, 0.3, (1, 1, 2))
    iy = rng.integers(-1, 6, (1, 1, 2)) + rng.uniform(-0.3, 0.3, (1, 1, 2))
    g = tinyffn.tensor(_points(ix, iy, 4, 5), device=device, requires_grad=True)
    theta = tinyffn.tensor([[[0.9, 0.1, 0.05], [-0.2, 1.1, 0.1]]], dtype="float64",
                           device=device, requires_grad=True)
    for padding_mode, align_corners in itertools.product(("zeros", "border", "reflection"),
                                                         (False, True)):
        g.grad = theta.grad = None
        F.grid_sample(x, g, "nearest", padding_mode, align_corners).sum().backward()
        F.grid_sample(x, F.affine_grid(theta, (1, 1, 2, 3), align_corners), "nearest",
                      padding_mode, align_corners).sum().backward()
        for t in (g, theta):
            assert t.grad is not None and not t.grad.numpy().any(), padding_mode
    assert tinyffn.gradcheck(lambda g: F.grid_sample(x, g, "nearest", "reflection"), [g])


def test_a_spatial_transformer_learns_a_shift():
    """theta starts at the identity and learns, from the image and its copy moved by a
    fifth of the width, the translation that maps one to the other."""
    yy, xx = np.mgrid[0:12, 0:12]
    image = np.exp(-((xx - 5.5) ** 2 + (yy - 5.5) ** 2) / 8.0)[None, None]    # a smooth blob
    true = tinyffn.tensor([[[1.0, 0.0, 0.2], [0.0, 1.0, 0.0]]], dtype="float64")
    x = tinyffn.tensor(image)
    target = F.grid_sample(x, F.affine_grid(true, x.shape), padding_mode="border")
    theta = tinyffn.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], dtype="float64",
                           requires_grad=True)
    opt = tinyffn.optim.Adam([theta], lr=0.01)
    for _ in range(150):
        opt.zero_grad()
        y = F.grid_sample(x, F.affine_grid(theta, x.shape), padding_mode="border")
        loss = ((y - target) ** 2).mean()
        loss.backward()
        opt.step()
    assert abs(theta.numpy()[0, 0, 2] - 0.2) < 0.01 and loss.item() < 1e-5


def test_as_pytorchs():
    torch = pytest.importorskip("torch")
    for n, mode, padding_mode, align_corners in itertools.product(
            (2, 3), ("bilinear", "nearest"), ("zeros", "border", "reflection"), (False, True)):
        size = (2, 3, 5, 4) if n == 2 else (1, 2, 3, 4, 5)
        x = rng.standard_normal(size)
        g = rng.uniform(-1.3, 1.3, (size[0],) + ((3, 6) if n == 2 else (2, 3, 4)) + (n,))
        theta = rng.standard_normal((size[0], n, n + 1))
        out = []
        for m, f in ((tinyffn, F), (torch, torch.nn.functional)):
            xm, gm = m.tensor(x, requires_grad=True), m.tensor(g, requires_grad=True)
            y = f.grid_sample(xm, gm, mode=mode, padding_mode=padding_mode,
                              align_corners=align_corners)
            (y * m.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)))).sum().backward()
            out.append((y.detach().numpy(), xm.grad.numpy(), gm.grad.numpy(),  # zeros, nearest
                        f.affine_grid(m.tensor(theta), size, align_corners=align_corners)
                        .detach().numpy()))
        for ours, theirs in zip(*out):
            np.testing.assert_allclose(ours, theirs, atol=1e-13,
                                       err_msg=f"{n}-D {mode} {padding_mode} {align_corners}")


@pytest.mark.parametrize("call, error, match", [
    ("F.grid_sample(x, g[..., :1])", ValueError, r"input \(N, C, H, W\) takes a grid"),
    ("F.grid_sample(x[0], g)", ValueError, r"takes a grid \(N, H_out, W_out, 2\)"),
    ("F.grid_sample(x, g, mode='bicubic')", ValueError, "mode"),
    ("F.grid_sample(x, g, padding_mode='wrap')", ValueError, "padding_mode"),
    ("F.grid_sample(x, g.float())", TypeError, "share one floating dtype"),
    ("F.affine_grid(t, (2, 3, 5))", ValueError, r"theta must be \(N, 2, 3\)"),
    ("F.affine_grid(t[:1], (2, 3, 5, 4))", ValueError, r"theta must be \(N, 2, 3\)"),
])
def test_errors(call, error, match):
    names = {"F": F, "x": tinyffn.tensor(IMAGE), "g": tinyffn.tensor(np.zeros((2, 3, 3, 2))),
             "t": tinyffn.tensor(np.zeros((2, 2, 3)))}
    with pytest.raises(error, match=match):
        eval(call, {}, names)
