"""Mock token data, like NeMo's mock GPT dataset: sample i is a deterministic
sequence of seq_len + 1 random tokens from a generator seeded by (seed, i), so
any rank can produce any sample without reading files, and a run is
reproducible.

Unlike NeMo's uniform tokens, the tokens have a little structure, so that the
loss of a real model falls during a short run: each token is drawn from a
fixed Zipf(1) distribution over the vocabulary, except that with probability
1/2 it is a fixed function (a permutation) of the previous token. A model that
predicts uniformly has a loss of ln(vocab); the data's entropy is lower.
"""

import torch

_FOLLOW_PROBABILITY = 0.5


class MockTokens:
    def __init__(self, vocab: int, seq_len: int, seed: int):
        self.vocab = vocab
        self.seq_len = seq_len
        self.seed = seed
        g = torch.Generator().manual_seed(seed)
        ranks = torch.arange(1, vocab + 1, dtype=torch.float64)
        probs = 1.0 / ranks
        probs /= probs.sum()
        self.probs = probs
        self.cdf = torch.cumsum(probs, 0).clamp_(max=1.0)
        self.cdf[-1] = 1.0
        self.rank_to_token = torch.randperm(vocab, generator=g)  # which token id is the k-th most frequent
        self._successor = torch.randperm(vocab, generator=g).tolist()  # the "follow" function

    def sample(self, index: int) -> torch.Tensor:
        """Sample `index` of the dataset: seq_len + 1 token ids (int64)."""
        g = torch.Generator().manual_seed(self.seed * 1_000_003 + index)
        n = self.seq_len + 1
        u = torch.rand(n, generator=g, dtype=torch.float64)
        zipf = self.rank_to_token[torch.searchsorted(self.cdf, u).clamp_(max=self.vocab - 1)].tolist()
        follow = (torch.rand(n, generator=g) < _FOLLOW_PROBABILITY).tolist()
        successor = self._successor
        out = zipf
        # out[t] = successor[out[t-1]] where follow[t], else zipf[t]
        for t in range(1, n):
            if follow[t]:
                out[t] = successor[out[t - 1]]
        return torch.tensor(out, dtype=torch.int64)

    def batch(self, first_index: int, count: int) -> torch.Tensor:
        """Samples first_index .. first_index + count - 1 as a (count, seq_len + 1) tensor."""
        return torch.stack([self.sample(first_index + i) for i in range(count)])
