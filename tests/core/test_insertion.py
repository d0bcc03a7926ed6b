"""Inserting helpers: where they go, under which names, with which line endings, and
what happens when a rule's replacement would not parse.

Every rewritten module here is executed and its function called on real tensors,
against the original's result: a helper placed before ``import torch`` or a call
site renamed to the user's function shows up as a wrong value or an exception.
"""

from __future__ import annotations

import re
import sys
import textwrap
import warnings
from pathlib import Path
from typing import Any, Callable

import libcst as cst
import pytest
import torch
from typer.testing import CliRunner

import trtcodemod.engine as engine
from support import assert_same
from trtcodemod.astutil import walk
from trtcodemod.cli import app
from trtcodemod.engine import FileResult, Options, check_source, fix_source
from trtcodemod.errors import InternalError
from trtcodemod.helpers import helper_closure, helper_definitions, helper_names, inserted_helper
from trtcodemod.rules import Fix, Rule, RuleInfo, Safety

S = torch.tensor([0.0, -0.0, 1.0, -2.0, 3.5, -0.25])
C = torch.tensor([-1.0, -1.0, 0.0, 2.0, -0.5, 0.0])
X = torch.arange(6.0).reshape(2, 3)
MARK = "# Inserted by trtcodemod: TensorRT-safe helpers."


def _fix(code: str | bytes, **options: Any) -> FileResult:
    source = code if isinstance(code, bytes) else textwrap.dedent(code).encode()
    return fix_source(source, "snippet.py", Options(**options))


def _exec(code: str | bytes, **names: Any) -> dict[str, Any]:
    """Run module source as ``import`` would, leaving sys.path and warning filters as they were."""
    namespace: dict[str, Any] = {"__name__": "snippet", **names}
    saved_path = list(sys.path)
    try:
        with warnings.catch_warnings():
            exec(compile(code, "snippet.py", "exec"), namespace)
    finally:
        sys.path[:] = saved_path
    return namespace


def _statements(code: str) -> list[cst.BaseStatement]:
    return list(cst.parse_module(code).body)


def _ours(code: str) -> list[tuple[int, str, str]]:
    """(index, name, canonical name) of each module-level helper definition that is ours."""
    found = []
    for index, stmt in enumerate(_statements(code)):
        info = inserted_helper(stmt)
        if info is not None:
            found.append((index, stmt.name.value, info.canonical))
    return found


def _assert_torch_bound_after_helpers(code: str, **names: Any) -> None:
    """Executing the module up to its last helper leaves ``torch`` bound to torch: every
    name the helpers use exists by then, whatever the header did before."""
    body = _statements(code)
    last = max(index for index, _, _ in _ours(code))
    prefix = cst.parse_module(code).with_changes(body=body[: last + 1]).code
    assert _exec(prefix, **names).get("torch") is torch, prefix


# --- placement: one case per shape of file header ---------------------------------

Call = Callable[[dict], Any]


def _yaw(namespace: dict) -> Any:
    return namespace["yaw"](S, C)


