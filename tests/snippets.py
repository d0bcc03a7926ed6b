"""The findings of the rules on a snippet with the usual imports above it, their messages, and a
model's TorchScript export (an ONNX Runtime session, a graph): the tests of the deployment rules
(TRT701-TRT707), of the guidance rules (TRT602, TRT721-TRT725) and of the size rules
(TRT711-TRT715), one file per rule module in ``transforms/``, share them."""

from __future__ import annotations

import io
import textwrap
import warnings

import numpy as np
import onnx
import onnxruntime as ort
import torch
import torch.nn as nn

from support import rules_found
from trtcodemod.engine import Options, check_source

HEADER = "import numpy as np\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"


def found(code: str, prefix: str = "TRT7", target: str = "8.6") -> list[str]:
    return [r for r in rules_found(HEADER + textwrap.dedent(code), target=target) if r.startswith(prefix)]


def messages(code: str, rule: str, target: str = "8.6") -> list[str]:
    findings = check_source((HEADER + textwrap.dedent(code)).encode(), "snippet.py", Options(target=target))
    return [f.message for f in findings if f.rule == rule]


def export_session(model: torch.nn.Module, args: tuple, names: list[str], axes: dict | None = None):
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, args, buffer, dynamo=False, opset_version=17, input_names=names,
                          dynamic_axes=axes or {})
    return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])



#: The guidance rules' snippets: ``copy``, ``Optional`` and ``Tensor`` imported too.
GUIDANCE_HEADER = (
    "import copy\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
    "from typing import Optional\nfrom torch import Tensor\n"
)


def found_selected(code: str, rule: str, target: str = "8.6") -> list[str]:
    """``rule``'s findings with only ``rule`` selected (an opt-in rule runs too)."""
    return [r for r in rules_found(GUIDANCE_HEADER + textwrap.dedent(code), select=(rule,), target=target) if r == rule]


def export_model(model: nn.Module, args: tuple, **kw) -> onnx.ModelProto:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, args, buffer, dynamo=False, **kw)
    return onnx.load_from_string(buffer.getvalue())


#: The size rules' snippets (TRT711-TRT715): ``math`` and NumPy imported too.
SIZE_HEADER = "import math\nimport numpy as np\nimport torch\nfrom torch import nn\n\n"


def forward(body: str, params: str = "x") -> str:
    lines = "".join(f"        {line}\n" for line in body.strip().splitlines())
    return f"class M(nn.Module):\n    def forward(self, {params}):\n{lines}"


def export_checked_session(model, args, names, dynamic_axes, *, dynamo: bool = False) -> ort.InferenceSession:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            program = torch.onnx.export(model, args, dynamo=True, input_names=names, dynamic_axes=dynamic_axes,
                                        verbose=False)
            program.save(buffer)
        else:
            torch.onnx.export(model, args, buffer, dynamo=False, opset_version=17, input_names=names,
                              dynamic_axes=dynamic_axes)
    onnx.checker.check_model(onnx.load_from_string(buffer.getvalue()))
    return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])


def ort_matches(session: ort.InferenceSession, model, *args: torch.Tensor) -> bool:
    """Whether the exported graph gives the eager result (shape and values) on ``args``."""
    expected = model(*args)
    expected = expected if isinstance(expected, (tuple, list)) else (expected,)
    feeds = {i.name: a.numpy() for i, a in zip(session.get_inputs(), args)}
    try:
        got = session.run(None, feeds)
    except Exception:  # noqa: BLE001 - a graph that cannot run on this size does not match
        return False
    return all(
        tuple(e.shape) == g.shape and np.allclose(e.detach().numpy(), g) for e, g in zip(expected, got)
    )


#: Edge tensors for a rewrite run before and after in eager mode and under the toolchains: zeros,
#: negatives, inf/NaN and -0.0, empty axes, a strided view, integers, and ranks 0 to 3.
EDGE_TENSORS = {
    "example": torch.randn(3, 5), "zeros": torch.zeros(4, 6), "negatives": -torch.rand(2, 3) - 1,
    "inf-nan": torch.tensor([[float("nan"), float("inf"), -float("inf"), -0.0]] * 3),
    "empty-rows": torch.zeros(0, 4), "empty-columns": torch.zeros(3, 0), "one": torch.ones(1, 1),
    "strided": torch.randn(6, 4).t(), "int": torch.arange(12).reshape(3, 4), "3-d": torch.randn(2, 3, 4),
    "0-d": torch.tensor(1.0), "1-d": torch.randn(5),
}
