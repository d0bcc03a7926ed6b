"""A batch never stops on one file: bad inputs, dying workers, symlink loops, huge files, signals.

Every bad input gets ``path[:line]: error: reason``, stays byte-for-byte (and mtime) as it
was, and the other files are still processed. A killed ``apply`` leaves every file either
exactly old or exactly new, and the next run removes the temporary files it left.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from trtcodemod import runner
from trtcodemod.cli import app
from trtcodemod.files import TEMP_NAME, remove_stale_temps, temp_path

# TRT401 (unsafe fix) and TRT704 (safe fix: len(x) -> x.shape[0]).
GOOD = "import torch\n\n\ndef head(x: torch.Tensor):\n    return x.squeeze(1), len(x)\n"
GOOD_FIXED = GOOD.replace("len(x)", "x.shape[0]")


def run(*args: str):
    return CliRunner().invoke(app, list(args))


def snapshot(path: Path) -> tuple[bytes, int]:
    """Bytes and mtime: "untouched" means both."""
    return path.read_bytes(), path.stat().st_mtime_ns


def our_temps(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if TEMP_NAME.match(p.name)]


# --- parallel runs ----------------------------------------------------------------------------


def _mixed_tree(root: Path) -> dict[str, Path]:
    root.mkdir(exist_ok=True)
    for number in range(4):
        (root / f"good{number}.py").write_text(GOOD)
    bad = {
        "syntax.py": b"def f(:\n    pass\n",
        "latin.py": b"x = 'caf\xe9'\n",
        "binary.py": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
        "py2.py": b"print 'hello'\n",
    }
    for name, data in bad.items():
        (root / name).write_bytes(data)
    return {name: root / name for name in bad}


def test_jobs_with_unreadable_and_unparsable_files(tmp_path: Path) -> None:
    """--jobs 2: each bad file is its own error, exit 2, same output as --jobs 1."""
    bad = _mixed_tree(tmp_path / "src")
    serial = run("check", "--format", "json", str(tmp_path / "src"), str(tmp_path / "missing.py"))
    parallel = run("check", "--format", "json", "-j", "2", str(tmp_path / "src"), str(tmp_path / "missing.py"))
    assert parallel.exit_code == 2, parallel.output
    assert "Traceback" not in parallel.output and "BrokenProcessPool" not in parallel.output
    assert parallel.output == serial.output
    data = json.loads(parallel.output)
    assert sorted(Path(e["path"]).name for e in data["errors"]) == sorted([*bad, "missing.py"])
    assert {Path(f["path"]).name for f in data["findings"]} == {f"good{n}.py" for n in range(4)}
    before = {name: snapshot(path) for name, path in bad.items()}
    applied = run("apply", "-j", "2", str(tmp_path / "src"))
    assert applied.exit_code == 2 and "Fixed 4 findings in 4 files" in applied.output, applied.output
    assert {name: snapshot(path) for name, path in bad.items()} == before
    assert (tmp_path / "src" / "good0.py").read_text() == GOOD_FIXED


_DYING_WORKER = """
import os, signal, sys
from trtcodemod import runner
from trtcodemod.cli import main

original = runner.process

def dying(file, *args):
    if file.path.name.endswith("_crash.py"):
        os.kill(os.getpid(), signal.SIGKILL)
    return original(file, *args)

