"""F.ctc_loss and nn.CTCLoss (tinyffn/ctc.py).

References: every frame-level path enumerated by brute force (C^T of them), collapsed and
summed; finite differences (gradcheck) with respect to log_probs on every device;
PyTorch 2.13 live where installed (values for every reduction, padded and concatenated
targets, empty targets, impossible ones with and without zero_infinity, one example, and
gradients through log_softmax); the errors.
"""
import itertools
import math

import numpy as np
import pytest

import tinyffn
import tinyffn.functional as F
from tinyffn import nn
from tinyffn.backend import dtype_name

rng = np.random.default_rng(0)
LOGITS = rng.standard_normal((6, 3, 4))                 # (T, N, C), blank = 0
TARGETS = np.array([[1, 2, 2], [3, 1, 0], [2, 0, 0]])   # padded; lengths below
TARGET_LENGTHS, INPUT_LENGTHS = [3, 2, 1], [6, 5, 3]


def _log_softmax(x):
    return x - np.log(np.exp(x).sum(axis=-1, keepdims=True))


def _brute_force(lp, target, blank=0):
    """-log Σ over every path of len(lp) frames that reads as target (repeats merged,
    then blanks dropped) of the product of its frames' probabilities."""
    total = 0.0
    for path in itertools.product(range(lp.shape[1]), repeat=lp.shape[0]):
        merged = [c for i, c in enumerate(path) if i == 0 or c != path[i - 1]]
        if [c for c in merged if c != blank] == list(target):
            total += math.exp(sum(lp[t, c] for t, c in enumerate(path)))
    return -math.log(total) if total else math.inf


def test_each_loss_is_the_sum_over_all_paths_by_brute_force(device):
    lp = _log_softmax(LOGITS)
    got = F.ctc_loss(tinyffn.tensor(lp, device=device), tinyffn.tensor(TARGETS, device=device),
                     INPUT_LENGTHS, TARGET_LENGTHS, reduction="none").numpy()
    want = [_brute_force(lp[:INPUT_LENGTHS[n], n], TARGETS[n, :TARGET_LENGTHS[n]])
            for n in range(3)]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    # a repeated symbol needs a blank between its copies: "22" cannot fit in 2 frames
    short = F.ctc_loss(tinyffn.tensor(lp[:, :1]), tinyffn.tensor([[2, 2]]), [2], [2],
                       reduction="none")
    assert short.tolist() == [math.inf] == [_brute_force(lp[:2, 0], [2, 2])]


def test_empty_targets_no_frames_another_blank_and_one_example_by_brute_force(device):
    """An empty target (the all-blank path); an input of no frames (the empty path: loss
    0 for an empty target, inf for any other; frame 0 was once read anyway); blank=3; one
    unbatched example, whose reduction='none' loss is 0-d, as PyTorch's."""
    lp = _log_softmax(LOGITS[:4])                                      # (4, 3, 4)
    t = lambda a: tinyffn.tensor(a, device=device)                     # noqa: E731
    got = F.ctc_loss(t(lp), t([[1, 2], [3, 1], [2, 2]]), [4, 0, 0], [0, 0, 1],
                     reduction="none")
    np.testing.assert_allclose(got.numpy(), [_brute_force(lp[:, 0], []), 0.0, math.inf],
                               rtol=1e-12)
    targets, lengths = [[1, 2], [0, 0], [2, 0]], [4, 3, 4]
    got = F.ctc_loss(t(lp), t(targets), lengths, [2, 2, 1], blank=3, reduction="none")
    want = [_brute_force(lp[:n, i], targets[i][:k], blank=3)
            for i, (n, k) in enumerate(zip(lengths, [2, 2, 1]))]
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    one = F.ctc_loss(t(lp[:, 0]), t([1, 2]), 4, 2, reduction="none")
    assert one.shape == () and abs(one.item() - _brute_force(lp[:, 0], [1, 2])) < 1e-12


def test_float32_log_probs_give_a_float32_loss_and_gradient(device):
    lp = tinyffn.tensor(_log_softmax(LOGITS).astype(np.float32), device=device,
                        requires_grad=True)
    for reduction in ("mean", "sum", "none"):
        loss = F.ctc_loss(lp, tinyffn.tensor(TARGETS, device=device), INPUT_LENGTHS,
                          TARGET_LENGTHS, reduction=reduction)
        loss.sum().backward()
        assert dtype_name(loss.dtype) == dtype_name(lp.grad.dtype) == "float32"
        lp.grad = None


def test_reductions_concatenated_targets_and_zero_infinity():
    lp = tinyffn.tensor(_log_softmax(LOGITS))
    none = F.ctc_loss(lp, tinyffn.tensor(TARGETS), INPUT_LENGTHS, TARGET_LENGTHS,
                      reduction="none").numpy()
    flat = tinyffn.tensor([1, 2, 2, 3, 1, 2])       # the three targets one after another
    assert F.ctc_loss(lp, flat, INPUT_LENGTHS, TARGET_LENGTHS, reduction="none").tolist() \
        == none.tolist()
    mean = F.ctc_loss(lp, tinyffn.tensor(TARGETS), tinyffn.tensor(INPUT_LENGTHS),
                      tinyffn.tensor(TARGET_LENGTHS))
    assert abs(mean.item() - (none / TARGET_LENGTHS).mean()) < 1e-13
    y = tinyffn.tensor(_log_softmax(LOGITS), requires_grad=True)
    loss = F.ctc_loss(y, tinyffn.tensor(TARGETS), [6, 1, 3], TARGET_LENGTHS,
                      reduction="sum", zero_infinity=True)   # example 1: 2 symbols, 1 frame
    loss.backward()
    assert abs(loss.item() - (none[0] + none[2])) < 1e-12
    assert not y.grad.numpy()[:, 1].any()              # the impossible one gets no gradient


