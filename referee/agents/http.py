"""The wire under every model agent: one POST with bounded retries, a shared rate, no secrets.

What is retried and what pauses is decided here, once for every provider:

- a dropped connection, a timeout, a 5xx (529 "overloaded" included) or a body cut
  short is retried with exponential backoff, a bounded number of times; past that the
  provider is down (`ProviderDown`) and the bout pauses;
- a 429 pauses the bout at once (`RateLimited`, with Retry-After when given): waiting
  inside a bout would hold a worker and hide the limit from the runner;
- any other 4xx (a bad key, a request the server refuses) pauses it too, for a person
  to look at (`ProviderError`): it is never the agent's failure.

The API key goes into a header and nowhere else. Error messages carry the status,
the host and the provider's own message with anything resembling the key removed,
never a raw exception text or a header.
"""

from __future__ import annotations

import asyncio
import base64
import email.utils
import functools
import json
import random
import re
import ssl
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

import orjson

from referee.errors import KeyRefused, ProviderError, RateLimited

if TYPE_CHECKING:  # aiohttp is imported when a model bout first asks: scripted runs never pay for it
    import aiohttp
    import yarl

__all__ = [
    "ProviderDown", "RateLimit", "Retry", "SharedLimits", "Transport", "post_json", "redact", "retry_after",
]

_TRANSIENT = (500, 502, 503, 504, 520, 522, 524, 529)
MAX_ANSWER = 16 * 2**20
"""Bytes of one provider answer, at most: a turn of a few thousand tokens is kilobytes, and a
server sending without end must pause its bout, not fill the runner's memory."""


class _TooBig(Exception):
    pass


async def _read(response: aiohttp.ClientResponse) -> bytes:
    """The answer's body, read only as far as `MAX_ANSWER`.

    Raises:
        _TooBig: the body (as declared, or as sent) is longer.
    """
    if (response.content_length or 0) > MAX_ANSWER:
        raise _TooBig
    parts, size = [], 0
    async for chunk in response.content.iter_any():
        size += len(chunk)
        if size > MAX_ANSWER:
            raise _TooBig
        parts.append(chunk)
    return b"".join(parts)


class ProviderDown(ProviderError):
    """The provider kept failing past every retry: an outage, not a refusal.

    ``unreachable`` says every try was a refused or failed connection: nothing is listening
    there, so the bout pauses for `arena resume` at once instead of being retried in the run.
    """

    def __init__(self, message: str, unreachable: bool = False) -> None:
        super().__init__(message)
        self.unreachable = unreachable


@dataclass(frozen=True)
class Retry:
    """How hard to try one request. Tests shrink the delays to milliseconds."""

    attempts: int = 4
    base_delay: float = 0.5
    max_delay: float = 30.0
    timeout: float = 180.0

    def delay(self, attempt: int) -> float:
        """Full-jitter exponential backoff: spreads a crowd of retries instead of syncing them."""
        return random.uniform(0, min(self.max_delay, self.base_delay * 2**attempt))


class RateLimit:
    """At most ``per_second`` requests to one provider, shared by every bout of a run."""

    def __init__(self, per_second: float) -> None:
        if not per_second > 0:
            raise ValueError("a request rate must be positive")
        self.interval = 1.0 / per_second
        self._next = 0.0

    async def wait(self) -> None:
        now = time.monotonic()
        slot = max(now, self._next)
        self._next = slot + self.interval  # claimed before awaiting, so no lock is needed
        if slot > now:
            await asyncio.sleep(slot - now)


class SharedLimits(Protocol):
    """Limits shared with runners in other processes and machines (`referee.seasons.worker`): a 429
    one of them sees slows the provider for all."""

    async def wait(self, provider: str) -> None:
        """Return once ``provider`` may be sent a request."""

    def slow(self, provider: str, seconds: float) -> None:
        """Hold every runner's requests to ``provider`` for ``seconds``."""


