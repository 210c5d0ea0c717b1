"""tinyffn.Generator and generator=: each draw function takes one and draws from it alone,
as torch.Generator; manual_seed, seed, initial_seed, get/set_state; the refusals."""
import re

import numpy as np
import pytest

import tinyffn
from tinyffn.backend import dtype_name
from tinyffn import nn
from tinyffn.utils.data import DataLoader, TensorDataset, random_split

DRAWS = {       # name -> draw(generator) with that generator=, a tensor or a list
    "randn": lambda g: tinyffn.randn(3, 4, generator=g),
    "rand": lambda g: tinyffn.rand(5, generator=g),
    "randn_like": lambda g: tinyffn.randn_like(tinyffn.zeros(2, 3), generator=g),
    "rand_like": lambda g: tinyffn.rand_like(tinyffn.zeros(4), generator=g),
    "randint": lambda g: tinyffn.randint(0, 100, (6,), generator=g),
    "randperm": lambda g: tinyffn.randperm(10, generator=g),
    "multinomial": lambda g: tinyffn.multinomial(tinyffn.ones(2, 8), 3, generator=g),
    "multinomial-replacement": lambda g: tinyffn.ones(8).multinomial(5, True, generator=g),
    "uniform_": lambda g: nn.init.uniform_(tinyffn.empty(3, 3), -1, 1, generator=g),
    "normal_": lambda g: nn.init.normal_(tinyffn.empty(3, 3), generator=g),
    "trunc_normal_": lambda g: nn.init.trunc_normal_(tinyffn.empty(3, 3), std=0.02, generator=g),
    "xavier_uniform_": lambda g: nn.init.xavier_uniform_(tinyffn.empty(3, 5), generator=g),
    "xavier_normal_": lambda g: nn.init.xavier_normal_(tinyffn.empty(3, 5), generator=g),
    "kaiming_uniform_": lambda g: nn.init.kaiming_uniform_(tinyffn.empty(3, 5), generator=g),
    "kaiming_normal_": lambda g: nn.init.kaiming_normal_(tinyffn.empty(3, 5), generator=g),
    "orthogonal_": lambda g: nn.init.orthogonal_(tinyffn.empty(4, 3), generator=g),
    "Tensor.normal_": lambda g: tinyffn.empty(4).normal_(generator=g),
    "Tensor.uniform_": lambda g: tinyffn.empty(4).uniform_(2.0, 3.0, generator=g),
    "random_split": lambda g: [s.indices for s in random_split(range(10), [0.5, 0.5], generator=g)],
    "DataLoader": lambda g: [b[0].tolist() for b in DataLoader(
        TensorDataset(tinyffn.arange(10)), batch_size=4, shuffle=True, generator=g)],
}


def values(v):
    return v.numpy() if isinstance(v, tinyffn.Tensor) else np.array(v, dtype=object)


@pytest.mark.parametrize("name", DRAWS)
def test_a_generator_repeats_its_draws_and_leaves_the_global_one_alone(name):
    draw = DRAWS[name]
    first = values(draw(tinyffn.Generator().manual_seed(7)))
    tinyffn.manual_seed(0)
    global_draw = tinyffn.randn(4).numpy()
    tinyffn.manual_seed(0)
    again = values(draw(tinyffn.Generator().manual_seed(7)))     # in between: no global draw
    np.testing.assert_array_equal(tinyffn.randn(4).numpy(), global_draw)
    np.testing.assert_array_equal(again, first)
    other = values(draw(tinyffn.Generator().manual_seed(8)))
    assert not np.array_equal(other, first)


@pytest.mark.parametrize("name", DRAWS)
def test_without_a_generator_the_global_one_is_used(name):
    draw = DRAWS[name]
    tinyffn.manual_seed(3)
    a = values(draw(None))
    b = values(draw(tinyffn.Generator().manual_seed(3)))     # the same stream, seeded alike
    np.testing.assert_array_equal(a, b)


def test_values_are_numpys_pcg64_draws():
    """randn(generator=g) is NumPy's default_rng(seed).standard_normal: the seed alone
    fixes the values, on every device."""
    g = tinyffn.Generator().manual_seed(123)
    np.testing.assert_array_equal(tinyffn.randn(2, 3, generator=g, dtype=tinyffn.float64).numpy(),
                                  np.random.default_rng(123).standard_normal((2, 3)))


