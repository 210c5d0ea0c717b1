"""The layers of ``tinyffn.nn`` that other models put around an FFN, re-exported by nn.py.

Convolutions (``Conv1d``: the FFN as two convolutions of kernel size 1; ``Conv2d``: a ViT's
patch embedding; ``ConvTranspose2d``: a U-Net's up-step), pools and unpooling, image
layers (padding, pixel and channel shuffles, channel dropout), resampling, the norms
beside LayerNorm and RMSNorm, the recurrent layers (RNN, LSTM, GRU and their cells),
the lazy layers, which learn their input size at the first call (``LazyLinear``,
``LazyConv2d``, ...), ``LinearCrossEntropyLoss``, and PyTorch's deprecated ``NLLLoss2d``.
Each lives in the file
named in its import; this module only gathers them, so that nn.py lists the FFN's own
layers.
"""
from .convolution import Conv1d
from .convolution2d import Conv2d, Fold, Unfold
from .conv_transpose import ConvTranspose1d, ConvTranspose2d
from .pooling import AdaptiveAvgPool1d, AvgPool1d, MaxPool1d
from .pooling2d import (AdaptiveAvgPool2d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AvgPool2d,
                        LPPool1d, LPPool2d, MaxPool2d)
from .unpooling import MaxUnpool1d, MaxUnpool2d, UpsamplingBilinear2d, UpsamplingNearest2d
from .image_layers import (ChannelShuffle, CircularPad1d, CircularPad2d, ConstantPad1d,
                           ConstantPad2d, Dropout1d, Dropout2d, PixelShuffle, PixelUnshuffle,
                           ReflectionPad1d, ReflectionPad2d, ReplicationPad1d,
                           ReplicationPad2d, ZeroPad1d, ZeroPad2d)
from .resampling import Upsample
from .batchnorm import BatchNorm1d, BatchNorm2d
from .more_norms import GroupNorm, InstanceNorm1d, InstanceNorm2d, LocalResponseNorm
from .bilinear import Bilinear
from .stochastic import AlphaDropout, FeatureAlphaDropout
from .embedding_bag import EmbeddingBag
from .adaptive_softmax import AdaptiveLogSoftmaxWithLoss
from .ctc import CTCLoss
from .legacy_aliases import NLLLoss2d
from .linear_cross_entropy import LinearCrossEntropyLoss, LinearCrossEntropyOptions
from .lazy_modules import (LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, LazyConv1d,
                           LazyConv2d, LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d,
                           LazyConvTranspose3d, LazyInstanceNorm1d, LazyInstanceNorm2d,
                           LazyInstanceNorm3d, LazyLinear, LazyModuleMixin,
                           UninitializedBuffer, UninitializedParameter)
from .layers3d import (AdaptiveAvgPool3d, AdaptiveMaxPool3d, AvgPool3d, BatchNorm3d,
                       CircularPad3d, ConstantPad3d, Conv3d, ConvTranspose3d, Dropout3d,
                       InstanceNorm3d, LPPool3d, MaxPool3d, MaxUnpool3d, ReflectionPad3d,
                       ReplicationPad3d, ZeroPad3d)
from .fractional_pool import FractionalMaxPool2d, FractionalMaxPool3d
from .recurrent import GRUCell, LSTMCell, RNNCell, RNNCellBase
from .recurrent_layers import GRU, LSTM, RNN, RNNBase

__all__ = ["Conv1d", "Conv2d", "Unfold", "Fold", "MaxPool1d", "AvgPool1d", "AdaptiveAvgPool1d",
           "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d",
           "AdaptiveMaxPool2d", "PixelShuffle", "PixelUnshuffle", "Dropout1d", "Dropout2d",
           "ZeroPad1d", "ZeroPad2d", "ConstantPad1d", "ConstantPad2d", "ReflectionPad1d",
           "ReflectionPad2d", "ReplicationPad1d", "ReplicationPad2d", "CircularPad1d",
           "CircularPad2d", "Upsample", "BatchNorm1d", "BatchNorm2d", "GroupNorm",
           "InstanceNorm1d", "InstanceNorm2d", "LocalResponseNorm", "Bilinear", "AlphaDropout",
           "FeatureAlphaDropout", "ConvTranspose1d", "ConvTranspose2d", "MaxUnpool1d",
           "MaxUnpool2d", "UpsamplingNearest2d", "UpsamplingBilinear2d", "ChannelShuffle",
           "LPPool1d", "LPPool2d", "EmbeddingBag", "Conv3d", "ConvTranspose3d", "MaxPool3d",
           "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "LPPool3d", "MaxUnpool3d",
           "Dropout3d", "BatchNorm3d", "InstanceNorm3d", "ConstantPad3d", "ZeroPad3d",
           "ReflectionPad3d", "ReplicationPad3d", "CircularPad3d", "AdaptiveLogSoftmaxWithLoss",
           "CTCLoss", "RNNBase", "RNN", "LSTM", "GRU",
           "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell", "NLLLoss2d",
           "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d",
           "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d",
           "UninitializedParameter", "UninitializedBuffer", "LazyModuleMixin",
           "LinearCrossEntropyLoss", "LinearCrossEntropyOptions", "FractionalMaxPool2d",
           "FractionalMaxPool3d"]
