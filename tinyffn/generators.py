"""Random number generators: ``manual_seed``, ``Generator`` objects, and their states.

Every random draw in tinyffn (``randn``, ``rand``, ``randint``, ``randperm``, dropout masks,
``multinomial``, the ``nn.init`` initialisers, ``DataLoader``'s shuffling) comes from a
:class:`Generator`: the one passed as ``generator=``, else ``default_generator``, which
:func:`manual_seed` seeds, as in PyTorch. Numbers are drawn with NumPy's PCG64 on the CPU
and then moved to the device, so a seed gives the same values on every backend; they are
not PyTorch's numbers (its generator is a Mersenne Twister), so a seed reproduces a
tinyffn run, not a PyTorch one::

    g = tinyffn.Generator().manual_seed(0)   # its own stream, apart from the global one
    a = tinyffn.randn(3, generator=g)
    g.manual_seed(0)
    assert (tinyffn.randn(3, generator=g) == a).all()
"""
from __future__ import annotations

import math
import secrets
from typing import Any

import numpy as np

from . import backend as backends
from .arguments import _is_int, type_name

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed",
           "get_rng_state", "set_rng_state", "generator"]


class Generator:
    """A random number generator of its own, as ``torch.Generator``: pass it as
    ``generator=`` to ``randn``, ``rand``, ``randint``, ``randperm``, ``multinomial``,
    ``nn.init``'s initialisers, ``random_split``, ``DataLoader`` and the samplers of
    ``tinyffn.utils.data``.

    ``device`` is recorded (``"cpu"`` or ``"cuda"``) but draws happen on the CPU either
    way, then move. Seeded with 67280421310721 until :meth:`manual_seed` or :meth:`seed`,
    as PyTorch's default seed is.
    """

    def __init__(self, device: Any = "cpu"):
        self.device = backends.device(device)
        self.manual_seed(67280421310721)

    def manual_seed(self, seed: int) -> "Generator":
        """Seed it with the integer ``seed`` (a negative one is read modulo 2^64, as
        PyTorch reads it); returns the generator, so ``Generator().manual_seed(0)`` reads."""
        if not _is_int(seed) or isinstance(seed, bool):
            raise TypeError(f"manual_seed: seed must be an integer, got {type_name(seed)}")
        if not -2 ** 63 <= int(seed) < 2 ** 64:
            raise ValueError(f"manual_seed: seed must lie in [-2^63, 2^64), got {seed}")
        self._initial_seed = int(seed) % 2 ** 64
        self._rng = np.random.default_rng(self._initial_seed)
        return self

    def seed(self) -> int:
        """Seed it from the operating system's entropy; returns that seed."""
        self.manual_seed(secrets.randbits(63))
        return self._initial_seed

    def initial_seed(self) -> int:
        """The seed it was last seeded with, or that of the generator whose state
        :meth:`set_state` gave it (as PyTorch's: the state carries the seed)."""
        return self._initial_seed

    def get_state(self) -> Any:
        """Its state, a uint8 tensor to restore with :meth:`set_state` (see
        :func:`get_rng_state`)."""
        from .creation import tensor        # creation imports this module
        s = self._rng.bit_generator.state
        raw = (s["state"]["state"].to_bytes(16, "little") + s["state"]["inc"].to_bytes(16, "little")
               + bytes([s["has_uint32"]]) + s["uinteger"].to_bytes(4, "little")
               + self._initial_seed.to_bytes(8, "little"))
        return tensor(np.frombuffer(raw, dtype=np.uint8))

    def set_state(self, new_state: Any) -> "Generator":
        """Restore a state :meth:`get_state` returned, and the seed it carries; returns the
        generator."""
        return self._restore(_state_bytes("set_state", new_state))

    def clone_state(self) -> "Generator":
        """A new generator in this one's state, as ``torch.Generator.clone_state``: it draws
        what this one would draw next, and the two then go on apart; same device and
        :meth:`initial_seed`."""
        return Generator(self.device)._restore(self.get_state().numpy().tobytes())

    def _restore(self, raw: bytes) -> "Generator":
        self._rng.bit_generator.state = {
            "bit_generator": "PCG64", "has_uint32": raw[32],
            "state": {"state": int.from_bytes(raw[:16], "little"),
                      "inc": int.from_bytes(raw[16:32], "little")},
            "uinteger": int.from_bytes(raw[33:37], "little")}
        if len(raw) == 45:                  # 37 bytes, as tinyffn wrote before: no seed
            self._initial_seed = int.from_bytes(raw[37:], "little")
        return self

    def __repr__(self) -> str:
        return f"<tinyffn.Generator device={self.device!r} initial_seed={self._initial_seed}>"


