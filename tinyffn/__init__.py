"""tinyffn: a from-scratch autograd engine for learning how a transformer's FFN computes and learns.

Start reading at :mod:`tinyffn.tensor` (the Tensor), then :mod:`tinyffn.autograd`
(Function and the backward walk; its switches, such as no_grad, are in
:mod:`tinyffn.grad_mode`), then :mod:`tinyffn.ops` (the primitives).
"""
import sys as _sys

import numpy as _np

# creation and tensor first: tensor imports autograd and the ops, which refer back to it
# at call time.
from .creation import (arange, as_tensor, cat, empty, eye, from_numpy, full, full_like,
                       linspace, ones, ones_like, rand, rand_like, randint, randn, randn_like,
                       stack, tensor, zeros, zeros_like)
from .generators import (Generator, default_generator, get_rng_state, initial_seed,
                         manual_seed, seed, set_rng_state)
from .tensor import Tensor
from .contraction import einsum
# PyTorch's module-level functions: tinyffn.tanh(x), tinyffn.sum(x, dim=1), ...
from . import torch_functions as _tf
from .torch_functions import (allclose, amax, amin, argmax, argmin, clamp, clip, equal, erf,
                              exp, flatten, isclose, isfinite, isinf, isnan, log, log_softmax,
                              logical_and, logical_not, logical_or, logical_xor, masked_fill,
                              matmul, maximum, mean, minimum, neg, nonzero, norm, permute,
                              reciprocal, relu, reshape, rsqrt, sigmoid, softmax, sqrt, square,
                              squeeze, std, tanh, transpose, tril, triu, unsqueeze, var, where)
# Seven share a name with a Python builtin (and round, below): reachable as tinyffn.sum,
# but kept out of __all__ below (as bool is), so that `import *` leaves the builtins
# alone. From here on, this file cannot call those builtins.
abs, all, any, max, min, pow, sum = _tf.abs, _tf.all, _tf.any, _tf.max, _tf.min, _tf.pow, _tf.sum
from .sorting import argsort, gather, sort, take_along_dim, topk
from .sampling import multinomial, randperm
from .random_sampling import bernoulli, normal, poisson, randint_like
from .torch_extras import (argwhere, chunk, diag, diag_embed, diagonal, empty_like, is_tensor,
                           lerp, repeat_interleave, split, tile, tril_indices, triu_indices)
from . import torch_names as _names
from .torch_names import (ceil, cumprod, diff, dot, floor, movedim, moveaxis, narrow, roll,
                          tensordot, trunc, unflatten)
round = _names.round                    # a builtin's name: kept out of __all__, as sum is
from .torch_math import (arctan, arctan2, atan, atan2, clamp_max, clamp_min, cosh, exp2, expm1,
                         hypot, log2, log10, logaddexp, logaddexp2, sinh, xlogy)
from .torch_accumulate import (addbmm, addcdiv, addcmul, addmm, baddbmm, cummax, cummin,
                               logcumsumexp, nanmean, nansum, std_mean, var_mean)
from .torch_select import (bucketize, clone, fliplr, flipud, masked_select, meshgrid, rot90,
                           searchsorted)
from .torch_shapes import (atleast_1d, atleast_2d, atleast_3d, broadcast_shapes,
                           broadcast_tensors, broadcast_to, column_stack, concat, concatenate,
                           diagflat, dsplit, dstack, fix, hsplit, hstack, msort, numel,
                           positive, ravel, row_stack, select, sgn, swapaxes, swapdims, take,
                           tensor_split, true_divide, vsplit, vstack)
from .torch_products import addmv, addr, cross, dist, inner, mv, vdot
from .torch_operators import (absolute, acos, acosh, add, arccos, arccosh, arcsin, arcsinh,
                              arctanh, asin, asinh, atanh, div, divide, eq, fmax, fmin, ge,
                              greater, greater_equal, gt, le, less, less_equal, lt, mul,
                              multiply, ne, not_equal, sub, subtract, tan)
from .torch_stats import (aminmax, corrcoef, cov, isneginf, isposinf, logit, nanquantile,
                          quantile, signbit)
from .torch_pointwise import (copysign, deg2rad, float_power, frac, heaviside, isin, rad2deg,
                              sinc)
from .torch_integers import (bitwise_and, bitwise_left_shift, bitwise_not, bitwise_or,
                             bitwise_right_shift, bitwise_xor, can_cast, frexp, gcd, lcm, ldexp,
                             nextafter, promote_types, result_type)
