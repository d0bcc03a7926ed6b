"""Structural comparison of two ONNX graphs: ops in order, wiring, attributes, constant values.

Names, doc strings and metadata are ignored (they carry the traced stack and the exporter's
counters, not the computation). A value is named by where it comes from: a graph input by
its position, an initializer by its contents, a node output by the node's position; so two
graphs are the same when they compute the same thing from the same constants.
"""

from __future__ import annotations

import difflib
import hashlib
from dataclasses import dataclass
from typing import Any

import onnx
from onnx import numpy_helper


@dataclass
class Difference:
    """The first node where two graphs part: its op and user line in the first graph."""

    index: int
    op: str
    source: str | None


def _tensor(t: onnx.TensorProto) -> tuple[Any, ...]:
    data = numpy_helper.to_array(t, base_dir="") if not t.external_data else t.SerializeToString()
    raw = data.tobytes() if hasattr(data, "tobytes") else bytes(data)
    return ("tensor", t.data_type, tuple(t.dims), hashlib.sha256(raw).hexdigest())


def _value_type(v: onnx.ValueInfoProto) -> tuple[Any, ...]:
    tensor = v.type.tensor_type
    dims = tuple(d.dim_value if d.HasField("dim_value") else "?" for d in tensor.shape.dim)
    return tensor.elem_type, dims if tensor.HasField("shape") else None


class _Signer:
    """Canonical node signatures of one graph and its subgraphs (one token space, scoped by nesting)."""

    def __init__(self) -> None:
        self.tokens: dict[str, Any] = {}

    def graph(self, g: onnx.GraphProto, prefix: str) -> list[tuple[Any, ...]]:
        for k, v in enumerate(g.input):
            self.tokens[v.name] = (f"{prefix}in{k}", _value_type(v))
        for t in g.initializer:
            self.tokens[t.name] = _tensor(t)
        signs = []
        for n, node in enumerate(g.node):
            signs.append(self.node(node, f"{prefix}{n}"))
        signs.append(("outputs", tuple(self.tokens.get(v.name, "?") for v in g.output)))
        return signs

    def node(self, node: onnx.NodeProto, label: str) -> tuple[Any, ...]:
        inputs = tuple(self.tokens.get(name, ("outer", name)) if name else "" for name in node.input)
        attrs = tuple(sorted((a.name, self.attribute(a, f"{label}.{a.name}.")) for a in node.attribute))
        for k, name in enumerate(node.output):
            if name:
                self.tokens[name] = f"{label}:{k}"
        return node.domain, node.op_type, inputs, len(node.output), attrs

    def attribute(self, a: onnx.AttributeProto, prefix: str) -> Any:
        if a.type == onnx.AttributeProto.TENSOR:
            return _tensor(a.t)
        if a.type == onnx.AttributeProto.TENSORS:
            return tuple(_tensor(t) for t in a.tensors)
        if a.type == onnx.AttributeProto.GRAPH:
            return tuple(self.graph(a.g, prefix))
        if a.type == onnx.AttributeProto.GRAPHS:
            return tuple(tuple(self.graph(g, f"{prefix}{k}.")) for k, g in enumerate(a.graphs))
        value = onnx.helper.get_attribute_value(a)
        return tuple(value) if isinstance(value, list) else value


def signature(model: onnx.ModelProto) -> list[tuple[Any, ...]]:
    """One entry per top-level node (subgraphs inside their node's), then the outputs."""
    return _Signer().graph(model.graph, "")


def first_difference(path_a: str, path_b: str) -> Difference | None:
    """None when the two graphs are the same; else the first differing node of ``path_a``."""
    from trtcodemod.trt.source_map import node_source

    a = onnx.load(path_a, load_external_data=False)
    b = onnx.load(path_b, load_external_data=False)
    sa, sb = signature(a), signature(b)
    if sa == sb and _value_types(a) == _value_types(b):
        return None
    # Where they part: align the ops (and their attributes) so that a branch only one trace took
    # is found as inserted nodes, not as every later node shifted; then name that node's line.
    ops_a, ops_b = _ops(a.graph.node), _ops(b.graph.node)
    nodes_a, nodes_b = list(a.graph.node), list(b.graph.node)
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, ops_a, ops_b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        node = nodes_a[i1] if i1 < i2 else nodes_b[j1] if j1 < j2 else None
        if node is not None:
            return Difference(i1, node.op_type, node_source(node))
    # The same ops in the same order: the wiring or a constant of an initializer differs.
    index = next((k for k, (x, y) in enumerate(zip(sa, sb)) if x != y), 0)
    node = nodes_a[index] if index < len(nodes_a) else None
    return Difference(index, node.op_type if node else "(graph input or output)", node_source(node) if node else None)


def _ops(nodes: Any) -> list[tuple[Any, ...]]:
    signer = _Signer()
    return [(n.domain, n.op_type, tuple(sorted((a.name, signer.attribute(a, "")) for a in n.attribute
                                               if a.type not in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS))))
            for n in nodes]


def _value_types(model: onnx.ModelProto) -> tuple[Any, ...]:
    """Graph inputs' types and static dims, outputs' element types (their dims are shape
    inference's guess, not part of the computation)."""
    return (tuple(_value_type(v) for v in model.graph.input),
            tuple(v.type.tensor_type.elem_type for v in model.graph.output))
