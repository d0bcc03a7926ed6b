"""SIGINT and SIGTERM during a batch: stop cleanly, never between a file's old and new bytes."""

from __future__ import annotations

import os
import signal
import threading
from contextlib import contextmanager
from types import FrameType, TracebackType
from typing import Iterator

#: The signals a batch turns into :class:`Interrupted` (Ctrl-C, ``kill``, CI cancellation).
HANDLED = (signal.SIGINT, signal.SIGTERM)


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived. A BaseException, so no ``except Exception`` on the way swallows it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        """The shell's convention: 128 + the signal number (130 for SIGINT, 143 for SIGTERM)."""
        return 128 + self.signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


class SignalGuard:
    """While entered, SIGINT and SIGTERM raise :class:`Interrupted` at once, or, inside
    :meth:`deferred`, are only recorded in :attr:`signum` for the caller to act on between
    two files. Outside the main thread (where handlers cannot be set) it does nothing.
    """

    def __init__(self) -> None:
        self.signum: int | None = None
        self._owner = os.getpid()
        self._deferring = False
        self._previous: dict[int, object] = {}

    def __enter__(self) -> "SignalGuard":
        if threading.current_thread() is threading.main_thread():
            for sig in HANDLED:
                self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 trace: TracebackType | None) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)  # type: ignore[arg-type]
        self._previous.clear()

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if os.getpid() != self._owner:
            # A forked worker inherited this handler before resetting its own. Raising
            # here could leave a pool lock held and hang the parent's shutdown: behave as
            # a worker should instead (Ctrl-C is the parent's to handle; SIGTERM kills).
            if signum != signal.SIGINT:
                signal.signal(signum, signal.SIG_DFL)
                os.kill(os.getpid(), signum)
            return
        if self.signum is None:
            self.signum = signum
        if not self._deferring:
            raise Interrupted(self.signum)

    @contextmanager
    def deferred(self) -> Iterator[None]:
        """Record signals instead of raising: the block checks :attr:`signum` between files."""
        self._deferring = True
        try:
            yield
        finally:
            self._deferring = False

    def check(self) -> None:
        """Raise :class:`Interrupted` when a signal was recorded."""
        if self.signum is not None:
            raise Interrupted(self.signum)
