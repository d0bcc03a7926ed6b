"""Text rendering of a frame-sequence report (``sequence.verify_sequence``); JSON is the dict itself."""

from __future__ import annotations

from typing import Any

from trtcodemod.verify.report import num, table

from .contract import DeploymentContract


def verdict(report: dict[str, Any]) -> str:
    if report["exit_code"] == 2:
        return f"COULD NOT RUN: {report.get('error') or 'unknown error'}"
    failed = [r for r in report["runs"] if r["status"] != "skipped" and not r["passed"]]
    if failed:
        return "NOT EQUIVALENT over frames: " + "; ".join(f"{r['name']}: {failure_text(r)}" for r in failed)
    return f"EQUIVALENT over {len(report['frames'])} frames, state carried by the caller"


def failure_text(run: dict[str, Any]) -> str:
    """``frame 2 (next): output fused, state prev_out (3 of 12 element(s) outside atol/rtol)``."""
    first = run.get("first_failure")
    if run["status"] == "failed" and not first:
        return run["reason"] or "failed"
    if not first:
        return "-"
    where = f"frame {first['frame']} ({first['kind']})"
    if first["error"]:
        return f"{where}: {first['error']}"
    names = ", ".join(f"{f['role']} {f['name']}" for f in first["failing"])
    return f"{where}: {names} ({first['failing'][0]['problem']})"


def render_text(report: dict[str, Any]) -> str:
    if not report.get("contract"):  # it could not start: there is no contract or frame to show
        return f"trtcodemod verify over frames: {report['name']}\n\nverdict: {verdict(report)}\n"
    contract = report["contract"]
    out = [f"trtcodemod verify over frames: {report['name']}",
           f"  wrapper  {contract['wrapper']}  engine inputs: {', '.join(DeploymentContract.from_dict(contract).engine_inputs())}",
           f"  frames   " + "  ".join(f"{f['index']}:{f['kind']}" for f in report["frames"])]
    out += [f"           {f['index']}: {f['note']}" for f in report["frames"] if f["note"]]
    out += [f"  note     {note}" for note in report.get("notes", [])]
    if report["runs"]:
        rows = [[r["name"], r["verdict"], f"{r['frames_passed']}/{len(r['frames'])}" if r["frames"] else "-",
                 num(r["max_abs_err"]), num(r["max_rel_err"]),
                 _short(failure_text(r) if r["status"] != "skipped" else r["reason"])] for r in report["runs"]]
        out += ["", *("  " + line for line in table(rows, ["run", "verdict", "frames ok", "max abs", "max rel",
                                                             "first failure"]))]
    for run in report["runs"]:
        if run["frames"] and not run["passed"]:
            out += ["", f"  {run['name']}, frame by frame:"]
            rows = [[str(f["index"]), f["kind"], "ok" if f["passed"] else "FAIL", num(f["max_abs_err"]),
                     num(f["max_rel_err"]), _short(f["error"]) or ", ".join(x["name"] for x in f["failing"]) or "-"]
                    for f in run["frames"]]
            out += ["    " + line for line in table(rows, ["frame", "kind", "", "max abs", "max rel", "failing"])]
    out += ["", f"verdict: {verdict(report)}"]
    return "\n".join(out) + "\n"



def _short(text: str | None, limit: int = 160) -> str:
    """Table cells stay on one screen line; the JSON report keeps the whole message."""
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[:limit - 3] + "..."
