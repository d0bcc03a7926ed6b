"""Engine: byte fidelity, suppressions, selection, targets, helpers insertion, fixed point."""

from __future__ import annotations

import pytest

from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.errors import InputError

SQUEEZE = b"import torch\n\n\ndef f(x):\n    return x.squeeze(1)  # note\n"
#: The default selection plus the opt-in TRT401, whose squeeze these tests use as a typical fix.
WITH_SQUEEZE = ("ALL", "TRT401")


def test_untouched_file_is_byte_identical() -> None:
    source = b"\xef\xbb\xbf# comment\r\nimport torch\r\n\r\nx = 'a'  # keep\r\n"
    result = fix_source(source, "f.py", Options(unsafe=True))
    assert not result.changed and result.source is source


@pytest.mark.parametrize("newline", [b"\n", b"\r\n"])
@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
def test_rewrite_keeps_bom_newlines_comments(newline: bytes, bom: bytes) -> None:
    source = bom + SQUEEZE.replace(b"\n", newline)
    result = fix_source(source, "f.py", Options(unsafe=True, select=WITH_SQUEEZE))
    assert result.changed
    expected = bom + b"import torch\n\n\ndef f(x):\n    return x[:, 0]  # note\n".replace(b"\n", newline)
    assert result.source == expected


def test_latin1_file_keeps_its_encoding() -> None:
    source = "# -*- coding: latin-1 -*-\nimport torch\nname = 'café'\ny = x.unsqueeze(0)\n".encode("latin-1")
    result = fix_source(source, "f.py", Options(select=("TRT402",), unsafe=True))
    assert result.source == source.replace(b"x.unsqueeze(0)", b"x[None]")


def test_apply_twice_equals_once() -> None:
    once = fix_source(SQUEEZE, "f.py", Options(unsafe=True)).source
    twice = fix_source(once, "f.py", Options(unsafe=True))
    assert not twice.changed


def test_unsafe_fix_needs_unsafe() -> None:
    result = fix_source(SQUEEZE, "f.py", Options(select=WITH_SQUEEZE))
    assert not result.changed
    assert [f.rule for f in result.findings] == ["TRT401"]
    assert result.findings[0].fix.value == "unsafe"


def test_nested_fixes_all_land() -> None:
    # The inner pair is one chain from the front (one index); the outer axis, from the end, its own fix.
    source = b"y = x.unsqueeze(0).unsqueeze(0).unsqueeze(-1)\n"
    assert fix_source(source, "f.py", Options(select=("TRT402",), unsafe=True)).source == b"y = x[None, None][..., None]\n"


def test_torch_import_added_only_when_needed() -> None:
    # The rewrite itself needs no torch name: nothing is imported.
    unsqueeze = Options(select=("TRT402",), unsafe=True)
    assert fix_source(b"y = x.unsqueeze(0)\n", "f.py", unsqueeze).source == b"y = x[None]\n"
    # A helper needs `torch`; the file only imported a name from it, so `import torch` is added, once.
    source = b"from torch import atan2\n\n\ndef yaw(s, c):\n    return atan2(s, c)\n"
    result = fix_source(source, "f.py").source.decode()
    assert result.startswith("from torch import atan2\nimport torch\n\n\n# Inserted by trtcodemod")
    assert result.count("import torch\n") == 1 and result.count("def _trt_atan2(") == 1
    namespace: dict = {}
    exec(compile(result, "f.py", "exec"), namespace)  # the rewritten module runs on its own
    import torch

    s, c = torch.tensor([0.0, -0.0, 1.0]), torch.tensor([-1.0, -1.0, 0.0])
    assert torch.equal(namespace["yaw"](s, c), torch.atan2(s, c))


@pytest.mark.parametrize(
    "comment,expected",
    [
        ("# trtcodemod: ignore", []),
        ("# trtcodemod: ignore[TRT401]", []),
        ("# trtcodemod: ignore[TRT4]", []),
        ("#trtcodemod:ignore[squeeze-dim]", []),
        ("# trtcodemod: ignore[TRT101, TRT5]", ["TRT401"]),
        ("# some other comment", ["TRT401"]),
    ],
)
def test_suppression_comments(comment: str, expected: list[str]) -> None:
    source = f"y = x.squeeze(1)  {comment}\n".encode()
    assert [f.rule for f in check_source(source, "f.py", Options(select=WITH_SQUEEZE))] == expected
    if not expected:
        assert not fix_source(source, "f.py", Options(unsafe=True, select=WITH_SQUEEZE)).changed


