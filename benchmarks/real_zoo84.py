"""An eighty-fourth real-model zoo, held out: chosen and written before migrate ran on any of them.

    python benchmarks/real_zoo84.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, in models a deploying engineer ships to TensorRT from small libraries,
after a zoo with no detector, keypoint, depth or super-resolution model: Detectron2-style instance segmentation and
person keypoints with their NMS and ROI heads, a query detector's NMS-free top-k export graph, two NMS-free one-to-one
detectors with their top-k selection, monocular geometry (points, normals, validity and metric scale), two
super-resolution networks and a cell-and-nucleus instance-embedding U-Net. The thirty-first zoo's pins and five
libraries by authors whose code no earlier zoo or sweep ran a model of (``PINS84``: unpacked wheels like the others,
never pip-installed): mayaku 2.0.1 (Emrah Nazif and Datamarkin, github.com/datamarkin/mayaku, Apache-2.0: a
re-implementation of Detectron2's R-CNNs in plain PyTorch, with its own query detector, UniQuery), fotonet 1.1.1 (iMGE,
github.com/iMGEai/fotonet, Apache-2.0), dlr-moge 2.0.0 with dlr-utils3d 1.3 (a packaging of Ruicheng Wang and
co-authors' MoGe, github.com/microsoft/MoGe, MIT, copyright Microsoft, and of its geometry helpers utils3d,
github.com/EasternJournalist/utils3d, MIT, copyright EasternJournalist; the wheels' metadata name no packager),
torch-enhance 0.1.8 (Isaac Corley, github.com/IsaacCorley/pytorch-enhance, Apache-2.0; he also maintains torchgeo, an
earlier zoo's library, whose code is not used here) and instanseg-torch 0.1.2 (Thibaut Goldsborough and co-authors,
github.com/instanseg/instanseg, Apache-2.0).

What the packages import beyond their networks: mayaku imports pydantic (its typed ``MayakuConfig``), PyYAML, NumPy and
SciPy, all in the venv; its top-level ``__init__`` imports the training and evaluation API, which runs without
pycocotools (imported only inside the COCO evaluator) and typer (the CLI's ``__main__``); ``build_detector`` comes from
``mayaku.cli._factory``, the factory its ``train``, ``predict`` and ``export`` use; its ``roi_align`` and ``nms`` call
torchvision's ops (the zoo's pure-PyTorch stand-ins here); its ``ROIPooler`` resolves ``sampling_ratio=0`` to a fixed 2
(not torchvision's adaptive count, which made zoo 83's cardamage ask for 51 GB). fotonet imports NumPy, PyYAML and (for
images and metrics) OpenCV, Pillow and matplotlib, all in the venv; ``Fotonet(pretrained=False)`` builds the untrained
graph (the release checkpoints are otherwise downloaded into a cache). dlr-moge imports utils3d (pinned) and
huggingface_hub (in the venv; ``from_pretrained``, not called) and SciPy in ``infer``'s host-side focal recovery;
``MoGeModel`` is built from the repository's v2 training configuration (``configs/train/v2.json``, the layout of the
released v2 models) with the released ViT-S variant's backbone, random weights (its DINOv2 loader is asked for
``pretrained=False``). torch-enhance's package ``__init__`` imports its datasets, metrics and losses (torchvision and
kornia, pinned); the models ship no weights. instanseg-torch's package ``__init__`` imports its inference class, whose
utilities import fastremap (compiled, not in the venv): the package is registered from its import spec without running
its ``__init__`` (``_without_init`` of real_zoo.py's ``STAND_INS``, as zoos 72 to 83 did) and the network imported from
its module. No weights are downloaded; nothing writes under the user's home. Nothing new in the ``bench`` extra.

Considered and dropped before any model was chosen (by the package index, the wheels' files and metadata and a first
reading of the imports): aura-sr 0.0.4 (fal's GigaGAN upscaler: its forward draws ``torch.randn_like`` noise and a
random style vector on every call, so no two forwards agree, its input is asserted to one 64x64 tile, and the released
layout has about 600 M parameters), depth-anything-3 0.1.1 (imports addict, e3nn (an earlier zoo's library), evo, open3d
and moviepy; the zoo 82 packaging of Depth Anything v2 is by the same team), panodac 0.1.1 (Depth Any Camera:
deformable-attention ops and a Swin backbone, not read further once MoGe was chosen), dwpose 1.0.1 (ONNX and TorchScript
runners, no network code), alchemypose (no wheel), and, in the package index only, depth-pro, unidepth, metric3d,
zoedepth and cellpose (no wheel of that name, or compiled dependencies such as fastremap). Within the chosen libraries:
mayaku's Faster R-CNN (the Mask R-CNN's box path), ConvNeXt backbones, UniQuery's mask and keypoint variants, its
training, COCO evaluation and CoreML/OpenVINO exporters; fotonet's fotonetn, fotonetm and fotonetl, its tracker and
video reading; MoGe v1 and ``infer``'s focal and shift recovery (NumPy and SciPy least squares per image, on the host),
its panorama splitting; torch-enhance's SRCNN, VDSR, ESPCN and Baseline; instanseg's ``InstanSeg_Torchscript``
post-processing (peak finding, crops, a pixel classifier and connected components over embeddings: it imports the
utilities that need fastremap) and its CellposeSAM network.

9 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 83 or
in the library sweeps (benchmarks/sweep_*.py; Mask and Keypoint R-CNN architectures were zooed from torchvision, here in
mayaku's Detectron2-style code; EDSR and SRResNet architectures may appear in other super-resolution libraries, here in
torch-enhance's), of the kinds that often need work for an ONNX or TensorRT deployment (mayaku R-CNNs: a Python list of
image dicts, ``ImageList.from_tensors`` padding to the size divisibility (32) with sizes from ``int(...)`` and a
``Tensor.item()`` fallback, FrozenBatchNorm as buffers, an FPN with a max-pool top block, anchors from Python loops over
the feature sizes, the RPN's per-level top-k, clipping, small-box removal and batched NMS, ROIAlignV2 with a fixed
sampling ratio over levels chosen per box (``torch.log2`` of the box scale, ``clamp``, boolean indexing per level and
scattering back), box decoding with ``clamp`` of ``dw``/``dh``, the per-class score threshold (data-dependent counts),
class-wise NMS and ``[:detections]``, ``Instances`` and ``Boxes`` structures; the mask head's transposed convolution and
the class-specific mask picked by ``arange`` indexing, sigmoid; the keypoint head's eight convolutions and transposed
convolution, heatmaps up-sampled by a factor and decoded per box by ``argmax`` over a bicubic resize to each box's own
size (a Python loop over the detections). UniQuery: FrozenBN ResNet-50 and FPN, a query head of several stages with
``grid_sample`` ROI pooling, top-k over flattened (query, class) pairs, ``%`` and ``//`` back to queries and classes,
``index_select`` and the clamp against a ``torch.tensor`` of the image's Python size. fotonet: a graph built from a
registry specification, BatchNorm, an anchor cache on the head keyed by the feature sizes (attributes set in the
forward), ``softplus`` distances to boxes, ``clamp`` of the logits; per image ``amax``, ``topk``, ``index_select``,
``.float().cpu()``, sigmoid, a second ``topk`` over flattened pairs, boolean filtering by the threshold, ``div(...,
rounding_mode="floor")`` and ``remainder``. MoGe-2: the aspect ratio and the base token grid computed in Python from the
image size and the token count (``round`` of square roots), DINOv2 with the input resized bicubically to the grid times
14 and position embeddings interpolated to it, intermediate layers projected by 1x1 convolutions, normalised view-plane
UV maps (``linspace``/``meshgrid`` of Python sizes) concatenated at five resolutions, transposed-convolution and
bilinear resamplers, three heads, bilinear resize to the image, ``permute`` to channels-last, ``exp`` remapping of the
points, ``F.normalize`` of the normals, sigmoid, the class token's MLP to a metric scale, a dict output. torch-enhance:
EDSR's 32 residual blocks of 256 channels with residual scaling and two pixel-shuffle stages; SRResNet's BatchNorm
residual blocks, PReLU and pixel shuffles. InstanSeg: a four-level U-Net of BatchNorm blocks, max pooling, up-sampling
by ``interpolate`` to the skip's size and concatenation, one decoder with six output blocks concatenated).

mayaku (COCO's 80 classes, or the person class with 17 keypoints; RGB images in [0, 1], scaled to 0..255 as its data
mapper hands them over): Mask R-CNN R50-FPN (44.3 M parameters) and Keypoint R-CNN R50-FPN (59.1 M) at Detectron2's test
settings (score threshold 0.05, NMS 0.5, at most 100 detections per image; 20 people per frame for the pose service: its
keypoint head of eight 512-channel convolutions runs on every kept box, about 1 s a box on one thread at 100), and
UniQuery with its default head (106.3 M) through ``export_forward`` (300 rows per image, no threshold: the host's).
fotonet (3 classes, say person, car and bicycle; letterboxed 320x320 images): the v1 ``fotonete`` graph (1.69 M) and the
v1.1 ``fotonets`` (14.8 M), each with ``_postprocess_single`` at 100 detections and a threshold of 0.001 (``predict``'s
0.25 keeps no box with random weights). dlr-moge: MoGe-2 ViT-S with the v2 configuration's heads (45.3 M), 600 base
tokens (``infer``'s range is 1200 to 3600; a CPU service's count). torch-enhance: EDSR 4x (the paper's large model, 43.1
M) and SRResNet 4x (1.55 M). instanseg-torch: ``InstanSeg_UNet`` as its model loader builds the cells-and-nuclei layout
(one decoder of 2, 2, 1, 2, 2 and 1 channels: coordinates, sigmas and seeds for cells and for nuclei; default widths 32
to 256; 3.82 M).

Each has the dynamic axes a deploying user declares: batch, height and width for every model (the R-CNNs pad to
multiples of 32 inside; fotonet and InstanSeg at multiples of 32; MoGe resizes to its token grid inside; the
super-resolution networks take any size). Inputs are all in [0, 1): images (2, 3, 256, 320) for mayaku, letterboxed (2,
3, 320, 320) for fotonet, photographs (2, 3, 240, 320) for MoGe, low-resolution images (2, 3, 40, 48) for EDSR and (2,
3, 64, 80) for SRResNet, tiles (2, 3, 256, 256) for InstanSeg. Set-valued outputs: the detectors' rows, ordered by
score, compared as sets (declared ``unordered``: near-ties between boxes; the R-CNNs' masks and keypoints on their axis
0 too). Outputs: rows (n, 7) of (image, x1, y1, x2, y2, score, class) with masks (n, 1, 28, 28) or keypoints (n, 17, 3);
UniQuery's rows (batch, 300, 6) of (x1, y1, x2, y2, score, class); fotonet's rows (n, 7) of (image, cx, cy, w, h, score,
class), normalised; points and normals (batch, H, W, 3), mask (batch, H, W) and metric scale (batch,); images (batch, 3,
4H, 4W); embeddings (batch, 10, H, W).

The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs,
outputs differing across the batch) before any migrate run, with a source tree unpacked by ``fetch_sources`` from
``PINS84`` and ``make_zoo``, each model in its own process with one thread, two processes at a time on a two-core
machine: at the spec's size, one more in the batch and a larger size (mayaku 3x256x320 and 1x384x512, fotonet 3x320x320
and 1x480x640, MoGe 3x240x320 and 1x360x480, EDSR 3x40x48 and 1x64x80, SRResNet 3x64x80 and 1x120x160, InstanSeg
3x256x256 and 1x384x512). All passed; two changes were made before any migrate run, both to mayaku: the Keypoint R-CNN's
budget of 20 people (at 100 detections its forward took over a minute for two images), and the detectors' calibration
runs the backbone and FPN alone (``backbone(...)``; through the whole R-CNN it took 73 s for the keypoint model). The
R-CNNs, UniQuery, fotonet, SRResNet and InstanSeg calibrate BatchNorm (FrozenBN buffers too) as real_zoo.py's detectors
do (``Spec.calibrate``); MoGe and EDSR have no BatchNorm. Imports take 1.1 to 5.5 s; builds 0.2 to 1.4 s, 3 to 16 s with
calibration. Forwards at the spec's size: Mask R-CNN 5.1 to 5.8 s (10.4 s once, beside the keypoint model; 7.6 to 8.4 s
for three images, 3.0 s for one at 384x512), Keypoint R-CNN 9.4 s (11.7 s for three images, 2.9 s for one at 384x512),
UniQuery 2.6 to 3.4 s (3.9 to 7.9 s for three, 2.0 s for one); fotonet 0.04 to 0.09 s (fotonete) and 0.21 to 0.67 s
(fotonets); MoGe 5.4 s (7.8 s for three, 2.4 s for one at 360x480); EDSR 4.1 to 4.9 s (13.3 s for three and 9.9 s for
one at 64x80: hence its small spec size); SRResNet 0.8 to 3.0 s; InstanSeg 1.0 to 4.7 s. Peak memory 0.42 to 1.68 GB a
process (1.97 GB for Mask R-CNN calibrated through the whole model). Odd, left as the libraries have them: every R-CNN
image fills its budget (100 boxes, 20 people) with random weights, the scores near the 0.05 threshold; fotonet's boxes
are normalised by the head's configured image size, not the input's; MoGe's mask probability and metric scale vary by
about 0.01 around 0.43 and 1.06 for any uniform input; InstanSeg's embeddings are near zero mean and unit spread (its
last blocks end in BatchNorm-free 1x1 convolutions).
"""

