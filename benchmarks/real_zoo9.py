"""A ninth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo9.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the eighth zoo's first contact, so what it gives after them is no longer a figure
for models nobody tuned for. This zoo is the next check: the eighth zoo's libraries and pins (``PINS8``:
the second zoo's plus vit-pytorch; no library is added), 24 other models, chosen by family before any was
run, leaning to kinds that often needed work and that the earlier zoos used little. Detectors, keypoints
and their post-processing: effdet's mobiledetv3_large (timm's MobileNetV3-large under the BiFPN; its
predict bench: anchors, decoding, NMS, top 20), ultralytics' YOLO12n-pose (area attention, a keypoint
head), YOLOv8n-worldv2 (class scores from text embeddings: text-guided C2fAttn blocks in the neck,
contrastive heads; three classes set once, as an offline deployment does, from seeded random
embeddings in place of CLIP's text) and YOLOE-26n-seg (YOLOE on YOLO26 with its mask prototypes, three
classes set the same way); kornia's ALIKED (deformable convolutions, keypoints by NMS and soft-argmax,
descriptors sampled at them) and DeDoDe (its L detector and B descriptor, top 32), HyNet (patch
descriptors). Dense heads: smp's U-Net on the Mix Transformer, monai's HoVerNet (nuclear pixel,
horizontal-vertical and type branches, fast mode) and Restormer (transposed attention over channels,
pixel shuffles). Video and 3-D: transformers' V-JEPA 2 classifier (3-D rotary positions over tubelets, an
attentive pooler), monai's DAF3D (a 3-D ResNet with grouped convolutions, deep attentive features, ASPP). Relative
positions, odd token mixing, windows: timm's ConViT (gated positional self-attention), CoaT-Lite
(convolutional relative position encoding, factorized attention), FocalNet (focal modulation, no
attention), ViT with relative position biases (vit_relpos) and NesT (nested blocks, aggregation by
convolution and pooling); transformers' CvT (convolutional projections, a class token in the last
stage) and SwiftFormer (efficient additive attention); torchvision's MaxViT (block and grid attention
with relative position biases; zoo 4's MaxViT is timm's own implementation); vit-pytorch's T2T-ViT
(soft splits by unfold), SepViT (window tokens, depthwise separable attention), RvT (rotary positions,
depthwise-convolution projections) and LookViT (cross attention between a low-resolution and a
high-resolution stream). Each is small and has the dynamic axes a deploying user declares: batch,
height and width (depth too for volumes); batch alone where the size is part of the model (position
embeddings or biases, a size given to the constructor: ConViT, CoaT-Lite, vit_relpos, NesT, MaxViT,
T2T-ViT, LookViT, V-JEPA 2's frames and crop, HyNet's patches, HoVerNet's fast mode at 256 px, SepViT's
windows of 7 fixed inside it, at 224 px); height and width alone where the model takes one image per
call (ALIKED, DeDoDe); none for effdet's predict bench, as in the earlier zoos. Machinery, table and
counts are real_zoo2.py's. The wrappers were checked only for building and running eagerly
(deterministic, each forward under 0.2 s here but HoVerNet's, 2.2 s at 256 px), at two sizes (effdet at
its one), before the first migrate run; changed then: vit-pytorch's ATS-ViT was swapped for LookViT (its
adaptive token sampling draws random numbers at inference: not deterministic), CoaT-Lite declares batch
alone (its position encodings are built for its image size: 96 px fails eagerly), CvT has depths 1, 2, 3
(one block a stage fails in transformers' drop-path list), HoVerNet runs at 256 px (its fast mode
requires it) with padded decoders, and SepViT at 224 px (its window size is 7 whatever the constructor
is given).
"""

from __future__ import annotations

from real_zoo import DYNAMIC_B, DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo8 import PINS8

