"""A fifty-sixth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo56.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, on parametric 3-D human body, hand and face models and human mesh
recovery (SMPL, SMPL+H, SMPL-X, MANO and FLAME linear blend skinning with pose blend shapes, Rodrigues rotations,
kinematic chains, closed-form fitting of the models to points, rotation heads and regressors from images): the
thirty-first zoo's pins and three libraries by three other authors, whose code no earlier zoo or sweep ran (``PINS56``:
unpacked wheels like the others, never pip-installed): smplx 0.1.28 (Vassilis Choutas and the Max Planck Institute for
Intelligent Systems, github.com/vchoutas/smplx: the reference PyTorch layers of SMPL, SMPL+H, SMPL-X, MANO and FLAME;
``lbs`` with ``batch_rodrigues``, pose features as rotation matrices minus the identity, ``batch_rigid_transform``'s
kinematic chain in a Python loop that indexes a list of transforms by the parents tensor and an in-place subtraction of
the parents' joints; extra joints gathered from vertices by ``index_select``; PCA hand poses by ``einsum`` and the
data's hand means added in place; a user's joint mapper; sizes compared in Python (``max`` of the batch sizes, betas
expanded by ``int(batch_size / betas.shape[0])``); FLAME's landmarks by barycentric interpolation of faces gathered
with an in-place offset per batch element, and its face contour chosen from a look-up table by the neck's yaw: a
rotation matrix to an Euler angle by ``atan2``, rounded, clamped, cast to long, folded by masks and looked up by
``index_select``), smplfitter 0.6.0 (Istvan Sarandi, University of Tuebingen, github.com/isarandi/smplfitter:
SMPL-family body models and their fitting to target vertices and joints in closed form; ``rotvec2mat`` and
``mat2rotvec`` (four quaternion candidates chosen by nested ``where``), forward kinematics in Python loops over the
tree, the kid blend shape; BodyFitter's per-part rotations by Kabsch (``torch.linalg.svd`` with a reflection fix by
``det``), swing-twist for two-joint parts by ``atan2``, shape, translation and scale by weighted least squares through
``torch.linalg.cholesky_ex`` and ``cholesky_solve``, the betas shared over a batch by a partially shared solve, the
final adjustment of the limbs level by level for SMPL-family models and joint by joint in a Python loop for the
others; it imports SciPy at ``smplfitter.pt`` import, from the venv) and roma 1.8.0 (Romain Bregier, NAVER LABS
Europe, github.com/naver/roma: rotation representations; ``special_procrustes`` by SVD in a custom autograd Function
(the last singular vector flipped where ``det`` is negative) or, its default for 3x3 matrices, Horn's closed form in
float64 (a custom autograd Function: the largest singular value from a cubic by ``acos``, an eigenvector by a product of
shifted matrices, the column of largest norm by ``argmax`` and ``gather``, two steps of inverse iteration by
``torch.linalg.solve_ex``); ``rotmat_to_rotvec`` through Markley's quaternion (``argmax`` and ``gather``);
``unitquat_to_rotmat``, ``quat_normalize`` and ``rigid_points_registration`` with scale (Umeyama)). Nothing new in
the ``bench`` extra.

The licensed SMPL, SMPL+H, SMPL-X, MANO and FLAME model files cannot be downloaded (each needs an account at the Max
Planck Institute's sites), so every wrapper builds its body model from the user's synthetic data of the same layout: the
real kinematic trees (24 joints for SMPL, 52 for SMPL+H, 55 for SMPL-X, 16 for MANO, 5 for FLAME), 12 to 60 vertices
around each joint skinned to it and its parent, a joint regressor averaging them, small random shape (300 components,
400 for FLAME, so that smplx prints no warning about a small shape space; 10 to 20 for smplfitter) and pose blend
shapes, a fan of triangles in each part, PCA hand bases and means, FLAME's static and dynamic landmark embeddings and
smplfitter's kid templates, all from seeded NumPy generators. smplx takes SMPL's, SMPL+H's and MANO's data as a data
struct; FLAME and every smplfitter model read files from a folder, which the user writes into a temporary directory at
construction (removed once the model holds its buffers). The extra joints smplx gathers from vertices are the user's
vertex ids on the synthetic mesh.

Considered and dropped before any model was chosen (by the wheel's files, metadata and a first import): body-models
0.26.2 (Andrea Boscolo Camiletto: SMPL, SMPL-X, MANO, SOMA and more for NumPy, PyTorch and JAX; it imports jaxtyping,
nanomanifold and ptloader, none in the venv, and fetches its model assets through ``hf_hub_download``), gvhmr 1.6.1
(Zehong Shen and the ZJU 3D Vision group, packaged by Ryan Rudes: world-grounded motion recovery; it needs hydra-core,
hydra-zen, av, ffmpeg-python and chumpy), smplpytorch 0.0.8 (Gul Varol: one SMPL layer; its model loading imports
chumpy, not in the venv), FLAME-PyTorch 0.0.1 (Soubhik Sanyal: FLAME on top of smplx's ``lbs``; it pins numpy 1.23.4,
chumpy, pyrender and trimesh, and smplx's own FLAME is here), VolumetricSMPL 1.0.4 (Marko Mihajlovic: it imports
pytorch3d, compiled, and scikit-image at package import); simple-romp 2.0.2, nosmpl 0.1.4 and human-body-prior
0.8.5.0 (no wheel); and, in the package index only, not downloaded: pytorch3d (compiled), fasthamer (Apple's Neural
Engine), wilor-mlx (MLX), smplkit, smplr and smpl-rs. Within the chosen libraries: smplx's SMPL-X and SMPLXLayer (their
constructor passes SMPL-X's own vertex ids, up to 9929, so the mesh must have the real 10,475 vertices and its pose
blend shapes alone would be 61 MB: SMPL-X is here through smplfitter's BodyModel instead) and its ``create`` (paths to
the official files); smplfitter's BodyConverter and BodyFlipper (they read the official correspondence files and accept
only 6,890 or 10,475 vertices), its ``fit_streaming`` (an iterator over chunks) and its NumPy, Numba, JAX and
TensorFlow backends; roma's Euler conversions and slerps (not models' heads here).

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 53
or in the library sweeps (benchmarks/sweep_*.py), all 10 from the three new libraries and of the kinds that often need
work for an ONNX or TensorRT deployment (SVD, Cholesky factorisation and solves, float64 closed forms, custom autograd
Functions, Python loops over kinematic trees indexing lists by tensors, in-place updates of gathered indices, value
lookups by rounded and cast angles, argmax and gather, ``where`` chains, sizes compared in Python). From smplx: an
HMR-style regressor (the user's small CNN, 3 steps of iterative error feedback on pose, shape and a weak-perspective
camera) into SMPL, projecting its 24 joints and 21 vertex joints; SMPL+H with 6 PCA components a hand on parameter
vectors, reordered by the user's JointMapper; a hand-crop regressor into MANO with 12 PCA components, the 5 fingertip
vertices gathered and the 21 keypoints put in OpenPose's order; a DECA-style face regressor into FLAME with the face
contour, its 51 static and 17 dynamic landmarks projected. From smplfitter: SMPL with the kid blend shape on sequences
of parameters (frames flattened); BodyFitter.fit on SMPL (3 iterations, final adjustment); BodyFitter.fit on SMPL-X
over the frames of one person (shape shared by the batch, scale fitted, points weighted by the input's fourth
channel); BodyFitter.fit_with_known_shape on MANO (the shape from the user's linear head). From roma: a regressor of 24
unconstrained 3x3 matrices made rotations by ``special_procrustes`` (SVD) into smplx's SMPLLayer, the pose also given
as rotation vectors; inverse kinematics for 21 detected 3-D hand keypoints (the user's MLP to 16 quaternions,
normalised and made matrices by roma, smplx's MANOLayer, the joints and fingertips aligned to the keypoints by
``rigid_points_registration`` with scale, Horn's closed form in float64).

Each is small and has the dynamic axes a deploying user declares: batch, height and width for the image regressors
(inputs (batch, 3, 64, 64)), batch for the parameter vectors (batch, 91), batch and frames for the sequences (batch, 8,
86), batch for the fitters' predicted points (batch, vertices and joints, 3, or 4 with the confidence) and for the hand
keypoints (batch, 21, 3); the numbers of vertices and joints are the models' own. All inputs are in [0, 1): the
parameters are ``(x - 0.5) * 2``; the fitters' targets are the body model posed by a fixed random pose and displaced by
``(x - 0.5) * 0.02`` (0.01 for MANO), as a network's predicted mesh would be; the hand keypoints are
``(x - 0.5) * 0.2``. The image regressors' encoder ends in a BatchNorm of its pooled features, calibrated by the zoo's
calibration pass (``Spec.calibrate``): without it random weights average uniform noise images to the same features, so
outputs differed by 1e-4 across a batch and every image chose the same row of FLAME's contour table; with it the rows
differ per image. No output is set-valued. The wrappers were checked only for building and running eagerly
(deterministic over two forwards, finite outputs, outputs differing across the batch) before the first migrate run, with
a source tree unpacked by ``fetch_sources`` from ``PINS56`` and ``make_zoo``: at the spec's size, one more in the batch,
larger dynamic sizes (images 96 by 80, 11 frames; the batch-only models have none) and both; with one thread on the
shared two cores, each in its own process (load average 2.6 to 4.3 from other sessions), the best of two forwards at the
spec's size took 0.006 to 0.014 s for smplx (0.014 FLAME, 0.011 SMPL+H, 0.010 MANO, 0.007 HMR), 0.012 to 0.135 s for
smplfitter (0.135 the shared SMPL-X fit, 0.129 the SMPL fit, 0.016 the MANO fit, 0.012 the sequence) and 0.006 to 0.020
s for roma (0.020 the Procrustes regressor, 0.006 the hand IK); at the larger sizes at most 0.016 s for smplx, 0.138 s
for smplfitter and 0.009 s for roma; builds (imports and synthetic data included) took 3.6 to 13.0 s over the rounds.
After a first round the encoder gained its BatchNorm and the fitters' targets smaller displacements (first 0.05, which
made the small synthetic parts' rotations nearly random), and the checks ran again; nothing changed after them. Odd,
left as the wheels have them: smplx's SMPL, SMPL+H, MANO and FLAME print a warning at construction when the shape space
has fewer than 300 (400) components; smplx's MANO forward does not append its fingertip joints (the line is commented
out), so the user gathers them; smplx's FLAME reads its model and both landmark embeddings from fixed file names in a
folder; smplfitter's BodyFitter takes SMPL's part numbers (toes 10 and 11 copy the feet 7 and 8, ten limbs adjusted) for
every model whose name starts with "smpl", which the synthetic models keep with the real trees; smplfitter's
``mat2rotvec`` returns angles up to 2 pi (the quaternion's sign is not fixed), so fitted rotation-vector components
reach 3.2; the shared-shape fit returns the same betas for every batch element, by design; roma's ``special_procrustes``
picks Horn's float64 method by default for 3x3 matrices, so the Procrustes regressor asks for ``method="svd"`` and the
registration keeps the default; roma reads its version from the unpacked dist-info."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and three libraries by three other authors, unpacked wheels like the others (never
#: pip-installed): smplx (Vassilis Choutas: SMPL, SMPL+H, MANO and FLAME layers; linear blend skinning with pose blend
#: shapes, Rodrigues rotations, the kinematic chain in a Python loop over the parents, extra joints gathered from
#: vertices, FLAME's landmarks by barycentric interpolation and its dynamic contour chosen by the neck's yaw),
#: smplfitter (Istvan Sarandi: SMPL-family body models in PyTorch and their fitting to vertices and joints in closed
#: form: per-part Kabsch rotations by SVD, shape by Cholesky least squares, kid blend shapes) and roma (Romain Bregier:
#: rotation representations; Procrustes by SVD or Horn's closed form in float64, rotation conversions and rigid
#: point registration).
PINS56 = {**PINS31, "smplx": "0.1.28", "smplfitter": "0.6.0", "roma": "1.8.0"}

#: The user's inputs: images (batch, 3, height, width), parameter vectors (batch, parameters), sequences of them
#: (batch, frames, parameters) and predicted points (batch, points, 3 or 4), all in [0, 1).
_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_B = 'dynamic_axes = { x = { 0 = "batch" } }'
_BT = 'dynamic_axes = { x = { 0 = "batch", 1 = "frames" } }'

# ---------------------------------------------------------------------------------------------------------------
# The user's synthetic body models: the licensed SMPL, SMPL+H, SMPL-X, MANO and FLAME files cannot be downloaded, so
# each wrapper builds arrays of the same layout (the real kinematic trees, a few vertices around each joint skinned to
# it and its parent, a joint regressor averaging them, small random shape and pose blend shapes, triangles within each
# part) from a seeded NumPy generator, and hands them to the library as its model files would be (a data struct, or
# files written to a temporary folder and read back at construction).
_SYNTH = '''import os.path
import pickle
import tempfile
import numpy as np

SMPL_PARENTS = [-1, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 12, 13, 14, 16, 17, 18, 19, 20, 21]
MANO_PARENTS = [-1, 0, 1, 2, 0, 4, 5, 0, 7, 8, 0, 10, 11, 0, 13, 14]
FLAME_PARENTS = [-1, 0, 1, 1, 1]


def hand_chain(wrist, first):
    """Five fingers of three joints each, numbered from ``first``, hanging from the ``wrist`` joint."""
    return [p for f in range(5) for p in (wrist, first + 3 * f, first + 3 * f + 1)]


SMPLH_PARENTS = SMPL_PARENTS[:22] + hand_chain(20, 22) + hand_chain(21, 37)
SMPLX_PARENTS = SMPL_PARENTS[:22] + [15, 15, 15] + hand_chain(20, 25) + hand_chain(21, 40)


def synthetic_body(parents, per_part, num_betas, seed):
    """Arrays of a SMPL-family model file for the kinematic tree ``parents``, with random values."""
    rng = np.random.RandomState(seed)
    j = len(parents)
    rest = np.zeros((j, 3))
    for i in range(1, j):
        rest[i] = rest[parents[i]] + rng.randn(3) * 0.12
    part = np.repeat(np.arange(j), per_part)
    n = len(part)
    weights = np.zeros((n, j))
    weights[np.arange(n), part] = 0.7
    weights[np.arange(n), np.maximum(np.array(parents)[part], 0)] += 0.3
    fan = np.stack([np.zeros(per_part - 2), np.arange(1, per_part - 1), np.arange(2, per_part)], 1)
    faces = (np.arange(j)[:, None, None] * per_part + fan[None]).reshape(-1, 3)
    return dict(v_template=rest[part] + rng.randn(n, 3) * 0.03, weights=weights,
                J_regressor=(part[None, :] == np.arange(j)[:, None]) / per_part, f=faces.astype(np.int64),
                kintree_table=np.stack([parents, np.arange(j)]).astype(np.int64),
                shapedirs=rng.randn(n, 3, num_betas) * 0.01, posedirs=rng.randn(n, 3, (j - 1) * 9) * 0.002)


def hand_pca(data, rng, *sides):
    """MANO-style PCA bases and means of the 45 finger angles, for each side suffix given."""
    for side in sides:
        data["hands_components" + side] = np.linalg.qr(rng.randn(45, 45))[0].T
        data["hands_mean" + side] = rng.randn(45) * 0.1
    return data


def landmark_vertices(per_part, head, left_tips, right_tips, left_foot, right_foot):
    """The user's extra-joint vertices (smplx's vertex_ids) on the synthetic mesh: the i-th vertex of a part."""
    ids = {name: head * per_part + i for i, name in enumerate(["nose", "reye", "leye", "rear", "lear"])}
    for side, parts in (("l", left_tips), ("r", right_tips)):
        ids.update({side + tip: part * per_part + i
                    for i, (tip, part) in enumerate(zip(["thumb", "index", "middle", "ring", "pinky"], parts))})
    for side, part in (("L", left_foot), ("R", right_foot)):
        ids.update({side + name: part * per_part + i for i, name in enumerate(["BigToe", "SmallToe", "Heel"])})
    return ids


class Encoder(torch.nn.Module):
    """The user's small image encoder (strided convolutions, global average pooling, a BatchNorm of the features)
    for the regressors."""

    def __init__(self, width=32):
        super().__init__()
        self.convs = torch.nn.Sequential(
            torch.nn.Conv2d(3, 16, 3, 2, 1), torch.nn.ReLU(), torch.nn.Conv2d(16, 32, 3, 2, 1), torch.nn.ReLU(),
            torch.nn.Conv2d(32, width, 3, 2, 1), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
            torch.nn.BatchNorm1d(width))

    def forward(self, x):
        return self.convs(x)'''

# ---------------------------------------------------------------------------------------------------------------
# smplx: the body, hand and face layers on the user's synthetic model data (a data struct for SMPL, SMPL+H and MANO;
# FLAME reads its files from a folder, so the user writes them to a temporary one).
_SMPLX = _SYNTH + '''
import smplx
from smplx.utils import Struct


class JointMapper(torch.nn.Module):
    """The user's reordering of the model's joints to a keypoint convention (as SMPLify-X's mapper does)."""

    def __init__(self, order):
        super().__init__()
        self.register_buffer("order", torch.tensor(order, dtype=torch.long))

    def forward(self, joints, **kwargs):
        return torch.index_select(joints, 1, self.order)


class HMR(torch.nn.Module):
    """An HMR-style regressor: image features, three steps of iterative error feedback on SMPL's pose (axis-angle),
    shape and a weak-perspective camera, then smplx's SMPL; vertices and projected joints."""

    def __init__(self):
        super().__init__()
        data = synthetic_body(SMPL_PARENTS, 24, 300, 0)
        self.smpl = smplx.SMPL("", data_struct=Struct(**data),
                               vertex_ids=landmark_vertices(24, 15, [22] * 5, [23] * 5, 10, 11))
        self.encoder = Encoder(64)
        self.step = torch.nn.Sequential(torch.nn.Linear(64 + 85, 128), torch.nn.ReLU(), torch.nn.Linear(128, 85))
        self.register_buffer("mean", torch.cat([torch.zeros(72), torch.zeros(10), torch.tensor([0.9, 0.0, 0.0])]))

    def forward(self, x):
        feats = self.encoder(x)
        params = self.mean.expand(x.shape[0], -1)
        for _ in range(3):
            params = params + 0.1 * self.step(torch.cat([feats, params], 1))
        out = self.smpl(global_orient=params[:, :3], body_pose=params[:, 3:72], betas=params[:, 72:82])
        cam = params[:, 82:]
        return out.vertices, cam[:, None, :1] * out.joints[..., :2] + cam[:, None, 1:]


class SMPLHHands(torch.nn.Module):
    """smplx's SMPL+H with 6 PCA components a hand (the data's hand means added), driven by the user's parameter
    vectors; the joints reordered by the user's mapper."""

    def __init__(self):
        super().__init__()
        rng = np.random.RandomState(1)
        data = hand_pca(synthetic_body(SMPLH_PARENTS, 12, 300, 1), rng, "l", "r")
        order = list(range(22)) + [15, 15] + list(range(22, 52)) + list(range(52, 73))
        self.smplh = smplx.SMPLH("", data_struct=Struct(**data), use_pca=True, num_pca_comps=6,
                                 vertex_ids=landmark_vertices(12, 15, [36, 24, 27, 33, 30], [51, 39, 42, 48, 45],
                                                              10, 11),
                                 joint_mapper=JointMapper(order))

    def forward(self, x):
        p = (x - 0.5) * 2
        out = self.smplh(global_orient=p[:, :3], body_pose=p[:, 3:66], left_hand_pose=p[:, 66:72] * 2,
                         right_hand_pose=p[:, 72:78] * 2, betas=p[:, 78:88], transl=p[:, 88:91])
        return out.vertices, out.joints


class MANOCrop(torch.nn.Module):
    """A hand-crop regressor: image features to smplx's MANO (12 PCA components, right hand) and a camera; the 16
    joints and 5 fingertip vertices in OpenPose's hand order, projected."""

    def __init__(self):
        super().__init__()
        rng = np.random.RandomState(2)
        data = hand_pca(synthetic_body(MANO_PARENTS, 16, 300, 2), rng, "")
        self.mano = smplx.MANO("", is_rhand=True, data_struct=Struct(**data), use_pca=True, num_pca_comps=12)
        self.encoder = Encoder(48)
        self.head = torch.nn.Linear(48, 3 + 12 + 10 + 3)
        self.register_buffer("tips", torch.tensor([15 * 16, 3 * 16, 6 * 16, 12 * 16, 9 * 16]))
        self.register_buffer("openpose", torch.tensor([0, 13, 14, 15, 16, 1, 2, 3, 17, 4, 5, 6, 18, 10, 11, 12, 19,
                                                       7, 8, 9, 20]))

    def forward(self, x):
        p = self.head(self.encoder(x))
        out = self.mano(global_orient=p[:, :3], hand_pose=p[:, 3:15], betas=p[:, 15:25])
        joints = torch.cat([out.joints, torch.index_select(out.vertices, 1, self.tips)], 1)[:, self.openpose]
        cam = p[:, 25:]
        return out.vertices, (1 + cam[:, None, :1]) * joints[..., :2] + cam[:, None, 1:]


class FLAMEFace(torch.nn.Module):
    """A DECA-style face regressor: image features to smplx's FLAME (shape, expression, neck, jaw and eye poses) with
    the face contour; the 51 static and 17 dynamic landmarks (chosen by the neck's yaw) projected orthographically."""

    def __init__(self):
        super().__init__()
        rng = np.random.RandomState(3)
        data = synthetic_body(FLAME_PARENTS, 60, 400, 3)
        faces = len(data["f"])
        bary = lambda *shape: (lambda b: b / b.sum(-1, keepdims=True))(rng.rand(*shape, 3) + 0.1)
        with tempfile.TemporaryDirectory() as folder:
            with open(os.path.join(folder, "FLAME_NEUTRAL.pkl"), "wb") as f:
                pickle.dump(data, f)
            with open(os.path.join(folder, "flame_static_embedding.pkl"), "wb") as f:
                pickle.dump({"lmk_face_idx": rng.randint(0, faces, 51), "lmk_b_coords": bary(51)}, f)
            np.save(os.path.join(folder, "flame_dynamic_embedding.npy"),
                    {"lmk_face_idx": rng.randint(0, faces, (79, 17)), "lmk_b_coords": bary(79, 17)})
            self.flame = smplx.FLAME(folder, use_face_contour=True, num_expression_coeffs=20)
        self.encoder = Encoder(64)
        self.head = torch.nn.Linear(64, 10 + 20 + 15 + 3)

    def forward(self, x):
        p = self.head(self.encoder(x))
        out = self.flame(betas=p[:, :10], expression=p[:, 10:30], global_orient=p[:, 30:33], neck_pose=p[:, 33:36],
                         jaw_pose=p[:, 36:39], leye_pose=p[:, 39:42], reye_pose=p[:, 42:45])
        landmarks = out.joints[:, 5:]
        return out.vertices, p[:, 45:46, None] * landmarks[..., :2] + p[:, None, 46:]'''

# ---------------------------------------------------------------------------------------------------------------
# smplfitter: its PyTorch body models and fitters on the user's synthetic model files (written to a temporary folder
# as model_root, read back at construction: SMPL's pickle, SMPL-X's npz, MANO's pickle, and the kid templates).
_FIT = _SYNTH + '''
from smplfitter.pt import BodyModel, BodyFitter


def body_model(name, num_betas=None):
    """smplfitter's BodyModel of ``name`` ("smpl", "smplx" or "mano") from the user's synthetic files."""
    parents, per_part, betas, seed = {"smpl": (SMPL_PARENTS, 24, 10, 4), "smplx": (SMPLX_PARENTS, 12, 20, 5),
                                      "mano": (MANO_PARENTS, 16, 10, 6)}[name]
    data = synthetic_body(parents, per_part, betas, seed)
    with tempfile.TemporaryDirectory() as folder:
        if name == "smplx":
            np.savez(os.path.join(folder, "SMPLX_NEUTRAL.npz"), **data)
        else:
            filename = "MANO_RIGHT.pkl" if name == "mano" else "basicmodel_neutral_lbs_10_207_0_v1.1.0.pkl"
            with open(os.path.join(folder, filename), "wb") as f:
                pickle.dump(data, f)
        if name != "mano":
            kid = data["v_template"] * 0.6 + np.random.RandomState(seed).randn(*data["v_template"].shape) * 0.01
            np.save(os.path.join(folder, "kid_template.npy"), kid)
        return BodyModel(name, "neutral", model_root=folder, num_betas=num_betas)


class SMPLSequence(torch.nn.Module):
    """smplfitter's SMPL on the user's sequences of parameters (axis-angle pose, shape, translation and the kid
    factor a frame), the frames flattened through the model; vertices and joints a frame."""

    def __init__(self):
        super().__init__()
        self.body = body_model("smpl")

    def forward(self, x):
        b, t, _ = x.shape
        p = (x.reshape(b * t, -1) - 0.5) * 2
        out = self.body(pose_rotvecs=p[:, :72], shape_betas=p[:, 72:82], trans=p[:, 82:85], kid_factor=p[:, 85] * 0.5)
        return out["vertices"].reshape(b, t, -1, 3), out["joints"].reshape(b, t, -1, 3)


class Targets(torch.nn.Module):
    """The user's fitting targets: the body model posed by a fixed random pose, its vertices and joints displaced by
    the input (a network's prediction stands here)."""

    def __init__(self, body, seed, scale=0.02):
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        out = body(pose_rotvecs=torch.randn(1, body.num_joints * 3, generator=g) * 0.3,
                   shape_betas=torch.randn(1, body.num_betas, generator=g))
        self.register_buffer("vertices", out["vertices"])
        self.register_buffer("joints", out["joints"])
        self.scale, self.n = scale, body.num_vertices

    def forward(self, x):
        d = (x[..., :3] - 0.5) * self.scale
        return self.vertices + d[:, :self.n], self.joints + d[:, self.n:]


class FitSMPL(torch.nn.Module):
    """smplfitter's BodyFitter on SMPL: pose, shape and translation fitted to target vertices and joints (3
    iterations of per-part rotations and shape, the final adjustment of the limbs)."""

    def __init__(self):
        super().__init__()
        body = body_model("smpl")
        self.targets = Targets(body, 7)
        self.fitter = BodyFitter(body)

    def forward(self, x):
        vertices, joints = self.targets(x)
        fit = self.fitter.fit(vertices, joints, num_iter=3, beta_regularizer=1,
                              requested_keys=["pose_rotvecs", "shape_betas", "trans"])
        return fit["pose_rotvecs"], fit["shape_betas"], fit["trans"]


class FitSMPLXShared(torch.nn.Module):
    """smplfitter's BodyFitter on SMPL-X over the frames of one person: one shape shared by the batch, a scale
    fitted, the points weighted by the input's confidence channel."""

    def __init__(self):
        super().__init__()
        body = body_model("smplx", num_betas=16)
        self.targets = Targets(body, 8)
        self.fitter = BodyFitter(body)
        self.n = body.num_vertices

    def forward(self, x):
        vertices, joints = self.targets(x)
        weights = 0.5 + x[..., 3]
        fit = self.fitter.fit(vertices, joints, vertex_weights=weights[:, :self.n], joint_weights=weights[:, self.n:],
                              num_iter=2, share_beta=True, scale_fit=True, scale_regularizer=1,
                              requested_keys=["pose_rotvecs", "shape_betas", "trans", "scale_corr"])
        return fit["pose_rotvecs"], fit["shape_betas"], fit["trans"], fit["scale_corr"]


class FitMANOKnownShape(torch.nn.Module):
    """smplfitter's BodyFitter on MANO with the shape given (by the user's linear head on the mean target point):
    pose and translation fitted, every part adjusted in its sequential pass."""

    def __init__(self):
        super().__init__()
        body = body_model("mano")
        self.targets = Targets(body, 9, scale=0.01)
        self.fitter = BodyFitter(body)
        self.shape = torch.nn.Linear(3, body.num_betas)

    def forward(self, x):
        vertices, joints = self.targets(x)
        betas = self.shape(x.mean(1))
        fit = self.fitter.fit_with_known_shape(betas, vertices, joints, num_iter=2,
                                               requested_keys=["pose_rotvecs", "trans"])
        return fit["pose_rotvecs"], fit["trans"]'''

# ---------------------------------------------------------------------------------------------------------------
# roma: rotation heads and rigid alignment in front of and behind smplx's layers (SMPLLayer and MANOLayer take
# rotation matrices).
_ROMA = _SYNTH + '''
import roma
import smplx
from smplx.utils import Struct


class ProcrustesHMR(torch.nn.Module):
    """A regressor of 24 unconstrained 3x3 matrices made rotations by roma's special_procrustes (SVD), through
    smplx's SMPLLayer (rotation matrices); vertices, joints and the pose as rotation vectors (roma)."""

    def __init__(self):
        super().__init__()
        data = synthetic_body(SMPL_PARENTS, 24, 300, 10)
        self.smpl = smplx.SMPLLayer("", data_struct=Struct(**data),
                                    vertex_ids=landmark_vertices(24, 15, [22] * 5, [23] * 5, 10, 11))
        self.encoder = Encoder(64)
        self.head = torch.nn.Linear(64, 24 * 9 + 10)

    def forward(self, x):
        p = self.head(self.encoder(x))
        m = p[:, :216].reshape(-1, 24, 3, 3) + torch.eye(3)
        rot = roma.special_procrustes(m, method="svd")
        out = self.smpl(global_orient=rot[:, :1], body_pose=rot[:, 1:], betas=p[:, 216:])
        return out.vertices, out.joints, roma.rotmat_to_rotvec(rot)


class HandIK(torch.nn.Module):
    """Inverse kinematics for 21 detected 3-D hand keypoints: the user's MLP to 16 joint quaternions (normalised,
    made matrices by roma) through smplx's MANOLayer, the 16 joints and 5 fingertips aligned to the keypoints by
    roma's rigid registration with scale (Horn's closed form, float64); the aligned vertices and joints."""

    def __init__(self):
        super().__init__()
        rng = np.random.RandomState(11)
        data = hand_pca(synthetic_body(MANO_PARENTS, 16, 300, 11), rng, "")
        self.mano = smplx.MANOLayer("", is_rhand=True, data_struct=Struct(**data), use_pca=False,
                                    flat_hand_mean=True)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(63, 128), torch.nn.ReLU(), torch.nn.Linear(128, 16 * 4 + 10))
        self.register_buffer("tips", torch.tensor([15 * 16, 3 * 16, 6 * 16, 12 * 16, 9 * 16]))
        self.register_buffer("identity", torch.tensor([0.0, 0.0, 0.0, 1.0]))

    def forward(self, x):
        keypoints = (x - 0.5) * 0.2
        p = self.mlp((keypoints - keypoints[:, :1]).flatten(1))
        quats = roma.quat_normalize(p[:, :64].reshape(-1, 16, 4) + self.identity)
        rot = roma.unitquat_to_rotmat(quats)
        out = self.mano(global_orient=rot[:, :1], hand_pose=rot[:, 1:], betas=p[:, 64:])
        joints = torch.cat([out.joints, torch.index_select(out.vertices, 1, self.tips)], 1)
        r, t, s = roma.rigid_points_registration(joints, keypoints, compute_scaling=True)
        align = lambda points: s[:, None, None] * points @ r.transpose(1, 2) + t[:, None]
        return align(out.vertices), align(joints)'''

MODELS56 = [
    # smplx: body, hand and face layers (synthetic model data, random weights).
    Spec("smplx_smpl_hmr_ief", "smplx SMPL (linear blend skinning, Rodrigues by batch_rodrigues, pose blend shapes, "
         "the kinematic chain in a Python loop over the parents, 21 extra joints gathered from vertices) behind an "
         "HMR-style regressor with 3 steps of iterative error feedback and a weak-perspective camera", _SMPLX,
         "HMR()", "return self.m(x)", "2, 3, 64, 64", _BHW, calibrate="self.m(xb)"),
    Spec("smplx_smplh_pca_hands_mapper", "smplx SMPL+H (6 PCA components a hand by einsum, hand means added in "
         "place, extra joints from vertices) on parameter vectors, the joints reordered by the user's JointMapper",
         _SMPLX, "SMPLHHands()", "return self.m(x)", "2, 91", _B),
    Spec("smplx_mano_crop_regressor", "smplx MANO (right hand, 12 PCA components) behind a hand-crop regressor; "
         "16 joints and 5 fingertip vertices by index_select, put in OpenPose's order by indexing, projected",
         _SMPLX, "MANOCrop()", "return self.m(x)", "2, 3, 64, 64", _BHW, calibrate="self.m(xb)"),
    Spec("smplx_flame_dynamic_contour", "smplx FLAME with the face contour behind a DECA-style regressor: "
         "landmarks by barycentric interpolation of gathered faces, the 17 contour landmarks looked up by the "
         "neck's yaw (rotation to Euler angle, rounded, clamped, cast to long, index_select)", _SMPLX, "FLAMEFace()",
         "return self.m(x)", "2, 3, 64, 64", _BHW, calibrate="self.m(xb)"),
    # smplfitter: body models and closed-form fitters (synthetic model files; no weights but the user's heads).
    Spec("smplfitter_smpl_sequence_kid", "smplfitter BodyModel (SMPL with the kid blend shape: rotvec2mat, forward "
         "kinematics in Python loops over the tree, skinning by einsum) on sequences of parameters, frames "
         "flattened", _FIT, "SMPLSequence()", "return self.m(x)", "2, 8, 86", _BT),
    Spec("smplfitter_smpl_fit_vertices", "smplfitter BodyFitter.fit on SMPL (per-part Kabsch rotations by SVD with a "
         "reflection fix by det, swing-twist for bones, shape and translation by Cholesky least squares, 3 "
         "iterations, the final limb adjustment level by level, mat2rotvec by where)", _FIT, "FitSMPL()",
         "return self.m(x)", "2, 600, 3", _B),
    Spec("smplfitter_smplx_fit_shared_beta", "smplfitter BodyFitter.fit on SMPL-X over a batch of frames of one "
         "person: one shape shared by the batch (partially shared least squares), a fitted scale, per-point "
         "weights from the input", _FIT, "FitSMPLXShared()", "return self.m(x)", "4, 715, 4", _B),
    Spec("smplfitter_mano_fit_known_shape", "smplfitter BodyFitter.fit_with_known_shape on MANO (not SMPL-family: "
         "every part adjusted by a sequential per-joint pass), the shape from the user's linear head", _FIT,
         "FitMANOKnownShape()", "return self.m(x)", "2, 272, 3", _B),
    # roma: rotation heads and rigid registration around smplx's layers.
    Spec("roma_procrustes_smpl_layer", "roma special_procrustes (SVD, a custom autograd Function, the smallest "
         "singular vector flipped by det) on 24 regressed 3x3 matrices, smplx SMPLLayer on rotation matrices, "
         "roma rotmat_to_rotvec (quaternion by argmax and gather)", _ROMA, "ProcrustesHMR()", "return self.m(x)",
         "2, 3, 64, 64", _BHW, calibrate="self.m(xb)"),
    Spec("roma_hand_ik_rigid_registration", "roma quat_normalize and unitquat_to_rotmat on an IK MLP's 16 joint "
         "quaternions, smplx MANOLayer, roma rigid_points_registration with scale (Horn's closed form in float64: "
         "a custom autograd Function, acos of a cubic's solution, argmax and gather, solve_ex)", _ROMA, "HandIK()",
         "return self.m(x)", "2, 21, 3", _B),
]

if __name__ == "__main__":
    main(MODELS56, "real_zoo56", PINS56)
