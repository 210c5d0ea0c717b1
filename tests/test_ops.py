"""Every primitive: forward against NumPy, backward against finite differences, on every backend.

``CASES`` lists, for each primitive in ``tinyffn.ops.PRIMITIVES``, the inputs to try (several
shapes, broadcasting, batched matmul) and a NumPy reference for the forward. The op list
is read from the registry: a primitive without cases fails ``test_every_primitive_has_cases``.
Test points sit away from kinks (relu at 0, ties in max/maximum) where a derivative jumps.
"""
import inspect
import itertools
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest
from scipy import special

import tinyffn
from tinyffn import ops
from tinyffn.backend import dtype_name


@dataclass
class Case:
    label: str
    inputs: list            # NumPy float64 arrays (or int arrays for indices)
    fn: Callable            # tensors -> Tensor
    ref: Callable           # arrays -> array, the forward written with NumPy
    grad_inputs: tuple = None   # indices of inputs to differentiate (default: all float ones)
    tolerance: dict = None      # gradcheck eps/atol/rtol where the defaults do not fit


rng = np.random.default_rng(1234)


def normal(*shape):
    return rng.standard_normal(shape)


def positive(*shape):
    return rng.uniform(0.5, 2.0, shape)


def away_from_zero(*shape):
    """Values with |x| in [0.3, 1.5]: no relu kink within a finite-difference step."""
    return rng.choice([-1.0, 1.0], shape) * rng.uniform(0.3, 1.5, shape)


def distinct(*shape):
    """A shuffled grid of values 0.1 apart: no ties for max, no kinks for maximum."""
    n = int(np.prod(shape))
    return rng.permutation(np.arange(n) * 0.1 - 0.05 * n).reshape(shape)


def _add_at(x, key, v):
    """x with v added at key, repeated indices adding up: NumPy's add.at, on a copy."""
    y = x.copy()
    np.add.at(y, key, v)
    return y


