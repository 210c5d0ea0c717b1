"""tinyffn.distributions' Independent, OneHotCategorical, LogNormal, Gumbel, Cauchy, Poisson,
Geometric, Binomial, Gamma, Beta, Dirichlet, StudentT (distributions_extra.py,
distributions_gamma.py): log_prob, entropy, mean, mode, variance, cdf/icdf and KL against
PyTorch 2.13 live and written out (torch_parity's CASES/EXPECTED, so CI without torch still
compares), with their parameter gradients; scipy.stats; gradcheck on every device; mean and
variance of seeded draws within 5 standard errors; shapes, expand, rsample and errors.
"""
import math

import numpy as np
import pytest

import tinyffn
import torch_parity
from tinyffn.distributions import (Beta, Binomial, Cauchy, Dirichlet, Gamma, Geometric,
                                   Gumbel, Independent, LogNormal, MultivariateNormal, Normal,
                                   OneHotCategorical, OneHotCategoricalStraightThrough,
                                   Poisson, StudentT, kl_divergence)

plain = torch_parity.plain
inf, nan = math.inf, math.nan
ALL = ("log_prob", "entropy", "mean", "mode", "variance", "stddev")
# case: class, parameters, a value in the support, what to compare (cdf/icdf: at the value,
# at q = (0.2, 0.9)); "Independent" wraps a Normal of these parameters over 1 axis
CASES_D = {
    "Independent": ("Normal", dict(loc=[[0.1, -0.3, 1.0], [0.0, 2.0, -1.0]],
                                   scale=[[0.5, 2.0, 1.0], [1.5, 0.3, 0.8]]),
                    [[0.7, -1.1, 0.0], [0.2, 2.5, -0.4]], ALL),
    "OneHotCategorical-probs": ("OneHotCategorical", dict(probs=[[0.2, 0.3, 0.5],
                                                                 [0.1, 0.0, 0.9]]),
                                [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]], ALL),
    "OneHotCategorical-logits": ("OneHotCategorical", dict(logits=[[0.2, -1.0, 0.5],
                                                                   [3.0, 0.0, 1.0]]),
                                 [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], ALL),
    "LogNormal": ("LogNormal", dict(loc=[0.1, -0.3], scale=[0.5, 1.2]), [0.7, 2.5],
                  ALL + ("cdf", "icdf")),
    "Gumbel": ("Gumbel", dict(loc=[0.1, -0.3], scale=[0.5, 2.0]), [0.7, -1.1],
               ALL + ("cdf", "icdf")),
    "Cauchy": ("Cauchy", dict(loc=[0.1, -0.3], scale=[0.5, 2.0]), [0.7, -1.1],
               ALL + ("cdf", "icdf")),
    "Poisson": ("Poisson", dict(rate=[0.5, 3.2]), [0.0, 4.0],
                ("log_prob", "mean", "mode", "variance", "stddev")),
    "Geometric-probs": ("Geometric", dict(probs=[0.2, 0.7, 1.0]), [3.0, 1.0, 0.0], ALL),
    "Geometric-logits": ("Geometric", dict(logits=[-1.0, 0.5]), [2.0, 0.0], ALL),
    "Binomial-probs": ("Binomial", dict(total_count=[10.0, 10.0], probs=[0.2, 0.9]),
                       [3.0, 10.0], ALL),
    "Binomial-logits": ("Binomial", dict(total_count=[4.0, 4.0], logits=[-1.0, 2.0]),
                        [0.0, 2.0], ALL),
    "Gamma": ("Gamma", dict(concentration=[0.5, 2.0], rate=[1.5, 0.7]), [0.3, 2.5],
              ALL + ("cdf",)),
    "Beta": ("Beta", dict(concentration1=[0.5, 2.0, 3.0], concentration0=[0.7, 1.0, 4.0]),
             [0.2, 0.9, 0.5], ALL),
    "Dirichlet": ("Dirichlet", dict(concentration=[[0.5, 2.0, 3.0], [0.3, 0.6, 0.9]]),
                  [[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]], ALL),
    "StudentT": ("StudentT", dict(df=[0.8, 1.5, 5.0], loc=[0.1, -0.3, 1.0],
                                  scale=[0.5, 2.0, 1.3]), [0.7, -1.1, 3.0], ALL),
}
KL = {   # p's parameters, q's (the same class as the case of that name)
    "Independent": (CASES_D["Independent"][1], dict(loc=[[0.0, 0.0, 0.5], [1.0, -1.0, 0.0]],
                                                    scale=[[1.0, 1.0, 2.0], [0.5, 0.5, 1.0]])),
    "OneHotCategorical-probs": (dict(probs=[[0.2, 0.3, 0.5], [0.5, 0.0, 0.5]]),
                                dict(logits=[[0.0, 1.0, 2.0], [1.0, 2.0, -1.0]])),
    "LogNormal": (dict(loc=[0.1, -0.3], scale=[0.5, 1.2]), dict(loc=[0.0, 1.0], scale=[1.0, 0.4])),
    "Gumbel": (dict(loc=[0.1, -0.3], scale=[0.5, 2.0]), dict(loc=[1.0, 0.0], scale=[1.0, 0.7])),
    "Cauchy": (dict(loc=[0.1, -0.3], scale=[0.5, 2.0]), dict(loc=[1.0, 0.0], scale=[1.0, 0.7])),
    "Poisson": (dict(rate=[0.5, 3.2]), dict(rate=[1.0, 2.0])),
    "Geometric-probs": (dict(probs=[0.2, 0.7]), dict(probs=[0.5, 0.1])),
    "Binomial-probs": (dict(total_count=[10.0, 10.0, 10.0], probs=[0.2, 0.9, 0.5]),
                       dict(total_count=[10.0, 10.0, 6.0], probs=[0.4, 0.5, 0.5])),
    "Gamma": (dict(concentration=[0.5, 2.0], rate=[1.5, 0.7]),
              dict(concentration=[1.0, 3.0], rate=[1.0, 2.0])),
    "Beta": (dict(concentration1=[0.5, 2.0], concentration0=[0.7, 1.0]),
             dict(concentration1=[1.0, 3.0], concentration0=[2.0, 0.5])),
    "Dirichlet": (dict(concentration=[[0.5, 2.0, 3.0], [0.3, 0.6, 0.9]]),
                  dict(concentration=[[1.0, 1.0, 1.0], [2.0, 0.5, 4.0]])),
}
CASES = list(CASES_D) + [f"KL {k}" for k in KL]


