"""What happened to one file in a batch.

Its own module so that the cache (which stores outcomes) and the runner (which makes them)
both import it, and neither the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from trtcodemod.engine import findings_in_original
from trtcodemod.errors import InputError, InternalError
from trtcodemod.files import SourceFile
from trtcodemod.rules import Finding


@dataclass
class FileOutcome:
    """What happened to one file."""

    file: SourceFile
    findings: list[Finding] = field(default_factory=list)
    fixed: list[Finding] = field(default_factory=list)
    original: bytes | None = None
    new_source: bytes | None = None  # set when a fix changed the file
    error: InputError | None = None
    #: Fixes left out because they produced invalid code (the file's other fixes stand).
    internal_errors: list[InternalError] = field(default_factory=list)
    #: ``path:line: warning: ...`` lines (unknown codes in suppression comments).
    warnings: list[str] = field(default_factory=list)
    #: With ``edits``: for each finding, its fix as text replacements (None: no fix); see
    #: :mod:`trtcodemod.report.edits`.
    edits: list[list[dict[str, Any]] | None] | None = None
    #: Whether the outcome came from the cache.
    cached: bool = False

    @property
    def changed(self) -> bool:
        return self.new_source is not None

    def findings_on_disk(self, written: bool) -> list[Finding]:
        """Remaining findings with the line numbers of the file as it is on disk: the rewritten
        file once written, the original one after a dry run."""
        if written or self.new_source is None or self.original is None:
            return self.findings
        return findings_in_original(self.findings, self.original, self.new_source)
