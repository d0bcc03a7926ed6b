"""The none-check recipe (TRT721, lifted by migrate) on real-code variants.

Each variant in ``tests/recipe_variants/trt721/`` is a small runnable model reduced from a public
tracking, video or BEV repository (cited in its docstring) that tests ``is None`` on what changes
from frame to frame: an optional forward input (RAFT's ``flow_init``, Robust Video Matting's
recurrent state, MOTR's track reference points, BEVFormer's temporal ``value`` and ``query_pos``)
or state kept on ``self`` (StreamPETR's query memory, reset to None at a scene start). A traced
export keeps the branch of the example call. TRT721 finds each test (an input from the code or
from the observed run, as migrate passes it); the lift moves forward's body to ``forward_step``
with the tensor and an indicator, the branches become ``torch.where``; the lifted model equals the
original bit for bit frame by frame (the first frame, absent and given inputs, zeros, negatives,
inf/NaN, a reset), and the exported wrapper, state carried by the caller, equals eager over the
frames in ONNX Runtime with both exporters (``prove_wrapper``, what migrate keeps the lift on).
"""

from __future__ import annotations

import inspect
import shutil
from pathlib import Path
from typing import Any

import pytest
import torch
from support import TESTS, bits_equal, import_file

from trtcodemod.engine import Options, check_source
from trtcodemod.evidence.facts import Facts, norm
from trtcodemod.temporal.apply import LiftOutcome, lift_model, load_source
from trtcodemod.temporal.lift import LiftOptional, lift

HERE = TESTS / "recipe_variants" / "trt721"

# name → (class, the names tested, fragments of forward_step,
#         found by the code alone (else the observed inputs are the evidence), taken before)
VARIANTS: dict[str, tuple[str, tuple[str, ...], tuple[str, ...], bool, bool]] = {
    "raft_flow_init": ("WarmStartFlow", ("flow_init",), (
        "coords1 = torch.where(has_flow_init.reshape(()), coords1 + flow_init, coords1)\n",), False, True),
    "rvm_convgru": ("RecurrentMatting", ("r1",), (
        "r1 = torch.where(has_r1.reshape(()), r1, torch.zeros((x.size(0), x.size(-3), x.size(-2), x.size(-1)), "
        "device=x.device, dtype=x.dtype))\n",), True, True),
    "motr_ref_pts": ("TrackQueryDecoder", ("ref_pts",), (
        "reference_points = torch.where(has_ref_pts.reshape(()), ref_pts.unsqueeze(0).repeat(bs, 1, 1).sigmoid(), "
        "self.reference_points(query_embed).sigmoid())\n",), True, True),
    # Not taken before: the absent branch unpacks `bs, len_bev, c = query.shape` and builds
    # `value` from those names (temporaries, rebound before any later read).
    "bevformer_tsa_value": ("TemporalSelfAttention", ("value", "query_pos"), (
        "value = torch.where(has_value.reshape(()), value, torch.stack([query, query], 1).reshape(query.shape[0] * 2, "
        "query.shape[1], query.shape[2]))\n",
        "query = torch.where(has_query_pos.reshape(()), query + query_pos, query)\n",
        "bs, num_query, embed_dims = query.shape\n"), False, False),
    # Not taken before: the present branch ages the timestamps with `+=`, then cuts them.
    "streampetr_memory_refresh": ("StreamQueryMemory", ("self.memory_embedding",), (
        "memory_timestamp, memory_embedding = torch.where(has_memory_embedding.reshape(()), (memory_timestamp + "
        "timestamp.unsqueeze(-1).unsqueeze(-1))[:, :self.memory_len] * prev_exists.view(-1, 1, 1), "
        "prev_exists.new_zeros(B, self.memory_len, 1)), torch.where(has_memory_embedding.reshape(()), "
        "memory_embedding[:, :self.memory_len] * prev_exists.view(-1, 1, 1), "
        "prev_exists.new_zeros(B, self.memory_len, self.embed_dims))\n",
        "        return outs_dec, memory_embedding, memory_timestamp\n"), True, False),
}