def test_manual_seed_returns_the_default_generator_as_torch():
    g = tinyffn.manual_seed(5)
    assert g is tinyffn.default_generator and isinstance(g, tinyffn.Generator)
    assert tinyffn.initial_seed() == 5
    assert tinyffn.Generator().manual_seed(-1).initial_seed() == 2 ** 64 - 1   # as torch
    assert tinyffn.Generator().initial_seed() == 67280421310721                # torch's default


def test_seed_draws_a_new_seed_and_reports_it():
    g = tinyffn.Generator()
    s = g.seed()
    assert g.initial_seed() == s and 0 <= s < 2 ** 63
    a = tinyffn.randn(3, generator=g).numpy()
    np.testing.assert_array_equal(tinyffn.randn(3, generator=g.manual_seed(s)).numpy(), a)
    t = tinyffn.seed()
    assert tinyffn.initial_seed() == t


def test_get_state_and_set_state_resume_a_stream():
    g = tinyffn.Generator().manual_seed(1)
    tinyffn.randn(5, generator=g)
    state = g.get_state()
    assert state.dtype == np.uint8 and state.shape == (45,)
    a = tinyffn.randn(4, generator=g).numpy()
    assert g.set_state(state) is g
    np.testing.assert_array_equal(tinyffn.randn(4, generator=g).numpy(), a)
    tinyffn.set_rng_state(state)                # one generator's state fits another
    np.testing.assert_array_equal(tinyffn.randn(4).numpy(), a)
    with pytest.raises(ValueError, match="set_state: takes the uint8 tensor of 45 entries"):
        g.set_state(tinyffn.zeros(5))


def test_torch_names_and_signatures():
    torch = pytest.importorskip("torch")
    import inspect
    for name in ("manual_seed", "seed", "initial_seed", "get_state", "set_state"):
        assert hasattr(torch.Generator(), name) and hasattr(tinyffn.Generator(), name)
    for name in ("uniform_", "normal_", "trunc_normal_", "xavier_uniform_", "kaiming_normal_",
                 "orthogonal_"):
        assert list(inspect.signature(getattr(nn.init, name)).parameters) == \
            list(inspect.signature(getattr(torch.nn.init, name)).parameters)


@pytest.mark.parametrize("bad, hint", [(1, ""), (np.random.default_rng(0), "make one with"),
                                        ("cpu", "")])
def test_anything_but_a_generator_is_refused(bad, hint):
    with pytest.raises(TypeError, match=f"randn: generator must be a tinyffn.Generator or None, "
                                        f"got .*{hint}"):
        tinyffn.randn(2, generator=bad)
    with pytest.raises(TypeError, match="manual_seed: seed must be an integer"):
        tinyffn.Generator().manual_seed(1.5)
    with pytest.raises(ValueError, match=r"manual_seed: seed must lie in \[-2\^63, 2\^64\)"):
        tinyffn.Generator().manual_seed(2 ** 64)


def test_a_generator_on_every_device(device):
    g = tinyffn.Generator(device=device).manual_seed(0)
    x = tinyffn.randn(3, generator=g, device=device)
    assert x.device == device and g.device == device
    np.testing.assert_array_equal(
        x.numpy(), tinyffn.randn(3, generator=tinyffn.Generator().manual_seed(0)).numpy())


def test_seeds_at_the_ends_of_torchs_range():
    """torch 2.13 takes seeds in [-2^63, 2^64), reading a negative one modulo 2^64, and
    refuses a bool ('manual_seed expected a long, but got bool')."""
    assert tinyffn.Generator().manual_seed(-2 ** 63).initial_seed() == 2 ** 63
    assert tinyffn.Generator().manual_seed(2 ** 64 - 1).initial_seed() == 2 ** 64 - 1
    with pytest.raises(ValueError, match=r"manual_seed: seed must lie in \[-2\^63, 2\^64\)"):
        tinyffn.Generator().manual_seed(-2 ** 63 - 1)
    with pytest.raises(TypeError, match="manual_seed: seed must be an integer, got bool"):
        tinyffn.Generator().manual_seed(True)


