"""nn.utils.prune (tinyffn/prune.py).

References: PyTorch 2.13, live where installed and written out below (``EXPECTED``,
``EXPECTED_GRADS``) for the masks, outputs and gradients of the magnitude methods, one
recipe per case, iterative pruning and ``remove`` among them; NumPy for which entries
L1 and Ln pick; counts and frequencies for the random methods (their draws are not
torch's); the names a pruned module has (state_dict keys written out); the errors, with
their types checked against torch's live.
"""
import importlib

import numpy as np
import pytest
import torch_parity

import tinyffn
from tinyffn import nn
from tinyffn.nn.utils import prune

# A Linear(4, 3) with weights of distinct magnitudes, in eighths, and inputs in quarters:
# every product and sum is exact, so torch's values are written out to the last bit.
W = [[0.5, -1.25, 0.125, 2.0], [-0.375, 0.75, -1.5, 0.25], [1.125, -0.625, 1.75, -0.875]]
B = [0.5, -0.25, 1.0]
X = [[1.0, -0.5, 0.25, 2.0], [-1.5, 0.75, 1.0, -0.25]]
S = [[4.0, 3.0, 2.0, 1.0], [8.0, 7.0, 6.0, 5.0], [12.0, 11.0, 10.0, 9.0]]   # scores
M = [[1.0, 1.0, 0.0, 1.0], [0.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 0.0]]      # a mask

CASES = [
    "l1_unstructured(m, 'weight', 0.25)",
    "l1_unstructured(m, 'weight', 5)",
    "l1_unstructured(m, 'weight', 0.5); l1_unstructured(m, 'weight', 0.5)",
    "ln_structured(m, 'weight', 1, n=1, dim=0)",
    "ln_structured(m, 'weight', 0.5, n=2, dim=-1)",
    "ln_structured(m, 'weight', 2, n=float('inf'), dim=1)",
    "l1_unstructured(m, 'weight', 0.5); ln_structured(m, 'weight', 1, n=2, dim=0)",
    "ln_structured(m, 'weight', 1, n=1, dim=0); l1_unstructured(m, 'weight', 0.5)",
    "l1_unstructured(m, 'weight', 0.5, importance_scores=S)",
    "custom_from_mask(m, 'weight', M); l1_unstructured(m, 'weight', 2)",
    "identity(m, 'weight')",
    "global_unstructured([(m, 'weight'), (m, 'bias')], L1Unstructured, amount=0.5)",
    "l1_unstructured(m, 'weight', 0.5); remove(m, 'weight')",
    # a second pruning keeps the first's zeros: along dim 1 (only the unpruned columns are
    # candidates, written back as columns), by a mask, and globally (only survivors count)
    "ln_structured(m, 'weight', 1, n=1, dim=1); ln_structured(m, 'weight', 1, n=2, dim=-1)",
    "l1_unstructured(m, 'weight', 0.25); custom_from_mask(m, 'weight', M)",
    "l1_unstructured(m, 'weight', 2); "
    "global_unstructured([(m, 'weight'), (m, 'bias')], L1Unstructured, amount=2)",
    # scores other than the weights: rows by S's norms, and S for the weight beside |b|
    "ln_structured(m, 'weight', 1, n=1, dim=0, importance_scores=S)",
    "global_unstructured([(m, 'weight'), (m, 'bias')], L1Unstructured, "
    "importance_scores={(m, 'weight'): S}, amount=5)",
]
GRAD_CASES = [(CASES[0], "weight_orig"), (CASES[2], "weight_orig"), (CASES[6], "weight_orig"),
              (CASES[11], "bias_orig"), (CASES[12], "weight")]


def _pruned(module, case: str, **tensor_kwargs):
    """A Linear(4, 3) holding W and B in float64, pruned by ``case`` (run with
    ``module``'s prune functions); and its output on X."""
    kw = dict(dtype=module.float64, **tensor_kwargs)
    m = module.nn.Linear(4, 3, **kw)
    m.load_state_dict({"weight": module.tensor(W, **kw), "bias": module.tensor(B, **kw)})
    functions = importlib.import_module(module.__name__ + ".nn.utils.prune")
    names = dict(vars(functions), m=m, S=module.tensor(S, **kw),
                 M=module.tensor(M, **kw))
    exec(case, names)
    return m, m(module.tensor(X, **kw))


