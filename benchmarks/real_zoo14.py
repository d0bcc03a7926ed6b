"""A fourteenth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo14.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the thirteenth zoo's first contact, so what it gives after them is no longer a figure for models
nobody tuned for. This zoo is the next check: the thirteenth zoo's libraries and pins and two more libraries by other
authors, whose code no earlier zoo ran (``PINS14``: unpacked wheels like the others, never pip-installed): osmr's
pytorchcv 0.0.74 (the imgclsmob collection: classification, segmentation, detection, pose, optical flow and speech
models; it imports torch, torchvision, numpy and requests) and timesler's facenet-pytorch 2.6.0 (MTCNN's three face
networks and FaceNet's Inception-ResNet-v1; torch, torchvision, numpy, requests and Pillow). All of those are in the
``bench`` extra already, which is unchanged. 20 of the 24 models come from the two new libraries, so that most of the
zoo is code nobody here has seen; the other libraries are being swept by other work at the same time. Considered and
dropped before any model was chosen: pylocron (Holocron: its package imports matplotlib and fastprogress through its
trainer), rfdetr (supervision and pyDeprecate at import), ptlflow (lightning, jsonargparse and loguru), and
pytorchvideo, pretrainedmodels, torchreid and encodec (no wheels on the index, only sources).

24 models, chosen by family before any was run, none of them (library, architecture and variant) in zoos 1 to 13, most
of them of kinds that often need work for an ONNX or TensorRT deployment. Detection with its decoding, from pytorchcv:
CenterNet on ResNet-18 (VOC head; the heatmap's peaks kept by a 3x3 max pool compared with the map, top 40 over the
flattened map, classes and positions from the indices by division and ``fmod``, boxes from the size and offset maps: one
(batch, 40, 6) tensor) and LFFD 20x5s320v2 (the light and fast face detector: score and box maps at five scales). Pose,
from pytorchcv: SimplePose on ResNet-18 (deconvolution head; the heatmaps' maxima decoded to (x, y, score) per
keypoint), Lightweight OpenPose 2-D (MobileNet, heatmaps and part affinity fields, a refinement stage) and IBPPose
(stacked hourglass passes). Semantic segmentation, from pytorchcv: DANet on a dilated ResNetD-50b (position attention
over all pairs of positions and channel attention), ICNet on ResNetD-50b (the image cascade: the input resized to a half
and a quarter), Fast-SCNN (learning to downsample, pyramid pooling), ENet (max pooling with indices and max unpooling),
SINet (spatial squeeze modules: pooled branches upsampled back, an information blocking decoder), LEDNet (split and
shuffle units, an attention pyramid decoder) and BiSeNet on ResNet-18 (face parsing: spatial and context paths,
attention refinement, global pooling). Optical flow, from pytorchcv: RAFT-Things (the basic encoder; all-pairs
correlation pyramid looked up with ``grid_sample``, a recurrent GRU update, convex upsampling by a learned mask; 4
iterations; the two frames are the input's two 3-channel halves, scaled to 0-255 as the model expects). Speech, from
pytorchcv: QuartzNet 5x5 (time-channel separable 1-D convolutions masked by the sequence length, here the whole length).
Faces, from facenet-pytorch: MTCNN's P-Net (fully convolutional proposals: box offsets and softmax scores) and O-Net (48
px crops: boxes, five landmarks, scores), and InceptionResnetV1 (FaceNet's embedding, L2-normalized, as used for
re-identification). 3-D medical: monai's EfficientNetBN b0 with 3-D convolutions. Then the minority, backbones from
corners the earlier zoos used little: pytorchcv's iSQRT-COV ResNet-18 (covariance pooling with a Newton-Schulz matrix
square root), OctResNet-10 (octave convolutions: high and low frequency maps, pooled and upsampled) and DIA-ResNet-10
(an LSTM shared across the units as attention), torchvision's SqueezeNet 1.1 (fire modules, ceil-mode pooling), timm's
inception_v3 (no auxiliary head) and rexnet_100.

Each is small and has the dynamic axes a deploying user declares: batch, height and width for the images, fed at the
sizes the architecture takes (ICNet at multiples of 32, IBPPose and LEDNet of 64, SINet of 128, RAFT at 128 px and up:
its correlation pyramid has four levels below the 1/8 map), the segmentation models built with ``fixed_size=False``
(their resizes follow the input) and ``aux=False``; batch alone where the size is part of the model (BiSeNet: its
library's ``fixed_size=False`` path does not run, so it is built for 64 px; pytorchcv's ImageNet classifiers OctResNet
and DIA-ResNet end in a fixed 7x7 average pool, so they run at 224 px; O-Net's 48 px crops); batch, depth, height and
width for the volume; batch and frames for QuartzNet's mel features (64 bands). Machinery, table and counts are
real_zoo2.py's. The wrappers were checked only for building and running eagerly (deterministic over three forwards,
finite outputs), at two sizes, before the first migrate run: in the last check the best of three forwards at the spec's
size took 1.6 s at most here (DANet's dilated ResNetD-50b), 1.0 s for InceptionResnetV1, 0.8 s for RAFT and LEDNet,
under 0.6 s for the others, most under 0.3 s; single forwards took up to 3.5 s (CenterNet's first) and 5.1 s at the
second sizes (RAFT, a batch of two at 160 px), with the machine's load at 6 on two cores. Changed then: torchvision's
S3D was swapped for pytorchcv's LEDNet (S3D's fixed 2x7x7 average pool needs 16 frames at 224 px, as zoo 11 found: it
does not run at 64 px) and timm's HGNetV2-B0 for inception_v3 (HGNetV2 is the backbone of zoo 10's DEIMv2 and
PP-DocLayoutV3); RAFT runs at 128 px, not 64 (at 64 px the coarsest correlation level is one pixel wide and the
library's bilinear sampler divides by the width less one: NaN); IBPPose runs at 64 px (8 s a forward at 128 px); SINet
at 128 px (at 64 px a pooling's output is empty); BiSeNet is built for a fixed size (above); QuartzNet is built with
``from_audio=False``, on mel features (its mel front end imports librosa, which the venv does not have).
"""

