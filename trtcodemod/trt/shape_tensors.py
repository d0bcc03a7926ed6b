"""Shape tensors and execution tensors: which node inputs TensorRT computes on the host.

TensorRT keeps two kinds of tensors. *Shape tensors* are small (0-D or 1-D, at most 64
elements) INT32/INT64/BOOL/FLOAT tensors it computes on the host from input shapes,
constants and shape inputs of the engine; the layers that size their outputs from a tensor
take it as a shape tensor (a Shuffle's reshape dimensions, a Slice's start/size/stride, a
Fill's dimensions...). *Execution tensors* are computed on the device by the layers. A
value computed from the data (``cond.sum()``, ``scores.argmax()``) is an execution tensor;
when one reaches an input that must be a shape tensor, the output's shape depends on the
data. How each release takes that is a version fact (``versions.FACTS``).

This module only classifies: :func:`shape_inputs` names the shape-tensor inputs of an ONNX
node, :class:`ShapeFlow` says of a tensor whether it is a shape tensor, an execution
tensor (and which node first read the data) or unknown. Unknown is never reported: it
covers subgraph inputs and ops this table does not describe, so the check stays quiet
where it cannot be sure.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Protocol

import onnx
from onnx import TensorProto

#: ONNX op -> {input index: what the input is}; each must be a shape tensor in TensorRT.
#: From the ONNX operator signatures and TensorRT's layer docs (IShuffleLayer input 1,
#: ISliceLayer inputs 1-3, IFillLayer dimensions, IResizeLayer input 1, ITopKLayer's K,
#: INMSLayer's MaxOutputBoxesPerClass), as onnx-tensorrt maps the ops onto those layers.
SHAPE_INPUTS: dict[str, dict[int, str]] = {
    "Reshape": {1: "the target shape"},
    "Expand": {1: "the target shape"},
    "Tile": {1: "the repeats"},
    "Slice": {1: "the starts", 2: "the ends", 3: "the axes", 4: "the steps"},
    "Range": {0: "the start", 1: "the limit", 2: "the delta"},
    "ConstantOfShape": {0: "the shape"},
    "TopK": {1: "K"},
    "Resize": {2: "the scales", 3: "the sizes"},
    "Upsample": {1: "the scales"},
    "Pad": {1: "the pads", 3: "the axes"},
    "Squeeze": {1: "the axes"},
    "Unsqueeze": {1: "the axes"},
    "OneHot": {1: "the depth"},
    "Split": {1: "the split sizes"},
    "NonMaxSuppression": {2: "max_output_boxes_per_class"},
}

#: Ops TensorRT can compute on the host when every input is a shape tensor (shape
#: arithmetic: the docs name Concatenation, ElementWise, Gather, Identity and Reduce
#: layers; the rest are how exporters spell the same arithmetic).
_SHAPE_ARITHMETIC = frozenset({
    "Identity", "Cast", "CastLike", "Concat", "Gather", "GatherElements", "Slice", "Squeeze", "Unsqueeze",
    "Reshape", "Flatten", "Expand", "Tile", "Transpose", "Add", "Sub", "Mul", "Div", "Mod", "Neg", "Abs",
    "Min", "Max", "Floor", "Ceil", "Round", "Sqrt", "Pow", "Sign", "Clip", "Equal", "Less", "LessOrEqual",
    "Greater", "GreaterOrEqual", "Not", "And", "Or", "Xor", "Where", "ReduceSum", "ReduceProd", "ReduceMin",
    "ReduceMax", "Range", "ConstantOfShape",
})
#: Ops that move or retype values without computing new ones: never "where a value was made".
_TRANSPARENT = frozenset({"Identity", "Cast", "CastLike", "Unsqueeze", "Squeeze", "Reshape", "Flatten",
                          "Expand", "Transpose"})
#: Ops whose output is a shape tensor whatever their input holds.
_SHAPE_SOURCES = frozenset({"Shape", "Size"})
_INTEGER_INPUTS = frozenset({TensorProto.INT32, TensorProto.INT64})
_DEFAULT_DOMAINS = ("", "ai.onnx")
#: A shape tensor holds at most this many elements (TensorRT's ITensor documentation).
MAX_SHAPE_VOLUME = 64


class Kind(Enum):
    SHAPE = "shape"
    EXECUTION = "execution"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Origin:
    """What a tensor is, and for an execution tensor, the node that first read device data."""

    kind: Kind
    node: onnx.NodeProto | None = None
    #: A graph input the value comes from (when no node read it first).
    graph_input: str | None = None


class _Graphs(Protocol):  # the part of check._Graphs this module reads
    producers: dict[str, onnx.NodeProto]
    initializers: dict[str, onnx.TensorProto]

    def elem_type(self, name: str) -> int | None: ...
    def is_const(self, name: str) -> bool: ...


def shape_inputs(node: onnx.NodeProto) -> dict[int, str]:
    """{input index: role} of ``node``'s inputs that TensorRT needs as shape tensors."""
    if node.domain not in _DEFAULT_DOMAINS:
        return {}
    roles = SHAPE_INPUTS.get(node.op_type, {})
    return {i: role for i, role in roles.items() if i < len(node.input) and node.input[i]}


