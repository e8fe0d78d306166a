"""Many model bouts at once: a storm of rate limits and dropped connections, the deadline,
paused bouts held by the store, and the CLI's run and resume."""

from __future__ import annotations

import json
import random
import threading
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from referee.bout.play import BoutSpec, Paused
from referee.bout.replay import reproduce
from referee.cli import app
from referee.log.chain import parse_log
from referee.log.signing import ArenaKey, Keyring
from referee.log.verify import verify_bytes
from referee.running.runner import resume_bouts, run_bouts
from referee.store.results import Store
from tests.referee.agents.conftest import KEY, options
from tests.referee.agents.fakes import FakeProvider
from tests.referee.verdicts import judged


def storm(seed: int, rates: dict[str, float]) -> Any:
    rng, lock = random.Random(seed), threading.Lock()

    def fault(_n: int, _body: dict[str, Any]) -> str | None:
        with lock:
            roll = rng.random()
        for kind, rate in rates.items():
            if roll < rate:
                return kind
            roll -= rate
        return None
    return fault


def plan(provider_agents: bool) -> list[BoutSpec]:
    """100 bouts: toy and a real job, oracle and a springer, both providers."""
    specs = []
    for provider in ("openai", "anthropic"):
        def agent(job: str, who: str, provider: str = provider) -> str:
            return f"{provider}:{job}/{who}" if provider_agents else "scripted:" + who.replace("/", ":")
        specs += [BoutSpec(agent("toy", "oracle"), "toy", "normal-1.0", seed, attempt, "0.4")
                  for seed in range(1, 16) for attempt in (1, 2)]
        specs += [BoutSpec(agent("toy", "oracle"), "toy", "normal-1.0", seed, 3, "0.4") for seed in range(1, 11)]
        specs += [BoutSpec(agent("impossible", who), "impossible", "normal-1.0", seed, 1, "0.4")
                  for who in ("oracle", "springer/FA-AMT-002") for seed in range(1, 6)]
    return specs


def _who(spec: BoutSpec) -> tuple[str, int, int, str]:
    who = spec.agent.split(":", 1)[1].split("/", 1)[-1].replace(":", "/")
    return spec.job, spec.seed, spec.attempt, who.removeprefix("springer/")


def test_a_storm_of_429s_and_dropped_connections_voids_nothing(
    key: ArenaKey, ring: Keyring, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    rates = {"429": 0.08, "429-after": 0.04, "drop": 0.08, "500": 0.04, "truncate": 0.03}
    store = Store.sqlite(tmp_path / "arena.db")
    paused: list[Paused] = []
    with FakeProvider(key=KEY, faults=storm(11, rates)).running() as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.openai_url)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.anthropic_url)
        opts = options(fake.openai_url)
        opts.base_url = None  # each provider's from the environment
        records = run_bouts(plan(True), key, store=store, work_dir=tmp_path / "work", concurrency=16,
                            options=opts, on_paused=paused.append, max_pauses=50, pause_delay=0.001, batch=7)
    clean = {_who(r.spec): judged(r.verdict) for r in run_bouts(plan(False), key)}
    assert paused == [] and len(records) == 100
    assert {_who(r.spec): judged(r.verdict) for r in records} == clean
    rows = store.rows()
    assert len(rows) == 100 and store.paused() == [] and list((tmp_path / "work").iterdir()) == []
    pauses = 0
    for row in rows:
        check = verify_bytes(row.envelope, ring)
        assert check.status == "verified" and check.log is not None
        assert reproduce(check.log).status == "reproduced"
        pauses += len(check.log.of_type("pause"))
    assert pauses > 10 and fake.requests > 500  # the storm really hit
    store.close()


def test_the_deadline_pauses_running_bouts_and_resume_finishes_them(
    key: ArenaKey, ring: Keyring, tmp_path: Path,
) -> None:
    specs = [BoutSpec("openai:impossible/oracle", "impossible", "normal-1.0", s, 1, "0.4") for s in range(1, 7)]
    store = Store.sqlite(tmp_path / "arena.db")
    paused: list[Paused] = []
    progress: list[tuple[int, int, int, int]] = []
    # A second a turn until the deadline: each bout has logged a turn or two by then, however loaded
    # the machine, and none can finish (an oracle bout needs more turns); then quickly for the resume.
    with FakeProvider(key=KEY, latency=1.0).running() as fake:
        done = run_bouts(specs, key, store=store, work_dir=tmp_path / "work", concurrency=3, deadline=2.5,
                         options=options(fake.openai_url), on_paused=paused.append,
                         on_progress=lambda p: progress.append((p.done, p.paused, p.running, p.not_started)))
        assert done == [] and {p.reason for p in paused} == {"deadline"} and len(paused) == 3
        assert progress[-1] == (0, 3, 0, 3) and max(p[2] for p in progress) == 3
        assert len(store.paused()) == 3 and len(list((tmp_path / "work").iterdir())) == 3
        fake.latency = 0.02
        resumed = resume_bouts(key, tmp_path / "work", store, options=options(fake.openai_url), concurrency=3)
    assert len(resumed) == 3 and store.paused() == [] and len(store.rows()) == 3
    for record in resumed:
        log = verify_bytes(record.envelope, ring).log
        assert log is not None
        assert [e["data"]["reason"] for e in log.of_type("pause")] == ["deadline"]
        assert record.verdict.passed
    store.close()


