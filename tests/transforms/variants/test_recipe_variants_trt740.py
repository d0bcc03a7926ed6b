"""The overlapping write (TRT740) on real-code variants.

Each variant in ``tests/recipe_variants/trt740/`` is a small runnable model reduced from a public repository of a
different owner (cited in its docstring) that writes a slice of a tensor from an overlapping slice of the same
tensor, as the original spells it: AlphaPose's and mmpose's flip-test shifts of the heatmaps (4-D, explicit colons
and ``...``; mmpose later fixed its line with ``.clone()``), MotorNet's and active-adaptation's delay buffers on
``self`` (3-D), and sr-project's STDP queue shifted left (2-D). The observer records each write that read memory it
overwrote; with those facts the rule finds every one of them (from the code alone only where a torch call visibly
made the tensor), the rewrite gives the exported graph's values in eager mode, and ``migrate`` names the line.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from support import migrate_json
from variant_models import (assert_cited_by_distinct_owners, axes_json, built, export_variant, load_variant,
                            observed_facts, rewrite_variant, variant_inputs)

from trtcodemod.engine import Options, check_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt740"

#: variant -> (found from the code alone, eager mode's result differs from the graph's on the example).
VARIANTS = {
    "alphapose_flip_heatmap": (False, True),
    "mmpose_flip_heatmaps": (True, True),
    "motornet_modular_gru_delay": (False, True),
    "activeadaptation_action_delay": (False, True),
    "srproject_stdp_queue": (False, False),
}


def test_five_owners() -> None:
    assert_cited_by_distinct_owners(HERE, list(VARIANTS))


def _call_line(path: Path, module) -> int:
    [line] = [i for i, text in enumerate(path.read_text().splitlines(), 1) if text.strip() == module.CALL]
    return line


@pytest.fixture(scope="module")
def observed(tmp_path_factory) -> dict[str, tuple]:
    """Each variant's module and the facts its observed run recorded."""
    out = {}
    for name in VARIANTS:
        path = HERE / f"{name}.py"
        module = load_variant(path, f"trt740_{name}")
        out[name] = (module, observed_facts(path, module, tmp_path_factory.mktemp(f"facts_{name}")))
    return out


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_run_records_the_write_and_the_rule_finds_it(name: str, observed) -> None:
    path = HERE / f"{name}.py"
    module, facts = observed[name]
    line = _call_line(path, module)
    assert [e["line"] for e in facts.events if e["kind"] == "overlapping_write"] == [line]
    alone = check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT740",), scope="all"))
    assert [f.line for f in alone] == ([line] if VARIANTS[name][0] else [])
    seen = check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT740",), scope="all",
                                                                          facts=facts))
    assert [f.line for f in seen] == [line]


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_rewrite_gives_in_eager_mode_what_the_graph_computes(name: str, observed, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    module, facts = observed[name]
    text, rewritten = rewrite_variant(path, Options(select=("TRT740",), scope="all", unsafe=True, facts=facts),
                                      tmp_path, f"trt740_rewritten_{name}")
    assert f"{module.CALL.split(' = ')[1]}.clone()" in text
    original, after = built(module), built(rewritten)
    example = variant_inputs(module, None, 0)
    session, _ = export_variant(original, example, module.DYNAMIC, tmp_path / "original.onnx", HERE)
    names = [i.name for i in session.get_inputs()]
    for seed in (0, 1):
        inputs = variant_inputs(module, None, seed)
        with torch.no_grad():
            want, eager = after(*inputs), original(*inputs)
        [graph] = session.run(None, {n: t.numpy() for n, t in zip(names, inputs)})
        torch.testing.assert_close(torch.from_numpy(graph), want, rtol=1e-5, atol=1e-6)
        assert (not torch.allclose(eager, want, rtol=1e-5, atol=1e-6)) == VARIANTS[name][1]


@pytest.mark.parametrize("name", [n for n, (_, differs) in VARIANTS.items() if differs][:2])
def test_migrate_names_the_write_at_its_line(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt740_migrate_{name}")
    report = migrate_json(path, axes_json(module))
    rows = [r for r in report["remaining"] if r["rule"] == "TRT740"]
    # "undefined" where nothing else was rewritten; "finding" where other fixes landed and the graph compared is the
    # rewritten model's (the observed run's record is of the original's lines).
    assert [(r["source"], r["kind"] in ("undefined", "finding"), r["severity"]) for r in rows] == [
        (f"{path.resolve()}:{_call_line(path, module)}", True, "error")], report["remaining"]
    assert "read memory it overwrote" in rows[0]["message"] and "--unsafe" in rows[0]["message"]
    assert ".clone()" in rows[0]["manual_step"] and "select TRT740" in rows[0]["manual_step"]
    assert report["exit_code"] == 1 and not any(fix["rule"] == "TRT740" for fix in report["applied"])