HEADERS: dict[str, tuple[str, Call, str]] = {
    # name: (source, how to get a result from the executed module, text the output must contain)
    "docstring-only": (
        '''\
        """Yaw of a box head."""


        def yaw(s, c):
            return s.atan2(c)
        ''',
        _yaw,
        f'"""Yaw of a box head."""\n\n\nimport torch\n\n\n{MARK}\n',
    ),
    "future-import": (
        '''\
        """Yaw in degrees."""
        from __future__ import annotations

        import math


        def yaw(s, c):
            return s.atan2(c) * (180 / math.pi)
        ''',
        _yaw,
        f'"""Yaw in degrees."""\nfrom __future__ import annotations\n\nimport math\nimport torch\n\n\n{MARK}\n',
    ),
    "sys-path-insert-first": (
        '''\
        import os
        import sys

        sys.path.insert(0, os.path.join("third_party", "ops"))

        import torch
        import torch.nn as nn


        class Head(nn.Module):
            def forward(self, s, c):
                return torch.atan2(s, c)


        def yaw(s, c):
            return Head()(s, c)
        ''',
        _yaw,
        f'sys.path.insert(0, os.path.join("third_party", "ops"))\n\nimport torch\nimport torch.nn as nn\n\n\n{MARK}\n',
    ),
    "torch-bound-after-an-aliased-torch-import": (
        # `import torch.nn.functional as F` imports torch but binds only `F`.
        '''\
        import os
        import torch.nn.functional as F

        os.environ.setdefault("TRTCODEMOD_TEST_HEADER", "1")

        import torch


        def yaw(s, c):
            return torch.atan2(s, c) + F.relu(s) * 0
        ''',
        _yaw,
        f'os.environ.setdefault("TRTCODEMOD_TEST_HEADER", "1")\n\nimport torch\n\n\n{MARK}\n',
    ),
    "warnings-filter-first": (
        '''\
        import warnings

        warnings.filterwarnings("ignore", category=UserWarning)
        import torch


        def yaw(s, c):
            return torch.atan2(s, c)
        ''',
        _yaw,
        f'warnings.filterwarnings("ignore", category=UserWarning)\nimport torch\n\n\n{MARK}\n',
    ),
    "try-import-apex": (
        '''\
        try:
            from apex import amp
        except ImportError:
            amp = None
        import torch


        def yaw(s, c):
            return torch.atan2(s, c)
        ''',
        _yaw,
        f"    amp = None\nimport torch\n\n\n{MARK}\n",
    ),
    "torch-imported-in-every-branch-of-try": (
        '''\
        try:
            import torch
            from apex import amp
        except ImportError:
            import torch
            amp = None


        def yaw(s, c):
            return torch.atan2(s, c)
        ''',
        _yaw,
        f"    amp = None\n\n\n{MARK}\n",
    ),
    "torch-only-in-try-body": (
        # If apex is missing, torch is not bound after the try: import it ourselves.
        '''\
        try:
            from apex import amp
            import torch
        except ImportError:
            amp = None


        def yaw(s, c):
            return s.atan2(c)
        ''',
        _yaw,
        f"    amp = None\n\n\nimport torch\n\n\n{MARK}\n",
    ),
    "type-checking-block": (
        '''\
        from __future__ import annotations

        from typing import TYPE_CHECKING

        if TYPE_CHECKING:
            import torch


        def yaw(s: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
            return s.atan2(c)
        ''',
        _yaw,
        f"if TYPE_CHECKING:\n    import torch\n\n\nimport torch\n\n\n{MARK}\n",
    ),
    "if-else-both-import-torch": (
        '''\
        import sys

        if sys.version_info >= (3, 8):
            import torch
        else:
            import torch


        def yaw(s, c):
            return torch.atan2(s, c)
        ''',
        _yaw,
        f"else:\n    import torch\n\n\n{MARK}\n",
    ),
    "import-torch-as-th-only": (
        '''\
        import torch as th


        def yaw(s, c):
            return th.atan2(s, c)
        ''',
        _yaw,
        f"import torch as th\nimport torch\n\n\n{MARK}\n",
    ),
    "from-torch-nn-import-functional-only": (
        # Padding needs a helper for old TensorRT targets, pooling with --unsafe (see OPTIONS).
        '''\
        from torch.nn import functional as F


        def pad(x):
            return F.pad(x, (1, 2)), F.adaptive_avg_pool2d(x[None], (2, 2))
        ''',
        lambda namespace: namespace["pad"](X),
        f"from torch.nn import functional as F\nimport torch\n\n\n{MARK}\n",
    ),
    "shebang-coding-cookie-comments": (
        '''\
        #!/usr/bin/env python
        # -*- coding: utf-8 -*-
        # Copyright (c) the authors. Licensed under the MIT license.

        def yaw(s, c):
            return s.atan2(c)
        ''',
        _yaw,
        "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n# Copyright (c) the authors. Licensed under the MIT license.\n",
    ),
    "call-site-only": (
        "yaw_value = s.atan2(c)\n",
        lambda namespace: namespace["yaw_value"],
        f"import torch\n\n\n{MARK}\n",
    ),
    "rewritten-code-runs-before-the-torch-import": (
        # The first statement that binds `torch` comes after code that calls the helper
        # at import time: helpers (and their own `import torch`) must come before that code.
        '''\
        import torch as th

        yaw_value = th.atan2(s, c)

        import torch
        ''',
        lambda namespace: namespace["yaw_value"],
        f"import torch as th\nimport torch\n\n\n{MARK}\n",
    ),
}


