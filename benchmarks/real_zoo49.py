"""A forty-ninth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo49.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, on industrial (visual) anomaly detection in pure PyTorch: the
thirty-first zoo's pins and two more libraries by two other authors, whose code no earlier zoo or sweep ran
(``PINS49``: unpacked wheels like the others, never pip-installed): pyimgano 0.9.1 ("PyImgAno Contributors",
github.com/skygazer42/pyimgano: a registry of scikit-learn-style visual anomaly detectors whose torch parts the user
deploys; FastFlow's Glow-style flow stages (ActNorm initialised from the first batch it sees, invertible 1 x 1
convolutions whose ``torch.linalg.slogdet`` is multiplied by the feature map's area read from the input, affine
couplings) and its negative log-likelihood over the number of dimensions; CS-Flow's affine couplings; SimpleNet's layer
2 ``F.interpolate``-d to layer 3's size and a channels-last adapter; MemSeg's memory banks (``torch.mm`` of normalised
features against the bank and ``torch.topk``, reshaped to the feature map's size) and its segmentation head
interpolated to a target size; AST's teacher under ``torch.no_grad`` in its forward; MemAE's memory read (a softmax
over the items, hard shrinkage ``relu(w - t) * w / (w + 1e-12)``, L1 renormalising); FCDD's score map; numpy, scipy,
opencv and tqdm from the venv) and inspectrt 0.1.0 (Matteo Di Iorio: a PatchCore-style baseline; a ResNet-50 to layer 2
traced by torchvision's ``create_feature_extractor``, run under ``torch.inference_mode`` behind asserts of the image
and feature sizes (256 x 256 and 512 x 32 x 32), patches averaged 3 x 3 and laid out row-major, exact top-1 squared-L2
retrieval by ``torch.cdist(...).square().min(1)`` over the memory bank in a Python loop of chunks merged with
``torch.where``, the image score the worst patch, the 32 x 32 distances ``F.interpolate``-d to 256 x 256, results in a
frozen slotted dataclass).

Considered and dropped before any model was chosen (by the wheel's files and metadata, or a first look at the code):
anomalib 2.7.0 (Intel OpenVINO: its torch models import through ``anomalib.models``' package, which imports its
Lightning modules (lightning, jsonargparse, torchmetrics and FrEIA are not in the venv), and it requires compiled
scikit-image, scikit-learn and imagecodecs), anomalib-orobix (its fork, the same imports), anofit 0.4.1 (a compiled
cp311 wheel), padim-ad 0.0.3 (Stephan Pirner: PaDiM with SciPy's ``mahalanobis`` a patch in NumPy loops; its torch part
is only a torchvision backbone with hooks, and it installs top-level packages named ``ai``, ``config``, ``data``,
``gui`` and ``vision``), imgad 0.6.0 (Jónathan Heras: foundation-model features from transformers, open_clip and timm
and scikit-learn or PyOD detectors on NumPy arrays; its maps are NumPy and PIL), dantis 0.0.1 (TensorFlow, PyOD and
xgboost), and for the driving domain: laneatt 2.4.5 (no wheel), prescyent 0.7.2 (Alexis Biver, Inria: human-motion
trajectory forecasting in Lightning modules; pytorch_lightning, tensorboard and h5py not in the venv, numpy under 2);
none of the other names the package index lists for lane detection or trajectory forecasting holds PyTorch models.
Within the chosen libraries: pyimgano's RD++ (``RDPlusPlusDetector``: its student decoder returns its scales deepest
first while the teacher's come shallowest first, so its own ``predict_anomaly_map`` pairs features of different channel
counts and raises, for either backbone: found at the first eager run and replaced by SimpleNet), AST on resnet18 (its
``TeacherEncoder`` declares 512 channels but stops at layer 3 of 256: the student raises; on wide_resnet50, whose layer
3 has the declared 1024, it runs), PaDiM and PatchCore (scikit-learn's random projection and, by default, its nearest
neighbours on NumPy arrays), CFlow, STFPM, DRAEM and DSR (not chosen: eight pyimgano models were enough; CFlow's,
STFPM's and DRAEM's detectors read image paths with cv2), every ``pretrained=True`` (set to False or patched to it:
random weights, no download); inspectrt's ONNX Runtime and portability modules (not models).

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 48 or
in the library sweeps (benchmarks/sweep_*.py), all 10 of the kinds that most often need work for an ONNX or TensorRT
deployment (normalising flows with data-initialised state and ``slogdet`` scaled by the area, maps ``F.interpolate``-d
to the input's size, nearest neighbours against a memory bank by top-k or by a loop of ``cdist`` chunks merged with
``torch.where``, hard shrinkage dividing by the weights, ``inference_mode`` and ``no_grad`` inside forwards, size
asserts, an fx-traced extractor, integer index outputs). Anomaly detection with pyimgano (random weights; the user's
module holds the detector's modules and computes the map the detector computes, in torch): FastFlow (resnet18, 64
channels, 4 flow steps a level) giving the negative log-likelihood per image; CS-Flow (resnet18, 4 couplings a scale)
giving the latents' squared norm a position at the input's size; SimpleNet (resnet50) giving each position's cosine
distance to the most similar of 512 reference patches and its worst as the image score; MemSeg's memory scores (a
256-row bank a level, cosine top-3) and MemSeg's segmentation head; AST on wide_resnet50 (student of width 128); MemAE
(200 memory items, the default shrink threshold 0.0025); FCDD. Patch-memory retrieval with inspectrt: the baseline's
maps and image scores against a 1024-row bank in chunks of 256, and the per-patch distances and nearest indices against
a 700-row bank (the last chunk ragged).

Each is small and has the dynamic axes a deploying user declares: batch, height and width for the 8 pyimgano models,
batch only for inspectrt's (its asserts fix the image at 256 x 256). The inputs are the user's images in [0, 1);
MemAE's sides must be multiples of 16 (four stride-2 convolutions and four transposed ones). No BatchNorm calibration
(random weights tie no scores: the maps are continuous). The wrappers were checked only for building and running
eagerly (deterministic over two forwards, finite outputs) before the first migrate run, with a source tree unpacked by
``fetch_sources`` from ``PINS49`` and ``make_zoo``: at the spec's size, a batch of 2 and, for the pyimgano models, the
height 24 larger, the width 24 larger and both (32 for MemAE); with one thread on the shared two cores, each in its own
process, in the last round (with this file but this docstring; load averages of 1.5 to 2.3 from other sessions), the
best of two forwards at the spec's size took 0.006 to 0.033 s for pyimgano (0.006 MemAE, 0.015 MemSeg's scores, 0.020
SimpleNet, 0.024 FCDD, 0.026 FastFlow, 0.028 CS-Flow, 0.033 MemSeg's head and AST) and 0.123 and 0.179 s for
inspectrt's baseline and its per-patch retrieval; at the larger sizes at most 0.057 s for pyimgano and 0.291 s for
inspectrt's baseline at a batch of 2; builds (imports included) took 1.9 to 4.2 s. Changed after the first eager runs,
before any migrate run: RD++ replaced by SimpleNet and AST moved from resnet18 to wide_resnet50 (both as said above);
MemAE from 500 memory items to 200: with random weights the softmax over 500 items is near uniform at about 0.002,
under the 0.0025 threshold, so hard shrinkage zeroed every weight and the memory read was all zeros whatever the image
(at 400 half the weights sat within 1e-7 of the threshold); at 200 they sit near 0.005, all kept, clear of it. Odd,
left as the wheel has it: pyimgano's ``FastFlow.build_model`` also builds an Adam optimiser, and ``_flow_nll`` is the
detector's method, bound in the user's module; inspectrt's ``extract_patch_embeddings`` sets its extractor to eval in
every call."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and two libraries by two other authors, unpacked wheels like the others (never
#: pip-installed): pyimgano (its contributors, led by skygazer42: visual anomaly detectors whose torch parts are
#: FastFlow's Glow-style flow stages with data-initialised ActNorm and ``slogdet`` of invertible 1 x 1 convolutions,
#: CS-Flow's affine couplings, RD++'s student decoder, MemSeg's memory banks queried by cosine top-k and its
#: segmentation head interpolated to a target size, AST's teacher and student, MemAE's memory read with hard
#: shrinkage, FCDD's score map) and inspectrt (Matteo Di Iorio: a PatchCore-style baseline, a ResNet-50 layer-2
#: extractor by ``create_feature_extractor``, exact top-1 squared-L2 retrieval against a memory bank in chunks merged
#: with ``torch.where``, anomaly maps interpolated to 256 x 256, under ``torch.inference_mode`` and shape asserts).
PINS49 = {**PINS31, "pyimgano": "0.9.1", "inspectrt": "0.1.0"}

_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_B = 'dynamic_axes = { x = { 0 = "batch" } }'

# ---------------------------------------------------------------------------------------------------------------
# pyimgano: the detectors are scikit-learn-style objects (fit, decision_function on NumPy arrays); what a user
# deploys is their torch modules and the anomaly map each detector computes from them, written here as the user's
# module around the detector's own modules.
_PI = '''import torch.nn.functional as F
from pyimgano.models.csflow import CSFlowDetector
from pyimgano.models.fastflow import FastFlow
from pyimgano.models.fcdd import FCDDNetwork
from pyimgano.models.memae import MemAENetwork
from pyimgano.models.memseg import MemSegDetector
from pyimgano.models.simplenet import VisionSimpleNet


def _to_input_size(maps, x):
    """Each (B, 1, h, w) map bilinearly resized to the input's size, averaged over the levels: (B, H, W)."""
    sized = [F.interpolate(m, size=x.shape[2:], mode="bilinear", align_corners=False) for m in maps]
    return torch.stack(sized, 0).mean(0)[:, 0]


