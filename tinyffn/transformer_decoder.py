"""``nn.TransformerDecoderLayer``, ``nn.TransformerDecoder`` and the encoder-decoder
``nn.Transformer``, as PyTorch 2.13 defines them (submodule names, defaults, post-norm and
pre-norm), so a torch model's ``state_dict`` loads key for key. :mod:`tinyffn.nn` imports
them. The parts a decoder layer shares with the encoder layer (attention, the seed's FFN,
LayerNorms, dropouts) are built by ``_TransformerLayer`` in :mod:`tinyffn.transformer_modules`.

A decoder layer adds cross-attention between self-attention and the FFN: its queries
come from the target x (T, N, d), its keys and values from the encoder's output, the
memory (S, N, d); (N, T, d) and (N, S, d) with ``batch_first``::

    post-norm (norm_first=False):                  pre-norm (norm_first=True):
        x = norm1(x + drop1(attn(x, x)))               x = x + drop1(attn(norm1(x), ·))
        x = norm2(x + drop2(mha(x, memory)))           x = x + drop2(mha(norm2(x), memory))
        x = norm3(x + drop3(ffn(x)))                   x = x + drop3(ffn(norm3(x)))

``nn.Transformer`` is an encoder (src (S, N, d) -> memory) and a decoder (tgt, memory ->
(T, N, d)), each with a final LayerNorm; it returns the decoder's output, before any
projection to a vocabulary (that Linear is the user's, as in PyTorch).
"""
from __future__ import annotations

from typing import Any

from . import init
from .module import Module
from .nn import LayerNorm, _check_width
from .tensor import Tensor
from .transformer_modules import (TransformerEncoder, TransformerEncoderLayer, _attend,
                                  _clones, _TransformerLayer, generate_square_subsequent_mask)

_OP = "TransformerDecoderLayer"


