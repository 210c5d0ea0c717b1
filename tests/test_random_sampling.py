"""normal, bernoulli, poisson, randint_like, x.bernoulli(_), random_, exponential_, cauchy_,
geometric_, log_normal_ and nn.init.sparse_ (tinyffn/random_sampling.py, init.py): repeated
by seed and by Generator on every device; NumPy's values; statistics on 10^5 draws within 5
standard errors; dtypes and shapes as PyTorch 2.13's (written out, and live where torch is
installed); the zero gradient of a draw; the refusals."""
import math

import numpy as np
import pytest

import tinyffn
from tinyffn import nn

N = 100_000


def P(shape, dtype="float32", v=0.5, device="cpu", lib=tinyffn, requires_grad=False):
    """A tensor of ``shape`` filled with ``v`` in tinyffn or torch (``lib``)."""
    if lib is tinyffn:
        return tinyffn.full(shape, v, dtype=dtype, device=device, requires_grad=requires_grad)
    return lib.full(shape, v, dtype=getattr(lib, dtype), requires_grad=requires_grad)


# ----------------------------------------------------------------------------- reproducibility
DRAWS = {       # name -> draw(generator, device)
    "normal": lambda g, d: tinyffn.normal(P((2, 1), device=d), P((3,), v=2.0, device=d),
                                          generator=g),
    "normal-size": lambda g, d: tinyffn.normal(1.0, 2.0, (4,), generator=g, device=d),
    "normal-float-std": lambda g, d: tinyffn.normal(1.0, P((3,), device=d), generator=g),
    "bernoulli": lambda g, d: tinyffn.bernoulli(P((20,), device=d), generator=g),
    "bernoulli-p": lambda g, d: tinyffn.bernoulli(P((20,), "int64", 1, d), 0.3, generator=g),
    "poisson": lambda g, d: tinyffn.poisson(P((6,), v=4.0, device=d), g),
    "randint_like": lambda g, d: tinyffn.randint_like(P((6,), device=d), 3, 50, generator=g),
    "Tensor.bernoulli": lambda g, d: P((20,), device=d).bernoulli(generator=g),
    "bernoulli_": lambda g, d: P((20,), "bool", True, d).bernoulli_(0.4, generator=g),
    "bernoulli_-tensor": lambda g, d: P((20,), device=d).bernoulli_(P((20,), device=d),
                                                                    generator=g),
    "random_": lambda g, d: P((6,), "int32", 0, d).random_(generator=g),
    "random_-range": lambda g, d: P((6,), device=d).random_(-50, 50, generator=g),
    "exponential_": lambda g, d: P((5,), device=d).exponential_(2.0, generator=g),
    "cauchy_": lambda g, d: P((5,), device=d).cauchy_(1.0, 2.0, generator=g),
    "geometric_": lambda g, d: P((8,), "int64", 0, d).geometric_(0.2, generator=g),
    "log_normal_": lambda g, d: P((5,), "float64", device=d).log_normal_(generator=g),
    "sparse_": lambda g, d: nn.init.sparse_(P((6, 4), device=d), 0.5, 1.0, generator=g),
}


@pytest.mark.parametrize("name", DRAWS)
def test_a_seed_repeats_its_draws_on_every_device(name, device):
    draw = DRAWS[name]
    first = draw(tinyffn.Generator().manual_seed(7), device)
    assert first.device == device
    tinyffn.manual_seed(0)
    global_draw = tinyffn.randn(4).numpy()
    tinyffn.manual_seed(0)
    again = draw(tinyffn.Generator().manual_seed(7), device).numpy()    # global stream untouched
    np.testing.assert_array_equal(tinyffn.randn(4).numpy(), global_draw)
    np.testing.assert_array_equal(again, first.numpy())
    np.testing.assert_array_equal(draw(tinyffn.Generator().manual_seed(7), "cpu").numpy(), again)
    assert not np.array_equal(draw(tinyffn.Generator().manual_seed(8), device).numpy(), again)
    tinyffn.manual_seed(3)                      # without generator=: the global one
    np.testing.assert_array_equal(draw(None, device).numpy(),
                                  draw(tinyffn.Generator().manual_seed(3), device).numpy())


