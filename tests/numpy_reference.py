"""Plain NumPy references, written out by hand from the formulas, that the tests compare
tinyffn against. Nothing here uses tinyffn; erf comes from Python's ``math`` module, not
from SciPy (which the engine uses), so the exact GELU is checked against a second source.
"""
import math

import numpy as np

_erf = np.vectorize(math.erf)


def erf(x):
    return _erf(x)


def relu(x):
    return np.where(x > 0, x, 0.0)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def gelu(x):
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def swish(x, beta=1.0):
    return x * sigmoid(beta * x)


ACTIVATIONS = {"relu": relu, "gelu": gelu, "gelu_tanh": gelu_tanh, "swish": swish}


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def log_softmax(x, axis=-1):
    z = x - x.max(axis=axis, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=axis, keepdims=True))


def cross_entropy_rows(logits, targets):
    """-log softmax(logits_n)[t_n] for each row n, one row at a time, as in a textbook."""
    losses = []
    for row, t in zip(logits, targets):
        m = max(row)
        log_sum_exp = m + math.log(sum(math.exp(v - m) for v in row))
        losses.append(log_sum_exp - row[t])
    return np.array(losses)


def linear(x, w, b=None):
    y = x @ w.T
    return y if b is None else y + b


def ffn(x, w1, b1, w2, b2, act):
    """W2 act(W1 x + b1) + b2 for every row of x (biases may be None)."""
    return linear(act(linear(x, w1, b1)), w2, b2)


def gated_ffn(x, w1, w2, w3, act):
    """W2 (act(W1 x) * W3 x) for every row of x (no biases)."""
    return linear(act(linear(x, w1)) * linear(x, w3), w2)
