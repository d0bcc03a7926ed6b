"""An export failure inside a ``@torch.jit.script`` function: named at its line, and no fix kept that fixes nothing.

empanada-dl 0.1.7 (``empanada/inference/postprocess.py:55``, zoo 87) thresholds its centre heatmap with
``F.threshold(ctr_hmp, threshold, -1.)`` inside a scripted function that a scripted function calls. The TorchScript
exporter refuses a threshold or value other than 0, after tracing, with no Python frame of the call and the refused
node's stack in torch's ``functional.py``; its message names where the refused input was made (a line above). migrate
named the failure at no line at all. Now it is placed at the call (the scripted function's source), and TRT337's
safe fix, whose helper keeps torch's call when scripted, is taken back: the rewritten model's export stops at the same
line, so the change fixes nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

from support import migrate_json

LIBRARY = '''
import torch
import torch.nn.functional as F


@torch.jit.script
def centres(heat, threshold: float = 0.1):
    heat = torch.sigmoid(heat)
    heat = F.threshold(heat, threshold, -1.)
    pooled = F.max_pool2d(heat, kernel_size=3, stride=1, padding=1)
    return torch.where(heat == pooled, heat, torch.zeros_like(heat))
'''

MODEL = '''
import torch
from heatlib.post import centres


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 1, 3, padding=1)

    def forward(self, x):
        return centres(self.conv(x))


def build():
    torch.manual_seed(0)
    return Net().eval()


def inputs(generator):
    return [torch.randn(1, 3, 16, 16, generator=generator)]
'''


def test_a_scripted_threshold_is_named_at_its_line_and_its_idle_fix_is_taken_back(tmp_path: Path) -> None:
    (tmp_path / "heatlib").mkdir()
    (tmp_path / "heatlib" / "__init__.py").write_text("")
    library = tmp_path / "heatlib" / "post.py"
    library.write_text(LIBRARY)
    (tmp_path / "model.py").write_text(MODEL)
    line = next(n for n, text in enumerate(LIBRARY.splitlines(), 1) if "F.threshold" in text)

    report = migrate_json(tmp_path / "model.py", json.dumps({"x": {"0": "batch", "2": "height", "3": "width"}}))

    assert report["exit_code"] == 1
    assert not report["applied"], report["applied"]
    [reverted] = report["reverted"]
    assert (reverted["rule"], reverted["line"]) == ("TRT337", line) and "fixes nothing" in reverted["why"]
    [failure] = [p for p in report["remaining"] if p["op"] == "(export)"]
    assert failure["source"] == f"{library.resolve()}:{line}" and failure["rule"] == "TRT337", failure
    assert failure["manual_step"], failure
    assert library.read_text() == LIBRARY  # the rewrite went back whole
