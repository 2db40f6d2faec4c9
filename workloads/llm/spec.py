"""What the workbench, the headless suite, the report and compare know of `cardbench run llm` (torch-free)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from workloads.catalogue import Message
from workloads.models.llama.presets import PRESETS
from workloads.llm.result_record import LlmResult
from workloads.spec import DEVICE_PLACEHOLDER, Param, SWITCH, SuiteArgs, WorkloadSpec


def planned_steps(args: Sequence[str], config: Mapping[str, Any]) -> int | None:
    """One step per cell: one without --sweep; a sweep's count comes with its start event (total_steps); a cold start
    has no steps."""
    return None if "--sweep" in args or any(a.split("=")[0] == "--cold-start" for a in args) else 1


# the CPU's suite: the tiny preset's small sweep (4 cells of 32/128 in x 16 out x batch 1/4), one timed run each,
# and short pp/tg twice each: 24 s for `cardbench run llm` with these arguments on this 2-core machine under a load
# of 5.8 (8 cells with 64-token outputs, pp128/tg32 three times took 80 s there)
_CPU = ("--model", "tiny", "--sweep", "--input-len", "32,128", "--output-len", "16", "--batch-size", "1,4",
        "--repeat", "1", "--pp", "64", "--tg", "16", "--repetitions", "2")
_CPU_NOTE = Message("workload.llm.cpu_note")

SPEC = WorkloadSpec(
    name="llm",
    title=Message("workload.llm.title"),
    result=LlmResult,
    params=(
        Param("model", "model", "--model", "tiny", "choice", tuple(PRESETS)),
        Param("sweep", "sweep", "--sweep", "off", "switch", SWITCH),
        Param("input_len", "input tokens", "--input-len", "", placeholder="128 (sweep: 128,1024,2048)"),
        Param("output_len", "output tokens", "--output-len", "", placeholder="128 (sweep: 128,1024)"),
        Param("batch_size", "batch sizes", "--batch-size", "", placeholder="1 (sweep: 1,8,32)"),
        Param("dtype", "dtype", "--dtype", "auto", "choice", ("auto", "fp32", "fp16", "bf16"), omit=("auto",)),
        Param("repeat", "timed runs a cell", "--repeat", "3", "int", omit=("3",), max=100),
        Param("pp", "pp tokens", "--pp", "", placeholder="512 (a list: 512,2048; 0: none)"),
        Param("tg", "tg tokens", "--tg", "", placeholder="128 (a list: 128,256; 0: none)"),
        Param("depth", "depth (tokens in the cache)", "--depth", "", placeholder="0 (a list: 0,4096,16384)"),
        Param("cuda_graphs", "CUDA graphs", "--cuda-graphs", "off", "switch", SWITCH),
        Param("compile", "torch.compile", "--compile", "off", "switch", SWITCH),
        Param("eager", "eager decode", "--eager", "off", "switch", SWITCH),
        Param("fit_only", "fit estimate only", "--fit-only", "off", "switch", SWITCH),
        # the plan for a card before it is rented (with fit only): a rated.csv name, or a size
        Param("card", "fit: plan for card", "--card", "", placeholder="this device (Ascend 910B3, H100-SXM...)"),
        Param("memory", "fit: plan for memory", "--memory", "", placeholder="this device (32GB, 80GiB...)"),
        Param("cold_start", "cold start only", "--cold-start", "off", "switch", SWITCH),
        Param("weights", "weights dir", "--weights", "", placeholder="random (a local HF checkpoint dir)"),
        Param("device", "device", "--device", "", placeholder=DEVICE_PLACEHOLDER),
    ),
    # the standard suite only (the quick one's CPU budget holds resnet50 and generate): on an accelerator an
    # 8B-class preset (16 GB of bf16 weights; a cell over the card's memory is a row saying so), on the CPU tiny
    suite=SuiteArgs(
        standard=("--model", "Llama-3.1-8B", "--sweep", "--input-len", "128,2048", "--output-len", "128",
                  "--batch-size", "1,8", "--cuda-graphs"),
        cpu_standard=_CPU, cpu_standard_note=_CPU_NOTE, suites=("standard",),
    ),
    progress=Message("workload.llm.progress"),
    has_loss=False,
    warmup_emits_steps=False,
    planned_steps=planned_steps,
    short="Inference",  # its title's first word would be "LLM", like the fine-tuning workload's
)
