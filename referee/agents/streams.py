"""httpcore's network layer on asyncio's own streams (ADR 0037).

httpcore runs on anyio by default, and anyio wraps every read and write of a request in a
cancel scope, asks `sniffio` which event loop is running, and builds a dict of socket
attributes (two system calls) each time httpcore asks whether an idle connection is still
open: about a fifth of the CPU a model request costs the harness. The arena only ever runs
on asyncio, so this backend goes to asyncio directly, with httpcore's own error classes:
a refused or failed connection is `httpcore.ConnectError`, a timeout the matching
``*Timeout``, a dropped connection `httpcore.ReadError` or `httpcore.WriteError`; the
transport (`referee.agents.http`) retries these exactly as it did on anyio.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Iterable
from typing import Any

import httpcore

__all__ = ["AsyncioBackend", "AsyncioStream"]

_READ_LIMIT = 2**20
"""Bytes a connection buffers before asyncio stops reading the socket: a model's answer fits."""


class AsyncioStream(httpcore.AsyncNetworkStream):
    """One connection, plain or TLS, as httpcore reads and writes it."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        try:
            if timeout is None:
                return await self._reader.read(max_bytes)
            async with asyncio.timeout(timeout):
                return await self._reader.read(max_bytes)
        except TimeoutError:  # before OSError, of which it is a subclass
            raise httpcore.ReadTimeout("timed out reading the answer") from None
        except OSError as err:
            raise httpcore.ReadError(type(err).__name__) from None

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        if self._writer.is_closing():
            raise httpcore.WriteError("the connection is closed")
        try:
            self._writer.write(buffer)
            if timeout is None:
                await self._writer.drain()
            else:
                async with asyncio.timeout(timeout):
                    await self._writer.drain()
        except TimeoutError:
            raise httpcore.WriteTimeout("timed out sending the request") from None
        except OSError as err:
            raise httpcore.WriteError(type(err).__name__) from None

    async def aclose(self) -> None:
        # httpcore closes a connection it is done with, or one that failed: nothing is left to
        # send, so it is dropped at once, TLS included (a TLS close would wait on the peer's
        # close_notify for up to half a minute, holding the socket after the run has ended).
        self._writer.transport.abort()

    async def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
                        timeout: float | None = None) -> httpcore.AsyncNetworkStream:
        try:
            await self._writer.start_tls(ssl_context, server_hostname=server_hostname,
                                         ssl_handshake_timeout=timeout)
        except TimeoutError:
            await self.aclose()
            raise httpcore.ConnectTimeout("timed out in the TLS handshake") from None
        except (OSError, ssl.SSLError) as err:  # ssl.SSLError is an OSError; named for the reader
            await self.aclose()
            raise httpcore.ConnectError(f"TLS handshake failed ({type(err).__name__})") from None
        return self

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":
            # An idle connection the server closed has met its end of stream on the event loop
            # (asyncio reads every socket it watches as data comes); httpcore then drops it.
            return self._reader.at_eof()
        if info == "ssl_object":
            return self._writer.get_extra_info("ssl_object")
        if info == "client_addr":
            return self._writer.get_extra_info("sockname")
        if info == "server_addr":
            return self._writer.get_extra_info("peername")
        if info == "socket":
            return self._writer.get_extra_info("socket")
        return None


class AsyncioBackend(httpcore.AsyncNetworkBackend):
    """Opens connections for an `httpcore.AsyncConnectionPool` with asyncio."""

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                          local_address: str | None = None,
                          socket_options: Iterable[Any] | None = None) -> httpcore.AsyncNetworkStream:
        local = None if local_address is None else (local_address, 0)
        return await _connect(asyncio.open_connection(host, port, local_addr=local, limit=_READ_LIMIT),
                              timeout, socket_options)

    async def connect_unix_socket(self, path: str, timeout: float | None = None,
                                  socket_options: Iterable[Any] | None = None) -> httpcore.AsyncNetworkStream:
        return await _connect(asyncio.open_unix_connection(path, limit=_READ_LIMIT), timeout, socket_options)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


async def _connect(opening: Any, timeout: float | None,
                   socket_options: Iterable[Any] | None) -> AsyncioStream:
    try:
        async with asyncio.timeout(timeout):
            reader, writer = await opening
    except TimeoutError:
        raise httpcore.ConnectTimeout("timed out connecting") from None
    except OSError as err:
        raise httpcore.ConnectError(f"could not connect ({type(err).__name__})") from None
    for option in socket_options or ():  # none unless a caller sets them; asyncio sets TCP_NODELAY itself
        writer.get_extra_info("socket").setsockopt(*option)
    return AsyncioStream(reader, writer)
