"""TRT730: an augmented assignment to a size parameter (``length *= 2``) rebinds it instead.

What the rule finds and leaves alone, the rewrite's text and safety label, and on a cited reduction of
Demucs v3's ``valid_length``: eager mode unchanged at every length and on edge values, the original's
TorchScript export stopped by the caller's doubled size, the rewritten export equal to eager mode at
other batches and lengths, and ``migrate`` applying it (proved from the recorded calls) to end at exit 0.
audiocraft's watermark crop (``watermark *= mask`` on a tensor parameter read through ``.size(-1)``) is a
real case the rule leaves alone: the in-place update of the caller's tensor is eager mode's meaning there.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import torch
from support import TESTS, rewrite, rules_found
from variant_models import (assert_eager_unchanged, assert_graph_within, assert_migrate_applies, export_variant,
                            input_names, load_variant, seeded)

from trtcodemod.engine import Options, check_source
from trtcodemod.verify.export import export_model

VARIANTS = TESTS / "recipe_variants" / "trt730"
VARIANT = VARIANTS / "demucs_valid_length.py"
#: Ultimate Vocal Remover's Demucs v2 and its driver: the call on a submodule, a second update after a rebinding.
UVR = VARIANTS / "uvr_demucs_v2_apply.py"
HEADER = "import math\nimport torch\nfrom torch import nn\n\n"
INF, NAN = float("inf"), float("nan")

METHOD = """
class Net(nn.Module):
    def valid_length(self, length):
        if self.resample:
            length *= 2
        return math.ceil(length / 4) * 4

    def forward(self, x):
        length = x.shape[-1]
        return self.valid_length(length) - length
"""

ANNOTATED = """
def padded(n: int, block: int):
    n += (-n) % block
    return n

def forward(x):
    n = x.shape[1]
    return padded(n, 8), n
