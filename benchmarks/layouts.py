"""Real models migrated with their libraries laid out three ways; the reports must be the same.

    python benchmarks/layouts.py [--models yolo11n,tv_ssdlite] [--work DIR]

The libraries are the real zoo's pinned wheels (``real_zoo.fetch_sources``: torchvision, timm,
ultralytics, transformers, effdet, unpacked, never installed). Each model's wrapper file is
the real zoo's; only where the libraries sit changes:

* ``beside``: the libraries and the wrappers in one folder (the real zoo's own layout);
* ``pythonpath``: the wrappers in a project folder, the libraries in another folder named by
  ``PYTHONPATH``;
* ``editable``: the libraries in a clone elsewhere, found through a ``.pth`` entry in this
  interpreter's site-packages, which is what ``pip install -e`` leaves for a plain layout
  (written for the run, removed after it).

Each layout is one ``migrate --config zoo.toml --format json --no-cache --jobs 1`` process.
Per model it prints the exit code, the fixes applied and the problems left (each path cut to
its place in its own tree) and whether the layout's report equals the ``beside`` one.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import site
import sys
import tempfile
from pathlib import Path
from typing import Any

from real_zoo import HERE, MODELS, fetch_sources, make_zoo, run_zoo

LAYOUTS = ("beside", "pythonpath", "editable")


def lay_out(layout: str, folder: Path, src: Path, models: list[Any]) -> tuple[Path, Path]:
    """The zoo config for ``layout`` and the folder its libraries are in."""
    config = make_zoo(folder, src, models)
    zoo = config.parent
    if layout == "beside":
        return config, zoo
    libs = folder / ("libs" if layout == "pythonpath" else "clone")
    libs.mkdir()
    own = {f"{spec.name}.py" for spec in models} | {"zoo.toml", "pyproject.toml"}
    for entry in list(zoo.iterdir()):
        if entry.name not in own:
            shutil.move(str(entry), libs / entry.name)
    return config, libs


def normal(model: dict[str, Any], roots: tuple[Path, ...]) -> dict[str, Any]:
    """The verdicts of one model's report, each path relative to its tree."""
    text = json.dumps({key: model.get(key) for key in ("exit_code", "error", "before", "after", "equivalent",
                                                         "applied", "reverted", "remaining")}, sort_keys=True)
    for root in roots:
        text = text.replace(str(root.resolve()) + os.sep, "").replace(str(root) + os.sep, "")
    return json.loads(re.sub(r"/tmp/trtcodemod-real-zoo-[^/]+/", "", text))


def migrate(layout: str, src: Path, models: list[Any]) -> dict[str, dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="trtcodemod-real-zoo-") as temp:
        config, libs = lay_out(layout, Path(temp), src, models)
        env_before = os.environ.get("PYTHONPATH")
        pth = Path(site.getsitepackages()[0]) / f"__editable__.real_zoo_{os.getpid()}.pth"
        try:
            if layout == "pythonpath":
                os.environ["PYTHONPATH"] = str(libs)
            elif layout == "editable":
                pth.write_text(f"{libs}\n")
            run = run_zoo(config, [spec.name for spec in models], "--no-cache", "--jobs", "1")
        finally:
            pth.unlink(missing_ok=True)
            if env_before is None:
                os.environ.pop("PYTHONPATH", None)
            else:
                os.environ["PYTHONPATH"] = env_before
        print(f"{layout}: {run.seconds:.0f} s", file=sys.stderr, flush=True)
        return {m["name"]: normal(m, (config.parent, libs)) | {"seconds": None} for m in run.report["models"]}


def row(name: str, layout: str, model: dict[str, Any], same: bool) -> str:
    applied = ", ".join(f"{a['rule']} {a['path']}:{a['line']}" for a in model["applied"]) or "-"
    left = len([r for r in model["remaining"] if r["severity"] == "error"])
    return f"| {name} | {layout} | {model['exit_code']} | {applied} | {left} | {'yes' if same else 'NO'} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="yolo11n", help="comma-separated real-zoo model names")
    parser.add_argument("--work", type=Path, default=HERE / ".real_zoo", help="wheels and unpacked sources (cached)")
    parser.add_argument("--layouts", default=",".join(LAYOUTS), help="comma-separated layouts (default all three)")
    args = parser.parse_args()
    layouts = [name for name in LAYOUTS if name in args.layouts.split(",")]
    wanted = args.models.split(",")
    models = [spec for spec in MODELS if spec.name in wanted]
    src = fetch_sources(args.work)
    reports = {layout: migrate(layout, src, models) for layout in layouts}
    print("| model | layout | exit | applied | errors left | same report as beside |")
    print("| --- | --- | --- | --- | --- | --- |")
    for spec in models:
        base = reports.get("beside", {}).get(spec.name)
        for layout in layouts:
            print(row(spec.name, layout, reports[layout][spec.name], reports[layout][spec.name] == base))
    differing = [(spec.name, layout) for spec in models for layout in layouts
                 if "beside" in reports and reports[layout][spec.name] != reports["beside"][spec.name]]
    for name, layout in differing:
        print(f"\n{name}, {layout} differs from beside:\n  {json.dumps(reports[layout][name])[:1500]}\n"
              f"  beside: {json.dumps(reports['beside'][name])[:1500]}")


if __name__ == "__main__":
    main()
