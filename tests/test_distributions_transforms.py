"""tinyffn.distributions.transforms, .constraints and TransformedDistribution
(distributions_transforms.py, distributions_constraints.py, distributions_transformed.py):
each transform's y, inverse and log|det J|, and TransformedDistribution's log_prob, cdf and
icdf against PyTorch 2.13 live and written out (torch_parity's CASES/EXPECTED, so CI without
torch still compares) on every device; each log|det J| against finite differences of the
forward map (NumPy); LogNormal by ExpTransform against tinyffn's LogNormal and the
tanh-squashed Normal against the change of variables written out; inverses round-trip;
gradcheck of log_prob through TanhTransform on every device; caching (the cached x object
comes back); shapes, supports, biject_to, reprs and errors.
"""
import copy
import math

import numpy as np
import pytest

import tinyffn
import torch_parity
from tinyffn.distributions import (Beta, LogNormal, Normal, TransformedDistribution,
                                   biject_to, constraints, transform_to)
from tinyffn.distributions.transforms import (AbsTransform, AffineTransform,
                                              ComposeTransform, ExpTransform,
                                              IndependentTransform, PowerTransform,
                                              ReshapeTransform, SigmoidTransform,
                                              SoftmaxTransform, SoftplusTransform,
                                              StickBreakingTransform, TanhTransform,
                                              identity_transform)

plain = torch_parity.plain
X = [[-1.3, 0.2, 2.5], [0.7, -0.4, 1.1]]                  # a (2, 3) input in the reals
XPOS = [[1.3, 0.2, 2.5], [0.7, 0.4, 1.1]]
YTANH = [[-0.9, 0.2, 0.999], [0.5, -0.3, 0.0]]
# case: (the transform from (torch.distributions or tinyffn.distributions, T), its input)
TRANSFORMS = {
    "Exp": (lambda D, T: D.ExpTransform(), X),
    "Power": (lambda D, T: D.PowerTransform(T([2.5, -0.5, 1.5])), XPOS),
    "Sigmoid": (lambda D, T: D.SigmoidTransform(), X),
    "Softplus": (lambda D, T: D.SoftplusTransform(), X),
    "Tanh": (lambda D, T: D.TanhTransform(), X),
    "Tanh-inverse": (lambda D, T: D.TanhTransform().inv, YTANH),
    "Affine": (lambda D, T: D.AffineTransform(0.5, -2.0), X),
    "Affine-event": (lambda D, T: D.AffineTransform(T([1.0, 2.0, 3.0]), T([0.5, -2.0, 3.0]),
                                                    event_dim=1), X),
    "Compose": (lambda D, T: D.ComposeTransform([D.ExpTransform(),
                                                 D.AffineTransform(1.0, -2.0)]), X),
    "Independent": (lambda D, T: D.IndependentTransform(D.SigmoidTransform(), 1), X),
    "Reshape": (lambda D, T: D.ReshapeTransform((3,), (3, 1)), X),
    "StickBreaking": (lambda D, T: D.StickBreakingTransform(), X),
    "Softmax": (lambda D, T: D.SoftmaxTransform(), X),          # not bijective: y, inv(y)
    "Abs": (lambda D, T: D.AbsTransform(), X),
}
LOC, SCALE = [0.3, -1.0, 2.0], [0.5, 1.5, 0.7]
# case: (the distribution, a value in its support, what to compare; quantiles (0.1, 0.5, 0.9))
DISTS = {
    "TD-tanh": (lambda D, T: D.TransformedDistribution(
        D.Normal(T(LOC), T(SCALE)), [D.TanhTransform(cache_size=1)]),
        [0.2, -0.99, 0.9999], ("log_prob",)),
    "TD-exp": (lambda D, T: D.TransformedDistribution(D.Normal(T(LOC), T(SCALE)),
                                                      D.ExpTransform()),
               [0.5, 1.2, 8.0], ("log_prob", "cdf", "icdf")),
    "TD-decreasing": (lambda D, T: D.TransformedDistribution(
        D.Normal(T(LOC), T(SCALE)), [D.ExpTransform(), D.AffineTransform(1.0, -2.0)]),
        [-0.5, -1.0, -3.0], ("log_prob", "cdf", "icdf")),
    "TD-beta": (lambda D, T: D.TransformedDistribution(
        D.Beta(T([2.0, 0.5, 3.0]), T([1.5, 0.7, 3.0])), [D.AffineTransform(-1.0, 2.0)]),
        [0.2, -0.9, 0.5], ("log_prob",)),
    "TD-simplex": (lambda D, T: D.TransformedDistribution(
        D.Normal(T([[0.1, -0.5], [1.0, 0.2]]), T([[0.8, 1.2], [0.5, 2.0]])),
        [D.StickBreakingTransform()]), [[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]], ("log_prob",)),
    "TD-affine-event": (lambda D, T: D.TransformedDistribution(
        D.Normal(T(LOC), T(SCALE)), [D.AffineTransform(T([1.0, 2.0, 3.0]),
                                                       T([0.5, -2.0, 3.0]), event_dim=1)]),
        [0.2, -0.9, 0.5], ("log_prob",)),
}
CASES = list(TRANSFORMS) + list(DISTS)