def _state_bytes(op: str, new_state: Any) -> bytes:
    """The 45 bytes of a PCG64 state tensor and its seed (or the 37 of the state alone, as
    tinyffn wrote them before the seed was kept), or an error saying what is wrong."""
    from .tensor import Tensor
    shape = getattr(new_state, "shape", None)
    fits = (isinstance(new_state, Tensor) and backends.dtype_name(new_state.dtype) == "uint8"
            and shape in ((45,), (37,)))
    # PCG64's increment is odd; an even one (37 zero bytes) NumPy takes, and draws 0 forever
    even = fits and int(new_state.numpy()[16]) % 2 == 0
    if not fits or even or int(new_state.numpy()[32]) not in (0, 1):
        got = (f"a {backends.dtype_name(new_state.dtype)} tensor of shape {shape}"
               if isinstance(new_state, Tensor) else type_name(new_state))
        raise ValueError(f"{op}: takes the uint8 tensor of 45 entries that "
                         f"tinyffn.get_rng_state() returns, got {got}" + (
                             "; PyTorch's state (5056 bytes) is of its Mersenne Twister, which "
                             "tinyffn's generator (NumPy's PCG64) cannot take"
                             if shape == (5056,) else "") + (
                             " whose increment (bytes 16 to 31) is even, which no PCG64 state "
                             "has (with it every draw is 0)" if even else ""))
    return new_state.numpy().tobytes()


default_generator = Generator()
default_generator.manual_seed(0)


def manual_seed(seed: int) -> Generator:
    """Seed ``default_generator``, behind every draw without a ``generator=``; returns it,
    as ``torch.manual_seed`` does. A whole float (``1.0``, a seed read from a config) is
    taken as its integer, as ``torch.manual_seed`` takes it (``Generator.manual_seed``
    refuses floats, as PyTorch's does); a fraction is refused, which PyTorch truncates.

    Random numbers are drawn with NumPy on the CPU and then moved to the device, so a
    seed gives the same values on every backend.
    """
    if isinstance(seed, (float, np.floating)):
        if not (math.isfinite(seed) and float(seed).is_integer()):
            truncated = (f", a fraction (PyTorch truncates it to {int(seed)})"
                         if math.isfinite(seed) else "")
            raise TypeError(f"manual_seed: seed must be an integer, got {seed!r}{truncated}; "
                            "pass the integer you mean")
        seed = int(seed)
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seed ``default_generator`` from the operating system's entropy (``torch.seed``)."""
    return default_generator.seed()


def initial_seed() -> int:
    """``default_generator``'s seed (``torch.initial_seed``)."""
    return default_generator.initial_seed()


def get_rng_state() -> Any:
    """The state of ``default_generator``, as ``torch.get_rng_state()``: a uint8 tensor to
    keep in a checkpoint; given to :func:`set_rng_state`, the same numbers are drawn again
    (``randn``, ``randperm``, dropout masks, initialisers).

    The generator is NumPy's PCG64, so the 45 bytes are its 128-bit state and increment,
    a buffered 32-bit draw and the 64-bit seed (``initial_seed``, which ``set_rng_state``
    restores, as PyTorch's does), little-endian; not the 5056 of PyTorch's Mersenne
    Twister: neither library can take the other's. A state of 37 bytes (the state alone,
    as tinyffn wrote it before) is still taken, and leaves ``initial_seed`` as it was."""
    return default_generator.get_state()


def set_rng_state(new_state: Any) -> None:
    """Give ``default_generator`` a state that :func:`get_rng_state` returned, as
    ``torch.set_rng_state``: a resumed run draws what the first run drew after it."""
    default_generator._restore(_state_bytes("set_rng_state", new_state))


def generator(g: Generator | None = None, op: str = "generator") -> np.random.Generator:
    """The NumPy generator to draw from: ``g``'s, or ``default_generator``'s when None;
    anything else (a torch.Generator, a NumPy one) is refused, naming ``op``."""
    if g is None:
        return default_generator._rng
    if not isinstance(g, Generator):
        raise TypeError(f"{op}: generator must be a tinyffn.Generator or None, got "
                        f"{type_name(g)}" + ("; make one with tinyffn.Generator().manual_seed(s)"
                                             if "torch" in type(g).__module__
                                             or isinstance(g, np.random.Generator) else ""))
    return g._rng
