"""TRT737: each image's rows picked by an image-index column, sorted and capped, computed at once while tracing.

fastface 0.1.4's ``FaceDetector._postprocess`` (borhanMorphy/fastface, ``fastface/module.py:201-245``, zoo 87's LFFD
models) thresholds every candidate of the batch into rows with the image as a last column, then keeps each image's
best ``keep_n`` rows before one batched NMS: ``for batch_idx in range(batch_size): (pick_n,) = torch.where(batch_idx
== preds[:, 5]); order = preds[pick_n, 4].sort(descending=True)[1]; batch_preds.append(preds[pick_n, :][order][:keep_n,
:])``, then ``batch_preds = torch.cat(batch_preds, dim=0)``. The snippets here are our own, in that form and the other
spellings the rule takes; zoo 87's two models migrate to exit 0 with it (docs/zoo.md).
"""

from __future__ import annotations

import io
import json
import warnings

import pytest
import torch
from safety import import_source
from support import migrate_json, ort_session, rewrite

from trtcodemod.helpers.per_image import _trt_rows_by_image

RULE = ("TRT737",)

LOOP = '''\
import torch


def best(preds, batch_size, keep_n):
    batch_preds = []
    for batch_idx in range(batch_size):
        (pick_n,) = torch.where(batch_idx == preds[:, 5])
        order = preds[pick_n, 4].sort(descending=True)[1]
        batch_preds.append(preds[pick_n, :][order][:keep_n, :])
    batch_preds = torch.cat(batch_preds, dim=0)
    return batch_preds
'''

#: Other spellings of the same loop: (old text, new text) replacements of LOOP, and the helper call expected.
SPELLINGS = {
    "fastface": ((), "_trt_rows_by_image(preds, preds[:, 5], preds[:, 4], True, keep_n, batch_size)"),
    "positions by [0]": ((("(pick_n,) = torch.where(batch_idx == preds[:, 5])",
                           "pick_n = torch.where(preds[:, 5] == batch_idx)[0]"),),
                         "_trt_rows_by_image(preds, preds[:, 5], preds[:, 4], True, keep_n, batch_size)"),
    "nonzero": ((("(pick_n,) = torch.where(batch_idx == preds[:, 5])",
                  "pick_n = (preds[:, 5] == batch_idx).nonzero(as_tuple=True)[0]"),),
                "_trt_rows_by_image(preds, preds[:, 5], preds[:, 4], True, keep_n, batch_size)"),
    "sort unpacked": ((("order = preds[pick_n, 4].sort(descending=True)[1]",
                        "_, order = preds[pick_n][:, 4].sort(descending=True)"),),
                      "_trt_rows_by_image(preds, preds[:, 5], preds[:, 4], True, keep_n, batch_size)"),
    "argsort ascending": ((("order = preds[pick_n, 4].sort(descending=True)[1]",
                            "order = torch.argsort(preds[pick_n, 3])"),),
                          "_trt_rows_by_image(preds, preds[:, 5], preds[:, 3], False, keep_n, batch_size)"),
    "indices, cap inside": ((("order = preds[pick_n, 4].sort(descending=True)[1]",
                              "order = preds[pick_n, 4].sort(descending=True).indices"),
                             ("preds[pick_n, :][order][:keep_n, :]", "preds[pick_n][order[:keep_n]]")),
                            "_trt_rows_by_image(preds, preds[:, 5], preds[:, 4], True, keep_n, batch_size)"),
    "no sort": ((("        order = preds[pick_n, 4].sort(descending=True)[1]\n", ""),
                 ("preds[pick_n, :][order][:keep_n, :]", "preds[pick_n][:keep_n]")),
                "_trt_rows_by_image(preds, preds[:, 5], None, False, keep_n, batch_size)"),
    "no cap": ((("preds[pick_n, :][order][:keep_n, :]", "preds[pick_n][order]"),),
               "_trt_rows_by_image(preds, preds[:, 5], preds[:, 4], True, None, batch_size)"),
    # United-Perception's `RpnMerger.merge`: the rows picked by a mask, an image without rows skipped, a TopK of
    # K = min(cap, rows) (the sort cut at the cap)
    "mask, skip, topk": ((("""        (pick_n,) = torch.where(batch_idx == preds[:, 5])
        order = preds[pick_n, 4].sort(descending=True)[1]
        batch_preds.append(preds[pick_n, :][order][:keep_n, :])
""", """        image = preds[preds[:, 5] == batch_idx]
        if image.numel() == 0:
            continue
        k = min(keep_n, image.shape[0])
        _, order = torch.topk(image[:, 4], k=k, sorted=True)
        batch_preds.append(image[order])
"""),), "_trt_rows_by_image(preds, preds[:, 5], preds[:, 4], True, keep_n, batch_size)"),
    "mask, argsort, cap": ((("""        (pick_n,) = torch.where(batch_idx == preds[:, 5])
        order = preds[pick_n, 4].sort(descending=True)[1]
        batch_preds.append(preds[pick_n, :][order][:keep_n, :])
""", """        image = preds[batch_idx == preds[:, 5]]
        order = image[:, 4].argsort(descending=True)
        batch_preds.append(image[order][:keep_n])
"""),), "_trt_rows_by_image(preds, preds[:, 5], preds[:, 4], True, keep_n, batch_size)"),
    "mask, smallest by topk": ((("""        (pick_n,) = torch.where(batch_idx == preds[:, 5])
        order = preds[pick_n, 4].sort(descending=True)[1]
        batch_preds.append(preds[pick_n, :][order][:keep_n, :])
""", """        image = preds[preds[:, 5] == batch_idx]
        order = image[:, 3].topk(min(len(image), keep_n), 0, False)[1]
        batch_preds.append(image[order])
"""),), "_trt_rows_by_image(preds, preds[:, 5], preds[:, 3], False, keep_n, batch_size)"),
    "positions, skip by len, no sort": ((("""        order = preds[pick_n, 4].sort(descending=True)[1]
        batch_preds.append(preds[pick_n, :][order][:keep_n, :])
""", """        if len(pick_n) == 0:
            continue
        batch_preds.append(preds[pick_n][:keep_n])
"""),), "_trt_rows_by_image(preds, preds[:, 5], None, False, keep_n, batch_size)"),
}