def _T(module, device):
    kw = {"device": device or "cpu"} if module is tinyffn else {}
    return lambda v: module.tensor(np.asarray(v, dtype=np.float64), dtype=module.float64,
                                   **kw)


def run(module, case, device=None):
    T = _T(module, device)
    if case in TRANSFORMS:
        make, x = TRANSFORMS[case]
        t, x = make(module.distributions, T), T(x)
        y = t(x)
        if case in ("Softmax", "Abs"):
            return y, t.inv(y)
        return y, t.inv(y), t.log_abs_det_jacobian(x, y)
    make, value, methods = DISTS[case]
    d = make(module.distributions, T)
    return tuple(d.icdf(T([0.1, 0.5, 0.9])) if m == "icdf" else getattr(d, m)(T(value))
                 for m in methods)


def assert_same(actual, expected, case, device="cpu"):
    tol = 1e-9 if device == "cuda" else 1e-11        # lgamma, erfinv: the last bits differ
    torch_parity.assert_close(actual, expected, case, rtol=tol, atol=tol)


torch_parity.tests(globals())


def T(a, device="cpu", **kw):
    return tinyffn.tensor(np.asarray(a, dtype=np.float64), device=device, **kw)


# ----------------------------------------------------------------------------- log|det J|
ELEMENTWISE = ["Exp", "Power", "Sigmoid", "Softplus", "Tanh", "Tanh-inverse", "Affine",
               "Compose", "Independent"]


@pytest.mark.parametrize("case", ELEMENTWISE)
def test_log_abs_det_jacobian_is_the_log_of_the_finite_difference_slope(case):
    """y depends on x entry by entry here: log|det J| = Σ over event axes of log|dy/dx|,
    dy/dx by central differences of the forward map on NumPy arrays."""
    make, x = TRANSFORMS[case]
    t, x = make(tinyffn.distributions, T), np.asarray(x)
    h = 1e-6
    slope = (t(T(x + h)).numpy() - t(T(x - h)).numpy()) / (2 * h)
    expected = np.log(np.abs(slope))
    if case == "Independent":
        expected = expected.sum(-1)
    ladj = t.log_abs_det_jacobian(T(x), t(T(x))).numpy()
    np.testing.assert_allclose(ladj, expected, rtol=1e-7, atol=1e-7)


@pytest.mark.parametrize("case", ["Affine-event", "StickBreaking", "Reshape"])
def test_log_abs_det_jacobian_of_event_maps_is_the_log_determinant(case):
    """Per batch row: J by central differences, log|det J| by NumPy's slogdet (stick
    breaking maps K − 1 reals to K entries; its first K − 1 are the free ones, as PyTorch's
    log|det J|)."""
    make, x = TRANSFORMS[case]
    t, x = make(tinyffn.distributions, T), np.asarray(x)
    h = 1e-6
    for row, ladj in zip(x, t.log_abs_det_jacobian(T(x), t(T(x))).numpy()):
        cols = [(t(T(row + h * e)).numpy() - t(T(row - h * e)).numpy()).ravel() / (2 * h)
                for e in np.eye(row.size)]
        jac = np.stack(cols, axis=1)[:row.size]                         # (n, n)
        np.testing.assert_allclose(ladj, np.linalg.slogdet(jac)[1], rtol=1e-7, atol=1e-7)


