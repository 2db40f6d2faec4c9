"""One timed generation: prefill, then one decode step per token, each step timed.

A *decoder* turns (token, position) into logits. Three kinds share the model
and its KV cache: eager (the position as an int, attention over a slice of the
cache), CUDA-graphed (one decode step captured once and replayed) and compiled
(``torch.compile`` of the static step). The prefill always runs eager. Any model
that decodes through the shared KV cache the way :class:`DecodingModel` says (GPT-2,
the Llama family) runs through them.

The clock is read after a device synchronisation at the end of every token:
that one sync per token is what per-token latency percentiles cost. Progress is
reported to a callback every ``report_every`` tokens, outside the timed spans.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Protocol

import torch

from workloads.child import device as dev
from workloads.models.kv_cache import KVCache
from workloads.models.matvec import all_threads_in_compiled
from workloads.models.one_query import one_thread


class DecodingModel(Protocol):
    """What the decoders and :func:`generate` call on a model (:class:`~workloads.models.gpt2.model.GPT2`,
    :class:`~workloads.models.llama.model.Llama`)."""

    split: int

    def __call__(self, idx: torch.Tensor, cache: KVCache, pos: int = 0, last_only: bool = False) -> torch.Tensor:
        """Logits (batch, positions, vocabulary) for ``idx`` placed at ``pos``; fills the cache."""

    def forward_static(self, idx: torch.Tensor, cache: KVCache, input_pos: torch.Tensor) -> torch.Tensor:
        """As a call, with the position a tensor: fixed shapes for CUDA graphs and compile."""

    def split_products(self, split: int) -> None:
        """Cut every few-row matrix product into ``split`` slices (:func:`workloads.models.matvec.matvec`)."""


class Decoder(Protocol):
    kind: str

    def __call__(self, token: torch.Tensor, pos: int) -> torch.Tensor:
        """Logits (batch, vocabulary) for ``token`` (batch, 1) at position ``pos``."""


class EagerDecoder:
    kind = "eager"

    def __init__(self, model: DecodingModel, cache: KVCache):
        self.model, self.cache = model, cache

    def __call__(self, token: torch.Tensor, pos: int) -> torch.Tensor:
        return self.model(token, self.cache, pos)[:, -1]


class GraphDecoder:
    """One decode step captured as a device graph (CUDA's, or the type's own where the device table names one);
    each call copies its inputs in and replays."""

    kind = "cuda-graph"

    def __init__(self, model: DecodingModel, cache: KVCache, batch: int, device: torch.device):
        self.token = torch.zeros(batch, 1, dtype=torch.long, device=device)
        self.pos = torch.zeros(1, dtype=torch.long, device=device)
        # the warm-up (on a side stream, as capture requires) writes position 0, which prefill overwrites
        self.graph, self.logits = dev.capture_graph(
            device, lambda: model.forward_static(self.token, cache, self.pos)[:, -1])

    def __call__(self, token: torch.Tensor, pos: int) -> torch.Tensor:
        self.token.copy_(token)
        self.pos.fill_(pos)
        self.graph.replay()
        return self.logits


class StaticStep(torch.nn.Module):
    """The static decode step as one module, so the weights and the cache are its parameters and buffers."""

    def __init__(self, model: DecodingModel, cache: KVCache):
        super().__init__()
        self.model, self.cache = model, cache

    def forward(self, token: torch.Tensor, input_pos: torch.Tensor) -> torch.Tensor:
        return self.model.forward_static(token, self.cache, input_pos)[:, -1]


class CompiledDecoder:
    """``torch.compile`` of the whole static decode step (gpt-fast's way: fixed shapes over the preallocated cache,
    ``fullgraph``); on CUDA with CUDA graphs ("reduce-overhead") and coordinate-descent tuning of the generated
    kernels, which gpt-fast found to matter for the matrix-vector products of batch-1 decoding.

    Compilation is lazy, so the constructor runs one step (at position 0, which the prefill overwrites): a stack
    where compile fails raises here, where the caller can fall back to eager, not in the first timed step.

    On the CPU the step is compiled and run on one thread: the generated code opens an OpenMP parallel region per
    fused kernel, dozens a step, and on a shared machine each waits for the scheduler (the reason
    :mod:`workloads.models.one_query` runs the eager attention on one thread). Measured on this 2-core VM at load 15
    (tiny preset, median of 22 steps): 113 ms compiled on 2 threads, 25-39 ms on one, eager 24-46 ms. Its weight
    products alone run on every thread, as eager's do (:func:`workloads.models.matvec.all_threads_in_compiled`):
    one thread streamed Qwen2.5-0.5B's weights at 0.6-0.7 x the eager step's rate."""

    kind = "compiled"

    def __init__(self, model: DecodingModel, cache: KVCache, device: torch.device):
        import torch._dynamo
        import torch._inductor.config

        self.on_cuda = device.type == "cuda"
        # each decoder is made for one cache and dropped with it: the earlier caches' compiled code would only count
        # towards dynamo's recompile limit, past which it decodes eager without a word
        torch._dynamo.reset()
        if self.on_cuda:
            torch._inductor.config.coordinate_descent_tuning = True
        self.step = torch.compile(StaticStep(model, cache), mode="reduce-overhead" if self.on_cuda else None,
                                  fullgraph=True, dynamic=False)
        self.pos = torch.zeros(1, dtype=torch.long, device=device)
        self.on_cpu, self.cores = device.type == "cpu", torch.get_num_threads()
        with torch.inference_mode():
            self(torch.zeros(cache.data.shape[2], 1, dtype=torch.long, device=device), 0)

    def __call__(self, token: torch.Tensor, pos: int) -> torch.Tensor:
        if self.on_cuda:
            # the previous step's outputs were read already; let the graph reuse their memory
            torch.compiler.cudagraph_mark_step_begin()
        self.pos.fill_(pos)
        if not self.on_cpu:
            return self.step(token, self.pos)
        # every call, so a recompile traces the products as the first trace did (matvec's docstring)
        with all_threads_in_compiled(self.cores), one_thread():
            return self.step(token, self.pos)


@dataclass(frozen=True)
class Sampling:
    """Greedy when temperature is 0; otherwise softmax sampling, optionally from the top k."""

    temperature: float = 0.0
    top_k: int | None = None

    def __call__(self, logits: torch.Tensor, generator: torch.Generator | None) -> torch.Tensor:
        if self.temperature <= 0:
            return logits.argmax(dim=-1, keepdim=True)
        logits = logits.float() / self.temperature
        if self.top_k is not None and self.top_k < logits.shape[-1]:
            kth = torch.topk(logits, self.top_k, dim=-1).values[:, -1:]
            logits = logits.masked_fill(logits < kth, float("-inf"))
        probs = torch.softmax(logits, dim=-1)
        return torch.multinomial(probs, 1, generator=generator)


@dataclass
class Timings:
    """One generation: time to first token, then one latency per decode step."""

    ttft_s: float
    latencies_s: list[float] = field(default_factory=list)
    tokens: torch.Tensor | None = None  # (batch, new tokens)

    @property
    def decode_s(self) -> float:
        return sum(self.latencies_s)

    @property
    def decode_tokens_per_s(self) -> float | None:
        """Tokens per second per sequence over the decode steps; None when there were none."""
        total = self.decode_s
        return len(self.latencies_s) / total if self.latencies_s and total > 0 else None


Progress = Callable[[int, list[float]], None]


@torch.inference_mode()
def generate(model: DecodingModel, cache: KVCache, decoder: Decoder, prompt: torch.Tensor, new_tokens: int,
             sampling: Sampling, device: torch.device, generator: torch.Generator | None = None,
             progress: Progress | None = None, report_every: int = 16) -> Timings:
    """Generate ``new_tokens`` tokens after ``prompt`` (batch, prompt length), timing each.

    ``progress(tokens_done, latencies_since_last_report)`` is called every
    ``report_every`` decode steps and after the last one, between timed spans.
    """
    batch, prompt_len = prompt.shape
    out = torch.empty(batch, new_tokens, dtype=torch.long, device=device)
    start = dev.now(device)
    token = sampling(model(prompt, cache, 0, last_only=True)[:, -1], generator)
    out[:, 0:1] = token
    dev.synchronize(device)
    timings = Timings(ttft_s=time.perf_counter() - start)
    window: list[float] = []
    for i in range(1, new_tokens):
        t0 = time.perf_counter()
        token = sampling(decoder(token, prompt_len + i - 1), generator)
        out[:, i:i + 1] = token
        dev.synchronize(device)
        elapsed = time.perf_counter() - t0
        timings.latencies_s.append(elapsed)
        window.append(elapsed)
        if progress is not None and (len(window) >= report_every or i == new_tokens - 1):
            progress(i, window)
            window = []
    timings.tokens = out
    return timings


def fastest_split(model: DecodingModel, cache: KVCache, decoder: Decoder, prompt: torch.Tensor, steps: int,
                  sampling: Sampling, device: torch.device, generator: torch.Generator | None = None) -> dict[int, float]:
    """Set the model's product split to whichever of its current one and 1 decodes faster.

    Splitting products across cores pays only when the cores are free: a
    neighbour busy on one of them makes every split product wait for it. The
    two are timed alternately (``steps`` decode steps per try, two tries each)
    and the best median step time wins. Returns split -> best median step (s).
    """
    candidates = [model.split, 1] if model.split > 1 else [1]
    best: dict[int, float] = {}
    for _ in range(2 if len(candidates) > 1 else 0):
        for split in candidates:
            model.split_products(split)
            timings = generate(model, cache, decoder, prompt, steps + 1, sampling, device, generator)
            median = sorted(timings.latencies_s)[len(timings.latencies_s) // 2]
            best[split] = min(best.get(split, median), median)
    if best:
        model.split_products(min(best, key=best.__getitem__))
    return best
