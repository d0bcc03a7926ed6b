"""The model-run layer's report, typed: what one verification found, side by side.

``run.py`` builds these; ``migrate`` reads their attributes. Each class's ``to_json()`` is the
JSON contract ``verify --format json`` prints and ``report.py`` renders: the same keys, in the
same order, with the same values as the dicts these classes replaced. A key the report gets only
on some paths (the original's latency once it ran, a check's ``failed_node`` when ONNX Runtime
refused its graph) holds :data:`ABSENT` until then and is left out of the JSON, not written as
``null``. ``from_json`` reads that JSON back (missing keys take their defaults).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from trtcodemod.trt.issues import ERROR, TrtIssue

from .compare import OutputComparison
from .diverge import Divergence
from .rewrite import Fix

REPORT_VERSION = 1
SIDES = ("before", "after")


class Absent:
    """The type of :data:`ABSENT`: a key the report does not have (yet). False, like an empty value."""

    _one: "Absent | None" = None

    def __new__(cls) -> "Absent":
        if cls._one is None:
            cls._one = super().__new__(cls)
        return cls._one

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "ABSENT"

    def __deepcopy__(self, memo: dict[int, Any]) -> "Absent":
        return self  # ``Verification.original()`` hands out deep copies; ``is ABSENT`` must hold in them


ABSENT = Absent()


def _present(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object of ``pairs`` in order, without the absent ones."""
    return {key: value for key, value in pairs if value is not ABSENT}


def _or_absent(data: dict[str, Any], key: str, read: Callable[[Any], Any] | None = None) -> Any:
    """``data[key]`` (read by ``read`` unless None), or :data:`ABSENT` when the key is not there."""
    if key not in data:
        return ABSENT
    return read(data[key]) if read is not None and data[key] is not None else data[key]


def _json_of(value: Any) -> Any:
    """A typed part's JSON; None and :data:`ABSENT` as they are."""
    return value.to_json() if value is not None and value is not ABSENT else value


@dataclass
class LatencyFigure:
    """Median and p90 milliseconds over ``runs`` timed calls (``latency.summarize``)."""

    median: float
    p90: float
    runs: int

    def to_json(self) -> dict[str, Any]:
        return {"median": self.median, "p90": self.p90, "runs": self.runs}

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> "LatencyFigure | None":
        return None if not data else cls(data["median"], data["p90"], data["runs"])


def _latency_json(figure: LatencyFigure | None) -> dict[str, Any] | None:
    return figure.to_json() if figure is not None else None


@dataclass
class ExportWarning:
    """A warning the exporter gave, at the user's line (``source``, ``path:line``) when known;
    ``origin`` is the line that issued it (torch's own, where the user's code called into torch)."""

    category: str
    message: str
    source: str | None
    #: The user's lines (``path:line``) that called the function holding ``source``, one per
    #: distinct caller the trace saw; None for a caller that is not the user's (a TracerWarning only).
    callers: list[str | None] = field(default_factory=list)
    origin: str | None = None
    #: A TracerWarning of a value read into Python: True where every value read there reaches no model
    #: input in the traced graph (:mod:`~trtcodemod.verify.input_free`); None where nothing was decided.
    input_free: bool | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"category": self.category, "message": self.message, "source": self.source}
        if self.callers:
            out["callers"] = list(self.callers)
        if self.origin:
            out["origin"] = self.origin
        if self.input_free is not None:
            out["input_free"] = self.input_free
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "ExportWarning":
        return cls(data.get("category", ""), data.get("message", ""), data.get("source"),
                   list(data.get("callers") or []), data.get("origin"), data.get("input_free"))


