"""The deployment contract: engine signature order, feedback, JSON round trip, Markdown."""

import pytest

from trtcodemod.temporal.contract import DeploymentContract, StateSlot


def _contract() -> DeploymentContract:
    memory = StateSlot("prev_bev", "prev_bev", "prev_bev_out", (4, "batch", 8), "float32", "none", 0, "use_prev_bev",
                       written_at="bev.py:31")
    counter = StateSlot("frame", "frame", "frame_out", (), "int64", "value", 3)
    return DeploymentContract("bev:Fusion", "bev_export.py:FusionExport", ("image",), ("bev",), (memory, counter),
                              reset="reset")


def test_engine_signature_puts_each_indicator_after_its_state() -> None:
    contract = _contract()
    assert contract.engine_inputs() == ("image", "prev_bev", "use_prev_bev", "frame")
    assert contract.engine_outputs() == ("bev", "prev_bev_out", "frame_out")
    assert contract.feedback() == {"prev_bev_out": "prev_bev", "frame_out": "frame"}


def test_json_round_trip(tmp_path) -> None:
    contract = _contract()
    path = tmp_path / "contract.json"
    contract.write_json(path)
    assert DeploymentContract.read_json(path) == contract


def test_markdown_names_every_state_and_its_first_frame() -> None:
    page = _contract().to_markdown()
    assert "`prev_bev` (was `self.prev_bev`) | (4, batch, 8) | float32 | zeros, with `use_prev_bev` = 0" in page
    assert "| `frame` (was `self.frame`) | () | int64 | filled with 3 | `frame_out` | - |" in page
    assert "`reset()`" in page


def test_none_state_needs_an_indicator() -> None:
    with pytest.raises(ValueError, match="indicator"):
        StateSlot("prev", "prev", "prev_out", (2,), "float32", "none")
    with pytest.raises(ValueError, match="initial must be"):
        StateSlot("prev", "prev", "prev_out", (2,), "float32", "empty")
