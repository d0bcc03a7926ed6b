"""Static TensorRT check of an exported graph (``trtcodemod.trt``), sources mapped to user files."""

from __future__ import annotations

import re
from typing import Any, Callable

from .results import FailedNode, GraphCheck

Mapper = Callable[[str | None], str | None]


def _summarizer() -> Callable[..., dict[str, Any]]:
    from trtcodemod.trt.inspect import summarize_graph

    return summarize_graph


def check_onnx(path: str, target: str, map_location: Mapper | None = None,
               helper_at: Callable[[Any], str | None] | None = None) -> GraphCheck:
    """Node count, op histogram and TensorRT issues of one ONNX file; ``error`` if the check failed.

    ``helper_at`` names the inserted helper a frame runs in (a rewritten model): a node made
    inside one is placed at the user's line that called it (``source_map.node_source``).
    """
    import onnx

    try:
        model = onnx.load(path, load_external_data=False)
    except Exception as exc:  # noqa: BLE001
        return GraphCheck(None, {}, error=f"cannot load {path}: {exc}")
    try:
        from trtcodemod.trt.source_map import record_sources

        sources = record_sources(model, helper_at)
        summary = GraphCheck.from_json(dict(_summarizer()(model, target, sources=sources)))
    except Exception as exc:  # noqa: BLE001 - a checker bug must not hide the numeric result
        return GraphCheck(len(model.graph.node), _ops(model),
                          error=f"static check failed: {type(exc).__name__}: {exc}")
    if map_location is not None:
        for issue in summary.trt_issues:
            issue.source = map_location(issue.source)
    return summary


