"""TRT721 none-check (``is None`` on optional inputs and run-time state): positive and look-alike
snippets, and the export behaviour its documentation claims (a trace keeps one branch), checked
with torch 2.13's TorchScript exporter. Also the guidance rules' detect-only contract (TRT602,
TRT721, TRT723, TRT724: no rewrite of their examples), one parametrized test across them; their
other tests are in their modules' files (test_pooling.py, test_layers.py).
"""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn

from snippets import GUIDANCE_HEADER as HEADER, export_model, found_selected as found
from support import rewrite


@pytest.mark.parametrize("rule", ["TRT721", "TRT723", "TRT724"])  # TRT602 has a fix since its exact bins
def test_detect_only(rule: str) -> None:
    from trtcodemod.registry import rule_by_id

    info = rule_by_id(rule)
    assert info is not None and info.fix.value == "none"
    for example in info.examples:
        source = HEADER + example.before
        assert rewrite(source, unsafe=True, select=(rule,), target="8.0") == source


# --- TRT721 is None on optional inputs and run-time state -------------------------------------

STATE = """
class Encoder(nn.Module):
    def __init__(self, norm=None):
        super().__init__()
        self.norm = norm
        self.prev_bev = None
        self.cache = None
        self.reparam = None
        self.proj = nn.Linear(4, 4)

    def reset(self):
        self.cache = None

    def fuse(self):
        self.reparam = self.proj

    def _store(self, x):
        self.prev_bev = x

    def forward(self, x):
        if self.norm is not None:          # configuration: static
            x = self.norm(x)
        if self.prev_bev is None:          # state written by a method forward calls
            prev = torch.zeros_like(x)
        else:
            prev = self.prev_bev
        use_cache = self.cache is not None  # only reset() writes it: fixed while tracing
        if self.reparam is not None:        # model surgery before the export: configuration
            x = self.reparam(x)
        self._store(x)
        assert self.prev_bev is not None
        return self.proj(x + prev)
"""


def test_state_checks() -> None:
    from trtcodemod.engine import Options, check_source

    findings = check_source((HEADER + STATE).encode(), "m.py", Options(select=("TRT721",)))
    messages = [f.message for f in findings]
    assert len(findings) == 1, messages
    assert "self.prev_bev" in messages[0] and "`_store`" in messages[0]


@pytest.mark.parametrize("code", [
    # forward inputs with a None default, visibly tensors
    "class A(nn.Module):\n    def forward(self, q, mask: Optional[Tensor] = None):\n"
    "        if mask is not None:\n            q = q + mask\n        return q\n",
    "class A(nn.Module):\n    def forward(self, q, mask=None):\n"
    "        if mask is None:\n            mask = torch.ones_like(q)\n        return q * mask.float()\n",
    "class A(nn.Module):\n    def forward(self, q, pos=None):\n"
    "        return q if pos is None else torch.cat([q, pos], 1)\n",
    # state written in forward itself
    "class A(nn.Module):\n    def forward(self, x):\n        if self.memory is None:\n"
    "            self.memory = x\n        return x + self.memory\n",
])
def test_none_check_reported(code: str) -> None:
    assert found(code, "TRT721") == ["TRT721"]


@pytest.mark.parametrize("code", [
    # configuration set while building the module
    "class A(nn.Module):\n    def __init__(self, norm=None):\n        super().__init__()\n        self.norm = norm\n"
    "    def forward(self, x):\n        if self.norm is not None:\n            x = self.norm(x)\n        return x\n",
    # built by a helper only __init__ calls
    "class A(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self._build()\n"
    "    def _build(self):\n        self.head = None\n"
    "    def forward(self, x):\n        return x if self.head is None else self.head(x)\n",
    # attribute never assigned in the class: where it changes is not visible
    "class A(nn.Module):\n    def forward(self, x):\n        if self.downsample is not None:\n"
    "            x = self.downsample(x)\n        return x\n",
    # an optional argument with no sign of being a tensor (metadata)
    "class A(nn.Module):\n    def forward(self, x, img_metas=None):\n        if img_metas is None:\n"
    "            img_metas = {}\n        return x\n",
    # rebound before the test: no longer the input
    "class A(nn.Module):\n    def forward(self, x, mask=None):\n        mask = self.make_mask(x)\n"
    "        if mask is not None:\n            x = x * mask.float()\n        return x\n",
    # not a module; not forward; training-only; assert; a required argument
    "class Tracker:\n    def forward(self, x, mask=None):\n        if mask is not None:\n"
    "            x = x * mask.float()\n        return x\n",
    "class A(nn.Module):\n    def helper(self, x, mask=None):\n        if mask is not None:\n"
    "            x = x * mask.float()\n        return x\n",
    "class A(nn.Module):\n    def forward(self, x, mask=None):\n        if self.training:\n"
    "            if mask is not None:\n                x = x * mask.float()\n        return x\n",
    "class A(nn.Module):\n    def forward(self, x, mask=None):\n        assert mask is not None\n"
    "        return x * mask.float()\n",
    "class A(nn.Module):\n    def forward(self, x, mask):\n        if mask is not None:\n"
    "            x = x * mask.float()\n        return x\n",
    # `==` None and `is` on something else
    "class A(nn.Module):\n    def forward(self, x, mask=None):\n        if x.dtype is torch.float16:\n"
    "            x = x.float()\n        return x * mask.float()\n",
])
def test_none_check_not_reported(code: str) -> None:
    assert found(code, "TRT721") == []


class _Masked(nn.Module):
    def forward(self, q, mask: torch.Tensor | None = None):
        if mask is not None:
            q = q * mask
        return q + 1


def test_trace_keeps_one_branch() -> None:
    q = torch.randn(2, 3)
    without = export_model(_Masked(), (q,), input_names=["q"])
    assert [i.name for i in without.graph.input] == ["q"]
    with_mask = export_model(_Masked(), (q, torch.ones(2, 3)), input_names=["q", "mask"])
    assert [i.name for i in with_mask.graph.input] == ["q", "mask"]
    assert "Mul" in [n.op_type for n in with_mask.graph.node]
    assert "Mul" not in [n.op_type for n in without.graph.node]


@pytest.mark.parametrize("code", [
    # a container of tensors and a size option are no tensors
    "class M(nn.Module):\n    def forward(self, x, targets: Optional[list[dict[str, torch.Tensor]]] = None):\n"
    "        if targets is not None:\n            x = x + 1\n        return x\n",
    "class M(nn.Module):\n    def forward(self, x, patch_size=None):\n        if patch_size is None:\n"
    "            patch_size = 4\n        return F.interpolate(x, size=patch_size)\n",
])
def test_none_checks_on_non_tensors_stay_quiet(code: str) -> None:
    from trtcodemod.engine import Options, check_source

    source = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nfrom typing import Optional\n" + code
    assert check_source(source.encode(), "m.py", Options(select=("TRT721",))) == []
