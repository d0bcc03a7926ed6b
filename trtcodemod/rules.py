"""Rule metadata, findings and the base class every rule derives from.

A rule knows nothing about files, the command line or output formats: it looks at
LibCST nodes through a :class:`~trtcodemod.context.FileContext` and calls
:meth:`Rule.report`, optionally with a :class:`Fix`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, ClassVar, TypeVar

import libcst as cst

# The data types live in `findings` (the context holds findings); re-exported here, where rules import them.
from trtcodemod.findings import Example, Finding, Fix, PendingFinding, Replacement, RuleInfo, Safety

if TYPE_CHECKING:
    from trtcodemod.context import FileContext

P = TypeVar("P")

__all__ = ["Example", "Finding", "Fix", "PendingFinding", "Replacement", "Rule", "RuleInfo",
           "Safety", "UndeclaredProvider", "spelled"]


class UndeclaredProvider(TypeError):
    """A rule asked for a provider missing from its ``requires`` (a bug of the rule)."""


@lru_cache(maxsize=None)
@lru_cache(maxsize=None)
def _required(cls: type) -> frozenset[type]:
    """The providers ``cls`` declares (its base classes' too), and those they declare in turn:
    a provider that consults another (``TensorEvidence`` asks ``ObservedFacts``) makes its
    readers read that one as well."""
    found: set[type] = set()
    todo = [kind for klass in cls.__mro__ for kind in vars(klass).get("requires", ())]
    while todo:
        kind = todo.pop()
        if kind not in found:
            found.add(kind)
            todo.extend(k for klass in kind.__mro__ for k in vars(klass).get("requires", ()))
    return frozenset(found)


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
    #: The per-file analyses (:mod:`trtcodemod.providers`) the rule reads through
    #: :meth:`provider`; a base class's declarations count for its subclasses.
    requires: ClassVar[tuple[type, ...]] = ()

    def __init__(self, context: "FileContext") -> None:
        super().__init__()
        self.context = context

    @classmethod
    def required(cls) -> frozenset[type]:
        """Every provider the rule declares, its base classes' included."""
        return _required(cls)

    def provider(self, kind: "type[P]") -> "P":
        """The file's one ``kind`` analysis, which the rule must have declared in ``requires``."""
        if kind not in _required(type(self)):
            raise UndeclaredProvider(f"{type(self).__name__} reads {kind.__name__} without declaring it "
                                     "in `requires`")
        return self.context.provider(kind)

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
