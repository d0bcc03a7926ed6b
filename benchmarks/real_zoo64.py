"""A sixty-fourth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo64.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, away from images: speech and audio models as a deployment exports them
(front ends computed inside the model from the waveform, CTC decoding, speaker embeddings, separation, quality
estimation, audio tagging) and anomaly detectors on windows of multivariate sensor series with the scores their
libraries compute at inference: the thirty-first zoo's pins and three libraries by other authors, whose code no earlier
zoo or sweep ran (``PINS64``: unpacked wheels like the others, never pip-installed): torchaudio 2.11.1 (the PyTorch
team, github.com/pytorch/audio: its models and transforms are plain PyTorch; the wheel's compiled libraries, which
``fetch_sources`` leaves out like every ``.so``, hold kernels for the RNN-T loss, forced alignment and IIR filtering and
a CTC prefix decoder, none of which a model here calls, and torchaudio imports without them; the wheel is PyPI's CUDA
build, ``2.11.1+cu132``, whose Python is the same), hear21passt 0.0.26 (Khaled Koutini, Jan Schlüter, Hamid Eghbal-zadeh
and Gerhard Widmer's PaSST, packaged by Khaled Koutini for the HEAR 2021 benchmark, github.com/kkoutini/passt_hear21:
the patchout audio transformer with its AugmentMelSTFT front end) and deepod 0.4.1 (Hongzuo Xu and the DeepOD
contributors, github.com/xuhongzuo/DeepOD: deep anomaly detection for tabular data and time series). Earlier zoos stood
torchaudio in with placeholder modules (39, 42) or dropped its models as compiled (60); the Python packages of its wheel
are what changed. hear21passt imports torchaudio (its kaldi mel banks and the masking transforms) and timm (in
``PINS31``: the ViT helpers). deepod imports scikit-learn at package import (its tabular detectors, metrics and data
checks; compiled, not in the venv): no model here calls it, so the user's module stands in the 10 sklearn modules deepod
names with one placeholder class for each of their 12 names, as zoo 58's does for docTR's compiled imports; SciPy,
pandas and tqdm come from the venv. deepod declares torch below 1.13; it is run here with the venv's torch as it is.
Nothing new in the ``bench`` extra.

Considered and dropped before any model was chosen (by the wheel's files, metadata and a first import): learning3d 0.2.2
(point-cloud registration and classification: DCP, PointNetLK, RPMNet, PCN, DGCNN; its wheel installs ``models``,
``ops`` and ``utils`` as top-level packages whose modules import each other with ``from .. ops import``, a relative
import beyond the top level, so the package cannot be imported as shipped), parallel-wavegan (vocoders) and
openai-whisper (no wheel, sources only), wespeaker, movinets and torchvggish (no distribution on the index),
neuralforecast 3.3.0 and pytorch-forecasting 1.8.0 (forecasters built on Lightning modules with coreforecast, ray,
scikit-learn and scikit-base around them, and pytorch-forecasting capping pandas below the venv's 3.1), nnAudio,
asteroid, demucs, speechbrain, chronos and torch_timeseries (earlier zoos'). Within torchaudio: Emformer and the RNN-T
models with RNNTBeamSearch (a streaming state and hypotheses in Python lists; one input per wrapper here), HDemucs (a
port of demucs' hybrid model; zoo 60 ran demucs' own HTDemucs and Demucs v3), HuBERT (wav2vec 2.0's encoder), DeepSpeech
and Wav2Letter (plain convolution and RNN stacks on features), SquimSubjective (a non-matching reference as a second
input) and the pretrained bundles (downloaded). Within hear21passt: the 20- and 30-second and two-level variants (the
same transformer over longer or stacked spectrograms), the timestamp embeddings (a Python loop over overlapping windows
around the exported call). Within deepod: its tabular detectors (outside this zoo's families), DeepSVDDTS, DeepSADTS,
DevNetTS and PReNetTS (the same TCN and transformer networks as the chosen ones with other losses),
DeepIsolationForestTS (its scores come from scikit-learn's isolation forests).

Dropped after the first eager run, before any migrate run: deepod's TranAD (its own TransformerEncoderLayer has no
``is_causal`` argument, which torch's TransformerEncoder now passes to each layer: a TypeError on every forward),
torchaudio's Tacotron2 inference (its prenet applies dropout with ``training=True`` in inference too, as the paper does,
so two forwards differ; with random weights every stop-gate probability also sat between 0.55 and 0.56, so at the
default threshold of 0.5 each row stopped after its first frame) and WaveRNN inference (each sample drawn by
``torch.multinomial``: not deterministic either). torchaudio's Conv-TasNet took Tacotron2's place.

11 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 62 or
in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT deployment (mel
spectrograms by ``torch.stft`` inside the model, the kaldi mel banks rebuilt on every forward from Python floats,
``torch.randint(...).item()`` drawn in eval too, a debug flag kept in a module global, position embeddings cut to the
input's time patches, relative position buckets from logarithms, key padding masks built from lengths, greedy CTC with a
shifted comparison, padding to the encoder's hop, dual-path chunks as overlapping views, FFT periods chosen by ``topk``
and read back as NumPy integers to fold the series into 2-D by them, Gaussian priors from a distance matrix filled in a
Python double loop, KL divergences summed over a Python list of layers, weight-normalised causal convolutions with
chomped padding). torchaudio, on 16 kHz mono waveforms: ``wav2vec2_model`` (group-norm feature extractor narrowed to 32
channels, 2 post-norm layers of 64, a CTC head of 29; 0.12 M parameters) and greedy CTC (log-probabilities, each frame's
token, the emit mask: not blank, not a repeat); ``wavlm_model`` (layer-norm extractor, 2 pre-norm layers of 64, gated
relative position bias over 32 buckets; 0.12 M) mean-pooled over frames and L2-normalised as a speaker embedding;
MelSpectrogram (80 bands, 25 ms windows, a 10 ms hop), log, ``Conformer`` (2 layers of 80, 4 heads, a depthwise kernel
of 15, every frame valid) and the user's linear CTC head with greedy CTC (0.18 M); ``ConvTasNet`` (64 learned filters of
16 samples, a TCN masker of 2 stacks of 4, sigmoid masks; 0.06 M) separating two speakers from (batch, 1, time);
``squim_objective_model`` (a learned encoder of 64, 2 dual-path LSTM blocks over chunks of 30; 0.47 M): STOI, wide-band
PESQ and SI-SDR of each waveform without a reference. hear21passt, on 32 kHz mono waveforms: PaSST as its
``get_basic_model`` assembles it (AugmentMelSTFT with the package's settings, ``PasstBasicWrapper`` in mode "all"), the
transformer small (2 layers of 64, 4 heads, overlapping 16x16 patches at a stride of 10, the 998-frame position
embeddings of 10 s clips, 527 AudioSet classes; 0.16 M): the tag probabilities (sigmoid) and the clip embedding. deepod,
on windows of 30 steps of 8 sensors, each with the score its ``decision_function`` or ``inference`` computes (written in
the wrapper as the library writes it, on tensors): AnomalyTransformerModel (3 anomaly-attention layers of 64; 0.08 M)
with the association discrepancy at temperature 50 softmaxed over the window times each step's reconstruction error;
TimesNetModel (2 TimesBlocks of 32, top 5 periods, Inception blocks of 6 kernels; 1.17 M): the reconstruction and the
last step's squared error per sensor; COUTANet (a dilated causal TCN of 32, two one-class heads; 0.006 M): both heads'
squared distances to the hypersphere's centre, which the wrapper sets as COUTA's ``set_c`` does (the mean representation
of 64 seeded random windows, entries under 0.1 in magnitude pushed to +-0.1; COUTA's fit takes it from training
windows); TcnAE as TcnED scores it (encoder of 32 and embedding of 32, transposed decoder; 0.018 M): the reconstruction
and the last step's absolute error summed over the sensors; UsadModel (deepod's default width of 100 per step, so the
flattened window of 240 is encoded into 3000; 0.65 M): USAD's 0.5/0.5 mix of both decoders' squared errors. All inputs
are in [0, 1).

Each has the dynamic axes a deploying user declares: batch and time for the waveform models (1 s clips: 16000 samples,
32000 for PaSST, whose time patches and position embeddings take any length up to 10 s), batch and steps for COUTA and
TcnED (causal convolutions over any window length), the batch alone for AnomalyTransformer (its prior's distance matrix
is built for the window size), TimesNet (it pads the folded series to the configured ``seq_len``) and USAD (its first
layer takes the flattened window). BatchNorm statistics come from the calibration pass for the Conformer, the only model
with BatchNorm (in its convolution modules); the others have LayerNorm or GroupNorm, or no normalisation. No output is
set-valued. The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite
outputs, outputs differing across the batch) before the first migrate run, with a source tree unpacked by
``fetch_sources`` from ``PINS64`` and ``make_zoo``: at the spec's size, one more in the batch, larger dynamic sizes
(waveforms of 24001 and 40000 samples, PaSST's of 48001 and 96000, windows of 61 steps for COUTA and TcnED; the other
deepod models the batch alone) and both; with one thread on the shared two cores, each model in its own process (load
average 1.8 to 2.8), the best of two forwards at the spec's size took 0.003 s for wav2vec 2.0, 0.005 s WavLM, 0.003 s
the Conformer, 0.019 s Conv-TasNet, 0.024 s Squim, 0.004 s PaSST, 0.002 s AnomalyTransformer, 0.026 s TimesNet, under
0.001 s COUTA, 0.001 s TcnED and under 0.001 s USAD; at the larger sizes with a batch of 3 at most 0.010, 0.015, 0.009,
0.059, 0.22, 0.017, 0.003 (batch 3), 0.027 (batch 3), 0.001, 0.001 and 0.001 s (batch 3); builds took 2.4 to 3.7 s (2.5
to 4.5 s in a second run, the calibration included), nearly all of it importing the three libraries (they share one
import block). Odd, left as the libraries have them: PaSST's front end draws ``torch.randint(...).item()`` for its
frequency-range augmentation on every forward and discards the draws in eval mode, prints its tensors' shapes on the
first forward (a module-level ``first_RUN`` flag), warns when the spectrogram's time size differs from the 998 frames it
was built for, and runs the mel product under the deprecated ``torch.cuda.amp.autocast``; TimesNet chooses its periods
from the FFT amplitudes averaged over the whole batch, so each window's output depends on the other windows in the batch
(its first window's score changed by 0.004, and its reconstruction by 0.02, when a third window joined); the Squim
estimates differ across the batch by only 1e-5 to 4e-4 with random weights; COUTA and TcnED build their convolutions
with the deprecated ``torch.nn.utils.weight_norm``; AnomalyTransformer keeps its distance matrix as a plain tensor
attribute (not a buffer) made on the ``device`` its constructor is given ("cpu" here)."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and three libraries by other authors, unpacked wheels like the others (never
#: pip-installed): torchaudio (the PyTorch team's audio models: its Python packages only, the compiled libraries left
#: out by ``fetch_sources``), hear21passt (Khaled Koutini's PaSST audio tagger with its mel front end) and deepod
#: (Hongzuo Xu's deep anomaly detectors for time series).
PINS64 = {**PINS31, "torchaudio": "2.11.1", "hear21passt": "0.0.26", "deepod": "0.4.1"}

#: The user's inputs: mono waveforms (batch, time), token rows (batch, tokens) read as symbol ids, and windows of a
#: multivariate series (batch, steps, features), all in [0, 1).
_BT = 'dynamic_axes = { x = { 0 = "batch", 1 = "time" } }'
_B = 'dynamic_axes = { x = { 0 = "batch" } }'

# ---------------------------------------------------------------------------------------------------------------
# deepod imports scikit-learn at package import (its tabular detectors, metrics and data helpers: compiled, not in the
# venv); no model here calls it, so the user's module stands in the 10 sklearn modules it names with placeholders.
# SciPy, pandas and tqdm come from the venv; timm (hear21passt's ViT helpers) from the earlier pins.
_GEN = '''import importlib.machinery
import importlib.util

# scikit-learn: deepod imports it at package import for its tabular detectors, metrics and data checks; no model
# here calls it. Each module named below becomes an empty module with a spec, holding a placeholder for each name.
_SKLEARN = {
    "sklearn": [],
    "sklearn.base": ["clone"],
    "sklearn.metrics": ["roc_auc_score"],
    "sklearn.utils": ["check_array", "check_X_y", "check_random_state", "check_consistent_length"],
    "sklearn.utils.random": ["sample_without_replacement"],
    "sklearn.neighbors": ["KDTree"],
    "sklearn.ensemble": ["IsolationForest"],
    "sklearn.preprocessing": ["StandardScaler"],
    "sklearn.decomposition": ["PCA"],
    "sklearn.model_selection": ["train_test_split"],
}


class _NotInstalled:
    """A name from scikit-learn, which is not installed: nothing here calls it."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError("scikit-learn is not installed")