def test_tanh_log_abs_det_jacobian_stays_finite_where_one_minus_y_squared_is_zero():
    x = T([0.5, 20.0, -40.0])
    ladj = TanhTransform().log_abs_det_jacobian(x, x.tanh()).numpy()
    with np.errstate(divide="ignore"):
        naive = np.log1p(-np.tanh(x.numpy()) ** 2)                  # -inf at 20 and -40
    assert np.isneginf(naive[1:]).all()
    # log(1 − tanh²x) = log 4 − 2|x| − 2 log1p(e^(−2|x|)), written out
    expected = np.log(4) - 2 * np.abs(x.numpy()) - 2 * np.log1p(np.exp(-2 * np.abs(x.numpy())))
    np.testing.assert_allclose(ladj, expected, rtol=1e-13)


# ----------------------------------------------------------------------------- inverses
@pytest.mark.parametrize("case", list(TRANSFORMS))
def test_inverses_round_trip(case, device):
    make, x = TRANSFORMS[case]
    t = make(tinyffn.distributions, lambda v: T(v, device))
    x = T(x, device)
    y = t(x)
    if t.bijective:
        np.testing.assert_allclose(t.inv(y).numpy(), x.numpy(), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(t.inv(t.inv.inv(x)).numpy(), x.numpy(), atol=1e-12)
        assert t.inv.inv is t
    else:                                    # a pseudo-inverse: t(t.inv(t(x))) = t(x)
        np.testing.assert_allclose(t(t.inv(y)).numpy(), y.numpy(), rtol=1e-12)
    assert t.forward_shape(x.shape) == y.shape and t.inverse_shape(y.shape) == x.shape


# ----------------------------------------------------------------------------- closed forms
def test_exp_of_a_normal_is_tinyffns_lognormal():
    loc, scale = T(LOC), T(SCALE)
    td = TransformedDistribution(Normal(loc, scale), ExpTransform())
    ln = LogNormal(loc, scale)
    v, q = T([0.5, 1.2, 8.0]), T([0.1, 0.5, 0.9])
    for a, b in ((td.log_prob(v), ln.log_prob(v)), (td.cdf(v), ln.cdf(v)),
                 (td.icdf(q), ln.icdf(q))):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-13)
    assert td.support.check(v).all().item() and td.has_rsample


def test_tanh_squashed_normal_is_the_change_of_variables_written_out():
    """log p(a) = log N(atanh a; mu, sd) − log(1 − a²), in NumPy."""
    mu, sd, a = np.array(LOC), np.array(SCALE), np.array([0.2, -0.99, 0.9999])
    z = (np.arctanh(a) - mu) / sd
    expected = -0.5 * z ** 2 - np.log(sd) - 0.5 * np.log(2 * np.pi) - np.log1p(-a ** 2)
    pi = TransformedDistribution(Normal(T(mu), T(sd)), [TanhTransform()])
    np.testing.assert_allclose(pi.log_prob(T(a)).numpy(), expected, rtol=1e-9)


