"""Agents: parse an agent spec into something the bout loop can drive.

``scripted:…`` agents are the job's own policies. ``openai:MODEL`` and
``anthropic:MODEL`` are models behind an API; their key is read here, from the one
environment variable named for it, and handed to the agent alone. ``python:MODULE:FACTORY``
is a user's own agent, run in a process of its own (`referee.agents.python`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from catalog import load_catalog
from referee.agents.base import Agent, Driver, ModelAgent, Turn, Usage, drive
from referee.agents.http import Retry, Transport
from referee.agents.prices import Price, PriceTable, price_for
from referee.agents.python import DEFAULT_TIMEOUT, PYTHON_SPEC, PythonAgent
from referee.agents.scripted import ScriptedAgent
from referee.errors import UnknownAgent
from sandboxes.kit.job import Job

__all__ = [
    "PROVIDERS", "Agent", "AgentOptions", "Driver", "ModelAgent", "Price", "PythonAgent", "Retry", "ScriptedAgent",
    "Transport",
    "Turn", "Usage", "drive", "key_variable", "make_agent", "needs_key", "validate_agent",
]

_SPRINGER = re.compile(r"^scripted:springer:(FA-[A-Z]{3}-\d{3})$")
_MODEL = re.compile(r"^(openai|anthropic):([A-Za-z0-9][A-Za-z0-9._:/@+-]{0,199})$")

PROVIDERS: dict[str, tuple[str, str, str]] = {
    "openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL", "https://api.openai.com/v1"),
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "https://api.anthropic.com"),
}
"""provider -> (key variable, base URL variable, default base URL)."""


@dataclass
class AgentOptions:
    """How model agents of a run are set up. ``base_url`` beats the environment's, which
    beats the provider's own. ``rate`` is requests per second per provider; a runner
    makes one ``transport`` for the run, so its bouts share the rate limit. ``agent_timeout``
    is how long a user's ``python:`` agent may take over one turn before the bout records a hang."""

    base_url: str | None = None
    temperature: float | None = None
    max_tokens: int = 4096
    prices: PriceTable = field(default_factory=dict)
    retry: Retry = field(default_factory=Retry)
    rate: float | None = None
    transport: Transport | None = None
    agent_timeout: float = DEFAULT_TIMEOUT


def validate_agent(spec: str) -> str:
    """Check an agent spec before any bout runs, so a typo fails fast.

    Raises:
        UnknownAgent: not a spec we know, or a springer for a trap not in the catalogue.
    """
    if spec in ("scripted:oracle", "scripted:naive") or _MODEL.match(spec) or PYTHON_SPEC.match(spec):
        return spec
    match = _SPRINGER.match(spec)
    if match:
        trap = match.group(1)
        if trap not in {t.id for t in load_catalog().traps}:
            raise UnknownAgent(f"no trap {trap} in the catalogue")
        return spec
    raise UnknownAgent(
        f"unknown agent {spec!r}; agents are scripted:oracle, scripted:naive, "
        "scripted:springer:FA-XXX-NNN, openai:MODEL, anthropic:MODEL, python:MODULE:FACTORY"
    )


def key_variable(spec: str) -> str | None:
    """The environment variable holding a model agent's API key (None: not a model agent)."""
    match = _MODEL.match(spec)
    return PROVIDERS[match.group(1)][0] if match else None


def needs_key(spec: str, options: AgentOptions | None = None) -> str | None:
    """The variable a model agent still needs, or None: a key is required for the
    provider's own host; a server named by base URL (a local one) may need none."""
    match = _MODEL.match(spec)
    if not match:
        return None
    key_var, url_var, _ = PROVIDERS[match.group(1)]
    custom = (options and options.base_url) or os.environ.get(url_var)
    return None if os.environ.get(key_var) or custom else key_var


def make_agent(
    spec: str, job: Job, options: AgentOptions | None = None, *, seed: int | None = None,
    recorded: Mapping[str, Any] | None = None,
) -> Agent | ModelAgent | PythonAgent:
    """A fresh agent for one bout of ``job``.

    ``recorded`` is the model parameters from a paused bout's log header: a resumed
    bout talks to the same server with the same settings and prices it started with.
    """
    validate_agent(spec)
    if PYTHON_SPEC.match(spec):
        return PythonAgent(spec, timeout=(options or AgentOptions()).agent_timeout)
    match = _MODEL.match(spec)
    if match:
        return _model_agent(spec, match.group(1), match.group(2), options or AgentOptions(), seed, recorded)
    if spec == "scripted:oracle":
        falls_for: frozenset[str] = frozenset()
    elif spec == "scripted:naive":
        falls_for = frozenset(t.id for t in load_catalog().traps)
    else:
        falls_for = frozenset({spec.rsplit(":", 1)[1]})
    return ScriptedAgent(spec, job.play, falls_for)


def _model_agent(
    spec: str, provider: str, model: str, options: AgentOptions, seed: int | None,
    recorded: Mapping[str, Any] | None,
) -> ModelAgent:
    from referee.agents.anthropic import AnthropicAgent
    from referee.agents.openai import OpenAIAgent

    key_var, url_var, default_url = PROVIDERS[provider]
    transport = options.transport or Transport(retry=options.retry, rate=options.rate)
    if recorded is not None:
        price_data = recorded.get("price")
        settings: dict[str, Any] = {
            "base_url": options.base_url or recorded["base_url"], "temperature": recorded["temperature"],
            "max_tokens": recorded["max_tokens"], "seed": recorded["seed"],
            "price": None if price_data is None else Price.from_json(price_data),
        }
    else:
        settings = {
            "base_url": options.base_url or os.environ.get(url_var) or default_url,
            "temperature": options.temperature, "max_tokens": options.max_tokens,
            "seed": seed if provider == "openai" else None, "price": price_for(options.prices, spec),
        }
    cls = OpenAIAgent if provider == "openai" else AnthropicAgent
    return cls(spec, model, api_key=os.environ.get(key_var, ""), transport=transport, **settings)
