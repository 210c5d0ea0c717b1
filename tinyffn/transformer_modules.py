"""``nn.TransformerEncoderLayer`` and ``nn.TransformerEncoder``, as PyTorch 2.13 defines
them (submodule names, defaults, post-norm and pre-norm), and the causal mask PyTorch
users copy, ``nn.Transformer.generate_square_subsequent_mask(T)``.
:mod:`tinyffn.nn` imports them, so ``nn.TransformerEncoderLayer`` is the one to use. The
decoder and the encoder-decoder ``nn.Transformer`` are in :mod:`tinyffn.transformer_decoder`,
built on ``_TransformerLayer`` here, the parts both layers share.

One layer is attention, then the seed's FFN (d_ff = ``dim_feedforward``), each inside a
residual connection with a LayerNorm; x is (T, N, d), or (N, T, d) with ``batch_first``::

    post-norm (norm_first=False, the 2017 paper):   pre-norm (norm_first=True, GPT-2):
        x = norm1(x + drop1(attn(x)))                   x = x + drop1(attn(norm1(x)))
        x = norm2(x + drop2(ffn(x)))                    x = x + drop2(ffn(norm2(x)))

    ffn(x) = linear2(dropout(σ(linear1(x))))        (T, N, d) -> (T, N, d_ff) -> (T, N, d)

The submodules carry PyTorch's names (``self_attn``, ``linear1``, ``dropout``, ``linear2``,
``norm1``, ``norm2``, ``dropout1``, ``dropout2``), so ``layer.load_state_dict(
torch_layer.state_dict())`` loads key for key. tinyffn always takes the path written out
here, PyTorch's training path. PyTorch's inference fast path (eval mode, no grad) gives
the same values for a layer (checked: within float32 rounding), but its encoder, with
nested tensors and a ``src_key_padding_mask``, returns 0.0 at the padded positions where
tinyffn (and PyTorch's own training path) returns what the layers compute there.
"""
from __future__ import annotations

import copy
import math
from typing import Any

from . import functional as F
from .containers import ModuleList
from .creation import full
from .module import Module
from .nn import Dropout, LayerNorm, Linear, _check_size, _check_width
from .arguments import _is_int
from .attention_modules import MultiheadAttention
from .backend import DEFAULTS, dtype_name
from .tensor import Tensor

_OP = "TransformerEncoderLayer"
_ACTIVATIONS = {"relu": F.relu, "gelu": F.gelu}          # PyTorch's two names, as functions


class _TransformerLayer(Module):
    """What PyTorch's encoder and decoder layers share, written once: attention modules,
    the FFN (``linear1``, ``dropout``, ``linear2``), LayerNorms and dropouts, registered in
    PyTorch's order (so ``state_dict`` keys and ``repr`` match), and the blocks built from
    them. ``cross_attention`` (the decoder) adds ``multihead_attn``, ``norm3`` and
    ``dropout3``; ``owner`` names the layer in errors."""

    def __init__(self, owner: str, cross_attention: bool, d_model: int, nhead: int,
                 dim_feedforward: int, dropout: float, activation: Any, layer_norm_eps: float,
                 batch_first: bool, norm_first: bool, bias: bool, device: Any, dtype: Any):
        super().__init__()
        _check_size(owner, "d_model", d_model)
        _check_size(owner, "dim_feedforward", dim_feedforward)
        kw = {"device": device, "dtype": dtype}

        def attention():
            return MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                      batch_first=batch_first, **kw)

        def norm():
            return LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.self_attn = attention()
        if cross_attention:
            self.multihead_attn = attention()                     # queries x, keys memory
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)    # W1: d -> d_ff
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)    # W2: d_ff -> d
        self.norm_first = norm_first
        self.norm1, self.norm2 = norm(), norm()
        if cross_attention:
            self.norm3 = norm()
        self.dropout1, self.dropout2 = Dropout(dropout), Dropout(dropout)
        if cross_attention:
            self.dropout3 = Dropout(dropout)
        self.activation = _activation(owner, activation)

    def _sa_block(self, x: Tensor, attn_mask: Any, key_padding_mask: Any,
                  is_causal: bool) -> Tensor:
        """drop1(attn(x, x, x)): self-attention, without its weights (PyTorch's call)."""
        return self.dropout1(_attend(self.self_attn, x, x, attn_mask, key_padding_mask,
                                     is_causal))

    def _ffn(self, x: Tensor) -> Tensor:
        """W2 drop(σ(W1 x + b1)) + b2: the seed's FFN, with PyTorch's inner dropout."""
        h = self.dropout(self.activation(self.linear1(x)))            # (..., d_ff)
        return self.linear2(h)                                        # (..., d)


def _attend(attn: MultiheadAttention, x: Tensor, kv: Tensor, attn_mask: Any,
            key_padding_mask: Any, is_causal: bool) -> Tensor:
    """attn(x, kv, kv)'s output, without the weights, as PyTorch's layers call it."""
    return attn(x, kv, kv, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                need_weights=False, is_causal=is_causal)[0]