def _spelled(name: str) -> str:
    code = LOOP
    for old, new in SPELLINGS[name][0]:
        assert old in code
        code = code.replace(old, new)
    return code


def _rows(images: int, per_image: int, *, seed: int, ties: bool = False) -> torch.Tensor:
    """Rows (x1, y1, x2, y2, score, image) in no order, some of image ``images`` (beyond the loop's range)."""
    generator = torch.Generator().manual_seed(seed)
    n = images * per_image
    rows = torch.rand(n, 6, generator=generator) * 10
    rows[:, 5] = torch.randint(0, images + 1, (n,), generator=generator).float()
    if ties:
        rows[:, 4] = torch.randint(0, 3, (n,), generator=generator).float()
    return rows


@pytest.mark.parametrize("name", sorted(SPELLINGS))
def test_each_spelling_is_rewritten_and_runs_as_the_loop(name: str, tmp_path) -> None:
    code = _spelled(name)
    after = rewrite(code, unsafe=True, select=RULE)
    assert f"        batch_preds.append({SPELLINGS[name][1]})\n" in after
    assert rewrite(after, unsafe=True, select=RULE) == after  # idempotent
    before_fn = import_source(code, tmp_path)["best"]
    namespace = import_source(after, tmp_path)
    after_fn = namespace["best"]
    for images, per_image, keep in ((1, 5, 3), (3, 7, 4), (2, 0, 2), (4, 9, 0), (3, 2, 5), (5, 3, 1)):
        rows = _rows(images, per_image, seed=images * 10 + keep)
        if images == 5:
            rows[:, 3:5] -= 20.0  # negative keys
            rows[rows[:, 5] == 2, 5] = 9.0  # image 2 keeps no row
        try:
            want = before_fn(rows, images, keep)
        except ValueError:  # every image skipped: nothing to concatenate, in both
            with pytest.raises(ValueError):
                after_fn(rows, images, keep)
            continue
        assert torch.equal(want, after_fn(rows, images, keep))  # eager: the loop itself
        namespace["_trt_tracing"] = lambda: True  # the branch a trace takes: the helper, on the same rows
        try:
            assert torch.equal(want, after_fn(rows, images, keep)), (images, per_image, keep)
        finally:
            namespace["_trt_tracing"] = lambda: False


def _stable_loop(rows: torch.Tensor, count: int, keyed: bool, descending: bool, cap: int | None) -> torch.Tensor:
    want = []
    for j in range(count):
        (pick,) = torch.where(j == rows[:, 5])
        image = rows[pick]
        if keyed:
            image = image[image[:, 4].sort(descending=descending, stable=True)[1]]
        want.append(image if cap is None else image[:cap])
    return torch.cat(want)


