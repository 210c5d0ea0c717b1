"""tinyffn.save and tinyffn.load: values bit for bit, dtypes, devices and map_location,
what a loaded tensor is (against torch.save/torch.load 2.13, whose answers are written out
below and checked live where torch is installed), resuming training exactly (with the
generator's state, get_rng_state and set_rng_state), plain
pickles, the restricted unpickler's refusals (a file that would run a shell command among
them) and every error."""
import collections
import io
import os
import pickle
import pickletools
import shlex
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import tinyffn
from tinyffn import functional as F
from tinyffn import nn, optim, serialization
from tinyffn.backend import dtype_name
from tinyffn.optim import lr_scheduler


def round_trip(obj, **load_kwargs):
    buf = io.BytesIO()
    tinyffn.save(obj, buf)
    buf.seek(0)
    return tinyffn.load(buf, **load_kwargs)


def special_values(dtype):
    """Values whose bits a careless format would change: NaN, -0.0, infinities, a
    subnormal, a value that does not round-trip through fewer digits; or integer limits."""
    if np.dtype(dtype).kind == "f":
        info = np.finfo(dtype)
        return np.array([np.nan, -0.0, np.inf, -np.inf, info.smallest_subnormal, 1 / 3,
                         info.max], dtype=dtype)
    if dtype == "bool":
        return np.array([True, False, True])
    return np.array([np.iinfo(dtype).min, -1 if np.dtype(dtype).kind == "i" else 1,
                     np.iinfo(dtype).max], dtype=dtype)


DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]


# ----------------------------------------------------------------------------- values
@pytest.mark.parametrize("dtype", DTYPES)
def test_values_dtype_shape_and_device_come_back_bit_for_bit(device, dtype):
    if device == "strict" and dtype == "float16":
        pytest.skip("the strict backend has no float16")
    values = special_values(dtype)
    shapes = [(), (0, 3), (3,), (2, 3, 4)]
    tensors = [tinyffn.tensor(np.resize(values, shape), device=device) for shape in shapes]
    loaded = round_trip(tensors)
    for x, y in zip(tensors, loaded):
        assert type(y) is tinyffn.Tensor
        assert (y.shape, y.device, y.numpy().dtype.name) == (x.shape, device, dtype)
        assert y.numpy().tobytes() == x.numpy().tobytes()        # bits, NaN and -0.0 too
        assert not y.requires_grad and y.grad_fn is None


def test_a_big_endian_array_saves_its_values_not_its_bytes():
    """tensor() and Tensor() make a big-endian array native, but x.data = array stores the
    array as it is (as np.load of a '>f4' file gives it); the file is little-endian, so
    save must swap its bytes on the way out, and load gives native ones."""
    for dtype in (">f4", ">f8", ">i4"):
        values = np.array([[-1.5, 0.25, 3.0], [1e6, -2.0, 7.0]]).astype(dtype)
        x = tinyffn.tensor(values)
        x.data = values
        assert not x.numpy().dtype.isnative         # else this checks no byte swap at all
        y = round_trip(x)
        assert y.numpy().dtype == np.dtype(dtype).newbyteorder("=")
        np.testing.assert_array_equal(y.numpy(), values)


def test_a_transposed_view_saves_its_values_and_loads_as_its_own(device):
    base = tinyffn.arange(6, dtype="float32", device=device).reshape(2, 3)
    view = base.T                                  # a view, and not contiguous
    loaded_base, loaded_view = round_trip((base, view))
    np.testing.assert_array_equal(loaded_view.numpy(), [[0, 3], [1, 4], [2, 5]])
    assert getattr(loaded_view, "_view", None) is None
    with pytest.raises(RuntimeError, match="made from another tensor"):
        view.zero_()
    loaded_view.zero_()                            # the loaded one is a tensor of its own
    loaded_base.data[...] = 7                      # an array of its own, writable, and
    np.testing.assert_array_equal(loaded_view.numpy(), np.zeros((3, 2)))   # shared with none


def test_state_dict_snapshots_load_as_tensors_that_take_changes_in_place(device):
    model = nn.Linear(3, 2).to(device)
    saved = model.state_dict()
    with pytest.raises(RuntimeError, match="made from another tensor"):
        saved["weight"].zero_()
    loaded = round_trip(saved)
    assert list(loaded) == ["weight", "bias"]
    loaded["weight"].zero_()
    np.testing.assert_array_equal(model.weight.numpy(), saved["weight"].numpy())