#: Options for a case whose rewrites need more than the defaults.
OPTIONS: dict[str, dict[str, Any]] = {
    "from-torch-nn-import-functional-only": {"unsafe": True, "target": "8.0"},
}


@pytest.mark.parametrize("name", list(HEADERS))
def test_helpers_are_placed_where_torch_is_bound(name: str) -> None:
    code, call, expected_text = HEADERS[name]
    source = textwrap.dedent(code)
    options = OPTIONS.get(name, {})
    result = _fix(source, **options)
    assert result.changed and not result.internal_errors
    out = result.source.decode()
    assert _ours(out), out
    assert expected_text in out, out
    assert not re.search(r"\b(?:atan2|F\.\w+)\(", out.split(MARK)[0])  # nothing rewritten before the helpers
    _assert_torch_bound_after_helpers(out, s=S, c=C)
    expected = call(_exec(source, s=S, c=C))
    actual = call(_exec(out, s=S, c=C))
    assert_same(expected, actual, atol=1e-6, rtol=1e-6)
    assert not _fix(result.source, **options).changed  # idempotent


def test_helpers_never_go_after_the_first_rewritten_statement() -> None:
    """Even when the statement binding `torch` comes later, the helpers come first."""
    source = "import torch as th\nTABLE = {'yaw': th.atan2(s, c)}\nimport torch\n"
    out = _fix(source).source.decode()
    first_helper = min(index for index, _, _ in _ours(out))
    user = [i for i, stmt in enumerate(_statements(out)) if "TABLE" in cst.Module([]).code_for_node(stmt)]
    assert first_helper < user[0]
    assert_same(torch.atan2(S, C), _exec(out, s=S, c=C)["TABLE"]["yaw"], atol=1e-6, rtol=1e-6)


# --- reserved names ----------------------------------------------------------------

USER_HELPER = '''\
import torch


def _trt_atan2(y, x):
    """The project's own angle helper, in degrees."""
    return torch.rad2deg(torch.atan2(y, x))


def heading(s, c):
    return _trt_atan2(s, c)


def yaw(s, c):
    return torch.atan2(s, c)
'''


def test_user_definition_with_a_helper_name_is_never_used_as_the_helper() -> None:
    result = _fix(USER_HELPER)
    out = result.source.decode()
    names = {canonical: name for _, name, canonical in _ours(out)}
    assert names["_trt_atan2"] == "_trt_atan2_1"
    assert "def _trt_atan2(y, x):\n    \"\"\"The project's own angle helper" in out  # untouched
    assert "    return _trt_atan2(s, c)\n" in out and "    return _trt_atan2_1(s, c)\n" in out
    namespace = _exec(out)
    assert_same(torch.rad2deg(torch.atan2(S, C)), namespace["heading"](S, C))
    assert_same(torch.atan2(S, C), namespace["yaw"](S, C), atol=1e-6, rtol=1e-6)
    assert not _fix(result.source).changed


def test_second_apply_reuses_the_renamed_helper() -> None:
    once = _fix(USER_HELPER).source.decode()
    more = once + "\n\ndef pitch(s, c):\n    return torch.atan2(c, s)\n"
    out = _fix(more).source.decode()
    assert sorted(_ours(out)) == sorted(_ours(once))  # nothing inserted again
    assert "    return _trt_atan2_1(c, s)\n" in out
    assert_same(torch.atan2(C, S), _exec(out)["pitch"](S, C), atol=1e-6, rtol=1e-6)


