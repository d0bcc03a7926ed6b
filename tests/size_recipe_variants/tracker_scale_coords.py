"""The letterbox gain as a minimum of two locals bound to quotients: a tracker's ``scale_coords``.

Reduced from kk60258/google-research, research/object_detection/tracking/utils/utils.py
(``scale_coords(img_size, coords, img0_shape)``: ``gain_w = float(img_size[0]) / img0_shape[1]``,
``gain_h = float(img_size[1]) / img0_shape[0]``, ``gain = min(gain_w, gain_h)``, the two paddings, the
boxes shifted by ``coords[:, [0, 2]] -= pad_x`` and divided by the gain), as the public code index holds
it, written here in our own words. ``img_size`` is (width, height) there; the model passes its input's.
The original's last line clamps with NumPy (``np.maximum``), which no trace follows; its commented-out
torch form is used here.
"""

import torch
from torch import nn


def scale_coords(img_size, coords, img0_shape):
    gain_w = float(img_size[0]) / img0_shape[1]
    gain_h = float(img_size[1]) / img0_shape[0]
    gain = min(gain_w, gain_h)
    pad_x = (img_size[0] - img0_shape[1] * gain) / 2
    pad_y = (img_size[1] - img0_shape[0] * gain) / 2
    coords[:, [0, 2]] -= pad_x
    coords[:, [1, 3]] -= pad_y
    coords[:, 0:4] /= gain
    coords[:, :4] = torch.clamp(coords[:, :4], min=0)
    return coords


class TrackBoxes(nn.Module):
    """Detections of one frame as rows (x1, y1, x2, y2), scaled back to the camera's frame."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 1)
        self.frame_shape = (720, 1280)

    def forward(self, x):
        coords = self.conv(x).flatten(2)[0].t().sigmoid() * 64.0
        return scale_coords((x.shape[3], x.shape[2]), coords, self.frame_shape)


def build() -> nn.Module:
    return TrackBoxes()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # Near the frame's aspect ratio: the height's quotient wins at 37x66, the width's at 38x67.
    return (torch.rand(1, 3, 37, 66, generator=generator),)


DYNAMIC = {"x": {2: "h", 3: "w"}}
