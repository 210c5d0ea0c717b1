"""``nn.AdaptiveLogSoftmaxWithLoss``, as PyTorch's (Grave et al., 2017, "Efficient softmax
approximation for GPUs"): the output layer of a language model with a large vocabulary,
cheaper than a Linear to every class followed by a softmax.

The classes are split at ``cutoffs`` (sorted so that frequent classes come first): the
*shortlist* [0, cutoffs[0]) and clusters [cutoffs[i], cutoffs[i + 1]). The *head*, a
Linear to shortlist + one column per cluster, gives

    log p(c | x) = head(x)[c]                                   for c in the shortlist
    log p(c | x) = head(x)[cluster] + tail_i(x)[c - cutoffs[i]]   for c in cluster i

both as log-softmaxes, so the probabilities add up to 1 over all classes. Cluster i's
*tail* projects x down to in_features // div_value^(i + 1) and then to the cluster's
classes (two Linears without bias): rare classes get a small projection. A training step
runs each tail only on the rows whose target is in its cluster (one read from the device
per cluster, to find them), which is where the savings are.
"""
from __future__ import annotations

from collections import namedtuple
from typing import Any

from . import functional as F
from .containers import ModuleList, Sequential
from .creation import cat
from .module import Module
from .nn import Linear, _check_size
from .more_functions import _index_selected
from .scatter import _index_added
from .sorting import _gathered
from .tensor import Tensor

ASMoutput = namedtuple("ASMoutput", ["output", "loss"])     # PyTorch's _ASMoutput


