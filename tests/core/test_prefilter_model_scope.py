"""The prefilter hides no finding at the model scope (``--scope model``), where code that runs only
while building the model is left out: an oldest-target pass, where every rule applies.

How it is checked: ``tests/prefilter_sample.py``; a file of its own so that the other worker can
take it while one runs ``test_prefilter.py``.
"""

from prefilter_sample import assert_no_finding_without_its_text, assert_the_prefilter_changes_nothing


def test_no_finding_without_its_text() -> None:
    assert_no_finding_without_its_text("8.0", "model")


def test_switching_the_prefilter_on_changes_nothing() -> None:
    assert_the_prefilter_changes_nothing("8.0", "model")
