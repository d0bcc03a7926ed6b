"""Per-output numeric comparison (numpy only).

NaN in the same places counts as equal; an infinity must meet an infinity of the
same sign. The relative error is taken where the expected value is not zero; the
pass test is numpy's ``|actual - expected| <= atol + rtol * |expected|``.

The expected values are eager mode's float32 outputs, themselves rounded: a deep network
with random weights can put them further from the model's exact values than the tolerance.
With ``exact`` (the same model run in float64, :func:`admitted_by_exact`), an element outside
the tolerance still passes when the actual value is no further from the exact one than eager
mode's is, and no further from eager mode's than eager mode's is from the exact one, each
plus the tolerance: as accurate as eager mode itself, measured where it was not. Eager mode's
error there is the larger of its error at the element and its largest error over the output
(:func:`eager_error_scale`), counting only errors within the tolerance of the output's largest
value: float32 sums carry an absolute error on the scale of their terms, so an element near zero
that eager mode happened to round well is no stricter a test than the rest, and rows a top-k
picked otherwise in float64 (errors beyond that) neither widen nor void that scale.

Where eager mode misses its float64 run at most of an output (a deep random-weight network that
amplifies rounding, BatchNorms calibrated on channels that vary by a few float32 steps), element
by element it is no reference; the output as a whole still is, while its error stays small beside
the output: the graph passes when its root mean square and largest errors against float64 are
within those of eager mode's (:func:`judged_by_exact`), and ``float64_judged`` says so.

Where eager mode is a reference element by element but the graph's rounding reaches past the
tolerance of small elements (values small beside the terms they sum: BatchNorms calibrated on
channels of small spread; kernels that round several times more than eager mode's),
the tolerance holds of the output as a whole (:func:`judged_normwise`): a float32 sum's error is on
the scale of its terms, not of its result, so the graph passes when it and eager mode are within
the tolerance of float64 as a norm-wise relative error (largest and root mean square) and every
element is within the per-element allowance scaled by how much more the graph rounds than eager
mode where the two agree. ``float64_judged`` says so.

An integer output rounded from floats (an image scaled to 0..255, rounded and cast to uint8) has no
float64 values to weigh, only the float64 run's integers: where eager float32 itself lands on another
integer than the float64 run somewhere (the output is rounded from floats), an element the graph puts one
above or below eager mode's passes where it is within one of the float64 run's too and the graph misses
that run at no more elements than eager float32 does, plus a small share of the output
(:func:`_rounding_flips`): the value sat on a rounding half, and the sums' order chose the side.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Sequence

import numpy as np


#: The share of an output at which eager float32's misses of its float64 run make it no reference.
#: The tolerance is some 10^4 float32 roundings wide, so an element outside it is one where rounding
#: flipped a discrete choice (a top-k row, an NMS pick); a quarter of the output flipped means
#: rounding picks the output. Measured, eleventh zoo, effdet predict benches (120 elements, rows
#: sorted), sets 1-3: efficientdet_q0 86, 27, 1 (set 1 saturated, every score 1.0); mixdet_m 34,
#: 0, 93. A set aside needs another of its shapes judging (``inconclusive.set_aside``).
NO_REFERENCE_SHARE = 0.25

#: How far eager float32 may be from its float64 run, root mean square over an output and relative
#: to the output's own, for the output as a whole to judge a graph where eager mode misses float64
#: at :data:`NO_REFERENCE_SHARE` of its elements or more (:func:`judged_by_exact`). Rounding that a
#: deep random-weight network amplifies spreads over every element and stays small beside the
#: output (pytorchcv IBPPose, fourteenth zoo: BatchNorms calibrated on channels whose variation is
#: a few float32 steps scale rounding by up to 316 three times over; eager mode 0.061 of the
#: output's RMS off float64, at 10331 of 12800 elements); a top-k whose rows rounding picked
#: otherwise is off by whole values at its flipped rows, far beyond this.
REFERENCE_RMS = 0.25

#: The same, where eager float32 misses its float64 run at :data:`NO_REFERENCE_SHARE` of an output but not at
#: most of it (:func:`_only_where_eager_misses`): fewer elements moved, so only rounding-sized moves judge the
#: output as a whole. Measured: SPIGA WFLW's landmarks (zoo 69, set 3) 0.00135 of the output's RMS; a row of
#: effdet CSPDarkDet-53m's detections float64 ranked otherwise (tenth zoo, set 2, a class apart) 0.071.
BAND_RMS = 0.01


@dataclass
class OutputComparison:
    """One output of one input set: expected (original eager) vs actual."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    expected_shape: tuple[int, ...]
    expected_dtype: str
    max_abs_err: float | None
    max_rel_err: float | None
    passed: bool
    problem: str = ""
    #: Elements outside atol/rtol of eager mode's value that the float64 run admitted.
    exact_admitted: int = 0
    #: Rows that matched eager mode's once neighbours' places were traded back (``ties``): a
    #: top-k's near-equal scores, which eager mode and its float64 run order differently too.
    rows_traded: int = 0
    #: Elements where eager float32 itself is outside atol/rtol of the float64 run.
    eager_misses: int = 0
    #: Not judged: eager mode is no reference on this set, and another set of the same input
    #: shapes judged the graph (``inconclusive.set_aside``); ``problem`` says why.
    set_aside: bool = False
    #: Passed as a whole against the float64 run: where eager mode is no reference element by
    #: element (:func:`judged_by_exact`), or where the graph's rounding passes small elements'
    #: tolerance, both runs within it norm-wise (:func:`judged_normwise`): the graph is as accurate
    #: as a float32 computation of the model over the output.
    float64_judged: bool = False
    #: Root mean square error against the float64 run, as a share of the float64 output's own, of
    #: eager float32 and of the graph (usable elements; only where the output was measured so).
    eager_rms_share: float | None = None
    graph_rms_share: float | None = None
    #: Arg-max picks between values the graph computed as tied, taken from eager mode, with which the
    #: graph's outputs matched (``picks``): a class index rounding flips between two equal scores.
    picks_tied: int = 0
    #: Rows of picks (a top-k's, an arg-max's) at which the float64 run that judged this output took eager
    #: float32's picks, its values tying there (``verify.tiedref``): saturated scores, exactly 1.0 in float32.
    float64_ties: int = 0

    @property
    def eager_no_reference(self) -> bool:
        """Eager float32 misses its float64 run at :data:`NO_REFERENCE_SHARE` of the output or
        more: on this set it cannot tell a faithful graph from a wrong one (the top rows of tied,
        saturated scores)."""
        size = int(np.prod(self.expected_shape, dtype=np.int64)) if self.expected_shape else 1
        return size > 0 and self.eager_misses >= NO_REFERENCE_SHARE * size

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["shape"], data["expected_shape"] = list(self.shape), list(self.expected_shape)
        for key in ("max_abs_err", "max_rel_err"):
            data[key] = finite_or_none(data[key])
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "OutputComparison":
        """The comparison :meth:`to_json` wrote (an unbounded error reads back as None)."""
        return cls(data["name"], tuple(data["shape"]), data["dtype"], tuple(data["expected_shape"]),
                   data["expected_dtype"], data["max_abs_err"], data["max_rel_err"], data["passed"],
                   data.get("problem", ""), data.get("exact_admitted", 0), data.get("rows_traded", 0),
                   data.get("eager_misses", 0), data.get("set_aside", False), data.get("float64_judged", False),
                   data.get("eager_rms_share"), data.get("graph_rms_share"), data.get("picks_tied", 0),
                   data.get("float64_ties", 0))