from __future__ import annotations

from real_zoo import STAND_INS, Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and five libraries by authors no earlier zoo or sweep ran, all unpacked wheels like the
#: others (never pip-installed): mayaku (R-CNN and query detectors: instances, keypoints, boxes), fotonet (NMS-free
#: detection), dlr-moge with dlr-utils3d (MoGe-2 monocular geometry), torch-enhance (super-resolution) and
#: instanseg-torch (cell instance segmentation).
PINS84 = {**PINS31, "mayaku": "2.0.1", "fotonet": "1.1.1", "dlr_moge": "2.0.0", "dlr_utils3d": "1.3",
          "torch_enhance": "0.1.8", "instanseg_torch": "0.1.2"}

_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'

#: The stand-ins of real_zoo.py (empty modules, packages registered without their ``__init__``).
_SHARED = STAND_INS

# ---------------------------------------------------------------------------------------------------------------
# mayaku: detectors are built from its typed configuration (``MayakuConfig``) by the CLI's ``build_detector``, the
# factory its ``train`` and ``predict`` use: random weights (the hub checkpoints are downloaded by ``load_detector``,
# not asked for). The R-CNNs take Detectron2's list of image dicts (RGB in 0..255, normalised inside); UniQuery's
# ``export_forward`` is the library's own traceable full-detector graph (one normalised image).
_MAYAKU = '''
from mayaku.cli._factory import build_detector
from mayaku.config.schemas import (MayakuConfig, ROIHeadsConfig, ROIKeypointHeadConfig, ROIMaskHeadConfig,
                                   TestConfig, UniQueryHeadConfig)

#: Detectron2's test-time budget per image (mayaku's default of 300 is for its NMS-free UniQuery decode); people per
#: frame for the pose service, whose keypoint head (eight 512-channel convolutions per person) runs on every one.
DETECTIONS, PEOPLE = 100, 20


def mask_rcnn():
    """Mask R-CNN R50-FPN for COCO's 80 classes (FrozenBN ResNet-50, FPN, RPN, box and mask heads)."""
    return build_detector(MayakuConfig(
        model={"meta_architecture": "mask_rcnn", "mask_on": True, "roi_mask_head": ROIMaskHeadConfig()},
        test=TestConfig(detections_per_image=DETECTIONS)))


def keypoint_rcnn():
    """Keypoint R-CNN R50-FPN for COCO's person and 17 keypoints (one class, the 8-convolution keypoint head)."""
    return build_detector(MayakuConfig(
        model={"meta_architecture": "keypoint_rcnn", "keypoint_on": True, "roi_heads": ROIHeadsConfig(num_classes=1),
               "roi_keypoint_head": ROIKeypointHeadConfig()},
        test=TestConfig(detections_per_image=PEOPLE)))


def backbone(model, images):
    """The detectors' backbone and FPN on images in [0, 1], normalised as ``_preprocess_image`` does: what
    ``Spec.calibrate`` runs (the FrozenBN layers are the ResNet's)."""
    return model.backbone((images * 255.0 - model.pixel_mean) / model.pixel_std)


def uniquery():
    """UniQuery with the library's default head on the FrozenBN ResNet-50 FPN (COCO's 80 classes)."""
    return build_detector(MayakuConfig(
        model={"meta_architecture": "uniquery", "uniquery_head": UniQueryHeadConfig()}))


class Instances(torch.nn.Module):
    """``GeneralizedRCNN``'s inference on a batch of RGB images in [0, 1] (scaled to 0..255 as the library's data
    mapper gives them): per image the RPN's proposals, the box head's per-class NMS and score threshold, then the
    mask or keypoint head on the kept boxes; rows of (image, x1, y1, x2, y2, score, class) concatenated over the
    batch, and the kept instances' mask probabilities (rows, 1, 28, 28) or keypoints (rows, 17, 3)."""

    def __init__(self, model, field):
        super().__init__()
        self.model = model
        self.field = field

    def forward(self, images):
        results = self.model([{"image": image * 255.0} for image in images])
        rows, extras = [], []
        for index, result in enumerate(results):
            found = result["instances"]
            boxes = found.pred_boxes.tensor
            image = torch.full((boxes.shape[0], 1), float(index))
            classes = found.pred_classes[:, None].to(boxes.dtype)
            rows.append(torch.cat([image, boxes, found.scores[:, None], classes], 1))
            extras.append(getattr(found, self.field))
        return torch.cat(rows), torch.cat(extras)


class TopK(torch.nn.Module):
    """UniQuery's ``export_forward`` (backbone, FPN, the query head's stages with ``grid_sample`` pooling, sigmoid
    and top-k over (query, class) pairs, boxes clamped to the image) for every image of a batch in [0, 1], normalised
    as ``_preprocess_image`` does; rows (batch, 300, 6) of (x1, y1, x2, y2, score, class)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, images):
        x = (images * 255.0 - self.model.pixel_mean) / self.model.pixel_std
        out = []
        for index in range(x.shape[0]):
            boxes, scores, labels = self.model.export_forward(x[index:index + 1])
            out.append(torch.cat([boxes, scores[:, None], labels[:, None].to(boxes.dtype)], 1))
        return torch.stack(out)'''

