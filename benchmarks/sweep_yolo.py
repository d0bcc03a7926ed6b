"""A sweep of the packaged original YOLOv5 (``yolov5`` 7.0.14) through migrate: many of its models, none in a zoo.

    python benchmarks/sweep_yolo.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Not a held-out zoo but a sweep: the aim is to find which idioms of this library stop migrate most often, and fix
those classes in general. ``yolov5`` is the pip package of the original YOLOv5 code (models/yolo.py's Detect and
Segment heads with their grid and anchor caches, models/common.py's blocks, the yaml configs, utils' test-time
augmentation, box and mask post-processing); no zoo ran it (the zoos' YOLOv5 models are ultralytics' rewrites). It is
unpacked from its wheel like the other pins (``PINS_YOLO``), never pip-installed; it imports matplotlib, pandas,
seaborn and setuptools' ``pkg_resources`` at module level (the ``bench`` extra lists them). Megvii's ``yolox`` 0.3.0
was dropped: the index has only its source distribution, whose build fails here. Ultralytics' own configs are swept by
other work.

The models were chosen across the library's breadth, not by what migrate might do with them: the detection configs
of models/ and models/hub/ (P2 to P7 heads, FPN, PANet, BiFPN, ghost, transformer and LeakyReLU variants, YOLOv3,
YOLOv3-SPP and YOLOv3-tiny), with width and depth multipliers made small where the config's are large; the
segmentation model and its mask decoding (top-k rows through ``process_mask``); the classifier cut from a detector;
test-time augmentation (``augment=True``: the input rescaled and padded to a stride multiple, predictions descaled);
the export mode that ``export.py`` sets (``Detect.export`` and ``Detect.dynamic``); NMS through
``non_max_suppression`` (data-dependent: its row count cannot be made faithful); and three configs written as users
write them from the library's other blocks (Focus, SPP and BottleneckCSP as in v5.0; Contract and Expand;
MixConv2d, CrossConv, C3x, C3SPP, C3Ghost and depthwise transposed convolutions). All ``nc=3``, random weights,
eval mode; the outputs are the decoded predictions the model returns in eval mode. Dynamic axes as a deploying user
declares them: batch, height and width (detectors at 128 px, 256 px for the P7 head, the classifier at 64 px).

Each model was built and run eagerly before migrate ran (deterministic, finite, at a second size of its stride
multiple; forwards of 1.7 s at most here). 23 models first; the last five (the other two mask decoders, boxes scaled
to the original, fused Conv+BN, an Ensemble) were added after the two fixes below, so their first contact is with
the fixes in place. Results (``--jobs 1``, 2 cores shared, load 4 to 7), by what stops each model, at the library's
line:

First contact (23 models): 2 clean (y5_s_export: export.py's ``Detect.dynamic`` rebuilds the grid on every call;
y5_n_cls), 2 fixed (y5_n_tta, y5_transformer), 19 not fixed. 17 of the 19 stopped at one line: the grid and anchor
cache of ``Detect`` (``if self.dynamic or self.grid[i].shape[2:4] != x[i].shape[2:4]:``,
yolov5/models/yolo.py:64), a traced constant that TRT726 is written for, but ``models/yolo.py`` imports torch and
``nn`` only through ``from yolov5.models.common import *``, so no rule looked at the file (the same in YOLOv7 and the
repositories cut from YOLOv5). Fixed by reading what a star import of the user's own module binds
(trtcodemod/star_imports.py): all 17 exit 0.
- y5_n_seg_masks: ``masks.gt_(0.5)`` (yolov5/utils/segment/general.py:67) exports as a bool ``Greater`` with no cast
  back (TorchScript exporter): the graph returns bool where the model returns float32. Fixed by TRT323
  (inplace-compare); what stops it now is the comparison of the thresholded masks: one element of 163840 differs
  between eager mode and ONNX Runtime (a thresholded value: before the threshold the masks come within 2.4e-6 of 0.5
  on such inputs, and the float64 run does not admit the graph's side), so the rewrite is not equivalent and TRT726's candidate is reverted with it. y5_n_seg_upsample (line 40),
  added later: the same.
- y5_n_nms: ``non_max_suppression`` (yolov5/utils/general.py:900-963: a loop over the batch, emptiness tests, a time
  limit): data-dependent, named at those lines with the manual step; its export also stops on an exporter assertion
  (``aten::bitwise_and``) placed at no line.

After the fixes (28 models): 2 clean; 26 need work, of which migrate fixes 21 (exit 0); not fixed:
y5_n_seg_masks and y5_n_seg_upsample (the thresholded masks above), y5_n_nms (NMS), y5_n_seg_native (the letterbox
gain ``min(mh / shape[0], mw / shape[1])`` and ``int(pad[1])`` in Python, general.py:82-85: TRT712 has no rewrite for
a minimum of quotients, nor for ``int`` of an element of a tuple built from it), y5_n_boxes_scaled (the same gain in
``scale_boxes``, yolov5/utils/general.py:803, and ``boxes[..., [0, 2]] -= pad[0]`` at line 809: the TorchScript
exporter writes an index_put after an Ellipsis with an index list as a graph ONNX Runtime refuses, an Add with an
empty input; ``boxes[:, [0, 2]]`` exports right).

Stop 46 (re-run of y5_n_boxes_scaled alone at 08dcd90): TRT712 now takes the gain (a minimum of two float quotients:
``_trt_size_min_float``) and TRT344 the writes after the Ellipsis. The graph then loads and follows the sizes, but at
set 3 15 of 40 elements still differ, and TRT344 is taken back by the culprit test (alone it makes the original's refused
graph run, where the other bakes still show): exit 1, left.
"""

