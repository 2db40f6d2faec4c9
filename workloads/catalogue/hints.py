"""Advice and warning codes in English and Chinese: ``hint.<id>`` and ``warning.<code>``.

``hint.<id>`` holds a piece of advice that `workloads.hints.hint_for` finds for a failure text (by its id; a run
carries the id beside the English, see `workloads.protocol.Error`). ``hint.doctor.<name>`` holds the doctor's own.
``warning.<code>`` says what a workload warning's code means (the report puts the Chinese before the quoted message;
the English is the code's meaning, for a reader of this table).
"""

from __future__ import annotations

WORDS: dict[str, tuple[str, str]] = {
    # the advice a failure text leads to (`workloads.hints.RULES` names these ids; the first match wins there)
    "hint.device_code_missing": (
        "the PyTorch build lacks code for this device, or an op is missing under mixed precision: "
        "run with --amp off and let the ResNet-50 workload name the layer",
        "PyTorch 构建缺少该设备的代码，或混合精度下缺少某个算子：用 `--amp off` 运行，由 ResNet-50 "
        "负载指出出错的层"),
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
        "this PyTorch does not match the driver: was it reinstalled over the image's build? use the "
        "image's PyTorch",
        "此 PyTorch 与驱动不匹配：是否覆盖安装了镜像自带的版本？请使用镜像自带的 PyTorch"),
    "hint.cpu_only_build": (
        "this PyTorch is a CPU-only build: reinstall the image's (vendor) PyTorch, not the one from PyPI",
        "此 PyTorch 是仅支持 CPU 的构建：请重新安装镜像自带的（厂商）PyTorch，而不是 PyPI 上的版本"),
    "hint.device_fault": (
        "the device faulted: check `dmesg` for Xid errors and rerun; if it repeats, report it to the "
        "platform",
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
        "no device is visible to this process: check CUDA_VISIBLE_DEVICES (and "
        "HIP_/ROCR_VISIBLE_DEVICES); unset it to see all",
        "此进程看不到任何设备：检查 `CUDA_VISIBLE_DEVICES`（以及 `HIP_`/`ROCR_VISIBLE_DEVICES`）；"
        "取消设置即可看到全部设备"),
    "hint.driver_library_mismatch": (
        "the kernel driver and its user-space library differ (driver updated without a "
        "reboot): reboot, or reload the driver",
        "内核驱动与其用户态库的版本不一致（更新驱动后未重启）：重启，或重新加载驱动"),
    "hint.no_nvml": (
        "libnvidia-ml.so is missing: the driver's user-space part is not in this image (expected on non-NVIDIA "
        "cards)",
        "缺少 `libnvidia-ml.so`：镜像中没有驱动的用户态部分（非 NVIDIA 卡上属正常）"),
    "hint.driver_not_loaded": (
        "the NVIDIA kernel driver is not loaded: check `lsmod | grep nvidia` and `dmesg`, or ask the "
        "platform",
        "NVIDIA 内核驱动未加载：检查 `lsmod | grep nvidia` 和 `dmesg`，或联系平台"),
    "hint.gpu_lost": (
        "the GPU fell off the bus: the instance needs a reset or a replacement; report it to the platform",
        "GPU 已从总线上掉线：实例需要重置或更换；请报告给平台"),
    "hint.tool_hangs": (
        "the tool hangs: the driver may be wedged (check `dmesg` for Xid errors); a reboot often clears it",
        "工具无响应：驱动可能已卡死（用 `dmesg` 检查 Xid 错误）；重启通常可以解决"),
    "hint.extension_mismatch": (
        "the vendor torch extension does not match this torch build: reinstall the pair from the "
        "image",
        "厂商的 torch 扩展与此 torch 构建不匹配：从镜像重新安装配套的两者"),
    "hint.disk_full": (
        "the disk is full: free space, or point the run directory at a larger volume",
        "磁盘已满：释放空间，或把运行目录指向更大的卷"),
    "hint.arch_missing": (
        "the PyTorch build has no code for this GPU's architecture: use the build made for it (ROCm: its "
        "gfx target, which `rocminfo | grep gfx` names; a Hygon DCU: the DTK build of PyTorch, not a "
        "pytorch.org ROCm wheel), the image's PyTorch, or run with --amp off to see whether one op is to "
        "blame",
        "该 PyTorch 构建没有此 GPU 架构的代码：使用为它构建的版本（ROCm：对应的 `gfx` 目标，"
        "`rocminfo | grep gfx` 会列出；海光 DCU：DTK 版的 PyTorch，而不是 pytorch.org 的 ROCm 版）或镜像自带的 "
        "PyTorch，或用 `--amp off` 运行，看是否是某一个算子的问题"),
    "hint.hccl_exec_timeout": (
        "a collective waited past HCCL_EXEC_TIMEOUT (1836 s by default): one rank stopped reaching "
        "it, so find the rank whose log fails first (or that was still saving or evaluating); if "
        "the wait is expected, raise it on every rank, e.g. `export HCCL_EXEC_TIMEOUT=3600`",
        "集合通信等待超过了 `HCCL_EXEC_TIMEOUT`（默认 1836 秒）：有一个进程没有到达这次通信，"
        "请找出日志最先报错的那个进程（或当时仍在保存、评估的进程）；若等待属正常，请在每个进程上调大它，"
        "例如 `export HCCL_EXEC_TIMEOUT=3600`"),
    "hint.hccl_connect_timeout": (
        "the ranks could not connect within HCCL_CONNECT_TIMEOUT (120 s by default): check that "
        "every rank started and none failed first, that the nodes reach each other "
        "(`hccn_tool -i <device> -link -g` for an NPU's link) and that no other job holds HCCL's "
        "ports; if ranks start far apart, raise it on every rank, e.g. "
        "`export HCCL_CONNECT_TIMEOUT=1200`",
        "各进程未能在 `HCCL_CONNECT_TIMEOUT`（默认 120 秒）内建立连接：检查每个进程都已启动且没有进程"
        "先行出错、各节点之间网络互通（`hccn_tool -i <device> -link -g` 查看 NPU 的链路），"
        "且 HCCL 的端口没有被其他任务占用；若各进程启动时间相差很大，请在每个进程上调大它，"
        "例如 `export HCCL_CONNECT_TIMEOUT=1200`"),
    "hint.npu_held": (
        "an earlier process still holds the NPU (HCCP could not start): `npu-smi info` lists the processes on "
        "each NPU; find the leftover one with `ps -ef | grep python` or `fuser -v /dev/davinci<N>`, kill it, "
        "wait 10 s and rerun",
        "之前的进程仍占用着 NPU（HCCP 无法启动）：`npu-smi info` 列出每张 NPU 上的进程；用 `ps -ef | grep python` "
        "或 `fuser -v /dev/davinci<N>` 找到残留进程，结束它，等待 10 秒后重跑"),
    "hint.npu_out_of_memory": (
        "the NPU ran out of memory: lower --batch-size (or use --find-batch-size); `npu-smi info` "
        "shows whether another process holds the card's memory; if reserved is far above allocated, "
        "set `PYTORCH_NPU_ALLOC_CONF=expandable_segments:True`",
        "NPU 内存不足：减小 `--batch-size`（或使用 `--find-batch-size`）；`npu-smi info` 显示是否有其他进程"
        "占用了卡的内存；若 reserved 远大于 allocated，设置 "
        "`PYTORCH_NPU_ALLOC_CONF=expandable_segments:True`"),
    "hint.cann_torch_npu_mismatch": (
        "CANN and torch_npu do not pair (an aclnn op this torch_npu calls is missing from "
        "CANN's libopapi.so): read CANN's version in `"
        "/usr/local/Ascend/ascend-toolkit/latest/*/ascend_toolkit_install.info` and torch_npu's "
        "with `pip show torch-npu`, then install a pair the Ascend/pytorch README lists (or "
        "use the image's)",
        "CANN 与 torch_npu 版本不配套（此 torch_npu 调用的某个 aclnn 算子在 CANN 的 `libopapi.so` 中"
        "不存在）：CANN 的版本见 "
        "`/usr/local/Ascend/ascend-toolkit/latest/*/ascend_toolkit_install.info`，torch_npu 的版本用 "
        "`pip show torch-npu` 查看，然后安装 Ascend/pytorch README 中列出的配套组合（或使用镜像自带的）"),
    "hint.musa_gpu_hang": (
        "the Moore Threads GPU hung and its driver reset the context: `dmesg | grep MTGPU` names the "
        "process with 'Guilty Lockup', `mthreads-gmi` shows the card's state; rerun, and if it repeats "
        "at the same step try --amp off, and use the image's torch_musa with the MUSA driver it was "
        "built for",
        "摩尔线程 GPU 挂死，驱动重置了上下文：`dmesg | grep MTGPU` 会指出出现 'Guilty Lockup' 的进程，"
        "`mthreads-gmi` 显示卡的状态；重跑，若总在同一步出现，试试 `--amp off`，并使用镜像自带的、"
        "与 MUSA 驱动配套构建的 torch_musa"),
    "hint.mlu_runtime": (
        "the Cambricon runtime (CNRT) or an MLU op library failed, in the call named after "
        "[cnrtError] / [MLUOP]: `cnmon` shows the card's state and driver version; the driver, CNToolkit "
        "and torch_mlu must be the set made together: use the image's",
        "寒武纪运行时（CNRT）或 MLU 算子库出错，出错的调用写在 [cnrtError] / [MLUOP] 之后：`cnmon` 显示卡的状态和"
        "驱动版本；驱动、CNToolkit 与 torch_mlu 必须是同一套配套版本：请使用镜像自带的"),
    "hint.ascend_op_error": (
        "an NPU operator failed (an EZ code: the lines under it name the op and why): rerun with "
        "`ASCEND_LAUNCH_BLOCKING=1` to stop at it, try --amp off (or --dtype fp32), and read the plog "
        "under ~/ascend/log for the full reason",
        "NPU 算子出错（EZ 错误码：其下的几行给出算子名和原因）：用 `ASCEND_LAUNCH_BLOCKING=1` 重跑以停在出错的"
        "算子处，试试 `--amp off`（或 `--dtype fp32`），并查看 `~/ascend/log` 下的 plog 了解完整原因"),
    "hint.ascend_runtime": (
        "the Ascend runtime failed (the CANN code above): `npu-smi info` shows the card's state and the "
        "plog under ~/ascend/log the cause; a task timeout is often a hung collective or an op the NPU "
        "lacks",
        "昇腾运行时出错（见上方的 CANN 错误码）：`npu-smi info` 显示卡的状态，`~/ascend/log` 下的 plog "
        "给出原因；任务超时常见于集合通信挂起或 NPU 缺少某个算子"),
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
    "warning.cpu_fallback": ("an op ran on the CPU while the model was on the card (PyTorch's CPU fallback): "
                             "the step waits for it and for its copies",
                             "模型在加速卡上时有算子在 CPU 上运行（PyTorch 的 CPU 回退）：每步都要等待它及其拷贝"),
    "warning.bound_exceeded": ("the bandwidth bound was measured low: the share of read bandwidth is unreliable and "
                               "not shown",
                               "带宽上限测得偏低，读带宽占比不可靠，未予显示"),
    "warning.checkpoint_not_saved": ("the checkpoint was not saved", "检查点未保存"),
    "warning.nonfinite_loss": ("the loss was not finite (NaN/Inf)", "损失值出现非有限数（NaN/Inf）"),
    "warning.nothing_to_train": ("there was no data to train on", "没有可训练的数据"),
    "warning.skipped_files": ("unreadable data files were skipped", "跳过了无法读取的数据文件"),
    "warning.past_rated_bound": ("a figure is past the card's rated bound: a measurement error, not a result",
                                 "某数据超过了该卡的额定上限：属测量误差，不作为结果"),
    "warning.past_measured_bound": ("a share of the measured read bandwidth (the run's) is above 100 %: the bound was "
                                    "measured low and the share is unreliable",
                                    "某占本次实测读带宽的比例超过 100 %：带宽上限测得偏低，该比例不可靠"),
    "warning.output_unwritten": ("the --output file could not be written; the rows are in the result",
                                 "--output 文件未能写入；各行仍在结果中"),
}
