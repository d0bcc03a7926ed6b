"""Render migration reports: text (terminal), markdown (a PR comment), JSON (the contract).

Input is the list of per-model dicts built by ``run.migrate``; rendering never changes them.
"""

from __future__ import annotations

import json
import os
from typing import Any, Sequence

FORMATS = ("text", "json", "markdown")
REPORT_VERSION = 1
#: Keys of a model's JSON entry that are working data, not part of the report.
_PRIVATE = ("verification",)


def empty_report(name: str) -> dict[str, Any]:
    """A model's report before anything ran (exit 2 until the migration says otherwise)."""
    return {"name": name, "model_file": "", "model": "", "inputs": "", "target": "", "unsafe": False,
            "exporters": [], "exit_code": 2, "error": None, "applied": [], "reverted": [], "tried_last": [],
            "before": None, "after": None, "equivalent": None, "remaining": [], "info": [], "rounds": [], "latency_ms": {},
            "latency_runs": {}, "files": [], "changed_files": [], "diff": "", "facts": None, "rewrite_errors": [],
            "verification": None}


def error_report(name: str, message: str) -> dict[str, Any]:
    """A model that could not be set up (a bad config table): still a row of the summary (exit 2)."""
    report = empty_report(name)
    report["error"] = message
    return report


def exit_code(reports: Sequence[dict[str, Any]]) -> int:
    """The worst of the models' exit codes (0 < 1 < 2)."""
    return max((int(r.get("exit_code", 2)) for r in reports), default=2)


def render(reports: Sequence[dict[str, Any]], fmt: str, *, multi: bool = False, written: bool = False,
           profile: bool = False) -> str:
    """``profile``: the text report shows each model's phases (JSON always has them)."""
    if fmt == "json":
        models = [{k: v for k, v in r.items() if k not in _PRIVATE} for r in reports]
        return json.dumps({"version": REPORT_VERSION, "exit_code": exit_code(reports), "written": written,
                           "models": models}, indent=2) + "\n"
    if fmt == "markdown":
        parts = ([summary_markdown(reports)] if multi else []) + [render_markdown(r, written) for r in reports]
    else:
        parts = ([summary_text(reports)] if multi else []) + [render_text(r, written, profile) for r in reports]
    return "\n\n".join(parts).rstrip() + "\n"


# --- shared wording -------------------------------------------------------------------------


def _rel(path: str | None) -> str:
    if not path:
        return "-"
    rel = os.path.relpath(path)
    return rel if not rel.startswith("..") else path


def _loc(source: str | None) -> str:
    if not source:
        return "-"
    path, sep, line = source.rpartition(":")
    return f"{_rel(path)}:{line}" if sep and line.isdigit() else _rel(source)


def _yes(value: bool | None) -> str:
    return "?" if value is None else "yes" if value else "NO"


def _faithful(state: dict[str, Any]) -> str:
    """``yes``/``NO``/``?``; ``wrapper`` where the model keeps per-frame state on ``self`` by design
    and its lifted export wrapper is what follows it, over frames (TRT703's lift)."""
    if state.get("faithful") is not True and state.get("wrapper_faithful"):
        return "wrapper"
    return _yes(state.get("faithful"))


def _tied(state: dict[str, Any], shown: str) -> str:
    """``shown``, and how many arg-max picks between tied values were eager mode's (``verify.picks``)."""
    tied = state.get("picks_tied")
    return f"{shown} ({tied} tied arg-max pick(s))" if tied else shown


def _trt(state: dict[str, Any] | None) -> str:
    if not state or state.get("trt_errors") is None:
        return "-"
    ops = state.get("trt_errors_by_op") or {}
    detail = ", ".join(f"{op} {n}" for op, n in sorted(ops.items()))
    return f"{state['trt_errors']}" + (f" ({detail})" if detail else "")


def verdict(r: dict[str, Any]) -> str:
    if r["exit_code"] == 2:
        return f"COULD NOT RUN: {r.get('error') or 'unknown error'}"
    after = r.get("after") or {}
    if r["exit_code"] == 0:
        done = "migrated" if r["applied"] else "nothing to migrate"
        if after.get("wrapper_faithful") and after.get("faithful") is not True:
            return f"{done}: exports, its export wrapper follows it over frames, equivalent, no TensorRT error"
        return f"{done}: exports, faithful, equivalent, no TensorRT error"
    why = []
    if not after.get("exported"):
        why.append("does not export")
    elif after.get("faithful") is not True:
        why.append("export not faithful" if after.get("faithful") is False else "faithfulness unknown")
    if after.get("trt_errors"):
        why.append(f"{after['trt_errors']} TensorRT error(s)")
    if r.get("equivalent") is False:
        why.append("rewrite NOT EQUIVALENT")
    errors_left = [x for x in r.get("remaining", []) if x.get("severity", "error") == "error"]
    if errors_left:
        why.append(f"{len(errors_left)} problem(s) located and not fixed")
    return "something remains: " + (", ".join(why) or "see below")


