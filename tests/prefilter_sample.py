"""The sample of Python the prefilter tests run every rule on, and the check they share.

Rules that declare ``needs_text`` are skipped on files that do not contain it. That is a
speed-up only if it never hides a finding. The sample is every piece of Python the project
holds: the rules' documented examples, the shipped examples, and every code snippet written
into the test-suite (string constants that parse). With the prefilter switched off, each
finding of a rule with ``needs_text`` must sit in a source containing one of those texts; and
switching the prefilter on must change nothing.

One pass of every rule over the sample takes minutes, so the targets and scopes are spread over
``tests/core/test_prefilter*.py``: with ``--dist loadfile`` each file goes to a worker of its own.
"""

from __future__ import annotations

import ast
import textwrap
from functools import lru_cache

import pytest

from trtcodemod.engine import Options, check_source
from trtcodemod.errors import InputError
from trtcodemod.registry import rule_classes
from trtcodemod.rules import Rule
from support import REPO

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nimport numpy as np\nimport copy\n"
EVERY_RULE = tuple(cls.info.id for cls in rule_classes())  # opt-in rules too
GATED = {cls.info.id: cls.needs_text for cls in rule_classes() if cls.needs_text}

Found = tuple[tuple[str, int, int, str], ...]


@lru_cache(maxsize=None)
def snippets() -> tuple[bytes, ...]:
    """Each distinct source once (the same text gives the same findings), read when first asked:
    not while collecting, where every worker would pay for it."""
    found: list[bytes] = []
    for info in (cls.info for cls in rule_classes()):
        found.extend((HEADER + example.before).encode() for example in info.examples)
    found.extend(path.read_bytes() for path in sorted((REPO / "examples").rglob("*.py")))
    for path in sorted((REPO / "tests").rglob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_bytes())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and "(" in node.value:
                code = textwrap.dedent(node.value)
                try:
                    ast.parse(code)
                except SyntaxError:
                    continue
                # Tests often add the imports themselves: a snippet without any gets ours.
                found.append((code if "import" in code else HEADER + code).encode())
    return tuple(dict.fromkeys(found))


def findings(source: bytes, target: str, scope: str) -> Found:
    try:
        found = check_source(source, "model.py", Options(select=EVERY_RULE, target=target, scope=scope))
    except InputError:
        return ()
    return tuple((f.rule, f.line, f.column, f.message) for f in found)


@lru_cache(maxsize=None)
def ungated(target: str, scope: str) -> tuple[Found, ...]:
    """Each snippet's findings with the prefilter switched off (every rule runs on every source),
    computed once per target and scope in a worker."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Rule, "may_find", classmethod(lambda cls, source: True))
        return tuple(findings(source, target, scope) for source in snippets())


def assert_no_finding_without_its_text(target: str, scope: str) -> None:
    for source, found in zip(snippets(), ungated(target, scope)):
        for rule, line, *_ in found:
            texts = GATED.get(rule)
            assert texts is None or any(text in source for text in texts), \
                f"{rule} found at line {line} of a source without {texts}:\n{source.decode()[:400]}"


def assert_the_prefilter_changes_nothing(target: str, scope: str) -> None:
    gated = tuple(findings(source, target, scope) for source in snippets())
    assert gated == ungated(target, scope)
