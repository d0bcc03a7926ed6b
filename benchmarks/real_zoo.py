"""A zoo of real models (random weights) migrated as a user's checkout: per-model results and wall times.

    python benchmarks/real_zoo.py [--quick] [--work DIR] [--output FILE] [--no-timing-rows]

Library sources: pinned wheels of torchvision, timm, ultralytics, transformers and effdet are fetched once
with ``pip download --no-deps`` (into ``WORK/wheels``) and their Python packages (and dist-info
metadata, which ultralytics reads) unpacked into ``WORK/src``; each run copies that folder into a
temporary project, beside one generated wrapper file per model and a generated ``zoo.toml``, so
``migrate`` sees the libraries as the user's own files and may rewrite them. Nothing is installed
from those wheels: installing timm/torchvision/ultralytics with pip pulls the CUDA torch.

Pure-Python dependencies the libraries import, installed into the venv with ``pip install --no-deps``
(the ``bench`` extra lists them): pyyaml, pillow, opencv-python-headless, psutil, py-cpuinfo,
huggingface_hub (with httpx2, httpcore2, h11, anyio, truststore, hf-xet, typer, click, shellingham,
rich, markdown-it-py, mdurl, pygments, annotated-doc), safetensors, regex, tokenizers, tqdm,
requests (urllib3, idna, certifi, charset_normalizer); for effdet, omegaconf (with
antlr4-python3-runtime) and pycocotools (compiled, with no torch in it). psutil also samples
the memory here.

Random weights with BatchNorm's default statistics leave some detectors with every score tied
(SSDlite, RT-DETR, YOLO26n, EfficientDet-D0): their wrappers take BatchNorm statistics from a
calibration pass (``Spec.calibrate``, ``CALIBRATION``). The detectors that return their top 20 as
one tensor of (box, score, class) rows compare it as a set of rows (``unordered``): ONNX Runtime's
scores differ from torch's in the fifth digit, and neighbours closer than that change places.
SSDlite's is ``(20, 6)``; YOLO26n's and EfficientDet's are batched, ``(batch, 20, 6)``, and the
verifier compares each batch element's rows as a set (rank 3: rows on axis 1).

The wheel's compiled torchvision ops do not load with the CPU torch: every wrapper first imports
``real_zoo_env/torchvision_ops_standin.py`` (copied into a folder named ``site-packages`` so that
``migrate`` treats it as installed code), which defines ``torchvision::nms`` and ``roi_align`` with
torch.library and plain-PyTorch kernels. No weights are downloaded (``weights=None``,
``pretrained=False``, configs built in code); a model whose construction fails is a row with its
reason (``migrate``'s exit 2), not the end of the run.

Measured, each a fresh ``python -m trtcodemod migrate --config zoo.toml --format json`` process:
``--jobs 1 --no-cache`` (the per-model table: its report, the model's wall time from the progress
lines, and the peak memory of the command's process tree sampled every 0.2 s while that model
ran), ``--jobs 2 --no-cache`` (its verdicts, errors by op, fixes and remaining compared with
``--jobs 1``; other fields that differ, timings aside, are named; it starts the longest models
first from the ``--jobs 1`` run's times, as a zoo re-run in CI does: the two ``--no-cache`` runs
share a cache folder that holds only those times), ``--jobs 2`` on an empty cache (cold: a first
run, in the config's order), again (warm), and after
appending a comment to one library file (the models that re-ran are named). The machine's own
2-process speed-up (``check_throughput.machine_speedup``) and load average are measured around
the ``--jobs`` rows. Writes the Markdown tables to ``--output`` and prints them; the raw numbers
go beside it as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from check_throughput import machine, machine_speedup
from zoo import stable

HERE = Path(__file__).resolve().parent
#: The wheels, pinned so that the table can be reproduced.
PINS = {"torchvision": "0.29.1", "timm": "1.0.31", "ultralytics": "8.4.190", "transformers": "5.24.0",
        "effdet": "0.4.1"}
STANDIN = HERE / "real_zoo_env" / "torchvision_ops_standin.py"
#: The library file touched for the one-file re-run (only the ultralytics models run it).
TOUCHED = Path("ultralytics/nn/modules/head.py")
DYNAMIC_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
DYNAMIC_B = 'dynamic_axes = { x = { 0 = "batch" } }'



#: What zoo model files' import blocks share (source text): ``_not_installed(name)`` registers an empty module for
#: an import the service never calls, ``_without_init(name)`` a package from its import spec without running its
#: ``__init__`` (a package whose ``__init__`` imports what the venv lacks).
STAND_INS = '''
import importlib.machinery
import importlib.util
import sys


def _not_installed(name):
    """An empty module registered under ``name``: imported by code the service never calls."""
    if name not in sys.modules:
        sys.modules[name] = importlib.util.module_from_spec(importlib.machinery.ModuleSpec(name, None))
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, sys.modules[name])
    return sys.modules[name]


def _without_init(name):
    """The package ``name`` registered from its import spec, its ``__init__`` not run."""
    if name not in sys.modules:
        sys.modules[name] = importlib.util.module_from_spec(importlib.util.find_spec(name))
    return sys.modules[name]'''


@dataclass(frozen=True)
class Spec:
    """One zoo model: what the wrapper imports, builds and returns, its inputs and config lines."""

    name: str
    source: str  # the library and constructor, for the table
    imports: str
    construct: str  # an expression building the library model
    forward: str  # the body of Wrap.forward(self, x)
    shape: str  # the input's shape, e.g. "1, 3, 64, 64"
    config: str = ""  # extra lines of its [models.NAME] table
    init: str = ""  # extra lines of Wrap.__init__ after self.m is built
    #: A call of the library model on a batch ``xb`` of four inputs: when set, the wrapper gives the
    #: model's BatchNorm layers running statistics from that call (see CALIBRATION).
    calibrate: str = ""
    quick: bool = False
    #: Lines of Wrap.__init__ after the calibration: what an exporter does to the calibrated model (fusing).
    finish: str = ""


_DETR_BACKBONE = ('backbone_config=dict(model_type="resnet", layer_type="basic", depths=[1, 1, 1, 1], '
                  'hidden_sizes=[16, 32, 64, 64], embedding_size=16, out_features=["stage4"])')
_RTDETR_BACKBONE = ('backbone_config=dict(model_type="rt_detr_resnet", layers_type="basic", depths=[1, 1, 1, 1], '
                    'hidden_sizes=[16, 32, 64, 64], embedding_size=16, out_features=["stage2", "stage3", "stage4"])')
_DEFORMABLE_BACKBONE = ('backbone_config=dict(model_type="resnet", layer_type="basic", depths=[1, 1, 1, 1], '
                        'hidden_sizes=[16, 32, 64, 64], embedding_size=16, out_features=["stage2", "stage3", "stage4"])')
_TV_DETECT = 'det = self.m([x[0]])[0]\n        return det["boxes"], det["scores"], det["labels"]'
_TV_ROWS = ('det = self.m([x[0]])[0]\n        '
            'return torch.cat([det["boxes"], det["scores"][:, None], det["labels"][:, None].to(det["boxes"].dtype)], 1)')
_HF_DETECT = "out = self.m(pixel_values=x)\n        return out.logits, out.pred_boxes"

MODELS = [
    Spec("tv_mobilenet_v3_small", "torchvision mobilenet_v3_small", "import torchvision",
         "torchvision.models.mobilenet_v3_small(weights=None, num_classes=10)", "return self.m(x)",
         "1, 3, 64, 64", DYNAMIC_BHW + '\nexporter = "both"', quick=True),
    # The top 20 detections as one (20, 6) tensor whose row order is not compared: ONNX Runtime's
    # scores differ from torch's by up to 3e-5, and neighbours closer than that swap (docs/zoo.md).
    Spec("tv_ssdlite", "torchvision ssdlite320_mobilenet_v3_large (top 20)", "import torchvision",
         "torchvision.models.detection.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None, "
         "num_classes=3, detections_per_img=20)", _TV_ROWS, "1, 3, 128, 128", 'unordered = ["output"]',
         calibrate="self.m(list(xb))"),
    Spec("tv_fasterrcnn", "torchvision fasterrcnn_mobilenet_v3_large_320_fpn", "import torchvision",
         "torchvision.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn(weights=None, weights_backbone=None, "
         "num_classes=3)", _TV_DETECT, "1, 3, 128, 128"),
    Spec("tv_lraspp", "torchvision lraspp_mobilenet_v3_large", "import torchvision",
         "torchvision.models.segmentation.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None, "
         "num_classes=3)", 'return self.m(x)["out"]', "1, 3, 96, 96", DYNAMIC_BHW),
    Spec("timm_efficientnet_b0", "timm efficientnet_b0", "import timm",
         'timm.create_model("efficientnet_b0", pretrained=False, num_classes=10)', "return self.m(x)",
         "1, 3, 64, 64", DYNAMIC_BHW),
    Spec("timm_vit_tiny", "timm vit_tiny_patch16_224 (img_size 64)", "import timm",
         'timm.create_model("vit_tiny_patch16_224", pretrained=False, img_size=64, num_classes=10)',
         "return self.m(x)", "1, 3, 64, 64", DYNAMIC_B, quick=True),
    Spec("yolo11n", "ultralytics YOLO11n (yolo11n.yaml, nc=3)", "from ultralytics.nn.tasks import DetectionModel",
         'DetectionModel("yolo11n.yaml", nc=3, verbose=False)', "y, _ = self.m(x)\n        return y",
         "1, 3, 128, 128", DYNAMIC_BHW, quick=True),
    Spec("yolo11n_seg", "ultralytics YOLO11n-seg (yolo11n-seg.yaml, nc=3)",
         "from ultralytics.nn.tasks import SegmentationModel", 'SegmentationModel("yolo11n-seg.yaml", nc=3, verbose=False)',
         "(det, proto), _ = self.m(x)\n        return det, proto", "1, 3, 128, 128", DYNAMIC_BHW),
    # The end-to-end head's top-k (get_topk_index: `k = min(max_det, anchors)`), 20 detections,
    # (batch, 20, 6): each image's rows compared as a set, as SSDlite's.
    Spec("yolo26n", "ultralytics YOLO26n (yolo26n.yaml, nc=3, end-to-end top 20)",
         "from ultralytics.nn.tasks import DetectionModel", 'DetectionModel("yolo26n.yaml", nc=3, verbose=False)',
         "y, _ = self.m(x)\n        return y", "1, 3, 128, 128", DYNAMIC_BHW + '\nunordered = ["output"]',
         init="self.m.end2end = True\n        self.m.model[-1].max_det = 20", calibrate="self.m(xb)"),
    Spec("hf_detr", "transformers DETR (small config)", "from transformers import DetrConfig, DetrForObjectDetection",
         "DetrForObjectDetection(DetrConfig(use_timm_backbone=False, use_pretrained_backbone=False, "
         f"{_DETR_BACKBONE}, d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2, "
         "decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, num_queries=10, num_labels=3))",
         _HF_DETECT, "1, 3, 64, 64", DYNAMIC_BHW),
    Spec("hf_yolos", "transformers YOLOS (small config)", "from transformers import YolosConfig, YolosForObjectDetection",
         "YolosForObjectDetection(YolosConfig(hidden_size=32, num_hidden_layers=1, num_attention_heads=2, "
         "intermediate_size=64, image_size=[64, 64], patch_size=16, num_detection_tokens=5, num_labels=3))",
         _HF_DETECT, "1, 3, 64, 64", quick=True),
    Spec("hf_rtdetr", "transformers RT-DETR (small config)", "from transformers import RTDetrConfig, RTDetrForObjectDetection",
         "RTDetrForObjectDetection(RTDetrConfig(num_queries=30, d_model=64, encoder_hidden_dim=64, decoder_layers=1, "
         "encoder_layers=1, encoder_ffn_dim=128, decoder_ffn_dim=128, num_labels=4, encoder_in_channels=[32, 64, 64], "
         f"decoder_in_channels=[64, 64, 64], {_RTDETR_BACKBONE}, use_pretrained_backbone=False))",
         _HF_DETECT, "1, 3, 128, 128", calibrate="self.m(pixel_values=xb)"),
    Spec("hf_deformable_detr", "transformers Deformable DETR (small config)",
         "from transformers import DeformableDetrConfig, DeformableDetrForObjectDetection",
         "DeformableDetrForObjectDetection(DeformableDetrConfig(use_timm_backbone=False, use_pretrained_backbone=False, "
         f"{_DEFORMABLE_BACKBONE}, d_model=32, "
         "encoder_layers=1, decoder_layers=2, encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64, "
         "decoder_ffn_dim=64, num_queries=10, num_labels=3, num_feature_levels=3))",
         _HF_DETECT, "1, 3, 64, 64", DYNAMIC_BHW),
    # effdet's DetBenchPredict: top-k, then torchvision's batched_nms (the stand-in), 20 detections
    # a row of (x1, y1, x2, y2, score, class), (batch, 20, 6): each image's rows compared as a set.
    Spec("effdet_d0", "effdet EfficientDet-D0 (image size 128, predict bench)", "from effdet import create_model",
         'create_model("efficientdet_d0", bench_task="predict", num_classes=3, pretrained_backbone=False, '
         "image_size=(128, 128), max_det_per_image=20)", "return self.m(x)", "1, 3, 128, 128",
         'unordered = ["output"]', calibrate="self.m(xb)"),
]

#: The wrapper's BatchNorm calibration, for the models whose ``Spec.calibrate`` says how to call them.
#: With random weights and BatchNorm's default statistics (mean 0, variance 1) the activations of
#: SSDlite and RT-DETR shrink layer by layer (SSDlite's last feature map: std 3e-26), so every
#: anchor or query scores the same and top-k/NMS choose among exact ties, which torch and ONNX
#: Runtime break differently: "not faithful" even on the traced input, with nothing baked. The
#: statistics of the model's own activations (momentum None: the plain average over two seeded
#: batches) make the scores distinct, as trained weights do. Frozen BatchNorm (a module of its
#: own with ``running_mean``/``running_var`` buffers, not a torch ``_BatchNorm``: torchvision's
#: ``FrozenBatchNorm2d``, transformers' ``*FrozenBatchNorm2d`` in the DETR family's backbones) is
#: calibrated the same way: while the batches run it normalizes with each batch's statistics (a
#: forward hook replaces its output), and its buffers then hold their average. Missed before, it
#: left DEIMv2's and PP-DocLayoutV3's HGNetV2 backbones at std 1e-15 after three stages, every
#: encoder row the same to 1e-7 and PP-DocLayoutV3's 30 queries chosen among exact ties.
CALIBRATION = '''

def calibrate_batchnorm(model, run, shape):
    """Running statistics of every BatchNorm, frozen ones too, from ``run`` on two seeded random batches."""
    norms = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    frozen = [m for m in model.modules() if "BatchNorm" in type(m).__name__
              and not isinstance(m, torch.nn.modules.batchnorm._NormBase)
              and isinstance(getattr(m, "running_mean", None), torch.Tensor)
              and isinstance(getattr(m, "running_var", None), torch.Tensor)]
    for norm in norms:
        norm.reset_running_stats()
        norm.momentum = None
        norm.train()
    seen = {}

    def batch_statistics(norm, args, output):
        # What a BatchNorm does in training: normalize with this batch's statistics, and keep them.
        x = args[0]
        axes = [d for d in range(x.dim()) if d != 1]
        mean, var = x.mean(axes), x.var(axes, unbiased=False)
        count = x.numel() // x.shape[1]
        sums = seen.setdefault(norm, [0, 0.0, 0.0])
        sums[0] += 1
        sums[1] = sums[1] + mean
        sums[2] = sums[2] + var * count / max(count - 1, 1)
        view = [1, -1] + [1] * (x.dim() - 2)
        weight = norm.weight if getattr(norm, "weight", None) is not None else torch.ones_like(mean)
        bias = norm.bias if getattr(norm, "bias", None) is not None else torch.zeros_like(mean)
        scale = weight.reshape(view) * (var.reshape(view) + getattr(norm, "eps", 1e-5)).rsqrt()
        return (x - mean.reshape(view)) * scale + bias.reshape(view)

    hooks = [norm.register_forward_hook(batch_statistics) for norm in frozen]
    generator = torch.Generator().manual_seed(1234)
    try:
        with torch.no_grad():
            for _ in range(2):
                run(torch.rand(4, *shape[1:], generator=generator))
    finally:
        for hook in hooks:
            hook.remove()
    for norm, (batches, mean, var) in seen.items():
        norm.running_mean.copy_(mean / batches)
        norm.running_var.copy_(var / batches)
    for norm in norms:
        norm.eval()
'''

WRAPPER = '''"""{source}, random weights: a zoo model generated by benchmarks/real_zoo.py."""
import os
import sys

sys.path.insert(0, {standin!r})  # stand-ins for torchvision's compiled ops (installed code)
os.environ.setdefault("YOLO_CONFIG_DIR", {settings!r})  # ultralytics' settings file stays in the work dir
import torchvision_ops_standin  # noqa: E402,F401  (before torchvision: it registers fakes for these ops)

import torch  # noqa: E402
{imports}  # noqa: E402
{calibration}

class Wrap(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.m = {construct}.eval()
        {init}

    def forward(self, x):
        {forward}


def build():
    return Wrap().eval()


def inputs(generator):
    return (torch.rand({shape}, generator=generator),)
'''


def fetch_sources(work: Path, pins: dict[str, str] = PINS) -> Path:
    """Download the pinned wheels once and unpack their Python packages under ``work/src``."""
    src = work / "src"
    stamp = src / ".pins.json"
    if stamp.exists() and json.loads(stamp.read_text()) == pins:
        return src
    wheels = work / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(src, ignore_errors=True)
    src.mkdir(parents=True)
    for package, version in pins.items():
        if not list(wheels.glob(f"{package}-{version}-*.whl")):
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                            f"{package}=={version}", "-d", str(wheels)], check=True)
        (wheel,) = wheels.glob(f"{package}-{version}-*.whl")
        with zipfile.ZipFile(wheel) as archive:
            for name in archive.namelist():
                top = name.split("/")[0]
                # Compiled extensions (and their bundled libraries) cannot load with the CPU torch.
                if not (name.endswith(".so") or top.endswith(".libs")):
                    archive.extract(name, src)
    stamp.write_text(json.dumps(pins))
    return src


def _init(spec: Spec) -> str:
    """The lines of Wrap.__init__ after the model is built: the spec's own, then its calibration."""
    lines = [spec.init] if spec.init else []
    if spec.calibrate:
        lines.append(f"calibrate_batchnorm(self.m, lambda xb: {spec.calibrate}, ({spec.shape}))")
    if spec.finish:
        lines.append(spec.finish)
    return "\n        ".join(lines) or "pass"