from .torch_calculus import cumulative_trapezoid, gradient, trapezoid, trapz
from .torch_series import combinations, histogram, logspace, vander
from .torch_special import digamma, erfc, erfinv, i0, lgamma, mvlgamma, polygamma
from . import special                   # tinyffn.special.log_ndtr, as torch.special's
from .scatter import index_add, scatter, scatter_add
from .scatter_reductions import index_reduce, scatter_reduce
from .index_writes import (diagonal_scatter, index_copy, index_fill, index_put, masked_scatter,
                           put, select_scatter, slice_scatter)
from .numerics import (count_nonzero, finfo, histc, iinfo, is_complex, is_nonzero, kthvalue,
                       median, mode, nan_to_num, nanmedian, unique_consecutive)
from .more_functions import (bincount, bmm, cos, cumsum, flip, floor_divide, fmod,
                             index_select, is_floating_point, log1p, logsumexp, mm, outer, prod,
                             remainder, sign, sin, unbind, unique)
from . import ops
from .autograd import Context, Function, grad
# autograd is a module, not a package: name functional under it too, so that
# `from tinyffn.autograd.functional import jacobian` works as with torch (see optim.py)
from . import autograd_functional as _autograd_functional
_sys.modules[__name__ + ".autograd.functional"] = _autograd_functional
from .grad_mode import (AnomalyError, detect_anomaly, enable_grad, is_grad_enabled,
                        inference_mode, keep_intermediates, no_grad, set_grad_enabled)
from .backend import DeviceError, cuda_available, device
from . import cuda                  # tinyffn.cuda.is_available(), as torch.cuda's
from .flops import FlopCounter
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
# the FFN family, built on the engine above: composed ops, modules, optimizers, counts
from . import functional, nn, optim, accounting
# PyTorch's module-level layer functions, torch.conv2d(x, w), torch.layer_norm(x, (d,)), ...:
# functional's where the arguments agree, torch_layers.py's wrappers where they differ
from .functional import (avg_pool1d, bilinear, channel_shuffle, conv1d, conv2d,
                         conv_transpose1d, conv_transpose2d, pixel_shuffle, pixel_unshuffle)
from .torch_layers import (batch_norm, group_norm, instance_norm, layer_norm, max_pool1d,
                           max_pool2d)
from .torch_toplevel import (adaptive_avg_pool1d, adaptive_max_pool1d, alpha_dropout,
                             bartlett_window, blackman_window, celu, chain_matmul, conv3d,
                             conv_transpose3d, detach, dropout, embedding, feature_alpha_dropout,
                             ger, hamming_window, hann_window, hardshrink, is_same_size,
                             kaiser_window, max_pool1d_with_indices, max_pool3d, negative, pdist,
                             prelu, rms_norm, rrelu, rsub, scalar_tensor, selu, t, threshold,
                             unravel_index)
from . import linalg                # tinyffn.linalg.vector_norm, as torch.linalg's norms
from . import distributions         # distributions.Normal, kl_divergence, as torch's
from .torch_linalg import (block_diag, cartesian_prod, det, inverse, kron, matrix_power,
                           logdet, pinverse, qr, slogdet, svd, trace,   # torch.det, ..., torch.kron
                           cholesky, cholesky_inverse, cholesky_solve, matrix_exp, renorm)
from .distances import cdist, cosine_similarity, pairwise_distance
from .serialization import load, save   # checkpoints, as torch.save and torch.load
from .default_dtype import get_default_dtype, set_default_dtype   # float64 from here on
from .default_dtype import get_float32_matmul_precision, set_float32_matmul_precision
from . import utils                    # utils.data: DataLoader, TensorDataset, as torch's
from . import func                     # func.functional_call, as torch.func's
from . import amp                      # mixed precision: amp.GradScaler, as torch.amp's
from .amp import autocast, get_autocast_dtype, is_autocast_enabled
# seeing the engine work: graph drawings and a step-by-step backward
from .graphviz import draw_graph, to_dot
from .stepper import BackwardStep, backward_steps, iter_backward

