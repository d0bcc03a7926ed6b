"""A forty-first real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo41.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, on sequence and time-series models: the thirty-first zoo's pins and three
more libraries by three other authors, whose code no earlier zoo or sweep ran (``PINS41``: unpacked wheels like the
others, never pip-installed): mambapy 1.2.0 (Alexandre Torres-Leguet's Mamba in pure PyTorch: ``pscan``, a parallel scan
written as an autograd Function that pads the sequence to ``2 ** math.ceil(math.log2(L))`` and sweeps up and down in
place over ``log2`` levels; ``selective_scan_seq``, a Python loop over the time steps; a depthwise convolution over time
sliced back to ``[:, :, :L]``; Jamba, Mamba layers alternating with grouped-query attention and a sparse mixture of
experts whose routing takes ``torch.topk`` of a softmax, a one-hot expert mask, ``torch.where`` per expert,
``.tolist()`` of the token indices, ``continue`` for an expert with no token, and ``index_add_``; torch only), ncps
1.0.1 (Mathias Lechner's Neural Circuit Policies: CfC and LTC recurrent networks whose forward is a Python loop ``for t
in range(seq_len)`` over ``input[:, t]``, zero initial states made from the batch size, batchless and time-major layouts
chosen by ``input.dim()`` and ``batch_first``, ``torch.stack`` of the step outputs; LTC's ODE solver unfolds six steps a
time step with softplus-constrained parameters; AutoNCP wirings with sparsity masks drawn by a seeded NumPy generator;
the wired CfC cell of layers with masked weights; an LSTM mixed memory; torch, and future and packaging in its metadata)
and torch-timeseries 0.2.5 (Weiwei Ye's forecasting library: PatchTST with per-window mean and standard deviation
normalisation (RevIN-like, from the Non-stationary Transformer) and de-normalisation, replication padding and ``unfold``
patching, channel independence by a reshape to ``(-1, n_vars, ...)``; TimesNet, whose ``FFT_for_Period`` takes the top-k
amplitudes of an ``rfft``, ``.detach().cpu().numpy()`` and Python-int periods ``T // top_list``, then pads each period's
sequence with ``torch.zeros`` to a multiple of the period and reshapes it to 2-D for inception convolutions; Autoformer
with a moving-average series decomposition (edge replication by ``repeat`` and ``cat``), auto-correlation by ``rfft``
and ``irfft``, ``top_k = int(factor * math.log(length))`` delays aggregated by a ``gather`` in a Python loop, and a
decoder seeded by the trend and the mean; torch, einops, NumPy; its package imports its datasets (sktime), experiments
(scikit-learn, torchmetrics, wandb), CLI (fire) and utilities (prettytable), none in the venv and none used by the
models, so the user's module stands in empty ones, as zoo 40's does for accelerate). Nothing new in the ``bench`` extra.
Considered and dropped before any model was chosen (by the wheel's metadata, without reading its model code): pypots 1.5
(Wenjie Du's toolbox for partially observed series: h5py, sympy, seaborn, matplotlib and tensorboard among its
dependencies, a fourth library was not needed), xlstm, rwkv, s5-pytorch, mingru-pytorch, lru-pytorch (Phil Wang's, whose
libraries zoo 40 already used), momentfm, neuralforecast, pytorch-forecasting, darts and tsai (training frameworks with
heavy dependencies: not read further, three libraries by three authors were enough); within the chosen libraries:
mambapy's Mamba2 (imports mamba_ssm's CUDA kernels at import, not in the venv), its Vision Mamba (images, not
sequences), the language models' ``generate`` (sampling with ``torch.multinomial``) and ``from_pretrained`` (downloads),
ncps's ``timespans`` argument (``timespans[:, t].squeeze()`` of a ``(batch, time, 1)`` tensor broadcasts against
``(batch, units)`` only when the batch is one, so a batch of two fails in the library), its TensorFlow, Keras and Paddle
ports, torch-timeseries's Informer (``ProbAttention`` samples keys with ``torch.randint`` in the forward: two runs
differ), FEDformer (not chosen: a random mode selection at construction and SciPy's Legendre polynomials for its wavelet
version), its diffusion and GAN generators (``torch.randn`` in the forward) and its irregular-series models; the
libraries zoos 15 to 40 dropped or used, as they found (pytorch-tcn is zoo 17's).

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 40 or
in the library sweeps (benchmarks/sweep_*.py), all 10 from the three new libraries and all of the kinds that most often
need work for an ONNX or TensorRT deployment (Python loops over the time steps and over log2 of the length, padding to
the next power of two from ``math.log2`` of a size, in-place sweeps in an autograd Function, data-dependent expert
routing with ``torch.where``, ``.tolist()`` and ``index_add_``, ``.numpy()`` of FFT peaks picking Python-int periods
and paddings, ``int(math.log(length))`` top-k, states made from the batch size, layout chosen by ``input.dim()``, the
user's padding mask from lengths held in the input). Selective state spaces, from mambapy (d_model 16, d_state 8,
random weights): Mamba with the parallel scan (two layers), Mamba with the sequential scan and inner layer norms as a
sequence classifier (the last step through the user's linear head, 3 classes), and Jamba (four layers: Mamba and
attention alternating, a mixture of four experts with top-2 routing every second layer) with its hidden states and the
router logits of its expert layers. Liquid networks, from ncps (random weights): CfC with an AutoNCP wiring of 20
neurons and 4 motor outputs (the sequence and the final state), LTC of 16 units with mixed memory (the last readout and
the LSTM cell state) and CfC in the direct-solution ``pure`` mode on time-major input. Forecasting, anomaly detection
and classification, from torch-timeseries (d_model 16, 48 steps of 3 variables, random weights): PatchTST forecasting
24 steps (patches of 8 by 4), TimesNet reconstruction for anomaly scores (top-3 periods) with the user's per-step
squared error, TimesNet classification (4 classes, top-2 periods) of padded sequences with the user's mask from lengths
(each sequence's length its first value times the window, at least one), and Autoformer forecasting 24 steps (moving
average of 25, label length 24, zero calendar features).

Each is small and has the dynamic axes a deploying user declares: batch and time for the state-space and recurrent
models (time then batch for the time-major CfC), batch and variables for PatchTST (channel independent), batch only for
TimesNet and Autoformer (their windows are fixed by linear layers over time: ``seq_len`` is a constructor argument).
Inputs are the user's features in [0, 1) (``2 * x - 1`` for the state-space and recurrent models). Machinery, table and
counts are real_zoo2.py's. The wrappers were checked only for building and running eagerly (deterministic over two
forwards, finite outputs, none constant) at two sizes (the spec's, and a batch of two at 40 steps for mambapy, two at
30 steps for ncps, two with five variables for PatchTST, three for TimesNet and Autoformer) before the first migrate
run, with a stand-in source tree holding only torchvision and the three new libraries: with one thread on the shared
two cores (loaded by other sessions, a load average of about 6), each in its own process, the best of two forwards at
the spec's size took 0.006 to 0.021 s for mambapy (Jamba the slowest), 0.006 to 0.038 s for ncps (LTC the slowest),
0.002 to 0.019 s for torch-timeseries (Autoformer the slowest); at most 0.057 s at the larger size (LTC); builds
(imports included) took 5.8 to 9.6 s. Changed after the first eager runs, before any migrate run: Autoformer failed
with the library's default ``moving_avg=[24]`` (a list: its top-level decomposition takes the first kernel, but its
encoder and decoder layers get the list and fail on ``(kernel_size - 1) // 2``), so it is given the int 25 (the
paper's); LTC's readout and hidden state were the same tensor (all 16 units are outputs), so it returns the readout
and the cell state. Autoformer prints "Autocorrelation used !" once per attention layer at construction."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and three libraries by three other authors, unpacked wheels like the others (never
#: pip-installed): mambapy (Alexandre Torres-Leguet's pure-PyTorch Mamba: a parallel scan padded to the next power of
#: two, a sequential scan, Jamba with attention and a top-k mixture of experts; torch only), ncps (Mathias Lechner's
#: Neural Circuit Policies: closed-form continuous-time (CfC) and liquid time-constant (LTC) recurrent networks that
#: loop over time, NCP wirings; torch, and future and packaging in the metadata only) and torch-timeseries (Weiwei
#: Ye's forecasting library: PatchTST, TimesNet, Autoformer and others; torch, einops, NumPy, and sktime, scikit-learn,
#: torchmetrics, prettytable, fire and wandb at package import, for datasets, metrics and experiments only).
PINS41 = {**PINS31, "mambapy": "1.2.0", "ncps": "1.0.1", "torch_timeseries": "0.2.5"}

#: Sequences: (batch, time, features) in [0, 1).
_BT = 'dynamic_axes = { x = { 0 = "batch", 1 = "time" } }'
_B = 'dynamic_axes = { x = { 0 = "batch" } }'

# ---------------------------------------------------------------------------------------------------------------
# mambapy: Mamba and Jamba on (batch, time, d_model) features.
_MAMBA = "from mambapy.mamba import Mamba, MambaConfig"
_JAMBA = "from mambapy.jamba import Jamba, JambaLMConfig"
#: The user's features centred: (batch, time, 16) in [-1, 1).
_MAMBA_SEQ = "return self.m(2 * x - 1)"
#: A sequence classifier: the last step's features through the user's linear head (3 classes).
_MAMBA_CLS_INIT = "self.head = torch.nn.Linear(16, 3)"
_MAMBA_CLS = "return self.head(self.m(2 * x - 1)[:, -1])"
#: The hidden states and the router logits of the mixture-of-experts layers (the others give ones).
_JAMBA_FWD = ("y, router_logits = self.m(2 * x - 1)\n        "
              "return y, torch.stack([r for r in router_logits if r.shape[1] > 1])")

# ---------------------------------------------------------------------------------------------------------------
# ncps: CfC and LTC recurrent networks (a Python loop over the time steps).
_NCPS = "from ncps.torch import CfC, LTC\nfrom ncps.wirings import AutoNCP"
#: The output sequence (the hidden state is the second output).
_NCPS_SEQ = "y, h = self.m(2 * x - 1)\n        return y, h"
#: Mixed memory: the state is an (h, c) pair; the last step's readout.
_NCPS_MIXED = "y, (h, c) = self.m(2 * x - 1)\n        return y, c"

# ---------------------------------------------------------------------------------------------------------------
# torch-timeseries: its package imports its datasets (sktime), experiments (scikit-learn, torchmetrics, wandb), CLI
# (fire) and utilities (prettytable), none in the venv and none used by the models: the user's module stands in
# empty ones before importing it.
_TT = '''import sys
import types

for _name, _attrs in {"sktime": [], "sktime.datasets": ["load_from_tsfile_to_dataframe"], "fire": ["Fire"],
                      "prettytable": ["PrettyTable"], "wandb": [], "sklearn": [],
                      "sklearn.metrics": ["accuracy_score", "precision_recall_fscore_support"],
                      "torchmetrics": ["MeanAbsoluteError", "MeanSquaredError", "MetricCollection", "Accuracy",
                                       "Metric"]}.items():
    _stub = sys.modules.setdefault(_name, types.ModuleType(_name))
    for _attr in _attrs:
        setattr(_stub, _attr, object)
from torch_timeseries.model import Autoformer, PatchTST, TimesNet'''
#: A 48-step window of 3 variables forecast 24 steps ahead (no time features).
_TT_FORECAST = "return self.m(x, None, None, None)"
#: Reconstruction for anomaly scores: the reconstruction and the per-step squared error.
_TT_ANOMALY = ("rec = self.m(x, None, None, None)\n        "
               "return rec, ((rec - x) ** 2).mean(-1)")
#: Padded sequences: each sequence's length is its first value times 48 (at least 1): the user's padding mask.
_TT_CLASSIFY = ("lengths = (x[:, 0, 0] * x.shape[1]).long().clamp(min=1)\n        "
                "mask = (torch.arange(x.shape[1])[None, :] < lengths[:, None]).float()\n        "
                "return self.m(x * mask[:, :, None], mask, None, None)")
#: Hourly calendar features (4 of them, freq "h") all zero, and the decoder input only for its shape.
_TT_AUTOFORMER = ("marks = torch.zeros(x.shape[0], x.shape[1], 4)\n        "
                  "dec = torch.zeros(x.shape[0], 24 + 24, x.shape[2])\n        "
                  "dec_marks = torch.zeros(x.shape[0], 24 + 24, 4)\n        "
                  "return self.m(x, marks, dec, dec_marks)")

MODELS41 = [
    # mambapy: selective state-space models (random weights).
    Spec("mambapy_mamba_pscan", "mambapy Mamba (d_model 16, two layers, parallel scan: the sequence padded to the "
         "next power of two by math.log2 of its length, an autograd Function with in-place up and down sweeps)",
         _MAMBA, "Mamba(MambaConfig(d_model=16, n_layers=2, d_state=8))", _MAMBA_SEQ, "1, 24, 16", _BT),
    Spec("mambapy_mamba_seq_classifier", "mambapy Mamba with the sequential selective scan (a Python loop over "
         "time) and inner layer norms, the last step's features through the user's linear head", _MAMBA,
         "Mamba(MambaConfig(d_model=16, n_layers=2, d_state=8, pscan=False, inner_layernorms=True))", _MAMBA_CLS,
         "1, 24, 16", _BT, init=_MAMBA_CLS_INIT),
    Spec("mambapy_jamba_moe", "mambapy Jamba (four layers alternating Mamba and grouped-query attention, sparse "
         "mixture of four experts with top-2 routing: torch.where per expert, .tolist() indices, index_add_, "
         "experts with no tokens skipped): hidden states and router logits", _JAMBA,
         "Jamba(JambaLMConfig(d_model=16, n_layers=4, mlp_size=32, d_state=8, num_attention_heads=2, "
         "num_key_value_heads=1, num_experts=4, num_experts_per_tok=2, attn_layer_offset=1, attn_layer_period=2, "
         "expert_layer_offset=1, expert_layer_period=2))", _JAMBA_FWD, "1, 24, 16", _BT),
    # ncps: liquid networks (random weights; the NCP wiring's sparsity from a seeded NumPy generator).
    Spec("ncps_cfc_autoncp", "ncps CfC with an AutoNCP wiring (20 neurons, 4 motor outputs: the wired cell's "
         "layers with sparsity masks), the output sequence and the final state", _NCPS,
         "CfC(8, AutoNCP(20, 4))", _NCPS_SEQ, "1, 16, 8", _BT),
    Spec("ncps_ltc_mixed_memory", "ncps LTC (16 units, six ODE unfolds a step, an LSTM mixed memory: the state an "
         "(h, c) pair), the last step's readout", _NCPS,
         "LTC(8, 16, return_sequences=False, mixed_memory=True)", _NCPS_MIXED, "1, 16, 8", _BT),
    Spec("ncps_cfc_pure_time_major", "ncps CfC in the direct-solution mode ('pure', one backbone layer of 32), "
         "time-major input (time, batch, features)", _NCPS,
         "CfC(8, 32, mode='pure', batch_first=False, backbone_units=32, backbone_layers=1)", _NCPS_SEQ,
         "16, 1, 8", 'dynamic_axes = { x = { 0 = "time", 1 = "batch" } }'),
    # torch-timeseries: forecasting, anomaly detection and classification (random weights).
    Spec("tt_patchtst_forecast", "torch_timeseries PatchTST (d_model 16, two heads, two layers, patches of 8 by 4 "
         "with replication padding, per-window mean and standard deviation normalisation and de-normalisation, "
         "channel independence): 48 steps of 3 variables forecast 24 ahead", _TT,
         "PatchTST(seq_len=48, pred_len=24, enc_in=3, n_heads=2, e_layers=2, d_model=16, d_ff=32, patch_len=8, "
         "stride=4)", _TT_FORECAST, "1, 48, 3", 'dynamic_axes = { x = { 0 = "batch", 2 = "variables" } }'),
    Spec("tt_timesnet_anomaly", "torch_timeseries TimesNet anomaly detection (the top-3 periods by FFT amplitude "
         "taken to NumPy, zero padding to a multiple of each period, a reshape to 2-D and inception convolutions, "
         "softmax period weights): the reconstruction and its per-step error", _TT,
         "TimesNet(seq_len=48, pred_len=0, e_layers=1, d_ff=16, num_kernels=3, top_k=3, d_model=16, enc_in=3, "
         "c_out=3, task_name='anomaly_detection')", _TT_ANOMALY, "1, 48, 3", _B),
    Spec("tt_timesnet_classify_mask", "torch_timeseries TimesNet classification of padded sequences (the user's "
         "padding mask from lengths, the library multiplies the features by it; 4 classes)", _TT,
         "TimesNet(seq_len=48, pred_len=0, e_layers=1, d_ff=16, num_kernels=3, top_k=2, d_model=16, enc_in=3, "
         "c_out=3, task_name='classification', num_class=4)", _TT_CLASSIFY, "1, 48, 3", _B),
    Spec("tt_autoformer", "torch_timeseries Autoformer (series decomposition by a moving average with edge "
         "replication, auto-correlation by FFT with the top int(log(length)) delays gathered, a decoder seeded "
         "by the trend and the mean): 48 steps forecast 24 ahead", _TT,
         "Autoformer(enc_in=3, dec_in=3, seq_len=48, pred_len=24, label_len=24, c_out=3, d_ff=32, e_layers=1, "
         "d_layers=1, output_attention=False, moving_avg=25, n_heads=2, d_model=16)", _TT_AUTOFORMER,
         "1, 48, 3", _B),
]

if __name__ == "__main__":
    main(MODELS41, "real_zoo41", PINS41)
