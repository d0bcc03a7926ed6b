"""Render verification reports: text (terminal), markdown (a PR comment), JSON.

Input is the JSON form of the report ``run.verify`` builds (``results.VerifyReport.to_json``:
the contract); rendering never changes it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable, Sequence

FORMATS = ("text", "json", "markdown")


def render(reports: Sequence[dict[str, Any]], fmt: str, *, multi: bool = False) -> str:
    """One report, or several with a summary table first (``multi``)."""
    if fmt == "json":
        if multi:
            return json.dumps({"version": 1, "exit_code": exit_code(reports), "models": list(reports)}, indent=2)
        return json.dumps(reports[0], indent=2)
    one = render_markdown if fmt == "markdown" else render_text
    parts = [summary_markdown(reports) if fmt == "markdown" else summary_text(reports)] if multi else []
    parts += [one(r) for r in reports]
    return "\n\n".join(parts).rstrip() + "\n"


def exit_code(reports: Sequence[dict[str, Any]]) -> int:
    """The worst of the models' exit codes (0 < 1 < 2)."""
    return max((int(r.get("exit_code", 2)) for r in reports), default=2)


# --- shared wording -------------------------------------------------------------------------


def _rel(path: str | None) -> str:
    if not path:
        return "?"
    try:
        rel = os.path.relpath(path)
        return rel if not rel.startswith("..") else path
    except ValueError:
        return path


def _loc(text: str | None) -> str:
    """``/abs/file.py:12`` shown relative to the working folder."""
    if not text:
        return "-"
    path, sep, line = text.rpartition(":")
    return f"{_rel(path)}:{line}" if sep and line.isdigit() else _rel(text)


def num(value: float | None) -> str:
    """An error for a table cell: three significant digits, ``-`` for none."""
    return "-" if value is None else f"{value:.3g}"


def _lat(value: dict[str, float] | None, wanted: int | None = None) -> str:
    """Median/p90; the timed runs they are from where the timing budget cut them below ``wanted``."""
    if not value:
        return "-"
    runs = value.get("runs")
    cut = f" ({runs} runs)" if runs and wanted and runs < wanted else ""
    return f"{value['median']:.3f}/{value['p90']:.3f}{cut}"


def _label(row: dict[str, Any]) -> str:
    return row["name"] + (f" ({row['exporter']})" if row.get("exporter") else "")


def verdict(r: dict[str, Any]) -> str:
    code = r.get("exit_code", 2)
    if code == 2:
        return f"COULD NOT RUN: {r.get('error') or 'unknown error'}"
    if not r["equivalent"]:
        return "NOT EQUIVALENT"
    issues = sum(len(_errors((g or {}).get("after"))) for g in r.get("graphs_by_exporter", {}).values())
    failed = [_label(b) for b in r["backends"] if b["status"] == "failed"]
    if issues:
        return f"equivalent, but {issues} TensorRT issue(s) remain in the rewritten graph"
    if failed:
        return f"equivalent where it ran, but failed on {', '.join(failed)}"
    if r.get("original_export_error"):
        return "EQUIVALENT, now exportable, no TensorRT issue left"
    return "EQUIVALENT, no TensorRT issue left"


def _errors(graph: dict[str, Any] | None) -> list[dict[str, Any]]:
    return [i for i in (graph or {}).get("trt_issues", []) if i.get("severity", "error") == "error"]


def _faithful_word(check: dict[str, Any]) -> str:
    if check["faithful"] is None:
        return "unknown"
    if check["faithful"]:
        return "faithful"
    return "BAKED IN" if check["baked"] else "WRONG"


def _op_changes(before: dict[str, Any] | None, after: dict[str, Any] | None) -> str:
    if not before or not after:
        # One side has no graph: there is nothing to diff (never "every op N->0").
        return "no original graph to compare with" if after else "no rewritten graph"
    b, a = (before or {}).get("ops", {}), (after or {}).get("ops", {})
    changes = [f"{op} {b.get(op, 0)}->{a.get(op, 0)}" for op in sorted(set(b) | set(a)) if b.get(op, 0) != a.get(op, 0)]
    return ", ".join(changes) or "none"


