"""Activation checkpointing (tinyffn.utils.checkpoint): the same gradients as without it,
for less memory held between forward and backward, at the cost of one more forward."""
import gc
import tracemalloc
from contextlib import nullcontext

import numpy as np
import pytest

import tinyffn
from tinyffn import nn
from tinyffn.utils.checkpoint import CheckpointError, checkpoint, checkpoint_sequential

T, D = 6, 4


def stack(kind: str, layers: int = 3, dropout: float = 0.0, device="cpu"):
    """Residual FFN blocks (a transformer's FFN sublayers without attention), float64."""
    tinyffn.manual_seed(3)
    blocks = []
    for _ in range(layers):
        ffn = (nn.GatedFFN(D, activation="swish", dtype="float64") if kind == "swiglu" else
               nn.FFN(D, activation=kind, dtype="float64"))
        blocks.append(nn.Sequential(nn.LayerNorm(D, dtype="float64"), ffn, nn.Dropout(dropout))
                      .to(device))
    return blocks


def run(blocks, x, checkpointed: bool, **options):
    h = x
    for block in blocks:
        h = h + (checkpoint(block, h, use_reentrant=False, **options) if checkpointed
                 else block(h))
    return (h * h).mean()


def gradients(blocks, x, checkpointed: bool, seed: int = 7, **options) -> list:
    """Every parameter's gradient and x's, after one backward from the same random state."""
    for p in [x] + [p for b in blocks for p in b.parameters()]:
        p.grad = None
    tinyffn.manual_seed(seed)
    run(blocks, x, checkpointed, **options).backward()
    return [x.grad.numpy()] + [p.grad.numpy() for b in blocks for p in b.parameters()]


@pytest.mark.parametrize("kind", ["relu", "gelu", "swiglu"])
def test_gradients_are_the_uncheckpointed_ones_bit_for_bit(kind, device):
    """The rerun computes the same arrays with the same ops, so equality is exact."""
    blocks = stack(kind, device=device)
    x = tinyffn.randn(T, D, dtype="float64", device=device, requires_grad=True)
    plain, checkpointed = gradients(blocks, x, False), gradients(blocks, x, True)
    assert len(plain) == 1 + 3 * len(list(blocks[0].parameters()))
    for a, b in zip(plain, checkpointed):
        np.testing.assert_array_equal(a, b)


def test_the_gradients_are_right_by_finite_differences():
    blocks = stack("gelu", layers=2)
    x = tinyffn.randn(T, D, dtype="float64", requires_grad=True)
    w = blocks[1][1].w1.weight
    assert tinyffn.gradcheck(lambda x, w: run(blocks, x, True), [x, w])


def test_dropout_draws_the_same_mask_when_rerun_and_the_generator_moves_on_once():
    blocks = stack("relu", dropout=0.5)
    x = tinyffn.randn(T, D, dtype="float64", requires_grad=True)
    states = []
    results = []
    for checkpointed in (False, True):
        results.append(gradients(blocks, x, checkpointed))
        states.append(tinyffn.default_generator.get_state().numpy())
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)
    # the rerun restores the generator, so a later draw is what it would have been
    np.testing.assert_array_equal(states[0], states[1])
    # without the saved state the rerun draws new masks: the gradients are then wrong
    other = gradients(blocks, x, True, preserve_rng_state=False)
    assert max(np.abs(a - b).max() for a, b in zip(results[0], other)) > 1e-3


def test_the_block_runs_twice_and_retain_graph_reuses_the_rerun():
    calls = []
    w = tinyffn.randn(D, D, dtype="float64", requires_grad=True)

    def block(h):
        calls.append(1)
        return (h @ w).tanh()

    x = tinyffn.randn(T, D, dtype="float64", requires_grad=True)
    loss = checkpoint(block, x, use_reentrant=False).sum()
    assert len(calls) == 1
    loss.backward(retain_graph=True)
    first = w.grad.numpy().copy()
    loss.backward()
    assert len(calls) == 2                 # the second backward found the arrays in place
    np.testing.assert_allclose(w.grad.numpy(), 2 * first, rtol=1e-15)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()


