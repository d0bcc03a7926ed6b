"""A tenth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo10.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the ninth zoo's first contact, so what it gives after them is no longer a figure
for models nobody tuned for. This zoo is the next check: the eighth zoo's libraries and pins (``PINS8``:
the second zoo's plus vit-pytorch; no library is added), 24 other models, chosen by family before any was
run, leaning harder than the ninth to kinds that need work for an ONNX or TensorRT deployment (15 of the
24). Detectors and their post-processing: torchvision's Mask R-CNN v2 (ResNet-50 FPN v2 with GroupNorm
heads; RPN, RoIAlign, NMS, masks pasted into the image, top 10), effdet's resdet50 (a ResNet-50 under
the BiFPN) and cspdarkdet53m (CSPDarknet-53 with Mish under the BiFPN), both as their predict bench
(anchors, decoding, NMS, top 20), ultralytics' YOLO12n-seg (area attention, mask prototypes) and YOLOv9e
(the GELAN backbone with the CBLinear/CBFuse auxiliary branch, which zoo 4's YOLOv9t does not have),
transformers' DEIMv2 (an RT-DETR-like encoder and a decoder with fine-grained distribution refinement)
and PP-DocLayoutV3 (a layout detector with a mask head and a reading-order head, 30 queries). Dense
heads and keypoints: transformers' PP-OCRv5 mobile text detector (a DB head: a probability map at the
input's size) and Sapiens2's pose head (a ViT with rotary positions, grouped key-value heads and
register tokens, then upsampling to keypoint heatmaps). Relative and rotary positions: timm's
lambda_resnet26rpt (lambda layers with relative position embeddings), vit-pytorch's ViTND (N-d rotary
positions, any image size) and its SimpleViT with relative projected position biases. Video and 3-D:
vit-pytorch's ViT over 3-D (tubelet) patches, monai's VQVAE (3-D, a vector-quantized codebook: nearest
code by argmin) and MILModel (a bag of instances through a ResNet-18, then a transformer and attention
pooling across the instances). Kornia's MKD descriptor (kernel descriptors in polar and Cartesian
coordinates, no whitening) and SOSNet. Then backbones, the minority: torchvision's RegNetY-400MF, timm's
TNT (a transformer inside each patch), PiT (pooling by depthwise convolution), MambaOut and RepViT,
vit-pytorch's ScalableViT (scalable self-attention and interactive windows), and
segmentation_models_pytorch's MAnet on the Mix Transformer. Each is small and has the dynamic axes a
deploying user declares: batch, height and width (depth too for volumes); batch alone where the size is
part of the model (position embeddings or biases built for one size: TNT, PiT, ViT 3-D, the relative
SimpleViT, lambda_resnet26rpt at 256 px; ScalableViT's windows, which tile only some sizes, unpadded; 32
px patches for the descriptors; DEIMv2 and PP-DocLayoutV3, whose users resize to one size, as the earlier
zoos' DETR-like detectors); batch and instances for MILModel's bags; none for torchvision's Mask R-CNN
(it resizes to 128 px inside) and effdet's predict bench, as in the earlier zoos. Machinery, table and
counts are real_zoo2.py's. The wrappers were checked only for building and running eagerly
(deterministic, finite outputs, each forward under 0.6 s here), at two sizes (the torchvision and effdet
detectors at their one), before the first migrate run; changed then: effdet's efficientdetv2_dt was
swapped for resdet50 (its random-weight predictions held non-finite values), transformers' UVDoc for
Sapiens2's pose model (UVDoc's default config fails eagerly: its bridge expects 768 channels and gets
128), monai's HyenaNDUNETR for VQVAE (it needs the optional nvsubquadratic package); kornia's MKD runs
without whitening (the whitening downloads weights), MILModel's backbone is ResNet-18 and PP-DocLayoutV3
has 30 queries (a first check, on a loaded machine, took 3.3 s for a bag of four through ResNet-50 and
3.5 s for 300 queries at batch 2), VQVAE returns its reconstruction alone (not the quantization loss),
and ScalableViT has windows of 4, 2, 2 and 1 (-1 for a window over the whole map fails eagerly).
"""