def _write_note(r: dict[str, Any], written: bool) -> str:
    n = len(r.get("changed_files", []))
    if not n:
        return "nothing to write"
    return f"wrote {n} file(s)" if written else f"dry run: nothing written; --write writes {n} file(s)"


# --- text ------------------------------------------------------------------------------------


def render_text(r: dict[str, Any], written: bool = False, profile: bool = False) -> str:
    out = [f"trtcodemod migrate: {r['name']}",
           f"  model     {_rel(r['model_file'])} --model {r['model']}  inputs: {r['inputs']}  "
           f"exporter: {', '.join(r['exporters'])}  target: TensorRT {r['target']}"
           + ("  [--unsafe]" if r.get("unsafe") else "")]
    facts = r.get("facts")
    if facts:
        dyn = "; ".join(f"{n}[{','.join(map(str, i['varying']))}]" for n, i in facts["inputs"].items() if i["varying"])
        out.append(f"  observed  {facts['runs']} input set(s), {facts['files']} file(s) of yours, "
                   f"{facts['lines_ran']} line(s) ran, {facts['value_reads']} tensor value read site(s)"
                   + (f"; varying axes: {dyn}" if dyn else ""))
        out += [f"            run error: {e}" for e in facts.get("run_errors", [])]
    if r["exit_code"] == 2 and r.get("before") is None:
        return "\n".join(out + (_phases_text(r) if profile else []) + ["", f"Result: {verdict(r)} -- exit 2"])
    b, a = r.get("before") or {}, r.get("after") or {}
    rows = [["exported", _yes(b.get("exported")), _yes(a.get("exported"))],
            ["faithful", _tied(b, _yes(b.get("faithful"))), _tied(a, _faithful(a))],
            ["TensorRT errors", _trt(b), _trt(a)],
            ["equivalent", "", _yes(r.get("equivalent")) + ("" if r["applied"] else " (nothing rewritten)")]]
    runs, wanted = r.get("latency_runs", {}), (r.get("timing") or {}).get("runs")
    for label, lat in r.get("latency_ms", {}).items():
        rows.append([f"ms {label}", *(_ms(lat.get(side), runs.get(label, {}).get(side), wanted)
                                     for side in ("before", "after"))])
    out += ["", *("  " + line for line in _table(rows, ["", "before", "after"]))]
    # The original's note (the rewritten side asks at the same lines, in its temporary copy).
    note = b.get("reference") or a.get("reference")
    out += [f"  {note}"] if note else []

    out += ["", f"Applied ({len(r['applied'])}):" if r["applied"] else "Applied: none"]
    for f in r["applied"]:
        out.append(f"  {f['rule']}  {_rel(f['path'])}:{f['line']}  proof: {f['proof']}")
    out += _lift_text(r.get("lift"))
    if r.get("reverted"):
        out += ["", f"Reverted ({len(r['reverted'])}):"]
        out += [f"  {f['rule']}  {_rel(f['path'])}:{f['line']}  {f['why']}" for f in r["reverted"]]
    out += ["", f"Remaining ({len(r['remaining'])}):" if r["remaining"] else "Remaining: nothing"]
    for item in r["remaining"]:
        out.append(f"  {item['op']} at {_loc(item['source'])}  [{item['rule'] or 'no rule'}]  {item['message'][:200]}")
        if item.get("manual_step"):
            out.append(f"      by hand: {item['manual_step']}")
    if r.get("info"):
        out += ["", f"Not applied, information ({len(r['info'])}):"]
        out += [f"  {i['rule']}  {_rel(i['path'])}:{i['line']}  {i['reason']}" for i in r["info"]]
    out += [f"  rewrite error: {e}" for e in r.get("rewrite_errors", [])]
    if r.get("diff"):
        out += ["", r["diff"].rstrip()]
    if profile:
        out += _phases_text(r)
    out += ["", f"Result: {verdict(r)} -- exit {r['exit_code']} ({_write_note(r, written)})"]
    return "\n".join(out)


def _ms(median: float | None, runs: int | None, wanted: int | None) -> str:
    """A latency figure; the runs it is from where the timing budget cut them below ``--runs``."""
    if median is None:
        return "-"
    return f"{median:.3f}" + (f" ({runs} runs)" if runs and wanted and runs < wanted else "")


def _phases_text(r: dict[str, Any]) -> list[str]:
    """Where the migration's wall time went, phase by phase (``phases.py``)."""
    phases = r.get("phases") or []
    if not phases:
        return []
    total = r.get("seconds")
    rest = None if total is None else total - sum(p["seconds"] for p in phases)
    rows = [[p["phase"], f"{p['seconds']:.1f}"] for p in phases]
    if rest is not None:
        rows.append(["(between phases)", f"{max(rest, 0.0):.1f}"])
    head = "Phases" + (f" ({total:.1f} s in all):" if total is not None else ":")
    return ["", head, *("  " + line for line in _table(rows, ["phase", "seconds"]))]


