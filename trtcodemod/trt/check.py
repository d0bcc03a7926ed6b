"""Static TensorRT check of an ONNX graph.

Two sources of truth: the parser's support table (``support.py``) and what the
table cannot say, found by looking at the graph itself: conditionals whose branches
disagree in rank, loops that run a data-dependent number of times, ops whose output
shape depends on values, dtypes TensorRT has no kernels for, and the attribute or
input restrictions that can be read off a node. Each issue names the node, the
Python line behind it (when the export recorded one) and the trtcodemod rule that
rewrites the construct away, where one exists.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from trtcodemod.trt import support
from trtcodemod.trt.issues import ERROR, WARNING, TrtIssue
from trtcodemod.trt.shape_tensors import ShapeFlow, shape_inputs
from trtcodemod.trt.source_map import is_framework_frame, is_user_frame, node_frames, node_source
from trtcodemod.versions import TOPK_K_LIMIT, Version, format_version, since

#: ONNX op (or ATen fallback name) -> trtcodemod rules that remove it. The first is
#: the default; checks pick another where the graph tells which construct it was.
RULES: dict[str, tuple[str, ...]] = {
    "If": ("TRT101", "TRT401", "TRT407"),  # data-dependent branch / squeeze on a dynamic axis / tile's rank test
    "Squeeze": ("TRT401", "TRT403"),
    "Unsqueeze": ("TRT402",),
    "Unique": ("TRT302",),
    "Einsum": ("TRT303", "TRT304"),  # two-operand matrix product / one-operand permutation
    "Pad": ("TRT501", "TRT502"),  # zero padding via cat / non-zero or non-constant padding
    "NonZero": ("TRT201", "TRT103", "TRT801", "TRT202"),  # mask indexing / torch.where(c) / ... / mask update
    "TopK": ("TRT803", "TRT802", "TRT804", "TRT805"),  # K = min(cap, size) / K from a size / K over the limit / sorted=0
    "Where": ("TRT102",),
    "ScatterND": ("TRT203", "TRT204", "TRT202"),  # slice/index assignment / number through a mask
    "ScatterElements": ("TRT203", "TRT204"),
    "atan2": ("TRT301",),
    "unique": ("TRT302",),
    "isin": ("TRT305",),
    "cummax": ("TRT307",),
    "cummin": ("TRT307",),
    "rad2deg": ("TRT308",),
    "deg2rad": ("TRT308",),
    "affine_grid_generator": ("TRT309",),
    "searchsorted": ("TRT318",),
    "median": ("TRT319",),
    "kthvalue": ("TRT319",),
    "quantile": ("TRT319",),
    "diag": ("TRT320",),
    # torch.eye's (TRT310) or torch.diagonal's (TRT320): either rule's finding at its line removes it.
    "EyeLike": ("TRT310", "TRT320"),
    "histc": ("TRT321",),
    "isposinf": ("TRT733",),
    "isneginf": ("TRT733",),
    "_unique2": ("TRT302",),
    "nonzero": ("TRT103",),
    # "Exporting the operator 'aten::view_as_complex' ... is not supported": a complex input a
    # transform takes (MONAI's `x = torch.view_as_complex(...)`, then `fftn(x)`); TRT709 takes its pairs.
    "view_as_complex": ("TRT709",),
    # "Exporting the operator 'aten::complex' ...": a complex tensor made from real parts that an inverse
    # real transform takes (LaMa's `ffted = torch.complex(re, im)`, then `irfftn(ffted)`); TRT709 takes the
    # parts. Spelled with its namespace: the bare word is prose in other errors.
    "aten::complex": ("TRT709",),
    # A 1-D window (TRT603's pooling over an added axis), or adaptive pooling that exported as one.
    "AveragePool": ("TRT603", "TRT601", "TRT325"),
    "MaxPool": ("TRT603", "TRT602", "TRT340", "TRT325"),  # TRT340: max pooling whose Indices output is used
    "adaptive_avg_pool1d": ("TRT601",),
    "adaptive_avg_pool2d": ("TRT601",),
    "adaptive_avg_pool3d": ("TRT601",),
    "adaptive_max_pool1d": ("TRT602",),
    "adaptive_max_pool2d": ("TRT602",),
    "adaptive_max_pool3d": ("TRT602",),
    "Gelu": ("TRT723",),  # opset 20+ on TensorRT < 10
    "_upsample_bilinear2d_aa": ("TRT725",),
    "_upsample_bicubic2d_aa": ("TRT725",),
    # List appends inside a scripted loop; tensor_split's loop; repeat_interleave by a tensor of counts (TRT376);
    # torch.hstack/vstack of a list of tensors (TRT337).
    "SequenceEmpty": ("TRT105", "TRT306", "TRT376"),
    "SequenceInsert": ("TRT105", "TRT306", "TRT376"),
    "SequenceConstruct": ("TRT337",),
    "SequenceAt": ("TRT306", "TRT376", "TRT337"),
    "SplitToSequence": ("TRT306", "TRT376"),
    "ConcatFromSequence": ("TRT105", "TRT376", "TRT337"),
    # Functions with no TorchScript symbolic that TRT337 composes while exporting, and TRT338's inverses,
    # by the name the exporter's error gives ("Exporting the operator 'aten::trace' ..."): some of the
    # bare names ("trace", "diff") are ordinary words of other errors.
    **{f"aten::{name}": ("TRT337",) for name in (
        "take_along_dim", "diff", "rot90", "count_nonzero", "nansum", "nanmean", "trunc", "heaviside", "isclose",
        "kron", "channel_shuffle", "xlogy", "sinc", "signbit", "copysign", "trace", "logaddexp", "hypot",
        "cumprod", "rms_norm", "expm1", "fmin", "fmax", "fliplr", "flipud", "mH", "diag_embed", "frac", "sgn",
        "addcdiv", "sinh", "cosh", "asinh", "acosh", "atanh", "_upsample_nearest_exact1d",
        "_upsample_nearest_exact2d", "_upsample_nearest_exact3d", "dstack", "column_stack")},
    # "conversion of scaled_dot_product_attention not implemented if enable_gqa is True" and "Unsupported: ONNX
    # export of operator threshold, non-zero threshold" (TRT337 repeats the key/value heads, writes a Where).
    "not implemented if enable_gqa": ("TRT337",),
    "operator threshold, non-zero": ("TRT337",),
    # Max unpooling (TRT340): the exporter's error where it names the op, and ONNX MaxUnpool (no TensorRT release
    # parses it) where an exporter writes one.
    **{f"aten::max_unpool{n}d": ("TRT340",) for n in (1, 2, 3)},
    "MaxUnpool": ("TRT340",),
    # "Unsupported: ONNX export of operator index_add, alpha != 1" (TRT341 scatter-adds while exporting).
    "index_add": ("TRT341",),
    # A sort with `stable=` ("Unsupported: ONNX export of operator Sort, Out parameter is not supported") and
    # `torch.msort` ("Exporting the operator 'aten::msort' ..."): TRT343 drops `stable=False`, sorts twice
    # while exporting for `stable=True`, and writes msort as a sort.
    "operator Sort, Out parameter": ("TRT343",),
    "aten::msort": ("TRT343",),
    # "Exporting the operator 'aten::pad_sequence' ...": a padded list of items (FastSpeech 2's length regulator);
    # TRT378 gathers the padded tensor while exporting.
    "aten::pad_sequence": ("TRT378",),
    # The dynamo exporter's "No ONNX function found for <OpOverload(op='aten._cdist_forward', ...)>": eager cdist's
    # exact path (25 rows or fewer a side); TRT379 writes eager mode's choice of form while exporting.
    "aten._cdist_forward": ("TRT379",),
    # "Exporting the operator 'aten::triu_indices' ..." (and tril): every pair once (torchani's all-pairs neighbour
    # list); TRT383 builds the indices from two ranges while exporting.
    "aten::triu_indices": ("TRT383",),
    "aten::tril_indices": ("TRT383",),
    # XOR, AND, OR of integer tensors (hash-grid encodings: nerfstudio's `torch.bitwise_xor` of voxel corners
    # times primes): "Exporting the operator 'aten::bitwise_xor' ..." (and `bitwise_and`); the other spellings stop
    # with "ONNX export does NOT support exporting bitwise XOR for non-boolean input values" (migrate's
    # `_UNNAMED_OPERATORS`); the dynamo exporter's ONNX BitwiseXor/And/Or (integers only) no TensorRT release
    # parses. TRT385 computes the same integers with arithmetic while exporting.
    "aten::bitwise_xor": ("TRT385",),
    "aten::bitwise_and": ("TRT385",),
    "BitwiseXor": ("TRT385",),
    "BitwiseAnd": ("TRT385",),
    "BitwiseOr": ("TRT385",),
    # "Exporting the operator 'aten::__ior_' ...": `t |= d` on a tensor (mbrl-lib's `terminated |= dones`); TRT384
    # writes the same call as `t.bitwise_or_(d)`, which exports as Or.
    "aten::__ior_": ("TRT384",),
    # With a Python bool operand (`keep |= False`) the trace's alias analysis stops first: "INTERNAL ASSERT FAILED
    # ... We don't have an op for aten::__ior__ but it isn't a special case".
    "aten::__ior__": ("TRT384",),
    # `keep[idx] &= ~suppressed` (nanostream-od's class-aware dedup): "Exporting the operator 'aten::__iand_'"; TRT384
    # writes an element update out of place (`keep[idx] = keep[idx] & ~suppressed`), which exports as And.
    "aten::__iand_": ("TRT384",),
    "aten::__iand__": ("TRT384",),
    # "Tried to trace <__torch__.RunningMeanStd object at 0x...> but it is not part of the active trace": forward
    # calls a submodule built as `torch.jit.script(Module(...))` in `__init__` (rl-games' normalisers); TRT386 keeps
    # the module unscripted. The failure is at the call; migrate links it to the construction (`module_calls`).
    "not part of the active trace": ("TRT386",),
    "aten::linalg_inv": ("TRT338",),
    "aten::linalg_solve": ("TRT338",),
}

#: An export that stops because an operator's input lost its static shape upstream ("Unsupported:
#: ONNX export of instance_norm for unknown channel size", "... of unknown rank"): the line that
#: fails is not the cause, so the rules whose fixes keep the shape inference intact are named.
SHAPE_LOSS = re.compile(r"\bunknown (?:channel size|rank|input size|shape|repeats (?:size|rank))\b")
SHAPE_LOSS_RULES: tuple[str, ...] = ("TRT407",)  # tile's If nodes on the rank

#: The rule that knows the construct behind a shape-tensor input computed from values.
_SHAPE_RULES = {"Range": "TRT714", "Slice": "TRT715"}
_SHAPE_HINT = "Compute it from `x.shape`/`x.size()` and constants, or pass it in as an input of the model"
_SHAPE_HINTS = {
    "Range": ("Take the count from a shape (`torch.arange(cond.nonzero().shape[0])` for a 0/1 mask), or number "
              "the selected elements at a fixed size (`cond.long().cumsum(0) - 1`) and blend"),
    "Slice": ("Keep the shape fixed and mask (`x * (torch.arange(x.shape[0]) < n)[:, None]`), or compute the "
              "bound outside the model and pass it in as an input"),
}

#: Tensor dtypes TensorRT has no kernels for, by ONNX type code.
_BAD_DTYPES: dict[int, str] = {
    TensorProto.DOUBLE: "float64",
    TensorProto.INT16: "int16",
    TensorProto.UINT8: "uint8",
    TensorProto.UINT16: "uint16",
    TensorProto.UINT32: "uint32",
    TensorProto.UINT64: "uint64",
    TensorProto.STRING: "string",
    TensorProto.COMPLEX64: "complex64",
    TensorProto.COMPLEX128: "complex128",
}
_DTYPE_HINT = {
    "float64": "cast to float32 (mind values that need float64's precision, e.g. absolute timestamps)",
    "uint8": "convert to int32 or float32 before the graph",
    "int16": "use int32",
}
#: The rule whose fix writes the dtype TensorRT has, for a Cast to one it lacks: a Cast that a
#: fix wrote (NumPy's float64 kept by TRT711's translation) gets TRT701 as a follow-up there.
_DTYPE_RULES = {"float64": "TRT701", "int16": "TRT701"}

_DEFAULT_DOMAINS = ("", "ai.onnx")
_ATEN_DOMAIN = "org.pytorch.aten"
_RESIZE_COORD_MODES = {"half_pixel", "pytorch_half_pixel", "tf_half_pixel_for_nn", "asymmetric", "align_corners"}
_RESIZE_NEAREST_MODES = {"floor", "ceil", "round_prefer_floor", "round_prefer_ceil"}
_REDUCE_OPS = {
    "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax",
    "ReduceMean", "ReduceMin", "ReduceProd", "ReduceSum", "ReduceSumSquare",
}
# Ops a constant can flow through and stay constant; enough for what exporters emit
# around pads, axes and K (e.g. torch's F.pad builds pads with a Slice chain).
_FOLDABLE = {"Identity", "Cast", "Concat", "Unsqueeze", "Squeeze", "Reshape", "Transpose", "Slice", "ConstantOfShape"}


def _op_label(node: onnx.NodeProto) -> str:
    if node.domain in _DEFAULT_DOMAINS:
        return node.op_type
    return f"{node.domain}::{node.op_type}"


def _integer_or_bool(code: int | None) -> str | None:
    """The name of an integer or bool ONNX element type (None for floats and unknown types): what
    TensorRT's CumSum refuses (it takes FP32/FP16/BF16, ``onnx_ops.csv``) and TRT334 sums in float32.
    A float64 CumSum is not among them: the float64 is reported where it enters the graph (TRT701)."""
    if code is None or code in (TensorProto.BFLOAT16, TensorProto.UNDEFINED):
        return None
    try:
        dtype = helper.tensor_dtype_to_np_dtype(code)
    except (KeyError, ValueError):
        return None
    return dtype.name if dtype.kind in "iub" else None


@dataclass
class _Graphs:
    """Everything the checks look up by tensor name, across the main graph and subgraphs."""

    producers: dict[str, onnx.NodeProto] = field(default_factory=dict)
    consumers: dict[str, list[onnx.NodeProto]] = field(default_factory=dict)
    initializers: dict[str, onnx.TensorProto] = field(default_factory=dict)
    types: dict[str, onnx.TypeProto] = field(default_factory=dict)
    _consts: dict[str, np.ndarray | None] = field(default_factory=dict)

    def add_graph(self, graph: onnx.GraphProto) -> None:
        for init in graph.initializer:
            self.initializers[init.name] = init
        for info in (*graph.input, *graph.value_info, *graph.output):
            if info.type.HasField("tensor_type"):
                self.types.setdefault(info.name, info.type)
        for node in graph.node:
            for out in node.output:
                if out:
                    self.producers[out] = node
            for inp in node.input:
                if inp:
                    self.consumers.setdefault(inp, []).append(node)

    def elem_type(self, name: str) -> int | None:
        if name in self.initializers:
            return self.initializers[name].data_type
        tp = self.types.get(name)
        if tp is not None and tp.tensor_type.elem_type:
            return tp.tensor_type.elem_type
        return None

    def rank(self, name: str) -> int | None:
        if name in self.initializers:
            return len(self.initializers[name].dims)
        tp = self.types.get(name)
        if tp is not None and tp.tensor_type.HasField("shape"):
            return len(tp.tensor_type.shape.dim)
        return None

    def const(self, name: str) -> np.ndarray | None:
        """The value of ``name`` when it is known without running the model."""
        if not name:
            return None
        if name not in self._consts:
            self._consts[name] = None  # guards against cycles
            self._consts[name] = self._fold(name)
        return self._consts[name]

    def is_const(self, name: str) -> bool:
        """Known at build time (an initializer counts even when its data lives in another file)."""
        return bool(name) and (name in self.initializers or self.const(name) is not None)

    def _fold(self, name: str) -> np.ndarray | None:
        if name in self.initializers:
            try:
                return numpy_helper.to_array(self.initializers[name])
            except Exception:  # external data that was not loaded
                return None
        node = self.producers.get(name)
        if node is None or node.domain not in _DEFAULT_DOMAINS:
            return None
        if node.op_type == "Constant":
            return _constant_value(node)
        if node.op_type not in _FOLDABLE:
            return None
        args = [self.const(i) if i else None for i in node.input]
        if not args or args[0] is None:
            return None
        try:
            return _fold_op(node, args)
        except Exception:  # an odd constant must never break the check
            return None


def _attr(node: onnx.NodeProto, name: str, default: Any = None) -> Any:
    for attr in node.attribute:
        if attr.name == name:
            value = helper.get_attribute_value(attr)
            return value.decode() if isinstance(value, bytes) else value
    return default


def _constant_value(node: onnx.NodeProto) -> np.ndarray | None:
    for attr in node.attribute:
        if attr.name == "value":
            return numpy_helper.to_array(attr.t)
        if attr.name in ("value_int", "value_ints"):
            return np.array(helper.get_attribute_value(attr), dtype=np.int64)
        if attr.name in ("value_float", "value_floats"):
            return np.array(helper.get_attribute_value(attr), dtype=np.float32)
    return None


def _fold_op(node: onnx.NodeProto, args: list[np.ndarray | None]) -> np.ndarray | None:
    op, x = node.op_type, args[0]
    assert x is not None
    if op == "Identity":
        return x
    if op == "Cast":
        return x.astype(helper.tensor_dtype_to_np_dtype(_attr(node, "to")))
    if op == "Concat":
        if any(a is None for a in args):
            return None
        return np.concatenate(args, axis=_attr(node, "axis", 0))  # type: ignore[arg-type]
    if op in ("Unsqueeze", "Squeeze"):
        axes = _attr(node, "axes") if len(args) < 2 else args[1]
        if axes is None:
            return np.squeeze(x) if op == "Squeeze" else None
        axes = [int(a) for a in np.asarray(axes).ravel()]
        if op == "Squeeze":
            return np.squeeze(x, axis=tuple(axes))
        out = x
        rank = x.ndim + len(axes)
        for a in sorted(a % rank for a in axes):
            out = np.expand_dims(out, a)
        return out
    if op == "Reshape":
        shape = args[1] if len(args) > 1 else None
        if shape is None:
            return None
        shape = [int(s) if s != 0 else x.shape[i] for i, s in enumerate(shape)]
        return x.reshape(shape)
    if op == "Transpose":
        return np.transpose(x, _attr(node, "perm"))
    if op == "ConstantOfShape":
        value = _attr(node, "value")
        fill = numpy_helper.to_array(value) if value is not None else np.zeros(1, np.float32)
        return np.full([int(s) for s in x], fill.ravel()[0], dtype=fill.dtype)
    if op == "Slice":
        starts, ends = args[1], args[2]
        if starts is None or ends is None:
            return None
        axes = args[3] if len(args) > 3 and args[3] is not None else range(len(starts))
        steps = args[4] if len(args) > 4 and args[4] is not None else [1] * len(starts)
        index = [slice(None)] * x.ndim
        for s, e, a, st in zip(starts, ends, axes, steps):
            index[int(a)] = slice(int(s), int(e), int(st))
        return x[tuple(index)]
    return None


def _walk(graph: onnx.GraphProto, prefix: str = "") -> Iterator[tuple[onnx.NodeProto, str]]:
    """(node, display name) for the graph and every subgraph, in file order."""
    for index, node in enumerate(graph.node):
        name = node.name or f"{prefix}{node.op_type}#{index}"
        yield node, name
        for attr in node.attribute:
            subs = [attr.g] if attr.HasField("g") else list(attr.graphs)
            for sub in subs:
                yield from _walk(sub, f"{name}/{attr.name}/")


def _all_graphs(graph: onnx.GraphProto) -> Iterator[onnx.GraphProto]:
    yield graph
    for node in graph.node:
        for attr in node.attribute:
            for sub in ([attr.g] if attr.HasField("g") else list(attr.graphs)):
                yield from _all_graphs(sub)


def _infer(model: onnx.ModelProto) -> onnx.ModelProto:
    """Shape-inferred copy of the model; the original when inference fails (it is best effort)."""
    try:
        return onnx.shape_inference.infer_shapes(model, check_type=False, strict_mode=False, data_prop=True)
    except Exception:
        return model


class _Checker:
    def __init__(self, model: onnx.ModelProto, version: Version, sources: Mapping[str, str] | None,
                 requested: Version | None = None) -> None:
        self.model = _infer(model)
        self.version = version
        #: The release the user named: the dated facts (versions.FACTS) fall between table columns.
        self.requested = requested or version
        self.label = support.resolve_target(version).label
        self.sources = dict(sources or {})
        self.graphs = _Graphs()
        for graph in _all_graphs(self.model.graph):
            self.graphs.add_graph(graph)
        self.functions = {(f.domain, f.name): f for f in self.model.functions}
        for function in self.model.functions:
            for node in function.node:
                for out in node.output:
                    self.graphs.producers.setdefault(out, node)
        self.issues: list[TrtIssue] = []
        engine_inputs = {i.name: i.type for i in self.model.graph.input
                         if i.name not in self.graphs.initializers and i.type.HasField("tensor_type")}
        self.shapes = ShapeFlow(self.graphs, engine_inputs)
        #: (node, input index) a check already reported as "must be constant": said once.
        self.const_reported: set[tuple[int, int]] = set()

    # -- reporting ---------------------------------------------------------------
    def report(self, node: onnx.NodeProto | None, name: str, op: str, reason: str,
               rule: str | None = None, severity: str = ERROR) -> None:
        source = None
        if node is not None:
            source = self.sources.get(node.name) if node.name else None
            source = source or node_source(node)
        self.issues.append(TrtIssue(op=op, node=name, reason=reason, source=source, rule=rule, severity=severity))

    def older_than(self, major: int, minor: int) -> bool:
        return self.requested < (major, minor)

    # -- driver ------------------------------------------------------------------
    def run(self) -> list[TrtIssue]:
        self.check_io_dtypes(self.model.graph)
        seen_functions: set[tuple[str, str]] = set()
        nodes = list(_walk(self.model.graph))
        index = 0
        while index < len(nodes):
            node, name = nodes[index]
            index += 1
            key = (node.domain, node.op_type)
            if key in self.functions:
                # A model-local function is inlined by the parser: check its body instead.
                if key not in seen_functions:
                    seen_functions.add(key)
                    nodes.extend((n, f"{node.op_type}/{n.name or n.op_type}") for n in self.functions[key].node)
                continue
            self.check_node(node, name)
        return self.issues

    def check_node(self, node: onnx.NodeProto, name: str) -> None:
        if node.domain == _ATEN_DOMAIN or node.op_type == "ATen":
            self.check_aten(node, name)
            return
        if node.domain not in _DEFAULT_DOMAINS:
            self.report(node, name, _op_label(node),
                        f"op {node.op_type!r} of custom domain {node.domain!r}: TensorRT parses it only "
                        "through a registered plugin of that name")
            return
        self.check_table(node, name)
        self.check_node_dtypes(node, name)
        specific = getattr(self, f"check_{node.op_type}", None)
        if specific is not None:
            specific(node, name)
        self.check_shape_inputs(node, name)

    # -- the support table -------------------------------------------------------
    def check_table(self, node: onnx.NodeProto, name: str) -> None:
        op = node.op_type
        row = support.lookup(op)
        if row is None:
            self.report(node, name, op, f"{op} is not in TensorRT's ONNX operator list; assume the parser rejects it")
            return
        if row.supported_in(self.version):
            self.check_before_table(node, name)
            return
        first = row.first_supported
        since = f" (supported from TensorRT {first[0]}.{first[1]})" if first else " (no TensorRT release parses it)"
        reason = f"{op} is not supported by the TensorRT {self.label} ONNX parser{since}"
        extra = {
            "NonZero": ": its output shape depends on the data (boolean-mask indexing or one-argument torch.where)",
            "Unique": ": its output size depends on the data",
        }.get(op, "")
        rule = self.nonzero_rule(node) if op == "NonZero" else RULES.get(op, (None,))[0]
        self.report(node, name, op, reason + extra, rule)

    def check_before_table(self, node: onnx.NodeProto, name: str) -> None:
        """Below the table's oldest release, the rules' version facts say what that parser refuses.

        The table starts at 8.4; a rule's ``needed_before`` (``Where`` before 8.4, ``Pad`` and
        one-operand ``Einsum`` before 8.2) is the one record of the older releases, so ``check``
        and the graph check agree at ``--target 8.0``.
        """
        oldest = support.listed_versions()[0]
        if self.requested >= oldest:
            return
        from trtcodemod.registry import rule_by_id  # the rules' metadata, only for such old targets

        for rule_id in RULES.get(node.op_type, ()):
            info = rule_by_id(rule_id)
            if info is not None and info.needed_before is not None and self.requested < info.needed_before <= oldest:
                before = ".".join(str(part) for part in info.needed_before)
                self.report(node, name, node.op_type, f"{node.op_type}: TensorRT before {before} does not parse it "
                            f"as exported here ({rule_id}: {info.summary})", rule_id)
                return

    # -- dtypes ------------------------------------------------------------------
    def check_io_dtypes(self, graph: onnx.GraphProto) -> None:
        for kind, infos in (("graph input", graph.input), ("graph output", graph.output)):
            for info in infos:
                if info.name in self.graphs.initializers:
                    continue  # old-style models list initializers as inputs
                code = info.type.tensor_type.elem_type
                dtype = _BAD_DTYPES.get(code)
                if dtype:
                    severity = WARNING if dtype == "uint8" else ERROR
                    hint = _DTYPE_HINT.get(dtype, "use a dtype TensorRT supports")
                    self.report(None, info.name, kind.replace(" ", "-"),
                                f"{kind} {info.name!r} is {dtype}, which TensorRT does not support as a "
                                f"network tensor{' (only around a Cast at the boundary)' if dtype == 'uint8' else ''}; {hint}",
                                severity=severity)
        for init in graph.initializer:
            dtype = _BAD_DTYPES.get(init.data_type)
            if dtype and self.graphs.consumers.get(init.name):
                self.report(None, init.name, "initializer",
                            f"initializer {init.name!r} is {dtype}; "
                            + ("the parser casts float64 weights down to float32 (values clamp, precision drops)"
                               if dtype == "float64" else "TensorRT does not support it"),
                            severity=WARNING if dtype == "float64" else ERROR)

    def _feeds_only_isinf(self, node: onnx.NodeProto) -> bool:
        """Every consumer of the Cast's output is an IsInf node."""
        consumers = [c for out in node.output if out for c in self.graphs.consumers.get(out, [])]
        return bool(consumers) and all(c.op_type == "IsInf" for c in consumers)

    def check_node_dtypes(self, node: onnx.NodeProto, name: str) -> None:
        """Report where an unsupported dtype enters the graph, not every node it flows through."""
        if node.op_type == "Cast":
            dtype = _BAD_DTYPES.get(_attr(node, "to", 0))
            if dtype == "float64" and self._feeds_only_isinf(node):
                # The TorchScript exporter's isinf (and isfinite, nan_to_num through it): TRT733's.
                self.report(node, name, "Cast", "casts to float64, which TensorRT does not support, for an IsInf: "
                            "the TorchScript exporter writes torch.isinf (also isfinite and nan_to_num) this way; "
                            "compare in the tensor's own dtype (`x.abs() == inf`) while exporting",
                            rule="TRT733", severity=ERROR)
            elif dtype:
                # uint8 exists in TensorRT only at the network boundary, next to a Cast.
                self.report(node, name, "Cast", f"casts to {dtype}, which TensorRT does not support"
                            f"{' inside the network' if dtype == 'uint8' else ''}; "
                            f"{_DTYPE_HINT.get(dtype, 'use a supported dtype')}",
                            rule=_DTYPE_RULES.get(dtype), severity=WARNING if dtype == "uint8" else ERROR)
            return
        inputs = {self.graphs.elem_type(i) for i in node.input if i}
        for out in node.output:
            code = self.graphs.elem_type(out) if out else None
            dtype = _BAD_DTYPES.get(code) if code else None
            if dtype and code not in inputs:
                if node.op_type == "Constant" and dtype == "float64":
                    # Constants are weights to the parser: downcast like float64 initializers.
                    self.report(node, name, "Constant", f"float64 constant ({out!r}); the parser casts it down "
                                "to float32 (values clamp, precision drops)", severity=WARNING)
                    return
                self.report(node, name, node.op_type,
                            f"produces a {dtype} tensor ({out!r}), which TensorRT does not support; "
                            f"{_DTYPE_HINT.get(dtype, 'use a supported dtype')}")
                return

    # -- ATen fallbacks ----------------------------------------------------------
    def check_aten(self, node: onnx.NodeProto, name: str) -> None:
        aten = _attr(node, "operator", node.op_type)
        rule = RULES.get(aten, (None,))[0]
        self.report(node, name, f"ATen::{aten}",
                    f"ATen fallback op {aten!r}: the exporter had no ONNX equivalent and TensorRT cannot parse it",
                    rule)

    # -- the constructs the table does not describe -------------------------------
    def check_If(self, node: onnx.NodeProto, name: str) -> None:
        then_g, else_g = _attr(node, "then_branch"), _attr(node, "else_branch")
        if then_g is None or else_g is None:
            return
        squeeze = _is_squeeze_if(then_g, else_g)
        rule = "TRT401" if squeeze else "TRT101"
        what = ("squeeze on a dynamic axis (the exporter checks the size at run time)" if squeeze
                else "a data-dependent branch (or a squeeze on a dynamic axis)")
        inside = _torch_function_of(node) if squeeze else None
        if inside is not None:
            rule = _SQUEEZING_TORCH_FUNCTIONS[inside]
            what = (f"squeeze inside torch's `F.{inside}` (the exporter checks the size of its pooled axis at run "
                    f"time; the squeeze is torch's, not your code's)")
        for i, (a, b) in enumerate(zip(then_g.output, else_g.output)):
            ra, rb = self.branch_rank(then_g, a), self.branch_rank(else_g, b)
            if ra is not None and rb is not None and ra != rb:
                self.report(node, name, "If",
                            f"{what}: output {i} has rank {ra} in the then-branch and {rb} in the else-branch; "
                            "TensorRT needs both branches to give the same rank", rule)
                return
            if a.name == b.name:
                self.report(node, name, "If",
                            f"{what}: both branches return the same tensor {a.name!r}; TensorRT needs distinct names",
                            rule)
                return
        self.report(node, name, "If",
                    f"{what}: TensorRT builds a conditional layer; it is slow and breaks on rank or shape "
                    "mismatches between branches", rule, WARNING)

    def branch_rank(self, branch: onnx.GraphProto, out: onnx.ValueInfoProto) -> int | None:
        if out.type.tensor_type.HasField("shape"):
            return len(out.type.tensor_type.shape.dim)
        return self.graphs.rank(out.name)

    def check_Loop(self, node: onnx.NodeProto, name: str) -> None:
        body = _attr(node, "body")
        trip = node.input[0] if node.input else ""
        fixed = self.graphs.is_const(trip)
        cond_out = body.output[0].name if body is not None and body.output else ""
        producer = next((n for n in body.node if cond_out in n.output), None) if body is not None else None
        stops_on_data = producer is not None and producer.op_type not in ("Identity", "Constant")
        if fixed and not stops_on_data:
            return
        carried = max(len(node.input) - 2, 0)
        scans = len(body.output) - 1 - carried if body is not None else 0
        why = "its trip count is computed from data" if not fixed else "it stops on a data-dependent condition"
        if scans > 0:
            self.report(node, name, "Loop",
                        f"loop with a data-dependent iteration count ({why}) and {scans} scan output(s): "
                        "TensorRT needs scan outputs of a fixed length")
        else:
            self.report(node, name, "Loop",
                        f"loop with a data-dependent iteration count ({why}): TensorRT runs it sequentially; "
                        "vectorize it if iterations are independent", severity=WARNING)

    def nonzero_rule(self, node: onnx.NodeProto) -> str:
        """TRT201 when the positions index another tensor (mask indexing), else TRT103 (torch.where(c)).

        The positions reaching a Gather as its *data* (``torch.where(c)[0]`` picks a row of
        them) is the one-argument where; reaching one as its *indices* is ``t[mask]``.
        """
        frontier, seen = list(node.output), set()
        for _ in range(6):  # dynamo puts Transpose, Squeeze, Expand... between them
            nxt = []
            for tensor in frontier:
                for consumer in self.graphs.consumers.get(tensor, []):
                    if consumer.op_type in ("GatherND", "Gather", "ScatterND"):
                        return "TRT103" if consumer.input and consumer.input[0] == tensor else "TRT201"
                    if id(consumer) not in seen:
                        seen.add(id(consumer))
                        nxt.extend(consumer.output)
            frontier = nxt
        return "TRT103"

    def check_NonZero(self, node: onnx.NodeProto, name: str) -> None:
        if not support.lookup("NonZero").supported_in(self.version):  # type: ignore[union-attr]
            return  # already reported by the table check
        self.report(node, name, "NonZero",
                    "output shape depends on the data: TensorRT builds it, but every shape downstream is "
                    "only known at run time (slow, and shape-tensor ops may fail)",
                    self.nonzero_rule(node), WARNING)

    def check_Resize(self, node: onnx.NodeProto, name: str) -> None:
        problems = []
        mode = _attr(node, "mode", "nearest")
        if mode not in ("nearest", "linear"):
            problems.append(f"mode {mode!r} (only nearest and linear)")
        if _attr(node, "antialias", 0):
            problems.append("antialias")
        coord = _attr(node, "coordinate_transformation_mode", "half_pixel")
        if coord not in _RESIZE_COORD_MODES:
            problems.append(f"coordinate_transformation_mode {coord!r}")
        if mode == "nearest" and _attr(node, "nearest_mode", "round_prefer_floor") not in _RESIZE_NEAREST_MODES:
            problems.append(f"nearest_mode {_attr(node, 'nearest_mode')!r}")
        policy = _attr(node, "keep_aspect_ratio_policy", "stretch")
        if policy != "stretch":
            problems.append(f"keep_aspect_ratio_policy {policy!r}")
        if problems:
            rule = None
            if _attr(node, "antialias", 0):
                rule = "TRT725"  # antialiased weight matrices replace it
            elif mode == "cubic" and len(problems) == 1:
                rule = "TRT727"  # bicubic weight matrices replace it
            self.report(node, name, "Resize", "TensorRT's Resize does not support " + ", ".join(problems)
                        + "; use bilinear or nearest interpolation without antialiasing", rule)

    def check_EyeLike(self, node: onnx.NodeProto, name: str) -> None:
        # TensorRT's parser builds EyeLike only from an input of static dimensions; torch.eye(n)
        # exports as EyeLike(ConstantOfShape(n, m)), whose dimensions are n's: static only when
        # that shape folds to a constant.
        source = self.graphs.producers.get(node.input[0]) if node.input else None
        if source is not None and source.op_type == "ConstantOfShape" and not self.graphs.is_const(source.input[0]):
            # torch.diagonal exports as its input times an EyeLike of that input's sizes (transposed
            # for other dimensions), summed: TRT320's; torch.eye's (any other EyeLike) is TRT310's.
            diagonal = self._diagonal_product(node, source)
            self.report(node, name, "EyeLike", "its input's dimensions are computed at run time; TensorRT builds "
                        "EyeLike only from an input of static dimensions"
                        + (" (its input times an identity, summed: how `torch.diagonal` exports)" if diagonal else ""),
                        "TRT320" if diagonal else "TRT310")

    def _diagonal_product(self, eye: onnx.NodeProto, shape_of: onnx.NodeProto) -> bool:
        """``eye`` (EyeLike of ``shape_of``, a ConstantOfShape) looks like ``torch.diagonal``'s: times
        the tensor whose sizes the ConstantOfShape takes (transposed for other dimensions), summed."""
        sized = set()  # the tensors whose Shape feeds the ConstantOfShape (a few nodes up)
        frontier, seen = [shape_of.input[0]], set()
        while frontier and len(seen) < 16:
            producer = self.graphs.producers.get(frontier.pop())
            if producer is None or id(producer) in seen:
                continue
            seen.add(id(producer))
            if producer.op_type == "Shape":
                sized.add(producer.input[0])
            else:
                frontier.extend(producer.input)

        def of_sized(tensor: str) -> bool:
            producer = self.graphs.producers.get(tensor)
            return tensor in sized or (producer is not None and producer.op_type == "Transpose"
                                        and producer.input[0] in sized)

        return any(mul.op_type == "Mul" and all(of_sized(t) for t in mul.input if t != eye.output[0])
                   and any(c.op_type == "ReduceSum" for c in self.graphs.consumers.get(mul.output[0], []))
                   for mul in self.graphs.consumers.get(eye.output[0], []))

    def check_Pad(self, node: onnx.NodeProto, name: str) -> None:
        self._needs_const_input(node, name, 3, "axes", "TRT502", "pad_tensor_axes")
        mode = _attr(node, "mode", "constant")
        old = self.older_than(8, 6)  # older parsers pad with zeros in constant mode only
        value_name = node.input[2] if len(node.input) > 2 else ""
        value = self.graphs.const(value_name) if value_name else np.zeros(1)
        if mode != "constant" and old:
            self.report(node, name, "Pad", f"{mode!r} padding is not supported by TensorRT {self.label} "
                        "(constant padding only)", "TRT502")
        elif value is None and old:
            self.report(node, name, "Pad", "pad value is computed at run time; TensorRT "
                        f"{self.label} needs a constant", "TRT502")
        elif value is not None and np.any(value != 0) and old:
            self.report(node, name, "Pad", f"non-zero pad value {value.ravel()[0]!r} is not supported by TensorRT "
                        f"{self.label}", "TRT502")
        elif len(node.input) > 1 and node.input[1] not in self.graphs.initializers \
                and getattr(self.graphs.producers.get(node.input[1]), "op_type", "") != "Constant":
            # torch's TorchScript F.pad builds pads through a Slice chain the exporter fails to fold.
            folded = self.graphs.const(node.input[1]) is not None
            how = "a chain of constant ops the exporter did not fold" if folded else "values computed at run time"
            rule = "TRT501" if mode == "constant" and value is not None and not np.any(value != 0) else "TRT502"
            self.const_reported.add((id(node), 1))
            self.report(node, name, "Pad", f"pads come from {how}, not a constant; TensorRT falls back to "
                        "dynamic slicing (rewrite the padding as a concatenation)", rule, WARNING)

    def check_shape_inputs(self, node: onnx.NodeProto, name: str) -> None:
        """An execution tensor (computed from device values) where TensorRT needs a shape tensor."""
        for index, role in shape_inputs(node).items():
            if (id(node), index) in self.const_reported:
                continue
            origin = self.shapes.execution_source(node.input[index])
            if origin is None:
                continue
            self.report(node, name, node.op_type, self._shape_reason(node, role, origin),
                        _SHAPE_RULES.get(node.op_type),
                        ERROR if self.older_than(*since("data_dependent_shapes")) else WARNING)
            return  # one issue a node: the first input says it

    def _shape_reason(self, node: onnx.NodeProto, role: str, origin: Any) -> str:
        if origin.node is not None:
            where = node_source(origin.node)
            made = f"`{origin.node.op_type}`{f' at {where}' if where else ''}"
            made += f" from graph input {origin.graph_input!r}" if origin.graph_input else ""
        else:
            made = f"graph input {origin.graph_input!r}"
        head = (f"{role} of {node.op_type} is an execution tensor (device values, computed by {made}); TensorRT "
                "needs it as a shape tensor (host values computed from shapes and constants)")
        first = format_version(since("data_dependent_shapes"))
        if self.older_than(*since("data_dependent_shapes")):
            how = (f"TensorRT {format_version(self.requested)} cannot build it (data-dependent shapes arrive in "
                   f"{first})")
        else:
            how = (f"TensorRT {format_version(self.requested)} builds it as a data-dependent shape: the engine "
                   "stops to copy the value to the host and sizes everything after it at run time")
        return f"{head}; {how}. {_SHAPE_HINTS.get(node.op_type, _SHAPE_HINT)}"

    def check_Einsum(self, node: onnx.NodeProto, name: str) -> None:
        if not self.older_than(*since("einsum_full")):
            return
        equation = str(_attr(node, "equation", "")).replace(" ", "")
        lhs = equation.split("->")[0]
        problems = []
        if "..." in equation:
            problems.append("ellipsis")
        if any(len(set(term)) != len(term) for term in lhs.replace("...", "").split(",")):
            problems.append("a repeated index (diagonal)")
        if problems:
            self.report(node, name, "Einsum", f"equation {equation!r} uses {' and '.join(problems)}, which "
                        f"TensorRT {format_version(self.requested)} does not support in Einsum (supported from "
                        f"{format_version(since('einsum_full'))}); write it with matmul/transpose")

    def check_ScatterND(self, node: onnx.NodeProto, name: str) -> None:
        reduction = _attr(node, "reduction", "none")
        if reduction != "none":
            self.report(node, name, "ScatterND", f"reduction {reduction!r}: TensorRT only overwrites "
                        "(reduction 'none'); accumulate with index_add/scatter_add on a dense tensor instead")

    def check_TopK(self, node: onnx.NodeProto, name: str) -> None:
        if _attr(node, "sorted", 1) != 1:
            self.report(node, name, "TopK", "sorted=0: TensorRT's parser takes sorted=1 only (it always sorts); "
                        "ask for sorted=True where the order does not matter (TRT805)", "TRT805")
        k_name = node.input[1] if len(node.input) > 1 else ""
        k = self.graphs.const(k_name) if k_name else None
        if k_name and not self.graphs.is_const(k_name) and self.older_than(*since("topk_dynamic_k")):
            self.const_reported.add((id(node), 1))
            self.report(node, name, "TopK", f"K is computed at run time; TensorRT {self.label} needs a constant K",
                        "TRT803")
        elif k is not None and k.size and int(k.ravel()[0]) >= TOPK_K_LIMIT:
            self.report(node, name, "TopK", f"K={int(k.ravel()[0])}: TensorRT's TopK takes K below {TOPK_K_LIMIT} "
                        "(take it in rounds: TRT804)", "TRT804")
        elif k is None and k_name:
            bound = _SizeBounds(self.graphs).upper(k_name)
            if bound is not None and bound >= TOPK_K_LIMIT:
                reach = "any size" if bound == np.inf else f"up to {int(bound)}"
                # A warning: the engine builds, and fails only for inputs (profile sizes) where K reaches it.
                self.report(node, name, "TopK", f"K is computed from sizes and reaches {reach} under the declared "
                            f"dynamic axes: TensorRT's TopK takes K below {TOPK_K_LIMIT}, so inputs where it gets "
                            "there fail (cap it below the limit, or take it in rounds: TRT803 for min(cap, size))",
                            "TRT803" if self._is_min(k_name) else None, WARNING)

    def _is_min(self, name: str) -> bool:
        for _ in range(4):  # through the casts and reshapes exporters put around K
            node = self.graphs.producers.get(name)
            if node is None or not node.input:
                return False
            if node.op_type == "Min":
                return True
            name = node.input[0]
        return False

    def check_Unique(self, node: onnx.NodeProto, name: str) -> None:
        pass  # never parsed: the table check reports it with TRT302

    def _needs_const_input(self, node: onnx.NodeProto, name: str, index: int, what: str,
                           rule: str | None = None, fact: str | None = None) -> None:
        """Report input ``index`` computed at run time, unless the target parses that (``fact``)."""
        if fact is not None and not self.older_than(*since(fact)):
            return
        if len(node.input) > index and node.input[index] and not self.graphs.is_const(node.input[index]):
            self.const_reported.add((id(node), index))
            newer = f" (taken at run time from {format_version(since(fact))})" if fact else ""
            self.report(node, name, node.op_type,
                        f"{what} is computed at run time; TensorRT {format_version(self.requested)} needs it "
                        f"constant{newer}", rule)

    def check_Squeeze(self, node: onnx.NodeProto, name: str) -> None:
        self._needs_const_input(node, name, 1, "axes", "TRT401", "squeeze_dynamic_axes")
        if (len(node.input) > 1 and node.input[1]) or _attr(node, "axes") is not None or not node.input:
            return
        # No axes (`x.squeeze()`): TensorRT's importer squeezes the axes of size 1 in the shape it parses and asserts
        # that shape static ("Cannot infer squeeze dimensions from a dynamic shape!", onnx-tensorrt's importSqueeze).
        tp = self.graphs.types.get(node.input[0])
        dims = tp.tensor_type.shape.dim if tp is not None and tp.tensor_type.HasField("shape") else None
        if dims is not None and any(not d.HasField("dim_value") for d in dims):
            self.report(node, name, "Squeeze",
                        "Squeeze without axes of a tensor with a dynamic axis: TensorRT cannot tell which axes have "
                        "size 1 (`squeeze()` with no axis; name the axes it means)", "TRT403")

    def check_Unsqueeze(self, node: onnx.NodeProto, name: str) -> None:
        self._needs_const_input(node, name, 1, "axes", "TRT402", "squeeze_dynamic_axes")

    def check_CumSum(self, node: onnx.NodeProto, name: str) -> None:
        self._needs_const_input(node, name, 1, "axis", fact="cumsum_dynamic_axis")
        code = self.graphs.elem_type(node.input[0]) if node.input else None
        kind = _integer_or_bool(code)
        if kind is not None:
            self.report(node, name, "CumSum", f"a CumSum of {kind}: TensorRT's CumSum takes FP32/FP16/BF16 only "
                        "(sum in float32 and cast back while exporting)", "TRT334")

    def check_Slice(self, node: onnx.NodeProto, name: str) -> None:
        self._needs_const_input(node, name, 3, "axes", fact="slice_tensor_axes")

    def check_OneHot(self, node: onnx.NodeProto, name: str) -> None:
        self._needs_const_input(node, name, 1, "depth")

    def check_MaxPool(self, node: onnx.NodeProto, name: str) -> None:
        self._check_pool(node, name)
        if len(node.output) > 1 and node.output[1] and self.graphs.consumers.get(node.output[1]):
            # TRT340 computes the indices while exporting (2-D max pooling built or called with return_indices)
            self.report(node, name, "MaxPool", "the Indices output is used; TensorRT's MaxPool does not produce it",
                        rule="TRT340")

    def check_AveragePool(self, node: onnx.NodeProto, name: str) -> None:
        self._check_pool(node, name)

    def check_LpPool(self, node: onnx.NodeProto, name: str) -> None:
        if any(d != 1 for d in _attr(node, "dilations", []) or []):
            self.report(node, name, node.op_type, "dilated pooling is not supported by TensorRT")

    def _check_pool(self, node: onnx.NodeProto, name: str) -> None:
        kernel = _attr(node, "kernel_shape", []) or []
        if len(kernel) not in (2, 3):
            self.report(node, name, node.op_type, f"{len(kernel)}-D pooling: TensorRT pools 2-D or 3-D windows only",
                        "TRT603" if len(kernel) == 1 else None)
        elif node.input and self.graphs.rank(node.input[0]) == len(kernel) + 1:
            # torch's pooling of an unbatched input, written with attributes for a batched one: ONNX Runtime refuses
            # it at load ("Attribute dilations has incorrect size"); TRT325 pools a batch of one while exporting.
            self.report(node, name, node.op_type, f"{len(kernel)}-D pooling of a rank-{len(kernel) + 1} input: the "
                        "pooling needs a batch axis", "TRT325")
        self.check_LpPool(node, name)

    def check_Dropout(self, node: onnx.NodeProto, name: str) -> None:
        if len(node.input) > 2 and node.input[2]:
            value = self.graphs.const(node.input[2])
            if value is None or bool(np.any(value)):
                self.report(node, name, "Dropout", "training_mode must be a constant False for TensorRT")

    def check_LayerNormalization(self, node: onnx.NodeProto, name: str) -> None:
        if any(o and self.graphs.consumers.get(o) for o in node.output[1:]):
            self.report(node, name, "LayerNormalization", "Mean/InvStdDev outputs are used; TensorRT only gives Y")

    def check_LSTM(self, node: onnx.NodeProto, name: str) -> None:
        if _attr(node, "layout", 0) != 0:
            self.report(node, name, "LSTM", "layout=1 (batch first) is not supported by TensorRT")
        if _attr(node, "input_forget", 0) != 0:
            self.report(node, name, "LSTM", "input_forget=1 is not supported by TensorRT")
        self._check_rnn_activations(node, name)

    def check_GRU(self, node: onnx.NodeProto, name: str) -> None:
        self._check_rnn_activations(node, name)

    def check_RNN(self, node: onnx.NodeProto, name: str) -> None:
        self._check_rnn_activations(node, name)

    def _check_rnn_activations(self, node: onnx.NodeProto, name: str) -> None:
        acts = [a.decode() if isinstance(a, bytes) else a for a in (_attr(node, "activations", []) or [])]
        if _attr(node, "direction", "forward") == "bidirectional" and acts:
            half = len(acts) // 2
            if acts[:half] != acts[half:]:
                self.report(node, name, node.op_type, "bidirectional with different activations per direction; "
                            "TensorRT needs the same ones")

    def check_GridSample(self, node: onnx.NodeProto, name: str) -> None:
        rank = self.graphs.rank(node.input[0]) if node.input else None
        ranks = (4,) if self.older_than(*since("gridsample_3d")) else (4, 5)
        if rank is not None and rank not in ranks:
            what = " and 5-D" if 5 in ranks else f" only (5-D from {format_version(since('gridsample_3d'))})"
            self.report(node, name, "GridSample", f"{rank}-D input: TensorRT {format_version(self.requested)}'s GridSample takes "
                        f"4-D{what} input")

    def check_Constant(self, node: onnx.NodeProto, name: str) -> None:
        for attr in node.attribute:
            if attr.name in ("sparse_value", "value_string", "value_strings"):
                self.report(node, name, "Constant", f"{attr.name} constants are not supported by TensorRT")

    def check_QuantizeLinear(self, node: onnx.NodeProto, name: str) -> None:
        self._zero_point(node, name)

    def check_DequantizeLinear(self, node: onnx.NodeProto, name: str) -> None:
        self._zero_point(node, name)

    def _zero_point(self, node: onnx.NodeProto, name: str) -> None:
        if len(node.input) > 2 and node.input[2]:
            value = self.graphs.const(node.input[2])
            if value is not None and np.any(value != 0):
                self.report(node, name, node.op_type, "non-zero zero point: TensorRT quantizes symmetrically only")


