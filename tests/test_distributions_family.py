"""The transformed families (distributions_family.py), FisherSnedecor and GeneralizedPareto
(distributions_fisher_pareto.py), the relaxed Bernoulli/Categorical (distributions_relaxed.py)
and the matrix and piecewise transforms (distributions_transforms_more.py): log_prob, cdf,
icdf, entropy, mean, variance, KL and each transform's y, inverse and log|det J| against
PyTorch 2.13 live and written out (torch_parity's CASES/EXPECTED, on every device);
scipy.stats written out; rsample gradchecked in float64 on every device; mean and variance
of seeded draws within 5 standard errors; the Gumbel-softmax's limit (argmax frequencies
are the probs); CorrCholesky's log|det J| against a finite-difference Jacobian; shapes,
expand, supports, biject_to/transform_to and every error.
"""
import math
import warnings

import numpy as np
import pytest

import tinyffn
import torch_parity
from tinyffn.distributions import (Chi2, ExpRelaxedCategorical, Exponential, FisherSnedecor,
                                   Gamma, GeneralizedPareto, HalfCauchy, HalfNormal,
                                   InverseGamma, Kumaraswamy, LogisticNormal,
                                   LogitRelaxedBernoulli, Normal, Pareto, RelaxedBernoulli,
                                   RelaxedOneHotCategorical, TransformedDistribution, Weibull,
                                   biject_to, constraints, kl_divergence, transform_to)
from tinyffn.distributions.transforms import (CatTransform, CorrCholeskyTransform,
                                              CumulativeDistributionTransform, ExpTransform,
                                              LowerCholeskyTransform,
                                              PositiveDefiniteTransform, StackTransform,
                                              identity_transform)

plain = torch_parity.plain
inf, nan = math.inf, math.nan
P2, Q2 = [0.5, 2.0], [0.7, 3.0]
# case: (the distribution from (torch.distributions or tinyffn's, T), a value, its methods)
DISTS = {
    "HalfNormal": (lambda D, T: D.HalfNormal(T(P2)), [0.3, 1.7],
                   ("log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance")),
    "HalfCauchy": (lambda D, T: D.HalfCauchy(T(P2)), [0.3, 1.7],
                   ("log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance")),
    "Pareto": (lambda D, T: D.Pareto(T(P2), T([0.7, 3.0])), [0.9, 2.5],
               ("log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance")),
    "Weibull": (lambda D, T: D.Weibull(T(P2), T([0.7, 3.0])), [0.9, 2.5],
                ("log_prob", "cdf", "icdf", "entropy", "mean", "variance")),
    "Kumaraswamy": (lambda D, T: D.Kumaraswamy(T(P2), T(Q2)), [0.2, 0.6],
                    ("log_prob", "cdf", "icdf", "entropy", "mean", "variance")),
    "InverseGamma": (lambda D, T: D.InverseGamma(T([0.5, 3.0]), T(Q2)), [0.2, 1.6],
                     ("log_prob", "entropy", "mean", "mode", "variance")),
    "Chi2": (lambda D, T: D.Chi2(T([0.5, 3.0])), [0.2, 1.6],
             ("log_prob", "cdf", "entropy", "mean", "mode", "variance")),
    "FisherSnedecor": (lambda D, T: D.FisherSnedecor(T([1.5, 5.0]), T([3.0, 7.0])),
                       [0.2, 1.6], ("log_prob", "mean", "mode", "variance")),
    "LogisticNormal": (lambda D, T: D.LogisticNormal(T([0.1, -0.5]), T(Q2)), [0.2, 0.3, 0.5],
                       ("log_prob",)),
    "RelaxedBernoulli": (lambda D, T: D.RelaxedBernoulli(T(0.7), T([0.2, 0.9])), [0.3, 0.6],
                         ("log_prob",)),
    "RelaxedBernoulli-logits": (lambda D, T: D.RelaxedBernoulli(T(0.4), logits=T([-1.0, 2.0])),
                                [0.3, 0.99], ("log_prob",)),
    "RelaxedOneHotCategorical": (lambda D, T: D.RelaxedOneHotCategorical(
        T(0.7), T([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])), [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]],
        ("log_prob",)),
}
KL = {   # the pairs PyTorch registers, on these families
    "HalfNormal": lambda D, T: (D.HalfNormal(T(P2)), D.HalfNormal(T(Q2))),
    "Pareto": lambda D, T: (D.Pareto(T([0.5, 2.0, 1.0]), T([0.7, 3.0, 2.0])),
                            D.Pareto(T([0.4, 1.0, 2.0]), T([1.0, 2.0, 1.0]))),
    "InverseGamma": lambda D, T: (D.InverseGamma(T([0.5, 3.0]), T(Q2)),
                                  D.InverseGamma(T([1.5, 2.0]), T([1.0, 0.5]))),
    "LogisticNormal": lambda D, T: (D.LogisticNormal(T([0.1, -0.5]), T(Q2)),
                                    D.LogisticNormal(T([0.0, 1.0]), T([1.0, 1.0]))),
    "Pareto-Exponential": lambda D, T: (D.Pareto(T([0.5, 2.0]), T([0.7, 3.0])),
                                        D.Exponential(T([1.0, 0.5]))),
    "Pareto-Gamma": lambda D, T: (D.Pareto(T([0.5, 2.0]), T([0.7, 3.0])),
                                  D.Gamma(T([2.0, 0.5]), T([1.0, 0.5]))),
    "Pareto-Normal": lambda D, T: (D.Pareto(T([0.5, 2.0]), T([2.5, 3.0])),
                                   D.Normal(T([0.0, 1.0]), T([1.0, 2.0]))),
    "Uniform-Pareto": lambda D, T: (D.Uniform(T([0.5, 1.0]), T([2.0, 3.0])),
                                    D.Pareto(T([0.4, 2.0]), T([1.5, 1.0]))),
    "Normal-Pareto": lambda D, T: (D.Normal(T([0.0, 1.0]), T([1.0, 2.0])),
                                   D.Pareto(T([0.4, 2.0]), T([1.5, 1.0]))),
    "Pareto-Uniform": lambda D, T: (D.Pareto(T([0.5, 2.0]), T([0.7, 3.0])),
                                    D.Uniform(T([0.0, 1.0]), T([2.0, 3.0]))),
}
XV = [[0.3, -1.2, 0.8], [1.5, 0.2, -0.4]]           # (2, 3): 3 = D(D − 1)/2 for D = 3
M = [[[0.3, 1.0], [-1.2, 0.8]], [[1.5, -2.0], [0.2, -0.4]]]
TRANSFORMS = {   # case: (the transform, its input; y, inv(y) and, if bijective, log|det J|)
    "LowerCholesky": (lambda D, T: D.LowerCholeskyTransform(), M),
    "PositiveDefinite": (lambda D, T: D.PositiveDefiniteTransform(), M),
    "CorrCholesky": (lambda D, T: D.CorrCholeskyTransform(), XV),
    "Cat": (lambda D, T: D.CatTransform([D.ExpTransform(), D.AffineTransform(1.0, -2.0)],
                                        dim=-1, lengths=[1, 2]), XV),
    "Cat-event": (lambda D, T: D.CatTransform(
        [D.IndependentTransform(D.ExpTransform(), 1), D.SoftplusTransform()], dim=0,
        lengths=[1, 1]), XV),
    "Stack": (lambda D, T: D.StackTransform([D.ExpTransform(), D.TanhTransform()], dim=0), XV),
    "CDF": (lambda D, T: D.CumulativeDistributionTransform(D.Normal(T(0.5), T(2.0))), XV),
}
CASES = list(DISTS) + [f"KL {k}" for k in KL] + list(TRANSFORMS)


