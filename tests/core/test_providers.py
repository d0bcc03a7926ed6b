"""Providers: the per-file analyses rules share are declared by the rules that read them,
made once per file on demand, and the observed facts answer through one of them. (That no
modules import each other in a circle is tests/docs/test_layering.py.)"""

from __future__ import annotations

import ast

import libcst as cst
import pytest

from trtcodemod.context import FileContext, ScopeTracker
from trtcodemod.engine import _Batch
from trtcodemod.evidence.facts import Facts
from trtcodemod.providers import ObservedFacts, Provider
from trtcodemod.registry import rule_classes
from trtcodemod.rules import Rule, RuleInfo, Safety, UndeclaredProvider
from trtcodemod.transforms._condition_evidence import ConditionEvidence
from trtcodemod.transforms._size_facts import SizeFacts
from trtcodemod.transforms._tensor_evidence import TensorEvidence
from trtcodemod.transforms.data_dependent_if import DataDependentIf
from trtcodemod.transforms.data_dependent_loop import DataDependentLoop
from trtcodemod.versions import parse_target
from support import REPO as ROOT



PREAMBLE = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"  # as the rule examples run


def _context(source: str, facts: Facts | None = None, target: str = "8.6") -> FileContext:
    module = cst.parse_module(source)
    file_facts = facts.for_file("m.py") if facts is not None else None
    context = FileContext(path="m.py", module=module, target=parse_target(target), unsafe=True,
                          source=source.encode(), facts=file_facts)
    context.imports.add_imports_from(module.body)
    return context


def _run(context: FileContext, rules: list[Rule]) -> None:
    """The engine's traversal, without its crash handling: a rule's error reaches the test."""
    _Batch([ScopeTracker(context), *context.companions, *rules]).run(context.module)


@pytest.mark.parametrize("cls", rule_classes(), ids=lambda cls: cls.info.id)
def test_rules_read_only_the_providers_they_declare(cls: type[Rule]) -> None:
    """Every example of every rule runs with the rule alone: reading a provider missing from its
    ``requires`` raises :class:`UndeclaredProvider` here."""
    for example in cls.info.examples:
        context = _context(PREAMBLE + example.before, target="8.0")
        rule = cls(context)
        _run(context, [rule])
        assert rule.info.id in {f.info.id for f in context.findings}  # the example's code was analysed
        assert set(context._providers) <= cls.required(), cls.info.id
    assert all(issubclass(kind, Provider) for kind in cls.required())


def test_rules_reach_shared_analyses_only_through_providers() -> None:
    """No rule module bypasses the declarations: no raw facts, no provider taken from the context."""
    offending = []
    for path in sorted((ROOT / "transforms").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in ("facts", "provider", "position") and \
                    isinstance(node.value, ast.Attribute) and node.value.attr == "context":
                offending.append(f"{path.name}:{node.lineno}: context.{node.attr}")
    assert offending == []


class _Sneaky(Rule):
    info = RuleInfo(id="TRT999", name="sneaky", summary="", doc="", fix=Safety.NONE)

    def visit_Name(self, node: cst.Name) -> None:
        self.provider(TensorEvidence).evident(node)


class _Declared(_Sneaky):
    requires = (TensorEvidence,)


def test_reading_an_undeclared_provider_fails() -> None:
    context = _context("def f(x):\n    return x\n")
    with pytest.raises(UndeclaredProvider, match="TensorEvidence"):
        _run(context, [_Sneaky(context)])
    context = _context("def f(x):\n    return x\n")
    _run(context, [_Declared(context)])  # declared (here by the subclass): answered
    # TensorEvidence declares ObservedFacts (a name seen holding a tensor), so the rule reads it too.
    assert set(context._providers) == {TensorEvidence, ObservedFacts} == _Declared.required()


def test_one_provider_per_file_made_on_demand() -> None:
    from trtcodemod.transforms.baked_shapes import RULES as SIZE_RULES

    context = _context("import torch\n\ndef f(x: torch.Tensor):\n    return x\n")
    first, second = DataDependentIf(context), DataDependentLoop(context)
    assert first._evidence is second._evidence is context.provider(ConditionEvidence)
    assert first._observed is second._observed
    assert SizeFacts not in context._providers  # no rule asked for it
    size_rules = [cls(context) for cls in SIZE_RULES]
    assert len({id(rule._shared) for rule in size_rules}) == 1
    assert size_rules[0]._shared is context.provider(SizeFacts)
    context.release()
    assert context._providers == {} and context.companions == []


SOURCE = "import torch\n\ndef f(x, flag):\n    if flag:\n        return x\n    return -x\n"


def _facts(read: bool) -> Facts:
    """Facts of a run of ``SOURCE``: lines 3-6 ran; with ``read``, Python read a tensor value in ``flag``."""
    events = [{"kind": "value_read", "path": "m.py", "line": 4, "column": 8, "end_line": 4, "end_column": 12,
               "method": "__bool__", "count": 1},
              {"kind": "traced", "path": "m.py", "line": 4, "column": 1, "end_line": 4, "end_column": 1,
               "message": "Converting a tensor to a Python boolean"}] if read else []
    return Facts.from_json({"runs": 1, "lines": {"m.py": [3, 4, 5, 6]}, "events": events})


@pytest.mark.parametrize("facts", [None, _facts(False), _facts(True)], ids=["none", "static", "read"])
def test_observed_facts_answer_in_terms_of_nodes(facts: Facts | None) -> None:
    context = _context(SOURCE, facts)
    observed = context.provider(ObservedFacts)
    test = context.module.body[1].body.body[0].test  # `flag` in `if flag:`
    read = facts is not None and bool(facts.events)
    assert observed.known is (facts is not None)
    assert observed.reads_values(test) == (None if facts is None else read)
    assert observed.ran(test) == (None if facts is None else True)
    assert observed.traced(test) is read
    assert observed.proof("TRT101", test) is None  # TRT101 has no span prover
    # The rule sees the same answer: it reports `if flag:` only where the run read a value.
    context = _context(SOURCE, facts)
    rule = DataDependentIf(context)
    _run(context, [rule])
    assert len(context.findings) == int(read)


def test_size_facts_ask_each_side_of_a_chain_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A long arithmetic chain (kornia's scale-space detector has them) costs calls linear in its
    length: asking each side twice per level made the static analysis of one real model take
    10 minutes (2**n calls for n terms)."""
    from trtcodemod.engine import Options, check_source

    from trtcodemod.transforms._size_facts import SizeRule

    calls = 0
    original = SizeRule.is_value

    def counted(self: SizeRule, expr: cst.BaseExpression) -> bool:
        nonlocal calls
        calls += 1
        return original(self, expr)

    monkeypatch.setattr(SizeRule, "is_value", counted)
    terms = 16
    chain = " + ".join(f"n * {i}" for i in range(terms))
    source = ("import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
              "        n = x.sum()\n"
              f"        y = {chain}\n"
              "        return torch.arange(y)\n").encode()
    findings = check_source(source, "m.py", Options())
    assert any(f.rule == "TRT714" for f in findings)  # the chain is still a value computed from data
    assert calls < 20 * terms, calls
