"""JSON and SARIF carry each fix's edits; applying them gives exactly what `apply` writes.
Machine formats stay clean on stdout; the progress bar only draws on a terminal."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from trtcodemod.cli import app
from trtcodemod.report.edits import apply_replacements, replacements, split_lines
from trtcodemod.report.progress import Progress

HEADER = "# café ☕: code points before the fix count once each\nimport torch\n\n\n"
#: name -> (rule, needs --unsafe, the code after HEADER): one finding each.
CASES = {
    "len": ("TRT704", False, "def head(x: torch.Tensor):\n    return len(x) + 1\n"),
    "atan2_helper": ("TRT301", False, "def head(y: torch.Tensor, x: torch.Tensor):\n    return torch.atan2(y, x)\n"),
    "squeeze_unsafe": ("TRT401", True, "def head(x: torch.Tensor):\n    return x.squeeze(1) * 2\n"),
    "multiline": ("TRT704", False, "def head(x: torch.Tensor):\n    return (\n        len(x)\n        + 1\n    )\n"),
}


def run(*args: str):
    return CliRunner().invoke(app, list(args))


def _write(path: Path, text: str, newline: str = "\n") -> str:
    data = text.replace("\n", newline)
    path.write_bytes(data.encode("utf-8"))
    return data


def _sarif_replacements(result: dict) -> list[dict]:
    """The replacements of a SARIF result's only fix, as offsets, computed from its line/column regions."""
    (fix,) = result["fixes"]
    (change,) = fix["artifactChanges"]
    return [
        {"region": r["deletedRegion"], "content": r["insertedContent"]["text"]} for r in change["replacements"]
    ]


def _apply_by_lines(text: str, edits: list[dict]) -> str:
    """What an editor does with SARIF regions: 1-based lines and code-point columns, end exclusive."""
    lines = split_lines(text)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(line: int, column: int) -> int:
        return starts[line - 1] + column - 1

    flat = []
    for edit in edits:
        region = edit["region"]
        begin = offset(region["startLine"], region["startColumn"])
        end = offset(region["endLine"], region["endColumn"])
        assert (begin, end - begin) == (region["charOffset"], region["charLength"])
        flat.append({"offset": begin, "length": end - begin, "content": edit["content"]})
    return apply_replacements(text, flat)


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_sarif_and_json_edits_reproduce_what_apply_writes(tmp_path: Path, case: str, newline: str) -> None:
    rule, unsafe, body = CASES[case]
    path = tmp_path / "model.py"
    original = _write(path, HEADER + body, newline)
    sarif = json.loads(run("check", "--select", rule, "--format", "sarif", "--no-cache", str(path)).stdout)
    data = json.loads(run("check", "--select", rule, "--format", "json", "--no-cache", str(path)).stdout)
    (result,) = sarif["runs"][0]["results"]
    (finding,) = data["findings"]
    assert sarif["runs"][0]["columnKind"] == "unicodeCodePoints"
    flags = ["--unsafe"] if unsafe else []
    applied = run("apply", "--select", rule, *flags, "--no-cache", str(path))
    assert applied.exit_code == 0, applied.output
    written = path.read_bytes().decode("utf-8")
    assert written != original
    assert _apply_by_lines(original, _sarif_replacements(result)) == written
    assert apply_replacements(original, finding["edits"]) == written
    # The user's substitution comes first, at the finding; inserted helpers after it.
    first = finding["edits"][0]
    assert first["line"] <= finding["end_line"] and first["end_line"] >= finding["line"]
    if case == "atan2_helper":
        assert len(finding["edits"]) == 2 and "def _trt_atan2" in finding["edits"][1]["content"]
        assert "def _trt_atan2" not in first["content"]
    else:
        assert len(finding["edits"]) == 1