def test_values_are_numpys_draws():
    """The seed fixes the values: NumPy's default_rng(seed) drawing the same distribution."""
    def g():
        return tinyffn.Generator().manual_seed(11)

    def r():
        return np.random.default_rng(11)
    m, s = np.array([[0.0], [10.0]]), np.array([1.0, 2.0, 3.0])
    y = tinyffn.normal(tinyffn.tensor(m, dtype="float64"), tinyffn.tensor(s, dtype="float64"),
                       generator=g())
    np.testing.assert_array_equal(y.numpy(), r().normal(m, s, size=(2, 3)))
    p = np.array([0.1, 0.5, 0.9, 1.0, 0.0])
    np.testing.assert_array_equal(tinyffn.bernoulli(tinyffn.tensor(p, dtype="float64"),
                                                    generator=g()).numpy(),
                                  (r().random(5) < p).astype(float))
    rates = np.array([0.0, 1.0, 50.0, 1e6])
    np.testing.assert_array_equal(tinyffn.poisson(tinyffn.tensor(rates, dtype="float64"),
                                                  generator=g()).numpy(), r().poisson(rates))
    x = tinyffn.zeros(7, dtype="float64")
    for fill, ref in [(lambda: x.exponential_(4.0, generator=g()), r().exponential(0.25, 7)),
                      (lambda: x.cauchy_(1.0, 3.0, generator=g()), 1 + 3 * r().standard_cauchy(7)),
                      (lambda: x.log_normal_(0.5, 0.25, generator=g()), r().lognormal(0.5, 0.25, 7)),
                      (lambda: x.geometric_(0.3, generator=g()), r().geometric(0.3, 7)),
                      (lambda: x.random_(-3, 9, generator=g()), r().integers(-3, 8, 7, endpoint=True))]:
        assert fill() is x
        np.testing.assert_array_equal(x.numpy(), ref)


# ----------------------------------------------------------------------------- statistics
def within(estimate, expected, standard_error, what):
    assert abs(estimate - expected) < 5 * standard_error, (
        f"{what}: {estimate} vs {expected}, more than 5 standard errors ({standard_error})")


