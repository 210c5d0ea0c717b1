"""tinyffn.distributions (tinyffn/distributions.py, distributions_more.py): log_prob, entropy,
cdf/icdf, mean, mode, variance and KL against PyTorch live and against closed forms written
out (the densities, scipy.stats); rsample's gradient and gradcheck of log_prob on every
device; sample statistics of 20,000 seeded draws; shapes; the errors PyTorch raises too.
"""
import math

import numpy as np
import pytest

import tinyffn
import torch_parity
from tinyffn.distributions import (Bernoulli, Categorical, Distribution, Exponential, Laplace,
                                   MultivariateNormal, Normal, Uniform, kl_divergence,
                                   register_kl)

rng = np.random.default_rng(7)
A = np.array([[2.0, 0.5, 0.1], [0.5, 1.0, -0.2], [0.1, -0.2, 0.7]])      # Σ, positive definite
L = np.linalg.cholesky(A)

# name, constructor keyword arguments (NumPy arrays), a valid value, cdf/icdf present
CASES = {
    "Normal": (dict(loc=[0.1, -0.3], scale=[0.5, 2.0]), [0.7, -1.1], True),
    "Laplace": (dict(loc=[0.1, -0.3], scale=[0.5, 2.0]), [0.7, -1.1], True),
    "Exponential": (dict(rate=[0.5, 2.0]), [0.3, 1.2], True),
    "Uniform": (dict(low=[-1.0, 0.0], high=[1.0, 3.0]), [0.5, 2.9], True),
    "Bernoulli-probs": (dict(probs=[0.2, 0.5, 0.9]), [1.0, 0.0, 1.0], False),
    "Bernoulli-logits": (dict(logits=[-1.0, 0.0, 2.5]), [1.0, 0.0, 0.0], False),
    "Categorical-probs": (dict(probs=[[0.2, 0.3, 0.5], [0.1, 0.0, 0.9]]), [2, 0], False),
    "Categorical-logits": (dict(logits=[[0.2, -1.0, 0.5], [3.0, 0.0, 1.0]]), [1, 0], False),
    # a policy's masked action: logit -inf, probability 0, adding 0 to the entropy
    "Categorical-masked": (dict(logits=[[0.0, -np.inf, 1.0], [2.0, 0.0, 0.0]]), [2, 0], False),
    "MVN-covariance": (dict(loc=[0.1, 0.2, -0.3], covariance_matrix=A),
                       [[0.3, -1.0, 0.2], [1.0, 1.0, 0.0]], False),
    "MVN-scale_tril": (dict(loc=[[0.1, 0.2, -0.3]], scale_tril=L), [0.3, -1.0, 0.2], False),
    "MVN-precision": (dict(loc=[0.1, 0.2, -0.3], precision_matrix=np.linalg.inv(A)),
                      [0.3, -1.0, 0.2], False),
}


def _class(case: str) -> str:
    return {"MVN": "MultivariateNormal"}.get(case.split("-")[0], case.split("-")[0])


def _make(module, case, device="cpu", grad=False):
    """The distribution and value of ``case``, from tinyffn or torch (module)."""
    kwargs, value, _ = CASES[case]
    if module is tinyffn:
        T = lambda a, **kw: tinyffn.tensor(np.asarray(a), dtype="float64", device=device, **kw)
        cls = globals()[_class(case)]
    else:
        T = lambda a, **kw: module.tensor(np.asarray(a), dtype=module.float64, **kw)
        cls = getattr(module.distributions, _class(case))
    params = {k: T(v, requires_grad=grad) for k, v in kwargs.items()}
    value = np.asarray(value)
    v = (tinyffn.tensor(value, device=device) if module is tinyffn else module.tensor(value)) \
        if value.dtype.kind == "i" else T(value)
    return cls(**params), params, v


def _np(x):
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


