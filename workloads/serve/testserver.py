"""A local OpenAI-compatible server with set delays, for the tests and the client's ceiling bench.

`python -m workloads.serve.testserver --ttft-ms 50 --itl-ms 10` prints ``listening on 127.0.0.1:PORT`` and
serves /v1/models, /health, /tokenize (a word is a token, so an input length is exact), and streamed
/v1/completions and /v1/chat/completions: the first token after ``ttft_s``, one more every ``itl_s``,
``max_tokens`` of them (it ignores EOS: it has none). Faults on demand: a key it wants (401 without it),
every Nth request answered 500, every Nth stream cut mid-way, no usage field, the whole server gone after N
requests, or HTML instead of an API. It keeps its own timestamps of each request (``timestamps``, and
GET /debug/timestamps), which the bench holds the client's figures against: when the request reached its socket
(the kernel's stamp, as the client stamps what it receives: workloads.serve.arrival), when its one thread had read
it, when it wrote the first and the last token (and each token, with ``token_stamps``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from workloads.serve.arrival import StampedListener, StampedSocket


@dataclass
class Behaviour:
    ttft_s: float = 0.0
    itl_s: float = 0.0
    models: tuple[str, ...] = ("test-model",)
    api_key: str | None = None
    fail_every: int = 0       # every Nth completion is answered 500
    # every Nth completion refused as OpenAI's API refuses a wrong key, echoing the key the request carried
    # ("Incorrect API key provided: <key>"): with a 401, or inside a 200 stream when echo_in_stream
    echo_key_every: int = 0
    echo_in_stream: bool = False
    break_every: int = 0      # every Nth stream stops half-way, the connection dropped
    usage: bool = True        # honours stream_options.include_usage
    die_after: int = 0        # the server goes away (socket and connections) after N completions
    not_openai: bool = False  # an HTML page for every path, as a web server would
    refuse_ignore_eos: int = 0   # this HTTP status for a request with ignore_eos: 400, or 422 as FastAPI's do
    tokens_per_chunk: int = 1    # tokens a streamed chunk holds (a detokenizer that waits for printable text)
    done_marker: bool = True     # ``data: [DONE]`` at the end (transformers serve sends none)
    token_stamps: bool = False   # keep the time each token was written (Stamps.written), for the bench
    # at most this many completions stream at once (0: no cap), the others wait their turn in arrival order, as a
    # server's batch of max-num-seqs sequences: a known capacity of slots / (ttft + (tokens - 1) x itl) requests/s
    slots: int = 0
    # a prompt (its words) and max_tokens over this answered 400 with vLLM's words (0: no limit)
    max_model_len: int = 0
    # each prompt token not in its prefix cache adds this to the TTFT (a prefill); the cache holds every 16-token
    # block prefix seen before (vLLM's automatic prefix caching hashes blocks so): a shared system prompt is paid once
    prefill_ms_per_token: float = 0.0
    # at most this many requests/s begin (0: no limit), after a burst of ``burst`` at once; the others queue in arrival
    # order: a server that holds its TTFT up to exactly that rate, then queues (the generic cell rate algorithm)
    rate: float = 0.0
    burst: int = 1

    @classmethod
    def quick(cls) -> Behaviour:
        """`cardbench run serve --test-server`'s: small set delays, so TPOT and ITL are figures (with no delay every
        token of a request arrived in one read, and the table said TPOT 0 ms) and a sweep takes a second or two."""
        return cls(ttft_s=QUICK_TTFT_MS / 1000, itl_s=QUICK_ITL_MS / 1000)

    def said(self) -> str:
        """Its delays and capacity as the result says them (the bounds a test server's figures sit beside)."""
        parts = [f"ttft {self.ttft_s * 1000:g} ms", f"itl {self.itl_s * 1000:g} ms"]
        parts += [f"slots {self.slots}"] if self.slots else []
        parts += [f"max_len {self.max_model_len}"] if self.max_model_len else []
        parts += [f"rate {self.rate:g} requests/s (burst {self.burst})"] if self.rate else []
        parts += [f"prefill {self.prefill_ms_per_token:g} ms a token not in its prefix cache"] \
            if self.prefill_ms_per_token else []
        return ", ".join(parts)

    @classmethod
    def parse(cls, text: str) -> Behaviour:
        """``ttft=MS,itl=MS,slots=N,max_len=TOKENS`` (--test-server-set), the rest as :meth:`quick`; ValueError
        naming what is wrong."""
        found = cls.quick()
        for part in filter(None, (p.strip() for p in text.split(","))):
            key, _, value = (s.strip() for s in part.partition("="))
            try:
                number = float(value)
            except ValueError:
                number = -1.0
            if key not in _SETTABLE or not 0 <= number < 1e7 or (key in ("slots", "max_len") and number % 1):
                raise ValueError(f"--test-server-set {text!r}: each part is ttft=MS, itl=MS, slots=N, max_len=TOKENS "
                                 "or prefill=MS_PER_TOKEN (numbers, 0 or more; slots and max_len whole)")
            name, scale = _SETTABLE[key]
            setattr(found, name, number if scale is None else number / 1000 if scale else int(number))
        return found


QUICK_TTFT_MS, QUICK_ITL_MS = 2.0, 0.5
_SETTABLE = {"ttft": ("ttft_s", True), "itl": ("itl_s", True), "slots": ("slots", False),
             "max_len": ("max_model_len", False), "prefill": ("prefill_ms_per_token", None), "rate": ("rate", None),
             "burst": ("burst", False)}
_BLOCK = 16     # tokens (words) a prefix-cache block holds


@dataclass
class Stamps:
    """The server's own clock (perf_counter) for one request."""

    received: float               # its thread had read the whole request
    arrived: float                # the request's last bytes reached the socket (the kernel's stamp, else = received)
    started: float | None = None  # its slot taken (Behaviour.slots; else as it was read): its service began
    first: float | None = None    # the first token written to the socket (on loopback: in the client's socket then)
    last: float | None = None
    tokens: int = 0
    written: list[float] | None = None   # every token's write, with Behaviour.token_stamps


@dataclass
class TestServer:
    __test__ = False    # not a pytest test class, for all its name
    behaviour: Behaviour = field(default_factory=Behaviour)
    host: str = "127.0.0.1"
    port: int = 0
    timestamps: dict[str, Stamps] = field(default_factory=dict)
    completions: int = 0

    async def start(self) -> TestServer:
        listener = StampedListener(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)    # as asyncio.start_server does
        listener.bind((self.host, self.port))
        listener.listen(128)
        listener.setblocking(False)
        self.port = listener.getsockname()[1]
        self._listener = listener
        self._open: set[asyncio.StreamWriter] = set()
        self._handlers: set[asyncio.Task[None]] = set()
        self._dead = False
        self._slots = asyncio.Semaphore(self.behaviour.slots) if self.behaviour.slots else None
        asyncio.get_running_loop().add_reader(listener.fileno(), self._accept)
        return self

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def kill(self) -> None:
        """Gone at once, as a crashed server: the socket closed, every connection it accepted dropped, one accepted
        as it dies included. (asyncio's Server left such a one open and unanswered: 3.11's Server._attach refuses a
        closed server's new transport and _accept_connection2 swallows that, so a client waited out its --timeout.)"""
        if not self._dead:
            self._dead = True
            asyncio.get_running_loop().remove_reader(self._listener.fileno())
            self._listener.close()    # what waits in the kernel's queue is refused (reset) with it
        for writer in list(self._open):
            writer.transport.abort()

    async def close(self) -> None:
        self.kill()
        await asyncio.gather(*self._handlers, return_exceptions=True)

    def _accept(self) -> None:
        """The listener is readable: each connection waiting is taken, and served by a task of its own."""
        while not self._dead:
            try:
                conn, _ = self._listener.accept()
            except (BlockingIOError, InterruptedError, ConnectionAbortedError):
                return          # none left, or one reset before it was taken
            except OSError:     # out of file descriptors: as asyncio's own server, listen again in a second
                loop = asyncio.get_running_loop()
                loop.remove_reader(self._listener.fileno())
                loop.call_later(1.0, lambda: self._dead or loop.add_reader(self._listener.fileno(), self._accept))
                return
            handler = asyncio.ensure_future(self._serve(conn))
            self._handlers.add(handler)
            handler.add_done_callback(self._handlers.discard)

    async def _serve(self, sock: StampedSocket) -> None:
        try:
            reader, writer = await asyncio.open_connection(sock=sock)
        except OSError:
            sock.close()
            return
        if self._dead:              # it died while this one was set up: dropped with the others
            writer.transport.abort()
            return
        self._open.add(writer)      # at once: a death from now on drops it
        try:
            while await self._one(reader, writer, sock):
                pass
        except (ConnectionError, asyncio.IncompleteReadError, ValueError):
            pass
        finally:
            self._open.discard(writer)
            writer.transport.abort()

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, sock: StampedSocket) -> bool:
        line = await reader.readline()
        if not line:
            return False
        _method, path, _ = line.decode("latin-1").split(" ", 2)
        headers = {}
        while (h := await reader.readline()) not in (b"\r\n", b""):
            name, _, value = h.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        body = await reader.readexactly(int(headers.get("content-length", "0")))
        received = time.perf_counter()
        arrived = sock.arrived or received    # the read that completed it: a client sends one request at a time
        b = self.behaviour
        if b.not_openai:
            writer.write(_plain(200, b"<html><body>It works!</body></html>", "text/html"))
            return True
        if path == "/health":
            writer.write(_plain(200, b""))
        elif path == "/debug/timestamps":
            writer.write(_json(200, {k: vars(v) for k, v in self.timestamps.items()}))
        elif b.api_key and headers.get("authorization") != f"Bearer {b.api_key}":
            writer.write(_json(401, {"error": {"message": "Invalid API key", "type": "invalid_request_error"}}))
        elif path == "/v1/models":
            writer.write(_json(200, {"object": "list", "data": [{"id": m, "object": "model"} for m in b.models]}))
        elif path == "/tokenize":
            words = len(json.loads(body).get("prompt", "").split())
            writer.write(_json(200, {"count": words, "tokens": list(range(words)), "max_model_len": 4096}))
        elif path in ("/v1/completions", "/v1/chat/completions"):
            return await self._complete(json.loads(body), path.endswith("chat/completions"), Stamps(received, arrived),
                                        writer, headers.get("authorization", ""))
        else:
            writer.write(_json(404, {"error": {"message": f"no route {path}"}}))
        await writer.drain()
        return True

    async def _complete(self, ask: dict[str, Any], chat: bool, stamps: Stamps, writer: asyncio.StreamWriter,
                        auth: str = "") -> bool:
        b = self.behaviour
        self.completions += 1
        n = self.completions
        if b.die_after and n > b.die_after:
            self.kill()
            return False
        if ask.get("model") not in b.models:
            writer.write(_json(404, {"error": {"message": f"The model `{ask.get('model')}` does not exist."}}))
            return True
        if b.refuse_ignore_eos and "ignore_eos" in ask:
            writer.write(_json(b.refuse_ignore_eos, {"detail": "Unexpected fields in the request: {'ignore_eos'}"}))
            return True
        if b.echo_key_every and n % b.echo_key_every == 0:
            writer.write(_echoed_key(auth.removeprefix("Bearer ").strip(), b.echo_in_stream))
            return True
        if b.fail_every and n % b.fail_every == 0:
            writer.write(_json(500, {"error": {"message": "internal error (on demand)"}}))
            return True
        asked = _words(ask) + max(1, int(ask.get("max_tokens") or 16))
        if b.max_model_len and asked > b.max_model_len:   # vLLM's answer (serving_engine's _validate_input)
            writer.write(_json(400, {"object": "error", "type": "BadRequestError", "code": 400, "message": (
                f"This model's maximum context length is {b.max_model_len} tokens. However, you requested {asked} "
                "tokens. Please reduce the length of the messages or completion.")}))
            return True
        if b.rate:
            await self._admitted()
        if self._slots is None:
            return await self._stream(ask, chat, stamps, writer, n)
        async with self._slots:     # its turn in the batch: the wait is in its TTFT, as a queued request's
            return await self._stream(ask, chat, stamps, writer, n)

    async def _admitted(self) -> None:
        """Wait for this request's turn under Behaviour.rate: its start is no earlier than the theoretical arrival
        time less the burst's allowance, and each start moves that time on by 1 / rate (requests in arrival order)."""
        b = self.behaviour
        now = time.perf_counter()
        tat = max(getattr(self, "_tat", now), now)
        start = max(now, tat - (max(1, b.burst) - 1) / b.rate)
        self._tat = tat + 1 / b.rate
        if start > now:
            await asyncio.sleep(start - now)

    def _uncached(self, ask: dict[str, Any]) -> int:
        """The prompt's tokens (words) after its longest prefix of whole 16-word blocks seen before; the prompt's
        blocks are remembered."""
        words = _prompt_words(ask)
        seen = getattr(self, "_blocks", None)
        if seen is None:
            seen = self._blocks = set()
        key, cached, hit = 0, 0, True
        for i in range(0, len(words) - len(words) % _BLOCK, _BLOCK):
            key = hash((key, tuple(words[i:i + _BLOCK])))
            if hit and key in seen:
                cached = i + _BLOCK
            else:
                hit = False
                seen.add(key)
        return len(words) - cached

    async def _stream(self, ask: dict[str, Any], chat: bool, stamps: Stamps, writer: asyncio.StreamWriter,
                      n: int) -> bool:
        b = self.behaviour
        rid = f"{'chatcmpl' if chat else 'cmpl'}-{n}"
        self.timestamps[rid] = stamps
        stamps.started = time.perf_counter()
        stamps.written = [] if b.token_stamps else None
        tokens = max(1, int(ask.get("max_tokens") or 16))
        cut = tokens // 2 if b.break_every and n % b.break_every == 0 else None
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
        if chat:
            writer.write(_event({"id": rid, "object": "chat.completion.chunk",
                                 "choices": [{"index": 0, "delta": {"role": "assistant"}}]}))
        token = _token(rid, chat)
        prefill = b.prefill_ms_per_token * self._uncached(ask) / 1000 if b.prefill_ms_per_token else 0.0
        if b.ttft_s or prefill:
            await asyncio.sleep(b.ttft_s + prefill)
        for i in range(tokens):
            if i == cut:
                await writer.drain()
                writer.transport.abort()
                return False
            if b.itl_s and i:
                await asyncio.sleep(b.itl_s)
            if (i + 1) % b.tokens_per_chunk and i + 1 < tokens:
                continue        # held for the chunk's next token
            writer.write(token)
            stamps.last = time.perf_counter()
            stamps.first = stamps.first or stamps.last
            stamps.tokens = i + 1
            if stamps.written is not None:
                stamps.written.append(stamps.last)
            if b.itl_s or b.ttft_s:
                await writer.drain()
        if b.usage and (ask.get("stream_options") or {}).get("include_usage"):
            prompt = _words(ask)
            writer.write(_event({"id": rid, "choices": [], "usage": {
                "prompt_tokens": prompt, "completion_tokens": tokens, "total_tokens": prompt + tokens}}))
        writer.write((_chunk(b"data: [DONE]\n\n") if b.done_marker else b"") + b"0\r\n\r\n")
        await writer.drain()
        return True


