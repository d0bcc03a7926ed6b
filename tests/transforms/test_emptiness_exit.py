"""TRT101's emptiness exits: `if not M.any(): continue` (or `return`), or `if M.any(): <selects> else: <exit>`,
ahead of code that selects with the bool mask M. The `if` reads its test through a helper that answers the
selecting way while tracing; eager mode and scripts take the exit as before. Proved only by observation: the
run saw the test go both ways (tests/evidence/test_proofs.py), never a candidate."""

from __future__ import annotations

import textwrap
import warnings
from types import SimpleNamespace

import pytest
import torch

from support import assert_same, load
from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.evidence.facts import Facts, Span
from trtcodemod.evidence.proofs import Observation, prove_both_ways

# Own re-writing of DL4EO/oriented-det 0.4.1 (PyPI, zoo 29) oriented_det/models/oriented_rpn.py:2203
# (`generate_midpoint_proposals`: a level none of whose anchors passes the threshold is skipped before
# `valid.nonzero(as_tuple=True)[0]`; an image with no level left gets a `(0, 5)` tensor).
LEVELS = """\
import torch
from torch import nn


class Levels(nn.Module):
    def forward(self, scores, deltas):
        props, kept = [], []
        for level in range(scores.shape[0]):
            level_scores = scores[level].sigmoid()
            valid = level_scores >= 0.6
            if not valid.any():
                continue
            idx = valid.nonzero(as_tuple=True)[0]
            props.append(deltas[level][idx] * 2.0)
            kept.append(level_scores[idx])
        if not props:
            return torch.zeros((0, 5)), torch.zeros((0,))
        return torch.cat(props, dim=0), torch.cat(kept, dim=0)
"""

# Own re-writing of DL4EO/oriented-det 0.4.1 (PyPI, zoo 29) oriented_det/models/oriented_rcnn_inference.py:94
# (`_roi_candidates_from_head`: `if candidate_mask.any(): <select by nonzero> else: return None`, and
# the caller pads None to the fixed number of rows, as it pads an empty selection).
HEAD = """\
import torch
from torch import nn


def _positive(boxes):
    return (boxes[:, 2] > 0) & (boxes[:, 3] > 0)


def _candidates(probs: torch.Tensor, boxes: torch.Tensor):
    real = _positive(boxes)
    candidate_mask = (probs > 0.3) & real.unsqueeze(1)
    if candidate_mask.any():
        rows, classes = candidate_mask.nonzero(as_tuple=True)
        picked = boxes[rows]
        scores = probs[rows, classes]
    else:
        return None
    return picked, scores, classes + 1


class Head(nn.Module):
    def forward(self, probs, boxes):
        found = _candidates(probs, boxes)
        out = boxes.new_zeros((6, 6))
        if found is None:
            return out
        picked, scores, labels = found
        rows = torch.cat([picked, scores[:, None]], dim=1)[:6]
        out[: rows.shape[0]] = rows
        return out
"""

# Own re-writing of facebookresearch/detectron2@02b5c4e295e990042a714712c21dc79b731e8833
# projects/DensePose/densepose/modeling/losses/embed.py:80 (`if not torch.any(j_valid): continue` before
# `[j_valid, :]`, j_valid a product of bool masks): here the exit is NOT an optimisation, the mean over an
# empty selection is NaN, which is what the proof by observation catches.
MESHES = """\
import torch
from torch import nn


class Meshes(nn.Module):
    def forward(self, emb, ids, inside):
        total = emb.new_zeros(())
        for mesh in range(3):
            j_valid = (inside > 0) * (ids == mesh)
            if not torch.any(j_valid):
                continue
            total = total + emb[j_valid, :].pow(2).mean()
        return total
"""


def _fixed(code: str) -> str:
    return fix_source(code.encode(), "m.py", Options(select=("TRT101",), unsafe=True)).source.decode()