def test_select_and_ignore_by_prefix() -> None:
    source = b"y = x.squeeze(1).unsqueeze(0)\nz = w.squeeze()\n"
    assert [f.rule for f in check_source(source, "f.py", Options(select=("TRT40",)))] == ["TRT401", "TRT402", "TRT403"]
    assert [f.rule for f in check_source(source, "f.py", Options(ignore=("TRT401", "unsqueeze")))] == ["TRT403"]
    assert [f.rule for f in check_source(source, "f.py", Options(select=("TRT403",)))] == ["TRT403"]


def test_positions_are_one_based_and_span_the_node() -> None:
    (finding,) = check_source(b"import torch\nif True:\n    y = torch.squeeze(a, 1)\n", "f.py",
                              Options(select=("TRT401",)))
    assert (finding.line, finding.column, finding.end_line, finding.end_column) == (3, 9, 3, 28)
    assert finding.as_dict()["path"] == "f.py"


@pytest.mark.parametrize(
    "source,line,fragment",
    [
        (b"def f(:\n    pass\n", 1, "syntax error"),
        (b"x = 1\nif x\n    y = 2\n", 2, "syntax error"),
        (b"x = '\xff\xfe'\n", None, "decode"),
        (b"x = 1\x00\n", None, "NUL"),
    ],
)
def test_bad_input_names_file_and_line(source: bytes, line, fragment: str) -> None:
    with pytest.raises(InputError) as info:
        fix_source(source, "pkg/bad.py")
    assert info.value.path == "pkg/bad.py"
    assert fragment in info.value.message
    if line is not None:
        assert info.value.line == line
        assert str(info.value).startswith(f"pkg/bad.py:{line}: error: ")


def test_results_do_not_depend_on_hash_seed(tmp_path) -> None:
    """Ambiguous names (try/except imports) resolve the same way on every run (DESIGN §8.11)."""
    import os
    import subprocess
    import sys

    code = (
        "try:\n    from torch import squeeze as sq\nexcept ImportError:\n    from numpy import squeeze as sq\n"
        "y = sq(x, 1)\n"
    )
    script = (
        "from trtcodemod.engine import Options, check_source\n"
        f"print([f.rule for f in check_source({code.encode()!r}, 'f.py', Options(select=('TRT401',)))])\n"
    )
    outputs = set()
    for seed in ("0", "1", "2", "3"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        outputs.add(subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                                   check=True).stdout)
    assert outputs == {"['TRT401']\n"}


def test_inserted_helpers_are_not_analysed() -> None:
    """Rules never touch trtcodemod's own helper definitions, but a user's `_trt_*` function is user code."""
    from trtcodemod.astutil import code_of
    from trtcodemod.helpers import helper_definitions

    ours = "\n\n".join(code_of(d) for d in helper_definitions(["_trt_mask_index"]))
    assert "nonzero" in ours and "values[mask]" in ours
    user = "def _trt_example(x, m):\n    return torch.where(m, x.squeeze(1), 0.0)\n"
    source = f"import torch\n\n\n{ours}\n\n{user}".encode()
    findings = check_source(source, "f.py", Options(select=WITH_SQUEEZE))
    first_user_line = source.decode().splitlines().index("def _trt_example(x, m):") + 1
    assert findings and all(f.line > first_user_line for f in findings)
    result = fix_source(source, "f.py", Options(unsafe=True, select=WITH_SQUEEZE))
    assert ours.encode() in result.source


def test_replacement_in_tighter_context_gets_parentheses() -> None:
    """A blend `a * m + b * ~m` that lands inside `x * (...)` on a later pass keeps its meaning."""
    source = b"import torch\ny = torch.where(c1, a, torch.where(c2, b, d)) * 2\nz = torch.where(c2, b, d)\n"
    result = fix_source(source, "f.py", Options(select=("TRT102",), unsafe=True, target="8.0")).source.decode()
    import torch

    c1 = torch.tensor([True, False, False])
    c2 = torch.tensor([False, True, False])
    a, b, d = torch.tensor([1.0, 2, 3]), torch.tensor([4.0, 5, 6]), torch.tensor([7.0, 8, 9])
    scope = {"c1": c1, "c2": c2, "a": a, "b": b, "d": d}
    exec(result, scope)
    assert torch.equal(scope["y"], torch.where(c1, a, torch.where(c2, b, d)) * 2), result
    assert "\nz = b * c2 + d * torch.logical_not(c2)\n" in result  # no parentheses where none are needed


# --- self-documenting f-strings print their own source -----------------------------------------

_DEBUG_FSTRINGS = '''\
import torch
from torch import nn


class M(nn.Module):
    def forward(self, boxes: torch.Tensor, scores: torch.Tensor):
        print(f"{len(boxes)=}")
        print(f"{boxes[scores > 0].tolist()=!r:>10}")
        print(f"{len(boxes)}")
        return boxes[scores > 0]
'''


