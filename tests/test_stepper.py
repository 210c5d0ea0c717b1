"""The backward stepper: the same walk as backward(), one node at a time."""
import re
import weakref

import numpy as np
import pytest

import tinyffn
from tinyffn import autograd, nn
from tinyffn.__main__ import seed_example
from tinyffn.stepper import Step, backward_steps


def ffn_loss(activation="gelu", gated=False):
    tinyffn.manual_seed(0)
    block = (nn.GatedFFN if gated else nn.FFN)(3, activation=activation)
    x = tinyffn.randn(5, 3)
    x.name = "x"
    y = block(x)                                            # (5, 3)
    return block, (y ** 2).sum() / 2


def test_visits_each_node_once_in_reverse_topological_order():
    _, loss = ffn_loss()
    expected = [v for v in reversed(autograd.topological_order(loss))
                if isinstance(v, autograd.Context)]
    steps = list(backward_steps(loss))
    assert [s.node for s in steps] == expected              # same objects, same order
    assert len({id(s.node) for s in steps}) == len(steps)
    assert [s.index for s in steps] == list(range(len(steps)))
    assert steps[0].node is loss.grad_fn and steps[0].tensor is loss and steps[0].op == "div"


@pytest.mark.parametrize("activation,gated", [("relu", False), ("gelu_tanh", False),
                                              ("swish", True)])
def test_running_every_step_gives_backwards_gradients(activation, gated):
    stepped, loss = ffn_loss(activation, gated)
    for _ in backward_steps(loss):
        pass
    reference, loss = ffn_loss(activation, gated)
    loss.backward()
    for (name, p), q in zip(stepped.named_parameters(), reference.parameters()):
        assert np.array_equal(p.grad.numpy(), q.grad.numpy()), name


def test_every_grad_is_complete_when_the_last_step_arrives():
    """The earliest leaves (w1.weight) once got their .grad only after the last step, when
    the walk was resumed once more and stopped: a learner at the last step saw None."""
    stepped, loss = ffn_loss()
    n_steps = sum(isinstance(v, autograd.Context) for v in autograd.topological_order(loss))
    steps = backward_steps(loss)
    for _ in range(n_steps):
        step = next(steps)                                  # the last step, not yet exhausted
    reference, reference_loss = ffn_loss()
    reference_loss.backward()
    for (name, p), q in zip(stepped.named_parameters(), reference.parameters()):
        assert p.grad is not None, f"{name} has no grad at step {step.index}"
        assert np.array_equal(p.grad.numpy(), q.grad.numpy()), name
    with pytest.raises(StopIteration):
        next(steps)


def test_each_step_holds_the_op_shapes_and_gradients():
    _, loss = ffn_loss()
    for s in backward_steps(loss):
        assert isinstance(s, Step) and isinstance(s, tinyffn.BackwardStep)
        assert s.op == s.node.name
        assert repr(s).startswith(f"Step(index={s.index}, node=") and "names" not in repr(s)
        assert s.input_shapes == tuple(                   # each parent's own shape
            tuple(x.out_shape) if isinstance(x, autograd.Context) else x.shape for x in s.parents)
        assert tuple(s.gy.shape) == tuple(s.node.out_shape)
        for shape, needed, g in zip(s.input_shapes, s.node.needs_input_grad, s.grads):
            assert (g is not None) == needed
            if needed:
                assert tuple(g.shape) == shape


def test_the_seed_example_by_hand():
    """a = W1 x = (1, 0, 1, -1), h = relu(a) = (1, 0, 1, 0), y = W2 h = (2, 0), L = 2.

    dL/dy = y = (2, 0); dL/da = W2^T y = (2, 0, 2, 0) = dL/dh (relu passes h > 0);
    dL/dW1 = dL/dh x^T, dL/dW2 = dL/dy a^T.
    """
    ffn, _, a, h, y, loss = seed_example()
    assert a.tolist() == [1.0, 0.0, 1.0, -1.0] and h.tolist() == [1.0, 0.0, 1.0, 0.0]
    assert y.tolist() == [2.0, 0.0] and loss.item() == 2.0
    steps = list(backward_steps(loss))
    assert [s.op for s in steps] == ["div", "sum", "pow", "add", "matmul", "transpose", "relu",
                                     "add", "matmul", "transpose"]
    relu = steps[6]
    assert relu.gy.tolist() == [2, 0, 2, 0] and relu.grads[0].tolist() == [2, 0, 2, 0]
    grads = {name: p.grad.tolist() for name, p in ffn.named_parameters()}
    assert grads == {"w1.weight": [[2, 0], [0, 0], [2, 0], [0, 0]], "w1.bias": [2, 0, 2, 0],
                     "w2.weight": [[2, 0, 2, 0], [0, 0, 0, 0]], "w2.bias": [2, 0]}


