"""The inplace-bitwise rule (TRT384) on real-code variants: a running bool mask grown with ``|=``.

Each variant in ``tests/recipe_variants/trt384/`` is a small runnable model reduced from real code of a different
author (cited in its docstring): Code Llama's batched generation (``stop_reached |= (~input_text_mask[:, cur_pos]) &
(next_token == stop_token)``), kornia's convex polygon fill (the edges valid on a scanline, ``valid_edges |=`` the
edges that go up), LightGlue's adaptive point pruning (``keep |= confidences <= threshold``), mbrl-lib's model
environment rollout (``terminated |= dones``, ``dones`` from ``self.step``'s unpacked result), legged_gym's
termination check (``self.reset_buf |= self.time_out_buf``, an attribute) and EoMT's masked attention (zoo 90:
``allowed |= ~allowed.any(-1, keepdim=True)``, the name read in its own update, then written into another tensor's
elements).
``aten::__ior_`` has no TorchScript ONNX symbolic, so every original's export stops. Code Llama's, kornia's, LightGlue's and EoMT's are
rewritten from the code alone by the safe rule (no ``--unsafe``): eager mode is unchanged (values, gradients) and the graph,
exported with the variant's dynamic axes, equals eager mode in ONNX Runtime on other inputs. In mbrl-lib's and
legged_gym's the code does not show a tensor (a value unpacked from a method's result, an attribute), so the code alone leaves them;
``migrate``, with the facts of a recorded run, applies TRT384's unsafe form there, proved by the tensors it saw. On all six ``migrate`` applies TRT384 at the
line and ends at exit 0 with a faithful graph.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import rules_found
from variant_models import assert_cited_by_distinct_owners, assert_migrate_applies, assert_safe_rewrite_exports

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt384"
VARIANTS = sorted(p.stem for p in HERE.glob("*.py"))

#: variant -> the texts its augmented or becomes from the code alone.
CODE_ALONE_CALLS: dict[str, tuple[str, ...]] = {
    "codellama_stop_reached": (
        "stop_reached.bitwise_or_((~input_text_mask[:, cur_pos]) & (next_token == stop_token))",),
    "kornia_convex_polygon_fill": (
        "valid_edges.bitwise_or_((y_start[..., None, :] >= ys[..., :, None]).logical_and(ys[..., :, None] >= "
        "y_end[..., None, :]))",),
    "lightglue_point_pruning": ("keep.bitwise_or_(confidences <= self.confidence_thresholds[layer_index])",),
    "eomt_masked_attention": ("allowed.bitwise_or_(~allowed.any(-1, keepdim=True))",
                              "allowed.bitwise_or_(torch.rand(b, self.queries, 1, device=tokens.device) > prob)"),
}
#: variant -> input sets (as its ``inputs`` takes them) other than the example's.
SIZES: dict[str, list[tuple[int, ...]]] = {
    "codellama_stop_reached": [(4, 7)],  # a static batch: other prompts (another seed)
    "kornia_convex_polygon_fill": [(1, 3), (3, 8)],
    "lightglue_point_pruning": [(1,), (4,), (30,)],
    "eomt_masked_attention": [(1,), (5,)],
}
#: Variants whose target the code alone does not show to be a tensor: migrate's facts do.
FACTS_ONLY = ("legged_gym_check_termination", "mbrl_model_env_rollout")


def test_the_variants_are_the_ones_cited() -> None:
    assert VARIANTS == sorted((*CODE_ALONE_CALLS, *FACTS_ONLY)) and sorted(CODE_ALONE_CALLS) == sorted(SIZES)
    assert_cited_by_distinct_owners(HERE, VARIANTS, 6)


@pytest.mark.parametrize("name", sorted(CODE_ALONE_CALLS))
def test_rewritten_from_the_code_alone_exports_and_keeps_eager(name: str, tmp_path: Path) -> None:
    assert_safe_rewrite_exports(HERE / f"{name}.py", "TRT384", tmp_path, CODE_ALONE_CALLS[name], SIZES[name],
                                "aten::__ior_")


@pytest.mark.parametrize("name", FACTS_ONLY)
def test_the_code_alone_leaves_what_it_cannot_show(name: str) -> None:
    assert rules_found((HERE / f"{name}.py").read_text(), select=("TRT384",)) == []


@pytest.mark.parametrize("name", VARIANTS)
def test_migrate_applies_the_rule_end_to_end(name: str) -> None:
    assert_migrate_applies(HERE / f"{name}.py", "TRT384", f"trt384_migrate_{name}")
