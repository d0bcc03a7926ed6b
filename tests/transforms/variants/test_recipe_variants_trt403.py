"""``squeeze()`` with no axis after a global pool (TRT403) on real-code variants.

Each variant in ``tests/recipe_variants/trt403/`` is a small runnable model reduced from a public repository
(cited in its docstring): a map or sequence pooled to size 1 and squeezed with no axis, so that a trace at a batch
of 1 drops the batch with it. For each one: migrate's observer records the shapes at the squeeze (its worker, with
the variant's dynamic axes, a stretched set included); TRT403 rewrites the call from those facts alone (no
``--unsafe``: the facts prove it); the TorchScript export at a batch of 1 has an axis-less Squeeze TensorRT refuses
before, none after, and the graph equals eager mode at batches 2 and 3 (at 1, the same values with the batch kept:
the stated assumption); eager mode is unchanged, outputs, gradients and exceptions alike.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
import torch
from support import TESTS
from variant_models import (assert_eager_unchanged, built, export_variant, input_names, line_of, load_variant,
                            observed_facts, rewrite_variant, variant_inputs)

from trtcodemod.engine import Options
from trtcodemod.trt.check import check_graph

HERE = TESTS / "recipe_variants" / "trt403"

# name -> (the squeeze call's line as written, the line after the rewrite, other input shapes at batches 2 and 3)
VARIANTS: dict[str, tuple[str, str, list[tuple[int, ...]]]] = {
    "upsnet_fpn_gap": (
        "F.adaptive_avg_pool2d(c5, (1, 1)).squeeze()",
        "glob = self.context(_trt_squeeze_axes(F.adaptive_avg_pool2d(c5, (1, 1)), [2, 3])).view(-1, self.width, 1, 1)",
        [(2, 10, 5, 6), (3, 10, 5, 6)]),
    "vissl_token_avg_pool": (
        "self.pool(tokens.permute((0, 2, 1))).squeeze()",
        "return _trt_squeeze_axes(self.pool(tokens.permute((0, 2, 1))), [2])",
        [(2, 7, 8), (3, 4, 8)]),
    "reid_middle_pool": ("x = torch.squeeze(x)", "x = _trt_squeeze_axes(x, [2, 3])", [(2, 3, 9, 7), (3, 3, 11, 5)]),
    "badminton_hit_gru": (
        "self.window_max(x.transpose(1, 2)).squeeze()",
        "x = _trt_squeeze_axes(self.window_max(x.transpose(1, 2)), [2])",
        [(2, 20), (3, 20)]),
    "densenet_cifar_head": (
        "torch.squeeze(F.avg_pool2d(",
        "out = _trt_squeeze_axes(F.avg_pool2d(F.relu(self.bn1(out)), 8), [2, 3])",
        [(2, 3, 8, 8), (3, 3, 8, 8)]),
}


def _graph_run(path: Path, model: torch.nn.Module, inputs: tuple) -> tuple[np.ndarray, np.ndarray]:
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    with torch.no_grad():
        want = model(*inputs).numpy()
    [got] = session.run(None, {n: t.numpy() for n, t in zip(input_names(model), inputs)})
    return got, want


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_migrates(name: str, tmp_path: Path) -> None:
    call, rewritten_line, others = VARIANTS[name]
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt403_{name}")
    squeeze_line = line_of(path, call)

    # What migrate records: the observer's run, the shapes at the squeeze.
    facts = observed_facts(path, module, tmp_path / "work")
    shapes = {tuple(e["shape"]) for e in facts.events if e["kind"] == "squeeze_all" and e["line"] == squeeze_line}
    assert len({shape[0] for shape in shapes}) > 1, shapes  # the batch varied, so it is kept

    # The rule with those facts, without --unsafe: the facts prove which axes the squeeze drops.
    options = Options(select=("TRT403",), unsafe=False, facts=facts, scope="all")
    text, after_module = rewrite_variant(path, options, tmp_path, f"trt403_rewritten_{name}")
    assert rewritten_line in text, text
    original, rewritten = built(module), built(after_module)
    rewritten.load_state_dict(original.state_dict())

    # Before: TensorRT refuses the axis-less Squeeze at the squeeze's line. After: no such node, and the graph
    # traced at a batch of 1 follows the batch.
    example = variant_inputs(module, None, 0)
    export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", HERE)
    refused = [i for i in check_graph(onnx.load(str(tmp_path / "before.onnx"))) if i.rule == "TRT403"]
    assert refused and all(i.op == "Squeeze" and str(i.source).endswith(f"{name}.py:{squeeze_line}")
                           for i in refused), refused
    export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", HERE)
    assert [i for i in check_graph(onnx.load(str(tmp_path / "after.onnx"))) if i.rule == "TRT403"] == []
    for seed, shape in enumerate(others, 1):
        got, want = _graph_run(tmp_path / "after.onnx", original, variant_inputs(module, [shape], seed))
        assert got.shape == want.shape and np.allclose(got, want, rtol=1e-5, atol=1e-5), (name, shape)
    got, want = _graph_run(tmp_path / "after.onnx", original, example)
    assert got.shape[0] == 1 and np.allclose(got.reshape(want.shape), want, rtol=1e-5, atol=1e-5)

    # Eager mode is unchanged: a batch of 1 (squeezed as before), larger batches, zeros, non-finite values and an
    # empty batch; outputs, inputs afterwards, gradients and exceptions alike.
    odd = variant_inputs(module, [others[0]], 5)[0].clone()
    odd.view(-1)[:3] = torch.tensor([float("inf"), float("nan"), -0.0])
    sets = {"batch 1": example, "batch 2": variant_inputs(module, [others[0]], 1),
            "batch 3": variant_inputs(module, [others[1]], 2), "zeros": (torch.zeros(others[0]),),
            "non-finite": (odd,), "empty batch": (torch.zeros((0, *others[0][1:])),)}
    assert_eager_unchanged(original, rewritten, sets)
