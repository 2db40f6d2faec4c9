"""Which settings two runs of a workload must share for their figures to be compared, and which differ.

A figure measured at 64 px is not one measured at 224 px, nor batch 8 batch 128, nor bf16 fp32: such
runs are refused with the differences named (``--allow-different`` compares them anyway, and the
comparison says so). Precision is what the run ended in (a run that fell back to fp32 ran fp32).
Other settings (the device, which is the point, channels-last, compile, the torch version) may
differ; they are shown as columns only where they do, as compare-llama-bench does.

The settings are read by key from each run's result and start config, not by workload, so a new
workload's runs are checked by the same keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from tui.compare.load import RunFigures


@dataclass(frozen=True)
class Setting:
    key: str
    en: str
    zh: str
    read: Callable[[RunFigures], Any]

    def label(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en


def _key(key: str, default: Any = None) -> Callable[[RunFigures], Any]:
    def read(run: RunFigures) -> Any:
        s = run.summary
        value = s.metrics.get(key, s.config.get(key))
        return default if value is None else value
    return read


def _data_kind(run: RunFigures) -> Any:
    """synthetic / fake / a folder: two machines hold the same data set under other paths."""
    config = run.summary.config
    if "data" not in config:
        return None
    data = config.get("data")
    return "synthetic" if data in (None, "synthetic") else "fake" if data == "fake" else "image folder"


def _precision(run: RunFigures) -> Any:
    value = run.summary.precision
    return value.split(" (")[0] if isinstance(value, str) else value  # "bf16 (fp32: BatchNorm2d)" ran bf16


# must match: a difference here changes what is measured
MUST_MATCH: tuple[Setting, ...] = (
    Setting("image_size", "image size", "图像尺寸", _key("image_size")),
    Setting("batch_size", "batch size", "批大小", lambda r: r.summary.batch_size),
    Setting("precision", "precision", "精度", _precision),
    Setting("model_size", "model size", "模型规模", _key("model_size")),
    Setting("tokens", "new tokens", "生成 token 数", _key("tokens")),
    Setting("prompt_len", "prompt length", "提示长度", _key("prompt_len")),
    Setting("world_size", "processes", "进程数", _key("world_size", 1)),
    Setting("data", "data", "数据", _data_kind),
    # a serving benchmark (workloads/serve): the same model behind the same API, asked the same lengths at the same load
    Setting("served_model", "served model", "服务的模型", _key("served_model")),
    Setting("endpoint", "endpoint", "接口", _key("endpoint")),
    Setting("input_len", "input tokens", "输入 token 数", _key("input_len")),
    Setting("output_len", "output tokens", "输出 token 数", _key("output_len")),
    Setting("concurrency", "concurrency levels", "并发档位", _key("concurrency")),
    Setting("request_rate", "request rates", "请求速率档位", _key("request_rate")),
    # LLM readiness (workloads/llm): the same sweep's lists, and llama-bench's pp/tg lengths
    Setting("sweep", "sweep (input x output x batch)", "扫描（输入 x 输出 x 批）", _key("sweep")),
    Setting("pp", "pp tokens", "pp token 数", _key("pp")),
    Setting("tg", "tg tokens", "tg token 数", _key("tg")),
    # fine-tuning (workloads/finetune): full weights or adapters, and the tokens of a sequence
    Setting("mode", "fine-tuning mode", "微调方式", _key("mode")),
    Setting("seq_len", "sequence length", "序列长度", _key("seq_len")),
)

# may differ: shown as a column where they do
SHOWN: tuple[Setting, ...] = (
    Setting("device", "device", "设备", lambda r: r.summary.device),
    Setting("channels_last", "channels-last", "channels-last", _key("channels_last")),
    Setting("compile", "compile", "编译", _key("compiled", None)),
    Setting("cuda_graphs", "CUDA graphs", "CUDA graphs", _key("cuda_graphs")),
    Setting("torch", "torch", "torch", lambda r: r.summary.versions.get("torch")),
)


@dataclass(frozen=True)
class Difference:
    setting: Setting
    values: tuple[Any, ...]  # per side, in order; None where a side does not say

    def words(self, labels: Sequence[str], lang: str = "en") -> str:
        """'image size 64 (A) vs 224 (B)'; in Chinese '图像尺寸 64（A）对 224（B）'."""
        if lang == "zh":
            return f"{self.setting.label(lang)} " + " 对 ".join(f"{_show(v)}（{label}）"
                                                               for v, label in zip(self.values, labels))
        parts = [f"{_show(v)} ({label})" for v, label in zip(self.values, labels)]
        return f"{self.setting.label(lang)} " + " vs ".join(parts)


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return "n/a" if value is None else str(value)


def differences(runs: Sequence[RunFigures], settings: Sequence[Setting] = MUST_MATCH) -> list[Difference]:
    """The settings whose stated values are not all the same; a run that does not state one (an older
    bundle, a published figure) is not counted as different."""
    found = []
    for setting in settings:
        values = tuple(setting.read(r) for r in runs)
        if len({repr(v) for v in values if v is not None}) > 1:
            found.append(Difference(setting, values))
    return found
