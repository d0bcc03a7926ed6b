"""Which rule broke equivalence: apply the rules one at a time and see which alone reproduces it."""

from __future__ import annotations

from typing import Any, Callable

#: ``check(rule) -> (reproduces, detail)``: rewrite with that rule only, verify, report.
RuleCheck = Callable[[str], tuple[bool, str]]


def find_culprits(rules: list[str], check: RuleCheck) -> list[dict[str, Any]]:
    """One entry per applied rule; ``reproduces`` marks a culprit.

    With one rule applied it is the culprit by elimination (no extra run). When no single
    rule reproduces the failure, the rules only break things together; the last entry says so.
    """
    if len(rules) == 1:
        return [{"rule": rules[0], "reproduces": True, "detail": "the only rule applied"}]
    results = []
    for rule in rules:
        try:
            reproduces, detail = check(rule)
        except Exception as exc:  # noqa: BLE001 - one probe failing must not lose the others
            reproduces, detail = False, f"could not check: {type(exc).__name__}: {exc}"
        results.append({"rule": rule, "reproduces": reproduces, "detail": detail})
    if results and not any(r["reproduces"] for r in results):
        results.append({"rule": "+".join(rules), "reproduces": False,
                        "detail": "no single rule reproduces the difference; it comes from rules combined"})
    return results