def test_grad_reaches_parameters_the_block_uses_without_being_passed():
    blocks = stack("gelu", layers=1)
    x = tinyffn.randn(T, D, dtype="float64", requires_grad=True)
    params = list(blocks[0].parameters())
    expected = tinyffn.grad(run(blocks, x, False), params)
    got = tinyffn.grad(run(blocks, x, True), params)
    for a, b in zip(expected, got):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert all(p.grad is None for p in params)


def held_after_forward(checkpointed: bool, layers: int, T: int, d: int) -> int:
    """Bytes the graph holds between forward and backward (tracemalloc sees NumPy's arrays)."""
    tinyffn.manual_seed(0)
    blocks = [nn.FFN(d, activation="gelu") for _ in range(layers)]
    x = tinyffn.randn(T, d, requires_grad=True)
    gc.collect()
    tracemalloc.start()
    try:
        loss = run(blocks, x, checkpointed)
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    loss.backward()                    # and backward still works
    assert blocks[0].w1.weight.grad is not None
    return held


def test_between_forward_and_backward_only_the_blocks_inputs_stay():
    """A float32 GELU FFN saves x (read by W1's gradient) and, of the hidden layer, erf's
    input, a, Φ(a)'s part and σ(a) (read by W2's gradient): 4·T·d_ff + T·d floats per
    layer, 17·T·d with d_ff = 4d. Checkpointed, each block keeps its input h: T·d floats
    (the last residual sum's output is held by the loss)."""
    layers, T, d = 4, 256, 64
    plain = held_after_forward(False, layers, T, d)
    checkpointed = held_after_forward(True, layers, T, d)
    assert plain > layers * 12 * T * d * 4
    assert checkpointed < layers * 3 * T * d * 4
    assert plain / checkpointed > 4


def traced_peaks(function, x) -> tuple:
    """Peak bytes traced while ``function(x)`` runs, and while backward from its sum runs."""
    gc.collect()
    tracemalloc.start()
    try:
        y = function(x)
        _, forward = tracemalloc.get_traced_memory()
        loss = y.sum()
        del y
        tracemalloc.reset_peak()
        loss.backward()
        _, backward = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return forward, backward


def test_a_checkpointed_run_holds_no_more_than_the_plain_forward():
    """While a checkpointed segment runs (the first time, and again in backward), only
    what a plain forward holds is alive: the saved arrays and each op's temporaries. The
    block's runs once kept every op's output until the block ended (as
    keep_intermediates() does): forward and rerun peaks were then 1.5 times the plain
    forward's for four pre-norm GELU FFN blocks."""
    tinyffn.manual_seed(0)
    T, d = 256, 32
    blocks = [nn.Sequential(nn.LayerNorm(d), nn.FFN(d, activation="gelu")) for _ in range(4)]
    x = tinyffn.randn(T, d, requires_grad=True)

    def segment(h):
        for block in blocks:
            h = h + block(h)
        return h

    traced_peaks(lambda h: checkpoint(segment, h, use_reentrant=False), x)   # imports first
    plain_forward, _ = traced_peaks(segment, x)
    forward, backward = traced_peaks(lambda h: checkpoint(segment, h, use_reentrant=False), x)
    assert forward < 1.05 * plain_forward
    assert backward < 1.1 * plain_forward


def test_the_rerun_costs_one_more_forward_of_the_block():
    """The seed's FFN forward is 16·T·d² FLOPs of matmul; backward is twice that. With
    checkpointing the forward is counted twice: 64·T·d² in all instead of 48·T·d²."""
    tinyffn.manual_seed(0)
    ffn = nn.FFN(D, activation="relu", bias=False)
    x = tinyffn.randn(T, D, requires_grad=True)
    counts = []
    for checkpointed in (False, True):
        with tinyffn.FlopCounter() as c:
            (checkpoint(ffn, x, use_reentrant=False) if checkpointed else ffn(x)).sum().backward()
        counts.append((c.forward["matmul"], c.backward["matmul"]))
    assert counts[0] == (16 * T * D ** 2, 32 * T * D ** 2)
    assert counts[1] == (32 * T * D ** 2, 32 * T * D ** 2)