@dataclass
class Transport:
    """What the bouts of a run share on the wire: the retry policy, one rate limit per
    provider, and one TLS context (loading the CA bundle costs milliseconds).

    Each bout opens its own small session (a pool of at most four connections) rather than
    sharing one, so a bout's connections close with it. The client is aiohttp's (ADR 0041):
    its HTTP parser is compiled, and one JSON POST cost less than half the CPU of httpcore's.
    """

    retry: Retry = field(default_factory=Retry)
    rate: float | None = None
    shared: SharedLimits | None = None
    _limits: dict[str, RateLimit] = field(default_factory=dict)
    _tls: ssl.SSLContext | None = None
    down: dict[str, str] = field(default_factory=dict)
    """The breaker: provider -> why, once a request to it was refused at connect on every try.
    Every other request of the run to that provider then fails at once (the bouts pause for
    `arena resume`) instead of each waiting out its own retries against a closed port."""

    def client(self, url: str | None = None) -> aiohttp.ClientSession:
        """A new session for one bout, to be closed with it. Nothing is read from the environment:
        no proxy, .netrc credentials or CA file (the roots are certifi's bundle, as the standard
        ``ssl`` module loads it: the same on every host); no cookies are kept and no redirect is followed.

        A session for a plain ``http://`` ``url`` (a local vLLM or Ollama) loads no CA bundle,
        60-80 ms of CPU a run: it asks only that URL and follows no redirect, so it never meets
        TLS (were it to, aiohttp's own default context would still verify the certificate)."""
        import aiohttp

        tls: ssl.SSLContext | bool = True
        if url is None or url[:7].lower() != "http://":
            if self._tls is None:
                self._tls = _tls_context()
            tls = self._tls
        t = self.retry.timeout
        connector = aiohttp.TCPConnector(ssl=tls, limit=4, keepalive_timeout=5.0)
        return aiohttp.ClientSession(connector=connector, cookie_jar=aiohttp.DummyCookieJar(), trust_env=False,
                                     timeout=aiohttp.ClientTimeout(total=None, sock_connect=15.0, sock_read=t))

    def limit(self, provider: str) -> RateLimit | None:
        if self.rate is None:
            return None
        if provider not in self._limits:
            self._limits[provider] = RateLimit(self.rate)
        return self._limits[provider]


def _tls_context() -> ssl.SSLContext:
    """Verification on, certifi's roots only (no SSL_CERT_FILE, no system store): a bout's TLS
    trusts the same authorities wherever the arena runs."""
    import certifi

    return ssl.create_default_context(cafile=certifi.where())


def redact(text: str, secret: str) -> str:
    """``text`` without ``secret`` or any word sharing 8 characters with it.

    Providers echo keys back in 401 bodies, sometimes masked in the middle, so a plain
    replace of the whole key is not enough.
    """
    if not secret:
        return text
    text = text.replace(secret, "[redacted]")
    windows = {secret[i:i + 8] for i in range(max(1, len(secret) - 7))}
    words = re.split(r"(\s+)", text)
    return "".join("[redacted]" if any(w in word for w in windows) else word for word in words)


def retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header: a number, or an HTTP date."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _failure(err: aiohttp.ClientError | TimeoutError) -> tuple[str, bool]:
    """What went wrong on the wire, in words, and whether it was the connection itself that failed
    (refused, no such host, a certificate not trusted): nothing there to ask again."""
    import aiohttp

    if isinstance(err, aiohttp.ClientConnectorError):
        return "could not connect", True
    if isinstance(err, TimeoutError):  # aiohttp's read and connect timeouts are TimeoutErrors
        return "timed out", False
    return f"the connection failed ({type(err).__name__})", False


def _message(content: bytes, secret: str) -> str:
    """The provider's own error message, short and without the key."""
    text = content.decode("utf-8", "replace")
    try:
        body = json.loads(text)
        error = body.get("error", body) if isinstance(body, dict) else body
        text = error.get("message", "") if isinstance(error, dict) else str(error)
    except (ValueError, AttributeError):
        pass
    return redact(" ".join(str(text).split())[:200], secret)


@dataclass(frozen=True)
class _Target:
    host: str
    url: yarl.URL
    basic: str | None


@functools.lru_cache(maxsize=64)
def _target(url: str) -> _Target:
    """A provider URL parsed once, not per request: its host (for messages) and the URL asked,
    without credentials, which become Basic auth (RFC 7617, as HTTP clients send them)."""
    import yarl

    parsed = yarl.URL(url)
    basic = None
    if parsed.user or parsed.password:
        basic = "Basic " + base64.b64encode(f"{parsed.user or ''}:{parsed.password or ''}".encode()).decode()
    return _Target(parsed.host or "", parsed.with_user(None), basic)


