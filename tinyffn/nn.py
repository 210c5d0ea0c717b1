"""Layers and the feed-forward block, built on :mod:`tinyffn.module`.

``Linear``, the activation modules, ``FFN`` and ``GatedFFN`` are :class:`Module` s: their
parameters are attributes, found and named by ``named_parameters()`` (``w1.weight``) as
PyTorch names them. ``Module`` lives in :mod:`tinyffn.module`, ``Parameter`` in
:mod:`tinyffn.parameter`, ``Sequential``, ``ModuleList`` and ``ModuleDict`` in
:mod:`tinyffn.containers`, ``ParameterList`` and ``ParameterDict`` in
:mod:`tinyffn.param_containers`, the activation modules (``ReLU``, ``GELU``, ``Tanh``,
``Softmax``, ...) in :mod:`tinyffn.activation_modules`; they are imported here, so
``nn.Module`` is the one to use.

The seed's block, for one position x in R^d (and position-wise for any leading axes)::

    FFN(x)      = W2 σ(W1 x + b1) + b2                 W1 (d_ff, d), W2 (d, d_ff)
    GatedFFN(x) = W2 (σ(W1 x) ⊙ W3 x)                  W1, W3 (d_ff, d), W2 (d, d_ff)

Everything is composed from :mod:`tinyffn.functional`; no module has its own backward.
"""
from __future__ import annotations

import math
import sys
from typing import Any

from . import functional as F
from . import functional                        # nn.functional, as torch.nn.functional
from . import init                              # nn.init, as torch.nn.init
from . import nn_utils as utils                 # nn.utils, as torch.nn.utils (clipping)
from . import nn_attention as attention         # nn.attention.sdpa_kernel, a no-op here
from .activation_modules import (GELU, LeakyReLU, ReLU, Sigmoid, SiLU, Softmax, Softplus, Swish,
                                 Tanh)
from .activation_modules import (CELU, ELU, GLU, SELU, Hardsigmoid, Hardswish, Hardtanh,
                                 LogSigmoid, LogSoftmax, Mish, PReLU, ReLU6, Softmin, Softsign,
                                 Tanhshrink, Threshold)
from .activation_modules import Hardshrink, RReLU, Softmax2d, Softshrink
from .more_modules import CosineSimilarity, PairwiseDistance, Unflatten
from .loss_modules import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss,
                           KLDivLoss, L1Loss, MSELoss, NLLLoss, SmoothL1Loss)
from .loss_modules import (CosineEmbeddingLoss, GaussianNLLLoss, HingeEmbeddingLoss,
                           MarginRankingLoss, PoissonNLLLoss)
from .loss_modules import (MultiLabelMarginLoss, MultiLabelSoftMarginLoss, MultiMarginLoss,
                           SoftMarginLoss, TripletMarginLoss, TripletMarginWithDistanceLoss)
from .arguments import (_is_int, check_inplace, check_positive, check_probability,
                        normalized_shape_arg)
from .backend import DEFAULTS, FLOAT_DTYPES
from .containers import ModuleDict, ModuleList, Sequential
from .normalization import _EPS_WHY
from .creation import ones, tensor, zeros
from .generators import generator
from .module import Module, Parameter
from .param_containers import ParameterDict, ParameterList
from .tensor import Tensor

# nn is a module, not a package: name init under it too, so that `import tinyffn.nn.init`
# and `from tinyffn.nn.init import normal_` work as with torch (os.py does this for os.path)
sys.modules[__name__ + ".init"] = init
sys.modules[__name__ + ".utils"] = utils
for _name in ("rnn", "parametrize", "parametrizations", "fusion", "prune", "stateless"):
    sys.modules[f"{__name__}.utils.{_name}"] = getattr(utils, _name)
sys.modules[__name__ + ".functional"] = functional
sys.modules[__name__ + ".attention"] = attention