def make_zoo(folder: Path, src: Path, models: list[Spec]) -> Path:
    """The user's checkout: the libraries, a wrapper per model and the zoo config."""
    zoo = folder / "zoo"
    shutil.copytree(src, zoo, ignore=shutil.ignore_patterns("__pycache__", ".pins.json"))
    (zoo / "pyproject.toml").write_text("[project]\nname = 'real-zoo-benchmark'\n")
    standin = folder / "site-packages"
    standin.mkdir()
    shutil.copy2(STANDIN, standin / STANDIN.name)
    tables = []
    for spec in models:
        (zoo / f"{spec.name}.py").write_text(WRAPPER.format(
            source=spec.source, standin=str(standin), settings=str(folder / "ultralytics-settings"),
            imports=spec.imports, construct=spec.construct, init=_init(spec), forward=spec.forward,
            shape=spec.shape, calibration=CALIBRATION if spec.calibrate else ""))
        tables.append(f'[models.{spec.name}]\nmodel_file = "{spec.name}.py"\nmodel = "build"\ninputs = "inputs"\n'
                      f"timeout = 1800\n{spec.config}\n")
    if any(spec.imports.startswith("from ultralytics") for spec in models):
        # ultralytics writes its settings file on first import: do it now, so that every run sees the same state.
        subprocess.run([sys.executable, "-c", "import ultralytics"], cwd=zoo, check=True, capture_output=True,
                       env={**os.environ, "YOLO_CONFIG_DIR": str(folder / "ultralytics-settings")})
    config = zoo / "zoo.toml"
    config.write_text("# Generated by benchmarks/real_zoo.py: real models, random weights.\n\n" + "\n".join(tables))
    return config


