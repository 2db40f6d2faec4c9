"""The environment ``--device`` gives a job, and the run's words for it: the command workload and serve's launched
server read ``--device`` alike."""

from __future__ import annotations

import re

from workloads.child.harness import WorkloadError

_CARDS = re.compile(r"^(?:cuda:)?(\d+(?:,\d+)*)$")


def device_env(device: str) -> tuple[dict[str, str], str]:
    """The variables ``--device`` sets in the job's environment, and the run's words for its device."""
    asked = device.strip().lower()
    if asked in ("", "auto"):
        return {}, "the device the command chose"
    if asked == "cpu":
        return {"CUDA_VISIBLE_DEVICES": "", "HIP_VISIBLE_DEVICES": ""}, "cpu (CUDA_VISIBLE_DEVICES empty)"
    cards = _CARDS.match(asked)
    if cards is None:
        raise WorkloadError(f"--device: {device!r} is not auto, cpu or cuda:N",
                            hint="for another accelerator set its visible-devices variable before cardbench run")
    return {"CUDA_VISIBLE_DEVICES": cards.group(1)}, f"cuda (CUDA_VISIBLE_DEVICES={cards.group(1)})"
