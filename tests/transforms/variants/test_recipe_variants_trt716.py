"""The tensor-of-sizes recipe (TRT716) on a real-code variant whose numbers are fractions of sizes.

``tests/recipe_variants/trt716/gmflow_local_correlation.py`` is reduced from GMFlow's local matching
(cited in its docstring): the sampling coordinates are normalised by ``torch.Tensor([(w - 1) / 2.,
(h - 1) / 2.])``, the legacy constructor of numbers computed from sizes a caller hands down. The
TorchScript export keeps the example's numbers (its graph samples the wrong places at another size);
from the code alone the rule cannot tell that ``h`` and ``w`` are sizes, so it takes the call where the
export warned there, as migrate does: migrate applies it and ends with exit 0, equivalent, and the
rewritten graph equals eager mode at other sizes while eager mode is unchanged.
"""

from __future__ import annotations

from pathlib import Path

import torch
from support import migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, built, export_variant, graph_matches,
                            load_variant, observed_facts, rewrite_variant, seeded)
from variant_models import line_of as _line_of, axes_json as _axes_json

from trtcodemod.engine import Options, check_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt716"
NAME = "gmflow_local_correlation"
CALL = "c = torch.Tensor([(w - 1) / 2., (h - 1) / 2.]).float().to(coords.device)"
REWRITTEN = "c = _trt_sizes_legacy_tensor([(w - 1) / 2., (h - 1) / 2.]).float().to(coords.device)"


def test_migrate_takes_the_normaliser_and_the_model_exports_equivalent() -> None:
    path = HERE / f"{NAME}.py"
    module = load_variant(path, f"trt716_m_{NAME}")
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["faithful"] is False
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT716", _line_of(path, CALL))]
    assert report["after"]["faithful"] is True
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert REWRITTEN in report["diff"], report["diff"]


def test_the_rewrite_follows_the_size_where_the_original_bakes_it(tmp_path: Path) -> None:
    path = HERE / f"{NAME}.py"
    module = load_variant(path, f"trt716_d_{NAME}")
    original = built(module)
    example = module.inputs(seeded(0))
    assert check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT716",), scope="all")) == []
    baked, traced = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", HERE)
    facts = observed_facts(path, module, tmp_path, traced)
    text, after = rewrite_variant(path, Options(select=("TRT716",), unsafe=True, facts=facts, scope="all"), tmp_path,
                                  f"trt716_d_rewritten_{NAME}")
    assert REWRITTEN in text
    rewritten = built(after)
    rewritten.load_state_dict(original.state_dict())
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)

    def pair(b, h, w, seed):
        return (torch.randn(b, 4, h, w, generator=seeded(seed)), torch.randn(b, 4, h, w, generator=seeded(seed + 9)))

    sets = {"other size": pair(2, 12, 20, 1), "tall": pair(1, 16, 6, 2), "zeros": (torch.zeros(1, 4, 6, 6),) * 2,
            "negatives": tuple(-t.abs() for t in pair(1, 10, 7, 3))}
    assert not graph_matches(baked, original, sets["other size"])
    for label, inputs in sets.items():
        assert_graph_within(session, original, inputs, 1e-5, label)
    assert_eager_unchanged(original, rewritten, {"example": example, **sets})