def test_every_taken_helper_name_is_renamed_with_the_references_between_helpers() -> None:
    """The user defines every name of the helper and of what it calls; each of those
    raises when called, so a reference left pointing at the user's code fails here."""
    closure = helper_closure(["_trt_atan2"])
    decoys = "".join(
        f"\n\ndef {name}(*args, **kwargs):\n    raise AssertionError('the user\\'s {name} was called')\n"
        for name in closure
    )
    source = "import torch" + decoys + "\n\ndef yaw(s, c):\n    return torch.atan2(s, c)\n"
    out = _fix(source).source.decode()
    ours = {canonical: name for _, name, canonical in _ours(out)}
    assert set(ours) == set(closure)
    assert all(name == f"{canonical}_1" for canonical, name in ours.items())
    assert_same(torch.atan2(S, C), _exec(out)["yaw"](S, C), atol=1e-6, rtol=1e-6)
    assert not _fix(out.encode()).changed


@pytest.mark.parametrize(
    "binding",
    [
        "def yaw(s, c, _trt_atan2=None):\n    return torch.atan2(s, c)\n",
        "def yaw(s, c):\n    _trt_atan2 = None\n    return torch.atan2(s, c)\n",
        "from math import atan2 as _trt_atan2\n\n\ndef yaw(s, c):\n    return torch.atan2(s, c)\n",
        "def yaw(s, c):\n    return [torch.atan2(s, c) for _trt_atan2 in (1,)][0]\n",
        "_trt_atan2 = None\n\n\ndef yaw(s, c):\n    return torch.atan2(s, c)\n",
    ],
    ids=["parameter", "local", "import-as", "comprehension", "module-assignment"],
)
def test_any_binding_of_the_name_takes_it(binding: str) -> None:
    out = _fix("import torch\n\n\n" + binding).source.decode()
    assert "_trt_atan2_1(s, c)" in out
    assert_same(torch.atan2(S, C), _exec(out)["yaw"](S, C), atol=1e-6, rtol=1e-6)


def test_fresh_name_avoids_every_name_in_the_module() -> None:
    """A name the module only mentions may still be bound at run time (here via globals())."""
    source = USER_HELPER + (
        "\n\nglobals()['_trt_atan2_1'] = lambda *args: 'bound at run time'\n"
        "\n\ndef legacy():\n    return _trt_atan2_1()\n"
    )
    out = _fix(source).source.decode()
    assert {canonical: name for _, name, canonical in _ours(out)}["_trt_atan2"] == "_trt_atan2_2"
    namespace = _exec(out)
    assert namespace["legacy"]() == "bound at run time"
    assert_same(torch.atan2(S, C), namespace["yaw"](S, C), atol=1e-6, rtol=1e-6)


def test_users_own_calls_inside_a_rewritten_expression_keep_their_name() -> None:
    source = USER_HELPER + "\n\ndef mixed(s, c):\n    return torch.atan2(_trt_atan2(s, c), c)\n"
    out = _fix(source).source.decode()
    assert "    return _trt_atan2_1(_trt_atan2(s, c), c)\n" in out
    expected = torch.atan2(torch.rad2deg(torch.atan2(S, C)), C)
    assert_same(expected, _exec(out)["mixed"](S, C), atol=1e-5, rtol=1e-6)


def test_an_edited_copy_of_a_helper_is_the_users_code() -> None:
    once = _fix("import torch\n\n\ndef yaw(s, c):\n    return torch.atan2(s, c)\n").source.decode()
    assert "\ndef _trt_atan2(" in once
    edited = once.replace("\ndef _trt_atan2(y, x):\n", "\ndef _trt_atan2(y, x):\n    y = -y\n", 1)
    assert edited != once
    out = _fix(edited + "\n\ndef pitch(s, c):\n    return torch.atan2(c, s)\n").source.decode()
    assert "    return _trt_atan2_1(c, s)\n" in out
    assert "\ndef _trt_atan2(y, x):\n    y = -y\n" in out  # the user's version stays as it is
    assert_same(torch.atan2(C, S), _exec(out)["pitch"](S, C), atol=1e-6, rtol=1e-6)