def test_findings_without_a_fix_carry_no_edit(tmp_path: Path) -> None:
    path = tmp_path / "model.py"
    # TRT103 (one-argument torch.where) is detect-only.
    path.write_text("import torch\n\n\ndef head(c: torch.Tensor):\n    return torch.where(c)\n")
    data = json.loads(run("check", "--select", "TRT103", "--format", "json", "--no-cache", str(path)).stdout)
    assert [f["edits"] for f in data["findings"]] == [[]]
    sarif = json.loads(run("check", "--select", "TRT103", "--format", "sarif", "--no-cache", str(path)).stdout)
    assert [("fixes" in r) for r in sarif["runs"][0]["results"]] == [False]


def test_two_fixes_in_one_file_each_apply_alone(tmp_path: Path) -> None:
    """Each fix's edits are relative to the original file: either applies on its own."""
    path = tmp_path / "model.py"
    original = "import torch\n\n\ndef head(x: torch.Tensor, y: torch.Tensor):\n    return len(x), len(y)\n"
    path.write_text(original)
    data = json.loads(run("check", "--select", "TRT704", "--format", "json", "--no-cache", str(path)).stdout)
    first, second = (apply_replacements(original, f["edits"]) for f in data["findings"])
    assert first == original.replace("len(x),", "x.shape[0],")
    assert second == original.replace("len(y)", "y.shape[0]")


def test_replacements_are_minimal_and_positioned_in_code_points() -> None:
    old = "a = 'é'\r\nb = f(x)\r\nc = 1"
    new = "a = 'é'\r\nb = g(x)\r\nc = 1"
    (edit,) = replacements(old, new)
    assert (edit["line"], edit["column"], edit["end_line"], edit["end_column"]) == (2, 5, 2, 6)
    assert (edit["offset"], edit["length"], edit["content"]) == (13, 1, "g")
    # An insertion at the very end of a file without a final newline.
    (tail,) = replacements(old, old + "\nd = 2\n")
    assert (tail["line"], tail["column"], tail["length"]) == (3, 6, 0) and tail["content"] == "\nd = 2\n"
    assert apply_replacements(old, [edit, tail]) == new + "\nd = 2\n"


@pytest.mark.parametrize("fmt", ["json", "sarif", "github"])
def test_machine_formats_keep_stdout_clean_and_stderr_empty(tmp_path: Path, fmt: str) -> None:
    for number in range(3):
        (tmp_path / f"m{number}.py").write_text("import torch\n\n\ndef head(x: torch.Tensor):\n    return len(x)\n")
    result = run("check", "--format", fmt, "--no-cache", str(tmp_path))
    assert result.exit_code == 1 and result.stderr == ""
    if fmt != "github":
        json.loads(result.stdout)