def test_one_object_saved_twice_loads_as_one_object(device):
    w = nn.Parameter(tinyffn.randn(2, 2, device=device))
    loaded = round_trip({"a": w, "b": [w, w]})
    assert loaded["a"] is loaded["b"][0] is loaded["b"][1]


# ----------------------------------------------------------------------------- as torch
def cases(m):
    """The same tensors in tinyffn (m = tinyffn) and in PyTorch (m = torch)."""
    x = m.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    p = m.nn.Parameter(m.tensor([3.0, 4.0]))
    frozen = m.nn.Parameter(m.tensor([5.0]))
    frozen.requires_grad_(False)
    (y.sum() + p.sum()).backward()
    return {"leaf": x, "computed": y, "plain": m.tensor([1, 2]), "parameter": p,
            "frozen": frozen, "detached": x.detach(),
            "state_dict": m.nn.Linear(2, 2).state_dict()["weight"]}


def what_loaded(loaded):
    return {k: (type(t).__name__, t.requires_grad, t.is_leaf, t.grad is None)
            for k, t in loaded.items()}


# torch 2.13: what torch.load(torch.save(cases(torch))) gives, (class, requires_grad,
# is_leaf, grad is None): no gradient saved, a computed tensor back as a leaf that
# requires grad, a Parameter back as a Parameter, frozen or not.
TORCH_LOADED = {"leaf": ("Tensor", True, True, True), "computed": ("Tensor", True, True, True),
                "plain": ("Tensor", False, True, True),
                "parameter": ("Parameter", True, True, True),
                "frozen": ("Parameter", False, True, True),
                "detached": ("Tensor", False, True, True),
                "state_dict": ("Tensor", False, True, True)}


def test_what_comes_back_is_what_torch_load_gives():
    original = cases(tinyffn)
    loaded = round_trip(original)
    assert what_loaded(loaded) == TORCH_LOADED
    for k, t in original.items():
        np.testing.assert_array_equal(loaded[k].numpy(), t.numpy())


def test_what_comes_back_against_torch():
    torch = pytest.importorskip("torch")
    buf = io.BytesIO()
    torch.save(cases(torch), buf)
    buf.seek(0)
    assert what_loaded(torch.load(buf)) == TORCH_LOADED


def test_parameter_names_come_back_with_a_whole_model_trusted():
    model = nn.FFN(4, 8)
    x = tinyffn.randn(3, 4)
    loaded = round_trip(model, weights_only=False)
    assert type(loaded) is nn.FFN
    assert [p.name for p in loaded.parameters()] == [p.name for p in model.parameters()] \
        == ["w1.weight", "w1.bias", "w2.weight", "w2.bias"]
    np.testing.assert_array_equal(loaded(x).numpy(), model(x).numpy())
    with pytest.raises(pickle.UnpicklingError, match=r"tinyffn\.nn\.FFN.*save state_dict"):
        round_trip(model)


# ----------------------------------------------------------------------------- devices
def test_map_location_moves_every_tensor(device):
    x = tinyffn.randn(2, 3, device=device, requires_grad=True)
    for where in ("cpu", tinyffn.device("cpu"), {device: "cpu"}, {"strict": "cpu", "cpu": "cpu",
                                                                  "cuda:0": "cpu"}):
        y = round_trip(x, map_location=where)
        assert (y.device, y.requires_grad) == ("cpu", True)
        assert y.numpy().tobytes() == x.numpy().tobytes()
    y = round_trip(tinyffn.randn(2, device="cpu"), map_location="strict")
    assert y.device == "strict"
    absent = "strict" if device == "cuda" else "cuda"      # a device not in the file
    y = round_trip(x, map_location={absent: "cpu"})
    assert y.device == device


class SavedOn:
    """Pickles as the call tinyffn.save writes for a tensor, with any arguments: a tensor
    saved on another machine (on "cuda"), or a damaged file."""

    def __init__(self, *args):
        self.args = args

    def __reduce__(self):
        return serialization._rebuild_tensor, self.args


def gpu_file():
    data = np.array([1.5, -2.0], dtype="<f4").tobytes()
    return io.BytesIO(pickle.dumps(SavedOn(data, "float32", (2,), "cuda", True, False, None)))


def test_a_gpu_tensor_loads_on_the_cpu_with_map_location():
    x = tinyffn.load(gpu_file(), map_location="cpu")
    np.testing.assert_array_equal(x.numpy(), [1.5, -2.0])
    assert (x.device, x.requires_grad) == ("cpu", True)


