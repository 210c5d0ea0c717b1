"""The lazy layers (tinyffn/lazy_modules.py): LazyLinear, LazyConv1d/2d/3d,
LazyConvTranspose1d/2d/3d, LazyBatchNorm1d/2d/3d, LazyInstanceNorm1d/2d/3d, which raised
AttributeError.

References: the eager layer built at the same point of the random stream (the lazy one
must become exactly it), PyTorch's reprs and state_dict shapes written out and live.
"""
import numpy as np
import pytest

import tinyffn
from tinyffn import nn

# (lazy layer, its eager twin given the input size, an input shape)
CASES = {
    "Linear": (lambda: nn.LazyLinear(3), lambda n: nn.Linear(n, 3), (2, 5)),
    "Conv1d": (lambda: nn.LazyConv1d(4, 3, padding=1), lambda c: nn.Conv1d(c, 4, 3, padding=1),
               (2, 2, 6)),
    "Conv2d": (lambda: nn.LazyConv2d(4, 3, groups=2), lambda c: nn.Conv2d(c, 4, 3, groups=2),
               (1, 6, 4, 4)),
    "Conv3d": (lambda: nn.LazyConv3d(2, 2, bias=False), lambda c: nn.Conv3d(c, 2, 2, bias=False),
               (3, 3, 3, 3)),                                               # unbatched
    "ConvTranspose1d": (lambda: nn.LazyConvTranspose1d(4, 3, stride=2, groups=2),
                        lambda c: nn.ConvTranspose1d(c, 4, 3, stride=2, groups=2), (1, 6, 5)),
    "ConvTranspose2d": (lambda: nn.LazyConvTranspose2d(2, 2, output_padding=1, stride=2),
                        lambda c: nn.ConvTranspose2d(c, 2, 2, output_padding=1, stride=2),
                        (1, 3, 3, 3)),
    "ConvTranspose3d": (lambda: nn.LazyConvTranspose3d(2, 2), lambda c: nn.ConvTranspose3d(c, 2, 2),
                        (1, 2, 2, 2, 2)),
    "BatchNorm1d": (lambda: nn.LazyBatchNorm1d(), lambda c: nn.BatchNorm1d(c), (4, 3)),
    "BatchNorm2d": (lambda: nn.LazyBatchNorm2d(momentum=0.5),
                    lambda c: nn.BatchNorm2d(c, momentum=0.5), (2, 3, 2, 2)),
    "BatchNorm3d": (lambda: nn.LazyBatchNorm3d(affine=False),
                    lambda c: nn.BatchNorm3d(c, affine=False), (2, 3, 2, 2, 2)),
    "InstanceNorm1d": (lambda: nn.LazyInstanceNorm1d(),
                       lambda c: nn.InstanceNorm1d(c, affine=True, track_running_stats=True),
                       (3, 5)),                                             # unbatched: C = 3
    "InstanceNorm2d": (lambda: nn.LazyInstanceNorm2d(affine=False, track_running_stats=False),
                       lambda c: nn.InstanceNorm2d(c), (2, 3, 3, 3)),
    "InstanceNorm3d": (lambda: nn.LazyInstanceNorm3d(), lambda c: nn.InstanceNorm3d(
        c, affine=True, track_running_stats=True), (1, 2, 2, 2, 2)),
}
SIZE_AXIS = {"Linear": -1, "Conv3d": 0, "InstanceNorm1d": 0}


@pytest.mark.parametrize("name", CASES)
def test_the_first_call_makes_the_eager_layer(name):
    """Built lazily, the layer draws its weights at its first call: with the same seed it
    is, class, settings, state and output, the layer built eagerly at that point."""
    lazy_made, eager_made, shape = CASES[name]
    x = tinyffn.randn(*shape)
    if lazy_made().has_uninitialized_params():
        with pytest.raises(RuntimeError, match="shape of an uninitialized parameter"):
            sum(p.numel() for p in (*lazy_made().parameters(), *lazy_made().buffers()))
    tinyffn.manual_seed(7)
    lazy = lazy_made()
    assert lazy.has_uninitialized_params() or not list(lazy.parameters())
    y = lazy(x)
    tinyffn.manual_seed(7)
    eager = eager_made(shape[SIZE_AXIS.get(name, 1)])
    assert type(lazy) is type(eager) and repr(lazy) == repr(eager)
    assert not isinstance(lazy, nn.LazyModuleMixin)
    np.testing.assert_array_equal(y.numpy(), eager(x).numpy())     # (running stats move)
    got, want = lazy.state_dict(), eager.state_dict()
    assert list(got) == list(want)
    for key in want:
        np.testing.assert_array_equal(got[key].numpy(), want[key].numpy(), err_msg=key)


