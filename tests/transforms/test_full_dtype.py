"""TRT734: ``torch.full(size, 3)`` with no dtype and a traced size gets ``dtype=torch.int64`` written out.

The rewrite's text for every form it takes and the calls it leaves alone; the same tensor (values, dtype,
shape) in eager mode, TorchScript, fx, ``torch.compile`` and ``torch.export``; the original's TorchScript
export refused by ONNX Runtime (float indices into an embedding) and the rewritten one equal to eager mode at
other batches; and ``migrate`` on a cited reduction of Chronos-Bolt's ``[REG]`` tokens, whose fill value is a
config attribute, applying it from the recorded run to end at exit 0; and fairseq MMPT's ignored labels
(``torch.full(inputs.shape, -100)``), rewritten from the code alone and by ``migrate``, which finds the
float labels typed at the ``full`` line though ONNX Runtime refuses them after a clamp and an index; and
transformers' Idefics2 patch position ids (``torch.full(size=..., fill_value=0, device=...)`` over three lines, no
trailing comma), rewritten from the code alone, exported and by ``migrate`` (the refused input's type walk follows
the ``where``'s uncast value); and a vision-audio fusion model's modality-type
ids (JIANG-HAOLIN/smart_sensor_fusion: ``torch.full(x.shape[:-1], index, device=x.device)``, ``index`` a parameter
the caller passes as ``index=1``/``index=2``), whose fill the code alone does not show to be an ``int`` and the
recorded run does: rewritten from that run and by ``migrate``; and LiteMedSAM's box-corner label ids
(juntaoJianggavin/APRIL-MedSeg: two ``torch.full((B,), 2, device=...)`` calls into a prompt embedding), rewritten from
the code alone and by ``migrate``; and MaskGIT's canvas of mask tokens (bytedance/1d-tokenizer:
``torch.full((condition.shape[0], self.image_seq_len), self.mask_token_id, ...)``, joined after an int64 class token
by ``torch.cat``), rewritten from the recorded run and by ``migrate``, whose walk to the line that typed the refused
input follows the part of the ``cat`` the exporter did not cast.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import onnxruntime as ort
import pytest
import torch
from support import TESTS, rewrite, rules_found
from variant_models import (assert_eager_unchanged, assert_graph_within, assert_migrate_corrects, built_variant,
                            export_variant, load_variant, observed_facts, rewritten_variant, seeded)

from trtcodemod.engine import Options, fix_source
from trtcodemod.verify.export import export_model

VARIANT = TESTS / "recipe_variants" / "trt734" / "chronos_bolt_reg_token.py"
HEADER = "import torch\nfrom torch import nn\n\n"

EMBED = """
class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(5, 3)

    def forward(self, x):
        ids = torch.full((x.shape[0], 1), 3, device=x.device)
        return self.embed(ids) + x[:, None, :3], ids
