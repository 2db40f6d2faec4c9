"""What the workbench, the headless suite and the report know of LLM fine-tuning (torch-free)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from workloads.catalogue import Message
from workloads.spec import SWITCH, Metric, Param, SuiteArgs, WorkloadSpec, option, positive

STEPS, BATCH_SIZE, SEQ_LEN = 20, 8, 512


def planned_steps(args: Sequence[str], config: Mapping[str, Any]) -> int | None:
    return positive(config.get("steps")) or positive(option(args, "--steps")) or STEPS


SPEC = WorkloadSpec(
    name="finetune",
    title=Message("workload.finetune.title"),
    unit="tokens/s",
    headline="tokens_per_s",
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
        Param("device", "device", "--device", "", placeholder="auto (cuda:0, cpu...)"),
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
    metrics=(
        Metric("tokens_per_s", Message("workload.finetune.metric.tokens_per_s"),
               "rate"),
        Metric("tokens_per_s_per_device", Message("workload.finetune.metric.tokens_per_s_per_device"), "rate"),
        Metric("mfu", Message("workload.finetune.metric.mfu"), "fraction"),
        Metric("mfu_formula", Message("workload.finetune.metric.mfu_formula"), "text"),
        Metric("rated_tflops", Message("workload.finetune.metric.rated_tflops")),
        # workloads.child.device.peak_memory: on a device torch's max_memory_allocated (the caching allocator's reserve
        # and the context are not in it), on the CPU the process's peak RSS; run.log's line says this label on both
        # (the report's row on the CPU says the RSS one: tui.report.contents._memory_row)
        Metric("peak_memory_bytes", Message("workload.finetune.metric.peak_memory_bytes"), "bytes"),
        Metric("fit_estimate_bytes", Message("workload.finetune.metric.fit_estimate_bytes"), "bytes"),
        Metric("data_wait_fraction", Message("workload.finetune.metric.data_wait_fraction"), "fraction"),
        Metric("trainable_parameters", Message("workload.finetune.metric.trainable_parameters")),
        Metric("first_loss", Message("workload.finetune.metric.first_loss")),
        Metric("cpu_check", Message("workload.finetune.metric.cpu_check"), "text"),
        Metric("steps", Message("workload.shared.metric.steps")),
        Metric("total_s", Message("workload.shared.metric.total_s"), "seconds"),
    ),
    line_metrics=(Metric("final_loss", Message("workload.shared.line.final_loss")), Metric("mfu", Message("workload.finetune.line.mfu"), "fraction")),
    cost_basis="tokens",
    planned_steps=planned_steps,
    short="Fine-tune",  # the title's first word, "LLM", would read as the inference workload's
)
