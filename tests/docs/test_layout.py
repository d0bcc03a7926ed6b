"""The suite mirrors the package (docs/architecture.md, "Tests"): every test file sits in the folder
of what it tests, so a rule's or a package's tests are found where its code is."""

from __future__ import annotations

import ast
import re
from collections import Counter, defaultdict
from pathlib import Path

from support import REPO, TESTS

#: Folders that name no package: the engine and the other modules of the package's own folder,
#: the documents and the package's shape, the safety contract across rules, and the rules'
#: real-code variants beside the rules' own tests.
EXTRA = frozenset({"core", "docs", "safety", "transforms/variants"})


def _packages() -> frozenset[str]:
    """The rules (``transforms/``) and each package of ``trtcodemod/``."""
    found = {path.parent.name for path in (REPO / "trtcodemod").glob("*/__init__.py")}
    return frozenset(found | {"transforms"})


def _test_files() -> list[str]:
    return sorted(path.relative_to(TESTS).as_posix() for path in TESTS.rglob("test_*.py"))


def test_every_test_file_sits_in_a_mirrored_folder() -> None:
    allowed = _packages() | EXTRA
    stray = [path for path in _test_files() if path.rpartition("/")[0] not in allowed]
    assert not stray, f"test files outside the mirrored folders {sorted(allowed)}: {stray}"


def test_test_file_names_are_unique() -> None:
    # The folders have no __init__.py (tests/transforms would shadow the rules' package):
    # pytest imports each test file by its name alone, so two of one name cannot both load.
    names = Counter(path.rpartition("/")[2] for path in _test_files())
    assert not [name for name, count in names.items() if count > 1]


# --- the rules' tests: one file per rule module ------------------------------------------------

#: A rule's behaviour is tested in the file of the module that defines it; the real-code variants
#: (``transforms/variants/``) and the contract across rules (``safety/``) are other places by design.
RULE_TESTS = TESTS / "transforms"

#: Files that run another module's rule on its own, where two rules meet: (file, rule) -> why.
BOUNDARIES = {
    ("test_bicubic_resize.py", "TRT725"): "an antialiased bicubic resize stays TRT725's finding",
    ("test_layers.py", "TRT727"): "TRT725 leaves a literal bicubic mode to TRT727",
    ("test_topk_limit.py", "TRT803"): "a K capped with min() is TRT803's, also above TensorRT's limit",
}


def _rule_modules() -> dict[str, str]:
    """Each rule's ID -> the module of ``transforms/`` that defines it."""
    from trtcodemod.registry import rule_classes

    return {cls.info.id: cls.__module__.rpartition(".")[2] for cls in rule_classes()}


def _misnamed(folder: Path, modules: set[str]) -> list[str]:
    """Test files of ``folder`` not named ``test_<module>.py`` after a module that defines rules."""
    return sorted(path.name for path in folder.glob("test_*.py") if path.stem[len("test_"):] not in modules)


def _run_alone(path: Path) -> set[str]:
    """The rule IDs a test file runs on their own: ``select=("TRTnnn",)`` given to any call (the
    engine's ``Options``, ``rewrite``, ``rules_found``...). Several IDs together test how rules
    combine, and a mention in an assertion tests nothing by itself."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.keyword) and node.arg == "select" and isinstance(node.value, (ast.Tuple, ast.List)):
            values = [e.value for e in node.value.elts if isinstance(e, ast.Constant)]
            if len(node.value.elts) == 1 and len(values) == 1 and re.fullmatch(r"TRT\d{3}", str(values[0])):
                found.add(values[0])
    return found


def _tested_in(folder: Path) -> dict[str, set[str]]:
    """Rule ID -> the test files of ``folder`` that run it on its own, less the boundaries."""
    files: dict[str, set[str]] = defaultdict(set)
    for path in folder.glob("test_*.py"):
        for rule in _run_alone(path):
            if (path.name, rule) not in BOUNDARIES:
                files[rule].add(path.name)
    return files


def test_every_rule_test_file_is_named_after_a_rule_module() -> None:
    modules = set(_rule_modules().values())
    assert not _misnamed(RULE_TESTS, modules), (
        f"tests/transforms/ holds one test_<module>.py per module of transforms/ that defines rules: "
        f"{_misnamed(RULE_TESTS, modules)}")


def test_a_rule_is_run_on_its_own_in_one_test_file_only() -> None:
    tested = _tested_in(RULE_TESTS)
    shared = {rule: sorted(files) for rule, files in tested.items() if len(files) > 1}
    assert not shared, f"a rule's behaviour is tested in its module's file only: {shared}"


def test_the_file_a_rule_is_run_in_is_its_modules() -> None:
    modules = _rule_modules()
    elsewhere = {rule: sorted(files) for rule, files in _tested_in(RULE_TESTS).items()
                 if files != {f"test_{modules[rule]}.py"}}
    assert not elsewhere, f"rules run on their own outside test_<their module>.py: {elsewhere}"


def test_the_boundaries_are_still_there() -> None:
    # A boundary the tests no longer cross is no exception any more: drop it from the list.
    stale = [(name, rule) for name, rule in BOUNDARIES if rule not in _run_alone(RULE_TESTS / name)]
    assert not stale