class FastFlowScore(torch.nn.Module):
    """FastFlow as pyimgano builds it: a frozen resnet18's layers 2 to 4, a 1 x 1 adapter and a flow stage each."""

    def __init__(self, detector):
        super().__init__()
        detector.build_model()
        self.features, self.adapters, self.flows = detector.feature_extractor, detector.adapters, detector.flow_stages
        self.nll = detector._flow_nll

    def forward(self, x):
        per_level = []
        for feat, adapter, flow in zip(self.features(x), self.adapters, self.flows):
            z, logdet = flow(adapter(feat))
            per_level.append(self.nll(z, logdet))
        return torch.stack(per_level, 1).mean(1)


class CSFlowMap(torch.nn.Module):
    """CS-Flow's map: the flows' latents' squared norm a position, at each of three scales, at the input's size."""

    def __init__(self, detector):
        super().__init__()
        self.features, self.flows = detector.feature_extractor, detector.flows

    def forward(self, x):
        maps = []
        for feat, flow in zip(self.features(x), self.flows):
            z, _ = flow(feat)
            maps.append(0.5 * z.pow(2).sum(1, keepdim=True))
        return _to_input_size(maps, x)


class SimpleNetScore(torch.nn.Module):
    """SimpleNet: a frozen resnet50's layer 2 resized to layer 3's size and concatenated, the adapter, each
    position's cosine distance to its most similar reference patch; the image score is the worst position."""

    def __init__(self, detector, references):
        super().__init__()
        self.extractor, self.adapter = detector.feature_extractor, detector.adapter
        self.features = detector._extract_features
        self.register_buffer("references", F.normalize(references, dim=1))

    def forward(self, x):
        adapted = self.adapter(self.features(x))
        b, c, h, w = adapted.shape
        patches = F.normalize(adapted.permute(0, 2, 3, 1).reshape(b, h * w, c), dim=2, eps=1e-8)
        distance = 1 - (patches @ self.references.t()).max(2).values
        return distance.max(1).values, _to_input_size([distance.reshape(b, 1, h, w)], x)