def _rules_line(r: dict[str, Any]) -> str:
    if not r["fixes"]:
        if r["rewrite_errors"]:
            return "no fix applied"
        why = []
        if not r["model"].get("unsafe"):
            why.append("no safe fix applies; unsafe fixes need --unsafe")
        if not r["model"].get("dynamic_axes"):
            why.append("no --dynamic-axes, so shape-dependent fixes have nothing to show")
        return ("nothing was rewritten, the rewritten model is the original"
                + (f" ({'; '.join(why)})" if why else ""))
    by_rule: dict[str, list[str]] = {}
    for f in r["fixes"]:
        by_rule.setdefault(f["rule"], []).append(f"{_rel(f['path'])}:{f['line']}")
    return "; ".join(f"{rule} x{len(locs)} ({', '.join(locs[:4])}{', ...' if len(locs) > 4 else ''})"
                     for rule, locs in sorted(by_rule.items()))


def table(rows: list[list[str]], header: list[str]) -> list[str]:
    """A plain-text table's lines: the header, a rule, the rows, in left-aligned columns."""
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    fmt: Callable[[list[str]], str] = lambda cells: "  ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()
    return [fmt(header), fmt(["-" * w for w in widths])] + [fmt(r) for r in rows]


# --- text ------------------------------------------------------------------------------------


def render_text(r: dict[str, Any]) -> str:
    m = r["model"]
    out = [f"trtcodemod verify: {r['name']}",
           f"  model    {_rel(m['file'])} --model {m['model']}  inputs: {m['inputs']}  "
           f"exporter: {', '.join(m['exporters'])} (opset {m['opset']})  target: TensorRT {m['target']}",
           f"  rewrite  {_rules_line(r)}{'  [unsafe fixes on]' if m['unsafe'] else ''}"]
    out += [f"  rewrite error: {e}" for e in r["rewrite_errors"]]
    inputs = r.get("inputs") or {}
    if inputs.get("sets"):
        shapes = " | ".join(", ".join(f"{k} {'x'.join(map(str, v))}" for k, v in s.items()) for s in inputs["sets"])
        out.append(f"  inputs   {len(inputs['sets'])} sets: {shapes}")
        out += [f"           {note}" for note in inputs.get("notes", [])]
    for role, model in r["models"].items():
        if model["status"] != "ok":
            out.append(f"  {role:<8} {model['status'].upper()}: {model['message']}")
            tail = [line for line in model.get("log_tail", "").splitlines() if line.strip()][-6:]
            out += [f"           | {line}" for line in tail]
    if r.get("error") and r["exit_code"] == 2 and not r["backends"]:
        out += ["", f"Result: {verdict(r)} -- exit {r['exit_code']}"]
        return "\n".join(out)

    out += ["", "Export faithfulness (each graph on ONNX Runtime CPU vs its own model's eager outputs, every input set)"]
    out += [f"  {role:<7} {model['reference']}" for role, model in r["models"].items() if model.get("reference")]
    for c in r["export_checks"]:
        out.append(f"  {c['side']:<7} {c['exporter']:<12} {_faithful_word(c):<9} {c['detail']}".rstrip())
        for w in c["warnings"]:
            out.append(f"          {w['category']} at {_loc(w['source'])}: {w['message'][:110]}")

    sets = "".join(f"; {n} as a set of rows on axis {a}" for n, a in (m.get("unordered") or {}).items())
    out += ["", f"Backends (rewritten model vs original eager CPU; atol {m['atol']:g}, rtol {m['rtol']:g}{sets}; "
                "latency ms median/p90)"]
    rows = []
    for b in r["backends"]:
        if b["status"] == "skipped":
            rows.append([_label(b), "skipped", "", "", "", "", "", b["reason"] or ""])
            continue
        result = "" if b["passed"] is None else ("pass" if b["passed"] else "FAIL")
        note = b["reason"] or ""
        if b["passed"] is False:
            note = next((o["problem"] for o in b["outputs"] if not o["passed"]), note)
        if b["before"]["status"] == "failed" and b["status"] == "ok":
            note = f"original failed here: {b['before']['reason']}"
        rows.append([_label(b), b["status"], num(b["max_abs_err"]), num(b["max_rel_err"]), result,
                     _lat(b["latency_ms"]["before"], m.get("runs")), _lat(b["latency_ms"]["after"], m.get("runs")),
                     note[:140]])
    out += ["  " + line for line in table(rows, ["backend", "status", "max abs", "max rel", "result",
                                                    "before ms", "after ms", "note"])]

    out += ["", f"TensorRT static check (target {m['target']})"]
    for exporter, graphs in r["graphs_by_exporter"].items():
        before, after = graphs.get("before"), graphs.get("after")
        for role, g in (("before", before), ("after", after)):
            if g is None:
                out.append(f"  {role:<7} {exporter:<12} no graph")
                continue
            errs = _errors(g)
            warns = len(g.get("trt_issues", [])) - len(errs)
            out.append(f"  {role:<7} {exporter:<12} {g.get('nodes')} nodes, {len(errs)} error(s), {warns} warning(s)"
                       + (f"  [{g['error']}]" if g.get("error") else ""))
            for i in g.get("trt_issues", [])[:12]:
                rule = f" [{i['rule']}]" if i.get("rule") else ""
                out.append(f"          {i.get('severity', 'error')}: {i['op']} {i['node']} at {_loc(i.get('source'))}"
                           f"{rule}: {i['reason'][:120]}")
        out.append(f"          ops changed: {_op_changes(before, after)}")

    if r.get("original_export_error"):
        out += ["", "The original model does not export; the rewritten one does (compared with the original's eager "
                    "outputs above):", f"  {r['original_export_error'][:300]}"]
    if r["problems"]:
        out += ["", "Not equivalent:"] + [f"  - {p}" for p in r["problems"]]
        if not r["fixes"]:
            out.append("  (no fix was applied: the original's own export is what differs)")
    if r["culprits"]:
        out += ["", "Culprit search (one rule at a time):"]
        out += [f"  {c['rule']:<8} {'CULPRIT' if c['reproduces'] else 'innocent':<9} {c['detail']}" for c in r["culprits"]]
    if r.get("saved"):
        out += ["", f"Saved ONNX files and the rewritten sources in {_rel(r['saved'])}"]
    out += ["", f"Result: {verdict(r)} -- exit {r['exit_code']}"]
    return "\n".join(out)