@dataclass
class GraphCheck:
    """One graph's static TensorRT check (``static.check_onnx``): its size, op histogram and issues.

    A check that could not load or read the graph has ``error`` and none of the keys from
    ``opset`` to ``notes``.
    """

    nodes: int | None
    ops: dict[str, int]
    trt_issues: list[TrtIssue] = field(default_factory=list)
    opset: int | None | Absent = ABSENT
    target: str | Absent = ABSENT
    #: The release of the support table the checks used (``notes`` says when it is not ``target``).
    checked_against: str | Absent = ABSENT
    notes: list[str] | Absent = ABSENT
    error: str | Absent = ABSENT

    def to_json(self) -> dict[str, Any]:
        return _present([("nodes", self.nodes), ("ops", dict(self.ops)), ("opset", self.opset), ("target", self.target),
                         ("checked_against", self.checked_against), ("notes", self.notes),
                         ("trt_issues", [i.to_dict() for i in self.trt_issues]), ("error", self.error)])

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "GraphCheck":
        issues = [TrtIssue.from_dict(i) for i in data.get("trt_issues", [])]
        return cls(data.get("nodes"), dict(data.get("ops", {})), issues, _or_absent(data, "opset"),
                   _or_absent(data, "target"), _or_absent(data, "checked_against"),
                   _or_absent(data, "notes"), _or_absent(data, "error"))

    def errors(self) -> list[TrtIssue]:
        """The issues that block TensorRT (severity ``error``; warnings do not fail a run)."""
        return [i for i in self.trt_issues if i.severity == ERROR]


def _graphs_json(graphs: dict[str, GraphCheck | None]) -> dict[str, Any]:
    return {side: _json_of(graph) for side, graph in graphs.items()}


def _graphs_from_json(data: dict[str, Any]) -> dict[str, GraphCheck | None]:
    return {side: None if graph is None else GraphCheck.from_json(graph) for side, graph in data.items()}


@dataclass
class FailedNode:
    """The node an ONNX Runtime error names, and the user's line that made it (``static.failed_node``)."""

    node: str
    op: str
    source: str | None = None
    #: Where the input it refuses for its type was made, when that is what ONNX Runtime says (``Type
    #: 'tensor(int32)' of input parameter (/Einsum_output_0) of operator (Cos)``): an integer product of
    #: an ``outer`` at one line reaching a ``Cos`` at the next.
    input_source: str | None = None
    #: Where that input's type was set, where it passed through nodes that keep their input's type on the way
    #: (``static.type_origin``): fairseq's labels of a float ``torch.full``, clamped and indexed before a
    #: ``GatherElements`` refuses them.
    input_origin: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"node": self.node, "op": self.op, "source": self.source, "input_source": self.input_source,
                "input_origin": self.input_origin}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "FailedNode":
        return cls(data.get("node", ""), data.get("op", "?"), data.get("source"), data.get("input_source"),
                   data.get("input_origin"))


@dataclass
class ExportCheck:
    """Does one side's graph of one exporter (on ONNX Runtime CPU) reproduce its own model's eager
    outputs on every input set? ``faithful`` None: it could not be told."""

    side: str
    exporter: str
    faithful: bool | None = None
    #: It matched on the traced input set and not on another: the export baked something in.
    baked: bool = False
    failing_sets: list[int] = field(default_factory=list)
    detail: str = ""
    warnings: list[ExportWarning] = field(default_factory=list)
    #: ONNX Runtime refused the graph: the node it names, placed at its line (``static.failed_node``).
    failed_node: FailedNode | None | Absent = ABSENT
    #: Elements outside the tolerance that passed as eager mode's own float32 rounding.
    float64_admitted: int | Absent = ABSENT
    #: Where the graph's values first part from eager mode's (``migrate`` asks ``verify.diverge``).
    divergence: Divergence | None | Absent = ABSENT
    #: Rows that matched once neighbours' places were traded back: near-equal top-k scores, which
    #: eager mode and its float64 run order differently too (``ties``).
    rows_traded: int | Absent = ABSENT
    #: The failing sets, every one, where eager float32 itself is no reference (it misses its float64
    #: run at much of a failing output) and no set of the same input shapes is one: nothing was proved
    #: for those shapes, and nothing says the export baked something in (``inconclusive``).
    no_reference_sets: list[int] | Absent = ABSENT
    #: Arg-max picks taken from eager mode where the graph's own values at both picks tie: with them
    #: its outputs matched eager mode's (``picks``).
    picks_tied: int | Absent = ABSENT
    #: Rows of picks at which the float64 run that judged a failing set took eager float32's picks, its
    #: values tying there (``tiedref``): a top-k over scores that saturate to exactly 1.0 in float32.
    float64_ties: int | Absent = ABSENT

    def to_json(self) -> dict[str, Any]:
        return _present([("side", self.side), ("exporter", self.exporter), ("faithful", self.faithful),
                         ("baked", self.baked), ("failing_sets", list(self.failing_sets)), ("detail", self.detail),
                         ("warnings", [w.to_json() for w in self.warnings]),
                         ("failed_node", _json_of(self.failed_node)), ("float64_admitted", self.float64_admitted),
                         ("divergence", _json_of(self.divergence)), ("rows_traded", self.rows_traded),
                         ("no_reference_sets", self.no_reference_sets), ("picks_tied", self.picks_tied),
                         ("float64_ties", self.float64_ties)])

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "ExportCheck":
        return cls(data.get("side", ""), data.get("exporter", ""), data.get("faithful"), data.get("baked", False),
                   list(data.get("failing_sets", [])), data.get("detail", ""),
                   [ExportWarning.from_json(w) for w in data.get("warnings", [])],
                   _or_absent(data, "failed_node", FailedNode.from_json), _or_absent(data, "float64_admitted"),
                   _or_absent(data, "divergence", Divergence.from_json), _or_absent(data, "rows_traded"),
                   _or_absent(data, "no_reference_sets", list), _or_absent(data, "picks_tied"),
                   _or_absent(data, "float64_ties"))


