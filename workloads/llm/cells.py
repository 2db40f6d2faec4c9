"""One readiness cell (input length x output length x batch) timed, and llama-bench's pp/tg.

A cell is a warm-up generation, then ``repeat`` timed ones (each a prefill of the batch's prompts, then
one decode step per output token, :func:`workloads.models.decoding.generate`), read as:

- TTFT: prefill and the first token (median over the timed runs); prefill tokens/s = batch x input / TTFT;
- TPOT: each decode step's time (p50/p90/p99 over every step of the timed runs, workloads.facts.percentile's
  percentile); decode tokens/s per sequence = 1 / TPOT p50, in all = batch / TPOT p50;
- end-to-end: TTFT + the decode steps (median over the runs).

Bounds: a decode step reads every weight and the KV cache up to its position, so at the measured read
bandwidth it cannot beat ``bandwidth / (weight bytes + KV bytes at the mean context)`` steps a second;
a prefill does ``2 x matmul parameters x tokens`` FLOPs plus causal attention, against the rated peak
of the dtype (rated.csv; none on the CPU).

pp and tg are llama-bench's tests (llama.cpp tools/llama-bench, `workloads.llm.bench_tests`): ppN prefills N tokens at
batch 1 (tokens/s = N / its time), tgN decodes N tokens one at a time after a one-token prompt (N / their time);
at depth D the cache holds D tokens first (filled untimed), as llama-bench's ``-d``. Each repeated after one untimed
run, reported as mean +- sample standard deviation, one row a test (llama-bench's fields).
"""

from __future__ import annotations

import statistics
import time
from typing import Any, Mapping, Sequence

import torch

from workloads.child import device as dev
from workloads.facts.formatting import format_bytes, utc_iso
from workloads.facts.percentile import percentile
from workloads.models.decoding import EagerDecoder, Sampling, generate
from workloads.models.llama import fit
from workloads.llm.bench_tests import BenchTest
from workloads.llm.plan import Cell

GREEDY = Sampling()


def matmul_parameters(model: Any) -> int:
    """Parameters a token multiplies through: all but an untied embedding table (a lookup)."""
    total = sum(p.numel() for p in model.parameters())
    return total - (model.embed_tokens.numel() if model.embed_tokens is not None else 0)


def prefill_flops(model: Any, batch: int, tokens: int) -> float:
    """Matrix products (2 FLOPs a multiply-add) and causal attention (QK^T and PV over the lower triangle)."""
    c = model.config
    attention = 2 * 2 * c.num_hidden_layers * c.num_attention_heads * c.head_dim * tokens * (tokens + 1) / 2
    return batch * (2 * matmul_parameters(model) * tokens + attention)


def decode_bytes(model: Any, cell: Cell, element_size: int) -> int:
    """Bytes a decode step reads: the weights once, and each sequence's KV cache at the cell's mean context."""
    from workloads.models.llama.model import weight_bytes_per_step

    mean_context = cell.input_len + cell.output_len / 2
    return int(weight_bytes_per_step(model) + cell.batch * mean_context * model.config.kv_bytes_per_token(element_size))


class Memory:
    """Peak memory of a cell: the device allocator's peak on an accelerator; on the CPU the process's peak RSS
    (workloads/child/device.peak_memory) less its RSS before the model was built, the peak reset before each
    cell where Linux allows it."""

    def __init__(self, device: torch.device, baseline: int | None):
        self.device, self.baseline = device, baseline
        self.resettable = dev.reset_peak_memory(device)
        if device.type != "cpu":
            self.kind = "device peak allocated (max_memory_allocated)"
        elif self.resettable:
            self.kind = "process peak RSS (VmHWM, reset before each cell) less the RSS before the model was built"
        else:
            self.kind = "process peak RSS (the peak so far) less the RSS before the model was built"

    def reset(self) -> None:
        dev.reset_peak_memory(self.device)

    def peak(self) -> int | None:
        peak = dev.peak_memory(self.device)[0]
        if self.device.type != "cpu":
            return peak
        return peak - self.baseline if peak is not None and self.baseline is not None else None


