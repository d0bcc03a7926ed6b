"""`check` and `apply --unsafe --select ALL` on real model-zoo code: a seeded sample of the
timm and torchvision wheel sources.

The corpus is ``benchmarks/.corpus`` when present (``benchmarks/check_throughput.py`` makes
it), else the wheels are downloaded with ``pip download`` into
``$TRTCODEMOD_TEST_CORPUS`` (default ``~/.cache/trtcodemod/test-corpus``), never into the
repository. Without network and without either folder the test is skipped, saying so.

Asserts: no error caused by the tool (every sampled file is valid Python, so any error is
ours), every rewritten file compiles, files without findings are byte-identical, and a
second apply (in parallel) changes nothing.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from trtcodemod.cli import app
from support import REPO

PACKAGES = ("timm", "torchvision")
SAMPLE = 40
SEED = 20261123


def _from_wheels(folder: Path) -> list[Path]:
    marker = folder / ".complete"
    if not marker.exists():
        wheels = folder / "wheels"
        wheels.mkdir(parents=True, exist_ok=True)
        try:
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                            "-d", str(wheels), *PACKAGES], check=True, capture_output=True, text=True, timeout=300)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
            detail = getattr(exc, "stderr", None) or str(exc)
            pytest.skip(f"the timm/torchvision wheels cannot be downloaded here ({str(detail).strip()[-300:]}), "
                        f"and there is no benchmarks/.corpus")
        for wheel in sorted(wheels.glob("*.whl")):
            with zipfile.ZipFile(wheel) as archive:
                for name in archive.namelist():
                    if name.endswith(".py"):
                        archive.extract(name, folder / "src" / wheel.name.split("-")[0])
        marker.write_text("ok\n")
    return sorted((folder / "src").rglob("*.py"))


def corpus_files() -> tuple[Path, list[Path]]:
    local = REPO / "benchmarks" / ".corpus"
    files = sorted(local.rglob("*.py")) if local.is_dir() else []
    if files:
        return local, files
    cache_home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    folder = Path(os.environ.get("TRTCODEMOD_TEST_CORPUS") or cache_home / "trtcodemod" / "test-corpus")
    return folder / "src", _from_wheels(folder)


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> dict[str, bytes]:
    """The sample copied into a project of its own: relative path -> original bytes."""
    root, files = corpus_files()
    assert len(files) > SAMPLE
    chosen = random.Random(SEED).sample(files, SAMPLE)
    target = tmp_path_factory.mktemp("zoo")
    (target / "pyproject.toml").write_text("[project]\nname = 'zoo'\n")
    originals = {}
    for path in chosen:
        relative = path.relative_to(root)
        copy = target / "src" / relative
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, copy)
        originals[str(relative)] = copy.read_bytes()
    originals["__root__"] = str(target).encode()
    return originals


def _run(*args: str):
    return CliRunner().invoke(app, list(args))


def test_check_and_apply_on_a_sample_of_the_model_zoo(sample: dict[str, bytes]) -> None:
    root = Path(sample["__root__"].decode()) / "src"
    originals = {name: data for name, data in sample.items() if name != "__root__"}

    check = _run("check", "--select", "ALL", "--format", "json", "--no-cache", str(root))
    assert check.exit_code in (0, 1), check.output
    report = json.loads(check.stdout)
    assert report["errors"] == []  # wheel sources are valid Python: any error would be the tool's
    with_findings = {str(Path(f["path"]).relative_to(root)) for f in report["findings"]}
    assert with_findings, "a sample of model code without a single finding: the rules found nothing"

    applied = _run("apply", "--unsafe", "--select", "ALL", "--no-cache", "--quiet", str(root))
    assert applied.exit_code == 0, applied.output
    assert "internal error" not in applied.output and "Traceback" not in applied.output
    changed = 0
    after = {}
    for name, before in originals.items():
        data = (root / name).read_bytes()
        after[name] = data
        if data != before:
            changed += 1
            assert name in with_findings, f"{name} had no finding but was rewritten"
            compile(data, name, "exec", dont_inherit=True)
    assert changed > 0

    again = _run("apply", "--unsafe", "--select", "ALL", "--no-cache", "--quiet", "-j", "2", str(root))
    assert again.exit_code == 0, again.output
    assert {name: (root / name).read_bytes() for name in originals} == after, "a second apply changed files"
