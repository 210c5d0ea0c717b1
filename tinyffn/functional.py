"""Composed ops: linear, the activations, softmax, the variance (``x.var``) and dropout,
built from primitives; the rest of ``torch.nn.functional`` (the norms, the losses, more
activations, attention) from files of its own, reached from here, as ``F.layer_norm``.

Nothing here has a hand-written backward. Each function is a few lines of Tensor
arithmetic, so its gradient follows from the primitives' (:mod:`tinyffn.ops`), the graph
shows how it decomposes (GELU is a small subgraph of mul, div, add and erf nodes), and
gradcheck tests it end to end.

Each composed function runs its body inside ``grad_mode.scope("function", name)``: every
op it records carries that tag, so the graph drawer can fold the subgraph into one box
labelled ``gelu``, ``linear``, ... Functions that are a single primitive already
(``relu``, ``sigmoid``, ``tanh``, ``erf``) are one node and need no tag.

Shapes follow the seed chapter: ``T`` positions, model width ``d``, hidden width ``d_ff``;
``...`` stands for any number of leading axes.
"""
from __future__ import annotations

import numbers
import warnings
from typing import Any

from . import grad_mode
from .ops.activations import GELU as FusedGELU
from .ops.activations import GELU_TANH_COEFF, SQRT_2, SQRT_2_OVER_PI
from .ops.activations import Swish as FusedSwish
from .ops.linalg import Linear as FusedLinear
from .amp_casts import outside_autocast
from .backend import dtype_name
from .random_sampling import _kept_mask
from .arguments import check_axis, check_inplace, check_probability, either_name, type_name
from .tensor import Tensor

GELU_APPROXIMATIONS = ("none", "tanh")


# ----------------------------------------------------------------------------- linear
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None, *,
           fused: bool = False) -> Tensor:
    """y = x W^T + b: the affine map of ``nn.Linear``, applied to every row of x = ``input``.

    The weight is stored (out, in), as in the seed (W1 is d_ff x d) and in PyTorch, so one
    position computes y_t = W x_t + b.

    Derivatives (gy = dL/dy):  dL/dx = gy W,  dL/dW = gy^T x (summed over leading axes),
    dL/db = gy summed over leading axes; the matmul, transpose, add and broadcast
    primitives produce exactly these.

    Shapes: x (..., in), weight (out, in), bias (out,) -> y (..., out).
    ``fused=True`` (tinyffn's, by keyword): the same map as one node with its backward
    written out (:class:`tinyffn.ops.linalg.Linear`), for speed and memory.
    """
    x = input                   # PyTorch's name for the argument, x in the math
    _check_tensor("linear", "input", x)
    _check_tensor("linear", "weight", weight)
    if weight.ndim != 2:
        raise ValueError(f"linear: weight must be a matrix (out_features, in_features), got "
                         f"shape {weight.shape}")
    out_features, in_features = weight.shape
    if x.ndim == 0 or x.shape[-1] != in_features:
        raise ValueError(
            f"linear: input of shape {x.shape} does not fit weight of shape {weight.shape}: "
            f"the last axis of the input must be in_features={in_features}; pass an input "
            f"of shape (..., {in_features}), or a weight whose second axis matches the input")
    if bias is not None:
        _check_tensor("linear", "bias", bias)
        if bias.shape != (out_features,):
            raise ValueError(f"linear: bias must have shape (out_features,) = ({out_features},) "
                             f"to match weight of shape {weight.shape}, got {bias.shape}")
    _check_floating_input(x, weight)
    if fused:       # one node, same numbers (tinyffn.ops.linalg.Linear)
        args = (x, weight) if bias is None else (x, weight, bias)
        return FusedLinear.apply(*args)
    with grad_mode.scope("function", "linear"):
        y = x @ weight.T                                   # (..., in) @ (in, out) -> (..., out)
        if bias is not None:
            y = y + bias                                   # (out,) broadcast over leading axes
        return y


