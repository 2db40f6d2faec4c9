"""`cardbench run serve` against NVIDIA's AIPerf (and GuideLLM where it is installed) on the same server at the same
load: output tokens/s, TTFT p50/p99 and TPOT p50 side by side, each with the definition where the tools differ.

    .venv/bin/python bench/serve_vs_aiperf.py --aiperf /tmp/aiperf-venv/bin/aiperf [--concurrency 4] [--requests 64]
        [--request-rate R [--smoothness 100]] [--input-len 32] [--output-len 16] [--ttft-ms 20] [--itl-ms 5]
        [--guidellm /tmp/guidellm-venv/bin/guidellm]

AIPerf is installed apart (it pins its own libraries): ``python3 -m venv /tmp/aiperf-venv &&
/tmp/aiperf-venv/bin/pip install aiperf``. Nothing is downloaded while it runs: AIPerf wants a tokenizer to make and
count its prompts, and its ``builtin`` one fetches tiktoken's table from the network, so the script builds a local
byte-level BPE in AIPerf's own environment (tokenizers is among its requirements) whose every prompt word of
cardbench's (workloads/serve/load.py WORDS) is one token, and asks AIPerf to count output tokens from the server's
usage field (``--use-server-token-count``), as cardbench does.

The server: cardbench's test server in a process of its own, each request its set TTFT and ITL (the floor both
tools' figures sit above: TTFT >= the set TTFT, TPOT >= the set ITL), pinned to one core and every client (this
process, AIPerf's processes) to the other: unpinned on a shared two-core host, AIPerf's dozen processes starve the
server's own timers and the two tools measure two different servers. Both tools run a closed loop of --concurrency
streams (or, with --request-rate, an open loop at that rate with gamma arrivals of shape --smoothness, the same
distribution in both tools) and --requests requests, /v1/completions, streamed, ``ignore_eos`` and ``max_tokens`` = --output-len (AIPerf
sends ``max_tokens`` on /v1/completions from --osl, ``ignore_eos`` from --extra-inputs, and
``stream_options.include_usage`` on every stream, as cardbench does). Beside each tool's figures the table prints
what the server did for that tool's requests on its own clock (/debug/timestamps): the requests and output tokens it
wrote, its TTFT (the request's arrival to its first token written), TPOT (first to last token written) and output
tokens/s (first arrival to last token): where the tools disagree and the server's columns agree, the difference is
the client's; where the server's columns differ too, the two tools did not send the same load.

Definitions, where they differ:
- TTFT: cardbench's from the request's bytes written to the kernel's receive stamp of the first chunk with text
  (vLLM's definition, stamps from the kernel: workloads/serve/client.py); AIPerf's from its worker's request start,
  before the connection (http_req_connecting is inside it for a new connection), to its own read of the first chunk.
- TPOT: both (latency - TTFT) / (output tokens - 1) per request, p50 over requests (AIPerf calls it
  inter_token_latency).
- output tokens/s: both the output tokens over the benchmark's duration, first send to last answer (AIPerf's
  benchmark_duration: its max response timestamp less its min request timestamp).
- the load itself: a closed loop of N streams is N in flight only while the client sends its next request the
  moment an answer ends; AIPerf's worker hands its credit back to its timing process (ZMQ, another process) before
  the next is issued, which on a busy core leaves a stream idle for milliseconds a request: the server's "requests in
  flight, mean" row shows the load each tool gave it, and the output tokens/s follow it. An open loop
  (--request-rate) gives both the same offered load whatever that gap.
- input length: both send cardbench's own prompts of --input-len words (one token each on this server): AIPerf's
  from a single-turn file, in order (its own synthetic text cut to --isl tokens of the local tokenizer came to a
  third as many words: 11.6 for 32).
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workloads.child.harness import Emitter, run_main  # noqa: E402
from workloads.serve.cli import main as serve_main  # noqa: E402
from workloads.facts.percentile import percentile  # noqa: E402
from workloads.serve.client import Connection, Endpoint, get_json  # noqa: E402
from workloads.serve.load import synthetic  # noqa: E402

TOKENIZER = textwrap.dedent("""
    import sys
    sys.path.insert(0, sys.argv[2])
    from workloads.serve.load import WORDS
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=1200, special_tokens=["<|endoftext|>"], show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator([" " + " ".join(WORDS)] * 20 + [" " + " ".join(map(str, range(1000)))] * 5, trainer)
    PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|endoftext|>",
                            pad_token="<|endoftext|>").save_pretrained(sys.argv[1])
