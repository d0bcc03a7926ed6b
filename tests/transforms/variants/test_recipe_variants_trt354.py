"""The detached-sizes recipe (TRT354) on real-code variants.

Each variant in ``tests/recipe_variants/trt354/`` is a small runnable model reduced from real code
(cited in its docstring) that reads sizes through ``.data``: nanodet's ShuffleNetV2 ``channel_shuffle``,
LightWeightCNN's ``ChannelShuffle`` module, Efficient-3DCNNs' 5-D video shuffle and Group-WSSS's
ConvGRU cell, whose zero state takes ``input_.data.size()[0]`` and ``input_.data.size()[2:]``;
a Darknet passthrough (andy-yun's YOLOv3 port: ``Reorg`` and ``GlobalAvgPool2d`` each read
``x.data.size(0)`` ... ``x.data.size(3)`` one by one) and jaxony's ShuffleNet head, whose global pooling
window is ``x.data.size()[-2:]``.

The TorchScript export keeps the traced sizes and warns nowhere: at another batch, height or width
ONNX Runtime refuses the ``Reshape`` (or the zero state's ``Concat``). ``migrate`` traces again at other
sizes because the code holds a finding of a rule whose bake is silent, ties the first changed node to
the finding and applies TRT354, ending with exit 0 (where the sizes make a pooling window, TRT342 takes
the pooling too: a window from traced sizes is no constant). Rewritten from the code alone, each graph
equals eager mode at other sizes and on edge values, and eager mode is unchanged.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from support import migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, built_variant, export_variant, load_variant,
                            seeded, with_specials)
from variant_models import axes_json as _axes_json, line_of as _line_of

from trtcodemod.engine import Options, check_source, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt354"
CODE_ALONE = Options(select=("TRT354",), scope="all")
#: variants whose sizes also make a pooling window over the whole map, which TRT342 takes.
WITH_POOLING = Options(select=("TRT354", "TRT342"), scope="all")
POOLED = {"yolov3_darknet_reorg", "jaxony_shufflenet_head"}

#: variant -> the text of the first line TRT354 takes and how many calls the file holds.
CALLS: dict[str, tuple[str, int]] = {
    "nanodet_channel_shuffle": ("x.data.size()", 1),
    "lightweightcnn_shuffle_module": ("x.data.size()", 1),
    "video_channel_shuffle_3d": ("x.data.size()", 1),
    "group_wsss_convgru": ("input_.data.size()[0]", 2),
    "yolov3_darknet_reorg": ("n = x.data.size(0)", 8),
    "jaxony_shufflenet_head": ("x.data.size()", 2),
}


def _sets(name: str) -> dict[str, tuple[torch.Tensor, ...]]:
    """Other sizes of the dynamic axes and edge values (zeros, negatives, infinities and NaN)."""
    if name == "video_channel_shuffle_3d":
        return {"batch-1": (torch.randn(1, 8, 2, 5, 9, generator=seeded(1)),),
                "larger": (torch.randn(3, 8, 4, 7, 4, generator=seeded(2)),),
                "zeros": (torch.zeros(2, 8, 3, 6, 7),), "specials": (with_specials((2, 8, 3, 4, 5), 3),)}
    if name == "yolov3_darknet_reorg":  # even heights and widths: the reorganisation takes 2x2 blocks
        return {"batch-1": (torch.randn(1, 3, 6, 20, generator=seeded(1)),),
                "larger": (torch.randn(3, 3, 16, 10, generator=seeded(2)),),
                "zeros": (torch.zeros(2, 3, 4, 4),),
                "negatives": (-torch.rand(2, 3, 6, 14, generator=seeded(3)),),
                "specials": (with_specials((2, 3, 6, 8), 4),)}
    channels = {"nanodet_channel_shuffle": 8, "lightweightcnn_shuffle_module": 6, "group_wsss_convgru": 3,
                "jaxony_shufflenet_head": 6}[name]
    return {"batch-1": (torch.randn(1, channels, 7, 20, generator=seeded(1)),),
            "larger": (torch.randn(3, channels, 16, 9, generator=seeded(2)),),
            "zeros": (torch.zeros(2, channels, 5, 5),),
            "negatives": (-torch.rand(2, channels, 6, 13, generator=seeded(3)),),
            "specials": (with_specials((2, channels, 6, 8), 4),)}


@pytest.mark.parametrize("name", list(CALLS))
def test_migrate_applies_the_rule_where_the_sizes_are_baked(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt354_m_{name}")
    call, count = CALLS[name]
    line = _line_of(path, call)
    found = check_source(path.read_bytes(), str(path.resolve()), CODE_ALONE)
    assert len(found) == count and found[0].line == line, [(f.line, f.message) for f in found]
    report = migrate_json(path, _axes_json(module))
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["exported"] is True and report["after"]["faithful"] is True
    assert report["before"]["faithful"] is False, report["before"]  # the original's graph keeps the sizes
    assert ("TRT354", line) in applied, applied
    assert "_trt_sized_data(" in report["diff"]


@pytest.mark.parametrize("name", list(CALLS))
def test_rewritten_from_the_code_alone_exports_and_equals_eager(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt354_{name}")
    example = module.inputs(seeded(0))
    options = WITH_POOLING if name in POOLED else CODE_ALONE
    new_source = fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()
    assert new_source.count("_trt_sized_data(") == CALLS[name][1] + 1, new_source  # the calls and the def
    code = new_source.split('"""', 2)[2]  # after the module docstring, which cites the line
    assert ".data.size()" not in code and ".data.shape" not in code
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(new_source)
    _, rewritten = built_variant(new_path, f"trt354_rewritten_{name}")
    rewritten.load_state_dict(original.state_dict())
    before, _ = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", tmp_path)
    with pytest.raises((AssertionError, Exception)):  # noqa: B017 - a refused Reshape/Concat, or other values
        for label, inputs in _sets(name).items():
            assert_graph_within(before, original, inputs, 1e-5, label)
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    for label, inputs in {"example": example, **_sets(name)}.items():
        assert_graph_within(session, original, inputs, 1e-5, label)
    assert_eager_unchanged(original, rewritten, {"example": example, **_sets(name)})
