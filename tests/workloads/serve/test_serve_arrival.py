"""The client's figures hold when its bytes arrived, not when its thread got to them (workloads.serve.arrival)."""

from __future__ import annotations

import asyncio
import socket
import time

import pytest

from workloads.serve import arrival
from workloads.serve.arrival import StampedListener, StampedSocket
from workloads.serve.client import Connection, Endpoint, stream

kernel_only = pytest.mark.skipif(not arrival.KERNEL_STAMPS, reason="the kernel's receive stamps are Linux's")

LATE_S = 0.5   # how late the reader gets to bytes that have arrived
# what a loaded machine may put between a write and the clock read after it: far under LATE_S, far over the real
# gap (tens of microseconds on this VM)
SLACK_S = 0.2


@pytest.fixture(scope="module")
def stamps_on():
    """The kernel's receive stamps switched on for the host: the first socket to ask for them sets a worker to do it
    (net_enable_timestamp), and until it has, reads come without a stamp. A pair kept open keeps them on."""
    sender, received = _pair(kernel=True)
    deadline = time.monotonic() + 30
    with sender, received:
        while True:
            sender.sendall(b"x")
            received.recv(10)
            if received.from_kernel:
                break
            if time.monotonic() > deadline:
                pytest.skip("no receive stamp from the kernel within 30 s")
            time.sleep(0.01)
        yield


def _pair(kernel: bool) -> tuple[socket.socket, StampedSocket]:
    listener = StampedListener(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.kernel = kernel
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    sender = socket.create_connection(listener.getsockname())
    received, _ = listener.accept()
    listener.close()
    assert isinstance(received, StampedSocket)
    return sender, received


@kernel_only
@pytest.mark.parametrize("read", ["recv", "recv_into"])   # asyncio's plain and buffered (TLS) transports
def test_a_late_read_is_stamped_with_the_arrival(read, stamps_on):
    sender, received = _pair(kernel=True)
    with sender, received:
        assert received.kernel
        sender.sendall(b"first token")
        written = time.perf_counter()
        time.sleep(LATE_S)
        if read == "recv":
            data = received.recv(100)
        else:
            buffer = bytearray(100)
            data = bytes(buffer[:received.recv_into(buffer)])
        read_at = time.perf_counter()
    assert data == b"first token" and received.from_kernel
    assert written - SLACK_S < received.arrived <= written + SLACK_S < read_at - SLACK_S


def test_without_the_kernel_stamp_a_read_takes_the_clock():
    sender, received = _pair(kernel=False)
    with sender, received:
        sender.sendall(b"x")
        time.sleep(0.05)
        before = time.perf_counter()
        assert received.recv(10) == b"x" and not received.kernel and not received.from_kernel
    assert received.arrived >= before


@kernel_only
def test_a_busy_client_thread_does_not_lengthen_the_ttft(serving, stamps_on):
    """The first token arrives while the client's thread is busy (another stream's parsing, the host's other jobs:
    here a blocking sleep). The TTFT is the server's, as its own stamps say, not the busy thread's."""
    async def measure(url: str):
        conn = Connection(Endpoint.parse(url))
        await conn.open()
        try:
            # the request is written at once, on the open connection; the loop is then held past the server's 0.1 s
            # to its first token
            asyncio.get_running_loop().call_later(0.02, time.sleep, LATE_S)
            return await stream(conn, "/v1/completions", {"model": "test-model", "prompt": "a b", "max_tokens": 2,
                                                          "stream": True}, chat=False)
        finally:
            conn.close()

    with serving(ttft_s=0.1, itl_s=0.001) as server:
        outcome = asyncio.run(measure(server.url))
        stamps = server.timestamps[outcome.response_id]
    assert outcome.ok and outcome.ttft < LATE_S    # read after LATE_S, stamped at ~0.1 s
    assert stamps.arrived <= stamps.received and stamps.written is None
    assert outcome.ttft == pytest.approx(stamps.first - stamps.arrived, abs=SLACK_S)