def test_no_inserted_helper_imports_trtcodemod() -> None:
    """A rewritten model runs without trtcodemod: no helper imports from the package in its body (the
    helpers it calls are inserted beside it; TRT362's area resize imported its pooling helper)."""
    for definition in helper_definitions(sorted(helper_names())):
        imports = [node for node in walk(definition) if isinstance(node, (cst.Import, cst.ImportFrom))]
        code = [cst.Module(body=[]).code_for_node(node) for node in imports]
        assert not [line for line in code if "trtcodemod" in line], (definition.name.value, code)


def test_only_our_own_helpers_are_skipped_by_the_analysis() -> None:
    ours = cst.Module(body=helper_definitions(sorted(helper_names()))).code
    user = "\n\ndef _trt_example(x):\n    return x.squeeze(1)\n"
    source = "import torch\nimport torch.nn.functional as F\n\n\n" + ours + user
    findings = check_source(source.encode(), "f.py", Options(unsafe=True, select=("ALL", "TRT401")))
    example_line = source.splitlines().index("def _trt_example(x):") + 1
    assert findings and all(f.line > example_line for f in findings), findings
    # The same code under names that are not reserved is full of findings: the skip matters.
    plain = re.sub(r"\b_trt_", "user_", re.sub(r"\b_Trt", "User", source))
    assert any(f.line < example_line for f in check_source(plain.encode(), "f.py", Options(unsafe=True, select=("ALL", "TRT401"))))


# --- parentheses of multi-line chains --------------------------------------------

CHAINS = [
    ("y = (x\n    .view(2, 3)\n    .unsqueeze(0)\n)\n", "y = (x\n    .view(2, 3)[None]\n)\n"),
    ("y = (x\n    .view(2, 1, 3)\n    .squeeze(1)\n)\n", "y = (x\n    .view(2, 1, 3)[:, 0]\n)\n"),
    ("y = (\n    x.view(2, 1, 3)\n    .squeeze(1)\n)\n", "y = (\n    x.view(2, 1, 3)[:, 0]\n)\n"),
    ("y = (x  # rows\n    .view(2, 3)\n    .unsqueeze(0)\n)\n", "y = (x  # rows\n    .view(2, 3)[None]\n)\n"),
    ("y = torch.cat([(x\n    .view(1, 6)\n    .squeeze(0)), x.view(6)], 0)\n", None),
    ("y = torch.stack([x\n    .view(6)\n    .unsqueeze(0),\n    x.view(1, 6)])\n", None),
    ("y = x \\\n    .view(2, 3) \\\n    .unsqueeze(-1)\n", None),
    ("def f(x):\n    return (x\n        .view(2, 1, 3)\n        .squeeze(1)\n        .unsqueeze(0)\n    )\n\n\ny = f(x)\n", None),
]


@pytest.mark.parametrize("code,expected", CHAINS)
def test_multi_line_chains_keep_their_parentheses(code: str, expected: str | None) -> None:
    source = "import torch\n" + code
    # scope="all": `f` is only called from module-level code, which model scope counts as building.
    result = _fix(source, unsafe=True, select=("TRT401", "TRT402"), scope="all")
    assert not result.internal_errors, [str(e) for e in result.internal_errors]
    assert result.changed and result.fixed
    out = result.source.decode()
    if expected is not None:
        assert out == "import torch\n" + expected
    assert not check_source(result.source, "f.py", Options(unsafe=True, select=("TRT401", "TRT402")))
    assert_same(_exec(source, x=X)["y"], _exec(out, x=X)["y"])


class _Plus(Rule):
    """Test rule: ``plus(a, b)`` → ``a + b``, reusing the arguments as they are."""

    info = RuleInfo(id="TRT998", name="test-plus", summary="test", doc="test", fix=Safety.SAFE)

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "plus" and len(node.args) == 2:
            a, b = (arg.value for arg in node.args)
            self.report(node, "plus", Fix({node: cst.BinaryOperation(a, cst.Add(), b)}))


