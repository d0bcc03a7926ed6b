"""Neighbouring rows that rounding orders (``verify.ties``): traded back only with the float64 run's evidence.

A DETR-family detector keeps the top 300 of its encoder's scores in order and every output row
follows it. Scores closer than float32's own error of them come out in an order rounding picks:
eager float32, its float64 run and ONNX Runtime trade such neighbours' places (DEIMv2, tenth zoo:
eager and float64 at rows 25/26, 47/48, ...; ONNX Runtime at 275/276 too).
"""

from __future__ import annotations

import numpy as np

from trtcodemod.verify.compare import compare_outputs
from trtcodemod.verify.ties import traded_rows

ATOL, RTOL = 1e-4, 1e-3


def _detector(rows: int = 12, batch: int = 1, seed: int = 0) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Eager float32 logits ``(batch, rows, 3)`` and boxes ``(batch, rows, 4)``, and their float64 run:
    rounded apart by ~3e-5, rows 2 and 3 in the other order in float64 (a near-tie)."""
    rng = np.random.default_rng(seed)
    logits, boxes = rng.normal(size=(batch, rows, 3)) * 2, rng.uniform(size=(batch, rows, 4))
    exact = [logits.copy(), boxes.copy()]
    for a in exact:
        a[:, [2, 3]] = a[:, [3, 2]]
    eager = [(a + rng.normal(scale=3e-5, size=a.shape)).astype(np.float32) for a in (logits, boxes)]
    return eager, exact


def _swap(arrays: list[np.ndarray], i: int, j: int, outputs: tuple[int, ...] = (0, 1), b: int = 0) -> list[np.ndarray]:
    out = [a.copy() for a in arrays]
    for k in outputs:
        out[k][b, [i, j]] = out[k][b, [j, i]]
    return out


def _passes(expected, actual, exact) -> bool:
    return all(c.passed for c in compare_outputs(["output.0", "output.1"], expected, actual, ATOL, RTOL, exact))


def test_neighbours_traded_in_every_output_are_put_back_with_the_float64_evidence() -> None:
    eager, exact = _detector()
    graph = _swap(eager, 8, 9)
    assert not _passes(eager, graph, exact)
    traded = traded_rows(eager, graph, exact, ATOL, RTOL)
    assert traded is not None and traded[2] == 2
    assert _passes(eager, traded[0], traded[1])
    # The float64 rows come back in eager mode's order too: rows 2 and 3 traded back.
    np.testing.assert_array_equal(traded[1][0][0, 2], exact[0][0, 3])
    np.testing.assert_array_equal(traded[0][1], eager[1])  # the rows themselves, not values made up
    # One row between the traded two, or three rows in a cycle (three near-equal scores), still are.
    assert traded_rows(eager, _swap(eager, 8, 10), exact, ATOL, RTOL) is not None
    cycle = [a.copy() for a in eager]
    for a in cycle:
        a[0, [5, 6, 7]] = a[0, [6, 7, 5]]
    assert traded_rows(eager, cycle, exact, ATOL, RTOL)[2] == 3


def test_without_the_float64_run_trading_places_too_nothing_is_traded() -> None:
    eager, exact = _detector()
    for a in exact:
        a[:, [2, 3]] = a[:, [3, 2]]  # float64 back in eager mode's order: no evidence of a tie
    assert traded_rows(eager, _swap(eager, 8, 9), exact, ATOL, RTOL) is None
    assert traded_rows(eager, _swap(eager, 8, 9), None, ATOL, RTOL) is None


def test_rows_moved_further_one_output_alone_or_other_values_stay_failures() -> None:
    eager, exact = _detector()
    assert traded_rows(eager, _swap(eager, 4, 9), exact, ATOL, RTOL) is None  # five apart: not a neighbour
    assert traded_rows(eager, _swap(eager, 8, 9, outputs=(1,)), exact, ATOL, RTOL) is None  # boxes alone
    wrong = _swap(eager, 8, 9)
    wrong[0][0, 5, 1] += 0.05  # a value computed otherwise beside the trade
    assert traded_rows(eager, wrong, exact, ATOL, RTOL) is None
    reversed_rows = [a[:, ::-1].copy() for a in eager]  # an order turned around is no near-tie
    assert traded_rows(eager, reversed_rows, exact, ATOL, RTOL) is None


def test_each_batch_element_trades_its_own_rows_and_sets_are_left_to_the_sorted_comparison() -> None:
    eager, exact = _detector(batch=2, seed=1)
    graph = _swap(_swap(eager, 0, 1, b=1), 6, 7, b=0)
    traded = traded_rows(eager, graph, exact, ATOL, RTOL)
    assert traded is not None and traded[2] == 4 and _passes(eager, traded[0], traded[1])
    # An output compared as a set already (``unordered``) is left as it came; the others still trade.
    alone = traded_rows(eager, graph, exact, ATOL, RTOL, skip={1})
    assert alone is not None
    np.testing.assert_array_equal(alone[0][0], eager[0])
    np.testing.assert_array_equal(alone[0][1], graph[1])
    assert traded_rows(eager, graph, exact, ATOL, RTOL, skip={0, 1}) is None


def test_scalars_vectors_empty_and_mismatched_shapes_are_not_rows() -> None:
    eager, exact = _detector()
    vector = [np.arange(12, dtype=np.float32)]
    assert traded_rows(vector, [vector[0][::-1].copy()], [vector[0].astype(np.float64)], ATOL, RTOL) is None
    empty = [np.zeros((1, 0, 3), np.float32)]
    assert traded_rows(empty, empty, [np.zeros((1, 0, 3))], ATOL, RTOL) is None
    short = [eager[0][:, :6], _swap(eager, 8, 9)[1]]
    assert traded_rows(eager, short, exact, ATOL, RTOL) is None  # the group's outputs must all be there
    assert traded_rows(eager, _swap(eager, 8, 9), exact[:1], ATOL, RTOL) is None


def test_a_set_s_comparison_trades_rows_back_and_counts_them_only_with_the_evidence() -> None:
    # verify.run._compare_run, as the faithfulness and equivalence checks call it, with the
    # reference side's float64 run already at hand (SideResult.exact).
    from types import SimpleNamespace

    from trtcodemod.verify.backends import OK, BackendRun
    from trtcodemod.verify.run import SideResult, _compare_run
    from trtcodemod.verify.worker import TaskOutcome

    eager, exact = _detector()
    graph = _swap(eager, 8, 9)
    ctx = SimpleNamespace(spec=SimpleNamespace(atol=ATOL, rtol=RTOL), row_axes={}, input_sets=[{}])
    names = ["output.0", "output.1"]

    def compare(float64: list[np.ndarray]) -> list:
        owner = SideResult("before", TaskOutcome("ok", {}), exact=[[float64]])
        _, per_set = _compare_run(ctx, names, BackendRun(OK, outputs=[eager]), BackendRun(OK, outputs=[graph]), owner)
        return per_set[0]

    traded = compare(exact)
    assert all(c.passed for c in traded) and [c.rows_traded for c in traded] == [2, 2]
    in_order = [a.copy() for a in exact]
    for a in in_order:
        a[:, [2, 3]] = a[:, [3, 2]]
    failed = compare(in_order)  # float64 in eager mode's order: the trade is the graph's, a failure
    assert not any(c.passed for c in failed) and [c.rows_traded for c in failed] == [0, 0]
    assert failed[0].problem.startswith("set 1: 6 of 36 element(s) outside atol/rtol")


# --- rows sorted by a key of their own: ties within the tolerance trade at any distance -----------


def _peaks(scores: np.ndarray, seed: int = 0) -> np.ndarray:
    """A top-k decoder's rows ``(batch, k, 6)``: a box, a class, then the score the rows are sorted by."""
    rng = np.random.default_rng(seed)
    batch, k = scores.shape
    boxes = rng.uniform(0, 128, size=(batch, k, 4))
    classes = rng.integers(0, 20, size=(batch, k, 1)).astype(np.float64)
    return np.concatenate([boxes, classes, scores[..., None]], axis=-1)


