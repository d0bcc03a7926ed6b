"""TRT730: an augmented assignment to a size parameter (``length *= 2``) rebinds it instead.

What the rule finds and leaves alone, the rewrite's text and safety label, and on a cited reduction of
Demucs v3's ``valid_length``: eager mode unchanged at every length and on edge values, the original's
TorchScript export stopped by the caller's doubled size, the rewritten export equal to eager mode at
other batches and lengths, and ``migrate`` applying it (proved from the recorded calls) to end at exit 0.
audiocraft's watermark crop (``watermark *= mask`` on a tensor parameter read through ``.size(-1)``) is a
real case the rule leaves alone: the in-place update of the caller's tensor is eager mode's meaning there.
Three cited variants update a name that aliases a size read from a shape, with no caller involved (safe from
the code alone): nunif's Depth Anything frame resize (``lower_bound = min(W, H)``), fairseq's attention with a
scalar bias (``tgt_size = tgt_len``) and T5's attention over a cache in NVIDIA's examples (``real_seq_length =
seq_length``); with Demucs v3 and UVR's Demucs v2, five variants the rule takes.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import torch
from support import TESTS, rewrite, rules_found
from variant_models import (assert_cited_by_distinct_owners, assert_eager_unchanged, assert_graph_within,
                            assert_migrate_applies, assert_migrate_corrects, assert_safe_rewrite_corrects,
                            assert_safe_rewrite_exports, export_variant, input_names, load_variant,
                            rewritten_variant, seeded)

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


NUNIF = VARIANTS / "nunif_depth_anything_preprocess.py"

ALIAS = """
def padded(x, k):
    b, n = x.shape[0], x.shape[1]
    m = n
    m -= m % k
    return x[:, :m], n