def summary_text(reports: Sequence[dict[str, Any]]) -> str:
    rows = [[r["name"], verdict(r)[:60], _yn(r["equivalent"]) if r["exit_code"] != 2 else "-",
             f"{_yn(r['export_faithful']['before'])}/{_yn(r['export_faithful']['after'])}",
             _issue_counts(r), ",".join(r["rules_applied"]) or "-", ",".join(r["culprit_rules"]) or "-",
             str(r["exit_code"])] for r in reports]
    header = ["model", "result", "equivalent", "faithful b/a", "TRT errors b->a", "rules", "culprits", "exit"]
    return "\n".join([f"trtcodemod verify: {len(reports)} model(s)"] + ["  " + l for l in table(rows, header)])


def _yn(value: bool | None) -> str:
    return "?" if value is None else ("yes" if value else "NO")


def _issue_counts(r: dict[str, Any]) -> str:
    g = r.get("graphs") or {}
    if not g or g.get("before") is None:
        return "-"
    after = "-" if g.get("after") is None else str(len(_errors(g["after"])))
    return f"{len(_errors(g['before']))}->{after}"


# --- markdown ---------------------------------------------------------------------------------


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    esc = lambda s: str(s).replace("|", "\\|").replace("\n", " ")  # noqa: E731
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + \
           ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows]


