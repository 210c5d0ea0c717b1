"""PyTorch's top-level aliases and window functions (tinyffn/torch_toplevel.py).

Each case is one call, written once and run with the names of tinyffn and of torch:
PyTorch 2.13 live where installed, its values and gradients written out in ``EXPECTED``
and ``EXPECTED_GRADS`` (run on every device without torch). The windows are also NumPy's
(np.hanning, np.hamming, np.blackman, np.bartlett, np.kaiser: the symmetric ones; a
periodic window is the first N points of the symmetric one of N + 1).
"""
import numpy as np
import pytest

import tinyffn
import torch_parity

X = [[0.5, -2.0, 3.0], [-4.0, 1.5, 0.25]]          # (2, 3)
V = [1.0, -2.0, 0.5]

CASES = [
    "T.t(x)", "T.negative(x)", "T.selu(x)", "T.celu(x, 0.5)", "T.hardshrink(x, 1.0)",
    "T.threshold(x, 0.3, -1.0)", "T.rms_norm(x, (3,), eps=1e-6)", "T.prelu(x, T.tensor([0.25], dtype=T.float64))",
    "T.embedding(x, T.tensor([1, 0, 1]))", "T.embedding(x, T.tensor([1, 0]), padding_idx=0)",
    "T.ger(v, x[0])", "T.rsub(x, v, alpha=2)", "T.rsub(x, 3)",
    "T.pdist(x)", "T.dropout(x, 0.5, False)", "T.alpha_dropout(x, 0.5, False)",
    "T.conv3d(x.reshape(1, 1, 1, 2, 3), x.reshape(1, 1, 1, 2, 3)[..., :2])",
    "T.adaptive_avg_pool1d(x[None], 2)", "T.adaptive_max_pool1d(x[None], 2)",
    "T.max_pool1d_with_indices(x[None], 2)", "T.max_pool3d(x.reshape(1, 1, 1, 2, 3), (1, 2, 2))",
    "T.unravel_index(T.tensor([5, -1, 2]), (2, 3))", "T.scalar_tensor(3)",
    *[f"T.{w}_window({n}{p})" for w in ("hann", "hamming", "blackman", "bartlett", "kaiser")
      for n, p in ((5, ""), (6, ", periodic=False"))],
    "T.hamming_window(4, True, 0.5, 0.5)", "T.kaiser_window(5, True, 4.0)",
    "T.embedding(x, T.tensor([1, 0, 1]), -1, True)",       # scale_grad_by_freq: row 1 halved
]


def run(module, case: str, requires_grad: str = "", **tensor_kwargs):
    inputs = {"x": module.tensor(X, dtype=module.float64, **tensor_kwargs),
              "v": module.tensor(V, dtype=module.float64, **tensor_kwargs)}
    if requires_grad:
        inputs[requires_grad].requires_grad_(True)
    device = tensor_kwargs.get("device")
    made = {"tensor": module.tensor}
    if device:
        made = {"tensor": lambda *a, **k: module.tensor(*a, **k, device=device)}
    for w in ("hann", "hamming", "blackman", "bartlett", "kaiser"):
        f = getattr(module, f"{w}_window")
        made[f"{w}_window"] = (lambda f: lambda *a, **k: f(*a, **k, dtype=module.float64,
                                                           **({"device": device} if device
                                                              else {})))(f)

    class T:
        def __getattr__(self, name):
            return made.get(name) or getattr(module, name)
    y = eval(case, {}, {"T": T(), **inputs})
    return (y, inputs[requires_grad]) if requires_grad else y


plain = torch_parity.plain
assert_same = torch_parity.assert_close
GRAD_CASES = [(c, "x") for c in CASES[:15] if "embedding(x, T.tensor([1, 0]), pad" not in c] + [
    ("T.ger(v, x[0])", "v"), ("T.rsub(x, v, alpha=2)", "v"),
    ("T.embedding(x, T.tensor([1, 0, 1]), -1, True)", "x")]


def grad_of(module, case: str, wrt: str, **tensor_kwargs):
    y, x = run(module, case, requires_grad=wrt, **tensor_kwargs)
    return torch_parity.weighted_grad(module, y, x, **tensor_kwargs)


torch_parity.tests(globals())


@pytest.mark.parametrize("name, numpy_window", [
    ("hann", np.hanning), ("hamming", np.hamming), ("blackman", np.blackman),
    ("bartlett", np.bartlett), ("kaiser", lambda n: np.kaiser(n, 12.0))])
def test_windows_are_numpys(name, numpy_window, device):
    f = getattr(tinyffn, f"{name}_window")
    for n in (1, 2, 7, 16):
        symmetric = f(n, periodic=False, dtype="float64", device=device).numpy()
        np.testing.assert_allclose(symmetric, numpy_window(n), atol=1e-15)
        periodic = f(n, dtype="float64", device=device).numpy()
        np.testing.assert_allclose(periodic, numpy_window(n + 1)[:n] if n > 1 else [1.0],
                                   atol=1e-15)
    assert f(0).shape == (0,) and not f(4, requires_grad=True).grad_fn
    assert f(4, requires_grad=True).requires_grad


