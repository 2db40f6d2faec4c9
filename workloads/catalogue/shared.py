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
    # figures most workloads' results carry (their typed records, `workloads.<name>.result_record`, share the labels)
    "workload.shared.metric.precision": ("precision", "精度"),
    "workload.shared.metric.precision_requested": ("precision asked for", "请求的精度"),
    "workload.shared.metric.dtype": ("weights' dtype", "权重数据类型"),
    "workload.shared.metric.batch_size": ("batch size", "批大小"),
    "workload.shared.metric.global_batch_size": ("global batch size (all devices)", "全局批大小（所有设备）"),
    "workload.shared.metric.parameters": ("parameters", "参数量"),
    "workload.shared.metric.device": ("device", "设备"),
    "workload.shared.metric.world_size": ("devices (processes)", "设备数（进程数）"),
    # true of every workload's figure: torch's allocator on a card, the process's peak RSS on the CPU
    "workload.shared.metric.peak_memory_bytes": ("peak memory (allocated by torch on a device, the process's RSS on "
                                                 "the CPU)", "内存峰值（设备上为 torch 已分配，CPU 上为进程 RSS）"),
    "workload.shared.metric.peak_memory_reserved_bytes": ("peak memory reserved by the allocator",
                                                          "分配器预留内存峰值"),
    "workload.shared.metric.peak_memory_kind": ("peak memory measured as", "内存峰值的测量方式"),
    "workload.shared.metric.bandwidth_method": ("how the read bandwidth was measured", "读带宽的测量方法"),
    "workload.shared.metric.repeat": ("runs", "运行次数"),
    "workload.shared.metric.decode": ("decode path", "解码路径"),
    "workload.shared.metric.setup_s": ("setup time", "准备时间"),
    "workload.shared.metric.warmup_steps": ("warm-up steps (not counted)", "预热步数（不计入）"),
    "workload.shared.metric.steps_counted": ("steps counted (after warm-up)", "计入的步数（预热后）"),
    "workload.shared.metric.last_step": ("last step", "最后一步"),
    "workload.shared.metric.epochs": ("epochs", "轮数"),
    "workload.shared.metric.fallbacks": ("fallbacks taken", "已采取的回退"),
    "workload.shared.metric.achieved_tflops": ("TFLOP/s achieved", "TFLOP/s 实际达到"),
    "workload.shared.metric.peak_tflops": ("TFLOP/s rated peak", "TFLOP/s 额定峰值"),
    "workload.shared.metric.flop_utilisation": ("share of rated peak FLOP/s", "达到额定峰值算力的比例"),
    "workload.shared.metric.rated_source": ("rated figure's source", "额定值来源"),
    "workload.shared.metric.compiled": ("compiled (`torch.compile`)", "已编译（`torch.compile`）"),
    # the CPU fallback check (workloads.child.cpu_fallback): a few steps after the warm-up, profiled
    "workload.shared.metric.cpu_fallback_ops": (
        "ops that ran on the CPU while the model was on the card (op, calls a step, share of the step's time with "
        "its copies, copies a step)",
        "模型在加速卡上时却在 CPU 上运行的算子（算子、每步调用次数、含拷贝在内占步时比例、每步拷贝次数）"),
    "workload.shared.metric.host_device_copies_per_step": (
        "host<->device copies a step (all, where the device records its copies; else the CPU-run ops' own)",
        "每步主机与设备间拷贝次数（设备记录拷贝时为全部拷贝，否则仅为在 CPU 上运行的算子自身的拷贝）"),
    "workload.shared.metric.host_device_copy_bytes_per_step": (
        "bytes copied between host and device a step (the copies counted beside it)",
        "每步主机与设备间拷贝的字节数（即旁边所计的拷贝）"),
    "workload.shared.metric.cpu_fallback_steps_watched": (
        "steps profiled for CPU fallback (after the warm-up; not counted in the figures)",
        "为检查 CPU 回退而剖析的步数（预热之后；不计入各项指标）"),
    "workload.shared.line.final_loss": ("final loss",
                                        "最终损失"),
    # the full stop a sentence ends with (a hint's, dropped before "; `cardbench doctor` ..." is joined on)
    "workload.shared.full_stop": (".", "。"),
    # a spec's progress word when it names none (workloads.spec.WorkloadSpec.progress)
    "workload.shared.step": ("step", "步"),
}
