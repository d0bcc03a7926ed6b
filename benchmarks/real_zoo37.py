"""A thirty-seventh real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo37.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check: the thirty-first zoo's pins and four more libraries by four other
authors, whose code no earlier zoo or sweep ran (``PINS37``: unpacked wheels like the others, never pip-installed):
easypaddleocr 0.3 (pk5ls20 and hv0905's packaging of the PaddleOCR2Pytorch port, PaddleOCR's models in PyTorch:
architectures built from config dicts, MobileNetV3, PP-LCNetV3, SVTR and MTB backbones, DBFPN, RSEFPN, LKPAN and EAST
FPN necks, DB, PFHeadLocal and EAST detection heads, CTC, attention, SAR, NRTR and multi-head recognition heads, and a
TPS rectifier; torch, NumPy, OpenCV, loguru and six at package import), captix 2.0.0 (Julio Trecenti's text-captcha
reader: a ResNet-style CRNN whose height is pooled to 1, a BiLSTM and CTC logits, and a ``decrypt`` that masks
forbidden characters to -inf and takes the argmax path; torch, torchvision), arabicocr-khatt 0.1.0 (Osama Sharaf's
Arabic handwriting CRNN-CTC: seven convolutions, the map pooled to three vertical zones at its own width, a BiLSTM and
an optional transformer layer; torch alone for the model) and fastreid 1.4.0 (JD AI's FastReID, by Lingxiao He,
Xingyu Liao, Wu Liu, Xinchen Liu, Peng Cheng and Tao Mei: person re-identification meta-architectures built from a yacs
config, ResNet with IBN and non-local blocks, OSNet and more, GeM and max pooling heads with a BNNeck, MGN's part
branches; yacs and termcolor at import). Four pure-Python packages join the ``bench`` extra: loguru and six
(easypaddleocr's package import), yacs and termcolor (fastreid's config and checkpoint modules).

Considered and dropped before any model was chosen (by the wheel's files, metadata and a first import): scrfd 0.3.0
and controlnet-dwpose 0.1.5 (ONNX Runtime sessions, no torch model code), fdfat 0.2.6.1 (RyanDam's 6-DoF face
alignment: plain landmark regressors, its detector an ONNX session), cnocr 2.3.3 (pytorch-lightning, wandb, rapidocr),
supermatch 0.0.5 (dloc: h5py, pydegensac and opencv-contrib), arcsort 0.1.1 (NumPy and lap trackers, torch only for an
optional ReID), featmf 0.1.1 (a SIFT wrapper), ffhq-align 1.0.4 (zoo 36 dropped it), mb-capcha-ocr 0.1.6 (ONNX),
eereid, torchmatch and torchyolo (no wheel on this index); and the libraries zoos 15 to 36 dropped, as they found
(toddleocr, easyocr, python-doctr, torchreid, face-alignment among them).

20 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 36
or in the library sweeps (benchmarks/sweep_*.py), all 20 from the four new libraries, at least 15 of the kinds that
most often need work for an ONNX or TensorRT deployment (decoding loops of a fixed 25 steps whose argmax is fed back as
a one-hot or an embedding, a greedy transformer decode that breaks out when every sequence has ended, a TPS grid built
for the image's size and sampled, adaptive pooling to an output size read from the input's width, ``view`` and
``chunk`` by the map's size, masks to -inf built in Python per call, CTC argmax and collapse masks, top-k capped by the
gallery's size, non-local attention over every position). OCR from easypaddleocr (random weights, configs in code,
BatchNorm calibrated): three DB text detectors (MobileNetV3 with DBFPN, PP-LCNetV3 with RSEFPN as PP-OCRv4 mobile,
MobileNetV3 with LKPAN and PFHeadLocal) and EAST, and recognisers: CRNN with CTC, TPS then CRNN, an attention head, SAR,
NRTR (d_model 256 on 16-pixel lines: MTB's 64 channels times the 4 remaining rows make the model width), PP-OCRv4's
PP-LCNetV3 with MultiHead (its SVTR neck and CTC head) and SVTR-Tiny (fixed 32x128: its position embedding), the CTC
ones with PaddleOCR's per-step argmax and probability. Captchas from captix: CRNN logits, decrypt's masked greedy path
with the CTC collapse as a mask, and a digits-only CRNN with per-step classes and the sequence's log-confidence.
Arabic lines from arabicocr-khatt: the CRNN, the CRNN with its transformer layer, and its greedy CTC decode as tensors.
Re-identification from fastreid (the model takes 0-255 pixels and normalizes its input in place, so the wrapper passes
``x * 255``, a copy): AGW (ResNet-50 with IBN and non-local blocks, GeM), OSNet x0.5 with the user's retrieval (first
image against the rest, cosine similarity, top 3 capped by the gallery's size) and MGN (ResNet-50, stripes by
``chunk``).

Each is small and has the dynamic axes a deploying user declares: batch, height and width for the detectors and the
re-identification models (MGN's three stripes need 96 px or more); batch and width for the text recognisers (lines are
resized to the model's height: 32, 48 for PP-OCRv4, 64 for the Arabic CRNN, 16 for NRTR); batch only for SVTR-Tiny. The
BatchNorm statistics come from a calibration pass (``Spec.calibrate``) for every model with BatchNorm. Machinery, table
and counts are real_zoo2.py's. The wrappers were checked only for building and running eagerly (deterministic over two
forwards, finite outputs) at two sizes (the spec's, and one 32 px larger on each dynamic image axis and one more item
where the batch is dynamic) before the first migrate run: with one thread on the shared two cores (four sessions on
them, so a model's figure varied up to threefold between runs), each in its own process, in two runs a forward at the
spec's size took 0.05 to 0.26 s and 0.06 to 0.41 s (captix's masked greedy CRNN and easypaddleocr's CRNN the fastest;
SAR the slowest, 0.25 and 0.41 s, then 0.38 s at its final 32x96 in the second, busier run; the Arabic greedy CRNN 0.26
and 0.32 s, fastreid's OSNet retrieval 0.12 and 0.33 s, MGN 0.21 and 0.30 s) and at most 0.62 and 0.73 s at the larger
size (the Arabic CRNN with attention, then AGW on two 160x96 images); builds (imports and calibration included) took 10
to 26 s. Changed after the first eager runs, before any migrate run: NRTR first had d_model 128 on 32-pixel lines (it
fails eagerly: MTB's features are 512 wide there), then d_model 512 with two layers each side (0.86 s a forward) and
one (0.54 s), now 256 on 16-pixel lines with one layer each side (0.11 s); SAR's d_k went from 512 to 128 (0.39 s a
forward, then 0.25 s) and its line from 32x128 to 32x96; the Arabic greedy decode went from two 64x96 lines (0.45 s) to
one 64x80 line; fastreid needs ``MODEL.DEVICE = "cpu"`` (its build moves the model to CUDA by default); a ResNet-18
bag-of-tricks model with GeM was dropped to keep 20 models."""

