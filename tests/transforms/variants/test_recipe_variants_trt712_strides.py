"""A stride inferred from sizes, "image size / feature size", on real-code variants (TRT712).

Detectors that read the stride of each feature level off the grid do it in three ways: a ratio
rounded and accepted only where it is a whole number, with a configured stride as the fallback
(oriented-det's ``derive_fpn_strides_from_grid``, zoo 29); an integer floor division of the sizes
in ``forward`` (eriklindernoren's YOLOv3 layer); the ratio measured once when the model is built
(YOLOv5, YOLOv8). Only the first reads a traced size into a Python number, and it decides a branch
that picks what the loop collects: the TorchScript export keeps the branch the example took, so a
number kept traced under it is another program (zoo 29: the export of those candidates stopped at
`round` of the traced ratio, and `migrate` took them back round after round); TRT712 names the
branch and offers no fix, and `migrate` keeps the bake an error even where a second trace finds the
same graph. The others bake nothing.

Each variant is our own small re-writing of the cited construct, exported with the TorchScript
exporter and dynamic axes; its TracerWarnings are the observed facts, as ``migrate`` records them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from support import assert_same
from variant_models import export_variant, graph_matches, load_variant, traced_facts

from trtcodemod.engine import Options, check_source, fix_source

#: DL4EO/oriented-det 0.4.1 (PyPI oriented-det), oriented_det/models/utils.py:474-535,
#: ``derive_fpn_strides_from_grid``: `int(image_size[0])`, `int(fh)`, the ratio's rounding, and
#: `if clean: strides.append(s_round); continue`, else the configured stride. Feature maps here are
#: `ceil(H / 2)` per level, as its stride-2 convolutions with padding 1 make them.
GRID_STRIDES = '''import torch
import torch.nn.functional as F
from torch import nn


def infer_strides(image_size, level_sizes, nominal):
    img_h, img_w = int(image_size[0]), int(image_size[1])
    found = []
    for i, (lh, lw) in enumerate(level_sizes):
        lh, lw = int(lh), int(lw)
        rh = img_h / lh
        rw = img_w / lw
        tol = max(1e-2, 1e-3 * max(rh, rw))
        mid = (rh + rw) / 2.0
        whole = int(round(mid))
        clean = abs(rh - rw) <= tol and whole > 0 and abs(mid - whole) <= tol
        if clean:
            found.append(whole)
            continue
        found.append(nominal[i])
    return found


class Heads(nn.Module):
    def forward(self, x):
        levels, y = [], x
        for _ in range(3):
            y = F.avg_pool2d(y, 2, ceil_mode=True)
            levels.append(y)
        strides = infer_strides((x.shape[2], x.shape[3]), [(f.shape[2], f.shape[3]) for f in levels], [2, 4, 8])
        return torch.cat([(f * s).flatten(1) for f, s in zip(levels, strides)], 1)


def build():
    return Heads()


def inputs(generator):
    return (torch.rand(1, 1, 16, 16, generator=generator),)


DYNAMIC = {"x": {2: "h", 3: "w"}}
'''

#: The same choice written as `if`/`else`, both branches appending (the form without `continue`).
GRID_STRIDES_ELSE = GRID_STRIDES.replace(
    "        if clean:\n            found.append(whole)\n            continue\n        found.append(nominal[i])\n",
    "        if clean:\n            found.append(whole)\n        else:\n            found.append(nominal[i])\n")

#: eriklindernoren/PyTorch-YOLOv3 @ 1d621c8489e22c76ceb93bb2397ac6c8dfb5ceb7, pytorchyolo/models.py:161,
#: `YOLOLayer.forward(x, img_size)`: `stride = img_size // x.size(2)`, the grid's cells scaled by it.
FLOOR_STRIDE = '''import torch
import torch.nn.functional as F
from torch import nn


class Layer(nn.Module):
    def forward(self, x):
        y = F.avg_pool2d(x, 8, ceil_mode=True)
        stride = x.size(2) // y.size(2)
        ys = torch.arange(y.size(2), dtype=x.dtype).view(1, 1, -1, 1)
        return (y + ys) * stride


def build():
    return Layer()


def inputs(generator):
    return (torch.rand(1, 1, 32, 32, generator=generator),)


DYNAMIC = {"x": {2: "h", 3: "w"}}
'''

#: ultralytics/yolov5 @ 5081342f04fb287fc2e5f2b5a4e06752b7937b1c, models/yolo.py:252, and
#: ultralytics/ultralytics @ 88f0cebcfa965084d2899dfcdb22afffa29ea953, ultralytics/nn/tasks.py (`BaseModel`'s
#: `m.stride = torch.tensor([s / x.shape[-2] for x in _forward(torch.zeros(1, ch, s, s))])`): the ratio
#: measured once, at build, on a blank image of 256 px; `forward` reads the stored strides.
BUILD_STRIDE = '''import torch
import torch.nn.functional as F
from torch import nn


class Detect(nn.Module):
    def __init__(self):
        super().__init__()
        s = 64
        self.stride = torch.tensor([s / f.shape[-2] for f in self.levels(torch.zeros(1, 1, s, s))])

    def levels(self, x):
        return [F.avg_pool2d(x, 4), F.avg_pool2d(x, 8)]

    def forward(self, x):
        return torch.cat([(f * s).flatten(1) for f, s in zip(self.levels(x), self.stride)], 1)


def build():
    return Detect()


def inputs(generator):
    return (torch.rand(1, 1, 32, 32, generator=generator),)


DYNAMIC = {"x": {2: "h", 3: "w"}}
'''


def _exported(tmp_path: Path, name: str, code: str):
    """The variant written out and loaded, its TorchScript graph (traced at its example) and its facts."""
    path = tmp_path / f"{name}.py"
    path.write_text(code)
    module = load_variant(path, f"strides_{name}")
    model = module.build().eval()
    example = module.inputs(torch.Generator().manual_seed(0))
    session, traced = export_variant(model, example, module.DYNAMIC, tmp_path / f"{name}.onnx", tmp_path)
    return path, model, session, traced_facts(path, traced)


@pytest.mark.parametrize("code", [GRID_STRIDES, GRID_STRIDES_ELSE], ids=["continue", "else"])
def test_a_stride_chosen_by_a_branch_on_its_ratio_is_named_without_a_fix(tmp_path, code: str) -> None:
    """oriented-det: the export warns at `int(image_size[0])` and `int(lh)`; TRT712 names both with the branch
    they decide and no fix, so the file is left as it is (no candidate to verify and revert). The graph keeps
    the example's strides, [2, 4, 8] from 16 px: it agrees with eager mode at 24 px (maps 12, 6, 3: the same
    whole ratios) and not at 12 px (maps 6, 3, 2: eager mode accepts 12 / 2 = 6 at the last level). The bake
    is real and stays an error, with the step by hand."""
    path, model, session, facts = _exported(tmp_path, "grid_strides", code)
    options = Options(select=("TRT712",), facts=facts, scope="all", unsafe=True)
    found = check_source(code.encode(), str(path), options)
    assert [(f.line, f.fix) for f in found] == [(7, "none"), (7, "none"), (10, "none"), (10, "none")]
    assert all("decides `if clean:`, a branch that picks what the loop collects" in f.message for f in found)
    assert all("take it from the configuration instead of the sizes" in f.message for f in found)
    assert fix_source(code.encode(), str(path), options).source.decode() == code
    # eager mode's strides at 12 px are [2, 4, 6]: the graph keeps [2, 4, 8] from 16 px
    assert graph_matches(session, model, (torch.rand(1, 1, 24, 24),))
    assert not graph_matches(session, model, (torch.rand(1, 1, 12, 12),))


def test_the_rounded_ratio_without_a_branch_keeps_its_fix(tmp_path) -> None:
    """The same inference with the rounded ratio used as it is (no test picks it): no branch is decided, so
    TRT712 still offers its fix of the sizes, and eager mode is unchanged, bit for bit. (Its export then stops
    at `round` of the traced ratio, where `migrate` verifies the candidate and takes it back.)"""
    code = GRID_STRIDES.replace(
        "        if clean:\n            found.append(whole)\n            continue\n        found.append(nominal[i])\n",
        "        found.append(whole)\n")
    path, model, session, facts = _exported(tmp_path, "rounded_strides", code)
    options = Options(select=("TRT712",), facts=facts, scope="all", unsafe=True)
    found = check_source(code.encode(), str(path), options)
    assert found and all(f.fix == "unsafe" for f in found), [(f.line, f.fix, f.message) for f in found]
    after = fix_source(code.encode(), str(path), options).source.decode()
    assert "img_h, img_w = _trt_size_int(image_size[0]), _trt_size_int(image_size[1])" in after
    assert "lh, lw = _trt_size_int(lh), _trt_size_int(lw)" in after
    rewritten_path = tmp_path / "rounded_strides_rewritten.py"
    rewritten_path.write_text(after)
    rewritten = load_variant(rewritten_path, "strides_rounded_rewritten").build().eval()
    for side in (16, 12, 7, 1):
        for x in (torch.zeros(1, 1, side, side), -torch.rand(1, 1, side, side), torch.full((1, 1, side, side), 1e30)):
            assert_same(model(x), rewritten(x))
    assert not graph_matches(session, model, (torch.rand(1, 1, 12, 12),))  # the original's graph kept 8, not 6


@pytest.mark.parametrize(("name", "code", "other"), [("floor_stride", FLOOR_STRIDE, (1, 1, 37, 20)),
                                                     ("build_stride", BUILD_STRIDE, (1, 1, 48, 24))])
def test_strides_from_integer_division_or_from_the_build_bake_nothing(tmp_path, name: str, code: str,
                                                                       other: tuple[int, ...]) -> None:
    """YOLOv3's `img_size // x.size(2)` stays a traced division; YOLOv5's and YOLOv8's strides are measured
    at build, before any trace: no warning, no finding, and the graph follows eager mode at another size
    (37 px: maps of 5, a stride of 7)."""
    path, model, session, facts = _exported(tmp_path, name, code)
    options = Options(select=("TRT712",), facts=facts, scope="all", unsafe=True)
    assert check_source(code.encode(), str(path), options) == []
    assert graph_matches(session, model, (torch.rand(*other),))


#: Our own boundary cases of the branch test: a number read straight in the `if` that appends, and one
#: that only sizes a resize (a tensor comes out: the `if` after it tests the tensor, not the number).
PYRAMID = '''import torch
import torch.nn.functional as F
from torch import nn


class Pyramid(nn.Module):
    def forward(self, x: torch.Tensor):
        outs = []
        h = x.shape[2]
        for scale in (0.5, 0.25):
            if int(h * scale) > 1:
                outs.append(x[:, :, : int(h * scale)])
            y = F.interpolate(x, size=int(h * scale))
            if y.shape[1] > 1:
                outs.append(y)
        return outs
'''


def test_a_number_tested_by_the_branch_itself_has_no_fix_and_a_resized_tensor_keeps_it(tmp_path) -> None:
    """The `int(h * scale)` in `if int(h * scale) > 1:` decides what the loop collects: named, no fix. The
    same number in the crop under it and in `F.interpolate(...)` is rewritten: the `if y.shape[1] > 1` after
    the resize tests the tensor it made, not the number."""
    path = tmp_path / "pyramid.py"
    path.write_text(PYRAMID)
    options = Options(select=("TRT712",), scope="all", unsafe=True)
    found = check_source(PYRAMID.encode(), str(path), options)
    assert [(f.line, f.fix) for f in found] == [(11, "none"), (12, "unsafe"), (13, "unsafe")]
    assert "decides `if int(h * scale) > 1:`" in found[0].message
    after = fix_source(PYRAMID.encode(), str(path), options).source.decode()
    assert "            if int(h * scale) > 1:\n" in after
    assert "outs.append(x[:, :, : _trt_size_int(h * scale)])" in after
    assert "y = F.interpolate(x, size=_trt_size_int(h * scale))" in after
    rewritten_path = tmp_path / "pyramid_rewritten.py"
    rewritten_path.write_text(after)
    before = load_variant(path, "strides_pyramid").Pyramid()
    rewritten = load_variant(rewritten_path, "strides_pyramid_rewritten").Pyramid()
    for shape in [(1, 2, 8), (2, 1, 5), (1, 3, 4), (0, 2, 6)]:
        for fill in (0.0, -2.5, float("-inf"), float("nan")):
            assert_same(before(torch.full(shape, fill)), rewritten(torch.full(shape, fill)))
        x = torch.randn(shape)
        assert_same(before(x), rewritten(x))
    for side in (1, 2, 3):  # a size of 0 for the resize: the same error either way
        with pytest.raises(RuntimeError, match="Input and output sizes should be greater than 0"):
            before(torch.zeros(1, 2, side))
        with pytest.raises(RuntimeError, match="Input and output sizes should be greater than 0"):
            rewritten(torch.zeros(1, 2, side))


def test_migrate_names_the_branch_at_the_users_lines_and_reverts_nothing(tmp_path) -> None:
    """End to end on the oriented-det variant: `migrate` locates the two bakes (`int(image_size[0])`,
    `int(lh)`), plans no TRT712 candidate (the zoo's run verified and took back four of them), and leaves
    them as errors that name `if clean:` with the step by hand. Its second trace, at 33 px, finds the same
    graph (33 px takes the fallback at every level, as 16 px's whole ratios give the same strides), which
    does not vouch for 12 px, where the graph differs (the first test): the bakes stay errors, and say why."""
    import json

    from typer.testing import CliRunner

    from trtcodemod.cli import app

    path = tmp_path / "grid_strides.py"
    path.write_text(GRID_STRIDES)
    result = CliRunner().invoke(app, ["migrate", str(path), "--model", "build", "--inputs", "inputs",
                                      "--dynamic-axes", json.dumps({"x": {"2": "h", "3": "w"}}), "--format", "json",
                                      "--runs", "1", "--warmup", "0", "--backends", "torch-cpu,onnxruntime-cpu"])
    [report] = json.loads(result.stdout)["models"]
    assert result.exit_code == 1 and report["reverted"] == [] and report["applied"] == []
    named = [(Path(r["source"]).name, r["rule"], r["severity"]) for r in report["remaining"]
             if "decides `if clean:`" in r["message"]]
    assert sorted(set(named)) == [("grid_strides.py:10", "TRT712", "error"), ("grid_strides.py:7", "TRT712", "error")]
    assert report["retrace"]["same"] is True
    assert all("the traced sizes do not vouch for it" in r["message"] for r in report["remaining"]
               if "decides `if clean:`" in r["message"])


def test_no_sampled_verdict_vouches_for_the_branch_but_fixed_sizes_do() -> None:
    """The verdicts that sample sizes (the original's same graph, the rewritten model's, the same numbers at
    both traces) leave the bake an error, also after an earlier verdict in the message (zoo 29's FCOS: the
    original's graph differed elsewhere, the rewritten model's was the same); "no dynamic axis" is a fact
    about every input and keeps its warning; another rule's finding is not concerned."""
    from types import SimpleNamespace

    from trtcodemod.migrate.locate import STEADY, Problem
    from trtcodemod.migrate.run import _unvouched
    from trtcodemod.transforms.baked_shapes import COLLECTING_BRANCH

    branch = SimpleNamespace(finding=SimpleNamespace(message=f"`int(fh)` ... decides `if clean:`, {COLLECTING_BRANCH}"))
    other = SimpleNamespace(finding=SimpleNamespace(message="`int(fh)` turns a traced size into a Python number"))

    def bake(message: str, severity: str = "warning") -> Problem:
        return Problem("baked", "utils.py", 506, "(traced constant)", None, message, severity, "torchscript")

    sampled = ["value baked; same graph at x[2] (h) 16 and 33: the value does not depend on the dynamic axes",
               "value baked; the graph traced at x[2] (h) 96 and 193 differs (first at a TopK node); the rewritten "
               "model's graph traced at x[2] (h) 96 and 193 is the same: the value does not depend on the dynamic axes",
               f"value baked; {STEADY} x[2] (h) 16 and 33: it does not depend on the dynamic axes"]
    assert all(_unvouched(branch, [bake(m)]) for m in sampled)
    assert not any(_unvouched(other, [bake(m)]) for m in sampled)
    assert not _unvouched(branch, [bake(sampled[0], "error")])  # an error already: nothing to keep
    assert not _unvouched(branch, [bake("value baked; no dynamic axis is declared: every input size is fixed")])


def test_a_branch_outside_a_loop_is_no_loops_choice() -> None:
    """transformers' DepthPro `merge_patches` (huggingface/transformers, models/depth_pro/modeling_depth_pro.py:126,
    transformers 5.24.0 on PyPI): `padding = min(out_size // 4, padding)`, then `if padding == 0:`
    one merge, else another that appends rows. No loop picks its items there: TRT712 keeps its fix."""
    code = ("import torch\nfrom torch import nn\n\n\nclass Merge(nn.Module):\n"
            "    def forward(self, x: torch.Tensor, padding: int = 1):\n"
            "        padding = min(x.shape[-1] // 4, padding)\n"
            "        if padding == 0:\n            return x\n        else:\n"
            "            rows = []\n            for i in range(2):\n                rows.append(x[..., padding:])\n"
            "            return torch.cat(rows, -1)\n")
    after = fix_source(code.encode(), "snippet.py", Options(select=("TRT712",), unsafe=True)).source.decode()
    assert "padding = _trt_size_min(x.shape[-1] // 4, padding)" in after
    namespace_before: dict = {}
    namespace_after: dict = {}
    exec(compile(code, "before.py", "exec"), namespace_before)
    exec(compile(after, "after.py", "exec"), namespace_after)
    for shape in [(1, 8), (2, 3), (1, 0)]:
        for x in (torch.zeros(shape), -torch.rand(shape), torch.full(shape, float("nan"))):
            assert_same(namespace_before["Merge"]()(x), namespace_after["Merge"]()(x))
