"""The PyTorch-parity tests that twenty test files share (test_torch_functions.py,
test_sorting.py, test_more_functions.py, test_functional_extra.py, ...), written once.

Such a file holds a table ``CASES`` of calls (``"sum(x, 1)"``), each written once and
run twice: by its ``run(module, case, **tensor_kwargs)``, with the names and inputs of
tinyffn or of torch. :func:`plain` (here, bound in each file) turns either result into
(dtype name, nested lists), and the file's ``assert_same(actual, expected, case)``
compares two of them; ``run`` and ``assert_same`` stay in each file, as their inputs,
tolerances and checks of -0.0 differ (:func:`assert_close` is the usual ``assert_same``,
:func:`weighted_grad` the usual end of ``grad_of``; the layer tests, conv and pooling,
end in :func:`assert_forward_and_backward_as_torchs`). ``tests(globals())`` gives the file three tests
(and two more when it has gradients):

* ``live``: each case gives what PyTorch gives, torch run next to tinyffn (skipped
  where torch is not installed);
* ``written``: each case gives PyTorch 2.13's values written out in the file's
  ``EXPECTED`` (case -> plain result), on every device; it needs no torch, so a CI
  without torch still compares with PyTorch;
* ``check``: ``EXPECTED`` has one entry per case, no more, and (where torch is
  installed) each entry is what torch gives, so the written-out values cannot drift
  from PyTorch's or keep a case that is gone.

With ``GRAD_CASES``, pairs (case, name of the input), and ``grad_of(module, case, wrt,
**tensor_kwargs)``, the plain gradient of L = Σ f · weights with respect to that input,
``grad_live`` and ``grad_written`` do the same for gradients (``EXPECTED_GRADS``, keyed
by ``grad_id``), and ``check`` checks those entries as well.

``EXPECTED`` and ``EXPECTED_GRADS`` sit at the bottom of each file, below the tests, so
they are read from the namespace when a test runs; ``CASES`` and ``GRAD_CASES`` are read
at once, to parametrise. A file binds the tests to names starting with ``test_``::

    _parity = torch_parity.tests(globals())
    test_each_call_gives_what_pytorch_gives = _parity.live
"""

import functools
import inspect
import math

import numpy as np
import pytest

import tinyffn
from tinyffn.backend import dtype_name


def plain(result):
    """A result as (dtype name, nested lists), a tuple of them (values, indices), or a
    Python bool or value, alike for tinyffn's tensors and torch's."""
    if isinstance(result, bool):
        return result
    if isinstance(result, tuple):
        return tuple(plain(r) for r in result)
    if isinstance(result, tinyffn.Tensor):
        return dtype_name(result.dtype), result.numpy().tolist()
    return str(result.dtype).removeprefix("torch."), result.detach().numpy().tolist()


def picked(y, inputs: dict, made: list, requires_grad):
    """What a module file's ``run`` returns: y, or with ``requires_grad`` (a name) the pair
    (y, the tensor of that name: an input, else a parameter of the first module the case
    made), whose gradient ``grad_of`` takes."""
    if not requires_grad:
        return y
    if requires_grad in inputs:
        return y, inputs[requires_grad]
    return y, dict(made[0].named_parameters())[requires_grad]


def weighted_grad(module, y, x, **tensor_kwargs):
    """``plain(dL/dx)`` for L = Σ y · (1, 2, 3, ...)/10 over y's entries, ``module`` being
    tinyffn or torch: weights that differ entry by entry, so a backward that forgets gy,
    or swaps entries, shows. What each file's ``grad_of`` returns."""
    weights = np.arange(1.0, math.prod(y.shape) + 1).reshape(y.shape) / 10
    (y * module.tensor(weights.tolist(), dtype=module.float64, **tensor_kwargs)).sum().backward()
    return plain(x.grad)


def assert_forward_and_backward_as_torchs(y, yt, ours, theirs, gy, rtol, atol,
                                          grad_rtol=None, grad_atol=None):
    """y (tinyffn's) equals yt (torch's, from the same inputs); then one backward of
    L = Σ y · gy on each side, and each of ``ours``' gradients equals the matching one of
    ``theirs`` (to ``grad_rtol``/``grad_atol``, by default the values' tolerances): the
    end of every layer test that runs tinyffn and torch side by side."""
    import torch                    # the caller has skipped where torch is not installed
    np.testing.assert_allclose(y.numpy(), yt.detach().numpy(), rtol=rtol, atol=atol)
    (y * tinyffn.tensor(gy)).sum().backward()
    (yt * torch.tensor(gy)).sum().backward()
    for a, t in zip(ours, theirs):
        np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(),
                                   rtol=rtol if grad_rtol is None else grad_rtol,
                                   atol=atol if grad_atol is None else grad_atol)


def assert_close(actual, expected, case, rtol=1e-12, atol=1e-15):
    """The usual ``assert_same``: ``actual`` (tinyffn's, as :func:`plain` gives it) equals
    ``expected`` (torch's): a bool exactly, a tuple entry by entry, else the same dtype
    name and shape and values to ``rtol``/``atol`` (NaN equal to NaN). A file whose
    checks differ (signs of zeros, ulps) writes its own."""
    if isinstance(expected, bool):
        assert actual is expected, case
        return
    if isinstance(expected[0], tuple):                  # (values, indices), chunk's pieces
        assert len(actual) == len(expected), case
        for a, e in zip(actual, expected):
            assert_close(a, e, case, rtol, atol)
        return
    assert actual[0] == expected[0], f"{case}: dtype {actual[0]}, expected {expected[0]}"
    a, e = np.asarray(actual[1], dtype=float), np.asarray(expected[1], dtype=float)
    assert a.shape == e.shape, f"{case}: shape {a.shape}, expected {e.shape}"
    np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, err_msg=case)


