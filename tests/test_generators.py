"""tinyffn.Generator and generator=: each draw function takes one and draws from it alone,
as torch.Generator; manual_seed, seed, initial_seed, get/set_state; the refusals."""
import numpy as np
import pytest

import tinyffn
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
    assert state.dtype == np.uint8 and state.shape == (37,)
    a = tinyffn.randn(4, generator=g).numpy()
    assert g.set_state(state) is g
    np.testing.assert_array_equal(tinyffn.randn(4, generator=g).numpy(), a)
    tinyffn.set_rng_state(state)                # one generator's state fits another
    np.testing.assert_array_equal(tinyffn.randn(4).numpy(), a)
    with pytest.raises(ValueError, match="set_state: takes the uint8 tensor of 37 entries"):
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
