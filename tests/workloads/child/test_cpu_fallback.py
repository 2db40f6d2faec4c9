"""The watch on the CPU: off by default there, forced on it profiles only its steps, names the ops the emulated
fallback (tests/cpu_fallback_emulation.py) sends to the CPU as warnings, gives the figures, and is off after."""
import io
import json

import torch

from cpu_fallback_emulation import small_model, train_step
from workloads.child.cpu_fallback import FallbackWatch
from workloads.child.harness import Emitter

CPU = torch.device("cpu")


def _profiling() -> bool:
    return torch._C._autograd._profiler_enabled()


def _run(watch, steps, fall_back=True):
    model = small_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    seen = []
    for step in range(1, steps + 1):
        watch.before(step)
        seen.append(_profiling())
        train_step(model, optimizer, fall_back)
        watch.after(step)
    return seen


def _warnings(stream):
    events = [json.loads(line) for line in stream.getvalue().splitlines()]
    return [e for e in events if e["event"] == "warning"]


def test_on_the_cpu_the_check_is_off_unless_forced():
    watch = FallbackWatch(CPU, None, "auto", after=1)
    assert _run(watch, 4) == [False] * 4
    assert watch.figures() == {}
    assert not FallbackWatch(torch.device("meta"), None, "off").active
    assert FallbackWatch(torch.device("meta"), None, "auto").active   # any device but the CPU


def test_forced_it_profiles_the_steps_after_warm_up_names_each_fallen_back_op_and_is_off_after():
    stream = io.StringIO()
    watch = FallbackWatch(CPU, Emitter(stream), "on", after=1, steps=2)
    assert _run(watch, 5) == [False, True, True, False, False]
    assert not _profiling()
    assert [watch.watches(s) for s in range(1, 6)] == [False, True, True, False, False]
    warned = _warnings(stream)
    assert sorted(w["op"] for w in warned) == ["aten::gelu", "aten::gelu_backward"]
    assert all(w["code"] == "cpu_fallback" and w["calls_per_step"] == 1 and 0 < w["share_of_step"] < 1
               for w in warned)
    assert "ran on the CPU, not on cpu: 1 call(s) a step" in warned[0]["message"]
    figures = watch.figures()
    assert figures["cpu_fallback_steps_watched"] == 2
    assert sorted(row["op"] for row in figures["cpu_fallback_ops"]) == ["aten::gelu", "aten::gelu_backward"]
    assert figures["host_device_copies_per_step"] == 5
    # shapes are not recorded (their cost), and the CPU keeps no copy records of its own: the bytes are unknown
    assert figures["host_device_copy_bytes_per_step"] is None


def test_with_nothing_on_the_cpu_it_warns_of_nothing_and_a_run_ending_inside_its_steps_still_ends_it():
    stream = io.StringIO()
    watch = FallbackWatch(CPU, Emitter(stream), "on", after=0, steps=3)
    _run(watch, 2, fall_back=False)
    assert _profiling()            # the run ended at step 2 of the 3 watched
    watch.finish()
    assert not _profiling()
    assert _warnings(stream) == []
    assert watch.figures()["cpu_fallback_ops"] == [] and watch.figures()["cpu_fallback_steps_watched"] == 2


def test_a_loop_too_short_to_leave_its_figures_their_steps_watches_fewer_or_none(capsys):
    assert FallbackWatch(CPU, None, "on", after=1, planned=6).last == 3     # 6 steps: 1 warm-up, 2 watched, 3 counted
    short = FallbackWatch(CPU, Emitter(io.StringIO()), "on", after=1, planned=4)
    assert not short.active and _run(short, 4) == [False] * 4 and short.figures() == {}
    assert "CPU fallback check: not run: 4 steps leave none to profile after the 1 of warm-up" in capsys.readouterr().err