class InThread:
    """A TestServer on an event loop of its own, in a daemon thread: for a caller whose own loop is not running
    yet (`cardbench run serve --test-server`, whose sweep then runs on its own loop)."""

    def __init__(self, behaviour: Behaviour | None = None):
        self.loop = asyncio.new_event_loop()
        self.server = TestServer(behaviour or Behaviour())
        self._thread = threading.Thread(target=self.loop.run_forever, name="cardbench-test-server", daemon=True)
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self.server.start(), self.loop).result(timeout=30)

    @property
    def url(self) -> str:
        return self.server.url

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.server.close(), self.loop).result(timeout=30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=30)
        self.loop.close()


def _prompt_words(ask: dict[str, Any]) -> list[str]:
    """A request's prompt as words (a word is a token here): its text, or its messages' contents in turn."""
    messages = ask.get("messages")
    if isinstance(messages, list):
        return [w for m in messages if isinstance(m, dict) for w in str(m.get("content", "")).split()]
    return str(ask.get("prompt") or "").split()


def _words(ask: dict[str, Any]) -> int:
    return len(_prompt_words(ask))


def _token(rid: str, chat: bool) -> bytes:
    if chat:
        return _event({"id": rid, "object": "chat.completion.chunk",
                       "choices": [{"index": 0, "delta": {"content": " tok"}, "finish_reason": None}]})
    return _event({"id": rid, "object": "text_completion",
                   "choices": [{"index": 0, "text": " tok", "logprobs": None, "finish_reason": None}]})


