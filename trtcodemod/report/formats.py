"""Findings and errors of a batch, rendered for people, scripts, SARIF viewers and GitHub."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any, Callable, Mapping, Sequence

from trtcodemod.errors import InputError
from trtcodemod.release import __version__
from trtcodemod.rules import Finding, Safety


class Style:
    """ANSI colours, or nothing when the output is not a terminal."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def _wrap(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled else text

    def bold(self, text: str) -> str:
        return self._wrap("1", text)

    def red(self, text: str) -> str:
        return self._wrap("31", text)

    def cyan(self, text: str) -> str:
        return self._wrap("36", text)

    def dim(self, text: str) -> str:
        return self._wrap("2", text)


def render_text(findings: Sequence[Finding], errors: Sequence[InputError], color: bool = False,
                unsafe: bool = False) -> str:
    """``path:line:col: TRT123 message [*]`` lines, then a summary, like a linter."""
    style = Style(color)
    lines = []
    for f in findings:
        marker = ""
        if f.fix is Safety.SAFE:
            marker = " " + style.cyan("[*]")
        elif f.fix is Safety.UNSAFE:
            marker = " " + style.dim("[*unsafe]")
        where = style.bold(f"{f.path}:{f.line}:{f.column}:")
        lines.append(f"{where} {style.red(f.rule)} {f.message}{marker}")
    for e in errors:
        lines.append(style.red(str(e)))
    lines.append(summary(findings, errors, unsafe))
    return "\n".join(lines) + "\n"


def summary(findings: Sequence[Finding], errors: Sequence[InputError], unsafe: bool = False) -> str:
    if not findings and not errors:
        return "All checks passed."
    parts = []
    if findings:
        safe = sum(1 for f in findings if f.fix is Safety.SAFE)
        risky = sum(1 for f in findings if f.fix is Safety.UNSAFE)
        files = len({f.path for f in findings})
        text = f"Found {len(findings)} finding{'s' * (len(findings) != 1)} in {files} file{'s' * (files != 1)}."
        if safe:
            text += f" {safe} fixable with `trtcodemod apply`"
            text += "." if not risky else ","
        if risky:
            text += f" {risky} more with `--unsafe`." if safe else f" {risky} fixable with `trtcodemod apply --unsafe`."
        counts = Counter(f.rule for f in findings)
        text += " (" + ", ".join(f"{rule}: {n}" for rule, n in sorted(counts.items())) + ")"
        parts.append(text)
    if errors:
        parts.append(f"{len(errors)} file{'s' * (len(errors) != 1)} could not be processed.")
    return "\n".join(parts)


#: ``id(finding)`` -> its fix as text replacements (:mod:`trtcodemod.report.edits`).
Edits = Mapping[int, Sequence[Mapping[str, Any]]]


def _with_edits(finding: Finding, edits: Edits | None) -> dict[str, object]:
    data = finding.as_dict()
    if edits is not None:
        data["edits"] = [dict(e) for e in edits.get(id(finding), ())]
    return data


def render_json(findings: Sequence[Finding], errors: Sequence[InputError], edits: Edits | None = None,
                **_: object) -> str:
    """``findings`` (each with an ``edits`` list when fixes were computed: the fix as
    replacements of the original text, empty when there is none) and ``errors``."""
    data = {
        "version": 1,
        "findings": [_with_edits(f, edits) for f in findings],
        "errors": [_error_dict(e) for e in errors],
    }
    return json.dumps(data, indent=2) + "\n"


def _error_dict(error: InputError) -> dict[str, object]:
    data: dict[str, object] = {"path": error.path, "message": error.message}
    if error.line is not None:
        data["line"] = error.line
    return data


