"""A cache cast in forward is not state between calls (TRT703), on real-code variants.

Each variant in ``tests/recipe_variants/trt703/`` is a small runnable model reduced from a public
repository (cited in its docstring) that assigns back to ``self`` a value cast to the input's dtype
or device (``self.pe = self.pe.to(x.device)``, ``[a.to(dtype, device) for a in self.a]``,
``self.grid.to(features)``). For each one: the observer sees the write and sees it put back the
value it replaced (up to dtype and device) on every call, so ``migrate`` locates it as a warning,
not as the state that froze the graph; the model carries nothing from one call to the next (a
call after another equals a fresh model's, bit for bit); and its TorchScript graph, traced on one
input, equals eager mode on another. A real state write (a frame counter, the previous input)
stays an error, and a model whose graph drops a write behind the tracer next to such a cache gets
its line from the divergence locator, which the cache no longer blocks.

Scratch state (``SCRATCH``): DeAOT's inference engine (``deaotpy_restart_engine.py``) is restarted at the top of
every forward and rebuilt from the call's inputs; the observer records, per call, that each attribute was written
before any read of it, so its writes are warnings that say so. The same engine restarted once and kept across calls
(the library's own per-frame loop) reads its memories before writing them: those stay errors.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from variant_models import export_variant, input_names, load_variant

from trtcodemod.evidence.facts import Facts, norm
from trtcodemod.migrate.locate import SCRATCH_NOTE, UNCHANGED_NOTE, frozen_state
from trtcodemod.verify.results import VerifyReport
from trtcodemod.migrate.observe import unchanged
from support import TESTS, migrate_small

HERE = TESTS / "recipe_variants" / "trt703"

#: variant -> the attribute written and the text of the line that writes it
VARIANTS = {
    "torchvision_cell_anchors": ("cell_anchors", "self.cell_anchors = [a.to(dtype=dtype, device=device)"),
    "wenet_positional_encoding": ("pe", "self.pe = self.pe.to(x.device)"),
    "espnet_extend_pe": ("pe", "self.pe = self.pe.to(dtype=x.dtype, device=x.device)"),
    "icefall_rel_pe": ("pe", "self.pe = self.pe.to(dtype=x.dtype, device=x.device)"),
    "mono_semantic_maps_resampler": ("grid", "self.grid = self.grid.to(features)"),
}

#: A frame counter and the previous input: state that passes between calls.
STATEFUL = '''\
import torch
from torch import nn


class Counter(nn.Module):
    def __init__(self):
        super().__init__()
        self.frame = torch.zeros(())

    def forward(self, x):
        self.frame = self.frame + 1
        return x * self.frame


class Previous(nn.Module):
    def __init__(self):
        super().__init__()
        self.prev = torch.zeros(2, 3)

    def forward(self, x):
        out = x - self.prev
        self.prev = x.detach()
        return out
'''


def _line(path: Path, text: str) -> int:
    [line] = [k for k, source in enumerate(path.read_text().splitlines(), 1) if source.strip().startswith(text)]
    return line


#: Run in a process of its own (the observer patches torch for its run; migrate runs it in a
#: worker too): prints the events recorded while ``factory()`` runs the calls one after the other.
_OBSERVE = """
import json, sys, torch
sys.path.insert(0, sys.argv[1])
from variant_models import load_variant
from trtcodemod.migrate.observe import Recorder, Wrappers, _read_first
from trtcodemod.usercode import UserFiles
path, factory, seeds = sys.argv[2], sys.argv[3], int(sys.argv[4])
module = load_variant(__import__("pathlib").Path(path), "observed")
model = getattr(module, factory)().eval()
if factory.startswith("build"):
    calls = [module.inputs(torch.Generator().manual_seed(s)) for s in range(seeds)]
else:
    calls = [(torch.randn(2, 3, generator=torch.Generator().manual_seed(s)),) for s in range(seeds)]
rec = Recorder(UserFiles([str(__import__("pathlib").Path(path).parent)]))
with Wrappers(rec), torch.no_grad():
    for args in calls:
        rec.begin_call()  # as the observer's `_observe_one`: each call's reads and writes are its own
        rec.recording = True
        model(*args)
        rec.recording = False