def _T(module, device):
    kw = {"device": device or "cpu"} if module is tinyffn else {}
    return lambda v: module.tensor(np.asarray(v, dtype=np.float64), dtype=module.float64,
                                   **kw)


def run(module, case, device=None):
    T, D = _T(module, device), module.distributions
    if case.startswith("KL "):
        return D.kl_divergence(*KL[case[3:]](D, T))
    if case in TRANSFORMS:
        make, x = TRANSFORMS[case]
        t, x = make(D, T), T(x)
        y = t(x)
        return (y, t.inv(y)) + ((t.log_abs_det_jacobian(x, y),) if t.bijective else ())
    make, value, methods = DISTS[case]
    d = make(D, T)
    out = []
    for m in methods:
        if m in ("log_prob", "cdf"):
            out.append(getattr(d, m)(T(value)))
        elif m == "icdf":
            out.append(d.icdf(T([0.2, 0.7])))
        elif m == "entropy":
            out.append(d.entropy())
        else:
            out.append(getattr(d, m))
    return tuple(out)


def assert_same(actual, expected, case, device="cpu"):
    tol = 1e-9 if device == "cuda" else 1e-11        # lgamma, digamma: the last bits differ
    torch_parity.assert_close(actual, expected, case, rtol=tol, atol=tol)


torch_parity.tests(globals())


def T(a, device="cpu", **kw):
    return tinyffn.tensor(np.asarray(a, dtype=np.float64), device=device, **kw)


# ----------------------------------------------------------------------------- scipy.stats
def test_densities_cdfs_entropies_and_moments_are_scipy_stats():
    """An implementation independent of PyTorch's formulas (each family's scipy name)."""
    stats = pytest.importorskip("scipy.stats")
    x = np.array([1.2, 1.7, 4.0])
    s, a, b = 1.1, 2.5, 4.5
    gp_x = np.array([0.4, 1.0, 1.8])
    checks = [   # (tinyffn's distribution, scipy's frozen one, the values)
        (HalfNormal(T(s)), stats.halfnorm(scale=s), x),
        (HalfCauchy(T(s)), stats.halfcauchy(scale=s), x),
        (Pareto(T(s), T(b)), stats.pareto(b, scale=s), x),
        (Weibull(T(s), T(a)), stats.weibull_min(a, scale=s), x),
        (InverseGamma(T(b), T(a)), stats.invgamma(b, scale=a), x),
        (Chi2(T(a)), stats.chi2(a), x),
        (FisherSnedecor(T(a), T(9.5)), stats.f(a, 9.5), x),
        (GeneralizedPareto(T(0.2), T(s), T(0.3)), stats.genpareto(0.3, 0.2, s), gp_x),
        (GeneralizedPareto(T(0.2), T(s), T(-0.3)), stats.genpareto(-0.3, 0.2, s), gp_x),
        (GeneralizedPareto(T(0.2), T(s), T(0.0)), stats.genpareto(0.0, 0.2, s), gp_x),
        (GeneralizedPareto(T(0.2), T(s), T(1e-4)), stats.genpareto(1e-4, 0.2, s), gp_x),
    ]
    for i, (d, ref, v) in enumerate(checks):
        name = f"{type(d).__name__} {i}"
        np.testing.assert_allclose(d.log_prob(T(v)).numpy(), ref.logpdf(v), rtol=1e-10,
                                   err_msg=name)
        np.testing.assert_allclose(d.mean.numpy(), ref.mean(), rtol=1e-10, err_msg=name)
        np.testing.assert_allclose(d.variance.numpy(), ref.var(), rtol=1e-10, err_msg=name)
        if not isinstance(d, (FisherSnedecor, InverseGamma)):
            np.testing.assert_allclose(d.cdf(T(v)).numpy(), ref.cdf(v), rtol=1e-10,
                                       err_msg=name)
            np.testing.assert_allclose(d.entropy().numpy(), ref.entropy(), rtol=1e-10,
                                       err_msg=name)
        if isinstance(d, InverseGamma):
            np.testing.assert_allclose(d.entropy().numpy(), ref.entropy(), rtol=1e-10)
    k = Kumaraswamy(T(a), T(b))       # p(x) = a b x^(a−1) (1 − x^a)^(b−1), written out
    v = np.array([0.2, 0.5, 0.9])
    np.testing.assert_allclose(k.log_prob(T(v)).numpy(), np.log(a * b * v ** (a - 1)
                                                                 * (1 - v ** a) ** (b - 1)))
    np.testing.assert_allclose(k.cdf(T(v)).numpy(), 1 - (1 - v ** a) ** b, rtol=1e-12)
    grid = np.linspace(1e-6, 1 - 1e-6, 200001)      # mode: the density's argmax on a grid
    dens = a * b * grid ** (a - 1) * (1 - grid ** a) ** (b - 1)
    assert k.mode.item() == pytest.approx(grid[dens.argmax()], abs=1e-5)
    assert np.isnan(Kumaraswamy(T([0.5, 2.0]), T([2.0, 0.7])).mode.numpy()).all()  # a·b > 1
    with warnings.catch_warnings():      # a = 1: p(x) = b (1 − x)^(b−1) peaks at 0, and
        warnings.simplefilter("error")  # Weibull k = 1 (Exponential) at 0: no log(0)
        assert Kumaraswamy(T(1.0), T(2.0)).mode.item() == 0.0
        assert Weibull(T([2.0, 1.0]), T([1.0, 0.5])).mode.numpy()[0] == 0.0
    mean = np.trapezoid(grid * dens, grid)
    assert k.mean.item() == pytest.approx(mean, rel=1e-6)