def finite_or_none(value: float | None) -> float | None:
    """JSON has no inf/NaN: an unbounded error becomes null (the ``problem`` says why)."""
    if value is None or not np.isfinite(value):
        return None
    return float(value)


def _usable(expected: np.ndarray, *values: np.ndarray) -> np.ndarray:
    """Where every value is finite and the float64 one (the last) is inside ``expected``'s dtype's
    range (a float64-only constant such as ``finfo(dtype).min`` is no reference)."""
    limit = np.finfo(expected.dtype).max if np.issubdtype(expected.dtype, np.floating) else np.inf
    usable = np.abs(values[-1]) <= limit
    for v in values:
        usable &= np.isfinite(v)
    return usable


#: How far past eager mode's largest error over an output a graph's may go: the graph sums in
#: another order (fused kernels, other thread counts), so its rounding is as large as eager's but
#: not bounded by it; measured on effdet CSPDarkDet-53m's boxes (tenth zoo, set 2): eager float32
#: at most 0.008 from float64, ONNX Runtime 0.011 at one coordinate, the rest within eager's.
OTHER_ORDER = 2.0


def eager_error_scale(expected: np.ndarray, exact: np.ndarray, atol: float, rtol: float) -> float:
    """Eager float32's largest rounding error over one output: its largest distance from the
    float64 run among the elements within ``atol + rtol * max|x|`` of it (the output's scale).
    Elements further off are not rounding (a top-k row that rounding picked otherwise, a box
    float64 ranked elsewhere) and are left out; where they are most of the output, eager mode is
    no reference for its scale (a network whose activations saturate) and this is 0.

    An element further off than that is no rounding: eager mode computed another value there (a
    top-k whose rows rounding picks, a network whose activations saturate), so it measures nothing
    about the output's scale and is left out, while the rest of the output, rows both runs picked
    alike, still says how far float32 sums on this scale are from exact. Only usable elements
    count (finite on both sides, the float64 value in range).
    """
    e, x = (np.asarray(v, dtype=np.float64) for v in (expected, exact))
    usable = _usable(np.asarray(expected), e, x)
    if not usable.any():
        return 0.0
    errors = np.abs(e - x)[usable]
    rounding = errors[errors <= atol + rtol * float(np.abs(x)[usable].max())]
    if 2 * rounding.size <= errors.size:
        return 0.0
    return float(rounding.max())


