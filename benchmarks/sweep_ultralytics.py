"""A sweep of ultralytics 8.4.190: the model configs no zoo built, each through migrate as an exporter would see it.

    python benchmarks/sweep_ultralytics.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Not a held-out zoo: a survey of one library, to find the idioms of its modules that stop migrate most often and fix
them in general. ultralytics is the library most TensorRT users deploy; the zoos built only a few of its configs. The
models are the yaml configs under ``ultralytics/cfg/models`` that no zoo (benchmarks/real_zoo*.py) built: YOLOv8's
P2, P6 and Ghost variants (detection, pose and segmentation at P6), YOLO-World v1 at scale n, YOLOE on the v8, 11 and
26 backbones (their class embeddings set once from seeded random tensors, as a deployment does offline with CLIP's
text), the full YOLOv3, YOLOv9 s, m, c and c-seg (GELAN, ELAN1, AConv, ADown, RepNCSPELAN4, SPPELAN), YOLOv10 s, m, b
and l (SCDown, C2fCIB with large-kernel RepVGGDW, PSA; the end-to-end one-to-one head), YOLO12 and YOLO26
classifiers, YOLO26 at P2 and P6 (end-to-end), and RT-DETR-x and RT-DETR-ResNet101. Each is built from its yaml with
scale n where the config has scales (random weights, ``nc=3``), put in eval mode and fused with ``fuse()`` as
ultralytics' own exporter does before it traces (Conv and BatchNorm folded, RepConv and RepVGGDW merged, the
end-to-end heads' unused branch removed). YOLOE-26n's end-to-end head keeps its top 20 (``max_det``; the other
end-to-end heads: below), compared as sets of rows, and the end-to-end heads' BatchNorm statistics are calibrated
(benchmarks/real_zoo.py's CALIBRATION) before fusing, so that scores are distinct as trained weights make them.
Outputs are what the model returns in eval mode: the decoded predictions (and the mask prototypes for segmentation).
Inputs are 128 px (RT-DETR's 300 queries need 336 anchors: 128 px at strides 8 to 32), 64 px for the classifiers
and YOLOv3; dynamic batch, height and width.
Pins and machinery are the fourteenth zoo's. Added after the first run: YOLOE's visual prompts (SAVPE: the
input's channels after the image are prompt masks, pooled to the stride-8 map), YOLO26n-pose fused, and three heads
in export mode as the exporter sets them (``export=True, format="engine", dynamic=True``: each head returns its
predictions alone).

The end-to-end heads of the deeper models (YOLOv10 s to l, YOLO26n at P2 and P6, the fused YOLO26n-pose and -seg,
YOLOE-26n-seg with a visual prompt) first ran with their top 20 and stopped on numerics, not on migrate: with random
weights and BatchNorm statistics calibrated at 128 px, their class logits saturate on the verifier's resized set (the
traced image repeated, scaled by 1.1 with noise, at twice the size), every score is 1.0 in float32 and the top 20 is
chosen among exact ties, which ONNX Runtime and torch break differently (YOLOv10s at 256 px: the model's own float32
and float64 eager outputs differ at 129 of 240 elements; recalibrating at other or mixed sizes did not help). They
run with one class and ``max_det`` above any anchor count instead, so that ``k = min(max_det, anchors)`` is the
anchor count at every size (what TRT712 is for) and every anchor's row is compared as a set, ties or not.

Results (32 models, in slices with ``--jobs 1`` on two shared cores; exit codes of migrate; "after" is after this
sweep's fix, commit 53ad31b):

| model | first contact | what it took / what stops it (library file:line) |
|---|---|---|
| yolov8n_fused, yolov8n_p2, yolov8n_ghost, yolov8n_ghost_p6, yolov8n_pose_p6, yolov8n_seg_p6, yolov3, yolov9s, yolov9m, yolov9c, yolov9c_seg | fixed, exit 0 | TRT726 (the anchor cache, head.py:222) |
| yolov8n_world | fixed, exit 0 | TRT602, TRT717, TRT726 |
| yoloe_v8n, yoloe_v8n_seg, yoloe_11n_seg, yoloe_11n_vp | fixed, exit 0 | TRT717, TRT726 (a TRT712 warning at head.py:1314 left) |
| yoloe_26n | fixed, exit 0 | TRT712, TRT717, TRT726 |
| rtdetr_x, rtdetr_resnet101 | fixed, exit 0 | TRT316 x2, TRT712 x2, TRT726 (TRT713 warnings at transformer.py:571, 575) |
| yolov10s, yolov10m (every anchor) | fixed, exit 0 | TRT712 (k = min(max_det, anchors), head.py:279), TRT726 |
| yolo12n_cls, yolo26n_cls, yolo11n_pose_export, yolo11n_obb_export | clean, exit 0 | |
| yolov10b, yolov10l, yolo26n_p2, yolo26n_p6, yolo26n_pose_fused, yolo26n_seg_export, yoloe_26n_seg_vp | exit 1 | random-weight numerics on the resized set: the graph matches eager on the traced set; on set 3 a few elements differ where the model's own float32 and float64 runs differ more (yolo26n_seg_export: 34 of 102144 outside tolerance, 2088 between float32 and float64; yolo26n_p2: 306 of 65280, 2302; yolo26n_pose_fused: 158 of 153216, 2470; yolov10b: 13 of 16128, box corners off by 0.2 to 1.2 px where float64 lands between, the scores saturated at 1.0, 13 distinct values among 1344 anchors), so TRT712/TRT726 are reverted as not proved |

What the sweep found in migrate itself: every ultralytics detector refuses the observer's stretched set (2n + 1 = 257
px: the neck concatenates maps an odd size leaves a row apart), and migrate printed "run error: the stretched set" for
each; worse, the refused set was still named in proofs ("one with the dynamic axes stretched (x[2] 128->257)"), and
the second trace fell back to 2n, which leaves a rounded-up size where it was (four stride-2 convolutions end at 1
row from 8 and from 16). Fixed in general (observer and second trace): 2n + 1, then 3n, then 2n, and only a set the
model ran through is named (tests/migrate/test_migrate.py, test_retrace.py).
"""

