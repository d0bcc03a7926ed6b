"""The safety contract for TRT803's rewrite (`topk(x, min(C, x.shape[d]))` → `_trt_topk_capped`).

The fix is unsafe only for what the exported graph does among equal values (documented);
in eager mode it must keep everything: values, indices, dtype, shape, strides, gradients,
aliasing and exceptions, on drawn tensors with edge values (inf, NaN, -0.0, empty axes,
0-d, integer and half dtypes, non-contiguous layouts).
"""

from __future__ import annotations

import hypothesis.strategies as st
import pytest
import torch
from hypothesis import HealthCheck, given, settings

from safety import assert_same_run, import_source, run_once
from support import export_formulation, rewrite
from test_safety import tensors

HEADER = "import torch\nfrom torch import nn\n\n"

SETTINGS = settings(max_examples=30, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

PROGRAMS = [
    "class M(nn.Module):\n    def forward(self, x, cap: int):\n"
    "        return x.topk(min(cap, x.shape[-1]))\n",
    "class M(nn.Module):\n    def forward(self, x, cap: int):\n"
    "        values, indices = torch.topk(x, min(x.size(0), cap), dim=0, sorted=True)\n"
    "        return values * 2, indices\n",
    "class M(nn.Module):\n    def forward(self, x, cap: int):\n"
    "        return x.topk(min(cap, x.size()[-1]), -1, True, False)\n",
]


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("safety_detection")
    table = []
    for body in PROGRAMS:
        source = HEADER + body
        after = rewrite(source, unsafe=True, select=("TRT803",))
        assert "_trt_topk_capped(" in after, "the fix did not apply"
        assert rewrite(source, select=("TRT803",)) == source, "an unsafe fix ran without --unsafe"
        table.append((import_source(source, folder)["M"], import_source(after, folder)))
    return table


@pytest.mark.parametrize("number", range(len(PROGRAMS)))
@SETTINGS
@given(data=st.data())
def test_eager_contract(loaded, number: int, data: st.DataObject) -> None:
    before_type, after_ns = loaded[number]
    x = data.draw(tensors(dtypes=(torch.float32, torch.float16, torch.float64, torch.bfloat16, torch.int64,
                                  torch.int32, torch.bool), min_dim=0, max_dim=3))
    cap = data.draw(st.sampled_from([-1, 0, 1, 2, 5, 100]))
    before = run_once(before_type(), [x, cap])
    after = run_once(after_ns["M"](), [x, cap])
    assert_same_run(before, after)


def test_the_contract_can_fail(loaded) -> None:
    """Forcing the export form into eager mode breaks the contract on a -inf tie (caught here)."""
    before_type, after_ns = loaded[0]
    x = torch.tensor([[1.0, -float("inf"), 2.0]])
    before = run_once(before_type(), [x, 5])
    with export_formulation(after_ns):
        after = run_once(after_ns["M"](), [x, 5])
    # Values are the same; the strides of the cut results differ from topk's own (a slice of a
    # wider tensor), which the eager contract sees: the export form must stay out of eager mode.
    with pytest.raises(AssertionError, match="strides"):
        assert_same_run(before, after)
