"""Drawing from PyTorch's other distributions: ``normal`` with a mean and std per entry,
``bernoulli`` (0/1 draws, a mask), ``poisson`` (counts), ``randint_like``, and the in-place
fills of a tensor ``x.bernoulli_``, ``x.random_``, ``x.exponential_``, ``x.cauchy_``,
``x.geometric_``, ``x.log_normal_`` (``nn.init.sparse_`` is in :mod:`tinyffn.init`).

Each draws from ``generator=`` (a :class:`tinyffn.Generator`), else from the one
:func:`tinyffn.manual_seed` seeds, with NumPy on the CPU, in float64 (int64 for integers),
and moves the result to the tensor's device, cast to its dtype: a seed gives the same
values on every backend, not PyTorch's values (its generator differs). Dtypes, shapes and
the parameters refused are PyTorch 2.13's::

    normal(mean, std)        y_i ~ N(mean_i, std_i²), mean and std broadcast together
    bernoulli(p)             y_i = 1 with probability p_i, else 0        (u_i < p_i)
    poisson(rate)            P(y_i = k) = rate_i^k e^(-rate_i) / k!
    x.exponential_(λ)        f(y) = λ e^(-λ y), y > 0
    x.cauchy_(m, σ)          f(y) = σ / (π ((y - m)² + σ²))
    x.geometric_(p)          P(y = k) = (1 - p)^(k - 1) p, k = 1, 2, ...  (trials to a success)
    x.log_normal_(μ, σ)      y = e^z, z ~ N(μ, σ²)
    x.random_(a, b)          integers uniform on [a, b)

**Gradients.** A draw does not move with its parameters: ``normal(mean, std)``,
``bernoulli(p)`` and ``poisson(rate)`` with a parameter that requires grad give a result
in the graph whose gradient with respect to it is 0, as PyTorch's (its ``NormalBackward``
returns zeros), composed as ``draw + 0 · sign(mean)`` in a frame named after the function.
They are not the reparameterised draw: for a gradient of 1 in mean and z in std, write
``mean + std * tinyffn.randn_like(std)``.

The Tensor methods live in :class:`RandomMethods`, a base class of
:class:`~tinyffn.torch_methods.TorchMethods` and so of ``Tensor``.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import backend as backends
from . import creation as C     # read at call time: creation imports tensor.py, which imports this
from . import grad_mode
from . import in_place as IP
from . import tensor as _tensor  # the Tensor class, read at call time (tensor.py imports this)
from .arguments import _is_int, _size_sequence, is_real, type_name
from .generators import generator as rng_of

# NumPy's largest Poisson rate (numpy.random's POISSON_LAM_MAX)
POISSON_RATE_MAX = float(np.iinfo(np.int64).max - np.sqrt(np.iinfo(np.int64).max) * 10)


# ----------------------------------------------------------------------------- functions
def normal(mean, std=1.0, size=None, *, generator=None, dtype=None, device=None,
           requires_grad=False):
    """Draws from N(mean, std²), as ``torch.normal``, in its four forms:

    * ``normal(mean, std)``, both tensors: one draw per entry of their broadcast shape, in
      mean's dtype, on their device (they must share it);
    * ``normal(mean, 1.0)`` (a tensor mean, a number std) and ``normal(0.0, std)`` (the
      reverse): the tensor's shape, dtype and device;
    * ``normal(0.0, 1.0, size)``: numbers for both, a leaf of shape ``size`` in ``dtype``
      (the default float dtype unless given), on ``device`` ("cpu" unless given).

    The tensors' dtype must be a float one (PyTorch refuses integers too); std must be
    >= 0 everywhere (NaN refused; inf allowed). Gradient with respect to mean and std: 0,
    as PyTorch's (see the module docstring); ``size``, ``dtype``, ``device`` and
    ``requires_grad`` go with the number form only."""
    if not isinstance(mean, _tensor.Tensor) and not isinstance(std, _tensor.Tensor):
        if size is None:
            raise TypeError("normal: with numbers for both mean and std, pass the size "
                            "(normal(0.0, 1.0, (2, 3))), as PyTorch; or pass mean or std as "
                            "a tensor of per-entry values")
        m, s = _numbers("normal", mean=mean, std=std)
        _check_std("normal", s)
        shape = _size_sequence("normal", "size", size)
        device = "cpu" if device is None else device
        C._check_sample_dtype("normal", dtype, device)
        values = rng_of(generator, "normal").normal(m, s, size=shape)
        return C._filled(np.asarray(values), dtype, device, requires_grad)
    if size is not None or dtype is not None or device is not None or requires_grad:
        raise TypeError("normal: size, dtype, device and requires_grad go with a number mean "
                        "and std (normal(0.0, 1.0, size)); with a tensor mean or std the draws "
                        "take its shape, dtype and device")
    params = [(n, v) for n, v in (("mean", mean), ("std", std))]
    tensors = [(n, v) for n, v in params if isinstance(v, _tensor.Tensor)]
    for name, v in params:
        if not isinstance(v, _tensor.Tensor) and not is_real(v):
            raise TypeError(f"normal: {name} must be a tensor or a real number, got "
                            f"{type_name(v)}")
    (first, t), others = tensors[0], tensors[1:]
    if not t.backend.is_floating(t.dtype):
        raise TypeError(f"normal: {first} has dtype {backends.dtype_name(t.dtype)}, but the "
                        "draws are real numbers (PyTorch refuses integers too); cast it with "
                        ".float()")
    shape = t.shape
    for name, o in others:
        if o.device != t.device:
            raise backends.DeviceError(f"normal: {first} is on {t.device} but {name} on "
                                       f"{o.device}; move one with .to('{t.device}')")
        shape = _broadcast("normal", f"{first} of shape {t.shape} and {name}", shape, o.shape)
    m = mean.numpy().astype(np.float64) if isinstance(mean, _tensor.Tensor) else float(mean)
    s = std.numpy().astype(np.float64) if isinstance(std, _tensor.Tensor) else float(std)
    if not np.all(np.asarray(s) >= 0):
        raise ValueError(f"normal: std must be >= 0 everywhere (PyTorch: normal expects all "
                         f"elements of std >= 0.0), found {np.min(s)}")
    values = rng_of(generator, "normal").normal(m, s, size=shape)             # shape
    y = C._filled(np.asarray(values), backends.dtype_name(t.dtype), t.device, False)
    return _zero_gradient("normal", y, mean, std)


def bernoulli(input, p=None, *, generator=None):
    """0/1 draws, as ``torch.bernoulli``: ``bernoulli(probs)`` draws 1 at entry i with
    probability ``probs[i]`` (a float tensor, each entry in [0, 1]; NaN refused), in probs'
    shape, dtype and device; ``bernoulli(x, p)`` fills x's shape and dtype (any, bool
    too) with draws of the one probability p, x's values unused. y_i = [u_i < p_i] for
    u_i ~ U[0, 1), compared on the host: the mask crosses to the device as bools (one byte
    an entry) and is cast there. Gradient with respect to probs: 0, as PyTorch's."""
    x = _tensor_input("bernoulli", input)
    rng = rng_of(generator, "bernoulli")
    if p is None:
        if not x.backend.is_floating(x.dtype):
            raise TypeError(f"bernoulli: input holds the probabilities, so its dtype must be "
                            f"a float one, got {backends.dtype_name(x.dtype)} (PyTorch refuses "
                            "it too); cast it with .float(), or pass p to fill input's shape "
                            "with draws of one probability")
        probs = x.numpy().astype(np.float64)
        _check_probabilities("bernoulli", "input", probs)
        y = C._filled(np.asarray(rng.random(x.shape) < probs), x.dtype, x.device, False)
        return _zero_gradient("bernoulli", y, x)
    if isinstance(p, _tensor.Tensor):
        raise TypeError("bernoulli: p must be a number, as PyTorch's; for a probability per "
                        "entry pass them as input (bernoulli(probs)), or use x.bernoulli_(probs)")
    p = _probability("bernoulli", p)
    return C._filled(np.asarray(rng.random(x.shape) < p), x.dtype, x.device, False)