# ----------------------------------------------------------------------------- rsample
RSAMPLED = {   # class, parameters (each gets a gradient)
    "HalfNormal": (HalfNormal, (P2,)), "HalfCauchy": (HalfCauchy, (P2,)),
    "Pareto": (Pareto, (P2, Q2)), "Weibull": (Weibull, (P2, Q2)),
    "Kumaraswamy": (Kumaraswamy, (P2, Q2)), "InverseGamma": (InverseGamma, (P2, Q2)),
    "Chi2": (Chi2, ([1.5, 3.0],)), "FisherSnedecor": (FisherSnedecor, ([1.5, 5.0], Q2)),
    "GeneralizedPareto": (GeneralizedPareto, ([0.1, -0.5], P2, [0.3, -0.2])),
    "LogisticNormal": (LogisticNormal, ([0.1, -0.5], Q2)),
    "RelaxedBernoulli": (RelaxedBernoulli, (0.7, [0.2, 0.9])),
    "RelaxedOneHotCategorical": (RelaxedOneHotCategorical, (0.7, [0.2, 0.3, 0.5])),
}


@pytest.mark.parametrize("case", list(RSAMPLED))
def test_rsample_is_gradchecked(case, device):
    """A draw at a fixed seed is a function of the parameters (temperature included):
    central differences in float64 against its backward, on every device."""
    cls, args = RSAMPLED[case]
    params = [T(a, device, requires_grad=True) for a in args]

    def draw(*p):
        tinyffn.manual_seed(9)
        return cls(*p).rsample((2,))
    assert cls(*params).has_rsample
    assert tinyffn.gradcheck(draw, params)


def _within(draws, mean, var, z=5.0):
    """mean and variance within z standard errors (the variance's with the slack of a
    kurtosis up to 9: se = var · sqrt(8 / n))."""
    n = draws.shape[0]
    np.testing.assert_array_less(abs(draws.mean(0) - mean), z * np.sqrt(var / n))
    np.testing.assert_array_less(abs(draws.var(0) - var), z * var * np.sqrt(8 / n))


@pytest.mark.parametrize("make", [
    lambda: HalfNormal(T([0.5, 2.0])), lambda: Weibull(T([0.5, 2.0]), T([2.0, 3.0])),
    lambda: Kumaraswamy(T([0.5, 2.0]), T([0.7, 3.0])),
    lambda: GeneralizedPareto(T(0.1), T(0.5), T([-0.3, 0.0])),
    lambda: Chi2(T([3.0, 8.0])), lambda: FisherSnedecor(T([5.0, 10.0]), T([30.0, 40.0]))],
    ids=["HalfNormal", "Weibull", "Kumaraswamy", "GeneralizedPareto", "Chi2", "F"])
def test_mean_and_variance_of_20000_seeded_draws(make):
    """Parameters where the kurtosis is at most 9 (so the variance's bound holds): scipy
    gives 3.9 for HalfNormal, 3.2 and 2.7 for Weibull k = 2, 3, 3.3 and 9 for
    GeneralizedPareto ξ = −0.3, 0, 7 and 4.5 for Chi2 df = 3, 8, 7.0 for F(5, 30); 1.6 and
    2.3 for these Kumaraswamys (2,000,000 draws)."""
    d = make()
    tinyffn.manual_seed(11)
    x = d.sample((20000,))
    assert x.shape == (20000,) + d.batch_shape and not x.requires_grad
    _within(x.numpy(), d.mean.numpy(), d.variance.numpy())


def test_relaxed_one_hot_tends_to_a_categorical_draw_and_trains_its_logits():
    """At temperature 0.05 each Gumbel-softmax row is nearly one-hot, and the argmax of
    20,000 rows falls on category k with frequency probs[k] (5 standard errors): the
    Gumbel-max trick. The gradient of a relaxed sample reaches the logits."""
    probs = np.array([0.2, 0.3, 0.5])
    d = RelaxedOneHotCategorical(T(0.05), T(probs))
    tinyffn.manual_seed(5)
    y = d.sample((20000,)).numpy()
    np.testing.assert_allclose(y.sum(-1), 1.0, rtol=1e-12)
    assert np.median(y.max(-1)) > 0.999
    freq = np.bincount(y.argmax(-1), minlength=3) / 20000
    np.testing.assert_array_less(abs(freq - probs), 5 * np.sqrt(probs * (1 - probs) / 20000))
    rb = RelaxedBernoulli(T(0.05), T([0.3]))
    b = rb.sample((20000,)).numpy()
    assert abs((b > 0.5).mean() - 0.3) < 5 * math.sqrt(0.21 / 20000)
    logits = T([0.0, 0.0, 0.0], requires_grad=True)
    tinyffn.manual_seed(1)
    y = RelaxedOneHotCategorical(T(0.5), logits=logits).rsample((4,))
    (y * T([1.0, 2.0, 3.0])).sum().backward()
    g = logits.grad.numpy()
    assert np.abs(g).sum() > 0 and abs(g.sum()) < 1e-12        # softmax: the rows sum to 1
    assert not LogitRelaxedBernoulli(T(0.5), T(0.3)).has_rsample          # as PyTorch's
    e = ExpRelaxedCategorical(T(0.5), T(probs))
    np.testing.assert_allclose(np.exp(e.rsample((3,)).numpy()).sum(-1), 1.0, rtol=1e-12)


