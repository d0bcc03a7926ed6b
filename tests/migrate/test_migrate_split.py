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
    return [(f.as_dict(), f.fix, None if f.edit is None else (f.edit.safety, f.edit.evidence, tuple(f.edit.helpers),
                                                              f.edit.covers)) for f in findings]


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


def test_what_crosses_keeps_the_helpers_names() -> None:
    """The plan tells a rule's kinds of fix apart by their helpers (TRT366's `_trt_restack` goes with the applied
    `_trt_unbound` of a caller, zoo 29's `od_retinanet_r18_heads`): the child's findings keep them."""
    import libcst as cst

    from trtcodemod.findings import Finding, Fix, Safety

    node = cst.parse_expression("torch.stack(images)")
    edit = Fix({node: cst.parse_expression("_trt_restack(images)")}, safety=Safety.SAFE, helpers=("_trt_restack",),
               evidence="why", covers=True)
    finding = Finding("TRT366", "per-element-map", "m", "utils.py", 437, 21, 437, 40, Safety.SAFE, edit)
    plain = split._plain(finding)
    assert plain.edit is not None and not plain.edit.replacements
    assert (plain.edit.helpers, plain.edit.safety, plain.edit.evidence, plain.edit.covers) == \
        (("_trt_restack",), Safety.SAFE, "why", True)