def _make(module, cls_name, params, device=None, wrt=None):
    """The distribution of cls_name from float64 tensors of params (wrt: that one needs a
    gradient; returned too)."""
    kw = {} if module is not tinyffn else {"device": device or "cpu"}
    tensors = {k: module.tensor(np.asarray(v), dtype=module.float64, requires_grad=k == wrt,
                                **kw) for k, v in params.items()}
    d = getattr(module.distributions, cls_name)(**tensors)
    return d, tensors.get(wrt)


def _build(module, case, device=None, wrt=None):
    cls_name, params, _, _ = CASES_D[case]
    d, x = _make(module, cls_name, params, device, wrt)
    if case == "Independent":
        d = module.distributions.Independent(d, 1)
    return d, x


def _outputs(module, case, device=None, wrt=None):
    """{method: result} of the case; and the tensor wrt."""
    d, x = _build(module, case, device, wrt)
    kw = {} if module is not tinyffn else {"device": device or "cpu"}
    value = module.tensor(np.asarray(CASES_D[case][2]), dtype=module.float64, **kw)
    out = {}
    for m in CASES_D[case][3]:
        if m in ("log_prob", "cdf"):
            out[m] = getattr(d, m)(value)
        elif m == "icdf":
            q = np.broadcast_to([0.2, 0.9], d.batch_shape)
            out[m] = d.icdf(module.tensor(np.asarray(q), dtype=module.float64, **kw))
        elif m == "entropy":
            out[m] = d.entropy()
        else:
            out[m] = getattr(d, m)
    return out, x


def _kl(module, case, device=None, wrt=None):
    cls_name = CASES_D[case][0]
    (p, x), (q, _) = (_make(module, cls_name, params, device, wrt if i == 0 else None)
                      for i, params in enumerate(KL[case]))
    if case == "Independent":
        p, q = (module.distributions.Independent(d, 1) for d in (p, q))
    return module.distributions.kl_divergence(p, q), x


def run(module, case, device=None):
    if case.startswith("KL "):
        return _kl(module, case[3:], device)[0]
    return tuple(_outputs(module, case, device)[0].values())


def assert_same(actual, expected, case, device="cpu"):
    tol = 1e-9 if device == "cuda" else 1e-11        # lgamma/digamma: the last bits differ
    torch_parity.assert_close(actual, expected, case, rtol=tol, atol=tol)


# each continuous parameter of each case: L = Σ w·(log_prob + entropy), or Σ w·KL
GRAD_CASES = [(case, k) for case in CASES
              for k in (KL[case[3:]][0] if case.startswith("KL ") else CASES_D[case][1])
              if k != "total_count"]


def grad_of(module, case, wrt, device=None):
    return torch_parity.distribution_grad(module, case, wrt, device, _kl, _outputs)


torch_parity.tests(globals(), assert_grad=torch_parity.assert_grad_through_digamma)




# ----------------------------------------------------------------------------- without torch
def T(a, device="cpu", **kw):
    return tinyffn.tensor(np.asarray(a, dtype=np.float64), device=device, **kw)


def test_log_probs_entropies_and_cdfs_are_scipy_stats():
    """Each density, entropy and cdf against scipy.stats's (an implementation independent of
    PyTorch's formulas)."""
    stats = pytest.importorskip("scipy.stats")
    x, k = np.array([0.3, 1.7, 4.0]), np.array([0.0, 2.0, 7.0])
    m, s = 0.2, 0.6
    checks = [   # (tinyffn's, scipy's)
        (LogNormal(T(m), s).log_prob(T(x)), stats.lognorm.logpdf(x, s, scale=np.exp(m))),
        (LogNormal(T(m), s).cdf(T(x)), stats.lognorm.cdf(x, s, scale=np.exp(m))),
        (LogNormal(T(m), s).entropy(), stats.lognorm.entropy(s, scale=np.exp(m))),
        (Gumbel(T(m), s).log_prob(T(x - 2)), stats.gumbel_r.logpdf(x - 2, m, s)),
        (Gumbel(T(m), s).cdf(T(x - 2)), stats.gumbel_r.cdf(x - 2, m, s)),
        (Gumbel(T(m), s).entropy(), stats.gumbel_r.entropy(m, s)),
        (Cauchy(T(m), s).log_prob(T(x - 2)), stats.cauchy.logpdf(x - 2, m, s)),
        (Cauchy(T(m), s).cdf(T(x - 2)), stats.cauchy.cdf(x - 2, m, s)),
        (Cauchy(T(m), s).entropy(), stats.cauchy.entropy(m, s)),
        (Poisson(T(2.5)).log_prob(T(k)), stats.poisson.logpmf(k, 2.5)),
        (Geometric(T(0.3)).log_prob(T(k)), stats.geom.logpmf(k + 1, 0.3)),   # trials, not fails
        (Geometric(T(0.3)).entropy(), stats.geom.entropy(0.3)),
        (Binomial(7, T(0.35)).log_prob(T(k)), stats.binom.logpmf(k, 7, 0.35)),
        (Binomial(7, T(0.35)).entropy(), stats.binom.entropy(7, 0.35)),
        (Gamma(T(2.5), 1.5).log_prob(T(x)), stats.gamma.logpdf(x, 2.5, scale=1 / 1.5)),
        (Gamma(T(2.5), 1.5).cdf(T(x)), stats.gamma.cdf(x, 2.5, scale=1 / 1.5)),
        (Gamma(T(2.5), 1.5).entropy(), stats.gamma.entropy(2.5, scale=1 / 1.5)),
        (Beta(T(2.5), 0.7).log_prob(T(x / 5)), stats.beta.logpdf(x / 5, 2.5, 0.7)),
        (Beta(T(2.5), 0.7).entropy(), stats.beta.entropy(2.5, 0.7)),
        (Dirichlet(T([0.5, 2.0, 3.0])).log_prob(T([0.2, 0.3, 0.5])),
         stats.dirichlet.logpdf([0.2, 0.3, 0.5], [0.5, 2.0, 3.0])),
        (Dirichlet(T([0.5, 2.0, 3.0])).entropy(), stats.dirichlet.entropy([0.5, 2.0, 3.0])),
        (StudentT(T(3.5), m, s).log_prob(T(x - 2)), stats.t.logpdf(x - 2, 3.5, m, s)),
        (StudentT(T(3.5), m, s).entropy(), stats.t.entropy(3.5, m, s)),
    ]
    for i, (ours, theirs) in enumerate(checks):
        np.testing.assert_allclose(ours.numpy(), theirs, rtol=1e-10, atol=1e-12,
                                   err_msg=f"check {i}")


