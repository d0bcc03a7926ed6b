"""The as-strided-windows recipe (TRT363) on real-code variants.

Each variant in ``tests/recipe_variants/trt363/`` is a small runnable model reduced from a public
repository (cited in its docstring) that builds windows of an axis with ``as_strided`` and strides read
from ``x.stride()``: lhotse's batched Kaldi frames, Longformer's overlapping chunks and value chunks
(allenai's, and NeMo's copy in a Conformer attention module), CogView's stretched window blocks. The
TorchScript export takes those strides as the example's numbers, so the graph reads other elements at
another length (or fails to run). The rule rewrites each file from the code alone (``--unsafe``; migrate
keeps it only verified); the rewritten model's TorchScript and dynamo graphs equal eager mode at other
sizes and on edge values, eager mode is unchanged bit for bit (outputs, gradients, exceptions), and
``migrate`` takes each variant end to end (exit 0).

Longformer's and CogView's chunks keep the view's rank (the windows run across the merged chunk and row
axes of a chunked view): the helper did not take them before it tried two neighbouring axes as one, and
migrate did not try the rule where the second trace located the bake at the call.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest
import torch
from support import TESTS, migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, assert_unsafe_rewrite, axes_json,
                            export_variant, export_variant_dynamo, graph_matches, line_of, rewritten_variant, seeded,
                            with_specials)

HERE = TESTS / "recipe_variants" / "trt363"


def _randn(*shape: int, seed: int) -> tuple[torch.Tensor]:
    return (torch.randn(shape, generator=seeded(seed)),)


class Variant(NamedTuple):
    fragment: str  # the rewritten call
    sets: dict[str, tuple[torch.Tensor, ...]]  # other sizes and edge values, for the graphs and eager mode
    eager: dict[str, tuple[torch.Tensor, ...]]  # eager mode only (empty inputs, lengths the model refuses)


def _sequence_sets(multiple: int, seed: int) -> dict[str, tuple[torch.Tensor, ...]]:
    """Sequences of 4 features whose length is a multiple of ``multiple``: longer, one chunk, zeros,
    negatives, inf/NaN."""
    return {"longer": _randn(3, 5 * multiple, 4, seed=seed), "one-chunk": _randn(1, multiple, 4, seed=seed + 1),
            "other-batch": _randn(4, 2 * multiple, 4, seed=seed + 2), "zeros": (torch.zeros(2, 3 * multiple, 4),),
            "negatives": (-torch.rand(2, 2 * multiple, 4, generator=seeded(seed + 3)) - 1,),
            "inf-nan": (with_specials((2, 3 * multiple, 4), seed + 4),)}


VARIANTS: dict[str, Variant] = {
    "lhotse_strided_batch": Variant("return _trt_as_strided(waveform, sizes, strides)", {
        "longer": _randn(3, 53, seed=1), "shorter-than-a-window": _randn(1, 5, seed=2), "other-batch": _randn(4, 16, seed=3),
        "zeros": (torch.zeros(2, 37),), "negatives": (-torch.rand(2, 21, generator=seeded(4)) - 1,),
        "inf-nan": (with_specials((2, 30), 5),)},
        {"no-waves": (torch.zeros(0, 37),)}),
    "longformer_chunked_values": Variant("return _trt_as_strided(padded_v, chunk_v_size, chunk_v_stride)",
                                         {**_sequence_sets(2, 10), "no-chunk-but-the-padding": _randn(2, 2, 4, seed=16)},
                                         {"no-sequences": (torch.zeros(0, 6, 4),)}),
    # Not taken before: windows across the chunk and row axes of a chunked view (the rank kept).
    "longformer_chunk": Variant("return _trt_as_strided(x, chunk_size, chunk_stride)", _sequence_sets(4, 20),
                                {"raises-not-whole-chunks": _randn(2, 10, 4, seed=26)}),
    "nemo_longformer_attention": Variant("return _trt_as_strided(x, overlapping, steps)", _sequence_sets(4, 30),
                                         {"raises-not-whole-chunks": _randn(2, 6, 4, seed=36)}),
    "cogview_window_chunks": Variant("return _trt_as_strided(x, chunk_size, chunk_stride)", _sequence_sets(2, 40),
                                     {"raises-odd-length": _randn(2, 7, 4, seed=46)}),
}


@pytest.fixture(scope="module", params=list(VARIANTS))
def migrated(request, tmp_path_factory) -> dict:
    """The variant rewritten from its code alone, the original's TorchScript graph and the rewritten
    model's TorchScript and dynamo graphs (each exported once, at the variant's example)."""
    folder = tmp_path_factory.mktemp(request.param)
    variant = rewritten_variant(HERE / f"{request.param}.py", "TRT363", folder)
    module = variant["module"]
    example = module.inputs(seeded(0))
    before, _ = export_variant(variant["original"], example, module.DYNAMIC, folder / "before.onnx", folder)
    after, _ = export_variant(variant["rewritten"], example, module.DYNAMIC, folder / "after.onnx", folder)
    dynamo = export_variant_dynamo(variant["rewritten"], example, module.DYNAMIC, folder / "dynamo.onnx")
    return dict(variant, example=example, before=before, after=after, dynamo=dynamo)


def test_the_rule_rewrites_the_call_from_the_code_alone(migrated) -> None:
    assert_unsafe_rewrite(migrated, (VARIANTS[migrated["name"]].fragment,), "TRT363")


def test_the_original_graph_keeps_the_examples_strides(migrated) -> None:
    """It equals eager mode at the example only: at another length it reads other elements or fails to run."""
    original, sets = migrated["original"], VARIANTS[migrated["name"]].sets
    assert graph_matches(migrated["before"], original, migrated["example"])
    assert not graph_matches(migrated["before"], original, sets["longer"])


@pytest.mark.parametrize("exporter", ["after", "dynamo"])
def test_the_rewritten_graphs_follow_every_size(migrated, exporter: str) -> None:
    sets = {"example": migrated["example"], **VARIANTS[migrated["name"]].sets}
    for label, inputs in sets.items():
        assert_graph_within(migrated[exporter], migrated["original"], inputs, 1e-5, f"{exporter} {label}")


def test_eager_mode_is_unchanged_bit_for_bit(migrated) -> None:
    variant = VARIANTS[migrated["name"]]
    assert_eager_unchanged(migrated["original"], migrated["rewritten"],
                           {"example": migrated["example"], **variant.sets, **variant.eager})


@pytest.mark.parametrize("name", list(VARIANTS))
def test_migrate_takes_the_variant_end_to_end(name: str) -> None:
    """The second trace locates the bake at the call (no TracerWarning there); migrate tries the rule as a
    candidate, verifies it and ends TensorRT-clean, faithful and equivalent without ``--unsafe``."""
    path = HERE / f"{name}.py"
    from variant_models import load_variant

    report = migrate_json(path, axes_json(load_variant(path, f"trt363_migrate_{name}")))
    applied = [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert applied == [("TRT363", line_of(path, ".as_strided("))], (applied, report["remaining"])
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
