"""Real code goes through check and apply without internal errors, and still compiles."""

from __future__ import annotations

from pathlib import Path

import pytest

from trtcodemod.engine import Options, check_source, fix_source

TRICKY = '''\
from __future__ import annotations
import torch as th
from torch import nn
import torch.nn.functional as F


@th.no_grad()
def decorated(x: th.Tensor, *, k: int = 1) -> th.Tensor:
    return (y := x.squeeze(1)) + k


async def coroutine(x):
    async with ctx() as c:
        return [v.unsqueeze(0) for v in x if v is not None]


class Net(nn.Module):
    def forward(self, x, *args, **kwargs):
        global G
        match x.dim():
            case 2:
                y = x.squeeze(-1)
            case _:
                y = lambda t: t.unsqueeze(0)
        f = f"{x.squeeze(0)!r:>10}"
        z = th.squeeze(*args)
        w = th.squeeze(x, **kwargs)
        try:
            pass
        except* ValueError:
            pass
        return x[..., None].unsqueeze(1), y, f, z, w
'''


def test_tricky_syntax_survives() -> None:
    source = TRICKY.encode()
    check_source(source, "tricky.py", Options())
    result = fix_source(source, "tricky.py", Options(unsafe=True))
    compile(result.source, "tricky.py", "exec")
    assert b"th.squeeze(*args)" in result.source and b"th.squeeze(x, **kwargs)" in result.source
    assert not fix_source(result.source, "tricky.py", Options(unsafe=True)).changed


def _torch_sources() -> list[Path]:
    torch = pytest.importorskip("torch")
    root = Path(torch.__file__).parent / "nn"
    return sorted((root / "modules").glob("*.py")) + [root / "functional.py"]


def test_torch_nn_sources_rewrite_and_compile() -> None:
    """torch.nn's own modules: large, real, full of squeeze/pad/where. Nothing may break."""
    files = _torch_sources()
    assert len(files) > 20
    rewritten = 0
    for path in files:
        source = path.read_bytes()
        result = fix_source(source, str(path), Options(unsafe=True))
        if result.changed:
            rewritten += 1
            compile(result.source, str(path), "exec")
            again = fix_source(result.source, str(path), Options(unsafe=True))
            assert not again.changed, f"{path}: second apply changed the file"
    assert rewritten > 0


# --- huge and pathological files ---------------------------------------------------------------

import random  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

from libcst.metadata import CodePosition, CodeRange  # noqa: E402

from trtcodemod import engine  # noqa: E402


def _quadratic_reference(fixable):
    """The definition: greedy by first position, a fix is taken when no range of it overlaps a taken one."""
    chosen, taken = [], []
    for finding, ranges in sorted(fixable, key=lambda item: engine._range_key(item[1])):
        if any(engine._overlap(a, b) for a in ranges for b in taken):
            continue
        chosen.append(finding)
        taken.extend(ranges)
    return chosen


def _range(line: int, column: int, end_line: int, end_column: int) -> CodeRange:
    return CodeRange(CodePosition(line, column), CodePosition(end_line, end_column))


def test_overlap_resolution_matches_the_definition() -> None:
    rng = random.Random(20261123)
    for _ in range(2000):
        fixable = []
        for number in range(rng.randint(0, 12)):
            ranges = []
            for _ in range(rng.randint(0, 3)):  # nested, touching, empty and multi-line ranges
                line, column = rng.randint(1, 4), rng.randint(0, 6)
                end_line = line + rng.choice((0, 0, 1))
                end_column = rng.randint(0, 8) if end_line > line else column + rng.randint(0, 4)
                ranges.append(_range(line, column, end_line, end_column))
            fixable.append((number, ranges))
        assert engine._non_overlapping(fixable) == _quadratic_reference(fixable), fixable


def test_overlap_resolution_is_n_log_n() -> None:
    """40,000 fixes (the issue's 38,000-finding file): the pairwise version took minutes. No clock in the
    assertion (a loaded machine is no regression); a quadratic version would show as a test that takes minutes."""
    fixable = [(n, [_range(n + 1, 4, n + 1, 10), _range(n + 1, 12, n + 1, 14)]) for n in range(40_000)]
    fixable += [(-n - 1, [_range(n + 1, 6, n + 1, 8)]) for n in range(0, 40_000, 2)]  # overlapping: wait
    rng = random.Random(1)
    rng.shuffle(fixable)
    chosen = engine._non_overlapping(fixable)
    assert sorted(chosen) == list(range(40_000))


def test_many_findings_in_one_file_stay_fast() -> None:
    body = "".join(f"    a{n} = len(x) + len(y)\n" for n in range(3000))
    source = f"import torch\n\n\ndef head(x: torch.Tensor, y: torch.Tensor):\n{body}    return x\n".encode()
    result = fix_source(source, "many.py", Options(select=("TRT704",)))
    assert len(result.fixed) == 6000 and b"len(" not in result.source.split(b"def head", 1)[1]