def test_gradcheck(device):
    y = tinyffn.tensor(_log_softmax(LOGITS[:4, :2]), device=device, requires_grad=True)
    targets = tinyffn.tensor(TARGETS[:2, :2], device=device)
    assert tinyffn.gradcheck(lambda y: F.ctc_loss(y, targets, [4, 3], [2, 0]), [y])


def test_a_model_learns_to_spell():
    """A per-frame linear classifier learns to emit "1 2 1" over 6 frames from fixed
    inputs: the loss falls and greedy decoding (argmax, merge, drop blanks) reads it."""
    tinyffn.manual_seed(0)
    x = tinyffn.tensor(rng.standard_normal((6, 1, 5)))
    layer = nn.Linear(5, 3, dtype="float64")
    opt = tinyffn.optim.Adam(layer.parameters(), lr=0.1)
    loss_fn = nn.CTCLoss()
    for _ in range(50):
        opt.zero_grad()
        loss = loss_fn(F.log_softmax(layer(x), dim=-1), tinyffn.tensor([[1, 2, 1]]), [6], [3])
        loss.backward()
        opt.step()
    best = layer(x).argmax(dim=-1)[:, 0].tolist()
    merged = [c for i, c in enumerate(best) if i == 0 or c != best[i - 1]]
    assert [c for c in merged if c != 0] == [1, 2, 1] and loss.item() < 0.1


def test_as_pytorchs():
    torch = pytest.importorskip("torch")
    cases = [dict(reduction=r) for r in ("none", "mean", "sum")] + [
        dict(reduction="none", input_lengths=[2, 5, 3]),
        dict(reduction="none", input_lengths=[2, 5, 3], zero_infinity=True),
        dict(reduction="mean", target_lengths=[0, 2, 1]), dict(blank=3, reduction="none")]
    for kw in cases:
        il, tl = kw.pop("input_lengths", INPUT_LENGTHS), kw.pop("target_lengths", TARGET_LENGTHS)
        targets = TARGETS if kw.get("blank") != 3 else np.where(TARGETS == 3, 1, TARGETS)
        out = []
        for m, f in ((tinyffn, F), (torch, torch.nn.functional)):
            logits = m.tensor(LOGITS, requires_grad=True)
            loss = f.ctc_loss(f.log_softmax(logits, 2), m.tensor(targets), m.tensor(il),
                              m.tensor(tl), **kw)
            loss.sum().backward() if math.isfinite(loss.sum().item()) else None
            out.append((loss.detach().numpy(), logits.grad))
        np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-12, err_msg=str(kw))
        if out[1][1] is not None:
            np.testing.assert_allclose(out[0][1].numpy(), out[1][1].numpy(), atol=1e-12)
    one = [f.ctc_loss(f.log_softmax(m.tensor(LOGITS[:, 0]), 1), m.tensor(TARGETS[0]),
                      m.tensor(6), m.tensor(3)).item()
           for m, f in ((tinyffn, F), (torch, torch.nn.functional))]
    assert abs(one[0] - one[1]) < 1e-12
    assert repr(nn.CTCLoss()) == repr(torch.nn.CTCLoss()) == "CTCLoss()"
    # with respect to log_probs themselves, PyTorch's gradient is ours plus exp(log_probs)
    # within each input's frames (a term a log_softmax before it cancels); ours is gradcheck's
    lp = _log_softmax(LOGITS)
    grads = []
    for m, f in ((tinyffn, F), (torch, torch.nn.functional)):
        y = m.tensor(lp, requires_grad=True)
        f.ctc_loss(y, m.tensor(TARGETS), m.tensor(INPUT_LENGTHS), m.tensor(TARGET_LENGTHS),
                   reduction="sum").backward()
        grads.append(y.grad.numpy())
    within = np.arange(6)[:, None, None] < np.array(INPUT_LENGTHS)[None, :, None]
    np.testing.assert_allclose(grads[1] - grads[0], np.where(within, np.exp(lp), 0), atol=1e-12)


@pytest.mark.parametrize("call, error, match", [
    ("F.ctc_loss(lp, t, [6, 5], [3, 2, 1])", ValueError,
     r"input_lengths must be 3 non-negative ints"),
    ("F.ctc_loss(lp, t, [7, 5, 3], [3, 2, 1])", ValueError, "exceed the T = 6 frames"),
    ("F.ctc_loss(lp, t, [6, 5, 3], [4, 2, 1])", ValueError, "at least as long as its"),
    ("F.ctc_loss(lp, t * 0, [6, 5, 3], [3, 2, 1])", ValueError,
     r"target labels must be classes in \[0, 4\) other than blank=0"),
    ("F.ctc_loss(lp, t, [6, 5, 3], [3, 2, 1], blank=4)", ValueError, r"blank must be a class"),
    ("F.ctc_loss(lp, tinyffn.tensor([1, 2]), [6, 5, 3], [3, 2, 1])", ValueError,
     r"must be \(N, S\) padded, or 1-D holding sum\(target_lengths\) = 6"),
    ("F.ctc_loss(lp.half(), t, [6, 5, 3], [3, 2, 1])", TypeError, "float32 or float64"),
    ("F.ctc_loss(lp, t, [6, 5, 3], [3, 2, 1], reduction='avg')", ValueError, "reduction"),
])
def test_errors(call, error, match):
    names = {"F": F, "tinyffn": tinyffn, "lp": tinyffn.tensor(_log_softmax(LOGITS)),
             "t": tinyffn.tensor(TARGETS)}
    with pytest.raises(error, match=match):
        eval(call, {}, names)