def admitted_by_exact(expected: np.ndarray, actual: np.ndarray, exact: np.ndarray, atol: float,
                      rtol: float, scale: float | None = None) -> np.ndarray:
    """Where ``actual`` is as accurate as ``expected`` (eager float32) against ``exact`` (float64).

    Both ``|a - x| <= own + atol + rtol * |x|`` and ``|a - e| <= own + scale + atol + rtol * |e|``,
    with ``scale`` eager mode's largest rounding error over the output, at the output's scale
    (:func:`eager_error_scale`), and ``own`` the larger of ``|e - x|`` and :data:`OTHER_ORDER`
    times ``scale`` (a graph summing in another order errs as much as eager mode, not less; a
    value on the other side of the exact one, as close to it as that rounding allows, is as
    accurate as eager mode). The
    tolerance is widened toward the exact value and away from eager's alike, so a value far from
    both (a wrong row where float64 chose another) is not admitted. Where the exact value lies
    beyond eager mode's rounding (:data:`OTHER_ORDER` times ``scale``), it is no reference for the
    element, and a value within that much of eager's own is admitted too. Never where a value is not
    finite or the exact value is outside ``expected``'s dtype's range. ``scale``: the output's,
    measured once, where ``expected`` is part of it (a row).
    """
    e, a, x = (np.asarray(v, dtype=np.float64) for v in (expected, actual, exact))
    usable = _usable(np.asarray(expected), e, a, x)
    if scale is None:
        scale = eager_error_scale(expected, exact, atol, rtol)
    with np.errstate(invalid="ignore", over="ignore"):  # inf - inf: not usable anyway
        own = np.maximum(np.abs(e - x), OTHER_ORDER * scale)
        # Two float32 results each within the rounding scale of the exact value may be that far
        # apart on either side of it: the distance to eager mode's allows the scale once more.
        as_accurate = (np.abs(a - x) <= own + atol + rtol * np.abs(x)) \
            & (np.abs(a - e) <= own + scale + atol + rtol * np.abs(e))
        # Where float64 lies beyond eager mode's rounding (its row is another pick: a box the
        # float64 run ranked past a cap), it is no reference for the element, and a graph on the
        # far side of eager's value is judged against eager's value itself: within the rounding
        # an exact value next to eager's would allow (zoo 93's YOLOv7-seg retina, 0.034 off
        # eager's -32.80 where the output's rounding is 0.89 and float64's row another box).
        unreferenced = np.abs(e - x) > OTHER_ORDER * scale + atol + rtol * np.abs(x)
        by_eager = unreferenced & (np.abs(a - e) <= OTHER_ORDER * scale + atol + rtol * np.abs(e))
        return usable & (as_accurate | by_eager)


