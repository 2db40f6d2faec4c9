"""What the workbench, the headless suite and the report know of GPT-2 token generation (torch-free)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from workloads.spec import SWITCH, Metric, Param, SuiteArgs, Text, WorkloadSpec, option, positive

# in the table and in the result line, with one label: a figure is named alike wherever it appears
TTFT = Metric("ttft_s", Text("time to first token", "首 token 时间"), "seconds")
BANDWIDTH_FRACTION = Metric("bandwidth_fraction", Text("share of read bandwidth achieved", "达到读带宽比例"), "fraction")
# the workload's defaults: its parser (cli.py) takes them from here
TOKENS, REPEAT = 256, 3


def planned_steps(args: Sequence[str], config: Mapping[str, Any]) -> int | None:
    """Decoded tokens over the timed runs (``--tokens`` x ``--repeat``): a step event counts tokens.

    The warm-up's tokens are not in it: they emit no step (so the ETA, from the rate of the steps seen, is the
    time to the last timed token; the bandwidth re-measured after it adds a second or two).
    """
    tokens = positive(config.get("tokens")) or positive(option(args, "--tokens")) or TOKENS
    repeat = positive(config.get("repeat")) or positive(option(args, "--repeat")) or REPEAT
    return tokens * repeat


SPEC = WorkloadSpec(
    name="generate",
    title=Text("GPT-2 token generation", "GPT-2 token 生成"),
    unit="tokens/s",
    headline="tokens_per_s",
    params=(
        Param("tokens", "tokens", "--tokens", "256", "int", max=1024),
        Param("batch_size", "batch size", "--batch-size", "1", "int", max=256),
        Param("dtype", "dtype", "--dtype", "auto", "choice", ("auto", "fp32", "fp16", "bf16"), omit=("auto",)),
        # not "tiny": its context (64) is below the default tokens
        Param("model_size", "model size", "--model-size", "124M", "choice", ("124M", "355M", "774M", "1.5B")),
        Param("prompt_len", "prompt length", "--prompt-len", "32", "int", max=1024),
        Param("repeat", "timed runs", "--repeat", "3", "int", max=100),
        Param("cuda_graphs", "CUDA graphs", "--cuda-graphs", "off", "switch", SWITCH),
        Param("compile", "torch.compile", "--compile", "off", "switch", SWITCH),
        Param("device", "device", "--device", "", placeholder="auto (cuda:0, cpu...)"),
    ),
    suite=SuiteArgs(
        quick=("--tokens", "256"),
        standard=("--tokens", "256", "--repeat", "5"),
        cpu_quick=("--tokens", "256", "--repeat", "1", "--warmup", "8"),
        cpu_standard=("--tokens", "256", "--repeat", "1", "--warmup", "8"),
        cpu_quick_note=Text("no accelerator, so one timed run of at most 256 tokens instead of three, fewer when "
                            "the warm-up's measured rate says 256 would not fit its share of the CPU time budget "
                            "(the result's tokens says how many)",
                            "没有加速卡，因此只计时运行一次、最多 256 个 token，而不是三次；若预热实测速率表明 256 个放不进"
                            "它在 CPU 时间预算中的份额，则减少 token 数（结果中的 tokens 为实际数量）"),
        cpu_standard_note=Text("no accelerator, so one timed run of at most 256 tokens instead of five, fewer when "
                               "the warm-up's measured rate says 256 would not fit its share of the CPU time budget "
                               "(the result's tokens says how many)",
                               "没有加速卡，因此只计时运行一次、最多 256 个 token，而不是五次；若预热实测速率表明 256 个放不进"
                               "它在 CPU 时间预算中的份额，则减少 token 数（结果中的 tokens 为实际数量）"),
        budget_flag="--time-budget",
    ),
    metrics=(
        # the headline: its label says which figure it is, the median over the timed runs (after the warm-up)
        Metric("tokens_per_s", Text("tokens/s per sequence (decode, median after warm-up)",
                                    "tokens/s 每序列（解码，预热后中位数）"), "rate"),
        Metric("aggregate_tokens_per_s", Text("tokens/s, all sequences", "tokens/s 全部序列"), "rate"),
        Metric("bound_tokens_per_s", Text("tokens/s bound (read bandwidth)", "tokens/s 上限（读带宽）"), "rate"),
        BANDWIDTH_FRACTION,
        # the two bandwidths the share divides, each saying which it is (the raw keys read "bandwidth gbps" and
        # "device read gbps" side by side)
        Metric("bandwidth_gbps", Text("GB/s read by decoding (bytes read a step × steps/s)",
                                      "GB/s 解码实际读取（每步读取字节 × 每秒步数）")),
        Metric("device_read_gbps", Text("GB/s device read bandwidth (measured: fastest sum of a tensor)",
                                        "GB/s 设备读带宽（实测：张量求和最快一次）")),
        TTFT,
        Metric("latency_p50_s", Text("per-token latency p50", "单 token 延迟 p50"), "seconds"),
        Metric("latency_p99_s", Text("per-token latency p99", "单 token 延迟 p99"), "seconds"),
        Metric("tokens", Text("new tokens per run", "每次生成 token 数")),
        Metric("model_size", Text("model", "模型"), "text"),
    ),
    line_metrics=(
        TTFT,
        BANDWIDTH_FRACTION,
    ),
    counts="tokens",
    progress=Text("timed token", "计时 token"),  # tokens x timed runs: the warm-up emits no step and is not counted
    has_loss=False,
    warmup_emits_steps=False,
    cost_basis="tokens",
    planned_steps=planned_steps,
)
