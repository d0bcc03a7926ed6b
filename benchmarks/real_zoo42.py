"""A forty-second real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo42.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, on speech recognition, speaker embedding and speech synthesis: the
thirty-first zoo's pins and three more libraries by three other authors, whose code no earlier zoo or sweep ran
(``PINS42``: unpacked wheels like the others, never pip-installed): speechbrain 1.1.2 (the SpeechBrain team's toolkit,
Mirco Ravanelli, Titouan Parcollet and others: ECAPA-TDNN, whose squeeze-excitation and attentive statistics pooling
build masks from relative lengths by ``length_to_mask`` (``torch.arange`` against ``lengths * L``); ``TransformerASR``
with conformer layers and RelPosMHAXL relative positional encodings, its key padding mask from ``torch.round(wav_len *
src.shape[1])``, behind a ``ConvolutionFrontEnd`` of strided 2-D convolutions whose output length follows the input's
and whose 4-D output ``encode`` reshapes from its own shape; ``ctc_greedy_decode``, a Python loop over the utterances
with ``int(torch.round(seq_len * batch_max_len))``, ``narrow``, ``.tolist()`` and a Python filter of repeats and blanks;
FastSpeech2, whose length regulator is a Python loop of ``torch.repeat_interleave`` by ``(pace * durs).long()`` per
utterance, ``pad_sequence``, Python-int mel lengths turned back into a tensor for the decoder's mask, with duration,
pitch and energy predictors; HiFi-GAN's generator with ``inference`` padding by replication, and the unit HiFi-GAN,
whose ``inference`` embeds discrete units, predicts durations by ``round(exp - 1)`` clamped to one, asserts a batch of
one and ``repeat_interleave``s the units; torch, NumPy, SciPy; its package imports hyperpyyaml, sentencepiece, soundfile
and torchaudio, for recipes, tokenizers and audio files, none in the venv and none used by these models (and torchaudio
has no wheel for the CPU torch here), so the user's module stands in empty ones, as zoo 39's does for torchaudio, the
stand-in torchaudio with the torch version here, which speechbrain reads at import to skip its audio backend check),
bigvgan 2.4.1 (NVIDIA's BigVGAN universal vocoder, Sang-gil Lee and others: transposed-convolution upsampling, AMP
resblocks whose Snake or SnakeBeta activations (``sin`` of learned per-channel frequencies, in log scale) run between
anti-aliased 2x upsampling and downsampling: Kaiser-windowed sinc filters made at construction, replicate padding, a
grouped transposed convolution with the filter ``expand``-ed to the channel count of the input, crops by precomputed
margins; tanh or a clamp at the end; torch, and at package import its training data module's librosa (mel filters, not
in the venv: the user's module stands in an empty one), huggingface_hub, SciPy and matplotlib) and conformer 0.3.2 (Phil
Wang's Conformer blocks: Shaw relative position embeddings indexed by ``torch.arange`` distances clamped to 512, an
attention mask built by ``rearrange`` of a boolean padding mask and ``masked_fill_``, a depthwise convolution module
with same or causal padding by ``F.pad``, batch norm only when not causal; torch, einops). Nothing new in the ``bench``
extra. Considered and dropped before any model was chosen (by the index, the wheel's metadata and a first look at its
code): parallel-wavegan 0.6.1 (Tomoki Hayashi's MelGAN, HiFi-GAN and Parallel WaveGAN), hifi-gan 0.0.2 and ttslearn
0.2.2 (no wheels on the index, only sources), matcha-tts 0.0.7.0 (a compiled cp311 wheel: its monotonic alignment is a
Cython extension), kokoro 0.9.4 (hexgrad's TTS: its iSTFTNet decoder's sine generator draws ``torch.rand`` and
``torch.randn_like`` in the forward, so two runs differ; ``KModel`` loads a checkpoint in its constructor and its
package imports misaki), tacotron2 22.12.28 (Tadeusz Miszczyk's: TensorFlow among its dependencies), resemblyzer 0.1.4
(Corentin Jemine's speaker encoder: a three-layer LSTM whose constructor loads the wheel's pretrained weights; its
package imports librosa and webrtcvad, a compiled extension), espnet 202511 (librosa, typeguard, h5py, kaldiio,
lightning, hydra and some twenty more among its dependencies), univoc 0.2.1 (not read further: three libraries were
enough), vocos and diffwave (zoo 39 dropped them: encodec and torchaudio, and no wheel); within the chosen libraries:
speechbrain's Xvector (its ``StatisticsPooling`` adds Gaussian noise from ``torch.randn`` to the mean in the forward, in
eval too, so two runs differ by up to 9e-5), its Tacotron2 (the prenet's dropout is ``training=True`` always, as in the
paper: two runs differ), its DiffWave and other samplers (``torch.randn`` in the forward), its pretrained interfaces
(downloads), BigVGAN's CUDA activation kernel (built with ninja at construction) and ``from_pretrained`` (downloads);
the libraries zoos 15 to 41 dropped or used, as they found (snac, noisereduce, openunmix, julius and nnaudio are earlier
zoos').

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 41 or
in the library sweeps (benchmarks/sweep_*.py), all 10 from the three new libraries, 8 of them of the kinds that most
often need work for an ONNX or TensorRT deployment (masks from lengths by ``arange`` against rounded relative lengths,
Python loops over the utterances with ``int(torch.round())`` and ``.tolist()``, hypotheses of data-dependent length
padded into a tensor, per-utterance ``repeat_interleave`` length regulators and ``pad_sequence``, Python-int lengths
back into tensors, a batch-of-one assertion, relative positions from ``arange`` of the length, shapes read for reshapes
and ``expand``) and two vocoders whose sizes follow the input with little read from it (BigVGAN). Speech recognition and
speaker embedding, from speechbrain (random weights, 24 fbank-like features): ECAPA-TDNN (channels 32 and 96, Res2Net
scale 4, a 16-dimensional embedding) of padded utterances, each one's relative length 0.5 plus half its first value; a
conformer CTC model: the front end subsampling by 4, two conformer layers of 32 with RelPosMHAXL and the padding mask
from the same relative lengths, the user's CTC head (12 labels) and speechbrain's greedy CTC decoding, the hypotheses
padded with -1 (the log-probabilities and the label tensor). Speech synthesis, from speechbrain (random weights):
FastSpeech2 (one encoder and one decoder layer of 32, 20 mels) on phoneme ids 1 to 39 from the user's values, the mel
after the postnet, the log durations, pitch, energy and mel lengths; HiFi-GAN (upsampling 8, 8, 2 from 32 channels) by
``inference`` on a log-mel-like input; the unit HiFi-GAN (100 units, a duration predictor, resblocks of type 2,
upsampling 5, 4, 2) on one utterance of units. Vocoders, from bigvgan (20 mels, upsampling 4, 4, 2 from 32 channels,
random weights): SnakeBeta with AMP resblocks of type 1 and tanh, and the v2 style (Snake, resblocks of type 2, no final
bias, a clamp). ASR encoder blocks, from conformer (dim 32, two heads of 16, kernel 15, random weights): the
``Conformer`` stack of two blocks; two ``ConformerBlock``s with the user's boolean padding mask from lengths (each one's
length its first value times the frames, at least one), the frames and the mean over the valid ones through a linear
head (5 classes); a causal stack with the user's CTC head (10 labels) and a greedy collapse written in tensors (the
label of each frame that is not blank and differs from the previous frame's, others -1).

Each is small and has the dynamic axes a deploying user declares: batch and time (frames of features) for the
speechbrain recognisers and the conformer models, batch and phonemes for FastSpeech2, batch and frames of the mel for
the vocoders, units only for the unit HiFi-GAN (its ``inference`` asserts a batch of one). Inputs are the user's values
in [0, 1) (``4 * x - 4`` as log mels for the vocoders, ``2 * x - 1`` for the conformer models). Machinery, table and
counts are real_zoo2.py's. The wrappers were checked only for building and running eagerly (deterministic over two
forwards, finite outputs, none constant) at two sizes (the spec's, and a batch of two at 160 frames for ECAPA-TDNN, 100
for the CTC model, 20 phonemes for FastSpeech2, 40 mel frames for the vocoders, 80 frames for the conformer models, and
30 units for the unit HiFi-GAN) before the first migrate run, with a stand-in source tree holding only torchvision and
the three new libraries: with one thread on the shared two cores (loaded by other sessions, load averages of 3.4 to
4.2), each in its own process, over two runs of the final wrappers the best of two forwards at the spec's size took
0.002 to 0.021 s for speechbrain (HiFi-GAN the slowest), 0.023 to 0.031 s for bigvgan, 0.002 to 0.007 s for conformer;
at most 0.065 s at the larger size (BigVGAN-v2); builds (imports included) took 1.8 to 7.8 s. Changed after the first
eager runs, before any migrate run: FastSpeech2 with random weights predicts log durations near zero, so every phoneme's
``expm1`` duration truncated to zero frames and the decoder failed on an empty spectrogram; the duration predictor's
output bias is set to 1.6 (about four frames a phoneme, as a trained model predicts), and the mel lengths then are 39 at
the spec's size. speechbrain printed "Failed to detect torchaudio major version" at import while its stand-in had no
version; it has one now."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and three libraries by three other authors, unpacked wheels like the others (never
#: pip-installed): speechbrain (the SpeechBrain team's speech toolkit: ECAPA-TDNN, conformer ASR encoders, CTC
#: decoding, FastSpeech2, HiFi-GAN; torch, NumPy, SciPy, and hyperpyyaml, sentencepiece, soundfile and torchaudio at
#: package import, for recipes, tokenizers and audio files only), bigvgan (NVIDIA's BigVGAN vocoder: anti-aliased
#: Snake activations; torch, and huggingface_hub, librosa, SciPy and matplotlib at package import) and conformer (Phil
#: Wang's Conformer blocks with Shaw relative positions; torch, einops).
PINS42 = {**PINS31, "speechbrain": "1.1.2", "bigvgan": "2.4.1", "conformer": "0.3.2"}

#: Features: (batch, time, channels) in [0, 1).
_BT = 'dynamic_axes = { x = { 0 = "batch", 1 = "time" } }'
#: Mel spectrograms: (batch, mels, frames) in [0, 1).
_BF = 'dynamic_axes = { x = { 0 = "batch", 2 = "frames" } }'

# ---------------------------------------------------------------------------------------------------------------
# speechbrain: its package imports hyperpyyaml (recipes), sentencepiece (tokenizers), soundfile and torchaudio (audio
# files, and torchaudio's transforms in HiFiGAN's training losses), none in the venv (torchaudio has no wheel for the
# CPU torch here) and none used by these models: the user's module stands in empty ones before importing it.
_SB_STUBS = '''import sys
import types

for _name, _attrs in {"hyperpyyaml": ["resolve_references", "load_hyperpyyaml"],
                      "sentencepiece": ["SentencePieceProcessor"], "soundfile": [],
                      "torchaudio": ["transforms", "functional"]}.items():
    _stub = sys.modules.setdefault(_name, types.ModuleType(_name))
    for _attr in _attrs:
        setattr(_stub, _attr, object)
sys.modules["torchaudio"].__version__ = "2.13.0"  # the torch here: speechbrain reads it to skip its backend check
'''
_SB_ECAPA = _SB_STUBS + "from speechbrain.lobes.models.ECAPA_TDNN import ECAPA_TDNN"
_SB_ASR = (_SB_STUBS + "from speechbrain.decoders.ctc import ctc_greedy_decode\n"
           "from speechbrain.lobes.models.convolution import ConvolutionFrontEnd\n"
           "from speechbrain.lobes.models.transformer.TransformerASR import TransformerASR")
_SB_FS2 = _SB_STUBS + "from speechbrain.lobes.models.FastSpeech2 import FastSpeech2"
_SB_HIFIGAN = _SB_STUBS + "from speechbrain.lobes.models.HifiGAN import HifiganGenerator, UnitHifiganGenerator"
#: Padded utterances: each one's relative length (speechbrain's convention) is 0.5 plus half its first value.
_SB_LENS = "lengths = 0.5 + 0.5 * x[:, 0, 0]\n        "
#: Fbank-like features of 24 bins and relative lengths: the speaker embedding.
_SB_ECAPA_FWD = _SB_LENS + "return self.m(x, lengths)"
#: Subsampling convolutions (strides 2 and 2), the conformer encoder with the padding mask from the relative lengths,
#: the user's CTC head and speechbrain's greedy CTC decoding (per utterance: its length rounded, argmax, repeats and
#: blanks removed), the hypotheses padded with -1 into a tensor.
_SB_ASR_INIT = ("self.front = ConvolutionFrontEnd((None, None, 24), num_blocks=2, num_layers_per_block=1, "
                "out_channels=[8, 8], kernel_sizes=[3, 3], strides=[2, 2], residuals=[False, False], dropout=0.0)"
                "\n        self.ctc = torch.nn.Linear(32, 12)\n        self.front.eval()")
_SB_ASR_FWD = (_SB_LENS + "enc = self.m.encode(self.front(x), lengths)\n        "
               "logp = self.ctc(enc).log_softmax(-1)\n        "
               "hyps = ctc_greedy_decode(logp, lengths, blank_id=0)\n        "
               "tokens = torch.nn.utils.rnn.pad_sequence([torch.tensor(h, dtype=torch.long) for h in hyps], "
               "batch_first=True, padding_value=-1)\n        "
               "return logp, tokens")
#: With random weights the predicted log durations are near zero and every phoneme's ``expm1`` duration truncates to
#: zero frames (an empty spectrogram): the duration predictor's output bias is set to 1.6 (about four frames a phoneme,
#: what a trained model predicts for speech at 16 kHz with a hop of 256).
_SB_FS2_INIT = "self.m.durPred.linear.w.bias.data.fill_(1.6)"
#: Phoneme ids 1..39 from the user's values (no padding): mels, durations, pitch and energy, and the mel lengths.
_SB_FS2_FWD = ("tokens = 1 + (x * 39).long()\n        "
               "mel, post, dur, pitch, _, energy, _, mel_lens = self.m(tokens, pace=1.0)\n        "
               "return post, dur, pitch, energy, mel_lens")
#: A log-mel-like input in [-4, 0): ``inference`` pads it by replication, then the generator.
_SB_HIFIGAN_FWD = "return self.m.inference(4 * x - 4)"
#: Discrete speech units (0..99, one codebook): ``inference`` predicts a duration per unit, repeats the units, and
#: vocodes them.
_SB_UNIT_FWD = "return self.m.inference((x * 100).long())"

# ---------------------------------------------------------------------------------------------------------------
# bigvgan: its package imports the training data module, which imports librosa (not in the venv, used only for mel
# filters in training): the user's module stands in an empty one before importing it.
_BIGVGAN = '''import sys
import types

for _name, _attrs in {"librosa": [], "librosa.filters": ["mel"]}.items():
    _stub = sys.modules.setdefault(_name, types.ModuleType(_name))
    for _attr in _attrs:
        setattr(_stub, _attr, object)
sys.modules["librosa"].filters = sys.modules["librosa.filters"]
from bigvgan import BigVGAN
from bigvgan.env import AttrDict'''
_BIGVGAN_CFG = ("num_mels=20, upsample_rates=[4, 4, 2], upsample_kernel_sizes=[8, 8, 4], upsample_initial_channel=32, "
                "resblock_kernel_sizes=[3, 7], resblock_dilation_sizes=[[1, 3, 5], [1, 3, 5]], snake_logscale=True")
_BIGVGAN_FWD = "return self.m(4 * x - 4)"

# ---------------------------------------------------------------------------------------------------------------
# conformer: Phil Wang's Conformer (Shaw relative positions clamped to 512, depthwise convolution module).
_CONFORMER = "from conformer import Conformer, ConformerBlock"
_CONF_FWD = "return self.m(2 * x - 1)"
#: Padded utterances: each one's length is its first value times the number of frames (at least one), a boolean
#: padding mask, two blocks, then the mean over the valid frames.
_CONF_MASK_INIT = "self.head = torch.nn.Linear(32, 5)"
_CONF_MASK_FWD = ("lengths = (x[:, 0, 0] * x.shape[1]).long().clamp(min=1)\n        "
                  "mask = torch.arange(x.shape[1])[None, :] < lengths[:, None]\n        "
                  "h = 2 * x - 1\n        "
                  "for block in self.m:\n            "
                  "h = block(h, mask=mask)\n        "
                  "pooled = (h * mask[:, :, None]).sum(1) / lengths[:, None]\n        "
                  "return h, self.head(pooled)")
#: Causal convolutions, the user's CTC head and a greedy collapse written in tensors: the label of every frame that is
#: not blank and differs from the previous frame's, others -1.
_CONF_CTC_INIT = "self.ctc = torch.nn.Linear(32, 10)"
_CONF_CTC_FWD = ("logp = self.ctc(self.m(2 * x - 1)).log_softmax(-1)\n        "
                 "ids = logp.argmax(-1)\n        "
                 "new = torch.cat([torch.ones_like(ids[:, :1], dtype=torch.bool), "
                 "ids[:, 1:] != ids[:, :-1]], 1)\n        "
                 "return logp, torch.where(new & (ids != 0), ids, torch.full_like(ids, -1))")

MODELS42 = [
    # speechbrain: speaker embedding, ASR, TTS and vocoders (random weights).
    Spec("sb_ecapa_tdnn_lengths", "speechbrain ECAPA-TDNN (channels 32 and 96, Res2Net scale 4, squeeze-excitation "
         "and attentive statistics pooling with masks from the relative lengths by length_to_mask, global context): "
         "a speaker embedding of padded utterances", _SB_ECAPA,
         "ECAPA_TDNN(24, channels=[32, 32, 32, 32, 96], lin_neurons=16, attention_channels=16, res2net_scale=4, "
         "se_channels=16)", _SB_ECAPA_FWD, "1, 100, 24", _BT),
    Spec("sb_conformer_ctc_greedy", "speechbrain conformer ASR encoder (convolutional front end subsampling by 4, "
         "two conformer layers with RelPosMHAXL relative positions, the key padding mask from round(relative length "
         "* frames)), the user's CTC head and speechbrain's greedy CTC decoding (a Python loop over utterances, "
         "int(round()) lengths, .tolist(), repeats and blanks filtered)", _SB_ASR,
         "TransformerASR(12, 48, d_model=32, nhead=2, num_encoder_layers=2, num_decoder_layers=0, d_ffn=64, "
         "dropout=0.0, encoder_module='conformer', attention_type='RelPosMHAXL', normalize_before=True, "
         "kernel_size=15, causal=False)", _SB_ASR_FWD, "1, 64, 24", _BT, init=_SB_ASR_INIT),
    Spec("sb_fastspeech2_length_regulator", "speechbrain FastSpeech2 (one encoder and one decoder layer of 32, "
         "duration, pitch and energy predictors, the length regulator: per utterance repeat_interleave by the "
         "durations from expm1, pad_sequence, the decoder mask from the mel lengths)", _SB_FS2,
         "FastSpeech2(enc_num_layers=1, enc_num_head=2, enc_d_model=32, enc_ffn_dim=64, enc_k_dim=32, enc_v_dim=32, "
         "enc_dropout=0.0, dec_num_layers=1, dec_num_head=2, dec_d_model=32, dec_ffn_dim=64, dec_k_dim=32, "
         "dec_v_dim=32, dec_dropout=0.0, normalize_before=False, ffn_type='1dcnn', ffn_cnn_kernel_size_list=[9, 1], "
         "n_char=40, n_mels=20, postnet_embedding_dim=32, postnet_kernel_size=5, postnet_n_convolutions=2, "
         "postnet_dropout=0.5, padding_idx=0, dur_pred_kernel_size=3, pitch_pred_kernel_size=3, "
         "energy_pred_kernel_size=3, variance_predictor_dropout=0.5)", _SB_FS2_FWD, "1, 12",
         'dynamic_axes = { x = { 0 = "batch", 1 = "phonemes" } }', init=_SB_FS2_INIT),
    Spec("sb_hifigan_inference", "speechbrain HiFi-GAN generator (upsampling 8, 8, 2 from 32 channels, two "
         "multi-receptive-field resblocks), inference with replicate padding of the mel", _SB_HIFIGAN,
         "HifiganGenerator(20, 1, resblock_type='1', resblock_dilation_sizes=[[1, 3, 5], [1, 3, 5]], "
         "resblock_kernel_sizes=[3, 7], upsample_kernel_sizes=[16, 16, 4], upsample_initial_channel=32, "
         "upsample_factors=[8, 8, 2])", _SB_HIFIGAN_FWD, "1, 20, 24", _BF),
    Spec("sb_unit_hifigan_duration", "speechbrain unit HiFi-GAN (discrete units embedded, a duration predictor: "
         "round(exp - 1) clamped to 1, repeat_interleave of the units, single-utterance inference), resblocks "
         "of type 2", _SB_HIFIGAN,
         "UnitHifiganGenerator(16, 1, resblock_type='2', resblock_dilation_sizes=[[1, 3], [1, 3]], "
         "resblock_kernel_sizes=[3, 5], upsample_kernel_sizes=[10, 8, 4], upsample_initial_channel=32, "
         "upsample_factors=[5, 4, 2], vocab_size=100, embedding_dim=16, duration_predictor=True, "
         "var_pred_hidden_dim=16, var_pred_kernel_size=3, var_pred_dropout=0.5)", _SB_UNIT_FWD, "1, 16, 1",
         'dynamic_axes = { x = { 1 = "units" } }'),
    # bigvgan: the universal vocoder (random weights, the torch anti-aliased activations, not the CUDA kernel).
    Spec("bigvgan_snakebeta_tanh", "bigvgan BigVGAN (upsampling 4, 4, 2 from 32 channels, AMP resblocks of type 1, "
         "SnakeBeta activations in log scale behind anti-aliased 2x upsampling and downsampling by Kaiser-windowed "
         "sinc filters with replicate padding, tanh at the end)", _BIGVGAN,
         f"BigVGAN(AttrDict(dict({_BIGVGAN_CFG}, resblock='1', activation='snakebeta')), use_cuda_kernel=False)",
         _BIGVGAN_FWD, "1, 20, 24", _BF),
    Spec("bigvgan_v2_snake_clamp", "bigvgan BigVGAN-v2 style (AMP resblocks of type 2, Snake activations, no bias "
         "and a clamp to [-1, 1] instead of tanh at the end)", _BIGVGAN,
         f"BigVGAN(AttrDict(dict({_BIGVGAN_CFG}, resblock='2', activation='snake', use_tanh_at_final=False, "
         "use_bias_at_final=False)), use_cuda_kernel=False)", _BIGVGAN_FWD, "1, 20, 24", _BF),
    # conformer: ASR encoder blocks (random weights).
    Spec("conformer_encoder", "conformer Conformer (dim 32, two blocks, two heads, Shaw relative position "
         "embeddings from arange distances clamped to 512, depthwise convolution of 15 with same padding, batch "
         "norm)", _CONFORMER,
         "Conformer(32, depth=2, dim_head=16, heads=2, ff_mult=2, conv_kernel_size=15)", _CONF_FWD, "1, 50, 32", _BT),
    Spec("conformer_blocks_padding_mask", "conformer ConformerBlocks with the user's boolean padding mask from "
         "lengths (masked_fill of the attention logits) and the mean over valid frames through a linear head",
         _CONFORMER,
         "torch.nn.ModuleList([ConformerBlock(dim=32, dim_head=16, heads=2, ff_mult=2, conv_kernel_size=15) "
         "for _ in range(2)])", _CONF_MASK_FWD, "1, 50, 32", _BT, init=_CONF_MASK_INIT),
    Spec("conformer_causal_ctc", "conformer Conformer with causal depthwise convolutions (left padding of 14, "
         "no batch norm), the user's CTC head and a greedy collapse in tensors", _CONFORMER,
         "Conformer(32, depth=2, dim_head=16, heads=2, ff_mult=2, conv_kernel_size=15, conv_causal=True)",
         _CONF_CTC_FWD, "1, 50, 32", _BT, init=_CONF_CTC_INIT),
]

if __name__ == "__main__":
    main(MODELS42, "real_zoo42", PINS42)
