"""The recurrent layers, as PyTorch 2.13 defines them: ``nn.RNN``, ``nn.LSTM``, ``nn.GRU``.

Each runs a cell of recurrent.py (whose docstring has the formulas) along the sequence:
for each of ``num_layers`` layers, h_t = cell(x_t, h_{t-1}) for t = 1..L, the outputs of
one layer the inputs of the next (through dropout while training, when ``dropout`` > 0);
``bidirectional`` adds a second cell per layer that reads the sequence from t = L down to
1, and the two outputs are joined feature-wise. The parameters are PyTorch's, by name,
shape and order: ``weight_ih_l{k}`` (G·hidden_size, H_in of layer k), ``weight_hh_l{k}``
(G·hidden_size, H_out), ``bias_ih_l{k}``, ``bias_hh_l{k}`` (G·hidden_size,), with
proj_size (LSTM only) ``weight_hr_l{k}`` (proj_size, hidden_size), and the same with
``_reverse`` for the backward cell; G = 1 (RNN), 4 (LSTM: i, f, g, o), 3 (GRU: r, z, n).

Shapes (L steps, N sequences, D = 2 if bidirectional else 1, H_out = proj_size or
hidden_size): input (L, N, H_in), (N, L, H_in) with ``batch_first``, or unbatched
(L, H_in); h0 (D·num_layers, N, H_out) and, for an LSTM, c0 (D·num_layers, N,
hidden_size), both zeros when not given (unbatched: without the N axis). Output
(L, N, D·H_out) (batch_first: (N, L, D·H_out)), h_n and c_n like h0 and c0, in the order
layer 0 forward, layer 0 backward, layer 1 forward, ... ``batch_first`` changes input and
output, not h0 and h_n, as in PyTorch. A PackedSequence (nn.utils.rnn) of sequences of
different lengths runs as its padded batch with each sequence's state frozen after its
last step: h_n holds each one's own final state, and the output comes back packed.
"""
from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

import numpy as np

from . import init
from .arguments import _is_int, type_name
from .backend import DEFAULTS
from .creation import cat, empty, stack, tensor, zeros
from .functional import dropout
from .module import Module, Parameter
from .composed import where
from .recurrent import (_check_dtype, _check_sizes, _check_state, _check_tensor, gru_cell,
                        lstm_cell, rnn_relu_cell, rnn_tanh_cell)
from .rnn_utils import PackedSequence, _host_order, _packed, pad_packed_sequence
from .tensor import Tensor

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


