"""The Chinese of the doctor's own words: check names and the hints of `workloads.hints`.

The evidence sentences are translated where each check is made (they hold its
numbers); quoted tool output (an error message, a CLI's first line) is never
translated. A hint that has no entry here falls back to English in the report,
and a test fails on it, so a new hint comes with its Chinese.
"""

from __future__ import annotations

from tui.report.zh import HINTS as WORKLOAD_HINTS_ZH

# a check's Chinese name is the report's (tui.report.zh.CHECK_TITLES): one table, so the doctor's screen and the
# report name a check alike (two tables once differed in 9 of 14 titles)

# English hint (workloads.hints and the doctor's own) -> Chinese
HINTS_ZH: dict[str, str] = {
    # workloads.hints.HINTS: the report's table, the one source of their Chinese
    **WORKLOAD_HINTS_ZH,
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
