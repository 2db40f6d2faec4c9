"""What the workbench, the headless suite and the report know of GPT-2 token generation (torch-free)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from workloads.catalogue import Message
from workloads.spec import SWITCH, Metric, Param, SuiteArgs, WorkloadSpec, option, positive

# in the table and in the result line, with one label: a figure is named alike wherever it appears
TTFT = Metric("ttft_s", Message("workload.shared.metric.ttft_s"), "seconds")
BANDWIDTH_FRACTION = Metric("bandwidth_fraction", Message("workload.shared.metric.decode_bandwidth_fraction"), "fraction")
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
    title=Message("workload.generate.title"),
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
        cpu_quick_note=Message("workload.generate.cpu_quick_note"),
        cpu_standard_note=Message("workload.generate.cpu_standard_note"),
        budget_flag="--time-budget",
    ),
    metrics=(
        # the headline: its label says which figure it is, the median over the timed runs (after the warm-up)
        Metric("tokens_per_s", Message("workload.generate.metric.tokens_per_s"), "rate"),
        Metric("aggregate_tokens_per_s", Message("workload.generate.metric.aggregate_tokens_per_s"), "rate"),
        Metric("bound_tokens_per_s", Message("workload.generate.metric.bound_tokens_per_s"), "rate"),
        BANDWIDTH_FRACTION,
        # the two bandwidths the share divides, each saying which it is (the raw keys read "bandwidth gbps" and
        # "device read gbps" side by side)
        Metric("bandwidth_gbps", Message("workload.generate.metric.bandwidth_gbps")),
        Metric("device_read_gbps", Message("workload.shared.metric.device_read_gbps")),
        TTFT,
        Metric("latency_p50_s", Message("workload.generate.metric.latency_p50_s"), "seconds"),
        Metric("latency_p99_s", Message("workload.generate.metric.latency_p99_s"), "seconds"),
        Metric("tokens", Message("workload.generate.metric.tokens")),
        Metric("model_size", Message("workload.shared.metric.model_size"), "text"),
    ),
    line_metrics=(
        TTFT,
        BANDWIDTH_FRACTION,
    ),
    counts="tokens",
    progress=Message("workload.generate.progress"),  # tokens x timed runs: the warm-up emits no step and is not counted
    has_loss=False,
    warmup_emits_steps=False,
    cost_basis="tokens",
    planned_steps=planned_steps,
)
