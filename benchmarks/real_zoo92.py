"""A ninety-second real-model zoo, held out: chosen and written before migrate ran on any of them.

    python benchmarks/real_zoo92.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Like the eighty-seventh to ninety-first, every model keeps the library's own tensor post-processing or control flow
inside the wrapper's forward: yolo9's GELAN heads (anchors from the feature sizes, cached on the head by input shape,
DFL decoding), the repository's ``non_max_suppression`` (a per-image Python loop of boolean masks, a class offset,
torchvision's ``nms``, a cap and a wall-clock time limit) and ``process_mask`` (prototype products, upsampling, box
cropping, a 0.5 threshold); yowo's own YOLO11/YOLO26 head (strides inferred on the first call from the feature
sizes into a buffer behind a Python flag, anchors cached by feature shapes, an in-place ``sigmoid_``, and YOLO26's
NMS-free ``topk``/``gather``); skelenet's soft-argmax keypoints, its box head's argmax-centredness ``gather`` decode
and, in one model, that box fed back as the soft region of interest of a second pass; thulium-htr's attention
decoding (a batched greedy loop with an early ``break`` on ``finished.all()``, and a per-line beam search of
``topk``, ``.item()`` reads and Python beam lists); bangla-ocr's ``BanglaOCR.predict`` (per image, a token loop
that rebuilds a ``LongTensor`` from a Python list and reads ``argmax(2)[-1].item()`` each step). The thirty-first
zoo's pins (torchvision among them: yolo9's NMS calls its ``nms``, served by the zoo's plain-PyTorch stand-in) and
five libraries no earlier zoo or sweep unpacked (``PINS92``: unpacked wheels like the others, never pip-installed):

- yolo9 1.0.18 ("Package version of WongKinYiu/yolov9": a fork wrapping github.com/WongKinYiu/yolov9, GPL-3.0 as
  the repository is; no author or project URL in its metadata). Its model yamls ship in the wheel (detection,
  segmentation, panoptic). YOLOv9 ran before only through ultralytics (zoos 4 and 10: YOLOv9t, YOLOv9e) and
  flashdet's own GELAN (zoo 88); WongKinYiu's code, its ``DDetect``/``Segment`` heads and its NMS never did
  (yolov9py and yolov9-trunk were dropped by earlier zoos because their wheels ship no yamls).
- yowo 2.2.1 (Tin Dang, Apache-2.0: "Production YOLO inference and export library for edge and cloud deployment";
  no project URL in its metadata): its own re-implementation of YOLO11 and YOLO26 (``yowo.arch``), not ultralytics'
  code.
- skelenet 0.3.1 (github.com/Ha-Mad/skelenet; no author or licence in its metadata or files: "Neural skeleton pose
  estimation — graph-transformer keypoint detection for any species").
- thulium-htr 1.2.1 (Thulium Contributors, github.com/olaflaitinen/Thulium, Apache-2.0: multilingual handwriting
  recognition).
- bangla-ocr 1.0.3 ("Bengali OCR Team", github.com/ayan-cs/bangla-ocr-transformer, MIT: a ResNet-18 and
  transformer-decoder OCR for printed and handwritten Bengali).

What the packages import beyond their networks: yolo9's ``utils.general`` imports IPython (not in the venv) and
``models.common`` ``IPython.display.display``; matplotlib, once its backend is switched by ``utils.plots``, asks an
imported IPython for ``get_ipython``: IPython is registered as an empty module with a ``get_ipython`` returning None
and a ``display`` never called. As published the package cannot import its model module: ``utils/tal/
anchor_generator.py`` (imported by ``models/yolo.py``) still says ``from utils.general import check_version``, the
repository's layout, and there is no top-level ``utils`` in the wheel (monodepth2's ``utils.py`` from the
thirty-first zoo's pins would be found instead). The wrapper does what a user does: it registers the package without
its ``__init__`` (which imports ``DetectMultiBackend`` and the rest of the inference front end), imports
``yolo9.utils.general`` and registers ``yolo9.utils`` and ``yolo9.utils.general`` as ``utils`` and
``utils.general``; it then imports ``yolo9.models.common`` first, as the package's ``__init__`` does
(``models.yolo`` and ``models.experimental`` import each other). The rest (OpenCV, pandas, PyYAML, requests,
matplotlib, seaborn) is in the venv. yowo's package ``__init__`` imports the whole engine (video IO, ONNX Runtime,
TensorRT, OpenVINO and Core ML back ends, ChromaDB): registered without it; ``yowo.arch`` imports torch and
``yowo.types`` (NumPy). skelenet's ``__init__`` imports PIL, torchvision's transforms and its Hugging Face loader:
registered without it; the model modules import torch only (timm and transformers only inside the pretrained-weight
loaders, off here). thulium's ``__init__`` imports its version only; the backbone, transformer head and attention
decoder import torch. bangla-ocr's ``__init__`` and ``ocr`` module import PIL, NumPy and torchvision's transforms,
its model torchvision's ``resnet18`` (pure Python): all importable. No weights are downloaded or loaded (bangla-ocr's
``_download_file`` of its tokenizer and weights, skelenet's ``load`` and pretrained ViT weights, yolo9's
``attempt_load`` are not called); nothing writes under the user's home. Nothing new in the ``bench`` extra.

Considered and dropped (by the package index, the wheels' files and metadata and a first reading of the code):
sas-yolov7-pose 1.0.5 (another packaging of WongKinYiu's YOLOv7-pose, which zoo 19 ran from yolov7-package), yololite
1.1.13 (its models import timm), tracktors 2.6.0.dev3 (tensor-native SORT/ByteTrack/OC-SORT with no network; it
installs a top-level ``trackers``), vnhtr 0.1.8 (script-style top-level ``config`` and ``submodules`` imports, pins
transformers 4.35; VGGTransformer is vietocr's architecture), memolib 1.10.4 (DINOv2/v3 backbones, hundreds of
millions of parameters), charnetocr 1.0.0 (ultralytics YOLO ``.pt`` files), libface 0.1.2 (facetorch's TorchScript
RetinaFace and downloads), litdet 0.1.0 (torchvision's Faster R-CNN and SSD), aquapose 4.0.0 (ultralytics backends,
NumPy/OpenCV pose post-processing), car-plate-recognition 0.1.3 (SwinIR super-resolution only), visin-fusion 0.7.0
(camera-LiDAR segmentation without post-processing), animeface 2.0.3 (a compiled extension), yowo's NMS
(``postprocess/_nms.py``: OpenCV's ``NMSBoxes`` on NumPy; the YOLO11 model returns the decoded map before it),
skelenet's ``two_stage_locate`` (its coarse stage labels blobs with SciPy on NumPy), thulium's CTC decoders (both
move each sequence to NumPy), and, with no wheel pip can use here or not the package the name suggests: strongsort,
density-maps, pandora-plugin-mccnn, atss, pymaf, pytracking and handtracking (unrelated packages of those names).
Earlier zoos' dropped lists name the rest (fcos, scrfd, anime-face-detector, yolov9py and others).

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 91
or in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT deployment:

yolo9 (YOLOv9 GELAN detection and instance segmentation; RGB in [0, 1); BatchNorm, calibrated): ``DetectionModel``
and ``SegmentationModel`` built from the wheel's yamls loaded into a dict (``nc`` 3; the segmentation model at width
0.25 and depth 0.33, as a user shrinks a config), which the constructor runs once on a 256x256 zero image to set the
strides. "gelan_t" (gelan-t.yaml: ELAN1, AConv, RepNCSPELAN4 and SPPELAN blocks, ``DDetect``; 1.91 M, 256x256) and
"gelan_c_seg" (gelan-c-seg.yaml: ADown, RepNCSPELAN4 with its inner widths unscaled, a ``Segment`` head with 32
prototypes on P3 and mask-coefficient convolutions; 13.99 M, 256x256). The heads cache ``anchors``/``strides`` on the
module when the input shape changes (``self.shape != shape``), then ``dist2bbox(self.dfl(box), ...)`` times the
strides and sigmoid class scores. ``detect.py``'s path passes the model's output to ``non_max_suppression``; this
package's version takes ``prediction[0][0]`` of a tuple (its dual heads' layout: for a ``DDetect`` model that is the
first image), so the wrapper passes the (B, 4 + nc, anchors) tensor, as the repository's val and segmentation paths
do. ``non_max_suppression``: ``amax`` over classes against the threshold, per image ``x.T[xc[xi]]``, ``xywh2xyxy``,
the best class, a sort capped at 30,000, boxes offset by class times 7680, ``torchvision.ops.nms``, the ``max_det``
cap, and a ``time.time()`` limit of 2.5 s plus 0.05 s an image that ``break``s the loop; for segmentation (``nm`` 32)
``process_mask(proto[i], det[:, 6:], det[:, :4], shape, upsample=True)``: the coefficients times the flattened
prototypes, ``sigmoid``, ``interpolate`` to the input size, ``crop_mask`` (an ``arange`` comparison per box), ``gt_``
0.5. With the heads' class-bias prior (5 objects in 80 classes per 640 image) random scores stay under 0.03: the
confidence is 0.004 and 0.005 (the repository validates at 0.001). Rows (n, 7) of (x1, y1, x2, y2, score, class,
image), a set; for segmentation the masks (n, H, W) follow the rows' order (``unordered = ["output.0",
"output.1:0"]``). Batch, height and width dynamic (multiples of 32).

yowo (YOLO11 and YOLO26 detection, the library's own implementation; RGB in [0, 1); BatchNorm, calibrated):
``YOLOModel`` from ``get_config(family, size)`` with ``dataclasses.replace`` for 20 classes (C3k2 backbone, SPPF,
C2PSA attention, an FPN-PAN neck, the decoupled ``Detect`` head with depthwise class towers). The head's ``_decode``:
on the first call ``_init_strides`` (a ``torch.tensor`` of the levels' Python heights, ``max / sizes * 8`` copied into
the ``stride`` buffer, ``_strides_initialized`` set, the cache reset), then anchors cached under a key of the feature
shapes (``make_anchors``: ``arange``, ``meshgrid``, ``expand`` of the strides), pre-transposed copies kept on the
module, the DFL (a softmax over 16 bins times an ``arange`` buffer, summed), ``dist2bbox`` and an in-place ``sigmoid_``
of the class map. "yolo26n" (end-to-end: the one-to-one heads, then ``_postprocess_end2end``: ``max`` over classes,
``topk`` of ``max_det`` 100, ``gather`` of boxes and classes; 2.51 M; rows (B, 100, 6) of x1, y1, x2, y2, score,
class, compared as sets along axis 1, ``unordered = ["output:1"]``) and "yolo11s" (reg_max 16, the decoded
(B, 24, anchors) map of xywh and 20 class scores that the library's NumPy NMS reads; 9.44 M). 256x256; batch, height
and width dynamic.

skelenet (animal pose; RGB in [0, 1), as its transforms' normalisation is outside the model; BatchNorm in the heatmap
and segmentation heads, calibrated): ``AnimalPoseModel`` with a ViT-S/16 backbone (``pretrained`` off; 12 blocks tapped
at 3, 6, 9 and 12, projected to 256, 512, 1024 and 384 channels and resized to a four-level pyramid), a deconvolution
heatmap head (64x64), the anatomical graph transformer (keypoint queries, hop-distance embeddings from the skeleton),
regression, graph-refinement and uncertainty heads, the FCOS-style ``DenseBoxHead`` and a segmentation head; an
11-keypoint bird skeleton written here (the published ones come with checkpoints); 28.03 M. Its forward decodes in
tensors: ``heatmap_to_coordinates`` (a temperature-10 softmax, soft-argmax over ``arange`` grids, peak over uniform as a
sigmoid confidence) and ``DenseBoxHead._decode`` (DFL expectation, cell centres from ``meshgrid``, ``argmax`` of the
centredness, ``gather`` of the four distances and the centre, clamping). "pose" runs it once; "pose_roi" converts the
decoded box with ``DetectionHead.bbox_cxcywh_to_xyxy`` and runs again with it as ``center_region`` (``_apply_soft_roi``:
sigmoid windows from ``linspace`` grids multiplied into every level), as the library's two-stage locator feeds its crop
back. Outputs the keypoints (B, 11, 2) in [0, 1], their confidences (B, 11), the box (B, 4, cxcywh) and its confidence
(B, 1), the mask probabilities (B, 1, 256, 256). The position table is fixed to 256x256 (no interpolation), so only the
batch is dynamic.

thulium-htr (handwritten line recognition; grayscale lines (B, 1, 64, W) in [0, 1); BatchNorm, calibrated through
the backbone): the library's ``ResNetBackbone`` ("resnet_small", one input channel), the height averaged away as its
``HTRModel`` does, a ``TransformerHead`` encoder (2 layers, 256 wide) and its ``AttentionDecoder`` (2 pre-norm
transformer decoder layers, 100 tokens, start 1, end 2, pad 0; 5.87 M), decoded by the library: "greedy"
(``decode_greedy``: the whole batch for up to 24 steps, the decoder over the growing prefix, ``argmax``, ``torch.cat``,
a ``finished`` mask and ``break`` on ``finished.all()``, then ``tolist()`` per line cut at the end token) and "beam"
(``decode_beam_search``, width 3: per line, ``log_softmax``, ``topk`` of 6 over the flattened beam-by-vocabulary
scores, ``//`` and ``%``, a Python loop with three ``.item()`` reads per candidate, finished beams kept in lists,
survivors padded with ``torch.full`` and stacked; the best finished beam by length-normalised score, else
the first live one). The decoder is the library's;
thulium's pipeline drives it from its CTC recogniser, so the encoder-decoder assembly is written here from its parts.
Outputs the ids (B, 24) padded with -1 and the encoder memory (B, W / 8, 256). Batch and width dynamic.

bangla-ocr (printed/handwritten Bengali lines; RGB (B, 3, H, W) in [0, 1); BatchNorm, calibrated through the
backbone): the library's network (torchvision's ResNet-18 without its classifier, a 1x1 projection to 256, sine
row and column tables sliced to the feature size, a PyTorch transformer decoder with 4 heads) inside ``BanglaOCR``,
built without its ``__init__`` (which downloads its pickled tokenizer and weights): the library's ``Tokenizer`` over
the Bengali Unicode block, its ``decode`` keeping ids; ``preprocess`` takes the tensor as it is (the library's
binarises and resizes with NumPy and PIL); ``_get_memory`` also keeps each line's memory. ``predict`` per image:
``_get_memory`` (``repeat`` of the tables to the grid, ``flatten``, ``permute``), then up to ``maxlen`` steps each
building a causal mask, a ``LongTensor`` of the Python token list, the decoder over the whole prefix and
``argmax(2)[-1].item()``, stopping at the end token. "ocr" (4 decoder layers, 32 tokens, 17.95 M; (2, 3, 64, 256),
batch and width dynamic) and "ocr_lines" (2 layers, 48 tokens, 14.80 M; (2, 3, 96, 384), batch, height and width
dynamic: the tables are sliced by both). Outputs the ids (B, maxlen) padded with -1 and the memories
(B, H / 32 x W / 32, 256).

Inputs: (2, 3, 256, 256) for yolo9, yowo and skelenet, (2, 1, 64, 256) for thulium, (2, 3, 64, 256) and
(2, 3, 96, 384) for bangla-ocr.

The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs,
outputs differing across the batch) before any migrate run, with a source tree unpacked by ``fetch_sources`` from
``PINS92`` and ``make_zoo``, each model in its own process with one thread, two processes at a time on a two-core
machine: at the spec's size, one more in the batch and, where the height or width is dynamic, twice them. Changes made
before any migrate run: yolo9's import workaround (above), its confidences (the library's 0.25 keeps nothing: random
scores stay under 0.03) and the tensor passed to its NMS (the model's tuple gave rows of the first image's channels).
Imports 1.5 to 3.1 s, builds 0.1 to 6.4 s with calibration. Forwards at the spec's size (two runs), one more in the
batch, the larger size: yolo9 gelan_t 0.10 to 0.11 s (11 rows: 8 and 3; 0.15 s, 54; 0.25 s at 512x512, 200), gelan_c_seg
0.22 to 0.24 s (19 rows and masks: 15 and 4; 0.33 s, 48; 1.06 s at 512x512, 118), yowo yolo26n 0.05 to 0.06 s (0.09 s;
0.25 s at 512x512), yolo11s 0.15 to 0.17 s (0.23 s; 0.51 s at 512x512), skelenet pose 0.52 to 0.54 s (1.57 s beside
another process), pose_roi 1.03 to 1.44 s (1.55 s), thulium greedy 0.12 to 0.16 s (0.13 s; 0.13 s at width 512), beam
0.16 to 0.18 s (0.26 s; 0.24 s at width 512), bangla-ocr ocr 0.56 to 0.59 s (0.97 s; 0.72 s at width 512), ocr_lines
0.46 to 0.49 s (0.66 s; 0.67 s at 192x768). Peak memory 0.37 to 1.06 GB a process. With random weights bangla-ocr
decodes the same tokens for every line (its memories differ: the path is dominated by the embeddings), and thulium's
lines decode differently.

Odd, left as the libraries have them: yolo9's NMS stops on wall-clock time and reads a tuple's ``[0][0]``; its heads
cache anchors on the module by input shape; yowo's strides come from the first call's feature sizes and stay (a
Python flag), and its anchor cache is keyed by shapes; skelenet's box head reads the unmasked pyramid, so "pose_roi"
returns the same box as its first pass and the region changes only the keypoints and the mask; thulium's
``decode_beam_search`` is per line with ``.item()`` reads and ``decode_greedy`` stops early only when every line has
ended; bangla-ocr decodes image by image, rebuilding the prefix tensor from a Python list each step."""