def run(module, case: str, **tensor_kwargs):
    """(the mask, the weight the forward used, the output); after ``remove``, the
    weight, twice."""
    m, y = _pruned(module, case, **tensor_kwargs)
    return getattr(m, "weight_mask", m.weight), m.weight, y


def grad_of(module, case: str, wrt: str, **tensor_kwargs):
    m, y = _pruned(module, case, **tensor_kwargs)
    return torch_parity.weighted_grad(module, y, dict(m.named_parameters())[wrt],
                                      **tensor_kwargs)


plain = torch_parity.plain


def assert_same(actual, expected, case):
    """Masks and outputs are exact (see W); the gradients' weights, i/10, are rounded."""
    torch_parity.assert_close(actual, expected, case, rtol=1e-15, atol=1e-16)


torch_parity.tests(globals())    # live torch, EXPECTED(_GRADS) on every device, their check


# ----------------------------------------------------------------------------- names
def test_a_pruned_weight_is_orig_times_mask_recomputed_before_each_forward(device):
    m, _ = _pruned(tinyffn, "l1_unstructured(m, 'weight', 0.5)", device=device)
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight_orig"]
    assert [n for n, _ in m.named_buffers()] == ["weight_mask"]
    assert list(m.state_dict()) == ["bias", "weight_orig", "weight_mask"]   # as torch's
    assert not isinstance(m.weight, nn.Parameter) and prune.is_pruned(m)
    (hook, _), = m._forward_pre_hooks.values()
    assert isinstance(hook, prune.L1Unstructured) and hook._tensor_name == "weight"
    orig, mask = m.weight_orig, m.weight_mask.numpy()
    opt = tinyffn.optim.SGD(m.parameters(), lr=0.5)
    m(tinyffn.tensor(X, dtype="float64", device=device)).sum().backward()
    before = orig.numpy()
    np.testing.assert_array_equal(orig.grad.numpy()[mask == 0], 0)     # masked gradient
    assert (orig.grad.numpy()[mask == 1] != 0).all()
    opt.step()
    np.testing.assert_array_equal(orig.numpy()[mask == 0], before[mask == 0])
    m(tinyffn.tensor(X, dtype="float64", device=device))                # the hook runs
    np.testing.assert_array_equal(m.weight.numpy(), orig.numpy() * mask)
    prune.remove(m, "weight")
    assert m.weight is orig and isinstance(m.weight, nn.Parameter)       # optimizers keep it
    np.testing.assert_array_equal(m.weight.numpy()[mask == 0], 0)
    assert list(m.state_dict()) == ["bias", "weight"] and not prune.is_pruned(m)
    assert not m._forward_pre_hooks


def test_state_dict_loads_into_a_module_pruned_alike():
    m, y = _pruned(tinyffn, "ln_structured(m, 'weight', 1, n=2, dim=0)")
    other = nn.Linear(4, 3, dtype="float64")
    prune.identity(other, "weight")
    other.load_state_dict(m.state_dict())
    np.testing.assert_array_equal(other(tinyffn.tensor(X, dtype="float64")).numpy(), y.numpy())


def test_is_pruned_looks_inside_submodules():
    ffn = nn.FFN(4, 8)
    assert not prune.is_pruned(ffn)
    prune.random_structured(ffn.w2, "weight", 2, dim=1)
    assert prune.is_pruned(ffn) and not prune.is_pruned(ffn.w1)


def test_gradcheck_through_a_pruned_weight(device):
    m, _ = _pruned(tinyffn, CASES[6], device=device)
    x = tinyffn.tensor(X, dtype="float64", device=device)
    assert tinyffn.gradcheck(lambda w: tinyffn.func.functional_call(
        m, {"weight_orig": w}, (x,)), [m.weight_orig.detach().requires_grad_()])


