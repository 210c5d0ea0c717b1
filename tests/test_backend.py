"""The backend module: device names, dtype names, the malloc setting, the float32 erf."""
import dataclasses
import os
import platform
import sys
import types

import numpy as np
import pytest
from scipy import special

import tinyffn
from tinyffn import backend, nn, optim


def test_device_names_normalise():
    assert backend.normalize_device("CPU") == "cpu"
    assert backend.normalize_device("cuda:0") == "cuda"
    with pytest.raises(backend.DeviceError, match="tinyffn uses one GPU"):
        backend.normalize_device("cuda:1")


def test_a_tensors_device_has_pytorchs_type_and_index_and_is_still_its_name(device):
    """torch 2.13: x.device.type == "cpu", .index None on the CPU; a GPU tensor's is 0."""
    x = tinyffn.zeros(2, device=device)
    assert isinstance(x.device, tinyffn.device) and x.device == device
    assert x.device.type == device and type(x.device.type) is str
    assert x.device.index == (0 if device == "cuda" else None)
    assert f"{x.device}" == device and repr(x.device) == repr(device)
    cuda = tinyffn.device("cuda:0")             # no GPU needed: only a name
    assert cuda == "cuda" and cuda.type == "cuda" and cuda.index == 0
    assert tinyffn.device() == "cpu" and tinyffn.device("CPU").index is None
    assert tinyffn.zeros(1, device=tinyffn.device(device)).device == device
    with pytest.raises(backend.DeviceError, match="unknown device 'tpu'"):
        tinyffn.device("tpu")
    with pytest.raises(backend.DeviceError, match="tinyffn uses one GPU"):
        tinyffn.device("cuda:1")


class CUDARuntimeError(RuntimeError):
    """Stands in for ``cupy.cuda.runtime.CUDARuntimeError``."""


def _cupy_without_a_usable_gpu(monkeypatch, n_gpus, first_kernel_error):
    """Stand-ins for CuPy's modules (this machine may have none): a runtime that counts
    ``n_gpus`` (or raises its error), and a first computation that raises the error."""
    def count():
        if isinstance(n_gpus, Exception):
            raise n_gpus
        return n_gpus

    def zeros(*shape):
        raise first_kernel_error

    runtime = types.SimpleNamespace(getDeviceCount=count, CUDARuntimeError=CUDARuntimeError)
    special_ = types.ModuleType("cupyx.scipy.special")
    scipy_ = types.ModuleType("cupyx.scipy")
    scipy_.special = special_
    cupyx = types.ModuleType("cupyx")
    cupyx.scipy = scipy_
    cupy = types.ModuleType("cupy")
    cupy.cuda, cupy.zeros = types.SimpleNamespace(runtime=runtime), zeros
    compat = types.ModuleType("array_api_compat")         # installed or not (a cuda extra)
    compat.cupy = types.ModuleType("array_api_compat.cupy")
    for name, module in [("cupy", cupy), ("cupyx", cupyx), ("cupyx.scipy", scipy_),
                         ("cupyx.scipy.special", special_), ("array_api_compat", compat),
                         ("array_api_compat.cupy", compat.cupy)]:
        monkeypatch.setitem(sys.modules, name, module)


def test_a_gpu_that_is_seen_but_cannot_compute_is_refused_at_once(monkeypatch):
    """A GPU held by another process (exclusive mode) or a toolkit without NVRTC is seen
    by the device count; the first use of "cuda" must say so, not the first op."""
    error = RuntimeError("CUDA_ERROR_DEVICE_UNAVAILABLE: device busy or unavailable")
    _cupy_without_a_usable_gpu(monkeypatch, 1, error)
    with pytest.raises(backend.DeviceError, match=r"CuPy sees 1 GPU\(s\) but cannot compute on "
                                                  r"them \(RuntimeError: CUDA_ERROR_DEVICE_UNAV"):
        # the factory itself, called directly: the cache stays clean, and the stand-in
        # that TINYFFN_FAKE_CUDA=1 puts in _FACTORIES["cuda"] is not what is tested
        backend._cupy_backend()


