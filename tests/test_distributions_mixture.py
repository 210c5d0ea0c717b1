"""tinyffn.distributions' MixtureSameFamily, Multinomial, NegativeBinomial,
ContinuousBernoulli, VonMises, LowRankMultivariateNormal, Wishart, LKJCholesky,
ExponentialFamily, enumerate_support and the KL pairs of distributions_kl.py: values and
gradients against PyTorch 2.13 live and written out (torch_parity's CASES/EXPECTED, so CI
without torch still compares); densities, moments and KLs against scipy (quadrature) and
NumPy written out; seeded draws within 5 standard errors; gradcheck of log_prob and rsample
on every device; shapes, expand and errors.
"""
import functools
import math
import warnings

import numpy as np
import pytest

import tinyffn
import torch_parity
from tinyffn.distributions import (Bernoulli, Beta, Binomial, Categorical,
                                   ContinuousBernoulli, Dirichlet, Exponential,
                                   ExponentialFamily, Gamma, Gumbel, Independent, LKJCholesky,
                                   LowRankMultivariateNormal, MixtureSameFamily, Multinomial,
                                   MultivariateNormal, NegativeBinomial, Normal,
                                   OneHotCategorical, Pareto, Uniform, VonMises, Wishart,
                                   kl_divergence, register_kl)
from tinyffn.distributions_kl import _kl_expfamily_expfamily

plain = torch_parity.plain
inf, nan = math.inf, math.nan
S3 = [[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 0.5]]
X3 = [[3.0, 0.5, 0.2], [0.5, 2.0, 0.1], [0.2, 0.1, 1.0]]
L3 = np.linalg.cholesky(np.array([[1.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 1.0]])).tolist()


def _mix(D, t):
    return D.MixtureSameFamily(D.Categorical(logits=t("logits", [[0.1, -0.5], [1.0, 0.0]])),
                               D.Normal(t("loc", [[0.0, 2.0], [-1.0, 1.0]]),
                                        t("scale", [[1.0, 0.5], [0.3, 2.0]])))


def _mix_event(D, t):
    comp = D.Independent(D.Normal(t("loc", [[0.0, 2.0], [-1.0, 1.0]]),
                                  t("scale", [[1.0, 0.5], [0.3, 2.0]])), 1)
    return D.MixtureSameFamily(D.Categorical(probs=t("probs", [0.3, 0.7])), comp)


def _lowrank(D, t, s=""):
    return D.LowRankMultivariateNormal(
        t(s + "loc", [[0.1, -0.5, 1.0], [0.0, 0.3, -0.2]]),
        t(s + "cov_factor", [[[1.0, 0.2], [0.5, -0.3], [-0.4, 0.8]],
                             [[0.3, 0.0], [-1.0, 0.6], [0.2, 0.1]]]),
        t(s + "cov_diag", [[0.5, 1.5, 0.8], [1.0, 0.7, 2.0]]))


def _mvn(D, t, s=""):
    return D.MultivariateNormal(t(s + "loc", [0.3, 0.0, -0.5]), t(s + "covariance_matrix", S3))


# case: builder(D, t) of the distribution (t(name, values): a float64 tensor), the value
# log_prob and cdf take, the methods compared
CASES_D = {
    "Mixture": (_mix, [[0.3, -0.2], [1.0, 2.0]], ("log_prob", "cdf", "mean", "variance")),
    "Mixture-event": (_mix_event, [[0.3, -0.2], [1.0, 2.0]], ("log_prob", "mean", "variance")),
    "Multinomial": (lambda D, t: D.Multinomial(4, probs=t("probs", [[0.2, 0.3, 0.5],
                                                                   [0.1, 0.0, 0.9]])),
                    [[1.0, 1.0, 2.0], [1.0, 0.0, 3.0]], ("log_prob", "mean", "variance")),
    "NegativeBinomial-probs": (lambda D, t: D.NegativeBinomial(
        t("total_count", [3.0, 0.5, 2.0]), probs=t("probs", [0.2, 0.7, 0.0])),
        [2.0, 0.0, 5.0], ("log_prob", "mean", "variance", "mode")),
    "NegativeBinomial-logits": (lambda D, t: D.NegativeBinomial(
        t("total_count", [3.0, 0.5]), logits=t("logits", [-1.0, 2.0])),
        [2.0, 7.0], ("log_prob", "mean", "variance", "mode")),
    "ContinuousBernoulli-probs": (lambda D, t: D.ContinuousBernoulli(
        t("probs", [0.2, 0.4995, 0.9])), [0.3, 0.7, 0.95],
        ("log_prob", "entropy", "mean", "variance", "cdf", "icdf")),
    "ContinuousBernoulli-logits": (lambda D, t: D.ContinuousBernoulli(
        logits=t("logits", [-1.5, 0.001, 3.0])), [0.3, 0.7, 0.95],
        ("log_prob", "entropy", "mean", "variance", "cdf", "icdf")),
    "VonMises": (lambda D, t: D.VonMises(t("loc", [0.1, -2.0, 1.0]),
                                         t("concentration", [0.5, 3.0, 10.0])),
                 [0.3, 3.0, -1.0], ("log_prob", "mean", "mode", "variance")),
    "LowRankMultivariateNormal": (_lowrank, [0.2, -0.1, 0.4],
                                  ("log_prob", "entropy", "variance", "covariance_matrix",
                                   "precision_matrix", "scale_tril")),
    "Wishart": (lambda D, t: D.Wishart(t("df", [4.0, 5.5]), covariance_matrix=t(
        "covariance_matrix", S3)), X3, ("log_prob", "entropy", "mean", "mode", "variance")),
    "LKJCholesky": (lambda D, t: D.LKJCholesky(3, t("concentration", [0.5, 2.0])), L3,
                    ("log_prob",)),
}


def _p(cls, **params):
    return lambda D, t: getattr(D, cls)(**{k: t(k, v) for k, v in params.items()})


def _q(cls, **params):
    return lambda D, t: getattr(D, cls)(**{k: t("q_" + k, v) for k, v in params.items()})


N_, EXP_, GAM_ = (dict(loc=[0.3, -1.0], scale=[0.8, 2.0]), dict(rate=[0.5, 3.0]),
                  dict(concentration=[0.7, 3.0], rate=[1.5, 0.4]))
BETA_, UNI_, CB_ = (dict(concentration1=[0.7, 3.0], concentration0=[1.5, 0.4]),
                    dict(low=[0.1, -1.0], high=[0.6, 2.0]), dict(probs=[0.3, 0.8]))
UNIT_ = dict(low=[0.1, 0.3], high=[0.6, 0.9])       # inside (0, 1)
WIDE_ = dict(low=[-1.0, -0.5], high=[3.0, 1.5])     # covers [0, 1]
# p's builder, q's (p's parameters are the ones grad_of differentiates)
KL = {
    "Bernoulli-Poisson": (_p("Bernoulli", probs=[0.3, 0.8]), _q("Poisson", rate=[0.3, 4.0])),
    "Beta-ContinuousBernoulli": (_p("Beta", **BETA_), _q("ContinuousBernoulli", **CB_)),
    "Beta-Exponential": (_p("Beta", **BETA_), _q("Exponential", **EXP_)),
    "Beta-Gamma": (_p("Beta", **BETA_), _q("Gamma", **GAM_)),
    "Beta-Normal": (_p("Beta", **BETA_), _q("Normal", **N_)),
    "Beta-Uniform": (_p("Beta", **BETA_), _q("Uniform", low=[-1.0, 0.1], high=[3.0, 0.9])),
    "ContinuousBernoulli-Exponential": (_p("ContinuousBernoulli", **CB_),
                                        _q("Exponential", **EXP_)),
    "ContinuousBernoulli-Normal": (_p("ContinuousBernoulli", **CB_), _q("Normal", **N_)),
    "ContinuousBernoulli-Uniform": (_p("ContinuousBernoulli", **CB_), _q("Uniform", **WIDE_)),
    "Exponential-Gamma": (_p("Exponential", **EXP_), _q("Gamma", **GAM_)),
    "Exponential-Gumbel": (_p("Exponential", **EXP_), _q("Gumbel", **N_)),
    "Exponential-Normal": (_p("Exponential", **EXP_), _q("Normal", **N_)),
    "Gamma-Exponential": (_p("Gamma", **GAM_), _q("Exponential", **EXP_)),
    "Gamma-Gumbel": (_p("Gamma", **GAM_), _q("Gumbel", **N_)),
    "Gamma-Normal": (_p("Gamma", **GAM_), _q("Normal", **N_)),
    "Gumbel-Normal": (_p("Gumbel", **N_), _q("Normal", loc=[1.0, 0.0], scale=[1.5, 0.7])),
    "Laplace-Normal": (_p("Laplace", **N_), _q("Normal", loc=[1.0, 0.0], scale=[1.5, 0.7])),
    "Normal-Gumbel": (_p("Normal", **N_), _q("Gumbel", loc=[1.0, 0.0], scale=[1.5, 0.7])),
    "Normal-Laplace": (_p("Normal", **N_), _q("Laplace", loc=[1.0, 0.0], scale=[1.5, 0.7])),
    "Uniform-Beta": (_p("Uniform", **UNIT_), _q("Beta", **BETA_)),
    "Uniform-ContinuousBernoulli": (_p("Uniform", **UNIT_), _q("ContinuousBernoulli", **CB_)),
    "Uniform-Exponential": (_p("Uniform", **UNI_), _q("Exponential", **EXP_)),
    "Uniform-Gamma": (_p("Uniform", **UNIT_), _q("Gamma", **GAM_)),
    "Uniform-Gumbel": (_p("Uniform", **UNI_), _q("Gumbel", **N_)),
    "Uniform-Normal": (_p("Uniform", **UNI_), _q("Normal", **N_)),
    "Normal-Uniform": (_p("Normal", **N_), _q("Uniform", **UNI_)),
    "Exponential-Uniform": (_p("Exponential", **EXP_), _q("Uniform", **UNI_)),
    "Gamma-Beta": (_p("Gamma", **GAM_), _q("Beta", **BETA_)),
    "Gumbel-Exponential": (_p("Gumbel", **N_), _q("Exponential", **EXP_)),
    "Laplace-ContinuousBernoulli": (_p("Laplace", **N_), _q("ContinuousBernoulli", **CB_)),
    "Poisson-Binomial": (_p("Poisson", rate=[0.3, 4.0]), lambda D, t: D.Binomial(
        5, t("q_probs", [0.3, 0.8]))),
    "ContinuousBernoulli-ContinuousBernoulli": (_p("ContinuousBernoulli", probs=[0.2, 0.5, 0.9]),
                                                _q("ContinuousBernoulli",
                                                   probs=[0.7, 0.3, 0.5])),
    "LowRank-LowRank": (_lowrank, lambda D, t: D.LowRankMultivariateNormal(
        t("q_loc", [0.0, 0.5, -1.0]), t("q_cov_factor", [[0.3], [1.0], [-0.5]]),
        t("q_cov_diag", [1.0, 0.4, 0.9]))),
    "LowRank-MultivariateNormal": (_lowrank, lambda D, t: _mvn(D, t, "q_")),
    "MultivariateNormal-LowRank": (_mvn, lambda D, t: _lowrank(D, t, "q_")),
    "Wishart-Wishart": (CASES_D["Wishart"][0], lambda D, t: D.Wishart(
        t("q_df", 6.0), scale_tril=t("q_scale_tril", np.linalg.cholesky(X3).tolist()))),
}
CASES = list(CASES_D) + [f"KL {k}" for k in KL]


