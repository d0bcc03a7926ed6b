"""``--unordered``: rows compared as a set per batch element, and names checked against the model's outputs."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from trtcodemod.cli import app
from trtcodemod.verify.compare import compare_outputs
from trtcodemod.verify.spec import SpecError, build_spec
from trtcodemod.verify.unordered import (UnorderedError, linked, match_all, matched_rows, order_all, order_rows,
                                         parse, resolve)

FAST = ["--runs", "1", "--warmup", "0", "--backends", "torch-cpu", "--format", "json"]


def _equal(expected: np.ndarray, actual: np.ndarray, axis: int | None = None) -> bool:
    if axis is not None:
        expected, actual = order_rows(expected, axis), order_rows(actual, axis)
    return compare_outputs(["output"], [expected], [actual], 1e-4, 1e-3)[0].passed


def _detections() -> np.ndarray:
    """(batch 2, 4 rows, 6): box, score, class, with zeros, negatives, a tie, inf and NaN."""
    dets = np.random.default_rng(0).normal(size=(2, 4, 6)).astype(np.float32)
    dets[0, 1] = 0.0
    dets[0, 2, 4] = dets[0, 3, 4]  # tied scores
    dets[1, 0] = -dets[1, 0]
    dets[1, 2, 0] = np.inf
    dets[1, 3, 1] = np.nan
    return dets


# --- the row axis ---------------------------------------------------------------------------


def test_rows_permuted_within_each_batch_element_compare_equal() -> None:
    dets = _detections()
    permuted = np.stack([dets[0, [2, 0, 3, 1]], dets[1, [3, 2, 1, 0]]])
    assert not _equal(dets, permuted)
    # Axis 0 (what every output got before): the batch elements are sorted, not their rows.
    assert not _equal(dets, permuted, axis=0)
    assert _equal(dets, permuted, axis=1)


def test_a_changed_value_stays_unequal_as_a_set() -> None:
    dets = _detections()
    permuted = dets[:, ::-1].copy()
    permuted[1, 1, 2] += 0.5
    assert not _equal(dets, permuted, axis=1)


def test_rows_never_move_between_batch_elements() -> None:
    dets = _detections()
    swapped = dets[::-1].copy()  # the same rows, in the other batch element
    assert not _equal(dets, swapped, axis=1)


def test_rank_1_and_2_sort_axis_0_and_empty_or_scalar_stay_as_they_are() -> None:
    rows = np.array([[0.9, 1.0, 2.0], [0.9, 0.0, 1.0], [-0.5, 3.0, 3.0]], dtype=np.float32)
    assert _equal(rows, rows[[2, 0, 1]], axis=0)
    assert _equal(np.array([3, -1, 0]), np.array([0, 3, -1]), axis=0)
    empty = np.zeros((2, 0, 6), dtype=np.float32)
    assert order_rows(empty, 1).shape == (2, 0, 6)
    assert order_rows(np.float32(3.0), 0) == np.float32(3.0)


def _paired_equal(expected: np.ndarray, actual: np.ndarray, axis: int) -> bool:
    expected, actual = order_rows(expected, axis), order_rows(actual, axis)
    return compare_outputs(["output"], [expected], [matched_rows(expected, actual, axis, 1e-4, 1e-3)],
                           1e-4, 1e-3)[0].passed


def test_rows_that_sort_apart_by_rounding_alone_are_paired_again() -> None:
    # Two boxes whose first coordinates lie within the tolerance of each other, one side rounding them the
    # other way (a graph's kernels against eager mode): sorted, each side puts a different box first.
    boxes = np.array([[[100.0, 5.0, 140.0, 60.0, 0.9], [100.02, 300.0, 180.0, 400.0, 0.4],
                       [0.0, 0.0, 0.0, 0.0, 0.0], [-3.0, -7.5, 1.0, 2.0, 0.1]]], dtype=np.float32)
    graph = boxes[:, ::-1].copy()
    graph[0, 3, 0] = 100.03  # the first box's x1, rounded past the second's (within rtol 1e-3 of 100)
    assert not _equal(boxes, graph, axis=1)  # sorting alone misaligns them
    assert _paired_equal(boxes, graph, axis=1)
    assert not _paired_equal(boxes, graph + np.float32(0.5), axis=1)  # a real difference stays one


def test_pairing_keeps_sets_apart_and_edge_values() -> None:
    dets = _detections()
    assert _paired_equal(dets, dets[:, [3, 1, 0, 2]], axis=1)  # inf and NaN rows pair with themselves
    assert not _paired_equal(dets, dets[::-1].copy(), axis=1)  # never across batch elements
    one_missing = dets.copy()
    one_missing[0, 0] = one_missing[0, 1]  # a row twice, another gone: no one-to-one pairing
    assert not _paired_equal(dets, one_missing, axis=1)
    empty = np.zeros((2, 0, 6), dtype=np.float32)
    assert matched_rows(empty, empty, 1, 1e-4, 1e-3).shape == (2, 0, 6)
    assert matched_rows(dets, dets[:, :3], 1, 1e-4, 1e-3).shape == (2, 3, 6)  # shapes differ: as it was
    ints = np.array([[3, 1], [2, 2], [3, 0]])
    assert np.array_equal(matched_rows(order_rows(ints, 0), order_rows(ints[::-1], 0), 0, 0, 0), order_rows(ints, 0))


def test_thousands_of_rows_pair_at_the_cost_of_the_displaced_ones() -> None:
    # 3,000 text cells of 15 values (quad, box, score, image): 135M pairwise comparisons, past what pairing every
    # row with every row may cost; the graph's rounding sorts a few neighbours the other way round.
    rng = np.random.default_rng(5)
    cells = rng.uniform(-50, 500, size=(3000, 15)).astype(np.float32)
    cells[:, 0] = rng.uniform(100, 500, size=3000)  # the sort's first key: x of the first corner
    cells[10, 1:] = 0.0
    cells[11, 1:5] = -cells[11, 1:5]
    graph = cells.copy()
    order = np.argsort(cells[:, 0])
    near = np.flatnonzero(np.diff(cells[order, 0]) < 2e-2)
    near = near[np.diff(near, prepend=-2) > 1][:40]  # pairs of neighbours that share no row
    assert near.size >= 5
    for t in near:  # the first of two near neighbours rounded just past the second, within rtol 1e-3
        graph[order[t], 0] = cells[order[t + 1], 0] + np.float32(1e-3)
    assert not _equal(cells, graph, axis=0)
    assert _paired_equal(cells, graph, axis=0)
    wrong = graph.copy()
    wrong[100, 5] += 1.0
    assert not _paired_equal(cells, wrong, axis=0)


def test_rows_beyond_the_tolerance_pair_nearest_for_the_float64_run_to_judge() -> None:
    # Quads whose corners the graph rounds 0.013 px otherwise than eager mode (outside atol 1e-4 and rtol 1e-3 of
    # values near 1) where eager mode itself is as far from float64: sorted alone they meet other rows' corners.
    rng = np.random.default_rng(6)
    rows = rng.uniform(0, 2, size=(40, 4)).astype(np.float32)
    rows[:, 0] = np.linspace(1.0, 1.156, 40)  # first corners 0.004 apart: 0.01 moves a row past two others
    graph, exact = rows.copy(), rows.astype(np.float64)
    graph[0::6] += np.float32(0.013)  # past their neighbours in the sort, and past each other
    graph[3::6] -= np.float32(0.013)
    exact[0::6] += 0.013  # float64 agrees with the graph: eager float32 rounded the other way
    exact[3::6] -= 0.013
    labels, axes = ["output"], {"output": 0}
    expected = order_all(labels, [rows], axes)[0]
    paired = match_all(labels, [expected], order_all(labels, [graph[::-1]], axes), axes, 1e-4, 1e-3)[0]
    # each row beside its own (filled in sorted order, rows 0.013 apart met rows a whole value apart, and a
    # float64 run paired the same way then "agreed" with them)
    assert np.abs(paired - expected).max() < 0.02
    assert _set_compare(labels, [rows], [graph[::-1]], axes) == [False]
    assert _set_compare(labels, [rows], [graph[::-1]], axes, [exact]) == [True]
    far = graph.copy()
    far[3] += np.float32(0.5)  # a row float64 does not back
    assert _set_compare(labels, [rows], [far[::-1]], axes, [exact]) == [False]
    # a row twice and another missing still fails, with or without float64
    twice = graph.copy()
    twice[0] = twice[1]
    assert _set_compare(labels, [rows], [twice], axes, [exact]) == [False]


def _boxes_and_masks(rows: int = 6) -> tuple[np.ndarray, np.ndarray]:
    """A detector's rows ``(rows, 6)`` and their 0/1 masks ``(rows, 8, 8)``; one box of zeros, one negative."""
    rng = np.random.default_rng(3)
    boxes = rng.uniform(0, 300, size=(rows, 6)).astype(np.float32)
    boxes[1] = 0.0
    boxes[2, :4] = -boxes[2, :4]
    masks = (rng.uniform(size=(rows, 8, 8)) > 0.5).astype(np.float32)
    return boxes, masks


