"""Rules look at model code by default; ``scope = "all"`` looks everywhere."""

from __future__ import annotations

import textwrap

import pytest

from trtcodemod.engine import Options, check_source
from trtcodemod.model_code import path_reason

#: One construct every scope test uses: TRT301 fires on any call of torch.atan2.
ATAN2 = "torch.atan2(y, x)"


def found(code: str, path: str = "model.py", scope: str = "model") -> list[tuple[str, int]]:
    source = ("import torch\nimport torch.nn as nn\n" + textwrap.dedent(code)).encode()
    return [(f.rule, f.line) for f in check_source(source, path, Options(select=("TRT301",), scope=scope))]


@pytest.mark.parametrize("path", [
    "tests/test_model.py", "repo/tests/helpers.py", "tools/export.py", "scripts/run.py", "demo/app.py",
    "docs/conf.py", "mmdet/datasets/coco.py", "timm/data/mixup.py", "torchvision/transforms/functional.py",
    "timm/optim/lamb.py", "yolov5/train.py", "yolov5/val.py", "utils/loss.py", "utils/plots.py",
    "pkg/model_test.py", "conftest.py", "setup.py", "evaluate_coco.py", "utils/dataloaders.py",
    "util/motdet_eval.py", "yolox/utils/dist.py", "ByteTrack/tutorials/qdtrack/byte_tracker.py",
    "mmdet3d/core/visualizer/image_vis.py", "utils/image_vis.py",
])
def test_files_that_are_not_model_code(path: str) -> None:
    assert path_reason(path) is not None
    code = f"def f(y, x):\n    return {ATAN2}\n"
    assert found(code, path) == []
    assert found(code, path, scope="all") == [("TRT301", 4)]


@pytest.mark.parametrize("path", [
    "model.py", "models/yolo.py", "mmdet/models/dense_heads/head.py", "timm/layers/attention.py",
    "torchvision/models/detection/roi_heads.py", "projects/bevformer/modules/encoder.py",
    "utils/general.py", "contest/testing_model.py", "lossy/attest.py", "examples/detector.py",
    "ops/distance.py", "models/evaluator_head.py", "models/retrieval.py", "models/vision.py",
    "models/revision_vit.py",
])
def test_files_that_may_be_model_code(path: str) -> None:
    assert path_reason(path) is None
    assert found(f"def f(y, x):\n    return {ATAN2}\n", path) == [("TRT301", 4)]


def test_module_methods_and_plain_functions_are_model_code() -> None:
    code = f"""\
    def decode(y, x):
        return {ATAN2}

    class Head(nn.Module):
        def forward(self, y, x):
            return {ATAN2}
    """
    assert found(code) == [("TRT301", 4), ("TRT301", 8)]


@pytest.mark.parametrize("definition", [
    f"def main():\n    y = x = torch.ones(1)\n    print({ATAN2})\n",
    f"def train_one_epoch(model, y, x):\n    return {ATAN2}\n",
    f"def loss_by_feat(y, x):\n    return {ATAN2}\n",
    f"def get_targets(y, x):\n    return {ATAN2}\n",
    f"def _get_target_single(y, x):\n    return {ATAN2}\n",
    f"def init_weights(m, y, x):\n    return {ATAN2}\n",
    f"def checkpoint_filter_fn(state_dict, y, x):\n    return {ATAN2}\n",
    f"def plot_boxes(y, x):\n    return {ATAN2}\n",
    f"def collate_fn(y, x):\n    return {ATAN2}\n",
    f"def test_atan2():\n    y = x = torch.ones(1)\n    assert {ATAN2}\n",
    f"class FocalLoss(nn.Module):\n    def forward(self, y, x):\n        return {ATAN2}\n",
    f"class CocoDataset:\n    def __getitem__(self, y, x):\n        return {ATAN2}\n",
    f"class Points(torch.utils.data.Dataset):\n    def __getitem__(self, y, x):\n        return {ATAN2}\n",
    f"class MaxIoUAssigner:\n    def assign(self, y, x):\n        return {ATAN2}\n",
    f"class GridMask(nn.Module):\n    def forward(self, y, x):\n        return {ATAN2}\n",
    f"class Head(nn.Module):\n    def forward(self, y, x):\n        if self.hm_head.training:\n            y = {ATAN2}\n        return y\n",
    f"class ResizeCropFlipImage(BaseTransform):\n    def transform(self, y, x):\n        return {ATAN2}\n",
    f"class TestHead:\n    def check(self, y, x):\n        return {ATAN2}\n",
    f"class Cases(unittest.TestCase):\n    def check(self, y, x):\n        return {ATAN2}\n",
    f"class Head(nn.Module):\n    def loss(self, y, x):\n        return {ATAN2}\n",
    f"if __name__ == '__main__':\n    y = x = torch.ones(1)\n    print({ATAN2})\n",
])
def test_code_that_is_not_model_code(definition: str) -> None:
    assert found(definition) == []
    assert [rule for rule, _ in found(definition, scope="all")] == ["TRT301"]


