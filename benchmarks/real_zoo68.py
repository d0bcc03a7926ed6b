"""A sixty-eighth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo68.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, outside computer vision: forecasting models as a forecasting service
calls them (their library's own prediction step, with its windowing, scaling and inverse scaling) and a speech stack
as a voice service deploys it (recognition from audio and from features, voice activity detection, speaker embeddings,
each with its library's tensor front end): the thirty-first zoo's pins, the Python packages of the dependencies the
two libraries import (torchaudio 2.11.1 as zoos 64 and 66 unpacked it; PyTorch Lightning 2.6.6, by Lightning AI, with
zoo 57's torchmetrics 1.9.0 and lightning-utilities 0.15.3; utilsforecast 0.2.17, Nixtla's data utilities, and
narwhals 2.29.0, Marco Gorelli's dataframe layer, which it imports) and two libraries by authors whose code no earlier
zoo or sweep ran (``PINS68``: unpacked wheels like the others, never pip-installed): neuralforecast 3.3.0 (Nixtla: Kin
G. Olivares, Cristian Challu, Federico Garza, Max Mergenthaler-Canseco and others, github.com/Nixtla/neuralforecast,
Apache-2.0: deep-learning forecasting models behind a common base model with its own windowing, scalers and prediction
loop) and funasr 1.4.16 (the Speech Lab of Alibaba's DAMO Academy: Zhifu Gao, Shiliang Zhang and others,
github.com/modelscope/FunASR, MIT: industrial speech recognition, VAD, punctuation and speaker models).
neuralforecast's package import pulls in its ``NeuralForecast`` driver and its hyperparameter search: the driver
imports coreforecast (compiled scalers and grouped arrays for the data frames, not in the venv) and the search imports
Ray Tune (the venv has ray, but ``ray.air`` imports pyarrow, which it has not); no model here calls either, so the
user's module stands both in with modules that have a module spec and placeholder classes for the imported names (one
of them, ``BasicVariantGenerator(random_state=1)``, is a default argument and is built at import). funasr's package
import imports every submodule it has and records the ones that fail without raising (60 here: hydra, whisper,
soundfile, jamo, jaconv, scikit-learn and others, none of them on the chosen models' path); the modules the chosen
models import need librosa and kaldiio (audio file loading; librosa needs numba, compiled, and neither is in the venv)
and rapidfuzz (compiled edit distances for metrics and hotwords): the user's module stands those in too.
neuralforecast reads its version from its dist-info (``importlib.metadata``), which ``fetch_sources`` unpacks beside
it; funasr reads a ``version.txt`` in its package. NumPy, SciPy, pandas, fsspec, PyYAML, OmegaConf, regex and tqdm
come from the venv. Nothing new in the ``bench`` extra.

Considered and dropped before any model was chosen (by the wheel's files, metadata and a first import): movinets and
pytorchvideo (no wheel on the index), torchxrayvision 1.5.7 (medical imaging: its package import needs scikit-image
and imageio, not in the venv, the wheel is 29 MB of dataset label files, and its models are DenseNet and ResNet
classifiers, the detection and anatomy baselines downloading weights in their constructors). Zoos 41 and 64 dropped
neuralforecast 3.3.0 unread for its dependencies (Lightning modules with coreforecast, Ray and scikit-learn around
them); the unpacked Lightning wheel and the stand-ins above are what changed (scikit-learn is not imported on the
chosen models' path). Within neuralforecast: Informer (its ProbSparse attention samples keys with ``torch.randint`` on
every call, so two forwards differ), DeepAR and every model with a distribution loss (prediction draws samples for the
mean and quantiles: random), FEDformer (the same decomposition-and-frequency family as Autoformer, with random Fourier
modes chosen at construction; it also insists on 8 heads), TimeLLM (downloads a language model), xLSTM (needs the
xlstm package), HINT (reconciles a hierarchy around another model), DLinear, NLinear, MLP, BiTCN, TiDE, TCN, GRU, RNN,
DilatedRNN, KAN, DeepNPTS, NBEATSx, VanillaTransformer, TimeXer, TimeMixer, TSMixer(x), SOFTS, StemGNN, RMoK, XLinear
and MLPMultivariate (left out to keep the zoo small: one model of each kind is kept: basis expansion, hierarchical
interpolation, attention with gating, patching, spectral periods, auto-correlation, a recurrent loop and attention
across series), its ``fit``, Trainer, data module, ``NeuralForecast`` driver (pandas and coreforecast on data frames),
explanations (Captum) and the recursive prediction of horizons longer than the trained one. Within funasr: the
LLM-based recognisers (Fun-ASR-Nano, Qwen-Audio, GLM-ASR, Qwen3-ASR, LLM-ASR: language-model weights), Whisper (the
openai-whisper package), the punctuation models (CT-Transformer and its streaming variant: text in), emotion2vec,
SeACo-Paraformer and Contextual Paraformer (hotword lists), BiCIF Paraformer (timestamps: the same CIF again), the
streaming Paraformer (chunk caches kept in Python dicts across calls), Conformer, Branchformer, E-Branchformer and
transducers (other encoders or search loops), ERes2Net (a second speaker network), the keyword spotters, the VAD's
state machine (Python on floats over the scores), the speaker diarisation clustering (scikit-learn), the tokenizers
and the library's own ``export_meta`` rewrites of each model for ONNX (the user exports the inference path, not a
graph the authors already rewrote for export).

12 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 67
or in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT deployment
(a dict batch with a pandas ``Index`` of column names read by ``get_loc``, Python branches on the history's length
with zero padding on the left, ``unfold`` into windows, ``int(np.ceil(...))`` batch counts and ``np.append`` of column
indices, in-place assignment into slices and by index lists, a temporal scaler that stores its shift and scale on the
module during the call and reads them back to invert the forecast, a recurrent loop over the horizon that sets ``h``,
``maintain_state`` and ``rnn_state`` on the module and writes each step into a preallocated tensor, interpolation of
coefficients to the horizon, bases built with NumPy, the spectrum's top-k periods moved to NumPy and used as Python
ints to pad and fold the series, auto-correlation by ``rfft``/``irfft`` with top-k delays gathered in a loop, patches
by ``unfold`` with reversible instance normalisation; a per-utterance Python loop over the batch with Kaldi
filterbanks (framing by strides, DC removal, pre-emphasis, Hamming or Povey windows, power spectra, mel banks and
logs), low-frame-rate stacking with ``np.ceil``, ``vstack`` of repeated rows and ``as_strided``, ``pad_sequence``,
query embeddings of constant ``LongTensor`` ids, SANM attention with FSMN memory convolutions masked by lengths, CTC
log-softmax and argmax, CIF integration by a float64 ``cumsum`` with a Python branch on whether anything fired,
boolean-mask gathers, rolls and a scatter into a zero tensor whose length is a maximum of rounded sums, a crop by
``.item()``, decoder masks from token counts, a streaming cache dict filled with zeros on the first call and returned,
segment pooling with ``ceil_mode`` expanded and cropped back to the length, statistics pooling). neuralforecast, each
model behind the user's ``Forecaster``, which turns a request of histories (one series a row, oldest first, no gaps,
in [0, 1)) into the batch neuralforecast's data loader builds (target and availability mask along time, the column
index) and calls the model's own ``predict_step``, set up as ``NeuralForecast.predict`` sets it up; each forecasts 12
steps from a window of 48, with the library's own defaults elsewhere: NHITS with MQLoss (the median and the 80 % and
90 % intervals: 5 outputs a step; 3 stacks pooling by 2, 2 and 1 with 3, 6 and 12 knots, MLPs of 64; robust scaling;
60 k parameters), interpretable NBEATS (identity, trend and seasonality stacks, a polynomial trend basis of 2, 2
harmonics; standard scaling; 55 k), TFT (hidden 32, 4 heads; robust; 56 k), PatchTST (patches of 8 with a stride of 4,
2 layers of 32, RevIN; 22 k), TimesNet (top 3 periods, 2 layers of inception blocks of 16; standard; 296 k),
Autoformer (hidden 32, one encoder and one decoder layer; robust; 17 k) and the LSTM in its recurrent mode (an LSTM of
32 projected to the next value, stepped over the horizon; robust; 1.1 k) on batches of univariate series; iTransformer
(2 layers of 32 over the 7 series as tokens; 19 k) on a panel of 7 series forecast together. funasr (16 kHz;
vocabularies of 300 tokens where the released models have thousands; random weights): SenseVoice-Small's recognition
from audio (the frontend: 80 mels, 7 frames stacked with a shift of 6, dither 0, no CMVN file; the language "auto",
event, emotion and text-normalisation queries before the features; the SenseVoice SANM encoder, 128 wide: 3 blocks,
then 1 block of its second stack; CTC log-probabilities, greedy ids and lengths; 0.75 M), Paraformer's
non-autoregressive recognition from 560-dimensional LFR features (SANM encoder of 3 blocks of 128, CIF predictor with
a tail threshold of 0.45, SANM decoder of 2 blocks; log-probabilities, greedy ids and token counts; 1.61 M),
FSMN-VAD's network from audio (80 mels, 5 frames stacked: 400; the released model's FSMN: 4 memory blocks of left
order 20, 248 softmax states; the frame scores and the streaming cache of 4 layers; 0.43 M) and CAM++ speaker
embeddings from audio (``extract_feature``'s per-utterance filterbanks, mean-normalised and padded; the released
model's sizes: 192-dimensional embeddings, 6.85 M; BatchNorm statistics from the calibration pass, without which the
embeddings' entries are about 0.004).

Each is small and has the dynamic axes a deploying user declares: series and time for the univariate forecasters (the
time axis is the history: the prediction step keeps its last 48 values and pads a shorter one with zeros on the left,
masked out of the scaling); time only for iTransformer (its series are the panel's 7, fixed at construction); batch
and time for the three models on audio (16000 samples at the spec's size) and batch and frames for Paraformer (60
frames). All inputs are in [0, 1). Set-valued outputs: none. Outputs: (series, 12, 1, 5) for NHITS, (series, 12, 1)
for the other univariate forecasters, (1, 12, 7) for iTransformer (windows, horizon, series); (batch, 4 + LFR frames,
300) float log-probabilities, (batch, 4 + LFR frames) int64 ids and (batch,) int32 lengths for SenseVoice (21
positions at 16000 samples); (batch, tokens, 300), (batch, tokens) int64 ids and (batch,) int64 token counts for
Paraformer, where ``tokens`` is the batch's largest rounded count (32 for 60 frames, 79 or 80 for 150) and a row's ids
past its own count are padding (the library crops each row by its count, in Python); (batch, frames, 248) scores and
(4, batch, 128, 19, 1) cache for FSMN-VAD; (batch, 192) for CAM++. The wrappers were checked only for building and
running eagerly (deterministic over two forwards, finite outputs, outputs differing across the batch, or across the
panel's series for iTransformer) before any migrate run, with a source tree unpacked by ``fetch_sources`` from
``PINS68`` and ``make_zoo``, each model in its own process with one thread on the two cores shared with other
sessions: at the spec's size, one more in the batch and larger dynamic sizes with both batches (histories of 240 and,
shorter than the window, 30; 48000 samples; 150 frames). Every import takes 3 to 7 s, load varying (neuralforecast
with Lightning, pandas and utilsforecast; funasr with its 60 failing submodules and torchaudio); building under 0.03
s, CAM++ 0.25 s with its calibration; every forward under 0.03 s except TimesNet's (up to 0.07 s) and CAM++'s (0.04 to
0.13 s at 16000 to 48000 samples, batches of 2 and 3); peak memory 0.42 to 0.53 GB a process. Odd, left as the
libraries have them: neuralforecast's base model seeds the global generators at construction (Lightning's
``seed_everything(1)``, printing "Seed set to 1"), so its random weights come from seed 1 whatever the wrapper seeded;
the recurrent LSTM has an LSTM with ``proj_size=1`` (its output is the next value), which PyTorch warns oneDNN does
not support; the univariate forecasts keep a series axis of 1; funasr prints "Please install torch_complex firstly" 24
times and torchaudio's ffmpeg notice at import; its frontend takes each utterance's frame length as ``min(25, samples
/ fs * 1000)`` of a tensor element; with random weights the recognisers' log-probabilities are close to uniform (a
mean of -5.86 against log 1/300 = -5.70), FSMN-VAD's scores are close to 1/248 and CIF fires about every other encoder
frame; SenseVoice's lengths are int32 where Paraformer's token counts are int64."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins, the Python packages of the dependencies the two new libraries import (torchaudio as
#: zoos 64 and 66 unpacked it; PyTorch Lightning with the torchmetrics and lightning-utilities of zoo 57; Nixtla's
#: utilsforecast and the narwhals dataframe layer it imports) and two libraries by authors no earlier zoo ran, unpacked
#: wheels like the others (never pip-installed): neuralforecast (Nixtla: deep-learning forecasting models) and funasr
#: (the Speech Lab of Alibaba's DAMO Academy: speech recognition, voice activity detection, speaker embeddings).
PINS68 = {**PINS31, "torchaudio": "2.11.1", "lightning_utilities": "0.15.3", "torchmetrics": "1.9.0",
          "pytorch_lightning": "2.6.6", "narwhals": "2.29.0", "utilsforecast": "0.2.17", "neuralforecast": "3.3.0",
          "funasr": "1.4.16"}

#: The user's inputs, all in [0, 1): a batch of univariate series (series, time), one panel of 7 related series
#: (7, time), mono 16 kHz waveforms (batch, time) and low-frame-rate filterbank features (batch, frames, 560).
_BT = 'dynamic_axes = { x = { 0 = "batch", 1 = "time" } }'
_T = 'dynamic_axes = { x = { 1 = "time" } }'
_BF = 'dynamic_axes = { x = { 0 = "batch", 1 = "frames" } }'

# A helper both import blocks define: an empty module registered under a name, with a module spec (so that
# ``importlib.util.find_spec`` answers) and the names a library imports from it.
_STAND_IN = '''import importlib.machinery
import importlib.util


def _stand_in(name, **names):
    """An empty module with a spec, registered under ``name``, holding ``names``."""
    if name not in sys.modules:
        module = importlib.util.module_from_spec(importlib.machinery.ModuleSpec(name, None))
        module.__dict__.update(names)
        sys.modules[name] = module
    return sys.modules[name]


class _Placeholder:
    """A name a stand-in hands out: importable, constructible (a default argument may build one), never used."""

    def __init__(self, *args, **kwargs):
        pass
'''

# ---------------------------------------------------------------------------------------------------------------
# neuralforecast's package import pulls in its ``NeuralForecast`` driver (core.py) and its hyperparameter search
# (common/_base_auto.py). The driver imports coreforecast (compiled scalers and grouped arrays, the data side: not
# in the venv) and the search imports Ray Tune (the venv's ray cannot import ``ray.air``: it needs pyarrow, not in
# the venv). No model here calls either (the user runs the model's own predict step, below), so the user's module
# stands them in, with placeholder classes for the names imported (``BasicVariantGenerator(random_state=1)`` is a
# default argument, built at import). PyTorch Lightning, torchmetrics, lightning-utilities, utilsforecast and
# narwhals are the pinned wheels' Python code; NumPy, pandas, fsspec, PyYAML and tqdm come from the venv.
_NF = _STAND_IN + '''
_stand_in("coreforecast")
_stand_in("coreforecast.grouped_array", GroupedArray=_Placeholder)
_stand_in("coreforecast.scalers", LocalBoxCoxScaler=_Placeholder, LocalMinMaxScaler=_Placeholder,
          LocalRobustScaler=_Placeholder, LocalStandardScaler=_Placeholder)
_ray = _stand_in("ray")
_ray.air = _stand_in("ray.air")
_ray.tune = _stand_in("ray.tune")
_stand_in("ray.tune.integration")
_stand_in("ray.tune.integration.pytorch_lightning", TuneReportCallback=_Placeholder)
_stand_in("ray.tune.search")
_stand_in("ray.tune.search.basic_variant", BasicVariantGenerator=_Placeholder)

import pandas as pd
from neuralforecast.losses.pytorch import MQLoss
from neuralforecast.models import LSTM, NBEATS, NHITS, TFT, Autoformer, PatchTST, TimesNet, iTransformer

#: The forecast: the next 12 steps from the last 48 of each series (the panel: of each of its 7 series).
HORIZON, WINDOW, PANEL = 12, 48, 7


class Forecaster(torch.nn.Module):
    """A forecasting service: each request is the recent history of some series (one row each, oldest first, no
    gaps), and the answer is the model's forecast as ``NeuralForecast.predict`` computes it: the batch that
    neuralforecast's data loader builds (per series the target and its availability mask along time, the column
    index naming them), then the model's own ``predict_step``, which takes the last window of each series (padding
    a short history with zeros), normalises it with the model's temporal scaler, runs the network, maps its output
    to the loss's domain and scales the forecast back. The model is set up for prediction as ``predict`` sets it up
    (its quantiles, a step of 1, no decomposition, its own horizon, one prediction, no explanations)."""

    def __init__(self, model):
        super().__init__()
        self.model = model
        model._set_quantiles(None)
        model.predict_step_size = 1
        model.decompose_forecast = False
        model.predict_horizon = model.horizon_backup
        model.n_predicts = 1
        model.explain = False
        self.columns = pd.Index(["y", "available_mask"])

    def forward(self, history):
        temporal = torch.stack([history, torch.ones_like(history)], dim=1)  # [series, 2, time]
        batch = {"temporal": temporal, "temporal_cols": self.columns, "y_idx": 0, "static": None,
                 "static_cols": None}
        return self.model.predict_step(batch, 0)


def nhits():
    """N-HiTS with quantile outputs: the median and the 80 and 90 % intervals (MQLoss), 3 stacks pooling the window
    by 2, 2 and 1 and interpolating their coefficients from 3, 6 and 12 knots, robust scaling."""
    return Forecaster(NHITS(h=HORIZON, input_size=WINDOW, loss=MQLoss(level=[80, 90]), mlp_units=3 * [[64, 64]],
                            n_pool_kernel_size=[2, 2, 1], n_freq_downsample=[4, 2, 1], scaler_type="robust"))


def nbeats():
    """Interpretable N-BEATS: an identity stack, a trend stack (a polynomial basis of degree 2) and a seasonality stack
    (2 harmonics), standard scaling."""
    return Forecaster(NBEATS(h=HORIZON, input_size=WINDOW, stack_types=["identity", "trend", "seasonality"],
                             n_blocks=[1, 1, 1], mlp_units=3 * [[64, 64]], n_harmonics=2, basis="polynomial",
                             n_basis=2, scaler_type="standard"))


def tft():
    """The Temporal Fusion Transformer on the target alone: variable selection, LSTM encoder and decoder,
    interpretable multi-head attention, robust scaling."""
    return Forecaster(TFT(h=HORIZON, input_size=WINDOW, hidden_size=32, n_head=4, scaler_type="robust"))


def patchtst():
    """PatchTST: patches of 8 steps with a stride of 4, 2 transformer layers, RevIN."""
    return Forecaster(PatchTST(h=HORIZON, input_size=WINDOW, hidden_size=32, n_heads=4, encoder_layers=2,
                               linear_hidden_size=64, patch_len=8, stride=4, revin=True))


def timesnet():
    """TimesNet: the window's top 3 periods from its spectrum, each period folded into 2-D and convolved by inception
    blocks, the results weighted by their amplitudes; standard scaling."""
    return Forecaster(TimesNet(h=HORIZON, input_size=WINDOW, hidden_size=16, conv_hidden_size=16, top_k=3,
                               encoder_layers=2, scaler_type="standard"))


def autoformer():
    """Autoformer: series decomposition by moving averages and auto-correlation attention (delays from the FFT's
    top-k, aggregated by rolling), an encoder and a decoder layer, robust scaling."""
    return Forecaster(Autoformer(h=HORIZON, input_size=WINDOW, hidden_size=32, n_head=2, conv_hidden_size=32,
                                 encoder_layers=1, decoder_layers=1, scaler_type="robust"))


def lstm_recurrent():
    """An LSTM forecaster in its recurrent mode: the history through the encoder, then the forecast one step at a
    time, each step's prediction fed back with the kept state (``_predict_step_recurrent``); robust scaling."""
    return Forecaster(LSTM(h=HORIZON, input_size=WINDOW, encoder_hidden_size=32, decoder_hidden_size=32,
                           recurrent=True, scaler_type="robust"))