def _kept_mask(shape: tuple, p: float, device: Any) -> Any:
    """Dropout's mask of kept entries: a bool tensor of ``shape`` on ``device``, True where
    a draw u ~ U[0, 1) from :func:`tinyffn.manual_seed`'s generator is >= p (probability
    1 - p). Drawn and compared on the host, so a seed gives one mask on every device, and
    one byte an entry crosses to it, not the eight of float64 draws: the mask of
    ``rand(shape, dtype="float64", device=device) >= p``, draw for draw."""
    u = rng_of(None, "dropout").random(shape)                               # U[0, 1)
    return C._filled(u >= p, "bool", device, False)


def poisson(input, generator=None):
    """Counts drawn from Poisson(rate) for each entry of ``input`` (the rates, a float
    tensor, each >= 0), as ``torch.poisson``: input's shape, dtype and device. Rates above
    about 9.2e18 (inf too) are refused: NumPy cannot draw them (PyTorch returns -2^63).
    Gradient with respect to the rates: 0, as PyTorch's."""
    x = _tensor_input("poisson", input)
    if not x.backend.is_floating(x.dtype):
        raise TypeError(f"poisson: input holds the rates, so its dtype must be a float one, "
                        f"got {backends.dtype_name(x.dtype)} (PyTorch refuses it too); cast it "
                        "with .float()")
    rates = x.numpy().astype(np.float64)
    if not np.all(rates >= 0):
        raise ValueError(f"poisson: every rate must be >= 0 (PyTorch: invalid Poisson rate, "
                         f"expected rate to be non-negative), found {np.min(rates)}")
    if rates.size and rates.max() > POISSON_RATE_MAX:
        raise ValueError(f"poisson: a rate of {rates.max()} is too large for NumPy's draw "
                         f"(at most {POISSON_RATE_MAX:.4g}; PyTorch returns -2^63 there)")
    values = rng_of(generator, "poisson").poisson(rates)                       # int64
    y = C._filled(np.asarray(values), x.dtype, x.device, False)
    return _zero_gradient("poisson", y, x)