def test_checkpoint_sequential_matches_the_plain_sequential():
    tinyffn.manual_seed(4)
    model = nn.Sequential(*[nn.Sequential(nn.Linear(D, D, dtype="float64"), nn.Tanh())
                            for _ in range(5)])
    x = tinyffn.randn(T, D, dtype="float64", requires_grad=True)
    expected = tinyffn.grad(model(x).sum(), [x, *model.parameters()])
    for segments in (1, 2, 5):
        got = tinyffn.grad(checkpoint_sequential(model, segments, x, use_reentrant=False).sum(),
                           [x, *model.parameters()])
        for a, b in zip(expected, got):
            np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_values_and_gradients_match_torch():
    torch = pytest.importorskip("torch")
    from torch.utils.checkpoint import checkpoint as torch_checkpoint
    tinyffn.manual_seed(5)
    ffn = nn.FFN(D, activation="gelu", dtype="float64")
    reference = torch.nn.Sequential(torch.nn.Linear(D, 4 * D), torch.nn.GELU(),
                                    torch.nn.Linear(4 * D, D)).double()
    with torch.no_grad():
        for mine, theirs in ((ffn.w1, reference[0]), (ffn.w2, reference[2])):
            theirs.weight.copy_(torch.from_numpy(mine.weight.numpy()))
            theirs.bias.copy_(torch.from_numpy(mine.bias.numpy()))
    values = np.random.default_rng(0).standard_normal((T, D))
    x = tinyffn.tensor(values, dtype="float64", requires_grad=True)
    tx = torch.tensor(values, requires_grad=True)
    y = checkpoint(lambda h, scale: ffn(h) * scale, x, use_reentrant=False, scale=2.0)
    ty = torch_checkpoint(lambda h, scale: reference(h) * scale, tx, use_reentrant=False, scale=2.0)
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    np.testing.assert_allclose(y.numpy(), ty.detach().numpy(), rtol=1e-13)
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(ffn.w1.weight.grad.numpy(), reference[0].weight.grad.numpy(),
                               rtol=1e-12)


def test_a_block_that_records_other_ops_the_second_time_is_an_error():
    mode = ["tanh"]
    x = tinyffn.randn(T, D, requires_grad=True)
    loss = checkpoint(lambda h: getattr(h, mode[0])(), x, use_reentrant=False).sum()
    mode[0] = "sigmoid"
    with pytest.raises(CheckpointError, match=r"op 0 was tanh -> \(6, 4\) float32 the first "
                                              r"time and sigmoid -> \(6, 4\) float32 the second"):
        loss.backward()
    shapes = [T]
    loss = checkpoint(lambda h: h[:shapes[0]].exp(), x, use_reentrant=False, debug=True).sum()
    shapes[0] = 2
    with pytest.raises(CheckpointError, match=r"(?s)first run:  getitem -> \(6, 4\).*"
                                              r"second run: getitem -> \(2, 4\)"):
        loss.backward()
    extra = [False]
    loss = checkpoint(lambda h: h.exp().exp() if extra[0] else h.exp(), x,
                      use_reentrant=False).sum()
    extra[0] = True
    with pytest.raises(CheckpointError, match="the first run recorded 1 op, the second 2"):
        loss.backward()


def test_determinism_check_none_trusts_the_block():
    x = tinyffn.randn(T, D, requires_grad=True)
    scale = [1.0]
    loss = checkpoint(lambda h: (h * scale[0]).tanh(), x, use_reentrant=False,
                      determinism_check="none").sum()
    loss.backward()
    assert x.grad is not None


