"""The float64 reference that breaks ties as eager float32 did (``verify/tiedref.py``).

lucid_yolo 0.5.0.dev2's segmentation decode (thirty-fourth zoo, ``ly_seg_n_masks``/``ly_seg_m_masks``):
``o2o_topk_with_indices`` (``lucid_yolo/models/heads/detect.py:846-855``) scores each anchor by
``scores.sigmoid().max(dim=-1)``, keeps the ``k`` best with ``topk`` and gathers boxes and classes by them;
the user gathers the mask coefficients by the same anchor indices and assembles the masks with the
prototypes (``assemble_masks``, ``lucid_yolo/models/heads/proto.py``, an einsum), then thresholds or
applies a sigmoid. With random weights the 128-pixel set saturates: every score is exactly 1.0 in
float32, so eager mode's top 10 is whichever tied anchors its tie-break puts first, while float64 ranks
the same anchors by their logits. Eager float32 then misses float64 at 88 of 120 detection values and
the set was judged "no float32 reference" (nothing proved for that shape, exit 1), though with eager
mode's picks put back the graph matched eager mode but for one box value 0.023 from it (eager 19.6354,
graph 19.6122), rounding that eager mode itself shows against float64 at the same anchor (19.6855).

``SegDecode`` below is that decode, reduced and written anew.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import torch
from torch import nn

from trtcodemod.verify.compare import OutputComparison, compare_outputs
from trtcodemod.verify.inconclusive import no_reference
from trtcodemod.verify.tiedref import Pick, TiedPicks, record_picks, tied_rows
from trtcodemod.verify.worker import flatten_outputs, run_float64

ATOL, RTOL = 1e-4, 1e-3
TIES = {"atol": ATOL, "rtol": RTOL}


class SegDecode(nn.Module):
    """Dense class logits, ltrb distances and mask coefficients per anchor, and prototypes: the top ``k``
    anchors' detections ``[x1, y1, x2, y2, score, class]`` and their masks."""

    def __init__(self, k: int = 5) -> None:
        super().__init__()
        self.k = k

    def forward(self, cls: torch.Tensor, ltrb: torch.Tensor, coeff: torch.Tensor, proto: torch.Tensor,
                points: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        boxes = torch.cat((points - ltrb[..., :2], points + ltrb[..., 2:]), dim=-1)
        max_conf, class_index = cls.sigmoid().max(dim=-1)
        top_conf, top_anchor = max_conf.topk(self.k, dim=1)
        top_boxes = boxes.gather(1, top_anchor.unsqueeze(-1).expand(-1, -1, 4))
        top_class = class_index.gather(1, top_anchor).to(cls.dtype)
        det = torch.cat((top_boxes, top_conf.unsqueeze(-1), top_class.unsqueeze(-1)), dim=-1)
        picked = coeff.gather(1, top_anchor.unsqueeze(-1).expand(-1, -1, coeff.shape[-1]))
        return det, torch.einsum("bnk,bkhw->bnhw", picked, proto).sigmoid()


def _saturated(seed: int = 0, anchors: int = 48) -> dict[str, torch.Tensor]:
    """Logits most of which saturate the float32 sigmoid (exactly 1.0 past about 17, as random weights
    do), and edge values: +inf and a float32 maximum (1.0 in both runs), -inf, and logits either side of
    the saturation point; boxes decoded far from their anchors, so that corners cancel."""
    g = torch.Generator().manual_seed(seed)
    cls = torch.randn(2, anchors, 4, generator=g) * 40.0
    cls[0, 0, 0], cls[0, 1, 1], cls[0, 2, :] = float("inf"), torch.finfo(torch.float32).max, float("-inf")
    cls[1, 0, 2], cls[1, 1, 3] = 16.5, 17.5
    ltrb = torch.rand(2, anchors, 4, generator=g) * 500.0
    coeff = torch.randn(2, anchors, 8, generator=g).tanh()
    proto = torch.randn(2, 8, 6, 6, generator=g)
    points = torch.rand(anchors, 2, generator=g) * 480.0
    return {"cls": cls, "ltrb": ltrb, "coeff": coeff, "proto": proto, "points": points}


def _float64_at(feed: dict[str, torch.Tensor], anchors: torch.Tensor, classes: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """The decode in float64 at the given top anchors and their classes (per image): the values a float64
    run following those picks computes, written out here without any pick."""
    d = {k: v.double() for k, v in feed.items()}
    boxes = torch.cat((d["points"] - d["ltrb"][..., :2], d["points"] + d["ltrb"][..., 2:]), dim=-1)
    rows = torch.arange(anchors.shape[0])[:, None]
    conf = d["cls"].sigmoid()[rows, anchors, classes]
    det = torch.cat((boxes[rows, anchors], conf[..., None], classes[..., None].double()), dim=-1)
    masks = torch.einsum("bnk,bkhw->bnhw", d["coeff"][rows, anchors], d["proto"]).sigmoid()
    return det.numpy(), masks.numpy()


def test_the_float64_run_takes_eager_float32_s_picks_among_saturated_scores() -> None:
    feed = _saturated()
    model = SegDecode().eval()
    with torch.no_grad():
        det, masks = model(**feed)
    eager = [det.numpy(), masks.numpy()]
    tied: list = []
    [plain] = run_float64(SegDecode().eval(), [feed], flatten_outputs, TIES, tied)
    [found] = tied
    # Every top score is 1.0 in float32: the top 5 is a tie-break, and float64 (no saturation) ranks otherwise.
    assert (det[..., 4] == 1.0).all()
    # Against float64's own picks eager float32 is no reference: it misses at a quarter of the detections or more.
    [misses, _] = compare_outputs(["det", "masks"], eager, [o.astype(np.float32) for o in plain], ATOL, RTOL, plain)
    assert misses.eager_no_reference
    # The float64 run along eager mode's picks: the float64 values of eager mode's anchors, each row taken.
    assert found is not None and found["rows"] >= 1
    eager_anchors = torch.from_numpy(_anchors_of(eager[0], feed))
    want_det, want_masks = _float64_at(feed, eager_anchors, torch.from_numpy(eager[0][..., 5]).long())
    # Where eager float32's classes tie (1.0 at two classes) float64's own maximum is another class: taken too.
    assert (want_det[..., 5] != plain[0][..., 5]).any()
    np.testing.assert_array_equal(found["outputs"][0], want_det)
    np.testing.assert_allclose(found["outputs"][1], want_masks, rtol=1e-12, atol=1e-12)
    # Against it eager mode is a reference again: within the tolerance everywhere.
    along = compare_outputs(["det", "masks"], eager, [o.astype(np.float32) for o in found["outputs"]], ATOL, RTOL,
                            found["outputs"])
    assert all(c.passed and not c.eager_no_reference for c in along)


def _anchors_of(det: np.ndarray, feed: dict[str, torch.Tensor]) -> np.ndarray:
    """Which anchor each detection row came from (its box, matched in float32)."""
    points, ltrb = feed["points"], feed["ltrb"]
    boxes = torch.cat((points - ltrb[..., :2], points + ltrb[..., 2:]), dim=-1).numpy()
    return np.stack([[int(np.flatnonzero((boxes[b] == row[:4]).all(-1))[0]) for row in det[b]]
                     for b in range(det.shape[0])])


def test_without_ties_the_float64_run_is_left_alone() -> None:
    feed = _saturated()
    feed["cls"] = torch.randn(2, 48, 4, generator=torch.Generator().manual_seed(5))  # no saturation: no tie
    tied: list = []
    [plain] = run_float64(SegDecode().eval(), [feed], flatten_outputs, TIES, tied)
    assert tied == [None] and plain is not None
    # Without the tolerance nothing is recorded, as before.
    assert run_float64(SegDecode().eval(), [feed], flatten_outputs)[0][0].shape == (2, 5, 6)


def test_a_pick_whose_float32_values_do_not_tie_keeps_float64_s_indices() -> None:
    values = np.array([[0.9, 0.5, 0.5, 0.1], [0.9, 0.8, 0.1, 0.0]], np.float32)
    float32 = np.array([[0, 1], [0, 1]])
    float64 = np.array([[0, 2], [0, 2]])
    # Row 0: 0.5 and 0.5 tie; row 1: 0.8 and 0.1 do not (a pick rounding did not decide).
    np.testing.assert_array_equal(tied_rows(values, float64, float32, ATOL, RTOL), [True, False])
    assert not tied_rows(values, float32, float32, ATOL, RTOL).any()  # nothing differs: nothing taken


def test_the_pairing_ends_where_the_runs_take_other_paths() -> None:
    x32 = torch.tensor([[1.0, 1.0, 0.0]])
    picks = record_picks(lambda: (x32.topk(1, dim=1), x32.argmax(dim=1), torch.sort(x32, dim=1, descending=True)))
    assert [(p.name, p.dim) for p in picks] == [("topk", 1), ("argmax", 1), ("sort", 1)]
    replay = TiedPicks([Pick("topk", (1, 3), 1, False, np.array([[1.0, 1.0, 0.0]], np.float32), np.array([[1]]))],
                       ATOL, RTOL)
    x64 = torch.tensor([[1.0, 1.0 + 1e-12, 0.0]], dtype=torch.float64)
    with replay.mode():
        values, index = x64.topk(1, dim=1)
    assert index.tolist() == [[1]] and replay.taken == 0  # float64 picks as float32 did: nothing to take
    x64 = torch.tensor([[1.0 + 1e-12, 1.0, 0.0]], dtype=torch.float64)
    replay.restart()
    with replay.mode():
        values, index = x64.topk(1, dim=1)
        later = x64.topk(1, dim=1)  # no float32 pick is paired with a second one
    assert index.tolist() == [[1]] and values.tolist() == [[1.0]] and replay.taken == 1
    assert later.indices.tolist() == [[0]]
    other = TiedPicks(list(picks), ATOL, RTOL)
    with other.mode():
        x64.max(dim=1)  # not the topk float32 made first: nothing more is paired
        assert x64.topk(1, dim=1).indices.tolist() == [[0]]
    assert other.taken == 0


@pytest.mark.parametrize("keepdim", [False, True])
def test_max_along_a_dimension_takes_eager_s_class_and_its_float64_value(keepdim: bool) -> None:
    x32 = torch.tensor([[[25.0, 30.0, -1.0], [0.2, 0.1, 0.3]]])  # row 0: 1.0 and 1.0 in float32
    picks = record_picks(lambda: x32.sigmoid().max(dim=-1, keepdim=keepdim))
    replay = TiedPicks(picks, ATOL, RTOL)
    with replay.mode():
        values, index = x32.double().sigmoid().max(dim=-1, keepdim=keepdim)
    assert replay.taken == 1
    assert index.flatten().tolist() == [0, 2]
    assert values.flatten().tolist() == x32.double().sigmoid()[0, [0, 1], [0, 2]].tolist()


# --- what the comparison makes of it ---------------------------------------------------------------


def _ctx(*sizes: int) -> SimpleNamespace:
    return SimpleNamespace(spec=SimpleNamespace(atol=ATOL, rtol=RTOL), row_axes={},
                           input_sets=[{"x": torch.zeros(1, 3, n, n)} for n in sizes])


# ly_seg_n_masks, set 3 (2x3x128x128), image 0, its first four detections as verify saw them: eager
# float32; the graph with eager mode's tied picks put back; float64's own top four (other anchors, its
# logits the largest); the float64 run along eager mode's picks. Row 1's y1: eager 19.6758, graph 19.6122,
# float64 at eager mode's anchor 19.6899 (at its own, 56.4860).
EAGER = np.array([[-394.3537, 771.4669, -204.849, 141.26984, 1.0, 1.0],
                  [-493.22388, 19.67582, 241.20868, 314.26514, 1.0, 0.0],
                  [-205.79971, -389.93375, -124.24043, -1099.4058, 1.0, 0.0],
                  [-229.32898, -190.68954, 9.184013, -817.7182, 1.0, 1.0]], np.float32)
GRAPH = np.array([[-394.3536, 771.4442, -204.8569, 141.25214, 1.0, 1.0],
                  [-493.2144, 19.61224, 241.2129, 314.27374, 1.0, 0.0],
                  [-205.81454, -389.91306, -124.23561, -1099.3293, 1.0, 0.0],
                  [-229.33044, -190.68874, 9.1688385, -817.7069, 1.0, 1.0]], np.float32)
OTHER = np.array([[401.0975063883, -197.3922777407, -1746.7266551236, -371.8810058343, 1.0, 3.0],
                  [146.0150213046, 56.4859771544, -1264.7309442254, -183.287539087, 1.0, 3.0],
                  [-322.2256994101, 313.9634397629, -639.9309180238, -956.2337525124, 1.0, 0.0],
                  [-237.3350658389, 323.9053924204, 252.449740594, -575.615596691, 1.0, 0.0]])
ALONG = np.array([[-394.3521358542, 771.476647201, -204.8536928959, 141.2760114312, 1.0, 1.0],
                  [-493.2373370557, 19.6899048744, 241.2020857751, 314.2683211539, 1.0, 0.0],
                  [-205.8040550996, -389.9202370139, -124.2339218022, -1099.4298380804, 1.0, 0.0],
                  [-229.3321306716, -190.6815283562, 9.1894943561, -817.7213045813, 0.9999999733, 1.0]])


def test_a_replayed_saturated_set_passes_against_the_float64_run_along_eager_mode_s_ties() -> None:
    from trtcodemod.verify.run import take_replayed

    found = {"picks": 3, "outputs": [GRAPH]}
    # The plain float64 run: another anchor, eager float32 no reference; the set is the only one of its shapes.
    sets: list[list[OutputComparison]] = [[compare_outputs(["det"], [EAGER], [EAGER], ATOL, RTOL)[0]],
                                          compare_outputs(["det"], [EAGER], [GRAPH + 40], ATOL, RTOL, [OTHER])]
    assert take_replayed(_ctx(64, 128), ["det"], sets, 1, [EAGER], found, [OTHER])
    assert not sets[1][0].passed and no_reference(sets[1])  # nothing proved there, as before
    sets[1] = compare_outputs(["det"], [EAGER], [GRAPH + 40], ATOL, RTOL, [OTHER])
    assert take_replayed(_ctx(64, 128), ["det"], sets, 1, [EAGER], found, [OTHER], {"outputs": [ALONG], "rows": 2})
    [det] = sets[1]
    assert det.passed and det.exact_admitted == 2 and det.float64_ties == 2 and det.picks_tied == 3
    assert OutputComparison.from_json(det.to_json()).float64_ties == 2


def test_a_wrong_graph_still_fails_against_the_float64_run_along_the_ties() -> None:
    from trtcodemod.verify.run import take_replayed

    wrong = GRAPH.copy()
    wrong[1, 1] = 18.6  # a whole unit off: no rounding of eager mode's
    sets = [[compare_outputs(["det"], [EAGER], [EAGER], ATOL, RTOL)[0]],
            compare_outputs(["det"], [EAGER], [wrong + 40], ATOL, RTOL, [OTHER])]
    take_replayed(_ctx(64, 128), ["det"], sets, 1, [EAGER], {"picks": 3, "outputs": [wrong]}, [OTHER],
                  {"outputs": [ALONG], "rows": 2})
    assert not sets[1][0].passed and sets[1][0].float64_ties == 0


def test_a_comparison_run_judges_a_failing_set_again_along_the_ties_and_leaves_others_as_they_were() -> None:
    from trtcodemod.verify.backends import OK, BackendRun
    from trtcodemod.verify.run import SideResult, _compare_run
    from trtcodemod.verify.worker import TaskOutcome

    calm = np.array([[1.0, 2.0, 3.0, 4.0, 1.0, 0.0]] * 4, np.float32)
    owner = SideResult("before", TaskOutcome("ok", {}),
                       exact=[[[calm.astype(np.float64)], [OTHER]], [None, {"outputs": [ALONG], "rows": 1}]])
    reference = BackendRun(OK, outputs=[[calm], [EAGER]])
    merged, per_set = _compare_run(_ctx(64, 128), ["det"], reference, BackendRun(OK, outputs=[[calm], [GRAPH]]), owner)
    assert merged[0].passed and per_set[1][0].float64_ties == 1 and per_set[0][0].float64_ties == 0
    wrong = GRAPH.copy()
    wrong[1, 1] = 18.6
    _, per_set = _compare_run(_ctx(64, 128), ["det"], reference, BackendRun(OK, outputs=[[calm], [wrong]]), owner)
    assert not per_set[1][0].passed and no_reference(per_set[1])  # the plain run's verdict stands


# --- what migrate says -------------------------------------------------------------------------------

DECODE = '''\
import torch
from torch import nn

NUDGE = {nudge}


class Nudge(torch.autograd.Function):
    """Eager: the identity. Graph: NUDGE added (a backend whose kernels round otherwise)."""

    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def symbolic(g, x):
        return g.op("Add", x, g.op("Constant", value_t=torch.tensor(NUDGE)))


class Decode(nn.Module):
    def forward(self, x):
        cls, ltrb = x[..., :4] * 40.0, x[..., 4:] * 100.0
        box = Nudge.apply((ltrb + 3.0e7) - 3.0e7)  # distances of some 100 rounded to float32 steps of 2 at 3e7
        max_conf, class_index = cls.sigmoid().max(dim=-1)
        top_conf, top_anchor = max_conf.topk(5, dim=1)
        top_boxes = box.gather(1, top_anchor.unsqueeze(-1).expand(-1, -1, 4))
        top_class = class_index.gather(1, top_anchor).to(x.dtype)
        return torch.cat((top_boxes, top_conf.unsqueeze(-1), top_class.unsqueeze(-1)), dim=-1)


def build():
    return Decode()
'''


def _migrate(tmp_path, nudge: float) -> tuple[dict, int]:
    import json

    from support import invoke

    path = tmp_path / "decode.py"
    path.write_text(DECODE.format(nudge=nudge))
    result = invoke("migrate", str(path), "--model", "build", "--input-shape", "x:1x32x8", "--format", "json",
                    "--runs", "1", "--warmup", "0", "--backends", "torch-cpu,onnxruntime-cpu")
    [report] = json.loads(result.stdout)["models"]
    return report, result.exit_code


def test_migrate_takes_a_saturated_decode_whose_graph_rounds_as_eager_mode_does_as_faithful(tmp_path) -> None:
    """Every input set saturates (logits of some 40): the graph's top 5 is replayed with eager mode's tied picks,
    and its boxes, half a unit from eager mode's where eager float32 is a unit or so from float64 (the ``3e7``
    the distances pass through), are judged against float64 at eager mode's anchors: faithful, exit 0."""
    report, code = _migrate(tmp_path, 0.5)
    assert code == 0, report["remaining"]
    assert report["before"]["faithful"] is True and report["before"]["float64_ties"] > 0
    assert report["before"]["picks_tied"] > 0 and report["remaining"] == []


def test_migrate_keeps_a_saturated_decode_whose_boxes_are_off_by_more_than_rounding_unfaithful(tmp_path) -> None:
    report, code = _migrate(tmp_path, 20.0)
    assert code == 1 and report["before"]["faithful"] is False and "float64_ties" not in report["before"]
    assert [r["op"] for r in report["remaining"]] == ["(wrong values)"]