def itransformer():
    """iTransformer on a panel of 7 series forecast together: each series' window is one token, 2 layers of
    attention across the series."""
    return Forecaster(iTransformer(h=HORIZON, input_size=WINDOW, n_series=PANEL, hidden_size=32, n_heads=4,
                                   e_layers=2, d_ff=64))'''

# ---------------------------------------------------------------------------------------------------------------
# funasr's package import imports every one of its submodules (recording, not raising, the ones that fail). Those
# the chosen models need import librosa and kaldiio (its audio file loading: librosa needs numba, neither is in the
# venv) and rapidfuzz (compiled edit distances for its metrics and hotwords): no model here calls them, so the
# user's module stands them in. torchaudio (its Kaldi-compatible filterbanks) is the pinned wheel's Python code;
# NumPy, SciPy, PyYAML, OmegaConf, regex and tqdm come from the venv.
_ASR = _STAND_IN + '''
_stand_in("librosa")
_stand_in("kaldiio")
_stand_in("rapidfuzz")
_stand_in("rapidfuzz.distance", Levenshtein=_Placeholder)

from funasr.frontends.wav_frontend import WavFrontend
from funasr.models.campplus.model import CAMPPlus
from funasr.models.campplus.utils import extract_feature
from funasr.models.fsmn_vad_streaming.model import FsmnVADStreaming
from funasr.models.paraformer.model import Paraformer
from funasr.models.sense_voice.model import SenseVoiceSmall

