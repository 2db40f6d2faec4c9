"""The words of `cardbench run finetune`: ``workload.finetune.<key>``, said by message id
(`workloads.catalogue.Message`)."""

from __future__ import annotations

WORDS: dict[str, tuple[str, str]] = {
    # the spec (workloads/finetune/spec.py): its title, progress word, notes and the labels of its figures (metric.*, line.*)
    "workload.finetune.title": ("LLM fine-tuning",
                                "大模型微调"),
    "workload.finetune.cpu_standard_note": ("no accelerator, so the standard suite's fine-tune was scaled down to 4 LoRA steps of 2 x 32 tokens in fp32 on the tiny preset",
                                            "没有加速卡，因此标准套件的微调缩小为 tiny 模型上 4 步 LoRA、每步 2 x 32 个 token、fp32"),
    "workload.finetune.metric.tokens_per_s": ("tokens/s, all devices (median after warm-up)",
                                              "tokens/s（全部设备，预热后中位数）"),
    "workload.finetune.metric.tokens_per_s_per_device": ("tokens/s per device",
                                                         "每设备 tokens/s"),
    "workload.finetune.metric.mfu": ("MFU (model FLOPs / rated peak)",
                                     "MFU（模型 FLOPs / 标称峰值）"),
    "workload.finetune.metric.mfu_formula": ("model FLOPs per token",
                                             "每 token 模型 FLOPs"),
    "workload.finetune.metric.rated_tflops": ("rated peak per device (TFLOP/s)",
                                              "每设备标称峰值（TFLOP/s）"),
    "workload.finetune.metric.peak_memory_bytes": ("peak memory (on a device: allocated by torch; on the CPU: RSS)",
                                                   "峰值内存（设备上：torch 已分配的显存；CPU 上：进程 RSS）"),
    "workload.finetune.metric.fit_estimate_bytes": ("memory estimate of a step",
                                                    "单步显存估算"),
    "workload.finetune.metric.data_wait_fraction": ("share of step time loading data",
                                                    "加载数据时间占比"),
    "workload.finetune.metric.trainable_parameters": ("trainable parameters",
                                                      "可训练参数"),
    "workload.finetune.metric.first_loss": ("first loss",
                                            "首步 loss"),
    "workload.finetune.metric.cpu_check": ("loss against float64 on the CPU",
                                           "与 CPU float64 的 loss 对比"),
    "workload.finetune.line.mfu": ("MFU",
                                   "MFU"),
}
