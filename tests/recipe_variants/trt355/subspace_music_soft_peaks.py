"""The differentiable 2-D MUSIC peak: a soft angle and range around each source's peak, one source at a time.

Reduced from ShlezingerLab/AI-Subspace-Methods at 1114656744c38ea7f6ec08a7d2a5bcc365f0ce3d,
src/methods_pack/music.py: ``MUSIC.__maskpeak_2d`` (lines 396-425), which ``_peak_finder_2d`` (lines
330-372) returns in training mode. For every source it takes the cells around the peak's row and column
(wrapped with ``%=``), gathers that window of the spectrum, softmaxes it, and writes the expected angle
and range of the window into column ``source`` of two zero matrices through a view with a new axis:
``soft_row[:, source][:, None] = torch.einsum("bla, bad -> bl", self.angles_dict[max_row_cell_idx]
.transpose(1, 2), torch.sum(soft_max, dim=2).unsqueeze(-1))`` (lines 418-423, ``soft_col`` alike).
Here the spectrum and the peaks (found with scipy in the original) are the inputs, and the angle and
range grids small buffers. Written here in our own words.
"""

import torch
from torch import nn


class SoftPeaks2D(nn.Module):
    def __init__(self, angles: int = 16, ranges: int = 12, cell_size_angle: int = 2, cell_size_range: int = 1) -> None:
        super().__init__()
        self.register_buffer("angles_dict", torch.linspace(-1.2, 1.2, angles))
        self.register_buffer("ranges_dict", torch.linspace(2.0, 9.0, ranges))
        self.cell_size_angle = cell_size_angle
        self.cell_size_range = cell_size_range

    def forward(self, music_spectrum, peaks_r, peaks_c):
        batch_size = music_spectrum.shape[0]
        source_number = peaks_r.shape[1]
        soft_row = torch.zeros((batch_size, source_number))
        soft_col = torch.zeros((batch_size, source_number))
        for source in range(source_number):
            max_row_cell_idx = (peaks_r[:, source][:, None] - self.cell_size_angle
                                + torch.arange(2 * self.cell_size_angle + 1))
            max_row_cell_idx %= music_spectrum.shape[1]
            max_row_cell_idx = max_row_cell_idx.reshape(batch_size, -1, 1)
            max_col_cell_idx = (peaks_c[:, source][:, None] - self.cell_size_range
                                + torch.arange(2 * self.cell_size_range + 1))
            max_col_cell_idx %= music_spectrum.shape[2]
            max_col_cell_idx = max_col_cell_idx.reshape(batch_size, 1, -1)
            window = music_spectrum.gather(1, max_row_cell_idx.expand(-1, -1, music_spectrum.shape[2]))
            window = window.gather(2, max_col_cell_idx.repeat(1, max_row_cell_idx.shape[-2], 1))
            soft_max = torch.softmax(window.view(batch_size, -1), dim=1).reshape(window.shape)
            soft_row[:, source][:, None] = torch.einsum("bla, bad -> bl",
                                                        self.angles_dict[max_row_cell_idx].transpose(1, 2),
                                                        torch.sum(soft_max, dim=2).unsqueeze(-1))
            soft_col[:, source][:, None] = torch.einsum("bmc, bcm -> bm", self.ranges_dict[max_col_cell_idx],
                                                        torch.sum(soft_max, dim=1).unsqueeze(-1))
        return soft_row, soft_col


def build() -> nn.Module:
    return SoftPeaks2D().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 16, 12, generator=generator) * 5, torch.randint(0, 16, (2, 3), generator=generator),
            torch.randint(0, 12, (2, 3), generator=generator))


DYNAMIC = {"music_spectrum": {0: "batch"}, "peaks_r": {0: "batch"}, "peaks_c": {0: "batch"}}
