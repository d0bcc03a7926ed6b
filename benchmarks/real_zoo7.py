"""A seventh real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo7.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the sixth zoo's first contact, so what it gives after them is no longer a
figure for models nobody tuned for. This zoo is the next check: the same libraries and pins as the
second to sixth (pass the second's ``--work``), 24 other models, chosen by family before any was
run, leaning to kinds that often needed work and that the earlier zoos used little. Detectors: Table
Transformer (DETR on a ResNet), Deformable DETR with its other options (two-stage proposals and
iterative box refinement), OWL-ViT v1 with two fixed text queries per image, ultralytics' YOLOv8
oriented-box and pose heads and its RT-DETR on a ResNet-50 (rtdetr-resnet50.yaml), torchvision's
RetinaNet v2 (GroupNorm heads, top 20). Dense heads: OneFormer (task-conditioned queries, one fixed
semantic task token), hybrid DPT (a BiT backbone under the ViT), smp's FPN on the Mix Transformer
mit_b0. Matchers and keypoints: SuperGlue on SuperPoint (Sinkhorn iterations), kornia's XFeat and
LightGlue on DISK features (adaptive depth and width). Video: VideoMAE (tubelets), torchvision's
MC3-18 and R(2+1)D-18 (S3D was dropped before any run: its pooling fixes 224 px and 16 frames, 6 s a
forward here). Medical 3-D: monai's SegResNetVAE (its size is part of the model), LocalNet registration
of a volume pair, DiNTS (a searched topology, here the full one). timm models with relative-position
biases or odd token mixing: SwinV2-CR (continuous position bias, scaled cosine attention), CaiT
(class attention, talking heads), Sequencer2D (bidirectional LSTMs over rows and columns),
EfficientFormerV2 (attention biases at a fixed resolution); and ultralytics' YOLO11 classifier. Each
is small and has the dynamic axes a deploying user declares: batch, height and width (depth too for
volumes); batch alone where the size is part of the model; height and width alone where the model
takes one image or one pair per call. Machinery, table and counts are real_zoo2.py's. The wrappers
were checked only for building and running eagerly, at two sizes, before the first migrate run
(Mask R-CNN v2 was swapped for RetinaNet v2 then: 5 s a forward at 128 px here).
"""

from __future__ import annotations

from real_zoo import DYNAMIC_B, DYNAMIC_BHW, Spec
from real_zoo2 import _HF_DETECT, _RESNET, _TV_ALL, _TV_ROWS, main

_SMALL = "1, 3, 64, 64"
_YOLO = "y, _ = self.m(x)\n        return y"
#: A 5-D input's batch, height and width: a video's (frames are part of the model) or an image pair's.
_DYNAMIC_B_HW5 = 'dynamic_axes = { x = { 0 = "batch", 3 = "height", 4 = "width" } }'
#: A volume's batch, depth, height and width.
_DYNAMIC_VOLUME = 'dynamic_axes = { x = { 0 = "batch", 2 = "depth", 3 = "height", 4 = "width" } }'
#: One image per call, any height and width.
_DYNAMIC_HW = 'dynamic_axes = { x = { 2 = "height", 3 = "width" } }'
#: One image pair per call (a 5-D input), any height and width.
_DYNAMIC_HW5 = 'dynamic_axes = { x = { 3 = "height", 4 = "width" } }'
#: The ResNet's last three stages, for the multi-scale deformable attention.
_RESNET3 = _RESNET.replace('["stage4"]', '["stage2", "stage3", "stage4"]')
_DETR_SIZES = ("encoder_layers=1, decoder_layers=2, encoder_attention_heads=2, decoder_attention_heads=2, "
               "encoder_ffn_dim=64, decoder_ffn_dim=64, num_queries=10, num_labels=3")
_SWIN = ("backbone_config=dict(model_type='swin', image_size=64, embed_dim=16, depths=[1, 1, 1, 1], "
         "num_heads=[1, 1, 2, 2], window_size=4, out_features=['stage1', 'stage2', 'stage3', 'stage4'])")