def test_the_seed_example_removes_the_hooks_that_caught_a_and_h():
    ffn, x, *_ = seed_example()
    later = ffn.w1(x)                       # a hook left on w1 would keep this one too
    kept = weakref.ref(later)
    del later
    assert kept() is None


def test_describe_names_tensors_and_modules():
    *_, loss = seed_example()
    text = [s.describe() for s in backward_steps(loss)]
    assert text[0].splitlines() == ["step 0: div",
                                    "  dL/d(out) arrives at its output L = ½ Σ y² (): 1",
                                    "  input 0, sum output (), gets dL/d(in) = 0.5",
                                    "  input 1, constant 2 (): needs no gradient"]
    assert text[3].splitlines() == ["step 3: add   (in FFN › w2: Linear › linear)",
                                    "  dL/d(out) arrives at its output y (2,): [2, 0]",
                                    "  input 0, matmul output (2,), gets dL/d(in) = [2, 0]",
                                    "  input 1, w2.bias (2,), gets dL/d(in) = [2, 0]"]
    # the FFN's tensors by their names; an op's own output and inputs are out and in
    assert "  input 0, y (2,), gets dL/d(in) = [2, 0]" in text[2]
    assert text[6].splitlines()[1:] == ["  dL/d(out) arrives at its output h (4,): [2, 0, 2, 0]",
                                        "  input 0, a (4,), gets dL/d(in) = [2, 0, 2, 0]"]
    assert "  input 0, x (2,): needs no gradient" in text[8]
    assert "  dL/d(out) arrives at its output (4,): [2, 0, 2, 0]" in text[8]   # unnamed


def test_describe_says_where_broadcasting_is_summed():
    _, loss = ffn_loss("relu")
    add = next(s for s in backward_steps(loss) if s.op == "add" and "w2" in s.where)
    assert "w2.bias (3,), gets dL/d(in) = [" in add.describe()
    assert add.describe().endswith("(summed over axes (0,))")


def test_describe_says_where_the_where_op_sums_its_broadcast_inputs():
    c = tinyffn.tensor([[True, False, True], [False, True, True]])
    x = tinyffn.tensor([1.0, 2.0, 3.0], requires_grad=True)                # (3,): each row
    w = tinyffn.tensor([[10.0], [20.0]], requires_grad=True)               # (2, 1): each column
    where = list(backward_steps(tinyffn.where(c, x, w).sum()))[1]
    assert where.describe().splitlines()[2:] == [
        "  input 0, input (2, 3): needs no gradient",
        "  input 1, input (3,), gets dL/d(in) = [1, 1, 2]  (summed over axes (0,))",
        "  input 2, input (2, 1), gets dL/d(in) = [[1], [1]]  (summed over axes (1,))"]


def test_a_non_scalar_output_takes_its_gradient():
    x = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    steps = list(backward_steps(y, grad=tinyffn.tensor([1.0, 10.0])))
    assert len(steps) == 1 and steps[0].gy.tolist() == [1, 10]
    assert x.grad.tolist() == [2, 40]                       # x * x draws x twice: 2 x gy


def test_steps_and_drawings_on_every_backend(device):
    tinyffn.manual_seed(0)
    ffn = nn.FFN(2, 4, activation="gelu", device=device)
    x = tinyffn.randn(3, 2, device=device)
    loss = (ffn(x) ** 2).sum()
    texts = [s.describe() for s in backward_steps(loss, retain_graph=True)]
    assert texts[-1].startswith("step 12: transpose") and "w1.weight" in texts[-1]
    dot = tinyffn.to_dot(loss, show_values=True, show_grads=True)
    assert "grad [[" in dot and "Σ over axes (0,)" in dot
    # the dtype line names a device other than the CPU: "float32 strict", "float32 cuda"
    on = "" if device == "cpu" else f" {device}"
    assert f'label="()\\nfloat32{on}"' in tinyffn.to_dot(loss, show_dtypes=True)


def test_describe_calls_a_named_intermediate_by_its_name():
    x = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    h = x.exp()
    h.name = "h"
    step = next(iter(backward_steps(h.sum())))
    assert "  input 0, h (2,), gets dL/d(in) = [1, 1]" in step.describe().splitlines()
    step = next(iter(backward_steps(x.exp().sum())))       # unnamed, and no longer held
    assert "  input 0, exp output (2,), gets dL/d(in) = [1, 1]" in step.describe().splitlines()


