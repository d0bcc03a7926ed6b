"""What rules produce: metadata, fix safety, fixes and findings (plain data).

Kept apart from :mod:`trtcodemod.rules` so that the per-file context can hold findings
without importing the rule base class that takes the context (imports go one way:
``rules`` → ``context`` → ``findings``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional, Sequence, Union

import libcst as cst

from trtcodemod.versions import Version


class Safety(str, enum.Enum):
    """How far a fix can be trusted (Ruff's model)."""

    SAFE = "safe"  # same function on every input
    UNSAFE = "unsafe"  # holds under a stated assumption; needs --unsafe
    NONE = "none"  # detect only

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Example:
    """A before/after pair the test-suite executes and the docs render.

    ``after`` is None for code the rule reports without rewriting; ``unsafe`` marks
    examples whose rewrite only happens with ``--unsafe``.
    """

    before: str
    after: str | None = None
    unsafe: bool = False


@dataclass(frozen=True)
class RuleInfo:
    """Everything the CLI, the docs and the README table say about a rule."""

    id: str
    name: str
    summary: str
    doc: str
    fix: Safety
    examples: Sequence[Example] = ()
    #: The rule matters only when the target TensorRT is older than this (None: always).
    needed_before: Version | None = None
    #: Public sources the documentation leans on.
    references: Sequence[str] = ()
    #: Runs only when selected by its ID, an ID prefix of at least four characters or its
    #: name; ``ALL`` leaves it out (a rule whose findings rarely change the exported graph).
    opt_in: bool = False
    #: What the rule's unsafe fix assumes, in words: ``explain`` prints it and ``migrate``'s
    #: report states it beside a fix that rests on it.
    assumption: str = ""
    #: Every known way the assumption can fail (``explain`` lists them).
    fails_when: Sequence[str] = ()
    #: What observation covers the assumption: a prover of :mod:`trtcodemod.evidence.proofs`
    #: (takes its ``Observation``, returns the fact in words or None). With one, ``migrate`` and
    #: ``--facts`` apply the unsafe fix where the run shows the assumption held; without, the
    #: fix is a candidate that the verification keeps or reverts.
    proof: Optional[Callable[[Any], Optional[str]]] = None

    def applies_to(self, target: Version) -> bool:
        return self.needed_before is None or target < self.needed_before


Replacement = Union[cst.CSTNode, cst.FlattenSentinel, cst.RemovalSentinel]


@dataclass
class Fix:
    """Edits that resolve one finding.

    ``replacements`` maps original nodes (by identity) to what replaces them.
    ``helpers`` names functions from :mod:`trtcodemod.helpers` that the new code
    calls; the engine inserts each once at the top of the module.
    """

    replacements: Mapping[cst.CSTNode, Replacement]
    safety: Safety = Safety.SAFE
    helpers: Sequence[str] = ()
    #: What the rule's own analysis adds to the fix's proof (``migrate`` reports it beside the
    #: observation): why this form of the fix holds for every caller.
    evidence: str = ""
    #: The finding's lines run through every node the fix replaces (a rewrite of consecutive
    #: statements, TRT364's list, loop and tensor): a problem ``migrate`` locates at any of them is its.
    covers: bool = False
    #: A prover of this form of the fix, in place of the rule's (``RuleInfo.proof``): a form whose assumption
    #: only an observation can speak to (TRT101's emptiness exits) is applied where it proves it, never as a
    #: candidate, since the verification alone may never meet the case it assumes.
    proof: Optional[Callable[[Any], Optional[str]]] = None


@dataclass
class Finding:
    """One reported construct."""

    rule: str
    name: str
    message: str
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    fix: Safety = Safety.NONE
    #: The edit, when the finding has one (not serialised).
    edit: Fix | None = field(default=None, repr=False, compare=False)

    def as_dict(self) -> dict[str, object]:
        return {
            "rule": self.rule,
            "name": self.name,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "message": self.message,
            "fix": self.fix.value,
        }


@dataclass
class PendingFinding:
    """A finding before positions are resolved (positions cost a pass; only pay when needed)."""

    info: RuleInfo
    node: cst.CSTNode
    message: str
    edit: Fix | None
    #: The classes/functions around the node, outermost first (to find its position cheaply).
    scopes: tuple[cst.CSTNode, ...] = ()
