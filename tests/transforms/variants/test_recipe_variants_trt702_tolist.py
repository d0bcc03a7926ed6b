"""TRT702's ``.tolist()`` rewrite on real-code variants: a tensor of sizes handed to a call that reads
each element as a number.

``tests/recipe_variants/trt702/unet_pad_up_to_skip.py`` is reduced from a U-Net whose decoder pads the
upsampled map up to the skip connection's size (``F.pad(x, pad.tolist())`` of widths computed from
``torch.tensor`` of both shapes: the form zoo 24's fepegar/unet crops with, written the other way);
``pytracking_patch_resample.py`` from a tracker that resizes a patch to an output size held in a tensor
(``F.interpolate(patch, output_sz.long().tolist(), ...)``), each cited in its docstring. The TorchScript
export keeps the example's widths or size; ``.tolist()`` becomes ``_trt_tolist(...)``, the rewritten
graph equals eager mode at other sizes and values, and eager mode is unchanged (outputs, input
gradients, exceptions) on edge values too. ``migrate`` applies it (with TRT716 for the shapes) and
ends with exit 0, equivalent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest
import torch
from support import migrate_json
from variant_models import (assert_eager_unchanged, axes_json, built_pair, export_variant, graph_matches, line_of,
                            load_variant)

from trtcodemod.engine import Options, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt702"


def _unet_sets(example: tuple) -> dict[str, tuple]:
    generator = torch.Generator().manual_seed(1)
    return {
        "other-sizes": (torch.randn(2, 2, 17, 17, generator=generator), torch.randn(2, 3, 12, 12, generator=generator)),
        "even-difference": (torch.randn(1, 2, 12, 12, generator=generator),
                            torch.randn(1, 3, 8, 8, generator=generator)),
        "same-size": (torch.randn(1, 2, 6, 6, generator=generator), torch.randn(1, 3, 6, 6, generator=generator)),
        "zeros": (torch.zeros(1, 2, 9, 9), torch.zeros(1, 3, 4, 4)),
        "negatives": (-torch.rand(1, 2, 10, 10, generator=generator) - 1, -torch.rand(1, 3, 7, 7, generator=generator)),
    }


def _pytracking_sets(example: tuple) -> dict[str, tuple]:
    patch, _ = example
    generator = torch.Generator().manual_seed(2)
    return {
        "other-size": (patch, torch.tensor([5.0, 13.0])),
        "fractional-size": (patch, torch.tensor([6.7, 4.2])),  # `.long()` truncates: 6 x 4
        "upsample": (torch.randn(2, 3, 4, 5, generator=generator), torch.tensor([9.0, 11.0])),
        "zeros": (torch.zeros_like(patch), torch.tensor([3.0, 3.0])),
        "negatives": (-patch.abs() - 1, torch.tensor([12.0, 10.0])),
    }


# name → (rules, the rewritten call, its other input sets, eager-only edge sets)
VARIANTS: dict[str, tuple[tuple[str, ...], str, Callable[[tuple], dict[str, tuple]], dict[str, tuple]]] = {
    "unet_pad_up_to_skip": (("TRT702", "TRT716"), "up = F.pad(up, _trt_tolist(widths))", _unet_sets, {
        "inf-nan": (torch.full((1, 2, 9, 9), float("nan")), torch.full((1, 3, 5, 5), -float("inf"))),
        "empty-batch": (torch.randn(0, 2, 9, 9), torch.randn(0, 3, 5, 5)),
        "skip-smaller": (torch.randn(1, 2, 4, 4), torch.randn(1, 3, 8, 8)),  # negative widths: a crop
        "unequal-differences": (torch.randn(1, 2, 10, 12), torch.randn(1, 3, 8, 8)),  # raises in both (cat)
    }),
    "pytracking_patch_resample": (("TRT702",),
                                  'return F.interpolate(patch, _trt_tolist(output_sz.long()), mode="bilinear")',
                                  _pytracking_sets, {
        "inf-nan": (torch.tensor([float("inf"), float("nan"), -float("inf")]).repeat(40).reshape(1, 3, 5, 8),
                    torch.tensor([4.0, 6.0])),
        "empty-batch": (torch.randn(0, 3, 6, 6), torch.tensor([4.0, 4.0])),
        "zero-size": (torch.randn(1, 3, 6, 6), torch.tensor([0.0, 4.0])),  # raises in both
        "negative-size": (torch.randn(1, 3, 6, 6), torch.tensor([-2.0, 4.0])),  # raises in both
    }),
}


def _matches(session, model: torch.nn.Module, inputs: tuple) -> bool:
    # only the inputs the graph kept are fed: a trace that made `output_sz` a constant dropped it
    return graph_matches(session, model, inputs, kept_only=True)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_rewrite(name: str, tmp_path: Path) -> None:
    rules, call, _, _ = VARIANTS[name]
    module, original, rewritten, _ = built_pair(HERE / f"{name}.py", rules, tmp_path, "trt702_tolist")
    text = (tmp_path / f"{name}_rewritten.py").read_text()
    assert call in text and ".tolist()" not in text[text.index("\nclass "):], text  # the model's code
    path = HERE / f"{name}.py"
    # Unsafe: never without --unsafe (migrate keeps it only verified).
    assert fix_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT702",), scope="all")).source \
        == path.read_bytes()


def _export_and_compare(model, original, module, example: tuple, sets: dict[str, tuple], path: Path,
                        root: Path) -> tuple:
    """Whether ``model``'s TorchScript export warned at a list read out of a tensor, and which input
    sets (the example first) its graph computes as the original model does in eager mode."""
    session, traced = export_variant(model, example, module.DYNAMIC, path, root)
    warned = any("list" in message for _, _, message in traced)
    return warned, [label for label, inputs in {"example": example, **sets}.items()
                    if _matches(session, original, inputs)]


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_export_follows_the_sizes(name: str, tmp_path: Path) -> None:
    rules, _, make_sets, _ = VARIANTS[name]
    module, original, rewritten, example = built_pair(HERE / f"{name}.py", rules, tmp_path, "trt702_tolist")
    sets = make_sets(example)
    # Before: the TracerWarning at the .tolist(), the example's widths or size constants of the graph.
    warned, right = _export_and_compare(original, original, module, example, sets, tmp_path / "before.onnx", HERE)
    assert warned and right[0] == "example" and len(right) < len(sets) + 1, right
    # After: nothing read out of a tensor, and the graph follows every input set.
    warned, right = _export_and_compare(rewritten, original, module, example, sets, tmp_path / "after.onnx", tmp_path)
    assert not warned and right == ["example", *sets], right


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_eager_unchanged(name: str, tmp_path: Path) -> None:
    rules, _, make_sets, edges = VARIANTS[name]
    module, original, rewritten, example = built_pair(HERE / f"{name}.py", rules, tmp_path, "trt702_tolist")
    assert_eager_unchanged(original, rewritten, {"example": example, **make_sets(example), **edges})


@pytest.mark.parametrize("name", list(VARIANTS))
def test_migrate_takes_the_tolist(name: str) -> None:
    rules, _, _, _ = VARIANTS[name]
    path = HERE / f"{name}.py"
    report = migrate_json(path, axes_json(load_variant(path, f"trt702_tolist_m_{name}")))
    assert ("TRT702", line_of(path, ".tolist()")) in [(fix["rule"], fix["line"]) for fix in report["applied"]]
    assert {fix["rule"] for fix in report["applied"]} == set(rules)
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert "_trt_tolist(" in report["diff"], report["diff"]
