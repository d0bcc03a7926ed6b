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
from support import REPO

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


#: MODEL's squeeze is TRT401's, an opt-in rule: the trees these tests check select it.
SELECT_TRT401 = '[tool.trtcodemod]\nselect = ["ALL", "TRT401"]\n'


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text(SELECT_TRT401)
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
        ("column", "edits", "end_column", "end_line", "fix", "line", "message", "name", "path", "rule")
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


def test_remaining_findings_carry_the_lines_on_disk(tmp_path: Path) -> None:
    """A dry run reports what remains at the original file's lines; a real apply at the new file's."""
    code = "import torch\n\n\ndef yaw(s: torch.Tensor, c, m, v):\n    s[m > 0] += v\n    return torch.atan2(s, c)\n"
    path = tmp_path / "head.py"
    path.write_text(code)
    dry = run("apply", "--dry-run", str(path))
    assert f"{path}:5:5: TRT202" in dry.output  # the helper inserted above would have moved it
    assert path.read_text() == code
    done = run("apply", str(path))
    new_line = path.read_text().splitlines().index("    s[m > 0] += v") + 1
    assert new_line > 5 and f"{path}:{new_line}:5: TRT202" in done.output


def test_check_reads_standard_input_and_writes_an_output_file(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["check", "-", "--stdin-filename", "pkg/head.py", "--format", "json",
                                      "--select", "ALL,TRT401"], input=MODEL)
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert {f["path"] for f in report["findings"]} == {"pkg/head.py"}
    assert {f["rule"] for f in report["findings"]} == {"TRT401", "TRT704"}
    bad = CliRunner().invoke(app, ["check", "-"], input="def f(:\n")
    assert bad.exit_code == 2 and "-:1: error: syntax error" in bad.output
    assert run("check", "-", str(tmp_path)).exit_code == 2  # '-' cannot be mixed with paths
    target = tmp_path / "report.json"
    (tmp_path / "m.py").write_text(MODEL)
    written = run("check", str(tmp_path / "m.py"), "--format", "json", "--output", str(target),
                  "--select", "ALL,TRT401")
    assert written.exit_code == 1 and written.stdout == ""
    assert [f["rule"] for f in json.loads(target.read_text())["findings"]] == ["TRT401", "TRT704"]


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
        '[tool.trtcodemod]\nselect = ["ALL", "TRT401"]\nignore = ["TRT704"]\nexclude = ["skipped/"]\n'
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


def test_version_flags() -> None:
    from trtcodemod import __version__

    for flag in ("--version", "-V"):
        result = run(flag)
        assert result.exit_code == 0 and result.output.strip() == f"trtcodemod {__version__}"


def test_pre_commit_hooks_name_real_commands(tree: Path) -> None:
    """Each hook's entry, given the staged file names as pre-commit does, runs and answers."""
    yaml = pytest.importorskip("yaml", reason="PyYAML reads the pre-commit manifest")
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert {hook["id"] for hook in hooks} == {"trtcodemod-check", "trtcodemod-apply"}
    for hook in hooks:
        assert hook["language"] == "python" and hook["types"] == ["python"]
        program, command = hook["entry"].split()
        assert program == "trtcodemod"
        result = run(command, str(tree / "pkg" / "clean.py"))
        assert result.exit_code == 0, (hook["id"], result.output)


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
    """A bug in one rule on one file: that rule is named and left out there; the others still run."""
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
    assert "crash.py: internal error: rule TRT704 failed on this file (RuntimeError: rule bug)" in result.output
    assert (tree / "pkg" / "crash.py").read_text() == MODEL  # TRT704 was its only fix
    assert any(line.startswith(str(tree / "pkg" / "crash.py")) and "TRT401" in line
               for line in result.output.splitlines())  # the other rules still reported the file
    assert "x.squeeze(1), x.shape[0]" in (tree / "pkg" / "model.py").read_text()


# --- what a new user runs into ----------------------------------------------------------------


def _squash(text: str) -> str:
    return "".join(text.split())


def test_every_help_text_is_shown_whole() -> None:
    """Rich markup used to eat bracketed words: "[tool.trtcodemod] table" rendered as "a  table"."""
    import typer.main

    group = typer.main.get_command(app)
    top = run("--help").output
    assert "Find PyTorch code" in top
    for name, command in group.commands.items():
        shown = _squash(run(name, "--help").output)
        texts = [command.help or ""] + [getattr(p, "help", None) or "" for p in command.params]
        for text in texts:
            # The first paragraph of a docstring; click may re-wrap, so whitespace is ignored.
            first = _squash(text.split("\n\n")[0].replace("\b", ""))
            assert first in shown, (name, text)
    assert "[tool.trtcodemod]" in run("check", "--help").output


def test_command_line_select_turns_on_a_rule_the_configuration_ignores(tree: Path) -> None:
    (tree / "pyproject.toml").write_text('[tool.trtcodemod]\nselect = ["ALL", "TRT401"]\nignore = ["TRT704"]\n')
    rules = lambda *args: [f["rule"] for f in json.loads(run("check", "--format", "json", *args, ".", cwd=tree).output)["findings"]]  # noqa: E731
    assert rules() == ["TRT401"]
    assert rules("--select", "TRT704") == ["TRT704"]
    assert rules("--select", "ALL") == ["TRT704"]  # TRT401 is opt-in: ALL leaves it out
    assert rules("--select", "ALL,TRT401") == ["TRT401", "TRT704"]
    assert rules("--select", "ALL,TRT401", "--ignore", "TRT401") == ["TRT704"]
    assert rules("--ignore", "TRT401") == ["TRT704"]  # --ignore replaces the file's ignore list


