"""The local-response-norm recipe (TRT405) on real-code variants.

Each variant in ``tests/recipe_variants/trt405/`` is a small runnable model reduced from a public
repository (cited in its docstring) that normalises with torch's local response norm in the form
the original writes it: kornia's HyNet (``nn.LocalResponseNorm`` with positional arguments
normalising the descriptor after ``+ eps``), neural-dream's MMdnn port of BVLC GoogLeNet (two
``F.local_response_norm`` calls with keywords, on local names between ``F.pad`` and max pooling),
JiGen's Caffe AlexNet (positional modules inside a named ``nn.Sequential(OrderedDict(...))``),
HPE's benchmark AlexNet (keyword modules in an ``nn.Sequential``) and pyslam's L2-Net port (a
module constructed inside ``forward`` and called in the same expression). The TorchScript export
of each original carries the squeeze ``If`` TensorRT refuses; the rule finds every call and
construction from the code alone, and ``migrate`` applies TRT405 at each (the module form as a
verified unsafe candidate) and ends with exit 0, the rewritten model equivalent. Two variants
(the functional form with dynamic height and width, and the module form) are also rewritten by
the rule and exported directly: no ``If``, and the graph equals eager mode at other sizes and on
edge values (zeros, negative and large inputs, an empty batch; infinities for the module form), eager
mode unchanged.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
import torch
from support import migrate_json
from variant_models import assert_eager_unchanged, built_variant, export_variant, input_names, load_variant
from variant_models import axes_json as _axes_json

from trtcodemod.engine import Options, check_source, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt405"
INF = float("inf")


def _g(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _lines_of(path: Path, fragment: str) -> list[int]:
    """The lines of code in ``path`` that hold ``fragment`` (the docstring quotes code in ``)."""
    return [i for i, text in enumerate(path.read_text().splitlines(), 1) if fragment in text and "``" not in text]


#: variant -> the text of each call or construction TRT405 rewrites.
CALLS = {
    "kornia_hynet_desc_norm": "nn.LocalResponseNorm(2 * self.dim_desc, 2.0 * self.dim_desc, 0.5, 0.0)",
    "neural_dream_bvlc_googlenet_stem": "F.local_response_norm(",
    "jigendg_caffenet_features": "nn.LocalResponseNorm(5, 1.e-4, 0.75)",
    "dlbs_alexnet_features": "nn.LocalResponseNorm(size=5, alpha=0.0001, beta=0.75, k=2)",
    "pyslam_l2net_inline_lrn": "nn.LocalResponseNorm(32, 1 * 32, 0.5, 0.5)(x_features)",
}
COUNTS = {"kornia_hynet_desc_norm": 1, "neural_dream_bvlc_googlenet_stem": 2, "jigendg_caffenet_features": 2,
          "dlbs_alexnet_features": 2, "pyslam_l2net_inline_lrn": 1}


def _if_nodes(path: Path) -> int:
    graph = onnx.load(str(path)).graph
    return sum(node.op_type == "If" for node in graph.node)


@pytest.mark.parametrize("name", list(CALLS))
def test_the_rule_finds_each_call_from_the_code_and_the_original_exports_the_if(name: str, tmp_path: Path) -> None:
    path = HERE / f"{name}.py"
    lines = _lines_of(path, CALLS[name])
    assert len(lines) == COUNTS[name]
    findings = check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT405",), scope="all"))
    assert [(f.rule, f.line) for f in findings] == [("TRT405", line) for line in lines]
    module, original = built_variant(path, f"trt405_o_{name}")
    example = module.inputs(_g(0))
    export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", tmp_path)
    assert _if_nodes(tmp_path / "before.onnx") >= 1  # the squeeze of the pooled axis, guarded


@pytest.mark.parametrize("name", list(CALLS))
def test_migrate_applies_the_rule_at_each_call_and_ends_equivalent(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt405_m_{name}")
    report = migrate_json(path, _axes_json(module))
    assert report["before"]["trt_errors_by_op"].get("If", 0) >= 1, report["before"]
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == \
        [("TRT405", line) for line in _lines_of(path, CALLS[name])], report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["remaining"] == []
    assert "_trt_local_response_norm(" in report["diff"] or "_TrtLocalResponseNorm(" in report["diff"]


def _with_inf(tensor: torch.Tensor) -> torch.Tensor:
    flat = tensor.clone().flatten()
    flat[:: max(1, flat.numel() // 5)] = INF
    flat[1] = -INF
    return flat.reshape(tensor.shape)


DIRECT = {
    "neural_dream_bvlc_googlenet_stem": ("= _trt_local_response_norm(", {
        "other-sizes": (torch.randn(3, 3, 31, 17, generator=_g(1)) * 40,),
        "one-image-small": (torch.randn(1, 3, 13, 13, generator=_g(2)) * 40,),
        "zeros": (torch.zeros(2, 3, 24, 20),),
        "negative-and-large": (-torch.rand(2, 3, 20, 24, generator=_g(3)) * 1e4,),
        # No infinities here: the convolutions turn them into NaN, which torch's max pooling
        # propagates and ONNX Runtime's MaxPool skips, before and after the rewrite alike.
        "no-batch": (torch.zeros(0, 3, 24, 20),),
    }),
    "dlbs_alexnet_features": ("_TrtLocalResponseNorm(size=5, alpha=0.0001, beta=0.75, k=2)", {
        "larger-batch": (torch.randn(5, 3, 27, 27, generator=_g(5)) * 20,),
        "one-image": (torch.randn(1, 3, 27, 27, generator=_g(6)) * 20,),
        "zeros": (torch.zeros(2, 3, 27, 27),),
        "negative-and-large": (-torch.rand(2, 3, 27, 27, generator=_g(7)) * 1e4,),
        "inf-in-the-image": (_with_inf(torch.randn(2, 3, 27, 27, generator=_g(8))),),
        "no-batch": (torch.zeros(0, 3, 27, 27),),
    }),
}


@pytest.mark.parametrize("name", list(DIRECT))
def test_rewritten_exports_without_the_if_and_equals_eager(name: str, tmp_path: Path) -> None:
    helper, others = DIRECT[name]
    path = HERE / f"{name}.py"
    module, original = built_variant(path, f"trt405_d_{name}")
    example = module.inputs(_g(0))
    options = Options(select=("TRT405",), unsafe=True, scope="all")
    new_source = fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()
    assert new_source.count(helper) == COUNTS[name], new_source  # each call, as written, renamed
    new_path = tmp_path / f"{name}_rewritten.py"
    new_path.write_text(new_source)
    _, rewritten = built_variant(new_path, f"trt405_r_{name}")
    rewritten.load_state_dict(original.state_dict())

    session, traced = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    assert _if_nodes(tmp_path / "after.onnx") == 0
    assert traced == []  # no TracerWarning (torch's numel() check is read from nbytes)
    sets = {"example": example, **others}
    for label, inputs in sets.items():
        with torch.no_grad():
            want = original(*inputs).numpy()
        [got] = session.run(None, {n: t.numpy() for n, t in zip(input_names(original), inputs)})
        assert got.shape == want.shape and got.dtype == want.dtype, (label, got.shape, want.shape)
        finite = np.abs(want[np.isfinite(want)])
        scale = max(1.0, float(finite.max()) if finite.size else 1.0)
        assert np.allclose(got, want, rtol=1e-5, atol=1e-6 * scale, equal_nan=True), (label, got, want)
    assert_eager_unchanged(original, rewritten, sets)