@dataclass
class Run:
    """One command: its wall time, JSON report, progress lines (with their times) and memory."""

    seconds: float
    report: dict[str, Any]
    progress: list[tuple[float, str]]
    peak_mib: dict[str, float]  # model name (the one running at the sample) -> peak MiB of the process tree
    run_peak_mib: float


def _tree_rss(root: Any) -> int:
    import psutil

    total = 0
    for proc in [root, *root.children(recursive=True)]:
        try:
            total += proc.memory_info().rss
        except psutil.Error:
            pass
    return total


def run_zoo(config: Path, names: list[str], *args: str, cache: Path | None = None) -> Run:
    """Run ``migrate --config`` in a fresh process; with --jobs 1, memory is attributed per model."""
    import psutil

    env = {k: v for k, v in os.environ.items() if k != "TRTCODEMOD_CACHE_DIR"}
    if cache is not None:
        env["TRTCODEMOD_CACHE_DIR"] = str(cache)
    progress: list[tuple[float, str]] = []
    with tempfile.TemporaryFile("w+") as out:
        start = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-m", "trtcodemod", "migrate", "--config", str(config),
                                  "--format", "json", *args], stdout=out, stderr=subprocess.PIPE, text=True,
                                 env=env, cwd=config.parent)
        reader = threading.Thread(target=lambda: progress.extend(
            (time.perf_counter() - start, line.rstrip("\n")) for line in child.stderr))  # type: ignore[union-attr]
        reader.start()
        root = psutil.Process(child.pid)
        peaks: dict[str, float] = {}
        run_peak = 0.0
        while child.poll() is None:
            mib = _tree_rss(root) / 2**20
            run_peak = max(run_peak, mib)
            done = sum(line.startswith("[") for _, line in progress)
            if done < len(names):
                peaks[names[done]] = max(peaks.get(names[done], 0.0), mib)
            time.sleep(0.2)
        seconds = time.perf_counter() - start
        reader.join()
        out.seek(0)
        text = out.read()
    if not text.startswith("{"):
        tail = "\n".join(line for _, line in progress[-30:])
        raise SystemExit(f"migrate failed ({child.returncode}):\n{tail}")
    return Run(seconds, json.loads(text), progress, peaks, run_peak)


