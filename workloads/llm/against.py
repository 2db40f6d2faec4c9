"""What llm's headline (llama-bench's tg: decode tokens/s at batch 1) is read against in the report's summary.

A decode step reads the weights and the KV cache once, so at the measured read bandwidth no sequence decodes faster
than that bandwidth over the bytes a step (the roofline argument of Williams et al., "Roofline", CACM 2009). The
headline's share is its own test's (`workloads.llm.bench_bounds`: tg's bytes at its own context), the figure
llama-bench's table says in its row, under the same name: "share of the measured read bandwidth, tg16". The first
cell's share (its own bytes, at its batch) is a different figure and says so: "..., cell 32 in x 16 out x batch 1". A
run recorded before llama-bench's rows carried their bounds reads against the first cell's bound when that cell is
at batch 1, as tg is. Torch-free: the report imports it.
"""

from __future__ import annotations

from typing import Any, Mapping

from workloads.catalogue import Message, message
from workloads.facts.formatting import format_bytes
from workloads.facts.missing import NA, is_finite
from workloads.llm.cell_name import cell_name


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
    share, bound, step = _tg_share(m, tg, rate)
    if share is None:
        return how
    first_cell = ""
    cell, decode, fraction = _first_cell(m), m.get("decode_tokens_per_s"), m.get("decode_bandwidth_fraction")
    if cell and is_finite(decode) and is_finite(fraction):   # the first cell's own share, under its own name
        first_cell = message("workload.llm.against.first_cell", cell=cell, decode=_n(decode),
                             fraction=f"{100 * fraction:.1f}")
    read = m.get("device_read_gbps")
    return message("workload.llm.against.bound", test=tg, share=f"{100 * share:.1f} %", bound=_n(bound),
                   step=format_bytes(step), read=f"{read:.3g} GB/s" if is_finite(read) else NA, how=how,
                   first_cell=first_cell)


def _tg_share(m: Mapping[str, Any], tg: str, rate: float) -> tuple[Any, Any, Any]:
    """(share of the measured read bandwidth, bound tokens/s, bytes a step) of the tg test: its llama-bench row's,
    else (a run from before the rows' bounds) the first cell's bound when that cell is at batch 1; Nones: none."""
    rows = m.get("bench") if isinstance(m.get("bench"), list) else []
    row = next((r for r in rows if isinstance(r, dict) and r.get("test") == tg), None)
    if row is not None and is_finite(row.get("read_fraction")) and row["read_fraction"] > 0 \
            and is_finite(row.get("avg_ts")) and is_finite(row.get("achieved_gbps")):
        return row["read_fraction"], row["avg_ts"] / row["read_fraction"], row["achieved_gbps"] * 1e9 / row["avg_ts"]
    bound = m.get("decode_bound_tokens_per_s")
    if is_finite(bound) and bound > 0 and m.get("batch_size") == 1:
        return rate / bound, bound, m.get("decode_bytes_per_step")
    return None, None, None


def _first_cell(m: Mapping[str, Any]) -> str | None:
    """The first cell's name as its step says it ('32 in x 16 out x batch 1'), or None without its lengths."""
    cells = m.get("cells") if isinstance(m.get("cells"), list) else []
    first = cells[0] if cells and isinstance(cells[0], dict) else m
    lengths = [first.get(k) for k in ("input_len", "output_len", "batch")]
    if first is m:
        lengths[2] = m.get("batch_size")
    if not all(isinstance(v, int) for v in lengths):
        return None
    return cell_name(*lengths)


def spread_of(m: Mapping[str, Any], name: str) -> tuple[Any, Any]:
    """(the runs, their stddev) of llama-bench's test ``name`` ('tg128'); a run recorded before the keys named
    their unit kept them as `tg128_runs`, `tg128_stddev`."""
    return (m.get(f"{name}_runs_tokens_per_s", m.get(f"{name}_runs")),
            m.get(f"{name}_stddev_tokens_per_s", m.get(f"{name}_stddev")))
