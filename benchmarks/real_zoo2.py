"""A second real-model zoo, none of whose models is in real_zoo.py: other families and libraries.

    python benchmarks/real_zoo2.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

The machinery is real_zoo.py's (imported, not copied): pinned wheels fetched with ``pip download
--no-deps`` and unpacked as the user's checkout, one generated wrapper per model, the torchvision
op stand-in, BatchNorm calibration for detectors whose random weights tie every score, unordered
comparison of top-k rows, the per-model table. Besides real_zoo.py's libraries (other models of
torchvision, timm, ultralytics and transformers) it unpacks segmentation_models_pytorch, kornia,
monai and segment_anything; kornia imports the compiled ``kornia_rs`` (no torch in it), installed
into the venv with ``pip install --no-deps`` (the ``bench`` extra lists it).

Each model is small (narrow configs, 32-128 pixel inputs, random weights, nothing downloaded) and
declares the dynamic axes a deploying user would: batch, height and width where the model takes
any size, batch alone where its size is part of the model (position embeddings, window sizes).
One ``migrate --config zoo.toml --format json --no-cache`` command (``--jobs`` as given; with
``--jobs 1`` the peak memory is attributed per model). The table shows before (what ``migrate``
found in the original) and after per model, and the counts below it: how many need work, how many
``migrate`` fixed (exit 0, exported, faithful, TensorRT-clean, equivalent, without --unsafe).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from check_throughput import machine
from real_zoo import (DYNAMIC_B, DYNAMIC_BHW, PINS, Spec, fetch_sources, make_zoo, model_seconds, render, run_zoo,
                      save)

HERE = Path(__file__).resolve().parent
#: real_zoo.py's wheels plus four more pure-Python libraries, pinned so that the table can be reproduced.
PINS2 = {**PINS, "segmentation_models_pytorch": "0.6.0", "kornia": "0.9.0", "monai": "1.6.1",
         "segment_anything": "1.0"}

_TV_SMALL = "num_classes=3, min_size=128, max_size=128"  # no resize to 800 pixels inside the model
#: Random weights score below the default thresholds: keep every candidate, so that the top 20 is not empty.
_TV_ALL = f"{_TV_SMALL}, score_thresh=0.0, detections_per_img=20"
_TV_ROWS = ('det = self.m([x[0]])[0]\n        '
            'return torch.cat([det["boxes"], det["scores"][:, None], det["labels"][:, None].to(det["boxes"].dtype)], 1)')
_RESNET = ('backbone_config=dict(model_type="resnet", layer_type="basic", depths=[1, 1, 1, 1], '
           'hidden_sizes=[16, 32, 64, 64], embedding_size=16, out_features=["stage4"])')
_RTDETR_RESNET = ('backbone_config=dict(model_type="rt_detr_resnet", layers_type="basic", depths=[1, 1, 1, 1], '
                  'hidden_sizes=[16, 32, 64, 64], embedding_size=16, out_features=["stage2", "stage3", "stage4"])')
_DETR_SIZES = ("encoder_layers=1, decoder_layers=1, encoder_attention_heads=2, decoder_attention_heads=2, "
               "encoder_ffn_dim=64, decoder_ffn_dim=64, num_queries=10, num_labels=3")
_HF_DETECT = "out = self.m(pixel_values=x)\n        return out.logits, out.pred_boxes"
_SAM = ("segment_anything.modeling.Sam(image_encoder=segment_anything.modeling.ImageEncoderViT(img_size=64, "
        "patch_size=16, embed_dim=32, depth=2, num_heads=2, out_chans=16, use_rel_pos=True, window_size=2, "
        "global_attn_indexes=(1,)), prompt_encoder=segment_anything.modeling.PromptEncoder(embed_dim=16, "
        "image_embedding_size=(4, 4), input_image_size=(64, 64), mask_in_chans=4), "
        "mask_decoder=segment_anything.modeling.MaskDecoder(transformer_dim=16, "
        "transformer=segment_anything.modeling.TwoWayTransformer(depth=1, embedding_dim=16, mlp_dim=32, num_heads=2), "
        "iou_head_hidden_dim=16))")
_SAM_FORWARD = ("emb = self.m.image_encoder(x)\n        "
                "points = (torch.tensor([[[20.0, 30.0], [40.0, 12.0]]]), torch.tensor([[1, 0]]))\n        "
                "sparse, dense = self.m.prompt_encoder(points=points, boxes=None, masks=None)\n        "
                "masks, iou = self.m.mask_decoder(image_embeddings=emb, image_pe=self.m.prompt_encoder.get_dense_pe(), "
                "sparse_prompt_embeddings=sparse, dense_prompt_embeddings=dense, multimask_output=True)\n        "
                "return masks, iou")

MODELS2 = [
    # torchvision: one-stage and two-stage detectors, masks, optical flow, segmentation, Swin.
    Spec("tv_retinanet", "torchvision retinanet_resnet50_fpn (128 px, top 20)", "import torchvision",
         "torchvision.models.detection.retinanet_resnet50_fpn(weights=None, weights_backbone=None, "
         f"{_TV_ALL})", _TV_ROWS, "1, 3, 128, 128", 'unordered = ["output"]', calibrate="self.m(list(xb))"),
    Spec("tv_fcos", "torchvision fcos_resnet50_fpn (128 px, top 20)", "import torchvision",
         f"torchvision.models.detection.fcos_resnet50_fpn(weights=None, weights_backbone=None, {_TV_ALL})", _TV_ROWS,
         "1, 3, 128, 128", 'unordered = ["output"]', calibrate="self.m(list(xb))"),
    Spec("tv_maskrcnn", "torchvision maskrcnn_resnet50_fpn (128 px)", "import torchvision",
         f"torchvision.models.detection.maskrcnn_resnet50_fpn(weights=None, weights_backbone=None, {_TV_SMALL}, "
         "rpn_post_nms_top_n_test=100, box_detections_per_img=10)",
         'det = self.m([x[0]])[0]\n        return det["boxes"], det["scores"], det["labels"], det["masks"]',
         "1, 3, 128, 128", calibrate="self.m(list(xb))"),
    Spec("tv_raft_small", "torchvision raft_small (2 flow updates)", "import torchvision",
         "torchvision.models.optical_flow.raft_small(weights=None)",
         "return self.m(x[:, :3], x[:, 3:], num_flow_updates=2)[-1]", "1, 6, 128, 128", DYNAMIC_BHW),
    Spec("tv_deeplabv3", "torchvision deeplabv3_mobilenet_v3_large", "import torchvision",
         "torchvision.models.segmentation.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None, "
         "num_classes=3, aux_loss=False)", 'return self.m(x)["out"]', "1, 3, 64, 64", DYNAMIC_BHW),
    Spec("tv_swin_t", "torchvision swin_t", "import torchvision", "torchvision.models.swin_t(weights=None, num_classes=10)",
         "return self.m(x)", "1, 3, 64, 64", DYNAMIC_BHW),
    # timm: other families than EfficientNet and ViT.
    Spec("timm_convnext_atto", "timm convnext_atto", "import timm",
         'timm.create_model("convnext_atto", pretrained=False, num_classes=10)', "return self.m(x)",
         "1, 3, 64, 64", DYNAMIC_BHW),
    Spec("timm_levit_128s", "timm levit_128s (img_size 64)", "import timm",
         'timm.create_model("levit_128s", pretrained=False, img_size=64, num_classes=10)', "return self.m(x)",
         "1, 3, 64, 64", DYNAMIC_B),
    Spec("timm_mobilevitv2", "timm mobilevitv2_050", "import timm",
         'timm.create_model("mobilevitv2_050", pretrained=False, num_classes=10)', "return self.m(x)",
         "1, 3, 64, 64", DYNAMIC_BHW),
    # ultralytics: pose, oriented boxes, YOLOv10's end-to-end head, YOLO12's area attention.
    Spec("yolo11n_pose", "ultralytics YOLO11n-pose (yolo11n-pose.yaml, nc=1)", "from ultralytics.nn.tasks import PoseModel",
         'PoseModel("yolo11n-pose.yaml", nc=1, verbose=False)', "y, _ = self.m(x)\n        return y",
         "1, 3, 128, 128", DYNAMIC_BHW),
    Spec("yolo11n_obb", "ultralytics YOLO11n-obb (yolo11n-obb.yaml, nc=3)", "from ultralytics.nn.tasks import OBBModel",
         'OBBModel("yolo11n-obb.yaml", nc=3, verbose=False)', "y, _ = self.m(x)\n        return y",
         "1, 3, 128, 128", DYNAMIC_BHW),
    Spec("yolov10n", "ultralytics YOLOv10n (yolov10n.yaml, nc=3, end-to-end top 20)",
         "from ultralytics.nn.tasks import DetectionModel", 'DetectionModel("yolov10n.yaml", nc=3, verbose=False)',
         "y, _ = self.m(x)\n        return y", "1, 3, 128, 128", DYNAMIC_BHW + '\nunordered = ["output"]',
         init="self.m.end2end = True\n        self.m.model[-1].max_det = 20", calibrate="self.m(xb)"),
    Spec("yolo12n", "ultralytics YOLO12n (yolo12n.yaml, nc=3)", "from ultralytics.nn.tasks import DetectionModel",
         'DetectionModel("yolo12n.yaml", nc=3, verbose=False)', "y, _ = self.m(x)\n        return y",
         "1, 3, 128, 128", DYNAMIC_BHW),
    # transformers: depth, segmentation, keypoints, pose, DETR variants.
    Spec("hf_dpt", "transformers DPT depth (small config)", "from transformers import DPTConfig, DPTForDepthEstimation",
         "DPTForDepthEstimation(DPTConfig(hidden_size=32, num_hidden_layers=4, num_attention_heads=2, "
         "intermediate_size=64, image_size=64, patch_size=16, backbone_out_indices=[0, 1, 2, 3], "
         "neck_hidden_sizes=[16, 32, 64, 64], fusion_hidden_size=32))",
         "return self.m(pixel_values=x).predicted_depth", "1, 3, 64, 64", DYNAMIC_BHW),
    Spec("hf_glpn", "transformers GLPN depth (small config)", "from transformers import GLPNConfig, GLPNForDepthEstimation",
         "GLPNForDepthEstimation(GLPNConfig(depths=[1, 1, 1, 1], hidden_sizes=[16, 32, 64, 128], "
         "num_attention_heads=[1, 1, 2, 4], decoder_hidden_size=32))",
         "return self.m(pixel_values=x).predicted_depth", "1, 3, 64, 64", DYNAMIC_BHW),
    Spec("hf_depth_anything", "transformers Depth Anything (small DINOv2 config)",
         "from transformers import DepthAnythingConfig, DepthAnythingForDepthEstimation",
         'DepthAnythingForDepthEstimation(DepthAnythingConfig(backbone_config=dict(model_type="dinov2", hidden_size=32, '
         "num_hidden_layers=4, num_attention_heads=2, intermediate_size=64, image_size=70, patch_size=14, "
         'out_features=["stage1", "stage2", "stage3", "stage4"], reshape_hidden_states=False), '
         "reassemble_hidden_size=32, neck_hidden_sizes=[16, 32, 64, 64], fusion_hidden_size=32, head_hidden_size=16))",
         "return self.m(pixel_values=x).predicted_depth", "1, 3, 70, 70", DYNAMIC_BHW),
    Spec("hf_segformer", "transformers SegFormer (small config)",
         "from transformers import SegformerConfig, SegformerForSemanticSegmentation",
         "SegformerForSemanticSegmentation(SegformerConfig(depths=[1, 1, 1, 1], hidden_sizes=[16, 32, 64, 128], "
         "num_attention_heads=[1, 1, 2, 4], decoder_hidden_size=32, num_labels=3))",
         "return self.m(pixel_values=x).logits", "1, 3, 64, 64", DYNAMIC_BHW),
    Spec("hf_upernet", "transformers UperNet + ConvNeXt (small config)",
         "from transformers import UperNetConfig, UperNetForSemanticSegmentation",
         'UperNetForSemanticSegmentation(UperNetConfig(backbone_config=dict(model_type="convnext", depths=[1, 1, 1, 1], '
         'hidden_sizes=[16, 32, 64, 128], out_features=["stage1", "stage2", "stage3", "stage4"]), hidden_size=32, '
         "use_auxiliary_head=False, num_labels=3))", "return self.m(pixel_values=x).logits", "1, 3, 64, 64",
         DYNAMIC_BHW),
    Spec("hf_conditional_detr", "transformers Conditional DETR (small config)",
         "from transformers import ConditionalDetrConfig, ConditionalDetrForObjectDetection",
         "ConditionalDetrForObjectDetection(ConditionalDetrConfig(use_timm_backbone=False, use_pretrained_backbone=False, "
         f"{_RESNET}, d_model=32, {_DETR_SIZES}))", _HF_DETECT, "1, 3, 64, 64", DYNAMIC_BHW),
    Spec("hf_dab_detr", "transformers DAB-DETR (small config)", "from transformers import DabDetrConfig, DabDetrForObjectDetection",
         f"DabDetrForObjectDetection(DabDetrConfig(use_timm_backbone=False, use_pretrained_backbone=False, {_RESNET}, "
         f"hidden_size=32, {_DETR_SIZES}))", _HF_DETECT, "1, 3, 64, 64", DYNAMIC_BHW),
    Spec("hf_rtdetr_v2", "transformers RT-DETRv2 (small config)",
         "from transformers import RTDetrV2Config, RTDetrV2ForObjectDetection",
         "RTDetrV2ForObjectDetection(RTDetrV2Config(num_queries=30, d_model=64, encoder_hidden_dim=64, decoder_layers=2, "
         "encoder_layers=1, encoder_ffn_dim=128, decoder_ffn_dim=128, num_labels=4, encoder_in_channels=[32, 64, 64], "
         f"decoder_in_channels=[64, 64, 64], {_RTDETR_RESNET}, use_pretrained_backbone=False))",
         _HF_DETECT, "1, 3, 128, 128", calibrate="self.m(pixel_values=xb)"),
    Spec("hf_vitpose", "transformers ViTPose (small config, 64x48)", "from transformers import VitPoseConfig, VitPoseForPoseEstimation",
         'VitPoseForPoseEstimation(VitPoseConfig(backbone_config=dict(model_type="vitpose_backbone", hidden_size=32, '
         "num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, image_size=[64, 48], patch_size=[16, 16], "
         'out_indices=[2]), num_labels=5))', "return self.m(pixel_values=x).heatmaps", "1, 3, 64, 48", DYNAMIC_B),
    Spec("hf_superpoint", "transformers SuperPoint (small config, top 20 keypoints)",
         "from transformers import SuperPointConfig, SuperPointForKeypointDetection",
         "SuperPointForKeypointDetection(SuperPointConfig(encoder_hidden_sizes=[8, 8, 16, 16], decoder_hidden_size=32, "
         "descriptor_decoder_dim=32, max_keypoints=20))",
         "out = self.m(pixel_values=x)\n        return out.keypoints, out.scores, out.descriptors, out.mask",
         "1, 3, 64, 64", DYNAMIC_BHW),
    # segmentation_models_pytorch
    Spec("smp_unet", "segmentation_models_pytorch Unet (resnet18)", "import segmentation_models_pytorch as smp",
         'smp.Unet("resnet18", encoder_weights=None, classes=2)', "return self.m(x)", "1, 3, 64, 64", DYNAMIC_BHW),
    Spec("smp_deeplabv3plus", "segmentation_models_pytorch DeepLabV3Plus (mobilenet_v2)",
         "import segmentation_models_pytorch as smp",
         'smp.DeepLabV3Plus("mobilenet_v2", encoder_weights=None, classes=2)', "return self.m(x)", "1, 3, 64, 64",
         DYNAMIC_BHW),
    # kornia: learned descriptor and detector, a hand-built scale-space detector.
    Spec("kornia_hardnet", "kornia HardNet descriptor (32x32 patches)", "import kornia",
         "kornia.feature.HardNet(pretrained=False)", "return self.m(x)", "2, 1, 32, 32", DYNAMIC_B),
    Spec("kornia_keynet", "kornia KeyNet response", "import kornia", "kornia.feature.KeyNet(pretrained=False)",
         "return self.m(x)", "1, 1, 64, 64", DYNAMIC_BHW),
    Spec("kornia_scalespace", "kornia ScaleSpaceDetector (Hessian blobs, 32 features)", "import kornia",
         "kornia.feature.ScaleSpaceDetector(num_features=32)", "return self.m(x)", "1, 1, 64, 64", DYNAMIC_B),
    # monai: medical segmentation networks, 2-D.
    Spec("monai_unet", "monai UNet (2-D, 3 levels)", "from monai.networks.nets import UNet",
         "UNet(spatial_dims=2, in_channels=3, out_channels=2, channels=(8, 16, 32), strides=(2, 2), num_res_units=1)",
         "return self.m(x)", "1, 3, 64, 64", DYNAMIC_BHW),
    Spec("monai_segresnet", "monai SegResNet (2-D, 8 filters)", "from monai.networks.nets import SegResNet",
         "SegResNet(spatial_dims=2, init_filters=8, in_channels=3, out_channels=2, blocks_down=(1, 2, 2), "
         "blocks_up=(1, 1))", "return self.m(x)", "1, 3, 64, 64", DYNAMIC_BHW),
    Spec("monai_swinunetr", "monai SwinUNETR (2-D, feature size 12)", "from monai.networks.nets import SwinUNETR",
         "SwinUNETR(in_channels=3, out_channels=2, feature_size=12, spatial_dims=2, depths=(1, 1, 1, 1), "
         "num_heads=(1, 1, 1, 1))", "return self.m(x)", "1, 3, 64, 64", DYNAMIC_BHW),
    # segment_anything: SAM's image encoder, prompt encoder and mask decoder, tiny config, two point prompts.
    # Fixed shape, as SAM is deployed: one image per prompt set (the decoder repeats the image embedding
    # per prompt), at the encoder's own size (its position embedding is not resized).
    Spec("sam_tiny", "segment_anything Sam (tiny config, 64 px, two points)", "import segment_anything", _SAM,
         _SAM_FORWARD, "1, 3, 64, 64"),
]


def ready(model: dict[str, Any]) -> bool:
    """Exported, faithful and TensorRT-clean: what a side of the report must be for the model to deploy."""
    return bool(model.get("exported") and model.get("faithful") and not model.get("trt_errors_by_op"))


def counts(report: dict[str, Any]) -> dict[str, Any]:
    """How many models needed work, how many migrate fixed, which it did not.

    A model needs work when ``migrate`` found something in the original: it was not exported,
    faithful and TensorRT-clean, or a fix was kept (a value the second trace showed baked, such
    as YOLO's anchor cache, leaves the first side clean), or it did not end with exit 0.
    Fixed: exit 0, exported, faithful, TensorRT-clean and equivalent after (no --unsafe is passed).
    """
    need, fixed, clean, rest = [], [], [], []
    for model in report["models"]:
        after = model.get("after") or {}
        done = model.get("exit_code") == 0 and ready(after) and bool(model.get("equivalent"))
        if done and ready(model.get("before") or {}) and not model.get("applied"):
            clean.append(model["name"])
            continue
        need.append(model["name"])
        (fixed if done else rest).append(model["name"])
    return {"models": len(report["models"]), "clean_before": clean, "need_work": need, "fixed": fixed, "not_fixed": rest}


def render_counts(data: dict[str, Any]) -> str:
    c = counts(data["report"])
    return (f"{c['models']} models: {len(c['clean_before'])} clean before; {len(c['need_work'])} need work, "
            f"of which migrate fixed {len(c['fixed'])} ({', '.join(c['fixed']) or 'none'}); not fixed: "
            f"{', '.join(c['not_fixed']) or 'none'}. Load average {data['load'][0]:.1f} before, {data['load'][1]:.1f} after.\n")


def merged(parts: list[dict[str, Any]], models: list[Spec] | None = None) -> dict[str, Any]:
    """One table's data from runs of parts of the zoo (each its own command), in the zoo's order.

    A model in more than one part keeps its last run (a row re-run alone after a change).
    """
    data = dict(parts[0])
    order = {spec.name: i for i, spec in enumerate(MODELS2 if models is None else models)}
    models = {}
    for part in parts:
        # Each part ran in its own temporary project: its paths are made relative to it here.
        root = part.get("zoo_root", "").rstrip("/")
        for model in part["report"]["models"]:
            model = json.loads(json.dumps(model).replace(root + "/", "")) if root else model
            models[model["name"]] = model
    data["zoo_root"] = ""
    data["report"] = {**parts[0]["report"],
                      "models": sorted(models.values(), key=lambda m: order.get(m["name"], len(order)))}
    for key in ("seconds", "peak_mib"):
        data[key] = {k: v for part in parts for k, v in part[key].items()}
    data["command"] = "; ".join(part["command"] for part in parts)
    data["load"] = [min(p["load"][0] for p in parts), max(p["load"][1] for p in parts)]
    return data


def main(models: list[Spec] = MODELS2, name: str = "real_zoo2", pins: dict[str, str] = PINS2) -> None:
    """The command line of a zoo script: run its models (or some) through migrate, or render saved runs.

    ``pins`` are the wheels unpacked as the user's checkout (a later zoo may add a library).
    """
    parser = argparse.ArgumentParser(description=(sys.modules["__main__"].__doc__ or __doc__).splitlines()[0])
    parser.add_argument("--work", type=Path, default=HERE / f".{name}", help="wheels and unpacked sources (cached)")
    parser.add_argument("--output", type=Path, default=None, help=f"the Markdown file (default WORK/{name}.md)")
    parser.add_argument("--jobs", type=int, default=1, help="migrate's --jobs (1: peak memory per model)")
    parser.add_argument("--models", default="", help="comma-separated model names (default: all)")
    parser.add_argument("--render", type=Path, nargs="+", default=None,
                        help="only render the tables of saved JSON files (runs of parts of the zoo, merged)")
    args = parser.parse_args()
    output = args.output or args.work / f"{name}.md"
    if args.render:
        data = merged([json.loads(path.read_text()) for path in args.render], models)
        print(render(data) + "\n" + render_counts(data), end="")
        return
    import onnxruntime
    import torch

    wanted = set(filter(None, args.models.split(",")))
    chosen = [spec for spec in models if not wanted or spec.name in wanted]
    src = fetch_sources(args.work, pins)
    command = f"python benchmarks/{name}.py --jobs {args.jobs}" + (f" --models {args.models}" if wanted else "")
    data: dict[str, Any] = {"machine": machine(), "pins": pins, "command": command,
                            "versions": {"torch": torch.__version__, "onnxruntime": onnxruntime.__version__}}
    with tempfile.TemporaryDirectory(prefix=f"trtcodemod-{name.replace('_', '-')}-") as temp:
        config = make_zoo(Path(temp), src, chosen)
        data["zoo_root"] = str(config.parent)
        load_before = os.getloadavg()[0]
        run = run_zoo(config, [spec.name for spec in chosen], "--no-cache", "--jobs", str(args.jobs),
                      cache=Path(temp) / "history")
        print(f"--jobs {args.jobs}: {run.seconds:.0f} s", file=sys.stderr, flush=True)
        seconds = model_seconds(run) if args.jobs == 1 else {}
        data.update(report=run.report, seconds=seconds, peak_mib=run.peak_mib if args.jobs == 1 else {},
                    total_seconds=run.seconds, load=[load_before, os.getloadavg()[0]])
    save(output, data, render(data) + "\n" + render_counts(data))


if __name__ == "__main__":
    main()
