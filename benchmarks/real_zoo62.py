"""A sixty-second real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo62.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, on audio, discrete tokenizers and time series deployed for inference:
pitch tracking with its decoding and smoothing, the quantisers of neural codecs and image tokenizers, and forecasting
with time-series foundation models, including their autoregressive loops: the thirty-first zoo's pins and three
libraries whose code no earlier zoo or sweep ran (``PINS62``: unpacked wheels like the others, never pip-installed):
torchcrepe 0.0.24 (Max Morrison, github.com/maxrmorrison/torchcrepe: the PyTorch CREPE of Kim, Salamon, Li and Bello,
with its decoders, filters and thresholds), vector-quantize-pytorch 1.32.0 (Phil Wang,
github.com/lucidrains/vector-quantizer-pytorch: vector, residual, finite scalar and lookup-free quantisers; his
x-transformers and vit-pytorch are earlier zoos', this library is not) and chronos-forecasting 2.3.2 (Abdul Fatir
Ansari, Lorenzo Stella, Caner Turkmen, Oleksandr Shchur and the Amazon team,
github.com/amazon-science/chronos-forecasting: Chronos, Chronos-Bolt and Chronos-2). torchcrepe imports librosa (its
Viterbi decoder and loudness), resampy (resampling to 16 kHz) and torchaudio (reading files) at package import; none is
in the venv and no model here calls into them, so the user's module stands them in with empty modules that have module
specs (as zoo 60 does for soundfile), after importing chronos, whose transformers probes for optional packages by name.
torchcrepe's SciPy and tqdm, vector-quantize-pytorch's einops, einx, loguru and torch-einops-utils, and chronos' einops,
pandas and packaging come from the venv; chronos' transformers (5.24.0) is in ``PINS31``; its declared accelerate is not
imported by the models, and boto3, datasets, fev and peft only by its extras. The torchcrepe wheel is 72 MB: it ships
the pretrained ``tiny`` and ``full`` weights, which ``torchcrepe.load.model`` would read; they are unpacked with the
package and not used. Nothing new in the ``bench`` extra.

Considered and dropped before any model was chosen (by the wheel's files, metadata and a first import): pypots 1.5
(Wenjie Du's imputation toolbox, SAITS, BRITS and the others: its package import pulls scikit-learn, torch's tensorboard
writer, pygrinder, tsdb and benchpots, none in the venv; zoo 41 dropped it too), openai-whisper (no wheel on the index,
only a source archive; numba and tiktoken, compiled, among its dependencies besides), descript-audio-codec 1.0.0 (its
DAC subclasses descript-audiotools' BaseModel, a further library with torchaudio and argbind among DAC's own
dependencies), vocos (zoo 39 dropped it: encodec, which has no wheel, and torchaudio), perceiver-pytorch 0.11.0 and
rotary-embedding-torch 0.9.1 (a generic Perceiver and a positional layer, with nothing of a deployment's decoding or
post-processing; Phil Wang's again), timesfm 3.0.2 (Google's forecaster: not read further, one forecasting library was
enough). Within torchcrepe: the ``full`` capacity (1024 filters of 512 taps on every 1024-sample frame, 22 M parameters:
far over the time budget), the Viterbi decoder (librosa's NumPy Viterbi, stood in here), the plain ``argmax`` decoder
(``bins_to_frequency`` dithers the cents with fresh SciPy noise on every call: two runs differ by up to 7 Hz), the
``Hysteresis`` threshold (NumPy on the flattened pitch) and ``Silence`` (librosa's loudness), other sample rates
(resampy) and the file functions. Within vector-quantize-pytorch: its training behaviour (EMA codebook updates, k-means
initialisation, stochastic code sampling, quantiser dropout, the auxiliary losses, which the wrappers drop),
ResidualFSQ, ResidualLFQ and the grouped variants (the same quantisers stacked as ResidualVQ stacks its own),
LatentQuantize, SimVQ, EvoLFQ, FSP and HierarchicalVQ. Within chronos: the original Chronos' sampling configuration (20
samples at top-k 50 through ``torch.multinomial``: two runs differ; kept with top-k 1 below), the pipelines'
``from_pretrained`` (downloads), Chronos2Pipeline's DataFrame and covariate predict (pandas around the model call) and
its fine-tuning, the pipelines' ``embed``.

11 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 60 (no
sixty-first was in the tree when these were chosen) or in the library sweeps (benchmarks/sweep_*.py), of the kinds that
often need work for an ONNX or TensorRT deployment (framing by ``unfold`` with a stride, per-frame mean and standard
deviation, frame counts from the audio's length in Python, a generator of frame batches looped over in Python, masked
bins by in-place slice assignment with -inf, weighted argmax with a Python loop over the batch and the frames writing
-inf around each argmax, a cached module-level weight tensor, ``gather`` by decoded bins, median filtering by ``unfold``
and ``sort`` with NaN masks, a NaN threshold by boolean-mask assignment, mean filtering by ``conv1d`` and
``avg_pooled[avg_pooled == 0] = nan``; nearest codes by cosine similarity and argmax per head, residual quantisation
over a ModuleList with indices stacked and looked up back, rounding with a straight-through estimator, bounded tanh and
level bases, sign bits packed into integers with powers of two, einops' ``pack`` and ``unpack`` of image maps;
``nanmean`` instance norm, patching by ``unfold`` after left-padding with NaN to a multiple of the patch, contexts
truncated to the model's length, attention masks from observed patches, register tokens by ``torch.full``,
``torch.bucketize`` into bins, EOS appended, a transformers ``generate`` loop with logits processors, rounds of
generation while a Python counter is positive, the context extended by each round's median, the batch repeated by the
quantile count and reduced with ``torch.quantile``, group attention masks from group ids, rotary positions, arcsinh
scaling). torchcrepe, on mono 16 kHz waveforms with a hop of 10 ms and a pitch range of 50 to 550 Hz, the tiny CREPE
(six convolutions of 128 to 64 channels with BatchNorm and max-pooling, 360 sigmoid pitch bins; 0.49 M) run by the
library's own ``predict`` and ``embed`` (the wrapper binds its model as ``torchcrepe.infer``'s so that they run it
rather than loading the packaged weights): pitch and periodicity with weighted-argmax decoding, all frames in one batch;
the same in batches of 64 frames with the README's smoothing (periodicity median-filtered over 3 frames, pitch set
unvoiced below 0.21 and mean-filtered over 3); the embedding (the activations before the classifier, 32 x 8 per frame).
vector-quantize-pytorch in eval mode, the quantised features and code indices: VectorQuantize (cosine similarity, 2
heads each with its own 256 codes of 16) on feature sequences; ResidualVQ (4 stages of 128 codes) with the features
decoded back from its indices by ``get_output_from_indices``; FSQ (levels 8-5-5-5, 1000 codes, projections from and to
16 channels) and LFQ (1024 codes as 10 sign bits, projections from and to 16 channels) on image feature maps. chronos,
on univariate series: Chronos-Bolt (a T5 encoder of 2 layers and decoder of 1, width 64, patches of 16 with their masks,
a register token; 0.17 M) as its forward gives 9 quantiles of 16 steps, and as ``ChronosBoltPipeline.predict`` gives 48
steps (three model calls, the second and third on the context extended by each of the 9 quantile paths, 81 paths reduced
to 9 quantiles); the original Chronos (a T5 of 2 and 2 layers, width 64, gated GELU, 4096 tokens: mean scaling into
uniform bins in [-15, 15]; 0.46 M) through ``ChronosPipeline.predict`` for 12 steps with a model horizon of 8 (two
rounds of ``generate``), one sample at top-k 1, so that the sampling call draws the most likely token; Chronos-2 (an
encoder of 2 layers, width 64, time attention with rotary positions and group attention, arcsinh instance norm, 21
quantiles; 0.19 M) as its forward gives two output patches, 32 steps, each series its own group (the library's default).

Each has the dynamic axes a deploying user declares: batch and time for the pitch trackers ((batch, 16000), 1 s), the
sequence quantisers ((batch, 50, 32)) and the forecasters ((batch, 200), a context that is not a multiple of the patch);
batch, height and width for FSQ and LFQ ((batch, 16, 8, 8)); time alone for the CREPE embedding ((1, 16000):
``torchcrepe.embed`` reshapes by the frame count of the whole batch, so a batch of 2 returns (2, 202, 32, 4), each
frame's 256 activations split over two rows, where one of 1 returns (1, 101, 32, 8)). All inputs are in [0, 1). The two
pitch trackers and the embedding, whose CREPE has BatchNorm, get their statistics from the calibration pass (the
embedding's on one waveform of the four); the other models have LayerNorm, RMSNorm or none. No output is set-valued. The
wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs, outputs
differing across the batch) before the first migrate run, with a source tree unpacked by ``fetch_sources`` from
``PINS62`` and ``make_zoo``, each model in its own process with one thread (load average 3.5 from other sessions): at
the spec's size, one more in the batch, and larger dynamic sizes with a batch of 2 and of 3 (waveforms of 24001 and
40000 samples, 151 and 251 frames; sequences of 173 steps; feature maps of 24x40; contexts of 333 and 700 steps, the
last truncated to the 512 of the context length). The best of two forwards took 0.46 s and 0.49 s for the two pitch
trackers (2.2 s and 1.5 s for 3 waveforms of 40000 samples: the weighted argmax's loop runs 753 times there), 0.29 s the
embedding (0.70 s at 40000), 1 to 8 ms each quantiser at every size, 2 to 3 ms Chronos-Bolt, 9 to 12 ms its 48-step
pipeline, 32 to 111 ms the T5 Chronos' two rounds of generation and 2 to 6 ms Chronos-2; builds took 2.8 to 6.5 s
(importing transformers through chronos, for all of them: the three libraries share one import block). Changed after the
first eager runs, before any migrate run: the second pitch tracker's decoder, from ``argmax`` to the weighted argmax
(``argmax`` dithers on every call, above), with NumPy's global generator seeded in the wrapper (the bins' cents that
``weighted_argmax`` caches on its function at its first call carry one draw of that dither noise: seeded, every process
draws the same); the T5 Chronos' config, from T5's defaults (ReLU, initializer factor 1.0) to the released models' gated
GELU and an initializer factor of 2.0: transformers 5 always ties T5's output head to its embeddings
(``tie_word_embeddings=False`` only switches off the output scaling), and with the default initialisation the random
decoder repeated its start token (PAD) at every step, so every forecast was the lowest bin times the series' scale; at
2.0 the layers outweigh the embedding's residual and the tokens vary. Odd, left as the libraries have them: torchcrepe's
``predict`` writes -inf into the model's output in place and ``weighted_argmax`` again into its logits; the model is
found through the function attribute ``torchcrepe.infer.model``, a global, so two builds in one process share the last
one bound (both are seeded alike); with random weights the periodicity stays between 0.76 and 0.97, so the 0.21
threshold never fires and no NaN reaches the mean filter; ``ChronosBoltPipeline.predict`` warns (Python's ``warnings``)
and ``ChronosPipeline.predict`` logs a warning on every call whose horizon exceeds the model's; with random weights
Chronos-Bolt's quantiles are not ordered and reach about ±30 for inputs in [0, 1), and Chronos-2's forecasts differ
across the batch by 0.014 to 0.022 only; the quantisers' codebooks are buffers, not parameters (VectorQuantize and
ResidualVQ have none); FSQ's codes are int32, the other indices int64."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and three libraries by other authors, unpacked wheels like the others (never
#: pip-installed): torchcrepe (Max Morrison: the CREPE pitch tracker with its decoders and filters),
#: vector-quantize-pytorch (Phil Wang: vector, residual, finite scalar and lookup-free quantisers) and
#: chronos-forecasting (Amazon's time-series foundation models: Chronos, Chronos-Bolt and Chronos-2).
PINS62 = {**PINS31, "torchcrepe": "0.0.24", "vector_quantize_pytorch": "1.32.0", "chronos_forecasting": "2.3.2"}

#: The user's inputs: mono waveforms at 16 kHz (batch, time), feature sequences (batch, time, features), feature
#: maps (batch, channels, height, width) and univariate series (batch, time), all in [0, 1).
_BT = 'dynamic_axes = { x = { 0 = "batch", 1 = "time" } }'
_T = 'dynamic_axes = { x = { 1 = "time" } }'
_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'

# ---------------------------------------------------------------------------------------------------------------
# The three libraries share one import block. chronos first: it imports transformers, which probes for optional
# packages by name, before the stand-ins below exist. torchcrepe imports librosa (Viterbi decoding and loudness),
# resampy (resampling to 16 kHz) and torchaudio (reading files) at package import; none is in the venv, and no model
# here decodes with Viterbi, resamples, weighs loudness or reads a file, so the user's module stands them in with
# empty modules that have module specs.
_GEN = '''import importlib.machinery
import importlib.util

import numpy as np

from chronos import ChronosConfig, ChronosModel, ChronosPipeline
from chronos.chronos2 import Chronos2Model
from chronos.chronos2.config import Chronos2CoreConfig
from chronos.chronos_bolt import ChronosBoltModelForForecasting, ChronosBoltPipeline
from transformers import T5Config, T5ForConditionalGeneration
from vector_quantize_pytorch import FSQ, LFQ, ResidualVQ, VectorQuantize

# librosa, resampy, torchaudio: torchcrepe imports them at package import; nothing here calls into them.
for _name in ("librosa", "resampy", "torchaudio"):
    if _name not in sys.modules:
        sys.modules[_name] = importlib.util.module_from_spec(importlib.machinery.ModuleSpec(_name, None))

import torchcrepe

#: CREPE's rate and a hop of 10 ms; the pitch range a singing-voice deployment asks for.
SAMPLE_RATE = 16000
HOP = 160
FMIN, FMAX = 50.0, 550.0


class CrepePitch(torch.nn.Module):
    """torchcrepe.predict as a user calls it: frames of 1024 samples every hop (all in one batch, or in batches of
    ``batch_size`` frames), each mean-centred and scaled, the tiny CREPE's 360 pitch-bin probabilities, the bins
    outside [FMIN, FMAX] masked, weighted-argmax decoding (the argmax's nine neighbouring bins, the rest set to -inf in
    a Python loop over the batch and the frames, a sigmoid-weighted mean of their cents) to Hz, and the periodicity;
    optionally the README's smoothing (median-filtered periodicity, pitch unvoiced below 0.21, mean-filtered pitch).
    The model is the wrapper's, bound as torchcrepe.infer's model so that predict runs it instead of loading the
    packaged weights. The bins' cents that weighted_argmax caches on its first call carry one draw of SciPy's dither
    noise from NumPy's global generator: seeded here, so that every process draws the same."""

    def __init__(self, batch_size=None, smooth=False):
        super().__init__()
        self.crepe = torchcrepe.Crepe("tiny")
        torchcrepe.infer.model, torchcrepe.infer.capacity = self.crepe, "tiny"
        np.random.seed(0)
        self.batch_size = batch_size
        self.smooth = smooth

    def forward(self, audio):
        pitch, periodicity = torchcrepe.predict(audio, SAMPLE_RATE, HOP, FMIN, FMAX, "tiny",
                                                decoder=torchcrepe.decode.weighted_argmax, return_periodicity=True,
                                                batch_size=self.batch_size)
        if self.smooth:
            periodicity = torchcrepe.filter.median(periodicity, 3)
            pitch = torchcrepe.threshold.At(0.21)(pitch, periodicity)
            pitch = torchcrepe.filter.mean(pitch, 3)
        return pitch, periodicity


