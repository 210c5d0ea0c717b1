"""tinyffn.autograd.functional: jacobian, vjp and jvp against torch and finite differences;
second derivatives, forward mode and create_graph refused with a reason."""
import numpy as np
import pytest

import tinyffn
import tinyffn.autograd.functional as AF
from tinyffn import nn
from tinyffn.autograd.functional import jacobian, jvp, vjp

F64 = "float64"


def arrays(rng, *shapes):
    return [rng.standard_normal(shape) for shape in shapes]


# functions written once, run on either library: `lib` is tinyffn or torch
def exp_reducer(x):
    return x.exp().sum(dim=1)                            # (2, 3) -> (2,)


def exp_adder(x, y):
    return 2 * x.exp() + 3 * y                           # (3,), (3,) -> (3,)


def two_outputs(x):
    return x.tanh() * x, (x * x).sum()                   # (2, 3) -> (2, 3), ()


def mixes(x, w):
    return (x @ w).tanh(), x.sum() * w                   # (4, 3), (3, 2) -> (4, 2), (3, 2)


def ignores_y(x, y):
    return x * 2.0                                       # does not depend on y


CASES = [  # (function, input shapes)
    (exp_reducer, [(2, 3)]),
    (exp_adder, [(3,), (3,)]),
    (two_outputs, [(2, 3)]),
    (mixes, [(4, 3), (3, 2)]),
    (ignores_y, [(3,), (2,)]),
    (lambda x: (x * x).sum(), [(3,)]),                   # scalar output: J shaped as x
    (lambda x: x.exp(), [()]),                           # scalar input and output
]


def _inputs(lib, values, one_tensor):
    ts = tuple(lib.tensor(v, dtype=lib.float64) for v in values)
    return ts[0] if one_tensor else ts


def _same_nesting(ours, theirs, path="J"):
    """Same nesting (Tensor / tuple / tuple of tuples), shapes, dtypes and values."""
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs), path
        for k, (a, b) in enumerate(zip(ours, theirs)):
            _same_nesting(a, b, f"{path}[{k}]")
        return
    assert isinstance(ours, tinyffn.Tensor), path
    assert tuple(ours.shape) == tuple(theirs.shape), path
    assert str(ours.dtype) == str(theirs.dtype).replace("torch.", ""), path
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-12,
                               err_msg=path)


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("as_tuple", [False, True])
def test_jacobian_matches_torch(case, as_tuple):
    torch = pytest.importorskip("torch")
    func, shapes = CASES[case]
    if len(shapes) > 1 and not as_tuple:
        pytest.skip("several inputs are always a tuple")
    values = arrays(np.random.default_rng(case), *shapes)
    ours = jacobian(func, _inputs(tinyffn, values, not as_tuple))
    theirs = torch.autograd.functional.jacobian(func, _inputs(torch, values, not as_tuple))
    _same_nesting(ours, theirs)


def test_jacobian_keeps_the_input_dtype_as_torch():
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(1).standard_normal((2, 3)).astype(np.float32)
    ours = jacobian(exp_reducer, tinyffn.tensor(x))
    theirs = torch.autograd.functional.jacobian(exp_reducer, torch.tensor(x))
    assert str(ours.dtype) == "float32" == str(theirs.dtype).replace("torch.", "")
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_vjp_matches_torch(case):
    torch = pytest.importorskip("torch")
    func, shapes = CASES[case]
    rng = np.random.default_rng(10 + case)
    values = arrays(rng, *shapes)
    probe = func(*_inputs(torch, values, False))
    outs = probe if isinstance(probe, tuple) else (probe,)
    v = arrays(rng, *[tuple(o.shape) for o in outs])
    if not isinstance(probe, tuple):
        v = v[0]
    one = len(shapes) == 1
    ours = vjp(func, _inputs(tinyffn, values, one), _inputs(tinyffn, v if isinstance(v, list)
                                                              else [v], not isinstance(v, list)))
    theirs = torch.autograd.functional.vjp(func, _inputs(torch, values, one),
                                           _inputs(torch, v if isinstance(v, list) else [v],
                                                   not isinstance(v, list)))
    _same_nesting(ours, theirs, "vjp")
    assert not any(t.requires_grad for t in (ours[0] if isinstance(ours[0], tuple)
                                             else (ours[0],)))


