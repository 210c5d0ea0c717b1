"""How many copies from the host to the device a training step makes, and how many bytes.

On a GPU every array made on the host and handed to CuPy (``backend.from_numpy``, or
``xp.asarray`` of a NumPy array, a list or a Python number) crosses the PCIe bus: a copy
from pageable memory the Python thread waits for, a latency each even for one number, and
for a mask of the activations' size more time than the step's GEMMs. The counts are pinned
per case so that one cannot grow back in silence. What still crosses is what must: the
random draws, made on the host so that a seed gives the same numbers on every device
(dropout's masks, as bools: one byte an entry). A constant made once and shared (the 2 of
``x * 2``, :func:`tinyffn.promotion._number`) is counted in the first step only, so each
case is counted in its second step.

Counted on the strict backend, whose op code is CuPy's: its ``from_numpy``, and
``array_api_strict.asarray`` of anything not already one of its arrays. The backend's own
NumPy round trips (erf, scatter-add, fmod), which CuPy computes on the device, are not
counted. Autocast is not on the strict backend (no float16); its casts are ``astype`` on
the device, so the GradScaler step here runs in float32.
"""
import contextlib
import math
import sys

import numpy as np
import pytest

import tinyffn
import tinyffn.functional as F
from tinyffn import backend, nn, optim
from tinyffn.backend import dtype_name, get_backend


@contextlib.contextmanager
def counting_host_copies():
    """A list of the strict backend's copies to the device while the block runs, each the
    number of bytes copied (the array made on the device)::

        with counting_host_copies() as copies:
            tinyffn.randn(4, device="strict")
        assert copies == [16]
    """
    xp = pytest.importorskip("array_api_strict")
    from array_api_strict._array_object import Array
    strict = get_backend("strict")
    copies = []
    to_device, asarray = strict.from_numpy, xp.asarray    # from_numpy: the unpatched asarray

    def size(y):
        return math.prod(y.shape) * np.dtype(dtype_name(y.dtype)).itemsize

    def from_numpy(a):
        y = to_device(a)
        copies.append(size(y))
        return y

    def xp_asarray(a, *args, **kwargs):
        y = asarray(a, *args, **kwargs)
        if not isinstance(a, Array) and sys._getframe(1).f_code.co_filename != backend.__file__:
            copies.append(size(y))
        return y

    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(vars(strict), "from_numpy", from_numpy)   # a frozen dataclass
        patch.setattr(xp, "asarray", xp_asarray)
        yield copies


def ints(values):
    return tinyffn.tensor(values, dtype="int64", device="strict")


def training(make, loss="mse", opt=optim.AdamW, **opt_kwargs):
    """One step of ``make()``'s model: forward, loss, backward, clip_grad_norm_, the
    optimizer's step, zero_grad."""
    def setup():
        model = make()
        step_of = opt(model.parameters(), **(opt_kwargs or {"lr": 1e-3}))
        x = tinyffn.randn(3, 4, device="strict")
        target = tinyffn.randn(3, 4, device="strict") if loss == "mse" else ints([0, 3, 1])
        lossf = F.mse_loss if loss == "mse" else F.cross_entropy

        def step():
            lossf(model(x), target).backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            step_of.step()
            step_of.zero_grad()
        return step
    return setup


def ffn(activation="relu", fused=False):
    return training(lambda: nn.FFN(4, 8, activation=activation, fused=fused, device="strict"))


def encoder_layer():
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1, device="strict")
    opt = optim.AdamW(layer.parameters(), lr=1e-3)
    x = tinyffn.randn(2, 5, 8, device="strict")                          # (N, T, d)

    def step():
        (layer(x) ** 2).mean().backward()
        nn.utils.clip_grad_norm_(layer.parameters(), 1.0)
        opt.step()
        opt.zero_grad()
    return step


def scaled():
    model = nn.FFN(4, 8, device="strict")
    opt = optim.AdamW(model.parameters(), lr=1e-3)
    scaler = tinyffn.amp.GradScaler(device="strict")
    x, target = tinyffn.randn(3, 4, device="strict"), tinyffn.randn(3, 4, device="strict")

    def step():
        scaler.scale(F.mse_loss(model(x), target)).backward()
        scaler.unscale_(opt)
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
    return step


def matrices(opt, **kwargs):
    """An optimizer's step on a (4, 6) weight (and a bias, but for Muon: matrices only)."""
    def setup():
        params = [nn.Parameter(tinyffn.randn(4, 6, device="strict"))]
        if opt is not optim.Muon:
            params.append(nn.Parameter(tinyffn.randn(6, device="strict")))
        step_of = opt(params, **kwargs)

        def step():
            sum((p * p).sum() for p in params).backward()
            step_of.step()
            step_of.zero_grad()
        return step
    return setup


def normalized(make):
    def setup():
        layer = make()
        x = tinyffn.randn(3, 8, device="strict", requires_grad=True)
        return lambda: layer(x).sum().backward()
    return setup