def _traced(model: torch.nn.Module, example: tuple) -> torch.jit.ScriptModule:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch.jit.trace(model, example, check_trace=False)


def _level_cases() -> list[tuple[torch.Tensor, torch.Tensor]]:
    g = torch.Generator().manual_seed(0)
    deltas = torch.randn(3, 7, 5, generator=g)
    return [
        (torch.randn(3, 7, generator=g) * 3, deltas),  # some levels empty, some not
        (torch.full((3, 7), -9.0), deltas),  # every level empty: the (0, 5) exit of the function
        (torch.full((3, 7), 9.0), deltas),  # nothing empty
        (torch.zeros(3, 7), deltas),  # sigmoid(0) = 0.5 < 0.6: empty
        (torch.tensor([[float("nan")] * 7, [float("inf")] * 7, [-float("inf")] * 7]), deltas),
        (torch.zeros(3, 0), torch.zeros(3, 0, 5)),  # no anchors at all
    ]


def test_a_continue_exit_reads_its_test_through_the_shortcut_helper_and_computes_the_same() -> None:
    after = _fixed(LEVELS)
    assert "            if _trt_shortcut_taken(_trt_not(valid.any())):\n                continue\n" in after, after
    original, rewritten = load(LEVELS, "Levels")(), load(after, "Levels")()
    for scores, deltas in _level_cases():
        assert_same(original(scores, deltas), rewritten(scores, deltas))


def test_a_trace_of_an_empty_example_keeps_the_selection_instead_of_the_exit() -> None:
    original, rewritten = load(LEVELS, "Levels")(), load(_fixed(LEVELS), "Levels")()
    cases = _level_cases()
    empty = cases[1]
    before, after = _traced(original, empty), _traced(rewritten, empty)
    some = cases[0]
    assert before(*some)[0].shape[0] == 0 and original(*some)[0].shape[0] > 0  # the exit was baked in
    for scores, deltas in cases[:5]:
        assert_same(after(scores, deltas), original(scores, deltas))


def test_an_else_exit_reads_its_test_through_the_masked_helper_and_computes_the_same() -> None:
    after = _fixed(HEAD)
    assert "    if _trt_masked_taken(candidate_mask.any()):\n" in after, after
    original, rewritten = load(HEAD, "Head")(), load(after, "Head")()
    g = torch.Generator().manual_seed(1)
    boxes = torch.rand(5, 5, generator=g) + 0.1
    cases = [(torch.rand(5, 4, generator=g), boxes), (torch.zeros(5, 4), boxes),  # none above the threshold
             (torch.rand(5, 4, generator=g), torch.cat([boxes[:2], -boxes[2:]])),  # pads of no size
             (torch.full((5, 4), float("nan")), boxes), (torch.zeros(0, 4), torch.zeros(0, 5))]
    for probs, b in cases:
        assert_same(original(probs, b), rewritten(probs, b))
    before, traced = _traced(original, cases[1]), _traced(load(after, "Head")(), cases[1])
    assert not torch.equal(before(*cases[0]), original(*cases[0]))  # the trace kept `return None`'s way
    for probs, b in cases[:4]:
        assert_same(traced(probs, b), original(probs, b))


def test_an_exit_that_is_no_optimisation_differs_in_the_graph_so_only_observation_may_prove_it() -> None:
    """The mean over an empty selection is NaN where the exit added nothing: eager mode is the same, the
    graph is not, which is why the fix is never a candidate and needs the test seen both ways."""
    after = _fixed(MESHES)
    assert "            if _trt_shortcut_taken(_trt_not(torch.any(j_valid))):\n" in after, after
    original, rewritten = load(MESHES, "Meshes")(), load(after, "Meshes")()
    emb = torch.randn(6, 4)
    ids, inside = torch.tensor([0, 0, 1, 1, 1, 0]), torch.ones(6)
    assert_same(original(emb, ids, inside), rewritten(emb, ids, inside))
    graph = _traced(rewritten, (emb, ids, inside))
    assert torch.isfinite(original(emb, ids, inside)) and torch.isnan(graph(emb, ids, inside))
    [finding] = check_source(MESHES.encode(), "m.py", Options(select=("TRT101",)))
    assert finding.edit is not None and finding.edit.proof is prove_both_ways