from __future__ import annotations

from real_zoo import DYNAMIC_B, DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo13 import PINS13

#: The thirteenth zoo's pins and two libraries by other authors, unpacked wheels like the others (never
#: pip-installed): osmr's pytorchcv (the imgclsmob model collection: classification, segmentation, detection, pose,
#: optical flow, speech; it imports torch, torchvision, numpy and requests) and timesler's facenet-pytorch (MTCNN's
#: three face networks and the FaceNet Inception-ResNet-v1; torch, torchvision, numpy, requests and Pillow).
PINS14 = {**PINS13, "pytorchcv": "0.0.74", "facenet_pytorch": "2.6.0"}

_SMALL = "1, 3, 64, 64"
#: pytorchcv's ImageNet classifiers end in a fixed 7x7 average pool: their size is part of the model.
_IMAGENET = "1, 3, 224, 224"
#: A volume's batch, depth, height and width.
_DYNAMIC_VOLUME = 'dynamic_axes = { x = { 0 = "batch", 2 = "depth", 3 = "height", 4 = "width" } }'
#: A video as (batch, channels, frames, height, width): every axis but the channels.
_DYNAMIC_VIDEO = 'dynamic_axes = { x = { 0 = "batch", 2 = "frames", 3 = "height", 4 = "width" } }'
#: Speech features as (batch, mel bands, frames): batch and frames.
_DYNAMIC_FRAMES = 'dynamic_axes = { x = { 0 = "batch", 2 = "frames" } }'
_PCV = "pytorchcv.models"

