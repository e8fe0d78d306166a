"""What every model agent shares: the conversation, kept in the form the log keeps.

A provider module says only how its API spells things: the request body, the
messages for a turn and for its results, and how to read an answer into a `Turn`.
The conversation itself is built here, from logged turns and logged outcomes, both
while the bout runs and when it is rebuilt from a log, so the two cannot differ.

What the model sees is the brief, the tool schemas and the tool results; nothing of
the arena (no key, no environment, no world) goes into a request.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import orjson
import yarl

from referee.agents.base import CUT_OFF, Exchange, Turn, Usage, loggable
from referee.agents.http import Transport, post_json
from referee.agents.prices import Price
from referee.canonical import canonical_bytes, plain_bytes
from referee.errors import ProviderError, UsageError
from referee.untrusted import bounded_int
from referee.untrusted import shown as escaped
from sandboxes.kit.policy import Call, Observation
from sandboxes.kit.tools import ToolOutcome

if TYPE_CHECKING:
    import aiohttp

__all__ = ["MAX_TURN_TOKENS", "ModelAgentBase", "public_url", "read_arguments", "token_count"]

MAX_TURN_TOKENS = 10_000_000
"""The most tokens one answer may report each way: five times the largest context window
offered today, and small enough that a bout's total stays a 32-bit column's and an exact
JSON number. A count past it (or negative, or not a whole number) is the provider's fault."""


def token_count(provider: str, usage: object, name: str) -> int:
    """A token count a provider reported (absent: 0), bounded like a tool argument.

    Raises:
        ProviderError: the usage is not an object, or the count is not a whole number from 0 to
            `MAX_TURN_TOKENS`: the bout pauses with that reason, the run goes on.
    """
    if usage is None:
        return 0
    if not isinstance(usage, dict):
        raise ProviderError(f"{provider}: the answer's usage is not an object: {escaped(repr(usage), 60)}")
    value = usage.get(name)
    if value is None:
        return 0
    try:
        return bounded_int(value, f"the answer's {name}", 0, MAX_TURN_TOKENS)
    except UsageError as err:
        raise ProviderError(f"{provider}: {err}") from None


def public_url(url: str) -> str:
    """A base URL fit for a log: no user, password, query or fragment (gateways put keys there)."""
    parsed = yarl.URL(url)
    return str(parsed.with_user(None).with_query(None).with_fragment(None)).rstrip("/")


def read_arguments(raw: object) -> object:
    """A call's arguments: the JSON object the model wrote, or its raw text when it is not one
    (the toolbox then answers bad_arguments and the model is told why)."""
    if isinstance(raw, dict):
        return raw
    if not isinstance(raw, str):
        return raw
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):  # 5,000 nested brackets exhaust the parser's stack
        return raw
    return value if isinstance(value, dict) else raw


def _any(value: object) -> Any:
    return value


