"""The tensor-split recipe (TRT306) on real-code variants.

Each variant in ``tests/recipe_variants/trt306/`` is a small runnable model reduced from a public
repository (cited in its docstring) that cuts a tensor with ``tensor_split`` at points written out
as a tuple or list. The TorchScript exporter writes ``tensor_split`` as a ``Loop`` filling an ONNX
sequence, read back with ``SequenceAt``: operators no TensorRT release parses. The rule rewrites the
file from the code alone (a safe fix); the rewritten model exports with both exporters without a
sequence operator, its graph equals eager mode at other sizes (points past the end of the axis,
empty axes) and on edge values (zeros, negatives, inf/NaN), and eager mode is unchanged bit for bit
(outputs, gradients, exceptions). The forms a variant holds that the rule does not take (points in
an attribute, numbers of sections) stay as they were, reported.
"""

from __future__ import annotations

import re
from pathlib import Path

import onnx
import pytest
import torch
from variant_models import (assert_eager_unchanged, assert_graph_equals_eager, built_variant, export_variant,
                            export_variant_dynamo)

from trtcodemod.engine import Options, check_source, fix_source
from support import TESTS

HERE = TESTS / "recipe_variants" / "trt306"
SEQUENCE_OPS = {"SequenceEmpty", "SequenceInsert", "SequenceAt", "SequenceConstruct", "SplitToSequence",
                "ConcatFromSequence", "Loop"}


