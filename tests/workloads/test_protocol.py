import json
import math

import pytest

from workloads import protocol


def test_round_trip_keeps_every_field_and_unknown_ones():
    step = protocol.Step(step=3, epoch=1, loss=0.5, throughput=120.0, unit="images/s",
                         data_wait_s=0.01, compute_s=0.2, memory_allocated_bytes=1024,
                         extra={"lr": 0.1})
    again = protocol.parse_line(step.to_json())
    assert isinstance(again, protocol.Step)
    assert (again.step, again.epoch, again.loss, again.throughput) == (3, 1, 0.5, 120.0)
    assert again.data_wait_s == 0.01 and again.memory_allocated_bytes == 1024
    assert again.extra == {"lr": 0.1}
    assert json.loads(again.to_json()) == json.loads(step.to_json())


def test_a_newer_workloads_fields_survive_an_older_reader():
    line = json.dumps({"event": "start", "t": 1.0, "workload": "w", "device": "cpu",
                       "config": {}, "versions": {}, "accelerator_family": "x"})
    event = protocol.parse_line(line)
    assert isinstance(event, protocol.Start)
    assert event.extra == {"accelerator_family": "x"}
    assert json.loads(event.to_json())["accelerator_family"] == "x"


@pytest.mark.parametrize("line", [
    "", "not json", "[1, 2]", '{"no_event": 1}', '{"event": "telepathy"}',
    '{"event": "end", "status": "maybe"}', '{"event": "step", "t": "yesterday"}', '{"event": "step", ',
])
def test_malformed_lines_raise_malformed_line(line):
    with pytest.raises(protocol.MalformedLine):
        protocol.parse_line(line)


def test_nan_is_written_as_null_so_the_line_stays_json():
    text = protocol.Step(step=1, loss=math.nan, throughput=math.inf).to_json()
    data = json.loads(text)  # strict JSON has no NaN
    assert data["loss"] is None and data["throughput"] is None


def test_error_always_carries_a_hint_key_and_describes_itself():
    error = protocol.Error(message="boom")
    assert "hint" in json.loads(error.to_json())
    assert protocol.Error(message="boom", hint="do x").describe() == "ERROR: boom (hint: do x)"
    assert "loss 0.5000" in protocol.Step(step=1, loss=0.5).describe()


@pytest.mark.parametrize("line", [
    '{"event": "step", "step": "abc", "loss": "high"}', '{"event": "step", "step": 1, "loss": "high"}',
    '{"event": "step", "step": true}', '{"event": "step", "t": true}', '{"event": "step", "t": NaN}',
    '{"event": "step", "t": Infinity}', '{"event": "start", "config": [1, 2]}', '{"event": "start", "workload": 5}',
    '{"event": "result", "metrics": [1, 2]}', '{"event": "warning", "message": {"a": 1}}',
    '{"event": "fallback", "error": 5}', '{"event": "end", "status": "ok", "exit_code": "zero"}',
    '{"event": "error", "message": "x", "hint": 3}',
])
def test_a_known_field_of_the_wrong_type_is_a_malformed_line(line):
    """Everything after the parser does arithmetic on these: a step whose loss is "high" is not a step."""
    with pytest.raises(protocol.MalformedLine, match="field"):
        protocol.parse_line(line)


def test_nesting_is_bounded_and_never_a_recursion_error():
    with pytest.raises(protocol.MalformedLine, match="nested too deep to decode"):
        protocol.parse_line("[" * 200_000 + "]" * 200_000)  # the decoder's own RecursionError
    deep = "[" * (protocol.MAX_DEPTH + 1) + "]" * (protocol.MAX_DEPTH + 1)
    with pytest.raises(protocol.MalformedLine, match="nested more than"):
        protocol.parse_line(f'{{"event": "warning", "message": "m", "x": {deep}}}')
    with pytest.raises(protocol.MalformedLine, match="nested more than"):
        protocol.parse_line(f'{{"event": "result", "metrics": {{"a": {deep}}}}}')
    ok = "[" * (protocol.MAX_DEPTH - 1) + "]" * (protocol.MAX_DEPTH - 1)
    assert protocol.parse_line(f'{{"event": "warning", "message": "m", "x": {ok}}}').extra["x"]
    assert protocol.too_deep([[[]]], 2) and not protocol.too_deep([[[]]], 3) and not protocol.too_deep(5, 0)


def test_numbers_are_numbers_and_missing_is_null():
    """int where a float is declared (and the reverse), null for an optional field, NaN for a measurement."""
    step = protocol.parse_line('{"event": "step", "t": 5, "step": 3.0, "loss": NaN, "throughput": 12, '
                               '"unit": null, "memory_allocated_bytes": 1.5e9}')
    assert (step.t, step.step, step.throughput, step.unit) == (5, 3.0, 12, None) and math.isnan(step.loss)
    assert protocol.fits(1, (int, float)) and not protocol.fits(True, (int, float))
    assert protocol.fits(True, (bool,)) and protocol.fits([1], (object,))


def test_a_result_line_counts_a_long_list_instead_of_printing_it():
    failures = [{"op": f"aten.op{i}.default", "modules": [f"resnet50:layer{j}.conv1 (Conv2d)" for j in range(40)]}
                for i in range(4)]
    line = protocol.Result(t=0.0, metrics={"ops": 57, "failures": failures, "clean": ["fp32"],
                                           "by_dtype": {"fp32": {"ok": 57}}}).describe()
    assert line == ("RESULT: ops=57, failures=<4 items, in events.jsonl>, clean=['fp32'], "
                    "by_dtype={'fp32': {'ok': 57}}")


def test_a_start_line_gives_a_measured_float_four_digits():
    line = protocol.Start(workload="opscan", device="cpu", config={"record_s": 4.337203169998247, "calls": 558}).describe()
    assert line == "start opscan on cpu () config: record_s=4.337 calls=558"
