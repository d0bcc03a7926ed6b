"""SIGINT and SIGTERM during a batch: stop cleanly, never between a file's old and new bytes."""

from __future__ import annotations

import os
import signal
import sys
import threading
from contextlib import contextmanager
from types import FrameType, TracebackType
from typing import Iterator

#: The signals a batch turns into :class:`Interrupted` (Ctrl-C, ``kill``, CI cancellation).
HANDLED = (signal.SIGINT, signal.SIGTERM)
#: Seconds after which a signal whose exception Python ignored is sent again (:meth:`SignalGuard._unraisable`).
RESEND_AFTER = 0.05


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


def interruption(error: BaseException) -> Interrupted | None:
    """The :class:`Interrupted` that ``error`` is, or that raised it, else None.

    A signal can land while Python creates a class (a module imported late, on first use);
    Python 3.11 then wraps the handler's exception in a ``RuntimeError`` ("Error calling
    __set_name__"), whose ``__cause__`` is ours. Such a run was interrupted, not broken."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, Interrupted):
            return current
        seen.add(id(current))
        current = current.__cause__
    return None


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
        self._previous_hook = None

    def __enter__(self) -> "SignalGuard":
        if threading.current_thread() is threading.main_thread():
            for sig in HANDLED:
                self._previous[sig] = signal.signal(sig, self._handle)
            self._previous_hook, sys.unraisablehook = sys.unraisablehook, self._unraisable
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 trace: TracebackType | None) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)  # type: ignore[arg-type]
        self._previous.clear()
        if self._previous_hook is not None:
            sys.unraisablehook, self._previous_hook = self._previous_hook, None

    def _unraisable(self, unraisable: "sys.UnraisableHookArgs") -> None:
        """Python ignores an exception raised in a callback it runs (importlib's module-lock
        weakref callback, where a signal landed under load) and prints it. Our own
        :class:`Interrupted` must not be lost so: the signal is sent again, and its handler raises
        in the code that runs next, where the batch stops as for any signal."""
        value = unraisable.exc_value
        if isinstance(value, Interrupted) and os.getpid() == self._owner:
            # From another thread, a moment later: sent from here, the handler would run inside
            # this hook, and Python would ignore its exception again.
            again = threading.Timer(RESEND_AFTER, os.kill, args=(os.getpid(), value.signum))
            again.daemon = True
            again.start()
            return
        hook = self._previous_hook or sys.__unraisablehook__
        hook(unraisable)

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