def test_independent_normal_is_a_diagonal_multivariate_normal():
    loc, scale = np.array([[0.1, -0.3, 1.0]]), np.array([[0.5, 2.0, 1.0]])
    d = Independent(Normal(T(loc), T(scale)), 1)
    mvn = MultivariateNormal(T(loc), T(np.diag(scale[0] ** 2)))
    assert d.batch_shape == mvn.batch_shape == (1,) and d.event_shape == (3,)
    x = T([[0.7, -1.1, 0.0], [0.2, 2.5, -0.4]])
    np.testing.assert_allclose(d.log_prob(x).numpy(), mvn.log_prob(x).numpy(), rtol=1e-12)
    np.testing.assert_allclose(d.entropy().numpy(), mvn.entropy().numpy(), rtol=1e-12)
    q = Independent(Normal(T(loc * 0), T(scale * 0 + 1)), 1)
    mq = MultivariateNormal(T(loc * 0), T(np.eye(3)))
    np.testing.assert_allclose(kl_divergence(d, q).numpy(), kl_divergence(mvn, mq).numpy(),
                               rtol=1e-12)
    assert repr(d) == "Independent(Normal(loc: (1, 3), scale: (1, 3)), 1)"
    s = Independent(Gamma(T(np.ones((2, 3))), 1.0), 1).support   # the row, not each entry
    assert repr(s) == "IndependentConstraint(GreaterThanEq(lower_bound=0.0), 1)"
    assert s.event_dim == 1 and s.check(T([[1.0, 2.0, -1.0], [1.0, 2.0, 3.0]])).tolist() == \
        [False, True]
    from tinyffn.distributions import constraints
    for bad in (-1, 1.0, True):                 # one check for the distribution and constraint
        with pytest.raises(ValueError, match=f"Independent: reinterpreted_batch_ndims must "
                                             f"be an int >= 0, got {bad!r}"):
            Independent(Normal(T(loc), T(scale)), bad)
        with pytest.raises(ValueError, match="constraints.independent: reinterpreted_batch"):
            constraints.independent(constraints.real, bad)


@pytest.mark.parametrize("case", [c for c in CASES_D if c not in ("Poisson", "Binomial-probs",
                                                                  "Binomial-logits")])
def test_log_prob_and_entropy_are_gradchecked(case, device):
    """Central differences in float64 against the gradients of log_prob + entropy, with
    respect to every parameter (and the value, for the continuous distributions)."""
    cls_name, params, value, _ = CASES_D[case]
    names = list(params)
    continuous = cls_name not in ("OneHotCategorical", "Geometric", "Dirichlet")  # simplex
    v = T(value, device)

    def fn(*a):
        d = getattr(tinyffn.distributions, cls_name)(**dict(zip(names, a[:len(names)])))
        d = Independent(d, 1) if case == "Independent" else d
        return d.log_prob(a[-1] if continuous else v) + d.entropy()

    inputs = [T(params[k], device, requires_grad=True) for k in names]
    if continuous:
        inputs.append(T(value, device, requires_grad=True))
    if case in ("Geometric-probs", "OneHotCategorical-probs"):    # off the edges 0 and 1
        inputs = [T(np.clip(params[names[0]], 0.05, 0.9), device, requires_grad=True)]
    assert tinyffn.gradcheck(fn, inputs)


def test_count_log_probs_are_gradchecked(device):
    k = T([0.0, 3.0], device)
    assert tinyffn.gradcheck(lambda r: Poisson(r).log_prob(k), [T([0.5, 3.2], device,
                                                                    requires_grad=True)])
    n = T([4.0, 4.0], device)
    for name in ("probs", "logits"):
        p = T([0.3, 0.8] if name == "probs" else [-1.0, 2.0], device, requires_grad=True)
        assert tinyffn.gradcheck(lambda p: Binomial(n, **{name: p}).log_prob(k)
                                 + Binomial(n, **{name: p}).entropy(), [p])


def test_kl_divergences_are_monte_carlo_estimates():
    """KL(p ‖ q) = E_p[log p − log q]: the closed forms against 40,000 seeded draws of p
    (within 5 standard errors of the estimate)."""
    pairs = [(Gamma(T(2.0), 1.5), Gamma(T(3.0), 1.0)), (Beta(T(2.0), 3.0), Beta(T(1.0), 1.5)),
             (Dirichlet(T([2.0, 1.0, 3.0])), Dirichlet(T([1.0, 1.0, 1.0]))),
             (Gumbel(T(0.5), 2.0), Gumbel(T(0.0), 1.0)), (Cauchy(T(0.5), 2.0), Cauchy(T(0.0), 1.0)),
             (Poisson(T(3.0)), Poisson(T(2.0))), (Geometric(T(0.3)), Geometric(T(0.6))),
             (Binomial(6, T(0.3)), Binomial(6, T(0.5))),
             (LogNormal(T(0.5), 0.8), LogNormal(T(0.0), 1.0)),
             (OneHotCategorical(T([0.2, 0.3, 0.5])), OneHotCategorical(T([0.5, 0.25, 0.25])))]
    tinyffn.manual_seed(2)
    for p, q in pairs:
        x = p.sample((40000,))
        ratio = (p.log_prob(x) - q.log_prob(x)).numpy()
        se = ratio.std() / np.sqrt(len(ratio))
        assert abs(ratio.mean() - kl_divergence(p, q).item()) < 5 * se + 1e-12, type(p).__name__


