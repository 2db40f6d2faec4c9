"""Advice and warning codes other parts write in English, with their Chinese: ``hint.<id>`` and ``warning.<code>``.

``hint.<id>`` holds a piece of advice of `workloads.hints.ADVICE`: its English is taken from that table (the report
finds the Chinese by the English a run carries: `tui.i18n.hint_zh`), its Chinese is ``ZH`` here under the same id.
``hint.doctor.<name>`` holds the doctor's own. ``warning.<code>`` says what a workload warning's code means (the
report puts the Chinese before the quoted message; the English is the code's meaning, for a reader of this table).
"""

from __future__ import annotations

from workloads.hints import ADVICE

# the Chinese of each piece of advice of workloads.hints.ADVICE, by its id (the English is that table's)
ZH: dict[str, str] = {
    "arch_missing": ("该 PyTorch 构建没有此 GPU 架构的代码：使用为它构建的版本（ROCm：对应的 `gfx` 目标，"
                     "`rocminfo | grep gfx` 会列出；海光 DCU：DTK 版的 PyTorch，而不是 pytorch.org 的 ROCm 版）或镜像自带的 "
                     "PyTorch，或用 `--amp off` 运行，看是否是某一个算子的问题"),
    "ascend_runtime": ("昇腾运行时出错（见上方的 CANN 错误码）：`npu-smi info` 显示卡的状态，`~/ascend/log` 下的 plog "
                       "给出原因；任务超时常见于集合通信挂起或 NPU 缺少某个算子"),
    "hccl_exec_timeout": ("集合通信等待超过了 `HCCL_EXEC_TIMEOUT`（默认 1836 秒）：有一个进程没有到达这次通信，"
                          "请找出日志最先报错的那个进程（或当时仍在保存、评估的进程）；若等待属正常，请在每个进程上调大它，"
                          "例如 `export HCCL_EXEC_TIMEOUT=3600`"),
    "hccl_connect_timeout": ("各进程未能在 `HCCL_CONNECT_TIMEOUT`（默认 120 秒）内建立连接：检查每个进程都已启动且没有进程"
                             "先行出错、各节点之间网络互通（`hccn_tool -i <device> -link -g` 查看 NPU 的链路），"
                             "且 HCCL 的端口没有被其他任务占用；若各进程启动时间相差很大，请在每个进程上调大它，"
                             "例如 `export HCCL_CONNECT_TIMEOUT=1200`"),
    "npu_held": ("之前的进程仍占用着 NPU（HCCP 无法启动）：`npu-smi info` 列出每张 NPU 上的进程；用 `ps -ef | grep python` "
                 "或 `fuser -v /dev/davinci<N>` 找到残留进程，结束它，等待 10 秒后重跑"),
    "npu_out_of_memory": ("NPU 内存不足：减小 `--batch-size`（或使用 `--find-batch-size`）；`npu-smi info` 显示是否有其他进程"
                          "占用了卡的内存；若 reserved 远大于 allocated，设置 "
                          "`PYTORCH_NPU_ALLOC_CONF=expandable_segments:True`"),
    "cann_torch_npu_mismatch": ("CANN 与 torch_npu 版本不配套（此 torch_npu 调用的某个 aclnn 算子在 CANN 的 `libopapi.so` 中"
                                "不存在）：CANN 的版本见 "
                                "`/usr/local/Ascend/ascend-toolkit/latest/*/ascend_toolkit_install.info`，torch_npu 的版本用 "
                                "`pip show torch-npu` 查看，然后安装 Ascend/pytorch README 中列出的配套组合（或使用镜像自带的）"),
    "musa_gpu_hang": ("摩尔线程 GPU 挂死，驱动重置了上下文：`dmesg | grep MTGPU` 会指出出现 'Guilty Lockup' 的进程，"
                      "`mthreads-gmi` 显示卡的状态；重跑，若总在同一步出现，试试 `--amp off`，并使用镜像自带的、"
                      "与 MUSA 驱动配套构建的 torch_musa"),
    "mlu_runtime": ("寒武纪运行时（CNRT）或 MLU 算子库出错，出错的调用写在 [cnrtError] / [MLUOP] 之后：`cnmon` 显示卡的状态和"
                    "驱动版本；驱动、CNToolkit 与 torch_mlu 必须是同一套配套版本：请使用镜像自带的"),
    "ascend_op_error": ("NPU 算子出错（EZ 错误码：其下的几行给出算子名和原因）：用 `ASCEND_LAUNCH_BLOCKING=1` 重跑以停在出错的"
                        "算子处，试试 `--amp off`（或 `--dtype fp32`），并查看 `~/ascend/log` 下的 plog 了解完整原因"),
    "device_code_missing": ("PyTorch 构建缺少该设备的代码，或混合精度下缺少某个算子：用 `--amp off` 运行，由 ResNet-50 "
                            "负载指出出错的层"),
    "dtype_op_missing": "该设备上缺少该数据类型的算子：使用 `--amp off`（或 `--dtype fp32`）",
    "op_missing": "缺少该数据类型或设备的算子：换一个 `--dtype`/`--amp`，或用 `--device cpu` 对比",
    "batch_norm": "批归一化每步至少需要两张图：增大 `--batch-size`",
    "out_of_memory": "设备内存不足：减小 `--batch-size`（或使用 `--find-batch-size`）",
    "driver_mismatch": "此 PyTorch 与驱动不匹配：是否覆盖安装了镜像自带的版本？请使用镜像自带的 PyTorch",
    "cpu_only_build": "此 PyTorch 是仅支持 CPU 的构建：请重新安装镜像自带的（厂商）PyTorch，而不是 PyPI 上的版本",
    "device_fault": "设备出错：用 `dmesg` 检查 Xid 错误后重跑；若重复出现，请报告给平台",
    "collective": "集合通信失败：检查 `NCCL_*` 变量，以及每张 GPU 是否都可见（`CUDA_VISIBLE_DEVICES`）",
    "no_torch": "此 Python 中没有安装 PyTorch：请使用镜像自带的 PyTorch，或 `pip install 'cardbench[torch]'`",
    "no_torchvision": "缺少 torchvision：请用 `pip` 安装与此 PyTorch 匹配的 torchvision",
    "no_visible_device": ("此进程看不到任何设备：检查 `CUDA_VISIBLE_DEVICES`（以及 `HIP_`/`ROCR_VISIBLE_DEVICES`）；"
                          "取消设置即可看到全部设备"),
    "driver_library_mismatch": "内核驱动与其用户态库的版本不一致（更新驱动后未重启）：重启，或重新加载驱动",
    "no_nvml": "缺少 `libnvidia-ml.so`：镜像中没有驱动的用户态部分（非 NVIDIA 卡上属正常）",
    "driver_not_loaded": "NVIDIA 内核驱动未加载：检查 `lsmod | grep nvidia` 和 `dmesg`，或联系平台",
    "gpu_lost": "GPU 已从总线上掉线：实例需要重置或更换；请报告给平台",
    "tool_hangs": "工具无响应：驱动可能已卡死（用 `dmesg` 检查 Xid 错误）；重启通常可以解决",
    "extension_mismatch": "厂商的 torch 扩展与此 torch 构建不匹配：从镜像重新安装配套的两者",
    "disk_full": "磁盘已满：释放空间，或把运行目录指向更大的卷",
    "device_error": "设备错误：用 `CUDA_LAUNCH_BLOCKING=1` 重跑以定位，并运行 `cardbench doctor`",
}

