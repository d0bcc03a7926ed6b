"""An eighth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo8.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the seventh zoo's first contact, so what it gives after them is no longer a figure
for models nobody tuned for. This zoo is the next check: the second to seventh zoos' libraries and pins
plus one more, lucidrains' vit-pytorch (``PINS8``: an unpacked wheel like the others, never
pip-installed; it imports only torch and einops, which the ``bench`` extra lists), 24 other models,
chosen by family before any was run, leaning to kinds that often needed work and that the earlier zoos
used little. Detectors and their post-processing: torchvision's Faster R-CNN v2 (ResNet-50 FPN v2, top
20), effdet's cspresdext50pan (timm's CSPResNeXt-50 under a PAN neck; its predict bench: anchors,
decoding, NMS, top 20), ultralytics' YOLOv8n-ghost-p2 (Ghost convolutions, a stride-4 head), YOLOv5n-p6
(a fourth, stride-64 scale) and YOLOE-11n (class scores from prompt embeddings: three classes set once,
as an offline deployment does, from seeded random embeddings in place of CLIP's text). Dense heads:
DETR's panoptic mask head (``DetrForSegmentation``: attention maps and an FPN over the ResNet's stages),
torchvision's FCN on a dilated ResNet-50, YOLO26n-sem (ultralytics' semantic head). Lines and dense
descriptors: kornia's SOLD2 line detector (junctions, line heatmap, segments sampled and scored between
junction pairs) and dense SIFT. Video: ViViT (tubelets). Medical 3-D: monai's GlobalNet with the Warp
block (an affine field, then grid sampling of the moving volume), ViTAutoEnc (a 3-D ViT with a
transposed-convolution decoder), AHNet (anisotropic 3-D blocks, pyramid volumetric pooling). Relative
positions, odd token mixing, resizing: timm's VOLO (outlook attention: unfold and fold), MViTv2 (pooled
attention, decomposed relative positions), EfficientViT-M0 (MSRA's cascaded group attention with
attention biases), HaloNet (halo attention, relative position logits), BoTNet (2-D relative positions at
a fixed size), MobileNetV4-hybrid (multi-query attention with downsampled keys and values);
transformers' PVT v1 (spatial-reduction attention, position embeddings per stage) and DINOv3 (rotary
positions, register tokens); vit-pytorch's CrossFormer (cross-scale embedding, dynamic position bias)
and RegionViT (regional and local tokens). Each is small and has the dynamic axes a deploying user
declares: batch, height and width (depth too for volumes); batch alone where the size is part of the
model (position embeddings, attention biases, a volume size given to the constructor, HaloNet's
256-pixel multiples); height and width alone where the model takes one image per call (SOLD2); none for
torchvision's Faster R-CNN (one image, resized inside the model) and effdet's predict bench, as in the
earlier zoos. Machinery, table and counts are real_zoo2.py's. The wrappers were checked only for
building and running eagerly (deterministic, each forward under 1.6 s here), at two sizes (the two
without dynamic axes at their one), before the first migrate run; changed then: kornia's MKDDescriptor
was swapped for DenseSIFTDescriptor (its constructor downloads whitening weights), YOLOE was given its
classes (without them its class embeddings are zeros), SOLD2 was given 32 junctions and 16 samples a
line (3 s a forward at 64 px and 14 s at 128 px with the defaults), HaloNet runs at 256 px (its smallest
size), DETR's mask head has 8 attention heads (its GroupNorm needs d_model plus heads divisible by 8),
PVT v1 declares batch alone (its position-embedding resize fails eagerly at 128 px), ViTAutoEnc has
patch 4 (it wants a square patch size), AHNet two pyramid blocks (four need 128 voxels a side), and
CrossFormer dims from 32 (16 leaves a cross-scale branch with no channels).
"""

from __future__ import annotations

from real_zoo import DYNAMIC_B, DYNAMIC_BHW, Spec
from real_zoo2 import _TV_ROWS, PINS2, main

#: The second zoo's wheels plus lucidrains' vit-pytorch (pure Python; it imports einops, which the
#: ``bench`` extra lists).
PINS8 = {**PINS2, "vit_pytorch": "1.26.11"}

