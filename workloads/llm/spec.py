"""What the workbench, the headless suite, the report and compare know of `cardbench run llm` (torch-free)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from workloads.llm.against import read_against
from workloads.models.llama.presets import PRESETS
from workloads.spec import SWITCH, Metric, Param, SuiteArgs, Text, WorkloadSpec


def planned_steps(args: Sequence[str], config: Mapping[str, Any]) -> int | None:
    """One step per cell: one without --sweep; a sweep's count comes with its start event (total_steps)."""
    return None if "--sweep" in args else 1


def report_table(metrics: Mapping[str, Any]) -> tuple[Any, list[Any], list[list[str]]]:
    from workloads.llm.table import report_table as table

    return table(metrics)


# the CPU's suite: the tiny preset's small sweep (4 cells of 32/128 in x 16 out x batch 1/4), one timed run each,
# and short pp/tg twice each: 24 s for `cardbench run llm` with these arguments on this 2-core machine under a load
# of 5.8 (8 cells with 64-token outputs, pp128/tg32 three times took 80 s there)
_CPU = ("--model", "tiny", "--sweep", "--input-len", "32,128", "--output-len", "16", "--batch-size", "1,4",
        "--repeat", "1", "--pp", "64", "--tg", "16", "--repetitions", "2")
_CPU_NOTE = Text("no accelerator, so the tiny preset (19.7M parameters) over a small sweep (32/128 input tokens x 16 "
                 "output x batch 1/4), one timed run a cell, and pp64/tg16 twice instead of pp512/tg128 five times",
                 "没有加速卡，因此用 tiny 预设（1970 万参数）跑小规模扫描（输入 32/128 token x 输出 16 x 批 1/4），"
                 "每单元计时一次，并以 pp64/tg16 各两次代替 pp512/tg128 各五次")

SPEC = WorkloadSpec(
    name="llm",
    title=Text("LLM readiness (Llama-family prefill and decode)", "大模型就绪度（Llama 系列预填充与解码）"),
    unit="tokens/s",
    headline="tg_tokens_per_s",
    params=(
        Param("model", "model", "--model", "tiny", "choice", tuple(PRESETS)),
        Param("sweep", "sweep", "--sweep", "off", "switch", SWITCH),
        Param("input_len", "input tokens", "--input-len", "", placeholder="128 (sweep: 128,1024,2048)"),
        Param("output_len", "output tokens", "--output-len", "", placeholder="128 (sweep: 128,1024)"),
        Param("batch_size", "batch sizes", "--batch-size", "", placeholder="1 (sweep: 1,8,32)"),
        Param("dtype", "dtype", "--dtype", "auto", "choice", ("auto", "fp32", "fp16", "bf16"), omit=("auto",)),
        Param("repeat", "timed runs a cell", "--repeat", "3", "int", omit=("3",), max=100),
        Param("pp", "pp tokens", "--pp", "512", "int", omit=("512",), max=131072),
        Param("tg", "tg tokens", "--tg", "128", "int", omit=("128",), max=131072),
        Param("cuda_graphs", "CUDA graphs", "--cuda-graphs", "off", "switch", SWITCH),
        Param("compile", "torch.compile", "--compile", "off", "switch", SWITCH),
        Param("fit_only", "fit estimate only", "--fit-only", "off", "switch", SWITCH),
        Param("weights", "weights dir", "--weights", "", placeholder="random (a local HF checkpoint dir)"),
        Param("device", "device", "--device", "", placeholder="auto (cuda:0, cpu...)"),
    ),
    # the standard suite only (the quick one's CPU budget holds resnet50 and generate): on an accelerator an
    # 8B-class preset (16 GB of bf16 weights; a cell over the card's memory is a row saying so), on the CPU tiny
    suite=SuiteArgs(
        standard=("--model", "Llama-3.1-8B", "--sweep", "--input-len", "128,2048", "--output-len", "128",
                  "--batch-size", "1,8", "--cuda-graphs"),
        cpu_standard=_CPU, cpu_standard_note=_CPU_NOTE, suites=("standard",),
    ),
    metrics=(
        Metric("tg_tokens_per_s", Text("tg: decode tokens/s at batch 1 (llama-bench, mean of repetitions)",
                                       "tg：批 1 解码 token/秒（llama-bench，重复均值）"), "rate"),
        Metric("pp_tokens_per_s", Text("pp: prefill tokens/s at batch 1 (llama-bench, mean of repetitions)",
                                       "pp：批 1 预填充 token/秒（llama-bench，重复均值）"), "rate"),
        Metric("decode_tokens_per_s", Text("decode tokens/s per sequence (1 / TPOT p50)", "每序列解码 token/秒（1 / TPOT p50）"),
               "rate"),
        Metric("decode_tokens_per_s_all", Text("decode tokens/s, all sequences", "解码 token/秒，全部序列"), "rate"),
        Metric("decode_bound_tokens_per_s", Text("decode bound tokens/s (read bandwidth)", "解码上限 token/秒（读带宽）"),
               "rate"),
        Metric("decode_bandwidth_fraction", Text("share of read bandwidth achieved", "达到读带宽比例"), "fraction"),
        Metric("ttft_s", Text("time to first token", "首 token 时间"), "seconds"),
        Metric("tpot_p50_s", Text("time per output token p50", "每输出 token 时间 p50"), "seconds"),
        Metric("tpot_p99_s", Text("time per output token p99", "每输出 token 时间 p99"), "seconds"),
        Metric("prefill_tokens_per_s", Text("prefill tokens/s", "预填充 token/秒"), "rate"),
        Metric("prefill_peak_fraction", Text("prefill share of rated peak FLOP/s", "预填充占额定峰值 FLOP/s 比例"),
               "fraction"),
        Metric("end_to_end_s", Text("end-to-end time", "端到端时间"), "seconds"),
        Metric("peak_memory_bytes", Text("peak memory", "峰值内存"), "bytes"),
        Metric("fit_estimate_error", Text("fit estimate against measured peak (first cell)",
                                          "内存估算相对实测峰值（首个单元）"), "fraction"),
        Metric("device_read_gbps", Text("GB/s device read bandwidth (measured: fastest sum of a tensor)",
                                        "GB/s 设备读带宽（实测：张量求和最快一次）")),   # as generate's says it
        Metric("model_size", Text("model", "模型"), "text"),
        Metric("sweep", Text("sweep (input x output x batch)", "扫描（输入 x 输出 x 批）"), "text"),
    ),
    line_metrics=(
        Metric("pp_tokens_per_s", Text("pp tokens/s", "pp token/秒"), "rate"),
        Metric("model_size", Text("model", "模型"), "text"),
    ),
    progress=Text("cell", "单元"),
    has_loss=False,
    warmup_emits_steps=False,
    cost_basis="tokens",
    planned_steps=planned_steps,
    report_table=report_table,
    read_against=read_against,
    short="Inference",  # its title's first word would be "LLM", like the fine-tuning workload's
)