def randint_like(input, low=0, high=None, *, generator=None, dtype=None, device=None,
                 requires_grad=False):
    """Integers uniform on [low, high), of ``input``'s shape, and of its dtype and device
    unless given, as ``torch.randint_like``: ``randint_like(x, high)`` or
    ``randint_like(x, low, high)``. A float dtype is allowed, as PyTorch's, within the
    integers it holds exactly (|n| <= 2^24 for float32, 2^11 for float16, 2^53 for
    float64; PyTorch warns past them); low and high - 1 must fit in the dtype."""
    x = _tensor_input("randint_like", input)
    if high is None:                    # randint_like(x, high)
        low, high = 0, low
    low, high = _integer("randint_like", "low", low), _integer("randint_like", "high", high)
    dtype = backends.dtype_name(dtype or x.dtype)
    a, b = _integer_range("randint_like", dtype, low, high)
    values = rng_of(generator, "randint_like").integers(a, b, size=x.shape, dtype=np.int64,
                                                        endpoint=True)
    return C._filled(np.asarray(values), dtype, device or x.device, requires_grad)


# ----------------------------------------------------------------------------- Tensor methods
class RandomMethods:
    """The Tensor methods of this module: ``x.bernoulli()`` and the in-place fills."""

    __slots__ = ()          # Tensor has slots: a base class without them would add a __dict__

    def bernoulli(self, p=None, *, generator=None):
        """``tinyffn.bernoulli(self, p)``: 0/1 draws with probabilities self (or p)."""
        return bernoulli(self, p, generator=generator)

    def bernoulli_(self, p=0.5, *, generator=None):
        """Each entry set to 1 with probability p, else 0, as ``torch.Tensor.bernoulli_``:
        p a number in [0, 1], or a float tensor of probabilities broadcast to x's shape;
        x of any dtype (bool too). Returns self."""
        IP.check_in_place(self, "bernoulli_", p if isinstance(p, _tensor.Tensor) else None,
                          "x = tinyffn.bernoulli(p.expand(*x.shape))")
        if isinstance(p, _tensor.Tensor):
            if not p.backend.is_floating(p.dtype):
                raise TypeError(f"bernoulli_: p has dtype {backends.dtype_name(p.dtype)}; "
                                "probabilities must be a float tensor (PyTorch refuses "
                                "integers too): cast it with .float()")
            if p.device != self.device:
                raise backends.DeviceError(f"bernoulli_: p is on {p.device} but x on "
                                           f"{self.device}; move p with .to('{self.device}')")
            _broadcast("bernoulli_", f"p of shape {p.shape} and x", p.shape, self.shape,
                       into=True)
            probs = np.broadcast_to(p.numpy().astype(np.float64), self.shape)
            _check_probabilities("bernoulli_", "p", probs)
        else:
            probs = _probability("bernoulli_", p)
        u = rng_of(generator, "bernoulli_").random(self.shape)                # x's shape
        return _store(self, np.asarray(u < probs))

    def random_(self, from_=0, to=None, *, generator=None):
        """Integers drawn uniformly, as ``torch.Tensor.random_``: ``random_()`` from 0 to
        the dtype's largest (for a float dtype 2^mantissa, below which every integer is
        exact: 2^24 for float32), both included; ``random_(to)`` from [0, to);
        ``random_(from_, to)`` from [from_, to). PyTorch's ``random_(from, None)`` (from up
        to the largest) is written ``random_(from_, largest + 1)`` here. Returns self."""
        IP.check_in_place(self, "random_", None, "x = tinyffn.randint_like(x, low, high)")
        name = backends.dtype_name(self.dtype)
        if to is None:
            low, high = (0, from_) if from_ != 0 else (0, _largest(name) + 1)
        else:
            low, high = from_, to
        low, high = _integer("random_", "from_", low), _integer("random_", "to", high)
        a, b = _integer_range("random_", name, low, high, ("from_", "to"))
        values = rng_of(generator, "random_").integers(a, b, size=self.shape, dtype=np.int64,
                                                      endpoint=True)
        return _store(self, np.asarray(values))

    def exponential_(self, lambd=1, *, generator=None):
        """Draws from the exponential distribution of rate lambd > 0 (mean 1 / lambd), as
        ``torch.Tensor.exponential_``; a float tensor. Returns self."""
        (lambd,) = _real_draw(self, "exponential_", lambd=lambd)
        if not lambd > 0:
            raise ValueError(f"exponential_: lambd must be > 0, got {lambd}")
        rng = rng_of(generator, "exponential_")
        return _store(self, np.asarray(rng.exponential(1 / lambd, size=self.shape)))

    def cauchy_(self, median=0, sigma=1, *, generator=None):
        """Draws from the Cauchy distribution at ``median`` of scale ``sigma`` > 0, as
        ``torch.Tensor.cauchy_``: median + sigma · standard_cauchy; a float tensor."""
        median, sigma = _real_draw(self, "cauchy_", median=median, sigma=sigma)
        if not sigma > 0:
            raise ValueError(f"cauchy_: sigma must be > 0, got {sigma}")
        z = rng_of(generator, "cauchy_").standard_cauchy(size=self.shape)
        return _store(self, np.asarray(median + sigma * z))

    def geometric_(self, p, *, generator=None):
        """The number of trials up to the first success, each a success with probability p
        in (0, 1) (1, 2, ...), as ``torch.Tensor.geometric_``; float or integer x (not
        bool). A draw an integer dtype cannot hold is refused (PyTorch wraps it around)."""
        IP.check_in_place(self, "geometric_", None, "x = tinyffn.empty_like(x).geometric_(p)")
        name = backends.dtype_name(self.dtype)
        if name == "bool":
            raise TypeError("geometric_: draws 1, 2, ..., which a bool tensor cannot hold "
                            "(PyTorch refuses it too); use an integer or float tensor")
        (p,) = _numbers("geometric_", p=p)
        if not 0 < p < 1:
            raise ValueError(f"geometric_: p must lie in (0, 1), as PyTorch's, got {p}")
        values = np.asarray(rng_of(generator, "geometric_").geometric(p, size=self.shape))
        if np.dtype(name).kind in "iu" and values.size and values.max() > np.iinfo(name).max:
            raise ValueError(f"geometric_: drew {values.max()}, which {name} cannot hold "
                             f"(PyTorch wraps it around); use a wider dtype or a larger p")
        return _store(self, values)

    def log_normal_(self, mean=1, std=2, *, generator=None):
        """e^z for z ~ N(mean, std²), std > 0, as ``torch.Tensor.log_normal_`` (mean and std
        are the normal's, not the result's); a float tensor. Returns self."""
        mean, std = _real_draw(self, "log_normal_", mean=mean, std=std)
        if not std > 0:
            raise ValueError(f"log_normal_: std must be > 0, got {std}")
        values = rng_of(generator, "log_normal_").lognormal(mean, std, size=self.shape)
        return _store(self, np.asarray(values))