from __future__ import annotations

from real_zoo import DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo14 import PINS14

#: The fourteenth zoo's pins and the packaged original YOLOv5 (unpacked from its wheel, never pip-installed).
PINS_YOLO = {**PINS14, "yolov5": "7.0.14"}

_IMPORTS = ("import os\nimport yaml\nimport yolov5\nfrom yolov5.models.yolo import DetectionModel\n"
            "CFG = os.path.join(os.path.dirname(yolov5.__file__), 'models')")
_DET = "return self.m(x)[0]"
_IMG = "1, 3, 128, 128"


def _yaml(path: str, width: float | None = None, depth: float | None = None) -> str:
    """A DetectionModel built from one of the library's yaml files, its multipliers made small where given."""
    scale = "".join(f", {k}={v}" for k, v in (("width_multiple", width), ("depth_multiple", depth)) if v is not None)
    return f"DetectionModel(dict(yaml.safe_load(open(os.path.join(CFG, {path!r}))){scale}), nc=3)"


_ANCHORS = "[[10, 13, 16, 30, 33, 23], [30, 61, 62, 45, 59, 119], [116, 90, 156, 198, 373, 326]]"

#: YOLOv5s as v5.0 wrote it: Focus stem, BottleneckCSP stages, SPP.
_V50 = f"""
nc: 3
depth_multiple: 0.33
width_multiple: 0.125
anchors: {_ANCHORS}
backbone:
  [[-1, 1, Focus, [64, 3]],
   [-1, 1, Conv, [128, 3, 2]],
   [-1, 3, BottleneckCSP, [128]],
   [-1, 1, Conv, [256, 3, 2]],
   [-1, 9, BottleneckCSP, [256]],
   [-1, 1, Conv, [512, 3, 2]],
   [-1, 9, BottleneckCSP, [512]],
   [-1, 1, Conv, [1024, 3, 2]],
   [-1, 1, SPP, [1024, [5, 9, 13]]],
   [-1, 3, BottleneckCSP, [1024, False]]]
head:
  [[-1, 1, Conv, [512, 1, 1]],
   [-1, 1, nn.Upsample, [None, 2, 'nearest']],
   [[-1, 6], 1, Concat, [1]],
   [-1, 3, BottleneckCSP, [512, False]],
   [-1, 1, Conv, [256, 1, 1]],
   [-1, 1, nn.Upsample, [None, 2, 'nearest']],
   [[-1, 4], 1, Concat, [1]],
   [-1, 3, BottleneckCSP, [256, False]],
   [-1, 1, Conv, [256, 3, 2]],
   [[-1, 14], 1, Concat, [1]],
   [-1, 3, BottleneckCSP, [512, False]],
   [-1, 1, Conv, [512, 3, 2]],
   [[-1, 10], 1, Concat, [1]],
   [-1, 3, BottleneckCSP, [1024, False]],
   [[17, 20, 23], 1, Detect, [nc, anchors]]]
"""

