"""Activation checkpointing (tinyffn.utils.checkpoint): the same gradients as without it,
for less memory held between forward and backward, at the cost of one more forward."""
import gc
import tracemalloc

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
    with pytest.raises(CheckpointError, match="the first run recorded 1 ops, the second 2"):
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
])
def test_bad_options_are_refused_saying_what_to_pass(options, error, message):
    x = tinyffn.randn(3, requires_grad=True)
    with pytest.raises(error, match=message):
        checkpoint(lambda h: h.exp(), x, **{"use_reentrant": False, **options})


def test_checkpoint_sequential_refuses_bad_segments():
    layers = [nn.Linear(D, D) for _ in range(3)]
    x = tinyffn.randn(T, D)
    for segments, message in ((0, "segments must be an int >= 1"),
                              (4, "4 segments of 3 functions")):
        with pytest.raises(ValueError, match=message):
            checkpoint_sequential(layers, segments, x, use_reentrant=False)
