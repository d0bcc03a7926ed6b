"""The half-precision range recipe (TRT739) on real-code variants.

Each variant in ``tests/recipe_variants/trt739/`` is a small runnable model reduced from a public repository of a
different owner (cited in its docstring) that counts a ``torch.arange`` in float16 the way the original writes it:
nemotron-ocr's FOTS prior offsets with a literal ``dtype=torch.float16`` (a float32 network), and four models run
in half precision whose ranges take the features' dtype from a name: YOLOv9's ``make_anchors``
(``torch.arange(end=w, device=device, dtype=dtype)``), YOLOv5's ``_make_grid`` (two ranges on one line),
rotary-embedding-torch's sequence positions (``dtype = dtype`` with spaces) and kornia's RT-DETR AIFI sine-cosine
embedding (three ranges, one over the channel count). Exported, each is a float16 ``Range`` ONNX Runtime refuses.
From the code alone the rule rewrites only the literal form (with ``--unsafe``); ``migrate`` applies it at every
range the recorded run saw in half precision and ends at exit 0, the rewritten model equivalent and its graph
faithful.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import migrate_json
from variant_models import assert_cited_by_distinct_owners, axes_json, load_variant

from trtcodemod.engine import Options, check_source, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt739"

#: variant -> the number of half-precision ranges its forward makes (each one is a TRT739 finding in migrate).
VARIANTS = {
    "nemotron_ocr_prior_offsets": 2,
    "yolov9_make_anchors": 2,
    "yolov5_make_grid": 2,
    "rotary_embedding_seq_pos": 1,
    "kornia_aifi_sincos": 3,
}


def test_five_owners() -> None:
    assert_cited_by_distinct_owners(HERE, list(VARIANTS))


@pytest.mark.parametrize("name", list(VARIANTS))
def test_from_the_code_alone_only_the_literal_dtype(name: str) -> None:
    """A ``dtype=`` name is half precision only where the run says so; a literal one is seen in the code."""
    path = HERE / f"{name}.py"
    findings = check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT739",), scope="all"))
    literal = name == "nemotron_ocr_prior_offsets"
    assert len(findings) == (VARIANTS[name] if literal else 0), findings
    if literal:
        new = fix_source(path.read_bytes(), str(path), Options(select=("TRT739",), scope="all", unsafe=True))
        assert new.source.decode().count(").to(torch.float16)") == 2


@pytest.mark.parametrize("name", list(VARIANTS))
def test_migrate_counts_in_integers_and_casts(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt739_{name}")
    report = migrate_json(path, axes_json(module))
    assert report["before"]["exported"] is True and report["before"]["faithful"] is False, report["before"]
    [line] = [i for i, text in enumerate(path.read_text().splitlines(), 1) if text.strip() == module.CALL]
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert ("TRT739", line) in applied, (report["applied"], report["remaining"])
    assert [rule for rule, _ in applied].count("TRT739") == VARIANTS[name], applied
    assert all("holds exactly" in fix["proof"] for fix in report["applied"] if fix["rule"] == "TRT739")
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["faithful"] is True and report["after"]["trt_errors"] == 0, report["after"]
