"""How many times the indexing ops and a training step read from the device to the host.

On a GPU each read (a range check's ``bool(any(...))``, ``int(x)``, ``nonzero``) waits
for the kernels queued before it. The counts are pinned per op, so that one cannot grow
back in silence: every index the user passes is checked once, in one read, by the function
that takes it; an index tinyffn made (an arange, argsort's and argmax's results, a mask's
nonzero) or one checked already (the getitem inside ``gather``) is not checked again.
Counted on the strict backend (tests/host_reads.py); the op code is the same on CuPy.
And every index out of range is still refused, on every backend: CuPy would wrap it around.
"""
import pytest

import tinyffn
import tinyffn.functional as F
from host_reads import counting_host_reads
from tinyffn import nn, optim
from tinyffn.backend import dtype_name


def ints(values, device="strict"):
    return tinyffn.tensor(values, dtype="int64", device=device)


def x53():
    return tinyffn.randn(5, 3, device="strict", requires_grad=True)


def packed():
    x = tinyffn.randn(4, 3, 2, device="strict", requires_grad=True)        # (L, N, *)
    return nn.utils.rnn.pack_padded_sequence(x, [2, 4, 1], enforce_sorted=False)


def assigned(mask_or_key, value=0.0):
    x = tinyffn.randn(5, 3, device="strict")
    key = (x > 0) if mask_or_key == "mask" else mask_or_key
    x[key] = value
    return x.sum()