def test_gradients_and_shapes_match_torch_live():
    """For each case, d/dθ Σ (log_prob + entropy where PyTorch has one) for every tensor the
    case builds, and batch_shape, event_shape and a draw's shape, against PyTorch's."""
    torch = pytest.importorskip("torch")
    for case, (make, value, methods) in DISTS.items():
        got = []
        for module in (tinyffn, torch):
            made = []

            def T(v):
                made.append(module.tensor(np.asarray(v, dtype=np.float64), dtype=module.float64,
                                          requires_grad=True))
                return made[-1]
            d = make(module.distributions, T)
            v = module.tensor(np.asarray(value, dtype=np.float64), dtype=module.float64)
            y = d.log_prob(v).sum() + (d.entropy().sum() if "entropy" in methods else 0)
            grads = module.autograd.grad(y, made)
            got.append(([g.detach().numpy() for g in grads], tuple(d.batch_shape),
                        tuple(d.event_shape), tuple(d.rsample((2,)).shape)))
        (ours, *shapes), (theirs, *torch_shapes) = got
        assert shapes == torch_shapes, case
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-12, err_msg=case)


# ----------------------------------------------------------------------------- shapes
SHAPED = {   # the distribution, its batch and event shapes
    "HalfNormal": (lambda: HalfNormal(T(P2)), (2,), ()),
    "Pareto": (lambda: Pareto(T(P2), 3.0), (2,), ()),
    "Weibull": (lambda: Weibull(T(P2), 3.0), (2,), ()),
    "Kumaraswamy": (lambda: Kumaraswamy(T(P2), 3.0), (2,), ()),
    "InverseGamma": (lambda: InverseGamma(T(P2), 3.0), (2,), ()),
    "Chi2": (lambda: Chi2(T(P2)), (2,), ()),
    "FisherSnedecor": (lambda: FisherSnedecor(T(P2), 3.0), (2,), ()),
    "GeneralizedPareto": (lambda: GeneralizedPareto(0.0, T(P2), 0.2), (2,), ()),
    "LogisticNormal": (lambda: LogisticNormal(T([[0.1, -0.5], [0.0, 0.2]]), 1.0), (2,), (3,)),
    "LogisticNormal-0d": (lambda: LogisticNormal(0.1, 1.0), (), (2,)),
    "RelaxedBernoulli": (lambda: RelaxedBernoulli(T(0.5), T(P2) / 3), (2,), ()),
    "RelaxedOneHotCategorical": (lambda: RelaxedOneHotCategorical(
        T(0.5), T([[0.2, 0.8], [0.5, 0.5]])), (2,), (2,)),
}


@pytest.mark.parametrize("case", list(SHAPED))
def test_shapes_of_draws_and_expand(case):
    make, batch, event = SHAPED[case]
    d = make()
    assert (d.batch_shape, d.event_shape) == (batch, event)
    x = d.sample((4,))
    assert x.shape == (4,) + batch + event and d.log_prob(x).shape == (4,) + batch
    assert bool(d.support.check(x).all())
    e = d.expand((3,) + batch)
    assert (e.batch_shape, e.event_shape) == ((3,) + batch, event)
    assert type(e) is type(d) and e.rsample((2,)).shape == (2, 3) + batch + event
    np.testing.assert_allclose(e.log_prob(x[0]).numpy(),
                               np.broadcast_to(d.log_prob(x[0]).numpy(), (3,) + batch))


def test_transformed_distribution_has_no_closed_form_moments_as_pytorchs():
    td = TransformedDistribution(Normal(0.0, 1.0), ExpTransform())
    for name, what in (("mean", "mean"), ("mode", "mode"), ("variance", "variance"),
                       ("stddev", "variance")):
        with pytest.raises(NotImplementedError, match=f"Distribution does not implement {what}"):
            getattr(td, name)
    with pytest.raises(NotImplementedError, match="does not implement entropy"):
        td.entropy()
    with pytest.raises(NotImplementedError, match="no closed-form entropy"):
        FisherSnedecor(1.0, 2.0).entropy()
    assert HalfNormal(T(1.0)).entropy().item() == pytest.approx(
        0.5 * math.log(math.pi / 2) + 0.5)
    for d in (HalfNormal(T(1.0), validate_args=False), HalfCauchy(T(1.0), validate_args=False)):
        assert d.log_prob(T([-1.0])).tolist() == [-math.inf]             # off the support


def test_a_distribution_without_a_method_raises_not_implemented_as_pytorchs():
    """The base class's mean, mode, variance (so stddev), log_prob, entropy, cdf and icdf
    raise NotImplementedError naming the class, as torch.distributions.Distribution's; a
    family fills in what it has (InverseGamma's icdf needs its base Gamma's, which has none)."""
    from tinyffn.distributions import Distribution, InverseGamma

    class Bare(Distribution):
        pass

    d = Bare()
    for name in ("mean", "mode", "variance", "stddev"):
        with pytest.raises(NotImplementedError, match="Bare does not implement "):
            getattr(d, name)
    for method in ("log_prob", "cdf", "icdf"):
        with pytest.raises(NotImplementedError, match=f"Bare does not implement {method}"):
            getattr(d, method)(T(0.5))
    with pytest.raises(NotImplementedError, match=r"Bare does not implement entropy\(\)"):
        d.entropy()
    with pytest.raises(NotImplementedError, match="Gamma does not implement icdf"):
        InverseGamma(T(2.0), T(1.0)).icdf(T(0.5))


def test_fisher_snedecor_draws_stay_at_or_above_tiny():
    """df1 = df2 = 0.01 in float32: about 6 draws in 10,000 of X1/X2 fall below the
    smallest normal float; PyTorch clamps them to it, and so does tinyffn."""
    tinyffn.manual_seed(0)
    x = FisherSnedecor(tinyffn.tensor(0.01), tinyffn.tensor(0.01)).sample((20000,)).numpy()
    assert x.min() == np.finfo(np.float32).tiny and np.isfinite(x).all()


def test_reprs_supports_and_parameters_are_pytorchs():
    assert repr(HalfNormal(T(1.0))) == "HalfNormal()" and repr(Chi2(T(2.0))) == "Chi2()"
    assert repr(Pareto(1.0, 2.0)) == "Pareto(alpha: 2.0, scale: 1.0)"
    assert repr(Weibull(T(P2), 2.0)) == "Weibull(scale: (2,), concentration: (2,))"
    assert repr(RelaxedOneHotCategorical(T(0.5), T([0.5, 0.5]))) == \
        "RelaxedOneHotCategorical()"
    assert repr(Pareto(1.0, 2.0).support) == "GreaterThanEq(lower_bound=1.0)"
    gp = GeneralizedPareto(T([0.0, 1.0]), T([1.0, 2.0]), T([-0.5, 0.5]))
    np.testing.assert_array_equal(gp.support.upper_bound.numpy(), [2.0, math.inf])
    assert gp.support.check(T([2.5, 1e6])).tolist() == [False, True]
    assert Chi2(T([3.0])).df.tolist() == [3.0] and InverseGamma(2.0, 3.0).rate.item() == 3.0
    r = RelaxedBernoulli(T(0.5), logits=T([0.0]))
    assert r.probs.tolist() == [0.5] and r.temperature.item() == 0.5
    assert LogisticNormal(T([0.1]), 2.0).scale.tolist() == [2.0]
    assert RelaxedBernoulli(0.5, T([0.3])).temperature.dtype == tinyffn.float64  # number


