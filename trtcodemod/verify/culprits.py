"""Which rule broke equivalence: apply the rules one at a time and see which alone reproduces it."""

from __future__ import annotations

from typing import Any, Callable, Collection

#: ``check(rule) -> (reproduces, detail)``: rewrite with that rule only, verify, report.
RuleCheck = Callable[[str], tuple[bool, str]]

#: The detail of a rule left unchecked (``find_culprits(..., verified_next=True)``).
LEFT_FOR_NEXT = "not checked alone: every other rule is a culprit, so what is left is verified next"


def find_culprits(rules: list[str], check: RuleCheck, *, verified_next: bool = False,
                  last: Collection[str] = ()) -> list[dict[str, Any]]:
    """One entry per applied rule, in ``rules``' order; ``reproduces`` marks a culprit.

    With one rule applied it is the culprit by elimination (no extra run). When no single
    rule reproduces the failure, the rules only break things together; the last entry says so.

    ``verified_next``: the caller reverts the culprits and verifies what is left once more (a
    ``migrate`` round that is not its last). Then the rule checked last is not checked when every
    other rule reproduces: the next verification is of its fixes alone, the same rewrite its
    check would build and export (a whole build and export of the model), and that finds it the
    culprit by elimination if it breaks equivalence too. ``last``: the rules least likely to be
    culprits (their fixes are safe), checked after the others so that one of them is that rule.
    """
    if len(rules) == 1:
        return [{"rule": rules[0], "reproduces": True, "detail": "the only rule applied"}]
    order = [r for r in rules if r not in last] + [r for r in rules if r in last]
    found: dict[str, dict[str, Any]] = {}
    for k, rule in enumerate(order):
        if verified_next and k == len(order) - 1 and all(r["reproduces"] for r in found.values()):
            found[rule] = {"rule": rule, "reproduces": False, "detail": LEFT_FOR_NEXT}
            break
        try:
            reproduces, detail = check(rule)
        except Exception as exc:  # noqa: BLE001 - one probe failing must not lose the others
            reproduces, detail = False, f"could not check: {type(exc).__name__}: {exc}"
        found[rule] = {"rule": rule, "reproduces": reproduces, "detail": detail}
    results = [found[r] for r in rules]
    if results and not any(r["reproduces"] for r in results):
        results.append({"rule": "+".join(rules), "reproduces": False,
                        "detail": "no single rule reproduces the difference; it comes from rules combined"})
    return results
