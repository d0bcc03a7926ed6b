"""The legacy-constructor recipe (TRT349) on real-code variants.

Each variant in ``tests/recipe_variants/trt349/`` is a small runnable model reduced from public code (cited in
its docstring), by five authors and in five forms: spandrel's HVI-CIDNet hue plane (``torch.Tensor(img.shape[0],
img.shape[2], img.shape[3]).to(device).to(dtypes)``), PyTorch-YOLOv3's boxes through a constructor chosen by
device into a local name (``FloatTensor(prediction[..., :4].shape)``, a whole shape), PennyLane's quantum GAN
(``torch.Tensor(x.size(0), 0)``, an empty catch tensor grown by concatenation), NCRF++'s Viterbi buffer
(``Variable(torch.LongTensor(seq_len, batch_size))``, names bound from ``feats.size(i)``) and fairseq-py's LSTM
decoder (``Variable(x.data.new(srclen, seqlen, bsz).zero_())``, the Variable-era ``.data.new`` with sizes of
objects nothing else shows to be tensors: taken since this stop).

The resized form, ``x.new().resize_(sizes)`` (an empty tensor grown to the sizes, as ``x.new_empty``), on
three guided filters that count the pixels under each box from a plane of ones: Huikai Wu's
``GuidedFilter`` (``Variable(x.data.new().resize_((1, 1, h_x, w_x)).fill_(1.0))``) and ``ConvGuidedFilter``
(``(1, 3, h, w)``, no ``Variable``, copied into KPN_attention), and GFRNet's copy of the fast filter (low
resolution, upsampled). ``migrate`` applies TRT349 and ends equivalent on the first. Left: ``new().resize_``
in optimizers (``state['step'] = p.data.new().resize_(1)``), data transforms (AlexNet-style lighting noise)
and legacy autograd ``Function``s, which no exported forward runs; awd-lstm's ``embedded_dropout`` (the
receiver ``embed.weight.data``, an attribute, and only in training).

The rule finds each from the code alone, at the constructor's line, and rewrites it (YOLOv3's with TRT354 too:
its ``x.data`` reads bake the batch on their own, as the zoo's decoders showed). The TorchScript export of each
original keeps the example's sizes in a constant: ONNX Runtime refuses another batch, or (PennyLane's, whose
constant has no column and which ONNX Runtime concatenates anyway) the graph declares the example's batch as its
output's. Each rewritten graph follows other sizes and equals eager mode (values, dtype, shape) on zeros,
negatives, infinities and NaN where they can occur and empty batches; eager mode is unchanged bit for bit
(outputs, gradients, exceptions). ``migrate`` applies TRT349 at the constructor and ends equivalent (exit 0) on
two of them.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import onnx
import pytest
import torch
from support import migrate_json
from variant_models import (assert_eager_unchanged, assert_graph_within, axes_json, built_variant, export_variant,
                            input_names, line_of, seeded)

from trtcodemod.engine import Options, check_source, fix_source

HERE = Path(__file__).resolve().parents[2] / "recipe_variants" / "trt349"
NAN, INF = float("nan"), float("inf")


def _tokens(batch: int, steps: int, seed: int) -> torch.Tensor:
    return torch.randint(0, 11, (batch, steps), generator=seeded(seed))


def _decoder(batch: int, source: int, seed: int, scale: float = 1.0) -> tuple[torch.Tensor, ...]:
    g = seeded(seed)
    return (_tokens(batch, 3, seed), torch.randn(source, batch, 6, generator=g) * scale,
            torch.randn(1, batch, 6, generator=g), torch.randn(1, batch, 6, generator=g))


def _crf(lengths: list[int], seed: int, scale: float = 1.0) -> tuple[torch.Tensor, torch.Tensor]:
    mask = torch.tensor([[1] * n + [0] * (4 - n) for n in lengths], dtype=torch.uint8).reshape(len(lengths), 4)
    return torch.randn(len(lengths), 4, 5, generator=seeded(seed)) * scale, mask


def _guided(batch: int, guide: int, h: int, w: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = seeded(seed)
    return torch.rand(batch, guide, h, w, generator=g), torch.rand(batch, 3, h, w, generator=g)


def _fast(batch: int, guide: int, low: tuple[int, int], high: tuple[int, int],
          seed: int) -> tuple[torch.Tensor, ...]:
    g = seeded(seed)
    return (torch.rand(batch, guide, *low, generator=g), torch.rand(batch, 3, *low, generator=g),
            torch.rand(batch, guide, *high, generator=g))


class Variant(NamedTuple):
    rules: tuple[str, ...]
    found: tuple[tuple[str, str], ...]  # (rule, the original line's fragment), in source order
    rewritten: tuple[str, ...]  # fragments of the rewritten code
    other: tuple[torch.Tensor, ...]  # another size, which the original's graph misses
    sets: dict[str, tuple[torch.Tensor, ...]]  # "eager-": compared in eager mode only
    tolerance: float = 1e-5


_DATA = tuple(("TRT354", f"pred_boxes[..., {i}] =") for i in range(4))
VARIANTS: dict[str, Variant] = {
    "spandrel_hvi_cidnet_hue": Variant(
        ("TRT349",), (("TRT349", "torch.Tensor(img.shape[0], img.shape[2], img.shape[3])"),),
        ("            _trt_legacy_empty(img.shape[0], img.shape[2], img.shape[3]).to(device).to(dtypes)\n",),
        (torch.rand(3, 3, 9, 7, generator=seeded(1)),), {
            "larger": (torch.rand(3, 3, 9, 7, generator=seeded(2)),),
            "one-pixel": (torch.rand(1, 3, 1, 1, generator=seeded(3)),),
            "zeros": (torch.zeros(2, 3, 4, 4),),
            "grey-and-ties": (torch.tensor([[0.5, 0.5, 0.1], [0.2, 0.7, 0.7], [0.3, 0.3, 0.3], [1.0, 0.0, 1.0]])
                              .t().reshape(1, 3, 2, 2),),
            # a negative maximum: the density power of a negative sine is NaN, in the graph as in eager mode
            "negatives": (-torch.rand(2, 3, 3, 5, generator=seeded(4)),),
            "inf": (torch.tensor([[INF, 0.2, 0.1], [0.3, INF, 0.0], [0.5, 0.1, -INF], [INF, INF, INF]])
                    .t().reshape(1, 3, 2, 2),),
            "no-images": (torch.zeros(0, 3, 4, 4),),
            # No NaN: where a pixel's maximum is NaN no mask holds, and the original leaves its hue uninitialised.
        }),
    "pytorch_yolov3_pred_boxes": Variant(
        ("TRT349", "TRT354"), (("TRT349", "pred_boxes = FloatTensor(prediction[..., :4].shape)"), *_DATA),
        ('        pred_boxes = torch.empty(prediction[..., :4].shape, dtype=torch.float32, '
         'device="cuda" if FloatTensor is torch.cuda.FloatTensor else "cpu")\n',
         "        pred_boxes[..., 0] = _trt_traced_data(x) + grid_x\n"),
        (torch.randn(3, 14, 4, 4, generator=seeded(5)),), {
            "more": (torch.randn(5, 14, 4, 4, generator=seeded(6)),),
            "one": (torch.randn(1, 14, 4, 4, generator=seeded(7)),),
            "zeros": (torch.zeros(2, 14, 4, 4),),
            "negatives": (-torch.rand(2, 14, 4, 4, generator=seeded(8)) * 30,),
            "inf-nan": (torch.tensor([INF, -INF, NAN, 0.0, -0.0, 1e30, -1e30]).repeat(1, 14, 4, 4)[..., :4, :4],),
            # `view(nB, -1, 4)` of no image raises in eager mode (the rewrite too)
            "eager-no-images": (torch.zeros(0, 14, 4, 4),),
        }),
    "pennylane_quantum_gan_patches": Variant(
        ("TRT349",), (("TRT349", "images = torch.Tensor(x.size(0), 0).to(device)"),),
        ("        images = _trt_legacy_empty(x.size(0), 0).to(device)\n",),
        (torch.rand(7, 3, generator=seeded(9)),), {
            "more": (torch.rand(9, 3, generator=seeded(10)) * 1.5,),
            "one": (torch.rand(1, 3, generator=seeded(11)),),
            "zeros": (torch.zeros(3, 3),),
            "negatives": (-torch.rand(4, 3, generator=seeded(12)) * 3,),
            "inf-nan": (torch.tensor([[INF, 0.0, 1.0], [NAN, 0.5, 0.5], [-INF, 1.0, 0.0]]),),
            "no-samples": (torch.zeros(0, 3),),
        }),
    "ncrfpp_crf_viterbi": Variant(
        ("TRT349",), (("TRT349", "decode_idx = autograd.Variable(torch.LongTensor(seq_len, batch_size))"),),
        ('        decode_idx = autograd.Variable(torch.empty(seq_len, batch_size, dtype=torch.int64, device="cpu"))\n',),
        _crf([4, 1, 3], 13), {
            "more": _crf([4, 2, 1, 3, 4], 14, 3.0),
            "one": _crf([2], 15),
            "all-full": _crf([4, 4], 16),
            "zeros": (torch.zeros(3, 4, 5), _crf([4, 1, 2], 17)[1]),  # ties everywhere: the first maximum
            "negatives": (-torch.rand(2, 4, 5, generator=seeded(18)) * 50, _crf([3, 4], 18)[1]),
            # `view(batch_size, tag_size, -1)`-style reshapes of no sentence raise in eager mode (the rewrite too)
            "eager-no-sentences": (torch.zeros(0, 4, 5), torch.zeros(0, 4, dtype=torch.uint8)),
            # NaN scores: torch.max and ONNX Runtime's ArgMax pick different positions of NaN
            "eager-nan": (torch.tensor([NAN, 1.0, 0.0, INF, -INF]).repeat(2, 4, 1), _crf([4, 2], 19)[1]),
        }),
    "fairseq_lstm_decoder_attention": Variant(
        ("TRT349",), (("TRT349", "input_feed = Variable(x.data.new(bsz, embed_dim).zero_())"),
                      ("TRT349", "attn_scores = Variable(x.data.new(srclen, seqlen, bsz).zero_())")),
        ("        input_feed = Variable(x.data.new_empty(bsz, embed_dim).zero_())\n",
         "        attn_scores = Variable(x.data.new_empty(srclen, seqlen, bsz).zero_())\n"),
        _decoder(3, 7, 20), {
            "more": _decoder(4, 9, 21),
            "one-source-token": _decoder(1, 1, 22),
            "zeros": (torch.zeros(2, 3, dtype=torch.long), torch.zeros(5, 2, 6), torch.zeros(1, 2, 6),
                      torch.zeros(1, 2, 6)),
            "negatives": _decoder(2, 4, 23, -40.0),
            "inf-nan": (_tokens(2, 3, 24), torch.tensor([INF, -INF, NAN, 0.0, 1.0, -1.0]).repeat(3, 2, 1),
                        torch.randn(1, 2, 6, generator=seeded(25)), torch.randn(1, 2, 6, generator=seeded(26))),
            # ONNX's Reshape reads the 0 of an empty batch in a target shape as "keep that axis": the exported
            # `view(seqlen, bsz, embed_dim)` cannot give no sentence (the exporter's, whatever TRT349 does)
            "eager-no-sentences": _decoder(0, 5, 27),
        }),
    # The resized form, x.new().resize_(sizes): guided filters count the pixels under each box from a plane of ones.
    "huikai_guided_filter": Variant(
        ("TRT349",), (("TRT349", "x.data.new().resize_((1, 1, h_x, w_x)).fill_(1.0)"),),
        ("        N = box_sum(Variable(x.data.new_empty((1, 1, h_x, w_x)).fill_(1.0)), self.r)\n",),
        _guided(3, 1, 9, 7, 28), {
            "larger": _guided(1, 1, 12, 11, 29),
            "one-pixel": _guided(2, 1, 1, 1, 30),
            "zeros": (torch.zeros(2, 1, 4, 5), torch.zeros(2, 3, 4, 5)),  # no variance: A = 0, b = the mean
            "negatives": tuple(-t for t in _guided(2, 1, 5, 3, 32)),
            "inf-nan": (torch.tensor([INF, 0.5, NAN, 0.1, -INF, 0.3]).reshape(1, 1, 2, 3),
                        torch.rand(1, 3, 2, 3, generator=seeded(33))),
            "no-images": (torch.zeros(0, 1, 4, 5), torch.zeros(0, 3, 4, 5)),
        }),
    "huikai_conv_guided_filter": Variant(
        ("TRT349",), (("TRT349", "x_lr.data.new().resize_((1, 3, h_lrx, w_lrx)).fill_(1.0)"),),
        ("        N = self.box_filter(x_lr.data.new_empty((1, 3, h_lrx, w_lrx)).fill_(1.0))\n",),
        _fast(3, 3, (6, 7), (12, 21), 34), {
            "larger": _fast(1, 3, (9, 5), (18, 10), 35),
            "same-size": _fast(2, 3, (4, 4), (4, 4), 36),
            "one-pixel": _fast(2, 3, (1, 1), (3, 2), 37),
            "zeros": (torch.zeros(2, 3, 4, 5), torch.zeros(2, 3, 4, 5), torch.zeros(2, 3, 8, 10)),
            "negatives": tuple(-t * 9 for t in _fast(2, 3, (3, 5), (6, 10), 38)),
            "inf-nan": (torch.tensor([INF, 0.5, NAN, 0.1, -INF, 0.3]).repeat(1, 3, 1).reshape(1, 3, 2, 3),
                        *_fast(1, 3, (2, 3), (4, 6), 39)[1:]),
            "no-images": (torch.zeros(0, 3, 4, 5), torch.zeros(0, 3, 4, 5), torch.zeros(0, 3, 8, 10)),
        }, 1e-4),
    "gfrnet_fast_guided_filter": Variant(
        ("TRT349",), (("TRT349", "lr_x.data.new().resize_((1, 1, h_lrx, w_lrx)).fill_(1.0)"),),
        ("        N = box_sum(Variable(lr_x.data.new_empty((1, 1, h_lrx, w_lrx)).fill_(1.0)), self.r)\n",),
        _fast(3, 1, (6, 7), (12, 21), 40), {
            "larger": _fast(1, 1, (9, 5), (18, 10), 41),
            "downsampled": _fast(2, 1, (6, 6), (3, 3), 42),
            "one-pixel": _fast(2, 1, (1, 1), (3, 2), 43),
            "zeros": (torch.zeros(2, 1, 4, 5), torch.zeros(2, 3, 4, 5), torch.zeros(2, 1, 8, 10)),
            "negatives": tuple(-t for t in _fast(2, 1, (3, 5), (6, 10), 44)),
            "inf-nan": (torch.tensor([INF, 0.5, NAN, 0.1, -INF, 0.3]).reshape(1, 1, 2, 3),
                        *_fast(1, 1, (2, 3), (4, 6), 45)[1:]),
            "no-images": (torch.zeros(0, 1, 4, 5), torch.zeros(0, 3, 4, 5), torch.zeros(0, 1, 8, 10)),
        }, 1e-4),  # A = cov / (var + 1e-8): a near-flat window magnifies float rounding
}
MIGRATED = ("spandrel_hvi_cidnet_hue", "ncrfpp_crf_viterbi", "huikai_guided_filter")


def _options(name: str) -> Options:
    return Options(select=VARIANTS[name].rules, scope="all")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory):
    """name -> (module, original, rewritten, new source, original's session, rewritten session), made once."""
    folder = tmp_path_factory.mktemp("trt349_variants")
    made: dict[str, tuple] = {}

    def make(name: str) -> tuple:
        if name not in made:
            path = HERE / f"{name}.py"
            module, original = built_variant(path, f"trt349_{name}")
            source = fix_source(path.read_bytes(), str(path.resolve()), _options(name)).source.decode()
            new_path = folder / f"{name}_rewritten.py"
            new_path.write_text(source)
            _, rewritten = built_variant(new_path, f"trt349_rewritten_{name}")
            rewritten.load_state_dict(original.state_dict())
            example = module.inputs(seeded(0))
            before, _ = export_variant(original, example, module.DYNAMIC, folder / f"{name}_before.onnx", folder)
            after, traced = export_variant(rewritten, example, module.DYNAMIC, folder / f"{name}_after.onnx", folder)
            made[name] = (module, original, rewritten, source, before, after, folder / f"{name}_before.onnx",
                          folder / f"{name}_after.onnx")
        return made[name]

    return make


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_rule_finds_the_constructor_from_the_code_and_rewrites_it(name: str) -> None:
    path = HERE / f"{name}.py"
    variant = VARIANTS[name]
    findings = check_source(path.read_bytes(), str(path.resolve()), _options(name))
    assert [(f.rule, f.line) for f in findings] == [(rule, line_of(path, fragment))
                                                    for rule, fragment in variant.found], findings
    source = fix_source(path.read_bytes(), str(path.resolve()), _options(name)).source.decode()
    for fragment in variant.rewritten:
        assert fragment in source, source
    assert check_source(source.encode(), "rewritten.py", _options(name)) == []  # nothing left, no loop


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_originals_graph_keeps_the_examples_sizes(name: str, built) -> None:
    module, original, _, _, before, _, before_path, after_path = built(name)
    other = VARIANTS[name].other
    with torch.no_grad():
        want = original(*other).numpy()
    try:
        [got] = before.run(None, {n: t.numpy() for n, t in zip(input_names(original), other)})
    except Exception:  # noqa: BLE001 - ONNX Runtime's refusal (Expand, Concat, Reshape) is the symptom
        return
    # ONNX Runtime ran it: the graph still declares the example's batch for its output (PennyLane's empty
    # constant, which ONNX Runtime's Concat skips), where the rewritten graph's batch is symbolic.
    declared = onnx.load(str(before_path)).graph.output[0].type.tensor_type.shape.dim[0]
    rewritten = onnx.load(str(after_path)).graph.output[0].type.tensor_type.shape.dim[0]
    assert declared.dim_value == module.inputs(seeded(0))[0].shape[0] and not declared.dim_param, declared
    assert rewritten.dim_param and not rewritten.dim_value, rewritten
    assert got.shape == want.shape  # ONNX Runtime computes it anyway: the declared shape is the problem


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_rewritten_graph_follows_other_sizes_and_edge_values(name: str, built) -> None:
    module, original, _, _, _, after, _, _ = built(name)
    variant = VARIANTS[name]
    sets = {"example": module.inputs(seeded(0)), "other": variant.other, **variant.sets}
    for label, inputs in sets.items():
        if label.startswith("eager-"):
            continue
        assert_graph_within(after, original, inputs, variant.tolerance, f"{name} {label}")


@pytest.mark.parametrize("name", list(VARIANTS))
def test_eager_mode_is_unchanged(name: str, built) -> None:
    module, original, rewritten, _, _, _, _, _ = built(name)
    variant = VARIANTS[name]
    assert_eager_unchanged(original, rewritten, {"example": module.inputs(seeded(0)), "other": variant.other,
                                                 **variant.sets})


@pytest.mark.parametrize("name", MIGRATED)
def test_migrate_applies_trt349_at_the_constructor_and_ends_equivalent(name: str) -> None:
    path = HERE / f"{name}.py"
    module, _ = built_variant(path, f"trt349_m_{name}")
    report = migrate_json(path, axes_json(module))
    applied = sorted((fix["rule"], fix["line"]) for fix in report["applied"])
    assert [fix for fix in applied if fix[0] == "TRT349"] == [
        ("TRT349", line_of(path, fragment)) for rule, fragment in VARIANTS[name].found if rule == "TRT349"], applied
    assert report["exit_code"] == 0 and report["equivalent"] is True, (report["remaining"], report.get("reverted"))


def test_a_data_receiver_counts_as_a_tensor_only_for_a_local_name() -> None:
    """``x.data.new(...)`` of a local name is the Variable-era tensor idiom; ``self.data.new(...)`` (an attribute
    that may hold anything) is not taken from the code alone."""
    head = ("import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, tokens, enc):\n"
            "        bsz, steps = tokens.size()\n        x = self.embed(tokens)\n")
    options = Options(select=("TRT349",), scope="all")
    taken = head + "        return x.data.new(bsz, enc.size(0)).zero_()\n"
    assert [f.rule for f in check_source(taken.encode(), "m.py", options)] == ["TRT349"]
    new = fix_source(taken.encode(), "m.py", options).source.decode()
    assert new.endswith("        return x.data.new_empty(bsz, enc.size(0)).zero_()\n"), new
    for left in ("        return self.data.new(bsz, enc.size(0))\n",  # an attribute: anything
                 "        return x.new(bsz, enc.size(0))\n"):  # a module's result: not shown to be a tensor
        assert check_source((head + left).encode(), "m.py", options) == [], left