class TransformerEncoderLayer(_TransformerLayer):
    """Self-attention and the FFN, each in a residual connection with a LayerNorm, as
    ``torch.nn.TransformerEncoderLayer`` (the formulas are in the module's docstring).

    ``activation``: "relu" or "gelu" (stored as ``F.relu`` / ``F.gelu``, as PyTorch), a
    module (``nn.GELU(approximate="tanh")``, a child then) or a function of one tensor.
    ``dropout`` is used four times: on the attention weights (``self_attn``), after σ
    (``dropout``), after attention (``dropout1``) and after the FFN (``dropout2``);
    training mode only. ``bias=False`` drops every Linear's and LayerNorm's bias.
    Parameters with d = d_model, d_ff = dim_feedforward and biases: 4d² + 4d (attention)
    + 2·d·d_ff + d_ff + d (FFN) + 4d (two LayerNorms).
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: Any = "relu", layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True,
                 device: Any = None, dtype: Any = None):
        super().__init__(_OP, False, d_model, nhead, dim_feedforward, dropout, activation,
                         layer_norm_eps, batch_first, norm_first, bias, device, dtype)

    def forward(self, src: Tensor, src_mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None, is_causal: bool = False) -> Tensor:
        """src (T, N, d), (N, T, d) with ``batch_first``, or unbatched (T, d) -> the same
        shape. ``src_mask`` (T, T) or (N·nhead, T, T) and ``src_key_padding_mask`` (N, T):
        bool, True = masked out, or float, added to the scores (``MultiheadAttention``'s
        rules). ``is_causal``: a hint that ``src_mask`` is the causal mask, which must be
        given, as PyTorch (``nn.Transformer.generate_square_subsequent_mask(T)``)."""
        _check_width(_OP, src, self.self_attn.embed_dim)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _ff_block(self, x: Tensor) -> Tensor:
        """drop2(ffn(x)): the FFN and the dropout after it."""
        return self.dropout2(self._ffn(x))


def _activation(owner: str, activation: Any) -> Any:
    if isinstance(activation, str):
        if activation not in _ACTIVATIONS:
            raise ValueError(f"{owner}: activation should be 'relu' or 'gelu' (PyTorch's two "
                             f"names), not {activation!r}; pass any other σ as a module "
                             "(nn.GELU(approximate='tanh')) or a function of one tensor")
        return _ACTIVATIONS[activation]
    if isinstance(activation, type):
        raise TypeError(f"{owner}: activation is the class {activation.__name__}; pass an "
                        f"instance, {activation.__name__}(), or a function of one tensor")
    if not callable(activation):
        raise TypeError(f"{owner}: activation must be 'relu', 'gelu', a module or a function "
                        f"of one tensor, got {type(activation).__name__}")
    return activation


def _clones(owner: str, what: str, layer: Any, num_layers: int) -> ModuleList:
    """``num_layers`` deep copies of ``layer`` (PyTorch's ``_get_clones``): each its own
    parameters, all starting equal."""
    if not isinstance(layer, Module):
        raise TypeError(f"{owner}: {what} must be a module (nn.{owner}Layer(d, nhead)), "
                        f"got {type(layer).__name__}")
    _check_size(owner, "num_layers", num_layers)
    return ModuleList([copy.deepcopy(layer) for _ in range(num_layers)])


class TransformerEncoder(Module):
    """``num_layers`` copies of ``encoder_layer`` (``copy.deepcopy``, as PyTorch: each its
    own parameters, all starting equal) applied in turn, then ``norm`` if given, as
    ``torch.nn.TransformerEncoder``: ``layers.0``, ``layers.1``, ..., ``norm``.
    ``enable_nested_tensor`` and ``mask_check`` are accepted for PyTorch's signature; they
    choose PyTorch's inference fast path, which tinyffn does not have: there (eval, no
    grad, a key padding mask) PyTorch's output is 0.0 at the padded positions, here it is
    what the layers compute, as PyTorch's training path gives."""

    def __init__(self, encoder_layer: Module, num_layers: int, norm: Module | None = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True):
        super().__init__()
        self.layers = _clones("TransformerEncoder", "encoder_layer", encoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm
        self.enable_nested_tensor = self.use_nested_tensor = False
        self.mask_check = mask_check

    def forward(self, src: Tensor, mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None,
                is_causal: bool | None = None) -> Tensor:
        """Each layer's ``forward(x, mask, src_key_padding_mask, is_causal)`` in turn;
        ``is_causal=None`` passes False (the mask given is what is applied)."""
        x = src
        for layer in self.layers:
            x = layer(x, src_mask=mask, src_key_padding_mask=src_key_padding_mask,
                      is_causal=bool(is_causal))
        return x if self.norm is None else self.norm(x)


def generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Tensor:
    """The causal mask (sz, sz), as ``torch.nn.Transformer.generate_square_subsequent_mask``:
    0.0 on and below the diagonal, -inf above it (query i sees keys 0..i), a float mask that
    is added to the scores; float32 unless ``dtype`` says otherwise."""
    if isinstance(sz, Tensor) and sz.ndim == 0 and dtype_name(sz.dtype).startswith("int"):
        sz = int(sz.item())                     # a 0-d integer tensor, as torch.full takes
    if not _is_int(sz) or sz < 0:
        raise ValueError(f"generate_square_subsequent_mask: sz must be a non-negative "
                         f"integer (the sequence length T), got {sz!r}")
    sz = int(sz)                                # a NumPy integer, as len() or .shape give
    mask = full((sz, sz), -math.inf, dtype=dtype or DEFAULTS.float, device=device or "cpu")
    return mask.triu(1)                                               # (sz, sz)
