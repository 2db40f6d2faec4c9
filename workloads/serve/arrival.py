"""When a stream's bytes arrived: the kernel's receive stamp of the newest packet a read took, on perf_counter's clock.

The client's one thread serves every stream: at 64 in flight a burst of arrivals is read one socket after another,
behind the parsing of the streams read before, and behind whatever else the host runs on that core. A clock read when
the thread gets to a socket adds all that to the figures (measured on the loaded 2-core VM at concurrency 64: TTFT
0.4-3.2 ms mean, 2.6-8.1 ms p99 off the server's own stamps: bench/serve_client_ceiling.py). Linux stamps each packet
as it arrives (SO_TIMESTAMPNS) and hands the newest stamp of a read back with its bytes (recvmsg), so the figures hold
the time the server's bytes reached this host, however late the thread read them (0.003-0.004 ms mean off). Its limit:
a thread a whole token gap behind reads two tokens at once under the newer one's stamp (TCP merges the packets it
queues), so the first is late by that gap; the bench counts such reads. Elsewhere (no such option) the read's own
clock is taken. The test server stamps the requests it receives the same way, so its own timestamps begin where the
client's end.
"""

from __future__ import annotations

import asyncio
import platform
import socket
import struct
import sys
import time
from typing import Any

# SO_TIMESTAMPNS: <asm-generic/socket.h> (SO_TIMESTAMPNS_OLD, which 64-bit Linux uses) on the architectures
# listed (others number it differently); Python's socket module does not name it. The control message it brings is a
# struct timespec (two 64-bit longs there) on CLOCK_REALTIME (socket(7), "SO_TIMESTAMPNS")
_SO_TIMESTAMPNS = 35
KERNEL_STAMPS = sys.platform.startswith("linux") and platform.machine() in ("x86_64", "aarch64", "riscv64")
_TIMESPEC = struct.Struct("@qq")
_ANCILLARY = socket.CMSG_SPACE(_TIMESPEC.size) if hasattr(socket, "CMSG_SPACE") else 0


def _arrived(ancillary: list[tuple[int, int, bytes]]) -> float | None:
    """The kernel's stamp, moved from the wall clock to perf_counter's (the age of the packet is the same on both)."""
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == _SO_TIMESTAMPNS and len(data) >= _TIMESPEC.size:
            seconds, nanoseconds = _TIMESPEC.unpack_from(data)
            age_ns = time.time_ns() - (seconds * 1_000_000_000 + nanoseconds)
            return (time.perf_counter_ns() - max(0, age_ns)) / 1e9   # max: a wall clock stepped back
    return None


class StampedSocket(socket.socket):
    """A socket whose reads note when their bytes arrived (:attr:`arrived`, perf_counter's clock): the kernel's
    stamp where :meth:`stamp_in_kernel` could ask for it, else the clock as the read returns. asyncio's transports
    read through ``recv`` (a plain protocol) or ``recv_into`` (a buffered one: the TLS layer), so both are stamped."""

    arrived = 0.0
    kernel = False
    from_kernel = False   # the last read's stamp was the kernel's (the first socket to ask switches the stamps on
    # for the whole host, a moment later: Linux defers it to a worker, net_enable_timestamp; until then, the clock)

    def stamp_in_kernel(self, wanted: bool = True) -> bool:
        if wanted and KERNEL_STAMPS and _ANCILLARY:
            try:
                self.setsockopt(socket.SOL_SOCKET, _SO_TIMESTAMPNS, 1)
                self.kernel = True
            except OSError:
                self.kernel = False
        return self.kernel

    def recv(self, bufsize: int, flags: int = 0) -> bytes:
        if not self.kernel:
            data = super().recv(bufsize, flags)
            self.arrived = time.perf_counter()
            return data
        data, ancillary, _, _ = self.recvmsg(bufsize, _ANCILLARY, flags)
        self._stamp(ancillary)
        return data

    def recv_into(self, buffer: Any, nbytes: int = 0, flags: int = 0) -> int:
        if not self.kernel:
            n = super().recv_into(buffer, nbytes, flags)
            self.arrived = time.perf_counter()
            return n
        view = memoryview(buffer).cast("B")
        n, ancillary, _, _ = self.recvmsg_into([view[:nbytes] if nbytes else view], _ANCILLARY, flags)
        self._stamp(ancillary)
        return n

    def _stamp(self, ancillary: list[tuple[int, int, bytes]]) -> None:
        stamp = _arrived(ancillary)
        self.from_kernel = stamp is not None
        self.arrived = stamp if stamp is not None else time.perf_counter()   # no stamp: an end of stream, or not yet


class StampedReader(asyncio.StreamReader):
    """A stream reader that keeps the arrival of the newest bytes fed to it (:attr:`fed_at`)."""

    sock: StampedSocket | None = None
    fed_at = 0.0

    def feed_data(self, data: bytes) -> None:
        # the transport feeds what its read returned at once, in the same callback: the socket's stamp is this read's
        self.fed_at = self.sock.arrived if self.sock is not None else time.perf_counter()
        super().feed_data(data)


async def connect(host: str, port: int, *, kernel: bool = True, limit: int = 2**16,
                  tls: Any = None) -> tuple[StampedReader, asyncio.StreamWriter]:
    """asyncio.open_connection on a :class:`StampedSocket` (each address the name resolves to, in turn); OSError
    as open_connection raises it."""
    loop = asyncio.get_running_loop()
    error: OSError = OSError(f"{host}: no address")
    try:     # an address needs no resolver's thread (asyncio.open_connection's own shortcut)
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_NUMERICHOST)
    except socket.gaierror:
        addresses = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    for family, kind, proto, _, address in addresses:
        sock = StampedSocket(family, kind, proto)
        try:
            sock.setblocking(False)
            await loop.sock_connect(sock, address)
        except OSError as exc:
            sock.close()
            error = exc
            continue
        except BaseException:
            sock.close()
            raise
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)   # a request is not held back for an ACK
        sock.stamp_in_kernel(kernel)
        reader = StampedReader(limit=limit, loop=loop)
        reader.sock = sock
        protocol = asyncio.StreamReaderProtocol(reader, loop=loop)
        try:
            transport, _ = await loop.create_connection(lambda: protocol, sock=sock, ssl=tls,
                                                        server_hostname=host if tls is not None else None)
        except BaseException:
            sock.close()
            raise
        return reader, asyncio.StreamWriter(transport, protocol, reader, loop)
    raise error


class StampedListener(socket.socket):
    """A listening socket whose accepted connections are :class:`StampedSocket` (loop.sock_accept takes them
    through ``accept``)."""

    kernel = True

    def accept(self) -> tuple[StampedSocket, Any]:
        fd, address = self._accept()      # what socket.socket.accept does, with the stamped class
        conn = StampedSocket(self.family, self.type, self.proto, fileno=fd)
        if socket.getdefaulttimeout() is None and self.gettimeout():
            conn.setblocking(True)
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)   # asyncio sets it only where proto says TCP
        conn.stamp_in_kernel(self.kernel)
        return conn, address
