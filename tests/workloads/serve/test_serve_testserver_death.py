"""The test server's death is a real one: every connection it accepted is dropped, one accepted as it dies included.

asyncio's Server left such a connection open and unanswered (3.11: Server._attach refuses a closed server's new
transport, and _accept_connection2 swallows that), so the client of test_the_server_dying_mid_sweep... waited its
600 s --timeout out, until the suite's wrapping `timeout` sent SIGTERM and the in-process run ended "stopped" (143).
"""

from __future__ import annotations

import asyncio
import socket

from workloads.serve.testserver import Behaviour, TestServer

WAIT_S = 20     # a dropped connection reads its end at once; only a connection left open waits this long


def _completion(n: int) -> bytes:
    body = b'{"model": "test-model", "prompt": "%d", "max_tokens": 1, "stream": true}' % n
    return b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)


async def _until_end(loop: asyncio.AbstractEventLoop, sock: socket.socket) -> bytes:
    got = b""
    while not got.endswith(b"0\r\n\r\n"):
        data = await loop.sock_recv(sock, 65536)
        assert data, got
        got += data
    return got


async def test_a_connection_accepted_as_the_server_dies_is_dropped_not_left_unanswered():
    loop = asyncio.get_running_loop()
    for _ in range(3):
        server = await TestServer(Behaviour(die_after=1)).start()   # the second completion kills it
        kept = socket.create_connection(("127.0.0.1", server.port))
        late = None
        try:
            kept.setblocking(False)
            await loop.sock_sendall(kept, _completion(1))
            assert b"200 OK" in await _until_end(loop, kept)
            # with no turn of the loop between them: the fatal request on the kept connection, then a new
            # connection (in the kernel's accept queue at once) with its request. The server's next turn reads the
            # fatal request first, then accepts the new one; it dies handling the first.
            kept.send(_completion(2))
            late = socket.create_connection(("127.0.0.1", server.port))
            late.sendall(_completion(3))
            late.setblocking(False)
            try:
                answer = await asyncio.wait_for(loop.sock_recv(late, 65536), WAIT_S)
            except ConnectionResetError:
                answer = b""
            assert answer == b""      # dropped with the rest: no answer, no wait
            assert server.completions == 2
        finally:
            kept.close()
            if late is not None:
                late.close()
            await server.close()