# ---------------------------------------------------------------------------------------------------------------
# fotonet: ``Fotonet(pretrained=False)`` builds an untrained network (the release checkpoints are downloaded into a
# cache otherwise): the v1 ``fotonete`` graph with no name, a v1.1 family member by name. The service is the tensor
# path of ``predict``: the network, then the library's own ``_postprocess_single`` per image.
_FOTONET = '''
from fotonet.engine.model import Fotonet

#: A small detector's classes (say, person, car and bicycle).
CLASSES = 3


class Detections(torch.nn.Module):
    """``Fotonet._predict_tensor`` on a batch of letterboxed images in [0, 1]: the one-to-one head's logits and
    normalised (cx, cy, w, h) boxes per anchor, then for each image ``_postprocess_single``: the strongest ``max_det``
    anchors by their best logit, sigmoid, top-k over (anchor, class) pairs, the confidence threshold (a
    data-dependent count), floor division and remainder back to rows and classes, boxes clipped to the unit square;
    rows of (image, cx, cy, w, h, score, class) concatenated."""

    def __init__(self, name=None, conf=0.001, max_det=100):
        super().__init__()
        self.fotonet = Fotonet(name, nc=CLASSES, pretrained=False, device="cpu")
        self.model = self.fotonet.model
        self.conf, self.max_det = conf, max_det

    def forward(self, images):
        out = self.model(images)
        nc = int(self.model.head.nc)
        rows = []
        for index in range(out.shape[0]):
            boxes, scores, classes = self.fotonet._postprocess_single(out[index, :, :nc], out[index, :, nc:],
                                                                      conf=self.conf, max_det=self.max_det)
            image = torch.full((boxes.shape[0], 1), float(index))
            rows.append(torch.cat([image, boxes, scores[:, None], classes[:, None].to(boxes.dtype)], 1))
        return torch.cat(rows)'''

