"""A fix that makes nodes TensorRT refuses, where the original's graph had none, is taken back.

pytorch-tabnet 4.1.0's ghost batch norm (``pytorch_tabnet/tab_network.py:33-36``, zoo 44) splits the batch into
``int(np.ceil(x.shape[0] / self.virtual_batch_size))`` chunks. TRT712 keeps that count a traced integer, and the
TorchScript exporter then writes the split as a sequence (``SplitToSequence``, ``SequenceAt``), which no TensorRT
parses: the three TabNet models went from no TensorRT error to 19-25 of them, exit 1. The fix goes back, and the
original's graph, whose count is the same at every batch the input sets reach (and whose eval-mode batch norm gives
the same values over any split), stays.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch

from support import migrate_json

MODEL = '''
import numpy as np
import torch
from torch import nn


class GhostBatchNorm(nn.Module):
    def __init__(self, dim, virtual_batch_size=128):
        super().__init__()
        self.virtual_batch_size = virtual_batch_size
        self.bn = nn.BatchNorm1d(dim)

    def forward(self, x):
        chunks = x.chunk(int(np.ceil(x.shape[0] / self.virtual_batch_size)), 0)
        res = [self.bn(x_) for x_ in chunks]
        return torch.cat(res, dim=0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)
        self.gbn = GhostBatchNorm(6)

    def forward(self, x):
        return self.gbn(self.fc(x))


def build():
    torch.manual_seed(0)
    return Net().eval()


def inputs(generator):
    return (torch.rand(2, 6, generator=generator),)
'''


def test_a_fix_that_makes_sequence_nodes_is_taken_back(tmp_path: Path) -> None:
    path = tmp_path / "gbn.py"
    path.write_text(MODEL)
    report = migrate_json(path, json.dumps({"x": {"0": "batch"}}))
    assert report["after"]["trt_errors"] == 0, report["after"]
    reverted = {entry["rule"]: entry["why"] for entry in report["reverted"]}
    assert "TRT712" in reverted and "SplitToSequence" in reverted["TRT712"], report["reverted"]
    assert "TRT712" not in {entry["rule"] for entry in report["applied"]}
    assert report["exit_code"] == 0, report["remaining"]
    # What makes the original's graph right at every batch: eval-mode batch norm gives the same values over any split.
    namespace: dict = {}
    exec(compile(MODEL, str(path), "exec"), namespace)
    model = namespace["build"]()
    x = torch.randn(300, 6)
    with torch.no_grad():
        whole = model.gbn.bn(model.fc(x))
        assert int(np.ceil(x.shape[0] / 128)) == 3
        torch.testing.assert_close(model(x), whole)