def test_the_helper_is_the_loop_with_a_stable_sort() -> None:
    # eager runs of both ways of ranking: pairwise (no cap, a negative cap, no key) and TopK (distinct keys: eager
    # `topk` orders ties as it likes, the graph as ONNX specifies, checked below)
    generator = torch.Generator().manual_seed(0)
    for trial in range(120):
        count = int(torch.randint(1, 5, (1,), generator=generator))
        ties = trial % 3 == 0
        rows = _rows(count, int(torch.randint(0, 8, (1,), generator=generator)), seed=trial, ties=ties)
        if trial % 4 == 0 and len(rows):
            rows[0, 4] = float("nan")  # NaN sorts first descending, last ascending
        if trial % 5 == 0 and len(rows):
            rows[-1, 5] = 0.5  # not an image's index: in no image
        for cap in (None, -1, 0, 2, 50):
            for descending in (True, False):
                for keyed in (True, False):
                    if keyed and cap is not None and cap > 0 and (ties or trial % 4 == 0):
                        continue  # the TopK way: ties and NaN through ONNX Runtime below
                    want = _stable_loop(rows, count, keyed, descending, cap)
                    got = _trt_rows_by_image(rows, rows[:, 5], rows[:, 4] if keyed else None, descending, cap, count)
                    assert torch.equal(want.nan_to_num(-7.0), got.nan_to_num(-7.0)), (trial, cap, descending, keyed)


class _Top(torch.nn.Module):
    def __init__(self, descending: bool, cap: int) -> None:
        super().__init__()
        self.descending, self.cap = descending, cap

    def forward(self, rows: torch.Tensor) -> torch.Tensor:
        return _trt_rows_by_image(rows, rows[:, 5], rows[:, 4], self.descending, self.cap, 3)


@pytest.mark.parametrize("descending", [True, False])
def test_the_topk_way_orders_ties_by_position_in_the_graph(descending: bool) -> None:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(_Top(descending, 4), (_rows(3, 5, seed=1),), buffer, dynamo=False,
                          input_names=["rows"], dynamic_axes={"rows": {0: "n"}})
    session = ort_session(buffer.getvalue())
    for seed, per_image in ((2, 9), (3, 1), (4, 0), (5, 20)):
        rows = _rows(3, per_image, seed=seed, ties=True)  # keys 0, 1 or 2: many ties
        want = _stable_loop(rows, 3, True, descending, 4)
        got = torch.from_numpy(session.run(None, {"rows": rows.numpy()})[0])
        assert torch.equal(want, got), seed


MODULE = LOOP + '''

class Post(torch.nn.Module):
    def forward(self, preds):
        batch_size = preds.size(0)
        b, n = torch.where(preds[:, :, 4] >= 3.0)
        rows = torch.cat([preds[b, n, :5], b.to(preds.dtype).unsqueeze(1)], dim=1)
        return best(rows, batch_size, 4)
'''


def _export(module: torch.nn.Module) -> bytes:
    buffer = io.BytesIO()
    example = torch.rand(2, 12, 5, generator=torch.Generator().manual_seed(1)) * 10
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, (example,), buffer, dynamo=False, input_names=["preds"],
                          dynamic_axes={"preds": {0: "batch", 1: "n"}})
    return buffer.getvalue()


def test_the_rewritten_graph_follows_the_batch(tmp_path) -> None:
    import onnx

    after = rewrite(MODULE, unsafe=True, select=RULE)
    original, rewritten = import_source(MODULE, tmp_path)["Post"](), import_source(after, tmp_path)["Post"]()
    graph = _export(rewritten)
    ops = [node.op_type for node in onnx.load_from_string(graph).graph.node]
    assert "Loop" not in ops and ops.count("TopK") == 1  # one TopK of K = 4 for every image at once
    session, baked = ort_session(graph), ort_session(_export(original))
    differs = 0
    for images, candidates in ((1, 12), (2, 12), (3, 30), (5, 8), (2, 1)):
        preds = torch.rand(images, candidates, 5, generator=torch.Generator().manual_seed(images)) * 10
        preds[0, :, 4] = 0.0  # the first image keeps no row
        want = original(preds)
        got = session.run(None, {"preds": preds.numpy()})[0]
        assert torch.equal(want, torch.from_numpy(got))
        try:
            old = torch.from_numpy(baked.run(None, {"preds": preds.numpy()})[0])
            differs += not torch.equal(old, want)
        except Exception:  # noqa: BLE001 - ONNX Runtime refuses the unrolled graph's shapes: as different as can be
            differs += 1
    assert differs >= 2  # the original's graph keeps the example's two images


