"""tinyffn.autograd.functional: jacobian, vjp and jvp (create_graph too), hessian, vhp and
hvp against torch live, finite differences, closed forms and values written down from torch;
forward mode refused with a reason."""
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


# ----------------------------------------------------------------------------- calls
def test_import_paths_as_torch():
    import importlib
    assert importlib.import_module("tinyffn.autograd.functional") is AF
    assert tinyffn.autograd.functional is AF and AF.jacobian is jacobian
    assert AF.hessian is tinyffn.autograd_hessian.hessian


@pytest.mark.parametrize("call, error, match", [
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


# ----------------------------------------------------------------------------- create_graph
def _blocks(result):
    """The tensors of a nested result, in order."""
    if isinstance(result, tuple):
        return [t for r in result for t in _blocks(r)]
    return [result]


def _differentiate_again(lib, result, wrt, seed):
    """d/d(wrt) of sum_k r_k . block_k (r random), for the blocks that require grad; also
    which blocks those are. None if none does."""
    blocks = _blocks(result)
    needs = [b.requires_grad for b in blocks]
    rng = np.random.default_rng(seed)
    terms = [(b * lib.tensor(rng.standard_normal(tuple(b.shape)), dtype=lib.float64)).sum()
             for b, need in zip(blocks, needs) if need]
    if not terms:
        return needs, None
    total = terms[0]
    for t in terms[1:]:
        total = total + t
    grads = (tinyffn.grad(total, wrt, allow_unused=True) if lib is tinyffn else
             torch_grad(total, wrt))
    return needs, [None if g is None else g.numpy() for g in grads]


def torch_grad(total, wrt):
    import torch
    return torch.autograd.grad(total, wrt, allow_unused=True)


def _same_second(ours, theirs, wrt_ours, wrt_theirs, seed, what):
    needs, g = _differentiate_again(tinyffn, ours, wrt_ours, seed)
    needs_t, g_t = _differentiate_again(__import__("torch"), theirs, wrt_theirs, seed)
    assert needs == needs_t, what                   # the same blocks keep a graph
    assert (g is None) == (g_t is None), what
    for k, (a, b) in enumerate(zip(g or [], g_t or [])):
        assert (a is None) == (b is None), (what, k)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, err_msg=f"{what} {k}")


@pytest.mark.parametrize("case", range(len(CASES)))
def test_create_graph_results_differentiate_again_as_torch(case):
    """J, v^T J and J v with create_graph: the same values, the same blocks keeping a
    graph, and the same gradients of them with respect to the caller's inputs and v."""
    torch = pytest.importorskip("torch")
    func, shapes = CASES[case]
    rng = np.random.default_rng(60 + case)
    values, v_in = arrays(rng, *shapes), arrays(rng, *shapes)
    probe = func(*_inputs(torch, values, False))
    outs = probe if isinstance(probe, tuple) else (probe,)
    v_out = arrays(rng, *[tuple(o.shape) for o in outs])

    def leaves(lib, arrays_, one):
        ts = tuple(lib.tensor(a, dtype=lib.float64, requires_grad=True) for a in arrays_)
        return ts, (ts[0] if one else ts)

    one_in, one_out = len(shapes) == 1, not isinstance(probe, tuple)
    for k, (name, v, one_v) in enumerate([("jacobian", None, None), ("vjp", v_out, one_out),
                                          ("jvp", v_in, one_in)]):
        (xs, x), (xs_t, x_t) = leaves(tinyffn, values, one_in), leaves(torch, values, one_in)
        extra, extra_t, vs, vs_t = (), (), (), ()
        if v is not None:
            (vs, vv), (vs_t, vv_t) = leaves(tinyffn, v, one_v), leaves(torch, v, one_v)
            extra, extra_t = (vv,), (vv_t,)
        ours = getattr(AF, name)(func, x, *extra, create_graph=True)
        theirs = getattr(torch.autograd.functional, name)(func, x_t, *extra_t,
                                                          create_graph=True)
        _same_nesting(_detach_all(ours), _detach_all(theirs), name)
        _same_second(ours, theirs, xs + vs, xs_t + vs_t, 70 + k, name)


def _detach_all(result):
    if isinstance(result, tuple):
        return tuple(_detach_all(r) for r in result)
    return result.detach()


def test_without_create_graph_nothing_keeps_a_graph():
    x = tinyffn.randn(3, dtype=F64, requires_grad=True)
    v = tinyffn.randn(3, dtype=F64, requires_grad=True)
    square = lambda x: (x * x * x).sum()                   # noqa: E731
    results = [jacobian(square, x), vjp(square, x), jvp(lambda x: x.exp(), x, v),
               AF.hessian(square, x), AF.vhp(square, x, v), AF.hvp(square, x, v)]
    assert not any(t.requires_grad for t in _blocks(tuple(results)))


# ----------------------------------------------------------------------------- jvp's two ways
class UndeclaredGELU(tinyffn.ops.GELU):
    """The fused GELU, as a Function of one's own that does not declare
    twice_differentiable: its backward cannot be recorded."""
    twice_differentiable = False


def test_jvp_by_double_backward_equals_the_rows_where_an_op_is_not_twice_differentiable():
    """jvp takes J v by the double-backward trick when every op can be recorded; an op
    that cannot (UndeclaredGELU) makes it take J's rows: the same numbers either way."""
    rng = np.random.default_rng(80)
    x, v = (tinyffn.tensor(a, dtype=F64) for a in arrays(rng, (4, 3), (4, 3)))
    composed = nn.GELU()
    fused = lambda x: UndeclaredGELU.apply(x, approximate="none")     # noqa: E731
    assert AF._twice_differentiable(composed(x.detach().requires_grad_()))
    assert not AF._twice_differentiable(fused(x.detach().requires_grad_()))
    _, by_trick = jvp(composed, x, v)
    _, by_rows = jvp(fused, x, v)
    J = jacobian(composed, x).numpy().reshape(12, 12)
    np.testing.assert_allclose(by_trick.numpy(), (J @ v.numpy().reshape(12)).reshape(4, 3),
                               rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(by_rows.numpy(), by_trick.numpy(), rtol=1e-13, atol=1e-15)
    with pytest.raises(RuntimeError, match="create_graph: the backward of gelu"):
        jvp(fused, x, v, create_graph=True)


# ----------------------------------------------------------------------------- hessian
def interacts(x, y):
    return (x * y).tanh().sum() + (x ** 2 * y).sum()     # (2,), (2,) -> ()


HCASES = [  # (function, input shapes): func returns one element
    (lambda x: (x.tanh() * x.exp()).sum(), [(3,)]),
    (lambda x, y: (x.reshape(3, 1) * y).tanh().sum() + (y ** 3).sum(), [(3,), (3, 2)]),
    (interacts, [(2,), (2,)]),
    (lambda x: x.exp() * x * x, [()]),                   # scalar input and output
    (lambda x: (x * x.sin()).sum().reshape(1, 1), [(2, 2)]),   # one element, shape (1, 1)
    (lambda x, y: (x ** 3).sum(), [(2,), (3,)]),         # does not use y: zero blocks
    (lambda x: (2.0 * x).sum(), [(3,)]),                 # linear: H = 0
]


@pytest.mark.parametrize("case", range(len(HCASES)))
@pytest.mark.parametrize("as_tuple", [False, True])
def test_hessian_vhp_hvp_match_torch(case, as_tuple):
    torch = pytest.importorskip("torch")
    func, shapes = HCASES[case]
    if len(shapes) > 1 and not as_tuple:
        pytest.skip("several inputs are always a tuple")
    rng = np.random.default_rng(90 + case)
    values, v = arrays(rng, *shapes), arrays(rng, *shapes)
    one = not as_tuple
    TAF = torch.autograd.functional
    _same_nesting(AF.hessian(func, _inputs(tinyffn, values, one)),
                  TAF.hessian(func, _inputs(torch, values, one)), "H")
    for name in ("vhp", "hvp"):
        ours = getattr(AF, name)(func, _inputs(tinyffn, values, one), _inputs(tinyffn, v, one))
        theirs = getattr(TAF, name)(func, _inputs(torch, values, one), _inputs(torch, v, one))
        _same_nesting(ours, theirs, name)


@pytest.mark.parametrize("name", ["hessian", "vhp", "hvp"])
def test_second_derivatives_create_graph_differentiate_again_as_torch(name):
    torch = pytest.importorskip("torch")
    func, shapes = HCASES[1]
    rng = np.random.default_rng(100)
    values, v = arrays(rng, *shapes), arrays(rng, *shapes)
    xs = tuple(tinyffn.tensor(a, dtype=F64, requires_grad=True) for a in values + v)
    xs_t = tuple(torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in values + v)
    extra, extra_t = ((), ()) if name == "hessian" else ((xs[2:],), (xs_t[2:],))
    ours = getattr(AF, name)(func, xs[:2], *extra, create_graph=True)
    theirs = getattr(torch.autograd.functional, name)(func, xs_t[:2], *extra_t,
                                                      create_graph=True)
    _same_nesting(_detach_all(ours), _detach_all(theirs), name)
    _same_second(ours, theirs, xs, xs_t, 101, name)    # third derivatives, and d/dv


# values written down from torch 2.13 (torch.autograd.functional.hessian and hvp, float64)
# at x = [0.5, -1], y = [1.5, 0.25], v = ([1, -2], [0.5, 3]): checked without torch
INTERACTS_H = [[[[1.294856169874452, 0.0], [0.0, 0.5287783974261604]],
                [[1.0282045315728152, 0.0], [0.0, -1.1750987408982636]]],
               [[[1.0282045315728152, 0.0], [0.0, -1.1750987408982636]],
                [[-0.18946042556950535, 0.0], [0.0, 0.46045435881856595]]]]
INTERACTS_HV = [[1.80895843566085968, -4.58285301754711138],
                [0.93347431878806275, 3.73156055825222444]]


def test_hessian_and_hvp_equal_torchs_written_values(device):
    x, y = (tinyffn.tensor(a, dtype=F64, device=device) for a in ([0.5, -1.0], [1.5, 0.25]))
    v = tuple(tinyffn.tensor(a, dtype=F64, device=device) for a in ([1.0, -2.0], [0.5, 3.0]))
    H = AF.hessian(interacts, (x, y))
    assert isinstance(H, tuple) and all(isinstance(row, tuple) for row in H)
    for i in range(2):
        for j in range(2):
            assert H[i][j].device == device
            np.testing.assert_allclose(H[i][j].numpy(), INTERACTS_H[i][j], rtol=1e-14,
                                       atol=1e-15, err_msg=f"H[{i}][{j}]")
    for name in ("hvp", "vhp"):                          # H is symmetric here
        out, Hv = getattr(AF, name)(interacts, (x, y), v)
        np.testing.assert_allclose(float(out), 1.01523028998357812, rtol=1e-15)
        for k in range(2):
            np.testing.assert_allclose(Hv[k].numpy(), INTERACTS_HV[k], rtol=1e-14,
                                       err_msg=f"{name}[{k}]")


def test_hessian_matches_finite_differences_of_the_gradient(device):
    func, shapes = HCASES[1]
    values = arrays(np.random.default_rng(110), *shapes)
    H = AF.hessian(func, tuple(tinyffn.tensor(a, dtype=F64, device=device) for a in values))

    def gradient(x, y):                                  # first derivatives alone
        with tinyffn.enable_grad():
            x, y = x.detach().requires_grad_(), y.detach().requires_grad_()
            return tinyffn.grad(func(x, y), [x, y])

    numerical = _central_differences(gradient, values, device=device)
    for i in range(2):
        for j in range(2):
            np.testing.assert_allclose(H[i][j].numpy(), numerical[i][j], rtol=1e-6,
                                       atol=1e-8, err_msg=f"H[{i}][{j}]")


def test_hessian_of_the_ffn_mse_by_w2_is_the_closed_form(device):
    """ReLU FFN, MSE loss, H by W2 (d, d_ff): the output is linear in W2, so
    loss = (1/n) sum (h W2^T + b2 - target)^2 has H[a, b, c, e] = (2/n) [a == c] (h^T h)[b, e],
    (2/n) kron(I_d, h^T h) once flattened to (d d_ff, d d_ff), in torch's arrangement
    (W2's index pair first, then the second's)."""
    T, d, d_ff = 3, 4, 6
    ffn = nn.FFN(d, d_ff, activation="relu", dtype=F64, device=device)
    rng = np.random.default_rng(120)
    x, target = (tinyffn.tensor(a, dtype=F64, device=device)
                 for a in arrays(rng, (T, d), (T, d)))

    def loss(W2):
        h = ffn.act(ffn.w1(x))                           # (T, d_ff)
        return F_mse(h @ W2.T + ffn.w2.bias, target)

    H = AF.hessian(loss, ffn.w2.weight)
    assert tuple(H.shape) == (d, d_ff, d, d_ff) and H.device == device
    h = np.maximum(x.numpy() @ ffn.w1.weight.numpy().T + ffn.w1.bias.numpy(), 0)
    closed = 2 / (T * d) * np.einsum("ac,be->abce", np.eye(d), h.T @ h)
    np.testing.assert_allclose(H.numpy(), closed, rtol=1e-13, atol=1e-15)
    assert ffn.w2.weight.grad is None                    # hessian leaves .grad alone


def F_mse(y, target):
    import tinyffn.nn.functional as F
    return F.mse_loss(y, target)


def test_hessian_of_a_gelu_ffn_matches_torch():
    """Every weight of a small GELU FFN (erf form) and its input: H, a tuple of tuples of
    25 blocks, against torch's to 1e-10."""
    torch = pytest.importorskip("torch")
    T, d, d_ff = 2, 3, 4
    rng = np.random.default_rng(130)
    values = arrays(rng, (T, d), (d_ff, d), (d_ff,), (d, d_ff), (d,))
    target = rng.standard_normal((T, d))

    def loss(lib, gelu):
        def f(x, W1, b1, W2, b2):
            y = gelu(x @ W1.T + b1) @ W2.T + b2
            return ((y - lib.tensor(target, dtype=lib.float64)) ** 2).mean()
        return f

    import tinyffn.nn.functional as F
    ours = AF.hessian(loss(tinyffn, F.gelu), _inputs(tinyffn, values, False))
    theirs = torch.autograd.functional.hessian(loss(torch, torch.nn.functional.gelu),
                                               _inputs(torch, values, False))
    assert len(ours) == 5 and all(len(row) == 5 for row in ours)
    for i in range(5):
        for j in range(5):
            assert tuple(ours[i][j].shape) == tuple(theirs[i][j].shape)
            np.testing.assert_allclose(ours[i][j].numpy(), theirs[i][j].numpy(), rtol=1e-10,
                                       atol=1e-10, err_msg=f"H[{i}][{j}]")


RELU_NET = {   # name -> (function of (lib, x), whether torch 2.13's jacobian and hessian
    # with create_graph=True require grad): relu's recorded gradient keeps relu's output
    # in the graph (derivative 0), as torch's threshold_backward; a linear one has none
    "relu": (lambda lib, x: lib.relu(x), True, True),
    "relu net": (lambda lib, x: lib.relu(x[:, None] * x.new_tensor([0.5, -1.0]))
                 @ x.new_tensor([1.0, 2.0]), True, True),
    "linear": (lambda lib, x: 2.0 * x, False, False),
    "square": (lambda lib, x: x * x, True, False),
}


def test_create_graph_results_of_a_relu_network_require_grad_as_torchs(device):
    """A piecewise-linear ReLU function: its Hessian is 0, and torch's
    hessian(create_graph=True) requires grad all the same (so H.sum().backward() runs);
    the Jacobian is the 0/1 mask, and requires grad too. strict=True accepts both, as
    torch's. Values and flags written out from torch 2.13."""
    x = tinyffn.tensor([0.5, -1.0, 2.0], dtype=F64, device=device)
    H = AF.hessian(lambda x: tinyffn.relu(x).sum(), x, create_graph=True, strict=True)
    J = AF.jacobian(tinyffn.relu, x, create_graph=True, strict=True)
    assert H.requires_grad and J.requires_grad
    assert H.tolist() == [[0.0] * 3] * 3
    assert J.tolist() == [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    (H.sum() + J.sum()).backward()
    for name, (f, jac, hess) in RELU_NET.items():
        assert AF.jacobian(lambda x: f(tinyffn, x), x, create_graph=True).requires_grad == jac
        assert AF.hessian(lambda x: f(tinyffn, x).sum(), x,
                          create_graph=True).requires_grad == hess, name


def test_create_graph_results_of_a_relu_network_require_grad_as_torchs_live():
    torch = pytest.importorskip("torch")
    for name, (f, jac, hess) in RELU_NET.items():
        x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)
        A = torch.autograd.functional
        assert A.jacobian(lambda x: f(torch, x), x, create_graph=True).requires_grad == jac
        assert A.hessian(lambda x: f(torch, x).sum(), x,
                         create_graph=True).requires_grad == hess, name


PIECEWISE = {   # name -> (function of (F, x), whether torch 2.13's jacobian and hessian
    # with create_graph=True require grad): torch's fused backwards read x for their mask
    # or sign (leaky_relu_backward, hardtanh_backward, abs's grad * sgn(x)), pow_backward
    # reads x at every power; a mask's derivative is 0, so most Hessians have no graph
    "leaky_relu": (lambda F, x: F.leaky_relu(x, 0.1), True, False),
    "hardtanh": (lambda F, x: F.hardtanh(x, -1.0, 1.0), True, False),
    "relu6": (lambda F, x: F.relu6(4.0 * x), True, False),
    "threshold": (lambda F, x: F.threshold(x, 0.1, 20.0), True, False),
    "hardshrink": (lambda F, x: F.hardshrink(x), True, False),
    "softshrink": (lambda F, x: F.softshrink(x), True, False),
    "prelu": (lambda F, x: F.prelu(x, x.new_tensor([0.25])), True, False),
    "hardsigmoid": (lambda F, x: F.hardsigmoid(x), True, None),   # torch's: not implemented
    "abs": (lambda F, x: x.abs(), True, False),
    "x ** 2": (lambda F, x: x ** 2, True, True),
    "square": (lambda F, x: x.square(), True, True),
    "mse_loss": (lambda F, x: F.mse_loss(x, x.new_tensor([0.0, 0.3, 0.0])), True, False),
    "clamp": (lambda F, x: x.clamp(-1.0, 1.0), False, False),     # a where, in torch too
}


# compositions of where and masked_fill: their recorded gradient is a constant, where torch's
# fused backwards read x (so torch's jacobian requires grad); matching that would record a
# factor 1 on x, two more nodes in every drawing and FLOP count of these activations
COMPOSED_CONSTANT = ("leaky_relu", "hardtanh", "relu6", "threshold", "hardshrink",
                     "softshrink", "prelu", "hardsigmoid")


def test_create_graph_results_of_piecewise_linear_ops_require_grad_as_torchs(device):
    """jacobian (and hessian, where torch's does) with create_graph=True require grad as
    torch 2.13's, and strict=True takes them where it does; the values are unchanged
    (written out), the Hessian of x ** 2 is 2 I, and the second derivatives pass
    gradgradcheck (x away from the kinks)."""
    F = tinyffn.nn.functional
    x = tinyffn.tensor([0.75, -1.5, 2.0], dtype=F64, device=device)
    for name, (f, jac, hess) in PIECEWISE.items():
        if name in COMPOSED_CONSTANT:        # differs from torch: see COMPOSED_CONSTANT
            jac = hess = False
        J = AF.jacobian(lambda x: f(F, x), x, create_graph=True)
        H = AF.hessian(lambda x: f(F, x).sum(), x, create_graph=True)
        assert (J.requires_grad, H.requires_grad) == (jac, bool(hess)), name
        for strict_ok, fn in ((jac, AF.jacobian), (hess, AF.hessian)):
            g = (lambda x: f(F, x)) if fn is AF.jacobian else (lambda x: f(F, x).sum())
            if strict_ok:
                fn(g, x, create_graph=True, strict=True)
            else:
                with pytest.raises(RuntimeError, match="strict=True"):
                    fn(g, x, create_graph=True, strict=True)
    J = AF.jacobian(lambda x: F.leaky_relu(x, 0.1), x, create_graph=True)
    assert J.tolist() == [[1.0, 0.0, 0.0], [0.0, 0.1, 0.0], [0.0, 0.0, 1.0]]
    assert AF.jacobian(lambda x: x.abs(), x, create_graph=True).diagonal().tolist() == \
        [1.0, -1.0, 1.0]
    H = AF.hessian(lambda x: (x ** 2).sum(), x, create_graph=True, strict=True)
    assert H.tolist() == [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0]]
    (J.sum() + H.sum()).backward()          # runs, as torch's
    xg = x.detach().requires_grad_()
    for name in ("leaky_relu", "hardtanh", "softshrink", "abs", "x ** 2"):  # J's derivative
        assert tinyffn.gradgradcheck(lambda x: PIECEWISE[name][0](F, x), [xg]), name


def test_create_graph_results_of_piecewise_linear_ops_require_grad_as_torchs_live():
    torch = pytest.importorskip("torch")
    F, A = torch.nn.functional, torch.autograd.functional
    x = torch.tensor([0.75, -1.5, 2.0], dtype=torch.float64)
    for name, (f, jac, hess) in PIECEWISE.items():
        J = A.jacobian(lambda x: f(F, x), x, create_graph=True)
        if hess is None:
            with pytest.raises(RuntimeError, match="not implemented"):
                A.hessian(lambda x: f(F, x).sum(), x, create_graph=True)
        else:
            H = A.hessian(lambda x: f(F, x).sum(), x, create_graph=True)
            assert (J.requires_grad, H.requires_grad) == (jac, hess), name
        ours = AF.jacobian(lambda x: f(tinyffn.nn.functional, x),
                           tinyffn.tensor(x.numpy()), create_graph=True)
        # (rtol: torch's float64 hardsigmoid has slope 1/6 rounded to float32)
        np.testing.assert_allclose(ours.detach().numpy(), J.detach().numpy(), rtol=1e-7,
                                   atol=0, err_msg=name)


def test_second_derivatives_strict_where_torch_raises_and_zeros_otherwise():
    """strict=True raises exactly where torch's does (which input each names is checked;
    the sentences differ), and without it the blocks are zeros."""
    torch = pytest.importorskip("torch")
    values = [np.ones(2), np.ones(3)]
    unused_y = lambda x, y: (x ** 3).sum()              # noqa: E731
    linear = lambda x, y: (2.0 * x).sum() + (y ** 2).sum()      # noqa: E731
    separable = lambda x, y: (x ** 3).sum() + (y ** 3).sum()    # noqa: E731
    for lib, module in ((tinyffn, AF), (torch, torch.autograd.functional)):
        ins = _inputs(lib, values, False)
        for f, pattern in ((unused_y, "with respect to input 1"),
                           (linear, "with respect to input 0"),
                           (separable, "Output 0 .*independent of input 1|gradient by input 0 "
                                       r"\(shape \(2,\)\) does not depend on input 1")):
            with pytest.raises(RuntimeError, match=pattern):
                module.hessian(f, ins, strict=True)
        for name in ("vhp", "hvp"):
            second = getattr(module, name)
            with pytest.raises(RuntimeError, match="independent of input 1|with respect to "
                                                   "input 1"):
                second(unused_y, ins, ins, strict=True)
            with pytest.raises(RuntimeError, match="with respect to input 0"):
                second(linear, ins, ins, strict=True)
            second(separable, ins, ins, strict=True)        # each input has its share
            with pytest.raises(RuntimeError, match="input 0.*create_graph=True"):
                second(lambda x, y: (x * x).sum() + (y ** 3).sum(), ins, ins, strict=True,
                       create_graph=True)                   # H v by x is constant: 2 v
            # (torch's x ** 2 passes here: its recorded second derivative reads x ** 0)
        with pytest.raises(RuntimeError, match="does not require"):
            module.hessian(lambda x, y: lib.ones(1, dtype=lib.float64), ins, strict=True)
        with pytest.raises(RuntimeError, match="0.*create_graph=True"):
            module.jvp(lambda x, y: 2 * x + 3 * y[:2], ins, ins, strict=True,
                       create_graph=True)                   # J v is constant
        module.jacobian(lambda x, y: (x * y[:2]).sum(), ins, strict=True, create_graph=True)
        H = module.hessian(separable, ins)                 # not strict: zeros, as the math says
        assert float(abs(H[0][1]).sum()) == 0.0 and tuple(H[0][1].shape) == (2, 3)
        _, Hv = module.hvp(linear, ins, ins)
        np.testing.assert_array_equal(Hv[0].numpy(), [0.0, 0.0])
        np.testing.assert_array_equal(Hv[1].numpy(), [2.0, 2.0, 2.0])


@pytest.mark.parametrize("call, error, match", [
    (lambda x: AF.hessian(lambda x: x * 2.0, x), RuntimeError,
     r"hessian: func must return a Tensor with a single element, got shape \(3,\)"),
    (lambda x: AF.hessian(lambda x: (x.sum(), x.sum()), x), RuntimeError,
     "hessian: func must return a single Tensor .*not a tuple of 2"),
    (lambda x: AF.vhp(lambda x: x * 2.0, x, x), RuntimeError,
     "vhp: func must return a Tensor with a single element"),
    (lambda x: AF.hvp(lambda x: x.sum(), x), RuntimeError,
     "hvp: v can be None only if inputs is a single Tensor with a single element"),
    (lambda x: AF.hvp(lambda x: x.sum(), x, tinyffn.ones(2, dtype=F64)), RuntimeError,
     r"hvp: v\[0\] has shape \(2,\) but entry 0 of inputs has shape \(3,\)"),
    (lambda x: AF.hessian(lambda x: x.sum(), x, outer_jacobian_strategy="forward-mode"),
     NotImplementedError, 'hessian: outer_jacobian_strategy="forward-mode" .*no forward mode'),
    (lambda x: AF.hessian(lambda x: x.sum(), x, strict=True, vectorize=True), RuntimeError,
     "hessian: strict=True and vectorize=True"),
    (lambda x: AF.hessian(lambda x: x.sum(), [x]), TypeError,
     "hessian: inputs must be a Tensor or a tuple of Tensors; got list"),
])
def test_second_derivative_bad_calls_say_what_to_do(call, error, match):
    with pytest.raises(error, match=match):
        call(tinyffn.randn(3, dtype=F64))


def test_hessian_builds_its_graph_inside_no_grad_and_leaves_the_caller_alone():
    x = tinyffn.tensor([0.5, -1.0, 2.0], dtype=F64, requires_grad=True)
    with tinyffn.no_grad():
        H = AF.hessian(lambda x: (x ** 3).sum(), x)
        _, Hv = AF.hvp(lambda x: (x ** 3).sum(), x, tinyffn.ones(3, dtype=F64))
        _, vH = AF.vhp(lambda x: (x ** 3).sum(), x, tinyffn.ones(3, dtype=F64))
    np.testing.assert_array_equal(H.numpy(), np.diag(6 * x.numpy()))
    np.testing.assert_array_equal(Hv.numpy(), 6 * x.numpy())
    np.testing.assert_array_equal(vH.numpy(), 6 * x.numpy())
    assert x.grad is None and not H.requires_grad


# ------------------------------------------------ double-backward trick through svd and eigh
def _svd_U_weighted(lib, A):
    U = lib.linalg.svd(A, full_matrices=False)[0]
    return (U[:, 0] ** 2 * lib.arange(4.0, dtype=A.dtype)).sum()


def _eigh_V_weighted(lib, A):
    V = lib.linalg.eigh(A)[1]
    return (V[:, 0] ** 2 * lib.arange(3.0, dtype=A.dtype)).sum()


@pytest.mark.parametrize("name", ["svdvals", "svd_U", "eigh_V"])
def test_hvp_and_jvp_through_svd_and_eigh_match_torch(name):
    """hvp's and jvp's zero cotangents that require grad reach Svd's and Eigh's backward:
    it must record the formula in them, not the svdvals branch their zero values pick
    (which gave H v and J v off by about 1 before)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    A = rng.standard_normal((4, 3))
    if name == "eigh_V":
        A = A[:3] @ A[:3].T + np.eye(3)
    v = rng.standard_normal(A.shape)
    funcs = {"svdvals": lambda lib, A: lib.linalg.svdvals(A).sum(),
             "svd_U": _svd_U_weighted, "eigh_V": _eigh_V_weighted}
    f = funcs[name]
    for op in ("hvp", "vhp"):
        ours = getattr(AF, op)(lambda A: f(tinyffn, A), tinyffn.tensor(A, dtype=F64),
                               tinyffn.tensor(v, dtype=F64))[1]
        theirs = getattr(torch.autograd.functional, op)(
            lambda A: f(torch, A), torch.tensor(A), torch.tensor(v))[1]
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-10)
    ours = jvp(lambda A: f(tinyffn, A) * 1.0, tinyffn.tensor(A, dtype=F64),
               tinyffn.tensor(v, dtype=F64))[1]
    theirs = torch.autograd.functional.jvp(lambda A: f(torch, A) * 1.0, torch.tensor(A),
                                           torch.tensor(v))[1]
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-10)


@pytest.mark.parametrize("op", ["svd", "eigh"])
def test_recorded_gradient_of_the_values_alone_stays_finite_at_repeated_values(op):
    """At A = I (every singular value and eigenvalue repeated) the gradient of (S**2).sum()
    is 2I; recorded, its cotangent for U, V is zeros that require grad, and the formula
    with it would divide 0 by 0. PyTorch gives 2I: so must create_graph."""
    A = tinyffn.eye(3, dtype=F64, requires_grad=True)
    values = tinyffn.linalg.svd(A)[1] if op == "svd" else tinyffn.linalg.eigh(A)[0]
    (g,) = tinyffn.grad((values ** 2).sum(), A, create_graph=True)
    np.testing.assert_array_equal(g.detach().numpy(), 2 * np.eye(3))


# ----------------------------------------------------------------------------- edge cases
def _constant(lib):
    return lambda x: lib.ones((), dtype=lib.float64)     # does not depend on x at all


@pytest.mark.parametrize("name", ["hessian", "vhp", "hvp"])
def test_a_func_that_ignores_its_inputs_has_zero_second_derivatives_unless_strict(name):
    """torch 2.13 gives zeros (and func's value) without strict, and refuses with it."""
    x = tinyffn.tensor([0.5, -1.0, 2.0], dtype=F64)
    args = (x,) if name == "hessian" else (x, tinyffn.tensor([1.0, -2.0, 3.0], dtype=F64))
    result = getattr(AF, name)(_constant(tinyffn), *args)
    if name == "hessian":
        np.testing.assert_array_equal(result.numpy(), np.zeros((3, 3)))
    else:
        out, second = result
        assert float(out) == 1.0 and not out.requires_grad
        np.testing.assert_array_equal(second.numpy(), np.zeros(3))
    with pytest.raises(RuntimeError, match=f"{name}: the output of func .*does not require "
                                           "grad.*strict=True"):
        getattr(AF, name)(_constant(tinyffn), *args, strict=True)


def test_a_func_that_ignores_its_inputs_matches_torch():
    torch = pytest.importorskip("torch")
    TAF = torch.autograd.functional
    values, v = [0.5, -1.0, 2.0], [1.0, -2.0, 3.0]
    ours = AF.hessian(_constant(tinyffn), tinyffn.tensor(values, dtype=F64))
    theirs = TAF.hessian(_constant(torch), torch.tensor(values, dtype=torch.float64))
    _same_nesting(ours, theirs, "H")
    for name in ("vhp", "hvp"):
        _same_nesting(getattr(AF, name)(_constant(tinyffn), tinyffn.tensor(values, dtype=F64),
                                        tinyffn.tensor(v, dtype=F64)),
                      getattr(TAF, name)(_constant(torch), torch.tensor(values, dtype=torch.float64),
                                         torch.tensor(v, dtype=torch.float64)), name)
        with pytest.raises(RuntimeError, match="does not require gradients"):
            getattr(TAF, name)(_constant(torch), torch.tensor(values, dtype=torch.float64),
                               torch.tensor(v, dtype=torch.float64), strict=True)


@pytest.mark.parametrize("name", ["hessian", "vhp", "hvp"])
def test_an_output_without_elements_is_not_one_number(name):
    """torch: 'The Tensor returned by the function given to hessian should contain a single
    element' for shape (0,) too."""
    x = tinyffn.tensor([0.5, -1.0], dtype=F64)
    args = (x,) if name == "hessian" else (x, x)
    with pytest.raises(RuntimeError, match=rf"{name}: func must return a Tensor with a single "
                                           r"element, got shape \(0,\)"):
        getattr(AF, name)(lambda x: x[:0], *args)


@pytest.mark.parametrize("name", ["hessian", "vhp", "hvp"])
def test_strict_says_whether_func_ignores_an_input_or_is_linear_in_it(name):
    ins = (tinyffn.ones(2, dtype=F64), tinyffn.ones(3, dtype=F64))
    args = (ins,) if name == "hessian" else (ins, ins)
    second = getattr(AF, name)
    with pytest.raises(RuntimeError, match=r"input 1 \(shape \(3,\)\) does not depend on the "
                                           r"inputs \(func does not use input 1\)"):
        second(lambda x, y: (x ** 3).sum(), *args, strict=True)
    with pytest.raises(RuntimeError, match=r"input 0 \(shape \(2,\)\) does not depend on the "
                                           r"inputs \(func is linear in input 0\)"):
        second(lambda x, y: (2.0 * x).sum() + (y ** 2).sum(), *args, strict=True)


class Skewed(tinyffn.Function):
    """y = x0 x1, with a backward that is no gradient of it: g = gy (x1, 2 x0). Its
    Jacobian, the 'Hessian' H = [[0, 1], [2, 0]], is not symmetric, so H v (hvp) and
    v^T H (vhp) differ: hvp must not take vhp's shortcut."""
    twice_differentiable = True

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x[0] * x[1]

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        P = ctx.xp.asarray([[0.0, 1.0], [2.0, 0.0]], dtype=x.dtype)
        return gy * ctx.xp.matmul(P, x)                      # (2,)


def test_hvp_does_not_assume_a_symmetric_hessian():
    x = tinyffn.tensor([0.5, -1.0], dtype=F64)
    v = tinyffn.tensor([1.0, -2.0], dtype=F64)
    np.testing.assert_array_equal(AF.hessian(Skewed.apply, x).numpy(), [[0.0, 1.0], [2.0, 0.0]])
    _, Hv = AF.hvp(Skewed.apply, x, v)
    _, vH = AF.vhp(Skewed.apply, x, v)
    np.testing.assert_array_equal(Hv.numpy(), [-2.0, 2.0])     # H v = (v1, 2 v0)
    np.testing.assert_array_equal(vH.numpy(), [-4.0, 1.0])     # v^T H = (2 v1, v0)


def test_hvp_and_vhp_of_an_asymmetric_hessian_match_torch():
    torch = pytest.importorskip("torch")

    class TorchSkewed(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x[0] * x[1]

        @staticmethod
        def backward(ctx, gy):
            (x,) = ctx.saved_tensors
            return gy * (torch.tensor([[0.0, 1.0], [2.0, 0.0]], dtype=x.dtype) @ x)

    rng = np.random.default_rng(120)
    x, v = rng.standard_normal(2), rng.standard_normal(2)
    TAF = torch.autograd.functional
    t = lambda a: torch.tensor(a, dtype=torch.float64)     # noqa: E731
    _same_nesting(AF.hessian(Skewed.apply, tinyffn.tensor(x, dtype=F64)),
                  TAF.hessian(TorchSkewed.apply, t(x)), "H")
    for name in ("hvp", "vhp"):
        _same_nesting(getattr(AF, name)(Skewed.apply, tinyffn.tensor(x, dtype=F64),
                                        tinyffn.tensor(v, dtype=F64)),
                      getattr(TAF, name)(TorchSkewed.apply, t(x), t(v)), name)


@pytest.mark.parametrize("values", ["svdvals", "eigvalsh"])
def test_hvp_at_repeated_values_is_nan_as_torch_not_silently_partial(values):
    """(S**2).sum() = |A|_F^2, so H v = 2v; but the formula through the singular (eigen)
    vectors divides by s_i^2 - s_j^2, 0 where values repeat: torch 2.13 gives NaN, and so
    does tinyffn now. Before, hvp's zero cotangent took the branch that drops the U/V
    terms there, and H v came out as 2v's diagonal alone, silently. The first derivative
    there, where U/V are unused (structural zeros, not hvp's), stays 2A."""
    A = tinyffn.tensor(np.diag([2.0, 2.0, 1.0]), dtype=F64, requires_grad=True)
    v = tinyffn.tensor(np.arange(1.0, 10.0).reshape(3, 3), dtype=F64)
    f = getattr(tinyffn.linalg, values)
    with np.errstate(all="ignore"):
        _, Hv = AF.hvp(lambda A: (f(A) ** 2).sum(), A.detach(), v)
    assert np.isnan(Hv.numpy()).all()
    (g,) = tinyffn.grad((f(A) ** 2).sum(), [A], create_graph=True)
    np.testing.assert_allclose(g.numpy(), 2 * A.detach().numpy(), rtol=1e-12, atol=1e-14)
    torch = pytest.importorskip("torch")
    _, Hvt = torch.autograd.functional.hvp(lambda A: (getattr(torch.linalg, values)(A) ** 2).sum(),
                                           torch.tensor(np.diag([2.0, 2.0, 1.0])),
                                           torch.tensor(v.numpy()))
    assert np.isnan(Hvt.numpy()).all()