def test_no_fix_inside_a_self_documenting_fstring(tmp_path, capsys) -> None:
    import torch

    from safety import import_source
    from support import rewrite

    after = rewrite(_DEBUG_FSTRINGS, select=("ALL",))
    assert 'print(f"{len(boxes)=}")' in after and 'print(f"{boxes[scores > 0].tolist()=!r:>10}")' in after
    assert 'print(f"{boxes.shape[0]}")' in after and "return _trt_mask_index(boxes, scores > 0)" in after
    findings = check_source(_DEBUG_FSTRINGS.encode(), "m.py", Options(select=("ALL",)))
    quoted = [f for f in findings if f.line in (7, 8)]
    assert quoted and all(f.fix.value == "none" for f in quoted)
    assert {f.rule for f in quoted if "self-documenting f-string" in f.message} == {"TRT704", "TRT201"}
    outputs = []
    inputs = ((torch.randn(3, 4), torch.tensor([1.0, -1.0, 0.5])), (torch.zeros(0, 4), torch.zeros(0)))
    for code in (_DEBUG_FSTRINGS, after):
        model = import_source(code, tmp_path)["M"]()
        for boxes, scores in inputs:
            model(boxes, scores)
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] and "len(boxes)=3" in outputs[0]


DEBUG_FSTRINGS = '''\
import torch


def report(boxes: torch.Tensor, scores: torch.Tensor):
    print(f"{len(boxes)=}")
    print(f"{boxes[scores > 0].tolist() = }")
    print(f"{len(boxes)=:>4}|{len(boxes)}")
    return boxes[scores > 0]
'''


def test_no_fix_inside_a_self_documenting_fstring_field() -> None:
    """`f"{len(boxes)=}"` prints the expression's text: a fix there changes the output."""
    import contextlib
    import io

    import torch

    from support import load

    result = fix_source(DEBUG_FSTRINGS.encode(), "m.py").source.decode()
    assert 'print(f"{len(boxes)=}")' in result and "{boxes[scores > 0].tolist() = }" in result
    assert "{len(boxes)=:>4}|{boxes.shape[0]}" in result  # the plain field beside it is fixed
    findings = check_source(DEBUG_FSTRINGS.encode(), "m.py")
    inside = [f for f in findings if f.line in (5, 6) or (f.line == 7 and f.column < 20)]
    assert {f.rule for f in inside} == {"TRT704", "TRT201"}
    assert all(f.edit is None and "self-documenting" in f.message for f in inside)
    for boxes, scores in [(torch.tensor([[0.0, -0.0], [float("inf"), float("nan")]]), torch.tensor([1.0, -1.0])),
                          (torch.zeros(0, 2), torch.zeros(0))]:
        printed = []
        for code in (DEBUG_FSTRINGS, result):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                value = load(code, "report")(boxes, scores)
            printed.append((out.getvalue(), value))
        assert printed[0][0] == printed[1][0]
        assert torch.equal(printed[0][1].nan_to_num(), printed[1][1].nan_to_num())


def test_a_span_on_a_line_another_fix_changed_maps_to_its_text_there() -> None:
    """A fix that wraps an expression (TRT709's ``X * m.squeeze(1)`` → ``_trt_complex_mul(X,
    m.squeeze(1))``, with helpers inserted above) keeps the inner expression's text: its span maps
    back to where that text stood, when it stands once on each side; not otherwise."""
    from trtcodemod.engine import _span_map

    original = b"def f(X, m):\n    Y = X * m.squeeze(1)\n    return Y\n"
    current = (b"def _helper(a, b):\n    return a * b\n\n\ndef f(X, m):\n"
               b"    Y = _trt_complex_mul(X, m.squeeze(1))\n    return Y\n")
    line = current.decode().splitlines()[5]
    column = line.index("m.squeeze(1)") + 1
    moved = _span_map(original, current)(6, column, 6, column + len("m.squeeze(1)"))
    assert moved == (2, original.decode().splitlines()[1].index("m.squeeze(1)") + 1, 2,
                     original.decode().splitlines()[1].index("m.squeeze(1)") + 1 + len("m.squeeze(1)"))
    # Text found twice on the new line (or nowhere on the old one): nothing is known.
    twice = current.replace(b"_trt_complex_mul(X, m.squeeze(1))", b"_trt_complex_mul(m.squeeze(1), m.squeeze(1))")
    at = twice.decode().splitlines()[5].index("m.squeeze(1)") + 1
    assert _span_map(original, twice)(6, at, 6, at + len("m.squeeze(1)")) is None
    other = current.replace(b"m.squeeze(1))", b"m.squeeze(2))")
    at = other.decode().splitlines()[5].index("m.squeeze(2)") + 1
    assert _span_map(original, other)(6, at, 6, at + len("m.squeeze(2)")) is None
