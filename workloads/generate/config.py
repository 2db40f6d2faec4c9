"""GPT-2 shapes: the released sizes, and a Hugging Face config.json read into one.

No torch here, so argument parsing and input checks run before the slow import.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from workloads.child.harness import WorkloadError


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
    except (OSError, ValueError) as exc:
        raise WorkloadError(f"cannot read {path}: {exc}", hint="the file must be a Hugging Face config.json") from None
    if not isinstance(data, dict):
        raise WorkloadError(f"{path} is not a JSON object", hint="the file must be a Hugging Face config.json")
    model_type = data.get("model_type")
    if model_type not in (None, "gpt2"):
        raise WorkloadError(f"{path} describes a {model_type!r} model, not GPT-2",
                            hint="--weights takes a Hugging Face GPT-2 directory (gpt2, gpt2-medium, -large, -xl)")
    try:
        config = GPT2Config(
            n_layer=int(data["n_layer"]), n_head=int(data["n_head"]), n_embd=int(data["n_embd"]),
            n_ctx=int(data.get("n_positions", data.get("n_ctx", 1024))),
            vocab_size=int(data["vocab_size"]), eps=float(data.get("layer_norm_epsilon", 1e-5)),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise WorkloadError(f"{path} lacks a usable GPT-2 field: {exc}",
                            hint="expected n_layer, n_head, n_embd, n_positions, vocab_size") from None
    if config.n_embd % config.n_head:
        raise WorkloadError(f"{path}: n_embd {config.n_embd} is not a multiple of n_head {config.n_head}")
    return config
