"""PyTorch idioms that ported programs write and tinyffn once answered with Python's own
errors: the short dtype names (``tinyffn.long``), a tensor as an index (``d[i:i + 8]``),
``load_state_dict``'s named result, ``Parameter(t, requires_grad=False)`` and ``p.data =
t``, ``x.to(device, non_blocking=True)`` and ``x.pin_memory()``, ``device("cuda", 0)``,
``F.softmax(x, -1, dtype=...)``, ``tinyffn.cuda``'s seeds and ``synchronize``, ``x.clip``
and the in-place forms (``x.clamp_``), ``grad(outputs=...)`` and ``backward(inputs=...)``,
``where(c)`` and ``nonzero``, ``set_float32_matmul_precision``. Each against PyTorch
2.13's values written out, and live where torch is installed.
"""
import operator

import numpy as np
import pytest

import tinyffn
from tinyffn import nn
import tinyffn.functional as F


# ----------------------------------------------------------------------------- dtype names
SHORT_DTYPES = {"long": "int64", "float": "float32", "double": "float64", "half": "float16",
                "int": "int32", "short": "int16"}       # str(torch.long) is "torch.int64", ...


def test_the_short_dtype_names_are_pytorchs():
    for short, full in SHORT_DTYPES.items():
        assert getattr(tinyffn, short) == np.dtype(full) == getattr(tinyffn, full)


def test_the_short_dtype_names_match_torch_live():
    torch = pytest.importorskip("torch")
    for short, full in SHORT_DTYPES.items():
        assert str(getattr(torch, short)) == f"torch.{full}"


def test_every_dtype_argument_takes_the_short_names(device):
    assert tinyffn.tensor([1.5, 2.0], dtype=tinyffn.long, device=device).tolist() == [1, 2]
    assert tinyffn.zeros(2, dtype=tinyffn.double, device=device).numpy().dtype == np.float64
    assert tinyffn.ones(2, device=device).to(tinyffn.long).numpy().dtype == np.int64
    assert tinyffn.ones(2, device=device).to(dtype=tinyffn.int).numpy().dtype == np.int32
    i = tinyffn.randint(0, 5, (3,), dtype=tinyffn.long, device=device)
    assert i.numpy().dtype == np.int64 and i.shape == (3,)
    assert tinyffn.arange(3, dtype=tinyffn.short, device=device).numpy().dtype == np.int16
    assert tinyffn.randn(2, dtype=tinyffn.float, device=device).numpy().dtype == np.float32
    if device != "strict":                       # the array API standard has no float16
        assert tinyffn.ones(2, device=device).half().dtype == tinyffn.half


def test_the_short_names_stay_out_of_import_star():
    namespace = {}
    exec("from tinyffn import *\nfound = float('1.5'), int('2')", namespace)
    assert namespace["found"] == (1.5, 2)        # Python's float and int stay
    assert not {"long", "float", "double", "half", "int", "short"} & set(tinyffn.__all__)


# ----------------------------------------------------------------------------- a tensor as an index
def test_a_one_element_integer_tensor_is_an_index_as_in_pytorch(device):
    """torch 2.13: operator.index(tensor(3)) == 3, of tensor([2]) 2, of tensor(True) 1;
    [10, 20, 30][tensor(1)] == 20; list(range(tensor(3))) == [0, 1, 2]."""
    t = lambda v: tinyffn.tensor(v, device=device)      # noqa: E731
    assert operator.index(t(3)) == 3 and operator.index(t([2])) == 2
    assert operator.index(t(True)) == 1                  # a bool is an int, in Python too
    assert [10, 20, 30][t(1)] == 20 and list(range(t(3))) == [0, 1, 2]
    assert operator.index(tinyffn.tensor(7, dtype="int32", device=device)) == 7


def test_a_float_or_longer_tensor_is_no_index_as_in_pytorch(device):
    """torch's TypeError: "only integer tensors of a single element can be converted to
    an index"; tinyffn's starts with the same words and says what to write."""
    with pytest.raises(TypeError, match=r"^only integer tensors of a single element can be "
                                        r"converted to an index .* float32 of shape \(\): "
                                        r"cast it, t.long\(\)"):
        operator.index(tinyffn.tensor(1.0, device=device))
    with pytest.raises(TypeError, match=r"int64 of shape \(2,\): pick one element first"):
        [10, 20][tinyffn.tensor([0, 1], device=device)]


def test_a_one_element_tensor_is_a_size_and_a_0d_one_an_arange_bound(device):
    """torch 2.13: zeros(tensor(2)), ones(2, tensor(3)), x.view(tensor(2), -1) take the
    tensor as an int, and arange(tensor(3)) is [0, 1, 2], arange(tensor(2.5)) [0., 1., 2.]
    (a padding mask: arange(lengths.max()) < lengths[:, None]); both raised TypeError here.
    A float size and a 1-D arange bound are refused, as there."""
    t = lambda v: tinyffn.tensor(v, device=device)      # noqa: E731
    assert tinyffn.zeros(t(2)).shape == (2,) and tinyffn.ones(2, t([3])).shape == (2, 3)
    assert tinyffn.arange(6.0).view(t(2), -1).shape == (2, 3)
    lengths = t([1, 3])
    mask = tinyffn.arange(lengths.max(), device=device)[None] < lengths[:, None]
    assert mask.tolist() == [[True, False, False], [True, True, True]]
    assert tinyffn.arange(t(2.5)).tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(TypeError, match="only integer tensors of a single element"):
        tinyffn.zeros(t(2.0))
    with pytest.raises(TypeError, match=r"arange: end must be a finite number, got tensor"):
        tinyffn.arange(t([3]))


def test_slicing_with_tensor_bounds_is_nanogpts_batch(device):
    """nanoGPT: ix = randint(len(data) - block, (batch,)); stack([data[i:i + block] for i
    in ix]). The rows are data's slices at the drawn offsets, into the graph."""
    data = tinyffn.arange(20.0, device=device, requires_grad=True)
    ix = tinyffn.randint(0, 20 - 4, (3,), device=device)
    x = tinyffn.stack([data[i:i + 4] for i in ix])
    expected = [[float(v) for v in range(i, i + 4)] for i in ix.tolist()]
    assert x.tolist() == expected
    x.sum().backward()
    counts = np.zeros(20)
    for i in ix.tolist():
        counts[i:i + 4] += 1
    assert data.grad.tolist() == counts.tolist()
    assert data[tinyffn.tensor(2, device=device):tinyffn.tensor(5, device=device)].tolist() \
        == [2.0, 3.0, 4.0]                   # torch: x[tensor(2):tensor(5)] is [2., 3., 4.]


def test_a_float_slice_bound_is_refused_naming_getitem(device):
    x = tinyffn.arange(5.0, device=device)
    for bound in (1.5, tinyffn.tensor(1.0)):
        with pytest.raises(TypeError, match=r"^getitem: a slice's start, stop and step must be "
                                            r"integers \(or one-element integer tensors\)"):
            x[bound:]


