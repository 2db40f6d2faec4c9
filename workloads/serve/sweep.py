"""One run of the serving benchmark: the server checked (and started, with --launch), then each level's
requests sent and measured; a step event and a run.log line per level, one result with every level so far
however the run ends (done, a server that died, Ctrl+C)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any, Callable

from workloads.child.harness import Emitter, Stopped, WorkloadError, log
from workloads.facts.formatting import utc
from workloads.protocol import RUN_DIR_ENV
from workloads.safe_text import one_line
from workloads.serve.client import BROKEN, CONNECT, TIMEOUT, Answer, Connection, Endpoint, Outcome, get_json
from workloads.serve.within import within
from workloads.serve.card import CardDuringLevels
from workloads.serve.figures import level_figures
from workloads.serve.launch import LaunchedServer
from workloads.serve.load import Level, Pool, Request, one, payload, run_level, run_steady, synthetic
from workloads.serve.spec import windows
from workloads.serve.table import answer_row, figure, level_line, lines, result_of, step_label
from workloads.serve.result_record import ServeResult
from workloads.serve.ceiling import NEAR, Ceiling, measure
from workloads.serve.find_max import find_max
from workloads.serve.requests_csv import REQUESTS_CSV, RequestRows
from workloads.serve.slo import Slo, verdict
from workloads.serve.traffic import Traffic, prefix_figures, trace_requests
from workloads.serve.conversation import conversations_for, run_conversations, turn_figures

WORKLOAD = "serve"
# --duration: the windows the result keeps (the first, the baseline, and the latest): a day of 60 s windows would be
# 1,440 rows, a result line past the runner's 1 MiB; every window is a step in events.jsonl all the same
WINDOWS_KEPT = 240
_CHECK_S = 30.0     # the models list and the first request: a server that has not answered by then is named
# a server that does not take ignore_eos: 400 (vLLM's strict forks), 422 (FastAPI's validation: `transformers serve`)
_REFUSED_FIELD = ("HTTP 400", "HTTP 422")
_KEY_HINT = "export MY_KEY=...; then --api-key-env MY_KEY (the key is never given on the command line)"


class Sweep:
    def __init__(self, emitter: Emitter, args: Any, levels: list[Level], endpoint: Endpoint,
                 slo: Slo | None, prompts: list[dict[str, Any]] | None, launch: list[str] | None,
                 launch_env: dict[str, str] | None = None, traffic: Traffic = Traffic(),
                 test_server_said: str | None = None):
        self.emitter, self.args, self.levels, self.endpoint = emitter, args, levels, endpoint
        self.slo, self.prompts, self.launch = slo, prompts, launch
        self.limits = slo.limits if slo is not None else None    # goodput's, in the table
        self.traffic = traffic
        self.prefix, self.multi, self.trace = traffic.prefix, traffic.multi, traffic.trace
        self.test_server_said = test_server_said    # --test-server's delays, as its Behaviour says them
        self.shape = args.burstiness
        self.ceiling: Ceiling | None = None
        self.near_ceiling: list[str] = []      # levels at half the client's ceiling or more
        self.found: dict[str, Any] = {}        # --find-max's answer
        self.t0 = time.perf_counter()
        run_dir = os.environ.get(RUN_DIR_ENV)
        self.requests_csv = RequestRows(Path(run_dir) / REQUESTS_CSV if run_dir else None, self.t0)
        self.model: str | None = args.model
        self.chat = args.endpoint == "chat"
        self.path = endpoint.base + ("/chat/completions" if self.chat else "/completions")
        self.ignore_eos = True
        self.words = args.input_len          # words per synthetic prompt, set from /tokenize where there is one
        self.notes: list[str] = []
        self.rows: list[dict[str, Any]] = []
        self.windows_left_out = 0
        self.grouped = False                 # a note said the server streams several tokens a chunk
        self.checked = False                 # the server answered as an OpenAI API: a result is worth writing
        self.server = LaunchedServer(launch, args.grace, launch_env, endpoint.scrub) if launch else None
        self.card = CardDuringLevels()

    @property
    def url(self) -> str:
        return self.endpoint.root + self.endpoint.base   # no user:password@ a URL may carry

    def run(self) -> int:
        a = self.args
        config = {"url": self.url, "model": a.model, "endpoint": self.path, "levels": [lv.words() for lv in self.levels],
                  "input_len": None if self.prompts else a.input_len, "output_len": a.output_len,
                  "requests": a.requests, "prompts": str(a.prompts) if a.prompts else None, "slo": self.slo.text if self.slo else None,
                  "find_max": a.find_max, "budget_s": a.budget, "burstiness": self.shape,
                  "seed": a.seed, "timeout_s": a.timeout, "api_key_env": a.api_key_env, "launch": self.launch,
                  "device": a.device, "duration_s": a.duration, "window_s": a.window}
        self.emitter.start(WORKLOAD, config, f"the server at {self.url}", {"python": sys.version.split()[0]})
        self.ceiling = measure()    # before the load, on the same host: what the client itself sustains
        if self.ceiling is not None:
            log(f"[cardbench] the client's ceiling on this host: {figure(self.ceiling.tokens_per_s)} streamed "
                f"tokens/s, {figure(self.ceiling.requests_per_s)} requests/s (a no-delay server)")
        if self.requests_csv.path is not None:
            start = time.time() - (time.perf_counter() - self.t0)
            self.notes.append(f"requests.csv: one row per request, times in s from {utc(start)} (unix {start:.3f})")
        try:
            asyncio.run(self._run())
        except (WorkloadError, Stopped, KeyboardInterrupt):
            self._result()
            raise
        finally:
            self.requests_csv.close()
            if self.server is not None:
                code = self.server.stop()
                log(f"[cardbench] the launched server stopped (exit code {code})")
        self._result()
        return 0

    def _result(self) -> None:
        if self.checked:
            if self.near_ceiling:
                self.notes.append(f"{', '.join(self.near_ceiling)}: at half the client's own ceiling or more: those "
                                  "figures are the client's and this host's as much as the server's")
            at = answer_row(self.rows, self.found)
            metrics = result_of(self.rows, {**self._settings(), **self.found}, self.notes, at)
            self.emitter.result(ServeResult.of(metrics))
            self.checked = False     # once
            for line in lines(metrics):   # the levels as the report's table says them, on the run's last lines
                log(f"[cardbench] {line}")

    def _settings(self) -> dict[str, Any]:
        kind = self.levels[0].kind
        return {"served_model": self.endpoint.scrub(self.model or "") or None,   # a name the server gave
                "endpoint": self.path, "input_len": None if self.prompts or self.trace else self.args.input_len,
                "output_len": None if self.trace else self.args.output_len,
                **({"concurrency" if kind == "concurrency" else "request_rate":
                    ",".join(f"{lv.value:g}" for lv in self.levels)} if kind != "trace" else {}),
                "prompts": "your file" if self.prompts else "synthetic", "ignore_eos": self.ignore_eos,
                **({"traffic": traffic} if (traffic := self._traffic()) else {}),
                "test_server": bool(self.args.test_server), "test_server_set": self.test_server_said,
                **({"slo": self.slo.text} if self.slo else {}),
                **({"burstiness": self.shape} if self.shape != 1 and kind == "rate" else {}),
                **({"client_ceiling_tokens_per_s": self.ceiling.tokens_per_s,
                    "client_ceiling_requests_per_s": self.ceiling.requests_per_s} if self.ceiling else {}),
                "requests_csv_rows": self.requests_csv.rows if self.requests_csv.path else None,
                **({"duration_s": self.args.duration, "window_s": self.args.window} if self.args.duration else {})}

    def _traffic(self) -> str | None:
        """The traffic's shape as the result says it, with its seed."""
        a = self.args
        if self.prefix is not None:
            return f"shared prefix: {self.prefix.said()}, seed {a.seed}"
        if self.multi is not None:
            return f"multi-turn: {self.multi.said()}, seed {a.seed}"
        if self.trace is not None:
            more = f" (the first {len(self.trace)} rows)" if self.traffic.trace_cut else ""
            return f"trace {Path(a.trace).name}{more}, {len(self.trace)} requests at {a.trace_speed:g}x, seed {a.seed}"
        if self.shape != 1 and self.levels[0].kind == "rate":
            return f"gamma arrivals of shape {self.shape:g} (burstiness), seed {a.seed}"
        return None

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        previous = signal.getsignal(signal.SIGTERM)
        loop.add_signal_handler(signal.SIGTERM, task.cancel)   # a stop cancels the requests in flight cleanly
        try:
            await self._serve()
        except asyncio.CancelledError:
            raise Stopped() from None
        finally:
            loop.remove_signal_handler(signal.SIGTERM)
            signal.signal(signal.SIGTERM, previous)

    async def _serve(self) -> None:
        if self.server is not None:
            pid = self.server.start()
            log(f"[cardbench] started the server (pid {pid}): {' '.join(self.launch or [])}")
            took = await self.server.ready(self.endpoint, self.args.launch_timeout)
            log(f"[cardbench] the server answered after {took:.1f} s")
        await self._check_models()
        await self._calibrate()
        await self._first_request()
        self.checked = True
        pool = Pool(self.endpoint)
        try:
            if self.args.duration:
                await self._steady(self.levels[0], pool)
            elif self.args.find_max:
                self.found = await find_max(lambda i, lv, n, steps, role: self._level(i, lv, pool, n, steps, role),
                                            self.args)
            for i, level in enumerate(self.levels if not (self.args.duration or self.args.find_max) else ()):
                await self._level(i, level, pool)
        finally:
            pool.close()
            self.card.close()

    async def _ask(self, path: str, body: Any = None) -> tuple[int, Any]:
        conn = Connection(self.endpoint)
        try:
            return await within(get_json(conn, path, body), _CHECK_S)
        except asyncio.TimeoutError:
            raise Answer(TIMEOUT, f"no answer within {_CHECK_S:g} s") from None
        finally:
            conn.close()

    async def _check_models(self) -> None:
        where = f"{self.url}/models"
        try:
            status, found = await self._ask(self.endpoint.base + "/models")
        except Answer as answer:
            if answer.kind == CONNECT:
                raise WorkloadError(f"cannot reach {self.url}: {answer.detail}",
                                    hint="is the server up? check --url: its host, port and /v1",
                                    bad_input=False) from None
            raise WorkloadError(f"GET {where}: {answer.kind} ({answer.detail}): not an OpenAI-compatible server",
                                hint="--url is the API's base, e.g. http://HOST:8000/v1", bad_input=False) from None
        if status in (401, 403):
            said = "with the key from --api-key-env" if self.endpoint.api_key else "without a key"
            raise WorkloadError(f"the server refused GET {where} {said}: HTTP {status}", hint=_KEY_HINT,
                                bad_input=False)
        listed = found.get("data") if isinstance(found, dict) else None
        if status != 200 or not isinstance(listed, list):
            raise WorkloadError(f"GET {where} answered HTTP {status} with no model list: not an OpenAI-compatible "
                                "API", hint="--url is the API's base, e.g. http://HOST:8000/v1", bad_input=False)
        served = [m["id"] for m in listed if isinstance(m, dict) and isinstance(m.get("id"), str)]
        if self.model is None:
            if not served:
                raise WorkloadError(f"GET {where} lists no model", hint="name it with --model", bad_input=False)
            self.model = served[0]
            log(f"[cardbench] model: {one_line(self.endpoint.scrub(self.model), 200)} (the first the server lists)")
        elif self.model not in served:
            names = ", ".join(one_line(self.endpoint.scrub(s), 100) for s in served[:10]) or "none"
            raise WorkloadError(f"the server does not serve model {self.model!r}; it serves: {names}",
                                hint="--model takes one of those names", bad_input=False)

    async def _calibrate(self) -> None:
        """Words per prompt for --input-len tokens: vLLM's and SGLang's /tokenize count them exactly."""
        if self.prompts:
            return
        sample = synthetic(1, self.args.input_len, self.args.seed)[0]
        try:
            status, found = await self._ask("/tokenize", {"model": self.model, "prompt": sample})
        except Answer:
            status, found = None, None
        count = found.get("count") if isinstance(found, dict) else None
        if status == 200 and isinstance(count, int) and count > 0:
            self.words = max(1, round(self.args.input_len * self.args.input_len / count))
            self.notes.append(f"input length set through the server's /tokenize ({self.words} words)")
        else:
            self.notes.append("input length approximate: the server has no /tokenize, one common word is taken "
                              "as one token (the usage field's prompt_tokens, where sent, is what is counted)")

    def _requests(self, first: int, n: int, seed: int) -> list[Request]:
        """Requests ``first`` to ``first + n - 1``: the user's prompts in turn (from the ``first``-th), or synthetic
        prompts numbered from ``first`` (a level's are drawn from ``seed``; --duration's one at a time, each from
        its own seed, so a request is the same whatever ran before it)."""
        out = self.args.output_len
        if self.prompts:
            chosen = [self.prompts[(first + k) % len(self.prompts)] for k in range(n)]
            return [Request(p.get("messages") or p["prompt"], 0, _positive(p.get("max_tokens")) or out) for p in chosen]
        texts = synthetic(n, self.words, seed, first=first)
        return [Request(t, self.args.input_len, out) for t in texts]

    def _payload(self, request: Request) -> dict[str, Any]:
        return payload(request, self.model or "", self.chat, self.ignore_eos)

    async def _first_request(self) -> None:
        """One short request before the sweep: it warms the server up, and says whether it takes ignore_eos
        and sends the usage field."""
        probe = Request(self._requests(0, 1, self.args.seed)[0].prompt, 0, 2)
        pool = Pool(self.endpoint)
        try:
            outcome = await one(pool, self.path, self._payload(probe), self.chat, _CHECK_S)
            if outcome.error in _REFUSED_FIELD:
                self.ignore_eos = False
                outcome = await one(pool, self.path, self._payload(probe), self.chat, _CHECK_S)
                if outcome.ok:
                    self.notes.append("the server refused ignore_eos: a request may end before --output-len")
        finally:
            pool.close()
        if outcome.error in ("HTTP 401", "HTTP 403"):
            raise WorkloadError(f"the server refused {self.path} ({outcome.error}: {outcome.detail})", hint=_KEY_HINT,
                                bad_input=False)
        if not outcome.ok:
            raise WorkloadError(f"the first request to {self.url}{self.path.removeprefix(self.endpoint.base)} failed: "
                                f"{outcome.error} ({outcome.detail})", bad_input=False)
        if outcome.output_tokens is None:
            self.notes.append("the server sends no usage field: output tokens are the chunks with text "
                              "(a chunk may hold more than one token)")

    async def _level(self, i: int, level: Level, pool: Pool, n: int | None = None, steps: int | None = None,
                     role: str = "") -> dict[str, Any]:
        """The i-th level sent and measured (``n`` requests, else --requests or the default), its row booked."""
        started, clock = time.time(), time.perf_counter()
        finished: list[tuple[Request, Outcome]] = []   # a stop mid-level keeps their figures, marked as cut short

        def answered(request: Request, o: Outcome, traffic: str = "") -> None:
            finished.append((request, o))
            self.requests_csv.add(level.words(), self.requests_csv.rows, o, request.input_tokens, traffic)

        try:
            pairs, duration, extra = await self._send(i, level, pool, n, answered)
        except asyncio.CancelledError:
            if finished:
                self.rows.append({"level": f"{level.words()} (stopped)", level.kind: level.value, "t_start": started,
                                  "t_end": time.time(), **level_figures([o for _, o in finished],
                                                                        time.perf_counter() - clock,
                                                                        [r.input_tokens for r, _ in finished],
                                                                        self.limits)})
            raise
        outcomes = [o for _, o in pairs]
        row = {"level": level.words() + (f" ({role})" if role else ""), level.kind: level.value,
               "t_start": started, "t_end": time.time(),
               **level_figures(outcomes, duration, [r.input_tokens for r, _ in pairs], self.limits), **extra}
        if self.slo is not None:
            row.update(verdict(self.slo, outcomes))
        self._book(i + 1, steps or len(self.levels), level, row, outcomes)
        return row

    async def _send(self, i: int, level: Level, pool: Pool, n: int | None,
                    answered: Callable[..., None]) -> tuple[list[tuple[Request, Outcome]], float, dict[str, Any]]:
        """The level's requests sent as its traffic asks; (each request with its outcome, the duration, the traffic's
        own figures)."""
        a = self.args
        if self.multi is not None:
            turns, duration = await run_conversations(
                self.multi, level, conversations_for(level, self.multi, n or a.requests), a.input_len, a.output_len,
                self._payload, pool, self.path, self.chat, a.timeout, a.seed + i,
                lambda t: answered(t.request, t.outcome, f"conversation {t.conversation} turn {t.turn + 1}"))
            return [(t.request, t.outcome) for t in turns], duration, turn_figures(turns)
        offsets = None
        if self.trace is not None:      # its rows at their own times, sped up by --trace-speed
            requests = trace_requests(self.trace, a.seed)
            offsets = [row.at_s / level.value for row in self.trace]
        elif self.prefix is not None:   # G x P, each level's system prompts its own
            requests = self.prefix.requests(a.seed + i, a.output_len)
        else:
            n = n or a.requests or (max(16, 4 * int(level.value)) if level.kind == "concurrency" else 64)
            requests = self._requests(i * n, n, a.seed + i)
        outcomes, duration = await run_level(
            level, requests, self._payload, pool, self.path, self.chat, a.timeout, a.seed + i, a.max_concurrency,
            lambda k, o: answered(requests[k], o, f"group {requests[k].group}" if requests[k].group >= 0 else ""),
            self.shape, offsets)
        extra = prefix_figures(requests, outcomes) if self.prefix is not None else {}
        return list(zip(requests, outcomes)), duration, extra

    def _request(self, i: int) -> Request:
        """--duration's i-th request."""
        return self._requests(i, 1, self.args.seed + i)[0]

    async def _steady(self, level: Level, pool: Pool) -> None:
        """--duration S: one level kept busy for S seconds; every --window seconds a row and a step of the requests
        that ended in it (a soak reads each window's TTFT/TPOT percentiles and tokens/s as it reads a level's)."""
        a = self.args
        finished: list[tuple[Outcome, Request]] = []
        wall, t0 = time.time(), time.perf_counter()
        steps = windows(a.duration, a.window)
        def answered(o: Outcome, r: Request) -> None:
            finished.append((o, r))
            self.requests_csv.add(level.words(), self.requests_csv.rows, o, r.input_tokens)

        load = asyncio.ensure_future(run_steady(level, self._request, self._payload, pool, self.path, self.chat,
                                                a.timeout, a.seed, a.max_concurrency, t0 + a.duration, answered,
                                                self.shape))

        f = ".0f" if a.window >= 10 else ".1f"

        def window(k: int, start: float, stopped: bool = False) -> tuple[dict[str, Any], list[Outcome], float]:
            done = finished[:]
            del finished[:len(done)]
            end = time.perf_counter()
            outcomes = [o for o, _ in done]
            row = {"level": f"{level.words()}, {start - t0:{f}}-{end - t0:{f}} s" + (" (stopped)" if stopped else ""),
                   level.kind: level.value, "window": k, "t_start": wall + start - t0, "t_end": wall + end - t0,
                   **level_figures(outcomes, end - start, [r.input_tokens for _, r in done], self.limits)}
            return row, outcomes, end

        start, k = t0, 0
        try:
            for k in range(1, steps + 1):
                last = k == steps           # the last window ends with the requests in flight at the end
                await asyncio.wait({load}, timeout=None if last else max(0.0, t0 + k * a.window - time.perf_counter()))
                row, outcomes, start = window(k, start)    # the next window starts where this one ended
                self._book(k, steps, level, row, outcomes)
                if len(self.rows) > WINDOWS_KEPT:
                    del self.rows[1]
                    self.windows_left_out += 1
                if load.done():
                    break
            load.result()
        except asyncio.CancelledError:
            load.cancel()
            if finished:
                self.rows.append(window(k, start, stopped=True)[0])
            raise
        finally:
            load.cancel()
        if self.windows_left_out:
            self.notes.append(f"{self.windows_left_out} window(s) after the first left out of the result's table "
                              "(each is a step in events.jsonl)")

    def _book(self, step: int, steps: int, level: Level, row: dict[str, Any], outcomes: list[Outcome]) -> None:
        """A level's (or a window's) row: the card's figures beside it, a step, a run.log line, a warning naming
        its errors; the run ends here when the server is gone."""
        row.update(self.card.during(row["t_start"], row["t_end"]))
        share = self.ceiling.share(row) if self.ceiling is not None else None
        row["client_share"] = share
        if share is not None and share >= NEAR:
            self.near_ceiling.append(row["level"])
        self.rows.append(row)
        if row["tokens_from"] == "usage" and 0 < 2 * row["chunks"] <= row["output_tokens"] and not self.grouped:
            self.grouped = True   # transformers serve's chat stream: its detokenizer holds tokens for printable text
            self.notes.append(f"{row['level']}: the server streamed {row['output_tokens']} tokens in {row['chunks']} "
                              "chunks: TTFT is the first chunk's, and TPOT/ITL spread over fewer gaps (what a user "
                              "of its stream sees)")
        self.emitter.step(step, throughput=row["output_tokens_per_s"], unit="tokens/s", total_steps=steps,
                          label=step_label(row), ttft_ms_p50=row["ttft_ms_p50"], tpot_ms_p50=row["tpot_ms_p50"],
                          ttft_ms_p99=row["ttft_ms_p99"], tpot_ms_p99=row["tpot_ms_p99"], level=level.words(),
                          errors=row["errors"])   # a soak judges each level's latency against its first interval
        log(f"[cardbench] {level_line(row)}")
        if row["errors"]:
            first = {}
            for o in outcomes:
                if not o.ok and o.error not in first:
                    first[o.error] = o.detail
            said = "; ".join(f"{k}: {n} ({one_line(first.get(k, ''), 120)})" for k, n in row["errors_by_kind"].items())
            self.emitter.warning(f"{row['level']}: {row['errors']} of {row['requests']} requests failed: {said}",
                                 code="request_errors")
        gone = self.server is not None and self.server.exit_code() is not None
        if gone or stopped_answering(row):
            kept = f"the figures of {len(self.rows)} {'window' if self.args.duration else 'level'}(s) so far are " \
                   "kept in the result"
            why = (f"the launched server exited with code {self.server.exit_code()}; its last lines: "
                   f"{self.server.last_lines()}" if gone and self.server else "the server stopped answering")
            raise WorkloadError(f"{why} at {row['level']}; {kept}", hint="run.log has the details", bad_input=False)


def stopped_answering(row: dict[str, Any]) -> bool:
    """No request of the level answered, and the server refused or reset connections: it is gone. Streams it
    closed before answering may be among them (a server that dies drops the connections it had read from)."""
    kinds = set(row["errors_by_kind"])
    return not row["completed"] and CONNECT in kinds and kinds <= {CONNECT, BROKEN}


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
