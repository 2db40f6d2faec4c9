"""A Hugging Face ``config.json`` of a Llama-family model read into a :class:`LlamaConfig` (torch-free).

The families and what each implies, from transformers' configuration_* and modeling_* files: llama
and mistral (attention_bias as stated, default off), qwen2 (q/k/v bias always), qwen3 (q/k norm
always, head_dim stated). Rotary settings are read from ``rope_scaling`` / ``rope_theta`` (transformers
4) or ``rope_parameters`` (transformers 5); only the default and Llama 3 rotary are implemented, so any
other ``rope_type`` is refused by name rather than run wrong.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from workloads.child.harness import WorkloadError
from workloads.errors import clipped, first_line
from workloads.models.llama.presets import Llama3Rope, LlamaConfig

FAMILIES = ("llama", "mistral", "qwen2", "qwen3")
HINT = "--weights takes a Hugging Face directory of a Llama, Mistral, Qwen2 or Qwen3 model (config.json beside it)"


# a Llama-family config.json is a few KB; one larger is not a model's config, and is refused before it is read
MAX_CONFIG_BYTES = 4 * 2**20


def config_path(directory: Path) -> Path:
    """The checkpoint's config.json, the file a refusal names."""
    return directory / "config.json"


def read_config(directory: Path) -> LlamaConfig:
    path = config_path(directory)
    if not directory.is_dir():
        raise WorkloadError(f"--weights {directory}: not a directory", hint=HINT)
    data = _read_json(path)
    family = data.get("model_type")
    if family not in FAMILIES:
        raise WorkloadError(f"{path} describes a {clipped(repr(family))} model, not one of {', '.join(FAMILIES)}",
                            hint=HINT)
    if data.get("mlp_bias"):
        raise WorkloadError(f"{path}: mlp_bias is set; the Llama-family MLP here has no bias", hint=HINT)
    if family == "mistral" and data.get("sliding_window"):
        raise WorkloadError(f"{path}: sliding_window {_shown(data['sliding_window'])} (Mistral v0.1) is not "
                            "implemented", hint="Mistral-7B v0.2 and later attend over the whole context "
                                                "(sliding_window null)")
    heads = _whole(data, "num_attention_heads", path)
    rope = data.get("rope_parameters") if isinstance(data.get("rope_parameters"), dict) else None
    scaling = rope if rope is not None else data.get("rope_scaling")
    theta = (rope or {}).get("rope_theta", data.get("rope_theta", 10000.0))
    config = LlamaConfig(
        family=family,
        vocab_size=_whole(data, "vocab_size", path),
        hidden_size=_whole(data, "hidden_size", path),
        intermediate_size=_whole(data, "intermediate_size", path),
        num_hidden_layers=_whole(data, "num_hidden_layers", path),
        num_attention_heads=heads,
        num_key_value_heads=_whole(data, "num_key_value_heads", path, default=heads),
        head_dim_override=_head_dim(data, heads, path),
        max_position_embeddings=_whole(data, "max_position_embeddings", path, default=2048),
        rope_theta=_positive(theta, "rope_theta", f"{path}:"),
        rope_scaling=_rope(scaling, path),
        rms_norm_eps=_positive(data.get("rms_norm_eps", 1e-6), "rms_norm_eps", f"{path}:", most=1.0),
        tie_word_embeddings=_flag(data, "tie_word_embeddings", path),  # every family defaults to untied
        attention_bias=True if family == "qwen2" else _flag(data, "attention_bias", path),
        qk_norm=family == "qwen3",
    )
    _check_heads(config, path)
    return config


def _read_json(path: Path) -> dict:
    """config.json as a dict: a regular file (a FIFO would hang the open, /dev/zero never end) of a config's size."""
    try:
        if not path.is_file():
            raise WorkloadError(f"{path} is not a regular file" if path.exists() else f"{path} is missing",
                                hint=HINT)
        size = path.stat().st_size
        if size > MAX_CONFIG_BYTES:
            raise WorkloadError(f"{path} is {size:,} bytes, more than a model's config.json "
                                f"({MAX_CONFIG_BYTES:,} at most)", hint=HINT)
        with path.open("rb") as f:
            data = json.loads(f.read(MAX_CONFIG_BYTES + 1))
    except (OSError, ValueError, RecursionError) as exc:
        raise WorkloadError(f"cannot read {path}: {first_line(exc, typed=True, limit=200)}", hint=HINT) from None
    if not isinstance(data, dict):
        raise WorkloadError(f"{path} is not a JSON object", hint=HINT)
    return data