def test_a_bout_paused_on_one_machine_resumes_from_the_store_on_another(key: ArenaKey, tmp_path: Path) -> None:
    store = Store.sqlite(tmp_path / "arena.db")
    spec = BoutSpec("anthropic:impossible/oracle", "impossible", "normal-1.0", 3, 1, "0.4")
    refuse = {"on": True}
    with FakeProvider(key=KEY, faults=lambda n, _b: "401" if refuse["on"] and n > 4 else None).running() as fake:
        paused: list[Paused] = []
        run_bouts([spec], key, store=store, options=options(fake.anthropic_url), on_paused=paused.append)
        assert [p.reason for p in paused] == ["key_refused"] and KEY not in paused[0].detail
        assert "set ANTHROPIC_API_KEY" in paused[0].detail
        assert store.paused()[0].turns == 4 and store.rows() == []
        refuse["on"] = False
        resumed = resume_bouts(key, tmp_path / "elsewhere", store, options=options(fake.anthropic_url))
    assert [r.verdict.passed for r in resumed] == [True] and store.paused() == []
    assert [row.bout_id for row in store.rows()] == [paused[0].bout_id]
    store.close()


def test_arena_run_and_resume_with_model_agents(
    arena_home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    runner = CliRunner()
    prices = tmp_path / "prices.toml"
    prices.write_text('["openai:toy/oracle"]\ninput = "2.50"\noutput = "10"\n')
    refuse = {"on": True}
    monkeypatch.setattr("referee.agents.http.Retry.delay", lambda self, attempt: 0.001)
    args = ["run", "--agent", "openai:toy/oracle", "--job", "toy", "--tier", "normal-1.0", "--seeds", "1-3",
            "--attempts", "1", "--concurrency", "3", "--price-table", str(prices), "--temperature", "0",
            "--max-tokens", "512", "--json"]
    monkeypatch.delenv("OPENAI_API_KEY")
    missing = runner.invoke(app, args)
    assert missing.exit_code == 2 and "OPENAI_API_KEY" in missing.output
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeProvider(key=KEY, faults=lambda n, _b: "401" if refuse["on"] and n == 5 else None).running() as fake:
        result = runner.invoke(app, [*args, "--base-url", fake.openai_url])
        assert result.exit_code == 4, result.output  # one bout left paused: not "all done"
        lines = [json.loads(line) for line in result.output.splitlines()]
        assert [line["record"] for line in lines].count("paused") == 1 and lines[-1]["record"] == "tally"
        assert [line["passed"] for line in lines if line["record"] == "bout"] == [True, True]
        paused = next(line for line in lines if line["record"] == "paused")
        assert paused["reason"] == "key_refused" and "OPENAI_API_KEY" in paused["detail"]
        assert KEY not in result.output
        refuse["on"] = False
        resumed = runner.invoke(app, ["resume", "--json"])
        assert resumed.exit_code == 0, resumed.output
        records = [json.loads(line) for line in resumed.output.splitlines()]
        assert [r["passed"] for r in records if r["record"] == "bout"] == [True]
    store = Store(f"sqlite:///{arena_home / 'arena.db'}")
    rows = store.rows()
    assert len(rows) == 3 and all(r.cost_micro_usd and r.cost_micro_usd > 0 for r in rows)
    log = parse_log(_open(rows[0].envelope))
    assert log.header["model"]["temperature"] == 0 and log.header["model"]["max_tokens"] == 512
    assert log.header["model"]["price"] == {"input_per_mtok": "2.50", "output_per_mtok": "10", "currency": "USD"}
    assert store.paused() == [] and list((arena_home / "work").iterdir()) == []
    store.close()


def _open(envelope: bytes) -> bytes:
    import base64

    return base64.b64decode(json.loads(envelope)["payload"])


def test_a_refused_connection_pauses_the_bout_at_once_for_resume(
    arena_home: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Nothing listening is an outage a run cannot wait out: after its own retries (settable with
    --retries/--backoff) the bout is parked for `arena resume`, not requeued again and again."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again at once: connections to it are refused
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    result = CliRunner().invoke(app, [
        "run", "--agent", "openai:toy/oracle", "--job", "toy", "--tier", "normal-1.0", "--seeds", "1",
        "--attempts", "1", "--base-url", f"http://127.0.0.1:{port}/v1", "--retries", "1", "--backoff", "0.01",
        "--json"])
    assert result.exit_code == 4, result.output
    line = json.loads(result.output.splitlines()[0])
    assert line["reason"] == "provider_unreachable" and "could not connect" in line["detail"]
    store = Store(f"sqlite:///{arena_home / 'arena.db'}")
    try:
        assert [row.reason for row in store.paused()] == ["provider_unreachable"]
    finally:
        store.close()
