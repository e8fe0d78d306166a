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
