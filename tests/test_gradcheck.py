"""gradcheck itself: it must pass correct backwards and catch wrong ones."""

import inspect

import numpy as np
import pytest

import tinyffn


def _x(*shape):
    return tinyffn.randn(*shape, dtype="float64", requires_grad=True)


def exp_with_backward_scaled_by(factor):
    """exp with a backward ``factor`` times the true one: a planted bug unless factor is 1."""
    class ScaledExp(tinyffn.Function):
        @staticmethod
        def forward(ctx, x):
            y = ctx.xp.exp(x)
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, gy):
            (y,) = ctx.saved_tensors
            return factor * gy * y
    return ScaledExp


OffByFactor = exp_with_backward_scaled_by(1.1)          # 10% too large


class Square(tinyffn.Function):
    """y = x^2, dy/dx = 2x: a correct op."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return 2 * x * gy


class ForgetsGy(Square):
    """The same y = x^2, with a backward that forgets to multiply by gy."""

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return 2 * x + 0 * gy


def test_correct_backward_passes():
    assert tinyffn.gradcheck(Square.apply, [_x(3, 2)])
    assert tinyffn.gradcheck(Square.apply, _x(3, 2))        # one Tensor, as in PyTorch


def test_planted_wrong_backward_raises_with_location():
    with pytest.raises(tinyffn.GradcheckError) as info:
        tinyffn.gradcheck(OffByFactor.apply, [_x(2, 3)])
    message = str(info.value)
    assert "input 0 (shape (2, 3))" in message and "by backward" in message
    assert "finite differences" in message and "tolerance 1e-05 + 0.001" in message


def test_backward_that_forgets_gy_is_caught_even_for_a_scalar_loss():
    # with a cotangent of exactly 1 this bug would be invisible; gradcheck scales it
    with pytest.raises(tinyffn.GradcheckError):
        tinyffn.gradcheck(lambda x: ForgetsGy.apply(x).sum(), [_x(4)])
    with pytest.raises(tinyffn.GradcheckError):
        tinyffn.gradcheck(ForgetsGy.apply, [_x(4)])


def test_the_seed_chooses_the_cotangents_and_repeats_them():
    """A backward that forgets gy reports 2x / r, r the cotangent scale the seed draws: the
    same seed gives the same message, another seed another r (the 'seed' argument is used)."""
    x = tinyffn.tensor([0.5, -1.0], dtype="float64", requires_grad=True)

    def message(seed):
        with pytest.raises(tinyffn.GradcheckError) as info:
            tinyffn.gradcheck(ForgetsGy.apply, [x], seed=seed)
        return str(info.value)
    assert message(0) == message(0)
    assert message(0) != message(1)


def test_inputs_are_restored_after_checking():
    x = _x(3, 3)
    before = x.numpy()
    tinyffn.gradcheck(lambda x: (x @ x).tanh(), [x])
    np.testing.assert_array_equal(x.numpy(), before)
    assert x.grad is None            # gradcheck leaves .grad alone


def test_only_inputs_requiring_grad_are_checked():
    x = _x(2, 3)
    w = tinyffn.randn(3, 2, dtype="float64")
    assert tinyffn.gradcheck(lambda x, w: x @ w, [x, w])


def test_float32_inputs_warn():
    x = tinyffn.randn(3, requires_grad=True)
    with pytest.warns(UserWarning, match="float32, not float64; finite differences with "
                                         "eps=1e-06 are unreliable"):
        try:
            tinyffn.gradcheck(lambda x: x * 2.0, [x])
        except tinyffn.GradcheckError:
            pass   # float32 may also fail; the warning is the point
    with pytest.warns(UserWarning, match="with eps=0.01 are unreliable"):   # the eps used
        tinyffn.gradcheck(lambda x: x * 2.0, [x], eps=1e-2, atol=1e-2)


def test_no_input_requiring_grad_is_an_error():
    with pytest.raises(ValueError, match="no input requires grad"):
        tinyffn.gradcheck(lambda x: x * 2.0, [tinyffn.randn(2, dtype="float64")])


def test_gradcheck_runs_on_every_backend(device):
    x = tinyffn.randn(2, 3, dtype="float64", device=device, requires_grad=True)
    assert tinyffn.gradcheck(lambda x: (x.sigmoid() * x).sum(axis=1), [x])
    with pytest.raises(tinyffn.GradcheckError):
        tinyffn.gradcheck(OffByFactor.apply, [x])


class NanBackward(Square):
    """y = x^2 with a backward that returns NaN: NaN must count as a disagreement."""

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return gy * x * float("nan")


def test_nan_from_backward_is_a_disagreement():
    # |nan - num| <= tol is False, but so is |nan - num| > tol: the check must fail on NaN
    with pytest.raises(tinyffn.GradcheckError, match="is nan by backward"):
        tinyffn.gradcheck(NanBackward.apply, [_x(3)])


@pytest.mark.filterwarnings("ignore:invalid value encountered")
def test_nan_finite_differences_are_a_disagreement():
    # sqrt at 1e-7 with eps = 1e-6 steps outside the domain: the numerical side is NaN,
    # and a backward that returns 0 there must not pass
    x = tinyffn.tensor([1e-7, 1.0], dtype="float64", requires_grad=True)
    with pytest.raises(tinyffn.GradcheckError, match="is 0 by backward but nan"):
        tinyffn.gradcheck(lambda x: (x ** 0.5) * 0 + x.detach() ** 0.5, [x])
    with pytest.raises(tinyffn.GradcheckError, match="but nan by finite differences"):
        tinyffn.gradcheck(lambda x: x ** 0.5, [x])


@pytest.mark.parametrize("kwargs", [{"eps": 0.0}, {"eps": -1e-6}, {"eps": float("nan")},
                                    {"eps": True}, {"atol": -1.0}, {"rtol": float("inf")}])
def test_bad_tolerances_are_refused(kwargs):
    with pytest.raises(ValueError, match=f"gradcheck: {next(iter(kwargs))} must be"):
        tinyffn.gradcheck(Square.apply, [_x(2)], **kwargs)


def test_gradcheck_builds_its_graph_even_inside_no_grad():
    with tinyffn.no_grad():
        assert tinyffn.gradcheck(Square.apply, [_x(3)])
        with pytest.raises(tinyffn.GradcheckError):
            tinyffn.gradcheck(OffByFactor.apply, [_x(3)])


def test_raise_exception_false_returns_false():
    assert tinyffn.gradcheck(OffByFactor.apply, [_x(2)], raise_exception=False) is False
    assert tinyffn.gradcheck(Square.apply, [_x(2)], raise_exception=False) is True


def test_each_output_of_a_tuple_is_checked():
    x, w = _x(2, 3), _x(3)
    assert tinyffn.gradcheck(lambda x, w: (Square.apply(x), (x * w).sum(axis=1)), [x, w])
    # the bug sits in the second output only; the message names that output and its entry
    with pytest.raises(tinyffn.GradcheckError,
                       match=r"input 0 .*: d output 1\(0, 0\) / d input\(0, 0\)"):
        tinyffn.gradcheck(lambda x, w: (Square.apply(x), OffByFactor.apply(x)), [x, w])
    with pytest.raises(TypeError, match="a Tensor or a tuple of Tensors, got tuple of Tensor, float"):
        tinyffn.gradcheck(lambda x: (x, 1.0), [x])


def test_an_output_that_depends_on_no_input_has_a_zero_jacobian():
    """torch.autograd.gradcheck returns True here too: a constant output's Jacobian is zero
    both ways (no backward to run), and the other outputs are still checked."""
    w, c = _x(3), tinyffn.ones(2, dtype="float64")
    assert tinyffn.gradcheck(lambda w: (Square.apply(w), c * 3.0), [w])
    with pytest.raises(tinyffn.GradcheckError, match=r"d output 0\(0,\) / d input\(0,\)"):
        tinyffn.gradcheck(lambda w: (OffByFactor.apply(w), c * 3.0), [w])


def test_an_input_with_no_elements_has_an_empty_jacobian():
    """torch.autograd.gradcheck returns True here too: a (0, 3) input has no entry to
    perturb, and the other inputs are still checked."""
    x, w = tinyffn.zeros(0, 3, dtype="float64", requires_grad=True), _x(3)
    assert tinyffn.gradcheck(lambda x, w: (x * w).sum() + Square.apply(w), [x, w])
    with pytest.raises(tinyffn.GradcheckError, match="failed for input 1 "):
        tinyffn.gradcheck(lambda x, w: (x * w).sum() + OffByFactor.apply(w), [x, w])


def test_numpy_numbers_are_fine_tolerances():
    assert tinyffn.gradcheck(Square.apply, [_x(2)], eps=np.float32(1e-6), atol=np.float64(1e-5))


@pytest.mark.parametrize("factor", [0.9, 0.0])
def test_a_backward_too_small_is_caught_too(factor):
    """A one-sided comparison (ana - num > tol) would let a backward that is too small pass."""
    with pytest.raises(tinyffn.GradcheckError, match="by backward but"):
        tinyffn.gradcheck(exp_with_backward_scaled_by(factor).apply, [_x(2, 3)])


def test_inputs_are_restored_when_fn_raises_midway():
    x = _x(3)
    before = x.numpy()
    calls = []

    def fails_on_the_third_call(x):
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("planted")
        return x * 2.0

    with pytest.raises(RuntimeError, match="planted"):
        tinyffn.gradcheck(fails_on_the_third_call, [x])
    np.testing.assert_array_equal(x.numpy(), before)


class InfBackward(tinyffn.Function):
    @staticmethod
    def forward(ctx, x):
        return x * x

    @staticmethod
    def backward(ctx, gy):
        return gy * 0 + float("inf")


class AbsGyRelu(tinyffn.Function):
    """relu whose backward takes |gy|: right for a positive cotangent only."""
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return ctx.xp.maximum(x, 0)

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return abs(gy) * (x > 0)


def _values(*values):
    return tinyffn.tensor(list(values), dtype="float64", requires_grad=True)


def test_an_infinite_backward_is_a_disagreement():
    with pytest.raises(tinyffn.GradcheckError, match="is inf by backward"):
        tinyffn.gradcheck(InfBackward.apply, [_values(0.5, -1.0)])


def test_cotangents_take_both_signs():
    with pytest.raises(tinyffn.GradcheckError):
        tinyffn.gradcheck(AbsGyRelu.apply, [_values(0.5, 1.0, 1.5, 2.0)])


def test_default_step_is_torchs_and_small_enough_for_a_steep_cubic():
    torch = pytest.importorskip("torch")
    t = inspect.signature(torch.autograd.gradcheck).parameters
    ours = inspect.signature(tinyffn.gradcheck).parameters
    assert [ours[k].default for k in ("eps", "atol", "rtol")] == \
           [t[k].default for k in ("eps", "atol", "rtol")]
    # central differences of 1000 x^3 at 0 are 1000 eps^2: 1e-9 at eps=1e-6
    assert tinyffn.gradcheck(lambda x: 1000 * x ** 3, [_values(0.0)])


def test_default_tolerances_are_torchs_even_without_torch():
    """PyTorch's gradcheck defaults (eps=1e-6, atol=1e-5, rtol=1e-3), written out: the test
    above compares with torch's signature and is skipped where torch is missing."""
    ours = inspect.signature(tinyffn.gradcheck).parameters
    assert [ours[k].default for k in ("eps", "atol", "rtol")] == [1e-6, 1e-5, 1e-3]
    # central differences of 1000 x^3 at 0 are 1000 eps^2 (1e-9 at eps = 1e-6, but 1e-3,
    # a failure, at eps = 1e-3); of 1000 x^2 exactly 0, where a one-sided difference
    # (f(x + eps) - f(x)) / eps would give 1000 eps
    assert tinyffn.gradcheck(lambda x: 1000 * x ** 3, [_values(0.0)])
    assert tinyffn.gradcheck(lambda x: 1000 * x ** 2, [_values(0.0)])


