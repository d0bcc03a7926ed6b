"""PennyLane's patch quantum GAN generator: the image batch starts as an empty "catch" tensor made with
the legacy constructor, ``images = torch.Tensor(x.size(0), 0).to(device)`` (the batch's rows, no column),
and each sub-generator's patches are concatenated onto it along the columns.

Reduced from PennyLaneAI/qml at 01255e08a4867805dfbd671dd0fd81fa2c6bfec4,
demonstrations/tutorial_quantum_gans.py, ``PatchQuantumGenerator.forward`` and ``partial_measure``
(the tutorial's "Now we create a quantum generator class" section). Written here in our own words: the
simulated circuit (its probabilities over the basis states) is a softmax of a linear map of the latent
vector, run on the whole batch at once rather than sample by sample into a ``torch.Tensor(0,
patch_size)`` catch of its own (a loop over the batch, which a trace unrolls whatever the constructor);
the ancilla post-selection and the division by the largest probability are kept.
"""

import torch
import torch.nn as nn

n_qubits = 3
n_a_qubits = 1
device = torch.device("cpu")


def partial_measure(noise, weights):
    probs = torch.softmax(noise @ weights, dim=-1)
    probsgiven0 = probs[:, : (2 ** (n_qubits - n_a_qubits))]
    probsgiven0 = probsgiven0 / torch.sum(probs, dim=-1, keepdim=True)
    probsgiven = probsgiven0 / torch.max(probsgiven0, dim=-1, keepdim=True)[0]
    return probsgiven


class PatchQuantumGenerator(nn.Module):
    def __init__(self, n_generators=3, q_delta=1):
        super().__init__()
        self.q_params = nn.ParameterList(
            [nn.Parameter(q_delta * torch.rand(n_qubits, 2 ** n_qubits), requires_grad=True)
             for _ in range(n_generators)]
        )
        self.n_generators = n_generators

    def forward(self, x):
        images = torch.Tensor(x.size(0), 0).to(device)

        for params in self.q_params:
            patches = partial_measure(x, params).float()
            images = torch.cat((images, patches), 1)

        return images


def build() -> nn.Module:
    return PatchQuantumGenerator().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(4, n_qubits, generator=generator) * 1.5,)


DYNAMIC = {"x": {0: "batch"}}
