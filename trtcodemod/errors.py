"""Errors that reach the user with a file and a line."""

from __future__ import annotations

from typing import Any


class InputError(Exception):
    """A file that could not be read, decoded or parsed."""

    def __init__(self, path: str, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.message = message
        self.line = line

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}: error: {self.message}"

    def __reduce__(self) -> tuple[Any, ...]:
        # Outcomes cross process boundaries (``--jobs``); Exception's default pickling
        # would call ``__init__`` with the message alone.
        return _restore, (type(self), dict(self.__dict__))


def _restore(cls: type[InputError], state: dict[str, Any]) -> InputError:
    error = cls.__new__(cls)
    Exception.__init__(error, state.get("message", ""))
    error.__dict__.update(state)
    return error


class InternalError(InputError):
    """A fix of ours that produced invalid code: a bug of the tool, never of the user's file.

    The fix is left out and the file's other fixes still apply, so this is reported
    beside a changed file rather than instead of it. ``line`` is the finding's line in
    the user's file; ``message`` starts with ``internal error:`` so that every output
    format (the text, JSON, SARIF and GitHub renderers read ``message``) says so.
    """

    def __init__(self, path: str, message: str, line: int | None = None, rules: tuple[str, ...] = ()) -> None:
        super().__init__(path, f"internal error: {message}", line)
        self.rules = rules

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}: {self.message}"