@dataclass
class OriginalRun:
    """The original on one backend row: its status, why it failed, and (compared) whether its own
    graph matched its eager outputs. ``passed`` is absent from a skipped row."""

    status: str | None = None
    reason: str | None = None
    passed: bool | None | Absent = ABSENT

    def to_json(self) -> dict[str, Any]:
        return _present([("status", self.status), ("reason", self.reason), ("passed", self.passed)])

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "OriginalRun":
        return cls(data.get("status"), data.get("reason"), _or_absent(data, "passed"))


@dataclass
class BackendResult:
    """The rewritten model on one backend (an eager device, or a graph backend of one exporter),
    compared with the original's eager CPU outputs over every input set."""

    name: str
    exporter: str | None
    status: str = "skipped"
    reason: str | None = None
    max_abs_err: float | None = None
    max_rel_err: float | None = None
    passed: bool | None = None
    latency_before: LatencyFigure | None = None
    latency_after: LatencyFigure | None = None
    before: OriginalRun = field(default_factory=OriginalRun)
    #: Per output, the worst comparison over the input sets.
    outputs: list[OutputComparison] = field(default_factory=list)

    @property
    def label(self) -> str:
        """``onnxruntime-cpu (torchscript)``, or the eager backend's name."""
        return self.name + (f" ({self.exporter})" if self.exporter else "")

    def latency(self, side: str) -> LatencyFigure | None:
        return self.latency_before if side == "before" else self.latency_after

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "exporter": self.exporter, "status": self.status, "reason": self.reason,
                "max_abs_err": self.max_abs_err, "max_rel_err": self.max_rel_err, "passed": self.passed,
                "latency_ms": {"before": _latency_json(self.latency_before), "after": _latency_json(self.latency_after)},
                "before": self.before.to_json(), "outputs": [c.to_json() for c in self.outputs]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "BackendResult":
        latency = data.get("latency_ms") or {}
        return cls(data["name"], data.get("exporter"), data.get("status", "skipped"), data.get("reason"),
                   data.get("max_abs_err"), data.get("max_rel_err"), data.get("passed"),
                   LatencyFigure.from_json(latency.get("before")), LatencyFigure.from_json(latency.get("after")),
                   OriginalRun.from_json(data.get("before") or {}),
                   [OutputComparison.from_json(c) for c in data.get("outputs", [])])


@dataclass
class ModelSummary:
    """One side's model through build, eager run and export, in its worker."""

    status: str
    message: str
    stage: str | None
    seconds: float
    log_tail: str
    #: Which eager reference the graphs were compared with, when not the ordinary one: a model
    #: that asks ``torch.onnx.is_in_onnx_export()`` ran with "yes" (verify/exportbranch.py).
    reference: str = ""

    def to_json(self) -> dict[str, Any]:
        out = {"status": self.status, "message": self.message, "stage": self.stage, "seconds": self.seconds,
               "log_tail": self.log_tail}
        if self.reference:
            out["reference"] = self.reference
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "ModelSummary":
        return cls(data["status"], data.get("message", ""), data.get("stage"), data.get("seconds", 0.0),
                   data.get("log_tail", ""), data.get("reference", ""))