def test_affine_scaled_beta_and_a_decreasing_map():
    """Y = 2X − 1, X ~ Beta: log p(y) = Beta's at (y + 1)/2 − log 2; Y = 1 − 2eˣ decreases,
    so P(Y <= y) = 1 − P(X <= log((1 − y)/2))."""
    a, b, y = T([2.0, 0.5]), T([1.5, 0.7]), T([0.2, -0.9])
    td = TransformedDistribution(Beta(a, b), AffineTransform(-1.0, 2.0))
    np.testing.assert_allclose(td.log_prob(y).numpy(),
                               (Beta(a, b).log_prob((y + 1) / 2) - math.log(2)).numpy(),
                               rtol=1e-12)
    base = Normal(T(LOC), T(SCALE))
    td = TransformedDistribution(base, [ExpTransform(), AffineTransform(1.0, -2.0)])
    v = T([-0.5, -1.0, -3.0])
    np.testing.assert_allclose(td.cdf(v).numpy(), 1 - base.cdf(((1 - v) / 2).log()).numpy(),
                               rtol=1e-12)
    assert td.transforms[1].sign == -1


def test_log_prob_through_tanh_is_gradchecked(device):
    def log_prob(mu, sd, a):
        return TransformedDistribution(Normal(mu, sd), [TanhTransform()]).log_prob(a)
    inputs = [T(LOC, device, requires_grad=True), T(SCALE, device, requires_grad=True),
              T([0.2, -0.7, 0.9], device, requires_grad=True)]
    assert tinyffn.gradcheck(log_prob, inputs)
    stick = StickBreakingTransform()
    x = T([[0.3, -0.2], [1.0, 2.0]], device, requires_grad=True)
    assert tinyffn.gradcheck(lambda x: stick.log_abs_det_jacobian(x, stick(x)), [x])


# ----------------------------------------------------------------------------- caching
def test_cache_size_one_returns_the_cached_objects():
    x = T([0.5, 1.0])
    t = TanhTransform(cache_size=1)
    y = t(x)
    assert t(x) is y and t.inv(y) is x                    # the same objects, no atanh
    assert t.inv(y + 0) is not x                          # another y: computed, and cached
    np.testing.assert_allclose(t.inv(y + 0).numpy(), x.numpy(), rtol=1e-12)
    u = TanhTransform()
    assert u.inv(u(x)) is not x                           # cache_size=0 keeps nothing
    c = ComposeTransform([ExpTransform(), AffineTransform(1.0, 2.0)], cache_size=1)
    assert all(p._cache_size == 1 for p in c.parts) and c.inv(c(x)) is x
    assert TanhTransform().with_cache(1)._cache_size == 1
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        TanhTransform(cache_size=2)


def test_the_cache_keeps_a_squashed_sample_exact_in_float32():
    """tanh(10) rounds to 1 in float32, so atanh gives inf; the cached x keeps log_prob
    finite and its gradient reaching mu (SAC's reason for cache_size=1)."""
    tinyffn.manual_seed(0)
    mu = tinyffn.tensor([10.0, 0.0], requires_grad=True)
    pi = TransformedDistribution(Normal(mu, 0.1), [TanhTransform(cache_size=1)])
    a = pi.rsample()
    logp = pi.log_prob(a)
    assert a.numpy()[0] == 1.0 and np.isfinite(logp.numpy()).all()
    logp.sum().backward()
    assert np.isfinite(mu.grad.numpy()).all()
    uncached = TransformedDistribution(Normal(mu, 0.1), [TanhTransform()],
                                       validate_args=False)
    with np.errstate(divide="ignore", invalid="ignore"):               # atanh(1) = inf
        assert not np.isfinite(uncached.log_prob(a).numpy()[0])


