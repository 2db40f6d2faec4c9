"""What the workbench, the headless suite and the report know of LLM fine-tuning (torch-free)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from workloads.spec import SWITCH, Metric, Param, SuiteArgs, Text, WorkloadSpec, option, positive

STEPS, BATCH_SIZE, SEQ_LEN = 20, 8, 512


def planned_steps(args: Sequence[str], config: Mapping[str, Any]) -> int | None:
    return positive(config.get("steps")) or positive(option(args, "--steps")) or STEPS


SPEC = WorkloadSpec(
    name="finetune",
    title=Text("LLM fine-tuning", "大模型微调"),
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
        cpu_standard_note=Text("no accelerator, so the standard suite's fine-tune was scaled down to 4 LoRA steps of "
                               "2 x 32 tokens in fp32 on the tiny preset",
                               "没有加速卡，因此标准套件的微调缩小为 tiny 模型上 4 步 LoRA、每步 2 x 32 个 token、fp32"),
        amp_flag="--amp",
        suites=("standard",),
    ),
    metrics=(
        Metric("tokens_per_s", Text("tokens/s, all devices (median after warm-up)", "tokens/s（全部设备，预热后中位数）"),
               "rate"),
        Metric("tokens_per_s_per_device", Text("tokens/s per device", "每设备 tokens/s"), "rate"),
        Metric("mfu", Text("MFU (model FLOPs / rated peak)", "MFU（模型 FLOPs / 标称峰值）"), "fraction"),
        Metric("mfu_formula", Text("model FLOPs per token", "每 token 模型 FLOPs"), "text"),
        Metric("rated_tflops", Text("rated peak per device (TFLOP/s)", "每设备标称峰值（TFLOP/s）")),
        # workloads.child.device.peak_memory: on a device torch's max_memory_allocated (the caching allocator's reserve
        # and the context are not in it), on the CPU the process's peak RSS; run.log's line says this label on both
        # (the report's row on the CPU says the RSS one: tui.report.contents._memory_row)
        Metric("peak_memory_bytes", Text("peak memory (on a device: allocated by torch; on the CPU: RSS)",
                                         "峰值内存（设备上：torch 已分配的显存；CPU 上：进程 RSS）"), "bytes"),
        Metric("fit_estimate_bytes", Text("memory estimate of a step", "单步显存估算"), "bytes"),
        Metric("data_wait_fraction", Text("share of step time loading data", "加载数据时间占比"), "fraction"),
        Metric("trainable_parameters", Text("trainable parameters", "可训练参数")),
        Metric("first_loss", Text("first loss", "首步 loss")),
        Metric("cpu_check", Text("loss against float64 on the CPU", "与 CPU float64 的 loss 对比"), "text"),
        Metric("steps", Text("steps", "步数")),
        Metric("total_s", Text("training time", "训练时间"), "seconds"),
    ),
    line_metrics=(Metric("final_loss", Text("final loss", "最终 loss")), Metric("mfu", Text("MFU", "MFU"), "fraction")),
    cost_basis="tokens",
    planned_steps=planned_steps,
    short="Fine-tune",  # the title's first word, "LLM", would read as the inference workload's
)