""")


CLIENT_CORE, SERVER_CORE = 0, 1


def pin(pid: int, core: int) -> None:
    """One core each for the server and the client (whichever tool): on a shared host of two cores, a client of
    many processes (AIPerf's) starves the server's own timers on the core they share, and the two tools measure two
    servers."""
    if hasattr(os, "sched_setaffinity") and (os.cpu_count() or 1) > 1:
        os.sched_setaffinity(pid, {core})


def start_server(args: argparse.Namespace) -> tuple[subprocess.Popen, int]:
    server = subprocess.Popen([sys.executable, "-m", "workloads.serve.testserver", "--ttft-ms", str(args.ttft_ms),
                               "--itl-ms", str(args.itl_ms)], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    pin(server.pid, SERVER_CORE)
    return server, int(server.stdout.readline().rsplit(":", 1)[1])


def server_stamps(port: int) -> dict[str, dict]:
    """The test server's own clock for every request it has answered (its id -> arrival, first and last token
    written, tokens written)."""
    async def ask() -> dict:
        conn = Connection(Endpoint.parse(f"http://127.0.0.1:{port}/v1"))
        try:
            return (await get_json(conn, "/debug/timestamps"))[1]
        finally:
            conn.close()

    return asyncio.run(ask())


def served(port: int, before: set[str]) -> dict:
    """What the server did for one tool's requests (those it stamped since ``before``), on its own clock: the
    load each tool asked for, as the server saw it."""
    new = [s for rid, s in server_stamps(port).items() if rid not in before and s.get("first") and s.get("last")]
    new = [s for s in new if s["tokens"] > 2]    # the tools' probes aside (cardbench's first request asks 2 tokens)
    tpot = [(s["last"] - s["first"]) / (s["tokens"] - 1) * 1000 for s in new]
    ttft = [(s["first"] - s["arrived"]) * 1000 for s in new]
    span = max(s["last"] for s in new) - min(s["arrived"] for s in new) if new else 0.0
    busy = sum(s["last"] - s["arrived"] for s in new)
    return {"requests the server answered": len(new), "output tokens the server wrote": sum(s["tokens"] for s in new),
            "server: requests in flight, mean (the load it was given)": busy / span if span else None,
            "server: TTFT p50 ms (arrival to first token)": statistics.median(ttft) if ttft else None,
            "server: TTFT p99 ms": percentile(ttft, 99) if ttft else None,
            "server: TPOT p50 ms (first to last token)": statistics.median(tpot) if tpot else None,
            "server: output tokens/s (first arrival to last token)":
                sum(s["tokens"] for s in new) / span if span else None}


def cardbench(port: int, args: argparse.Namespace) -> dict:
    out = io.StringIO()
    load = (["--request-rate", f"{args.request_rate:g}", "--burstiness", f"{args.smoothness:g}"] if args.request_rate
            else ["--concurrency", str(args.concurrency)])
    code = run_main(serve_main, ["--url", f"http://127.0.0.1:{port}/v1", *load, "--requests", str(args.requests),
                                 "--input-len", str(args.input_len), "--output-len", str(args.output_len)],
                    emitter=Emitter(stream=out))
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    result = next((e["metrics"] for e in events if e["event"] == "result"), None)
    if code != 0 or result is None:
        sys.exit(f"serve_vs_aiperf: cardbench run serve failed (exit {code})")
    row = result["levels"][-1]
    return {"output tokens/s": row["output_tokens_per_s"], "TTFT p50 ms": row["ttft_ms_p50"],
            "TTFT p99 ms": row["ttft_ms_p99"], "TPOT p50 ms": row["tpot_ms_p50"],
            "input tokens a request (server's count)": row["input_tokens"] / max(1, row["completed"]),
            "requests/s": row["request_throughput"]}


def same_prompts(args: argparse.Namespace, tmp: Path) -> Path:
    """cardbench's own prompts for the level (workloads.serve.load.synthetic, its seed and numbering: the sweep's
    first level), as AIPerf's single-turn JSON lines with their output length: AIPerf's synthetic prompts of --isl
    tokens of its tokenizer are a third as many words, which the server counts."""
    path = tmp / "prompts.jsonl"
    lines = (json.dumps({"text": t, "output_length": args.output_len})
             for t in synthetic(args.requests, args.input_len, 0))
    path.write_text("\n".join(lines) + "\n")
    return path


def load_of(args: argparse.Namespace) -> list[str]:
    """AIPerf's arguments for the load cardbench is given: the closed loop, or the open one at the same rate with
    the same gamma arrivals (its --arrival-smoothness is vLLM's --burstiness, and cardbench's)."""
    if args.request_rate:
        return ["--request-rate", f"{args.request_rate:g}", "--arrival-pattern", "gamma", "--arrival-smoothness",
                f"{args.smoothness:g}"]
    return ["--concurrency", str(args.concurrency)]


def aiperf(binary: str, port: int, args: argparse.Namespace, tmp: Path) -> dict:
    python = Path(binary).with_name("python")
    subprocess.run([str(python), "-c", TOKENIZER, str(tmp / "tok"), str(ROOT)], check=True, capture_output=True)
    out = tmp / "aiperf"
    argv = [binary, "profile", "--model", "test-model", "--url", f"http://127.0.0.1:{port}", "--endpoint-type",
            "completions", "--streaming", *load_of(args), "--request-count",
            str(args.requests), "--input-file", str(same_prompts(args, tmp)), "--custom-dataset-type", "single_turn",
            "--dataset-sampling-strategy", "sequential", "--osl", str(args.output_len), "--extra-inputs",
            "ignore_eos:true", "--use-server-token-count", "--tokenizer", str(tmp / "tok"), "--random-seed", "0",
            "--output-artifact-dir", str(out)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=900)
    found = out / "profile_export_aiperf.json"
    if done.returncode != 0 or not found.is_file():
        sys.exit(f"serve_vs_aiperf: aiperf exited {done.returncode}: {(done.stderr or done.stdout)[-600:]}")
    d = json.loads(found.read_text())
    return {"output tokens/s": d["output_token_throughput"]["avg"], "TTFT p50 ms": d["time_to_first_token"]["p50"],
            "TTFT p99 ms": d["time_to_first_token"]["p99"], "TPOT p50 ms": d["inter_token_latency"]["p50"],
            "input tokens a request (server's count)": d.get("usage_prompt_tokens", {}).get("avg"),
            "requests/s": d["request_throughput"]["avg"]}


def guidellm(binary: str, port: int, args: argparse.Namespace, tmp: Path) -> dict | None:
    """GuideLLM where it runs here; None (said) where it does not."""
    out = tmp / "guidellm.json"
    argv = [binary, "benchmark", "--target", f"http://127.0.0.1:{port}", "--model", "test-model",
            "--processor", str(tmp / "tok"), "--rate-type", "concurrent", "--rate", str(args.concurrency),
            "--max-requests", str(args.requests),
            "--data", f"prompt_tokens={args.input_len},output_tokens={args.output_len}", "--output-path", str(out)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=900)
    if done.returncode != 0 or not out.is_file():
        print(f"guidellm did not run here (exit {done.returncode}): {(done.stderr or done.stdout)[-300:]}")
        return None
    bench = json.loads(out.read_text())["benchmarks"][0]["metrics"]
    pick = lambda name, q: bench[name]["successful"]["percentiles"][q]   # noqa: E731
    return {"output tokens/s": bench["output_tokens_per_second"]["successful"]["mean"],
            "TTFT p50 ms": pick("time_to_first_token_ms", "p50"), "TTFT p99 ms": pick("time_to_first_token_ms", "p99"),
            "TPOT p50 ms": pick("time_per_output_token_ms", "p50"),
            "input tokens a request (server's count)": None,
            "requests/s": bench["requests_per_second"]["successful"]["mean"]}


def measured(port: int, args: argparse.Namespace, tmp: Path) -> dict[str, dict]:
    """Each tool's figures, and beside them what the server did for its requests on its own clock."""
    columns: dict[str, dict] = {}
    tools = {"cardbench": lambda: cardbench(port, args), "AIPerf": lambda: aiperf(args.aiperf, port, args, tmp)}
    if os.access(args.guidellm, os.X_OK):
        tools["GuideLLM"] = lambda: guidellm(args.guidellm, port, args, tmp)
    for name, run in tools.items():
        before = set(server_stamps(port))
        found = run()
        if found:
            columns[name] = {**found, **served(port, before)}
    return columns


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--aiperf", default=shutil.which("aiperf") or "/tmp/aiperf-venv/bin/aiperf")
    p.add_argument("--guidellm", default=shutil.which("guidellm") or "/tmp/guidellm-venv/bin/guidellm")
    p.add_argument("--concurrency", type=int, default=4)
    p.add_argument("--requests", type=int, default=64)
    p.add_argument("--input-len", type=int, default=32)
    p.add_argument("--output-len", type=int, default=16)
    p.add_argument("--request-rate", type=float, default=0.0,
                   help="an open loop at R requests/s instead of --concurrency: the same offered load whatever each "
                        "client's gap between one answer and its next send")
    p.add_argument("--smoothness", type=float, default=100.0,
                   help="with --request-rate: the gamma shape of both tools' arrivals (1 Poisson; 100 nearly even)")
    p.add_argument("--ttft-ms", type=float, default=20.0)
    p.add_argument("--itl-ms", type=float, default=5.0)
    args = p.parse_args()
    if not os.access(args.aiperf, os.X_OK):
        print(f"serve_vs_aiperf: no aiperf at {args.aiperf}: python3 -m venv /tmp/aiperf-venv && "
              "/tmp/aiperf-venv/bin/pip install aiperf; then --aiperf /tmp/aiperf-venv/bin/aiperf", file=sys.stderr)
        return 2
    pin(0, CLIENT_CORE)    # this process (cardbench's client) and every tool it starts: the client's core
    server, port = start_server(args)
    try:
        with tempfile.TemporaryDirectory(prefix="serve-vs-aiperf-") as tmp:
            started = time.perf_counter()
            columns = measured(port, args, Path(tmp))
            took = time.perf_counter() - started
    finally:
        server.terminate()
        server.wait()
    load = (f"{args.request_rate:g} requests/s (gamma arrivals of shape {args.smoothness:g})" if args.request_rate
            else f"concurrency {args.concurrency}")
    print(f"the test server: TTFT {args.ttft_ms:g} ms, ITL {args.itl_ms:g} ms set; {load}, "
          f"{args.requests} requests, {args.input_len} tokens in, {args.output_len} out, /v1/completions streamed; "
          f"the server on core {SERVER_CORE}, each client on core {CLIENT_CORE} ({took:.0f} s in all; load average "
          f"{', '.join(f'{v:.1f}' for v in os.getloadavg())} on {os.cpu_count()} cores)")
    names = list(columns)
    print(f"{'':56}" + "".join(f"{n:>12}" for n in names) + "   AIPerf / cardbench")
    for figure in columns["cardbench"]:
        values = [columns[n].get(figure) for n in names]
        cells = "".join(f"{v:>12.2f}" if isinstance(v, (int, float)) else f"{'N/A':>12}" for v in values)
        a, c = columns.get("AIPerf", {}).get(figure), columns["cardbench"].get(figure)
        ratio = f"{a / c - 1:+.1%}" if isinstance(a, (int, float)) and c else "N/A"
        print(f"{figure:56}{cells}   {ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
