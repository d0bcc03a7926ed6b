"""The split-by-size recipe (TRT718) on real-code variants.

Each variant in ``tests/recipe_variants/trt718/`` is a small runnable model reduced from a public
repository (cited in its docstring) that stacks parts of one size along the batch and cuts them
back with ``split`` by a traced size: GMAN's head merge (``torch.split(X, batch_size, dim=0)``),
hlb-CIFAR10's flip average (``x.split(x.shape[0]//2, dim=0)``) and the S2 multi-scale wrapper
(``out.split(b, dim=0)`` in a comprehension) and the Set Transformer's head merge
(``torch.cat((Q_ + A.bmm(V_)).split(Q.size(0), 0), 2)``). The original's
TorchScript export warns at the split and keeps the example's sizes: right at the example's batch,
refused by ONNX Runtime at another. The rule, with the facts ``migrate`` records (the export's
warnings), rewrites each file (``--unsafe``, as migrate tries a verified candidate); the rewritten
graph, with both exporters, equals eager mode at other batches and on zeros, negatives and inf/NaN,
and eager mode is unchanged bit for bit (outputs, gradients). RAFT's list of equal sections is left
alone, and needs nothing: its export follows every batch. The S2 wrapper's batched forward
(``x.split(batch_size)``) reads each part's size: its rewritten graph follows the batch too.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from variant_models import (
    assert_eager_unchanged,
    assert_graph_equals_eager,
    built,
    export_variant,
    export_variant_dynamo,
    graph_matches,
    load_variant,
    rewrite_variant,
    traced_facts,
    variant_inputs,
)

from trtcodemod.engine import Options, check_source
from support import TESTS

HERE = TESTS / "recipe_variants" / "trt718"

# name → (fragments of the rewritten code, input shapes of two other input sets)
VARIANTS: dict[str, tuple[tuple[str, ...], list[list[tuple[int, ...]]]]] = {
    # The function form, a local bound to the batch size before the name is rebound.
    "pyg_temporal_gman_heads": (("X = torch.cat(_trt_split_by_size(X, batch_size, 0), dim=-1)",),
                                [[(3, 4, 5, 8), (3, 4, 5, 8)], [(1, 2, 7, 8), (1, 2, 7, 8)]]),
    # Arithmetic of a size of a submodule's output (not taken before).
    "hlb_cifar10_flip_average": (("orig, flipped = _trt_split_by_size(x, x.shape[0]//2, 0)",),
                                 [[(3, 3, 9, 9)], [(1, 3, 9, 9)]]),
    # A size unpacked from a shape, the receiver a comprehension's name.
    "s2wrapper_multiscale": (("torch.stack(_trt_split_by_size(out, b, 0), dim=0).mean(dim=0) "
                              "for out in outs_prefix_multiscale",),
                             [[(3, 3, 8, 8)], [(1, 3, 8, 8)]]),
    # The receiver an expression (a sum of the heads' outputs), the size a positional `.size(0)` of
    # a submodule's output, the axis positional.
    "set_transformer_mab_heads": (("merged = torch.cat(_trt_split_by_size(q + weights.bmm(v), Q.size(0), 0), 2)",),
                                  [[(3, 7, 4)], [(1, 3, 4)]]),
}

#: Variants whose graphs run ``MaxPool``, which in ONNX Runtime skips a NaN where torch returns it:
#: on inf/NaN inputs the rewritten graph is compared with the original's at the example's batch.
NAN_SKIPPING = {"hlb_cifar10_flip_average"}


def _edges(inputs: tuple[torch.Tensor, ...]) -> dict[str, tuple[torch.Tensor, ...]]:
    """Zeros, negatives and inf/NaN at the example's batch."""
    odd = []
    for t in inputs:
        t = t.clone()
        t.view(-1)[:3] = torch.tensor([float("inf"), float("nan"), -float("inf")])
        odd.append(t)
    return {"zeros": tuple(torch.zeros_like(t) for t in inputs),
            "negatives": tuple(-t.abs() - 1 for t in inputs), "inf-nan": tuple(odd)}