def test_a_0d_tensor_key_is_still_getitem_with_a_gradient(device):
    """x[t] for a 0-d integer tensor t: an integer index, the op getitem (as PyTorch's
    x[tensor(2)], 0-d); the gradient lands on entry 2."""
    x = tinyffn.arange(5.0, device=device, requires_grad=True)
    y = x[tinyffn.tensor(2, device=device)]
    assert y.shape == () and y.item() == 2.0 and y.grad_fn.name == "getitem"
    y.backward()
    assert x.grad.tolist() == [0.0, 0.0, 1.0, 0.0, 0.0]


def test_tensor_indices_match_torch_live():
    torch = pytest.importorskip("torch")
    for v in (3, [2], True):
        assert operator.index(tinyffn.tensor(v)) == operator.index(torch.tensor(v))
    for v in (1.0, [0, 1]):
        for lib in (torch, tinyffn):
            with pytest.raises(TypeError, match="only integer tensors of a single element"):
                operator.index(lib.tensor(v))
    d, td = tinyffn.arange(10.0), torch.arange(10.0)
    i, ti = tinyffn.tensor(3), torch.tensor(3)
    assert d[i:i + 4].tolist() == td[ti:ti + 4].tolist()
    assert d[i].tolist() == td[ti].tolist()


# ----------------------------------------------------------------------------- load_state_dict's result
def test_load_state_dict_names_the_keys_as_pytorch():
    """torch 2.13, Linear(2, 2) loading {"weight": ..., "x": ...} with strict=False:
    _IncompatibleKeys(missing_keys=['bias'], unexpected_keys=['x']); a full match shows
    as <All keys matched successfully> and equals ([], [])."""
    lin = nn.Linear(2, 2)
    result = lin.load_state_dict({"weight": tinyffn.zeros(2, 2), "x": tinyffn.zeros(1)},
                                 strict=False)
    assert result.missing_keys == ["bias"] and result.unexpected_keys == ["x"]
    missing, unexpected = result
    assert (missing, unexpected) == (["bias"], ["x"]) and result == (["bias"], ["x"])
    assert repr(result) == "IncompatibleKeys(missing_keys=['bias'], unexpected_keys=['x'])"
    assert lin.weight.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    full = lin.load_state_dict(lin.state_dict())
    assert repr(full) == "<All keys matched successfully>" and full == ([], [])


def test_load_state_dict_result_matches_torch_live():
    torch = pytest.importorskip("torch")
    ours = nn.Linear(2, 2).load_state_dict({"weight": tinyffn.zeros(2, 2), "x": 0}, strict=False)
    theirs = torch.nn.Linear(2, 2).load_state_dict(
        {"weight": torch.zeros(2, 2), "x": torch.zeros(1)}, strict=False)
    assert (ours.missing_keys, ours.unexpected_keys) == (theirs.missing_keys,
                                                         theirs.unexpected_keys)
    assert tuple(ours) == tuple(theirs)
    full = torch.nn.Linear(2, 2)
    assert repr(full.load_state_dict(full.state_dict())) == \
        repr(nn.Linear(2, 2).load_state_dict(nn.Linear(2, 2).state_dict()))


# ----------------------------------------------------------------------------- Parameter
def test_a_parameter_made_with_requires_grad_false_is_frozen_as_in_pytorch(device):
    """torch 2.13: Parameter(zeros(2), requires_grad=False) has requires_grad False, is a
    leaf, is listed by parameters(); an optimizer leaves it alone (it gets no .grad)."""
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.frozen = nn.Parameter(tinyffn.ones(2, device=device), requires_grad=False)
            self.w = nn.Parameter(tinyffn.ones(2, device=device))

    model = Model()
    assert not model.frozen.requires_grad and model.frozen.is_leaf and model.w.requires_grad
    assert [name for name, _ in model.named_parameters()] == ["frozen", "w"]
    opt = tinyffn.optim.SGD(model.parameters(), lr=0.5)
    (model.frozen * model.w).sum().backward()
    opt.step()
    assert model.frozen.grad is None and model.frozen.tolist() == [1.0, 1.0]
    assert model.w.tolist() == [0.5, 0.5]
    counts = nn.Parameter(tinyffn.tensor([1, 2], device=device), requires_grad=False)
    assert counts.tolist() == [1, 2]            # an integer one, as PyTorch allows
    with pytest.raises(TypeError, match="only floating-point tensors can require gradients"):
        nn.Parameter(tinyffn.tensor([1, 2], device=device))


def test_a_frozen_parameter_matches_torch_live():
    torch = pytest.importorskip("torch")
    ours = nn.Parameter(tinyffn.zeros(2), requires_grad=False)
    theirs = torch.nn.Parameter(torch.zeros(2), requires_grad=False)
    assert (ours.requires_grad, ours.is_leaf) == (theirs.requires_grad, theirs.is_leaf)
    assert repr(ours).split("\n")[0] == repr(theirs).split("\n")[0] == "Parameter containing:"


def test_p_data_set_to_a_tensor_takes_its_values_dtype_and_device(device):
    """torch 2.13: p = Parameter(ones(3)); p.data = zeros(3, dtype=float64) makes p float64,
    still a leaf Parameter that requires grad; q.data = t * 2 (t requires grad) gives q
    t * 2's values and no grad_fn; a graph built before keeps the old values (q * 3 then
    q.data = full(3, 5.): q.grad is [3, 3, 3])."""
    lin = nn.Linear(2, 2)
    p = lin.weight
    p.data = tinyffn.ones(2, 2, device=device).double()
    assert p.numpy().dtype == np.float64 and p.device == device and p.requires_grad and p.is_leaf
    assert isinstance(p, nn.Parameter) and next(lin.parameters()) is p
    lin.bias.data = tinyffn.zeros(2, device=device).double()
    y = lin(tinyffn.tensor([[1.0, 2.0]], dtype=tinyffn.double, device=device))
    assert y.tolist() == [[3.0, 3.0]]
    t = tinyffn.zeros(3, requires_grad=True, device=device)
    q = nn.Parameter(tinyffn.ones(3, device=device))
    q.data = t * 2 + 1
    assert q.grad_fn is None and q.requires_grad and q.tolist() == [1.0, 1.0, 1.0]
    out = q * 3
    q.data = tinyffn.full((3,), 5.0, device=device)
    out.sum().backward()
    assert q.grad.tolist() == [3.0, 3.0, 3.0] and q.tolist() == [5.0, 5.0, 5.0]


def test_p_data_set_to_a_tensor_elsewhere_moves_the_parameter():
    p = nn.Parameter(tinyffn.ones(2))
    p.data = tinyffn.tensor([1.0, 2.0], device="strict")
    assert p.device == "strict" and p.backend is tinyffn.ones(1, device="strict").backend
    (p * p).sum().backward()
    assert p.grad.device == "strict" and p.grad.tolist() == [2.0, 4.0]


