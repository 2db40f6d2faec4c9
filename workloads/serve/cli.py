"""`python -m workloads.serve --url http://HOST:PORT/v1 [--model NAME] ...` (`cardbench run serve`).

Streamed requests to an OpenAI-compatible server (vLLM, SGLang, TGI, llama.cpp's server, a vendor's fork),
a level at a time: a concurrency sweep (``--concurrency 1,4,16,64``) or Poisson arrivals
(``--request-rate 2,8``), each level's figures as vLLM's serving benchmark defines them
(:mod:`~workloads.serve.figures`). ``--launch "CMD"`` starts the server first and stops it at the end
(:mod:`~workloads.serve.launch`). The key is read from ``--api-key-env VAR``, never from the command line,
and is written nowhere. The card's telemetry is sampled by the parent (`cardbench run`), as for every workload.
Bad input is refused before anything runs (exit 2); a server that cannot be reached, is not OpenAI's API,
does not serve the model or wants a key is one line (exit 1); errors during the sweep are counted by kind,
and a server that dies ends the sweep with the levels measured so far in the result.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Sequence

from workloads.child.harness import (ArgumentParser, Emitter, WorkloadError, arguments_checked, positive_float,
                                     positive_int)
from workloads.jobs.device_env import device_env
from workloads.serve.client import BadUrl, Endpoint
from workloads.serve.find_max import SATURATION_CONCURRENCY
from workloads.serve.slo import Slo
from workloads.serve.testserver import Behaviour
from workloads.serve.traffic import SharedPrefix, Traffic, read_trace
from workloads.serve.conversation import MultiTurn
from workloads.serve.launch import command_of
from workloads.serve.load import BadPrompts, Level, read_prompts
from workloads.serve.spec import WINDOW_S, default_window

DEFAULT_URL = "http://127.0.0.1:8000/v1"
LEVELS_MAX = 64
STEADY_CONCURRENCY = 16    # --duration's level when none is given: one level, the sweep's third


def build_parser() -> ArgumentParser:
    p = ArgumentParser(prog="serve", description="Load on your OpenAI-compatible inference server, measured as "
                                                 "its users see it: TTFT, TPOT, ITL, latency, tokens/s, goodput.")
    p.add_argument("--url", default=None, help=f"the API's base (default with --launch: {DEFAULT_URL})")
    p.add_argument("--model", default=None, help="the served model's name (default: the first /v1/models lists)")
    p.add_argument("--endpoint", choices=("completions", "chat"), default="completions",
                   help="/v1/completions (default) or /v1/chat/completions")
    p.add_argument("--concurrency", default=None, metavar="N,N...",
                   help="requests in flight, one level each (default 1,4,16,64)")
    p.add_argument("--request-rate", default=None, metavar="R,R...",
                   help="Poisson arrivals at R requests/s, one level each, instead of --concurrency")
    p.add_argument("--max-concurrency", type=positive_int, default=256, metavar="N",
                   help="with --request-rate: at most N in flight (default 256)")
    p.add_argument("--requests", type=positive_int, default=None, metavar="N",
                   help="requests per level (default: 4 x the concurrency, at least 16; 64 per rate)")
    p.add_argument("--duration", type=positive_float, default=None, metavar="S",
                   help="keep one level busy for S seconds instead of a sweep (default level: concurrency "
                        f"{STEADY_CONCURRENCY}), a row and a step every --window: the soak's steady load")
    p.add_argument("--window", type=positive_float, default=None, metavar="S",
                   help=f"with --duration: seconds per row of figures (default {WINDOW_S:g}, or a fifth of a shorter "
                        "--duration)")
    p.add_argument("--input-len", type=positive_int, default=128, metavar="TOKENS", help="prompt length (default 128)")
    p.add_argument("--output-len", type=positive_int, default=128, metavar="TOKENS",
                   help="max_tokens, with ignore_eos where the server takes it (default 128)")
    p.add_argument("--prompts", type=Path, default=None, metavar="FILE",
                   help="your prompts, JSON lines of {\"prompt\": ...} or {\"messages\": [...]}")
    p.add_argument("--slo", default=None, metavar="ttft_p99=MS,tpot_p99=MS",
                   help="latency targets in ms (ttft, tpot, e2el; _p99, _p90... the share of requests each holds for; "
                        "attainment=0.99 the share meeting all): goodput and each level's verdict")
    p.add_argument("--timeout", type=positive_float, default=600.0, metavar="S", help="per request (default 600)")
    p.add_argument("--seed", type=int, default=0, help="of the prompts and the arrivals (default 0)")
    p.add_argument("--api-key-env", default=None, metavar="VAR",
                   help="the environment variable holding the API key (never the key itself)")
    p.add_argument("--launch", default=None, metavar="'CMD ARGS'", help="start the server with this command first")
    p.add_argument("--test-server", action="store_true",
                   help="load cardbench's own local test server instead of yours (it streams tokens with no model and "
                        "no delay): the figures are the client's and the host's, not a card's; the headless suite's "
                        "serve run, and a way to try the workload")
    p.add_argument("--test-server-set", default=None, metavar="ttft=MS,itl=MS,slots=N",
                   help="with --test-server: its delays (default ttft=2,itl=0.5), at most N requests at once (a known "
                        "capacity of N / (ttft + (output-len - 1) x itl) requests/s), max_len=TOKENS (longer: HTTP 400), "
                        "prefill=MS a prompt token not in its prefix cache")
    p.add_argument("--launch-timeout", type=positive_float, default=900.0, metavar="S",
                   help="seconds the launched server has to answer /health (default 900)")
    p.add_argument("--device", default="auto", metavar="DEVICE",
                   help="with --launch: the card(s) the server sees, cuda:N or N,M (CUDA_VISIBLE_DEVICES), or cpu; "
                        "auto (default) leaves its environment as it is")
    p.add_argument("--grace", type=positive_float, default=10.0, metavar="S",
                   help="seconds between SIGTERM and SIGKILL when the launched server is stopped (default 10)")
    add_search_and_traffic(p)
    return p


def add_search_and_traffic(p: ArgumentParser) -> None:
    """--find-max's arguments and the traffic shapes' (workloads.serve.find_max, workloads.serve.traffic,
    workloads.serve.conversation)."""
    p.add_argument("--find-max", nargs="?", const="rate", choices=("rate", "concurrency"), default=None,
                   help="find the highest Poisson rate (or concurrency) that holds --slo: a saturation run at "
                        "--concurrency N (default 64), then a bracketing search")
    p.add_argument("--budget", type=positive_float, default=600.0, metavar="S",
                   help="with --find-max: the search's time budget in seconds (default 600)")
    p.add_argument("--max-levels", type=positive_int, default=8, metavar="N",
                   help="with --find-max: at most N levels after the saturation run (default 8)")
    p.add_argument("--shared-prefix", default=None, metavar="G,P,S,Q",
                   help="G groups of P prompts, each group sharing a system prompt of S tokens, each prompt its own "
                        "question of Q tokens (SGLang's generated-shared-prefix): a level's requests; the TTFT of a "
                        "group's first request against its later ones is the prefix cache's effect")
    p.add_argument("--multi-turn", default=None, metavar="N[,THINK_S]",
                   help="conversations of N turns, the whole history sent each turn, THINK_S seconds between an "
                        "answer and the next turn; --concurrency is the conversations at once; per-turn TTFT")
    p.add_argument("--trace", type=Path, default=None, metavar="FILE",
                   help="replay a trace at its own arrival times: Mooncake's JSON lines (timestamp ms, input_length, "
                        "output_length, hash_ids) or BurstGPT's CSV (Timestamp, Request tokens, Response tokens); "
                        "the first --requests rows (default 100000)")
    p.add_argument("--trace-speed", type=positive_float, default=1.0, metavar="X",
                   help="with --trace: its times divided by X (2: twice as fast; default 1)")
    p.add_argument("--burstiness", type=positive_float, default=1.0, metavar="K",
                   help="rate levels: gamma-distributed gaps of shape K (1, the default, is Poisson; under 1 bursts)")


def search_checked(args: Any) -> None:
    """--find-max's arguments against each other (a WorkloadError naming the clash)."""
    if not args.find_max:
        for flag, value, default in (("--budget", args.budget, 600.0), ("--max-levels", args.max_levels, 8)):
            if value != default:
                raise WorkloadError(f"{flag} is the search's: give --find-max too")
        return
    if not args.slo:
        raise WorkloadError("--find-max searches for the highest load that holds a latency target: give --slo",
                            hint="e.g. --find-max --slo ttft_p99=500,tpot_p99=50")
    for flag, clash in (("--request-rate", args.request_rate), ("--duration", args.duration)):
        if clash:
            raise WorkloadError(f"--find-max chooses the levels itself: {flag} does not go with it",
                                hint="--concurrency N sets its saturation run (default 64)")
    if args.concurrency and "," in args.concurrency.strip(","):
        raise WorkloadError(f"--find-max: --concurrency {args.concurrency!r} is its one saturation level: give one number")
    if args.max_levels > LEVELS_MAX:
        raise WorkloadError(f"--max-levels {args.max_levels}: at most {LEVELS_MAX}")