@pytest.mark.skipif(tinyffn.cuda_available(), reason="this machine can load onto the GPU")
def test_a_gpu_tensor_without_a_gpu_says_to_pass_map_location():
    with pytest.raises(tinyffn.DeviceError, match=r"saved on 'cuda'.*map_location='cpu'"):
        tinyffn.load(gpu_file())


@pytest.mark.cuda
@pytest.mark.skipif(not tinyffn.cuda_available(), reason="needs a usable GPU")
def test_a_gpu_tensor_loads_back_onto_the_gpu():
    assert tinyffn.load(gpu_file()).device == "cuda"


# ----------------------------------------------------------------------------- resuming
def run(model, opt, sched, x, target, steps):
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = F.mse_loss(model(x), target)
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
    return losses


TRAININGS = ["AdamW+warmup+cosine", "Adam-amsgrad+OneCycleLR", "SGD-nesterov+StepLR"]


def build(training, device, seed):
    """A model (its initial weights drawn from ``seed``), its optimizer with two parameter
    groups (weight decay on the matrices only) and a scheduler."""
    tinyffn.manual_seed(seed)
    model = nn.FFN(4, 16).to(device)
    groups = [{"params": [p for p in model.parameters() if p.ndim >= 2], "weight_decay": 0.1},
              {"params": [p for p in model.parameters() if p.ndim < 2], "weight_decay": 0.0}]
    if training == "AdamW+warmup+cosine":
        opt = optim.AdamW(groups, lr=1e-2, betas=(0.9, 0.95))
        sched = lr_scheduler.SequentialLR(
            opt, [lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=3),
                  lr_scheduler.CosineAnnealingLR(opt, T_max=7, eta_min=1e-4)], milestones=[3])
    elif training == "Adam-amsgrad+OneCycleLR":          # OneCycleLR moves beta1 as well
        opt = optim.Adam(groups, lr=1e-2, amsgrad=True)
        sched = lr_scheduler.OneCycleLR(opt, max_lr=0.05, total_steps=10)
    else:
        opt = optim.SGD(groups, lr=0.05, momentum=0.9, nesterov=True)
        sched = lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    return model, opt, sched


@pytest.mark.parametrize("training", TRAININGS)
def test_saving_and_resuming_gives_the_losses_of_training_straight_through(
        device, training, tmp_path):
    x = tinyffn.randn(8, 4, device=device)
    target = tinyffn.randn(8, 4, device=device)
    straight = run(*build(training, device, seed=1), x, target, steps=10)

    model, opt, sched = build(training, device, seed=1)
    first = run(model, opt, sched, x, target, steps=5)
    tinyffn.save({"model": model.state_dict(), "optimizer": opt.state_dict(),
                  "scheduler": sched.state_dict(), "step": 5}, tmp_path / "ckpt.pt")
    del model, opt, sched
    model, opt, sched = build(training, device, seed=2)      # other initial weights
    checkpoint = tinyffn.load(tmp_path / "ckpt.pt")
    model.load_state_dict(checkpoint["model"])
    opt.load_state_dict(checkpoint["optimizer"])
    sched.load_state_dict(checkpoint["scheduler"])
    assert checkpoint["step"] == 5
    assert first + run(model, opt, sched, x, target, steps=5) == straight


def test_the_generator_state_is_numpys_pcg64_state_and_draws_again_what_was_drawn():
    """``get_rng_state()``: the 37 bytes of the PCG64 state (then the 8 of the seed) NumPy's own generator, seeded and
    drawn from alike, is in (an independent reference); ``set_rng_state`` gives it back,
    also with a buffered 32-bit half (``has_uint32``), after another seed."""
    tinyffn.manual_seed(7)
    tinyffn.randn(5)
    reference = np.random.default_rng(7)
    reference.standard_normal(5)
    state = tinyffn.get_rng_state()
    raw = bytes(state.numpy())
    expected = reference.bit_generator.state
    assert dtype_name(state.dtype) == "uint8" and state.shape == (45,)
    assert int.from_bytes(raw[:16], "little") == expected["state"]["state"]
    assert int.from_bytes(raw[16:32], "little") == expected["state"]["inc"]
    drawn = [tinyffn.randn(3).tolist(), tinyffn.randperm(6).tolist(), tinyffn.rand(2).tolist()]
    tinyffn.manual_seed(99)
    tinyffn.set_rng_state(state)
    assert [tinyffn.randn(3).tolist(), tinyffn.randperm(6).tolist(),
            tinyffn.rand(2).tolist()] == drawn
    generator = tinyffn.generators.generator()
    generator.integers(0, 10, dtype=np.uint32)       # buffers 32 bits
    half = tinyffn.get_rng_state()
    assert half.tolist()[32] == 1
    drawn = generator.integers(0, 1000, size=4, dtype=np.uint32).tolist()
    tinyffn.set_rng_state(half)
    assert generator.integers(0, 1000, size=4, dtype=np.uint32).tolist() == drawn