def test_kl_pairs_against_monte_carlo_and_the_edges():
    """KL(p ‖ q) = E_p[log p − log q] within 5 standard errors of 40,000 draws; inf where
    PyTorch's is (q's support misses p's); unequal transforms are refused."""
    tinyffn.manual_seed(2)
    pairs = [(HalfNormal(T(0.5)), HalfNormal(T(2.0))), (Pareto(T(1.0), 3.0), Pareto(T(0.5), 2.0)),
             (Pareto(T(1.0), 3.0), Gamma(T(2.0), 1.0)), (Pareto(T(1.0), 4.0), Normal(T(1.0), 2.0)),
             (InverseGamma(T(3.0), 2.0), InverseGamma(T(2.0), 1.0))]
    for p, q in pairs:
        x = p.sample((40000,))
        ratio = (p.log_prob(x) - q.log_prob(x)).numpy()
        se = ratio.std() / math.sqrt(len(ratio))
        assert abs(ratio.mean() - kl_divergence(p, q).item()) < 5 * se, type(q).__name__
    assert kl_divergence(Pareto(T([0.5, 2.0]), 2.0), Pareto(T(1.0), 2.0)).tolist()[0] == math.inf
    same_scale = kl_divergence(Pareto(T(1.0), 3.0), Pareto(T(1.0), 2.0)).item()  # finite
    assert same_scale == pytest.approx(math.log(1.5) + 2 / 3 - 1, rel=1e-12)
    assert kl_divergence(Pareto(T(1.0), T([0.5, 3.0])), Normal(0.0, 1.0)).tolist()[0] == math.inf
    assert kl_divergence(Normal(T([0.0]), 1.0), Pareto(1.0, 2.0)).tolist() == [math.inf]
    assert kl_divergence(Pareto(T(1.0), 1.0), Exponential(T(1.0))).item() == math.inf  # E[x]
    with pytest.raises(NotImplementedError, match="different transforms"):
        kl_divergence(Weibull(T(1.0), 2.0), Weibull(T(1.0), 3.0))


# ----------------------------------------------------------------------------- transforms
def test_corr_cholesky_log_det_is_a_finite_difference_slogdet():
    """x (3,) -> the strict lower triangle of L (3 entries): log|det| of that 3 × 3
    Jacobian by central differences; L has unit rows and a positive diagonal."""
    t = CorrCholeskyTransform()
    rows, h = np.array(XV), 1e-6
    for row in rows:
        L = t(T(row)).numpy()
        np.testing.assert_allclose((L ** 2).sum(-1), 1.0, rtol=1e-12)
        assert (np.diag(L) > 0).all() and np.allclose(np.triu(L, 1), 0)
        idx = np.tril_indices(3, -1)
        cols = [(t(T(row + h * e)).numpy()[idx] - t(T(row - h * e)).numpy()[idx]) / (2 * h)
                for e in np.eye(3)]
        ladj = t.log_abs_det_jacobian(T(row), t(T(row))).item()
        assert ladj == pytest.approx(np.linalg.slogdet(np.stack(cols, 1))[1], rel=1e-7)
    assert constraints.corr_cholesky.check(t(T(rows))).tolist() == [True, True]
    near = T([[1.0, 0.0], [0.6, 0.8 + 1e-9]])           # row norm 1 + 8e-10 > eps · D · 10
    assert not constraints.corr_cholesky.check(near).item()
    assert t.forward_shape((5, 6)) == (5, 4, 4) and t.inverse_shape((4, 4)) == (6,)


def test_matrix_and_piecewise_transforms_invert_and_are_gradchecked(device):
    m = T(M, device, requires_grad=True)
    pd = PositiveDefiniteTransform()(m).detach()
    assert constraints.positive_definite.check(pd).all().item()
    assert constraints.lower_cholesky.check(LowerCholeskyTransform()(m)).all().item()
    np.testing.assert_allclose(PositiveDefiniteTransform()(PositiveDefiniteTransform().inv(pd))
                               .numpy(), pd.numpy(), rtol=1e-12)
    x = T(XV, device, requires_grad=True)
    corr = CorrCholeskyTransform()
    np.testing.assert_allclose(corr.inv(corr(x)).detach().numpy(), XV, rtol=1e-10)
    assert tinyffn.gradcheck(lambda x: corr.log_abs_det_jacobian(x, corr(x)) + corr(x).sum(),
                             [x])
    for t in TRANSFORMS["Cat"][0](tinyffn.distributions, T), \
            TRANSFORMS["Stack"][0](tinyffn.distributions, T):
        assert tinyffn.gradcheck(lambda x: t.log_abs_det_jacobian(x, t(x)).sum() + t(x).sum(),
                                 [x])
        np.testing.assert_allclose(t.inv(t(x)).detach().numpy(), XV, rtol=1e-12)
    assert tinyffn.gradcheck(lambda m: PositiveDefiniteTransform()(m), [m])


def test_symmetric_and_semidefinite_checks_of_a_mixed_batch_are_pytorchs(device):
    """Where some matrix of the batch is not symmetric, PyTorch's positive_semidefinite is the
    symmetric check alone: the indefinite symmetric matrix passes then, and fails in a batch
    of symmetric ones (torch 2.13 gives these lists); a NaN matrix is not symmetric. Decided
    on the device (test_host_reads pins 0 reads)."""
    nan = float("nan")
    mixed = T([[[2.0, 0.3], [0.3, 1.0]], [[1.0, 2.0], [2.0, 1.0]], [[1.0, 2.0], [0.0, 1.0]],
               [[nan, 0.0], [0.0, 1.0]]], device)
    assert constraints.symmetric.check(mixed).tolist() == [True, True, False, False]
    assert constraints.positive_semidefinite.check(mixed).tolist() == [True, True, False, False]
    assert constraints.positive_semidefinite.check(mixed[:2]).tolist() == [True, False]
    assert constraints.positive_semidefinite.check(mixed[3:]).tolist() == [False]
    wide = T(np.zeros((3, 2, 3)), device)
    assert constraints.symmetric.check(wide).tolist() == [False] * 3
    assert constraints.positive_semidefinite.check(wide).tolist() == [False] * 3


