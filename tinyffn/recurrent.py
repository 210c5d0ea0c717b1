"""Recurrent layers, as PyTorch 2.13 defines them: ``nn.RNN``, ``nn.LSTM``, ``nn.GRU`` and
their one-step forms ``nn.RNNCell``, ``nn.LSTMCell``, ``nn.GRUCell``.

Where the FFN maps each position on its own, a recurrent layer carries a state h from one
time step to the next: h_t = cell(x_t, h_{t-1}). Each cell is a few ``linear`` maps and
gates (σ the sigmoid, ∘ the elementwise product), with PyTorch's weights stacked gate by
gate, W_ih (G·H, H_in) and W_hh (G·H, H), G gates of H rows each::

    RNN   h' = tanh(W_ih x + b_ih + W_hh h + b_hh)              (or relu; G = 1)
    LSTM  i, f, g, o = σ, σ, tanh, σ of the four row blocks of
                       W_ih x + b_ih + W_hh h + b_hh             (G = 4, in that order)
          c' = f ∘ c + i ∘ g,   h' = o ∘ tanh(c')   (proj_size: h' = W_hr (o ∘ tanh(c')))
    GRU   r, z = σ of the first two row blocks of W_ih x + b_ih + W_hh h + b_hh
          n = tanh(W_in x + b_in + r ∘ (W_hn h + b_hn))         (G = 3: r, z, n)
          h' = (1 - z) ∘ n + z ∘ h

The cells are the functions below, one per cell, and the modules ``RNNCell``,
``LSTMCell``, ``GRUCell`` that hold their weights; the layers that run them along a
sequence, ``RNN``, ``LSTM``, ``GRU``, are in recurrent_layers.py. All are composed of
``linear``, ``sigmoid``, ``tanh``, ``relu`` and ``getitem`` (the gates' row blocks, by
``chunk``), so no backward is written here: backpropagation through time is the graph's
own backward walk, from the last step to the first.

A cell module takes input (N, input_size), or unbatched (input_size,), and a state of
hidden_size features per sequence, (N, hidden_size) or (hidden_size,), zeros when not
given (an LSTM's is the pair (h, c)), and returns the next state.
"""
from __future__ import annotations

import math
from typing import Any

from . import grad_mode, init
from .amp import is_autocast_enabled
from .arguments import _is_int, type_name
from .backend import DEFAULTS, dtype_name
from .creation import empty, zeros
from .functional import linear
from .module import Module, Parameter
from .tensor import Tensor


# ----------------------------------------------------------------------------- the cells
def rnn_tanh_cell(x: Tensor, h: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
                  b_hh: Tensor | None = None) -> Tensor:
    """One step of an Elman RNN: h' = tanh(W_ih x + b_ih + W_hh h + b_hh).
    x (N, H_in), h (N, H) -> h' (N, H)."""
    with grad_mode.scope("function", "rnn_tanh_cell"):
        return (linear(x, w_ih, b_ih) + linear(h, w_hh, b_hh)).tanh()


def rnn_relu_cell(x: Tensor, h: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
                  b_hh: Tensor | None = None) -> Tensor:
    """One step of an Elman RNN with ReLU: h' = relu(W_ih x + b_ih + W_hh h + b_hh)."""
    with grad_mode.scope("function", "rnn_relu_cell"):
        return (linear(x, w_ih, b_ih) + linear(h, w_hh, b_hh)).relu()


