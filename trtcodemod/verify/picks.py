"""Arg-max picks between near-tied values: the graph's outputs with eager mode's picks put back.

An arg-max (``torch.max(scores, dim)``, ``argmax``) over two values a float32 step or so apart
picks by rounding: ONNX Runtime's sigmoid rounds otherwise than torch's at a few elements, and a
class index flips between two classes whose scores tie to the comparison's tolerance (RTMDet in
the twenty-first zoo: 2 of 189 class indices, every score and box within tolerance). Whatever
reads the index then differs by a whole class, and no tolerance can tell that from a wrong graph.

:func:`replay_picks` decides it by evidence on the very input set that failed:

1. the model runs once more, its torch calls' tensor outputs kept by user line
   (``diverge.eager_values``); the graph runs with every ``ArgMax``/``ArgMin`` node's input and
   output kept (``diverge.graph_values``);
2. each such node is paired with the integer tensor eager mode made, of the same size, at the
   node's user line (the k-th node of a line with the k-th tensor there: an unrolled loop);
3. where the two picks differ, the graph's own input values at both picks must be within the
   comparison's tolerance of each other (the graph computed a tie there), else nothing is taken;
4. the graph runs again with those nodes' outputs replaced by eager mode's picks.

The caller compares those outputs as it compares any: when they pass, the graph computes eager
mode's outputs but for picks between values it computed as equal, and the set counts as
faithful, with how many picks were taken from eager mode (``OutputComparison.picks_tied``). A
pick that differs where the values do not tie, an arg-max with no eager tensor to pair, or any
other difference left after the replay keeps the plain comparison's failure.

A ``TopK`` is replayed the same way: its indices (output 1) are its picks, compared place by place
(:func:`tied_top_k`), and its values (output 0) are then the graph's own input at eager mode's indices.

A comparison of two floating values (``Equal``, ``Greater``, ``Less`` and their ``OrEqual`` forms) is
replayed likewise, paired with the element-wise comparison eager mode made at the node's line
(``diverge.eager_values`` keeps its result and operands): where the two results differ, the operands
must tie in the graph's run and in eager mode's (:func:`tied_comparison`), else the node is left as
the graph computed it (nothing is then taken from eager mode there). A peak test
``max_pool2d(heat, 3, 1, 1) == heat`` keeps a cell in one run and its neighbour in the other where the
two are a float32 step apart, and every row of a top-k after it moves (centernet_ilvo's decode,
thirty-sixth zoo: 24 of 160 elements); a threshold ``masks > 0`` flips cells a few thousandths from
zero (lucid_yolo, thirty-fourth zoo). The nodes are replayed in graph order, the graph run again after
each one replaced: a top-k after a replayed mask picks from what eager mode's mask kept.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from trtcodemod.usercode import UserFiles

from .backends import session_options
from .diverge import eager_values, graph_values, node_line

#: The index-picking operators whose near-ties rounding decides.
ARG_OPS = ("ArgMax", "ArgMin")
#: The top-k operator: its ``k`` picks per row (output 1) order tied values as the backend does; output 0 holds
#: the values at them. Exact ties are common where fewer than ``k`` values are not zero (ALIKED's keypoints on a
#: small score map after non-maximum suppression: 5 peaks for a top 8), and torch and ONNX Runtime then take
#: different zeros.
TOP_K = "TopK"
PICK_OPS = (*ARG_OPS, TOP_K)
#: The comparisons of two floating values whose outcome rounding decides where the values nearly tie: a
#: peak test ``max_pool2d(heat, 3, 1, 1) == heat`` keeps a cell in one run and its neighbour in the other
#: where the two are a float32 step apart (centernet_ilvo's decode, thirty-sixth zoo).
COMPARE_OPS = ("Equal", "Greater", "Less", "GreaterOrEqual", "LessOrEqual")


def has_arg_nodes(onnx_path: str) -> bool:
    """Does the main graph pick an index (``ArgMax``/``ArgMin``)? (The cheap test before a replay.)"""
    import onnx

    try:
        graph = onnx.load(onnx_path, load_external_data=False).graph
    except Exception:  # noqa: BLE001 - an unreadable file has nothing to replay
        return False
    return any(node.op_type in PICK_OPS + COMPARE_OPS for node in graph.node)


def _flat_picks(values: np.ndarray, picks: np.ndarray, axis: int, keepdims: bool) -> tuple[np.ndarray, np.ndarray]:
    """``values`` as rows along ``axis`` and ``picks`` as one index per row, in the same order."""
    axis = axis % values.ndim
    rows = np.moveaxis(values, axis, -1).reshape(-1, values.shape[axis])
    picks = np.moveaxis(picks, axis, -1) if keepdims else picks
    return rows, picks.reshape(-1)


def tied_flips(values: np.ndarray, graph_pick: np.ndarray, eager_pick: np.ndarray, axis: int, keepdims: bool,
               atol: float, rtol: float) -> tuple[int, int]:
    """``(picks that differ, those of them where the graph's values at both picks tie)``.

    A tie is ``|v[graph] - v[eager]| <= atol + rtol * max(|v[graph]|, |v[eager]|)``: within the
    comparison's own tolerance, so either pick is as right as the values the graph computed.
    """
    rows, graph_flat = _flat_picks(values, graph_pick, axis, keepdims)
    _, eager_flat = _flat_picks(values, eager_pick, axis, keepdims)
    differ = np.flatnonzero(graph_flat != eager_flat)
    if differ.size == 0:
        return 0, 0
    width = rows.shape[1]
    eager_at = eager_flat[differ]
    valid = (eager_at >= 0) & (eager_at < width)
    at = differ[valid]
    a = rows[at, graph_flat[at]].astype(np.float64)
    b = rows[at, eager_at[valid]].astype(np.float64)
    with np.errstate(invalid="ignore"):  # inf - inf: no number within any tolerance, so no tie
        tied = np.abs(a - b) <= atol + rtol * np.maximum(np.abs(a), np.abs(b))
    return int(differ.size), int(np.count_nonzero(tied))


def tied_top_k(values: np.ndarray, graph_picks: np.ndarray, eager_picks: np.ndarray, axis: int, atol: float,
               rtol: float) -> tuple[int, int]:
    """:func:`tied_flips` for a top-k: ``picks`` hold ``k`` indices per row along ``axis``; each place where the
    two differ counts, and ties where the values at both indices are within the tolerance (both lists sorted,
    a place holds the same value in each where the two took tied values in another order)."""
    axis = axis % values.ndim
    rows = np.moveaxis(values, axis, -1).reshape(-1, values.shape[axis])
    graph_flat = np.moveaxis(graph_picks, axis, -1).reshape(rows.shape[0], -1)
    eager_flat = np.moveaxis(eager_picks, axis, -1).reshape(rows.shape[0], -1)
    differ = graph_flat != eager_flat
    count = int(np.count_nonzero(differ))
    if count == 0:
        return 0, 0
    width = rows.shape[1]
    valid = differ & (eager_flat >= 0) & (eager_flat < width) & (graph_flat >= 0) & (graph_flat < width)
    a = np.take_along_axis(rows, np.where(valid, graph_flat, 0), 1).astype(np.float64)
    b = np.take_along_axis(rows, np.where(valid, eager_flat, 0), 1).astype(np.float64)
    with np.errstate(invalid="ignore"):  # inf - inf: no number within any tolerance, so no tie
        tied = valid & (np.abs(a - b) <= atol + rtol * np.maximum(np.abs(a), np.abs(b)))
    return count, int(np.count_nonzero(tied))


def tied_comparison(graph_result: np.ndarray, eager_result: np.ndarray, graph_operands: tuple[Any, Any],
                    eager_operands: tuple[Any, Any], atol: float, rtol: float) -> tuple[int, int]:
    """``(elements where a comparison's results differ, those of them where its operands tie in both runs)``.

    A comparison (``max_pool2d(heat) == heat``, ``score > threshold``) decides by rounding where its two
    operands are within the comparison's tolerance of each other; a flip counts as tied only where they
    are in the graph's run and in eager mode's: a graph whose operands are equal where eager mode's are
    not (a pooling exported as the identity) decides otherwise for want of the right values, not by
    rounding.

    The tolerance is relative to the larger of the two values and of the operands' root mean square
    (:func:`_operand_scale`): a value compared with zero has rounding error of its tensor's scale, not
    its own (lucid_yolo's mask logits ``masks > 0``, thirty-fourth zoo: root mean square some tens, the
    graph within 0.016 of eager mode everywhere, five cells between -0.0035 and 0.0038 on the other side
    of zero)."""
    shape = graph_result.shape
    differ = np.asarray(graph_result).astype(bool) != np.asarray(eager_result).astype(bool)
    count = int(np.count_nonzero(differ))
    if count == 0:
        return 0, 0
    tied = differ.copy()
    for a, b in (graph_operands, eager_operands):
        a = np.broadcast_to(np.asarray(a, dtype=np.float64), shape)
        b = np.broadcast_to(np.asarray(b, dtype=np.float64), shape)
        scale = _operand_scale(a, b)
        with np.errstate(invalid="ignore"):  # inf - inf: no number within any tolerance, so no tie
            tied &= np.abs(a - b) <= atol + rtol * np.maximum(np.maximum(np.abs(a), np.abs(b)), scale)
    return count, int(np.count_nonzero(tied))


def _operand_scale(a: np.ndarray, b: np.ndarray) -> float:
    """The root mean square of a comparison's finite operand values (both, as broadcast): the scale of
    the rounding error they carry, which one outlier does not set as a largest value would."""
    both = np.concatenate([np.ravel(a), np.ravel(b)])
    both = both[np.isfinite(both)]
    return float(np.sqrt(np.mean(both * both))) if both.size else 0.0


def _eager_pick(got: np.ndarray, made: list[np.ndarray], used: int) -> np.ndarray | None:
    """The ``used``-th integer tensor eager mode made at the node's line with ``got``'s size."""
    fitting = [v for v in made if np.issubdtype(v.dtype, np.integer) and v.size == got.size]
    if used >= len(fitting):
        return None
    return fitting[used].reshape(got.shape).astype(got.dtype)


def replay_picks(model: Any, args: tuple[Any, ...], input_names: list[str], onnx_path: str,
                 user_roots: tuple[str, ...], atol: float, rtol: float) -> dict[str, Any]:
    """The graph's outputs on ``args`` with near-tied arg-max picks replaced by eager mode's.

    ``{"picks": n, "outputs": [...], "lines": [...]}`` when some picks differed and every one of
    them tied; otherwise ``{"picks": 0, "why": ...}`` and no outputs. The nodes are taken in graph
    order, and the graph runs again after each replaced one: a comparison's eager mask changes what
    a top-k after it picks from.
    """
    import onnx
    import onnxruntime as ort
    from onnx import numpy_helper

    user = UserFiles(user_roots)
    proto = onnx.load(onnx_path)
    nodes = [node for node in proto.graph.node if node.op_type in PICK_OPS + COMPARE_OPS]
    if not nodes:
        return {"picks": 0, "why": "the graph picks no index"}
    feeds = {name: arg.detach().cpu().numpy() for name, arg in zip(input_names, args)}
    compared: dict[tuple[str, int], list[tuple[Any, Any, Any]]] = {}
    eager = eager_values(model, args, user, compared)
    constants = {init.name: numpy_helper.to_array(init) for init in proto.graph.initializer}
    # Each pick and the values it picked from, each comparison and its operands (what the graph computed).
    wanted = {name for node in nodes for name in (*node.input[:2], *node.output) if name}
    seen: dict[tuple[str, str, int], int] = {}
    replaced: dict[str, np.ndarray] = {}
    kept: dict[str, np.ndarray] | None = None
    flips, lines, refused = 0, [], ""
    for node in nodes:
        where = node_line(node, user)
        if where is None:
            continue
        if kept is None:  # the graph as it stands, eager mode's picks and masks so far put in
            kept = {**feeds, **constants}
            kept.update({name: value for made_by, values in graph_values(_with_constants(proto, replaced), feeds,
                                                                        wanted - set(replaced), as_backend=True)
                         for name, value in zip([n for n in made_by.output if n], values) if value is not None})
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
        got = kept.get(_picks_of(node))
        if got is None:
            continue
        key = (node.op_type in COMPARE_OPS and "compare" or "pick", *where)
        used = seen.get((*key, got.size), 0)
        seen[(*key, got.size)] = used + 1
        if node.op_type in COMPARE_OPS:
            operands = [kept.get(name) for name in node.input[:2]]
            if any(v is None or not np.issubdtype(v.dtype, np.floating) for v in operands):
                continue  # integers compare exactly: no rounding decides them
            found = _eager_comparison(got, compared.get(where, []), used)
            if found is None:
                continue
            want, eager_a, eager_b = found
            differ, tied = tied_comparison(got, want, (operands[0], operands[1]), (eager_a, eager_b), atol, rtol)
            if differ == 0:
                continue
            if tied < differ:
                # Left as the graph computed it: what it changes after it is then compared as it stands.
                refused = refused or (f"{node.op_type} at {where[0]}:{where[1]} decides otherwise than eager mode at "
                                      f"{differ} element(s), {differ - tied} of them where its operands do not tie")
                continue
            replaced[node.output[0]] = want
        else:
            values = kept.get(node.input[0])
            want = _eager_pick(got, eager.get(where, []), used)
            if values is None or want is None or np.array_equal(want, got):
                continue
            if node.op_type == TOP_K:
                differ, tied = tied_top_k(values, got, want, int(attrs.get("axis", -1)), atol, rtol)
            else:
                differ, tied = tied_flips(values, got, want, int(attrs.get("axis", 0)),
                                          bool(attrs.get("keepdims", 1)), atol, rtol)
            if tied < differ:
                return {"picks": 0, "why": f"{node.op_type} at {where[0]}:{where[1]} picks otherwise than eager mode "
                                           f"at {differ} element(s), {differ - tied} of them where its values do "
                                           f"not tie"}
            if node.op_type == TOP_K:
                # The values at eager mode's picks, taken from the graph's own input to the node.
                replaced[node.output[0]] = np.take_along_axis(values, want, int(attrs.get("axis", -1)))
            replaced[_picks_of(node)] = want
        kept = None
        flips += differ
        lines.append(f"{where[0]}:{where[1]}")
    if not replaced:
        return {"picks": 0, "why": refused or "every arg-max picks and every comparison decides as eager mode does"}
    final = _with_constants(proto, replaced)
    session = ort.InferenceSession(final.SerializeToString(), session_options(), providers=["CPUExecutionProvider"])
    taken = {i.name for i in session.get_inputs()}
    outputs = session.run([o.name for o in final.graph.output], {k: v for k, v in feeds.items() if k in taken})
    return {"picks": flips, "outputs": outputs, "lines": lines}


def _with_constants(proto: Any, replaced: dict[str, np.ndarray]) -> Any:
    """A copy of ``proto`` whose nodes making any of ``replaced`` give way to constants holding those values."""
    import onnx
    from onnx import numpy_helper

    out = onnx.ModelProto()
    out.CopyFrom(proto)
    if not replaced:
        return out
    keep = [node for node in out.graph.node if not any(name in replaced for name in node.output)]
    del out.graph.node[:]
    out.graph.node.extend(keep)
    out.graph.initializer.extend(numpy_helper.from_array(value, name) for name, value in replaced.items())
    return out


def _eager_comparison(got: np.ndarray, made: list[tuple[Any, Any, Any]],
                      used: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The ``used``-th comparison eager mode made at the node's line with ``got``'s size: its result
    (negated where that agrees with the graph better: ``a != b`` exports as ``Not(Equal)``) and its
    operands, each broadcast to the result's shape and laid out as ``got``."""
    fitting = [m for m in made if m[0].size == got.size]
    if used >= len(fitting):
        return None
    result, a, b = fitting[used]
    try:
        a = np.broadcast_to(np.asarray(a, dtype=np.float64), result.shape).reshape(got.shape)
        b = np.broadcast_to(np.asarray(b, dtype=np.float64), result.shape).reshape(got.shape)
    except ValueError:
        return None
    want = result.reshape(got.shape).astype(bool)
    if np.count_nonzero(~want != got) < np.count_nonzero(want != got):
        want = ~want
    return want, a, b


def _picks_of(node: Any) -> str:
    """The output of ``node`` that holds its picks: an arg-max's only one, a top-k's indices."""
    return node.output[1] if node.op_type == TOP_K and len(node.output) > 1 else node.output[0]
