"""opscan's replay names an op that ran on the CPU from torch.profiler's trace of one more call, where the backend
said no warning (issue 38 item 2): the op's row is then cpu_fallback, with what the trace shows as its message."""
import torch

from cpu_fallback_emulation import CpuFallback
from workloads.child import cpu_fallback
from workloads.opscan import replay
from workloads.opscan.inject import Injections

CPU = torch.device("cpu")


def test_one_call_of_an_op_the_backend_runs_on_the_cpu_is_named_with_its_copies():
    x = torch.randn(8, 8)

    def gelu_falling_back():
        with CpuFallback([torch.ops.aten.gelu.default]):
            torch.nn.functional.gelu(x)

    found = cpu_fallback.one_call(gelu_falling_back, CPU)
    assert replay.fallback_words(found) == \
        "aten::gelu ran on the CPU (torch.profiler: under an aten::_to_cpu, 2 host<->device copies, 512 B)"
    assert replay.fallback_words(cpu_fallback.one_call(lambda: torch.nn.functional.gelu(x), CPU)) is None


def test_off_the_cpu_a_replay_without_a_warning_reads_the_trace_and_on_the_cpu_it_does_not(monkeypatch):
    traced = []
    gelu = cpu_fallback.one_call  # the real one, on the emulated fallback, stands for the card's trace

    def on_the_card(call, device):
        traced.append(device.type)
        with CpuFallback([torch.ops.aten.gelu.default]):
            return gelu(call, CPU)

    monkeypatch.setattr(cpu_fallback, "one_call", on_the_card)
    inputs = type("Inputs", (), {"args": (torch.randn(4, 4),), "kwargs": {}})()
    card = replay.Replayer(torch.device("meta"), Injections({}))
    assert card.fallback_said([], torch.nn.functional.gelu, inputs).startswith("aten::gelu ran on the CPU")
    assert replay.Replayer(CPU, Injections({})).fallback_said([], torch.nn.functional.gelu, inputs) is None
    assert traced == ["meta"]