def _maker(module, device, wrt):
    """t(name, values): a float64 tensor of module (requires_grad if name is wrt); made."""
    kw = {} if module is not tinyffn else {"device": device or "cpu"}
    made = {}

    def t(name, values):
        made[name] = module.tensor(np.asarray(values, dtype=np.float64), dtype=module.float64,
                                   requires_grad=name == wrt, **kw)
        return made[name]
    return t, made, kw


def _outputs(module, case, device=None, wrt=None):
    t, made, kw = _maker(module, device, wrt)
    build, value, methods = CASES_D[case]
    d = build(module.distributions, t)
    v = module.tensor(np.asarray(value), dtype=module.float64, **kw)
    out = {}
    for m in methods:
        if m in ("log_prob", "cdf"):
            out[m] = getattr(d, m)(v)
        elif m == "icdf":
            q = np.broadcast_to([0.2, 0.5, 0.9], d.batch_shape)
            out[m] = d.icdf(module.tensor(np.asarray(q), dtype=module.float64, **kw))
        elif m == "entropy":
            out[m] = d.entropy()
        else:
            out[m] = getattr(d, m)
    return out, made.get(wrt)


def _kl(module, case, device=None, wrt=None):
    t, made, _ = _maker(module, device, wrt)
    p, q = (build(module.distributions, t) for build in KL[case])
    return module.distributions.kl_divergence(p, q), made.get(wrt)


def run(module, case, device=None):
    if case.startswith("KL "):
        return _kl(module, case[3:], device)[0]
    return tuple(_outputs(module, case, device)[0].values())


def assert_same(actual, expected, case, device="cpu"):
    tol = 1e-9 if device == "cuda" else 1e-10      # lgamma/digamma/solves: the last bits
    torch_parity.assert_close(actual, expected, case, rtol=tol, atol=tol)


# the gradient of L = Σ w·(log_prob (+ entropy)), or Σ w·KL, in each continuous parameter
GRAD_CASES = [("Mixture", "logits"), ("Mixture", "scale"), ("Mixture-event", "probs"),
              ("Multinomial", "probs"), ("NegativeBinomial-probs", "probs"),
              ("NegativeBinomial-logits", "total_count"), ("ContinuousBernoulli-probs", "probs"),
              ("ContinuousBernoulli-logits", "logits"), ("VonMises", "concentration"),
              ("VonMises", "loc"), ("LowRankMultivariateNormal", "cov_factor"),
              ("LowRankMultivariateNormal", "cov_diag"), ("Wishart", "df"),
              ("Wishart", "covariance_matrix"), ("LKJCholesky", "concentration")] \
    + [(f"KL {k}", n) for k, n in [
        ("Beta-Gamma", "concentration1"), ("Beta-Normal", "concentration0"),
        ("ContinuousBernoulli-Normal", "probs"), ("Exponential-Gumbel", "rate"),
        ("Gamma-Gumbel", "concentration"), ("Gamma-Normal", "rate"), ("Gumbel-Normal", "scale"),
        ("Normal-Laplace", "loc"), ("Uniform-Beta", "high"), ("Uniform-Gamma", "low"),
        ("ContinuousBernoulli-ContinuousBernoulli", "probs"), ("LowRank-LowRank", "cov_factor"),
        ("LowRank-MultivariateNormal", "cov_diag"), ("MultivariateNormal-LowRank", "loc"),
        ("Wishart-Wishart", "q_df")]]


def grad_of(module, case, wrt, device=None):
    return torch_parity.distribution_grad(module, case, wrt, device, _kl, _outputs)


torch_parity.tests(globals(), assert_grad=torch_parity.assert_grad_through_digamma)


# ----------------------------------------------------------------------------- without torch
def T(a, device="cpu", **kw):
    return tinyffn.tensor(np.asarray(a, dtype=np.float64), device=device, **kw)


@functools.lru_cache
def _nodes(n):
    return np.polynomial.legendre.leggauss(n)


def _gauss(f, low, high, n=200):
    """∫ f over [low, high] by 200-point Gauss-Legendre (exact to ~1e-14 for the smooth
    integrands here), f taking and giving NumPy arrays: one vectorised call."""
    x, w = _nodes(n)
    x = (high - low) / 2 * x + (high + low) / 2
    return (high - low) / 2 * (w * f(x)).sum()