@pytest.mark.parametrize("body", [
    # integer indices: `.any()` is False for index [0], which the selection still picks
    "keep = (row > 0).nonzero()[:, 0]\nif not keep.any():\n    continue\nout.append(row[keep])",
    # nothing after the exit selects with the mask
    "keep = row > 0\nif not keep.any():\n    continue\nout.append(row * 2)",
    # the exit does more than exit
    "keep = row > 0\nif not keep.any():\n    print('empty')\n    continue\nout.append(row[keep])",
    # an `else` that does not exit
    "keep = row > 0\nif keep.any():\n    out.append(row[keep])\nelse:\n    out.append(row[:0])",
])
def test_what_is_no_emptiness_exit(body: str) -> None:
    code = ("import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, x):\n"
            "        out = []\n        for row in x:\n" + textwrap.indent(body, "            ")
            + "\n        return torch.cat(out)\n")
    after = _fixed(code)
    assert "_trt_shortcut_taken" not in after and "_trt_masked_taken" not in after, after


def test_an_early_return_the_shortcut_selects_stays_the_shortcut_s() -> None:
    """`if not keep.any(): return x` before writes through `keep`: the shortcut selects `x` in the graph (a
    candidate, as before this form); the exit form takes only what the shortcut refuses."""
    code = ("import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, x):\n"
            "        keep = x > 0\n        if not keep.any():\n            return x\n        out = x.clone()\n"
            "        out[keep] = x[keep].sqrt()\n        return out\n")
    [finding] = check_source(code.encode(), "m.py", Options(select=("TRT101",)))
    assert finding.edit is not None and finding.edit.proof is None and "early return's value" in finding.message
    assert "return _trt_shortcut_select(_trt_cond, _trt_shortcut, out)" in _fixed(code)


def _truths(*values: bool) -> Facts:
    events = [{"kind": "truth", "path": "/m.py", "line": 4, "column": 12, "end_line": 4, "end_column": 30,
               "direct": True, "count": 2, "value": v} for v in values]
    return Facts(runs=3, events=events)


def test_the_exit_is_proved_only_where_the_run_saw_its_test_go_both_ways() -> None:
    span = Span("/m.py", 4, 9, 5, 25)
    assert prove_both_ways(Observation(_truths(True), span)) is None
    assert prove_both_ways(Observation(_truths(False), span)) is None
    assert prove_both_ways(Observation(Facts(runs=3), span)) is None
    text = prove_both_ways(Observation(_truths(True, False), span))
    assert text is not None and "went both ways (2 call(s) true, 2 false) over 3 input set(s)" in text
    # A test read on another line of the `if` (its body's) proves nothing about this one.
    assert prove_both_ways(Observation(_truths(True, False), Span("/m.py", 3, 9, 5, 25))) is None


def test_migrate_keeps_an_unproved_exit_as_remaining_not_a_candidate() -> None:
    from trtcodemod.migrate.plan import APPLY, REMAINS, decide

    [finding] = check_source(LEVELS.encode(), "/m.py", Options(select=("TRT101",)))
    line = finding.line
    baked = SimpleNamespace(kind="baked", rule=None, path="/m.py", line=line, op="(baked value)", exporter=None,
                            severity="error", message="value read")
    ran = Facts(runs=2, lines={"/m.py": set(range(1, 40))})
    kept = decide(finding, [baked], ran, unsafe=False)
    assert kept.action == REMAINS and not kept.candidate, kept
    assert "give migrate an input set that takes the exit" in kept.reason and "by hand, drop the exit" in kept.reason
    both = _truths(True, False)
    for event in both.events:
        event.update(line=line, end_line=line)
    both.lines = ran.lines
    proved = decide(finding, [baked], both, unsafe=False)
    assert proved.action == APPLY and "went both ways" in proved.proof, proved


