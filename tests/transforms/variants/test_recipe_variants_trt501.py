"""The zero-pad recipe (TRT501) on real-code variants.

Each variant in ``tests/recipe_variants/trt501/`` is a small runnable model reduced from a public
library (cited in its docstring) that pads with zeros through ``F.pad``. TRT501 matters for
TensorRT before 8.2 (``--target 8.0`` here; it is quiet for the default 8.6): the TorchScript
exporter writes an ONNX ``Pad`` whose ``pads`` input is computed by a Slice/Transpose subgraph,
never an initializer, which TensorRT 7.x/8.0 parsers reject. TensorRT is not run here; what it
rejects is shown on the graph.

- ``TAKEN``: the rule rewrites the file from the code alone (a safe fix: without ``--unsafe``)
  into ``_trt_zero_pad``; the original's graph has a ``Pad`` with computed ``pads``, the
  rewritten one exports (both exporters) with no ``Pad`` left but the non-zero one the rule must
  leave alone, and its graph equals eager mode at other sizes and on zeros, negatives, inf/NaN
  and empty tensors; eager mode is unchanged bit for bit (outputs, strides, gradients, errors).
  The HaloNet variant's pads are the module's attributes: taken since TRT501 reads them as
  configuration (reported without a fix before). Its original does not even export with the
  TorchScript exporter: the Pad's computed ``pads`` leave the sizes its ``unfold`` needs unknown.
- ``REPORTED``: pads computed from the input's size (Segment Anything) or negative (kornia's
  crop): reported, the file left as it is.
"""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest
import torch
from safety import assert_same_run, run_once
from variant_models import (
    assert_graph_equals_eager, built, export_variant, export_variant_dynamo, input_names, load_variant,
    rewritten_variant,
)

from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.rules import Safety
from trtcodemod.verify.export import export_model
from support import TESTS

HERE = TESTS / "recipe_variants" / "trt501"

# name → (fragments of the rewritten code, Pad nodes the rewrite leaves, inputs at other sizes)
TAKEN: dict[str, tuple[tuple[str, ...], int, tuple[tuple[int, ...], ...]]] = {
    "timm_hgnet_stem": (("x = _trt_zero_pad(x, (0, 1, 0, 1))", "x2 = _trt_zero_pad(x2, (0, 1, 0, 1))"), 0,
                        ((2, 3, 9, 17),)),
    "transformers_emu3_downsample": (("hidden_states = _trt_zero_pad(hidden_states, pad=(0, 1, 0, 1))",), 0,
                                     ((1, 3, 5, 12),)),
    "kornia_sharpness_border": (("padded_mask = _trt_zero_pad(mask, [1, 1, 1, 1])",
                                 "padded_degenerate = _trt_zero_pad(degenerate, [1, 1, 1, 1])"), 0, ((1, 3, 9, 4),)),
    "timm_halo_attn_kv": (
        ("kv = _trt_zero_pad(kv, [self.halo_size, self.halo_size, self.halo_size, self.halo_size])",), 0,
        ()),  # static sizes (its windows' `unfold`): no other size, no empty batch
    "transformers_qwen25_omni_cu_seqlens": (("return _trt_zero_pad(after_conv1.cumsum(0), (1, 0)).to(torch.int32)",),
                                            0, ((9,),)),
    # the labels' pad fills -1: TRT502's, left as it is
    "transformers_sam3_tracker_points": (
        ("points = _trt_zero_pad(points, (0, 0, 0, 1))",
         'labels = torch.nn.functional.pad(labels, (0, 1), mode="constant", value=-1)'), 1, ((3, 1, 5, 2), (3, 1, 5))),
}


def _rewrite(path: Path, unsafe: bool = False, target: str = "8.0") -> str:
    options = Options(select=("TRT501",), unsafe=unsafe, target=target, scope="all")
    return fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()



def _computed_pads(proto: onnx.ModelProto) -> list[bool]:
    """For each Pad node: whether its ``pads`` input is computed in the graph (not an initializer or
    Constant), what the TensorRT 8.0 parser rejects."""
    known = {init.name for init in proto.graph.initializer}
    known |= {out for node in proto.graph.node if node.op_type == "Constant" for out in node.output}
    return [node.input[1] not in known for node in proto.graph.node if node.op_type == "Pad"]


def _op_types(path: Path) -> list[str]:
    return [node.op_type for node in onnx.load(str(path)).graph.node]