class AdaptiveLogSoftmaxWithLoss(Module):
    """The adaptive softmax of the module docstring, as ``torch.nn.AdaptiveLogSoftmaxWithLoss``:
    ``head`` a Linear(in_features, shortlist + clusters, bias=head_bias), ``tail[i]`` a
    Sequential of Linear(in_features, in_features // div_value^(i + 1)) and Linear(that,
    cluster size), no biases; each initialised as Linear is. ``forward(input, target)``:
    input (N, in_features) and int64 target (N,) in [0, n_classes), or (in_features,) and a
    0-d target, -> ``(output, loss)``: each target's log-probability and the mean of -output.
    ``log_prob(input)`` gives all (N, n_classes) log-probabilities, ``predict(input)`` the
    most probable class."""

    def __init__(self, in_features: int, n_classes: int, cutoffs: Any, div_value: float = 4.0,
                 head_bias: bool = False, device: Any = None, dtype: Any = None):
        super().__init__()
        _check_size("AdaptiveLogSoftmaxWithLoss", "in_features", in_features)
        _check_size("AdaptiveLogSoftmaxWithLoss", "n_classes", n_classes)
        cutoffs = list(cutoffs)
        if not cutoffs or cutoffs != sorted(set(cutoffs)) or not all(
                isinstance(c, int) and 1 <= c <= n_classes - 1 for c in cutoffs):
            raise ValueError(f"AdaptiveLogSoftmaxWithLoss: cutoffs must be distinct integers in "
                             f"increasing order, each in [1, n_classes - 1] = [1, "
                             f"{n_classes - 1}] (as in PyTorch), got {cutoffs}")
        self.in_features, self.n_classes = in_features, n_classes
        self.cutoffs, self.div_value, self.head_bias = cutoffs + [n_classes], div_value, head_bias
        self.shortlist_size = cutoffs[0]
        self.n_clusters = len(cutoffs)
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, device=device,
                           dtype=dtype)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            if hidden < 1:
                raise ValueError(f"AdaptiveLogSoftmaxWithLoss: cluster {i}'s projection would "
                                 f"have in_features // div_value^{i + 1} = 0 units (in_features="
                                 f"{in_features}, div_value={div_value}); lower div_value or use "
                                 "fewer cutoffs (PyTorch builds it with 0 units, and then gives "
                                 "every class of the cluster the same probability)")
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(
                Linear(in_features, hidden, bias=False, device=device, dtype=dtype),
                Linear(hidden, size, bias=False, device=device, dtype=dtype)))

    def forward(self, input: Tensor, target: Tensor) -> ASMoutput:
        x, t = self._checked(input, target)
        xp = t.backend.xp
        head = F.log_softmax(self.head(x), dim=1)                   # (N, shortlist + clusters)
        # each target's cluster: how many cutoffs it reaches (0: the shortlist)
        cluster = sum(xp.astype(t.data >= c, xp.int64) for c in self.cutoffs[:-1])
        column = xp.where(cluster == 0, t.data, self.shortlist_size + cluster - 1)
        # the targets were checked once (_checked): the gathers and index_selects below,
        # of columns, classes and rows made from them (or by nonzero), are not checked
        # again (each check a read of the device, on a GPU a wait for the kernels queued)
        output = _gathered(head, 1, Tensor(column[:, None], _backend=t.backend)).squeeze(1)
        for i, tail in enumerate(self.tail):
            rows = Tensor(xp.nonzero(cluster == i + 1)[0], _backend=t.backend)   # one read
            if not rows.shape[0]:
                continue
            within = _index_selected(t, 0, rows) - self.cutoffs[i]  # the class in the cluster
            logp = F.log_softmax(tail(_index_selected(x, 0, rows)), dim=1)
            output = _index_added(output, 0, rows,
                                  _gathered(logp, 1, within.unsqueeze(1)).squeeze(1))
        loss = (-output).mean()
        return ASMoutput(output if input.ndim == 2 else output.squeeze(0), loss)

    def log_prob(self, input: Tensor) -> Tensor:
        """All classes' log-probabilities, (N, n_classes) (or (n_classes,) for one input):
        the shortlist's from the head, each cluster's its tail's plus the head's column of
        that cluster."""
        x = input if input.ndim == 2 else input.unsqueeze(0)
        head = F.log_softmax(self.head(x), dim=1)
        parts = [head[:, :self.shortlist_size]]
        for i, tail in enumerate(self.tail):
            cluster = head[:, self.shortlist_size + i:self.shortlist_size + i + 1]   # (N, 1)
            parts.append(F.log_softmax(tail(x), dim=1) + cluster)
        y = cat(parts, dim=1)
        return y if input.ndim == 2 else y.squeeze(0)

    def predict(self, input: Tensor) -> Tensor:
        """The most probable class of each input: ``log_prob(input).argmax(dim=-1)``."""
        return self.log_prob(input).argmax(dim=-1)

    def _checked(self, input: Any, target: Any) -> tuple:
        name = "AdaptiveLogSoftmaxWithLoss"
        if not isinstance(input, Tensor) or not isinstance(target, Tensor):
            raise TypeError(f"{name}: input and target must be tinyffn Tensors")
        if target.ndim not in (0, 1) or input.ndim != target.ndim + 1:
            raise ValueError(f"{name}: input (N, in_features) takes a target (N,), and input "
                             f"(in_features,) a 0-d target; got input {input.shape}, target "
                             f"{target.shape}")
        x, t = (input, target) if target.ndim else (input.unsqueeze(0), target.reshape(1))
        if x.shape[0] != t.shape[0] or x.shape[1] != self.in_features:
            raise ValueError(f"{name}({self.in_features}, {self.n_classes}): input {input.shape} "
                             f"and target {target.shape} must be (N, {self.in_features}) and "
                             f"(N,), N the same")
        if not t.backend.xp.isdtype(t.dtype, "integral"):
            raise TypeError(f"{name}: target must hold class indices (int64), got "
                            f"{t.dtype}; write target.long()")
        xp = t.backend.xp
        if bool(xp.any((t.data < 0) | (t.data >= self.n_classes))):     # one read
            raise IndexError(f"{name}: targets must lie in [0, {self.n_classes}), got values in "
                             f"[{int(xp.min(t.data))}, {int(xp.max(t.data))}]")
        return x, t

    def extra_repr(self) -> str:
        return ""


__all__ = ["AdaptiveLogSoftmaxWithLoss", "ASMoutput"]