_SMALL = "1, 3, 64, 64"
_YOLO = "y, _ = self.m(x)\n        return y"
#: A volume's batch, depth, height and width.
_DYNAMIC_VOLUME = 'dynamic_axes = { x = { 0 = "batch", 2 = "depth", 3 = "height", 4 = "width" } }'
#: One image per call, any height and width.
_DYNAMIC_HW = 'dynamic_axes = { x = { 2 = "height", 3 = "width" } }'
#: A ResNet whose four stages the DETR mask head reads (its FPN takes the first three).
_RESNET4 = ('backbone_config=dict(model_type="resnet", layer_type="basic", depths=[1, 1, 1, 1], '
            'hidden_sizes=[16, 32, 64, 64], embedding_size=16, '
            'out_features=["stage1", "stage2", "stage3", "stage4"])')
_DETR_SIZES = ("encoder_layers=1, decoder_layers=2, encoder_attention_heads=2, decoder_attention_heads=2, "
               "encoder_ffn_dim=64, decoder_ffn_dim=64, num_queries=10, num_labels=3")
_TV_FASTER = ("num_classes=3, min_size=128, max_size=128, box_score_thresh=0.0, box_detections_per_img=20, "
              "rpn_pre_nms_top_n_test=200, rpn_post_nms_top_n_test=100")