def traffic_checked(args: Any) -> None:
    """--shared-prefix and --trace against the other ways of choosing the requests and their times."""
    if args.trace_speed != 1.0 and args.trace is None:
        raise WorkloadError("--trace-speed scales a trace's times: give --trace FILE too")
    if args.trace is not None:
        for flag, clash in (("--concurrency", args.concurrency), ("--request-rate", args.request_rate),
                            ("--find-max", args.find_max), ("--duration", args.duration), ("--prompts", args.prompts),
                            ("--shared-prefix", args.shared_prefix), ("--burstiness", args.burstiness != 1.0)):
            if clash:
                raise WorkloadError(f"--trace sets the requests and their times: {flag} does not go with it",
                                    hint="--trace-speed X replays it X times as fast")
    if args.shared_prefix and (args.prompts or args.duration):
        raise WorkloadError("--shared-prefix makes the prompts: --prompts and --duration do not go with it")
    if args.multi_turn:
        for flag, clash in (("--shared-prefix", args.shared_prefix), ("--prompts", args.prompts),
                            ("--duration", args.duration), ("--request-rate", args.request_rate),
                            ("--find-max", args.find_max == "rate"), ("--trace", args.trace)):
            if clash:
                raise WorkloadError(f"--multi-turn keeps conversations going at each --concurrency level: {flag} "
                                    "does not go with it")


