"""Throughput of `trtcodemod check` against a LibCST parse-only pass, on a real corpus.

Corpus: every .py file of the timm and torchvision wheels (downloaded with pip, no
install). Baseline: `libcst.parse_module` on the same bytes, one process — the floor
for any LibCST-based tool. Also runs `fix_source(unsafe=True)` on every file and checks
that each rewritten file still compiles (robustness on real code, DESIGN §5).

    python benchmarks/check_throughput.py [--corpus DIR] [--repeat N]

Prints one table; the numbers go into the issue notes, never into a test.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import libcst as cst

from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.errors import InputError

HERE = Path(__file__).parent
DEFAULT_CORPUS = HERE / ".corpus"
PACKAGES = ("timm", "torchvision")


def fetch_corpus(corpus: Path) -> list[Path]:
    """Download the wheels once and unpack their .py files under ``corpus``."""
    if not any(corpus.rglob("*.py")):
        corpus.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                            "-d", tmp, *PACKAGES], check=True)
            for wheel in Path(tmp).glob("*.whl"):
                with zipfile.ZipFile(wheel) as archive:
                    for name in archive.namelist():
                        if name.endswith(".py"):
                            archive.extract(name, corpus / wheel.name.split("-")[0])
    return sorted(corpus.rglob("*.py"))


def timed(label: str, files: list[tuple[Path, bytes]], work, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for path, data in files:
            work(path, data)
        times.append(time.perf_counter() - start)
    best = min(times)
    print(f"{label:<38} {best:8.2f} s   (median {statistics.median(times):.2f} s over {repeat})")
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    paths = fetch_corpus(args.corpus)
    files = [(p, p.read_bytes()) for p in paths]
    lines = sum(data.count(b"\n") for _, data in files)
    print(f"corpus: {len(files)} files, {lines} lines ({', '.join(PACKAGES)} wheels)\n")

    parse_time = timed("baseline: libcst.parse_module", files, lambda p, d: cst.parse_module(d), args.repeat)
    options = Options(select=("ALL",))
    found: list[int] = []

    def check(path: Path, data: bytes) -> None:
        try:
            found.append(len(check_source(data, str(path), options)))
        except InputError:
            found.append(0)

    check_time = timed("trtcodemod check (all rules)", files, check, args.repeat)
    print(f"\nratio check / parse-only: {check_time / parse_time:.2f}x")
    print(f"findings: {sum(found) // args.repeat}")

    # Robustness: apply every fix (unsafe too); every rewritten file must compile.
    changed = broken = errors = 0
    start = time.perf_counter()
    for path, data in files:
        try:
            result = fix_source(data, str(path), Options(unsafe=True))
        except InputError:
            errors += 1
            continue
        if result.changed:
            changed += 1
            try:
                compile(result.source, str(path), "exec")
            except SyntaxError as exc:
                broken += 1
                print(f"  does not compile after rewrite: {path}:{exc.lineno}: {exc.msg}")
    print(f"apply --unsafe: {changed} files rewritten, {broken} do not compile, {errors} unreadable "
          f"({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
