"""`--find-max` against a server of known capacity: does the search find it within 5 % in at most 8 levels, and do
three runs agree?

    .venv/bin/python bench/serve_find_max.py [--runs 3] [--budget 240] [--rate 200] [--burst 50] [--ttft-ms 10]
                                             [--itl-ms 2] [--output-len 4] [--slo ttft_p99=500,tpot_p99=100]

The server: cardbench's test server (workloads/serve/testserver.py) in a process of its own (pinned to the second core,
the client to the first, where there are two) with a known capacity R (``--rate``): at most R requests a second begin,
after a burst of ``--burst`` at once, the others queued in arrival order (the generic cell rate algorithm, on the
server's clock); each streams its set TTFT and ITL. Below R a request waits only when Poisson's bunching outruns the
burst allowance, briefly; above R the queue grows for as long as the level lasts, and the TTFT with it: a server that
holds the SLO up to exactly R, then queues. (``--slots N`` instead caps the requests streaming at once, a batch of
max-num-seqs: its capacity, N over the service time, is read from the server's own stamps; under Poisson arrivals
such a server queues well before it, so the answer sits below it by the queueing a p99 SLO allows.)

Each run is `cardbench run serve --find-max --slo SLO` as a user runs it (the workload's main, in this process):
a saturation run at concurrency 32, then the search on Poisson rates, each level a twelfth of the budget long.
Telling R from 5 % above it takes levels of thousands of requests: Poisson's count over a level of R x D requests
wanders by its square root, and 5 % must stand clear of that (R = 200/s over 20 s: 4,000 requests, 200 of them the
5 %, against a wander of 63); at 40/s the same levels could not tell 0.95 R from R. Printed per run: the levels tried with their
verdicts, the answer (the highest rate that held), its bracket, the levels it took and the time; then the answers'
spread over the runs and each against R, with each level's send lag and its load against the client's own ceiling
(measured in the run; keep it under 30 %, or the answers measure the client: --rate sets R) and the host's load
average after each run. Goal: every answer within 5 % of R, in at most 8 levels after the
saturation run.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from workloads.child.harness import Emitter, run_main  # noqa: E402
from workloads.serve.answer import answer_message  # noqa: E402
from workloads.serve.cli import main as serve_main  # noqa: E402
from workloads.serve.client import Connection, Endpoint, get_json  # noqa: E402
from workloads.serve.table import answer_row  # noqa: E402

GOAL = 0.05
LEVELS_GOAL = 8


def pin(pid: int, core: int) -> None:
    if hasattr(os, "sched_setaffinity") and (os.cpu_count() or 1) > 1:
        os.sched_setaffinity(pid, {core})


def start_server(args: argparse.Namespace) -> tuple[subprocess.Popen, str]:
    server = subprocess.Popen([sys.executable, "-m", "workloads.serve.testserver", "--slots", str(args.slots),
                               "--rate", str(args.rate), "--burst", str(args.burst), "--ttft-ms", str(args.ttft_ms),
                               "--itl-ms", str(args.itl_ms)], stdout=subprocess.PIPE, text=True)
    port = int(server.stdout.readline().rsplit(":", 1)[1])
    pin(server.pid, 1)
    return server, f"http://127.0.0.1:{port}/v1"


def server_capacity(url: str, slots: int) -> tuple[float, int]:
    """R = slots / the mean service time on the server's own clock (slot taken -> last token written)."""
    async def stamps() -> dict:
        conn = Connection(Endpoint.parse(url))
        try:
            return (await get_json(conn, "/debug/timestamps"))[1]
        finally:
            conn.close()

    found = asyncio.run(stamps())
    service = [s["last"] - s["started"] for s in found.values() if s.get("started") and s.get("last")]
    return slots / statistics.fmean(service), len(service)


