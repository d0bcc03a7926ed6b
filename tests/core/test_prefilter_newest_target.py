"""The prefilter hides no finding at TensorRT 10.15: the rules needed only before 10 are off,
and rules that read the target (padding modes, Conv weights, opset 17 layers) take their newest branch.

How it is checked: ``tests/prefilter_sample.py``; a file of its own so that the other worker can
take it while one runs ``test_prefilter.py``.
"""

from prefilter_sample import assert_no_finding_without_its_text, assert_the_prefilter_changes_nothing


def test_no_finding_without_its_text() -> None:
    assert_no_finding_without_its_text("10.15", "all")


def test_switching_the_prefilter_on_changes_nothing() -> None:
    assert_the_prefilter_changes_nothing("10.15", "all")