def model_seconds(run: Run) -> dict[str, float]:
    """Each model's wall time in a --jobs 1 run: the time between consecutive progress lines."""
    times, last = {}, 0.0
    for at, line in run.progress:
        if line.startswith("[") and "] " in line:
            name = line.split("] ", 1)[1].split(":", 1)[0]
            times[name], last = at - last, at
    return times


def outcome(report: dict[str, Any]) -> list[Any]:
    """What a model's result says (verdicts, errors by op, fixes, what remains), without measurements."""
    def side(value: dict[str, Any] | None) -> Any:
        return value and {k: value.get(k) for k in ("exported", "faithful", "trt_errors_by_op")}

    return [(m["name"], m.get("exit_code"), side(m.get("before")), side(m.get("after")), m.get("equivalent"),
             sorted((f["rule"], f.get("path"), f.get("line")) for f in m.get("applied", [])),
             sorted((r.get("rule") or "", r.get("op") or "", r.get("source") or "") for r in m.get("remaining", [])))
            for m in report.get("models", [])]


def differences(one: Any, two: Any, path: str = "") -> list[str]:
    """The paths of the leaves where two reports differ (timings aside)."""
    if isinstance(one, dict) and isinstance(two, dict):
        return [d for k in sorted(set(one) | set(two), key=str)
                for d in differences(one.get(k), two.get(k), f"{path}.{k}")]
    if isinstance(one, list) and isinstance(two, list) and len(one) == len(two):
        return [d for i, (a, b) in enumerate(zip(one, two)) for d in differences(a, b, f"{path}[{i}]")]
    return [] if one == two else [path]


