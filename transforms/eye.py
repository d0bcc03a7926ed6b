"""``torch.eye`` (TRT310): an EyeLike TensorRT builds only from a static shape, and ONNX Runtime
not at all for booleans; a comparison of two ranges.

The rewrite calls an inserted helper (``trtcodemod/helpers/eye.py``) that is ``torch.eye`` outside
an export and, while exporting, ``arange(n)[:, None] == arange(m)[None, :]`` in the dtype
``torch.eye`` gives.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, has_star_args
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper

HELPER = "_trt_eye"
_KEYWORDS = {"n", "m", "dtype", "device"}


class Eye(Rule):
    needs_text = (b"eye(",)
    info = RuleInfo(
        id="TRT310",
        name="eye",
        summary="`torch.eye` of a run-time size or of booleans exports as an EyeLike TensorRT cannot build from a "
                "dynamic shape (and ONNX Runtime not for bool); compare two ranges",
        doc="""\
What it finds: `torch.eye(n)` / `torch.eye(n, m)` whose size is not an integer literal (a
length taken from an input, a name) or whose `dtype` is `torch.bool`. A call with other
arguments (`out=`, `requires_grad=`, `layout=`) or unpacked ones is reported without a fix.

Why it hurts: the TorchScript exporter writes `torch.eye(n)` as `EyeLike` of a
`ConstantOfShape(n, m)`. TensorRT's ONNX parser takes EyeLike only where that input has static
dimensions, so an `n` from a dynamic axis (a text length, a number of queries) gives a graph
TensorRT cannot build; and ONNX Runtime has no EyeLike kernel for booleans at all (`NOT_IMPLEMENTED
: Could not find an implementation for EyeLike(9)`), so a boolean identity cannot even be checked
there. transformers' Grounding DINO lets every text token attend to itself with
`torch.eye(seq_len, device=device, dtype=torch.bool)` (`modeling_grounding_dino.py:1851`).

The rewrite: `torch.eye(...)` → `_trt_eye(...)`, the same arguments. Outside `torch.onnx.export`
it is `torch.eye` itself. While exporting it is `arange(n)[:, None] == arange(m)[None, :]`, cast to
the dtype `torch.eye` would give (the default float type, or the one asked for): the same matrix,
as Range, Unsqueeze, Equal and Cast, all parsed by TensorRT and run by ONNX Runtime for any size.

Fix safety: safe. Eager, `torch.jit.script` (the helper's arguments are annotated), `torch.fx`,
`torch.compile` and `torch.export` run `torch.eye` itself; the exported values are exactly 0 and 1
(or False and True).

TensorRT versions: all.""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "def self_attention_mask(ids):\n"
                "    seq_len = ids.shape[1]\n"
                "    return torch.eye(seq_len, device=ids.device, dtype=torch.bool)\n",
                "def self_attention_mask(ids):\n"
                "    seq_len = ids.shape[1]\n"
                "    return _trt_eye(seq_len, device=ids.device, dtype=torch.bool)\n",
            ),
            Example("identity = torch.eye(n, requires_grad=True)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.eye.html",
            "https://onnx.ai/onnx/operators/onnx__EyeLike.html",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self) or not self.context.refers_to(node.func, "torch.eye"):
            return
        sizes = [a for a in (argument(node, 0, "n"), argument(node, 1, "m")) if a is not None]
        dtype = argument(node, None, "dtype")
        boolean = dtype is not None and self.context.refers_to(dtype.value, "torch.bool") is not None
        if not boolean and all(type(a.value) is cst.Integer for a in sizes):
            return  # a literal size and a type ONNX Runtime runs: a static EyeLike, which TensorRT builds
        why = ("an EyeLike of a boolean identity, which ONNX Runtime cannot run" if boolean else
               "an EyeLike of a size TensorRT needs static")
        message = f"`torch.eye` exports as {why}"
        others = [a for a in node.args if a.keyword is not None and a.keyword.value not in _KEYWORDS]
        if has_star_args(node) or not sizes or others or len([a for a in node.args if a.keyword is None]) > 2:
            self.report(node, f"{message}; compare two ranges instead (not rewritten: other arguments)")
            return
        self.report(node, f"{message}; compare two ranges while exporting (`torch.eye` otherwise)",
                    Fix({node: node.with_changes(func=cst.Name(HELPER))}, helpers=(HELPER,)))


RULES = (Eye,)