# Module and friends come from module.py, containers.py and param_containers.py; the
# activations from activation_modules.py, the losses from loss_modules.py (with _Loss, their base)
__all__ = ["init", "utils", "functional", "attention", "Parameter", "Module", "Sequential",
           "ModuleList", "ModuleDict", "ParameterList", "ParameterDict", "Linear",
           "Identity", "Flatten", "Unflatten", "CosineSimilarity", "PairwiseDistance",
           "ReLU", "LeakyReLU", "GELU", "Swish", "SiLU", "Tanh", "Sigmoid", "Softmax",
           "Softplus", "ELU", "SELU", "CELU", "Mish", "Hardswish", "Hardsigmoid",
           "LogSigmoid", "Hardtanh", "ReLU6", "Softsign", "Tanhshrink", "Softmin",
           "Threshold", "GLU", "LogSoftmax", "PReLU", "Softshrink", "Hardshrink",
           "RReLU", "Softmax2d", "FFN", "GatedFFN", "gated_d_ff", "MoEFFN",
           "load_balancing_loss",
           "router_z_loss", "FFN_ACTIVATIONS", "GATED_ACTIVATIONS", "FLOAT_DTYPES",
           "LayerNorm", "RMSNorm", "Dropout",
           "Embedding", "MSELoss", "L1Loss", "CrossEntropyLoss", "NLLLoss", "BCELoss",
           "BCEWithLogitsLoss", "SmoothL1Loss", "HuberLoss", "KLDivLoss",
           "GaussianNLLLoss", "PoissonNLLLoss", "MarginRankingLoss",
           "HingeEmbeddingLoss", "CosineEmbeddingLoss", "MultiheadAttention",
           "TransformerEncoderLayer", "TransformerEncoder", "TransformerDecoderLayer",
           "TransformerDecoder", "Transformer", "SoftMarginLoss", "MultiLabelSoftMarginLoss",
           "MultiMarginLoss", "MultiLabelMarginLoss", "TripletMarginLoss",
           "TripletMarginWithDistanceLoss"]   # and nn_layers.py's, added at the end

FFN_ACTIVATIONS = ("relu", "gelu", "gelu_tanh", "swish")
GATED_ACTIVATIONS = ("swish", "gelu")       # SwiGLU and GeGLU


# ----------------------------------------------------------------------------- layers
class Linear(Module):
    """y = x W^T + b, W (out_features, in_features), b (out_features,).

    Initialised as PyTorch does: ``kaiming_uniform_(W, a=sqrt(5))`` has gain
    sqrt(2 / (1 + a^2)) = sqrt(1/3) and bound sqrt(3) · gain / sqrt(in) = 1/sqrt(in), so
    W ~ U(-1/sqrt(in), 1/sqrt(in)), and b ~ U(-1/sqrt(in), 1/sqrt(in)). The numbers are
    drawn from :func:`tinyffn.generators.generator` (seed with :func:`tinyffn.manual_seed`),
    W first and then b, so a seed gives the same layer on every device (though not the
    same numbers as PyTorch, whose generator differs).

    ``fused=True`` runs it as one node (:class:`tinyffn.ops.linalg.Linear`) instead of
    transpose, matmul and add. Shapes: x (..., in_features) -> y (..., out_features).
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True, *,
                 device: Any = None, dtype: Any = None, fused: bool = False):
        super().__init__()
        _check_size("Linear", "in_features", in_features)
        _check_size("Linear", "out_features", out_features)
        self.in_features = in_features
        self.out_features = out_features
        self.fused = fused
        bound = 1 / math.sqrt(in_features)
        self.weight = Parameter(_uniform((out_features, in_features), bound, dtype, device))
        self.bias = Parameter(_uniform((out_features,), bound, dtype, device)) if bias else None

    def forward(self, x: Tensor) -> Tensor:
        return F.linear(x, self.weight, self.bias, fused=self.fused)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}" + (", fused=True" if self.fused else ""))


class Identity(Module):
    """y = x, the input itself, as ``torch.nn.Identity``: a placeholder where a layer is
    optional (``nn.Identity()`` in place of an activation or a norm). Any arguments are
    accepted and ignored, as PyTorch's."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__()

    def forward(self, x: Any) -> Any:
        return x


