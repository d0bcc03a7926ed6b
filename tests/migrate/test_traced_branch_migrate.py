"""TRT390/TRT391: a decision on a size that the trace bakes, one branch of which holds at every size, taken while
tracing: the `if` branch first, the other once that one is taken back.

diffusers' conditional UNet forwards the skip connections' sizes to its upsamplers only where the latents are not a
multiple of the upsampling factor (``tests/recipe_variants/trt390/diffusers_forward_upsample_size.py``): traced at a
multiple, the graph fails at any other size. The flipped form below (the special case written in the `else`) needs
the second choice. Four more real forms (``REAL``): ViewDiff's UNet and AnimateDiff's video UNet (5-D latents, three
sizes forwarded) decide with ``any`` over the sides, MambaVision's stage pads to whole windows and crops back under
``if pad_r > 0 or pad_b > 0:`` (an `or` of comparisons, the first with an `else`), EfficientViT's local window
attention under ``if padding:`` (the decision bound to a name); each from the code alone, eager mode unchanged on
real tensors, the exported graph equal to eager mode at other sizes, and ``migrate`` end to end.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from support import TESTS, assert_same, import_file, migrate_json, rewrite, rules_found
from variant_models import (assert_cited_by_distinct_owners, assert_graph_within, axes_json, export_variant,
                            graph_matches, line_of, load_variant, seeded)

from trtcodemod.migrate.plan import APPLY, INFO, LAST_RESORT, Decision, _second_choices_held

VARIANTS_DIR = TESTS / "recipe_variants" / "trt390"
UNET = VARIANTS_DIR / "diffusers_forward_upsample_size.py"
#: Real variants TRT390 takes end to end (each docstring cites its source): file, (the test as the rule rewrites it,
#: the number of such tests: a pad and a crop, or one decision).
REAL = {
    "mambavision_window_pad_crop.py": ("if _trt_tracing() or (pad_r > 0 or pad_b > 0):", 2),
    "efficientvit_local_window_padding.py": ("if _trt_tracing() or padding:", 2),
    "viewdiff_any_side_forward_upsample_size.py": (
        "if _trt_tracing() or any(s % default_overall_up_factor != 0 for s in sample.shape[-2:]):", 1),
    "animatediff_video_forward_upsample_size.py": (
        "if _trt_tracing() or any(s % default_overall_up_factor != 0 for s in sample.shape[-2:]):", 1),
}
#: (height, width) of the inputs: the example's (a multiple of the window after the stride-2 embedding), sizes with a
#: partial window on one side or both, a map of one window.
SIZES = [(32, 32), (26, 38), (32, 22), (10, 18), (8, 8)]

#: The same special case written the other way round: the `if` branch is the ordinary one, the `else` the one that
#: holds at every size.
FLIPPED = '''\
import torch
import torch.nn.functional as F
from torch import nn


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.down = nn.Conv2d(3, 4, 3, stride=2, padding=1)
        self.merge = nn.Conv2d(7, 4, 3, padding=1)

    def forward(self, x):
        low = self.down(x)
        if x.shape[-1] % 2 == 0 and x.shape[-2] % 2 == 0:
            up = F.interpolate(low, scale_factor=2.0, mode="nearest")
        else:
            up = F.interpolate(low, size=x.shape[2:], mode="nearest")
            up = up * 1.0
        return self.merge(torch.cat([up, x], 1))


def build():
    torch.manual_seed(0)
    return Decoder().eval()


def inputs():
    return (torch.rand(2, 3, 8, 12, generator=torch.Generator().manual_seed(0)),)
'''


def test_the_if_branch_is_taken_while_tracing_and_the_graph_follows_every_size() -> None:
    module = load_variant(UNET, "traced_branch_unet")
    report = migrate_json(UNET, axes_json(module))
    test = line_of(UNET, "if dim % default_overall_up_factor != 0:")
    assert report["before"]["faithful"] is False  # the concatenation fails at an odd size
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT390", test)], report["applied"]
    assert report["after"]["faithful"] is True and report["exit_code"] == 0, report["remaining"]
    assert "if _trt_tracing() or dim % default_overall_up_factor != 0:" in report["diff"]


def test_the_other_branch_is_tried_once_the_first_goes_back(tmp_path: Path) -> None:
    path = tmp_path / "flipped_decoder.py"
    path.write_text(FLIPPED)
    report = migrate_json(path, '{"x": {"0": "batch", "2": "height", "3": "width"}}')
    reverted = [(fix["rule"], fix["line"]) for fix in report["tried_last"]]  # a failed last resort: said there
    test = FLIPPED.splitlines().index("        if x.shape[-1] % 2 == 0 and x.shape[-2] % 2 == 0:") + 1
    assert ("TRT390", test) in reverted, report["reverted"]
    assert ("TRT391", test) in [(fix["rule"], fix["line"]) for fix in report["applied"]], report["applied"]
    assert report["after"]["faithful"] is True and report["exit_code"] == 0, report["remaining"]


def test_eager_mode_is_unchanged_by_either_form(tmp_path: Path) -> None:
    original = load_variant(UNET, "traced_branch_eager").build()
    for rule in ("TRT390", "TRT391"):
        path = tmp_path / f"{rule}.py"
        path.write_text(rewrite(UNET.read_text(), unsafe=True, select=(rule,)))
        rewritten = import_file(path, f"traced_branch_{rule}").build()
        for shape in [(2, 3, 16, 20), (1, 3, 9, 9), (3, 3, 4, 7), (1, 3, 1, 1)]:
            x = torch.rand(*shape)
            for sample in (x, -x, torch.zeros_like(x), torch.full_like(x, float("nan"))):
                assert_same(original(sample), rewritten(sample))


def test_opt_in_and_unsafe_from_the_code_alone() -> None:
    source = UNET.read_text()
    assert "TRT390" not in rules_found(source) and "TRT391" not in rules_found(source)
    assert rules_found(source, select=("TRT390",)) == ["TRT390"]
    assert rewrite(source, select=("TRT390",)) == source
    assert "if not _trt_tracing() and dim % default_overall_up_factor != 0:" in \
        rewrite(source, unsafe=True, select=("TRT391",))
    once = rewrite(source, unsafe=True, select=("TRT390", "TRT391"))
    assert rewrite(once, unsafe=True, select=("TRT390", "TRT391")) == once  # the rewritten test is not taken again


@pytest.mark.parametrize("reverted_rules,live", [
    ((), "TRT389"), (("TRT389",), "TRT713"), (("TRT389", "TRT713"), "TRT390"),
    (("TRT389", "TRT713", "TRT390"), "TRT391"), (("TRT389", "TRT390"), "TRT713"),
])
def test_the_alternatives_are_tried_one_after_the_other(reverted_rules: tuple[str, ...], live: str) -> None:
    def decision(rule: str, column: int = 11) -> Decision:
        return Decision(SimpleNamespace(path="/m.py", rule=rule, line=7, end_line=7, column=column, fix=None), APPLY,
                        candidate=True)

    made = [decision(rule) for rule in ("TRT391", "TRT390", "TRT713", "TRT389")] + [decision("TRT390", column=30)]
    reverted = {d.key: "not proved" for d in made if d.finding.rule in reverted_rules and d.key[3] == 11}
    out = {(d.finding.rule, d.key[3]): d for d in _second_choices_held(made, reverted)}
    # Another test on the line: its own first choice, a branch taken while tracing, waits as a last resort.
    assert out[("TRT390", 30)].action == INFO and LAST_RESORT in out[("TRT390", 30)].reason
    for rule in ("TRT389", "TRT713", "TRT390", "TRT391"):
        if rule in reverted_rules:
            continue
        held = out[(rule, 11)]
        planned = rule == live and rule not in ("TRT390", "TRT391")
        assert (held.action == APPLY) is planned, (rule, held.action)
        if rule != live:
            assert f"tried only if {live}'s fix at the same test is taken back" in held.reason
        elif not planned:
            assert LAST_RESORT in held.reason


def _call_lines(path: Path, call: str) -> list[int]:
    return [i for i, text in enumerate(path.read_text().splitlines(), 1) if text.strip() == call]


@pytest.mark.parametrize("name", sorted(REAL))
def test_a_real_variant_is_rewritten_from_the_code_alone(name: str) -> None:
    path = VARIANTS_DIR / name
    module = load_variant(path, f"trt390_text_{path.stem}")
    source = path.read_text()
    written, count = REAL[name]
    assert len(_call_lines(path, module.CALL)) == count
    assert "TRT390" not in rules_found(source)  # opt-in
    assert rules_found(source, select=("TRT390",)) == ["TRT390"] * count
    assert rewrite(source, select=("TRT390",)) == source  # unsafe: nothing without --unsafe
    after = rewrite(source, unsafe=True, select=("TRT390",))
    assert [text.strip() for text in after.splitlines() if written in text] == [written] * count, after
    assert rewrite(after, unsafe=True, select=("TRT390", "TRT391")) == after  # not taken again


@pytest.mark.parametrize("name", sorted(REAL))
def test_a_real_variant_is_unchanged_in_eager_mode(tmp_path: Path, name: str) -> None:
    path = VARIANTS_DIR / name
    module = load_variant(path, f"trt390_eager_{path.stem}")
    original = module.build()
    for rule in ("TRT390", "TRT391"):
        rewritten_path = tmp_path / f"{rule}_{name}"
        rewritten_path.write_text(rewrite(path.read_text(), unsafe=True, select=(rule,)))
        rewritten = import_file(rewritten_path, f"trt390_eager_{rule}_{path.stem}").build()
        for batch, (height, width) in zip((2, 1, 3, 2, 1), SIZES):
            x = module.inputs(seeded(height + width), batch, height, width)[0]
            for sample in (x, -x, torch.zeros_like(x), torch.full_like(x, -1e4)):
                with torch.no_grad():
                    assert_same(original(sample), rewritten(sample))


@pytest.mark.parametrize("name", sorted(REAL))
def test_a_real_variant_exports_a_graph_that_follows_every_size(tmp_path: Path, name: str) -> None:
    """Traced at a multiple of the window, the original's graph neither pads nor crops and fails at other sizes;
    the rewritten one (its DYNAMIC axes) equals eager mode at every size and batch, zeros and negatives included."""
    path = VARIANTS_DIR / name
    module = load_variant(path, f"trt390_export_{path.stem}")
    original = module.build()
    rewritten_path = tmp_path / name
    rewritten_path.write_text(rewrite(path.read_text(), unsafe=True, select=("TRT390",)))
    rewritten = import_file(rewritten_path, f"trt390_export_rewritten_{path.stem}").build()
    example = module.inputs(seeded(0))
    sets = {f"{batch}x{height}x{width}": module.inputs(seeded(height * width), batch, height, width)
            for batch, (height, width) in zip((2, 1, 3, 2, 1), SIZES)}
    sets["zeros"] = (torch.zeros_like(module.inputs(seeded(4), 2, 26, 38)[0]),)
    sets["negatives"] = (-module.inputs(seeded(5), 3, 22, 30)[0],)
    before, _ = export_variant(original, example, module.DYNAMIC, tmp_path / "before.onnx", tmp_path)
    assert graph_matches(before, original, example)
    assert not graph_matches(before, original, sets["1x26x38"])
    after, _ = export_variant(rewritten, example, module.DYNAMIC, tmp_path / "after.onnx", tmp_path)
    for label, inputs in {"example": example, **sets}.items():
        assert_graph_within(after, original, inputs, 1e-5, label)


@pytest.mark.parametrize("name", sorted(REAL))
def test_migrate_takes_a_real_variant(name: str) -> None:
    path = VARIANTS_DIR / name
    module = load_variant(path, f"trt390_migrate_{path.stem}")
    report = migrate_json(path, axes_json(module))
    assert report["before"]["exported"] is True and report["before"]["faithful"] is False, report["before"]
    applied = {(fix["rule"], fix["line"]) for fix in report["applied"]}
    first, *crop = _call_lines(path, module.CALL)
    assert ("TRT390", first) in applied, (report["applied"], report["remaining"], report.get("reverted"))
    for line in crop:  # TRT390 too, or TRT717 (a crop done only where a size asks for it), which migrate tries first
        assert {("TRT390", line), ("TRT717", line)} & applied, report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["faithful"] is True and report["after"]["trt_errors"] == 0, report["after"]
    assert REAL[name][0] in report["diff"]


@pytest.mark.parametrize("test,rule,written", [
    ("H % 2 == 1 or W % 2 == 1", "TRT391", "not _trt_tracing() and (H % 2 == 1 or W % 2 == 1)"),
    ("H % 2 == 1 or W % 2 == 1", "TRT390", "_trt_tracing() or (H % 2 == 1 or W % 2 == 1)"),
    ("H > 2 and W > 2", "TRT390", "_trt_tracing() or (H > 2 and W > 2)"),
    ("(H > 2 and W > 2)", "TRT391", "(not _trt_tracing() and (H > 2 and W > 2))"),  # the written parentheses kept
])
def test_a_test_of_several_decisions_is_taken_whole_and_once(test: str, rule: str, written: str) -> None:
    """`not _trt_tracing() and a or b` would let `b` decide while tracing; `_trt_tracing() or a or b` parses as
    `(_trt_tracing() or a) or b` and was taken again on every pass: the test is parenthesized."""
    code = ("import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, x):\n"
            f"        _, _, H, W = x.shape\n        if {test}:\n            x = x + 1\n        return x\n")
    after = rewrite(code, unsafe=True, select=(rule,))
    assert f"        if {written}:\n" in after, after
    assert rewrite(after, unsafe=True, select=("TRT390", "TRT391")) == after
    namespace: dict = {}
    exec(compile(after, "after.py", "exec"), namespace)  # noqa: S102
    namespace["_trt_tracing"] = lambda: True
    model = namespace["M"]()
    x = torch.zeros(1, 1, 3, 4)  # H odd: the `or` holds, the `and` holds
    assert_same(model(x), x + (0 if rule == "TRT391" else 1))


def test_five_real_variants_from_five_owners() -> None:
    assert_cited_by_distinct_owners(VARIANTS_DIR, [Path(name).stem for name in (UNET.name, *REAL)])