from __future__ import annotations

from real_zoo import DYNAMIC_B, DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo14 import PINS14

_T = "from ultralytics.nn.tasks import "
_YOLO = "y, _ = self.m(x)\n        return y"
_SEG = "(y, proto), _ = self.m(x)\n        return y, proto"
_IMG = "1, 3, 128, 128"
_SMALL = "1, 3, 64, 64"
#: As ultralytics' exporter does before tracing: Conv+BatchNorm folded, re-parameterized blocks merged.
_FUSE = "self.m.fuse(verbose=False)"
#: The end-to-end heads: their top 20, compared per image as a set of rows.
_TOP20 = "self.m.end2end = True\n        self.m.model[-1].max_det = 20"
_E2E = DYNAMIC_BHW + '\nunordered = ["output"]'
#: Three classes from seeded random embeddings, as a deployment sets them once offline (CLIP's text there).
_CLASSES = 'self.m.set_classes(["a", "b", "c"], torch.randn(1, 3, 512))'


def _det(name, yaml, note, shape=_IMG, model="DetectionModel", forward=_YOLO, config=DYNAMIC_BHW, init="",
         calibrate="", nc=3):
    return Spec(name, f"ultralytics {note} ({yaml}, fused)", _T + model, f'{model}("{yaml}", nc={nc}, verbose=False)',
                forward, shape, config, init=init, calibrate=calibrate, finish=_FUSE)


def _e2e(name, yaml, note, shape=_IMG, model="DetectionModel", forward=_YOLO, init=_TOP20, config=_E2E,
         calibrate="self.m(xb)"):
    return _det(name, yaml, note + ", end-to-end top 20", shape, model, forward, config, init, calibrate)


