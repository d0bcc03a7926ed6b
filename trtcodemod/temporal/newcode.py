"""The lifted ``forward_step`` checked as new code: the rules run on it with the state known to be tensors.

Before the lift, ``self.frame`` is a Python number and ``if self.frame > 10:`` a Python
decision the export need not see. After it, the state is a tensor input of ``forward_step``
(the wrapper passes one), so the same ``if`` is a branch on tensor values that a traced export
takes once. The rules (``trtcodemod.engine``) see that only when they know the state is a
tensor: here its parameters (and the indicators) are annotated ``torch.Tensor`` for the check
alone, and a finding that appears only with the annotations is one the lift brought. Its fix
is applied where its rule has one (TRT101's ``torch.where``), in rounds, and the annotations
are taken away again; one without a fix is named at its line with the manual step, and the
lift is not kept. The proof over frames (``prove.py``) then decides whether a fix holds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

import libcst as cst

from trtcodemod.astutil import code_of

from .lift import LiftResult, Refusal, _functions

if TYPE_CHECKING:
    from trtcodemod.rules import Finding

#: The manual step for a decision on the state that no rule rewrites.
STEP = ("rewrite the decision on the state as tensor code by hand (compute both branches and select with "
        "torch.where on a tensor condition), or keep this value out of the state (docs/temporal.md)")
#: Rounds of check and fix (a fix's own code is new code too).
ROUNDS = 3
_TENSOR = "torch.Tensor"


@dataclass(frozen=True)
class StepFinding:
    """A finding the lift brought: where it is in the lifted code and the original, and whether it was fixed."""

    rule: str
    line: int  # in the lifted source of its round
    original_line: int | None  # the line of the original file it comes from, where one is found
    code: str
    message: str
    fixed: bool

    def where(self) -> str:
        return f"line {self.original_line}" if self.original_line else f"line {self.line} of the lifted code"

    def describe(self) -> str:
        what = ("made tensor code in forward_step by its fix" if self.fixed
                else "no fix applies: the wrapper's export would keep one branch")
        return f"{self.rule} at {self.where()} (`{self.code}`): {what}"

    def refusal(self) -> Refusal:
        return Refusal(self.original_line or 0, f"`{self.code}` decides on the state, which the lift makes a tensor "
                       f"input of forward_step: {self.rule} finds there: {self.message}", STEP)


@dataclass
class StepCheck:
    """The lifted source with the fixes that applied, and every finding the lift brought."""

    source: str
    found: list[StepFinding] = field(default_factory=list)

    @property
    def unfixed(self) -> list[StepFinding]:
        return [f for f in self.found if not f.fixed]


def _retyped(source: str, cls_name: str, method: str, names: Iterable[str], add: bool) -> str:
    """``source`` with ``names`` among ``cls_name.method``'s parameters annotated ``torch.Tensor``
    (``add``), or with those annotations taken away again; every other byte as it was."""
    module = cst.parse_module(source)
    cls = next((s for s in module.body if type(s) is cst.ClassDef and s.name.value == cls_name), None)
    func = _functions(cls.body).get(method) if cls is not None else None
    if func is None:
        return source
    wanted = set(names)

    def change(param: cst.Param) -> cst.Param:
        if param.name.value not in wanted:
            return param
        if add and param.annotation is None:
            return param.with_changes(annotation=cst.Annotation(cst.parse_expression(_TENSOR)))
        if not add and param.annotation is not None and code_of(param.annotation.annotation) == _TENSOR:
            return param.with_changes(annotation=None)
        return param

    params = func.params.with_changes(params=[change(p) for p in func.params.params],
                                      kwonly_params=[change(p) for p in func.params.kwonly_params])
    return module.deep_replace(func, func.with_changes(params=params)).code  # type: ignore[union-attr]


def _findings(source: str, path: str, target: str) -> list[Finding]:
    from trtcodemod.engine import Options, check_source

    # Every line (scope "all"), as migrate checks the files the model's code came from.
    return check_source(source.encode("utf-8"), path, Options(scope="all", target=target), crashes=[])


def _key(finding: Finding) -> tuple[str, int, int]:
    return finding.rule, int(finding.line), int(finding.column)


def original_line(original: str, current: str, line: int, params: Mapping[str, str]) -> int | None:
    """The line of ``original`` that ``current``'s ``line`` comes from: the same text once each
    state parameter is read back as ``self.<attribute>`` (``params``: attribute -> parameter),
    the same occurrence among equal lines; None where no line matches."""
    lines = current.splitlines()
    if not 0 < line <= len(lines):
        return None

    def as_lifted(text: str) -> str:
        for attr, param in params.items():
            text = re.sub(rf"\bself\.{re.escape(attr)}\b", param, text)
        return text.strip()

    want = lines[line - 1].strip()
    nth = sum(1 for text in lines[:line - 1] if text.strip() == want)
    matches = [i for i, text in enumerate(original.splitlines(), 1) if as_lifted(text) == want]
    return matches[nth] if nth < len(matches) else (matches[0] if matches else None)


def check_step(lifted: str, original: str, path: str, cls_name: str, result: LiftResult, target: str,
               rounds: int = ROUNDS) -> StepCheck:
    """Run the rules on the lifted source with ``result``'s state inputs known to be tensors; fix what
    they find where a rule has a fix, in rounds; name the rest."""
    from trtcodemod.engine import Options, fix_source

    names: Sequence[str] = [*result.state_params.values(), *result.indicators.values(), *result.optional.values()]
    check = StepCheck(lifted)
    if not names:
        return check
    current = lifted
    for _ in range(rounds):
        typed = _retyped(current, cls_name, result.step, names, add=True)
        known = {_key(f) for f in _findings(current, path, target)}
        new = [f for f in _findings(typed, path, target) if _key(f) not in known]
        if not new:
            break
        keys = {_key(f) for f in new}
        fixed = fix_source(typed.encode("utf-8"), path, Options(scope="all", target=target,
                                                                  allow=lambda f: _key(f) in keys))
        done = {_key(f) for f in fixed.fixed}
        lines = current.splitlines()
        for f in new:
            rule, at, _ = _key(f)
            source_line = original_line(original, current, at, result.state_params)
            # The code as the user wrote it, where its line is found; else as lifted.
            text = original.splitlines()[source_line - 1] if source_line else (
                lines[at - 1] if 0 < at <= len(lines) else "")
            check.found.append(StepFinding(rule, at, source_line, text.strip(), f.message, _key(f) in done))
        if not done or len(done) < len(keys):
            break  # what no rule fixes refuses the lift: no further round can change that
        current = _retyped(fixed.source.decode("utf-8"), cls_name, result.step, names, add=False)
    check.source = current
    return check