#: A vocabulary of 300 tokens (the released models have 8404 for Paraformer and 25055 for SenseVoice).
VOCAB = 300


def whole(x):
    """Every waveform or feature row of the batch is whole: its length is the padded length."""
    return torch.full((x.shape[0],), x.shape[1], dtype=torch.long, device=x.device)


class SenseVoiceRecognizer(torch.nn.Module):
    """SenseVoice-Small's recognition as its ``inference`` runs it on 16 kHz audio: the frontend (Kaldi filterbanks
    of 80 mels per utterance, stacked 7 frames at a time with a shift of 6), the language query ("auto"), the
    event and emotion queries and the text-normalisation query ("woitn") embedded and put before the features, the
    SANM encoder (its main stack, then its second stack), the CTC head's log-probabilities and their greedy argmax
    (the tokens before CTC collapsing, which the library does per row on lists). Dither is 0 (a service answers the
    same audio the same way); no CMVN file (the released one is a download)."""

    def __init__(self):
        super().__init__()
        self.frontend = WavFrontend(fs=16000, window="hamming", n_mels=80, frame_length=25, frame_shift=10,
                                    lfr_m=7, lfr_n=6, dither=0.0)
        self.model = SenseVoiceSmall(
            encoder="SenseVoiceEncoderSmall",
            encoder_conf=dict(output_size=128, attention_heads=4, linear_units=256, num_blocks=3, tp_blocks=1,
                              input_layer="pe", normalize_before=True, kernel_size=11, sanm_shfit=0,
                              selfattention_layer_type="sanm"),
            input_size=560, vocab_size=VOCAB)

    def forward(self, audio):
        model = self.model
        speech, lengths = self.frontend(audio, whole(audio))
        batch = speech.size(0)
        language = model.embed(torch.LongTensor([[model.lid_dict["auto"]]]).to(speech.device)).repeat(batch, 1, 1)
        textnorm = model.embed(torch.LongTensor([[model.textnorm_dict["woitn"]]]).to(speech.device))
        speech = torch.cat((textnorm.repeat(batch, 1, 1), speech), dim=1)
        lengths = lengths + 1
        event_emotion = model.embed(torch.LongTensor([[1, 2]]).to(speech.device)).repeat(batch, 1, 1)
        speech = torch.cat((torch.cat((language, event_emotion), dim=1), speech), dim=1)
        lengths = lengths + 3
        encoded, encoded_lengths = model.encoder(speech, lengths)
        if isinstance(encoded, tuple):
            encoded = encoded[0]
        log_probs = model.ctc.log_softmax(encoded)
        return log_probs, log_probs.argmax(dim=-1), encoded_lengths