#: The end-to-end head keeping every anchor (``max_det`` above any anchor count: ``k = min(max_det, anchors)`` is
#: the anchor count, which follows the input's size), one class: see the module docstring.
_TOP_ALL = "self.m.end2end = True\n        self.m.model[-1].max_det = 1 << 20"


def _e2e_all(name, yaml, note, shape=_IMG, model="DetectionModel", forward=_YOLO, init="", unordered="output",
             calibrate="self.m(xb)"):
    return _det(name, yaml, note + ", end-to-end, every anchor, one class", shape, model, forward,
                DYNAMIC_BHW + f'\nunordered = ["{unordered}"]', (init + "\n        " if init else "") + _TOP_ALL,
                calibrate, nc=1)

#: What ultralytics' exporter sets on its heads before tracing (``format="engine"``, ``dynamic=True``): each head
#: returns its predictions alone.
_EXPORT = ('[setattr(h, k, v) for h in self.m.modules() if hasattr(h, "export") '
           'for k, v in (("export", True), ("format", "engine"), ("dynamic", True))]')
#: YOLOE's visual prompts: the input's channels after the image are prompt masks, pooled to the stride-8 map
#: and thresholded, as ultralytics' visual-prompt predictor gives them (one per class).
_VP = "(torch.nn.functional.avg_pool2d(x[:, 3:], 8) > 0.5).to(x.dtype)"
_VP_CALIBRATION = _VP.replace("x[", "xb[").replace("x.dtype", "xb.dtype")