def _windows(K, d, s):
    """im2col written element by element: y[..., k, t] = x[..., t·s + k·d] on each axis."""
    def ref(x):
        n = len(K)
        out = tuple((S - di * (k - 1) - 1) // si + 1 for S, k, di, si in zip(x.shape[-n:], K, d, s))
        y = np.empty(x.shape[:-n] + K + out)
        for k in np.ndindex(*K):
            for t in np.ndindex(*out):
                y[(...,) + k + t] = x[(...,) + tuple(ti * si + ki * di
                                                     for ti, ki, si, di in zip(t, k, s, d))]
        return y
    return ref


def _windows_added(size, K, d, s):
    """col2im written element by element: each y[..., k, t] added onto x[..., t·s + k·d]."""
    def ref(y):
        n = len(K)
        x = np.zeros(y.shape[:-2 * n] + size)
        for k in np.ndindex(*K):
            for t in np.ndindex(*y.shape[-n:]):
                x[(...,) + tuple(ti * si + ki * di for ti, ki, si, di in zip(t, k, s, d))] += \
                    y[(...,) + k + t]
        return x
    return ref


def _index_added(axis):
    """index_add along ``axis`` written with NumPy: the slices of v added at index i."""
    return lambda x, v, i: np.moveaxis(_add_at(np.moveaxis(x, axis, 0), i,
                                               np.moveaxis(v, axis, 0)), 0, axis)


CASES = {
    ops.Add: [
        Case("same", [normal(3, 4), normal(3, 4)], lambda x, w: x + w, np.add),
        Case("bias", [normal(2, 3, 4), normal(4)], lambda x, w: x + w, np.add),
        Case("both-stretch", [normal(3, 1), normal(1, 4)], lambda x, w: x + w, np.add),
        Case("scalar", [normal(2, 3)], lambda x: 2.5 + x, lambda x: 2.5 + x),
    ],
    ops.Sub: [
        Case("same", [normal(3, 4), normal(3, 4)], lambda x, w: x - w, np.subtract),
        Case("broadcast", [normal(4), normal(2, 3, 4)], lambda x, w: x - w, np.subtract),
        Case("rsub", [normal(3)], lambda x: 1.0 - x, lambda x: 1.0 - x),
    ],
    ops.Mul: [
        Case("same", [normal(3, 4), normal(3, 4)], lambda x, w: x * w, np.multiply),
        Case("broadcast", [normal(2, 1, 4), normal(3, 1)], lambda x, w: x * w, np.multiply),
        Case("square", [normal(5)], lambda x: x * x, lambda x: x * x),
    ],
    ops.Div: [
        Case("same", [normal(3, 4), positive(3, 4)], lambda x, w: x / w, np.divide),
        Case("broadcast", [normal(2, 3), positive(3)], lambda x, w: x / w, np.divide),
        Case("rdiv", [positive(4)], lambda x: 2.0 / x, lambda x: 2.0 / x),
    ],
    ops.FloorDivide: [
        # a staircase: points away from its jumps, where finite differences see 0 too
        Case("same", [distinct(3, 4) + 0.013, positive(3, 4)], lambda x, w: x // w,
             lambda x, w: np.floor_divide(x, w)),
        Case("broadcast", [distinct(2, 3) + 0.013, np.array([0.7, -1.3, 2.1])],
             lambda x, w: tinyffn.floor_divide(x, w), np.floor_divide),
    ],
    ops.Remainder: [
        Case("same", [distinct(3, 4) + 0.013, positive(3, 4)], lambda x, w: x % w,
             np.remainder),
        Case("broadcast", [distinct(2, 3) + 0.013, np.array([0.7, -1.3, 2.1])],
             lambda x, w: x.remainder(w), np.remainder),
        Case("rmod", [np.array([0.7, -1.3, 2.1])], lambda w: 5.0 % w, lambda w: 5.0 % w),
    ],
    ops.Fmod: [
        Case("same", [distinct(3, 4) + 0.013, positive(3, 4)], lambda x, w: x.fmod(w),
             np.fmod),
        Case("broadcast", [distinct(2, 3) + 0.013, np.array([0.7, -1.3, 2.1])],
             lambda x, w: tinyffn.fmod(x, w), np.fmod),
    ],
    ops.Maximum: [
        Case("same", [distinct(3, 4), distinct(3, 4) + 0.03], lambda x, w: x.maximum(w),
             np.maximum),
        Case("broadcast", [distinct(2, 3), distinct(3) + 0.03], lambda x, w: x.maximum(w),
             np.maximum),
    ],
    ops.Where: [
        Case("same", [normal(3, 4) > 0, normal(3, 4), normal(3, 4)],
             lambda c, x, w: tinyffn.where(c, x, w), np.where),
        Case("broadcast", [normal(3, 1) > 0, normal(4), normal(2, 3, 1)],
             lambda c, x, w: tinyffn.where(c, x, w), np.where),
        Case("masked_fill", [normal(2, 3) > 0, normal(2, 3)], lambda c, x: x.masked_fill(c, -1.5),
             lambda c, x: np.where(c, -1.5, x)),
        Case("x-only", [normal(2, 3) > 0, normal(2, 3)], lambda c, x: tinyffn.where(c, x, 0.5),
             lambda c, x: np.where(c, x, 0.5)),
    ],
    ops.Neg: [Case("neg", [normal(3, 2)], lambda x: -x, np.negative)],
    ops.Pow: [
        Case("square", [normal(3, 4)], lambda x: x ** 2, lambda x: x ** 2),
        Case("cube", [normal(5)], lambda x: x ** 3, lambda x: x ** 3),
        Case("sqrt", [positive(2, 3)], lambda x: x ** 0.5, np.sqrt),
        Case("inverse", [positive(4)], lambda x: x ** -1.5, lambda x: x ** -1.5),
        # next to the powers _power writes as products (1, 2, 3, 0.5): the general path
        Case("fourth", [normal(5)], lambda x: x ** 4, lambda x: x ** 4),
        Case("three-quarters", [positive(4)], lambda x: x ** 0.75, lambda x: x ** 0.75),
    ],
    ops.Exp: [Case("exp", [normal(3, 4)], lambda x: x.exp(), np.exp)],
    ops.Log: [Case("log", [positive(3, 4)], lambda x: x.log(), np.log)],
    ops.Log1p: [
        Case("log1p", [positive(3, 4) - 0.4], lambda x: x.log1p(), np.log1p),
        Case("tiny", [normal(5) * 1e-12], lambda x: tinyffn.log1p(x), np.log1p),
    ],
    ops.Tanh: [Case("tanh", [normal(3, 4)], lambda x: x.tanh(), np.tanh)],
    ops.Sigmoid: [
        Case("sigmoid", [normal(3, 4)], lambda x: x.sigmoid(), special.expit),
        Case("large", [normal(6) * 20], lambda x: x.sigmoid(), special.expit),
    ],
    ops.Erf: [Case("erf", [normal(3, 4)], lambda x: x.erf(), special.erf)],
    ops.Sin: [Case("sin", [normal(3, 4) * 2], lambda x: x.sin(), np.sin)],
    ops.Cos: [Case("cos", [normal(3, 4) * 2], lambda x: x.cos(), np.cos)],
    ops.Sign: [Case("sign", [away_from_zero(3, 4)], lambda x: x.sign(), np.sign)],
    ops.ReLU: [Case("relu", [away_from_zero(3, 4)], lambda x: x.relu(),
                    lambda x: np.maximum(x, 0))],
    ops.Cast: [
        # float32 rounding (~1e-7) swamps a 1e-6 step: difference over a wider one
        Case("f64->f32->f64", [normal(3, 2)], lambda x: x.float().double() * 1.0,
             lambda x: x.astype(np.float32).astype(np.float64),
             tolerance=dict(eps=1e-3, atol=1e-4)),
    ],
    ops.Clone: [Case("clone", [normal(3, 2)], lambda x: x.clone(), np.copy)],
    ops.Sum: [
        Case("all", [normal(3, 4)], lambda x: x.sum(), np.sum),
        Case("axis0", [normal(3, 4)], lambda x: x.sum(axis=0), lambda x: x.sum(axis=0)),
        Case("axes-keepdims", [normal(2, 3, 4)], lambda x: x.sum(axis=(0, 2), keepdims=True),
             lambda x: x.sum(axis=(0, 2), keepdims=True)),
        Case("negative-axis", [normal(2, 3)], lambda x: x.sum(axis=-1), lambda x: x.sum(-1)),
    ],
    ops.Mean: [
        Case("all", [normal(3, 4)], lambda x: x.mean(), np.mean),
        Case("axis1-keepdims", [normal(2, 3, 4)], lambda x: x.mean(axis=1, keepdims=True),
             lambda x: x.mean(axis=1, keepdims=True)),
    ],
    ops.Max: [
        Case("all", [distinct(3, 4)], lambda x: x.max(), np.max),
        Case("axis-1", [distinct(2, 3, 4)], lambda x: x.amax(axis=-1), lambda x: x.max(-1)),
        Case("axes-keepdims", [distinct(2, 3, 4)], lambda x: x.amax(dim=(0, 1), keepdim=True),
             lambda x: x.max(axis=(0, 1), keepdims=True)),
    ],
    ops.Prod: [
        Case("all", [normal(3, 4)], lambda x: x.prod(), np.prod),
        Case("axis1", [normal(3, 4)], lambda x: x.prod(1), lambda x: x.prod(1)),
        Case("axis0-keepdim", [normal(3, 4)], lambda x: x.prod(0, keepdim=True),
             lambda x: x.prod(0, keepdims=True)),
        Case("a-zero", [np.array([[2.0, 0.0, -3.0], [0.5, 1.5, 2.0]])], lambda x: x.prod(1),
             lambda x: x.prod(1)),
    ],
    ops.Cumsum: [
        Case("axis1", [normal(3, 4)], lambda x: x.cumsum(1), lambda x: np.cumsum(x, 1)),
        Case("axis0", [normal(2, 3, 4)], lambda x: x.cumsum(0), lambda x: np.cumsum(x, 0)),
    ],
    ops.MatMul: [
        Case("2d", [normal(3, 4), normal(4, 5)], lambda x, w: x @ w, np.matmul),
        Case("vec-mat", [normal(4), normal(4, 3)], lambda x, w: x @ w, np.matmul),
        Case("mat-vec", [normal(3, 4), normal(4)], lambda x, w: x @ w, np.matmul),
        Case("vec-vec", [normal(4), normal(4)], lambda x, w: x @ w, np.matmul),
        Case("batched", [normal(2, 3, 4), normal(2, 4, 5)], lambda x, w: x @ w, np.matmul),
        Case("batch-broadcast", [normal(2, 1, 3, 4), normal(5, 4, 2)], lambda x, w: x @ w,
             np.matmul),
        Case("shared-weight", [normal(2, 3, 4), normal(4, 5)], lambda x, w: x @ w, np.matmul),
        Case("vec-batched", [normal(4), normal(2, 4, 3)], lambda x, w: x @ w, np.matmul),
    ],
    ops.Reshape: [
        Case("flatten", [normal(2, 3, 4)], lambda x: x.reshape(6, 4), lambda x: x.reshape(6, 4)),
        Case("infer", [normal(2, 6)], lambda x: x.reshape((3, -1)), lambda x: x.reshape(3, -1)),
    ],
    ops.Transpose: [
        Case("T", [normal(3, 4)], lambda x: x.T, np.transpose),
        Case("perm", [normal(2, 3, 4)], lambda x: x.transpose(2, 0, 1),
             lambda x: x.transpose(2, 0, 1)),
    ],
    ops.BroadcastTo: [
        Case("lead", [normal(4)], lambda x: x.broadcast_to(3, 4),
             lambda x: np.broadcast_to(x, (3, 4))),
        Case("stretch", [normal(3, 1)], lambda x: x.broadcast_to(2, 3, 5),
             lambda x: np.broadcast_to(x, (2, 3, 5))),
    ],
    ops.GetItem: [
        Case("slice", [normal(4, 5)], lambda x: x[1:3, ::2], lambda x: x[1:3, ::2]),
        Case("int", [normal(4, 5)], lambda x: x[2], lambda x: x[2]),
        Case("pick", [normal(3, 4), np.array([0, 1, 2]), np.array([3, 0, 3])],
             lambda x, i, j: x[i, j], lambda x, i, j: x[i, j], grad_inputs=(0,)),
        Case("repeat", [normal(4, 2), np.array([1, 1, 3]), np.array([0, 0, 1])],
             lambda x, i, j: x[i, j], lambda x, i, j: x[i, j], grad_inputs=(0,)),
    ],
    ops.Concat: [
        Case("rows", [normal(2, 3), normal(4, 3)], lambda x, w: tinyffn.cat([x, w]),
             lambda x, w: np.concatenate([x, w])),
        Case("middle-of-3", [normal(2, 1, 3), normal(2, 2, 3), normal(2, 4, 3)],
             lambda a, b, c: tinyffn.cat([a, b, c], axis=-2),
             lambda a, b, c: np.concatenate([a, b, c], axis=1)),
    ],
    ops.IndexAdd: [
        Case("rows", [normal(4, 3), normal(3, 3), np.array([0, 2, 0])],
             lambda x, v, i: tinyffn.index_add(x, 0, i, v), _index_added(0)),
        Case("columns", [normal(2, 5), normal(2, 2), np.array([4, 1])],
             lambda x, v, i: x.index_add(1, i, v), _index_added(1)),
        Case("scatter", [normal(3, 4), normal(2, 4), np.array([[0, 2, 2, 1], [2, 2, 0, 0]])],
             lambda x, v, i: x.scatter_add(0, i, v),
             lambda x, v, i: _add_at(x, (i, np.arange(4)), v)),
    ],
    ops.Im2Col: [       # windows.py: the windows overlap, so col2im adds in the backward
        Case("1d-dilated", [normal(2, 3, 7)],
             lambda x: ops.Im2Col.apply(x, kernel_size=(3,), dilation=(2,), stride=(1,)),
             _windows((3,), (2,), (1,))),
        Case("2d-strided", [normal(1, 2, 5, 6)],
             lambda x: ops.Im2Col.apply(x, kernel_size=(2, 3), dilation=(1, 2), stride=(2, 1)),
             _windows((2, 3), (1, 2), (2, 1))),
    ],
    ops.Col2Im: [
        Case("2d-overlap", [normal(1, 2, 2, 3, 2, 3)],
             lambda x: ops.Col2Im.apply(x, size=(4, 5), kernel_size=(2, 3), dilation=(1, 1),
                                        stride=(2, 1)),
             _windows_added((4, 5), (2, 3), (1, 1), (2, 1))),
    ],
    ops.Linear: [
        Case("bias", [normal(3, 4), normal(5, 4), normal(5)],
             lambda x, w, b: ops.Linear.apply(x, w, b), lambda x, w, b: x @ w.T + b),
        Case("no-bias-batched", [normal(2, 3, 4), normal(5, 4)],
             lambda x, w: ops.Linear.apply(x, w), lambda x, w: x @ w.T),
    ],
    ops.GELU: [
        Case("exact", [normal(3, 4) * 2], lambda x: ops.GELU.apply(x, approximate="none"),
             lambda x: 0.5 * x * (1 + special.erf(x / np.sqrt(2)))),
        Case("tanh", [normal(3, 4) * 2], lambda x: ops.GELU.apply(x, approximate="tanh"),
             lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))),
    ],
    ops.Swish: [
        Case("silu", [normal(3, 4) * 2], lambda x: ops.Swish.apply(x, beta=1.0),
             lambda x: x * special.expit(x)),
        Case("beta", [normal(5) * 2], lambda x: ops.Swish.apply(x, beta=1.7),
             lambda x: x * special.expit(1.7 * x)),
        Case("beta-2", [normal(5) * 2], lambda x: ops.Swish.apply(x, beta=2.0),
             lambda x: x * special.expit(2.0 * x)),
    ],
    # logs_and_angles.py
    ops.Log2: [Case("log2", [positive(3, 4)], lambda x: tinyffn.log2(x), np.log2)],
    ops.Log10: [Case("log10", [positive(3, 4)], lambda x: x.log10(), np.log10)],
    ops.Exp2: [Case("exp2", [normal(3, 4)], lambda x: tinyffn.exp2(x), np.exp2)],
    ops.Atan: [Case("atan", [normal(3, 4) * 2], lambda x: x.atan(), np.arctan)],
    ops.Atan2: [
        Case("atan2", [normal(3, 4), normal(3, 4)], lambda x, w: tinyffn.atan2(x, w), np.arctan2),
        Case("broadcast", [normal(3, 1), normal(4)], lambda x, w: x.atan2(w), np.arctan2),
    ],
    ops.Tan: [Case("tan", [rng.uniform(-1.3, 1.3, (3, 4))], lambda x: x.tan(), np.tan)],
    ops.Asin: [Case("asin", [rng.uniform(-0.9, 0.9, (3, 4))], lambda x: tinyffn.asin(x),
                    np.arcsin)],
    ops.Acos: [Case("acos", [rng.uniform(-0.9, 0.9, (3, 4))], lambda x: x.acos(), np.arccos)],
    ops.Atanh: [Case("atanh", [rng.uniform(-0.9, 0.9, (3, 4))], lambda x: x.atanh(),
                     np.arctanh)],
    ops.Asinh: [Case("asinh", [normal(3, 4) * 3], lambda x: tinyffn.asinh(x), np.arcsinh)],
    ops.Acosh: [Case("acosh", [rng.uniform(1.1, 5.0, (3, 4))], lambda x: x.acosh(),
                     np.arccosh)],
    # special_functions.py: scipy.special as the reference
    ops.Lgamma: [Case("lgamma", [normal(3, 4) * 3], lambda x: x.lgamma(), special.gammaln)],
    ops.Digamma: [Case("digamma", [normal(3, 4) * 3], lambda x: tinyffn.digamma(x),
                       special.psi)],
    ops.Polygamma: [
        Case("n1", [positive(3, 4)], lambda x: tinyffn.polygamma(1, x),
             lambda x: special.polygamma(1, x)),
        Case("n3-negative", [rng.uniform(-0.8, -0.2, 5)], lambda x: x.polygamma(3),
             lambda x: special.polygamma(3, x)),
    ],
    ops.Erfc: [Case("erfc", [normal(3, 4) * 2], lambda x: tinyffn.erfc(x), special.erfc)],
    ops.Erfcx: [Case("erfcx", [rng.uniform(-2.5, 4.0, (3, 4))],    # float16 is finite there
                     lambda x: tinyffn.special.erfcx(x),
                     special.erfcx)],
    ops.Erfinv: [Case("erfinv", [rng.uniform(-0.95, 0.95, (3, 4))], lambda x: x.erfinv(),
                      special.erfinv)],
    ops.Ndtri: [Case("ndtri", [rng.uniform(0.02, 0.98, (3, 4))],
                     lambda x: tinyffn.special.ndtri(x), special.ndtri)],
    ops.I0: [Case("i0", [normal(3, 4) * 3], lambda x: x.i0(), special.i0)],
    ops.I0e: [Case("i0e", [away_from_zero(3, 4) * 3], lambda x: tinyffn.special.i0e(x),
                   special.i0e)],
    ops.I1: [Case("i1", [normal(3, 4) * 3], lambda x: tinyffn.special.i1(x), special.i1)],
    ops.I1e: [Case("i1e", [normal(3, 4) * 3], lambda x: tinyffn.special.i1e(x), special.i1e)],
    ops.Zeta: [     # no derivative in the exponent x, as in PyTorch: only q is checked
        Case("zeta", [positive(3, 4) + 1.5, positive(3, 4)],
             lambda x, q: tinyffn.special.zeta(x, q), special.zeta, grad_inputs=(1,)),
        Case("broadcast", [positive(3, 1) + 1.5, positive(4) + 1],
             lambda x, q: ops.Zeta.apply(x, q), special.zeta, grad_inputs=(1,)),
    ],
    # bessel.py: K and Y on x > 0, their domain
    ops.J0: [Case("j0", [normal(3, 4) * 3], lambda x: tinyffn.special.bessel_j0(x), special.j0)],
    ops.J1: [Case("j1", [normal(3, 4) * 3], lambda x: tinyffn.special.bessel_j1(x), special.j1)],
    ops.Y0: [Case("y0", [positive(3, 4) * 2], lambda x: tinyffn.special.bessel_y0(x),
                  special.y0)],
    ops.Y1: [Case("y1", [positive(3, 4) * 2], lambda x: tinyffn.special.bessel_y1(x),
                  special.y1)],
    ops.K0: [Case("k0", [positive(3, 4)], lambda x: tinyffn.special.modified_bessel_k0(x),
                  special.k0)],
    ops.K1: [Case("k1", [positive(3, 4)], lambda x: tinyffn.special.modified_bessel_k1(x),
                  special.k1)],
    ops.K0e: [Case("k0e", [positive(3, 4) * 2],
                   lambda x: tinyffn.special.scaled_modified_bessel_k0(x), special.k0e)],
    ops.K1e: [Case("k1e", [positive(3, 4) * 2],
                   lambda x: tinyffn.special.scaled_modified_bessel_k1(x), special.k1e)],
    ops.Gammainc: [     # no derivative in a, as in PyTorch: only x is checked
        Case("gammainc", [positive(3, 4) * 2, positive(3, 4) * 2],
             lambda a, x: tinyffn.special.gammainc(a, x), special.gammainc, grad_inputs=(1,)),
        Case("broadcast", [positive(3, 1) * 2, positive(4) * 2],
             lambda a, x: ops.Gammainc.apply(a, x), special.gammainc, grad_inputs=(1,)),
    ],
    ops.Gammaincc: [Case("gammaincc", [positive(3, 4) * 2, positive(4) * 2],
                         lambda a, x: tinyffn.special.gammaincc(a, x), special.gammaincc,
                         grad_inputs=(1,))],
    ops.StandardGamma: [    # u in (0.1, 0.9): a step of the difference stays inside (0, 1)
        Case("standard_gamma", [positive(3, 4) * 2, rng.uniform(0.1, 0.9, (3, 4))],
             lambda a, u: ops.StandardGamma.apply(a, u), special.gammaincinv),
        Case("broadcast", [positive(3, 1) * 2, rng.uniform(0.1, 0.9, (4,))],
             lambda a, u: ops.StandardGamma.apply(a, u), special.gammaincinv),
    ],
    # decompositions.py: matrices whose singular values (eigenvalues) are well apart
    ops.Svdvals: [
        Case("tall", [normal(4, 3)], lambda a: tinyffn.linalg.svdvals(a),
             lambda a: np.linalg.svd(a, compute_uv=False)),
        Case("batched-wide", [normal(2, 2, 4)], lambda a: tinyffn.linalg.svdvals(a),
             lambda a: np.linalg.svd(a, compute_uv=False)),
    ],
    ops.Svd: [
        Case("U-tall", [normal(4, 3)], lambda a: tinyffn.linalg.svd(a, False).U,
             lambda a: np.linalg.svd(a, full_matrices=False)[0]),
        Case("Vh-wide", [normal(2, 4)], lambda a: tinyffn.linalg.svd(a, False).Vh,
             lambda a: np.linalg.svd(a, full_matrices=False)[2]),
        Case("S-batched-full", [normal(2, 3, 3)], lambda a: tinyffn.linalg.svd(a).S,
             lambda a: np.linalg.svd(a, compute_uv=False)),
        Case("product-full", [normal(3, 4)],          # U[:, :k] S Vh[:k] is A again
             lambda a: (lambda U, S, Vh: (U[:, :3] * S) @ Vh[:3])(*tinyffn.linalg.svd(a)),
             lambda a: a),
    ],
    ops.Det: [
        Case("square", [normal(3, 3)], lambda a: tinyffn.linalg.det(a), np.linalg.det),
        Case("batched", [normal(2, 4, 4)], lambda a: tinyffn.det(a), np.linalg.det),
    ],
    ops.Slogdet: [
        Case("logabsdet", [normal(2, 3, 3)], lambda a: tinyffn.linalg.slogdet(a).logabsdet,
             lambda a: np.linalg.slogdet(a)[1]),
    ],
    ops.Inv: [
        Case("square", [normal(3, 3) + 3 * np.eye(3)], lambda a: tinyffn.linalg.inv(a),
             np.linalg.inv),
        Case("batched", [normal(2, 3, 3) + 3 * np.eye(3)], lambda a: tinyffn.inverse(a),
             np.linalg.inv),
    ],
    ops.Solve: [
        Case("matrix", [normal(3, 3) + 3 * np.eye(3), normal(3, 2)],
             lambda a, b: tinyffn.linalg.solve(a, b), np.linalg.solve),
        Case("vector-broadcast", [normal(2, 3, 3) + 3 * np.eye(3), normal(3)],
             lambda a, b: tinyffn.linalg.solve(a, b),
             lambda a, b: np.linalg.solve(a, b[:, None])[..., 0]),
        Case("left-false", [normal(3, 3) + 3 * np.eye(3), normal(2, 3)],
             lambda a, b: tinyffn.linalg.solve(a, b, left=False),
             lambda a, b: b @ np.linalg.inv(a)),
    ],
    ops.Eigvalsh: [     # only the lower triangle is read: the upper one gets no gradient
        Case("lower", [normal(3, 3)], lambda a: tinyffn.linalg.eigvalsh(a + a.mT),
             lambda a: np.linalg.eigvalsh(a + a.T)),
        Case("batched-upper", [normal(2, 4, 4)],
             lambda a: tinyffn.linalg.eigvalsh(a + a.mT, UPLO="U"),
             lambda a: np.linalg.eigvalsh(a + np.swapaxes(a, -1, -2), UPLO="U")),
    ],
    ops.Eigh: [
        Case("vectors", [normal(3, 3)], lambda a: tinyffn.linalg.eigh(a + a.mT).eigenvectors,
             lambda a: np.linalg.eigh(a + a.T)[1]),
        Case("batched-values", [normal(2, 3, 3)],
             lambda a: tinyffn.linalg.eigh(a + a.mT).eigenvalues,
             lambda a: np.linalg.eigh(a + np.swapaxes(a, -1, -2))[0]),
    ],
    ops.Qr: [
        Case("Q-tall", [normal(4, 3)], lambda a: tinyffn.linalg.qr(a).Q,
             lambda a: np.linalg.qr(a)[0]),
        Case("R-wide", [normal(3, 5)], lambda a: tinyffn.linalg.qr(a).R,
             lambda a: np.linalg.qr(a)[1]),
        Case("complete-batched", [normal(2, 3, 3)],
             lambda a: (lambda Q, R: Q @ R + Q)(*tinyffn.linalg.qr(a, mode="complete")),
             lambda a: a + np.linalg.qr(a, mode="complete")[0]),
    ],
    # cholesky.py: symmetric positive-definite inputs built from a tensor (the gradient is
    # symmetric, given to both triangles, as Eigvalsh's), and well-conditioned triangles
    ops.Cholesky: [
        Case("lower", [normal(3, 3)],
             lambda a: tinyffn.linalg.cholesky(a @ a.mT + 3 * tinyffn.eye(3, dtype=a.dtype, device=a.device)),
             lambda a: np.linalg.cholesky(a @ a.T + 3 * np.eye(3))),
        Case("batched-upper", [normal(2, 3, 3)],
             lambda a: tinyffn.linalg.cholesky(a @ a.mT + 3 * tinyffn.eye(3, dtype=a.dtype, device=a.device), upper=True),
             lambda a: np.swapaxes(np.linalg.cholesky(a @ np.swapaxes(a, -1, -2) + 3 * np.eye(3)), -1, -2)),
    ],
    ops.SolveTriangular: [
        Case("lower", [normal(3, 3) + 3 * np.eye(3), normal(3, 2)],
             lambda a, b: tinyffn.linalg.solve_triangular(a, b, upper=False),
             lambda a, b: np.linalg.solve(np.tril(a), b)),
        Case("upper-unit-broadcast", [normal(2, 3, 3), normal(3, 2)],
             lambda a, b: tinyffn.linalg.solve_triangular(a, b, upper=True, unitriangular=True),
             lambda a, b: np.linalg.solve(np.triu(a, 1) + np.eye(3), b)),
        Case("right", [normal(3, 3) + 3 * np.eye(3), normal(2, 3)],
             lambda a, b: tinyffn.linalg.solve_triangular(a, b, upper=True, left=False),
             lambda a, b: b @ np.linalg.inv(np.triu(a))),
    ],
    ops.MatrixExp: [    # the exponential series summed to 30 terms (norms below 2: exact)
        Case("square", [normal(3, 3) * 0.5], lambda a: tinyffn.linalg.matrix_exp(a),
             lambda a: _exp_series(a)),
        Case("batched", [normal(2, 4, 4) * 0.3], lambda a: a.matrix_exp(),
             lambda a: _exp_series(a)),
    ],
    ops.Pinv: [         # NumPy's pinv; full rank, so no singular value near the cutoff
        Case("tall", [normal(4, 3)], lambda a: tinyffn.linalg.pinv(a), np.linalg.pinv),
        Case("wide-batched", [normal(2, 3, 5)], lambda a: tinyffn.linalg.pinv(a),
             np.linalg.pinv),
    ],
}


