"""The backward walk: order, accumulation, freeing, modes, user-defined Functions."""
import gc
import re
import tracemalloc
import warnings
import weakref

import numpy as np
import pytest

import tinyffn
from tinyffn.autograd import AccumulateGrad, Context, topological_order


def test_gradients_accumulate_over_paths_and_calls():
    x = tinyffn.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x * x + x).sum()        # dy/dx = 2x + 1: x reaches y along two paths
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 5.0, 7.0])
    (x * 2.0).sum().backward()   # a second loss adds into .grad, as in PyTorch
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 7.0, 9.0])



def test_a_0d_gradient_summed_over_two_paths_stays_an_array(device):
    """NumPy adds two 0-d arrays into a scalar (``np.float64``, not an ndarray). A 0-d
    tensor used twice had such a sum as its gradient: getitem's backward took it for
    create_graph's Tensor and raised TypeError, a hook saw it as ``g.data``, and a 0-d
    leaf's ``.grad.data`` became one after a second backward. Found by tests/torch_fuzz.py."""
    x = tinyffn.tensor([1.5, 2.0], dtype="float64", device=device, requires_grad=True)
    v = x[0]                                    # 0-d, used twice below
    seen = []
    v.register_hook(lambda g: seen.append(g.data))
    (v * v + v).backward()                      # d/dv = 2v + 1 = 4
    assert x.grad.tolist() == [4.0, 0.0]
    assert isinstance(seen[0], x.backend.array_type) and seen[0].shape == ()
    s = tinyffn.tensor(1.5, dtype="float64", device=device, requires_grad=True)
    (s * 2).backward()
    (s * 3).backward()                          # .grad's array + a 0-d gradient
    assert isinstance(s.grad.data, s.backend.array_type) and s.grad.item() == 5.0

def test_broadcast_bias_gets_gradient_of_its_own_shape():
    x = tinyffn.randn(2, 5, 3)
    b = tinyffn.zeros(3, requires_grad=True)
    (x + b).sum().backward()
    assert b.grad.shape == (3,)
    np.testing.assert_allclose(b.grad.numpy(), [10.0, 10.0, 10.0])


def test_chain_of_100k_ops_backpropagates_without_recursion():
    x = tinyffn.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0 + 0.0
    y.backward()
    assert x.grad.item() == 1.0


def test_a_node_prints_its_op_and_its_inputs_shapes():
    """One input read like a malformed tuple: <SumBackward inputs=((3, 4))>."""
    x = tinyffn.zeros(3, 4, requires_grad=True)
    b = tinyffn.zeros(4, requires_grad=True)
    assert repr(x.sum().grad_fn) == "<SumBackward input_shapes=[(3, 4)]>"
    assert repr((x + b).grad_fn) == "<AddBackward input_shapes=[(3, 4), (4,)]>"
    assert repr((x.sum() * 2).grad_fn) == "<MulBackward input_shapes=[(), ()]>"


def test_next_functions_give_the_parents_in_pytorchs_form():
    """torch 2.13: (x * 2).sum().grad_fn.next_functions is ((MulBackward0, 0),), and the
    mul's is ((AccumulateGrad, 0), (None, 0)): None for the 2, which needs no gradient."""
    x = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2).sum()
    (mul, zero), = y.grad_fn.next_functions
    assert mul is y.grad_fn.parents[0] and mul.name == "mul" and zero == 0
    ((leaf, _), none) = mul.next_functions
    assert isinstance(leaf, AccumulateGrad) and leaf.variable is x and none == (None, 0)
    data = tinyffn.tensor([3.0])
    assert (data * x).grad_fn.next_functions == ((None, 0), (AccumulateGrad(x), 0))

    def walk(fn, seen):         # PyTorch's usual recursive walker, unchanged
        seen.append(type(fn).__name__)
        for f, _ in fn.next_functions:
            if f is not None:
                walk(f, seen)
        return seen

    assert walk(((x.exp() * 2).sum()).grad_fn, []) == ["Context"] * 3 + ["AccumulateGrad"]


def test_topological_order_is_deterministic_and_parents_first():
    def build():
        tinyffn.manual_seed(0)
        x = tinyffn.randn(3, requires_grad=True)
        w = tinyffn.randn(3, requires_grad=True)
        return ((x * w).exp() + x).sum()

    names = [[v.name if isinstance(v, Context) else "leaf" for v in topological_order(build())]
             for _ in range(2)]
    assert names[0] == names[1] == ["leaf", "leaf", "mul", "exp", "add", "sum"]
    order = topological_order(build())
    position = {id(v): i for i, v in enumerate(order)}
    for v in order:
        for parent in (v.parents if isinstance(v, Context) else ()):
            assert position[id(parent)] < position[id(v)]


def test_topological_order_leaves_out_the_inputs_that_need_no_gradient():
    """Data and constants (the 2.0) are no vertices of the backward walk; the graph drawer
    asks for them with every_input=True."""
    x, data = tinyffn.randn(3, requires_grad=True), tinyffn.randn(3)
    y = (x * data * 2.0).sum()
    order = topological_order(y)
    assert order[0] is x and [v.name for v in order[1:]] == ["mul", "mul", "sum"]
    everything = topological_order(y, every_input=True)
    assert [v is data for v in everything] == [False, True, False, False, False, False]


def test_intermediate_grads_not_kept_unless_asked():
    x = tinyffn.randn(3, requires_grad=True)
    h = x.exp()
    h.retain_grad()
    z = x.tanh()
    (h * 2.0 + z).sum().backward()
    np.testing.assert_allclose(h.grad.numpy(), [2.0, 2.0, 2.0])
    with pytest.warns(UserWarning, match=r"not a leaf.*computed by tanh.*retain_grad\(\)"):
        assert z.grad is None                   # with PyTorch's warning