#: Space-to-depth stem (Contract) and depth-to-space upsampling in the neck (Expand).
_CONTRACT = f"""
nc: 3
depth_multiple: 1.0
width_multiple: 1.0
anchors: {_ANCHORS}
backbone:
  [[-1, 1, Conv, [16, 3, 1]],
   [-1, 1, Contract, [2]],
   [-1, 1, Conv, [32, 3, 1]],
   [-1, 1, Contract, [2]],
   [-1, 1, C3, [32]],
   [-1, 1, Conv, [64, 3, 2]],
   [-1, 1, C3, [64]],
   [-1, 1, Conv, [128, 3, 2]],
   [-1, 1, C3, [128]],
   [-1, 1, Conv, [256, 3, 2]],
   [-1, 1, SPPF, [256, 5]]]
head:
  [[-1, 1, Conv, [512, 1, 1]],
   [-1, 1, Expand, [2]],
   [[-1, 8], 1, Concat, [1]],
   [-1, 1, C3, [128, False]],
   [-1, 1, Conv, [256, 1, 1]],
   [-1, 1, Expand, [2]],
   [[-1, 6], 1, Concat, [1]],
   [-1, 1, C3, [64, False]],
   [[18, 14, 10], 1, Detect, [nc, anchors]]]
"""

#: The library's less used blocks: mixed depthwise kernels, cross convolutions, C3x, C3SPP, C3Ghost, transposed
#: (depthwise) convolutions as the upsampling.
_MIXED = f"""
nc: 3
depth_multiple: 1.0
width_multiple: 1.0
anchors: {_ANCHORS}
backbone:
  [[-1, 1, Conv, [16, 6, 2, 2]],
   [-1, 1, MixConv2d, [32, [1, 3, 5], 2]],
   [-1, 1, CrossConv, [32, 3, 1]],
   [-1, 1, Conv, [64, 3, 2]],
   [-1, 1, C3x, [64]],
   [-1, 1, Conv, [128, 3, 2]],
   [-1, 1, C3SPP, [128]],
   [-1, 1, Conv, [256, 3, 2]],
   [-1, 1, C3Ghost, [256]]]
head:
  [[-1, 1, DWConvTranspose2d, [128, 4, 2, 1, 0]],
   [[-1, 6], 1, Concat, [1]],
   [-1, 1, C3, [128, False]],
   [-1, 1, nn.ConvTranspose2d, [64, 2, 2]],
   [[-1, 4], 1, Concat, [1]],
   [-1, 1, C3, [64, False]],
   [[14, 11, 8], 1, Detect, [nc, anchors]]]
"""


def _custom(text: str) -> str:
    return f"DetectionModel(yaml.safe_load({text!r}), nc=3)"


#: Segmentation: the 10 rows of highest objectness decoded to boxes and their masks (crop, upsample, threshold).
_SEG_MASKS = ("pred, proto = self.m(x)[:2]\n        p = pred[0]\n        det = p[p[:, 4].topk(10).indices]\n        "
              "boxes = xywh2xyxy(det[:, :4])\n        "
              "masks = process_mask(proto[0], det[:, 5 + self.m.model[-1].nc:], boxes, x.shape[2:], upsample=True)\n"
              "        return boxes, masks")
#: The same rows through the other two mask decoders (crop after upsampling; ``native``: the letterbox padding
#: cropped from the prototypes first, with the gain and padding computed from the sizes).
_SEG_OTHER = ("pred, proto = self.m(x)[:2]\n        p = pred[0]\n        det = p[p[:, 4].topk(10).indices]\n        "
              "boxes = xywh2xyxy(det[:, :4])\n        "
              "return boxes, {fn}(proto[0], det[:, 5 + self.m.model[-1].nc:], boxes, x.shape[2:])")
#: Boxes of the 10 rows of highest objectness scaled back to a 480x640 original (utils.general scale_boxes, which
#: clips them in place).
_SCALED = ("p = self.m(x)[0][0]\n        det = p[p[:, 4].topk(10).indices]\n        "
           "return scale_boxes(x.shape[2:], xywh2xyxy(det[:, :4]), (480, 640))")
_NMS = ("det = non_max_suppression(self.m(x)[0], conf_thres=0.001, iou_thres=0.6, max_det=20)[0]\n        "
        "return det")