# ----------------------------------------------------------------------------- activations
def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """ReLU(x) = max(x, 0).    d/dx = 1 for x > 0, else 0.    Shape preserved (a primitive).

    ``inplace`` is PyTorch's argument; only a false value is accepted
    (:func:`tinyffn.arguments.check_inplace`).
    """
    _check_tensor("relu", "input", input)
    check_inplace("relu", inplace)
    return input.relu()


def sigmoid(input: Tensor) -> Tensor:
    """sigmoid(x) = 1 / (1 + exp(-x)).    d/dx = sigmoid(x) (1 - sigmoid(x)).

    Shape preserved (a primitive).
    """
    _check_tensor("sigmoid", "input", input)
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:
    """tanh(x).    d/dx = 1 - tanh(x)^2.    Shape preserved (a primitive)."""
    _check_tensor("tanh", "input", input)
    return input.tanh()


def erf(x: Tensor) -> Tensor:
    """erf(x) = 2/sqrt(pi) ∫_0^x exp(-t^2) dt.    d/dx = 2/sqrt(pi) exp(-x^2).

    Shape preserved (a primitive).
    """
    _check_tensor("erf", "x", x)
    return x.erf()


def gelu(input: Tensor, approximate: str = "none", *, fused: bool = False) -> Tensor:
    """GELU(x) = x Φ(x), x = ``input``, Φ the standard normal CDF (Hendrycks & Gimpel 2016).

    ``approximate="none"`` (exact, BERT): Φ(x) = (1 + erf(x / sqrt(2))) / 2, so

        GELU(x)  = x (1 + erf(x / sqrt 2)) / 2
        GELU'(x) = Φ(x) + x φ(x),    φ(x) = exp(-x^2 / 2) / sqrt(2 pi).

    ``approximate="tanh"`` (GPT-2): Φ(x) ≈ (1 + tanh(u)) / 2 with
    u = sqrt(2/pi) (x + 0.044715 x^3), so

        GELU(x)  ≈ x (1 + tanh(u)) / 2
        GELU'(x) ≈ (1 + tanh(u)) / 2 + x (1 - tanh(u)^2) sqrt(2/pi) (1 + 3·0.044715 x^2) / 2.

    The two forms differ by less than 1e-3 everywhere. Shape preserved. float16 is
    computed in float32 and rounded once, as PyTorch: in float16, 1 + erf cancels (GELU(-3)
    was 8% off, GELU(-5.5) 0). So are swish and silu.

    ``fused=True`` (tinyffn's, by keyword) computes the same function as one node with this
    closed-form derivative (:class:`tinyffn.ops.activations.GELU`): faster, but the graph
    no longer shows how GELU decomposes.
    """
    x = input                   # PyTorch's name for the argument, x in the math
    _check_floating("gelu", "input", x)
    _check_approximate("gelu", approximate)
    if fused:
        return FusedGELU.apply(x, approximate=approximate)
    with grad_mode.scope("function", "gelu"):
        x16, x = x, _widened(x)         # float16 in float32, rounded once, as PyTorch
        if approximate == "none":
            cdf = 0.5 * (1 + (x / SQRT_2).erf())           # Φ(x), the normal CDF
        else:
            u = SQRT_2_OVER_PI * (x + GELU_TANH_COEFF * x ** 3)
            cdf = 0.5 * (1 + u.tanh())                     # ≈ Φ(x)
        return _narrowed(x * cdf, x16)


def _check_approximate(owner: str, approximate: Any) -> None:
    """GELU's ``approximate`` must be "none" or "tanh" (checked by gelu and nn.GELU)."""
    if approximate not in GELU_APPROXIMATIONS:
        raise ValueError(f"{owner}: unknown approximate={approximate!r}; use 'none' (exact, "
                         "through erf) or 'tanh' (GPT-2's approximation)")