def test_retain_grad_is_refused_where_no_gradient_comes_and_retains_grad_says_so():
    """PyTorch 2.13 (written out): retain_grad() on a tensor that does not require grad
    raises "can't retain_grad on Tensor that has requires_grad=False", rather than leave
    .grad None in silence; retains_grad is False for a leaf and before retain_grad()."""
    x = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    with tinyffn.no_grad():
        frozen = x * 2.0
    for t in (frozen, tinyffn.ones(2), x.argmax(), x > 1.0):
        with pytest.raises(RuntimeError, match="retain_grad: this tensor does not require"):
            t.retain_grad()
    h = x * 3.0
    assert not h.retains_grad
    h.retain_grad()
    assert h.retains_grad
    x.retain_grad()                              # a leaf keeps its .grad anyway: no-op
    assert not x.retains_grad
    (h * h).sum().backward()
    np.testing.assert_allclose(h.grad.numpy(), [6.0, 12.0])
    np.testing.assert_allclose(x.grad.numpy(), [18.0, 36.0])


def test_second_backward_on_freed_graph_raises_clear_error():
    x = tinyffn.randn(3, requires_grad=True)
    y = (x.exp() * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="second time.*retain_graph=True"):
        y.backward()


def test_ops_that_save_nothing_backward_twice_as_in_pytorch():
    """Shape ops need only the input's shape, which the node records: reshape once saved
    it as an array and so refused a second backward that add and broadcast_to allowed."""
    x = tinyffn.randn(2, 3, requires_grad=True)
    y = (x.reshape(3, 2).transpose() + 1.0).broadcast_to(4, 2, 3).sum()
    y.backward()
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 3), 8.0))


def test_retain_graph_allows_second_backward_and_accumulates():
    x = tinyffn.tensor([0.5, -1.0], requires_grad=True)
    y = (x.exp() * x).sum()
    y.backward(retain_graph=True)
    first = x.grad.numpy()
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * first)
    np.testing.assert_allclose(first, np.exp([0.5, -1.0]) * (1 + np.array([0.5, -1.0])), rtol=1e-6)


def test_backward_frees_saved_arrays():
    x = tinyffn.randn(4, requires_grad=True)
    h = x.exp()
    y = (h * x).sum()
    y.backward()
    assert h.grad_fn._saved == () and y.grad_fn.parents[0]._saved == ()


def test_mul_and_div_save_only_what_a_needed_gradient_reads():
    """In GELU's composed form 0.5 * h and a / sqrt(2) are products with constants: the
    (T, d_ff) array beside the constant is not needed for any gradient, so not kept."""
    h = tinyffn.randn(3, 8, requires_grad=True)
    half, root = tinyffn.tensor(0.5), tinyffn.tensor(2.0 ** 0.5)
    x_saved, w_saved = (half * h).grad_fn.saved_tensors
    assert x_saved is not None and w_saved is None     # dy/dh = 0.5 is kept; h is not
    x_saved, w_saved = (h * half).grad_fn.saved_tensors
    assert x_saved is None and w_saved is not None
    assert len([a for a in (h * h).grad_fn.saved_tensors if a is not None]) == 2
    w_saved, y_saved = (h / root).grad_fn.saved_tensors
    assert y_saved is None                             # y is read by dL/dw alone
    assert (root / h).grad_fn.saved_tensors[1] is not None
    # and the gradients are still right, by finite differences
    assert tinyffn.gradcheck(lambda h: (0.5 * h) * (h / 2.0 ** 0.5),
                             [tinyffn.randn(3, 4, dtype="float64", requires_grad=True)])


def test_graph_is_freed_without_the_cycle_collector():
    """No reference cycles: dropping the loss frees the whole graph by refcounting alone."""
    gc.disable()
    try:
        w = tinyffn.randn(8, 8, requires_grad=True)
        refs = []
        for _ in range(20):
            x = tinyffn.randn(4, 8)
            h = (x @ w).tanh()
            loss = (h * h).mean()
            refs.append(weakref.ref(h))
            loss.backward()
            del x, h, loss
        assert all(r() is None for r in refs), "intermediate tensors outlived their step"
    finally:
        gc.enable()


def test_no_grad_records_nothing():
    x = tinyffn.randn(3, requires_grad=True)
    with tinyffn.no_grad():
        y = x * 2.0
        with tinyffn.enable_grad():
            z = x * 3.0
    assert not y.requires_grad and y.grad_fn is None
    assert z.requires_grad and z.grad_fn is not None
    assert tinyffn.is_grad_enabled()


def test_no_grad_and_enable_grad_decorate_with_or_without_parentheses():
    """``@torch.no_grad`` (bare) is common in PyTorch code; it took no argument here."""
    x = tinyffn.randn(3, requires_grad=True)

    @tinyffn.no_grad
    def evaluate(x):
        return x * 2.0, train(x)

    @tinyffn.enable_grad
    def train(x):
        return x * 3.0

    @tinyffn.no_grad()
    def evaluate_too(x):
        return x * 2.0

    (y, z), w = evaluate(x), evaluate_too(x)
    assert evaluate.__name__ == "evaluate" and tinyffn.is_grad_enabled()
    assert y.grad_fn is None and w.grad_fn is None and z.grad_fn is not None
    with pytest.raises(TypeError, match="no_grad: takes no argument, or a function to "
                                        "decorate; got bool"):
        tinyffn.no_grad(False)


def test_inference_mode_is_no_grad_and_its_false_records_as_pytorchs():
    """torch 2.13: inside inference_mode() is_grad_enabled() is False, bare decorator too;
    inference_mode(False) inside no_grad() turns recording on."""
    x = tinyffn.randn(3, requires_grad=True)
    with tinyffn.inference_mode():
        y = x * 2.0
        with tinyffn.inference_mode(False):
            z = x * 3.0
    assert y.grad_fn is None and z.grad_fn is not None and tinyffn.is_grad_enabled()
    with tinyffn.no_grad(), tinyffn.inference_mode(mode=False):
        assert tinyffn.is_grad_enabled()

    @tinyffn.inference_mode
    def bare():
        return tinyffn.is_grad_enabled()

    @tinyffn.inference_mode()
    def called():
        return x * 2.0

    assert bare() is False and called().grad_fn is None and bare.__name__ == "bare"
    assert tinyffn.is_grad_enabled()