def _exp_series(a):
    """Σ_{k<30} a^k / k!, the definition, for small a."""
    term, total = np.broadcast_to(np.eye(a.shape[-1]), a.shape), 0
    for k in range(30):
        total = total + term
        term = term @ a / (k + 1)
    return total


ALL_CASES = [pytest.param(op, case, id=f"{op.op_name()}-{case.label}")
             for op, cases in CASES.items() for case in cases]


def test_every_primitive_has_cases():
    missing = [op.__name__ for op in ops.PRIMITIVES if op not in CASES]
    assert not missing, f"primitives without test cases: {missing}"


def test_every_function_in_ops_is_registered():
    defined = {obj for module in (ops.elementwise, ops.division, ops.reduce, ops.linalg, ops.shape,
                                   ops.decompositions, ops.logs_and_angles, ops.activations,
                                   ops.cholesky, ops.special_functions, ops.windows,
                                   ops.bessel)
               for _, obj in inspect.getmembers(module, inspect.isclass)
               # an op has a forward of its own; a base class (division.py's _Division) not
               if issubclass(obj, tinyffn.Function) and obj is not tinyffn.Function
               and "forward" in vars(obj)}
    unregistered = sorted(f.__name__ for f in defined - set(ops.PRIMITIVES))
    assert not unregistered, f"Function subclasses missing from ops.PRIMITIVES: {unregistered}"