def swish(x: Tensor, beta: float | Tensor = 1.0, fused: bool = False) -> Tensor:
    """Swish(x) = x sigmoid(beta x) (Ramachandran et al. 2017); beta = 1 is SiLU.

        Swish'(x) = s + beta x s (1 - s),    s = sigmoid(beta x).

    ``beta`` is a number, or a Tensor to learn it (it then receives a gradient,
    dSwish/dbeta = x^2 s (1 - s)). Shape preserved. ``fused=True``: one node with this
    closed-form derivative (:class:`tinyffn.ops.activations.Swish`), for speed.
    """
    _check_floating("swish", "x", x)
    if fused:
        if isinstance(beta, Tensor):
            raise TypeError("swish: fused=True takes a constant beta; a learned (Tensor) beta "
                            "needs the composed form, fused=False")
        return FusedSwish.apply(x, beta=float(beta))
    with grad_mode.scope("function", "swish"):
        if isinstance(beta, Tensor):                   # its dtype takes part
            return x * (beta * x).sigmoid()
        x16, x = x, _widened(x)                        # as gelu's
        if isinstance(beta, numbers.Real) and beta == 1:
            return _narrowed(x * x.sigmoid(), x16)     # SiLU: no multiplication by 1
        return _narrowed(x * (beta * x).sigmoid(), x16)


def silu(input: Tensor, inplace: bool = False, *, fused: bool = False) -> Tensor:
    """SiLU(x) = x sigmoid(x), x = ``input``, Swish with beta = 1 (the "Swi" of SwiGLU).

        SiLU'(x) = s (1 + x (1 - s)),    s = sigmoid(x).    Shape preserved.

    ``inplace`` is PyTorch's second argument, only a false value, as :func:`relu`'s;
    ``fused`` (tinyffn's, by keyword, as ``nn.SiLU``'s): one node (``ops.Swish``, β = 1).
    """
    x = input                   # PyTorch's name for the argument, x in the math
    _check_floating("silu", "input", x)
    check_inplace("silu", inplace)
    if fused:
        return FusedSwish.apply(x, beta=1.0)
    with grad_mode.scope("function", "silu"):
        x16, x = x, _widened(x)                        # as gelu's
        return _narrowed(x * x.sigmoid(), x16)


# ----------------------------------------------------------------------------- softmax
def softmax(input: Tensor, axis: int | None = None, *, dim: int | None = None,
            dtype: Any = None) -> Tensor:
    """softmax(x)_i = exp(x_i) / sum_j exp(x_j) along ``axis``, x = ``input``.

    Stable for large logits: softmax(x - c) = softmax(x) for any constant c, so we
    subtract c = max_j x_j and every exp is at most 1. Because the result does not depend
    on c, c needs no gradient: it is taken detached, a constant for the graph.

    Jacobian: dy_i/dx_j = y_i (δ_ij - y_j), so gx = y (gy - sum_j gy_j y_j).
    Shape preserved; entries along ``axis`` (the last if not given: see
    :func:`_implicit_axis`) are positive and sum to 1. ``dim`` is PyTorch's name for
    ``axis``; ``dtype``: x is cast to it first (a recorded ``cast``),
    as PyTorch's ``F.softmax(x, -1, dtype=torch.float32)`` of float16 logits, and wins
    over autocast's float32 (amp_casts.py), as in PyTorch. A float16
    x is computed in float32 and the result rounded once, as PyTorch computes it (in
    float16 the exps and their sum lose digits: up to 5 ulp off).
    """
    x = _cast_to_float("softmax", input, dtype)     # x: ``input`` (PyTorch's name) in the math
    axis = check_axis("softmax", x, _implicit_axis("softmax", x, either_name(
        "softmax", "axis", axis, None, "dim", dim)))
    with grad_mode.scope("function", "softmax"), outside_autocast(dtype is not None):
        z = _shifted(_widened(x), axis)                     # max(z) = 0
        e = z.exp()
        return _narrowed(e / e.sum(axis=axis, keepdims=True), x)


