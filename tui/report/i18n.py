"""The report's words in English and Chinese (the reviewers' language in the trial campaigns)."""

from __future__ import annotations

from workloads import registry

LANGS = ("en", "zh")

STRINGS: dict[str, tuple[str, str]] = {
    "title": ("cardbench test report", "cardbench 测试报告"),
    "generated": ("Generated {time} UTC on host `{host}` by cardbench {version}.",
                  "生成时间 {time} UTC，主机 `{host}`，cardbench {version}。"),
    "summary": ("Summary", "概要"),
    "workload": ("workload", "负载"),
    "status": ("status", "状态"),
    "result": ("result", "结果"),
    "read_against": ("read against", "参照"),
    "precision": ("precision", "精度"),
    "batch": ("batch", "批大小"),
    "device": ("device", "设备"),
    "no_runs": ("No workload ran.", "没有运行任何负载。"),
    "device_software": ("Device and software", "设备与软件"),
    "item": ("item", "项目"),
    "value": ("value", "值"),
    "accelerators": ("accelerators", "加速卡"),
    "no_accelerator": ("none detected (CPU only)", "未检测到（仅 CPU）"),
    "host": ("host", "主机"),
    "management_cli": ("Management CLI", "管理工具输出"),
    "smi_real": ("Output of `{command}` at export time (verbatim in `nvidia-smi.txt`):",
                 "导出时 `{command}` 的输出（原文见 `nvidia-smi.txt`）："),
    "smi_fallback": ("No management CLI answered ({note}), so `nvidia-smi.txt` and the image below hold "
                     "cardbench's own device table.",
                     "没有可用的管理工具（{note}），因此 `nvidia-smi.txt` 和下图是 cardbench 自己的设备表。"),
    "png_missing": ("The PNG could not be drawn ({why}); the text file is complete.",
                    "无法生成 PNG（{why}）；文本文件完整。"),
    "doctor": ("Doctor", "环境检查"),
    "check": ("check", "检查项"),
    "evidence": ("evidence", "依据"),
    "hint": ("hint", "建议"),
    "doctor_none": ("The doctor did not run.", "环境检查未运行。"),
    "workloads": ("Workloads", "负载结果"),
    "command": ("Command: `{command}`", "命令：`{command}`"),
    "run_dir": ("Run `{run}`: status **{status}**, on {device}, {duration}.",
                "运行 `{run}`：状态 **{status}**，设备 {device}，用时 {duration}。"),
    "metric": ("metric", "指标"),
    "charts": ("Charts", "图表"),
    "no_chart_data": ("No step or telemetry data to chart.", "没有可绘制的步骤或遥测数据。"),
    "other_metrics": ("All result metrics", "全部结果指标"),
    "error_was": ("Error: {message}", "错误：{message}"),
    "problems": ("Problems met and how they were handled", "遇到的问题及处理"),
    "problems_none": ("None: no fallback, warning or error was reported.", "无：没有回退、警告或错误。"),
    "fallback_item": ("{run}: mixed-precision/op fallback: {error}{where} -> {action}",
                      "{run}：回退：{error}{where} -> {action}"),
    "warning_item": ("{run}: warning: {message}", "{run}：警告：{message}"),
    "error_item": ("{run}: error: {message}{hint}", "{run}：错误：{message}{hint}"),
    "status_item": ("{run}: the run ended **{status}**", "{run}：运行结束状态 **{status}**"),
    "skipped_item": ("{run}: {n} unreadable event line(s) skipped", "{run}：跳过 {n} 行无法解析的事件"),
    "skipped_telemetry_item": ("{run}: {n} unreadable telemetry line(s) skipped", "{run}：跳过 {n} 行无法解析的遥测数据"),
    "run_file_item": ("{run}: {problem}", "{run}：{problem}"),
    "stability": ("Stability", "稳定性"),
    "samples": ("samples", "采样数"),
    "peak_temp": ("peak temperature", "最高温度"),
    "peak_power": ("peak power / limit", "最大功耗 / 上限"),
    "sm_clock": ("SM clock min - max", "SM 频率 最低 - 最高"),
    "throttle": ("throttle reasons seen", "出现的降频原因"),
    "ecc": ("ECC corrected / uncorrected (first -> last)", "ECC 可纠正 / 不可纠正（首 -> 末）"),
    "pages": ("retired pages / remapped rows", "退役页 / 重映射行"),
    "none_seen": ("none", "无"),
    "not_reported": ("not reported by the device", "设备未报告"),
    "no_device_telemetry": ("No accelerator telemetry was recorded (no device, or no source could read it). "
                            "Host peaks: CPU {cpu}, memory {mem}.",
                            "没有记录到加速卡遥测（无设备或无可用数据源）。主机峰值：CPU {cpu}，内存 {mem}。"),
    "cpu_run_telemetry": ("The runs ran on the CPU: the listed cards' readings are not their data, so no device row is "
                          "shown. Host peaks: CPU {cpu}, memory {mem}.",
                          "负载在 CPU 上运行：所列加速卡的读数不属于这些运行，因此不列出设备。主机峰值：CPU {cpu}，内存 {mem}。"),
    "xid_none": ("Xid events: none in the kernel log ({note}).", "Xid 事件：内核日志中没有（{note}）。"),
    "xid_some": ("Xid events in the kernel log ({note}): {counts}.", "内核日志中的 Xid 事件（{note}）：{counts}。"),
    "xid_unreadable": ("Xid events: {note}.", "Xid 事件：{note}。"),
    "cost": ("Cost", "成本"),
    "cost_intro": ("At {price} {currency} per hour (given with `--price-per-hour`), from the measured rates:",
                   "按每小时 {price} {currency}（`--price-per-hour` 给出）和实测速率计算："),
    "cost_none": ("Give the instance price with `--price-per-hour PRICE --currency CUR` to see the cost per epoch "
                  "and per million tokens.",
                  "使用 `--price-per-hour 价格 --currency 币种` 给出实例价格，即可看到每个 epoch 和每百万 token 的成本。"),
    "rate": ("measured rate", "实测速率"),
    "cost_epoch": ("per epoch of this run ({images} images)", "本次运行每 epoch（{images} 张图）"),
    "cost_imagenet": ("per ImageNet-1k epoch (1,281,167 images, projected)", "每 ImageNet-1k epoch（1,281,167 张图，推算）"),
    "cost_mtok": ("per million tokens", "每百万 token"),
    "cost_run": ("this run", "本次运行"),
    "screenshot": ("Screenshot", "截图"),
    "screenshot_of": ("The workbench screen at export time:", "导出时的工作台界面："),
    "notes": ("Notes on this report", "报告说明"),
    "files": ("Files in this bundle", "报告包文件"),
    "files_intro": ("Check them with `sha256sum -c SHA256SUMS` in this directory.",
                    "在本目录执行 `sha256sum -c SHA256SUMS` 校验。"),
    "steps_fmt": ("{n} steps", "{n} 步"),
    "step_stats": ("median {median}, mean {mean}, p90 {p90} {unit} ({steps}, {skipped} warm-up left out)",
                   "中位数 {median}，均值 {mean}，p90 {p90} {unit}（{steps}，前 {skipped} 步为预热未计入）"),
    "doctor_at_export": ("The doctor ran at export time.", "体检在导出时运行。"),
    "doctor_failed": ("The doctor could not run: {why}", "体检未能运行：{why}"),
    "doctor_from_run": ("The doctor's checks are those recorded with run {run}.", "体检结果取自运行 {run} 的记录。"),
    "from_disk": ("Built from runs on disk with `cardbench export --run`.",
                  "由磁盘上的运行记录经 `cardbench export --run` 生成。"),
    "median_of_token_steps": ("per-token rate (1 / decode latency) over {n} steps: median {median} (mean {mean}, "
                              "p90 {p90}); the headline is all tokens over all time, prefill and sampling included",
                              "逐 token 速率（1/解码延迟），{n} 步：中位数 {median}（均值 {mean}，p90 {p90}）；"
                              "标题数字为全部 token 除以全部时间（含预填充与采样）"),
    "median_of_steps": ("median of {n} steps {median} (mean {mean}, p90 {p90}; first {skipped} left out as warm-up)",
                        "{n} 步中位数 {median}（均值 {mean}，p90 {p90}；前 {skipped} 步为预热未计入）"),
    "bw_bound": ("{fraction} of the device's read bandwidth ({read} GB/s); bound {bound} {unit}",
                 "达到设备读带宽（{read} GB/s）的 {fraction}；上限 {bound} {unit}"),
    "bw_unreliable": ("bound unreliable: decoding read {achieved} GB/s, more than the {read} GB/s measured as the "
                      "device's read bandwidth (bound {bound} {unit}), so that measurement was wrong "
                      "(see the warnings)",
                      "上限不可靠：解码读取 {achieved} GB/s，超过实测设备读带宽 {read} GB/s（上限 {bound} {unit}），"
                      "该测量有误（见警告）"),
    "unreliable": ("unreliable: the bound was mis-measured (see the warnings)", "不可靠：上限测量有误（见警告）"),
    "flop_bound": ("{achieved} TFLOP/s achieved of {peak} peak ({util})", "实际 {achieved} TFLOP/s，峰值 {peak}（{util}）"),
    "published": ("published: {refs}", "公开数据：{refs}"),
}