def test_p_data_set_to_an_array_still_stores_it():
    p = nn.Parameter(tinyffn.zeros(2))
    p.data = np.array([1.0, 2.0], dtype=np.float32)
    assert p.tolist() == [1.0, 2.0] and isinstance(p.data, np.ndarray)


def test_p_data_refuses_what_would_break_its_gradient():
    """PyTorch refuses integer data for a parameter that requires grad (RuntimeError "data
    set to a tensor that requires gradients must be floating point"); a .grad that no
    longer fits would fail its next backward (another shape) or mix dtypes: refused here."""
    p = nn.Parameter(tinyffn.ones(3))
    with pytest.raises(TypeError, match=r"^p.data = t: p requires grad, so its data must be "
                                        r"floating point, and t is int64; cast it first"):
        p.data = tinyffn.tensor([1, 2, 3])
    frozen = nn.Parameter(tinyffn.ones(3), requires_grad=False)
    frozen.data = tinyffn.tensor([1, 2, 3])
    assert frozen.tolist() == [1, 2, 3]
    (p * 2).sum().backward()
    for new in (tinyffn.zeros(2), tinyffn.zeros(3).double()):
        with pytest.raises(RuntimeError, match=r"p.grad is a float32 gradient of shape \(3,\) "
                                               r"on cpu, which would not fit t.*p.grad = None"):
            p.data = new
    assert p.tolist() == [1.0, 1.0, 1.0]                  # unchanged
    p.grad = None
    p.data = tinyffn.zeros(2)
    assert p.shape == (2,)


def test_p_data_matches_torch_live():
    torch = pytest.importorskip("torch")
    ours, theirs = nn.Parameter(tinyffn.ones(3)), torch.nn.Parameter(torch.ones(3))
    ours.data = tinyffn.tensor([1.0, 2.0, 3.0]).double()
    theirs.data = torch.tensor([1.0, 2.0, 3.0]).double()
    assert str(theirs.dtype) == f"torch.{ours.dtype}" and ours.tolist() == theirs.tolist()
    (ours * ours).sum().backward()
    (theirs * theirs).sum().backward()
    assert ours.grad.tolist() == theirs.grad.tolist() == [2.0, 4.0, 6.0]
    with pytest.raises(RuntimeError, match="must be floating point"):
        theirs.data = torch.tensor([1, 2, 3])


# ----------------------------------------------------------------------------- to(non_blocking=, copy=)
def test_to_takes_non_blocking_and_copy_as_pytorch(device):
    """torch 2.13: x.to('cpu', non_blocking=True) is x; x.to('cpu', torch.float64, True)
    is float64; x.to('cpu', copy=True) is a new tensor; x.to(torch.float32, copy=True) too;
    x.to(x, non_blocking=True) is x."""
    x = tinyffn.arange(4.0, device=device, requires_grad=True)
    assert x.to(device, non_blocking=True) is x and x.to(x, non_blocking=True) is x
    y = x.to(device, tinyffn.double, True)                       # non_blocking by position
    assert y.numpy().dtype == np.float64 and y.tolist() == x.tolist()
    assert x.to(tinyffn.double, non_blocking=True, copy=True).numpy().dtype == np.float64
    c = x.to(device, copy=True)
    assert c is not x and c.tolist() == x.tolist() and c.grad_fn.name == "clone"
    assert x.to(dtype=tinyffn.float32, copy=True) is not x
    assert x.to(device, None, False, False) is x
    (c * 2).sum().backward()                 # a copy in the graph, as PyTorch's ToCopyBackward
    assert x.grad.tolist() == [2.0] * 4


def test_to_refuses_a_bool_in_the_dtypes_place_with_the_keyword_to_write(device):
    """PyTorch reads x.to(torch.float64, True) as non_blocking=True; tinyffn's dtype
    parameter is there, so the bool is refused, naming the keywords."""
    x = tinyffn.ones(2, device=device)
    with pytest.raises(TypeError, match=r"^to: got True for dtype; after a dtype or a tensor, "
                                        r"PyTorch reads it as non_blocking.*non_blocking=True"):
        x.to(tinyffn.double, True)
    with pytest.raises(TypeError, match="pass them by name"):
        nn.Linear(2, 2).to(tinyffn.double, False)


def test_module_to_takes_non_blocking_as_pytorch(device):
    model = nn.Linear(2, 3)
    assert model.to(device, non_blocking=True) is model and model.weight.device == device
    model.to(device, tinyffn.double, True)
    assert model.weight.numpy().dtype == np.float64
    model.to(dtype=tinyffn.float, non_blocking=False)
    assert model.bias.numpy().dtype == np.float32


def test_to_with_non_blocking_and_copy_matches_torch_live():
    torch = pytest.importorskip("torch")
    x, tx = tinyffn.arange(3.0), torch.arange(3.0)
    for kwargs in ({"non_blocking": True}, {"copy": True}, {"copy": False}):
        assert (x.to("cpu", **kwargs) is x) == (tx.to("cpu", **kwargs) is tx)
    assert str(tx.to("cpu", torch.float64, True).dtype) == \
        f"torch.{x.to('cpu', tinyffn.float64, True).dtype}"
    lin = torch.nn.Linear(2, 2)
    assert lin.to("cpu", non_blocking=True) is lin


def test_pin_memory_is_nanogpts_batch_line_and_refused_on_the_gpu(device):
    """nanoGPT's get_batch: x.pin_memory().to(device, non_blocking=True) on a CPU batch is
    that batch on the device, the same values; PyTorch refuses to pin a GPU tensor
    ("only dense CPU tensors can be pinned"), and so does tinyffn, saying what to do."""
    x = tinyffn.arange(6).reshape(2, 3)
    assert x.pin_memory() is x and x.is_pinned() is False
    y = x.pin_memory().to(device, non_blocking=True)
    assert y.device == device and y.tolist() == [[0, 1, 2], [3, 4, 5]]
    if device == "cuda":
        with pytest.raises(RuntimeError, match=r"^pin_memory: the tensor is on cuda; only CPU "
                                                r"tensors can be pinned.*before \.to\('cuda'\)"):
            y.pin_memory()
    else:
        assert y.pin_memory() is y and y.is_pinned() is False


def test_is_pinned_matches_torch_live():
    """torch 2.13 on a CPU tensor: is_pinned() is False (pin_memory() needs a GPU there)."""
    torch = pytest.importorskip("torch")
    assert tinyffn.ones(2).is_pinned() == torch.ones(2).is_pinned()