# Own re-writing of DL4EO/oriented-det 0.4.1 (PyPI, zoo 29) oriented_det/models/oriented_rpn.py:2193 (a level
# with more anchors above the threshold than `pre_nms_top_n` keeps its top `min(2 * pre_nms_top_n, n)`, then
# the same temporaries are bound again and read for the image-wide top-k).
NARROW = """\
import torch
from torch import nn


def _trt_size_min(a, b):
    return torch.minimum(torch.as_tensor(a), torch.as_tensor(b)) if torch.jit.is_tracing() else min(a, b)


class Narrow(nn.Module):
    def forward(self, logits, limit: int = 3, exact: bool = True):
        picked = []
        for level in range(logits.shape[0]):
            scores = logits[level].sigmoid()
            valid = scores >= 0.25
            if valid.sum() > limit:
                k = _trt_size_min(limit * 2, scores.shape[0])
                if exact:
                    ranked = scores
                else:
                    ranked = scores + 1e-5 * torch.rand_like(scores)
                _, order = torch.topk(ranked, k)
                keep = torch.zeros_like(valid)
                keep[order] = True
                valid = keep & (scores >= 0.25)
            picked.append(torch.where(valid, scores, scores.new_zeros(())))
        flat = torch.cat(picked)
        if exact:
            ranked = flat
        else:
            ranked = flat * 1.0
        order = torch.topk(ranked, 4).indices
        return torch.cat([flat, flat[order]])
"""


def test_a_narrowing_guard_is_traced_narrowing_and_computes_the_same() -> None:
    after = _fixed(NARROW)
    assert "            if _trt_masked_taken(valid.sum() > limit):\n" in after, after
    original, rewritten = load(NARROW, "Narrow")(), load(after, "Narrow")()
    g = torch.Generator().manual_seed(2)
    cases = [torch.randn(2, 9, generator=g) * 3, torch.linspace(-1, 5, 18).reshape(2, 9), torch.full((2, 9), -5.0),
             torch.zeros(2, 9), torch.cat([torch.full((1, 9), 5.0), torch.full((1, 9), -5.0)]),
             torch.tensor([[float("inf")] * 9, [-float("inf")] * 9])]
    for x in cases:
        assert_same(original(x), rewritten(x))
    # Traced where no level needs narrowing, the original graph never narrows; the rewrite's always does,
    # which changes nothing where the test is false.
    quiet = torch.full((2, 9), -5.0)
    before, traced = _traced(original, (quiet,)), _traced(rewritten, (quiet,))
    assert not torch.equal(before(cases[1]), original(cases[1]))
    for x in cases:
        assert_same(traced(x), original(x))


@pytest.mark.parametrize("change", [
    # the body writes into a tensor it did not make
    ("keep = torch.zeros_like(valid)\n", "keep = valid\n"),
    # a temporary read after the `if` without being bound again
    ("        flat = torch.cat(picked)\n", "        flat = torch.cat(picked) + k\n"),
    # the body does not narrow the mask the test reads
    ("valid = keep & (scores >= 0.25)", "other = keep & (scores >= 0.25)"),
])
def test_what_is_no_narrowing_guard(change: tuple[str, str]) -> None:
    code = NARROW.replace(*change)
    assert code != NARROW
    assert "_trt_masked_taken" not in _fixed(code)


