"""The arena inside Inspect AI: ``mockllm/model`` with scripted outputs plays refereed bouts offline.

Each job's scripted oracle is played once through ``arena run``'s loop (`run_bout`); its calls,
read back from its signed log, become the mock model's outputs, and the task named
``forge_arena/<job>`` (found the way ``inspect eval`` finds it, through the entry point) plays
them. The Inspect bout must be stored, verify, replay to Reproduced, show on the board, and end
in the same world and verdict as the oracle's. A model that misbehaves is refereed, not crashed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.agent import as_solver, react
from inspect_ai.log import EvalLog
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import SampleScore, Score
from typer.testing import CliRunner

from catalog import load_catalog
from referee.bout.outcomes import BoutSpec
from referee.bout.play import run_bout
from referee.cli import app
from referee.errors import UsageError
from referee.inspect_ai_tasks.tasks import arena_task, bout_tools, pass_at_1, pass_hat_k, variants
from referee.log.signing import ArenaKey, Keyring, open_envelope
from referee.running.runner import MAX_SEED
from referee.store.results import Store
from sandboxes import JOBS

TIER = "normal-1.0"
SEED = 7
MODEL = "mockllm/model"

pytestmark = [  # Inspect's own retry set-up and its anyio streams, not the arena's code
    pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:Exception ignored in.*MemoryObject:pytest.PytestUnraisableExceptionWarning"),
]


def _events(envelope: bytes, ring: Keyring) -> list[dict[str, Any]]:
    return json.loads(open_envelope(envelope, ring).payload)["events"]  # type: ignore[no-any-return]


def _outputs(calls: list[tuple[str, Any]], last: str = "done") -> list[ModelOutput]:
    """One output per call, then a plain answer; each with its tokens, as a provider reports them."""
    outs = [ModelOutput.for_tool_call(MODEL, name, args) for name, args in calls]
    outs.append(ModelOutput.from_content(MODEL, last))
    for i, out in enumerate(outs):
        out.usage = ModelUsage(input_tokens=100 + i, output_tokens=10, total_tokens=110 + i)
    return outs


def _play(job: str, outputs: list[ModelOutput], log_dir: Path, **args: Any) -> EvalLog:
    logs = inspect_eval(f"forge_arena/{job}", task_args={"tier": TIER, **args},
                        model=get_model(MODEL, custom_outputs=outputs), log_dir=str(log_dir), display="none")
    assert len(logs) == 1 and logs[0].status == "success", logs[0].error
    return logs[0]


def _stored(home: Path, bout_id: str) -> bytes:
    store = Store(f"sqlite:///{home / 'arena.db'}")
    try:
        row = store.get(bout_id)
    finally:
        store.close()
    assert row is not None and row.agent == f"inspect:{MODEL}"
    return bytes(row.envelope)


def test_every_job_played_through_inspect_is_the_same_refereed_bout_as_arena_run(
    arena_home: Path, tmp_path: Path, key: ArenaKey, ring: Keyring,
) -> None:
    rules = load_catalog().current_rules.version
    home_ring = None
    files: list[Path] = []
    for job in sorted(JOBS):
        oracle = _events(run_bout(BoutSpec("scripted:oracle", job, TIER, SEED, 1, rules), key).envelope, ring)
        calls = [(e["data"]["name"], e["data"]["args"]) for e in oracle if e["type"] == "tool"]
        log = _play(job, _outputs(calls), tmp_path / "inspect-logs", seeds=str(SEED))
        score = log.samples[0].scores["arena_verdict"]  # type: ignore[index]
        meta = score.metadata or {}
        home_ring = home_ring or Keyring.from_paths([arena_home / "keys"])
        envelope = _stored(arena_home, meta["bout_id"])
        events = _events(envelope, home_ring)
        header, result = events[0]["data"], events[-1]["data"]
        assert header["agent"] == f"inspect:{MODEL}" and header["agent_info"]["name"] == "inspect_ai:generate"
        o_header, o_result = oracle[0]["data"], oracle[-1]["data"]
        for k in ("world_digest", "tools_digest", "brief_digest", "caps", "seed"):
            assert header[k] == o_header[k], (job, k)
        for k in ("end_state_digest", "passed", "score_bp", "traps_sprung", "traps", "stopped", "tool_calls"):
            assert result[k] == o_result[k], (job, k)
        assert score.value == (1.0 if o_result["passed"] else 0.0)
        assert meta["score_bp"] == o_result["score_bp"] and meta["traps_sprung"] == o_result["traps_sprung"]
        assert meta["log_sha256"] and meta["findings"] is not None  # the evidence, for `inspect view`
        turns = [e["data"] for e in events if e["type"] == "model.turn"]
        # each call's turn carries its output's tokens (the answer after submit_report comes after the signed end)
        assert [t["usage"]["input_tokens"] for t in turns] == [100 + i for i in range(len(calls))]
        files.append(tmp_path / f"{meta['bout_id']}.bout.json")
        files[-1].write_bytes(envelope)
    replayed = CliRunner().invoke(app, ["replay", *map(str, files)])  # `arena replay`, as anyone would check them
    assert replayed.exit_code == 0, replayed.output
    assert replayed.output.count("Verified, Reproduced") == len(JOBS)
    board = CliRunner().invoke(app, ["board", "--json"])
    assert board.exit_code == 0, board.output
    rows = [r for r in json.loads(board.output)["leaderboard"] if r["agent"] == f"inspect:{MODEL}"]
    assert len(rows) == 1 and rows[0]["bouts"] == len(JOBS)  # on the board beside any other agent


def test_a_model_that_calls_unknown_tools_bad_arguments_and_never_submits_is_refereed(
    arena_home: Path, tmp_path: Path,
) -> None:
    calls: list[tuple[str, Any]] = [("no_such_tool", {}), ("get_ticket", {"ticket_id": 12345}),
                                    ("submit_report", {"nonsense": True}), ("get_order", {"order_id": "NOPE-0"})]
    log = _play("refund", _outputs(calls, "I give up."), tmp_path)  # no seed given: the arena draws one
    sample = log.samples[0]  # type: ignore[index]
    score = sample.scores["arena_verdict"]  # type: ignore[index]
    meta = score.metadata or {}
    assert score.value == 0.0 and meta["passed"] is False and "error" not in meta
    events = _events(_stored(arena_home, meta["bout_id"]), Keyring.from_paths([arena_home / "keys"]))
    seed = events[0]["data"]["seed"]
    assert seed == sample.metadata["seed"]
    seen = json.dumps([m.model_dump(mode="json") for m in sample.messages])
    assert str(seed) not in seen  # the model never sees the seed
    tools = [e["data"] for e in events if e["type"] == "tool"]
    assert [t["name"] for t in tools] == ["get_order"] and not tools[0]["ok"]  # refused by the job's toolbox
    assert events[-1]["data"]["stopped"] != "report"  # it never submitted: judged as it stands
    answers = [m for m in sample.messages if m.role == "tool"]
    assert len(answers) == 4 and all(m.error is not None or '"ok":false' in m.text for m in answers)


def _scores(*values: float) -> list[SampleScore]:
    return [SampleScore(score=Score(value=v), sample_id=i) for i, v in enumerate(values)]


def test_pass_at_1_is_the_mean_and_pass_hat_k_counts_variants_that_passed_every_epoch() -> None:
    at_1, hat_k = pass_at_1(), pass_hat_k()
    assert at_1(_scores(1.0, 0.5, 0.0)) == pytest.approx(0.5)  # type: ignore[arg-type]
    assert hat_k(_scores(1.0, 0.5, 0.0)) == pytest.approx(1 / 3)  # type: ignore[arg-type]


def test_bad_task_arguments_are_one_clear_error_and_unseeded_variants_draw_their_seeds() -> None:
    for tier, seeds in (("no-such-tier", None), (TIER, "5-x")):
        with pytest.raises(UsageError):
            variants("refund", tier, seeds, 1)
    drawn = [s.metadata["seed"] for s in variants("refund", TIER, None, 3)]  # type: ignore[index]
    assert len(drawn) == 3 and all(0 <= s <= MAX_SEED for s in drawn) and len(set(drawn)) == 3
    assert [s.metadata["seed"] for s in variants("refund", TIER, "4-6", 1)] == [4, 5, 6]  # type: ignore[index]


def test_inspects_react_agent_plays_the_bout_with_the_bouts_tools(arena_home: Path, tmp_path: Path, key: ArenaKey,
                                                                 ring: Keyring) -> None:
    spec = BoutSpec("scripted:oracle", "refund", TIER, SEED, 1, load_catalog().current_rules.version)
    oracle = _events(run_bout(spec, key).envelope, ring)
    calls = [(e["data"]["name"], e["data"]["args"]) for e in oracle if e["type"] == "tool"]
    agent = as_solver(react(tools=[bout_tools()], submit=False))
    log = inspect_eval(arena_task("refund", TIER, str(SEED), agent=agent), log_dir=str(tmp_path), display="none",
                       model=get_model(MODEL, custom_outputs=_outputs(calls)))[0]
    meta = log.samples[0].scores["arena_verdict"].metadata or {}  # type: ignore[index]
    result = _events(_stored(arena_home, meta["bout_id"]), Keyring.from_paths([arena_home / "keys"]))[-1]["data"]
    assert result["passed"] and result["end_state_digest"] == oracle[-1]["data"]["end_state_digest"]


def test_a_price_table_puts_the_models_cost_in_the_signed_log_and_on_the_board(arena_home: Path,
                                                                              tmp_path: Path) -> None:
    prices = tmp_path / "prices.toml"
    prices.write_text(f'["{MODEL}"]\ninput = "3.00"\noutput = "15.00"\n')
    calls: list[tuple[str, Any]] = [("list_tickets", {"status": "open"})]
    log = _play("refund", _outputs(calls), tmp_path, seeds=str(SEED), prices=str(prices))
    meta = log.samples[0].scores["arena_verdict"].metadata or {}  # type: ignore[index]
    events = _events(_stored(arena_home, meta["bout_id"]), Keyring.from_paths([arena_home / "keys"]))
    header, result = events[0]["data"], events[-1]["data"]
    assert header["model"] == {"provider": "inspect", "model": MODEL, "price": {
        "input_per_mtok": "3.00", "output_per_mtok": "15.00", "currency": "USD"}}
    # one turn with the call (100 in, 10 out) and the turn that ended the bout (101 in, 10 out)
    assert result["usage"] == {"input_tokens": 201, "output_tokens": 20}
    assert result["cost_micro_usd"] == 3 * 201 + 15 * 20
    board = CliRunner().invoke(app, ["board", "--json"])
    row = next(r for r in json.loads(board.output)["leaderboard"] if r["agent"] == f"inspect:{MODEL}")
    assert row["cost_usd"] == "0.000903"


def test_a_bad_price_table_is_one_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "prices.toml"
    bad.write_text('["x"]\ninput = "free"\noutput = "1"\n')
    for path in (bad, tmp_path / "missing.toml"):
        with pytest.raises(UsageError, match="price"):
            arena_task("refund", TIER, str(SEED), prices=str(path))


def test_calls_inspect_refuses_itself_still_end_the_sample_at_the_arenas_caps(arena_home: Path,
                                                                              tmp_path: Path) -> None:
    """A call to a tool that does not exist never reaches the bout, so the arena's caps cannot
    count it; the task's message limit does, and the bout is judged when Inspect stops the sample."""
    made = []

    def forever(*_: Any) -> ModelOutput:
        made.append(1)
        if len(made) > 1000:  # no limit stopped it: end here, so the test fails rather than hangs
            return ModelOutput.from_content(MODEL, "gave up")
        out = ModelOutput.for_tool_call(MODEL, "no_such_tool", {})
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    task = arena_task("refund", TIER, str(SEED))
    caps = load_catalog().caps_for(load_catalog().current_rules.version, TIER, "refund")
    assert task.message_limit == 2 * min(caps.turns, caps.tool_calls) + 2
    log = inspect_eval(task, model=get_model(MODEL, custom_outputs=forever), log_dir=str(tmp_path), display="none")[0]
    assert log.status == "success", log.error
    sample = log.samples[0]  # type: ignore[index]
    assert len(sample.messages) <= task.message_limit and len(made) < task.message_limit
    meta = sample.scores["arena_verdict"].metadata or {}  # type: ignore[index]
    assert meta["passed"] is False and "error" not in meta and meta["bout_id"]
    result = _events(_stored(arena_home, meta["bout_id"]), Keyring.from_paths([arena_home / "keys"]))[-1]["data"]
    assert result["tool_calls"] == 0 and result["passed"] is False