@pytest.fixture(scope="module", params=list(VARIANTS))
def migrated(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A variant's original export, the rule's rewrite with that export's facts, and the rewritten export."""
    name = request.param
    folder = tmp_path_factory.mktemp(name)
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt718_{name}")
    original = built(module)
    example = variant_inputs(module, None, 0)
    before, traced = export_variant(original, example, module.DYNAMIC, folder / "before.onnx", HERE)
    options = Options(select=("TRT718",), unsafe=True, scope="all", facts=traced_facts(path, traced))
    source, rewritten_module = rewrite_variant(path, options, folder, f"trt718_rewritten_{name}")
    rewritten = built(rewritten_module)
    rewritten.load_state_dict(original.state_dict())
    after, _ = export_variant(rewritten, example, module.DYNAMIC, folder / "after.onnx", folder)
    others = [variant_inputs(module, shapes, seed) for seed, shapes in enumerate(VARIANTS[name][1], 1)]
    return dict(name=name, path=path, module=module, original=original, rewritten=rewritten, source=source,
                traced=traced, before=before, after=after, example=example, others=others, folder=folder)


def test_the_original_graph_keeps_the_example_batch(migrated: dict) -> None:
    lines = migrated["path"].read_text().splitlines()
    warned = {lines[line - 1].strip() for _, line, message in migrated["traced"] if "Python integer" in message}
    assert any(".split(" in line for line in warned), warned
    assert graph_matches(migrated["before"], migrated["original"], migrated["example"])
    assert not any(graph_matches(migrated["before"], migrated["original"], inputs) for inputs in migrated["others"])


def test_the_code_alone_does_not_show_a_traced_size(migrated: dict) -> None:
    """Every variant's receiver or size comes from a submodule, a parameter or a comprehension:
    only the observed export's warning at the line makes it a traced size."""
    path = migrated["path"]
    options = Options(select=("TRT718",), unsafe=True, scope="all")
    assert check_source(path.read_bytes(), str(path.resolve()), options) == []


def test_the_rule_rewrites_with_the_observed_facts(migrated: dict) -> None:
    for fragment in VARIANTS[migrated["name"]][0]:
        assert fragment in migrated["source"], migrated["source"]
    # GMAN's head split by a configured width (no size, no warning) stays as written; so does the
    # S2 wrapper's batched forward, which its default never runs (no warning there).
    kept = {"pyg_temporal_gman_heads": "        query = torch.cat(torch.split(query, self._K, dim=-1), dim=0)\n",
            "s2wrapper_multiscale": "    x_batched = x.split(batch_size)\n"}
    assert kept.get(migrated["name"], "") in migrated["source"]


def test_the_rewritten_graph_equals_eager(migrated: dict) -> None:
    sets = {"example": migrated["example"], **{f"other{i}": s for i, s in enumerate(migrated["others"])},
            **_edges(migrated["example"])}
    for label, inputs in sets.items():
        if label == "inf-nan" and migrated["name"] in NAN_SKIPPING:
            feed = {i.name: t.numpy() for i, t in zip(migrated["before"].get_inputs(), inputs)}
            [want] = migrated["before"].run(None, feed)
            [got] = migrated["after"].run(None, feed)
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, equal_nan=True)
            continue
        assert_graph_equals_eager(migrated["after"], migrated["original"], inputs, f"{migrated['name']} {label}")


def test_eager_mode_is_unchanged(migrated: dict) -> None:
    sets = {"example": migrated["example"], **{f"other{i}": s for i, s in enumerate(migrated["others"])},
            **_edges(migrated["example"])}
    assert_eager_unchanged(migrated["original"], migrated["rewritten"], sets)