def test_before_the_first_call_and_after(device):
    model = nn.Sequential(nn.LazyLinear(4), nn.ReLU(), nn.LazyLinear(2, device=device))
    assert repr(model[0]) == "LazyLinear(in_features=0, out_features=4, bias=True)"
    params = list(model.parameters())
    assert [repr(p) for p in params] == ["<UninitializedParameter>"] * 4
    sgd = tinyffn.optim.SGD(params, lr=0.1)         # built before: holds the same objects
    model.to(device)
    x = tinyffn.randn(3, 5, device=device)
    model(x).sum().backward()
    assert [type(p) for p in params] == [nn.Parameter] * 4 and params[0].shape == (4, 5)
    assert params[0] is model[0].weight and params[0].device == x.device
    before = model[2].weight.numpy().copy()
    sgd.step()
    np.testing.assert_allclose(model[2].weight.numpy(), before - 0.1 * model[2].weight.grad.numpy(),
                               rtol=1e-6)
    assert repr(model[2]) == "Linear(in_features=4, out_features=2, bias=True)"


def test_a_state_dict_builds_the_lazy_layers_it_names(device):
    eager = nn.Sequential(nn.Linear(4, 3), nn.Conv1d(3, 4, 2), nn.BatchNorm1d(4),
                          nn.ConvTranspose1d(4, 2, 2, groups=2)).to(device)
    lazy = nn.Sequential(nn.LazyLinear(3), nn.LazyConv1d(4, 2), nn.LazyBatchNorm1d(),
                         nn.LazyConvTranspose1d(2, 2, groups=2)).to(device)
    lazy.load_state_dict(eager.state_dict())
    assert repr(lazy) == repr(eager)
    x = tinyffn.randn(2, 3, 4, device=device)
    np.testing.assert_array_equal(lazy.eval()(x).numpy(), eager.eval()(x).numpy())
    untouched = nn.Sequential(nn.LazyLinear(3))
    untouched.load_state_dict({}, strict=False)             # nothing named: still lazy
    assert isinstance(untouched[0], nn.LazyLinear)


@pytest.mark.parametrize("make, x, message", [
    (lambda: nn.LazyConv2d(4, 3, groups=2), (1, 3, 5, 5), "3 channels .* groups=2"),
    (lambda: nn.LazyConv2d(4, 3), (3, 5), "LazyConv2d: expected 3-D .* or 4-D"),
    (lambda: nn.LazyLinear(4), (2, 0), "no features"),
    (lambda: nn.LazyBatchNorm2d(), (2, 3), "LazyBatchNorm2d: expected"),
])
def test_bad_first_input_is_refused_by_name_and_leaves_it_lazy(make, x, message):
    layer = make()
    with pytest.raises(ValueError, match=message):
        layer(tinyffn.zeros(*x))
    assert isinstance(layer, nn.LazyModuleMixin) and layer.has_uninitialized_params()


def test_reprs_and_shapes_are_pytorchs():
    torch = pytest.importorskip("torch")
    ours = nn.LazyLinear(3)
    ours.load_state_dict(torch.nn.Linear(5, 3).state_dict())   # torch's tensors, as values
    assert repr(ours) == "Linear(in_features=5, out_features=3, bias=True)"
    for ours, theirs, shape in (
            (nn.LazyConv2d(4, 3, padding=1), torch.nn.LazyConv2d(4, 3, padding=1), (1, 2, 5, 5)),
            (nn.LazyConvTranspose1d(4, 3, groups=2), torch.nn.LazyConvTranspose1d(4, 3, groups=2),
             (1, 6, 5)),
            (nn.LazyBatchNorm1d(), torch.nn.LazyBatchNorm1d(), (4, 3)),
            (nn.LazyInstanceNorm2d(), torch.nn.LazyInstanceNorm2d(), (2, 3, 4, 4)),
            (nn.LazyLinear(3, bias=False), torch.nn.LazyLinear(3, bias=False), (2, 7))):
        assert repr(ours) == repr(theirs)
        assert [n for n, _ in ours.named_parameters()] == \
            [n for n, _ in theirs.named_parameters()]
        ours(tinyffn.randn(*shape))
        theirs(torch.randn(*shape))
        assert repr(ours) == repr(theirs)
        assert {k: tuple(v.shape) for k, v in ours.state_dict().items()} == \
            {k: tuple(v.shape) for k, v in theirs.state_dict().items()}


def test_sizes_read_from_the_last_axis_a_grouped_weight_and_buffers():
    """(A mutation audit found each unchecked.) LazyLinear reads the last axis of a 3-D
    input; a grouped convolution's saved weight (out, in/groups, k) gives in_channels =
    its axis 1 times groups; a norm with only buffers (affine=False) is lazy until built."""
    layer = nn.LazyLinear(4, dtype="float64")
    assert layer(tinyffn.zeros(2, 3, 5, dtype="float64")).shape == (2, 3, 4)
    assert layer.in_features == 5 and layer.weight.shape == (4, 5)
    conv = nn.LazyConv1d(6, 2, groups=2)
    conv.load_state_dict(nn.Conv1d(4, 6, 2, groups=2).state_dict())
    assert conv.in_channels == 4 and conv.weight.shape == (6, 2, 2)
    norm = nn.LazyBatchNorm1d(affine=False)
    assert not list(norm.parameters()) and norm.has_uninitialized_params()
    norm(tinyffn.zeros(2, 3))
    assert type(norm) is nn.BatchNorm1d and norm.running_mean.shape == (3,)
