"""A sixteenth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo16.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the fifteenth zoo's first contact, so what it gives after them is no longer a figure for models
nobody tuned for. This zoo is the next check: the fifteenth zoo's libraries and pins and two more libraries by other
authors, whose code no earlier zoo or sweep ran (``PINS16``: unpacked wheels like the others, never pip-installed):
Roboflow's rfdetr 1.11.2 (RF-DETR: a windowed DINOv2 backbone, a projector, a deformable two-stage decoder, detection,
segmentation and keypoint heads and the post-processing its predict runs; its package imports pydantic, transformers,
scipy and pyDeprecate) and mlfoundations' open-clip-torch 3.3.0 (CLIP's image and text towers, CoCa; its package imports
ftfy, regex, timm and huggingface_hub). pyDeprecate and ftfy (with wcwidth) were not in the environment and pydantic
came only through typer: the ``bench`` extra now names them. 10 of the 24 models come from the two new libraries.
Considered before any model was chosen: the libraries zoo 15 dropped (sam2 and torchgeo with no wheel for this Python,
face-alignment's compiled imports, segmentation-models-pytorch-3d's timm pin, ptlflow's lightning, pytorchvideo and
torchreid without wheels), super-gradients and lightly (many heavy imports at package import), efficientnet-pytorch and
pytorch-tcn (one architecture each).

24 models, chosen by family before any was run, none of them (library, architecture and variant) in zoos 1 to 15 or in
the library sweeps (benchmarks/sweep_*.py), most of them of kinds that often need work for an ONNX or TensorRT
deployment. Detection, segmentation and keypoints with their post-processing, from rfdetr (each built from its config
class with random weights, 30 queries, one decoder layer and one query group; RF-DETR's ``PostProcess`` then takes the
top 20 of queries x classes, converts and scales the boxes to each image's size and gives (batch, 20, 6) rows of box,
score and class): RF-DETR Nano (128 px), RF-DETR Seg Nano (its masks resized to the image, as floats), the keypoint
preview (GroupPose keypoint queries, 17 keypoints with their scores) and the 2025 Large's layout (its config class with
the small windowed DINOv2 in place of the base one, patches of 14 in four windows, a P3 and P5 projector: deformable
attention over two levels with four points; 112 px). transformers has an LW-DETR and an RF-DETR port (zoos 5 and 6);
these are rfdetr's own code. CLIP's towers, from open-clip-torch, each a small config of its own classes: the
ModifiedResNet visual tower (three-convolution stem, average-pooled strides, attention pooling with a position
embedding), the ViT visual tower, the ViT with its custom blocks (query and key norms, learned per-head scales, layer
norms inside attention and MLP, fixed sin-cos 2-D positions, average pooling), the text tower (causal mask, the end
token found by the argmax of the ids; the input's values in [0, 1) made into 16 token ids), CLIP as a zero-shot
classifier (three fixed prompts in a buffer, normalized features of both towers times the exponentiated logit scale) and
CoCa (the image tokens pooled by an attentional pooler, a causal multimodal decoder cross-attending to them: the logits
of a fixed caption). Optical flow and dynamic padding, from transformers: Perceiver IO for optical flow (the two frames'
3x3 patches made with ``unfold`` as its users do, Fourier positions, cross attention to 16 latents and back to every
pixel; 32x32 frames) and BiT (weight-standardized convolutions, TF "SAME" padding computed from the input's size at 60
px). Windowed and frequency-domain attention, from spandrel: Uformer (a U-shaped window transformer, shifted windows
with masks, a locally-enhanced feed-forward), OmniSR x2 (window and grid self-attention, the input padded to whole
windows) and FFTformer (attention and feed-forward in the frequency domain: ``rfft2`` over 8x8 patches, products,
``irfft2``). 3-D medical, from monai: the RetinaNetDetector in 3-D (a ResNet-10 FPN RetinaNet, anchors of three shapes
at three scales, box decoding, top 50 per level, NMS, 20 detections of the first volume as (20, 8) rows; the score
threshold at 0 so that random weights give detections) and ResNet-10 3-D. Pyramid pooling and keypoints, from pytorchcv:
PSPNet on ResNetD-50b (``fixed_size=False``) and SuperPointNet (cell softmax and depth-to-space reshapes, a threshold, a
greedy NMS loop in Python over the points sorted by score, descriptors sampled with ``grid_sample``: the first image's
points, scores and descriptors, as many as it finds). From kornia: DeFMO (a blurred image and its background to 24 sharp
sub-frames with alpha) and the ``smnn`` descriptor matcher (mutual nearest neighbours with the ratio test on two sets of
64 descriptors of 32: distances and index pairs, as many as match). Then the minority, backbones from corners the
earlier zoos used little: timm's resmlp_12_224 (affine layers for norms, a linear layer across patches) and
convmixer_768_32, and torchvision's EfficientNetV2-S (fused MBConv).

Each is small and has the dynamic axes a deploying user declares: batch, height and width for the images (the RF-DETR
models at multiples of their patch size times windows, which their backbone asserts: 32 for Nano, 12 for Seg Nano, 24
for the keypoint model, 56 for the two-level model; FFTformer at multiples of 32, DeFMO of 16; OmniSR at 40x48, not
whole windows, so that its padding runs), batch, depth, height and width for monai's volumes; the number of points for
the matcher; batch alone where the size is part of the model (open_clip's position embeddings for its image size and
context length, Perceiver's output queries for its ``train_size``, Uformer's windows, which it does not pad, resmlp's
linear layer across the 16 patches). The detectors' rows are compared as sets (``unordered``), as in the earlier zoos.
Machinery, table and counts are real_zoo2.py's. The wrappers were checked only for building and running eagerly
(deterministic over three forwards, finite outputs), at two sizes (a batch of two and, where height and width are
dynamic, 16 px more, or the next allowed size: 32 more for RF-DETR Nano and FFTformer, 24 for Seg Nano and the keypoint
model, 56 for the two-level model), before the first migrate run: in the last check, with the machine's load at 4 to 4.5
on two cores, the best of three forwards at the spec's size took under 1 s for every model (monai's detector 0.96 s, BiT
0.83 s, the RF-DETR models 0.33 to 0.51 s), most under 0.1 s; single forwards took up to 5.6 s (the first forward of the
two-level RF-DETR at 112 px) and 2.6 s at the second sizes (the keypoint model, a batch of two at 120 px). The load made
the timings vary between runs by up to a hundredfold (BiT's best was 0.002 s in the run before). Changed then: nothing
was swapped; from the first list (before any run), vit-pytorch's MaxViT, ViViT and adaptive token sampling ViT and
timm's HGNetV2 and MobileOne were replaced because sweep_vit_timm.py ran them, and dynamic-network-architectures' Primus
because it does not build (zoo 13). After the first runs: the custom ViT blocks lost open_clip's scaled cosine attention
(with it the tower does not run: ``batch1 must be a 3D tensor``) for query and key norms; the text tower's length is
fixed (its position embedding is added whole); BiT's widths went to 128 (its GroupNorm has 32 groups and a bottleneck is
a quarter wide); CoCa's text tower gives its tokens (``output_tokens``, as its configs set); the two-level RF-DETR's
encoder is the small DINOv2 (with the base one a forward took up to 3.7 s at 112 px under load); the keypoint model's
post-processing is told its 17 keypoints; DeFMO runs at 32 px (3.0 to 3.9 s a forward at 64 px).
"""

