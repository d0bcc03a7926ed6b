"""sfs-BTSP (ericzhengz/sfs-BTSP @ af2fc758861dc19db4aa8b2eee39d1e575354d24, ``models/plugins/btsp_plugins.py``):
``BTSPPlugin(nn.Module)`` wraps a continual-learning classifier and overrides ``state_dict`` (lines 2018-2039) to
keep its controller's bookkeeping in the checkpoint. It calls ``super().state_dict(destination, prefix, keep_vars)``
with positional arguments and then stores seven entries under ``prefix + 'btsp_...'``: a gate plan (a dict) inside
``if self._next_gate_plan is not None:``, three ``dict(...)`` copies of per-task tables, a float calibration factor,
and two floats inside ``if ... is not None:`` and ``if hasattr(self, ...):``. Its ``load_state_dict`` (lines
2041-2100) pops every key ending in one of those names before the parent's load and restores them after. Unlike
the other variants, many stores, at two depths, each a line of its own: TRT377 guards each one, and the export,
which stopped at ``.detach()`` of the first dict, runs. Reduced: the plugin's forward calls the wrapped model (a
linear classifier here); the controller, memory and gate scheduling are left out; the plan check on load is kept
(only a ``task_sla`` plan is restored). Written here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"x": {0: "batch"}}
#: The statements TRT377 guards, in order.
STORE = ("state[prefix + 'btsp_next_plan'] = self._next_gate_plan",
         "state[prefix + 'btsp_task_baselines'] = dict(self._task_baselines)",
         "state[prefix + 'btsp_task_eps_targets'] = dict(self._task_eps_targets)",
         "state[prefix + 'btsp_task_class_ranges'] = dict(self._task_class_ranges)",
         "state[prefix + 'btsp_calibration_c'] = self._calibration_c",
         "state[prefix + 'btsp_eps_actual_ema'] = self._eps_actual_ema",
         "state[prefix + 'btsp_eps_calib_gain'] = self._eps_calib_gain")
#: A line migrate applies TRT377 at: the plan, the first value that is no tensor the exporter meets (it applies the
#: fix at every store, each one the next the export stops at).
CALL = "state[prefix + 'btsp_next_plan'] = self._next_gate_plan"

_KEYS = ("btsp_next_plan", "btsp_eps_actual_ema", "btsp_eps_calib_gain", "btsp_task_baselines",
         "btsp_task_eps_targets", "btsp_task_class_ranges", "btsp_calibration_c")


class BTSPPlugin(nn.Module):
    def __init__(self, inner: nn.Module) -> None:
        super().__init__()
        self.inner = inner
        self._task_baselines = {0: 91.5, 1: 88.0}
        self._task_eps_targets = {0: 0.1, 1: 0.12}
        self._task_class_ranges = {0: (0, 2), 1: (2, 4)}
        self._calibration_c = 1.0
        self._next_gate_plan = {"mode": "task_sla", "task": 2, "p_gate": 0.05}
        self._eps_actual_ema = 0.11
        self._eps_calib_gain = 1.0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.inner(x)

    def state_dict(self, destination=None, prefix='', keep_vars=False):
        state = super().state_dict(destination, prefix, keep_vars)
        # the plan for the next task, if one is scheduled
        if self._next_gate_plan is not None:
            state[prefix + 'btsp_next_plan'] = self._next_gate_plan
        # per-task accuracy baselines, error targets and class ranges, and the predictor's calibration
        state[prefix + 'btsp_task_baselines'] = dict(self._task_baselines)
        state[prefix + 'btsp_task_eps_targets'] = dict(self._task_eps_targets)
        state[prefix + 'btsp_task_class_ranges'] = dict(self._task_class_ranges)
        state[prefix + 'btsp_calibration_c'] = self._calibration_c
        if self._eps_actual_ema is not None:
            state[prefix + 'btsp_eps_actual_ema'] = self._eps_actual_ema
        if hasattr(self, '_eps_calib_gain'):
            state[prefix + 'btsp_eps_calib_gain'] = self._eps_calib_gain
        return state

    def load_state_dict(self, state_dict, strict=True):
        state_dict = dict(state_dict)
        btsp_state = {}
        for key in list(state_dict.keys()):
            for btsp_key in _KEYS:
                if key.endswith(btsp_key):
                    btsp_state[btsp_key] = state_dict.pop(key)
                    break
        result = super().load_state_dict(state_dict, strict)
        plan = btsp_state.get('btsp_next_plan')
        if isinstance(plan, dict) and str(plan.get('mode', '')).lower() == 'task_sla':
            self._next_gate_plan = plan
        else:
            self._next_gate_plan = None
        for name in ('task_baselines', 'task_eps_targets', 'task_class_ranges'):
            if f'btsp_{name}' in btsp_state:
                setattr(self, f'_{name}', dict(btsp_state[f'btsp_{name}']))
        if 'btsp_calibration_c' in btsp_state:
            self._calibration_c = float(btsp_state['btsp_calibration_c'])
        if 'btsp_eps_actual_ema' in btsp_state:
            self._eps_actual_ema = btsp_state['btsp_eps_actual_ema']
        if 'btsp_eps_calib_gain' in btsp_state:
            self._eps_calib_gain = btsp_state['btsp_eps_calib_gain']
        return result


def build():
    torch.manual_seed(0)
    return BTSPPlugin(nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 4))).eval()


def inputs(generator):
    return (torch.randn(3, 6, generator=generator),)