MODELS_YOLO = [
    # models/: the detection configs.
    Spec("y5_n", "yolov5 YOLOv5n (models/yolov5n.yaml)", _IMPORTS, _yaml("yolov5n.yaml"), _DET, _IMG, DYNAMIC_BHW),
    Spec("y5_s_export", "yolov5 YOLOv5s in export.py's mode (Detect.export and Detect.dynamic set)", _IMPORTS,
         _yaml("yolov5s.yaml", 0.25), _DET, _IMG, DYNAMIC_BHW,
         init="self.m.model[-1].export = True\n        self.m.model[-1].dynamic = True"),
    # models/hub/: other heads and necks.
    Spec("y5_n6", "yolov5 YOLOv5n6 (hub/yolov5n6.yaml: P3 to P6 heads)", _IMPORTS, _yaml("hub/yolov5n6.yaml"),
         _DET, _IMG, DYNAMIC_BHW),
    Spec("y5_p2", "yolov5 YOLOv5-P2 (hub/yolov5-p2.yaml: P2 to P5 heads)", _IMPORTS,
         _yaml("hub/yolov5-p2.yaml", 0.125, 0.33), _DET, _IMG, DYNAMIC_BHW),
    Spec("y5_p34", "yolov5 YOLOv5-P34 (hub/yolov5-p34.yaml: P3 and P4 heads)", _IMPORTS,
         _yaml("hub/yolov5-p34.yaml", 0.125), _DET, _IMG, DYNAMIC_BHW),
    Spec("y5_p7", "yolov5 YOLOv5-P7 (hub/yolov5-p7.yaml: P3 to P7 heads, AutoAnchor count)", _IMPORTS,
         _yaml("hub/yolov5-p7.yaml", 0.125, 0.33), _DET, "1, 3, 256, 256", DYNAMIC_BHW),
    Spec("y5_fpn", "yolov5 YOLOv5-FPN (hub/yolov5-fpn.yaml)", _IMPORTS, _yaml("hub/yolov5-fpn.yaml", 0.125, 0.33),
         _DET, _IMG, DYNAMIC_BHW),
    Spec("y5_panet", "yolov5 YOLOv5-PANet (hub/yolov5-panet.yaml: BottleneckCSP)", _IMPORTS,
         _yaml("hub/yolov5-panet.yaml", 0.125, 0.33), _DET, _IMG, DYNAMIC_BHW),
    Spec("y5_bifpn", "yolov5 YOLOv5-BiFPN (hub/yolov5-bifpn.yaml)", _IMPORTS,
         _yaml("hub/yolov5-bifpn.yaml", 0.125, 0.33), _DET, _IMG, DYNAMIC_BHW),
    Spec("y5_ghost", "yolov5 YOLOv5s-ghost (hub/yolov5s-ghost.yaml: GhostConv, C3Ghost)", _IMPORTS,
         _yaml("hub/yolov5s-ghost.yaml", 0.25), _DET, _IMG, DYNAMIC_BHW),
    Spec("y5_transformer", "yolov5 YOLOv5s-transformer (hub/yolov5s-transformer.yaml: C3TR)", _IMPORTS,
         _yaml("hub/yolov5s-transformer.yaml", 0.25), _DET, _IMG, DYNAMIC_BHW),
    Spec("y3", "yolov5 YOLOv3 (hub/yolov3.yaml)", _IMPORTS, _yaml("hub/yolov3.yaml", 0.125, 0.33), _DET, _IMG,
         DYNAMIC_BHW),
    Spec("y3_spp", "yolov5 YOLOv3-SPP (hub/yolov3-spp.yaml)", _IMPORTS, _yaml("hub/yolov3-spp.yaml", 0.125, 0.33),
         _DET, _IMG, DYNAMIC_BHW),
    Spec("y3_tiny", "yolov5 YOLOv3-tiny (hub/yolov3-tiny.yaml: ZeroPad2d, stride-1 max pool)", _IMPORTS,
         _yaml("hub/yolov3-tiny.yaml", 0.25), _DET, _IMG, DYNAMIC_BHW),
    # Configs written from the library's other blocks.
    Spec("y5_v50_focus", "yolov5 a v5.0-style YOLOv5s (Focus, BottleneckCSP, SPP)", _IMPORTS, _custom(_V50), _DET,
         _IMG, DYNAMIC_BHW),
    Spec("y5_contract_expand", "yolov5 a config with Contract (space to depth) and Expand (depth to space)",
         _IMPORTS, _custom(_CONTRACT), _DET, _IMG, DYNAMIC_BHW),
    Spec("y5_mixed_blocks", "yolov5 a config with MixConv2d, CrossConv, C3x, C3SPP, C3Ghost, transposed convs",
         _IMPORTS, _custom(_MIXED), _DET, _IMG, DYNAMIC_BHW),
    # Segmentation, classification.
    Spec("y5_n_seg", "yolov5 YOLOv5n-seg (segment/yolov5n-seg.yaml: predictions and prototypes)",
         _IMPORTS + "\nfrom yolov5.models.yolo import SegmentationModel",
         'SegmentationModel(os.path.join(CFG, "segment/yolov5n-seg.yaml"), nc=3)',
         "pred, proto = self.m(x)[:2]\n        return pred, proto", _IMG, DYNAMIC_BHW),
    Spec("y5_n_seg_masks", "yolov5 YOLOv5n-seg, top 10 rows and their masks (utils.segment process_mask)",
         _IMPORTS + "\nfrom yolov5.models.yolo import SegmentationModel\nfrom yolov5.utils.general import xywh2xyxy"
         "\nfrom yolov5.utils.segment.general import process_mask",
         'SegmentationModel(os.path.join(CFG, "segment/yolov5n-seg.yaml"), nc=3)', _SEG_MASKS, _IMG, DYNAMIC_BHW,
         calibrate="self.m(xb)"),
    Spec("y5_n_cls", "yolov5 classifier cut from YOLOv5n (ClassificationModel, cutoff 10)",
         _IMPORTS + "\nfrom yolov5.models.yolo import ClassificationModel",
         f"ClassificationModel(model={_yaml('yolov5n.yaml')}, nc=10, cutoff=10)", "return self.m(x)",
         "1, 3, 64, 64", DYNAMIC_BHW),
    # Inference-time extras: test-time augmentation, NMS.
    Spec("y5_n_tta", "yolov5 YOLOv5n with test-time augmentation (augment=True: rescaled, padded, flipped)",
         _IMPORTS, _yaml("yolov5n.yaml"), "return self.m(x, augment=True)[0]", _IMG, DYNAMIC_BHW),
    Spec("y5_n_nms", "yolov5 YOLOv5n and utils.general non_max_suppression (20 rows at most)",
         _IMPORTS + "\nfrom yolov5.utils.general import non_max_suppression", _yaml("yolov5n.yaml"), _NMS, _IMG,
         DYNAMIC_BHW + '\nunordered = ["output"]', calibrate="self.m(xb)"),
    Spec("y5_n_seg_upsample", "yolov5 YOLOv5n-seg, top 10 rows through process_mask_upsample",
         _IMPORTS + "\nfrom yolov5.models.yolo import SegmentationModel\nfrom yolov5.utils.general import xywh2xyxy"
         "\nfrom yolov5.utils.segment.general import process_mask_upsample",
         'SegmentationModel(os.path.join(CFG, "segment/yolov5n-seg.yaml"), nc=3)',
         _SEG_OTHER.format(fn="process_mask_upsample"), _IMG, DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("y5_n_seg_native", "yolov5 YOLOv5n-seg, top 10 rows through process_mask_native (padding cropped)",
         _IMPORTS + "\nfrom yolov5.models.yolo import SegmentationModel\nfrom yolov5.utils.general import xywh2xyxy"
         "\nfrom yolov5.utils.segment.general import process_mask_native",
         'SegmentationModel(os.path.join(CFG, "segment/yolov5n-seg.yaml"), nc=3)',
         _SEG_OTHER.format(fn="process_mask_native"), _IMG, DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("y5_n_boxes_scaled", "yolov5 YOLOv5n, top 10 boxes scaled to a 480x640 original (scale_boxes, clip_boxes)",
         _IMPORTS + "\nfrom yolov5.utils.general import scale_boxes, xywh2xyxy", _yaml("yolov5n.yaml"), _SCALED,
         _IMG, DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("y5_s_fused", "yolov5 YOLOv5s with Conv and BatchNorm fused (model.fuse(), as attempt_load does)",
         _IMPORTS, _yaml("yolov5s.yaml", 0.25) + ".fuse()", _DET, _IMG, DYNAMIC_BHW),
    Spec("y5_ensemble", "yolov5 Ensemble of YOLOv5n and YOLOv5-FPN (models.experimental, predictions concatenated)",
         _IMPORTS + "\nfrom yolov5.models.experimental import Ensemble",
         f"Ensemble().extend([{_yaml('yolov5n.yaml')}, {_yaml('hub/yolov5-fpn.yaml', 0.125, 0.33)}])",
         "return self.m(x)[0]", _IMG, DYNAMIC_BHW),
    # Last: its config sets the activation of every Conv built after it (a class attribute).
    Spec("y5_leakyrelu", "yolov5 YOLOv5s-LeakyReLU (hub/yolov5s-LeakyReLU.yaml)", _IMPORTS,
         _yaml("hub/yolov5s-LeakyReLU.yaml", 0.25), _DET, _IMG, DYNAMIC_BHW),
]

if __name__ == "__main__":
    main(MODELS_YOLO, "sweep_yolo", PINS_YOLO)
