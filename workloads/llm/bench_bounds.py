"""llama-bench's rows made whole: what was measured (llama-bench's model, size, params, backend), and each test beside
its bounds.

A tg test reads every weight and its sequence's KV cache once a step, so its achieved GB/s is tokens/s x (weight
bytes + KV bytes at the mean context of the test: its depth and half its tokens), said beside both bandwidth bounds:
the read bandwidth measured in the same run (`workloads.child.bandwidth`) and the card's rated one (rated.csv's
memory_gbps; none on the CPU). A pp test's FLOPs are the matrix products of its tokens and their causal attention
over the depth and each other; achieved TFLOP/s beside the dtype's rated peak. The measured GEMM ceiling
(microbench's) is not known to this run: the report says N/A and why (`workloads.llm.table`).
"""

from __future__ import annotations

from typing import Any, Sequence

from workloads.llm.cell_name import cell_name
from workloads.llm.cells import matmul_parameters
from workloads.llm.plan import Plan
from workloads.models.inference_dtype import NAMES
from workloads.models.llama.model import weight_bytes_per_step



def identify(rows: Sequence[dict[str, Any]], plan: Plan, model: Any, device: Any, dtype: Any, decode: str) -> None:
    """llama-bench's columns of what ran: model, size (weight bytes), params, backend, and cardbench's dtype."""
    size = sum(p.numel() * p.element_size() for p in model.parameters())
    for row in rows:
        row.update(model_type=plan.model, model_size=size, model_n_params=plan.config.parameter_count(),
                   backends=device.type.upper(), dtype=NAMES.get(dtype, str(dtype)),
                   decode=decode if row["n_gen"] else None)


def add(rows: Sequence[dict[str, Any]], model: Any, read_gbps: float | None, rated_gbps: float | None,
        rated_tflops: float | None) -> None:
    """Each row's achieved rate beside its bounds (None where a bound is not known)."""
    config, element = model.config, model.lm_head_t.element_size()
    for row in rows:
        rate = row.get("avg_ts")
        if not rate:
            continue
        if row["n_gen"]:
            context = max(row["n_depth"], 1) + row["n_gen"] / 2
            step = weight_bytes_per_step(model) + context * config.kv_bytes_per_token(element)
            row.update(achieved_gbps=rate * step / 1e9, read_gbps=read_gbps, rated_gbps=rated_gbps,
                       read_fraction=_share(rate * step / 1e9, read_gbps),
                       rated_bandwidth_fraction=_share(rate * step / 1e9, rated_gbps))
        else:
            n, depth = row["n_prompt"], row["n_depth"]
            attention = 2 * 2 * config.num_hidden_layers * config.num_attention_heads * config.head_dim * n * (
                depth + (n + 1) / 2)
            tflops = (2 * matmul_parameters(model) * n + attention) * rate / n / 1e12
            row.update(achieved_tflops=tflops, rated_tflops=rated_tflops, rated_fraction=_share(tflops, rated_tflops))


def _share(value: float, bound: float | None) -> float | None:
    return value / bound if bound else None


# a share of a rated figure above 1 is past the card's physical bound: the figure is a measurement error (a wrong
# byte count, a clock read before the device finished), said as a warning beside it, never as a result
PHYSICAL = {"rated_bandwidth_fraction": "rated memory bandwidth", "rated_fraction": "rated peak FLOP/s",
            "decode_rated_bandwidth_fraction": "rated memory bandwidth", "prefill_peak_fraction": "rated peak FLOP/s"}
# a share of the read bandwidth measured in the run above 1: the bound was measured low (on a shared host the probe
# ran while a neighbour held the memory bus), so the share is unreliable
MEASURED = ("read_fraction", "decode_bandwidth_fraction")


def past_bounds(rows: Sequence[dict[str, Any]]) -> list[tuple[str, str]]:
    """(warning code, line) for each row's share of a rated figure, or of the measured read bandwidth, above 1."""
    out = []
    for row in rows:
        what = row.get("test") or "cell " + cell_name(row.get("input_len"), row.get("output_len"), row.get("batch"))
        for key, bound in PHYSICAL.items():
            if _above_one(row.get(key)):
                out.append(("past_rated_bound", f"{what}: {100 * row[key]:.1f} % of the {bound}, past the physical "
                                                "bound: not a result"))
        for key in MEASURED:
            if _above_one(row.get(key)):
                out.append(("past_measured_bound", f"{what}: {100 * row[key]:.1f} % of the measured read bandwidth "
                                                   "(this run's): the bound was measured low, the share is unreliable"))
    return out


def _above_one(share: Any) -> bool:
    return isinstance(share, (int, float)) and share > 1
