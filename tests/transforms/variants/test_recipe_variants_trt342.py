"""The whole-window pooling recipe (TRT342) on real-code variants.

Each variant in ``tests/recipe_variants/trt342/`` is a small runnable model reduced from a public repository
or the zoo's pinned copy (cited in its docstring), with the pooling written as its authors write it:
mamaheux's ``GlobalAvgPool2d`` (``F.avg_pool2d(x, (x.data.size()[2], x.data.size()[3]))``), the DeepStream
exercise's ``GlobalAvgPool2d`` (``N, C, H, W`` bound from ``x.data.size(i)``, ``avg_pool2d`` imported bare,
``x`` rebound to the result), AlignedReID's ``HorizontalMaxPool2d`` (``input_size = x.size()``, then
``nn.functional.max_pool2d(input=x, kernel_size=(1, input_size[3]))``: strip max pooling over the width) and
boxmot's HACNN attention (``F.avg_pool2d(x, x.size()[2:])`` three ways, one in a loop over regions) and
Dive into Deep Learning's ``GlobalAvgPool2d`` under its NiN (``F.avg_pool2d(x, kernel_size=x.size()[2:])``,
the window by keyword) and jaxony's ShuffleNet head (``F.avg_pool2d(x, x.data.size()[-2:])``, the last two
sizes counted from the end, through ``x.data``). The
TorchScript export of each original stops ("Failed to export a node ... because it is not constant"), with
the batch alone dynamic too.

``migrate`` applies TRT342 at every pooling call of AlignedReID's, HACNN's and the NiN's, and at nothing else, in one
round (the export stops at the first call; the others of the file are applied with it), and ends with exit 0, the
rewritten model equivalent. The four with a dynamic height and width are also rewritten from the code alone
and exported directly: the graph equals eager mode at other sizes (a 1x1 map, one row, a tall or wide one) and
on edge values (inf, NaN, -inf), and eager mode is unchanged. So is LibMultiLabel's XML-CNN (the TRT602
variant) with one pool, ``F.max_pool1d(h_sub, h_sub.shape[2])``, whose original exports its traced length as
the kernel.

Not taken by ``migrate``: two of the three variants that read the sizes through ``x.data``. The TorchScript exporter sees
Python ints there: the original exports, with no warning, its window baked at the traced size, and its graph
is wrong at other sizes (shown below). The rule takes them from the code alone (its rewrite reduces the whole
axes at every size), but ``migrate`` does not locate them: its verifier grows each dynamic axis by one, which
after mamaheux's stride-2 convolution leaves the pooled size as traced (the graph is judged faithful), and for
the DeepStream head it locates the difference at ``N = x.data.size(0)``, a line no rule takes (exit 1). For the
ShuffleNet head it locates the pooling line: its first round applies TRT354 there (``.data``'s sizes read from the
tensor), after which the export stops at the pooling, and its second applies TRT342, whose edit of the line lands
instead of TRT354's: exit 0, equivalent, in two rounds (so it is not among the one-round migrations below).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from support import migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, built_variant, export_variant, graph_matches,
                            load_variant, seeded, with_specials)
from variant_models import axes_json as _axes_json

from trtcodemod.engine import Options, check_source, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt342"
CODE_ALONE = Options(select=("TRT342",), scope="all")

#: Variants whose window is read through ``x.data``: the TorchScript exporter sees Python ints there.
READ_THROUGH_DATA = ("mamaheux_global_avg_pool_data_size", "cycoslee_deepstream_global_avg_pool",
                     "jaxony_shufflenet_global_pool_data_tail")

#: variant -> (the calls, as written; the text the rule writes for them).
MIGRATED: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "mamaheux_global_avg_pool_data_size": (
        ("return F.avg_pool2d(x, (x.data.size()[2], x.data.size()[3]))",),
        ("return _trt_whole_avg_pool2d(x, (x.data.size()[2], x.data.size()[3]), whole=(2, 3))",)),
    "cycoslee_deepstream_global_avg_pool": (
        ("x = avg_pool2d(x, (H, W))",), ("x = _trt_whole_avg_pool2d(x, (H, W), whole=(2, 3))",)),
    "alignedreid_horizontal_max_pool": (
        ("return nn.functional.max_pool2d(input=x, kernel_size=(1, input_size[3]))",),
        ("return _trt_whole_max_pool2d(input=x, kernel_size=(1, input_size[3]), whole=(None, 3))",)),
    "boxmot_hacnn_attention": (
        ("x = F.avg_pool2d(x, x.size()[2:])\n",
         "x = F.avg_pool2d(x, x.size()[2:]).view(x.size(0), x.size(1))",
         "x_local_i = F.avg_pool2d(x_local_i, x_local_i.size()[2:])"),
        ("x = _trt_whole_avg_pool2d(x, x.size()[2:], whole=(2, 3))",
         "x = _trt_whole_avg_pool2d(x, x.size()[2:], whole=(2, 3)).view(x.size(0), x.size(1))",
         "x_local_i = _trt_whole_avg_pool2d(x_local_i, x_local_i.size()[2:], whole=(2, 3))")),
    "d2l_nin_global_avg_pool_kernel_size": (
        ("return F.avg_pool2d(x, kernel_size=x.size()[2:])",),
        ("return _trt_whole_avg_pool2d(x, kernel_size=x.size()[2:], whole=(2, 3))",)),
    "jaxony_shufflenet_global_pool_data_tail": (
        ("x = F.avg_pool2d(x, x.data.size()[-2:])",), ("x = _trt_whole_avg_pool2d(x, x.data.size()[-2:], whole=(-2, -1))",)),
}


def _line(path: Path, call: str) -> int:
    lines = [i for i, text in enumerate(path.read_text().splitlines(keepends=True), 1)
             if call in text and "``" not in text]
    assert len(lines) == 1, (call, lines)
    return lines[0]


@pytest.mark.parametrize("name", [n for n in MIGRATED if n not in READ_THROUGH_DATA])
def test_migrate_applies_the_rule_and_ends_equivalent(name: str) -> None:
    calls, written = MIGRATED[name]
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt342_m_{name}")
    lines = sorted(_line(path, call) for call in calls)
    found = check_source(path.read_bytes(), str(path.resolve()), CODE_ALONE)
    assert sorted(f.line for f in found) == lines and all(f.edit is not None for f in found)  # from the code alone
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["exported"] is False, report["before"]
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert sorted(line for rule, line in applied if rule == "TRT342") == lines, applied
    assert {rule for rule, _ in applied} == {"TRT342"}, applied
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert len(report["rounds"]) == 1, report["rounds"]
    assert report["after"]["exported"] is True and report["after"]["faithful"] is True
    added = [line for line in report["diff"].splitlines() if line.startswith("+")]
    for text in written:
        assert any(text in line for line in added), report["diff"]


#: variant -> the input sets the graph is compared on (beyond the example).
DIRECT = {
    "mamaheux_global_avg_pool_data_size": {
        "smallest": (torch.randn(1, 3, 3, 3, generator=seeded(1)),),
        "tall": (torch.randn(3, 3, 31, 5, generator=seeded(2)),),
        "edge-values": (with_specials((2, 3, 9, 11), 3),),
    },
    "cycoslee_deepstream_global_avg_pool": {  # the batch is static (3)
        "smallest": (torch.randn(3, 3, 1, 1, generator=seeded(1)),),
        "tall": (torch.randn(3, 3, 33, 6, generator=seeded(2)),),
        "edge-values": (with_specials((3, 3, 5, 7), 3),),
    },
    "alignedreid_horizontal_max_pool": {
        "tall": (torch.randn(2, 3, 30, 5, generator=seeded(4)),),
        "one-column": (torch.randn(1, 3, 7, 1, generator=seeded(1)),),
        "one-row": (torch.randn(2, 3, 1, 9, generator=seeded(2)),),
        "wide": (torch.randn(1, 3, 4, 40, generator=seeded(3)),),
        "edge-values": (with_specials((2, 3, 6, 6), 4) * 1e30,),
    },
    "d2l_nin_global_avg_pool_kernel_size": {
        "smallest": (torch.randn(1, 3, 1, 1, generator=seeded(5)),),
        "one-row": (torch.randn(3, 3, 1, 17, generator=seeded(6)),),
        "tall": (torch.randn(2, 3, 29, 4, generator=seeded(7)),),
        "zeros": (torch.zeros(2, 3, 6, 6),),
        "negatives": (-torch.rand(2, 3, 8, 5, generator=seeded(8)) * 3,),
        "edge-values": (with_specials((2, 3, 7, 9), 9),),
    },
    "jaxony_shufflenet_global_pool_data_tail": {
        "smallest": (torch.randn(1, 3, 1, 1, generator=seeded(10)),),
        "tall": (torch.randn(3, 3, 45, 9, generator=seeded(11)),),
        "zeros": (torch.zeros(2, 3, 8, 8),),
        "negatives": (-torch.rand(2, 3, 11, 7, generator=seeded(12)) * 9,),
        # No inf/NaN: the stem's convolution turns them into NaN, which its MaxPool propagates in eager mode
        # and ONNX Runtime's MaxPool skips, before the pooling the rule rewrites.
    },
}


@pytest.mark.parametrize("name", list(DIRECT))
def test_rewritten_from_the_code_alone_exports_and_equals_eager(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt342_{name}")
    example = module.inputs(seeded(0))
    if name in READ_THROUGH_DATA:
        # the sizes read through `x.data` are Python ints while tracing: the window is baked, with no warning, and
        # the graph is wrong at every other size (or refuses it)
        baked = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", tmp_path)[0]
        assert not graph_matches(baked, original, DIRECT[name]["tall"])
    else:
        with pytest.raises(Exception, match="not constant"):
            export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", tmp_path)

    new_source = fix_source(path.read_bytes(), str(path.resolve()), CODE_ALONE).source.decode()
    for text in MIGRATED[name][1]:
        assert text in new_source, new_source
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(new_source)
    _, rewritten = built_variant(new_path, f"trt342_rewritten_{name}")
    rewritten.load_state_dict(original.state_dict())

    session = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)[0]
    others = DIRECT[name]
    for label, inputs in {"example": example, **others}.items():
        assert_graph_within(session, original, inputs, 1e-5, label)
    assert_eager_unchanged(original, rewritten, {"example": example, **others})


def test_libmultilabel_xml_cnn_max_pool_over_the_whole_length(tmp_path: Path) -> None:
    """LibMultiLabel's XML-CNN (the TRT602 variant, tests/recipe_variants/trt602/) with ``num_pool=1`` takes the other
    branch of its encoder: ``F.max_pool1d(h_sub, h_sub.shape[2])``, a maximum over the whole text length per
    filter. The original exports, with no warning, a 1-D MaxPool whose kernel is the traced length: at another
    length its graph fails (or, at a multiple, would pool several windows). The rewrite, from the code alone,
    exports a ReduceMax (no 1-D MaxPool, which TensorRT refuses too) that equals eager mode at other lengths and
    batch sizes."""
    import onnx

    path = HERE.parent / "trt602" / "libmultilabel_xmlcnn_encoder.py"
    module = load_variant(path, "trt342_libmultilabel")
    new_source = fix_source(path.read_bytes(), str(path.resolve()), CODE_ALONE).source.decode()
    assert "                h_sub = _trt_whole_max_pool1d(h_sub, h_sub.shape[2], whole=(2,))\n" in new_source
    new_path = tmp_path / "libmultilabel_rewritten.py"
    new_path.write_text(new_source)
    rewritten_module = load_variant(new_path, "trt342_libmultilabel_rewritten")
    torch.manual_seed(0)
    original = module.XMLCNN(num_pool=1).eval()
    rewritten = rewritten_module.XMLCNN(num_pool=1).eval()
    rewritten.load_state_dict(original.state_dict())
    example = module.inputs(seeded(0))
    baked, traced = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", tmp_path)
    assert traced == []  # no warning: the 1-D symbolic takes the traced size as a constant kernel
    assert not graph_matches(baked, original, (torch.randint(1, 30, (3, 40), generator=seeded(2)),))
    session = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)[0]
    ops = {node.op_type for node in onnx.load(str(tmp_path / "after.onnx")).graph.node}
    assert "ReduceMax" in ops and "MaxPool" not in ops
    sets = {"example": example, "shortest": (torch.randint(1, 30, (1, 4), generator=seeded(1)),),
            "long": (torch.randint(1, 30, (3, 40), generator=seeded(2)),),
            "padding-only": (torch.zeros(2, 9, dtype=torch.long),)}
    for label, inputs in sets.items():
        assert_graph_within(session, original, inputs, 1e-5, label)
    assert_eager_unchanged(original, rewritten, sets)
