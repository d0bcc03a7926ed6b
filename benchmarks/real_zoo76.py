"""A seventy-sixth real-model zoo, held out: chosen and written before migrate ran on any of them.

    python benchmarks/real_zoo76.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, outside computer vision, in medicine: MRI reconstruction from undersampled
k-space as a scanner's reconstruction service runs it, and EEG decoding (motor-imagery and P300 brain-computer
interfaces, sleep staging) as a real-time or bedside service runs it. The thirty-first zoo's pins, torchaudio's Python
packages (braindecode's filter-bank module imports ``torchaudio.functional`` whenever ``braindecode.modules`` is
imported; the wheel zoos 64, 66, 68, 72 and 74 unpacked, its compiled extension not loaded), two libraries by authors
whose code no earlier zoo or sweep ran, and two small pure-Python libraries braindecode's model base imports
(``PINS76``: unpacked wheels like the others, never pip-installed): fastmri 0.3.0 (the Meta/NYU fastMRI team, Facebook
AI Research and NYU Langone Health: Jure Zbontar, Matthew Muckley, Anuroop Sriram and others,
github.com/facebookresearch/fastMRI, MIT: the fastMRI challenge's baselines, the U-Net and the end-to-end variational
network, with the data transforms and undersampling masks they are trained and evaluated with), braindecode 1.8.1 (Robin
Tibor Schirrmeister, Bruno Aristimunha Pinto, Alexandre Gramfort and contributors, github.com/braindecode/braindecode,
BSD-3-Clause: deep learning for EEG, a model zoo of published decoders behind MNE-Python and skorch),
docstring_inheritance 3.0.0 (Antoine Dechaume: the metaclass of braindecode's ``EEGModuleMixin``; it cannot be stood in
by an empty module) and torchinfo 1.8.0 (Tyler Yep: imported by the same base for ``summary``, not called).

What the packages import beyond their networks: fastmri's package ``__init__`` imports its file utilities, which import
h5py (not in the venv; used only to write reconstructions): stood in by an empty module, as zoo 73 did for brambox;
``fastmri.data`` imports its datasets (pandas, requests, PyYAML and tqdm, all in the venv). braindecode's package
``__init__`` imports the skorch classifiers, and ``braindecode.models`` imports all sixty-odd models (wfdb,
linear-attention-transformer and more for some): both are registered from their import specs without running their
``__init__`` files, as zoos 72 and 74 did, and the chosen model modules are imported directly. MNE-Python is not in the
venv: ``mne.utils`` is a module with the two functions the model modules call, ``warn`` (to ``warnings.warn``) and
``_soft_import`` (an import that gives False when the package is missing, as MNE's does: huggingface_hub is in the venv,
so the models get the Hub mixin as with MNE installed), and ``mne.filter`` an empty module (the filter-bank layer's
imports, no chosen model uses it); ``braindecode.util`` imports h5py and scikit-learn's ``check_random_state`` for its
data code: empty modules too. The wheels have no compiled code. Nothing new in the ``bench`` extra.

Considered and dropped before any model was chosen (by the index, the wheels' files and metadata and a first reading of
the imports): openai-whisper, parallel-wavegan, encodec and pytorchvideo (speech recognition, vocoders, a codec and
video recognition, this zoo's first thoughts: zoos 42 to 72 found sdists only, and ``fetch_sources`` unpacks wheels; not
re-checked), torch-ecg 0.0.33 (Hao Wen's ECG models: boto3, biosppy, wfdb, tensorboardX, torch-optimizer, scikit-learn
and some twenty more among its dependencies, pandas capped below the venv's 3; not read further). Within fastmri:
``AdaptiveVarNet`` and its LOUPE and straight-through policies (active acquisition research: it takes the fully sampled
k-space besides the undersampled one and its mask, to simulate which lines to acquire next, which no deployed
reconstruction has), the Lightning modules and SSIM loss (training), the datasets, the random ``RandomMaskFunc`` and the
magic and Gaussian masks (one kept: the equispaced mask matched to the acceleration, its offset from the seed),
``SensitivityModel`` alone (VarNet's first stage, exported within it). Within braindecode: its skorch ``EEGClassifier``
and ``EEGRegressor``, datasets, preprocessing (MNE on raw recordings) and augmentation, the foundation models (LaBraM,
BIOT, BENDR, EEGPT, CBraMod, REVE, LUNA and the others: their use is with released checkpoints, and BIOT needs
linear-attention-transformer), the filter-bank models (FBCNet, FBMSNet, FBLightConvNet, IFNet: MNE designs their filters
at construction), EEGSimpleConv (torchaudio's resampling), the EMG and MEG models, and the other motor-imagery and sleep
networks (EEGNeX, EEGITNet, EEGTCNet, TIDNet, CTNet, MSVTNet, SleepStagerBlanco2020, DeepSleepNet, AttnSleep and more:
left out to keep the zoo small, one network of each design being kept).

11 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 75 or
in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT deployment
(fastmri's undersampling by its ``EquispacedMaskFractionFunc`` on every call: the k-space's shape passed to NumPy, a
``RandomState`` reseeded inside a context manager, the offset drawn, the line count by ``round`` of the width, a NumPy
mask made with ``np.arange``, ``np.around`` and ``astype``, then ``torch.from_numpy`` and a multiply; the centred FFT as
``torch.view_as_complex``, ``torch.fft.fftn``/``ifftn`` and ``view_as_real`` (complex tensors), its ``fftshift`` as a
``roll`` built in Python loops over the dimensions, each roll a pair of ``narrow`` calls and a ``cat`` with shifts from
the sizes; ``complex_abs`` and the root sum of squares over coils; centre crops whose bounds are Python ints from the
shape; the U-Net's reflect padding in its upsampling path when a size is odd; VarNet's ``NormUnet`` padding each image
to a multiple of 16 with ``math.floor`` and ``math.ceil`` of the shape, group statistics by ``view``,
``batched_mask_center`` choosing between one Python slice (bounds made Python ints by ``int`` of a tensor) and a loop
over the batch by the shape of its bounds, the number of low frequencies turned into a tensor by ``torch.ones``, soft
data consistency by ``torch.where`` on the boolean mask, a Python loop over the cascades, each with two FFTs and complex
multiplications by the sensitivity maps; braindecode's weight constraints as ``torch.nn.utils.parametrize``
parametrizations (``MaxNormParametrize``: the renormalised weight recomputed on every forward), einops ``Rearrange``
layers, ``Square`` and ``SafeLog`` (a clamp and a log) pooling in ShallowFBCSPNet, ``padding="same"`` convolutions with
even kernels, ATCNet's sliding windows (a Python loop slicing the features at offsets, an attention block and a TCN per
window, the mean of the window outputs behind a Python ``if`` on their count), EEGConformer's multi-head attention by
einops ``Rearrange`` and ``F.scaled_dot_product_attention``, U-Sleep's encoder padding odd lengths behind a Python
``if`` on the size, its decoder cropping the skips to the shorter length by ``narrow``, a pooling per 30-s epoch and a
Python ``if`` dropping the epoch axis when there is only one, Chambon's spatial convolution behind ``if self.n_chans >
1``). fastmri (raw k-space with real and imaginary parts last, the fastMRI layout: (slices, rows, columns, 2)
single-coil, (slices, coils, rows, columns, 2) multi-coil; 4x equispaced undersampling with 8 % of the lines at the
centre, the pattern fixed by a seed as fastMRI's validation transforms fix it; images cropped to the square of half the
readout length, as fastMRI's 640-row k-space gives 320x320): the U-Net baseline on single-coil data as its
``UnetDataTransform`` and ``UnetModule`` run it (the zero-filled magnitude image, instance normalisation per slice
clamped to six deviations, the U-Net, the normalisation undone; 16 channels, 3 pools; 0.48 M parameters), the same U-Net
on 4-coil data with the root sum of squares (0.48 M) and the end-to-end VarNet on 4-coil data as its ``VarNetModule``
runs it (the undersampled k-space, the boolean mask and the count of low frequencies in, sensitivity maps estimated by a
U-Net on the centre of k-space, 4 cascades of 8-channel U-Nets, the coil-combined image cropped out; the release has 12
cascades of 18 channels; 0.51 M). braindecode (EEG in; each network's scores turned into class probabilities by the
user's softmax; random weights, dropout off in ``eval``): EEGNet v4 (0.003 M parameters), ShallowFBCSPNet (0.05 M),
Deep4Net (0.28 M), EEGConformer (2 layers where the default has 6; 0.71 M) and ATCNet (5 sliding windows; 0.11 M) on
motor imagery as BCI Competition IV 2a records it (22 electrodes, 250 Hz, 4-s trials, 4 classes), EEG-Inception for ERPs
on a P300 speller's 1-s epochs (8 electrodes, 128 Hz, target or not; 0.015 M), SleepStagerChambon2018 on one 30-s epoch
of two derivations at 100 Hz (5 stages; 0.005 M) and U-Sleep on a recording of two derivations at 128 Hz, a stage per
30-s epoch (depth 12, the library's default; 3.11 M).

Each has the dynamic axes a deploying user declares: batch, height and width for fastmri (the k-space's rows and
columns; the columns must be at least half the rows for the crop), the coils fixed by the scanner's coil array; batch
alone for the trial and epoch classifiers (their final layers are sized by the trial length), batch and time for U-Sleep
(any number of 30-s epochs; a trailing part shorter than an epoch is dropped). Inputs are all in [0, 1): raw k-space (2,
96, 64, 2) and (2, 4, 96, 64, 2), EEG (4, 22, 1000), (4, 8, 128), (4, 2, 3000) and (2, 2, 38400), ten epochs. Set-valued
outputs: none. Outputs: magnitude images (slices, 48, 48); class probabilities (trials, 4), (epochs, 2), (epochs, 5);
U-Sleep's stage probabilities (recordings, 5, epochs).

The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs,
outputs differing across the batch) before any migrate run, with a source tree unpacked by ``fetch_sources`` from
``PINS76`` and ``make_zoo``, each model in its own process with one thread on the two cores shared with other sessions:
at the spec's size, one more in the batch and larger sizes (k-space of 320x256 single-coil, 192x128 and 100x70 with 4
coils; 16 motor-imagery trials, 32 ERP and sleep epochs; U-Sleep on 2 recordings of 30 epochs, one of 30, one of a
single epoch and one of 40000 samples). All passed. Imports take 2.4 to 4.6 s (load varying); builds 0.05 s or less.
Forwards: the fastmri U-Nets 0.02 s at the spec's size and 0.04 to 0.12 s at the larger ones, VarNet 0.10 to 0.26 s; the
braindecode classifiers 0.01 to 0.06 s for 4 or 5 trials and 0.02 to 0.12 s for 16 or 32 (EEGConformer the slowest),
U-Sleep 0.10 s for 10 epochs and 0.19 s for 2x30. Peak memory 0.38 to 0.53 GB a process. Changed after the first eager
runs, before any migrate run: the stand-ins for h5py and scikit-learn in the braindecode imports and the torchaudio
wheel (``braindecode.util`` and ``braindecode.modules`` import them). Odd, left as the libraries have them: with random
weights the class probabilities stay near uniform (standard deviations of 0.003 for EEG-Inception, 0.005 for EEGNet,
0.01 to 0.04 for the others, 0.45 for ShallowFBCSPNet, whose squared, pooled and logged features are large) while they
differ across the batch; fastmri's mask function returns one mask of shape (1, 1, 1, columns, 1) for the whole batch
(every slice of a batch gets the same pattern, as the slices of one volume do) and its NumPy generator is reseeded on
every call; VarNet's images have a standard deviation near 1 on k-space in [0, 1); U-Sleep's output has no epoch axis
for a one-epoch input, (recordings, 5) instead of (recordings, 5, 1); torch warns that ``padding="same"`` with even
kernels copies the input (EEG-Inception, ATCNet, U-Sleep)."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins, torchaudio's Python packages (braindecode's filter-bank module imports
#: ``torchaudio.functional`` when ``braindecode.modules`` is imported; zoos 64, 66, 68, 72 and 74 unpacked the same
#: wheel, its compiled extension not loaded), two libraries by authors no earlier zoo or sweep ran and two small
#: pure-Python libraries braindecode's model base imports, all unpacked wheels like the others (never pip-installed):
#: fastmri (the Meta/NYU fastMRI team's reconstruction models), braindecode (the EEG decoding toolbox),
#: docstring_inheritance (the metaclass of braindecode's model base) and torchinfo (its ``summary``).
PINS76 = {**PINS31, "torchaudio": "2.11.1", "fastmri": "0.3.0", "braindecode": "1.8.1",
          "docstring_inheritance": "3.0.0", "torchinfo": "1.8.0"}

#: The user's inputs, all in [0, 1): raw k-space with real and imaginary parts last, single-coil (slices, rows,
#: columns, 2) or multi-coil (slices, coils, rows, columns, 2), and EEG (trials, epochs or recordings,
#: electrodes, samples).
_B = 'dynamic_axes = { x = { 0 = "batch" } }'
_BT = 'dynamic_axes = { x = { 0 = "batch", 2 = "time" } }'
_KSPACE1 = 'dynamic_axes = { x = { 0 = "batch", 1 = "height", 2 = "width" } }'
_KSPACE = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'

# ---------------------------------------------------------------------------------------------------------------
# fastmri: the package ``__init__`` imports its file utilities, which import h5py at module level (only to write
# reconstructions to files): an empty stand-in. ``fastmri.data`` imports its datasets (pandas, requests, PyYAML and
# tqdm, all in the venv). The undersampling is the library's own mask function and ``apply_mask``.
_MRI = '''
import importlib.machinery
import importlib.util
import sys


def _not_installed(name):
    """An empty module registered under ``name``: imported by code the service never calls."""
    if name not in sys.modules:
        sys.modules[name] = importlib.util.module_from_spec(importlib.machinery.ModuleSpec(name, None))
    return sys.modules[name]


_not_installed("h5py")
import fastmri
from fastmri.data import subsample, transforms
from fastmri.models import Unet, VarNet

#: The acquisition protocol: every fourth phase-encoding line (equispaced) and 8 % of the lines at the centre,
#: the pattern fixed by one seed as fastMRI's validation transforms fix it per volume.
ACCELERATION, CENTER, SEED = 4, 0.08, 1234


class Reconstruction(torch.nn.Module):
    """The shared first steps: undersample the k-space as the protocol does, then crop the image to the square
    of half the readout length (fastMRI's readout is oversampled two times, so a 640-row k-space gives 320x320)."""

    def __init__(self):
        super().__init__()
        self.mask_func = subsample.EquispacedMaskFractionFunc(center_fractions=[CENTER],
                                                              accelerations=[ACCELERATION])

    def undersample(self, kspace):
        return transforms.apply_mask(kspace, self.mask_func, seed=SEED)

    @staticmethod
    def crop_size(kspace):
        rows = kspace.shape[-3]
        return (rows // 2, rows // 2)


class UnetReconstruction(Reconstruction):
    """fastMRI's U-Net baseline as its data transform and module run it: the zero-filled image (inverse centred
    FFT of the undersampled k-space), its magnitude (root sum of squares over coils for multi-coil data),
    instance normalisation clamped to six deviations, the U-Net, and the normalisation undone."""

    def __init__(self, multicoil, **unet):
        super().__init__()
        self.multicoil = multicoil
        self.unet = Unet(in_chans=1, out_chans=1, **unet)

    def forward(self, kspace):
        masked, _, _ = self.undersample(kspace)
        image = transforms.complex_center_crop(fastmri.ifft2c(masked), self.crop_size(kspace))
        image = fastmri.complex_abs(image)
        if self.multicoil:
            image = fastmri.rss(image, dim=1)
        mean = image.mean(dim=(-2, -1), keepdim=True)
        std = image.std(dim=(-2, -1), keepdim=True)
        image = transforms.normalize(image, mean, std, eps=1e-11).clamp(-6, 6)
        output = self.unet(image.unsqueeze(1)).squeeze(1)
        return output * std + mean


class VarNetReconstruction(Reconstruction):
    """fastMRI's end-to-end variational network as its VarNet module runs it: the undersampled multi-coil k-space,
    its boolean mask and the count of low frequencies in, the coil-combined magnitude image cropped out."""

    def __init__(self, **varnet):
        super().__init__()
        self.varnet = VarNet(**varnet)

    def forward(self, kspace):
        masked, mask, low_frequencies = self.undersample(kspace)
        image = self.varnet(masked, mask.to(torch.bool), low_frequencies)
        return transforms.center_crop(image, self.crop_size(kspace))'''

# ---------------------------------------------------------------------------------------------------------------
# braindecode: its package ``__init__`` imports the skorch classifiers and ``braindecode.models`` imports every
# model (some need wfdb, linear-attention-transformer or torchaudio): both registered from their import specs without
# running them. MNE-Python is not in the venv: ``mne.utils`` stood in with the two functions the model modules call
# (``warn`` and ``_soft_import``, which MNE defines as an import that may give False), ``mne.filter`` with an empty
# module (the filter-bank layer's imports, not used by the chosen models). ``braindecode.util`` (the convolution
# module's NumPy-to-torch helper) imports h5py and scikit-learn's ``check_random_state`` for its data code: empty too.
_EEG = '''
import importlib
import importlib.machinery
import importlib.util
import sys
import warnings


def _module(name):
    """A module with nothing in it, registered under ``name``."""
    if name not in sys.modules:
        sys.modules[name] = importlib.util.module_from_spec(importlib.machinery.ModuleSpec(name, None))
    return sys.modules[name]


def _without_init(name):
    """The package ``name`` registered from its import spec, its ``__init__`` not run."""
    if name not in sys.modules:
        sys.modules[name] = importlib.util.module_from_spec(importlib.util.find_spec(name))
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, sys.modules[name])
    return sys.modules[name]


def _warn(message, category=RuntimeWarning, *args, **kwargs):
    warnings.warn(message, category, stacklevel=2)


def _soft_import(name, purpose, strict=True):
    try:
        return importlib.import_module(name)
    except ImportError:
        if strict:
            raise
        return False


_module("mne").utils = _module("mne.utils")
sys.modules["mne"].filter = _module("mne.filter")
sys.modules["mne.utils"].warn = _warn
sys.modules["mne.utils"]._soft_import = _soft_import
sys.modules["mne.filter"].create_filter = sys.modules["mne.filter"]._check_coefficients = None
_module("h5py")
_module("sklearn").utils = _module("sklearn.utils")
sys.modules["sklearn.utils"].check_random_state = None
_without_init("braindecode")
_without_init("braindecode.models")

from braindecode.models.atcnet import ATCNet
from braindecode.models.deep4 import Deep4Net
from braindecode.models.eegconformer import EEGConformer
from braindecode.models.eeginception_erp import EEGInceptionERP
from braindecode.models.eegnet import EEGNet
from braindecode.models.shallow_fbcsp import ShallowFBCSPNet
from braindecode.models.sleep_stager_chambon_2018 import SleepStagerChambon2018
from braindecode.models.usleep import USleep

#: Motor imagery as BCI Competition IV 2a records it: 22 electrodes at 250 Hz, 4 s trials, 4 classes (left hand,
#: right hand, feet, tongue).
MI_CHANNELS, MI_SFREQ, MI_SAMPLES, MI_CLASSES = 22, 250, 1000, 4
#: A P300 speller: 8 electrodes at 128 Hz, 1 s after each flash, target or not.
ERP_CHANNELS, ERP_SFREQ, ERP_SAMPLES = 8, 128, 128
#: Sleep staging: two EEG derivations (Fpz-Cz and Pz-Oz), 30 s epochs, 5 stages (W, N1, N2, N3, REM).
SLEEP_CHANNELS, STAGES = 2, 5


class Probabilities(torch.nn.Module):
    """A decoding service: the braindecode network's scores, class probabilities out (softmax over axis 1)."""

    def __init__(self, network):
        super().__init__()
        self.network = network

    def forward(self, x):
        return torch.softmax(self.network(x), dim=1)'''

MODELS76 = [
    # fastmri: MRI reconstruction from undersampled k-space.
    Spec("fastmri_unet_singlecoil", "fastmri U-Net reconstruction (single-coil knee k-space, 4x equispaced)", _MRI,
         "UnetReconstruction(False, chans=16, num_pool_layers=3, drop_prob=0.0)", "return self.m(x)", "2, 96, 64, 2",
         _KSPACE1),
    Spec("fastmri_unet_multicoil", "fastmri U-Net reconstruction (4-coil k-space, root sum of squares)", _MRI,
         "UnetReconstruction(True, chans=16, num_pool_layers=3, drop_prob=0.0)", "return self.m(x)",
         "2, 4, 96, 64, 2", _KSPACE),
    Spec("fastmri_varnet", "fastmri end-to-end VarNet (4-coil k-space, sensitivity maps, 4 cascades)", _MRI,
         "VarNetReconstruction(num_cascades=4, sens_chans=4, sens_pools=3, chans=8, pools=3)", "return self.m(x)",
         "2, 4, 96, 64, 2", _KSPACE),
    # braindecode: EEG decoding.
    Spec("braindecode_eegnet", "braindecode EEGNet (motor imagery, 22 electrodes, 4 s at 250 Hz)", _EEG,
         "Probabilities(EEGNet(n_chans=MI_CHANNELS, n_outputs=MI_CLASSES, n_times=MI_SAMPLES, sfreq=MI_SFREQ))",
         "return self.m(x)", "4, 22, 1000", _B),
    Spec("braindecode_shallow_fbcsp", "braindecode ShallowFBCSPNet (motor imagery, squaring and log pooling)", _EEG,
         "Probabilities(ShallowFBCSPNet(n_chans=MI_CHANNELS, n_outputs=MI_CLASSES, n_times=MI_SAMPLES, "
         "sfreq=MI_SFREQ))", "return self.m(x)", "4, 22, 1000", _B),
    Spec("braindecode_deep4", "braindecode Deep4Net (motor imagery, four conv-pool blocks)", _EEG,
         "Probabilities(Deep4Net(n_chans=MI_CHANNELS, n_outputs=MI_CLASSES, n_times=MI_SAMPLES, sfreq=MI_SFREQ))",
         "return self.m(x)", "4, 22, 1000", _B),
    Spec("braindecode_eegconformer", "braindecode EEGConformer (motor imagery, convolution and self-attention)",
         _EEG, "Probabilities(EEGConformer(n_chans=MI_CHANNELS, n_outputs=MI_CLASSES, n_times=MI_SAMPLES, "
         "sfreq=MI_SFREQ, num_layers=2))", "return self.m(x)", "4, 22, 1000", _B),
    Spec("braindecode_atcnet", "braindecode ATCNet (motor imagery, sliding windows, attention and TCN)", _EEG,
         "Probabilities(ATCNet(n_chans=MI_CHANNELS, n_outputs=MI_CLASSES, n_times=MI_SAMPLES, sfreq=MI_SFREQ))",
         "return self.m(x)", "4, 22, 1000", _B),
    Spec("braindecode_eeginception_erp", "braindecode EEG-Inception (P300 speller, 8 electrodes, 1 s at 128 Hz)",
         _EEG, "Probabilities(EEGInceptionERP(n_chans=ERP_CHANNELS, n_outputs=2, n_times=ERP_SAMPLES, "
         "sfreq=ERP_SFREQ))", "return self.m(x)", "4, 8, 128", _B),
    Spec("braindecode_sleep_chambon", "braindecode SleepStagerChambon2018 (30 s epochs at 100 Hz, 5 stages)", _EEG,
         "Probabilities(SleepStagerChambon2018(n_chans=SLEEP_CHANNELS, sfreq=100, n_outputs=STAGES, n_times=3000))",
         "return self.m(x)", "4, 2, 3000", _B),
    Spec("braindecode_usleep", "braindecode U-Sleep (a recording's EEG at 128 Hz, a stage per 30 s epoch)", _EEG,
         "Probabilities(USleep(n_chans=SLEEP_CHANNELS, sfreq=128, n_outputs=STAGES, input_window_seconds=30))",
         "return self.m(x)", "2, 2, 38400", _BT),
]

if __name__ == "__main__":
    main(MODELS76, "real_zoo76", PINS76)
