"""Structural comparison of two ONNX graphs: ops in order, wiring, attributes, constant values.

Names, doc strings and metadata are ignored (they carry the traced stack and the exporter's
counters, not the computation). A value is named by where it comes from: a graph input by
its position, an initializer by its contents, a node output by the node's position; so two
graphs are the same when they compute the same thing from the same constants.

A node whose inputs are all constants is a constant too, named by its value: its outputs are
computed (ONNX's reference evaluator) and the node leaves the comparison, as ``Constant``
nodes do. One trace can hold as a folded constant what another builds from constants in the
graph (kornia's JPEG codec caches its DCT basis at module level: a trace after an eager call
reads the cached tensor, a trace in a fresh process builds it from ``arange``, ``cos`` and an
index assignment); both compute the same thing. Ops whose result is not a function of their
inputs (the random ones) are never folded, nor values over :data:`FOLD_LIMIT` elements.
"""

from __future__ import annotations

import difflib
import hashlib
from dataclasses import dataclass
from typing import Any

import numpy as np
import onnx
from onnx import numpy_helper

#: Ops whose outputs are not a function of their inputs: a node of one is never a constant.
NOT_FOLDED = frozenset({"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial",
                        "Bernoulli", "Dropout"})
#: The largest value (elements) a folded node may hold; larger ones stay nodes.
FOLD_LIMIT = 1 << 20
#: At most this many nodes are evaluated per graph (a bound on the comparison's time).
FOLD_BUDGET = 4000


@dataclass
class Difference:
    """The first node where two graphs part: its op and user line in the first graph."""

    index: int
    op: str
    source: str | None


def _tensor(t: onnx.TensorProto) -> tuple[Any, ...]:
    if t.external_data:
        return ("tensor", t.data_type, tuple(t.dims), hashlib.sha256(t.SerializeToString()).hexdigest())
    return _value(numpy_helper.to_array(t, base_dir=""))


def _value(data: Any) -> tuple[Any, ...]:
    """A constant named by its contents: element type, shape and bytes (the same for an initializer,
    a ``Constant`` node's value and a node folded to that value)."""
    data = np.asarray(data)
    raw = data.tobytes() if data.dtype != object else repr(data.tolist()).encode()
    return ("tensor", data.dtype.str, tuple(data.shape), hashlib.sha256(raw).hexdigest())


def _value_type(v: onnx.ValueInfoProto) -> tuple[Any, ...]:
    tensor = v.type.tensor_type
    dims = tuple(d.dim_value if d.HasField("dim_value") else "?" for d in tensor.shape.dim)
    return tensor.elem_type, dims if tensor.HasField("shape") else None


class _Signer:
    """Canonical node signatures of one graph and its subgraphs (one token space, scoped by nesting)."""

    def __init__(self, opsets: dict[str, int] | None = None) -> None:
        self.tokens: dict[str, Any] = {}
        #: The values of the constants met so far (initializers, Constant nodes, folded nodes).
        self.values: dict[str, Any] = {}
        #: The top-level nodes that stay nodes (not folded), in order: what ``signs`` describes.
        self.kept: list[onnx.NodeProto] = []
        self.opsets = opsets or {}
        self.budget = FOLD_BUDGET

    def graph(self, g: onnx.GraphProto, prefix: str) -> list[tuple[Any, ...]]:
        for k, v in enumerate(g.input):
            self.tokens[v.name] = (f"{prefix}in{k}", _value_type(v))
            self.values.pop(v.name, None)  # a subgraph's input shadows nothing constant
        for t in g.initializer:
            self.tokens[t.name] = _tensor(t)
            if not t.external_data and _size(t.dims) <= FOLD_LIMIT:
                self.values[t.name] = t  # read when a fold needs it: a model's weights are not copied
        signs: list[tuple[Any, ...]] = []
        for node in g.node:
            if self.fold(node):
                continue
            if not prefix:
                self.kept.append(node)
            signs.append(self.node(node, f"{prefix}{len(signs)}"))  # named by its place among the kept
        signs.append(("outputs", tuple(self.tokens.get(v.name, "?") for v in g.output)))
        return signs

    def fold(self, node: onnx.NodeProto) -> bool:
        """Compute a node of constants: its outputs become values (True); False where it stays a node."""
        if node.domain not in ("", "ai.onnx") or node.op_type in NOT_FOLDED or not node.output:
            return False
        if any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS) for a in node.attribute):
            return False
        if not all(name in self.values for name in node.input if name):
            return False
        try:
            if node.op_type == "Constant":
                outputs = [_constant(node)]
            else:
                if self.budget <= 0:
                    return False
                self.budget -= 1
                from onnx.reference import ReferenceEvaluator

                evaluator = ReferenceEvaluator(node, opsets=self.opsets or None)
                feeds = {name: _array(self.values[name]) for name in node.input if name}
                outputs = list(evaluator.run(None, feeds))
        except Exception:  # noqa: BLE001 - an op the evaluator cannot run stays a node
            return False
        if len(outputs) != len(node.output) or any(np.asarray(v).size > FOLD_LIMIT for v in outputs):
            return False
        for name, v in zip(node.output, outputs):
            if name:
                self.values[name] = np.asarray(v)
                self.tokens[name] = _value(v)
        return True

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


def _array(value: Any) -> Any:
    """A constant's value as an array (an initializer is kept as its TensorProto until needed)."""
    return numpy_helper.to_array(value, base_dir="") if isinstance(value, onnx.TensorProto) else value


def _size(dims: Any) -> int:
    n = 1
    for d in dims:
        n *= int(d)
    return n


def _constant(node: onnx.NodeProto) -> Any:
    """A ``Constant`` node's value (any of its attribute forms)."""
    [a] = node.attribute
    if a.type == onnx.AttributeProto.TENSOR:
        return numpy_helper.to_array(a.t, base_dir="")
    if a.type == onnx.AttributeProto.SPARSE_TENSOR:
        raise ValueError("a sparse constant stays a node")
    value = onnx.helper.get_attribute_value(a)
    if a.name in ("value_float", "value_floats"):
        return np.asarray(value, dtype=np.float32)
    if a.name in ("value_int", "value_ints"):
        return np.asarray(value, dtype=np.int64)
    return np.asarray(value)


def _opsets(model: onnx.ModelProto) -> dict[str, int]:
    return {(o.domain or ""): o.version for o in model.opset_import}


def _signer(model: onnx.ModelProto) -> tuple[_Signer, list[tuple[Any, ...]]]:
    signer = _Signer(_opsets(model))
    return signer, signer.graph(model.graph, "")


def signature(model: onnx.ModelProto) -> list[tuple[Any, ...]]:
    """One entry per top-level node that is not a constant (subgraphs inside their node's), then
    the outputs."""
    return _signer(model)[1]


def first_difference(path_a: str, path_b: str) -> Difference | None:
    """None when the two graphs are the same; else the first differing node of ``path_a``."""
    from trtcodemod.trt.source_map import node_source

    a = onnx.load(path_a, load_external_data=False)
    b = onnx.load(path_b, load_external_data=False)
    (signer_a, sa), (signer_b, sb) = _signer(a), _signer(b)
    if sa == sb and _value_types(a) == _value_types(b):
        return None
    # Where they part: align the ops (and their attributes) so that a branch only one trace took
    # is found as inserted nodes, not as every later node shifted; then name that node's line.
    # The nodes compared are those that are not constants.
    nodes_a, nodes_b = signer_a.kept, signer_b.kept
    ops_a, ops_b = _ops(nodes_a), _ops(nodes_b)
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