def judged_by_exact(expected: np.ndarray, actual: np.ndarray, exact: np.ndarray, atol: float) -> bool:
    """Is ``actual`` as accurate as ``expected`` (eager float32) against ``exact`` (float64) over
    the whole output, where eager mode's own rounding puts it outside the tolerance of float64
    at most of it and element by element it judges nothing? (``compare_array`` asks where eager
    mode misses float64 at more than half of the output, or at a quarter of it with the graph's misses
    only there (:func:`_only_where_eager_misses`): a discrete choice that rounding flipped, a top-k
    row or an NMS pick, moves the rows it flipped and is judged element by element; rounding that a
    deep network amplifies moves nearly every element: IBPPose's sets, 77% and 69%.)

    Only where every element is usable and eager mode still carries the output (its root mean
    square error at most :data:`REFERENCE_RMS` of the float64 output's): then both the graph's
    root mean square error and its largest error against float64 must be within
    :data:`OTHER_ORDER` times eager mode's own (plus ``atol`` on the largest). A graph that
    computes something else errs by whole values where eager mode errs by amplified rounding.
    """
    e, a, x = (np.asarray(v, dtype=np.float64) for v in (expected, actual, exact))
    if e.size == 0 or not _usable(np.asarray(expected), e, a, x).all():
        return False
    eager_err, graph_err = np.abs(e - x), np.abs(a - x)
    eager_rms, graph_rms = float(np.sqrt(np.mean(eager_err ** 2))), float(np.sqrt(np.mean(graph_err ** 2)))
    if eager_rms > REFERENCE_RMS * float(np.sqrt(np.mean(x ** 2))):
        return False
    return graph_rms <= OTHER_ORDER * eager_rms and float(graph_err.max()) <= OTHER_ORDER * float(eager_err.max()) + atol


