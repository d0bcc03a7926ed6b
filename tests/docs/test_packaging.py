"""The built wheel installs the rules as trtcodemod.transforms and claims no generic top-level name."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from support import REPO as ROOT



def test_wheel_layout(tmp_path: Path) -> None:
    # Build from a clean copy: setuptools reuses an in-tree build/ folder, whose stale files
    # would end up in the wheel and hide what a fresh checkout really packages.
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "trtcodemod", "transforms"):
        copy = shutil.copytree if (ROOT / name).is_dir() else shutil.copy2
        copy(ROOT / name, source / name, **({"ignore": shutil.ignore_patterns("__pycache__")} if copy is shutil.copytree else {}))
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path), str(source)],
        check=True, capture_output=True,
    )
    (wheel,) = tmp_path.glob("trtcodemod-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top_level = {name.split("/", 1)[0] for name in names}
    assert {n for n in top_level if not n.endswith(".dist-info")} == {"trtcodemod"}
    from trtcodemod.registry import RULE_MODULES

    for module in ("shapes", *RULE_MODULES):
        assert f"trtcodemod/transforms/{module}.py" in names, module
    assert "trtcodemod/trt/onnx_ops.csv" in names
    # Every package the code imports is in the wheel (the package list in pyproject is by hand).
    packages = {str(p.parent.relative_to(ROOT)).replace("/", ".") for p in (ROOT / "trtcodemod").rglob("__init__.py")}
    for package in packages:
        assert f"{package.replace('.', '/')}/__init__.py" in names, package
    entry_points = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
    assert "trtcodemod = trtcodemod.cli:main" in entry_points


def test_rule_table_in_readme_is_current() -> None:
    from trtcodemod.cli import rule_table_markdown

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start, end = "<!-- rules:start -->\n", "<!-- rules:end -->"
    assert start in readme and end in readme
    table = readme.split(start, 1)[1].split(end, 1)[0]
    assert table == rule_table_markdown(), "README rule table is stale: run `trtcodemod rules --format markdown`"
