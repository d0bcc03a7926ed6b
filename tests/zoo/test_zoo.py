"""Zoo runs (``migrate``/``verify --config``): --jobs, the result cache, JUnit, progress lines.

Real worker processes and real exports on tiny models; Ray has its own file (test_zoo_ray.py).
"""

from __future__ import annotations

import json
import os
import signal
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from trtcodemod import cache as file_cache
from trtcodemod.cli import app
from trtcodemod.verify.spec import build_spec
from trtcodemod.zoo.batch import threads_per_model
from trtcodemod.zoo.cache import ModelCache, spec_key
from trtcodemod.zoo.local import died_message
from trtcodemod.zoo.schedule import Durations, model_id

FAST = ["--runs", "1", "--warmup", "0", "--backends", "torch-cpu,onnxruntime-cpu"]

# Each model file appends a line to runs.log whenever a process imports it: the log
# shows which models really ran (a cached model is never imported).
LOGGING = """\
import os
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "runs.log"), "a") as _log:
    _log.write(__name__.split(".")[-1] + " " + os.environ.get("OMP_NUM_THREADS", "-") + "\\n")
"""
HELPER = """\
import torch


def scale(x):
    return x * 2.0
"""
USES_HELPER = LOGGING + """\
import torch
from torch import nn

from helper import scale


class Net(nn.Module):
    def forward(self, x):
        if x.mean().item() > 0:  # a Python number, baked in by tracing: migrate names it, no rule rewrites it
            return scale(x)
        return x - 1.0


def build():
    return Net()


def inputs(generator):
    return (torch.randn(2, 3, generator=generator),)
"""
PLAIN = LOGGING + """\
import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        return torch.relu(x) + 1.0


def build():
    return Net()


def inputs(generator):
    return (torch.randn(2, 3, generator=generator),)
"""
BROKEN = LOGGING + 'raise ImportError("no such dependency: fancy_ops")\n'
#: Finds the model's process (a zoo's per-model process or Ray task) from a worker of it: the
#: worker's parent, or, where the worker is a fork of the model process's fork server, its parent.
_MODEL_PROCESS = """\
import os, signal
_model_process = os.getppid()
with open(f"/proc/{_model_process}/cmdline", "rb") as _cmdline:
    if b"trtcodemod.verify.forkserver" in _cmdline.read():
        with open(f"/proc/{_model_process}/stat") as _stat:
            _model_process = int(_stat.read().rsplit(")", 1)[1].split()[1])
"""
# Kills the process that runs its migration, as the kernel's out-of-memory killer would.
KILLER = LOGGING + _MODEL_PROCESS + "os.kill(_model_process, signal.SIGKILL)\n"
# The same, and then the model's worker lingers on (an orphan, as after an out-of-memory kill).
LINGERING_KILLER = LOGGING + _MODEL_PROCESS + """\
import time
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "killer.pid"), "w") as _pid:
    _pid.write(str(os.getpid()))
os.kill(_model_process, signal.SIGKILL)
time.sleep(30)
"""

TABLE = """\
[models.{name}]
model_file = "{file}"
model = "build"
inputs = "inputs"
"""


def make_zoo(folder: Path, models: dict[str, str]) -> Path:
    """A project folder with the model files and a models.toml naming them in order."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pyproject.toml").write_text("[project]\nname = 'zoo'\n")
    (folder / "helper.py").write_text(HELPER)
    tables = []
    for name, code in models.items():
        (folder / f"{name}.py").write_text(code)
        tables.append(TABLE.format(name=name, file=f"{name}.py"))
    config = folder / "models.toml"
    config.write_text("\n".join(tables))
    return config


def runs(folder: Path) -> list[str]:
    log = folder / "runs.log"
    return [line.split()[0] for line in log.read_text().splitlines()] if log.exists() else []


def invoke(command: str, config: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, [command, "--config", str(config), *FAST, *args])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def stable(value: Any) -> Any:
    """A report without its timings (the only thing allowed to differ between two runs)."""
    if isinstance(value, dict):
        return {k: stable(v) for k, v in value.items()
                if "latency" not in k and k not in ("seconds", "log_tail")}
    if isinstance(value, list):
        return [stable(v) for v in value]
    return value


@pytest.fixture(autouse=True)
def _no_cache_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(file_cache.ENV_VAR, raising=False)


@pytest.fixture(scope="module")
def zoo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One zoo migrated with --jobs 1 (no cache), then --jobs 2 (cold cache), then warm."""
    folder = tmp_path_factory.mktemp("zoo")
    config = make_zoo(folder, {"uses_helper": USES_HELPER, "broken": BROKEN, "plain": PLAIN})
    one = invoke("migrate", config, "--format", "json", "--no-cache")
    ran_one = runs(folder)
    two = invoke("migrate", config, "--format", "json", "--jobs", "2")
    ran_two = runs(folder)[len(ran_one):]
    threads = [line.split()[1] for line in (folder / "runs.log").read_text().splitlines()[len(ran_one):]]
    warm = invoke("migrate", config, "--format", "json", "--jobs", "2")
    ran_warm = runs(folder)[len(ran_one) + len(ran_two):]
    return {"folder": folder, "config": config, "one": one, "two": two, "warm": warm, "ran_one": ran_one,
            "ran_two": ran_two, "ran_warm": ran_warm, "threads": threads}


