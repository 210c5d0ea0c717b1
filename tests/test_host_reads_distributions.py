"""How many times the distributions of distributions_family.py, _fisher_pareto, _relaxed,
_mixture, _counts, _unit and _matrix read from the device to the host (see
test_host_reads.py, which pins the indexing ops', the matrix constraints' and
CorrCholeskyTransform's): each call's count on the strict backend, whose op code is CuPy's,
so that one cannot grow back in silence.
"""
import pytest

import tinyffn
from host_reads import counting_host_reads

# Each distribution's calls on the strict backend, with validate_args on and off: the
# reads each makes (only the nonzero ones named; "init" is the constructor). The
# validate_args checks are one read each, as PyTorch's (a TransformedDistribution checks the
# value and its base checks the value mapped back); the rest is what stays on purpose:
# draws made on the host read their parameters (NegativeBinomial's Poisson rates, VonMises'
# κ for its rejection loop), a Wishart draw's singular-sample check and warning, a
# linalg.cholesky that raises (LowRankMultivariateNormal's capacitance, Wishart's Σ), and
# what PyTorch builds with validation on whatever validate_args says (FisherSnedecor's
# Gammas, the Categorical inside Multinomial and the relaxed categoricals, RelaxedBernoulli's
# base, ContinuousBernoulli's probs). Before: MixtureSameFamily.sample 1 (now 0),
# Multinomial.sample 1 (0), VonMises.sample 2 (1), Wishart init 6/3 (4/2), sample 2 (1),
# log_prob 2 (1).
def _d(v):
    return tinyffn.tensor(v, device="strict", requires_grad=True)