def linear_with_backward(forward_scale, backward_scale):
    """y = forward_scale * x (elementwise, NumPy arrays or numbers) with a backward that
    multiplies by ``backward_scale``: wrong wherever the two differ."""
    class Scaled(tinyffn.Function):
        @staticmethod
        def forward(ctx, x):
            return x * forward_scale

        @staticmethod
        def backward(ctx, gy):
            return gy * backward_scale
    return Scaled


def test_the_tolerance_is_atol_plus_rtol_times_the_numerical_value_inclusive():
    x = _values(1.0, -0.5)
    # dy/dx = 2; a backward of 2.75 is off by 0.75 <= 0.5 + 0.25 * 2 = 1.0 (max(atol,
    # rtol |num|) would be 0.5); 3.25 is off by 1.25 > 1.0
    assert tinyffn.gradcheck(linear_with_backward(2.0, 2.75).apply, [x], atol=0.5, rtol=0.25)
    with pytest.raises(tinyffn.GradcheckError, match="is 3.25 by backward but 2 by finite"):
        tinyffn.gradcheck(linear_with_backward(2.0, 3.25).apply, [x], atol=0.5, rtol=0.25)
    # zero tolerances are allowed (as in torch.allclose), and an exact match passes them:
    # with x and eps powers of two, the central differences of 2x are exactly 2, and
    # backward's 2 r / r is exactly 2
    exact = tinyffn.tensor([1.0, 0.5, -3.0], dtype="float64", requires_grad=True)
    assert tinyffn.gradcheck(lambda x: x * 2.0, [exact], eps=2.0 ** -20, atol=0.0, rtol=0.0)


