"""A fifth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo5.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

The fourth zoo's first contact (4 of 8 fixed) led to fixes, so its 6 of 8 after them is no longer
a figure for models nobody tuned for. This zoo is the next check: the same libraries and pins as
the second to fourth (pass the second's ``--work``), 24 other models, chosen by family before any
was run, leaning to the kinds that needed work before (detectors, matchers, dense heads):
the D-FINE, LW-DETR and OWLv2 detectors, an encoder-only mask transformer (EoMT), metric depth
with attractor bins (ZoeDepth), window-attention super-resolution (Swin2SR), a dense matcher
(EfficientLoFTR); ViTs with rotary embeddings, dual and global-context attention and TinyViT;
YOLOv5, YOLOv3-tiny and a YOLO26 pose head; SSD300 and Swin V2; DexiNed edges, Canny and LoFTR;
VoxelMorph registration and a 2-D RetinaNet; UNet++ and SegFormer; EfficientDet-Lite0. Each is
small and has the dynamic axes a deploying user declares (batch alone where the size is part of
the model). Machinery, table and counts are real_zoo2.py's. The wrappers were checked only for
building and running eagerly before the first migrate run.
"""

from __future__ import annotations

from real_zoo import DYNAMIC_B, DYNAMIC_BHW, Spec
from real_zoo2 import _RTDETR_RESNET, _TV_ROWS, main

_SMALL = "1, 3, 64, 64"
_YOLO = "y, _ = self.m(x)\n        return y"
_HF_DETECT = "out = self.m(pixel_values=x)\n        return out.logits, out.pred_boxes"