def test_normal_matches_its_mean_and_std_entry_by_entry():
    y = tinyffn.normal(tinyffn.tensor([[0.0], [10.0]], dtype="float64"),
                       P((N // 2,), "float64", 2.0)).numpy()          # (2, N/2)
    for row, mu in zip(y, (0.0, 10.0)):
        within(row.mean(), mu, 2.0 / math.sqrt(N // 2), "normal: row mean")
        within(row.var(), 4.0, 4.0 * math.sqrt(2 / (N // 2 - 1)), "normal: row variance")
    z = tinyffn.normal(-1.0, 0.5, (N,), dtype=tinyffn.float64).numpy()
    within(z.mean(), -1.0, 0.5 / math.sqrt(N), "normal(size): mean")
    within(z.std(), 0.5, 0.5 / math.sqrt(2 * N), "normal(size): std")


def test_bernoulli_frequencies():
    p = np.where(np.arange(N) % 2 == 0, 0.1, 0.8)                   # a probability per entry
    y = tinyffn.bernoulli(tinyffn.tensor(p, dtype="float64")).numpy()
    for k, q in ((0, 0.1), (1, 0.8)):
        within(y[k::2].mean(), q, math.sqrt(q * (1 - q) / (N // 2)), f"bernoulli p={q}")
    assert set(np.unique(y)) <= {0.0, 1.0}
    for y, q in [(tinyffn.bernoulli(P((N,)), 0.7).numpy(), 0.7),
                 (P((N,), "int8", 0).bernoulli_(0.25).numpy(), 0.25),
                 (P((N,)).bernoulli_(tinyffn.tensor(p)).numpy()[1::2], 0.8)]:
        within(y.mean(), q, math.sqrt(q * (1 - q) / y.size), f"bernoulli p={q}")
    assert tinyffn.bernoulli(P((100,), v=1.0)).numpy().all()        # p = 1 and p = 0: certain
    assert not tinyffn.bernoulli(P((100,), v=0.0)).numpy().any()


def test_poisson_mean_and_variance():
    lam = 3.5
    y = tinyffn.poisson(P((N,), "float64", lam)).numpy()
    assert np.all(y == np.round(y)) and y.min() >= 0
    within(y.mean(), lam, math.sqrt(lam / N), "poisson mean")
    within(y.var(), lam, math.sqrt((lam + 2 * lam ** 2) / N), "poisson variance")


def test_continuous_fills():
    y = P((N,), "float64").exponential_(2.0).numpy()
    assert y.min() > 0
    within(y.mean(), 0.5, 0.5 / math.sqrt(N), "exponential mean 1/lambd")
    y = P((N,), "float64").log_normal_(0.5, 0.4).numpy()
    within(np.log(y).mean(), 0.5, 0.4 / math.sqrt(N), "log_normal: mean of log")
    within(np.log(y).std(), 0.4, 0.4 / math.sqrt(2 * N), "log_normal: std of log")
    y = P((N,), "float64").cauchy_(1.0, 2.0).numpy()                # no mean: its quantiles
    within((y < 1.0).mean(), 0.5, math.sqrt(0.25 / N), "cauchy: median")
    within(((y > -1.0) & (y < 3.0)).mean(), 0.5, math.sqrt(0.25 / N), "cauchy: median ± sigma")


def test_geometric_counts_trials_from_one():
    y = P((N,), "int64", 0).geometric_(0.25).numpy()
    assert y.min() == 1
    within(y.mean(), 4.0, math.sqrt(12.0 / N), "geometric mean 1/p")       # var (1-p)/p²
    within((y == 1).mean(), 0.25, math.sqrt(0.25 * 0.75 / N), "geometric P(1) = p")


def test_integer_draws_cover_their_range_uniformly():
    y = P((N,), "float32").random_(3, 10).numpy()
    assert set(np.unique(y)) == set(range(3, 10))
    for k in range(3, 10):
        within((y == k).mean(), 1 / 7, math.sqrt(6 / 49 / N), f"random_: frequency of {k}")
    for dtype, top in [("int8", 127), ("uint8", 255), ("float16", 2048), ("bool", 1)]:
        y = P((N,), dtype, 0).random_().numpy().astype(np.int64)
        assert y.min() == 0 and y.max() == top, dtype                      # both ends drawn
    big = P((N,), "int64", 0).random_().numpy()
    assert big.min() >= 0 and big.max() > 2 ** 62                          # up to 2^63 - 1
    f32 = P((N,), "float32").random_().numpy()
    assert f32.max() <= 2 ** 24 and f32.max() > 2 ** 23
    y = tinyffn.randint_like(P((N,), "int16", 0), -5, 5).numpy()
    assert y.min() == -5 and y.max() == 4
    within(y.mean(), -0.5, math.sqrt(99 / 12 / N), "randint_like mean")
    assert set(np.unique(tinyffn.randint_like(P((N,)), 4).numpy())) == {0, 1, 2, 3}


def test_sparse_zeroes_that_many_entries_per_column():
    w = nn.init.sparse_(P((1000, 100), "float64"), 0.1, std=0.05).numpy()
    assert ((w == 0).sum(axis=0) == 100).all()                            # ceil(0.1 · 1000)
    nonzero = w[w != 0]
    within(nonzero.std(), 0.05, 0.05 / math.sqrt(2 * nonzero.size), "sparse_ std")
    within(nonzero.mean(), 0.0, 0.05 / math.sqrt(nonzero.size), "sparse_ mean")
    assert ((nn.init.sparse_(P((7, 3)), 0.5).numpy() == 0).sum(axis=0) == 4).all()  # ceil(3.5)
    assert (nn.init.sparse_(P((7, 3)), 1.0).numpy() == 0).all()
    assert (nn.init.sparse_(P((7, 3)), 0.0).numpy() != 0).all()


# ----------------------------------------------------------------------------- dtype and shape
# expression (L: tinyffn or torch; T(shape, dtype, v): a tensor) -> result dtype and shape,
# as PyTorch 2.13 gives them
RESULTS = [
    ("L.normal(T((2, 1), 'float16'), T((3,), 'float64'))", "float16", (2, 3)),
    ("L.normal(T((3,), 'float64'), T((2, 3), 'float32'))", "float64", (2, 3)),
    ("L.normal(T((3,), 'float32'), T((3,), 'int64', 1))", "float32", (3,)),
    ("L.normal(T((), 'float32'), T((), 'float32'))", "float32", ()),
    ("L.normal(T((4,), 'float64'), 2.0)", "float64", (4,)),
    ("L.normal(0.0, T((2, 3), 'float16'))", "float16", (2, 3)),
    ("L.normal(0.0, 1.0, (2, 3))", "float32", (2, 3)),
    ("L.normal(0, 1, (2,), dtype=L.float64)", "float64", (2,)),
    ("L.normal(T((0,), 'float32'), 1.0)", "float32", (0,)),
    ("L.bernoulli(T((2, 3), 'float16'))", "float16", (2, 3)),
    ("L.bernoulli(T((), 'float64'))", "float64", ()),
    ("L.bernoulli(T((3,), 'int64', 1), 0.5)", "int64", (3,)),
    ("L.bernoulli(T((3,), 'bool', True), p=0.5)", "bool", (3,)),
    ("L.poisson(T((2, 2), 'float16', 3.0))", "float16", (2, 2)),
    ("L.poisson(T((3,), 'float64', 3.0))", "float64", (3,)),
    ("L.randint_like(T((2, 3), 'float16'), 10)", "float16", (2, 3)),
    ("L.randint_like(T((3,), 'uint8', 1), 5, 200)", "uint8", (3,)),
    ("L.randint_like(T((3,), 'bool', True), 2)", "bool", (3,)),
    ("L.randint_like(T((3,), 'float32'), 10, dtype=L.int64)", "int64", (3,)),
    ("T((3,), 'float16').bernoulli()", "float16", (3,)),
    ("T((3,), 'int32', 1).bernoulli(0.5)", "int32", (3,)),
    ("T((4,), 'bool', True).bernoulli_(T((4,), 'float64'))", "bool", (4,)),
    ("T((2, 4), 'float16').bernoulli_(T((1,), 'float32'))", "float16", (2, 4)),
    ("T((3,), 'int8', 0).random_()", "int8", (3,)),
    ("T((3,), 'float64').random_(-5, 5)", "float64", (3,)),
    ("T((3,), 'float16').exponential_()", "float16", (3,)),
    ("T((3,), 'float32').cauchy_()", "float32", (3,)),
    ("T((3,), 'int16', 0).geometric_(0.5)", "int16", (3,)),
    ("T((3,), 'float64').log_normal_()", "float64", (3,)),
    ("L.nn.init.sparse_(T((4, 3), 'float64'), 0.5)", "float64", (4, 3)),
]


def run(expr, lib, device="cpu"):
    def T(shape, dtype, v=0.5, requires_grad=False):
        return P(shape, dtype, v, device, lib, requires_grad)
    return eval(expr, {"L": lib, "T": T})


@pytest.mark.parametrize("expr, dtype, shape", RESULTS)
def test_dtype_shape_and_device_as_torch(expr, dtype, shape, device):
    if "float16" in expr and device == "strict":
        pytest.skip("the strict backend has no float16")
    y = run(expr, tinyffn, device)
    made_on = device if "T(" in expr else "cpu"     # normal(0.0, 1.0, size): device="cpu"
    assert (tinyffn.backend.dtype_name(y.dtype), y.shape, y.device) == (dtype, shape, made_on)


@pytest.mark.parametrize("expr, dtype, shape", RESULTS)
def test_the_written_results_are_torchs(expr, dtype, shape):
    torch = pytest.importorskip("torch")
    y = run(expr, torch)
    assert (str(y.dtype).removeprefix("torch."), tuple(y.shape)) == (dtype, shape)


def test_a_draw_has_zero_gradient_as_torch(device):
    """normal, bernoulli and poisson keep a parameter that requires grad in the graph with
    gradient 0, as PyTorch's NormalBackward (not the reparameterised 1 and z)."""
    m = P((2, 1), device=device, requires_grad=True)
    s = P((3,), v=2.0, device=device, requires_grad=True)
    for y in (tinyffn.normal(m, s), tinyffn.normal(m, 1.0), tinyffn.normal(0.0, s),
              tinyffn.bernoulli(m), tinyffn.poisson(s)):
        assert y.requires_grad
        m.grad = s.grad = None
        (y * 3).sum().backward()
        for p in (m, s):
            assert p.grad is None or (p.grad.numpy() == 0).all() and p.grad.shape == p.shape
    with tinyffn.no_grad():
        assert not tinyffn.normal(m, s).requires_grad
    torch = pytest.importorskip("torch")
    tm = torch.full((2, 1), 0.5, requires_grad=True)
    torch.normal(tm, 2.0).sum().backward()
    assert (tm.grad == 0).all()


# ----------------------------------------------------------------------------- refusals
# expression -> (error type, message start), and whether PyTorch 2.13 refuses it too
REFUSALS = [
    ("L.bernoulli(T((2,), 'float32', 1.5))", ValueError, r"bernoulli: every probability in input "
     r"must lie in \[0, 1\]", True),
    ("L.bernoulli(T((2,), 'float32', float('nan')))", ValueError, "bernoulli: every", True),
    ("L.bernoulli(T((2,), 'float32'), 1.5)", ValueError, r"bernoulli: p must be a probability", True),
    ("L.bernoulli(T((2,), 'int64', 1))", TypeError, "bernoulli: input holds the probabilities", True),
    ("L.bernoulli(T((2,), 'float32'), T((2,), 'float32'))", TypeError, "bernoulli: p must be a "
     "number", True),
    ("L.poisson(T((2,), 'float32', -1.0))", ValueError, "poisson: every rate must be >= 0", True),
    ("L.poisson(T((2,), 'float32', float('nan')))", ValueError, "poisson: every rate", True),
    ("L.poisson(T((2,), 'float64', float('inf')))", ValueError, "poisson: a rate of inf is too "
     "large", False),
    ("L.poisson(T((2,), 'int64', 1))", TypeError, "poisson: input holds the rates", True),
    ("L.normal(T((2,), 'float32'), -1.0)", ValueError, "normal: std must be >= 0", True),
    ("L.normal(T((2,), 'float32'), T((2,), 'float32', float('nan')))", ValueError,
     "normal: std must be >= 0", True),
    ("L.normal(T((2,), 'float32'), T((3,), 'float32'))", ValueError, r"normal: mean of shape "
     r"\(2,\) and std of shape \(3,\) do not broadcast", True),
    ("L.normal(T((2,), 'int64', 1), 1.0)", TypeError, "normal: mean has dtype int64", True),
    ("L.normal(0.0, 1.0)", TypeError, "normal: with numbers for both mean and std, pass the size",
     True),
    ("L.normal(0.0, -1.0, (2,))", ValueError, "normal: std must be >= 0", True),
    ("L.normal(0.0, 1.0, (2,), dtype=L.int64)", TypeError, "normal: samples need a floating", True),
    ("L.normal(T((2,), 'float32'), 1.0, (2,))", TypeError, "normal: size, dtype, device", True),
    ("L.randint_like(T((2,), 'float32'), 5, 5)", ValueError, r"randint_like: the draws come from "
     r"\[low, high\), which needs low < high", True),
    ("L.randint_like(T((2,), 'int8', 1), 300)", ValueError, "randint_like: high - 1 = 299 is "
     "outside the integers int8 holds", True),
    ("L.randint_like(T((2,), 'uint8', 1), -1, 3)", ValueError, "randint_like: low -1", True),
    ("L.randint_like(T((2,), 'float16'), 100000)", ValueError, "randint_like: high - 1 = 99999 "
     "is outside the integers float16 holds exactly", True),
    ("L.randint_like(T((2,), 'float32'), 10.5)", TypeError, "randint_like: high must be an "
     "integer", True),
    ("T((2,), 'float32').random_(5, 3)", ValueError, r"random_: the draws come from \[from_, to\)",
     True),
    ("T((2,), 'bool', True).random_(0, 3)", ValueError, "random_: to - 1 = 2 is outside", True),
    ("T((2,), 'float32').random_(0, 2 ** 24 + 2)", ValueError, "random_: to - 1 = 16777217 is "
     "outside the integers float32 holds exactly", None),        # PyTorch warns
    ("T((2,), 'int64', 1).exponential_()", TypeError, "exponential_: draws real numbers", True),
    ("T((2,), 'float32').exponential_(0)", ValueError, "exponential_: lambd must be > 0", True),
    ("T((2,), 'float32').cauchy_(0, 0)", ValueError, "cauchy_: sigma must be > 0", True),
    ("T((2,), 'float32').geometric_(1)", ValueError, r"geometric_: p must lie in \(0, 1\)", True),
    ("T((2,), 'bool', True).geometric_(0.5)", TypeError, "geometric_: draws 1, 2, ...", True),
    ("T((2,), 'int8', 1).geometric_(1e-4)", ValueError, "geometric_: drew .*, which int8 cannot "
     "hold", False),
    ("T((2,), 'float32').log_normal_(1, 0)", ValueError, "log_normal_: std must be > 0", True),
    ("T((2,), 'int64', 1).log_normal_()", TypeError, "log_normal_: draws real numbers", True),
    ("T((4,), 'float32').bernoulli_(T((3,), 'float32'))", ValueError, r"bernoulli_: p of shape "
     r"\(3,\) and x of shape \(4,\) do not broadcast", True),
    ("T((4,), 'float32').bernoulli_(T((2, 4), 'float32'))", ValueError, "bernoulli_: p of shape",
     True),
    ("T((4,), 'float32').bernoulli_(T((4,), 'float32', 1.5))", ValueError, "bernoulli_: every "
     "probability in p", True),
    ("T((4,), 'float32').bernoulli_(T((4,), 'int64', 1))", TypeError, "bernoulli_: p has dtype "
     "int64", True),
    ("T((4,), 'float32').bernoulli_(1.5)", ValueError, "bernoulli_: p must be a probability", True),
    ("L.nn.init.sparse_(T((4,), 'float32'), 0.5)", ValueError, "sparse_: needs a 2-D tensor", True),
    ("L.nn.init.sparse_(T((4, 3), 'float32'), 1.5)", ValueError, r"sparse_: sparsity is the "
     r"fraction of each column set to 0, a number in \[0, 1\]", False),
    ("L.nn.init.sparse_(T((4, 3), 'int64', 1), 0.5)", TypeError, "sparse_: draws real numbers",
     True),
] + [(f"T((2,), 'float32', requires_grad=True).{call}", RuntimeError, f"{call.split('(')[0]}: x "
      "requires grad, and tinyffn does not record in-place ops", True)
     for call in ("bernoulli_()", "random_()", "exponential_()", "cauchy_()", "geometric_(0.5)",
                  "log_normal_()")] + [
    ("T((2,), 'float32').bernoulli_(T((2,), 'float32', requires_grad=True))", RuntimeError,
     "bernoulli_: x or y requires grad", False),       # PyTorch records it, gradient 0
]


@pytest.mark.parametrize("expr, error, message, torch_refuses", REFUSALS)
def test_refusals(expr, error, message, torch_refuses, device):
    if "float16" in expr and device == "strict":
        pytest.skip("the strict backend has no float16")
    with pytest.raises(error, match=message):
        run(expr, tinyffn, device)


@pytest.mark.parametrize("expr, error, message, torch_refuses",
                         [r for r in REFUSALS if r[3] is not None])
def test_torch_refuses_the_same(expr, error, message, torch_refuses):
    torch = pytest.importorskip("torch")
    if torch_refuses:
        with pytest.raises((RuntimeError, TypeError, ValueError, NotImplementedError)):
            run(expr, torch)
    else:
        run(expr, torch)


def test_parameters_on_two_devices_are_refused():
    with pytest.raises(tinyffn.DeviceError, match="normal: mean is on cpu but std on strict"):
        tinyffn.normal(P((2,)), P((2,), device="strict"))
    with pytest.raises(tinyffn.DeviceError, match="bernoulli_: p is on strict but x on cpu"):
        P((2,)).bernoulli_(P((2,), device="strict"))
    with pytest.raises(TypeError, match="poisson: generator must be a tinyffn.Generator"):
        tinyffn.poisson(P((2,)), np.random.default_rng(0))


def test_signatures_are_torchs():
    torch = pytest.importorskip("torch")
    import inspect
    assert list(inspect.signature(nn.init.sparse_).parameters) == \
        list(inspect.signature(torch.nn.init.sparse_).parameters)
    for name in ("normal", "bernoulli", "poisson", "randint_like"):
        assert hasattr(torch, name) and getattr(tinyffn, name).__doc__
    for name in ("bernoulli", "bernoulli_", "random_", "exponential_", "cauchy_", "geometric_",
                 "log_normal_"):
        assert hasattr(torch.Tensor, name) and hasattr(tinyffn.Tensor, name)
