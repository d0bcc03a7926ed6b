"""Precision of the default findings on real repositories, judged by hand.

    python benchmarks/precision.py [--sample N] [--seed S] [--show]

Runs `check` with the default settings (every rule that is not opt-in, model code only,
target 8.6) over the corpora below, counts findings per rule and corpus, draws a seeded
random sample of the findings, and scores the sample with the verdicts recorded by hand
in `precision_verdicts.toml` (key: `corpus/relative/path:line:RULE`). A sampled finding
without a verdict is listed (`--show` prints it with its source lines) so it can be
judged and recorded; the score counts judged findings only and says how many are missing.

Corpora: the timm and torchvision wheels (`check_throughput.py` downloads them into
`.corpus/`) and snapshots of detection/BEV repositories, given as NAME=DIR with `--repo`
(the commit each verdict was judged at is recorded in the verdict file).
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
import tomllib
from pathlib import Path

from trtcodemod.engine import Options, check_source
from trtcodemod.errors import InputError

HERE = Path(__file__).parent
VERDICTS = HERE / "precision_verdicts.toml"
WHEELS = {"timm": HERE / ".corpus" / "timm", "torchvision": HERE / ".corpus" / "torchvision"}


def findings_in(name: str, root: Path) -> list[tuple[str, object]]:
    """``(key, finding)`` for every default finding under ``root``; key = name/relpath:line:RULE."""
    out = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        options = Options(scope_path=relative)
        try:
            found = check_source(path.read_bytes(), relative, options)
        except InputError:
            continue
        out.extend((f"{name}/{relative}:{f.line}:{f.rule}", f) for f in found)
    return out


def show(root: Path, finding) -> str:
    lines = (root / finding.path).read_text(encoding="utf-8", errors="replace").splitlines()
    start, end = max(finding.line - 4, 0), min(finding.end_line + 2, len(lines))
    body = "\n".join(f"    {n + 1:5d}{'>' if n + 1 == finding.line else ' '} {lines[n]}" for n in range(start, end))
    return f"  {finding.message}\n{body}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", action="append", default=[], metavar="NAME=DIR")
    parser.add_argument("--sample", type=int, default=60)
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--show", action="store_true", help="print unjudged sampled findings with their code")
    args = parser.parse_args()
    corpora = dict(WHEELS)
    for item in args.repo:
        name, _, folder = item.partition("=")
        corpora[name] = Path(folder)
    verdicts: dict[str, dict] = tomllib.loads(VERDICTS.read_text())["verdict"] if VERDICTS.exists() else {}

    every: list[tuple[str, str, object]] = []
    counts: dict[str, collections.Counter] = {}
    for name, root in corpora.items():
        if not root.is_dir():
            sys.exit(f"{name}: no folder {root} (run check_throughput.py once for the wheels)")
        found = findings_in(name, root)
        counts[name] = collections.Counter(f.rule for _, f in found)
        every.extend((name, key, f) for key, f in found)

    rules = sorted(set().union(*counts.values()))
    print("| rule | " + " | ".join(corpora) + " | all |")
    print("| --- |" + " ---: |" * (len(corpora) + 1))
    for rule in rules:
        row = [counts[name][rule] for name in corpora]
        print(f"| {rule} | " + " | ".join(map(str, row)) + f" | {sum(row)} |")
    print(f"| all | " + " | ".join(str(sum(counts[n].values())) for n in corpora) + f" | {len(every)} |\n")

    sample = random.Random(args.seed).sample(every, min(args.sample, len(every)))
    sample.sort(key=lambda item: item[1])
    real = false = 0
    per_rule: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    missing = []
    for name, key, finding in sample:
        verdict = verdicts.get(key)
        if verdict is None:
            missing.append((name, key, finding))
            continue
        ok = verdict["real"]
        real += ok
        false += not ok
        per_rule[finding.rule][0 if ok else 1] += 1
        mark = "real " if ok else "FALSE"
        print(f"{mark} {key}  {verdict.get('why', '')}")
    judged = real + false
    print(f"\nsample of {len(sample)} (seed {args.seed}): {judged} judged, {real} real, {false} false"
          + (f", precision {real / judged:.0%}" if judged else "") + f"; {len(missing)} not judged yet")
    print("per rule (real/false): " + ", ".join(f"{r} {a}/{b}" for r, (a, b) in sorted(per_rule.items())))
    for name, key, finding in missing:
        print(f"\nNOT JUDGED {key}")
        if args.show:
            print(show(corpora[name], finding))


if __name__ == "__main__":
    main()