def one_run(url: str, args: argparse.Namespace) -> tuple[dict, float]:
    out = io.StringIO()
    argv = ["--url", url, "--find-max", "--slo", args.slo, "--budget", str(args.budget), "--concurrency",
            "32", "--input-len", "16", "--output-len", str(args.output_len), "--seed", "0"]
    started = time.perf_counter()
    code = run_main(serve_main, argv, emitter=Emitter(stream=out))
    took = time.perf_counter() - started
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    result = next((e["metrics"] for e in events if e["event"] == "result"), None)
    if code != 0 or result is None:
        sys.exit(f"serve_find_max: the run failed (exit {code}): "
                 + next((e.get("message", "") for e in events if e["event"] == "error"), "no result"))
    return result, took


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--budget", type=float, default=240.0, help="each search's --budget (its levels last a twelfth)")
    p.add_argument("--rate", type=float, default=200.0, help="the server's capacity R in requests/s (0: none)")
    p.add_argument("--burst", type=int, default=50)
    p.add_argument("--slots", type=int, default=0, help="at most N requests streaming at once (0: no cap)")
    p.add_argument("--ttft-ms", type=float, default=10.0)
    p.add_argument("--itl-ms", type=float, default=2.0)
    p.add_argument("--output-len", type=int, default=4)
    p.add_argument("--slo", default="ttft_p99=500,tpot_p99=100")
    args = p.parse_args()
    pin(0, 0)
    server, url = start_server(args)
    answers = []
    try:
        for k in range(1, args.runs + 1):
            m, took = one_run(url, args)
            loads = ", ".join(f"{v:.1f}" for v in os.getloadavg())   # `uptime`'s: the host the client shared
            print(f"run {k}: {answer_message(m, answer_row(m.get('levels'), m, missed=True))} [{took:.0f} s; load average after "
                  f"it {loads} on {os.cpu_count()} cores]")
            for row in m["levels"]:
                verdict = "holds" if row.get("slo_holds") else "misses"
                share = row.get("client_share")
                print(f"    {row['level']:>28}: {verdict:6} ({row.get('slo_attained', 0):.1%} within the SLO), TTFT p99 "
                      f"from the due time {row.get('ttft_sched_ms_p99') or float('nan'):.0f} ms, send lag p99 "
                      f"{row.get('lag_ms_p99') or float('nan'):.1f} ms, served {row.get('request_throughput') or 0:.1f} "
                      f"req/s, client load {'N/A' if share is None else f'{share:.0%}'}")
            answers.append((m.get("max_rate"), m.get("missed_rate"), m["search_levels"], m["saturation_rps"]))
        capacity, counted = (args.rate, 0) if args.rate else server_capacity(url, args.slots)
    finally:
        server.terminate()
        server.wait()
    if args.rate:
        print(f"\nthe server's capacity R = {args.rate:g} requests/s (set: at most that many begin a second, after a "
              f"burst of {args.burst}; TTFT {args.ttft_ms:g} ms, ITL {args.itl_ms:g} ms, {args.output_len} tokens)")
    else:
        print(f"\nthe server's capacity R = {args.slots} slots / its mean service time on its own clock = "
              f"{capacity:.1f} requests/s ({counted} requests)")
    held = [a for a, *_ in answers if a is not None]
    ok = len(held) == len(answers)
    for k, (holds, missed, levels, sat) in enumerate(answers, 1):
        off = (holds - capacity) / capacity if holds is not None else float("nan")
        ok = ok and abs(off) <= GOAL and levels <= LEVELS_GOAL
        print(f"run {k}: {holds} req/s holds, {missed} does not; {off:+.1%} off R; {levels} levels after a "
              f"saturation run at {sat:.1f} req/s")
    if len(held) > 1:
        spread = (max(held) - min(held)) / statistics.fmean(held)
        print(f"spread of the answers over {len(held)} runs: {min(held):g} to {max(held):g} req/s "
              f"({spread:.1%} of their mean)")
    print(f"goal (each within {GOAL:.0%} of R, in at most {LEVELS_GOAL} levels): {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