def _sarif_fix(finding: Finding, replacements: Sequence[Mapping[str, Any]]) -> dict[str, object]:
    """A SARIF ``fix``: one artifact change whose replacements all refer to the original file."""
    safety = "unsafe fix (needs --unsafe; see `trtcodemod explain`)" if finding.fix is Safety.UNSAFE else "safe fix"
    return {
        "description": {"text": f"{finding.rule} {finding.name}: {safety}"},
        "artifactChanges": [
            {
                "artifactLocation": {"uri": finding.path.replace("\\", "/")},
                "replacements": [
                    {
                        "deletedRegion": {
                            "startLine": r["line"],
                            "startColumn": r["column"],
                            "endLine": r["end_line"],
                            "endColumn": r["end_column"],
                            "charOffset": r["offset"],
                            "charLength": r["length"],
                        },
                        "insertedContent": {"text": r["content"]},
                    }
                    for r in replacements
                ],
            }
        ],
    }


def render_sarif(findings: Sequence[Finding], errors: Sequence[InputError], edits: Edits | None = None,
                 **_: object) -> str:
    """SARIF 2.1.0, one run, the rules described from their metadata; each fixable result
    carries its ``fixes`` (columns count Unicode code points: ``columnKind``)."""
    from trtcodemod.registry import all_rules

    rules = [
        {
            "id": info.id,
            "name": info.name,
            "shortDescription": {"text": info.summary},
            "fullDescription": {"text": info.doc},
            "properties": {"fix": info.fix.value},
        }
        for info in all_rules()
    ]
    results = [
        {
            "ruleId": f.rule,
            "level": "warning",
            "message": {"text": f.message},
            "properties": {"fix": f.fix.value},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": f.path.replace("\\", "/")},
                        "region": {
                            "startLine": f.line,
                            "startColumn": f.column,
                            "endLine": f.end_line,
                            "endColumn": f.end_column,
                        },
                    }
                }
            ],
        }
        for f in findings
    ]
    if edits is not None:
        for finding, result in zip(findings, results):
            replacements = edits.get(id(finding))
            if replacements:
                result["fixes"] = [_sarif_fix(finding, replacements)]
    notifications = [
        {
            "level": "error",
            "message": {"text": e.message},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": e.path}}}],
        }
        for e in errors
    ]
    log = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "trtcodemod", "version": __version__, "rules": rules}},
                "columnKind": "unicodeCodePoints",
                "results": results,
                "invocations": [{"executionSuccessful": not errors, "toolExecutionNotifications": notifications}],
            }
        ],
    }
    return json.dumps(log, indent=2) + "\n"


def _escape_github(text: str, property_value: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if property_value:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def render_github(findings: Sequence[Finding], errors: Sequence[InputError], **_: object) -> str:
    """GitHub Actions workflow commands: annotations on the pull request's lines."""
    lines = []
    for f in findings:
        props = (
            f"file={_escape_github(f.path, True)},line={f.line},col={f.column},"
            f"endLine={f.end_line},endColumn={f.end_column},title={f.rule} {_escape_github(f.name, True)}"
        )
        lines.append(f"::warning {props}::{_escape_github(f.rule + ' ' + f.message)}")
    for e in errors:
        where = f"file={_escape_github(e.path, True)}" + (f",line={e.line}" if e.line else "")
        lines.append(f"::error {where}::{_escape_github(e.message)}")
    return "\n".join(lines) + ("\n" if lines else "")


FORMATS: dict[str, Callable[..., str]] = {
    "text": render_text,
    "json": render_json,
    "sarif": render_sarif,
    "github": render_github,
}


def render(fmt: str, findings: Sequence[Finding], errors: Sequence[InputError], *, color: bool = False,
           unsafe: bool = False, edits: Edits | None = None) -> str:
    if fmt == "text":
        return render_text(findings, errors, color=color, unsafe=unsafe)
    if fmt in ("json", "sarif"):
        return FORMATS[fmt](findings, errors, edits=edits)
    return FORMATS[fmt](findings, errors)

#: The formats whose findings carry their fixes' edits.
EDIT_FORMATS = ("json", "sarif")
