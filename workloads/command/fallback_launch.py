"""`python -m workloads.command.fallback_launch (SCRIPT | -m MODULE) ARGS...`: the user's Python job with the CPU
fallback check in it (`cardbench run command --cpu-fallback-check on`, issue 38).

It runs in the job's own interpreter: it registers a global optimizer step post-hook that drives a
:class:`~workloads.child.cpu_fallback.FallbackWatch` (the job's steps are its optimizer's steps: the first
optimizer that steps, so a GAN's two do not count twice), then runs the user's code with :mod:`runpy` as
``__main__``, with ``sys.argv`` and ``sys.path[0]`` as ``python SCRIPT ARGS`` or ``python -m MODULE ARGS`` set them.
When the watch is done, or the job ends first, its findings go as JSON to the file :data:`OUT_ENV` names, which
the command workload reads when the job has ended (`workloads.command.fallback_check`)."""

from __future__ import annotations

import dataclasses
import json
import os
import runpy
import sys
from typing import Any

import torch
from torch.optim.optimizer import register_optimizer_step_post_hook

from workloads.child.cpu_fallback import FallbackWatch
from workloads.child.device import synchronize
from workloads.command.fallback_check import OUT_ENV, WARMUP


class StepWatch:
    """Counts the job's optimizer steps and opens and closes the watch's spans between them."""

    def __init__(self, out: str):
        self.out = out
        self.owner: int | None = None
        self.steps = 0
        self.watch: FallbackWatch | None = None
        self.written = False

    def post_step(self, optimizer: torch.optim.Optimizer, args: Any, kwargs: Any) -> None:
        if self.owner is None:
            self.owner = id(optimizer)
            self.watch = FallbackWatch(_device_of(optimizer), None, mode="on", after=WARMUP)
        if id(optimizer) != self.owner or self.written:
            return
        watch = self.watch
        self.steps += 1
        if watch.watches(self.steps):
            synchronize(watch.device)   # the step's device work inside its span, as the workloads' loops do
        if watch.after(self.steps):
            self.write()
            return
        watch.before(self.steps + 1)   # the next step runs from here to the next post-hook

    def write(self) -> None:
        """The findings so far (the watch stopped where the job ended inside its steps), once."""
        if self.written:
            return
        self.written = True
        watch = self.watch
        if watch is not None:
            watch.finish()
        found = watch.findings if watch is not None else None
        data = {"steps": self.steps, "watched": watch.watched if watch is not None else 0,
                "device": str(watch.device) if watch is not None else None,
                "findings": dataclasses.asdict(found) if found is not None else None}
        with open(self.out, "w", encoding="utf-8") as f:
            json.dump(data, f)


def _device_of(optimizer: torch.optim.Optimizer) -> torch.device:
    for group in optimizer.param_groups:
        for param in group["params"]:
            return param.device
    return torch.device("cpu")


def run_user_code(argv: list[str]) -> None:
    """``argv``: SCRIPT ARGS or -m MODULE ARGS, run as the interpreter would have run them."""
    if argv[0] == "-m":
        sys.argv = [argv[1], *argv[2:]]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)   # argv[0] becomes the module's file
        return
    sys.argv = list(argv)
    sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))   # the script's folder, not ours
    runpy.run_path(argv[0], run_name="__main__")


def main() -> None:
    watch = StepWatch(os.environ.pop(OUT_ENV))   # popped: what the job starts does not write over it
    register_optimizer_step_post_hook(watch.post_step)
    try:
        run_user_code(sys.argv[1:])
    finally:
        watch.write()


if __name__ == "__main__":
    main()
