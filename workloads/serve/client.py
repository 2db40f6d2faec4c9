"""A streaming client for an OpenAI-compatible server: asyncio streams, HTTP/1.1, server-sent events.

Stdlib only, so the workload needs no HTTP library and one core streams tens of thousands of tokens a
second (bench/serve_client_ceiling.py prints the figure): the body is read in blocks, the chunked framing
and the ``data:`` lines are cut without a parser per byte, and every event of a block carries the block's arrival:
the kernel's receive stamp of its newest packet (workloads.serve.arrival), not the moment this thread got to it.

What one request measured follows vLLM's client (vllm-project/vllm, vllm/benchmarks/lib/endpoint_request_func.py,
async_request_openai_completions): TTFT is the first chunk carrying text less the moment the request was sent;
each later chunk with text adds its gap to the ITL list; the latency (end-to-end) ends at the last chunk with
text; the output tokens are the usage field's ``completion_tokens`` when the server sends one
(``stream_options: include_usage``). A chunk with no text (the chat stream's opening role chunk) is not a token.
Where the two differ is when a chunk "is" received: vLLM reads the clock once its one thread has the chunk parsed
(``timestamp = time.perf_counter()`` after aiohttp yields it), so at 64 streams its figures carry the time its
thread spent on the others; here a chunk is stamped with its bytes' arrival at this host (the kernel's stamp),
and the request as its bytes are written (``sent``, as vLLM's ``st``, just before it).
"""

from __future__ import annotations

import asyncio
import json
import ssl
import time
from dataclasses import dataclass, field
from typing import Any, Callable
from urllib.parse import urlsplit

from workloads.facts.formatting import format_bytes
from workloads.safe_text import one_line
from workloads.serve.arrival import StampedReader, connect

# error kinds, counted per level (never dropped): an HTTP status is "HTTP 401", "HTTP 500"...
CONNECT = "connection refused or reset"
TIMEOUT = "timeout"
BROKEN = "broken stream"
NO_TOKENS = "no token in the stream"
BAD_RESPONSE = "not an HTTP/SSE answer"
STREAM_ERROR = "error in the stream"

_READ = 65536
_ERROR_BODY = 65536     # what an error answer may hold before it is cut (a server's HTML page)
_HEADER_LINE = 16384
MAX_EVENT_LINE = 1 << 20   # one SSE line: a token chunk is a few hundred bytes, a usage chunk under 1 KiB
_CLOSED_FIRST = "the server closed the connection before answering"
REDACTED = "[redacted]"    # for the key a server echoed: the report's marker (tui.redact.REDACTED)


class BadUrl(ValueError):
    pass