def _lift_text(lift: dict[str, Any] | None) -> list[str]:
    """The lifted per-frame state (TRT703): the files, the contract, or why not."""
    if not lift:
        return []
    out = ["", f"Per-frame state of {lift.get('class') or '?'}: " + (", ".join(f"self.{s}" for s in lift["states"])
                                                                   or "none found")]
    if lift.get("optional") and not lift["states"]:
        out[-1] = f"Optional inputs of {lift.get('class') or '?'} (no per-frame state on self)"
    if lift.get("optional"):
        out.append("  optional inputs (an indicator input each): " + ", ".join(f"{p}=None" for p in lift["optional"]))
    if lift.get("files"):
        out.append(f"  lifted: forward_step + adapter forward, equal to the original on {lift['frames']} frames"
                   + (" (optional inputs absent and given, mixed)" if lift.get("optional") else ""))
        out += [f"  file    {_rel(path)}" for path in lift["files"]]
        out += ["  " + line for line in (lift.get("contract_markdown") or "").splitlines() if line]
    else:
        reasons = lift.get("refusals") or [lift.get("reverted") or lift.get("mismatch") or lift.get("error")
                                           or "not lifted"]
        out += [f"  not lifted: {reason}" for reason in reasons]
    return out


def _table(rows: list[list[str]], header: list[str]) -> list[str]:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]

    def fmt(cells: list[str]) -> str:
        return "  ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()

    return [fmt(header), fmt(["-" * w for w in widths])] + [fmt(row) for row in rows]


def _summary_rows(reports: Sequence[dict[str, Any]]) -> list[list[str]]:
    rows = []
    for r in reports:
        b, a = r.get("before") or {}, r.get("after") or {}
        rules = sorted({f["rule"] for f in r.get("applied", []) if not f.get("reverted")})
        rows.append([r["name"], f"{_yes(b.get('exported'))}/{_yes(a.get('exported'))}",
                     f"{_yes(b.get('faithful'))}/{_faithful(a)}",
                     f"{'?' if b.get('trt_errors') is None else b['trt_errors']}->"
                     f"{'?' if a.get('trt_errors') is None else a['trt_errors']}",
                     _yes(r.get("equivalent")) if r["exit_code"] != 2 else "-",
                     ",".join(rules) or "-", str(len(r.get("remaining", []))), str(r["exit_code"])])
    return rows


_SUMMARY_HEADER = ["model", "exported b/a", "faithful b/a", "TRT errors b->a", "equivalent", "applied", "remaining",
                   "exit"]


def summary_text(reports: Sequence[dict[str, Any]]) -> str:
    return "\n".join([f"trtcodemod migrate: {len(reports)} model(s)",
                      *("  " + line for line in _table(_summary_rows(reports), _SUMMARY_HEADER))])


# --- markdown --------------------------------------------------------------------------------


def _md_table(rows: list[list[str]], header: list[str]) -> list[str]:
    esc = lambda c: str(c).replace("|", "\\|")  # noqa: E731
    return ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)] + [
        "| " + " | ".join(esc(c) for c in row) + " |" for row in rows]


def summary_markdown(reports: Sequence[dict[str, Any]]) -> str:
    return "\n".join([f"## trtcodemod migrate: {len(reports)} model(s)", "",
                      *_md_table(_summary_rows(reports), _SUMMARY_HEADER)])


def render_markdown(r: dict[str, Any], written: bool = False) -> str:
    out = [f"### `{r['name']}`: {verdict(r)}", ""]
    if r.get("before") is not None:
        b, a = r["before"], r.get("after") or {}
        out += _md_table([["exported", _yes(b.get("exported")), _yes(a.get("exported"))],
                          ["faithful", _yes(b.get("faithful")), _faithful(a)],
                          ["TensorRT errors", _trt(b), _trt(a)],
                          ["equivalent", "", _yes(r.get("equivalent"))]], ["", "before", "after"])
    if r["applied"]:
        out += ["", "**Applied**", ""] + [f"- `{f['rule']}` `{_rel(f['path'])}:{f['line']}`: {f['proof']}"
                                          for f in r["applied"]]
    if r.get("reverted"):
        out += ["", "**Reverted**", ""] + [f"- `{f['rule']}` `{_rel(f['path'])}:{f['line']}`: {f['why']}"
                                           for f in r["reverted"]]
    if r["remaining"]:
        out += ["", "**Remaining**", ""] + [f"- {i['op']} at `{_loc(i['source'])}` ({i['rule'] or 'no rule'}): "
                                            f"{i['message'][:200]}" + (f" By hand: {i['manual_step']}"
                                                                       if i.get("manual_step") else "")
                                            for i in r["remaining"]]
    if r.get("diff"):
        out += ["", "<details><summary>diff</summary>", "", "```diff", r["diff"].rstrip(), "```", "", "</details>"]
    out += ["", f"exit {r['exit_code']} ({_write_note(r, written)})"]
    return "\n".join(out)