def _echoed_key(key: str, in_stream: bool) -> bytes:
    """OpenAI's refusal of a wrong key, the key in its words: as a 401, or as an error event in a 200 stream."""
    error = {"message": f"Incorrect API key provided: {key}. You can find your API key at "
                        "https://platform.openai.com/account/api-keys.", "type": "invalid_request_error",
             "code": "invalid_api_key"}
    if not in_stream:
        return _json(401, {"error": error})
    return (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
            + _event({"error": error}) + b"0\r\n\r\n")


def _chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


def _event(obj: Any) -> bytes:
    return _chunk(b"data: " + json.dumps(obj).encode() + b"\n\n")


def _plain(status: int, body: bytes, kind: str = "text/plain") -> bytes:
    return (f"HTTP/1.1 {status} X\r\nContent-Type: {kind}\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body


def _json(status: int, obj: Any) -> bytes:
    return _plain(status, json.dumps(obj).encode(), "application/json")


async def _main(argv: list[str]) -> None:
    p = argparse.ArgumentParser(prog="python -m workloads.serve.testserver")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--ttft-ms", type=float, default=0.0)
    p.add_argument("--itl-ms", type=float, default=0.0)
    p.add_argument("--model", default="test-model")
    p.add_argument("--api-key-env", default=None, help="want the key this variable holds")
    p.add_argument("--die-after", type=int, default=0)
    p.add_argument("--token-stamps", action="store_true", help="keep each token's write time (GET /debug/timestamps)")
    p.add_argument("--slots", type=int, default=0, help="at most N completions at once, the others queued")
    p.add_argument("--max-model-len", type=int, default=0, help="prompt + max_tokens over this: HTTP 400")
    p.add_argument("--rate", type=float, default=0.0, help="at most R requests/s begin, the others queued")
    p.add_argument("--burst", type=int, default=1, help="with --rate: this many at once before the rate holds")
    args = p.parse_args(argv)
    import os

    key = os.environ.get(args.api_key_env) if args.api_key_env else None
    server = await TestServer(Behaviour(args.ttft_ms / 1000, args.itl_ms / 1000, (args.model,), key,
                                        die_after=args.die_after, token_stamps=args.token_stamps,
                                        slots=args.slots, max_model_len=args.max_model_len, rate=args.rate,
                                        burst=args.burst),
                                        port=args.port).start()
    print(f"listening on 127.0.0.1:{server.port}", flush=True)
    await asyncio.Event().wait()     # until the process is stopped


if __name__ == "__main__":
    try:
        asyncio.run(_main(sys.argv[1:]))
    except (KeyboardInterrupt, asyncio.CancelledError):
        pass