def test_seeds_at_the_ends_of_the_range_as_torch():
    torch = pytest.importorskip("torch")
    for s in (-2 ** 63, 2 ** 64 - 1, -1):
        assert tinyffn.Generator().manual_seed(s).initial_seed() == \
            torch.Generator().manual_seed(s).initial_seed()
    with pytest.raises(RuntimeError, match="bool"):
        torch.Generator().manual_seed(True)


def test_seed_is_63_random_bits():
    """seed() draws from secrets.randbits(63), a seed every manual_seed takes back; among
    64 draws one at least is >= 2^62 (else this fails, with probability 2^-64)."""
    seeds = [tinyffn.Generator().seed() for _ in range(64)]
    assert all(0 <= s < 2 ** 63 for s in seeds)
    assert max(seeds) >= 2 ** 62


def test_a_state_with_a_buffered_32_bit_draw_resumes_exactly():
    """randint over a small range draws 32 bits at a time; PCG64 keeps the other half of a
    64-bit word (has_uint32 = 1, and the word), which the state must carry."""
    g = tinyffn.Generator().manual_seed(0)
    tinyffn.randint(0, 10, (3,), generator=g)
    state = g.get_state()
    assert int(state.numpy()[32]) == 1                      # a half word is buffered
    a = tinyffn.randint(0, 10, (9,), generator=g).numpy()
    g.set_state(state)
    np.testing.assert_array_equal(tinyffn.randint(0, 10, (9,), generator=g).numpy(), a)
    other = tinyffn.Generator().set_state(state)            # into a fresh generator too
    np.testing.assert_array_equal(tinyffn.randint(0, 10, (9,), generator=other).numpy(), a)
    # the bytes are NumPy's PCG64 state, little-endian, as get_rng_state's docstring says
    rng = np.random.default_rng(0)
    rng.integers(0, 10, 3)
    s = rng.bit_generator.state
    raw = state.numpy().tobytes()
    assert int.from_bytes(raw[:16], "little") == s["state"]["state"]
    assert int.from_bytes(raw[16:32], "little") == s["state"]["inc"]
    assert raw[32] == s["has_uint32"] and int.from_bytes(raw[33:37], "little") == s["uinteger"]
    assert int.from_bytes(raw[37:], "little") == 0                  # the seed, 8 bytes


@pytest.mark.parametrize("make, match", [
    (lambda good: tinyffn.tensor(np.concatenate([good.numpy(), [0]]).astype(np.uint8)),
     r"got a uint8 tensor of shape \(46,\)$"),
    (lambda good: good.to(dtype=tinyffn.float64), r"got a float64 tensor of shape \(45,\)$"),
    (lambda good: tinyffn.zeros(37, dtype=tinyffn.uint8),
     r"got a uint8 tensor of shape \(37,\) whose increment \(bytes 16 to 31\) is even, which "
     r"no PCG64 state has"),
    (lambda good: tinyffn.tensor(np.concatenate([good.numpy()[:32], [2], good.numpy()[33:]])
                                 .astype(np.uint8)), r"got a uint8 tensor of shape \(45,\)$"),
    (lambda good: tinyffn.zeros(5056, dtype=tinyffn.uint8),
     r"got a uint8 tensor of shape \(5056,\); PyTorch's state \(5056 bytes\) is of its "
     r"Mersenne Twister"),
    (lambda good: good.numpy(), "got numpy.ndarray"),
])
def test_a_state_that_is_not_one_is_refused(make, match):
    good = tinyffn.Generator().manual_seed(0).get_state()
    g = tinyffn.Generator().manual_seed(1)
    before = g.get_state().numpy()
    with pytest.raises(ValueError, match=re.escape("set_state: takes the uint8 tensor of 45 "
                                                   "entries that tinyffn.get_rng_state() returns, ")
                       + match):
        g.set_state(make(good))
    np.testing.assert_array_equal(g.get_state().numpy(), before)     # left as it was
    with pytest.raises(ValueError, match="^set_rng_state: takes"):
        tinyffn.set_rng_state(make(good))