def _flag(before: Any, after: Any) -> str:
    word = {True: "yes", False: "no", None: "?"}
    return word[before] if before == after else f"{word[before]} → {word[after]}"


def _ops(side: dict[str, Any]) -> str:
    by_op = side.get("trt_errors_by_op") or {}
    return ", ".join(f"{op} {n}" for op, n in sorted(by_op.items())) or "0"


def _where(source: str, root: str) -> str:
    return source.replace(root.rstrip("/") + "/", "") if root else source


def _remaining(model: dict[str, Any], root: str, limit: int = 4) -> str:
    seen: list[str] = []
    # Errors before warnings; what a rule names first, then hostile nodes and failures, then the
    # values baked in without a rule.
    items = sorted(model.get("remaining", []), key=lambda r: (r.get("severity") == "warning", r.get("rule") is None,
                                                              r.get("kind") == "baked"))
    for item in items:
        label = item.get("rule") or item.get("op") or item.get("kind") or "?"
        if item.get("severity") == "warning":
            label = f"{label[:-1]}, warning)" if label.endswith(")") else f"{label} (warning)"
        where = item.get("source")
        op = item.get("op") or ""
        entry = f"{label} @ {_where(where, root)}" if where else label if op in label else f"{label} {op}".strip()
        if entry not in seen:
            seen.append(entry)
    if not seen:
        return "none"
    extra = f" (+{len(seen) - limit} more)" if len(seen) > limit else ""
    return "; ".join(seen[:limit]) + extra


