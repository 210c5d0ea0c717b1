"""Moving tensors and models between devices, and parity with the CPU.

The "other" device is CuPy on a machine with a GPU; everywhere, it is also the strict
array-API backend, so these paths run (and stay honest) on a CPU-only machine too.
"""
import numpy as np
import pytest

import tinyffn
from tinyffn import nn

OTHER = [
    "strict",
    pytest.param("cuda", marks=[pytest.mark.cuda, pytest.mark.skipif(
        not tinyffn.cuda_available(), reason="CuPy with a usable GPU is not available")]),
]

MODELS = {
    "ffn-relu": lambda: nn.FFN(16, activation="relu"),
    "ffn-gelu": lambda: nn.FFN(16, activation="gelu"),
    "ffn-gelu-tanh": lambda: nn.FFN(16, activation="gelu_tanh"),
    "ffn-swish": lambda: nn.FFN(16, activation="swish"),
    "ffn-gelu-fused": lambda: nn.FFN(16, activation="gelu", fused=True),
    "swiglu": lambda: nn.GatedFFN(16, activation="swish"),
    "geglu": lambda: nn.GatedFFN(16, activation="gelu"),
    "layernorm-ffn": lambda: nn.Sequential(nn.LayerNorm(16), nn.FFN(16, activation="gelu")),
    "rmsnorm-swiglu": lambda: nn.Sequential(nn.RMSNorm(16), nn.GatedFFN(16)),
}


@pytest.mark.parametrize("other", OTHER)
def test_tensor_round_trip(other):
    x = tinyffn.randn(3, 4, requires_grad=True)
    there = x.to(other)
    assert there.device == other and there.requires_grad and there.is_leaf
    back = there.to("cpu")
    np.testing.assert_array_equal(back.numpy(), x.numpy())
    assert back.device == "cpu"


@pytest.mark.parametrize("other", OTHER)
def test_mixing_devices_raises_naming_both(other):
    a, b = tinyffn.randn(2, 3), tinyffn.randn(3, 2, device=other)
    with pytest.raises(tinyffn.DeviceError, match=f"matmul: inputs are on different devices "
                                                  f"\\(cpu and {other}\\)"):
        a @ b
    model = nn.FFN(3)
    with pytest.raises(tinyffn.DeviceError, match="different devices"):
        model(tinyffn.randn(2, 3, device=other))


@pytest.mark.parametrize("other", OTHER)
@pytest.mark.parametrize("name", sorted(MODELS))
def test_model_parity_with_cpu(name, other):
    """Same weights, same input: outputs and all gradients agree within float32 tolerance."""
    tinyffn.manual_seed(5)
    model = MODELS[name]()
    x_cpu = tinyffn.randn(2, 7, 16, requires_grad=True)
    gy = tinyffn.randn(2, 7, 16)
    y_cpu = model(x_cpu)
    y_cpu.backward(gy)
    cpu_grads = {k: p.grad.numpy() for k, p in model.named_parameters()}

    model.zero_grad()
    model.to(other)
    assert all(p.device == other for p in model.parameters())
    x = x_cpu.detach().to(other).requires_grad_()
    y = model(x)
    y.backward(gy.to(other))
    np.testing.assert_allclose(y.numpy(), y_cpu.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(x.grad.numpy(), x_cpu.grad.numpy(), rtol=1e-4, atol=1e-5)
    for k, p in model.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), cpu_grads[k], rtol=1e-4, atol=1e-4,
                                   err_msg=f"gradient of {k}")

    model.to("cpu")
    assert all(p.device == "cpu" for p in model.parameters())
    np.testing.assert_allclose(model(x_cpu).numpy(), y_cpu.numpy(), rtol=1e-6)


@pytest.mark.parametrize("other", OTHER)
def test_gradcheck_of_whole_ffn_in_float64_on_device(other):
    tinyffn.manual_seed(6)
    model = nn.FFN(3, activation="gelu", dtype="float64", device=other)
    x = tinyffn.randn(2, 3, dtype="float64", device=other, requires_grad=True)
    params = list(model.parameters())

    def f(x, *ps):
        return model(x)

    assert tinyffn.gradcheck(f, [x, *params])


@pytest.mark.parametrize("other", OTHER)
def test_training_step_on_device(other):
    tinyffn.manual_seed(7)
    model = nn.FFN(4, device=other)
    opt = tinyffn.optim.Adam(model.parameters(), lr=1e-2)
    x = tinyffn.randn(8, 4, device=other)
    losses = []
    for _ in range(20):
        opt.zero_grad()
        loss = tinyffn.functional.mse_loss(model(x), x)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]
    assert all(p.device == other for p in model.parameters())