def _tensors(case, device, dtype="float64"):
    grad_inputs = case.grad_inputs
    out = []
    for i, a in enumerate(case.inputs):
        if a.dtype.kind == "f":
            wants = grad_inputs is None or i in grad_inputs
            out.append(tinyffn.tensor(a, dtype=dtype, device=device, requires_grad=wants))
        else:
            out.append(tinyffn.tensor(a, device=device))
    return out


@pytest.mark.parametrize("op, case", ALL_CASES)
def test_forward_matches_numpy(op, case, device):
    y = case.fn(*_tensors(case, device))
    expected = case.ref(*case.inputs)
    assert y.shape == np.shape(expected)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-12, atol=1e-12)


def test_index_arrays_follow_numpy_on_numpy_backends():
    """x[i] with an index array and implicit trailing axes: NumPy and CuPy allow it (the
    array API standard does not, so the strict backend asks for x[i, j] form)."""
    x = tinyffn.randn(4, 2, requires_grad=True)
    i = np.array([1, 1, 3])
    y = x[tinyffn.tensor(i)]
    np.testing.assert_array_equal(y.numpy(), x.numpy()[i])
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 0], [2, 2], [0, 0], [1, 1]])


@pytest.mark.parametrize("op, case", ALL_CASES)
def test_backward_matches_finite_differences(op, case, device):
    inputs = _tensors(case, device)
    y = case.fn(*inputs)
    assert y.grad_fn is not None and op.op_name() in _ops_in_graph(y), \
        f"the case does not exercise {op.__name__}"
    assert tinyffn.gradcheck(case.fn, inputs, **(case.tolerance or {}))


@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("op, case", ALL_CASES)
def test_float_dtype_is_kept(op, case, dtype):
    """float32 in, float32 out and float32 gradients (float16 likewise): no float64 creeps in."""
    if op is ops.Cast:
        pytest.skip("cast changes the dtype by design")
    inputs = _tensors(case, "cpu", dtype=dtype)
    if dtype == "float16" and op.__module__ in (ops.decompositions.__name__, ops.cholesky.__name__):
        with pytest.raises(TypeError, match="float32 or float64"):     # as PyTorch's CPU
            case.fn(*inputs)
        return
    y = case.fn(*inputs)
    assert y.dtype == np.dtype(dtype)
    if y.requires_grad:
        y.sum().backward()
        for t in inputs:
            if t.requires_grad:
                assert t.grad.dtype == np.dtype(dtype)


def _ops_in_graph(y):
    from tinyffn.autograd import Context, topological_order
    return {v.name for v in topological_order(y) if isinstance(v, Context)}


# ------------------------------------------------------------------ regressions, one per bug
@pytest.mark.parametrize("dtype, lowest", [("float32", -80.0), ("float64", -700.0)])
def test_sigmoid_keeps_relative_precision_for_negative_x(dtype, lowest, device):
    """sigmoid(x) ~ exp(x) for x << 0: the tanh form 0.5 (1 + tanh(x/2)) cancelled to 0
    below x = -17 in float32 (-37 in float64). Checked to a few ulp against SciPy's expit,
    on inputs that stay above the dtype's smallest normal number."""
    values = np.linspace(lowest, 30.0, 401).astype(dtype)
    y = tinyffn.tensor(values, device=device).sigmoid().numpy()
    expected = special.expit(values.astype(np.float64))
    np.testing.assert_allclose(y, expected, rtol=4 * np.finfo(dtype).eps, atol=0)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_log_sigmoid_of_large_negative_x_matches_torch(dtype, device):
    torch = pytest.importorskip("torch")
    values = np.array([-50.0, -20.0, -5.0, 0.0, 5.0])
    x = tinyffn.tensor(values, dtype=dtype, device=device, requires_grad=True)
    y = x.sigmoid().log()
    y.sum().backward()
    xt = torch.tensor(values, dtype=getattr(torch, dtype), requires_grad=True)
    yt = xt.sigmoid().log()
    yt.sum().backward()
    rtol = 4 * np.finfo(dtype).eps
    np.testing.assert_allclose(y.numpy(), yt.detach().numpy(), rtol=rtol)
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=rtol)