def test_text_check_ends_with_a_run_summary_on_stderr_unless_quiet(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("import torch\n\n\ndef head(x: torch.Tensor):\n    return len(x)\n")
    (tmp_path / "bad.py").write_text("def f(:\n")
    result = run("check", "--no-cache", str(tmp_path))
    (line,) = result.stderr.splitlines()
    assert line.startswith("Checked 2 files in ") and line.endswith(" s; 1 could not be processed.")
    assert "TRT704: 1" in result.stdout  # per rule, in the report itself
    assert run("check", "--no-cache", "--quiet", str(tmp_path)).stderr == ""


def test_apply_summary_counts_fixes_and_remaining_findings_per_rule(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(
        "import torch\n\n\ndef head(x: torch.Tensor, y: torch.Tensor):\n    return len(x), x.squeeze(1), len(y)\n")
    (tmp_path / "clean.py").write_text("x = 1\n")
    result = run("apply", "--no-cache", "--select", "ALL,TRT401", str(tmp_path))
    lines = result.stderr.splitlines()
    assert "  TRT401: fixed 0, 1 remaining" in lines and "  TRT704: fixed 2, 0 remaining" in lines
    assert lines[-1].startswith("Scanned 2 files in ") and lines[-1].endswith(" s; 1 changed.")
    quiet = run("apply", "--no-cache", "--quiet", "--unsafe", str(tmp_path))
    assert not [line for line in quiet.stderr.splitlines() if line.startswith(("Scanned", "  TRT"))]


class _Terminal(io.StringIO):
    """A text stream that says it is a terminal (what the progress bar asks before drawing)."""

    def isatty(self) -> bool:
        return True


class _Outcome:
    def __init__(self, name: str) -> None:
        self.file = type("F", (), {"display": name})()


def test_progress_draws_only_on_a_terminal_and_erases_itself() -> None:
    terminal = _Terminal()
    with Progress(3, terminal, delay=0) as progress:
        for number in range(3):
            progress(_Outcome(f"pkg/m{number}.py"))
    drawn = terminal.getvalue()
    assert "3/3" in drawn and "100%" in drawn and "pkg/m2.py" in drawn
    assert drawn.endswith("\r\x1b[K")  # the line is erased at the end
    pipe = io.StringIO()
    with Progress(3, pipe, delay=0) as progress:
        for number in range(3):
            progress(_Outcome(f"m{number}.py"))
    assert pipe.getvalue() == ""
    quiet = _Terminal()
    with Progress(3, quiet, enabled=False, delay=0) as progress:
        progress(_Outcome("m.py"))
    assert quiet.getvalue() == ""


def test_shell_completion_scripts_and_completions(monkeypatch) -> None:
    # Name the shell instead of detecting the one running the tests.
    monkeypatch.setenv("_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION", "1")
    for shell, marker in (("bash", "complete -o default -F"), ("zsh", "compdef"), ("fish", "complete --command")):
        result = run("--show-completion", shell)
        assert result.exit_code == 0, result.output
        assert marker in result.stdout and "_TRTCODEMOD_COMPLETE" in result.stdout
    monkeypatch.delenv("_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION")
    assert "--install-completion" in run("--help").stdout
    # What the bash script asks for when the user presses Tab after `trtcodemod check --no-c`.
    words = {"COMP_WORDS": "trtcodemod check --no-c", "COMP_CWORD": "2", "_TRTCODEMOD_COMPLETE": "complete_bash"}
    completed = CliRunner().invoke(app, [], env=words, prog_name="trtcodemod")
    assert completed.stdout.split() == ["--no-cache"]
    words["COMP_WORDS"], words["COMP_CWORD"] = "trtcodemod ap", "1"
    assert CliRunner().invoke(app, [], env=words, prog_name="trtcodemod").stdout.split() == ["apply"]


def test_dry_run_opens_with_the_users_changes_and_patches_to_what_apply_writes(tmp_path: Path, monkeypatch) -> None:
    rule, _, body = CASES["atan2_helper"]
    source = HEADER + body
    (tmp_path / "model.py").write_text(source)
    monkeypatch.chdir(tmp_path)  # paths in the diff relative to here, as `patch -p1` wants them
    diff = run("apply", "--dry-run", "--no-cache", "--select", rule, "model.py").stdout
    changed = [line for line in diff.splitlines() if line.startswith(("+", "-")) and not line.startswith(("+++", "---"))]
    assert changed[:2] == ["-    return torch.atan2(y, x)", "+    return _trt_atan2(y, x)"]
    note = next(line for line in diff.splitlines() if line.startswith("# "))
    assert "lines of helper code and imports inserted by trtcodemod" in note
    assert diff.index(note) > diff.index("+    return _trt_atan2(y, x)")
    patch = shutil.which("patch")
    if patch is None:
        pytest.skip("no `patch` program to apply the diff with")
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "model.py").write_text(source)
    subprocess.run([patch, "-p1", "-s"], input=diff, text=True, cwd=copy, check=True)
    run("apply", "--no-cache", "--select", rule, str(tmp_path / "model.py"))
    assert (copy / "model.py").read_text() == (tmp_path / "model.py").read_text() != source
