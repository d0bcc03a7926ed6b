"""One TensorRT issue of a graph, in a module of its own: the verify report types a graph's
check with it, and reading a report back must not import ONNX (``check.py`` does)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ERROR = "error"
WARNING = "warning"


@dataclass
class TrtIssue:
    """One reason TensorRT may reject or mishandle a node."""

    op: str
    node: str
    reason: str
    source: str | None = None
    rule: str | None = None
    severity: str = ERROR

    def to_dict(self) -> dict[str, Any]:
        return {
            "op": self.op, "node": self.node, "reason": self.reason,
            "source": self.source, "rule": self.rule, "severity": self.severity,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "TrtIssue":
        return cls(data.get("op", "?"), data.get("node", ""), data.get("reason", ""), data.get("source"),
                   data.get("rule"), data.get("severity", ERROR))