# PyTorch's dtype names (torch.float32, ...) for NumPy's dtypes, which every dtype= takes, as
# do names ("float32"): tensor(..., dtype=tinyffn.float64), x.to(tinyffn.float16).
float16, float32, float64 = _np.dtype("float16"), _np.dtype("float32"), _np.dtype("float64")
int8, int16, int32, int64 = (_np.dtype(f"int{bits}") for bits in (8, 16, 32, 64))
uint8, bool = _np.dtype("uint8"), _np.dtype("bool")   # torch.bool; kept out of __all__, so
#                                                       that `import *` leaves Python's bool
# PyTorch's short names, torch.long (int64), torch.float (float32), ...: kept out of __all__
# too, as float and int are builtins. From here on, this file cannot call float or int.
long, float, double, half, int, short = int64, float32, float64, float16, int32, int16

__version__ = "0.1.0"

__all__ = [
    "Tensor", "tensor", "zeros", "ones", "zeros_like", "ones_like", "randn", "rand", "arange",
    "manual_seed", "get_rng_state", "set_rng_state", "Generator", "default_generator", "seed",
    "initial_seed", "cat", "stack", "where", "einsum",
    "full", "full_like", "eye", "linspace", "randint", "randn_like", "rand_like", "from_numpy",
    # PyTorch's functions (torch_functions.py), less the seven named as builtins
    "exp", "log", "tanh", "sigmoid", "relu", "erf", "sqrt", "neg", "square", "reciprocal",
    "rsqrt", "maximum", "minimum",
    "clamp", "clip", "matmul", "softmax", "log_softmax",
    "mean", "amax", "amin", "argmax", "argmin", "var", "std",
    "reshape", "transpose", "permute", "flatten", "squeeze", "unsqueeze", "masked_fill",
    "tril", "triu", "norm", "nonzero", "isnan", "isinf", "isfinite", "isclose", "allclose", "equal",
    "logical_not", "logical_and", "logical_or", "logical_xor",
    "sort", "argsort", "topk", "gather", "take_along_dim",     # sorting.py
    "randperm", "multinomial", "empty", "as_tensor",          # sampling.py, creation.py
    "normal", "bernoulli", "poisson", "randint_like",         # random_sampling.py
    "logsumexp", "sin", "cos", "sign", "prod", "cumsum", "flip", "unbind",  # more_functions.py
    "log1p", "floor_divide", "remainder", "fmod",
    "index_select", "mm", "bmm", "outer", "is_floating_point", "unique", "bincount",
    "lerp", "diag", "diag_embed", "is_tensor", "diagonal", "tile", "repeat_interleave",  # torch_extras.py
    "chunk", "split", "empty_like", "triu_indices", "tril_indices", "argwhere",
    "roll", "movedim", "moveaxis", "narrow", "unflatten", "diff", "cumprod", "dot",  # torch_names.py
    "tensordot", "floor", "ceil", "trunc",
    "expm1", "log2", "log10", "exp2", "sinh", "cosh", "atan", "arctan", "atan2",  # torch_math.py
    "arctan2", "logaddexp", "logaddexp2", "hypot", "xlogy", "clamp_min", "clamp_max",
    "addmm", "baddbmm", "addbmm", "addcmul", "addcdiv", "var_mean", "std_mean",  # torch_accumulate.py
    "nansum", "nanmean", "logcumsumexp", "cummax", "cummin",
    "clone", "masked_select", "meshgrid", "fliplr", "flipud", "rot90", "searchsorted",  # torch_select.py
    "bucketize",
    "broadcast_shapes", "broadcast_to", "broadcast_tensors", "swapaxes",  # torch_shapes.py
    "swapdims",
    "atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "row_stack", "dstack",
    "column_stack", "concat", "concatenate", "tensor_split", "hsplit", "vsplit", "dsplit",
    "true_divide", "positive", "sgn", "fix", "msort", "numel", "ravel", "select", "take",
    "diagflat",
    "mv", "addmv", "addr", "inner", "vdot", "cross", "dist",  # torch_products.py
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "eq", "ne",  # torch_operators.py
    "not_equal", "lt", "less", "le", "less_equal", "gt", "greater", "ge", "greater_equal",
    "absolute", "fmax", "fmin", "tan", "asin", "acos", "atanh", "asinh", "acosh", "arcsin",
    "arccos", "arctanh", "arcsinh", "arccosh",
    "quantile", "nanquantile", "aminmax", "isposinf", "isneginf", "signbit", "logit",  # torch_stats.py
    "cov", "corrcoef",
    "finfo", "iinfo", "nan_to_num", "count_nonzero", "histc", "median", "kthvalue",  # numerics.py
    "is_complex", "is_nonzero", "nanmedian", "mode", "unique_consecutive",
    "cdist", "cosine_similarity", "pairwise_distance", "linalg",  # distances.py, linalg.py
    "distributions",
    "index_add", "scatter_add", "scatter",                      # scatter.py
    "scatter_reduce", "index_reduce",                        # scatter_reductions.py
    "index_fill", "index_copy",                              # index_writes.py
    "index_put", "put", "masked_scatter", "select_scatter", "slice_scatter", "diagonal_scatter",
    "det", "slogdet", "logdet", "inverse", "svd", "qr", "trace", "kron", "block_diag",  # torch_linalg.py
    "cartesian_prod", "matrix_power", "pinverse", "cholesky", "cholesky_solve",
    "cholesky_inverse", "matrix_exp", "renorm",
    "frac", "sinc", "deg2rad", "rad2deg", "copysign", "float_power", "heaviside",  # torch_pointwise.py
    "isin",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_left_shift",  # torch_integers.py
    "bitwise_right_shift", "gcd", "lcm", "frexp", "ldexp", "nextafter", "result_type",
    "promote_types", "can_cast",
    "trapezoid", "trapz", "cumulative_trapezoid", "gradient",    # torch_calculus.py
    "logspace", "vander", "combinations", "histogram",           # torch_series.py
    "lgamma", "digamma", "polygamma", "erfc", "erfinv", "i0", "mvlgamma", "special",  # torch_special.py
    "Function", "Context", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
    "inference_mode", "detect_anomaly",
    "AnomalyError", "keep_intermediates", "grad", "iter_backward", "BackwardStep",
    "gradcheck", "gradgradcheck", "GradcheckError", "FlopCounter", "cuda_available", "cuda", "device",
    "DeviceError", "ops",
    "functional", "nn", "optim", "accounting", "utils", "func", "save", "load",
    "amp", "autocast", "is_autocast_enabled", "get_autocast_dtype",          # amp.py
    "t", "detach", "negative", "embedding", "dropout", "alpha_dropout",  # torch_toplevel.py
    "feature_alpha_dropout", "selu", "celu", "prelu", "rrelu", "hardshrink", "threshold",
    "rms_norm", "conv3d", "conv_transpose3d", "max_pool3d", "max_pool1d_with_indices",
    "adaptive_avg_pool1d", "adaptive_max_pool1d", "pdist", "ger", "chain_matmul", "rsub",
    "scalar_tensor", "is_same_size", "unravel_index", "hann_window", "hamming_window",
    "blackman_window", "bartlett_window", "kaiser_window",
    "conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d", "max_pool1d",  # torch_layers.py
    "max_pool2d", "avg_pool1d", "layer_norm", "group_norm", "batch_norm", "instance_norm",
    "bilinear", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle",
    "draw_graph", "to_dot", "backward_steps",
    "set_default_dtype", "get_default_dtype", "set_float32_matmul_precision",
    "get_float32_matmul_precision",
    "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
]