def dropped():
    x = tinyffn.randn(4, 8, device="strict", requires_grad=True)
    return lambda: F.dropout(x, 0.25).sum().backward()


# (name, setup returning one step, the step's copies to the device: their bytes). Before
# these changes (the comment): abs's + 0.0 made a constant per call, once a parameter in
# clip_grad_norm_, and attention's where(dead, 0.0, .) two; cross_entropy's arange of row
# indices was made in NumPy; dropout copied float64 uniforms, 8 bytes an entry.
COPIES = [
    ("FFN(relu)", ffn(), []),                                               # was 4: 16 bytes
    ("FFN(gelu)", ffn("gelu"), []),                                         # was 4: 16 bytes
    ("FFN(gelu_tanh)", ffn("gelu_tanh"), []),                               # was 4: 16 bytes
    ("FFN(swish)", ffn("swish"), []),                                       # was 4: 16 bytes
    ("FFN(gelu, fused)", ffn("gelu", fused=True), []),                      # was 4: 16 bytes
    ("FFN(swish, fused)", ffn("swish", fused=True), []),                    # was 4: 16 bytes
    ("GatedFFN", training(lambda: nn.GatedFFN(4, 8, device="strict")), []),  # was 3: 12 bytes
    ("FFN, cross_entropy", training(lambda: nn.FFN(4, 8, device="strict"), "ce"),
     []),                                                                   # was 5: 40 bytes
    ("GatedFFN, cross_entropy", training(lambda: nn.GatedFFN(4, 8, device="strict"), "ce"),
     []),                                                                   # was 4: 36 bytes
    ("TransformerEncoderLayer(dropout=0.1)", encoder_layer,
     [40, 80, 160, 80]),                            # the four masks; was 18: 2936 bytes
    ("dropout", dropped, [32]),                                             # was 1: 256 bytes
    ("GradScaler, AdamW", scaled, []),                                      # was 4: 16 bytes
    ("Adam(amsgrad, weight_decay)", matrices(optim.Adam, amsgrad=True, weight_decay=0.1), []),
    ("SGD(nesterov, weight_decay)", matrices(optim.SGD, lr=0.1, momentum=0.9, nesterov=True,
                                             weight_decay=0.1), []),
    ("Adafactor", matrices(optim.Adafactor, lr=1e-2), []),
    ("Muon", matrices(optim.Muon, lr=1e-2), []),
    ("LayerNorm", normalized(lambda: nn.LayerNorm(8, device="strict")), []),
    ("RMSNorm", normalized(lambda: nn.RMSNorm(8, device="strict")), []),
]


@pytest.mark.parametrize("name, setup, expected", COPIES, ids=[c[0] for c in COPIES])
def test_a_step_copies_to_the_device_a_pinned_number_of_bytes(name, setup, expected):
    tinyffn.manual_seed(0)
    step = setup()
    step()                          # the first step makes the state and the shared constants
    with counting_host_copies() as copies:
        step()
    assert copies == expected, f"{name}: {copies}"


def test_the_dropout_mask_is_the_one_of_float64_uniforms_compared_on_the_device(device):
    """The bool mask is compared on the host: the same draws, the same mask as before,
    rand(shape, float64) >= p, on every backend; the graph still names it."""
    shape, p = (3, 50), 0.3
    tinyffn.manual_seed(5)
    kept = (tinyffn.rand(shape, dtype="float64", device=device) >= p).numpy()
    x = tinyffn.ones(shape, device=device, requires_grad=True)
    tinyffn.manual_seed(5)
    y = F.dropout(x, p)
    np.testing.assert_array_equal(y.numpy(), np.where(kept, np.float32(1 / (1 - p)), 0))
    assert y.grad_fn.parents[1].name == "dropout mask"
    tinyffn.manual_seed(5)
    alpha = F.alpha_dropout(x, p, training=True).detach().numpy()   # a x + b where kept
    np.testing.assert_array_equal(alpha == alpha[kept][0], kept)      # c where dropped


def test_a_float_zero_constant_is_shared_and_keeps_its_sign():
    """0.0 and -0.0 are one dict key (equal), two constants (1/-0.0 is -inf): x + 0.0
    turns -0.0 into 0.0, x + -0.0 keeps it, whichever was made first."""
    x = tinyffn.tensor([-0.0, 2.0], device="strict")
    for _ in range(2):
        with counting_host_copies() as copies:
            plus, minus = (x + 0.0).numpy(), (x + -0.0).numpy()
        assert list(np.signbit(plus)) == [False, False]
        assert list(np.signbit(minus)) == [True, False]
    assert copies == []                                     # the second time: both shared


@pytest.mark.parametrize("args, dtype", [((5,), None), ((7, -6, -3), "int32"),
                                         ((2, 9, 3), "uint8"), ((0, 300, 100), "uint8")])