def test_a_tensor_changed_in_place_before_backward_is_an_error():
    w = tinyffn.randn(D, D, requires_grad=True)
    x = tinyffn.randn(T, D, requires_grad=True)
    loss = checkpoint(lambda h: (h @ w).relu(), x, use_reentrant=False).sum()
    with tinyffn.no_grad():
        w -= 0.1                               # an optimizer step before backward
    with pytest.raises(CheckpointError, match=r"of shape \(4, 4\), was changed in place"):
        loss.backward()


def test_gradients_of_gradients_through_a_checkpoint_are_refused():
    x = tinyffn.randn(T, D, dtype="float64", requires_grad=True)
    y = checkpoint(lambda h: h.tanh(), x, use_reentrant=False).sum()
    with pytest.raises(RuntimeError, match="tanh is inside a checkpointed block"):
        tinyffn.grad(y, [x], create_graph=True)


def test_nested_no_grad_and_keep_intermediates():
    w = tinyffn.randn(D, D, dtype="float64", requires_grad=True)
    x = tinyffn.randn(T, D, dtype="float64", requires_grad=True)

    def inner(h):
        return (h @ w).tanh()

    def outer(h):
        return checkpoint(inner, h, use_reentrant=False).sin()

    expected = tinyffn.grad(outer(x).sum(), [x, w])
    got = tinyffn.grad(checkpoint(outer, x, use_reentrant=False).sum(), [x, w])
    for a, b in zip(expected, got):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    with tinyffn.no_grad():
        y = checkpoint(inner, x, use_reentrant=False)
    assert y.grad_fn is None
    with tinyffn.keep_intermediates() as kept:
        checkpoint(inner, x, use_reentrant=False)
    assert [t.grad_fn.name for t in kept] == ["matmul", "tanh"]


def test_context_fn_wraps_each_run_and_the_drawing_shows_the_block():
    entered = []

    class Note:
        def __init__(self, name):
            self.name = name

        def __enter__(self):
            entered.append(self.name)

        def __exit__(self, *exc):
            return False

    x = tinyffn.randn(T, D, requires_grad=True)
    y = checkpoint(lambda h: h.exp(), x, use_reentrant=False,
                   context_fn=lambda: (Note("forward"), Note("rerun")))
    assert "checkpoint" in tinyffn.graphviz.to_dot(y)
    y.sum().backward()
    assert entered == ["forward", "rerun"]


@pytest.mark.parametrize("options, error, message", [
    ({"use_reentrant": True}, ValueError, "use_reentrant=True is not supported"),
    ({"use_reentrant": 1}, TypeError, "use_reentrant must be True or False"),
    ({"determinism_check": "strict"}, ValueError, "determinism_check='strict' is not one of"),
    ({"context_fn": 3}, TypeError, "context_fn must be callable"),
    ({"context_fn": lambda: None}, TypeError, "context_fn must return two context managers"),
    ({"preserve_rng_state": "yes"}, TypeError, "preserve_rng_state must be True or False"),
    ({"early_stop": None}, TypeError, "early_stop must be True or False"),
    ({"context_fn": lambda: (nullcontext(),)}, TypeError, "context_fn must return two"),
])
def test_bad_options_are_refused_saying_what_to_pass(options, error, message):
    x = tinyffn.randn(3, requires_grad=True)
    with pytest.raises(error, match=message):
        checkpoint(lambda h: h.exp(), x, **{"use_reentrant": False, **options})


def test_checkpoint_sequential_refuses_bad_segments():
    layers = [nn.Linear(D, D) for _ in range(3)]
    x = tinyffn.randn(T, D)
    for segments, message in ((0, "segments must be an int >= 1"),
                              (True, "segments must be an int >= 1, got True"),
                              (4, "4 segments of 3 functions")):
        with pytest.raises(ValueError, match=message):
            checkpoint_sequential(layers, segments, x, use_reentrant=False)