def _within(draws, mean, var, z=5.0):
    """mean and variance of the draws within z standard errors (the variance's with the
    slack of a kurtosis up to 9: se = var · sqrt((kurtosis − 1) / n))."""
    n = draws.shape[0]
    np.testing.assert_array_less(abs(draws.mean(0) - mean), z * np.sqrt(var / n) + 1e-12)
    np.testing.assert_array_less(abs(draws.var(0) - var), z * var * np.sqrt(8 / n) + 1e-12)


@pytest.mark.parametrize("make", [
    lambda: Independent(Normal(T([[0.1, -0.3]]), T([[0.5, 2.0]])), 1),
    lambda: OneHotCategorical(T([0.2, 0.3, 0.5])),
    lambda: LogNormal(T([0.1, -0.3]), T([0.3, 0.5])), lambda: Gumbel(T([0.1, -0.3]), 2.0),
    lambda: Poisson(T([0.5, 3.2])), lambda: Geometric(T([0.2, 0.7])),
    lambda: Binomial(10, T([0.2, 0.9])), lambda: Gamma(T([0.5, 2.0]), T([1.5, 0.7])),
    lambda: Beta(T([0.5, 2.0]), T([0.7, 1.0])), lambda: Dirichlet(T([0.5, 2.0, 3.0])),
    lambda: StudentT(T([10.0, 30.0]), 0.3, 2.0)], ids=lambda f: "")
def test_mean_and_variance_of_20000_seeded_draws(make):
    d = make()
    tinyffn.manual_seed(11)
    x = d.sample((20000,))
    assert x.shape == (20000,) + d.batch_shape + d.event_shape and not x.requires_grad
    _within(x.numpy(), d.mean.numpy(), d.variance.numpy())


def test_cauchy_draws_have_its_quartiles():
    """No mean or variance: the fraction of 20,000 draws below icdf(q) is q (5 s.e.)."""
    d = Cauchy(T([0.1, -0.3]), T([0.5, 2.0]))
    tinyffn.manual_seed(4)
    x = d.sample((20000,)).numpy()
    for q in (0.25, 0.5, 0.75):
        below = (x < d.icdf(T([q, q])).numpy()).mean(0)
        np.testing.assert_array_less(abs(below - q), 5 * np.sqrt(q * (1 - q) / 20000))
    assert np.isnan(d.mean.numpy()).all() and np.isinf(d.variance.numpy()).all()


SHAPES = {   # case: batch_shape, event_shape
    "Independent": ((2,), (3,)), "OneHotCategorical-probs": ((2,), (3,)),
    "OneHotCategorical-logits": ((2,), (3,)), "LogNormal": ((2,), ()), "Gumbel": ((2,), ()),
    "Cauchy": ((2,), ()), "Poisson": ((2,), ()), "Geometric-probs": ((3,), ()),
    "Geometric-logits": ((2,), ()), "Binomial-probs": ((2,), ()), "Binomial-logits": ((2,), ()),
    "Gamma": ((2,), ()), "Beta": ((3,), ()), "Dirichlet": ((2,), (3,)), "StudentT": ((3,), ())}


@pytest.mark.parametrize("case", list(SHAPES))
def test_shapes_of_draws_and_expand(case, device):
    d, _ = _build(tinyffn, case, device)
    batch, event = SHAPES[case]
    assert d.batch_shape == batch and d.event_shape == event
    assert d.sample().shape == batch + event and d.sample((4, 5)).shape == (4, 5) + batch + event
    e = d.expand((7,) + batch)
    assert e.batch_shape == (7,) + batch and e.sample((2,)).shape == (2, 7) + batch + event
    lp = d.log_prob(d.sample())
    np.testing.assert_allclose(e.log_prob(d.sample() * 0 + T(CASES_D[case][2], device))
                               .numpy(), np.broadcast_to(d.log_prob(
                                   T(CASES_D[case][2], device)).numpy(), (7,) + batch))
    assert lp.shape == batch
    if case != "Poisson":
        assert e.entropy().shape == (7,) + batch


def test_rsample_where_pytorch_has_one(device):
    """LogNormal x = exp(loc + scale eps): dx/dloc = x; Gumbel and Cauchy x = loc + scale eps:
    dx/dloc = 1, dx/dscale = eps = (x − loc)/scale; Independent follows its base."""
    loc = T([0.1, -0.3], device, requires_grad=True)
    scale = T([0.5, 2.0], device, requires_grad=True)
    for cls in (LogNormal, Gumbel, Cauchy):
        loc.grad = scale.grad = None
        x = cls(loc, scale).rsample((3,))                                 # (3, 2)
        x.sum().backward()
        xs, a, b = x.detach().numpy(), loc.detach().numpy(), scale.detach().numpy()
        eps = (np.log(xs) - a) / b if cls is LogNormal else (xs - a) / b
        np.testing.assert_allclose(loc.grad.numpy(), (xs if cls is LogNormal else 1.0 + 0 * xs)
                                   .sum(0), rtol=1e-12)
        np.testing.assert_allclose(scale.grad.numpy(), ((xs if cls is LogNormal else 1.0) * eps)
                                   .sum(0), rtol=1e-10)
    assert Independent(Gumbel(loc, scale), 1).has_rsample
    assert not Independent(Poisson(scale), 1).has_rsample


def test_counts_have_no_rsample_as_in_pytorch():
    for d in (Poisson(T(1.0)), Geometric(T(0.5)), Binomial(3, T(0.5)),
              OneHotCategorical(T([0.5, 0.5]))):
        assert not d.has_rsample, type(d).__name__
        with pytest.raises(NotImplementedError, match="no reparameterised sample"):
            d.rsample()


@pytest.mark.parametrize("cls,args", [(Gamma, ([0.5, 2.0], [1.5, 0.7])),
                                      (Beta, ([0.5, 2.0], [0.7, 3.0])),
                                      (Dirichlet, ([[0.5, 2.0, 3.0]],)),
                                      (StudentT, ([3.0, 7.0], [0.1, -0.3], [0.5, 2.0]))])
def test_rsample_of_the_gamma_family_is_gradchecked(cls, args, device):
    """A draw at a fixed seed (fixed uniforms) is a function of the parameters, so central
    differences check the implicit gradient of StandardGamma and the compositions on it."""
    params = [T(a, device, requires_grad=True) for a in args]

    def draw(*p):
        tinyffn.manual_seed(9)
        return cls(*p).rsample((2,))
    assert cls(*params).has_rsample
    assert tinyffn.gradcheck(draw, params)