def test_no_gpu_at_all_is_refused_with_cupys_reason(monkeypatch):
    unused = RuntimeError("no kernel runs without a GPU")
    _cupy_without_a_usable_gpu(monkeypatch, 0, unused)
    with pytest.raises(backend.DeviceError, match="CuPy is installed but this machine has no GPU"):
        backend._cupy_backend()
    _cupy_without_a_usable_gpu(monkeypatch, CUDARuntimeError("cudaErrorNoDevice"), unused)
    with pytest.raises(backend.DeviceError, match=r"no GPU is usable \(cudaErrorNoDevice\)"):
        backend._cupy_backend()


def _cupy_scatter_add(a, key, v):
    """``cupyx.scatter_add`` as CuPy 13 runs it, in NumPy: ``np.add.at``, for the dtypes
    CUDA's atomicAdd has (CuPy's own list); any other dtype raises CuPy's TypeError."""
    if a.dtype.name not in ("int32", "uint32", "uint64", "float16", "float32", "float64"):
        raise TypeError("scatter_add only supports int32, float16, float32, float64, "
                        "uint32, uint64, as data type")
    np.add.at(a, key, np.asarray(v).astype(a.dtype))


def test_the_cuda_scatter_add_takes_every_dtype_cupy_refuses(monkeypatch):
    """index_add on "cuda" is cupyx.scatter_add, which has no int64 (nor int8, bool, ...)
    kernel: scatter_add of int64 counts, index_add of integer rows and every
    scatter(src=tensor) (it counts the hits in int64) raised CuPy's TypeError there. The
    backend adds int64 as uint64 (the same bits) and narrow dtypes in int32; against
    np.add.at, repeated indices, int64 beyond 2**53 and wrapping included."""
    _cupy_without_a_usable_gpu(monkeypatch, 1, None)
    cupy, cupyx = sys.modules["cupy"], sys.modules["cupyx"]
    cupy.zeros, cupy.ndarray, cupy.float16 = np.zeros, np.ndarray, np.float16
    cupy.fmod, cupy.asnumpy, cupy.asarray = np.fmod, np.asarray, np.asarray
    cupy.cuda.runtime.deviceSynchronize = lambda: None
    cupyx.scatter_add = _cupy_scatter_add
    sys.modules["cupyx.scipy.special"].erf = special.erf
    index_add = backend._cupy_backend().index_add
    key = (np.array([0, 2, 0, 0]),)
    for dtype, v in [("int64", [2**62, 1, 2**62, 3]), ("int64", [-5, 2**53 + 1, 7, 1]),
                     ("int32", [1, 2, 3, 4]), ("int8", [100, 1, 100, 1]),
                     ("uint8", [200, 7, 100, 1]), ("int16", [-3, 9, 4, 1]),
                     ("bool", [True, False, True, False]), ("float64", [0.5, 1, 2, 3]),
                     ("float16", [0.5, 1, 2, 3])]:
        a = np.array([1, 0, 0], dtype=dtype)
        want = a.copy()
        with np.errstate(over="ignore"):
            np.add.at(want, key, np.array(v, dtype=dtype))
        index_add(a, key, np.array(v, dtype=dtype))
        assert a.dtype == want.dtype and a.tolist() == want.tolist(), dtype