def _set_compare(labels: list[str], expected: list[np.ndarray], actual: list[np.ndarray],
                 axes: dict[str, int], exact: list[np.ndarray] | None = None) -> list[bool]:
    expected, actual = order_all(labels, expected, axes), order_all(labels, actual, axes)
    actual = match_all(labels, expected, actual, axes, 1e-4, 1e-3)
    exact = order_all(labels, exact, axes) if exact is not None else None
    if exact is not None:
        exact = match_all(labels, expected, exact, axes, 1e-4, 1e-3)
    return [c.passed for c in compare_outputs(labels, expected, actual, 1e-4, 1e-3, exact)]


def test_a_mask_output_moves_with_its_boxes_rows() -> None:
    # The graph gives eager mode's rows in another order, one mask with a pixel flipped at its threshold:
    # sorted each by its own content, that mask sorts elsewhere and meets another row's mask.
    boxes, masks = _boxes_and_masks()
    order = [4, 0, 5, 2, 1, 3]
    g_boxes, g_masks = boxes[order], masks[order].copy()
    for row in range(6):
        g_masks[row, 0, 0] = 1.0 - g_masks[row, 0, 0]
    labels, axes = ["output.0", "output.1"], {"output.0": 0, "output.1": 0}
    assert linked(labels, [masks, boxes], {"output.0": 0, "output.1": 0}) == [[1, 0]]  # the boxes lead
    sorted_apart = order_rows(masks, 0), order_rows(g_masks, 0)
    assert np.abs(sorted_apart[0] - sorted_apart[1]).sum() > 6  # the old way: masks of other rows meet
    moved = match_all(labels, order_all(labels, [boxes, masks], axes), order_all(labels, [g_boxes, g_masks], axes),
                      axes, 1e-4, 1e-3)
    expected = order_all(labels, [boxes, masks], axes)
    assert np.array_equal(moved[0], expected[0])
    assert np.abs(moved[1] - expected[1]).sum() == 6  # only the flipped pixels differ: each mask beside its box
    # a float64 run whose masks cross the threshold as the graph's do admits the flips; without it they fail
    assert _set_compare(labels, [boxes, masks], [g_boxes, g_masks], axes) == [True, False]
    exact = [boxes.astype(np.float64), masks.astype(np.float64)]
    exact[1][:, 0, 0] = 1.0 - masks[:, 0, 0]  # eager float32 misses it at each flip, the graph at none
    assert all(_set_compare(labels, [boxes, masks], [g_boxes, g_masks], axes, exact))


