"""The tests and examples import only what CI installs.

CI installs ``.[verify,test,cluster]`` into a fresh environment; a developer's environment usually holds more (the
``bench`` extra's einops, for one). A recipe variant reduced from real code that kept an ``import einops`` passed here
and stopped CI. This test reads every file's imports instead of trusting whatever the running environment has.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from support import REPO

#: Packages the README's test command installs, by import name (the core dependencies and the verify/test/cluster
#: extras), plus ``torchvision``: the tests register a plain-PyTorch stand-in under that name (PyPI's wheel links CUDA
#: torch), and never import the real package.
INSTALLED_BY_CI = {"torch", "numpy", "onnx", "onnxruntime", "onnxscript", "polygraphy", "pytest", "hypothesis", "xdist",
                   "ray", "libcst", "typer", "pathspec", "trtcodemod", "torchvision", "einx"}
SCANNED = ("tests", "examples")


def _local_names() -> set[str]:
    """Modules and packages the tests put on the path themselves (tests/, examples/ and their folders)."""
    names: set[str] = set()
    for root in SCANNED:
        for path in (REPO / root).rglob("*"):
            names.add(path.stem if path.suffix == ".py" else path.name)
    return names


def _imported_roots(path: Path) -> list[tuple[str, int]]:
    roots = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots += [(alias.name.split(".")[0], node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.append((node.module.split(".")[0], node.lineno))
    return roots


def test_every_import_is_installed_by_the_test_command() -> None:
    allowed = INSTALLED_BY_CI | set(sys.stdlib_module_names) | _local_names()
    outside = [f"{path.relative_to(REPO)}:{line}: {root}"
               for root_dir in SCANNED for path in sorted((REPO / root_dir).rglob("*.py"))
               for root, line in _imported_roots(path) if root not in allowed]
    assert not outside, "imports CI does not install (reduce them away or add the package to an extra CI installs):\n" \
        + "\n".join(outside)


def test_the_guard_sees_an_import_outside_the_list(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import torch\nfrom einops import rearrange\n", encoding="utf-8")
    assert [root for root, _ in _imported_roots(sample) if root not in INSTALLED_BY_CI] == ["einops"]
