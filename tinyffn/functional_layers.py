"""The functions of ``tinyffn.functional`` that encoder-decoder and mobile CNNs add (a
U-Net's transposed convolutions, SegNet's unpooling, ShuffleNet's channel shuffle, the
power-average pools), re-exported by functional.py, as nn_layers.py gathers their modules
for nn. Each lives in the file named in its import; this module only gathers them, so
that functional.py stays a file of the FFN's own functions.
"""
from .conv_transpose import conv_transpose1d, conv_transpose2d
from .unpooling import max_unpool1d, max_unpool2d
from .image_layers import channel_shuffle
from .pooling2d import lp_pool1d, lp_pool2d

__all__ = ["conv_transpose1d", "conv_transpose2d", "max_unpool1d", "max_unpool2d",
           "channel_shuffle", "lp_pool1d", "lp_pool2d"]