def test_chain_matmul_is_multi_dot_and_deprecated_as_in_pytorch():
    x = tinyffn.tensor(X, dtype="float64")
    with pytest.warns(UserWarning, match="chain_matmul is deprecated.*linalg.multi_dot"):
        y = tinyffn.chain_matmul(x, x.t(), x)
    np.testing.assert_allclose(y.numpy(), np.array(X) @ np.array(X).T @ np.array(X))


def test_errors():
    with pytest.raises(ValueError, match="hann_window: window_length must be a non-negative"):
        tinyffn.hann_window(-1)
    with pytest.raises(ValueError, match=r"unravel_index: an index is out of range for a "
                                         r"tensor of shape \(2, 3\)"):
        tinyffn.unravel_index(tinyffn.tensor([6]), (2, 3))
    with pytest.raises(ValueError, match="embedding: sparse=True .* no sparse tensors"):
        tinyffn.embedding(tinyffn.eye(3), tinyffn.tensor([0]), sparse=True)
    assert tinyffn.is_same_size(tinyffn.zeros(2, 3), tinyffn.ones(2, 3))
    assert not tinyffn.is_same_size(tinyffn.zeros(2, 3), tinyffn.ones(3, 2))


EXPECTED = {
    'T.t(x)': ('float64', [[0.5, -4.0], [-2.0, 1.5], [3.0, 0.25]]),
    'T.negative(x)': ('float64', [[-0.5, 2.0, -3.0], [4.0, -1.5, -0.25]]),
    'T.selu(x)': ('float64', [[0.5253504936777402, -1.5201664685956948, 3.1521029620664414], [-1.7258986281898945, 1.5760514810332207, 0.2626752468388701]]),
    'T.celu(x, 0.5)': ('float64', [[0.5, -0.4908421805556329, 3.0], [-0.49983226868604874, 1.5, 0.25]]),
    'T.hardshrink(x, 1.0)': ('float64', [[0.0, -2.0, 3.0], [-4.0, 1.5, 0.0]]),
    'T.threshold(x, 0.3, -1.0)': ('float64', [[0.5, -1.0, 3.0], [-1.0, 1.5, -1.0]]),
    'T.rms_norm(x, (3,), eps=1e-6)': ('float64', [[0.23791544878162038, -0.9516617951264815, 1.4274926926897222], [-1.6189996850374202, 0.6071248818890326, 0.10118748031483876]]),
    'T.prelu(x, T.tensor([0.25], dtype=T.float64))': ('float64', [[0.5, -0.5, 3.0], [-1.0, 1.5, 0.25]]),
    'T.embedding(x, T.tensor([1, 0, 1]))': ('float64', [[-4.0, 1.5, 0.25], [0.5, -2.0, 3.0], [-4.0, 1.5, 0.25]]),
    'T.embedding(x, T.tensor([1, 0]), padding_idx=0)': ('float64', [[-4.0, 1.5, 0.25], [0.5, -2.0, 3.0]]),
    'T.ger(v, x[0])': ('float64', [[0.5, -2.0, 3.0], [-1.0, 4.0, -6.0], [0.25, -1.0, 1.5]]),
    'T.rsub(x, v, alpha=2)': ('float64', [[0.0, 2.0, -5.5], [9.0, -5.0, 0.0]]),
    'T.rsub(x, 3)': ('float64', [[2.5, 5.0, 0.0], [7.0, 1.5, 2.75]]),
    'T.pdist(x)': ('float64', [6.329494450586082]),
    'T.dropout(x, 0.5, False)': ('float64', [[0.5, -2.0, 3.0], [-4.0, 1.5, 0.25]]),
    'T.alpha_dropout(x, 0.5, False)': ('float64', [[0.5, -2.0, 3.0], [-4.0, 1.5, 0.25]]),
    'T.conv3d(x.reshape(1, 1, 1, 2, 3), x.reshape(1, 1, 1, 2, 3)[..., :2])': ('float64', [[[[[22.5, -12.625]]]]]),
    'T.adaptive_avg_pool1d(x[None], 2)': ('float64', [[[-0.75, 0.5], [-1.25, 0.875]]]),
    'T.adaptive_max_pool1d(x[None], 2)': (('float64', [[[0.5, 3.0], [1.5, 1.5]]]), ('int64', [[[0, 2], [1, 1]]])),
    'T.max_pool1d_with_indices(x[None], 2)': (('float64', [[[0.5], [1.5]]]), ('int64', [[[0], [1]]])),
    'T.max_pool3d(x.reshape(1, 1, 1, 2, 3), (1, 2, 2))': ('float64', [[[[[1.5]]]]]),
    'T.unravel_index(T.tensor([5, -1, 2]), (2, 3))': (('int64', [1, 1, 0]), ('int64', [2, 2, 2])),
    'T.scalar_tensor(3)': ('float32', 3.0),
    'T.hann_window(5)': ('float64', [0.0, 0.3454915028125263, 0.9045084971874737, 0.9045084971874737, 0.3454915028125264]),
    'T.hann_window(6, periodic=False)': ('float64', [0.0, 0.3454915028125263, 0.9045084971874737, 0.9045084971874737, 0.3454915028125264, 0.0]),
    'T.hamming_window(5)': ('float64', [0.08000000000000002, 0.3978521825875242, 0.9121478174124757, 0.912147817412476, 0.3978521825875243]),
    'T.hamming_window(6, periodic=False)': ('float64', [0.08000000000000002, 0.3978521825875242, 0.9121478174124757, 0.912147817412476, 0.3978521825875243, 0.08000000000000002]),
    'T.blackman_window(5)': ('float64', [0.0, 0.20077014326253045, 0.8492298567374694, 0.8492298567374696, 0.20077014326253056]),
    'T.blackman_window(6, periodic=False)': ('float64', [0.0, 0.20077014326253045, 0.8492298567374694, 0.8492298567374696, 0.20077014326253056, 0.0]),
    'T.bartlett_window(5)': ('float64', [0.0, 0.4, 0.8, 0.7999999999999998, 0.3999999999999999]),
    'T.bartlett_window(6, periodic=False)': ('float64', [0.0, 0.4, 0.8, 0.7999999999999998, 0.3999999999999999, 0.0]),
    'T.kaiser_window(5)': ('float64', [5.2773441320097665e-05, 0.10171968770956323, 0.7929398341014605, 0.7929398341014605, 0.10171968770956323]),
    'T.kaiser_window(6, periodic=False)': ('float64', [5.2773441320097665e-05, 0.10171968770956323, 0.7929398341014605, 0.7929398341014605, 0.10171968770956323, 5.2773441320097665e-05]),
    'T.hamming_window(4, True, 0.5, 0.5)': ('float64', [0.0, 0.49999999999999994, 1.0, 0.5000000000000001]),
    'T.kaiser_window(5, True, 4.0)': ('float64', [0.08848052607644988, 0.5085159153920888, 0.932711570032223, 0.932711570032223, 0.5085159153920888]),
    'T.embedding(x, T.tensor([1, 0, 1]), -1, True)': ('float64', [[-4.0, 1.5, 0.25], [0.5, -2.0, 3.0], [-4.0, 1.5, 0.25]]),
}

