"""The load: what each request asks (prompts of a set length, or the user's own) and how they are sent (a fixed
number in flight, or Poisson arrivals at a set rate), one level of the sweep at a time."""

from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from workloads.serve.client import TIMEOUT, Connection, Endpoint, Outcome, stream
from workloads.serve.schedule import POISSON, arrival_offsets, gap
from workloads.serve.within import within

# common English words that are one token each, with their leading space, in the GPT-2, Llama and Qwen BPE
# vocabularies: a prompt of N of them is about N tokens where the server has no /tokenize to say exactly
WORDS = ("the of and to in is that for it as was with be by on not he this are or his from at which but have an had "
         "they you were their one all we can her has there been if more when will would who so no time up out "
         "about into than them only new some could these two may first then do any like my now over such our man "
         "me even most made after also did many before must through back years where much your way well down "
         "should because each just those people how too little state good very make world still own see men work "
         "long get here between both life being under never day same another know while last might us great old "
         "year off come since against go came right used take three").split()

PROMPTS_MAX_BYTES = 64 * 2**20
PROMPTS_MAX = 100_000


class BadPrompts(ValueError):
    pass


@dataclass(frozen=True)
class Level:
    kind: str      # "concurrency" or "rate"
    value: float

    def words(self) -> str:
        if self.kind == "trace":    # --trace: its own arrival times, sped up by the value
            return f"trace at {self.value:g}x"
        return f"concurrency {self.value:g}" if self.kind == "concurrency" else f"{self.value:g} requests/s"


@dataclass(frozen=True)
class Request:
    prompt: str | list[Any]    # a text, or a chat's messages from --prompts
    input_tokens: int          # as asked (the usage field's count replaces it where given)
    max_tokens: int
    group: int = -1            # --shared-prefix: the group whose system prompt it shares (workloads.serve.traffic)


def synthetic(n: int, words: int, seed: int, first: int = 0) -> list[str]:
    """``n`` prompts of ``words`` words, each opening with its own number (``first`` on) so no two share a cached
    prefix."""
    rng = random.Random(seed)
    return [" ".join([str(first + i)] + rng.choices(WORDS, k=max(0, words - 1))) for i in range(n)]


def read_prompts(path: Path) -> list[dict[str, Any]]:
    """--prompts FILE: JSON lines, each {"prompt": TEXT} or {"messages": [...]}, with "max_tokens" if it wants one."""
    try:
        size = path.stat().st_size
        if size > PROMPTS_MAX_BYTES:
            raise BadPrompts(f"--prompts {path}: {size} bytes, over the cap of {PROMPTS_MAX_BYTES}")
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BadPrompts(f"--prompts {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise BadPrompts(f"--prompts {path}: not UTF-8 text") from None
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError:
            raise BadPrompts(f"--prompts {path}: line {number} is not JSON") from None
        ok = isinstance(item, dict) and (isinstance(item.get("prompt"), str) or isinstance(item.get("messages"), list))
        if not ok:
            raise BadPrompts(f"--prompts {path}: line {number} has no \"prompt\" text or \"messages\" list")
        found.append(item)
        if len(found) > PROMPTS_MAX:
            raise BadPrompts(f"--prompts {path}: more than {PROMPTS_MAX} prompts")
    if not found:
        raise BadPrompts(f"--prompts {path}: no prompt in it")
    return found


def payload(request: Request, model: str, chat: bool, ignore_eos: bool) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "max_tokens": request.max_tokens, "stream": True,
                            "stream_options": {"include_usage": True}, "temperature": 0}
    prompt = request.prompt
    if chat:
        body["messages"] = prompt if isinstance(prompt, list) else [{"role": "user", "content": prompt}]
    else:   # a chat's messages on /v1/completions (a shared prefix's system prompt and question): their texts in turn
        body["prompt"] = prompt if isinstance(prompt, str) else "\n".join(str(m.get("content", "")) for m in prompt)
    if ignore_eos:
        body["ignore_eos"] = True    # vLLM, SGLang: the output is max_tokens long, as the sweep asked
    return body


class Pool:
    """Kept-alive connections, taken by one request at a time."""

    def __init__(self, endpoint: Endpoint, kernel: bool = True):
        self.endpoint = endpoint
        self.kernel = kernel    # arrivals stamped by the kernel (workloads.serve.arrival); False: by this thread
        self.idle: list[Connection] = []

    def take(self) -> Connection:
        return self.idle.pop() if self.idle else Connection(self.endpoint, self.kernel)

    def give(self, conn: Connection) -> None:
        if conn.writer is not None:
            self.idle.append(conn)

    def close(self) -> None:
        for conn in self.idle:
            conn.close()
        self.idle.clear()


