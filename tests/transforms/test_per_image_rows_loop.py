"""TRT360 names a loop over the batch that appends each image's rows with the image's index and runs no NMS.

oriented_det's `yolo_obb_decode_pre_nms` (zoo 29's `od_yolo_obb_n_rows` and `od_rtmdet_s_rows` wrappers, `:74`) keeps
each image's top candidates over a score threshold: the rows an image gives are what its own scores select. A name
that says it runs before NMS is no NMS, so TRT360 does not take the loop for a per-image NMS loop (whose manual step
is `batched_nms`); it names it, detect only, with the parallelizable loop's manual step. The snippets are our own,
in the wrapper's form.
"""

from __future__ import annotations

import pytest
from support import rewrite, rules_found

from trtcodemod.engine import Options, check_source
from trtcodemod.migrate.manual_steps import PER_IMAGE_NMS_STEP, PER_IMAGE_ROWS_STEP, manual_step

HEADER = "import torch\nimport torchvision\n\n\n"

LOOP = HEADER + """\
def decode_pre_nms(scores, boxes, threshold):
    best, label = scores.sigmoid().max(1)
    keep = best > threshold
    return boxes[keep], best[keep], label[keep]


class M(torch.nn.Module):
    def forward(self, x):
        rows = []
        for i in range(x.shape[0]):
            b, s, c = {call}
            rows.append(torch.cat([b, s[:, None], c[:, None].to(b.dtype), {column}], 1))
        return torch.cat(rows)
"""

CALL = "decode_pre_nms(x[i, :, 4:], x[i, :, :4], 0.3)"
COLUMN = "torch.full_like(s[:, None], i)"


def _findings(code: str) -> list:
    return list(check_source(code.encode(), "snippet.py", Options(select=("TRT360",))))


def test_a_rows_loop_without_nms_is_named_with_its_manual_step() -> None:
    code = LOOP.format(call=CALL, column=COLUMN)
    [finding] = _findings(code)
    assert finding.line == code.splitlines().index("        for i in range(x.shape[0]):") + 1
    assert finding.edit is None and "computes each image's rows and appends them with the image's index" in finding.message
    assert "runs NMS" not in finding.message
    entry = {"rule": "TRT360", "message": finding.message, "severity": "error", "kind": "finding"}
    assert manual_step(entry) == PER_IMAGE_ROWS_STEP
    assert "parallelizable" in PER_IMAGE_ROWS_STEP and "nonzero()" in PER_IMAGE_ROWS_STEP
    assert rewrite(code, unsafe=True, select=("TRT360",)) == code


@pytest.mark.parametrize("column", ["x.new_full((s.shape[0], 1), i)", "torch.full_like(s[:, None], i, dtype=b.dtype)"])
def test_other_spellings_of_the_index_column(column: str) -> None:
    assert rules_found(LOOP.format(call=CALL, column=column), select=("TRT360",)) == ["TRT360"]


@pytest.mark.parametrize("column", ["torch.zeros_like(s[:, None])", "torch.full_like(s[:, None], 0)"])
def test_left_alone_without_the_image_index(column: str) -> None:
    assert rules_found(LOOP.format(call=CALL, column=column), select=("TRT360",)) == []


def test_a_loop_that_runs_nms_keeps_the_nms_step() -> None:
    call = "decode_pre_nms(x[i, :, 4:], x[i, :, :4], 0.3)\n            k = torchvision.ops.nms(b, s, 0.5)\n" \
           "            b, s, c = b[k], s[k], c[k]"
    findings = _findings(LOOP.format(call=call, column=COLUMN))
    assert findings and all("runs NMS image by image" in f.message for f in findings)
    assert all("computes each image's rows" not in f.message for f in findings)
    nms_named = LOOP.format(call="batched_rotated_nms(x[i, :, 4:], x[i, :, :4], 0.3)", column=COLUMN)
    [finding] = _findings(nms_named)
    assert "runs NMS image by image" in finding.message
    assert manual_step({"rule": "TRT360", "message": finding.message, "severity": "error"}) == PER_IMAGE_NMS_STEP


MODEL = '''\
from typing import List

import torch


def decode_pre_nms(scores, boxes, threshold):
    best, label = scores.max(1)
    keep = best > threshold
    return boxes[keep], best[keep], label[keep]


def features(net, images: List[torch.Tensor]):
    return net(torch.stack(images))


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Identity()

    def forward(self, x):
        f = features(self.net, list(x))
        rows = []
        for i in range(x.shape[0]):
            b, s, c = decode_pre_nms(f[i, :, 4:], f[i, :, :4], 0.3)
            rows.append(torch.cat([b, s[:, None], c[:, None].to(b.dtype), torch.full_like(s[:, None], i)], 1))
        return torch.cat(rows)


def build():
    return M().eval()


def inputs(generator):
    return (torch.rand(2, 12, 7, generator=generator),)
'''


def test_migrate_names_the_loop_once_at_the_users_line(tmp_path) -> None:
    """`list(x)` is fixed (TRT366 inserts its helpers above the loop, which moves it down in the rewritten file);
    the loop is left, named once: TRT360's finding at the `for` of the user's file, with the parallelizable step."""
    from support import migrate_json

    path = tmp_path / "rows_model.py"
    path.write_text(MODEL)
    report = migrate_json(path, '{"x": {"0": "batch"}}')
    loop = MODEL.splitlines().index("        for i in range(x.shape[0]):") + 1
    assert ("TRT366", MODEL.splitlines().index("        f = features(self.net, list(x))") + 1) in \
        [(fix["rule"], fix["line"]) for fix in report["applied"]], report["remaining"]
    assert report["exit_code"] == 1
    here = [entry for entry in report["remaining"] if entry["source"] and entry["source"].startswith(str(path))]
    assert [(entry["rule"], entry["source"]) for entry in here] == [("TRT360", f"{path}:{loop}")], here
    assert here[0]["manual_step"] == PER_IMAGE_ROWS_STEP
