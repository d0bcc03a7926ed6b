"""The unsupported-dtype recipe (TRT701) on real-code variants.

Each variant in ``tests/recipe_variants/trt701/`` is a small runnable model reduced from a public
library (cited in its docstring) that makes a float64 or int16 tensor in run-time code: int16
row counts, a float64 quotient of traced sizes, and float64 chosen through a local name by a
conditional (float32 only on Apple's MPS), the idiom the rule did not follow before. The
original's TorchScript export holds a DOUBLE or INT16 tensor (a ``Cast``, a ``Range``...) that the
graph check names TRT701 for. The rule rewrites each file from the code alone (``--unsafe``, as
migrate tries a verified candidate): float64 becomes float32, int16 int32. The rewritten export has
no such tensor, its graph equals eager mode at other sizes and on edge values, and eager mode is
unchanged on inputs that meet the rule's assumption: bit for bit where the narrower or wider dtype
holds the same values (the int16 counts, a mean that is exactly 0 or 1, sizes while tracing),
within float32's rounding where float64 arithmetic was narrowed (the assumption), with the same
dtypes and exceptions either way. One input shows where the assumption fails.
"""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest
import torch
from safety import assert_same_run, run_once
from variant_models import (
    assert_graph_equals_eager,
    built,
    built_pair,
    export_variant,
    load_rewritten,
    variant_inputs,
)

from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.trt.check import check_graph
from support import TESTS

HERE = TESTS / "recipe_variants" / "trt701"

# name → (fragments of the rewritten code, input shapes of two other input sets, whether eager
#         mode stays bit for bit: else within float32's rounding)
VARIANTS: dict[str, tuple[tuple[str, ...], list[list[tuple[int, ...]]], bool]] = {
    "sam_stability_score": ((".sum(-1, dtype=torch.int32).sum(-1, dtype=torch.int32)",),
                            [[(2, 5, 7)], [(1, 16, 3)]], True),
    # The float64 runs only while tracing: eager mode never reaches the rewritten lines.
    "kornia_pyrdown_size": (("divisor = torch.tensor([self.factor], dtype=torch.float32)",
                             "torch.floor(side.reshape(1).float() / divisor)"),
                            [[(2, 3, 9, 15)], [(1, 3, 31, 8)]], True),
    # Not taken before: the dtype is a local name bound by a conditional.
    "udop_ocr_points": (('dtype = torch.float32 if bbox.device.type == "mps" else torch.float32',),
                        [[(1, 16, 5), (1, 3, 5), (1, 3, 4)], [(3, 16, 5), (3, 9, 5), (3, 9, 4)]], True),
    "rtdetr_v2_sincos": (('compute_dtype = torch.float32 if device is None or device.type != "mps" '
                          "else torch.float32",), [[(1, 8, 6, 3)], [(3, 8, 2, 9)]], False),
    "musicflamingo_rotary_time": (('dtype = torch.float32 if hidden_states.device.type == "mps" else torch.float32',),
                                  [[(1, 9, 6), (1, 9)], [(3, 2, 6), (3, 2)]], False),
}


def _loaded(name: str, tmp_path: Path):
    return load_rewritten(HERE / f"{name}.py", ("TRT701",), tmp_path, "trt701")


def _models(name: str, tmp_path: Path) -> tuple:
    return built_pair(HERE / f"{name}.py", ("TRT701",), tmp_path, "trt701")


def _dtype_errors(path: Path) -> list[str]:
    """The graph check's TRT701 findings in an exported file (DOUBLE and INT16 tensors)."""
    return [i.op for i in check_graph(onnx.load(path), "8.6") if i.rule == "TRT701"]


def _edge_sets(name: str, example: tuple) -> dict[str, tuple]:
    first, *rest = example
    sets = {"zeros": (torch.zeros_like(first), *rest), "negatives": (-first.abs() - 0.5, *rest)}
    if name == "sam_stability_score":
        sets["all-above"] = (torch.full_like(first, 5.0),)  # every pixel in both masks: 1.0
        sets["all-below"] = (torch.full_like(first, -5.0),)  # no pixel in either: 0 / 0, NaN
    if name == "udop_ocr_points":
        image, tokens, bbox = example
        sets["all-padding"] = (image, tokens, torch.zeros_like(bbox))
        sets["all-page"] = (image, tokens, torch.ones_like(bbox))
    return sets


