"""anomalib's PatchCore: the nearest-neighbour search over the memory bank, whole or in chunks by the patch count.

Reduced from open-edge-platform/anomalib at tag v2.7.0, src/anomalib/models/image/patchcore/torch_model.py
(``PatchcoreModel.nearest_neighbors``, ``euclidean_dist`` and ``forward``'s scoring, lines 301-382): the patch
embeddings of a batch are searched against the stored embeddings all at once when there are at most
``DEFAULT_CHUNK_SIZE`` of them (1024 in anomalib), and chunk by chunk otherwise, appending each chunk's nearest
distance and index and concatenating them. Written here in our own words: the backbone is one convolution, the
chunk size is 16 so that a small example takes the chunked branch, and the image score is the largest patch
distance.
"""

import torch
from torch import nn

CHUNK = 16


def euclidean_dist(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Pairwise distances in the matrix-product form, as anomalib writes them for ONNX."""
    x_norm = x.pow(2).sum(dim=-1, keepdim=True)
    y_norm = y.pow(2).sum(dim=-1, keepdim=True)
    res = x_norm - 2 * torch.matmul(x, y.transpose(-2, -1)) + y_norm.transpose(-2, -1)
    return res.clamp_min(0).sqrt()


class PatchSearch(nn.Module):
    def __init__(self, channels: int = 6, bank: int = 40) -> None:
        super().__init__()
        self.features = nn.Conv2d(3, channels, 3, stride=2, padding=1)
        self.register_buffer("memory_bank", torch.randn(bank, channels, generator=torch.Generator().manual_seed(3)))

    def nearest_neighbors(self, embedding: torch.Tensor):
        n = embedding.shape[0]
        chunk_size = CHUNK
        if n <= chunk_size:
            distances = euclidean_dist(embedding, self.memory_bank)
            patch_scores, locations = distances.min(1)
        else:
            all_scores = []
            all_locations = []
            for start_idx in range(0, n, chunk_size):
                end_idx = min(start_idx + chunk_size, n)
                distances = euclidean_dist(embedding[start_idx:end_idx], self.memory_bank)
                chunk_scores, chunk_locations = distances.min(1)
                all_scores.append(chunk_scores)
                all_locations.append(chunk_locations)
            patch_scores = torch.cat(all_scores, dim=0)
            locations = torch.cat(all_locations, dim=0)
        return patch_scores, locations

    def forward(self, x):
        embedding = self.features(x)
        batch, channels, height, width = embedding.shape
        embedding = embedding.permute(0, 2, 3, 1).reshape(-1, channels)
        patch_scores, locations = self.nearest_neighbors(embedding)
        patch_scores = patch_scores.reshape(batch, 1, height, width)
        return patch_scores, patch_scores.flatten(1).amax(1), locations.reshape(batch, -1)


def build() -> nn.Module:
    return PatchSearch()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 8, 10, generator=generator),)  # 2 x 4 x 5 = 40 patches: three chunks of 16


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
CALL = "if n <= chunk_size:"
