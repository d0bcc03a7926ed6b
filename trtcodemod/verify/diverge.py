"""Where a graph first computes other values than its own model, on the inputs it was traced with.

A graph that differs from eager mode even on its traced input set has not baked a value for
one size: the trace recorded something other than what ran (an in-place write through
``.data``, a Python side effect, an op the exporter converts with other semantics). The
comparison of the outputs gives no line. This finds one:

1. the model runs once more on the traced set under a ``TorchFunctionMode`` that keeps each
   torch call's tensor outputs under the innermost line of the user's code on the stack;
2. the graph runs in ONNX Runtime on the same set with every node's output kept;
3. the nodes are walked in graph order (a topological order), grouped by the innermost user
   frame of their stacks: a line whose nodes produce values of a shape eager mode made at
   that line, none of them equal to any of eager's, is where the graph starts to differ.

Lines with nothing to compare (constants the exporter folded, no node of that shape) are
passed over, and a line agrees when any of its values matches: an op the exporter
decomposes has intermediates eager mode never made. A line also agrees when its values match
one eager mode made at one of the next :data:`FUSED_REACH` lines it ran: an op the exporter
fused with the ops after it (a Conv with the BatchNorm of the next line folded into its
weights, placed at the Conv's line) computes a later line's value there. The answer is the
first line that matches none, the node there, and how many lines agreed before it.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from typing import Any

from trtcodemod.usercode import UserFiles, user_frame_on_stack

#: Values kept per line and their size: a loop's line runs many times; a huge tensor is not
#: what tells where a graph went wrong, and memory is bounded.
_PER_LINE = 64
_MAX_ELEMENTS = 1 << 22

#: How many lines after a line (in the order eager mode first ran them) a fused node's value may
#: be found at: a Conv's BatchNorm is the next line that runs torch calls (boxmot MLFN, fifteenth
#: zoo: ``self.conv1(x)`` then ``self.bn1(x)``), or the one after where a line between reads a size.
FUSED_REACH = 2


@dataclass
class Divergence:
    """The first line where the graph's values leave eager mode's (``source`` None: none found)."""

    source: str | None
    node: str | None = None
    op: str | None = None
    max_abs_err: float | None = None
    lines_agreeing: int = 0
    lines_compared: int = 0
    #: Lines that ran torch calls, in eager mode, after the last line that agreed and before
    #: this one, and left no node in the graph: what the trace dropped (``z.data.add_(1)``).
    dropped: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Divergence":
        return cls(data.get("source"), data.get("node"), data.get("op"), data.get("max_abs_err"),
                   data.get("lines_agreeing", 0), data.get("lines_compared", 0), list(data.get("dropped", [])))


#: The torch functions (and ``Tensor`` methods and operators) that compare two values element by element.
COMPARISONS = frozenset({"eq", "ne", "gt", "ge", "lt", "le", "greater", "less", "greater_equal", "less_equal",
                         "not_equal", "__eq__", "__ne__", "__gt__", "__ge__", "__lt__", "__le__"})


def eager_values(model: Any, args: tuple[Any, ...], user: UserFiles,
                 compared: dict[tuple[str, int], list[tuple[Any, Any, Any]]] | None = None,
                 ) -> dict[tuple[str, int], list[Any]]:
    """``(file, line) -> tensor outputs`` (NumPy) of each torch call made at that user line.

    With ``compared``, each element-wise comparison made at a user line (``a == b``, ``torch.gt``)
    is also kept there as ``(result, a, b)``, its operands as float64 arrays (``verify.picks``).
    """
    import torch
    from torch.overrides import TorchFunctionMode

    kept: dict[tuple[str, int], list[Any]] = {}

    class Record(TorchFunctionMode):
        def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
            out = func(*args, **(kwargs or {}))
            where = user_frame_on_stack(user, 1)
            if where is not None:
                values = kept.setdefault(where, [])
                for tensor in _tensors(out, torch):
                    if len(values) < _PER_LINE and tensor.numel() <= _MAX_ELEMENTS and not tensor.is_complex():
                        values.append(tensor.detach().cpu().numpy().copy())
                if compared is not None and getattr(func, "__name__", "") in COMPARISONS and len(args) >= 2:
                    _keep_comparison(compared.setdefault(where, []), out, args[0], args[1], torch)
            return out

    with torch.no_grad(), Record():
        model(*args)
    return kept


def _keep_comparison(into: list[tuple[Any, Any, Any]], out: Any, a: Any, b: Any, torch: Any) -> None:
    """``(out, a, b)`` into ``into`` when ``out`` is a boolean tensor and both operands are real numbers."""
    if not isinstance(out, torch.Tensor) or out.dtype != torch.bool or len(into) >= _PER_LINE \
            or out.numel() > _MAX_ELEMENTS:
        return
    operands = []
    for value in (a, b):
        if isinstance(value, torch.Tensor) and not value.is_complex():
            operands.append(value.detach().cpu().to(torch.float64).numpy().copy())
        elif isinstance(value, (bool, int, float)):
            operands.append(float(value))
        else:
            return
    into.append((out.detach().cpu().numpy().copy(), *operands))


def _tensors(value: Any, torch: Any) -> list[Any]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _tensors(v, torch)]
    return []


def graph_values(onnx_path: Any, feeds: dict[str, Any], names: set[str] | None = None,
                 as_backend: bool = False) -> list[tuple[Any, list[Any]]]:
    """``(node, its output values)`` for every node of the main graph, in graph order; with
    ``names``, only those tensors are kept (a node's others read None). ``onnx_path`` is a file, or
    a ``ModelProto`` (left as it is).

    By default the graph runs as exported, node for node. ``as_backend`` runs it as the ONNX Runtime
    backend did (its fusions, its thread count): a near-tie that the backend's rounding decided is
    decided so here too, where the unfused graph can round the other way (lungmask R231, seventy-ninth
    zoo: one arg-max of 196608 flipped in the backend's run and not in the unfused one)."""
    import onnx
    import onnxruntime as ort

    if isinstance(onnx_path, onnx.ModelProto):
        model = onnx.ModelProto()
        model.CopyFrom(onnx_path)
    else:
        model = onnx.load(onnx_path)
    graph = model.graph
    declared = {o.name for o in graph.output}
    wanted = [name for node in graph.node for name in node.output if name and (names is None or name in names)]
    for name in wanted:
        if name not in declared:
            # ONNX Runtime takes an output with no type; it infers one.
            graph.output.append(onnx.ValueInfoProto(name=name))
    if as_backend:
        from .backends import session_options

        # Outputs asked for stay outputs through the fusions: a fused node keeps what it exposes.
        options = session_options()
    else:
        options = ort.SessionOptions()
        # The graph as exported, node for node: fusions would drop the outputs asked for.
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    out = [o.name for o in session.get_outputs()]
    taken = {i.name for i in session.get_inputs()}
    values = dict(zip(out, session.run(out, {k: v for k, v in feeds.items() if k in taken})))
    return [(node, [values.get(name) for name in node.output if name]) for node in graph.node]


def node_line(node: Any, user: UserFiles) -> tuple[str, int] | None:
    from trtcodemod.trt.source_map import node_frames

    for frame in node_frames(node):  # innermost first
        if user(frame.file):
            return os.path.realpath(frame.file), frame.line
    return None


def _close(a: Any, b: Any, atol: float, rtol: float) -> bool:
    import numpy as np

    if a.shape != b.shape:
        return False
    if a.dtype == bool or b.dtype == bool:
        return bool(np.array_equal(a.astype(bool), b.astype(bool)))
    return bool(np.allclose(a.astype(np.float64), b.astype(np.float64), atol=atol, rtol=rtol, equal_nan=True))


def _error(a: Any, b: Any) -> float:
    import numpy as np

    diff = np.abs(a.astype(np.float64) - b.astype(np.float64))
    return float(np.nanmax(diff)) if diff.size else 0.0


def first_divergence(nodes: list[tuple[Any, list[Any]]], eager: dict[tuple[str, int], list[Any]],
                     user: UserFiles, atol: float, rtol: float) -> Divergence:
    """The first user line (in graph order) whose graph values match none of eager's there."""
    by_line: dict[tuple[str, int], list[tuple[Any, Any]]] = {}
    order: list[tuple[str, int]] = []
    for node, outputs in nodes:
        where = node_line(node, user)
        if where is None:
            continue
        if where not in by_line:
            by_line[where] = []
            order.append(where)
        by_line[where] += [(node, value) for value in outputs if value is not None]
    agreeing = compared = 0
    last_agreeing: tuple[str, int] | None = None
    ran = list(eager)
    for where in order:
        made = eager.get(where, [])
        pairs = [(node, got, want) for node, got in by_line[where] for want in made if got.shape == want.shape]
        if not pairs:
            continue  # nothing eager mode made here has a shape the graph's values have
        compared += 1
        if any(_close(got, want, atol, rtol) for _, got, want in pairs) \
                or _fused_ahead(by_line[where], eager, ran, where, atol, rtol):
            agreeing += 1
            last_agreeing = where
            continue
        node, got, want = min(pairs, key=lambda p: _error(p[1], p[2]))
        return Divergence(f"{where[0]}:{where[1]}", node.name or node.op_type, node.op_type, _error(got, want),
                          agreeing, compared, _dropped(list(eager), set(by_line), last_agreeing, where))
    return Divergence(None, lines_agreeing=agreeing, lines_compared=compared)


def _fused_ahead(values: list[tuple[Any, Any]], eager: dict[tuple[str, int], list[Any]],
                 ran: list[tuple[str, int]], where: tuple[str, int], atol: float, rtol: float) -> bool:
    """Does a value of the graph at ``where`` match one eager mode made at one of the next
    :data:`FUSED_REACH` lines it ran (a node the exporter fused with the ops of those lines)?"""
    if where not in ran:
        return False
    start = ran.index(where) + 1
    ahead = [want for line in ran[start:start + FUSED_REACH] for want in eager[line]]
    return any(_close(got, want, atol, rtol) for _, got in values for want in ahead if got.shape == want.shape)


def _dropped(ran: list[tuple[str, int]], in_graph: set[tuple[str, int]], after: tuple[str, int] | None,
             before: tuple[str, int]) -> list[str]:
    """The lines eager mode ran between ``after`` and ``before`` (first-run order) with no node."""
    start = ran.index(after) + 1 if after in ran else 0
    end = ran.index(before) if before in ran else len(ran)
    return [f"{file}:{line}" for file, line in ran[start:end] if (file, line) not in in_graph]


def locate_divergence(model: Any, args: tuple[Any, ...], input_names: list[str], onnx_path: str,
                      user_roots: tuple[str, ...], atol: float, rtol: float) -> Divergence:
    """Run ``model`` and its graph on ``args`` and name the line where their values part."""
    user = UserFiles(user_roots)
    eager = eager_values(model, args, user)
    feeds = {name: arg.detach().cpu().numpy() for name, arg in zip(input_names, args)}
    return first_divergence(graph_values(onnx_path, feeds), eager, user, atol, rtol)