class RNNBase(Module):
    """What ``RNN``, ``LSTM`` and ``GRU`` share, as ``torch.nn.RNNBase``: the parameters
    ``weight_ih_l{k}``, ``weight_hh_l{k}``, ``bias_ih_l{k}``, ``bias_hh_l{k}`` (and
    ``weight_hr_l{k}`` with proj_size), ``_reverse`` for the backward direction, in
    PyTorch's order; the loop over layers, directions and time. ``mode`` is one of
    'RNN_TANH', 'RNN_RELU', 'LSTM', 'GRU'."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device: Any = None,
                 dtype: Any = None):
        super().__init__()
        name = {"RNN_TANH": "RNN", "RNN_RELU": "RNN"}.get(mode, mode)
        if mode not in _GATES:
            raise ValueError(f"RNNBase: mode must be one of {tuple(_GATES)}, got {mode!r}")
        _check_sizes(name, input_size=input_size, hidden_size=hidden_size,
                     num_layers=num_layers)
        if isinstance(dropout, bool) or not isinstance(dropout, numbers.Real) \
                or not 0 <= dropout <= 1:
            raise ValueError(f"{name}: dropout must be a number in [0, 1] (the probability "
                             f"of zeroing an element between layers), got {dropout!r}")
        if dropout > 0 and num_layers == 1:
            warnings.warn(f"{name}: dropout is applied between layers, after all but the "
                          f"last, so a non-zero dropout expects num_layers greater than 1, "
                          f"but got dropout={dropout} and num_layers={num_layers}",
                          stacklevel=3)
        for arg, v in (("bias", bias), ("batch_first", batch_first),
                       ("bidirectional", bidirectional)):
            if not isinstance(v, bool):
                raise TypeError(f"{name}: {arg} must be a bool, got {type_name(v)}")
        if not (_is_int(proj_size) and 0 <= proj_size < hidden_size):
            raise ValueError(f"{name}: proj_size must be an int from 0 (no projection) to "
                             f"hidden_size - 1 = {hidden_size - 1}, got {proj_size!r}")
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, proj_size
        kw = {"dtype": dtype or DEFAULTS.float, "device": device or "cpu"}
        G, D = _GATES[mode] * hidden_size, 2 if bidirectional else 1
        H_out = proj_size or hidden_size
        self._all_weights = []             # per layer and direction, its parameters' names
        for layer in range(num_layers):
            for direction in range(D):
                H_in = input_size if layer == 0 else D * H_out
                shapes = {"weight_ih": (G, H_in), "weight_hh": (G, H_out)}
                if bias:
                    shapes.update(bias_ih=(G,), bias_hh=(G,))
                if proj_size:
                    shapes["weight_hr"] = (proj_size, hidden_size)
                suffix = f"_l{layer}" + ("_reverse" if direction else "")
                for kind, shape in shapes.items():
                    setattr(self, kind + suffix, Parameter(empty(*shape, **kw)))
                self._all_weights.append([kind + suffix for kind in shapes])
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every parameter redrawn from U(-1/√hidden_size, 1/√hidden_size), in order."""
        bound = 1 / math.sqrt(self.hidden_size)
        for p in self.parameters():
            init.uniform_(p, -bound, bound)

    @property
    def all_weights(self) -> list:
        """The parameters, one list per layer and direction, as PyTorch's."""
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """Nothing to do: PyTorch packs the weights for cuDNN here; tinyffn has no cuDNN."""

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    def _step(self, x: Tensor, state: tuple, w: dict) -> tuple:
        """One cell step: x (N, H_in), state (h,) or (h, c) -> the new state."""
        if self.mode == "LSTM":
            return lstm_cell(x, *state, w["weight_ih"], w["weight_hh"], w.get("bias_ih"),
                             w.get("bias_hh"), w.get("weight_hr"))
        cell = {"RNN_TANH": rnn_tanh_cell, "RNN_RELU": rnn_relu_cell, "GRU": gru_cell}[self.mode]
        return (cell(x, *state, w["weight_ih"], w["weight_hh"], w.get("bias_ih"),
                     w.get("bias_hh")),)

    def forward(self, input: Tensor, hx: Any = None) -> tuple:
        """(output, h_n), or for an LSTM (output, (h_n, c_n)); shapes in the module
        docstring. A PackedSequence runs padded, each sequence's state frozen after its
        last step (so h_n is the state there), and its output comes back packed alike."""
        packed, lengths = None, None
        if isinstance(input, PackedSequence):
            packed = input
            input, lengths = pad_packed_sequence(packed, batch_first=self.batch_first)
            lengths = np.asarray(lengths.tolist())
        x, states, unbatched = self._prepared(input, hx)   # x (L, N, H_in); states (D·layers, N, ·)
        # the sequences still running at each step, (L, N, 1): one copy to the device (on a
        # GPU each waits for the kernels queued before it), not one per step
        running = None if lengths is None else tensor(
            (np.arange(x.shape[0])[:, None] < lengths)[..., None], device=x.device)
        D = 2 if self.bidirectional else 1
        finals = []                                        # (h,) or (h, c) per layer, direction
        for layer in range(self.num_layers):
            if layer > 0 and self.dropout and self.training:
                x = dropout(x, self.dropout)               # between layers, not after the last
            outputs = []
            for direction in range(D):
                k = layer * D + direction
                w = {n.split("_l")[0]: getattr(self, n)        # "weight_ih": weight_ih_l1, ...
                     for n in self._all_weights[k]}
                state = tuple(s[k] for s in states)        # each (N, H_out) or (N, H)
                steps = range(x.shape[0] - 1, -1, -1) if direction else range(x.shape[0])
                ys = [None] * x.shape[0]
                for t in steps:                            # backwards for the reverse cell
                    new = self._step(x[t], state, w)
                    state = new if running is None else tuple(     # frozen past each end
                        where(running[t], a, b) for a, b in zip(new, state))
                    ys[t] = state[0]                       # (N, H_out)
                outputs.append(stack(ys))                  # (L, N, H_out)
                finals.append(state)
            x = cat(outputs, -1) if D == 2 else outputs[0]  # (L, N, D·H_out)
        h_n = [stack([f[i] for f in finals]) for i in range(len(states))]  # (D·layers, N, ·)
        if packed is not None:
            order, kept = None, (packed.sorted_indices, packed.unsorted_indices)
            if kept[0] is not None:                        # the copy kept on the host
                order = _host_order(type(self).__name__, "sorted_indices", kept[0],
                                    len(lengths))
            x = _packed(x, lengths, order, kept if None not in kept else None)
        elif unbatched:
            x, h_n = x.squeeze(1), [h.squeeze(1) for h in h_n]
        elif self.batch_first:
            x = x.transpose(0, 1)                          # (N, L, D·H_out)
        return (x, tuple(h_n)) if self.mode == "LSTM" else (x, h_n[0])

    def _prepared(self, input: Any, hx: Any) -> tuple:
        """input as (L, N, H_in), the initial states as a tuple of (D·layers, N, ·)
        tensors (h0, or h0 and c0), and whether the input was unbatched; each checked."""
        name = type(self).__name__
        _check_tensor(name, "input", input)
        if input.ndim not in (2, 3):
            layout = "(N, L, H_in)" if self.batch_first else "(L, N, H_in)"
            raise ValueError(f"{name}: expected input to be 2-D (L, H_in) or 3-D {layout}, "
                             f"got shape {tuple(input.shape)}")
        if input.shape[-1] != self.input_size:
            raise ValueError(f"{name}: input of shape {tuple(input.shape)} has "
                             f"{input.shape[-1]} features on its last axis, but "
                             f"input_size={self.input_size}")
        _check_dtype(name, "input", input, self.weight_ih_l0)
        unbatched = input.ndim == 2
        x = input.unsqueeze(1) if unbatched else \
            input.transpose(0, 1) if self.batch_first else input       # (L, N, H_in)
        if x.shape[0] == 0:
            raise ValueError(f"{name}: input of shape {tuple(input.shape)} has no time steps; "
                             "a sequence needs at least one")
        D, N = 2 if self.bidirectional else 1, x.shape[1]
        sizes = [("h0", self.proj_size or self.hidden_size)]
        if self.mode == "LSTM":
            sizes.append(("c0", self.hidden_size))
            if hx is not None and not (isinstance(hx, (tuple, list)) and len(hx) == 2):
                raise TypeError(f"LSTM: hx must be a tuple (h0, c0), got {type_name(hx)}")
        given = (None,) * len(sizes) if hx is None else tuple(hx) if self.mode == "LSTM" \
            else (hx,)
        states = []
        for (what, H), s in zip(sizes, given):
            shape = (D * self.num_layers,) + (() if unbatched else (N,)) + (H,)
            if s is None:
                s = zeros(*shape, dtype=x.dtype, device=x.device)
            else:
                _check_state(name, what, s, shape, input, self.weight_ih_l0)
            states.append(s.unsqueeze(1) if unbatched else s)          # (D·layers, N, H)
        return x, tuple(states), unbatched