def _ops(model: Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    for node in model.graph.node:
        counts[node.op_type] = counts.get(node.op_type, 0) + 1
    return dict(sorted(counts.items()))


#: How ONNX Runtime names the node it refuses: at load (shape inference; the graph's own check, which
#: quotes the node as ``In Node, ("/Add", Add, "", -1) : ...``; its type check, which binds an op's type
#: parameter to its operands' types: ``Type parameter (T) of Optype (Einsum) bound to different types
#: (tensor(int64) and tensor(float) in node (/m/rot/Einsum)``, or an input's type to what the op takes:
#: ``Type 'tensor(int64)' of input parameter (/Einsum_output_0) of operator (Sin) in node (/Sin) is invalid``)
#: and at run time.
_FAILED_NODE = (re.compile(r"Node \((?P<name>[^)]*)\) Op \((?P<op>\w+)\)"),
                re.compile(r'In Node, \("(?P<name>[^"]*)", (?P<op>\w+),'),
                re.compile(r"Optype \((?P<op>\w+)\) bound to different types .*? in node \((?P<name>[^)]*)\)"),
                re.compile(r"of operator \((?P<op>\w+)\) in node \((?P<name>[^)]*)\)"),
                re.compile(r"running (?P<op>\w+) node\. Name:'(?P<name>[^']*)'"))


#: ONNX Runtime's words where an op refuses an input's type: the input's name, to find the node that made it.
_REFUSED_INPUT = re.compile(r"Type '[^']*' of input parameter \((?P<input>[^)]*)\) of operator")


def failed_node(path: str | None, error: str | None, map_location: Mapper | None = None,
                helper_at: Callable[[Any], str | None] | None = None) -> FailedNode | None:
    """The node an ONNX Runtime error names (``Node (/Where_6) Op (Where) [ShapeInferenceError]
    ...``) and the user's line that made it, or None when the error names no node. A graph
    refused at load has no outputs to compare, so this is the only line it can be placed at."""
    match = next((m for m in (p.search(error or "") for p in _FAILED_NODE) if m), None)
    if match is None:
        return None
    found = FailedNode(match["name"], match["op"])
    if not path:
        return found
    try:
        import onnx

        from trtcodemod.trt.source_map import iter_nodes, node_source

        model = onnx.load(path, load_external_data=False)
        node = next((n for n in iter_nodes(model.graph) if n.name == match["name"]), None)
        source = node_source(node, helper_at) if node is not None else None
        refused_input = _REFUSED_INPUT.search(error or "")
        maker = None if refused_input is None else next(
            (n for n in iter_nodes(model.graph) if refused_input["input"] in n.output), None)
        input_source = node_source(maker, helper_at) if maker is not None else None
        origin = type_origin(model.graph, maker) if maker is not None else None
        input_origin = node_source(origin, helper_at) if origin is not None else None
    except Exception:  # noqa: BLE001 - a graph we cannot read again names no line
        return found
    mapped = [map_location(s) if map_location is not None and s else s for s in (source, input_source, input_origin)]
    found.source, found.input_source, found.input_origin = mapped
    return found


#: Nodes whose output has the type of one of their inputs (the data input's position), so a value's type was set
#: before them: a refused input that only passed through these was typed where it was made further up.
_TYPE_KEPT = {"Identity": 0, "Clip": 0, "Reshape": 0, "Squeeze": 0, "Unsqueeze": 0, "Flatten": 0, "Transpose": 0,
              "Slice": 0, "Gather": 0, "GatherElements": 0, "GatherND": 0, "Expand": 0, "Tile": 0, "Neg": 0,
              "Abs": 0, "Where": 1, "Max": 0, "Min": 0, "Relu": 0}


#: Nodes with two data inputs of one type (Where's two values, Max's and Min's operands): where the exporter
#: promoted one of them with a Cast, the type came from the other.
_PROMOTED_PAIR = {"Where": (1, 2), "Max": (0, 1), "Min": (0, 1)}


def _uncast_operand(node: Any, position: int, makers: dict[str, Any]) -> int:
    """The data input of ``node`` whose type its output has: ``position``, or the other of a pair where the
    exporter cast ``position``'s to match it (Idefics2's ``torch.where(mask, pos_ids, position_ids)``: the int64
    ids cast to the float of a ``torch.full`` with no dtype, made from a traced size)."""
    pair = _PROMOTED_PAIR.get(node.op_type)
    if pair is None or max(pair) >= len(node.input) or position not in pair:
        return position
    other = pair[1] if position == pair[0] else pair[0]
    made = [makers.get(node.input[k]) for k in (position, other)]
    # (Where the other is the graph's input or a weight, the cast stays the origin: no node of the code typed it.)
    if made[1] is None or getattr(made[0], "op_type", None) != "Cast" or made[1].op_type == "Cast":
        return position
    return other


def _uncast_part(node: Any, makers: dict[str, Any]) -> int | None:
    """The part of a ``Concat`` whose type the joined tensor has, where the exporter cast the others to it
    (MaskGIT's ``torch.cat((class_token, ids))``: the int64 class token cast to the float of a ``torch.full``
    with no dtype, made from a traced size); None where no part was cast, or all were: the ``Concat`` set it."""
    made = [makers.get(name) for name in node.input]
    cast = [getattr(m, "op_type", None) == "Cast" for m in made]
    if not any(cast):
        return None
    return next((k for k, m in enumerate(made) if m is not None and not cast[k]), None)


def type_origin(graph: Any, node: Any, steps: int = 32) -> Any | None:
    """The node that set the type of ``node``'s output, walking up through nodes that keep their data input's
    type (``_TYPE_KEPT``), or None where ``node`` itself set it (or the walk leaves the graph's nodes)."""
    from trtcodemod.trt.source_map import iter_nodes

    makers = {output: n for n in iter_nodes(graph) for output in n.output}
    current = node
    for _ in range(steps):
        position = _TYPE_KEPT.get(current.op_type)
        if current.op_type == "Concat":
            position = _uncast_part(current, makers)
        if position is None or position >= len(current.input):
            break
        position = _uncast_operand(current, position, makers)
        above = makers.get(current.input[position])
        if above is None:
            break
        current = above
    return None if current is node else current
