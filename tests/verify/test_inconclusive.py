"""Input sets on which eager mode misses its own float64 run: set aside only where another set of
the same input shapes judges the graph (``verify/inconclusive.py``)."""

from __future__ import annotations

import numpy as np
import torch

from trtcodemod.verify.compare import OutputComparison, compare_array, worst
from trtcodemod.verify.inconclusive import no_reference, set_aside

ATOL, RTOL = 1e-4, 1e-3


def _saturated() -> OutputComparison:
    # Rows of a top-k over scores that are all 1.0 in float32 (effdet efficientdet_q0, eleventh
    # zoo, set 1): eager float32's rows are not float64's at 3 of 4 elements, and the graph's
    # third value is far from both.
    expected = np.array([5.0, -4.7e8, 1.0, 2.0], dtype=np.float32)
    exact = np.array([5.0, -3.1e3, 7.5, 9.0])
    actual = np.array([5.0, -4.7e8, 40.0, 2.0], dtype=np.float32)
    return compare_array("output", expected, actual, ATOL, RTOL, exact)


def _judged(passed: bool) -> OutputComparison:
    expected = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
    actual = expected.copy()
    if not passed:
        actual[0] = 1.5
    return compare_array("output", expected, actual, ATOL, RTOL, expected.astype(np.float64))


def _inputs(*sizes: int) -> list[dict[str, torch.Tensor]]:
    return [{"x": torch.zeros(1, 3, n, n)} for n in sizes]


def test_a_failing_output_where_eager_misses_float64_at_most_elements_is_no_reference() -> None:
    saturated = _saturated()
    assert not saturated.passed and saturated.eager_misses == 3 and saturated.eager_no_reference
    assert no_reference([saturated])
    failing = _judged(False)
    assert failing.eager_misses == 0 and not failing.eager_no_reference
    assert not no_reference([saturated, failing])  # another output that fails for real keeps the set failing
    assert not no_reference([_judged(True)])  # a passing set needs nothing set aside


def test_a_quarter_of_the_output_missed_is_no_reference_less_is() -> None:
    expected = np.arange(1.0, 9.0, dtype=np.float32)
    actual = expected.copy()
    actual[0] = 50.0  # the graph misses eager mode and float64 at one element
    exact = expected.astype(np.float64)
    exact[1] = 70.0  # eager misses float64 at 1 of 8: a reference
    one = compare_array("output", expected, actual, ATOL, RTOL, exact)
    assert one.eager_misses == 1 and not one.eager_no_reference
    exact[2] = 90.0  # 2 of 8, a quarter: rounding picks the output
    two = compare_array("output", expected, actual, ATOL, RTOL, exact)
    assert two.eager_misses == 2 and two.eager_no_reference


def test_a_set_with_no_reference_is_set_aside_when_a_set_of_the_same_shapes_judges() -> None:
    per_set = [[_saturated()], [_judged(True)]]
    set_aside(per_set, [0, 1], _inputs(64, 64))
    aside = per_set[0][0]
    assert aside.passed and aside.set_aside
    assert aside.problem == ("set 1 not judged: eager float32 itself is outside atol/rtol of its float64 run at 3 of "
                             "4 element(s), so this set cannot tell a faithful graph from a wrong one; "
                             "set 2, of the same input shapes, judged the graph")
    abs_err, _, passed = worst([c for comps in per_set for c in comps])
    assert passed and abs_err == 0.0  # the set aside adds no error


def test_the_judging_set_still_fails_the_graph_when_it_fails() -> None:
    per_set = [[_saturated()], [_judged(False)]]
    set_aside(per_set, [0, 1], _inputs(64, 64))
    assert per_set[0][0].set_aside
    assert not worst([c for comps in per_set for c in comps])[2]


def test_no_set_of_the_same_shapes_judges_so_the_failure_stands() -> None:
    # A resized set (a dynamic axis) is the only one of its shapes: nothing proves the graph there.
    per_set = [[_judged(True)], [_saturated()]]
    set_aside(per_set, [0, 1], _inputs(64, 96))
    assert not per_set[1][0].passed and not per_set[1][0].set_aside
    # Every set without a reference: nothing judged, nothing passes.
    per_set = [[_saturated()], [_saturated()]]
    set_aside(per_set, [0, 1], _inputs(64, 64))
    assert not any(c.passed for comps in per_set for c in comps)


def test_set_numbers_follow_the_input_sets_where_one_had_no_reference_output() -> None:
    # The reference failed on input set 2 (index 1): entries are sets 1 and 3.
    per_set = [[_judged(True)], [_saturated()]]
    set_aside(per_set, [0, 2], _inputs(64, 32, 64))
    assert per_set[1][0].set_aside and per_set[1][0].problem.startswith("set 3 not judged")
    assert per_set[1][0].problem.endswith("set 1, of the same input shapes, judged the graph")


