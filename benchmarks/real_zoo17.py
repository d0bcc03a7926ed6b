"""A seventeenth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo17.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the sixteenth zoo's first contact, so what it gives after them is no longer a figure for models
nobody tuned for. This zoo is the next check: the sixteenth zoo's libraries and pins and two more libraries by other
authors, whose code no earlier zoo or sweep ran (``PINS17``: unpacked wheels like the others, never pip-installed):
leeyunjai's easydetect 0.7.10 (real-time DETR detectors adapted from D-FINE, "ed-n" to "ed-x", with their
DeployWrapper export head, a SimCC keypoint network and a MobileSAM-style box-prompted mask decoder with the wrapper
its decoder.onnx is exported from; its package imports numpy, opencv and PyYAML, its networks torch) and paul-krug's
pytorch-tcn 1.2.3 (temporal convolutional networks: causal and non-causal padding, batch, layer or weight norm, gated
activations, conditioning embeddings, and streaming inference through the causal padders' buffers; torch and numpy).
Both import with the environment's packages: the ``bench`` extra is unchanged. 10 of the 24 models come from the two
new libraries. Considered and dropped before any model was chosen (each by its wheel's metadata and imports):
python-doctr (pypdfium2, pyclipper, shapely and h5py, compiled), controlnet-aux (scikit-image at package import),
torchxrayvision (imageio and scikit-image), super-gradients (hydra and many more at package import), yolort (imports
its yolov5 utilities, which download a font at import), the torchreid fork pyppbox-torchreid (gdown and tensorboard at
package import; its HACNN, MLFN and OSNet are boxmot's, zoo 15), ezflow (fvcore), cjm-yolox-pytorch (one architecture,
a further dependency); ptlflow, pytorchvideo, torchreid, sam2, torchgeo and face-alignment as zoos 15 and 16 found.

24 models, chosen by family before any was run, none of them (library, architecture and variant) in zoos 1 to 16 or in
the library sweeps (benchmarks/sweep_*.py), most of them of kinds that often need work for an ONNX or TensorRT
deployment. Detection, keypoints and promptable masks, from easydetect, random weights: ed-n through its DeployWrapper
(HGNetV2-B0 with learnable affine blocks, a hybrid encoder, the top 30 encoder queries selected, one decoder layer of
deformable attention over two levels with six points a level, fine-grained distribution refinement of the box edges;
boxes and sigmoid scores), ed-s after its ``deploy()`` (three levels, re-parameterisable blocks fused, training heads
dropped), PoseNet s (SimCC: per-keypoint maps flattened into tokens by a linear layer over the 16x12 cells, a keypoint
mixer, x and y classification logits; 256x192 crops in 0-255), ``SamDecoderOnnx`` (what its decoder.onnx computes:
three boxes as corner points labelled 2 and 3, the best of the multimask outputs by predicted IoU with a reweighting
that depends on the number of points, masks upsampled to 1024, cropped to the picture's resized size and resized to
the picture's size, both sizes computed from a tensor) and ``SamDecoder`` on a batch (one embedding and one box each;
four masks of 256x256 and their IoU). transformers has a D-FINE (zoo 5); these are easydetect's own code. Temporal
convolutions, from pytorch-tcn: non-causal with batch norm and skip connections summed from every block, causal on
channels-last input with layer norm, gated activations, a projection and softmax, causal with weight-normalized
convolutions and dilations reset every 4 blocks (GELU), conditioned on a per-sequence embedding concatenated to every
block's input, and streaming inference (the buffers reset, then two chunks in a row through the causal padders'
buffers, as a real-time user runs it). Windowed attention with padding, kernel-basis attention and low-light
enhancement, from spandrel: RGT x2 (rectangle-window attention and recursive-generalization attention over pooled
representatives), FDAT x2 (window attention, the input padded to whole windows, alternating with channel attention),
KBNet-s (per-pixel kernels mixed from a learned basis, applied with ``unfold``), RetinexFormer (an illumination
estimate guiding attention) and HVI-CIDNet (a learnable HVI colour space from HSV, lighten cross attention, back to
RGB). Video and grid sampling, from transformers: X-CLIP's video features (a per-frame ViT with cross-frame message
tokens, a multi-frame integration transformer; 4 frames of 32x32) and UVDoc (a dilated-convolution bridge predicting
a 2-D mesh) with its image processor's ``post_process_document_rectification`` (the mesh upsampled to each image and
applied with ``grid_sample``, scaled and cast to uint8 with the channels flipped; returned as floats). 3-D medical
with prompts, from monai: VISTA3D (a SegResNetDS2 encoder of 16 filters, a class head and a SAM-like 3-D point head:
two objects, each a positive point and a class). Then the minority, backbones from corners the earlier zoos used
little: timm's gcresnext26ts (global context attention), efficientformer_l1 (4-D pooling meta-blocks, then attention
with a bias table for its 7x7 tokens), gmlp_ti16_224 (a spatial gating unit: a linear layer across the 16 patches) and
fbnetv3_b, torchvision's quantizable MobileNetV2 in float (QuantStub and DeQuantStub, FloatFunctional adds,
conv-bn-relu fused by its ``fuse_model`` after calibration, as a user prepares it for quantization) and pytorchcv's
ResAttNet-56 (residual attention: hourglass masks with max pooling and upsampling to the trunk's size).

Each is small and has the dynamic axes a deploying user declares: batch, height and width for the images (the ed
detectors at multiples of 32, which their encoder's concatenation of upsampled and lateral maps needs; FDAT at 60 px,
not whole windows, so that its padding runs); batch and time for the sequences (time alone for the streaming model,
whose buffers hold one sequence: pytorch-tcn refuses a batch of more than one); depth, height and width for VISTA3D (one
volume, its prompts naming two objects); batch alone where the size is part of the model (PoseNet's linear layer over
the cells, X-CLIP's position embeddings, efficientformer's attention biases, gMLP's linear layer across patches,
ResAttNet's fixed 7x7 pool at 224 px, SamDecoder's 64x64 embedding grid); none for ``SamDecoderOnnx``, which takes one
picture's embedding and a fixed set of boxes, whose own export (its seg_trainer) declares only the prompts' counts
dynamic. Machinery, table and counts are real_zoo2.py's. The wrappers were checked only for building and running eagerly
(deterministic over three forwards, finite outputs), at two sizes (a batch of two and, where height, width, time or
depth are dynamic, 16 more, 32 more for the ed detectors, which fail at 16 more as their encoder needs), before the
first migrate run: with the machine's load around 1.1 to 1.8 on two cores and one thread, the best of three forwards at
the spec's size took under 1 s for every model (VISTA3D 0.56 to 0.78 s, SamDecoderOnnx 0.28 to 0.32 s, ResAttNet-56 0.14
s), most under 0.05 s; the largest single forward was 1.08 s (VISTA3D at 48x48x48). Changed then: from the first list
(before any run), kornia's GFTTAffNetHardNet was dropped (it loads AffNet's pretrained weights at construction). After
the first runs: timm's repghostnet_050 was replaced by gmlp_ti16_224 because sweep_vit_timm.py ran it (it built and ran;
the sweep was found after); spandrel's SeemoRe was replaced by FDAT (its mixture of experts failed eagerly in eval:
``size of tensor a (16) must match the size of tensor b (0)``); UVDoc's backbone returns all six bridge stages (its
default config returns the last alone and its head, which concatenates the six, does not build a forward: zoo 10 dropped
UVDoc for this); efficientformer_l1 runs at 224 px (it takes no ``img_size``: its attention biases are for 7x7 tokens);
X-CLIP returns the video features' pooled output (``get_video_features`` gives a model output in transformers 5).
"""