class ParaformerRecognizer(torch.nn.Module):
    """Paraformer's non-autoregressive recognition as its ``inference`` runs it on filterbank features (the
    ``fbank`` data type: 80 mels stacked 7 at a time, 560 a frame): the SANM encoder, the CIF predictor (weights per
    frame integrated to a threshold of 1, firing an acoustic embedding per token; the token count rounded), the SANM
    decoder over those embeddings, the log-probabilities, their greedy argmax and the token counts."""

    def __init__(self):
        super().__init__()
        self.model = Paraformer(
            encoder="SANMEncoder",
            encoder_conf=dict(output_size=128, attention_heads=4, linear_units=256, num_blocks=3, input_layer="pe",
                              normalize_before=True, kernel_size=11, sanm_shfit=0, selfattention_layer_type="sanm"),
            decoder="ParaformerSANMDecoder",
            decoder_conf=dict(attention_heads=4, linear_units=256, num_blocks=2, kernel_size=11, sanm_shfit=0),
            predictor="CifPredictorV2",
            predictor_conf=dict(idim=128, threshold=1.0, l_order=1, r_order=1, tail_threshold=0.45),
            input_size=560, vocab_size=VOCAB)

    def forward(self, features):
        model = self.model
        encoded, lengths = model.encode(features, whole(features))
        embeddings, tokens, _, _ = model.calc_predictor(encoded, lengths)
        tokens = tokens.round().long()
        log_probs, tokens = model.cal_decoder_with_predictor(encoded, lengths, embeddings, tokens)
        return log_probs, log_probs.argmax(dim=-1), tokens


