"""spandrel's ATD: adaptive category-based attention, tokens grouped by their dictionary category.

Reduced from spandrel 0.4.2 (the pinned wheel), spandrel/architectures/ATD/__arch/atd_arch.py:
``index_reverse`` and ``feature_shuffle`` (lines 21-41) and ``AC_MSA.forward`` (lines 311-364):
each token takes the category of its most similar dictionary entry, ``torch.argmax(sim, dim=-1)``,
the tokens are sorted by category with ``torch.sort(tk_id, dim=-1, stable=False)`` (line 328),
shuffled into that order, padded by mirroring to whole groups of ``category_size`` tokens, and
attend within each group; the inverse permutation puts them back. Categories repeat (16 tokens,
4 categories here): which tokens share a group depends on the order among equal categories, which
``stable=False`` leaves to the kernel. The similarity map comes from a linear layer and a learned
dictionary here (in ATD it is the token-dictionary attention's output); the projection of the
result is kept. Written here in our own words.
"""

import torch
from torch import nn


def index_reverse(index):
    index_r = torch.zeros_like(index)
    ind = torch.arange(0, index.shape[-1]).to(index.device)
    for i in range(index.shape[0]):
        index_r[i, index[i, :]] = ind
    return index_r


def feature_shuffle(x, index):
    dim = index.dim()
    for _ in range(x.dim() - index.dim()):
        index = index.unsqueeze(-1)
    index = index.expand(x.shape)
    return torch.gather(x, dim=dim - 1, index=index)


class CategoryAttention(nn.Module):
    def __init__(self, dim=8, num_tokens=4, num_heads=2, category_size=5) -> None:
        super().__init__()
        self.num_heads = num_heads
        self.category_size = category_size
        self.wqkv = nn.Linear(dim, 3 * dim)
        self.dictionary = nn.Parameter(torch.randn(num_tokens, dim))
        self.proj = nn.Linear(dim, dim)
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, x):
        qkv = self.wqkv(x)
        sim = self.softmax(x @ self.dictionary.t())
        b, n, c3 = qkv.shape
        c = c3 // 3
        gs = min(n, self.category_size)
        ng = (n + gs - 1) // gs
        tk_id = torch.argmax(sim, dim=-1, keepdim=False)
        _x_sort_values, x_sort_indices = torch.sort(tk_id, dim=-1, stable=False)
        x_sort_indices_reverse = index_reverse(x_sort_indices)
        shuffled_qkv = feature_shuffle(qkv, x_sort_indices)
        pad_n = ng * gs - n
        paded_qkv = torch.cat((shuffled_qkv, torch.flip(shuffled_qkv[:, n - pad_n:n, :], dims=[1])), dim=1)
        y = paded_qkv.reshape(b, -1, gs, c3)
        qkv = y.reshape(b, ng, gs, 3, self.num_heads, c // self.num_heads).permute(3, 0, 1, 4, 2, 5)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = self.softmax(q @ k.transpose(-2, -1))
        y = (attn @ v).permute(0, 1, 3, 2, 4).reshape(b, n + pad_n, c)[:, :n, :]
        x = feature_shuffle(y, x_sort_indices_reverse)
        return self.proj(x)


def build() -> nn.Module:
    return CategoryAttention().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # Two images of 24 tokens in groups of 5 (one padded group): more than 16 tokens, where torch's unstable CPU
    # sort orders equal categories otherwise than a stable one.
    return (torch.randn(2, 24, 8, generator=generator),)


DYNAMIC = {"x": {1: "tokens"}}
