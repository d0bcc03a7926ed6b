"""Map an ONNX node back to the Python line that produced it.

Both torch exporters leave a Python stack on each node, in different places and orders:

* TorchScript (``dynamo=False, verbose=True``): ``node.doc_string`` holds lines like
  ``/path/model.py(12): forward``, innermost frame first.
* dynamo (torch >= 2.5): ``metadata_props["pkg.torch.onnx.stack_trace"]`` holds a
  traceback-style text (``File "/path/model.py", line 12, in forward``), innermost last.

We return the innermost frame that belongs to the user's code, as ``file:line``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Optional

from trtcodemod.usercode import is_installed

if TYPE_CHECKING:  # onnx is only needed by callers that already have a model
    import onnx

STACK_TRACE_KEY = "pkg.torch.onnx.stack_trace"

_SCRIPT_FRAME = re.compile(r"^\s*(?P<file>.+?)\((?P<line>\d+)\): (?P<func>.+?)\s*$")
_DYNAMO_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+)(?:, in (?P<func>.+?))?\s*$')

#: Packages whose frames are never "the user's line", even when nothing better exists.
_FRAMEWORK_PACKAGES = frozenset(
    {"torch", "functorch", "torchvision", "onnx", "onnxscript", "onnxruntime", "polygraphy", "typing_extensions"}
)
_THIRD_PARTY_DIRS = ("site-packages", "dist-packages")


@dataclass(frozen=True)
class Frame:
    """One stack frame: where, and in which function."""

    file: str
    line: int
    func: str = ""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


def parse_doc_string(text: str) -> list[Frame]:
    """Frames of a TorchScript export's ``doc_string``, innermost first.

    Traced nodes carry ``file(line): func`` lines; nodes from a scripted function
    (``@torch.jit.script``) carry TorchScript source ranges, ``File "file", line N``
    followed by the source, innermost first too.
    """
    frames = []
    for raw in text.splitlines():
        match = _SCRIPT_FRAME.match(raw)
        if match:
            frames.append(Frame(match["file"], int(match["line"]), match["func"]))
    if frames:
        return frames
    for raw in text.splitlines():
        match = _DYNAMO_FRAME.match(raw)
        if match:
            frames.append(Frame(match["file"], int(match["line"]), match["func"] or ""))
    return frames


def parse_stack_trace(text: str) -> list[Frame]:
    """Frames of a dynamo export's stack trace, innermost first (the text is outermost first)."""
    frames = []
    for raw in text.splitlines():
        match = _DYNAMO_FRAME.match(raw)
        if match:
            frames.append(Frame(match["file"], int(match["line"]), match["func"] or ""))
    frames.reverse()
    return frames


def _parts(path: str) -> list[str]:
    return re.split(r"[\\/]+", path)


def is_framework_frame(frame: Frame) -> bool:
    """A frame inside torch, onnx or the exporter machinery, or not from a real file."""
    if frame.file.startswith("<"):
        return True  # <frozen ...>, <string>, <eval_with_key>: generated code
    parts = _parts(frame.file)
    for i, part in enumerate(parts[:-1]):
        if part in _THIRD_PARTY_DIRS and parts[i + 1] in _FRAMEWORK_PACKAGES:
            return True
    return False


def is_user_frame(frame: Frame) -> bool:
    """A frame of the user's own code: not framework, not installed code, not the stdlib.

    The same answer as the observer's and the exporters' (:mod:`trtcodemod.usercode`).
    """
    return not is_framework_frame(frame) and not is_installed(frame.file)


def pick_frame(frames: list[Frame]) -> Frame | None:
    """The innermost user frame; failing that, the innermost non-framework one.

    The fallback covers model code installed as a package (timm, mmdet...), which
    lives in site-packages but is still the line a user wants to see.
    """
    for accept in (is_user_frame, lambda f: not is_framework_frame(f)):
        for frame in frames:
            if accept(frame):
                return frame
    return None


def node_frames(node: onnx.NodeProto) -> list[Frame]:
    """Every frame recorded on ``node``, innermost first, whichever exporter wrote it."""
    for prop in node.metadata_props:
        if prop.key == STACK_TRACE_KEY and prop.value:
            frames = parse_stack_trace(prop.value)
            if frames:
                return frames
    if node.doc_string:
        return parse_doc_string(node.doc_string)
    return []


#: ``helper_at(frame)``: the name of the inserted helper whose code ``frame`` runs, or None.
HelperAt = Callable[[Frame], Optional[str]]


def node_source(node: onnx.NodeProto, helper_at: HelperAt | None = None) -> str | None:
    """``file:line`` of the user code that produced ``node``, or None when unknown.

    With ``helper_at``, frames inside helpers trtcodemod inserted are passed over: the line is
    the user's call of the helper, and the helper is named after it.
    """
    frames = node_frames(node)
    helper = None
    if helper_at is not None:
        kept = []
        for frame in frames:
            name = helper_at(frame)
            if name is None:
                kept.append(frame)
            elif not kept and helper is None:
                helper = name  # the innermost helper: the one whose code made the node
        frames = kept or frames
    frame = pick_frame(frames)
    if frame is None:
        return None
    return f"{frame} (in {helper}, inserted by trtcodemod)" if helper else str(frame)


def iter_nodes(graph: onnx.GraphProto) -> Iterator[onnx.NodeProto]:
    """Every node of ``graph`` and of its subgraphs (If/Loop/Scan bodies), depth first."""
    for node in graph.node:
        yield node
        for sub in subgraphs(node):
            yield from iter_nodes(sub)


def subgraphs(node: onnx.NodeProto) -> Iterator[onnx.GraphProto]:
    """The graphs held in a node's attributes (GRAPH and GRAPHS)."""
    for attr in node.attribute:
        if attr.HasField("g"):
            yield attr.g
        yield from attr.graphs


def record_sources(model: Any, helper_at: HelperAt | None = None) -> dict[str, str]:
    """Node name -> ``file:line`` for every named node that carries a stack.

    Call it before any clean-up pass (constant folding, sanitizing): those drop the
    stacks but keep node names, so the map still applies to the cleaned graph.
    Accepts a ``ModelProto``, a ``GraphProto`` or anything with a ``.graph``.
    """
    graph = model.graph if hasattr(model, "graph") else model
    sources: dict[str, str] = {}
    for node in iter_nodes(graph):
        if node.name and node.name not in sources:
            source = node_source(node, helper_at)
            if source:
                sources[node.name] = source
    for function in getattr(model, "functions", ()):
        for node in function.node:
            if node.name and node.name not in sources:
                source = node_source(node, helper_at)
                if source:
                    sources[node.name] = source
    return sources