def _cast_to_float(op: str, x: Tensor, dtype: Any) -> Tensor:
    """x cast to ``dtype``, a float dtype (an integer one would truncate the logits first;
    PyTorch refuses it), or x when None, if it is a float Tensor (integers refused, as in
    PyTorch: pass a float dtype to cast them)."""
    if dtype is None:
        _check_floating(op, "input", x)
        return x
    _check_tensor(op, "input", x)
    if not x.backend.is_floating(dtype):
        raise TypeError(f"{op}: dtype must be a float dtype, got {dtype_name(dtype)}: the "
                        "input is cast to it first, and an integer dtype would truncate it "
                        "(PyTorch refuses it too)")
    return x.to(dtype=dtype)


def log_softmax(input: Tensor, axis: int | None = None, *, dim: int | None = None,
                dtype: Any = None) -> Tensor:
    """log softmax(x)_i = x_i - log sum_j exp(x_j) along ``axis`` (x = ``input``), stably.

    With c = max_j x_j (detached, as in :func:`softmax`): x_i - c - log sum_j exp(x_j - c).
    Unlike log(softmax(x)), this never takes the log of an underflowed 0.

    Jacobian: dy_i/dx_j = δ_ij - softmax(x)_j, so gx = gy - softmax(x) sum_j gy_j.
    Shape preserved. ``dim`` is PyTorch's name for ``axis``; ``dtype`` and float16 as
    :func:`softmax`'s.
    """
    x = _cast_to_float("log_softmax", input, dtype)     # x: ``input`` (PyTorch's name) in the math
    axis = check_axis("log_softmax", x, _implicit_axis("log_softmax", x, either_name(
        "log_softmax", "axis", axis, None, "dim", dim)))
    with grad_mode.scope("function", "log_softmax"), outside_autocast(dtype is not None):
        z = _shifted(_widened(x), axis)                     # max(z) = 0
        if x.ndim > 0 and x.shape[axis] == 0:
            return _narrowed(z, x)      # an empty axis: no sum to take the log of
        return _narrowed(z - z.exp().sum(axis=axis, keepdims=True).log(), x)


def _implicit_axis(op: str, x: Tensor, axis: Any) -> Any:
    """``axis``, or the last axis where none is given. PyTorch's implicit choice there
    (deprecated, with a warning) is dim 0 for a 3-d input and dim 1 for 4-d and more, so a
    program ported from PyTorch that leaves dim out would normalize another axis here,
    in silence: that case is warned, naming both."""
    if axis is None and x.ndim >= 3:
        warnings.warn(f"{op}: no dim given for a {x.ndim}-d input; tinyffn takes the last "
                      f"axis, where PyTorch's implicit (deprecated) choice is dim "
                      f"{0 if x.ndim == 3 else 1}; pass dim=-1 (or the axis you mean) to "
                      "say which", UserWarning, stacklevel=3)
    return -1 if axis is None else axis


def _shifted(x: Tensor, axis: int) -> Tensor:
    """x minus its maximum along ``axis``, taken detached (see :func:`softmax`). An empty
    axis has no maximum and nothing to normalise: x as it is, as PyTorch's softmax of a
    (3, 0) tensor is (3, 0): a copy of x (``clone``), so the result is a new tensor."""
    empty = x.ndim > 0 and x.shape[axis] == 0       # (a 0-d x has its one element)
    return x.clone() if empty else x - x.amax(axis=axis, keepdims=True).detach()


def _widened(x: Tensor) -> Tensor:
    """float16 statistics lose digits, and x² overflows past 256: the norms compute in
    float32 (cast nodes in the graph) and return float16, as PyTorch does."""
    return x.to(dtype="float32") if dtype_name(x.dtype) == "float16" else x


def _narrowed(y: Tensor, input: Tensor) -> Tensor:
    """y back in float16 for a float16 input; not inside autocast's float32 functions."""
    if dtype_name(input.dtype) != "float16":
        return y
    if grad_mode.STATE.autocast is not None:
        from .amp import in_float32_function        # amp.py imports this module's users
        if in_float32_function(input.device.type):
            return y
    return y.to(dtype=input.dtype)


