"""Per-sample kernels done as one grouped convolution over the batch (TRT324's batch-in-the-groups form), on
real-code variants.

Each variant in ``tests/recipe_variants/trt324/`` is a small runnable model reduced from a public repository
(cited in its docstring): a hyper network's target layers (HyperIQA), dynamic and omni-dimensional convolutions,
StyleGAN2's modulated convolution and RTMDet-Ins's per-instance mask head. The batch (or the instance count) is
folded into the channels and the groups, so the TorchScript export either stops ("kernel of unknown shape") or
keeps the traced group count and refuses other batches. The rule rewrites the call (``--unsafe``, as migrate
tries a candidate) into patches times kernels while exporting: the rewritten graph holds no Conv whose kernel is
computed and equals eager mode at batches 1, 2 and 5, with zeros and negatives; eager mode is unchanged, bit for
bit, outputs and gradients alike.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import onnx
import pytest
import torch
from support import TESTS
from variant_models import input_names, load_variant

from trtcodemod.engine import Options, fix_source

HERE = TESTS / "recipe_variants" / "trt324"

# name -> a fragment of the rewritten call
VARIANTS: dict[str, str] = {
    # Not taken before: the group count read through `self`, the per-image kernels the module was built with.
    "facexlib_hyperiqa_targetfc": "_trt_sized_groups_conv(F.conv2d, input=stacked, weight=kernels, bias=shifts, "
                                  "groups=self.weight.shape[0])",
    "odconv_common": "_trt_sized_groups_conv(F.conv2d, x, weight=mixed, bias=None, stride=self.stride, "
                     "padding=self.padding, dilation=1,",
    "dynamic_conv_attention": "_trt_sized_groups_conv(F.conv2d, x, weight=weight, bias=bias, stride=1,",
    "stylegan2_conv2dmod": "_trt_sized_groups_conv(F.conv2d, x, weights, padding=(self.kernel - 1) // 2, groups=b)",
    "rtmdet_ins_dynamic_mask": "_trt_sized_groups_conv(F.conv2d, x, weight, bias=bias, stride=1, padding=0, "
                               "groups=num_inst)",
}


def _built(module) -> torch.nn.Module:
    torch.manual_seed(0)
    return module.build().eval()


def _sets(module) -> list[tuple[torch.Tensor, ...]]:
    """Batches 1, 2 and 5: random, all zeros, all negative; the batch of one alone too."""
    out = []
    for seed, batch in enumerate((1, 2, 5), 1):
        made = module.inputs(torch.Generator().manual_seed(seed), batch)
        out += [made, tuple(torch.zeros_like(t) if i == 0 else t for i, t in enumerate(made)),
                tuple(-t.abs() if i == 0 else t for i, t in enumerate(made))]
    return out


def _export(model: torch.nn.Module, example: tuple, dynamic: dict, path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, example, str(path), dynamo=False, opset_version=17,
                          input_names=input_names(model), output_names=["out"], dynamic_axes=dynamic)


def _runs_like_eager(path: Path, model: torch.nn.Module, inputs: tuple) -> bool:
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    kept = {i.name for i in session.get_inputs()}
    with torch.no_grad():
        want = model(*inputs)
    try:
        [got] = session.run(None, {n: t.numpy() for n, t in zip(input_names(model), inputs) if n in kept})
    except Exception:  # noqa: BLE001 - a graph that cannot run at this batch does not match
        return False
    return got.shape == tuple(want.shape) and torch.allclose(torch.from_numpy(got), want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_migrates(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt324_{name}")
    original = _built(module)
    example = module.inputs(torch.Generator().manual_seed(0))
    sets = _sets(module)

    # Before: the export stops, or its Conv keeps the traced group count and fails some other batch.
    try:
        _export(original, example, module.DYNAMIC, tmp_path / "before.onnx")
    except Exception as error:  # noqa: BLE001
        assert "kernel of unknown shape" in str(error), error
    else:
        assert not all(_runs_like_eager(tmp_path / "before.onnx", original, inputs) for inputs in sets)

    options = Options(select=("TRT324",), unsafe=True, scope="all")
    text = fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()
    assert VARIANTS[name] in text, text
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(text)
    rewritten = _built(load_variant(new_path, f"trt324_rewritten_{name}"))
    rewritten.load_state_dict(original.state_dict())

    # After: no Conv whose kernel is computed (the model's own convolutions keep their initializers), and the
    # graph exported at batch 2 equals eager mode at every batch.
    _export(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx")
    graph = onnx.load(str(tmp_path / "after.onnx"))
    constants = {i.name for i in graph.graph.initializer}
    assert all(n.input[1] in constants for n in graph.graph.node if n.op_type == "Conv"), name
    for index, inputs in enumerate(sets):
        assert _runs_like_eager(tmp_path / "after.onnx", original, inputs), (name, index)

    # Eager mode is unchanged, bit for bit: outputs and the first input's gradient.
    for inputs in sets:
        with torch.no_grad():
            assert torch.equal(original(*inputs), rewritten(*inputs))
        first = [inputs[0].clone().requires_grad_(), inputs[0].clone().requires_grad_()]
        original(first[0], *inputs[1:]).sum().backward()
        rewritten(first[1], *inputs[1:]).sum().backward()
        assert torch.equal(first[0].grad, first[1].grad)
