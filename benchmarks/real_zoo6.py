"""A sixth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo6.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

The fifth zoo's first contact (8 of 17 fixed) led to fixes, so what it gives after them is no longer
a figure for models nobody tuned for. This zoo is the next check: the same libraries and pins as the
second to fifth (pass the second's ``--work``), 24 other models, chosen by family before any was
run, leaning to the kinds that needed work before. Detectors: RF-DETR (windowed DINOv2), kornia's
own RT-DETR, Grounding DINO (two-stage deformable attention fused with a text encoder, one fixed
prompt), ultralytics' YOLO26 oriented-box and instance-segmentation end-to-end heads and its RT-DETR
decoder on a YOLOv8 backbone. Dense heads: MaskFormer, ViTMatte matting, Depth Pro's multi-scale
patches, the YOLO26 depth head, smp's DPT (a timm ViT at any size) and DeepLabV3. Matchers and
keypoints: LightGlue on SuperPoint (adaptive depth and width), kornia's KeyNet-AffNet-HardNet and
DoG SIFT features. Video: TimeSformer, Video Swin (3-D windows), MViT V2 (pooled attention, relative
positions; torchvision's class with small blocks, as ``mvit_v2_s`` fixes 224 px and 16 frames).
Medical 3-D: monai's VNet, SegResNetDS and MedNeXt. timm models whose positions depend on the
input's size: FlexiViT (position embedding resampled per size), EdgeNeXt (Fourier positional
encoding), Twins-SVT (position convolution, padded local windows). Each is small and has the dynamic
axes a deploying user declares: batch, height and width (depth too for volumes); batch alone where
the size is part of the model; height and width alone where the model takes one image per call.
Machinery, table and counts are real_zoo2.py's. The wrappers were checked only for building and
running eagerly, at two sizes, before the first migrate run.
"""

from __future__ import annotations

from real_zoo import DYNAMIC_B, DYNAMIC_BHW, Spec
from real_zoo2 import main

_SMALL = "1, 3, 64, 64"
#: YOLO26's one-to-one head, as zoo 1's YOLO26n: its top 20 (the head runs one-to-many until fused or told).
_TOP20 = "self.m.end2end = True\n        self.m.model[-1].max_det = 20"
_HF_DETECT = "out = self.m(pixel_values=x)\n        return out.logits, out.pred_boxes"
#: A 5-D input's batch, height and width: a video's (frames are part of the model) or an image pair's.
_DYNAMIC_B_HW5 = 'dynamic_axes = { x = { 0 = "batch", 3 = "height", 4 = "width" } }'
#: A volume's batch, depth, height and width.
_DYNAMIC_VOLUME = 'dynamic_axes = { x = { 0 = "batch", 2 = "depth", 3 = "height", 4 = "width" } }'
#: One image per call, any height and width.
_DYNAMIC_HW = 'dynamic_axes = { x = { 2 = "height", 3 = "width" } }'
_DINOV2_SMALL = ("dict(model_type='dinov2', hidden_size=32, num_hidden_layers=2, num_attention_heads=2, "
                 "intermediate_size=64, image_size=32, patch_size=8)")
#: (heads, channels in, channels out, query stride, key/value stride) of a small MViT V2, as mvit_v2_s's stages.
_MVIT_BLOCKS = ", ".join(
    f"MSBlockConfig({h}, {i}, {o}, [3, 3, 3], [3, 3, 3], [1, {q}, {q}], [1, {kv}, {kv}])"
    for h, i, o, q, kv in ((1, 16, 16, 1, 4), (2, 16, 32, 2, 2), (2, 32, 32, 1, 2), (4, 32, 64, 2, 1)))