@pytest.mark.parametrize("case", list(CASES))
def test_values_and_gradients_match_torch_live(case):
    torch = pytest.importorskip("torch")
    d, params, v = _make(tinyffn, case, grad=True)
    e, tparams, tv = _make(torch, case, grad=True)
    assert d.batch_shape == tuple(e.batch_shape) and d.event_shape == tuple(e.event_shape)
    got = {"log_prob": d.log_prob(v), "entropy": d.entropy()}
    want = {"log_prob": e.log_prob(tv), "entropy": e.entropy()}
    for name in ("mean", "mode", "variance", "stddev"):
        got[name], want[name] = getattr(d, name), getattr(e, name)
    if CASES[case][2]:
        got["cdf"], want["cdf"] = d.cdf(v), e.cdf(tv)
        q = [0.2, 0.9]
        got["icdf"], want["icdf"] = d.icdf(tinyffn.tensor(q, dtype="float64")), \
            e.icdf(torch.tensor(q, dtype=torch.float64))
    if case.startswith("MVN"):
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            got[name], want[name] = getattr(d, name), getattr(e, name)
    for name in got:
        np.testing.assert_allclose(_np(got[name]), _np(want[name]), rtol=1e-10, atol=1e-12,
                                   err_msg=f"{case}.{name}")
    w = rng.standard_normal(got["log_prob"].shape)               # L = Σ w·log_prob + Σ entropy
    (got["log_prob"] * tinyffn.tensor(w)).sum().add(got["entropy"].sum()).backward()
    (want["log_prob"] * torch.tensor(w)).sum().add(want["entropy"].sum()).backward()
    for k in params:
        np.testing.assert_allclose(params[k].grad.numpy(), tparams[k].grad.numpy(),
                                   rtol=1e-9, atol=1e-12, err_msg=f"{case}: grad {k}")


def test_log_probs_are_the_densities_written_out():
    stats = pytest.importorskip("scipy.stats")
    x = rng.standard_normal(5)
    m, s = 0.3, 1.7
    T = lambda a: tinyffn.tensor(np.asarray(a, dtype=np.float64))
    normal = np.exp(-(x - m) ** 2 / (2 * s ** 2)) / (s * np.sqrt(2 * np.pi))
    np.testing.assert_allclose(Normal(m, T(s)).log_prob(T(x)).numpy(), np.log(normal))
    np.testing.assert_allclose(Normal(T(m), s).cdf(T(x)).numpy(), stats.norm.cdf(x, m, s))
    np.testing.assert_allclose(Normal(T(m), s).entropy().numpy(), stats.norm.entropy(m, s))
    np.testing.assert_allclose(Laplace(T(m), s).log_prob(T(x)).numpy(),
                               stats.laplace.logpdf(x, m, s))
    np.testing.assert_allclose(Laplace(T(m), s).cdf(T(x)).numpy(), stats.laplace.cdf(x, m, s))
    np.testing.assert_allclose(Exponential(T(2.0)).log_prob(T(abs(x))).numpy(),
                               stats.expon.logpdf(abs(x), scale=0.5))
    np.testing.assert_allclose(Uniform(T(-2.0), 3.0).log_prob(T(x.clip(-2, 2.9))).numpy(),
                               stats.uniform.logpdf(x.clip(-2, 2.9), -2.0, 5.0))
    np.testing.assert_allclose(Uniform(T(-2.0), 3.0).log_prob(T(3.0)).item(), -math.inf)
    mu = np.array([0.1, 0.2, -0.3])
    y = rng.standard_normal((4, 3))
    np.testing.assert_allclose(MultivariateNormal(T(mu), T(A)).log_prob(T(y)).numpy(),
                               stats.multivariate_normal.logpdf(y, mu, A))
    np.testing.assert_allclose(MultivariateNormal(T(mu), scale_tril=T(L)).entropy().item(),
                               stats.multivariate_normal.entropy(mu, A))
    p = np.array([0.2, 0.3, 0.5])
    np.testing.assert_allclose(Categorical(T(p * 4)).log_prob(tinyffn.tensor([2, 0])).numpy(),
                               np.log(p[[2, 0]]))
    np.testing.assert_allclose(Categorical(logits=T(np.log(p))).entropy().item(),
                               -(p * np.log(p)).sum())
    np.testing.assert_allclose(Bernoulli(T(p)).log_prob(T([1.0, 0.0, 1.0])).numpy(),
                               np.log([0.2, 0.7, 0.5]))