def test_pow_zero_has_zero_gradient_at_zero(device):
    """d/dx x**0 = 0 everywhere, as in PyTorch; 0 * x**-1 made it NaN at x = 0."""
    x = tinyffn.tensor([0.0, -2.0, 3.0], dtype="float64", device=device, requires_grad=True)
    (x ** 0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, 0.0])


def test_pow_zero_passes_back_zero_whatever_gradient_arrives():
    """x ** 0 is constant, so PyTorch returns zeros without reading gy; gy * 0 would turn a
    NaN or inf arriving from above into NaN."""
    torch = pytest.importorskip("torch")
    values, gy = [0.0, 1.0, -2.0], np.array([np.nan, np.inf, 2.0])
    x = tinyffn.tensor(values, dtype="float64", requires_grad=True)
    (x ** 0).backward(tinyffn.tensor(gy, dtype="float64"))
    xt = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    (xt ** 0).backward(torch.tensor(gy))
    np.testing.assert_array_equal(x.grad.numpy(), xt.grad.numpy())
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, 0.0])


@pytest.mark.filterwarnings("ignore::RuntimeWarning")     # sqrt(-1), 1 / 0: expected
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rsqrt_is_nan_at_minus_inf_and_minus_inf_at_minus_zero(dtype, device):
    """x ** -0.5 was IEEE's pow, which gives 0 at -inf and +inf at -0.0; torch.rsqrt (and
    torch's x ** -0.5) give 1 / sqrt(x): nan and -inf. So sqrt's gradient, 0.5 x ** -0.5,
    was 0 at -inf, where PyTorch's is nan."""
    values = [-math.inf, -0.0, 0.0, 4.0, math.inf, -1.0]
    expected = [math.nan, -math.inf, math.inf, 0.5, 0.0, math.nan]   # PyTorch 2.13
    np.testing.assert_array_equal(1 / np.sqrt(np.array(values)), expected)   # NumPy's
    x = tinyffn.tensor(values, dtype=dtype, device=device, requires_grad=True)
    for y in (x.rsqrt(), x ** -0.5, tinyffn.rsqrt(x)):
        np.testing.assert_array_equal(y.numpy(), np.array(expected, dtype=dtype))
    x.sqrt().backward(tinyffn.ones(6, dtype=dtype, device=device))
    np.testing.assert_array_equal(x.grad.numpy()[[0, 1, 3, 4]], [math.nan, -math.inf, 0.25, 0.0])


@pytest.mark.filterwarnings("ignore::RuntimeWarning")     # 1 / 0 at x = 0
def test_float16_rsqrt_is_rounded_once():
    """x ** -0.5 of a float16 x is 1/sqrt(x) rounded once to float16, as torch.rsqrt
    computes it (in float32): 1 / x.sqrt() in float16 rounds twice and was 1 ulp off for
    8394 of the 31743 positive finite float16 numbers. Reference: float64, rounded."""
    h = np.arange(0, 0x7C00, dtype=np.uint16).view(np.float16)   # 0 and every positive finite
    expected = (1 / np.sqrt(h.astype(np.float64))).astype(np.float16)
    x = tinyffn.tensor(h)
    for y in (x ** -0.5, x.rsqrt()):
        assert y.dtype == np.float16
        np.testing.assert_array_equal(y.numpy(), expected)


def test_integer_tensor_to_a_negative_power_is_refused_on_every_backend(device):
    """NumPy and PyTorch refuse it; CuPy's integer power answers 0 (2 ** -1 == 0). A bool
    tensor counts in int64 (bool ** 2), so it is refused too, as by PyTorch, also empty
    (NumPy's own message came through, and an empty one gave an empty answer)."""
    x = tinyffn.tensor([2, 3], device=device)
    with pytest.raises(ValueError, match=r"pow: an integer or bool tensor to a negative "
                                         r"integer power \(-1\) .*\(x \*\* -1\.0"):
        x ** -1
    for b in ([True, False], np.zeros(0, dtype=bool)):
        with pytest.raises(ValueError, match=r"pow: an integer or bool tensor .* \(-2\)"):
            tinyffn.tensor(b, device=device) ** -2
    np.testing.assert_allclose((x ** -1.0).numpy(), [0.5, 1 / 3], rtol=1e-6)
    np.testing.assert_array_equal((x ** 2).numpy(), [4, 9])
    ones = x ** 0                               # not negative: allowed, int64 ones as in PyTorch
    assert dtype_name(ones.dtype) == "int64"
    np.testing.assert_array_equal(ones.numpy(), [1, 1])


def test_max_over_a_nonempty_axis_of_an_empty_tensor(device):
    """Like torch.amax: reducing the size-3 axis of a (0, 3) tensor gives shape (0,)."""
    x = tinyffn.zeros(0, 3, device=device, requires_grad=True)
    y = x.amax(axis=1)
    assert y.shape == (0,)
    assert x.amax(axis=1, keepdims=True).shape == (0, 1)
    y.sum().backward()
    assert x.grad.shape == (0, 3)


@pytest.mark.parametrize("axis", [None, 0, (0, 1)])
def test_max_refuses_an_empty_reduction(axis):
    with pytest.raises(ValueError, match=r"max: .*shape \(0, 3\)"):
        tinyffn.zeros(0, 3).amax(axis=axis)


def test_relu_passes_the_gradient_at_nan_as_torch():
    """PyTorch's relu backward zeroes gy only where x <= 0, so a NaN input gets gy (and the
    NaN is not hidden); at x = 0 exactly the gradient stays 0."""
    torch = pytest.importorskip("torch")
    values = np.array([np.nan, 1.5, -1.0, 0.0, -0.0])
    gy = np.array([2.0, 3.0, 4.0, 5.0, 6.0])
    x = tinyffn.tensor(values, dtype="float64", requires_grad=True)
    x.relu().backward(tinyffn.tensor(gy, dtype="float64"))
    xt = torch.tensor(values, requires_grad=True)
    torch.relu(xt).backward(torch.tensor(gy))
    np.testing.assert_array_equal(x.grad.numpy(), xt.grad.numpy())
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 3.0, 0.0, 0.0, 0.0])


def test_reshape_error_names_the_op_and_shapes(device):
    x = tinyffn.randn(2, 3, device=device)
    with pytest.raises(ValueError, match=r"reshape: cannot reshape a tensor of shape \(2, 3\) "
                                         r"\(6 elements\) into shape \(4, 4\)") as info:
        x.reshape(4, 4)
    assert info.value.__cause__ is not None


def test_getitem_out_of_range_names_the_op_and_shape(device):
    x = tinyffn.randn(2, 3, device=device)
    with pytest.raises(IndexError, match=r"getitem: .*tensor of shape \(2, 3\)") as info:
        x[5]
    assert info.value.__cause__ is not None
    # too many indices: the array past the last axis is not checked against axis 0 of x
    with pytest.raises(IndexError, match=r"getitem: .* \(2, 3\) with \[0, 1, 2, <index array"):
        x[0, 1, 2, [5]]
    with pytest.raises(IndexError, match=r"\(2, 3\) with \[0, 7\]: "):    # the key as written
        x[0, 7]


def test_an_index_array_out_of_range_raises_on_every_backend(device):
    """CuPy wraps an out-of-range index array around (row 5 of 3 would be row 2) where
    NumPy raises; tinyffn checks it itself, so every backend raises the same error."""
    x = tinyffn.randn(3, device=device, requires_grad=True)
    for key, bad in (([5], 5), ([0, -4], -4)):
        with pytest.raises(IndexError, match=f"getitem: index {bad} is out of range for axis 0 "
                                             r"of size 3 in a tensor of shape \(3,\)"):
            x[key]
    if device != "strict":                  # (the standard has one index array per axis)
        m = tinyffn.randn(3, 4, device=device)
        with pytest.raises(IndexError, match="index 4 is out of range for axis 1 of size 4"):
            m[[0, 1], [1, 4]]
    assert x[[2, -3]].shape == (2,)         # in range, both signs


@pytest.mark.parametrize("shape", [(4,), (2, 3)])
def test_an_empty_list_is_an_empty_integer_index(shape, device):
    """x[[]] selects nothing along axis 0, as in NumPy and PyTorch: shape (0, ...). (The
    strict backend takes an index array only with one index per axis: 1-D there.)"""
    if device == "strict" and len(shape) > 1:
        pytest.skip("the array API standard has no x[i] for an index array i and 2-D x")
    x = tinyffn.randn(*shape, device=device, requires_grad=True)
    y = x[[]]
    assert y.shape == (0,) + shape[1:]
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros(shape))


