"""A thirty-sixth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo36.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check: the thirty-first zoo's pins and two more libraries by two other authors,
whose code no earlier zoo or sweep ran (``PINS36``: unpacked wheels like the others, never pip-installed): deaotpy
1.11.0 (Zongxin Yang's AOT and DeAOT, semi-supervised video object segmentation, as packaged on PyPI; the wheel names no
author, its licence is z-x-yang's: configs per model size, a MobileNetV2 encoder with frozen BatchNorm, an identity
bank turning a one-hot reference mask into embeddings, LSTT blocks with long-term attention over the memory,
short-term local attention whose padded windows and masks are computed for the feature map's size, gated propagation,
an FPN decoder, and an inference engine that builds one DeAOT engine per group of objects when a reference frame is
added, separates the mask over them, keeps long- and short-term memories on them between frames and merges their
logits by soft aggregation; torch, torchvision and NumPy; its compiled ``spatial_correlation_sampler`` is absent, so
the library falls back to its own PyTorch local attention; the wheel also unpacks top-level ``tools`` and ``tracker``
folders) and centernet-ilvo 0.0.1.post1 (ILVO's CenterNet for plant centres, by Axel Willekens: a torchvision
ResNet or EfficientNet without its head, three bilinear upsampling stages with double convolutions and a 1x1 heatmap
head; ``centernet_ilvo.centernet`` imports torch and torchvision only, its ``predict`` module, never imported here,
needs OpenCV, scikit-image and cams_ilvo_utils). Nothing new in the ``bench`` extra. Only two libraries, not three:
considered and dropped before any model was chosen (by the wheel's files, metadata, a first import and a first look at
its code): deaotpy's AOT models (its packaged PyTorch local attention, used without the correlation sampler, adds
tensors of shapes (n, heads, hw, c) and (hw, n, c) and fails eagerly on every input; only DeAOT's gated propagation
runs), ffhq-align 1.0.4 (kynk94's FFHQ face alignment by kornia warps: its ops import
``torchvision.transforms.functional_tensor``, gone from torchvision), lightcnn-pytorch 1.2.1 (LightCNN face
embeddings: its package imports dlib, compiled), facetorch 0.6.2 (Tomas Gajarsky's face analysis: pins torch < 2.4
and needs hydra-core, codetiming, gdown and protobuf at import), fastface 0.1.4 (LFFD on pytorch-lightning 1.8; LFFD
is zooed), kapao-pytorch 0.1.1 (a wheel with an empty module), torchvision-yolov3 0.6.0 and craft-hw-ocr 1.1 (no
wheel), torch-2dtm 0.6.0 (cryo-EM template matching: needs torch-fourier-slice), Hough-TMF 0.2.5 (seismic template
matching: pandas and scikit-image at import, functions, no model), uttm 1.0.6 (template matching by a plain class
that defaults to CUDA, OpenCV and SciPy preprocessing) and torchmoon 1.0.4 (pins pytorch-lightning 1.5 and
torchvision 0.11); the libraries zoos 15 to 35 dropped or used, as they found.

18 models, not 20 (the time given to this zoo ran out before a third library was found), chosen by family before any
migrate run, none of them (library, architecture and variant) in zoos 1 to 35 or in the library sweeps
(benchmarks/sweep_*.py), all 18 from the two new libraries and at least 15 of the kinds that most often need work for
an ONNX or TensorRT deployment (engines built as modules inside the forward when a reference frame is added, state kept
on them between calls and reset by ``restart_engine``, a Python ``max(np.ceil(...))`` over the object count, one-hot
masks sliced per engine, local attention windows padded and masked for the map's size with boolean-mask indexing and
in-place ``+=`` on a masked selection, position embeddings built for the map's size, a Python loop over the frames axis
with an ``argmax`` written back into the memories, the user's CenterNet decode by max-pool peaks and ``topk`` with
class and cell by integer division, or by ``nonzero`` over a threshold). Video object segmentation, from deaotpy,
random weights, MobileNetV2 encoder, the reference mask drawn from the first frame's first channel (two objects, three
for the split variants): DeAOT-T, -S and -B on a reference and one frame (id logits at the frame's size), DeAOT-T's
probabilities over the ids in use, DeAOT-T over a clip, DeAOT-S over a clip with a long-term memory gap of 2, DeAOT-T
over a clip with short-term memory skip 2, DeAOT-T with three objects over two engines (one frame and a clip), DeAOT-S
with one object per engine, and DeAOT-T's image encoder with its sine position embedding. Centre heatmaps, from
centernet-ilvo, random weights, BatchNorm statistics from a calibration pass (``Spec.calibrate``): ResNet-18 and
EfficientNet-B4 heatmaps, ResNet-34, EfficientNet-V2-S and ResNet-50 with the user's top-20 decode, ResNet-50 and
ResNet-18 with every peak over 0.5 as a row (order not compared).

Each is small and has the dynamic axes a deploying user declares: height and width for DeAOT on a reference and one
frame and for the encoder (with batch), frames, height and width for the clips; batch, height and width for CenterNet
(multiples of 32). Machinery, table and counts are real_zoo2.py's. The wrappers were checked only for building and
running eagerly (deterministic over two forwards, finite outputs) at two sizes (the spec's, and one 32 px larger on
each dynamic image axis and one more frame or image where that axis is dynamic) before the first migrate run: with one
thread on the shared two cores (loaded by other sessions: times moved by up to 2x between
runs), each in its own process, a forward at the spec's size took 0.04 to 0.40 s (DeAOT-T's encoder the fastest, the
clips and the two-engine splits 0.37 to 0.40 s, the CenterNets 0.21 to 0.40 s) and at most 1.08 s at the larger size
(DeAOT-T over five frames of 96 x 128, before its size was cut); builds (imports included) took 5.9 to 19.6 s. Changed
after the first eager runs, before any migrate run: deaotpy's AOT was dropped (above); DeAOT-B on one frame went from
96 x 64 to 64 x 64 (0.29 s), DeAOT-T's short-term skip clip from 64 x 96 to 64 x 64 (0.40 s), the two-engine splits
from 64 x 64 to 48 x 64 (0.48 and 0.49 s), and the split with one object per engine from DeAOT-B (0.46 s at 48 x 64)
to DeAOT-S (0.22 s); three models were added to the first fifteen while the first eager runs went on (ResNet-18 by a
threshold, ResNet-50 by top-20, DeAOT-T's clip over two engines)."""