# ---------------------------------------------------------------------------------------------------------------
# dlr-moge: MoGe-2 built from the repository's v2 training configuration (``configs/train/v2.json``) with the ViT-S
# DINOv2 backbone of the released ``moge-2-vits-normal``; random weights (``from_pretrained`` downloads from the hub).
_MOGE = '''
from moge.model.v2 import MoGeModel

#: The v2 configuration's heads: four resolutions above the patch grid, transposed-convolution up-sampling.
_HEAD = {"dim_in": [1024, 256, 128, 64, 32], "dim_res_blocks": [1024, 256, 128, 64, 32],
         "num_res_blocks": [0, 1, 1, 1, 0], "res_block_in_norm": "none", "res_block_hidden_norm": "none",
         "resamplers": ["conv_transpose", "conv_transpose", "conv_transpose", "bilinear"]}
#: Base ViT tokens per image: ``infer``'s range is 1200 to 3600; a CPU service's smaller count.
TOKENS = 600


def moge2_vits():
    """MoGe-2 (ViT-S/14 encoder, intermediate layers 2, 5, 8 and 11, points, normal and mask heads, metric scale)."""
    return MoGeModel(
        encoder={"backbone": "dinov2_vits14", "intermediate_layers": [2, 5, 8, 11], "dim_out": 1024},
        neck={**_HEAD, "dim_in": [1026, 2, 2, 2, 2], "dim_out": None, "num_res_blocks": [0, 2, 2, 2, 0]},
        points_head={**_HEAD, "dim_out": [None, None, None, None, 3]},
        normal_head={**_HEAD, "dim_out": [None, None, None, None, 3]},
        mask_head={**_HEAD, "dim_out": [None, None, None, None, 1]},
        scale_head={"dims": [384, 1024, 1024, 1]}, remap_output="exp", num_tokens_range=[1200, 3600])


class Geometry(torch.nn.Module):
    """``MoGeModel.forward`` as ``infer`` calls it, for RGB images in [0, 1]: the affine point map (batch, H, W, 3),
    unit normals (batch, H, W, 3), the validity mask's probability (batch, H, W) and the metric scale (batch,);
    ``infer``'s focal and shift recovery (NumPy and SciPy least squares) stays on the host."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, images):
        out = self.model(images, num_tokens=TOKENS)
        return out["points"], out["normal"], out["mask"], out["metric_scale"]'''

