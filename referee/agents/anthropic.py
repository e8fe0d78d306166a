"""``anthropic:MODEL``: the Messages API with tool_use and tool_result blocks.

The base URL is the host (``https://api.anthropic.com`` by default); the path is
``/v1/messages``. The API has no sampling seed, so none is sent or recorded.
"""

from __future__ import annotations

from typing import Any

import orjson

from referee.agents.base import Turn
from referee.agents.model import ModelAgentBase, token_count

__all__ = ["API_VERSION", "DEFAULT_BASE_URL", "AnthropicAgent"]

DEFAULT_BASE_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"


class AnthropicAgent(ModelAgentBase):
    provider = "anthropic"
    path = "/v1/messages"

    def _headers(self) -> dict[str, str]:
        headers = {"anthropic-version": API_VERSION}
        if self._key:
            headers["x-api-key"] = self._key
        return headers

    def _body(self, messages: list[orjson.Fragment], tools: orjson.Fragment) -> dict[str, Any]:
        p = self.params
        body: dict[str, Any] = {"model": self.model, "max_tokens": p["max_tokens"], "messages": messages,
                                "tools": tools}
        if p["temperature"] is not None:
            body["temperature"] = p["temperature"]
        return body

    def _tool(self, spec: dict[str, Any]) -> dict[str, Any]:
        return {"name": spec["name"], "description": spec["description"], "input_schema": spec["parameters"]}

    def _opening(self, brief: str) -> list[dict[str, Any]]:
        return [{"role": "user", "content": brief}]

    def _assistant(self, turn: Turn) -> dict[str, Any]:
        blocks: list[dict[str, Any]] = [{"type": "text", "text": turn.text}] if turn.text else []
        if turn.cut_off:
            return {"role": "assistant", "content": blocks or [{"type": "text", "text": "…"}]}
        blocks += [{"type": "tool_use", "id": cid, "name": call.name,
                    "input": call.args if isinstance(call.args, dict) else {"arguments": call.args}}
                   for cid, call in zip(turn.ids, turn.calls, strict=True)]
        return {"role": "assistant", "content": blocks or [{"type": "text", "text": "…"}]}

    def _answers(self, turn: Turn, texts: list[tuple[str, bool]]) -> list[dict[str, Any]]:
        if turn.cut_off:
            return [{"role": "user", "content": [{"type": "text", "text": text} for text, _ in texts]}]
        return [{"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": cid, "content": text, "is_error": is_error}
            for cid, (text, is_error) in zip(turn.ids, texts, strict=True)
        ]}]

    def _read(self, answer: dict[str, Any]) -> tuple[str, list[tuple[str, str, object]], bool, int, int]:
        if answer.get("type") == "error":
            raise ValueError("error body")
        texts, calls = [], []
        for block in answer["content"]:
            if block["type"] == "text":
                texts.append(str(block["text"]))
            elif block["type"] == "tool_use":
                calls.append((str(block["id"]), str(block["name"]), block.get("input", {})))
        usage = answer.get("usage")
        return ("".join(texts), calls, answer.get("stop_reason") == "max_tokens",
                token_count(self.provider, usage, "input_tokens"), token_count(self.provider, usage, "output_tokens"))