def run_cell(model: Any, cell: Cell, repeat: int, device: torch.device, seed: int, make_decoder: Any,
             memory: Memory, free: int | None, element_size: int,
             prompt_ids: tuple[int, ...] | None = None) -> dict[str, Any]:
    """The cell's row; a cell whose estimate is over the free memory, or that runs out, is a row saying so.

    ``prompt_ids`` (--prompt's tokens) is every sequence's prompt instead of random ids; the row's
    ``output_ids`` are then sequence 1's generated tokens of the last timed run."""
    need = fit.inference(model.config, cell.batch, cell.context, cell.input_len, element_size)
    row: dict[str, Any] = {"input_len": cell.input_len, "output_len": cell.output_len, "batch": cell.batch,
                           "estimate_bytes": need.total}
    if free is not None and need.total > free:
        return {**row, "status": f"does not fit: needs about {format_bytes(need.total)}, {format_bytes(free)} free"}
    memory.reset()
    cache = None
    try:
        cache = model.new_cache(cell.batch, cell.context)
        decoder = make_decoder(model, cache)
        if prompt_ids is not None:
            prompt = torch.tensor([prompt_ids] * cell.batch, dtype=torch.long, device=device)
        else:
            prompt = torch.randint(0, model.config.vocab_size, (cell.batch, cell.input_len),
                                   generator=torch.Generator().manual_seed(seed)).to(device)
        generate(model, cache, decoder, prompt, min(cell.output_len, 4), GREEDY, device)  # warm-up, untimed
        runs = [generate(model, cache, decoder, prompt, cell.output_len, GREEDY, device) for _ in range(repeat)]
    except torch.OutOfMemoryError:
        return {**row, "status": f"out of memory (estimate {format_bytes(need.total)}, {format_bytes(free)} free)"}
    finally:
        del cache
    steps = [s for r in runs for s in r.latencies_s]
    if prompt_ids is not None:
        row["output_ids"] = runs[-1].tokens[0].tolist()
    ttft = statistics.median(r.ttft_s for r in runs)
    tpot = {q: percentile(steps, q) for q in (50, 90, 99)}
    return {**row, "status": "ok", "ttft_s": ttft,
            "tpot_p50_s": tpot[50], "tpot_p90_s": tpot[90], "tpot_p99_s": tpot[99],
            "decode_tokens_per_s": 1 / tpot[50] if tpot[50] else None,
            "decode_tokens_per_s_all": cell.batch / tpot[50] if tpot[50] else None,
            "prefill_tokens_per_s": cell.batch * cell.input_len / ttft if ttft > 0 else None,
            "prefill_tflops": prefill_flops(model, cell.batch, cell.input_len) / ttft / 1e12 if ttft > 0 else None,
            "end_to_end_s": statistics.median(r.ttft_s + r.decode_s for r in runs),
            "peak_memory_bytes": memory.peak(),
            "decode_bytes_per_step": decode_bytes(model, cell, element_size)}


def add_bounds(row: dict[str, Any], read_gbps: float | None, rated_tflops: float | None,
               rated_gbps: float | None = None) -> None:
    """Each figure beside its bound: decode's achieved GB/s (bytes a step / TPOT p50) against the measured read
    bandwidth and the rated memory bandwidth, prefill against the rated peak."""
    if row.get("status") != "ok":
        return
    rate, step = row.get("decode_tokens_per_s"), row["decode_bytes_per_step"]
    achieved = rate * step / 1e9 if rate else None
    row["decode_gbps"] = achieved
    if read_gbps:
        row["decode_bound_tokens_per_s"] = read_gbps * 1e9 / step
        row["decode_bandwidth_fraction"] = achieved / read_gbps if achieved else None
    row["rated_gbps"] = rated_gbps
    row["decode_rated_bandwidth_fraction"] = achieved / rated_gbps if achieved and rated_gbps else None
    row["prefill_peak_fraction"] = (row["prefill_tflops"] / rated_tflops
                                    if rated_tflops and row.get("prefill_tflops") else None)


