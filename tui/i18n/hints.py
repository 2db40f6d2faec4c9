"""Advice and warning codes other parts write in English, with their Chinese: ``hint.<name>`` and ``warning.<code>``.

``hint.<name>`` holds a piece of advice of `workloads.hints` (its English exactly as that table writes it, for the
report finds the Chinese by the English a run carries: `tui.i18n.hint_zh`) and ``hint.doctor.<name>`` the doctor's
own. ``warning.<code>`` says what a workload warning's code means (the report puts the Chinese before the quoted
message; the English is the code's meaning, for a reader of this table).
"""

from __future__ import annotations

WORDS: dict[str, tuple[str, str]] = {
    # workloads.hints.HINTS, by what they are about
    "hint.arch_missing": (
        "the PyTorch build has no code for this GPU's architecture: use the build made for it (ROCm: its gfx "
        "target), the image's PyTorch, or run with --amp off to see whether one op is to blame",
        "该 PyTorch 构建没有此 GPU 架构的代码：使用为它构建的版本（ROCm：对应的 `gfx` 目标）或镜像自带的 PyTorch，"
        "或用 `--amp off` 运行，看是否是某一个算子的问题"),
    "hint.ascend_runtime": (
        "the Ascend runtime failed (the CANN code above): `npu-smi info` shows the card's state and the plog under "
        "~/ascend/log the cause; a task timeout is often a hung collective or an op the NPU lacks",
        "昇腾运行时出错（见上方的 CANN 错误码）：`npu-smi info` 显示卡的状态，`~/ascend/log` 下的 plog 给出原因；"
        "任务超时常见于集合通信挂起或 NPU 缺少某个算子"),
    "hint.device_code_missing": (
        "the PyTorch build lacks code for this device, or an op is missing under mixed precision: "
        "run with --amp off and let the ResNet-50 workload name the layer",
        "PyTorch 构建缺少该设备的代码，或混合精度下缺少某个算子：用 `--amp off` 运行，由 ResNet-50 负载指出出错的层"),
    "hint.dtype_op_missing": (
        "an op is missing for that dtype on this device: use --amp off (or --dtype fp32)",
        "该设备上缺少该数据类型的算子：使用 `--amp off`（或 `--dtype fp32`）"),
    "hint.op_missing": (
        "an op is missing for this dtype or device: try another --dtype/--amp, or --device cpu to compare",
        "缺少该数据类型或设备的算子：换一个 `--dtype`/`--amp`，或用 `--device cpu` 对比"),
    "hint.batch_norm": (
        "batch norm needs two or more images per step: raise --batch-size",
        "批归一化每步至少需要两张图：增大 `--batch-size`"),
    "hint.out_of_memory": (
        "the device ran out of memory: lower --batch-size (or use --find-batch-size)",
        "设备内存不足：减小 `--batch-size`（或使用 `--find-batch-size`）"),
    "hint.driver_mismatch": (
        "this PyTorch does not match the driver: was it reinstalled over the image's build? use the image's PyTorch",
        "此 PyTorch 与驱动不匹配：是否覆盖安装了镜像自带的版本？请使用镜像自带的 PyTorch"),
    "hint.cpu_only_build": (
        "this PyTorch is a CPU-only build: reinstall the image's (vendor) PyTorch, not the one from PyPI",
        "此 PyTorch 是仅支持 CPU 的构建：请重新安装镜像自带的（厂商）PyTorch，而不是 PyPI 上的版本"),
    "hint.device_fault": (
        "the device faulted: check `dmesg` for Xid errors and rerun; if it repeats, report it to the platform",
        "设备出错：用 `dmesg` 检查 Xid 错误后重跑；若重复出现，请报告给平台"),
    "hint.collective": (
        "a collective failed: check NCCL_* variables and that every GPU is visible (CUDA_VISIBLE_DEVICES)",
        "集合通信失败：检查 `NCCL_*` 变量，以及每张 GPU 是否都可见（`CUDA_VISIBLE_DEVICES`）"),
    "hint.no_torch": (
        "PyTorch is not installed in this Python: use the image's PyTorch, or pip install 'cardbench[torch]'",
        "此 Python 中没有安装 PyTorch：请使用镜像自带的 PyTorch，或 `pip install 'cardbench[torch]'`"),
    "hint.no_torchvision": (
        "torchvision is missing: pip install the torchvision that matches this PyTorch",
        "缺少 torchvision：请用 `pip` 安装与此 PyTorch 匹配的 torchvision"),
    "hint.no_visible_device": (
        "no device is visible to this process: check CUDA_VISIBLE_DEVICES (and HIP_/ROCR_VISIBLE_DEVICES); "
        "unset it to see all",
        "此进程看不到任何设备：检查 `CUDA_VISIBLE_DEVICES`（以及 `HIP_`/`ROCR_VISIBLE_DEVICES`）；取消设置即可看到全部设备"),
    "hint.driver_library_mismatch": (
        "the kernel driver and its user-space library differ (driver updated without a reboot): reboot, or reload "
        "the driver",
        "内核驱动与其用户态库的版本不一致（更新驱动后未重启）：重启，或重新加载驱动"),
    "hint.no_nvml": (
        "libnvidia-ml.so is missing: the driver's user-space part is not in this image (expected on non-NVIDIA cards)",
        "缺少 `libnvidia-ml.so`：镜像中没有驱动的用户态部分（非 NVIDIA 卡上属正常）"),
    "hint.driver_not_loaded": (
        "the NVIDIA kernel driver is not loaded: check `lsmod | grep nvidia` and `dmesg`, or ask the platform",
        "NVIDIA 内核驱动未加载：检查 `lsmod | grep nvidia` 和 `dmesg`，或联系平台"),
    "hint.gpu_lost": (
        "the GPU fell off the bus: the instance needs a reset or a replacement; report it to the platform",
        "GPU 已从总线上掉线：实例需要重置或更换；请报告给平台"),
    "hint.tool_hangs": (
        "the tool hangs: the driver may be wedged (check `dmesg` for Xid errors); a reboot often clears it",
        "工具无响应：驱动可能已卡死（用 `dmesg` 检查 Xid 错误）；重启通常可以解决"),
    "hint.extension_mismatch": (
        "the vendor torch extension does not match this torch build: reinstall the pair from the image",
        "厂商的 torch 扩展与此 torch 构建不匹配：从镜像重新安装配套的两者"),
    "hint.disk_full": (
        "the disk is full: free space, or point the run directory at a larger volume",
        "磁盘已满：释放空间，或把运行目录指向更大的卷"),
    "hint.device_error": (
        "a device error: rerun with CUDA_LAUNCH_BLOCKING=1 to locate it, and run `cardbench doctor`",
        "设备错误：用 `CUDA_LAUNCH_BLOCKING=1` 重跑以定位，并运行 `cardbench doctor`"),
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