KL_PAIRS = [
    ("Normal", dict(loc=[0.0, 1.0], scale=[1.0, 0.5]), dict(loc=[0.5, -1.0], scale=[2.0, 0.7])),
    ("Laplace", dict(loc=[0.0, 1.0], scale=[1.0, 0.5]), dict(loc=[0.5, -1.0], scale=[2.0, 0.7])),
    ("Exponential", dict(rate=[0.5, 3.0]), dict(rate=[1.0, 0.2])),
    ("Uniform", dict(low=[0.0, 0.0], high=[1.0, 1.0]), dict(low=[-1.0, 0.5], high=[2.0, 2.0])),
    ("Bernoulli", dict(probs=[0.2, 0.0, 1.0, 0.7]), dict(logits=[0.3, 1.0, -2.0, 0.1])),
    ("Categorical", dict(probs=[[0.2, 0.3, 0.5], [0.5, 0.0, 0.5]]),
     dict(logits=[[0.0, 1.0, 2.0], [1.0, 2.0, -1.0]])),
    ("MultivariateNormal", dict(loc=[0.1, 0.2, -0.3], covariance_matrix=A),
     dict(loc=[[0.0, 0.0, 0.0], [1.0, -1.0, 0.5]], scale_tril=np.diag([1.0, 2.0, 0.5]))),
]


@pytest.mark.parametrize("name,p,q", KL_PAIRS, ids=[k[0] for k in KL_PAIRS])
def test_kl_divergence_matches_torch_live(name, p, q):
    torch = pytest.importorskip("torch")
    mine = {k: tinyffn.tensor(np.asarray(v), dtype="float64", requires_grad=True)
            for k, v in p.items()}
    theirs = {k: torch.tensor(np.asarray(v), dtype=torch.float64, requires_grad=True)
              for k, v in p.items()}
    cls, tcls = globals()[name], getattr(torch.distributions, name)
    kl = kl_divergence(cls(**mine), cls(**{k: tinyffn.tensor(np.asarray(v), dtype="float64")
                                           for k, v in q.items()}))
    tkl = torch.distributions.kl_divergence(
        tcls(**theirs), tcls(**{k: torch.tensor(np.asarray(v), dtype=torch.float64)
                                for k, v in q.items()}))
    np.testing.assert_allclose(kl.numpy(), tkl.detach().numpy(), rtol=1e-10)
    finite = np.isfinite(tkl.detach().numpy())
    tinyffn.where(tinyffn.tensor(finite), kl, 0.0).sum().backward()
    torch.where(torch.tensor(finite), tkl, 0.0).sum().backward()
    for k in mine:
        np.testing.assert_allclose(np.nan_to_num(mine[k].grad.numpy()),
                                   np.nan_to_num(theirs[k].grad.numpy()), rtol=1e-9, atol=1e-12)


