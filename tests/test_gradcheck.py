"""gradcheck itself: it must pass correct backwards and catch wrong ones."""

import numpy as np
import pytest

import tinyffn


def _x(*shape):
    return tinyffn.randn(*shape, dtype="float64", requires_grad=True)


class OffByFactor(tinyffn.Function):
    """exp with a backward 10% too large: a planted bug."""

    @staticmethod
    def forward(ctx, x):
        y = ctx.xp.exp(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, gy):
        (y,) = ctx.saved_tensors
        return 1.1 * gy * y


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
    with pytest.warns(UserWarning, match="float32, not float64"):
        try:
            tinyffn.gradcheck(lambda x: x * 2.0, [x])
        except tinyffn.GradcheckError:
            pass   # float32 may also fail; the warning is the point


def test_no_input_requiring_grad_is_an_error():
    with pytest.raises(ValueError, match="no input requires grad"):
        tinyffn.gradcheck(lambda x: x * 2.0, [tinyffn.randn(2, dtype="float64")])


def test_gradcheck_runs_on_every_backend(device):
    x = tinyffn.randn(2, 3, dtype="float64", device=device, requires_grad=True)
    assert tinyffn.gradcheck(lambda x: (x.sigmoid() * x).sum(axis=1), [x])
    with pytest.raises(tinyffn.GradcheckError):
        tinyffn.gradcheck(OffByFactor.apply, [x])
