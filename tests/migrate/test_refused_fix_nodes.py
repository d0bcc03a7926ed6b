"""A fix at whose line ONNX Runtime refuses the rewritten graph, where the original's graph ran, goes back alone.

SEA-RAFT in ptlflow (zoo 54) crops its padded flow only ``if x.shape[-2] == self.tgt_size[0] and ...``. Once TRT712
makes the target size follow the input, TRT713's selection of the cropped and the uncropped flow is a ``Where`` of two
tensors that have one shape at the traced size (a multiple of the stride: nothing padded) and no other: ONNX Runtime
refuses it at another size. No single rule reproduced that (it takes TRT712 and TRT713 together), and the original's
own graph was unfaithful, so the refusal read as the original's difference and every fix went back as not proved,
those that made the graph follow the input too. The fix whose helper made the refused node goes back now, and the
others are verified without it. The model is ``tests/recipe_variants/trt713/ptlflow_input_padder_unfill.py``.
"""

from __future__ import annotations

from types import SimpleNamespace

import torch
from support import TESTS, migrate_json
from variant_models import axes_json, built, line_of, load_variant

from trtcodemod.migrate.plan import APPLY, Decision, Plan
from trtcodemod.migrate.run import _revert_refusing_fixes
from trtcodemod.verify.results import ExportCheck, FailedNode, ModelSettings, VerifyReport

PADDER = TESTS / "recipe_variants" / "trt713" / "ptlflow_input_padder_unfill.py"


def test_the_unpadding_selection_goes_back_and_the_size_fixes_stay() -> None:
    module = load_variant(PADDER, "refused_fix_nodes_padder")
    report = migrate_json(PADDER, axes_json(module))
    assert report["before"]["faithful"] is False  # the normalising width is baked
    unfill = line_of(PADDER, "if x.shape[-2] == self.tgt_size[0] and x.shape[-1] == self.tgt_size[1]:")
    [reverted] = report["reverted"]
    assert (reverted["rule"], reverted["line"]) == ("TRT713", unfill), report["reverted"]
    assert "refuses the rewritten graph's Where node" in reverted["why"] and "_trt_shortcut_where" in reverted["why"]
    applied = {(fix["rule"], fix["line"]) for fix in report["applied"]}
    assert {("TRT712", line_of(PADDER, "int(math.ceil(float(dims[-2]) / stride)) * stride,")),
            ("TRT712", line_of(PADDER, "return 2 * flow / float(w - 1)"))} <= applied, applied
    assert report["after"]["faithful"] is True and report["exit_code"] == 0, report["remaining"]


def test_the_premise_the_two_branches_share_a_shape_only_at_a_multiple_of_the_stride() -> None:
    module = load_variant(PADDER, "refused_fix_nodes_premise")
    model = built(module)
    for height, width, same in ((32, 48, True), (33, 50, False), (1, 1, False), (8, 16, True)):
        padder = module.Padder((1, 6, height, width), 8)
        padded = padder.fill(torch.zeros(1, 2, height, width))
        assert (padder.unpad(padded).shape == padded.shape) is same
        with torch.no_grad():
            out = model(torch.rand(1, 6, height, width))
        assert out.shape == (1, 2, height, width)  # the crop always takes the padding off again


def _plan(path: str, line: int) -> tuple[Plan, Decision]:
    finding = SimpleNamespace(path=path, rule="TRT713", line=line, end_line=line + 1, column=8)
    decision = Decision(finding, APPLY)
    plan = Plan()
    plan.decisions[decision.key] = decision
    return plan, decision


def _report(before: ExportCheck, after_source: str) -> VerifyReport:
    after = ExportCheck("after", "torchscript", faithful=False, baked=True, failing_sets=[3], detail="set 3: Fail",
                        failed_node=FailedNode("/Where", "Where", after_source))
    report = VerifyReport(name="m", model=ModelSettings("m.py", "build", "inputs", {}, ["torchscript"], 17, "8.6",
                                                        False, 1e-4, 1e-4))
    report.export_checks = [before, after]
    return report


def test_only_a_refusal_new_to_the_rewrite_or_made_in_its_helper_takes_a_fix_back() -> None:
    ran = ExportCheck("before", "torchscript", faithful=False, baked=True, failing_sets=[3], detail="values differ")
    refused = ExportCheck("before", "torchscript", faithful=False, failing_sets=[3], detail="ONNX Runtime CPU failed",
                          failed_node=FailedNode("/Reshape", "Reshape", "/m/pad.py:9"))
    helper = "/m/pad.py:40 (in _trt_shortcut_where, inserted by trtcodemod)"
    # The original's graph ran where the rewritten one is refused, at the fix's line.
    plan, decision = _plan("/m/pad.py", 40)
    assert _revert_refusing_fixes(_report(ran, "/m/pad.py:41"), plan) and decision.key in plan.reverted
    assert "at this fix's line" in plan.reverted[decision.key] and plan.applied == []
    # Made inside the helper the fix inserted: the fix's, whatever the original's graph did.
    plan, decision = _plan("/m/pad.py", 40)
    assert _revert_refusing_fixes(_report(refused, helper), plan)
    assert "inside _trt_shortcut_where" in plan.reverted[decision.key]
    # The original's graph was refused too, at a node of the fix's line that no helper made: not the fix's doing.
    plan, _ = _plan("/m/pad.py", 40)
    assert not _revert_refusing_fixes(_report(refused, "/m/pad.py:40"), plan) and not plan.reverted
    # A node made at another line, or in another file, is not this fix's.
    for source in ("/m/pad.py:42", "/m/other.py:40 (in _trt_shortcut_where, inserted by trtcodemod)"):
        plan, _ = _plan("/m/pad.py", 40)
        assert not _revert_refusing_fixes(_report(ran, source), plan) and not plan.reverted
