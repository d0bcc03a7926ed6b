"""migrate on a chain of in-place calls on a subscripted view (TRT387): the TorchScript graph exports without an
error and computes other values even on the inputs it was traced with (l5kit's Urban Driver sets its lanes' type
indices with ``indices[:, a:b].copy_(...).add_(5)``; the graph adds 5 to every other column as well). Nothing
places the difference at a line, so TRT387 is one of the wrong-value suspects: migrate applies it and ends with a
faithful, equivalent graph."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from support import migrate_json

MODEL = '''\
import torch
from torch import nn


class Types(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embedding = nn.Embedding(13, 4)

    def forward(self, lanes: torch.Tensor) -> torch.Tensor:
        indices = torch.full((lanes.shape[0], 2 + lanes.shape[1]), 1, dtype=torch.long)
        indices[:, 0].fill_(0)
        indices[:, 2:].copy_(lanes).add_(5)
        return self.embedding(indices)


def build() -> nn.Module:
    return Types().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randint(0, 4, (3, 5), generator=generator),)
'''


def _migrate(tmp_path: Path) -> dict[str, Any]:
    model = tmp_path / "types.py"
    model.write_text(MODEL)
    return migrate_json(model, '{"lanes": {"0": "batch", "1": "lanes"}}')


def test_migrate_splits_the_chain_and_the_graph_is_faithful(tmp_path: Path) -> None:
    report = _migrate(tmp_path)
    line = MODEL.splitlines().index("        indices[:, 2:].copy_(lanes).add_(5)") + 1
    assert report["before"]["exported"] is True and report["before"]["faithful"] is False, report["before"]
    assert [(a["rule"], a["line"]) for a in report["applied"]] == [("TRT387", line)], report["remaining"]
    assert report["reverted"] == []
    assert report["after"]["faithful"] is True and report["after"]["trt_errors"] == 0, report["after"]
    assert report["equivalent"] is True and report["exit_code"] == 0, report["remaining"]
    assert "+        indices[:, 2:].copy_(lanes)\n+        indices[:, 2:].add_(5)\n" in report["diff"], report["diff"]
