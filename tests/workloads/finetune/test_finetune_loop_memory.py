"""The finetune loop reads the peak memory (VmHWM on the CPU) once for the result, not on every step: a high-water
mark read at the end is the peak of every step (workloads/finetune/train.py, Loop)."""

import contextlib
import io

import pytest

pytest.importorskip("torch")

from workloads.child.harness import Emitter  # noqa: E402
from workloads.child.train import memory  # noqa: E402
from workloads.finetune import train  # noqa: E402
from workloads.finetune.options import build_parser, check  # noqa: E402

ARGS = ["--model", "tiny", "--mode", "lora", "--device", "cpu", "--steps", "4", "--batch-size", "2",
        "--seq-len", "16", "--amp", "off", "--warmup", "1", "--threads", "1"]


def test_the_peak_is_read_once_for_the_result_and_the_step_events_carry_a_read_figure(monkeypatch):
    reads = []

    def peak_memory(device):
        reads.append(device)
        return 1000 + len(reads), None   # a high-water mark: each read at least the last

    monkeypatch.setattr(train.devices, "peak_memory", peak_memory)
    monkeypatch.setattr(memory, "MEMORY_EVERY_S", 1e9)   # no second read by the clock, however slow the machine
    args = build_parser().parse_args(ARGS)
    config = check(args)
    events = io.StringIO()
    with contextlib.redirect_stderr(io.StringIO()):   # its run log
        loop = train.prepare(Emitter(stream=events), args, config)
        for number in range(1, args.steps + 1):
            loop.run_step(number)
        assert len(reads) == 1, "the step events read the peak once (the first step), not per step"
        figures = loop.figures()
    assert len(reads) == 2
    assert figures["peak_memory_bytes"] == 1002   # the read at the end, not the first step's
    steps = [line for line in events.getvalue().splitlines() if '"event": "step"' in line or '"event":"step"' in line]
    assert len(steps) == 4 and all('"memory_allocated_bytes": 1001' in s or '"memory_allocated_bytes":1001' in s
                                   for s in steps)