# ----------------------------------------------------------------------------- device(type, index)
def test_device_takes_an_index_of_0_as_torch_device():
    """torch 2.13: device('cuda', 0) is cuda:0 (type 'cuda', index 0), device('cuda', None)
    is cuda, device(type='cuda', index=0) too; device('cuda:0', 0) raises RuntimeError
    ("type (string) must not include an index because index was passed explicitly"),
    device('cuda', -1) RuntimeError, device('cuda', True) and ('cuda', 0.0) TypeError."""
    for made in (tinyffn.device("cuda", 0), tinyffn.device("cuda", None),
                 tinyffn.device(type="cuda", index=0), tinyffn.device("cuda", np.int64(0))):
        assert made == "cuda" and (made.type, made.index) == ("cuda", 0)
    assert tinyffn.device("cpu", 0) == "cpu" and tinyffn.device("strict", None) == "strict"
    for index in (1, -1):
        with pytest.raises(tinyffn.DeviceError, match=rf"^device\('cuda', {index}\): tinyffn "
                                                      r"has one device of each type, index 0"):
            tinyffn.device("cuda", index)
    with pytest.raises(tinyffn.DeviceError, match=r"the type names an index already"):
        tinyffn.device("cuda:0", 0)
    for index in (True, 0.0, "0"):
        with pytest.raises(TypeError, match=r"^device: index must be an int"):
            tinyffn.device("cuda", index)
    assert tinyffn.ones(2).to(tinyffn.device("cpu", 0)).device == "cpu"


def test_device_with_an_index_matches_torch_live():
    torch = pytest.importorskip("torch")
    for args in (("cuda", 0), ("cuda", None), ("cpu", None)):
        ours, theirs = tinyffn.device(*args), torch.device(*args)
        assert ours.type == theirs.type
    assert tinyffn.device("cuda", 0).index == torch.device("cuda", 0).index == 0
    for lib in (torch, tinyffn):
        with pytest.raises(RuntimeError):             # DeviceError is a RuntimeError
            lib.device("cuda:0", 0)
        with pytest.raises(TypeError):
            lib.device("cuda", True)


# ----------------------------------------------------------------------------- softmax(dtype=)
# torch 2.13, F.softmax / F.log_softmax(tensor([1., 2., 3.]), 0, dtype=torch.float64)
SOFTMAX_123 = [0.09003057317038045, 0.2447284710547976, 0.6652409557748218]
LOG_SOFTMAX_123 = [-2.4076059644443806, -1.4076059644443804, -0.4076059644443804]


@pytest.mark.parametrize("name, expected", [("softmax", SOFTMAX_123),
                                            ("log_softmax", LOG_SOFTMAX_123)])
def test_softmax_with_a_dtype_casts_first_as_pytorch(device, name, expected):
    x = tinyffn.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
    for y in (getattr(F, name)(x, -1, dtype=tinyffn.float64), getattr(F, name)(x, dim=0,
              dtype="float64"), getattr(x, name)(0, tinyffn.float64),
              getattr(tinyffn, name)(x, 0, dtype=tinyffn.float64)):
        assert y.numpy().dtype == np.float64
        np.testing.assert_allclose(y.numpy(), expected, rtol=1e-15)
    y.sum().backward()
    assert x.grad.numpy().dtype == np.float32        # through the recorded cast
    assert getattr(F, name)(x, -1).numpy().dtype == np.float32


def test_softmax_to_an_integer_dtype_is_refused_as_pytorch():
    """It once cast [0.5, 1.7] to [0, 1] and gave their softmax, [0.269, 0.731] (the
    answer is [0.2315, 0.7685]); torch 2.13 raises NotImplementedError for 'Long'."""
    for fn in (F.softmax, F.log_softmax, tinyffn.softmax):
        with pytest.raises(TypeError, match=r"softmax: dtype must be a float dtype, got "
                                            r"int64: the input is cast to it first"):
            fn(tinyffn.tensor([0.5, 1.7]), -1, dtype=tinyffn.long)


def test_relu_of_a_bool_tensor_is_refused_as_pytorch():
    """torch 2.13: "Boolean inputs not supported for relu"; NumPy gave int64 0s and 1s."""
    for call in (lambda m: m.relu(), tinyffn.relu, F.relu, lambda m: m.relu_()):
        with pytest.raises(TypeError, match=r"relu: a bool tensor is not supported"):
            call(tinyffn.tensor([True, False]))
    assert tinyffn.tensor([1, -2]).relu().tolist() == [1, 0]      # integers are fine


def test_softmax_with_a_dtype_is_gradchecked():
    x = tinyffn.tensor([[1.0, -2.0, 0.5], [0.0, 3.0, -1.0]], dtype="float64", requires_grad=True)
    for fn in (F.softmax, F.log_softmax):
        assert tinyffn.gradcheck(lambda t: fn(t, -1, dtype=tinyffn.float64) * t, [x])


def test_softmax_with_a_dtype_matches_torch_live():
    torch = pytest.importorskip("torch")
    logits = [[1.0, 2.0, 3.0], [0.0, -1.0, 5.0]]
    for name in ("softmax", "log_softmax"):
        ours = getattr(F, name)(tinyffn.tensor(logits).half(), -1, dtype=tinyffn.float32)
        theirs = getattr(torch.nn.functional, name)(torch.tensor(logits).half(), -1,
                                                    dtype=torch.float32)
        assert str(theirs.dtype) == f"torch.{ours.dtype}"
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(torch.nn.functional.softmax(torch.tensor([1.0, 2.0, 3.0]), 0,
                               dtype=torch.float64).numpy(), SOFTMAX_123, rtol=1e-15)


# ----------------------------------------------------------------------------- tinyffn.cuda
@pytest.mark.parametrize("seed_fn", [tinyffn.cuda.manual_seed, tinyffn.cuda.manual_seed_all])
def test_cuda_seeds_seed_the_one_generator_without_a_gpu_too(seed_fn, device):
    """torch 2.13: torch.cuda.manual_seed(0) and manual_seed_all(0) run without CUDA."""
    seed_fn(7)
    first = tinyffn.randn(3, device=device).tolist()
    tinyffn.manual_seed(7)
    assert tinyffn.randn(3, device=device).tolist() == first
    seed_fn(8)
    assert tinyffn.randn(3, device=device).tolist() != first


@pytest.mark.skipif(tinyffn.cuda_available(), reason="checks the error without a usable GPU")
def test_synchronize_without_a_gpu_raises_the_device_error_that_says_why():
    """torch 2.13 without CUDA: torch.cuda.synchronize() raises ("Torch not compiled with
    CUDA enabled"); tinyffn's is the DeviceError of device 'cuda'."""
    with pytest.raises(tinyffn.DeviceError) as raised:
        tinyffn.cuda.synchronize()
    with pytest.raises(tinyffn.DeviceError) as also:
        tinyffn.ones(1, device="cuda")
    assert str(raised.value) == str(also.value)


def test_synchronize_refuses_a_device_that_is_not_the_gpu():
    for device in ("cpu", "strict"):
        with pytest.raises(ValueError, match=r"^synchronize: waits for the GPU; device must be "
                                             r"None, 0, 'cuda' or 'cuda:0'"):
            tinyffn.cuda.synchronize(device)
    with pytest.raises(tinyffn.DeviceError, match="tinyffn uses one GPU"):
        tinyffn.cuda.synchronize(1)


