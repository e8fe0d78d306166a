"""Regrading: a signed log judged again under other rules, with no new play (ADR 0061).

Most rules changes (weights, penalties, caps, a detector made stricter or fairer) need no new
play: the signed log holds every call and the world is rebuilt from its seed. So a regrade is
a replay (`referee.bout.replay`): every logged call is run again and held to its logged
outcome, and the end state and verdict under the played rules to the logged ones; a log that
does not reproduce is refused. Along the way the world is judged under the new rules where
their caps would have stopped the bout (at once if they are no tighter, at the end).

Where the new rules need play the log cannot answer, the bout "needs replay" and nothing is
guessed: its world (or its tools or brief) is not the one rebuilt from its seed now (ADR 0016),
or it stopped at a cap the new rules raise, so the agent would have played on.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from catalog import Caps, CatalogError, RulesVersion, load_catalog
from referee.bout.judge import Verdict, judge
from referee.bout.replay import Diverged, check_structure, check_world, held_to_log, rerun_logged, state_digest
from referee.errors import RegradeError, RegradeRefused
from referee.log.chain import BoutLog
from referee.log.events import Header, ResultEvent, validate_event
from referee.log.regrades import Judged, Played, RegradeChanges, RegradeRecord, StateChange, TrapChange
from sandboxes import UnknownJob, get_job
from sandboxes.kit.world import World
from traps.registry import detector_for

__all__ = ["regrade_log"]


def regrade_log(log: BoutLog, log_sha256: str, rules_version: str, key_id: str) -> RegradeRecord:
    """The record of a verified, finished ``log`` (whose signed document hashes to ``log_sha256``)
    judged under ``rules_version``, to be signed by the key ``key_id``.

    Raises:
        RegradeRefused: the log does not reproduce on its rebuilt world.
        RegradeError: its job, task version or rules are not in the catalogue, or the target
            rules do not judge its task version.
    """
    events = log.events
    try:
        check_structure(events)
    except Diverged as err:
        raise RegradeRefused(f"the log does not reproduce: {err}") from None
    header_event, result_event = validate_event(0, events[0]), validate_event(len(events) - 1, events[-1])
    assert isinstance(header_event.data, Header) and isinstance(result_event, ResultEvent)  # parse_log checked both
    header, result = header_event.data, result_event.data
    try:
        job = get_job(header.job)
        catalog = load_catalog()
        tv = catalog.task_version(header.task_version_slug)
        played, target = catalog.rules(header.rules_version), catalog.rules(rules_version)
        caps = catalog.caps_for(target.version, tv.slug, job.slug)
    except (UnknownJob, CatalogError) as err:
        raise RegradeError(f"cannot regrade bout {header.bout_id} under rules {rules_version}: {err}") from None
    before = Played(passed=result.passed, score_bp=result.score_bp, traps=dict(result.traps),
                    traps_sprung=list(result.traps_sprung), stopped=result.stopped, turns=result.turns,
                    tool_calls=result.tool_calls)
    base: dict[str, Any] = {
        "v": 1, "bout_id": header.bout_id, "season": header.season, "agent": header.agent, "job": header.job,
        "variant": header.variant, "task_version": header.task_version, "task_version_slug": tv.slug,
        "seed": header.seed, "attempt": header.attempt, "log_sha256": log_sha256, "key_id": key_id,
        "played_rules": played.version, "rules_version": target.version, "played": before,
        "caps": {"turns": caps.turns, "tool_calls": caps.tool_calls},
    }
    world = job.build(header.seed, tv.slug)
    try:
        try:
            check_world(world, header)
        except Diverged as err:
            return RegradeRecord(**base, status="needs_replay", judged=None, changes=None,
                                 reason=f"the world rebuilt from the seed is not the one played ({err}); "
                                        "the bout must be played again")
        judged, reason = _replay(world, events, result_event, played, target, caps)
    except Diverged as err:
        raise RegradeRefused(f"the log does not reproduce: {err}") from None
    finally:
        world.db.close()
    if judged is None:
        return RegradeRecord(**base, status="needs_replay", reason=reason, judged=None, changes=None)
    changes = _changes(before, judged, result.goals, result.claims, played, target, header)
    return RegradeRecord(**base, status="regraded", reason="", judged=judged, changes=changes)


def _replay(world: World, events: tuple[dict[str, Any], ...], result_event: ResultEvent, played: RulesVersion,
            target: RulesVersion, caps: Caps) -> tuple[Judged | None, str]:
    """Run every logged call again; judge under ``target`` where its ``caps`` stop the bout, and
    hold the end to the log under ``played``. Returns the new verdict, or None and why the log
    cannot answer.

    Raises:
        Diverged: a call, the end state or the played verdict differs from the log's.
    """
    turns = calls = 0
    seq_of: dict[int, int] = {}
    judged: Judged | None = None
    for event in events[1:-1]:
        kind = event["type"]
        if judged is None and ((kind == "model.turn" and turns >= caps.turns)
                               or (kind == "tool" and calls >= caps.tool_calls)):
            judged = _judge(world, target, seq_of, "cap", turns, calls)  # the new caps stop the bout here
        if kind == "model.turn":
            turns += 1
        elif kind == "tool":
            rerun_logged(world, event)
            calls += 1
            seq_of.setdefault(event["data"]["call"], event["seq"])
    result, cut = result_event.data, judged is not None
    if judged is None:
        judged = _judge(world, target, seq_of, result.stopped, result.turns, result.tool_calls)
    held_to_log(result_event, state_digest(world), judge(world, played).as_json())
    hit = next((e["data"] for e in reversed(events) if e["type"] == "cap.reached"), None)
    if not cut and result.stopped == "cap" and hit is not None:
        now = caps.turns if hit["cap"] == "turns" else caps.tool_calls
        if now > hit["limit"]:
            return None, (f"the bout stopped at its {hit['cap'].replace('_', ' ')} cap of {hit['limit']}; rules "
                          f"{target.version} allow {now}, so the agent would have played on: play it again")
    return judged, ""


def _judge(world: World, rules: RulesVersion, seq_of: dict[int, int], stopped: str, turns: int,
           calls: int) -> Judged:
    verdict: Verdict = judge(world, rules)
    findings = [{**f, "events": [seq_of[i] for i in f["calls"] if i in seq_of]} for f in verdict.findings]
    return Judged.model_validate({**verdict.as_json(), "findings": findings, "end_state_digest": state_digest(world),
                                  "stopped": stopped, "turns": turns, "tool_calls": calls}, strict=False)


def _changes(before: Played, after: Judged, goals: Iterable[Any], claims: Iterable[Any], played: RulesVersion,
             target: RulesVersion, header: Header) -> RegradeChanges:
    traps = []
    evidence = {f.trap_id: f for f in after.findings if f.state == after.traps.get(f.trap_id)}
    for trap_id in sorted({*before.traps, *after.traps}):
        was, now = before.traps.get(trap_id), after.traps.get(trap_id)
        if was != now:
            f = evidence.get(trap_id)
            traps.append(TrapChange(trap_id=trap_id, before=was, after=now, summary=f.summary if f else "",
                                    calls=list(f.calls) if f else [], events=list(f.events) if f else [],
                                    facts=dict(f.facts) if f else {}))
    return RegradeChanges(
        passed=before.passed != after.passed, score_bp=after.score_bp - before.score_bp,
        stopped=(before.stopped, before.turns, before.tool_calls) != (after.stopped, after.turns, after.tool_calls),
        traps=traps,
        goals=_moved({g.name: (g.met, g.detail) for g in goals}, {g.name: (g.met, g.detail) for g in after.goals}),
        claims=_moved({c.claim: (c.true, c.detail) for c in claims},
                      {c.claim: (c.true, c.detail) for c in after.claims}),
        rules=_rules_differ(played, target, header),
    )


def _moved(before: dict[str, tuple[bool, str]], after: dict[str, tuple[bool, str]]) -> list[StateChange]:
    """Goals (or claims) met (or true) under one rules version and not the other, or judged by one only."""
    out = []
    for name in [*before, *(n for n in after if n not in before)]:
        was, now = before.get(name), after.get(name)
        if (was and was[0]) != (now and now[0]) or (was is None) != (now is None):
            out.append(StateChange(name=name, before=None if was is None else was[0],
                                   after=None if now is None else now[0], detail=(now or was or (False, ""))[1]))
    return out


def _rules_differ(played: RulesVersion, target: RulesVersion, header: Header) -> list[str]:
    """What the two rules versions do differently to this bout's job and task version."""
    catalog, slug, job = load_catalog(), header.task_version_slug, header.job
    out = []
    if catalog.caps_for(played.version, slug, job) != catalog.caps_for(target.version, slug, job):
        out.append("caps")
    if played.penalty_bp != target.penalty_bp:
        out.append("penalties")
    if played.goal_weights.get(job) != target.goal_weights.get(job):
        out.append("goal weights")
    if played.report_required != target.report_required:
        out.append("report required")
    if played.forbidden_tool_fails != target.forbidden_tool_fails:
        out.append("forbidden tools fail")
    for trap_id in sorted(set(header.traps_planted)):
        if detector_for(trap_id, played.version) is not detector_for(trap_id, target.version):
            out.append(f"detector {trap_id}")
    return out