# ---------------------------------------------------------------------------------------------------------------
# torch-enhance: the models take the scale and channel count; random weights (the package ships none).
_ENHANCE = '''
from torch_enhance.models import EDSR, SRResNet'''

# ---------------------------------------------------------------------------------------------------------------
# instanseg-torch: the package ``__init__`` imports the inference class, whose utilities import fastremap (compiled,
# not in the venv): registered without running it, and the network imported from its module.
_INSTANSEG = _SHARED + '''
_without_init("instanseg")
from instanseg.utils.models.InstanSeg_UNet import InstanSeg_UNet'''

MODELS84 = [
    # mayaku: Detectron2-style R-CNNs and the NMS-free query detector.
    Spec("mayaku_mask_rcnn", "mayaku Mask R-CNN R50-FPN (80 classes, NMS, mask head)", _MAYAKU,
         'Instances(mask_rcnn(), "pred_masks")', "return self.m(x)", "2, 3, 256, 320",
         _BHW + '\nunordered = ["output.0", "output.1:0"]', calibrate="backbone(self.m.model, xb)"),
    Spec("mayaku_keypoint_rcnn", "mayaku Keypoint R-CNN R50-FPN (person, 17 keypoints)", _MAYAKU,
         'Instances(keypoint_rcnn(), "pred_keypoints")', "return self.m(x)", "2, 3, 256, 320",
         _BHW + '\nunordered = ["output.0", "output.1:0"]', calibrate="backbone(self.m.model, xb)"),
    Spec("mayaku_uniquery_topk", "mayaku UniQuery R50-FPN export_forward (NMS-free top-300)", _MAYAKU,
         "TopK(uniquery())", "return self.m(x)", "2, 3, 256, 320", _BHW + '\nunordered = ["output"]',
         calibrate="backbone(self.m.model, xb)"),
    # fotonet: NMS-free one-to-one detectors with top-k selection.
    Spec("fotonet_e_topk", "fotonet fotonete (v1, 3 classes) with predict's top-k selection", _FOTONET,
         "Detections()", "return self.m(x)", "2, 3, 320, 320", _BHW + '\nunordered = ["output"]',
         calibrate="self.m.model(xb)"),
    Spec("fotonet_s_topk", "fotonet fotonets (v1.1, 3 classes) with predict's top-k selection", _FOTONET,
         'Detections("fotonets")', "return self.m(x)", "2, 3, 320, 320", _BHW + '\nunordered = ["output"]',
         calibrate="self.m.model(xb)"),
    # dlr-moge: monocular geometry (points, normals, mask, metric scale).
    Spec("moge2_vits", "dlr-moge MoGe-2 ViT-S (points, normals, mask, metric scale)", _MOGE, "Geometry(moge2_vits())",
         "return self.m(x)", "2, 3, 240, 320", _BHW),
    # torch-enhance: super-resolution.
    Spec("torch_enhance_edsr_x4", "torch-enhance EDSR 4x", _ENHANCE, "EDSR(scale_factor=4, channels=3)",
         "return self.m(x)", "2, 3, 40, 48", _BHW),
    Spec("torch_enhance_srresnet_x4", "torch-enhance SRResNet 4x", _ENHANCE, "SRResNet(scale_factor=4, channels=3)",
         "return self.m(x)", "2, 3, 64, 80", _BHW, calibrate="self.m(xb)"),
    # instanseg-torch: cell and nucleus embedding maps.
    Spec("instanseg_unet", "instanseg-torch InstanSeg_UNet (cells and nuclei: coordinates, sigmas, seeds)",
         _INSTANSEG, "InstanSeg_UNet(in_channels=3, out_channels=[2, 2, 1, 2, 2, 1])", "return self.m(x)",
         "2, 3, 256, 256", _BHW, calibrate="self.m(xb)"),
]

if __name__ == "__main__":
    main(MODELS84, "real_zoo84", PINS84)