#: Where a run fails for a reason outside the lift. torch 2.13's dynamo exporter writes a split by
#: a size (RVM's ``Tensor.split(channels, dim=1)``, MOTR's ``torch.split(query_embed, c, dim=1)``)
#: as an opset-18 ``Split`` and converts it to opset 17 keeping ``num_outputs``, which ONNX Runtime
#: rejects; the original model's dynamo export at opset 17 has the same node and fails to load too.
_SPLIT = ("onnxruntime-cpu (dynamo)", "Unrecognized attribute: num_outputs for operator Split")
EXPORTER_BUGS = {"rvm_convgru": _SPLIT, "motr_ref_pts": _SPLIT}


def _names(module: Any) -> list[str]:
    return list(inspect.signature(module.build().forward).parameters)


def _example(module: Any, seed: int = 0) -> dict[str, torch.Tensor]:
    return dict(zip(_names(module), module.inputs(torch.Generator().manual_seed(seed))))


def _optional(name: str) -> list[str]:
    return [n for n in VARIANTS[name][1] if not n.startswith("self.")]


@pytest.fixture(scope="module")
def lifted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[LiftOutcome, Any, Path]]:
    """Each variant lifted once from four observed calls (as migrate's observer sees them)."""
    out = {}
    for name, (cls, *_rest) in VARIANTS.items():
        path = tmp_path_factory.mktemp(name) / f"{name}.py"
        shutil.copy(HERE / f"{name}.py", path)
        module = import_file(path, f"_t721_{name}")
        frames = [_example(module, seed) for seed in range(4)]
        outcome = lift_model(path, cls, lambda m, module=module: (m or module).build(), frames)
        out[name] = (outcome, module, path)
    return out


# --- what the rule finds ------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_rule_finds_each_none_test(name: str) -> None:
    _, tests, _, by_code, _ = VARIANTS[name]
    path = HERE / f"{name}.py"
    source = path.read_bytes()
    text = source.decode().splitlines()
    lines = {next(i for i, t in enumerate(text, 1) if t.lstrip().startswith(f"if {tested} is")) for tested in tests}
    module = import_file(path, f"_t721_rule_{name}")
    # The observed run: every line ran, and each optional input was a tensor (migrate's facts).
    inputs = {n: {"shapes": [list(t.shape)]} for n, t in _example(module).items()}
    facts = Facts(runs=1, lines={norm(str(path)): set(range(1, len(source.splitlines()) + 1))}, inputs=inputs)
    found = {f.line for f in check_source(source, str(path), Options(select=("TRT721",), facts=facts, scope="all"))}
    assert found == lines, found
    alone = {f.line for f in check_source(source, str(path), Options(select=("TRT721",), scope="all"))}
    assert alone <= lines and (alone == lines) is by_code, alone  # RAFT's flow is only added: the run shows it


# --- what the lift produces ---------------------------------------------------------------------


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_lift_blends_the_branches_on_an_indicator(name: str, lifted) -> None:
    outcome, module, path = lifted[name]
    assert outcome.ok, (outcome.refusals, outcome.mismatch)
    _, tests, fragments, _, _ = VARIANTS[name]
    assert outcome.optional == _optional(name)
    assert outcome.states == (["memory_embedding", "memory_timestamp"] if name.startswith("streampetr") else [])
    text = outcome.files[str(path)]
    step = text.split("def forward_step(")[1]
    for fragment in fragments:
        assert fragment in step, step
    assert not [line for line in step.split("\n\n\ndef build")[0].splitlines()
                if line.strip().startswith("if ") and "None" in line]  # no None test left in the step
    old = (HERE / f"{name}.py").read_text()
    assert text.startswith(old[:old.index("    def forward(")])  # every byte before forward kept
    assert text.endswith(old[old.index("\n\n\ndef build()"):])
    engine = outcome.contract.engine_inputs()
    for tested in _optional(name):
        assert engine[engine.index(tested) + 1] == f"has_{tested}"


