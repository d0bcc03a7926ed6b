"""TRT712 where the number bounds a loop that runs once at every size (its step is its stop).

torchcrepe's ``preprocess`` (``tests/recipe_variants/trt712/torchcrepe_one_batch.py``, cited there) loops
``for i in range(0, total_frames, batch_size)`` with ``batch_size = total_frames`` by default: one round
whatever the length, so the count a trace unrolls is every length's, and keeping ``total_frames`` and
``end`` traced is the whole fix. The rule offers its fix there; where the step is another number, the
rounds follow the size and the rule still names the loop with no fix. ``migrate`` applies it and ends
equivalent at other lengths (zoo 62's ``torchcrepe_tiny_embedding``).
"""

from __future__ import annotations

from support import TESTS, migrate_json
from variant_models import axes_json, line_of, load_variant

from trtcodemod.engine import Options, check_source

VARIANT = TESTS / "recipe_variants" / "trt712" / "torchcrepe_one_batch.py"


def _messages(source: str) -> dict[int, tuple[str, str]]:
    findings = check_source(source.encode(), "m.py", Options(select=("TRT712",)))
    return {f.line: (f.fix.value, f.message) for f in findings}


LOOP = """import torch

def frames(audio: torch.Tensor, hop: int = 4, batch_size=None):
    total = 1 + int(audio.size(1) // hop)
    batch_size = total if batch_size is None else batch_size
    for i in range(0, total, batch_size):
        yield audio[:, i * hop:(i + batch_size) * hop]
"""


def test_a_loop_whose_step_is_its_stop_leaves_the_fix() -> None:
    found = _messages(LOOP)
    assert found[4][0] != "none" and "trip count" not in found[4][1], found


def test_a_loop_with_another_step_keeps_the_trip_count_note_and_no_fix() -> None:
    found = _messages(LOOP.replace("    batch_size = total if batch_size is None else batch_size\n", "")
                      .replace("range(0, total, batch_size)", "range(0, total, 8)"))
    assert found[4][0] == "none" and "trip count" in found[4][1], found


def test_migrate_takes_torchcrepe_s_single_batch_framing() -> None:
    report = migrate_json(VARIANT, axes_json(load_variant(VARIANT, "trt712_one_round")))
    applied = {(fix["rule"], fix["line"]) for fix in report["applied"]}
    assert ("TRT712", line_of(VARIANT, "total_frames = 1 + int(")) in applied, (report["applied"], report["remaining"])
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report.get("reverted"))
