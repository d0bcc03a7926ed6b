"""The benchmarks' plain-PyTorch NMS stand-in (benchmarks/real_zoo_env/torchvision_ops_standin.py) keeps the greedy
order of torchvision's kernel while comparing boxes block by block.

The reference here is greedy NMS written out pair by pair (each kept box removes the later boxes it overlaps by more
than the threshold, in the order of descending score, ties by index); the stand-in must keep the same positions on
random boxes across several blocks, equal scores, boxes that share corners, zero-area boxes (0/0 IoU), NaN scores and
coordinates, float64, no box and one box.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import torch

STANDIN = Path(__file__).resolve().parents[2] / "benchmarks" / "real_zoo_env" / "torchvision_ops_standin.py"


def _standin_nms():
    """The stand-in's ``_nms`` without registering its operators (a test process may have them already)."""
    source = STANDIN.read_text().split("\n_LIB = ", 1)
    body = source[1].split("\n\n\n", 1)[1]  # past the operator definitions
    namespace: dict = {"torch": torch}
    exec(compile(source[0] + "\n\n" + body.split("\ndef _roi_align", 1)[0], str(STANDIN), "exec"), namespace)  # noqa: S102
    return namespace["_nms"], namespace


def _greedy(boxes: torch.Tensor, scores: torch.Tensor, threshold: float) -> list[int]:
    order = scores.argsort(descending=True, stable=True).tolist()
    removed, kept = set(), []
    for at, i in enumerate(order):
        if at in removed:
            continue
        kept.append(i)
        for later in range(at + 1, len(order)):
            j = order[later]
            low = torch.max(boxes[i, :2], boxes[j, :2])
            high = torch.min(boxes[i, 2:], boxes[j, 2:])
            inter = (high - low).clamp(min=0).prod()
            area = lambda b: (b[2] - b[0]) * (b[3] - b[1])  # noqa: E731
            if bool(inter / (area(boxes[i]) + area(boxes[j]) - inter) > threshold):
                removed.add(later)
    return kept


def _boxes(count: int, seed: int, spread: float) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    corner = torch.rand(count, 2, generator=generator) * spread
    return torch.cat([corner, corner + torch.rand(count, 2, generator=generator) * 8], 1), \
        torch.rand(count, generator=generator)


@pytest.mark.parametrize("case", ["random", "ties", "corners", "zero-area", "nan", "float64", "none", "one"])
def test_the_blocks_keep_the_greedy_order(case: str) -> None:
    nms, namespace = _standin_nms()
    namespace["_BLOCK"], namespace["_COLUMNS"] = 16, 40  # several blocks and column chunks on a small set
    boxes, scores = _boxes({"none": 0, "one": 1}.get(case, 90), seed=3, spread=30)
    if case == "ties":
        scores = torch.ones_like(scores)
    elif case == "corners":
        boxes = boxes.round()
    elif case == "zero-area":
        boxes[::3, 2:] = boxes[::3, :2]
    elif case == "nan":
        boxes[5, 0], scores[7] = float("nan"), float("nan")
    elif case == "float64":
        boxes, scores = boxes.double(), scores.double()
    got = nms(boxes, scores, 0.3)
    assert got.dtype == torch.int64
    assert got.tolist() == _greedy(boxes, scores, 0.3)