@pytest.mark.parametrize("case", range(len(CASES)))
def test_jvp_matches_torch(case):
    torch = pytest.importorskip("torch")
    func, shapes = CASES[case]
    rng = np.random.default_rng(20 + case)
    values, v = arrays(rng, *shapes), arrays(rng, *shapes)
    one = len(shapes) == 1
    ours = jvp(func, _inputs(tinyffn, values, one), _inputs(tinyffn, v, one))
    theirs = torch.autograd.functional.jvp(func, _inputs(torch, values, one),
                                           _inputs(torch, v, one))
    _same_nesting(ours, theirs, "jvp")


def test_v_may_be_left_out_for_one_element_as_torch():
    torch = pytest.importorskip("torch")
    x = np.array([0.5, -1.0, 2.0])
    square_sum = lambda x: (x * x).sum()                 # noqa: E731
    ours = vjp(square_sum, tinyffn.tensor(x))
    theirs = torch.autograd.functional.vjp(square_sum, torch.tensor(x))
    _same_nesting(ours, theirs, "vjp")
    np.testing.assert_allclose(ours[1].numpy(), 2 * x)
    out, Jv = jvp(lambda s: s.exp() * 3.0, tinyffn.tensor(0.25, dtype=F64))
    np.testing.assert_allclose(Jv.numpy(), 3 * np.exp(0.25), rtol=1e-15)


def test_strict_errors_where_torch_raises_and_zeros_otherwise():
    torch = pytest.importorskip("torch")
    values = [np.ones(3), np.ones(2)]
    for lib, module in ((tinyffn, AF), (torch, torch.autograd.functional)):
        inputs = _inputs(lib, values, False)
        with pytest.raises(RuntimeError, match="independent of input 1|not depend on input 1"):
            module.jacobian(ignores_y, inputs, strict=True)
        with pytest.raises(RuntimeError, match="independent of input 1|no output depends on "
                                               "input 1"):
            module.vjp(ignores_y, inputs, lib.ones(3, dtype=lib.float64), strict=True)
        constant = lambda x, y: lib.ones(2, dtype=lib.float64)            # noqa: E731
        with pytest.raises(RuntimeError, match="require"):
            module.jacobian(constant, inputs, strict=True)
        J = module.jacobian(constant, inputs)            # not strict: zeros, as the math says
        assert [tuple(b.shape) for b in J] == [(2, 3), (2, 2)]
        assert all(float(abs(b).sum()) == 0.0 for b in J)
    J = jacobian(ignores_y, _inputs(tinyffn, values, False))
    np.testing.assert_array_equal(J[0].numpy(), 2 * np.eye(3))
    np.testing.assert_array_equal(J[1].numpy(), np.zeros((3, 2)))
    with pytest.raises(RuntimeError, match="no output depends on input 1"):
        jvp(ignores_y, _inputs(tinyffn, values, False), _inputs(tinyffn, values, False),
            strict=True)


# ----------------------------------------------------------------------------- no torch
def _central_differences(f, xs, eps=1e-6, device="cpu"):
    """J[i][j] (out_i.shape + x_j.shape) of f(*xs) -> tuple of arrays, by central
    differences in float64, each entry restored after it is perturbed."""
    def evaluate(arrays_):
        with tinyffn.no_grad():
            ys = f(*[tinyffn.tensor(a, device=device) for a in arrays_])
        return [y.numpy() for y in (ys if isinstance(ys, tuple) else (ys,))]

    base = [x.copy() for x in xs]
    outs = evaluate(base)
    J = [[np.zeros(y.shape + x.shape) for x in xs] for y in outs]
    for j, x in enumerate(base):
        for n in np.ndindex(x.shape):
            original = x[n]
            x[n] = original + eps
            plus = evaluate(base)
            x[n] = original - eps
            minus = evaluate(base)
            x[n] = original
            for i in range(len(outs)):
                J[i][j][(Ellipsis,) + n] = (plus[i] - minus[i]) / (2 * eps)
    return J


@pytest.mark.parametrize("case", range(len(CASES)))
def test_jacobian_matches_finite_differences(case, device):
    func, shapes = CASES[case]
    values = arrays(np.random.default_rng(30 + case), *shapes)
    J = jacobian(func, tuple(tinyffn.tensor(v, dtype=F64, device=device) for v in values))
    numerical = _central_differences(func, values)
    J = J if isinstance(J[0], tuple) else (J,)          # one output: a row of blocks
    assert len(J) == len(numerical)
    for i, row in enumerate(J):
        for j, block in enumerate(row):
            assert block.device == device
            np.testing.assert_allclose(block.numpy(), numerical[i][j], rtol=1e-6, atol=1e-8,
                                       err_msg=f"J[{i}][{j}]")


