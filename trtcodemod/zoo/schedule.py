"""Which model starts first: the longest ones, by their last run's wall time.

With N slots, a zoo's wall time is set by how the models pack into them. Run in the
config's order, a long model that happens to come last runs alone at the end while the
other slots idle (the real-model benchmark's RT-DETR takes 310 s of an 850 s zoo). Starting
the longest first (the classic longest-processing-time rule) keeps every slot busy until the
end: on the real-model benchmark's four-model zoo, on two idle cores, ``--jobs 2`` went from
1.58x to 1.93x the speed of ``--jobs 1``.

What a model took is only known after it ran, so each run records its models' wall times in
``models/durations.json`` in the cache folder, and the next run orders by them. Models never
timed start first, in the config's order (they may be long; guessing them short would leave
them for last). The file is a scheduling hint, not a result: it is read and written with
``--no-cache`` too (a zoo run with ``--no-cache`` still benefits from the previous run's
times), it never changes a report, and a missing, corrupt or unwritable file only means the
config's order.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Sequence

from trtcodemod import cache as file_cache
from trtcodemod.verify.spec import VerifySpec

from .cache import SUBFOLDER

FILE_NAME = "durations.json"
#: Entries kept (the most recently run): a zoo larger than this orders its oldest models by config.
LIMIT = 10_000


def model_id(command: str, spec: VerifySpec) -> str:
    """One model of one config for one command: what its duration belongs to."""
    return f"{command} {Path(spec.model_file).resolve()} {spec.label}"


class Durations:
    """Wall seconds per model from earlier runs; updated as models finish, saved once."""

    def __init__(self, path: Path | None, seconds: dict[str, float] | None = None) -> None:
        self.path = path
        self.seconds: dict[str, float] = dict(seconds or {})
        self._started: dict[str, float] = {}
        self.changed = False

    @classmethod
    def for_cache_folder(cls, folder: Path | None) -> "Durations":
        """The durations kept in ``folder`` (the ``check`` cache's); empty when unreadable."""
        if folder is None:
            return cls(None)
        path = folder / SUBFOLDER / FILE_NAME
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            seconds = {str(k): float(v) for k, v in data.items() if float(v) >= 0}
        except (OSError, ValueError, TypeError, AttributeError):
            seconds = {}
        return cls(path, seconds)

    def order(self, ids: Sequence[str]) -> list[int]:
        """Positions of ``ids`` to start in: never-timed models first (in their order), then the
        timed ones longest first (ties keep their order)."""
        unknown = [i for i, key in enumerate(ids) if key not in self.seconds]
        known = sorted((i for i, key in enumerate(ids) if key in self.seconds), key=lambda i: -self.seconds[ids[i]])
        return unknown + known

    def started(self, key: str) -> None:
        self._started[key] = time.monotonic()

    def finished(self, key: str) -> None:
        """Record the time since :meth:`started` for ``key`` (nothing if it never started)."""
        start = self._started.pop(key, None)
        if start is not None:
            self.seconds.pop(key, None)  # re-inserted last: the dict's order is recency
            self.seconds[key] = round(time.monotonic() - start, 3)
            self.changed = True

    def save(self) -> bool:
        """Write the file atomically if anything changed; False when it was not written."""
        if self.path is None or not self.changed:
            return False
        kept = dict(list(self.seconds.items())[-LIMIT:])
        payload = json.dumps(kept, indent=0, sort_keys=False).encode()
        return file_cache.write_entry(self.path, payload, self.path.parent.parent)