class MemSegKnnMap(torch.nn.Module):
    """MemSeg without its head: each level's cosine top-k distance to its memory bank, at the input's size."""

    def __init__(self, detector, k):
        super().__init__()
        self.features, self.k = detector.feature_extractor, k

    def forward(self, x):
        scores = self.features.compute_anomaly_scores(self.features(x), k=self.k)
        return _to_input_size([s[:, None] for s in scores.values()], x)


class MemSegHead(torch.nn.Module):
    """MemSeg with its segmentation head: the three levels projected, interpolated to the input's size, fused."""

    def __init__(self, detector):
        super().__init__()
        self.features, self.head = detector.feature_extractor, detector.seg_head

    def forward(self, x):
        feats = self.features(x)
        return self.head([feats["layer2"], feats["layer3"], feats["layer4"]], x.shape[2:])[:, 0]


class MemAEMap(torch.nn.Module):
    """MemAE: the image through its memory (softmax addressing, hard shrinkage, L1 renormalised), its error."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        recon = self.net(x)[0]
        error = (recon - x).pow(2)
        return error.mean((1, 2, 3)), error.mean(1)


class FCDDMap(torch.nn.Module):
    """FCDD: the score map of five stride-2 convolutions, its mean per image and it at the input's size."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        score_map = self.net(x)[1]
        return score_map.mean((1, 2, 3)), _to_input_size([score_map], x)'''

# AST's teacher asks torchvision for pretrained weights (a download): the user's module has it build the same
# network with random weights (``pretrained=False``), the way earlier zoos patch loaders.
_AST = '''import torch.nn.functional as F
import pyimgano.models.ast as pyimgano_ast
from pyimgano.utils.torchvision_safe import load_torchvision_model