def test_kl_of_normals_is_the_formula_and_a_monte_carlo_estimate():
    p, q = Normal(0.3, 0.8), Normal(-0.5, 1.5)
    formula = math.log(1.5 / 0.8) + (0.8 ** 2 + 0.8 ** 2) / (2 * 1.5 ** 2) - 0.5
    assert kl_divergence(p, q).item() == pytest.approx(formula, rel=1e-6)
    x = Normal(tinyffn.tensor(0.3, dtype="float64"), 0.8).sample((20000,))
    est = (Normal(0.3, 0.8).log_prob(x.float()) - q.log_prob(x.float())).mean().item()
    assert est == pytest.approx(formula, abs=0.03)       # 5 standard errors (se 0.006)
    mvn = [MultivariateNormal(tinyffn.zeros(2, dtype="float64"), tinyffn.eye(2, dtype="float64")),
           MultivariateNormal(tinyffn.zeros(2, dtype="float64"), tinyffn.eye(2, dtype="float64"))]
    assert kl_divergence(*mvn).item() == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("cls,args", [(Normal, ([0.1, -0.3], [0.5, 2.0])),
                                      (Laplace, ([0.1, -0.3], [0.5, 2.0])),
                                      (Uniform, ([-1.0, 0.0], [1.0, 3.0])),
                                      (Exponential, ([0.5, 2.0],))])
def test_rsample_is_loc_plus_scale_times_a_fixed_draw(cls, args, device):
    """d sample / d loc = 1 and d sample / d scale = (sample − loc) / scale (the draw eps),
    for each reparameterisation; the same seed gives the same draws on every device."""
    params = [tinyffn.tensor(a, dtype="float64", device=device, requires_grad=True)
              for a in args]
    tinyffn.manual_seed(5)
    x = cls(*params).rsample((3,))                                  # (3, 2)
    tinyffn.manual_seed(5)
    again = cls(*[p.detach() for p in params])
    np.testing.assert_array_equal(again.sample((3,)).numpy(), x.detach().numpy())
    x.sum().backward()
    xs = x.detach().numpy()
    a, b = (p.detach().numpy() for p in params) if len(params) == 2 else (None, None)
    if cls in (Normal, Laplace):
        np.testing.assert_allclose(params[0].grad.numpy(), [3.0, 3.0])
        np.testing.assert_allclose(params[1].grad.numpy(), ((xs - a) / b).sum(0), rtol=1e-12)
    elif cls is Uniform:                     # x = low + u (high − low)
        u = (xs - a) / (b - a)
        np.testing.assert_allclose(params[0].grad.numpy(), (1 - u).sum(0), rtol=1e-12)
        np.testing.assert_allclose(params[1].grad.numpy(), u.sum(0), rtol=1e-12)
    else:                                    # x = E / rate
        rate = params[0].detach().numpy()
        np.testing.assert_allclose(params[0].grad.numpy(), (-xs / rate).sum(0), rtol=1e-12)