from __future__ import annotations

from real_zoo import DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and two libraries by two other authors, unpacked wheels like the others (never
#: pip-installed): deaotpy (Zongxin Yang's AOT and DeAOT video object segmentation as packaged on PyPI: an identity
#: bank, long- and short-term memories kept on engines built during inference, local attention by unfold-free padded
#: windows; torch, torchvision and NumPy) and centernet_ilvo (ILVO's CenterNet for plant centres, by Axel Willekens:
#: torchvision backbones, three upsampling stages and a heatmap head; torch and torchvision for the model).
PINS36 = {**PINS31, "deaotpy": "1.11.0", "centernet_ilvo": "0.0.1.post1"}

#: deaotpy's DeAOT engine for inference: the library's config for a model size, the model by its builder (random
#: weights, MobileNetV2 encoder) and the inference engine, which builds one DeAOT engine per group of objects when a
#: reference frame is added (its compiled correlation sampler is absent: the library falls back to its own PyTorch
#: local attention).
_DA = """from aot.configs.default import DefaultEngineConfig
from aot.networks.models import build_vos_model
from aot.networks.engines import build_engine


def deaot(model, **engine):
    \"\"\"The library's DeAOT inference engine around a randomly initialised DeAOT of the given size.\"\"\"
    cfg = DefaultEngineConfig("zoo", model)
    return build_engine("deaotengine", "eval", aot_model=build_vos_model("deaot", cfg), gpu_id=-1, **engine)"""


def _da_ref(objects: int) -> str:
    """Restart the engine and add the first frame with a mask of ``objects`` ids drawn from its first channel."""
    return ("self.m.restart_engine()\n        "
            f"mask = (x[:1, :1] * {objects + 1}).floor().clamp(max={objects})\n        "
            f"self.m.add_reference_frame(x[:1], mask, obj_nums={objects}, frame_step=0)\n        ")


#: The first frame is the reference (with its mask), the second is segmented: the id logits at the frame's size.
_DA_ONE = (_da_ref(2) + "self.m.match_propogate_one_frame(x[1:])\n        "
           "return self.m.decode_current_logits((x.shape[2], x.shape[3]))")
#: Every later frame propagated in turn, its predicted ids written back into the memories (the library's eval loop).
_DA_VIDEO = (_da_ref(2) + "out = []\n        "
             "for t in range(1, x.shape[0]):\n            "
             "self.m.match_propogate_one_frame(x[t:t + 1])\n            "
             "logits = self.m.decode_current_logits((x.shape[2], x.shape[3]))\n            "
             "self.m.update_memory(torch.argmax(logits, dim=1, keepdim=True).float())\n            "
             "out.append(logits)\n        "
             "return torch.cat(out)")
_DA_HW = 'dynamic_axes = { x = { 2 = "height", 3 = "width" } }'
_DA_THW = 'dynamic_axes = { x = { 0 = "frames", 2 = "height", 3 = "width" } }'

#: ILVO's CenterNet: a torchvision backbone without its head, three upsampling stages and a 1x1 heatmap head.
_CN = "from centernet_ilvo.centernet import CenterNet"


def _cn(backbone: str, classes: int) -> str:
    return f'CenterNet("{backbone}", pretrained=False, n_classes={classes})'


_CN_HEAT = "return torch.sigmoid(self.m(x))"
#: The user's CenterNet decode: peaks kept by a 3x3 max-pool, the best 20 over classes and cells per image, as rows
#: of score, class, row and column.
_CN_TOPK = ("heat = torch.sigmoid(self.m(x))\n        "
            "peaks = heat * (torch.nn.functional.max_pool2d(heat, 3, 1, 1) == heat)\n        "
            "n, c, h, w = peaks.shape\n        "
            "score, idx = peaks.reshape(n, -1).topk(20)\n        "
            "cls = torch.div(idx, h * w, rounding_mode=\"floor\")\n        "
            "cell = idx % (h * w)\n        "
            "return torch.stack([score, cls.float(), torch.div(cell, w, rounding_mode=\"floor\").float(), "
            "(cell % w).float()], -1)")
#: The user's decode by a threshold: every peak over 0.5 as a row with its image index (order not compared).
_CN_THRESH = ("heat = torch.sigmoid(self.m(x))\n        "
              "peaks = heat * (torch.nn.functional.max_pool2d(heat, 3, 1, 1) == heat)\n        "
              "idx = torch.nonzero(peaks > 0.5)\n        "
              "return torch.cat([idx.float(), peaks[idx[:, 0], idx[:, 1], idx[:, 2], idx[:, 3]][:, None]], 1)")
_UNORDERED = '\nunordered = ["output"]'

MODELS36 = [
    # deaotpy: semi-supervised video object segmentation (random weights, MobileNetV2 encoder).
    Spec("da_deaott_logits", "deaotpy DeAOT-T (one LSTT block, MobileNetV2): the inference engine restarted, an "
         "engine built for the reference frame's objects, identity embeddings from the one-hot mask, one frame "
         "propagated by long-term, short-term local (padded windows and masks computed for the map's size) and "
         "gated attention, the FPN decoder's id logits resized to the frame", _DA, 'deaot("deaott")', _DA_ONE,
         "2, 3, 64, 96", _DA_HW),
    Spec("da_deaots_logits", "deaotpy DeAOT-S (two LSTT blocks) on a reference and one frame", _DA, 'deaot("deaots")',
         _DA_ONE, "2, 3, 64, 64", _DA_HW),
    Spec("da_deaotb_logits", "deaotpy DeAOT-B (three LSTT blocks) on a reference and one frame", _DA,
         'deaot("deaotb")', _DA_ONE, "2, 3, 64, 64", _DA_HW),
    Spec("da_deaott_prob", "deaotpy DeAOT-T: the probabilities of background and the two objects (softmax over "
         "the ids in use)", _DA, 'deaot("deaott")',
         _DA_ONE.replace("return self.m.decode", "logits = self.m.decode") + "\n        "
         "return torch.softmax(logits[:, :3], dim=1)", "2, 3, 64, 64", _DA_HW),
    Spec("da_deaott_video", "deaotpy DeAOT-T over a clip: every later frame propagated, its argmax ids written "
         "back into the short-term memory (a loop over the frames axis, state kept on the engines)", _DA,
         'deaot("deaott")', _DA_VIDEO, "3, 3, 64, 64", _DA_THW),
    Spec("da_deaots_video_longterm", "deaotpy DeAOT-S over a clip with a long-term memory gap of 2 (the long-term "
         "memories concatenated every second frame)", _DA, 'deaot("deaots", long_term_mem_gap=2)', _DA_VIDEO,
         "4, 3, 64, 64", _DA_THW),
    Spec("da_deaott_video_skip", "deaotpy DeAOT-T over a clip, short-term memory updated every second frame "
         "(short_term_mem_skip=2)", _DA, 'deaot("deaott", short_term_mem_skip=2)', _DA_VIDEO, "4, 3, 64, 64",
         _DA_THW),
    Spec("da_deaott_split", "deaotpy DeAOT-T with at most two objects per engine and three objects: the mask "
         "separated over two engines built in the forward, their logits merged by soft aggregation", _DA,
         'deaot("deaott", max_aot_obj_num=2)',
         _da_ref(3) + "self.m.match_propogate_one_frame(x[1:])\n        "
         "return self.m.decode_current_logits((x.shape[2], x.shape[3]))", "2, 3, 48, 64", _DA_HW),
    Spec("da_deaots_split", "deaotpy DeAOT-S with one object per engine and two objects (two engines, soft "
         "aggregation)", _DA, 'deaot("deaots", max_aot_obj_num=1)', _DA_ONE, "2, 3, 48, 64", _DA_HW),
    Spec("da_deaott_encode", "deaotpy DeAOT-T's encode_image (MobileNetV2 features at four strides, the last "
         "projected) and its sine position embedding built for the map's size", _DA, 'deaot("deaott")',
         "feats = self.m.AOT.encode_image(x)\n        return feats[-1], self.m.AOT.get_pos_emb(feats[-1])",
         "1, 3, 64, 96", DYNAMIC_BHW),
    # centernet_ilvo: CenterNet heatmaps (random weights, BatchNorm calibrated).
    Spec("cn_resnet18_heatmap", "centernet_ilvo CenterNet with a ResNet-18 backbone (three bilinear upsampling "
         "stages with double convolutions, a one-class heatmap at stride 4)", _CN, _cn("resnet18", 1), _CN_HEAT,
         "1, 3, 128, 128", DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("cn_resnet34_topk", "centernet_ilvo CenterNet ResNet-34, three classes, with the user's decode (max-pool "
         "peaks, top 20 per image over classes and cells, class, row and column by integer division)", _CN,
         _cn("resnet34", 3), _CN_TOPK, "1, 3, 128, 96", DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("cn_resnet50_thresh", "centernet_ilvo CenterNet ResNet-50, two classes, every max-pool peak over 0.5 as a "
         "row with its image, class and cell (nonzero)", _CN, _cn("resnet50", 2), _CN_THRESH, "1, 3, 96, 96",
         DYNAMIC_BHW + _UNORDERED, calibrate="self.m(xb)"),
    Spec("cn_efficientnet_b4_heatmap", "centernet_ilvo CenterNet with an EfficientNet-B4 backbone (stochastic depth, "
         "squeeze-excitation) and a two-class heatmap", _CN, _cn("efficientnet_b4", 2), _CN_HEAT, "1, 3, 96, 128",
         DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("cn_efficientnet_v2_s_topk", "centernet_ilvo CenterNet EfficientNet-V2-S, one class, with the user's top-20 "
         "decode", _CN, _cn("efficientnet_v2_s", 1), _CN_TOPK, "1, 3, 96, 96", DYNAMIC_BHW,
         calibrate="self.m(xb)"),
    Spec("cn_resnet18_thresh", "centernet_ilvo CenterNet ResNet-18, three classes, every max-pool peak over 0.5 as "
         "a row (nonzero) on a batch", _CN, _cn("resnet18", 3), _CN_THRESH, "2, 3, 96, 128",
         DYNAMIC_BHW + _UNORDERED, calibrate="self.m(xb)"),
    Spec("cn_resnet50_topk", "centernet_ilvo CenterNet ResNet-50, one class, with the user's top-20 decode on a "
         "batch", _CN, _cn("resnet50", 1), _CN_TOPK, "2, 3, 64, 96", DYNAMIC_BHW, calibrate="self.m(xb)"),
    # deaotpy again: a clip whose three objects are split over two engines, every frame's ids written back.
    Spec("da_deaott_video_split", "deaotpy DeAOT-T over a clip with three objects and at most two per engine: the "
         "predicted ids separated per engine (one-hot slices and sums) before each memory update", _DA,
         'deaot("deaott", max_aot_obj_num=2)', _DA_VIDEO.replace(_da_ref(2), _da_ref(3)), "3, 3, 48, 64", _DA_THW),
]

if __name__ == "__main__":
    main(MODELS36, "real_zoo36", PINS36)