pyimgano_ast.load_torchvision_model = lambda name, pretrained=False: load_torchvision_model(name, pretrained=False)


class ASTMap(torch.nn.Module):
    """AST: the student's reconstruction error of the teacher's features plus its predicted map, at input size."""

    def __init__(self):
        super().__init__()
        self.teacher = pyimgano_ast.TeacherEncoder("wide_resnet50")
        self.student = pyimgano_ast.AnomalyAwareStudent(self.teacher.out_channels, 128)

    def forward(self, x):
        feats = self.teacher(x)
        recon, predicted = self.student(feats)
        error = (recon - feats).pow(2).mean(1, keepdim=True)
        size = x.shape[2:]
        error = F.interpolate(error, size=size, mode="bilinear", align_corners=False)
        predicted = F.interpolate(predicted, size=size, mode="bilinear", align_corners=False)
        return (error + predicted)[:, 0]'''

# inspectrt: functions, not modules; the user's module holds the extractor and a nominal memory bank (seeded
# random rows standing in for the training set's patches).
_IRT = '''from inspectrt.features import build_resnet50_layer2_extractor, extract_patch_embeddings
from inspectrt.retrieval import exact_top1_squared_l2, score_patch_embeddings


class PatchMemory(torch.nn.Module):
    """inspectrt's baseline: layer-2 patches of a frozen ResNet-50 scored against a bank of nominal patches."""

    def __init__(self, bank_rows, chunk):
        super().__init__()
        self.extractor = build_resnet50_layer2_extractor(weights=None)
        self.register_buffer("bank", torch.randn(bank_rows, 512))
        self.chunk = chunk

    def forward(self, x):
        scores = score_patch_embeddings(extract_patch_embeddings(self.extractor, x), self.bank,
                                        bank_chunk_size=self.chunk)
        return scores.anomaly_maps, scores.image_scores