def test_a_bool_mask_selects_where_it_holds_as_in_pytorch(device):
    """torch 2.13, x = [[1, -2, 3], [-4, 5, -6]] (float64): x[x > 0] = [1, 3, 5]; the
    gradient of (x[x > 0] * [1, 2, 3]).sum() is [[1, 0, 2], [0, 3, 0]]; x[[False, True]]
    (a list of bools is a mask too) = [[-4, 5, -6]]; x[tensor(True)] has shape (1, 2, 3)."""
    data = np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]])
    x = tinyffn.tensor(data, device=device, requires_grad=True)
    y = x[x > 0]
    assert y.tolist() == [1.0, 3.0, 5.0] and y.grad_fn.name == "getitem"
    (y * tinyffn.tensor([1.0, 2.0, 3.0], dtype="float64", device=device)).sum().backward()
    assert x.grad.tolist() == [[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]]
    assert x[x > 9].shape == (0,)
    assert tinyffn.gradcheck(lambda x: x[x.detach() < 0] ** 2, [x])
    mask = tinyffn.tensor([True, False, True], device=device)
    with pytest.raises(IndexError, match=r"getitem: a bool mask of shape \(3,\) must have "
                                         r"the shape \(2,\) of the axes it indexes, from "
                                         r"axis 0 of a tensor of shape \(2, 3\)"):
        x[mask]         # its indices, 0 and 2, would fit: without the check, row 2 of 2 rows
    if device != "strict":          # (the standard has index arrays with integers only)
        assert x[[False, True]].tolist() == [[-4.0, 5.0, -6.0]]
        assert x[tinyffn.tensor(True, device=device)].shape == (1, 2, 3)
        np.testing.assert_array_equal(x[:, mask].numpy(), data[:, [True, False, True]])
        np.testing.assert_array_equal(x[..., mask].numpy(), data[..., [True, False, True]])
        with pytest.raises(IndexError, match=r"mask of shape \(2,\) must have the shape "
                                             r"\(3,\) of the axes it indexes, from axis 1"):
            x[:, mask[:2]]


def test_a_bool_mask_matches_pytorch_on_random_data():
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(0).standard_normal((3, 4, 5))
    keys = [lambda t: t > 0,                                    # every axis
            lambda t: t[:, :, 0] > 0,                           # the first two
            lambda t: (slice(None), t[0, :, 0] > 0),            # axis 1
            lambda t: (Ellipsis, t[0, 0] > 0)]                  # the last
    for key in keys:
        t, x = torch.tensor(data, requires_grad=True), tinyffn.tensor(data, requires_grad=True)
        y, z = t[key(t)], x[key(x)]
        np.testing.assert_array_equal(z.numpy(), y.detach().numpy())
        cotangent = np.random.default_rng(1).standard_normal(tuple(y.shape))
        y.backward(torch.tensor(cotangent))
        z.backward(tinyffn.tensor(cotangent))
        np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())


@pytest.mark.parametrize("op", [ops.Add, ops.Sub, ops.Mul, ops.Div, ops.Maximum])
def test_binary_backward_skips_an_unneeded_gradient(op):
    """Each binary op computes only the gradients ``needs_input_grad`` asks for."""
    from types import SimpleNamespace
    x, w, gy = positive(3, 4), positive(3, 4), normal(3, 4)
    for needs in [(False, True), (True, False)]:
        ctx = SimpleNamespace(xp=np, backend=tinyffn.backend.get_backend("cpu"),
                              needs_input_grad=needs, input_shapes=((3, 4), (3, 4)))
        ctx.save_for_backward = lambda *a, ctx=ctx: setattr(ctx, "saved_tensors", a)
        op.forward(ctx, x, w)
        grads = op.backward(ctx, gy)
        assert [g is not None for g in grads] == list(needs)


def test_true_and_none_in_an_index_add_an_axis_and_take_none(device):
    """x[True, [2]] is x[None, [2]] in NumPy; the bounds check once counted True as an axis."""
    if device == "strict":
        pytest.skip("the array API standard has no bool or None scalars in keys with arrays")
    x = tinyffn.tensor(np.arange(6.0).reshape(3, 2), device=device)
    np.testing.assert_array_equal(x[True, [2]].numpy(), np.arange(6.0).reshape(3, 2)[True, [2]])
    with pytest.raises(IndexError, match="index 3 is out of range for axis 0 of size 3"):
        x[None, [3]]


def test_index_bounds_after_an_ellipsis_count_only_real_axes(device):
    """In x[..., None, i] the ... stands for the axes that i leaves: None takes no axis of x,
    so i indexes axis 1 of a (3, 4) x. Counting None as an axis checked i against axis 0."""
    if device == "strict":
        pytest.skip("the array API standard has no None in keys with index arrays")
    data = np.arange(12.0).reshape(3, 4)
    x = tinyffn.tensor(data, device=device)
    np.testing.assert_array_equal(x[..., None, [3, 0]].numpy(), data[..., None, [3, 0]])
    with pytest.raises(IndexError, match="index 4 is out of range for axis 1 of size 4"):
        x[..., None, [4]]
    x = tinyffn.tensor(np.arange(24.0).reshape(2, 3, 4), device=device)
    with pytest.raises(IndexError, match="index 4 is out of range for axis 2 of size 4"):
        x[:, ..., [4]]                  # the ... stands for axis 1 alone


def test_an_index_numpy_and_pytorch_lay_out_differently_is_refused():
    """x[0, :, i]: NumPy's result is PyTorch's transposed (same shape when the sizes match)."""
    data = np.arange(24.0).reshape(2, 3, 4)
    x = tinyffn.tensor(data)
    # the last two: a ... standing for no axes keeps the array and the integer (or the two
    # arrays) apart in NumPy only: x[:, [1, 0], ..., 0] is [[4, 16], [0, 12]] in NumPy and
    # its transpose in PyTorch (four parts: past the exhaustive test below)
    for key in [(0, slice(None), [1, 2, 0]), (0, None, [1, 2]),
                (slice(None), [1, 0], Ellipsis, 0), (slice(None), [1, 0], Ellipsis, [0, 1])]:
        with pytest.raises(IndexError, match="NumPy and PyTorch order the axes .* two steps"):
            x[key]
    # The two agree where the integers and arrays sit together, or the axes go first anyway
    # (PyTorch's results, written out: the integers applied first).
    np.testing.assert_array_equal(x[0][:, [1, 2, 0]].numpy(), data[0][:, [1, 2, 0]])
    np.testing.assert_array_equal(x[[0, 1], :, 0].numpy(), data[:, :, 0][[0, 1], :])
    np.testing.assert_array_equal(x[:, 0, [1, 2]].numpy(), data[:, 0, :][:, [1, 2]])
    np.testing.assert_array_equal(x[..., 0, [1]].numpy(), data[:, 0, :][:, [1]])


def test_max_and_maximum_split_the_gradient_at_ties_as_pytorch(device):
    """The op tests keep their points apart on purpose, so nothing checked the tie rule;
    these are PyTorch's gradients (torch.amax, torch.maximum), written out."""
    x = tinyffn.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]], device=device, requires_grad=True)
    x.amax(axis=1).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 0.5, 0.5], [0.5, 0.5, 0]])
    a = tinyffn.tensor([1.0, 2.0], device=device, requires_grad=True)
    b = tinyffn.tensor([1.0, 3.0], device=device, requires_grad=True)
    a.maximum(b).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [0.5, 0.0])
    np.testing.assert_array_equal(b.grad.numpy(), [0.5, 1.0])


BINARY_DERIVATIVES = {    # dy/dx and dy/dw, written out from each op's docstring
    "add": (lambda x, w: x + w, lambda x, w: (np.ones_like(x + w), np.ones_like(x + w))),
    "sub": (lambda x, w: x - w, lambda x, w: (np.ones_like(x - w), -np.ones_like(x - w))),
    "mul": (lambda x, w: x * w, lambda x, w: (w + 0 * x, x + 0 * w)),
    "div": (lambda x, w: x / w, lambda x, w: (1 / w + 0 * x, -x / w ** 2)),
    "maximum": (lambda x, w: x.maximum(w),
                lambda x, w: ((x > w) + 0.5 * (x == w), (w > x) + 0.5 * (x == w))),
}