def test_a_generator_function_is_not_decorated_with_a_mode_it_would_not_run_in():
    """A generator's body runs at next(), after the decorated call has returned: the mode
    would be back already (as with contextlib's decorators, and torch's before 2.0)."""
    def batches():
        yield tinyffn.is_grad_enabled()

    for decorate, name in [(tinyffn.no_grad, "no_grad"), (tinyffn.no_grad(), "no_grad"),
                           (tinyffn.enable_grad(), "enable_grad"),
                           (tinyffn.set_grad_enabled(False), "set_grad_enabled")]:
        with pytest.raises(TypeError, match=rf"{name}: cannot decorate the generator function "
                                            r"batches.*write `with"):
            decorate(batches)
    async def fetch():
        return tinyffn.is_grad_enabled()

    with pytest.raises(TypeError, match=r"no_grad: cannot decorate the coroutine function "
                                        r"fetch.*write `with no_grad\(\):`"):
        tinyffn.no_grad(fetch)
    assert tinyffn.is_grad_enabled()


def test_a_decorated_function_that_recurses_restores_each_level():
    @tinyffn.enable_grad()
    def depth(n):
        with tinyffn.no_grad():
            return [tinyffn.is_grad_enabled()] + (depth(n - 1) if n else [])

    with tinyffn.no_grad():
        assert depth(2) == [False] * 3
        assert not tinyffn.is_grad_enabled()
    assert tinyffn.is_grad_enabled()


def test_inputs_without_requires_grad_get_no_gradient():
    x = tinyffn.randn(2, 3)
    w = tinyffn.randn(3, 2, requires_grad=True)
    (x @ w).sum().backward()
    assert x.grad is None
    np.testing.assert_allclose(w.grad.numpy(), np.repeat(x.numpy().sum(0)[:, None], 2, axis=1),
                               rtol=1e-6)


def test_grad_function_leaves_dot_grad_alone():
    x = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    (gx,) = tinyffn.grad((x ** 3).sum(), [x])
    np.testing.assert_allclose(gx.numpy(), [3.0, 12.0])
    assert x.grad is None


def test_grad_returns_gradients_of_their_own(device):
    """For x + 1 the walk hands grad_output's array itself through to x; grad() copies it,
    as a leaf's .grad is copied, so writing into the result's array leaves the caller's
    grad_output and the other result alone (PyTorch returns grad_output itself here)."""
    x = tinyffn.tensor([1.0, 2.0], device=device, requires_grad=True)
    g = tinyffn.tensor([3.0, 4.0], device=device)
    gx, again = tinyffn.grad(x + 1, [x, x], g)
    gx.data += 1.0                                            # into the array itself
    assert gx.tolist() == [4.0, 5.0] and again.tolist() == g.tolist() == [3.0, 4.0]


def test_grad_takes_one_tensor_and_names_its_own_argument():
    x = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    (gx,) = tinyffn.grad((x * x).sum(), x)                 # one Tensor, as in PyTorch
    np.testing.assert_allclose(gx.numpy(), [2.0, 4.0])
    with pytest.raises(RuntimeError, match=r"grad: .* not of shape \(2,\); pass "
                                           r"grad_output=<tensor of that shape>"):
        tinyffn.grad(x * x, [x])
    (gx,) = tinyffn.grad(x * x, [x], grad_output=tinyffn.tensor([1.0, 0.5]))
    np.testing.assert_allclose(gx.numpy(), [2.0, 2.0])
    (gx,) = tinyffn.grad(x * x, [x], grad_outputs=tinyffn.tensor([1.0, 0.5]))  # torch's name
    np.testing.assert_allclose(gx.numpy(), [2.0, 2.0])
    (gx,) = tinyffn.grad([x * x], [x], grad_outputs=[tinyffn.tensor([1.0, 0.5])])  # its form
    np.testing.assert_allclose(gx.numpy(), [2.0, 2.0])
    (gx,) = tinyffn.grad(x * x, [x], [1.0, 0.5])                # numbers, not tensors
    np.testing.assert_allclose(gx.numpy(), [2.0, 2.0])
    (gx,) = tinyffn.grad((x.sum(), (x * x).sum()), [x])       # several: they add up
    np.testing.assert_allclose(gx.numpy(), [3.0, 5.0])
    with pytest.raises(TypeError, match="got 0 tensors as output"):
        tinyffn.grad([], [x])
    (gx,) = tinyffn.grad((x * x).sum(), [x], grad_outputs=[None])     # torch's implied 1
    np.testing.assert_allclose(gx.numpy(), [2.0, 4.0])
    (gx,) = tinyffn.grad(x * x, [x], grad_outputs=[np.array([1.0, 0.5])])
    np.testing.assert_allclose(gx.numpy(), [2.0, 2.0])
    with pytest.raises(TypeError, match="grad: pass grad_output or grad_outputs"):
        tinyffn.grad(x * x, [x], tinyffn.ones(2), grad_outputs=tinyffn.ones(2))


def test_grad_of_an_intermediate_tensor():
    x = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    h = x * x
    gh, gx = tinyffn.grad((h * 3.0).sum(), [h, x])        # dL/dh = 3, dL/dx = 6x
    np.testing.assert_allclose(gh.numpy(), [3.0, 3.0])
    np.testing.assert_allclose(gx.numpy(), [6.0, 12.0])


def test_the_graph_does_not_keep_intermediate_results():
    """A node keeps its inputs' shapes, not the inputs: x @ w.T, which the add does not
    save, is freed once nothing else holds it, and backward is unchanged (NumPy by hand)."""
    tinyffn.manual_seed(0)
    x = tinyffn.randn(3, 2)
    w = tinyffn.randn(4, 2, requires_grad=True)
    b = tinyffn.randn(4, requires_grad=True)
    a = x @ w.T
    alive = weakref.ref(a)
    loss = ((a + b).relu() * 2.0).sum()
    del a
    assert alive() is None
    add = loss.grad_fn.parents[0].parents[0].parents[0]        # sum <- mul <- relu <- add
    assert add.name == "add" and add.output is None
    assert [tuple(s) for s in add.input_shapes] == [(3, 4), (4,)]
    loss.backward()
    pre = x.numpy() @ w.numpy().T + b.numpy()
    open_ = (pre > 0) * 2.0                                  # dL/d(pre-activation)
    np.testing.assert_allclose(b.grad.numpy(), open_.sum(0), rtol=1e-6)
    np.testing.assert_allclose(w.grad.numpy(), open_.T @ x.numpy(), rtol=1e-6)