runner.process = dying
sys.argv = ["trtcodemod", "apply", "-j", "2", "--select", "ALL,TRT401", sys.argv[1]]
main()
"""


@pytest.mark.skipif(multiprocessing.get_start_method() != "fork",
                    reason="the crash is patched into the parent and reaches workers only by fork")
def test_a_worker_dying_on_one_file_is_that_files_error(tmp_path: Path) -> None:
    """A worker killed on one file (a native crash, the OOM killer): that file is an error, the rest go on."""
    for number in range(6):
        (tmp_path / f"m{number}.py").write_text(GOOD)
    (tmp_path / "m3_crash.py").write_text(GOOD)
    result = subprocess.run([sys.executable, "-c", _DYING_WORKER, str(tmp_path)],
                            capture_output=True, text=True, timeout=120)
    output = result.stdout + result.stderr
    assert result.returncode == 2, output
    assert "m3_crash.py: error: internal error, file left unchanged: the worker process died (killed by SIGKILL)" \
        in output
    assert (tmp_path / "m3_crash.py").read_text() == GOOD
    assert all((tmp_path / f"m{n}.py").read_text() == GOOD_FIXED for n in range(6))
    assert "Fixed 6 findings in 6 files; 6 remaining" in output


def test_parser_crash_on_deep_nesting_is_reported_with_jobs(tmp_path: Path) -> None:
    """Real code that crashes LibCST's native parser (a stack overflow): with --jobs it is one file's error."""
    (tmp_path / "deep.py").write_text("x = " + "-" * 100_000 + "1\n")
    for number in range(3):
        (tmp_path / f"m{number}.py").write_text(GOOD)
    result = subprocess.run([sys.executable, "-m", "trtcodemod", "check", "-j", "2", str(tmp_path)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    assert f"{tmp_path / 'deep.py'}:1: error: source nests too deeply to parse" in result.stdout
    assert result.stdout.count(": TRT704 ") == 3


# --- symlink loops and other odd paths -------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "symlink") or sys.platform == "win32", reason="POSIX symlinks")
def test_symlink_loops_are_errors_and_the_batch_goes_on(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "good.py").write_text(GOOD)
    os.symlink("b.py", src / "a.py")  # a.py -> b.py -> a.py
    os.symlink("a.py", src / "b.py")
    os.symlink("self.py", src / "self.py")
    os.symlink("loopdir", tmp_path / "loopdir")  # a looping folder given as an argument
    result = run("apply", str(src), str(tmp_path / "loopdir"), str(src / "a.py"))
    assert result.exit_code == 2, result.output
    for name in ("a.py", "b.py", "self.py"):
        assert f"{src / name}: error: symlink loop" in result.output
    assert f"{tmp_path / 'loopdir'}: error: symlink loop" in result.output
    assert "RuntimeError" not in result.output
    assert (src / "good.py").read_text() == GOOD_FIXED
    assert run("check", str(tmp_path / "loopdir")).exit_code == 2  # and as the only argument


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs")
def test_a_fifo_named_py_is_not_read(tmp_path: Path) -> None:
    """Reading a FIFO would block the batch forever."""
    os.mkfifo(tmp_path / "pipe.py")
    (tmp_path / "good.py").write_text(GOOD)
    result = run("check", str(tmp_path))
    assert result.exit_code == 2 and f"{tmp_path / 'pipe.py'}: error: not a regular file" in result.output


# --- size limit ------------------------------------------------------------------------------


def test_files_over_the_size_limit_are_reported_not_parsed(tmp_path: Path) -> None:
    big = tmp_path / "generated.py"
    big.write_text("x = 1\n" * 400_000)  # 2.4 MB: over the 2 MiB default
    (tmp_path / "good.py").write_text(GOOD)
    before = snapshot(big)
    result = run("apply", str(tmp_path))
    assert result.exit_code == 2
    assert f"{big}: error: file is 2400000 bytes, over the 2 MiB limit (--max-file-size)" in result.output
    assert snapshot(big) == before and (tmp_path / "good.py").read_text() == GOOD_FIXED
    # The flag and the configuration change the limit; 0 lifts it.
    small = run("check", "--max-file-size", "50", str(tmp_path / "good.py"))
    size = len(GOOD_FIXED)
    assert small.exit_code == 2 and f"file is {size} bytes, over the 50 bytes limit (--max-file-size)" in small.output
    for lifted in ("0", "81", "3MB", "1KiB"):
        assert run("check", "--max-file-size", lifted, "--select", "ALL,TRT401",
                   str(tmp_path / "good.py")).exit_code == 1
    bad = run("check", "--max-file-size", "lots", str(big))
    assert bad.exit_code == 2 and "--max-file-size: not a size: 'lots'" in bad.output
    (tmp_path / "pyproject.toml").write_text('[tool.trtcodemod]\nmax-file-size = "1KiB"\n')
    configured = run("check", str(big))
    assert configured.exit_code == 2 and "over the 1 KiB limit" in configured.output
    (tmp_path / "pyproject.toml").write_text("[tool.trtcodemod]\nmax-file-size = -3\n")
    assert "'max-file-size': not a size" in run("check", str(big)).output


# --- every kind of bad input -----------------------------------------------------------------

#: name -> (bytes, the expected error after "path", or None when the file is fine).
INPUTS: dict[str, tuple[bytes, str | None]] = {
    "syntax.py": (b"def f(:\n    pass\n", ":1: error: syntax error: invalid syntax"),
    "python2.py": (b"import os\nprint 'hello'\n", ":2: error: syntax error: Missing parentheses in call to 'print'"),
    "latin1_no_cookie.py": (b"x = 'caf\xe9'\n", ": error: cannot decode"),
    "latin1_ascii_cookie.py": (b"# -*- coding: ascii -*-\nx = 'caf\xe9'\n", ": error: cannot decode"),
    "unknown_cookie.py": (b"# coding: klingon\nx = 1\n", ": error: cannot decode: unknown encoding: klingon"),
    "binary.py": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00", ": error: file contains NUL bytes"),
    "binary_no_nul.py": (bytes(range(128, 256)), ": error: cannot decode"),
    "empty.py": (b"", None),
    "cr_only.py": (b"import torch\r\r\rdef head(x: torch.Tensor):\r    return len(x)\r", None),
    "latin1_with_cookie.py": (b"# -*- coding: latin-1 -*-\nimport torch\n\n\ndef head(x: torch.Tensor):\n"
                              b"    return len(x), 'caf\xe9'\n", None),
}


def test_each_bad_input_is_reported_untouched_and_the_batch_goes_on(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for name, (data, _) in INPUTS.items():
        (src / name).write_bytes(data)
    (src / "zz_good.py").write_text(GOOD)
    (src / "folder.py").mkdir()  # a folder named like a module: walked, not read
    (src / "folder.py" / "inner.py").write_text(GOOD)
    big = src / "huge.py"
    big.write_bytes(b"x = 1\n" * 200)
    before = {name: snapshot(src / name) for name, (_, error) in INPUTS.items() if error is not None}
    before["huge.py"] = snapshot(big)
    result = run("apply", "--max-file-size", "1KiB", str(src), str(tmp_path / "missing.py"))
    assert result.exit_code == 2, result.output
    lines = result.output.splitlines()
    for name, (_, error) in INPUTS.items():
        reported = [line for line in lines if line.startswith(str(src / name) + ":")]
        if error is None:
            assert not [line for line in reported if "error" in line], reported
        else:
            assert len(reported) == 1 and reported[0].startswith(str(src / name) + error), (name, reported)
    assert f"{big}: error: file is 1200 bytes, over the 1 KiB limit (--max-file-size)" in lines
    assert f"{tmp_path / 'missing.py'}: error: no such file or directory" in lines
    assert {name: snapshot(src / name) for name in before} == before
    # The fine ones: fixed where there was something to fix, their own bytes kept.
    assert (src / "zz_good.py").read_text() == GOOD_FIXED
    assert (src / "folder.py" / "inner.py").read_text() == GOOD_FIXED
    assert (src / "empty.py").read_bytes() == b""
    assert (src / "cr_only.py").read_bytes() == INPUTS["cr_only.py"][0].replace(b"len(x)", b"x.shape[0]")
    assert (src / "latin1_with_cookie.py").read_bytes() == INPUTS["latin1_with_cookie.py"][0].replace(
        b"len(x)", b"x.shape[0]")
    assert "9 files could not be processed" in result.output  # 7 bad inputs, huge.py, missing.py
    assert "Fixed 4 findings in 4 files" in result.output


_UNREADABLE_SCRIPT = """
import os, shutil, sys, tempfile
from pathlib import Path
from typer.testing import CliRunner
from trtcodemod.cli import app, main