@dataclass
class InputSets:
    """The model's input names, the input sets' shapes, and notes on how they were made."""

    names: list[str]
    notes: list[str]
    sets: list[dict[str, list[int]]]

    def to_json(self) -> dict[str, Any]:
        return {"names": list(self.names), "notes": list(self.notes), "sets": [dict(s) for s in self.sets]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "InputSets | None":
        return cls(data["names"], data.get("notes", []), data.get("sets", [])) if data else None


@dataclass
class ModelSettings:
    """What was verified, and how: the spec's settings as the report states them."""

    file: str
    model: str
    inputs: str
    dynamic_axes: dict[str, dict[str, str]]
    exporters: list[str]
    opset: int
    target: str
    unsafe: bool
    atol: float
    rtol: float
    #: ``--unordered`` resolved against the original's outputs: output name -> row axis.
    unordered: dict[str, int] = field(default_factory=dict)
    runs: int = 0
    timing_budget: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "model": self.model, "inputs": self.inputs, "dynamic_axes": self.dynamic_axes,
                "exporters": list(self.exporters), "opset": self.opset, "target": self.target,
                "unsafe": self.unsafe, "atol": self.atol, "rtol": self.rtol, "unordered": dict(self.unordered),
                "runs": self.runs, "timing_budget": self.timing_budget}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "ModelSettings":
        return cls(data.get("file", ""), data.get("model", ""), data.get("inputs", ""), data.get("dynamic_axes", {}),
                   list(data.get("exporters", [])), data.get("opset", 0), data.get("target", ""),
                   data.get("unsafe", False), data.get("atol", 0), data.get("rtol", 0), data.get("unordered", {}),
                   data.get("runs", 0), data.get("timing_budget"))


@dataclass
class Culprit:
    """One applied rule checked alone: does it reproduce the difference (``culprits.find_culprits``)?"""

    rule: str
    reproduces: bool
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "reproduces": self.reproduces, "detail": self.detail}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Culprit":
        return cls(data["rule"], bool(data.get("reproduces")), data.get("detail", ""))


def _sides(value: Any = None) -> dict[str, Any]:
    return dict.fromkeys(SIDES, value)