def judged_normwise(expected: np.ndarray, actual: np.ndarray, exact: np.ndarray, atol: float, rtol: float,
                    outside: np.ndarray) -> bool:
    """Is ``actual``'s error against ``exact`` (float64) float32 rounding at the elements
    ``outside`` the tolerance of eager mode's values (and not admitted one by one)?

    Float32 rounding of a sum is bounded by the size of its terms, not of its result
    (``|fl(sum t) - sum t| <= n u sum |t|``, ``u`` = 2^-24): an element small beside the terms it
    sums (large terms that cancel, a channel a BatchNorm centred) carries an absolute error on the
    scale of the output's large values, which its own ``rtol * |x|`` does not allow for; and a
    graph's kernels may round several times more than eager mode's, everywhere (another summation
    order, a blocked layout, fused activations). The tolerance then holds of the output as a whole,
    as a norm-wise relative error. Over the usable elements (those ``outside`` must all be: finite,
    the float64 value in range), the output passes when:

    1. both eager float32 and the graph are within the tolerance of float64 in the infinity norm
       and in the root mean square, the tolerance's own ``rtol`` taken of the output's largest
       value and of its root mean square: ``max|a - x| <= atol + rtol * max|x|`` and
       ``rms(a - x) <= atol + rtol * rms(x)`` (eager mode beyond them: rounding flipped a discrete
       choice, a top-k row, and eager mode is no reference; the graph beyond them: off by a share of
       the output, a scale, a region, an offset everywhere);
    2. every element is within the per-element allowance (:func:`admitted_by_exact`) scaled by how
       much more the graph's kernels round: ``|a - x| <= OTHER_ORDER * k * s + atol + rtol * |x|``,
       ``s`` eager mode's largest error over the output and ``k`` (at least 1) the ratio of the
       graph's root mean square error against float64 to eager mode's, over the elements where the
       two agree (not ``outside``).

    ``k`` is measured apart from the elements judged, so a value computed otherwise at a few
    elements, where the graph agrees with eager mode elsewhere, is held to eager mode's own rounding
    there (``k`` 1), as one by one. Where eager mode is exact where the two agree and the graph is
    not, nothing is admitted (no rounding to measure ``k`` by).
    """
    e, a, x = (np.asarray(v, dtype=np.float64) for v in (expected, actual, exact))
    outside = np.asarray(outside, dtype=bool)
    if e.size == 0 or not (e.shape == a.shape == x.shape == outside.shape):
        return False
    usable = _usable(np.asarray(expected), e, a, x)
    agree = usable & ~outside
    if (outside & ~usable).any() or not agree.any():
        return False
    e, a, x, agree = e[usable], a[usable], x[usable], agree[usable]
    eager_err, graph_err = np.abs(e - x), np.abs(a - x)

    def rms(v: np.ndarray) -> float:
        return float(np.sqrt(np.mean(v ** 2)))

    largest, typical = atol + rtol * float(np.abs(x).max()), atol + rtol * rms(x)
    for err in (eager_err, graph_err):
        if float(err.max()) > largest or rms(err) > typical:
            return False
    eager_rms, graph_rms = rms(eager_err[agree]), rms(graph_err[agree])
    if eager_rms == 0.0:
        return graph_rms == 0.0 and bool(np.all(graph_err <= atol + rtol * np.abs(x)))
    k = max(graph_rms / eager_rms, 1.0)
    return bool(np.all(graph_err <= OTHER_ORDER * k * float(eager_err.max()) + atol + rtol * np.abs(x)))


def rms_shares(expected: np.ndarray, actual: np.ndarray, exact: np.ndarray) -> tuple[float | None, float | None]:
    """Eager float32's and the graph's root mean square error against float64, each a share of the
    float64 output's root mean square, over the usable elements (None: none usable, or all zero)."""
    e, a, x = (np.asarray(v, dtype=np.float64) for v in (expected, actual, exact))
    usable = _usable(np.asarray(expected), e, a, x)
    if not usable.any():
        return None, None
    e, a, x = e[usable], a[usable], x[usable]
    scale = float(np.sqrt(np.mean(x ** 2)))
    if scale == 0.0:
        return None, None
    return float(np.sqrt(np.mean((e - x) ** 2))) / scale, float(np.sqrt(np.mean((a - x) ** 2))) / scale


def _eager_misses(expected: np.ndarray, exact: np.ndarray, atol: float, rtol: float) -> int:
    """Usable elements where eager float32 is outside atol/rtol of the float64 run."""
    e, x = (np.asarray(v, dtype=np.float64) for v in (expected, exact))
    usable = _usable(np.asarray(expected), e, x)
    return int(np.count_nonzero(usable & (np.abs(e - x) > atol + rtol * np.abs(x))))