class CrepeEmbedding(torch.nn.Module):
    """torchcrepe.embed: the tiny CREPE's activations before its classifier, per frame."""

    def __init__(self):
        super().__init__()
        self.crepe = torchcrepe.Crepe("tiny")
        torchcrepe.infer.model, torchcrepe.infer.capacity = self.crepe, "tiny"

    def forward(self, audio):
        return torchcrepe.embed(audio, SAMPLE_RATE, HOP, "tiny")


class Tokenize(torch.nn.Module):
    """A quantiser's tokenizing call in eval mode: the quantised features and the code indices (the auxiliary loss,
    a training term, dropped)."""

    def __init__(self, quantizer):
        super().__init__()
        self.quantizer = quantizer

    def forward(self, x):
        out = self.quantizer(x)
        return out[0], out[1]


class ResidualRoundTrip(torch.nn.Module):
    """A residual VQ as a codec uses it: the quantised features and the indices of each stage, and the features
    decoded back from those indices (the codebooks' lookup and sum)."""

    def __init__(self, quantizer):
        super().__init__()
        self.quantizer = quantizer

    def forward(self, x):
        quantized, indices, _ = self.quantizer(x)
        return quantized, indices, self.quantizer.get_output_from_indices(indices)


#: Chronos-Bolt's nine quantile levels, and Chronos-2's twenty-one.
BOLT_QUANTILES = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
CHRONOS2_QUANTILES = [0.01, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8,
                      0.85, 0.9, 0.95, 0.99]