_PLUGIN = '''
"""A scripted Inspect model, found the way Inspect finds any provider package: an entry point."""
import json

from inspect_ai.model import GenerateConfig, ModelOutput, ModelUsage, modelapi
from inspect_ai.model._providers.mockllm import MockLLM


class Scripted(MockLLM):
    def __init__(self, model_name, base_url=None, api_key=None, config=GenerateConfig(), calls="", **_):
        outs = [ModelOutput.for_tool_call("scripted", n, a) for n, a in json.loads(open(calls).read())]
        outs.append(ModelOutput.from_content("scripted", "done"))
        for out in outs:
            out.usage = ModelUsage(input_tokens=5, output_tokens=2, total_tokens=7)
        super().__init__(model_name, base_url, api_key, config, custom_outputs=outs)


@modelapi(name="scripted")
def scripted():
    return Scripted
'''


def test_inspect_eval_on_the_command_line_plays_a_verified_bout(arena_home: Path, tmp_path: Path, key: ArenaKey,
                                                                ring: Keyring) -> None:
    """``inspect eval forge_arena/<job>`` as a researcher types it, with a model provider of its
    own (Inspect's mock model cannot take scripted outputs from the command line)."""
    import os
    import subprocess
    import sys

    plugin = tmp_path / "plugin"
    (plugin / "arena_scripted_model-1.0.dist-info").mkdir(parents=True)
    (plugin / "arena_scripted_model-1.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: arena-scripted-model\nVersion: 1.0\n")
    (plugin / "arena_scripted_model-1.0.dist-info" / "entry_points.txt").write_text(
        "[inspect_ai]\nscripted = arena_scripted_model\n")
    (plugin / "arena_scripted_model.py").write_text(_PLUGIN)
    spec = BoutSpec("scripted:oracle", "refund", TIER, SEED, 1, load_catalog().current_rules.version)
    oracle = _events(run_bout(spec, key).envelope, ring)
    (tmp_path / "calls.json").write_text(json.dumps(
        [[e["data"]["name"], e["data"]["args"]] for e in oracle if e["type"] == "tool"]))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugin), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-m", "inspect_ai", "eval", "forge_arena/refund", "--model", "scripted/oracle",
         "-M", f"calls={tmp_path / 'calls.json'}", "-T", f"tier={TIER}", "-T", f"seeds={SEED}",
         "--log-dir", str(tmp_path / "logs"), "--display", "plain"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    listed = CliRunner().invoke(app, ["bout", "list", "--json"])
    rows = [r for r in json.loads(listed.output) if r["agent"] == "inspect:scripted/oracle"]
    assert len(rows) == 1 and rows[0]["passed"] is True and rows[0]["seed"] == SEED
    row = Store(f"sqlite:///{arena_home / 'arena.db'}")
    try:
        stored = row.get(rows[0]["bout_id"])
    finally:
        row.close()
    assert stored is not None
    (tmp_path / "bout.json").write_bytes(bytes(stored.envelope))
    verified = CliRunner().invoke(app, ["replay", str(tmp_path / "bout.json")])
    assert verified.exit_code == 0 and "Verified, Reproduced" in verified.output, verified.output


def test_the_arena_task_covers_every_job_unless_given_one() -> None:
    every = arena_task(None, TIER, "3-4").dataset
    assert sorted({s.metadata["job"] for s in every}) == sorted(JOBS)  # type: ignore[index]
    assert len(every) == 2 * len(JOBS) and len({s.id for s in every}) == len(every)
    one = arena_task("weekend", TIER, "3-4").dataset
    assert {s.metadata["job"] for s in one} == {"weekend"}  # type: ignore[index]