def test_linked_rows_keep_a_real_difference_and_sets_apart() -> None:
    boxes, masks = _boxes_and_masks()
    labels, axes = ["output.0", "output.1"], {"output.0": 0, "output.1": 0}
    swapped = masks.copy()
    swapped[[0, 3]] = swapped[[3, 0]]  # each mask with another row's box: the same masks as a set, not as rows
    assert _set_compare(labels, [boxes, masks], [boxes, swapped], axes) == [True, False]
    assert all(_set_compare(labels, [boxes, masks], [boxes[::-1], masks[::-1]], axes))
    # batched rows never leave their image; an empty set and outputs of other row counts stay as they are
    b_boxes, b_masks = np.stack([boxes, boxes + 1]), np.stack([masks, 1 - masks])
    b_axes = {"output.0": 1, "output.1": 1}
    assert all(_set_compare(labels, [b_boxes, b_masks], [b_boxes[:, ::-1], b_masks[:, ::-1]], b_axes))
    assert not all(_set_compare(labels, [b_boxes, b_masks], [b_boxes[::-1], b_masks[::-1]], b_axes))
    assert linked(labels, [boxes, masks[:5]], axes) == [[0], [1]]
    empty = [np.zeros((0, 6), np.float32), np.zeros((0, 8, 8), np.float32)]
    assert linked(labels, empty, axes) == []
    assert [a.shape for a in match_all(labels, empty, empty, axes, 1e-4, 1e-3)] == [(0, 6), (0, 8, 8)]
    with_nan = boxes.copy()
    with_nan[4, 4] = np.nan
    with_nan[5, 0] = np.inf
    assert all(_set_compare(labels, [with_nan, masks], [with_nan[::-1], masks[::-1]], axes))