def test_training_branches_are_skipped_but_not_their_else() -> None:
    code = f"""\
    class Head(nn.Module):
        def forward(self, y, x):
            if self.training:
                a = {ATAN2}
            else:
                a = {ATAN2}
            if not self.training:
                b = {ATAN2}
            else:
                b = {ATAN2}
            if self.training and y.numel():
                c = {ATAN2}
            return a, b, c
    """
    assert found(code) == [("TRT301", 8), ("TRT301", 10)]
    assert len(found(code, scope="all")) == 5


def test_look_alike_names_stay_model_code() -> None:
    code = f"""\
    class PointSampler(nn.Module):
        def forward(self, y, x):
            return {ATAN2}

    def maintain(y, x):
        return {ATAN2}

    def lossless_decode(y, x):
        return {ATAN2}

    def attention(y, x):
        return {ATAN2}

    if __name__ != "__main__":
        z = {ATAN2}
    """
    assert [line for _, line in found(code)] == [5, 8, 11, 14, 17]


def test_cli_scope_flag_and_configuration(tmp_path) -> None:
    from test_cli import run as run_cli

    tool = tmp_path / "tools" / "export.py"
    tool.parent.mkdir()
    tool.write_text(f"import torch\n\ndef f(y, x):\n    return {ATAN2}\n")
    assert run_cli("check", str(tool)).exit_code == 0
    result = run_cli("check", "--scope", "all", str(tool))
    assert result.exit_code == 1 and "TRT301" in result.output
    assert run_cli("check", "--scope", "everything", str(tool)).exit_code == 2
    (tmp_path / "pyproject.toml").write_text('[tool.trtcodemod]\nscope = "all"\n')
    assert run_cli("check", str(tool)).exit_code == 1
    assert run_cli("check", "--scope", "model", str(tool)).exit_code == 0
    (tmp_path / "pyproject.toml").write_text('[tool.trtcodemod]\nscope = "some"\n')
    assert run_cli("check", str(tool)).exit_code == 2


def test_folders_above_the_project_root_do_not_count(tmp_path) -> None:
    from test_cli import run as run_cli

    project = tmp_path / "tools" / "repo"
    (project / "models").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[tool.trtcodemod]\n")
    (project / "models" / "head.py").write_text(f"import torch\n\ndef f(y, x):\n    return {ATAN2}\n")
    (project / "tests").mkdir()
    (project / "tests" / "head.py").write_text(f"import torch\n\ndef f(y, x):\n    return {ATAN2}\n")
    result = run_cli("check", str(project))
    assert result.exit_code == 1
    assert "models/head.py:4" in result.output and "tests/head.py" not in result.output


def test_python_api_takes_the_scope() -> None:
    import trtcodemod

    code = f"import torch\n\ndef f(y, x):\n    return {ATAN2}\n"
    assert trtcodemod.check_source(code, path="tools/run.py") == []
    assert [f.rule for f in trtcodemod.check_source(code, path="tools/run.py", scope="all")] == ["TRT301"]
    assert trtcodemod.apply_source(code, path="tools/run.py").changed is False
    assert trtcodemod.apply_source(code, path="tools/run.py", scope="all").changed is True
    with pytest.raises(ValueError):
        trtcodemod.check_source(code, scope="everything")


def test_functions_only_construction_calls_are_skipped() -> None:
    code = f"""\
    def gen_index(y, x):
        return {ATAN2}

    def helper(y, x):
        return {ATAN2}

    def keypoints_to_heatmap(y, x):
        return {ATAN2}

    def loss_fn(y, x):
        return keypoints_to_heatmap(y, x)

    def decode(y, x):
        return {ATAN2}

    def used_as_value(y, x):
        return {ATAN2}

    TABLE = helper(1, 2)

    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("index", gen_index(torch.ones(1), torch.ones(1)))
            self.fn = list(map(used_as_value, [1]))

        def forward(self, y, x):
            return decode(y, x)

    def api(y, x):
        return {ATAN2}
    """
    # gen_index (only __init__), helper (only module level), keypoints_to_heatmap (only a loss)
    # are construction or training code; decode (forward), used_as_value and api stay.
    assert [line for _, line in found(code)] == [16, 19, 33]
    assert len(found(code, scope="all")) == 6


