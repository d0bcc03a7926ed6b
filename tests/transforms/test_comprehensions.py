"""TRT406 tensor-comprehension (comprehensions over tensors): what fires, what must not, and what
the exported graph bakes in (was part of test_repeat_transpose.py)."""

from __future__ import annotations

import io
import warnings

import onnxruntime as ort
import pytest
import torch

from support import rewrite, rules_found

HEADER = "import torch\nimport numpy as np\nfrom torch import nn\n"


def _module(code: str) -> torch.nn.Module:
    namespace: dict = {}
    exec(compile(code, "snippet.py", "exec"), namespace)
    return namespace["M"]()


MODULE = "class M(nn.Module):\n    def forward(self, x, feats, cfg: dict, t: torch.Tensor):\n{body}        return x\n"


@pytest.mark.parametrize("body", [
    "        y = torch.stack([self.fc(r) for r in x.unbind(0)])\n",
    "        y = [x[i] for i in range(x.shape[0])]\n",
    "        y = [x[i] for i in range(x.size(0))]\n",
    "        y = [x[i] for i in range(1, x.size()[0])]\n",
    "        bs, c, h, w = x.shape\n        y = [x[i] for i in range(bs)]\n",
    "        n = x.size(0)\n        y = (x[i] for i in range(n))\n",
    "        y = torch.stack([r.sum() for r in t])\n",
    "        y = {i: t[i] for i in range(len(t))}\n",
    "        y = [r * i for i, r in enumerate(torch.unbind(x))]\n",
    "        s = torch.sigmoid(x)\n        y = [r.max() for r in s]\n",
    "        y = [a + b for a, b in zip(t, feats)]\n",
])
def test_trt406_fires(body: str) -> None:
    code = HEADER + MODULE.format(body=body)
    assert rules_found(code, select=("TRT406",)) == ["TRT406"]
    assert "TRT406" not in rules_found(code), "opt-in rule ran under ALL"
    assert rewrite(code, unsafe=True, select=("TRT406",)) == code


@pytest.mark.parametrize("body", [
    "        y = [conv(f) for f in feats]\n",                       # a list of feature maps
    "        y = [i for i in range(self.num_heads)]\n",             # a configuration value
    "        y = [v for v in cfg.values()]\n",
    "        y = [s for s in 'a.b'.split('.')]\n",
    "        y = [p.sum() for p in torch.chunk(x, 3)]\n",            # a fixed count
    "        y = [i for i in range(4)]\n",
    "        y = [x[i] for i in range(len(feats))]\n",              # len of a list
    "        a = np.zeros((3, 4))\n        y = [r for r in range(a.size)]\n",
    "        if self.training:\n            y = [x[i] for i in range(x.size(0))]\n",   # not exported
    "        x = list(feats)\n        y = [r for r in x]\n",
])
def test_trt406_look_alikes(body: str) -> None:
    code = HEADER + MODULE.format(body=body)
    assert rules_found(code, select=("TRT406",)) == []


def test_trt406_only_in_forward_code() -> None:
    code = HEADER + "def helper(x):\n    return [x[i] for i in range(x.shape[0])]\n"
    assert rules_found(code, select=("TRT406",)) == []
    code = HEADER + ("class M(nn.Module):\n    def __init__(self, x):\n        super().__init__()\n"
                     "        self.rows = [x[i] for i in range(x.shape[0])]\n")
    assert rules_found(code, select=("TRT406",)) == []


def test_trt406_what_the_export_bakes_in() -> None:
    """The documented failure: the count traced with is the count in the graph."""
    split = _module(HEADER + "class M(nn.Module):\n    def forward(self, x):\n"
                    "        return torch.stack([t.sum(0) for t in x])\n")
    gather = _module(HEADER + "class M(nn.Module):\n    def forward(self, x):\n"
                     "        return torch.stack([x[i] * i for i in range(x.shape[0])])\n")
    for model, expect_error in ((split, True), (gather, False)):
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (torch.randn(2, 3, 4),), buffer, dynamo=False, opset_version=17,
                              input_names=["x"], dynamic_axes={"x": {0: "n"}})
        session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
        x = torch.randn(5, 3, 4)
        if expect_error:
            with pytest.raises(Exception):
                session.run(None, {"x": x.numpy()})
        else:
            got = session.run(None, {"x": x.numpy()})[0]
            assert got.shape[0] == 2 and model(x).shape[0] == 5  # silently the traced count
