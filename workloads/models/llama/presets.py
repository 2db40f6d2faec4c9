"""Llama-family shapes: the published models by name, and ``tiny`` for the CPU suite (torch-free).

Each preset copies the fields of the model's ``config.json`` on the Hugging Face Hub (the source is named
beside it), so a run of a preset with random weights moves the same bytes and FLOPs as the real model.
No torch here: argument checks and the fit estimate run before the slow import.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Llama3Rope:
    """Llama 3.1's rotary scaling ("rope_type": "llama3"), as in transformers' _compute_llama3_parameters."""
    factor: float = 8.0
    low_freq_factor: float = 1.0
    high_freq_factor: float = 4.0
    original_max_position_embeddings: int = 8192


@dataclass(frozen=True)
class LlamaConfig:
    """One decoder's shape; the field names follow transformers' LlamaConfig where it has them."""
    family: str = "llama"          # llama, qwen2, qwen3, mistral: the model_type of config.json
    vocab_size: int = 32000
    hidden_size: int = 4096
    intermediate_size: int = 11008
    num_hidden_layers: int = 32
    num_attention_heads: int = 32
    num_key_value_heads: int = 32
    head_dim_override: int | None = None   # Qwen3 states head_dim apart from hidden / heads
    max_position_embeddings: int = 4096
    rope_theta: float = 10000.0
    rope_scaling: Llama3Rope | None = None
    rms_norm_eps: float = 1e-5
    tie_word_embeddings: bool = False
    attention_bias: bool = False   # q/k/v projections carry a bias (Qwen 2.x)
    qk_norm: bool = False          # RMSNorm over each head of q and k before rotary (Qwen 3)

    @property
    def head_dim(self) -> int:
        return self.head_dim_override or self.hidden_size // self.num_attention_heads

    @property
    def n_rep(self) -> int:
        """Query heads per key/value head (grouped-query attention)."""
        return self.num_attention_heads // self.num_key_value_heads

    def parameter_count(self) -> int:
        """Parameters the model holds (the tied head counted once), from the shapes alone."""
        d, hd, layers = self.hidden_size, self.head_dim, self.num_hidden_layers
        q, kv = self.num_attention_heads * hd, self.num_key_value_heads * hd
        attention = d * (q + 2 * kv) + q * d + ((q + 2 * kv) if self.attention_bias else 0)
        attention += 2 * hd if self.qk_norm else 0
        mlp = 3 * d * self.intermediate_size
        per_layer = attention + mlp + 2 * d
        embeddings = self.vocab_size * d * (1 if self.tie_word_embeddings else 2)
        return embeddings + layers * per_layer + d

    def kv_bytes_per_token(self, element_size: int) -> int:
        """Bytes of keys and values one position holds over all layers."""
        return 2 * self.num_hidden_layers * self.num_key_value_heads * self.head_dim * element_size


PRESETS: dict[str, LlamaConfig] = {
    # huggingface.co/meta-llama/Llama-3.2-1B/blob/main/config.json
    "Llama-3.2-1B": LlamaConfig(
        family="llama", vocab_size=128256, hidden_size=2048, intermediate_size=8192, num_hidden_layers=16,
        num_attention_heads=32, num_key_value_heads=8, max_position_embeddings=131072, rope_theta=500000.0,
        rope_scaling=Llama3Rope(factor=32.0), rms_norm_eps=1e-5, tie_word_embeddings=True),
    # huggingface.co/meta-llama/Llama-3.1-8B/blob/main/config.json
    "Llama-3.1-8B": LlamaConfig(
        family="llama", vocab_size=128256, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=8, max_position_embeddings=131072, rope_theta=500000.0,
        rope_scaling=Llama3Rope(factor=8.0), rms_norm_eps=1e-5),
    # huggingface.co/Qwen/Qwen2.5-0.5B/blob/main/config.json
    "Qwen2.5-0.5B": LlamaConfig(
        family="qwen2", vocab_size=151936, hidden_size=896, intermediate_size=4864, num_hidden_layers=24,
        num_attention_heads=14, num_key_value_heads=2, max_position_embeddings=32768, rope_theta=1000000.0,
        rms_norm_eps=1e-6, tie_word_embeddings=True, attention_bias=True),
    # huggingface.co/Qwen/Qwen2.5-7B-Instruct/blob/main/config.json (the context its card states, 32768)
    "Qwen2.5-7B": LlamaConfig(
        family="qwen2", vocab_size=152064, hidden_size=3584, intermediate_size=18944, num_hidden_layers=28,
        num_attention_heads=28, num_key_value_heads=4, max_position_embeddings=32768, rope_theta=1000000.0,
        rms_norm_eps=1e-6, attention_bias=True),
    # huggingface.co/Qwen/Qwen3-8B/blob/main/config.json
    "Qwen3-8B": LlamaConfig(
        family="qwen3", vocab_size=151936, hidden_size=4096, intermediate_size=12288, num_hidden_layers=36,
        num_attention_heads=32, num_key_value_heads=8, head_dim_override=128, max_position_embeddings=40960,
        rope_theta=1000000.0, rms_norm_eps=1e-6, qk_norm=True),
    # huggingface.co/mistralai/Mistral-7B-v0.3/blob/main/config.json (no sliding window from v0.2 on)
    "Mistral-7B": LlamaConfig(
        family="mistral", vocab_size=32768, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=8, max_position_embeddings=32768, rope_theta=1000000.0,
        rms_norm_eps=1e-5),
    # the CPU suite's shape: GQA (8 query heads on 2), Llama-3 scaled rotary and untied embeddings in 19.7M
    # parameters (79 MB in fp32), so the weights a decode step reads dwarf the process's own noise in RSS
    # and the fit estimate can be checked against the peak measured
    "tiny": LlamaConfig(
        family="llama", vocab_size=8192, hidden_size=512, intermediate_size=1408, num_hidden_layers=4,
        num_attention_heads=8, num_key_value_heads=2, max_position_embeddings=4096, rope_theta=500000.0,
        rope_scaling=Llama3Rope(factor=8.0, original_max_position_embeddings=1024), rms_norm_eps=1e-5),
}


def known_models() -> str:
    """The presets' names, for an argument's help and an unknown name's error."""
    return ", ".join(PRESETS)


def preset(name: str) -> LlamaConfig | None:
    """The preset called ``name`` (case-insensitive), or None."""
    for key, config in PRESETS.items():
        if key.lower() == name.lower():
            return config
    return None


def preset_name(config: LlamaConfig) -> str:
    """The preset a config matches, or 'custom'."""
    for name, known in PRESETS.items():
        if known == config:
            return name
    return "custom"