def test_densities_and_moments_are_scipys_and_quadratures():
    """Each density against scipy.stats or its integral: ContinuousBernoulli integrates to
    1 with its mean, variance, entropy and cdf the integrals (also inside the Taylor region
    |p − ½| < 0.001); VonMises is scipy's within its Bessel polynomials' 1e-7; Multinomial,
    NegativeBinomial, LowRankMultivariateNormal and Wishart are scipy's; LKJCholesky(2, η)
    integrates to 1 over r = L₁₀."""
    stats = pytest.importorskip("scipy.stats")
    for p in (0.2, 0.4995, 0.9):
        d = ContinuousBernoulli(T(p))
        pdf = lambda x: np.exp(d.log_prob(T(x)).numpy())
        np.testing.assert_allclose(_gauss(pdf, 0, 1), 1.0, rtol=1e-12)
        mean = _gauss(lambda x: x * pdf(x), 0, 1)
        np.testing.assert_allclose(d.mean.item(), mean, rtol=1e-9)
        np.testing.assert_allclose(d.variance.item(), _gauss(lambda x: (x - mean) ** 2 * pdf(x),
                                                             0, 1), rtol=1e-7)
        np.testing.assert_allclose(d.entropy().item(), -_gauss(lambda x: pdf(x) * np.log(pdf(x)),
                                                               0, 1), rtol=1e-8, atol=1e-12)
        # |p − ½| < 0.001: PyTorch's cdf is x there (the uniform's), 7e-4 off the integral
        np.testing.assert_allclose(d.cdf(T(0.3)).item(), _gauss(pdf, 0, 0.3),
                                   rtol=1e-3 if p == 0.4995 else 1e-10)
        np.testing.assert_allclose(d.icdf(d.cdf(T(0.3))).item(), 0.3, rtol=1e-10)
    x, loc, k = np.array([0.3, 3.0, -1.0]), np.array([0.1, -2.0, 1.0]), np.array([0.5, 3.0, 10.0])
    np.testing.assert_allclose(VonMises(T(loc), T(k)).log_prob(T(x)).numpy(),
                               stats.vonmises.logpdf(x, k, loc), rtol=2e-7)
    special = pytest.importorskip("scipy.special")
    np.testing.assert_allclose(VonMises(T(loc), T(k)).variance.numpy(),
                               1 - special.i1e(k) / special.i0e(k), rtol=2e-6)
    p, v = np.array([[0.2, 0.3, 0.5], [0.1, 0.0, 0.9]]), np.array([[1.0, 1, 2], [1, 0, 3]])
    m = Multinomial(4, probs=T(p))
    np.testing.assert_allclose(m.log_prob(T(v)).numpy(), stats.multinomial.logpmf(v, 4, p),
                               rtol=1e-12)
    np.testing.assert_allclose(m.entropy().numpy(), [stats.multinomial(4, r).entropy()
                                                     for r in p], rtol=1e-12)
    masked = Multinomial(3, logits=T([0.0, -np.inf, 1.0]))     # a count of 0 where p = 0
    np.testing.assert_allclose(masked.log_prob(T([1.0, 0.0, 2.0])).item(),
                               stats.multinomial.logpmf([1, 0, 2], 3, [1 / (1 + math.e), 0,
                                                                       math.e / (1 + math.e)]),
                               rtol=1e-12)
    assert masked.log_prob(T([1.0, 1.0, 1.0])).item() == -inf   # a count where p = 0: −inf
    assert NegativeBinomial(T([0.0, 0.0]), probs=T([0.5, 0.5])).log_prob(
        T([0.0, 1.0])).numpy().tolist()[0] == 0.0              # P(0) = 1 when r = 0
    r, pr, k = np.array([3.0, 0.5, 2.0]), np.array([0.2, 0.7, 0.4]), np.array([2.0, 0.0, 5.0])
    nb = NegativeBinomial(T(r), probs=T(pr))
    np.testing.assert_allclose(nb.log_prob(T(k)).numpy(), stats.nbinom.logpmf(k, r, 1 - pr),
                               rtol=1e-12)
    np.testing.assert_allclose(nb.mean.numpy(), stats.nbinom.mean(r, 1 - pr), rtol=1e-12)
    np.testing.assert_allclose(nb.variance.numpy(), stats.nbinom.var(r, 1 - pr), rtol=1e-12)
    W = np.array([[1.0, 0.2], [0.5, -0.3], [-0.4, 0.8]])
    D = np.array([0.5, 1.5, 0.8])
    mu, xv = np.array([0.1, -0.5, 1.0]), np.array([0.2, -0.1, 0.4])
    lr = LowRankMultivariateNormal(T(mu), T(W), T(D))
    ref = stats.multivariate_normal(mu, W @ W.T + np.diag(D))
    np.testing.assert_allclose(lr.log_prob(T(xv)).item(), ref.logpdf(xv), rtol=1e-12)
    np.testing.assert_allclose(lr.entropy().item(), ref.entropy(), rtol=1e-12)
    np.testing.assert_allclose(lr.precision_matrix.numpy(), np.linalg.inv(W @ W.T + np.diag(D)),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(lr.scale_tril.numpy(), np.linalg.cholesky(W @ W.T + np.diag(D)),
                               rtol=1e-10, atol=1e-12)
    wish = Wishart(T(4.5), covariance_matrix=T(S3))
    np.testing.assert_allclose(wish.log_prob(T(X3)).item(),
                               stats.wishart.logpdf(np.array(X3), 4.5, np.array(S3)), rtol=1e-12)
    np.testing.assert_allclose(wish.entropy().item(), stats.wishart(4.5, np.array(S3)).entropy(),
                               rtol=1e-12)
    np.testing.assert_allclose(wish.mean.numpy(), 4.5 * np.array(S3), rtol=1e-12)
    for eta in (0.5, 2.0):                           # r = sin θ: smooth at r = ±1
        lkj = LKJCholesky(2, T(eta))
        dens = lambda th: np.exp(lkj.log_prob(T(np.stack(
            [np.stack([np.ones_like(th), 0 * th], -1),
             np.stack([np.sin(th), np.cos(th)], -1)], -2))).numpy()) * np.cos(th)
        np.testing.assert_allclose(_gauss(dens, -math.pi / 2, math.pi / 2), 1.0, rtol=1e-12)


def test_mixture_is_the_weighted_sum_written_out(device):
    """log Σ π_j N(x; μ_j, σ_j), its cdf, mean and the law of total variance, in NumPy."""
    w = np.array([[0.3, 0.7], [0.6, 0.4]])
    mu, sd = np.array([[0.0, 2.0], [-1.0, 1.0]]), np.array([[1.0, 0.5], [0.3, 2.0]])
    x = np.array([[0.3, -0.2], [1.0, 2.0], [-3.0, 0.0]])                     # (3, 2)
    d = MixtureSameFamily(Categorical(T(w, device)), Normal(T(mu, device), T(sd, device)))
    z = (x[..., None] - mu) / sd
    pdf = np.exp(-z ** 2 / 2) / (sd * math.sqrt(2 * math.pi))
    np.testing.assert_allclose(d.log_prob(T(x, device)).numpy(), np.log((w * pdf).sum(-1)),
                               rtol=1e-12)
    special = pytest.importorskip("scipy.special")
    np.testing.assert_allclose(d.cdf(T(x, device)).numpy(),
                               (w * special.ndtr(z)).sum(-1), rtol=1e-12)
    mean = (w * mu).sum(-1)
    np.testing.assert_allclose(d.mean.numpy(), mean, rtol=1e-12)
    np.testing.assert_allclose(d.variance.numpy(),
                               (w * (sd ** 2 + (mu - mean[:, None]) ** 2)).sum(-1), rtol=1e-12)
    assert d.batch_shape == (2,) and d.event_shape == () and not d.has_rsample
    assert d.sample((5,)).shape == (5, 2) and d.expand((4, 2)).sample((3,)).shape == (3, 4, 2)


def test_draws_stay_on_the_device_and_score_finite(device):
    """Every new class draws on the parameters' device (host NumPy draws moved there) and
    scores its own draws finitely; enumerate_support and KLs stay there too."""
    ds = [MixtureSameFamily(Categorical(T([0.3, 0.7], device)),
                            Normal(T([0.0, 1.0], device), T([1.0, 2.0], device))),
          Multinomial(3, T([0.2, 0.8], device)), NegativeBinomial(T(2.0, device), T(0.3, device)),
          ContinuousBernoulli(T([0.2, 0.5], device)), VonMises(T(0.1, device), T(2.0, device)),
          LowRankMultivariateNormal(T([0.0, 1.0], device), T([[1.0], [0.5]], device),
                                    T([1.0, 2.0], device)),
          Wishart(T(4.0, device), covariance_matrix=T(np.eye(2), device)),
          LKJCholesky(3, T(1.5, device))]
    for d in ds:
        x = d.sample((3,))
        assert x.device.type == device and x.shape == (3,) + d.batch_shape + d.event_shape
        assert np.isfinite(d.log_prob(x).numpy()).all(), type(d).__name__
    assert OneHotCategorical(T([0.2, 0.8], device)).enumerate_support().device.type == device
    kl = kl_divergence(Normal(T([0.0], device), 1.0), Uniform(T([0.0], device), 1.0))
    assert kl.device.type == device and kl.numpy().tolist() == [inf]


def test_mixture_draws_pick_components_by_their_weights():
    """4000 draws of 0.3 N(−5, 0.1) + 0.7 N(5, 0.1): the share above 0 is 0.7 within 5 SE,
    and an event-shaped mixture's draws keep each row of one component."""
    tinyffn.manual_seed(0)
    d = MixtureSameFamily(Categorical(T([0.3, 0.7])), Normal(T([-5.0, 5.0]), T([0.1, 0.1])))
    share = (d.sample((4000,)).numpy() > 0).mean()
    assert abs(share - 0.7) < 5 * math.sqrt(0.21 / 4000)
    comp = Independent(Normal(T([[-5.0, -5.0], [5.0, 5.0]]), T(0.1)), 1)
    rows = MixtureSameFamily(Categorical(T([0.5, 0.5])), comp).sample((200,)).numpy()
    assert rows.shape == (200, 2) and (np.sign(rows[:, 0]) == np.sign(rows[:, 1])).all()


def test_seeded_draws_have_the_moments():
    """Mean and variance of seeded draws within 5 standard errors (4000 draws): Multinomial,
    NegativeBinomial, ContinuousBernoulli, VonMises (E[cos(x − loc)] = 1 − variance),
    Wishart (mean df Σ), LKJCholesky (E[R] = I, unit rows, E[r²] of its Beta marginal) and
    LowRankMultivariateNormal."""
    tinyffn.manual_seed(3)
    n = 4000

    def close(draws, mean, var, what):
        se = np.sqrt(np.asarray(var) / n)
        assert np.all(np.abs(draws.mean(0) - mean) < 5 * se + 1e-12), what

    d = Multinomial(5, probs=T([0.2, 0.3, 0.5]))
    close(d.sample((n,)).numpy(), d.mean.numpy(), d.variance.numpy(), "Multinomial")
    assert (d.sample((10,)).numpy().sum(-1) == 5).all()
    wide = d.expand((2,))                            # its Categorical is expanded with it
    assert wide.batch_shape == (2,) and wide.probs.shape == (2, 3)
    assert wide.sample((4,)).shape == (4, 2, 3) and wide.mean.shape == (2, 3)
    d = NegativeBinomial(T([3.0, 0.5]), probs=T([0.4, 0.7]))
    close(d.sample((n,)).numpy(), d.mean.numpy(), d.variance.numpy(), "NegativeBinomial")
    d = ContinuousBernoulli(T([0.1, 0.4995, 0.8]))
    close(d.rsample((n,)).numpy(), d.mean.numpy(), d.variance.numpy(), "ContinuousBernoulli")
    d = VonMises(T([0.5, -3.0]), T([2.0, 1e-6]))
    x = d.sample((n,)).numpy()
    assert (np.abs(x) <= math.pi).all()
    c, s = np.cos(x - d.loc.numpy()), np.sin(x - d.loc.numpy())
    close(c, 1 - d.variance.numpy(), c.var(0), "VonMises")
    close(s, 0.0, s.var(0), "VonMises (symmetric about loc)")
    stats = pytest.importorskip("scipy.stats")                  # the whole law, κ = 2
    assert stats.kstest(x[:, 0], stats.vonmises(2.0, loc=0.5).cdf).pvalue > 1e-3
    d = Wishart(T(5.0), covariance_matrix=T(S3))
    X = d.rsample((n,)).numpy()
    close(X, d.mean.numpy(), d.variance.numpy(), "Wishart")
    L = LKJCholesky(3, T(1.5)).sample((n,)).numpy()
    R = L @ np.swapaxes(L, -1, -2)
    np.testing.assert_allclose(np.diagonal(R, axis1=-2, axis2=-1), 1.0, rtol=1e-12)
    close(R, np.eye(3), np.full((3, 3), 0.25), "LKJCholesky")
    # each correlation r: (r + 1)/2 ~ Beta(β, β), β = η − 1 + d/2 = 2, so E[r²] = 1/(2β + 1)
    # and E[r⁴] = 3/((2β + 1)(2β + 3)) (the symmetric Beta's even moments)
    r2 = R[:, [0, 0, 1], [1, 2, 2]] ** 2
    close(r2, np.full(3, 1 / 5), np.full(3, 3 / 35 - 1 / 25), "LKJCholesky's E[r²]")
    d = LowRankMultivariateNormal(T([0.1, -0.5]), T([[1.0], [0.5]]), T([0.5, 1.5]))
    x = d.rsample((n,)).numpy()
    close(x, d.mean.numpy(), d.variance.numpy(), "LowRankMVN")
    cov = np.cov(x.T)                      # a Gaussian's: Var(s_ij) = (σ_ij² + σ_ii σ_jj)/n
    S = d.covariance_matrix.numpy()
    se = np.sqrt((S ** 2 + np.outer(np.diag(S), np.diag(S))) / n)
    assert (np.abs(cov - S) < 5 * se).all()


GRADCHECKED = {
    "ContinuousBernoulli.rsample": lambda p, dev: ContinuousBernoulli(p[0]).rsample((3,)),
    "ContinuousBernoulli.log_prob": lambda p, dev: ContinuousBernoulli(logits=p[0]).log_prob(
        T([0.1, 0.6], dev)) + ContinuousBernoulli(logits=p[0]).entropy(),
    "LowRankMultivariateNormal.rsample": lambda p, dev: LowRankMultivariateNormal(
        p[0], p[1], p[2]).rsample((2,)),
    "LowRankMultivariateNormal.log_prob": lambda p, dev: LowRankMultivariateNormal(
        p[0], p[1], p[2]).log_prob(T([0.2, -0.4], dev)),
    "Wishart.rsample": lambda p, dev: Wishart(
        4.0 + p[0].sum(), covariance_matrix=p[1] @ p[1].mT + tinyffn.eye(
            2, dtype=tinyffn.float64, device=dev)).rsample(),
    "MixtureSameFamily.log_prob": lambda p, dev: MixtureSameFamily(
        Categorical(logits=p[0]), Normal(p[2], p[2].exp())).log_prob(T([0.3, -1.0, 2.0], dev)),
    "VonMises.log_prob": lambda p, dev: VonMises(p[0], p[2].exp() * 5).log_prob(
        T([0.3, 2.0], dev)),
}


@pytest.mark.parametrize("case", list(GRADCHECKED))
def test_rsample_and_log_prob_are_gradchecked(case, device):
    """Central differences in float64 at a fixed seed (a draw is a function of the
    parameters) against the backward, on every device."""
    params = [T([0.3, 0.7], device, requires_grad=True),
              T([[1.0], [0.5]], device, requires_grad=True),
              T([0.5, 1.5], device, requires_grad=True)]

    def fn(*p):
        tinyffn.manual_seed(4)
        return GRADCHECKED[case](p, device)
    assert tinyffn.gradcheck(fn, params)



def test_enumerate_support_is_every_value_once():
    """Each value of the support along a new first axis, batch axes kept as 1 (expand=False)
    or expanded, as PyTorch's; Binomial needs one total_count; the others have none."""
    probs = T([[0.2, 0.8, 0.0], [0.5, 0.25, 0.25]])
    cases = [(Bernoulli(T([0.2, 0.7])), [[0.0, 0.0], [1.0, 1.0]], "float64"),
             (Categorical(probs), [[0, 0], [1, 1], [2, 2]], "int64"),
             (Binomial(2, T([0.2, 0.7])), [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]], "float64"),
             (OneHotCategorical(probs), np.eye(3)[:, None, :].repeat(2, 1), "float64")]
    for d, want, dtype in cases:
        assert d.has_enumerate_support
        values = d.enumerate_support()
        assert tinyffn.backend.dtype_name(values.dtype) == dtype
        np.testing.assert_array_equal(values.numpy(), want)
        small = d.enumerate_support(expand=False)
        assert small.shape == (len(want), 1) + d.event_shape
        np.testing.assert_array_equal(small.numpy(), np.asarray(want)[:, :1])
        np.testing.assert_allclose(d.log_prob(values).exp().numpy().sum(0), 1.0, rtol=1e-12)
    with pytest.raises(NotImplementedError, match="Inhomogeneous total count"):
        Binomial(T([2.0, 3.0]), T([0.2, 0.7])).enumerate_support()
    # Independent enumerates its base's support while no axis is reinterpreted (PyTorch's)
    plain_view = Independent(Bernoulli(T([[0.2, 0.7]])), 0)
    assert plain_view.has_enumerate_support
    np.testing.assert_array_equal(plain_view.enumerate_support().numpy(),
                                  [[[0.0, 0.0]], [[1.0, 1.0]]])
    assert plain_view.enumerate_support(expand=False).shape == (2, 1, 1)
    over_event = Independent(Bernoulli(T([[0.2, 0.7]])), 1)
    assert not over_event.has_enumerate_support
    with pytest.raises(NotImplementedError, match="cartesian product"):
        over_event.enumerate_support()
    for d in (Normal(0.0, 1.0), Multinomial(2, T([0.5, 0.5])), NegativeBinomial(2.0, T(0.5))):
        assert not d.has_enumerate_support
        with pytest.raises(NotImplementedError, match="has no enumerate_support"):
            d.enumerate_support()


