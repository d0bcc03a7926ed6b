"""Throughput, parallel speed-up, cache and peak memory of `trtcodemod check`, on a real corpus.

Corpus: every .py file of the timm and torchvision wheels (downloaded with pip, no
install). Baseline: `libcst.parse_module` on the same bytes, one process: the floor for any
LibCST-based tool. Then the command line itself, each run in a fresh child process (start-up
included), with its peak memory (`ru_maxrss` of the child and of its largest worker):

- `check --select ALL --no-cache --jobs 1` and `--jobs 2` (same output required);
  the parse, `check_source` and `--jobs 1` are timed in turn, round after round, so that
  a machine whose speed drifts during the run weighs on the baseline and on `check` alike;
- `check --select ALL` with an empty cache (cold: it also writes the cache), then again
  (warm: every file from the cache);
- a pure-Python CPU loop in 1 and 2 processes: the speed-up the machine itself gives at
  that moment (when it is far below 2, other jobs are using the cores, and the `--jobs 2`
  row means nothing).

Last, `fix_source(unsafe=True)` on every file: each rewritten file must still compile
(robustness on real code, DESIGN §5).

    python benchmarks/check_throughput.py [--corpus DIR] [--repeat N] [--quick]

Prints the README's performance table (markdown, the machine named) at the end; the
numbers go into the README, never into a test.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from importlib.metadata import version as _version
from multiprocessing import get_context
from pathlib import Path

import libcst as cst

from trtcodemod import __version__
from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.errors import InputError

HERE = Path(__file__).parent
DEFAULT_CORPUS = HERE / ".corpus"
PACKAGES = ("timm", "torchvision")

#: Runs the command line in this child and reports its peak memory (KiB) and its workers',
#: and the CPU time (user + system seconds) of the child and its workers together.
_CHILD = """
import atexit, json, resource, sys
def _report():
    self_, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = self_.ru_utime + self_.ru_stime + kids.ru_utime + kids.ru_stime
    sys.stderr.write("\\nRUSAGE " + json.dumps([self_.ru_maxrss, kids.ru_maxrss, cpu]) + "\\n")