def test_the_dynamo_export_of_the_rewrite_follows_the_batch(migrated: dict) -> None:
    session = export_variant_dynamo(migrated["rewritten"], migrated["example"], migrated["module"].DYNAMIC,
                                    migrated["folder"] / "dynamo.onnx")
    for inputs in migrated["others"]:
        assert_graph_equals_eager(session, migrated["original"], inputs, migrated["name"])


def test_an_empty_batch_runs_as_before(migrated: dict) -> None:
    """No images: outside an export the helper is ``split`` itself, so the rewritten model does what
    the original does: the S2 wrapper's split of the prefix tokens by 0 returns one empty part and
    the model an empty output; GMAN and hlb-CIFAR10 raise either way (a projection of the one empty
    part, the unpacking of one part into two; the Set Transformer's one empty part holds one head's
    channels, too few for its output projection). The rule's assumption (an axis of whole parts,
    at least one) concerns the exported graph alone."""
    empty = tuple(t[:0] for t in migrated["example"])
    with torch.no_grad():
        if migrated["name"] == "s2wrapper_multiscale":
            assert migrated["original"](*empty).shape[0] == 0
            assert migrated["rewritten"](*empty).shape[0] == 0
        else:
            for model in (migrated["original"], migrated["rewritten"]):
                with pytest.raises((RuntimeError, ValueError)):
                    model(*empty)


RAFT = HERE / "raft_pair_sections.py"
RAFT_LINE = "            x = torch.split(x, [batch_dim, batch_dim], dim=0)"


def test_raft_sections_are_left_alone_and_need_nothing(tmp_path: Path) -> None:
    """A list of sections keeps its traced sizes in the graph: no warning, every batch right; the
    rule leaves the line even where an export warned at it."""
    module = load_variant(RAFT, "trt718_raft_pair_sections")
    model = built(module)
    example = variant_inputs(module, None, 0)
    session, traced = export_variant(model, example, module.DYNAMIC, tmp_path / "raft.onnx", HERE)
    assert traced == []
    for seed, shapes in enumerate(([(3, 3, 8, 8)] * 2, [(1, 3, 8, 8)] * 2), 1):
        assert_graph_equals_eager(session, model, variant_inputs(module, shapes, seed), str(shapes))
    line = RAFT.read_text().splitlines().index(RAFT_LINE) + 1
    facts = traced_facts(RAFT, [(str(RAFT), line, "Converting a tensor to a Python integer might cause the trace "
                                                  "to be incorrect.")])
    options = Options(select=("TRT718",), unsafe=True, scope="all", facts=facts)
    assert check_source(RAFT.read_bytes(), str(RAFT.resolve()), options) == []


def test_s2_batched_forward_is_rewritten_and_follows_the_batch(tmp_path: Path) -> None:
    """With ``split_forward`` the model runs on each part of ``x.split(batch_size)`` and reads its
    size (a class token expanded to it). The parts come from a ``view`` while exporting, whose
    sizes the TorchScript export keeps as computed (a part of ``unflatten(0, (-1, n))``, the
    rule's earlier form, kept the example's batch there): the rewritten graph follows the batch."""
    path = HERE / "s2wrapper_multiscale.py"
    module = load_variant(path, "trt718_s2_batched")
    torch.manual_seed(0)
    original = module.build_batched().eval()
    example = variant_inputs(module, None, 0)
    _, traced = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", HERE)
    options = Options(select=("TRT718",), unsafe=True, scope="all", facts=traced_facts(path, traced))
    source, rewritten_module = rewrite_variant(path, options, tmp_path, "trt718_rewritten_s2_batched")
    assert "    x_batched = _trt_split_by_size(x, batch_size, 0)\n" in source
    torch.manual_seed(0)
    rewritten = rewritten_module.build_batched().eval()
    rewritten.load_state_dict(original.state_dict())
    after, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    before, _ = export_variant(original, example, module.DYNAMIC, tmp_path / "before2.onnx", tmp_path)
    other = variant_inputs(module, [(3, 3, 8, 8)], 1)
    assert graph_matches(after, original, example) and graph_matches(after, original, other)
    assert not graph_matches(before, original, other)