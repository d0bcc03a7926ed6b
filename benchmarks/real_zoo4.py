"""A fourth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo4.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

The third zoo's first contact (6 of 9 fixed) led to fixes, so its 9 of 9 after them is no longer
a figure for models nobody tuned for. This zoo is the next check: the same libraries and pins as
the second and third (pass the second's ``--work``), 22 other models, chosen by family before
any was run: multi-axis and cross-covariance vision transformers, HRNet, ghost and shuffle
convolutions, an MLP-mixer, a universal segmenter (Mask2Former), ViTDet, Hiera, attention and
pyramid-attention U-Nets, a transformer U-Net (UNETR), YOLOv6 and YOLOv9, a keypoint R-CNN, a
video classifier, and kornia's DISK keypoints and SIFT descriptor. Each is small and has the
dynamic axes a deploying user declares (batch alone where the size is part of the model).
Machinery, table and counts are real_zoo2.py's. The wrappers were checked only for building and
running eagerly before the first migrate run.
"""

from __future__ import annotations

from real_zoo import DYNAMIC_B, DYNAMIC_BHW, Spec
from real_zoo2 import _TV_SMALL, main

_SMALL = "1, 3, 64, 64"
_YOLO = "y, _ = self.m(x)\n        return y"

MODELS4 = [
    # timm: multi-axis attention, cross-covariance attention, HRNet, ghost modules, an MLP-mixer.
    Spec("timm_maxvit_nano", "timm maxvit_nano_rw_256 (img_size 64)", "import timm",
         'timm.create_model("maxvit_nano_rw_256", pretrained=False, img_size=64, num_classes=10)',
         "return self.m(x)", _SMALL, DYNAMIC_B),
    Spec("timm_xcit_nano", "timm xcit_nano_12_p16_224", "import timm",
         'timm.create_model("xcit_nano_12_p16_224", pretrained=False, img_size=64, num_classes=10)',
         "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("timm_hrnet_w18_small", "timm hrnet_w18_small", "import timm",
         'timm.create_model("hrnet_w18_small", pretrained=False, num_classes=10)', "return self.m(x)", _SMALL,
         DYNAMIC_BHW),
    Spec("timm_ghostnetv2", "timm ghostnetv2_100", "import timm",
         'timm.create_model("ghostnetv2_100", pretrained=False, num_classes=10)', "return self.m(x)", _SMALL,
         DYNAMIC_BHW),
    Spec("timm_mixer_s16", "timm mixer_s16_224 (img_size 64)", "import timm",
         'timm.create_model("mixer_s16_224", pretrained=False, img_size=64, num_classes=10)', "return self.m(x)",
         _SMALL, DYNAMIC_B),
    # transformers: a universal segmenter, ViTDet, ConvNeXt V2, a MobileNetV2 DeepLab head, Hiera.
    Spec("hf_mask2former", "transformers Mask2Former (small Swin config, 10 queries)",
         "from transformers import Mask2FormerConfig, Mask2FormerForUniversalSegmentation",
         "Mask2FormerForUniversalSegmentation(Mask2FormerConfig(backbone_config=dict(model_type='swin', image_size=64, "
         "embed_dim=16, depths=[1, 1, 1, 1], num_heads=[1, 1, 2, 2], window_size=4, "
         "out_features=['stage1', 'stage2', 'stage3', 'stage4']), hidden_dim=32, mask_feature_size=32, "
         "feature_size=32, num_queries=10, encoder_layers=1, decoder_layers=2, num_attention_heads=2, "
         "dim_feedforward=64, encoder_feedforward_dim=64, num_labels=3))",
         "out = self.m(pixel_values=x)\n        return out.class_queries_logits, out.masks_queries_logits", _SMALL,
         DYNAMIC_BHW),
    Spec("hf_vitdet", "transformers ViTDet backbone (small config, window and global blocks)",
         "from transformers import VitDetConfig, VitDetModel",
         "VitDetModel(VitDetConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, mlp_ratio=2, "
         "image_size=64, pretrain_image_size=64, patch_size=16, window_size=2, window_block_indices=[0], "
         "use_relative_position_embeddings=True))", "return self.m(pixel_values=x).last_hidden_state", _SMALL,
         DYNAMIC_BHW),
    Spec("hf_convnextv2", "transformers ConvNeXt V2 (small config)", "from transformers import ConvNextV2Config, ConvNextV2Model",
         "ConvNextV2Model(ConvNextV2Config(hidden_sizes=[8, 16, 32, 64], depths=[1, 1, 1, 1]))",
         "return self.m(pixel_values=x).last_hidden_state", _SMALL, DYNAMIC_BHW),
    Spec("hf_mobilenetv2_seg", "transformers MobileNetV2 DeepLabV3 segmentation (depth 0.35)",
         "from transformers import MobileNetV2Config, MobileNetV2ForSemanticSegmentation",
         "MobileNetV2ForSemanticSegmentation(MobileNetV2Config(depth_multiplier=0.35, image_size=64, num_labels=3))",
         "return self.m(pixel_values=x).logits", _SMALL, DYNAMIC_BHW),
    Spec("hf_hiera", "transformers Hiera (small config, 64 px)", "from transformers import HieraConfig, HieraModel",
         "HieraModel(HieraConfig(embed_dim=16, image_size=[64, 64], depths=[1, 1, 1, 1], num_heads=[1, 1, 2, 2]))",
         "return self.m(pixel_values=x).last_hidden_state", _SMALL, DYNAMIC_B),
    # segmentation_models_pytorch: attention and pyramid-attention decoders, LinkNet.
    Spec("smp_manet", "segmentation_models_pytorch MAnet (resnet18)", "import segmentation_models_pytorch as smp",
         'smp.MAnet("resnet18", encoder_weights=None, classes=2)', "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("smp_pan", "segmentation_models_pytorch PAN (resnet18)", "import segmentation_models_pytorch as smp",
         'smp.PAN("resnet18", encoder_weights=None, classes=2)', "return self.m(x)", "1, 3, 128, 128", DYNAMIC_BHW),
    Spec("smp_linknet", "segmentation_models_pytorch Linknet (resnet18)", "import segmentation_models_pytorch as smp",
         'smp.Linknet("resnet18", encoder_weights=None, classes=2)', "return self.m(x)", _SMALL, DYNAMIC_BHW),
    # monai: a transformer U-Net, an EfficientNet U-Net, HighResNet.
    Spec("monai_unetr", "monai UNETR (2-D, 64 px, hidden 64)", "from monai.networks.nets import UNETR",
         "UNETR(in_channels=3, out_channels=2, img_size=(64, 64), spatial_dims=2, feature_size=8, hidden_size=64, "
         "mlp_dim=128, num_heads=4)", "return self.m(x)", _SMALL, DYNAMIC_B),
    Spec("monai_flexible_unet", "monai FlexibleUNet (efficientnet-b0, 2-D)", "from monai.networks.nets import FlexibleUNet",
         'FlexibleUNet(in_channels=3, out_channels=2, backbone="efficientnet-b0", pretrained=False, spatial_dims=2)',
         "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("monai_highresnet", "monai HighResNet (2-D)", "from monai.networks.nets import HighResNet",
         "HighResNet(spatial_dims=2, in_channels=3, out_channels=2)", "return self.m(x)", _SMALL, DYNAMIC_BHW),
    # ultralytics: YOLOv6 and YOLOv9 detectors.
    Spec("yolov6n", "ultralytics YOLOv6n (yolov6n.yaml, nc=3)", "from ultralytics.nn.tasks import DetectionModel",
         'DetectionModel("yolov6n.yaml", nc=3, verbose=False)', _YOLO, "1, 3, 128, 128", DYNAMIC_BHW),
    Spec("yolov9t", "ultralytics YOLOv9t (yolov9t.yaml, nc=3)", "from ultralytics.nn.tasks import DetectionModel",
         'DetectionModel("yolov9t.yaml", nc=3, verbose=False)', _YOLO, "1, 3, 128, 128", DYNAMIC_BHW),
    # torchvision: a keypoint R-CNN, a video classifier, ShuffleNet V2.
    Spec("tv_keypointrcnn", "torchvision keypointrcnn_resnet50_fpn (128 px, 5 keypoints)", "import torchvision",
         f"torchvision.models.detection.keypointrcnn_resnet50_fpn(weights=None, weights_backbone=None, {_TV_SMALL}, "
         "num_keypoints=5, rpn_post_nms_top_n_test=100, box_detections_per_img=10)",
         'det = self.m([x[0]])[0]\n        return det["boxes"], det["scores"], det["labels"], det["keypoints"]',
         "1, 3, 128, 128", calibrate="self.m(list(xb))"),
    Spec("tv_r3d_18", "torchvision video r3d_18 (8 frames, 64 px)", "import torchvision",
         "torchvision.models.video.r3d_18(weights=None, num_classes=10)", "return self.m(x)", "1, 3, 8, 64, 64",
         DYNAMIC_B),
    Spec("tv_shufflenet_v2", "torchvision shufflenet_v2_x0_5", "import torchvision",
         "torchvision.models.shufflenet_v2_x0_5(weights=None, num_classes=10)", "return self.m(x)", _SMALL,
         DYNAMIC_BHW),
    # kornia: learned keypoints with their descriptors, and the SIFT descriptor of patches.
    Spec("kornia_disk", "kornia DISK (random weights, 32 keypoints)", "import kornia",
         "kornia.feature.DISK()",
         "f = self.m(x, n=32, pad_if_not_divisible=True)[0]\n        return f.keypoints, f.detection_scores, f.descriptors",
         _SMALL, DYNAMIC_B),
    Spec("kornia_sift", "kornia SIFTDescriptor (32 px patches)", "import kornia", "kornia.feature.SIFTDescriptor(32, 8, 4)",
         "return self.m(x)", "1, 1, 32, 32", DYNAMIC_B),
]

if __name__ == "__main__":
    main(MODELS4, "real_zoo4")
