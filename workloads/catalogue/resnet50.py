"""The words of `cardbench run resnet50`: ``workload.resnet50.<key>``, said by message id
(`workloads.catalogue.Message`)."""

from __future__ import annotations

WORDS: dict[str, tuple[str, str]] = {
    # the spec (workloads/resnet50/spec.py): its title, progress word, notes and the labels of its figures (metric.*, line.*)
    "workload.resnet50.title": ("ResNet-50 training",
                                "ResNet-50 训练"),
    "workload.resnet50.cpu_quick_note": ("no accelerator, so the quick suite was scaled down to 12 steps of 8 images at 64 px (the figure is not comparable with 224 px results)",
                                         "没有加速卡，因此快速套件缩小为 12 步、每步 8 张 64 px 的图（该数字不能与 224 px 的结果比较）"),
    "workload.resnet50.cpu_standard_note": ("no accelerator, so the standard shape (--epochs 3 --batch-size 128 at 224 px) was scaled down to 3 epochs of 96 images, batch 16, 64 px",
                                            "没有加速卡，因此标准规模（`--epochs 3 --batch-size 128`，224 px）缩小为 3 个 epoch、每个 96 张图、批大小 16、64 px"),
    "workload.resnet50.metric.images_per_s": ("images/s (median after warm-up)",
                                              "images/s（预热后中位数）"),
    "workload.resnet50.metric.images_per_s_compute": ("images/s, compute only",
                                                      "images/s（仅计算）"),
    "workload.resnet50.metric.data_wait_fraction": ("share of step time waiting for data",
                                                    "等待数据时间占比"),
    "workload.resnet50.metric.val_top1": ("top-1 accuracy (validation)",
                                          "top-1 准确率（验证集）"),
    "workload.resnet50.metric.val_top5": ("top-5 accuracy (validation)",
                                          "top-5 准确率（验证集）"),
    "workload.resnet50.metric.image_size": ("image size (px)",
                                            "图像尺寸（像素）"),
}