def _saturated(batch: int = 1, k: int = 12) -> np.ndarray:
    """Real float32 sigmoid scores of large logits, sorted by torch.topk: 1.0 exactly, 0.99999994,
    ... a few float32 steps apart (CenterNet's heatmap peaks on random weights)."""
    import torch

    logits = torch.linspace(20.0, 13.0, steps=batch * k, dtype=torch.float32).reshape(batch, k)
    scores, _ = torch.sigmoid(logits).topk(k, dim=1)
    return scores.numpy().astype(np.float64)


def _reordered(rows: np.ndarray, order: list[int], b: int = 0) -> np.ndarray:
    out = rows.copy()
    out[b] = rows[b, order]
    return out


def test_rows_whose_keys_tie_within_the_tolerance_trade_at_any_distance() -> None:
    scores = _saturated()
    assert scores[0, 0] == 1.0 and scores[0, 0] == scores[0, 1] and (scores.max() - scores.min()) < ATOL
    exact = _peaks(scores)
    eager = exact.astype(np.float32)
    order = [5, 1, 2, 3, 4, 0, 11, 7, 8, 9, 10, 6]  # rows 0 and 5, 6 and 11 traded: further than REACH
    graph = _reordered(eager, order)
    assert not _passes1(eager, graph, exact)
    traded = traded_rows([eager], [graph], [exact], ATOL, RTOL)
    assert traded is not None and traded[2] == 4
    assert _passes1(eager, traded[0][0], traded[1][0])
    np.testing.assert_array_equal(traded[0][0], eager)  # the graph's own rows, put back in eager's order
    # float64 in another order of the tied rows, too: still the same rows.
    assert traded_rows([eager], [graph], [_reordered(exact, [1, 0, *range(2, 12)])], ATOL, RTOL) is not None
    # A batch of two: each element trades its own tied rows.
    scores2 = _saturated(batch=2, k=6)
    eager2 = _peaks(scores2, seed=3).astype(np.float32)
    graph2 = _reordered(_reordered(eager2, [3, 1, 2, 0, 4, 5], b=0), [0, 5, 2, 3, 4, 1], b=1)
    traded2 = traded_rows([eager2], [graph2], [eager2.astype(np.float64)], ATOL, RTOL)
    assert traded2 is not None and traded2[2] == 4  # two rows moved in each batch element
    np.testing.assert_array_equal(traded2[0][0], eager2)