def test_cat_along_an_event_axis_adds_the_parts_log_det():
    """Parts of event_dim 1 joined along that event axis (dim −1 or 1 of (2, 3)): one
    log|det J| per row, the parts' sum (exp: x; softplus: log sigmoid x), in NumPy."""
    D = tinyffn.distributions
    xv = np.array(XV)
    want = xv[:, 0] - np.log1p(np.exp(-xv[:, 1:])).sum(-1)
    for dim in (-1, 1):
        t = CatTransform([D.IndependentTransform(ExpTransform(), 1),
                          D.IndependentTransform(D.SoftplusTransform(), 1)], dim, [1, 2])
        x = T(XV)
        np.testing.assert_allclose(t.log_abs_det_jacobian(x, t(x)).numpy(), want, rtol=1e-12)


def test_piecewise_domains_and_biject_to():
    c = constraints.cat([constraints.positive, constraints.real], dim=0, lengths=[1, 2])
    assert repr(c) == "Cat()" and c.event_dim == 0 and not c.is_discrete
    assert c.check(T([-1.0, -1.0, 2.0])).tolist() == [False, True, True]
    t = biject_to(c)
    assert isinstance(t, CatTransform) and bool(c.check(t(T([-3.0, -3.0, 3.0]))).all())
    s = constraints.stack([constraints.unit_interval, constraints.real], dim=-1)
    assert repr(s) == "Stack()" and isinstance(transform_to(s), StackTransform)
    assert (s.event_dim, constraints.stack([constraints.real] * 2, dim=0).event_dim) == (1, 0)
    assert s.check(T([[0.5, -4.0], [2.0, 1.0]])).tolist() == [[True, True], [False, True]]
    h = constraints.half_open_interval(0.0, 2.0)
    assert repr(h) == "HalfOpenInterval(lower_bound=0.0, upper_bound=2.0)"
    assert h.check(T([0.0, 2.0])).tolist() == [True, False]
    assert bool(h.check(biject_to(h)(T([-3.0, 3.0]))).all())
    assert isinstance(biject_to(constraints.corr_cholesky), CorrCholeskyTransform)
    assert isinstance(transform_to(constraints.lower_cholesky), LowerCholeskyTransform)
    for pd in (constraints.positive_definite, constraints.positive_semidefinite):
        assert isinstance(transform_to(pd), PositiveDefiniteTransform)
    with pytest.raises(NotImplementedError, match="Cannot transform LowerCholesky"):
        biject_to(constraints.lower_cholesky)
    sq = T([[[2.0, 1.0], [1.0, 2.0]], [[1.0, 2.0], [2.0, 1.0]]])           # eigenvalues −1
    assert constraints.positive_semidefinite.check(sq).tolist() == [True, False]
    assert constraints.symmetric.check(sq).tolist() == [True, True]
    assert constraints.square.check(T(np.zeros((2, 3)))).tolist() is False
    assert constraints.lower_triangular.check(T([[1.0, 0.0], [3.0, -1.0]])).item()
    cdf = CumulativeDistributionTransform(Normal(0.0, 1.0))
    assert cdf.domain is Normal(0.0, 1.0).support and cdf.sign == 1
    assert cdf.with_cache(1)._cache_size == 1 and CatTransform([identity_transform]).length == 1