def test_vjp_and_jvp_are_v_times_the_jacobian(device):
    rng = np.random.default_rng(40)
    x, w, u = arrays(rng, (4, 3), (3, 2), (4, 2))
    tx, tw = (tinyffn.tensor(a, dtype=F64, device=device) for a in (x, w))
    numerical = _central_differences(lambda x, w: (x @ w).tanh(), [x, w])[0]
    _, (gx, gw) = vjp(lambda x, w: (x @ w).tanh(), (tx, tw),
                      tinyffn.tensor(u, dtype=F64, device=device))
    np.testing.assert_allclose(gx.numpy(), np.einsum("ab,abcd->cd", u, numerical[0]),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gw.numpy(), np.einsum("ab,abcd->cd", u, numerical[1]),
                               rtol=1e-6, atol=1e-8)
    vx, vw = arrays(rng, (4, 3), (3, 2))
    y, Jv = jvp(lambda x, w: (x @ w).tanh(), (tx, tw),
                tuple(tinyffn.tensor(a, dtype=F64, device=device) for a in (vx, vw)))
    want = np.einsum("abcd,cd->ab", numerical[0], vx) + np.einsum("abcd,cd->ab",
                                                                  numerical[1], vw)
    np.testing.assert_allclose(Jv.numpy(), want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(y.numpy(), np.tanh(x @ w), rtol=1e-15)


def test_ffn_jacobian_is_block_diagonal_across_positions(device):
    """Position t's output never sees position s != t: those blocks are exactly zero; the
    diagonal ones agree with finite differences."""
    T, d = 4, 3
    ffn = nn.FFN(d, activation="gelu", dtype=F64, device=device)
    x = np.random.default_rng(50).standard_normal((T, d))
    J = jacobian(ffn, tinyffn.tensor(x, dtype=F64, device=device))
    assert tuple(J.shape) == (T, d, T, d)
    blocks = J.numpy()
    for t in range(T):
        for s in range(T):
            if s != t:
                assert np.all(blocks[t, :, s, :] == 0.0), (t, s)
    numerical = _central_differences(ffn, [x], device=device)[0][0]
    np.testing.assert_allclose(blocks, numerical, rtol=1e-6, atol=1e-8)
    assert all(p.grad is None for p in ffn.parameters())    # jacobian leaves .grad alone


def test_the_graph_is_built_once_and_the_caller_tensors_left_alone():
    calls = []

    def f(x):
        calls.append(1)
        return x.tanh() * 2.0

    x = tinyffn.randn(3, 2, dtype=F64, requires_grad=True)
    before = x.numpy().copy()
    with tinyffn.no_grad():                              # a graph is built even so
        J = jacobian(f, x)
        J_vectorized = jacobian(f, x, vectorize=True)    # the same rows, computed alike
    assert len(calls) == 2                               # one forward each, for 6 rows
    np.testing.assert_array_equal(J.numpy(), J_vectorized.numpy())
    want = np.einsum("ac,bd->abcd", np.eye(3), np.eye(2)) * 2 / np.cosh(before)[:, :, None,
                                                                                 None] ** 2
    np.testing.assert_allclose(J.numpy(), want, rtol=1e-14)
    assert x.grad is None and not J.requires_grad
    np.testing.assert_array_equal(x.numpy(), before)


def test_one_tensor_passed_twice_is_two_inputs_even_when_it_requires_grad():
    # torch detaches every input into its own leaf: J by the first argument is 2 I, by the
    # second 3 I (not 5 I each, as differentiating the one shared tensor would give)
    x = tinyffn.tensor([1.0, -2.0, 0.5], dtype=F64, requires_grad=True)
    f = lambda a, b: a * 2.0 + b * 3.0                      # noqa: E731
    J_a, J_b = jacobian(f, (x, x))
    np.testing.assert_array_equal(J_a.numpy(), 2.0 * np.eye(3))
    np.testing.assert_array_equal(J_b.numpy(), 3.0 * np.eye(3))
    _, (g_a, g_b) = vjp(f, (x, x), tinyffn.ones(3, dtype=F64))
    np.testing.assert_array_equal([g_a.numpy(), g_b.numpy()], [[2.0] * 3, [3.0] * 3])
    assert x.grad is None


def test_an_output_without_elements_gives_an_empty_jacobian():
    J = jacobian(lambda x: x[:0] * 2.0, tinyffn.randn(3, dtype=F64))
    assert tuple(J.shape) == (0, 3)


def test_jvp_strict_accepts_an_output_without_elements_made_from_the_input_as_torch():
    # torch's jvp(strict=True) returns an empty J v here; the output has no rows, but it is
    # computed from x, so "no output depends on input 0" would be false
    x, v = tinyffn.randn(3, dtype=F64), tinyffn.randn(3, dtype=F64)
    out, Jv = jvp(lambda x: x[:0] * 2.0, x, v, strict=True)
    assert tuple(out.shape) == (0,) and tuple(Jv.shape) == (0,)
    with pytest.raises(RuntimeError, match="no output depends on input 1"):
        jvp(lambda x, y: x[:0] * 2.0, (x, x), (v, v), strict=True)


# ----------------------------------------------------------------------------- refused
def test_import_paths_as_torch():
    import importlib
    assert importlib.import_module("tinyffn.autograd.functional") is AF
    assert tinyffn.autograd.functional is AF and AF.jacobian is jacobian


@pytest.mark.parametrize("name", ["hessian", "hvp", "vhp"])
def test_second_derivatives_are_refused_naming_what_exists(name):
    with pytest.raises(NotImplementedError, match=f"{name}: second derivatives .*double "
                                                  "backward.*jacobian, vjp and jvp"):
        getattr(AF, name)(lambda x: (x * x).sum(), tinyffn.randn(3, dtype=F64))


@pytest.mark.parametrize("call, error, match", [
    (lambda x: jacobian(exp_reducer, x, create_graph=True), NotImplementedError,
     "jacobian: create_graph=True .*no double backward"),
    (lambda x: vjp(exp_reducer, x, tinyffn.ones(2), create_graph=True), NotImplementedError,
     "vjp: create_graph=True"),
    (lambda x: jvp(exp_reducer, x, x, create_graph=True), NotImplementedError,
     "jvp: create_graph=True"),
    (lambda x: jacobian(exp_reducer, x, strategy="forward-mode"), NotImplementedError,
     "no forward mode.*reverse-mode"),
    (lambda x: jacobian(exp_reducer, x, strategy="forward"), ValueError,
     'strategy must be "reverse-mode" or "forward-mode"'),
    (lambda x: jacobian(exp_reducer, x, strict=True, vectorize=True), RuntimeError,
     "strict=True and vectorize=True"),
    (lambda x: jacobian(exp_reducer, [x]), TypeError,
     "inputs must be a Tensor or a tuple of Tensors; got list .*tuple, not a list"),
    (lambda x: jacobian(lambda x: x.numpy(), x), TypeError,
     "the outputs of func must be a Tensor.*numpy.ndarray"),
    (lambda x: vjp(exp_reducer, x), RuntimeError,
     "vjp: v can be None only if the output of func is a single Tensor with a single element"),
    (lambda x: vjp(exp_reducer, x, tinyffn.ones(3)), RuntimeError,
     r"vjp: v\[0\] has shape \(3,\) but entry 0 of the output of func has shape \(2,\)"),
    (lambda x: vjp(exp_reducer, x, (tinyffn.ones(2), tinyffn.ones(2))), RuntimeError,
     "vjp: v has 2 tensors but the output of func has 1"),
    (lambda x: jvp(exp_reducer, x), RuntimeError, "jvp: v can be None only if inputs"),
    (lambda x: jacobian(exp_reducer, x.int()), TypeError,
     "jacobian: input 0 has dtype int32: only floating-point inputs have derivatives"),
])
def test_bad_calls_say_what_to_do(call, error, match):
    x = tinyffn.randn(2, 3, dtype=F64)
    with pytest.raises(error, match=match):
        call(x)


def test_v_on_another_device_is_named():
    x = tinyffn.randn(2, 3, dtype=F64)
    with pytest.raises(tinyffn.DeviceError, match="vjp: v\\[0\\] and entry 0"):
        vjp(exp_reducer, x, tinyffn.ones(2, dtype=F64, device="strict"))