# ----------------------------------------------------------------------------- which entries
def test_l1_prunes_the_smallest_magnitudes_and_ln_the_smallest_channels(device):
    """NumPy's choice on random weights (no ties), a fraction of the survivors the second
    time; the method's ``prune`` on a tensor that is no module's."""
    w = np.random.default_rng(3).standard_normal((5, 6))
    t = tinyffn.tensor(w, device=device)
    mask = prune.L1Unstructured(0.4).compute_mask(t, tinyffn.ones_like(t)).numpy()
    expected = np.ones(30)
    expected[np.argsort(np.abs(w).ravel())[:12]] = 0
    np.testing.assert_array_equal(mask, expected.reshape(5, 6))
    again = prune.PruningContainer(prune.L1Unstructured(0.5))
    twice = again.compute_mask(t, tinyffn.tensor(mask, device=device)).numpy()
    expected[np.argsort(np.abs(w).ravel())[12:21]] = 0          # half of 18, rounded to even
    np.testing.assert_array_equal(twice, expected.reshape(5, 6))
    pruned = prune.LnStructured(2, n=1, dim=1).prune(t).numpy()
    dropped = np.argsort(np.abs(w).sum(axis=0))[:2]             # the 2 smallest L1 columns
    np.testing.assert_array_equal(pruned[:, dropped], 0)
    np.testing.assert_array_equal(np.delete(pruned, dropped, axis=1), np.delete(w, dropped, 1))


def test_ties_are_broken_by_position():
    """Among equal |w|, L1 prunes the lower flat index first and Ln keeps the lower
    channel first (tinyffn's topk keeps ties in order). PyTorch's CPU topk leaves ties to
    std::nth_element or std::partial_sort: the same count, of the same magnitudes, not
    necessarily the same entries."""
    w = [[1.0, -1.0, 2.0, 1.0], [1.0, 2.0, -1.0, 3.0]]           # five entries of |w| = 1
    m = nn.Linear(4, 2, bias=False)
    m.weight.data = tinyffn.tensor(w)
    prune.l1_unstructured(m, "weight", 3)
    assert m.weight_mask.numpy().tolist() == [[0, 0, 1, 0], [1, 1, 1, 1]]
    rows = nn.Linear(2, 4, bias=False)
    rows.weight.data = tinyffn.tensor([[1.0, 1.0], [2.0, 0.0], [0.0, -2.0], [3.0, 0.0]])
    prune.ln_structured(rows, "weight", 1, n=1, dim=0)           # L1 norms 2, 2, 2, 3
    assert rows.weight_mask.numpy()[:, 0].tolist() == [1, 1, 0, 1]
    torch = pytest.importorskip("torch")
    import torch.nn.utils.prune
    t = torch.nn.Linear(4, 2, bias=False)
    with torch.no_grad():
        t.weight.copy_(torch.tensor(w))
    torch.nn.utils.prune.l1_unstructured(t, "weight", 3)
    pruned = np.abs(np.array(w))[t.weight_mask.numpy() == 0]
    assert pruned.tolist() == [1.0, 1.0, 1.0]


# ----------------------------------------------------------------------------- random methods
def test_random_unstructured_prunes_a_uniform_choice_of_survivors(device):
    t = tinyffn.ones(2, 3, device=device)
    counts = np.zeros(6)
    for _ in range(200):
        mask = prune.RandomUnstructured(2).compute_mask(t, tinyffn.ones_like(t)).numpy()
        assert mask.sum() == 4 and set(np.unique(mask)) <= {0.0, 1.0}
        counts += (mask == 0).ravel()
    assert (np.abs(counts / 200 - 1 / 3) < 0.12).all(), counts          # ~3.6 sd
    first = tinyffn.tensor([[0.0, 1.0, 1.0], [1.0, 0.0, 1.0]], device=device)
    for _ in range(20):          # again: only among the 4 survivors, a fraction of those
        mask = prune.PruningContainer(prune.RandomUnstructured(0.5)).compute_mask(t, first)
        assert mask.numpy().sum() == 2 and (mask.numpy()[first.numpy() == 0] == 0).all()


