"""The per-file analyses rules share: one companion per file, prepared name sets, the
walrus shortcut. Each must answer exactly what the per-rule version answered."""

from __future__ import annotations

import libcst as cst
import pytest

from trtcodemod.context import FileContext, NameSet, ScopeTracker
from trtcodemod.engine import Options, check_source
from trtcodemod.registry import rule_classes
from trtcodemod.transforms._runtime_scope import RuntimeScope, RuntimeScopeRule
from trtcodemod.versions import parse_target

SOURCE = """\
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn import functional as Fn, GELU as G

class Head(nn.Module):
    def forward(self, x):
        a = F.gelu(x)
        b = Fn.adaptive_avg_pool2d(x, 3)
        act = G
        gelu = nn.GELU
        return torch.nn.functional.gelu(a) + b, act, gelu, x.gelu, F.relu(x)

    def shadowed(self, G, x):
        from torch.nn.functional import relu as gelu_like, gelu as late
        nn = x
        return G(x), nn.GELU, gelu_like(x), late(x)


def later():
    from torch.nn.functional import gelu as gelu_like
    return gelu_like
"""


def _context(source: str = SOURCE) -> FileContext:
    module = cst.parse_module(source)
    context = FileContext(path="m.py", module=module, target=parse_target("8.6"), unsafe=False,
                          source=source.encode())
    context.imports.add_imports_from(module.body)
    return context


def test_runtime_rules_share_one_companion() -> None:
    context = _context()
    rules = [cls(context) for cls in rule_classes() if issubclass(cls, RuntimeScopeRule)]
    assert len(rules) > 10
    assert len(context.companions) == 1 and isinstance(context.companions[0], RuntimeScope)
    assert all(rule.runtime is context.companions[0] for rule in rules)


def test_prepared_name_set_answers_like_refers_to() -> None:
    wanted = ("torch.nn.functional.gelu", "torch.nn.GELU", "torch.nn.functional.adaptive_avg_pool2d")
    names = NameSet(wanted)
    context = _context()
    answers: list[tuple[str, str | None, str | None]] = []

    class Probe(cst.BatchableCSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            self.ask(node)

        def visit_Attribute(self, node: cst.Attribute) -> None:
            self.ask(node)

        def ask(self, node: cst.BaseExpression) -> None:
            # The full answer, from every qualified name the scopes give, with no shortcut.
            full = next((name for name in context.qualified_names(node) if name in names), None)
            answers.append((context.module.code_for_node(node), full, context.refers_to_any(node, names)))
            assert context.refers_to(node, *wanted) == full

    cst.visit_batched(context.module, [ScopeTracker(context), Probe()])
    assert len(answers) > 20
    assert all(old == new for _, old, new in answers)
    found = {code: old for code, old, _ in answers if old}
    assert found == {
        "F.gelu": "torch.nn.functional.gelu",
        "Fn.adaptive_avg_pool2d": "torch.nn.functional.adaptive_avg_pool2d",
        "G": "torch.nn.GELU",
        "nn.GELU": "torch.nn.GELU",
        "torch.nn.functional.gelu": "torch.nn.functional.gelu",
        "late": "torch.nn.functional.gelu",
        "gelu_like": "torch.nn.functional.gelu",  # in `later` only: `shadowed` binds it to relu
    }


@pytest.mark.parametrize("walrus", [False, True])
def test_walrus_shortcut_only_where_there_is_none(walrus: bool) -> None:
    """Without `:=` in the bytes no scope is scanned for one; with one, it still shadows the import."""
    binding = "    if (where := g) is not None:\n        pass\n" if walrus else "    pass\n"
    source = f"import torch\nfrom torch import where\n\ndef f(c, a, b, g):\n{binding}    return where(c, a, b)\n"
    found = [f.rule for f in check_source(source.encode(), "m.py", Options(select=("TRT102",), target="8.2"))]
    assert found == ([] if walrus else ["TRT102"])