def _sets(example: tuple, shapes: tuple, generator: torch.Generator) -> dict[str, tuple]:
    """Input sets: the example, other sizes, zeros, negatives, inf/NaN and an empty first axis (float
    inputs changed; integer inputs kept, or drawn at the other size)."""
    def other(t: torch.Tensor, shape: tuple) -> torch.Tensor:
        if t.is_floating_point():
            return torch.randn(shape, generator=generator) * 4
        return torch.randint(0, 2 if t.max() <= 1 else 200, shape, generator=generator)

    def special(t: torch.Tensor) -> torch.Tensor:
        if not t.is_floating_point():
            return t
        flat = t.clone().view(-1)
        flat[0], flat[-1], flat[len(flat) // 2] = float("inf"), float("nan"), -float("inf")
        return flat.view_as(t)

    def each(fn) -> tuple:
        return tuple(fn(t) if t.is_floating_point() else t for t in example)

    sets = {
        "example": example,
        "zeros": each(torch.zeros_like),
        "negatives": each(lambda t: -t.abs() - 1),
        "inf-nan": tuple(special(t) for t in example),
    }
    if shapes:  # a variant with dynamic axes
        sets["other-size"] = tuple(other(t, s) for t, s in zip(example, shapes))
        sets["empty"] = tuple(t[:0] for t in example)
    return sets


@pytest.fixture(scope="module", params=list(TAKEN))
def taken(request, tmp_path_factory) -> dict:
    """The variant, its rewrite, and both exported: the original (TorchScript), the rewrite (both)."""
    name = request.param
    folder = tmp_path_factory.mktemp(name)
    variant = rewritten_variant(HERE / f"{name}.py", "TRT501", folder, target="8.0")
    module, original, rewritten = variant["module"], variant["original"], variant["rewritten"]
    example = module.inputs(torch.Generator().manual_seed(0))
    before = export_model(original, example, folder / "before.onnx", exporter="torchscript",
                          input_names=input_names(original), output_names=["out"], dynamic_axes=module.DYNAMIC,
                          opset=17)
    torchscript, _ = export_variant(rewritten, example, module.DYNAMIC, folder / "after.onnx", folder)
    dynamo = export_variant_dynamo(rewritten, example, module.DYNAMIC, folder / "after_dynamo.onnx")
    return dict(variant, example=example, folder=folder, error=before.error,
                sessions={"torchscript": torchscript, "dynamo": dynamo})


def test_the_rule_rewrites_the_zero_pads_from_the_code_alone(taken) -> None:
    fragments, _, _ = TAKEN[taken["name"]]
    for fragment in fragments:
        assert fragment in taken["source"], taken["source"]
    assert taken["safe_only"] == taken["source"]  # safe: the same without --unsafe
    assert _rewrite(taken["path"], target="8.2") == taken["path"].read_text()  # quiet from TensorRT 8.2


def test_the_original_graph_pads_with_computed_pads_and_the_rewrite_concatenates(taken) -> None:
    _, left, _ = TAKEN[taken["name"]]
    if taken["name"] == "timm_halo_attn_kv":
        # The Pad's computed `pads` leave its output's sizes unknown, and `unfold` needs them.
        assert "Unfold, input size not accessible" in taken["error"] and "onnx::Pad" in taken["error"], taken["error"]
    else:
        assert taken["error"] is None, taken["error"]
        before = onnx.load(str(taken["folder"] / "before.onnx"))
        pads = _computed_pads(before)
        assert pads and all(pads), pads  # every Pad's `pads` computed: TensorRT 8.0 rejects them
    after = onnx.load(str(taken["folder"] / "after.onnx"))
    assert len(_computed_pads(after)) == left and "Concat" in _op_types(taken["folder"] / "after.onnx")
    assert _op_types(taken["folder"] / "after_dynamo.onnx").count("Pad") == left


def test_the_graphs_equal_eager_at_other_sizes_and_edge_values(taken) -> None:
    _, _, shapes = TAKEN[taken["name"]]
    sets = _sets(taken["example"], shapes, torch.Generator().manual_seed(1))
    for exporter, session in taken["sessions"].items():
        for label, inputs in sets.items():
            assert_graph_equals_eager(session, taken["original"], inputs, f"{exporter} {label}")


def test_eager_mode_is_unchanged_bit_for_bit(taken) -> None:
    _, _, shapes = TAKEN[taken["name"]]
    sets = _sets(taken["example"], shapes, torch.Generator().manual_seed(2))
    first = taken["example"][0]
    if first.dim() == 4:  # strides: a channels_last input stays channels_last through F.pad
        sets["channels-last"] = (first.contiguous(memory_format=torch.channels_last), *taken["example"][1:])
    sets["wrong-rank"] = (first.reshape(-1), *taken["example"][1:])  # raises alike (or runs alike)
    for label, inputs in sets.items():
        graded = [t.clone().requires_grad_() if t.is_floating_point() else t for t in inputs]
        for given in (list(inputs), graded):
            assert_same_run(run_once(taken["original"], given), run_once(taken["rewritten"], given),
                            context=f"{taken['name']} {label}")


# name → the start of the message
REPORTED = {
    "segment_anything_preprocess": "zero F.pad with computed pads",
    "kornia_ssim_crop": "zero F.pad with computed pads",
}


@pytest.mark.parametrize("name", list(REPORTED))
def test_computed_or_negative_pads_are_reported_and_left(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    findings = check_source(path.read_bytes(), str(path), Options(select=("TRT501",), target="8.0", scope="all"))
    assert [f.message[:len(REPORTED[name])] for f in findings] == [REPORTED[name]], findings
    assert all(f.fix is Safety.NONE for f in findings)
    assert _rewrite(path, unsafe=True) == path.read_text()
    # The original exports, its Pad's `pads` computed in the graph, right at other sizes (crop included).
    module = load_variant(path, f"trt501_{name}")
    model = built(module)
    example = module.inputs(torch.Generator().manual_seed(0))
    session, _ = export_variant(model, example, module.DYNAMIC, tmp_path / "model.onnx", HERE)
    assert _computed_pads(onnx.load(str(tmp_path / "model.onnx"))) == [True]
    for shape in [example[0].shape, (2, example[0].shape[1], 5, 11), (1, example[0].shape[1], 18, 17)]:
        x = torch.rand(shape, generator=torch.Generator().manual_seed(3))
        assert_graph_equals_eager(session, model, (x,), str(shape))
