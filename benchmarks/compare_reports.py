"""Compare two ``trtcodemod migrate --format json`` outputs: do the verdicts differ?

    python benchmarks/compare_reports.py BEFORE.json AFTER.json [--root-before DIR --root-after DIR]

What a run measures (wall times, latencies, the phase profile) is left out, and paths are
compared relative to each run's root (``--root-*``: the checkout each ran in, for runs of two
checkouts). Every other difference is printed per model; differences that are only fewer
"information" lines (or file counts) from files the second run did not analyse are printed
apart, as expected when the second run analyses fewer files. Exit 1 when anything else differs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

#: Keys whose values are measurements of this run, not verdicts.
_MEASURED = {"phases", "seconds", "latency_ms", "latency_before", "latency_runs", "latency_before_runs", "timing"}
#: Keys that list or count the files analysed: they change with which files are analysed.
_FILES = {"files", "user_files"}


def _strip(value: Any, root: str) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v, root) for k, v in value.items() if k not in _MEASURED}
    if isinstance(value, list):
        return [_strip(v, root) for v in value]
    if isinstance(value, str) and root:
        return value.replace(root, "<root>")
    return value


def _diff(a: Any, b: Any, where: str, out: list[str]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            _diff(a.get(key, "<absent>"), b.get(key, "<absent>"), f"{where}.{key}", out)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for k, (x, y) in enumerate(zip(a, b)):
            _diff(x, y, f"{where}[{k}]", out)
    elif a != b:
        out.append(f"{where}: {json.dumps(a)[:300]} -> {json.dumps(b)[:300]}")


def compare_model(a: dict[str, Any], b: dict[str, Any]) -> tuple[list[str], list[str]]:
    """``(unexpected differences, expected ones)`` of one model's two reports (already stripped)."""
    expected: list[str] = []
    analysed = set(b.get("files") or [])
    a, b = dict(a), dict(b)
    info_a, info_b = a.pop("info", []), b.pop("info", [])
    kept = [i for i in info_a if i.get("path") in analysed or not analysed]
    dropped = [i for i in info_a if i not in kept]
    if dropped:
        expected.append(f"{len(dropped)} information line(s) fewer, from files not analysed "
                        f"({len({i['path'] for i in dropped})} file(s))")
    unexpected: list[str] = []
    if kept != info_b:
        _diff(kept, info_b, "info", unexpected)
    for key in _FILES:
        files_a, files_b = a.pop(key, None), b.pop(key, None)
        if files_a != files_b:
            count = lambda files: "absent" if files is None else f"{len(files)} file(s)"  # noqa: E731
            expected.append(f"{key}: {count(files_a)} -> {count(files_b)}")
    facts_a, facts_b = dict(a.pop("facts", None) or {}), dict(b.pop("facts", None) or {})
    for key in ("files", "lines_ran"):
        if facts_a.get(key) != facts_b.get(key):
            expected.append(f"facts.{key}: {facts_a.get(key)} -> {facts_b.get(key)}")
        facts_a.pop(key, None), facts_b.pop(key, None)
    _diff(facts_a, facts_b, "facts", unexpected)
    _diff(a, b, "", unexpected)
    return unexpected, expected


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--root-before", default="")
    parser.add_argument("--root-after", default="")
    args = parser.parse_args(argv)
    before = _strip(json.loads(args.before.read_text()), args.root_before)
    after = _strip(json.loads(args.after.read_text()), args.root_after)
    models_a = {m["name"]: m for m in before["models"]}
    models_b = {m["name"]: m for m in after["models"]}
    bad = 0
    for name in sorted(set(models_a) | set(models_b)):
        if name not in models_a or name not in models_b:
            print(f"{name}: only in {'after' if name in models_b else 'before'}")
            bad += 1
            continue
        unexpected, expected = compare_model(models_a[name], models_b[name])
        print(f"{name}: {'DIFFERS' if unexpected else 'same verdicts'}")
        for line in expected:
            print(f"  expected: {line}")
        for line in unexpected:
            print(f"  {line}")
        bad += bool(unexpected)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
