"""The llm workload's CPU fallback check: decode steps of the first cell that ran, after the timed cells, under the
watch; the figures its record declares; off on the CPU unless forced (issue 38 item 2)."""
import io
import json
from types import SimpleNamespace

import torch

from cpu_fallback_emulation import CpuFallback
from workloads.child.harness import Emitter
from workloads.llm import fallback_check
from workloads.llm.plan import Cell
from workloads.llm.result_record import LlmResult
from workloads.models.decoding import EagerDecoder
from workloads.models.llama.model import Llama
from workloads.models.llama.presets import LlamaConfig

CPU = torch.device("cpu")
SMALL = LlamaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=4,
                    num_key_value_heads=2, vocab_size=64)


def _model():
    model = Llama(SMALL)
    model.init_random(0)
    return model.eval().requires_grad_(False)


def _check(mode, rows, stream=None):
    plan = SimpleNamespace(cells=[Cell(8, 4, 2), Cell(16, 4, 1)])
    args = SimpleNamespace(cpu_fallback_check=mode, seed=0)
    return fallback_check.check(args, plan, _model(), rows, CPU, Emitter(stream or io.StringIO()), EagerDecoder)


def test_forced_on_it_watches_decode_steps_of_the_first_cell_that_ran_and_names_what_fell_back():
    stream = io.StringIO()
    with CpuFallback([torch.ops.aten.silu.default]):   # the MLP's activation, on the CPU mid-decode
        figures = _check("on", [{"status": "out of memory"}, {"status": "ok"}], stream)
    assert not torch._C._autograd._profiler_enabled()
    assert figures["cpu_fallback_steps_watched"] == 3
    (op,) = figures["cpu_fallback_ops"]
    assert op["op"] == "aten::silu" and op["calls_per_step"] == SMALL.num_hidden_layers
    warned = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [w["op"] for w in warned if w.get("code") == "cpu_fallback"] == ["aten::silu"]
    assert LlmResult.of(figures).undeclared() == []


def test_on_the_cpu_by_default_or_with_no_cell_run_there_is_no_check():
    assert _check("auto", [{"status": "ok"}, {"status": "ok"}]) == {}
    assert _check("on", [{"status": "does not fit"}, {"status": "out of memory"}]) == {}
