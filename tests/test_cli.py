"""The command line: exit codes, output formats, writing, configuration, file discovery."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from trtcodemod.cli import app

# TRT401 (unsafe fix) at 5:12 and TRT704 (safe fix) at 5:26.
MODEL = "import torch\n\n\ndef head(x: torch.Tensor):\n    return x.squeeze(1), len(x)\n"
CLEAN = "import torch\n\n\ndef head(x):\n    return x + 1\n"


def run(*args: str, cwd: Path | None = None):
    old = os.getcwd()
    if cwd:
        os.chdir(cwd)
    try:
        return CliRunner().invoke(app, list(args))
    finally:
        os.chdir(old)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "model.py").write_text(MODEL)
    (tmp_path / "pkg" / "clean.py").write_text(CLEAN)
    return tmp_path


def test_check_exit_codes_and_text(tree: Path) -> None:
    result = run("check", str(tree / "pkg"))
    assert result.exit_code == 1
    assert f"{tree / 'pkg' / 'model.py'}:5:12: TRT401" in result.output
    assert "Found 2 findings in 1 file" in result.output
    assert run("check", str(tree / "pkg" / "clean.py")).exit_code == 0
    (tree / "pkg" / "bad.py").write_text("def f(:\n")
    broken = run("check", str(tree / "pkg"))
    assert broken.exit_code == 2
    assert "bad.py:1: error: syntax error" in broken.output
    assert "TRT401" in broken.output  # the other files were still checked


def test_check_json_shape(tree: Path) -> None:
    (tree / "pkg" / "bad.py").write_text("x = (\n")
    result = run("check", "--format", "json", str(tree / "pkg"))
    data = json.loads(result.output)
    assert data["version"] == 1
    assert {tuple(sorted(f)) for f in data["findings"]} == {
        ("column", "end_column", "end_line", "fix", "line", "message", "name", "path", "rule")
    }
    assert [(f["rule"], f["fix"]) for f in data["findings"]] == [("TRT401", "unsafe"), ("TRT704", "safe")]
    (error,) = data["errors"]
    assert error["path"].endswith("bad.py") and error["line"] == 1 and "syntax error" in error["message"]


def test_sarif_and_github_formats(tree: Path) -> None:
    sarif = json.loads(run("check", "--format", "sarif", str(tree / "pkg")).output)
    results = sarif["runs"][0]["results"]
    assert sarif["version"] == "2.1.0" and [r["ruleId"] for r in results] == ["TRT401", "TRT704"]
    assert results[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 5
    github = run("check", "--format", "github", str(tree / "pkg")).output.splitlines()
    assert github[0].startswith("::warning file=") and ",line=5,col=12," in github[0]


def test_apply_rewrites_in_place_keeping_mode(tree: Path) -> None:
    target = tree / "pkg" / "model.py"
    target.chmod(0o751)
    result = run("apply", str(tree / "pkg"))
    assert result.exit_code == 0, result.output
    assert target.read_text() == MODEL.replace("len(x)", "x.shape[0]")
    assert stat.S_IMODE(target.stat().st_mode) == 0o751
    assert "Fixed 1 finding in 1 file; 1 remaining (1 fixable with --unsafe)" in result.output
    assert (tree / "pkg" / "clean.py").read_text() == CLEAN
    assert not [p for p in (tree / "pkg").iterdir() if p.name.startswith(".")], "temporary file left behind"
    run("apply", "--unsafe", str(tree / "pkg"))
    assert "x[:, 0], x.shape[0]" in target.read_text()


def test_dry_run_prints_diff_and_writes_nothing(tree: Path) -> None:
    result = run("apply", "--dry-run", "--unsafe", str(tree / "pkg"))
    assert result.exit_code == 0
    assert "-    return x.squeeze(1), len(x)\n+    return x[:, 0], x.shape[0]\n" in result.output
    assert (tree / "pkg" / "model.py").read_text() == MODEL
    assert run("apply", "--diff", str(tree / "pkg")).exit_code == 0


def test_apply_check_mode(tree: Path) -> None:
    assert run("apply", "--check", str(tree / "pkg")).exit_code == 1
    assert (tree / "pkg" / "model.py").read_text() == MODEL
    assert run("apply", "--check", str(tree / "pkg" / "clean.py")).exit_code == 0


def test_batch_goes_on_past_bad_file(tree: Path) -> None:
    bad = tree / "pkg" / "a_bad.py"
    bad.write_bytes(b"x = '\xff'\n")
    result = run("apply", "--unsafe", str(tree / "pkg"))
    assert result.exit_code == 2
    assert bad.read_bytes() == b"x = '\xff'\n"
    assert "x[:, 0], x.shape[0]" in (tree / "pkg" / "model.py").read_text()


def test_failed_write_reports_and_loses_nothing(tree: Path, monkeypatch) -> None:
    """A write that fails half-way (disk full, permissions) leaves the original and no debris."""
    import trtcodemod.files as files

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "replace", broken_replace)
    result = run("apply", str(tree / "pkg"))
    assert result.exit_code == 2 and "model.py: error: cannot write: No space left on device" in result.output
    assert (tree / "pkg" / "model.py").read_text() == MODEL
    assert sorted(p.name for p in (tree / "pkg").iterdir()) == ["clean.py", "model.py"]


def test_missing_path_and_unknown_codes(tree: Path) -> None:
    result = run("check", str(tree / "nope.py"), str(tree / "pkg"))
    assert result.exit_code == 2 and "nope.py: error: no such file or directory" in result.output
    bad = run("check", "--select", "TRT999", str(tree))
    assert bad.exit_code == 2 and "unknown rule code(s): TRT999" in bad.output
    assert run("check", "--target", "eight", str(tree)).exit_code == 2


def test_select_ignore_flags(tree: Path) -> None:
    data = json.loads(run("check", "--format", "json", "--select", "TRT4,TRT7", "--ignore", "TRT401", str(tree)).output)
    assert [f["rule"] for f in data["findings"]] == ["TRT704"]
    data = json.loads(run("check", "--format", "json", "--select", "TRT401,len-of-tensor", str(tree)).output)
    assert [f["rule"] for f in data["findings"]] == ["TRT401", "TRT704"]


def test_pyproject_configuration(tree: Path) -> None:
    (tree / "pyproject.toml").write_text(
        '[tool.trtcodemod]\nignore = ["TRT704"]\nexclude = ["skipped/"]\n'
        '[tool.trtcodemod.per-file-ignores]\n"pkg/other.py" = ["TRT4", "TRT7"]\n'
    )
    (tree / "pkg" / "other.py").write_text(MODEL)
    (tree / "skipped").mkdir()
    (tree / "skipped" / "m.py").write_text(MODEL)
    data = json.loads(run("check", "--format", "json", ".", cwd=tree).output)
    assert [(Path(f["path"]).name, f["rule"]) for f in data["findings"]] == [("model.py", "TRT401")]
    # Flags override the file.
    data = json.loads(run("check", "--format", "json", "--ignore", "TRT401", ".", cwd=tree).output)
    assert {f["rule"] for f in data["findings"]} == {"TRT704"}
    (tree / "pyproject.toml").write_text('[tool.trtcodemod]\nunsafe = "yes"\n')
    result = run("check", ".", cwd=tree)
    assert result.exit_code == 2 and "'unsafe' must be true or false" in result.output


def test_folder_walk_skips_hidden_venv_and_gitignored(tree: Path) -> None:
    for folder in (".hidden", "venv_here", "ignored", "__pycache__"):
        (tree / folder).mkdir()
        (tree / folder / "m.py").write_text(MODEL)
    (tree / "venv_here" / "pyvenv.cfg").write_text("home = /usr\n")
    (tree / ".gitignore").write_text("ignored/\n*_gen.py\n")
    (tree / "pkg" / "x_gen.py").write_text(MODEL)
    data = json.loads(run("check", "--format", "json", str(tree)).output)
    assert sorted({Path(f["path"]).relative_to(tree).as_posix() for f in data["findings"]}) == ["pkg/model.py"]
    # A file named explicitly is always checked.
    assert run("check", str(tree / "ignored" / "m.py")).exit_code == 1


def test_jobs_give_the_same_result(tree: Path) -> None:
    for number in range(6):
        (tree / "pkg" / f"m{number}.py").write_text(MODEL)
    serial = run("check", "--format", "json", str(tree)).output
    parallel = run("check", "--format", "json", "--jobs", "2", str(tree)).output
    assert serial == parallel and len(json.loads(serial)["findings"]) == 14


def test_rules_and_explain() -> None:
    listing = run("rules").output
    assert "TRT401  squeeze-dim" in listing
    data = json.loads(run("rules", "--format", "json").output)
    assert {"id", "name", "fix", "summary", "needed_before"} <= set(data[0])
    text = run("explain", "squeeze-dim").output
    assert text.startswith("TRT401 squeeze-dim") and "Fix safety: unsafe" in text and "x[:, 0]" in text
    assert run("explain", "TRT999").exit_code == 2


def test_installed_entry_point(tree: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "trtcodemod", "check", str(tree / "pkg")],
                            capture_output=True, text=True)
    assert result.returncode == 1 and "TRT401" in result.stdout


def test_a_rule_crash_is_reported_and_the_batch_goes_on(tree: Path, monkeypatch) -> None:
    """A bug in one rule on one file: that file is reported and left as it was; the others are fixed."""
    from trtcodemod.transforms.python_values import LenOfTensor

    original = LenOfTensor.visit_FunctionDef

    def flaky(self, node):
        if self.context.path.endswith("crash.py"):
            raise RuntimeError("rule bug")
        return original(self, node)

    monkeypatch.setattr(LenOfTensor, "visit_FunctionDef", flaky)
    (tree / "pkg" / "crash.py").write_text(MODEL)
    result = run("apply", str(tree / "pkg"))
    assert result.exit_code == 2
    assert "crash.py: error: internal error, file left unchanged: RuntimeError: rule bug" in result.output
    assert (tree / "pkg" / "crash.py").read_text() == MODEL
    assert "x.squeeze(1), x.shape[0]" in (tree / "pkg" / "model.py").read_text()