def test_keep_intermediates_holds_every_op_output_in_order():
    x = tinyffn.tensor([1.0, -2.0], requires_grad=True)
    with tinyffn.keep_intermediates(retain_grad=True) as kept:
        loss = (x.exp() * x).sum()
    assert [t.grad_fn.name for t in kept] == ["exp", "mul", "sum"] and kept[-1] is loss
    assert all(t.grad_fn.output is t for t in kept)
    loss.backward()
    np.testing.assert_allclose(kept[0].grad.numpy(), [1.0, -2.0])     # dL/d(exp x) = x
    np.testing.assert_allclose(kept[1].grad.numpy(), [1.0, 1.0])
    y = x * 2.0                                              # outside the block: not kept
    assert len(kept) == 3 and y.grad_fn.output is y


def test_keep_intermediates_keeps_no_gradient_unless_asked():
    """By default the kept outputs are like any non-leaf tensor: backward leaves their
    ``.grad`` None (as torch's without retain_grad()); only the values are kept."""
    x = tinyffn.tensor([1.0, -2.0], requires_grad=True)
    with tinyffn.keep_intermediates() as kept:
        loss = (x.exp() * x).sum()
    loss.backward()
    with pytest.warns(UserWarning, match="not a leaf Tensor is being accessed"):
        grads = [t.grad for t in kept]
    assert len(kept) == 3 and grads == [None, None, None]
    np.testing.assert_allclose(kept[0].numpy(), np.exp([1.0, -2.0]))


def test_backward_steps_reproduce_backward():
    tinyffn.manual_seed(3)
    x = tinyffn.randn(2, 3, requires_grad=True)
    w = tinyffn.randn(3, 3, requires_grad=True)
    loss = ((x @ w).sigmoid() * x).sum()
    steps = list(tinyffn.iter_backward(loss, retain_graph=True))
    assert [s.index for s in steps] == list(range(len(steps)))
    assert steps[0].op == "sum" and {s.op for s in steps} == {"sum", "mul", "sigmoid", "matmul"}
    gx_steps = x.grad.numpy()
    x.grad = w.grad = None
    loss.backward()
    np.testing.assert_array_equal(gx_steps, x.grad.numpy())


class Cube(tinyffn.Function):
    """y = x^3, dy/dx = 3x^2: a user-defined op in PyTorch's style."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return gy * 3 * x * x


def test_user_defined_function(device):
    x = tinyffn.tensor([1.0, -2.0, 0.5], dtype="float64", device=device, requires_grad=True)
    y = Cube.apply(x)
    assert y.grad_fn.fn is Cube and y.grad_fn.name == "cube"
    np.testing.assert_allclose(y.numpy(), [1.0, -8.0, 0.125])
    assert tinyffn.gradcheck(lambda x: Cube.apply(x), [x])


def test_backward_returning_wrong_number_or_shape_raises():
    class Identity(tinyffn.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1.0

    class TwoGrads(Identity):                # one input, two gradients
        @staticmethod
        def backward(ctx, gy):
            return gy, gy

    class BadShape(Identity):                # a (1,) gradient for a (3,) input
        @staticmethod
        def backward(ctx, gy):
            return gy[:1]

    x = tinyffn.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="twograds.backward returned 2 gradients for 1 input"):
        TwoGrads.apply(x).sum().backward()
    with pytest.raises(RuntimeError, match=r"badshape.backward: gradient of input 0 has shape "
                                           r"\(1,\) but the input has shape \(3,\)$"):
        BadShape.apply(x).sum().backward()       # not a broadcast: no sum_to_shape hint


class AddNoSum(tinyffn.Function):
    """x + w whose backward forgets to undo broadcasting."""

    @staticmethod
    def forward(ctx, x, w):
        return x + w

    @staticmethod
    def backward(ctx, gy):
        return gy, gy


def test_an_unsummed_broadcast_gradient_gets_the_fix_in_its_error():
    from tinyffn.ops import sum_to_shape

    class AddSummed(AddNoSum):               # the fix the message names
        @staticmethod
        def backward(ctx, gy):
            return gy, sum_to_shape(ctx.xp, gy, ctx.input_shapes[1])

    x = tinyffn.randn(3, 2, requires_grad=True)
    w = tinyffn.randn(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=re.escape(
            "addnosum.backward: gradient of input 1 has shape (3, 2) but the input has shape "
            "(2,); forward broadcast it: sum the gradient back to its shape with "
            "tinyffn.ops.sum_to_shape(ctx.xp, g, ctx.input_shapes[1])")):
        AddNoSum.apply(x, w).sum().backward()
    AddSummed.apply(x, w).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [3.0, 3.0])


def test_forward_returning_no_array_names_the_op():
    class GivesTensor(tinyffn.Function):     # Tensor arithmetic inside forward
        @staticmethod
        def forward(ctx, x):
            return tinyffn.tensor([1.0])

    class GivesList(tinyffn.Function):
        @staticmethod
        def forward(ctx, x):
            return [1.0, 2.0]

    class GivesDtype(tinyffn.Function):      # a NumPy dtype has a .shape, (), but no .dtype
        @staticmethod
        def forward(ctx, x):
            return x.dtype

    x = tinyffn.randn(2, requires_grad=True)
    with pytest.raises(TypeError, match=r"givesdtype\.forward returned a \S+; it must "
                                        r"return one array"):
        GivesDtype.apply(x)
    with pytest.raises(TypeError, match=r"givestensor\.forward returned a Tensor; .*\(return "
                                        r"y\.data"):
        GivesTensor.apply(x)
    with pytest.raises(TypeError, match=r"giveslist\.forward returned a list; it must return "
                                        r"one array"):
        GivesList.apply(x)
    assert x.sum().grad_fn is not None                     # a NumPy scalar is still fine


class LeakyReLU(tinyffn.Function):        # docs/custom_ops.md's, reading its setting
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.save_for_backward(x)
        return ctx.xp.where(x > 0, x, alpha * x)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return ctx.xp.where(x > 0, gy, ctx.attrs["alpha"] * gy)


def test_a_setting_given_by_position_gets_a_keyerror_that_says_so(device):
    """torch's Function.apply takes settings by position; here a positional 0.1 is an input
    (as the 2 in x * 2), and backward's ctx.attrs["alpha"] was a bare KeyError('alpha')."""
    v = tinyffn.tensor([-2.0, 3.0], device=device, requires_grad=True)
    with pytest.raises(KeyError, match=r"leakyrelu\.backward: 'alpha' is not in ctx\.attrs, .*"
                                       r"\(\{\}\); pass settings by keyword, "
                                       r"LeakyReLU\.apply\(x, alpha=\.\.\.\)"):
        LeakyReLU.apply(v, 0.1).sum().backward()
    LeakyReLU.apply(v, alpha=0.1).sum().backward()          # by keyword: as the docs show
    assert v.grad.tolist() == pytest.approx([0.1, 1.0])

    class Lookup(tinyffn.Function):         # a KeyError of the op's own is left as it is
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, gy):
            return {}["table"]

    with pytest.raises(KeyError) as e:
        Lookup.apply(tinyffn.tensor([1.0], requires_grad=True)).sum().backward()
    assert e.value.args == ("table",)

    class Scale(tinyffn.Function):          # a number input, but "b" is no forward parameter
        @staticmethod
        def forward(ctx, x, s):
            return x * s

        @staticmethod
        def backward(ctx, gy):
            return gy * {"a": 1.0}["b"], None

    with pytest.raises(KeyError) as e:
        Scale.apply(tinyffn.tensor([1.0], requires_grad=True), 2.0).sum().backward()
    assert e.value.args == ("b",)


