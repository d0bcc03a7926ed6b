"""migrate's static analysis in two processes gives what one process gives.

Real files (the examples' models and tests' own large sources, enough bytes for the fork to
pay), analysed by the engine with every rule, once in one process and once split.
"""

from __future__ import annotations


import pytest

from trtcodemod.migrate import split
from trtcodemod.migrate.run import _findings
from trtcodemod.verify.spec import RewriteOptions
from support import REPO as ROOT



def _files() -> list[str]:
    files = sorted(str(p) for p in (ROOT / "examples").rglob("*.py"))
    return files + [str(ROOT / "trtcodemod" / "engine.py"), str(ROOT / "trtcodemod" / "migrate" / "run.py")]


def _analyse(files: list[str]) -> tuple[list, list[str]]:
    return _findings(files, RewriteOptions(), None)


def _seen(findings: list) -> list[tuple]:
    return [(f.as_dict(), f.fix, None if f.edit is None else (f.edit.safety, f.edit.evidence)) for f in findings]


@pytest.mark.skipif(split.usable_cores() < 2, reason="the split needs two cores")
def test_the_split_analysis_equals_one_process_and_uses_the_child() -> None:
    files = _files()
    assert sum(map(split._size, files)) >= split.MIN_BYTES
    alone, alone_errors = _analyse(files)
    before = split.STATS["files_in_child"]
    together, together_errors = split.analyse_split(files, _analyse)
    assert split.STATS["files_in_child"] - before == len(split.deal(files)[1]) > 0
    assert alone and _seen(together) == _seen(alone)
    assert together_errors == alone_errors


def test_the_shares_hold_every_file_once_and_are_about_even() -> None:
    files = _files()
    mine, theirs = split.deal(files)
    assert sorted(mine + theirs) == sorted(files)
    sizes = [sum(map(split._size, share)) for share in (mine, theirs)]
    assert abs(sizes[0] - sizes[1]) <= max(map(split._size, files))
