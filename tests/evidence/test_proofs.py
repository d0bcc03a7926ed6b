"""One place decides "proved": each provable rule names its prover next to its fix
(``RuleInfo.proof``), every prover lives in ``trtcodemod.evidence.proofs``, and ``prove`` is
what ``migrate``'s plan, the engine and the rules' facts provider all call."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from trtcodemod.evidence import proofs
from trtcodemod.evidence.facts import Facts, Span
from trtcodemod.registry import all_rules, rule_by_id

SPAN = Span("/m.py", 4, 8, 4, 30)


def _facts(kind: str, **fields: object) -> Facts:
    event = {"kind": kind, "path": "/m.py", "line": 4, "column": 8, "end_line": 4, "end_column": 30, **fields}
    return Facts(runs=3, events=[event])


def test_every_prover_is_declared_by_its_rule_and_lives_in_the_evidence_package() -> None:
    provable = {info.id: info.proof for info in all_rules() if info.proof is not None}
    assert provable, "no rule declares a proof"
    for rule, prover in provable.items():
        assert prover.__module__ == proofs.__name__, f"{rule}'s prover is decided outside evidence/proofs.py"
        assert rule_by_id(rule).fix.value != "none"


def test_a_rule_without_a_prover_is_never_proved() -> None:
    no_prover = next(info for info in all_rules() if info.proof is None and info.fix.value == "unsafe")
    assert proofs.prove(no_prover, proofs.Observation(_facts("squeeze", sizes=[1]), SPAN)) is None
    assert proofs.prove(None, proofs.Observation(_facts("squeeze", sizes=[1]), SPAN)) is None


@pytest.mark.parametrize(("sizes", "proved"), [([1, 1, 1], True), ([1, 3], False), ([3], False)])
def test_the_squeeze_proof_needs_size_one_on_every_observed_call(sizes: list[int], proved: bool) -> None:
    seen = proofs.Observation(_facts("squeeze", sizes=sizes), SPAN)
    text = proofs.prove(rule_by_id("TRT401"), seen)
    assert (text is not None) == proved
    if proved:
        assert "size 1" in text and "3 input set(s)" in text


def test_the_pooling_proof_reads_the_problems_migrate_located() -> None:
    """TRT601's proof is an export failure on the pooling, which only migrate observes: the
    engine and the rules (no problems) never prove it."""
    info = rule_by_id("TRT601")
    failed = SimpleNamespace(kind="export_failure", rule="TRT601", exporter="dynamo")
    other = SimpleNamespace(kind="export_failure", rule="TRT401", exporter="torchscript")
    assert proofs.prove(info, proofs.Observation(Facts(), SPAN)) is None
    assert proofs.prove(info, proofs.Observation(Facts(), SPAN, (other,))) is None
    assert "the dynamo export fails on adaptive pooling" in proofs.prove(info, proofs.Observation(Facts(), SPAN,
                                                                                                   (failed,)))


def test_a_span_an_earlier_fix_pass_moved_is_not_proved() -> None:
    facts = _facts("squeeze", sizes=[1]).for_file("/m.py", line_map=lambda line: None)
    assert proofs.prove_in_file(facts, rule_by_id("TRT401"), 4, 8, 4, 30) is None
    assert proofs.prove_in_file(_facts("squeeze", sizes=[1]).for_file("/m.py"), rule_by_id("TRT401"), 4, 8, 4,
                                30) is not None