for _name, _names in _SKLEARN.items():
    if _name not in sys.modules:
        _module = importlib.util.module_from_spec(importlib.machinery.ModuleSpec(_name, None))
        for _attr in _names:
            setattr(_module, _attr, _NotInstalled)
        sys.modules[_name] = _module
        if "." in _name:
            setattr(sys.modules[_name.rsplit(".", 1)[0]], _name.rsplit(".", 1)[1], _module)

import torch.nn.functional as F
import torchaudio
from torchaudio.models import Conformer, ConvTasNet, squim_objective_model, wav2vec2_model, wavlm_model
from hear21passt.models.passt import PaSST
from hear21passt.models.preprocess import AugmentMelSTFT
from hear21passt.wrapper import PasstBasicWrapper
from deepod.models.time_series.anomalytransformer import AnomalyTransformerModel, my_kl_loss
from deepod.models.time_series.couta import COUTANet
from deepod.models.time_series.timesnet import TimesNetModel
from deepod.models.time_series.usad import UsadModel
from deepod.core.networks.ts_network_tcn import TcnAE

#: A CTC vocabulary of 29 (blank, space, apostrophe and 26 letters), as torchaudio's English ASR bundles have.
VOCAB = 29
#: The windows the anomaly detectors score: 30 steps of 8 sensors.
STEPS, SENSORS = 30, 8

