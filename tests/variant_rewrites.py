"""A variant rewritten by one rule from its code alone, and the toolchain check for a safe fix.

Shared by the recipe-variant tests of TRT301, TRT302 and TRT404: load the variant, rewrite its
file with the rule, build both models with the same seed (so their parameters agree), and, for a
safe rule, compare the two under TorchScript, fx, compile and export.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import torch
from safety import assert_same_run, run_once, toolchain_outcomes
from variant_models import load_variant

from trtcodemod.engine import Options, fix_source


def rewrite_variant(path: Path, rule: str, unsafe: bool = False, facts: Any = None) -> str:
    """The variant's file as ``rule`` rewrites it (every scope; ``--unsafe`` when asked; with the facts a
    recorded run of it gave, when given)."""
    options = Options(select=(rule,), scope="all", unsafe=unsafe, facts=facts)
    return fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()


def built_pair(path: Path, rule: str, folder: Path, unsafe: bool = False,
               facts: Any = None) -> tuple[ModuleType, str, torch.nn.Module, torch.nn.Module]:
    """(the variant's module, its rewritten source, the original model, the rewritten model)."""
    name = f"{rule.lower()}_{path.stem}"
    module = load_variant(path, name)
    source = rewrite_variant(path, rule, unsafe, facts)
    new_path = folder / f"{path.stem}_rewritten.py"
    new_path.write_text(source)
    torch.manual_seed(0)
    original = module.build().eval()
    torch.manual_seed(0)
    rewritten = load_variant(new_path, f"{name}_rewritten").build().eval()
    return module, source, original, rewritten


def assert_toolchains_agree(original: torch.nn.Module, rewritten: torch.nn.Module, inputs: list,
                            folder: Path, context: str) -> None:
    """Wherever the original scripts, fx-traces, compiles or exports, the rewrite does, with the same result.

    Each toolchain builds its own instance of the model's class, seeded as ``built_pair`` seeds
    them, so models with random parameters compare the same weights."""
    before = toolchain_outcomes(_seeded(type(original)), inputs, folder)
    after = toolchain_outcomes(_seeded(type(rewritten)), inputs, folder)
    worked = [name for name, result in before.items() if not isinstance(result, Exception)]
    assert worked, before
    for name in worked:
        assert not isinstance(after[name], Exception), f"{context} {name}: {after[name]!r}"
        torch.testing.assert_close(after[name], before[name], rtol=0, atol=0, equal_nan=True,
                                   msg=f"{context} {name}")


def _seeded(module_type: type) -> Callable[[], torch.nn.Module]:
    """A constructor of ``module_type`` that seeds torch with 0 first."""
    def build() -> torch.nn.Module:
        torch.manual_seed(0)
        return module_type()
    return build


def assert_eager_unchanged(original: torch.nn.Module, rewritten: torch.nn.Module, sets: dict) -> None:
    """Eager mode is unchanged on every input set, as given and with gradients on the float inputs:
    outputs, strides, aliasing, input gradients and exceptions (tests/safety.py)."""
    for label, inputs in sets.items():
        graded = [t.clone().requires_grad_() if t.is_floating_point() else t for t in inputs]
        for run in (list(inputs), graded):
            assert_same_run(run_once(original, run), run_once(rewritten, run), context=label)