def test_an_integer_arange_is_made_on_the_device_with_numpys_values(args, dtype):
    with counting_host_copies() as copies:
        y = tinyffn.arange(*args, dtype=dtype, device="strict")
    want = np.arange(*args).astype(dtype or "int64")
    assert y.numpy().dtype == want.dtype
    np.testing.assert_array_equal(y.numpy(), want)
    wraps = max(args[:2]) > 255
    assert copies == ([want.nbytes] if wraps else [])       # 300 wraps in uint8: NumPy's cast


def test_a_float_arange_is_still_numpys_to_the_last_bit():
    with counting_host_copies() as copies:
        y = tinyffn.arange(0.1, 1.0, 0.3, dtype="float64", device="strict")
    np.testing.assert_array_equal(y.numpy(), np.arange(0.1, 1.0, 0.3))
    assert copies == [y.numpy().nbytes]


# bernoulli's mask is drawn and compared on the host (a seed gives one mask on every
# device) and crosses as bools, one byte an entry, cast to the tensor's dtype on the
# device; before, it crossed in that dtype (8 bytes an entry for float64 and int64)
BERNOULLI = [
    ("bernoulli(x, p)", lambda d: tinyffn.bernoulli(tinyffn.zeros(4, 8, dtype="float64",
                                                                  device=d), 0.3)),  # was 256
    ("bernoulli(probs)", lambda d: tinyffn.bernoulli(tinyffn.full((4, 8), 0.3, device=d))),
    ("x.bernoulli_(p)", lambda d: tinyffn.zeros(4, 8, dtype="int64", device=d).bernoulli_(0.3)),
    ("x.bernoulli_(probs)", lambda d: tinyffn.zeros(4, 8, device=d).bernoulli_(
        tinyffn.full((8,), 0.3, device=d))),                                   # was 128
]


@pytest.mark.parametrize("name, draw", BERNOULLI, ids=[c[0] for c in BERNOULLI])
def test_a_bernoulli_mask_crosses_as_bools_and_is_the_same_draws(device, name, draw):
    tinyffn.manual_seed(3)
    kept = tinyffn.rand(4, 8, dtype="float64").numpy() < 0.3        # the host's draws
    tinyffn.manual_seed(3)
    if device == "strict":
        with counting_host_copies() as copies:
            y = draw(device)
        assert copies == [32], f"{name}: {copies}"                   # 4 · 8 bools
    else:
        y = draw(device)
    want = "int64" if "_(p)" in name else "float64" if "x, p" in name else "float32"
    assert dtype_name(y.dtype) == want
    np.testing.assert_array_equal(y.numpy(), kept.astype(want))


@pytest.mark.parametrize("make, want", [
    (lambda d: tinyffn.eye(3, 5, dtype="float64", device=d), np.eye(3, 5)),
    (lambda d: tinyffn.eye(4, dtype="int32", device=d), np.eye(4, dtype="int32")),
    (lambda d: tinyffn.linspace(0.1, 0.9, 9, device=d),
     np.linspace(0.1, 0.9, 9).astype("float32")),
    (lambda d: tinyffn.linspace(-7, 5, 6, dtype="int64", device=d),
     np.linspace(-7, 5, 6).astype("int64")),                  # truncated toward 0, as before
    (lambda d: tinyffn.logspace(-3, 1, 5, base=2.5, dtype="float64", device=d),
     2.5 ** np.linspace(-3, 1, 5)),
], ids=["eye(3, 5)", "eye int32", "linspace", "linspace int64", "logspace"])
def test_eye_linspace_logspace_are_made_on_the_device_with_numpys_values(make, want):
    with counting_host_copies() as copies:                      # each was one copy before
        y = make("strict")
    assert copies == []
    assert y.numpy().dtype == want.dtype
    np.testing.assert_array_equal(y.numpy(), want)


def test_a_float32_linspace_is_the_exact_value_rounded(device):
    """In float64, rounded once: 0.1 + 0.1 k rounds to 0.2, 0.3, 0.4; PyTorch 2.13's float32
    kernel (a float32 step) gives 0.19999999, 0.29999998, 0.39999998 there."""
    from fractions import Fraction
    y = tinyffn.linspace(0.1, 0.9, 9, device=device).numpy()
    a, b = Fraction(0.1), Fraction(0.9)
    exact = np.array([float(a + (b - a) * k / 8) for k in range(9)], dtype="float32")
    np.testing.assert_array_equal(y, exact)


def test_cholesky_copies_nothing_to_the_device():
    """The NaN that fills a failed factor and info's orders are made on the device (each a
    0-d copy before: one a call, and one per minor where a factor failed)."""
    A = tinyffn.tensor([[[2.0, 0.3], [0.3, 1.0]], [[1.0, 2.0], [2.0, 1.0]]], device="strict")
    with counting_host_copies() as copies:
        L = tinyffn.linalg.cholesky_ex(A).L
    assert copies == []
    assert not np.isnan(L.numpy()[0]).any() and np.isnan(L.numpy()[1]).all()