@pytest.mark.parametrize("stepper", [backward_steps, tinyffn.iter_backward])
def test_retain_graph_keeps_the_graph_for_another_backward(stepper):
    x = tinyffn.tensor([1.0, 2.0], requires_grad=True)
    loss = (x * x).sum()
    for _ in stepper(loss, retain_graph=True):
        pass
    loss.backward()                                         # the saved arrays are still there
    assert x.grad.tolist() == [4.0, 8.0]                    # 2x, twice
    freed = (x * x).sum()
    for _ in stepper(freed):                                # as backward(): frees by default
        pass
    with pytest.raises(RuntimeError, match="second time"):
        freed.backward()


def test_a_step_names_its_op_and_output_as_the_drawing_of_that_step_does():
    """Each step's first line is the op as its lit node in ``to_dot(highlight=node)``
    reads (``pow p=2``, ``transpose axes=(1, 0)``, ``getitem key=[...]``), and the output
    it names is the lit box's name, so a learner can put the printout beside the frames."""
    from tinyffn.__main__ import named_forward
    tinyffn.manual_seed(0)
    x = tinyffn.randn(3, 4)
    x.name = "x"
    a, h, y = named_forward(nn.FFN(4, 6, activation="gelu"), x)
    loss = (y[1:] ** 2).sum() / 2                           # a getitem, with a key
    heads = []
    for step in backward_steps(loss, retain_graph=True):
        dot = tinyffn.to_dot(loss, highlight=step.node)
        lit = dict(re.findall(r'label="([^"]*)" shape=(\w+)[^\n]*penwidth=3', dot))
        (op,) = [label for label, shape in lit.items() if shape == "ellipse"]
        (out,) = [label.split("\\n")[0] for label, shape in lit.items() if shape == "box"]
        head = step.describe().splitlines()[0]
        assert head.split("   (in ")[0] == f"step {step.index}: " + op.replace("\\n", " ")
        name = step.node.output.name if step.node.output is not None else None
        assert (name or "") == ("" if out.startswith("(") else out)
        heads.append(head.split("   (in ")[0].split(": ", 1)[1])
    assert heads[:4] == ["div", "sum", "pow p=2", "getitem key=[1:]"]
    assert heads.count("transpose axes=(1, 0)") == 2 and "erf" in heads


def test_a_step_says_where_a_checkpointed_block_ran_its_forward_again():
    """The first step inside a checkpoint whose backward reads saved arrays (w2's matmul:
    the add of b2 before it saves nothing) is where the block reruns; each block once."""
    from tinyffn.utils.checkpoint import checkpoint
    tinyffn.manual_seed(0)
    blocks = [nn.FFN(3, 5) for _ in range(2)]
    x = tinyffn.randn(2, 3, requires_grad=True)

    def loss_of(checkpointed):
        h = x
        for block in blocks:
            h = h + (checkpoint(block, h, use_reentrant=False) if checkpointed else block(h))
        return (h ** 2).sum()

    plain = [s.describe() for s in backward_steps(loss_of(False))]
    loss = loss_of(True)
    steps = [(s.op, s.where, s.reran, s.describe())
             for s in backward_steps(loss, retain_graph=True)]
    reran = [(op, where) for op, where, flag, _ in steps if flag]
    assert reran == [("matmul", "checkpoint › FFN1: FFN › FFN1.w2: Linear › linear"),
                     ("matmul", "checkpoint › FFN0: FFN › FFN0.w2: Linear › linear")]
    said = [text for *_, text in steps if "ran again" in text]
    assert len(said) == 2 and said[0].splitlines()[2:4] == [
        "  (checkpoint: the block's saved arrays, dropped after forward, were needed here:",
        "   the block's forward ran again to recompute them)"]
    assert not any("checkpoint" in text for text in plain)
    assert len(steps) == len(plain)                     # the same walk, the same nodes
    assert not any(s.reran for s in backward_steps(loss))   # refilled, kept: no third run


def test_a_parameter_is_called_by_its_path_in_words_as_in_the_drawing():
    """naming.py's promise, the same words in a picture and a sentence: a parameter given
    a name of its own is still w2.bias in both (its path says where it lives)."""
    ffn, *_, loss = seed_example()
    ffn.w2.bias.name = "b2"
    add = list(backward_steps(loss, retain_graph=True))[3]
    assert add.describe().splitlines()[-1] == "  input 1, w2.bias (2,), gets dL/d(in) = [2, 0]"
    dot = tinyffn.to_dot(loss)
    assert 'label="w2.bias\\n(2,)"' in dot and 'label="b2' not in dot
