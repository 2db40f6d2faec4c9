"""The words of `cardbench run generate`: ``workload.generate.<key>``, said by message id
(`workloads.catalogue.Message`)."""

from __future__ import annotations

WORDS: dict[str, tuple[str, str]] = {
    # the spec (workloads/generate/spec.py): its title, progress word, notes and the labels of its figures (metric.*, line.*)
    "workload.generate.title": ("GPT-2 token generation",
                                "GPT-2 token 生成"),
    "workload.generate.progress": ("timed token",
                                   "计时 token"),
    "workload.generate.cpu_quick_note": ("no accelerator, so one timed run of at most 256 tokens instead of three, fewer when the warm-up's measured rate says 256 would not fit its share of the CPU time budget (the result's tokens says how many)",
                                         "没有加速卡，因此只计时运行一次、最多 256 个 token，而不是三次；若预热实测速率表明 256 个放不进它在 CPU 时间预算中的份额，则减少 token 数（结果中的 tokens 为实际数量）"),
    "workload.generate.cpu_standard_note": ("no accelerator, so one timed run of at most 256 tokens instead of five, fewer when the warm-up's measured rate says 256 would not fit its share of the CPU time budget (the result's tokens says how many)",
                                            "没有加速卡，因此只计时运行一次、最多 256 个 token，而不是五次；若预热实测速率表明 256 个放不进它在 CPU 时间预算中的份额，则减少 token 数（结果中的 tokens 为实际数量）"),
    "workload.generate.metric.tokens_per_s": ("tokens/s per sequence (decode, median after warm-up)",
                                              "tokens/s 每序列（解码，预热后中位数）"),
    "workload.generate.metric.aggregate_tokens_per_s": ("tokens/s, all sequences",
                                                        "tokens/s 全部序列"),
    "workload.generate.metric.bound_tokens_per_s": ("tokens/s bound (read bandwidth)",
                                                    "tokens/s 上限（读带宽）"),
    "workload.generate.metric.bandwidth_gbps": ("GB/s read by decoding (bytes read a step × steps/s)",
                                                "GB/s 解码实际读取（每步读取字节 × 每秒步数）"),
    "workload.generate.metric.latency_p50_s": ("per-token latency p50",
                                               "单 token 延迟 p50"),
    "workload.generate.metric.latency_p99_s": ("per-token latency p99",
                                               "单 token 延迟 p99"),
    "workload.generate.metric.tokens": ("new tokens per run",
                                        "每次生成 token 数"),
}