# --- names and axes -------------------------------------------------------------------------


def test_parse_reads_an_axis_only_from_an_integer_suffix() -> None:
    assert parse("output") == ("output", None)
    assert parse("output.0:1") == ("output.0", 1)
    assert parse("output.a:b") == ("output.a:b", None)
    with pytest.raises(UnorderedError):
        parse(":1")


def test_resolve_gives_rank_3_and_up_the_batch_axis() -> None:
    arrays = [np.zeros((1, 20, 6)), np.zeros((20, 6)), np.zeros((1, 20, 6))]
    names = ["output.0", "output.1", "output.2"]
    assert resolve(["output.0", "output.1", "output.2:0"], names, arrays) == {"output.0": 1, "output.1": 0,
                                                                             "output.2": 0}
    with pytest.raises(UnorderedError, match=r"shape \[20, 6\]: no axis 2"):
        resolve(["output.1:2"], names, arrays)


def test_an_unknown_name_lists_the_outputs_the_model_has() -> None:
    with pytest.raises(UnorderedError) as info:
        resolve(["output.0"], ["output"], [np.zeros((1, 20, 6))])
    message = str(info.value)
    assert "no output named 'output.0'" in message and "output [1, 20, 6]" in message
    assert "a single output, named 'output'" in message
    with pytest.raises(UnorderedError, match="the model's outputs: output.boxes"):
        resolve(["boxes"], ["output.boxes", "output.scores"], [np.zeros((3, 4)), np.zeros(3)])


def test_a_malformed_or_repeated_entry_is_a_spec_error(tmp_path: Path) -> None:
    model = tmp_path / "m.py"
    model.write_text("x = 1\n")
    base = {"model_file": str(model), "model": "Net", "input_shape": ["x:1x3"]}
    with pytest.raises(SpecError, match="--unordered: 'output' is named twice"):
        build_spec({**base, "unordered": ["output", "output:1"]})
    with pytest.raises(SpecError, match="expected NAME or NAME:AXIS"):
        build_spec({**base, "unordered": [":0"]})


# --- end to end: the verdict, and the error where the name is given ----------------------------


