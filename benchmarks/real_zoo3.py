"""A third real-model zoo, held out: models nobody here has run migrate on before this table.

    python benchmarks/real_zoo3.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

The second zoo (real_zoo2.py) was run, read and worked on for several rounds, so its figure is
no longer one of models nobody tuned for. This zoo is the check: the same libraries and pins (the
second zoo's unpacked sources serve both: pass its ``--work``), other models, chosen for their
families before any was run (hierarchical and efficient vision transformers, segmentation heads
with pyramid pooling, medical U-Nets, a YOLO segmenter and ultralytics' RT-DETR), each small and
with the dynamic axes a deploying user declares (batch alone where the size is part of the model).
Machinery, table and counts are real_zoo2.py's.
"""

from __future__ import annotations

from real_zoo import DYNAMIC_B, DYNAMIC_BHW, Spec
from real_zoo2 import main

_SMALL = "1, 3, 64, 64"

MODELS3 = [
    # timm: hierarchical and efficient transformers and their relatives.
    Spec("timm_swin_tiny", "timm swin_tiny_patch4_window7_224 (img_size 64, window 4)", "import timm",
         'timm.create_model("swin_tiny_patch4_window7_224", pretrained=False, img_size=64, window_size=4, '
         "num_classes=10)", "return self.m(x)", _SMALL, DYNAMIC_B),
    Spec("timm_pvt_v2_b0", "timm pvt_v2_b0", "import timm", 'timm.create_model("pvt_v2_b0", pretrained=False, num_classes=10)',
         "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("timm_efficientvit_b0", "timm efficientvit_b0 (MIT, linear attention)", "import timm",
         'timm.create_model("efficientvit_b0", pretrained=False, num_classes=10)', "return self.m(x)", _SMALL,
         DYNAMIC_BHW),
    Spec("timm_fastvit_t8", "timm fastvit_t8", "import timm", 'timm.create_model("fastvit_t8", pretrained=False, num_classes=10)',
         "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("timm_poolformerv2_s12", "timm poolformerv2_s12", "import timm",
         'timm.create_model("poolformerv2_s12", pretrained=False, num_classes=10)', "return self.m(x)", _SMALL,
         DYNAMIC_BHW),
    Spec("timm_coatnet_nano", "timm coatnet_nano_rw_224 (img_size 64)", "import timm",
         'timm.create_model("coatnet_nano_rw_224", pretrained=False, img_size=64, num_classes=10)', "return self.m(x)",
         _SMALL, DYNAMIC_B),
    # transformers: a DINOv2 backbone, Swin, MobileViT and BEiT segmenters.
    Spec("hf_dinov2", "transformers DINOv2 (small config)", "from transformers import Dinov2Config, Dinov2Model",
         "Dinov2Model(Dinov2Config(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, "
         "image_size=56, patch_size=14))", "return self.m(pixel_values=x).last_hidden_state", "1, 3, 56, 56",
         DYNAMIC_BHW),
    Spec("hf_swin", "transformers Swin (small config, window 4)", "from transformers import SwinConfig, SwinModel",
         "SwinModel(SwinConfig(image_size=64, patch_size=4, embed_dim=16, depths=[1, 1], num_heads=[1, 2], "
         "window_size=4))", "return self.m(pixel_values=x).last_hidden_state", _SMALL, DYNAMIC_BHW),
    Spec("hf_mobilevit_seg", "transformers MobileViT segmentation (small config)",
         "from transformers import MobileViTConfig, MobileViTForSemanticSegmentation",
         "MobileViTForSemanticSegmentation(MobileViTConfig(image_size=64, hidden_sizes=[16, 24, 32], "
         "neck_hidden_sizes=[8, 8, 16, 16, 24, 32, 64], num_labels=3))", "return self.m(pixel_values=x).logits",
         _SMALL, DYNAMIC_BHW),
    Spec("hf_beit_seg", "transformers BEiT segmentation (small config, relative position bias)",
         "from transformers import BeitConfig, BeitForSemanticSegmentation",
         "BeitForSemanticSegmentation(BeitConfig(image_size=64, patch_size=16, hidden_size=32, num_hidden_layers=4, "
         "num_attention_heads=2, intermediate_size=64, use_relative_position_bias=True, out_indices=[0, 1, 2, 3], "
         "num_labels=3))", "return self.m(pixel_values=x).logits", _SMALL, DYNAMIC_B),
    # segmentation_models_pytorch: pyramid pooling heads and FPN.
    Spec("smp_pspnet", "segmentation_models_pytorch PSPNet (resnet18)", "import segmentation_models_pytorch as smp",
         'smp.PSPNet("resnet18", encoder_weights=None, classes=2)', "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("smp_upernet", "segmentation_models_pytorch UPerNet (resnet18)", "import segmentation_models_pytorch as smp",
         'smp.UPerNet("resnet18", encoder_weights=None, classes=2)', "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("smp_fpn", "segmentation_models_pytorch FPN (resnet18)", "import segmentation_models_pytorch as smp",
         'smp.FPN("resnet18", encoder_weights=None, classes=2)', "return self.m(x)", _SMALL, DYNAMIC_BHW),
    # monai: other U-Nets, 2-D.
    Spec("monai_dynunet", "monai DynUNet (2-D, 3 levels)", "from monai.networks.nets import DynUNet",
         "DynUNet(spatial_dims=2, in_channels=3, out_channels=2, kernel_size=[3, 3, 3], strides=[1, 2, 2], "
         "upsample_kernel_size=[2, 2])", "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("monai_attention_unet", "monai AttentionUnet (2-D)", "from monai.networks.nets import AttentionUnet",
         "AttentionUnet(spatial_dims=2, in_channels=3, out_channels=2, channels=(8, 16, 32), strides=(2, 2))",
         "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("monai_unetpp", "monai BasicUNetPlusPlus (2-D)", "from monai.networks.nets import BasicUNetPlusPlus",
         "BasicUNetPlusPlus(spatial_dims=2, in_channels=3, out_channels=2, features=(8, 8, 16, 32, 64, 8))",
         "return self.m(x)[0]", _SMALL, DYNAMIC_BHW),
    # ultralytics: a segmenter, a classifier and RT-DETR.
    Spec("yolov8n_seg", "ultralytics YOLOv8n-seg (yolov8n-seg.yaml, nc=3)",
         "from ultralytics.nn.tasks import SegmentationModel", 'SegmentationModel("yolov8n-seg.yaml", nc=3, verbose=False)',
         "(y, proto), _ = self.m(x)\n        return y, proto", "1, 3, 128, 128", DYNAMIC_BHW),
    Spec("yolov8n_cls", "ultralytics YOLOv8n-cls (yolov8n-cls.yaml, nc=3)",
         "from ultralytics.nn.tasks import ClassificationModel", 'ClassificationModel("yolov8n-cls.yaml", nc=3, verbose=False)',
         "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("yolo_rtdetr_l", "ultralytics RT-DETR-l (rtdetr-l.yaml, nc=3)",
         "from ultralytics.nn.tasks import RTDETRDetectionModel",
         'RTDETRDetectionModel("rtdetr-l.yaml", nc=3, verbose=False)', "y, _ = self.m(x)\n        return y",
         "1, 3, 128, 128", DYNAMIC_BHW + '\nunordered = ["output"]', calibrate="self.m(xb)"),
]

if __name__ == "__main__":
    main(MODELS3, "real_zoo3")