def test_the_fields_survive_json() -> None:
    per_set = [[_saturated()], [_judged(True)]]
    set_aside(per_set, [0, 1], _inputs(64, 64))
    again = OutputComparison.from_json(per_set[0][0].to_json())
    assert again.set_aside and again.eager_misses == 3 and again.passed


def test_a_comparison_run_sets_the_saturated_set_aside_and_its_output_says_so() -> None:
    # verify.run._compare_run as the faithfulness and equivalence checks call it: set 1 saturated
    # (eager mode no reference), set 2 of the same shapes judged and equal.
    from types import SimpleNamespace

    from trtcodemod.verify.backends import OK, BackendRun
    from trtcodemod.verify.run import SideResult, _compare_run
    from trtcodemod.verify.worker import TaskOutcome

    saturated_eager = np.array([5.0, -4.7e8, 1.0, 2.0], dtype=np.float32)
    saturated_graph = np.array([5.0, -4.7e8, 40.0, 2.0], dtype=np.float32)
    calm = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
    exact = [[np.array([5.0, -3.1e3, 7.5, 9.0])], [calm.astype(np.float64)]]
    owner = SideResult("before", TaskOutcome("ok", {}), exact=[exact])

    def run(sizes: tuple[int, int]) -> tuple[list, list]:
        ctx = SimpleNamespace(spec=SimpleNamespace(atol=ATOL, rtol=RTOL), row_axes={}, input_sets=_inputs(*sizes))
        return _compare_run(ctx, ["output"], BackendRun(OK, outputs=[[saturated_eager], [calm]]),
                            BackendRun(OK, outputs=[[saturated_graph], [calm]]), owner)

    merged, per_set = run((64, 64))
    assert per_set[0][0].set_aside and per_set[1][0].passed and not per_set[1][0].set_aside
    assert merged[0].passed and merged[0].max_abs_err == 0.0
    assert merged[0].problem.startswith("set 1 not judged")
    merged, per_set = run((64, 96))  # the saturated set is the only one of its shapes
    assert not per_set[0][0].passed and not merged[0].passed
    assert merged[0].problem.startswith("set 1: 1 of 4 element(s) outside atol/rtol")


# --- a set no set of its shapes judges: said so, the failure standing --------------------------


def _amplified(graph_wrong: bool = False, eager_share: float = 0.46, seed: int = 0) -> OutputComparison:
    # Logits of a network that amplifies float32 rounding at a resized set (EfficientNetV2-S with
    # random weights, BatchNorms calibrated at 64 px, set 3 at 129x65, sixteenth zoo): float64
    # values of some 7.5e5, eager float32 0.46 of that off in root mean square, the graph 0.45 (its
    # own rounding). ``graph_wrong``: a graph that also divides by another pooled count.
    rng = np.random.default_rng(seed)
    exact = rng.normal(0.0, 7.5e5, 20)
    expected = (exact + rng.normal(0.0, eager_share * 7.5e5, 20)).astype(np.float32)
    actual = (exact + rng.normal(0.0, 0.45 * 7.5e5, 20)).astype(np.float32)
    if graph_wrong:
        actual = (actual * (15 / 4)).astype(np.float32)
    return compare_array("output", expected, actual, ATOL, RTOL, exact)


def test_a_set_where_eager_float32_is_no_reference_and_no_set_of_its_shapes_is_one_is_said_so() -> None:
    from trtcodemod.verify.inconclusive import none_judged, unreferenced

    amplified = _amplified()
    assert not amplified.passed and amplified.eager_misses == 20 and amplified.eager_no_reference
    assert 0.3 < amplified.eager_rms_share < 0.7 and 0.3 < amplified.graph_rms_share < 0.7
    per_set = [[_judged(True)], [_judged(True)], [amplified]]
    set_aside(per_set, [0, 1, 2], _inputs(64, 64, 129))
    assert not per_set[2][0].passed  # the failure stands: nothing proved at those shapes
    assert none_judged(per_set, [3]) == [3]
    text = unreferenced(per_set[2])
    assert "misses its float64 run at 20 of 20 element(s)" in text and "amplifies float32 rounding" in text
    assert f"{amplified.eager_rms_share:.3g} of the output's own (the graph's: {amplified.graph_rms_share:.3g})" in text


def test_a_wrong_graph_where_eager_float32_is_a_reference_is_a_plain_failure() -> None:
    from trtcodemod.verify.inconclusive import none_judged

    # The same graph error, where eager mode rounds as float32 does (1e-6 of the output): a reference.
    wrong = _amplified(graph_wrong=True, eager_share=1e-6)
    assert not wrong.passed and not wrong.eager_no_reference and wrong.eager_misses == 0
    assert none_judged([[_judged(True)], [_judged(True)], [wrong]], [3]) == []
    # A set without a reference beside a failing one with a reference: a plain failure too.
    assert none_judged([[_judged(True)], [_judged(False)], [_amplified()]], [2, 3]) == []
    assert none_judged([[_judged(True)]], []) == []