MODELS6 = [
    # timm: position embeddings resampled, computed or convolved at the input's size.
    Spec("timm_flexivit_small", "timm flexivit_small (dynamic image size)", "import timm",
         'timm.create_model("flexivit_small", pretrained=False, img_size=64, dynamic_img_size=True, num_classes=10)',
         "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("timm_edgenext_xx_small", "timm edgenext_xx_small", "import timm",
         'timm.create_model("edgenext_xx_small", pretrained=False, num_classes=10)', "return self.m(x)", _SMALL,
         DYNAMIC_BHW),
    Spec("timm_twins_svt_small", "timm twins_svt_small", "import timm",
         'timm.create_model("twins_svt_small", pretrained=False, num_classes=10)', "return self.m(x)", _SMALL,
         DYNAMIC_BHW),
    # transformers: two detectors, a mask classifier, matting, patch depth, a matcher, a video transformer.
    Spec("hf_rf_detr", "transformers RF-DETR (small windowed DINOv2 config)",
         "from transformers import RfDetrConfig, RfDetrForObjectDetection",
         "RfDetrForObjectDetection(RfDetrConfig(backbone_config=dict(model_type='rf_detr_dinov2', hidden_size=32, "
         "num_hidden_layers=4, num_attention_heads=2, image_size=64, patch_size=16, num_windows=2, "
         "out_indices=[1, 3]), d_model=32, decoder_layers=1, decoder_self_attention_heads=2, "
         "decoder_cross_attention_heads=2, decoder_ffn_dim=64, num_queries=10, group_detr=1, num_labels=3))",
         _HF_DETECT, _SMALL, DYNAMIC_BHW),
    Spec("hf_grounding_dino", "transformers Grounding DINO (small Swin and BERT configs, a fixed two-phrase prompt)",
         "from transformers import GroundingDinoConfig, GroundingDinoForObjectDetection",
         "GroundingDinoForObjectDetection(GroundingDinoConfig(backbone_config=dict(model_type='swin', image_size=128, "
         "embed_dim=16, depths=[1, 1, 1, 1], num_heads=[1, 1, 2, 2], window_size=4, "
         "out_indices=[2, 3, 4]), text_config=dict(model_type='bert', hidden_size=32, num_hidden_layers=1, "
         "num_attention_heads=2, intermediate_size=64, vocab_size=1100, max_position_embeddings=32), d_model=32, "
         "encoder_layers=1, decoder_layers=2, encoder_attention_heads=2, decoder_attention_heads=2, "
         "encoder_ffn_dim=64, decoder_ffn_dim=64, num_queries=10, max_text_len=16, disable_custom_kernels=True))",
         "ids = self.ids.expand(x.shape[0], -1)  # the one prompt, for every image\n        "
         "out = self.m(pixel_values=x, input_ids=ids, attention_mask=torch.ones_like(ids))\n        "
         "return out.logits, out.pred_boxes", "1, 3, 128, 128", DYNAMIC_BHW,
         init='self.register_buffer("ids", torch.tensor([[101, 5, 7, 1012, 9, 1012, 102]]))'),
    Spec("hf_maskformer", "transformers MaskFormer (small Swin config, 10 queries)",
         "from transformers import MaskFormerConfig, MaskFormerForInstanceSegmentation",
         "MaskFormerForInstanceSegmentation(MaskFormerConfig(backbone_config=dict(model_type='swin', image_size=64, "
         "embed_dim=16, depths=[1, 1, 1, 1], num_heads=[1, 1, 2, 2], window_size=4, "
         "out_features=['stage1', 'stage2', 'stage3', 'stage4']), decoder_config=dict(model_type='detr', d_model=32, "
         "encoder_layers=1, decoder_layers=2, encoder_attention_heads=2, decoder_attention_heads=2, "
         "encoder_ffn_dim=64, decoder_ffn_dim=64, num_queries=10), fpn_feature_size=32, mask_feature_size=32, "
         "num_labels=3))",
         "out = self.m(pixel_values=x)\n        return out.class_queries_logits, out.masks_queries_logits", _SMALL,
         DYNAMIC_BHW),
    Spec("hf_vitmatte", "transformers ViTMatte (small ViTDet config, image and trimap as 4 channels)",
         "from transformers import VitMatteConfig, VitMatteForImageMatting",
         "VitMatteForImageMatting(VitMatteConfig(backbone_config=dict(model_type='vitdet', num_channels=4, "
         "hidden_size=32, num_hidden_layers=2, num_attention_heads=2, mlp_ratio=2, image_size=64, "
         "pretrain_image_size=64, patch_size=16, window_size=2, window_block_indices=[0], "
         "use_relative_position_embeddings=True, out_features=['stage2']), hidden_size=32, "
         "convstream_hidden_sizes=[8, 16, 32], fusion_hidden_sizes=[32, 16, 8, 8]))",
         "return self.m(pixel_values=x).alphas", "1, 4, 64, 64", DYNAMIC_BHW),
    Spec("hf_depth_pro", "transformers Depth Pro (small DINOv2 configs, 32 px patches of a 128 px image)",
         "from transformers import DepthProConfig, DepthProForDepthEstimation",
         "DepthProForDepthEstimation(DepthProConfig(patch_size=32, fusion_hidden_size=16, "
         "intermediate_hook_ids=[1, 0], "
         "intermediate_feature_dims=[16, 16], scaled_images_feature_dims=[32, 32, 16], "
         f"image_model_config={_DINOV2_SMALL}, patch_model_config={_DINOV2_SMALL}, "
         f"fov_model_config={_DINOV2_SMALL}))",
         "return self.m(pixel_values=x).predicted_depth", "1, 3, 128, 128", DYNAMIC_B),
    Spec("hf_lightglue", "transformers LightGlue on SuperPoint (small configs, an image pair, top 20 keypoints)",
         "from transformers import LightGlueConfig, LightGlueForKeypointMatching",
         "LightGlueForKeypointMatching(LightGlueConfig(keypoint_detector_config=dict(model_type='superpoint', "
         "encoder_hidden_sizes=[8, 8, 16, 16], decoder_hidden_size=32, descriptor_decoder_dim=32, "
         "max_keypoints=20), "
         "descriptor_dim=32, num_hidden_layers=2, num_attention_heads=2))",
         "out = self.m(pixel_values=x)\n        return out.matches, out.matching_scores, out.keypoints, out.mask",
         "1, 2, 3, 64, 64", _DYNAMIC_B_HW5),
    Spec("hf_timesformer", "transformers TimeSformer (small config, 4 frames of 32 px)",
         "from transformers import TimesformerConfig, TimesformerForVideoClassification",
         "TimesformerForVideoClassification(TimesformerConfig(image_size=32, patch_size=8, num_frames=4, "
         "hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, num_labels=5))",
         "return self.m(pixel_values=x).logits", "1, 4, 3, 32, 32", DYNAMIC_B),
    # ultralytics: YOLO26's oriented-box, instance-segmentation and depth heads, RT-DETR on YOLOv8.
    Spec("yolo26n_obb", "ultralytics YOLO26n-obb (yolo26n-obb.yaml, nc=3, end-to-end top 20)",
         "from ultralytics.nn.tasks import OBBModel", 'OBBModel("yolo26n-obb.yaml", nc=3, verbose=False)',
         "y, _ = self.m(x)\n        return y", "1, 3, 128, 128", DYNAMIC_BHW + '\nunordered = ["output"]',
         init=_TOP20, calibrate="self.m(xb)"),
    Spec("yolo26n_seg", "ultralytics YOLO26n-seg (yolo26n-seg.yaml, nc=3, end-to-end top 20)",
         "from ultralytics.nn.tasks import SegmentationModel",
         'SegmentationModel("yolo26n-seg.yaml", nc=3, verbose=False)',
         "(y, proto), _ = self.m(x)\n        return y, proto", "1, 3, 128, 128", DYNAMIC_BHW + '\nunordered = ["output.0"]', init=_TOP20, calibrate="self.m(xb)"),
    Spec("yolo26n_depth", "ultralytics YOLO26n-depth (yolo26n-depth.yaml)", "from ultralytics.nn.tasks import DepthModel",
         'DepthModel("yolo26n-depth.yaml", verbose=False)', "return self.m(x)", "1, 3, 128, 128", DYNAMIC_BHW),
    Spec("yolov8n_rtdetr", "ultralytics YOLOv8n-RT-DETR (yolov8n-rtdetr.yaml, nc=3)",
         "from ultralytics.nn.tasks import RTDETRDetectionModel",
         'RTDETRDetectionModel("yolov8n-rtdetr.yaml", nc=3, verbose=False)', "y, _ = self.m(x)\n        return y",
         "1, 3, 128, 128", DYNAMIC_BHW + '\nunordered = ["output"]', calibrate="self.m(xb)"),
    # torchvision: two video transformers.
    Spec("tv_swin3d_t", "torchvision video swin3d_t (4 frames, 64 px)", "import torchvision",
         "torchvision.models.video.swin3d_t(weights=None, num_classes=10)", "return self.m(x)", "1, 3, 4, 64, 64",
         _DYNAMIC_B_HW5),
    # mvit_v2_s fixes 224 px and 16 frames: its class with V2's options and four small blocks instead.
    Spec("tv_mvit_v2", "torchvision video MViT V2 (4 blocks, 4 frames, 64 px)",
         "from torchvision.models.video.mvit import MSBlockConfig, MViT",
         f"MViT(spatial_size=(64, 64), temporal_size=4, block_setting=[{_MVIT_BLOCKS}], residual_pool=True, "
         "residual_with_cls_embed=False, rel_pos_embed=True, proj_after_attn=True, num_classes=10)",
         "return self.m(x)", "1, 3, 4, 64, 64", DYNAMIC_B),
    # kornia: a learned detector with affine shapes and descriptors, its own RT-DETR, the DoG SIFT pipeline.
    Spec("kornia_keynet_affnet_hardnet", "kornia KeyNet + AffNet + HardNet (random weights, 32 features)",
         "import kornia\nfrom kornia.feature import (HardNet, KeyNetDetector, LAFAffNetShapeEstimator, LAFDescriptor, "
         "LAFOrienter, LocalFeature, OriNet)",
         "LocalFeature(KeyNetDetector(False, num_features=32, ori_module=LAFOrienter(angle_detector=OriNet(False)), "
         "aff_module=LAFAffNetShapeEstimator(False)), LAFDescriptor(HardNet(False), patch_size=32, "
         "grayscale_descriptor=True))",
         "lafs, responses, descs = self.m(x)\n        return lafs, responses, descs", "1, 1, 64, 64", _DYNAMIC_HW),
    Spec("kornia_rtdetr", "kornia RT-DETR (ResNet-D 18, small neck and head, 128 px)",
         "from kornia.models.rt_detr.model import RTDETR, RTDETRConfig",
         "RTDETR.from_config(RTDETRConfig('resnet18d', 3, input_size=128, neck_hidden_dim=64, neck_dim_feedforward=128, "
         "head_hidden_dim=64, head_num_queries=30, head_num_decoder_layers=2))",
         "logits, boxes = self.m(x)\n        return logits, boxes", "1, 3, 128, 128", DYNAMIC_B,
         calibrate="self.m(xb)"),
    Spec("kornia_sift_feature", "kornia SIFTFeature (DoG detector, 32 features)", "import kornia",
         "kornia.feature.SIFTFeature(num_features=32)",
         "lafs, responses, descs = self.m(x)\n        return lafs, responses, descs", "1, 1, 64, 64", _DYNAMIC_HW),
    # monai: 3-D segmentation networks.
    Spec("monai_vnet", "monai VNet (3-D, 32 voxels a side)", "from monai.networks.nets import VNet",
         "VNet(spatial_dims=3, in_channels=1, out_channels=2)", "return self.m(x)", "1, 1, 32, 32, 32",
         _DYNAMIC_VOLUME),
    Spec("monai_segresnetds", "monai SegResNetDS (3-D, 8 filters)", "from monai.networks.nets import SegResNetDS",
         "SegResNetDS(spatial_dims=3, init_filters=8, in_channels=1, out_channels=2, blocks_down=(1, 2, 2, 4))",
         "return self.m(x)", "1, 1, 32, 32, 32", _DYNAMIC_VOLUME),
    Spec("monai_mednext", "monai MedNeXt (3-D, 8 filters, kernel 3)", "from monai.networks.nets import MedNeXt",
         "MedNeXt(spatial_dims=3, init_filters=8, in_channels=1, out_channels=2, kernel_size=3, "
         "blocks_down=(1, 1, 1, 1), blocks_bottleneck=1, blocks_up=(1, 1, 1, 1), global_resp_norm=True)",
         "return self.m(x)", "1, 1, 32, 32, 32", _DYNAMIC_VOLUME),
    # segmentation_models_pytorch: DPT on a timm ViT at any size, DeepLabV3.
    Spec("smp_dpt", "segmentation_models_pytorch DPT (timm vit_tiny_patch16_224, dynamic image size)",
         "import segmentation_models_pytorch as smp",
         'smp.DPT("tu-vit_tiny_patch16_224", encoder_weights=None, classes=2, img_size=64, dynamic_img_size=True, '
         "decoder_intermediate_channels=(16, 32, 64, 64), decoder_fusion_channels=32)",
         "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("smp_deeplabv3", "segmentation_models_pytorch DeepLabV3 (resnet18)", "import segmentation_models_pytorch as smp",
         'smp.DeepLabV3("resnet18", encoder_weights=None, classes=2)', "return self.m(x)", _SMALL, DYNAMIC_BHW),
]

if __name__ == "__main__":
    main(MODELS6, "real_zoo6")