def test_mvn_rsample_is_loc_plus_scale_tril_times_eps(device):
    loc = tinyffn.tensor([0.1, 0.2, -0.3], dtype="float64", device=device, requires_grad=True)
    Lt = tinyffn.tensor(L, dtype="float64", device=device, requires_grad=True)
    x = MultivariateNormal(loc, scale_tril=Lt).rsample((4,))                 # (4, 3)
    eps = np.linalg.solve(L, (x.detach().numpy() - loc.detach().numpy()).T).T   # (4, 3)
    x.sum().backward()
    np.testing.assert_allclose(loc.grad.numpy(), [4.0, 4.0, 4.0])
    # x = loc + L eps reads every entry of L (as PyTorch's): d Σ_s Σ_i x_si / d L_ij = Σ_s eps_sj
    np.testing.assert_allclose(Lt.grad.numpy(), np.ones((3, 1)) * eps.sum(0),
                               rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("case", ["Normal", "Laplace", "Exponential", "Bernoulli-logits",
                                  "Categorical-logits", "MVN-scale_tril"])
def test_log_prob_is_gradchecked(case, device):
    d, params, v = _make(tinyffn, case, device=device, grad=True)
    cls = type(d)
    names = list(params)
    if case.startswith("MVN"):             # off-diagonal zeros stay zero: a lower factor
        fn = lambda loc, S: cls(loc, scale_tril=S.tril()).log_prob(v)
    elif v.backend.is_floating(v.dtype) and case != "Bernoulli-logits":
        v.requires_grad_(True)
        fn = lambda *a: cls(**dict(zip(names, a[:-1]))).log_prob(a[-1])
        assert tinyffn.gradcheck(fn, [*params.values(), v])
        return
    else:
        fn = lambda *a: cls(**dict(zip(names, a))).log_prob(v)
    assert tinyffn.gradcheck(fn, list(params.values()))


def _within(draws, mean, var, axis=0, z=5.0):
    """mean and variance of the draws within z standard errors (of the mean: sqrt(var/n);
    of the variance: var · sqrt(2/(n−1)) plus the fourth-moment slack of heavy tails)."""
    n = draws.shape[axis]
    np.testing.assert_array_less(abs(draws.mean(axis) - mean), z * np.sqrt(var / n) + 1e-12)
    np.testing.assert_array_less(abs(draws.var(axis) - var), z * 2 * var * np.sqrt(2 / n) + 1e-12)


@pytest.mark.parametrize("case", ["Normal", "Laplace", "Exponential", "Uniform",
                                  "Bernoulli-probs", "Categorical-probs", "MVN-covariance"])
def test_sample_statistics_of_20000_seeded_draws(case):
    d, _, _ = _make(tinyffn, case)
    tinyffn.manual_seed(11)
    x = d.sample((20000,)).numpy()
    assert x.shape == (20000,) + d.batch_shape + d.event_shape and not d.sample().requires_grad
    if case.startswith("Categorical"):
        p = d.probs.numpy()
        freq = np.stack([(x == k).mean(0) for k in range(3)], -1)           # (2, 3)
        np.testing.assert_array_less(abs(freq - p), 5 * np.sqrt(p * (1 - p) / 20000) + 1e-12)
    elif case.startswith("MVN"):
        np.testing.assert_allclose(np.cov(x.T), A, atol=0.06)              # se ~ 0.01-0.02
        _within(x, d.mean.numpy(), np.diag(A))
    else:
        _within(x, d.mean.numpy(), d.variance.numpy())


def test_seed_fixes_the_draws_and_they_carry_no_gradient():
    loc = tinyffn.tensor([0.0, 1.0], requires_grad=True)
    tinyffn.manual_seed(3)
    a = Normal(loc, 1.0).sample((2,))
    tinyffn.manual_seed(3)
    b = Normal(loc, 1.0).sample((2,))
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert a.grad_fn is None and not a.requires_grad and a.dtype == loc.dtype
    assert Normal(loc, 1.0).rsample().requires_grad


@pytest.mark.parametrize("case,batch,event", [
    ("Normal", (2,), ()), ("Exponential", (2,), ()), ("Bernoulli-probs", (3,), ()),
    ("Categorical-probs", (2,), ()), ("MVN-covariance", (), (3,)), ("MVN-scale_tril", (1,), (3,))])
def test_shapes_of_batches_draws_and_expand(case, batch, event):
    d, _, _ = _make(tinyffn, case)
    assert d.batch_shape == batch and d.event_shape == event
    assert d.sample().shape == batch + event
    assert d.sample((4, 5)).shape == (4, 5) + batch + event
    assert d.sample(6).shape == (6,) + batch + event
    assert d.entropy().shape == batch
    e = d.expand((7,) + batch)
    assert e.batch_shape == (7,) + batch and e.sample((2,)).shape == (2, 7) + batch + event
    assert e.log_prob(d.sample()).shape == (7,) + batch
    np.testing.assert_allclose(e.entropy().numpy(), np.broadcast_to(d.entropy().numpy(),
                                                                     (7,) + batch))


ERRORS = [
    (lambda m: m.distributions.Normal(0.0, -1.0),
     r"parameter scale .* Normal\(loc: 0.0, scale: -1.0\) .* GreaterThan\(lower_bound=0.0\)"),
    (lambda m: m.distributions.Exponential(m.tensor([1.0, 0.0])), r"parameter rate"),
    (lambda m: m.distributions.Bernoulli(m.tensor([1.5])), r"probs .* Bernoulli.* Interval"),
    (lambda m: m.distributions.Categorical(m.tensor([1.0, -1.0])), r"probs .* Simplex"),
    (lambda m: m.distributions.Uniform(1.0, 0.0), r"parameter low .* LessThan"),
    (lambda m: m.distributions.MultivariateNormal(m.zeros(2), m.tensor([[1.0, 2], [2, 1]])),
     r"covariance_matrix .* PositiveDefinite"),
    (lambda m: m.distributions.MultivariateNormal(m.zeros(2), scale_tril=m.tensor(
        [[1.0, 0], [0.5, -1.0]])), r"scale_tril .* LowerCholesky"),
    (lambda m: m.distributions.Normal(m.zeros(2), 1.0).log_prob(1.0),
     r"value argument to log_prob must be a Tensor"),
    (lambda m: m.distributions.Normal(m.zeros(3), 1.0).log_prob(m.zeros(2)),
     r"not broadcastable with batch_shape\+event_shape"),
    (lambda m: m.distributions.Exponential(1.0).log_prob(m.tensor(-1.0)),
     r"support \(GreaterThanEq\(lower_bound=0.0\)\) of the distribution Exponential"),
    (lambda m: m.distributions.Bernoulli(m.tensor(0.5)).log_prob(m.tensor(0.5)),
     r"support \(Boolean\(\)\)"),
    (lambda m: m.distributions.Categorical(m.tensor([1.0, 2.0])).log_prob(m.tensor(2)),
     r"IntegerInterval\(lower_bound=0, upper_bound=1\)"),
    (lambda m: m.distributions.Categorical(), r"Either `probs` or `logits`"),
    (lambda m: m.distributions.Bernoulli(probs=m.tensor(0.5), logits=m.tensor(0.0)),
     r"Either `probs` or `logits`"),
    (lambda m: m.distributions.MultivariateNormal(m.zeros(2)), r"Exactly one of"),
    (lambda m: m.distributions.MultivariateNormal(m.zeros(2), m.eye(2), scale_tril=m.eye(2)),
     r"Exactly one of"),
]


@pytest.mark.parametrize("make,match", ERRORS)
def test_bad_arguments_are_refused_as_torch_refuses_them(make, match):
    torch_parity.refused_as_torch(make, ValueError, match)


def test_validate_args_can_be_turned_off_and_rsample_is_refused_where_torch_has_none():
    assert Normal(0.0, -1.0, validate_args=False).scale.item() == -1.0
    assert Bernoulli(tinyffn.tensor(0.5), validate_args=False).log_prob(
        tinyffn.tensor(0.5)).item() == pytest.approx(math.log(0.5))
    Distribution.set_default_validate_args(False)
    try:
        Normal(0.0, -1.0)
    finally:
        Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError, match="parameter scale"):
        Normal(0.0, -1.0)
    for d in (Bernoulli(tinyffn.tensor(0.5)), Categorical(logits=tinyffn.zeros(3))):
        assert not d.has_rsample
        with pytest.raises(NotImplementedError, match="rsample"):
            d.rsample()


