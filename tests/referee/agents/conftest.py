"""Model-agent tests: the toy job registered, API keys in the environment, retries in milliseconds."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from referee.agents import AgentOptions, Retry
from sandboxes import JOBS
from tests.referee import toy
from tests.referee.agents.fakes import FakeProvider

KEY = "sk-test-0123456789abcdefghij"
FAST = Retry(attempts=3, base_delay=0.001, max_delay=0.005, timeout=10.0)


@pytest.fixture(autouse=True)
def toy_job(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(JOBS, "toy", toy.JOB)
    yield


@pytest.fixture(autouse=True)
def api_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    with FakeProvider(key=KEY).running() as server:
        yield server


def options(base_url: str, **kw: object) -> AgentOptions:
    return AgentOptions(base_url=base_url, retry=FAST, **kw)  # type: ignore[arg-type]