class VoiceActivity(torch.nn.Module):
    """FSMN-VAD's network on 16 kHz audio, as its streaming ``inference`` runs the first chunk: the frontend (80
    mels, 5 frames stacked with a shift of 1: 400 a frame), then the FSMN encoder (the released model's sizes: 4
    memory blocks of left order 20, 248 output states, softmax) with an empty cache, which each memory block fills
    with its left context for the next chunk. Returns the frame scores and the cache (the state the next call takes),
    stacked by layer. The VAD state machine on the scores is Python on floats, not exported."""

    def __init__(self):
        super().__init__()
        self.frontend = WavFrontend(fs=16000, window="hamming", n_mels=80, frame_length=25, frame_shift=10,
                                    lfr_m=5, lfr_n=1, dither=0.0)
        self.model = FsmnVADStreaming(
            encoder="FSMN",
            encoder_conf=dict(input_dim=400, input_affine_dim=140, fsmn_layers=4, linear_dim=250, proj_dim=128,
                              lorder=20, rorder=0, lstride=1, rstride=0, output_affine_dim=140, output_dim=248))

    def forward(self, audio):
        features, _ = self.frontend(audio, whole(audio))
        cache = {}
        scores = self.model.encoder(features, cache=cache)
        return scores, torch.stack([cache[name] for name in sorted(cache)])