def test_jobs_2_gives_the_same_reports_in_the_same_order_as_jobs_1(zoo: dict[str, Any]) -> None:
    code_one, out_one, _ = zoo["one"]
    code_two, out_two, err_two = zoo["two"]
    one, two = json.loads(out_one), json.loads(out_two)
    assert [m["name"] for m in two["models"]] == ["uses_helper", "broken", "plain"]
    assert stable(one) == stable(two)
    assert code_one == code_two == 2  # the broken model: exit code as before
    assert two["models"][0]["exit_code"] == 1 and two["models"][2]["exit_code"] == 0
    assert "ImportError: no such dependency: fancy_ops" in json.dumps(two["models"][1])
    # A line per finished model on stderr, with the count, the model and its exit code.
    lines = [line for line in err_two.splitlines() if line.startswith("[")]
    assert len(lines) == 3 and all("/3] " in line for line in lines)
    assert any("plain: exit 0" in line for line in lines)


def test_each_model_of_jobs_2_gets_its_share_of_the_cores(zoo: dict[str, Any]) -> None:
    expected = str(threads_per_model(2))
    assert zoo["threads"] and set(zoo["threads"]) == {expected}
    assert threads_per_model(2, cores=2) == 1 and threads_per_model(3, cores=16) == 5
    assert threads_per_model(8, cores=2) == 1



@pytest.mark.skipif(not hasattr(os, "sched_setaffinity") or (os.cpu_count() or 1) < 2,
                    reason="needs a settable CPU affinity and two cores")