"""


def test_an_alias_of_a_size_read_from_a_shape_is_rebound_safely() -> None:
    """No caller: ``m = n`` (or ``min(W, H)``, or a tuple ``a, b = height, width``) holds the very 0-d tensor ``n``
    holds while tracing, so ``m -= ...`` changes ``n`` too. A size read from a shape is an int in eager mode: safe."""
    source = HEADER + ALIAS
    assert _found(ALIAS) == [("TRT730", "safe")]
    assert rewrite(source, select=("TRT730",)) == source.replace("m -= m % k", "m = m - (m % k)")
    tupled = ALIAS.replace("    m = n\n", "    h, m = b, n\n")
    assert _found(tupled) == [("TRT730", "safe")]
    smallest = ALIAS.replace("    m = n\n", "    if k:\n        m = min(b, n)\n        m -= 1\n    else:\n"
                             "        m = b\n").replace("    m -= m % k\n", "")
    assert _found(smallest) == [("TRT730", "safe")]


@pytest.mark.parametrize("code", [
    # bound from a shape directly: no other name holds that tensor
    ALIAS.replace("    m = n\n", "    m = x.shape[1]\n"),
    # rebound from arithmetic (a new tensor) before the update
    ALIAS.replace("    m = n\n", "    m = n + 0\n"),
    # the binding that reaches the update is inside a branch: not known on every path
    ALIAS.replace("    m = n\n", "    m = k\n    if k:\n        m = n\n"),
    # `min` of a size and something else (a number of another origin)
    ALIAS.replace("    m = n\n", "    m = min(n, k)\n"),
    # the size name is bound to something else too: it may hold a tensor in eager mode
    ALIAS.replace("    m = n\n", "    if k > 1:\n        n = x.new_tensor(n)\n    m = n\n"),
    ALIAS.replace("def padded(x, k):", "def padded(x, k, n=None):"),
])
def test_no_alias_of_a_size_is_not_reported(code: str) -> None:
    assert _found(code) == []


def test_nunif_depth_anything_alias_rewritten_from_the_code_alone(tmp_path: Path) -> None:
    """nunif's frame resize for Depth Anything: ``lower_bound = min(W, H)`` then ``lower_bound -= ...``. Safe from
    the code alone; eager mode unchanged on the example, at other batches and frame sizes (the branch taken and
    not), zeros, negatives (the clamp) and an empty batch; the original's graph resizes the frame to another size
    than eager mode on the very frame it was traced with (``H`` shrank with ``lower_bound``), the rewritten one
    equals eager mode at other batches (the frame's height and width are the deployment's, fixed)."""
    assert rules_found(NUNIF.read_text(), select=("TRT730",)) == ["TRT730"]
    assert_safe_rewrite_corrects(NUNIF, "TRT730", tmp_path, (
        "        lower_bound = lower_bound - (lower_bound % ensure_multiple_of)\n",), [(3, 40, 50), (1, 40, 50)])
    variant = rewritten_variant(NUNIF, "TRT730", tmp_path)
    module = variant["module"]
    x = module.inputs(seeded(0))[0]
    sets = {"taller": module.inputs(seeded(1), 2, 70, 30), "large": module.inputs(seeded(2), 1, 90, 120),
            "square": module.inputs(seeded(3), 2, 41, 41), "zeros": (torch.zeros_like(x),), "negatives": (-x,),
            "empty batch": module.inputs(seeded(4), 0, 40, 50)}
    assert_eager_unchanged(variant["original"], variant["rewritten"], sets)


def test_nunif_depth_anything_alias_migrates() -> None:
    assert_migrate_corrects(NUNIF, "TRT730", "trt730_migrate_nunif")


FAIRSEQ = VARIANTS / "fairseq_downsampled_attention_scalar_bias.py"


def test_fairseq_attention_alias_rewritten_from_the_code_alone(tmp_path: Path) -> None:
    """fairseq's single-head attention with a scalar bias: ``tgt_size = tgt_len`` then ``tgt_size += 1`` inside the
    ``if use_scalar_bias:`` (the alias reached from the block around it). Safe from the code alone; eager mode
    unchanged on the example, at other lengths and batches, one step, zeros, negatives and an empty batch; the
    original's export stops at the output's ``view`` by ``tgt_len`` (one step too many while tracing); the
    rewritten one equals eager mode at other lengths and batches."""
    assert rules_found(FAIRSEQ.read_text(), select=("TRT730",)) == ["TRT730"]
    assert_safe_rewrite_exports(FAIRSEQ, "TRT730", tmp_path, ("            tgt_size = tgt_size + 1\n",),
                                [(9, 3), (1, 1), (3, 0), (2, 5)], "is invalid for input of size")
    variant = rewritten_variant(FAIRSEQ, "TRT730", tmp_path)
    x = variant["module"].inputs(seeded(0))[0]
    assert_eager_unchanged(variant["original"], variant["rewritten"], {"zeros": (torch.zeros_like(x),),
                                                                       "negatives": (-x.abs(),)})


def test_fairseq_attention_alias_migrates() -> None:
    assert_migrate_applies(FAIRSEQ, "TRT730", "trt730_migrate_fairseq")


T5 = VARIANTS / "nvidia_bart_t5_attention_past.py"


def test_t5_attention_with_a_cache_rewritten_from_the_code_alone(tmp_path: Path) -> None:
    """T5's attention over cached keys and values (NVIDIA's copy): ``real_seq_length = seq_length`` (from
    ``.shape[:2]``) then ``real_seq_length += past_key_value[0].shape[2]``. Safe from the code alone; eager mode
    unchanged on the example, at other batches, new and cached lengths (none cached too), zeros and negatives; the
    original's export stops at ``scores += position_bias`` (the cut kept every position while tracing); the
    rewritten one equals eager mode at other batches and lengths."""
    assert rules_found(T5.read_text(), select=("TRT730",)) == ["TRT730"]
    assert_safe_rewrite_exports(T5, "TRT730", tmp_path, (
        "            real_seq_length = real_seq_length + past_key_value[0].shape[2]\n",),
        [(3, 1, 9), (1, 4, 2), (2, 3, 0), (4, 1, 40)], "doesn't match the broadcast shape")
    variant = rewritten_variant(T5, "TRT730", tmp_path)
    hidden, past_key, past_value = variant["module"].inputs(seeded(0))
    assert_eager_unchanged(variant["original"], variant["rewritten"], {
        "zeros": (torch.zeros_like(hidden), torch.zeros_like(past_key), torch.zeros_like(past_value)),
        "negatives": (-hidden.abs(), -past_key.abs(), -past_value.abs())})


def test_t5_attention_with_a_cache_migrates() -> None:
    assert_migrate_applies(T5, "TRT730", "trt730_migrate_t5")


def test_the_variants_taken_cite_distinct_owners() -> None:
    """The four variants the rule takes that cite a repository at a commit come from four owners (Demucs v3, the
    fifth, cites its PyPI wheel; audiocraft's crop is left alone and not counted)."""
    assert_cited_by_distinct_owners(VARIANTS, ["uvr_demucs_v2_apply", "nunif_depth_anything_preprocess",
                                               "fairseq_downsampled_attention_scalar_bias",
                                               "nvidia_bart_t5_attention_past"], count=4)
