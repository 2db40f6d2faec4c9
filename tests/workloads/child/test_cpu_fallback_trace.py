"""The CPU fallback classifier on recorded torch.profiler traces (tests/fixtures/cpu_fallback, each with its .source)
and on hand-made events for what a CPU-only machine cannot record (a device's copy activities)."""
import json

import pytest
from paths import FIXTURES

from workloads.child.cpu_fallback_trace import TraceEvent, classify, events_of

TRACES = FIXTURES / "cpu_fallback"


def _trace(name):
    return events_of(json.loads((TRACES / name).read_text(encoding="utf-8")))


def test_the_ops_forced_to_the_cpu_are_named_with_their_calls_share_and_copies():
    found = classify(_trace("mlp_gelu_on_cpu.json"))
    assert found.steps == 2
    by_op = {op.op: op for op in found.ops}
    assert set(by_op) == {"aten::gelu", "aten::gelu_backward"}
    gelu, backward = by_op["aten::gelu"], by_op["aten::gelu_backward"]
    assert gelu.calls_per_step == backward.calls_per_step == 1
    # gelu: its input to the CPU, its output back; gelu_backward: two inputs to the CPU, one output back
    assert (gelu.copies_per_step, backward.copies_per_step) == (2, 3)
    assert (gelu.copy_bytes_per_step, backward.copy_bytes_per_step) == (2 * 16 * 64 * 4, 3 * 16 * 64 * 4)
    for op in found.ops:
        assert 0 < op.share_of_step < 1
        assert op.ms_per_step == pytest.approx(op.share_of_step * found.step_ms)
    assert found.ops[0].ms_per_step >= found.ops[1].ms_per_step   # most costly first
    assert (found.copies_per_step, found.copy_bytes_per_step) == (5, 5 * 16 * 64 * 4)
    assert not found.copies_from_device


def test_the_same_steps_with_every_op_on_the_device_name_no_op_and_no_copy():
    found = classify(_trace("mlp_all_on_device.json"))
    assert found.steps == 2 and found.ops == ()
    # the fallback's own events (the copies, the mode's) are recorded beside the same steps' ops
    assert 0 < found.host_events_per_step < classify(_trace("mlp_gelu_on_cpu.json")).host_events_per_step
    assert (found.copies_per_step, found.copy_bytes_per_step) == (0, 0)


def _op(name, ts, dur, **args):
    return TraceEvent(name, "cpu_op", ts, dur, 1, args or None)


def _step(n, ts, dur):
    return TraceEvent(f"ProfilerStep#{n}", "user_annotation", ts, dur, 1)


def _copy(name, ts, nbytes):
    return TraceEvent(name, "gpu_memcpy", ts, 1, 7, {"bytes": nbytes})


def test_a_device_that_records_its_copies_counts_every_host_device_copy_of_the_steps():
    events = [_step(1, 0, 100), _step(2, 100, 100),
              _copy("Memcpy HtoD (Pageable -> Device)", 10, 1000), _copy("Memcpy DtoH (Device -> Pageable)", 150, 24),
              _copy("Memcpy DtoD (Device -> Device)", 160, 5000),       # on the card: not a host<->device copy
              _copy("Memcpy HtoD (Pageable -> Device)", 250, 9999)]     # after the watched steps
    found = classify(events)
    assert found.copies_from_device
    assert (found.copies_per_step, found.copy_bytes_per_step) == (1, 512)


def test_a_mutated_argument_copied_back_is_a_copy_of_the_op_and_a_to_cpu_outside_any_op_names_none():
    x = {"Input Dims": [[8, 8]], "Input type": ["c10::BFloat16"]}
    events = [_step(1, 0, 1000),
              _op("aten::index_put_", 10, 100), _op("aten::_to_cpu", 11, 10), _op("aten::to", 12, 5, **x),
              _op("aten::_copy_from_and_resize", 80, 10, **x),
              _op("aten::_to_cpu", 500, 10), _op("aten::to", 501, 5, **x)]   # the user's own .cpu()-like call
    found = classify(events)
    assert [(op.op, op.calls_per_step, op.copies_per_step, op.copy_bytes_per_step) for op in found.ops] == \
        [("aten::index_put_", 1, 2, 2 * 8 * 8 * 2)]
    assert found.ops[0].share_of_step == pytest.approx(0.1)


def test_a_trace_without_step_marks_is_one_step_and_an_unknown_dtype_leaves_the_bytes_unknown():
    events = [_op("aten::roll", 0, 50), _op("aten::_to_cpu", 1, 5),
              _op("aten::to", 2, 1, **{"Input Dims": [[4]], "Input type": ["c10::Float8_e8m0fnu"]})]
    found = classify(events)
    assert found.steps == 1 and [op.op for op in found.ops] == ["aten::roll"]
    assert found.ops[0].copy_bytes_per_step is None and found.copy_bytes_per_step is None


def test_events_of_keeps_complete_events_and_skips_what_is_not_one():
    trace = {"traceEvents": [{"ph": "X", "name": "aten::mm", "cat": "cpu_op", "ts": 1, "dur": 2, "tid": 3},
                             {"ph": "i", "name": "marker", "ts": 1}, {"ph": "X", "name": "no time"},
                             {"ph": "X", "name": "bad", "ts": "soon"}, "not an event"]}
    assert [e.name for e in events_of(trace)] == ["aten::mm"]
    assert events_of({}) == []