@dataclass
class VerifyReport:
    """One model's verification: the original's side (``Verification.original``), and the
    rewritten model's compared with it once a rewrite was verified.

    Per-side values are dicts keyed by side (``"before"``, ``"after"``).
    """

    name: str
    model: ModelSettings
    version: int = REPORT_VERSION
    #: 0: equivalent and clean; 1: a problem is left; 2: the original could not run (``error``).
    exit_code: int = 2
    error: str | None = None
    #: Why the original did not export, where the rewritten model does.
    original_export_error: str | None = None
    equivalent: bool = False
    problems: list[str] = field(default_factory=list)
    export_faithful: dict[str, bool | None] = field(default_factory=_sides)
    export_checks: list[ExportCheck] = field(default_factory=list)
    models: dict[str, ModelSummary] = field(default_factory=dict)
    inputs: InputSets | None = None
    backends: list[BackendResult] = field(default_factory=list)
    #: The first exporter's entry of ``graphs_by_exporter``.
    graphs: dict[str, GraphCheck | None] = field(default_factory=_sides)
    graphs_by_exporter: dict[str, dict[str, GraphCheck | None]] = field(default_factory=dict)
    rules_applied: list[str] = field(default_factory=list)
    fixes: list[Fix] = field(default_factory=list)
    rewrite_errors: list[str] = field(default_factory=list)
    culprit_rules: list[str] = field(default_factory=list)
    culprits: list[Culprit] = field(default_factory=list)
    environment: dict[str, Any] = field(default_factory=dict)
    saved: str | None = None
    # Once the original ran: -------------------------------------------------------------------
    #: The user's files the model's code came from (what a zoo's result cache depends on).
    user_files: list[str] | Absent = ABSENT
    original_exported: bool | Absent = ABSENT
    #: Per side, per exporter: why it did not export (None: it did).
    export_errors: dict[str, dict[str, str | None]] | Absent = ABSENT
    #: Per exporter: the tracebacks the export recorded (where its failure came from).
    export_tracebacks: dict[str, list[str]] | Absent = ABSENT
    #: Per backend label: the original's median latency, and the timed runs it is from.
    latency_before: dict[str, float | None] | Absent = ABSENT
    latency_before_runs: dict[str, int | None] | Absent = ABSENT

    def to_json(self) -> dict[str, Any]:
        return _present([
            ("version", self.version), ("name", self.name), ("model", self.model.to_json()),
            ("exit_code", self.exit_code), ("error", self.error), ("original_export_error", self.original_export_error),
            ("equivalent", self.equivalent), ("problems", list(self.problems)),
            ("export_faithful", dict(self.export_faithful)), ("export_checks", [c.to_json() for c in self.export_checks]),
            ("models", {role: m.to_json() for role, m in self.models.items()}),
            ("inputs", self.inputs.to_json() if self.inputs is not None else {}),
            ("backends", [b.to_json() for b in self.backends]), ("graphs", _graphs_json(self.graphs)),
            ("graphs_by_exporter", {e: _graphs_json(g) for e, g in self.graphs_by_exporter.items()}),
            ("rules_applied", list(self.rules_applied)),
            ("fixes", [vars(f) for f in self.fixes]), ("rewrite_errors", list(self.rewrite_errors)),
            ("culprit_rules", list(self.culprit_rules)), ("culprits", [c.to_json() for c in self.culprits]),
            ("environment", self.environment), ("saved", self.saved), ("user_files", self.user_files),
            ("original_exported", self.original_exported), ("export_errors", self.export_errors),
            ("export_tracebacks", self.export_tracebacks), ("latency_before", self.latency_before),
            ("latency_before_runs", self.latency_before_runs)])

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "VerifyReport":
        return cls(
            name=data.get("name", ""), model=ModelSettings.from_json(data.get("model") or {}),
            version=data.get("version", REPORT_VERSION), exit_code=data.get("exit_code", 2), error=data.get("error"),
            original_export_error=data.get("original_export_error"), equivalent=data.get("equivalent", False),
            problems=list(data.get("problems", [])), export_faithful=dict(data.get("export_faithful") or _sides()),
            export_checks=[ExportCheck.from_json(c) for c in data.get("export_checks", [])],
            models={role: ModelSummary.from_json(m) for role, m in (data.get("models") or {}).items()},
            inputs=InputSets.from_json(data.get("inputs") or {}),
            backends=[BackendResult.from_json(b) for b in data.get("backends", [])],
            graphs=_graphs_from_json(data.get("graphs") or _sides()),
            graphs_by_exporter={e: _graphs_from_json(g) for e, g in (data.get("graphs_by_exporter") or {}).items()},
            rules_applied=list(data.get("rules_applied", [])), fixes=[Fix(**f) for f in data.get("fixes", [])],
            rewrite_errors=list(data.get("rewrite_errors", [])), culprit_rules=list(data.get("culprit_rules", [])),
            culprits=[Culprit.from_json(c) for c in data.get("culprits", [])],
            environment=data.get("environment") or {}, saved=data.get("saved"),
            user_files=_or_absent(data, "user_files"), original_exported=_or_absent(data, "original_exported"),
            export_errors=_or_absent(data, "export_errors"), export_tracebacks=_or_absent(data, "export_tracebacks"),
            latency_before=_or_absent(data, "latency_before"),
            latency_before_runs=_or_absent(data, "latency_before_runs"))

    def side_errors(self, side: str) -> dict[str, str | None]:
        """Per exporter, why ``side`` did not export (empty before it was exported)."""
        return (self.export_errors or {}).get(side) or {}

    def checks(self, side: str) -> list[ExportCheck]:
        """The export checks of ``side``'s graphs."""
        return [c for c in self.export_checks if c.side == side]