#: wav2vec 2.0's seven convolutions (channels, kernel, stride), narrowed to 32 channels: a stride of 320 samples.
FEATURE_CONVS = [(32, 10, 5)] + [(32, 3, 2)] * 4 + [(32, 2, 2)] * 2


def ctc_greedy(emissions):
    """The tensor half of a greedy CTC decoder: log-probabilities, each frame's token, and which frames emit one (not
    the blank, not a repeat of the frame before)."""
    log_probs = emissions.log_softmax(-1)
    tokens = log_probs.argmax(-1)
    previous = F.pad(tokens[:, :-1], (1, 0), value=-1)
    emit = (tokens != 0) & (tokens != previous)
    return log_probs, tokens, emit


class Wav2Vec2CTC(torch.nn.Module):
    """A small wav2vec 2.0 (group-norm feature extractor, 2 post-norm transformer layers of 64) with a CTC head of 29,
    as torchaudio's ASR bundles build it, and greedy CTC on its emissions."""

    def __init__(self):
        super().__init__()
        self.model = wav2vec2_model(
            extractor_mode="group_norm", extractor_conv_layer_config=FEATURE_CONVS, extractor_conv_bias=False,
            encoder_embed_dim=64, encoder_projection_dropout=0.0, encoder_pos_conv_kernel=32,
            encoder_pos_conv_groups=4, encoder_num_layers=2, encoder_num_heads=4, encoder_attention_dropout=0.0,
            encoder_ff_interm_features=128, encoder_ff_interm_dropout=0.0, encoder_dropout=0.0,
            encoder_layer_norm_first=False, encoder_layer_drop=0.0, aux_num_out=VOCAB)

    def forward(self, wav):
        emissions, _ = self.model(wav)
        return ctc_greedy(emissions)


