"""The plan before a card is rented: will the model fit, how, on how many, and how fast at most (torch-free).

For each way of using the model (inference; LoRA and full fine-tuning, each with and without activation
checkpointing) the estimate of :mod:`workloads.models.llama.fit` and the runtime's lines of
:mod:`workloads.models.llama.runtime_cost` are read against each target: a card named from rated.csv, a size
(``--memory 32GB``) or this device's free memory now. Against each it says whether one card holds it and the
largest batch that does, or how many cards the work split evenly over them needs (weights, KV cache, gradients
and moments sharded; activations whole on each; the collectives' buffers on top). With a card's rated figures it
says the bounds no engine passes: decode at batch 1 reads every weight and the KV cache once a token, so tokens/s
is at most the rated bandwidth over those bytes (the roofline, Williams et al. 2009); prefill is at most the rated
peak over a token's FLOPs (2 a multiply-add of the products, and causal attention); and at ``price`` an hour, a
million tokens cost at least that price over the decode bound.

The result's keys (``fit``, ``fit_targets``, ``fit_context_bytes``...) are declared in
:mod:`workloads.models.llama.fit_record`; :mod:`workloads.models.llama.fit_table` prints them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from workloads.models.llama import fit
from workloads.models.llama.presets import LlamaConfig
from workloads.models.llama.runtime_cost import ALLOCATOR_SHARE, Runtime, runtime

# (the use's id, its English as the result carries it, method, activation checkpointing)
USES = (("inference", "inference", None, False),
        ("lora", f"train LoRA r{fit.LORA_RANK}", "lora", False),
        ("lora_checkpointing", f"train LoRA r{fit.LORA_RANK}, activation checkpointing", "lora", True),
        ("full", "train AdamW full", "full", False),
        ("full_checkpointing", "train AdamW full, activation checkpointing", "full", True))
MOST_CARDS = 1024
MOST_BATCH = 1 << 20
ACCELERATE_TRAINING = 4   # accelerate's estimate-memory: "Training using Adam" is 4x the weights (1 + 1 + 2)


@dataclass(frozen=True)
class Target:
    """What the plan is read against."""
    name: str
    kind: str                      # "card" (rated.csv), "size" (--memory), "free" (this device's free memory now)
    memory_bytes: int
    bandwidth_gbps: float | None = None
    peak_tflops: float | None = None
    peak_source: str | None = None
    memory_source: str | None = None
    cpu: bool = False              # the host's memory (a CPU run's): no driver context, a training step's own instead
    # what the memory's allocator keeps beside the live tensors, a share of them: a card's caching allocator's reserve;
    # 0 where every large allocation is returned on free (bench/fit_two_sided.py's --malloc live on the CPU)
    allocator_share: float = ALLOCATOR_SHARE

    @property
    def holds_context(self) -> bool:
        """Free memory read by a running process already lacks its context; a card's whole memory still holds it."""
        return self.kind != "free"


@dataclass(frozen=True)
class Ask:
    """The model and the shape of the work: ``batch`` sequences of ``context`` positions, prompts of ``prefill``."""
    config: LlamaConfig
    model: str
    dtype: str
    element_size: int
    batch: int
    context: int
    prefill: int


def estimate(ask: Ask, use: str, batch: int) -> fit.Estimate:
    method, checkpointing = _use(use)
    if method is None:
        return fit.inference(ask.config, batch, ask.context, ask.prefill, ask.element_size)
    return fit.training(ask.config, batch, ask.context, ask.element_size, method, checkpointing)


def _use(use: str) -> tuple[str | None, bool]:
    for key, _english, method, checkpointing in USES:
        if key == use:
            return method, checkpointing
    raise KeyError(use)


def need(ask: Ask, use: str, batch: int, context: bool, cards: int = 1, cpu: bool = False,
         allocator_share: float = ALLOCATOR_SHARE) -> tuple[fit.Estimate, Runtime]:
    """The estimate a card (``cpu``: the host) holds with the work split over ``cards``, and the runtime's lines beside
    it (the allocator's at ``allocator_share`` of the estimate)."""
    e = fit.split_over(estimate(ask, use, batch), cards, ask.config, batch, ask.context, ask.element_size)
    inference = _use(use)[0] is None
    return e, runtime(ask.config, e.total, batch=batch, element_size=ask.element_size, inference=inference,
                      context=context, cards=cards, cpu=cpu, allocator_share=allocator_share)


def _total(ask: Ask, use: str, batch: int, target: Target, cards: int = 1) -> int:
    e, r = need(ask, use, batch, target.holds_context, cards, target.cpu, target.allocator_share)
    return e.total + r.total


def largest(fits: Callable[[int], bool], most: int) -> int:
    """The largest n in 1..most with ``fits(n)`` (``fits`` true up to some n, false after), 0 when not even 1."""
    if not fits(1):
        return 0
    low, high = 1, most
    while low < high:
        mid = (low + high + 1) // 2
        low, high = (mid, high) if fits(mid) else (low, mid - 1)
    return low


