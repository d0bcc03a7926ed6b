"""Rules that declare ``needs_text`` are skipped on files that do not contain it.

That is a speed-up only if it never hides a finding. Checked here on every piece of
Python the project holds: the rules' documented examples, the shipped examples, and every
code snippet written into the test-suite (string constants that parse and mention torch).
With the prefilter switched off, each finding of a rule with ``needs_text`` must sit in a
source containing one of those texts; and switching the prefilter on changes nothing.
"""

from __future__ import annotations

import ast
import textwrap
from functools import lru_cache

import pytest

from trtcodemod.engine import Options, check_source
from trtcodemod.errors import InputError
from trtcodemod.registry import rule_classes
from trtcodemod.rules import Rule, spelled
from support import REPO

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nimport numpy as np\nimport copy\n"
EVERY_RULE = tuple(cls.info.id for cls in rule_classes())  # opt-in rules too


@lru_cache(maxsize=None)
def _snippets() -> tuple[bytes, ...]:
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

GATED = {cls.info.id: cls.needs_text for cls in rule_classes() if cls.needs_text}


def _findings(source: bytes, target: str, scope: str) -> list[tuple[str, int, int, str]]:
    try:
        found = check_source(source, "model.py", Options(select=EVERY_RULE, target=target, scope=scope))
    except InputError:
        return []
    return [(f.rule, f.line, f.column, f.message) for f in found]


@lru_cache(maxsize=None)
def _ungated(target: str, scope: str) -> tuple[list[tuple[str, int, int, str]], ...]:
    """Each snippet's findings with the prefilter switched off (every rule runs on every source),
    computed once per target and scope for this module's tests."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Rule, "may_find", classmethod(lambda cls, source: True))
        return tuple(_findings(source, target, scope) for source in _snippets())


def test_the_sample_is_large_and_reaches_every_gated_rule() -> None:
    assert len(_snippets()) > 300
    fired = {rule for found in _ungated("8.0", "all") for rule, *_ in found}
    assert set(GATED) <= fired | {"TRT102"}  # TRT102 only below 8.4, reached at 8.0 too
    assert "TRT102" in fired


@pytest.mark.parametrize("target", ["8.0", "8.6", "10.15"])
@pytest.mark.parametrize("scope", ["model", "all"])
def test_no_finding_without_its_text(target: str, scope: str) -> None:
    ungated = _ungated(target, scope)
    for source, found in zip(_snippets(), ungated):
        for rule, line, *_ in found:
            texts = GATED.get(rule)
            assert texts is None or any(text in source for text in texts), \
                f"{rule} found at line {line} of a source without {texts}:\n{source.decode()[:400]}"
    gated = tuple(_findings(source, target, scope) for source in _snippets())
    assert gated == ungated


def test_spelled_takes_the_last_parts() -> None:
    assert spelled("torch.nn.functional.pad", "torch.nn.ZeroPad2d", "torch.pad") == (b"ZeroPad2d", b"pad")


def test_a_file_without_the_text_skips_the_rule() -> None:
    source = b"import torch\n\ndef f(y, x):\n    return torch.atan2(y, x)\n"
    assert [f.rule for f in check_source(source, "m.py", Options(select=("TRT301",)))] == ["TRT301"]
    cls = next(c for c in rule_classes() if c.info.id == "TRT301")
    assert cls.may_find(source) and not cls.may_find(source.replace(b"atan2", b"hypot"))


def test_a_module_a_star_import_binds_counts_as_text(tmp_path) -> None:
    # pytorch-YOLOv4's `tool/yolo_layer.py` gets `np` and `torch` only from `from tool.torch_utils import *`:
    # the text never says `numpy`, yet TRT711 (which waits for it) has a NumPy grid on sizes to rewrite there.
    (tmp_path / "tool").mkdir()
    (tmp_path / "tool" / "__init__.py").write_text("")
    (tmp_path / "tool" / "torch_utils.py").write_text("import numpy as np\nimport torch\n")
    layer = tmp_path / "tool" / "yolo_layer.py"
    layer.write_text(
        "import torch.nn as nn\n"
        "from tool.torch_utils import *\n\n\n"
        "class Head(nn.Module):\n"
        "    def forward(self, output):\n"
        "        grid = np.expand_dims(np.linspace(0, output.size(3) - 1, output.size(3)), axis=0)\n"
        "        return output + torch.tensor(grid, dtype=torch.float32)\n")
    source = layer.read_bytes()
    assert b"numpy" not in source
    found = check_source(source, str(layer), Options(select=("TRT711",), scope="all"))
    assert [f.rule for f in found] == ["TRT711"]
    # Without the module that binds them, the names are nobody's: nothing to find.
    (tmp_path / "tool" / "torch_utils.py").write_text("")
    assert check_source(layer.read_bytes(), str(layer), Options(select=("TRT711",), scope="all")) == []
