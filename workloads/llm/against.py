"""What llm's headline (llama-bench's tg: decode tokens/s at batch 1) is read against in the report's summary.

The bound is the sweep's first cell's: a decode step reads the weights and the KV cache once
(``decode_bytes_per_step``), so at the measured read bandwidth no sequence decodes faster than
``decode_bound_tokens_per_s`` (`workloads.llm.cells.add_bounds`; the roofline argument of Williams et al.,
"Roofline", CACM 2009). tg decodes at batch 1 from a short context, so that bound holds for it when the first cell
is at batch 1 too (its KV cache, a few per cent of the bytes at these lengths, is the difference); at another batch
the share is not said. Torch-free: the report imports it.
"""

from __future__ import annotations

from typing import Any, Mapping

from workloads.catalogue import Message, message
from workloads.facts.formatting import format_bytes
from workloads.facts.missing import NA, is_finite


def _n(value: float) -> str:
    return f"{value:,.4g}" if abs(value) < 1000 else f"{value:,.0f}"


def read_against(m: Mapping[str, Any]) -> Message | None:
    """'29.4 % of the read-bandwidth bound 553.3 tokens/s (...); mean of 5 tg128 runs, stddev 9.381; ...', or None
    without a tg figure (a fit-only run)."""
    tg, rate = m.get("tg"), m.get("tg_tokens_per_s")
    if not is_finite(rate):
        return None
    tg = f"tg{tg}" if isinstance(tg, int) else "tg"   # llama-bench's name for the test: tg128
    runs, stddev = spread_of(m, tg)
    n = len(runs) if isinstance(runs, list) else None
    sd = message("workload.llm.against.stddev", stddev=_n(stddev)) if is_finite(stddev) else ""
    if n:
        how = message("workload.llm.against.mean_of_one" if n == 1 else "workload.llm.against.mean_of", n=n, tg=tg,
                      sd=sd)
    else:
        how = message("workload.llm.against.single", tg=tg, sd=sd)
    bound, step, read = m.get("decode_bound_tokens_per_s"), m.get("decode_bytes_per_step"), m.get("device_read_gbps")
    if not (is_finite(bound) and bound > 0 and m.get("batch_size") == 1):
        return how
    decode, fraction = m.get("decode_tokens_per_s"), m.get("decode_bandwidth_fraction")
    first_cell = ""
    if is_finite(decode) and is_finite(fraction):   # the sweep's own decode rate, against the same bound
        first_cell = message("workload.llm.against.first_cell", decode=_n(decode), fraction=f"{100 * fraction:.1f}")
    return message("workload.llm.against.bound", share=f"{100 * rate / bound:.1f} %", bound=_n(bound),
                   step=format_bytes(step),
                   read=f"{read:.3g} GB/s" if is_finite(read) else NA, how=how, first_cell=first_cell)


def spread_of(m: Mapping[str, Any], name: str) -> tuple[Any, Any]:
    """(the runs, their stddev) of llama-bench's test ``name`` ('tg128'); a run recorded before the keys named
    their unit kept them as `tg128_runs`, `tg128_stddev`."""
    return (m.get(f"{name}_runs_tokens_per_s", m.get(f"{name}_runs")),
            m.get(f"{name}_stddev_tokens_per_s", m.get(f"{name}_stddev")))