class WavLMSpeaker(torch.nn.Module):
    """A small WavLM (layer-norm-first feature extractor, 2 layers of 64 with gated relative position bias over 32
    buckets) as a speaker-embedding front end: the last layer's frames averaged over time, L2-normalised."""

    def __init__(self):
        super().__init__()
        self.model = wavlm_model(
            extractor_mode="layer_norm", extractor_conv_layer_config=FEATURE_CONVS, extractor_conv_bias=True,
            encoder_embed_dim=64, encoder_projection_dropout=0.0, encoder_pos_conv_kernel=32,
            encoder_pos_conv_groups=4, encoder_num_layers=2, encoder_num_heads=4, encoder_num_buckets=32,
            encoder_max_distance=100, encoder_attention_dropout=0.0, encoder_ff_interm_features=128,
            encoder_ff_interm_dropout=0.0, encoder_dropout=0.0, encoder_layer_norm_first=True,
            encoder_layer_drop=0.0, aux_num_out=None)

    def forward(self, wav):
        frames, _ = self.model(wav)
        return F.normalize(frames.mean(1), dim=-1)


class ConformerCTC(torch.nn.Module):
    """An ASR front end and encoder: torchaudio's MelSpectrogram (80 bands, 25 ms windows, 10 ms hop at 16 kHz), log
    compression, a 2-layer Conformer of 80 with every frame valid, and the user's linear CTC head with greedy CTC."""

    def __init__(self):
        super().__init__()
        self.mel = torchaudio.transforms.MelSpectrogram(sample_rate=16000, n_fft=400, hop_length=160, n_mels=80)
        self.encoder = Conformer(input_dim=80, num_heads=4, ffn_dim=128, num_layers=2, depthwise_conv_kernel_size=15)
        self.head = torch.nn.Linear(80, VOCAB)

    def forward(self, wav):
        features = (self.mel(wav) + 1e-6).log().transpose(1, 2)
        lengths = torch.full((features.shape[0],), features.shape[1], dtype=torch.long, device=features.device)
        encoded, _ = self.encoder(features, lengths)
        return ctc_greedy(self.head(encoded))


