"""The wire: what is retried, what pauses, what a message may say, how fast requests go."""

from __future__ import annotations

import asyncio
import email.utils
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from referee.agents.http import ProviderDown, RateLimit, Retry, Transport, post_json, redact, retry_after
from referee.agents.model import public_url
from referee.errors import KeyRefused, ProviderError, RateLimited
from tests.referee.agents.conftest import FAST, KEY
from tests.referee.agents.fakes import DROP, Canned, canned

GOOD = canned(200, {"fine": True})


def post(server: Canned, transport: Transport | None = None) -> dict[str, Any]:
    async def go() -> dict[str, Any]:
        wire = transport or Transport(retry=FAST)
        async with wire.client() as client:
            return await post_json(wire, client, "openai", server.url + "/v1/x",
                                   {"authorization": f"Bearer {KEY}"}, {"q": 1}, KEY)
    return asyncio.run(go())


def test_transient_failures_are_retried_until_an_answer() -> None:
    truncated = (200, {"content-type": "application/json", "x-truncate": "1"}, b'{"fine": true, "pad": "xxxx"}')
    answers = [canned(500, {}), (DROP, {}, b""), truncated, canned(529, {"type": "error"}), GOOD]
    with Canned(answers).running() as server:
        with pytest.raises(ProviderDown, match="gave up after 4 tries"):
            post(server)  # 4 tries, all transient
        assert len(server.bodies) == 4
        assert post(server) == {"fine": True}


@pytest.mark.parametrize(("header", "expected"), [
    ({"retry_after": "12"}, 12.0), ({}, None), ({"retry_after": "soon"}, None),
])
def test_a_429_is_not_retried_here_it_pauses(header: dict[str, str], expected: float | None) -> None:
    answers = [canned(429, {"error": {"message": "slow down"}}, **header), GOOD]
    with Canned(answers).running() as server, pytest.raises(RateLimited) as caught:
        post(server)
    assert caught.value.retry_after == expected and len(server.bodies) == 1 and "slow down" in str(caught.value)


def test_retry_after_as_an_http_date() -> None:
    later = email.utils.format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    assert 25 < (retry_after(later) or 0) <= 30
    assert retry_after("-5") == 0.0 and retry_after(None) is None


@pytest.mark.parametrize("status", [400, 401, 403, 404])
def test_refusals_are_not_retried_and_never_carry_the_key(status: int) -> None:
    masked = f"{KEY[:10]}*****{KEY[-6:]}"
    body = {"error": {"message": f"Incorrect API key provided: {KEY}, also known as {masked}."}}
    with Canned([canned(status, body), GOOD]).running() as server, pytest.raises(ProviderError) as caught:
        post(server)
    message = str(caught.value)
    assert not isinstance(caught.value, ProviderDown) and len(server.bodies) == 1
    assert str(status) in message and "127.0.0.1" in message and "Incorrect API key" in message
    assert KEY not in message and KEY[:10] not in message and KEY[-6:] not in message


def test_redact_leaves_ordinary_words_alone() -> None:
    assert redact("the rate limit for requests", KEY) == "the rate limit for requests"
    assert redact(f"key={KEY}!", KEY) == "key=[redacted]!"
    assert redact("anything", "") == "anything"


def test_the_environment_cannot_route_requests_through_a_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "all_proxy"):
        monkeypatch.setenv(var, "http://127.0.0.1:9")
    monkeypatch.setenv("NO_PROXY", "")
    with Canned([GOOD]).running() as server:
        assert post(server) == {"fine": True}


def test_a_rate_limit_spaces_requests_across_bouts() -> None:
    async def go(server: Canned) -> None:
        wire = Transport(retry=FAST, rate=20.0)
        clients = [wire.client() for _ in range(6)]  # as six bouts would
        try:
            await asyncio.gather(*(post_json(wire, c, "openai", server.url, {}, {}, "") for c in clients))
        finally:
            for c in clients:
                await c.close()

    with Canned([GOOD] * 6).running() as server:
        started = time.monotonic()
        asyncio.run(go(server))
        elapsed = time.monotonic() - started
    assert len(server.bodies) == 6 and elapsed >= 0.25  # 20 per second: the 6th goes 250 ms after the 1st
    with pytest.raises(ValueError):
        RateLimit(0)