ERRORS = [
    (lambda m: m.distributions.HalfNormal(m.tensor(-1.0)), ValueError,
     r"parameter scale .* HalfNormal\(\) .* GreaterThan"),
    (lambda m: m.distributions.HalfCauchy(m.tensor([0.0])), ValueError, r"parameter scale"),
    (lambda m: m.distributions.Chi2(m.tensor(-1.0)), ValueError, r"parameter df .* Chi2\(\)"),
    (lambda m: m.distributions.Pareto(m.tensor(-1.0), 1.0), ValueError,
     r"parameter scale .* Pareto"),
    (lambda m: m.distributions.Pareto(1.0, 2.0).log_prob(m.tensor(0.5)), ValueError,
     r"support \(GreaterThanEq"),
    (lambda m: m.distributions.Weibull(1.0, m.tensor(-2.0)), ValueError,
     r"parameter concentration"),
    (lambda m: m.distributions.Kumaraswamy(m.tensor(-1.0), 1.0), ValueError,
     r"parameter concentration1"),
    (lambda m: m.distributions.InverseGamma(m.tensor(-1.0), 1.0), ValueError,
     r"parameter concentration"),
    (lambda m: m.distributions.FisherSnedecor(m.tensor(-1.0), 1.0), ValueError,
     r"parameter concentration"),
    (lambda m: m.distributions.GeneralizedPareto(0.0, m.tensor(-1.0), 0.5), ValueError,
     r"parameter scale"),
    (lambda m: m.distributions.GeneralizedPareto(0.0, 1.0, m.tensor(-0.5)).log_prob(
        m.tensor(3.0)), ValueError, r"support \(Interval"),
    (lambda m: m.distributions.LogisticNormal(m.zeros(2), m.tensor(-1.0)), ValueError,
     r"parameter scale"),
    (lambda m: m.distributions.RelaxedBernoulli(m.tensor(0.5)), ValueError,
     r"Either `probs` or `logits`"),
    (lambda m: m.distributions.RelaxedBernoulli(m.tensor(0.5), m.tensor([1.5])), ValueError,
     r"parameter probs"),
    (lambda m: m.distributions.RelaxedOneHotCategorical(m.tensor(0.5), m.tensor([0.5, 0.5]))
     .log_prob(m.tensor([0.5, 0.6])), ValueError, r"support \(Simplex\(\)\)"),
    (lambda m: m.distributions.HalfNormal(1.0).log_prob(m.tensor(-1.0)), ValueError,
     r"support \(GreaterThanEq"),
    (lambda m: m.distributions.CatTransform([1.0]), AssertionError,
     r"All elements of tseq must be Transform instances"),
    (lambda m: m.distributions.CatTransform([m.distributions.ExpTransform()], lengths=[1, 2]),
     AssertionError, r"lengths \(2\) must match transforms \(1\)"),
    (lambda m: m.distributions.CatTransform([m.distributions.ExpTransform()], dim=0, lengths=[2])(
        m.zeros(3)), AssertionError, r"x.size\(0\) = 3 must equal length 2"),
    (lambda m: m.distributions.CatTransform([m.distributions.ExpTransform()], dim=1)(m.zeros(3)),
     AssertionError, r"dim 1 out of range for tensor with 1 dimensions"),
    (lambda m: m.distributions.StackTransform([m.distributions.ExpTransform()])(m.zeros(3)),
     AssertionError, r"x.size\(0\) = 3 must equal len\(transforms\) 1"),
    (lambda m: m.distributions.CatTransform([m.distributions.ExpTransform()]).inv(m.zeros(2)),
     AssertionError, r"y.size\(0\) = 2 must equal length 1"),
    (lambda m: m.distributions.CatTransform([m.distributions.ExpTransform()], dim=1)
     .log_abs_det_jacobian(m.zeros(1), m.zeros(1)), AssertionError,
     r"dim 1 out of range for x with 1 dimensions"),
    (lambda m: m.distributions.CatTransform([m.distributions.ExpTransform()])
     .log_abs_det_jacobian(m.zeros(1), m.zeros(2)), AssertionError,
     r"y.size\(0\) = 2 must equal length 1"),
    (lambda m: m.distributions.StackTransform([m.distributions.ExpTransform()], dim=1).inv(
        m.zeros(2)), AssertionError, r"dim 1 out of range for tensor with 1 dimensions"),
    (lambda m: m.distributions.StackTransform([m.distributions.ExpTransform()])
     .log_abs_det_jacobian(m.zeros(1), m.zeros(2)), AssertionError,
     r"y.size\(0\) = 2 must equal len\(transforms\) 1"),
    (lambda m: m.distributions.kl_divergence(
        m.distributions.TransformedDistribution(m.distributions.Normal(m.zeros(3), 1.0),
                                                m.distributions.ExpTransform()),
        m.distributions.TransformedDistribution(m.distributions.Independent(
            m.distributions.Normal(m.zeros(3), 1.0), 1), m.distributions.ExpTransform())),
     NotImplementedError, r"different event shapes \(\) and \(3,\)"),
    (lambda m: m.distributions.StackTransform(["exp"]), AssertionError,
     r"All elements of tseq"),
    (lambda m: m.distributions.constraints.cat([1.0]), AssertionError,
     r"All elements of cseq must be Constraint instances"),
    (lambda m: m.distributions.constraints.cat([m.distributions.constraints.real],
                                               lengths=[1, 1]), AssertionError,
     r"lengths \(2\) must match cseq \(1\)"),
    (lambda m: m.distributions.constraints.stack([m.distributions.constraints.real],
                                                 dim=2).check(m.zeros(3)), AssertionError,
     r"dim 2 out of range for value with 1 dimensions"),
    (lambda m: m.distributions.CorrCholeskyTransform().forward_shape((4,)), ValueError,
     r"not a flattened lower-diagonal number"),
    (lambda m: m.distributions.CorrCholeskyTransform().inverse_shape((2, 3)), ValueError,
     r"Input is not square"),
    (lambda m: m.distributions.CorrCholeskyTransform().inverse_shape((2,)), ValueError,
     r"Too few dimensions on input"),
    (lambda m: m.distributions.CorrCholeskyTransform().forward_shape(()), ValueError,
     r"Too few dimensions on input"),
    (lambda m: m.distributions.CorrCholeskyTransform()(m.zeros(5)), ValueError,
     r"cannot be expressed as the lower triangular part"),
    (lambda m: m.distributions.LowerCholeskyTransform().log_abs_det_jacobian(
        m.eye(2), m.eye(2)), NotImplementedError, None),
    (lambda m: m.distributions.kl_divergence(
        m.distributions.RelaxedBernoulli(m.tensor(0.5), m.tensor([0.3])),
        m.distributions.RelaxedBernoulli(m.tensor(0.5), m.tensor([0.4]))),
     NotImplementedError, None),
]


@pytest.mark.parametrize("make,error,match", ERRORS)
def test_bad_arguments_are_refused_as_torch_refuses_them(make, error, match):
    torch_parity.refused_as_torch(make, error, match)


def test_internal_tril_helpers_refuse_bad_sizes():
    from tinyffn.distributions_transforms_more import _tril_matrix_to_vec
    with pytest.raises(ValueError, match=r"diag \(3\) provided is outside \[-2, 1\]"):
        _tril_matrix_to_vec(T(np.eye(2)), diag=3)


