"""A value read from the data that a rewritten graph still bakes stays an error, with its manual step.

A rewritten graph proven faithful on every input set used to drop its TracerWarnings: a size read there
the input set at other sizes would have exposed. A value read from the tensor's data is exposed only by an
input set that changes it: pyniftireg 0.1.1's scaling and squaring (`pyniftireg/flow.py:50-55`,
``auto_steps``: ``ceil(log2(max |v| / 0.5))`` squarings from ``float(v.norm(dim=1).max())``) takes the
same count on random inputs of one scale, and the graph keeps that count for every field (zoo 38's
pn_svf_inverse_lncc ended at exit 0 once its grid was fixed). The small model below reduces it: a
count decided in Python from the data (alike on every input set migrate draws) and a negative
``movedim`` source TRT371 fixes, so the rewritten side is the one judged.
"""

from __future__ import annotations

from pathlib import Path

from support import migrate_small

from trtcodemod.migrate.locate import DATA_READ_NOTE
from trtcodemod.migrate.manual_steps import DATA_STEP, NUMBER_STEP, SIZE_STEP, manual_step

SMALL = '''
import torch
from torch import nn


def squarings(v):
    m = float(v.detach().abs().max())
    return 3 if m > 1e30 else 2


class M(nn.Module):
    def forward(self, x):
        y = torch.tensordot(x, torch.ones(4, 5), dims=([2], [1])).movedim(-1, 2)
        n = squarings(y)
        u = y / 2 ** n
        for _ in range(n):
            u = u + u * 0.5
        return u


def build():
    return M().eval()
'''


def test_a_count_read_from_the_data_stays_an_error_where_the_rewritten_graph_is_faithful(tmp_path: Path) -> None:
    path = tmp_path / "model.py"
    path.write_text(SMALL)
    report, exit_code = migrate_small(path)
    assert [a["rule"] for a in report["applied"]] == ["TRT371"]
    assert report["after"]["faithful"] is True  # every input set gave the count 2
    assert exit_code == 1
    [read] = [r for r in report["remaining"] if r["severity"] == "error"]
    assert read["source"] == f"{path}:7" and DATA_READ_NOTE in read["message"]
    assert read["manual_step"].startswith(DATA_STEP)


def test_a_value_read_from_the_data_gets_the_step_of_a_number_and_of_a_count() -> None:
    assert "export with a fixed count" in DATA_STEP and NUMBER_STEP in DATA_STEP
    entry = {"op": "(traced constant)", "source": "m.py:3", "rule": None, "kind": "baked", "severity": "error",
             "exporter": "torchscript", "message": "Converting a tensor to a Python float ..." + DATA_READ_NOTE}
    step = manual_step(entry)
    assert step is not None and step.startswith(DATA_STEP) and SIZE_STEP in step
    eager = manual_step({**entry, "op": "(baked value)", "message": "Python reads a tensor's value here (__float__)"})
    assert eager is not None and eager.startswith(DATA_STEP)


DISTRIBUTION = '''
import torch
import torch.nn.functional as F
from torch import nn


class M(nn.Module):
    def forward(self, x):
        y = torch.tensordot(x, torch.ones(4, 5), dims=([2], [1])).movedim(-1, 2)
        t = torch.distributions.StudentT(2.0 + F.softplus(y), y, F.softplus(y) + 0.1)
        return t.mean + t.stddev


def build():
    return M().eval()
'''


def test_a_constant_at_a_line_whose_only_reads_are_a_librarys_checks_is_no_data_read(tmp_path: Path) -> None:
    """gluonts' `StudentT(...)` line (zoo 70): torch validates the arguments there (reads in a check that only
    raises) and copies `Chi2`'s number 0.5 into a tensor. With the rewritten side judged (TRT371's fix), the
    constant is not a value read from the data: exit 0."""
    path = tmp_path / "model.py"
    path.write_text(DISTRIBUTION)
    report, exit_code = migrate_small(path)
    assert [a["rule"] for a in report["applied"]] == ["TRT371"]
    assert report["after"]["faithful"] is True
    assert not any(DATA_READ_NOTE in r["message"] for r in report["remaining"]), report["remaining"]
    assert exit_code == 0, report["remaining"]