WORDS: dict[str, tuple[str, str]] = {
    # workloads.hints.ADVICE in both languages (an id the Chinese lacks is missing here: a test says which)
    **{f"hint.{key}": (english, ZH[key]) for key, english in ADVICE.items() if key in ZH},
    # the pointer the CPU trap and the report add to a hint
    "hint.see_doctor": ("`cardbench doctor` says what torch sees and why",
                        "`cardbench doctor` 会说明 torch 看到了什么以及原因"),
    "hint.with_doctor": ("{hint}; {doctor}", "{hint}；{doctor}"),
    # a workload warning's code -> what it means (the message itself is quoted after it)
    "warning.cpu_while_accelerators_listed": ("the workload ran on the CPU; the listed accelerators were not used",
                                              "负载在 CPU 上运行，所列加速卡未被使用"),
    "warning.bound_exceeded": ("the bandwidth bound was measured low: the share of read bandwidth is unreliable and "
                               "not shown",
                               "带宽上限测得偏低，读带宽占比不可靠，未予显示"),
    "warning.checkpoint_not_saved": ("the checkpoint was not saved", "检查点未保存"),
    "warning.nonfinite_loss": ("the loss was not finite (NaN/Inf)", "损失值出现非有限数（NaN/Inf）"),
    "warning.nothing_to_train": ("there was no data to train on", "没有可训练的数据"),
    "warning.skipped_files": ("unreadable data files were skipped", "跳过了无法读取的数据文件"),
}
