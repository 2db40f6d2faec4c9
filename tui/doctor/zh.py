"""The Chinese of the doctor's own words: check names and the hints of `workloads.hints`.

The evidence sentences are translated where each check is made (they hold its
numbers); quoted tool output (an error message, a CLI's first line) is never
translated. A hint that has no entry here falls back to English in the report,
and a test fails on it, so a new hint comes with its Chinese.
"""

from __future__ import annotations

# check id -> name, as `check.TITLES` holds the English
TITLES_ZH: dict[str, str] = {
    "cli.answers": "管理命令行工具有响应",
    "nvml.loads": "NVML 库可加载",
    "pci.accelerators": "PCI 总线上的加速卡",
    "torch.imports": "torch 可导入",
    "torch.sees_device": "torch 能看到加速卡",
    "torch.arch_list": "构建的架构列表覆盖该设备",
    "device.init": "CUDA 初始化时间",
    "device.kernel": "小内核计算结果正确",
    "device.autocast.fp16": "fp16 autocast 可在设备上运行",
    "device.autocast.bf16": "bf16 autocast 可在设备上运行",
    "tensorflow.sees_device": "TensorFlow 能看到设备",
    "disk.free": "可用磁盘空间",
    "env.visible_devices": "可见设备环境变量",
    "device.busy": "--device auto 将选用的卡空闲",
}

