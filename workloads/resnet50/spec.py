"""What the workbench, the headless suite and the report know of ResNet-50 training (torch-free)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from workloads.spec import SWITCH, Metric, Param, SuiteArgs, Text, WorkloadSpec, option, positive

# the workload's defaults: its parser (options.py) takes them from here, and a plan made before the start event too
EPOCHS, BATCH_SIZE, EPOCH_SIZE = 3, 128, 12800


def planned_steps(args: Sequence[str], config: Mapping[str, Any]) -> int | None:
    """Epochs x steps per epoch, capped by --steps; a folder's epoch is known only once the run has read it."""
    cap = positive(config.get("steps")) or positive(option(args, "--steps"))
    epoch_size = positive(config.get("epoch_size"))
    if epoch_size is None:
        data = next((args[i + 1] for i, a in enumerate(args[:-1]) if a == "--data"), None)
        if data not in (None, "synthetic", "fake"):
            return cap
        epoch_size = positive(option(args, "--epoch-size")) or EPOCH_SIZE
    epochs = positive(config.get("epochs")) or positive(option(args, "--epochs")) or EPOCHS
    batch = positive(config.get("batch_size")) or positive(option(args, "--batch-size")) or BATCH_SIZE
    per_step = batch * (positive(config.get("world_size")) or 1)
    planned = epochs * -(-epoch_size // per_step)
    return min(cap, planned) if cap else planned


SPEC = WorkloadSpec(
    name="resnet50",
    title=Text("ResNet-50 training", "ResNet-50 训练"),
    unit="images/s",
    headline="images_per_s",
    params=(
        Param("batch_size", "batch size", "--batch-size", "64", "int", max=2048),
        Param("epochs", "epochs", "--epochs", "1", "int", max=100),
        Param("steps", "steps (cap)", "--steps", "200", "int", placeholder="no cap", max=100000),
        Param("image_size", "image size", "--image-size", "224", "int", max=1024),
        Param("amp", "AMP", "--amp", "off", "choice", ("off", "fp16", "bf16")),
        Param("channels_last", "channels-last", "--channels-last", "off", "switch", SWITCH),
        Param("data", "data", "--data", "synthetic", placeholder="synthetic | fake | DIR", omit=("synthetic",)),
        Param("device", "device", "--device", "", placeholder="auto (cuda:0, cpu...)"),
    ),
    suite=SuiteArgs(
        quick=("--steps", "200", "--batch-size", "128"),
        standard=("--epochs", "3", "--batch-size", "128"),
        cpu_quick=("--steps", "12", "--batch-size", "8", "--image-size", "64", "--warmup", "2"),
        cpu_standard=("--epochs", "3", "--epoch-size", "96", "--batch-size", "16", "--image-size", "64",
                      "--warmup", "2"),
        cpu_quick_note=Text("no accelerator, so the quick suite was scaled down to 12 steps of 8 images at 64 px "
                            "(the figure is not comparable with 224 px results)",
                            "没有加速卡，因此快速套件缩小为 12 步、每步 8 张 64 px 的图（该数字不能与 224 px 的结果比较）"),
        cpu_standard_note=Text("no accelerator, so the standard shape (--epochs 3 --batch-size 128 at 224 px) was "
                               "scaled down to 3 epochs of 96 images, batch 16, 64 px",
                               "没有加速卡，因此标准规模（`--epochs 3 --batch-size 128`，224 px）缩小为 3 个 epoch、"
                               "每个 96 张图、批大小 16、64 px"),
        amp_flag="--amp",
    ),
    metrics=(
        Metric("images_per_s", Text("images/s (median after warm-up)", "images/s（预热后中位数）"), "rate"),
        Metric("images_per_s_compute", Text("images/s, compute only", "images/s（仅计算）"), "rate"),
        Metric("data_wait_fraction", Text("share of step time waiting for data", "等待数据时间占比"), "fraction"),
        # with --val DIR: after the last epoch (or of --weights with --eval-only)
        Metric("val_top1", Text("top-1 accuracy (validation)", "top-1 准确率（验证集）"), "fraction"),
        Metric("val_top5", Text("top-5 accuracy (validation)", "top-5 准确率（验证集）"), "fraction"),
        Metric("image_size", Text("image size (px)", "图像尺寸（像素）")),
        Metric("steps", Text("steps", "步数")),
        Metric("total_s", Text("training time", "训练时间"), "seconds"),
    ),
    line_metrics=(Metric("final_loss", Text("final loss", "最终 loss")),),
    cost_basis="images",
    planned_steps=planned_steps,
)
