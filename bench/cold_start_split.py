"""A model's cold start split into its phases, the weights read cold against warm (issue 38 item 3).

Runs the workload as ``cardbench run llm --model tiny --cold-start`` does (``python -m workloads.llm ... --cold-start
cold`` and ``... warm``, alternating, ``--rounds`` of each), reads each result's phases and prints, per phase, the
median seconds and share of the total of the cold runs and of the warm ones, the read's bytes and rate, and whether
each read was measured cold or warm (mincore). Other processes' load moves every phase on a shared machine: the load
average is printed beside the figures, and the medians are over rounds taken in turns.

    python bench/cold_start_split.py                                   # tiny on this CPU, about a minute
    python bench/cold_start_split.py --workload finetune --rounds 2
    python bench/cold_start_split.py --model Llama-3.1-8B --device cuda --extra --cuda-graphs
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workloads.cold_start.split import PHASES  # noqa: E402
from workloads.facts.formatting import format_bytes, percent  # noqa: E402

NAMES = {"cold_start_import_s": "process start and torch import", "cold_start_device_s": "device initialisation",
         "cold_start_read_s": "weights read", "cold_start_build_s": "model build",
         "cold_start_compile_s": "first compile or graph capture", "cold_start_first_token_s": "first output",
         "cold_start_s": "total"}


def one_run(opts: argparse.Namespace, read: str) -> dict:
    """One cold start through the workload's own entry; its result's figures."""
    command = [sys.executable, "-m", f"workloads.{opts.workload}", "--model", opts.model, "--device", opts.device,
               "--cold-start", read, *opts.extra]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    out = subprocess.run(command, capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL, timeout=1800)
    events = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    result = next((e["metrics"] for e in events if e.get("event") == "result"), None)
    if out.returncode != 0 or result is None:
        error = next((e.get("message") for e in events if e.get("event") == "error"), out.stderr[-500:])
        sys.exit(f"cold_start_split: {' '.join(command)} failed: {error}")
    return result


def _median(runs: list[dict], key: str) -> float | None:
    values = [r[key] for r in runs if isinstance(r.get(key), (int, float))]
    return statistics.median(values) if values else None


def print_table(opts: argparse.Namespace, runs: dict[str, list[dict]]) -> None:
    print(f"{opts.workload} --model {opts.model} --device {opts.device} {' '.join(opts.extra)}: median of "
          f"{opts.rounds} round(s) each, cold and warm taken in turns; load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores")
    print(f"  {'phase':32} {'cold s':>8} {'share':>8}   {'warm s':>8} {'share':>8}")
    for key in [k for k, _ in PHASES] + ["cold_start_s"]:
        cells = []
        for read in ("cold", "warm"):
            value, total = _median(runs[read], key), _median(runs[read], "cold_start_s")
            cells += [f"{value:8.3f}" if value is not None else f"{'N/A':>8}",
                      f"{percent(value / total) if value is not None and total else 'N/A':>8}"]
        print(f"  {NAMES[key]:32} {cells[0]} {cells[1]}   {cells[2]} {cells[3]}")
    for read in ("cold", "warm"):
        size, seconds = _median(runs[read], "cold_start_read_bytes"), _median(runs[read], "cold_start_read_s")
        states = sorted({r["cold_start_read_state"] for r in runs[read]})
        print(f"  --cold-start {read}: {format_bytes(size)} read at {size / seconds / 1e9:.2f} GB/s; measured "
              f"{'/'.join(states)} ({runs[read][-1]['cold_start_read_reason']})")
    print(f"  compile: {runs['cold'][-1].get('cold_start_compile_note')}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workload", choices=("llm", "finetune"), default="llm")
    p.add_argument("--model", default="tiny")
    p.add_argument("--device", default="cpu")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--extra", nargs=argparse.REMAINDER, default=[], help="further arguments to the workload")
    opts = p.parse_args()
    runs: dict[str, list[dict]] = {"cold": [], "warm": []}
    for i in range(opts.rounds):
        for read in (("cold", "warm") if i % 2 == 0 else ("warm", "cold")):   # in turns: the load moves both alike
            runs[read].append(one_run(opts, read))
    print_table(opts, runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
