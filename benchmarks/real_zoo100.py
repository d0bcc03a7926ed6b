"""A hundredth real-model zoo, held out: chosen and written before migrate ran on any of them.

    python benchmarks/real_zoo100.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Like the eighty-seventh to ninety-ninth, every model keeps the library's own tensor pre- and post-processing or control
flow inside the wrapper's forward: LoMa's transformer matcher under the library's bfloat16 ``torch.autocast`` (rotary
Fourier encodings, self- and cross-attention, a dual softmax) with its ``filter_matches`` (mutual check by ``gather``,
``torch.where`` to -1) and ``match``'s read-out by ``torch.where`` and fancy indexing, all under
``torch.inference_mode``; NAGINI-3D's ``apply_network`` (a 3-D U-Net, ``find_centers``: a 26-kernel ``conv3d``, a
minimum and ``nonzero``; parameters gathered at the centres, ``spherical_to_xyz``, a sort) with its spline-surface
``draw_surface``, and the same over overlapping tiles whose bounds come from Python arithmetic on the shape, with a
float64 vote-averaged score map; pygmtools' deep graph matching (PCA-GM's Siamese graph convolutions and Sinkhorn
layers with per-graph node counts built by ``torch.tensor`` of a list; NGM on an affinity matrix built by
``dense_to_sparse``'s per-graph ``nonzero`` edge lists padded by ``build_batch`` and ``build_aff_mat``'s scatter, a
batch loop of slice writes for the start); nms-3d's ``while`` loop that compacts surviving boxes by boolean indexing;
and LaneQ's U-Net with ``pred_segmentation_mask``'s Python branch on the channel count and its threshold, and its SPPF
classifier. The thirty-first zoo's pins (torchvision among them) and five libraries no earlier zoo or sweep unpacked
(``PINS100``: unpacked wheels like the others, never pip-installed):

- lomatch 1.0.0 (Johan Edstedt, Linköping University, and David Nordström, Chalmers; the wheel names no licence, no
  licence file and no repository URL, its code fetches weights from github.com/davnords/storage, not used: "A very
  good local feature matcher", LoMa, a LightGlue-style matcher of DaD keypoints and DeDoDe descriptors; imports as
  ``loma``).
- nagini3d 0.2.3 (Quentin Rapilly, Inria, github.com/QuentinRapilly/NAGINI-3D, AGPL-3.0: NAGINI-3D, multi-object
  segmentation in 3-D biological images by a 3-D U-Net that predicts object centres and the control points of
  exponential-spline active surfaces; imports as ``nagini3D``).
- pygmtools 0.6.0 (ThinkLab at SJTU, pygmtools.readthedocs.io, Mulan PSL v2: graph matching solvers with
  NumPy, PyTorch and other backends, with the neural solvers PCA-GM, IPCA-GM, CIE, NGM and GENN-A*; its published
  weights, fetched from Hugging Face, Google Drive or Dropbox when ``pretrain`` is set, are not used). The only wheel
  is CPython 3.11 x86-64 for its compiled A* (``c_astar``, dropped by ``fetch_sources``; not called).
- nms_3d 0.2.0 (Giulio Russo and Ciro Russo, github.com/GiulioRusso/NMS-3D, MIT: "Minimal torch-only 3D bounding box
  non-maximum suppression (NMS)").
- laneq 0.3.1 (Ankith Boggaram, Douglas Fenwick and Nihal Karne, MIT; the wheel names no repository URL; weights at
  huggingface.co/dfenny/laneq, not used: "LaneQ: A Python package for lane line detection and classification",
  lane-marking segmentation and a degradation classifier of the segments).

What the packages import beyond their networks: ``loma.loma`` imports tyro (the command line's config types; not
installed: an empty module whose ``conf.subcommand`` returns None, read at module level into ``Annotated`` types),
NumPy, PIL, the DeDoDe descriptor (torchvision's VGG) and the DaD detector (``detector.utils``: OpenCV and
``loma.geometry``, present); ``LoMa.__init__`` builds the frozen DaD detector, whose constructor downloads its
published weights unconditionally, and the DeDoDe descriptor: while the matcher is built both names of ``loma.loma``
are an empty module (the matcher's ``forward`` never calls them). nagini3d has no ``__init__`` files (namespace
packages); ``models.model`` imports csbdeep's ``normalize`` (NumPy; not installed: an empty module, and the wrapper
gives ``normalize_img`` the same percentile normalisation in torch with ``torch.quantile``), omegaconf, SciPy and tqdm
(present) and, through ``refinement``, scikit-image's ``inverse_gaussian_gradient``, ``threshold_otsu`` and ``gaussian``
(not installed: empty modules holding None; the snake refinement is not run). pygmtools' ``__init__`` imports the
benchmark and dataset modules (requests, PIL, SciPy: present; easydict's ``EasyDict``: not installed, a dict read by
attribute) and ``utils`` (aiohttp, async_timeout and appdirs, for downloads: empty modules; NetworkX: present); the
backend is set to ``pytorch`` with the library's ``set_backend``. nms_3d imports torch and logging (Plotly only inside
its plotting function). laneq's ``__init__`` (the detector: Hugging Face Hub, OpenCV) is registered without it;
``utils.common`` imports scikit-learn's ``ConfusionMatrixDisplay`` (not installed: an empty module holding None). No
weights are downloaded or loaded (every network is built from its constructor, pygmtools' with ``pretrain=False``);
nothing writes under the user's home. Nothing new in the ``bench`` extra.

Considered and dropped (by the package index's list, the wheels' files and metadata, a first reading of the code and,
for two of them, a first run): lomatch's DeDoDe-B descriptor run before the matcher on image pairs ("loma_dedode_match",
keypoints on a 12x12 lattice: its conv refiners run under bfloat16 autocast, which the CPU emulates: 424 s to build
with calibration and 111 to 115 s a forward for two 128x128 pairs) and the published matcher size (9 layers on 512
keypoints: 7.9 to 8.4 s a forward under the bfloat16 autocast, 1.9 s without it); DaD itself (an earlier zoo's
detector, and its constructor downloads weights); nagini3d's tiles of 2x2x1 (2.2 to 2.3 s a forward; 2x1x1 kept),
``create_mask`` (patch sizes by ``.tolist()``, a Python loop per object), the gradient refinement (scikit-image, SciPy)
and the threshold search (SciPy); pygmtools' Hungarian step (SciPy), A* solvers (compiled), CIE and IPCA-GM (another
layout of the same networks); laneq's connected components, crops and annotations (OpenCV, NumPy). blette 1.0.0 (an
edge-detection toolbox on MMSegmentation and MMEngine), landmarkgaze 0.0.2 (MediaPipe face mesh), person-counter
1.1.30 (TensorFlow in its requirements, torchreid's networks and a YOLOv5 detector), odlabel 0.7.26.9 (ultralytics
and CLIP), and names with no wheel on the index (laneatt, vision3d, dungeon-maps). Architectures: LoMa, NAGINI-3D,
PCA-GM and NGM appear in no earlier zoo; nms-3d is post-processing only (no network); LaneQ's U-Net and SPPF
classifier are plain networks (a U-Net is no new architecture) taken to reach eight models: they are the weaker test
here, as is NGM with its 2,917 parameters.

8 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 99
or in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT
deployment:

lomatch (local feature matching; no BatchNorm): "loma_matcher": ``LoMa`` in the B128 layout (128-dimensional DeDoDe
descriptors projected to 256, four heads) with 6 transformer layers (the published 9 cost 1.6 s here) and the library's
``mp=True`` (bfloat16 autocast on the CPU), on keypoint sets (B, 2, N, 2 + 128) of image pairs: x and y in [0, 1)
scaled to the detector's [-1, 1], descriptors centred; ``filter_matches`` at 0.005 (random weights put the dual-softmax
maxima near 1/N: the published 0.1 keeps none) and ``match``'s read-out over the batch with ``to_pixel_coords`` for a
640x480 image. Outputs the scores (B, N, N), both sides' matches (B, N), the match scores (B, N) and rows (n, 6) of xA,
yA, xB, yB, score and pair, a set (``unordered = ["output.4"]``); 11 rows (3 and 8). 7.93 M. Batch and keypoints
dynamic.

nagini3d (3-D nucleus and cell segmentation; BatchNorm, calibrated): ``Unet3D_3D`` of 4 levels from 16 features (the
published configs are read from files the wheel does not ship), 32 output channels (a score, a scale and the 30
spherical free parameters of ``M1`` 4, ``M2`` 2), BatchNorm, strided-convolution downsampling and transposed-convolution
upsampling; the score threshold 0.63 (random weights put the scores at a median of 0.39, a 99.9th percentile of 0.62 and
a maximum of 0.70, and the local maxima over 0.5 were 2233 a volume). "nagini3d_snakes": one tile, then ``draw_surface``
on a (30, 15) grid with ``r_mean`` 4; rows (n, 1355) of centre, score, volume and 450 surface points; 109 rows (53 and
56). "nagini3d_tiled": ``apply_network`` over 2x1x1 tiles with 10% overlap; the float64 score maps (B, X, Y, Z) and rows
(n, 35) of centre, score, volume and the ten control-point parameters; 129 rows (71 and 58). Rows are sets
(``unordered``). 1.45 M each. Batch, depth, height and width dynamic (multiples of 8).

pygmtools (deep graph matching of keypoints): "pygm_pca_gm": PCA-GM in the VOC layout on graphs (B, 2, N, 2 + 1024)
of positions in [0, 1) and node features, joined when nearer than 0.35; 29.37 M. "pygm_ngm": NGM (16, 16, 16 channels,
``sk_emb`` 1) on keypoints (B, 2, N, 2), edges nearer than 0.4 weighted by their lengths, Gaussian edge affinity of
sigma 0.1; 2,917 parameters. Both output the doubly-stochastic matching (B, N, N), the matched column and its
probability (B, N). Batch and keypoints dynamic.

nms_3d (3-D detection post-processing; no network): "nms3d_boxes": candidate boxes (B, N, 7) of score, centre and size
in [0, 1) made into corners in a 64-voxel volume (sizes 8 to 24), those over 0.3 kept by ``nonzero``, then ``nms_3d``
at IoU 0.1 per volume; rows (n, 9) of score, corners, candidate index and volume, a set; 142 rows of 256 candidates a
volume (70 and 72). Batch and boxes dynamic.

laneq (lane-marking inspection): "laneq_unet_mask": the U-Net (17.27 M; BatchNorm, calibrated) with
``pred_segmentation_mask``'s read-out at threshold 0.5 (8% of pixels masked); batch, height and width dynamic
(multiples of 16). "laneq_degradation": ``CNN_SPPF`` with three classes on segment crops, ``softmax`` and ``argmax``
per crop; 0.05 M; batch, height and width dynamic.

Inputs: (2, 2, 128, 130) for LoMa, (2, 32, 48, 48) for both NAGINI-3D models, (2, 2, 16, 1026) and (2, 2, 12, 2) for
pygmtools, (2, 256, 7) for nms-3d, (2, 3, 128, 128) and (4, 3, 64, 64) for laneq.

The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs,
outputs differing across the batch) before any migrate run, with a source tree unpacked by ``fetch_sources`` from
``PINS100`` and ``make_zoo``, each model in its own process with one thread, one process at a time on a two-core machine
beside other work: at the spec's size, one more in the batch and a larger size on the dynamic axes. Changes made before
any migrate run: LoMa's size (above), the NAGINI-3D threshold (0.7 kept 4 centres in all; the first run also failed on
``reshape(0, -1)`` of an empty selection in the wrapper's row assembly, now ``flatten(1)``) and tiles, nms-3d's box
sizes (4 to 16 suppressed almost nothing: 241 rows), easydict stood in for pygmtools. Imports 2.2 to 4.5 s, builds 0.0
to 6.8 s with calibration. Forwards at the spec's size (two runs, and two more in a second pass over the final file),
one more in the batch, the larger size: loma_matcher 1.12 to 1.38 s (1.99 s for three pairs, 22 rows; 1.99 s at 192
keypoints, 5 rows), nagini3d_snakes 0.48 to 0.63 s (0.76 s for three, 192 rows; 1.26 s at 40x64x56, 251), nagini3d_tiled
1.31 to 1.53 s (at the limit; 2.21 s for three, 219 rows; 1.53 s at 40x64x56, 214), pygm_pca_gm 0.09 to 0.24 s (0.19 s;
0.14 s at 20 keypoints), pygm_ngm 0.01 to 0.03 s (0.04 s; 0.05 s at 16 keypoints), nms3d_boxes 0.02 to 0.03 s (0.05 s,
212 rows; 0.04 s at 384 boxes, 172), laneq_unet_mask 0.60 to 0.72 s (1.08 s; 1.43 s at 160x192), laneq_degradation 0.01
to 0.03 s (0.02 s; 0.02 s at 96x80). Peak memory 0.32 to 0.63 GB a process.

Odd, left as the libraries have them: LoMa runs its layers under ``torch.autocast`` (bfloat16 on a CPU, float16 or
bfloat16 on CUDA by the device's capability, decided at import), moves its inputs with ``.to(device)`` and returns the
last layer's scores only; ``match`` and ``filter_matches`` run under ``torch.inference_mode`` (kept by the wrapper).
NAGINI-3D's ``apply_network`` is a method of a plain object, prints a line per tile, accumulates the scores in a
float64 map (``dtype=float``) with an integer vote count, compares ``GT_centers != None``, and selects centres with a
product of boolean comparisons; ``find_centers`` builds its 26 difference kernels at import in a Python loop;
``draw_surface`` builds its spline weights per call from ``arange`` grids. pygmtools builds ``n1`` and ``n2`` from
Python lists of the shapes, pads edge lists with NumPy-computed pad widths, transposes the Sinkhorn problem when rows
outnumber columns (a Python branch on the shapes), and ``_check_and_init_gm`` writes the uniform start per graph in a
Python loop. nms-3d loops while boxes remain, each round a boolean compaction. LaneQ branches on the output's channel
count and its classifier reshapes with ``view(x.size(0), -1)``."""