def levels_of(args: Any) -> list[Level]:
    """The load levels the arguments ask for, checked against each other (a WorkloadError naming the clash);
    ``args`` is left as it is."""
    search_checked(args)
    traffic_checked(args)
    if args.trace is not None:
        return [Level("trace", args.trace_speed)]
    if args.find_max and not args.concurrency:
        return [Level("concurrency", min(args.max_concurrency, SATURATION_CONCURRENCY))]
    if args.concurrency and args.request_rate:
        raise WorkloadError("give --concurrency or --request-rate, not both")
    default = str(STEADY_CONCURRENCY) if args.duration else "1,4,16,64"
    kind, text = ("rate", args.request_rate) if args.request_rate else ("concurrency", args.concurrency or default)
    flag = "--request-rate" if kind == "rate" else "--concurrency"
    levels = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        try:
            value = float(part) if kind == "rate" else int(part)
        except ValueError:
            value = 0
        if not 0 < value <= (1e6 if kind == "rate" else 100_000):
            raise WorkloadError(f"{flag} {text!r}: {part!r} is not a positive "
                                f"{'number' if kind == 'rate' else 'whole number up to 100000'}")
        levels.append(Level(kind, value))
    if not levels or len(levels) > LEVELS_MAX:
        raise WorkloadError(f"{flag} {text!r}: give 1 to {LEVELS_MAX} levels")
    if args.duration and len(levels) > 1:
        raise WorkloadError(f"--duration keeps one level busy: {flag} {text!r} has {len(levels)}",
                            hint=f"e.g. {flag} {text.split(',')[0].strip()} --duration {args.duration:g}")
    if args.duration and args.requests:
        raise WorkloadError("--duration sends requests until the time is up: --requests does not go with it")
    if args.window and not args.duration:
        raise WorkloadError("--window is the rows of a --duration run: give --duration S too")
    return levels