class SpeakerEmbedding(torch.nn.Module):
    """CAM++ speaker verification as its ``inference`` runs it on 16 kHz audio: ``extract_feature`` (Kaldi
    filterbanks of 80 mels per utterance, mean-normalised over time, padded into a batch), then the network (a 2-D
    convolutional front, the densely connected TDNN with context-aware masking and segment pooling, statistics
    pooling) to a 192-dimensional embedding; the released model's sizes."""

    def __init__(self):
        super().__init__()
        self.model = CAMPPlus(feat_dim=80, embedding_size=192)

    def forward(self, audio):
        features, _, _ = extract_feature([utterance for utterance in audio])
        return self.model(features.to(torch.float32))'''

MODELS68 = [
    # neuralforecast: univariate forecasters, each series a row.
    Spec("nf_nhits_quantiles", "neuralforecast NHITS (MQLoss: median and 80/90 % intervals, 3 stacks, robust "
         "scaling) through its predict_step", _NF, "nhits()", "return self.m(x)", "4, 96", _BT),
    Spec("nf_nbeats_interpretable", "neuralforecast NBEATS (identity, trend and seasonality stacks, standard "
         "scaling) through its predict_step", _NF, "nbeats()", "return self.m(x)", "4, 96", _BT),
    Spec("nf_tft", "neuralforecast TFT (variable selection, LSTM encoder-decoder, interpretable attention) through its "
         "predict_step", _NF, "tft()", "return self.m(x)", "4, 96", _BT),
    Spec("nf_patchtst", "neuralforecast PatchTST (patches of 8, stride 4, 2 layers, RevIN) through its predict_step",
         _NF, "patchtst()", "return self.m(x)", "4, 96", _BT),
    Spec("nf_timesnet", "neuralforecast TimesNet (top-3 FFT periods, 2-D inception blocks) through its predict_step",
         _NF, "timesnet()", "return self.m(x)", "4, 96", _BT),
    Spec("nf_autoformer", "neuralforecast Autoformer (series decomposition, auto-correlation attention) through its "
         "predict_step", _NF, "autoformer()", "return self.m(x)", "4, 96", _BT),
    Spec("nf_lstm_recurrent", "neuralforecast LSTM (recurrent: the horizon stepped with the state kept) through its "
         "predict_step", _NF, "lstm_recurrent()", "return self.m(x)", "4, 96", _BT),
    # neuralforecast: a multivariate forecaster over a fixed panel.
    Spec("nf_itransformer_panel", "neuralforecast iTransformer (a panel of 7 series, series as tokens) through its "
         "predict_step", _NF, "itransformer()", "return self.m(x)", "7, 96", _T),
    # funasr: speech recognition, voice activity, speaker embedding.
    Spec("funasr_sensevoice_ctc", "funasr SenseVoiceSmall (Kaldi fbank and LFR frontend, language/event/textnorm "
         "queries, SANM encoder, CTC log-probs and greedy ids) on 16 kHz audio", _ASR, "SenseVoiceRecognizer()",
         "return self.m(x)", "2, 16000", _BT),
    Spec("funasr_paraformer_cif", "funasr Paraformer (SANM encoder, CIF predictor, non-autoregressive SANM decoder, "
         "greedy ids and token counts) on LFR filterbank features", _ASR, "ParaformerRecognizer()",
         "return self.m(x)", "2, 60, 560", _BF),
    Spec("funasr_fsmn_vad", "funasr FSMN-VAD (fbank and LFR frontend, FSMN encoder with a streaming cache: frame "
         "scores and the next cache) on 16 kHz audio", _ASR, "VoiceActivity()", "return self.m(x)", "2, 16000", _BT),
    Spec("funasr_campplus_speaker", "funasr CAM++ speaker embedding (per-utterance Kaldi fbank, mean "
         "normalisation, D-TDNN with context-aware masking) on 16 kHz audio", _ASR, "SpeakerEmbedding()",
         "return self.m(x)", "2, 16000", _BT, calibrate="self.m(xb)"),
]

if __name__ == "__main__":
    main(MODELS68, "real_zoo68", PINS68)