MODELS14 = [
    # pytorchcv: detection with its decoding (heatmap peaks by max pooling, top-k, boxes), a face detector.
    Spec("pcv_centernet_resnet18", "pytorchcv CenterNet ResNet-18 VOC (heatmap peaks, top 40 boxes decoded)",
         f"from {_PCV}.centernet import centernet_resnet18_voc",
         "centernet_resnet18_voc(in_size=(128, 128))", "return self.m(x)", "1, 3, 128, 128", DYNAMIC_BHW,
         calibrate="self.m(xb)"),
    Spec("pcv_lffd", "pytorchcv LFFD 20x5s320v2 (light and fast face detector, score and box maps of 5 scales)",
         f"from {_PCV}.lffd import lffd20x5s320v2_widerface",
         "lffd20x5s320v2_widerface(in_size=(128, 128))", "return self.m(x)", "1, 3, 128, 128", DYNAMIC_BHW),
    # pytorchcv: pose (heatmaps and their argmax decoding, part affinity fields, hourglass passes).
    Spec("pcv_simplepose_resnet18", "pytorchcv SimplePose ResNet-18 COCO (deconvolution head, heatmap maxima decoded "
         "to keypoints)", f"from {_PCV}.simplepose_coco import simplepose_resnet18_coco",
         "simplepose_resnet18_coco(in_size=(64, 48))", "return self.m(x)", "1, 3, 64, 48", DYNAMIC_BHW,
         calibrate="self.m(xb)"),
    Spec("pcv_lwopenpose", "pytorchcv Lightweight OpenPose 2-D (MobileNet, heatmaps and part affinity fields, one "
         "refinement stage)", f"from {_PCV}.lwopenpose_cmupan import lwopenpose2d_mobilenet_cmupan_coco",
         "lwopenpose2d_mobilenet_cmupan_coco(in_size=(64, 64))", "return self.m(x)", _SMALL, DYNAMIC_BHW,
         calibrate="self.m(xb)"),
    Spec("pcv_ibppose", "pytorchcv IBPPose COCO (stacked hourglass passes, identity-based pose heatmaps)",
         f"from {_PCV}.ibppose_coco import ibppose_coco", "ibppose_coco(in_size=(64, 64))", "return self.m(x)",
         _SMALL, DYNAMIC_BHW, calibrate="self.m(xb)"),
    # pytorchcv: semantic segmentation (attention over all positions, cascades of resized inputs, max unpooling).
    Spec("pcv_danet", "pytorchcv DANet ResNetD-50b (position and channel attention over the dilated map)",
         f"from {_PCV}.danet import danet_resnetd50b_cityscapes",
         "danet_resnetd50b_cityscapes(aux=False, fixed_size=False, in_size=(64, 64))", "return self.m(x)", _SMALL,
         DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("pcv_icnet", "pytorchcv ICNet ResNetD-50b (image cascade: the input resized to a half and a quarter)",
         f"from {_PCV}.icnet import icnet_resnetd50b_cityscapes",
         "icnet_resnetd50b_cityscapes(aux=False, fixed_size=False, in_size=(64, 64))", "return self.m(x)", _SMALL,
         DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("pcv_fastscnn", "pytorchcv Fast-SCNN (learning to downsample, pyramid pooling, feature fusion)",
         f"from {_PCV}.fastscnn import fastscnn_cityscapes",
         "fastscnn_cityscapes(aux=False, fixed_size=False, in_size=(64, 64))", "return self.m(x)", _SMALL,
         DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("pcv_enet", "pytorchcv ENet (max pooling with indices, max unpooling in the decoder)",
         f"from {_PCV}.enet import enet_cityscapes", "enet_cityscapes(in_size=(64, 64))", "return self.m(x)", _SMALL,
         DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("pcv_sinet", "pytorchcv SINet (spatial squeeze modules: pooled branches upsampled back, information "
         "blocking decoder)", f"from {_PCV}.sinet import sinet_cityscapes", "sinet_cityscapes(in_size=(128, 128))",
         "return self.m(x)", "1, 3, 128, 128", DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("pcv_bisenet_resnet18", "pytorchcv BiSeNet ResNet-18 CelebAMask-HQ (spatial and context paths, attention "
         "refinement, global pooling)", f"from {_PCV}.bisenet import bisenet_resnet18_celebamaskhq",
         "bisenet_resnet18_celebamaskhq(aux=False, in_size=(64, 64))", "return self.m(x)", _SMALL,
         DYNAMIC_B, calibrate="self.m(xb)"),
    Spec("pcv_lednet", "pytorchcv LEDNet (split-shuffle units, attention pyramid decoder: pooled branches resized "
         "to the map's size)", f"from {_PCV}.lednet import lednet_cityscapes",
         "lednet_cityscapes(fixed_size=False, in_size=(64, 64))", "return self.m(x)", _SMALL, DYNAMIC_BHW,
         calibrate="self.m(xb)"),
    # pytorchcv: optical flow (all-pairs correlation pyramid, grid sampling, recurrent updates, convex upsampling).
    Spec("pcv_raft_things", "pytorchcv RAFT-Things (basic encoder, 4 iterations; two frames as 6 channels)",
         f"from {_PCV}.raft import raft_things", "raft_things(iters=4)",
         "return self.m(x[:, :3] * 255.0, x[:, 3:] * 255.0)", "1, 6, 128, 128", DYNAMIC_BHW),
    # pytorchcv: speech (masked 1-D separable convolutions over mel features).
    Spec("pcv_quartznet5x5", "pytorchcv QuartzNet 5x5 (time-channel separable 1-D convolutions, masked by length; "
         "mel features in)", f"from {_PCV}.quartznet import quartznet5x5_en_ls",
         "quartznet5x5_en_ls(from_audio=False)",
         "n = torch.full((x.shape[0],), x.shape[2], dtype=torch.long)\n        return self.m(x, n)[0]",
         "1, 64, 100", _DYNAMIC_FRAMES, calibrate="self.m(xb, torch.full((4,), xb.shape[2], dtype=torch.long))"),
    # pytorchcv: backbones from corners the earlier zoos did not touch.
    Spec("pcv_isqrtcovresnet18", "pytorchcv iSQRT-COV ResNet-18 (covariance pooling, Newton-Schulz matrix square "
         "root)", f"from {_PCV}.isqrtcovresnet import isqrtcovresnet18", "isqrtcovresnet18(num_classes=10)",
         "return self.m(x)", _SMALL, DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("pcv_octresnet10", "pytorchcv OctResNet-10 (octave convolutions: high and low frequency maps, pooled and "
         "upsampled)", f"from {_PCV}.octresnet import octresnet10_ad2", "octresnet10_ad2(num_classes=10)",
         "return self.m(x)", _IMAGENET, DYNAMIC_B, calibrate="self.m(xb)"),
    Spec("pcv_diaresnet10", "pytorchcv DIA-ResNet-10 (dense-and-implicit attention: an LSTM shared across units)",
         f"from {_PCV}.diaresnet import diaresnet10", "diaresnet10(num_classes=10)", "return self.m(x)", _IMAGENET,
         DYNAMIC_B, calibrate="self.m(xb)"),
    # facenet-pytorch: MTCNN's proposal and output networks, the FaceNet embedding.
    Spec("fn_pnet", "facenet-pytorch MTCNN P-Net (fully convolutional face proposals: box offsets and softmax "
         "scores)", "from facenet_pytorch import PNet", "PNet(pretrained=False)", "return self.m(x)", _SMALL,
         DYNAMIC_BHW),
    Spec("fn_onet", "facenet-pytorch MTCNN O-Net (48 px crops: boxes, five landmarks, softmax scores)",
         "from facenet_pytorch import ONet", "ONet(pretrained=False)", "return self.m(x)", "1, 3, 48, 48",
         DYNAMIC_B),
    Spec("fn_inception_resnet_v1", "facenet-pytorch InceptionResnetV1 (FaceNet embedding, L2-normalized)",
         "from facenet_pytorch import InceptionResnetV1", "InceptionResnetV1()", "return self.m(x)",
         "1, 3, 96, 96", DYNAMIC_BHW, calibrate="self.m(xb)"),
    # torchvision: SqueezeNet 1.1 (ceil-mode pooling).
    Spec("tv_squeezenet1_1", "torchvision squeezenet1_1 (fire modules, ceil-mode max pooling)", "import torchvision",
         "torchvision.models.squeezenet1_1(weights=None, num_classes=10)", "return self.m(x)", _SMALL, DYNAMIC_BHW),
    # timm: Inception-v3, ReXNet.
    Spec("timm_inception_v3", "timm inception_v3 (factorized 1x7 and 7x1 inception blocks, no auxiliary head)",
         "import timm", 'timm.create_model("inception_v3", pretrained=False, num_classes=10, aux_logits=False)',
         "return self.m(x)", "1, 3, 96, 96", DYNAMIC_BHW),
    Spec("timm_rexnet_100", "timm rexnet_100 (rank expansion, squeeze-excitation, partial channel residuals)",
         "import timm", 'timm.create_model("rexnet_100", pretrained=False, num_classes=10)', "return self.m(x)",
         _SMALL, DYNAMIC_BHW),
    # monai: a 3-D EfficientNet-B0.
    Spec("monai_efficientnet_b0_3d", "monai EfficientNetBN b0 (3-D, 32 voxels a side)",
         "from monai.networks.nets import EfficientNetBN",
         'EfficientNetBN("efficientnet-b0", pretrained=False, spatial_dims=3, in_channels=1, num_classes=2)',
         "return self.m(x)", "1, 1, 32, 32, 32", _DYNAMIC_VOLUME),
]

if __name__ == "__main__":
    main(MODELS14, "real_zoo14", PINS14)
