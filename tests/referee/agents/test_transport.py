"""The wire under model agents (aiohttp, ADR 0041): TLS, dropped and idle connections,
timeouts, refused connections and headers, each against a real server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import socket
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from referee.agents.http import ProviderDown, Retry, Transport, post_json
from referee.errors import KeyRefused, ProviderError

ANSWER = b'{"fine": true}'
ONCE = Retry(attempts=0, base_delay=0.001, max_delay=0.001, timeout=5.0)


def _certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key, as PEM files."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "forge-arena test")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


class Server:
    """An HTTP/1.1 server in a thread: answers each request with ``ANSWER`` (or never, when
    ``silent``), optionally over TLS, optionally closing the connection after each answer
    without saying so (no ``connection: close``), as a server ending idle keep-alives does."""

    def __init__(self, tls: ssl.SSLContext | None = None, close_after: bool = False, silent: bool = False) -> None:
        self.tls, self.close_after, self.silent = tls, close_after, silent
        self.connections = self.requests = 0
        self.port = 0

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length:"))
                await reader.readexactly(length)
                self.requests += 1
                if self.silent:
                    await asyncio.sleep(30)
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n%b"
                             % (len(ANSWER), ANSWER))
                await writer.drain()
                if self.close_after:
                    break
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError):
            pass
        finally:
            writer.close()

    @contextmanager
    def running(self) -> Iterator[Server]:
        started, handles = threading.Event(), []

        async def main() -> None:
            stop = asyncio.Event()
            handles.append((asyncio.get_running_loop(), stop))
            server = await asyncio.start_server(self._handle, "127.0.0.1", 0, ssl=self.tls)
            self.port = server.sockets[0].getsockname()[1]
            started.set()
            async with server:
                await stop.wait()  # asyncio.run then cancels the handlers still open, and closes the loop

        thread = threading.Thread(target=asyncio.run, args=(main(),), daemon=True)
        thread.start()
        started.wait(5)
        try:
            yield self
        finally:
            loop, stop = handles[0]
            loop.call_soon_threadsafe(stop.set)
            thread.join(5)


def _post(url: str, transport: Transport, times: int = 1, session_for: str | None = None) -> list[dict[str, Any]]:
    async def go() -> list[dict[str, Any]]:
        async with transport.client(session_for or url) as client:
            return [await post_json(transport, client, "openai", url, {}, {"q": n}, "sk-none") for n in range(times)]
    return asyncio.run(go())


def test_a_provider_over_tls_is_reached_and_an_untrusted_certificate_is_refused(tmp_path: Path) -> None:
    cert, key = _certificate(tmp_path)
    served = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    served.load_cert_chain(cert, key)
    trusting = ssl.create_default_context(cafile=str(cert))
    with Server(tls=served).running() as server:
        url = f"https://127.0.0.1:{server.port}/v1/chat/completions"
        assert _post(url, Transport(retry=ONCE, _tls=trusting), times=3) == [{"fine": True}] * 3
        assert server.connections == 1  # kept alive across requests, TLS and all
        with pytest.raises(ProviderDown, match="could not connect") as refused:
            _post(url, Transport(retry=ONCE))  # certifi's roots do not vouch for it
        assert refused.value.unreachable
        with pytest.raises(ProviderDown, match="could not connect"):  # a session made for plain HTTP still verifies
            _post(url, Transport(retry=ONCE), session_for=f"http://127.0.0.1:{server.port}/v1")


def test_a_provider_over_plain_http_costs_no_ca_bundle() -> None:
    """Loading certifi's roots is 60-80 ms of CPU a run, for nothing when the provider is a local server."""
    with Server().running() as server:
        plain = Transport(retry=ONCE)
        assert _post(f"http://127.0.0.1:{server.port}/v1/chat/completions", plain) == [{"fine": True}]
        assert plain._tls is None
        secure = Transport(retry=ONCE)
        with pytest.raises(ProviderDown):
            _post(f"https://127.0.0.1:{server.port}/v1/chat/completions", secure)  # it speaks no TLS
        assert secure._tls is not None


def test_an_idle_connection_the_server_closed_is_not_used_again() -> None:
    """Each answer is followed by the server closing the connection; with no retries allowed,
    every request still succeeds, on a new connection each time."""
    with Server(close_after=True).running() as server:
        url = f"http://127.0.0.1:{server.port}/v1/chat/completions"

        async def go() -> list[dict[str, Any]]:
            transport = Transport(retry=ONCE)
            async with transport.client() as client:
                answers = []
                for n in range(4):
                    answers.append(await post_json(transport, client, "openai", url, {}, {"q": n}, "sk-none"))
                    await asyncio.sleep(0.05)  # the server's close reaches this loop
                return answers

        assert asyncio.run(go()) == [{"fine": True}] * 4
        assert server.connections == 4 and server.requests == 4


def test_a_provider_that_never_answers_times_out_and_one_that_is_not_there_is_unreachable() -> None:
    with Server(silent=True).running() as server:
        url = f"http://127.0.0.1:{server.port}/v1/chat/completions"
        with pytest.raises(ProviderDown, match="timed out") as slow:
            _post(url, Transport(retry=Retry(attempts=0, timeout=0.3)))
        assert not slow.value.unreachable
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, never listening: the connection is refused
        with pytest.raises(ProviderDown, match="could not connect") as refused:
            _post(f"http://127.0.0.1:{port}/v1/chat/completions", Transport(retry=ONCE))
    assert refused.value.unreachable


def test_a_key_with_a_line_break_is_refused_before_anything_is_sent() -> None:
    """A pasted key with a line break would split the request's headers: refused by name, never sent."""
    with Server().running() as server:
        url = f"http://127.0.0.1:{server.port}/v1/chat/completions"

        async def go() -> None:
            transport = Transport(retry=ONCE)
            async with transport.client() as client:
                await post_json(transport, client, "openai", url, {"authorization": "Bearer sk-a\r\nx-evil: 1"},
                                {"q": 1}, "sk-a")

        with pytest.raises(KeyRefused, match="line break") as refused:
            asyncio.run(go())
        assert "sk-a" not in str(refused.value) and server.requests == 0


@pytest.mark.parametrize("declared", [True, False])
def test_an_answer_longer_than_the_cap_is_refused_not_read_whole(
    declared: bool, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A server sending without end pauses its bout (a provider error, for a person to look at)
    instead of filling the runner's memory: by its declared length, or as the bytes come."""
    import referee.agents.http as http_module

    monkeypatch.setattr(http_module, "MAX_ANSWER", 10_000)
    body = b'{"fine": "' + b"x" * 20_000 + b'"}'

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        await reader.readexactly(next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                                      if line.lower().startswith(b"content-length:")))
        try:
            if declared:  # says how long, sends a little, and holds on: refused on what it declared
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n%b"
                             % (len(body), body[:10]))
                await writer.drain()
                await asyncio.sleep(30)  # cancelled when the test's loop ends
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n" + body)
            await writer.drain()
        finally:
            writer.close()

    async def go() -> None:
        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1/chat/completions"
        transport = Transport(retry=ONCE)
        async with server, transport.client() as client:
            await post_json(transport, client, "openai", url, {}, {"q": 1}, "sk-none")

    with pytest.raises(ProviderError, match="more than 10,000 bytes") as refused:
        asyncio.run(go())
    assert not isinstance(refused.value, ProviderDown)  # not retried: asking again gets the same