def chronos_bolt():
    """A small Chronos-Bolt (the released configs' layout, narrower: a T5 encoder of 2 layers and a decoder of 1, width
    64): patches of 16 with their observed masks, a register token, 16 steps of 9 quantiles per call."""
    config = T5Config(vocab_size=2, d_model=64, d_kv=16, d_ff=128, num_layers=2, num_decoder_layers=1, num_heads=4,
                      feed_forward_proj="relu", decoder_start_token_id=0, pad_token_id=0, eos_token_id=1,
                      chronos_config=dict(context_length=512, prediction_length=16, input_patch_size=16,
                                          input_patch_stride=16, quantiles=BOLT_QUANTILES, use_reg_token=True))
    return ChronosBoltModelForForecasting(config)


class BoltForecast(torch.nn.Module):
    """Chronos-Bolt's forward: the quantile forecast of its horizon (batch, 9, 16), in the series' own scale."""

    def __init__(self):
        super().__init__()
        self.model = chronos_bolt()

    def forward(self, context):
        return self.model(context=context).quantile_preds


class BoltLongHorizon(torch.nn.Module):
    """ChronosBoltPipeline.predict beyond the model's horizon (48 steps, three calls): after the first block every
    quantile path is appended to the context, the batch grows ninefold, and the 81 paths are reduced back to 9 by
    torch.quantile."""

    def __init__(self):
        super().__init__()
        self.model = chronos_bolt()
        self.pipeline = ChronosBoltPipeline(self.model)

    def forward(self, context):
        return self.pipeline.predict(context, prediction_length=48)


