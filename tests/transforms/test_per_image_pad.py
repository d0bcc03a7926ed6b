"""TRT393: each image's rows of a per-image list capped, padded with zeros to a fixed count and stacked.

The rewrite as text (the forms taken: ``new_zeros`` of separate sizes or one tuple, ``len``/``size(0)``/``shape[0]``,
``F.pad`` positional or by keyword, and without a cap, its negative width cropping; the stack assigned or along
``dim=0``; the preallocated form, each image's padded rows written by its index into zeros made before the loop;
a fill other than zero; what is left alone), the helper against the loop on real tensors
(an image with no rows, with fewer rows than the cap, with more; NaN and infinities; no row at all), eager mode
unchanged, the exported graphs of the taken variants (``tests/recipe_variants/trt393/``: YOLOv7's NMS with the
appended padding, Super Gradients' padding into zeros by index) equal to eager mode at other batches where the
original's graph is not, a script compiling none of it, and ``migrate`` applying TRT360 and TRT393 together to end
at exit 0.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch
from support import rewrite, rules_found
from variant_models import TORCHVISION_STANDIN as STANDIN
from variant_models import (assert_cited_by_distinct_owners, assert_follows_the_batch, built_variant, line_of,
                            load_variant, migrate_with_standin, seeded)

from trtcodemod.engine import Options, fix_source
from trtcodemod.helpers.per_image import _TrtPerImageList, _trt_padded_by_image

RULE = ("TRT393",)
VARIANTS_DIR = Path(__file__).resolve().parents[1] / "recipe_variants" / "trt393"
VARIANT = VARIANTS_DIR / "yolov7_nms_padded_rows.py"
# The variants whose padding loop TRT393 takes: (file, the rewritten stack, the padding loop's line as written).
TAKEN = {
    "yolov7_nms_padded_rows.py": ("return _trt_padded_by_image(detections, self.max_det)",
                                  "        for det in detections:"),
    "super_gradients_flat_to_batched_pad.py": (
        "batched_predictions = _trt_padded_by_image(detections, self.max_det).to(batched_predictions)",
        "        for i in range(len(detections)):"),
    # the fused form: one loop over the batch makes each image's rows and pads them into the zeros (TRT360 takes it)
    "ultralytics_nms_model_pad_into_out.py": (
        "out = _trt_padded_by_image(_trt_padded_rows, self.max_det).to(out)", "        for i in range(bs):"),
}
#: The taken variants whose one loop runs the NMS and pads (TRT360's rewrite pads, TRT393 has no loop of its own).
FUSED = ("ultralytics_nms_model_pad_into_out.py",)
# Real code of the same meaning in a form the rule does not take (yet): each variant's docstring cites its source
# and says what differs; a confidence filter makes their per-image list.
NOT_TAKEN = ("lxmert_frcnn_pad_list_tensors.py", "ethology_ensemble_pad_nan.py")
torchvision_standin = load_variant(STANDIN, "torchvision_standin_trt393")

LOOP = """import torch
import torch.nn.functional as F


def padded(detections, k):
    rows = []
    for det in detections:
        det = det[:k]
        rows.append({pad})
    {stack}
