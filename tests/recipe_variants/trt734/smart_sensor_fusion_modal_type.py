"""A vision-audio fusion model's modality-type embedding: every token of a modality gets that modality's learned
vector, looked up with ids made by ``torch.full(x.shape[:-1], index, device=x.device)``: no dtype, the size a slice
of the tokens' shape (traced), and the fill a parameter, ``index: int``, that the caller passes as ``index=1`` for
the audio tokens and ``index=2`` for the vision ones (eager mode infers int64 from the ``int``).

Reduced from JIANG-HAOLIN/smart_sensor_fusion @ 965a033e5b935fe32d7904bc589eb38bd85b7956:
src/models/utils/embeddings.py, ``ModalTypeEmbedding`` (lines 6 to 18; the ``full`` at line 18; ``MdlEmbCat`` at
line 57 concatenates the same lookup instead of adding it), used by src/models/progress_prediction.py's
vision-audio fusion model (``forward``, lines 427 to 458; the two calls at lines 445 and 446, the tokens joined at
line 448). Kept: the embedding module as written, its two calls with keyword ``index``, the concatenation of the
two modalities' tokens. Reduced: linear projections of given token features stand in for the preprocessing,
tokenization and positional encoding of images and audio (hydra-instantiated there), one stack per sample, and a
mean over the tokens and a linear head stand in for the early fusion, the temporal embedding and the transformer
classifier. Written here in our own words.

Why it matters for export: with the numbers of tokens traced, the TorchScript exporter makes the ``full`` a float
``ConstantOfShape``, and ONNX Runtime refuses the embedding's ``Gather`` with float indices.
"""

import torch
from torch import nn


class ModalTypeEmbedding(nn.Module):
    def __init__(self, num_type: int = 3, emb_dim: int = 8) -> None:
        super().__init__()
        self.type_emb = nn.Embedding(num_type, emb_dim)

    def forward(self, x: torch.Tensor, index: int) -> torch.Tensor:
        return x + self.type_emb(torch.full(x.shape[:-1], index, device=x.device))


class VisionAudioFusion(nn.Module):
    def __init__(self, vision_dim: int = 6, audio_dim: int = 4, emb_dim: int = 8, classes: int = 3) -> None:
        super().__init__()
        self.tokenization_vision = nn.Linear(vision_dim, emb_dim)
        self.tokenization_audio = nn.Linear(audio_dim, emb_dim)
        self.mdl_type_emb = ModalTypeEmbedding(3, emb_dim)
        self.head = nn.Linear(emb_dim, classes)

    def forward(self, vision_signal, audio_signal):
        vision_signal = self.tokenization_vision(vision_signal)
        audio_signal = self.tokenization_audio(audio_signal)

        audio_signal = self.mdl_type_emb(audio_signal, index=1)
        vision_signal = self.mdl_type_emb(vision_signal, index=2)

        x = torch.cat([audio_signal, vision_signal], dim=1)
        return self.head(x.mean(dim=1))


def build() -> nn.Module:
    return VisionAudioFusion()


def inputs(generator: torch.Generator, batch: int = 2, patches: int = 5, frames: int = 7) -> tuple[torch.Tensor, ...]:
    """``batch`` samples of ``patches`` vision token features (width 6) and ``frames`` audio ones (width 4)."""
    return (torch.randn(batch, patches, 6, generator=generator), torch.randn(batch, frames, 4, generator=generator))


DYNAMIC = {"vision_signal": {0: "batch", 1: "patches"}, "audio_signal": {0: "batch", 1: "frames"}}
CALL = "return x + self.type_emb(torch.full(x.shape[:-1], index, device=x.device))"