# English hint (workloads.hints and the doctor's own) -> Chinese
HINTS_ZH: dict[str, str] = {
    # workloads.hints.HINTS, in its order
    "the PyTorch build lacks code for this device, or an op is missing under mixed precision: "
    "run with --amp off and let the ResNet-50 workload name the layer":
        "该 PyTorch 构建缺少此设备的代码，或混合精度下缺少某个算子：用 --amp off 运行，由 ResNet-50 负载指出出错的层",
    "an op is missing for that dtype on this device: use --amp off (or --dtype fp32)":
        "此设备上缺少该数据类型的算子：使用 --amp off（或 --dtype fp32）",
    "an op is missing for this dtype or device: try another --dtype/--amp, or --device cpu to compare":
        "缺少该数据类型或设备的算子：换一个 --dtype/--amp，或用 --device cpu 对比",
    "batch norm needs two or more images per step: raise --batch-size":
        "批归一化每步至少需要两张图像：调大 --batch-size",
    "the device ran out of memory: lower --batch-size (or use --find-batch-size)":
        "设备显存不足：调小 --batch-size（或使用 --find-batch-size）",
    "this PyTorch does not match the driver: was it reinstalled over the image's build? use the image's PyTorch":
        "该 PyTorch 与驱动不匹配：是否覆盖安装了镜像自带的版本？请使用镜像自带的 PyTorch",
    "this PyTorch is a CPU-only build: reinstall the image's (vendor) PyTorch, not the one from PyPI":
        "该 PyTorch 是仅 CPU 的构建：重新安装镜像（厂商）提供的 PyTorch，不要用 PyPI 上的",
    "the device faulted: check `dmesg` for Xid errors and rerun; if it repeats, report it to the platform":
        "设备出错：用 `dmesg` 查看 Xid 错误后重试；若反复出现，请报告给平台",
    "a collective failed: check NCCL_* variables and that every GPU is visible (CUDA_VISIBLE_DEVICES)":
        "集合通信失败：检查 NCCL_* 变量，以及每张 GPU 是否可见（CUDA_VISIBLE_DEVICES）",
    "PyTorch is not installed in this Python: use the image's PyTorch, or pip install 'cardbench[torch]'":
        "此 Python 中未安装 PyTorch：使用镜像自带的 PyTorch，或 pip install 'cardbench[torch]'",
    "torchvision is missing: pip install the torchvision that matches this PyTorch":
        "缺少 torchvision：pip 安装与此 PyTorch 匹配的 torchvision",
    "no device is visible to this process: check CUDA_VISIBLE_DEVICES (and HIP_/ROCR_VISIBLE_DEVICES); unset it to see all":
        "本进程看不到任何设备：检查 CUDA_VISIBLE_DEVICES（以及 HIP_/ROCR_VISIBLE_DEVICES）；取消设置即可看到全部设备",
    "the kernel driver and its user-space library differ (driver updated without a reboot): reboot, or reload the driver":
        "内核驱动与其用户态库版本不一致（驱动更新后未重启）：重启，或重新加载驱动",
    "libnvidia-ml.so is missing: the driver's user-space part is not in this image (expected on non-NVIDIA cards)":
        "缺少 libnvidia-ml.so：镜像中没有驱动的用户态部分（非 NVIDIA 卡上属正常）",
    "the NVIDIA kernel driver is not loaded: check `lsmod | grep nvidia` and `dmesg`, or ask the platform":
        "NVIDIA 内核驱动未加载：检查 `lsmod | grep nvidia` 和 `dmesg`，或询问平台",
    "the GPU fell off the bus: the instance needs a reset or a replacement; report it to the platform":
        "GPU 已从总线上掉线：实例需要重置或更换；请报告给平台",
    "the tool hangs: the driver may be wedged (check `dmesg` for Xid errors); a reboot often clears it":
        "该工具卡住：驱动可能已挂起（用 `dmesg` 查看 Xid 错误）；重启通常可以解决",
    "the vendor torch extension does not match this torch build: reinstall the pair from the image":
        "厂商的 torch 扩展与此 torch 构建不匹配：从镜像重新安装这一对组件",
    "the disk is full: free space, or point the run directory at a larger volume":
        "磁盘已满：清理空间，或把运行目录指向更大的卷",
    "a device error: rerun with CUDA_LAUNCH_BLOCKING=1 to locate it, and run `cardbench doctor`":
        "设备错误：用 CUDA_LAUNCH_BLOCKING=1 重新运行以定位，并运行 `cardbench doctor`",
    # the doctor's own
    "the image lacks the vendor's management tool: install the driver's utilities package":
        "镜像缺少厂商的管理工具：安装驱动的工具包",
    "the driver does not answer: check `dmesg` for errors, and that the driver is loaded":
        "驱动没有响应：用 `dmesg` 查看错误，并确认驱动已加载",
    "this machine shows no accelerator: was a GPU instance rented?":
        "本机没有显示任何加速卡：租用的是 GPU 实例吗？",
    "install the image's PyTorch into this Python":
        "把镜像自带的 PyTorch 安装到此 Python 中",
    "the vendor's torch extension fails to import":
        "厂商的 torch 扩展无法导入",
    "some devices are hidden or failed to initialise: check the visible-devices variables and dmesg":
        "部分设备被隐藏或初始化失败：检查可见设备环境变量和 dmesg",
    "the device computes wrong numbers: report it to the platform":
        "设备计算结果错误：请报告给平台",
    "slow driver start: enable persistence mode (`nvidia-smi -pm 1`) or set CUDA_MODULE_LOADING=LAZY":
        "驱动启动缓慢：开启持久模式（`nvidia-smi -pm 1`）或设置 CUDA_MODULE_LOADING=LAZY",
    "this TensorFlow is a CPU build or does not match the driver: use the image's TensorFlow":
        "该 TensorFlow 是 CPU 构建或与驱动不匹配：使用镜像自带的 TensorFlow",
    "free space, or run from a larger volume: data sets, checkpoints and the report need several GiB":
        "清理空间，或在更大的卷上运行：数据集、检查点和报告需要数 GiB 空间",
    "libnvidia-ml.so is missing although the PCI bus shows an NVIDIA card: the driver's user-space "
    "part is not in this image; install the driver's utilities, or use the platform's image":
        "PCI 总线上有 NVIDIA 卡，却缺少 libnvidia-ml.so：镜像中没有驱动的用户态部分；安装驱动工具包，或使用平台提供的镜像",
    "readings come from the CLI (slower, fewer fields): install the vendor's NVML-compatible library "
    "if it ships one":
        "读数来自命令行工具（更慢、字段更少）：如果厂商提供 NVML 兼容库，请安装它",
}