def test_a_tensor_method_on_a_raw_array_in_forward_says_what_to_write(device):
    class TorchStyle(tinyffn.Function):
        @staticmethod
        def forward(ctx, x):
            return x.exp()

    class Typo(tinyffn.Function):
        @staticmethod
        def forward(ctx, x):
            return ctx.xpp.exp(x)

    class ModuleTypo(tinyffn.Function):     # numpy itself has a .dtype and a .shape
        @staticmethod
        def forward(ctx, x):
            return ctx.xp.gelu(x)

    class OnTheDtype(tinyffn.Function):     # a dtype has a .shape, (), but is no array
        @staticmethod
        def forward(ctx, x):
            return x.dtype.exp()

    x = tinyffn.tensor([1.0], device=device, requires_grad=True)
    with pytest.raises(AttributeError, match=r"torchstyle\.forward: .* has no attribute 'exp'\. "
                                             r"forward computes on the raw arrays .* "
                                             r"ctx\.xp\.exp\(x\) for x\.exp\(\)"):
        TorchStyle.apply(x)
    with pytest.raises(AttributeError, match="^'Context' object has no attribute 'xpp'$"):
        Typo.apply(x)
    with pytest.raises(AttributeError, match="object has no attribute 'exp'$"):
        OnTheDtype.apply(x)
    with pytest.raises(AttributeError, match="has no attribute 'gelu'$"):
        ModuleTypo.apply(x)


def doubling(backward):
    """A Function computing 2x, with the given backward (to test what the engine accepts)."""
    return type("Doubling", (tinyffn.Function,), {
        "forward": staticmethod(lambda ctx, x: x * 2), "backward": staticmethod(backward)})


@pytest.mark.parametrize("gradient, kind", [(2.0, "float"), ([1.0, 1.0], "list"),
                                             (tinyffn.ones(2), "Tensor"),
                                             (np.dtype("float32"), r"\S+")])  # .shape, no .dtype
def test_backward_returning_no_array_names_the_op(gradient, kind):
    """A float failed deep in the engine; a Tensor ended up nested inside .grad."""
    x = tinyffn.randn(2, requires_grad=True)
    with pytest.raises(TypeError, match=rf"doubling\.backward returned a {kind} as the "
                                        r"gradient of input 0; return one array per input"):
        doubling(lambda ctx, gy: gradient).apply(x).sum().backward()


def test_a_numpy_scalar_gradient_becomes_an_array():
    x = tinyffn.tensor(1.0, dtype="float64", requires_grad=True)
    # NumPy's gy.sum() is a float64 scalar, not an array
    doubling(lambda ctx, gy: gy.sum() * 2).apply(x).backward()
    assert x.grad.data.shape == () and x.grad.item() == 2.0


def test_integer_results_start_no_graph():
    """Casting to int64 once passed gradients straight through the truncation."""
    x = tinyffn.tensor([1.5, 2.5], requires_grad=True)
    n = x.to(dtype="int64")
    assert not n.requires_grad and n.grad_fn is None
    (n.to(dtype="float32") * x).sum().backward()           # d/dx (floor(x) · x) = floor(x)
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 2.0])
    assert not (x > 2).requires_grad


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning",
                            "ignore:divide by zero:RuntimeWarning")
def test_detect_anomaly_names_op_and_shapes():
    x = tinyffn.tensor([1.0, -1.0], requires_grad=True)
    with tinyffn.detect_anomaly():
        with pytest.raises(tinyffn.AnomalyError, match=r"log: forward produced NaN or inf "
                                                        r"\(input shapes \(2,\)\)"):
            x.log()
        z = tinyffn.tensor([0.0, 1.0], requires_grad=True)
        y = (z ** 0.5).sum()       # forward fine, d/dz sqrt(z) at 0 is inf
        with pytest.raises(tinyffn.AnomalyError, match="pow: backward produced"):
            y.backward()
    assert np.isnan(x.log().numpy()[1])  # outside the block, NaN flows as in NumPy