def _only_where_eager_misses(expected: np.ndarray, exact: np.ndarray, atol: float, rtol: float, outside: np.ndarray,
                             own_misses: int) -> bool:
    """Are the graph's elements still ``outside`` all ones where eager float32 itself misses its float64 run,
    on an output where it does so at :data:`NO_REFERENCE_SHARE` of the elements or more? Eager mode judges
    the graph element by element wherever it is within the tolerance of float64, and the graph passes there;
    where it is no reference (SPIGA's landmarks after three cascaded steps, zoo 69: 173 of 588 elements), the
    output as a whole judges (:func:`judged_by_exact`), while eager mode's own error stays rounding-sized
    (:data:`BAND_RMS`). A row a discrete choice flipped in the graph alone lies where eager mode is a reference,
    and fails; one eager mode flipped puts its error far beyond that scale, and is judged element by element."""
    if own_misses < NO_REFERENCE_SHARE * expected.size:
        return False
    eager_share, _ = rms_shares(expected, expected, exact)
    if eager_share is None or eager_share > BAND_RMS:
        return False
    e, x = (np.asarray(v, dtype=np.float64) for v in (expected, exact))
    with np.errstate(invalid="ignore", over="ignore"):
        misses = _usable(np.asarray(expected), e, x) & (np.abs(e - x) > atol + rtol * np.abs(x))
    return not (outside & ~misses).any()


#: The share of an integer output's elements that rounding may flip by one beyond what eager float32 flips against
#: its float64 run (:func:`_rounding_flips`). SwinIR x4 with uint8 output (zoo 67, random weights, 2x3x144x176): the
#: TorchScript graph differed from eager mode at 5 of 152064 elements, each by 1.
FLIP_SHARE = 1e-4


def _rounding_flips(expected: np.ndarray, actual: np.ndarray, exact: np.ndarray | None, outside: np.ndarray) -> bool:
    """Are the graph's misses of an integer output (not bool) rounding flips? Every element outside the tolerance
    differs from eager mode's by one and from the float64 run's by at most one, eager float32 itself flips against
    the float64 run somewhere (the output is rounded from floats: integer arithmetic, such as lengths computed from
    sizes, is exact in both and admits nothing), and the graph misses the float64 run at no more elements than eager
    float32 does plus :data:`FLIP_SHARE` of the output: a value computed in floats and rounded lands on the other
    side of a half where the sums run in another order. A class index or a count off by one at many elements, or by
    more than one anywhere, is no such flip."""
    if exact is None or not np.issubdtype(expected.dtype, np.integer) or np.shape(exact) != expected.shape \
            or not np.issubdtype(np.asarray(exact).dtype, np.integer):
        return False
    e, a, x = (np.asarray(v).astype(np.int64) for v in (expected, actual, exact))
    if np.abs(a - e)[outside].max() > 1 or np.abs(a - x)[outside].max() > 1:
        return False
    eager_flips = int(np.count_nonzero(e != x))
    if eager_flips == 0:
        return False  # eager float32 rounds as float64 does everywhere: integer arithmetic (lengths), not a rounding
    return int(np.count_nonzero(a != x)) <= eager_flips + max(1, int(FLIP_SHARE * e.size))


def _binary(values: np.ndarray) -> bool:
    """Does ``values`` hold nothing but 0 and 1 (a bool array, or a float mask such as YOLO's ``gt_(0.5)``)?"""
    values = np.asarray(values)
    return values.dtype == np.bool_ or bool(np.isin(values, (0, 1)).all())


def _threshold_flips(expected: np.ndarray, actual: np.ndarray, exact: np.ndarray | None) -> bool:
    """Are the graph's misses of a binary output (bool, or floats of 0 and 1) a threshold's rounding flips? Eager
    float32, the graph and the float64 run all hold only 0 and 1, eager float32 itself lands on the other side of the
    threshold than the float64 run somewhere (a mask thresholded from floats: a comparison of exact integers admits
    nothing), and the graph misses the float64 run at no more elements than eager float32 does plus as many again,
    at most :data:`FLIP_SHARE` of the output. YOLOv7-seg's masks (zoo 93, random weights): 20 of 4980736 elements
    differ from eager mode's, where eager float32 itself differs from the float64 run at 23: a mask coefficient summed
    in another order crosses 0.5. A wrong box's mask or a shifted one moves far more elements than eager's own flips."""
    if exact is None or np.shape(exact) != np.shape(expected) or np.asarray(expected).size == 0 \
            or not (_binary(expected) and _binary(actual) and _binary(exact)):
        return False
    e, a, x = (np.asarray(v).astype(np.int8) for v in (expected, actual, exact))
    eager_flips = int(np.count_nonzero(e != x))
    return eager_flips > 0 and int(np.count_nonzero(a != x)) <= eager_flips + max(
        1, min(eager_flips, int(FLIP_SHARE * e.size)))