class _Broken(Rule):
    """Test rule with a bug: ``broken(...)`` becomes a statement where an expression stands;
    with ``only_after`` set, only once the argument is a call of that name."""

    info = RuleInfo(id="TRT999", name="test-broken", summary="test", doc="test", fix=Safety.SAFE)
    only_after: str | None = None

    def visit_Call(self, node: cst.Call) -> None:
        if not (isinstance(node.func, cst.Name) and node.func.value == "broken"):
            return
        inner = node.args[0].value if node.args else None
        if self.only_after is not None and not (
            isinstance(inner, cst.Call) and isinstance(inner.func, cst.Name)
            and inner.func.value.startswith(self.only_after)
        ):
            return
        self.report(node, "broken", Fix({node: cst.Pass()}))


@pytest.fixture
def extra_rules(monkeypatch) -> Callable[..., None]:
    def add(*rules: type[Rule]) -> None:
        original = engine.select_rules
        monkeypatch.setattr(engine, "select_rules", lambda select, ignore: [*original(select, ignore), *rules])

    return add


@pytest.mark.parametrize(
    "code,expected",
    [
        ("y = plus(x\n    .view(6), 1)\n", "y = (x\n    .view(6) + 1)\n"),
        ("y = 2 * plus(x, 1)\n", "y = 2 * (x + 1)\n"),
        ("y = torch.stack([plus(x\n    .view(6), 1)])\n", "y = torch.stack([x\n    .view(6) + 1])\n"),
    ],
)
def test_any_rules_multi_line_replacement_gets_the_parentheses_it_needs(extra_rules, code, expected) -> None:
    extra_rules(_Plus)
    source = "import torch\n\n\ndef plus(a, b):\n    return a + b\n\n\n" + code
    result = _fix(source, select=("TRT998",))
    assert not result.internal_errors
    out = result.source.decode()
    assert out.endswith(expected), out
    assert_same(_exec(source, x=X)["y"], _exec(out, x=X)["y"])


# --- invalid code of ours: an internal error, never the user's syntax error -------

BROKEN_FILE = "import torch\n\n\ndef f(x):\n    y = broken(x)\n    return x.squeeze(1), y\n"


def test_invalid_fix_is_an_internal_error_and_the_other_fixes_land(extra_rules) -> None:
    extra_rules(_Broken)
    result = _fix(BROKEN_FILE, unsafe=True, select=("ALL", "TRT401"))
    assert [e.rules for e in result.internal_errors] == [("TRT999",)]
    error = result.internal_errors[0]
    assert isinstance(error, InternalError) and error.line == 5 and error.path == "snippet.py"
    assert str(error).startswith("snippet.py:5: internal error: rule TRT999 produced invalid code")
    assert [f.rule for f in result.fixed] == ["TRT401"]
    out = result.source.decode()
    assert "    y = broken(x)\n    return x[:, 0], y\n" in out
    compile(out, "snippet.py", "exec")


def test_invalid_fix_on_a_later_pass_names_the_line_in_the_users_file(extra_rules) -> None:
    """Pass 1 inserts helpers (every line moves); the bad fix comes on pass 2."""
    _Late = type("_Late", (_Broken,), {"only_after": "_trt_atan2"})
    extra_rules(_Late)
    source = "import torch\n\n\ndef f(s, c):\n    return broken(torch.atan2(s, c))\n"
    result = _fix(source)
    assert [(e.line, e.rules) for e in result.internal_errors] == [(5, ("TRT999",))]
    out = result.source.decode()
    assert "    return broken(_trt_atan2(s, c))\n" in out and _ours(out)
    broken = lambda value: value  # noqa: E731 - the user's function
    assert_same(torch.atan2(S, C), _exec(out, broken=broken)["f"](S, C), atol=1e-6, rtol=1e-6)


def test_cli_prints_the_internal_error_and_writes_the_other_fixes(extra_rules, tmp_path: Path) -> None:
    extra_rules(_Broken)
    path = tmp_path / "model.py"
    path.write_text(BROKEN_FILE)
    result = CliRunner().invoke(app, ["apply", "--unsafe", "--select", "ALL,TRT401", str(path)])
    assert result.exit_code == 2, result.output
    assert f"{path}:5: internal error: rule TRT999 produced invalid code" in result.output
    assert "syntax error" not in result.output
    assert "return x[:, 0], y" in path.read_text()