Send = Callable[[Request], dict[str, Any]]


async def one(pool: Pool, path: str, body: dict[str, Any], chat: bool, timeout_s: float,
              scheduled: float | None = None, keep_text: bool = False) -> Outcome:
    """One request on a kept-alive connection; ``scheduled``: when the load meant to send it (perf_counter)."""
    conn = pool.take()
    sent = time.perf_counter()
    try:
        outcome = await within(stream(conn, path, body, chat, keep_text), timeout_s)
    except asyncio.TimeoutError:
        conn.close()
        outcome = Outcome(sent=sent, error=TIMEOUT, detail=f"no end after {timeout_s:g} s")
    else:
        pool.give(conn)
    outcome.scheduled = sent if scheduled is None else scheduled
    return outcome


async def run_level(level: Level, requests: list[Request], make: Send, pool: Pool, path: str, chat: bool,
                    timeout_s: float, seed: int, max_concurrency: int,
                    done: Callable[[int, Outcome], None] = lambda i, o: None, shape: float = POISSON,
                    offsets: Sequence[float] | None = None) -> tuple[list[Outcome], float]:
    """Every request of the level sent and answered (or counted as an error); (outcomes in request order, the
    level's duration in s, from its first request sent to its last answer, as vLLM's benchmark_duration).
    A rate level sends each request at its due time (``offsets`` s from the start, else seeded gamma/Poisson
    arrivals: workloads.serve.schedule) however many are in flight; a concurrency level when a worker is free."""
    outcomes: list[Outcome | None] = [None] * len(requests)

    async def send(i: int, due: float | None = None) -> None:
        outcomes[i] = await one(pool, path, make(requests[i]), chat, timeout_s, due)
        done(i, outcomes[i])

    start = time.perf_counter()
    if level.kind == "concurrency":
        todo = iter(range(len(requests)))

        async def worker() -> None:
            for i in todo:
                await send(i)

        await asyncio.gather(*(worker() for _ in range(min(int(level.value), len(requests)))))
    else:
        gate = asyncio.Semaphore(max_concurrency)

        async def gated(i: int, due: float) -> None:
            async with gate:     # a request waiting here is late: its latency counts from ``due``
                await send(i, due)

        due_at = offsets if offsets is not None else arrival_offsets(len(requests), level.value, seed, shape)
        tasks = []
        for i, offset in enumerate(due_at[:len(requests)]):
            due = start + offset    # absolute: a late wake-up does not push every later arrival back
            wait = due - time.perf_counter()
            if wait > 0:
                await asyncio.sleep(wait)
            tasks.append(asyncio.create_task(gated(i, due)))
        await asyncio.gather(*tasks)
    return [o for o in outcomes if o is not None], time.perf_counter() - start


async def run_steady(level: Level, request: Callable[[int], Request], make: Send, pool: Pool, path: str, chat: bool,
                     timeout_s: float, seed: int, max_concurrency: int, until: float,
                     done: Callable[[Outcome, Request], None], shape: float = POISSON) -> None:
    """``--duration``: the level kept busy until ``until`` (perf_counter): a new request as soon as one ends (or at
    the next Poisson arrival), ``request(i)`` the i-th; each answer handed to ``done`` as it comes, with its
    request. The requests in flight at ``until`` are let finish: a user's request is measured whole."""
    counter = iter(range(2**62))

    async def send(i: int, due: float | None = None) -> None:
        asked = request(i)
        done(await one(pool, path, make(asked), chat, timeout_s, due), asked)

    if level.kind == "concurrency":
        async def worker() -> None:
            while time.perf_counter() < until:
                await send(next(counter))

        await asyncio.gather(*(worker() for _ in range(int(level.value))))
        return
    rng = random.Random(seed)
    gate = asyncio.Semaphore(max_concurrency)
    tasks: set[asyncio.Task[None]] = set()

    async def gated(i: int, due: float) -> None:
        async with gate:
            await send(i, due)

    due = time.perf_counter()
    while due < until:
        task = asyncio.create_task(gated(next(counter), due))
        tasks.add(task)
        task.add_done_callback(tasks.discard)   # an hours-long run holds only the requests in flight
        due += gap(rng, level.value, shape)
        await asyncio.sleep(max(0.0, min(due, until) - time.perf_counter()))
    if tasks:
        await asyncio.gather(*list(tasks))