def compare_array(name: str, expected: np.ndarray, actual: np.ndarray, atol: float, rtol: float,
                  exact: np.ndarray | None = None) -> OutputComparison:
    """Compare one output; ``exact``: the float64 run's, for the elements outside the tolerance."""
    expected, actual = np.asarray(expected), np.asarray(actual)
    base = dict(
        name=name,
        shape=tuple(actual.shape),
        dtype=str(actual.dtype),
        expected_shape=tuple(expected.shape),
        expected_dtype=str(expected.dtype),
    )
    if expected.shape != actual.shape:
        return OutputComparison(**base, max_abs_err=None, max_rel_err=None, passed=False,
                                problem=f"shape {list(actual.shape)} != expected {list(expected.shape)}")
    if expected.dtype != actual.dtype:
        return OutputComparison(**base, max_abs_err=None, max_rel_err=None, passed=False,
                                problem=f"dtype {actual.dtype} != expected {expected.dtype}")
    if expected.size == 0:
        return OutputComparison(**base, max_abs_err=0.0, max_rel_err=0.0, passed=True)
    if expected.dtype == np.bool_ or not np.issubdtype(expected.dtype, np.number):
        wrong = int(np.count_nonzero(expected != actual))
        if wrong and expected.dtype == np.bool_ and _threshold_flips(expected, actual, exact):
            # a mask thresholded from floats: the graph's rounding crosses the threshold where eager float32's does
            # against the float64 run, and at few more elements
            return OutputComparison(**base, max_abs_err=1.0, max_rel_err=1.0, passed=True, exact_admitted=wrong,
                                    eager_misses=int(np.count_nonzero(np.asarray(exact) != expected)))
        return OutputComparison(**base, max_abs_err=float(wrong > 0), max_rel_err=float(wrong > 0),
                                passed=wrong == 0, problem=f"{wrong} element(s) differ" if wrong else "")

    e = expected.astype(np.float64)
    a = actual.astype(np.float64)
    e_nan, a_nan = np.isnan(e), np.isnan(a)
    e_inf, a_inf = np.isinf(e), np.isinf(a)
    problems = []
    nan_mismatch = int(np.count_nonzero(e_nan != a_nan))
    if nan_mismatch:
        where = "the original is finite" if np.any(a_nan & ~e_nan) else "the rewrite is finite"
        problems.append(f"NaN at {nan_mismatch} position(s) where {where}")
    inf_mismatch = int(np.count_nonzero((e_inf | a_inf) & ~(e_nan | a_nan) & (e != a)))
    if inf_mismatch:
        problems.append(f"inf mismatch at {inf_mismatch} position(s)")

    finite = np.isfinite(e) & np.isfinite(a)
    diff = np.abs(a[finite] - e[finite])
    ref = np.abs(e[finite])
    max_abs = float(diff.max()) if diff.size else 0.0
    nonzero = ref > 0
    max_rel = float((diff[nonzero] / ref[nonzero]).max()) if np.any(nonzero) else 0.0
    outside = np.zeros(e.shape, dtype=bool)
    outside[finite] = diff > atol + rtol * ref
    admitted = own_misses = 0
    referenced = exact is not None and np.shape(exact) == e.shape \
        and np.issubdtype(np.asarray(exact).dtype, np.floating)
    if outside.any() and referenced:
        kept = outside & admitted_by_exact(expected, actual, exact, atol, rtol)
        admitted = int(np.count_nonzero(kept))
        outside &= ~kept
        own_misses = _eager_misses(expected, exact, atol, rtol)
        shares = rms_shares(expected, actual, exact)
    else:
        shares = (None, None)
    if outside.any() and not referenced and _rounding_flips(expected, actual, exact, outside):
        # An integer output rounded from floats (an image scaled to 0..255, rounded and cast to uint8): the graph's
        # float rounding flips an element at a rounding boundary to the next integer, as eager float32's own
        # rounding does against the float64 run, and by no more elements.
        admitted = int(np.count_nonzero(outside))
        own_misses = int(np.count_nonzero(np.asarray(exact) != expected))
        outside[:] = False
    if outside.any() and referenced and _threshold_flips(expected, actual, exact):
        # A float mask thresholded at 0.5 (YOLO's `gt_(0.5)`): the same flips as a bool mask's
        admitted += int(np.count_nonzero(outside))
        own_misses = int(np.count_nonzero(np.asarray(exact) != expected))
        outside[:] = False
    judged = False
    if outside.any() and referenced and (
            ((2 * own_misses > e.size or _only_where_eager_misses(expected, exact, atol, rtol, outside, own_misses))
             and judged_by_exact(expected, actual, exact, atol))
            or judged_normwise(expected, actual, exact, atol, rtol, outside)):
        # Over the output, the graph is as close to the float64 run as eager mode is: where
        # eager mode's amplified rounding leaves it no reference element by element, or where
        # the graph's own rounding, of eager mode's order, reaches past small elements' tolerance.
        admitted += int(np.count_nonzero(outside))
        outside[:] = False
        judged = True
    tolerance_misses = int(np.count_nonzero(outside))
    if tolerance_misses:
        problems.append(f"{tolerance_misses} of {e.size} element(s) outside atol/rtol"
                        + (f" ({admitted} more within eager float32's own error of the float64 run)"
                           if admitted else ""))
        if own_misses:
            # Where eager mode itself misses its float64 run, the set cannot tell a faithful
            # graph from a wrong one at this tolerance: said, never admitted.
            problems.append(f"eager float32 itself is outside atol/rtol of the float64 run at {own_misses} "
                            f"of {e.size} element(s)")
    if nan_mismatch or inf_mismatch:
        max_abs = max_rel = float("inf")
    return OutputComparison(**base, max_abs_err=max_abs, max_rel_err=max_rel,
                            passed=not problems, problem="; ".join(problems), exact_admitted=admitted,
                            eager_misses=own_misses, float64_judged=judged, eager_rms_share=shares[0],
                            graph_rms_share=shares[1])