def test_pytorchs_generator_state_is_used_the_same_way():
    """The idiom tinyffn follows: the state as a uint8 tensor, and the draws after
    ``set_rng_state`` those after ``get_rng_state``. Its bytes are PyTorch's own: refused."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(7)
    state = torch.get_rng_state()
    drawn = torch.randn(3).tolist()
    torch.set_rng_state(state)
    assert state.dtype == torch.uint8 and torch.randn(3).tolist() == drawn
    with pytest.raises(ValueError, match=r"set_rng_state: takes the uint8 tensor of 45 entries "
                                         r"that tinyffn.get_rng_state\(\) returns, got a uint8 "
                                         r"tensor of shape \(5056,\); PyTorch's state"):
        tinyffn.set_rng_state(tinyffn.tensor(state.numpy()))


@pytest.mark.parametrize("bad", [tinyffn.zeros(37), tinyffn.zeros(36, dtype="uint8"),
                                 tinyffn.full((37,), 2, dtype="uint8"), [0] * 37])
def test_set_rng_state_refuses_what_get_rng_state_does_not_give(bad):
    with pytest.raises(ValueError, match=r"set_rng_state: takes the uint8 tensor of 45 entries"):
        tinyffn.set_rng_state(bad)


def test_set_rng_state_refuses_an_even_increment_with_which_every_draw_is_zero():
    """NumPy takes a PCG64 state of 37 zero bytes (a checkpoint entry zeroed or never
    filled) and then draws 0 for ever: randn all zeros, every dropout mask alike. Every
    state get_rng_state gives has an odd increment; an even one is refused."""
    zeros = np.random.Generator(np.random.PCG64())
    zeros.bit_generator.state = {"bit_generator": "PCG64", "has_uint32": 0, "uinteger": 0,
                                 "state": {"state": 0, "inc": 0}}
    assert zeros.standard_normal(3).tolist() == [0.0, 0.0, 0.0]     # what it would do
    assert tinyffn.get_rng_state().tolist()[16] % 2 == 1
    before = tinyffn.get_rng_state().tolist()
    with pytest.raises(ValueError, match=r"got a uint8 tensor of shape \(37,\) whose increment "
                                         r"\(bytes 16 to 31\) is even, which no PCG64 state"):
        tinyffn.set_rng_state(tinyffn.zeros(37, dtype="uint8"))
    assert tinyffn.get_rng_state().tolist() == before


def test_a_run_that_draws_as_it_goes_resumes_exactly_with_the_generator_state(tmp_path):
    """Dropout masks and a randperm of the data each step draw from the generator, so a
    resumed run repeats the straight one only if the checkpoint holds its state too."""
    def steps(model, opt, x, target, n):
        losses = []
        for _ in range(n):
            order = tinyffn.randperm(8)[:4]
            opt.zero_grad()
            loss = F.mse_loss(F.dropout(model(x[order]), 0.3), target[order])
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses

    def build():
        tinyffn.manual_seed(1)
        model = nn.FFN(4, 16)
        return model, optim.AdamW(model.parameters(), lr=1e-2)

    x, target = tinyffn.randn(8, 4), tinyffn.randn(8, 4)
    model, opt = build()
    straight = steps(model, opt, x, target, 6)
    model, opt = build()
    first = steps(model, opt, x, target, 3)
    tinyffn.save({"model": model.state_dict(), "opt": opt.state_dict(),
                  "rng": tinyffn.get_rng_state()}, tmp_path / "ckpt.pt")
    ckpt = tinyffn.load(tmp_path / "ckpt.pt")
    for with_state in (False, True):
        model, opt = build()                            # draws: the generator moves on
        model.load_state_dict(ckpt["model"])
        opt.load_state_dict(ckpt["opt"])
        if with_state:
            tinyffn.set_rng_state(ckpt["rng"])
        assert (first + steps(model, opt, x, target, 3) == straight) == with_state


def test_an_optimizer_state_dict_round_trips_exactly(device):
    model, opt, sched = build("AdamW+warmup+cosine", device, seed=0)
    run(model, opt, sched, tinyffn.randn(8, 4, device=device),
        tinyffn.randn(8, 4, device=device), steps=2)
    saved = opt.state_dict()
    loaded = round_trip(saved)
    assert loaded["param_groups"] == saved["param_groups"]     # floats, tuples, lists exactly
    assert type(loaded["param_groups"][0]["betas"]) is tuple
    assert loaded["state"].keys() == saved["state"].keys()
    for i, state in saved["state"].items():
        assert state.keys() == loaded["state"][i].keys() == {"step", "exp_avg", "exp_avg_sq"}
        assert type(loaded["state"][i]["step"]) is int and loaded["state"][i]["step"] == 2
        for k in ("exp_avg", "exp_avg_sq"):
            v, w = state[k], loaded["state"][i][k]
            assert (w.numpy().tobytes(), w.device) == (v.numpy().tobytes(), v.device)
    assert round_trip(sched.state_dict()) == sched.state_dict()


# ----------------------------------------------------------------------------- files
def test_paths_and_file_objects(tmp_path):
    x = tinyffn.randn(3)
    for path in (str(tmp_path / "a.pt"), tmp_path / "b.pt"):
        tinyffn.save(x, path)
        np.testing.assert_array_equal(tinyffn.load(path).numpy(), x.numpy())
    with open(tmp_path / "c.pt", "wb") as f:
        tinyffn.save({"x": x}, f)
        tinyffn.save("second", f)                   # one object after another, as pickle
    with open(tmp_path / "c.pt", "rb") as f:
        np.testing.assert_array_equal(tinyffn.load(f)["x"].numpy(), x.numpy())
        assert tinyffn.load(f) == "second"


class ReadOnly:
    """A file object that can only read (no seek): what a pipe or a socket gives."""

    def __init__(self, data):
        self._buf = io.BytesIO(data)
        self.read, self.readline = self._buf.read, self._buf.readline


def test_a_file_that_cannot_seek_loads():
    buf = io.BytesIO()
    tinyffn.save([1, 2.5], buf)
    assert tinyffn.load(ReadOnly(buf.getvalue())) == [1, 2.5]


PLAIN = {"od": collections.OrderedDict(b=1, a=2), "counter": collections.Counter("aab"),
         "set": {1, 2}, "frozenset": frozenset({3}), "complex": 1 - 2j, "bytes": b"\x00\xff",
         "bytearray": bytearray(b"ab"), "none": None, "bool": True, "big": 2 ** 70,
         "float": 0.1, "nested": [(1, "a"), {"k": [None]}], "np_scalar": np.float64(1.5),
         "np_int": np.int64(-3), "dtype": tinyffn.float16, "array": np.arange(6.0).reshape(2, 3),
         "fortran": np.asfortranarray(np.ones((2, 3), dtype="int32")),
         "objects": np.array([1, "a", None], dtype=object), "device": tinyffn.device("cpu")}


def assert_same(a, b):
    assert type(a) is type(b)
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            assert_same(a[k], b[k])
    else:
        assert a == b


def test_plain_data_and_numpy_round_trip_with_weights_only():
    assert_same(round_trip(PLAIN), PLAIN)


@pytest.mark.parametrize("protocol", [4, 5])
def test_pickle_dump_of_numpy_arrays_loads_with_weights_only(protocol):
    """A state dict made in NumPy (or from PyTorch's, v.numpy()) and pickled: the way in."""
    data = pickle.dumps(PLAIN, protocol=protocol)
    assert_same(tinyffn.load(io.BytesIO(data)), PLAIN)


def test_arrays_of_strings_load_and_of_another_byte_order_are_refused():
    """Found by review: a big-endian array loaded as little-endian bytes, [0, 4.6e-41, ...]
    for [0, 1, 2] (NumPy sets the byte order by BUILD, which the plain dtype ignored); and
    a vocabulary of strings was refused."""
    words = {"vocab": np.array(["a", "bc"]), "raw": np.array([b"ab"])}
    assert_same(tinyffn.load(io.BytesIO(pickle.dumps(words, protocol=4))), words)
    for big in (np.arange(3, dtype=">f4"), np.array([1.5], dtype=">f8")):
        with pytest.raises(pickle.UnpicklingError, match=r"another byte order \(a big-endian "
                                                         r"array\).*newbyteorder\('='\)"):
            tinyffn.load(io.BytesIO(pickle.dumps(big, protocol=4)))
    records = np.array([(1, 2.0)], dtype=[("a", "i4"), ("b", "f4")])
    with pytest.raises(pickle.UnpicklingError, match=r"not of Python objects, dates or records"):
        tinyffn.load(io.BytesIO(pickle.dumps(records, protocol=4)))


def names_called(data):
    """The module.name of every global a pickle names, recorded without a restriction."""
    names = set()

    class Recorder(pickle.Unpickler):
        def find_class(self, module, name):
            names.add(f"{module}.{name}")
            return super().find_class(module, name)
    Recorder(io.BytesIO(data)).load()
    return names


def test_safe_globals_are_exactly_the_names_those_files_call():
    buf = io.BytesIO()
    tinyffn.save({**PLAIN, "tensor": tinyffn.ones(2)}, buf)
    called = names_called(buf.getvalue()) | names_called(pickle.dumps(PLAIN, protocol=5))
    assert called == set(serialization.SAFE_GLOBALS) | {"tinyffn.serialization._rebuild_tensor"}


def test_the_file_is_a_pickle_that_pickle_load_reads_trusting_it(tmp_path):
    model = nn.Linear(3, 2)
    tinyffn.save(model.state_dict(), tmp_path / "m.pt")
    with open(tmp_path / "m.pt", "rb") as f:
        plain = pickle.load(f)
    assert plain.keys() == model.state_dict().keys()
    assert type(plain["weight"]) is tinyffn.Tensor
    np.testing.assert_array_equal(plain["weight"].numpy(), model.weight.numpy())
    ops = [op.name for op, _, _ in pickletools.genops((tmp_path / "m.pt").read_bytes())]
    assert ops[0] == "PROTO" and "GLOBAL" not in ops     # protocol 4's STACK_GLOBAL


def test_a_tensor_pickled_by_pickle_dump_needs_weights_only_false():
    x = tinyffn.randn(2)
    data = pickle.dumps(x)
    with pytest.raises(pickle.UnpicklingError, match="pickle.dump rather than tinyffn.save"):
        tinyffn.load(io.BytesIO(data))
    np.testing.assert_array_equal(tinyffn.load(io.BytesIO(data), weights_only=False).numpy(),
                                  x.numpy())


# ----------------------------------------------------------------------------- security
class RunsShell:
    """A pickle that runs a shell command when unpickled (it writes ``marker``)."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"echo pwned > {shlex.quote(str(self.marker))}",)


def test_a_file_that_would_run_a_command_is_refused_and_nothing_runs(tmp_path):
    marker = tmp_path / "pwned"
    buf = io.BytesIO()               # a checkpoint with a payload, as an attacker would send
    tinyffn.save({"weight": tinyffn.ones(2), "payload": RunsShell(marker)}, buf)
    data = buf.getvalue()
    with pytest.raises(pickle.UnpicklingError, match=r"calls (posix|nt)\.system.*weights_only="
                                                     r"False.*unknown source"):
        tinyffn.load(io.BytesIO(data))
    assert not marker.exists()
    tinyffn.load(io.BytesIO(data), weights_only=False)   # the payload is real: trusted, it runs
    assert marker.read_text().strip() == "pwned"


ARRAY_ATTACKS = r"""
import io, pickle, struct, sys, numpy as np, tinyffn
class R:
    def __init__(s, *rv): s.rv = rv
    def __reduce__(s): return s.rv
attacks = {  # found by review: np.ndarray called with a file's arguments
    "a forged pointer": R(np.ndarray, ((1,), np.dtype("O"), (0x4141414141414141).to_bytes(8, "little"))),
    "a write outside the buffer": R(np.ndarray, ((16,), np.dtype("u1"), bytearray(16), -(1 << 20)),
                                    None, None, iter([(i, 0x41) for i in range(16)])),
    "an object dtype by _frombuffer": R(np._core.numeric._frombuffer,
                                        (b"A" * 8, np.dtype("O"), (1,), "C")),
    "an object scalar": R(np._core.multiarray.scalar, (np.dtype("O"), b"A" * 8)),
}
def u(s): return b"\x8c" + bytes([len(s)]) + s.encode()
def G(mod, name): return b"c" + mod.encode() + b"\n" + name.encode() + b"\n"
def I(n): return b"J" + struct.pack("<i", n)
def dtype(s): return G("numpy", "dtype") + b"(" + u(s) + b"\x89\x88tR"
def rewritten_dtype(field, size, base="V8"):   # found by review: BUILD on a dtype in use
    p = b"\x80\x02" + dtype(base) + b"q\x000" + G("numpy._core.numeric", "_frombuffer")
    p += b"(C\x08AAAAAAAAh\x00(" + I(1) + b"t" + u("C") + b"tRq\x010"
    fields = b"}" + u("a") + b"(" + dtype(field) + I(0) + b"ts"
    state = b"(" + I(3) + u("|") + b"N(" + u("a") + b"t" + fields + I(size) + I(1) + I(63) + b"t"
    return p + b"h\x00" + state + b"b0]h\x01a."
files = {"an object field laid over a dtype in use": rewritten_dtype("O", 8),
         "a dtype in use grown past its buffer": rewritten_dtype("u1", 1000000),
         "a bytes dtype given an object field": rewritten_dtype("O", 8, base="S8")}
for what, payload in attacks.items():
    b = io.BytesIO(); pickle.dump(payload, b, protocol=4)
    files[what] = b.getvalue()
for what, data in files.items():
    try:
        tinyffn.load(io.BytesIO(data))
    except pickle.UnpicklingError as e:
        print(what, "refused:", e)
    else:
        print(what, "LOADED"); sys.exit(1)
"""


def test_numpys_array_constructors_cannot_be_turned_against_memory():
    """weights_only=True once handed a file numpy.ndarray itself: called with a forged
    buffer it gave an object array holding a chosen pointer, or wrote chosen bytes 1 MiB
    before a heap buffer (both crashed the interpreter); and numpy.dtype itself, whose
    copies pickle's BUILD could rewrite after an array used one (an object field, a size
    of 10**6 over 8 bytes). In a subprocess, so a regression fails this test rather than
    the run."""
    run = subprocess.run([sys.executable, "-c", ARRAY_ATTACKS], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.count("refused:") == 7
    assert run.stdout.count("makes the NumPy dtype 'V8'") == 2
    assert "bytes dtype given an object field refused: tinyffn.load: the file gives the " \
           "NumPy dtype |S8 the state" in run.stdout
    assert run.stdout.count("calls numpy.ndarray(...) itself") == 2
    assert run.stdout.count("a NumPy array of Python objects") == 2


@pytest.mark.parametrize("module, name", [("builtins", "eval"), ("numpy", "load"),
                                          ("builtins", "getattr"), ("tinyffn", "Tensor")])
def test_other_names_are_refused(module, name):
    data = b"\x80\x04" + pickle.SHORT_BINUNICODE + bytes([len(module)]) + module.encode() \
        + pickle.SHORT_BINUNICODE + bytes([len(name)]) + name.encode() + pickle.STACK_GLOBAL \
        + pickle.STOP
    with pytest.raises(pickle.UnpicklingError, match=f"calls {module}.{name}, which") as info:
        tinyffn.load(io.BytesIO(data))
    assert ("a whole model" in str(info.value)) == (module == "tinyffn")    # the hint's place


class Calls:
    """Pickled as a call of ``f(*args)``, as a crafted file would make it."""
    def __init__(self, f, *args):
        self.rv = f, args

    def __reduce__(self):
        return self.rv


@pytest.mark.parametrize("spec", ["M8[s]", ">f4", [("a", "<f4")], "(2,)<f4",
                                  ("<i4", [("a", "i1"), ("b", "i1"), ("c", "i2")])])
def test_numpy_dtypes_other_than_plain_native_ones_are_refused(spec):
    """numpy.dtype, as a file calls it under weights_only=True: dates, another byte order,
    records and sub-arrays are refused (only numbers, bools, strings and bytes load), and
    so is a record laid over an int32, whose kind is 'i'."""
    data = pickle.dumps(Calls(np.dtype, spec), protocol=4)
    with pytest.raises(pickle.UnpicklingError, match="makes the NumPy dtype"):
        tinyffn.load(io.BytesIO(data))
    assert np.dtype(spec) == tinyffn.load(io.BytesIO(data), weights_only=False)


def test_an_array_of_another_class_is_refused():
    data = pickle.dumps(Calls(np._core.multiarray._reconstruct, collections.OrderedDict, (0,),
                              b"b"), protocol=4)
    with pytest.raises(pickle.UnpicklingError, match="rebuilds an array of class"):
        tinyffn.load(io.BytesIO(data))


# ----------------------------------------------------------------------------- PyTorch's files
def test_a_zip_archive_is_named_as_pytorchs_format(tmp_path):
    with zipfile.ZipFile(tmp_path / "torch.pt", "w") as z:
        z.writestr("archive/data.pkl", b"")
    with pytest.raises(pickle.UnpicklingError, match="zip archive, as torch.save writes"):
        tinyffn.load(tmp_path / "torch.pt")


@pytest.mark.filterwarnings("ignore:Detected pickle protocol 4:UserWarning")   # torch's
def test_pytorch_and_tinyffn_cannot_read_each_others_files(tmp_path):
    torch = pytest.importorskip("torch")
    torch.save(torch.nn.Linear(2, 2).state_dict(), tmp_path / "torch.pt")
    with pytest.raises(pickle.UnpicklingError, match="zip archive"):
        tinyffn.load(tmp_path / "torch.pt")
    tinyffn.save(nn.Linear(2, 2).state_dict(), tmp_path / "tinyffn.pt")
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        torch.load(tmp_path / "tinyffn.pt")
    with pytest.raises(RuntimeError, match="Invalid magic number"):
        torch.load(tmp_path / "tinyffn.pt", weights_only=False)


def test_the_way_in_from_pytorch_gives_pytorchs_outputs(tmp_path):
    torch = pytest.importorskip("torch")
    theirs = torch.nn.Linear(3, 2)
    with open(tmp_path / "w.pkl", "wb") as f:       # in PyTorch: its values as NumPy arrays
        pickle.dump({k: v.numpy() for k, v in theirs.state_dict().items()}, f)
    ours = nn.Linear(3, 2)
    ours.load_state_dict(tinyffn.load(tmp_path / "w.pkl"))
    x = np.random.default_rng(0).standard_normal((4, 3)).astype("float32")
    with torch.no_grad():
        expected = theirs(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(ours(tinyffn.tensor(x)).numpy(), expected, rtol=1e-6, atol=1e-6)


# ----------------------------------------------------------------------------- errors
def test_errors_of_save(tmp_path):
    with pytest.raises(TypeError, match=r"tinyffn.save: f must be a path .* got int"):
        tinyffn.save(1, 3)
    with open(tmp_path / "t.txt", "w") as f, \
            pytest.raises(TypeError, match=r"got a text file; open files in binary mode: "
                                           r"open\(path, 'wb'\)"):
        tinyffn.save(1, f)
    with pytest.raises(TypeError, match="cannot save a tensor of dtype complex256"):
        tinyffn.save(tinyffn.tensor(np.ones(2, dtype=np.clongdouble)), io.BytesIO())


def test_errors_of_load(tmp_path):
    buf = io.BytesIO()
    tinyffn.save(tinyffn.ones(2), buf)
    with pytest.raises(TypeError, match=r"tinyffn.load: f must be a path .* got bytes"):
        tinyffn.load(buf.getvalue())
    (tmp_path / "t.txt").write_text("x")
    with open(tmp_path / "t.txt") as f, pytest.raises(TypeError, match="got a text file"):
        tinyffn.load(f)
    for wrong in (lambda storage, location: storage, 0):
        with pytest.raises(TypeError, match="map_location must be None, a device"):
            tinyffn.load(io.BytesIO(buf.getvalue()), map_location=wrong)
    with pytest.raises(tinyffn.DeviceError, match="map_location: unknown device 'gpu'"):
        tinyffn.load(io.BytesIO(buf.getvalue()), map_location="gpu")
    with pytest.raises(tinyffn.DeviceError, match="map_location: unknown device 'tpu'"):
        tinyffn.load(io.BytesIO(buf.getvalue()), map_location={"tpu": "cpu"})


@pytest.mark.parametrize("args, match", [
    ((b"\x00" * 8, "float32", (3,), "cpu", False, False, None), "needs 12 bytes, the file "
                                                                "holds 8"),
    ((b"\x00" * 8, "object", (1,), "cpu", False, False, None), "dtype 'object'"),
    ((b"\x00" * 8, "float32", [2], "cpu", False, False, None), r"shape \[2\]"),
    ((b"\x00" * 8, "float32", (-2,), "cpu", False, False, None), r"shape \(-2,\)"),
    ((b"\x00" * 8, "float32", (-1, -2), "cpu", False, False, None), r"shape \(-1, -2\)"),
    ((b"\x00" * 12, "float32", (2,), "cpu", False, False, None), "needs 8 bytes, the file "
                                                                 "holds 12"),
    ((b"\x00" * 8, "float32", (2,), "cpu", False, False, 7), "name 7"),
    (("\x00" * 8, "float32", (2,), "cpu", False, False, None), "damaged"),
])
def test_a_damaged_tensor_is_refused(args, match):
    with pytest.raises(pickle.UnpicklingError, match=match):
        tinyffn.load(io.BytesIO(pickle.dumps(SavedOn(*args))))