# ----------------------------------------------------------------------------- shapes
def test_shapes_supports_expand_and_draws():
    tinyffn.manual_seed(0)
    base = Normal(T([[0.1, -0.5], [1.0, 0.2]]), 1.0)                   # batch (2, 2)
    td = TransformedDistribution(base, StickBreakingTransform())
    assert (td.batch_shape, td.event_shape) == ((2,), (3,))
    assert repr(td.support) == "Simplex()" and td.sample((5,)).shape == (5, 2, 3)
    assert np.allclose(td.sample().numpy().sum(-1), 1)
    e = td.expand((4, 2))
    assert (e.batch_shape, e.event_shape, e.base_dist.batch_shape) == ((4, 2), (3,), (4, 2))
    assert type(e.base_dist).__name__ == "Independent"        # the simplex's event axis
    assert e.log_prob(td.sample()).shape == (4, 2)
    td = TransformedDistribution(Normal(T(LOC), T(SCALE)),
                                 AffineTransform(0.0, T([1.0, 2.0, 3.0]), event_dim=1))
    assert (td.batch_shape, td.event_shape) == ((), (3,))
    assert repr(td.support) == "IndependentConstraint(Real(), 1)"
    assert td.rsample((2,)).shape == (2, 3) and td.log_prob(T(LOC)).shape == ()
    td = TransformedDistribution(Normal(0.0, 1.0), AffineTransform(T([1.0, 2.0]), 3.0))
    assert td.batch_shape == (2,) and td.base_dist.batch_shape == (2,)   # base expanded
    assert TransformedDistribution(Normal(0.0, 1.0), []).log_prob(T(0.0)).item() == \
        pytest.approx(-0.5 * math.log(2 * math.pi))



def test_a_part_that_narrows_the_event_sums_its_log_det_over_the_wider_event():
    """ReshapeTransform((2, 2), (4,)) then exp: the event is 2 axes wide at the reshape, so
    its log|det J| (zeros of the batch shape) is summed over 2 − 2 = 0 axes, as PyTorch's
    (its domain's event_dim, not its codomain's): log|det J| = Σ x over the event, shape
    (5, 3), and log_prob = Σ log N(x) − Σ x, x = log y (NumPy written out)."""
    x = np.random.default_rng(0).normal(size=(5, 3, 2, 2))         # batch (5, 3), event (2, 2)
    parts = [ReshapeTransform((2, 2), (4,)), ExpTransform()]
    t = ComposeTransform(parts)
    y = t(T(x))                                                        # (5, 3, 4)
    ld = t.log_abs_det_jacobian(T(x), y)
    assert ld.shape == (5, 3)
    np.testing.assert_allclose(ld.numpy(), x.sum((-2, -1)), rtol=1e-12)
    td = TransformedDistribution(Normal(T(np.zeros((5, 3, 2, 2))), 1.0), parts)
    assert (td.batch_shape, td.event_shape) == ((5, 3), (4,))
    lp = td.log_prob(y)
    expected = (-0.5 * x ** 2 - 0.5 * math.log(2 * math.pi) - x).sum((-2, -1))
    assert lp.shape == (5, 3)
    np.testing.assert_allclose(lp.numpy(), expected, rtol=1e-12)


def test_biject_to_an_interval_fills_it():
    """low + (high − low) sigmoid(x): the image reaches both ends (an image inside a
    narrower interval would pass the constraint check)."""
    x = np.array([-40.0, -1.0, 0.0, 2.0, 40.0])
    y = biject_to(constraints.interval(-1.0, 3.0))(T(x)).numpy()
    np.testing.assert_allclose(y, -1.0 + 4.0 / (1.0 + np.exp(-x)), rtol=1e-12)
    assert y[0] == pytest.approx(-1.0) and y[-1] == pytest.approx(3.0)

def test_errors_are_pytorchs():
    with pytest.raises(ValueError, match="transforms must be a Transform or list"):
        TransformedDistribution(Normal(0.0, 1.0), (ExpTransform(),))
    with pytest.raises(ValueError, match="needs to have shape with size at least 1"):
        TransformedDistribution(Normal(0.0, 1.0), StickBreakingTransform())
    pi = TransformedDistribution(Normal(0.0, 1.0), TanhTransform())
    with pytest.raises(ValueError, match="within the support"):
        pi.log_prob(T(1.5))
    with pytest.raises(ValueError, match="different numbers of elements"):
        ReshapeTransform((2,), (3,))
    with pytest.raises(NotImplementedError):
        AbsTransform().log_abs_det_jacobian(T(1.0), T(1.0))
    with pytest.raises(NotImplementedError, match="Cannot transform Boolean constraints"):
        biject_to(constraints.boolean)


