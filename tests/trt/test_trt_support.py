"""The shipped TensorRT support table: it parses, matches the reference data, answers per version."""

from __future__ import annotations

import csv

import pytest

from trtcodemod.trt import support
from support import REPO

REFERENCE = REPO.parent / "shared" / "reference"
needs_reference = pytest.mark.skipif(not REFERENCE.is_dir(), reason="shared/reference not beside the repo")


def _reference_rows(name: str) -> dict[str, dict[str, str]]:
    with open(REFERENCE / name, newline="", encoding="utf-8") as handle:
        return {row["onnx_op"]: row for row in csv.DictReader(handle)}


def test_table_parses_with_versions_in_order() -> None:
    versions = support.listed_versions()
    assert versions == ((8, 4), (8, 5), (8, 6), (9, 0), (9, 3), (10, 0), (10, 1), (10, 15))
    table = support.table()
    assert len(table) >= 200
    for row in table.values():
        assert set(row.status) == set(versions)
        assert set(row.status.values()) <= {"Y", "N", "-"}


def test_table_cites_its_source() -> None:
    from importlib import resources

    text = resources.files("trtcodemod.trt").joinpath("onnx_ops.csv").read_text(encoding="utf-8")
    assert "onnx/onnx-tensorrt docs/operators.md" in text.splitlines()[1]


@needs_reference
def test_every_reference_op_present_with_same_flags() -> None:
    history = _reference_rows("trt_onnx_ops_history.csv")
    current = _reference_rows("trt_onnx_ops.csv")
    table = support.table()
    assert set(history) == set(table) == set(current)
    columns = [c for c in next(iter(history.values())) if c != "onnx_op"]
    for op, ref in history.items():
        flags = [table[op].status[v] for v in support.listed_versions()]
        assert flags == [ref[c] for c in columns], op
        assert table[op].supported_in((10, 15)) == (current[op]["supported"] == "Y"), op


@needs_reference
def test_restrictions_are_paraphrased_not_pasted() -> None:
    current = _reference_rows("trt_onnx_ops.csv")
    for op, ref in current.items():
        upstream = ref["restrictions_notes"]
        ours = support.restrictions(op)
        assert bool(upstream) == bool(ours), op
        if upstream:
            assert ours != upstream and len(ours) <= len(upstream), op


@pytest.mark.parametrize(
    ("op", "target", "expected"),
    [
        ("NonZero", "8.4", False),
        ("NonZero", "8.5", True),
        ("NonZero", "8.6", True),
        ("Gelu", "8.6", False),  # '-' in the table: not listed before 10.0
        ("Gelu", "9.3", False),
        ("Gelu", "10.0", True),
        ("Gelu", "10.x", True),
        ("Unique", "10.x", False),
        ("LayerNormalization", "8.5", False),
        ("LayerNormalization", "8.6", True),
        ("Conv", "8.6", True),
        ("NoSuchOp", "8.6", None),
    ],
)
def test_is_supported(op: str, target: str, expected: bool | None) -> None:
    assert support.is_supported(op, target) is expected


def test_target_between_listed_versions_uses_newest_not_newer() -> None:
    assert support.resolve_target("9.1").version == (9, 0)
    assert support.resolve_target("10.5").version == (10, 1)
    assert support.resolve_target("10.x").version == (10, 15)
    assert support.resolve_target("9").version == (9, 3)
    assert support.resolve_target((8, 6)).version == (8, 6)
    assert support.resolve_target("8.6").note is None
    # Hardmax arrives in 9.3: 9.1 maps to 9.0, which lacks it.
    assert support.is_supported("Hardmax", "9.1") is False
    assert support.is_supported("Hardmax", "9.3") is True


def test_old_target_is_clamped_and_said_so() -> None:
    resolved = support.resolve_target("7.1")
    assert resolved.version == (8, 4)
    assert resolved.note and "7.1" in resolved.note and "8.4" in resolved.note
    assert support.is_supported("NonZero", "7.1") is False
    future = support.resolve_target("11")
    assert future.version == (10, 15) and future.note and "10.15" in future.note


def test_dtypes_and_restrictions() -> None:
    assert support.supported_dtypes("Conv") == ("FP32", "FP16", "BF16")
    assert support.supports_dtype("Conv", "float32") is True
    assert support.supports_dtype("Conv", "INT64") is False
    assert support.supports_dtype("Cast", "uint8") is True
    assert support.supports_dtype("Unique", "FP32") is None  # no dtypes listed
    assert support.supports_dtype("NoSuchOp", "FP32") is None
    assert "3840" in support.restrictions("TopK")
    assert "cubic" in support.restrictions("Resize")
    assert support.restrictions("Relu") == ""
    assert support.first_supported("NonZero") == (8, 5)
    assert support.first_supported("Unique") is None
