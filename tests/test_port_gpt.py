"""A nanoGPT-style character GPT written once with PyTorch's names, run on torch and on
tinyffn: the port changes only which module is called ``torch``.

``gpt_class(torch)`` builds the model as a PyTorch user writes it: token and learned
position ``Embedding``s, pre-LayerNorm blocks whose attention is, one block each, a
hand-written causal attention (a ``tril`` mask kept by ``register_buffer``, filled with
``masked_fill``), ``F.scaled_dot_product_attention(is_causal=True)`` and
``nn.MultiheadAttention`` with a bool mask; the FFN ``Sequential(Linear, GELU, Linear,
Dropout)``; ``lm_head`` tied to the token embedding; ``model.apply(init)`` with
``normal_``/``zeros_``; ``cross_entropy`` on (B·T, V) logits; AdamW with nanoGPT's
weight-decay groups (2-D tensors decay, biases and norms do not), a warmup-then-cosine
``LambdaLR`` and ``clip_grad_norm_``; ``train()``/``eval()`` and ``no_grad``; ``generate``
with top-k and ``multinomial``; ``save``/``load`` of the state dict.

torch's initial weights are copied into tinyffn's model (``load_state_dict``), the same
batches feed both, and the loss, every gradient of the first step, the clipped norms, the
learning rates and every weight after three steps must agree to float32 tolerance. The
reference is torch itself, run next to tinyffn; the tests skip where it is not installed.
"""
import math

import numpy as np
import pytest

import tinyffn

V, BLOCK, D, HEADS, BATCH = 11, 8, 16, 2, 3
STEPS, WARMUP, LR, MIN_LR = 3, 2, 3e-3, 3e-4
STD = 0.2        # nanoGPT initialises with 0.02; larger here, so that GELU sees |x| ~ 1


def gpt_class(torch, dropout=0.0):
    """The model and its helpers, written against ``torch`` (PyTorch or tinyffn)."""
    nn, F = torch.nn, torch.nn.functional

    class CausalSelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = nn.Linear(D, 3 * D)
            self.c_proj = nn.Linear(D, D)
            self.attn_dropout = nn.Dropout(dropout)
            self.register_buffer("bias", torch.tril(torch.ones(BLOCK, BLOCK))
                                 .view(1, 1, BLOCK, BLOCK))

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(D, dim=2)
            q = q.view(B, T, HEADS, C // HEADS).transpose(1, 2)         # (B, nh, T, hs)
            k = k.view(B, T, HEADS, C // HEADS).transpose(1, 2)
            v = v.view(B, T, HEADS, C // HEADS).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))   # (B, nh, T, T)
            att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
            att = self.attn_dropout(F.softmax(att, dim=-1))
            y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)   # (B, T, C)
            return self.c_proj(y)

    class SDPAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = nn.Linear(D, 3 * D)
            self.c_proj = nn.Linear(D, D)

        def forward(self, x):
            B, T, C = x.shape
            q, k, v = (t.reshape(B, T, HEADS, C // HEADS).permute(0, 2, 1, 3)
                       for t in self.c_attn(x).chunk(3, dim=-1))        # (B, nh, T, hs)
            y = F.scaled_dot_product_attention(q, k, v, dropout_p=dropout if self.training
                                               else 0.0, is_causal=True)
            return self.c_proj(y.permute(0, 2, 1, 3).reshape(B, T, C))

    class MHAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.mha = nn.MultiheadAttention(D, HEADS, dropout=dropout, batch_first=True)
            mask = torch.triu(torch.ones(BLOCK, BLOCK, dtype=torch.bool), diagonal=1)
            self.register_buffer("mask", mask, persistent=False)

        def forward(self, x):
            T = x.shape[1]
            return self.mha(x, x, x, attn_mask=self.mask[:T, :T], need_weights=False)[0]

    class Block(nn.Module):
        def __init__(self, attention):
            super().__init__()
            self.ln_1, self.attn, self.ln_2 = nn.LayerNorm(D), attention(), nn.LayerNorm(D)
            self.mlp = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D),
                                     nn.Dropout(dropout))

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.transformer = nn.ModuleDict(dict(
                wte=nn.Embedding(V, D), wpe=nn.Embedding(BLOCK, D), drop=nn.Dropout(dropout),
                h=nn.ModuleList([Block(a) for a in (CausalSelfAttention, SDPAttention,
                                                    MHAttention)]),
                ln_f=nn.LayerNorm(D)))
            self.lm_head = nn.Linear(D, V, bias=False)
            self.transformer.wte.weight = self.lm_head.weight          # weight tying
            self.apply(self._init_weights)
            for name, p in self.named_parameters():
                if name.endswith("c_proj.weight"):
                    torch.nn.init.normal_(p, mean=0.0, std=STD / math.sqrt(6))

        def _init_weights(self, module):
            if isinstance(module, nn.Linear):
                torch.nn.init.normal_(module.weight, mean=0.0, std=STD)
                if module.bias is not None:
                    torch.nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Embedding):
                torch.nn.init.normal_(module.weight, mean=0.0, std=STD)

        def forward(self, idx, targets=None):
            b, t = idx.size()
            pos = torch.arange(0, t, dtype=torch.long, device=idx.device)     # (t,)
            x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
            for block in self.transformer.h:
                x = block(x)
            x = self.transformer.ln_f(x)                                       # (b, t, D)
            if targets is None:
                return self.lm_head(x[:, [-1], :]), None                      # (b, 1, V)
            logits = self.lm_head(x)                                           # (b, t, V)
            return logits, F.cross_entropy(logits.view(-1, logits.size(-1)),
                                           targets.view(-1), ignore_index=-1)

        def configure_optimizers(self, weight_decay, learning_rate, betas):
            params = {n: p for n, p in self.named_parameters() if p.requires_grad}
            groups = [{"params": [p for p in params.values() if p.dim() >= 2],
                       "weight_decay": weight_decay},
                      {"params": [p for p in params.values() if p.dim() < 2],
                       "weight_decay": 0.0}]
            return torch.optim.AdamW(groups, lr=learning_rate, betas=betas)

        @torch.no_grad()
        def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):
            for _ in range(max_new_tokens):
                logits, _ = self(idx[:, -BLOCK:])
                logits = logits[:, -1, :] / temperature                        # (b, V)
                if top_k is not None:
                    v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                    logits[logits < v[:, [-1]]] = -float("Inf")
                probs = F.softmax(logits, dim=-1)
                idx = torch.cat((idx, torch.multinomial(probs, num_samples=1)), dim=1)
            return idx

    return GPT