# ----------------------------------------------------------------------------- constraints
REPRS = {   # PyTorch 2.13's reprs, written out
    "real": "Real()", "real_vector": "IndependentConstraint(Real(), 1)",
    "positive": "GreaterThan(lower_bound=0.0)", "nonnegative": "GreaterThanEq(lower_bound=0.0)",
    "unit_interval": "Interval(lower_bound=0.0, upper_bound=1.0)", "simplex": "Simplex()",
    "boolean": "Boolean()", "one_hot": "OneHot()",
    "nonnegative_integer": "IntegerGreaterThan(lower_bound=0)",
    "positive_integer": "IntegerGreaterThan(lower_bound=1)",
    "lower_cholesky": "LowerCholesky()", "positive_definite": "PositiveDefinite()",
}


def test_constraints_are_the_distributions_own_with_pytorchs_reprs():
    for name, text in REPRS.items():
        assert repr(getattr(constraints, name)) == text, name
    assert Normal.arg_constraints["scale"] is constraints.positive
    assert repr(constraints.integer_interval(0, 3)) == \
        "IntegerInterval(lower_bound=0, upper_bound=3)"
    c = constraints.independent(constraints.positive, 2)
    assert repr(c) == "IndependentConstraint(GreaterThan(lower_bound=0.0), 2)"
    assert (c.event_dim, c.reinterpreted_batch_ndims) == (2, 2)
    assert c.check(T([[[1.0, 2.0], [3.0, 0.0]]])).tolist() == [False]
    assert constraints.interval(-1.0, 2.0).upper_bound == 2.0
    assert copy.deepcopy(constraints.interval(-1.0, 2.0)).upper_bound == 2.0   # no recursion
    with pytest.raises(AttributeError, match="GreaterThan has no attribute 'upper_bound'"):
        constraints.positive.upper_bound
    assert constraints.boolean.is_discrete and not constraints.real.is_discrete
    assert constraints.less_than(1.0).check(T([0.5, 1.0])).tolist() == [True, False]
    assert constraints.greater_than_eq(1.0).check(T([0.5, 1.0])).tolist() == [False, True]


@pytest.mark.parametrize("constraint, expected", [
    (constraints.real, "ComposeTransform"), (constraints.positive, "ComposeTransform"),
    (constraints.greater_than(2.0), "ComposeTransform"),
    (constraints.less_than(-1.0), "ComposeTransform"),
    (constraints.unit_interval, "SigmoidTransform"),
    (constraints.interval(-1.0, 3.0), "ComposeTransform"),
    (constraints.simplex, "StickBreakingTransform"),
    (constraints.real_vector, "IndependentTransform"),
    (constraints.independent(constraints.positive, 1), "IndependentTransform")])
def test_biject_to_maps_the_reals_onto_the_constraint(constraint, expected):
    """biject_to(c) has PyTorch's class, its images satisfy c, and it inverts."""
    t = biject_to(constraint)
    assert type(t).__name__ == expected
    x = T(np.linspace(-3, 3, 12).reshape(4, 3))
    y = t(x)
    assert constraint.check(y).all().item() and t.bijective
    np.testing.assert_allclose(t.inv(y).numpy(), x.numpy(), rtol=1e-9, atol=1e-9)
    if constraint is not constraints.simplex:
        assert type(transform_to(constraint)) is type(t)
    else:
        assert isinstance(transform_to(constraint), SoftmaxTransform)
    assert biject_to(constraints.real) is identity_transform


def test_transforms_compare_as_pytorchs_and_name_their_domains():
    assert ExpTransform() == ExpTransform() and ExpTransform() != SigmoidTransform()
    assert AffineTransform(1.0, 2.0) == AffineTransform(1.0, 2.0)
    assert PowerTransform(T(2.0)) == PowerTransform(T(2.0)) != PowerTransform(T(3.0))
    assert ExpTransform().inv == ExpTransform().inv
    assert repr(TanhTransform().codomain) == "Interval(lower_bound=-1.0, upper_bound=1.0)"
    assert repr(ExpTransform().inv) == "_InverseTransform(ExpTransform())"
    assert repr(IndependentTransform(SoftplusTransform(), 1)) == \
        "IndependentTransform(SoftplusTransform(), 1)"
    c = ComposeTransform([StickBreakingTransform(), AffineTransform(0.0, 2.0)])
    assert repr(c.codomain) == "IndependentConstraint(Real(), 1)" and c.domain.event_dim == 1
    assert ComposeTransform([AffineTransform(0.0, -1.0), ExpTransform()]).sign == -1
    assert ComposeTransform([AffineTransform(0.0, -1.0), AffineTransform(1.0, -2.0)]).sign == 1
    with pytest.raises(ValueError, match="Please use either"):
        ReshapeTransform((3,), (3, 1)).event_dim