def _fixes(model: dict[str, Any]) -> str:
    counts: dict[str, int] = {}
    for fix in model.get("applied", []):
        counts[fix["rule"]] = counts.get(fix["rule"], 0) + 1
    reverted = len(model.get("reverted", []))
    text = ", ".join(f"{rule}×{n}" if n > 1 else rule for rule, n in sorted(counts.items())) or "none"
    return text + (f" ({reverted} reverted)" if reverted else "")


def model_rows(data: dict[str, Any]) -> list[str]:
    """The per-model Markdown table (and its totals row) from the benchmark's JSON."""
    root = data.get("zoo_root", "")
    lines = ["| model | exported | faithful | TensorRT errors by op | equivalent | fixes applied | remaining (rule or op @ file:line) | exit | time | peak memory |",
             "|---|---|---|---|---|---|---|---:|---:|---:|"]
    totals = {"exported": 0, "faithful": 0, "equivalent": 0, "fixes": 0, "exit": {0: 0, 1: 0, 2: 0}, "seconds": 0.0}
    for model in data["report"]["models"]:
        name = model["name"]
        before, after = model.get("before") or {}, model.get("after") or {}
        exit_code = model.get("exit_code", 2)
        totals["exit"][exit_code] = totals["exit"].get(exit_code, 0) + 1
        totals["exported"] += bool(after.get("exported"))
        totals["faithful"] += bool(after.get("faithful"))
        totals["equivalent"] += bool(model.get("equivalent"))
        totals["fixes"] += len(model.get("applied", []))
        # With --jobs 2 the progress lines cannot time a model alone: its own report's wall time
        # (the model shared the cores with another), and no peak memory of its own.
        seconds = data["seconds"].get(name, model.get("seconds"))
        totals["seconds"] += seconds or 0
        memory = data["peak_mib"].get(name)
        shown_memory = f"{memory:.0f} MiB" if memory is not None else "—"
        if model.get("error") and not before:
            reason = str(model["error"]).splitlines()[0][:160].replace("|", "\\|")
            lines.append(f"| {name} | — | — | — | — | — | could not run: {reason} | {exit_code} | "
                         f"{seconds or 0:.0f} s | {shown_memory} |")
            continue
        ops = _ops(before) if _ops(before) == _ops(after) else f"{_ops(before)} → {_ops(after)}"
        lines.append(f"| {name} | {_flag(before.get('exported'), after.get('exported'))} | "
                     f"{_flag(before.get('faithful'), after.get('faithful'))} | {ops} | "
                     f"{'yes' if model.get('equivalent') else 'no'} | {_fixes(model)} | "
                     f"{_remaining(model, root).replace('|', '/')} | {exit_code} | {seconds or 0:.0f} s | "
                     f"{shown_memory} |")
    count = len(data["report"]["models"])
    exits = ", ".join(f"{n}× exit {code}" for code, n in sorted(totals["exit"].items()) if n)
    lines.append(f"| **total ({count})** | {totals['exported']} after | {totals['faithful']} after | | "
                 f"{totals['equivalent']} | {totals['fixes']} | | {exits} | {totals['seconds']:.0f} s | "
                 + (f"max {max(data['peak_mib'].values()):.0f} MiB |" if data["peak_mib"] else "— |"))
    return lines