def test_gamma_rsample_gradients_are_unbiased():
    """E[dx/dθ] = dE[x]/dθ: the mean of 10,000 seeded per-draw derivatives (a batch of
    10,000 copies of the parameters, one draw each) within 5 standard errors of it, for
    Gamma's mean α/β, Beta's a/(a + b) and Dirichlet's α₀/Σα."""
    n = 10000
    tinyffn.manual_seed(6)
    s0 = 4.0                                                 # Dirichlet([1.5, 0.5, 2.0])
    cases = [(Gamma, (2.0, 1.5), [1 / 1.5, -2.0 / 1.5 ** 2]),
             (Beta, (0.7, 2.0), [2.0 / 2.7 ** 2, -0.7 / 2.7 ** 2]),
             (Dirichlet, ([1.5, 0.5, 2.0],), [[s0 - 1.5, -1.5, -1.5] / np.float64(s0 ** 2)])]
    for cls, args, want in cases:
        params = [T(np.broadcast_to(a, (n,) + np.shape(a)), requires_grad=True) for a in args]
        x = cls(*params).rsample()                                # (n,) or (n, 3)
        x = x[:, 0] if cls is Dirichlet else x
        grads = tinyffn.autograd.grad(x.sum(), params)
        for g, w in zip(grads, want):
            g = g.numpy()                                         # per draw: (n,) or (n, 3)
            se = g.std(0) / np.sqrt(n)
            np.testing.assert_array_less(abs(g.mean(0) - w), 5 * se, err_msg=cls.__name__)


STANDARD_GAMMA_AT = ([0.3, 1.0, 2.5, 7.0], [0.05, 1.2, 2.0, 9.0])   # (α, x)
# torch._standard_gamma_grad(α, x) in PyTorch 2.13, written out
STANDARD_GAMMA_GRAD = [0.49471098700419375, 1.2855478357052799, 0.9534439667878193,
                       1.1581464230912488]


def test_standard_gamma_gradient_is_pytorchs_to_its_approximation():
    """dx/dα at given (α, x), fed as u = P(α, x): PyTorch's fitted approximation
    (``_standard_gamma_grad``) within 1e-4 relative; and the exact value, d/dα of scipy's
    gammaincinv(α, u) by central differences, within 1e-7."""
    special = pytest.importorskip("scipy.special")
    a, x = (np.asarray(v) for v in STANDARD_GAMMA_AT)
    u = special.gammainc(a, x)
    A = T(a, requires_grad=True)
    y = tinyffn.ops.StandardGamma.apply(A, T(u))
    np.testing.assert_allclose(y.detach().numpy(), x, rtol=1e-12)
    y.sum().backward()
    np.testing.assert_allclose(A.grad.numpy(), STANDARD_GAMMA_GRAD, rtol=1e-4)
    h = 1e-6 * a
    exact = (special.gammaincinv(a + h, u) - special.gammaincinv(a - h, u)) / (2 * h)
    np.testing.assert_allclose(A.grad.numpy(), exact, rtol=1e-7)
    torch = pytest.importorskip("torch")
    np.testing.assert_array_equal(torch._standard_gamma_grad(
        torch.tensor(a), torch.tensor(x)).numpy(), STANDARD_GAMMA_GRAD)



def test_standard_gamma_in_the_far_tails():
    """A draw that underflows is floored at the dtype's smallest normal (PyTorch clamps its
    draws to tiny: log_prob stays finite); dx/dα at u = 1e-10 and 1 − 1e-10 is d/dα of
    scipy's gammaincinv within 1e-5 (∂P/∂α from P where P < ½, from Q above: the other
    difference of two numbers near 1 is off by ~1e-4 there)."""
    special = pytest.importorskip("scipy.special")
    for dtype in (tinyffn.float64, tinyffn.float32):      # 0.1^1000, 0.1^100 underflow
        a = tinyffn.tensor([1e-3 if dtype is tinyffn.float64 else 1e-2], dtype=dtype)
        y = tinyffn.ops.StandardGamma.apply(a, tinyffn.tensor([0.1], dtype=dtype))
        assert y.item() == np.finfo(str(dtype)).smallest_normal
    a, u = np.array([2.0, 2.0]), np.array([1e-10, 1 - 1e-10])
    A = T(a, requires_grad=True)
    tinyffn.ops.StandardGamma.apply(A, T(u)).sum().backward()
    h = 1e-5 * a
    exact = (special.gammaincinv(a + h, u) - special.gammaincinv(a - h, u)) / (2 * h)
    np.testing.assert_allclose(A.grad.numpy(), exact, rtol=1e-5)

def test_straight_through_one_hot_passes_the_gradient_of_probs():
    logits = T([0.2, -1.0, 0.5], requires_grad=True)
    d = OneHotCategoricalStraightThrough(logits=logits)
    tinyffn.manual_seed(3)
    x = d.rsample((4,))                                                  # (4, 3)
    assert set(np.unique(x.detach().numpy())) <= {0.0, 1.0}
    np.testing.assert_array_equal(x.detach().numpy().sum(-1), np.ones(4))
    w = T(np.arange(12.0).reshape(4, 3))
    (x * w).sum().backward()
    got = logits.grad.numpy()
    logits.grad = None
    (OneHotCategorical(logits=logits).probs.expand(4, 3) * w).sum().backward()
    np.testing.assert_allclose(got, logits.grad.numpy(), rtol=1e-12)


def test_modes_and_moments_at_the_edges():
    """Beta and Dirichlet below 1 (the first vertex, as PyTorch's), StudentT's mean and
    variance by df, Binomial's mode at p = 1, written out by hand."""
    np.testing.assert_array_equal(Beta(T([0.5, 2.0, 1.0]), T([0.5, 0.5, 3.0])).mode.numpy(),
                                  [1.0, 1.0, 0.0])
    np.testing.assert_array_equal(Dirichlet(T([[0.5, 0.2], [3.0, 2.0]])).mode.numpy(),
                                  [[1.0, 0.0], [2 / 3, 1 / 3]])
    t = StudentT(T([0.5, 1.0, 2.0, 4.0]), 1.0, 2.0)           # df = 1 (Cauchy): no mean
    np.testing.assert_array_equal(t.mean.numpy(), [nan, nan, 1.0, 1.0])
    np.testing.assert_array_equal(t.variance.numpy(), [nan, nan, inf, 8.0])
    assert Binomial(5, T([1.0])).mode.item() == 5.0
    assert Gamma(T(0.5), 1.0).mode.item() == 0.0


