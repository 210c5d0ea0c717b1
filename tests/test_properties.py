"""Property-based tests: random shapes, broadcasting patterns and values.

Binary ops: forward equals NumPy's, and dL/d(input) of L = sum(w_out * y) has the input's
shape and equals the hand-derived formula summed over the broadcast axes. Reductions and
shape ops: forward equals NumPy's and backward matches finite differences.
"""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tinyffn

SETTINGS = settings(max_examples=30, deadline=None)
finite = st.floats(-3, 3, allow_nan=False, allow_subnormal=False, width=64)


def _sum_to(g, shape):
    """NumPy-only reference for undoing broadcasting."""
    while g.ndim > len(shape):
        g = g.sum(axis=0)
    for axis, n in enumerate(shape):
        if n == 1 and g.shape[axis] != 1:
            g = g.sum(axis=axis, keepdims=True)
    return g


BINARY = {
    "add": (lambda x, w: x + w, np.add, lambda x, w, g: (g, g)),
    "sub": (lambda x, w: x - w, np.subtract, lambda x, w, g: (g, -g)),
    "mul": (lambda x, w: x * w, np.multiply, lambda x, w, g: (g * w, g * x)),
    "div": (lambda x, w: x / w, np.divide, lambda x, w, g: (g / w, -g * x / w ** 2)),
}


@SETTINGS
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=4),
       op=st.sampled_from(sorted(BINARY)), data=st.data())
def test_binary_ops_broadcast_like_numpy(shapes, op, data):
    fn, ref, derivative = BINARY[op]
    sx, sw = shapes.input_shapes
    x = data.draw(hnp.arrays(np.float64, sx, elements=finite))
    w = data.draw(hnp.arrays(np.float64, sw, elements=finite))
    if op == "div":
        w = np.where(np.abs(w) < 0.5, 0.5 + np.abs(w), w)
    g = data.draw(hnp.arrays(np.float64, shapes.result_shape, elements=finite))
    tx = tinyffn.tensor(x, requires_grad=True)
    tw = tinyffn.tensor(w, requires_grad=True)
    y = fn(tx, tw)
    np.testing.assert_allclose(y.numpy(), ref(x, w), rtol=1e-12, atol=1e-12)
    y.backward(tinyffn.tensor(g))
    gx, gw = derivative(np.broadcast_to(x, g.shape), np.broadcast_to(w, g.shape), g)
    assert tx.grad.shape == sx and tw.grad.shape == sw
    np.testing.assert_allclose(tx.grad.numpy(), _sum_to(gx, sx), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(tw.grad.numpy(), _sum_to(gw, sw), rtol=1e-10, atol=1e-10)


@st.composite
def array_and_axes(draw):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, max_side=4))
    # distinct values: max has a unique winner, so finite differences are valid
    values = draw(st.permutations(range(int(np.prod(shape)))))
    x = np.array(values, dtype=np.float64).reshape(shape) * 0.25
    axes = draw(st.one_of(st.none(), st.lists(st.integers(0, len(shape) - 1), min_size=1,
                                              max_size=len(shape), unique=True)))
    return x, None if axes is None else tuple(sorted(axes)), draw(st.booleans())


@SETTINGS
@given(case=array_and_axes(), name=st.sampled_from(["sum", "mean", "amax", "amin"]))
def test_reductions_match_numpy_and_finite_differences(case, name):
    x, axis, keepdims = case
    t = tinyffn.tensor(x, requires_grad=True)
    y = getattr(t, name)(axis=axis, keepdims=keepdims)
    np.testing.assert_allclose(y.numpy(), getattr(np, name)(x, axis=axis, keepdims=keepdims))
    assert tinyffn.gradcheck(lambda t: getattr(t, name)(axis=axis, keepdims=keepdims), [t])


@SETTINGS
@given(shape=hnp.array_shapes(min_dims=1, max_dims=4, max_side=4), data=st.data())
def test_shape_ops_round_trip(shape, data):
    x = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    axes = tuple(data.draw(st.permutations(range(len(shape)))))
    t = tinyffn.tensor(x, requires_grad=True)
    y = t.permute(*axes).reshape(-1)
    np.testing.assert_array_equal(y.numpy(), x.transpose(axes).reshape(-1))
    g = np.arange(y.shape[0], dtype=np.float64)
    y.backward(tinyffn.tensor(g))
    # the gradient moves each element back to where it came from
    np.testing.assert_array_equal(t.grad.numpy().transpose(axes).reshape(-1), g)
    lead = data.draw(st.integers(1, 3))
    b = t.broadcast_to(lead, *shape)
    assert tinyffn.gradcheck(lambda t: t.broadcast_to(lead, *shape) * 1.5, [t]) and b.shape[0] == lead


@SETTINGS
@given(m=st.integers(1, 4), k=st.integers(1, 4), n=st.integers(1, 4),
       batch=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=2, max_side=3))
def test_batched_matmul_matches_numpy(m, k, n, batch):
    bx, bw = batch.input_shapes
    rng = np.random.default_rng(m * 100 + k * 10 + n)
    x = rng.standard_normal(bx + (m, k))
    w = rng.standard_normal(bw + (k, n))
    tx, tw = tinyffn.tensor(x, requires_grad=True), tinyffn.tensor(w, requires_grad=True)
    np.testing.assert_allclose((tx @ tw).numpy(), x @ w, rtol=1e-12, atol=1e-12)
    assert tinyffn.gradcheck(lambda a, b: a @ b, [tx, tw])