class Flatten(Module):
    """Axes ``start_dim`` to ``end_dim`` merged into one, as ``torch.nn.Flatten``: by
    default every axis but the first (the batch), (B, C, H, W) -> (B, C·H·W). One
    ``reshape`` (:meth:`tinyffn.Tensor.flatten`)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, x: Tensor) -> Tensor:
        return x.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


def _uniform(shape: tuple, bound: float, dtype: Any, device: Any) -> Tensor:
    values = generator().uniform(-bound, bound, size=shape)
    return tensor(values, dtype=dtype or DEFAULTS.float, device=device or "cpu")


def _check_size(owner: str, name: str, n: Any) -> None:
    """A width or count: a positive integer (NumPy's integers too), never a bool or float."""
    if not _is_int(n) or n < 1:
        raise ValueError(f"{owner}: {name} must be a positive integer, got {n!r}")


def _activation(owner: str, name: Any, valid: tuple, fused: bool = False) -> Any:
    """The activation called ``name``, one of ``valid`` (``fused``: one-node form), or the
    caller's own: a module (``nn.Mish()``, ``nn.PReLU()``) or a function of one tensor
    (``F.elu``), as PyTorch's ``TransformerEncoderLayer`` takes, used as given."""
    if isinstance(name, type):      # nn.Mish, not nn.Mish(): calling it would build a module
        raise TypeError(f"{owner}: activation is the class {name.__name__}; pass an "
                        f"instance, {name.__name__}(), or a function of one tensor (F.elu)")
    if isinstance(name, Module) or callable(name):
        return name
    if name not in valid:
        hint = {"swiglu": "; a gated FFN is nn.GatedFFN(d, activation='swish')",
                "geglu": "; a gated FFN is nn.GatedFFN(d, activation='gelu')",
                "silu": "; SiLU is 'swish' (β = 1)"}.get(str(name).lower(), "")
        raise ValueError(f"{owner}: unknown activation {name!r}; choose one of "
                         f"{', '.join(repr(v) for v in valid)}, or pass a module "
                         f"(nn.Mish()) or a function of one tensor (F.elu){hint}")
    if name == "relu":
        return ReLU()
    if name == "gelu":
        return GELU(fused=fused)
    if name == "gelu_tanh":
        return GELU(approximate="tanh", fused=fused)
    return Swish(fused=fused)


def _name_of(activation: Any) -> str:
    """What ``ffn.activation`` holds: the name given, or the name of one's own σ (``"Mish"``
    for ``nn.Mish()``, ``"elu"`` for ``F.elu``); the σ itself is ``ffn.act``."""
    if isinstance(activation, str):
        return activation
    return getattr(activation, "__name__", type(activation).__name__)


def _function_repr(act: Any) -> str:
    """``act=elu`` where σ is a plain function (a module σ prints as a child instead)."""
    return "" if isinstance(act, Module) else f"act={getattr(act, '__name__', repr(act))}"


def _check_width(owner: str, x: Any, d_model: int) -> None:
    F._check_tensor(owner, "the input", x)
    if x.ndim == 0 or x.shape[-1] != d_model:
        raise ValueError(f"{owner}: input of shape {x.shape} must end in d_model={d_model}, "
                         f"the width this block was built for: pass (..., {d_model})")


# ----------------------------------------------------------------------------- the FFN
class FFN(Module):
    """The position-wise feed-forward block of the seed: FFN(x) = W2 σ(W1 x + b1) + b2.

    Submodules: ``w1`` = Linear(d_model, d_ff), ``act`` = σ, ``w2`` = Linear(d_ff, d_model).
    ``d_ff`` defaults to 4 · d_model. With biases it has 2·d·d_ff + d_ff + d parameters
    (8d² + 5d at d_ff = 4d) and its forward costs 4·T·d·d_ff FLOPs in matmuls (16·T·d²).

    ``activation``: "relu" (AIAYN), "gelu" (BERT, exact), "gelu_tanh" (GPT-2), "swish"
    (SiLU), or one's own σ: a module (``nn.Mish()``) or a function (``F.elu``).
    ``fused=True`` runs each Linear and the GELU/Swish as one node each
    (:mod:`tinyffn.ops.linalg`, :mod:`tinyffn.ops.activations`): faster, less memory,
    the same numbers, less to see in the graph. Shapes: x (..., d_model) -> y
    (..., d_model); the same weights act on every position and no position sees another.
    """

    def __init__(self, d_model: int, d_ff: int | None = None, activation: str = "relu",
                 bias: bool = True, *, device: Any = None, dtype: Any = None,
                 fused: bool = False):
        super().__init__()
        _check_size("FFN", "d_model", d_model)
        d_ff = 4 * d_model if d_ff is None else d_ff
        _check_size("FFN", "d_ff", d_ff)
        act = _activation("FFN", activation, FFN_ACTIVATIONS, fused)
        self.d_model, self.d_ff, self.activation = d_model, d_ff, _name_of(activation)
        self.w1 = Linear(d_model, d_ff, bias=bias, dtype=dtype, device=device, fused=fused)
        self.act = act
        self.w2 = Linear(d_ff, d_model, bias=bias, dtype=dtype, device=device, fused=fused)

    def extra_repr(self) -> str:
        return _function_repr(self.act)

    def forward(self, x: Tensor) -> Tensor:
        _check_width("FFN", x, self.d_model)
        h = self.act(self.w1(x))                        # (..., d) -> (..., d_ff)
        return self.w2(h)                               # (..., d_ff) -> (..., d)


def gated_d_ff(d_model: int, multiple_of: int = 1) -> int:
    """LLaMA's hidden width for a gated FFN: ⌊(2/3)·4d⌋, rounded up to a multiple_of.

    The floor comes first, as in LLaMA's ``int(2 * hidden_dim / 3)``. Three matrices of
    d × d_ff cost 3·d·d_ff parameters; d_ff = (2/3)·4d makes that 8d², the plain FFN's
    count. LLaMA-7B: d = 4096, multiple_of = 256 -> 11008.
    """
    _check_size("gated_d_ff", "d_model", d_model)
    _check_size("gated_d_ff", "multiple_of", multiple_of)
    hidden = (2 * 4 * d_model) // 3
    return multiple_of * ((hidden + multiple_of - 1) // multiple_of)


def _gated_width(op: str, d_model: int, d_ff: int | None, multiple_of: int) -> int:
    """The gated FFN's d_ff: the one given, else :func:`gated_d_ff`'s; both given is
    refused, as multiple_of only rounds the default (GatedFFN and accounting.py's counts)."""
    _check_size(op, "multiple_of", multiple_of)
    if d_ff is not None and multiple_of != 1:
        raise ValueError(f"{op}: got both d_ff={d_ff} and multiple_of={multiple_of}; "
                         "multiple_of only rounds the default width, so pass one of them")
    d_ff = gated_d_ff(d_model, multiple_of) if d_ff is None else d_ff
    _check_size(op, "d_ff", d_ff)
    return d_ff


class GatedFFN(Module):
    """The gated FFN of LLaMA and PaLM (Shazeer 2020): y = W2 (σ(W1 x) ⊙ W3 x).

    σ = Swish gives SwiGLU, σ = GELU gives GeGLU; a module or function of one's own
    (``nn.ReLU()``: ReGLU) is used as given. Submodules ``w1``, ``w2``, ``w3`` (named
    and ordered as in LLaMA's code, so state_dict keys match) and ``act``:
    W1, W3 (d_ff, d) expand, W2 (d, d_ff) contracts. ``d_ff`` defaults to
    :func:`gated_d_ff` (d_model, multiple_of), which keeps 3·d·d_ff near the plain FFN's
    8d². Biases are off by default, as in LLaMA. ``fused=True``: one-node Linears and
    activation.

    Shapes: x (..., d_model) -> y (..., d_model), position-wise.
    """

    def __init__(self, d_model: int, d_ff: int | None = None, activation: str = "swish",
                 bias: bool = False, multiple_of: int = 1, *, device: Any = None,
                 dtype: Any = None, fused: bool = False):
        super().__init__()
        _check_size("GatedFFN", "d_model", d_model)
        d_ff = _gated_width("GatedFFN", d_model, d_ff, multiple_of)
        act = _activation("GatedFFN", activation, GATED_ACTIVATIONS, fused)
        self.d_model, self.d_ff, self.activation = d_model, d_ff, _name_of(activation)
        self.w1 = Linear(d_model, d_ff, bias=bias, dtype=dtype, device=device, fused=fused)
        self.w2 = Linear(d_ff, d_model, bias=bias, dtype=dtype, device=device, fused=fused)
        self.w3 = Linear(d_model, d_ff, bias=bias, dtype=dtype, device=device, fused=fused)
        self.act = act

    def extra_repr(self) -> str:
        return _function_repr(self.act)

    def forward(self, x: Tensor) -> Tensor:
        _check_width("GatedFFN", x, self.d_model)
        gate = self.act(self.w1(x))                     # (..., d) -> (..., d_ff)
        up = self.w3(x)                                 # (..., d) -> (..., d_ff)
        return self.w2(gate * up)                       # (..., d_ff) -> (..., d)


# ----------------------------------------------------------------------------- around the FFN
class LayerNorm(Module):
    """:func:`tinyffn.functional.layer_norm` with a learned gain and shift, as PyTorch's.

    ``weight`` starts at ones and ``bias`` at zeros, each of shape ``normalized_shape``
    (none with ``elementwise_affine=False``, no bias with ``bias=False``). Shapes: x
    (..., *normalized_shape) -> the same. The pre-norm sublayer around the FFN::

        y = x + ffn(norm(x))            norm = LayerNorm(d), ffn = FFN(d)
    """

    def __init__(self, normalized_shape: int | tuple, eps: float = 1e-5,
                 elementwise_affine: bool = True, bias: bool = True, *, device: Any = None,
                 dtype: Any = None):
        super().__init__()
        self.normalized_shape = normalized_shape_arg("LayerNorm", normalized_shape)
        check_positive("LayerNorm", "eps", eps, _EPS_WHY)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        self.weight = _filled_parameter(ones, self.normalized_shape, dtype, device) \
            if elementwise_affine else None
        self.bias = _filled_parameter(zeros, self.normalized_shape, dtype, device) \
            if elementwise_affine and bias else None

    def forward(self, x: Tensor) -> Tensor:
        return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class RMSNorm(Module):
    """:func:`tinyffn.functional.rms_norm` with a learned gain (ones at first), as
    PyTorch's and LLaMA's: no centring, no bias. ``eps=None``: the epsilon of the dtype
    it computes in (float32 for float16), as PyTorch."""

    def __init__(self, normalized_shape: int | tuple, eps: float | None = None,
                 elementwise_affine: bool = True, *, device: Any = None, dtype: Any = None):
        super().__init__()
        self.normalized_shape = normalized_shape_arg("RMSNorm", normalized_shape)
        if eps is not None:
            check_positive("RMSNorm", "eps", eps, _EPS_WHY)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        self.weight = _filled_parameter(ones, self.normalized_shape, dtype, device) \
            if elementwise_affine else None

    def forward(self, x: Tensor) -> Tensor:
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


def _filled_parameter(fill: Any, shape: tuple, dtype: Any, device: Any) -> Parameter:
    return Parameter(fill(shape, dtype=dtype or DEFAULTS.float, device=device or "cpu"))


class Dropout(Module):
    """:func:`tinyffn.functional.dropout` while ``training`` (``model.train()``), the
    identity after ``model.eval()``. Shape preserved. ``inplace``: only a false value."""

    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        check_probability("Dropout", p)
        check_inplace("Dropout", inplace)
        self.p, self.inplace = p, False             # inplace: PyTorch's, always False here

    def forward(self, x: Tensor) -> Tensor:
        return F.dropout(x, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"            # as PyTorch prints it


# The embedding table that feeds token ids to a block, with PyTorch's options (max_norm, ...)
from .embedding_lookup import Embedding  # noqa: E402
# Attention, the FFN's partner in a block, in a file of its own (it builds on Linear above)
from .attention_modules import MultiheadAttention  # noqa: E402
# The transformer layers (attention + this FFN), built on the two above
from .transformer_modules import TransformerEncoder, TransformerEncoderLayer  # noqa: E402
from .transformer_decoder import (Transformer, TransformerDecoder,  # noqa: E402
                                  TransformerDecoderLayer)
# A sparse mixture of these FFNs, with a router (Switch, Mixtral), built on FFN and GatedFFN
from .moe import MoEFFN, load_balancing_loss, router_z_loss  # noqa: E402
# The layers around the FFN that other models use (convolutions, pools, image layers, more
# norms, ...) are gathered in nn_layers.py; each of its __all__ becomes a name here too
from . import nn_layers as _layers  # noqa: E402
globals().update({name: getattr(_layers, name) for name in _layers.__all__})
__all__ += _layers.__all__