def test_code_after_an_early_return_outside_training_is_skipped() -> None:
    code = f"""\
    class DropBlock(nn.Module):
        def forward(self, y, x):
            a = {ATAN2}
            if not self.training:
                return x
            return {ATAN2}

    def drop_block(y, x, p: float, training: bool):
        if not training or p == 0.0:
            return x
        return {ATAN2}

    def kept(y, x, training: bool):
        if not training:
            y = x
        return {ATAN2}
    """
    assert [line for _, line in found(code)] == [5, 18]
    assert len(found(code, scope="all")) == 4


@pytest.mark.parametrize("definition", [
    f"def fuse_conv_and_bn(y, x):\n    return {ATAN2}\n",
    f"class Block(nn.Module):\n    def reparameterize(self, y, x):\n        return {ATAN2}\n",
    f"def compute_targets_for_locations(y, x):\n    return {ATAN2}\n",
    f"class HungarianMatcher(nn.Module):\n    def forward(self, y, x):\n        return {ATAN2}\n",
])
def test_model_surgery_and_target_code_is_not_model_code(definition: str) -> None:
    assert found(definition) == []


def test_functions_called_only_from_training_branches_are_skipped() -> None:
    code = f"""\
    def drop_block(y, x):
        return {ATAN2}

    class DropBlock(nn.Module):
        def forward(self, y, x):
            if not self.training:
                return x
            return drop_block(y, x)
    """
    assert found(code) == []
    assert len(found(code, scope="all")) == 1


@pytest.mark.parametrize("definition,model", [
    (f"class BalancedPositiveNegativeSampler:\n    def __call__(self, y, x):\n        return {ATAN2}\n", False),
    (f"class PointSampler(nn.Module):\n    def forward(self, y, x):\n        return {ATAN2}\n", True),
    (f"class HungarianAssigner3D:\n    def assign(self, y, x):\n        return {ATAN2}\n", False),
])
def test_samplers_and_assigners(definition: str, model: bool) -> None:
    assert bool(found(definition)) is model


@pytest.mark.parametrize("definition", [
    f"class DetectMultiBackend(nn.Module):\n    def forward(self, y, x):\n        return {ATAN2}\n",
    f"class AutoShape(nn.Module):\n    def forward(self, y, x):\n        return {ATAN2}\n",
    f"class DefaultPredictor:\n    def __call__(self, y, x):\n        return {ATAN2}\n",
    f"def all_gather(y, x):\n    return {ATAN2}\n",
    f"def make_grid(y, x):\n    return {ATAN2}\n",
    f"def flow_to_image(y, x):\n    return {ATAN2}\n",
])
def test_runners_results_and_utilities_are_not_model_code(definition: str) -> None:
    assert found(definition) == []


def test_methods_only_training_or_construction_code_calls_are_skipped() -> None:
    code = f"""\
    class Heads(nn.Module):
        def __init__(self):
            super().__init__()
            self.fill_buffer(torch.ones(1), torch.ones(1))

        def fill_buffer(self, y, x):
            return {ATAN2}

        def subsample(self, y, x):
            return {ATAN2}

        def select_training_samples(self, y, x):
            return self.subsample(y, x)

        def postprocess(self, y, x):
            return {ATAN2}

        def forward(self, y, x):
            return self.postprocess(y, x)

        def unused_helper(self, y, x):
            return {ATAN2}
    """
    # fill_buffer (only __init__) and subsample (only a training step) are skipped;
    # postprocess (forward calls it) and a method nothing here calls stay.
    assert [line for _, line in found(code)] == [18, 24]
    assert len(found(code, scope="all")) == 4


