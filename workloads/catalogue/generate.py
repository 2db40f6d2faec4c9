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
    "workload.generate.metric.latency_p90_s": ("per-token latency p90",
                                               "单 token 延迟 p90"),
    "workload.generate.metric.end_to_end_tokens_per_s": ("tokens/s end to end, all sequences (new tokens x batch / "
                                                         "(TTFT + decode), median of the timed runs)",
                                                         "tokens/s 端到端，全部序列（新 token × 批 / (首 token 时间 + "
                                                         "解码)，计时运行中位数）"),
    "workload.generate.metric.tokens_per_s_runs": ("tokens/s per sequence, each timed run",
                                                   "tokens/s 每序列，每次计时运行"),
    "workload.generate.metric.bandwidth_fraction_unreliable": (
        "decoding's read rate over the measured read bandwidth (above 1: the bound was measured low, unreliable)",
        "解码读取速率与实测读带宽之比（大于 1：上限测低了，不可靠）"),
    "workload.generate.metric.device_read_median_gbps": ("GB/s device read bandwidth, median of the rounds",
                                                         "GB/s 设备读带宽，各轮中位数"),
    "workload.generate.metric.device_read_rounds_gbps": ("GB/s device read bandwidth, best of each round (before and "
                                                         "after the timed runs)",
                                                         "GB/s 设备读带宽，每轮最佳（计时运行前与后）"),
    "workload.generate.metric.weight_bytes_per_step": ("weights read a decode step",
                                                       "每解码步读取的权重"),
    "workload.generate.metric.kv_bytes_per_step": ("KV cache read a decode step (at the mean context)",
                                                   "每解码步读取的 KV 缓存（平均上下文处）"),
    "workload.generate.metric.tokens_asked": ("new tokens per run asked for (--tokens, before --time-budget lowers it)",
                                              "请求的每次生成 token 数（`--tokens`，在 `--time-budget` 调低之前）"),
    "workload.generate.metric.prompt_len": ("prompt tokens",
                                            "提示 token 数"),
    "workload.generate.metric.product_split": ("cores each matrix product is split over (CPU)",
                                               "每个矩阵乘拆分到的核数（CPU）"),
    "workload.generate.metric.sample_text": ("generated text (sequence 1, first 500 characters)",
                                             "生成文本（序列 1，前 500 个字符）"),
}