def api_key(var: str | None) -> str | None:
    if var is None:
        return None
    if not var.replace("_", "a").isalnum():
        raise WorkloadError(f"--api-key-env takes a variable's name, not {len(var)} characters of something else",
                            hint="export MY_KEY=...; then --api-key-env MY_KEY")
    key = os.environ.get(var)
    if not key:
        # named back only when it looks like a variable's name: a key typed here by mistake is not echoed
        named = f" {var}" if re.fullmatch(r"[A-Z_][A-Z0-9_]{0,63}", var) else ""
        raise WorkloadError(f"--api-key-env{named}: that variable is not set or empty (it takes the name of the "
                            "variable that holds the key, e.g. MY_KEY)")
    return key


def main(emitter: Emitter, argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    levels = levels_of(args)
    if args.duration and not args.window:
        args.window = default_window(args.duration)    # the rows a --duration run reports by
    try:
        slo = Slo.parse(args.slo) if args.slo else None
        behaviour = Behaviour.parse(args.test_server_set) if args.test_server_set else Behaviour.quick()
        endpoint = Endpoint.parse(args.url or DEFAULT_URL, api_key(args.api_key_env))
        prompts = read_prompts(args.prompts) if args.prompts else None
        prefix = SharedPrefix.parse(args.shared_prefix) if args.shared_prefix else None
        multi = MultiTurn.parse(args.multi_turn) if args.multi_turn else None
        # the trace read before the run: a row out of order is the file's fault (exit 2)
        rows, cut = read_trace(args.trace, args.requests) if args.trace is not None else (None, False)
        traffic = Traffic(prefix, multi, rows, cut)
    except (ValueError, BadUrl, BadPrompts) as exc:   # BadUrl and BadPrompts are ValueErrors: each named
        raise WorkloadError(str(exc)) from None
    if args.test_server_set and not args.test_server:
        raise WorkloadError("--test-server-set sets cardbench's test server: give --test-server too")
    if args.test_server and (args.url is not None or args.launch is not None):
        raise WorkloadError("--test-server loads cardbench's own test server: give it without --url and --launch")
    if args.url is None and args.launch is None and not args.test_server:
        raise WorkloadError("give --url http://HOST:PORT/v1 (your server's API), or --launch 'CMD' to start it",
                            hint=f"with --launch the URL defaults to {DEFAULT_URL}")
    launch = command_of(args.launch) if args.launch else None
    env, _ = device_env(args.device)   # the command workload's rule, so both read --device alike
    if env and launch is None:
        raise WorkloadError(f"--device {args.device}: it sets the cards of the server --launch starts; a server "
                            "already running chose its own")
    arguments_checked()
    from workloads.serve.sweep import Sweep   # the run itself, after the check

    server, said = None, None
    if args.test_server:
        from workloads.serve.testserver import InThread   # a thread and a loop: only when asked for

        server = InThread(behaviour)
        said = behaviour.said()     # the result says the delays its figures sit beside
        endpoint = Endpoint.parse(server.url, None)
    try:
        return Sweep(emitter, args, levels, endpoint, slo, prompts, launch, env, traffic, said).run()
    finally:
        if server is not None:
            server.stop()