def test_jobs_0_counts_the_cores_the_process_may_use_everywhere() -> None:
    """One ``--jobs`` policy: a process pinned to one core of several gets one ``check`` worker
    and one zoo slot, and its one model gets that core's thread, not a thread per machine core."""
    import subprocess
    import sys

    probe = ("import os; os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]}); "
             "from trtcodemod.zoo.batch import threads_per_model; from trtcodemod.cores import resolve_jobs; "
             "print(resolve_jobs(0), threads_per_model(1))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["1", "1"]

def test_a_warm_rerun_reuses_every_decided_result(zoo: dict[str, Any]) -> None:
    code, out, err = zoo["warm"]
    assert zoo["ran_two"].count("plain") > 0 and zoo["ran_two"].count("uses_helper") > 0
    # Only the model that could not run (exit 2) runs again; the others are not even imported.
    assert set(zoo["ran_warm"]) == {"broken"}
    assert stable(json.loads(out)) == stable(json.loads(zoo["two"][1]))
    assert code == 2
    assert sum("(cached)" in line for line in err.splitlines()) == 2


def test_touching_a_file_reruns_only_the_models_that_used_it(zoo: dict[str, Any]) -> None:
    folder, config = zoo["folder"], zoo["config"]
    helper = folder / "helper.py"
    helper.write_text(HELPER + "# touched\n")
    before = len(runs(folder))
    code, out, err = invoke("migrate", config, "--format", "json", "--jobs", "2")
    ran = set(runs(folder)[before:])
    assert ran == {"uses_helper", "broken"}  # plain does not import helper.py
    assert "plain: exit 0 (cached)" in err
    assert json.loads(out)["models"][0]["exit_code"] == 1
    # --no-cache runs every model.
    before = len(runs(folder))
    invoke("migrate", config, "--format", "json", "--jobs", "2", "--no-cache", "--model", "plain")
    assert set(runs(folder)[before:]) == {"plain"}


def test_every_run_records_its_models_wall_times_even_without_the_cache(zoo: dict[str, Any]) -> None:
    # The first run of the fixture had --no-cache: the durations file is a scheduling hint, kept anyway.
    recorded = Durations.for_cache_folder(zoo["folder"] / file_cache.CACHE_DIR_NAME).seconds
    spec = build_spec({"model_file": str(zoo["folder"] / "plain.py"), "model": "build", "inputs": "inputs"},
                      name="plain")
    assert model_id("migrate", spec) in recorded
    assert {key.rsplit(" ", 1)[1] for key in recorded} >= {"uses_helper", "broken", "plain"}
    assert all(seconds > 0 for seconds in recorded.values())


def test_durations_order_untimed_models_first_then_the_longest() -> None:
    durations = Durations(None, {"b": 5.0, "c": 50.0, "d": 5.0, "e": 1.0})
    assert durations.order(["a", "b", "c", "d", "e", "f"]) == [0, 5, 2, 1, 3, 4]
    assert Durations(None).order(["x", "y"]) == [0, 1]  # nothing known: the config's order


def test_an_unreadable_durations_file_means_the_configs_order(tmp_path: Path) -> None:
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "durations.json").write_text("{not json")
    assert Durations.for_cache_folder(tmp_path).seconds == {}
    (tmp_path / "models" / "durations.json").write_text('["a list"]')
    assert Durations.for_cache_folder(tmp_path).seconds == {}
    durations = Durations.for_cache_folder(tmp_path)
    durations.started("m")
    durations.finished("m")
    durations.finished("never started")
    assert durations.save() and set(Durations.for_cache_folder(tmp_path).seconds) == {"m"}


def test_jobs_2_starts_the_longest_model_first(tmp_path: Path) -> None:
    config = make_zoo(tmp_path / "z", {"first": PLAIN, "second": PLAIN, "third": PLAIN})
    specs = {name: build_spec({"model_file": str(config.parent / f"{name}.py"), "model": "build",
                               "inputs": "inputs"}, name=name) for name in ("first", "second", "third")}
    # Earlier runs found "third" the longest and "second" the shortest; "first" was never timed.
    saved = Durations(config.parent / file_cache.CACHE_DIR_NAME / "models" / "durations.json",
                      {model_id("migrate", specs["third"]): 90.0, model_id("migrate", specs["second"]): 3.0})
    saved.changed = True
    assert saved.save()
    code, out, _ = invoke("migrate", config, "--format", "json", "--jobs", "2", "--no-cache")
    assert code == 0 and [m["name"] for m in json.loads(out)["models"]] == ["first", "second", "third"]
    started = list(dict.fromkeys(runs(config.parent)))  # each model's first import, in time order
    # Two slots: "first" and "third" start together; "second" waits for one of them to finish.
    assert started[-1] == "second" and set(started[:2]) == {"first", "third"}