class ChronosForecast(torch.nn.Module):
    """ChronosPipeline.predict of the original Chronos (a small T5 over 4096 tokens): mean scaling and uniform bins
    (bucketize) with an EOS token, generation of the forecast tokens, their bin centres rescaled; 12 steps with a
    model horizon of 8, so a second round on the context extended by the first round's median. Top-k 1 and one
    sample: the sampling call draws the most likely token, as a deterministic deployment configures it."""

    def __init__(self):
        super().__init__()
        config = ChronosConfig(tokenizer_class="MeanScaleUniformBins",
                               tokenizer_kwargs={"low_limit": -15.0, "high_limit": 15.0}, context_length=512,
                               prediction_length=8, n_tokens=4096, n_special_tokens=2, pad_token_id=0,
                               eos_token_id=1, use_eos_token=True, model_type="seq2seq", num_samples=1,
                               temperature=1.0, top_k=1, top_p=1.0)
        t5 = T5ForConditionalGeneration(T5Config(vocab_size=4096, d_model=64, d_kv=16, d_ff=128, num_layers=2,
                                                 num_decoder_layers=2, num_heads=4, feed_forward_proj="gated-gelu",
                                                 tie_word_embeddings=False, initializer_factor=2.0, pad_token_id=0,
                                                 eos_token_id=1, decoder_start_token_id=0))
        self.model = ChronosModel(config, t5)
        self.pipeline = ChronosPipeline(config.create_tokenizer(), self.model)

    def forward(self, context):
        return self.pipeline.predict(context, prediction_length=12)