def lr_lambda(it):
    """nanoGPT's schedule as a LambdaLR factor: linear warmup, then cosine to MIN_LR."""
    if it < WARMUP:
        return (it + 1) / (WARMUP + 1)
    ratio = min((it - WARMUP) / max(1, STEPS - WARMUP), 1.0)
    return (MIN_LR + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (LR - MIN_LR)) / LR


def _batches(n):
    """n (inputs, targets) pairs of shape (BATCH, BLOCK), windows of one token sequence
    (the last target of the first batch ignored, as a padded position: -1)."""
    rng = np.random.default_rng(0)
    data = rng.integers(0, V, size=200)
    out = []
    for _ in range(n):
        ix = rng.integers(0, len(data) - BLOCK - 1, size=BATCH)
        out.append((np.stack([data[i:i + BLOCK] for i in ix]),
                    np.stack([data[i + 1:i + BLOCK + 1] for i in ix])))
    out[0][1][0, -1] = -1
    return out


@pytest.fixture(autouse=True)
def _one_torch_thread():
    """torch's thread pool wakes on every op: slow on a busy 2-core machine, and the
    numbers are the same in one thread."""
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _numpy(t):
    return np.asarray(t.detach().numpy())


def _port_pair(torch, dropout=0.0):
    """torch's model and tinyffn's holding torch's initial weights."""
    torch.manual_seed(0)
    expected = gpt_class(torch, dropout)()
    actual = gpt_class(tinyffn, dropout)()
    actual.load_state_dict({k: tinyffn.tensor(_numpy(v)) for k, v in
                            expected.state_dict().items()})
    return expected, actual


def _assert_close(actual, expected, what, rtol=1e-4, atol=1e-6):
    np.testing.assert_allclose(_numpy(actual), _numpy(expected), rtol=rtol, atol=atol,
                               err_msg=what)