# ----------------------------------------------------------------------------- helpers
def _tensor_input(op: str, input: Any):
    if not isinstance(input, _tensor.Tensor):
        raise TypeError(f"{op}: input must be a tinyffn Tensor, got {type_name(input)}; wrap "
                        "it with tinyffn.tensor(...)")
    return input


def _numbers(op: str, **values: Any) -> tuple:
    for name, v in values.items():
        if not is_real(v):
            raise TypeError(f"{op}: {name} must be a real number, got {v!r}"
                            + ("; pass a number (t.item())"
                               if isinstance(v, _tensor.Tensor) else ""))
    return tuple(float(v) for v in values.values())


def _check_std(op: str, std: float) -> None:
    if not std >= 0:
        raise ValueError(f"{op}: std must be >= 0, got {std}")


def _probability(op: str, p: Any) -> float:
    """A number p in [0, 1] (True and False read as 1 and 0, as PyTorch reads them)."""
    if not (isinstance(p, bool) or is_real(p)) or not 0 <= p <= 1:
        raise ValueError(f"{op}: p must be a probability in [0, 1], got {p!r}")
    return float(p)


def _check_probabilities(op: str, name: str, probs: np.ndarray) -> None:
    inside = (probs >= 0) & (probs <= 1)                     # NaN is outside
    if not np.all(inside):
        bad = probs[~inside].flat[0]
        raise ValueError(f"{op}: every probability in {name} must lie in [0, 1] (PyTorch: "
                         f"Expected p_in >= 0 && p_in <= 1), found {bad}")