def test_the_tolerance_is_per_entry_not_scaled_by_the_largest_entry():
    # d y0/d x0 = 1000 is right; d y1/d x1 = 1 is given as 1.1: wrong by 0.1, far above
    # 1e-5 + 1e-3 * 1, though below 1e-3 times the largest entry
    wrong_small_entry = linear_with_backward(np.array([1000.0, 1.0]), np.array([1000.0, 1.1]))
    with pytest.raises(tinyffn.GradcheckError,
                       match=r"d output\(1,\) / d input\(1,\) is 1.1 by backward"):
        tinyffn.gradcheck(wrong_small_entry.apply, [_values(0.3, 0.7)])


class WrongForSecondInput(tinyffn.Function):
    """y = x * w with a backward right for x and 10% too large for w."""

    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return x * w

    @staticmethod
    def backward(ctx, gy):
        x, w = ctx.saved_tensors
        return gy * w, 1.1 * gy * x


def test_every_input_is_compared_not_only_the_first():
    x, w = _x(2, 3), _x(2, 3)
    with pytest.raises(tinyffn.GradcheckError, match=r"failed for input 1 \(shape \(2, 3\)\)"):
        tinyffn.gradcheck(WrongForSecondInput.apply, [x, w])
    # with w constant only x is checked, and x's gradient is right
    assert tinyffn.gradcheck(WrongForSecondInput.apply, [x, w.detach()])