def test_the_observer_records_which_way_a_test_went_on_the_verified_sets_only() -> None:
    """In a child process, as ``migrate`` runs the observer: each ``__bool__`` of a tensor in user code leaves
    a ``truth`` event with its value; none while the stretched set runs (the verifier compares no graph there)."""
    import subprocess
    import sys
    from pathlib import Path

    from support import TESTS

    script = ("import sys; sys.path[:0] = sys.argv[1:3]; import test_emptiness_exit as t; "
              "t.observe_truths()")
    done = subprocess.run([sys.executable, "-c", script, str(Path(__file__).parent), str(TESTS)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]


def _gate(x: torch.Tensor) -> torch.Tensor:
    keep = x > 0
    if not keep.any():
        return x[:0]
    return x[keep]


def observe_truths() -> None:
    """The body of the test above (in its own process)."""
    import inspect
    from pathlib import Path

    from trtcodemod.migrate.observe import Recorder, Wrappers
    from trtcodemod.usercode import UserFiles

    rec = Recorder(UserFiles([str(Path(__file__).parent)]))
    with Wrappers(rec):
        rec.recording = True
        seen = [_gate(x) for x in (torch.tensor([1.0, -2.0]), torch.tensor([-1.0]), torch.tensor([3.0]))]
        rec.stretched = True
        _gate(torch.tensor([-4.0]))
        rec.recording = False
    assert [s.tolist() for s in seen] == [[1.0], [], [3.0]]
    line = inspect.getsourcelines(_gate)[1] + 2
    truths = {e["value"]: e["count"] for e in rec.events.values() if e["kind"] == "truth"}
    assert truths == {True: 2, False: 1}, rec.events
    assert all(e["line"] == line for e in rec.events.values() if e["kind"] == "truth")


def test_a_scripted_exit_still_exits(tmp_path) -> None:
    """Scripted, the helpers read the test as `if` did (a script has no tracer): same results, exit included."""
    from safety import import_source

    code = LEVELS.replace("valid.nonzero(as_tuple=True)[0]", "valid.nonzero()[:, 0]").replace(
        "props, kept = [], []", "props: list[torch.Tensor] = []\n        kept: list[torch.Tensor] = []")
    after = _fixed(code)
    assert "_trt_shortcut_taken(_trt_not(valid.any()))" in after
    before = torch.jit.script(import_source(code, tmp_path)["Levels"]())
    scripted = torch.jit.script(import_source(after, tmp_path)["Levels"]())
    for scores, deltas in _level_cases():
        assert_same(before(scores, deltas), scripted(scores, deltas))


def test_a_mask_seen_only_as_bool_opens_the_exit(tmp_path) -> None:
    """DensePose's `j_valid = interpolator.j_valid * (...)` (embed.py:80, cited above) multiplies an attribute the
    rule cannot see into: static evidence does not make it a bool mask, the recorded run's dtypes do."""
    code = MESHES.replace("j_valid = (inside > 0) * (ids == mesh)", "j_valid = self.inside * (ids == mesh)").replace(
        "def forward(self, emb, ids, inside):", "def forward(self, emb, ids):")
    path = tmp_path / "meshes.py"
    path.write_text(code)
    line = code.splitlines().index("            if not torch.any(j_valid):") + 1
    event = {"kind": "tensor", "path": str(path.resolve()), "line": line, "column": 1, "end_line": line,
             "end_column": 80, "direct": True, "count": 3, "name": "j_valid", "dtypes": ["bool"], "shapes": [[6]]}
    read = {**event, "kind": "value_read", "method": "__bool__", "caller": None}
    del read["name"], read["dtypes"], read["shapes"]
    facts = Facts(runs=1, lines={str(path.resolve()): set(range(1, 20))}, events=[event, read])
    read_only = Facts(runs=1, lines={str(path.resolve()): set(range(1, 20))}, events=[read])
    unseen = fix_source(code.encode(), str(path), Options(select=("TRT101",), unsafe=True,
                                                          facts=read_only)).source.decode()
    assert "_trt_shortcut_taken" not in unseen
    seen = fix_source(code.encode(), str(path), Options(select=("TRT101",), unsafe=True, facts=facts)).source.decode()
    assert "            if _trt_shortcut_taken(_trt_not(torch.any(j_valid))):\n" in seen, seen