from __future__ import annotations

from real_zoo import DYNAMIC_B, DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo16 import PINS16

#: The sixteenth zoo's pins and two libraries by other authors, unpacked wheels like the others (never
#: pip-installed): leeyunjai's easydetect (real-time DETR detectors adapted from D-FINE, a SimCC keypoint network, a
#: MobileSAM-style box-prompted mask decoder with its ONNX wrapper; it imports numpy, opencv and pyyaml, torch for
#: the networks) and paul-krug's pytorch-tcn (temporal convolutional networks: causal and non-causal, gated,
#: conditioned, with streaming inference through padding buffers; it imports torch and numpy).
PINS17 = {**PINS16, "easydetect": "0.7.10", "pytorch_tcn": "1.2.3"}

_SMALL = "1, 3, 64, 64"
_DETECT = "1, 3, 128, 128"
_ED = "easydetect.nn"
#: A sequence as (batch, channels, time): batch and time are what a deploying user declares.
_SEQUENCE = "1, 8, 64"
_DYNAMIC_SEQUENCE = 'dynamic_axes = { x = { 0 = "batch", 2 = "time" } }'
_TCN = "from pytorch_tcn import TCN"
_SPANDREL = "spandrel.architectures"


def _tcn(name: str, what: str, args: str, forward: str = "return self.m(x)", shape: str = _SEQUENCE,
         config: str = _DYNAMIC_SEQUENCE, **kw: str) -> Spec:
    """A pytorch-tcn TCN on 8 input channels, small and random."""
    return Spec(f"tcn_{name}", f"pytorch-tcn {what}", _TCN, f"TCN(8, {args})", forward, shape, config, **kw)