class _Rayleigh(ExponentialFamily):
    """A user's exponential family with a carrier measure: p(x) = x/σ² e^(−x²/2σ²), x > 0,
    θ = −1/(2σ²), t(x) = x², F(θ) = −log(−2θ), k(x) = log x, E[k] = log σ + (log 2 − γ)/2."""
    arg_constraints = {}

    def __init__(self, sigma):
        self.sigma = sigma
        super().__init__(sigma.shape)

    _natural_params = property(lambda self: (-0.5 / self.sigma ** 2,))
    _mean_carrier_measure = property(lambda self: self.sigma.log() + (math.log(2)
                                                                      - 0.5772156649015329) / 2)

    def _log_normalizer(self, x):
        return -(-2 * x).log()


class _ExponentialByTheta(ExponentialFamily):
    """Exponential(λ) written by its natural parameter θ = −λ, F(θ) = −log(−θ)."""
    arg_constraints = {}

    def __init__(self, rate):
        self.rate = rate
        super().__init__(rate.shape)

    _natural_params = property(lambda self: (-self.rate,))
    _mean_carrier_measure = 0

    def _log_normalizer(self, x):
        return -(-x).log()


def test_exponential_family_entropy_and_kl_are_the_log_normalizers():
    """ExponentialFamily's entropy F − <θ, ∇F> − E[k] and its Bregman KL, for subclasses a
    user writes (Rayleigh's entropy 1 + log(σ/√2) + γ/2; Exponential's closed forms
    1 − log λ and r − 1 − log r) and for the classes that are exponential families in
    PyTorch (their own closed forms)."""
    sigma = np.array([0.5, 2.0])
    np.testing.assert_allclose(_Rayleigh(T(sigma)).entropy().numpy(),
                               1 + np.log(sigma / math.sqrt(2)) + 0.5772156649015329 / 2,
                               rtol=1e-12)
    rate = T([0.5, 2.0], requires_grad=True)
    mine = _ExponentialByTheta(rate)
    np.testing.assert_allclose(mine.entropy().numpy(), 1 - np.log([0.5, 2.0]), rtol=1e-12)
    kl = kl_divergence(mine, _ExponentialByTheta(T([1.0, 1.0])))
    np.testing.assert_allclose(kl.numpy(), kl_divergence(Exponential(T([0.5, 2.0])),
                                                         Exponential(T([1.0, 1.0]))).numpy(),
                               rtol=1e-12)
    with pytest.raises(NotImplementedError, match="different exponential families"):
        kl_divergence(mine, Wishart(T(3.0), covariance_matrix=T(np.eye(2))))
    families = [Normal(T([0.3]), T([2.0])), Exponential(T([0.5])), Bernoulli(T([0.3])),
                Gamma(T([0.7]), T([2.0])), ContinuousBernoulli(T([0.3])),
                Wishart(T(4.5), covariance_matrix=T(S3))]
    for d in families:
        np.testing.assert_allclose(ExponentialFamily.entropy(d).numpy(), d.entropy().numpy(),
                                   rtol=1e-10, err_msg=type(d).__name__)
    # Normal's and Exponential's θ and F (PyTorch's): their Bregman KL is the closed form
    for p, q in ((Normal(T([0.3, -1.0]), T([2.0, 0.5])), Normal(T([1.0, 0.0]), T([0.7, 3.0]))),
                 (Exponential(T([0.5, 4.0])), Exponential(T([1.5, 0.25])))):
        np.testing.assert_allclose(_kl_expfamily_expfamily(p, q).numpy(),
                                   kl_divergence(p, q).numpy(), rtol=1e-12)
    for d in (Beta(T([0.7]), T([2.0])), Dirichlet(T([[0.7, 2.0, 1.0]]))):  # k(x) ≠ 0, unset
        with pytest.raises(NotImplementedError, match="must define _mean_carrier_measure"):
            ExponentialFamily.entropy(d)                                   # as in PyTorch
        np.testing.assert_allclose(kl_divergence(d, d).numpy(), 0.0, atol=1e-15)
        families.append(d)
    assert all(isinstance(d, ExponentialFamily) for d in families)
    assert not isinstance(Gumbel(0.0, 1.0), ExponentialFamily)
    with pytest.raises(NotImplementedError, match="must define _natural_params"):
        ExponentialFamily(()).entropy()