def render_markdown(r: dict[str, Any]) -> str:
    m = r["model"]
    icon = {0: "✅", 1: "❌", 2: "⚠️"}.get(r["exit_code"], "")
    out = [f"### {icon} trtcodemod verify: `{r['name']}`", "",
           f"**{verdict(r)}** (exit {r['exit_code']})", "",
           f"- model: `{_rel(m['file'])}` `--model {m['model']}`, inputs `{m['inputs']}`, "
           f"exporter {', '.join(m['exporters'])} (opset {m['opset']}), target TensorRT {m['target']}",
           f"- rewrite: {_rules_line(r)}"]
    for role, model in r["models"].items():
        if model["status"] != "ok":
            out.append(f"- {role}: **{model['status']}**: {model['message']}")
    if r["export_checks"]:
        out += ["", "**Export faithfulness**", ""]
        out += [f"- {role}: {model['reference']}" for role, model in r["models"].items() if model.get("reference")]
        out += [""] if any(model.get("reference") for model in r["models"].values()) else []
        out += _md_table(["model", "exporter", "graph vs eager", "detail"],
                         [[c["side"], c["exporter"], _faithful_word(c), c["detail"] or ""] for c in r["export_checks"]])
        warns = [(c["side"], w) for c in r["export_checks"] for w in c["warnings"]]
        out += [f"- {side}: `{w['category']}` at `{_loc(w['source'])}`: {w['message'][:140]}" for side, w in warns]
    if r["backends"]:
        out += ["", "**Backends** (rewritten vs original eager CPU; latency ms median / p90)", ""]
        rows = [[_label(b), b["status"], num(b["max_abs_err"]), num(b["max_rel_err"]),
                 "" if b["passed"] is None else ("pass" if b["passed"] else "**FAIL**"),
                 _lat(b["latency_ms"]["before"], m.get("runs")), _lat(b["latency_ms"]["after"], m.get("runs")),
                 b["reason"] or ""]
                for b in r["backends"]]
        out += _md_table(["backend", "status", "max abs", "max rel", "result", "before", "after", "note"], rows)
    if r["graphs_by_exporter"]:
        out += ["", f"**TensorRT static check** (target {m['target']})", ""]
        rows = []
        for exporter, g in r["graphs_by_exporter"].items():
            for role in ("before", "after"):
                graph = g.get(role)
                if graph is None:
                    continue
                for i in _errors(graph) or [None]:
                    rows.append([role, exporter, str(graph.get("nodes")),
                                 f"`{i['op']}` {i['reason'][:100]}" if i else "no error",
                                 f"`{_loc(i.get('source'))}`" if i else "", (i or {}).get("rule") or ""])
        out += _md_table(["graph", "exporter", "nodes", "issue", "source", "rule"], rows)
    if r["problems"]:
        out += ["", "**Not equivalent**", ""] + [f"- {p}" for p in r["problems"]]
    if r["culprits"]:
        out += ["", "**Culprit rules**: " + (", ".join(f"`{c}`" for c in r["culprit_rules"]) or "none alone"), ""]
        out += [f"- `{c['rule']}`: {'culprit' if c['reproduces'] else 'innocent'} ({c['detail']})" for c in r["culprits"]]
    return "\n".join(out)


def summary_markdown(reports: Sequence[dict[str, Any]]) -> str:
    rows = [[f"`{r['name']}`", verdict(r), f"{_yn(r['export_faithful']['before'])}/{_yn(r['export_faithful']['after'])}",
             _issue_counts(r), ", ".join(r["rules_applied"]) or "-", ", ".join(r["culprit_rules"]) or "-",
             str(r["exit_code"])] for r in reports]
    return "\n".join([f"## trtcodemod verify: {len(reports)} model(s)", ""] + _md_table(
        ["model", "result", "faithful before/after", "TRT errors before→after", "rules", "culprits", "exit"], rows))


def error_report(name: str, message: str) -> dict[str, Any]:
    """A model that could not even be set up (bad config table): still a row in the summary."""
    return {"version": 1, "name": name, "model": {"file": "", "model": "", "inputs": "", "exporters": [],
            "opset": 0, "target": "", "unsafe": False, "atol": 0, "rtol": 0, "dynamic_axes": {}},
            "exit_code": 2, "error": message, "equivalent": False, "problems": [],
            "export_faithful": {"before": None, "after": None}, "export_checks": [], "models": {}, "inputs": {},
            "backends": [], "graphs": {"before": None, "after": None}, "graphs_by_exporter": {},
            "rules_applied": [], "fixes": [], "rewrite_errors": [], "culprit_rules": [], "culprits": [],
            "environment": {}, "saved": None}


def display_path(path: str | Path) -> str:
    return _rel(str(path))
