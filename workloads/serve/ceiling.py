"""The client's own ceiling, measured in the run: how many streamed tokens and how many requests a second this
client sends and reads on this host when the server costs nothing (cardbench's test server, no delay, in a process of
its own). A level whose load comes near it measures the client as much as the server: the sweep says so beside its
figures (bench/serve_client_ceiling.py measures the same with the client pinned to one core, and its timing error).
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

from workloads.serve.client import Endpoint
from workloads.serve.load import Level, Pool, Request, payload, run_level

NEAR = 0.5          # a level at half the ceiling or more: its figures are partly the client's
_STREAMS = 16       # in flight: as the bench's ceiling
_TOKENS = 128       # per request for the tokens' ceiling; one for the requests' ceiling
_REQUESTS = 64
_START_S = 30.0     # the test server's process has this long to say its port


@dataclass(frozen=True)
class Ceiling:
    tokens_per_s: float       # streamed tokens (one a chunk) read per second
    requests_per_s: float     # one-token requests sent and answered per second

    def share(self, row: dict[str, Any]) -> float | None:
        """The larger of a level's streamed chunks/s and requests/s against the ceiling's."""
        duration, chunks, requests = row.get("duration_s"), row.get("chunks"), row.get("requests")
        if not duration or duration <= 0 or chunks is None or requests is None:
            return None
        return max(chunks / duration / self.tokens_per_s, requests / duration / self.requests_per_s)


async def _level(endpoint: Endpoint, tokens: int) -> tuple[float, float]:
    pool = Pool(endpoint)
    asked = [Request(f"{i} hello", 2, tokens) for i in range(_REQUESTS)]
    try:
        outcomes, took = await run_level(Level("concurrency", _STREAMS), asked,
                                         lambda r: payload(r, "test-model", False, True), pool, "/v1/completions",
                                         False, 30.0, 0, _STREAMS)
    finally:
        pool.close()
    done = [o for o in outcomes if o.ok]
    return sum(o.chunks for o in done) / took, len(done) / took


def measure() -> Ceiling | None:
    """The ceiling, or None where the test server could not be started (the run goes on without it)."""
    try:
        server = subprocess.Popen([sys.executable, "-m", "workloads.serve.testserver"], stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True)
    except OSError:
        return None
    try:
        line = server.stdout.readline() if server.stdout else ""
        if not line.startswith("listening on"):
            return None
        endpoint = Endpoint.parse(f"http://{line.split()[-1]}/v1")

        async def both() -> Ceiling:
            tokens, _ = await _level(endpoint, _TOKENS)
            _, requests = await _level(endpoint, 1)
            return Ceiling(tokens, requests)

        found = asyncio.run(both())
        return found if found.tokens_per_s > 0 and found.requests_per_s > 0 else None
    finally:
        server.terminate()
        server.wait(timeout=_START_S)