MODELS7 = [
    # timm: continuous position bias, class attention, LSTM token mixing, fixed-resolution attention biases.
    Spec("timm_swinv2_cr_tiny", "timm swinv2_cr_tiny_ns_224 (img_size 64)", "import timm",
         'timm.create_model("swinv2_cr_tiny_ns_224", pretrained=False, img_size=64, num_classes=10)',
         "return self.m(x)", _SMALL, DYNAMIC_B),
    Spec("timm_cait_xxs24", "timm cait_xxs24_224 (img_size 64)", "import timm",
         'timm.create_model("cait_xxs24_224", pretrained=False, img_size=64, num_classes=10)', "return self.m(x)",
         _SMALL, DYNAMIC_B),
    Spec("timm_sequencer2d_s", "timm sequencer2d_s", "import timm",
         'timm.create_model("sequencer2d_s", pretrained=False, num_classes=10)', "return self.m(x)", _SMALL,
         DYNAMIC_BHW),
    Spec("timm_efficientformerv2_s0", "timm efficientformerv2_s0 (img_size 64)", "import timm",
         'timm.create_model("efficientformerv2_s0", pretrained=False, img_size=64, num_classes=10)',
         "return self.m(x)", _SMALL, DYNAMIC_B),
    # transformers: three detectors, two dense heads, a matcher, a video transformer.
    Spec("hf_table_transformer", "transformers Table Transformer (small config)",
         "from transformers import TableTransformerConfig, TableTransformerForObjectDetection",
         "TableTransformerForObjectDetection(TableTransformerConfig(use_timm_backbone=False, "
         f"use_pretrained_backbone=False, {_RESNET}, d_model=32, {_DETR_SIZES}))", _HF_DETECT, _SMALL, DYNAMIC_BHW),
    Spec("hf_deformable_detr_two_stage", "transformers Deformable DETR (two-stage, box refinement, small config)",
         "from transformers import DeformableDetrConfig, DeformableDetrForObjectDetection",
         "DeformableDetrForObjectDetection(DeformableDetrConfig(use_timm_backbone=False, use_pretrained_backbone=False, "
         f"{_RESNET3}, d_model=32, {_DETR_SIZES}, num_feature_levels=3, with_box_refine=True, two_stage=True, "
         "two_stage_num_proposals=10))", _HF_DETECT, _SMALL, DYNAMIC_BHW),
    Spec("hf_owlvit", "transformers OWL-ViT v1 (small config, two fixed text queries)",
         "from transformers import OwlViTConfig, OwlViTForObjectDetection",
         "OwlViTForObjectDetection(OwlViTConfig(text_config=dict(hidden_size=32, intermediate_size=64, "
         "num_hidden_layers=1, num_attention_heads=2, vocab_size=100, max_position_embeddings=16), "
         "vision_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2, "
         "image_size=64, patch_size=16), projection_dim=32))",
         "ids = self.ids.repeat(x.shape[0], 1)  # the two queries, for every image\n        "
         "out = self.m(input_ids=ids, pixel_values=x, attention_mask=(ids > 0).long())\n        "
         "return out.logits, out.pred_boxes", _SMALL, DYNAMIC_B,
         init='self.register_buffer("ids", torch.tensor([[1, 5, 7, 2], [1, 9, 2, 0]]))'),
    Spec("hf_oneformer", "transformers OneFormer (small Swin config, 10 queries, a fixed semantic task token)",
         "from transformers import OneFormerConfig, OneFormerForUniversalSegmentation",
         f"OneFormerForUniversalSegmentation(OneFormerConfig({_SWIN}, num_queries=10, hidden_dim=32, conv_dim=32, "
         "mask_dim=32, encoder_feedforward_dim=64, dim_feedforward=64, encoder_layers=1, decoder_layers=2, "
         "num_attention_heads=2, text_encoder_width=32, text_encoder_num_layers=1, text_encoder_vocab_size=100, "
         "text_encoder_context_length=8, task_seq_len=8, num_labels=3))",
         "task = self.task.expand(x.shape[0], -1)  # the one task, for every image\n        "
         "out = self.m(pixel_values=x, task_inputs=task)\n        "
         "return out.class_queries_logits, out.masks_queries_logits", _SMALL, DYNAMIC_BHW,
         init='self.register_buffer("task", torch.tensor([[1, 5, 7, 9, 2, 0, 0, 0]]))'),
    Spec("hf_dpt_hybrid", "transformers DPT-hybrid depth (small BiT and ViT configs, 64 px)",
         "from transformers import DPTConfig, DPTForDepthEstimation",
         "DPTForDepthEstimation(DPTConfig(is_hybrid=True, hidden_size=32, num_hidden_layers=4, num_attention_heads=2, "
         "intermediate_size=64, image_size=64, patch_size=16, backbone_out_indices=[0, 1, 2, 3], "
         "neck_hidden_sizes=[32, 64, 128, 128], fusion_hidden_size=32, backbone_featmap_shape=[1, 128, 4, 4], "
         "backbone_config=dict(model_type='bit', embedding_size=32, hidden_sizes=[32, 64, 128], depths=[1, 1, 1], "
         "num_groups=8, layer_type='bottleneck', global_padding='same', embedding_dynamic_padding=True, "
         "out_features=['stage1', 'stage2', 'stage3'])))",
         "return self.m(pixel_values=x).predicted_depth", _SMALL, DYNAMIC_B),
    Spec("hf_superglue", "transformers SuperGlue on SuperPoint (small configs, an image pair, top 20 keypoints)",
         "from transformers import SuperGlueConfig, SuperGlueForKeypointMatching",
         "SuperGlueForKeypointMatching(SuperGlueConfig(keypoint_detector_config=dict(model_type='superpoint', "
         "encoder_hidden_sizes=[8, 8, 16, 16], decoder_hidden_size=32, descriptor_decoder_dim=32, "
         "max_keypoints=20), hidden_size=32, keypoint_encoder_sizes=[16, 32], gnn_layers_types=['self', 'cross'], "
         "num_attention_heads=2, sinkhorn_iterations=10))",
         "out = self.m(pixel_values=x)\n        return out.matches, out.matching_scores, out.keypoints, out.mask",
         "1, 2, 3, 64, 64", _DYNAMIC_B_HW5),
    Spec("hf_videomae", "transformers VideoMAE (small config, 4 frames of 32 px)",
         "from transformers import VideoMAEConfig, VideoMAEForVideoClassification",
         "VideoMAEForVideoClassification(VideoMAEConfig(image_size=32, patch_size=8, num_frames=4, tubelet_size=2, "
         "hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, num_labels=5))",
         "return self.m(pixel_values=x).logits", "1, 4, 3, 32, 32", DYNAMIC_B),
    # ultralytics: YOLOv8's oriented-box and pose heads, RT-DETR on ResNet-50, the YOLO11 classifier.
    Spec("yolov8n_obb", "ultralytics YOLOv8n-obb (yolov8n-obb.yaml, nc=3)", "from ultralytics.nn.tasks import OBBModel",
         'OBBModel("yolov8n-obb.yaml", nc=3, verbose=False)', _YOLO, "1, 3, 128, 128", DYNAMIC_BHW),
    Spec("yolov8n_pose", "ultralytics YOLOv8n-pose (yolov8n-pose.yaml, nc=1)",
         "from ultralytics.nn.tasks import PoseModel", 'PoseModel("yolov8n-pose.yaml", nc=1, verbose=False)', _YOLO,
         "1, 3, 128, 128", DYNAMIC_BHW),
    Spec("yolo11n_cls", "ultralytics YOLO11n-cls (yolo11n-cls.yaml, nc=3)",
         "from ultralytics.nn.tasks import ClassificationModel",
         'ClassificationModel("yolo11n-cls.yaml", nc=3, verbose=False)', "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("yolo_rtdetr_resnet50", "ultralytics RT-DETR-ResNet50 (rtdetr-resnet50.yaml, nc=3)",
         "from ultralytics.nn.tasks import RTDETRDetectionModel",
         'RTDETRDetectionModel("rtdetr-resnet50.yaml", nc=3, verbose=False)', _YOLO, "1, 3, 128, 128",
         DYNAMIC_BHW + '\nunordered = ["output"]', calibrate="self.m(xb)"),
    # torchvision: Mask R-CNN v2, two video CNNs.
    Spec("tv_retinanet_v2", "torchvision retinanet_resnet50_fpn_v2 (128 px, top 20)", "import torchvision",
         f"torchvision.models.detection.retinanet_resnet50_fpn_v2(weights=None, weights_backbone=None, {_TV_ALL})",
         _TV_ROWS, "1, 3, 128, 128", 'unordered = ["output"]', calibrate="self.m(list(xb))"),
    Spec("tv_mc3_18", "torchvision video mc3_18 (4 frames, 64 px)", "import torchvision",
         "torchvision.models.video.mc3_18(weights=None, num_classes=10)", "return self.m(x)", "1, 3, 4, 64, 64",
         _DYNAMIC_B_HW5),
    Spec("tv_r2plus1d_18", "torchvision video r2plus1d_18 (4 frames, 64 px)", "import torchvision",
         "torchvision.models.video.r2plus1d_18(weights=None, num_classes=10)", "return self.m(x)", "1, 3, 4, 64, 64",
         _DYNAMIC_B_HW5),
    # kornia: XFeat keypoints, LightGlue on DISK features.
    Spec("kornia_xfeat", "kornia XFeat (random weights, top 32 keypoints)", "import kornia",
         "kornia.feature.XFeat(top_k=32, detection_threshold=0.0)",
         'f = self.m.detectAndCompute(x)[0]\n        return f["keypoints"], f["scores"], f["descriptors"]',
         _SMALL, _DYNAMIC_HW),
    Spec("kornia_disk_lightglue", "kornia LightGlue on DISK (random weights, 32 keypoints, 2 layers, an image pair)",
         "import kornia\nfrom kornia.feature import DISK, LightGlue",
         "torch.nn.ModuleDict(dict(disk=DISK(), glue=LightGlue(None, input_dim=128, descriptor_dim=32, n_layers=2, "
         "num_heads=2)))",
         "f0, f1 = (self.m['disk'](x[:, i], n=32, pad_if_not_divisible=True)[0] for i in (0, 1))\n        "
         "out = self.m['glue']({'image0': {'keypoints': f0.keypoints[None], 'descriptors': f0.descriptors[None], "
         "'image': x[:, 0]}, 'image1': {'keypoints': f1.keypoints[None], 'descriptors': f1.descriptors[None], "
         "'image': x[:, 1]}})\n        return out['matches0'], out['matching_scores0']",
         "1, 2, 3, 64, 64", _DYNAMIC_HW5),
    # monai: 3-D segmentation with a VAE branch, registration, a searched topology.
    Spec("monai_segresnetvae", "monai SegResNetVAE (3-D, 32 voxels a side, 8 filters)",
         "from monai.networks.nets import SegResNetVAE",
         "SegResNetVAE(input_image_size=(32, 32, 32), spatial_dims=3, init_filters=8, in_channels=1, out_channels=2)",
         "seg, _ = self.m(x)\n        return seg", "1, 1, 32, 32, 32", DYNAMIC_B),
    Spec("monai_localnet", "monai LocalNet (3-D registration of a volume pair, 8 channels)",
         "from monai.networks.nets import LocalNet",
         "LocalNet(spatial_dims=3, in_channels=2, num_channel_initial=8, extract_levels=(0, 1, 2, 3), out_channels=3)",
         "return self.m(x)", "1, 2, 32, 32, 32", _DYNAMIC_VOLUME),
    Spec("monai_dints", "monai DiNTS (3-D, full topology, 3 blocks, channels x0.25)",
         "from monai.networks.nets import DiNTS, TopologyInstance",
         "DiNTS(dints_space=TopologyInstance(channel_mul=0.25, num_blocks=3, num_depths=3, spatial_dims=3), "
         "in_channels=1, num_classes=2)", "return self.m(x)", "1, 1, 32, 32, 32", _DYNAMIC_VOLUME),
    # segmentation_models_pytorch: FPN on the Mix Transformer.
    Spec("smp_fpn_mit_b0", "segmentation_models_pytorch FPN (mit_b0)", "import segmentation_models_pytorch as smp",
         'smp.FPN("mit_b0", encoder_weights=None, classes=2)', "return self.m(x)", _SMALL, DYNAMIC_BHW),
]

if __name__ == "__main__":
    main(MODELS7, "real_zoo7")