atexit.register(_report)
sys.argv = ["trtcodemod", *sys.argv[1:]]
from trtcodemod.cli import main
main()
"""


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


class Pass:
    """Wall times of one in-process pass over the corpus, one sample per call of :meth:`run`."""

    def __init__(self, label: str, files: list[tuple[Path, bytes]], work) -> None:
        self.label, self.files, self.work = label, files, work
        self.times: list[float] = []
        self.cpu_times: list[float] = []

    def run(self) -> None:
        start, cpu = time.perf_counter(), time.process_time()
        for path, data in self.files:
            self.work(path, data)
        self.times.append(time.perf_counter() - start)
        self.cpu_times.append(time.process_time() - cpu)

    @property
    def seconds(self) -> float:
        return min(self.times)

    @property
    def cpu_seconds(self) -> float:
        return min(self.cpu_times)

    def show(self) -> None:
        print(f"{self.label:<44} {self.seconds:8.2f} s   CPU {self.cpu_seconds:.2f} s   "
              f"(median {statistics.median(self.times):.2f} s over {len(self.times)})", flush=True)


class CliRun:
    """Wall times, peak memory (MiB) and the report of a `trtcodemod` command in a child process."""

    def __init__(self, label: str, args: list[str], env: dict[str, str] | None = None, before=None) -> None:
        self.label, self.args, self.env, self.before = label, args, env, before
        self.times: list[float] = []
        self.usage: list[list[float]] = []  # [peak KiB, largest worker's peak KiB, CPU seconds]
        self.stdout = ""

    def run(self) -> None:
        if self.before is not None:
            self.before()
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", _CHILD, *self.args], capture_output=True, text=True,
                              env={**os.environ, **(self.env or {})})
        self.times.append(time.perf_counter() - start)
        if done.returncode not in (0, 1, 2) or "RUSAGE" not in done.stderr:
            raise SystemExit(f"{self.label}: exit {done.returncode}\n{done.stderr[-2000:]}")
        self.usage.append(json.loads(done.stderr.rsplit("RUSAGE ", 1)[1].split("\n", 1)[0]))
        self.stdout = done.stdout

    @property
    def seconds(self) -> float:
        return min(self.times)

    @property
    def cpu_seconds(self) -> float:
        return min(p[2] for p in self.usage)

    @property
    def main_mib(self) -> float:
        return max(p[0] for p in self.usage) / 1024

    @property
    def worker_mib(self) -> float:
        return max(p[1] for p in self.usage) / 1024

    def show(self) -> None:
        workers = f", largest worker {self.worker_mib:.0f} MiB" if self.worker_mib > 1 else ""
        print(f"{self.label:<44} {self.seconds:8.2f} s   CPU {self.cpu_seconds:.2f} s   peak {self.main_mib:.0f} MiB{workers}"
              f"   (median {statistics.median(self.times):.2f} s over {len(self.times)})", flush=True)


def interleaved(runs: list, repeat: int) -> None:
    """Run each measurement once per round, round after round, so that a machine that
    slows down or speeds up mid-benchmark weighs on all of them alike."""
    for _ in range(repeat):
        for measured in runs:
            measured.run()
    for measured in runs:
        measured.show()


def show_difference(first: str, second: str) -> None:
    """The first lines where two reports differ (a difference is a bug, or code edited mid-run)."""
    import difflib

    lines = list(difflib.unified_diff(first.splitlines(), second.splitlines(), "first", "second", n=0, lineterm=""))
    print("  reports differ:\n" + "\n".join(f"    {line}" for line in lines[:12]), flush=True)


def _spin(n: int) -> int:
    total = 0
    for i in range(n):
        total += i * i % 7
    return total


def machine_speedup(seconds: float = 2.0) -> float:
    """How much faster 2 processes run a pure-Python CPU loop than 1, right now."""
    step = 200_000
    start = time.perf_counter()
    count = 0
    while time.perf_counter() - start < seconds / 2:
        _spin(step)
        count += 1
    chunks = [step] * max(4, count * 2)
    start = time.perf_counter()
    for n in chunks:
        _spin(n)
    serial = time.perf_counter() - start
    with get_context().Pool(2) as pool:
        start = time.perf_counter()
        pool.map(_spin, chunks, chunksize=max(1, len(chunks) // 8))
        parallel = time.perf_counter() - start
    return serial / parallel


def machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (f"{model}, {cores} cores available, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}, LibCST {_version('libcst')}, trtcodemod {__version__}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="one repetition, no apply pass")
    args = parser.parse_args()
    repeat = 1 if args.quick else args.repeat
    paths = fetch_corpus(args.corpus)
    files = [(p, p.read_bytes()) for p in paths]
    lines = sum(data.count(b"\n") for _, data in files)
    corpus = f"{len(files)} files, {lines} lines ({', '.join(PACKAGES)} wheels)"
    print(f"corpus: {corpus}\nmachine: {machine()}\n", flush=True)

    options = Options(select=("ALL",))
    found: list[int] = []

    def check(path: Path, data: bytes) -> None:
        try:
            found.append(len(check_source(data, str(path), options)))
        except InputError:
            found.append(0)

    target = str(args.corpus)
    base = ["check", "--select", "ALL", "--quiet", target]
    parse = Pass("baseline: libcst.parse_module (in process)", files, lambda p, d: cst.parse_module(d))
    rules = Pass("check_source, all rules (in process)", files, check)
    serial = CliRun("trtcodemod check --no-cache --jobs 1", [*base, "--no-cache", "--jobs", "1"])
    interleaved([parse, rules, serial], repeat)
    parse_time, check_time = parse.seconds, rules.seconds
    print(f"ratio check / parse-only: {check_time / parse_time:.2f}x in process, "
          f"{serial.seconds / parse_time:.2f}x the command (CPU time: {rules.cpu_seconds / parse.cpu_seconds:.2f}x, "
          f"{serial.cpu_seconds / parse.cpu_seconds:.2f}x); findings: {sum(found) // repeat}\n", flush=True)

    spin_before = machine_speedup()
    parallel = CliRun("trtcodemod check --no-cache --jobs 2", [*base, "--no-cache", "--jobs", "2"])
    interleaved([parallel], repeat)
    spin_after = machine_speedup()
    same = serial.stdout == parallel.stdout
    if not same:
        show_difference(serial.stdout, parallel.stdout)
    print(f"--jobs 2 speed-up: {serial.seconds / parallel.seconds:.2f}x, identical output: {same} "
          f"(the machine's own 2-process speed-up: {spin_before:.2f}x before, {spin_after:.2f}x after)\n", flush=True)

    with tempfile.TemporaryDirectory() as cache_dir:
        env = {"TRTCODEMOD_CACHE_DIR": cache_dir}

        def empty_cache() -> None:
            for item in Path(cache_dir).iterdir():
                shutil.rmtree(item) if item.is_dir() else item.unlink()

        cold = CliRun("trtcodemod check (cold cache: fills it)", base, env, before=empty_cache)
        warm = CliRun("trtcodemod check (warm cache: unchanged tree)", base, env)
        interleaved([cold, warm], repeat)
        cache_size = sum(p.stat().st_size for p in Path(cache_dir).rglob("*") if p.is_file())
    if not warm.stdout == cold.stdout == serial.stdout:
        show_difference(serial.stdout, cold.stdout)
        show_difference(cold.stdout, warm.stdout)
    print(f"warm / cold: {warm.seconds / cold.seconds:.1%} (cache {cache_size / 2**20:.1f} MiB), "
          f"identical output: {warm.stdout == cold.stdout == serial.stdout}\n", flush=True)

    if not args.quick:
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
              f"({time.perf_counter() - start:.1f} s)\n", flush=True)

    def row(what: str, measured, versus: str, memory: str) -> str:
        return f"| {what} | {measured.seconds:.1f} s | {measured.cpu_seconds:.1f} s | {versus} | {memory} |"

    print(f"Measured on {machine()}; corpus: {corpus}; best of {repeat}.\n")
    print("| run | time | CPU time | compared with | peak memory |")
    print("| --- | --- | --- | --- | --- |")
    print(row("LibCST parse only (baseline, in process)", parse, "1.00x", "-"))
    print(row("`check --select ALL`, rules only (in process)", rules,
              f"{check_time / parse_time:.2f}x parse only (CPU: {rules.cpu_seconds / parse.cpu_seconds:.2f}x)", "-"))
    print(row("`check --select ALL --no-cache --jobs 1`", serial,
              f"{serial.seconds / parse_time:.2f}x parse only (CPU: {serial.cpu_seconds / parse.cpu_seconds:.2f}x)",
              f"{serial.main_mib:.0f} MiB"))
    print(row("`check --select ALL --no-cache --jobs 2`", parallel,
              f"{serial.seconds / parallel.seconds:.2f}x faster than `--jobs 1` (machine: {min(spin_before, spin_after):.2f}x)",
              f"{parallel.main_mib:.0f} MiB + {parallel.worker_mib:.0f} MiB per worker"))
    print(row("`check --select ALL`, cold cache", cold, "fills the cache", f"{cold.main_mib:.0f} MiB"))
    print(row("`check --select ALL`, warm cache", warm, f"{warm.seconds / cold.seconds:.1%} of cold",
              f"{warm.main_mib:.0f} MiB"))

if __name__ == "__main__":
    main()
