"""Which value reads only decide whether a check function raises (``migrate/check_calls.py``):
kornia's ``KORNIA_CHECK(cond, msg)`` / ``KORNIA_CHECK_SAME_SIZE(x, y)`` pattern, in a library of the
user's own, imported absolutely, relatively and through a re-export, and the forms that must stay
errors: a result that is used, a function that does anything but raise or return a constant, a local
that also feeds a computation or a closure, a name that resolves to nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from trtcodemod.migrate.check_calls import is_check_function, only_decides_a_check
from trtcodemod.module_files import imported_function

CHECKS = '''\
import torch

ENABLED = True


def CHECK(condition, msg=None, raises=True):
    """Raise unless ``condition``."""
    if not torch.jit.is_scripting():
        if not ENABLED:
            return True
    if not condition:
        if raises:
            message = "failed" if msg is None else msg
            raise ValueError(message)
        return False
    return True


def CHECK_SAME_SIZE(x, y, dim=0, raises=True):
    x_shape, y_shape = x.shape, y.shape
    for i in range(1):
        if x_shape[dim] == 1:
            continue
    if not (x_shape[dim] == y_shape[dim] or x_shape[dim] == 1):
        if raises:
            text: str = f"{x_shape} vs {y_shape}"
            text += "!"
            raise ValueError(text)
        return False
    return True


def CLAMP_CHECK(x):
    # Not a check: it returns a value computed from its input.
    if x.min() < 0:
        raise ValueError("negative")
    return x.clamp(0)


STATE = []


def RECORDING_CHECK(condition):
    # Not a check: it writes module-level state.
    STATE.append(condition)
    if not condition:
        raise ValueError("failed")
'''

USER = '''\
import torch

from mylib.checks import CHECK, CHECK_SAME_SIZE, CLAMP_CHECK, RECORDING_CHECK
from .reexport import CHECK as CHECK_AGAIN


def blur(x, sigma):
    CHECK_SAME_SIZE(sigma, x)
    positive = bool((sigma > 0).all())
    CHECK(positive, "sigma must be positive" if positive else f"got {sigma}")
    CHECK(bool((x >= 0).all()), "x must not be negative")
    CHECK_AGAIN(bool(x.isfinite().all()))
    return x * sigma


def uses_the_result(x, sigma):
    if not CHECK_SAME_SIZE(sigma, x, raises=False):
        sigma = sigma.expand(x.shape[0], -1)
    ok = CHECK(bool((sigma > 0).all()), raises=False)
    return x * sigma if ok else x


def also_computes(x):
    positive = bool((x > 0).all())
    CHECK(positive)
    return x * positive


def in_a_closure(x):
    positive = bool((x > 0).all())
    CHECK(positive)
    return lambda: positive


def not_checks(x):
    CLAMP_CHECK(x)
    flag = bool((x > 0).all())
    RECORDING_CHECK(flag)
    unknown = bool((x < 9).all())
    SOMEWHERE_ELSE(unknown)
    return x
'''


@pytest.fixture()
def library(tmp_path: Path) -> tuple[Path, Path, list[str]]:
    package = tmp_path / "mylib"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "checks.py").write_text(CHECKS)
    (package / "reexport.py").write_text("from .checks import CHECK\n")
    (package / "blur.py").write_text(USER)
    return package / "checks.py", package / "blur.py", USER.splitlines()


def _line(lines: list[str], text: str, after: str = "") -> int:
    start = lines.index(after) if after else 0
    return next(i for i, line in enumerate(lines) if i >= start and text in line) + 1


def test_check_functions_are_told_from_others(library: tuple[Path, Path, list[str]]) -> None:
    checks, user, _ = library
    assert is_check_function(imported_function(user, "CHECK"))
    assert is_check_function(imported_function(user, "CHECK_SAME_SIZE"))
    assert is_check_function(imported_function(user, "CHECK_AGAIN"))  # through a relative re-export
    assert not is_check_function(imported_function(user, "CLAMP_CHECK"))
    assert not is_check_function(imported_function(user, "RECORDING_CHECK"))
    assert imported_function(user, "SOMEWHERE_ELSE") is None
    assert imported_function(checks, "CHECK") is imported_function(user, "CHECK")


def test_reads_that_only_feed_check_statements(library: tuple[Path, Path, list[str]]) -> None:
    _, user, lines = library
    for text in ("positive = bool((sigma > 0).all())", 'CHECK(bool((x >= 0).all())', "CHECK_AGAIN(bool("):
        assert only_decides_a_check(str(user), _line(lines, text)), text


def test_reads_whose_value_goes_elsewhere_stay(library: tuple[Path, Path, list[str]]) -> None:
    _, user, lines = library
    for text, after in [("ok = CHECK(", ""), ("positive = bool", "def also_computes(x):"),
                        ("positive = bool", "def in_a_closure(x):"), ("flag = bool", ""), ("unknown = bool", ""),
                        ("return x * sigma", "")]:
        assert not only_decides_a_check(str(user), _line(lines, text, after)), text


def test_a_read_inside_a_check_function_needs_callers_that_drop_its_result(
        library: tuple[Path, Path, list[str]]) -> None:
    checks, user, lines = library
    inside = _line(CHECKS.splitlines(), "if not (x_shape[dim] == y_shape[dim]")
    statement = f"{user}:{_line(lines, 'CHECK_SAME_SIZE(sigma, x)')}"
    used = f"{user}:{_line(lines, 'if not CHECK_SAME_SIZE(sigma, x, raises=False)')}"
    assert only_decides_a_check(str(checks), inside, [statement])
    assert not only_decides_a_check(str(checks), inside, [statement, used])
    assert not only_decides_a_check(str(checks), inside, [])  # no caller known: nothing says it is unused
    assert not only_decides_a_check(str(checks), inside, [None])
    not_a_check = _line(CHECKS.splitlines(), "if x.min() < 0:")
    assert not only_decides_a_check(str(checks), not_a_check, [f"{user}:{_line(lines, 'CLAMP_CHECK(x)')}"])
