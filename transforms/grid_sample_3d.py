"""``F.grid_sample`` of a volume → ``_trt_grid_sample(...)`` (TRT313): sampled by gathers while exporting.

The TorchScript exporter refuses ``F.grid_sample`` on a 5-D input and TensorRT parses ONNX
``GridSample`` on 4-D inputs only. The inserted helper (``trtcodemod/helpers/sampling.py``)
takes the same arguments; it is ``F.grid_sample`` itself outside an export and on other ranks,
and, while exporting a volume, the kernel's trilinear (or nearest) sum written with gathers. The
rank is a run-time fact: the rule reports a call where a recorded run (``migrate``, ``--facts``)
saw its input with five dimensions, or where the grid is written as a permutation of five axes.
"""

from __future__ import annotations

import libcst as cst

from trtcodemod.astutil import argument, int_value, int_values, method_call, short_code
from trtcodemod.providers import ObservedFacts
from trtcodemod.rules import Example, Fix, Rule, RuleInfo, Safety
from trtcodemod.transforms._op_calls import in_inserted_helper

HELPER = "_trt_grid_sample"


class GridSample3d(Rule):
    needs_text = (b"grid_sample",)
    requires = (ObservedFacts,)
    info = RuleInfo(
        id="TRT313",
        name="grid-sample-3d",
        summary="`F.grid_sample` of a 5-D volume does not export (TorchScript) and TensorRT's GridSample is 4-D "
                "only; sample by gathers",
        doc="""\
What it finds: `torch.nn.functional.grid_sample(input, grid, ...)` calls (through the file's
imports) whose `input` or `grid` a recorded run (`migrate`, or `check --facts`) saw with five
dimensions (the grid has the input's rank), a volume `(N, C, D, H, W)` sampled at a grid `(N, D', H', W', 3)`, as registration
networks warp a moving image by a displacement field (monai's `Warp`) and 3-D spatial
transformers do. Without such a record, a call whose grid is written as a permutation of five
axes (`flow.permute(0, 2, 3, 4, 1)`: a volume's field with its vectors moved last) is reported
too; any other is left alone, its rank unknown (a 4-D `grid_sample` exports, and TensorRT parses
it from 8.5: TRT706 covers older targets).

Why it hurts: the TorchScript exporter stops with `Unsupported: ONNX export of operator
GridSample with 5D volumetric input`, and TensorRT's ONNX parser takes `GridSample` on 4-D
inputs only, so there is no engine either way.

The rewrite: `F.grid_sample(...)` → `_trt_grid_sample(...)` with the same arguments, an inserted
helper that is `F.grid_sample` itself in eager mode, under `torch.jit.script`, `torch.fx`,
`torch.compile` and `torch.export`, and for any input that is not 5-D. While `torch.onnx.export`
runs on a volume with `mode="bilinear"` or `"nearest"` and `padding_mode="zeros"`, `"border"`
or `"reflection"`, it computes what PyTorch's kernel computes: each grid point unnormalized to a
voxel position (`align_corners` as given; clamped into the volume for `"border"`; for
`"reflection"` folded back and forth over the volume's extent, `fmod` and `floor` as the kernel's
`reflect_coordinates`, then clamped, a NaN to the far edge as the kernel's clamp puts it), its eight
neighbours gathered from the flattened volume with their trilinear weights and summed in the
kernel's order (or the nearest voxel, rounding half to even), a neighbour outside the volume
adding nothing. The graph holds `Floor`, `GatherElements`, `Where` and arithmetic, which every
TensorRT release parses.

Fix safety: safe. Outside an ONNX export nothing changes. While exporting, the result has the
kernel's values (the same products summed in the same order: equal in float64 in the tests),
shape and dtype; infinities in the volume stay where the kernel puts them (a neighbour outside
the volume is skipped, never multiplied by 0); the helper calls `F.grid_sample` first and drops
the result, so an input it refuses raises its own error (`"reflection"` equal bit for bit too,
infinite and NaN grid points included, in float32 and float64). `mode="bicubic"` and integer
inputs keep `F.grid_sample` (and its export failure).
A NaN grid coordinate adds nothing in the export's form; with `padding_mode="border"` the
kernel may clamp it to the volume's edge instead. In the TorchScript exporter's graph ONNX
Runtime folds the volume's reshape into a shape with -1, which it cannot resolve for an empty
batch: that graph runs on every batch but an empty one (the original has no TorchScript graph at
all). The dynamo exporter writes the original as a 5-D `GridSample`, which ONNX Runtime runs and
TensorRT does not parse; the rewritten graph runs there on every batch, an empty one included.""",
        fix=Safety.SAFE,
        examples=(
            Example(
                "class Warp(nn.Module):\n"
                "    def forward(self, image, flow):\n"
                "        return F.grid_sample(image, flow.permute(0, 2, 3, 4, 1), align_corners=True)\n",
                "class Warp(nn.Module):\n"
                "    def forward(self, image, flow):\n"
                "        return _trt_grid_sample(image, flow.permute(0, 2, 3, 4, 1), align_corners=True)\n",
            ),
        ),
        references=(
            "https://pytorch.org/docs/stable/generated/torch.nn.functional.grid_sample.html",
            "https://onnx.ai/onnx/operators/onnx__GatherElements.html",
            "https://github.com/onnx/onnx-tensorrt/blob/main/docs/operators.md",
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._observed: ObservedFacts = self.provider(ObservedFacts)

    def visit_Call(self, node: cst.Call) -> None:
        if in_inserted_helper(self) or not self.context.refers_to(node.func, "torch.nn.functional.grid_sample"):
            return
        volume, grid = argument(node, 0, "input"), argument(node, 1, "grid")
        if volume is None or grid is None:
            return
        # The grid has the input's rank (grid_sample refuses any other): either one seen 5-D says it (lucidrains'
        # DeformableAttention3D samples `group(x)`, a call whose value the run records no shape for).
        seen = self._observed.known and any(len(shape) == 5 for shape in (
            *self._observed.shapes(volume.value), *self._observed.shapes(grid.value)))
        if not seen and not _volume_grid(grid.value):
            return
        # The helper takes grid_sample's parameters by the same names and in the same order.
        self.report(node, f"`{short_code(node)}` samples a 5-D volume: the TorchScript exporter refuses it and "
                          f"TensorRT's GridSample is 4-D only; `{HELPER}` gathers the voxels while exporting",
                    Fix({node: node.with_changes(func=cst.Name(HELPER))}, helpers=(HELPER,)))


def _volume_grid(grid: cst.BaseExpression) -> bool:
    """The grid is written as a permutation of five axes (``flow.permute(0, 2, 3, 4, 1)``): a
    displacement field of a volume moved to the last axis, so the input is 5-D."""
    parts = method_call(grid) if type(grid) is cst.Call else None
    if parts is None or parts[1] != "permute":
        return False
    values = int_values(grid.args[0].value) if len(grid.args) == 1 else \
        [int_value(a.value) for a in grid.args]  # type: ignore[attr-defined]
    return values is not None and len(values) == 5 and None not in values


RULES = (GridSample3d,)