def _others(timing: dict[str, Any]) -> str:
    others = timing.get("other_differences") or []
    return f" (other fields that differ: {', '.join(others)})" if others else ""


def timing_rows(data: dict[str, Any]) -> list[str]:
    """The wall-time table (--jobs, cold/warm cache, one file touched) from the benchmark's JSON."""
    t = data["timing"]
    count = len(data["report"]["models"])
    low, high = sorted(t["machine_speedup"])
    return [f"| `migrate --config` over {count} real models | wall time | |",
            "|---|---:|---|",
            f"| `--jobs 1 --no-cache` | {t['jobs1']:.0f} s | peak memory {t['jobs1_peak_mib']:.0f} MiB |",
            f"| `--jobs 2 --no-cache` | {t['jobs2']:.0f} s | {t['jobs1'] / t['jobs2']:.2f}x faster than `--jobs 1` "
            f"(the machine's own 2-process speed-up: {low:.2f}x-{high:.2f}x; load average {t['load'][0]:.1f} "
            f"before, {t['load'][1]:.1f} after); peak memory {t['jobs2_peak_mib']:.0f} MiB; "
            f"same results: {'yes' if t['same'] else 'NO'}{_others(t)} |",
            f"| `--jobs 2`, cold cache | {t['cold']:.0f} s | |",
            f"| `--jobs 2`, warm cache | {t['warm']:.1f} s | {100 * t['warm'] / t['cold']:.1f}% of cold; "
            f"{t['cached_warm']}/{count} from the cache (exit-2 models always re-run) |",
            f"| `--jobs 2` after touching `{t['touched_file']}` | {t['touched']:.0f} s | re-ran: "
            f"{', '.join(t['reran']) or 'none'} |"]