def test_no_unsafe_overrides_unsafe_true_in_the_configuration(tree: Path) -> None:
    (tree / "pyproject.toml").write_text('[tool.trtcodemod]\nunsafe = true\nselect = ["ALL", "TRT401"]\n')
    unsafe = run("apply", "--dry-run", ".", cwd=tree).output
    assert "+    return x[:, 0], x.shape[0]" in unsafe
    safe = run("apply", "--dry-run", "--no-unsafe", ".", cwd=tree).output
    assert "+    return x.squeeze(1), x.shape[0]" in safe and "(1 fixable with --unsafe)" in safe
    assert run("apply", "--no-unsafe", ".", cwd=tree).exit_code == 0
    assert (tree / "pkg" / "model.py").read_text() == MODEL.replace("len(x)", "x.shape[0]")


def test_no_python_files_is_a_warning_not_a_pass(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "readme.md").write_text("# not python\n")
    for folder in ("empty", "docs"):
        for args in (("check",), ("apply",), ("apply", "--check")):
            result = run(*args, str(tmp_path / folder))
            assert result.exit_code == 0, result.output
            assert result.stderr.startswith(f"trtcodemod: warning: no Python files found under {tmp_path / folder}")
            assert "All checks passed" not in result.output and "Fixed" not in result.output
    as_json = run("check", "--format", "json", str(tmp_path / "empty"))
    assert json.loads(as_json.stdout) == {"version": 1, "findings": [], "errors": []}
    assert "no Python files found" in as_json.stderr


def test_unknown_codes_are_echoed_as_typed(tree: Path) -> None:
    for flag, code in (("--select", "foo-bar"), ("--ignore", "Trt999")):
        result = run("check", flag, code, str(tree))
        assert result.exit_code == 2 and f"unknown rule code(s): {code} (see" in result.output


def test_unknown_code_in_a_suppression_comment_warns_once(tree: Path) -> None:
    model = tree / "pkg" / "model.py"
    model.write_text(
        "import torch\n\n\ndef head(x: torch.Tensor):\n"
        "    a = x.squeeze(1)  # trtcodemod: ignore[TRT999]\n"
        "    b = x.squeeze(2)  # trtcodemod: ignore[TRT999, squeeze-dim]\n"
        "    c = x.squeeze(3)  # TRTCODEMOD: IGNORE[all]\n"
        "    d = len(x)  # trtcodemod: ignore[TRT7, len-of-tensor]\n"
        "    return a, b, c, d\n"
    )
    result = run("check", "--format", "json", str(tree / "pkg"))
    data = json.loads(result.stdout)  # warnings never reach stdout
    assert [(f["line"], f["rule"]) for f in data["findings"]] == [(5, "TRT401"), (7, "TRT401")]
    warnings = result.stderr.splitlines()
    assert warnings == [
        f"{model}:5: warning: unknown rule code 'TRT999' in a `# trtcodemod: ignore[...]` comment suppresses "
        "nothing (see `trtcodemod rules`)",
        f"{model}:7: warning: `ignore[all]` suppresses nothing; write `# trtcodemod: ignore` to suppress every "
        "rule (see `trtcodemod rules`)",
    ]
    assert warnings[0] in run("apply", "--dry-run", str(tree / "pkg")).stderr


def test_jobs_must_be_zero_or_more(tree: Path) -> None:
    for bad in ("-1", "-8"):
        result = run("check", "-j", bad, str(tree))
        assert result.exit_code == 2 and "--jobs" in result.output
    assert run("apply", "--jobs", "-1", str(tree)).exit_code == 2
    assert (tree / "pkg" / "model.py").read_text() == MODEL
    zero = run("check", "--format", "json", "-j", "0", str(tree))  # 0: one worker per core
    assert zero.exit_code == 1 and zero.stdout == run("check", "--format", "json", str(tree)).stdout


_WITHOUT = """
import sys

BLOCKED = set(sys.argv[1].split(","))


class NotInstalled:
    '''What Python sees when a package is not installed.'''

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, NotInstalled())
sys.argv = ["trtcodemod", *sys.argv[2:]]
from trtcodemod.cli import main

main()
"""


@pytest.mark.parametrize("blocked, args", [
    ("onnx", ["inspect", "model.onnx"]),
    ("onnx", ["verify", "model.py", "--model", "build"]),
    ("torch,onnxruntime", ["verify", "model.py", "--model", "build"]),
])
def test_verify_and_inspect_without_the_verify_extra(tmp_path: Path, blocked: str, args: list[str]) -> None:
    (tmp_path / "model.onnx").write_bytes(b"not really")
    (tmp_path / "model.py").write_text("def build():\n    return None\n")
    result = subprocess.run([sys.executable, "-c", _WITHOUT, blocked, *args], capture_output=True, text=True,
                            cwd=tmp_path, timeout=120)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert "pip install 'trtcodemod[verify]'" in result.stderr
    assert f"`trtcodemod {args[0]}` needs {blocked.replace(',', ', ')}, not installed" in result.stderr
