"""The matrix-transpose recipe (TRT314, ``x.mT``) on real-code variants.

Each variant in ``tests/recipe_variants/trt314/`` is a small runnable model reduced from public code
(source, version and lines cited in its docstring), the property read as its original writes it:
kornia's Sampson distances (``F.mT[:, :2]``: the property then a slice, on a parameter named ``F``),
kornia's DeDoDe descriptors (``F.grid_sample(...)[\\n :, :, 0\\n].mT``: a call's subscript over three
lines), timm's Muon Newton-Schulz loop (``X = X.mT`` rebound, ``X @ X.mT``), PyTorch's low-rank
normal covariance (``self._unbroadcasted_cov_factor.mT``, an attribute as a call's argument) and
GPyTorch's predictive updates (three reads in parentheses and an elementwise product). One form was
not taken before: a parameter named ``F`` was taken for ``torch.nn.functional`` (a module's
attribute), so kornia's fundamental matrix kept its ``F.mT``; the rule now takes a parameter of an
enclosing function as the function's tensor.

The TorchScript exporter stops at each original (``aten::mT`` has no symbolic). The rule finds every
read from the code alone (safe fixes; the low-rank covariance's ``torch.diag_embed`` is TRT337's, its
safe fix applied with it), the rewritten model exports, its graph equals eager mode on other sizes
and edge values (zeros, negatives, inf/NaN, empty batches) in shape, dtype and values (within float
rounding: ONNX Runtime's products sum in another order), and eager mode is unchanged bit for bit
(outputs, inputs afterwards, gradients, exceptions). ``migrate`` applies the rules at the same lines
and ends equivalent (exit 0).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

import pytest
import torch
from support import TESTS, migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, axes_json, built_variant, export_variant,
                            input_names, load_variant, seeded)

from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.verify.export import export_model

HERE = TESTS / "recipe_variants" / "trt314"
NAN, INF = float("nan"), float("inf")


class Variant(NamedTuple):
    found: tuple[tuple[str, str, int], ...]  # (rule, the original line's fragment, findings on that line)
    fragments: tuple[str, ...]  # the rewritten lines
    sets: dict[str, tuple[torch.Tensor, ...]]  # "eager-": compared in eager mode only
    tolerance: float = 1e-5  # relative to the output's largest finite magnitude (1 at least)


def _points(n: int, seed: int, scale: float = 1.0) -> torch.Tensor:
    return torch.cat([torch.randn(n, 2, generator=seeded(seed)) * scale, torch.ones(n, 1)], 1)


def _with(t: torch.Tensor, *values: float) -> torch.Tensor:
    t = t.clone()
    t.view(-1)[:len(values)] = torch.tensor(values)
    return t


def _rand(*shape: int, seed: int) -> torch.Tensor:
    return torch.randn(*shape, generator=seeded(seed))


VARIANTS: dict[str, Variant] = {
    "kornia_sampson_errors": Variant(
        (("TRT314", "lines_t = (F.mT[:, :2]", 1),),
        ("lines_t = (_trt_mT(F)[:, :2].reshape(2 * m, 3) @ x2.T).view(m, 2, n)",), {
            "more": (_rand(9, 3, 3, seed=1), _points(17, 2, 100.0), _points(17, 3, 100.0)),
            "one-model-one-point": (_rand(1, 3, 3, seed=4), _points(1, 5), _points(1, 6)),
            # A zero model: every denominator 0, every distance inf.
            "zeros": (torch.zeros(2, 3, 3), _points(4, 7), _points(4, 8)),
            "negatives": (-_rand(3, 3, 3, seed=9).abs(), -_points(5, 10).abs(), _points(5, 11)),
            "nan-and-inf": (_with(_rand(2, 3, 3, seed=12), NAN), _with(_points(3, 13), INF), _points(3, 14)),
            # ONNX Reshape reads a 0 in its target shape as "keep this axis": the graph's views of zero
            # models or points fail in ONNX Runtime, with or without the fix. Eager mode only.
            "eager-no-models": (torch.zeros(0, 3, 3), _points(4, 15), _points(4, 16)),
            "eager-no-points": (_rand(3, 3, 3, seed=17), torch.zeros(0, 3), torch.zeros(0, 3)),
        }),
    "kornia_dedode_describe": Variant(
        (("TRT314", "return F.grid_sample(", 1),),  # the expression starts there
        ("return _trt_mT(F.grid_sample(descriptions.float(), keypoints[:, None], mode=\"bilinear\", "
         "align_corners=False)[\n            :, :, 0\n        ])\n",), {
            "larger": (torch.rand(3, 3, 17, 23, generator=seeded(20)),
                       torch.rand(3, 11, 2, generator=seeded(21)) * 2 - 1),
            "outside-the-image": (torch.rand(1, 3, 8, 8, generator=seeded(22)),
                                  torch.tensor([[[-1.5, 0.0], [1.0, 1.0], [3.0, -2.0], [-1.0, -1.0]]])),
            "zeros": (torch.zeros(2, 3, 6, 9), torch.zeros(2, 3, 2)),
            "negatives": (-torch.rand(2, 3, 10, 12, generator=seeded(23)) * 5,
                          -torch.rand(2, 5, 2, generator=seeded(24))),
            # ONNX Runtime's GridSample weighs an infinite or NaN corner otherwise than eager mode: eager only.
            "eager-inf-nan": (_with(torch.rand(1, 3, 6, 6, generator=seeded(25)), INF, NAN, -INF),
                              torch.tensor([[[0.0, 0.0], [NAN, 0.5]]])),
            "no-keypoints": (torch.rand(2, 3, 10, 12, generator=seeded(26)), torch.zeros(2, 0, 2)),
            "no-images": (torch.zeros(0, 3, 10, 12), torch.zeros(0, 7, 2)),
        }),
    "timm_muon_newton_schulz": Variant(
        (("TRT314", "X = X.mT", 1), ("TRT314", "A = X @ X.mT", 1)),
        ("X = _trt_mT(X)", "A = X @ _trt_mT(X)"), {
            "more": (_rand(7, 6, 4, seed=30),),
            "one": (_rand(1, 6, 4, seed=31) * 100,),
            "zeros": (torch.zeros(2, 6, 4),),  # the norm clamped to eps: zeros stay zeros
            "negatives": (-_rand(3, 6, 4, seed=32).abs(),),
            "rank-one": (torch.ones(2, 6, 4),),
            "inf-nan": (torch.cat([_with(_rand(1, 6, 4, seed=33), INF), _with(_rand(1, 6, 4, seed=34), NAN)]),),
            "empty-batch": (torch.zeros(0, 6, 4),),
        }),
    "torch_lowrank_mvn_covariance": Variant(
        (("TRT314", "self._unbroadcasted_cov_factor, self._unbroadcasted_cov_factor.mT", 1),
         ("TRT337", "torch.diag_embed(", 1)),
        ("self._unbroadcasted_cov_factor, _trt_mT(self._unbroadcasted_cov_factor)",), {
            "more": (_rand(11, 5, seed=40),),
            "zeros": (torch.zeros(2, 5),),
            "negatives": (-_rand(3, 5, seed=41).abs() * 30,),
            "inf-nan": (torch.tensor([[INF, 0.0, 1.0, -1.0, 2.0], [NAN, 1.0, 0.0, 0.0, 0.0],
                                      [-INF, 0.0, 0.0, 0.0, 0.0]]),),
            "empty-batch": (torch.zeros(0, 5),),
        }),
    "gpytorch_predictive_updates": Variant(
        (("TRT314", "mean_update = (interp_term.mT", 1), ("TRT314", "variance_update = torch.sum(interp_term.mT", 2)),
        ("mean_update = (_trt_mT(interp_term) @ inducing_values.unsqueeze(-1)).squeeze(-1)",
         "variance_update = torch.sum(_trt_mT(interp_term) * (_trt_mT(interp_term) @ middle), dim=-1)"), {
            "more-data": (_rand(3, 4, 13, seed=50), _rand(3, 4, seed=51), _rand(3, 4, 4, seed=52)),
            "zeros": (torch.zeros(2, 4, 6), torch.zeros(2, 4), torch.zeros(2, 4, 4)),
            "negatives": (-_rand(2, 4, 6, seed=53).abs(), -_rand(2, 4, seed=54).abs(), -torch.eye(4).expand(2, 4, 4)
                          .clone()),
            "inf-nan": (_with(_rand(2, 4, 6, seed=55), INF, NAN), _rand(2, 4, seed=56), _with(_rand(2, 4, 4, seed=57),
                                                                                               -INF)),
            "no-data": (torch.zeros(2, 4, 0), _rand(2, 4, seed=58), _rand(2, 4, 4, seed=59)),
            "empty-batch": (torch.zeros(0, 4, 6), torch.zeros(0, 4), torch.zeros(0, 4, 4)),
        }),
}


def _rules(name: str) -> tuple[str, ...]:
    return tuple(sorted({rule for rule, _, _ in VARIANTS[name].found}))


def _lines_of(path: Path, fragment: str) -> list[int]:
    """Every line of code in ``path`` that holds ``fragment`` (after the module's docstring)."""
    text = path.read_text()
    start = text[:text.index('"""', 3)].count("\n") + 1
    lines = [i for i, line in enumerate(text.splitlines(), 1) if i > start and fragment in line]
    assert lines, fragment
    return lines


def _expected(name: str) -> list[tuple[str, int]]:
    """(rule, line) of every finding: ``count`` on each line that holds the fragment."""
    path = HERE / f"{name}.py"
    return sorted((rule, line) for rule, fragment, count in VARIANTS[name].found
                  for line in _lines_of(path, fragment) for _ in range(count))


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_rule_finds_every_read_from_the_code_and_rewrites_it(name: str) -> None:
    path = HERE / f"{name}.py"
    options = Options(select=_rules(name), scope="all")
    findings = check_source(path.read_bytes(), str(path.resolve()), options)
    assert sorted((f.rule, f.line) for f in findings) == _expected(name), findings
    assert all(f.fix is not None for f in findings), findings
    new_source = fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()
    for fragment in VARIANTS[name].fragments:
        assert fragment in new_source, new_source
    body = new_source[new_source.index("\n\n\n", new_source.rindex("\ndef _trt_")) + 3:]
    assert not re.search(r"\.mT\b", body), body


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_original_does_not_export_the_rewrite_does_and_equals_eager(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt314_{name}")
    example = module.inputs(seeded(0))
    before = export_model(original, example, tmp_path / "before.onnx", exporter="torchscript",
                          input_names=input_names(original), output_names=["out"], dynamic_axes=module.DYNAMIC,
                          opset=17)
    assert before.error is not None and "aten::mT" in before.error, before.error

    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(fix_source(path.read_bytes(), str(path.resolve()),
                                   Options(select=_rules(name), scope="all")).source.decode())
    _, rewritten = built_variant(new_path, f"trt314_rewritten_{name}")
    rewritten.load_state_dict(original.state_dict())
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    sets = {"example": example, **VARIANTS[name].sets}
    for label, inputs in sets.items():
        if not label.startswith("eager-"):
            assert_graph_within(session, original, inputs, VARIANTS[name].tolerance, label)
    assert_eager_unchanged(original, rewritten, sets)


@pytest.mark.parametrize("name", ["kornia_sampson_errors", "timm_muon_newton_schulz", "torch_lowrank_mvn_covariance"])
def test_migrate_applies_the_rule_and_ends_equivalent(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt314_m_{name}")
    report = migrate_json(path, axes_json(module))
    assert report["before"]["exported"] is False, report["before"]
    assert sorted((fix["rule"], fix["line"]) for fix in report["applied"]) == _expected(name), report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report["reverted"])