# ----------------------------------------------------------------------------- dropout
def dropout(input: Tensor, p: float = 0.5, training: bool = True,
            inplace: bool = False) -> Tensor:
    """Dropout (Srivastava et al. 2014): in training, each element is zeroed with
    probability ``p`` and the survivors are scaled by 1/(1 - p), so E[y] = x::

        y = x · m,    m_i = 1/(1 - p) with probability 1 - p, else 0;    dL/dx = gy · m

    The mask m enters the graph as a constant (one mul node). It is drawn from the
    generator :func:`tinyffn.manual_seed` seeds, on the CPU, then moved to the input's
    device as bools, so a seed gives the same mask on every backend. ``training=False``
    (evaluation) or ``p = 0`` returns ``input`` itself; ``p = 1`` gives zeros.
    ``inplace``: only a false value (:func:`tinyffn.arguments.check_inplace`).
    GPT-2 drops the FFN's output before the residual add: x + dropout(FFN(ln(x))).
    """
    if _dropout_is_identity("dropout", input, p, training, inplace, "dropout scales by 1/(1 - p)"):
        return input
    with grad_mode.scope("function", "dropout"):
        if p == 1:
            return input * 0.0                  # every element dropped (no 1/0 scale)
        kept = _kept_mask(input.shape, p, input.device)    # bool: u >= p, u ~ U[0, 1)
        mask = kept.to(input.dtype) * (1 / (1 - p))       # 0 or 1/(1 - p), a constant
        mask.name = "dropout mask"                                    # (in graph drawings)
        return input * mask


# ----------------------------------------------------------------------------- helpers
def _dropout_is_identity(op: str, input: Any, p: Any, training: Any, inplace: Any,
                         why: str) -> bool:
    """The checks every dropout makes; True where it changes nothing (eval, or p = 0).
    ``why`` says why a float input is needed (``"dropout scales by 1/(1 - p)"``)."""
    _check_tensor(op, "input", input)
    check_probability(op, p)
    check_inplace(op, inplace)
    if training not in (True, False):       # a string such as "eval" would count as True
        raise TypeError(f"{op}: training must be True or False, got {training!r}")
    if not training or p == 0:
        return True
    if not input.backend.is_floating(input.dtype):
        raise TypeError(f"{op}: input has dtype {dtype_name(input.dtype)}; {why}, so it needs "
                        "floating point: cast with x.to(dtype='float32')")
    return False


def _check_tensor(op: str, name: str, value: Any) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}: {name} must be a tinyffn Tensor, got {type_name(value)}; "
                        "convert arrays (and torch tensors) with tinyffn.tensor(...)")


def _check_floating(op: str, name: str, x: Any) -> None:
    """``x`` must be a float Tensor: the activations and softmax compute in floating point,
    and PyTorch refuses integers there (it takes ``sigmoid``/``tanh`` of them, as here)."""
    _check_tensor(op, name, x)
    if not x.backend.is_floating(x.dtype):
        raise TypeError(f"{op}: {name} has dtype {dtype_name(x.dtype)}; {op} computes in "
                        "floating point (PyTorch refuses integers too): cast with x.float()")


def _check_floating_input(x: Tensor, weight: Tensor) -> None:
    """An integer input to a layer is refused (PyTorch refuses it too): NumPy would run
    int64 @ float32 in float64, and integers here are usually token ids, which need an
    embedding first. Mixed float dtypes are allowed (each gradient comes back in its
    input's dtype; see op_checks.checked_grads)."""
    if not x.backend.is_floating(x.dtype):
        raise TypeError(f"linear: input has dtype {dtype_name(x.dtype)}, but a layer computes "
                        f"in floating point (weight: {dtype_name(weight.dtype)}); cast the input "
                        f"with x.to(dtype={dtype_name(weight.dtype)!r}), or, for token ids, "
                        "look up embeddings first")


# The rest of torch.nn.functional lives in files of its own (losses.py builds on
# log_softmax above), reached from here, F.cross_entropy; imported last, as they import this
from . import losses as _losses  # noqa: E402

mse_loss, cross_entropy, nll_loss = _losses.mse_loss, _losses.cross_entropy, _losses.nll_loss
l1_loss = _losses.l1_loss
REDUCTIONS = _losses.REDUCTIONS
from . import normalization as _norms  # noqa: E402