MODELS = [
    # YOLOv8: the plain detector fused, P2 and P6 scales, Ghost blocks, pose and segmentation at P6, World v1.
    _det("yolov8n_fused", "yolov8n.yaml", "YOLOv8n"),
    _det("yolov8n_p2", "yolov8n-p2.yaml", "YOLOv8n-p2 (stride-4 scale)"),
    _det("yolov8n_ghost", "yolov8n-ghost.yaml", "YOLOv8n-ghost (GhostConv, C3Ghost)"),
    _det("yolov8n_ghost_p6", "yolov8n-ghost-p6.yaml", "YOLOv8n-ghost-p6"),
    _det("yolov8n_pose_p6", "yolov8n-pose-p6.yaml", "YOLOv8n-pose-p6 (nc=1)", model="PoseModel"),
    _det("yolov8n_seg_p6", "yolov8n-seg-p6.yaml", "YOLOv8n-seg-p6", model="SegmentationModel", forward=_SEG),
    _det("yolov8n_world", "yolov8n-world.yaml", "YOLOv8n-world v1 (three classes from seeded random embeddings)",
         model="WorldModel", init="self.m.txt_feats = torch.randn(1, 3, 512)"),
    # YOLOE on three backbones, class embeddings set once.
    _det("yoloe_v8n", "yoloe-v8n.yaml", "YOLOE-v8n (three classes)", model="YOLOEModel", init=_CLASSES),
    _det("yoloe_v8n_seg", "yoloe-v8n-seg.yaml", "YOLOE-v8n-seg (three classes)", model="YOLOESegModel",
         forward=_SEG, init=_CLASSES),
    _det("yoloe_11n_seg", "yoloe-11n-seg.yaml", "YOLOE-11n-seg (three classes)", model="YOLOESegModel",
         forward=_SEG, init=_CLASSES),
    _e2e("yoloe_26n", "yoloe-26n.yaml", "YOLOE-26n (three classes)", model="YOLOEModel",
         init=_CLASSES + "\n        " + _TOP20),
    # YOLOv3 full (no scales), YOLOv9's GELAN family.
    _det("yolov3", "yolov3.yaml", "YOLOv3 (full)", shape=_SMALL),
    _det("yolov9s", "yolov9s.yaml", "YOLOv9s (ELAN1, AConv, SPPELAN)"),
    _det("yolov9m", "yolov9m.yaml", "YOLOv9m (RepNCSPELAN4, AConv)"),
    _det("yolov9c", "yolov9c.yaml", "YOLOv9c (RepNCSPELAN4, ADown)"),
    _det("yolov9c_seg", "yolov9c-seg.yaml", "YOLOv9c-seg", model="SegmentationModel", forward=_SEG),
    # YOLOv10's end-to-end one-to-one head at four sizes (SCDown, C2fCIB, PSA).
    _e2e_all("yolov10s", "yolov10s.yaml", "YOLOv10s"),
    _e2e_all("yolov10m", "yolov10m.yaml", "YOLOv10m"),
    _e2e_all("yolov10b", "yolov10b.yaml", "YOLOv10b"),
    _e2e_all("yolov10l", "yolov10l.yaml", "YOLOv10l"),
    # Classifiers: YOLO12 (area attention), YOLO26.
    _det("yolo12n_cls", "yolo12n-cls.yaml", "YOLO12n-cls", shape=_SMALL, model="ClassificationModel",
         forward="return self.m(x)"),
    _det("yolo26n_cls", "yolo26n-cls.yaml", "YOLO26n-cls", shape=_SMALL, model="ClassificationModel",
         forward="return self.m(x)"),
    # YOLO26 end-to-end at P2 and P6.
    _e2e_all("yolo26n_p2", "yolo26n-p2.yaml", "YOLO26n-p2"),
    _e2e_all("yolo26n_p6", "yolo26n-p6.yaml", "YOLO26n-p6"),
    # RT-DETR: HGNet-x and ResNet-101 backbones (their decoders: 300 queries, compared as sets of rows).
    _det("rtdetr_x", "rtdetr-x.yaml", "RT-DETR-x", model="RTDETRDetectionModel", config=_E2E,
         calibrate="self.m(xb)"),
    _det("rtdetr_resnet101", "rtdetr-resnet101.yaml", "RT-DETR-ResNet101", model="RTDETRDetectionModel",
         config=_E2E, calibrate="self.m(xb)"),
    # Added after the first run: YOLOE's visual prompts (SAVPE), YOLO26-pose fused, heads in export mode.
    _det("yoloe_11n_vp", "yoloe-11n.yaml", "YOLOE-11n with two visual prompts (masks after the image channels)",
         "1, 5, 128, 128", "YOLOEModel", f"y, _ = self.m(x[:, :3], vpe={_VP})\n        return y",
         init="self.m.model[-1].nc = 2"),
    _e2e_all("yoloe_26n_seg_vp", "yoloe-26n-seg.yaml", "YOLOE-26n-seg with a visual prompt", "1, 4, 128, 128",
             "YOLOESegModel", f"(y, proto), _ = self.m(x[:, :3], vpe={_VP})\n        return y, proto",
             unordered="output.0", calibrate=f"self.m(xb[:, :3], vpe={_VP_CALIBRATION})"),
    _e2e_all("yolo26n_pose_fused", "yolo26n-pose.yaml", "YOLO26n-pose", model="PoseModel"),
    _det("yolo11n_pose_export", "yolo11n-pose.yaml", "YOLO11n-pose (nc=1), heads in export mode", model="PoseModel",
         forward="return self.m(x)", init=_EXPORT),
    _det("yolo11n_obb_export", "yolo11n-obb.yaml", "YOLO11n-obb, heads in export mode", model="OBBModel",
         forward="return self.m(x)", init=_EXPORT),
    _e2e_all("yolo26n_seg_export", "yolo26n-seg.yaml", "YOLO26n-seg, heads in export mode", model="SegmentationModel",
             forward="return self.m(x)", init=_EXPORT, unordered="output.0"),
]

if __name__ == "__main__":
    main(MODELS, "sweep_ultralytics", PINS14)