def test_a_logged_base_url_has_no_credentials() -> None:
    assert public_url("https://user:secret@gw.example.com/v1/?key=secret#x") == "https://gw.example.com/v1"


@pytest.mark.parametrize(("given", "logged"), [
    ("HTTPS://API.Example.COM/V1/", "https://api.example.com/V1"),
    ("https://api.example.com:443/v1", "https://api.example.com/v1"),
    ("https://h.example/\u00e4 b", "https://h.example/%C3%A4%20b"),
    ("https://b\u00fccher.example/v1", "https://xn--bcher-kva.example/v1"),
    ("http://[::1]:8000/v1/../v2", "http://[::1]:8000/v2"),
])
def test_a_logged_base_url_is_written_as_before_the_change_of_url_library(given: str, logged: str) -> None:
    """The base URL is a signed byte of every model bout's log: these are the strings httpx wrote,
    which yarl must write the same (ADR 0048)."""
    assert public_url(given) == logged


def test_the_default_install_imports_no_httpx() -> None:
    """httpx is no longer a dependency (only the `mcp` extra brings it): the agents' modules load,
    parse a provider URL and make their TLS context with it absent."""
    script = (
        "import sys; sys.modules['httpx'] = None\n"
        "import ssl\n"
        "from referee.agents.http import _target, _tls_context\n"
        "from referee.agents.model import public_url\n"
        "assert _target('https://u@h.example/v1').basic == 'Basic dTo='\n"
        "assert public_url('https://u:p@h.example/v1/?k=1') == 'https://h.example/v1'\n"
        "tls = _tls_context()\n"
        "assert tls.verify_mode == ssl.CERT_REQUIRED and tls.check_hostname and tls.get_ca_certs()\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60)


def test_backoff_is_bounded() -> None:
    retry = Retry(base_delay=1.0, max_delay=4.0)
    assert all(0 <= retry.delay(n) <= 4.0 for n in range(20))


def test_an_answer_that_is_not_utf8_is_read_not_retried() -> None:
    """A complete body with a byte that is not UTF-8 is what the model wrote: before, it was
    retried as a body cut short and the bout paused as 'provider down', to get the same bytes
    again on every resume."""
    body = b'{"say": "caf\xe9 \xff"}'
    with Canned([(200, {"content-type": "application/json"}, body), GOOD]).running() as server:
        assert post(server) == {"say": "caf\ufffd \ufffd"} and len(server.bodies) == 1


def test_the_request_carries_the_providers_headers_and_url_credentials_as_basic_auth() -> None:
    async def go(url: str, headers: dict[str, str]) -> None:
        wire = Transport(retry=FAST)
        async with wire.client() as client:
            assert await post_json(wire, client, "openai", url, headers, {"q": 1}, KEY) == {"fine": True}

    with Canned([GOOD, GOOD]).running() as server:
        asyncio.run(go(server.url + "/v1/x?api-version=2", {"Authorization": f"Bearer {KEY}", "X-Extra": "1"}))
        sent = server.headers[0]
        assert sent["authorization"] == f"Bearer {KEY}" and sent["x-extra"] == "1"
        assert sent["content-type"] == "application/json" and sent["host"] == server.url.removeprefix("http://")
        assert server.paths[0] == "/v1/x?api-version=2"
        asyncio.run(go(server.url.replace("http://", "http://user:pw@") + "/v1/x", {"Authorization": "Bearer k"}))
        assert server.headers[1]["authorization"] == "Basic dXNlcjpwdw=="  # URL credentials: Basic auth (RFC 7617)


def test_a_key_http_cannot_carry_pauses_the_bout_with_a_clear_error_and_nothing_sent() -> None:
    pasted = "sk-\u201cquoted\u201d-key"

    async def go(url: str) -> None:
        wire = Transport(retry=FAST)
        async with wire.client() as client:
            await post_json(wire, client, "openai", url, {"authorization": f"Bearer {pasted}"}, {"q": 1}, pasted)

    with Canned([GOOD]).running() as server, pytest.raises(KeyRefused, match="not ASCII") as caught:
        asyncio.run(go(server.url + "/v1/x"))
    assert pasted not in str(caught.value) and "quoted" not in str(caught.value) and server.bodies == []