DETS_MODEL = '''
import torch
from torch import nn


class Dets(nn.Module):
    """Rows per batch element; the exported graph returns each element's rows reversed."""

    def __init__(self, shift=0.0):
        super().__init__()
        self.shift = shift

    def forward(self, x):
        rows = x * 2.0
        # Traced by either exporter, not asked `torch.onnx.is_in_onnx_export()`: a model that asks
        # that is compared with its export branch (verify/exportbranch.py).
        if torch.jit.is_tracing() or torch.compiler.is_exporting():
            rows = rows.flip(1)
            # A value the graph changes (shift != 0): a set of rows that is not the same set.
            rows = torch.cat([rows[:, :1] + self.shift, rows[:, 1:]], 1)
        return rows


def inputs(generator):
    x = torch.randn(2, 4, 6, generator=generator)
    x[0, 1] = 0.0
    x[1, 0] = -x[1, 0].abs()
    x[1, 2, 0] = float("inf")
    x[1, 3, 1] = float("nan")
    return (x,)
'''


def _verify(*args: str) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(app, ["verify", *args, *FAST])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, json.loads(result.stdout)


@pytest.fixture()
def dets(tmp_path: Path) -> Path:
    path = tmp_path / "dets.py"
    path.write_text(DETS_MODEL)
    return path


def test_batched_rows_compared_as_a_set_make_the_verdict_equal(dets: Path) -> None:
    _, in_order = _verify(str(dets), "--model", "Dets", "--inputs", "inputs")
    assert in_order["equivalent"] is False and in_order["export_faithful"]["before"] is False
    _, as_set = _verify(str(dets), "--model", "Dets", "--inputs", "inputs", "--unordered", "output")
    assert as_set["model"]["unordered"] == {"output": 1}
    assert as_set["equivalent"] is True and as_set["export_faithful"]["before"] is True
    _, changed = _verify(str(dets), "--model", "Dets(0.5)", "--inputs", "inputs", "--unordered", "output")
    assert changed["equivalent"] is False and changed["export_faithful"]["before"] is False


def test_an_unknown_name_on_the_command_line_exits_2(dets: Path) -> None:
    code, report = _verify(str(dets), "--model", "Dets", "--inputs", "inputs", "--unordered", "output.0")
    assert code == 2 and report["exit_code"] == 2
    assert report["error"].startswith("--unordered: no output named 'output.0'")
    assert "the model's outputs: output [2, 4, 6]" in report["error"]
    assert report["backends"] == []  # nothing was compared


def test_an_unknown_name_in_a_config_names_the_file_and_the_model(dets: Path, tmp_path: Path) -> None:
    config = tmp_path / "zoo.toml"
    config.write_text(textwrap.dedent('''\
        [models.dets]
        model_file = "dets.py"
        model = "Dets"
        inputs = "inputs"
        unordered = ["output.0"]
        '''))
    code, data = _verify("--config", str(config), "--no-cache")
    report = data["models"][0]
    assert code == 2 and report["exit_code"] == 2
    assert report["error"].startswith(f"{config}: model 'dets': unordered: no output named 'output.0'")


def test_migrate_stops_at_an_unknown_name_before_comparing(dets: Path) -> None:
    result = CliRunner().invoke(app, ["migrate", str(dets), "--model", "Dets", "--inputs", "inputs",
                                      "--unordered", "output.0", *FAST])
    report = json.loads(result.stdout)["models"][0]
    assert result.exit_code == 2 and report["exit_code"] == 2
    assert report["error"].startswith("--unordered: no output named 'output.0'")
    assert report["before"] is None and report["applied"] == []


def test_unordered_with_a_contract_is_refused_not_ignored(dets: Path, tmp_path: Path) -> None:
    contract = tmp_path / "contract.json"
    contract.write_text("{}")
    result = CliRunner().invoke(app, ["verify", str(dets), "--model", "Dets", "--inputs", "inputs",
                                      "--contract", str(contract), "--unordered", "output"])
    assert result.exit_code == 2
    assert "--unordered is not supported with --contract" in result.stderr