@pytest.mark.cuda
@pytest.mark.skipif(not tinyffn.cuda_available(), reason="CuPy with a usable GPU is not available")
def test_synchronize_waits_for_the_gpu():
    x = tinyffn.randn(512, 512, device="cuda")
    y = x @ x
    for device in (None, 0, "cuda", "cuda:0"):
        assert tinyffn.cuda.synchronize(device) is None
    assert y.shape == (512, 512) and tinyffn.cuda.is_available()


def test_every_backend_has_a_synchronize():
    for device in ("cpu", "strict"):
        assert tinyffn.ones(1, device=device).backend.synchronize() is None


def test_cuda_names_match_torch_live():
    torch = pytest.importorskip("torch")
    for name in ("is_available", "manual_seed", "manual_seed_all", "synchronize"):
        assert callable(getattr(torch.cuda, name)) and callable(getattr(tinyffn.cuda, name))
    torch.cuda.manual_seed(0)                    # both run without a GPU
    torch.cuda.manual_seed_all(0)
    tinyffn.cuda.manual_seed(0)
    tinyffn.cuda.manual_seed_all(0)
    if not torch.cuda.is_available() and not tinyffn.cuda_available():
        with pytest.raises((AssertionError, RuntimeError)):     # torch's: AssertionError
            torch.cuda.synchronize()
        with pytest.raises(RuntimeError):                        # DeviceError
            tinyffn.cuda.synchronize()
    assert not hasattr(tinyffn.cuda, "device_count")            # left out on purpose


# ----------------------------------------------------------------------------- clip, in-place forms
def test_clip_is_clamp_as_in_pytorch(device):
    """torch 2.13: tensor([-2., 0.5, 3.]).clip(0, 1) is [0., 0.5, 1.], .clip(min=0) [0., 0.5, 3.]."""
    x = tinyffn.tensor([-2.0, 0.5, 3.0], device=device)
    assert x.clip(0, 1).tolist() == [0.0, 0.5, 1.0] and x.clip(min=0).tolist() == [0.0, 0.5, 3.0]
    assert x.clip(max=tinyffn.tensor(0.0, device=device)).tolist() == [-2.0, 0.0, 0.0]
    w = tinyffn.tensor([-1.0, 0.5, 2.0], dtype="float64", requires_grad=True)
    assert tinyffn.gradcheck(lambda t: t.clip(-0.5, 1.0) * t, [w])


# torch 2.13, tensor([-2.0, 0.25, 3.0]) (float32) after x.<name>(*args); each returns x
IN_PLACE_FLOAT = {
    ("clamp_", (0.0, 1.0)): [0.0, 0.25, 1.0],
    ("clip_", (None, 1.0)): [-2.0, 0.25, 1.0],
    ("relu_", ()): [0.0, 0.25, 3.0],
    ("exp_", ()): [0.1353352814912796, 1.2840254306793213, 20.08553695678711],
    ("log_", ()): [np.nan, -1.3862943649291992, 1.0986123085021973],
    ("tanh_", ()): [-0.9640275835990906, 0.24491865932941437, 0.9950547814369202],
    ("sigmoid_", ()): [0.11920291930437088, 0.562176525592804, 0.9525741338729858],
    ("erf_", ()): [-0.9953222870826721, 0.27632638812065125, 0.9999778866767883],
    ("sqrt_", ()): [np.nan, 0.5, 1.7320507764816284],
    ("rsqrt_", ()): [np.nan, 2.0, 0.5773502588272095],
    ("abs_", ()): [2.0, 0.25, 3.0],
    ("neg_", ()): [2.0, -0.25, -3.0],
    ("negative_", ()): [2.0, -0.25, -3.0],
    ("square_", ()): [4.0, 0.0625, 9.0],
    ("reciprocal_", ()): [-0.5, 4.0, 0.3333333432674408],
    ("pow_", (2,)): [4.0, 0.0625, 9.0],
    ("pow_", (0.5,)): [np.nan, 0.5, 1.7320507764816284],
    ("sin_", ()): [-0.9092974066734314, 0.24740396440029144, 0.14112000167369843],
    ("cos_", ()): [-0.416146844625473, 0.9689124226570129, -0.9899924993515015],
    ("log1p_", ()): [np.nan, 0.2231435477733612, 1.3862943649291992],
    ("floor_divide_", (0.75,)): [-3.0, 0.0, 4.0],
    ("remainder_", (0.75,)): [0.25, 0.25, 0.0],
    ("fmod_", (0.75,)): [-0.5, 0.25, 0.0],
    ("floor_divide_", (2,)): [-1.0, 0.0, 1.0],
    ("remainder_", (2,)): [-0.0, 0.25, 1.0],
    ("fmod_", (2,)): [-0.0, 0.25, 1.0],
}
# torch 2.13, tensor([-3, 0, 2]) (int64): these keep int64; the rest of the table raise
# RuntimeError "result type Float can't be cast to the desired output type Long"
IN_PLACE_INT = {("relu_", ()): [0, 0, 2], ("abs_", ()): [3, 0, 2], ("neg_", ()): [3, 0, -2],
                ("negative_", ()): [3, 0, -2], ("square_", ()): [9, 0, 4],
                ("pow_", (2,)): [9, 0, 4], ("floor_divide_", (2,)): [-2, 0, 1],
                ("remainder_", (2,)): [1, 0, 0], ("fmod_", (2,)): [-1, 0, 0]}


@pytest.mark.filterwarnings("ignore:(invalid value|divide by zero):RuntimeWarning")  # log(-2)
@pytest.mark.parametrize("name, args", IN_PLACE_FLOAT, ids=[f"{n}{a}" for n, a in IN_PLACE_FLOAT])
def test_the_in_place_forms_give_pytorchs_values_in_x_itself(device, name, args):
    x = tinyffn.tensor([-2.0, 0.25, 3.0], device=device)
    before = x.detach()
    assert getattr(x, name)(*args) is x
    np.testing.assert_allclose(x.numpy(), IN_PLACE_FLOAT[name, args], rtol=2e-7)
    assert x.numpy().dtype == np.float32 and before.tolist() == [-2.0, 0.25, 3.0]
    i = tinyffn.tensor([-3, 0, 2], device=device)
    if (name, args) in IN_PLACE_INT:
        assert getattr(i, name)(*args) is i and i.tolist() == IN_PLACE_INT[name, args]
        assert i.numpy().dtype == np.int64
    elif name not in ("clamp_", "clip_"):       # an integer x with float bounds: below
        with pytest.raises(RuntimeError, match=rf"^{name}: x\.{name[:-1]}\(\.\.\.\) has shape "
                                               r"\(3,\) and dtype float32, but x has shape "
                                               r"\(3,\) and dtype int64; in place"):
            getattr(i, name)(*args)
        assert i.tolist() == [-3, 0, 2]