def test_random_structured_prunes_whole_channels_uniformly(device):
    t = tinyffn.ones(4, 3, device=device)
    counts = np.zeros(4)
    for _ in range(200):
        mask = prune.RandomStructured(0.5, dim=0).compute_mask(t, tinyffn.ones_like(t))
        rows = mask.numpy()
        assert (rows == rows[:, :1]).all() and rows[:, 0].sum() == 2   # 2 whole rows
        counts += rows[:, 0] == 0
    assert (np.abs(counts / 200 - 0.5) < 0.15).all(), counts            # ~4.2 sd


def test_random_methods_prune_as_many_as_torchs():
    torch = pytest.importorskip("torch")
    import torch.nn.utils.prune
    for P, make in ((prune, tinyffn), (torch.nn.utils.prune, torch)):
        m = make.nn.Linear(6, 5)
        P.random_unstructured(m, "weight", 0.3)           # round(9.0) = 9 of 30
        first = np.array(m.weight_mask.tolist())
        P.random_structured(m, "weight", 2, dim=-1)       # then 2 more whole columns
        mask = np.array(m.weight_mask.tolist())
        assert (first == 0).sum() == 9
        new = (mask == 0).all(axis=0) & ~(first == 0).all(axis=0)
        assert new.sum() == 2                             # the first 9 may lie in them
        np.testing.assert_array_equal(mask[:, ~new], first[:, ~new])
        assert list(m.state_dict()) == ["bias", "weight_orig", "weight_mask"]


def test_global_unstructured_takes_any_iterable():
    """A generator of pairs too (PyTorch reads it twice, so its second pass is empty)."""
    ffn = nn.FFN(2, 4)
    prune.global_unstructured(((m, "weight") for m in (ffn.w1, ffn.w2)),
                              prune.L1Unstructured, amount=8)
    zeros = (ffn.w1.weight_mask.numpy() == 0).sum() + (ffn.w2.weight_mask.numpy() == 0).sum()
    assert zeros == 8


# ----------------------------------------------------------------------------- errors
ERRORS = [
    ("L1Unstructured(1.5)", ValueError, "L1Unstructured: amount=1.5 should either be a float"),
    ("L1Unstructured(-1)", ValueError, "amount=-1"),
    ("RandomUnstructured('a')", TypeError, "invalid type for amount: 'a'"),
    ("l1_unstructured(m, 'weight', 13)", ValueError,
     "amount=13 should be smaller than the number of parameters to prune=12"),
    ("ln_structured(m, 'bias', 1, 2, 0)", ValueError, "multidimensional"),
    ("ln_structured(m, 'weight', 1, 2, 2)", IndexError, "dim=2 for tensor of size (3, 4)"),
    ("remove(m, 'weight')", ValueError, "has to be pruned before pruning can be removed"),
    ("l1_unstructured(m, 'weight', 1, importance_scores=M[0])", AssertionError,
     "same shape as parameter weight of Linear, got (4,) vs (3, 4)"),
    ("global_unstructured([(m, 'weight')], LnStructured, amount=1, n=1, dim=0)", TypeError,
     "only \"unstructured\" PRUNING_TYPE"),
    ("global_unstructured([(m, 'weight')], L1Unstructured, importance_scores=[1], amount=1)",
     TypeError, "importance_scores must be of type dict"),
]