class ShapeFlow:
    """Classify tensors of one model as shape or execution tensors (memoized, cycle safe)."""

    def __init__(self, graphs: _Graphs, inputs: dict[str, onnx.TypeProto]) -> None:
        self.graphs = graphs
        #: The main graph's inputs (not initializers): the engine's inputs.
        self.inputs = inputs
        self._memo: dict[str, Origin] = {}

    def origin(self, name: str, depth: int = 0) -> Origin:
        if name in self._memo:
            return self._memo[name]
        self._memo[name] = Origin(Kind.UNKNOWN)  # guards against cycles
        result = self._classify(name, depth)
        self._memo[name] = result
        return result

    def _classify(self, name: str, depth: int) -> Origin:
        if self.graphs.is_const(name):
            return Origin(Kind.SHAPE)
        if name in self.inputs:
            return self._engine_input(name)
        node = self.graphs.producers.get(name)
        if node is None or depth > 200 or node.domain not in _DEFAULT_DOMAINS:
            return Origin(Kind.UNKNOWN)  # a subgraph's own input, a function's output...
        op = node.op_type
        if op in _SHAPE_SOURCES:
            return Origin(Kind.SHAPE)
        if op == "Constant":
            return Origin(Kind.SHAPE)
        args = [self.origin(i, depth + 1) for i in node.input if i]
        execution = next((a for a in args if a.kind is Kind.EXECUTION), None)
        if execution is not None:
            # The first node that reads device data is where the value was made: keep the
            # innermost origin, so the message names the `ReduceSum`, not the `Cast` after it.
            if execution.node is not None or op in _TRANSPARENT:
                return execution
            return Origin(Kind.EXECUTION, node, execution.graph_input)
        if op in _SHAPE_ARITHMETIC and all(a.kind is Kind.SHAPE for a in args):
            return Origin(Kind.SHAPE)
        return Origin(Kind.UNKNOWN)

    def _engine_input(self, name: str) -> Origin:
        """An engine input is a shape tensor only when it can be one: a small integer 0-D/1-D
        tensor of a build-time size (TensorRT then asks for its values on the host)."""
        tp = self.inputs[name].tensor_type
        dims = list(tp.shape.dim) if tp.HasField("shape") else None
        small = dims is not None and (not dims or (len(dims) == 1 and dims[0].HasField("dim_value")
                                                   and dims[0].dim_value <= MAX_SHAPE_VOLUME))
        if tp.elem_type in _INTEGER_INPUTS and small:
            return Origin(Kind.SHAPE)
        return Origin(Kind.EXECUTION, graph_input=name)

    def execution_source(self, name: str) -> Origin | None:
        """The origin of ``name`` when it is an execution tensor computed from device data, else None."""
        origin = self.origin(name)
        return origin if origin.kind is Kind.EXECUTION else None
