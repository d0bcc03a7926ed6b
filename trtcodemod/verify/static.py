"""Static TensorRT check of an exported graph (``trtcodemod.trt``), sources mapped to user files."""

from __future__ import annotations

from typing import Any, Callable

Mapper = Callable[[str | None], str | None]


def _summarizer() -> Callable[..., dict[str, Any]]:
    from trtcodemod.trt.inspect import summarize_graph

    return summarize_graph


def check_onnx(path: str, target: str, map_location: Mapper | None = None,
               helper_at: Callable[[Any], str | None] | None = None) -> dict[str, Any]:
    """``{"nodes", "ops", "trt_issues": [...], ...}`` for one ONNX file; ``error`` if the check failed.

    ``helper_at`` names the inserted helper a frame runs in (a rewritten model): a node made
    inside one is placed at the user's line that called it (``source_map.node_source``).
    """
    import onnx

    try:
        model = onnx.load(path, load_external_data=False)
    except Exception as exc:  # noqa: BLE001
        return {"nodes": None, "ops": {}, "trt_issues": [], "error": f"cannot load {path}: {exc}"}
    try:
        from trtcodemod.trt.source_map import record_sources

        sources = record_sources(model, helper_at)
        summary = dict(_summarizer()(model, target, sources=sources))
    except Exception as exc:  # noqa: BLE001 - a checker bug must not hide the numeric result
        return {"nodes": len(model.graph.node), "ops": _ops(model), "trt_issues": [],
                "error": f"static check failed: {type(exc).__name__}: {exc}"}
    if map_location is not None:
        for issue in summary.get("trt_issues", []):
            issue["source"] = map_location(issue.get("source"))
    return summary


def _ops(model: Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    for node in model.graph.node:
        counts[node.op_type] = counts.get(node.op_type, 0) + 1
    return dict(sorted(counts.items()))


def errors(summary: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The issues that block TensorRT (severity ``error``; warnings do not fail a run)."""
    if not summary:
        return []
    return [i for i in summary.get("trt_issues", []) if i.get("severity", "error") == "error"]