def _frames(name: str, module: Any) -> list[dict[str, Any]]:
    """A scene: the optional inputs absent on the first frame, then given and absent in turn, over
    random values, zeros, negatives and inf/NaN; the state's first frame is the scene's first."""
    base = [_example(module, seed) for seed in range(6)]
    base[1] = {k: torch.zeros_like(v) for k, v in base[1].items()}
    base[2] = {k: -v.abs() - 1.0 for k, v in base[2].items()}
    first = next(iter(base[3]))
    special = base[3][first].clone().view(-1)
    special[:3] = torch.tensor([float("inf"), float("nan"), -0.0])
    base[3][first] = special.view(base[3][first].shape)
    if name == "streampetr_memory_refresh":
        base[4]["prev_exists"] = torch.tensor([1.0, 0.0])  # one sample's scene changes
    optional = _optional(name)
    return [{k: v for k, v in frame.items() if k not in optional or index % 2} for index, frame in enumerate(base)]


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_lifted_model_equals_the_original_frame_by_frame(name: str, lifted) -> None:
    outcome, module, path = lifted[name]
    assert outcome.ok
    step_module = load_source(outcome.files[str(path)], path, f"_t721_step_{name}")
    torch.manual_seed(0)
    original = module.build()
    rewritten = step_module.build()
    rewritten.load_state_dict(original.state_dict())
    frames = _frames(name, module)
    with torch.no_grad():
        for scene in range(2):  # the second after a reset, where the model has one
            if scene and hasattr(original, "reset_memory"):
                original.reset_memory()
                rewritten.reset_memory()
            for index, frame in enumerate(frames):
                want, got = original(**frame), rewritten(**frame)
                want = want if isinstance(want, tuple) else (want,)
                got = got if isinstance(got, tuple) else (got,)
                assert len(want) == len(got)
                assert all(bits_equal(a, b) for a, b in zip(want, got)), (scene, index)
                for attr in outcome.states:
                    assert bits_equal(getattr(original, attr), getattr(rewritten, attr)), (scene, index, attr)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_exported_wrapper_carries_the_state_and_equals_eager_over_frames(name: str, lifted) -> None:
    from trtcodemod.temporal.prove import prove_wrapper, summary
    from trtcodemod.verify.spec import InputsSpec

    outcome, module, path = lifted[name]
    assert outcome.ok
    report = summary(prove_wrapper(path, module, lambda m: (m or module).build(), outcome, InputsSpec("inputs"),
                                   seed=0, dynamic_axes={}, exporters=("torchscript", "dynamo"), target="8.6"))
    assert not any(report["trt_errors"].values()), report
    ran = {r["name"] for r in report["runs"] if r["status"] == "ok" and r["passed"]}
    runs = {"wrapper (torch eager, state carried by the caller)", "onnxruntime-cpu (torchscript)",
            "onnxruntime-cpu (dynamo)"}
    broken = EXPORTER_BUGS.get(name)
    if broken is None:
        assert report["equivalent"] is True and runs <= ran, report["runs"]
    else:  # the exporter's own graph does not load: said, not hidden
        run, why = broken
        assert runs - {run} <= ran, report["runs"]
        [failed] = [r for r in report["runs"] if r["name"] == run]
        assert not failed["passed"] and why in failed["reason"], failed
    assert len(report["frames"]) >= 4 and report["frames"][0] == "0:first", report["frames"]


# --- a temporary that is read after the `if` is not a temporary ---------------------------------


@pytest.mark.parametrize("after, taken", [
    ("        n = x.shape[0]\n        return prev * n\n", True),  # rebound before it is read
    ("        return prev * n\n", False),  # read: bound on one path only, no blend can give it
    ("        if x.sum() > 0:\n            n = 1\n        return prev * n\n", False),  # a block: not followed
])
def test_a_branch_temporary_is_dropped_only_where_no_later_statement_reads_it(after: str, taken: bool) -> None:
    source = ("import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, x, prev=None):\n"
              "        if prev is None:\n            n, c = x.shape\n            prev = x.new_zeros(n, c) + c\n" + after)
    result = lift(source, "M", [], optional=[LiftOptional("prev", "torch.zeros_like(x)")])
    assert result.ok is taken, result.refusals
    if taken:
        assert "prev = torch.where(has_prev.reshape(()), prev, x.new_zeros(x.shape[0], x.shape[1]) + x.shape[1])" \
            in result.source
    else:
        assert "`n` is assigned in one branch only and unbound before" in str(result.refusals[0])