class SeparateTwo(torch.nn.Module):
    """Conv-TasNet (small: a learned encoder of 64 filters of 16 samples with a hop of 8, a TCN mask generator of 2
    stacks of 4 layers, 2 sources) separating two speakers; torchaudio pads the input to its hop and trims back."""

    def __init__(self):
        super().__init__()
        self.model = ConvTasNet(num_sources=2, enc_kernel_size=16, enc_num_feats=64, msk_kernel_size=3,
                                msk_num_feats=32, msk_num_hidden_feats=64, msk_num_layers=4, msk_num_stacks=2,
                                msk_activate="sigmoid")

    def forward(self, wav):
        return self.model(wav)


class SquimQuality(torch.nn.Module):
    """TorchAudio-Squim's reference-free speech quality estimator (small: a learned encoder of 64, 2 dual-path LSTM
    blocks over chunks of 30): STOI, wide-band PESQ and SI-SDR for each waveform."""

    def __init__(self):
        super().__init__()
        self.model = squim_objective_model(feat_dim=64, win_len=64, d_model=64, nhead=4, hidden_dim=64,
                                           num_blocks=2, rnn_type="LSTM", chunk_size=30, chunk_stride=15)

    def forward(self, wav):
        stoi, pesq, si_sdr = self.model(wav)
        return stoi, pesq, si_sdr


class PasstTagger(torch.nn.Module):
    """PaSST audio tagging as hear21passt's ``get_basic_model`` builds it (its AugmentMelSTFT front end at 32 kHz and
    the patchout transformer on overlapping 16x16 patches, stride 10), small (2 layers of 64), with the 527 AudioSet
    classes: the tag probabilities and the clip embedding."""

    def __init__(self):
        super().__init__()
        mel = AugmentMelSTFT(n_mels=128, sr=32000, win_length=800, hopsize=320, n_fft=1024, freqm=48, timem=192,
                             htk=False, fmin=0.0, fmax=None, norm=1, fmin_aug_range=10, fmax_aug_range=2000)
        net = PaSST(img_size=(128, 998), patch_size=16, stride=10, in_chans=1, num_classes=527, embed_dim=64,
                    depth=2, num_heads=4)
        self.model = PasstBasicWrapper(mel=mel, net=net, mode="all")
        self.classes = 527

    def forward(self, wav):
        out = self.model(wav)
        return torch.sigmoid(out[:, :self.classes]), out[:, self.classes:]