from __future__ import annotations

from real_zoo import DYNAMIC_B, DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo15 import PINS15

#: The fifteenth zoo's pins and two libraries by other authors, unpacked wheels like the others (never
#: pip-installed): Roboflow's rfdetr (RF-DETR: a windowed DINOv2 backbone, a deformable two-stage decoder, detection,
#: segmentation and keypoint heads and their post-processing; it imports pydantic, transformers and pyDeprecate) and
#: mlfoundations' open-clip-torch (CLIP, CoCa and their towers; it imports ftfy, regex, timm and huggingface_hub).
PINS16 = {**PINS15, "rfdetr": "1.11.2", "open_clip_torch": "3.3.0"}

_SMALL = "1, 3, 64, 64"
_DETECT = "1, 3, 128, 128"
_VOLUME = "1, 1, 32, 32, 32"
_DYNAMIC_VOLUME = 'dynamic_axes = { x = { 0 = "batch", 2 = "depth", 3 = "height", 4 = "width" } }'
_RFDETR = ("from rfdetr.config import {config}\nfrom rfdetr.models.lwdetr import build_model_from_config\n"
           "from rfdetr.models.postprocess import PostProcess")
#: RF-DETR's common small-config arguments: random weights, CPU, few queries, one decoder layer and one query group.
_RFDETR_SMALL = ('pretrain_weights=None, device="cpu", amp=False, num_classes=3, num_queries=30, num_select=20, '
                 "group_detr=1, dec_layers=1")