def test_flop_counter_counts_matmul_as_2mnk():
    x, w = tinyffn.randn(3, 4, requires_grad=True), tinyffn.randn(4, 5, requires_grad=True)
    with tinyffn.FlopCounter() as c:
        y = x @ w
    assert c.forward == {"matmul": 2 * 3 * 4 * 5}
    with tinyffn.FlopCounter() as c:
        y.sum().backward()
    assert c.backward["matmul"] == 2 * (2 * 3 * 4 * 5)   # dL/dx and dL/dw
    b = tinyffn.randn(2, 3, 4) @ tinyffn.randn(4, 6)
    with tinyffn.FlopCounter() as c:
        tinyffn.randn(2, 3, 4) @ tinyffn.randn(4, 6)
    assert c.by_op["matmul"] == 2 * 2 * 3 * 4 * 6 and b.shape == (2, 3, 6)
    assert "matmul" in c.table()


def test_backward_frees_each_raw_leaf_gradient_once_it_is_copied():
    """Holding each step until the leaves after it were stored kept both raw gradients of
    a * w alive while each was copied into .grad: backward()'s peak rose from 3 to 5 arrays
    of N floats. tracemalloc counts NumPy's allocations, so this is no timing."""
    n = 1 << 18
    a = tinyffn.randn(n, requires_grad=True)
    w = tinyffn.randn(n, requires_grad=True)
    loss = (a * w).exp().sum()
    tracemalloc.start()
    start = tracemalloc.get_traced_memory()[0]
    loss.backward()
    peak = tracemalloc.get_traced_memory()[1] - start
    tracemalloc.stop()
    assert peak <= 3.5 * n * 4, f"peak {peak / (n * 4):.2f} arrays of n float32"


def test_accumulating_into_a_grad_costs_one_array_for_a_moment():
    """The sum of the old .grad and the new gradient is a new array (nothing else's array
    is written into); the old one is freed as it is replaced: 2 arrays at the peak."""
    n = 1 << 18
    x = tinyffn.randn(n, requires_grad=True)
    (x * 2.0).sum().backward()
    loss = (x * 2.0).sum()
    tracemalloc.start()
    start = tracemalloc.get_traced_memory()[0]
    loss.backward()
    peak = tracemalloc.get_traced_memory()[1] - start
    tracemalloc.stop()
    np.testing.assert_array_equal(x.grad.numpy()[:3], [4.0, 4.0, 4.0])
    assert peak <= 2.5 * n * 4, f"peak {peak / (n * 4):.2f} arrays of n float32"


def test_each_gradient_comes_back_in_its_inputs_dtype():
    """float64 data @ a float32 weight computes in float64; the weight's gradient is cast
    back to float32, as in PyTorch, so an optimizer never widens the weight."""
    x = tinyffn.randn(4, 3, dtype="float64")
    w = tinyffn.randn(3, 2, requires_grad=True)                 # float32
    b = tinyffn.randn(2, dtype="float64", requires_grad=True)
    y = x @ w + b
    assert y.dtype == np.float64
    y.sum().backward()
    assert w.grad.dtype == np.float32 and b.grad.dtype == np.float64
    np.testing.assert_allclose(w.grad.numpy(), x.numpy().sum(axis=0)[:, None].repeat(2, 1),
                               rtol=1e-6)


# ------------------------------------------------- engine gaps a mutation audit showed
def test_grad_function_leaves_a_retained_grad_alone_too():
    """``tinyffn.grad`` touches no ``.grad``, a retained non-leaf's included, so gradcheck
    (which calls it once per output entry) cannot fill one. PyTorch's autograd.grad does
    fill a retained .grad; tinyffn's docstring promises that none is touched."""
    x = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    h = x * x
    h.retain_grad()
    (gx,) = tinyffn.grad((h * 3.0).sum(), [x])
    np.testing.assert_allclose(gx.numpy(), [6.0, 12.0])        # 6x, by hand
    assert h.grad is None and x.grad is None


def test_a_gradient_for_an_input_that_needs_none_is_dropped_unchecked():
    """A lazy backward may return a gradient for every input; the engine drops the ones
    ``needs_input_grad`` does not ask for before checking them: here one not even of its
    input's shape (gy * x was never summed down to s's shape (1,))."""
    class ScaleBy(tinyffn.Function):                 # y = x * s, d/dx = s
        @staticmethod
        def forward(ctx, x, s):
            ctx.save_for_backward(x, s)
            return x * s

        @staticmethod
        def backward(ctx, gy):
            x, s = ctx.saved_tensors
            return gy * s, gy * x                    # the second: wrong shape, unused

    x = tinyffn.tensor([1.0, 2.0], dtype="float64", requires_grad=True)
    s = tinyffn.tensor([3.0], dtype="float64")
    steps = list(tinyffn.iter_backward(ScaleBy.apply(x, s).sum()))
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])
    assert steps[-1].op == "scaleby" and steps[-1].grads[1] is None and s.grad is None


def test_a_one_element_root_of_any_rank_implies_a_gradient_of_one():
    """As in PyTorch, the implied dL/dL = 1 needs one element, not a 0-d tensor."""
    x = tinyffn.tensor([[2.0]], requires_grad=True)
    (x * x).backward()                                          # shape (1, 1)
    np.testing.assert_array_equal(x.grad.numpy(), [[4.0]])     # 2x
    y = tinyffn.tensor([3.0], requires_grad=True)
    (y * 2.0).backward()                                        # shape (1,)
    np.testing.assert_array_equal(y.grad.numpy(), [2.0])


def test_the_root_gradient_takes_the_roots_dtype_implied_or_given():
    """PyTorch casts the gradient given to backward() to the root's dtype (float32 here),
    and its implied 1 is of that dtype: a leaf or retained root never gets float64."""
    x = tinyffn.tensor(2.0, requires_grad=True)                 # float32 leaf as the root
    x.backward()
    assert x.grad.dtype == np.float32 and x.grad.item() == 1.0
    x.grad = None
    x.backward(np.float64(3.0))
    assert x.grad.dtype == np.float32 and x.grad.item() == 3.0
    loss = (tinyffn.tensor([1.0, 2.0], requires_grad=True) * 2.0).sum()
    loss.retain_grad()
    loss.backward()
    assert loss.grad.dtype == np.float32 and loss.grad.item() == 1.0


