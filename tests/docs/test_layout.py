"""The suite mirrors the package (docs/architecture.md, "Tests"): every test file sits in the folder
of what it tests, so a rule's or a package's tests are found where its code is."""

from __future__ import annotations

from collections import Counter

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
