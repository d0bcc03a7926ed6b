"""The content cache: used when nothing changed, never stale when something did."""

from __future__ import annotations

import json
import os
import time
import zlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from trtcodemod import cache as cache_module
from trtcodemod.cache import CACHE_DIR_NAME, Cache, default_location
from trtcodemod.cli import app
from trtcodemod.config import Settings
from trtcodemod.files import discover
from trtcodemod.runner import run_batch

# TRT401 (unsafe fix), TRT704 (safe fix: len(x) -> x.shape[0]).
MODEL = "import torch\n\n\ndef head(x: torch.Tensor):\n    return x.squeeze(1), len(x)\n"
CLEAN = "import torch\n\n\ndef head(x: torch.Tensor):\n    return x + 1\n"


@pytest.fixture(autouse=True)
def _no_cache_env(monkeypatch) -> None:
    monkeypatch.delenv(cache_module.ENV_VAR, raising=False)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project (pyproject.toml at its root) with a few model files."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n\n[tool.trtcodemod]\nselect = ['ALL', 'TRT401']\n")
    src = tmp_path / "src"
    src.mkdir()
    for number in range(3):
        (src / f"m{number}.py").write_text(MODEL + f"# {number}\n")  # distinct bytes: one entry each
    (src / "clean.py").write_text(CLEAN)
    (src / "bad.py").write_text("def f(:\n")
    return tmp_path


def run(*args: str):
    return CliRunner().invoke(app, list(args))


def entries(root: Path) -> list[Path]:
    return sorted(p for p in (root / CACHE_DIR_NAME).rglob("*") if p.is_file() and p.parent.name != CACHE_DIR_NAME)


def cached_count(result) -> int:
    """How many files the run's summary says came from the cache (0 when it says nothing)."""
    line = next(line for line in result.stderr.splitlines() if line.startswith(("Checked", "Scanned")))
    if "from the cache" not in line:
        return 0
    return int(line.split("(")[1].split()[0])