def llama_bench(model: Any, tests: Sequence[BenchTest], repetitions: int, device: torch.device, seed: int,
                make_decoder: Any = EagerDecoder, done: Any = None) -> list[dict[str, Any]]:
    """One row a test: its rate each repetition (after one untimed run), mean and sample standard deviation;
    ``done(index, row)`` after each test (the run's progress)."""
    gen = torch.Generator().manual_seed(seed)
    rows = []
    for test in tests:
        started = utc_iso(time.time())   # llama-bench's test_time: when the test began
        cache = model.new_cache(1, test.positions)
        # one decoder a test: a compiled one compiles once, in the untimed first repetition
        decoder = make_decoder(model, cache) if test.kind == "tg" else None
        timed = _pp_seconds if test.kind == "pp" else _tg_seconds
        seconds = [timed(model, cache, test, device, gen, decoder) for _ in range(repetitions + 1)][1:]
        del cache, decoder
        rates = [test.n / s for s in seconds]
        rows.append({"test": test.name, "n_prompt": test.n if test.kind == "pp" else 0,
                     "n_gen": test.n if test.kind == "tg" else 0, "n_depth": test.depth, "test_time": started,
                     "avg_ns": int(statistics.fmean(seconds) * 1e9),
                     "stddev_ns": int(statistics.stdev(seconds) * 1e9) if len(seconds) > 1 else None,
                     "avg_ts": statistics.fmean(rates), "stddev_ts": statistics.stdev(rates) if len(rates) > 1 else None,
                     "samples_ns": [int(s * 1e9) for s in seconds], "samples_ts": rates})
        if done is not None:
            done(len(rows) - 1, rows[-1])
    return rows


def _random_ids(model: Any, n: int, gen: torch.Generator, device: torch.device) -> torch.Tensor:
    return torch.randint(0, model.config.vocab_size, (1, n), generator=gen).to(device)


@torch.inference_mode()
def _pp_seconds(model: Any, cache: Any, test: BenchTest, device: torch.device, gen: torch.Generator,
                decoder: Any) -> float:
    """A prefill of ``test.n`` tokens after ``test.depth`` already in the cache (filled untimed)."""
    if test.depth:
        model(_random_ids(model, test.depth, gen, device), cache, 0, last_only=True)
    prompt = _random_ids(model, test.n, gen, device)
    start = dev.now(device)
    model(prompt, cache, test.depth, last_only=True)
    dev.synchronize(device)
    return time.perf_counter() - start


def _tg_seconds(model: Any, cache: Any, test: BenchTest, device: torch.device, gen: torch.Generator,
                decoder: Any) -> float:
    """``test.n`` decode steps after a prompt of ``test.depth`` tokens (one at depth 0); the prefill untimed."""
    prompt = _random_ids(model, max(test.depth, 1), gen, device)
    return generate(model, cache, decoder, prompt, test.n + 1, GREEDY, device).decode_s


def by_name(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The depth-0 rows as the flat figures runs have carried since issue 24 (``tg128_tokens_per_s``, its stddev and
    runs), which compare and the headline read."""
    out: dict[str, Any] = {}
    for row in rows:
        if not row["n_depth"]:
            out.update(_spread(row["test"], row["samples_ts"]))
    return out


def _spread(name: str, rates: list[float]) -> dict[str, Any]:
    # llm's record declares these keys as families (`workloads.llm.result_record`), labelled in tokens/s: the
    # report's "All result metrics" once said a bare `tg128 stddev 9.381` where run.log said tokens/s
    return {f"{name}_tokens_per_s": statistics.fmean(rates),
            f"{name}_stddev_tokens_per_s": statistics.stdev(rates) if len(rates) > 1 else None,
            f"{name}_runs_tokens_per_s": rates}