_SPD = [[2.0, 0.3], [0.3, 1.0]]
D = tinyffn.distributions
DISTRIBUTION_READS = [
    ("HalfNormal", lambda v: D.HalfNormal(_d([1.0, 2.0]), validate_args=v),
     lambda: D.HalfNormal(_d([1.5, 1.0])), {"init": 1, "log_prob": 1}, {}),
    ("Pareto", lambda v: D.Pareto(_d([1.0, 2.0]), _d([3.0, 0.5]), validate_args=v),
     lambda: D.Pareto(_d([1.0, 1.0]), _d([2.0, 1.0])), {"init": 3, "log_prob": 2}, {}),
    ("Weibull", lambda v: D.Weibull(_d([1.0, 2.0]), _d([3.0, 0.5]), validate_args=v), None,
     {"init": 3, "log_prob": 2}, {}),
    ("Kumaraswamy", lambda v: D.Kumaraswamy(_d([1.0, 2.0]), _d([3.0, 0.5]), validate_args=v),
     None, {"init": 4, "log_prob": 2}, {}),
    ("LogisticNormal", lambda v: D.LogisticNormal(_d([0.0, 1.0]), _d([1.0, 2.0]),
                                                  validate_args=v),
     lambda: D.LogisticNormal(_d([0.5, 1.0]), _d([1.0, 1.0])), {"init": 2, "log_prob": 2}, {}),
    # kl: PowerTransform(-1) == PowerTransform(-1) reads the exponents (PyTorch's too)
    ("InverseGamma", lambda v: D.InverseGamma(_d([1.0, 3.0]), _d([2.0, 0.5]), validate_args=v),
     lambda: D.InverseGamma(_d([2.0, 1.0]), _d([1.0, 1.0])),
     {"init": 2, "log_prob": 2, "kl": 1}, {"kl": 1}),
    ("Chi2", lambda v: D.Chi2(_d([1.0, 3.0]), validate_args=v), lambda: D.Chi2(_d([2.0, 4.0])),
     {"init": 1, "log_prob": 1}, {}),
    ("FisherSnedecor", lambda v: D.FisherSnedecor(_d([3.0, 5.0]), _d([6.0, 3.0]),
                                                  validate_args=v), None,
     {"init": 6, "log_prob": 1}, {"init": 4}),
    ("GeneralizedPareto", lambda v: D.GeneralizedPareto(_d([0.0, 1.0]), _d([1.0, 2.0]),
                                                        _d([0.2, -0.3]), validate_args=v),
     None, {"init": 3, "log_prob": 1}, {}),
    ("RelaxedBernoulli", lambda v: D.RelaxedBernoulli(0.5, probs=_d([0.3, 0.6]),
                                                      validate_args=v), None,
     {"init": 1, "log_prob": 2}, {"init": 1, "log_prob": 1}),
    ("RelaxedOneHotCategorical", lambda v: D.RelaxedOneHotCategorical(
        0.5, logits=_d([[0.1, 0.5, -1.0]]), validate_args=v), None,
     {"init": 1, "log_prob": 2}, {"init": 1}),
    ("MixtureSameFamily", lambda v: D.MixtureSameFamily(
        D.Categorical(logits=_d([0.1, 0.5, -1.0]), validate_args=False),
        D.Normal(_d([0.0, 1.0, 2.0]), _d([1.0, 2.0, 0.5]), validate_args=False),
        validate_args=v), None, {"log_prob": 1}, {}),
    ("Multinomial", lambda v: D.Multinomial(5, logits=_d([[0.1, 0.5, -1.0]]), validate_args=v),
     None, {"init": 1, "log_prob": 1}, {"init": 1}),
    ("NegativeBinomial", lambda v: D.NegativeBinomial(_d([3.0, 2.0]), probs=_d([0.3, 0.6]),
                                                      validate_args=v), None,
     {"init": 2, "sample": 1, "log_prob": 1}, {"sample": 1}),
    ("ContinuousBernoulli", lambda v: D.ContinuousBernoulli(_d([0.3, 0.5, 0.8]), validate_args=v),
     lambda: D.ContinuousBernoulli(_d([0.6, 0.2, 0.4])), {"init": 2, "log_prob": 1},
     {"init": 1}),
    ("VonMises", lambda v: D.VonMises(_d([0.0, 1.0]), _d([1.0, 3.0]), validate_args=v), None,
     {"init": 2, "sample": 1, "log_prob": 1}, {"sample": 1}),
    ("LowRankMultivariateNormal", lambda v: D.LowRankMultivariateNormal(
        _d([[0.1, 0.3]]), _d([[[1.0], [0.5]]]), _d([[1.0, 2.0]]), validate_args=v),
     lambda: D.LowRankMultivariateNormal(_d([0.0, 0.2]), _d([[0.5], [1.0]]), _d([1.5, 1.0])),
     {"init": 4, "log_prob": 1}, {"init": 1}),
    ("Wishart", lambda v: D.Wishart(_d([3.0, 4.0]), covariance_matrix=_d(_SPD), validate_args=v),
     lambda: D.Wishart(_d([3.5, 4.0]), covariance_matrix=_d([[1.0, 0.2], [0.2, 1.0]])),
     {"init": 4, "sample": 1, "rsample": 1, "log_prob": 1}, {"init": 2, "sample": 1,
                                                             "rsample": 1}),
    ("LKJCholesky", lambda v: D.LKJCholesky(3, _d([1.0, 2.0]), validate_args=v), None,
     {"init": 1, "log_prob": 1}, {}),
]


@pytest.mark.parametrize("validate", [True, False], ids=["validate", "no-validate"])
@pytest.mark.parametrize("name, make, other, on, off", DISTRIBUTION_READS,
                         ids=[c[0] for c in DISTRIBUTION_READS])
def test_each_distribution_reads_to_the_host_a_pinned_number_of_times(name, make, other, on,
                                                                       off, validate):
    """init, sample, rsample, log_prob (of a draw, and its backward), entropy, mean,
    variance and kl_divergence against ``other`` (when there is a closed form); a method
    the class lacks (NotImplementedError, as PyTorch's) is left out."""
    tinyffn.manual_seed(0)
    counts = {}

    def count(method, fn):
        with counting_host_reads() as reads:
            try:
                out = fn()
            except NotImplementedError:
                return None
        counts[method] = sum(reads.values())
        return out

    d = count("init", lambda: make(validate))
    x = count("sample", lambda: d.sample((2,)))
    if d.has_rsample:
        count("rsample", lambda: d.rsample((2,)))
    lp = count("log_prob", lambda: d.log_prob(x))
    for method in ("entropy", "mean", "variance"):
        count(method, lambda: getattr(d, method)() if method == "entropy" else
              getattr(d, method))
    if other is not None:
        q = other()
        count("kl", lambda: D.kl_divergence(d, q))
    with counting_host_reads() as reads:
        lp.sum().backward()
    assert not reads, f"{name}.log_prob's backward read to the host: {dict(reads)}"
    assert {k: n for k, n in counts.items() if n} == (on if validate else off), counts
