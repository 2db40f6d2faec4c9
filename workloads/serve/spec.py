"""What the workbench, the report and compare know of `cardbench run serve` (torch-free)."""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from workloads.catalogue import Message
from workloads.serve.requests_csv import REQUESTS_CSV
from workloads.serve.result_record import ServeResult
from workloads.spec import Param, SuiteArgs, WorkloadSpec, flag_value, option

WINDOW_S = 60.0   # --duration's rows: a minute each, or a fifth of a shorter run (a soak: of its interval)
RUN_FILES = (REQUESTS_CSV,)   # the bundle carries each request's row beside the events


def default_window(seconds: float) -> float:
    return min(WINDOW_S, seconds / 5)


def windows(duration_s: float, window_s: float) -> int:
    """The rows (and steps) of a --duration run: the last may be short, and it ends with the requests in flight."""
    return max(1, math.ceil(duration_s / window_s - 1e-9))


def planned_steps(args: Sequence[str], config: Mapping[str, Any]) -> int | None:
    """One step per level of the sweep, or per window of a --duration run; --find-max: at most its levels and the
    saturation run (the search may stop sooner)."""
    if any(a == "--find-max" or a.startswith("--find-max=") for a in args):
        return 1 + int(option(args, "--max-levels", 8) or 8)
    duration = option(args, "--duration")
    if duration and duration > 0:
        window = option(args, "--window") or default_window(duration)
        return windows(duration, window) if window > 0 else None
    text = flag_value(args, "--request-rate") or flag_value(args, "--concurrency") or "1,4,16,64"
    return len([p for p in text.split(",") if p.strip()]) or None


def steady(args: Sequence[str], seconds: float, interval_s: float) -> list[str]:
    """A soak's serve run: its one level kept busy for ``seconds`` (``--duration``: no pause between runs), a row of
    figures every fifth of an interval (at most a minute), so each interval's median is over several windows."""
    out = list(args)
    if flag_value(out, "--duration") is None:
        out += ["--duration", f"{seconds:.3f}"]
        if flag_value(out, "--window") is None:
            out += ["--window", f"{default_window(interval_s):g}"]
    return out


# every level a few dozen requests of 32 tokens in and out: what the table needs, in a fraction of a second
_SUITE = ("--test-server", "--concurrency", "1,4,16", "--requests", "48", "--input-len", "32", "--output-len", "32")

SPEC = WorkloadSpec(
    name="serve",
    title=Message("workload.serve.title"),
    result=ServeResult,
    params=(
        Param("url", "server URL", "--url", "", placeholder="http://127.0.0.1:8000/v1"),
        Param("model", "model", "--model", "", placeholder="the first the server lists"),
        Param("endpoint", "endpoint", "--endpoint", "completions", "choice", ("completions", "chat")),
        Param("concurrency", "concurrency levels", "--concurrency", "1,4,16,64", placeholder="1,4,16,64",
              omit=("1,4,16,64",)),
        Param("request_rate", "or request rates (req/s)", "--request-rate", "", placeholder="none: the concurrency sweep"),
        Param("input_len", "input tokens", "--input-len", "128", "int", omit=("128",), max=1_000_000),
        Param("output_len", "output tokens", "--output-len", "128", "int", omit=("128",), max=1_000_000),
        Param("slo", "SLO for goodput", "--slo", "", placeholder="ttft=500,tpot=50 (ms)"),
        Param("api_key_env", "API key variable", "--api-key-env", "", placeholder="MY_KEY (its name, not the key)"),
        Param("launch", "launch the server", "--launch", "", placeholder="vllm serve MODEL --port 8000"),
    ),
    # the standard suite loads cardbench's own test server (a user's server is theirs to name: `cardbench run serve
    # --url`), so the report shows the sweep's table and what the client and the host sustain; well under a second
    suite=SuiteArgs(standard=_SUITE, cpu_standard=_SUITE, suites=("standard",)),
    progress=Message("workload.serve.progress"),
    has_loss=False,
    warmup_emits_steps=False,
    planned_steps=planned_steps,
    steady=steady,
    short="Serve",
    run_files=RUN_FILES,
)
