"""What the reverts leave is verified, and taken back further where it is worse than before them.

pyfacer's RetinaFace (zoo 90): TRT104 scripted ``nms`` and TRT397 rewrote its loop; TRT397 went back
(its nodes), and without it the scripted function no longer compiled, so the rewrite migrate ended
with failed at import: exported before, not after, exit 1. The last verification now takes back the
fixes that alone reproduce such a fall (all of them where none does alone) and verifies again.
These tests drive :func:`_settle` with verification reports as the verifier makes them.
"""

from __future__ import annotations

from types import SimpleNamespace

from trtcodemod.migrate.phases import Phases
from trtcodemod.migrate.plan import APPLY, Decision, Plan
from trtcodemod.migrate.run import LEANED_ON_REVERTED, _settle
from trtcodemod.verify.results import Culprit, ModelSettings, VerifyReport


def _plan(*rules: str) -> Plan:
    plan = Plan()
    for line, rule in enumerate(rules, start=10):
        finding = SimpleNamespace(path="/m/retinaface.py", rule=rule, line=line, end_line=line, column=4)
        decision = Decision(finding, APPLY)
        plan.decisions[decision.key] = decision
    return plan


def _report(exported: bool, equivalent: bool, culprits: tuple[tuple[str, bool], ...] = ()) -> VerifyReport:
    report = VerifyReport(name="m", model=ModelSettings("m.py", "build", "inputs", {}, ["torchscript"], 17, "8.6",
                                                        False, 1e-4, 1e-4))
    report.export_errors = {"after": {"torchscript": None if exported else "aten::append.t: Could not match type"}}
    report.equivalent = equivalent
    report.culprits = [Culprit(rule, reproduces, f"{rule} alone") for rule, reproduces in culprits]
    return report


def _verifier(*reports: VerifyReport):
    made: list[VerifyReport] = []

    def verify() -> VerifyReport:
        made.append(reports[len(made)])
        return made[-1]
    return verify, made


def _settled(plan: Plan, last: VerifyReport, *reports: VerifyReport):
    verify, made = _verifier(*reports)
    return _settle(last, plan, verify, Phases()), made


def test_a_fix_that_alone_breaks_the_export_goes_back_and_the_rest_is_verified_again() -> None:
    plan = _plan("TRT104", "TRT402", "TRT716")
    broken = _report(False, True, (("TRT104", True), ("TRT402", False), ("TRT716", False)))
    fine = _report(True, True)
    final, made = _settled(plan, _report(True, True), broken, fine)
    assert final is fine and made == [broken, fine]
    assert sorted(d.finding.rule for d in plan.applied) == ["TRT402", "TRT716"]
    [why] = plan.reverted.values()
    assert why.startswith(LEANED_ON_REVERTED) and "TRT104 alone" in why


def test_where_no_fix_alone_reproduces_the_fall_every_fix_goes_back() -> None:
    plan = _plan("TRT104", "TRT402")
    final, made = _settled(plan, _report(True, True), _report(True, False, (("TRT104", False), ("TRT402", False))))
    assert final is None and len(made) == 1 and plan.applied == []
    assert set(plan.reverted.values()) == {LEANED_ON_REVERTED}


def test_no_worse_than_before_the_reverts_is_kept_as_verified() -> None:
    # the original's graph differed the same way before the reverts: an unequivalent result is not a fall
    plan = _plan("TRT201", "TRT704")
    kept = _report(True, False, (("TRT201", True),))
    final, made = _settled(plan, _report(True, False), kept)
    assert final is kept and len(made) == 1 and not plan.reverted
    # nor an export that failed before the reverts too
    plan = _plan("TRT201")
    still = _report(False, True, (("TRT201", True),))
    final, _ = _settled(plan, _report(False, True), still)
    assert final is still and not plan.reverted


def test_the_tries_are_bounded_then_everything_goes_back() -> None:
    plan = _plan("TRT104", "TRT402", "TRT716", "TRT712")
    falls = [_report(False, True, ((rule, True),)) for rule in ("TRT104", "TRT402", "TRT716")]
    final, made = _settled(plan, _report(True, True), *falls)
    assert final is None and made == falls and plan.applied == []
