"""llm's --cold-start when its measured child fails: the phases it measured are sent as the result first, then the
failure as one line (exit 1, not 2: the arguments were good). A stand-in cold start: no torch, no child."""

import io
import json

import pytest

from workloads.child.harness import Emitter
from workloads.errors import WorkloadError
from workloads.llm import cold_start
from workloads.llm.cli import build_parser
from workloads.llm.plan import make_plan


class _DiedAfterItsDevicePhase:
    def __init__(self, module, request, weights_dir, read="cold"):
        assert module == "workloads.llm.cold_child" and request["input_len"] == 32 and read == "cold"
        self.error, self.notes = None, {}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass

    def prepare(self):
        return {"device": "cpu", "device_name": "cpu (stand-in)", "versions": {"torch": "x"}, "dtype": "fp32",
                "skipped": [["bf16", "no kernel"]]}

    def measure(self):
        self.error = "the child process ended (killed by SIGKILL) after its device phase"
        return {"cold_start_s": None, "cold_start_import_s": 2.5, "cold_start_device_s": 0.01,
                "cold_start_read_s": None, "cold_start_build_s": None, "cold_start_compile_s": None,
                "cold_start_first_token_s": None, "cold_start_read_state": "cold",
                "cold_start_read_reason": "page cache dropped", "cold_start_read_bytes": 1000,
                "cold_start_compile_note": ""}


def test_what_was_measured_is_sent_before_the_failure_is_said(monkeypatch):
    monkeypatch.setattr(cold_start, "ColdStart", _DiedAfterItsDevicePhase)
    args = build_parser().parse_args(["--model", "tiny", "--cold-start", "--input-len", "32"])
    stream = io.StringIO()
    with pytest.raises(WorkloadError) as raised:
        cold_start.run(Emitter(stream), args, make_plan(args, on_cpu=True), "llm")
    events = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [e["event"] for e in events] == ["start", "fallback", "result"]
    result = events[-1]["metrics"]
    assert result["cold_start_import_s"] == 2.5 and result["cold_start_read_s"] is None
    assert result["model_size"] == "tiny" and result["dtype"] == "fp32"
    assert raised.value.message == ("cold start: the child process ended (killed by SIGKILL) after its device "
                                    "phase") and raised.value.exit_code == 1
