"""The functions of ``tinyffn.functional`` for the layers other models put around an FFN:
convolutions (``conv1d``, ``conv2d``, ``unfold``, ``fold``, and a U-Net's transposed ones),
pools (max, average, adaptive, power-average) and SegNet's unpooling, image layers (pixel
and channel shuffles, channel dropout), ``interpolate`` (and its deprecated names,
``upsample``, ...), ``embedding_bag``, the 3-D ones (layers3d.py), and
``linear_cross_entropy``, a language model's projection and loss in one. Each lives in the
file named in its import; this module only gathers them, and functional.py re-exports its
``__all__``, as nn.py does nn_layers.py's (so that functional.py lists the FFN's own
functions, and stays under the size limit).
"""
from .convolution import conv1d
from .convolution2d import conv2d, fold, unfold
from .conv_transpose import conv_transpose1d, conv_transpose2d
from .pooling import adaptive_avg_pool1d, avg_pool1d, max_pool1d
from .pooling2d import (adaptive_avg_pool2d, adaptive_max_pool1d, adaptive_max_pool2d,
                        avg_pool2d, lp_pool1d, lp_pool2d, max_pool1d_with_indices, max_pool2d,
                        max_pool2d_with_indices)
from .unpooling import max_unpool1d, max_unpool2d
from .image_layers import channel_shuffle, dropout1d, dropout2d, pixel_shuffle, pixel_unshuffle
from .resampling import interpolate
from .embedding_bag import embedding_bag
from .ctc import ctc_loss
from .grid_sample import affine_grid, grid_sample
from .fractional_pool import (fractional_max_pool2d, fractional_max_pool2d_with_indices,
                              fractional_max_pool3d, fractional_max_pool3d_with_indices)
from .legacy_aliases import upsample, upsample_bilinear, upsample_nearest
from .linear_cross_entropy import linear_cross_entropy
from .layers3d import (adaptive_avg_pool3d, adaptive_max_pool1d_with_indices,
                       adaptive_max_pool2d_with_indices, adaptive_max_pool3d,
                       adaptive_max_pool3d_with_indices, avg_pool3d, conv3d, conv_transpose3d,
                       dropout3d, lp_pool3d, max_pool3d, max_pool3d_with_indices, max_unpool3d)

__all__ = ["conv1d", "conv2d", "unfold", "fold", "conv_transpose1d", "conv_transpose2d",
           "max_pool1d", "avg_pool1d", "adaptive_avg_pool1d", "max_pool2d", "avg_pool2d",
           "max_pool1d_with_indices", "max_pool2d_with_indices", "adaptive_avg_pool2d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "lp_pool1d", "lp_pool2d",
           "max_unpool1d", "max_unpool2d", "pixel_shuffle", "pixel_unshuffle",
           "channel_shuffle", "dropout1d", "dropout2d", "interpolate", "embedding_bag",
           "conv3d", "conv_transpose3d", "max_pool3d", "max_pool3d_with_indices", "avg_pool3d",
           "adaptive_avg_pool3d", "adaptive_max_pool3d", "adaptive_max_pool1d_with_indices",
           "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d_with_indices", "lp_pool3d",
           "max_unpool3d", "dropout3d", "ctc_loss", "affine_grid", "grid_sample",
           "upsample", "upsample_nearest", "upsample_bilinear",
           "linear_cross_entropy", "fractional_max_pool2d", "fractional_max_pool2d_with_indices",
           "fractional_max_pool3d", "fractional_max_pool3d_with_indices"]
