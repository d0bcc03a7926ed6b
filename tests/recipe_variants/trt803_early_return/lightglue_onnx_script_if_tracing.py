"""SuperPoint's keypoint cap as LightGlue-ONNX writes it for export: left alone by TRT803, on purpose.

Reduced from fabio-sim/LightGlue-ONNX @ fc1d67a361ec52405d792987f019f4c047549bc3,
``lightglue_onnx/superpoint_open.py``: ``select_top_k_keypoints`` (lines 76-81) is glue-factory's early return,
annotated (``keypoints: torch.Tensor, scores: torch.Tensor, k: int``), its size read as ``keypoints.shape[0]``,
and decorated ``@torch.jit.script_if_tracing``; ``SuperPointOpen.forward`` (lines 174-180) casts the
``torch.where`` rows to float (x, y) points and caps them when ``self.conf.max_num_keypoints`` is set. The project
exists to export these models to ONNX and TensorRT, and the decorator is its own answer to this problem: a trace
compiles the function with TorchScript, so the exporter keeps the ``if`` as an ONNX ``If`` and its top-k's K as
a value, and the graph gives the cap's count at every size (the repository's history has the same function
undecorated before, lightglue_onnx/superpoint.py at cd10a1060c595792a528629f68e5de693a1a1042: the form the other
variants here show exported with the example's branch).
TRT803 therefore does not take an early return in a function TorchScript compiles: nothing is left to fix, and
the rewrite would put export-time helpers in a scripted function. Reduced: the network, border removal and
descriptors left out; the model takes one image's integer (row, column) detections and their scores. Written
here in our own words.
"""

from types import SimpleNamespace

import torch
from torch import nn

CAP = 32
SIZES = (60, 20, CAP)
DYNAMIC = {"keypoints": {0: "n"}, "scores": {0: "n"}}
#: TRT803 leaves this file as it is.
LEFT_ALONE = True


@torch.jit.script_if_tracing
def select_top_k_keypoints(keypoints: torch.Tensor, scores: torch.Tensor, k: int):
    if k >= keypoints.shape[0]:
        return keypoints, scores
    scores, indices = torch.topk(scores, k, dim=0, sorted=True)
    return keypoints[indices], scores


class SuperPointOpenCap(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conf = SimpleNamespace(max_num_keypoints=CAP, detection_threshold=0.0005)

    def forward(self, keypoints, scores):
        keypoints = keypoints.flip(1).float()
        if self.conf.max_num_keypoints is not None:
            keypoints, scores = select_top_k_keypoints(keypoints, scores, self.conf.max_num_keypoints)
        return keypoints + 0.5, scores


def build() -> nn.Module:
    return SuperPointOpenCap().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    n = SIZES[generator.initial_seed() % len(SIZES)]
    keypoints = torch.randint(0, 96, (n, 2), generator=generator)
    scores = torch.randperm(n, generator=generator).float() / n - 0.25  # distinct, negatives and zero
    return keypoints, scores
