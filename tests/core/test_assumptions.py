"""Each unsafe fix's assumption in words (issue 27): rule metadata, ``explain`` and the migrate report.

A verified candidate used to name its assumption only as "see ``trtcodemod explain TRT702``";
the report now states it, and ``explain`` lists every known way the assumptions of the rules
that keep a Python number as a tensor (TRT702, TRT704, TRT711–TRT716) can fail.
"""

from __future__ import annotations


import pytest
import torch

from support import REPO, invoke
from trtcodemod.findings import Safety
from trtcodemod.registry import all_rules, rule_by_id

GUIDANCE = REPO / "examples" / "guidance"
NUMBER_RULES = ("TRT702", "TRT704", "TRT711", "TRT712", "TRT714", "TRT715", "TRT716")


def test_every_rule_with_an_unsafe_fix_states_its_assumption() -> None:
    # TRT201, TRT704 and TRT304 fix safely with evidence and unsafely without, TRT311 safely for tiles
    # and unsafely for overlapping windows, TRT405 and TRT603 safely for the function and unsafely for
    # the module, TRT337 safely for the functions it composes bit for bit and unsafely for the others, TRT302
    # safely for the values and counts and unsafely for the inverse indices, TRT320 safely for `diag` and
    # unsafely for `diagonal` (a copy, not a view), TRT339 safely for tensors and unsafely for sizes, TRT379 safely
    # for p = 2 and unsafely for another p, TRT380 safely where the code shows the tensors boolean and unsafely where
    # only a recorded run does, TRT384 and TRT387 safely where the code shows the tensors and unsafely where only a
    # recorded run does, TRT734 safely for an int literal fill and unsafely for a fill only a recorded run types:
    # they state it too.
    unsafe = {info.id for info in all_rules() if info.fix is Safety.UNSAFE} | {"TRT201", "TRT704", "TRT304", "TRT311",
                                                                              "TRT405", "TRT603", "TRT337", "TRT302",
                                                                              "TRT320", "TRT339", "TRT379", "TRT380",
                                                                              "TRT384", "TRT387", "TRT734"}
    missing = sorted(rule for rule in unsafe if len(rule_by_id(rule).assumption) < 30)
    assert missing == []
    assert all(not info.assumption for info in all_rules() if info.id not in unsafe)


@pytest.mark.parametrize("rule", NUMBER_RULES)
def test_explain_lists_how_a_number_kept_as_a_tensor_can_differ(rule: str) -> None:
    result = invoke("explain", rule)
    assert result.exit_code == 0
    text = result.stdout
    assert f"Assumption of the unsafe fix: {rule_by_id(rule).assumption}" in text
    listed = text.split("How the assumption can fail:\n", 1)[1].split("\nLooks at model code", 1)[0]
    for way in ("integer overflow", "wraps around past 2**63 - 1", "2**31 - 1", "`n ** -1` on an integer tensor",
                "dtype promotion", "float32's 24-bit mantissa", "a 0-d tensor where a number was"):
        assert way in listed, way


def test_the_failures_explain_lists_are_real() -> None:
    """Each way listed, shown on torch itself (so the list says what torch 2.13 does)."""
    assert (torch.tensor(2**62) * 4).item() == 0 and 2**62 * 4 == 2**64  # wraps; Python's int does not
    assert torch.tensor(2**31 - 1, dtype=torch.int32) + 1 == -2**31
    with pytest.raises(RuntimeError, match="negative integer powers"):
        torch.tensor(4) ** -1
    assert 4 ** -1 == 0.25
    assert (torch.tensor(16777217) * 1.0).item() == 16777216.0 and 16777217 * 1.0 == 16777217.0
    assert (torch.tensor(7) // 2.0).dtype == torch.float32
    assert torch.tensor(1.0) / 0 == float("inf")
    with pytest.raises(ZeroDivisionError):
        1.0 / 0


def test_a_verified_candidate_states_its_assumption_in_the_report() -> None:
    result = invoke("migrate", str(GUIDANCE / "item_scale.py"), "--model", "build", "--inputs", "inputs",
                    "--runs", "1", "--warmup", "0", "--backends", "torch-cpu,onnxruntime-cpu")
    text = result.stdout
    line = next(line for line in text.splitlines() if line.strip().startswith("TRT702"))
    assert "verified: the rewritten model is equivalent" in line
    assert f"its assumption held on them: {rule_by_id('TRT702').assumption}" in line
    assert "(how it can fail: `trtcodemod explain TRT702`)" in line