MODELS17 = [
    # easydetect: real-time DETR detection, SimCC keypoints, a box-prompted mask decoder.
    Spec("ed_n_deploy", "easydetect ed-n through its DeployWrapper (D-FINE layout: HGNetV2-B0 with learnable "
         "affine blocks, a hybrid encoder on two levels, a deformable decoder with six points a level and "
         "fine-grained distribution refinement; 30 queries, one decoder layer; boxes and sigmoid scores)",
         f"from {_ED} import DeployWrapper, EDNet",
         'DeployWrapper(EDNet("n", num_classes=3, pretrained_backbone=False).trim(layers=1, queries=30))',
         "return self.m(x)", _DETECT, DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("ed_s_fused", "easydetect ed-s after deploy() (three levels; re-parameterisable blocks fused and the "
         "decoder's training heads dropped), through its DeployWrapper",
         f"from {_ED} import DeployWrapper, EDNet",
         'DeployWrapper(EDNet("s", num_classes=3, pretrained_backbone=False).trim(layers=1, queries=30))',
         "return self.m(x)", _DETECT, DYNAMIC_BHW, calibrate="self.m(xb)", finish="self.m.net.deploy()"),
    Spec("ed_pose_s", "easydetect PoseNet s (SimCC: per-keypoint maps flattened to tokens by a linear layer, a "
         "keypoint mixer, x and y classification logits; 256x192 person crops)",
         f"from {_ED}.posenet import PoseNet", 'PoseNet("s")',
         "x_logits, y_logits = self.m(x * 255)\n        return x_logits, y_logits", "1, 3, 256, 192", DYNAMIC_B,
         calibrate="self.m(xb * 255)"),
    Spec("ed_sam_decoder_onnx", "easydetect SamDecoderOnnx (MobileSAM's prompt encoder and mask decoder as its "
         "decoder.onnx computes them: three boxes as corner points, the best of the multimask outputs by "
         "predicted IoU, masks cropped and resized to the picture's size from a tensor)",
         f"from {_ED}.sam_decoder import SamDecoder, SamDecoderOnnx", "SamDecoderOnnx(SamDecoder())",
         "return self.m(x, self.points, self.labels, torch.zeros(1, 1, 256, 256), torch.zeros(1), self.size)",
         "1, 256, 64, 64", "",
         init='self.register_buffer("points", torch.tensor([[[100.0, 120.0], [400.0, 380.0]], '
              "[[50.0, 60.0], [700.0, 500.0]], [[300.0, 10.0], [900.0, 640.0]]]))\n        "
              'self.register_buffer("labels", torch.tensor([[2.0, 3.0]] * 3))\n        '
              'self.register_buffer("size", torch.tensor([96.0, 128.0]))'),
    Spec("ed_sam_decoder_boxes", "easydetect SamDecoder on a batch (one image embedding and one box each: the "
         "prompt encoder's box corners, a two-way transformer, four masks and their predicted IoU)",
         f"from {_ED}.sam_decoder import SamDecoder", "SamDecoder()",
         "boxes = torch.stack([x[:, 0, 0, :2], x[:, 0, 0, :2] + x[:, 0, 0, 2:4]], 1).flatten(1) * 512\n        "
         "masks, iou = self.m(x, boxes)\n        return masks, iou", "1, 256, 64, 64", DYNAMIC_B),
    # pytorch-tcn: temporal convolutions, causal padding, gating, conditioning, streaming buffers.
    _tcn("noncausal_skip", "TCN, non-causal (centred padding), batch norm, skip connections from every block summed",
         "[16, 16, 16, 16], kernel_size=3, causal=False, use_norm='batch_norm', use_skip_connections=True, "
         "dropout=0.0", calibrate="self.m(xb)"),
    _tcn("causal_gated", "TCN, causal, channels-last input (NLC), layer norm, gated activations, an output "
         "projection with softmax", "[16, 16, 16], kernel_size=4, causal=True, use_norm='layer_norm', "
         "use_gate=True, input_shape='NLC', output_projection=5, output_activation='softmax', dropout=0.0",
         shape="1, 64, 8", config='dynamic_axes = { x = { 0 = "batch", 1 = "time" } }'),
    _tcn("weight_norm_reset", "TCN, causal, weight-normalized convolutions, dilations reset every 4, GELU",
         "[16, 16, 16, 16, 16, 16], kernel_size=3, dilation_reset=4, activation='gelu', dropout=0.0"),
    _tcn("film_conditioned", "TCN conditioned on a per-sequence embedding (concatenated to every block's input "
         "and projected)", "[16, 16, 16], kernel_size=3, embedding_shapes=[(4,)], embedding_mode='concat', "
         "dropout=0.0", forward="return self.m(x[:, :8], embeddings=x[:, 8:12, 0])", shape="1, 12, 64"),
    _tcn("streaming", "TCN streaming inference: two chunks in a row through its causal padding buffers (reset "
         "first), as a real-time user runs it", "[16, 16, 16], kernel_size=3, dropout=0.0",
         forward="self.m.reset_buffers()\n        half = x.shape[2] // 2\n        "
                 "first = self.m(x[:, :, :half], inference=True)\n        "
                 "return torch.cat([first, self.m(x[:, :, half:], inference=True)], 2)",
         config='dynamic_axes = { x = { 2 = "time" } }'),
    # spandrel: windowed and recursive attention, kernel-basis attention, low-light enhancement, mixture of experts.
    Spec("spandrel_rgt", "spandrel RGT x2 (recursive-generalization transformer: rectangle-window attention, "
         "recursive global attention over pooled representatives)", f"from {_SPANDREL}.RGT.__arch.rgt import RGT",
         "RGT(img_size=64, embed_dim=32, depth=[1, 1], num_heads=[2, 2], split_size=[8, 16], upscale=2, "
         "drop_path_rate=0.0)", "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("spandrel_kbnet", "spandrel KBNet-s (kernel basis attention: per-pixel kernels mixed from a learned "
         "basis, applied through unfold)", f"from {_SPANDREL}.KBNet.__arch.kbnet_s import KBNet_s",
         "KBNet_s(width=16, middle_blk_num=1, enc_blk_nums=[1, 1, 1, 1], dec_blk_nums=[1, 1, 1, 1])",
         "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("spandrel_retinexformer", "spandrel RetinexFormer (illumination estimate, illumination-guided attention "
         "in a U-shaped transformer)", f"from {_SPANDREL}.RetinexFormer.__arch.retinexformer_arch import "
         "RetinexFormer", "RetinexFormer(n_feat=16, stage=1, num_blocks=[1, 1, 1])", "return self.m(x)", _SMALL,
         DYNAMIC_BHW),
    Spec("spandrel_hvi_cidnet", "spandrel HVI-CIDNet (a learnable HVI colour space from HSV, two branches with "
         "lighten cross attention, back to RGB)", f"from {_SPANDREL}.HVICIDNet.__arch.cidnet import CIDNet",
         "CIDNet(channels=[16, 16, 32, 64], heads=[1, 2, 4, 8])", "return self.m(x)", _SMALL, DYNAMIC_BHW),
    Spec("spandrel_fdat", "spandrel FDAT x2 (fast dual aggregation transformer: window attention with the input "
         "padded to whole windows alternating with channel attention, an adaptive interaction module)",
         f"from {_SPANDREL}.FDAT.__arch.fdat import FDAT",
         "FDAT(scale=2, embed_dim=32, num_groups=2, depth_per_group=2, num_heads=2, window_size=8, mid_dim=16, "
         "drop_path_rate=0.0)", "return self.m(x)", "1, 3, 60, 60", DYNAMIC_BHW),
    # transformers: video-text features, document unwarping with grid_sample.
    Spec("hf_xclip_video", "transformers X-CLIP video features (per-frame ViT with cross-frame message tokens, "
         "a multi-frame integration transformer; 4 frames of 32x32)",
         "from transformers import XCLIPConfig, XCLIPModel",
         "XCLIPModel(XCLIPConfig(projection_dim=32, text_config=dict(hidden_size=32, intermediate_size=64, "
         "num_hidden_layers=1, num_attention_heads=2, max_position_embeddings=16, vocab_size=100), "
         "vision_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2, "
         "image_size=32, patch_size=8, num_frames=4, mit_hidden_size=32, mit_intermediate_size=64, "
         "mit_num_hidden_layers=1, mit_num_attention_heads=2)))",
         "return self.m.get_video_features(pixel_values=x).pooler_output", "1, 4, 3, 32, 32", DYNAMIC_B),
    Spec("hf_uvdoc", "transformers UVDoc (a dilated-convolution bridge predicting a 2-D mesh) with its image "
         "processor's rectification: the mesh upsampled to the image and applied with grid_sample",
         "from transformers import UVDocConfig, UVDocImageProcessor, UVDocModel",
         "UVDocModel(UVDocConfig(backbone_config=dict(model_type='uvdoc_backbone', out_features=[f'stage{i}' "
         "for i in range(1, 7)])))",
         "mesh = self.m(pixel_values=x).last_hidden_state\n        "
         "images = self.post.post_process_document_rectification(mesh, list(x))\n        "
         "return torch.stack([image['images'] for image in images]).to(x.dtype)", "1, 3, 128, 96", DYNAMIC_BHW,
         init="self.post = UVDocImageProcessor()", calibrate="self.m(pixel_values=xb)"),
    # monai: promptable 3-D segmentation.
    Spec("monai_vista3d", "monai VISTA3D (a SegResNetDS2 encoder, a class head and a SAM-like 3-D point head: two "
         "objects, each a positive point and a class)",
         "from monai.networks.nets.vista3d import vista3d132", "vista3d132(encoder_embed_dim=16)",
         "return self.m(x, point_coords=self.points, point_labels=self.labels, class_vector=self.classes)",
         "1, 1, 32, 32, 32", 'dynamic_axes = { x = { 2 = "depth", 3 = "height", 4 = "width" } }',
         init='self.register_buffer("points", torch.tensor([[[8.0, 10.0, 12.0]], [[20.0, 16.0, 9.0]]]))\n        '
              'self.register_buffer("labels", torch.tensor([[1], [1]]))\n        '
              'self.register_buffer("classes", torch.tensor([[3], [7]]))'),
    # Backbones from corners the earlier zoos used little.
    Spec("timm_gcresnext26ts", "timm gcresnext26ts (global context attention blocks in a ResNeXt)", "import timm",
         'timm.create_model("gcresnext26ts", pretrained=False, num_classes=10)', "return self.m(x)", _SMALL,
         DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("timm_efficientformer_l1", "timm efficientformer_l1 (4-D pooling meta-blocks, then 3-D attention blocks "
         "with an attention bias table)", "import timm",
         'timm.create_model("efficientformer_l1", pretrained=False, num_classes=10)', "return self.m(x)",
         "1, 3, 224, 224", DYNAMIC_B, calibrate="self.m(xb)"),
    Spec("timm_gmlp_ti16", "timm gmlp_ti16_224 (gMLP: a spatial gating unit, a linear layer across the 16 patches "
         "gating half the channels)", "import timm",
         'timm.create_model("gmlp_ti16_224", pretrained=False, img_size=64, num_classes=10)', "return self.m(x)",
         _SMALL, DYNAMIC_B),
    Spec("timm_fbnetv3_b", "timm fbnetv3_b (searched MBConv blocks with hard-swish and SE)", "import timm",
         'timm.create_model("fbnetv3_b", pretrained=False, num_classes=10)', "return self.m(x)", _SMALL,
         DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("tv_quant_mobilenet_v2", "torchvision quantizable mobilenet_v2 in float (QuantStub, FloatFunctional adds, "
         "conv-bn-relu fused by its fuse_model)", "import torchvision",
         "torchvision.models.quantization.mobilenet_v2(weights=None, quantize=False, num_classes=10)",
         "return self.m(x)", _SMALL, DYNAMIC_BHW, calibrate="self.m(xb)", finish="self.m.fuse_model()"),
    Spec("pcv_resattnet56", "pytorchcv ResAttNet-56 (residual attention: hourglass masks with max-pool and "
         "bilinear upsampling to the trunk's size)", "from pytorchcv.models.resattnet import resattnet56",
         "resattnet56(num_classes=10)", "return self.m(x)", "1, 3, 224, 224", DYNAMIC_B, calibrate="self.m(xb)"),
]

if __name__ == "__main__":
    main(MODELS17, "real_zoo17", PINS17)
