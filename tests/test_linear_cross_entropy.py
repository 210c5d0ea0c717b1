"""F.linear_cross_entropy and nn.LinearCrossEntropyLoss (tinyffn/linear_cross_entropy.py),
PyTorch 2.13's names, which raised AttributeError.

References: log-softmax and the pick written in NumPy (classes on axis 1, PyTorch's
layout), gradcheck, and torch live where installed (values, gradients, repr, state keys).
"""
import numpy as np
import pytest

import tinyffn
from tinyffn import functional as F
from tinyffn import nn

rng = np.random.default_rng(0)


def _numpy_loss(x, w, b, target, ignore_index=-100):
    """Per-position losses, PyTorch's layout: logits (N, C, *extra), target (N, *extra)."""
    logits = np.einsum("ni,c...i->nc...", x, w) + (0 if b is None else b[None])
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    safe = np.where(target == ignore_index, 0, target)
    picked = -np.take_along_axis(logp, safe[:, None], axis=1)[:, 0]
    return np.where(target == ignore_index, 0.0, picked)


def test_values_are_the_composition_written_out(device):
    x, w, b = rng.normal(size=(4, 5)), rng.normal(size=(6, 3, 5)), rng.normal(size=(6, 3))
    target = rng.integers(0, 6, size=(4, 3))
    target[0, 1] = 2
    t = {k: tinyffn.tensor(v, dtype="float64", device=device) for k, v in
         (("x", x), ("w", w), ("b", b))}
    tt = tinyffn.tensor(target, device=device)
    each = _numpy_loss(x, w, b, target, ignore_index=2)
    got = F.linear_cross_entropy(t["x"], t["w"], tt, linear_bias=t["b"], reduction="none",
                                 ignore_index=2)
    assert got.shape == (4, 3)
    np.testing.assert_allclose(got.numpy(), each, rtol=1e-12)
    mean = F.linear_cross_entropy(t["x"], t["w"], tt, linear_bias=t["b"], ignore_index=2)
    np.testing.assert_allclose(mean.item(), each.sum() / (target != 2).sum(), rtol=1e-12)
    plain = F.linear_cross_entropy(t["x"], t["w"][:, 0], tt[:, 0], reduction="sum")
    np.testing.assert_allclose(plain.item(), _numpy_loss(x, w[:, 0], None, target[:, 0]).sum(),
                               rtol=1e-12)
    one = F.linear_cross_entropy(t["x"][0], t["w"][:, 0], tt[0, 0])     # unbatched
    np.testing.assert_allclose(one.item(), _numpy_loss(x[:1], w[:, 0], None, target[:1, 0])[0],
                               rtol=1e-12)


def test_gradcheck_k_dimensional_with_probabilities():
    x, w, b = (tinyffn.tensor(rng.normal(size=s), dtype="float64", requires_grad=True)
               for s in ((3, 4), (5, 2, 4), (5, 2)))
    p = rng.uniform(size=(3, 5, 2))
    p = tinyffn.tensor(p / p.sum(1, keepdims=True), dtype="float64")
    assert tinyffn.gradcheck(lambda x, w, b: F.linear_cross_entropy(
        x, w, p, linear_bias=b, label_smoothing=0.2), (x, w, b))


def _saved_shapes(loss):
    """The shapes of the arrays the graph behind ``loss`` keeps for backward."""
    seen, stack, shapes = set(), [loss.grad_fn], []
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        shapes += [tuple(a.shape) for a in node._saved if hasattr(a, "shape")]
        stack += [p for p in node.parents if not isinstance(p, tinyffn.Tensor)]
    return shapes


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_chunks_give_the_reference_values_without_holding_the_logits(reduction, device):
    x, w, b = (tinyffn.tensor(rng.normal(size=s), dtype="float64", device=device,
                              requires_grad=True) for s in ((7, 4), (30, 4), (30,)))
    target = rng.integers(0, 30, size=7)
    target[2] = -100
    cw = tinyffn.tensor(rng.uniform(0.5, 2.0, size=30), dtype="float64", device=device)
    results = []
    for options in (None, nn.LinearCrossEntropyOptions(batch_chunk_size=3),
                    nn.LinearCrossEntropyOptions()):          # 'auto': 7 · 4 // 30 = 1 row
        loss = F.linear_cross_entropy(x, w, tinyffn.tensor(target, device=device),
                                      linear_bias=b, weight=cw, reduction=reduction,
                                      options=options)
        held = [s[0] for s in _saved_shapes(loss) if len(s) == 2 and s[1] == 30]
        assert (7 in held) if options is None else not held   # (N, C) logits, or none
        g = np.arange(1.0, loss.numel() + 1).reshape(loss.shape)
        (loss * tinyffn.tensor(g, device=device)).sum().backward()
        results.append([loss.numpy()] + [t.grad.numpy() for t in (x, w, b)])
        for t in (x, w, b):
            t.grad = None
    for other in results[1:]:
        for got, want in zip(other, results[0]):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    with pytest.warns(UserWarning, match="``options`` ignored"):
        F.linear_cross_entropy(x, w, tinyffn.tensor(target, device=device), label_smoothing=0.1,
                               options=nn.LinearCrossEntropyOptions())


