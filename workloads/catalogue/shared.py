"""The words of several workloads' specs (a label or a progress word they say alike): ``workload.shared.<key>``, said by
message id (`workloads.catalogue.Message`)."""

from __future__ import annotations

WORDS: dict[str, tuple[str, str]] = {
    "workload.shared.progress": ("parts done",
                                 "已完成部分"),
    "workload.shared.metric.verdict": ("verdict",
                                       "结论"),
    "workload.shared.metric.decode_bandwidth_fraction": ("share of read bandwidth achieved",
                                                         "达到读带宽比例"),
    "workload.shared.metric.ttft_s": ("time to first token",
                                      "首 token 时间"),
    "workload.shared.metric.device_read_gbps": ("GB/s device read bandwidth (measured: fastest sum of a tensor)",
                                                "GB/s 设备读带宽（实测：张量求和最快一次）"),
    "workload.shared.metric.model_size": ("model",
                                          "模型"),
    "workload.shared.metric.steps": ("steps",
                                     "步数"),
    "workload.shared.metric.total_s": ("training time",
                                       "训练时间"),
    "workload.shared.line.final_loss": ("final loss",
                                        "最终 loss"),
    # the full stop a sentence ends with (a hint's, dropped before "; `cardbench doctor` ..." is joined on)
    "workload.shared.full_stop": (".", "。"),
    # a spec's progress word when it names none (workloads.spec.WorkloadSpec.progress)
    "workload.shared.step": ("step", "步"),
}
