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