MODELS5 = [
    # timm: rotary position embeddings at any size, dual attention, TinyViT, global-context attention.
    Spec("timm_eva02_tiny", "timm eva02_tiny_patch14_224 (dynamic image size)", "import timm",
         'timm.create_model("eva02_tiny_patch14_224", pretrained=False, img_size=56, dynamic_img_size=True, '
         "num_classes=10)", "return self.m(x)", "1, 3, 56, 56", DYNAMIC_BHW),
    Spec("timm_davit_tiny", "timm davit_tiny", "import timm",
         'timm.create_model("davit_tiny", pretrained=False, num_classes=10)', "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("timm_tiny_vit_5m", "timm tiny_vit_5m_224", "import timm",
         'timm.create_model("tiny_vit_5m_224", pretrained=False, num_classes=10)', "return self.m(x)", _SMALL,
         DYNAMIC_BHW),
    Spec("timm_gcvit_xxtiny", "timm gcvit_xxtiny (img_size 64)", "import timm",
         'timm.create_model("gcvit_xxtiny", pretrained=False, img_size=64, num_classes=10)', "return self.m(x)",
         _SMALL, DYNAMIC_B),
    # transformers: three detectors, a mask transformer, metric depth, super-resolution, a dense matcher.
    Spec("hf_dfine", "transformers D-FINE (small config)", "from transformers import DFineConfig, DFineForObjectDetection",
         "DFineForObjectDetection(DFineConfig(num_queries=30, d_model=64, encoder_hidden_dim=64, decoder_layers=2, "
         "encoder_layers=1, encoder_ffn_dim=128, decoder_ffn_dim=128, num_labels=4, encoder_in_channels=[32, 64, 64], "
         f"decoder_in_channels=[64, 64, 64], {_RTDETR_RESNET}, use_pretrained_backbone=False))",
         _HF_DETECT, "1, 3, 128, 128", calibrate="self.m(pixel_values=xb)"),
    Spec("hf_lw_detr", "transformers LW-DETR (small ViT config)", "from transformers import LwDetrConfig, LwDetrForObjectDetection",
         "LwDetrForObjectDetection(LwDetrConfig(backbone_config=dict(model_type='lw_detr_vit', hidden_size=32, "
         "num_hidden_layers=2, num_attention_heads=2, image_size=64, pretrain_image_size=64, patch_size=16, "
         "window_block_indices=[0], num_windows=4, out_indices=[1, 2]), projector_scale_factors=[1.0], d_model=32, "
         "decoder_layers=1, decoder_self_attention_heads=2, decoder_cross_attention_heads=2, decoder_ffn_dim=64, "
         "num_queries=10, group_detr=1, num_labels=3))", _HF_DETECT, _SMALL, DYNAMIC_B),
    Spec("hf_owlv2", "transformers OWLv2 (small config, two fixed text queries)",
         "from transformers import Owlv2Config, Owlv2ForObjectDetection",
         "Owlv2ForObjectDetection(Owlv2Config(text_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=1, "
         "num_attention_heads=2, vocab_size=100, max_position_embeddings=16), vision_config=dict(hidden_size=32, "
         "intermediate_size=64, num_hidden_layers=1, num_attention_heads=2, image_size=64, patch_size=16), "
         "projection_dim=32))", "out = self.m(input_ids=self.ids, pixel_values=x)\n        return out.logits, out.pred_boxes",
         _SMALL, DYNAMIC_B, init='self.register_buffer("ids", torch.tensor([[1, 5, 7, 2], [1, 9, 2, 0]]))'),
    Spec("hf_eomt", "transformers EoMT (small config, 10 queries)",
         "from transformers import EomtConfig, EomtForUniversalSegmentation",
         "EomtForUniversalSegmentation(EomtConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, "
         "image_size=64, patch_size=16, num_blocks=1, num_queries=10, num_labels=3))",
         "out = self.m(pixel_values=x)\n        return out.class_queries_logits, out.masks_queries_logits", _SMALL,
         DYNAMIC_B),
    Spec("hf_zoedepth", "transformers ZoeDepth (small BEiT config)",
         "from transformers import ZoeDepthConfig, ZoeDepthForDepthEstimation",
         "ZoeDepthForDepthEstimation(ZoeDepthConfig(backbone_config=dict(model_type='beit', hidden_size=32, "
         "num_hidden_layers=4, num_attention_heads=2, intermediate_size=64, image_size=64, patch_size=16, "
         "out_indices=[1, 2, 3, 4], use_relative_position_bias=True, reshape_hidden_states=False), "
         "neck_hidden_sizes=[8, 16, 32, 32], fusion_hidden_size=16, bottleneck_features=16, bin_embedding_dim=16, "
         "num_relative_features=8, patch_transformer_hidden_size=16, patch_transformer_intermediate_size=32, "
         "patch_transformer_num_attention_heads=2, num_patch_transformer_layers=1))",
         "return self.m(pixel_values=x).predicted_depth", _SMALL, DYNAMIC_BHW),
    Spec("hf_swin2sr", "transformers Swin2SR x2 (small config, window 4)",
         "from transformers import Swin2SRConfig, Swin2SRForImageSuperResolution",
         "Swin2SRForImageSuperResolution(Swin2SRConfig(image_size=32, embed_dim=16, depths=[1, 1], num_heads=[1, 1], "
         "window_size=4, upscale=2))", "return self.m(pixel_values=x).reconstruction", "1, 3, 32, 32", DYNAMIC_BHW),
    Spec("hf_efficientloftr", "transformers EfficientLoFTR (small config, an image pair)",
         "from transformers import EfficientLoFTRConfig, EfficientLoFTRForKeypointMatching",
         "EfficientLoFTRForKeypointMatching(EfficientLoFTRConfig(stage_num_blocks=[1, 1, 1, 1], "
         "out_features=[16, 16, 32, 64], hidden_size=64, num_attention_layers=1, num_attention_heads=8))",
         "out = self.m(pixel_values=x)\n        return out.matches, out.matching_scores", "1, 2, 3, 64, 64",
         'dynamic_axes = { x = { 0 = "batch" } }'),
    # ultralytics: YOLOv5, YOLOv3-tiny, the YOLO26 pose head.
    Spec("yolov5n", "ultralytics YOLOv5n (yolov5n.yaml, nc=3)", "from ultralytics.nn.tasks import DetectionModel",
         'DetectionModel("yolov5n.yaml", nc=3, verbose=False)', _YOLO, "1, 3, 128, 128", DYNAMIC_BHW),
    Spec("yolov3_tiny", "ultralytics YOLOv3-tiny (yolov3-tiny.yaml, nc=3)", "from ultralytics.nn.tasks import DetectionModel",
         'DetectionModel("yolov3-tiny.yaml", nc=3, verbose=False)', _YOLO, "1, 3, 128, 128", DYNAMIC_BHW),
    Spec("yolo26n_pose", "ultralytics YOLO26n-pose (yolo26n-pose.yaml, nc=1)", "from ultralytics.nn.tasks import PoseModel",
         'PoseModel("yolo26n-pose.yaml", nc=1, verbose=False)', _YOLO, "1, 3, 128, 128", DYNAMIC_BHW),
    # torchvision: SSD300 with its VGG backbone, Swin V2.
    Spec("tv_ssd300", "torchvision ssd300_vgg16 (top 20)", "import torchvision",
         "torchvision.models.detection.ssd300_vgg16(weights=None, weights_backbone=None, num_classes=3, "
         "detections_per_img=20)", _TV_ROWS, "1, 3, 128, 128", 'unordered = ["output"]',
         calibrate="self.m(list(xb))"),
    Spec("tv_swin_v2_t", "torchvision swin_v2_t", "import torchvision",
         "torchvision.models.swin_v2_t(weights=None, num_classes=10)", "return self.m(x)", _SMALL, DYNAMIC_BHW),
    # kornia: learned edges, Canny, dense matching.
    Spec("kornia_dexined", "kornia DexiNed (random weights)", "from kornia.models.dexined import DexiNed",
         "DexiNed(pretrained=False)", "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("kornia_canny", "kornia Canny (hysteresis)", "import kornia", "kornia.filters.Canny()",
         "magnitude, edges = self.m(x)\n        return magnitude, edges", _SMALL, DYNAMIC_BHW),
    Spec("kornia_loftr", "kornia LoFTR (random weights, coarse threshold 0, an image pair as two channels)",
         "import kornia\nfrom kornia.feature.loftr.loftr import default_cfg",
         "kornia.feature.LoFTR(pretrained=None, config={**default_cfg, 'match_coarse': {**default_cfg['match_coarse'], "
         "'thr': 0.0}})",
         'out = self.m({"image0": x[:, :1], "image1": x[:, 1:]})\n        '
         'return out["keypoints0"], out["keypoints1"], out["confidence"]', "1, 2, 64, 64", DYNAMIC_B),
    # monai: deformable registration, a 2-D RetinaNet.
    Spec("monai_voxelmorph", "monai VoxelMorph (2-D, 3 integration steps)",
         "from monai.networks.nets import VoxelMorph, VoxelMorphUNet",
         "VoxelMorph(backbone=VoxelMorphUNet(spatial_dims=2, in_channels=2, unet_out_channels=8, "
         "channels=(8, 16, 16, 16, 16, 16), final_conv_channels=(8, 8)), integration_steps=3, spatial_dims=2)",
         "return self.m(x[:, :1], x[:, 1:])", "1, 2, 64, 64", DYNAMIC_BHW),
    Spec("monai_retinanet", "monai RetinaNet (2-D, resnet18 FPN, head outputs)",
         "from monai.apps.detection.networks.retinanet_network import RetinaNet, resnet_fpn_feature_extractor\n"
         "from monai.networks.nets import resnet18",
         "RetinaNet(spatial_dims=2, num_classes=3, num_anchors=3, feature_extractor=resnet_fpn_feature_extractor("
         "resnet18(spatial_dims=2, n_input_channels=3, conv1_t_stride=2), spatial_dims=2, pretrained_backbone=False, "
         "returned_layers=[1, 2]), size_divisible=32, use_list_output=True)",
         "return tuple(self.m(x))", _SMALL, DYNAMIC_BHW),
    # segmentation_models_pytorch: nested U-Net decoder, SegFormer.
    Spec("smp_unetplusplus", "segmentation_models_pytorch UnetPlusPlus (resnet18)",
         "import segmentation_models_pytorch as smp", 'smp.UnetPlusPlus("resnet18", encoder_weights=None, classes=2)',
         "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("smp_segformer", "segmentation_models_pytorch Segformer (mit_b0)", "import segmentation_models_pytorch as smp",
         'smp.Segformer("mit_b0", encoder_weights=None, classes=2)', "return self.m(x)", _SMALL, DYNAMIC_BHW),
    # effdet: the TensorFlow-padded Lite variant.
    Spec("effdet_lite0", "effdet tf_efficientdet_lite0 (image size 128, predict bench)", "from effdet import create_model",
         'create_model("tf_efficientdet_lite0", bench_task="predict", num_classes=3, pretrained_backbone=False, '
         "image_size=(128, 128), max_det_per_image=20)", "return self.m(x)", "1, 3, 128, 128",
         'unordered = ["output"]', calibrate="self.m(xb)"),
]

if __name__ == "__main__":
    main(MODELS5, "real_zoo5")
