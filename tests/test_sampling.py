"""randperm and multinomial (tinyffn/sampling.py), empty and as_tensor (creation.py).

The draws come from tinyffn's generator, not PyTorch's, so the indices differ from
torch's by design; what must agree is their distribution. References: exact
probabilities written out (for a draw without replacement, P(second = j) =
Σ_i p_i p_j / (1 - p_i)), frequencies of many of PyTorch's own draws where torch is
installed, and PyTorch's errors for the same bad inputs.
"""
import types

import numpy as np
import pytest

import tinyffn
from tinyffn.backend import dtype_name

P = [0.5, 0.3, 0.2, 0.0]


def second_draw(p):
    """P(the second index drawn without replacement is j), for weights p summing to 1."""
    p = np.asarray(p)
    return np.array([sum(p[i] * p[j] / (1 - p[i]) for i in range(len(p)) if i != j)
                     for j in range(len(p))])


def frequencies(indices, n):
    return np.bincount(np.asarray(indices).ravel(), minlength=n) / np.asarray(indices).size


# ----------------------------------------------------------------------------- randperm
def test_randperm_is_a_permutation_from_the_seeded_generator(device):
    tinyffn.manual_seed(3)
    a = tinyffn.randperm(50, device=device)
    tinyffn.manual_seed(3)
    b = tinyffn.randperm(50)
    assert a.device == device and dtype_name(a.dtype) == "int64"
    assert sorted(a.tolist()) == list(range(50))
    assert a.tolist() == b.tolist() != list(range(50))     # the same seed, any device
    assert tinyffn.randperm(0).shape == (0,)
    f = tinyffn.randperm(4, dtype="float32")
    assert dtype_name(f.dtype) == "float32" and sorted(f.tolist()) == [0.0, 1.0, 2.0, 3.0]


def test_randperm_orders_are_uniform():
    """Each of the 6 orders of 3 indices about equally often (torch's too)."""
    counts = {}
    for _ in range(3000):
        key = tuple(tinyffn.randperm(3).tolist())
        counts[key] = counts.get(key, 0) + 1
    assert len(counts) == 6 and all(abs(c / 3000 - 1 / 6) < 0.03 for c in counts.values())


