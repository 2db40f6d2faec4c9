"""llama-bench's rows in llama-bench's own formats: markdown, CSV, JSON and JSONL (torch-free).

The rows are the result's ``bench`` (`workloads.llm.cells.llama_bench`), one a test; these printers only read them,
as llama-bench's printers read its test records, so a new format never touches a measurement. The machine-readable
formats use llama-bench's field names where it has the field (model_type, model_size, model_n_params, backends,
n_prompt, n_gen, n_depth, test_time, avg_ns, stddev_ns, avg_ts, stddev_ts, samples_ns, samples_ts; llama.cpp
tools/llama-bench/README.md, "Output formats") and cardbench's where it has more (dtype, and each test's bound).
The markdown's column heads are llama-bench's words on purpose: a table pasted beside llama.cpp's must line up.

What the terminal prints and which file is written is ``--output``'s (`workloads.llm.output_option`).
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any, Mapping, Sequence

from workloads.facts.missing import NA

FORMATS = ("md", "csv", "json", "jsonl")
# llama-bench's fields, then cardbench's (each test's bound), in the order CSV and JSON write them
FIELDS = ("model_type", "model_size", "model_n_params", "backends", "dtype", "decode", "n_prompt", "n_gen", "n_depth",
          "test", "test_time", "avg_ns", "stddev_ns", "avg_ts", "stddev_ts", "achieved_gbps", "read_gbps",
          "read_fraction", "rated_gbps", "rated_bandwidth_fraction", "achieved_tflops", "rated_tflops",
          "rated_fraction", "samples_ns", "samples_ts")
_LISTS = ("samples_ns", "samples_ts")
MARKDOWN_COLUMNS = (("model", "left"), ("size", "right"), ("params", "right"), ("backend", "left"),
                    ("dtype", "left"), ("test", "right"), ("t/s", "right"))


def render(rows: Sequence[Mapping[str, Any]], fmt: str) -> str:
    """The rows in ``fmt`` (one of FORMATS), ending with a newline; no rows: an empty text."""
    if not rows:
        return ""
    if fmt == "md":
        return "\n".join(markdown(rows)) + "\n"
    records = [{k: row.get(k) for k in FIELDS} for row in rows]
    if fmt == "json":
        return json.dumps(records, indent=2) + "\n"
    if fmt == "jsonl":
        return "".join(json.dumps(r) + "\n" for r in records)
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")
    writer.writerow(FIELDS)
    for r in records:   # CSV has no lists: the samples joined by spaces, as one quoted cell
        writer.writerow([" ".join(map(str, r[k] or ())) if k in _LISTS else ("" if r[k] is None else r[k])
                         for k in FIELDS])
    return out.getvalue()


def markdown(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """llama-bench's markdown table: model | size | params | backend | dtype | test | t/s (mean ± sd)."""
    cells = [[str(r.get("model_type")), _gib(r.get("model_size")), _params(r.get("model_n_params")),
              str(r.get("backends")), str(r.get("dtype")), str(r.get("test")), rate(r)] for r in rows]
    widths = [max(len(name), *(len(c[i]) for c in cells)) for i, (name, _) in enumerate(MARKDOWN_COLUMNS)]

    def line(values: Sequence[str]) -> str:
        return "| " + " | ".join(v.ljust(w) if side == "left" else v.rjust(w)
                                 for v, w, (_, side) in zip(values, widths, MARKDOWN_COLUMNS)) + " |"

    rule = "| " + " | ".join("-" * w if side == "left" else "-" * (w - 1) + ":"
                             for w, (_, side) in zip(widths, MARKDOWN_COLUMNS)) + " |"
    return [line([name for name, _ in MARKDOWN_COLUMNS]), rule, *(line(c) for c in cells)]


def _gib(size: Any) -> str:
    return f"{size / 2**30:.2f} GiB" if isinstance(size, (int, float)) else NA


def _params(n: Any) -> str:
    if not isinstance(n, (int, float)):
        return NA
    return f"{n / 1e9:.2f} B" if n >= 1e9 else f"{n / 1e6:.2f} M"


def rate(row: Mapping[str, Any], grouped: bool = False) -> str:
    """t/s as llama-bench prints it, mean ± sd; ``grouped``: thousands separated, as the report says a figure."""
    mean, sd = row.get("avg_ts"), row.get("stddev_ts")
    if not isinstance(mean, (int, float)):
        return NA
    form = ",.2f" if grouped else ".2f"
    return f"{mean:{form}} ± {sd:{form}}" if isinstance(sd, (int, float)) else f"{mean:{form}}"


def terminal_lines(metrics: Mapping[str, Any]) -> list[str]:
    """What the terminal prints after the result: the rows in the run's ``bench_output`` format (md by default)."""
    rows = metrics.get("bench")
    rows = [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []
    fmt = metrics.get("bench_output") if metrics.get("bench_output") in FORMATS else "md"
    return render(rows, fmt).splitlines()
