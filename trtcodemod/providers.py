"""Providers: the per-file analyses rules share, computed at most once per file, on demand.

The idea is LibCST's metadata providers (a visitor declares ``METADATA_DEPENDENCIES`` and
reads ``get_metadata``), without their cost: nothing is resolved before the traversal. A
rule lists the providers it reads in ``requires``; ``rule.provider(Kind)`` hands it the
file's one instance (made on the first request, kept by the
:class:`~trtcodemod.context.FileContext`), and refuses a provider the rule did not
declare, so that the declarations stay true (a test runs every rule's examples).

A provider that must see the traversal (where it is: class, method, traced code) is also a
batchable visitor; the engine runs those right after the scope tracker and before the
rules. The others compute on first question. Providers of this project
(``docs/architecture.md``):

- :class:`~trtcodemod.transforms._runtime_scope.RuntimeScope`: which code a traced export runs;
- :class:`~trtcodemod.transforms._size_facts.SizeFacts`: which locals are tensors, sizes, values;
- :class:`~trtcodemod.transforms._tensor_evidence.TensorEvidence` and
  :class:`~trtcodemod.transforms._condition_evidence.ConditionEvidence`: is this a tensor,
  does this condition read tensor values;
- :class:`~trtcodemod.model_code.ModelCode`: which functions only run while the model is built;
- :class:`ObservedFacts` (below): what a recorded run saw at a node.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from trtcodemod.migrate.proofs import prove_in_file
from trtcodemod.rules import UndeclaredProvider

if TYPE_CHECKING:
    from trtcodemod.context import FileContext

__all__ = ["ObservedFacts", "Provider", "UndeclaredProvider"]


class Provider:
    """Base of the per-file analyses: made once per file by ``context.provider(cls)``."""

    def __init__(self, context: "FileContext") -> None:
        super().__init__()  # a visitor provider's other base
        self.context = context


class ObservedFacts(Provider):
    """What a recorded run (``migrate``, or ``--facts``) saw at a node: one more source of
    evidence, asked in the same terms as the static ones (a node, not lines and columns).

    Every answer is "unknown" (None, False) without facts for this file, so a rule never
    tests whether facts exist. Positions cost one pass over the module, paid on the first
    question and only when there are facts.
    """

    def __init__(self, context: "FileContext") -> None:
        super().__init__(context)
        self.facts = context.facts

    @property
    def known(self) -> bool:
        """Whether the recorded run says anything about this file."""
        return self.facts is not None

    def _where(self, node: cst.CSTNode) -> Any:
        return None if self.facts is None else self.context.position(node)

    def reads_values(self, node: cst.CSTNode) -> bool | None:
        """True: Python read a tensor's value inside ``node`` (``__bool__``, ``.item()``...), so an
        export bakes it in; False: it ran and read none; None: no facts, or it never ran."""
        where = self._where(node)
        if where is None:
            return None
        reads = self.facts.value_reads(where.start.line, where.start.column + 1, where.end.line, where.end.column + 1)
        return None if reads is None else bool(reads)

    def ran(self, node: cst.CSTNode) -> bool | None:
        """Did ``node``'s lines run in the observed forwards (None: no facts)?"""
        where = self._where(node)
        return None if where is None else self.facts.ran(where.start.line, where.end.line)

    def input_is_tensor(self, name: str) -> bool:
        """Did the recorded run pass a tensor as the model's input ``name`` (in some input set)?"""
        return self.facts is not None and bool(self.facts.facts.inputs.get(name, {}).get("shapes"))

    def traced(self, node: cst.CSTNode) -> bool:
        """Did the observed export warn (a ``TracerWarning``) that a traced tensor became a Python
        or NumPy value on ``node``'s lines?"""
        where = self._where(node)
        return where is not None and bool(self.facts.traced(where.start.line, where.end.line))

    def proof(self, rule: str, node: cst.CSTNode) -> str | None:
        """The observation covering the assumption of ``rule``'s unsafe fix at ``node``, or None."""
        where = self._where(node)
        if where is None:
            return None
        return prove_in_file(self.facts, rule, where.start.line, where.start.column + 1, where.end.line,
                             where.end.column + 1)