"""
PADS = {
    "new_zeros": "torch.cat([det, det.new_zeros(k - det.shape[0], 6)])",
    "tuple": "torch.cat((det, det.new_zeros((k - len(det), 6))), 0)",
    "size": "torch.cat([det, det.new_zeros(k - det.size(0), 6)], dim=0)",
    "F.pad": "F.pad(det, (0, 0, 0, k - det.shape[0]))",
    # LXMERT's `pad_list_tensors` spelling: every argument by keyword, the mode and the zero fill written out
    "F.pad keywords": 'F.pad(input=det, pad=(0, 0, 0, k - len(det)), mode="constant", value=0)',
}


@pytest.mark.parametrize("pad", sorted(PADS))
@pytest.mark.parametrize("stack", ["return torch.stack(rows)", "out = torch.stack(rows, dim=0)\n    return out"])
def test_the_rewrite(pad: str, stack: str) -> None:
    code = LOOP.format(pad=PADS[pad], stack=stack)
    assert rules_found(code, select=RULE) == ["TRT393"]
    assert rewrite(code, select=RULE) == code  # unsafe: nothing without --unsafe
    after = rewrite(code, select=RULE, unsafe=True)
    statement = stack.split("\n")[0].replace("torch.stack(rows, dim=0)", "_trt_padded_by_image(detections, k)")
    statement = statement.replace("torch.stack(rows)", "_trt_padded_by_image(detections, k)")
    assert ("    _trt_flat = None\n    if not torch.jit.is_scripting() and _trt_tracing():\n"
            "        _trt_flat = _trt_flat_rows(detections)\n    if _trt_flat is not None:\n"
            f"        {statement}\n    else:\n        for det in detections:\n") in after, after
    assert rules_found(after, select=RULE) == []
    assert rewrite(after, select=RULE, unsafe=True) == after


def test_a_loop_without_a_cap_is_named_only() -> None:
    # eager mode raises where an image has more rows than `k`; the padded tensor would cap them
    code = LOOP.format(pad=PADS["new_zeros"], stack="return torch.stack(rows)").replace("        det = det[:k]\n", "")
    assert rules_found(code, select=RULE) == ["TRT393"]
    assert rewrite(code, select=RULE, unsafe=True) == code


@pytest.mark.parametrize("pad", ["F.pad(det, (0, 0, 0, k - det.shape[0]))",
                                 "F.pad(input=det, pad=[0, 0, 0, k - det.size(0)], value=0.0)"])
def test_f_pad_caps_the_rows_by_itself(pad: str) -> None:
    """A negative width crops: `F.pad(det, (0, 0, 0, k - n))` is `det[:k]` padded to `k` for every `n`, so the loop
    needs no `det = det[:k]` (Ultralytics' `NMSModel` pads so, after a cap the NMS made)."""
    code = LOOP.format(pad=pad, stack="return torch.stack(rows)").replace("        det = det[:k]\n", "")
    assert rules_found(code, select=RULE) == ["TRT393"]
    after = rewrite(code, select=RULE, unsafe=True)
    assert ("    if _trt_flat is not None:\n        return _trt_padded_by_image(detections, k)\n    else:\n"
            "        for det in detections:\n            rows.append(") in after, after
    assert rewrite(after, select=RULE, unsafe=True) == after


@pytest.mark.parametrize("code", [
    # padded with something else than a constant, or a fill the helper does not read (a call, the loop's rows)
    LOOP.format(pad='F.pad(det, (0, 0, 0, k - det.shape[0]), mode="reflect")', stack="return torch.stack(rows)"),
    LOOP.format(pad="F.pad(det, (0, 0, 0, k - det.shape[0]), value=fill())", stack="return torch.stack(rows)"),
    LOOP.format(pad='F.pad(det, (0, 0, 0, k - det.shape[0]), value=float("1.5"))', stack="return torch.stack(rows)"),
    LOOP.format(pad="F.pad(det, (0, 0, 0, k - det.shape[0]), value=det.min)", stack="return torch.stack(rows)"),
    # an argument the call does not have, or the widths twice
    LOOP.format(pad="F.pad(det, (0, 0, 0, k - det.shape[0]), pad=(0, 0))", stack="return torch.stack(rows)"),
    # without a cap, a count made from the rows
    LOOP.format(pad="F.pad(det, (0, 0, 0, len(det) + 1 - det.shape[0]))", stack="return torch.stack(rows)")
        .replace("        det = det[:k]\n", ""),
    # the cap and the padding disagree
    LOOP.format(pad=PADS["new_zeros"].replace("k - det", "m - det"), stack="return torch.stack(rows)"),
    # padded along another axis
    LOOP.format(pad="F.pad(det, (0, k - det.shape[0]))", stack="return torch.stack(rows)"),
    LOOP.format(pad="torch.cat([det, det.new_zeros(k - det.shape[0], 6)], 1)", stack="return torch.stack(rows)"),
    # the rows read after the stack, a cap made from them, a stack along another axis
    LOOP.format(pad=PADS["new_zeros"], stack="out = torch.stack(rows)\n    return out, rows"),
    LOOP.format(pad=PADS["new_zeros"], stack="return torch.stack(rows)").replace("det[:k]", "det[:len(det) - 1]")
        .replace("k - det.shape[0]", "len(det) - 1 - det.shape[0]"),
    LOOP.format(pad=PADS["new_zeros"], stack="return torch.stack(rows, 1)"),
    # not zeros
    LOOP.format(pad="torch.cat([det, det.new_ones(k - det.shape[0], 6)])", stack="return torch.stack(rows)"),
])
def test_other_loops_are_left_alone(code: str) -> None:
    assert rules_found(code, select=RULE) == []


FILLED = """import torch
import torch.nn.functional as F


def padded(detections, k):
    {made}
    {loop}
{body}    return out
"""
ENUMERATE = "for i, det in enumerate(detections):"
BY_INDEX = "for i in range(len(detections)):\n        det = detections[i]"
# The preallocated forms: (allocation, loop header, body): Ultralytics' `NMSModel` binds the widths to `pad` first,
# Super Gradients' `ConvertFlatTensorToTRTFormat` picks image `i`'s rows by index and pads them by keyword.
FILLED_FORMS = {
    "F.pad": ("out = torch.zeros((len(detections), k, 6))", ENUMERATE,
              "        out[i] = F.pad(det, (0, 0, 0, k - det.shape[0]))\n"),
    "widths bound": ("out = torch.zeros(len(detections), k, 6, dtype=torch.float64)", ENUMERATE,
                     "        pad = (0, 0, 0, k - det.shape[0])\n        out[i] = torch.nn.functional.pad(det, pad)\n"),
    "by index, keywords": ("out = torch.zeros((len(detections), k, 6), dtype=torch.float32)", BY_INDEX,
                           "        out[i] = torch.nn.functional.pad(\n"
                           "            det, (0, 0, 0, k - det.size(0)), value=0, mode=\"constant\"\n        )\n"),
    "cap, slice": ("out = detections[0].new_zeros((len(detections), k, 6))", ENUMERATE,
                   "        det = det[:k]\n        out[i, :len(det)] = det\n"),
    "cap, cat": ("out = torch.zeros([len(detections), k, 6])", BY_INDEX,
                 "        det = det[:k]\n        out[i] = torch.cat([det, det.new_zeros(k - det.shape[0], 6)])\n"),
}


def _filled(form: str) -> str:
    made, loop, body = FILLED_FORMS[form]
    return FILLED.format(made=made, loop=loop, body=body)


@pytest.mark.parametrize("form", sorted(FILLED_FORMS))
def test_the_preallocated_rewrite(form: str) -> None:
    code = _filled(form)
    assert rules_found(code, select=RULE) == ["TRT393"]
    assert rewrite(code, select=RULE) == code  # unsafe: nothing without --unsafe
    after = rewrite(code, select=RULE, unsafe=True)
    made, loop, _ = FILLED_FORMS[form]
    assert (f"    {made}\n    _trt_flat = None\n    if not torch.jit.is_scripting() and _trt_tracing():\n"
            "        _trt_flat = _trt_flat_rows(detections)\n    if _trt_flat is not None:\n"
            "        out = _trt_padded_by_image(detections, k).to(out)\n    else:\n"
            f"        {loop.replace(chr(10) + '        ', chr(10) + '            ')}\n") in after, after
    assert after.endswith("    return out\n")
    assert rules_found(after, select=RULE) == []
    assert rewrite(after, select=RULE, unsafe=True) == after


@pytest.mark.parametrize("code", [
    # the zeros' second size is not the count, or there are two axes only, or ones
    _filled("F.pad").replace("torch.zeros((len(detections), k, 6))", "torch.zeros((len(detections), k + 1, 6))"),
    _filled("F.pad").replace("torch.zeros((len(detections), k, 6))", "torch.zeros((len(detections), k))"),
    _filled("F.pad").replace("torch.zeros(", "torch.ones("),
    _filled("F.pad").replace("torch.zeros((len(detections), k, 6))", "torch.zeros((len(detections), k, 6), out=buf)"),
    # without a cap, `torch.cat` and the slice raise in eager mode where the rows outnumber `k`: nothing to take
    _filled("cap, slice").replace("        det = det[:k]\n", ""),
    _filled("cap, cat").replace("        det = det[:k]\n", ""),
    # the cap is not the zeros' count; the slice is not the rows' count; the rows written are not the entry
    _filled("cap, slice").replace("det = det[:k]", "det = det[:k - 1]"),
    _filled("cap, slice").replace("out[i, :len(det)] = det", "out[i, :k] = det"),
    _filled("cap, slice").replace("out[i, :len(det)] = det", "out[i, :len(det)] = det * 2"),
    # written elsewhere than the image's slot, or into another tensor
    _filled("F.pad").replace("out[i] =", "out[i + 1] ="),
    _filled("F.pad").replace("out[i] =", "other[i] ="),
    _filled("F.pad").replace("out[i] =", "out[0] ="),
    # padded along another axis, or filled with a value the loop makes, or made with a fill of another form
    _filled("F.pad").replace("(0, 0, 0, k - det.shape[0])", "(0, k - det.shape[0])"),
    _filled("F.pad").replace("(0, 0, 0, k - det.shape[0]))", "(0, 0, 0, k - det.shape[0]), value=i)"),
    _filled("cap, slice").replace("detections[0].new_zeros((len(detections), k, 6))",
                                  "torch.full((len(detections), k, 6), fill())"),
    _filled("cap, slice").replace("detections[0].new_zeros((len(detections), k, 6))",
                                  "torch.full(len(detections), k, 6)"),
    # the widths bound to a name that is read after the loop, or the entry read after it
    _filled("widths bound").replace("    return out\n", "    return out, pad\n"),
    _filled("F.pad").replace("    return out\n", "    return out, det\n"),
    # another statement in the loop; an index loop whose entry is not the list's `i`
    _filled("F.pad").replace("        out[i] =", "        print(i)\n        out[i] ="),
    _filled("by index, keywords").replace("det = detections[i]", "det = detections[0]"),
    # the count made from the rows
    _filled("F.pad").replace("k, 6))", "len(detections[0]), 6))").replace("k - det", "len(detections[0]) - det"),
])
def test_other_preallocated_loops_are_left_alone(code: str) -> None:
    assert rules_found(code, select=RULE) == []


# Padding with another number than zero (`F.pad`'s `value`, `torch.full`'s fill): Super Gradients pads classes with
# -1, ethology's ensemble boxes and scores with NaN. (code, the helper's call in the rewrite.)
FILLS = {
    "F.pad -1": (LOOP.format(pad="F.pad(det, (0, 0, 0, k - det.shape[0]), value=-1)", stack="return torch.stack(rows)"),
                 "return _trt_padded_by_image(detections, k, -1)"),
    "F.pad nan": (LOOP.format(pad='F.pad(det, (0, 0, 0, k - len(det)), "constant", float("nan"))',
                              stack="return torch.stack(rows)"),
                  'return _trt_padded_by_image(detections, k, float("nan"))'),
    "F.pad attribute": (LOOP.format(pad="F.pad(det, (0, 0, 0, k - len(det)), value=math.inf)",
                                    stack="return torch.stack(rows)").replace("import torch\n",
                                                                              "import math\nimport torch\n"),
                        "return _trt_padded_by_image(detections, k, math.inf)"),
    "zeros, F.pad -1": (_filled("F.pad").replace("k - det.shape[0]))", "k - det.shape[0]), value=-1)"),
                        "out = _trt_padded_by_image(detections, k, -1).to(out)"),
    "full, slice": (_filled("cap, slice").replace("detections[0].new_zeros((len(detections), k, 6))",
                                                  "torch.full((len(detections), k, 6), -1.0)"),
                    "out = _trt_padded_by_image(detections, k, -1.0).to(out)"),
    "new_full, slice": (_filled("cap, slice").replace("new_zeros((len(detections), k, 6))",
                                                      "new_full((len(detections), k, 6), fill_value=-2)"),
                        "out = _trt_padded_by_image(detections, k, -2).to(out)"),
    "full, F.pad": (_filled("F.pad").replace("torch.zeros((len(detections), k, 6))",
                                             "torch.full((len(detections), k, 6), -1.0)"),
                    "out = _trt_padded_by_image(detections, k).to(out)"),  # every slot written: its zeros
}


@pytest.mark.parametrize("form", sorted(FILLS))
def test_a_fill_is_taken_and_kept(form: str) -> None:
    """The fill reaches the helper; on real rows (an image without rows, fewer than the cap, more; NaN, infinities),
    the rewritten function given the flattened rows equals the loop."""
    code, call = FILLS[form]
    assert rules_found(code, select=RULE) == ["TRT393"]
    after = rewrite(code, select=RULE, unsafe=True)
    assert call in after, after
    assert rewrite(after, select=RULE, unsafe=True) == after
    for counts in [(3, 0, 7), (0, 0), (9, 9)]:
        generator = seeded(sum(counts) + len(form))
        detections = [torch.randn(n, 6, generator=generator) * 50 for n in counts]
        if counts[0]:
            detections[0][0, 1], detections[0][-1, 2] = float("nan"), float("-inf")
        want = _run(code)["padded"](detections, 4)
        rewritten = _run(after)
        rewritten["_trt_tracing"] = lambda: True
        got = rewritten["padded"](_listed(detections), 4)
        assert got.dtype == want.dtype
        torch.testing.assert_close(got, want, equal_nan=True, rtol=0, atol=0)
        torch.testing.assert_close(rewritten["padded"](detections, 4), want, equal_nan=True, rtol=0, atol=0)


def _run(code: str, name: str = "padded") -> dict:
    namespace: dict = {}
    exec(compile(code, "padded.py", "exec"), namespace)  # noqa: S102
    return namespace


@pytest.mark.parametrize("form", sorted(FILLED_FORMS))
@pytest.mark.parametrize("counts", [(3, 0, 7), (0, 0), (5,), (9, 9)])
def test_the_preallocated_rewrite_is_the_loop(form: str, counts: tuple[int, ...]) -> None:
    """On real rows (an image without rows, fewer than the cap, more): the rewritten function, made to take the
    flattened rows as it does while tracing, equals the original loop, in the zeros' dtype (float64 where they
    were made so from float32 rows); eager mode and a plain list still run the loop."""
    k = 4
    generator = seeded(sum(counts) + len(form))
    detections = [torch.randn(n, 6, generator=generator) * 50 for n in counts]
    if counts[0]:
        detections[0][0, 1], detections[0][-1, 2] = float("nan"), float("inf")
    code = _filled(form)
    original = _run(code)["padded"]
    rewritten = _run(rewrite(code, select=RULE, unsafe=True))
    want = original(detections, k)
    assert want.shape == (len(counts), k, 6) and (want[:, :, 4] != 0).sum() <= k * len(counts)
    torch.testing.assert_close(rewritten["padded"](detections, k), want, equal_nan=True, rtol=0, atol=0)
    rewritten["_trt_tracing"] = lambda: True
    torch.testing.assert_close(rewritten["padded"](detections, k), want, equal_nan=True, rtol=0, atol=0)
    got = rewritten["padded"](_listed(detections), k)  # the flattened rows: the loop does not run
    assert got.dtype == want.dtype
    torch.testing.assert_close(got, want, equal_nan=True, rtol=0, atol=0)


def _loop(detections: list[torch.Tensor], k: int) -> torch.Tensor:
    rows = []
    for det in detections:
        det = det[:k]
        rows.append(torch.cat([det, det.new_zeros(k - det.shape[0], *det.shape[1:])]))
    return torch.stack(rows)


def _uncapped_loop(detections: list[torch.Tensor], k: int) -> torch.Tensor:
    return torch.stack([torch.nn.functional.pad(det, (0, 0, 0, k - det.shape[0])) for det in detections])


def _listed(detections: list[torch.Tensor]) -> _TrtPerImageList:
    """The list as TRT360's rewrite makes it while tracing: its entries, and their rows flattened with each row's
    image and the number of images."""
    flat = torch.cat(detections)
    image = torch.cat([torch.full((len(d),), i) for i, d in enumerate(detections)])
    return _TrtPerImageList(list(detections), flat, image, torch.tensor(len(detections)))


@pytest.mark.parametrize("counts", [(3, 0, 7), (0, 0), (5,), (1, 2, 3, 4, 5), (9, 9)])
@pytest.mark.parametrize("k", [1, 4])
def test_the_helper_is_the_loop(counts: tuple[int, ...], k: int) -> None:
    generator = seeded(sum(counts) + k)
    detections = [torch.randn(n, 6, generator=generator) * 50 for n in counts]
    if counts[0]:
        detections[0][0, 1], detections[0][-1, 2] = float("nan"), float("inf")  # stays in its own slot
    got = _trt_padded_by_image(_listed(detections), k)
    want = _loop(detections, k)
    assert got.shape == want.shape and got.dtype == want.dtype
    torch.testing.assert_close(got, want, equal_nan=True, rtol=0, atol=0)
    torch.testing.assert_close(_uncapped_loop(detections, k), want, equal_nan=True, rtol=0, atol=0)
    half = [d.half() for d in detections]
    assert _trt_padded_by_image(_listed(half), k).dtype == torch.float16
    filled = torch.stack([torch.nn.functional.pad(d[:k], (0, 0, 0, k - len(d[:k])), value=-1) for d in detections])
    torch.testing.assert_close(_trt_padded_by_image(_listed(detections), k, -1), filled, equal_nan=True, rtol=0, atol=0)
    labels = [d[:, 5].round().long().reshape(-1, 1) for d in detections]  # integer rows: -1 stays an integer
    padded_labels = _trt_padded_by_image(_listed(labels), k, -1)
    assert padded_labels.dtype == torch.int64
    assert torch.equal(padded_labels, torch.stack([torch.nn.functional.pad(d[:k], (0, 0, 0, k - len(d[:k])), value=-1)
                                                   for d in labels]))


def test_eager_code_and_other_lists_run_the_loop() -> None:
    code = LOOP.format(pad=PADS["new_zeros"], stack="return torch.stack(rows)")
    namespace: dict = {}
    exec(compile(rewrite(code, select=RULE, unsafe=True), "after.py", "exec"), namespace)  # noqa: S102
    detections = [torch.randn(2, 6), torch.randn(0, 6)]
    torch.testing.assert_close(namespace["padded"](detections, 3), _loop(detections, 3))
    with pytest.raises(RuntimeError):  # the loop's own error where the zeros' columns differ from the rows'
        namespace["padded"]([torch.randn(2, 5)], 3)
    namespace["_trt_tracing"] = lambda: True  # a plain list while tracing: no flattened rows, the loop
    torch.testing.assert_close(namespace["padded"](detections, 3), _loop(detections, 3))
    torch.testing.assert_close(namespace["padded"](_listed(detections), 3), _loop(detections, 3))


@pytest.fixture()
def torchvision_ops(monkeypatch):
    monkeypatch.setitem(sys.modules, "torchvision", torchvision_standin)


def _sets(seed: int) -> dict[str, tuple[torch.Tensor]]:
    def images(batch: int) -> torch.Tensor:
        return torch.rand(batch, 3, 32, 32, generator=seeded(seed + batch)) - 0.25

    empty = images(3)
    empty[1] = 40.0  # the middle image: no candidate over the threshold
    few = images(2)
    corner = few[0, :, :4, :4].clone()
    few[0] = 40.0
    few[0, :, :4, :4] = corner  # one corner of candidates: fewer rows than the cap
    return {"batch-1": (images(1),), "batch-3": (images(3),), "batch-5": (images(5),),
            "an-image-without-rows": (empty,), "few-rows": (few,), "zeros": (torch.zeros(2, 3, 32, 32),),
            "negatives": (-images(3),)}


def _padded(out) -> torch.Tensor:
    """A variant's padded rows ``(images, k, 6)``: its output, or its boxes, scores and classes put back together."""
    if isinstance(out, tuple):
        boxes, scores, classes = out
        return torch.cat([boxes, scores[..., None], classes[..., None].to(boxes.dtype)], -1)
    return out


@pytest.mark.parametrize("name", sorted(TAKEN))
def test_the_variant_exports_and_follows_the_batch(torchvision_ops, tmp_path: Path, name: str) -> None:
    """TRT360 and TRT393 from the code alone: the original's graph stacks the example's two images; the rewritten
    one equals eager mode at 1, 3 and 5 images, with an image without rows and one with fewer than the cap."""
    rules = ("TRT360", "TRT393")
    variant = VARIANTS_DIR / name
    stem = variant.stem
    new_path = tmp_path / f"{stem}_rewritten.py"
    source = fix_source(variant.read_bytes(), str(variant), Options(select=rules, scope="all", unsafe=True)).source
    new_path.write_text(source.decode())
    assert TAKEN[name][0] in new_path.read_text()
    module, original = built_variant(variant, f"trt393_{stem}")
    _, rewritten = built_variant(new_path, f"trt393_{stem}_rewritten")
    rewritten.load_state_dict(original.state_dict())
    sets = _sets(1)
    counts = [(row[:, 4] > 0).sum().item() for row in _padded(original(*sets["an-image-without-rows"]))]
    assert counts[1] == 0 and max(counts) == original.max_det  # an image without rows; the cap bites
    assert 0 < (_padded(original(*sets["few-rows"]))[0, :, 4] > 0).sum().item() < original.max_det
    assert_follows_the_batch(original, rewritten, module, module.inputs(seeded(0)), sets, tmp_path)


def test_a_script_compiles_none_of_it(tmp_path: Path) -> None:
    from support import import_file

    code = LOOP.format(pad=PADS["new_zeros"], stack="return torch.stack(rows)").replace(
        "def padded(detections, k):", "def padded(detections: list[torch.Tensor], k: int):")
    (tmp_path / "padded_script.py").write_text(rewrite(code, select=RULE, unsafe=True))
    scripted = torch.jit.script(import_file(tmp_path / "padded_script.py", "trt393_padded_script").padded)
    detections = [torch.randn(5, 6), torch.randn(1, 6)]
    torch.testing.assert_close(scripted(detections, 3), _loop(detections, 3))


@pytest.mark.parametrize("form", sorted(FILLED_FORMS))
def test_a_script_compiles_none_of_the_preallocated_form(tmp_path: Path, form: str) -> None:
    from support import import_file

    code = _filled(form).replace("def padded(detections, k):", "def padded(detections: list[torch.Tensor], k: int):")
    code = code.replace("value=0,", "value=0.0,")  # a script's `F.pad` takes a float fill only
    (tmp_path / "filled_script.py").write_text(rewrite(code, select=RULE, unsafe=True))
    module = import_file(tmp_path / "filled_script.py", f"trt393_filled_script_{len(form)}")
    scripted = torch.jit.script(module.padded)
    detections = [torch.randn(5, 6), torch.randn(0, 6), torch.randn(1, 6)]
    torch.testing.assert_close(scripted(detections, 3), _run(code)["padded"](detections, 3))


@pytest.mark.parametrize("name", sorted(TAKEN))
def test_migrate_applies_it_with_the_nms_rewrite(torchvision_ops, tmp_path: Path, name: str) -> None:
    path, report = migrate_with_standin(VARIANTS_DIR / name, STANDIN, tmp_path, f"trt393_migrate_{Path(name).stem}")
    assert report["before"]["faithful"] is not True, report["before"]
    applied = {(fix["rule"], fix["line"]) for fix in report["applied"]}
    if name in FUSED:  # one loop: TRT360's rewrite flattens the NMS and fills the padded zeros
        assert ("TRT360", line_of(path, TAKEN[name][1])) in applied, applied
        assert not any(fix["rule"] == "TRT393" for fix in report["applied"]), report["applied"]
    else:
        assert ("TRT393", line_of(path, TAKEN[name][1])) in applied, applied
        assert ("TRT360", line_of(path, "for xi, x in enumerate(prediction):")) in applied, applied
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report["reverted"])
    assert report["after"]["faithful"] is True and report["after"]["trt_errors"] == 0


def test_the_taken_variants_cite_distinct_owners() -> None:
    """Each taken variant cites one repository at a full commit, each of another owner (three so far: YOLOv7's
    WongKinYiu, Super Gradients' Deci-AI, Ultralytics; the bar is five)."""
    assert_cited_by_distinct_owners(VARIANTS_DIR, [Path(name).stem for name in TAKEN], count=len(TAKEN))


@pytest.mark.parametrize("name", NOT_TAKEN)
def test_real_forms_not_taken_yet(torchvision_ops, name: str) -> None:
    """Each such variant runs and follows the batch in eager mode; TRT393 finds nothing (the forms its docstring
    names). Where the rule grows to take one, move it to ``TAKEN``."""
    variant = VARIANTS_DIR / name
    code = variant.read_text()
    assert rules_found(code, select=RULE) == []
    _, model = built_variant(variant, f"trt393_not_taken_{variant.stem}")
    for batch in (1, 3):
        out = model(torch.rand(batch, 3, 32, 32, generator=seeded(batch)) - 0.25)
        assert all(o.shape[0] == batch for o in (out if isinstance(out, tuple) else (out,)))
