"""The report's words in English and Chinese (the reviewers' language in the trial campaigns).

In Chinese, everything cardbench writes is Chinese; what it quotes (a tool's output, an error message, a
device's name, English that no table here translates) is in a code span, so a reader sees it is quoted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

from tui.doctor.check import TITLES
from tui.report import zh
from tui.report.document import code
from workloads import registry

LANGS = ("en", "zh")
_TITLE_IDS = {title: check_id for check_id, title in TITLES.items()}  # a doctor.json row from before ids

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
    "see_svg": (" (`screenshot.svg`)", "（见 `screenshot.svg`）"),
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
    "charts_in_english": ("The charts' own words are in English.",
                          "图中文字为英文（绘图所用的等宽字体不一定带有中文字形）；各图的中文标题见图下方。"),
    "no_chart_data": ("No step or telemetry data to chart.", "没有可绘制的步骤或遥测数据。"),
    "other_metrics": ("All result metrics", "全部结果指标"),
    "error_was": ("Error: {message}", "错误：{message}"),
    "problems": ("Problems met and how they were handled", "遇到的问题及处理"),
    "problems_none": ("None: no fallback, warning or error was reported.", "无：没有回退、警告或错误。"),
    "fallback_item": ("{run}: mixed-precision/op fallback: {error}{where} -> {action}",
                      "{run}：混合精度/算子回退：{error}{where}，处理：{action}"),
    "fallback_where": (" (layer {layer}, op {op})", "（层 {layer}，算子 {op}）"),
    "hint_in": (" (hint: {hint})", "（建议：{hint}）"),
    "warning_known": ("{message}", "{meaning}；原文 {message}"),
    "warning_unknown": ("{message}", "原文 {message}"),
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
    "bus": ("{name} (bus {bus})", "{name}（总线 {bus}）"),
    "not_reported": ("not reported by the device", "设备未报告"),
    "no_device_telemetry": ("No accelerator telemetry was recorded (no device, or no source could read it). "
                            "The whole host, all processes, at its peak: CPU {cpu}, memory in use {mem}.",
                            "没有记录到加速卡遥测（无设备或无可用数据源）。整台主机（所有进程）的峰值：CPU {cpu}，已用内存 {mem}。"),
    "cpu_run_telemetry": ("The runs ran on the CPU: the listed cards' readings are not their data, so no device row is "
                          "shown. The whole host, all processes, at its peak: CPU {cpu}, memory in use {mem}.",
                          "负载在 CPU 上运行：所列加速卡的读数不属于这些运行，因此不列出设备。整台主机（所有进程）的峰值：CPU {cpu}，"
                          "已用内存 {mem}。"),
    "xid_none": ("Xid events: none in the kernel log ({note}).", "Xid 事件：内核日志中没有（{note}）。"),
    "xid_some": ("Xid events in the kernel log ({note}): {counts}.", "内核日志中的 Xid 事件（{note}）：{counts}。"),
    "xid_unreadable": ("Xid events: {note}.", "Xid 事件：{note}。"),
    "xid_count": ("Xid {code} x{n} ({meaning})", "Xid {code} ×{n}（{meaning}）"),
    "xid_unknown": ("see NVIDIA Xid catalogue", "见 NVIDIA 的 Xid 目录"),
    "cost": ("Cost", "成本"),
    "cost_intro": ("At {price} {currency} per hour (given with `--price-per-hour`), from the measured rates:",
                   "按每小时 {price} {currency}（`--price-per-hour` 给出）和实测速率计算："),
    "cost_intro_trial": ("At {price} {currency} per hour (the trial's price, kept by `cardbench trial`), from the "
                         "measured rates:",
                         "按每小时 {price} {currency}（试用价格，由 `cardbench trial` 保存）和实测速率计算："),
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
    "screenshot_redrawn": ("The workbench screen re-drawn from the runs on disk, with their own times (its title "
                           "says when they ran); not a capture of the screen at the time:",
                           "根据磁盘上的运行记录重新绘制的工作台界面，显示运行自身的时间（标题注明运行的时间段），"
                           "并非当时屏幕的截图："),
    "notes": ("Notes on this report", "报告说明"),
    "files": ("Files in this bundle", "报告包文件"),
    "files_intro": ("Check them with `sha256sum -c SHA256SUMS` in this directory.",
                    "在本目录执行 `sha256sum -c SHA256SUMS` 校验。"),
    "steps_fmt": ("{n} steps", "{n} 步"),
    # export-level notes (see `note`): what the suite chose, what was skipped, what could not be drawn
    "note_suite_accelerator": ("Suite: {suite}, run headless (`cardbench --export-report`); accelerator.",
                               "测试套件：`{suite}`，无界面运行（`cardbench --export-report`）；使用加速卡。"),
    "note_suite_cpu": ("Suite: {suite}, run headless (`cardbench --export-report`); no accelerator seen by torch: CPU.",
                       "测试套件：`{suite}`，无界面运行（`cardbench --export-report`）；torch 未看到加速卡：使用 CPU。"),
    "note_args_env": ("{name}: arguments set by ${env}: {args}", "{name}：参数由 `${env}` 设置：{args}"),
    "note_workload": ("{name}: {note}", "{name}：{note}。"),
    "note_suite_stopped": ("the suite stopped early: {error}", "测试套件提前停止：{error}"),
    "note_budget": ("{name} was stopped at its share of the {budget} s CPU time budget (so the export ends within "
                    "five minutes on a CPU-only machine); its figures come from the steps it completed.",
                    "{name} 用完其在 {budget} s CPU 时间预算中的份额后被停止（使仅有 CPU 的机器上导出在五分钟内完成）；"
                    "其数据来自已完成的步骤。"),
    "note_interrupted": ("The suite was interrupted (signal): the running workload was stopped and the rest skipped.",
                         "测试套件被信号中断：正在运行的负载已停止，其余负载被跳过。"),
    "note_not_run": ("{name} did not run (the suite was stopped before it).", "{name}未运行（测试套件在它之前已停止）。"),
    "note_not_started": ("{name} did not run: {why}.", "{name}未运行：{why}。"),
    "note_incomplete": ("{name}: its run directory stopped taking writes at {time} ({file}: {cause}); this report holds "
                        "its progress up to then and nothing after. As seen live (not on disk): {live}.",
                        "{name}：其运行目录自 {time} 起不再能写入（{file}：{cause}）；本报告只含此前的进度。"
                        "运行时实时看到的（未写入磁盘）：{live}。"),
    "note_allow_cpu": ("Run with --allow-cpu: CPU figures were accepted although {listed} are listed.",
                       "使用了 `--allow-cpu`：尽管列出了{listed}，仍接受 CPU 数据。"),
    "note_devices_failed": ("device detection failed: {error}", "设备检测失败：{error}"),
    "note_smi_png": ("nvidia-smi.png was not drawn: {error}", "未能生成 `nvidia-smi.png`：{error}"),
    "note_screenshot_png": ("screenshot.png was not drawn ({error}); screenshot.svg is in the bundle",
                            "未能生成 `screenshot.png`（{error}）；报告包中有 `screenshot.svg`"),
    "note_chart_png": ("{chart}: PNG not drawn ({error}); the SVG is kept", "{chart}：未能生成 PNG（{error}）；保留了 SVG"),
    "note_text_screen": ("{why}; the screenshot is a plain text rendering of the same devices and runs.",
                         "{why}；截图是相同设备和运行的纯文本渲染。"),
    "step_stats": ("median {median}, mean {mean}, p90 {p90} {unit} ({steps}, {skipped} warm-up left out)",
                   "中位数 {median}，均值 {mean}，p90 {p90} {unit}（{steps}，前 {skipped} 步为预热未计入）"),
    "doctor_at_export": ("The doctor ran at export time.", "体检在导出时运行。"),
    "doctor_failed": ("The doctor could not run: {why}", "体检未能运行：{why}"),
    "doctor_from_run": ("The doctor's checks are those recorded with run {run}.", "体检结果取自运行 `{run}` 的记录。"),
    "from_disk": ("Built from runs on disk with `cardbench export --run`.",
                  "由磁盘上的运行记录经 `cardbench export --run` 生成。"),
    "median_of_token_steps": ("the headline is each sequence's decode steps over their time (sampling included; the "
                              "prompt's prefill is in the time to first token), the median of {runs} timed run(s) "
                              "after {warmup} untimed warm-up tokens; the steps are {n} windows of those runs: median "
                              "{median} (mean {mean}, p90 {p90})",
                              "标题数字为每条序列的解码步数除以其用时（含采样；提示词的预填充计入首 token 时间），取 {runs} "
                              "次计时运行的中位数，运行前有 {warmup} 个不计时的预热 token；各步为这些运行中的 {n} 个窗口："
                              "中位数 {median}（均值 {mean}，p90 {p90}）"),
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
    "published_size": (" (224 px; this run {size} px)", "（224 px；本次运行 {size} px）"),
    "alt_screenshot": ("workbench screenshot", "工作台截图"),
    "alt_smi": ("management CLI output", "管理工具输出截图"),
    "gpu_models": ("GPU models (collect_env)", "GPU 型号（`collect_env`）"),
    "driver_collect_env": ("driver (collect_env)", "驱动（`collect_env`）"),
    "torch_build": ("CUDA / ROCm used to build PyTorch", "编译 PyTorch 所用的 CUDA / ROCm"),
    "cuda_runtime": ("CUDA runtime", "CUDA 运行时"),
    "cuda_init": ("CUDA initialisation", "CUDA 初始化"),
    "cuda_init_value": ("{duration} ({evidence})", "{duration}（{evidence}）"),
    "run_named": ("{title} ({run})", "{title}（{run}）"),
    "list_sep": ("; ", "；"),
    "comma": (", ", "，"),
    "os": ("OS", "操作系统"),
    "device_row": ("{label} ({vendor}, {memory}, driver {driver}, runtime {runtime})",
                   "{label}（{vendor}，{memory}，驱动 {driver}，运行时 {runtime}）"),
    "cpu_row": ("{model}, {count} logical CPUs", "{model}，{count} 个逻辑 CPU"),
    "host_row": ("{host}, {memory} RAM", "{host}，内存 {memory}"),
    "collect_env_note": ("collect_env: {note}", "`collect_env`：{note}"),
    "cpu_device": ("cpu ({arch}, {threads} threads)", "CPU（{arch}，{threads} 线程）"),
}

# labels of the rows every workload's table has; a workload's own metrics are labelled in its spec
METRICS: dict[str, tuple[str, str]] = {
    "step_throughput": ("per-step throughput", "逐步吞吐"),
    "precision": ("precision", "精度"),
    "batch_size": ("batch size", "批大小"),
    "steps": ("steps", "步数"),
    "loss": ("loss, first -> last", "损失 首 -> 末"),
    "peak_memory_bytes": ("peak device memory (allocated)", "设备内存峰值（已分配）"),
    "peak_memory_rss": ("peak process memory (RSS, no device)", "进程内存峰值（RSS，无加速设备）"),
    "fallbacks": ("fallbacks", "回退次数"),
    "warnings": ("warnings", "警告数"),
}


class Note(str):
    """A sentence for the report, said in the reader's language when the report is written: a key of
    ``STRINGS`` and its values (a value that is callable, a `workloads.spec.Text` or `quoted`, is called
    with the language). As a string it is the English, so code that prints, joins or searches notes
    reads words as before; ``note("zh")`` is the Chinese."""

    key: str
    values: Mapping[str, Any]

    def __new__(cls, key: str, values: Mapping[str, Any]) -> "Note":
        self = super().__new__(cls, _say(key, values, "en"))
        self.key, self.values = key, dict(values)
        return self

    def __call__(self, lang: str = "en") -> str:
        return _say(self.key, self.values, lang)


def _say(key: str, values: Mapping[str, Any], lang: str) -> str:
    return Words(lang)(key, **{k: v(lang) if callable(v) else v for k, v in values.items()})


def note(key: str, **values: Any) -> Note:
    """``note("note_not_run", name=spec.title)``: a note of the report, in either language."""
    if key not in STRINGS:
        raise KeyError(f"no report sentence {key!r}")
    return Note(key, values)


@dataclass(frozen=True)
class _Quoted:
    text: str

    def __call__(self, lang: str = "en") -> str:
        return code(self.text) if lang == "zh" else self.text


def quoted(text: Any) -> _Quoted:
    """A value of a note that is not cardbench's words (an exception's text, a tool's output): as it was
    written, and in a code span in Chinese so that the reader sees it is quoted."""
    return _Quoted(str(text))


_CPU_DEVICE = re.compile(r"cpu \((?P<arch>[^,()]*), (?P<threads>\d+) threads\)")
_DOCTOR_POINTER = "; `cardbench doctor` says what torch sees and why"


class Words:
    def __init__(self, lang: str):
        self.i = 1 if lang == "zh" else 0

    def __call__(self, key: str, **kw: object) -> str:
        text = STRINGS[key][self.i]
        return text.format(**kw) if kw else text

    @property
    def lang(self) -> str:
        return LANGS[self.i]

    @property
    def zh(self) -> bool:
        return self.i == 1

    def quote(self, text: Any) -> str:
        """Text cardbench did not write (a tool's output, an error, a model name): in a code span in Chinese."""
        return quoted(text)(self.lang) if text not in (None, "") else ""

    def text(self, said: Any) -> str:
        """A note or caption: a `Note` or `Text` in this language; a plain string as it was given."""
        return said(self.lang) if callable(said) else str(said)

    def status(self, status: Any) -> str:
        """A run's end status ('ok', 'stopped'...)."""
        text = str(status or "")
        return zh.RUN_STATUS.get(text, self.quote(text)) if self.zh else text

    def check_status(self, status: Any) -> str:
        """A doctor check's verdict (PASS, WARN, FAIL, SKIP)."""
        text = str(status or "")
        return zh.CHECK_STATUS.get(text, self.quote(text)) if self.zh else text

    def check(self, row: Mapping[str, Any], key: str) -> str:
        """A doctor check's name, evidence or hint: the check's own Chinese when it has it, else a title or
        hint this module knows, else the English, quoted."""
        english = str(row.get(key) or "")
        if not self.zh:
            return english
        own = row.get("zh")
        if isinstance(own, Mapping) and isinstance(own.get(key), str) and own[key].strip():
            return own[key]
        if key == "name":
            title = zh.CHECK_TITLES.get(str(row.get("id") or "")) or zh.CHECK_TITLES.get(_TITLE_IDS.get(english, ""))
            if title:
                return title
        if key == "hint":
            return self.hint(english)
        return self.quote(english)

    def hint(self, text: Any) -> str:
        """One of ``workloads.hints``' pieces of advice (with the pointer to the doctor, or not)."""
        english = str(text or "")
        if not self.zh or not english:
            return english
        advice, pointer, _rest = english.partition(_DOCTOR_POINTER)
        said = zh.HINTS.get(advice.strip().rstrip("."))
        if said is None:
            return self.quote(english)
        return said + ("；`cardbench doctor` 会说明 torch 看到了什么以及原因" if pointer else "")

    def warning(self, warning: Mapping[str, Any]) -> str:
        """A workload's warning: its message, and in Chinese what its code means before the quoted message."""
        message = str(warning.get("message") or "")
        meaning = zh.WARNINGS.get(str(warning.get("code") or ""))
        if not self.zh:
            return message
        return self("warning_known", meaning=meaning, message=self.quote(message)) if meaning else \
            self("warning_unknown", message=self.quote(message))

    def device(self, device: Any) -> str:
        """Where a run ran, as its start event says ('cpu (x86_64, 16 threads)', 'cuda:0 (NVIDIA H100)')."""
        text = str(device or "")
        if not self.zh or not text:
            return text
        m = _CPU_DEVICE.fullmatch(text.strip())
        if m:
            return self("cpu_device", arch=self.quote(m["arch"]), threads=m["threads"])
        return self.quote(text)

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
