"""The findings of the rules on a snippet with the usual imports above it, their messages, and a
model's TorchScript export (an ONNX Runtime session, a graph): the tests of the deployment rules
(TRT701-TRT707) and of the guidance rules (TRT602, TRT721-TRT725), one file per rule module in
``transforms/``, share them."""

from __future__ import annotations

import io
import textwrap
import warnings

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