print(json.dumps(list(rec.events.values()) + _read_first(rec)))
"""


def _observe(path: Path, factory: str = "build", calls: int = 3) -> Facts:
    """What migrate's observer records while ``factory()``'s model runs ``calls`` inputs in turn."""
    done = subprocess.run([sys.executable, "-c", _OBSERVE, str(TESTS), str(path), factory, str(calls)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    events = json.loads(done.stdout.splitlines()[-1])
    return Facts(runs=calls, events=[dict(e, path=norm(e["path"])) for e in events])


def _state(facts: Facts) -> list:
    unfaithful = {"export_checks": [{"side": "before", "exporter": "torchscript", "faithful": False}]}
    return frozen_state(VerifyReport.from_json(unfaithful), "before", facts)


def _calls(module, count: int = 3) -> list[tuple]:
    return [module.inputs(torch.Generator().manual_seed(seed)) for seed in range(count)]


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_a_cast_cache_is_located_as_a_warning_not_as_state(name: str) -> None:
    path = HERE / f"{name}.py"
    module = load_variant(path, f"trt703_{name}")
    attribute, text = VARIANTS[name]
    facts = _observe(path)
    writes = [e for e in facts.events if e["kind"] == "state_write" and e["attribute"] == attribute]
    assert writes and all(e["unchanged"] for e in writes), writes
    [problem] = [p for p in _state(facts) if p.line == _line(path, text)]
    assert (problem.rule, problem.severity) == ("TRT703", "warning")
    assert problem.message.endswith(UNCHANGED_NOTE)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_the_cache_carries_nothing_between_calls_and_the_graph_follows_the_model(name: str, tmp_path: Path) -> None:
    module = load_variant(HERE / f"{name}.py", f"trt703_run_{name}")
    first, second, third = _calls(module)
    used = module.build().eval()
    with torch.no_grad():
        used(*first)
        used(*second)
        after_calls = used(*third)
        fresh = module.build().eval()(*third)
    after_calls = after_calls if isinstance(after_calls, tuple) else (after_calls,)
    fresh = fresh if isinstance(fresh, tuple) else (fresh,)
    for a, b in zip(after_calls, fresh):
        assert a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)
    session, _ = export_variant(module.build().eval(), first, module.DYNAMIC, tmp_path / "m.onnx", HERE)
    got = session.run(None, {n: t.numpy() for n, t in zip(input_names(used), third)})
    for g, want in zip(got, fresh):
        np.testing.assert_allclose(g, want.numpy(), rtol=1e-5, atol=1e-6)


def test_real_state_stays_an_error(tmp_path: Path) -> None:
    path = tmp_path / "stateful.py"
    path.write_text(STATEFUL)
    for factory, attribute in (("Counter", "frame"), ("Previous", "prev")):
        problems = [p for p in _state(_observe(path, factory)) if attribute in p.message]
        assert [(p.rule, p.severity) for p in problems] == [("TRT703", "error")]
        assert UNCHANGED_NOTE not in problems[0].message


@pytest.mark.parametrize("old,new,same", [
    (torch.zeros(3), torch.zeros(3), True),
    (torch.tensor([1.5, -2.0]), torch.tensor([1.5, -2.0], dtype=torch.float64), True),
    (torch.tensor([0.1], dtype=torch.float64), torch.tensor([0.1], dtype=torch.float64).float(), True),
    (torch.tensor([0.1]), torch.tensor([0.1]).double(), True),
    (torch.empty(0, 4), torch.empty(0, 4), True),
    (torch.tensor([float("inf"), -float("inf")]), torch.tensor([float("inf"), -float("inf")]), True),
    (torch.tensor([float("nan")]), torch.tensor([float("nan")]), False),
    (torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.5]), False),
    (torch.zeros(2, 3), torch.zeros(3, 2), False),
    # A lossy cast is still the cast of what was there: casting again gives the same value.
    (torch.tensor([1.7]), torch.tensor([1.7]).long(), True),
    (torch.tensor([1.7]), torch.tensor([2]), False),
    ([torch.ones(2), torch.zeros(1)], [torch.ones(2), torch.zeros(1)], True),
    ([torch.ones(2)], [torch.ones(2), torch.ones(2)], False),
    ([torch.ones(2)], (torch.ones(2),), False),
    (3, 3, True), (3, 4, False), (1, 1.0, False), (None, None, True), ("a", "a", True),
    (float("nan"), float("nan"), False),
])
def test_unchanged_compares_up_to_dtype_and_device(old, new, same) -> None:
    assert unchanged(old, new) is same


def test_unchanged_needs_a_value_before() -> None:
    from trtcodemod.migrate.observe import _MISSING

    assert unchanged(_MISSING, torch.zeros(1)) is False


CACHE_AND_DROPPED_WRITE = '''\
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.scale = torch.full((4, 1, 1), 0.5)

    def forward(self, x):
        self.scale = self.scale.to(x.device)
        y = self.conv(x) * self.scale
        z = torch.relu(y) * 2
        z.data.add_(1)
        w = torch.nn.functional.gelu(z)
        return w.mean(dim=1)


def build():
    return Net()
'''


def test_a_cache_no_longer_hides_where_the_graph_parts(tmp_path: Path) -> None:
    """The graph drops a write behind the tracer; the cast cache beside it used to be located as
    the state that froze the graph, so the divergence locator never ran and no line was named."""
    path = tmp_path / "model.py"
    path.write_text(CACHE_AND_DROPPED_WRITE)
    report, exit_code = migrate_small(path)
    real = path.resolve()
    [wrong] = [r for r in report["remaining"] if r["kind"] == "unfaithful"]
    assert wrong["source"] == f"{real}:{_line(path, 'z.data.add_(1)')}", wrong
    cache = [r for r in report["remaining"] if r.get("rule") == "TRT703"]
    assert cache and all(r["severity"] == "warning" for r in cache), cache
    assert "lift" not in report and exit_code == 1


SCRATCH = HERE / "deaotpy_restart_engine.py"


def _problems_by_line(path: Path, problems: list) -> dict[str, tuple[str, str]]:
    lines = path.read_text().splitlines()
    return {lines[p.line - 1].strip(): (p.severity, p.message) for p in problems}


def test_an_engine_restarted_in_every_forward_is_scratch_state_a_warning() -> None:
    facts = _observe(SCRATCH)
    writes = [e for e in facts.events if e["kind"] == "state_write"]
    assert writes and all(e["fresh"] is True for e in writes), [e for e in writes if not e["fresh"]]
    assert not [e for e in facts.events if e["kind"] == "state_read"]
    found = _problems_by_line(SCRATCH, _state(facts))
    for text in ("self.aot_engines = []", "self.long_term_memories = memory", "self.frame_step += 1",
                 "self.pos_emb = self.net.get_pos_emb(embs).expand(self.batch_size, -1, -1, -1)"):
        severity, message = found[text]
        assert severity == "warning" and "scratch state" in message, (text, message)
    assert {severity for severity, _ in found.values()} == {"warning"}
    assert any(message.endswith(SCRATCH_NOTE.format(attribute="long_term_memories"))
               for _, message in found.values())


def test_the_same_engine_kept_across_calls_reads_its_memories_first_an_error() -> None:
    """The library's per-frame loop: ``frame_step``, the short-term memory and the position embedding come
    from the call before (or the reference frame added at build): errors. What every call writes before
    reading it (the current embeddings, the propagated output) is scratch even here: the decision is the
    recorded order of each attribute's reads and writes, not the form of the line."""
    facts = _observe(SCRATCH, "build_streaming")
    carried = {e["attribute"] for e in facts.events if e["kind"] == "state_read"}
    assert {"frame_step", "short_term_memories"} <= carried and "curr_output" not in carried
    found = _problems_by_line(SCRATCH, _state(facts))
    assert found["self.frame_step += 1"][0] == "error"
    assert found["_, self.short_term_memories = self.net.propagate(self.curr_enc_embs + self.net.identity(one_hot),"
                 ][0] == "error"
    assert found["self.curr_output, _ = self.net.propagate(self.curr_enc_embs, self.pos_emb, self.long_term_memories,"
                 ][0] == "warning"
    assert "scratch state" not in found["self.frame_step += 1"][1]