ERRORS = [
    (lambda m: m.distributions.Gamma(-1.0, 1.0), ValueError,
     r"parameter concentration .* Gamma\(concentration: -1.0, rate: 1.0\) .* GreaterThan"),
    (lambda m: m.distributions.Beta(m.tensor([0.5]), m.tensor([-1.0])), ValueError,
     r"parameter concentration0"),
    (lambda m: m.distributions.Dirichlet(m.tensor(1.0)), ValueError, r"at least one-dimensional"),
    (lambda m: m.distributions.Dirichlet(m.tensor([1.0, -1.0])), ValueError,
     r"IndependentConstraint\(GreaterThan\(lower_bound=0.0\), 1\)"),
    (lambda m: m.distributions.Dirichlet(m.ones(2)).log_prob(m.tensor([0.5, 0.6])), ValueError,
     r"support \(Simplex\(\)\)"),
    (lambda m: m.distributions.Poisson(m.tensor([-1.0])), ValueError, r"parameter rate"),
    (lambda m: m.distributions.Poisson(1.0).log_prob(m.tensor(0.5)), ValueError,
     r"IntegerGreaterThan\(lower_bound=0\)"),
    (lambda m: m.distributions.Geometric(m.tensor([0.0])), ValueError, r"to be positive"),
    (lambda m: m.distributions.Geometric(m.tensor([1.5])), ValueError, r"probs .* Interval"),
    (lambda m: m.distributions.Geometric(), ValueError, r"Either `probs` or `logits`"),
    (lambda m: m.distributions.Binomial(10, m.tensor([0.5])).log_prob(m.tensor([11.0])),
     ValueError, r"IntegerInterval"),
    (lambda m: m.distributions.Binomial(m.tensor([2.5]), m.tensor([0.5])), ValueError,
     r"parameter total_count"),
    (lambda m: m.distributions.Independent(m.distributions.Normal(m.zeros(2), 1.0), 2),
     ValueError, r"reinterpreted_batch_ndims <= len\(base_distribution.batch_shape\)"),
    (lambda m: m.distributions.OneHotCategorical(m.tensor([0.5, 0.5])).log_prob(
        m.tensor([1.0, 1.0])), ValueError, r"support \(OneHot\(\)\)"),
    (lambda m: m.distributions.LogNormal(0.0, 1.0).log_prob(m.tensor(-1.0)), ValueError,
     r"support \(GreaterThan\(lower_bound=0.0\)\)"),
    (lambda m: m.distributions.StudentT(m.tensor(-1.0)), ValueError, r"parameter df"),
    (lambda m: m.distributions.Cauchy(0.0, 0.0), ValueError, r"parameter scale .* Cauchy"),
    (lambda m: m.distributions.Gumbel(0.0, -1.0), ValueError, r"parameter scale .* Gumbel"),
    (lambda m: m.distributions.Binomial(m.tensor([5.0, 6.0]), m.tensor([0.5, 0.5])).entropy(),
     NotImplementedError, r"Inhomogeneous total count"),
    (lambda m: m.distributions.Poisson(1.0).entropy(), NotImplementedError, None),
    (lambda m: m.distributions.kl_divergence(
        m.distributions.Binomial(3, m.tensor(0.5)), m.distributions.Binomial(4, m.tensor(0.5))),
     NotImplementedError, r"q.total_count > p.total_count"),
]


@pytest.mark.parametrize("make,error,match", ERRORS)
def test_bad_arguments_are_refused_as_torch_refuses_them(make, error, match):
    torch_parity.refused_as_torch(make, error, match)