def test_kl_registry_dispatches_on_the_classes_and_names_a_missing_pair():
    class Wide(Normal):
        pass

    assert kl_divergence(Wide(0.0, 1.0), Normal(1.0, 1.0)).item() == pytest.approx(0.5)
    with pytest.raises(NotImplementedError, match="Normal and Cauchy; register one"):
        kl_divergence(Normal(0.0, 1.0), tinyffn.distributions.Cauchy(0.0, 1.0))

    @register_kl(Wide, Uniform)
    def _kl_wide_uniform(p, q):
        return p.loc * 0 + 42.0

    assert kl_divergence(Wide(0.0, 1.0), Uniform(0.0, 1.0)).item() == 42.0
    with pytest.raises(TypeError, match="subclasses of Distribution"):
        register_kl(Normal, float)
    with pytest.raises(ValueError, match="different event shapes"):
        kl_divergence(MultivariateNormal(tinyffn.zeros(2), tinyffn.eye(2)),
                      MultivariateNormal(tinyffn.zeros(3), tinyffn.eye(3)))


# ----------------------------------------------------------------------------- mutation audit
# Without torch (as in CI) only the tests above ran, and a mutation audit found wrong
# entropies, icdfs, KLs and MVN moments that none of them caught: each is written out here
# from SciPy (densities, quantiles, numerical integrals) or NumPy.
def test_entropy_cdf_icdf_and_moments_are_scipys():
    stats = pytest.importorskip("scipy.stats")
    T = lambda a: tinyffn.tensor(np.asarray(a, dtype=np.float64))
    m, s, q = 0.3, 1.7, np.array([0.05, 0.3, 0.9])
    x = np.array([-2.5, 0.2, 0.5, 4.0])
    refs = [(Normal(T(m), T(s)), stats.norm(m, s)), (Laplace(T(m), T(s)), stats.laplace(m, s)),
            (Exponential(T(2.0)), stats.expon(scale=0.5)),
            (Uniform(T(-2.0), T(3.0), validate_args=False), stats.uniform(-2.0, 5.0))]
    for d, ref in refs:
        name = type(d).__name__
        np.testing.assert_allclose(d.entropy().item(), ref.entropy(), rtol=1e-12, err_msg=name)
        np.testing.assert_allclose(d.icdf(T(q)).numpy(), ref.ppf(q), rtol=1e-10, err_msg=name)
        np.testing.assert_allclose(d.stddev.item(), ref.std(), rtol=1e-12, err_msg=name)
        np.testing.assert_allclose(d.variance.item(), ref.var(), rtol=1e-12, err_msg=name)
        v = np.abs(x) if name == "Exponential" else x
        np.testing.assert_allclose(d.cdf(T(v)).numpy(), ref.cdf(v), rtol=1e-12, atol=1e-15,
                                   err_msg=name)
    p = np.array([0.2, 0.5, 0.9])
    np.testing.assert_allclose(Bernoulli(T(p)).entropy().numpy(), stats.bernoulli.entropy(p),
                               rtol=1e-12)
    masked = Categorical(logits=T([[0.0, -np.inf, 1.0]]))          # a masked action adds 0
    pm = np.exp([0.0, 1.0]) / np.exp([0.0, 1.0]).sum()
    np.testing.assert_allclose(masked.entropy().numpy(), [-(pm * np.log(pm)).sum()])
    precision = MultivariateNormal(T([0.1, 0.2, -0.3]), precision_matrix=T(np.linalg.inv(A)))
    np.testing.assert_allclose(precision.covariance_matrix.numpy(), A, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(precision.variance.numpy(), np.diag(A), rtol=1e-12)


def _kl_by_quadrature(p, q, low, high):
    """∫ p (log p − log q) over [low, high] (p's mass outside is below 1e-30), split at
    the Laplace densities' kinks."""
    integrate = pytest.importorskip("scipy.integrate")
    return integrate.quad(lambda x: p.pdf(x) * (p.logpdf(x) - q.logpdf(x)), low, high,
                          points=[p for p in (-0.5, 0.2) if low < p < high],
                          epsabs=1e-14, epsrel=1e-12, limit=200)[0]


def test_kl_divergences_are_integrals_and_sums_written_out():
    """KL(p ‖ q) = ∫ p (log p − log q), by quadrature for the scalar densities; sums over
    the outcomes (0 log 0 = 0; inf where q = 0 < p) for Bernoulli and Categorical; the
    Gaussian formula with NumPy's inverse and determinants for MultivariateNormal."""
    stats = pytest.importorskip("scipy.stats")
    T = lambda a: tinyffn.tensor(np.asarray(a, dtype=np.float64))
    pairs = [(Normal(T(0.2), 0.7), Normal(T(-0.5), 1.3), stats.norm(0.2, 0.7),
              stats.norm(-0.5, 1.3), (-20, 20)),
             (Laplace(T(0.2), 0.7), Laplace(T(-0.5), 1.3), stats.laplace(0.2, 0.7),
              stats.laplace(-0.5, 1.3), (-60, 60)),
             (Exponential(T(0.5)), Exponential(T(3.0)), stats.expon(scale=2.0),
              stats.expon(scale=1 / 3), (0, 200)),
             (Uniform(T(0.0), 1.0), Uniform(T(-1.0), 2.0), stats.uniform(0, 1),
              stats.uniform(-1, 3), (0, 1))]
    for p, q, sp, sq, (a, b) in pairs:
        np.testing.assert_allclose(kl_divergence(p, q).item(), _kl_by_quadrature(sp, sq, a, b),
                                   rtol=1e-10, err_msg=type(p).__name__)
    same = Uniform(T([0.0, 0.0]), T([1.0, 1.0]))
    np.testing.assert_array_equal(kl_divergence(same, Uniform(T([0.0, 0.2]), 1.0)).numpy(),
                                  [0.0, np.inf])               # same support; q misses [0, 0.2)
    pb, qb = np.array([0.0, 1.0, 0.3, 0.3]), np.array([0.4, 0.4, 0.0, 0.8])
    want = [sum(a * np.log(a / c) for a, c in ((x, y), (1 - x, 1 - y)) if a > 0)
            if not (y in (0, 1) and 0 < x < 1) else np.inf for x, y in zip(pb, qb)]
    np.testing.assert_allclose(kl_divergence(Bernoulli(T(pb)), Bernoulli(T(qb))).numpy(), want,
                               rtol=1e-12)
    pc, qc = np.array([[0.5, 0.0, 0.5], [0.2, 0.8, 0.0]]), np.array([[0.25, 0.0, 0.75],
                                                                     [0.5, 0.0, 0.5]])
    want = [(a[a > 0] * np.log(a[a > 0] / c[a > 0])).sum() if (c[a > 0] > 0).all() else np.inf
            for a, c in zip(pc, qc)]
    np.testing.assert_allclose(kl_divergence(Categorical(T(pc)), Categorical(T(qc))).numpy(),
                               want, rtol=1e-12)
    mu_p, mu_q, S_q = np.array([0.1, 0.2, -0.3]), np.array([1.0, -1.0, 0.5]), \
        np.array([[1.0, 0.3, 0.0], [0.3, 2.0, 0.1], [0.0, 0.1, 0.5]])
    inv_q, dmu = np.linalg.inv(S_q), mu_q - mu_p
    want = 0.5 * (np.trace(inv_q @ A) + dmu @ inv_q @ dmu - 3
                  + np.log(np.linalg.det(S_q) / np.linalg.det(A)))
    got = kl_divergence(MultivariateNormal(T(mu_p), T(A)), MultivariateNormal(T(mu_q), T(S_q)))
    np.testing.assert_allclose(got.item(), want, rtol=1e-12)


def test_sampling_reads_nothing_back_and_every_device_draws_alike():
    """A policy samples every step: Bernoulli's and Categorical's draws compare u on the
    device (it read the probabilities back to the host before), as Normal's rsample does;
    the same seed gives the same draws on the CPU and the strict backend."""
    from host_reads import counting_host_reads
    made = {}
    for device in ("cpu", "strict"):
        probs = tinyffn.tensor([[0.2, 0.0, 0.8], [0.5, 0.25, 0.25]], device=device)
        dists = [Bernoulli(probs, validate_args=False), Categorical(probs, validate_args=False),
                 Normal(probs, 1.0, validate_args=False)]
        tinyffn.manual_seed(1)
        with counting_host_reads() as reads:
            made[device] = [d.sample((4,)) for d in dists]
        assert device == "cpu" or dict(reads) == {}
    for a, b in zip(made["cpu"], made["strict"]):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