def test_continuous_bernoulli_taylor_branch_is_the_exact_normaliser():
    """Inside lims (λ = 0.5009) log C is PyTorch's Taylor polynomial: it meets
    log(2 atanh(t)/t), t = 1 − 2λ, to 1e-14 (its x² term is 1.5e-12 there); the
    log-normaliser F(θ) = log((e^θ − 1)/θ) likewise near θ = 0 (θ = 5e-4, its x² term 1e-8)."""
    lam, v = 0.5009, np.array([0.0, 0.3, 1.0])
    log_c = math.log(2 * math.atanh(1 - 2 * lam) / (1 - 2 * lam))
    np.testing.assert_allclose(ContinuousBernoulli(T(lam)).log_prob(T(v)).numpy(),
                               v * math.log(lam) + (1 - v) * math.log1p(-lam) + log_c,
                               rtol=0, atol=1e-14)
    theta = 5e-4
    F = ContinuousBernoulli(logits=T(theta))._log_normalizer(T(theta)).item()
    assert F == pytest.approx(math.log(math.expm1(theta) / theta), rel=1e-12)


def test_cross_family_kls_are_integrals():
    """KL(p ‖ q) = ∫ p (log p − log q) by Gauss-Legendre over p's support, truncated where
    p's mass beyond is < 1e-16; x = low + u^k (k = 3) where a Gamma of α = 0.7 (p or q)
    makes the integrand singular at 0."""
    def integral(p, q, low, high, power=1.0):
        def f(u):
            x = low + u ** power
            lp = p.log_prob(T(x)).numpy()
            return np.exp(lp) * (lp - q.log_prob(T(x)).numpy()) * power * u ** (power - 1)
        return _gauss(f, 0.0, (high - low) ** (1 / power), n=400)
    N1, G1, E1 = Normal(T(0.3), T(0.8)), Gamma(T(0.7), T(1.5)), Exponential(T(0.5))
    B1, U1, L1 = Beta(T(2.0), T(3.0)), Uniform(T(0.1), T(0.6)), Gumbel(T(0.3), T(0.8))
    pairs = [(B1, E1, 0, 1, 1), (B1, G1, 0, 1, 3), (B1, N1, 0, 1, 1),
             (ContinuousBernoulli(T(0.3)), N1, 0, 1, 1), (E1, G1, 0, 90, 3),
             (E1, L1, 0, 90, 1), (E1, N1, 0, 90, 1), (G1, E1, 0, 40, 3),
             (G1, L1, 0, 40, 3), (G1, N1, 0, 40, 3), (L1, N1, -7, 40, 1),
             (tinyffn.distributions.Laplace(T(0.3), T(0.8)), N1, -30, 0.3, 1),
             (N1, L1, -10, 10, 1), (U1, B1, 0.1, 0.6, 1), (U1, G1, 0.1, 0.6, 1),
             (U1, L1, 0.1, 0.6, 1), (U1, N1, 0.1, 0.6, 1), (U1, E1, 0.1, 0.6, 1)]
    for p, q, low, high, power in pairs:
        want = integral(p, q, low, high, power)
        if isinstance(p, tinyffn.distributions.Laplace):        # the kink at loc: two halves
            want += integral(p, q, 0.3, 40, 1)
        np.testing.assert_allclose(kl_divergence(p, q).item(), want, rtol=1e-9, atol=1e-12,
                                   err_msg=f"{type(p).__name__}-{type(q).__name__}")


def test_infinite_and_cross_kls_written_out():
    """+inf where q gives 0 to a set p does not; Bernoulli-Poisson the sum over {0, 1};
    the low-rank Gaussians' KLs are MultivariateNormal's at the same covariances; two
    TransformedDistributions of one transform have their bases' KL."""
    for p, q in [(Normal(T([0.0]), 1.0), Uniform(T([0.0]), 1.0)),
                 (Exponential(T([1.0])), Uniform(T([0.0]), 5.0)),
                 (Gamma(T([1.0]), 1.0), Beta(T([1.0]), 1.0)),
                 (Gumbel(T([0.0]), 1.0), Exponential(T([1.0]))),
                 (tinyffn.distributions.Poisson(T([1.0])), Binomial(3, T([0.5]))),
                 (Beta(T([2.0]), 2.0), Uniform(T([0.2]), 2.0)),
                 (Uniform(T([-0.5]), 0.5), Exponential(T([1.0]))),
                 (ContinuousBernoulli(T([0.3])), Pareto(T([0.5]), 2.0)),
                 (Pareto(T([2.0]), 2.0), ContinuousBernoulli(T([0.3])))]:
        assert kl_divergence(p, q).numpy().tolist() == [inf], (type(p), type(q))
    assert kl_divergence(ContinuousBernoulli(T([0.3])), Uniform(T([0.0]), 2.0)).numpy() \
        .tolist() == [inf]                           # PyTorch's: low >= 0 is inf, 0 included
    np.testing.assert_allclose(kl_divergence(Uniform(T(0.0), 2.0), Exponential(T(1.0))).item(),
                               1 - math.log(2.0), rtol=1e-12)   # low = 0: finite, λ E[x] − H
    np.testing.assert_allclose(kl_divergence(Uniform(T(0.5), 1.0), Beta(T(2.0), 1.0)).item(),
                               1 - math.log(2.0), rtol=1e-12)   # high = 1: −E[log x], finite
    pb, rate = np.array([0.3, 0.8]), np.array([0.3, 4.0])
    want = (1 - pb) * (np.log(1 - pb) + rate) + pb * (np.log(pb) - np.log(rate) + rate)
    got = kl_divergence(Bernoulli(T(pb)), tinyffn.distributions.Poisson(T(rate)))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    W, D = T([[1.0, 0.2], [0.5, -0.3], [-0.4, 0.8]]), T([0.5, 1.5, 0.8])
    Wq, Dq = T([[0.3], [1.0], [-0.5]]), T([1.0, 0.4, 0.9])
    lp, lq = (LowRankMultivariateNormal(T([0.1, -0.5, 1.0]), W, D),
              LowRankMultivariateNormal(T([0.0, 0.5, -1.0]), Wq, Dq))
    mp, mq = (MultivariateNormal(d.loc, d.covariance_matrix) for d in (lp, lq))
    for a, b in [(lp, lq), (lp, mq), (mp, lq)]:
        np.testing.assert_allclose(kl_divergence(a, b).item(), kl_divergence(mp, mq).item(),
                                   rtol=1e-11)
    from tinyffn.distributions import ExpTransform, TanhTransform, TransformedDistribution
    p, q = Normal(T([0.1, 0.5]), 1.0), Normal(T(0.0), 2.0)      # one map of both: the bases'
    tp, tq = (TransformedDistribution(d, [ExpTransform()]) for d in (p, q))
    np.testing.assert_allclose(kl_divergence(tp, tq).numpy(), kl_divergence(p, q).numpy())
    with pytest.raises(NotImplementedError, match="different transforms"):
        kl_divergence(tp, TransformedDistribution(q, [TanhTransform()]))
    with pytest.raises(ValueError, match="parameter cov_diag"):   # checked before Cholesky
        LowRankMultivariateNormal(T([0.0, 0.0]), T([[1.0], [1.0]]), T([1.0, -1.0]))