def test_an_input_made_by_an_op_and_changed_in_place_is_an_error():
    """h = x * 2 is not a leaf: its node saved no array of it, the block's nodes dropped
    theirs, so only the array h holds could tell the rerun's values from the first run's.
    PyTorch's version counter raises here; a rerun on the new values would give x a
    gradient of exp(2x + 1) instead of exp(2x), silently."""
    x = tinyffn.randn(3, dtype="float64", requires_grad=True)
    h = x * 2
    loss = checkpoint(lambda t: t.exp(), h, use_reentrant=False).sum()
    with tinyffn.no_grad():
        h += 1
    with pytest.raises(CheckpointError, match=r"of shape \(3,\), was changed in place"):
        loss.backward()
    # a tensor read from the block's closure, made by an op, is watched too
    h = x * 2
    loss = checkpoint(lambda t: (t * h).exp(), x, use_reentrant=False).sum()
    with tinyffn.no_grad():
        h.mul_(3.0)
    with pytest.raises(CheckpointError, match="was changed in place"):
        loss.backward()


def test_a_requires_grad_changed_between_forward_and_backward_is_an_error():
    """w frozen after forward: the rerun's x * w needs no gradient for w, so it saves no
    x (ops save only what a needed gradient reads), and the first run's node, which needs
    both, would read a None: PyTorch raises its CheckpointError here too."""
    w = tinyffn.randn(3, dtype="float64", requires_grad=True)
    x = tinyffn.randn(3, dtype="float64", requires_grad=True)
    loss = checkpoint(lambda t: (t * w).exp(), x, use_reentrant=False).sum()
    w.requires_grad_(False)
    with pytest.raises(CheckpointError, match=r"op 0 \(mul\) needed the gradients of its "
                                              r"inputs \(True, True\) the first time and "
                                              r"\(True, False\) the second"):
        loss.backward()


def test_a_lambda_in_a_loop_that_reads_the_loop_variable_is_an_error():
    """`lambda t: layer(t)` in a loop reads `layer` when it runs: at backward every rerun
    would use the last layer, of the same shapes, so the ops match and the gradients are
    silently wrong (PyTorch's are). The rerun's ops must read the first run's tensors."""
    tinyffn.manual_seed(0)
    layers = [nn.Linear(D, D, dtype="float64") for _ in range(3)]
    x = tinyffn.randn(T, D, dtype="float64", requires_grad=True)

    def loss_of(checkpointed, bound=True):
        h = x
        for layer in layers:
            block = (lambda t, layer=layer: layer(t).tanh()) if bound else \
                (lambda t: layer(t).tanh())            # reads the loop variable at backward
            h = h + (checkpoint(block, h, use_reentrant=False) if checkpointed else block(h))
        return h.square().sum()

    with pytest.raises(CheckpointError, match=r"op 0 \(transpose\) read another tensor as "
                                              r"its input 0 \(of shape \(4, 4\)\) the second "
                                              r"time \(a lambda made in a loop"):
        loss_of(True, bound=False).backward()
    expected = tinyffn.grad(loss_of(False), [x, layers[0].weight])
    got = tinyffn.grad(loss_of(True), [x, layers[0].weight])
    for a, b in zip(expected, got):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_the_graph_is_freed_without_the_cycle_collector():
    """The block's nodes keep their region (to rerun it) and the region keeps them only
    weakly: a checkpointed graph, with its block's input, is freed by refcounting alone,
    as every tinyffn graph is (tests/test_autograd.py), backward run or not."""
    import weakref
    w = tinyffn.randn(D, D, requires_grad=True)
    gc.collect()
    gc.disable()
    try:
        for run_backward in (False, True):
            h = tinyffn.randn(T, D, requires_grad=True) * 2
            alive = weakref.ref(h)
            loss = checkpoint(lambda t: (t @ w).tanh(), h, use_reentrant=False).sum()
            if run_backward:
                loss.backward()
            del h, loss
            assert alive() is None, f"the graph outlived its loss (backward: {run_backward})"
    finally:
        gc.enable()


