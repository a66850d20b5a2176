"""A small decoder-only transformer (GPT-2 style, pre-LN) and its FLOPs count.

The model: token + learned position embeddings, N pre-LN blocks of causal
multi-head self-attention and a GELU MLP, a final LayerNorm and an LM head
tied to the token embedding. No dropout (pre-training benchmark).
"""

import math

import torch
from torch import nn
from torch.nn import functional as F

# "math": attention written out (scores, mask, softmax, AV), which every PyTorch has and
# the CPU path uses; "sdpa": torch.nn.functional.scaled_dot_product_attention (PyTorch 2.0+),
# fused kernels on a GPU.
ATTENTION_KINDS = ("math", "sdpa")


def padded_vocab(vocab: int, multiple: int) -> int:
    """`vocab` rounded up to a multiple of `multiple` (Megatron-LM's make-vocab-size-divisible-by)."""
    multiple = max(1, multiple)
    return (vocab + multiple - 1) // multiple * multiple


class CausalSelfAttention(nn.Module):
    def __init__(self, hidden: int, heads: int, attention: str = "math"):
        super().__init__()
        if hidden % heads != 0:
            raise ValueError(f"hidden size {hidden} is not divisible by {heads} heads")
        if attention not in ATTENTION_KINDS:
            raise ValueError(f"attention '{attention}' is not one of {', '.join(ATTENTION_KINDS)}")
        self.attention = attention
        self.heads = heads
        self.head_dim = hidden // heads
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.proj = nn.Linear(hidden, hidden)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        b, s, h = x.shape
        q, k, v = self.qkv(x).split(h, dim=2)
        # (b, heads, s, head_dim)
        q = q.view(b, s, self.heads, self.head_dim).transpose(1, 2)
        k = k.view(b, s, self.heads, self.head_dim).transpose(1, 2)
        v = v.view(b, s, self.heads, self.head_dim).transpose(1, 2)
        if self.attention == "sdpa":
            # Fused attention (flash / memory-efficient / cuDNN kernels on a GPU): the
            # s x s scores are never stored.
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, s, h)
            return self.proj(y)
        scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(self.head_dim))
        scores = scores.masked_fill(mask[:s, :s], float("-inf"))
        attn = torch.softmax(scores, dim=-1)
        y = (attn @ v).transpose(1, 2).reshape(b, s, h)
        return self.proj(y)


class Block(nn.Module):
    def __init__(self, hidden: int, heads: int, ffn: int, attention: str = "math"):
        super().__init__()
        self.ln1 = nn.LayerNorm(hidden)
        self.attn = CausalSelfAttention(hidden, heads, attention)
        self.ln2 = nn.LayerNorm(hidden)
        self.fc1 = nn.Linear(hidden, ffn)
        self.fc2 = nn.Linear(ffn, hidden)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x), mask)
        x = x + self.fc2(F.gelu(self.fc1(self.ln2(x))))
        return x


class TinyGPT(nn.Module):
    def __init__(self, layers: int, hidden: int, heads: int, ffn: int, seq_len: int, vocab: int,
                 attention: str = "math"):
        """`vocab` is the embedding's row count: the tokenizer's vocabulary, or that padded
        (padded_vocab) so the LM head's GEMM has friendly shapes, as Megatron-LM does."""
        super().__init__()
        self.seq_len = seq_len
        self.tok = nn.Embedding(vocab, hidden)
        self.pos = nn.Embedding(seq_len, hidden)
        self.blocks = nn.ModuleList(Block(hidden, heads, ffn, attention) for _ in range(layers))
        self.ln_f = nn.LayerNorm(hidden)
        # True above the diagonal: positions a token may not attend to. A plain attribute,
        # not a buffer: DDP would broadcast buffers and gloo has no bool type.
        self.mask = torch.triu(torch.ones(seq_len, seq_len, dtype=torch.bool), diagonal=1)
        self._init_weights(layers)

    def _init_weights(self, layers: int) -> None:
        # GPT-2 initialisation: N(0, 0.02), residual output projections scaled by 1/sqrt(2L).
        for name, p in self.named_parameters():
            if name.endswith(".bias"):
                nn.init.zeros_(p)
            elif "ln" in name.split(".")[-2]:
                nn.init.ones_(p)
            elif name.endswith("proj.weight") or name.endswith("fc2.weight"):
                nn.init.normal_(p, std=0.02 / math.sqrt(2 * layers))
            else:
                nn.init.normal_(p, std=0.02)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Logits (b, s, vocab) for tokens (b, s)."""
        _, s = tokens.shape
        if s > self.seq_len:
            raise ValueError(f"sequence of {s} tokens is longer than the model's {self.seq_len}")
        positions = torch.arange(s, device=tokens.device)
        x = self.tok(tokens) + self.pos(positions)
        for block in self.blocks:
            x = block(x, self.mask)
        x = self.ln_f(x)
        return x @ self.tok.weight.t()  # LM head tied to the token embedding


def megatron_flops_per_iteration(global_batch: int, seq_len: int, layers: int, hidden: int, heads: int,
                                 ffn: int, vocab: int) -> float:
    """Model FLOPs of one optimizer step (forward + backward), Megatron-LM's formula
    (num_floating_point_operations at HEAD, facts/metrics.md §3.1) for this model:
    multi-head attention (query groups = heads, head dim = hidden/heads), no gated
    attention, GELU MLP (2 GEMMs), no MoE/MTP, causal attention counted as half of
    the s^2 term, logits over the vocabulary as the model has it (the embedding's rows:
    the tokenizer's vocabulary, or that padded when train.py's --pad-vocab-to pads it).

    F = T * [L * (12 h f + 24 h^2) + 6 h V] + 6 B s^2 h L, with T = B s tokens.
    """
    b, s, L, h, f, V = global_batch, seq_len, layers, hidden, ffn, vocab
    q = h                      # kv_channels * heads
    d = h // heads
    g = heads
    tokens = b * s
    per_token = (6 * h * f * 2 * L                       # MLP: 2 GEMMs h x f
                 + L * 6 * (h * (q + 2 * d * g) + q * h)  # QKV and output projections
                 + 6 * h * V)                             # logits
    attention_core = 6 * q * L * b * s * s                # QK^T and AV, causal half included
    return float(tokens * per_token + attention_core)