EXPECTED_GRADS = {
    'T.t(x) dx': ('float64', [[0.1, 0.3, 0.5], [0.2, 0.4, 0.6]]),
    'T.negative(x) dx': ('float64', [[-0.1, -0.2, -0.3], [-0.4, -0.5, -0.6]]),
    'T.selu(x) dx': ('float64', [[0.10507009873554805, 0.047586574450336365, 0.31521029620664415], [0.012880285062992856, 0.5253504936777402, 0.6304205924132883]]),
    'T.celu(x, 0.5) dx': ('float64', [[0.1, 0.003663127777746836, 0.3], [0.00013418505116100476, 0.5, 0.6]]),
    'T.hardshrink(x, 1.0) dx': ('float64', [[0.0, 0.2, 0.3], [0.4, 0.5, 0.0]]),
    'T.threshold(x, 0.3, -1.0) dx': ('float64', [[0.1, 0.0, 0.3], [0.0, 0.5, 0.0]]),
    'T.rms_norm(x, (3,), eps=1e-6) dx': ('float64', [[0.03770735638253608, 0.13466911300780018, 0.08349486902624419], [0.10001330126190217, 0.22558246084536748, 0.24671786945822802]]),
    'T.prelu(x, T.tensor([0.25], dtype=T.float64)) dx': ('float64', [[0.1, 0.05, 0.3], [0.1, 0.5, 0.6]]),
    'T.embedding(x, T.tensor([1, 0, 1])) dx': ('float64', [[0.4, 0.5, 0.6], [0.7999999999999999, 1.0, 1.2]]),
    'T.ger(v, x[0]) dx': ('float64', [[-0.3500000000000001, -0.4, -0.4499999999999999], [0.0, 0.0, 0.0]]),
    'T.rsub(x, v, alpha=2) dx': ('float64', [[-0.2, -0.4, -0.6], [-0.8, -1.0, -1.2]]),
    'T.rsub(x, 3) dx': ('float64', [[-0.1, -0.2, -0.3], [-0.4, -0.5, -0.6]]),
    'T.pdist(x) dx': ('float64', [[0.07109572549800279, -0.0552966753873355, 0.04344738780433504], [-0.07109572549800279, 0.0552966753873355, -0.04344738780433504]]),
    'T.dropout(x, 0.5, False) dx': ('float64', [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]),
    'T.ger(v, x[0]) dv': ('float64', [0.5499999999999998, 0.9999999999999998, 1.4500000000000002]),
    'T.rsub(x, v, alpha=2) dv': ('float64', [0.5, 0.7, 0.8999999999999999]),
    'T.embedding(x, T.tensor([1, 0, 1]), -1, True) dx': ('float64', [[0.4, 0.5, 0.6], [0.39999999999999997, 0.5, 0.6]]),
}
