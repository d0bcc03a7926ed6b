"""TRT712 on ``isinstance(v, torch.Tensor)`` of a parameter that takes a tensor or a size.

Demucs's ``center_trim(tensor, reference)`` (``tests/recipe_variants/trt712/demucs_center_trim.py``, cited there)
trims to a skip connection's length or to a length handed in as an int. While the TorchScript exporter traces,
that int is a 0-d tensor, so ``isinstance(reference, torch.Tensor)`` is True and ``reference.size(-1)`` stops the
export. The rule adds ``not _trt_size_is_int(reference)`` beside the test (unsafe: a 0-d integer tensor passed
while tracing is taken for a size), where the parameter is annotated ``Union[torch.Tensor, int]`` or the recorded
run saw it hold both. ``migrate`` applies it (with TRT712 on ``valid_length``'s ``math.ceil``/``max``/``int``) and
the model exports; with TRT717 on the trim behind ``if delta:`` (its end counted from the start) the graph
follows the lengths where ``delta`` is 0, which the second trace (at 2n + 1, where ``delta`` is not 0 either)
cannot tell apart.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
import torch
from support import TESTS, migrate_json, rewrite
from variant_models import assert_eager_unchanged, axes_json, built_variant, export_variant, input_names, line_of, seeded

from trtcodemod.engine import Options, check_source

VARIANT = TESTS / "recipe_variants" / "trt712" / "demucs_center_trim.py"
TEST = "    if isinstance(reference, torch.Tensor):"
FIXED = "    if isinstance(reference, torch.Tensor) and not _trt_size_is_int(reference):\n"

TRIM = """import typing as tp
import torch

def trim(tensor: torch.Tensor, reference: {annotation}):
    if {test}:
        size = reference.size(-1)
    else:
        size = reference
    return tensor[..., :size]
"""


def _trim(annotation: str = "tp.Union[torch.Tensor, int]", test: str = "isinstance(reference, torch.Tensor)") -> str:
    return TRIM.format(annotation=annotation, test=test)


@pytest.mark.parametrize("annotation", ["tp.Union[torch.Tensor, int]", "torch.Tensor | int",
                                        "tp.Union[int, torch.Tensor]"])
def test_a_tensor_or_int_parameter_s_tensor_test_is_rewritten(annotation: str) -> None:
    after = rewrite(_trim(annotation), unsafe=True, select=("TRT712",))
    assert "    if isinstance(reference, torch.Tensor) and not _trt_size_is_int(reference):\n" in after, after
    assert rewrite(_trim(annotation), select=("TRT712",)) == _trim(annotation)  # unsafe only


def test_inside_another_expression_the_test_keeps_its_parentheses() -> None:
    after = rewrite(_trim(test="not isinstance(reference, torch.Tensor)").replace("        size = reference.size(-1)\n"
                                                                                   "    else:\n", "        pass\n"
                                                                                   "    if True:\n"),
                    unsafe=True, select=("TRT712",))
    assert "    if not (isinstance(reference, torch.Tensor) and not _trt_size_is_int(reference)):\n" in after, after


@pytest.mark.parametrize("annotation,test", [
    ("torch.Tensor", "isinstance(reference, torch.Tensor)"),  # a tensor only
    ("tp.Union[torch.Tensor, float]", "isinstance(reference, torch.Tensor)"),  # not a size
    ("tp.Union[torch.Tensor, int]", "isinstance(tensor, torch.Tensor)"),  # another parameter
    ("tp.Union[torch.Tensor, int]", "isinstance(reference, (torch.Tensor, list))"),  # a tuple of classes
])
def test_look_alikes_are_left(annotation: str, test: str) -> None:
    code = _trim(annotation, test)
    assert "_trt_size_is_int" not in rewrite(code, unsafe=True, select=("TRT712",))


def test_the_rewritten_test_is_the_same_in_eager_mode_for_every_value() -> None:
    """Outside a trace ``_trt_size_is_int`` is ``isinstance(v, int)``: for a tensor (a 0-d integer one too) it is
    False, so the rewritten test is the original's; a 0-d tensor still reaches ``.size(-1)`` and raises alike."""
    namespace: dict = {}
    exec(rewrite(_trim(), unsafe=True, select=("TRT712",)), namespace)  # noqa: S102 - our own rewrite of TRIM
    original: dict = {}
    exec(_trim(), original)  # noqa: S102
    x = torch.arange(12.0).reshape(2, 6)
    for reference in (3, 0, -2, torch.ones(4), torch.ones(2, 9), torch.tensor(3), torch.empty(0)):
        outcomes = []
        for trim in (original["trim"], namespace["trim"]):
            try:
                outcomes.append(("ok", trim(x, reference)))
            except Exception as error:  # noqa: BLE001 - the exception is what is compared
                outcomes.append(("raised", type(error)))
        assert outcomes[0][0] == outcomes[1][0], (reference, outcomes)
        if outcomes[0][0] == "ok":
            assert torch.equal(outcomes[0][1], outcomes[1][1]), reference
        else:
            assert outcomes[0][1] is outcomes[1][1], reference