@pytest.mark.parametrize("call, error, match", [
    (lambda: tinyffn.randperm(-1), ValueError, "n must be an integer >= 0"),
    (lambda: tinyffn.randperm(3.0), TypeError, "n must be an integer >= 0"),
    (lambda: tinyffn.randperm(3, dtype="bool"), TypeError, "no bool form"),
    (lambda: tinyffn.randperm(300, dtype="uint8"), ValueError, "does not fit in uint8"),
    # torch 2.13: "n cannot be greater than 2049 for Half type"; it once gave 3000 numbers
    # with 2525 distinct, no permutation at all
    (lambda: tinyffn.randperm(2050, dtype="float16"), ValueError,
     r"n=2050 is too large for float16, whose integers are exact only up to 2048"),
    (lambda: tinyffn.randperm(2 ** 24 + 2, dtype="float32"), ValueError,
     r"PyTorch refuses n > 16777217 too"),
])
def test_randperm_refuses_what_pytorch_refuses(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_randperm_in_a_float_dtype_is_a_permutation_up_to_pytorchs_limit():
    assert sorted(tinyffn.randperm(2049, dtype="float16").tolist()) == list(range(2049))


# ----------------------------------------------------------------------------- multinomial
def test_multinomial_with_replacement_draws_by_the_weights(device):
    probs = tinyffn.tensor([[1.0, 3.0, 0.0, 6.0], P], device=device)   # rows need not sum to 1
    drawn = probs.multinomial(20000, replacement=True)
    assert drawn.shape == (2, 20000) and dtype_name(drawn.dtype) == "int64"
    assert drawn.device == device and not drawn.requires_grad
    np.testing.assert_allclose(frequencies(drawn[0].numpy(), 4), [0.1, 0.3, 0.0, 0.6], atol=0.015)
    np.testing.assert_allclose(frequencies(drawn[1].numpy(), 4), P, atol=0.015)


def test_multinomial_without_replacement_draws_distinct_indices_in_order_of_weight(device):
    """The first draw by p, the second by the weights left: exact probabilities."""
    probs = tinyffn.tensor([P] * 20000, dtype="float64", device=device)
    drawn = tinyffn.multinomial(probs, 3).numpy()
    assert drawn.shape == (20000, 3)
    assert all(len(set(row)) == 3 and 3 not in row for row in drawn.tolist())
    np.testing.assert_allclose(frequencies(drawn[:, 0], 4), P, atol=0.015)
    np.testing.assert_allclose(second_draw(P), [0.3392857, 0.375, 0.2857143, 0.0], atol=1e-6)
    np.testing.assert_allclose(frequencies(drawn[:, 1], 4), second_draw(P), atol=0.015)


def test_multinomial_frequencies_match_pytorchs():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    theirs = torch.multinomial(torch.tensor([P] * 20000, dtype=torch.float64), 2).numpy()
    ours = tinyffn.multinomial(tinyffn.tensor([P] * 20000, dtype="float64"), 2).numpy()
    for k in range(2):
        np.testing.assert_allclose(frequencies(ours[:, k], 4), frequencies(theirs[:, k], 4),
                                   atol=0.02)


def test_zero_weights_come_last_without_replacement_as_in_pytorch():
    """torch.multinomial([1, 0], 2) is [0, 1]: once the positive weights are drawn, the
    zero ones follow (here in the order of their indices)."""
    assert tinyffn.multinomial(tinyffn.tensor([1.0, 0.0]), 2).tolist() == [0, 1]
    assert tinyffn.multinomial(tinyffn.tensor([0.0, 0.0, 2.0]), 3).tolist() == [2, 0, 1]
    assert set(tinyffn.multinomial(tinyffn.tensor([0.0, 1.0]), 50, True).tolist()) == {1}


def test_multinomial_is_seeded_and_a_vector_gives_a_vector(device):
    tinyffn.manual_seed(7)
    a = tinyffn.tensor(P, device=device).multinomial(2)
    tinyffn.manual_seed(7)
    b = tinyffn.multinomial(tinyffn.tensor(P), 2)
    assert a.shape == (2,) and a.tolist() == b.tolist()
    assert tinyffn.multinomial(tinyffn.zeros(0, 3), 2).shape == (0, 2)


BAD = [
    ("[0.5, -0.1]", 1, False, ValueError, "inf, NaN or an entry < 0"),
    ("[1.0, float('nan')]", 1, False, ValueError, "inf, NaN or an entry < 0"),
    ("[1.0, float('inf')]", 1, False, ValueError, "inf, NaN or an entry < 0"),
    ("[0.0, 0.0]", 1, False, ValueError, "row 0 of the weights adds up to 0"),
    ("[[1.0, 0.0], [0.0, 0.0]]", 1, True, ValueError, "row 1 of the weights adds up to 0"),
    ("[1.0, 2.0]", 3, False, ValueError, "cannot draw 3 distinct indices out of 2"),
    ("[1.0, 2.0]", 0, False, ValueError, "num_samples must be an integer > 0"),
    ("[1, 2]", 1, False, TypeError, "floating-point weights, got dtype int64"),
    ("1.0", 1, False, ValueError, "must be 1-D .* or 2-D"),
    ("[[[1.0]]]", 1, False, ValueError, "must be 1-D .* or 2-D"),
]


@pytest.mark.parametrize("values, k, replacement, error, match", BAD)
def test_multinomial_refuses_what_pytorch_refuses(values, k, replacement, error, match):
    with pytest.raises(error, match=match):
        tinyffn.multinomial(tinyffn.tensor(eval(values)), k, replacement)


@pytest.mark.parametrize("values, k, replacement, error, match", BAD)
def test_pytorch_refuses_the_same_inputs(values, k, replacement, error, match):
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        torch.multinomial(torch.tensor(eval(values)), k, replacement)


# ----------------------------------------------------------------------------- empty, as_tensor
def test_empty_is_zeros_of_the_shape_and_dtype_asked_for(device):
    e = tinyffn.empty(2, 3, dtype="float64", device=device, requires_grad=True)
    assert e.shape == (2, 3) and dtype_name(e.dtype) == "float64" and e.requires_grad
    assert e.tolist() == [[0.0] * 3] * 2 and e.device == device
    assert tinyffn.empty(size=(4,)).shape == (4,) and dtype_name(tinyffn.empty(1).dtype) == "float32"


def test_as_tensor_returns_a_tensor_itself_or_casts_it_in_the_graph(device):
    x = tinyffn.tensor([1.0, 2.0], device=device, requires_grad=True)
    assert tinyffn.as_tensor(x) is x and tinyffn.as_tensor(x, device=device) is x
    y = tinyffn.as_tensor(x, dtype=tinyffn.float64)
    assert dtype_name(y.dtype) == "float64" and y.grad_fn is not None   # as torch's: in the graph
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]
    a = np.array([1, 2, 3], dtype=np.int32)
    t = tinyffn.as_tensor(a, device=device)
    assert dtype_name(t.dtype) == "int32" and t.device == device
    a[0] = 9                                # a copy: unlike torch.as_tensor, no shared memory
    assert t.tolist() == [1, 2, 3]
    assert dtype_name(tinyffn.as_tensor([0.5]).dtype) == "float32"
    assert tinyffn.as_tensor([1, 2], dtype="float64").tolist() == [1.0, 2.0]


def test_as_tensor_and_empty_match_pytorchs_dtypes():
    torch = pytest.importorskip("torch")
    for data in ([0.5, 1.0], [1, 2], [True, False], np.array([1.5], dtype=np.float64)):
        assert dtype_name(tinyffn.as_tensor(data).dtype) == \
            str(torch.as_tensor(data).dtype).removeprefix("torch.")
    assert tuple(torch.empty(2, 3).shape) == tinyffn.empty(2, 3).shape


def test_multinomial_with_replacement_at_the_ends_of_the_uniform_draw(monkeypatch):
    """u = 0 lands past every zero weight (searchsorted side="right"), and the largest u
    below 1 on the last positive category (the cdf is divided by its last entry, so it
    ends at exactly 1, even where ten weights of 0.1 add up to 0.9999999999999999).
    Drawn from a generator stood in for, to reach both ends."""
    for u, want in ((0.0, [[1, 1], [2, 2]]), (1 - 2 ** -53, [[2, 2], [9, 9]])):
        fake = types.SimpleNamespace(random=lambda size, u=u: np.full(size, u))
        monkeypatch.setattr(tinyffn.sampling, "rng_of", lambda g, op, fake=fake: fake)
        probs = tinyffn.tensor([[0.0, 0.3, 0.7] + [0.0] * 7, [0.0, 0.0] + [0.1] * 8],
                               dtype="float64")
        assert probs.multinomial(2, replacement=True).tolist() == want