def _non_finite(example: tuple) -> tuple:
    first, *rest = example
    first = first.clone()
    first.view(-1)[0], first.view(-1)[-1] = float("inf"), float("nan")
    return (first, *rest)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_rewrite(name: str, tmp_path: Path) -> None:
    fragments, _, _ = VARIANTS[name]
    path = HERE / f"{name}.py"
    _, text, _ = _loaded(name, tmp_path)
    for fragment in fragments:
        assert fragment in text, text
    # Nothing left for the rule, and nothing done without --unsafe.
    assert check_source(text.encode(), str(path.resolve()), Options(select=("TRT701",), scope="all")) == []
    assert fix_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT701",), scope="all")).source \
        == path.read_bytes()
    findings = check_source(path.read_bytes(), str(path.resolve()), Options(select=("TRT701",), scope="all"))
    assert findings and all(f.fix.value == "unsafe" for f in findings), findings


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_export(name: str, tmp_path: Path) -> None:
    _, others, _ = VARIANTS[name]
    module, original, rewritten, example = _models(name, tmp_path)

    # Before: the graph holds a DOUBLE or INT16 tensor, which the graph check names TRT701 for.
    export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", HERE)
    assert _dtype_errors(tmp_path / "before.onnx"), name

    # After: none, and the graph equals eager mode at other sizes and on edge values.
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    assert _dtype_errors(tmp_path / "after.onnx") == []
    sets = {f"size{seed}": variant_inputs(module, shapes, seed) for seed, shapes in enumerate(others, 1)}
    sets.update({"example": example, **_edge_sets(name, example)})
    for label, inputs in sets.items():
        assert_graph_equals_eager(session, rewritten, inputs, label)
        with torch.no_grad():
            torch.testing.assert_close(rewritten(*inputs), original(*inputs), rtol=1e-5, atol=1e-6,
                                       equal_nan=True, msg=label)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_eager_within_the_assumption(name: str, tmp_path: Path) -> None:
    _, others, exact = VARIANTS[name]
    module, original, rewritten, example = _models(name, tmp_path)
    sets = {"example": example, **_edge_sets(name, example), "inf-nan": _non_finite(example),
            "size1": variant_inputs(module, others[0], 1)}
    sets["empty"] = tuple(t[:0] for t in example)
    for label, inputs in sets.items():
        graded = [t.clone().requires_grad_() if t.is_floating_point() else t for t in inputs]
        for given in (list(inputs), graded):
            before, after = run_once(original, given), run_once(rewritten, given)
            if exact:
                assert_same_run(before, after, context=label)
                continue
            assert before.error is after.error, label
            if before.error is None:
                assert after.output.dtype == before.output.dtype and after.output.shape == before.output.shape
                torch.testing.assert_close(after.output, before.output, rtol=1e-5, atol=1e-6, equal_nan=True,
                                           msg=label)
                for a, b in zip(after.grads or [], before.grads or []):
                    if b is not None:
                        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6, equal_nan=True, msg=label)


def test_where_the_assumption_fails(tmp_path: Path) -> None:
    """UDOP's box means in float32: a box of three ones and one just below sums to 4 in float32
    (4 - 2**-24 rounds up) and is taken for a page-covering box, where float64 keeps it apart.
    Such inputs are why the rewrite is unsafe, and migrate keeps it only verified."""
    module, _, rewritten = load_rewritten(HERE / "udop_ocr_points.py", ("TRT701",), tmp_path, "trt701_check")
    image, tokens, bbox = variant_inputs(module, None, 0)
    bbox = bbox.clone()
    bbox[0, 1] = torch.tensor([1.0, 1.0, 1.0, 1.0 - 2.0**-24])
    before = built(module)(image, tokens, bbox)
    after = built(rewritten)(image, tokens, bbox)
    assert not torch.equal(before[0, 1], after[0, 1])  # the float32 mean zeroed this token's patch
    assert torch.equal(after[0, 1], tokens[0, 1])