def compare_outputs(
    names: Sequence[str], expected: Sequence[np.ndarray], actual: Sequence[np.ndarray], atol: float, rtol: float,
    exact: Sequence[np.ndarray | None] | None = None,
) -> list[OutputComparison]:
    """Compare output lists position by position (ONNX output names differ by exporter)."""
    exact = list(exact or [])
    exact += [None] * (len(expected) - len(exact))
    results = [compare_array(n, e, a, atol, rtol, x) for n, e, a, x in zip(names, expected, actual, exact)]
    if len(expected) != len(actual):
        results.append(OutputComparison(
            name="(outputs)", shape=(len(actual),), dtype="", expected_shape=(len(expected),), expected_dtype="",
            max_abs_err=None, max_rel_err=None, passed=False,
            problem=f"{len(actual)} output(s), expected {len(expected)}"))
    return results


def worst(comparisons: Sequence[OutputComparison]) -> tuple[float | None, float | None, bool]:
    """Max abs and rel error over many comparisons, and whether all passed.

    An error is None only when nothing numeric could be compared (shape or count mismatch); a
    comparison set aside (eager mode no reference on its set) adds no error.
    """
    judged = [c for c in comparisons if not c.set_aside]
    abs_errs = [c.max_abs_err for c in judged if c.max_abs_err is not None]
    rel_errs = [c.max_rel_err for c in judged if c.max_rel_err is not None]
    passed = bool(comparisons) and all(c.passed for c in comparisons)
    return (max(abs_errs) if abs_errs else None, max(rel_errs) if rel_errs else None, passed)