# PyTorch 2.13's values (float64), written out by running run(torch, case)
EXPECTED = {'CDF': (('float64',
          [[0.460172162722971, 0.19766254312269244, 0.5596176923702425],
           [0.6914624612740131, 0.4403823076297575, 0.32635522028792]]),
         ('float64',
          [[0.29999999999999993, -1.1999999999999995, 0.7999999999999999],
           [1.5000000000000002, 0.20000000000000007, -0.4]]),
         ('float64',
          [[-1.617085713764618, -1.973335713764618, -1.623335713764618],
           [-1.737085713764618, -1.623335713764618, -1.713335713764618]])),
 'Cat': (('float64',
          [[1.3498588075760032, 3.4, -0.6000000000000001], [4.4816890703380645, 0.6, 1.8]]),
         ('float64', [[0.30000000000000004, -1.2, 0.8], [1.5, 0.2, -0.4]]),
         ('float64',
          [[0.3, 0.6931471805599453, 0.6931471805599453],
           [1.5, 0.6931471805599453, 0.6931471805599453]])),
 'Cat-event': (('float64',
                [[1.3498588075760032, 0.30119421191220214, 2.225540928492468],
                 [1.7014132779827524, 0.7981388693815918, 0.5130152523999526]]),
               ('float64',
                [[0.30000000000000004, -1.2, 0.8000000000000002],
                 [1.5, 0.20000000000000007, -0.4]]),
               ('float64', [-0.09999999999999987, -1.7125673997642967])),
 'Chi2': (('float64', [-0.3542308855124886, -1.4839367185818049]),
          ('float64', [0.608338845728966, 0.3406101802880152]),
          ('float64', [-0.9394204447741763, 2.0541199559354117]),
          ('float64', [0.5, 3.0]),
          ('float64', [0.0, 1.0]),
          ('float64', [1.0, 6.0])),
 'CorrCholesky': (('float64',
                   [[[1.0, 0.0, 0.0],
                     [0.2913126124515909, 0.9566279119002483, 0.0],
                     [-0.8336546070121552, 0.36673831415055014, 0.41294431239747265]],
                    [[1.0, 0.0, 0.0],
                     [0.9051482536448664, 0.42509603494228054, 0.0],
                     [0.197375320224904, -0.37247460537485594, 0.9068107031332184]]]),
                  ('float64',
                   [[0.3, -1.1999999999999997, 0.8000000000000002],
                    [1.4999999999999998, 0.2, -0.4]]),
                  ('float64', [-2.451255575290681, -1.9263915283232806])),
 'FisherSnedecor': (('float64', [-0.28957581077481837, -1.4071801900037575]),
                    ('float64', [3.0, 1.4]),
                    ('float64', [nan, 0.4666666666666667]),
                    ('float64', [nan, 2.6133333333333333])),
 'HalfCauchy': (('float64', [-0.06592022447747026, -1.6885066097550765]),
                ('float64', [0.34404173924526127, 0.44849485081219287]),
                ('float64', [0.16245984811645311, 3.9252210110103007]),
                ('float64', [1.1447298858494, 2.5310242469692907]),
                ('float64', [inf, inf]),
                ('float64', [0.0, 0.0]),
                ('float64', [inf, inf])),
 'HalfNormal': (('float64', [0.28735582791521785, -1.2801885332046727]),
                ('float64', [0.4514937644998529, 0.6046749137546152]),
                ('float64', [0.1266735515678999, 2.072866778987579]),
                ('float64', [0.0326441720847821, 1.4189385332046727]),
                ('float64', [0.3989422804014327, 1.5957691216057308]),
                ('float64', [0.0, 0.0]),
                ('float64', [0.09084505690810465, 1.4535209105296745])),
 'InverseGamma': (('float64', [-1.8365455462429163, -1.1523248315385586]),
                  ('float64', [3.660955038018102, 1.1006221288341873]),
                  ('float64', [inf, 1.5]),
                  ('float64', [0.4666666666666666, 0.75]),
                  ('float64', [inf, 2.25])),
 'KL HalfNormal': ('float64', [0.09157427743753943, 0.1276873303303866]),
 'KL InverseGamma': ('float64', [0.9496361438390931, 1.3131560929946318]),
 'KL LogisticNormal': ('float64', 4.133062655270622),
 'KL Normal-Pareto': ('float64', [inf, inf]),
 'KL Pareto': ('float64', [0.2950400359469061, 1.4584261358947215, inf]),
 'KL Pareto-Exponential': ('float64', [inf, 1.2652789553347765]),
 'KL Pareto-Gamma': ('float64', [inf, 2.004310564926143]),
 'KL Pareto-Normal': ('float64', [1.7533764456387733, 1.5592174885394492]),
 'KL Pareto-Uniform': ('float64', [inf, inf]),
 'KL Uniform-Pareto': ('float64', [0.9516191339280092, inf]),
 'Kumaraswamy': (('float64', [-0.06726808806661509, 0.3883596402052255]),
                 ('float64', [0.3396257244336446, 0.737856]),
                 ('float64', [0.07450824100647423, 0.574949606415928]),
                 ('float64', [-0.1645128438477773, -0.2084261358947218]),
                 ('float64', [0.43572984749455324, 0.457142857142857]),
                 ('float64', [0.11081564548452633, 0.04102040816326541])),
 'LogisticNormal': (('float64', 0.28481610801851787),),
 'LowerCholesky': (('float64',
                    [[[1.3498588075760032, 0.0], [-1.2, 2.225540928492468]],
                     [[4.4816890703380645, 0.0], [0.2, 0.6703200460356393]]]),
                   ('float64',
                    [[[0.30000000000000004, 0.0], [-1.2, 0.8000000000000002]],
                     [[1.5, 0.0], [0.2, -0.39999999999999997]]])),
 'Pareto': (('float64', [-0.6627650937123896, -0.4871090971486747]),
            ('float64', [0.3373117863748818, 0.488]),
            ('float64', [0.6877219407128086, 2.987603164371443]),
            ('float64', [2.092099191950216, 0.9278682252251689]),
            ('float64', [inf, 3.0]),
            ('float64', [0.5, 2.0]),
            ('float64', [inf, 3.0])),
 'PositiveDefinite': (('float64',
                       [[[1.822118800390509, -1.6198305690912038],
                         [-1.6198305690912038, 6.393032424395116]],
                        [[20.085536923187664, 0.8963378140676129],
                         [0.8963378140676129, 0.4893289641172216]]]),
                      ('float64',
                       [[[0.30000000000000004, 0.0], [-1.2, 0.8000000000000002]],
                        [[1.5, 0.0], [0.2, -0.39999999999999997]]])),
 'RelaxedBernoulli': (('float64', [-0.33564944263755336, -1.1182647117755664]),),
 'RelaxedBernoulli-logits': (('float64', [-0.8492609128303603, 2.3060854648769133]),),
 'RelaxedOneHotCategorical': (('float64', [0.17147534096008332, -0.4255622687769911]),),
 'Stack': (('float64',
            [[1.3498588075760032, 0.30119421191220214, 2.225540928492468],
             [0.9051482536448664, 0.197375320224904, -0.3799489622552249]]),
           ('float64',
            [[0.30000000000000004, -1.2, 0.8000000000000002], [1.4999999999999998, 0.2, -0.4]]),
           ('float64',
            [[0.3, -1.2, 0.8],
             [-1.7108803420275935, -0.03973614368001466, -0.15590697077566507]])),
 'Weibull': (('float64', [-1.348869022698059, -1.101372789263416]),
             ('float64', [0.7788701646833676, 0.8581698409126575]),
             ('float64', [0.058664612336516736, 2.127659962913584]),
             ('float64', [0.41614962127813016, 0.9793453351595242]),
             ('float64', [0.6329117530286418, 1.7859590231384985]),
             ('float64', [0.8567088884132882, 0.4213315394739148]))}