class ModelAgentBase:
    """A model behind a chat API with tools. Subclasses spell the provider's wire format."""

    provider: ClassVar[str]
    path: ClassVar[str]
    asks_again: ClassVar[bool] = True
    """The provider keeps nothing between requests (each carries the whole conversation), so a
    turn a power cut loses is simply asked for again: the bout sends the next request while the
    turn's fsync runs (ADR 0043)."""

    def __init__(
        self, name: str, model: str, *, api_key: str, base_url: str, transport: Transport,
        temperature: float | None, max_tokens: int, seed: int | None, price: Price | None,
    ) -> None:
        self.name = name
        self.model = model
        self.price = price
        self._key = api_key
        self._url = base_url.rstrip("/") + self.path
        self._transport = transport
        self._client: aiohttp.ClientSession | None = None
        self.params: dict[str, Any] = {
            "provider": self.provider, "model": model, "base_url": public_url(base_url),
            "temperature": temperature, "max_tokens": max_tokens, "seed": seed,
            "price": None if price is None else price.as_json(),
        }
        self._messages: list[dict[str, Any]] = []
        self._sent: list[orjson.Fragment] = []
        """The JSON of the first messages, written once: the conversation only grows, and each
        request carries all of it, so writing it whole every turn grew with the square of its turns."""
        self._tools = orjson.Fragment(b"[]")
        """The tools as the provider is shown them, written to JSON once per bout."""
        self._last: Turn | None = None
        self._turns = 0

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"

    # -- what a provider module spells -------------------------------------------------
    def _headers(self) -> dict[str, str]:
        raise NotImplementedError

    def _body(self, messages: list[orjson.Fragment], tools: orjson.Fragment) -> dict[str, Any]:
        """The request's JSON body around the conversation and the tools, each already JSON."""
        raise NotImplementedError

    def _tool(self, spec: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def _opening(self, brief: str) -> list[dict[str, Any]]:
        raise NotImplementedError

    def _assistant(self, turn: Turn) -> dict[str, Any]:
        raise NotImplementedError

    def _answers(self, turn: Turn, texts: list[tuple[str, bool]]) -> list[dict[str, Any]]:
        """Messages carrying the results of ``turn``'s calls: (text, is_error) per call."""
        raise NotImplementedError

    def _read(self, answer: dict[str, Any]) -> tuple[str, list[tuple[str, str, object]], bool, int, int]:
        """Text, calls (id, name, arguments), cut off?, input tokens, output tokens.

        Raises KeyError, TypeError, IndexError or ValueError on an answer of the wrong shape.
        """
        raise NotImplementedError

    # -- the conversation ------------------------------------------------------------
    def start(self, observation: Observation) -> None:
        self._tools = orjson.Fragment(orjson.dumps([self._tool(dict(spec)) for spec in observation.tools]))
        self._messages = self._opening(observation.brief)
        self._sent = []
        self._last = None
        self._turns = 0

    def restore(self, observation: Observation, history: Sequence[Exchange]) -> None:
        self.start(observation)
        for results, turn in history:
            self._messages.extend(self._results(results))
            self._keep(turn)

    async def next_turn(self, results: Sequence[ToolOutcome]) -> Turn:
        messages = self._messages + self._results(results)
        if self._client is None:
            self._client = self._transport.client(self._url)
        wire = self._sent + [orjson.Fragment(orjson.dumps(m)) for m in messages[len(self._sent):]]
        answer = await post_json(self._transport, self._client, self.provider, self._url, self._headers(),
                                 self._body(wire, self._tools), self._key)
        try:
            turn = self._turn(*self._read(answer))
        except (KeyError, TypeError, IndexError, ValueError):
            raise ProviderError(f"{self.provider}: the answer is not shaped like a {self.provider} reply") from None
        self._messages, self._sent = messages, wire
        self._keep(turn)
        return self._last  # type: ignore[return-value]

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    def _keep(self, turn: Turn) -> None:
        logged = Turn.from_log(turn.as_log())  # exactly what the log holds, live or restored
        self._messages.append(self._assistant(logged))
        self._last = logged
        self._turns += 1

    def _turn(self, text: str, calls: list[tuple[str, str, object]], cut_off: bool, tin: int, tout: int) -> Turn:
        number = self._turns + 1
        if cut_off:
            tried = [{"name": name, "arguments": raw} for _, name, raw in calls]
            return Turn(text, (Call(CUT_OFF, {"calls": tried}),), Usage(tin, tout), (f"cut_off_{number}",), True)
        ids = tuple(cid or f"call_{number}_{i}" for i, (cid, _, _) in enumerate(calls))
        made = tuple(Call(str(name), _any(read_arguments(raw))) for _, name, raw in calls)
        return Turn(text, made, Usage(tin, tout), ids)

    def _results(self, results: Sequence[ToolOutcome]) -> list[dict[str, Any]]:
        turn = self._last
        if turn is None:
            return []
        texts: list[tuple[str, bool]] = []
        for i, call in enumerate(turn.calls):
            if i >= len(results):
                texts.append(('{"error":{"kind":"not_run","message":"the bout stopped before this call"},'
                              '"ok":false}', True))
                continue
            outcome = results[i]
            shown = outcome.as_json()
            text = (plain_bytes(shown) if outcome.plain else canonical_bytes(loggable(shown))).decode()
            if turn.cut_off:
                text = (f"Your reply was cut off at the token limit ({self.params['max_tokens']} tokens), "
                        "so nothing in it was run. Try again with a shorter reply.")
            elif isinstance(call.args, str):
                text = f"Your arguments were not a valid JSON object. {text}"
            texts.append((text, not outcome.ok))
        return self._answers(turn, texts)