class RNN(RNNBase):
    """An Elman RNN, as ``torch.nn.RNN``: per layer h_t = tanh(W_ih x_t + b_ih + W_hh h_{t-1}
    + b_hh) (``nonlinearity='relu'``: relu). ``rnn(input, hx=None)`` -> (output, h_n);
    shapes in the module docstring. ``repr`` leaves out the nonlinearity, as PyTorch's."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 nonlinearity: str = "tanh", bias: bool = True, batch_first: bool = False,
                 dropout: float = 0.0, bidirectional: bool = False, device: Any = None,
                 dtype: Any = None):
        modes = {"tanh": "RNN_TANH", "relu": "RNN_RELU"}
        if nonlinearity not in modes:
            raise ValueError(f"RNN: nonlinearity must be 'tanh' or 'relu', got {nonlinearity!r}")
        super().__init__(modes[nonlinearity], input_size, hidden_size, num_layers, bias,
                         batch_first, dropout, bidirectional, 0, device, dtype)
        self.nonlinearity = nonlinearity


class LSTM(RNNBase):
    """A long short-term memory layer, as ``torch.nn.LSTM``: gates i, f, g, o per step;
    ``proj_size > 0`` projects each h by ``weight_hr_l{k}`` (proj_size, hidden_size).
    ``lstm(input, hx=None)``, hx a tuple (h0, c0) -> (output, (h_n, c_n)); shapes in the
    module docstring."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device: Any = None,
                 dtype: Any = None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, proj_size, device, dtype)


class GRU(RNNBase):
    """A gated recurrent unit layer, as ``torch.nn.GRU``: gates r, z, n per step, with
    n = tanh(W_in x + b_in + r ∘ (W_hn h + b_hn)). ``gru(input, hx=None)`` ->
    (output, h_n); shapes in the module docstring."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, device: Any = None, dtype: Any = None):
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, 0, device, dtype)