#: name -> (source, the error after "path"). Each would overflow LibCST's native parser's stack
#: (a segmentation fault, ending the whole batch) or Python's recursion limit.
DEEP = {
    "parens.py": ("x = " + "(" * 5000 + "1" + ")" * 5000 + "\n", ":1: error: syntax error: too many nested parentheses"),
    "lists.py": ("x = " + "[" * 3000 + "]" * 3000 + "\n", ":1: error: syntax error: too many nested parentheses"),
    "calls.py": ("import torch\nx = " + "f(" * 2000 + "1" + ")" * 2000 + "\n",
                 ":2: error: syntax error: too many nested parentheses"),
    "unary.py": ("x = " + "-" * 100_000 + "1\n", ":1: error: source nests too deeply to parse"),
    "unary_short.py": ("y = 2\nx = " + "~" * 5000 + "1\n", ":2: error: source nests too deeply to parse"),
}


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_pathological_nesting_is_a_clear_error_not_a_crash(tmp_path: Path, jobs: str) -> None:
    """Run in a child process: a regression would be a segmentation fault."""
    for name, (source, _) in DEEP.items():
        (tmp_path / name).write_text(source)
    (tmp_path / "fine.py").write_text("x = " + "(" * 200 + "1" + ")" * 200 + "\nimport torch\n"
                                      "def f(t: torch.Tensor):\n    return len(t)\n")
    result = subprocess.run([sys.executable, "-m", "trtcodemod", "check", "--no-cache", "-j", jobs, str(tmp_path)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 2, (result.returncode, result.stderr[-2000:])
    for name, (_, error) in DEEP.items():
        assert f"{tmp_path / name}{error}" in result.stdout, (name, result.stdout)
    assert f"{tmp_path / 'fine.py'}:4:12: TRT704" in result.stdout  # 200 levels: CPython's limit, still checked
    assert f"{len(DEEP)} files could not be processed" in result.stdout


# --- a rule that fails costs its own findings, never the file's or the batch's ---------------------

_EMPTY_TUPLE_STATE = '''\
import torch
from torch import nn


class Cache(nn.Module):
    def __init__(self):
        super().__init__()
        self.stack = ()
        self.buf = torch.zeros(4)

    def forward(self, v: torch.Tensor):
        self.buf[0] = v.sum()
        return torch.where(v > 0, v, 0.0), (v, ())
'''


def test_an_empty_tuple_assigned_to_an_attribute_is_analysed() -> None:
    # TRT203's attribute evidence stripped the parentheses of `()`, which LibCST refuses to build
    # (seen on transformers' tokenization_utils_base.py inside a migration: exit 2 for the model).
    findings = check_source(_EMPTY_TUPLE_STATE.encode(), "cache.py", Options(select=("ALL",), scope="all"))
    assert "TRT203" in {f.rule for f in findings}


def test_strip_parens_keeps_the_parentheses_a_tuple_or_generator_needs() -> None:
    import libcst as cst

    from trtcodemod.astutil import strip_parens

    for code, expected in (("(())", "()"), ("((1, 2))", "(1, 2)"), ("((x for x in y))", "(x for x in y)"),
                           ("((a + b))", "a + b")):
        node = strip_parens(cst.parse_expression(code))
        assert cst.Module([]).code_for_node(node) == expected


def test_a_rule_that_raises_is_named_and_the_other_rules_still_report(monkeypatch: pytest.MonkeyPatch) -> None:
    from trtcodemod.errors import InternalError
    from trtcodemod.registry import rule_classes

    boom = next(cls for cls in rule_classes() if cls.info.id == "TRT203")

    def explode(self, node):  # a bug of ours, standing in for any rule's
        raise ValueError("rule bug")

    monkeypatch.setattr(boom, "visit_Assign", explode, raising=False)
    source = _EMPTY_TUPLE_STATE.encode()
    options = Options(select=("ALL",), scope="all")
    with pytest.raises(InternalError, match="rule TRT203 failed"):
        check_source(source, "cache.py", options)  # no place to name it: raised, never silent
    crashes: list[InternalError] = []
    findings = check_source(source, "cache.py", options, crashes=crashes)
    assert [c.rules for c in crashes] == [("TRT203",)] and "ValueError: rule bug" in str(crashes[0])
    assert "TRT203" not in {f.rule for f in findings} and "TRT703" in {f.rule for f in findings}
    result = fix_source(source, "cache.py", options)
    assert any("rule TRT203 failed" in str(e) for e in result.internal_errors)