for _op in _REDUCE_OPS:
    # opset 18 moved axes from an attribute to an input; TensorRT needs it constant.
    setattr(_Checker, f"check_{_op}",
            lambda self, node, name: self._needs_const_input(node, name, 1, "axes"))


class _SizeBounds:
    """The largest value a tensor computed from sizes can take under the declared dynamic axes.

    A dynamic axis (a ``dim_param`` or no value) can be any size, so it bounds nothing; a
    static one and constants are exact. ``upper`` gives ``inf`` for "any size", None where
    the computation is not one of sizes and constants.
    """

    _PASS = {"Cast", "Identity", "Unsqueeze", "Squeeze", "Reshape", "Flatten", "Expand"}

    def __init__(self, graphs: _Graphs) -> None:
        self.graphs = graphs

    def upper(self, name: str, depth: int = 0) -> float | None:
        values = self.values(name, depth)
        return None if values is None or not values.size else float(values.max())

    def values(self, name: str, depth: int = 0) -> np.ndarray | None:
        """Elementwise upper bounds of ``name`` (float; ``inf`` where unbounded)."""
        const = self.graphs.const(name)
        if const is not None:
            return np.asarray(const, dtype=np.float64).ravel()
        node = self.graphs.producers.get(name)
        if node is None or depth > 12 or node.domain not in _DEFAULT_DOMAINS:
            return None
        op = node.op_type
        if op == "Shape":
            return self._shape(node)
        args = [self.values(i, depth + 1) if i else None for i in node.input]
        if op in self._PASS:
            return args[0] if args else None
        if op == "Gather" and args[0] is not None:
            index = self.graphs.const(node.input[1]) if len(node.input) > 1 else None
            return None if index is None else args[0][np.asarray(index, dtype=np.int64).ravel()]
        if op == "Slice" and args[0] is not None:
            return self._slice(node, args[0])
        if op == "Concat" and all(a is not None for a in args):
            return np.concatenate(args)  # type: ignore[arg-type]
        if op in ("Min", "Max", "Add", "Mul") and all(a is not None for a in args):
            combine = {"Min": np.minimum, "Max": np.maximum, "Add": np.add, "Mul": np.multiply}[op]
            out = args[0]
            for other in args[1:]:
                out = combine(out, other)  # type: ignore[operator]
            return out
        if op in ("Div", "Sub") and len(args) == 2 and args[0] is not None:
            # Sizes are non-negative: x / c and x - c (c >= 0 constant) are at most x.
            divisor = self.graphs.const(node.input[1])
            if divisor is not None and np.all(np.asarray(divisor) >= (1 if op == "Div" else 0)):
                return args[0] if op == "Sub" else args[0] / np.asarray(divisor, dtype=np.float64).ravel()
        return None

    def _shape(self, node: onnx.NodeProto) -> np.ndarray | None:
        tp = self.graphs.types.get(node.input[0])
        if tp is None or not tp.tensor_type.HasField("shape"):
            return None
        dims = [float(d.dim_value) if d.HasField("dim_value") else np.inf for d in tp.tensor_type.shape.dim]
        start, end = _attr(node, "start", 0), _attr(node, "end", None)
        return np.array(dims[start:end] if end is not None else dims[start:], dtype=np.float64)

    def _slice(self, node: onnx.NodeProto, data: np.ndarray) -> np.ndarray | None:
        inputs = [*node.input, "", "", "", ""]
        starts, ends = self.graphs.const(inputs[1]), self.graphs.const(inputs[2])
        steps = self.graphs.const(inputs[4]) if inputs[4] else np.ones(1)
        if starts is None or ends is None or steps is None or np.any(np.asarray(steps) != 1):
            return None
        return data[int(np.ravel(starts)[0]):int(np.ravel(ends)[0])]