def lstm_cell(x: Tensor, h: Tensor, c: Tensor, w_ih: Tensor, w_hh: Tensor,
              b_ih: Tensor | None = None, b_hh: Tensor | None = None,
              w_hr: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """One LSTM step -> (h', c'): gates i, f, g, o from the four row blocks of
    W_ih x + b_ih + W_hh h + b_hh; c' = f ∘ c + i ∘ g; h' = o ∘ tanh(c'), then
    h' = W_hr h' if a projection ``w_hr`` (P, H) is given.
    x (N, H_in), h (N, P or H), c (N, H) -> h' (N, P or H), c' (N, H)."""
    with grad_mode.scope("function", "lstm_cell"):
        gates = linear(x, w_ih, b_ih) + linear(h, w_hh, b_hh)      # (N, 4H)
        i, f, g, o = gates.chunk(4, -1)                             # each (N, H)
        c = f.sigmoid() * c + i.sigmoid() * g.tanh()               # (N, H)
        h = o.sigmoid() * c.tanh()                                  # (N, H)
        if w_hr is not None:
            h = linear(h, w_hr)                                     # (N, P)
        return h, c


def gru_cell(x: Tensor, h: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
             b_hh: Tensor | None = None) -> Tensor:
    """One GRU step: r, z = σ(first two row blocks of W_ih x + b_ih + W_hh h + b_hh);
    n = tanh(W_in x + b_in + r ∘ (W_hn h + b_hn)); h' = (1 - z) ∘ n + z ∘ h.
    The reset gate r scales W_hn h + b_hn, the hidden side only, as PyTorch's (and cuDNN's).
    x (N, H_in), h (N, H) -> h' (N, H)."""
    with grad_mode.scope("function", "gru_cell"):
        x_r, x_z, x_n = linear(x, w_ih, b_ih).chunk(3, -1)         # each (N, H)
        h_r, h_z, h_n = linear(h, w_hh, b_hh).chunk(3, -1)         # each (N, H)
        r, z = (x_r + h_r).sigmoid(), (x_z + h_z).sigmoid()
        n = (x_n + r * h_n).tanh()
        return (1 - z) * n + z * h


# ----------------------------------------------------------------------------- checks
def _check_sizes(name: str, **sizes: Any) -> None:
    for arg, n in sizes.items():
        if not (_is_int(n) and n > 0):
            raise ValueError(f"{name}: {arg} must be a positive int, got {n!r}")


def _check_tensor(name: str, what: str, t: Any) -> None:
    if type(t).__name__ == "PackedSequence":
        raise TypeError(
            f"{name}: got a PackedSequence from {type(t).__module__}; the layers (nn.RNN, "
            "nn.LSTM, nn.GRU) take tinyffn's, made by tinyffn.nn.utils.rnn.pack_sequence or "
            "pack_padded_sequence, and a cell takes one step, (N, H_in)")
    if not isinstance(t, Tensor):
        raise TypeError(f"{name}: {what} must be a tinyffn Tensor, got {type_name(t)}; "
                        "convert arrays (and torch tensors) with tinyffn.tensor(...)")


def _check_dtype(name: str, what: str, t: Tensor, weight: Tensor) -> None:
    if t.dtype != weight.dtype and not is_autocast_enabled(t.device.type):
        raise TypeError(
            f"{name}: {what} has dtype {dtype_name(t.dtype)} but the parameters have "
            f"{dtype_name(weight.dtype)}; convert the input (x.to(dtype="
            f"'{dtype_name(weight.dtype)}')) or the module (.to(dtype="
            f"'{dtype_name(t.dtype)}'))")


def _check_state(name: str, what: str, t: Any, expected: tuple, x: Tensor,
                 weight: Tensor) -> None:
    _check_tensor(name, what, t)
    if tuple(t.shape) != expected:
        raise ValueError(f"{name}: {what} must have shape {expected} for input of shape "
                         f"{tuple(x.shape)}, got {tuple(t.shape)}")
    _check_dtype(name, what, t, weight)


# ----------------------------------------------------------------------------- cell modules
class RNNCellBase(Module):
    """What the three cells share, as ``torch.nn.RNNCellBase``: ``weight_ih`` (G·hidden_size,
    input_size), ``weight_hh`` (G·hidden_size, hidden_size), ``bias_ih`` and ``bias_hh``
    (G·hidden_size,) or None, all drawn from U(-1/√hidden_size, 1/√hidden_size)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device: Any = None, dtype: Any = None):
        super().__init__()
        _check_sizes(type(self).__name__, input_size=input_size, hidden_size=hidden_size)
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        kw = {"dtype": dtype or DEFAULTS.float, "device": device or "cpu"}
        G = num_chunks * hidden_size
        self.weight_ih = Parameter(empty(G, input_size, **kw))
        self.weight_hh = Parameter(empty(G, hidden_size, **kw))
        self.bias_ih = Parameter(empty(G, **kw)) if bias else None
        self.bias_hh = Parameter(empty(G, **kw)) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every parameter redrawn from U(-1/√hidden_size, 1/√hidden_size), in order."""
        bound = 1 / math.sqrt(self.hidden_size)
        for p in self.parameters():
            init.uniform_(p, -bound, bound)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _batched(self, x: Any, states: tuple) -> tuple:
        """(x (N, H_in), states each (N, H), unbatched?) with each state checked, or zeros."""
        name = type(self).__name__
        _check_tensor(name, "input", x)
        if x.ndim not in (1, 2):
            raise ValueError(f"{name}: expected input to be 1-D (input_size,) or 2-D (N, "
                             f"input_size), got shape {tuple(x.shape)}")
        if x.shape[-1] != self.input_size:
            raise ValueError(f"{name}: input of shape {tuple(x.shape)} has {x.shape[-1]} "
                             f"features on its last axis, but input_size={self.input_size}")
        _check_dtype(name, "input", x, self.weight_ih)
        unbatched = x.ndim == 1
        x = x.unsqueeze(0) if unbatched else x                        # (N, H_in)
        expected = (x.shape[0], self.hidden_size)
        out = []
        for what, s in states:
            if s is None:
                s = zeros(*expected, dtype=x.dtype, device=x.device)
            else:
                _check_state(name, what, s, expected[1:] if unbatched else expected,
                             x.squeeze(0) if unbatched else x, self.weight_ih)
                s = s.unsqueeze(0) if unbatched else s                # (N, H)
            out.append(s)
        return x, out, unbatched


class RNNCell(RNNCellBase):
    """One step of an Elman RNN, as ``torch.nn.RNNCell``: h' = tanh(W_ih x + b_ih +
    W_hh h + b_hh) (``nonlinearity='relu'``: relu). ``cell(input, hx=None)``: input
    (N, input_size) or (input_size,), hx like it with hidden_size features (zeros if
    None) -> h'."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device: Any = None, dtype: Any = None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"RNNCell: nonlinearity must be 'tanh' or 'relu', got "
                             f"{nonlinearity!r}")
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        x, (h,), unbatched = self._batched(input, (("hx", hx),))
        cell = rnn_tanh_cell if self.nonlinearity == "tanh" else rnn_relu_cell
        h = cell(x, h, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return h.squeeze(0) if unbatched else h


class LSTMCell(RNNCellBase):
    """One LSTM step, as ``torch.nn.LSTMCell``: gates i, f, g, o (weights stacked in that
    order, 4·hidden_size rows). ``cell(input, hx=None)``: hx a tuple (h, c), each
    (N, hidden_size) or (hidden_size,), zeros if None -> (h', c')."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: Any = None, dtype: Any = None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor, hx: tuple | None = None) -> tuple[Tensor, Tensor]:
        if hx is not None and not (isinstance(hx, (tuple, list)) and len(hx) == 2):
            raise TypeError(f"LSTMCell: hx must be a tuple (h, c), got {type_name(hx)}")
        h, c = hx if hx is not None else (None, None)
        x, (h, c), unbatched = self._batched(input, (("hx[0]", h), ("hx[1]", c)))
        h, c = lstm_cell(x, h, c, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return (h.squeeze(0), c.squeeze(0)) if unbatched else (h, c)


class GRUCell(RNNCellBase):
    """One GRU step, as ``torch.nn.GRUCell``: gates r, z, n (weights stacked in that
    order, 3·hidden_size rows), n = tanh(W_in x + b_in + r ∘ (W_hn h + b_hn)).
    ``cell(input, hx=None)`` -> h'."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: Any = None, dtype: Any = None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        x, (h,), unbatched = self._batched(input, (("hx", hx),))
        h = gru_cell(x, h, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return h.squeeze(0) if unbatched else h