# --- line endings --------------------------------------------------------------------

NEEDS_IMPORT_AND_HELPERS = '"""Yaw head."""\n\n\ndef yaw(s, c):\n    return s.atan2(c)\n'


def _line_endings(data: bytes) -> tuple[int, int, int]:
    """(CRLF, lone LF, lone CR) counts."""
    crlf = data.count(b"\r\n")
    rest = data.replace(b"\r\n", b"")
    return crlf, rest.count(b"\n"), rest.count(b"\r")


@pytest.mark.parametrize("newline", [b"\r\n", b"\r"], ids=["crlf", "cr"])
@pytest.mark.parametrize("code", [NEEDS_IMPORT_AND_HELPERS, USER_HELPER], ids=["import-and-helpers", "renamed"])
def test_inserted_code_uses_the_files_line_endings(code: str, newline: bytes) -> None:
    source = code.encode().replace(b"\n", newline)
    result = _fix(source)
    assert result.changed and _ours(result.source.decode())
    crlf, lf, cr = _line_endings(result.source)
    expected_lines = result.source.count(newline)
    assert (crlf, lf, cr) == ((expected_lines, 0, 0) if newline == b"\r\n" else (0, 0, expected_lines))
    assert result.source.endswith(newline)
    assert_same(torch.atan2(S, C), _exec(result.source)["yaw"](S, C), atol=1e-6, rtol=1e-6)
    assert not _fix(result.source).changed  # our helpers are recognised whatever the line endings


def test_cr_only_file_keeps_its_last_newline() -> None:
    result = _fix(b"import torch\ry = x.squeeze(1)\r", unsafe=True, select=("TRT401",))
    assert result.source == b"import torch\ry = x[:, 0]\r"


def test_a_helper_defined_twice_is_refused(tmp_path, monkeypatch) -> None:
    """Python keeps a module's last definition and the engine copied the first: `_trt_size_traced_float`
    was once defined twice in helpers/sizes.py, and an inserted `_trt_size_float` called the wrong one."""
    import trtcodemod.helpers as helpers

    package = tmp_path / "helpers"
    package.mkdir()
    (package / "__init__.py").write_text(Path(helpers.__file__).read_text())
    (package / "one.py").write_text("import torch\n\n\ndef _trt_twice(x):\n    return x\n")
    (package / "two.py").write_text("import torch\n\n\ndef _trt_twice(x, y):\n    return y\n")
    monkeypatch.setattr(helpers, "__file__", str(package / "__init__.py"))
    monkeypatch.setattr(helpers, "HELPER_MODULES", ("one", "two"))
    helpers._helper_nodes.cache_clear()
    try:
        with pytest.raises(RuntimeError, match="'_trt_twice' is defined twice"):
            helpers._helper_nodes()
        monkeypatch.setattr(helpers, "HELPER_MODULES", ("one",))
        helpers._helper_nodes.cache_clear()
        assert set(helpers._helper_nodes()) == {"_trt_twice"}
    finally:
        helpers._helper_nodes.cache_clear()


def test_what_each_helper_needs_is_read_as_libcst_reads_its_names() -> None:
    """The index reads each helper's dependencies with Python's parser and parses a module with LibCST only
    when one of its helpers is copied: the dependencies must be the helpers named anywhere in the LibCST
    definition the engine copies (a missed one would be a helper called but never inserted)."""
    import libcst as cst

    import trtcodemod.helpers as helpers

    class Names(cst.CSTVisitor):
        def __init__(self) -> None:
            self.names: set[str] = set()

        def visit_Name(self, node: cst.Name) -> None:
            self.names.add(node.value)

    table = helpers._helper_nodes()
    assert len(table) > 500
    with_needs = 0
    for name in table:
        definition, needs = table[name]
        assert definition.name.value == name
        collector = Names()
        definition.visit(collector)
        assert set(needs) == {other for other in table if other != name and other in collector.names}, name
        with_needs += bool(needs)
    assert with_needs > 50  # helpers calling helpers are common: an empty table would pass the loop above
