"""Rule metadata, findings and the base class every rule derives from.

A rule knows nothing about files, the command line or output formats: it looks at
LibCST nodes through a :class:`~trtcodemod.context.FileContext` and calls
:meth:`Rule.report`, optionally with a :class:`Fix`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Mapping, Sequence, Union

import libcst as cst

from trtcodemod.versions import Version

if TYPE_CHECKING:
    from trtcodemod.context import FileContext


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


class Rule(cst.BatchableCSTVisitor):
    """Base class of every rule: a batchable LibCST visitor with metadata attached.

    Subclasses set ``info`` and implement ``visit_<Node>`` / ``leave_<Node>``
    methods; all selected rules run together over one parse.
    """

    info: ClassVar[RuleInfo]
    #: Byte strings of which a file must contain at least one for this rule to find anything
    #: in it: every construct the rule reports spells one (the function, method or class it
    #: matches, in the call or in the import that binds it). Files with none skip the rule,
    #: which changes no finding. Empty: the rule runs on every file.
    needs_text: ClassVar[tuple[bytes, ...]] = ()

    def __init__(self, context: "FileContext") -> None:
        super().__init__()
        self.context = context

    @classmethod
    def may_find(cls, source: bytes | None) -> bool:
        """Whether the rule can find anything in ``source`` (None: unknown, so it may)."""
        return source is None or not cls.needs_text or any(text in source for text in cls.needs_text)

    def report(self, node: cst.CSTNode, message: str, fix: Fix | None = None,
               scopes: tuple[cst.CSTNode, ...] | None = None) -> None:
        """Record a finding at ``node``; ``fix`` is kept only if its safety is allowed.

        ``scopes``: the classes and functions around ``node`` when the traversal is no longer
        there (a finding held until its class ends); by default, where the traversal is.
        """
        self.context.add_finding(PendingFinding(self.info, node, message, fix), scopes)


def spelled(*names: str) -> tuple[bytes, ...]:
    """What a file that refers to one of the qualified ``names`` must contain: each name's
    last part. An import renames only the head of a dotted path, and a name imported under
    an alias is spelled in full in its import, so the last part is always written somewhere."""
    return tuple(sorted({name.rsplit(".", 1)[-1].encode() for name in names}))