def test_grad_of_an_unused_input_is_refused_unless_asked_for_as_pytorch():
    """torch.autograd.grad raises for an input the output does not depend on (a wrong
    list of inputs is more often a bug than a wish), gives None with allow_unused=True
    and zeros of the input's dtype with materialize_grads=True; and an input that does
    not require grad has no gradient at all."""
    x = tinyffn.tensor([1.0, 2.0], requires_grad=True)          # float32
    unused = tinyffn.tensor([1.0], requires_grad=True)
    y = (x * x).sum()
    with pytest.raises(RuntimeError, match=r"grad: input 1 \(shape \(1,\)\) was not used .* "
                                           "allow_unused=True .* materialize_grads=True"):
        tinyffn.grad(y, [x, unused], retain_graph=True)
    gx, gu = tinyffn.grad(y, [x, unused], retain_graph=True, allow_unused=True)
    np.testing.assert_array_equal(gx.numpy(), [2.0, 4.0])
    assert gu is None
    gx, gu = tinyffn.grad(y, [x, unused], retain_graph=True, materialize_grads=True)
    assert gx.dtype == gu.dtype == np.float32
    np.testing.assert_array_equal(gu.numpy(), [0.0])
    with pytest.raises(ValueError, match="materialize_grads=True .* allow_unused=False"):
        tinyffn.grad(y, [x, unused], retain_graph=True, allow_unused=False,
                     materialize_grads=True)
    for constant in (tinyffn.tensor([1.0]), np.ones(1)):
        with pytest.raises(RuntimeError, match="grad: input 1 .* does not require grad"):
            tinyffn.grad(y, [x, constant], retain_graph=True)
    (gy,) = tinyffn.grad(y, [y], retain_graph=True)          # the output itself: dy/dy = 1
    assert gy.item() == 1.0



def test_a_constant_recorded_gradient_is_refused_saying_why():
    """The gradient of clamp(x) is its 0/1 mask, the same for every nearby x: under
    create_graph it depends on no tensor that requires grad (as PyTorch's clamp's), so it
    has no grad_fn and a second grad() is refused, naming create_graph. That of max |x_i|
    is a sign at the argmax, which keeps a graph through abs's sign(x), as PyTorch's (2.13,
    live): its second grad() is zeros there as here."""
    x = tinyffn.tensor([1.0, -3.0, 2.0], requires_grad=True)
    (g,) = tinyffn.grad(x.clamp(-2.5, 1.5).sum(), x, create_graph=True)
    np.testing.assert_array_equal(g.numpy(), [1.0, 0.0, 0.0])
    assert not g.requires_grad
    with pytest.raises(RuntimeError, match="no grad_fn.* made with create_graph=True: where "
                                           "it is constant in a tensor"):
        tinyffn.grad(g.pow(2).sum(), x)
    with pytest.raises(RuntimeError, match="no grad_fn.* create_graph=True has none where it "
                                           "depends on no tensor that requires grad"):
        g.pow(2).sum().backward()                          # backward's own wording
    (g,) = tinyffn.grad(tinyffn.linalg.vector_norm(x, ord=float("inf")), x, create_graph=True)
    np.testing.assert_array_equal(g.numpy(), [0.0, -1.0, 0.0])
    assert tinyffn.grad(g.pow(2).sum(), x)[0].tolist() == [0.0, 0.0, 0.0]
    torch = pytest.importorskip("torch")
    xt = torch.tensor([1.0, -3.0, 2.0], dtype=torch.float64, requires_grad=True)
    (gt,) = torch.autograd.grad(torch.linalg.vector_norm(xt, ord=float("inf")), xt,
                                create_graph=True)
    np.testing.assert_array_equal(gt.detach().numpy(), g.detach().numpy())
    zeros = torch.autograd.grad(gt.pow(2).sum(), xt)[0]    # torch's ZeroTensor: add to read
    assert (zeros + torch.zeros(3, dtype=torch.float64)).tolist() == [0.0, 0.0, 0.0]
    (ct,) = torch.autograd.grad(xt.clamp(-2.5, 1.5).sum(), xt, create_graph=True)
    assert not ct.requires_grad                            # clamp's: constant there too


def test_grad_frees_the_graph_unless_retain_graph_as_pytorch():
    """torch.autograd.grad frees the saved arrays as backward() does."""
    x = tinyffn.tensor([0.5, -1.0], requires_grad=True)
    y = (x.exp() * x).sum()
    tinyffn.grad(y, [x], retain_graph=True)
    tinyffn.grad(y, [x])                                        # the graph was retained
    with pytest.raises(RuntimeError, match="second time.*retain_graph=True"):
        y.backward()


@pytest.mark.parametrize("mode", ["no_grad", "enable_grad", "decorated"])
def test_a_mode_is_restored_when_its_block_raises(mode):
    """An exception inside ``with no_grad():`` (a failed evaluation step) must not leave
    recording off for the rest of the program."""
    def fail():
        raise ValueError("planted")

    with pytest.raises(ValueError, match="planted"):
        if mode == "decorated":
            tinyffn.no_grad(fail)()
        elif mode == "no_grad":
            with tinyffn.no_grad():
                fail()
        else:
            with tinyffn.no_grad():
                try:
                    with tinyffn.enable_grad():
                        fail()
                finally:
                    assert not tinyffn.is_grad_enabled()
    assert tinyffn.is_grad_enabled()


def test_a_scope_and_keep_intermediates_are_restored_when_their_block_raises():
    """A module whose forward raises must not leave its frame on every later op, nor a
    failed keep_intermediates() block keep collecting the outputs of later ops."""
    layer = tinyffn.nn.Linear(2, 2)
    with pytest.raises(ValueError, match=r"linear: input of shape \(3, 5\)"):
        layer(tinyffn.randn(3, 5))                  # the wrong width, inside the module
    x = tinyffn.randn(2, requires_grad=True)
    assert (x * 2.0).grad_fn.scope == ()
    with pytest.raises(ValueError, match="planted"):
        with tinyffn.keep_intermediates() as kept:
            h = x * 2.0
            raise ValueError("planted")
    y = x * 3.0                                     # after the block: not kept
    assert len(kept) == 1 and kept[0] is h and y.grad_fn.output is y