_RFDETR_POST = "self.post = PostProcess(num_select=20)"
#: The post-processing as RF-DETR's predict runs it: each image's size, top-k over queries and classes, boxes scaled.
_RFDETR_DETS = ("dets = self.post(self.m(x), torch.tensor([list(x.shape[2:])] * x.shape[0]))\n        "
                "rows = [torch.cat([d['boxes'], d['scores'][:, None], d['labels'][:, None].to(d['boxes'].dtype)], 1) "
                "for d in dets]\n        ")
_OC = "import open_clip"
_OC_TEXT = "context_length=16, vocab_size=1000, width=32, heads=2, layers=1"
#: Three fixed token sequences (the class prompts of a zero-shot classifier, the captions given to CoCa).
_OC_TOKENS = 'self.register_buffer("text", torch.randint(1, 1000, (3, 16), generator=torch.Generator().manual_seed(0)))'
_SPANDREL = "spandrel.architectures"
_PCV = "pytorchcv.models"


def _rfdetr(name: str, what: str, config: str, args: str, forward: str, shape: str, axes: str,
            post: str = _RFDETR_POST) -> Spec:
    """An RF-DETR model from its config class, small and random, with RF-DETR's post-processing."""
    return Spec(f"rfdetr_{name}", f"rfdetr {what}", _RFDETR.format(config=config),
                f"build_model_from_config({config}({args}, {_RFDETR_SMALL}))", _RFDETR_DETS + forward, shape, axes,
                init=post)


