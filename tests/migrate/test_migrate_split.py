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
    return [(f.as_dict(), f.fix, None if f.edit is None else (f.edit.safety, f.edit.evidence, f.edit.proof,
                                                              tuple(f.edit.helpers), f.edit.covers)) for f in findings]


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


def test_what_crosses_the_process_boundary_keeps_the_fix_s_own_prover() -> None:
    """A form of a fix that names its own prover (TRT101's emptiness exit) is never a candidate: dropped on the
    way back from the child, it became one (zoo 29's oriented_det RoI exits were kept as verified candidates)."""
    from trtcodemod.engine import Options, check_source
    from trtcodemod.evidence.proofs import prove_both_ways

    code = ("import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, x):\n"
            "        out = []\n        for row in x:\n            keep = row > 0\n            if not keep.any():\n"
            "                continue\n            out.append(row[keep])\n        return torch.cat(out)\n")
    [finding] = check_source(code.encode(), "m.py", Options(select=("TRT101",)))
    plain = split._plain(finding)
    assert plain.edit is not None and not plain.edit.replacements and plain.edit.proof is prove_both_ways


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
