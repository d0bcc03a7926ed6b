"""TRT705 nonzero: findings by target, inserted helpers left alone, and the premise checked by
export (the graph holds NonZero)."""

from __future__ import annotations

import textwrap

import torch

from snippets import HEADER, found, messages
from support import onnx_ops, rules_found
from trtcodemod.trt.support import is_supported


def test_nonzero_positives_and_negatives() -> None:
    code = """
    import torch as th
    from torch import masked_select as msel

    def select(scores, boxes, a):
        i = th.nonzero(scores > 0.5)
        j = (scores > 0.5).nonzero(as_tuple=True)
        k = msel(boxes, boxes > 0)
        m = boxes.masked_select(boxes > 0)
        n = th.argwhere(scores)
        o = np.nonzero(a), np.argwhere(a), th.where(scores > 0)
        return i, j, k, m, n, o
    """
    assert found(code, "TRT705") == ["TRT705"] * 5
    assert "TRT103" in rules_found(HEADER + textwrap.dedent(code))  # one-argument where: not ours


def test_nonzero_message_follows_target() -> None:
    code = "def f(s):\n    return torch.nonzero(s)\n"
    assert "lacks" in messages(code, "TRT705", target="8.4")[0]
    assert "depends on the data" in messages(code, "TRT705", target="10.x")[0]


def test_nonzero_not_reported_in_inserted_helpers() -> None:
    """TRT201's inserted `_trt_mask_index` uses nonzero on purpose; it must not be reported."""
    from trtcodemod.astutil import code_of
    from trtcodemod.helpers import helper_definitions

    helper = "\n\n".join(code_of(d) for d in helper_definitions(["_trt_mask_index"]))
    assert "nonzero" in helper
    assert found(helper, "TRT705") == []
    # The same code under a name of the user's is reported (once per nonzero call it makes).
    renamed = found(helper.replace("def _trt_mask_index", "def mask_index"), "TRT705")
    assert renamed and set(renamed) == {"TRT705"}


def test_nonzero_premise_exports_nonzero() -> None:
    def f(x, m):
        return torch.nonzero(x), torch.masked_select(x, m)

    class M(torch.nn.Module):
        def forward(self, x, m):
            return f(x, m)

    ops = onnx_ops(M(), (torch.randn(5), torch.rand(5) > 0.5))
    assert ops.count("NonZero") == 2
    assert is_supported("NonZero", "8.4") is False and is_supported("NonZero", "8.5") is True