def test_the_in_place_forms_keep_x_dtype_and_refuse_a_higher_kind(device):
    """torch 2.13: a float16 x.exp_() stays float16 ([0.1353759765625, 1.2841796875,
    20.078125]); an int64 x.clamp_(0.0, 1.0) raises (a float result)."""
    if device != "strict":
        h = tinyffn.tensor([-2.0, 0.25, 3.0], device=device).half()
        h.exp_()
        assert h.dtype == tinyffn.half and h.tolist() == [0.1353759765625, 1.2841796875, 20.078125]
    i = tinyffn.tensor([-3, 0, 2], device=device)
    with pytest.raises(RuntimeError, match=r"^clamp_: .* dtype float32, but x has .* int64"):
        i.clamp_(0.0, 1.0)
    i.clamp_(tinyffn.tensor([0, 0, 0], device=device), tinyffn.tensor([1, 1, 1], device=device))
    assert i.tolist() == [0, 0, 1]                        # torch: tensor([0, 0, 1])
    x = tinyffn.tensor([1.0, 2.0, 3.0], device=device)
    with pytest.raises(RuntimeError, match=r"^clamp_: x.clamp\(\.\.\.\) has shape \(2, 3\)"):
        x.clamp_(min=tinyffn.zeros(2, 3, device=device))   # torch: "doesn't match the broadcast"


def test_masked_fill_tril_and_triu_in_place_as_pytorch(device):
    """torch 2.13: masked_fill_(x > 0, 7.) of [-2., 0.25, 3.] is [-2., 7., 7.]; of
    [[1., 2.], [3., 4.]], tril_() [[1, 0], [3, 4]], triu_(1) [[0, 2], [0, 0]], tril_(-1)
    [[0, 0], [3, 0]]."""
    x = tinyffn.tensor([-2.0, 0.25, 3.0], device=device)
    assert x.masked_fill_(x > 0, 7.0) is x and x.tolist() == [-2.0, 7.0, 7.0]
    for name, args, expected in [("tril_", (), [[1.0, 0.0], [3.0, 4.0]]),
                                 ("triu_", (1,), [[0.0, 2.0], [0.0, 0.0]]),
                                 ("tril_", (-1,), [[0.0, 0.0], [3.0, 0.0]])]:
        m = tinyffn.tensor([[1.0, 2.0], [3.0, 4.0]], device=device)
        assert getattr(m, name)(*args) is m and m.tolist() == expected


