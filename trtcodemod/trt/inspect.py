"""``trtcodemod inspect MODEL.onnx``: the static TensorRT check of one ONNX file.

onnx is imported inside the functions, never at module import, so that the CLI
starts without it.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from trtcodemod.versions import VersionError, format_version

if TYPE_CHECKING:
    import onnx

FORMATS = ("text", "json")
_DEFAULT_DOMAINS = ("", "ai.onnx")


def _count_ops(graph: onnx.GraphProto, counts: Counter[str]) -> int:
    total = 0
    for node in graph.node:
        total += 1
        label = node.op_type if node.domain in _DEFAULT_DOMAINS else f"{node.domain}::{node.op_type}"
        counts[label] += 1
        for attr in node.attribute:
            for sub in ([attr.g] if attr.HasField("g") else list(attr.graphs)):
                total += _count_ops(sub, counts)
    return total


def _opset(model: onnx.ModelProto) -> int | None:
    return next((o.version for o in model.opset_import if o.domain in _DEFAULT_DOMAINS), None)


def summarize_graph(model: onnx.ModelProto, target: str | tuple[int, int] = "8.6", *,
                    sources: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Node count (subgraphs included), op histogram and TensorRT issues of one graph.

    ``target`` is the TensorRT the user deploys on; ``checked_against`` is the release
    of the support table the checks used, and ``notes`` says when those differ.
    """
    from trtcodemod.trt import support
    from trtcodemod.trt.check import check_graph

    resolved = support.resolve_target(target)
    counts: Counter[str] = Counter()
    nodes = _count_ops(model.graph, counts)
    issues = check_graph(model, resolved.requested, sources=sources)
    notes = [resolved.note] if resolved.note else []
    return {
        "nodes": nodes,
        "ops": dict(sorted(counts.items())),
        "opset": _opset(model),
        "target": format_version(resolved.requested),
        "checked_against": resolved.label,
        "notes": notes,
        "trt_issues": [issue.to_dict() for issue in issues],
    }


def _fail(path: Path, message: str) -> typer.Exit:
    typer.echo(f"{path}: error: {message}", err=True)
    return typer.Exit(code=2)


def _load(path: Path) -> onnx.ModelProto:
    import onnx
    from google.protobuf.message import DecodeError

    if not path.exists():
        raise _fail(path, "no such file")
    if not path.is_file():
        raise _fail(path, "not a file")
    try:
        # Weights are not needed for a static check; skipping external data also keeps
        # a model whose weight files are elsewhere checkable.
        model = onnx.load(str(path), load_external_data=False)
    except (DecodeError, ValueError, OSError, RuntimeError) as exc:
        raise _fail(path, f"not an ONNX model ({type(exc).__name__}: {exc})") from None
    # Protobuf decodes some non-ONNX bytes (an empty file, a text file) into an empty model.
    if model.ir_version == 0 or not model.graph.node:
        raise _fail(path, "not an ONNX model (no graph nodes)")
    return model


def _render_text(path: Path, summary: dict[str, Any], color: bool) -> str:
    lines = [
        f"{path}: {summary['nodes']} nodes, {len(summary['ops'])} distinct ops, "
        f"opset {summary['opset'] if summary['opset'] is not None else '?'}, "
        f"target TensorRT {summary['target']}"
    ]
    lines += [f"note: {note}" for note in summary["notes"]]
    for issue in summary["trt_issues"]:
        severity = issue["severity"]
        label = typer.style(severity, fg="red" if severity == "error" else "yellow", bold=True) if color else severity
        line = f"{label}: {issue['node']} ({issue['op']}): {issue['reason']}"
        if issue["source"]:
            line += f" [{issue['source']}]"
        if issue["rule"]:
            line += f" → {issue['rule']}"
        lines.append(line)
    errors = sum(1 for i in summary["trt_issues"] if i["severity"] == "error")
    warnings = len(summary["trt_issues"]) - errors
    lines.append(f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}")
    return "\n".join(lines)


def inspect_command(
    model: Path = typer.Argument(..., help="The ONNX file to check."),
    target: str = typer.Option("8.6", "--target", help="TensorRT version to check against (8.6, 10.x...)."),
    format: str = typer.Option("text", "--format", help="Output format: text or json."),
) -> None:
    """Static TensorRT check of an ONNX file: unsupported ops, dtypes and risky constructs."""
    from trtcodemod.trt import support

    if format not in FORMATS:
        typer.echo(f"error: --format must be one of {', '.join(FORMATS)}, not {format!r}", err=True)
        raise typer.Exit(code=2)
    try:
        support.resolve_target(target)
    except VersionError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=2) from None
    proto = _load(model)
    summary = summarize_graph(proto, target)
    if format == "json":
        payload = {"version": 1, "path": str(model), **summary}
        typer.echo(json.dumps(payload, indent=2, ensure_ascii=False))
    else:
        typer.echo(_render_text(model, summary, color=sys.stdout.isatty()))
    if any(issue["severity"] == "error" for issue in summary["trt_issues"]):
        raise typer.Exit(code=1)
