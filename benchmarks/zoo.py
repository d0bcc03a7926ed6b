"""Wall time of a model zoo: ``migrate --config`` with --jobs 1 and 2, a cold and a warm cache,
and a re-run after one model file changed.

    python benchmarks/zoo.py [--quick] [--command migrate|verify]

The zoo is the shipped one (``examples/models.toml``, six models) plus, unless ``--quick``, the
seven models of ``examples/migrate/`` with the settings their tests use, all copied into a temporary
project so that the cache and the touched file stay out of the checkout. Each run is the
command line in a fresh process. The JSON of --jobs 1 and --jobs 2 must match (timings
aside). The machine's own 2-process speed-up on a pure-Python loop is measured before and
after the --jobs rows: on a shared machine it bounds what --jobs 2 can show.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from check_throughput import machine, machine_speedup

ROOT = Path(__file__).resolve().parent.parent
#: The models of examples/migrate/ with the settings their tests use (anchor_head.py is imported by wrapper.py).
EXTRA = {
    "baked_scale": "unsafe = true",
    "ceil_size": 'unsafe = true\ndynamic_axes = { x = { 1 = "n" } }',
    "clean_net": "",
    "mask_crop": "",
    "pooled_head": 'dynamic_axes = { x = { 2 = "height", 3 = "width" } }',
    "topk_cap": 'target = "8.5"\ndynamic_axes = { scores = { 1 = "n" } }',
    "wrapper": 'dynamic_axes = { feats = { 0 = "batch", 2 = "height", 3 = "width" } }',
}
#: The file touched for the one-file re-run: only pkg_detector imports it.
TOUCHED = Path("verify/pkg_detector/heads.py")


def make_zoo(folder: Path, quick: bool) -> Path:
    shutil.copytree(ROOT / "examples", folder / "examples")
    (folder / "pyproject.toml").write_text("[project]\nname = 'zoo-benchmark'\n")
    config = folder / "examples" / "models.toml"
    if not quick:
        tables = [f'\n[models.{name}]\nmodel_file = "migrate/{name}.py"\nmodel = "build"\ninputs = "inputs"\n{extra}\n'
                  for name, extra in EXTRA.items()]
        config.write_text(config.read_text() + "".join(tables))
    return config


def run(command: str, config: Path, *args: str, cache: Path | None = None) -> tuple[float, str, str]:
    env = {**os.environ}
    env.pop("TRTCODEMOD_CACHE_DIR", None)
    if cache is not None:
        env["TRTCODEMOD_CACHE_DIR"] = str(cache)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "trtcodemod", command, "--config", str(config), "--format", "json",
                           *args], capture_output=True, text=True, env=env, cwd=config.parent)
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1, 2) or not done.stdout.startswith("{"):
        raise SystemExit(f"{command} failed ({done.returncode}): {done.stderr[-2000:]}")
    return seconds, done.stdout, done.stderr


def stable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: stable(v) for k, v in value.items() if "latency" not in k and k not in ("seconds", "log_tail")}
    if isinstance(value, list):
        return [stable(v) for v in value]
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the six shipped models only")
    parser.add_argument("--command", default="migrate", choices=("migrate", "verify"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="trtcodemod-zoo-bench-") as temp:
        folder = Path(temp)
        config = make_zoo(folder, args.quick)
        speedup_before = machine_speedup()
        one, out_one, _ = run(args.command, config, "--no-cache", "--jobs", "1")
        two, out_two, _ = run(args.command, config, "--no-cache", "--jobs", "2")
        speedup_after = machine_speedup()
        same = stable(json.loads(out_one)) == stable(json.loads(out_two))
        count = len(json.loads(out_one)["models"])
        cache = folder / "cache"
        cold, _, _ = run(args.command, config, "--jobs", "2", cache=cache)
        warm, _, err_warm = run(args.command, config, "--jobs", "2", cache=cache)
        (folder / "examples" / TOUCHED).write_text((folder / "examples" / TOUCHED).read_text() + "\n# touched\n")
        touched, _, err_touched = run(args.command, config, "--jobs", "2", cache=cache)
    reran = [line.split("] ", 1)[1].split(":")[0] for line in err_touched.splitlines()
             if line.startswith("[") and "(cached)" not in line]
    cached_warm = sum("(cached)" in line for line in err_warm.splitlines())
    print(f"Machine: {machine()}; load average {os.getloadavg()[0]:.2f} at the end; "
          f"2-process speed-up on a pure-Python loop: {speedup_before:.2f}x before, {speedup_after:.2f}x after")
    print()
    print(f"| `{args.command} --config` over {count} models | wall time | |")
    print("|---|---:|---|")
    print(f"| `--jobs 1 --no-cache` | {one:.1f} s | |")
    print(f"| `--jobs 2 --no-cache` | {two:.1f} s | {one / two:.2f}x faster than `--jobs 1` "
          f"(machine: {min(speedup_before, speedup_after):.2f}x-{max(speedup_before, speedup_after):.2f}x); "
          f"same JSON: {'yes' if same else 'NO'} |")
    print(f"| `--jobs 2`, cold cache | {cold:.1f} s | |")
    print(f"| `--jobs 2`, warm cache | {warm:.2f} s | {100 * warm / cold:.1f}% of cold; "
          f"{cached_warm}/{count} from the cache (exit-2 models always re-run) |")
    print(f"| `--jobs 2` after touching `examples/{TOUCHED}` | {touched:.1f} s | re-ran: "
          f"{', '.join(reran) or 'none'} |")


if __name__ == "__main__":
    main()