def test_the_in_place_forms_follow_the_rules_of_x_minus_equals_y(device):
    """Refused where a gradient is needed (naming the form to write) and on a view;
    allowed inside no_grad(); a graph built before keeps the old values."""
    w = tinyffn.tensor([-1.0, 0.5, 2.0], device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^relu_: x requires grad, and tinyffn does not "
                                           r"record in-place ops.*write x = x\.relu\(\.\.\.\)"):
        w.relu_()
    h = w * 2
    with pytest.raises(RuntimeError, match=r"^clamp_: x requires grad"):
        h.clamp_(0)                  # PyTorch records it in the graph; tinyffn has no such op
    bound = tinyffn.tensor(0.0, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^clamp_: x or y requires grad"):
        tinyffn.zeros(3, device=device).clamp_(bound)
    y = w * w
    with tinyffn.no_grad():
        assert w.clamp_(0, 1) is w
    assert w.tolist() == [0.0, 0.5, 1.0] and w.requires_grad and w.is_leaf
    y.sum().backward()
    assert w.grad.tolist() == [-2.0, 1.0, 4.0]        # at the old values, saved by the graph
    base = tinyffn.tensor([[-1.0, 2.0]], device=device)
    with pytest.raises(RuntimeError, match=r"^exp_: x was made from another tensor by x\[key\]"):
        base[0].exp_()
    row = base[0].clone()
    row.exp_()                                         # a tensor of its own
    assert base.tolist() == [[-1.0, 2.0]]


@pytest.mark.filterwarnings("ignore:(invalid value|divide by zero):RuntimeWarning")
def test_the_in_place_forms_match_torch_live():
    torch = pytest.importorskip("torch")
    for (name, args), expected in IN_PLACE_FLOAT.items():
        t = torch.tensor([-2.0, 0.25, 3.0])
        assert getattr(t, name)(*args) is t
        np.testing.assert_allclose(t.numpy(), expected, rtol=1e-7)
        ours = tinyffn.tensor([-2.0, 0.25, 3.0])
        getattr(ours, name)(*args)
        np.testing.assert_allclose(ours.numpy(), t.numpy(), rtol=2e-7)
        ti, i = torch.tensor([-3, 0, 2]), tinyffn.tensor([-3, 0, 2])
        try:
            getattr(ti, name)(*args)
        except RuntimeError:
            with pytest.raises(RuntimeError, match="in place, x cannot change either"):
                getattr(i, name)(*args)
        else:
            assert getattr(i, name)(*args).tolist() == ti.tolist()
    t, ours = torch.tensor([-2.0, 0.5, 3.0]), tinyffn.tensor([-2.0, 0.5, 3.0])
    assert ours.clip(0, 1).tolist() == t.clip(0, 1).tolist()
    assert ours.masked_fill_(ours > 0, 7.0).tolist() == t.masked_fill_(t > 0, 7.0).tolist()


# ----------------------------------------------------------------------------- grad(outputs=), backward(inputs=)
def test_grad_takes_pytorchs_argument_names(device):
    """torch 2.13: autograd.grad(outputs=(x * x).sum(), inputs=[x]) at x = [1., 2.] is
    (tensor([2., 4.]),)."""
    x = tinyffn.tensor([1.0, 2.0], device=device, requires_grad=True)
    for grad in (tinyffn.grad, tinyffn.autograd.grad):
        (g,) = grad(outputs=(x * x).sum(), inputs=[x])
        assert g.tolist() == [2.0, 4.0]
    (g,) = tinyffn.grad(outputs=[x * x], inputs=x, grad_outputs=[tinyffn.ones(2, device=device)])
    assert g.tolist() == [2.0, 4.0] and x.grad is None
    with pytest.raises(RuntimeError, match=r"^grad: inputs is empty"):   # torch: "grad
        tinyffn.grad((x * x).sum(), [])                                  # requires non-empty"


def test_backward_with_inputs_accumulates_only_into_them_as_pytorch(device):
    """torch 2.13, x = [1., 2.], w = [3., 4.], h = x * w: (h * h).sum().backward(inputs=[x])
    gives x.grad [18., 64.] and w.grad None; then, with a new h, backward(inputs=[h, w])
    gives h.grad [6., 16.], w.grad [6., 32.], x.grad still [18., 64.]; an input the loss
    does not use keeps .grad None; inputs=x (one tensor) adds [2., 2.] to x.grad."""
    x = tinyffn.tensor([1.0, 2.0], device=device, requires_grad=True)
    w = tinyffn.tensor([3.0, 4.0], device=device, requires_grad=True)
    unused = tinyffn.ones(2, device=device, requires_grad=True)
    h = x * w
    (h * h).sum().backward(inputs=[x])
    assert x.grad.tolist() == [18.0, 64.0] and w.grad is None
    h = x * w
    (h * h).sum().backward(inputs=[h, w, w])              # w twice: once, as in PyTorch
    assert h.grad.tolist() == [6.0, 16.0] and w.grad.tolist() == [6.0, 32.0]
    assert x.grad.tolist() == [18.0, 64.0]
    (x * 2).sum().backward(inputs=[unused])
    assert unused.grad is None
    (x * 2).sum().backward(inputs=x)
    assert x.grad.tolist() == [20.0, 66.0]


def test_grad_and_backward_with_inputs_run_only_the_nodes_below_the_inputs(device):
    """torch 2.13 runs only what leads to the inputs (found by review): a hook on a leaf
    not asked for is not called (calls []), a branch not asked for keeps its saved arrays
    (z.sum().backward() after (a * z).sum().backward(inputs=[a]) gives c.grad [6., 8.]),
    and grad(y, [h]) stops at h, leaving the modules and hooks below it alone."""
    a = tinyffn.tensor([1.0, 2.0], device=device, requires_grad=True)
    b = tinyffn.tensor([3.0, 4.0], device=device, requires_grad=True)
    calls = []
    a.register_hook(lambda g: calls.append("a"))
    (a * b).sum().backward(inputs=[b])
    tinyffn.grad((a * b).sum(), [b])
    assert calls == [] and a.grad is None and b.grad.tolist() == [1.0, 2.0]
    c = tinyffn.tensor([3.0, 4.0], device=device, requires_grad=True)
    z = c * c
    (a * z).sum().backward(inputs=[a])
    z.sum().backward()
    assert c.grad.tolist() == [6.0, 8.0] and calls == ["a"]
    layer = tinyffn.nn.Linear(2, 2, device=device)
    layer.register_full_backward_hook(lambda m, gi, go: calls.append("layer"))
    h = layer(a)
    (g,) = tinyffn.grad((h * h).sum(), [h])
    assert calls == ["a"] and g.tolist() == (2 * h).tolist()


def test_backward_with_inputs_refuses_what_pytorch_refuses(device):
    """torch 2.13: inputs=[] raises RuntimeError ("`inputs` argument to `backward()`
    cannot be empty"), and so does an input that does not require grad."""
    x = tinyffn.tensor([1.0, 2.0], device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^backward: inputs is empty"):
        (x * 2).sum().backward(inputs=[])
    with pytest.raises(RuntimeError, match=r"^backward: input 0 \(Tensor\) does not require "
                                           r"grad"):
        (x * 2).sum().backward(inputs=[tinyffn.ones(2, device=device)])
    with pytest.raises(RuntimeError, match=r"^backward: dL/d\(output\) is implied only"):
        (x * 2).backward(inputs=[x])                        # the error names backward
    assert x.grad is None


def test_autograd_gradcheck_is_tinyffns():
    assert tinyffn.autograd.gradcheck is tinyffn.gradcheck
    x = tinyffn.tensor([0.5, -1.0], dtype="float64", requires_grad=True)
    assert tinyffn.autograd.gradcheck(lambda t: (t * t).tanh(), [x])
    with pytest.raises(AttributeError, match="module 'tinyffn.autograd' has no attribute 'nope'"):
        tinyffn.autograd.nope


def test_grad_and_backward_with_inputs_match_torch_live():
    torch = pytest.importorskip("torch")
    values = ([1.0, 2.0], [3.0, 4.0])
    ours = [tinyffn.tensor(v, requires_grad=True) for v in values]
    theirs = [torch.tensor(v, requires_grad=True) for v in values]
    for (x, w), lib in ((ours, tinyffn), (theirs, torch)):
        h = x * w
        (h * h).sum().backward(inputs=[x])
        h = x * w
        (h * h).sum().backward(inputs=[h, w])
        assert h.grad.tolist() == [6.0, 16.0]
    assert [t.grad.tolist() for t in ours] == [t.grad.tolist() for t in theirs]
    (g,) = tinyffn.autograd.grad(outputs=(ours[0] ** 3).sum(), inputs=[ours[0]])
    (tg,) = torch.autograd.grad(outputs=(theirs[0] ** 3).sum(), inputs=[theirs[0]])
    assert g.tolist() == tg.tolist()
    assert callable(torch.autograd.gradcheck) and callable(tinyffn.autograd.gradcheck)


# ----------------------------------------------------------------------------- where(c), nonzero
NONZERO_X = [[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]]
NONZERO_ROWS = [[0, 1], [1, 0], [1, 2]]       # torch 2.13: torch.nonzero(tensor(NONZERO_X))


def test_nonzero_gives_pytorchs_indices(device):
    x = tinyffn.tensor(NONZERO_X, device=device)
    for rows in (tinyffn.nonzero(x), x.nonzero()):
        assert rows.tolist() == NONZERO_ROWS and rows.numpy().dtype == np.int64
    for pair in (tinyffn.nonzero(x, as_tuple=True), x.nonzero(as_tuple=True), tinyffn.where(x)):
        assert isinstance(pair, tuple) and [i.tolist() for i in pair] == [[0, 1, 1], [1, 0, 2]]
        assert all(i.numpy().dtype == np.int64 for i in pair)
    assert [i.tolist() for i in tinyffn.where(x > 0)] == [[0, 1], [1, 0]]   # torch: the same
    assert x[tinyffn.where(x > 0)].tolist() == [1.5, 2.0]


def test_nonzero_of_bools_nans_0d_and_empty_tensors_as_pytorch(device):
    """torch 2.13: nonzero([True, False, True]) is [[0], [2]]; of [nan, 0.] [[0]] (NaN is
    nonzero); of tensor(3.) shape (1, 0), of tensor(0.) (0, 0); as_tuple of tensor(3.)
    (tensor([0]),), where(tensor(2.)) too; nonzero of zeros(2, 0) has shape (0, 2) and
    where(zeros(2, 0)) is two empty int64 tensors."""
    t = lambda v: tinyffn.tensor(v, device=device)        # noqa: E731
    assert tinyffn.nonzero(t([True, False, True])).tolist() == [[0], [2]]
    assert tinyffn.nonzero(t([float("nan"), 0.0])).tolist() == [[0]]
    assert tinyffn.nonzero(t(3.0)).shape == (1, 0) and tinyffn.nonzero(t(0.0)).shape == (0, 0)
    assert [i.tolist() for i in tinyffn.nonzero(t(3.0), as_tuple=True)] == [[0]]
    assert [i.tolist() for i in tinyffn.where(t(2.0))] == [[0]]
    assert tinyffn.nonzero(tinyffn.zeros(2, 0, device=device)).shape == (0, 2)
    empty = tinyffn.where(tinyffn.zeros(2, 0, device=device))
    assert [i.shape for i in empty] == [(0,), (0,)] and empty[0].numpy().dtype == np.int64
    assert tinyffn.nonzero(t([1, 0, 3])).tolist() == [[0], [2]]


def test_where_takes_one_argument_or_three(device):
    c = tinyffn.tensor([True, False], device=device)
    x = tinyffn.tensor([1.0, 2.0], device=device, requires_grad=True)
    assert tinyffn.where(c, x, 0.0).tolist() == [1.0, 0.0]
    assert tinyffn.where(c, input=x, other=-x).tolist() == [1.0, -2.0]
    with pytest.raises(TypeError, match=r"^where: pass condition, input and other, or the "
                                        r"condition alone"):
        tinyffn.where(c, x)                              # torch: TypeError too
    y = tinyffn.nonzero(x)
    assert not y.requires_grad and y.grad_fn is None     # indices: outside any graph


def test_where_and_nonzero_match_torch_live():
    torch = pytest.importorskip("torch")
    for values in (NONZERO_X, [True, False, True], [float("nan"), 0.0], 3.0, 0.0, [[[1, 0]]]):
        ours, theirs = tinyffn.tensor(values), torch.tensor(values)
        assert tinyffn.nonzero(ours).tolist() == torch.nonzero(theirs).tolist()
        assert tinyffn.nonzero(ours).shape == tuple(torch.nonzero(theirs).shape)
        assert [i.tolist() for i in tinyffn.where(ours)] == [i.tolist() for i in torch.where(theirs)]
        assert [i.tolist() for i in ours.nonzero(as_tuple=True)] == \
            [i.tolist() for i in theirs.nonzero(as_tuple=True)]
    assert torch.nonzero(torch.tensor(NONZERO_X)).tolist() == NONZERO_ROWS


# ----------------------------------------------------------------------------- matmul precision
def test_float32_matmul_precision_is_recorded_and_changes_no_product(device):
    """torch.set_float32_matmul_precision("high"), build-nanogpt's first line: tinyffn
    records it and, having no TF32 or bfloat16 products, multiplies as with "highest"."""
    a = tinyffn.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4), device=device)
    b = tinyffn.tensor(np.linspace(2, -3, 8, dtype=np.float32).reshape(4, 2), device=device)
    want = a.numpy().astype(np.float64) @ b.numpy().astype(np.float64)
    assert tinyffn.get_float32_matmul_precision() == "highest"
    try:
        for precision in ("high", "medium", "highest"):
            tinyffn.set_float32_matmul_precision(precision)
            assert tinyffn.get_float32_matmul_precision() == precision
            # float32 products, within 1e-6; TF32's 10-bit mantissa would be off by 1e-3
            np.testing.assert_allclose((a @ b).numpy(), want, rtol=1e-6)
    finally:
        tinyffn.set_float32_matmul_precision("highest")