@pytest.mark.parametrize("change", [
    # the cap changes image by image
    ("[:keep_n, :]", "[:batch_idx, :]"),
    # the loop binds the rows tensor's name anew (its sort's values)
    ("order = preds[pick_n, 4].sort(descending=True)[1]", "preds, order = preds[pick_n, 4].sort(descending=True)"),
    # the sort's values, bound beside the order, are read after the loop
    ("order = preds[pick_n, 4].sort(descending=True)[1]", "top, order = preds[pick_n, 4].sort(descending=True)"),
    # the loop writes the rows tensor
    ("        order = preds", "        preds[:, 4] += 0\n        order = preds"),
    # something else in the body
    ("        order = preds", "        print(batch_idx)\n        order = preds"),
    # a name the loop binds read after it
    ("    return batch_preds\n", "    return batch_preds, order\n"),
    # the list is used otherwise
    ("    batch_preds = torch.cat(batch_preds, dim=0)\n", "    batch_preds = torch.stack(batch_preds)\n"),
    # the pick is not by the loop's image
    ("torch.where(batch_idx == preds[:, 5])", "torch.where(0 == preds[:, 5])"),
    # the sort key is not a column of the picked rows
    ("preds[pick_n, 4].sort(", "preds[:, 4].sort("),
])
def test_other_loops_are_left(change: tuple[str, str]) -> None:
    code = LOOP.replace(*change)
    if "top, order" in code:
        code = code.replace("    return batch_preds\n", "    return batch_preds, top\n")
    assert code != LOOP
    assert rewrite(code, unsafe=True, select=RULE) == code


MASKED = '''\
import torch


def best(preds, batch_size, keep_n):
    batch_preds = []
    for batch_idx in range(batch_size):
        image = preds[preds[:, 5] == batch_idx]
        if image.numel() == 0:
            continue
        k = min(keep_n, image.shape[0])
        _, order = torch.topk(image[:, 4], k=k, sorted=True)
        batch_preds.append(image[order])
    return torch.cat(batch_preds, dim=0)
'''


def test_the_masked_form_is_taken() -> None:
    assert "_trt_rows_by_image(preds, preds[:, 5], preds[:, 4], True, keep_n, batch_size)" in rewrite(
        MASKED, unsafe=True, select=RULE)


@pytest.mark.parametrize("change", [
    # TopK's order of its kept rows is its own
    ("sorted=True", "sorted=False"),
    # K is the cap alone: the loop fails on an image with fewer rows, the helper would not
    ("k=k, sorted", "k=keep_n, sorted"),
    # K is not the image's count
    ("min(keep_n, image.shape[0])", "min(keep_n, preds.shape[0])"),
    # the guard stops the loop at an empty image (the later images are not appended)
    ("            continue\n", "            break\n"),
    # the guard tests another tensor
    ("if image.numel() == 0:", "if preds.numel() == 0:"),
    # the guard does something else too
    ("            continue\n", "            print(batch_idx)\n            continue\n"),
    # the mask picks from other rows than those its column is read from
    ("image = preds[preds[:, 5] == batch_idx]", "image = preds[:, :5][preds[:, 5] == batch_idx]"),
    # a second cap after the TopK's
    ("batch_preds.append(image[order])", "batch_preds.append(image[order][:2])"),
    # the TopK's count read after the loop
    ("    return torch.cat(batch_preds, dim=0)\n", "    return torch.cat(batch_preds, dim=0), k\n"),
])
def test_other_masked_loops_are_left(change: tuple[str, str]) -> None:
    code = MASKED.replace(*change)
    assert code != MASKED
    assert rewrite(code, unsafe=True, select=RULE) == code


SCRIPTABLE = '''\
import torch


def best(preds: torch.Tensor, batch_size: int, keep_n: int) -> torch.Tensor:
    batch_preds = []
    for batch_idx in range(batch_size):
        pick_n = torch.where(batch_idx == preds[:, 5])[0]
        order = preds[pick_n, 4].argsort(descending=True)
        batch_preds.append(preds[pick_n][order][:keep_n])
    return torch.cat(batch_preds, dim=0)
'''


def test_a_scripted_caller_still_compiles_and_runs_the_loop(tmp_path) -> None:
    after = rewrite(SCRIPTABLE, unsafe=True, select=RULE)
    assert "_trt_rows_by_image(" in after
    rows = _rows(3, 6, seed=4)
    want = torch.jit.script(import_source(SCRIPTABLE, tmp_path)["best"])(rows, 3, 2)
    assert torch.equal(torch.jit.script(import_source(after, tmp_path)["best"])(rows, 3, 2), want)


def test_migrate_takes_the_loop_at_first_contact(tmp_path) -> None:
    path = tmp_path / "model.py"
    path.write_text(MODULE.replace("class Post(torch.nn.Module):", '''class Post(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.head = torch.nn.Conv2d(3, 5, 1)
''').replace("    def forward(self, preds):\n", "    def forward(self, x):\n"
             "        preds = self.head(x).flatten(2).transpose(1, 2).sigmoid() * 10\n") + '''

def build():
    return Post().eval()


def inputs(generator):
    return (torch.rand(2, 3, 4, 4, generator=generator),)
''')
    report = migrate_json(path, json.dumps({"x": {"0": "batch"}}))
    assert "TRT737" in {d["rule"] for d in report["applied"]}, (report["applied"], report["remaining"])
    assert report["before"]["faithful"] is False and report["after"]["faithful"] is True
    assert report["exit_code"] == 0