def test_scratch_needs_two_observed_calls() -> None:
    """One call cannot show a value read only on a later call (``if first: ... else: use self.prev``)."""
    facts = _observe(SCRATCH, calls=1)
    assert facts.runs == 1
    assert {severity for severity, _ in _problems_by_line(SCRATCH, _state(facts)).values()} == {"error"}


EDGES = [torch.zeros(2, 3, 16, 24), torch.ones(2, 3, 16, 24), torch.full((2, 3, 16, 24), 0.5),
         torch.rand(2, 3, 16, 24, generator=torch.Generator().manual_seed(3)) * 1e-6]


@pytest.mark.parametrize("edge", range(len(EDGES)))
def test_the_restarted_engine_carries_nothing_between_calls(edge: int) -> None:
    """A call after others equals a fresh model's, bit for bit, on random frames and on edge values (no object
    in the mask: zeros and tiny values; every pixel the last object: ones; one threshold: 0.5)."""
    module = load_variant(SCRATCH, "trt703_scratch_run")
    used = module.build()
    with torch.no_grad():
        for args in _calls(module):
            used(*args)
        after = used(EDGES[edge])
        fresh = module.build()(EDGES[edge])
    assert after.dtype == fresh.dtype and after.shape == fresh.shape and torch.equal(after, fresh)
    assert torch.isfinite(after).all()