# labels of the rows every workload's table has; a workload's own metrics are labelled in its spec
METRICS: dict[str, tuple[str, str]] = {
    "step_throughput": ("per-step throughput", "逐步吞吐"),
    "precision": ("precision", "精度"),
    "batch_size": ("batch size", "批大小"),
    "steps": ("steps", "步数"),
    "loss": ("loss, first -> last", "loss 首 -> 末"),
    "peak_memory_bytes": ("peak device memory (allocated)", "设备内存峰值（已分配）"),
    "peak_memory_rss": ("peak process memory (RSS, no device)", "进程内存峰值（RSS，无加速设备）"),
    "fallbacks": ("fallbacks", "回退次数"),
    "warnings": ("warnings", "警告数"),
}


class Words:
    def __init__(self, lang: str):
        self.i = 1 if lang == "zh" else 0

    def __call__(self, key: str, **kw: object) -> str:
        text = STRINGS[key][self.i]
        return text.format(**kw) if kw else text

    @property
    def lang(self) -> str:
        return LANGS[self.i]

    def title(self, workload: str) -> str:
        """The workload's title from its spec, in this language."""
        return registry.spec_for(workload).title(self.lang)

    def metric(self, key: str, workload: str | None = None) -> str:
        """A metric's label: the workload's spec says it for its own metrics, this table for the common rows."""
        metric = registry.spec_for(workload).metric(key) if workload else None
        if metric is not None:
            return metric.label(self.lang)
        pair = METRICS.get(key)
        return pair[self.i] if pair else key