class AnomalyTransformerScore(torch.nn.Module):
    """Anomaly Transformer (anomaly attention with a learned Gaussian prior per layer, 3 layers of 64) and deepod's
    inference criterion: the association discrepancy (symmetric KL between each layer's series and normalised prior
    associations, temperature 50) softmaxed over the window, times each step's reconstruction error."""

    def __init__(self):
        super().__init__()
        self.net = AnomalyTransformerModel(win_size=STEPS, enc_in=SENSORS, c_out=SENSORS, d_model=64, n_heads=4,
                                           e_layers=3, d_ff=64, device="cpu")
        self.temperature = 50

    def forward(self, x):
        output, series, prior, _ = self.net(x)
        loss = ((x - output) ** 2).mean(-1)
        series_loss, prior_loss = 0.0, 0.0
        for s, p in zip(series, prior):
            p = p / p.sum(-1, keepdim=True).repeat(1, 1, 1, STEPS)
            series_loss = series_loss + my_kl_loss(s, p) * self.temperature
            prior_loss = prior_loss + my_kl_loss(p, s) * self.temperature
        return torch.softmax(-series_loss - prior_loss, dim=-1) * loss


class TimesNetScore(torch.nn.Module):
    """TimesNet (2 TimesBlocks of 32: the top 5 periods from the FFT's amplitudes, each fold of the series into 2-D
    convolved by Inception blocks, merged by the amplitudes' softmax) reconstructing the window; deepod's score, the
    squared error of the last step per sensor."""

    def __init__(self):
        super().__init__()
        self.net = TimesNetModel(seq_len=STEPS, pred_len=0, enc_in=SENSORS, c_out=SENSORS, e_layers=2, d_model=32,
                                 d_ff=32, dropout=0.1, top_k=5, num_kernels=6)

    def forward(self, x):
        out = self.net(x)
        return out, ((x[:, -1:, :] - out[:, -1:, :]) ** 2).squeeze(1)


class COUTAScore(torch.nn.Module):
    """COUTA (a dilated causal TCN of 32 and two one-class heads): the sum of both heads' squared distances to the
    hypersphere's centre, which deepod's ``set_c`` takes as the mean representation of training windows (here
    seeded random windows) with entries under 0.1 in magnitude pushed to +-0.1."""

    def __init__(self):
        super().__init__()
        self.net = COUTANet(input_dim=SENSORS, hidden_dims=32, rep_hidden=32, pretext_hidden=16, n_output=10,
                            kernel_size=2, dropout=0.2, out_dim=2, dup=True, pretext=True).eval()
        generator = torch.Generator().manual_seed(11)
        with torch.no_grad():
            c = self.net(torch.rand(64, STEPS, SENSORS, generator=generator))[0].mean(0)
        c[(c.abs() < 0.1) & (c < 0)] = -0.1
        c[(c.abs() < 0.1) & (c >= 0)] = 0.1
        self.register_buffer("c", c)

    def forward(self, x):
        rep, rep_dup, _ = self.net(x)
        return ((rep - self.c) ** 2).sum(1) + ((rep_dup - self.c) ** 2).sum(1)


class TcnEDScore(torch.nn.Module):
    """TcnED (a TCN autoencoder: dilated causal convolutions down to 32, transposed ones back): the reconstruction and
    deepod's score, the absolute error of the last step summed over the sensors."""

    def __init__(self):
        super().__init__()
        self.net = TcnAE(n_features=SENSORS, n_hidden=32, n_emb=32, activation="ReLU", bias=False, kernel_size=3,
                         dropout=0.2)

    def forward(self, x):
        output, _ = self.net(x)
        return output, (output[:, -1] - x[:, -1]).abs().sum(1)


