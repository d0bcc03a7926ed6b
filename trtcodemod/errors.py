"""Errors that reach the user with a file and a line."""

from __future__ import annotations


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