@pytest.mark.parametrize("other", ["strict", pytest.param("cuda", marks=[pytest.mark.cuda, pytest.mark.skipif(
    not tinyffn.cuda_available(), reason="CuPy with a usable GPU is not available")])])
def test_a_root_gradient_on_another_device_is_refused_naming_both(other):
    x = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(tinyffn.DeviceError, match=f"backward: the output and its grad are on "
                                                  f"different devices \\(cpu and {other}\\)"):
        (x * 2.0).backward(tinyffn.ones(2, device=other))
    with pytest.raises(tinyffn.DeviceError, match=f"grad: the output and its grad_output are "
                                                  f"on different devices \\(cpu and {other}\\)"):
        tinyffn.grad(x * 2.0, [x], tinyffn.ones(2, device=other))
    assert x.grad is None


def test_an_implied_root_gradient_needs_one_element_in_both_spellings():
    x = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"backward: dL/d\(output\) is implied only for an "
                                           r"output of one element, not of shape \(2,\); pass grad="):
        (x * 2.0).backward()
    with pytest.raises(RuntimeError, match=r"grad: .* not of shape \(2,\); pass grad_output="):
        tinyffn.grad(x * 2.0, [x])


def test_a_leaf_made_with_a_truthy_requires_grad_records_a_graph():
    for flag in (2, np.True_):
        x = tinyffn.Tensor(np.array([1.0, 2.0], dtype=np.float32), requires_grad=flag)
        assert x.requires_grad is True
        (x * 3.0).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])


def test_the_sum_to_shape_hint_covers_size_1_axes_of_the_same_rank():
    """A (1, 2) input broadcast to (3, 2), as a row of biases is, gets the hint too."""
    x = tinyffn.randn(3, 2, requires_grad=True)
    w = tinyffn.randn(1, 2, requires_grad=True)
    with pytest.raises(RuntimeError, match=re.escape(
            "gradient of input 1 has shape (3, 2) but the input has shape (1, 2); forward "
            "broadcast it: sum the gradient back to its shape with "
            "tinyffn.ops.sum_to_shape(ctx.xp, g, ctx.input_shapes[1])")):
        AddNoSum.apply(x, w).sum().backward()


def test_a_gradient_shape_no_broadcast_explains_gets_no_sum_to_shape_hint():
    """(4, 3) for a (2, 3) input: the rows differ and neither is 1, so summing cannot fix
    it, and the error names the shapes only."""
    x = tinyffn.randn(2, 3, requires_grad=True)
    y = doubling(lambda ctx, gy: ctx.xp.concat([gy, gy])).apply(x)
    with pytest.raises(RuntimeError, match=re.escape(
            "doubling.backward: gradient of input 0 has shape (4, 3) but the input has shape "
            "(2, 3)") + "$"):
        y.sum().backward()


def test_reading_the_grad_of_a_computed_tensor_warns_as_pytorch_does():
    """PyTorch 2.13 warns ("The .grad attribute of a Tensor that is not a leaf Tensor is
    being accessed ...") for a computed tensor that did not retain_grad(), and only then."""
    x = tinyffn.randn(3, requires_grad=True)
    h, kept = x.exp(), x.tanh()
    kept.retain_grad()
    loss = (h * kept).sum()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert kept.grad is None                       # retained: None until backward
        loss.backward(retain_graph=True)
        assert x.grad is not None and kept.grad is not None
        with tinyffn.no_grad():
            assert (x * 2).grad is None                # no graph: a leaf
        assert tinyffn.ones(2).exp().grad is None      # needs no gradient: a leaf
        tinyffn.to_dot(loss, show_grads=True)          # drawings read ._grad
    with pytest.warns(UserWarning, match=r"^The \.grad attribute of a Tensor that is not a "
                                         r"leaf Tensor is being accessed: this tensor was "
                                         r"computed by exp, .*\.retain_grad\(\)") as record:
        assert h.grad is None
    assert record[0].filename == __file__              # it points at the line that read it


def test_pytorch_warns_for_the_same_tensors():
    torch = pytest.importorskip("torch")
    x = torch.randn(3, requires_grad=True)
    h, kept = x.exp(), x.tanh()
    kept.retain_grad()
    (h * kept).sum().backward()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert x.grad is not None and kept.grad is not None
        assert torch.ones(2).exp().grad is None
    with pytest.warns(UserWarning, match=r"^The \.grad attribute of a Tensor that is not a "
                                         r"leaf Tensor is being accessed"):
        assert h.grad is None


def test_autograd_backward_of_a_list_adds_their_gradients():
    """torch.autograd.backward([y1, y2]) takes a list: the gradients add up, as for the
    backward of y1 + y2 (tinyffn's took one tensor, and then refused a list)."""
    x = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    y1, y2 = (x * x).sum(), (3 * x).sum()
    tinyffn.autograd.backward([y1, y2])
    assert x.grad.tolist() == [5.0, 7.0]        # 2x + 3, as torch's backward of the list


def test_a_leaf_frozen_after_the_graph_was_built_gets_no_gradient():
    """As PyTorch's: requires_grad_(False) between forward and backward (freezing a layer
    mid-step) leaves that leaf's .grad None; the others still get theirs, and a hook on
    the frozen leaf still sees its gradient (torch runs it too)."""
    x = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    w = tinyffn.tensor([3.0, 4.0], requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(g.numpy().tolist()))
    y = (x * w).sum()
    x.requires_grad_(False)
    y.backward()
    assert x.grad is None
    np.testing.assert_array_equal(w.grad.numpy(), [1.0, 2.0])
    assert seen == [[3.0, 4.0]]
    layer = tinyffn.nn.Linear(2, 2)
    loss = layer(tinyffn.ones(1, 2)).sum()
    layer.requires_grad_(False)
    loss.backward()
    assert layer.weight.grad is None and layer.bias.grad is None
