"""What the workbench, the headless suite and the report know of LLM fine-tuning (torch-free)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from workloads.catalogue import Message
from workloads.finetune.result_record import FinetuneResult
from workloads.spec import DEVICE_PLACEHOLDER, Param, SWITCH, SuiteArgs, WorkloadSpec, option, positive

STEPS, BATCH_SIZE, SEQ_LEN = 20, 8, 512


def planned_steps(args: Sequence[str], config: Mapping[str, Any]) -> int | None:
    if any(a.split("=")[0] == "--cold-start" for a in args):   # one step, measured as a cold start's phase: no step events
        return None
    return positive(config.get("steps")) or positive(option(args, "--steps")) or STEPS


SPEC = WorkloadSpec(
    name="finetune",
    title=Message("workload.finetune.title"),
    result=FinetuneResult,
    params=(
        Param("model", "model", "--model", "tiny", placeholder="tiny | Llama-3.1-8B | ..."),
        Param("mode", "mode", "--mode", "lora", "choice", ("full", "lora")),
        Param("steps", "steps", "--steps", str(STEPS), "int", max=100000),
        Param("batch_size", "global batch", "--batch-size", str(BATCH_SIZE), "int", max=4096),
        Param("seq_len", "sequence length", "--seq-len", str(SEQ_LEN), "int", max=131072),
        Param("amp", "AMP", "--amp", "bf16", "choice", ("off", "fp16", "bf16")),
        Param("checkpointing", "activation checkpointing", "--activation-checkpointing", "off", "switch", SWITCH),
        Param("data", "data", "--data", "synthetic", placeholder="synthetic | FILE (.txt, .jsonl)",
              omit=("synthetic",)),
        Param("device", "device", "--device", "", placeholder=DEVICE_PLACEHOLDER),
        Param("fit_only", "fit estimate only", "--fit-only", "off", "switch", SWITCH),
        # the plan for a card before it is rented (with fit only): a rated.csv name, or a size
        Param("card", "fit: plan for card", "--card", "", placeholder="this device (Ascend 910B3, H100-SXM...)"),
        Param("memory", "fit: plan for memory", "--memory", "", placeholder="this device (32GB, 80GiB...)"),
        Param("cold_start", "cold start only", "--cold-start", "off", "switch", SWITCH),
    ),
    suite=SuiteArgs(
        # the standard suite only: the quick suite's CPU budget holds resnet50 and generate
        standard=("--mode", "lora", "--steps", "50", "--warmup", "10"),
        cpu_standard=("--mode", "lora", "--steps", "4", "--batch-size", "2", "--seq-len", "32", "--amp", "off",
                      "--warmup", "1"),
        cpu_standard_note=Message("workload.finetune.cpu_standard_note"),
        amp_flag="--amp",
        suites=("standard",),
    ),
    planned_steps=planned_steps,
    short="Fine-tune",  # the title's first word, "LLM", would read as the inference workload's
)