def test_kl_lookup_is_pytorchs_most_specific_match():
    """The least registered pair in the lexicographic subclass order, p's class first; an
    ambiguous pair warns as PyTorch's, naming the pair to register."""
    class MyNormal(Normal):
        pass

    class MyUniform(Uniform):
        pass

    p, q = MyNormal(T(0.0), 1.0), MyUniform(T(0.0), 1.0)
    assert kl_divergence(p, q).item() == inf                  # (Normal, Uniform)'s
    register_kl(MyNormal, Uniform)(lambda p, q: p.loc * 0 + 1.0)
    register_kl(Normal, MyUniform)(lambda p, q: p.loc * 0 + 2.0)
    with pytest.warns(RuntimeWarning, match=r"Ambiguous kl_divergence\(MyNormal, MyUniform\)"
                                            r"\. Please register_kl\(MyNormal, MyUniform\)"):
        assert kl_divergence(p, q).item() == 1.0             # p's side first
    assert kl_divergence(Normal(T(0.0), 1.0), q).item() == 2.0
    register_kl(MyNormal, MyUniform)(lambda p, q: p.loc * 0 + 3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert kl_divergence(p, q).item() == 3.0


def test_shapes_parameterisations_and_constraints():
    """A mixture whose weights are shared over its batch draws and scores (*s, *B); Wishart
    from Σ, Σ⁻¹ or L is one distribution; expand keeps the values; the new constraints
    check and print as PyTorch's; ContinuousBernoulli clamps a probs outside [0, 1] unless
    validate_args=True is given (PyTorch's quirk, kept)."""
    from tinyffn.distributions import constraints
    shared = MixtureSameFamily(Categorical(T([0.4, 0.6])),
                               Normal(T([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]), T(1.0)))
    assert shared.batch_shape == (3,) and shared.sample((5,)).shape == (5, 3)
    x = T([[0.5], [1.0]])                                                      # (2, 1)
    lp = shared.log_prob(x)
    assert lp.shape == (2, 3)
    wide = shared.expand((4, 3)).log_prob(x.unsqueeze(-1))                    # (2, 4, 3)
    np.testing.assert_allclose(wide.numpy(), np.broadcast_to(lp.numpy()[:, None], (2, 4, 3)))
    S = np.array(S3)
    ws = [Wishart(T([4.0, 6.0]), covariance_matrix=T(S)),
          Wishart(T([4.0, 6.0]), precision_matrix=T(np.linalg.inv(S))),
          Wishart(T([4.0, 6.0]), scale_tril=T(np.linalg.cholesky(S)))]
    for w in ws:
        assert w.batch_shape == (2,) and w.event_shape == (3, 3)
        np.testing.assert_allclose(w.log_prob(T(X3)).numpy(), ws[0].log_prob(T(X3)).numpy(),
                                   rtol=1e-12)
        np.testing.assert_allclose(w.precision_matrix.numpy()[0], np.linalg.inv(S), rtol=1e-10)
    assert ws[0].expand((4, 2)).sample().shape == (4, 2, 3, 3)
    lr = LowRankMultivariateNormal(T([0.0, 1.0]), T([[1.0], [0.5]]), T([0.5, 1.5]))
    big = lr.expand((3,))
    assert big.batch_shape == (3,) and big.rsample((2,)).shape == (2, 3, 2)
    np.testing.assert_allclose(big.log_prob(T([0.1, 0.2])).numpy(),
                               np.full(3, lr.log_prob(T([0.1, 0.2])).item()), rtol=1e-12)
    half = constraints.half_open_interval(0.0, 1.0)
    assert repr(half) == "HalfOpenInterval(lower_bound=0.0, upper_bound=1.0)"
    assert half.check(T([0.0, 0.5, 1.0])).tolist() == [True, True, False]
    counts = constraints.multinomial(3)
    assert counts.event_dim == 1 and repr(counts) == "Multinomial(upper_bound=3)"
    assert counts.check(T([[1.0, 2.0], [2.0, 2.0], [-1.0, 1.0]])).tolist() == [True, False, False]
    L = T(L3)
    assert constraints.corr_cholesky.check(T(np.stack([L3, np.eye(3) * 2]))).tolist() == \
        [True, False]
    eps = np.finfo(np.float64).eps      # tolerance 10 n eps = 20 eps: 1 + 16 eps in, 24 out
    rows = np.array([np.diag([1 + k * eps, 1.0]) for k in (16, 24)])
    assert constraints.corr_cholesky.check(T(rows)).tolist() == [True, False]
    skew = [[[1.0, 1e-3], [0.0, 1.0]], [[1.0, 0.5], [0.5, 1.0]]]      # isclose atol 1e-6
    assert constraints.symmetric.check(T(skew)).tolist() == [False, True]
    assert repr(constraints.corr_cholesky) == "CorrCholesky()" and LKJCholesky(3).support \
        is constraints.corr_cholesky and bool(constraints.lower_cholesky.check(L))
    np.testing.assert_allclose(ContinuousBernoulli(T(1.5)).probs.item(), 1 - 2.0 ** -52)
    two = MixtureSameFamily(Categorical(T([0.5, 0.5])), Uniform(T([0.0, 0.0]), T([1.0, 2.0])))
    assert two.support.check(T([0.5, 1.5])).tolist() == [True, False]  # in every component's


ERRORS = [
    (lambda m: m.distributions.MixtureSameFamily(m.tensor([0.5, 0.5]),
                                                 m.distributions.Normal(0.0, 1.0)),
     ValueError, "The Mixture distribution needs to be an"),
    (lambda m: m.distributions.MixtureSameFamily(
        m.distributions.Categorical(m.tensor([0.5, 0.5])), 3.0),
     ValueError, "The Component distribution needs to be an"),
    (lambda m: m.distributions.MixtureSameFamily(
        m.distributions.Categorical(m.ones(3, 2)),
        m.distributions.Normal(m.zeros(4, 2), 1.0)), ValueError, r"is not compatible with"),
    (lambda m: m.distributions.MixtureSameFamily(
        m.distributions.Categorical(m.tensor([0.5, 0.5])),
        m.distributions.Normal(m.zeros(3), 1.0)), ValueError,
     r"`mixture_distribution component` \(2\) does not equal"),
    (lambda m: m.distributions.MixtureSameFamily(
        m.distributions.Categorical(m.tensor([0.5, 0.5])),
        m.distributions.Exponential(m.ones(2))).log_prob(m.tensor([-1.0])),
     ValueError, r"support \(MixtureSameFamilyConstraint\(GreaterThanEq"),
    (lambda m: m.distributions.MixtureSameFamily(
        m.distributions.Categorical(m.tensor([0.5, 0.5])),
        m.distributions.Normal(m.zeros(2), 1.0)).entropy(), NotImplementedError, None),
    (lambda m: m.distributions.LKJCholesky(2).entropy(), NotImplementedError, None),
    (lambda m: m.distributions.Multinomial(m.tensor(3), m.tensor([0.5, 0.5])),
     NotImplementedError, "inhomogeneous total_count is not supported"),
    (lambda m: m.distributions.Multinomial(2, m.tensor([0.5, 0.5])).log_prob(
        m.tensor([2.0, 1.0])), ValueError, r"within the support \(Multinomial"),
    (lambda m: m.distributions.NegativeBinomial(2.0), ValueError,
     r"Either `probs` or `logits` must be specified, but not both"),
    (lambda m: m.distributions.NegativeBinomial(2.0, m.tensor(1.0)), ValueError,
     r"parameter probs .* HalfOpenInterval\(lower_bound=0.0, upper_bound=1.0\)"),
    (lambda m: m.distributions.NegativeBinomial(-1.0, m.tensor(0.5)), ValueError,
     r"parameter total_count .* GreaterThanEq\(lower_bound=0"),
    (lambda m: m.distributions.NegativeBinomial(2.0, m.tensor(0.5)).entropy(),
     NotImplementedError, None),
    (lambda m: m.distributions.ContinuousBernoulli(m.tensor(1.5), validate_args=True),
     ValueError, "The parameter probs has invalid values"),
    (lambda m: m.distributions.ContinuousBernoulli(m.tensor(0.3)).log_prob(m.tensor(1.5)),
     ValueError, r"support \(Interval\(lower_bound=0.0, upper_bound=1.0\)\)"),
    (lambda m: m.distributions.VonMises(m.tensor(0.0), m.tensor(-1.0)), ValueError,
     r"parameter concentration .* VonMises"),
    (lambda m: m.distributions.VonMises(m.tensor(0.0), m.tensor(1.0)).entropy(),
     NotImplementedError, None),
    (lambda m: m.distributions.LowRankMultivariateNormal(m.tensor(0.0), m.ones(1, 1),
                                                         m.ones(1)),
     ValueError, "loc must be at least one-dimensional"),
    (lambda m: m.distributions.LowRankMultivariateNormal(m.zeros(2), m.ones(2), m.ones(2)),
     ValueError, "cov_factor must be at least two-dimensional"),
    (lambda m: m.distributions.LowRankMultivariateNormal(m.zeros(2), m.ones(3, 1), m.ones(2)),
     ValueError, "cov_factor must be a batch of matrices with shape 2 x m"),
    (lambda m: m.distributions.LowRankMultivariateNormal(m.zeros(2), m.ones(2, 1), m.ones(3)),
     ValueError, r"cov_diag must be a batch of vectors with shape"),
    (lambda m: m.distributions.LowRankMultivariateNormal(m.zeros(3, 2), m.ones(4, 2, 1),
                                                         m.ones(2)),
     ValueError, "Incompatible batch shapes"),
    (lambda m: m.distributions.LowRankMultivariateNormal(m.tensor([0.0, math.nan]),
                                                         m.ones(2, 1), m.ones(2)),
     ValueError, r"parameter loc .* LowRankMultivariateNormal"),
    (lambda m: m.distributions.Wishart(m.tensor(3.0)), (ValueError, AssertionError),
     "Exactly one of covariance_matrix or precision_matrix or scale_tril"),
    (lambda m: m.distributions.Wishart(m.tensor(3.0), scale_tril=m.ones(2)), ValueError,
     "at least two-dimensional"),
    (lambda m: m.distributions.Wishart(m.tensor(0.5), covariance_matrix=m.eye(2)), ValueError,
     r"Value of df=.* expected to be greater than ndim - 1 = 1"),
    (lambda m: m.distributions.Wishart(m.tensor(3.0), covariance_matrix=-m.eye(2)),
     ValueError, r"parameter covariance_matrix .* PositiveDefinite"),
    (lambda m: m.distributions.LKJCholesky(1), ValueError,
     "Expected dim to be an integer greater than or equal to 2. Found dim=1"),
    (lambda m: m.distributions.LKJCholesky(2, m.tensor(-1.0)), ValueError,
     r"parameter concentration .* LKJCholesky"),
    (lambda m: m.distributions.LKJCholesky(2).log_prob(m.eye(2) * 2), ValueError,
     r"support \(CorrCholesky\(\)\)"),
    (lambda m: m.distributions.kl_divergence(
        m.distributions.LowRankMultivariateNormal(m.zeros(2), m.ones(2, 1), m.ones(2)),
        m.distributions.LowRankMultivariateNormal(m.zeros(3), m.ones(3, 1), m.ones(3))),
     ValueError, "different event shapes"),
    (lambda m: m.distributions.kl_divergence(
        m.distributions.Normal(0.0, 1.0), m.distributions.VonMises(0.0, 1.0)),
     NotImplementedError, None),
]


@pytest.mark.parametrize("make,error,match", ERRORS)
def test_bad_arguments_are_refused_as_torch_refuses_them(make, error, match):
    torch_parity.refused_as_torch(make, error, match)


def test_errors_pytorch_raises_differently():
    """Where PyTorch fails on another line (an IndexError unsqueezing a 0-d value, an
    AttributeError reading .dim() of a list), tinyffn's message says what to pass."""
    comp = Independent(Normal(tinyffn.zeros(2, 3), 1.0), 1)
    gmm = MixtureSameFamily(Categorical(tinyffn.tensor([0.5, 0.5])), comp)
    with pytest.raises(ValueError, match=r"Expected value.dim\(\) >= 1 but got 0"):
        gmm.support.check(tinyffn.tensor(0.0))
    with pytest.raises(TypeError, match="LowRankMultivariateNormal: cov_factor must be a "
                                        "Tensor, got list"):
        LowRankMultivariateNormal(tinyffn.zeros(2), [[1.0], [1.0]], tinyffn.ones(2))
    with pytest.raises(NotImplementedError, match="must define _log_normalizer"):
        ExponentialFamily(())._log_normalizer()
    with pytest.raises(ValueError, match="two .*Multivariate Normals with different event"):
        kl_divergence(MultivariateNormal(tinyffn.zeros(3), tinyffn.eye(3)),
                      LowRankMultivariateNormal(tinyffn.zeros(2), tinyffn.ones(2, 1),
                                                tinyffn.ones(2)))


def test_wishart_warns_for_a_low_df_and_redraws_singular_draws():
    """ndim − 1 < df < ndim warns, as PyTorch's; a draw that is not positive definite is
    drawn again (PyTorch's check reads the test the wrong way round and warns "Singular
    sample detected." for good draws: here only for a singular one)."""
    with pytest.warns(UserWarning, match="Low df values detected"):
        w = Wishart(T(1.5), covariance_matrix=T(np.eye(2)))
    tinyffn.manual_seed(0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x = Wishart(T(5.0), covariance_matrix=T(np.eye(2))).rsample((50,))
    assert not [c for c in caught if "Singular" in str(c.message)]
    assert bool(w.support.check(x).all())
    d, real, calls = Wishart(T(5.0), covariance_matrix=T(np.eye(2))), Wishart._bartlett, []

    def first_singular(self, shape):                # the first draw: row 1 all zeros
        calls.append(shape)
        x = real(self, shape)
        return x * T([[1.0, 0.0], [0.0, 0.0]]) if len(calls) == 1 else x
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Wishart, "_bartlett", first_singular)
        with pytest.warns(UserWarning, match="Singular sample detected"):
            x = d.rsample((3,))
    assert len(calls) == 2 and bool(d.support.check(x).all())


# PyTorch 2.13's values (torch.distributions, float64), written out by running run(torch, case)
EXPECTED = {'ContinuousBernoulli-logits': (('float64',
                                 [0.20794756703361816, 0.00019995833333363855,
                                  0.9996814696108118]),
                                ('float64',
                                 [-0.08877294221692081, -4.1666665562267724e-08,
                                  -0.30686855908457966]),
                                ('float64',
                                 [0.37944974987779834, 0.5000833333319444, 0.7190623631579227]),
                                ('float64',
                                 [0.07473397036587248, 0.08333332916666789,
                                  0.0559701056090513]),
                                ('float64', [0.4664511734005041, 0.7, 0.8534096738341719]),
                                ('float64', [0.11257421015425623, 0.5, 0.9667187120279503])),
 'ContinuousBernoulli-probs': (('float64',
                                [0.19842802409409477, -0.0004001668001055725,
                                 0.7951168149662167]),
                               ('float64',
                                [-0.07641445280335896, -1.666667611699424e-07,
                                 -0.17963111600005544]),
                               ('float64',
                                [0.3880141871111483, 0.4998333332888889, 0.6698803866865813]),
                               ('float64',
                                [0.0758978008069574, 0.08333331666667512, 0.0665088624225558]),
                               ('float64', [0.45366139281807033, 0.7, 0.8829532673208573]),
                               ('float64', [0.11723262681851147, 0.5, 0.9576327226510142])),
 'KL Bernoulli-Poisson': ('float64', [0.050327539242887354, 2.3905620875658995]),
 'KL Beta-ContinuousBernoulli': ('float64', [0.10793779046249541, 1.036284609394182]),
 'KL Beta-Exponential': ('float64', [1.0844939132955114, 3.0359540224361465]),
 'KL Beta-Gamma': ('float64', [0.15727512464161186, 5.576035042765438]),
 'KL Beta-Normal': ('float64', [0.98127346178512, 3.545448816312725]),
 'KL Beta-Uniform': ('float64', [1.6185501847645476, inf]),
 'KL ContinuousBernoulli-ContinuousBernoulli': ('float64',
                                                [0.20103591570967994, 0.029736123251875413,
                                                 0.1796311160000552]),
 'KL ContinuousBernoulli-Exponential': ('float64', [0.9376446333639887, 0.8137596028018041]),
 'KL ContinuousBernoulli-Normal': ('float64', [0.8012616935056771, 2.022799674288213]),
 'KL ContinuousBernoulli-Uniform': ('float64', [1.4156805633520197, 0.7695616333633041]),
 'KL Exponential-Gamma': ('float64', [1.31867394499353, 7.025620905323138]),
 'KL Exponential-Gumbel': ('float64', [0.6244211008739025, 1.9783095585055503]),
 'KL Exponential-Normal': ('float64', [4.385460301330517, 1.9468091135438388]),
 'KL Exponential-Uniform': ('float64', [inf, inf]),
 'KL Gamma-Beta': ('float64', [inf, inf]),
 'KL Gamma-Exponential': ('float64', [0.7370854415791569, 18.637518469094722]),
 'KL Gamma-Gumbel': ('float64', [0.7476949279049296, 2.232526171822928]),
 'KL Gamma-Normal': ('float64', [0.7711568540207859, 10.22321647152745]),
 'KL Gumbel-Exponential': ('float64', [inf, inf]),
 'KL Gumbel-Normal': ('float64', [0.21688933424331136, 5.030253093822471]),
 'KL Laplace-ContinuousBernoulli': ('float64', [inf, inf]),
 'KL Laplace-Normal': ('float64', [0.2477333454004349, 7.359642697533808]),
 'KL LowRank-LowRank': ('float64', [1.939592936829209, 0.7260541070935762]),
 'KL LowRank-MultivariateNormal': ('float64', [3.985316516373974, 1.6277418193450677]),
 'KL MultivariateNormal-LowRank': ('float64', [1.1225841258360099, 0.764334232563868]),
 'KL Normal-Gumbel': ('float64', [0.5813910702043632, 243.30423913406048]),
 'KL Normal-Laplace': ('float64', [0.4816081490524168, 0.7832239937212014]),
 'KL Normal-Uniform': ('float64', [inf, inf]),
 'KL Poisson-Binomial': ('float64', [inf, inf]),
 'KL Uniform-Beta': ('float64', [0.6188507750319954, 1.4010173534148127]),
 'KL Uniform-ContinuousBernoulli': ('float64', [0.5957886247537403, 0.4510270357838849]),
 'KL Uniform-Exponential': ('float64', [1.5612943611198906, inf]),
 'KL Uniform-Gamma': ('float64', [0.8494467324397827, 5.304953742595944]),
 'KL Uniform-Gumbel': ('float64', [1.4872814498805664, 0.8624481184595489]),
 'KL Uniform-Normal': ('float64', [1.4071713291170749, 0.8884734250965083]),
 'KL Wishart-Wishart': ('float64', [3.2272194427512124, 0.12214233871575475]),
 'LKJCholesky': (('float64', [-2.5096966591683327, -0.799604532935907]),),
 'LowRankMultivariateNormal': (('float64', [-3.568099851210682, -3.6244269888094256]),
                               ('float64', [4.9389422147355235, 4.997030024649265]),
                               ('float64',
                                [[1.54, 1.8399999999999999, 1.6],
                                 [1.09, 2.0599999999999996, 2.05]]),
                               ('float64',
                                [[[1.54, 0.44, -0.24], [0.44, 1.8399999999999999, -0.44],
                                  [-0.24, -0.44, 1.6]],
                                 [[1.09, -0.3, 0.06], [-0.3, 2.0599999999999996, -0.14],
                                  [0.06, -0.14, 2.05]]]),
                               ('float64',
                                [[[0.7029237374769985, -0.15293396033530973,
                                   0.06338172152933957],
                                  [-0.15293396033530973, 0.6150071560008178,
                                   0.14618687384992843],
                                  [0.06338172152933957, 0.14618687384992843,
                                   0.6747086485381314]],
                                 [[0.956442001169556, 0.13802581669825684,
                                   -0.018567271088984105],
                                  [0.13802581669825684, 0.5076191798090027,
                                   0.030626895693348782],
                                  [-0.018567271088984105, 0.030626895693348782,
                                   0.49043990324995507]]]),
                               ('float64',
                                [[[1.2409673645990855, 0.0, 0.0],
                                  [0.35456210417116735, 1.3093073414159542, 0.0],
                                  [-0.19339751136609126, -0.2836832573067901,
                                   1.2174240067130317]],
                                 [[1.044030650891055, 0.0, 0.0],
                                  [-0.28734788556634533, 1.4062116457562674, 0.0],
                                  [0.057469577113269076, -0.08781483136252836,
                                   1.427930601639727]]])),
 'Mixture': (('float64',
              [[-1.3978864652788459, -2.62307423145179],
               [-1.637360950997962, -3.050347401282841]]),
             ('float64',
              [[0.3990777951857877, 0.8020163693595083],
               [0.5512809067974636, 0.9170214757890333]]),
             ('float64', [0.7086873875484091, -0.46211715726000974]),
             ('float64', [1.6493791914959757, 1.9280086905226086])),
 'Mixture-event': (('float64', [-10.888004813143173, -2.848702689543408]),
                   ('float64', [-0.7, 1.2999999999999998]), ('float64', [0.573, 3.085])),
 'Multinomial': (('float64', [-1.7147984280919268, -1.2323722788476337]),
                 ('float64', [[0.8, 1.2, 2.0], [0.4, 0.0, 3.6]]),
                 ('float64',
                  [[0.6400000000000001, 0.84, 1.0],
                   [0.36000000000000004, 0.0, 0.35999999999999993]])),
 'NegativeBinomial-logits': (('float64', [-1.7745489683630593, -3.515122150053676]),
                             ('float64', [1.103638323514327, 3.694528049465325]),
                             ('float64', [1.509644173224165, 30.993603066037448]),
                             ('float64', [0.0, 0.0])),
 'NegativeBinomial-probs': (('float64',
                             [-2.096547009582775, -0.601986402162968, -178.4265074763577]),
                            ('float64', [0.75, 1.1666666666666665, 4.440892098500637e-16]),
                            ('float64', [0.9375, 3.888888888888888, 4.440892098500638e-16]),
                            ('float64', [0.0, 0.0, 0.0])),
 'VonMises': (('float64', [-1.4093934715241028, -2.5721981275649832, -13.942317527904846]),
              ('float64', [0.1, -2.0, 1.0]), ('float64', [0.1, -2.0, 1.0]),
              ('float64', [0.7575003832967004, 0.19001470263960085, 0.051400180300091414])),
 'Wishart': (('float64', [-8.371832510628677, -9.16937703119186]),
             ('float64', [11.49269910127862, 13.149976640841192]),
             ('float64',
              [[[8.0, 1.2, 0.4], [1.2, 4.0, 0.8], [0.4, 0.8, 2.0]],
               [[11.0, 1.65, 0.55], [1.65, 5.5, 1.1], [0.55, 1.1, 2.75]]]),
             ('float64',
              [[[nan, nan, nan], [nan, nan, nan], [nan, nan, nan]],
               [[3.0, 0.44999999999999996, 0.15000000000000002],
                [0.44999999999999996, 1.5, 0.30000000000000004],
                [0.15000000000000002, 0.30000000000000004, 0.75]]]),
             ('float64',
              [[[32.0, 8.36, 4.04], [8.36, 8.0, 2.16], [4.04, 2.16, 2.0]],
               [[44.0, 11.495, 5.555], [11.495, 11.0, 2.97], [5.555, 2.97, 2.75]]]))}

# PyTorch 2.13's gradients, grad_of(torch, case, wrt)
EXPECTED_GRADS = {'ContinuousBernoulli-logits dlogits': ('float64',
                                        [0.0032651205671010482, 0.039966666667777775,
                                         0.018908196004476924]),
 'ContinuousBernoulli-probs dprobs': ('float64',
                                      [0.010751566355585829, 0.16026682698682695,
                                       0.4466156872930199]),
 'KL Beta-Gamma dconcentration1': ('float64', [0.017840965247195653, 0.043753133831073154]),
 'KL Beta-Normal dconcentration0': ('float64', [0.031931457044608015, -0.992105849970854]),
 'KL ContinuousBernoulli-ContinuousBernoulli dprobs': ('float64',
                                                       [-0.10595296094494677,
                                                        0.05648652402581359,
                                                        0.48711635708504275]),
 'KL ContinuousBernoulli-Normal dprobs': ('float64',
                                          [-0.02217442447075328, 0.16819866663324373]),
 'KL Exponential-Gumbel drate': ('float64', [-0.24061259532170604, 0.06050682624708725]),
 'KL Gamma-Gumbel dconcentration': ('float64', [-0.15938622177026313, 0.19933750647169565]),
 'KL Gamma-Normal drate': ('float64', [0.026157407407407424, -9.812499999999998]),
 'KL Gumbel-Normal dscale': ('float64', [-0.07262494990694743, 1.2791870679225952]),
 'KL LowRank-LowRank dcov_factor': ('float64',
                                    [[[0.026143543144602908, 0.005082164351492238],
                                      [0.0008400966405179714, 0.00814057425739203],
                                      [-0.005647966226800857, 0.02173536206215934]],
                                     [[0.07007078542013301, -0.038599106790571894],
                                      [-0.08207069464203164, 0.05174520877104629],
                                      [-0.04035864610949988, 0.0502332970602449]]]),
 'KL LowRank-MultivariateNormal dcov_diag': ('float64',
                                             [[-0.00892041720452269, 0.025692059531772126,
                                               0.07515852424356097],
                                              [-0.04319266077830111, 0.06212291668272571,
                                               0.16874392301593957]]),
 'KL MultivariateNormal-LowRank dloc': ('float64',
                                        [0.04712352583699055, -0.018249568012400273,
                                         -0.12500736335957374]),
 'KL Normal-Laplace dloc': ('float64', [-0.04122840628633191, -0.1094071207280075]),
 'KL Uniform-Beta dhigh': ('float64', [-0.1155336747117975, -0.8878416052235365]),
 'KL Uniform-Gamma dlow': ('float64', [0.34400668178441995, -0.0586122886681098]),
 'KL Wishart-Wishart dq_df': ('float64', 0.0666338467913703),
 'LKJCholesky dconcentration': ('float64', [0.24767397838069502, 0.11653236787601332]),
 'LowRankMultivariateNormal dcov_diag': ('float64',
                                         [[4.179010839490448e-05, 0.0010224119917660328,
                                           0.005780417100143584],
                                          [0.0015609431605236334, 0.0024669844951865257,
                                           0.007745073941463533]]),
 'LowRankMultivariateNormal dcov_factor': ('float64',
                                           [[[-0.000516317675855004, 0.0009271256720991116],
                                             [0.002553837217064997, -0.004585796994809899],
                                             [-0.006072392467799668, 0.010903889623060993]],
                                            [[0.006252073716671518, -0.0016594189219437151],
                                             [-0.0078598409068697, 0.002086150822174014],
                                             [0.013926543165634513, -0.0036963686440061906]]]),
 'Mixture dlogits': ('float64',
                     [[0.08236482432930332, -0.08236482432930332],
                      [-0.36211082509345843, 0.36211082509345843]]),
 'Mixture dscale': ('float64',
                    [[-0.09067842784602828, 0.3615789641021089],
                     [1.5588287832036847, -0.18951221693294573]]),
 'Mixture-event dprobs': ('float64', [0.46851095981177865, -0.20079041134790512]),
 'Multinomial dprobs': ('float64',
                        [[0.09999999999999998, -0.06666666666666665, 0.0],
                         [1.2, -0.8, -0.1333333333333333]]),
 'NegativeBinomial-logits dtotal_count': ('float64',
                                          [0.027007164581511034, 0.35666789984490743]),
 'NegativeBinomial-probs dprobs': ('float64', [0.6250000000000001, -0.33333333333333326, 0.0]),
 'VonMises dconcentration': ('float64',
                             [0.07375670245673675, -0.10526460751942013, -0.4094239912451023]),
 'VonMises dloc': ('float64', [0.00993346653975306, -0.5753545647978832, -2.727892280477045]),
 'Wishart dcovariance_matrix': ('float64',
                                [[0.039133877411981696, -0.02028073314099457,
                                  0.013626452779702756],
                                 [-0.02028073314099457, 0.21391405082892498,
                                  -0.18310582490063454],
                                 [0.01362645277970276, -0.18310582490063454,
                                  0.4084873928820785]]),
 'Wishart ddf': ('float64', [0.14515859964848501, -0.017294101999468847])}