def test_the_message_indexes_the_input_in_its_own_shape():
    # output (3,), input (2, 3): the first disagreement is d y(0) / d x(0, 0)
    with pytest.raises(tinyffn.GradcheckError,
                       match=r"d output\(0,\) / d input\(0, 0\) is "):
        tinyffn.gradcheck(lambda x: OffByFactor.apply(x).sum(axis=0), [_x(2, 3)])


class DoublesOneEntry(tinyffn.Function):
    """y = x (any shape) with a backward that doubles the gradient of entry (1, 0) only."""

    @staticmethod
    def forward(ctx, x):
        return x * 1.0

    @staticmethod
    def backward(ctx, gy):
        gx = gy.copy()
        gx[1, 0] *= 2
        return gx


def test_the_message_names_the_entry_and_counts_the_disagreements():
    """A (2, 3) input wrong at (1, 0) only: flat index 3, which a (3, 2) reading would call
    (1, 1); one of the 6 x 6 Jacobian entries disagrees (the diagonal one)."""
    x = tinyffn.tensor(np.arange(6.0).reshape(2, 3), dtype="float64", requires_grad=True)
    with pytest.raises(tinyffn.GradcheckError,
                       match=r"d output\(1, 0\) / d input\(1, 0\) is 2 by backward but 1 by "
                             r"finite differences .*; 1 of 36 Jacobian entries disagree"):
        tinyffn.gradcheck(DoublesOneEntry.apply, [x])


