"""The dataset explains itself (ADR 0025): every column of every table described alike in the card,
datapackage.json and croissant.json; it loads in pandas and pyarrow with the documented types; it
ships its keyring, so `arena dataset verify DIR` needs no --key, even across a key rotation.

Real parts: an ARENA_HOME on disk, real keys, a model bout through a loopback HTTP provider.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from catalog import load_catalog
from referee.cli import app
from referee.export.dictionary import BOUTS, TABLES, pandas_dtypes
from sandboxes import JOBS
from tests.referee import toy
from tests.referee.agents.fakes import FakeProvider

RULES = load_catalog().current_rules.version
"""A version that looks like a number (0.5): it must load as text, never as a float."""

runner = CliRunner()
KEY = "sk-test-0123456789abcdefghij"


@pytest.fixture(autouse=True)
def toy_job(monkeypatch: pytest.MonkeyPatch, arena_home: Path) -> Iterator[None]:
    monkeypatch.setitem(JOBS, "toy", toy.JOB)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    yield


def arena(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    """Scripted bouts on a job that plants traps, then a priced model bout with its own settings, exported."""
    assert arena("season", "new", "s1", "--agent", "scripted:oracle,scripted:naive", "--job", "refund", "--tier",
                 "normal-1.0", "--seed-count", "2", "--attempts", "1")[0] == 0
    assert arena("season", "run", "s1")[0] == 0
    prices = tmp_path / "prices.toml"
    prices.write_text('["openai:toy/oracle"]\ninput = "2.50"\noutput = "10"\n')
    with FakeProvider(key=KEY).running() as fake:
        code, out = arena("run", "--agent", "openai:toy/oracle", "--job", "toy", "--tier", "normal-1.0", "--seeds",
                          "4", "--attempts", "1", "--price-table", str(prices), "--temperature", "0.5",
                          "--max-tokens", "512", "--base-url", fake.openai_url)
        assert code == 0, out
    code, out = arena("export", "--out", str(tmp_path / "ds"))
    assert code == 0, out
    return tmp_path / "ds"


def test_every_column_of_every_table_is_described_alike_everywhere(dataset: Path) -> None:
    package = json.loads((dataset / "datapackage.json").read_text())
    croissant = json.loads((dataset / "croissant.json").read_text())
    card = (dataset / "README.md").read_text()
    resources = {r["name"]: r for r in package["resources"]}
    record_sets = {r["name"]: r for r in croissant["recordSet"]}
    for table in TABLES:
        if table.path.endswith(".csv"):
            with (dataset / table.path).open(newline="") as fh:
                assert tuple(next(csv.reader(fh))) == table.names, table.name  # the file has what is described
            fields = resources[table.name]["schema"]["fields"]
            assert [f["name"] for f in fields] == list(table.names)
            assert all(f["description"] for f in fields)
            assert [f["name"] for f in record_sets[table.name]["field"]] == list(table.names)
        else:
            leaves = next(dataset.glob("seasons/*.leaves.jsonl")).read_text().splitlines()
            assert sorted(json.loads(leaves[0])) == sorted(table.names)
        assert f"### `{table.path}`" in card
        for column in table.columns:
            assert f"| `{column.name}` | {column.type}" in card, (table.name, column.name)
    lists = {f["name"]: f for f in resources["bouts"]["schema"]["fields"] if f["type"] == "list"}
    assert set(lists) == {"traps_planted", "traps_sprung", "traps_avoided"}
    assert all(f["delimiter"] == ";" for f in lists.values())
    assert "keys/keyring.json" in card and "ARENA_HOME/keys/arena.pub" in card


def test_the_dataset_loads_in_pandas_and_pyarrow_with_the_documented_types(dataset: Path) -> None:
    bouts = pd.read_csv(dataset / "data/bouts.csv", dtype=pandas_dtypes(BOUTS), true_values=["true"],
                        false_values=["false"])
    assert list(bouts.columns) == list(BOUTS.names) and len(bouts) == 5
    assert bouts["rules_version"].tolist() == [RULES] * 5 and str(bouts["rules_version"].dtype) == "string"
    assert str(bouts["passed"].dtype) == "boolean" and str(bouts["score_bp"].dtype) == "int64"
    model = bouts[bouts["agent"] == "openai:toy/oracle"].iloc[0]
    assert model["cost_micro_usd"] > 0 and model["input_tokens"] > 0 and model["output_tokens"] > 0
    assert (model["model_provider"], model["model"], model["temperature"], model["max_tokens"],
            model["base_url_host"]) == ("openai", "toy/oracle", 0.5, 512, "127.0.0.1")
    assert model["stopped"] == "report" and model["task_version_slug"] == "normal-1.0"
    scripted = bouts[bouts["agent"] == "scripted:naive"]
    assert scripted["cost_micro_usd"].isna().all() and scripted["model_provider"].isna().all()
    assert (scripted["input_tokens"] == 0).all()

    table = pq.read_table(dataset / "data/bouts.parquet")
    types = {f.name: "list<string>" if pa.types.is_list(f.type) and f.type.value_type == pa.string()
             else str(f.type) for f in table.schema}
    expected = {"string": "string", "integer": "int64", "number": "double", "boolean": "bool", "list": "list<string>"}
    assert types == {c.name: expected[c.type] for c in BOUTS.columns}
    frame = pd.read_parquet(dataset / "data/bouts.parquet")
    assert frame["rules_version"].tolist() == [RULES] * 5

    lines = pd.read_json(dataset / "data/bouts.jsonl", lines=True, dtype={"rules_version": str})
    assert lines["rules_version"].tolist() == [RULES] * 5
    assert all(isinstance(v, list) for v in lines["traps_planted"])
    assert [list(v) for v in frame["traps_planted"]] == lines["traps_planted"].tolist()
    assert lines["traps_planted"].map(len).sum() >= 4  # the refund worlds plant traps: lists, not all empty
    from_csv = bouts["traps_planted"].fillna("").str.split(";").map(lambda v: [x for x in v if x]).tolist()
    assert from_csv == lines["traps_planted"].tolist()  # the card's CSV recipe gives the same lists

    board = pd.read_csv(dataset / "data/leaderboard.csv", dtype=pandas_dtypes(TABLES[3]))
    priced = board[board["agent"] == "openai:toy/oracle"].iloc[0]
    assert priced["cost_usd"] > 0 and priced["tokens"] > 0 and priced["cost_usd_per_passed_bout"] > 0
    assert board[board["agent"] == "scripted:oracle"]["cost_usd"].isna().all()


def test_a_dataset_verifies_with_its_shipped_keyring_across_a_key_rotation(tmp_path: Path) -> None:
    assert arena("run", "--agent", "scripted:oracle", "--job", "toy", "--tier", "normal-1.0", "--seeds", "1",
                 "--attempts", "1")[0] == 0
    code, out = arena("keys", "rotate", "--json")
    new_key = json.loads(out)["active_key_id"]
    assert arena("run", "--agent", "scripted:oracle", "--job", "toy", "--tier", "normal-1.0", "--seeds", "2",
                 "--attempts", "1")[0] == 0
    assert arena("export", "--out", str(tmp_path / "ds"))[0] == 0
    shipped = json.loads((tmp_path / "ds" / "keys" / "keyring.json").read_text())["keys"]
    assert len(shipped) == 2 and {k["key_id"] for k in shipped} >= {new_key}

    code, out = arena("dataset", "verify", str(tmp_path / "ds"))  # no --key: the shipped keyring
    assert code == 0 and out.splitlines()[-1] == "Verified" and "keyring shipped" in out
    only_new = next((tmp_path / "home" / "keys").glob("arena.pub"))
    code, out = arena("dataset", "verify", str(tmp_path / "ds"), "--key", str(only_new))
    assert code == 2 and "Merkle root not checked" in out and "does not match" not in out
