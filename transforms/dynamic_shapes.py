"""Data-dependent output sizes: ``nonzero`` / ``masked_select`` / ``argwhere`` (TRT705).

Reported in run-time code (see :mod:`trtcodemod.transforms._runtime_scope`); detect only.
The one-argument ``torch.where(c)`` is the same operation and is TRT103's (``where``).
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.rules import Example, RuleInfo, Safety, spelled
from trtcodemod.transforms._runtime_scope import RuntimeScopeRule
from trtcodemod.versions import Version, format_version, since

_OPERATORS = "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md"


_NONZERO_FUNCS = ("torch.nonzero", "torch.masked_select", "torch.argwhere")
_NONZERO_SINCE: Version = since("data_dependent_shapes")


class NonZero(RuntimeScopeRule):
    needs_text = spelled(*_NONZERO_FUNCS)
    info = RuleInfo(
        id="TRT705",
        name="nonzero",
        summary="`nonzero` / `masked_select` / `argwhere`: the output size depends on the data",
        doc="""\
What it finds: `torch.nonzero(x)`, `x.nonzero()`, `torch.masked_select(x, m)`,
`x.masked_select(m)`, `torch.argwhere(x)` and `x.argwhere()` in run-time code. The
one-argument `torch.where(c)` is the same operation and is reported by TRT103.

Why it hurts: the number of selected elements depends on the values, so the output shape is
data-dependent. `nonzero` and `masked_select` export as ONNX `NonZero` (`masked_select` adds
a GatherND); TensorRT before 8.5 has no NonZero at all, and from 8.5 on it builds a
data-dependent shape: every later layer works on a size known only at run time, which
prevents shape-based optimisations and, with the output size unknown, complicates buffer
allocation. `torch.argwhere` does not export with the TorchScript exporter at all.

What to do: keep a fixed size. Use the mask as a multiplier (`scores * keep`), select a fixed
number of elements with `torch.topk(scores, k)` (padding with a score that sorts last), or
sort by the mask and keep a fixed-size prefix. Where the variable-size result is needed,
take it outside the engine, after the network.

Fix safety: none (detect only): the fixed-size alternatives change the output's shape, which
the code after it must expect.""",
        fix=Safety.NONE,
        examples=(
            Example("def keep_boxes(boxes, scores):\n    return boxes[torch.nonzero(scores > 0.3)[:, 0]]\n"),
            Example("def positives(logits):\n    return logits.masked_select(logits > 0)\n"),
            Example("def active(mask):\n    return mask.nonzero(as_tuple=True)\n"),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.nonzero.html",
            "https://pytorch.org/docs/stable/generated/torch.masked_select.html",
            _OPERATORS,
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        name = self.context.refers_to(node.func, *_NONZERO_FUNCS)
        if name is not None:
            name = name.rsplit(".", 1)[-1]
        else:
            name = self.tensor_method(node, "nonzero", "masked_select", "argwhere")
        if name is None:
            return
        if name == "argwhere":
            why = "`argwhere` does not export with the TorchScript exporter (no symbolic for aten::argwhere)"
        elif self.context.target < _NONZERO_SINCE:
            why = f"it exports as ONNX NonZero, which TensorRT {format_version(self.context.target)} lacks (added in 8.5)"
        else:
            why = "it exports as ONNX NonZero, whose output shape depends on the data"
        self.found(node, f"`{name}` selects a data-dependent number of elements: {why}; keep a fixed size "
                   "(mask multiply, top-k with a fixed k)")


RULES = (NonZero,)