# A first run as root imports everything the real run needs: the interpreter lives
# where nobody cannot read.
warm = Path(tempfile.mkdtemp())
(warm / "m.py").write_text(sys.argv[2])
CliRunner().invoke(app, ["apply", "--dry-run", str(warm)])
shutil.rmtree(warm)
os.setgid(65534)
os.setuid(65534)
sys.argv = ["trtcodemod", "apply", sys.argv[1]]
main()
"""


def test_unreadable_file_is_reported_untouched(tmp_path: Path) -> None:
    """chmod 000: as a normal user in-process; as root, in a subprocess that drops to nobody."""
    if os.geteuid() != 0:
        folder = tmp_path
    elif not hasattr(os, "setuid"):
        pytest.skip("running as root: permissions are not enforced")
    else:
        folder = Path(tempfile.mkdtemp(prefix="trtcodemod-unreadable-"))
        os.chmod(folder, 0o777)
    try:
        locked = folder / "locked.py"
        locked.write_text(GOOD)
        good = folder / "good.py"
        good.write_text(GOOD)
        os.chmod(good, 0o666)
        os.chmod(locked, 0o000)
        before = snapshot(locked)
        if os.geteuid() != 0:
            code, output = (lambda r: (r.exit_code, r.output))(run("apply", str(folder)))
        else:
            proc = subprocess.run([sys.executable, "-c", _UNREADABLE_SCRIPT, str(folder), GOOD],
                                  capture_output=True, text=True, timeout=120, cwd=folder)
            code, output = proc.returncode, proc.stdout + proc.stderr
            if code != 2 and "Permission denied" not in output:
                pytest.skip(f"running as root: permissions are not enforced ({output[-300:]})")
        assert code == 2, output
        assert f"{locked}: error: cannot read: Permission denied" in output
        os.chmod(locked, 0o644)
        assert snapshot(locked)[0] == before[0] and locked.stat().st_mtime_ns == before[1]
        assert good.read_text() == GOOD_FIXED
    finally:
        if folder != tmp_path:
            shutil.rmtree(folder, ignore_errors=True)


# --- temporary files ---------------------------------------------------------------------------


def test_temporary_files_have_our_pattern() -> None:
    name = temp_path(Path("/x/model.py")).name
    assert TEMP_NAME.match(name) and TEMP_NAME.match(name)["name"] == "model.py"
    assert name.startswith(".model.py.trtcodemod-") and name.endswith(".tmp")


def test_write_interrupted_by_an_exception_leaves_the_original_and_no_temp(tmp_path: Path, monkeypatch) -> None:
    import trtcodemod.files as files

    target = tmp_path / "m.py"
    target.write_text(GOOD)

    def interrupted_fsync(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(files.os, "fsync", interrupted_fsync)
    with pytest.raises(KeyboardInterrupt):
        files.write_atomic(target, b"new")
    assert target.read_text() == GOOD and sorted(p.name for p in tmp_path.iterdir()) == ["m.py"]


def test_stale_temporary_files_are_removed_by_the_next_apply(tmp_path: Path) -> None:
    """Only ours (exact pattern), only next to files being processed, only older than the run."""
    (tmp_path / "m.py").write_text(GOOD)
    (tmp_path / "clean.py").write_text("x = 1\n")
    old = time.time() - 60
    stale = [tmp_path / ".m.py.trtcodemod-0123abcd.tmp", tmp_path / ".clean.py.trtcodemod-89abcdef.tmp"]
    kept = [
        tmp_path / ".other.py.trtcodemod-0123abcd.tmp",  # no such file is processed
        tmp_path / ".m.py.trtcodemod-0123abc.tmp",  # 7 hex digits: not our pattern
        tmp_path / ".m.py.trtcodemod-0123ABCD.tmp",  # upper case: not ours
        tmp_path / "m.py.trtcodemod-0123abcd.tmp",  # no leading dot
        tmp_path / ".m.py.12345678.trtcodemod",  # an older naming scheme, never ours to judge
    ]
    for path in stale + kept:
        path.write_bytes(b"half a file")
        os.utime(path, (old, old))
    fresh = tmp_path / ".m.py.trtcodemod-fedcba98.tmp"  # a concurrent run's, newer than ours
    fresh.write_bytes(b"in the making")
    future = time.time() + 60
    os.utime(fresh, (future, future))
    result = run("apply", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "removed 2 temporary files left by an interrupted run" in result.output
    assert not any(p.exists() for p in stale)
    assert all(p.exists() for p in kept) and fresh.exists()
    # check, --dry-run and --check promise to write nothing: they remove nothing either.
    stale[0].write_bytes(b"x")
    os.utime(stale[0], (old, old))
    for args in (("check",), ("apply", "--dry-run"), ("apply", "--check")):
        run(*args, str(tmp_path))
        assert stale[0].exists()
    assert remove_stale_temps([tmp_path / "m.py"], older_than=time.time()) == [stale[0]]


# --- signals -----------------------------------------------------------------------------------


def _tree_of(root: Path, count: int) -> list[Path]:
    root.mkdir()
    paths = []
    for number in range(count):
        path = root / f"m{number:02d}.py"
        path.write_text(GOOD)
        paths.append(path)
    return paths


@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_while_writing_finishes_the_file_and_stops(tmp_path: Path, monkeypatch, signum, code) -> None:
    """The signal arrives in the middle of the second write: that file is finished, the rest untouched."""
    import trtcodemod.files as files

    paths = _tree_of(tmp_path / "src", 5)
    original = files.write_atomic
    calls = []

    def write_and_get_signalled(path, data):
        calls.append(path)
        if len(calls) == 2:
            os.kill(os.getpid(), signum)  # the handler runs here, mid-write
        original(path, data)

    monkeypatch.setattr(runner, "write_atomic", write_and_get_signalled)
    result = run("apply", str(tmp_path / "src"))
    assert result.exit_code == code, result.output
    name = signal.Signals(signum).name
    assert f"trtcodemod: interrupted by {name}: wrote 2 of 5 changed files; the other files are untouched." \
        in result.output
    assert [p.read_text() for p in paths] == [GOOD_FIXED] * 2 + [GOOD] * 3
    assert not our_temps(tmp_path)
    assert signal.getsignal(signal.SIGINT) is not None  # handlers restored (no exception on exit)


def test_a_signal_while_processing_writes_nothing(tmp_path: Path, monkeypatch) -> None:
    paths = _tree_of(tmp_path / "src", 4)
    original = runner.process
    seen = []

    def interrupted(file, *args):
        seen.append(file)
        if len(seen) == 2:
            os.kill(os.getpid(), signal.SIGINT)
        return original(file, *args)

    monkeypatch.setattr(runner, "process", interrupted)
    previous = signal.getsignal(signal.SIGINT)
    result = run("apply", str(tmp_path / "src"))
    assert result.exit_code == 130
    assert "trtcodemod: interrupted by SIGINT: no file was written." in result.output
    assert all(p.read_text() == GOOD for p in paths)
    assert signal.getsignal(signal.SIGINT) is previous
    check = run("check", str(tmp_path / "src"))  # check: same contract, nothing to write
    assert check.exit_code == 1  # (the patched process signals only once)


KILL_FILES = 80
KILL_SEED = 20261123


def _kill_template(root: Path) -> dict[str, tuple[bytes, bytes]]:
    """Files of different sizes in a few folders; name -> (old bytes, bytes after apply)."""
    rng = random.Random(KILL_SEED)
    expected = {}
    for number in range(KILL_FILES):
        folder = root / f"pkg{number % 4}"
        folder.mkdir(parents=True, exist_ok=True)
        body = "".join(f"    n{k} = len(x) + {k}\n" for k in range(rng.randint(1, 6)))
        old = f"import torch\n\n\ndef head_{number}(x: torch.Tensor):\n{body}    return x\n"
        name = f"pkg{number % 4}/m{number:03d}.py"
        (root / name).write_text(old)
        expected[name] = (old.encode(), old.replace("len(x)", "x.shape[0]").encode())
    return expected


def _first_write(root: Path, proc: subprocess.Popen, limit: float = 60.0) -> None:
    """Wait until the first file is replaced (a folder's mtime moves), or the run ends."""
    folders = sorted(p for p in root.iterdir() if p.is_dir())
    start = {f: f.stat().st_mtime_ns for f in folders}
    deadline = time.monotonic() + limit
    while proc.poll() is None and time.monotonic() < deadline:
        if any(f.stat().st_mtime_ns != start[f] for f in folders):
            return
        time.sleep(0.001)


def test_killed_apply_leaves_every_file_old_or_new(tmp_path: Path) -> None:
    """SIGKILL, SIGTERM and SIGINT at several points, seeded: no torn file, no temp file survives."""
    template = tmp_path / "template"
    expected = _kill_template(template)
    rng = random.Random(KILL_SEED)
    mixed = 0
    command = [sys.executable, "-m", "trtcodemod", "apply"]
    for trial, signum in enumerate([signal.SIGKILL, signal.SIGTERM, signal.SIGINT] * 3):
        tree = tmp_path / f"trial{trial}"
        shutil.copytree(template, tree)
        jobs = ["-j", "2"] if trial % 4 == 1 else []
        proc = subprocess.Popen([*command, *jobs, str(tree)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, cwd=tmp_path)
        point = trial // 3  # 0: startup or processing, 1: at the first write, 2: a little later
        if point == 0:
            time.sleep(rng.uniform(0.2, 1.5))
        else:
            _first_write(tree, proc)
            if point == 2:
                time.sleep(rng.uniform(0.0, 0.05))
        if proc.poll() is None:
            proc.send_signal(signum)
        _, err = proc.communicate(timeout=120)
        new = 0
        for name, (old_bytes, new_bytes) in expected.items():
            data = (tree / name).read_bytes()
            assert data in (old_bytes, new_bytes), f"trial {trial}: {name} is torn"
            new += data == new_bytes
        mixed += 0 < new < len(expected)
        what = f"trial {trial} ({signal.Signals(signum).name}, point {point}): rc {proc.returncode}, {err[-500:]}"
        if signum == signal.SIGKILL:
            # Nothing could clean up; the next run must.
            left = len(our_temps(tree))
            again = subprocess.run([*command, str(tree)], capture_output=True, text=True, timeout=120)
            assert again.returncode == 0, again.stderr
            if left:
                assert f"removed {left} temporary file" in again.stderr, what
            assert all((tree / n).read_bytes() == v for n, (_, v) in expected.items()), what
        else:
            # Ours (apply's guard, or the entry point's while the command line is parsed); or
            # Python's default while the interpreter still imports the CLI; or it had finished.
            handled, default = 128 + signum, -signum
            assert proc.returncode in (handled, default, 0), what
            if proc.returncode == handled:
                name = signal.Signals(signum).name
                if "no file was written" in err:
                    assert new == 0, what
                elif err.strip().endswith(f"trtcodemod: interrupted by {name}."):
                    assert new == 0, what  # before apply began: the entry point's line
                else:
                    assert f"wrote {new} of {len(expected)} changed files; the other files are untouched." \
                        in err, what
            assert "Traceback" not in err or proc.returncode == default, what
            if proc.returncode != handled:
                assert new in (0, len(expected)), what
        assert not our_temps(tree), what
        shutil.rmtree(tree)
    assert mixed >= 1, "no kill landed while files were being written"


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_the_command_line_is_parsed_is_said_and_coded(monkeypatch, capsys, signum) -> None:
    """Before any command's own guard: typer alone turned Ctrl-C into a silent 130 (CI saw that)."""
    import trtcodemod.cli as cli

    def parsing() -> None:
        os.kill(os.getpid(), signum)
        time.sleep(5)  # the handler raises long before this ends
        raise AssertionError("the signal was not raised")

    monkeypatch.setattr(cli, "app", parsing)
    previous = signal.getsignal(signum)
    with pytest.raises(SystemExit) as stopped:
        cli.main()
    assert stopped.value.code == 128 + signum
    assert capsys.readouterr().err == f"trtcodemod: interrupted by {signal.Signals(signum).name}.\n"
    assert signal.getsignal(signum) is previous


class _SignalInSetName:
    """A descriptor whose ``__set_name__`` receives a signal: as when Ctrl-C lands while a module
    imported on first use creates a dataclass (CI: rc 1 and a RuntimeError traceback)."""

    def __init__(self, signum: int) -> None:
        self.signum = signum

    def __set_name__(self, owner: type, name: str) -> None:
        os.kill(os.getpid(), self.signum)
        time.sleep(5)  # the handler raises long before this ends
        raise AssertionError("the signal was not raised")


def _class_created_under_a_signal(signum: int) -> None:
    type("Late", (), {"field": _SignalInSetName(signum)})


@pytest.mark.parametrize("where", ["entry point", "apply"])
def test_a_signal_while_a_class_is_created_is_an_interruption(monkeypatch, capsys, tmp_path: Path, where) -> None:
    """Python 3.11 wraps what ``__set_name__`` raises in a RuntimeError; the guards see the signal under it."""
    import trtcodemod.cli as cli

    signum = signal.SIGINT
    if where == "entry point":
        monkeypatch.setattr(cli, "app", lambda: _class_created_under_a_signal(signum))
        said = "trtcodemod: interrupted by SIGINT.\n"
    else:
        (tmp_path / "m.py").write_text("import torch\n\n\ndef f(x):\n    return len(x)\n")
        monkeypatch.setattr(cli, "_load_facts", lambda *_: _class_created_under_a_signal(signum))
        monkeypatch.setattr(sys, "argv", ["trtcodemod", "apply", str(tmp_path)])
        said = "trtcodemod: interrupted by SIGINT: no file was written.\n"
    with pytest.raises(SystemExit) as stopped:
        cli.main()
    assert stopped.value.code == 130
    assert capsys.readouterr().err == said
    assert where == "entry point" or "len(x)" in (tmp_path / "m.py").read_text()


def test_an_error_not_caused_by_a_signal_is_not_called_one() -> None:
    from trtcodemod.interrupt import Interrupted, interruption

    signal_ = Interrupted(signal.SIGTERM)
    try:
        try:
            raise signal_
        except Interrupted as inner:
            raise RuntimeError("Error calling __set_name__") from inner
    except RuntimeError as wrapped:
        assert interruption(wrapped) is signal_
    try:
        try:
            raise signal_
        except Interrupted:
            raise ValueError("raised while handling it, not caused by it")
    except ValueError as unrelated:
        assert interruption(unrelated) is None


def test_a_signal_whose_exception_python_ignores_is_sent_again(capsys) -> None:
    """A signal landing in a callback Python runs (importlib's module-lock weakref callback, under
    load: apply ran to its end with rc 0 and a traceback) raises where Python ignores the exception;
    the guard sends it again, so it stops the code that runs next, and prints no traceback."""
    import weakref

    from trtcodemod.interrupt import Interrupted, SignalGuard

    class Owner:
        pass

    def callback(_ref: object) -> None:
        os.kill(os.getpid(), signal.SIGINT)

    hook = sys.unraisablehook
    reached = False
    with pytest.raises(Interrupted) as stopped:
        with SignalGuard():
            owner = Owner()
            ref = weakref.ref(owner, callback)
            del owner  # the callback runs here, and Python ignores what the handler raises in it
            time.sleep(2)  # the signal comes again a moment later, and raises here
            reached = True
    assert stopped.value.signum == signal.SIGINT and not reached and ref() is None
    assert "Traceback" not in capsys.readouterr().err
    assert sys.unraisablehook is hook  # restored


@pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX fork")
def test_a_forked_worker_does_not_run_the_parents_handler() -> None:
    """Workers forked while the guard is active: Ctrl-C is the parent's; SIGTERM kills them at once.

    (Raising the parent's exception inside a worker left pool locks held and hung the batch.)
    """
    from trtcodemod.interrupt import SignalGuard

    with SignalGuard():
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            try:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.05)
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(5)
            finally:
                os._exit(3)
        _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM, status


def _children(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads /proc to see the workers start")
def test_workers_ignore_ctrl_c_of_the_process_group(tmp_path: Path) -> None:
    """Ctrl-C reaches every process of the group: the parent alone decides, says so, and stops the workers."""
    # Enough files that the signal lands mid-batch on a fast, idle machine too (300 took 0.3 s).
    _tree_of(tmp_path / "src", 3000)
    proc = subprocess.Popen([sys.executable, "-m", "trtcodemod", "check", "-j", "2", str(tmp_path / "src")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 60
    while len(_children(proc.pid)) < 2 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    workers = _children(proc.pid)
    time.sleep(0.2)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    if "Checked 3000 files" in err:  # it finished before the signal (which may then meet its exit)
        assert proc.returncode in (1, 130, -signal.SIGINT), err
    else:
        assert proc.returncode == 130, err
        # Nothing else: a worker that took the signal as its own would print its traceback here.
        assert err == "trtcodemod: interrupted by SIGINT: nothing was written.\n", err
    for worker in workers:  # no orphan keeps running
        deadline = time.monotonic() + 10
        while not _gone(worker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _gone(worker), f"worker {worker} still running"


def _gone(pid: str) -> bool:
    """Exited (a zombie not yet reaped by its parent counts as exited)."""
    try:
        return "State:\tZ" in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True


# --- parallel speed: same report, every file once, largest first -------------------------------


def test_jobs_2_gives_the_same_report_in_input_order_and_reports_progress(tmp_path: Path) -> None:
    from trtcodemod.config import Settings
    from trtcodemod.files import discover

    src = tmp_path / "src"
    src.mkdir()
    rng = random.Random(7)
    for number in range(24):
        padding = "".join(f"\ndef f{k}(y: torch.Tensor):\n    return len(y) + {k}\n" for k in range(rng.randint(0, 40)))
        (src / f"m{number:02d}.py").write_text(GOOD + padding)
    (src / "bad.py").write_text("def f(:\n")
    serial = run("check", "--no-cache", "--quiet", str(src))
    parallel = run("check", "--no-cache", "--quiet", "-j", "2", str(src))
    assert parallel.exit_code == serial.exit_code == 2
    assert parallel.stdout == serial.stdout and parallel.stdout.count(": TRT704 ") > 24
    files, _ = discover([str(src)])
    seen: list[str] = []
    outcomes = runner.run_batch(files, Settings(root=tmp_path), fix=False, unsafe=False, jobs=2,
                                progress=lambda outcome: seen.append(outcome.file.display))
    assert [o.file for o in outcomes] == files  # input order, whatever order they finished in
    assert sorted(seen) == sorted(f.display for f in files)  # each file reported once, in this process
    assert all(o.original is None for o in outcomes)  # a check sends no copy of the file back
