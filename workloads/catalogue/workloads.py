"""The workloads' own words (``workload.<name>.<key>``): their titles, the labels of their figures and fields, the
notes the report states about a run and the words of their extra tables.

A spec names one by `workloads.catalogue.Message`; the report and the workbench say it in their language.
"""

from __future__ import annotations

WORDS: dict[str, tuple[str, str]] = {
    # workloads/serve/spec.py
    "workload.serve.at_last_level": ("at the sweep's last level", "扫描最后一档"),
    "workload.serve.metric.output_tokens_per_s": ("output tokens/s {last}", "{last}的输出 token/秒"),
    "workload.serve.metric.total_tokens_per_s": ("input + output tokens/s {last}", "{last}的输入+输出 token/秒"),
    "workload.serve.metric.request_throughput": ("requests/s {last}", "{last}的请求/秒"),
    "workload.serve.metric.goodput": ("goodput {last}: requests/s meeting --slo", "{last}的有效吞吐：满足 --slo 的请求/秒"),
    "workload.serve.title": ("Serve (load on your inference server)",
                             "推理服务压测（您的推理服务）"),
    "workload.serve.progress": ("level",
                                "档位"),
    "workload.serve.metric.ttft_ms_p50": ("ms time to first token (TTFT), p50",
                                          "首 token 时间（TTFT，毫秒），p50"),
    "workload.serve.metric.ttft_ms_p99": ("ms time to first token, p99",
                                          "首 token 时间（毫秒），p99"),
    "workload.serve.metric.tpot_ms_p50": ("ms per output token after the first (TPOT), p50",
                                          "首个之后每输出 token 时间（TPOT，毫秒），p50"),
    "workload.serve.metric.tpot_ms_p99": ("ms per output token after the first (TPOT), p99",
                                          "首个之后每输出 token 时间（TPOT，毫秒），p99"),
    "workload.serve.metric.itl_ms_p50": ("ms between tokens (ITL), p50",
                                         "token 间隔（ITL，毫秒），p50"),
    "workload.serve.metric.e2el_ms_p50": ("ms end-to-end per request, p50",
                                          "每请求端到端时间（毫秒），p50"),
    "workload.serve.metric.at_level": ("the level those figures are from",
                                       "上述指标所在档位"),
    "workload.serve.metric.served_model": ("served model",
                                           "服务的模型"),
    "workload.serve.metric.endpoint": ("endpoint",
                                       "接口"),
    "workload.serve.metric.input_len": ("input tokens asked per request",
                                        "每请求输入 token 数"),
    "workload.serve.metric.output_len": ("output tokens asked per request (max_tokens)",
                                         "每请求输出 token 数（max_tokens）"),
    "workload.serve.metric.tokens_from": ("output tokens counted from",
                                          "输出 token 的计数来源"),
    "workload.serve.metric.requests": ("requests sent, all levels",
                                       "发送的请求（全部档位）"),
    "workload.serve.metric.errors": ("failed requests, all levels (by kind in the table's warnings)",
                                     "失败请求（全部档位，分类见警告）"),
    "workload.serve.line.ttft_ms_p50": ("TTFT p50 ms",
                                        "TTFT p50 毫秒"),
    "workload.serve.line.tpot_ms_p50": ("TPOT p50 ms",
                                        "TPOT p50 毫秒"),
    "workload.serve.line.errors": ("failed requests",
                                   "失败请求"),
}