def test_a_backend_is_one_immutable_hashable_value():
    """Every tensor of a device shares its Backend: frozen, so no code can change it for all."""
    cpu = backend.get_backend("cpu")
    assert backend.get_backend("CPU") is cpu and hash(cpu) == hash(backend.get_backend("cpu"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        cpu.device = "cuda"


@pytest.mark.parametrize("name", ["cpu", "strict"])
def test_asarray_casts_an_array_of_its_backend_only_when_the_dtype_differs(name):
    be = backend.get_backend(name)
    x = be.asarray([1.5, 2.5], "float32")
    assert be.asarray(x) is x and be.asarray(x, "float32") is x
    y = be.asarray(x, "float64")
    assert y.dtype == be.dtype("float64") and be.to_numpy(y).tolist() == [1.5, 2.5]


def test_dtype_names_across_backends():
    strict = backend.get_backend("strict")
    assert backend.dtype_name(np.float32) == "float32"
    assert backend.dtype_name(strict.xp.float64) == "float64"
    assert strict.dtype("float32") == strict.xp.float32
    assert strict.is_floating(strict.xp.float32) and not strict.is_floating(strict.xp.int64)


def test_the_strict_backend_says_it_has_no_float16():
    """x.half() on the strict backend raised AttributeError: module 'array_api_strict' has
    no attribute 'float16'."""
    x = tinyffn.tensor([1.0, 2.0], device="strict")
    for cast in (x.half, lambda: x.to(dtype="float16")):
        with pytest.raises(TypeError, match="the strict backend has no float16, as the array "
                                            "API standard has none; use float32"):
            cast()


def test_keep_freed_memory_respects_the_switch(monkeypatch):
    monkeypatch.setenv("TINYFFN_KEEP_FREED_MEMORY", "0")
    assert backend.keep_freed_memory() is False
    monkeypatch.delenv("TINYFFN_KEEP_FREED_MEMORY")
    on_glibc = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"
    assert backend.keep_freed_memory() is on_glibc


def _ulps(got, exact):
    """|got - exact| in units of float32's spacing at |exact| (both as float64)."""
    spacing = np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
    return np.abs(got.astype(np.float64) - exact) / spacing


def test_float32_erf_is_within_two_ulp_of_the_true_value():
    """Against SciPy's float64 erf, over [-6, 6] (many blocks) and tiny magnitudes."""
    tiny = np.float32(10.0) ** np.arange(-30, 0, 0.05, dtype=np.float32)
    x = np.concatenate([np.linspace(-6, 6, 300_001, dtype=np.float32), tiny, -tiny])
    assert x.size > 4 * backend.ERF_BLOCK
    got = backend.erf_float32(x)
    assert got.dtype == np.float32
    assert _ulps(got, special.erf(x.astype(np.float64))).max() <= 2.0


def test_float32_erf_special_values_and_layouts():
    special_values = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e30, -1e30], np.float32)
    got = backend.erf_float32(special_values)
    assert np.isnan(got[0]) and got[1:].tolist() == [1.0, -1.0, 0.0, -0.0, 1.0, -1.0]
    assert np.signbit(got[4])
    x = np.random.default_rng(0).standard_normal((300, 200)).astype(np.float32)
    np.testing.assert_array_equal(backend.erf_float32(x.T), backend.erf_float32(x).T)
    assert backend.erf_float32(np.float32(0.5)).shape == ()
    assert backend.erf_float32(np.zeros((0, 3), np.float32)).shape == (0, 3)


def test_cpu_erf_keeps_float16():
    """SciPy's erf has no float16 loop and answers in float64; the backend rounds back."""
    x = np.linspace(-3, 3, 101, dtype=np.float16)
    got = backend.get_backend("cpu").erf(x)
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, special.erf(x.astype(np.float64)).astype(np.float16))


def test_cpu_erf_uses_scipy_for_float64():
    x = np.linspace(-3, 3, 101)
    np.testing.assert_array_equal(backend.get_backend("cpu").erf(x), special.erf(x))


def test_strict_arrays_refuse_implicit_numpy_conversion_as_cupy_does():
    """The suite makes array_api_strict refuse np.asarray, as CuPy does for GPU arrays,
    so a hidden host copy in op code fails on the CPU too; explicit copies still work."""
    x = tinyffn.randn(3, device="strict", requires_grad=True)
    with pytest.raises(TypeError, match="implicit conversion"):
        np.asarray(x.data)
    np.testing.assert_array_equal(x.numpy(), x.to("cpu").numpy())
    y = (tinyffn.functional.gelu(x) * x[[0, 1, 1]]).sum()    # erf and index_add cross over
    y.backward()
    reference = tinyffn.tensor(x.numpy(), requires_grad=True)
    (tinyffn.functional.gelu(reference) * reference[[0, 1, 1]]).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), reference.grad.numpy(), rtol=1e-6)


def test_sign_of_is_numpys_sign_on_every_backend(device):
    """sign_of, op code's sign: NumPy's values bit for bit (NaN stays NaN, -0.0 gives
    0.0, ±inf ±1) in x's dtype, without array_api_compat's CuPy sign and its mask."""
    from tinyffn.ops.elementwise import sign_of
    be = backend.get_backend(device)
    for dtype in ("float32", "float64"):
        x = np.array([-2.5, -0.0, 0.0, 3.0, np.inf, -np.inf, np.nan], dtype=dtype)
        got = be.to_numpy(sign_of(be.xp, be.from_numpy(x)))
        assert got.dtype == x.dtype
        np.testing.assert_array_equal(got, np.sign(x))
        np.testing.assert_array_equal(np.signbit(got), np.signbit(np.sign(x)))