@dataclass(frozen=True)
class Endpoint:
    """Where the server is: ``http://HOST:PORT/v1`` split once."""

    scheme: str
    host: str
    port: int
    base: str            # the path before /completions: "/v1"
    api_key: str | None = field(default=None, repr=False)   # never printed, never written to the run

    @classmethod
    def parse(cls, url: str, api_key: str | None = None) -> Endpoint:
        parts = urlsplit(url.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise BadUrl(f"--url {url!r} is not http://HOST:PORT/v1")
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            raise BadUrl(f"--url {url!r}: the port is not a number from 1 to 65535") from None
        return cls(parts.scheme, parts.hostname, port, parts.path.rstrip("/"), api_key)

    def scrub(self, text: str) -> str:
        """What the server said, the key it may echo ("Incorrect API key provided: <key>") replaced by the marker
        (before any cut to a width: no half of the key is left); it reaches the terminal, run.log and events."""
        return text.replace(self.api_key, REDACTED) if self.api_key else text

    @property
    def root(self) -> str:
        """The server's address without the API path: where /health and /tokenize live (vLLM, SGLang)."""
        return f"{self.scheme}://{self.host}:{self.port}"

    def headers(self, body: bytes | None) -> bytes:
        lines = [f"Host: {self.host}:{self.port}", "Accept: text/event-stream, application/json",
                 "Connection: keep-alive"]
        if body is not None:
            lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
        if self.api_key:
            lines.append(f"Authorization: Bearer {self.api_key}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


@dataclass
class Outcome:
    """One request as the client saw it (seconds, perf_counter's clock)."""

    sent: float = 0.0
    # when the load meant to send it (its Poisson or trace arrival; a closed loop's worker free): what a user waits
    # from, so the client's own queueing (sent - scheduled) shows; None: the send itself
    scheduled: float | None = None
    status: int | None = None           # the HTTP status of the answer
    ok: bool = False
    error: str | None = None
    detail: str = ""
    ttft: float | None = None
    itl: list[float] = field(default_factory=list)
    latency: float | None = None
    chunks: int = 0                     # chunks that carried text
    output_tokens: int | None = None    # the usage field's completion_tokens
    prompt_tokens: int | None = None
    response_id: str | None = None
    request_id: str | None = None       # the server's X-Request-Id header, where it sends one
    text: list[str] | None = None       # the answer's pieces, kept only when asked (a conversation's next turn)

    @property
    def due(self) -> float:
        return self.sent if self.scheduled is None else self.scheduled

    @property
    def lag(self) -> float:
        """Scheduled -> sent: the client's own queueing (its in-flight cap, its thread busy with other streams)."""
        return max(0.0, self.sent - self.due)

    @property
    def ttft_due(self) -> float | None:
        """TTFT from the due time: the user's wait for the first token, the client's own queueing in it."""
        return None if self.ttft is None else self.ttft + self.lag

    @property
    def e2el_due(self) -> float | None:
        """End-to-end from the due time."""
        return None if self.latency is None else self.latency + self.lag

    @property
    def first_token(self) -> float | None:
        return None if self.ttft is None else self.sent + self.ttft

    @property
    def end(self) -> float | None:
        return None if self.latency is None else self.sent + self.latency

    @property
    def tokens(self) -> int:
        """The output tokens: the usage field's count, else the chunks with text."""
        return self.output_tokens if self.output_tokens is not None else self.chunks


class Answer(Exception):
    """An answer that is not what was asked for: its kind and its words."""

    def __init__(self, kind: str, detail: str = ""):
        super().__init__(kind)
        self.kind, self.detail = kind, detail


class Connection:
    """One HTTP/1.1 connection, kept alive between requests while the server allows it. Its reads are stamped with
    the arrival of their bytes (workloads.serve.arrival: the kernel's stamp where there is one); ``kernel=False``
    takes the clock as the client's thread reads them instead (the bench compares the two)."""

    def __init__(self, endpoint: Endpoint, kernel: bool = True):
        self.endpoint = endpoint
        self.kernel = kernel
        self.reader: StampedReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        if self.writer is not None and not self.writer.is_closing():
            return
        context = ssl.create_default_context() if self.endpoint.scheme == "https" else None
        try:
            self.reader, self.writer = await connect(self.endpoint.host, self.endpoint.port, kernel=self.kernel,
                                                     limit=_HEADER_LINE, tls=context)
        except OSError as exc:
            raise Answer(CONNECT, one_line(exc.strerror or exc, 200)) from None

    def close(self) -> None:
        if self.writer is not None:
            self.writer.transport.abort()
        self.reader = self.writer = None

    async def send(self, method: str, path: str, body: bytes | None) -> tuple[int, dict[str, str]]:
        """Write the request, read the status line and headers. A kept-alive connection the server closed
        while idle is opened again once (its closing is no answer to this request)."""
        reused = self.writer is not None and not self.writer.is_closing()
        try:
            return await self._send(method, path, body)
        except Answer as answer:
            if not (reused and answer.kind == BROKEN and answer.detail == _CLOSED_FIRST):
                raise
        self.close()
        return await self._send(method, path, body)

    async def _send(self, method: str, path: str, body: bytes | None) -> tuple[int, dict[str, str]]:
        await self.open()
        assert self.reader is not None and self.writer is not None
        self.writer.write(f"{method} {path} HTTP/1.1\r\n".encode("latin-1") + self.endpoint.headers(body) + (body or b""))
        try:
            status_line = await self.reader.readline()
            if not status_line:
                raise Answer(BROKEN, _CLOSED_FIRST)
            parts = status_line.split(None, 2)
            if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].isdigit():
                raise Answer(BAD_RESPONSE, one_line(self.endpoint.scrub(status_line.decode("latin-1")), 80))
            headers: dict[str, str] = {}
            while True:
                line = await self.reader.readline()
                if line in (b"\r\n", b"\n"):
                    break
                if not line:
                    raise Answer(BROKEN, "the server closed the connection in its headers")
                name, _, value = line.decode("latin-1").partition(":")
                headers[name.strip().lower()] = value.strip()
        except (ValueError, asyncio.LimitOverrunError):
            raise Answer(BAD_RESPONSE, "a header line over 16 KiB") from None
        except (ConnectionError, OSError) as exc:
            raise Answer(CONNECT, one_line(exc, 200)) from None
        return int(parts[1]), headers

    async def body(self, headers: dict[str, str]):
        """The body's bytes as they arrive (chunked, sized or until close), each block with its arrival time;
        ends cleanly only when the framing says the body is whole (else :data:`BROKEN`)."""
        assert self.reader is not None
        chunked = "chunked" in headers.get("transfer-encoding", "").lower()
        size = headers.get("content-length")
        left = int(size) if size and size.isdigit() and not chunked else None
        dechunk = Dechunker() if chunked else None
        while True:
            if left == 0 or (dechunk is not None and dechunk.done):
                if headers.get("connection", "").lower() == "close":
                    self.close()
                return
            try:
                data = await self.reader.read(_READ if left is None else min(_READ, left))
            except (ConnectionError, OSError) as exc:
                raise Answer(BROKEN, one_line(exc, 200)) from None
            now = self.reader.fed_at    # the newest bytes of the block arrived then (workloads.serve.arrival)
            if not data:
                self.close()
                if left is None and dechunk is None:
                    return   # a body that ends with the connection: whole by definition
                raise Answer(BROKEN, "the server closed the stream before its end")
            if left is not None:
                left -= len(data)
            yield (dechunk.feed(data) if dechunk is not None else data), now


class Dechunker:
    """HTTP/1.1 chunked transfer coding, decoded block by block."""

    def __init__(self) -> None:
        self._buf = b""
        self._left = 0
        self._state = "size"
        self.done = False

    def feed(self, data: bytes) -> bytes:
        buf, i, out = self._buf + data, 0, []
        while not self.done:
            if self._state == "data":
                take = min(self._left, len(buf) - i)
                out.append(buf[i:i + take])
                i += take
                self._left -= take
                if self._left:
                    break
                self._state = "crlf"
            elif self._state == "crlf":
                if len(buf) - i < 2:
                    break
                i += 2
                self._state = "size"
            else:   # "size", or "trailer" after the last chunk
                end = buf.find(b"\r\n", i)
                if end < 0:
                    if len(buf) - i > _HEADER_LINE:
                        raise Answer(BAD_RESPONSE, "a chunk size line over 16 KiB")
                    break
                line, i = buf[i:end], end + 2
                if self._state == "trailer":
                    self.done = not line
                    continue
                try:
                    self._left = int(line.split(b";", 1)[0].strip(), 16)
                except ValueError:
                    raise Answer(BAD_RESPONSE, "a chunk size that is not hexadecimal") from None
                self._state = "data" if self._left else "trailer"
        self._buf = buf[i:]
        return b"".join(out)


async def read_error(conn: Connection, status: int, headers: dict[str, str]) -> Answer:
    """An answer other than 200: its status, and its message when it is OpenAI's error object."""
    body = b""
    try:
        async for data, _ in conn.body(headers):
            body += data
            if len(body) > _ERROR_BODY:
                conn.close()
                break
    except Answer:
        pass
    return Answer(f"HTTP {status}", error_message(body, conn.endpoint.scrub))


def error_message(body: bytes, scrub: Callable[[str], str] = str) -> str:   # scrub: before the message is cut
    try:
        found = json.loads(body)
    except ValueError:
        return one_line(scrub(body.decode("utf-8", "replace")), 160)
    if isinstance(found, dict):
        error = found.get("error", found)
        found = error.get("message", error) if isinstance(error, dict) else error
    return one_line(scrub(str(found)), 160)


async def get_json(conn: Connection, path: str, payload: Any = None) -> tuple[int, Any]:
    """GET (or POST ``payload``) ``path`` (the whole path: "/v1/models"); (status, the JSON, or None when it is not)."""
    body = None if payload is None else json.dumps(payload).encode()
    status, headers = await conn.send("GET" if body is None else "POST", path, body)
    raw = b""
    async for data, _ in conn.body(headers):
        raw += data
        if len(raw) > 8 * _ERROR_BODY:
            conn.close()
            return status, None
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, None


async def stream(conn: Connection, path: str, payload: dict[str, Any], chat: bool, keep_text: bool = False) -> Outcome:
    """One streamed completion on ``conn``; errors are the outcome's kind, never raised."""
    out = Outcome(text=[] if keep_text else None)
    body = json.dumps(payload).encode()
    out.sent = time.perf_counter()
    try:
        status, headers = await conn.send("POST", path, body)
        out.status, out.request_id = status, headers.get("x-request-id")
        if status != 200:
            raise await read_error(conn, status, headers)
        await _events(conn, headers, out, chat)
        if out.ttft is None:
            raise Answer(NO_TOKENS, "the stream ended with no text in it")
        out.ok = True
    except Answer as answer:
        out.error, out.detail = answer.kind, answer.detail
        if answer.kind != NO_TOKENS and not answer.kind.startswith("HTTP"):
            conn.close()
    except asyncio.CancelledError:
        conn.close()
        raise
    return out


async def _events(conn: Connection, headers: dict[str, str], out: Outcome, chat: bool) -> None:
    pending = bytearray()   # the line not ended yet: appended to in place (bytes += bytes copied it each block)
    last = None
    done = False
    async for data, now in conn.body(headers):
        pending += data
        if b"\n" not in data:
            if len(pending) > MAX_EVENT_LINE:   # a data: line that never ends would grow until --timeout
                raise Answer(BAD_RESPONSE, f"a data: line over {format_bytes(MAX_EVENT_LINE)} without its end")
            continue
        lines = bytes(pending).split(b"\n")
        pending = bytearray(lines.pop())
        for line in lines:
            if not line.startswith(b"data:") or done:
                continue
            payload = line[5:].strip()
            if payload == b"[DONE]":
                done = True
                continue
            try:
                event = json.loads(payload)
            except ValueError:
                event = None
            if not isinstance(event, dict):
                raise Answer(BAD_RESPONSE, "a data: line that is not a JSON object")
            choices = event.get("choices")
            if choices:
                first = choices[0] if isinstance(choices[0], dict) else {}
                text = (first.get("delta") or {}).get("content") if chat else first.get("text")
                if text:
                    if last is None:
                        out.ttft = now - out.sent
                        out.response_id = event.get("id")
                    else:
                        out.itl.append(now - last)
                    last = now
                    out.chunks += 1
                    if out.text is not None:
                        out.text.append(text)
            usage = event.get("usage")
            if isinstance(usage, dict):
                out.output_tokens = _count(usage.get("completion_tokens"))
                out.prompt_tokens = _count(usage.get("prompt_tokens"))
            if "error" in event:
                raise Answer(STREAM_ERROR, error_message(payload, conn.endpoint.scrub))
    if last is not None:
        out.latency = last - out.sent


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