class Chronos2Forecast(torch.nn.Module):
    """Chronos-2's forward (a small encoder-only model of 2 layers, width 64: time attention with rotary positions and
    group attention across the series of a group, arcsinh instance normalisation, patches of 16 with time encodings
    and masks, a register token): two output patches, 32 steps of 21 quantiles; each series its own group, the
    library's default."""

    def __init__(self):
        super().__init__()
        config = Chronos2CoreConfig(d_model=64, d_kv=16, d_ff=128, num_layers=2, num_heads=4,
                                    chronos_config=dict(context_length=512, input_patch_size=16, input_patch_stride=16,
                                                        output_patch_size=16, quantiles=CHRONOS2_QUANTILES,
                                                        use_reg_token=True, use_arcsinh=True, max_output_patches=4))
        self.model = Chronos2Model(config)

    def forward(self, context):
        return self.model(context=context, num_output_patches=2).quantile_preds'''

MODELS62 = [
    # torchcrepe: pitch tracking of 16 kHz speech or singing.
    Spec("torchcrepe_tiny_weighted_argmax", "torchcrepe predict (tiny CREPE, framing by unfold, weighted-argmax "
         "decoding with a Python loop over batch and frames, periodicity)", _GEN,
         "CrepePitch()", "return self.m(x)", "2, 16000", _BT,
         calibrate="self.m(xb)"),
    Spec("torchcrepe_tiny_batched_smoothed", "torchcrepe predict (tiny CREPE, frames in batches of 64, weighted-argmax "
         "decoding) with the README's median filter, threshold and mean filter", _GEN,
         "CrepePitch(batch_size=64, smooth=True)", "return self.m(x)", "2, 16000", _BT,
         calibrate="self.m(xb)"),
    Spec("torchcrepe_tiny_embedding", "torchcrepe embed (tiny CREPE activations before the classifier, per frame)",
         _GEN, "CrepeEmbedding()", "return self.m(x)", "1, 16000", _T, calibrate="self.m(xb[:1])"),
    # vector-quantize-pytorch: the tokenizing call of four quantiser families.
    Spec("vq_cosine_multihead", "vector-quantize-pytorch VectorQuantize (cosine similarity, 2 heads with their own "
         "codebooks of 256, projection to 16): quantised features and indices", _GEN,
         "Tokenize(VectorQuantize(dim=32, codebook_size=256, codebook_dim=16, heads=2, "
         "separate_codebook_per_head=True, use_cosine_sim=True))", "return self.m(x)", "2, 50, 32", _BT),
    Spec("vq_residual_roundtrip", "vector-quantize-pytorch ResidualVQ (4 stages of 128 codes): quantised features, "
         "indices and the features decoded from the indices", _GEN,
         "ResidualRoundTrip(ResidualVQ(dim=32, num_quantizers=4, codebook_size=128))", "return self.m(x)",
         "2, 50, 32", _BT),
    Spec("vq_fsq_feature_map", "vector-quantize-pytorch FSQ (levels 8-5-5-5, projections from 16 channels) on image "
         "feature maps: quantised map and codes", _GEN, "Tokenize(FSQ(levels=[8, 5, 5, 5], dim=16))",
         "return self.m(x)", "2, 16, 8, 8", _BHW),
    Spec("vq_lfq_feature_map", "vector-quantize-pytorch LFQ (lookup-free, 1024 codes: 10 sign bits, projections "
         "from 16 channels) on image feature maps: quantised map and indices", _GEN,
         "Tokenize(LFQ(codebook_size=2 ** 10, dim=16))", "return self.m(x)", "2, 16, 8, 8", _BHW),
    # chronos-forecasting: probabilistic forecasts of univariate series.
    Spec("chronos_bolt_forecast", "chronos-forecasting Chronos-Bolt (small T5 encoder-decoder over patches, instance "
         "norm with NaN handling): 9 quantiles of 16 steps", _GEN, "BoltForecast()", "return self.m(x)", "2, 200", _BT),
    Spec("chronos_bolt_long_horizon", "chronos-forecasting ChronosBoltPipeline.predict of 48 steps (three model calls, "
         "the quantile paths fed back, torch.quantile)", _GEN, "BoltLongHorizon()", "return self.m(x)", "2, 200",
         _BT),
    Spec("chronos_t5_forecast", "chronos-forecasting ChronosPipeline.predict (small T5 over 4096 tokens: mean "
         "scaling, bucketize, generate with top-k 1, bin centres; 12 steps in two rounds)", _GEN,
         "ChronosForecast()", "return self.m(x)", "2, 200", _BT),
    Spec("chronos2_forecast", "chronos-forecasting Chronos-2 (small: time and group attention, rotary positions, "
         "arcsinh instance norm, patches with time encodings): 21 quantiles of 32 steps", _GEN, "Chronos2Forecast()",
         "return self.m(x)", "2, 200", _BT),
]

if __name__ == "__main__":
    main(MODELS62, "real_zoo62", PINS62)