def _stepped(make, shapes, device):
    """Two steps of the optimizer ``make`` builds, on parameters of these shapes."""
    ps = [nn.Parameter(tinyffn.randn(*s, device=device)) for s in shapes]
    opt = make(ps)
    for _ in range(2):
        for p in ps:
            p.grad = tinyffn.randn(*p.shape, device=device)
        opt.step()


def _backward(f, values, device):
    x = tinyffn.tensor(values, device=device, requires_grad=True)
    f(x).sum().backward()


# Calls whose op code used array_api_compat's clip or sign: for CuPy both go through
# boolean masks (for NumPy and array_api_strict they do not), each a read of the device
CUPY_COMPAT_READS = [
    ("Adafactor.step", lambda d: _stepped(optim.Adafactor, [(3, 5), (5,)], d)),
    ("Muon.step", lambda d: _stepped(optim.Muon, [(3, 5)], d)),
    ("nanmedian", lambda d: tinyffn.tensor([[1.0, np.nan], [3.0, 2.0]], device=d).nanmedian(0)),
    ("i0e backward", lambda d: _backward(tinyffn.special.i0e, [-2.0, 0.0, 3.0], d)),
    ("i1e far out, backward", lambda d: _backward(tinyffn.special.i1e, [-90.0, 0.5], d)),
    ("det backward", lambda d: _backward(tinyffn.linalg.det, [[2.0, 1.0], [1.0, 3.0]], d)),
]


@pytest.mark.cuda
@pytest.mark.parametrize("device", ["cuda"])
@pytest.mark.parametrize("name, call", CUPY_COMPAT_READS, ids=[c[0] for c in CUPY_COMPAT_READS])
def test_no_read_that_only_cupys_namespace_makes(device, name, call):
    """The strict backend's count of reads (tests/host_reads.py) is CuPy's only where
    array_api_compat wraps both alike: its CuPy clip writes each bound through a boolean
    mask, its CuPy sign sets NaN through one, and CuPy reads each mask's count back (an
    Adafactor step made 8 per matrix, 6 per vector). The GPU stand-in (tests/fake_cuda.py) has those
    wrappers and counts their reads; op code uses maximum and sign_of instead."""
    if os.environ.get("TINYFFN_FAKE_CUDA") != "1":
        pytest.skip("counts the reads of the GPU stand-in: run with TINYFFN_FAKE_CUDA=1")
    import fake_cuda
    fake_cuda.HOST_READS.clear()
    call(device)
    assert not fake_cuda.HOST_READS, f"{name}: {dict(fake_cuda.HOST_READS)}"


def test_zeros_ones_and_full_are_made_on_the_device_not_copied_from_the_host(monkeypatch):
    """On a GPU a NumPy array made on the host and copied over crosses the bus (512 MB for
    one (8192, 16384) float32 buffer); a constant fill is made where it lives. The strict
    backend's host-to-device copies are counted; a random draw, made on the host so that a
    seed gives the same numbers everywhere, is the one that copies."""
    pytest.importorskip("array_api_strict")
    strict = backend.get_backend("strict")
    copied = []
    to_device = strict.from_numpy
    monkeypatch.setitem(vars(strict), "from_numpy",
                        lambda a: copied.append(a.shape) or to_device(a))
    made = {"zeros": tinyffn.zeros(2, 3, dtype="int64", device="strict"),
            "ones": tinyffn.ones(size=(2,), dtype="bool", device="strict"),
            "full": tinyffn.full((2, 2), -np.inf, device="strict"),
            "full uint8": tinyffn.full((3,), 255, dtype="uint8", device="strict"),
            "zeros_like": tinyffn.zeros_like(tinyffn.empty(2, device="strict"))}
    assert copied == []
    want = {"zeros": np.zeros((2, 3), np.int64), "ones": np.ones(2, bool),
            "full": np.full((2, 2), -np.inf, np.float32),
            "full uint8": np.full(3, 255, np.uint8), "zeros_like": np.zeros(2, np.float32)}
    for name, t in made.items():
        assert t.numpy().dtype == want[name].dtype, name
        np.testing.assert_array_equal(t.numpy(), want[name], err_msg=name)
    tinyffn.randn(4, device="strict")
    assert copied == [(4,)]
