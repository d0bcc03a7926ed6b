"""``trtcodemod rules --target`` and ``explain`` say which rules matter where."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from trtcodemod.cli import app
from trtcodemod.registry import all_rules
from trtcodemod.versions import parse_target


def run(*args: str):
    return CliRunner().invoke(app, list(args))


def test_rules_for_a_target_lists_exactly_the_rules_that_apply() -> None:
    for target in ("8.0", "8.4", "8.6", "10.x"):
        version = parse_target(target)
        expected = [i.id for i in all_rules() if i.applies_to(version)]
        listed = [row["id"] for row in json.loads(run("rules", "--target", target, "--format", "json").output)]
        assert listed == expected
        text = run("rules", "--target", target).output
        assert text.startswith(f"{len(expected)} of {len(all_rules())} rules matter")
    old_only = [i for i in all_rules() if i.needed_before is not None]
    assert old_only, "some rule matters only for older TensorRT"
    newest = [row["id"] for row in json.loads(run("rules", "--target", "10.x", "--format", "json").output)]
    assert not {i.id for i in old_only} & set(newest)


def test_bad_target_is_an_error() -> None:
    result = run("rules", "--target", "eight")
    assert result.exit_code == 2 and "not a TensorRT version" in result.output


def test_explain_says_where_rules_look() -> None:
    assert "model code" in run("explain", "TRT301").output