# PyTorch 2.13's values (torch.distributions, float64), written out by running run(torch, case)
EXPECTED = {
    'Independent': (('float64', [-4.056815599614017, -3.4141921298598144]),
                    ('float64', [4.2568155996140185, 3.2351643520820366]),
                    ('float64', [[0.1, -0.3, 1.0], [0.0, 2.0, -1.0]]),
                    ('float64', [[0.1, -0.3, 1.0], [0.0, 2.0, -1.0]]),
                    ('float64', [[0.25, 4.0, 1.0], [2.25, 0.09, 0.6400000000000001]]),
                    ('float64', [[0.5, 2.0, 1.0], [1.5, 0.3, 0.8]])),
    'OneHotCategorical-probs': (('float64', [-0.6931471805599453, -2.3025850929940455]),
                                ('float64', [1.0296530140645737, 0.3250829733914482]),
                                ('float64', [[0.2, 0.3, 0.5], [0.1, 0.0, 0.9]]),
                                ('float64', [[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]]),
                                ('float64',
                                 [[0.16000000000000003, 0.21, 0.25],
                                  [0.09000000000000001, 0.0, 0.08999999999999998]]),
                                ('float64',
                                 [[0.4, 0.458257569495584, 0.5],
                                  [0.30000000000000004, 0.0, 0.3]])),
    'OneHotCategorical-logits': (('float64', [-2.1749569269138376, -0.16984601955628564]),
                                 ('float64', [0.9585390779842976, 0.5242666167276728]),
                                 ('float64',
                                  [[0.37720860075180745,
                                    0.11361304722994513,
                                    0.5091783520182475],
                                   [0.8437947344813396,
                                    0.042010066134066056,
                                    0.1141951993845945]]),
                                 ('float64', [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]),
                                 ('float64',
                                  [[0.234922272270671,
                                    0.10070512272907138,
                                    0.24991575785422912],
                                   [0.13180518054290521,
                                    0.04024522047747745,
                                    0.10115465582210721]]),
                                 ('float64',
                                  [[0.48468780907989734,
                                    0.31734070449450913,
                                    0.4999157507562941],
                                   [0.36304983203811736,
                                    0.20061211448334185,
                                    0.31804819732566825]])),
    'LogNormal': (('float64', [-0.2862204175488837, -2.531218580359924]),
                  ('float64', [0.8257913526447274, 1.3012600899986273]),
                  ('float64', [1.2523227161918644, 1.5219615556186337]),
                  ('float64', [0.8607079764250578, 0.17552040061699686]),
                  ('float64', [0.44544052198030776, 7.460313432747812]),
                  ('float64', [0.6674133067150427, 2.731357434088005]),
                  ('float64', [0.18052927616098668, 0.8446073496520989]),
                  ('float64', [0.7255606469864294, 3.448232836999121])),
    'Gumbel': (('float64', [-0.8080470313522569, -1.7849718782012158]),
               ('float64', [0.8840684843415875, 2.270362845461478]),
               ('float64', [0.38860783245076647, 0.8544313298030657]),
               ('float64', [0.1, -0.3]),
               ('float64', [0.4112335167120566, 6.579736267392906]),
               ('float64', [0.641274915080932, 2.565099660323728]),
               ('float64', [0.7399340547836063, 0.22496179354991852]),
               ('float64', [-0.13794249766355535, 4.2007346546248865])),
    'Cauchy': (('float64', [-1.3435807445945653, -1.9862970715276187]),
               ('float64', [1.8378770664093453, 3.224171427529236]),
               ('float64', [nan, nan]),
               ('float64', [0.1, -0.3]),
               ('float64', [inf, inf]),
               ('float64', [inf, inf]),
               ('float64', [0.7788579383763045, 0.3788810584091566]),
               ('float64', [-0.5881909602355867, 5.8553670743505055])),
    'Poisson': (('float64', [-0.5, -1.7254505911252225]),
                ('float64', [0.5, 3.2]),
                ('float64', [0.0, 3.0]),
                ('float64', [0.5, 3.2]),
                ('float64', [0.7071067811865476, 1.7888543819998317])),
    'Geometric-probs': (('float64', [-2.2788685663767296, -1.5606477482646683, 0.0]),
                        ('float64',
                         [2.5020121176909393, 0.8726632886498479, 2.220446049250318e-16]),
                        ('float64', [4.0, 0.4285714285714286, 0.0]),
                        ('float64', [0.0, 0.0, 0.0]),
                        ('float64', [20.0, 0.6122448979591838, 0.0]),
                        ('float64', [4.47213595499958, 0.7824607964359517, 0.0])),
    'Geometric-logits': (('float64', [-1.9397850625546684, -0.47407698418010663]),
                         ('float64', [2.1647952402514234, 1.0648845400057592]),
                         ('float64', [2.7182818284590455, 0.6065306597126334]),
                         ('float64', [0.0, 0.0]),
                         ('float64', [10.107337927389697, 0.9744101008840756]),
                         ('float64', [3.179203977002686, 0.9871221306829645])),
    'Binomial-probs': (('float64', [-1.6028268537197228, -1.0536051565782643]),
                       ('float64', [1.6219291434356844, 1.2779073568820198]),
                       ('float64', [2.0, 9.0]),
                       ('float64', [2.0, 9.0]),
                       ('float64', [1.6, 0.8999999999999998]),
                       ('float64', [1.2649110640673518, 0.9486832980505137])),
    'Binomial-logits': (('float64', [-1.2530467500728915, -2.7159525749438362]),
                        ('float64', [1.2516996980880704, 0.8828731747994063]),
                        ('float64', [1.0757656854799804, 3.5231883119115293]),
                        ('float64', [1.0, 4.0]),
                        ('float64', [0.7864477329659274, 0.41997434161402647]),
                        ('float64', [0.8868188839700739, 0.6480542736638857])),
    'Gamma': (('float64', [-0.21764598670764979, -1.5470591560033098]),
              ('float64', [-0.31485517819417574, 1.9338906088402654]),
              ('float64', [0.3333333333333333, 2.857142857142857]),
              ('float64', [0.0, 1.4285714285714286]),
              ('float64', [0.2222222222222222, 4.0816326530612255]),
              ('float64', [0.4714045207910317, 2.0203050891044216]),
              ('float64', [0.6572182888520887, 0.522121655511276])),
    'Beta': (('float64', [-0.04694425784836931, 0.5877866649021191, 0.6286086594223748]),
             ('float64', [-0.1979238823866587, -0.1931471805599453, -0.3443445622221013]),
             ('float64', [0.4166666666666667, 0.6666666666666666, 0.42857142857142855]),
             ('float64', [1.0, 1.0, 0.4]),
             ('float64', [0.11047979797979797, 0.05555555555555555, 0.030612244897959183]),
             ('float64', [0.332385014673944, 0.23570226039551584, 0.1749635530559413])),
    'Dirichlet': (('float64', [0.9067536349052947, -0.2324827112700203]),
                  ('float64', [-1.9146769909858063, -1.8540050905082825]),
                  ('float64',
                   [[0.09090909090909091, 0.36363636363636365, 0.5454545454545454],
                    [0.16666666666666669, 0.33333333333333337, 0.5000000000000001]]),
                  ('float64',
                   [[0.0, 0.3333333333333333, 0.6666666666666666], [1.0, 0.0, 0.0]]),
                  ('float64',
                   [[0.012714558169103624, 0.03560076287349015, 0.03814367450731087],
                    [0.04960317460317461, 0.07936507936507937, 0.08928571428571429]]),
                  ('float64',
                   [[0.11275884962655315, 0.18868164424100758, 0.19530405655620897],
                    [0.222717701593687, 0.28171808490950556, 0.2988071523335984]])),
    'StudentT': (('float64', [-1.424605040137733, -1.8964880832171955, -2.393646398147117]),
                 ('float64', [2.1237593998489483, 2.8428066484045944, 1.8898669368818872]),
                 ('float64', [nan, -0.3, 1.0]),
                 ('float64', [0.1, -0.3, 1.0]),
                 ('float64', [nan, inf, 2.816666666666667]),
                 ('float64', [nan, inf, 1.6782927833565473])),
    'KL Independent': ('float64', [1.5243971805599452, 23.63535688641209]),
    'KL OneHotCategorical-probs': ('float64', [0.07795295037980704, 1.6558650362082408]),
    'KL LogNormal': ('float64', [0.3231471805599453, 8.18263771133189]),
    'KL Gumbel': ('float64', [0.6843058511438409, 6.313632396480138]),
    'KL Cauchy': ('float64', [0.42526773540434404, 0.2760070408712778]),
    'KL Poisson': ('float64', [0.15342640972002736, 0.30401161358635376]),
    'KL Geometric-probs': ('float64', [0.9637237851087868, 1.4750763110546945]),
    'KL Binomial-probs': ('float64', [0.915162218494357, 3.6806420716849706, inf]),
    'KL Gamma': ('float64', [0.6481885115275091, 0.835182186251159]),
    'KL Beta': ('float64', [0.4357603589324598, 0.5076857016975166]),
    'KL Dirichlet': ('float64', [1.2215298104258607, 4.550032924427104]),
}