@pytest.mark.parametrize("call, error, message", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_name_the_function_and_the_values(call, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        _pruned(tinyffn, call)


def test_a_failed_pruning_leaves_the_parameter_in_place():
    with pytest.raises(ValueError):
        _pruned(tinyffn, "l1_unstructured(m, 'weight', 13)")
    m, _ = _pruned(tinyffn, "")
    with pytest.raises(ValueError):
        prune.l1_unstructured(m, "weight", 13)
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight"]   # moved last, as torch
    assert not prune.is_pruned(m) and not list(m.named_buffers())
    prune.l1_unstructured(m, "weight", 6)
    mask = m.weight_mask.numpy()
    with pytest.raises(ValueError, match="amount=7 should be smaller"):
        prune.l1_unstructured(m, "weight", 7)                 # 6 survivors only
    (hook, _), = m._forward_pre_hooks.values()                 # the first pruning stays
    assert isinstance(hook, prune.L1Unstructured)
    np.testing.assert_array_equal(m.weight_mask.numpy(), mask)
    prune.l1_unstructured(m, "weight", 1)
    (hook, _), = m._forward_pre_hooks.values()
    assert [type(h).__name__ for h in hook] == ["L1Unstructured", "L1Unstructured"]
    assert (m.weight_mask.numpy() == 0).sum() == 7
    with pytest.raises(ValueError, match="amount=6 should be smaller"):
        prune.l1_unstructured(m, "weight", 6)                 # 5 left: the container keeps 2
    (again, _), = m._forward_pre_hooks.values()
    assert again is hook and len(hook) == 2 and (m.weight_mask.numpy() == 0).sum() == 7


def test_a_pruning_refused_for_its_arguments_keeps_the_earlier_one():
    """The new method is made before the earlier hook comes off: an amount of 1.5 on a
    pruned weight leaves it pruned, its hook still recomputing M ⊙ W (PyTorch's loses
    the hook here, so the forward stops seeing the weight's updates)."""
    m, _ = _pruned(tinyffn, "l1_unstructured(m, 'weight', 0.5)")
    mask = m.weight_mask.numpy()
    for bad, error in ((lambda: prune.l1_unstructured(m, "weight", 1.5), ValueError),
                       (lambda: prune.custom_from_mask(m, "weight", [1.0]), TypeError)):
        with pytest.raises(error, match="amount=1.5|mask must be a tinyffn Tensor"):
            bad()
        (hook, _), = m._forward_pre_hooks.values()
        assert isinstance(hook, prune.L1Unstructured)
    with tinyffn.no_grad():
        m.weight_orig.mul_(2.0)
    m(tinyffn.tensor(X, dtype="float64"))                                # the hook runs
    np.testing.assert_array_equal(m.weight.numpy(), m.weight_orig.numpy() * mask)


@pytest.mark.parametrize("call", [e[0] for e in ERRORS])
def test_the_errors_are_torchs(call):
    torch = pytest.importorskip("torch")
    kinds = []
    for module in (tinyffn, torch):
        with pytest.raises(Exception) as raised:
            _pruned(module, call)
        kinds.append(type(raised.value))
    assert kinds[0] is kinds[1]


# ----------------------------------------------------------------------------- PyTorch 2.13
# plain(run(torch, case)) and grad_of(torch, *case), printed from torch 2.13.0+cpu
EXPECTED = {
    "l1_unstructured(m, 'weight', 0.25)":
        (('float64', [[1.0, 1.0, 0.0, 1.0], [0.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0]]),
         ('float64',
          [[0.5, -1.25, 0.0, 2.0], [-0.0, 0.75, -1.5, 0.0], [1.125, -0.625, 1.75, -0.875]]),
         ('float64', [[5.625, -1.0, 1.125], [-1.6875, -1.1875, 0.8125]])),
    "l1_unstructured(m, 'weight', 5)":
        (('float64', [[0.0, 1.0, 0.0, 1.0], [0.0, 1.0, 1.0, 0.0], [1.0, 0.0, 1.0, 1.0]]),
         ('float64',
          [[0.0, -1.25, 0.0, 2.0], [-0.0, 0.75, -1.5, 0.0], [1.125, -0.0, 1.75, -0.875]]),
         ('float64', [[5.125, -1.0, 0.8125], [-0.9375, -1.1875, 1.28125]])),
    "l1_unstructured(m, 'weight', 0.5); l1_unstructured(m, 'weight', 0.5)":
        (('float64', [[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 1.0, 0.0]]),
         ('float64', [[0.0, -0.0, 0.0, 2.0], [-0.0, 0.0, -1.5, 0.0], [0.0, -0.0, 1.75, -0.0]]),
         ('float64', [[4.5, -0.625, 1.4375], [0.0, -1.75, 2.75]])),
    "ln_structured(m, 'weight', 1, n=1, dim=0)":
        (('float64', [[1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0]]),
         ('float64',
          [[0.5, -1.25, 0.125, 2.0], [-0.0, 0.0, -0.0, 0.0], [1.125, -0.625, 1.75, -0.875]]),
         ('float64', [[5.65625, -0.25, 1.125], [-1.5625, -0.25, 0.8125]])),
    "ln_structured(m, 'weight', 0.5, n=2, dim=-1)":
        (('float64', [[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0]]),
         ('float64',
          [[0.0, -0.0, 0.125, 2.0], [-0.0, 0.0, -1.5, 0.25], [0.0, -0.0, 1.75, -0.875]]),
         ('float64', [[4.53125, -0.125, -0.3125], [0.125, -1.8125, 2.96875]])),
    "ln_structured(m, 'weight', 2, n=float('inf'), dim=1)":
        (('float64', [[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0]]),
         ('float64',
          [[0.0, -0.0, 0.125, 2.0], [-0.0, 0.0, -1.5, 0.25], [0.0, -0.0, 1.75, -0.875]]),
         ('float64', [[4.53125, -0.125, -0.3125], [0.125, -1.8125, 2.96875]])),
    "l1_unstructured(m, 'weight', 0.5); ln_structured(m, 'weight', 1, n=2, dim=0)":
        (('float64', [[0.0, 1.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0], [1.0, 0.0, 1.0, 1.0]]),
         ('float64',
          [[0.0, -1.25, 0.0, 2.0], [-0.0, 0.0, -0.0, 0.0], [1.125, -0.0, 1.75, -0.875]]),
         ('float64', [[5.125, -0.25, 0.8125], [-0.9375, -0.25, 1.28125]])),
    "ln_structured(m, 'weight', 1, n=1, dim=0); l1_unstructured(m, 'weight', 0.5)":
        (('float64', [[0.0, 1.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0], [1.0, 0.0, 1.0, 0.0]]),
         ('float64', [[0.0, -1.25, 0.0, 2.0], [-0.0, 0.0, -0.0, 0.0], [1.125, -0.0, 1.75, -0.0]]),
         ('float64', [[5.125, -0.25, 2.5625], [-0.9375, -0.25, 1.0625]])),
    "l1_unstructured(m, 'weight', 0.5, importance_scores=S)":
        (('float64', [[0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0]]),
         ('float64',
          [[0.0, -0.0, 0.0, 0.0], [-0.375, 0.75, -0.0, 0.0], [1.125, -0.625, 1.75, -0.875]]),
         ('float64', [[0.5, -1.0, 1.125], [0.5, 0.875, 0.8125]])),
    "custom_from_mask(m, 'weight', M); l1_unstructured(m, 'weight', 2)":
        (('float64', [[0.0, 1.0, 0.0, 1.0], [0.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 0.0]]),
         ('float64',
          [[0.0, -1.25, 0.0, 2.0], [-0.0, 0.75, -1.5, 0.0], [1.125, -0.625, 1.75, -0.0]]),
         ('float64', [[5.125, -1.0, 2.875], [-0.9375, -1.1875, 0.59375]])),
    "identity(m, 'weight')":
        (('float64', [[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]]),
         ('float64',
          [[0.5, -1.25, 0.125, 2.0], [-0.375, 0.75, -1.5, 0.25], [1.125, -0.625, 1.75, -0.875]]),
         ('float64', [[5.65625, -0.875, 1.125], [-1.5625, -0.6875, 0.8125]])),
    "global_unstructured([(m, 'weight'), (m, 'bias')], L1Unstructured, amount=0.5)":
        (('float64', [[0.0, 1.0, 0.0, 1.0], [0.0, 0.0, 1.0, 0.0], [1.0, 0.0, 1.0, 1.0]]),
         ('float64',
          [[0.0, -1.25, 0.0, 2.0], [-0.0, 0.0, -1.5, 0.0], [1.125, -0.0, 1.75, -0.875]]),
         ('float64', [[4.625, -0.375, 0.8125], [-1.4375, -1.5, 1.28125]])),
    "l1_unstructured(m, 'weight', 0.5); remove(m, 'weight')":
        (('float64',
          [[0.0, -1.25, 0.0, 2.0], [-0.0, 0.0, -1.5, 0.0], [1.125, -0.0, 1.75, -0.875]]),
         ('float64',
          [[0.0, -1.25, 0.0, 2.0], [-0.0, 0.0, -1.5, 0.0], [1.125, -0.0, 1.75, -0.875]]),
         ('float64', [[5.125, -0.625, 0.8125], [-0.9375, -1.75, 1.28125]])),
    "ln_structured(m, 'weight', 1, n=1, dim=1); ln_structured(m, 'weight', 1, n=2, dim=-1)":
        (('float64', [[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0]]),
         ('float64',
          [[0.0, -0.0, 0.125, 2.0], [-0.0, 0.0, -1.5, 0.25], [0.0, -0.0, 1.75, -0.875]]),
         ('float64', [[4.53125, -0.125, -0.3125], [0.125, -1.8125, 2.96875]])),
    "l1_unstructured(m, 'weight', 0.25); custom_from_mask(m, 'weight', M)":
        (('float64', [[1.0, 1.0, 0.0, 1.0], [0.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 0.0]]),
         ('float64',
          [[0.5, -1.25, 0.0, 2.0], [-0.0, 0.75, -1.5, 0.0], [1.125, -0.625, 1.75, -0.0]]),
         ('float64', [[5.625, -1.0, 2.875], [-1.6875, -1.1875, 0.59375]])),
    "l1_unstructured(m, 'weight', 2); "
    "global_unstructured([(m, 'weight'), (m, 'bias')], L1Unstructured, amount=2)":
        (('float64', [[1.0, 1.0, 0.0, 1.0], [0.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0]]),
         ('float64',
          [[0.5, -1.25, 0.0, 2.0], [-0.0, 0.75, -1.5, 0.0], [1.125, -0.625, 1.75, -0.875]]),
         ('float64', [[5.625, -0.75, 1.125], [-1.6875, -0.9375, 0.8125]])),
    "ln_structured(m, 'weight', 1, n=1, dim=0, importance_scores=S)":
        (('float64', [[0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]]),
         ('float64',
          [[0.0, -0.0, 0.0, 0.0], [-0.375, 0.75, -1.5, 0.25], [1.125, -0.625, 1.75, -0.875]]),
         ('float64', [[0.5, -0.875, 1.125], [0.5, -0.6875, 0.8125]])),
    "global_unstructured([(m, 'weight'), (m, 'bias')], L1Unstructured, "
    "importance_scores={(m, 'weight'): S}, amount=5)":
        (('float64', [[1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]]),
         ('float64',
          [[0.5, -1.25, 0.0, 0.0], [-0.375, 0.75, -1.5, 0.25], [1.125, -0.625, 1.75, -0.875]]),
         ('float64', [[1.125, -0.625, 0.125], [-1.6875, -0.4375, -0.1875]])),
}
EXPECTED_GRADS = {
    "l1_unstructured(m, 'weight', 0.25) dweight_orig":
        ('float64',
         [[-0.5000000000000001, 0.25000000000000006, 0.0, 0.1], [-0.0, 0.275, 0.55, 0.0],
          [-0.5999999999999999, 0.29999999999999993, 0.6749999999999999, 0.44999999999999996]]),
    "l1_unstructured(m, 'weight', 0.5); l1_unstructured(m, 'weight', 0.5) dweight_orig":
        ('float64',
         [[-0.0, 0.0, 0.0, 0.1], [-0.0, 0.0, 0.55, 0.0], [-0.0, 0.0, 0.6749999999999999, 0.0]]),
    "l1_unstructured(m, 'weight', 0.5); ln_structured(m, 'weight', 1, n=2, dim=0) dweight_orig":
        ('float64',
         [[-0.0, 0.25000000000000006, 0.0, 0.1], [-0.0, 0.0, 0.0, 0.0],
          [-0.5999999999999999, 0.0, 0.6749999999999999, 0.44999999999999996]]),
    "global_unstructured([(m, 'weight'), (m, 'bias')], L1Unstructured, amount=0.5) dbias_orig":
        ('float64', [0.0, 0.0, 0.8999999999999999]),
    "l1_unstructured(m, 'weight', 0.5); remove(m, 'weight') dweight":
        ('float64',
         [[-0.5000000000000001, 0.25000000000000006, 0.42500000000000004, 0.1],
          [-0.55, 0.275, 0.55, 0.275],
          [-0.5999999999999999, 0.29999999999999993, 0.6749999999999999, 0.44999999999999996]]),
}