MODELS16 = [
    # rfdetr: detection, segmentation and keypoints with their post-processing.
    _rfdetr("nano", "RF-DETR Nano (windowed DINOv2 backbone, deformable two-stage decoder; top 20 of queries x "
            "classes, boxes scaled to the image)", "RFDETRNanoConfig", "resolution=128, positional_encoding_size=8",
            "return torch.stack(rows)", _DETECT, DYNAMIC_BHW + '\nunordered = ["output"]'),
    _rfdetr("seg_nano", "RF-DETR Seg Nano (a mask head on the queries; masks resized to the image)",
            "RFDETRSegNanoConfig", "resolution=96, positional_encoding_size=8",
            "return torch.stack(rows), torch.stack([d['masks'] for d in dets]).to(x.dtype)", "1, 3, 96, 96",
            DYNAMIC_BHW),
    _rfdetr("keypoint", "RF-DETR keypoint preview (GroupPose keypoint queries, 17 keypoints a person)",
            "RFDETRKeypointPreviewConfig", "resolution=96, positional_encoding_size=8",
            "return torch.stack(rows), torch.stack([d['keypoints'] for d in dets])", "1, 3, 96, 96", DYNAMIC_BHW,
            post="self.post = PostProcess(num_select=20, num_keypoints_per_class=[17])"),
    _rfdetr("two_scale", "RF-DETR 2025 Large's layout on the small windowed DINOv2 (patches of 14 in four windows, "
            "a P3 and P5 projector: deformable attention over two levels, four sampling points)",
            "RFDETRLargeDeprecatedConfig",
            'resolution=112, positional_encoding_size=8, encoder="dinov2_windowed_small"', "return torch.stack(rows)",
            "1, 3, 112, 112",
            DYNAMIC_BHW + '\nunordered = ["output"]'),
    # open-clip-torch: CLIP's towers, the zero-shot classifier, CoCa.
    Spec("oc_modified_resnet", "open_clip ModifiedResNet (CLIP's RN visual tower: 3-conv stem, anti-aliased "
         "strides, attention pooling with a position embedding)", _OC,
         "open_clip.CLIP(embed_dim=32, vision_cfg=dict(layers=[1, 1, 1, 1], width=16, head_width=16, "
         f"image_size=64), text_cfg=dict({_OC_TEXT})).visual", "return self.m(x)", _SMALL, DYNAMIC_B),
    Spec("oc_vit", "open_clip VisionTransformer (CLIP's ViT visual tower: class token, pre-norm, projection)", _OC,
         "open_clip.CLIP(embed_dim=32, vision_cfg=dict(layers=2, width=32, head_width=16, patch_size=8, "
         f"image_size=64), text_cfg=dict({_OC_TEXT})).visual", "return self.m(x)", _SMALL, DYNAMIC_B),
    Spec("oc_vit_custom", "open_clip VisionTransformer with custom blocks (query and key norms, learned per-head "
         "scales, layer norms inside attention and MLP; fixed sin-cos 2-D positions, average pooling)", _OC,
         "open_clip.CLIP(embed_dim=32, vision_cfg=dict(layers=2, width=32, head_width=16, patch_size=8, "
         "image_size=64, qk_norm=True, scale_heads=True, scale_attn_inner=True, scale_fc=True, "
         f"pos_embed_type='sin_cos_2d', pool_type='avg', final_ln_after_pool=True), text_cfg=dict({_OC_TEXT}))"
         ".visual", "return self.m(x)", _SMALL, DYNAMIC_B),
    Spec("oc_text", "open_clip TextTransformer (CLIP's text tower: causal mask cut to the length, the end token "
         "found by argmax of the ids)", _OC,
         "open_clip.CLIP(embed_dim=32, vision_cfg=dict(layers=1, width=32, head_width=16, patch_size=16, "
         f"image_size=32), text_cfg=dict({_OC_TEXT}))",
         "return self.m.encode_text((x * 998).long() + 1, normalize=True)", "1, 16", DYNAMIC_B),
    Spec("oc_clip_zero_shot", "open_clip CLIP as a zero-shot classifier (three fixed prompts: both towers, "
         "normalized features, the exponentiated logit scale)", _OC,
         "open_clip.CLIP(embed_dim=32, vision_cfg=dict(layers=1, width=32, head_width=16, patch_size=8, "
         f"image_size=64), text_cfg=dict({_OC_TEXT}))",
         "image, text, scale = self.m(x, self.text)[:3]\n        return scale * image @ text.T", _SMALL, DYNAMIC_B,
         init=_OC_TOKENS),
    Spec("oc_coca", "open_clip CoCa (attentional pooler over the image tokens, a causal multimodal decoder with "
         "cross attention: caption logits for three fixed captions)", _OC,
         "open_clip.CoCa(embed_dim=32, multimodal_cfg=dict(context_length=16, vocab_size=1000, width=32, heads=2, "
         "layers=1, attn_pooler_heads=2), text_cfg=dict(context_length=16, vocab_size=1000, width=32, heads=2, "
         "layers=1, embed_cls=True, output_tokens=True), vision_cfg=dict(layers=1, width=32, head_width=16, "
         "patch_size=8, image_size=64, "
         "attentional_pool=True, attn_pooler_queries=8, attn_pooler_heads=2, output_tokens=True))",
         "out = self.m(x, self.text[:1].expand(x.shape[0], -1))\n        "
         "return out['logits'], out['image_features']", _SMALL, DYNAMIC_B, init=_OC_TOKENS),
    # transformers: optical flow, dynamic "same" padding.
    Spec("hf_perceiver_flow", "transformers PerceiverForOpticalFlow (3x3 patches of two frames, Fourier positions, "
         "cross attention to latents and back to every pixel; 32x32 frames)",
         "from transformers import PerceiverConfig, PerceiverForOpticalFlow",
         "PerceiverForOpticalFlow(PerceiverConfig(train_size=[32, 32], num_latents=16, d_latents=32, num_blocks=1, "
         "num_self_attends_per_block=1, num_self_attention_heads=1, num_cross_attention_heads=1))",
         "frames = torch.stack([torch.nn.functional.unfold(f, 3, padding=1).unflatten(2, f.shape[2:]) "
         "for f in x.split(3, 1)], 1)\n        return self.m(inputs=frames).logits", "1, 6, 32, 32", DYNAMIC_B),
    Spec("hf_bit", "transformers BiT (weight-standardized convolutions, TF 'SAME' padding computed from the input's "
         "size, pre-activation bottlenecks)", "from transformers import BitConfig, BitForImageClassification",
         "BitForImageClassification(BitConfig(embedding_size=32, hidden_sizes=[128, 128, 128, 128], "
         "depths=[1, 1, 1, 1], "
         'layer_type="preactivation", global_padding="SAME", embedding_dynamic_padding=True, num_labels=10))',
         "return self.m(pixel_values=x).logits", "1, 3, 60, 60", DYNAMIC_BHW),
    # spandrel: windowed attention, frequency-domain attention.
    Spec("spandrel_uformer", "spandrel Uformer (a U-shaped window transformer: shifted windows with masks, "
         "locally-enhanced feed-forward)", f"from {_SPANDREL}.Uformer.__arch.Uformer import Uformer",
         "Uformer(img_size=64, embed_dim=16, depths=[1, 1, 1, 1, 1, 1, 1, 1, 1], "
         "num_heads=[1, 1, 2, 2, 4, 2, 2, 1, 1], "
         "win_size=4, mlp_ratio=2.0, drop_path_rate=0.0)", "return self.m(x)", _SMALL, DYNAMIC_B),
    Spec("spandrel_omnisr", "spandrel OmniSR x2 (omni self-attention: window and grid attention, the input padded "
         "to whole windows)", f"from {_SPANDREL}.OmniSR.__arch.OmniSR import OmniSR",
         "OmniSR(num_feat=32, block_num=1, window_size=8, res_num=1, up_scale=2)", "return self.m(x)",
         "1, 3, 40, 48", DYNAMIC_BHW),
    Spec("spandrel_fftformer", "spandrel FFTformer (frequency-domain attention and feed-forward: rfft2 over 8x8 "
         "patches, products, irfft2)", f"from {_SPANDREL}.FFTformer.__arch.fftformer_arch import FFTformer",
         "FFTformer(dim=16, num_blocks=[1, 1, 1], num_refinement_blocks=1, ffn_expansion_factor=2)", "return self.m(x)",
         _SMALL, DYNAMIC_BHW),
    # monai: 3-D detection with anchors and NMS, a 3-D ResNet.
    Spec("monai_retinanet_detector_3d", "monai RetinaNetDetector 3-D (anchors, box decoding, score threshold, "
         "top-k per level, NMS; a ResNet-10 FPN network)",
         "from monai.apps.detection.networks.retinanet_detector import RetinaNetDetector\n"
         "from monai.apps.detection.networks.retinanet_network import RetinaNet, resnet_fpn_feature_extractor\n"
         "from monai.apps.detection.utils.anchor_utils import AnchorGeneratorWithAnchorShape\n"
         "from monai.networks.nets import resnet10",
         "RetinaNetDetector(RetinaNet(spatial_dims=3, num_classes=2, num_anchors=3, feature_extractor="
         "resnet_fpn_feature_extractor(resnet10(spatial_dims=3, n_input_channels=1, conv1_t_stride=2), spatial_dims=3, "
         "pretrained_backbone=False, returned_layers=[1, 2]), size_divisible=16), AnchorGeneratorWithAnchorShape("
         "feature_map_scales=(1, 2, 4), base_anchor_shapes=((6, 8, 4), (8, 6, 5), (10, 10, 6))))",
         "det = self.m(x)[0]\n        return torch.cat([det['boxes'], det['labels_scores'][:, None], "
         "det['labels'][:, None].to(x.dtype)], 1)", _VOLUME, _DYNAMIC_VOLUME + '\nunordered = ["output"]',
         init="self.m.set_box_selector_parameters(score_thresh=0.0, topk_candidates_per_level=50, nms_thresh=0.5, "
         "detections_per_img=20)", calibrate="self.m.network(xb)"),
    Spec("monai_resnet10_3d", "monai ResNet-10 3-D (medical volumes, a 7x7x7 stem)",
         "from monai.networks.nets import resnet10",
         "resnet10(spatial_dims=3, n_input_channels=1, num_classes=2)", "return self.m(x)", _VOLUME,
         _DYNAMIC_VOLUME, calibrate="self.m(xb)"),
    # pytorchcv: pyramid pooling segmentation, SuperPoint keypoints.
    Spec("pcv_pspnet", "pytorchcv PSPNet on ResNetD-50b VOC (pyramid pooling: adaptive pools at four scales "
         "upsampled back)", f"from {_PCV}.pspnet import pspnet_resnetd50b_voc",
         "pspnet_resnetd50b_voc(aux=False, fixed_size=False, in_size=(64, 64))", "return self.m(x)", _SMALL,
         DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("pcv_superpointnet", "pytorchcv SuperPointNet (keypoint scores by a cell softmax and depth-to-space "
         "reshapes, a threshold, a greedy NMS loop over the points sorted by score, descriptors sampled by "
         "grid_sample)", f"from {_PCV}.superpointnet import superpointnet",
         "superpointnet()", "pts, confs, descs = self.m(x)\n        return pts[0], confs[0], descs[0]",
         "1, 1, 64, 64", DYNAMIC_BHW),
    # kornia: fast moving object deblurring, descriptor matching.
    Spec("kornia_defmo", "kornia DeFMO (a blurred image and its background to 24 sharp sub-frames with alpha)",
         "from kornia.feature import DeFMO", "DeFMO(pretrained=False)", "return self.m(x)", "1, 6, 32, 32",
         DYNAMIC_BHW),
    Spec("kornia_smnn_matcher", "kornia DescriptorMatcher smnn (mutual nearest neighbours with the ratio test: "
         "cdist, top 2, masks)", "from kornia.feature import DescriptorMatcher", 'DescriptorMatcher("smnn", 0.95)',
         "dists, idxs = self.m(x[0], x[1])\n        return dists, idxs", "2, 64, 32",
         'dynamic_axes = { x = { 1 = "points" } }'),
    # Backbones from corners the earlier zoos used little.
    Spec("timm_resmlp_12", "timm resmlp_12_224 (affine layers in place of norms, a linear layer across patches)",
         "import timm", 'timm.create_model("resmlp_12_224", pretrained=False, img_size=64, num_classes=10)',
         "return self.m(x)", _SMALL, DYNAMIC_B),
    Spec("timm_convmixer", "timm convmixer_768_32 (a patch stem, depthwise and pointwise convolutions mixing)",
         "import timm", 'timm.create_model("convmixer_768_32", pretrained=False, num_classes=10)', "return self.m(x)",
         _SMALL, DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("tv_efficientnet_v2_s", "torchvision efficientnet_v2_s (fused MBConv stages, then MBConv with SE)",
         "import torchvision", "torchvision.models.efficientnet_v2_s(weights=None, num_classes=10)", "return self.m(x)",
         _SMALL, DYNAMIC_BHW, calibrate="self.m(xb)"),
]

if __name__ == "__main__":
    main(MODELS16, "real_zoo16", PINS16)