def refused_as_torch(make, error, match) -> None:
    """``make(tinyffn)`` raises ``error`` with a message matching ``match``, and, where torch
    is installed, ``make(torch)`` raises ``error`` too: a bad argument is refused as PyTorch
    refuses it (the distribution files' ERRORS tables)."""
    with pytest.raises(error, match=match):
        make(tinyffn)
    torch = pytest.importorskip("torch")
    with pytest.raises(error):
        make(torch)


def distribution_grad(module, case, wrt, device, kl, outputs):
    """The distribution files' ``grad_of``: the gradient in ``wrt`` of Σ w·KL for a case
    named "KL <pair>" (``kl(module, pair, device, wrt)``), else of Σ w·(log_prob (+ entropy))
    (``outputs(module, case, device, wrt)``)."""
    kw = {} if module is not tinyffn else {"device": device or "cpu"}
    if case.startswith("KL "):
        y, x = kl(module, case[3:], device, wrt)
    else:
        out, x = outputs(module, case, device, wrt)
        y = out["log_prob"] + out["entropy"] if "entropy" in out else out["log_prob"]
    return weighted_grad(module, y, x, **kw)


def assert_grad_through_digamma(actual, expected, case, device="cpu"):
    """Gradients through an entropy's or a KL's digamma: torch's CPU trigamma
    (polygamma(1, .), digamma's derivative) is good to ~5e-10 relative
    (torch.polygamma(1, 2.0) − π²/6 − 1 = 2.4e-10; SciPy's and tinyffn's: 1e-16), so they
    agree with torch's to 1e-8."""
    assert_close(actual, expected, case, rtol=1e-8, atol=1e-10)


def grad_id(case) -> str:
    """The test id, and the key in ``EXPECTED_GRADS``, of a (case, wrt) pair."""
    return f"{case[0]} d{case[1]}"


def _on(device: str, assert_fn):
    """``assert_fn``, told the device where it takes a ``device`` argument (to widen a
    tolerance on the GPU, whose math library is not correctly rounded)."""
    if "device" in inspect.signature(assert_fn).parameters:
        return functools.partial(assert_fn, device=device)
    return assert_fn


def tests(ns: dict, *, marks=(), assert_grad=None) -> None:
    """Add the parity tests to the file whose namespace is ``ns`` (its ``globals()``):
    ``test_each_call_gives_what_pytorch_gives`` (live torch),
    ``test_each_call_gives_pytorchs_values_written_out`` (``EXPECTED``, every device) and
    ``test_the_written_out_values_are_pytorchs``; with ``GRAD_CASES``, also
    ``test_gradients_are_pytorchs`` and ``test_gradients_are_pytorchs_written_out``.

    ``marks``: pytest marks put on every test (a filterwarnings, say).
    ``assert_grad``: compares tinyffn's gradients with torch's, live and written out;
    ``ns["assert_same"]`` if None. torch's own against the written-out ones always use
    ``assert_same``: both are PyTorch's, so they agree to the last bit.
    """
    grads = "GRAD_CASES" in ns

    def marked(test):
        for mark in marks:
            test = mark(test)
        return test

    def over(cases, **kwargs):
        return lambda test: marked(pytest.mark.parametrize("case", cases, **kwargs)(test))

    def live(case):
        torch = pytest.importorskip("torch")
        ns["assert_same"](ns["plain"](ns["run"](tinyffn, case)),
                          ns["plain"](ns["run"](torch, case)), case)

    def written(case, device):
        _on(device, ns["assert_same"])(ns["plain"](ns["run"](tinyffn, case, device=device)),
                                       ns["EXPECTED"][case], case)

    def check():
        """EXPECTED holds one entry per case, each what torch 2.13 gives (and
        EXPECTED_GRADS one per gradient case, each torch's gradient)."""
        assert sorted(ns["EXPECTED"]) == sorted(ns["CASES"])
        if grads:
            assert sorted(ns["EXPECTED_GRADS"]) == sorted(map(grad_id, ns["GRAD_CASES"]))
        torch = pytest.importorskip("torch")
        for case in ns["CASES"]:
            ns["assert_same"](ns["plain"](ns["run"](torch, case)), ns["EXPECTED"][case], case)
        for case in ns["GRAD_CASES"] if grads else ():
            ns["assert_same"](ns["grad_of"](torch, *case), ns["EXPECTED_GRADS"][grad_id(case)],
                              grad_id(case))

    def grad_live(case):
        torch = pytest.importorskip("torch")
        (assert_grad or ns["assert_same"])(ns["grad_of"](tinyffn, *case),
                                           ns["grad_of"](torch, *case), grad_id(case))

    def grad_written(case, device):
        _on(device, assert_grad or ns["assert_same"])(
            ns["grad_of"](tinyffn, *case, device=device), ns["EXPECTED_GRADS"][grad_id(case)],
            grad_id(case))

    ns["test_each_call_gives_what_pytorch_gives"] = over(ns["CASES"])(live)
    ns["test_each_call_gives_pytorchs_values_written_out"] = over(ns["CASES"])(written)
    ns["test_the_written_out_values_are_pytorchs"] = marked(check)
    if grads:
        ns["test_gradients_are_pytorchs"] = over(ns["GRAD_CASES"], ids=grad_id)(grad_live)
        ns["test_gradients_are_pytorchs_written_out"] = over(ns["GRAD_CASES"],
                                                             ids=grad_id)(grad_written)