_SMALL = "1, 3, 64, 64"
_YOLO = "y, _ = self.m(x)\n        return y"
#: A volume's batch, depth, height and width.
_DYNAMIC_VOLUME = 'dynamic_axes = { x = { 0 = "batch", 2 = "depth", 3 = "height", 4 = "width" } }'
#: One image per call, any height and width.
_DYNAMIC_HW = 'dynamic_axes = { x = { 2 = "height", 3 = "width" } }'
MODELS9 = [
    # timm: gated positional self-attention, conv-attention with factorized relative positions,
    # focal modulation, a ViT with relative position biases, nested hierarchical blocks.
    Spec("timm_convit_tiny", "timm convit_tiny (img_size 64)", "import timm",
         'timm.create_model("convit_tiny", pretrained=False, img_size=64, num_classes=10)', "return self.m(x)",
         _SMALL, DYNAMIC_B),
    Spec("timm_coat_lite_tiny", "timm coat_lite_tiny (img_size 64)", "import timm",
         'timm.create_model("coat_lite_tiny", pretrained=False, img_size=64, num_classes=10)', "return self.m(x)",
         _SMALL, DYNAMIC_B),
    Spec("timm_focalnet_tiny_srf", "timm focalnet_tiny_srf", "import timm",
         'timm.create_model("focalnet_tiny_srf", pretrained=False, num_classes=10)', "return self.m(x)",
         _SMALL, DYNAMIC_BHW),
    Spec("timm_vit_relpos_small", "timm vit_relpos_small_patch16_224 (img_size 64)", "import timm",
         'timm.create_model("vit_relpos_small_patch16_224", pretrained=False, img_size=64, num_classes=10)',
         "return self.m(x)", _SMALL, DYNAMIC_B),
    Spec("timm_nest_tiny", "timm nest_tiny_jx (img_size 64)", "import timm",
         'timm.create_model("nest_tiny_jx", pretrained=False, img_size=64, num_classes=10)', "return self.m(x)",
         _SMALL, DYNAMIC_B),
    # transformers: CvT (convolutional projections), SwiftFormer (additive attention), V-JEPA 2 (3-D rotary).
    Spec("hf_cvt", "transformers CvT (small config)", "from transformers import CvtConfig, CvtForImageClassification",
         "CvtForImageClassification(CvtConfig(embed_dim=[16, 32, 64], num_heads=[1, 2, 4], depth=[1, 2, 3], "
         "num_labels=10))", "return self.m(pixel_values=x).logits", _SMALL, DYNAMIC_BHW),
    Spec("hf_swiftformer", "transformers SwiftFormer (small config)",
         "from transformers import SwiftFormerConfig, SwiftFormerForImageClassification",
         "SwiftFormerForImageClassification(SwiftFormerConfig(depths=[1, 1, 1, 1], embed_dims=[16, 32, 64, 128], "
         "num_labels=10))", "return self.m(pixel_values=x).logits", _SMALL, DYNAMIC_BHW),
    Spec("hf_vjepa2", "transformers V-JEPA 2 video classifier (small config, 4 frames of 32 px)",
         "from transformers import VJEPA2Config, VJEPA2ForVideoClassification",
         "VJEPA2ForVideoClassification(VJEPA2Config(crop_size=32, frames_per_clip=4, tubelet_size=2, patch_size=8, "
         "hidden_size=32, num_hidden_layers=2, num_attention_heads=2, pred_hidden_size=32, pred_num_hidden_layers=1, "
         "pred_num_attention_heads=2, num_pooler_layers=1, num_labels=5))",
         "return self.m(pixel_values_videos=x).logits", "1, 4, 3, 32, 32", DYNAMIC_B),
    # ultralytics: YOLO12's pose head, YOLOv8-World v2 (text-conditioned classes), YOLOE-26's segmentation head.
    Spec("yolo12n_pose", "ultralytics YOLO12n-pose (yolo12n-pose.yaml, nc=1)",
         "from ultralytics.nn.tasks import PoseModel", 'PoseModel("yolo12n-pose.yaml", nc=1, verbose=False)', _YOLO,
         "1, 3, 128, 128", DYNAMIC_BHW),
    Spec("yolov8n_worldv2", "ultralytics YOLOv8n-worldv2 (yolov8n-worldv2.yaml, three classes from seeded random "
         "embeddings)", "from ultralytics.nn.tasks import WorldModel",
         'WorldModel("yolov8n-worldv2.yaml", nc=3, verbose=False)', _YOLO, "1, 3, 128, 128", DYNAMIC_BHW,
         # As a deployment does offline: the class embeddings given once (here random, not CLIP's text).
         init="self.m.txt_feats = torch.randn(1, 3, 512)"),
    Spec("yoloe_26n_seg", "ultralytics YOLOE-26n-seg (yoloe-26n-seg.yaml, three classes from seeded random "
         "embeddings)", "from ultralytics.nn.tasks import YOLOESegModel",
         'YOLOESegModel("yoloe-26n-seg.yaml", nc=3, verbose=False)', _YOLO, "1, 3, 128, 128", DYNAMIC_BHW,
         init='self.m.set_classes(["a", "b", "c"], torch.randn(1, 3, 512))'),
    # torchvision: MaxViT (block and grid attention with relative position biases).
    Spec("tv_maxvit", "torchvision MaxVit (64 px, partition 2, small channels)", "import torchvision",
         "torchvision.models.maxvit.MaxVit(input_size=(64, 64), stem_channels=16, partition_size=2, "
         "block_channels=[16, 32, 64, 128], block_layers=[1, 1, 1, 1], head_dim=8, stochastic_depth_prob=0.0, "
         "num_classes=10)", "return self.m(x)", _SMALL, DYNAMIC_B),
    # effdet: MobileDet (timm's MobileNetV3-large) under the BiFPN, predict bench.
    Spec("effdet_mobiledetv3_large", "effdet mobiledetv3_large (image size 128, predict bench)",
         "from effdet import create_model",
         'create_model("mobiledetv3_large", bench_task="predict", num_classes=3, pretrained_backbone=False, '
         "image_size=(128, 128), max_det_per_image=20)", "return self.m(x)", "1, 3, 128, 128",
         'unordered = ["output"]', calibrate="self.m(xb)"),
    # segmentation_models_pytorch: a U-Net decoder on the Mix Transformer.
    Spec("smp_unet_mit_b0", "segmentation_models_pytorch Unet (mit_b0)", "import segmentation_models_pytorch as smp",
         'smp.Unet("mit_b0", encoder_weights=None, classes=2)', "return self.m(x)", _SMALL, DYNAMIC_BHW),
    # kornia: ALIKED (deformable convolutions, keypoint sampling), DeDoDe, HyNet.
    Spec("kornia_aliked", "kornia ALIKED (aliked-t16, random weights, top 32 keypoints, one image)", "import kornia",
         'kornia.feature.ALIKED("aliked-t16", max_num_keypoints=32)',
         "f = self.m(x)[0]\n        return f.keypoints, f.descriptors, f.keypoint_scores", _SMALL, _DYNAMIC_HW),
    Spec("kornia_dedode", "kornia DeDoDe (L detector, B descriptor, random weights, 32 keypoints, one image)",
         "import kornia", 'kornia.feature.DeDoDe(detector_model="L", descriptor_model="B", amp_dtype=torch.float32)',
         "return self.m(x, n=32)", _SMALL, _DYNAMIC_HW),
    Spec("kornia_hynet", "kornia HyNet descriptor (32x32 patches)", "import kornia",
         "kornia.feature.HyNet(pretrained=False)", "return self.m(x)", "2, 1, 32, 32", DYNAMIC_B),
    # monai: DAF3D (3-D deep attentive features), HoVerNet (2-D nuclei, three branches), Restormer.
    Spec("monai_daf3d", "monai DAF3D (3-D, 32 voxels a side)", "from monai.networks.nets import DAF3D",
         "DAF3D(in_channels=1, out_channels=2)", "return self.m(x)", "1, 1, 32, 32, 32", _DYNAMIC_VOLUME),
    Spec("monai_hovernet", "monai HoVerNet (fast mode, 2-D)", "from monai.networks.nets import HoVerNet",
         'HoVerNet(mode="fast", in_channels=3, out_classes=3, decoder_padding=True)',
         'out = self.m(x)\n        return tuple(out[k] for k in sorted(out))', "1, 3, 256, 256", DYNAMIC_B),
    Spec("monai_restormer", "monai Restormer (2-D, dim 16)", "from monai.networks.nets.restormer import Restormer",
         "Restormer(spatial_dims=2, in_channels=3, out_channels=3, dim=16, num_blocks=(1, 1, 1, 1), "
         "heads=(1, 1, 2, 2), num_refinement_blocks=1)", "return self.m(x)", _SMALL, DYNAMIC_BHW),
    # vit-pytorch: T2T-ViT (soft splits by unfold), SepViT, RvT (rotary, depthwise-conv attention), ATS-ViT.
    Spec("vitp_t2t", "vit-pytorch T2TViT (64 px, small dims)", "from vit_pytorch.t2t import T2TViT",
         "T2TViT(image_size=64, num_classes=10, dim=32, depth=2, heads=2, mlp_dim=64)", "return self.m(x)", _SMALL,
         DYNAMIC_B),
    Spec("vitp_sepvit", "vit-pytorch SepViT (small dims, window 4)", "from vit_pytorch.sep_vit import SepViT",
         "SepViT(num_classes=10, dim=16, dim_head=8, heads=(1, 2, 4, 8), depth=(1, 1, 1, 1))",
         "return self.m(x)", "1, 3, 224, 224", DYNAMIC_B),
    Spec("vitp_rvt", "vit-pytorch RvT (rotary, 64 px, small dims)", "from vit_pytorch.rvt import RvT",
         "RvT(image_size=64, patch_size=8, num_classes=10, dim=32, depth=2, heads=2, mlp_dim=64)", "return self.m(x)",
         _SMALL, DYNAMIC_BHW),
    Spec("vitp_lookvit", "vit-pytorch LookViT (64 px, small dims)", "from vit_pytorch.look_vit import LookViT",
         "LookViT(image_size=64, patch_size=8, num_classes=10, dim=32, depth=2, heads=2, dim_head=16, "
         "highres_patch_size=4)", "return self.m(x)", _SMALL, DYNAMIC_B),
]

if __name__ == "__main__":
    main(MODELS9, "real_zoo9", PINS8)