from __future__ import annotations

from real_zoo import DYNAMIC_B, DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo8 import PINS8

_SMALL = "1, 3, 64, 64"
_HF_DETECT = "out = self.m(pixel_values=x)\n        return out.logits, out.pred_boxes"
_YOLO = "y, _ = self.m(x)\n        return y"
#: A volume's batch, depth, height and width.
_DYNAMIC_VOLUME = 'dynamic_axes = { x = { 0 = "batch", 2 = "depth", 3 = "height", 4 = "width" } }'
#: Bags of instances (batch, instances, channels, height, width): how many bags, and how many in each.
_DYNAMIC_BAG = 'dynamic_axes = { x = { 0 = "batch", 1 = "instances" } }'
#: Mask R-CNN resized to 128 px inside, every box scored, 10 detections.
_TV_MASKS = ("num_classes=3, min_size=128, max_size=128, box_score_thresh=0.0, box_detections_per_img=10, "
             "rpn_pre_nms_top_n_test=200, rpn_post_nms_top_n_test=100")
MODELS10 = [
    # torchvision: Mask R-CNN v2 (RPN, RoIAlign, NMS, pasted masks), RegNetY.
    Spec("tv_maskrcnn_v2", "torchvision maskrcnn_resnet50_fpn_v2 (128 px, top 10)", "import torchvision",
         f"torchvision.models.detection.maskrcnn_resnet50_fpn_v2(weights=None, weights_backbone=None, {_TV_MASKS})",
         'det = self.m([x[0]])[0]\n        return det["boxes"], det["scores"], det["labels"], det["masks"]',
         "1, 3, 128, 128", calibrate="self.m(list(xb))"),
    Spec("tv_regnet_y_400mf", "torchvision regnet_y_400mf", "import torchvision",
         "torchvision.models.regnet_y_400mf(weights=None, num_classes=10)", "return self.m(x)", _SMALL, DYNAMIC_BHW),
    # effdet: two more backbones under the BiFPN, predict bench (anchors, decoding, NMS, top 20).
    Spec("effdet_resdet50", "effdet resdet50 (image size 128, predict bench)",
         "from effdet import create_model",
         'create_model("resdet50", bench_task="predict", num_classes=3, pretrained_backbone=False, '
         "image_size=(128, 128), max_det_per_image=20)", "return self.m(x)", "1, 3, 128, 128",
         'unordered = ["output"]', calibrate="self.m(xb)"),
    Spec("effdet_cspdarkdet53m", "effdet cspdarkdet53m (image size 128, predict bench)",
         "from effdet import create_model",
         'create_model("cspdarkdet53m", bench_task="predict", num_classes=3, pretrained_backbone=False, '
         "image_size=(128, 128), max_det_per_image=20)", "return self.m(x)", "1, 3, 128, 128",
         'unordered = ["output"]', calibrate="self.m(xb)"),
    # ultralytics: YOLO12's segmentation head, YOLOv9e (CBLinear/CBFuse auxiliary branch).
    Spec("yolo12n_seg", "ultralytics YOLO12n-seg (yolo12n-seg.yaml, nc=3)",
         "from ultralytics.nn.tasks import SegmentationModel",
         'SegmentationModel("yolo12n-seg.yaml", nc=3, verbose=False)',
         "(det, proto), _ = self.m(x)\n        return det, proto", "1, 3, 128, 128", DYNAMIC_BHW),
    Spec("yolov9e", "ultralytics YOLOv9e (yolov9e.yaml, nc=3)",
         "from ultralytics.nn.tasks import DetectionModel", 'DetectionModel("yolov9e.yaml", nc=3, verbose=False)',
         _YOLO, "1, 3, 128, 128", DYNAMIC_BHW),
    # transformers: DEIMv2, PP-DocLayoutV3 (detectors), PP-OCRv5's text detector (a DB head), Sapiens2 pose.
    Spec("hf_deimv2", "transformers DEIMv2 (default config, 3 labels)",
         "from transformers import Deimv2Config, Deimv2ForObjectDetection",
         "Deimv2ForObjectDetection(Deimv2Config(num_labels=3))", _HF_DETECT, "1, 3, 128, 128", DYNAMIC_B,
         calibrate="self.m(pixel_values=xb)"),
    Spec("hf_pp_doclayout_v3", "transformers PP-DocLayoutV3 (default config, 30 queries)",
         "from transformers import PPDocLayoutV3Config, PPDocLayoutV3ForObjectDetection",
         "PPDocLayoutV3ForObjectDetection(PPDocLayoutV3Config(num_queries=30))",
         "out = self.m(pixel_values=x)\n        return out.logits, out.pred_boxes, out.order_logits, out.out_masks",
         "1, 3, 128, 128", DYNAMIC_B, calibrate="self.m(pixel_values=xb)"),
    Spec("hf_ppocrv5_mobile_det", "transformers PP-OCRv5 mobile text detector (default config)",
         "from transformers import PPOCRV5MobileDetConfig, PPOCRV5MobileDetForObjectDetection",
         "PPOCRV5MobileDetForObjectDetection(PPOCRV5MobileDetConfig())",
         "return self.m(pixel_values=x).last_hidden_state", _SMALL, DYNAMIC_BHW),
    Spec("hf_sapiens2_pose", "transformers Sapiens2 pose (small config, 64 px, 5 keypoints)",
         "from transformers import Sapiens2Config, Sapiens2ForPoseEstimation",
         "Sapiens2ForPoseEstimation(Sapiens2Config(hidden_size=32, intermediate_size=64, num_hidden_layers=2, "
         "num_attention_heads=2, num_key_value_attention_heads=1, image_size=64, patch_size=8, num_register_tokens=2, "
         "num_first_full_attention_layers=1, num_last_full_attention_layers=1, num_labels=5, "
         "head_config=dict(upsample_out_channels=[16, 16], conv_out_channels=[16])))",
         "return self.m(pixel_values=x).heatmaps", _SMALL, DYNAMIC_BHW),
    # timm: lambda layers with relative positions, TNT, PiT, MambaOut, RepViT.
    Spec("timm_lambda_resnet26rpt", "timm lambda_resnet26rpt_256 (256 px)", "import timm",
         'timm.create_model("lambda_resnet26rpt_256", pretrained=False, num_classes=10)', "return self.m(x)",
         "1, 3, 256, 256", DYNAMIC_B),
    Spec("timm_tnt_s", "timm tnt_s_patch16_224 (img_size 64)", "import timm",
         'timm.create_model("tnt_s_patch16_224", pretrained=False, img_size=64, num_classes=10)', "return self.m(x)",
         _SMALL, DYNAMIC_B),
    Spec("timm_pit_ti", "timm pit_ti_224 (img_size 64)", "import timm",
         'timm.create_model("pit_ti_224", pretrained=False, img_size=64, num_classes=10)', "return self.m(x)",
         _SMALL, DYNAMIC_B),
    Spec("timm_mambaout_femto", "timm mambaout_femto", "import timm",
         'timm.create_model("mambaout_femto", pretrained=False, num_classes=10)', "return self.m(x)", _SMALL,
         DYNAMIC_BHW),
    Spec("timm_repvit_m0_9", "timm repvit_m0_9", "import timm",
         'timm.create_model("repvit_m0_9", pretrained=False, num_classes=10)', "return self.m(x)", _SMALL,
         DYNAMIC_BHW),
    # segmentation_models_pytorch: MAnet's attention blocks on the Mix Transformer.
    Spec("smp_manet_mit_b0", "segmentation_models_pytorch MAnet (mit_b0)", "import segmentation_models_pytorch as smp",
         'smp.MAnet("mit_b0", encoder_weights=None, classes=2)', "return self.m(x)", _SMALL, DYNAMIC_BHW),
    # kornia: MKD (kernel descriptors in polar and Cartesian coordinates), SOSNet.
    Spec("kornia_mkd", "kornia MKDDescriptor (32x32 patches)", "import kornia",
         "kornia.feature.MKDDescriptor(patch_size=32, whitening=None)", "return self.m(x)", "2, 1, 32, 32", DYNAMIC_B),
    Spec("kornia_sosnet", "kornia SOSNet descriptor (32x32 patches)", "import kornia",
         "kornia.feature.SOSNet(pretrained=False)", "return self.m(x)", "2, 1, 32, 32", DYNAMIC_B),
    # monai: VQVAE (3-D, a codebook), MILModel (bags of instances, a transformer across them).
    Spec("monai_vqvae", "monai VQVAE (3-D, 32 voxels a side, a codebook of 32)",
         "from monai.networks.nets import VQVAE",
         "VQVAE(spatial_dims=3, in_channels=1, out_channels=1, channels=(16, 16), num_res_channels=16, "
         "num_res_layers=1, downsample_parameters=((2, 4, 1, 1), (2, 4, 1, 1)), "
         "upsample_parameters=((2, 4, 1, 1, 0), (2, 4, 1, 1, 0)), num_embeddings=32, embedding_dim=8)",
         "return self.m(x)[0]", "1, 1, 32, 32, 32", _DYNAMIC_VOLUME),
    Spec("monai_milmodel", "monai MILModel (att_trans, torchvision resnet18 backbone, bags of 4 instances)",
         "from monai.networks.nets import MILModel",
         'MILModel(num_classes=3, mil_mode="att_trans", pretrained=False, backbone="resnet18", trans_blocks=2)',
         "return self.m(x)", "1, 4, 3, 64, 64", _DYNAMIC_BAG),
    # vit-pytorch: a ViT on 3-D patches, N-d rotary positions, relative projected biases, ScalableViT.
    Spec("vitp_vit_3d", "vit-pytorch ViT for video (3-D patches, 4 frames of 32 px)",
         "from vit_pytorch.vit_3d import ViT",
         "ViT(image_size=32, image_patch_size=8, frames=4, frame_patch_size=2, num_classes=10, dim=32, depth=2, "
         "heads=2, mlp_dim=64, dim_head=16)", "return self.m(x)", "1, 3, 4, 32, 32", DYNAMIC_B),
    Spec("vitp_vit_nd_rotary", "vit-pytorch ViTND with N-d rotary positions (2-D, 64 px)",
         "from vit_pytorch.vit_nd_rotary import ViTND",
         "ViTND(ndim=2, input_shape=(64, 64), patch_size=8, num_classes=10, dim=32, depth=2, heads=2, mlp_dim=64, "
         "dim_head=16)", "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("vitp_relproj_simple_vit", "vit-pytorch SimpleViT with relative projected position biases (64 px)",
         "from vit_pytorch.simple_vit_with_relative_proj_pos_bias import SimpleViT",
         "SimpleViT(image_size=64, patch_size=8, num_classes=10, dim=32, depth=2, heads=2, mlp_dim=64, dim_head=16)",
         "return self.m(x)", _SMALL, DYNAMIC_B),
    Spec("vitp_scalable_vit", "vit-pytorch ScalableViT (small dims, 64 px)",
         "from vit_pytorch.scalable_vit import ScalableViT",
         "ScalableViT(num_classes=10, dim=16, depth=(1, 1, 1, 1), heads=(1, 2, 4, 8), reduction_factor=(4, 2, 1, 1), "
         "window_size=(4, 2, 2, 1))", "return self.m(x)", _SMALL, DYNAMIC_B),
]

if __name__ == "__main__":
    main(MODELS10, "real_zoo10", PINS8)