def test_a_fresh_process_starts_from_seed_0():
    """default_generator is seeded with 0 at import (Generator() itself with torch's
    67280421310721): a script that never seeds draws NumPy's default_rng(0) numbers."""
    import subprocess
    import sys
    code = ("import tinyffn; print(tinyffn.initial_seed()); "
            "print(tinyffn.randn(3, dtype=tinyffn.float64).numpy().tolist())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split("\n")
    assert out[0] == "0"
    np.testing.assert_array_equal(eval(out[1]), np.random.default_rng(0).standard_normal(3))


def test_a_torch_generator_is_refused_with_a_hint():
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match=r"randn: generator must be a tinyffn.Generator or None, "
                                        r"got torch\._C\.Generator; make one with "
                                        r"tinyffn\.Generator\(\)\.manual_seed\(s\)"):
        tinyffn.randn(2, generator=torch.Generator())


def test_repr_names_device_and_seed():
    assert repr(tinyffn.Generator().manual_seed(3)) == \
        "<tinyffn.Generator device='cpu' initial_seed=3>"


def test_get_rng_state_is_the_default_generators():
    tinyffn.manual_seed(4)
    tinyffn.randn(5)
    state = tinyffn.get_rng_state()
    np.testing.assert_array_equal(state.numpy(), tinyffn.default_generator.get_state().numpy())
    a = tinyffn.randn(3).numpy()
    tinyffn.set_rng_state(state)
    np.testing.assert_array_equal(tinyffn.randn(3).numpy(), a)


# ----------------------------------------------------------------------------- torch 2.13's
# behaviour, checked there first: hasattr(torch.Generator(), "clone_state") is True;
# torch.manual_seed(1.0) seeds 1 (it calls int(seed), so 1.5 seeds 1 too) while
# torch.Generator().manual_seed(1.0) raises "manual_seed expected a long, but got float";
# a state given to set_state brings its seed (initial_seed() is then the seed of the
# generator the state came from); torch.randint(0, 2**24 + 2, dtype=float32) warns "to - 1
# is out of bounds [-(2^24), 2^24]" and float16 past 2^11 raises.
def test_clone_state_draws_what_the_generator_would_draw_next():
    g = tinyffn.Generator().manual_seed(5)
    tinyffn.randn(3, generator=g)
    c = g.clone_state()
    assert isinstance(c, tinyffn.Generator) and c is not g
    assert c.initial_seed() == 5 and c.device == g.device
    a = tinyffn.randn(4, generator=c).numpy()
    np.testing.assert_array_equal(tinyffn.randn(4, generator=g).numpy(), a)
    reference = np.random.default_rng(5)                # the seed's PCG64, 3 + 4 draws on
    reference.standard_normal(3)
    np.testing.assert_array_equal(a, reference.standard_normal(4).astype(np.float32))
    tinyffn.randn(2, generator=c)                       # the two go on apart
    np.testing.assert_array_equal(tinyffn.randn(1, generator=g).numpy(),
                                  reference.standard_normal(1).astype(np.float32))
    assert tinyffn.Generator(device="strict").clone_state().device == "strict"


def test_clone_state_is_torchs_live():
    torch = pytest.importorskip("torch")
    g = torch.Generator().manual_seed(5)
    torch.randn(3, generator=g)
    c = g.clone_state()
    assert c is not g and c.initial_seed() == 5
    assert torch.randn(4, generator=c).tolist() == torch.randn(4, generator=g).tolist()


def test_manual_seed_takes_a_whole_float_as_torch_and_refuses_a_fraction():
    a = tinyffn.randn(3, generator=tinyffn.manual_seed(1.0)).numpy()
    assert tinyffn.initial_seed() == 1 and isinstance(tinyffn.initial_seed(), int)
    np.testing.assert_array_equal(a, tinyffn.randn(3, generator=tinyffn.manual_seed(1)).numpy())
    assert tinyffn.manual_seed(np.float64(2.0)).initial_seed() == 2
    assert tinyffn.manual_seed(-1.0).initial_seed() == 2 ** 64 - 1              # as torch
    with pytest.raises(TypeError, match=r"manual_seed: seed must be an integer, got 1\.5, a "
                                        r"fraction \(PyTorch truncates it to 1\)"):
        tinyffn.manual_seed(1.5)
    with pytest.raises(TypeError, match=r"manual_seed: seed must be an integer, got nan; pass"):
        tinyffn.manual_seed(float("nan"))
    with pytest.raises(TypeError, match="manual_seed: seed must be an integer, got float"):
        tinyffn.Generator().manual_seed(1.0)            # as torch.Generator's
    tinyffn.cuda.manual_seed(3.0)
    assert tinyffn.initial_seed() == 3