def cards_needed(ask: Ask, use: str, target: Target) -> int | None:
    """The fewest cards of the target's memory that hold the work split evenly; None when no number does."""
    room = target.memory_bytes
    if _total(ask, use, ask.batch, target) <= room:
        return 1
    if _total(ask, use, ask.batch, target, MOST_CARDS) > room:
        return None
    low, high = 2, MOST_CARDS
    while low < high:
        mid = (low + high) // 2
        low, high = (low, mid) if _total(ask, use, ask.batch, target, mid) <= room else (mid + 1, high)
    return low


def verdict(ask: Ask, use: str, target: Target) -> dict[str, Any]:
    """One use against one target: whether one card holds it, the largest batch one card holds at the context,
    and the cards it needs."""
    room = target.memory_bytes
    return {"fits": _total(ask, use, ask.batch, target) <= room,
            "largest_batch": largest(lambda b: _total(ask, use, b, target) <= room, MOST_BATCH),
            "cards": cards_needed(ask, use, target)}


def longest_context(ask: Ask, target: Target) -> int:
    """The most positions (prompt prefilled at once, and output) one card holds for inference at the ask's batch."""
    def fits(n: int) -> bool:
        at = Ask(ask.config, ask.model, ask.dtype, ask.element_size, ask.batch, n, n)
        return _total(at, "inference", ask.batch, target) <= target.memory_bytes

    return largest(fits, ask.config.max_position_embeddings)


def decode_bytes(ask: Ask) -> int:
    """Bytes a decode step at batch 1 reads: every weight but the untied embedding table's other rows, and the KV
    cache at the mean context of the generation (as workloads.llm.cells says a cell's)."""
    c = ask.config
    weights = c.parameter_count() - (0 if c.tie_word_embeddings else (c.vocab_size - 1) * c.hidden_size)
    mean_context = ask.prefill + (ask.context - ask.prefill) / 2
    return int(weights * ask.element_size + mean_context * c.kv_bytes_per_token(ask.element_size))


def prefill_flops_per_token(ask: Ask) -> float:
    """A prompt token's FLOPs at the ask's prompt length: the products (2 a multiply-add) and causal attention."""
    c, t = ask.config, ask.prefill
    attention = 2 * 2 * c.num_hidden_layers * c.num_attention_heads * c.head_dim * (t + 1) / 2
    return 2 * fit.matmul_parameters(c) + attention


def bounds(ask: Ask, target: Target, price: float | None) -> dict[str, Any]:
    """Decode and prefill at most, from the target's rated figures; a million tokens' cost at the decode bound."""
    decode = target.bandwidth_gbps * 1e9 / decode_bytes(ask) if target.bandwidth_gbps else None
    prefill = target.peak_tflops * 1e12 / prefill_flops_per_token(ask) if target.peak_tflops else None
    cost = price / 3600 / decode * 1e6 if price is not None and decode else None
    return {"decode_bound_tokens_per_s": decode, "prefill_bound_tokens_per_s": prefill,
            "cost_per_million_tokens": cost}


def plan(ask: Ask, targets: list[Target], price: float | None = None, currency: str | None = None) -> dict[str, Any]:
    """The result's figures of the fit: a row per use (its estimate, the runtime's lines, a verdict per target),
    the targets with their bounds, and accelerate's weights-only figure beside."""
    # the needs column is a card's (its context counted), but a plan for this host's memory alone is the CPU's: no
    # driver, a training step's own runtime (ready on the CPU said 600 MiB for tiny, 512 of it a card's context)
    host = bool(targets) and all(t.cpu for t in targets)
    rows = []
    for key, english, _method, _ckpt in USES:
        e, r = need(ask, key, ask.batch, context=not host, cpu=host)
        rows.append({"use": english, "use_id": key, "total_bytes": e.total + r.total, "weights_bytes": e.weights,
                     "kv_cache_bytes": e.kv_cache, "activations_bytes": e.activations,
                     "gradients_bytes": e.gradients, "optimizer_bytes": e.optimizer, "workspace_bytes": e.workspace,
                     "modules_bytes": e.modules, "transient_bytes": e.transient, "runtime_bytes": r.total,
                     "targets": [verdict(ask, key, t) for t in targets]})
    e, r = need(ask, "inference", ask.batch, context=not host, cpu=host)
    split = runtime(ask.config, e.total, batch=ask.batch, element_size=ask.element_size, inference=False,
                    context=True, cards=2)
    weights = ask.config.parameter_count() * ask.element_size
    return {"fit": rows,
            "fit_targets": [{"name": t.name, "kind": t.kind, "memory_bytes": t.memory_bytes,
                             "bandwidth_gbps": t.bandwidth_gbps, "peak_tflops": t.peak_tflops,
                             "peak_source": t.peak_source, "memory_source": t.memory_source,
                             "longest_context": longest_context(ask, t), **bounds(ask, t, price)} for t in targets],
            "fit_context_bytes": r.context, "fit_allocator_bytes": r.allocator, "fit_graph_pool_bytes": r.graph_pool,
            "fit_collectives_bytes": split.collectives,
            "fit_accelerate_bytes": weights, "fit_accelerate_training_bytes": ACCELERATE_TRAINING * weights,
            "fit_price_per_hour": price, "fit_currency": currency, "model_size": ask.model, "fit_dtype": ask.dtype,
            "fit_batch": ask.batch, "fit_context": ask.context, "fit_prefill": ask.prefill}