@pytest.mark.parametrize("other", OTHER)
def test_a_state_dict_loads_into_a_model_on_another_device(other):
    """As torch's load_state_dict of a GPU checkpoint into a CPU model: each value is
    copied onto the device of the parameter it fills, both ways."""
    tinyffn.manual_seed(3)
    there, here = nn.FFN(3, device=other), nn.FFN(3)
    expected = {k: p.numpy() for k, p in there.named_parameters()}
    assert here.load_state_dict(there.state_dict()) == ([], [])
    for k, p in here.named_parameters():
        assert p.device == "cpu"
        np.testing.assert_array_equal(p.numpy(), expected[k])
    here.w2.bias.data = here.w2.bias.data + 1.0
    assert there.load_state_dict(here.state_dict()) == ([], [])
    assert all(p.device == other for p in there.parameters())
    np.testing.assert_array_equal(there.w2.bias.numpy(), expected["w2.bias"] + 1.0)


@pytest.mark.parametrize("other", OTHER)
def test_a_computed_tensor_cannot_move_out_of_its_graph(other):
    """Moving it would make a new leaf: the layers before it would silently get no grad."""
    layer = nn.Linear(3, 2)
    h = layer(tinyffn.randn(4, 3))
    with pytest.raises(RuntimeError, match=f"to: this tensor was computed by add on cpu.*"
                                           f"moving it to {other} would cut the graph"):
        h.to(other)
    assert h.detach().to(other).device == other          # no gradient wanted: fine
    with tinyffn.no_grad():
        assert layer(tinyffn.randn(4, 3)).to(other).device == other


@pytest.mark.parametrize("other", OTHER)
def test_an_index_or_targets_on_another_device_is_a_device_error(other):
    x = tinyffn.randn(3, 4)
    with pytest.raises(tinyffn.DeviceError, match=f"getitem: the index is on {other} but the "
                                                  "tensor on cpu; move the index with"):
        x[tinyffn.tensor([0, 2], device=other)]
    with pytest.raises(tinyffn.DeviceError, match=f"cross_entropy: targets are on {other}"):
        tinyffn.functional.cross_entropy(x, tinyffn.tensor([0, 1, 2], device=other))


# the array API standard's one limit the fuzzer's programs meet: an index array with a slice
STRICT_LIMIT = "Integer index arrays are only allowed with integer indices"


@pytest.mark.parametrize("other", OTHER)
def test_the_fuzzers_programs_give_the_cpus_results(other):
    """tests/torch_fuzz.py's random programs (views, broadcasting, fan-out, second order)
    run on the other device and on the CPU: the same values, dtypes and gradients. No
    torch needed, so on a GPU machine this puts CuPy's kernels through some 60 ops."""
    compared, _ = _device_parity(other, range(60))
    assert compared >= 50, f"only {compared} of 60 programs compared"


def _device_parity(other, seeds, order=None):
    """(programs compared, names called) of the fuzzer's programs ``seeds`` (of ``order``
    where given) run on ``other``: each gives the CPU's results or is skipped."""
    import torch_fuzz
    failures, compared, calls = [], 0, set()
    for seed in seeds:
        program = torch_fuzz.generate(seed, order)
        calls |= torch_fuzz._calls(program)
        got = torch_fuzz.check_on_device(program, other)
        if got is None:
            compared += 1
        elif got[0] != "skip" and not (other == "strict" and STRICT_LIMIT in got[1]):
            failures.append(f"seed {seed}: {got[1]}")
    assert not failures, f"{other} differs from the CPU:\n" + "\n".join(failures)
    return compared, calls


@pytest.mark.parametrize("other", OTHER)
def test_the_fuzzers_later_families_give_the_cpus_results(other):
    """The same for the families the fuzzer draws from EXTRA_FROM on (linalg, convolutions,
    pools, losses, attention, einsum, scatter, pad, ...) and from LATEST_FROM on (tan and
    the inverse functions, the operators as functions, the stackers, mv, addmv, ...), both
    orders, then second order only; their M.eye and M.arange are made on the device too."""
    import torch_fuzz
    compared, calls = _device_parity(other, range(torch_fuzz.EXTRA_FROM + 500_000,
                                                  torch_fuzz.EXTRA_FROM + 500_020))
    more, latest = _device_parity(other, range(torch_fuzz.LATEST_FROM + 500_000,
                                               torch_fuzz.LATEST_FROM + 500_020), order=2)
    assert compared + more >= 36, f"only {compared + more} of 40 programs compared"
    drawn = {"eye", "inv", "solve", "matrix_exp", "cholesky_inverse", "conv1d", "conv2d",
             "interpolate", "scaled_dot_product_attention", "einsum", "pad", "index_add",
             "scatter_add", "polygamma", "erfcx", "kl_div", "tan", "asin", "atanh", "divide",
             "multi_dot", "bilinear", "quantile"}
    assert drawn <= calls | latest, sorted(drawn - calls - latest)
