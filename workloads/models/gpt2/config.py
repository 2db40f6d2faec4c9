"""GPT-2 shapes: the released sizes, and a Hugging Face config.json read into one.

No torch here, so argument parsing and input checks run before the slow import.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from workloads.child.harness import WorkloadError
from workloads.errors import first_line


@dataclass(frozen=True)
class GPT2Config:
    n_layer: int = 12
    n_head: int = 12
    n_embd: int = 768
    n_ctx: int = 1024
    vocab_size: int = 50257
    eps: float = 1e-5

    @property
    def head_dim(self) -> int:
        return self.n_embd // self.n_head


# the released GPT-2 shapes, by parameter count; "tiny" is a test shape
SIZES: dict[str, GPT2Config] = {
    "124M": GPT2Config(n_layer=12, n_head=12, n_embd=768),
    "355M": GPT2Config(n_layer=24, n_head=16, n_embd=1024),
    "774M": GPT2Config(n_layer=36, n_head=20, n_embd=1280),
    "1.5B": GPT2Config(n_layer=48, n_head=25, n_embd=1600),
    "tiny": GPT2Config(n_layer=2, n_head=2, n_embd=32, n_ctx=64, vocab_size=101),
}


def size_name(config: GPT2Config) -> str:
    """The preset a config matches, or 'custom'."""
    for name, preset in SIZES.items():
        if preset == config:
            return name
    return "custom"


def read_config(directory: Path) -> GPT2Config | None:
    """The shape from ``config.json``, or None when the directory has none."""
    path = directory / "config.json"
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError, RecursionError) as exc:
        raise WorkloadError(f"cannot read {path}: {first_line(exc, typed=True)}",
                            hint="the file must be a Hugging Face config.json") from None
    if not isinstance(data, dict):
        raise WorkloadError(f"{path} is not a JSON object", hint="the file must be a Hugging Face config.json")
    model_type = data.get("model_type")
    if model_type not in (None, "gpt2"):
        raise WorkloadError(f"{path} describes a {model_type!r} model, not GPT-2",
                            hint="--weights takes a Hugging Face GPT-2 directory (gpt2, gpt2-medium, -large, -xl)")
    hint = "expected a Hugging Face GPT-2 config.json: n_layer, n_head, n_embd, n_positions, vocab_size"
    context = "n_positions" if "n_positions" in data or "n_ctx" not in data else "n_ctx"
    config = GPT2Config(
        n_layer=_whole(data, "n_layer", path, hint), n_head=_whole(data, "n_head", path, hint),
        n_embd=_whole(data, "n_embd", path, hint), n_ctx=_whole(data, context, path, hint, default=1024),
        vocab_size=_whole(data, "vocab_size", path, hint), eps=_epsilon(data, path, hint),
    )
    if config.n_embd % config.n_head:
        raise WorkloadError(f"{path}: n_embd {config.n_embd} is not a multiple of n_head {config.n_head}", hint=hint)
    return config


def _whole(data: dict, key: str, path: Path, hint: str, default: int | None = None) -> int:
    """A shape field: a whole number of 1 or more (0 heads divides by zero, -2 layers is torch's raw error)."""
    if key not in data and default is not None:
        return default
    if key not in data:
        raise WorkloadError(f"{path} lacks {key}", hint=hint)
    value = data[key]
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise WorkloadError(f"{path}: {key} is {_shown(value)}, not a whole number of 1 or more", hint=hint)
    return value


def _epsilon(data: dict, path: Path, hint: str) -> float:
    value = data.get("layer_norm_epsilon", 1e-5)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (0 < value < 1):
        raise WorkloadError(f"{path}: layer_norm_epsilon is {_shown(value)}, not a number between 0 and 1",
                            hint=hint)
    return float(value)


def _shown(value: object) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."