def _rope(scaling: object, path: Path) -> Llama3Rope | None:
    if not isinstance(scaling, dict):
        return None
    kind = scaling.get("rope_type", scaling.get("type", "default"))
    if kind == "default":
        return None
    if kind != "llama3":
        raise WorkloadError(f"{path}: rotary scaling {clipped(repr(kind))} is not implemented (only default and "
                            "llama3)", hint=HINT)
    where = f"{path}: llama3 rope scaling:"
    for key in ("factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"):
        if key not in scaling:
            raise WorkloadError(f"{path}: llama3 rope scaling lacks {key}", hint=HINT)
    rope = Llama3Rope(factor=_positive(scaling["factor"], "factor", where),
                      low_freq_factor=_positive(scaling["low_freq_factor"], "low_freq_factor", where),
                      high_freq_factor=_positive(scaling["high_freq_factor"], "high_freq_factor", where),
                      original_max_position_embeddings=_whole(scaling, "original_max_position_embeddings", path,
                                                              where=where))
    # the frequencies between the two wavelengths are interpolated over high - low: equal factors divide by zero
    # (every such frequency NaN), and high below low inverts the bands (model.py beside this, inverse_frequencies)
    if rope.high_freq_factor <= rope.low_freq_factor:
        raise WorkloadError(f"{where} high_freq_factor {rope.high_freq_factor} is not above low_freq_factor "
                            f"{rope.low_freq_factor}", hint="Llama 3.1 states 1.0 and 4.0: " + HINT)
    return rope


def _shown(value: object) -> str:
    """A value from the file as JSON writes it, its start and length when long (a 400-digit number)."""
    return clipped(json.dumps(value))


def _whole(data: dict, key: str, path: Path, default: int | None = None, where: str | None = None) -> int:
    if key not in data or data[key] is None:
        if default is not None:
            return default
        raise WorkloadError(f"{path} lacks {key}", hint=HINT)
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise WorkloadError(f"{where or f'{path}:'} {key} is {_shown(value)}, not a whole number of 1 or more",
                            hint=HINT)
    return value


def _positive(value: object, key: str, where: str, most: float | None = None) -> float:
    """A finite number above 0 (and at most ``most``): "abc", [1, 2], true, 1e400 (inf in JSON), 10**400 (an int no
    float holds) and 0 are refused. rope_theta 0 makes every rotary frequency infinite, eps 0 a norm of a zero row
    NaN."""
    number = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            number = float(value)
        except OverflowError:
            pass
    if number is None or not math.isfinite(number) or number <= 0 or (most is not None and number > most):
        bound = f"above 0 and at most {most:g}" if most is not None else "above 0"
        raise WorkloadError(f"{where} {key} is {_shown(value)}, not a number {bound}", hint=HINT)
    return number


def _flag(data: dict, key: str, path: Path) -> bool:
    """true or false (absent or null: false); the text "false" would be true to bool()."""
    value = data.get(key)
    if value is None or isinstance(value, bool):
        return bool(value)
    raise WorkloadError(f"{path}: {key} is {_shown(value)}, not true or false", hint=HINT)


def _head_dim(data: dict, heads: int, path: Path) -> int | None:
    """A stated head_dim (Qwen3), None where it is hidden / heads already or absent; rotate-half needs it even."""
    value = data.get("head_dim")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 2 or value % 2:
        raise WorkloadError(f"{path}: head_dim is {_shown(value)}, not an even whole number of 2 or more", hint=HINT)
    return None if value == data["hidden_size"] // heads else value


def _check_heads(config: LlamaConfig, path: Path) -> None:
    """Heads that attention can use: an even head of 2 or more, query heads in whole groups a key head."""
    heads, kv = config.num_attention_heads, config.num_key_value_heads
    if config.head_dim_override is None and (config.head_dim < 2 or config.head_dim % 2):
        raise WorkloadError(f"{path}: hidden_size {config.hidden_size} / num_attention_heads {heads} is a head of "
                            f"{config.head_dim}, not an even whole number of 2 or more", hint=HINT)
    if heads % kv:
        raise WorkloadError(f"{path}: num_attention_heads {heads} is not a multiple of num_key_value_heads {kv}",
                            hint=HINT)
