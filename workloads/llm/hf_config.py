"""A Hugging Face ``config.json`` of a Llama-family model read into a :class:`LlamaConfig` (torch-free).

The families and what each implies, from transformers' configuration_* and modeling_* files: llama
and mistral (attention_bias as stated, default off), qwen2 (q/k/v bias always), qwen3 (q/k norm
always, head_dim stated). Rotary settings are read from ``rope_scaling`` / ``rope_theta`` (transformers
4) or ``rope_parameters`` (transformers 5); only the default and Llama 3 rotary are implemented, so any
other ``rope_type`` is refused by name rather than run wrong.
"""

from __future__ import annotations

import json
from pathlib import Path

from workloads.child.harness import WorkloadError
from workloads.errors import first_line
from workloads.llm.presets import Llama3Rope, LlamaConfig

FAMILIES = ("llama", "mistral", "qwen2", "qwen3")
HINT = "--weights takes a Hugging Face directory of a Llama, Mistral, Qwen2 or Qwen3 model (config.json beside it)"


def read_config(directory: Path) -> LlamaConfig:
    path = directory / "config.json"
    if not directory.is_dir():
        raise WorkloadError(f"--weights {directory}: not a directory", hint=HINT)
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError, RecursionError) as exc:
        raise WorkloadError(f"cannot read {path}: {first_line(exc, typed=True)}", hint=HINT) from None
    if not isinstance(data, dict):
        raise WorkloadError(f"{path} is not a JSON object", hint=HINT)
    family = data.get("model_type")
    if family not in FAMILIES:
        raise WorkloadError(f"{path} describes a {family!r} model, not one of {', '.join(FAMILIES)}", hint=HINT)
    if data.get("mlp_bias"):
        raise WorkloadError(f"{path}: mlp_bias is set; the Llama-family MLP here has no bias", hint=HINT)
    if family == "mistral" and data.get("sliding_window"):
        raise WorkloadError(f"{path}: sliding_window {data['sliding_window']} (Mistral v0.1) is not implemented",
                            hint="Mistral-7B v0.2 and later attend over the whole context (sliding_window null)")
    heads = _whole(data, "num_attention_heads", path)
    rope = data.get("rope_parameters") if isinstance(data.get("rope_parameters"), dict) else None
    scaling = rope if rope is not None else data.get("rope_scaling")
    theta = (rope or {}).get("rope_theta", data.get("rope_theta", 10000.0))
    head_dim = data.get("head_dim")
    return LlamaConfig(
        family=family,
        vocab_size=_whole(data, "vocab_size", path),
        hidden_size=_whole(data, "hidden_size", path),
        intermediate_size=_whole(data, "intermediate_size", path),
        num_hidden_layers=_whole(data, "num_hidden_layers", path),
        num_attention_heads=heads,
        num_key_value_heads=_whole(data, "num_key_value_heads", path, default=heads),
        head_dim_override=head_dim if isinstance(head_dim, int) and head_dim != data["hidden_size"] // heads else None,
        max_position_embeddings=_whole(data, "max_position_embeddings", path, default=2048),
        rope_theta=float(theta),
        rope_scaling=_rope(scaling, path),
        rms_norm_eps=float(data.get("rms_norm_eps", 1e-6)),
        tie_word_embeddings=bool(data.get("tie_word_embeddings", False)),  # every family defaults to untied
        attention_bias=True if family == "qwen2" else bool(data.get("attention_bias", False)),
        qk_norm=family == "qwen3",
    )


def _rope(scaling: object, path: Path) -> Llama3Rope | None:
    if not isinstance(scaling, dict):
        return None
    kind = scaling.get("rope_type", scaling.get("type", "default"))
    if kind == "default":
        return None
    if kind != "llama3":
        raise WorkloadError(f"{path}: rotary scaling {kind!r} is not implemented (only default and llama3)", hint=HINT)
    try:
        return Llama3Rope(factor=float(scaling["factor"]), low_freq_factor=float(scaling["low_freq_factor"]),
                          high_freq_factor=float(scaling["high_freq_factor"]),
                          original_max_position_embeddings=int(scaling["original_max_position_embeddings"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise WorkloadError(f"{path}: llama3 rope scaling lacks {first_line(exc)}", hint=HINT) from None


def _whole(data: dict, key: str, path: Path, default: int | None = None) -> int:
    if key not in data or data[key] is None:
        if default is not None:
            return default
        raise WorkloadError(f"{path} lacks {key}", hint=HINT)
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise WorkloadError(f"{path}: {key} is {json.dumps(value)[:40]}, not a whole number of 1 or more", hint=HINT)
    return value