# PyTorch names that training scripts (nanoGPT's train.py, build-nanogpt) reach for and
# tinyffn leaves out on purpose: the AttributeError says what to write instead. Only a
# missing name comes here (PEP 562), so hasattr(tinyffn, "compile") stays False.
_LEFT_OUT = {
    "compile": "tinyffn has no compiler: a model runs as written, so drop "
               "`model = torch.compile(model)`",
    "bfloat16": "NumPy, and so tinyffn, has no bfloat16: use tinyffn.float16 (autocast's "
                "dtype) or float32",
    "backends": "torch.backends' switches (cuda.matmul.allow_tf32, cudnn.allow_tf32, "
                "cudnn.benchmark) have nothing to switch: NumPy and CuPy multiply float32 "
                "in float32. Drop those lines (set_float32_matmul_precision is there)",
    "distributed": "tinyffn trains in one process on one device: no torch.distributed, "
                   "no DistributedDataParallel; run the script without torchrun",
}


def __getattr__(name: str):
    if name in _LEFT_OUT:
        raise AttributeError(f"module 'tinyffn' has no attribute {name!r}: {_LEFT_OUT[name]}")
    raise AttributeError(f"module 'tinyffn' has no attribute {name!r}", name=name,
                         obj=_sys.modules[__name__])    # name, obj: Python's "Did you mean"