def test_manual_seed_of_a_float_is_torchs_live():
    torch = pytest.importorskip("torch")
    before = torch.get_rng_state()
    try:
        assert torch.manual_seed(1.0).initial_seed() == 1
        assert torch.manual_seed(-1.0).initial_seed() == 2 ** 64 - 1
        assert torch.manual_seed(1.5).initial_seed() == 1     # truncated: tinyffn refuses
        with pytest.raises(RuntimeError, match="expected a long, but got float"):
            torch.Generator().manual_seed(1.0)
    finally:
        torch.set_rng_state(before)


def test_the_state_carries_the_seed_as_torchs():
    g = tinyffn.Generator().manual_seed(5)
    tinyffn.randn(2, generator=g)
    state = g.get_state()
    assert int.from_bytes(bytes(state.numpy()[37:]), "little") == 5
    other = tinyffn.Generator().manual_seed(7).set_state(state)
    assert other.initial_seed() == 5
    np.testing.assert_array_equal(tinyffn.randn(3, generator=other).numpy(),
                                  tinyffn.randn(3, generator=g).numpy())
    tinyffn.manual_seed(9)
    tinyffn.set_rng_state(state)
    assert tinyffn.initial_seed() == 5
    big = tinyffn.Generator().manual_seed(2 ** 64 - 1).get_state()           # 8 bytes hold it
    assert tinyffn.Generator().set_state(big).initial_seed() == 2 ** 64 - 1
    old = tinyffn.tensor(state.numpy()[:37])    # 37 bytes, as tinyffn wrote before: the
    legacy = tinyffn.Generator().manual_seed(9).set_state(old)     # draws, and no seed
    assert legacy.initial_seed() == 9
    g.set_state(state)
    np.testing.assert_array_equal(tinyffn.randn(3, generator=legacy).numpy(),
                                  tinyffn.randn(3, generator=g).numpy())


def test_the_state_carries_the_seed_in_torch_live():
    torch = pytest.importorskip("torch")
    state = torch.Generator().manual_seed(5).get_state()
    assert torch.Generator().manual_seed(7).set_state(state).initial_seed() == 5


@pytest.mark.parametrize("dtype, low, high, ok", [
    ("float32", 0, 2 ** 24 + 1, True), ("float32", -2 ** 24, 0, True),
    ("float32", 0, 2 ** 24 + 2, False), ("float32", -2 ** 24 - 1, 0, False),
    ("float16", 0, 2 ** 11 + 1, True), ("float16", 0, 2 ** 11 + 2, False),
    ("float64", 0, 2 ** 53 + 1, True), ("float64", 0, 2 ** 53 + 2, False)])
def test_randint_into_a_float_dtype_stays_within_its_exact_integers_as_randint_like(
        dtype, low, high, ok):
    """The bounds of randint_like and random_: every integer drawn is one the dtype holds
    exactly (float32 rounds 2^24 + 1 to 2^24)."""
    like = tinyffn.zeros(1, dtype=dtype)
    if ok:
        x = tinyffn.randint(low, high, (50,), dtype=dtype)
        assert dtype_name(x.dtype) == dtype
        assert low <= x.numpy().astype(np.float64).min() and x.numpy().max() <= high - 1
        tinyffn.randint_like(like, low, high)
        return
    match = (r"outside the integers " + dtype + r" holds exactly \(-" +
             str(2 ** (np.finfo(dtype).nmant + 1)))
    with pytest.raises(ValueError, match="randint: .*" + match):
        tinyffn.randint(low, high, (2,), dtype=dtype)
    with pytest.raises(ValueError, match="randint_like: .*" + match):
        tinyffn.randint_like(like, low, high)


def test_randint_past_float32s_exact_integers_warns_in_torch_live():
    torch = pytest.importorskip("torch")
    with pytest.warns(UserWarning, match=r"out of bounds \[-\(2\^24\), 2\^24\]"):
        torch.randint(0, 2 ** 24 + 2, (2,), dtype=torch.float32)
    with pytest.raises(RuntimeError, match="out of bounds for c10::Half"):
        torch.randint(0, 2 ** 16, (2,), dtype=torch.float16)