"""


@pytest.mark.parametrize("before, after", [
    ("torch.full((x.shape[0], 1), 3, device=x.device)", "torch.full((x.shape[0], 1), 3, device=x.device, "
                                                         "dtype=torch.int64)"),
    ("torch.full(shape, -1)", "torch.full(shape, -1, dtype=torch.int64)"),
    ("torch.full(size=(n,), fill_value=0)", "torch.full(size=(n,), fill_value=0, dtype=torch.int64)"),
    ("torch.full(\n        (n, 1),\n        7,\n        device=d,\n    )",
     "torch.full(\n        (n, 1),\n        7,\n        device=d,\n        dtype=torch.int64,\n    )"),
    # no trailing comma, the closing parenthesis on its own line (Idefics2): the line break stays before it
    ("torch.full(\n        size=(n, 1), fill_value=0, device=d\n    )",
     "torch.full(\n        size=(n, 1), fill_value=0, device=d, dtype=torch.int64\n    )"),
])
def test_the_inferred_dtype_is_written_out(before: str, after: str) -> None:
    source = HEADER + f"def f(x, shape, n, d):\n    return {before}\n"
    assert rewrite(source, select=("TRT734",)) == source.replace(before, after)


@pytest.mark.parametrize("call", [
    "torch.full((2, 3), 1)",  # a literal size: the exporter folds the tensor with its dtype
    "torch.full((n,), 2.0)",  # a float fill: float is what eager mode makes
    "torch.full((n,), True)",  # a bool fill: eager mode makes bool, TorchScript int64
    "torch.full((n,), 1, dtype=torch.int32)",
    "torch.full((n,), 1, out=buffer)",
    "torch.full((n,), fill)",  # a name: nothing shows its type without a recorded run
])
def test_left_alone(call: str) -> None:
    source = HEADER + f"def f(n, fill, buffer):\n    return {call}\n"
    assert rules_found(source, select=("TRT734",)) == []


def _built(source: str, name: str, tmp_path: Path):
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    module = load_variant(path, name)
    torch.manual_seed(0)
    return module.Head().eval()


def test_the_same_tensor_everywhere_and_a_graph_onnx_runtime_loads(tmp_path: Path) -> None:
    source = HEADER + textwrap.dedent(EMBED)
    new = rewrite(source, select=("TRT734",))
    assert "dtype=torch.int64" in new
    original, rewritten = _built(source, "trt734_o", tmp_path), _built(new, "trt734_r", tmp_path)
    rewritten.load_state_dict(original.state_dict())
    sets = [torch.rand(2, 4), torch.rand(5, 4), torch.zeros(1, 4), -torch.rand(3, 4), torch.rand(0, 4),
            torch.tensor([[float("inf"), float("nan"), -1.0, 0.0]])]
    runners = {"eager": lambda m: m, "script": torch.jit.script, "fx": torch.fx.symbolic_trace,
               "compile": lambda m: torch.compile(m, backend="eager")}
    for kind, make in runners.items():
        before, after = make(original), make(rewritten)
        for x in sets:
            (want, want_ids), (got, got_ids) = before(x), after(x)
            assert got_ids.dtype == want_ids.dtype == torch.int64, kind
            torch.testing.assert_close(got, want, rtol=0, atol=0, equal_nan=True)
            torch.testing.assert_close(got_ids, want_ids, rtol=0, atol=0)
    exported = torch.export.export(rewritten, (sets[0],), dynamic_shapes=({0: torch.export.Dim("b")},))
    assert exported.module()(sets[1])[1].dtype == torch.int64
    dynamic = {"x": {0: "batch"}}
    refused = export_model(original, (sets[0],), tmp_path / "before.onnx", exporter="torchscript",
                           input_names=["x"], output_names=["out", "ids"], dynamic_axes=dynamic, opset=17)
    assert refused.error is None, refused.error
    with pytest.raises(Exception, match="tensor\\(float\\)"):
        ort.InferenceSession(str(tmp_path / "before.onnx"), providers=["CPUExecutionProvider"])
    session, _ = export_variant(rewritten, (sets[0],), dynamic, tmp_path / "after.onnx", tmp_path)
    for label, x in zip(("two", "five", "zeros", "negatives"), sets[:4]):
        assert_graph_within(session, original, (x,), 1e-6, label)


def test_the_chronos_reduction_migrates_from_the_recorded_dtype() -> None:
    """The fill value is ``self.config.reg_token_id``: only the recorded run shows it an int (int64 made there)."""
    assert rules_found(VARIANT.read_text(), select=("TRT734",)) == []
    assert_migrate_corrects(VARIANT, "TRT734", "trt734_migrate")


FAIRSEQ = TESTS / "recipe_variants" / "trt734" / "fairseq_mmpt_mask_labels.py"


def test_fairseq_mmpt_labels_rewritten_from_the_code_alone(tmp_path: Path) -> None:
    """``labels = torch.full(inputs.shape, -100)``: a whole ``.shape`` for the size and a negative literal fill.

    The rule writes the dtype out from the code alone (safe: no ``--unsafe``); eager mode is unchanged on the
    example, other sizes, one token and an empty batch; the original's graph is refused by ONNX Runtime (float
    indices into the loss's ``GatherElements``) and the rewritten one equals eager mode at other sizes.
    ``migrate`` is the next test."""
    variant = rewritten_variant(FAIRSEQ, "TRT734", tmp_path)
    module, original, rewritten = variant["module"], variant["original"], variant["rewritten"]
    assert variant["safe_only"] == variant["source"]
    assert "        labels = torch.full(inputs.shape, -100, dtype=torch.int64)\n" in variant["source"]
    assert rules_found(variant["source"], select=("TRT734",)) == []
    sets = {"example": module.inputs(seeded(0)), "more": module.inputs(seeded(1), 5, 13),
            "one token": module.inputs(seeded(2), 3, 1), "zeros": (torch.zeros(2, 4, dtype=torch.int64),),
            "all special": (torch.full((2, 3), 101),), "empty batch": module.inputs(seeded(3), 0, 4)}
    assert_eager_unchanged(original, rewritten, sets)
    example = sets["example"]
    refused = export_model(original, example, tmp_path / "before.onnx", exporter="torchscript",
                           input_names=["inputs"], output_names=["out"], dynamic_axes=module.DYNAMIC, opset=17)
    assert refused.error is None, refused.error
    with pytest.raises(Exception, match="tensor\\(float\\)"):
        ort.InferenceSession(str(tmp_path / "before.onnx"), providers=["CPUExecutionProvider"])
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    for label in ("example", "more", "one token", "zeros", "all special"):
        assert_graph_within(session, original, sets[label], 1e-6, label)


def test_fairseq_mmpt_labels_migrate_through_the_clamp() -> None:
    """ONNX Runtime refuses the loss's ``GatherElements`` for a float input made at the ``gather`` line (the labels
    clamped and indexed there); the graph walk up through nodes that keep their input's type finds it typed at the
    ``full`` line, so the plan ties TRT734 to it and ``migrate`` ends at exit 0."""
    report = assert_migrate_corrects(FAIRSEQ, "TRT734", "trt734_migrate_fairseq")
    assert [fix["rule"] for fix in report["applied"]] == ["TRT734"], report["applied"]


IDEFICS2 = TESTS / "recipe_variants" / "trt734" / "transformers_idefics2_patch_positions.py"


def test_idefics2_patch_positions_rewritten_from_the_code_alone(tmp_path: Path) -> None:
    """``torch.full(size=(batch_size, h * w), fill_value=0, device=...)`` over three lines: the keyword form, a size
    that is a product of floor divisions of the image's traced height and width, and ids joined by ``torch.where``.

    Rewritten from the code alone (safe); eager mode unchanged on the example, other batches and image sizes, one
    patch, zeros, negatives and an empty batch; the original's graph is refused by ONNX Runtime (the ``where``
    cast to float, then float indices into the position embedding's ``Gather``); the rewritten graph equals eager
    mode at other sizes."""
    variant = rewritten_variant(IDEFICS2, "TRT734", tmp_path)
    module, original, rewritten = variant["module"], variant["original"], variant["rewritten"]
    assert variant["safe_only"] == variant["source"]
    assert ("            size=(batch_size, max_nb_patches_h * max_nb_patches_w), fill_value=0, "
            "device=pixel_values.device, dtype=torch.int64\n") in variant["source"], variant["source"]
    assert rules_found(variant["source"], select=("TRT734",)) == []
    pixels, mask = module.inputs(seeded(0))
    sets = {"example": (pixels, mask), "more": module.inputs(seeded(1), 5, 12, 8),
            "one patch": module.inputs(seeded(2), 1, 2, 2), "zeros": (torch.zeros_like(pixels), mask),
            "negatives": (-pixels.abs(), mask), "empty batch": module.inputs(seeded(3), 0, 8, 6)}
    assert_eager_unchanged(original, rewritten, sets)
    example = sets["example"]
    refused = export_model(original, example, tmp_path / "before.onnx", exporter="torchscript",
                           input_names=["pixel_values", "patch_attention_mask"], output_names=["out"],
                           dynamic_axes=module.DYNAMIC, opset=17)
    assert refused.error is None, refused.error
    with pytest.raises(Exception, match="tensor\\(float\\)"):
        ort.InferenceSession(str(tmp_path / "before.onnx"), providers=["CPUExecutionProvider"])
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    for label in ("example", "more", "one patch", "zeros", "negatives"):
        assert_graph_within(session, original, sets[label], 1e-5, label)


def test_idefics2_patch_positions_migrate() -> None:
    """ONNX Runtime refuses the embedding's ``Gather`` for a float input made at the ``where`` line; the exporter
    cast the int64 ids there to the float of the ``full`` (``ConstantOfShape``), so the walk to the line that
    typed it follows the ``Where`` operand it did not cast, to the ``full`` line: the plan ties TRT734 to it and
    ``migrate`` ends at exit 0."""
    report = assert_migrate_corrects(IDEFICS2, "TRT734", "trt734_migrate_idefics2")
    assert [fix["rule"] for fix in report["applied"]] == ["TRT734"], report["applied"]


SENSOR_FUSION = TESTS / "recipe_variants" / "trt734" / "smart_sensor_fusion_modal_type.py"


def test_sensor_fusion_modality_ids_rewritten_from_the_recorded_dtype(tmp_path: Path) -> None:
    """``torch.full(x.shape[:-1], index, device=x.device)``: a slice of the tokens' shape for the size and, for the
    fill, a parameter annotated ``int`` that the caller passes as ``index=1`` and ``index=2``.

    The code alone shows no ``int`` (an annotation is not enforced: ``True`` passes it and fills a bool tensor), so
    the rule takes it from the recorded run's int64 at the line (unsafe, its proof that run), as ``migrate`` does;
    eager mode is unchanged on the example, other batches and token counts, one token, no tokens of one modality,
    zeros, negatives and an empty batch; the original's graph is refused by ONNX Runtime (float indices into the
    embedding's ``Gather``) and the rewritten one equals eager mode at other sizes."""
    assert rules_found(SENSOR_FUSION.read_text(), select=("TRT734",)) == []
    module, original = built_variant(SENSOR_FUSION, "trt734_sensor_fusion")
    facts = observed_facts(SENSOR_FUSION, module, tmp_path)
    options = Options(select=("TRT734",), facts=facts, unsafe=True, scope="all")
    source = fix_source(SENSOR_FUSION.read_bytes(), str(SENSOR_FUSION.resolve()), options).source.decode()
    assert "        return x + self.type_emb(torch.full(x.shape[:-1], index, device=x.device, dtype=torch.int64))\n" \
        in source, source
    new_path = tmp_path / "sensor_fusion_rewritten.py"
    new_path.write_text(source)
    _, rewritten = built_variant(new_path, "trt734_sensor_fusion_rewritten")
    rewritten.load_state_dict(original.state_dict())
    vision, audio = module.inputs(seeded(0))
    sets = {"example": (vision, audio), "more": module.inputs(seeded(1), 5, 9, 3),
            "one token": module.inputs(seeded(2), 3, 1, 1), "no audio": module.inputs(seeded(3), 2, 4, 0),
            "zeros": (torch.zeros_like(vision), torch.zeros_like(audio)), "negatives": (-vision.abs(), -audio.abs()),
            "empty batch": module.inputs(seeded(4), 0, 5, 7)}
    assert_eager_unchanged(original, rewritten, sets)
    refused = export_model(original, (vision, audio), tmp_path / "before.onnx", exporter="torchscript",
                           input_names=["vision_signal", "audio_signal"], output_names=["out"],
                           dynamic_axes=module.DYNAMIC, opset=17)
    assert refused.error is None, refused.error
    with pytest.raises(Exception, match="tensor\\(float\\)"):
        ort.InferenceSession(str(tmp_path / "before.onnx"), providers=["CPUExecutionProvider"])
    session, _ = export_variant(rewritten, (vision, audio), module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    for label in ("example", "more", "one token", "no audio", "zeros", "negatives"):
        assert_graph_within(session, original, sets[label], 1e-5, label)


def test_sensor_fusion_modality_ids_migrate() -> None:
    """ONNX Runtime refuses the embedding's ``Gather`` for float indices made at the ``full`` line; the recorded run
    saw the call make int64 there, so ``migrate`` applies TRT734 (unsafe, proved by the verified export) and ends at
    exit 0."""
    report = assert_migrate_corrects(SENSOR_FUSION, "TRT734", "trt734_migrate_sensor_fusion")
    assert [fix["rule"] for fix in report["applied"]] == ["TRT734"], report["applied"]


MASKGIT = TESTS / "recipe_variants" / "trt734" / "bytedance_maskgit_mask_ids.py"


def test_maskgit_mask_ids_rewritten_from_the_recorded_dtype(tmp_path: Path) -> None:
    """``torch.full((condition.shape[0], self.image_seq_len), self.mask_token_id, device=...)`` over two lines: the
    canvas of mask tokens MaskGIT starts decoding from, its fill an attribute (the mask id, the codebook's size).

    The code alone does not show the fill an ``int``; the recorded run's int64 at the line does (unsafe, its proof
    that run), as for the sensor-fusion ids. Eager mode is unchanged on the example, other batches, one label, the
    first and last class and an empty batch; the original's graph is refused by ONNX Runtime (the exporter casts the
    int64 class token to the float of the ``full`` to join them, then float indices into the embedding's
    ``Gather``); the rewritten one equals eager mode, logits and sampled ids, at other batches."""
    assert rules_found(MASKGIT.read_text(), select=("TRT734",)) == []
    module, original = built_variant(MASKGIT, "trt734_maskgit")
    facts = observed_facts(MASKGIT, module, tmp_path)
    options = Options(select=("TRT734",), facts=facts, unsafe=True, scope="all")
    source = fix_source(MASKGIT.read_bytes(), str(MASKGIT.resolve()), options).source.decode()
    full = ("        ids = torch.full((condition.shape[0], self.image_seq_len),\n"
            "                         self.mask_token_id, device=condition.device, dtype=torch.int64)\n")
    assert full in source, source
    assert source.count("dtype=torch.int64") == 1
    new_path = tmp_path / "maskgit_rewritten.py"
    new_path.write_text(source)
    _, rewritten = built_variant(new_path, "trt734_maskgit_rewritten")
    rewritten.load_state_dict(original.state_dict())
    sets = {"example": module.inputs(seeded(0)), "more": module.inputs(seeded(1), 7),
            "one label": module.inputs(seeded(2), 1), "first and last class": (torch.tensor([0, 9, 9, 0]),),
            "empty batch": module.inputs(seeded(3), 0)}
    assert_eager_unchanged(original, rewritten, sets)
    example = sets["example"]
    refused = export_model(original, example, tmp_path / "before.onnx", exporter="torchscript",
                           input_names=["condition"], output_names=["out", "ids"], dynamic_axes=module.DYNAMIC,
                           opset=17)
    assert refused.error is None, refused.error
    with pytest.raises(Exception, match="tensor\\(float\\)"):
        ort.InferenceSession(str(tmp_path / "before.onnx"), providers=["CPUExecutionProvider"])
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    for label in ("example", "more", "one label", "first and last class"):
        assert_graph_within(session, original, sets[label], 1e-5, label)


def test_maskgit_mask_ids_migrate() -> None:
    """ONNX Runtime refuses the embedding's ``Gather`` for a float input made at the ``cat`` line: the exporter cast
    the int64 class token there to the float of the ``full`` (``ConstantOfShape``). The walk to the line that typed
    the input follows the part it did not cast (as it follows a ``Where``'s for Idefics2) to the ``full`` line, where
    the recorded run saw int64, so ``migrate`` applies TRT734 there and ends at exit 0."""
    report = assert_migrate_corrects(MASKGIT, "TRT734", "trt734_migrate_maskgit")
    assert [fix["rule"] for fix in report["applied"]] == ["TRT734"], report["applied"]


LITEMEDSAM = TESTS / "recipe_variants" / "trt734" / "april_medseg_box_corners.py"


def test_litemedsam_box_corners_rewritten_from_the_code_alone(tmp_path: Path) -> None:
    """``torch.full((B,), 2, device=boxes.device)`` and ``torch.full((B,), 3, ...)``: a one-element size from the
    number of boxes and ``int`` literal fills, the point labels whose embeddings mark a box's two corners.

    Both rewritten from the code alone (safe); eager mode unchanged on the example, other batches and image sizes,
    one box on the smallest image, boxes over the whole image and of no area, zeros, negatives and an empty batch;
    the original's graph is refused by ONNX Runtime (float indices into the corner embeddings' ``Gather``); the
    rewritten one equals eager mode at other sizes."""
    variant = rewritten_variant(LITEMEDSAM, "TRT734", tmp_path)
    module, original, rewritten = variant["module"], variant["original"], variant["rewritten"]
    assert variant["safe_only"] == variant["source"]
    for label in (2, 3):
        assert (f"self.point_embeddings(torch.full((B,), {label}, device=boxes.device, dtype=torch.int64))\n"
                in variant["source"]), variant["source"]
    assert rules_found(variant["source"], select=("TRT734",)) == []
    image, boxes = module.inputs(seeded(0))
    sets = {"example": (image, boxes), "more": module.inputs(seeded(1), 5, 24),
            "one box, smallest image": module.inputs(seeded(2), 1, 4),
            "whole image": (image, torch.tensor([[0.0, 0.0, 1.0, 1.0]]).expand(2, 4).contiguous()),
            "no area": (image, torch.full((2, 4), 0.5)), "zeros": (torch.zeros_like(image), torch.zeros_like(boxes)),
            "negatives": (-image.abs(), -boxes), "empty batch": module.inputs(seeded(3), 0, 8)}
    assert_eager_unchanged(original, rewritten, sets)
    example = sets["example"]
    refused = export_model(original, example, tmp_path / "before.onnx", exporter="torchscript",
                           input_names=["image", "boxes"], output_names=["out"], dynamic_axes=module.DYNAMIC,
                           opset=17)
    assert refused.error is None, refused.error
    with pytest.raises(Exception, match="tensor\\(float\\)"):
        ort.InferenceSession(str(tmp_path / "before.onnx"), providers=["CPUExecutionProvider"])
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    for label in ("example", "more", "one box, smallest image", "whole image", "no area", "zeros", "negatives"):
        assert_graph_within(session, original, sets[label], 1e-5, label)


def test_litemedsam_box_corners_migrate() -> None:
    """ONNX Runtime refuses the corner embeddings' ``Gather`` for float indices made at the two ``full`` lines;
    ``migrate`` applies TRT734 (safe) at both and ends at exit 0, the graph faithful."""
    report = assert_migrate_corrects(LITEMEDSAM, "TRT734", "trt734_migrate_litemedsam")
    code = LITEMEDSAM.read_text().splitlines()
    lines = [i for i, text in enumerate(code, 1) if text.startswith(("        tl_embed = ", "        br_embed = "))]
    assert len(lines) == 2, lines
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT734", line) for line in lines], \
        report["applied"]
