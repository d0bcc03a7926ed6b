"""A rule alone is blamed only for differences its graph brings, not those the original's graph has.

Zoo 29's oriented detectors (od_rtmdet_tiny_prenms: a Concat of the neck that fails at 257 pixels
in the original graph already): with one bad candidate in a round, the culprit search checked every
rule alone against eager mode, and each "differed" at the set where the original's own graph fails,
so every candidate of the round was reverted with it.
"""

from __future__ import annotations

import numpy as np

from trtcodemod.verify.compare import OutputComparison, compare_outputs
from trtcodemod.verify.run import introduced_differences


def _set(expected: list[np.ndarray], got: list[np.ndarray] | None, k: int) -> list[OutputComparison]:
    """One input set's comparisons as ``_compare_run`` makes them ("(run)" where the graph failed)."""
    if got is None:
        return [OutputComparison(name="(run)", shape=(), dtype="", expected_shape=(), expected_dtype="",
                                 max_abs_err=None, max_rel_err=None, passed=False,
                                 problem=f"set {k + 1}: Concat: dimensions must match")]
    return compare_outputs(["boxes", "scores"], expected, got, 1e-4, 1e-4)


def test_a_set_the_original_already_fails_blames_no_rule() -> None:
    eager = [[np.zeros((2, 5), np.float32), np.array([0.5, -1.0], np.float32)],
             [np.full((3, 5), -2.0, np.float32), np.array([np.inf, 0.0], np.float32)]]
    # The original's graph gives eager's values on set 1 and fails to run on set 2 (a size baked in).
    original = [_set(eager[0], eager[0], 0), _set(eager[1], None, 1)]
    # A harmless rule: the same, set 2 still failing.
    same = [_set(eager[0], eager[0], 0), _set(eager[1], None, 1)]
    assert introduced_differences(same, original) == []
    # Another failure on set 2 (it runs now, with other values): still the original's set.
    other = [_set(eager[0], eager[0], 0), _set(eager[1], [eager[1][0] + 1, eager[1][1]], 1)]
    assert introduced_differences(other, original) == []
    # A rule that breaks set 1, which the original's graph got right, is to blame.
    broken = [_set(eager[0], [eager[0][0], np.array([0.5, 1.0], np.float32)], 0), _set(eager[1], None, 1)]
    bad = introduced_differences(broken, original)
    assert [c.name for c in bad] == ["scores"]
    failed_run = [_set(eager[0], None, 0), _set(eager[1], None, 1)]
    assert [c.name for c in introduced_differences(failed_run, original)] == ["(run)"]


def test_an_output_the_original_gets_wrong_blames_only_the_others() -> None:
    eager = [[np.array([], np.float32), np.array([1.0, np.nan], np.float32)]]
    original = [_set(eager[0], [eager[0][0], np.array([2.0, np.nan], np.float32)], 0)]  # scores wrong already
    # The rule leaves scores wrong and breaks nothing else.
    assert introduced_differences([_set(eager[0], [eager[0][0], np.array([3.0, np.nan], np.float32)], 0)],
                                  original) == []
    # The rule also changes the (empty) boxes' shape: that one is its own.
    rule = [_set(eager[0], [np.zeros(1, np.float32), np.array([2.0, np.nan], np.float32)], 0)]
    assert [c.name for c in introduced_differences(rule, original)] == ["boxes"]


def test_without_an_original_graph_every_difference_counts() -> None:
    eager = [[np.zeros(2, np.float32), np.ones(2, np.float32)]]
    rule = [_set(eager[0], [np.ones(2, np.float32), np.ones(2, np.float32)], 0)]
    assert [c.name for c in introduced_differences(rule, None)] == ["boxes"]