# PyTorch 2.13's gradients, grad_of(torch, case, wrt)
EXPECTED_GRADS = {
    'Independent dloc': ('float64',
                         [[0.24, -0.020000000000000004, -0.1],
                          [0.017777777777777778, 1.1111111111111112, 0.18749999999999997]]),
    'Independent dscale': ('float64',
                           [[0.288, 0.008000000000000002, 0.1],
                            [0.002370370370370371,
                             1.8518518518518516,
                             0.14062499999999997]]),
    'OneHotCategorical-probs dprobs': ('float64',
                                       [[-0.042021510163047324,
                                         -0.08256802097386373,
                                         0.06634941664953717],
                                        [2.195500423920519,
                                         7.143714083145142,
                                         -0.24394449154672435]]),
    'OneHotCategorical-logits dlogits': ('float64',
                                         [[-0.037101564692974105,
                                           0.1024587891291835,
                                           -0.0653572244362094],
                                          [-0.02857059363325758,
                                           0.013826179908337394,
                                           0.014744413724920186]]),
    'LogNormal dloc': ('float64', [-0.08266997757549296, 0.36892926831585493]),
    'LogNormal dscale': ('float64', [0.16684160353715552, 0.1712225861623806]),
    'Gumbel dloc': ('float64', [0.13976115761755958, -0.049182469764127046]),
    'Gumbel dscale': ('float64', [0.1677133891410715, 0.01967298790565082]),
    'Cauchy dloc': ('float64', [0.19672131147540986, -0.06896551724137931]),
    'Cauchy dscale': ('float64', [0.2360655737704918, 0.027586206896551724]),
    'Poisson drate': ('float64', [-0.1, 0.04999999999999999]),
    'Geometric-probs dprobs': ('float64',
                               [-0.43285887828552444,
                                -0.8723698521058241,
                                -10.513096016735146]),
    'Geometric-logits dlogits': ('float64', [-0.0658357816843186, -0.0426533774055014]),
    'Binomial-probs dprobs': ('float64', [0.8460729422176766, 1.167403742817551]),
    'Binomial-logits dlogits': ('float64', [-0.07810001720333665, -0.3850872642194708]),
    'Gamma dconcentration': ('float64', [0.46324034308404904, 0.09837947714975312]),
    'Gamma drate': ('float64', [-0.06333333333333332, -0.2142857142857143]),
    'Beta dconcentration1': ('float64',
                             [0.15185315532012664,
                              0.028927896837185895,
                              0.07041317261650817]),
    'Beta dconcentration0': ('float64',
                             [0.054415308831942226,
                              -0.0815302052124201,
                              -0.048067047417068215]),
    'Dirichlet dconcentration': ('float64',
                                 [[0.49309223307032735,
                                   -0.016224209043348148,
                                   -0.02963505334431922],
                                  [2.1928152495646387,
                                   0.018628091544950154,
                                   -0.17123387808210877]]),
    'StudentT ddf': ('float64',
                     [-0.12971341085260377, -0.07629906946679985, -0.010298307950600397]),
    'StudentT dloc': ('float64',
                      [0.19285714285714287, -0.06024096385542169, 0.28915662650602403]),
    'StudentT dscale': ('float64',
                        [0.23142857142857143, 0.02409638554216868, 0.4448563484708062]),
    'KL Independent dloc': ('float64',
                            [[0.010000000000000002, -0.03, 0.0125],
                             [-0.8, 2.4000000000000004, -0.2]]),
    'KL Independent dscale': ('float64',
                              [[-0.15000000000000002,
                                0.15000000000000002,
                                -0.07500000000000001],
                               [1.0666666666666667,
                                -0.4266666666666667,
                                -0.08999999999999996]]),
    'KL OneHotCategorical-probs dprobs': ('float64',
                                          [[0.07202151016304734,
                                            0.012568020973863739,
                                            -0.03634941664953718],
                                           [-0.20000000000000007,
                                            -0.5311730072416483,
                                            0.19999999999999996]]),
    'KL LogNormal dloc': ('float64', [0.010000000000000002, -1.625]),
    'KL LogNormal dscale': ('float64', [-0.15000000000000002, 1.3333333333333333]),
    'KL Gumbel dloc': ('float64', [-0.11797665030346619, -1.9200154286992566]),
    'KL Gumbel dscale': ('float64', [-0.13432447121233604, 2.744289950999894]),
    'KL Cauchy dloc': ('float64', [-0.05882352941176471, -0.016260162601626015]),
    'KL Cauchy dscale': ('float64', [-0.10196078431372549, 0.04634146341463413]),
    'KL Poisson drate': ('float64', [-0.06931471805599451, 0.09400072584914715]),
    'KL Geometric-probs dprobs': ('float64', [-1.1750090731143388, 0.44841317904820804]),
    'KL Binomial-probs dprobs': ('float64', [-0.9808292530117262, 4.39444915467244, 0.0]),
    'KL Gamma dconcentration': ('float64', [-0.28007344343701723, 0.24244175801093348]),
    'KL Gamma drate': ('float64', [0.044444444444444446, -0.7755102040816325]),
    'KL Beta dconcentration1': ('float64', [-0.018612213016774848, -0.08949340672444342]),
    'KL Beta dconcentration0': ('float64', [-0.14029849343514764, 0.20398681345702832]),
    'KL Dirichlet dconcentration': ('float64',
                                    [[-0.29657570685342,
                                      0.014657809959082946,
                                      0.0291512166366531],
                                     [-3.4706682557453243,
                                      0.7654798829791405,
                                      -0.49921908589836983]]),
}