MODELS8 = [
    # timm: outlook attention (unfold/fold), decomposed relative positions with pooled attention,
    # cascaded group attention with biases, halo attention and BoTNet's relative positions, MobileNetV4's MQA.
    Spec("timm_volo_d1", "timm volo_d1_224 (img_size 64)", "import timm",
         'timm.create_model("volo_d1_224", pretrained=False, img_size=64, num_classes=10)', "return self.m(x)",
         _SMALL, DYNAMIC_B),
    Spec("timm_mvitv2_tiny", "timm mvitv2_tiny (img_size 64)", "import timm",
         'timm.create_model("mvitv2_tiny", pretrained=False, img_size=64, num_classes=10)', "return self.m(x)",
         _SMALL, DYNAMIC_B),
    Spec("timm_efficientvit_m0", "timm efficientvit_m0 (MSRA, img_size 64)", "import timm",
         'timm.create_model("efficientvit_m0", pretrained=False, img_size=64, num_classes=10)', "return self.m(x)",
         _SMALL, DYNAMIC_B),
    # Halo blocks of 8 at stride 32: 256 px is its smallest size, and its sizes are multiples of 256.
    Spec("timm_halonet26t", "timm halonet26t (256 px)", "import timm",
         'timm.create_model("halonet26t", pretrained=False, num_classes=10)', "return self.m(x)", "1, 3, 256, 256",
         DYNAMIC_B),
    Spec("timm_botnet26t", "timm botnet26t_256 (img_size 64)", "import timm",
         'timm.create_model("botnet26t_256", pretrained=False, img_size=64, num_classes=10)', "return self.m(x)",
         _SMALL, DYNAMIC_B),
    Spec("timm_mobilenetv4_hybrid", "timm mobilenetv4_hybrid_medium", "import timm",
         'timm.create_model("mobilenetv4_hybrid_medium", pretrained=False, num_classes=10)', "return self.m(x)",
         _SMALL, DYNAMIC_BHW),
    # transformers: DETR's panoptic mask head, PVT v1, DINOv3 (rotary positions, registers), ViViT.
    Spec("hf_detr_panoptic", "transformers DETR with its mask head (DetrForSegmentation, small config)",
         "from transformers import DetrConfig, DetrForSegmentation",
         "DetrForSegmentation(DetrConfig(use_timm_backbone=False, use_pretrained_backbone=False, "
         f"{_RESNET4}, d_model=32, {_DETR_SIZES.replace('heads=2', 'heads=8')}))",
         "out = self.m(pixel_values=x)\n        return out.logits, out.pred_boxes, out.pred_masks", _SMALL,
         DYNAMIC_BHW),
    Spec("hf_pvt", "transformers PVT v1 (small config, 64 px)",
         "from transformers import PvtConfig, PvtForImageClassification",
         "PvtForImageClassification(PvtConfig(image_size=64, depths=[1, 1, 1, 1], hidden_sizes=[16, 32, 64, 128], "
         "num_attention_heads=[1, 1, 2, 4], num_labels=10))", "return self.m(pixel_values=x).logits", _SMALL,
         DYNAMIC_B),
    Spec("hf_dinov3_vit", "transformers DINOv3 ViT (small config, 2 registers)",
         "from transformers import DINOv3ViTConfig, DINOv3ViTModel",
         "DINOv3ViTModel(DINOv3ViTConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2, "
         "num_attention_heads=2, patch_size=16, image_size=64, num_register_tokens=2))",
         "out = self.m(pixel_values=x)\n        return out.last_hidden_state, out.pooler_output", _SMALL,
         DYNAMIC_BHW),
    Spec("hf_vivit", "transformers ViViT (small config, 4 frames of 32 px)",
         "from transformers import VivitConfig, VivitForVideoClassification",
         "VivitForVideoClassification(VivitConfig(image_size=32, num_frames=4, tubelet_size=[2, 8, 8], hidden_size=32, "
         "num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, num_labels=5))",
         "return self.m(pixel_values=x).logits", "1, 4, 3, 32, 32", DYNAMIC_B),
    # ultralytics: YOLOv8's Ghost P2 head, YOLOv5's P6 head, YOLO26's semantic head, YOLOE.
    Spec("yolov8n_ghost_p2", "ultralytics YOLOv8n-ghost-p2 (yolov8n-ghost-p2.yaml, nc=3)",
         "from ultralytics.nn.tasks import DetectionModel",
         'DetectionModel("yolov8n-ghost-p2.yaml", nc=3, verbose=False)', _YOLO, "1, 3, 128, 128", DYNAMIC_BHW),
    Spec("yolov5n_p6", "ultralytics YOLOv5n-p6 (yolov5n-p6.yaml, nc=3)",
         "from ultralytics.nn.tasks import DetectionModel",
         'DetectionModel("yolov5n-p6.yaml", nc=3, verbose=False)', _YOLO, "1, 3, 128, 128", DYNAMIC_BHW),
    Spec("yolo26n_sem", "ultralytics YOLO26n-sem (yolo26n-sem.yaml, nc=3)",
         "from ultralytics.nn.tasks import SemanticSegmentationModel",
         'SemanticSegmentationModel("yolo26n-sem.yaml", nc=3, verbose=False)', "return self.m(x)",
         "1, 3, 128, 128", DYNAMIC_BHW),
    Spec("yoloe_11n", "ultralytics YOLOE-11n (yoloe-11n.yaml, three classes set from seeded random embeddings)",
         "from ultralytics.nn.tasks import YOLOEModel", 'YOLOEModel("yoloe-11n.yaml", nc=3, verbose=False)', _YOLO,
         "1, 3, 128, 128", DYNAMIC_BHW,
         # As a deployment does offline: the class embeddings given once (here random, not CLIP's text).
         init='self.m.set_classes(["a", "b", "c"], torch.randn(1, 3, 512))'),
    # torchvision: FCN, Faster R-CNN v2.
    Spec("tv_fcn_resnet50", "torchvision fcn_resnet50", "import torchvision",
         "torchvision.models.segmentation.fcn_resnet50(weights=None, weights_backbone=None, num_classes=3, "
         "aux_loss=False)", 'return self.m(x)["out"]', _SMALL, DYNAMIC_BHW),
    Spec("tv_fasterrcnn_v2", "torchvision fasterrcnn_resnet50_fpn_v2 (128 px, top 20)", "import torchvision",
         f"torchvision.models.detection.fasterrcnn_resnet50_fpn_v2(weights=None, weights_backbone=None, {_TV_FASTER})",
         _TV_ROWS, "1, 3, 128, 128", 'unordered = ["output"]', calibrate="self.m(list(xb))"),
    # kornia: SOLD2's line detector, dense SIFT.
    Spec("kornia_sold2", "kornia SOLD2 line detector (random weights, 32 junctions, 16 samples a line, one image)",
         "import kornia\nfrom kornia.feature.sold2.structures import DetectorCfg, LineDetectorCfg",
         "kornia.feature.SOLD2_detector(pretrained=False, config=DetectorCfg(max_num_junctions=32, "
         "line_detector_cfg=LineDetectorCfg(num_samples=16)))",
         'out = self.m(x)\n        return out["line_segments"][0], out["junction_heatmap"], out["line_heatmap"]',
         "1, 1, 64, 64", _DYNAMIC_HW),
    Spec("kornia_dense_sift", "kornia DenseSIFTDescriptor (a descriptor at every pixel)", "import kornia",
         "kornia.feature.DenseSIFTDescriptor()", "return self.m(x)", "1, 1, 64, 64", DYNAMIC_BHW),
    # monai: 3-D affine registration with the warp, a 3-D ViT autoencoder, AHNet.
    Spec("monai_globalnet_warp", "monai GlobalNet + Warp (3-D affine registration of a volume pair, 32 voxels)",
         "from monai.networks.blocks import Warp\nfrom monai.networks.nets import GlobalNet",
         "torch.nn.ModuleDict(dict(net=GlobalNet(image_size=[32, 32, 32], spatial_dims=3, in_channels=2, "
         "num_channel_initial=8, depth=3), warp=Warp()))",
         'ddf = self.m["net"](x)\n        return self.m["warp"](x[:, 1:], ddf), ddf', "1, 2, 32, 32, 32", DYNAMIC_B),
    Spec("monai_vitautoenc", "monai ViTAutoEnc (3-D, 32 voxels, patch 4, hidden 48)",
         "from monai.networks.nets import ViTAutoEnc",
         "ViTAutoEnc(in_channels=1, img_size=(32, 32, 32), patch_size=(4, 4, 4), hidden_size=48, mlp_dim=96, "
         "num_layers=2, num_heads=2, spatial_dims=3)", "out, _ = self.m(x)\n        return out", "1, 1, 32, 32, 32",
         DYNAMIC_B),
    Spec("monai_ahnet", "monai AHNet (3-D, 32 voxels a side, two pyramid pooling blocks)",
         "from monai.networks.nets import AHNet",
         "AHNet(spatial_dims=3, in_channels=1, out_channels=2, layers=(1, 1, 1, 1), psp_block_num=2)",
         "return self.m(x)", "1, 1, 32, 32, 32", _DYNAMIC_VOLUME),
    # effdet: timm's CSPResNeXt-50 under a PAN neck instead of the BiFPN.
    Spec("effdet_cspresdext50pan", "effdet cspresdext50pan (image size 128, predict bench)",
         "from effdet import create_model",
         'create_model("cspresdext50pan", bench_task="predict", num_classes=3, pretrained_backbone=False, '
         "image_size=(128, 128), max_det_per_image=20)", "return self.m(x)", "1, 3, 128, 128",
         'unordered = ["output"]', calibrate="self.m(xb)"),
    # vit-pytorch: CrossFormer (cross-scale embedding, dynamic position bias), RegionViT (regional tokens).
    Spec("vitp_crossformer", "vit-pytorch CrossFormer (small dims, 64 px)",
         "from vit_pytorch.crossformer import CrossFormer",
         "CrossFormer(dim=(32, 64, 128, 256), depth=(1, 1, 1, 1), global_window_size=(4, 2, 2, 1), "
         "local_window_size=(4, 2, 2, 1), num_classes=10)", "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("vitp_regionvit", "vit-pytorch RegionViT (small dims, 64 px)", "from vit_pytorch.regionvit import RegionViT",
         "RegionViT(dim=(16, 32, 64, 128), depth=(1, 1, 1, 1), window_size=2, num_classes=10)", "return self.m(x)",
         _SMALL, DYNAMIC_BHW),
]

if __name__ == "__main__":
    main(MODELS8, "real_zoo8", PINS8)