#: torch functions that squeeze an axis the TorchScript exporter cannot prove to be 1, so that
#: the squeeze exports as an ``If``: the function's name -> the rule that rewrites its calls.
_SQUEEZING_TORCH_FUNCTIONS = {"local_response_norm": "TRT405"}


def _torch_function_of(node: onnx.NodeProto) -> str | None:
    """The torch function of :data:`_SQUEEZING_TORCH_FUNCTIONS` that made ``node`` (a frame of
    ``torch/nn/functional.py`` on its stack, inside the user's innermost frame), or None. An
    ``nn.LocalResponseNorm`` that forward calls goes through ``F.local_response_norm`` too."""
    for frame in node_frames(node):
        if is_user_frame(frame):
            return None
        parts = frame.file.replace("\\", "/").split("/")
        if (frame.func in _SQUEEZING_TORCH_FUNCTIONS and is_framework_frame(frame)
                and parts[-3:] == ["torch", "nn", "functional.py"]):
            return frame.func
    return None


def _is_squeeze_if(then_g: onnx.GraphProto, else_g: onnx.GraphProto) -> bool:
    """The TorchScript exporter's squeeze on a dynamic axis: Squeeze in one branch, Identity in the other."""
    def ops(g: onnx.GraphProto) -> set[str]:
        return {n.op_type for n in g.node} - {"Constant"}
    pair = (ops(then_g), ops(else_g))
    return pair in (({"Squeeze"}, {"Identity"}), ({"Identity"}, {"Squeeze"}))


def check_graph(model: onnx.ModelProto, target: str | tuple[int, int] = "8.6", *,
                sources: Mapping[str, str] | None = None) -> list[TrtIssue]:
    """Every reason TensorRT ``target`` may reject or mishandle ``model``, in graph order.

    ``sources`` (node name -> ``file:line``, from ``source_map.record_sources``) fills in
    source lines for graphs whose stacks a clean-up pass has dropped.
    """
    resolved = support.resolve_target(target)
    return _Checker(model, resolved.version, sources, resolved.requested).run()