# The reads of each call's forward (before these changes: the comment); its backward reads
# nothing (checked too). "scalar": bool/int of an array; "array": one copy
# of a small array (two counts, a min and a max); "nonzero": a mask's indices.
READS = [
    ("x[i, j]", lambda: x53()[ints([0, 4]), ints([1, 2])], {"scalar": 1}),         # was 2
    ("x[mask]", lambda: (lambda x: x[x.detach() > 0])(x53()), {"nonzero": 1}),     # was 3
    ("x[mask, 2]", lambda: (lambda x: x[x.detach()[:, 0] > 0, 2])(x53()), {"nonzero": 1}),  # 2
    ("x[mask, j-array]", lambda: (lambda x: x[x.detach()[:, 0] > -9, ints([0, 1, 2, 0, 1])]
                                  )(x53()), {"nonzero": 1, "scalar": 1}),             # was 3
    ("index_select", lambda: x53().index_select(0, ints([0, 4, 2])), {"scalar": 1}),  # was 3
    ("index_add", lambda: x53().index_add(0, ints([0, 4]), x53()[:2]), {"scalar": 1}),  # 3
    ("gather", lambda: x53().gather(1, ints([[0], [2], [1], [0], [2]])), {"scalar": 1}),  # 3
    ("take_along_dim", lambda: x53().take_along_dim(ints([[0], [2], [1], [0], [2]]), 1),
     {"scalar": 1}),                                                               # was 3
    ("scatter_add", lambda: x53().scatter_add(0, ints([[0, 1, 2]]), x53()[:1]),
     {"scalar": 1}),                                                               # was 3
    ("scatter src", lambda: x53().scatter(0, ints([[0, 1, 2]]), x53()[:1]),
     {"scalar": 2}),                       # the range, and an index named twice; was 4
    ("scatter value", lambda: x53().scatter(0, ints([[0, 1, 2]]), 1.0), {"scalar": 1}),
    ("topk", lambda: x53().topk(2).values, {}),                                     # was 2
    ("sort", lambda: x53().sort(0).values, {}),                                     # was 2
    ("max(dim)", lambda: x53().max(dim=1).values, {}),                              # was 3
    ("median(dim)", lambda: x53().median(1).values, {}),                            # was 3
    ("kthvalue", lambda: x53().kthvalue(2, 1).values, {}),                          # was 3
    ("cummax", lambda: x53().cummax(1).values, {}),                                 # was 3
    ("quantile", lambda: x53().quantile(0.3, dim=1), {}),                           # was 9
    ("embedding", lambda: F.embedding(ints([[0, 4], [2, 2]]), x53()), {"scalar": 1}),   # 4
    ("Embedding(padding_idx)", lambda: nn.Embedding(5, 3, padding_idx=0, device="strict")(
        ints([0, 4, 2])), {"scalar": 1}),                                          # was 4
    ("one_hot", lambda: F.one_hot(ints([0, 2, 1])), {"array": 1}),                  # was 3
    ("cross_entropy", lambda: F.cross_entropy(x53(), ints([0, 2, 1, 0, 2])),
     {"array": 1}),                                                                # was 4
    ("cross_entropy(ignore, weight, smoothing)", lambda: F.cross_entropy(
        x53(), ints([0, -100, 1, 0, 2]), weight=tinyffn.ones(3, device="strict"),
        label_smoothing=0.1), {"array": 1}),                                       # was 6
    ("nll_loss", lambda: F.nll_loss(x53(), ints([0, 2, 1, 0, 2])), {"array": 1}),   # was 4
    ("masked_fill", lambda: (lambda x: x.masked_fill(x.detach() > 0, 0.0))(x53()), {}),
    ("masked_select", lambda: (lambda x: tinyffn.masked_select(x, x.detach() > 0))(x53()),
     {"nonzero": 1}),                                                              # was 3
    ("x[mask] = 0", lambda: assigned("mask"), {"nonzero": 1}),                      # was 4
    ("x[i, j] = 0", lambda: assigned((ints([1, 3]), ints([0, 2]))), {"scalar": 1}),  # was 2
    # integer // and % look for a divisor 0 (refused): in the array, not in a number
    ("idx % 3", lambda: ints([0, 4, -7]) % 3, {}),                                   # was 1
    ("idx // 3", lambda: ints([0, 4, -7]) // 3, {}),                                 # was 1
    ("fmod(idx, 3)", lambda: tinyffn.fmod(ints([0, 4, -7]), 3), {}),                 # was 1
    ("mask % 2", lambda: (ints([0, 4, -7]) > 0) % 2, {}),                            # was 1
    ("idx %= 3", lambda: ints([0, 4, -7]).__imod__(3), {}),                          # was 1
    ("idx % idx", lambda: ints([0, 4, -7]) % ints([3, 5, 2]), {"scalar": 1}),
    ("3 % idx", lambda: 3 % ints([3, 5, 2]), {"scalar": 1}),
    ("max_unpool1d", lambda: F.max_unpool1d(
        tinyffn.randn(1, 2, 3, device="strict", requires_grad=True),
        ints([[[0, 3, 5], [1, 2, 4]]]), 2), {"scalar": 2}),   # range, overlaps; was 14
    # index_writes.py, scatter_reductions.py: the range, and for a write of several values
    # an index naming a place twice; none where tinyffn made the key (a mask, a slice)
    ("scatter_reduce", lambda: x53().scatter_reduce(0, ints([[0, 1, 2]]), x53()[:1], "amax"),
     {"scalar": 1}),
    ("index_reduce", lambda: x53().index_reduce(0, ints([0, 4]), x53()[:2], "mean"),
     {"scalar": 1}),
    ("index_fill", lambda: x53().index_fill(1, ints([0, -1]), -1.0), {"scalar": 1}),
    ("index_copy", lambda: x53().index_copy(0, ints([0, 4]), x53()[:2]), {"scalar": 2}),
    ("index_put", lambda: x53().index_put((ints([0, 4]), ints([1, 2])), x53()[0, :2]),
     {"scalar": 2}),
    ("index_put one value", lambda: x53().index_put((ints([0, 0]),), x53()[0, 0]),
     {"scalar": 1}),
    ("index_put accumulate", lambda: x53().index_put((ints([0, 0]),), x53()[:2],
                                                     accumulate=True), {"scalar": 1}),
    ("put", lambda: x53().put(ints([0, 14]), x53()[0, :2]), {"scalar": 2}),
    ("masked_scatter", lambda: (lambda x: x.masked_scatter(x.detach() > 0, x53()))(x53()),
     {"nonzero": 1}),
    ("embedding_bag", lambda: F.embedding_bag(ints([[0, 4], [2, 2]]), x53()), {"scalar": 1}),
    # with offsets: their check, the indices' and the longest bag in one copy (was 2, 3)
    ("embedding_bag(offsets)", lambda: F.embedding_bag(ints([0, 4, 2, 2]), x53(), ints([0, 1]),
                                                       mode="sum"), {"array": 1}),
    ("embedding_bag(max, padding_idx)", lambda: F.embedding_bag(
        ints([0, 4, 2, 2]), x53(), ints([0, 1]), mode="max", padding_idx=2),
     {"array": 1, "nonzero": 1}),
    ("select/slice/diagonal_scatter", lambda: tinyffn.diagonal_scatter(tinyffn.slice_scatter(
        tinyffn.select_scatter(x53(), x53()[0], 0, 2), x53()[:2], 0, 1, 5, 2), x53()[0], -1),
     {}),
    # linalg_lu.py: the elimination's row orders, P, pivots and info stay on the device
    # (each column once made a copy to the host and back, and checked its gather); only
    # lu_factor reads info, to raise for a singular matrix
    ("lu_factor_ex", lambda: tinyffn.linalg.lu_factor_ex(x53()[:3]).LU, {}),    # was 11
    ("lu_factor", lambda: tinyffn.linalg.lu_factor(x53()[:3]).LU, {"scalar": 1}),
    ("lu", lambda: (lambda r: r.L.sum() + r.U.sum())(tinyffn.linalg.lu(x53()[1:])),
     {}),                                                                     # was 10
    ("lu_solve", lambda: tinyffn.linalg.lu_solve(*tinyffn.linalg.lu_factor_ex(x53()[:3])[:2],
                                                 x53()[1:4], adjoint=True), {}),  # was 13
    ("solve_ex, inv_ex", lambda: tinyffn.linalg.solve_ex(x53()[:3], x53()[2:]).result
     + tinyffn.linalg.inv_ex(x53()[1:4]).inverse, {}),                        # was 24
    # grid_sample.py, ctc.py: their gathers' indices are theirs (clamped, or made from
    # checked targets), not checked again; ctc reads the targets once
    ("grid_sample", lambda: F.grid_sample(x53().reshape(1, 1, 5, 3), F.affine_grid(
        x53()[:2].reshape(1, 2, 3), (1, 1, 4, 2))), {}),                            # was 4
    ("grid_sample(nearest, reflection)", lambda: F.grid_sample(
        x53().reshape(1, 1, 5, 3), x53()[:4, :2].reshape(1, 2, 2, 2), mode="nearest",
        padding_mode="reflection"), {}),                                            # was 1
    ("ctc_loss", lambda: F.ctc_loss(F.log_softmax(x53().reshape(5, 1, 3), -1),
                                    ints([[1, 2]]), [5], [2]), {"array": 1}),       # was 3
    ("ctc_loss(tensor lengths)", lambda: F.ctc_loss(F.log_softmax(x53().reshape(5, 1, 3), -1),
                                                    ints([1, 2]), ints([5]), ints([2])),
     {"array": 1}),                                  # read with the targets; was 3 arrays
    # rnn_utils.py: a packed batch's indices are made on the host from the lengths (on the
    # CPU, as PyTorch wants them) and batch_sizes, and the examples' order is kept there:
    # not range-checked, nor read back (a hand-built PackedSequence's order is read once)
    ("pack_padded_sequence", lambda: packed().data, {}),                             # was 1
    ("pad_packed_sequence", lambda: nn.utils.rnn.pad_packed_sequence(packed())[0],
     {}),                                                                 # was 4, 1 array
    ("LSTM(PackedSequence)", lambda: nn.utils.rnn.pad_packed_sequence(nn.LSTM(
        2, 3, device="strict")(packed())[0])[0], {}),                      # was 8, 3 arrays
    # gathers at indices the op made on the host, inside the axis: a pad's mirror, the
    # taps of interpolate, pdist's pairs, a diagonal, repeat_interleave's repeats; not
    # range-checked again (AdaptiveLogSoftmax: the targets' check, a nonzero per cluster)
    ("pad(reflect), pad(replicate)", lambda: F.pad(F.pad(x53()[None], (1, 2, 0, 1), "reflect"),
                                                   (2, 1), "replicate"), {}),   # was 3
    ("Conv2d(padding_mode='circular')", lambda: nn.Conv2d(
        1, 2, 3, padding=1, padding_mode="circular", device="strict")(x53()[None, None]),
     {}),                                                                       # was 2
    ("interpolate(bilinear)", lambda: F.interpolate(x53()[None, None], size=(7, 4),
                                                    mode="bilinear"), {}),      # was 4
    ("interpolate(bicubic)", lambda: F.interpolate(x53()[None, None], scale_factor=2,
                                                   mode="bicubic"), {}),        # was 8
    ("interpolate(nearest)", lambda: F.interpolate(x53()[None], size=5), {}),   # was 1
    ("pdist", lambda: F.pdist(x53()), {}),                                      # was 2
    ("diag, diagonal, trace", lambda: tinyffn.diag(x53()).sum() + x53().diagonal(-1).sum()
     + x53()[:3].trace(), {}),                                                  # was 3
    ("repeat_interleave", lambda: x53().repeat_interleave(2, dim=1), {}),       # was 1
    ("combinations", lambda: tinyffn.combinations(x53()[0], 2), {}),            # was 1
    ("AdaptiveLogSoftmaxWithLoss", lambda: nn.AdaptiveLogSoftmaxWithLoss(
        3, 10, [3, 6], div_value=1.0, device="strict")(x53(), ints([0, 4, 7, 9, 2])).loss,
     {"scalar": 1, "nonzero": 2}),                               # was 8 and 2 nonzero
    # a user's targets (or probabilities) checked once, as PyTorch does: the flags (or the
    # least and the most) read together, in one copy
    ("multi_margin_loss", lambda: F.multi_margin_loss(x53(), ints([0, 2, 1, 0, 2])),
     {"array": 1}),                                                             # was 2
    ("multilabel_margin_loss", lambda: F.multilabel_margin_loss(x53(), ints(
        [[2, -1, 0]] * 5)), {"array": 1}),                                      # was 2
    ("binary_cross_entropy", lambda: F.binary_cross_entropy(
        x53().sigmoid(), tinyffn.rand(5, 3, device="strict")), {"array": 1}),  # was 2 scalar
    # the logits' check, and the value's against the support, which covers the gather
    ("Categorical.log_prob", lambda: tinyffn.distributions.Categorical(logits=x53()).log_prob(
        ints([0, 2, 1, 0, 2])), {"array": 2}),                                # was 2, 1 scalar
    # distributions_constraints.py, distributions_transforms_more.py: a matrix's squareness is
    # its shape's, PyTorch's 'symmetric alone where some matrix is not' a where; the
    # positive_definite check asks whether a Cholesky factor has a NaN (cholesky_ex read one
    # flag to decide whether to look for the failing minor); the tril gathers are at
    # positions made on the host
    ("symmetric, positive_semidefinite", lambda: tinyffn.distributions.constraints.symmetric
     .check(_spd()) & tinyffn.distributions.constraints.positive_semidefinite.check(_spd()),
     {}),                                                                       # was 3
    ("positive_definite", lambda: tinyffn.distributions.constraints.positive_definite.check(
        _spd()), {}),                                                           # was 1
    ("CorrCholeskyTransform", lambda: (lambda t, x: t.log_abs_det_jacobian(x, t(x)).sum()
                                       + t.inv(t(x)).sum())(
        tinyffn.distributions.CorrCholeskyTransform(), x53()), {}),             # was 5
    ("MixtureSameFamily.sample", lambda: tinyffn.distributions.MixtureSameFamily(
        tinyffn.distributions.Categorical(logits=x53()[0], validate_args=False),
        tinyffn.distributions.Normal(x53()[1], 1.0, validate_args=False)).sample((2,)),
     {}),                                                                       # was 1 scalar
    # ops/decompositions.py: whether the backward uses the vectors' cotangent (all zeros
    # where the loss never read U, Vh or V) is decided on the device (its backward read it
    # once per factor: 2 for svd, 1 for eigh)
    ("svd", lambda: (lambda r: r.U.sum() + r.S.sum() + r.Vh.sum())(tinyffn.linalg.svd(
        x53(), full_matrices=False)), {}),
    ("svd(A).S", lambda: tinyffn.linalg.svd(x53()).S, {}),
    ("eigh", lambda: (lambda r: r.eigenvalues.sum() + r.eigenvectors.sum())(
        tinyffn.linalg.eigh(x53()[:3])), {}),
    ("eigh(A).eigenvalues", lambda: tinyffn.linalg.eigh(x53()[:3]).eigenvalues, {}),
]


def _spd():
    """A batch of a positive definite matrix, an indefinite symmetric one and a
    non-symmetric one."""
    return tinyffn.tensor([[[2.0, 0.3], [0.3, 1.0]], [[1.0, 2.0], [2.0, 1.0]],
                           [[1.0, 2.0], [0.0, 1.0]]], device="strict")


@pytest.mark.parametrize("name, call, forward", READS, ids=[c[0] for c in READS])
def test_each_op_reads_to_the_host_a_pinned_number_of_times(name, call, forward):
    tinyffn.manual_seed(0)
    with counting_host_reads() as reads:
        y = call()
        assert dict(reads) == forward, f"{name}: {dict(reads)}"
        reads.clear()
        if y.requires_grad:
            y.sum().backward()
        assert not reads, f"{name}'s backward read to the host: {dict(reads)}"


def test_a_second_order_backward_reads_nothing():
    """create_graph records getitem's backward as an IndexAdd, and that one's as a getitem:
    their keys passed the forward's check, and are not read back again."""
    x = tinyffn.randn(5, 3, device="strict", requires_grad=True)
    for f in (lambda x: x[ints([0, 4]), ints([1, 2])],
              lambda x: x.index_add(0, ints([0, 4]), x[1:3] * 2.0)):
        y = (f(x) ** 2).sum()
        with counting_host_reads() as reads:
            g, = tinyffn.autograd.grad(y, x, create_graph=True)
            g.sum().backward()
        assert not reads, dict(reads)


def test_tensor_of_an_array_already_on_the_device_is_copied_there():
    """tensor(x.data, device=x.device), as op code writes it, used to copy through NumPy:
    two copies over the bus and a wait for the GPU."""
    x = tinyffn.tensor([[1.5, -2.0], [0.25, 3.0]], device="strict")
    with counting_host_reads() as reads:
        made = [tinyffn.tensor(x.data, device="strict"), tinyffn.tensor(x, device="strict"),
                tinyffn.tensor(x.data, dtype="float64", device="strict", requires_grad=True),
                tinyffn.tensor(ints([3, 1]).data, device="strict")]
    assert not reads, dict(reads)
    for t, dtype in zip(made, ("float32", "float32", "float64", "int64")):
        assert t.device == "strict" and dtype_name(t.dtype) == dtype
        assert t.data is not x.data and t.is_leaf
    assert made[0].tolist() == made[2].tolist() == [[1.5, -2.0], [0.25, 3.0]]
    assert made[2].requires_grad and not made[0].requires_grad
    assert made[3].tolist() == [3, 1]
    x.data[0, 0] = 7.0                  # a copy: the new tensors keep their own values
    assert made[0].tolist()[0][0] == made[1].tolist()[0][0] == 1.5


@pytest.mark.parametrize("loss, scaler, expected", [
    ("mse", False, {}),                    # forward, backward, clip_grad_norm_, AdamW: none
    ("cross_entropy", False, {"array": 1}),     # the targets' range check (4 reads before)
    ("mse", True, {"array": 1}),                # GradScaler's inf check, as PyTorch's
])
def test_a_training_step_reads_to_the_host_a_pinned_number_of_times(loss, scaler, expected):
    """One FFN training step: the optimizers keep their step counts and bias corrections on
    the host, clip_grad_norm_ scales by a device tensor (no read, as PyTorch by default)."""
    model = nn.FFN(4, 8, device="strict")
    opt = optim.AdamW(model.parameters(), lr=1e-3)
    scale = tinyffn.amp.GradScaler(device="strict") if scaler else None
    x = tinyffn.randn(3, 4, device="strict")
    target = tinyffn.randn(3, 4, device="strict") if loss == "mse" else ints([0, 3, 1])

    def step():
        opt.zero_grad()
        y = model(x)
        out = F.mse_loss(y, target) if loss == "mse" else F.cross_entropy(y, target)
        (scale.scale(out) if scale else out).backward()
        if scale:
            scale.unscale_(opt)
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        if scale:
            scale.step(opt)
            scale.update()
        else:
            opt.step()

    step()                                  # the first step makes the optimizer's state
    before = model.w1.weight.detach().numpy().copy()
    with counting_host_reads() as reads:
        step()
    assert dict(reads) == expected
    assert (model.w1.weight.numpy() != before).any()        # the step did update


# Each index out of range is refused, on every backend, with the op's own message
REFUSED = [
    ("x[i, j]", lambda x, d: x[ints([0, 4], d), ints([1, 3], d)],
     r"getitem: index 3 is out of range for axis 1 of size 3"),
    ("x[mask, j]", lambda x, d: x[x[:, 0] > -99, ints([0, 1, 2, 0, -4], d)],
     r"getitem: index -4 is out of range for axis 1 of size 3"),
    ("x[i, j] = 0", lambda x, d: x.detach().clone().__setitem__((ints([5], d), ints([0], d)),
                                                                0.0),
     r"x\[key\] = value: index 5 is out of range for axis 0 of size 5"),
    ("index_select", lambda x, d: x.index_select(0, ints([0, 5], d)),
     r"index_select: index 5 is out of range for dim 0 of size 5"),
    ("index_add", lambda x, d: x.index_add(0, ints([-1], d), x[:1]),
     r"index_add: index -1 is out of range for dim 0 of size 5"),
    ("gather", lambda x, d: x.gather(1, ints([[3]], d)),
     r"gather: index 3 is out of range for dim 1 of size 3"),
    ("take_along_dim", lambda x, d: x.take_along_dim(ints([[-4]], d), 1),
     r"take_along_dim: index -4 is out of range for dim 1 of size 3"),
    ("scatter_add", lambda x, d: x.scatter_add(0, ints([[5]], d), x[:1]),
     r"scatter_add: index 5 is out of range for dim 0 of size 5"),
    ("scatter", lambda x, d: x.scatter(1, ints([[3]], d), 1.0),
     r"scatter: index 3 is out of range for dim 1 of size 3"),
    ("embedding", lambda x, d: F.embedding(ints([[0, 5]], d), x),
     r"embedding: index 5 is out of range for num_embeddings=5"),
    ("embedding -1", lambda x, d: F.embedding(ints([-1, 0], d), x),
     r"embedding: index -1 is out of range for num_embeddings=5"),
    ("one_hot", lambda x, d: F.one_hot(ints([0, 3], d), 3),
     r"one_hot: class labels must be smaller than num_classes=3, got 3"),
    ("one_hot -1", lambda x, d: F.one_hot(ints([0, -1], d)),
     r"one_hot: class labels must be >= 0, got -1"),
    ("cross_entropy", lambda x, d: F.cross_entropy(x, ints([0, 1, 2, 3, 0], d)),
     r"cross_entropy: targets must lie in \[0, 3\)"),
    ("nll_loss", lambda x, d: F.nll_loss(x, ints([0, 1, -2, -100, 0], d)),
     r"nll_loss: targets must lie in \[0, 3\)"),
    ("max_unpool1d", lambda x, d: F.max_unpool1d(x.reshape(1, 5, 3), ints([[[0, 1, 6]] * 5], d),
                                                 2), r"max_unpool1d: index 6 is out of range"),
    ("scatter_reduce", lambda x, d: x.scatter_reduce(1, ints([[3]], d), x[:1], "prod"),
     r"scatter_reduce: index 3 is out of range for dim 1 of size 3"),
    ("index_reduce", lambda x, d: x.index_reduce(0, ints([5], d), x[:1], "amin"),
     r"index_reduce: index 5 is out of range for dim 0 of size 5"),
    ("index_fill", lambda x, d: x.index_fill(1, ints([-4], d), 0.0),
     r"index_fill: index -4 is out of range for dim 1 of size 3"),
    ("index_copy", lambda x, d: x.index_copy(0, ints([-1], d), x[:1]),
     r"index_copy: index -1 is out of range for dim 0 of size 5"),
    ("index_put", lambda x, d: x.index_put((ints([0], d), ints([3], d)), x[0, :1]),
     r"index_put: index 3 is out of range for axis 1 of size 3"),
    ("embedding_bag", lambda x, d: F.embedding_bag(ints([0, 5], d), x, ints([0], d)),
     r"embedding_bag: index 5 is out of range for num_embeddings=5"),
    ("put", lambda x, d: x.put(ints([15], d), x[0, :1]),
     r"put: index 15 is out of range for axis 0 of size 15"),
    ("Categorical.log_prob", lambda x, d: tinyffn.distributions.Categorical(
        logits=x, validate_args=False).log_prob(ints([0, 1, 3, 0, 1], d)),
     r"gather: index 3 is out of range for dim 1 of size 3"),
]


@pytest.mark.parametrize("name, call, message", REFUSED, ids=[c[0] for c in REFUSED])
def test_an_index_out_of_range_is_refused_on_every_backend(device, name, call, message):
    x = tinyffn.randn(5, 3, device=device, requires_grad=True)
    with pytest.raises((IndexError, ValueError), match=message):
        call(x, device)