from __future__ import annotations

from real_zoo import STAND_INS, Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins (torchvision among them: yolo9's ``non_max_suppression`` calls its ``nms``, served by
#: the zoo's plain-PyTorch stand-in) and five libraries no earlier zoo or sweep unpacked, all unpacked wheels like
#: the others (never pip-installed): yolo9 (WongKinYiu's YOLOv9 repository packaged with its model yamls: GELAN
#: detection and segmentation with the repository's NMS and mask assembly), yowo (its own YOLO11 and YOLO26
#: re-implementation: anchors and strides from the feature sizes, DFL decoding, YOLO26's NMS-free top-k), skelenet
#: (a ViT keypoint network with soft-argmax heatmaps, a graph transformer and an argmax-centredness box decoder),
#: thulium-htr (handwriting recognition: an attention decoder's greedy and beam-search loops) and bangla-ocr (a
#: ResNet-transformer OCR decoded token by token with ``.item()``).
PINS92 = {**PINS31, "yolo9": "1.0.18", "yowo": "2.2.1", "skelenet": "0.3.1", "thulium_htr": "1.2.1",
          "bangla_ocr": "1.0.3"}

_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_B = 'dynamic_axes = { x = { 0 = "batch" } }'

#: The stand-ins of real_zoo.py (empty modules, packages registered without their ``__init__``).
_SHARED = STAND_INS

# ---------------------------------------------------------------------------------------------------------------
# yolo9: ``utils.general`` imports IPython (not in the venv; only its notebook checks use it) and ``models.common``
# ``IPython.display.display`` (its notebook preview): an empty IPython with a ``display`` that is never called.
# The rest (OpenCV, pandas, PyYAML, requests, matplotlib, seaborn) is in the venv; the model yamls ship in the wheel.
_YOLO9 = _SHARED + '''
_not_installed("IPython").get_ipython = lambda: None
_not_installed("IPython.display").display = print
_without_init("yolo9")
import yolo9.utils.general
# The head's ``utils/tal/anchor_generator.py`` still imports ``utils.general`` (the repository's layout): as
# published the package cannot import ``models.yolo``. A user registers the package's utils under that name.
sys.modules["utils"], sys.modules["utils.general"] = yolo9.utils, yolo9.utils.general
from pathlib import Path
import yaml
import yolo9.models.common  # first, as the package's __init__ does (models.yolo <-> experimental import each other)
from yolo9.models.yolo import DetectionModel, SegmentationModel
from yolo9.utils.general import non_max_suppression
from yolo9.utils.segment.general import process_mask

_CFG = Path(yolo9.__path__[0]) / "models"


class Detections(torch.nn.Module):
    """A YOLOv9 model built by the library from its own yaml (random weights; ``nc`` and, for the segmentation
    model, the width and depth multiples set in the loaded dict as a user adapting a config does) and the
    post-processing of the repository's ``detect.py`` and ``segment/predict.py``: the ``DDetect``/``Segment`` head
    (anchors and strides from ``make_anchors`` over the feature sizes, cached on the head by input shape, DFL and
    ``dist2bbox``), then ``non_max_suppression`` (per image a confidence mask, ``xywh2xyxy``, the best class,
    a ``max_wh`` class offset, torchvision's ``nms``, a cap and a time limit) and, for segmentation,
    ``process_mask`` (the mask coefficients times the prototypes, ``sigmoid``, bilinear upsampling, ``crop_mask``
    to each box, ``gt_`` 0.5). Rows of (x1, y1, x2, y2, score, class, image); masks (n, H, W) beside them."""

    def __init__(self, cfg, nc=3, confidence=0.25, iou=0.45, max_det=100, width=None, depth=None):
        super().__init__()
        spec = yaml.safe_load((_CFG / cfg).read_text())
        spec["nc"] = nc
        if width is not None:
            spec["width_multiple"], spec["depth_multiple"] = width, depth
        self.segment = cfg.startswith("segment/")
        self.model = (SegmentationModel if self.segment else DetectionModel)(spec)
        self.confidence, self.iou, self.max_det = confidence, iou, max_det

    def forward(self, images):
        out = self.model(images)
        if self.segment:
            pred, proto = out[0], out[1][-1] if isinstance(out[1], (list, tuple)) else out[1]
        else:
            pred = out[0]  # (y, x): the package's NMS takes prediction[0][0] of a tuple (its dual heads' layout)
        found = non_max_suppression(pred, self.confidence, self.iou, max_det=self.max_det,
                                    nm=32 if self.segment else 0)
        rows, masks = [torch.zeros(0, 7)], [torch.zeros(0, *images.shape[2:])]
        for index, det in enumerate(found):
            rows.append(torch.cat([det[:, :6], torch.full((det.shape[0], 1), float(index))], 1))
            if self.segment and det.shape[0]:
                masks.append(process_mask(proto[index], det[:, 6:], det[:, :4], images.shape[2:], upsample=True))
        if self.segment:
            return torch.cat(rows), torch.cat(masks).float()
        return torch.cat(rows)'''

# ---------------------------------------------------------------------------------------------------------------
# yowo: the package ``__init__`` imports the whole inference engine (video IO, the ONNX/TensorRT/OpenVINO/Core ML
# back ends, an event bus, a ChromaDB cache): registered without it. ``yowo.arch`` imports torch and ``yowo.types``
# (NumPy) only.
_YOWO = _SHARED + '''
_without_init("yowo")
import dataclasses
from yowo.arch import YOLOModel, get_config
from yowo.types import ModelFamily, ModelSize


class Yolo(torch.nn.Module):
    """yowo's own YOLO11/YOLO26 network (``YOLOModel``: C3k2 backbone, SPPF, C2PSA attention, an FPN-PAN neck and
    the decoupled ``Detect`` head; random weights) as its PyTorch back end runs it. The head infers its strides
    on the first call from the feature sizes (``torch.tensor`` of Python ints, copied into a buffer, a flag set),
    caches anchors keyed by the feature shapes (``make_anchors``: ``arange``/``meshgrid`` per level), decodes DFL
    distances with ``dist2bbox`` and applies an in-place ``sigmoid_``; YOLO26 (end-to-end) then keeps its
    one-to-one head's top ``max_det`` (``max`` over classes, ``topk``, ``gather``), YOLO11 returns the decoded
    (B, 4 + nc, anchors) map the library's NumPy NMS reads."""

    def __init__(self, family, size="n", nc=80, max_det=300):
        super().__init__()
        config = get_config(ModelFamily(family), ModelSize(size))
        self.model = YOLOModel(dataclasses.replace(config, num_classes=nc, max_det=max_det))

    def forward(self, images):
        return self.model(images)'''

# ---------------------------------------------------------------------------------------------------------------
# skelenet: the package ``__init__`` imports PIL, torchvision's transforms and its Hugging Face loader: registered
# without it. ``skelenet._model`` and its submodules import torch only (timm and transformers only inside the
# pretrained-weight loaders, not called: ``pretrained`` is off).
_SKELENET = _SHARED + '''
_without_init("skelenet")
from skelenet._detection import DetectionHead
from skelenet._model import AnimalPoseModel
from skelenet._skeleton import Skeleton

CHICK = {"keypoints": ["beak", "head", "neck", "left_wing", "right_wing", "body", "left_leg", "right_leg",
                       "left_foot", "right_foot", "tail"],
         "edges": [["beak", "head"], ["head", "neck"], ["neck", "body"], ["body", "left_wing"],
                   ["body", "right_wing"], ["body", "left_leg"], ["body", "right_leg"], ["left_leg", "left_foot"],
                   ["right_leg", "right_foot"], ["body", "tail"]],
         "symmetric_pairs": [["left_wing", "right_wing"], ["left_leg", "right_leg"], ["left_foot", "right_foot"]]}


def config(size=256):
    return {"model": {
        "backbone": {"size": "small", "pretrained": False, "img_size": size, "patch_size": 16},
        "head": {"num_deconv_layers": 3, "num_deconv_filters": [128, 128, 128], "heatmap_size": [size // 4, size // 4]},
        "graph_transformer": {"num_layers": 2, "num_heads": 4, "dropout": 0.0},
        "detection": {"enabled": True, "hidden_dim": 128},
        "segmentation": {"enabled": True, "hidden_dim": 64},
        "input_size": [size, size]}}


class Pose(torch.nn.Module):
    """skelenet's ``AnimalPoseModel`` (a ViT-S/16 backbone tapped at four depths and projected to a pyramid, a
    deconvolution heatmap head, an anatomical graph transformer over the skeleton, regression and graph refinement
    heads, an uncertainty head, the FCOS-style ``DenseBoxHead`` and a segmentation head; random weights, an
    11-keypoint bird skeleton). Its forward decodes in tensors: ``heatmap_to_coordinates`` (a temperature-10
    softmax, soft-argmax over ``arange`` grids, a peak-to-uniform confidence) and the box head's ``_decode`` (DFL
    expectation, cell centres from ``meshgrid``, ``argmax`` of the centredness, ``gather`` of the distances,
    clamping). With ``roi`` the predicted box, converted by ``DetectionHead.bbox_cxcywh_to_xyxy``, is fed back as
    the ``center_region`` of a second pass (``_apply_soft_roi``: sigmoid masks from ``linspace`` grids over every
    pyramid level), as the two-stage locator feeds its crop. Outputs the keypoints (B, K, 2), their confidences
    (B, K), the box (B, 4) and its confidence (B, 1), and the mask probabilities (B, 1, H, W)."""

    def __init__(self, roi=False):
        super().__init__()
        self.model = AnimalPoseModel(config(), Skeleton(CHICK))
        self.roi = roi

    def forward(self, images):
        out = self.model(images)
        if self.roi:
            region = DetectionHead.bbox_cxcywh_to_xyxy(out["bbox"])
            out = self.model(images, center_region=region)
        return (out["final_coords"], out["heatmap_confidence"], out["bbox"], out["bbox_confidence"],
                out["mask_prob"])'''

# ---------------------------------------------------------------------------------------------------------------
# thulium-htr: the package ``__init__`` imports its version only; the backbone, transformer head and attention
# decoder modules import torch only.
_THULIUM = _SHARED + '''
from thulium.models.backbones.cnn_backbones import ResNetBackbone
from thulium.models.decoders.attention_decoder import AttentionDecoder
from thulium.models.sequence.transformer_heads import TransformerHead


class Lines(torch.nn.Module):
    """A thulium handwriting recogniser from the library's parts (random weights): ``ResNetBackbone``
    ("resnet_small"), the height averaged away as ``HTRModel`` does, a ``TransformerHead`` encoder and the
    ``AttentionDecoder`` (a pre-norm transformer decoder over the encoder memory, 100 tokens with pad, start and
    end ids 0, 1 and 2). Decoded by the library: ``decode_greedy`` (the whole batch step by step, ``argmax`` of the
    last position, ``torch.cat``, a ``finished`` mask and an early ``break`` on ``finished.all()``, then per line
    ``tolist()`` cut at the end token) or ``decode_beam_search`` (per line: ``topk`` of 2 x beam over the flattened
    beam-by-vocabulary scores, integer division and modulo, a Python loop of ``.item()`` reads, finished beams in
    lists, beams padded with ``torch.full`` and stacked). Outputs the token ids (B, max_len) padded with -1 and the
    encoder memory (B, W / 8, 256)."""

    def __init__(self, beam_width=0, max_len=24, vocab=100):
        super().__init__()
        self.backbone = ResNetBackbone(in_channels=1, config_name="resnet_small")
        self.encoder = TransformerHead(self.backbone.output_channels, hidden_size=256, nhead=4, num_layers=2)
        self.decoder = AttentionDecoder(vocab, d_model=256, encoder_dim=256, num_heads=4, num_layers=2,
                                        dim_feedforward=512, max_seq_len=max_len + 1)
        self.beam_width, self.max_len = beam_width, max_len

    def encode(self, lines):
        features = self.backbone(lines).mean(dim=2).transpose(1, 2)
        return self.encoder(features)

    def forward(self, lines):
        memory = self.encode(lines)
        if self.beam_width:
            found = self.decoder.decode_beam_search(memory, beam_width=self.beam_width, max_len=self.max_len + 1)
        else:
            found = self.decoder.decode_greedy(memory, max_len=self.max_len + 1)
        ids = torch.full((lines.shape[0], self.max_len), -1, dtype=torch.long)
        for index, tokens in enumerate(found):
            ids[index, :len(tokens)] = torch.tensor(tokens, dtype=torch.long)
        return ids, memory'''

# ---------------------------------------------------------------------------------------------------------------
# bangla-ocr: the package ``__init__`` imports ``BanglaOCR``, whose module imports PIL, NumPy and torchvision's
# transforms (all present); its model module imports torchvision's ``resnet18`` (pure Python). The tokenizer and
# weights are downloads (``_download_file``, under the user's home): not used, the class is built without its
# ``__init__``.
_BANGLA = _SHARED + '''
from bangla_ocr.model import BanglaOCR as Network
from bangla_ocr.ocr import BanglaOCR
from bangla_ocr.services import Tokenizer

#: The Bengali block (U+0980 to U+09FF), as the published tokenizer's character list is a download.
CHARS = [chr(code) for code in range(0x0980, 0x0A00)] + list(" .,-0123456789")


class TokenIds(Tokenizer):
    """The library's tokenizer (its special tokens, vocabulary size and maximum length); ``decode`` keeps the
    token ids as a tensor instead of joining characters into a string."""

    def decode(self, text):
        return torch.tensor([int(x) for x in text], dtype=torch.long)


class Reader(BanglaOCR):
    """``BanglaOCR`` built without ``__init__`` (which downloads the tokenizer and weights): ``preprocess`` takes
    the (3, H, W) tensor as it is (the library's is NumPy and PIL), ``_get_memory`` keeps each line's memory."""

    def preprocess(self, image):
        return image

    def _get_memory(self, imgs):
        memory = super()._get_memory(imgs)
        self.memories.append(memory[:, 0])
        return memory


class Lines(torch.nn.Module):
    """bangla-ocr's recogniser (a torchvision ResNet-18 without its classifier, a 1x1 projection, sine row and
    column position tables sliced to the feature size, a 4-layer PyTorch transformer decoder; random weights) read
    image by image through ``BanglaOCR.predict``: ``_get_memory`` (``repeat`` of the position tables to the
    feature grid, ``flatten``, ``permute``), then greedy decoding for ``maxlen`` steps, each building a
    ``LongTensor`` of the Python token list and a causal mask, running the decoder over the whole prefix and
    reading ``argmax(2)[-1].item()``, stopping at the end token. Outputs the ids (B, maxlen) padded with -1 and
    the memories (B, H / 32 x W / 32, 256)."""

    def __init__(self, max_len=32, layers=4):
        super().__init__()
        reader = Reader.__new__(Reader)
        reader.tokenizer = TokenIds(CHARS, max_len)
        reader.device = "cpu"
        reader.transform = lambda image: image
        reader.model = Network(reader.tokenizer.vocab_size, max_len, 256, 4, layers)
        self.model = reader.model
        self.reader = reader

    def forward(self, lines):
        self.reader.memories = []
        ids = torch.full((lines.shape[0], self.reader.tokenizer.maxlen), -1, dtype=torch.long)
        for index in range(lines.shape[0]):
            tokens = self.reader.predict(lines[index])
            ids[index, :tokens.shape[0]] = tokens
        return ids, torch.stack(self.reader.memories)'''

MODELS92 = [
    # yolo9: GELAN detection and segmentation with the repository's NMS and mask assembly.
    Spec("yolo9_gelan_t", "yolo9 GELAN-t (gelan-t.yaml, nc=3) with non_max_suppression", _YOLO9,
         'Detections("detect/gelan-t.yaml", confidence=0.004)', "return self.m(x)", "2, 3, 256, 256",
         _BHW + '\nunordered = ["output"]', calibrate="self.m.model(xb)"),
    Spec("yolo9_gelan_c_seg", "yolo9 GELAN-c-seg (width 0.25) with non_max_suppression and process_mask", _YOLO9,
         'Detections("segment/gelan-c-seg.yaml", confidence=0.005, width=0.25, depth=0.33)', "return self.m(x)",
         "2, 3, 256, 256",
         _BHW + '\nunordered = ["output.0", "output.1:0"]', calibrate="self.m.model(xb)"),
    # yowo: its own YOLO26 (NMS-free top-k) and YOLO11 (decoded anchors) heads.
    Spec("yowo_yolo26n", "yowo YOLO26n (end-to-end top-k, 20 classes, max_det 100)", _YOWO,
         'Yolo("yolo26", "n", nc=20, max_det=100)', "return self.m(x)", "2, 3, 256, 256",
         _BHW + '\nunordered = ["output:1"]', calibrate="self.m(xb)"),
    Spec("yowo_yolo11s", "yowo YOLO11s (anchor and DFL decoding, 20 classes)", _YOWO, 'Yolo("yolo11", "s", nc=20)',
         "return self.m(x)", "2, 3, 256, 256", _BHW, calibrate="self.m(xb)"),
    # skelenet: soft-argmax keypoints, a graph transformer and an argmax box decoder, once or fed back as an ROI.
    Spec("skelenet_pose", "skelenet AnimalPoseModel ViT-S (keypoints, box decode, mask)", _SKELENET, "Pose()",
         "return self.m(x)", "2, 3, 256, 256", _B, calibrate="self.m(xb)"),
    Spec("skelenet_pose_roi", "skelenet AnimalPoseModel ViT-S, its decoded box fed back as the soft ROI", _SKELENET,
         "Pose(roi=True)", "return self.m(x)", "2, 3, 256, 256", _B, calibrate="self.m(xb)"),
    # thulium-htr: attention decoding, greedy over the batch and beam search per line.
    Spec("thulium_greedy", "thulium-htr ResNet/transformer recogniser with AttentionDecoder.decode_greedy", _THULIUM,
         "Lines()", "return self.m(x)", "2, 1, 64, 256", 'dynamic_axes = { x = { 0 = "batch", 3 = "width" } }',
         calibrate="self.m.backbone(xb)"),
    Spec("thulium_beam", "thulium-htr ResNet/transformer recogniser with AttentionDecoder.decode_beam_search",
         _THULIUM, "Lines(beam_width=3)", "return self.m(x)", "2, 1, 64, 256",
         'dynamic_axes = { x = { 0 = "batch", 3 = "width" } }', calibrate="self.m.backbone(xb)"),
    # bangla-ocr: token-by-token greedy decoding with .item() per image.
    Spec("bangla_ocr", "bangla-ocr ResNet-18/transformer OCR with BanglaOCR.predict's greedy decoding", _BANGLA,
         "Lines()", "return self.m(x)", "2, 3, 64, 256", 'dynamic_axes = { x = { 0 = "batch", 3 = "width" } }',
         calibrate="self.m.model.get_feature(xb)"),
    Spec("bangla_ocr_lines", "bangla-ocr, 2 decoder layers, 48 tokens, height and width dynamic", _BANGLA,
         "Lines(max_len=48, layers=2)", "return self.m(x)", "2, 3, 96, 384", _BHW,
         calibrate="self.m.model.get_feature(xb)"),
]

if __name__ == "__main__":
    main(MODELS92, "real_zoo92", PINS92)
