"""The shape-keyed cache recipe (TRT726) on real-code variants.

Each variant in ``tests/recipe_variants/trt726/`` is a small runnable model reduced from a public
repository (cited in its docstring): a YOLO-family head whose grid or priors are rebuilt only when a
feature map's size changes. For each one: an eager call fills the cache (the run migrate observes
before the export); the TorchScript export with dynamic axes then takes the cache hit, its
``TracerWarning`` at the ``if`` is the observed fact, and the graph is wrong at other sizes. The rule
rewrites the file with those facts (``--unsafe``, as migrate tries a verified candidate); the
rewritten model, exported after the same eager call, equals eager mode at every size, and eager
mode (outputs and the cache left on ``self``) is unchanged, bit for bit, over a sequence of sizes
that misses and hits the cache.

Grow-only caches (rotary tables, ALiBi biases and sinusoidal positions in language and speech models) are
rebuilt only for a longer sequence and read through a slice: the original graph is right at shorter
lengths (checked) and wrong past the cache the eager run left, so their other sizes are longer. Variants:
labml-nn's rotary ``_build_cache`` (a hit that returns early), x-transformers' ALiBi (a hit returning
``self.bias[..., -i:, -j:]``, the miss registering a buffer), PaLM-pytorch's rotary table and causal mask
(two such helpers), fairseq's sinusoidal positions (``max_pos > self.weights.size(0)``, the table read
through a local name), GPT-NeoX's rotary embedding in transformers 4.36 (``seq_len >
self.max_seq_len_cached``, the fill a method: taken since this stop) and GeneFace's copy of fairseq's
pre-0.12 positions (``self.weights = self.weights.to(self._float_tensor)`` after the ``if`` on every call:
taken since this stop) and ESPnet's positional encoding (the hit nested under ``if self.pe is not None:``,
moving the table to the input's dtype and device before its ``return``: taken since this stop).

Left, and why: Hugging Face's Speech2Text and
M2M100 positions (``if max_pos > self.weights.size(0): self.make_weights(...)``) key by a size of the
cache but fill it through a method, which only the length-keyed form follows, and in transformers 4.36
that method wraps the table in a new ``nn.Parameter``, which a trace records as a constant whatever the
``if`` does; rotary-embedding-torch keys ``self.cached_freqs_seq_len`` and writes into a preallocated
buffer by slice (0.5.0 and later fill through ``self.tmp_store(...)`` from the positions passed in, whose
values the cache then assumes); labml's ALiBi attention builds its biases from the first call's mask
values, not only its length (the memo contract holds for a causal mask only), so it stays in the unit
tests.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from safety import assert_same_run, run_once
from support import TESTS, assert_same
from variant_models import export_variant, graph_matches, load_variant, traced_facts, variant_inputs

from trtcodemod.engine import Options, fix_source

HERE = TESTS / "recipe_variants" / "trt726"

OTHERS = [[(1, 3, 4, 10)], [(1, 3, 9, 5)]]

# name → (a fragment of the rewritten code, the cache's attribute on self)
VARIANTS: dict[str, tuple[str, str]] = {
    "yolov5_detect": ("if _trt_tracing() or self.dynamic or self.grid[i].shape[2:4] != x.shape[2:4]:", "grid"),
    "yolov7_idetect": ("if _trt_tracing() or self.grid[i].shape[2:4] != x.shape[2:4]:", "grid"),
    "super_gradients_yolo": ("if _trt_tracing() or self.grid[i].shape[2:4] != output.shape[2:4]:", "grid"),
    "mmyolo_featmap_priors": ("if _trt_tracing() or featmap_sizes != self.featmap_sizes:", "mlvl_priors"),
    # Not taken before: the key read through a local alias, and the miss inside an `and`.
    "yolox_grid_alias": ("if _trt_tracing() or grid.shape[2:4] != output.shape[2:4]:", "grids"),
    # Not taken before: the cache in the method `Model.fuse` installs as forward (`m.forward = m.fuseforward`).
    "yolov7_fuseforward": ("if _trt_tracing() or self.grid[i].shape[2:4] != x.shape[2:4]:", "grid"),
    "ultralytics_format_guard": (
        'if self.format != "imx" and (_trt_tracing() or self.dynamic or self.shape != shape):', "anchors"),
    # Not taken before: the cache read on a hit and filled on a miss (an `else`), its key written at the
    # end of forward (DeAOT's local attention), or by forward for a helper method's two caches.
    "deaot_local_attention": ("if not _trt_tracing() and self.qk_mask is not None and (h, w) == self.last_size_2d:",
                              "qk_mask"),
    "deaot_padded_masks": ("if not _trt_tracing() and self.padded_local_mask is not None and (height,",
                           "padded_local_mask"),
    # Grow-only caches (rotary tables, ALiBi biases, sinusoidal positions in language and speech models):
    # rebuilt only for a longer sequence and read through a slice.
    "labml_rotary_cache": ("if not _trt_tracing() and self.cos_cached is not None and x.shape[0] <= "
                           "self.cos_cached.shape[0]:", "cos_cached"),
    "x_transformers_alibi": ("if not _trt_tracing() and exists(self.bias) and self.bias.shape[-1] >= j and "
                             "self.bias.shape[-2] >= i:", "rel_pos.bias"),
    "palm_rotary_and_mask": ("if not _trt_tracing() and self.pos_emb is not None and self.pos_emb.shape[-2] >= n:",
                             "pos_emb"),
    "fairseq_sinusoidal_positions": ("if _trt_tracing() or max_pos > self.weights.size(0):", "weights"),
    # Not taken before: the key is the length the tables were built for (an int on self), the fill a method.
    "gpt_neox_rotary_length": ("if _trt_tracing() or seq_len > self.max_seq_len_cached:", "rotary_emb.cos_cached"),
    # Not taken before: the cache converted to the module's dtype and device after the `if` on every call.
    "geneface_sinusoidal_positions": ("if _trt_tracing() or self.weights is None or max_pos > self.weights.size(0):",
                                      "embed_positions.weights"),
    # Not taken before: the hit nested under `if self.pe is not None:`, converting the table before its return.
    "espnet_positional_encoding": ("if not _trt_tracing() and self.pe.size(1) >= x.size(1):", "pe"),
}

# A grow-only cache: the graph is wrong only past the cache the eager run left, so the other sizes are
# longer than the example (name → longer sizes, then shorter ones the original graph gets right).
GROWN: dict[str, tuple[list, list]] = {
    "labml_rotary_cache": ([[(9, 2, 3, 6)], [(12, 2, 3, 6)]], [[(3, 2, 3, 6)]]),
    "x_transformers_alibi": ([[(2, 9, 6)], [(2, 12, 6)]], [[(2, 3, 6)]]),
    "palm_rotary_and_mask": ([[(2, 9, 6)], [(2, 12, 6)]], [[(2, 3, 6)]]),
    "fairseq_sinusoidal_positions": ([[(2, 9)], [(2, 12)]], [[(2, 3)]]),
    "gpt_neox_rotary_length": ([[(2, 3, 9, 4)], [(2, 3, 12, 4)]], [[(2, 3, 3, 4)]]),
    "geneface_sinusoidal_positions": ([[(2, 4, 9)], [(2, 4, 12)]], [[(2, 4, 3)]]),
    "espnet_positional_encoding": ([[(2, 9, 4)], [(2, 12, 4)]], [[(2, 3, 4)]]),
}


def _cache(model: torch.nn.Module, path: str):
    """The cache on the model or on a submodule (``rel_pos.bias``)."""
    for name in path.split("."):
        model = getattr(model, name)
    return model


def _built(module) -> torch.nn.Module:
    torch.manual_seed(0)
    return module.build().eval()


def _eager(model: torch.nn.Module, inputs: tuple) -> torch.Tensor:
    with torch.no_grad():
        return model(*inputs)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_migrates(name: str, tmp_path: Path) -> None:
    fragment, cache = VARIANTS[name]
    path = HERE / f"{name}.py"
    original_module = load_variant(path, f"trt726_{name}")
    original = _built(original_module)
    example = variant_inputs(original_module, None, 0)
    longer, shorter = GROWN.get(name, (OTHERS, []))
    sets = [variant_inputs(original_module, shapes, seed) for seed, shapes in enumerate(longer, 1)]
    shorter_sets = [variant_inputs(original_module, shapes, seed) for seed, shapes in enumerate(shorter, 11)]

    # Before: the eager call fills the cache; the export takes the hit (a TracerWarning at the
    # `if` says where) and keeps the example's grid at every size (a grow-only cache's rows: right
    # for a shorter input, which reads a slice of them, wrong for a longer one).
    _eager(original, example)
    before, traced = export_variant(original, example, original_module.DYNAMIC, tmp_path / "before.onnx", HERE)
    assert graph_matches(before, original, example)
    assert not any(graph_matches(before, original, inputs) for inputs in sets)
    assert all(graph_matches(before, original, inputs) for inputs in shorter_sets)

    # The rule with the observed facts (unsafe: migrate keeps it only verified), at the `if`
    # the TracerWarning names.
    options = Options(select=("TRT726",), unsafe=True, facts=traced_facts(path, traced), scope="all")
    new_source = fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()
    assert fragment in new_source, new_source
    source = path.read_text()
    original_test = fragment.replace("not _trt_tracing() and ", "").replace("_trt_tracing() or ", "")
    if_line = source[:source.rindex(original_test)].count("\n") + 1
    assert any(Path(f).resolve() == path.resolve() and line == if_line for f, line, _ in traced), traced
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(new_source)
    rewritten = _built(load_variant(new_path, f"trt726_rewritten_{name}"))
    rewritten.load_state_dict(original.state_dict())

    # The rewritten graph follows every size, exported after the same eager call.
    _eager(rewritten, example)
    after, _ = export_variant(rewritten, example, original_module.DYNAMIC, tmp_path / "after.onnx", HERE)
    for inputs in [example, *sets, *shorter_sets]:
        assert graph_matches(after, rewritten, inputs), (name, [t.shape for t in inputs])

    # Eager mode is unchanged, bit for bit: fresh instances over misses, hits, an empty batch
    # (an error on both sides) and non-finite values; outputs, gradients, exceptions and the
    # cache left on self alike.
    original, rewritten = _built(original_module), _built(load_variant(new_path, f"trt726_eager_{name}"))
    rewritten.load_state_dict(original.state_dict())
    odd = example[0].clone()
    if odd.is_floating_point():
        odd[..., 0, 0] = float("inf")
        odd[..., 1, 1] = float("nan")
        odd[..., 2, 2] = -0.0
    else:  # token ids: all padding
        odd.fill_(1)
    empty = (torch.zeros((0, *example[0].shape[1:]), dtype=example[0].dtype),)
    sequence = [example, example, *shorter_sets, *sets, (odd,), sets[0], *shorter_sets, empty, example]
    for index, inputs in enumerate(sequence):
        assert_same_run(run_once(original, list(inputs)), run_once(rewritten, list(inputs)), context=str(index))
        assert_same(_cache(original, cache), _cache(rewritten, cache))


def test_migrate_refreshes_the_deaot_masks_and_the_emptiness_tests_are_no_problem() -> None:
    """``migrate`` end to end on DeAOT's local attention: the eager run fills both masks, the export takes
    the hits (TracerWarnings at both ``if``s, where TRT721 also names ``self.qk_mask is not None``); both
    TRT726 fixes are kept, verified, and the emptiness tests they short-circuit while tracing are no
    problem any more (before: two TRT721 warnings left at the ``if`` lines)."""
    import json

    from typer.testing import CliRunner

    from trtcodemod.cli import app

    path = HERE / "deaot_local_attention.py"
    result = CliRunner().invoke(app, [
        "migrate", str(path), "--model", "build", "--inputs", "inputs", "--dynamic-axes",
        '{"x": {"2": "h", "3": "w"}}', "--format", "json", "--runs", "1", "--warmup", "0",
        "--backends", "torch-cpu,onnxruntime-cpu", "-j", "1"])
    [report] = json.loads(result.stdout)["models"]
    lines = path.read_text().splitlines()
    ifs = [i for i, line in enumerate(lines, 1) if line.startswith("        if self.") and "self.last_size_2d" in line]
    assert len(ifs) == 2
    assert [(a["rule"], a["line"]) for a in report["applied"]] == [("TRT726", line) for line in ifs]
    assert all(a["proof"].startswith("verified") and a["landed"] for a in report["applied"])
    assert report["after"]["faithful"] is True and report["equivalent"] is True and report["exit_code"] == 0
    assert not [r for r in report["remaining"] if r["rule"] == "TRT721"]
    assert {(i["rule"], i["line"]) for i in report["info"] if "TRT726 fix" in i["reason"]} >= {
        ("TRT721", line) for line in ifs}
