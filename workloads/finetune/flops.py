"""Model FLOPs per token, MFU and the memory fit of a fine-tuning step, from the model's shape (torch-free).

FLOPs follow PaLM (Chowdhery et al. 2022, arXiv:2204.02311, appendix B): a token of training costs
``6N + 12·L·H·Q·T`` matmul FLOPs, N the parameters of the matrix products, L layers, H heads, Q the
head dimension, T the sequence length; 6N is 2N forward, 2N for the activations' gradients and 2N
for the weights' gradients. LoRA computes every gradient of the activations but only the adapters'
weight gradients, so its cost is ``4N + 2·N_trainable + 12·L·H·Q·T`` (N including the adapters).
Recomputation under activation checkpointing is not counted: MFU counts the model's FLOPs, not the
hardware's (PaLM's point in defining it).

N leaves out an untied input embedding (a lookup, no product); a tied table is the logits head and counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from workloads.models.llama import fit
from workloads.models.llama.presets import LlamaConfig

# the model's products a LoRA adapter can wrap (workloads/models/llama/model.py): q, k, v are one product, as gate
# and up
TARGETS = ("qkv", "o_proj", "gate_up", "down_proj")
GRADIENT_BYTES = 4  # gradients of the fp32 master weights are fp32


def product_shapes(config: LlamaConfig) -> dict[str, tuple[int, int]]:
    """(in, out) of each target product of one layer."""
    d, f = config.hidden_size, config.intermediate_size
    q = config.num_attention_heads * config.head_dim
    kv = config.num_key_value_heads * config.head_dim
    return {"qkv": (d, q + 2 * kv), "o_proj": (q, d), "gate_up": (d, 2 * f), "down_proj": (f, d)}


def adapter_parameters(config: LlamaConfig, rank: int, targets: tuple[str, ...]) -> int:
    """A (r x in) and B (out x r) on every targeted product of every layer."""
    shapes = product_shapes(config)
    return config.num_hidden_layers * sum(rank * (n_in + n_out) for name, (n_in, n_out) in shapes.items()
                                          if name in targets)


def matmul_parameters(config: LlamaConfig) -> int:
    """N of PaLM's formula: every parameter but an untied input embedding table."""
    lookup = 0 if config.tie_word_embeddings else config.vocab_size * config.hidden_size
    return config.parameter_count() - lookup


@dataclass(frozen=True)
class Flops:
    per_token: float
    formula: str


def per_token(config: LlamaConfig, seq_len: int, mode: str, trainable: int = 0) -> Flops:
    """Training FLOPs of one token at ``seq_len`` (PaLM appendix B), with the formula filled in as text."""
    n = matmul_parameters(config) + (trainable if mode == "lora" else 0)
    L, H, Q, T = config.num_hidden_layers, config.num_attention_heads, config.head_dim, seq_len
    attention = 12 * L * H * Q * T
    if mode == "lora":
        total = 4 * n + 2 * trainable + attention
        formula = (f"4N + 2N_trainable + 12·L·H·Q·T = 4·{n:,} + 2·{trainable:,} + 12·{L}·{H}·{Q}·{T} "
                   f"= {total:,} FLOP/token (PaLM appendix B; LoRA: weight gradients of the adapters only)")
    else:
        total = 6 * n + attention
        formula = f"6N + 12·L·H·Q·T = 6·{n:,} + 12·{L}·{H}·{Q}·{T} = {total:,} FLOP/token (PaLM appendix B)"
    return Flops(float(total), formula)


def mfu(tokens_per_s_per_device: float | None, flops_per_token: float, rated_tflops: float | None) -> float | None:
    if not tokens_per_s_per_device or not rated_tflops:
        return None
    return tokens_per_s_per_device * flops_per_token / (rated_tflops * 1e12)


def frozen_in_bf16(mode: str, amp: str) -> bool:
    """LoRA under bf16 autocast holds its frozen base in bf16 (lora.hold_frozen_in): its weights never update."""
    return mode == "lora" and amp == "bf16"


def held_weight_bytes(config: LlamaConfig, mode: str, amp: str, rank: int, targets: tuple[str, ...]) -> int:
    """Bytes of the parameters the model holds: fp32 (the master copy autocast reads), but a LoRA base in bf16
    under bf16 autocast; LoRA's adapters are fp32 on top."""
    adapters = adapter_parameters(config, rank, targets) if mode == "lora" else 0
    return config.parameter_count() * (2 if frozen_in_bf16(mode, amp) else 4) + adapters * 4


def step_memory(config: LlamaConfig, batch: int, seq_len: int, amp: str, mode: str, checkpointing: bool,
                rank: int, targets: tuple[str, ...]) -> fit.Estimate:
    """Bytes one device holds for a step of ``batch`` sequences (``amp``: off, fp16 or bf16): the weights as held
    (:func:`held_weight_bytes`) and the 16-bit copies autocast makes of fp32 ones for the step, fp32 gradients and
    AdamW moments of what trains, activations in the autocast dtype (workloads.models.llama.fit's)."""
    trained = config.parameter_count() if mode == "full" else adapter_parameters(config, rank, targets)
    weights = held_weight_bytes(config, mode, amp, rank, targets)
    autocast = amp != "off"
    # autocast keeps a 16-bit copy of each fp32 weight for the step; a base already in bf16 is read as it is
    cast = (trained if frozen_in_bf16(mode, amp) else config.parameter_count()) * 2 if autocast else 0
    activations = fit.training(config, batch, seq_len, 2 if autocast else 4, "full", checkpointing).activations
    return fit.Estimate(weights=weights + cast, activations=activations, gradients=trained * GRADIENT_BYTES,
                        optimizer=trained * fit.ADAMW_STATE_BYTES)


def largest_batch(fits_in: int, estimate_at: Callable[[int], int]) -> int:
    """The largest batch whose ``estimate_at(batch)`` bytes are at most ``fits_in`` (0: not even one)."""
    if estimate_at(1) > fits_in:
        return 0
    low, high = 1, 2
    while estimate_at(high) <= fits_in and high < 1 << 20:
        low, high = high, high * 2
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if estimate_at(mid) <= fits_in else (low, mid)
    return low