def test_the_streaming_engine_does_carry_state_between_calls() -> None:
    module = load_variant(SCRATCH, "trt703_streaming_run")
    frame = _calls(module, 1)[0][0][1:]
    used = module.build_streaming()
    with torch.no_grad():
        used(frame)
        assert not torch.equal(used(frame), module.build_streaming()(frame))


SCRATCH_ENGINE_AND_DROPPED_WRITE = '''\
import torch
from torch import nn


class Engine(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.restart_engine()

    def restart_engine(self):
        self.memory = None
        self.pos = None

    def add_reference(self, img):
        if self.pos is None:
            self.pos = torch.linspace(0, 1, img.shape[-1])
        self.memory = self.conv(img) + self.pos

    def propagate(self, img):
        z = torch.relu(self.conv(img) * self.memory) * 2
        z.data.add_(1)
        return torch.nn.functional.gelu(z).mean(dim=1)

    def forward(self, img, reference):
        self.restart_engine()
        self.add_reference(reference)
        return self.propagate(img)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.engine = Engine()

    def forward(self, x):
        return self.engine(x.flip(-1), x)


def build():
    return Net()
'''


def test_migrate_names_scratch_state_as_information_and_finds_where_the_graph_parts(tmp_path: Path) -> None:
    """The engine's writes (TRT703's findings in its forward code) are scratch, restarted every call: information
    that says why, no lift is tried, and the divergence locator names the write behind the tracer, the graph's
    real cause."""
    path = tmp_path / "model.py"
    path.write_text(SCRATCH_ENGINE_AND_DROPPED_WRITE)
    report, exit_code = migrate_small(path)
    real = path.resolve()
    assert not [r for r in report["remaining"] if r.get("rule") == "TRT703"], report["remaining"]
    info = {i["line"]: i["reason"] for i in report["info"] if i["rule"] == "TRT703"}
    for text in ("self.memory = None", "self.pos = None", "self.pos = torch.linspace(0, 1, img.shape[-1])",
                 "self.memory = self.conv(img) + self.pos"):
        assert "scratch state" in info[_line(path, text)], info
    [wrong] = [r for r in report["remaining"] if r["kind"] == "unfaithful"]
    assert wrong["source"] == f"{real}:{_line(path, 'z.data.add_(1)')}", wrong
    assert "lift" not in report and exit_code == 1