def test_the_cache_key_covers_the_table(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(PLAIN)
    base = {"model_file": str(tmp_path / "m.py"), "model": "build", "inputs": "inputs"}
    keys = {spec_key("migrate", build_spec(base)), spec_key("verify", build_spec(base)),
            spec_key("migrate", build_spec({**base, "seed": 1})),
            spec_key("migrate", build_spec({**base, "target": "10.x"})),
            spec_key("migrate", build_spec({**base, "dynamic_axes": {"x": {"0": "n"}}})),
            spec_key("migrate", build_spec({**base, "unsafe": True}))}
    assert len(keys) == 6
    assert spec_key("migrate", build_spec(base)) == spec_key("migrate", build_spec(dict(base)))


def test_a_corrupted_entry_is_a_miss_and_results_that_failed_are_not_stored(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(PLAIN)
    spec = build_spec({"model_file": str(tmp_path / "m.py"), "model": "build", "inputs": "inputs"})
    store = ModelCache(tmp_path / "cache")
    key = spec_key("migrate", spec)
    report = {"name": "m", "exit_code": 0, "files": [str(tmp_path / "m.py")]}
    assert store.store(key, spec, (report, {str(tmp_path / "m.py"): (b"old", b"new")}))
    assert store.load(key) == (report, {str(tmp_path / "m.py"): (b"old", b"new")})
    assert (tmp_path / "cache" / "CACHEDIR.TAG").exists()
    store._entry(key).write_bytes(b"not zlib")
    assert store.load(key) is None
    assert not store.store(key, spec, ({"name": "m", "exit_code": 2}, {}))
    # A worker that timed out or was killed for memory: the machine's load, not the model.
    assert not store.store(key, spec, ({**report, "exit_code": 1, "models": {"after": {"status": "timeout"}}}, {}))
    assert not store.store(key, spec, ({**report, "error": "crashed with SIGKILL during export"}, {}))
    assert store.load(key) is None
    (tmp_path / "m.py").unlink()  # a dependency that disappeared: a miss
    assert store.store(spec_key("verify", spec), spec, (report, {})) is False


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def test_a_model_whose_process_is_killed_is_that_models_result(tmp_path: Path) -> None:
    config = make_zoo(tmp_path, {"plain": PLAIN, "killer": LINGERING_KILLER})
    code, out, err = invoke("migrate", config, "--format", "json", "--jobs", "2")
    by_name = {m["name"]: m for m in json.loads(out)["models"]}
    assert by_name["plain"]["exit_code"] == 0
    assert by_name["killer"]["exit_code"] == 2
    assert "SIGKILL (killed: out of memory?)" in by_name["killer"]["error"]
    assert code == 2
    # The killed model's own worker does not outlive the batch.
    assert not _alive(int((tmp_path / "killer.pid").read_text()))
    # A killed model is retried next time, not cached.
    before = len(runs(tmp_path))
    invoke("migrate", config, "--format", "json", "--jobs", "2")
    assert set(runs(tmp_path)[before:]) == {"killer"}


def test_died_message_names_the_signal() -> None:
    assert died_message(-signal.SIGKILL, "") == "the model's process was stopped by SIGKILL (killed: out of memory?)"
    assert died_message(-signal.SIGSEGV, "boom") == "the model's process was stopped by SIGSEGV: boom"
    assert died_message(3, "") == "the model's process exited 3 without a result"


def test_verify_zoo_junit_has_one_testcase_per_model(tmp_path: Path) -> None:
    config = make_zoo(tmp_path, {"uses_helper": USES_HELPER, "broken": BROKEN, "plain": PLAIN})
    code, out, _ = invoke("verify", config, "--format", "junit", "--jobs", "2", "--no-cache")
    suite = ET.fromstring(out)
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert list(cases) == ["uses_helper", "broken", "plain"]
    assert suite.get("tests") == "3" and suite.get("errors") == "1" and suite.get("failures") == "1"
    assert cases["plain"].find("failure") is None and cases["plain"].find("error") is None
    assert cases["broken"].find("error") is not None
    assert "fancy_ops" in (cases["broken"].find("error").text or "")
    assert cases["uses_helper"].find("failure").get("type") == "exit 1"
    assert code == 2
    # verify records the user files the model imported: its cache depends on them.
    _, out, _ = invoke("verify", config, "--format", "json", "--model", "uses_helper")
    files = json.loads(out)["models"][0]["user_files"]
    assert os.path.realpath(tmp_path / "helper.py") in files


def test_jobs_and_ray_need_a_config(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(PLAIN)
    result = CliRunner().invoke(app, ["migrate", str(tmp_path / "m.py"), "--model", "build", "--inputs", "inputs",
                                      "--jobs", "2"])
    assert result.exit_code == 2 and "--jobs and --ray run the models of a config" in result.stderr
    config = make_zoo(tmp_path / "z", {"plain": PLAIN})
    result = CliRunner().invoke(app, ["verify", "--config", str(config), "--ray", "--no-cache"])
    assert result.exit_code == 2 and "'--no-cache' is not an address" in result.stderr


def test_dependencies_come_from_the_report(tmp_path: Path) -> None:
    from trtcodemod.zoo.cache import dependencies

    (tmp_path / "m.py").write_text(PLAIN)
    spec = build_spec({"model_file": str(tmp_path / "m.py"), "model": "build", "inputs": "inputs"})
    deps = dependencies(spec, {"files": [str(tmp_path / "a.py")], "user_files": [str(tmp_path / "b.py")]})
    assert deps == sorted(os.path.realpath(tmp_path / n) for n in ("a.py", "b.py", "m.py"))

