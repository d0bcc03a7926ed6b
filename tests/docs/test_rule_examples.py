"""Every rule's documented examples are executable: before → after, and idempotent."""

from __future__ import annotations

import pytest

from support import rewrite, rules_found, strip_helpers
from trtcodemod.registry import all_rules

EXAMPLES = [
    pytest.param(info, example, id=f"{info.id}-{number}")
    for info in all_rules()
    for number, example in enumerate(info.examples)
]


def _with_imports(code: str) -> str:
    return "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n" + code


def test_every_rule_has_examples_and_docs() -> None:
    for info in all_rules():
        assert info.examples, info.id
        assert info.doc.strip() and info.summary.strip(), info.id
        assert info.id.startswith("TRT") and len(info.id) == 6, info.id


@pytest.mark.parametrize("info,example", EXAMPLES)
def test_example(info, example) -> None:
    before = _with_imports(example.before)
    # A rule for old TensorRT versions shows its examples on a target it applies to.
    target = "8.0" if info.needed_before else "8.6"
    assert info.id in rules_found(before, select=(info.id,), target=target), f"{info.id} did not fire on its own example"
    if info.opt_in:
        assert info.id not in rules_found(before, target=target), f"opt-in {info.id} ran without being selected"
    if example.after is None:
        assert rewrite(before, unsafe=True, select=(info.id,), target=target) == before
        return
    after = rewrite(before, unsafe=example.unsafe, select=(info.id,), target=target)
    assert strip_helpers(after) == _with_imports(example.after)
    if example.unsafe:
        assert rewrite(before, unsafe=False, select=(info.id,), target=target) == before, \
            "unsafe fix ran without --unsafe"
    assert rewrite(after, unsafe=True, select=(info.id,), target=target) == after, "rewrite is not idempotent"
