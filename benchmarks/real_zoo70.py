"""A seventieth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo70.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, outside computer vision: probabilistic forecasters as a forecasting
service calls them (the network on the last window of each history, then what the library's forecast generator makes of
its output) and audio watermarking as a voice platform deploys it (marking generated speech with a 16-bit message, in
one pass or streamed in chunks, and detecting the mark): the thirty-first zoo's pins, the Python packages of the
dependencies gluonts imports (Lightning 2.6.6, the package zoos 54 and 57 unpacked, with the torchmetrics 1.9.0 and
lightning-utilities 0.15.3 they unpacked beside it; toolz 0.12.1, the functional utilities of Matthew Rocklin and
others, which gluonts' core imports and which the venv has not) and two libraries by authors whose code no earlier zoo
or sweep ran (``PINS70``: unpacked wheels like the others, never pip-installed): gluonts 0.17.0 (Amazon: Alexander
Alexandrov, Konstantinos Benidis, Michael Bohlke-Schneider, Valentin Flunkert, Jan Gasthaus, Tim Januschowski, Danielle
Maddix, Syama Rangapuram, David Salinas, Jasper Schulz, Lorenzo Stella, Ali Caner Türkmen, Yuyang Wang and others,
github.com/awslabs/gluonts, Apache-2.0: probabilistic time-series models, their PyTorch networks behind Lightning
estimators and predictors) and audioseal 0.2.0 (Meta AI: Robin San Roman, Pierre Fernandez, Hady Elsahar, Alexandre
Défossez, Teddy Furon and Tuan Tran, github.com/facebookresearch/audioseal, MIT: localized watermarking of speech, a
SEANet generator and detector, with a bundled copy of Kyutai's moshi streaming modules). gluonts' model modules import
``gluonts.torch``, whose package import lists its estimators, and those import ``lightning.pytorch``: the pinned
Lightning wheel's Python code serves it, nothing is stood in. gluonts' metadata asks for pandas below 3 (the venv has
3.1.1): nothing on the chosen models' path failed with it. audioseal needs OmegaConf (its model cards and config
schema). NumPy, SciPy, pandas, pydantic, PyYAML, fsspec, OmegaConf and tqdm come from the venv. Nothing new in the
``bench`` extra.

Considered and dropped before any model was chosen (by the wheel's files, metadata and a first read of the imports):
deepfilternet 0.5.6 (Hendrik Schröter's speech enhancement: its networks take their ERB band widths from deepfilterlib's
compiled Rust ``DF`` object at construction and their normalisation's initial state from its ``unit_norm_init``, and its
features come from the same library: the models cannot be built without the compiled code), panns-inference and
torchlibrosa (Qiuqiang Kong's audio tagging: the log-mel layer builds its filter bank with librosa, which needs numba,
compiled and not in the venv: not read further), pyannote.audio (its package import pulls pyannote.core, .database,
.metrics and .pipeline, optuna, SpeechBrain and torch-audiomentations: not read further, two libraries were enough);
espnet, kokoro, recbole, learning3d, pytorch-forecasting, darts and tsai are libraries earlier zoos considered and
dropped. Within gluonts: DeepAR, WaveNet and DeepNPTS (their prediction draws sample paths: two forwards differ), MQF2
(needs cpflows), the MXNet models (MXNet), its estimators, Lightning modules, transformation chains (instance splitters,
time features and the age feature computed in NumPy and pandas on the data set's dates) and ``PyTorchPredictor``
(batching of data entries and forecast objects), and the Student's t quantiles of the forecast objects (``icdf`` through
SciPy on NumPy arrays: not tensor code). Within audioseal: ``AudioSeal.load_generator`` and ``load_detector`` (they
download the checkpoints: the user builds the same modules from the same model cards with random weights), the scripting
helpers, the attack and evaluation code of its repository (not in the wheel), and the audiocraft copy of SEANet (used
only below Python 3.10).

12 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 68 or
in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT deployment (the
last window of a history by a negative slice, masks of ones, mean, standard and mean-absolute scalers with ``clamp``
floors and ``where`` on the observed count, a moving average with edges padded by repeating the first and last values,
patches by ``unfold`` after replication padding, lags gathered by a list of indices into the scaled history, an
embedding of static categories, ``log1p`` and ``log`` of the scale appended to every token, variable selection networks
and an LSTM started from a static context, interpretable multi-head attention with a key padding mask from the observed
values and a mask of ones repeated over the horizon, quantile outputs rescaled and moved to (series, quantiles,
horizon), an affine-transformed Student's t whose mean and standard deviation are read from ``softplus``-mapped
arguments; calendar features from ``arange`` with ``%`` and ``//``; a message buffer repeated to the batch, embedded and
added to the hidden frames, SEANet's constant padding (the cards' mode) with the extra padding from ``math.ceil`` of the
frames a length needs, LSTM layers inside the encoder and decoder, the output cropped to the input's length, an envelope
fit that unfolds the audio and the watermark into Hann-weighted windows, folds them back per batch row and channel in a
Python loop, and handles the remainder after the last window behind a Python ``if``; a streaming context that sets state
on every module of the encoder and a Python loop over 100 ms chunks by ``torch.split``; a softmax written into a slice
in place, a mean over time, ``count_nonzero`` of thresholded scores divided by the length, bits by ``gt`` cast to int32;
and functions wrapped by moshi's ``torch_compile_lazy``, which calls ``torch.compile`` on the first call). gluonts
(hourly series, the next 12 hours from the last 48; random weights, dropout off in ``eval``), each network behind the
user's service module, which cuts the last window from the history (no gaps: observed values all ones), adds the
covariates the estimator would (the hour-of-day and day-of-week features gluonts derives for an hourly index, computed
from the position with the forecast ending at the last hour of a Sunday; a static real 0 and a static category 0, the
dummies the estimators add when a data set has none) and applies what the library's forecast generator does: for the
distribution heads the mean and standard deviation of ``distr_output.distribution(distr_args, loc, scale)``, for TFT's
quantile head the rescaling of ``QuantileForecastGenerator``. SimpleFeedForward (an MLP of 64 and 64 on the
mean-absolute-scaled window; 53 k parameters), DLinear (a moving average of 25 splitting trend and remainder, mean
scaling; 38 k), PatchTST (patches of 8 with a stride of 4 padded at the end, 2 transformer layers of 32, standard
scaling; 166 k), LagTST (the 34 lags gluonts chooses for an hourly series, 1 to 721 hours back, so the network reads 769
hours; 2 transformer layers of 32, mean scaling; 610 k), the Temporal Fusion Transformer (the target and the two
calendar features, 4 heads, hidden 32, the quantiles 0.1 to 0.9; 87 k) and TiDE (the calendar features projected to 2,
dense encoder and decoder of 64, temporal decoder of 16, standard scaling; 45 k) on batches of univariate series, and
iTransformer (each of a panel's 7 series a token, 2 layers of 32, standard scaling; 22 k) on batches of panels.
audioseal (16 kHz, the released model cards' sizes, weight norm dropped as its loader drops it, random weights): the
watermark generator of the ``audioseal_wm_16bits`` card (SEANet encoder with ratios 8, 5, 4 and 2 and 2 LSTM layers, the
message processor, the decoder; 14.7 M parameters) with the service's fixed 16-bit message, once plain and once with its
normaliser (the watermark fitted inside the clip's envelope), the streaming generator of the ``audioseal_wm_streaming``
card (causal convolutions) run over 100 ms chunks inside its ``streaming`` context, the detector of the
``audioseal_detector_16bits`` card (8.65 M) as ``detect_watermark`` runs it (plus the per-sample scores and the bits'
probabilities) and the streaming detector of the ``audioseal_detector_streaming`` card (causal) with its loudness
normaliser, the same way.

Each is small and has the dynamic axes a deploying user declares: series and time for the univariate forecasters (the
history; the service takes its last 48 values, 769 for LagTST, and a shorter history is an error), panels and time for
iTransformer (its 7 series are fixed at construction), batch and time for the audio models (mono, channel axis 1 of 1).
All inputs are in [0, 1). Set-valued outputs: none. Outputs: (series, 12) means and (series, 12) standard deviations for
the distribution forecasters, (series, 9, 12) quantiles for TFT, (panels, 12, 7) means and standard deviations for
iTransformer; (batch, 1, time) watermarked audio for the three generators; for the detectors (batch,) detection
probabilities, (batch, 16) int32 bits, (batch, time) per-sample scores and (batch, 16) bit probabilities. The wrappers
were checked only for building and running eagerly (deterministic over two forwards, finite outputs, outputs differing
across the batch, with the exception below) before any migrate run, with a source tree unpacked by ``fetch_sources``
from ``PINS70`` and ``make_zoo``, each model in its own process with one thread on the two cores shared with other
sessions: at the spec's size, one or two more in the batch and larger dynamic sizes (histories of 240, 1000 for LagTST;
24000 and 48000 samples). Imports take 3.3 to 4.3 s for gluonts (Lightning, pandas, pydantic) and about 1 s for
audioseal; building under 0.01 s for the forecasters and 0.05 to 0.2 s for audioseal; every forecaster's forward under
0.01 s; the detectors' 0.29 to 0.51 s at 16000 samples and 0.56 to 0.61 s at 24000 and 48000; the generators' first
forward 5.7 to 9.9 s, load varying (the ``torch.compile`` of the SEANet encoder and decoder, Inductor on the CPU), then
1.1 to 1.6 s at 16000 samples and 0.7 to 4.4 s at 24000 and 48000 (the compiled code is guarded on the shape and
recompiled for each new batch or length until dynamo's recompile limit of 8, after which it warns and runs eagerly);
with moshi's own ``NO_TORCH_COMPILE=1``, not set here, the plain generator's forward takes 0.19 s. Peak memory 0.47 to
0.69 GB a process. Odd, left as the libraries have them: the SEANet encoder's and decoder's ``forward`` are wrapped by
``torch_compile_lazy``, so calling the model compiles it (the generators; the detectors' encoder keeps its dimension
through another forward and is not compiled); with random weights the detectors score every sample of these inputs
between 0.578 and 0.582 (above 0.5) and their bit probabilities differ across clips by at most 3e-6, so the detection
probability (1.0) and the thresholded bits are the same for every clip of the batch, where the per-sample scores and the
bit probabilities differ; both normalisers leave these inputs nearly unchanged (the envelope gain is clamped at 1 and
the watermark is quieter than the clip; the loudness gain is clamped at 1 and the clips are louder than the reference
RMS of 0.1), so the normalised models' outputs match the plain ones to four digits in their means while running the
extra window loops; the streaming generator keeps state in its encoder only (its ``streaming`` context wraps the
encoder), the decoder runs each chunk with its causal padding; gluonts warns at import that it uses the ``json`` module
(no orjson or ujson), and LagTST's lag gather indexes with a list of slices, which PyTorch warns is deprecated; the
forecasts of the distribution heads are in the scale of the input (means -0.04 to 0.55, standard deviations 0.39 to 0.72
at the spec's size, random weights)."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins, the Python packages of the dependencies gluonts imports (Lightning 2.6.6, the package
#: zoos 54 and 57 unpacked, with the torchmetrics 1.9.0 and lightning-utilities 0.15.3 they unpacked beside it; toolz
#: 0.12.1, the functional utilities gluonts' core imports) and two libraries by authors no earlier zoo ran, unpacked
#: wheels like the others (never pip-installed): gluonts (Amazon's probabilistic forecasting toolkit) and audioseal
#: (Meta AI's audio watermarking: a SEANet generator that hides a 16-bit message and a detector that finds it).
PINS70 = {**PINS31, "toolz": "0.12.1", "lightning_utilities": "0.15.3", "torchmetrics": "1.9.0",
          "lightning": "2.6.6", "gluonts": "0.17.0", "audioseal": "0.2.0"}

#: The user's inputs, all in [0, 1): a batch of hourly univariate series (series, time), a batch of panels of 7
#: hourly series (panels, time, 7) and mono 16 kHz waveforms (batch, 1, time).
_BT = 'dynamic_axes = { x = { 0 = "batch", 1 = "time" } }'
_BCT = 'dynamic_axes = { x = { 0 = "batch", 2 = "time" } }'

# ---------------------------------------------------------------------------------------------------------------
# gluonts' model modules import ``gluonts.torch``, whose package import builds the list of its estimators, which
# import Lightning (``lightning.pytorch``: the pinned wheel's Python code, with torchmetrics and
# lightning-utilities); gluonts' core imports toolz (pinned), pydantic, pandas and NumPy (the venv's). SciPy (the
# venv's) is imported by its Student's t distribution for quantiles, which no forward here calls.
_TS = '''
from gluonts.torch.distributions import StudentTOutput
from gluonts.torch.model.d_linear.module import DLinearModel
from gluonts.torch.model.i_transformer.module import ITransformerModel
from gluonts.torch.model.lag_tst.module import LagTSTModel
from gluonts.torch.model.patch_tst.module import PatchTSTModel
from gluonts.torch.model.simple_feedforward.module import SimpleFeedForwardModel
from gluonts.torch.model.tft.module import TemporalFusionTransformerModel
from gluonts.torch.model.tide.module import TiDEModel

#: Hourly series: the next 12 hours from the last 48 (the models' own context; LagTST reads further back for its
#: lags); a panel has 7 series.
HORIZON, CONTEXT, PANEL = 12, 48, 7


def last_window(history, length):
    """What gluonts' instance splitter hands the network at prediction time for a history with no gaps: its last
    ``length`` values and an observed-values mask of ones."""
    past = history[:, -length:]
    return past, torch.ones_like(past)


def calendar(steps, device):
    """The hour-of-day and day-of-week features gluonts derives for an hourly series (``HourOfDay``: hour / 23 - 0.5,
    ``DayOfWeek``: day / 6 - 0.5), for ``steps`` hours ending at the last hour of a Sunday (the service's requests
    are aligned so), as (1, steps, 2)."""
    hours = torch.arange(steps, device=device) - steps + 1 + 24 * 7 * 1000 - 1  # hours since a Monday, 00:00
    hour = (hours % 24).float() / 23.0 - 0.5
    day = ((hours // 24) % 7).float() / 6.0 - 0.5
    return torch.stack([hour, day], dim=-1)[None]


class DistributionForecaster(torch.nn.Module):
    """A forecasting service around a gluonts network whose output is a distribution: the last window of each
    history, the network's distribution arguments with the scaler's ``loc`` and ``scale``, then what
    ``DistributionForecastGenerator`` builds from them (``distr_output.distribution``: an affine-transformed
    Student's t here) and what its forecast reports: the mean and the standard deviation of every horizon step."""

    def __init__(self, network, length):
        super().__init__()
        self.network = network
        self.length = length

    def forward(self, history):
        past, observed = last_window(history, self.length)
        distr_args, loc, scale = self.network(past, observed)
        distribution = self.network.distr_output.distribution(distr_args, loc, scale)
        return distribution.mean, distribution.stddev


class FeedForwardForecaster(DistributionForecaster):
    """SimpleFeedForward's network takes the target alone (it mean-scales it itself)."""

    def forward(self, history):
        past, _ = last_window(history, self.length)
        distr_args, loc, scale = self.network(past)
        distribution = self.network.distr_output.distribution(distr_args, loc, scale)
        return distribution.mean, distribution.stddev


def simple_feedforward():
    """SimpleFeedForward: an MLP of 64 and 64 over the mean-scaled window to a Student's t per horizon step."""
    return FeedForwardForecaster(SimpleFeedForwardModel(prediction_length=HORIZON, context_length=CONTEXT,
                                                        hidden_dimensions=[64, 64]), CONTEXT)


def dlinear():
    """DLinear: the window decomposed by a moving average of 25 (edges padded by repetition) into trend and
    remainder, each mapped linearly to the horizon, mean scaling, a Student's t per step."""
    return DistributionForecaster(DLinearModel(prediction_length=HORIZON, context_length=CONTEXT,
                                               hidden_dimension=32, kernel_size=25, scaling="mean"), CONTEXT)


def patchtst():
    """PatchTST: standard scaling, the window padded at its end and cut into patches of 8 with a stride of 4 by
    ``unfold``, the log of the scaler's loc and scale appended to each patch, 2 transformer layers of 32."""
    return DistributionForecaster(PatchTSTModel(prediction_length=HORIZON, context_length=CONTEXT, patch_len=8,
                                                stride=4, padding_patch="end", d_model=32, nhead=4,
                                                dim_feedforward=64, num_feat_dynamic_real=0, dropout=0.1,
                                                activation="relu", norm_first=False, num_encoder_layers=2,
                                                scaling="std"), CONTEXT)


def lag_tst():
    """LagTST: each of the window's 48 steps described by its values at gluonts' lags for an hourly series (1 to 3,
    23 to 25, 47 to 49, 71 to 73, 95 to 97, 119 to 121, 143 to 145, 167 to 169, 335 to 337, 503 to 505, 671 to 673
    and 719 to 721 hours back: it reads 721 hours before the window), 2 transformer layers of 32, mean scaling."""
    network = LagTSTModel(prediction_length=HORIZON, context_length=CONTEXT, freq="h", d_model=32, nhead=4,
                          dim_feedforward=64, dropout=0.1, activation="relu", norm_first=False,
                          num_encoder_layers=2, scaling="mean")
    return DistributionForecaster(network, network._past_length)


class PanelForecaster(DistributionForecaster):
    """iTransformer on panels of series forecast together: (panels, time, series), each series' window a token."""


def itransformer():
    """iTransformer: each of the panel's 7 series one token (its standard-scaled window), 2 layers of attention
    across the series, a Student's t per series and step."""
    return PanelForecaster(ITransformerModel(prediction_length=HORIZON, context_length=CONTEXT, d_model=32, nhead=4,
                                             dim_feedforward=64, dropout=0.1, activation="relu", norm_first=False,
                                             num_encoder_layers=2, scaling="std"), CONTEXT)


class CovariateForecaster(torch.nn.Module):
    """A forecasting service around a gluonts network that takes covariates: the last window of each history,
    the calendar features of the window and of the horizon, and the static features the estimator adds when a
    data set has none (a real 0 and a category 0)."""

    def __init__(self, network):
        super().__init__()
        self.network = network

    def covariates(self, history):
        past, observed = last_window(history, CONTEXT)
        series = history.shape[0]
        time_feat = calendar(CONTEXT + HORIZON, history.device).expand(series, -1, -1)
        static_real = torch.zeros(series, 1, device=history.device)
        static_cat = torch.zeros(series, 1, dtype=torch.long, device=history.device)
        return past, observed, time_feat, static_real, static_cat


class QuantileTFT(CovariateForecaster):
    """The Temporal Fusion Transformer with its quantile head (0.1 to 0.9), then what gluonts'
    ``QuantileForecastGenerator`` does with its output: scaled by ``scale``, shifted by ``loc`` and moved to
    (series, quantiles, horizon)."""

    def forward(self, history):
        past, observed, time_feat, static_real, static_cat = self.covariates(history)
        (quantiles,), loc, scale = self.network(past, observed, static_real, static_cat, time_feat)
        quantiles = quantiles * scale[..., None] + loc[..., None]
        return torch.movedim(quantiles, -1, 1)


class TiDEForecaster(CovariateForecaster):
    """TiDE: its dense encoder and decoder over the scaled window, the projected calendar features and the static
    features, a temporal decoder per step and the linear skip from the window; a Student's t per step (mean and
    standard deviation, as ``DistributionForecastGenerator``'s forecast reports them)."""

    def forward(self, history):
        past, observed, time_feat, static_real, static_cat = self.covariates(history)
        distr_args, loc, scale = self.network(static_real, static_cat, time_feat[:, :CONTEXT], past, observed,
                                              time_feat[:, CONTEXT:])
        distribution = self.network.distr_output.distribution(distr_args, loc, scale)
        return distribution.mean, distribution.stddev


def tft():
    """The Temporal Fusion Transformer: variable selection over the target and two calendar features, an LSTM
    encoder and decoder started from the static context, interpretable attention of 4 heads, hidden 32."""
    return QuantileTFT(TemporalFusionTransformerModel(context_length=CONTEXT, prediction_length=HORIZON,
                                                      d_feat_static_real=[1], c_feat_static_cat=[1],
                                                      d_feat_dynamic_real=[2], num_heads=4, d_hidden=32, d_var=32))


def tide():
    """TiDE with the estimator's sizes scaled down: calendar features projected to 2, encoder and decoder of 64,
    decoder output 8 per step, temporal decoder of 16, standard scaling."""
    return TiDEForecaster(TiDEModel(context_length=CONTEXT, prediction_length=HORIZON, num_feat_dynamic_real=2,
                                    num_feat_dynamic_proj=2, num_feat_static_real=1, num_feat_static_cat=1,
                                    cardinality=[1], embedding_dimension=[1], feat_proj_hidden_dim=4,
                                    encoder_hidden_dim=64, decoder_hidden_dim=64, temporal_hidden_dim=16,
                                    distr_hidden_dim=4, decoder_output_dim=8, dropout_rate=0.1,
                                    num_layers_encoder=1, num_layers_decoder=1, layer_norm=False,
                                    distr_output=StudentTOutput(), scaling="std"))'''

# ---------------------------------------------------------------------------------------------------------------
# audioseal's package import needs OmegaConf (its model cards and config schema: the venv's); on Python 3.10 and
# later it builds its SEANet from its bundled copy of Kyutai's moshi modules (streaming convolutions and LSTM).
_WM = '''
from audioseal.builder import (AudioSealDetectorConfig, AudioSealWMConfig, create_detector,
                               create_generator)
from audioseal.loader import AudioSeal, load_local_model_config

#: The 16-bit message a service hides in every clip (its id), and the streaming chunk: 100 ms at 16 kHz.
MESSAGE = [1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 1, 0, 1]
CHUNK = 1600


def card(name, schema, normalizer=False):
    """The model card's configuration, as ``AudioSeal.load_generator`` and ``load_detector`` parse it (weight norm
    dropped, the schema's fields kept), without its checkpoint: random weights."""
    config = dict(load_local_model_config(name))
    config.pop("checkpoint")
    config["normalizer"] = normalizer
    return AudioSeal.parse_config(config, config_type=schema)


class Watermarker(torch.nn.Module):
    """AudioSeal's generator as a service applies it: the SEANet encoder, the service's message embedded and added
    to the hidden frames, the decoder, the watermark cropped to the clip's length (and, with the normaliser, fitted
    inside the clip's envelope window by window), added to the audio."""

    def __init__(self, name, normalizer=False):
        super().__init__()
        self.model = create_generator(card(name, AudioSealWMConfig, normalizer))
        self.register_buffer("message", torch.tensor(MESSAGE))

    def forward(self, audio):
        return self.model(audio, message=self.message, alpha=1.0)


class StreamingWatermarker(Watermarker):
    """The streaming generator (causal SEANet) as a live service runs it: the clip in chunks of 100 ms inside the
    model's ``streaming`` context (which wraps the encoder: its convolutions and LSTM keep their state across
    chunks), each watermarked chunk appended."""

    def forward(self, audio):
        with self.model.streaming(batch_size=audio.shape[0]):
            chunks = [self.model(chunk, message=self.message) for chunk in torch.split(audio, CHUNK, dim=-1)]
        return torch.cat(chunks, dim=-1)


class Detector(torch.nn.Module):
    """AudioSeal's detector as ``detect_watermark`` runs it: per-sample watermark probabilities (softmax of the
    first two channels), the message bits from the rest (sigmoid of their mean over time), then the fraction of
    samples scored above 0.5 and the bits thresholded at 0.5; the per-sample scores and the bits' probabilities are
    returned too (the localisation a moderation service shows, and the confidence of each bit)."""

    def __init__(self, name, normalizer=False):
        super().__init__()
        self.model = create_detector(card(name, AudioSealDetectorConfig, normalizer))

    def forward(self, audio):
        scores, message = self.model(audio)
        probability, bits = self.model.detect_watermark(audio)
        return probability, bits, scores[:, 1], message'''

MODELS70 = [
    # gluonts: univariate forecasters, one hourly series a row.
    Spec("gluonts_simple_feedforward", "gluonts SimpleFeedForward (MLP, mean scaling, Student's t: mean and std)",
         _TS, "simple_feedforward()", "return self.m(x)", "4, 96", _BT),
    Spec("gluonts_dlinear", "gluonts DLinear (moving-average decomposition, Student's t: mean and std)", _TS,
         "dlinear()", "return self.m(x)", "4, 96", _BT),
    Spec("gluonts_patchtst", "gluonts PatchTST (patches by unfold, std scaling, Student's t: mean and std)", _TS,
         "patchtst()", "return self.m(x)", "4, 96", _BT),
    Spec("gluonts_lag_tst", "gluonts LagTST (hourly lags up to 721 h, transformer, Student's t: mean and std)", _TS,
         "lag_tst()", "return self.m(x)", "4, 800", _BT),
    Spec("gluonts_tft_quantiles", "gluonts Temporal Fusion Transformer (calendar covariates, quantiles 0.1-0.9 "
         "rescaled as QuantileForecastGenerator does)", _TS, "tft()", "return self.m(x)", "4, 96", _BT),
    Spec("gluonts_tide", "gluonts TiDE (calendar covariates, dense encoder-decoder, Student's t: mean and std)", _TS,
         "tide()", "return self.m(x)", "4, 96", _BT),
    # gluonts: a multivariate forecaster over panels of 7 series.
    Spec("gluonts_itransformer_panel", "gluonts iTransformer (panels of 7 series, series as tokens, Student's t: "
         "mean and std)", _TS, "itransformer()", "return self.m(x)", "2, 96, 7", _BT),
    # audioseal: watermarking and detection on 16 kHz audio.
    Spec("audioseal_watermark", "audioseal generator (audioseal_wm_16bits card: SEANet encoder-decoder, 16-bit "
         "message) on 16 kHz audio", _WM, 'Watermarker("audioseal_wm_16bits")', "return self.m(x)", "2, 1, 16000",
         _BCT),
    Spec("audioseal_watermark_envelope", "audioseal generator with its normaliser (the watermark fitted inside "
         "the clip's envelope) on 16 kHz audio", _WM, 'Watermarker("audioseal_wm_16bits", normalizer=True)',
         "return self.m(x)", "2, 1, 16000", _BCT),
    Spec("audioseal_streaming_watermark", "audioseal streaming generator (causal SEANet, 100 ms chunks in its "
         "streaming context) on 16 kHz audio", _WM, 'StreamingWatermarker("audioseal_wm_streaming")',
         "return self.m(x)", "2, 1, 16000", _BCT),
    Spec("audioseal_detector", "audioseal detector (audioseal_detector_16bits card: detect_watermark's probability "
         "and bits, per-sample scores) on 16 kHz audio", _WM, 'Detector("audioseal_detector_16bits")',
         "return self.m(x)", "2, 1, 16000", _BCT),
    Spec("audioseal_streaming_detector_loudness", "audioseal streaming detector (causal SEANet) with its loudness "
         "normaliser, detect_watermark's outputs, on 16 kHz audio", _WM,
         'Detector("audioseal_detector_streaming", normalizer=True)', "return self.m(x)", "2, 1, 16000", _BCT),
]

if __name__ == "__main__":
    main(MODELS70, "real_zoo70", PINS70)
