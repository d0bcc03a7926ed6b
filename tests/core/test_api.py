"""The Python API: check_source / apply_source on str and bytes."""

from __future__ import annotations

import pytest
import torch

import trtcodemod
from support import load

CODE = "import torch\n\n\ndef yaw(s, c):\n    return torch.atan2(s, c)  # heading\n"


def test_check_source_finds_and_names_the_path() -> None:
    (finding,) = trtcodemod.check_source(CODE, path="head.py")
    assert (finding.rule, finding.path, finding.line) == ("TRT301", "head.py", 5)
    assert trtcodemod.check_source(CODE.encode(), select=["TRT4"]) == []


def test_apply_source_returns_the_input_type_and_runs() -> None:
    text = trtcodemod.apply_source(CODE)
    assert isinstance(text.code, str) and text.changed and "_trt_atan2(s, c)  # heading" in text.code
    assert [f.rule for f in text.fixed] == ["TRT301"]
    raw = trtcodemod.apply_source(CODE.encode())
    assert isinstance(raw.code, bytes) and raw.code.decode() == text.code
    s, c = torch.tensor([0.0, -0.0, 1.0]), torch.tensor([-1.0, -1.0, 0.0])
    assert torch.equal(load(text.code, "yaw")(s, c), torch.atan2(s, c))


def test_unchanged_source_is_the_same_object() -> None:
    code = "x = 1\n"
    result = trtcodemod.apply_source(code)
    assert not result.changed and result.code is code


def test_unsafe_and_target_are_honoured() -> None:
    code = "import torch\ny = x.squeeze(1)\n"
    assert not trtcodemod.apply_source(code).changed
    assert trtcodemod.apply_source(code, unsafe=True, select=("TRT401",)).code.endswith("y = x[:, 0]\n")
    pad = "import torch.nn.functional as F\ny = F.pad(x, (1, 1))\n"
    assert not trtcodemod.apply_source(pad).changed
    assert "_trt_zero_pad(x, (1, 1))" in trtcodemod.apply_source(pad, target="8.0").code


def test_a_coding_line_is_respected_for_str_input() -> None:
    code = "# -*- coding: latin-1 -*-\nimport torch\nname = 'café'\ny = torch.atan2(a, b)\n"
    result = trtcodemod.apply_source(code)
    assert "name = 'café'" in result.code and "_trt_atan2(a, b)" in result.code


def test_bad_input_raises_input_error_with_the_line() -> None:
    with pytest.raises(trtcodemod.InputError) as error:
        trtcodemod.check_source("def f(:\n    pass\n", path="bad.py")
    assert error.value.path == "bad.py" and error.value.line == 1
    with pytest.raises(TypeError):
        trtcodemod.apply_source(42)  # type: ignore[arg-type]


def test_pathological_nesting_is_an_input_error_not_a_crash() -> None:
    code = "x = " + "(" * 6000 + "1" + ")" * 6000 + "\n"
    with pytest.raises(trtcodemod.InputError) as raised:
        trtcodemod.check_source(code, path="deep.py")
    assert str(raised.value).startswith("deep.py:1: error:") and "nest" in str(raised.value)