def test_a_wrong_graph_where_eager_float32_is_no_reference_still_fails() -> None:
    # Where eager mode is no reference, a graph off by a whole factor fails as one that is not: the
    # set proves nothing either way, and nothing passes.
    for wrong in (False, True):
        assert not _amplified(graph_wrong=wrong).passed


def test_migrate_names_a_set_without_reference_so_and_looks_for_no_line() -> None:
    from trtcodemod.migrate.locate import NO_REFERENCE, unfaithful_graphs
    from trtcodemod.migrate.manual_steps import NO_REFERENCE_STEP, manual_step
    from trtcodemod.migrate.run import _find_baked_divergence
    from trtcodemod.verify.results import VerifyReport

    check = {"side": "before", "exporter": "torchscript", "faithful": False, "baked": True, "failing_sets": [3],
             "detail": "the graph matches eager on the traced input set; on set(s) 3 eager float32 is no reference",
             "no_reference_sets": [3]}
    report = VerifyReport.from_json({"export_checks": [check]})
    assert report.to_json()["export_checks"][0]["no_reference_sets"] == [3]

    class Session:
        def divergence(self, exporter: str, input_set: int) -> None:
            raise AssertionError("no line is where amplified rounding went wrong")

    assert _find_baked_divergence(report, [], Session()) is False
    [problem] = unfaithful_graphs(report, "before", baked=True)
    assert (problem.op, problem.path) == (NO_REFERENCE, None)
    assert manual_step({"op": problem.op, "kind": "unfaithful", "message": problem.message,
                        "severity": "error"}) == NO_REFERENCE_STEP
    del check["no_reference_sets"]
    [plain] = unfaithful_graphs(VerifyReport.from_json({"export_checks": [check]}), "before", baked=True)
    assert plain.op == "(wrong values)"


# --- a set replayed with eager mode's tied picks ---------------------------------------------------


def test_a_replayed_set_failing_only_where_eager_float32_is_no_reference_is_judged_as_such_a_set() -> None:
    """lucid_yolo's segmentation decode (thirty-fourth zoo, ``ly_seg_n_masks`` set 3): every score 1.0, the
    graph's top 10 picked among the ties otherwise. With eager mode's picks put back, one box value is still
    outside the tolerance where eager float32 misses its float64 run at 88 of 120 elements: the set is then
    one without a reference (set aside where a set of its shapes judges, the failure standing otherwise),
    not a graph that baked something. A replay that leaves a failure where eager mode is a reference is not
    taken."""
    from types import SimpleNamespace

    from trtcodemod.verify.run import take_replayed

    saturated_eager = np.array([5.0, -4.7e8, 1.0, 2.0], dtype=np.float32)
    saturated_graph = np.array([5.0, -4.7e8, 40.0, 2.0], dtype=np.float32)
    masks = np.array([0.0, 1.0, 1.0, 1.0], dtype=np.float32)
    exact = [np.array([5.0, -3.1e3, 7.5, 9.0]), masks.astype(np.float64)]
    labels = ["det", "masks"]
    calm = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)

    def per_set() -> list[list[OutputComparison]]:
        # The plain graph: its masks follow its own tie order (rows swapped), where eager mode is a reference.
        return [[_judged(True), _judged(True)],
                [compare_array("det", saturated_eager, saturated_graph, ATOL, RTOL, exact[0]),
                 compare_array("masks", masks, masks[::-1].copy(), ATOL, RTOL, exact[1])]]

    for sizes, judged in (((64, 64), True), ((64, 96), False)):
        ctx = SimpleNamespace(spec=SimpleNamespace(atol=ATOL, rtol=RTOL), row_axes={}, input_sets=_inputs(*sizes))
        sets = per_set()
        assert not sets[1][1].passed and not no_reference(sets[1])  # the plain comparison: a plain failure
        found = {"picks": 2, "outputs": [saturated_graph, masks]}
        assert take_replayed(ctx, labels, sets, 1, [saturated_eager, masks], found, exact)
        det, mask = sets[1]
        assert mask.passed and det.picks_tied == mask.picks_tied == 2
        assert det.set_aside is judged and det.passed is judged
        if not judged:
            assert no_reference(sets[1]) and det.problem.startswith("set 2: 1 of 4 element(s)")
    # Eager float32 a reference (its float64 run agrees): a replay that still differs is not taken.
    ctx = SimpleNamespace(spec=SimpleNamespace(atol=ATOL, rtol=RTOL), row_axes={}, input_sets=_inputs(64, 64))
    sets = [[_judged(True)], [_judged(False)]]
    wrong = calm.copy()
    wrong[0] = 1.5
    assert not take_replayed(ctx, ["output"], sets, 1, [calm], {"picks": 1, "outputs": [wrong]},
                             [calm.astype(np.float64)])
    assert not sets[1][0].passed and sets[1][0].picks_tied == 0
    assert sets[1][0].problem.endswith("; with eager mode's 1 tied pick(s) put back, output: 1 of 4 element(s) "
                                       "outside atol/rtol")