layer_norm, rms_norm, variance = _norms.layer_norm, _norms.rms_norm, _norms.variance
from . import binary_losses as _binary  # noqa: E402

binary_cross_entropy = _binary.binary_cross_entropy
binary_cross_entropy_with_logits = _binary.binary_cross_entropy_with_logits
smooth_l1_loss, huber_loss, kl_div = _binary.smooth_l1_loss, _binary.huber_loss, _binary.kl_div
from . import more_losses as _more  # noqa: E402

gaussian_nll_loss, poisson_nll_loss = _more.gaussian_nll_loss, _more.poisson_nll_loss
margin_ranking_loss, hinge_embedding_loss = _more.margin_ranking_loss, _more.hinge_embedding_loss
cosine_embedding_loss = _more.cosine_embedding_loss
from . import functional_extra as _extra  # noqa: E402

leaky_relu, glu, normalize, one_hot = _extra.leaky_relu, _extra.glu, _extra.normalize, _extra.one_hot
softplus, pad = _extra.softplus, _extra.pad
from . import embedding_lookup as _embedding  # noqa: E402

embedding = _embedding.embedding                # with PyTorch's max_norm, scale_grad_by_freq
from . import activations_extra as _acts  # noqa: E402

elu, selu, celu, mish, hardswish, hardsigmoid = (_acts.elu, _acts.selu, _acts.celu, _acts.mish,
                                                 _acts.hardswish, _acts.hardsigmoid)
logsigmoid, hardtanh, relu6, softsign, tanhshrink = (_acts.logsigmoid, _acts.hardtanh,
                                                     _acts.relu6, _acts.softsign, _acts.tanhshrink)
softmin, threshold, prelu = _acts.softmin, _acts.threshold, _acts.prelu
softshrink, hardshrink, rrelu = _acts.softshrink, _acts.hardshrink, _acts.rrelu
from . import distances as _distances  # noqa: E402

cosine_similarity, pairwise_distance = _distances.cosine_similarity, _distances.pairwise_distance
pdist = _distances.pdist
from . import attention as _attention  # noqa: E402

scaled_dot_product_attention = _attention.scaled_dot_product_attention
from . import batchnorm as _batchnorm  # noqa: E402

batch_norm = _batchnorm.batch_norm
from . import more_norms as _more_norms  # noqa: E402

group_norm, instance_norm = _more_norms.group_norm, _more_norms.instance_norm
local_response_norm = _more_norms.local_response_norm
from . import bilinear as _bilinear  # noqa: E402

bilinear = _bilinear.bilinear
from . import margin_losses as _margin  # noqa: E402

soft_margin_loss = _margin.soft_margin_loss
multilabel_soft_margin_loss = _margin.multilabel_soft_margin_loss
multi_margin_loss, multilabel_margin_loss = _margin.multi_margin_loss, _margin.multilabel_margin_loss
triplet_margin_loss = _margin.triplet_margin_loss
triplet_margin_with_distance_loss = _margin.triplet_margin_with_distance_loss
from . import functional_inplace as _inplace  # noqa: E402

relu_, elu_, leaky_relu_, selu_, celu_ = (_inplace.relu_, _inplace.elu_, _inplace.leaky_relu_,
                                          _inplace.selu_, _inplace.celu_)
hardtanh_, threshold_, rrelu_ = _inplace.hardtanh_, _inplace.threshold_, _inplace.rrelu_
from . import stochastic as _stochastic  # noqa: E402

gumbel_softmax, alpha_dropout = _stochastic.gumbel_softmax, _stochastic.alpha_dropout
feature_alpha_dropout = _stochastic.feature_alpha_dropout
# The CNN layers' functions (conv2d, max_pool2d, interpolate, ...) are gathered in
# functional_layers.py; each of its __all__ becomes a name here too
from . import functional_layers as _gathered  # noqa: E402
globals().update({name: getattr(_gathered, name) for name in _gathered.__all__})
