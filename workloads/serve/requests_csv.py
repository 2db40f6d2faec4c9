"""``requests.csv`` in the run directory: one row per request the run sent, written as each is answered (a run that
is stopped keeps every row it had), and carried in the report's bundle (the spec's run_files).

Times are seconds on one clock from the run's start (``t0``, said in the result's notes as a UTC time): when the
request was due (its arrival in the schedule, or its closed-loop worker free), sent, its first token and its last
arrived (the kernel's receive stamps: workloads.serve.arrival). Tokens are the usage field's where the server sent
one (else the prompt's length as asked and the chunks with text); the server's request id is its X-Request-Id header,
else the stream's ``id``; a failed request has its HTTP status, its error kind and the server's words.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:   # the spec names the file, and the registry loads the spec: no asyncio or ssl for that
    from workloads.serve.client import Outcome

REQUESTS_CSV = "requests.csv"
COLUMNS = ("level", "request", "scheduled_s", "sent_s", "first_token_s", "end_s", "input_tokens", "output_tokens",
           "server_request_id", "http_status", "error", "detail", "traffic")


def _at(t: float | None, t0: float) -> str:
    return "" if t is None else f"{t - t0:.6f}"


class RequestRows:
    """The file, opened for appending once; ``add`` writes one request's row and flushes every ``_FLUSH`` rows."""

    _FLUSH = 64

    def __init__(self, path: Path | None, t0: float):
        self.path, self.t0, self.rows = path, t0, 0
        self._file: IO[str] | None = None
        if path is not None:
            fresh = not path.exists()
            self._file = open(path, "a", newline="", encoding="utf-8")
            self._writer = csv.writer(self._file)
            if fresh:
                self._writer.writerow(COLUMNS)

    def add(self, level: str, index: int, o: Outcome, input_tokens: int, traffic: str = "") -> None:
        if self._file is None:
            return
        t0 = self.t0
        self._writer.writerow((
            level, index, _at(o.due, t0), _at(o.sent, t0), _at(o.first_token, t0), _at(o.end, t0),
            o.prompt_tokens if o.prompt_tokens is not None else input_tokens, o.tokens if o.ok else "",
            o.request_id or o.response_id or "", "" if o.status is None else o.status, o.error or "",
            o.detail, traffic))
        self.rows += 1
        if self.rows % self._FLUSH == 0:
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