def _passes1(expected, actual, exact) -> bool:
    return all(c.passed for c in compare_outputs(["output"], [expected], [actual], ATOL, RTOL, [exact]))


def test_keys_apart_a_changed_row_a_constant_or_unsorted_column_trade_nothing() -> None:
    spread = np.linspace(0.99, 0.5, 12)[None]  # sorted scores, each beyond the tolerance of the next
    exact = _peaks(spread)
    eager = exact.astype(np.float32)
    far = [5, 1, 2, 3, 4, 0, *range(6, 12)]
    assert traded_rows([eager], [_reordered(eager, far)], [exact], ATOL, RTOL) is None
    # Tied keys, but a row whose box the graph computed otherwise: no pairing.
    exact = _peaks(_saturated())
    eager = exact.astype(np.float32)
    wrong = _reordered(eager, far)
    wrong[0, 3, 0] += 0.5
    assert traded_rows([eager], [wrong], [exact], ATOL, RTOL) is None
    # A column of one value (padding) orders nothing; neither does an unsorted one.
    flat = exact.copy()
    flat[..., 5] = 0.0
    assert traded_rows([flat.astype(np.float32)], [_reordered(flat.astype(np.float32), far)], [flat],
                       ATOL, RTOL) is None
    shuffled = exact.copy()
    shuffled[0, :, 5] = shuffled[0, [1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10], 5]
    shuffled[0, 0, 5] = 0.5  # no longer monotone
    assert traded_rows([shuffled.astype(np.float32)], [_reordered(shuffled.astype(np.float32), far)], [shuffled],
                       ATOL, RTOL) is None
