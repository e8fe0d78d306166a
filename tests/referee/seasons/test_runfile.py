"""Season run files: the plan and model settings read strictly, kept with the season, and
used by every `season run` (a real loopback provider shows what its bouts were sent)."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from sqlmodel import Session as DbSession
from typer.testing import CliRunner

from referee.cli import app
from referee.errors import UsageError
from referee.log.signing import Keyring, open_envelope
from referee.seasons.runfile import load_run_file, parse_run_file
from referee.seasons.season import Season
from referee.store.results import Store
from tests.referee.agents.fakes import FakeProvider

runner = CliRunner()
KEY = "sk-test-0123456789abcdefghij"

FULL = """
agents = ["openai:impossible/oracle"]
jobs = ["impossible"]
tiers = ["normal-1.0"]
seed_count = 2
attempts = 1

[model]
temperature = 0.25
max_tokens = 777
base_url = "BASE"
rate = 50.0
agent_timeout = 30

[prices."openai:impossible/oracle"]
input = "1.50"
output = "3"
"""


def test_a_run_file_gives_the_plan_and_the_model_settings() -> None:
    plan = parse_run_file(FULL)
    assert (plan.agents, plan.jobs, plan.tiers, plan.variants, plan.attempts) == (
        ["openai:impossible/oracle"], ["impossible"], ["normal-1.0"], 2, 1)
    assert (plan.temperature, plan.max_tokens, plan.base_url, plan.rate, plan.agent_timeout) == (
        0.25, 777, "BASE", 50.0, 30.0)
    price = plan.prices["openai:impossible/oracle"]
    assert (price.input, price.output, price.currency) == (Decimal("1.50"), Decimal("3"), "USD")
    bare = parse_run_file('agents = "scripted:oracle"')
    assert (bare.agents, bare.jobs, bare.tiers, bare.variants, bare.attempts, bare.temperature, bare.prices) == (
        ["scripted:oracle"], ["all"], ["all"], 5, 3, None, {})


@pytest.mark.parametrize(("text", "says"), [
    ('agents = ["scripted:oracle"]\nvariant = 3', "unknown keys variant"),
    ('agents = ["scripted:oracle"]\n[model]\ntemprature = 1', "unknown [model] keys temprature"),
    ('agents = ["scripted:oracle"]\n[model]\ntemperature = 3', "temperature must be between 0 and 2"),
    ('agents = ["scripted:oracle"]\nattempts = 2.5', "attempts must be an integer"),
    ('agents = []', "agents is a non-empty list of strings"),
    ('jobs = ["refund"]', "agents is a non-empty list of strings"),
    ('agents = ["x"]\n[prices.m]\ninput = "1"', "needs input and output prices"),
    ('agents = ["x"]\n[prices.m]\ninput = "1"\noutput = "free"', "is not a price"),
    ('agents = ["x"]\n[prices.m]\ninput = "1"\noutput = "2"\ncurrency = "dollars"', "ISO 4217"),
    ('agents = [', "not TOML"),
])
def test_a_bad_run_file_is_one_clear_error(text: str, says: str) -> None:
    with pytest.raises(UsageError) as err:
        parse_run_file(text, "season.toml")
    assert says in str(err.value) and str(err.value).startswith("season.toml")


def test_an_unreadable_run_file_says_so(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot read the run file"):
        load_run_file(tmp_path / "missing.toml")


def test_a_season_from_a_run_file_keeps_it_and_runs_with_its_settings(
    arena_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    path = tmp_path / "season.toml"
    with FakeProvider(key=KEY).running() as fake:
        text = FULL.replace("BASE", fake.openai_url)
        path.write_text(text)
        both = runner.invoke(app, ["season", "new", "s", "--from", str(path), "--agents", "scripted:oracle"])
        assert both.exit_code == 2 and "--agent" in both.output
        made = runner.invoke(app, ["season", "new", "s", "--from", str(path)])
        assert made.exit_code == 0, made.output
        assert "2 bouts queued" in made.output
        ran = runner.invoke(app, ["season", "run", "s"])
        assert ran.exit_code == 0, ran.output
    store = Store(f"sqlite:///{arena_home / 'arena.db'}")
    try:
        with DbSession(store.engine) as db:
            season = db.get(Season, "s")
            assert season is not None and season.run_file == text  # kept with the season, byte for byte
        rows = store.rows("s")
    finally:
        store.close()
    assert len(rows) == 2 and all(r.passed for r in rows)
    ring = Keyring.from_paths([arena_home / "keys"])
    for row in rows:
        header = json.loads(open_envelope(row.envelope, ring).payload)["events"][0]["data"]
        model = header["model"]
        assert (model["temperature"], model["max_tokens"], model["base_url"]) == (0.25, 777, fake.openai_url)
        assert model["price"] == {"input_per_mtok": "1.50", "output_per_mtok": "3", "currency": "USD"}
        assert row.cost_micro_usd is not None and row.cost_micro_usd > 0


def test_season_new_needs_agents_or_a_run_file(arena_home: Path) -> None:
    result = runner.invoke(app, ["season", "new", "s"])
    assert result.exit_code == 2 and "--agent" in result.output


def test_every_plan_has_one_bound_on_attempts() -> None:
    """The CLI spells the bound itself (its `--help` must not import the store); it is the same one."""
    from referee.cli.options import MAX_ATTEMPTS as cli_bound
    from referee.seasons.season import MAX_ATTEMPTS

    assert cli_bound == MAX_ATTEMPTS
    assert parse_run_file('agents = ["scripted:oracle"]\nattempts = 100\n', "t.toml").attempts == 100