def test_three_training_steps_of_the_port_match_torch():
    torch = pytest.importorskip("torch")
    expected, actual = _port_pair(torch)
    names = [n for n, _ in expected.named_parameters()]
    assert [n for n, _ in actual.named_parameters()] == names          # the tied weight once
    assert sum(p.numel() for p in actual.parameters()) == \
        sum(p.numel() for p in expected.parameters())
    assert actual.lm_head.weight is actual.transformer.wte.weight      # still tied
    runs = []
    for lib, model in ((torch, expected), (tinyffn, actual)):
        opt = model.configure_optimizers(0.1, LR, (0.9, 0.95))
        sched = lib.optim.lr_scheduler.LambdaLR(opt, lr_lambda)
        model.train()
        run = dict(loss=[], norm=[], lr=[], grads=None)
        for x, y in _batches(STEPS):
            _, loss = model(lib.tensor(x), lib.tensor(y))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            if run["grads"] is None:
                run["grads"] = {n: p.grad for n, p in model.named_parameters()}
            run["norm"].append(float(lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0)))
            opt.step()
            sched.step()
            run["loss"].append(loss.item())
            run["lr"].append([g["lr"] for g in opt.param_groups])
        runs.append(run)
    want, got = runs
    np.testing.assert_allclose(got["loss"], want["loss"], rtol=1e-5)
    np.testing.assert_allclose(got["norm"], want["norm"], rtol=1e-4)
    np.testing.assert_allclose(got["lr"], want["lr"], rtol=1e-12)
    assert want["norm"][0] > 1.0            # the first step is clipped: clipping is tested
    for n in names:
        _assert_close(got["grads"][n], want["grads"][n], f"first gradient of {n}")
    weights = dict(expected.named_parameters())
    for n, p in actual.named_parameters():
        w, want_w = _numpy(p), _numpy(weights[n])
        if n.endswith(("c_attn.bias", "in_proj_bias")):
            # the key bias adds q·b_k to every score of a row, which softmax ignores: its
            # gradient is 0 up to rounding, and Adam's g / sqrt(v) turns that noise into
            # steps of ±lr in either library. Compare the query and value biases only.
            w, want_w = np.delete(w, np.s_[D:2 * D]), np.delete(want_w, np.s_[D:2 * D])
            assert np.abs(got["grads"][n].numpy()[D:2 * D]).max() < 1e-6
        # Adam divides each gradient by its own running RMS, so float32 rounding in a small
        # gradient moves a weight by a small fraction of a step (1.8e-6 seen with NumPy
        # 2.4.6): allow 0.1 % of a step, LR·1e-3; a wrong gradient is off by whole steps.
        np.testing.assert_allclose(w, want_w, rtol=1e-5, atol=LR * 1e-3,
                                   err_msg=f"{n} after {STEPS} steps")


def test_eval_generate_and_a_saved_checkpoint_of_the_port_match_torch(tmp_path):
    """With dropout on in training, eval() must turn it off in every block (Dropout, the
    MultiheadAttention's, the dropout_p given to scaled_dot_product_attention), so the
    eval losses agree; top_k=1 makes multinomial's draw the argmax, so the generated tokens
    agree though the generators differ; the checkpoint loads into a new model, tied."""
    torch = pytest.importorskip("torch")
    expected, actual = _port_pair(torch, dropout=0.5)
    x, y = _batches(1)[0]
    for model in (expected, actual):
        model.eval()
    with torch.no_grad():
        want = expected(torch.tensor(x), torch.tensor(y))[1].item()
    with tinyffn.no_grad():
        loss = actual(tinyffn.tensor(x), tinyffn.tensor(y))[1]
    assert not loss.requires_grad
    assert loss.item() == pytest.approx(want, rel=1e-5)
    start = x[:, :3]
    tokens = expected.generate(torch.tensor(start), 7, top_k=1).tolist()
    assert actual.generate(tinyffn.tensor(start), 7, top_k=1).tolist() == tokens
    tinyffn.save({"model": actual.state_dict(), "iter_num": STEPS}, tmp_path / "ckpt.pt")
    checkpoint = tinyffn.load(tmp_path / "ckpt.pt", map_location="cpu")
    loaded = gpt_class(tinyffn, dropout=0.5)()
    loaded.load_state_dict(checkpoint["model"])
    loaded.eval()
    assert loaded.lm_head.weight is loaded.transformer.wte.weight
    assert loaded.generate(tinyffn.tensor(start), 7, top_k=1).tolist() == tokens
    sampled = loaded.generate(tinyffn.tensor(start), 7, top_k=3)   # a draw among the top 3
    assert sampled.shape == (BATCH, 10) and 0 <= int(sampled.min()) and int(sampled.max()) < V
