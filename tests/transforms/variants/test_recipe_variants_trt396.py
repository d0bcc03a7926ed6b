"""A function applied chunk by chunk along the batch (points, rays, frames) and concatenated (TRT396), on real code.

Each variant in ``tests/recipe_variants/trt396/`` is a small runnable model reduced from a public repository of a
different owner (cited in its docstring), keeping the real code's form:

- yenchenlin/nerf-pytorch ``batchify``: ``torch.cat([fn(inputs[i:i+chunk]) for i in range(0, inputs.shape[0],
  chunk)], 0)`` over the flattened, embedded sample points;
- ep1phany05/NeuralPoissonSolver ``batchify`` and ``run_network``: the helper typed, spelled ``inputs[i:i + chunk]``
  with ``dim=0``, over the encoded points and view directions (``view``, ``expand_as``; two inputs following the rays);
- YudongGuo/AD-NeRF ``run_network``: the points with the frame's audio code and the rays' view directions expanded
  to every point and concatenated before ``batchify`` (three inputs, two of them following the rays);
- yegonkim/stap ``split_model``: the list ``[self.model(x_split) for x_split in x.split(self.batch_size)]`` bound to a
  name and concatenated on the next line;
- huggingface/diffusers ``MochiChunkedGroupNorm3D``: ``torch.cat([self.norm_layer(chunk) for chunk in x.split(
  self.chunk_size, dim=0)], dim=0)`` over the frames of the videos, merged with the batch.

The rule takes every one of them from the code alone (its forms need no observed fact: no form here iterates a
tensor's rows one by one), at the line of the variant's ``CALL``, and writes the whole call under ``_trt_tracing()``
only with ``--unsafe``. Eager mode is unchanged (outputs, errors, input gradients) at sizes that are a multiple of
the chunk, not a multiple, smaller than one chunk, empty, and on zeros, negatives, infinities and NaN; the original's
TorchScript export unrolls the example's chunks and misses a larger size; the rewritten one's graph equals eager mode
at every size. ``migrate`` applies TRT396 at that line and ends at exit 0, equivalent and faithful.

A sixth, autonomousvision/occupancy_networks ``Generator3D.eval_points`` (``p_split = torch.split(p,
self.points_batch_size)``, ``occ_hats = []``, ``for pi in p_split:`` appending, ``torch.cat(occ_hats, dim=0)``), is
the form the rule was widened for, a loop over pieces bound to a name earlier in the block. Its finding runs from the
split's line to the loop, since the graph makes its fixed pieces at the split: there ONNX Runtime refuses the last of
them (5, 5, 5 of 12 points, even at the example), and ``migrate`` locates that at the split's line, where the finding
must be for the fix to be tried. With that, ``migrate`` applies TRT396 there and ends at exit 0 too.

Read and left out: diffusers' VAE ``use_slicing`` decode (``if self.use_slicing and z.shape[0] > 1:`` chooses between
the whole batch and ``z.split(1)``: a size test, TRT389's); lucidrains/reformer-pytorch ``Chunk``
(reformer_pytorch/reformer_pytorch.py, ``chunks = x.chunk(self.chunks, dim = self.dim)`` then ``torch.cat([self.fn(c)
for c in chunks], dim = self.dim)``: a count of chunks, not a size, which the TorchScript exporter splits by the size
it meets, so its graph already follows the tokens (tried on a linear layer over 9, 7, 12 and 2 tokens after a trace
at 9): nothing to migrate; and a comprehension over a name bound a line earlier is a form the rule does not take);
AD-NeRF's ``batchify_rays`` (a dict of lists of render outputs concatenated key by key: no one concatenation of one
list); NVlabs/BundleSDF nerf_runner.py @ 31ed49ec8d06f426e0914f79239f285ec6e0c0bb (its ``batchify``, lines 29-36, is
defined but not called there; ``NerfRunner.run_network``, lines 1288-1294, starts ``outputs_flat = []`` outside a
``with torch.cuda.amp.autocast(...)`` block, loops ``for i in range(0,embedded.shape[0],chunk)`` appending
``self.models['model'](embedded[i:i+chunk])`` inside it and concatenates after it: a loop over ``range(0, n, k)``
with slices, across a ``with`` block, a form the rule does not take).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from variant_models import (assert_cited_by_distinct_owners, assert_eager_unchanged, assert_graph_within,
                            assert_migrate_corrects, assert_unsafe_rewrite, export_variant, graph_matches,
                            rewritten_variant, seeded)

from trtcodemod.engine import Options, check_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt396"

#: variant -> (a line of the rewrite, the sizes ``inputs`` takes: the example's chunks cover ``beyond`` less than it
#: holds; ``smaller`` holds fewer rows than one chunk; ``ragged`` is no multiple of the chunk; ``other`` another
#: multiple or not; ``empty`` no rows)
VARIANTS: dict[str, tuple[str, dict[str, tuple[int, ...]]]] = {
    "nerf_pytorch_batchify": (
        "        return (fn(inputs) if _trt_tracing() else torch.cat([fn(inputs[i:i+chunk]) for i in "
        "range(0, inputs.shape[0], chunk)], 0))",
        {"beyond": (5, 4), "smaller": (1, 4), "ragged": (5, 3), "other": (7, 3), "empty": (0, 4)}),
    "ep1phany05_neural_poisson_run_network": (
        "        return (network(inputs) if _trt_tracing() else torch.cat([network(inputs[i:i + chunk]) for i in "
        "range(0, inputs.shape[0], chunk)], dim=0))",
        {"beyond": (5, 4), "smaller": (1, 4), "ragged": (5, 3), "other": (2, 5), "empty": (0, 4)}),
    "yudongguo_adnerf_audio_query": (
        "        return (fn(inputs) if _trt_tracing() else torch.cat([fn(inputs[i:i+chunk]) for i in "
        "range(0, inputs.shape[0], chunk)], 0))",
        {"beyond": (5, 4), "smaller": (1, 4), "ragged": (5, 3), "other": (7, 3), "empty": (0, 4)}),
    "stap_split_model": (
        "        y = ([self.model(x)] if _trt_tracing() else [self.model(x_split) for x_split in "
        "x.split(self.batch_size)])",
        {"beyond": (5, 16), "smaller": (1, 16), "ragged": (7, 9), "other": (6, 16), "empty": (0, 16)}),
    "diffusers_mochi_chunked_group_norm": (
        "        output = (self.norm_layer(x) if _trt_tracing() else torch.cat([self.norm_layer(chunk) for chunk "
        "in x.split(self.chunk_size, dim=0)], dim=0))",
        {"beyond": (5, 3), "smaller": (1, 2), "ragged": (3, 1), "other": (2, 6), "empty": (0, 2)}),
    # the loop over pieces bound to a name a line earlier
    "autonomousvision_onet_eval_points": (
        "        for pi in ([p] if _trt_tracing() else p_split):",
        {"beyond": (17,), "smaller": (3,), "ragged": (13,), "other": (20,), "empty": (0,)}),
}
#: Variants whose baked graph ONNX Runtime refuses even at the example (ONet's last fixed piece).
REFUSED_AT_THE_EXAMPLE = {"autonomousvision_onet_eval_points"}


def _line(path: Path, call: str) -> int:
    [line] = [i for i, text in enumerate(path.read_text().splitlines(), 1) if text.strip() == call]
    return line


@pytest.fixture(scope="module", params=list(VARIANTS))
def variant(request, tmp_path_factory) -> dict:
    """The variant rewritten from its code alone (``--unsafe``), both models with the same weights."""
    folder = tmp_path_factory.mktemp(f"trt396_{request.param}")
    found = rewritten_variant(HERE / f"{request.param}.py", "TRT396", folder)
    found["folder"] = folder
    return found


def test_six_owners() -> None:
    assert_cited_by_distinct_owners(HERE, list(VARIANTS), count=6)


def test_the_rule_finds_the_chunked_call_at_its_line(variant: dict) -> None:
    path = variant["path"]
    found = [(f.rule, f.line) for f in check_source(path.read_bytes(), str(path.resolve()),
                                                    Options(select=("TRT396",), scope="all"))]
    assert found == [("TRT396", _line(path, variant["module"].CALL))], found
    assert_unsafe_rewrite(variant, (VARIANTS[variant["name"]][0],), "TRT396")


def _sets(module, sizes: dict[str, tuple[int, ...]]) -> dict[str, tuple]:
    example = module.inputs(seeded(0))
    sets = {label: module.inputs(seeded(sum(size) + 1), *size) for label, size in sizes.items()}
    specials = example[0].clone()
    specials.view(-1)[0], specials.view(-1)[-1] = float("inf"), float("nan")
    sets.update({"example": example, "zeros": tuple(torch.zeros_like(t) for t in example),
                 "negatives": tuple(-t.abs() - 0.5 for t in example), "inf and NaN": (specials, *example[1:])})
    return sets


def test_eager_is_unchanged_and_the_rewritten_graph_follows_the_chunked_axis(variant: dict) -> None:
    module, original, rewritten, folder = variant["module"], variant["original"], variant["rewritten"], \
        variant["folder"]
    sizes = VARIANTS[variant["name"]][1]
    sets = _sets(module, sizes)
    assert_eager_unchanged(original, rewritten, sets)
    if "(inputs[i:i" in module.CALL:
        for model in (original, rewritten):  # no rows: no chunk to concatenate, the same error before as after
            with pytest.raises(ValueError, match="non-empty list"):
                model(*sets["empty"])
    example = sets["example"]
    before, _ = export_variant(original, example, module.DYNAMIC, folder / "before.onnx", folder)
    # at the example the baked graph is right, except ONNX Runtime refuses the ONet split's last piece even there
    assert graph_matches(before, original, example) is (variant["name"] not in REFUSED_AT_THE_EXAMPLE)
    assert not graph_matches(before, original, sets["beyond"])  # the example's chunks, baked
    after, _ = export_variant(rewritten, example, module.DYNAMIC, folder / "after.onnx", folder)
    for label, inputs in sets.items():
        if label != "empty":
            assert_graph_within(after, original, inputs, 1e-5, label)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_migrate_applies_the_rule_at_the_line(name: str) -> None:
    assert_migrate_corrects(HERE / f"{name}.py", "TRT396", f"trt396_migrate_{name}")