def test_an_empty_tuple_of_outputs_is_refused_by_name():
    with pytest.raises(TypeError, match="gradcheck: fn must return a Tensor or a tuple of "
                                        "Tensors, got an empty tuple"):
        tinyffn.gradcheck(lambda x: (), [_x(2)])


class CubeReadingGyAsAConstant(tinyffn.Function):
    """y = x^3 with a backward right to first order, 3 x^2 gy, that reads gy through its
    array (.data) when the backward is recorded: v^T J then has no derivative in v."""
    twice_differentiable = True

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        gy = gy.data if isinstance(gy, tinyffn.Tensor) else gy
        return 3 * x * x * gy


def test_gradgradcheck_checks_the_derivative_in_the_cotangent():
    """d(v^T J)/dv = J^T is 0 by this backward but 3 x^2 by finite differences: a
    gradgradcheck that took grad_outputs as constants would pass it. Input 1 is v."""
    x = tinyffn.tensor([0.5, 1.5], dtype="float64", requires_grad=True)
    assert tinyffn.gradcheck(CubeReadingGyAsAConstant.apply, [x])
    with pytest.raises(tinyffn.GradcheckError, match=r"input 1 .* is 0 by backward but 0.75"):
        tinyffn.gradgradcheck(CubeReadingGyAsAConstant.apply, [x])


def test_gradgradcheck_checks_every_output():
    """The wrong output second of two: checking the first alone would pass."""
    x = tinyffn.tensor([0.5, 1.5], dtype="float64", requires_grad=True)
    assert tinyffn.gradgradcheck(lambda x: (x * x, x * x * x), [x])
    with pytest.raises(tinyffn.GradcheckError, match=r"input 2 .* is 0 by backward but 0.75"):
        tinyffn.gradgradcheck(lambda x: (x * x, CubeReadingGyAsAConstant.apply(x)), [x])


def test_gradgradcheck_wants_one_grad_output_per_output():
    x = _x(2)
    for given in ([x.detach()], [x.detach()] * 3):
        with pytest.raises(ValueError, match=f"fn returns 2 outputs but {len(given)} "
                                             "grad_outputs were given"):
            tinyffn.gradgradcheck(lambda x: (x * x, x * x), [x], grad_outputs=given)


def test_gradgradcheck_defaults_are_torchs():
    """torch.autograd.gradgradcheck's eps=1e-6, atol=1e-5, rtol=1e-3, written out (the
    next test compares torch's own signature where torch is installed)."""
    ours = inspect.signature(tinyffn.gradgradcheck).parameters
    assert [ours[k].default for k in ("eps", "atol", "rtol")] == [1e-6, 1e-5, 1e-3]


def test_gradgradcheck_defaults_match_torchs_signature():
    torch = pytest.importorskip("torch")
    ours = inspect.signature(tinyffn.gradgradcheck).parameters
    theirs = inspect.signature(torch.autograd.gradgradcheck).parameters
    assert [ours[k].default for k in ("eps", "atol", "rtol")] == \
           [theirs[k].default for k in ("eps", "atol", "rtol")]


def test_gradgradcheck_of_a_function_constant_in_its_inputs_passes():
    """No output depends on x: every first derivative is 0, and so is each second one."""
    c = tinyffn.tensor([1.0, 2.0], dtype="float64")
    assert tinyffn.gradgradcheck(lambda x: c * 2, [_x(2)])
    assert tinyffn.gradgradcheck(lambda x: (c * 2, x * x), [_x(2)])