class USADScore(torch.nn.Module):
    """USAD (two adversarially trained autoencoders sharing an encoder, on the flattened window; deepod's default
    hidden width of 100 per step): deepod's ``testing`` score, 0.5 of the first decoder's squared error plus 0.5 of
    the second decoder's error on the first one's reconstruction."""

    def __init__(self):
        super().__init__()
        self.net = UsadModel(STEPS * SENSORS, STEPS * 100)

    def forward(self, x):
        batch = x.reshape(x.shape[0], -1)
        w1 = self.net.decoder1(self.net.encoder(batch))
        w2 = self.net.decoder2(self.net.encoder(w1))
        return 0.5 * ((batch - w1) ** 2).mean(1) + 0.5 * ((batch - w2) ** 2).mean(1)'''

MODELS64 = [
    # torchaudio: speech recognition, speaker embedding, separation and speech quality.
    Spec("torchaudio_wav2vec2_ctc", "torchaudio wav2vec2_model (small: group-norm extractor, 2 layers of 64, CTC head "
         "of 29) with greedy CTC: log-probabilities, tokens and the emit mask", _GEN, "Wav2Vec2CTC()",
         "return self.m(x)", "2, 16000", _BT),
    Spec("torchaudio_wavlm_speaker", "torchaudio wavlm_model (small: gated relative position bias over 32 buckets, 2 "
         "layers of 64) mean-pooled and L2-normalised as a speaker embedding", _GEN, "WavLMSpeaker()",
         "return self.m(x)", "2, 16000", _BT),
    Spec("torchaudio_conformer_ctc", "torchaudio MelSpectrogram, log and Conformer (2 layers of 80, lengths of every "
         "frame) with a linear CTC head and greedy CTC", _GEN, "ConformerCTC()", "return self.m(x)", "2, 16000", _BT,
         calibrate="self.m(xb)"),
    Spec("torchaudio_convtasnet_separate", "torchaudio ConvTasNet (small: 64 learned filters, TCN masker of 2 stacks "
         "of 4, sigmoid masks): two speakers from a mono mixture", _GEN, "SeparateTwo()", "return self.m(x)",
         "2, 1, 16000", 'dynamic_axes = { x = { 0 = "batch", 2 = "time" } }'),
    Spec("torchaudio_squim_objective", "torchaudio squim_objective_model (small: learned encoder of 64, 2 dual-path "
         "LSTM blocks): STOI, PESQ and SI-SDR without a reference", _GEN, "SquimQuality()", "return self.m(x)",
         "2, 16000", _BT),
    # hear21passt: audio tagging with its own mel front end.
    Spec("passt_audio_tagging", "hear21passt PaSST (AugmentMelSTFT at 32 kHz, patchout transformer on overlapping "
         "patches, 2 layers of 64, 527 classes): tag probabilities and clip embedding", _GEN, "PasstTagger()",
         "return self.m(x)", "2, 32000", _BT),
    # deepod: anomaly scores of multivariate sensor windows.
    Spec("deepod_anomaly_transformer", "deepod AnomalyTransformerModel (3 anomaly-attention layers of 64) with the "
         "association-discrepancy criterion: per-step scores", _GEN, "AnomalyTransformerScore()", "return self.m(x)",
         "2, 30, 8", _B),
    Spec("deepod_timesnet", "deepod TimesNetModel (2 TimesBlocks: FFT top-5 periods, 2-D Inception convolutions): "
         "reconstruction and last-step scores", _GEN, "TimesNetScore()", "return self.m(x)", "2, 30, 8", _B),
    Spec("deepod_couta", "deepod COUTANet (dilated causal TCN, two one-class heads) with the distance to its "
         "hypersphere centre", _GEN, "COUTAScore()", "return self.m(x)", "2, 30, 8",
         'dynamic_axes = { x = { 0 = "batch", 1 = "steps" } }'),
    Spec("deepod_tcned", "deepod TcnAE (TCN autoencoder) as TcnED scores it: reconstruction and last-step L1 score",
         _GEN, "TcnEDScore()", "return self.m(x)", "2, 30, 8", 'dynamic_axes = { x = { 0 = "batch", 1 = "steps" } }'),
    Spec("deepod_usad", "deepod UsadModel (shared encoder, two decoders on the flattened window) with USAD's combined "
         "reconstruction score", _GEN, "USADScore()", "return self.m(x)", "2, 30, 8", _B),
]

if __name__ == "__main__":
    main(MODELS64, "real_zoo64", PINS64)
