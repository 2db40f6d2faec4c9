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
from tui.i18n import say
from workloads.facts.missing import NA


@dataclass(frozen=True)
class Setting:
    key: str
    read: Callable[[RunFigures], Any]

    def label(self, lang: str) -> str:
        """The setting's name: the catalogue's ``compare.setting.<key>``."""
        return say(f"compare.setting.{self.key}", lang)


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
    Setting("image_size", _key("image_size")),
    Setting("batch_size", lambda r: r.summary.batch_size),
    Setting("precision", _precision),
    Setting("model_size", _key("model_size")),
    Setting("tokens", _key("tokens")),
    Setting("prompt_len", _key("prompt_len")),
    Setting("world_size", _key("world_size", 1)),
    Setting("data", _data_kind),
    # a serving benchmark (workloads/serve): the same model behind the same API, asked the same lengths at the same load
    Setting("served_model", _key("served_model")),
    Setting("endpoint", _key("endpoint")),
    Setting("input_len", _key("input_len")),
    Setting("output_len", _key("output_len")),
    Setting("concurrency", _key("concurrency")),
    Setting("request_rate", _key("request_rate")),
    # LLM readiness (workloads/llm): the same sweep's lists, and llama-bench's pp/tg lengths
    Setting("sweep", _key("sweep")),
    Setting("pp", _key("pp")),
    Setting("tg", _key("tg")),
    # fine-tuning (workloads/finetune): full weights or adapters, and the tokens of a sequence
    Setting("mode", _key("mode")),
    Setting("seq_len", _key("seq_len")),
)

# may differ: shown as a column where they do
SHOWN: tuple[Setting, ...] = (
    Setting("device", lambda r: r.summary.device),
    Setting("channels_last", _key("channels_last")),
    Setting("compile", _key("compiled", None)),
    Setting("cuda_graphs", _key("cuda_graphs")),
    Setting("torch", lambda r: r.summary.versions.get("torch")),
    # a cold start's weights read from the storage or from memory (workloads/cold_start): its read phase differs
    Setting("cold_start_read", _key("cold_start_read_state")),
)


@dataclass(frozen=True)
class Difference:
    setting: Setting
    values: tuple[Any, ...]  # per side, in order; None where a side does not say

    def words(self, labels: Sequence[str], lang: str = "en") -> str:
        """'image size 64 (A) vs 224 (B)', in either language (compare.value_of and compare.vs)."""
        parts = [say("compare.value_of", lang, value=_show(v), side=label) for v, label in zip(self.values, labels)]
        return f"{self.setting.label(lang)} " + say("compare.vs", lang).join(parts)


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return NA if value is None else str(value)


def differences(runs: Sequence[RunFigures], settings: Sequence[Setting] = MUST_MATCH) -> list[Difference]:
    """The settings whose stated values are not all the same; a run that does not state one (an older
    bundle, a published figure) is not counted as different."""
    found = []
    for setting in settings:
        values = tuple(setting.read(r) for r in runs)
        if len({repr(v) for v in values if v is not None}) > 1:
            found.append(Difference(setting, values))
    return found
