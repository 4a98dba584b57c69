"""The load generators' HTTP/1.1 client: one keep-alive connection, answers timed by the
kernel.

The load generator runs on the same cores as the server, in one event loop. When a crowd of
256 is answered at once, the last answer is read only after the generator has handled the
other 255, so a time taken when the generator reads an answer holds the generator's own queue
(bench/RESULTS.md, "The door: a crowd's first instant"). A crowd of separate clients would
each read its own answer at once. So the socket
asks Linux to stamp each segment with the time it arrived (SO_TIMESTAMPNS), and an answer's
time runs from its request's send to its first segment's arrival; the time the generator
got to it is kept beside it. Requests are written as bytes, answers parsed by httptools:
hundreds of httpx clients cost the generator more than the server's Busy answers do.
"""

from __future__ import annotations

import asyncio
import json
import socket
import struct
import time
from dataclasses import dataclass
from typing import Any

import httptools
import httpx

# Linux's values; Python's socket module does not name them.
SO_TIMESTAMPNS = 35
SCM_TIMESTAMPNS = SO_TIMESTAMPNS
_TIMESPEC = struct.Struct("qq")


@dataclass(frozen=True)
class Answer:
    """A response, and how long it took: to arrive at the socket, and to be read here."""

    status: int
    headers: dict[str, str]
    body: bytes
    arrived_ms: float  # from the send to the first segment's arrival (kernel timestamp)
    read_ms: float  # from the send to this process reading the whole answer


def arrival_ns(ancillary: list[tuple[int, int, bytes]]) -> int | None:
    """The kernel's receive timestamp among recvmsg's ancillary data, in ns since the epoch."""
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == SCM_TIMESTAMPNS:
            seconds, nanoseconds = _TIMESPEC.unpack(data[: _TIMESPEC.size])
            return int(seconds) * 1_000_000_000 + int(nanoseconds)
    return None


class Connection:
    """One keep-alive HTTP/1.1 connection (see the module doc)."""

    def __init__(self, url: str) -> None:
        self.host, self.port = httpx.URL(url).host, httpx.URL(url).port or 80
        self.sock: socket.socket | None = None
        self.parser = httptools.HttpResponseParser(self)
        self.headers: dict[str, str] = {}
        self.chunks: list[bytes] = []
        self.arrived_ns: int | None = None
        self.done: asyncio.Future[None] | None = None

    async def open(self) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, (self.host, self.port))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self.sock, self.parser = sock, httptools.HttpResponseParser(self)

    # httptools' callbacks, as it parses an answer
    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers[name.decode("latin-1").lower()] = value.decode("latin-1")

    def on_body(self, body: bytes) -> None:
        self.chunks.append(body)

    def on_message_complete(self) -> None:
        if self.done is not None and not self.done.done():
            self.done.set_result(None)

    async def post(self, path: str, payload: dict[str, Any]) -> Answer:
        """POST ``payload`` as JSON; its answer. OSError or httptools.HttpParserError when the
        connection fails (the next post opens a new one)."""
        if self.sock is None:
            await self.open()
        assert self.sock is not None
        sock, loop = self.sock, asyncio.get_running_loop()
        body = json.dumps(payload).encode()
        head = f"POST {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Type: application/json\r\n"
        request = f"{head}Content-Length: {len(body)}\r\n\r\n".encode() + body
        self.headers, self.chunks, self.arrived_ns = {}, [], None
        self.done = loop.create_future()
        sent_ns = time.time_ns()  # the kernel stamps arrivals on the same (real-time) clock
        await loop.sock_sendall(sock, request)
        fd = sock.fileno()
        loop.add_reader(fd, self._readable)
        try:
            await self.done
        except BaseException:
            loop.remove_reader(fd)
            self.close_now()  # in an unknown state: the next post opens a new one
            raise
        loop.remove_reader(fd)
        read_ns = time.time_ns()
        arrived_ns = self.arrived_ns or read_ns
        return Answer(
            self.parser.get_status_code(),
            self.headers,
            b"".join(self.chunks),
            (arrived_ns - sent_ns) / 1e6,
            (read_ns - sent_ns) / 1e6,
        )

    def _readable(self) -> None:
        assert self.sock is not None and self.done is not None
        try:
            data, ancillary, _, _ = self.sock.recvmsg(65536, 256)
            if not data:
                raise ConnectionResetError("the server closed the connection")
            if self.arrived_ns is None:
                self.arrived_ns = arrival_ns(ancillary)
            self.parser.feed_data(data)
        except BlockingIOError:
            return
        except (OSError, httptools.HttpParserError) as error:
            if not self.done.done():
                self.done.set_exception(error)

    def close_now(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    async def close(self) -> None:
        self.close_now()