EXPECTED = {
    'Exp': (('float64',
             [[0.2725317930340126, 1.2214027581601699, 12.182493960703473],
              [2.0137527074704766, 0.6703200460356393, 3.0041660239464334]]),
            ('float64', [[-1.3, 0.2, 2.5], [0.7000000000000001, -0.39999999999999997, 1.1]]),
            ('float64', [[-1.3, 0.2, 2.5], [0.7, -0.4, 1.1]])),
    'Power': (('float64',
               [[1.9268964684175434, 2.23606797749979, 3.952847075210474],
                [0.409963413001697, 1.5811388300841895, 1.153689732987167]]),
              ('float64', [[1.3, 0.19999999999999998, 2.5], [0.7, 0.4000000000000001, 1.1]]),
              ('float64',
               [[1.3098371285753918, 1.7210096880912054, 0.8636104740452419],
                [0.3812783159660564, 0.6812889172512872, 0.4531201980103269]])),
    'Sigmoid': (('float64',
                 [[0.2141650169574414, 0.549833997312478, 0.9241418199787566],
                  [0.6681877721681662, 0.401312339887548, 0.7502601055951177]]),
                ('float64',
                 [[-1.3, 0.20000000000000018, 2.5000000000000013],
                  [0.7000000000000003, -0.4, 1.1000000000000005]]),
                ('float64',
                 [[-1.7820169076659844, -1.3962777387631835, -2.6577794685850993],
                  [-1.5063720977709159, -1.4260305047999053, -1.6746706502308615]])),
    'Softplus': (('float64',
                  [[0.2410084538329922, 0.7981388693815918, 2.5788897342925496],
                   [1.103186048885458, 0.5130152523999526, 1.3873353251154308]]),
                 ('float64',
                  [[-1.3, 0.20000000000000007, 2.5],
                   [0.7000000000000001, -0.4, 1.0999999999999999]]),
                 ('float64',
                  [[-1.5410084538329922, -0.5981388693815918, -0.07888973429254963],
                   [-0.4031860488854579, -0.9130152523999526, -0.2873353251154308]])),
    'Tanh': (('float64',
              [[-0.8617231593133063, 0.197375320224904, 0.9866142981514303],
               [0.6043677771171635, -0.3799489622552249, 0.8004990217606297]]),
             ('float64',
              [[-1.2999999999999998, 0.2, 2.500000000000001], [0.7, -0.4, 1.0999999999999999]]),
             ('float64',
              [[-1.3569950228154495, -0.03973614368001466, -3.6271363358583453],
               [-0.4545404587170112, -0.15590697077566507, -1.0238722784175014]])),
    'Tanh-inverse': (('float64',
                      [[-1.4722194895832204, 0.2027325540540822, 3.8002011672501994],
                       [0.5493061443340548, -0.30951960420311175, 0.0]]),
                     ('float64',
                      [[-0.9, 0.2, 0.999], [0.49999999999999994, -0.30000000000000004, 0.0]]),
                     ('float64',
                      [[1.6607312068216515, 0.040821994520255256, 6.215108223463873],
                       [0.2876820724517809, 0.09431067947124161, -0.0]])),
    'Affine': (('float64',
                [[3.1, 0.09999999999999998, -4.5],
                 [-0.8999999999999999, 1.3, -1.7000000000000002]]),
               ('float64', [[-1.3, 0.2, 2.5], [0.7, -0.4, 1.1]]),
               ('float64',
                [[0.6931471805599453, 0.6931471805599453, 0.6931471805599453],
                 [0.6931471805599453, 0.6931471805599453, 0.6931471805599453]])),
    'Affine-event': (('float64', [[0.35, 1.6, 10.5], [1.35, 2.8, 6.300000000000001]]),
                     ('float64',
                      [[-1.3, 0.19999999999999996, 2.5],
                       [0.7000000000000002, -0.3999999999999999, 1.1000000000000003]]),
                     ('float64', [1.0986122886681098, 1.0986122886681098])),
    'Compose': (('float64',
                 [[0.4549364139319748, -1.4428055163203397, -23.364987921406946],
                  [-3.0275054149409533, -0.34064009207127866, -5.008332047892867]]),
                ('float64', [[-1.3, 0.2, 2.5], [0.7000000000000001, -0.39999999999999997, 1.1]]),
                ('float64',
                 [[-0.6068528194400548, 0.8931471805599454, 3.1931471805599454],
                  [1.3931471805599451, 0.29314718055994526, 1.7931471805599455]])),
    'Independent': (('float64',
                     [[0.2141650169574414, 0.549833997312478, 0.9241418199787566],
                      [0.6681877721681662, 0.401312339887548, 0.7502601055951177]]),
                    ('float64',
                     [[-1.3, 0.20000000000000018, 2.5000000000000013],
                      [0.7000000000000003, -0.4, 1.1000000000000005]]),
                    ('float64', [-5.836074115014267, -4.607073252801683])),
    'Reshape': (('float64', [[[-1.3], [0.2], [2.5]], [[0.7], [-0.4], [1.1]]]),
                ('float64', [[-1.3, 0.2, 2.5], [0.7, -0.4, 1.1]]),
                ('float64', [0.0, 0.0])),
    'StickBreaking': (('float64',
                       [[0.08327857764869698,
                         0.3475771760883071,
                         0.5259699995719226,
                         0.043174246691073254],
                        [0.4016457980606006,
                         0.15020252601746875,
                         0.3362303236998167,
                         0.11192135222211402]]),
                      ('float64',
                       [[-1.3, 0.20000000000000018, 2.500000000000001],
                        [0.6999999999999998, -0.3999999999999996, 1.1000000000000019]]),
                      ('float64', [-7.327354688951022, -6.087873133523972])),
    'Softmax': (('float64',
                 [[0.01992711714150567, 0.08930714309643224, 0.890765739762062],
                  [0.35402042464404526, 0.11784316240251767, 0.528136412953437]]),
                ('float64',
                 [[-3.9156738044170436, -2.4156738044170436, -0.11567380441704377],
                  [-1.0384006707781641, -2.138400670778164, -0.6384006707781639]])),
    'Abs': (('float64', [[1.3, 0.2, 2.5], [0.7, 0.4, 1.1]]),
            ('float64', [[1.3, 0.2, 2.5], [0.7, 0.4, 1.1]])),
    'TD-tanh': (('float64', [-0.20389127020615616, 1.9900843132414288, -0.9354731828077032]),),
    'TD-exp': (('float64', [-1.505326816593119, -1.8173661455867207, -2.6481448845625812]),
               ('float64', [0.02350032420443665, 0.7847143378182219, 0.5451781288605121]),
               ('float64', [0.7112183577385369, 0.36787944117144233, 18.12126473436266])),
    'TD-decreasing': (('float64', [-1.3219968973153322, -2.2397730440950046, -3.691276615363811]),
                      ('float64', [0.8800754691102189, 0.2524925375469229, 0.9690444996107381]),
                      ('float64', [-4.12393635671696, 0.26424111765711533, -5.02586528407279])),
    'TD-beta': (('float64', [-0.34036233028069407, -0.09849933492636687, -0.6399026660411332]),),
    'TD-simplex': (('float64', [1.2179914689385822, 1.9492584531889237]),),
    'TD-affine-event': (('float64', -19.956569738104772),),
}