from __future__ import annotations

from real_zoo import STAND_INS, Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins (torchvision among them: lomatch's modules import ``torchvision.models``, laneq's
#: ``inference_utils`` its transforms) and five libraries no earlier zoo or sweep unpacked, unpacked wheels like the
#: others (never pip-installed): lomatch (the LoMa feature matcher), nagini3d (NAGINI-3D's 3-D U-Net and spline
#: surfaces), pygmtools (deep graph matching: PCA-GM and NGM), nms_3d (a torch-only 3-D NMS) and laneq (lane-marking
#: segmentation and degradation classification).
PINS100 = {**PINS31, "lomatch": "1.0.0", "nagini3d": "0.2.3", "pygmtools": "0.6.0", "nms_3d": "0.2.0",
           "laneq": "0.3.1"}

_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
#: Keypoint sets (B, 2, N, C) of two images or graphs: batch and points.
_PAIRS = 'dynamic_axes = { x = { 0 = "batch", 2 = "points" } }'
#: Volumes (B, X, Y, Z).
_VOLUMES = 'dynamic_axes = { x = { 0 = "batch", 1 = "depth", 2 = "height", 3 = "width" } }'
#: Box sets (B, N, 7).
_BOXES = 'dynamic_axes = { x = { 0 = "batch", 1 = "boxes" } }'


def _rows(*names: str) -> str:
    return "\nunordered = [" + ", ".join(f'"{name}"' for name in names) + "]"


#: The stand-ins of real_zoo.py (empty modules, packages registered without their ``__init__``).
_SHARED = STAND_INS

# ---------------------------------------------------------------------------------------------------------------
# lomatch (imports as ``loma``): the package ``__init__`` imports ``loma.loma``, which imports tyro (the command line's
# config types; not installed: an empty module whose ``conf.subcommand`` returns None, read at module level into
# ``Annotated`` types), NumPy, PIL, the DeDoDe descriptor and the DaD detector (``detector.utils`` imports OpenCV and
# ``loma.geometry``: present). ``LoMa.__init__`` builds the frozen DaD detector, whose constructor downloads its
# published weights unconditionally (``torch.hub.load_state_dict_from_url``), and the DeDoDe descriptor (random
# weights unless ``load_pretrained``): while the matcher is built, ``loma.loma.DaD`` is an empty module (the matcher's
# ``forward`` never calls it), and so is the descriptor for the matcher-only model.
_LOMA = _SHARED + '''
import contextlib
import types
_tyro = _not_installed("tyro")
_tyro.conf = types.SimpleNamespace(subcommand=lambda *args, **kwargs: None)
import loma.loma as _loma_module
from loma.loma import LoMa, filter_matches, to_pixel_coords


class _NotBuilt(torch.nn.Module):
    """An empty module in place of a frozen part the matcher's ``forward`` does not call."""

    class Cfg:
        def __init__(self, *args, **kwargs):
            pass

    def __init__(self, cfg=None):
        super().__init__()


@contextlib.contextmanager
def _without(*names):
    """``loma.loma``'s ``names`` (its DaD and DeDoDe classes) replaced by ``_NotBuilt`` while the block runs."""
    saved = {name: getattr(_loma_module, name) for name in names}
    for name in names:
        setattr(_loma_module, name, _NotBuilt)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(_loma_module, name, value)


class Matcher(torch.nn.Module):
    """LoMa's matcher (``LoMa``: a linear input projection, a learnable Fourier positional encoding of the keypoints
    applied as rotary embeddings, ``n_layers`` of self-attention and cross-attention with
    ``scaled_dot_product_attention``, the last ``MatchAssignment``'s dual softmax; all under ``torch.autocast`` with
    bfloat16 on the CPU, as the library sets it) on keypoints and descriptors of image pairs (B, 2, N, 2 + D): x and y
    in [0, 1) scaled to the normalised [-1, 1] the detector gives, the descriptors centred; then ``filter_matches`` (max
    over rows and columns, the mutual check by ``gather``, the threshold, -1 for the unmatched) and ``match``'s read-out
    (the matched keypoints by ``torch.where`` and fancy indexing, ``to_pixel_coords`` for an image of ``size``) over the
    whole batch. Outputs the scores (B, N, N) in float32, the matches of each side (B, N), the match scores (B, N) and
    rows (n, 6) of xA, yA, xB, yB in pixels, score and pair index."""

    def __init__(self, descriptor_dim=128, embed_dim=256, num_heads=4, n_layers=9, threshold=0.005,
                 size=(480, 640)):
        super().__init__()
        with _without("DaD", "DeDoDeDescriptor"):
            self.net = LoMa(LoMa.Cfg(input_dim=descriptor_dim, embed_dim=embed_dim, num_heads=num_heads,
                                     n_layers=n_layers, compile=False))
        self.threshold, self.size = threshold, size

    @torch.inference_mode()
    def match(self, kpts0, kpts1, desc0, desc1, h, w):
        scores = self.net(kpts0, kpts1, desc0, desc1)["scores"]
        m0, m1, mscores0, _ = filter_matches(scores, self.threshold)
        pair, index = torch.where(m0 > -1)
        matched_a = kpts0[pair, index]
        matched_b = kpts1[pair, m0[pair, index]]
        rows = torch.cat([to_pixel_coords(matched_a, h, w), to_pixel_coords(matched_b, h, w),
                          mscores0[pair, index, None].float(), pair[:, None].float()], 1)
        return scores.float(), m0, m1, mscores0.float(), rows

    def forward(self, x):
        kpts = x[..., :2] * 2 - 1
        desc = x[..., 2:] - 0.5
        return self.match(kpts[:, 0], kpts[:, 1], desc[:, 0], desc[:, 1], *self.size)
'''

# ---------------------------------------------------------------------------------------------------------------
# nagini3d (imports as ``nagini3D``; no ``__init__`` files: namespace packages): ``models.model`` imports NumPy,
# omegaconf (present), csbdeep's ``normalize`` (the percentile normalisation, NumPy; not installed: an empty module
# whose ``normalize`` is None, and the wrapper gives ``normalize_img`` the same normalisation in torch), SciPy's
# ``minimize_scalar``, tqdm, the 3-D U-Net, the snake loss and sampler, ``display_val`` (``random`` only), the inference
# tools, ``cost_matrix`` (SciPy) and ``refinement``, which imports scikit-image's ``inverse_gaussian_gradient``,
# ``threshold_otsu`` and ``gaussian`` (not installed: empty modules holding None; they serve the snake refinement by
# image gradients, not run) and SciPy's ``sobel``.
_NAGINI = _SHARED + '''
for _name in ["csbdeep", "csbdeep.utils", "skimage", "skimage.segmentation", "skimage.filters"]:
    _not_installed(_name)
sys.modules["csbdeep.utils"].normalize = None
sys.modules["skimage.segmentation"].inverse_gaussian_gradient = None
sys.modules["skimage.filters"].threshold_otsu = sys.modules["skimage.filters"].gaussian = None
from nagini3D.models.model import Nagini3D


class _Nagini(torch.nn.Module):
    """NAGINI-3D (``Nagini3D``: a 3-D U-Net ``Unet3D_3D`` whose outputs are a centre score, a scale and the spherical
    coordinates of the surface's free control-point parameters, and the ``SnakeSmoothSampler`` of exponential-spline
    surfaces; random weights; BatchNorm, calibrated), the network registered as a submodule (``Nagini3D`` is a plain
    object). ``normalize_img`` is csbdeep's percentile normalisation (``pmin`` 1, ``pmax`` 99.8 over the volume,
    clipped to [0, 1]) written in torch with ``torch.quantile``."""

    def __init__(self, features_start=16, num_layers=4, proba_th=0.63, r_mean=4.0, M1=4, M2=2):
        super().__init__()
        unet_cfg = {"input_channels": 1, "num_layers": num_layers, "features_start": features_start,
                    "padding_mode": "zeros", "inner_normalisation": "BatchNorm", "train_bn": True,
                    "bilinear": False}
        self.nagini = Nagini3D(unet_cfg, P=101, M1=M1, M2=M2, device="cpu")
        self.net = self.nagini.model
        self.nagini.normalize_img = self.normalize_img
        self.proba_th, self.r_mean = proba_th, r_mean

    @staticmethod
    def normalize_img(img):
        flat = img.float().reshape(-1)
        low, high = torch.quantile(flat, torch.tensor([0.01, 0.998]))
        return ((img.float() - low) / (high - low + 1e-20)).clamp(0, 1)


class Snakes(_Nagini):
    """``Nagini3D.inference`` without the snake refinement (``optim_snake=False``) and stopped before ``create_mask``
    (its patch sizes come from ``.tolist()``), per volume of a batch (B, X, Y, Z): ``apply_network`` with one tile (the
    normalisation, the U-Net, the ``sigmoid`` score, ``find_centers``: a 3-D convolution with 26 difference kernels, the
    minimum over them and the threshold, ``nonzero``; the parameters gathered at the centres by fancy indexing,
    ``spherical_to_xyz``, times the scale, the centres sorted by score), the parameters times ``r_mean``, then the
    sampler's ``draw_surface`` (control points from the free parameters with the pole constraints, spline weights on a
    (30, 15) grid of the sphere, the weighted sum). Outputs rows (n, 5 + 1350) of the centre (X, Y, Z), its score, the
    volume index and the 450 surface points (x, y, z) about the centre."""

    def forward(self, volumes):
        rows = []
        for index, img in enumerate(volumes):
            result = self.nagini.apply_network(img, proba_th=self.proba_th, nb_tiles=(1, 1, 1))
            centers = result["pred"]["centers"]
            params = self.r_mean * result["pred"]["surface_parameters"]
            points, _, _ = self.nagini.sampler.draw_surface(free_parameters=params, points_per_dim=(30, 15))
            scores = result["proba"][centers[:, 0], centers[:, 1], centers[:, 2]]
            rows.append(torch.cat([centers.float(), scores[:, None].float(),
                                   torch.full_like(scores[:, None], index).float(),
                                   points.flatten(1).float()], 1))
        return torch.cat(rows)


class TiledCenters(_Nagini):
    """``Nagini3D.apply_network`` over ``nb_tiles`` overlapping tiles per volume of a batch (B, X, Y, Z), as the library
    runs large volumes: tile bounds from Python arithmetic on the shape and ``overlap_ratio``, the U-Net per tile, the
    scores accumulated into a float64 map with a vote count and divided, per tile ``find_centers`` and the centres kept
    inside the tile's own region by a product of comparisons, shifted by the tile's corner, the parameters in cartesian
    coordinates times the scale, then all centres sorted by the averaged score. Outputs the score maps (B, X, Y, Z),
    float64, and rows (n, 5 + 30) of the centre, its score, the volume index and the ten control-point parameters
    (x, y, z each)."""

    def __init__(self, nb_tiles=(2, 1, 1), overlap_ratio=0.1, **kwargs):
        super().__init__(**kwargs)
        self.nb_tiles, self.overlap_ratio = nb_tiles, overlap_ratio

    def forward(self, volumes):
        maps, rows = [], []
        for index, img in enumerate(volumes):
            result = self.nagini.apply_network(img, proba_th=self.proba_th, nb_tiles=self.nb_tiles,
                                               overlap_ratio=self.overlap_ratio)
            centers = result["pred"]["centers"]
            params = result["pred"]["surface_parameters"]
            scores = result["proba"][centers[:, 0], centers[:, 1], centers[:, 2]]
            maps.append(result["proba"])
            rows.append(torch.cat([centers.float(), scores[:, None].float(),
                                   torch.full_like(scores[:, None], index).float(),
                                   params.flatten(1).float()], 1))
        return torch.stack(maps), torch.cat(rows)'''

# ---------------------------------------------------------------------------------------------------------------
# pygmtools: the package ``__init__`` imports the benchmark and dataset modules (requests, PIL, SciPy, NumPy: present),
# every solver and ``utils``, which imports aiohttp, async_timeout and appdirs' ``user_cache_dir`` (for the pretrained
# weights' download; not installed: empty modules, ``user_cache_dir`` None) and NetworkX (present). ``c_astar`` (a
# compiled Cython extension, dropped by ``fetch_sources``) is imported only inside the A* solvers, not called. The
# backend is set to ``pytorch`` by the library's ``set_backend``. ``pretrain=False``: no weights are fetched.
_PYGM = _SHARED + '''
import functools
for _name in ["aiohttp", "async_timeout", "appdirs", "easydict"]:
    _not_installed(_name)
sys.modules["appdirs"].user_cache_dir = None


class _EasyDict(dict):
    """What ``dataset_config`` uses of easydict's ``EasyDict``: a dict read and written by attribute."""

    __getattr__, __setattr__ = dict.__getitem__, dict.__setitem__


sys.modules["easydict"].EasyDict = _EasyDict
import pygmtools as pygm
pygm.set_backend("pytorch")


def _adjacency(points, radius):
    """The graph of keypoints (B, N, 2) joining those closer than ``radius``, weighted by their distance."""
    distance = torch.cdist(points, points)
    eye = torch.eye(points.shape[1], dtype=torch.bool)
    return ((distance < radius) & ~eye).to(points.dtype), distance


class PCAGM(torch.nn.Module):
    """pygmtools' PCA-GM (``pca_gm``: ``PCA_GM_Net`` in the published VOC layout, 1024 input channels, 2048 hidden and
    output, two Siamese graph convolutions, the cross-graph layer fed by a Sinkhorn matching of the first embeddings,
    ``WeightedInnerProdAffinity``, a last Sinkhorn of 20 iterations at tau 0.05; random weights, ``pretrain=False``)
    on pairs of keypoint graphs (B, 2, N, 2 + 1024): positions in [0, 1) and node features (VGG-16 features in the
    published pipeline), the adjacency of keypoints nearer than ``radius``; ``n1`` and ``n2`` left None, so the library
    builds them from the shapes with ``torch.tensor`` of a list. The Hungarian step (SciPy) is left out: the read-out
    is the row ``max`` of the doubly-stochastic matrix. Outputs the matching (B, N, N), the matched column (B, N) and
    its probability (B, N)."""

    def __init__(self, in_channel=1024, hidden_channel=2048, out_channel=2048, num_layers=2, radius=0.35):
        super().__init__()
        _, self.net = pygm.pca_gm(None, None, None, None, in_channel=in_channel, hidden_channel=hidden_channel,
                                  out_channel=out_channel, num_layers=num_layers, return_network=True,
                                  pretrain=False)
        self.radius = radius

    def forward(self, x):
        positions, features = x[..., :2], x[..., 2:]
        A1, _ = _adjacency(positions[:, 0], self.radius)
        A2, _ = _adjacency(positions[:, 1], self.radius)
        X = pygm.pca_gm(features[:, 0], features[:, 1], A1, A2, network=self.net)
        score, match = X.max(dim=2)
        return X, match, score


class NGM(torch.nn.Module):
    """pygmtools' NGM (``ngm``: ``NGM_Net`` in the published layout, three ``NGMConvLayer`` s of 16 channels with a
    one-channel Sinkhorn embedding, the classifier and the final Sinkhorn with a dummy row; random weights,
    ``pretrain=False``) on the affinity matrix of two keypoint graphs (B, 2, N, 2) in [0, 1), built as the library's
    examples build it: the graphs of keypoints nearer than ``radius`` weighted by their lengths, ``dense_to_sparse``
    (per graph ``nonzero`` edge lists padded by ``build_batch`` to the longest, with the edge counts), then
    ``build_aff_mat`` with ``gaussian_aff_fn`` (sigma ``sigma``) on the edge lengths (Kronecker-style scatter of the
    edge affinities into (B, N*N, N*N)); ``ngm`` then sets the uniform start (a loop over the batch writing slices).
    The Hungarian step (SciPy) is left out. Outputs the matching (B, N, N), the matched column (B, N) and its
    probability (B, N)."""

    def __init__(self, gnn_channels=(16, 16, 16), sk_emb=1, radius=0.4, sigma=0.1):
        super().__init__()
        _, self.net = pygm.ngm(None, gnn_channels=gnn_channels, sk_emb=sk_emb, return_network=True, pretrain=False)
        self.radius, self.sigma = radius, sigma

    def forward(self, x):
        graphs = []
        for side in range(2):
            A, distance = _adjacency(x[:, side], self.radius)
            conn, edge, ne = pygm.utils.dense_to_sparse(A * distance)
            graphs.append((conn, edge, ne))
        (conn1, edge1, ne1), (conn2, edge2, ne2) = graphs
        n = x.shape[2]
        n1 = n2 = torch.full((x.shape[0],), n, dtype=torch.long)
        K = pygm.utils.build_aff_mat(None, edge1, conn1, None, edge2, conn2, n1, ne1, n2, ne2,
                                     edge_aff_fn=functools.partial(pygm.utils.gaussian_aff_fn, sigma=self.sigma))
        X = pygm.ngm(K, n1, n2, network=self.net)
        score, match = X.max(dim=2)
        return X, match, score'''

# ---------------------------------------------------------------------------------------------------------------
# nms_3d: the package ``__init__`` imports ``nms_3d.nms_3d`` (torch and logging) and the Plotly plotting module, which
# imports Plotly only inside its function (not called).
_NMS3D = _SHARED + '''
from nms_3d import nms_3d


class Boxes3D(torch.nn.Module):
    """nms-3d's ``nms_3d`` (boxes sorted once by score with a stable sort, then a ``while`` loop that keeps the top box,
    computes its IoU with the rest by ``max``/``min`` corners, ``clamp_min`` and ``prod``, and compacts the survivors by
    boolean indexing until none remain; ``return_indices``) per volume of a batch of candidate boxes (B, N, 7) in
    [0, 1):
    a score, a centre and a size, turned into corners in a ``extent``-voxel volume (the centre times ``extent``, the
    size between ``min_size`` and ``max_size``), the boxes over ``score_thresh`` selected by a boolean mask first, as a
    detector's candidates are. Outputs rows (n, 9) of score, the six corners, the candidate's index and the volume
    index."""

    def __init__(self, extent=64.0, min_size=8.0, max_size=24.0, score_thresh=0.3, iou_threshold=0.1):
        super().__init__()
        self.extent, self.min_size, self.max_size = extent, min_size, max_size
        self.score_thresh, self.iou_threshold = score_thresh, iou_threshold

    def forward(self, candidates):
        rows = []
        for index, boxes in enumerate(candidates):
            centre = boxes[:, 1:4] * self.extent
            size = self.min_size + boxes[:, 4:7] * (self.max_size - self.min_size)
            prediction = torch.cat([boxes[:, :1], centre - size / 2, centre + size / 2], 1)
            keep = torch.nonzero(prediction[:, 0] > self.score_thresh)[:, 0]
            kept, indices = nms_3d(prediction[keep], iou_threshold=self.iou_threshold, return_indices=True)
            rows.append(torch.cat([kept, keep[indices, None].float(), torch.full_like(kept[:, :1], index)], 1))
        return torch.cat(rows)'''

# ---------------------------------------------------------------------------------------------------------------
# laneq: the package ``__init__`` imports the whole detector (Hugging Face Hub, OpenCV, scikit-learn through
# ``utils.common``): registered without it, and ``model_suite``'s (empty) is imported as published;
# ``model_suite.architectures`` imports the three networks (torch only). ``utils.inference_utils`` imports OpenCV,
# torchvision's transforms and ``utils.common`` (PyYAML, OpenCV, NumPy, Matplotlib: present; scikit-learn's
# ``ConfusionMatrixDisplay``: not installed, an empty module holding None).
_LANEQ = _SHARED + '''
_without_init("laneq")
for _name in ["sklearn", "sklearn.metrics"]:
    _not_installed(_name)
sys.modules["sklearn.metrics"].ConfusionMatrixDisplay = None
from laneq.model_suite.architectures import get_model
import torch.nn.functional as F


class LaneMask(torch.nn.Module):
    """LaneQ's lane-marking segmentation (``get_model("unet")``: the classic U-Net with bilinear upsampling, 64 to 512
    channels, one output channel, as ``DegradationDetector`` configures it; BatchNorm, calibrated; random weights) read
    as ``pred_segmentation_mask`` reads a batch: the logits, ``sigmoid`` and the ``pos_threshold`` for one channel
    (``softmax`` and ``argmax`` for several: a Python branch on the channel count), the channel squeezed; the NumPy
    conversion and OpenCV's connected components after it left out. Outputs the labels (B, H, W) and the
    probabilities (B, H, W)."""

    def __init__(self, pos_threshold=0.5):
        super().__init__()
        self.net = get_model("unet", in_channels=3, out_channels=1)
        self.pos_threshold = pos_threshold

    def forward(self, images):
        logits = self.net(images)
        if logits.shape[1] == 1:
            pred = torch.sigmoid(logits)
            pred_labels = (pred > self.pos_threshold).float().squeeze(dim=1)
        else:
            pred = F.softmax(logits, dim=1)
            pred_labels = torch.argmax(pred, dim=1)
        return pred_labels, pred.squeeze(dim=1)


class Degradation(torch.nn.Module):
    """LaneQ's degradation classifier (``get_model("cnn_sppf", out_dim=3)``: three convolutions, two max-pools, YOLO's
    SPPF block of three chained 3x3 max-pools concatenated, a global average pool, ``view`` by the batch size and two
    linear layers; no BatchNorm; random weights) on segment crops (N, 3, H, W) in [0, 1) as
    ``pred_degradation_category`` runs it on each crop, the three classes' ``softmax`` and the class by ``argmax`` per
    crop (the library's ``output.argmax().item()`` flattens a one-crop batch). Outputs the logits (N, 3), the
    probabilities (N, 3) and the class (N,)."""

    def __init__(self):
        super().__init__()
        self.net = get_model("cnn_sppf", in_channels=3, out_dim=3)

    def forward(self, crops):
        logits = self.net(crops)
        return logits, F.softmax(logits, dim=1), logits.argmax(dim=1)'''


MODELS100 = [
    # lomatch: the LoMa matcher.
    Spec("loma_matcher", "lomatch LoMa matcher (9 layers, bfloat16 autocast) with filter_matches and the match rows",
         _LOMA, "Matcher(n_layers=6)", "return self.m(x)", "2, 2, 128, 130", _PAIRS + _rows("output.4")),
    # nagini3d: 3-D U-Net centres and spline surfaces.
    Spec("nagini3d_snakes", "nagini3d Nagini3D apply_network (3-D U-Net, find_centers) and draw_surface", _NAGINI,
         "Snakes()", "return self.m(x)", "2, 32, 48, 48", _VOLUMES + _rows("output"), calibrate="self.m(xb)"),
    Spec("nagini3d_tiled", "nagini3d Nagini3D apply_network over 2x1x1 overlapping tiles", _NAGINI,
         "TiledCenters()", "return self.m(x)", "2, 32, 48, 48", _VOLUMES + _rows("output.1"),
         calibrate="self.m(xb)"),
    # pygmtools: deep graph matching.
    Spec("pygm_pca_gm", "pygmtools PCA-GM (VOC layout) with Sinkhorn on keypoint graphs", _PYGM, "PCAGM()",
         "return self.m(x)", "2, 2, 16, 1026", _PAIRS),
    Spec("pygm_ngm", "pygmtools NGM on build_aff_mat of dense_to_sparse keypoint graphs", _PYGM, "NGM()",
         "return self.m(x)", "2, 2, 12, 2", _PAIRS),
    # nms_3d: 3-D non-maximum suppression.
    Spec("nms3d_boxes", "nms-3d nms_3d per volume after a score threshold", _NMS3D, "Boxes3D()", "return self.m(x)",
         "2, 256, 7", _BOXES + _rows("output")),
    # laneq: lane-marking segmentation and degradation classification.
    Spec("laneq_unet_mask", "laneq U-Net with pred_segmentation_mask's sigmoid threshold", _LANEQ, "LaneMask()",
         "return self.m(x)", "2, 3, 128, 128", _BHW, calibrate="self.m(xb)"),
    Spec("laneq_degradation", "laneq CNN_SPPF degradation classes per crop", _LANEQ, "Degradation()",
         "return self.m(x)", "4, 3, 64, 64", _BHW),
]

if __name__ == "__main__":
    main(MODELS100, "real_zoo100", PINS100)