from __future__ import annotations

from real_zoo import DYNAMIC_B, DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and four libraries by four other authors, unpacked wheels like the others (never
#: pip-installed): easypaddleocr (PaddleOCR's detectors and recognisers ported to PyTorch: DB, EAST and PFHead text
#: detection; CTC, attention, SAR and NRTR recognition heads, TPS rectification, SVTR and PP-LCNetV3 backbones, built
#: from config dicts), captix (a CRNN for text captchas with CTC logits and a character mask), arabicocr_khatt (a
#: CRNN-CTC for Arabic handwriting that pools its feature map to three vertical zones) and fastreid (JD AI's FastReID:
#: person re-identification backbones, GeM and other pooling heads, MGN's part branches, built from a yacs config).
PINS37 = {**PINS31, "easypaddleocr": "0.3", "captix": "2.0.0", "arabicocr_khatt": "0.1.0", "fastreid": "1.4.0"}

#: Batch and width dynamic: text lines are resized to the recogniser's height, their width kept.
_DYNAMIC_BW = 'dynamic_axes = { x = { 0 = "batch", 3 = "width" } }'

# easypaddleocr: the user builds PaddleOCR's architectures from config dicts, as the port's predictors do from its
# yaml files (random weights: no .pth is loaded).
_EPO = "from easypaddleocr.pytorchocr.modeling.architectures.base_model import BaseModel"
_MV3_DET = '{"name": "MobileNetV3", "model_name": "large", "scale": 0.5, "disable_se": True}'
_MV3_REC = '{"name": "MobileNetV3", "model_name": "small", "scale": 0.5, "small_stride": [1, 2, 2, 2]}'
_RNN = '{"name": "SequenceEncoder", "encoder_type": "rnn", "hidden_size": 48}'


def _epo(model_type: str, backbone: str, neck: str | None, head: str, extra: str = "") -> str:
    parts = [f'"model_type": "{model_type}"', f'"Backbone": {backbone}']
    if neck:
        parts.append(f'"Neck": {neck}')
    parts.append(f'"Head": {head}')
    if extra:
        parts.append(extra)
    return "BaseModel({" + ", ".join(parts) + "})"


#: PaddleOCR's CTC label decode on the probabilities (CTCHead applies softmax in eval): each step's class and its
#: probability.
_EPO_CTC = "probs = self.m(x)\n        return probs.argmax(dim=2), probs.max(dim=2).values"

# captix: its CRNN (random weights, the default vocabulary: digits and letters, index 0 the CTC blank).
_CX = ("from captix.model import CRNN\nfrom captix.decrypt import _apply_mask, _resolve_mask\n"
       "from captix.dataset import DEFAULT_VOCAB")
#: decrypt's greedy path: forbidden characters masked to -inf (a regex character class, case-insensitive), the
#: argmax per step, and the user's CTC collapse as a mask (not blank, not a repeat of the step before).
_CX_GREEDY = ('logits = _apply_mask(self.m(x), _resolve_mask("[0-9a-f]", self.m.vocab, False))\n        '
              "idx = logits.argmax(dim=-1).transpose(0, 1)\n        "
              "prev = torch.cat([torch.full_like(idx[:, :1], -1), idx[:, :-1]], 1)\n        "
              "return idx, (idx != 0) & (idx != prev)")
#: Per-step confidence: the best log-probability of each step, summed over the steps that emit a character.
_CX_CONF = ("logp = torch.log_softmax(self.m(x), dim=-1)\n        "
            "best, idx = logp.max(dim=-1)\n        "
            "return idx, (best * (idx != 0)).sum(0)")

# arabicocr_khatt: its CRNN (80 classes, index 0 the CTC blank) on one-channel 64-pixel lines.
_AR = "from arabicocr_khatt.model import CRNN"
#: The library's greedy CTC decode as tensors: argmax per step, then the steps that emit (not blank, not a repeat).
_AR_GREEDY = ("idx = self.m(x).argmax(-1)\n        "
              "prev = torch.cat([torch.full_like(idx[:1], -1), idx[:-1]], 0)\n        "
              "return idx, (idx != 0) & (idx != prev)")

# fastreid: the user's yacs config (CPU device, no pretrained backbone); the model expects 0-255 pixels and
# normalizes them in place, so the wrapper passes a scaled copy.
_FR = """from fastreid.config import get_cfg
from fastreid.modeling.meta_arch import build_model
import torch.nn.functional as F


def reid(meta="Baseline", backbone="build_resnet_backbone", depth="50x", feat_dim=2048, pool="GlobalAvgPool",
         **backbone_options):
    cfg = get_cfg()
    cfg.MODEL.DEVICE = "cpu"
    cfg.MODEL.META_ARCHITECTURE = meta
    cfg.MODEL.BACKBONE.NAME = backbone
    cfg.MODEL.BACKBONE.DEPTH = depth
    cfg.MODEL.BACKBONE.FEAT_DIM = feat_dim
    cfg.MODEL.BACKBONE.PRETRAIN = False
    for key, value in backbone_options.items():
        setattr(cfg.MODEL.BACKBONE, key, value)
    cfg.MODEL.HEADS.POOL_LAYER = pool
    cfg.MODEL.HEADS.NUM_CLASSES = 100
    return build_model(cfg)"""
_FR_FEAT = "return self.m(x * 255)"
#: Retrieval: the first image is the query, the rest the gallery; cosine similarities of normalized embeddings and
#: the best three matches (k capped by the gallery's size).
_FR_RETRIEVE = ("f = F.normalize(self.m(x * 255), dim=1)\n        "
                "sim = f[:1] @ f[1:].t()\n        "
                "return sim.topk(min(3, sim.shape[1]), dim=1)")

MODELS37 = [
    # easypaddleocr: text detection (DB, PFHead, EAST) and recognition (CTC, attention, SAR, NRTR).
    Spec("epo_db_mbv3", "easypaddleocr DB text detector: MobileNetV3-large 0.5, DBFPN (nearest upsampling by 2, 4 "
         "and 8), DBHead shrink maps", _EPO,
         _epo("det", _MV3_DET, '{"name": "DBFPN", "out_channels": 96}', '{"name": "DBHead", "k": 50}'),
         'return self.m(x)["maps"]', "1, 3, 128, 128", DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("epo_db_lcnetv3_rsefpn", "easypaddleocr PP-OCRv4 mobile detector: PP-LCNetV3 0.75 (re-parameterisable "
         "blocks), RSEFPN with squeeze-excitation shortcuts, DBHead", _EPO,
         _epo("det", '{"name": "PPLCNetV3", "scale": 0.75, "det": True}',
              '{"name": "RSEFPN", "out_channels": 96, "shortcut": True}', '{"name": "DBHead", "k": 50}'),
         'return self.m(x)["maps"]', "1, 3, 96, 128", DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("epo_pfhead_lkpan", "easypaddleocr DB with LKPAN (large-kernel PAN) and PFHeadLocal (upsampled local "
         "refinement averaged with the shrink map)", _EPO,
         _epo("det", _MV3_DET, '{"name": "LKPAN", "out_channels": 64}',
              '{"name": "PFHeadLocal", "k": 50, "mode": "small"}'),
         'out = self.m(x)\n        return out["maps"], out["cbn_maps"]', "1, 3, 128, 96", DYNAMIC_BHW,
         calibrate="self.m(xb)"),
    Spec("epo_east_mbv3", "easypaddleocr EAST detector: MobileNetV3, EASTFPN, score map and eight-channel quad "
         "geometry", _EPO,
         _epo("det", _MV3_DET, '{"name": "EASTFPN", "model_name": "small"}',
              '{"name": "EASTHead", "model_name": "small"}'),
         'out = self.m(x)\n        return out["f_score"], out["f_geo"]', "1, 3, 128, 128", DYNAMIC_BHW,
         calibrate="self.m(xb)"),
    Spec("epo_crnn_ctc", "easypaddleocr CRNN recogniser: MobileNetV3-small 0.5, BiLSTM encoder, CTCHead (softmax in "
         "eval), with PaddleOCR's per-step argmax and probability", _EPO,
         _epo("rec", _MV3_REC, _RNN, '{"name": "CTCHead", "out_channels": 37}'), _EPO_CTC, "1, 3, 32, 128",
         _DYNAMIC_BW, calibrate="self.m(xb)"),
    Spec("epo_tps_crnn_ctc", "easypaddleocr STAR-Net style recogniser: TPS rectification (20 fiducials, a grid "
         "generated for the image's size, grid_sample) before the CRNN and CTC decode", _EPO,
         _epo("rec", _MV3_REC, _RNN, '{"name": "CTCHead", "out_channels": 37}',
              '"Transform": {"name": "TPS", "num_fiducial": 20, "loc_lr": 0.1, "model_name": "small"}'),
         _EPO_CTC, "1, 3, 32, 100", _DYNAMIC_BW, calibrate="self.m(xb)"),
    Spec("epo_attention_rec", "easypaddleocr attention recogniser: BiLSTM features and an AttentionHead decoding 25 "
         "steps, each step's argmax fed back as a one-hot", _EPO,
         _epo("rec", _MV3_REC, _RNN, '{"name": "AttentionHead", "out_channels": 38, "hidden_size": 64}'),
         "return self.m(x)", "2, 3, 32, 128", _DYNAMIC_BW, calibrate="self.m(xb)"),
    Spec("epo_sar_rec", "easypaddleocr SAR recogniser: LSTM encoder over the column-max feature, a 2-D attention "
         "decoder run for 25 steps on its own argmax", _EPO,
         _epo("rec", _MV3_REC, None, '{"name": "SARHead", "out_channels": 40, "enc_dim": 128, "d_k": 128, '
              '"max_text_length": 25}'),
         "return self.m(x)", "1, 3, 32, 96", _DYNAMIC_BW, calibrate="self.m(xb)"),
    Spec("epo_nrtr_rec", "easypaddleocr NRTR recogniser: modality-transform convolutions (d_model 256: 64 channels "
         "times the 4 rows of a 16-pixel line), a transformer encoder and greedy decoding that stops early when every "
         "sequence emits the end token", _EPO,
         _epo("rec", '{"name": "MTB", "cnn_num": 2}', None,
              '{"name": "Transformer", "d_model": 256, "nhead": 4, "num_encoder_layers": 1, "num_decoder_layers": 1, '
              '"dim_feedforward": 512, "max_len": 25, "out_channels": 40, "beam_size": 0}', '"in_channels": 1'),
         "seq, prob = self.m(x)\n        return seq, prob", "1, 1, 16, 100", _DYNAMIC_BW, calibrate="self.m(xb)"),
    Spec("epo_ppocrv4_rec", "easypaddleocr PP-OCRv4 mobile recogniser: PP-LCNetV3 0.5 and MultiHead (an SVTR neck "
         "before the CTC head; the NRTR branch is for training), CTC decode", _EPO,
         _epo("rec", '{"name": "PPLCNetV3", "scale": 0.5}', None,
              '{"name": "MultiHead", "out_channels_list": {"CTCLabelDecode": 40, "SARLabelDecode": 42, '
              '"NRTRLabelDecode": 43}, "head_list": [{"CTCHead": {"Neck": {"name": "svtr", "dims": 64, "depth": 2, '
              '"hidden_dims": 96, "use_guide": True}, "Head": {"fc_decay": 1e-5}}}, {"NRTRHead": {"nrtr_dim": 128, '
              '"max_text_length": 25}}]}'),
         _EPO_CTC, "1, 3, 48, 160", _DYNAMIC_BW, calibrate="self.m(xb)"),
    Spec("epo_svtr_tiny", "easypaddleocr SVTR-Tiny recogniser (local and global mixing blocks on a 32x128 patch "
         "grid, position embedding for that size), CTC decode", _EPO,
         _epo("rec", '{"name": "SVTRNet", "img_size": [32, 128], "out_char_num": 25, "prenorm": False}',
              '{"name": "SequenceEncoder", "encoder_type": "reshape"}', '{"name": "CTCHead", "out_channels": 37}'),
         _EPO_CTC, "2, 3, 32, 128", DYNAMIC_B),
    # captix: CRNN logits, and decrypt's masked greedy decode.
    Spec("cx_crnn_logits", "captix CRNN (ResNet-style CNN, height pooled to 1, two-layer BiLSTM): CTC logits, "
         "(T, B, classes)", _CX, "CRNN()", "return self.m(x)", "1, 3, 32, 128", _DYNAMIC_BW,
         calibrate="self.m(xb)"),
    Spec("cx_crnn_masked_greedy", "captix smaller CRNN with decrypt's character mask (a case-insensitive regex class, "
         "forbidden logits at -inf), the argmax path and the CTC collapse as a mask", _CX,
         "CRNN(cnn_channels=(32, 64, 128, 128), rnn_hidden=96, rnn_layers=1)", _CX_GREEDY, "2, 3, 32, 128",
         _DYNAMIC_BW, calibrate="self.m(xb)"),
    Spec("cx_crnn_digits_confidence", "captix CRNN on a digits vocabulary, one BiLSTM layer: each step's class and "
         "the sequence's log-confidence over its emitting steps", _CX,
         'CRNN(vocab=list("0123456789"), rnn_hidden=128, rnn_layers=1)', _CX_CONF, "2, 3, 32, 96", _DYNAMIC_BW,
         calibrate="self.m(xb)"),
    # arabicocr_khatt: the CRNN whose feature map is pooled to three vertical zones at its own width.
    Spec("ar_crnn", "arabicocr_khatt CRNN (seven convolutions, adaptive pooling to (3, width), view and permute to "
         "a sequence, two-layer BiLSTM): CTC logits", _AR, "CRNN(80)", "return self.m(x)", "1, 1, 64, 96",
         _DYNAMIC_BW, calibrate="self.m(xb)"),
    Spec("ar_crnn_attention", "arabicocr_khatt CRNN with its transformer encoder layer after the BiLSTM (arch v3)",
         _AR, "CRNN(80, use_attention=True)", "return self.m(x).log_softmax(-1)", "1, 1, 64, 96", _DYNAMIC_BW,
         calibrate="self.m(xb)"),
    Spec("ar_crnn_greedy", "arabicocr_khatt CRNN with the library's greedy CTC decode as tensors (argmax, emitting "
         "steps) on a batch", _AR, "CRNN(60)", _AR_GREEDY, "1, 1, 64, 80", _DYNAMIC_BW, calibrate="self.m(xb)"),
    # fastreid: re-identification embeddings.
    Spec("fr_agw_r50_ibn_nl", "fastreid AGW: ResNet-50 with instance-batch normalization and non-local blocks "
         "(attention over every position of the map), GeM pooling", _FR,
         'reid(depth="50x", pool="GeneralizedMeanPoolingP", WITH_IBN=True, WITH_NL=True)', _FR_FEAT,
         "1, 3, 128, 64", DYNAMIC_BHW, calibrate="self.m(xb * 255)"),
    Spec("fr_osnet_retrieval", "fastreid OSNet x0.5 embeddings with the user's retrieval: the first image against "
         "the rest, cosine similarity, top 3 (capped by the gallery's size)", _FR,
         'reid(backbone="build_osnet_backbone", depth="x0_5", feat_dim=256)', _FR_RETRIEVE, "4, 3, 128, 64",
         DYNAMIC_BHW, calibrate="self.m(xb * 255)"),
    Spec("fr_mgn_r50", "fastreid MGN: ResNet-50 with a global branch and two part branches whose maps are chunked "
         "into two and three horizontal stripes, max pooled, eleven embeddings concatenated", _FR,
         'reid(meta="MGN", pool="GlobalMaxPool")', _FR_FEAT, "1, 3, 96, 48", DYNAMIC_BHW,
         calibrate="self.m(xb * 255)"),
]

if __name__ == "__main__":
    main(MODELS37, "real_zoo37", PINS37)