def test_keep_intermediates_around_backward_sees_no_rerun():
    """The rerun in backward records ops of its own; they are the block's forward run
    again, not results of the code inside keep_intermediates(), which sees none."""
    x = tinyffn.randn(T, D, requires_grad=True)
    loss = checkpoint(lambda t: t.exp().sin(), x, use_reentrant=False).sum()
    with tinyffn.keep_intermediates() as kept:
        loss.backward()
    assert kept == []
    assert x.grad is not None


def test_backward_under_no_grad_still_reruns_the_block_recording():
    w = tinyffn.randn(D, D, dtype="float64", requires_grad=True)
    x = tinyffn.randn(T, D, dtype="float64", requires_grad=True)
    expected = tinyffn.grad((x @ w).tanh().sum(), [x, w])
    loss = checkpoint(lambda t: (t @ w).tanh(), x, use_reentrant=False).sum()
    with tinyffn.no_grad():
        loss.backward()
    for a, b in zip(expected, (x.grad, w.grad)):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_a_dtype_that_differs_in_the_rerun_is_an_error():
    dtype = ["float64"]
    x = tinyffn.randn(T, D, requires_grad=True)
    loss = checkpoint(lambda h: h.to(dtype=dtype[0]).exp(), x, use_reentrant=False).sum()
    dtype[0] = "float16"
    with pytest.raises(CheckpointError, match=r"\(6, 4\) float64 the first time and .* "
                                              r"\(6, 4\) float16 the second"):
        loss.backward()


def test_checkpoint_sequential_leaves_the_last_segment_plain():
    """As PyTorch's: the last segment's activations are needed at once by backward, so it
    is not checkpointed; each function of the other segments runs twice."""
    calls = []

    def counted(k):
        def f(h):
            calls.append(k)
            return h.tanh()
        return f

    x = tinyffn.randn(T, D, requires_grad=True)
    checkpoint_sequential([counted(k) for k in range(5)], 2, x, use_reentrant=False
                          ).sum().backward()
    assert sorted(calls) == [0, 0, 1, 1, 2, 3, 4]


def test_a_node_backward_has_released_is_not_refilled_by_the_rerun():
    """The walk frees each node as it passes; a node of the block that it passed before
    the first saved_tensors read (one whose backward reads nothing) stays freed."""
    class Keeps(tinyffn.Function):       # saves its input, reads nothing in backward
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 1

        @staticmethod
        def backward(ctx, gy):
            return gy

    x = tinyffn.randn(T, D, requires_grad=True)
    y = checkpoint(lambda h: Keeps.apply(h.exp()), x, use_reentrant=False)
    node = y.grad_fn
    y.sum().backward()                   # Keeps runs first, freed; exp's read reruns
    assert node._saved == () and node._freed is True
    np.testing.assert_allclose(x.grad.numpy(), np.exp(x.numpy()), rtol=1e-6)


def test_a_rerun_that_wires_the_same_ops_otherwise_is_an_error():
    """exp, sin, mul both times, but mul(a, b) became mul(b, a): the first run's node
    would get the rerun's saved arrays in the other order, gx = gy * a for gy * b."""
    flip = [False]

    def block(h):
        a, b = h.exp(), h.sin()
        return b * a if flip[0] else a * b

    x = tinyffn.randn(T, D, requires_grad=True)
    loss = checkpoint(block, x, use_reentrant=False).sum()
    flip[0] = True
    with pytest.raises(CheckpointError, match=r"op 2 \(mul\) read another tensor as its input 0"):
        loss.backward()


def test_the_block_holds_none_of_its_intermediates():
    """Only the tensors the block read from outside are watched for changes in place:
    an intermediate the caller drops (here `a`, returned beside the output y = sin(a)) is
    freed, its array too."""
    import weakref

    def block(h):
        a = h.exp()
        return a, a.sin()

    x = tinyffn.randn(T, D, requires_grad=True)
    a, y = checkpoint(block, x, use_reentrant=False)
    array = weakref.ref(a.data)
    del a
    assert array() is None
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos(np.exp(x.numpy())) * np.exp(x.numpy()),
                               rtol=1e-5)