def _g(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


INF_NAN = [float("nan"), float("inf"), -float("inf"), -0.0, 0.0, 2.0]

# name → (rewritten fragments, calls left as they were, other input sets: sizes and edge values)
VARIANTS: dict[str, tuple[tuple[str, ...], tuple[str, ...], dict[str, tuple[torch.Tensor, ...]]]] = {
    "torchvision_mvit_pool": (("cls_token, x = _trt_tensor_split(x, [1], 2)",), (), {
        "smaller": (torch.randn(1, 8, 2, 3, 3, generator=_g(1)),),
        "larger": (torch.randn(3, 8, 4, 6, 2, generator=_g(2)),),
        "one-frame": (torch.randn(2, 8, 1, 1, 1, generator=_g(3)),),
        "zeros": (torch.zeros(2, 8, 3, 4, 5),),
        "negatives": (-torch.rand(2, 8, 2, 2, 2, generator=_g(4)) - 1,),
        "inf-nan": (torch.tensor(INF_NAN * 8).reshape(1, 8, 1, 2, 3),),
    }),
    "xlstm_fused_gates": ((
        "q, k, v, o_preact = _trt_tensor_split(\n            qkv_opreact,\n            [\n                self.qk_dim,\n"
        "                2 * self.qk_dim,\n                2 * self.qk_dim + self.v_dim\n            ],\n            -1,\n"
        "        )",
        "i_preact, f_preact = _trt_tensor_split(self.ifgate_preact(x), [self.num_heads], -1)",
        "gate, z = _trt_tensor_split(up, [self.up_proj_dim], -1)"), (), {
        "one-step": (torch.randn(1, 1, 8, generator=_g(1)),),
        "longer": (torch.randn(3, 9, 8, generator=_g(2)),),
        "zeros": (torch.zeros(2, 3, 8),),
        "negatives": (-torch.rand(2, 4, 8, generator=_g(3)) * 5,),
        "inf-nan": (torch.tensor(INF_NAN * 4).reshape(1, 3, 8),),
        "empty": (torch.zeros(2, 0, 8),),
    }),
    "unifiedml_cross_attention": (("k, v = _trt_tensor_split(self.to_kv(context), [self.dim], -1)",), (), {
        "one-each": (torch.randn(1, 1, 8, generator=_g(1)), torch.randn(1, 1, 6, generator=_g(2))),
        "longer": (torch.randn(3, 9, 8, generator=_g(3)), torch.randn(3, 2, 6, generator=_g(4))),
        "zeros": (torch.zeros(2, 4, 8), torch.zeros(2, 7, 6)),
        "negatives": (-torch.rand(2, 3, 8, generator=_g(5)), -torch.rand(2, 5, 6, generator=_g(6)) * 3),
        "inf-nan": (torch.tensor(INF_NAN * 4).reshape(1, 3, 8), torch.randn(1, 2, 6, generator=_g(7))),
        "one-key": (torch.randn(2, 5, 8, generator=_g(8)), torch.randn(2, 1, 6, generator=_g(9))),
    }),
    "move_split_output": (("discrete_x, continuous_x = _trt_tensor_split(\n            x, [self.num_discrete_features], -1\n"
                           "        )",),
                          ("torch.tensor_split(discrete_x, self.discrete_split_indices, dim=-1)",), {
        "one-row": (torch.randn(1, 10, generator=_g(1)),),
        "more-features": (torch.randn(4, 13, generator=_g(2)),),
        "point-past-the-end": (torch.randn(2, 4, generator=_g(3)),),
        "point-at-the-end": (torch.randn(2, 6, generator=_g(4)),),
        "zeros": (torch.zeros(3, 10),),
        "negatives": (-torch.rand(3, 10, generator=_g(5)) * 4,),
        "inf-nan": (torch.tensor(INF_NAN * 2).reshape(1, 12),),
        "no-rows": (torch.zeros(0, 10),),
        "no-features": (torch.zeros(2, 0),),
    }),
    "ncnn_pnnx_tensor_split": ((
        "parts = list(_trt_tensor_split(x, [12, 13]))", "parts += _trt_tensor_sections(y, 2, 0)",
        "parts += _trt_tensor_sections(y, 3, 1)", "parts += _trt_tensor_split(z, [3], 0)",
        "parts += _trt_tensor_split(z, [1], 1)", "parts += _trt_tensor_sections(z, 3, 2)",
        "parts += _trt_tensor_split(w, [2, 4], 0)", "parts += _trt_tensor_sections(w, 2, 1)",
        "parts += _trt_tensor_split(w, [1, 5], 2)", "parts += _trt_tensor_split(w, [1, 3, 7, 17], 3)"), (), {
        "points-past-the-end": (torch.rand(5, generator=_g(1)), torch.rand(1, 2, generator=_g(2)),
                                torch.rand(2, 1, 1, generator=_g(3)), torch.rand(1, 1, 2, 4, generator=_g(4))),
        "larger": (torch.rand(130, generator=_g(5)), torch.rand(7, 23, generator=_g(6)),
                   torch.rand(8, 11, 10, generator=_g(7)), torch.rand(7, 15, 9, 30, generator=_g(8))),
        "zeros": (torch.zeros(20), torch.zeros(3, 16), torch.zeros(5, 9, 3), torch.zeros(6, 13, 6, 22)),
        "negatives-inf-nan": (torch.tensor(INF_NAN * 3), -torch.rand(4, 5, generator=_g(9)),
                              -torch.rand(4, 4, 4, generator=_g(10)), torch.tensor(INF_NAN * 4).reshape(2, 2, 1, 6)),
        "empty": (torch.zeros(0), torch.zeros(0, 0), torch.zeros(0, 0, 0), torch.zeros(0, 0, 0, 0)),
    }),
}


def _ops(path: Path) -> set[str]:
    return {node.op_type for node in onnx.load(str(path)).graph.node}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_migrates(name: str, tmp_path: Path) -> None:
    fragments, left, others = VARIANTS[name]
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt306_{name}")
    example = module.inputs(_g(0))

    # Before: the TorchScript exporter writes the split as ONNX sequence operators.
    export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", tmp_path)
    assert _ops(tmp_path / "before.onnx") & SEQUENCE_OPS, _ops(tmp_path / "before.onnx")

    # The rule from the code alone: every split at written-out points, the other forms reported.
    options = Options(select=("TRT306",), scope="all")
    new_source = fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()
    for fragment in fragments:
        assert fragment in new_source, new_source
    body = new_source.split("\n\n\nclass ", 1)[1]  # below the inserted helper
    assert len(re.findall(r"(?<!_trt_)tensor_split\(", body)) == len(left) and all(f in body for f in left), body
    findings = check_source(path.read_bytes(), str(path.resolve()), options)
    assert [f.rule for f in findings] == ["TRT306"] * (len(left) + len(fragments))
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(new_source)
    _, rewritten = built_variant(new_path, f"trt306_rewritten_{name}")

    # After: both exporters, no sequence operator; the graphs follow other sizes and values.
    torchscript, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    dynamo = export_variant_dynamo(rewritten, example, module.DYNAMIC, tmp_path / "after_dynamo.onnx")
    assert not _ops(tmp_path / "after.onnx") & SEQUENCE_OPS
    assert not _ops(tmp_path / "after_dynamo.onnx") & SEQUENCE_OPS
    sets = {"example": example, **others}
    for label, inputs in sets.items():
        assert_graph_equals_eager(torchscript, original, inputs, f"torchscript {label}")
        assert_graph_equals_eager(dynamo, original, inputs, f"dynamo {label}")

    # Eager mode is unchanged, bit for bit: outputs, input gradients, exceptions.
    assert_eager_unchanged(original, rewritten, sets)
