"""What the workbench, the report and compare know of `cardbench run serve` (torch-free)."""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from workloads.spec import Metric, Param, SuiteArgs, Text, WorkloadSpec, flag_value, option

WINDOW_S = 60.0   # --duration's rows: a minute each, or a fifth of a shorter run (a soak: of its interval)


def default_window(seconds: float) -> float:
    return min(WINDOW_S, seconds / 5)


def windows(duration_s: float, window_s: float) -> int:
    """The rows (and steps) of a --duration run: the last may be short, and it ends with the requests in flight."""
    return max(1, math.ceil(duration_s / window_s - 1e-9))


def planned_steps(args: Sequence[str], config: Mapping[str, Any]) -> int | None:
    """One step per level of the sweep, or per window of a --duration run."""
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


def report_table(metrics: Mapping[str, Any]) -> tuple[Any, list[Any], list[list[str]]]:
    from workloads.serve.table import report_table as table

    return table(metrics)


def read_against(metrics: Mapping[str, Any]) -> Text | None:
    """The headline beside the sweep's first level and its bound (the step median would be over levels)."""
    from workloads.serve.bounds import read_against as against

    return against(metrics)


# every level a few dozen requests of 32 tokens in and out: what the table needs, in a fraction of a second
_SUITE = ("--test-server", "--concurrency", "1,4,16", "--requests", "48", "--input-len", "32", "--output-len", "32")
_LAST = "at the sweep's last level"
_LAST_ZH = "扫描最后一档"

SPEC = WorkloadSpec(
    name="serve",
    title=Text("Serve (load on your inference server)", "推理服务压测（您的推理服务）"),
    unit="tokens/s",
    headline="output_tokens_per_s",
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
    metrics=(
        Metric("output_tokens_per_s", Text(f"output tokens/s {_LAST}", f"{_LAST_ZH}的输出 token/秒"), "rate"),
        Metric("total_tokens_per_s", Text(f"input + output tokens/s {_LAST}", f"{_LAST_ZH}的输入+输出 token/秒"), "rate"),
        Metric("request_throughput", Text(f"requests/s {_LAST}", f"{_LAST_ZH}的请求/秒"), "rate"),
        Metric("goodput", Text(f"goodput {_LAST}: requests/s meeting --slo", f"{_LAST_ZH}的有效吞吐：满足 --slo 的请求/秒"),
               "rate"),
        Metric("ttft_ms_p50", Text("ms time to first token (TTFT), p50", "首 token 时间（TTFT，毫秒），p50")),
        Metric("ttft_ms_p99", Text("ms time to first token, p99", "首 token 时间（毫秒），p99")),
        Metric("tpot_ms_p50", Text("ms per output token after the first (TPOT), p50", "首个之后每输出 token 时间（TPOT，毫秒），p50")),
        Metric("tpot_ms_p99", Text("ms per output token after the first (TPOT), p99", "首个之后每输出 token 时间（TPOT，毫秒），p99")),
        Metric("itl_ms_p50", Text("ms between tokens (ITL), p50", "token 间隔（ITL，毫秒），p50")),
        Metric("e2el_ms_p50", Text("ms end-to-end per request, p50", "每请求端到端时间（毫秒），p50")),
        Metric("at_level", Text("the level those figures are from", "上述指标所在档位"), "text"),
        Metric("served_model", Text("served model", "服务的模型"), "text"),
        Metric("endpoint", Text("endpoint", "接口"), "text"),
        Metric("input_len", Text("input tokens asked per request", "每请求输入 token 数")),
        Metric("output_len", Text("output tokens asked per request (max_tokens)", "每请求输出 token 数（max_tokens）")),
        Metric("tokens_from", Text("output tokens counted from", "输出 token 的计数来源"), "text"),
        Metric("requests", Text("requests sent, all levels", "发送的请求（全部档位）")),
        Metric("errors", Text("failed requests, all levels (by kind in the table's warnings)",
                              "失败请求（全部档位，分类见警告）")),
    ),
    line_metrics=(Metric("ttft_ms_p50", Text("TTFT p50 ms", "TTFT p50 毫秒")),
                  Metric("tpot_ms_p50", Text("TPOT p50 ms", "TPOT p50 毫秒")),
                  Metric("errors", Text("failed requests", "失败请求"))),
    progress=Text("level", "档位"),
    has_loss=False,
    warmup_emits_steps=False,
    planned_steps=planned_steps,
    steady=steady,
    report_table=report_table,
    read_against=read_against,
    short="Serve",
)