def render(data: dict[str, Any]) -> str:
    lines = [f"Measured on {data['machine']}; torch {data['versions']['torch']}, onnxruntime "
             f"{data['versions']['onnxruntime']}; wheels: " + ", ".join(f"{k} {v}" for k, v in data["pins"].items())
             + f". Command: `{data['command']}`.", "", *model_rows(data)]
    if "timing" in data:
        lines += ["", *timing_rows(data)]
    return "\n".join(lines) + "\n"


def save(output: Path, data: dict[str, Any], text: str) -> None:
    """Write the Markdown tables to ``output`` and the raw numbers beside it as JSON; print the tables."""
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text)
    output.with_suffix(".json").write_text(json.dumps(data, indent=1))
    print(text, end="")


def _rerun(run: Run) -> list[str]:
    return [line.split("] ", 1)[1].split(":")[0] for _, line in run.progress
            if line.startswith("[") and "(cached)" not in line]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="four models only (a sanity check)")
    parser.add_argument("--work", type=Path, default=HERE / ".real_zoo", help="wheels and unpacked sources (cached)")
    parser.add_argument("--output", type=Path, default=None, help="the Markdown file (default WORK/real_zoo.md)")
    parser.add_argument("--no-timing-rows", action="store_true", help="only the --jobs 1 run and the per-model table")
    parser.add_argument("--models", default="", help="comma-separated model names (default: the mode's set)")
    parser.add_argument("--render", type=Path, default=None, help="only render the tables of a saved JSON")
    args = parser.parse_args()
    output = args.output or args.work / ("real_zoo_quick.md" if args.quick else "real_zoo.md")
    if args.render:
        print(render(json.loads(args.render.read_text())), end="")
        return
    import onnxruntime
    import torch

    wanted = set(filter(None, args.models.split(",")))
    models = [spec for spec in MODELS if (spec.name in wanted if wanted else spec.quick or not args.quick)]
    names = [spec.name for spec in models]
    src = fetch_sources(args.work)
    command = "python benchmarks/real_zoo.py" + (" --quick" if args.quick else "")
    data: dict[str, Any] = {"machine": machine(), "pins": PINS, "command": command,
                            "versions": {"torch": torch.__version__, "onnxruntime": onnxruntime.__version__}}
    with tempfile.TemporaryDirectory(prefix="trtcodemod-real-zoo-") as temp:
        config = make_zoo(Path(temp), src, models)
        data["zoo_root"] = str(config.parent)
        load_before = os.getloadavg()[0]
        speedup_before = machine_speedup()
        history = Path(temp) / "history"  # with --no-cache only the models' wall times go there
        one = run_zoo(config, names, "--no-cache", "--jobs", "1", cache=history)
        print(f"--jobs 1: {one.seconds:.0f} s", file=sys.stderr, flush=True)
        data.update(report=one.report, seconds=model_seconds(one), peak_mib=one.peak_mib)
        output.parent.mkdir(parents=True, exist_ok=True)
        output.with_suffix(".json").write_text(json.dumps(data, indent=1))  # kept if a later run is stopped
        if not args.no_timing_rows:
            two = run_zoo(config, names, "--no-cache", "--jobs", "2", cache=history)
            speedup_after = machine_speedup()
            load_after = os.getloadavg()[0]
            print(f"--jobs 2: {two.seconds:.0f} s", file=sys.stderr, flush=True)
            cache = Path(temp) / "cache"
            cold = run_zoo(config, names, "--jobs", "2", cache=cache)
            warm = run_zoo(config, names, "--jobs", "2", cache=cache)
            touched_file = config.parent / TOUCHED
            touched_file.write_text(touched_file.read_text() + "\n# touched\n")
            touched = run_zoo(config, names, "--jobs", "2", cache=cache)
            data["timing"] = {
                "jobs1": one.seconds, "jobs2": two.seconds, "cold": cold.seconds, "warm": warm.seconds,
                "touched": touched.seconds, "jobs1_peak_mib": one.run_peak_mib, "jobs2_peak_mib": two.run_peak_mib,
                "machine_speedup": [speedup_before, speedup_after], "load": [load_before, load_after],
                "same": outcome(one.report) == outcome(two.report),
                "other_differences": differences(stable(one.report), stable(two.report))[:20],
                "cached_warm": sum("(cached)" in line for _, line in warm.progress),
                "touched_file": str(TOUCHED), "reran": _rerun(touched)}
    save(output, data, render(data))


if __name__ == "__main__":
    main()