def test_a_method_stored_while_building_is_model_code() -> None:
    """`self.forward = self.forward_slicing` in __init__ (timm's FasterNet) picks the method
    that runs. Calling a method, or handing it to a call (mmdet's `multi_apply(self.loss_single,
    ...)`), from construction or training code still makes it construction-only."""
    code = f"""\
    class Partial(nn.Module):
        def __init__(self, mode):
            super().__init__()
            self.ready = self.prepare(torch.ones(1), torch.ones(1))
            self.forward = self.forward_slicing if mode else self.forward_plain
            self.hooks = [self.hook]

        def prepare(self, y, x):
            return {ATAN2}

        def forward_slicing(self, y, x):
            return {ATAN2}

        def forward_plain(self, y, x):
            return {ATAN2}

        def hook(self, y, x):
            return {ATAN2}

        def loss_single(self, y, x):
            return {ATAN2}

        def loss(self, y, x):
            return multi_apply(self.loss_single, y, x)
    """
    # prepare (called by __init__) and loss_single (handed to a call in the loss) are skipped;
    # the stored methods stay.
    assert [line for _, line in found(code)] == [14, 17, 20]
    assert len(found(code, scope="all")) == 5


def test_training_only_call_chains_are_skipped_through_methods_without_findings() -> None:
    """YOLOX's head: forward calls `get_losses` under `if self.training:`; the assignment
    methods below it (`get_assignments` → `get_in_boxes_info`, `dynamic_k_matching`) have
    findings, the methods between them need not. A method the eval path also calls stays."""
    code = f"""\
    class Head(nn.Module):
        def forward(self, y, x, labels=None):
            if self.training:
                return self.get_losses(y, x)
            return self.decode(y, x)

        def get_losses(self, y, x):
            return self.get_assignments(y, x)

        def get_assignments(self, y, x):
            return self.dynamic_k_matching(y, x) + self.shared(y, x)

        def dynamic_k_matching(self, y, x):
            return {ATAN2}

        def decode(self, y, x):
            return self.shared(y, x)

        def shared(self, y, x):
            return {ATAN2}

        def assign_by_training_branch(self, y, x):
            return {ATAN2}

        def step(self, y, x):
            if self.training:
                z = self.assign_by_training_branch(y, x)
            return x
    """
    # dynamic_k_matching (line 16) and assign_by_training_branch (line 25) are training-only;
    # shared (line 22) is reached from decode too.
    assert [line for _, line in found(code)] == [22]
    assert [line for _, line in found(code, scope="all")] == [16, 22, 25]


def test_construction_only_call_chains_are_skipped_through_functions_without_findings() -> None:
    code = f"""\
    def build_table(y, x):
        return expand(y, x)

    def expand(y, x):
        return {ATAN2}

    def decode(y, x):
        return {ATAN2}

    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("table", build_table(torch.ones(1), torch.ones(1)))

        def forward(self, y, x):
            return decode(y, x)
    """
    # expand runs only through build_table, which only __init__ calls.
    assert [line for _, line in found(code)] == [10]
    assert [line for _, line in found(code, scope="all")] == [7, 10]


def test_a_box_coders_encode_is_training_target_code() -> None:
    """`encode` turns ground truth into targets (the heads' `get_targets` call it from other
    files); `decode` runs at inference. Only classes named like coders qualify."""
    code = f"""\
    class DeltaBBoxCoder:
        def encode(self, y, x):
            return {ATAN2}

        def encode_single(self, y, x):
            return {ATAN2}

        def decode(self, y, x):
            return {ATAN2}

    class TextEncoder(nn.Module):
        def encode(self, y, x):
            return {ATAN2}
    """
    assert [line for _, line in found(code)] == [11, 15]
    assert len(found(code, scope="all")) == 4


def test_an_autograd_functions_backward_is_not_model_code() -> None:
    """An export runs an autograd Function's `forward` (or `symbolic`), never its `backward`
    (BEVFusion's `bev_pool`); a module's method named `backward` stays model code."""
    code = f"""\
    class QuickCumsum(torch.autograd.Function):
        @staticmethod
        def forward(ctx, y, x):
            return {ATAN2}

        @staticmethod
        def backward(ctx, y, x):
            return {ATAN2}

    class Solver(nn.Module):
        def backward(self, y, x):
            return {ATAN2}
    """
    assert [line for _, line in found(code)] == [6, 14]
    assert len(found(code, scope="all")) == 3


def test_code_after_an_early_return_in_test_mode_is_skipped() -> None:
    """mmdet's `if test_mode: return ...`: what follows builds the training-only auxiliary outputs."""
    code = f"""\
    class SparseEncoder(nn.Module):
        def forward(self, y, x, test_mode=False):
            a = {ATAN2}
            if test_mode:
                return a
            return {ATAN2}

        def other(self, y, x, test_mode=False):
            if test_mode:
                y = x
            return {ATAN2}
    """
    assert [line for _, line in found(code)] == [5, 13]
    assert len(found(code, scope="all")) == 3