def _broadcast(op: str, what: str, a: tuple, b: tuple, into: bool = False) -> tuple:
    """The broadcast shape of a and b; ``into``: a must broadcast to b itself."""
    try:
        shape = np.broadcast_shapes(a, b)
    except ValueError:
        shape = None
    if shape is None or into and shape != b:
        raise ValueError(f"{op}: {what} of shape {b} do not broadcast"
                         + (" (p must expand to x's shape)" if into else ""))
    return shape


def _integer(op: str, name: str, v: Any) -> int:
    """An int, or a 0-d integer tensor (as PyTorch takes for randint_like's high)."""
    if isinstance(v, _tensor.Tensor) and v.ndim == 0 and np.dtype(
            backends.dtype_name(v.dtype)).kind in "iu":
        v = v.item()
    if not _is_int(v):
        raise TypeError(f"{op}: {name} must be an integer, got {v!r}")
    return int(v)


def _largest(dtype: str) -> int:
    """The largest integer random_() draws for ``dtype``: the dtype's largest, or for a
    float dtype 2^(mantissa bits + 1), up to which every integer is exact."""
    kind = np.dtype(dtype).kind
    if kind == "b":
        return 1
    return int(np.iinfo(dtype).max) if kind in "iu" else 2 ** (np.finfo(dtype).nmant + 1)


def _integer_range(op: str, dtype: str, low: int, high: int,
                   names: tuple = ("low", "high")) -> tuple:
    """(low, high - 1): the inclusive bounds of a draw from [low, high), each checked to be
    an integer ``dtype`` holds (exactly, for a float dtype)."""
    if low >= high:
        raise ValueError(f"{op}: the draws come from [{names[0]}, {names[1]}), which needs "
                         f"{names[0]} < {names[1]} "
                         f"(PyTorch: expects 'from' to be less than 'to'), got "
                         f"{names[0]}={low}, {names[1]}={high}")
    top = _largest(dtype)
    bottom = 0 if np.dtype(dtype).kind in "bu" else -top - (np.dtype(dtype).kind == "i")
    for name, v in ((names[0], low), (f"{names[1]} - 1 =", high - 1)):
        if not bottom <= v <= top:
            exact = " exactly" if np.dtype(dtype).kind == "f" else ""
            raise ValueError(f"{op}: {name} {v} is outside the integers {dtype} holds{exact} "
                             f"({bottom} to {top}); pass a wider dtype")
    return low, high - 1


def _real_draw(x, op: str, **params: Any) -> tuple:
    """The checks of a fill with real numbers: x may change in place and is a float
    tensor; the parameters are numbers."""
    IP.check_in_place(x, op, None, f"x = tinyffn.empty_like(x).{op}(...)")
    if not x.backend.is_floating(x.dtype):
        raise TypeError(f"{op}: draws real numbers, but x has dtype "
                        f"{backends.dtype_name(x.dtype)} (PyTorch refuses it too); fill a "
                        "float tensor")
    return _numbers(op, **params)


def _store(x, values: np.ndarray):
    """x's new array: ``values`` cast to x's dtype, on x's device; returns x."""
    x.data = C._filled(values, backends.dtype_name(x.dtype), x.device, False).data
    return x


def _zero_gradient(op: str, y, *params):
    """y, joined to each parameter that requires grad by a term of value 0 and gradient
    0 (sign's backward is 0 and reads no gy, so inf or NaN from above stays out)."""
    wanted = [p for p in params if isinstance(p, _tensor.Tensor) and p.requires_grad]
    if not wanted or not grad_mode.STATE.grad_enabled:
        return y
    with grad_mode.scope("function", op):
        for p in wanted:
            y = y + (p.sign() * 0).to(dtype=y.dtype)
    return y


__all__ = ["normal", "bernoulli", "poisson", "randint_like"]