"""


def _found(code: str) -> list[tuple[str, str]]:
    findings = check_source((HEADER + textwrap.dedent(code)).encode(), "m.py", Options(select=("TRT730",)))
    return [(f.rule, f.fix.value) for f in findings]


def test_a_method_parameter_used_as_a_number_is_rebound_with_unsafe_only() -> None:
    source = HEADER + METHOD
    assert _found(METHOD) == [("TRT730", "unsafe")]
    assert rewrite(source, select=("TRT730",)) == source
    assert rewrite(source, unsafe=True, select=("TRT730",)) == source.replace("length *= 2", "length = length * 2")


def test_a_parameter_annotated_int_is_rebound_safely_with_its_value_parenthesised() -> None:
    source = HEADER + ANNOTATED
    assert _found(ANNOTATED) == [("TRT730", "safe")]
    assert rewrite(source, select=("TRT730",)) == source.replace("n += (-n) % block", "n = n + ((-n) % block)")


def test_a_size_passed_by_keyword_is_rebound_too() -> None:
    """``self.valid_length(length=length)``: the caller holds the name it passed as a keyword just the same."""
    code = METHOD.replace("self.valid_length(length) - length", "self.valid_length(length=length) - length")
    source = HEADER + code
    assert _found(code) == [("TRT730", "unsafe")]
    assert rewrite(source, unsafe=True, select=("TRT730",)) == source.replace("length *= 2", "length = length * 2")
    # A keyword naming another parameter, or a literal there, holds no caller's size.
    assert _found(METHOD.replace("self.valid_length(length) - length", "self.valid_length(size=length)")) == []
    assert _found(METHOD.replace("self.valid_length(length) - length", "self.valid_length(length=50)")) == []


@pytest.mark.parametrize("operator, binary", [("-=", "-"), ("//=", "//"), ("+=", "+"), ("<<=", "<<")])
def test_every_augmented_operator_rebinds_with_its_own(operator: str, binary: str) -> None:
    code = ANNOTATED.replace("n += (-n) % block", f"n {operator} block")
    source = HEADER + code
    assert rewrite(source, select=("TRT730",)) == source.replace(f"n {operator} block", f"n = n {binary} block")


@pytest.mark.parametrize("code", [
    # a tensor accumulated in place on purpose: nothing says it is a number
    "def accumulate(total, x):\n    total += x\n    return total\n\ndef forward(t, x):\n    return accumulate(t, x)\n",
    # no call in the file passes a name there: no caller's object to change
    METHOD.replace("self.valid_length(length) - length", "self.valid_length(x.shape[-1])"),
    # a local, not a parameter: no caller holds it
    "def forward(x):\n    n = x.shape[1]\n    n *= 2\n    return x.new_zeros(n)\n",
    # an attribute or subscript target is not a rebinding of a name
    "def grow(self, n: int):\n    self.n += n\n    return self.n\n\ndef forward(m, k):\n    return grow(m, k)\n",
])
def test_not_reported(code: str) -> None:
    assert _found(code) == []


def _waveform(seed: int, batch: int, time: int) -> tuple:
    return (torch.rand(batch, 1, time, generator=seeded(seed)),)


SETS = {
    "longer": _waveform(1, 3, 101), "shorter": _waveform(2, 1, 37), "one-sample": _waveform(3, 2, 1),
    "exactly-valid": _waveform(4, 2, 64), "zeros": (torch.zeros(2, 1, 50),),
    "negatives": (-_waveform(5, 2, 45)[0],),
}


def test_the_reduction_keeps_eager_mode_and_exports_equal_to_it(tmp_path: Path) -> None:
    module = load_variant(VARIANT, "trt730_original")
    original = module.build().eval()
    text = VARIANT.read_text()
    new = rewrite(text, unsafe=True, select=("TRT730",))
    assert new == text.replace("            length *= 2\n", "            length = length * 2\n"), new
    rewritten_path = tmp_path / "demucs_valid_length_rewritten.py"
    rewritten_path.write_text(new)
    rewritten = load_variant(rewritten_path, "trt730_rewritten").build().eval()
    rewritten.load_state_dict(original.state_dict())
    example = module.inputs(seeded(0))
    specials = (torch.tensor([INF, NAN, -INF, 1.0, 0.0, -2.0]).repeat(2, 1, 8),)
    sets = {"example": example, **SETS, "inf-nan": specials}
    assert_eager_unchanged(original, rewritten, sets)
    # The original's trace doubles forward's `length` inside the call: the pad crops the whole waveform and the
    # export stops at the resampling of nothing (in Demucs itself, at a convolution: 2 samples for a kernel of 8).
    before = export_model(original, example, tmp_path / "before.onnx", exporter="torchscript",
                          input_names=input_names(original), output_names=["out"], dynamic_axes=module.DYNAMIC,
                          opset=17)
    assert before.error is not None and "greater than 0" in before.error, before.error
    # The rewritten model exports and its graph equals eager mode at the traced length. At other lengths it keeps
    # the example's valid length: `math.ceil`, `max` and `int` of the parameter are TRT712's, which finds them from
    # the recorded export (a parameter is no size in the code alone) and migrate applies beside this fix (below).
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    assert_graph_within(session, original, example, 1e-5, "example")
    assert_graph_within(session, original, (torch.rand(3, 1, 50, generator=seeded(6)),), 1e-5, "another batch")


def test_migrate_applies_it_from_the_recorded_calls_and_ends_equivalent() -> None:
    """With TRT712 on the size arithmetic after the call: the graph follows every batch and length migrate tries."""
    assert_migrate_applies(VARIANT, "TRT730", "trt730_migrate")


def test_uvr_driver_calls_it_on_a_submodule_and_both_updates_are_rebound(tmp_path: Path) -> None:
    """Demucs v2 as Ultimate Vocal Remover drives it: ``self.model.valid_length(length)`` in the wrapper's forward
    (a call on another object), and ``length += self.context - 1`` in the loop after ``math.ceil`` rebound the name
    (harmless there, rebound as well). The original's export stops at a context convolution given 1 sample for a
    kernel of 3 (the wrapper's doubled ``length`` crops the padded mix); the rewritten one equals eager mode."""
    module = load_variant(UVR, "trt730_uvr_original")
    original = module.build().eval()
    text = UVR.read_text()
    assert rules_found(text, select=("TRT730",)) == ["TRT730", "TRT730"]
    assert rewrite(text, select=("TRT730",)) == text  # unsafe: only with --unsafe
    new = rewrite(text, unsafe=True, select=("TRT730",))
    assert new == text.replace("            length *= 2\n", "            length = length * 2\n").replace(
        "            length += self.context - 1\n", "            length = length + (self.context - 1)\n"), new
    assert rules_found(new, select=("TRT730",)) == []
    rewritten_path = tmp_path / "uvr_demucs_v2_apply_rewritten.py"
    rewritten_path.write_text(new)
    rewritten = load_variant(rewritten_path, "trt730_uvr_rewritten").build().eval()
    rewritten.load_state_dict(original.state_dict())
    example = module.inputs(seeded(0))
    specials = (torch.tensor([INF, NAN, -INF, 1.0, 0.0, -2.0]).repeat(2, 1, 8),)
    assert_eager_unchanged(original, rewritten, {"example": example, **SETS, "inf-nan": specials})
    before = export_model(original, example, tmp_path / "before.onnx", exporter="torchscript",
                          input_names=input_names(original), output_names=["out"], dynamic_axes=module.DYNAMIC,
                          opset=17)
    assert before.error is not None and "Kernel size can't be greater" in before.error, before.error
    session, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    assert_graph_within(session, original, example, 1e-5, "example")
    assert_graph_within(session, original, (torch.rand(3, 1, 50, generator=seeded(7)),), 1e-5, "another batch")
    assert_graph_within(session, original, (torch.zeros(1, 1, 50),), 1e-5, "zeros")


def test_migrate_applies_it_to_the_uvr_driver_and_ends_equivalent() -> None:
    assert_migrate_applies(UVR, "TRT730", "trt730_uvr_migrate")


AUDIOCRAFT = VARIANTS / "audiocraft_watermark_crop.py"


def test_a_tensor_parameter_read_through_its_size_is_left_alone(tmp_path: Path) -> None:
    """audiocraft's watermark crop (a left-alone variant, not counted): ``watermark *= mask`` on a parameter that
    ``int(... * watermark.size(-1))`` reads through its size. That is a tensor, updated in place on purpose: the
    caller's tensor is masked in eager mode, which a rebinding would not do. Neither the code alone nor the
    recorded run (a tensor passed, not an int) gives TRT730 a reason to rewrite it."""
    from variant_models import observed_facts

    text = AUDIOCRAFT.read_text()
    assert rules_found(text, select=("TRT730",)) == []
    module = load_variant(AUDIOCRAFT, "trt730_audiocraft")
    facts = observed_facts(AUDIOCRAFT, module, tmp_path)
    assert check_source(AUDIOCRAFT.read_bytes(), str(AUDIOCRAFT.resolve()), Options(select=("TRT730",), facts=facts,
                                                                                     scope="all")) == []
    # Why: eager mode masks the caller's own tensor; the rebinding the rule writes elsewhere would not.
    rebound = tmp_path / "audiocraft_rebound.py"
    rebound.write_text(text.replace("        watermark *= mask\n", "        watermark = watermark * mask\n"))
    original, changed = module.build(), load_variant(rebound, "trt730_audiocraft_rebound").build()
    signal, watermark = module.inputs(seeded(0))
    held, held_too = watermark.clone(), watermark.clone()
    original.crop(signal.clone(), held)
    changed.crop(signal.clone(), held_too)
    assert not torch.equal(held, watermark) and torch.equal(held_too, watermark)


def test_a_parameter_used_as_a_number_beside_a_tensor_read_of_another_is_still_found() -> None:
    """Only the parameter read through ``.size()`` is taken for a tensor: Demucs' ``length`` beside a tensor
    ``x`` read with ``x.shape[-1]`` is still a number."""
    code = METHOD.replace("    def valid_length(self, length):\n",
                          "    def valid_length(self, length, x=None):\n"
                          "        width = x.shape[-1] if x is not None else 0\n")
    assert _found(code) == [("TRT730", "unsafe")]
