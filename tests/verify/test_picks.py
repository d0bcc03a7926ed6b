"""An arg-max whose graph picks between values it computed as tied is no wrong graph.

RTMDet (twenty-first zoo) takes each prior's class as ``torch.max(sigmoid(logits), dim)``; ONNX
Runtime's sigmoid rounds otherwise than torch's, and 2 to 10 of 189-672 class indices flipped
between two classes a float32 step apart: "the graph differs from eager even on the traced
inputs". ``verify.picks`` replays such a set with eager mode's picks where the graph's own values
at both picks tie, and the set passes only when every other output then matches.

The models here stand in for a backend that rounds otherwise: an ``autograd.Function`` that is
the identity in eager mode and adds ``NUDGE`` to channel 1 in the graph, on scores whose
channels 0 and 1 are equal. A nudge within the tolerance is a tie; 0.5 is a wrong graph.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from support import import_file, invoke
from trtcodemod.verify.export import export_model
from trtcodemod.verify.picks import has_arg_nodes, replay_picks, tied_flips

MODEL = '''\
import torch
from torch import nn

NUDGE = {nudge}


class Nudge(torch.autograd.Function):
    """Eager: the identity. Graph: channel 1 raised by NUDGE (another backend's rounding)."""

    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def symbolic(g, x):
        return g.op("Add", x, g.op("Constant", value_t=torch.tensor([0.0, NUDGE, 0.0]).reshape(1, 3, 1, 1)))


class Net(nn.Module):
    def forward(self, x):
        scores = Nudge.apply(torch.cat([x[:, :1], x[:, :1], x[:, 2:]], 1))
        labels = []
        for s in (scores, scores * 2):
            best, label = torch.max(s, dim=1)
            labels.append(label)
        return best, labels[0], labels[1]


def build():
    return Net()
'''

TIE, WRONG = 1e-6, 0.5


def _model(tmp_path: Path, nudge: float) -> tuple[Path, torch.nn.Module]:
    path = tmp_path / "model.py"
    path.write_text(MODEL.format(nudge=nudge))
    return path, import_file(path, f"picks_model_{str(nudge).replace('.', '_').replace('-', '_')}").build().eval()


def _graph(tmp_path: Path, model: torch.nn.Module, x: torch.Tensor) -> str:
    onnx_path = tmp_path / "model.onnx"
    result = export_model(model, (x,), onnx_path, exporter="torchscript", input_names=["x"],
                          output_names=["best", "label", "label2"], dynamic_axes={}, opset=17,
                          user_roots=(str(tmp_path),))
    assert result.error is None
    return str(onnx_path)


# --- the tie test itself ------------------------------------------------------------------------


def test_only_differing_picks_count_and_only_ties_within_the_tolerance_are_ties() -> None:
    values = np.array([[0.5, 0.5 + 1e-7, 0.1], [0.9, 0.2, 0.9], [0.3, 0.7, 0.1], [0.0, 0.0, 0.0]], np.float32)
    graph = np.array([1, 2, 1, 0])
    eager = np.array([0, 0, 0, 2])  # a tie, an exact tie, a wrong pick, zeros tied everywhere
    assert tied_flips(values, graph, eager, 1, False, 1e-5, 1e-5) == (4, 3)
    assert tied_flips(values, graph, graph, 1, False, 1e-5, 1e-5) == (0, 0)


def test_keepdims_axis_negatives_inf_and_an_index_out_of_range() -> None:
    values = np.array([[[-1.0, -3.0], [-1.0 - 1e-7, -2.0]], [[np.inf, 0.0], [np.inf, 0.0]]], np.float32)  # (2, 2, 2)
    graph = np.array([[[1, 1]], [[0, 0]]])  # ArgMax(axis=1, keepdims=1): shape (2, 1, 2)
    eager = np.array([[[0, 1]], [[1, 0]]])
    # (0, :, 0): -1 vs -1 - 1e-7 ties; (1, :, 0): inf against inf is no number within a tolerance.
    assert tied_flips(values, graph, eager, 1, True, 1e-5, 1e-5) == (2, 1)
    assert tied_flips(values, graph, np.full_like(graph, 7), 1, True, 1e-5, 1e-5) == (4, 0)


def test_empty_values_pick_nothing() -> None:
    values = np.zeros((0, 3), np.float32)
    picks = np.zeros((0,), np.int64)
    assert tied_flips(values, picks, picks, 1, False, 1e-5, 1e-5) == (0, 0)


# --- the replay on a real graph -------------------------------------------------------------------


@pytest.mark.parametrize("x", [torch.rand(1, 3, 4, 5, generator=torch.Generator().manual_seed(3)),
                               torch.zeros(1, 3, 2, 2), -torch.rand(2, 3, 3, 3, generator=torch.Generator().manual_seed(4))],
                         ids=["random", "zeros", "negative"])
def test_tied_picks_are_replayed_and_the_graph_then_gives_eager_outputs(tmp_path: Path, x: torch.Tensor) -> None:
    path, model = _model(tmp_path, TIE)
    onnx_path = _graph(tmp_path, model, x)
    assert has_arg_nodes(onnx_path)
    with torch.no_grad():
        want = [t.numpy() for t in model(x)]
    import onnxruntime as ort

    plain = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"]).run(None, {"x": x.numpy()})
    assert not np.array_equal(plain[1], want[1])  # the nudge flips the first loop's picks in the graph
    found = replay_picks(model, (x,), ["x"], onnx_path, (str(tmp_path),), 1e-5, 1e-5)
    # Two ArgMax nodes at one line (the loop, unrolled): each paired with its own eager picks.
    assert found["lines"] == [f"{path.resolve()}:24", f"{path.resolve()}:24"]
    assert found["picks"] == int((plain[1] != want[1]).sum() + (plain[2] != want[2]).sum())
    for got, expected in zip(found["outputs"], want):
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_picks_between_values_that_do_not_tie_are_not_replayed(tmp_path: Path) -> None:
    x = torch.rand(1, 3, 4, 5, generator=torch.Generator().manual_seed(3))
    _, model = _model(tmp_path, WRONG)
    found = replay_picks(model, (x,), ["x"], _graph(tmp_path, model, x), (str(tmp_path),), 1e-5, 1e-5)
    assert found["picks"] == 0 and "outputs" not in found
    assert "where its values do not tie" in found["why"]


def test_a_graph_that_picks_as_eager_mode_replays_nothing(tmp_path: Path) -> None:
    x = torch.rand(1, 3, 4, 5, generator=torch.Generator().manual_seed(3))
    _, model = _model(tmp_path, -TIE)  # channel 1 lowered: the graph picks channel 0, as eager mode does
    found = replay_picks(model, (x,), ["x"], _graph(tmp_path, model, x), (str(tmp_path),), 1e-5, 1e-5)
    assert found == {"picks": 0, "why": "every arg-max picks and every comparison decides as eager mode does"}


LAYER_NORM = """\
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.linspace(0.5, 1.5, 8))
        self.bias = nn.Parameter(torch.linspace(-0.1, 0.1, 8))

    def forward(self, x):
        centred = x - x.mean(-1, keepdim=True)
        scaled = centred / torch.sqrt(centred.pow(2).mean(-1, keepdim=True) + 1e-5)
        return (scaled * self.weight + self.bias).argmax(-1)


def build():
    return Net()
"""


@pytest.mark.parametrize("as_backend", [False, True])
def test_the_replay_runs_the_graph_fused_as_the_backend_did(tmp_path: Path, monkeypatch, as_backend: bool) -> None:
    """lungmask R231 (seventy-ninth zoo): one label of 196608 flipped between two scores a float32 step
    apart in the backend's run, while the graph run node for node picked as eager mode did, so the replay
    found nothing to replay. The replay's run is the backend's: its fusions (a layer norm written out
    becomes one fused node) and its options; the divergence walk keeps the graph node for node."""
    import onnx

    import trtcodemod.verify.backends as backends
    from trtcodemod.verify.diverge import graph_values

    path = tmp_path / "norm.py"
    path.write_text(LAYER_NORM)
    model = import_file(path, "picks_layer_norm").build().eval()
    x = torch.randn(2, 8, generator=torch.Generator().manual_seed(0))
    onnx_path = tmp_path / "norm.onnx"
    assert export_model(model, (x,), onnx_path, exporter="torchscript", input_names=["x"], output_names=["label"],
                        dynamic_axes={}, opset=17, user_roots=(str(tmp_path),)).error is None
    written = tmp_path / "as_run.onnx"
    options = backends.session_options

    def recorded():
        chosen = options()
        chosen.optimized_model_filepath = str(written)
        return chosen

    monkeypatch.setattr(backends, "session_options", recorded)
    values = graph_values(str(onnx_path), {"x": x.numpy()}, {"label"}, as_backend=as_backend)
    [label] = [v for node, vs in values for v in vs if v is not None]
    assert np.array_equal(label, model(x).numpy())
    if as_backend:
        ops = [node.op_type for node in onnx.load(written).graph.node]
        assert "LayerNormalization" in ops and "Sqrt" not in ops, ops
    else:
        assert not written.exists()


# --- what verify and migrate say -------------------------------------------------------------------


def _migrate(path: Path) -> tuple[dict, int]:
    result = invoke("migrate", str(path), "--model", "build", "--input-shape", "x:1x3x5x5", "--format", "json",
                    "--runs", "1", "--warmup", "0", "--backends", "torch-cpu,onnxruntime-cpu")
    [report] = json.loads(result.stdout)["models"]
    return report, result.exit_code


def test_migrate_takes_a_graph_whose_picks_tie_as_faithful_and_says_how_many(tmp_path: Path) -> None:
    path, _ = _model(tmp_path, TIE)
    report, code = _migrate(path)
    assert code == 0, report["remaining"]
    assert report["before"]["faithful"] is True and report["before"]["picks_tied"] > 0
    assert report["remaining"] == []


def test_migrate_keeps_a_graph_whose_picks_differ_between_other_values_unfaithful(tmp_path: Path) -> None:
    path, _ = _model(tmp_path, WRONG)
    report, code = _migrate(path)
    assert code == 1 and report["before"]["faithful"] is False and "picks_tied" not in report["before"]
    assert [r["kind"] for r in report["remaining"]] == ["unfaithful"]


# --- a top-k between tied values ---------------------------------------------------------------------

TOP_K_MODEL = '''\
import torch
from torch import nn


class Peaks(nn.Module):
    """The top 6 of a score map where few scores are not zero: the rest are picked among tied zeros."""

    def forward(self, x):
        scores = torch.relu(x - 2.1).flatten(1)
        best = torch.topk(scores, 6)
        return best.values, (best.indices % x.shape[-1]).float() / x.shape[-1]


def build():
    return Peaks()
'''


def test_top_k_places_that_differ_count_and_only_equal_values_tie() -> None:
    from trtcodemod.verify.picks import tied_top_k

    values = np.array([[0.9, 0.0, 0.0, 0.0, 0.5], [0.1, 0.2, 0.3, 0.4, 0.0]], np.float32)
    graph = np.array([[0, 4, 3, 1], [3, 2, 1, 0]])
    eager = np.array([[0, 4, 1, 2], [3, 2, 0, 1]])  # row 0: zeros in another order; row 1: 0.1 and 0.2 swapped
    assert tied_top_k(values, graph, eager, 1, 1e-5, 1e-5) == (4, 2)
    assert tied_top_k(values, graph, graph, -1, 1e-5, 1e-5) == (0, 0)
    # axis 0, an index out of range: no tie
    assert tied_top_k(values.T, graph.T, np.where(eager.T == 2, 9, eager.T), 0, 1e-5, 1e-5) == (5, 1)


def test_a_top_k_among_tied_zeros_is_replayed_and_one_between_other_values_is_not(tmp_path: Path) -> None:
    """Three scores above zero and a top 6: ONNX Runtime and torch take different zeros (the positions differ,
    the values do not); with eager mode's picks put back, every output is eager mode's."""
    import onnxruntime as ort

    path = tmp_path / "peaks.py"
    path.write_text(TOP_K_MODEL)
    model = import_file(path, "picks_top_k").build().eval()
    x = torch.randn(1, 8, 9, generator=torch.Generator().manual_seed(3))
    onnx_path = tmp_path / "peaks.onnx"
    result = export_model(model, (x,), onnx_path, exporter="torchscript", input_names=["x"],
                          output_names=["values", "where"], dynamic_axes={}, opset=17, user_roots=(str(tmp_path),))
    assert result.error is None and has_arg_nodes(str(onnx_path))
    with torch.no_grad():
        want = [t.numpy() for t in model(x)]
    assert int((want[0] > 0).sum()) == 3
    plain = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"]).run(None, {"x": x.numpy()})
    np.testing.assert_array_equal(plain[0], want[0])
    assert not np.array_equal(plain[1], want[1])  # the tied zeros' positions
    found = replay_picks(model, (x,), ["x"], str(onnx_path), (str(tmp_path),), 1e-5, 1e-5)
    assert found["lines"] == [f"{path.resolve()}:10"] and found["picks"] > 0
    for got, expected in zip(found["outputs"], want):
        np.testing.assert_array_equal(got, expected)
    # Scores that are not tied: a graph that picked them otherwise would be wrong; here it picks as eager.
    y = torch.randn(1, 8, 9, generator=torch.Generator().manual_seed(4)) + 3.0
    assert replay_picks(model, (y,), ["x"], str(onnx_path), (str(tmp_path),), 1e-5, 1e-5) == \
        {"picks": 0, "why": "every arg-max picks and every comparison decides as eager mode does"}


# --- tied top-k picks on every input set of a dynamic axis ---------------------------------------------

KNN_MASK_MODEL = '''\
import torch
from torch import nn


class MaskedNeighbours(nn.Module):
    """Attention over each point's k nearest points, invalid points kept out by a pair mask."""

    def __init__(self, k=4):
        super().__init__()
        torch.manual_seed(0)
        self.k = k
        self.to_v = nn.Linear(4, 4)

    def forward(self, x):
        feats, pos, valid = x[..., :4], x[..., 4:7], x[..., 7] > 0.5
        pair = valid[:, :, None] & valid[:, None, :]
        dist = (pos[:, :, None, :] - pos[:, None, :, :]).norm(dim=-1)
        dist.masked_fill_(~pair, torch.finfo(dist.dtype).max)
        _, near = dist.topk(self.k, dim=-1, largest=False)
        v = self.to_v(feats)[:, None].expand(-1, near.shape[1], -1, -1)
        picked = v.gather(2, near[..., None].expand(-1, -1, -1, v.shape[-1]))
        keep = pair.gather(2, near)
        logits = picked.sum(-1).masked_fill(~keep, -torch.finfo(dist.dtype).max)
        return (logits.softmax(-1)[..., None] * picked).sum(2)


def build():
    return MaskedNeighbours().eval()


def inputs(generator):
    return (torch.rand(2, 12, 8, generator=generator),)
'''


def test_tied_top_k_picks_on_every_input_set_are_replayed_and_migrate_exits_0(tmp_path: Path) -> None:
    """point-transformer-pytorch 0.1.5, ``PointTransformerLayer.forward`` (point_transformer_pytorch.py:79-90,
    zoo 33's ``pt_layer_knn_mask``): the distance of every pair with an invalid point is set to the dtype's
    largest value before ``topk(num_neighbors, largest=False)``, so an invalid point's whole row ties and torch
    and ONNX Runtime take different neighbours there; its output (a mean over the neighbours it took, every
    logit masked alike) follows the picks. Each of the five input sets of a dynamic ``points`` axis has such
    rows: all must be replayed (no more than three were, and the model was "not faithful" on the fourth).
    The reduced model is written here in this project's own words."""
    import onnxruntime as ort

    from support import migrate_json

    path = tmp_path / "knn.py"
    path.write_text(KNN_MASK_MODEL)
    model = import_file(path, "picks_knn_mask").build()
    # Edge values first: an invalid point's row of largest values, and a set with one valid point only.
    x = torch.rand(2, 12, 8, generator=torch.Generator().manual_seed(1))
    x[1, :, 7] = 0.0
    x[1, 5, 7] = 1.0
    onnx_path = tmp_path / "knn.onnx"
    result = export_model(model, (x,), onnx_path, exporter="torchscript", input_names=["x"], output_names=["out"],
                          dynamic_axes={"x": {0: "batch", 1: "points"}}, opset=17, user_roots=(str(tmp_path),))
    assert result.error is None
    with torch.no_grad():
        want = model(x).numpy()
    plain = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"]).run(None, {"x": x.numpy()})[0]
    assert np.isfinite(want).all() and not np.allclose(plain, want, atol=1e-5, rtol=1e-5)  # tie order decides
    found = replay_picks(model, (x,), ["x"], str(onnx_path), (str(tmp_path),), 1e-5, 1e-5)
    assert found["picks"] > 0 and found["lines"] == [f"{path.resolve()}:19"]
    np.testing.assert_allclose(found["outputs"][0], want, atol=1e-5, rtol=1e-5)

    report = migrate_json(path, '{"x": {"0": "batch", "1": "points"}}')
    assert report["exit_code"] == 0, report["remaining"]
    assert report["before"]["faithful"] is True and report["before"]["picks_tied"] > 0
    assert len(report["facts"]["inputs"]["x"]["shapes"]) > 3  # more sets than the three once replayed
    assert [r for r in report["remaining"] if r["severity"] == "error"] == []


# --- a comparison between near-tied values: a peak test's mask ------------------------------------------

PEAK_MODEL = '''\
import torch
from torch import nn
from torch.nn import functional as F

NUDGE = {nudge}


class Nudge(torch.autograd.Function):
    """Eager: the identity. Graph: cell (2, 3) raised by NUDGE (another backend's rounding)."""

    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def symbolic(g, x):
        bump = torch.zeros(1, 1, 6, 6)
        bump[0, 0, 2, 3] = NUDGE
        return g.op("Add", x, g.op("Constant", value_t=bump))


class Decode(nn.Module):
    def forward(self, x):
        heat = Nudge.apply(torch.sigmoid(x))
        keep = F.max_pool2d(heat, kernel_size=3, stride=1, padding=1) == heat
        peaks = heat * keep
        n, c, h, w = peaks.shape
        score, index = peaks.reshape(n, -1).topk(5)
        cell = index % (h * w)
        return torch.stack([score, (cell // w).float(), (cell % w).float()], -1)


def build():
    return Decode()


def inputs(generator):
    x = torch.rand(1, 1, 6, 6, generator=generator)
    x[0, 0, 2, 2] = x[0, 0, 2, 3] = 2.0  # two neighbours that tie: both peaks in eager mode
    return (x,)
'''


def _peak_model(tmp_path: Path, nudge: float) -> tuple[Path, torch.nn.Module]:
    path = tmp_path / "peaks_decode.py"
    path.write_text(PEAK_MODEL.format(nudge=nudge))
    return path, import_file(path, f"picks_peaks_{str(nudge).replace('.', '_').replace('-', '_')}").build().eval()


def test_a_comparison_flips_only_where_its_operands_tie_in_both_runs() -> None:
    from trtcodemod.verify.picks import tied_comparison

    heat = np.array([[0.5, 0.5 + 1e-7, 0.3, 0.9]])
    pooled_graph = np.array([[0.5 + 1e-7, 0.5 + 1e-7, 0.9, 0.9]])
    pooled_eager = np.array([[0.5, 0.5, 0.9, 0.9]])
    graph_mask, eager_mask = pooled_graph == heat, pooled_eager == heat  # F T F T and T F F T: a near-tie
    assert tied_comparison(graph_mask, eager_mask, (pooled_graph, heat), (pooled_eager, heat), 1e-5, 1e-5) == (2, 2)
    assert tied_comparison(graph_mask, graph_mask, (pooled_graph, heat), (pooled_eager, heat), 1e-5, 1e-5) == (0, 0)
    # Place 2 kept by the graph: 0.9 against 0.3 is no tie.
    wrong = np.array([[False, True, True, True]])
    assert tied_comparison(wrong, eager_mask, (pooled_graph, heat), (pooled_eager, heat), 1e-5, 1e-5) == (3, 2)
    # A pooling exported as the identity: the graph's operands are equal everywhere, eager mode's are not at 2.
    assert tied_comparison(np.ones((1, 4), bool), eager_mask, (heat, heat), (pooled_eager, heat), 1e-5, 1e-5) == (2, 1)
    # inf against inf is no number within any tolerance; a scalar operand broadcasts.
    inf = np.array([np.inf, 1.0])
    both = (inf, np.array([np.inf, 2.0]))
    assert tied_comparison(np.array([True, False]), np.array([False, False]), both, both, 1e-5, 1e-5) == (1, 0)
    assert tied_comparison(np.array([False, True]), np.array([False, False]), (inf, 1.0), (inf, 1.0), 1e-5, 1e-5) \
        == (1, 1)


def test_a_value_compared_with_zero_ties_at_its_tensors_scale() -> None:
    """lucid_yolo 0.x (thirty-fourth zoo) thresholds mask logits whose root mean square is some tens at zero:
    the graph within 0.016 of eager mode everywhere, five cells a few thousandths either side of zero. A tie is
    measured at the operands' scale, so a cell 0.003 from zero among values of 100 ties, and one among values
    of 1 does not; a cell 5.0 from zero is no tie at either scale."""
    from trtcodemod.verify.picks import tied_comparison

    for scale, near, far in ((100.0, 1, 0), (1.0, 0, 0)):
        logits_graph = np.array([0.003, -5.0, scale, -scale])
        logits_eager = np.array([-0.002, 5.0, scale, -scale])
        got = tied_comparison(logits_graph > 0, logits_eager > 0, (logits_graph, 0.0), (logits_eager, 0.0),
                              1e-4, 1e-3)
        assert got == (2, near + far), scale


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_peak_test_that_rounding_decided_is_replayed_and_gives_eager_outputs(tmp_path: Path, seed: int) -> None:
    """centernet_ilvo 0.0.1.post1 (thirty-sixth zoo, ``cn_resnet34_topk``): the user's decode keeps a cell as a
    peak where ``max_pool2d(heat, 3, 1, 1) == heat``, then takes the top 20 of ``heat * peak``. A cell and its
    neighbour 1.2e-6 apart in eager mode (0.68215674 against 0.68215793) came out 3.9e-6 apart the other way
    round in the graph: the graph kept the cell as a peak, eager mode did not, and every row of the top 20
    after it moved down one place (24 of 160 elements). Here two neighbours tie exactly in eager mode (both
    peaks) and the graph raises one by a float32 step: the replay puts back eager mode's mask, then its top-k
    picks, and the outputs are eager mode's. The reduced model is written in this project's own words."""
    import onnxruntime as ort

    path, model = _peak_model(tmp_path, TIE)
    module = import_file(path, f"picks_peaks_inputs_{seed}")
    (x,) = module.inputs(torch.Generator().manual_seed(seed))
    onnx_path = tmp_path / "peaks.onnx"
    result = export_model(model, (x,), onnx_path, exporter="torchscript", input_names=["x"], output_names=["out"],
                          dynamic_axes={}, opset=17, user_roots=(str(tmp_path),))
    assert result.error is None and has_arg_nodes(str(onnx_path))
    with torch.no_grad():
        want = model(x).numpy()
    plain = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"]).run(None, {"x": x.numpy()})[0]
    assert not np.allclose(plain, want, atol=1e-5, rtol=1e-5)  # the graph lost a peak: rows moved
    found = replay_picks(model, (x,), ["x"], str(onnx_path), (str(tmp_path),), 1e-5, 1e-5)
    assert f"{path.resolve()}:25" in found["lines"] and found["picks"] > 0
    np.testing.assert_allclose(found["outputs"][0], want, atol=1e-5, rtol=1e-5)


def test_a_peak_test_that_a_wrong_graph_decided_is_not_replayed(tmp_path: Path) -> None:
    path, model = _peak_model(tmp_path, 0.05)
    (x,) = import_file(path, "picks_peaks_wrong_inputs").inputs(torch.Generator().manual_seed(0))
    onnx_path = tmp_path / "peaks.onnx"
    assert export_model(model, (x,), onnx_path, exporter="torchscript", input_names=["x"], output_names=["out"],
                        dynamic_axes={}, opset=17, user_roots=(str(tmp_path),)).error is None
    found = replay_picks(model, (x,), ["x"], str(onnx_path), (str(tmp_path),), 1e-5, 1e-5)
    assert found["picks"] == 0 and "outputs" not in found
    # The mask is left as the graph computed it, and the top-k after it then picks other values.
    assert found["why"].startswith("TopK at ") and "where its values do not tie" in found["why"]


@pytest.mark.parametrize("nudge", [TIE, 0.05])
def test_migrate_takes_a_peak_test_decided_by_rounding_as_faithful_and_a_wrong_one_not(tmp_path: Path,
                                                                                       nudge: float) -> None:
    from support import migrate_json

    path, _ = _peak_model(tmp_path, nudge)
    report = migrate_json(path, "{}")
    if nudge == TIE:
        assert report["exit_code"] == 0, report["remaining"]
        assert report["before"]["faithful"] is True and report["before"]["picks_tied"] > 0
    else:
        assert report["exit_code"] == 1 and report["before"]["faithful"] is False
        assert "picks_tied" not in report["before"]
