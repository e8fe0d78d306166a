"""``openai:MODEL``: the Chat Completions API with tools.

Works against api.openai.com and anything that speaks the same API (vLLM, llama.cpp,
Ollama, gateways) through a base URL that ends where ``/chat/completions`` begins.
OpenAI's own endpoint takes ``max_completion_tokens`` (its reasoning models refuse
``max_tokens``); compatible servers know ``max_tokens``.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

from referee.agents.base import Turn
from referee.agents.model import ModelAgentBase, token_count

__all__ = ["DEFAULT_BASE_URL", "OpenAIAgent"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"


class OpenAIAgent(ModelAgentBase):
    provider = "openai"
    path = "/chat/completions"

    def _headers(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self._key}"} if self._key else {}

    def _body(self, messages: list[orjson.Fragment], tools: orjson.Fragment) -> dict[str, Any]:
        p = self.params
        limit = "max_completion_tokens" if p["base_url"].startswith("https://api.openai.com") else "max_tokens"
        body: dict[str, Any] = {"model": self.model, "messages": messages, "tools": tools, limit: p["max_tokens"]}
        if p["temperature"] is not None:
            body["temperature"] = p["temperature"]
        if p["seed"] is not None:
            body["seed"] = p["seed"]
        return body

    def _tool(self, spec: dict[str, Any]) -> dict[str, Any]:
        return {"type": "function", "function": {
            "name": spec["name"], "description": spec["description"], "parameters": spec["parameters"]}}

    def _opening(self, brief: str) -> list[dict[str, Any]]:
        return [{"role": "user", "content": brief}]

    def _assistant(self, turn: Turn) -> dict[str, Any]:
        if turn.cut_off or not turn.calls:
            return {"role": "assistant", "content": turn.text}
        return {"role": "assistant", "content": turn.text or None, "tool_calls": [
            {"id": cid, "type": "function", "function": {"name": call.name, "arguments": _arguments(call.args)}}
            for cid, call in zip(turn.ids, turn.calls, strict=True)
        ]}

    def _answers(self, turn: Turn, texts: list[tuple[str, bool]]) -> list[dict[str, Any]]:
        if turn.cut_off:
            return [{"role": "user", "content": text} for text, _ in texts]
        return [{"role": "tool", "tool_call_id": cid, "content": text}
                for cid, (text, _) in zip(turn.ids, texts, strict=True)]

    def _read(self, answer: dict[str, Any]) -> tuple[str, list[tuple[str, str, object]], bool, int, int]:
        choice = answer["choices"][0]
        message = choice["message"]
        content = message.get("content") or ""
        if isinstance(content, list):  # some servers send content parts
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        if not isinstance(content, str):
            raise TypeError("content")
        calls = []
        for call in message.get("tool_calls") or []:
            function = call["function"]
            calls.append((str(call.get("id") or ""), str(function["name"]), function.get("arguments", "")))
        usage = answer.get("usage")
        return (content, calls, choice.get("finish_reason") == "length",
                token_count(self.provider, usage, "prompt_tokens"),
                token_count(self.provider, usage, "completion_tokens"))


def _arguments(args: object) -> str:
    return args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