def test_float32_matmul_precision_refuses_what_pytorch_ignores():
    """PyTorch raises for a non-str and warns, keeping the old setting, for "HIGH" or
    "low"; tinyffn raises for both, naming the three settings."""
    with pytest.raises(TypeError, match=r"^set_float32_matmul_precision: precision must be "
                                        r"one of 'highest', 'high', 'medium', got a int"):
        tinyffn.set_float32_matmul_precision(1)
    for bad in ("HIGH", "low"):
        with pytest.raises(ValueError, match=rf"^set_float32_matmul_precision: unknown "
                                             rf"precision='{bad}'; use one of 'highest', "
                                             r"'high', 'medium'"):
            tinyffn.set_float32_matmul_precision(bad)
    assert tinyffn.get_float32_matmul_precision() == "highest"


def test_float32_matmul_precision_matches_torch_live():
    torch = pytest.importorskip("torch")
    before = torch.get_float32_matmul_precision()
    assert tinyffn.get_float32_matmul_precision() == before == "highest"
    try:
        for precision in ("high", "medium", "highest"):
            torch.set_float32_matmul_precision(precision)
            tinyffn.set_float32_matmul_precision(precision)
            assert tinyffn.get_float32_matmul_precision() == torch.get_float32_matmul_precision()
        with pytest.raises(RuntimeError, match="expects a str"):
            torch.set_float32_matmul_precision(1)
    finally:
        torch.set_float32_matmul_precision(before)
        tinyffn.set_float32_matmul_precision("highest")


# ----------------------------------------------------------------------------- names left out
LEFT_OUT = {        # torch's name -> what tinyffn's AttributeError must say to do
    "compile": r"no compiler: a model runs as written, so drop `model = torch\.compile\(model\)`",
    "bfloat16": r"has no bfloat16: use tinyffn\.float16 \(autocast.s dtype\) or float32",
    "backends": r"allow_tf32.*nothing to switch.*Drop those lines",
    "distributed": r"one process on one device",
}
CUDA_LEFT_OUT = {"amp": r"deprecated spelling of torch\.amp: write tinyffn\.amp\.GradScaler", "is_bf16_supported": r"no bfloat16 on any device",
                 "device_count": r"one GPU, device 'cuda'"}


@pytest.mark.parametrize("module, name", [("tinyffn", n) for n in LEFT_OUT] +
                         [("tinyffn.cuda", n) for n in CUDA_LEFT_OUT])
def test_a_torch_name_left_out_on_purpose_says_what_to_write(module, name):
    """nanoGPT's train.py and build-nanogpt reach for these; tinyffn leaves them out, and
    the AttributeError says what to write instead, while hasattr stays False (scripts test
    hasattr(torch, "compile") to choose)."""
    mod = tinyffn if module == "tinyffn" else tinyffn.cuda
    hint = (LEFT_OUT if module == "tinyffn" else CUDA_LEFT_OUT)[name]
    assert not hasattr(mod, name)
    with pytest.raises(AttributeError, match=rf"^module '{module}' has no attribute "
                                             rf"'{name}': .*{hint}"):
        getattr(mod, name)


def test_any_other_missing_name_keeps_pythons_did_you_mean():
    """Python suggests "Did you mean: 'tanh'?" from the error's name and obj."""
    for mod, name in ((tinyffn, "tanhh"), (tinyffn.cuda, "is_availabel")):
        with pytest.raises(AttributeError, match=rf"^module '{mod.__name__}' has no attribute "
                                                 rf"'{name}'$") as info:
            getattr(mod, name)
        assert info.value.name == name and info.value.obj is mod


def test_the_names_left_out_are_torchs_live():
    torch = pytest.importorskip("torch")
    import torch.cuda
    for name in LEFT_OUT:
        assert hasattr(torch, name), name
    for name in CUDA_LEFT_OUT:
        assert hasattr(torch.cuda, name), name