@pytest.mark.parametrize("call, error, message", [
    (lambda d: F.linear_cross_entropy(tinyffn.ones(2, 3, device=d), tinyffn.ones(4, 3, device=d),
                                      tinyffn.tensor([0, 1], device=d), options=object()),
     TypeError, "LinearCrossEntropyOptions"),
    (lambda d: nn.LinearCrossEntropyOptions(batch_chunk_size=0), ValueError,
     "batch_chunk_size must be positive"),
    (lambda d: nn.LinearCrossEntropyOptions(acc_policy="fast"), ValueError, "invalid acc_policy"),
    (lambda d: F.linear_cross_entropy(tinyffn.ones(2, 2, 3, device=d),
                                      tinyffn.ones(4, 3, device=d), tinyffn.tensor([0, 1])),
     ValueError, "expected input of shape"),
    (lambda d: F.linear_cross_entropy(tinyffn.ones(2, 3, device=d), tinyffn.ones(4, 2, device=d),
                                      tinyffn.tensor([0, 1], device=d)), ValueError,
     "in_features = 3"),
    (lambda d: F.linear_cross_entropy(tinyffn.ones(2, 3, device=d), tinyffn.ones(4, 3, device=d),
                                      tinyffn.tensor([0, 1], device=d),
                                      linear_bias=tinyffn.ones(3, device=d)), ValueError,
     r"linear_bias of shape \(4,\)"),
    (lambda d: F.linear_cross_entropy(tinyffn.ones(3, device=d), tinyffn.ones(4, 2, 3, device=d),
                                      tinyffn.tensor([0, 1], device=d)), ValueError,
     "needs batched input"),
    (lambda d: F.linear_cross_entropy(tinyffn.ones(2, 3, device=d), tinyffn.ones(4, 3, device=d),
                                      tinyffn.ones(2, 4, device=d) / 4, ignore_index=0),
     ValueError, "ignore_index cannot be given"),
    (lambda d: nn.LinearCrossEntropyLoss(3, 4, weight=tinyffn.ones(3, device=d)), ValueError,
     r"weight of shape \(4,\)"),
    (lambda d: nn.LinearCrossEntropyLoss(3, 4, options={}), TypeError,
     "LinearCrossEntropyOptions"),
])
def test_what_pytorch_refuses_is_refused_by_name(call, error, message, device):
    with pytest.raises(error, match=message):
        call(device)


def test_live_against_torch():
    torch = pytest.importorskip("torch")
    TF = torch.nn.functional
    x, w, b = rng.normal(size=(4, 5)), rng.normal(size=(6, 3, 5)), rng.normal(size=(6, 3))
    target = rng.integers(0, 6, size=(4, 3))
    probs = rng.uniform(size=(4, 6, 3))
    probs /= probs.sum(1, keepdims=True)
    cw = rng.uniform(0.5, 2.0, size=6)
    for case in ({"reduction": "none"}, {"ignore_index": 1, "weight": cw},
                 {"label_smoothing": 0.3, "reduction": "sum", "bias": True},
                 {"probs": True, "bias": True}, {"flat": True, "weight": cw}):
        ours = [tinyffn.tensor(a, requires_grad=True) for a in (x, w, b)]
        theirs = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
        kw = {k: v for k, v in case.items() if k not in ("bias", "probs", "flat", "weight")}
        tgt = probs if case.get("probs") else target
        def run(lib, M, xwb):
            ww, tg = (xwb[1][:, 0], tgt[:, 0]) if case.get("flat") else (xwb[1], tgt)
            extra = {"weight": lib.tensor(case["weight"])} if "weight" in case else {}
            return M.linear_cross_entropy(xwb[0], ww, lib.tensor(tg), **kw, **extra,
                                          linear_bias=xwb[2] if case.get("bias") else None)
        o, t = run(tinyffn, F, ours), run(torch, TF, theirs)
        np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=1e-12)
        g = rng.normal(size=tuple(t.shape))
        (o * tinyffn.tensor(g)).sum().backward()
        (t * torch.tensor(g)).sum().backward()
        for a, c in zip(ours, theirs):
            if c.grad is not None:
                np.testing.assert_allclose(a.grad.numpy(), c.grad.numpy(), rtol=1e-11,
                                           atol=1e-14)
    m = nn.LinearCrossEntropyLoss(5, 6, out_features=(3,), bias=True, label_smoothing=0.1)
    tm = torch.nn.LinearCrossEntropyLoss(5, 6, out_features=(3,), bias=True,
                                         label_smoothing=0.1).double()
    assert repr(m) == repr(tm)
    m.load_state_dict({k: v.numpy() for k, v in tm.state_dict().items()})
    np.testing.assert_allclose(m(tinyffn.tensor(x), tinyffn.tensor(target)).item(),
                               tm(torch.tensor(x), torch.tensor(target)).item(), rtol=1e-6)
    x1 = [tinyffn.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)]
    w1 = [tinyffn.tensor(w[:, 0], requires_grad=True), torch.tensor(w[:, 0], requires_grad=True)]
    o = F.linear_cross_entropy(x1[0], w1[0], tinyffn.tensor(target[:, 0]), reduction="sum",
                               options=nn.LinearCrossEntropyOptions(batch_chunk_size=3))
    # torch's reference path: its chunked one equals it, but its first call takes seconds
    t = TF.linear_cross_entropy(x1[1], w1[1], torch.tensor(target[:, 0]), reduction="sum")
    o.backward()
    t.backward()
    np.testing.assert_allclose(o.item(), t.item(), rtol=1e-12)
    for a, c in zip((x1[0], w1[0]), (x1[1], w1[1])):
        np.testing.assert_allclose(a.grad.numpy(), c.grad.numpy(), rtol=1e-11)
    opts = nn.LinearCrossEntropyOptions(batch_chunk_size=4, acc_policy="compact")
    assert repr(opts) == repr(torch.nn.LinearCrossEntropyOptions(batch_chunk_size=4,
                                                                 acc_policy="compact"))
    assert list(nn.LinearCrossEntropyLoss(5, 6, weight=tinyffn.ones(6)).state_dict()) == \
        list(torch.nn.LinearCrossEntropyLoss(5, 6, weight=torch.ones(6)).state_dict())
