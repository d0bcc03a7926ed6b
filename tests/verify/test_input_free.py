"""Whether a value the TorchScript trace reads into Python reaches the model's inputs.

torchdiffeq 0.2.5 reads its time grid in Python (``_impl/misc.py:270`` ``if len(t) > 1 and t[0] > t[1]:``,
``_impl/solvers.py:117`` ``while j < len(t) and t1 >= t[j]:``); a model that builds the grid from literals
reads the same values on every input, which the traced graph shows: the value reaches no input.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from trtcodemod.verify.export import export_model
from trtcodemod.verify.input_free import InputReach


class Reads(torch.nn.Module):
    """One read per line, each named by the comment that ends the line."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.register_buffer("scale", torch.ones(2))

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        t = torch.tensor([0.0, 1.0])
        if t[0] > t[1]:  # literal
            x = x + 1
        if self.scale[0] > 0:  # buffer
            x = x * 2
        if len(t) > 1:  # length of a constant
            x = x - 1
        if y.sum() > 0:  # second input
            x = x + 2
        if x.shape[0] > 1:  # size
            x = x / 2
        z = torch.zeros(2)
        z[0] = x.mean()
        if z[1] > 0:  # written with an input
            x = x + 3
        if torch.rand(1) > 2:  # random
            x = x + 4
        if float(self.lin.weight.detach().abs().sum()) > 0:  # parameter
            x = x + 5
        return self.lin(x)


def _verdicts(model: torch.nn.Module, args: tuple[torch.Tensor, ...], tmp_path: Path) -> dict[str, bool | None]:
    result = export_model(model.eval(), args, tmp_path / "m.onnx", exporter="torchscript", input_names=["x", "y"],
                          output_names=["out"], dynamic_axes={"x": {0: "batch"}}, opset=17,
                          user_roots=(str(Path(__file__).parent),))
    assert result.error is None, result.error
    source = Path(__file__).read_text().splitlines()
    found: dict[str, bool | None] = {}
    for warning in result.warnings:
        line = source[warning["line"] - 1] if warning.get("line") and warning["file"] == __file__ else ""
        if "# " in line and warning["category"] == "TracerWarning":
            found[line.rsplit("# ", 1)[1]] = warning.get("input_free")
    return found


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bool | None]:
    return _verdicts(Reads(), (torch.rand(2, 4), torch.rand(3)), tmp_path_factory.mktemp("reads"))


@pytest.mark.parametrize("read", ["literal", "buffer", "length of a constant", "parameter"])
def test_reads_of_constants_and_the_models_own_values_reach_no_input(verdicts: dict, read: str) -> None:
    assert verdicts[read] is True, verdicts


@pytest.mark.parametrize("read", ["second input", "size", "written with an input", "random"])
def test_reads_of_inputs_sizes_writes_and_random_draws_do(verdicts: dict, read: str) -> None:
    assert verdicts[read] is False, verdicts


class WritesItsBuffer(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("count", torch.zeros(()))

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        self.count += 1
        if self.count > 1:  # state
            x = x + 1
        return x + y.sum()


def test_a_buffer_written_in_forward_is_state_not_a_constant(tmp_path: Path) -> None:
    verdicts = _verdicts(WritesItsBuffer(), (torch.rand(2, 4), torch.rand(3)), tmp_path)
    assert verdicts["state"] is False


class CarriesANumber(torch.nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        if x.shape[1] > 0:  # a check's bool
            x = x + 0
        early = torch.tensor([2.0, 1.0])
        n = float(x.sum())  # a number read from the input
        late = torch.tensor([n, 1.0])
        if early[0] > early[1]:  # made before the number was read
            x = x + 1
        if late[0] > late[1]:  # made after, perhaps from it
            x = x - 1
        return x + y.sum()


def test_a_constant_made_after_a_number_was_read_from_an_input_gets_no_verdict(tmp_path: Path) -> None:
    """Python may carry a number read from an input into a constant of the trace (`torch.tensor([n])`), which
    the graph does not show; a bool read before (a check) carries nothing on."""
    verdicts = _verdicts(CarriesANumber(), (torch.rand(2, 4), torch.rand(3)), tmp_path)
    assert verdicts["a number read from the input"] is False
    assert verdicts["made before the number was read"] is True
    assert verdicts["made after, perhaps from it"] is False


def test_no_verdict_outside_a_trace_or_past_the_budget() -> None:
    assert InputReach(1).free(torch.ones(2)) is None
    assert InputReach(1, budget=0).free(torch.ones(2)) is None


def test_the_graph_still_computes_eager_modes_values(tmp_path: Path) -> None:
    """The walks only read the graph being traced, and `len`/`iter` put back after the export: the exported
    model computes what eager mode does on inputs that take the traced branches."""
    import onnxruntime as ort

    model = Reads().eval()
    x, y = torch.rand(5, 4), -torch.rand(3)
    export_model(model, (torch.rand(2, 4), torch.rand(3)), tmp_path / "m.onnx", exporter="torchscript",
                 input_names=["x", "y"], output_names=["out"], dynamic_axes={"x": {0: "batch"}}, opset=17)
    session = ort.InferenceSession(str(tmp_path / "m.onnx"), providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    feed = {name: value.numpy() for name, value in zip(["x", "y"], (x, y)) if name in names}
    (graph,) = session.run(None, feed)
    # The trace kept the example's branches (y.sum() > 0 there): only the inputs that take them agree.
    expected = model(x, y.abs())
    torch.testing.assert_close(torch.from_numpy(graph), expected)
    assert "__len__" in torch.Tensor.__dict__ and "__iter__" in torch.Tensor.__dict__
    assert len(torch.ones(3)) == 3 and [float(v) for v in torch.arange(2)] == [0.0, 1.0]