def test_a_rerun_reads_every_file_from_the_cache_with_the_same_report(project: Path) -> None:
    cold = run("check", str(project / "src"))
    assert cold.exit_code == 2 and cached_count(cold) == 0
    assert len(entries(project)) == 5  # 4 findings/clean outcomes + the syntax error
    warm = run("check", str(project / "src"))
    assert warm.stdout == cold.stdout and warm.exit_code == cold.exit_code
    assert cached_count(warm) == 5
    # The folder is marked so git and backup tools leave it alone.
    assert (project / CACHE_DIR_NAME / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (project / CACHE_DIR_NAME / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")


def test_the_cached_value_is_what_gets_reported(project: Path) -> None:
    """Proof that the entry is really read: rewrite one (keeping its key) and see it reported."""
    run("check", str(project / "src" / "m0.py"))
    (entry,) = entries(project)
    data = json.loads(zlib.decompress(entry.read_bytes()))
    data["outcome"]["findings"][0]["message"] = "planted in the cache"
    entry.write_bytes(zlib.compress(json.dumps(data).encode()))
    assert "planted in the cache" in run("check", str(project / "src" / "m0.py")).stdout
    # An entry for another key in this place is not believed.
    data["key"] = "0" * 64
    entry.write_bytes(zlib.compress(json.dumps(data).encode()))
    assert "planted in the cache" not in run("check", str(project / "src" / "m0.py")).stdout


@pytest.mark.parametrize("garbage", [b"", b"not zlib", zlib.compress(b"{not json"), zlib.compress(b'{"key": 1}')])
def test_corrupted_entries_are_ignored_and_rewritten(project: Path, garbage: bytes) -> None:
    first = run("check", str(project / "src"))
    for entry in entries(project):
        entry.write_bytes(garbage)
    again = run("check", str(project / "src"))
    assert again.stdout == first.stdout and cached_count(again) == 0
    assert cached_count(run("check", str(project / "src"))) == 5  # rewritten


def _report(*args: str) -> tuple[int, str]:
    result = run(*args)
    return result.exit_code, result.stdout


@pytest.mark.parametrize(
    "change",
    ["byte", "select", "ignore", "target", "config-ignore", "per-file-ignores", "scope", "edits"],
)
def test_nothing_stale_when_an_input_of_the_result_changes(project: Path, change: str) -> None:
    """Warm the cache, change one input of the result, and compare with a run without the cache."""
    src = project / "src"
    args = ["check", str(src)]
    run(*args)
    if change == "byte":
        (src / "m1.py").write_text(MODEL.replace("len(x)", "len(x) "))
        (src / "clean.py").write_text(MODEL)
    elif change == "select":
        args += ["--select", "TRT704"]
    elif change == "ignore":
        args += ["--ignore", "TRT401"]
    elif change == "target":
        args += ["--target", "10.x", "--select", "ALL"]
    elif change == "config-ignore":
        (project / "pyproject.toml").write_text('[tool.trtcodemod]\nignore = ["TRT704"]\n')
    elif change == "per-file-ignores":
        (project / "pyproject.toml").write_text('[tool.trtcodemod.per-file-ignores]\n"src/m2.py" = ["TRT4"]\n')
    elif change == "scope":
        (src / "test_model.py").write_text(MODEL)  # not model code by default; --scope all looks at it
        run(*args)
        args += ["--scope", "all"]
    elif change == "edits":
        args += ["--format", "json"]
    with_cache = _report(*args)
    without = _report(*args, "--no-cache")
    assert with_cache == without
    if change == "byte":
        assert ":5:26: TRT704" in with_cache[1] and f"{src / 'clean.py'}:5:12: TRT401" in with_cache[1]
    if change == "edits":
        assert all("edits" in f for f in json.loads(with_cache[1])["findings"])


def test_nothing_stale_when_a_star_imported_module_changes(project: Path) -> None:
    """What ``from common import *`` binds is read from ``common.py``: its bytes are part of the key."""
    src = project / "src"
    (src / "common.py").write_text("import os\n")
    (src / "head.py").write_text("from common import *\n\n\ndef head(x):\n    return torch.atan2(x, x)\n")
    args = ["check", "--select", "TRT301", str(src / "head.py")]
    assert "TRT301" not in run(*args).stdout
    (src / "common.py").write_text("import torch\n")
    with_cache = _report(*args)
    assert with_cache == _report(*args, "--no-cache")
    assert "head.py:5:12: TRT301" in with_cache[1]


def test_nothing_stale_when_a_module_a_rule_read_changes(project: Path) -> None:
    """TRT709 reads ``amp_to_db`` from ``utils.py`` to see that it takes only the spectrum's ``abs``;
    after ``utils.py`` changes, the cached rewrite of ``gate.py`` is not reused."""
    src = project / "src"
    (src / "utils.py").write_text("import torch\n\n\ndef amp_to_db(x, eps=1e-10):\n"
                                  "    return 20 * torch.log10(x.abs() + eps)\n")
    (src / "gate.py").write_text(
        "import torch\nfrom torch import nn\n\nfrom utils import amp_to_db\n\n\nclass Gate(nn.Module):\n"
        "    def forward(self, x):\n"
        "        X = torch.stft(x, n_fft=64, hop_length=16, return_complex=True, window=torch.hann_window(64))\n"
        "        mask = torch.sigmoid(amp_to_db(X))\n"
        "        return torch.istft(X * mask, n_fft=64, hop_length=16, window=torch.hann_window(64))\n")
    args = ["apply", "--unsafe", "--dry-run", "--select", "TRT709", str(src / "gate.py")]
    assert "amp_to_db(_trt_dft_abs_argument(X))" in run(*args).stdout
    (src / "utils.py").write_text("import torch\n\n\ndef amp_to_db(x, eps=1e-10):\n"
                                  "    return 20 * torch.log10(x.real + eps)\n")
    with_cache = run(*args)
    assert cached_count(with_cache) == 0
    assert with_cache.stdout == run(*args, "--no-cache").stdout
    assert "_trt_dft_abs_argument" not in with_cache.stdout
    assert cached_count(run(*args)) == 1  # (and unchanged again, it is a hit)


def test_a_changed_file_is_a_miss_and_the_others_hits(project: Path) -> None:
    src = project / "src"
    run("check", str(src))
    (src / "m1.py").write_text(CLEAN + "# changed\n")
    result = run("check", str(src))
    assert cached_count(result) == 4 and f"{src / 'm1.py'}:" not in result.stdout


def test_apply_uses_and_respects_the_cache(project: Path) -> None:
    src = project / "src"
    diff = run("apply", "--dry-run", str(src))
    again = run("apply", "--dry-run", str(src))
    assert again.stdout == diff.stdout and "x.shape[0]" in diff.stdout and cached_count(again) == 5
    unsafe = run("apply", "--dry-run", "--unsafe", str(src))  # another key: unsafe fixes too
    assert "[:, 0]" in unsafe.stdout and "[:, 0]" not in diff.stdout
    written = run("apply", str(src))
    fixed = (MODEL + "# 0\n").replace("len(x)", "x.shape[0]")
    assert written.exit_code == 2 and (src / "m0.py").read_text() == fixed
    # The rewritten files are new bytes: misses; then nothing is left to fix.
    after = run("apply", str(src))
    assert "Fixed 0 findings in 0 files" in after.stderr and (src / "m0.py").read_text() == fixed
    assert cached_count(run("apply", str(src))) == 5


def test_no_cache_flag_and_config_neither_read_nor_write(project: Path) -> None:
    src = project / "src"
    run("check", "--no-cache", str(src))
    assert not (project / CACHE_DIR_NAME).exists()
    (project / "pyproject.toml").write_text("[tool.trtcodemod]\ncache = false\n")
    run("check", str(src))
    assert not (project / CACHE_DIR_NAME).exists()
    result = run("check", "--cache", str(src))  # the flag wins over the configuration
    assert len(entries(project)) == 5 and cached_count(result) == 0
    assert cached_count(run("check", "--no-cache", str(src))) == 0
    (project / "pyproject.toml").write_text("[tool.trtcodemod]\ncache = 3\n")
    assert "'cache' must be true or false" in run("check", str(src)).output


def test_where_the_cache_lives(project: Path, tmp_path_factory, monkeypatch) -> None:
    # The project root: the folder of the nearest pyproject.toml, setup.py, setup.cfg or .git.
    assert default_location(str(project / "src" / "m0.py")) == project / CACHE_DIR_NAME
    loose = tmp_path_factory.mktemp("loose")
    (loose / "m.py").write_text(MODEL)
    assert default_location(str(loose)) is None  # outside a project: nothing cached
    run("check", str(loose))
    assert not any(p.name == CACHE_DIR_NAME for p in loose.rglob("*"))
    assert default_location("-") is None
    # The configuration's cache-dir (relative to it), then the environment variable.
    (project / "pyproject.toml").write_text('[tool.trtcodemod]\ncache-dir = "build/cache"\n')
    run("check", str(project / "src"))
    assert any((project / "build" / "cache").rglob("v1/*/*"))
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    monkeypatch.setenv(cache_module.ENV_VAR, str(elsewhere))
    run("check", str(loose))
    assert len([p for p in elsewhere.rglob("v1/*/*")]) == 1


def test_parallel_workers_fill_the_cache_and_agree(project: Path) -> None:
    src = project / "src"
    for number in range(3, 12):
        (src / f"m{number}.py").write_text(MODEL.replace("len(x)", f"len(x) + {number}"))
    serial = run("check", "--no-cache", str(src))
    parallel = run("check", "-j", "2", str(src))
    assert parallel.stdout == serial.stdout and len(entries(project)) == 14
    warm = run("check", "-j", "2", str(src))
    assert warm.stdout == serial.stdout and cached_count(warm) == 14
    assert not [p for p in (project / CACHE_DIR_NAME).rglob("*.tmp")]


def test_pruning_removes_the_least_recently_used_entries(tmp_path: Path) -> None:
    cache = Cache(tmp_path / "c", "base")
    settings = Settings(root=tmp_path)
    for number in range(8):
        (tmp_path / f"f{number}.py").write_text(MODEL.replace("len(x)", f"len(x) + {number}"))
    files, _ = discover([str(tmp_path)])
    run_batch(files, settings, fix=False, unsafe=False, cache=cache)
    stored = sorted((tmp_path / "c").rglob("v1/*/*"))
    assert len(stored) == 8
    now = time.time()
    for age, entry in enumerate(stored):
        os.utime(entry, (now - 1000 * (age + 1), now - 1000 * (age + 1)))
    size = sum(p.stat().st_size for p in stored)
    removed = cache.prune(max_bytes=size - 1)
    left = sorted((tmp_path / "c").rglob("v1/*/*"))
    assert removed >= 1 and len(left) == 8 - removed
    assert set(left) == set(stored[:len(left)])  # the most recently used stay
    assert sum(p.stat().st_size for p in left) <= (size - 1) * 3 // 4


def test_a_warm_run_reads_every_file_from_the_cache(project: Path) -> None:
    """Every file a hit, the same findings (no timing here: benchmarks/check_throughput.py measures
    what a warm run saves)."""
    src = project / "src"
    body = MODEL + "".join(f"\n\ndef f{n}(x: torch.Tensor):\n    return x.squeeze(1) + len(x) * {n}\n" for n in range(150))
    for number in range(30):
        (src / f"big{number}.py").write_text(body + f"\nVALUE = {number}\n")
    files, _ = discover([str(src)])
    settings = Settings(root=project)
    cache = Cache.for_run(project / CACHE_DIR_NAME, settings, fix=False, unsafe=False)
    cold = run_batch(files, settings, fix=False, unsafe=False, cache=cache)
    warm = run_batch(files, settings, fix=False, unsafe=False, cache=cache)
    assert all(o.cached for o in warm) and not any(o.cached for o in cold)
    assert [[f.as_dict() for f in o.findings] for o in warm] == [[f.as_dict() for f in o.findings] for o in cold]