class TransformerDecoderLayer(_TransformerLayer):
    """Self-attention, cross-attention on the memory and the FFN, each in a residual
    connection with a LayerNorm, as ``torch.nn.TransformerDecoderLayer`` (the formulas are
    in the module's docstring). Submodules, in PyTorch's order: ``self_attn``,
    ``multihead_attn``, ``linear1``, ``dropout``, ``linear2``, ``norm1``, ``norm2``,
    ``norm3``, ``dropout1``, ``dropout2``, ``dropout3``.

    ``activation``, ``bias``, ``layer_norm_eps``, ``batch_first`` as the encoder layer's.
    Parameters with d = d_model, d_ff = dim_feedforward and biases: 2·(4d² + 4d) (two
    attentions) + 2·d·d_ff + d_ff + d (FFN) + 6d (three LayerNorms).
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: Any = "relu", layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True,
                 device: Any = None, dtype: Any = None):
        super().__init__(_OP, True, d_model, nhead, dim_feedforward, dropout, activation,
                         layer_norm_eps, batch_first, norm_first, bias, device, dtype)

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None, tgt_is_causal: bool = False,
                memory_is_causal: bool = False) -> Tensor:
        """tgt (T, N, d) and memory (S, N, d), (N, ·, d) with ``batch_first``, or unbatched
        (T, d) and (S, d) -> tgt's shape. ``tgt_mask`` (T, T) or (N·nhead, T, T),
        ``memory_mask`` (T, S) or (N·nhead, T, S), ``tgt_key_padding_mask`` (N, T),
        ``memory_key_padding_mask`` (N, S): bool, True = masked out, or float, added to
        the scores (``MultiheadAttention``'s rules). ``tgt_is_causal``,
        ``memory_is_causal``: hints that the mask is causal, which must then be given."""
        d = self.self_attn.embed_dim
        _check_width(_OP, tgt, d)
        _check_memory(_OP, memory, d)
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask,
                                    memory_key_padding_mask, memory_is_causal)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask,
                                               memory_is_causal))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _mha_block(self, x: Tensor, memory: Tensor, attn_mask: Any, key_padding_mask: Any,
                   is_causal: bool) -> Tensor:
        """drop2(mha(x, memory, memory)): queries from x, keys and values from memory."""
        return self.dropout2(_attend(self.multihead_attn, x, memory, attn_mask,
                                     key_padding_mask, is_causal))

    def _ff_block(self, x: Tensor) -> Tensor:
        """drop3(ffn(x)): the FFN and the dropout after it."""
        return self.dropout3(self._ffn(x))


def _check_memory(owner: str, memory: Any, d_model: int) -> None:
    if not isinstance(memory, Tensor):
        raise TypeError(f"{owner}: memory (the encoder's output) must be a tinyffn Tensor, "
                        f"got {type(memory).__name__}")
    if memory.ndim == 0 or memory.shape[-1] != d_model:
        raise ValueError(f"{owner}: memory of shape {memory.shape} must end in "
                         f"d_model={d_model}, the width this decoder was built for: pass "
                         f"the encoder's output (..., {d_model})")


class TransformerDecoder(Module):
    """``num_layers`` copies of ``decoder_layer`` (``copy.deepcopy``, as PyTorch: each its
    own parameters, all starting equal), each given the same memory, then ``norm`` if
    given, as ``torch.nn.TransformerDecoder``: ``layers.0``, ``layers.1``, ..., ``norm``."""

    def __init__(self, decoder_layer: Module, num_layers: int, norm: Module | None = None):
        super().__init__()
        self.layers = _clones("TransformerDecoder", "decoder_layer", decoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None,
                tgt_is_causal: bool | None = None, memory_is_causal: bool = False) -> Tensor:
        """Each layer's ``forward`` with the same memory and masks in turn; ``tgt_is_causal
        =None`` passes False (PyTorch checks whether ``tgt_mask`` is causal, to pick a
        kernel; here the mask given is what is applied either way)."""
        x = tgt
        for layer in self.layers:
            x = layer(x, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                      tgt_key_padding_mask=tgt_key_padding_mask,
                      memory_key_padding_mask=memory_key_padding_mask,
                      tgt_is_causal=bool(tgt_is_causal), memory_is_causal=memory_is_causal)
        return x if self.norm is None else self.norm(x)


class Transformer(Module):
    """The encoder-decoder model of "Attention Is All You Need", as ``torch.nn.Transformer``:
    ``encoder``, a ``TransformerEncoder`` of ``num_encoder_layers`` layers with a final
    LayerNorm ``encoder.norm``, and ``decoder``, a ``TransformerDecoder`` of
    ``num_decoder_layers`` with ``decoder.norm`` (or ``custom_encoder`` /
    ``custom_decoder``, used as given). Every parameter with more than one axis is then
    redrawn by ``xavier_uniform_`` (PyTorch's ``_reset_parameters``), the custom ones too;
    biases and LayerNorm gains keep their init. The other arguments are the layers'.
    ``nn.Transformer.generate_square_subsequent_mask(sz)`` is the causal mask for tgt.
    PyTorch's encoder fast path (eval, no grad, a ``src_key_padding_mask``) zeroes the
    padded memory positions, which changes its output unless ``memory_key_padding_mask``
    masks them too; tinyffn gives PyTorch's training-path values there.
    """

    generate_square_subsequent_mask = staticmethod(generate_square_subsequent_mask)

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: Any = "relu", custom_encoder: Any = None,
                 custom_decoder: Any = None, layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True,
                 device: Any = None, dtype: Any = None):
        super().__init__()
        layer_args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                      batch_first, norm_first, bias, device, dtype)

        def norm():
            return LayerNorm(d_model, eps=layer_norm_eps, bias=bias, device=device, dtype=dtype)
        self.encoder = custom_encoder if custom_encoder is not None else TransformerEncoder(
            TransformerEncoderLayer(*layer_args), num_encoder_layers, norm())
        self.decoder = custom_decoder if custom_decoder is not None else TransformerDecoder(
            TransformerDecoderLayer(*layer_args), num_decoder_layers, norm())
        self._reset_parameters()
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def forward(self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None,
                tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None,
                src_is_causal: bool | None = None, tgt_is_causal: bool | None = None,
                memory_is_causal: bool = False) -> Tensor:
        """src (S, N, d) and tgt (T, N, d) (batch first: (N, S, d), (N, T, d); unbatched:
        (S, d), (T, d)) -> (T, N, d): memory = encoder(src), then decoder(tgt, memory).
        Masks as the encoder's and decoder's: ``src_mask`` (S, S), ``tgt_mask`` (T, T),
        ``memory_mask`` (T, S), key padding masks (N, S), (N, T), (N, S)."""
        self._check_inputs(src, tgt)
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)                    # (S, N, d)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal,
                            memory_is_causal=memory_is_causal)          # (T, N, d)

    def _check_inputs(self, src: Any, tgt: Any) -> None:
        """PyTorch's two checks (one batch size, width d_model), and that both are batched
        or both not, with the shapes and the layout in the message."""
        for what, t in (("src", src), ("tgt", tgt)):
            if not isinstance(t, Tensor):
                raise TypeError(f"Transformer: {what} must be a tinyffn Tensor, got "
                                f"{type(t).__name__}")
        shapes = f"src {src.shape}, tgt {tgt.shape}"
        layout = "(N, S, d), (N, T, d)" if self.batch_first else "(S, N, d), (T, N, d)"
        if src.ndim not in (2, 3) or tgt.ndim != src.ndim:
            raise ValueError(f"Transformer: src and tgt must both be batched, {layout} "
                             f"(batch_first={self.batch_first}), or both unbatched, (S, d), "
                             f"(T, d); got {shapes}")
        b = 0 if self.batch_first else 1
        if src.ndim == 3 and src.shape[b] != tgt.shape[b]:
            raise ValueError(f"Transformer: src and tgt must have one batch size N, got "
                             f"{shapes} (batch_first={self.batch_first}: {layout})")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise ValueError(f"Transformer: src and tgt must end in d_model={self.d_model}, "
                             f"got {shapes}")

    def _reset_parameters(self) -> None:
        """xavier_uniform_ on every parameter with more than one axis, as PyTorch."""
        for p in self.parameters():
            if p.ndim > 1:
                init.xavier_uniform_(p)
