"""Rendering findings and errors: text, JSON, SARIF, GitHub annotations, diffs."""

from trtcodemod.report.diff import unified_diff
from trtcodemod.report.formats import FORMATS, render

__all__ = ["FORMATS", "render", "unified_diff"]
