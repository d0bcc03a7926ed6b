"""TRT390/TRT391: a decision on a size that the trace bakes, one branch of which holds at every size, taken while
tracing: the `if` branch first, the other once that one is taken back.

diffusers' conditional UNet forwards the skip connections' sizes to its upsamplers only where the latents are not a
multiple of the upsampling factor (``tests/recipe_variants/trt390/diffusers_forward_upsample_size.py``): traced at a
multiple, the graph fails at any other size. The flipped form below (the special case written in the `else`) needs
the second choice.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from support import TESTS, assert_same, import_file, migrate_json, rewrite, rules_found
from variant_models import axes_json, line_of, load_variant

from trtcodemod.migrate.plan import APPLY, INFO, LAST_RESORT, Decision, _second_choices_held

UNET = TESTS / "recipe_variants" / "trt390" / "diffusers_forward_upsample_size.py"

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
