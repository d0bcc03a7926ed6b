"""``--ray``: the zoo's models as tasks on a real local Ray instance this module starts.

Skipped only when Ray is not installed (``pip install -e '.[cluster]'``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterator

import pytest

from test_zoo import KILLER, PLAIN, USES_HELPER, invoke, make_zoo, runs, stable

ray = pytest.importorskip("ray", reason="Ray is not installed: pip install -e '.[cluster]'")


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    """A two-CPU Ray instance; the CLI's ``--ray auto`` attaches to it."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


def _by_name(out: str) -> dict[str, dict[str, Any]]:
    # The fixture's own Ray driver (this process) prints errors pushed to it, a killed worker's,
    # from a thread of its own whenever they arrive, and the runner captures them with the CLI's
    # output: the report starts at its first line, which must be the whole rest of the output.
    start = out.index("{\n") if not out.startswith("{") else 0
    return {m["name"]: m for m in json.loads(out[start:])["models"]}


def test_ray_gives_the_local_results_and_reports_a_killed_task(cluster: None, tmp_path: Path) -> None:
    config = make_zoo(tmp_path, {"uses_helper": USES_HELPER, "killer": KILLER, "plain": PLAIN})
    local_code, local_out, _ = invoke("migrate", config, "--format", "json", "--jobs", "2", "--no-cache")
    code, out, err = invoke("migrate", config, "--format", "json", "--ray", "auto")
    local, remote = _by_name(local_out), _by_name(out)
    assert list(remote) == ["uses_helper", "killer", "plain"]  # the config's order, whatever finished first
    for name in ("uses_helper", "plain"):
        assert stable(remote[name]) == stable(local[name])
    assert remote["uses_helper"]["exit_code"] == 1 and remote["plain"]["exit_code"] == 0
    assert remote["killer"]["exit_code"] == 2
    assert "the model's Ray task failed" in remote["killer"]["error"]
    assert code == local_code == 2
    # One progress line a model; counted by its "[k/3] " prefix, not by line starts: the driver's own
    # thread may write a pushed error into the same stream mid-line (seen once under load).
    assert sorted(re.findall(r"\[(\d)/3\] ", err)) == ["1", "2", "3"]

    # The cache is honoured: only the killed model runs again.
    before = len(runs(tmp_path))
    code, out, err = invoke("migrate", config, "--format", "json", "--ray", "auto")
    assert set(runs(tmp_path)[before:]) == {"killer"}
    assert stable(_by_name(out)["plain"]) == stable(remote["plain"])
    assert "plain: exit 0 (cached)" in err


def test_ray_resources_come_from_the_table(cluster: None, tmp_path: Path) -> None:
    config = make_zoo(tmp_path, {"plain": PLAIN})
    config.write_text(config.read_text() + "num_cpus = 2\nnum_gpus = 0\n")
    code, out, _ = invoke("verify", config, "--format", "json", "--ray", "auto", "--no-cache")
    assert code == 0 and _by_name(out)["plain"]["exit_code"] == 0
    config.write_text(config.read_text().replace("num_cpus = 2", "num_cpus = -1"))
    code, _, err = invoke("verify", config, "--format", "json", "--ray", "auto", "--no-cache")
    assert code == 2 and "num_cpus and num_gpus must be >= 0" in err