def test_from_the_code_alone_the_variant_s_test_is_found() -> None:
    found = check_source(VARIANT.read_bytes(), str(VARIANT.resolve()), Options(select=("TRT712",), scope="all",
                                                                               unsafe=True))
    assert line_of(VARIANT, TEST) in [f.line for f in found]


def test_migrate_makes_demucs_s_trim_export_and_the_graph_follows_the_length(tmp_path: Path) -> None:
    module, original = built_variant(VARIANT, "trt712_demucs")
    example = module.inputs(seeded(0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(IndexError):
            torch.onnx.export(original, example, str(tmp_path / "before.onnx"), input_names=["mix"],
                              dynamic_axes=module.DYNAMIC, opset_version=17, dynamo=False)
    report = migrate_json(VARIANT, axes_json(module))
    applied = {(fix["rule"], fix["line"]) for fix in report["applied"]}
    assert ("TRT712", line_of(VARIANT, TEST)) in applied, (report["applied"], report["remaining"])
    assert report["before"]["exported"] is False and report["exit_code"] == 0, report["remaining"]


def test_the_written_rewrite_exports_and_follows_the_length_where_delta_is_zero(tmp_path: Path) -> None:
    """The rewritten variant (written by migrate to a copy) exports; its graph equals eager mode at lengths where
    the input is padded (70, 64, 71, 33, a batch of 3), on zeros and negatives, and eager mode is unchanged. At
    68 and 100 (lengths the strides take whole: ``delta`` is 0) the graph follows too: TRT717 turns ``if delta:
    tensor = tensor[..., delta // 2:-(delta - delta // 2)]`` into a trim whose end counts from the start (the
    traced ``:-0`` would take nothing), which the last stop's migrate left as a warning the second trace at
    2n + 1 could not tell from a harmless one."""
    copy = tmp_path / VARIANT.name
    copy.write_bytes(VARIANT.read_bytes())
    module, original = built_variant(copy, "trt712_demucs_copy")
    report = migrate_json(copy, axes_json(module), "--write")
    assert report["exit_code"] == 0, report["remaining"]
    _, rewritten = built_variant(copy, "trt712_demucs_written")
    assert FIXED in copy.read_text()
    rewritten.load_state_dict(original.state_dict())
    example = module.inputs(seeded(0))
    session = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)[0]
    sets = {n: (torch.randn(b, 1, n, generator=seeded(n)),) for b, n in ((1, 64), (2, 71), (1, 33), (3, 70))}
    sets["zeros"] = (torch.zeros(2, 1, 70),)
    sets["negatives"] = (-example[0].abs() - 1,)
    for label, inputs in sets.items():
        with torch.no_grad():
            want = original(*inputs).numpy()
        got = session.run(None, {input_names(original)[0]: inputs[0].numpy()})[0]
        assert got.shape == want.shape and np.allclose(got, want, atol=1e-5), label
    for length in (68, 100):
        whole = torch.randn(1, 1, length, generator=seeded(length))
        with torch.no_grad():
            want = original(whole).numpy()
        got = session.run(None, {input_names(original)[0]: whole.numpy()})[0]
        assert want.shape == (1, 1, length) and got.shape == want.shape and np.allclose(got, want, atol=1e-5)
    trims = [fix for fix in report["applied"] if fix["rule"] == "TRT717"]
    assert [fix["line"] for fix in trims] == [line_of(VARIANT, "    if delta:")], report["applied"]
    assert_eager_unchanged(original, rewritten, {**sets, "68": (torch.randn(1, 1, 68, generator=seeded(5)),),
                                                 "too short": (torch.randn(1, 1, 3),)})