@pytest.mark.parametrize("name", sorted(BINARY_DERIVATIVES))
def test_binary_ops_sum_the_gradient_back_to_each_broadcast_input(name, device):
    """x (2, 1) and w (3,) both stretched to (2, 3): the op cases stretch only w for div and
    maximum. Two ties (x == w) check maximum's half-and-half rule under broadcasting."""
    fn, derivatives = BINARY_DERIVATIVES[name]
    x, w = np.array([[0.5], [-1.0]]), np.array([0.5, 2.0, -1.0])
    gy = np.array([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]])
    dx, dw = derivatives(x, w)                                 # each (2, 3)
    tx, tw = (tinyffn.tensor(a, dtype="float64", device=device, requires_grad=True)
              for a in (x, w))
    fn(tx, tw).backward(tinyffn.tensor(gy, dtype="float64", device=device))
    np.testing.assert_allclose(tx.grad.numpy(), (gy * dx).sum(axis=1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(tw.grad.numpy(), (gy * dw).sum(axis=0), rtol=1e-12)


@pytest.mark.parametrize("name, call", [
    ("add", lambda x, w: x + w), ("sub", lambda x, w: x - w), ("mul", lambda x, w: x * w),
    ("div", lambda x, w: x / w), ("maximum", lambda x, w: x.maximum(w))])
def test_each_broadcasting_op_names_itself_and_both_shapes(name, call, device):
    x, w = tinyffn.randn(2, 3, device=device), tinyffn.randn(4, device=device)
    with pytest.raises(ValueError, match=rf"^{name}: shapes \(2, 3\) and \(4,\) cannot be "
                                         "broadcast together"):
        call(x, w)


def test_shape_errors_name_the_op_and_the_sizes_that_disagree():
    """Only the messages' opening words were checked; the numbers in them are the help."""
    with pytest.raises(ValueError, match=r"the last axis of the first \(3\) must equal the "
                                         r"second-to-last axis of the second \(4\)"):
        tinyffn.randn(2, 3) @ tinyffn.randn(4, 5)
    with pytest.raises(ValueError, match=r"the last axis of the first \(3\) must equal the "
                                         r"only axis of the second \(5\)"):
        tinyffn.randn(2, 3) @ tinyffn.randn(5)
    # the primitives check for themselves too (functional.linear and permute check first)
    with pytest.raises(ValueError, match=r"^linear: input of shape \(2, 3\) does not fit weight "
                                         r"of shape \(4, 5\); the last axis must be 5$"):
        ops.Linear.apply(tinyffn.randn(2, 3), tinyffn.randn(4, 5))
    with pytest.raises(ValueError, match=r"^transpose: axes \(0, 0\) are not a permutation of "
                                         r"the 2 axes of a tensor of shape \(2, 3\)"):
        ops.Transpose.apply(tinyffn.randn(2, 3), axes=(0, 0))
    with pytest.raises(ValueError, match=r"^cat: cannot join tensors of shapes \(2, 3\), "
                                         r"\(2, 4\) along axis 0"):
        tinyffn.cat([tinyffn.randn(2, 3), tinyffn.randn(2, 4)])


def test_broadcast_axes_are_the_added_and_stretched_ones_only():
    """An axis of length 1 that stays 1 is neither added nor stretched: the graph names
    the summed axes on the edge from these."""
    from tinyffn.ops.shape import broadcast_axes
    assert broadcast_axes((1, 3), (2, 1, 3)) == (0,)
    assert broadcast_axes((4, 1), (4, 1)) == ()
    assert broadcast_axes((3, 1), (2, 3, 5)) == (0, 2)
    assert broadcast_axes((1, 1), (1, 6)) == (1,)
    assert broadcast_axes((), (2, 3)) == (0, 1)
    assert broadcast_axes((1, 1, 1), (1, 5, 1)) == (1,)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sigmoid_and_fused_swish_do_not_overflow_far_out(dtype, device):
    """exp(-x) overflows for x < -88 in float32: the naive 1 / (1 + exp(-x)) warns there
    (its value still rounds right), the stable split never computes it."""
    x = tinyffn.tensor([-1000.0, 0.0, 1000.0], dtype=dtype, device=device)
    with np.errstate(over="raise", invalid="raise", divide="raise"):   # underflow to 0 is fine
        np.testing.assert_array_equal(x.sigmoid().numpy(), [0.0, 0.5, 1.0])
        np.testing.assert_array_equal(tinyffn.functional.swish(x, fused=True).numpy(),
                                      [-0.0, 0.0, 1000.0])


def test_getitem_refuses_exactly_the_keys_numpy_and_pytorch_answer_differently():
    """Every key of up to three parts (ints, slices, None, ..., True/False, 0-, 1- and 2-d
    index arrays) on a shape whose axes all differ: refused where NumPy's result is not
    torch's, answered (as NumPy, hence as torch) everywhere else."""
    torch = pytest.importorskip("torch")
    parts = [0, -1, slice(None), slice(1, None), None, Ellipsis, True, False,
             np.array(1), np.array([1, 0]), np.array([[1], [0]])]
    data = np.arange(60.0).reshape(3, 4, 5)
    x, t = tinyffn.tensor(data), torch.tensor(data)
    checked = 0
    for n in (1, 2, 3):
        for key in itertools.product(parts, repeat=n):
            try:
                want = data[key]
                theirs = t[tuple(torch.tensor(k) if isinstance(k, np.ndarray) else k
                                 for k in key)].numpy()
            except (IndexError, TypeError, ValueError):
                continue                          # refused by NumPy or torch themselves
            agree = want.shape == theirs.shape and np.array_equal(want, theirs)
            try:
                got = x[key].numpy()
            except IndexError as e:
                assert "order the axes" in str(e) and not agree, (key, str(e))
            else:
                assert agree, key
                np.testing.assert_array_equal(got, want)
            checked += 1
    assert checked > 1000


def test_numpy_integers_and_0d_index_arrays_index_as_integers(device):
    """np.int64 from argmax or np.arange loops once crashed the layout check."""
    data = np.arange(24.0).reshape(2, 3, 4)
    x = tinyffn.tensor(data, device=device)
    for key in [(np.int64(0), slice(None), np.int64(1)), (0, slice(None), np.array(1)),
                (0, slice(None), tinyffn.tensor(1, device=device))]:
        np.testing.assert_array_equal(x[key].numpy(), data[0, :, 1])
    np.testing.assert_array_equal(x[np.int64(1), 0:2].numpy(), data[1, 0:2])


def test_an_index_array_or_operand_changed_after_the_forward_does_not_move_gradients():
    """The graph keeps what the forward used, not the caller's array (a copy is taken)."""
    x = tinyffn.tensor(np.ones(3), requires_grad=True)
    c = np.ones(3)
    y = x * c
    c[:] = 5
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1, 1, 1])
    x = tinyffn.tensor(np.ones(3), requires_grad=True)
    idx = np.array([0, 0, 1])
    y = x[idx]
    idx[:] = 2
    y.backward(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(x.grad.numpy(), [3, 3, 0])


def test_constants_never_share_the_callers_memory(device):
    """A torch tensor or a memoryview converts without a copy; the strict backend wraps a
    NumPy array without one: each would let a later write move the gradient."""
    sources = [np.ones(2), memoryview(np.ones(2))]
    try:
        import torch
        sources.append(torch.ones(2, dtype=torch.float64))
    except ImportError:
        pass
    for source in sources:
        w = tinyffn.tensor([1.0, 2.0], dtype="float64", device=device, requires_grad=True)
        y = (w * source).sum()
        np.asarray(source)[:] = 100
        y.backward()
        np.testing.assert_array_equal(w.grad.numpy(), [1, 1])


def test_np_asarray_of_a_tensor_is_read_only():
    x = tinyffn.tensor(np.array([1.0, 2.0, 3.0]), requires_grad=True)
    y = x * x                                     # saved x for backward
    with pytest.raises(ValueError, match="read-only"):
        np.asarray(x)[:] = 10
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2, 4, 6])
    np.asarray(x, copy=True)[:] = 10              # a copy may be written


def test_a_gradient_of_many_axes_scatters_without_add_at():
    """NumPy 2.4's add.at crashed the interpreter beyond 32 axes; basic keys avoid it."""
    x = tinyffn.tensor(np.zeros(2), requires_grad=True)
    x[(None,) * 32].sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1, 1])
    y = x[(None,) * 31 + (np.array([0, 0, 1]),)]          # an index array: add.at, 32 axes
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3, 2])   # 1 + 2 repeats of 0, 1 + 1
    y = x[(None,) * 32 + (np.array([0, 0, 1]),)]          # 33 axes: refused
    with pytest.raises(ValueError, match="getitem: the gradient has 33 axes, and NumPy's add.at"):
        y.sum().backward()


def test_getitem_reshape_and_permute_errors_name_the_op():
    x = tinyffn.randn(2, 3, 4)
    with pytest.raises(IndexError, match=r"getitem: cannot index .* \[::0\]: slice step cannot"):
        x[::0]
    with pytest.raises(IndexError, match=r"with \[\.\.\., \.\.\.\]"):
        x[..., ...]
    with pytest.raises(TypeError, match="index arrays must be integers or a bool mask, got float64"):
        x[[0.5]]
    assert x[tinyffn.tensor([[]], dtype="int64")].shape == (1, 0, 3, 4)   # as in NumPy
    # torch 2.13 reads a list of lists or tensors as a tuple (x[[[0, 1], [1, 2]]] is
    # x[[0, 1], [1, 2]]: [1, 5] here), NumPy as one index array: refused, found by review
    for key in ([[]], [[0, 1], [1, 2]], [tinyffn.tensor(0), tinyffn.tensor(1)], [0, slice(1)]):
        with pytest.raises(IndexError, match=r"getitem: PyTorch reads a list holding lists, "
                                             r"tensors, slices or None as the tuple"):
            x[key]
    with pytest.raises(ValueError, match=r"reshape: invalid shape \(-2, 12\)"):
        x.reshape(-2, 12)                         # NumPy would read -2 as -1
    with pytest.raises(ValueError, match=r"permute: a tensor of shape \(2, 3, 4\) needs all 3"):
        x.permute(0, 1)