class PatchNearest(PatchMemory):
    """The same retrieval, kept per patch: each patch's squared distance and its nearest bank row."""

    def forward(self, x):
        patches = extract_patch_embeddings(self.extractor, x)
        distances, indices = exact_top1_squared_l2(patches.reshape(-1, 512), self.bank, bank_chunk_size=self.chunk)
        return distances.reshape(x.shape[0], -1), indices.reshape(x.shape[0], -1)'''

#: FastFlow's ActNorm layers initialise themselves from the first batch they see (Glow's data-dependent init, done
#: by pyimgano's training): the user's module sees one seeded batch before use.
_FF_INIT = "with torch.no_grad():\n            self.m(torch.rand(4, 3, 64, 64))"

MODELS49 = [
    # pyimgano: visual anomaly detectors' torch modules (random weights, pretrained=False: no download).
    Spec("pi_fastflow_nll", "pyimgano FastFlow (a frozen resnet18's layers 2 to 4, 1 x 1 adapters to 64 channels, "
         "a Glow-style flow stage of 4 steps a level: ActNorm initialised from the first batch, invertible 1 x 1 "
         "convolutions with slogdet times the feature map's area, affine couplings; the negative log-likelihood "
         "per image over the number of dimensions, averaged over levels)", _PI,
         "FastFlowScore(FastFlow(embedding_dim=64, n_flow_steps=4, flow_hidden_ratio=1.0, verbose=0))",
         "return self.m(x)", "1, 3, 64, 64", _BHW, init=_FF_INIT),
    Spec("pi_csflow_map", "pyimgano CS-Flow (a frozen resnet18's three scales, 4 affine coupling layers a scale "
         "with tanh scales, the latents' squared norm a position interpolated to the input's size and averaged "
         "over scales)", _PI, "CSFlowMap(CSFlowDetector(num_flows=4))", "return self.m(x)", "1, 3, 64, 64", _BHW),
    Spec("pi_simplenet_score", "pyimgano SimpleNet (a frozen resnet50's layer 2 interpolated to layer 3's size "
         "and concatenated, a two-layer adapter over channels-last features, each position's cosine distance to "
         "its most similar of 512 reference patches; the image score the worst position, the map at the input's "
         "size)", _PI, "SimpleNetScore(VisionSimpleNet(backbone='resnet50'), torch.randn(512, 384))",
         "return self.m(x)", "1, 3, 64, 64", _BHW),
    Spec("pi_memseg_knn", "pyimgano MemSeg's memory scores (a resnet18's layers 2 to 4, each position's cosine "
         "top-3 nearest rows of a 256-row memory bank a level, the mean distance reshaped to the feature map, at "
         "the input's size and averaged)", _PI,
         "MemSegKnnMap(MemSegDetector(memory_size=256, use_segmentation_head=False), 3)", "return self.m(x)",
         "1, 3, 64, 64", _BHW),
    Spec("pi_memseg_head", "pyimgano MemSeg segmentation head (a resnet18's layers 2 to 4 projected to 64 channels, "
         "each interpolated to the target size read from the input, concatenated and fused by convolutions)", _PI,
         "MemSegHead(MemSegDetector(memory_size=256))", "return self.m(x)", "1, 3, 64, 64", _BHW),
    Spec("pi_ast_map", "pyimgano AST (anomaly-aware student-teacher: a frozen wide_resnet50 teacher to layer 3, a "
         "student reconstructing its features and predicting a sigmoid anomaly map, the reconstruction error and "
         "the predicted map each interpolated to the input's size and summed)", _AST, "ASTMap()",
         "return self.m(x)", "1, 3, 64, 64", _BHW),
    Spec("pi_memae_recon", "pyimgano MemAE (memory-augmented autoencoder: 4 stride-2 convolutions, a read from 200 "
         "memory items by a softmax over them, hard shrinkage relu(w - t) * w / (w + 1e-12) and L1 renormalising, "
         "4 transposed convolutions; the squared error per image and per pixel)", _PI,
         "MemAEMap(MemAENetwork(mem_dim=200))", "return self.m(x)", "1, 3, 64, 64", _BHW),
    Spec("pi_fcdd_map", "pyimgano FCDD (fully convolutional data description: five stride-2 5 x 5 convolutions "
         "with BatchNorm, a 1 x 1 score map, its mean per image and it interpolated to the input's size)", _PI,
         "FCDDMap(FCDDNetwork())", "return self.m(x)", "1, 3, 64, 64", _BHW),
    # inspectrt: the PatchCore-style baseline (random weights, weights=None: no download; its sizes are fixed at
    # 256 x 256 by its asserts, so the batch is the only dynamic axis).
    Spec("irt_patch_memory", "inspectrt patch-memory baseline (a frozen ResNet-50 to layer 2 by "
         "create_feature_extractor under inference_mode, patches averaged 3 x 3 and laid out row-major, exact top-1 "
         "squared-L2 retrieval against a 1024-row bank in chunks of 256 merged with torch.where, the image score "
         "the maximum, the 32 x 32 map interpolated to 256 x 256)", _IRT, "PatchMemory(1024, 256)",
         "return self.m(x)", "1, 3, 256, 256", _B),
    Spec("irt_patch_nearest", "inspectrt exact top-1 retrieval kept per patch (the same extractor, a 700-row bank "
         "in chunks of 256, the last one ragged: each patch's squared distance and the index of its nearest bank "
         "row)", _IRT, "PatchNearest(700, 256)", "return self.m(x)", "1, 3, 256, 256", _B),
]

if __name__ == "__main__":
    main(MODELS49, "real_zoo49", PINS49)