def _headers(provider: str, target: _Target, headers: dict[str, str]) -> dict[str, str]:
    """The request's headers, merged: defaults, the provider's, then URL auth.

    Raises:
        KeyRefused: a header (in practice a pasted API key) holds a character HTTP cannot
            carry; named without its value, and before anything is sent.
    """
    wire = {"accept": "application/json", "user-agent": "forge-arena"}
    for name, value in headers.items():
        if not (name.isascii() and value.isascii()) or "\n" in value or "\r" in value:
            raise KeyRefused(f"{provider}: the {name[:40]!r} header (the API key?) holds a character "
                             "that HTTP headers cannot carry (not ASCII, or a line break); check the key")
        wire[name.lower()] = value
    if target.basic is not None:
        wire["authorization"] = target.basic
    wire["content-type"] = "application/json"
    return wire


async def post_json(
    transport: Transport, client: aiohttp.ClientSession, provider: str, url: str, headers: dict[str, str],
    body: dict[str, Any], secret: str,
) -> dict[str, Any]:
    """POST ``body`` and return the JSON object answered, retrying what is worth retrying.

    Raises:
        RateLimited: a 429.
        ProviderDown: transient failures past every retry.
        ProviderError: any other refusal (401, 400, ...), or an answer that is not a JSON object.
    """
    import aiohttp

    target = _target(url)
    host = target.host
    retry = transport.retry
    # Written once for every try, by orjson: a conversation grows with each turn, and the
    # standard library's encoding of it was a tenth of a request's CPU (ADR 0032).
    content = orjson.dumps(body)
    wire = _headers(provider, target, headers)
    limit = transport.limit(provider)
    failure = ""
    unreachable = True
    for attempt in range(retry.attempts + 1):
        if provider in transport.down:
            raise ProviderDown(f"{provider}: not tried: {transport.down[provider]} (breaker open for this run)",
                               unreachable=True)
        if attempt:
            await asyncio.sleep(retry.delay(attempt - 1))
        if limit is not None:
            await limit.wait()
        if transport.shared is not None:
            await transport.shared.wait(provider)
        try:
            async with client.post(target.url, data=content, headers=wire, allow_redirects=False) as response:
                status, after, got = response.status, response.headers.get("retry-after"), await _read(response)
        except _TooBig:
            raise ProviderError(f"{provider}: {host} sent an answer of more than {MAX_ANSWER:,} bytes") from None
        except (aiohttp.ClientError, TimeoutError) as err:  # refused, dropped, timed out, cut short
            what, refused = _failure(err)
            failure = f"{what} talking to {host}"
            unreachable = unreachable and refused
            continue
        unreachable = False
        if status == 429:
            wait = retry_after(after)
            if transport.shared is not None:
                backoff = min(retry.max_delay, retry.base_delay * 2**attempt)
                transport.shared.slow(provider, wait if wait is not None else backoff)
            raise RateLimited(f"{provider}: {host} rate-limited the request (429): {_message(got, secret)}", wait)
        if status in _TRANSIENT:
            failure = f"{host} answered {status}: {_message(got, secret)}"
            continue
        if status in (401, 403):
            raise KeyRefused(f"{provider}: {host} refused the API key ({status}): {_message(got, secret)}")
        if status >= 400:
            raise ProviderError(f"{provider}: {host} refused the request ({status}): {_message(got, secret)}")
        try:
            # A complete body with bytes that are not UTF-8 is what the model wrote (a server
            # splitting a multibyte token), not an outage: asking again would only repeat it.
            answer = orjson.loads(got.decode("utf-8", "replace"))  # a JSONDecodeError is a ValueError
        except ValueError:
            failure = f"{host} sent a body that is not JSON (cut short?)"
            continue
        if not isinstance(answer, dict):
            raise ProviderError(f"{provider}: {host} answered with JSON that is not an object")
        return answer
    if unreachable:
        transport.down.setdefault(provider, f"{host} refused every connection ({retry.attempts + 1} tries)")
    raise ProviderDown(f"{provider}: gave up after {retry.attempts + 1} tries: {failure}", unreachable)