def test_stack_and_cat_as_pytorch_and_their_errors():
    data = [np.random.default_rng(i).standard_normal((2, 3)) for i in range(3)]
    xs = [tinyffn.tensor(a, requires_grad=True) for a in data]
    for axis in (0, 1, 2, -1, -3):
        np.testing.assert_array_equal(tinyffn.stack(xs, dim=axis).numpy(),
                                      np.stack(data, axis=axis))
    for axis in (0, 1, -1):                             # dim= as in PyTorch; one tensor alone
        np.testing.assert_array_equal(tinyffn.cat(xs, dim=axis).numpy(),
                                      np.concatenate(data, axis=axis))
        np.testing.assert_array_equal(tinyffn.cat(xs[:1], axis).numpy(), data[0])
        np.testing.assert_array_equal(tinyffn.stack(xs[:1], axis).numpy(),
                                      np.stack(data[:1], axis=axis))
    y = tinyffn.stack(xs, axis=1)                       # (2, 3, 3): xs[i] at y[:, i, :]
    y.backward(np.arange(18.0).reshape(2, 3, 3))
    np.testing.assert_array_equal(xs[1].grad.numpy(), np.arange(18.0).reshape(2, 3, 3)[:, 1, :])
    mixed = tinyffn.cat([tinyffn.zeros(1, dtype="float64"), tinyffn.ones(2)])
    assert dtype_name(mixed.dtype) == "float64"         # promoted, as torch.cat does
    with pytest.raises(ValueError, match=r"cat: cannot join tensors of shapes \(2, 3\), \(2, 4\)"):
        tinyffn.cat([xs[0], tinyffn.randn(2, 4)])
    with pytest.raises(ValueError, match="cat: the tensors must have the same number of axes"):
        tinyffn.cat([tinyffn.tensor(1.0), tinyffn.tensor(2.0)])
    with pytest.raises(ValueError, match=r"cat: the tensors must have the same number of axes, "
                                         r"at least one, got shapes \(2, 3\), \(3,\)"):
        tinyffn.cat([xs[0], tinyffn.zeros(3)])          # torch refuses it too
    with pytest.raises(ValueError, match=r"stack: the tensors must all have one shape"):
        tinyffn.stack([xs[0], tinyffn.randn(3, 2)])
    for axis in (3, -4):
        with pytest.raises(ValueError, match=r"stack: axis must be an integer in \[-3, 2\]"):
            tinyffn.stack(xs, axis=axis)
    with pytest.raises(TypeError, match="cat: pass a list or tuple of tensors, got Tensor"):
        tinyffn.cat(xs[0])
    with pytest.raises(TypeError, match=r"cat: item 1 is not a Tensor \(got ndarray\)"):
        tinyffn.cat([xs[0], data[1]])
    with pytest.raises(ValueError, match="stack: got no tensors"):
        tinyffn.stack([])


FLOAT16_SUMS = [          # (name, f): 4096 entries of 0.01 along axis 0, each a float16 sum
    ("sum(0)", lambda x: x.sum(0)),
    ("T.sum(1)", lambda x: x.T.sum(1)),
    ("mean(0) * 4096", lambda x: x.mean(0) * 4096),
    ("cumsum(0)[-1]", lambda x: x.cumsum(0)[-1]),
    ("logsumexp(0)", lambda x: (x * 0).logsumexp(0)),
]


@pytest.mark.parametrize("name, f", FLOAT16_SUMS, ids=[c[0] for c in FLOAT16_SUMS])
def test_float16_adds_up_in_float32_as_pytorch_does(device, name, f):
    """NumPy adds float16 one by one along a strided axis, where 32 + 0.01 rounds to 32:
    the sum of 4096 entries of 0.01 over axis 0 was 32.0 (and log 4096 came out log 2048),
    where PyTorch, accumulating in float32, gives 40.97. Reference: float64, rounded once."""
    if device == "strict":
        pytest.skip("the array API standard has no float16")
    x = tinyffn.full((4096, 2), 0.01, dtype="float16", device=device)
    exact = {"logsumexp(0)": np.log(4096.0)}.get(name, 4096 * float(np.float16(0.01)))
    y = f(x).numpy()
    assert y.dtype == np.float16
    np.testing.assert_allclose(y.astype(np.float64), exact, rtol=2e-3)   # float16's 1/2 ulp
    torch = pytest.importorskip("torch")
    t = f(torch.full((4096, 2), 0.01, dtype=torch.float16)).numpy()
    np.testing.assert_allclose(y.astype(np.float64), t.astype(np.float64), rtol=2e-3)


def test_float16_cumsum_passes_back_float32_running_sums(device):
    """cumsum's backward is a running sum of gy from the end: in float16 it stalled too."""
    if device == "strict":
        pytest.skip("the array API standard has no float16")
    x = tinyffn.zeros(4096, dtype="float16", device=device, requires_grad=True)
    (x.cumsum(0) * 0.01).sum().backward()
    expected = (np.arange(4096, 0, -1) * float(np.float16(0.01))).astype(np.float16)
    np.testing.assert_allclose(x.grad.numpy().astype(np.float64), expected, rtol=2e-3)


@pytest.mark.parametrize("fused", [False, True])
def test_a_float16_bias_gradient_adds_up_in_float32(device, fused):
    """A bias broadcast over 4096 positions gets the sum of their gradients: summed in
    float16 it stalled at 32 (at 2048 for gradients of 1), half of what PyTorch gives.
    Through the broadcast's backward (sum_to_shape) and the fused Linear's alike."""
    if device == "strict":
        pytest.skip("the array API standard has no float16")
    lin = tinyffn.nn.Linear(2, 3, fused=fused).half().to(device)
    lin(tinyffn.full((4096, 2), 0.01, dtype="float16", device=device)).mul(0.01).sum().backward()
    exact = 4096 * float(np.float16(0.01))                      # 40.96..., 40.97 in float16
    np.testing.assert_allclose(lin.bias.grad.numpy().astype(np.float64), exact, rtol=2e-3)
    b = tinyffn.zeros(2, dtype="float16", device=device, requires_grad=True)
    (tinyffn.zeros(4096, 2, dtype="float16", device=device) + b).sum().backward()
    np.testing.assert_array_equal(b.grad.numpy(), [4096.0, 4096.0])
    torch = pytest.importorskip("torch")
    tb = torch.zeros(2, dtype=torch.float16, requires_grad=True)
    (torch.zeros(4096, 2, dtype=torch.float16) + tb).sum().backward()
    assert tb.grad.tolist() == b.grad.tolist()


def test_a_float16_mean_over_more_elements_than_float16_counts_has_a_gradient():
    """n = 70,000 is inf in float16, so gy / n gave a zero gradient: every float16 loss
    averaged over more than 65,504 elements trained on zeros. PyTorch: 1/70000 in float16."""
    x = tinyffn.ones(70_000, dtype="float16", requires_grad=True)
    x.mean().backward()
    assert dtype_name(x.grad.dtype) == "float16"
    np.testing.assert_array_equal(x.grad.numpy(), np.full(70_000, 1 / 70_000, np.float16))
    y = tinyffn.ones(2, 40_000, dtype="float16", requires_grad=True)
    y.mean(axis=1).sum().backward()                  # 40,000 per row: float16 holds it
    np.testing.assert_array_equal(y.grad.numpy(), np.full((2, 40_000), 1 / 40_000, np.float16))


def test_the_window_ops_refuse_windows_that_do_not_fit_by_name():
    """A kernel longer than the input has no window (it was an empty array at 6 taps of 5);
    col2im takes exactly im2col's shape (a (1, 3, 1) once broadcast over the 3 windows)."""
    for taps in (6, 7):
        with pytest.raises(ValueError, match=f"im2col: a kernel of size \\({taps},\\) .* "
                           "more than the \\(5,\\) there are"):
            ops.Im2Col.apply(tinyffn.randn(2, 5), kernel_size=(taps,), dilation=(1,), stride=(1,))
    for shape in [(1, 3, 1), (1, 2, 3), (3, 4)]:
        with pytest.raises(ValueError, match="col2im: input of shape .* must end in the kernel "
                           "\\(3,\\) and the \\(3,\\) windows"):
            ops.Col2Im.apply(tinyffn.randn(*shape), size=(5,), kernel_size=(3,), dilation=(1,),
                             stride=(1,))


def test_the_window_ops_count_one_addition_per_window_entry_in_col2im():
    """im2col copies (no FLOPs); col2im, forward or as im2col's backward, adds each of the
    2·3·3 window entries once, whatever the input's size (2·7)."""
    settings = dict(kernel_size=(3,), dilation=(2,), stride=(1,))
    x = tinyffn.randn(2, 7, requires_grad=True)
    with tinyffn.FlopCounter() as c:
        y = ops.Im2Col.apply(x, **settings)                         # (2, 3, 3)
    assert y.shape == (2, 3, 3) and c.forward.get("im2col", 0) == 0
    with tinyffn.FlopCounter() as c:
        y.sum().backward()
    assert c.backward["im2col"] == 2 * 3 * 3
    u = tinyffn.randn(2, 3, 3, requires_grad=True)
    with tinyffn.FlopCounter() as c:
        z = ops.Col2Im.apply(u, size=(7,), **settings)              # (2, 7)
        z.sum().backward()
    assert c.forward["col2im"] == 2 * 3 * 3 and c.backward.get("col2im", 0) == 0
