"""Bouts played by MCP clients: the sessions, their tools, and the agent the bout loop drives.

A client's tool call is one turn with one call. `ClientAgent` is a `Driver` whose
``next_turn`` waits for the client's next call, so the referee's own loop
(`referee.bout.play.run_bout_async`, `referee.running.resume.resume_bout_async`) plays the bout
unchanged: the toolbox's validation, the caps, the log, the judge and the signature
are the ones every other agent gets (ADR 0019). Nothing here knows the MCP SDK;
`referee.mcp.server` puts these sessions on a transport.

A session plays one bout at a time and sees only its own bouts. A bout whose client
goes away (the connection closes, or no call comes for the idle limit) pauses as
``disconnected``: its log stays in the MCP working folder and a paused row in the
store, and any session given its id can resume it (the id is random: holding it is
the right to play the bout).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import re
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlmodel import Session as DbSession

from catalog import CatalogError, load_catalog
from referee.agents.base import Turn
from referee.agents.client import ClientAgent
from referee.bout.outcomes import BoutRecord, BoutSpec, Paused
from referee.bout.play import new_bout_id, run_bout_async
from referee.errors import ArenaError
from referee.log.chain import read_working_log
from referee.log.signing import ArenaKey
from referee.log.worklog import SUFFIX
from referee.mcp.shapes import (
    BoutEnded,
    BoutStatus,
    JobEntry,
    JobList,
    Started,
    TaskVersionEntry,
    VerdictShape,
    is_error,
    management_output,
    served_input,
    wrapped_output,
)
from referee.running.pool import CLIENT_PREFIX
from referee.running.resume import Unfinished, resume_bout_async
from referee.running.runner import MAX_SEED
from referee.seasons.clients import claim_next, pause_planned, settle_planned
from referee.seasons.queue import release, renew
from referee.seasons.season import LEASE
from referee.seasons.worker import worker_name
from referee.store.results import PausedRow, Store
from sandboxes import JOBS, UnknownJob, get_job
from sandboxes.kit.policy import Call
from sandboxes.kit.tools import ToolOutcome

__all__ = ["CLIENT_PREFIX", "DEFAULT_IDLE", "MANAGEMENT", "PRACTICE_ATTEMPTS", "Arena", "ClientAgent", "ClientError",
           "LiveBout", "Reply", "Session", "agent_spec", "served"]

PRACTICE_ATTEMPTS = 1
"""The plan a practice bout records: itself alone. Not None, which a board reads as the
methodology's 3 (rows from before plans were recorded), so a practice bout is never 2 missing."""

DEFAULT_IDLE = 1800.0
"""Seconds a bout waits for its client's next call before it pauses as ``disconnected``."""

RENEW_EVERY = LEASE / 3
"""Seconds between renewals of a planned bout's lease, at the client's calls (ADR 0066): a lease
outlasts the idle limit by `LEASE`, so renewing at the first call this long after the last still
leaves 2/3 of `LEASE` when the bout pauses at its idle limit. Renewing at every call cost a
database transaction per call, about half the server's time in a season played over HTTP."""

_SDK_DEFAULTS = {("mcp", "0.1.0")}
"""clientInfo an SDK sends when its user set none: it names no agent, so it cannot be ranked."""

_NAME_PART = re.compile(r"[^A-Za-z0-9._/@+-]+")


class ClientError(ArenaError, ValueError):
    """A management call that cannot be done (an unknown job, no bout running, a bout of
    another session): the client is told in one line, and no bout is touched."""


def agent_spec(client: str, agent: str | None) -> str:
    """``mcp:<client>`` or ``mcp:<client>:<agent>``: the client's name and what it says it is,
    each cut to 80 characters of a safe alphabet, so a board row names one kind of player."""
    def part(text: str) -> str:
        return _NAME_PART.sub("-", text).strip("-")[:80] or "client"
    return CLIENT_PREFIX + part(client) + (f":{part(agent)}" if agent else "")


@dataclass
class Reply:
    """What a tool call answers: its JSON payload, whether it is an error, and whether the
    session's tool list changed with it."""

    payload: Mapping[str, Any]
    error: bool = False
    changed: bool = False


@dataclass
class LiveBout:
    """A bout some session is playing (or played) on this server; its counts and outcomes are
    read from its own log as each line is written (`sink`), so the client sees what the log holds."""

    bout_id: str
    spec: BoutSpec
    agent: ClientAgent
    turns: int = 0
    tool_calls: int = 0
    last: dict[str, Any] | None = None
    history: list[dict[str, Any]] = field(default_factory=list)
    state: str = "running"
    record: BoutRecord | None = None
    paused: Paused | None = None
    failure: str | None = None
    stopped: str | None = None
    asked: bool = False
    """Whether the loop is waiting for this bout's next turn (its request already taken)."""
    task: asyncio.Task[None] | None = None
    planned: int | None = None
    """The season's planned bout this is (its ``season_bout`` id), held under ``holder``'s lease."""
    holder: str = ""
    renewed: float = field(default_factory=time.monotonic)
    """When this server last set the planned bout's lease (claimed or renewed it), by its monotonic clock."""

    def sink(self, _bout_id: str) -> Any:
        """Where each logged line also goes: the session reads the outcomes the log holds."""
        def take(_seq: int, line: bytes) -> None:
            event = json.loads(line)
            if event["type"] == "model.turn":
                self.turns += 1
            elif event["type"] == "tool":
                data = event["data"]
                self.tool_calls += 1
                self.last = {"ok": data["ok"], **({"result": data.get("result")} if data["ok"]
                                                   else {"error": data.get("error")})}
                self.history.append({"name": data["name"], "args": data["args"], **self.last})
            elif event["type"] == "bout.result":
                self.stopped = event["data"]["stopped"]
        return take

    @property
    def brief(self) -> str:
        return self.agent.observation.brief if self.agent.observation else ""

    def tools(self) -> list[dict[str, Any]]:
        """The job's tools while the bout runs, each as the server lists it (`served`)."""
        return list(self._listed) if self.agent.observation and self.state == "running" else []

    @functools.cached_property
    def _listed(self) -> list[dict[str, Any]]:
        assert self.agent.observation is not None
        outputs = self.agent.observation.outputs
        return [served(spec, outputs.get(spec["name"])) for spec in self.agent.observation.tools]

    def status(self) -> BoutStatus:
        s = self.spec
        out: BoutStatus = {"bout_id": self.bout_id, "state": self.state, "agent": s.agent, "job": s.job,
                               "task_version": s.task_version, "attempt": s.attempt,
                               "turns": self.turns, "tool_calls": self.tool_calls}
        if self.record is not None:  # the seed is secret until the bout ends (ADR 0050)
            out["seed"] = s.seed
        if self.paused is not None:
            out["paused"] = {"reason": self.paused.reason, "detail": self.paused.detail}
        if self.failure is not None:
            out["failure"] = self.failure
        return out

    def verdict(self) -> VerdictShape:
        r = self.record
        if r is None:
            raise ClientError(f"bout {self.bout_id} is {self.state}; it has no verdict yet")
        v = r.verdict
        return {"bout_id": r.bout_id, "agent": r.spec.agent, "job": r.spec.job, "variant": r.variant,
                "task_version": r.task_version_name, "seed": r.spec.seed, "attempt": r.spec.attempt,
                "passed": v.passed, "score_bp": v.score_bp, "traps_planted": list(v.traps_planted),
                "traps_sprung": list(v.traps_sprung), "turns": r.turns, "tool_calls": r.tool_calls,
                "log_sha256": r.log_sha256, "key_id": r.key_id, "log_path": str(r.path) if r.path else None,
                # The reasons, as `arena bout show --json` has them: a client need not reach our files to learn why.
                "traps": dict(v.traps), "goals": list(v.goals), "claims": list(v.claims),
                "findings": list(v.findings), "stopped": r.stopped}

    async def until_asked(self) -> list[ToolOutcome] | None:
        """The loop's next request for a turn (the last turn's results), or None once the bout is over."""
        assert self.task is not None
        return await self.agent.until_asked(self.task)


@dataclass
class Arena:
    """What every session of one server shares: the key, the store, the folders, the live bouts."""

    key: ArenaKey
    store: Store
    work_dir: Path
    out_dir: Path | None = None
    idle: float = DEFAULT_IDLE
    live: dict[str, LiveBout] = field(default_factory=dict)

    async def run(self, bout: LiveBout, play: Any) -> None:
        """Play the bout to its end and keep what it ends as: stored, paused (and stored as paused), or failed."""
        try:
            outcome = await play
        except Exception as err:  # a fault outside the client's play: this bout's, never the server's
            bout.state, bout.failure = "failed", f"{type(err).__name__}: {str(err)[:300]}"
            if bout.planned is not None:
                release(self.store, bout.holder, [bout.planned])  # queued again, for a client to play
            return
        if isinstance(outcome, BoutRecord):
            settle_planned(self.store, outcome)  # a season's planned bout is marked finished with its row
            if outcome.work_log is not None:
                outcome.work_log.discard()
            bout.record, bout.state = outcome, "finished"
        elif isinstance(outcome, Paused):
            self.store.pause([outcome])
            pause_planned(self.store, outcome.spec)
            bout.paused, bout.state = outcome, "paused"
        else:
            bout.state, bout.failure = "failed", "another process holds this bout's log"

    async def close(self) -> None:
        """Pause every bout still running (the server is stopping)."""
        for bout in list(self.live.values()):
            if bout.state == "running":
                bout.agent.leave("the server stopped")
        tasks = [b.task for b in self.live.values() if b.task is not None]
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    def paused_log(self, bout_id: str) -> Unfinished:
        """A paused MCP bout to resume, from this server's working folder or the store.

        Raises:
            ClientError: no paused bout of an MCP client has that id.
        """
        path = self.work_dir / f"{bout_id}{SUFFIX}"
        if re.fullmatch(r"b-[0-9a-f]{16}", bout_id) and path.exists():
            events = read_working_log(path)
            if events and str(events[0]["data"].get("agent", "")).startswith(CLIENT_PREFIX):
                return Unfinished(bout_id, path=path)
        with DbSession(self.store.engine) as db:
            row = db.get(PausedRow, bout_id)
        if row is not None and row.agent.startswith(CLIENT_PREFIX):
            return Unfinished(bout_id, log=row.log)
        raise ClientError(f"no paused bout {bout_id[:40]!r} of an MCP client here")


MANAGEMENT: dict[str, dict[str, Any]] = {
    "arena_list_jobs": {
        "description": "The jobs you can play and the task versions each runs under, with their caps.",
        "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
    },
    "arena_start_bout": {
        "description": "Start a practice bout: the job's world is built from the seed and its tools become yours. "
                       "Returns the brief. Call the job's tools one at a time; submit_report ends the bout. "
                       "Practice is judged, signed and kept, but never ranked on a board; ranked play is a "
                       "season's (arena_next_season_bout).",
        "parameters": {"type": "object", "additionalProperties": False, "required": ["job"], "properties": {
            "job": {"type": "string", "description": "A job slug from arena_list_jobs."},
            "task_version": {"type": "string", "description": "A task version slug or name (default: the "
                             "job's first)."},
            "seed": {"type": "integer", "minimum": 0, "maximum": MAX_SEED,
                     "description": ("The world's seed (default: drawn at random and kept secret until the bout "
                                     "ends).")},
            "attempt": {"type": "integer", "minimum": 1, "maximum": 100,
                        "description": "Attempt number, for your own records."},
            "agent": {"type": "string", "description": "What you are (a model, a scaffold), named in the log."},
        }},
    },
    "arena_next_season_bout": {
        "description": "Play the next bout a season planned for you (ranked): the season chose its job, task "
                       "version, attempt and seed (kept secret until the bout ends). Returns the brief, as "
                       "arena_start_bout does. Needs the name and version your client declares "
                       "(MCP initialize clientInfo); the season plans bouts for mcp:<that name>.",
        "parameters": {"type": "object", "additionalProperties": False, "required": ["season"], "properties": {
            "season": {"type": "string", "description": "The season's name (arena season new NAME --agent "
                       "mcp:<your client name>)."}}},
    },
    "arena_bout_status": {
        "description": "A bout's state (running, paused, finished), turns and tool calls so far.",
        "parameters": {"type": "object", "additionalProperties": False, "properties": {
            "bout_id": {"type": "string", "description": "One of your bouts (default: the current one)."}}},
    },
    "arena_verdict": {
        "description": "A finished bout's verdict: passed, score, traps planted and sprung, its log's hash.",
        "parameters": {"type": "object", "additionalProperties": False, "properties": {
            "bout_id": {"type": "string", "description": "One of your bouts (default: the last one)."}}},
    },
    "arena_resume_bout": {
        "description": "Carry on a paused bout (yours, or one whose id you were given): returns its brief "
                       "and every call made so far with its outcome; its tools become yours again.",
        "parameters": {"type": "object", "additionalProperties": False, "required": ["bout_id"], "properties": {
            "bout_id": {"type": "string", "description": "The paused bout's id."}}},
    },
    "arena_stop_bout": {
        "description": "End the current bout now without a report; it is judged as it stands.",
        "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
    },
}
"""The session's own tools, always listed; a bout's tools are listed beside them while it runs."""


def served(spec: Mapping[str, Any], result: dict[str, Any] | None) -> dict[str, Any]:
    """A job tool as the server lists it: its spec, the input schema as served, and the output
    schema of the envelope around its result (`referee.mcp.shapes`)."""
    out = {"name": spec["name"], "description": spec["description"], "parameters": served_input(spec["parameters"])}
    if result is not None:
        out["output"] = wrapped_output(result)
    return out


@functools.cache
def _management() -> tuple[dict[str, Any], ...]:
    return tuple({"name": name, "description": spec["description"], "parameters": served_input(spec["parameters"]),
                  "output": management_output(name)} for name, spec in MANAGEMENT.items())


def _arg(args: dict[str, Any], name: str, kind: type, default: Any = None) -> Any:
    value = args.get(name, default)
    if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
        raise ClientError(f"{name} must be a {kind.__name__}")
    return value


class Session:
    """One client's session: at most one bout running, and only its own bouts visible."""

    def __init__(self, arena: Arena, client: str, version: str) -> None:
        self.arena = arena
        self.client = client or "client"
        self.version = version
        self.bouts: dict[str, LiveBout] = {}
        self.current: LiveBout | None = None
        self.holder = worker_name()
        """Who holds this session's planned season bouts (host:pid:random, as a worker is named)."""
        self.lease = arena.idle + LEASE
        """A bout pauses after ``idle`` seconds without a call, so its lease outlasts that; renewed at a call
        once ``renew_every`` seconds have passed since it was last set."""
        self.renew_every = RENEW_EVERY
        self._lock = asyncio.Lock()

    def tools(self) -> list[dict[str, Any]]:
        """The tools this session has now: the management tools, and the running bout's."""
        own = list(_management())
        bout = self.current
        return own + (bout.tools() if bout is not None else [])

    def brief(self, bout_id: str) -> str:
        return self._mine(bout_id).brief

    def briefs(self) -> dict[str, str]:
        return {b.bout_id: b.brief for b in self.bouts.values() if b.brief}

    async def call(self, name: str, args: dict[str, Any]) -> Reply:
        """Answer one tool call. A management call that cannot be done is an error reply; a job
        tool's call is a turn of the running bout, whatever its arguments (the toolbox judges them)."""
        async with self._lock:
            try:
                if name in MANAGEMENT:
                    return await self._manage(name, args)
                return await self._play(name, args)
            except (ArenaError, UnknownJob) as err:  # a management call that cannot be done
                return Reply({"error": str(err).strip("'\"")}, error=True)

    async def _manage(self, name: str, args: dict[str, Any]) -> Reply:
        if name == "arena_list_jobs":
            return Reply(_jobs())
        if name == "arena_start_bout":
            return await self._start(args)
        if name == "arena_next_season_bout":
            return await self._next_planned(_arg(args, "season", str) or "")
        if name == "arena_bout_status":
            return Reply(self._pick(args).status())
        if name == "arena_verdict":
            return Reply(self._pick(args).verdict())
        if name == "arena_resume_bout":
            return await self._resume(_arg(args, "bout_id", str) or "")
        return await self._stop()

    def _pick(self, args: dict[str, Any]) -> LiveBout:
        bout_id = _arg(args, "bout_id", str)
        if bout_id is None:
            if self.current is None:
                raise ClientError("no bout yet in this session; start one with arena_start_bout")
            return self.current
        return self._mine(bout_id)

    def _mine(self, bout_id: str) -> LiveBout:
        bout = self.bouts.get(bout_id)
        if bout is None:
            raise ClientError(f"no bout {bout_id[:40]!r} in this session")
        return bout

    def _busy(self) -> None:
        if self.current is not None and self.current.state == "running":
            raise ClientError(f"bout {self.current.bout_id} is still running; finish it (submit_report) "
                              "or stop it (arena_stop_bout) first")

    async def _start(self, args: dict[str, Any]) -> Reply:
        self._busy()
        job = get_job(_arg(args, "job", str) or "")
        catalog = load_catalog()
        tier = _arg(args, "task_version", str) or next(iter(job.variants))
        try:
            tv = catalog.task_version(tier)
        except CatalogError as err:
            raise ClientError(str(err)) from None
        if tv.slug not in job.variants:
            raise ClientError(f"{job.slug} does not run under {tv.slug}; it runs under {', '.join(job.variants)}")
        seed = _arg(args, "seed", int)
        seed = secrets.randbelow(MAX_SEED + 1) if seed is None else seed
        attempt = _arg(args, "attempt", int, 1)
        if not 0 <= seed <= MAX_SEED or not 1 <= attempt <= 100:
            raise ClientError(f"seed is 0..{MAX_SEED} and attempt 1..100")
        name = agent_spec(self.client, _arg(args, "agent", str))
        # Practice, whoever drew the seed (ADR 0067): the client chose to play this bout, and would
        # choose to stop or drop the ones going badly; ranked play is a season's (ADR 0066). One
        # attempt planned, so nothing that reads the plan counts attempts it never meant to play.
        spec = BoutSpec(name, job.slug, tv.slug, seed, attempt, catalog.current_rules.version,
                        planned_attempts=PRACTICE_ATTEMPTS, practice=True)
        return await self._begin(spec, new_bout_id(), None, {})

    async def _begin(self, spec: BoutSpec, bout_id: str, planned: int | None, extra: dict[str, Any],
                     leased: float | None = None) -> Reply:
        agent = ClientAgent(spec.agent, {"name": self.client[:200], "version": self.version[:200]}, self.arena.idle)
        bout = LiveBout(bout_id, spec, agent, planned=planned, holder=self.holder)
        if leased is not None:
            bout.renewed = leased
        play = run_bout_async(spec, self.arena.key, agent=agent, out_dir=self.arena.out_dir,
                              work_dir=self.arena.work_dir, keep_work_log=True, bout_id=bout.bout_id, sink=bout.sink)
        return await self._launch(bout, play, extra)

    async def _next_planned(self, season: str) -> Reply:
        """The next bout the season planned for this client, held under this session's lease
        (ADR 0066); ranked, so the client must have said who it is."""
        self._busy()
        if not self.declared:
            raise ClientError(
                "ranked play needs your agent's name and version, as your MCP client declares them in initialize "
                f"clientInfo (this client declared {self.client[:80]!r} {self.version[:40]!r}"
                + (", the MCP SDK's default" if (self.client, self.version) in _SDK_DEFAULTS else "")
                + "); set them (for example Client(..., client_info=Implementation(name=..., version=...))) "
                "or play practice bouts with arena_start_bout")
        leased = time.monotonic()  # the lease runs from no earlier than this
        claimed = claim_next(self.arena.store, season, agent_spec(self.client, None), self.holder, self.lease)
        if claimed is None:
            raise ClientError(f"season {season!r} has no bout left for {agent_spec(self.client, None)}: "
                              "every planned bout is finished or held by another client")
        spec = claimed.spec
        return await self._begin(spec, claimed.bout_id, claimed.id,
                                 {"season": season, "job": spec.job, "attempt": spec.attempt}, leased)

    @property
    def declared(self) -> bool:
        """Whether the client said who it is: a name and a version of its own, not the SDK's default."""
        return bool(self.client.strip() and self.version.strip() and self.client != "client"
                    and (self.client, self.version) not in _SDK_DEFAULTS)

    async def _resume(self, bout_id: str) -> Reply:
        self._busy()
        held = self.arena.live.get(bout_id)
        if held is not None and held.state == "running":
            raise ClientError(f"bout {bout_id} is running in another session")
        item = self.arena.paused_log(bout_id)
        events = read_working_log(item.path) if item.path is not None else [
            json.loads(line) for line in (item.log or b"").split(b"\n") if line]
        header = events[0]["data"]
        spec = BoutSpec(header["agent"], header["job"], header["task_version_slug"], header["seed"],
                        header["attempt"], header["rules_version"], header["season"], header.get("planned_attempts"),
                        bool(header.get("practice")))
        agent = ClientAgent(spec.agent, dict(header.get("agent_info") or {}), self.arena.idle)
        bout = LiveBout(bout_id, spec, agent)
        sink = bout.sink(bout_id)
        for seq, event in enumerate(events):  # the calls so far, as the log holds them
            sink(seq, json.dumps(event).encode())
        play = resume_bout_async(item, self.arena.key, agent=agent, out_dir=self.arena.out_dir,
                                 work_dir=self.arena.work_dir, keep_work_log=True, sink=bout.sink)
        return await self._launch(bout, play, {"calls_so_far": list(bout.history)})

    async def _launch(self, bout: LiveBout, play: Any, extra: dict[str, Any]) -> Reply:
        bout.task = asyncio.create_task(self.arena.run(bout, play))
        started = asyncio.ensure_future(bout.agent.started.wait())
        await asyncio.wait({started, bout.task}, return_when=asyncio.FIRST_COMPLETED)
        if not started.done():
            started.cancel()
        self.bouts[bout.bout_id] = self.arena.live[bout.bout_id] = bout
        self.current = bout
        if bout.state != "running":
            return Reply({**bout.status(), **extra}, error=bout.state == "failed", changed=False)
        begun: Started = {"bout_id": bout.bout_id, "brief": bout.brief, "tools": [t["name"] for t in bout.tools()],
                          "task_version": bout.spec.task_version, "agent": bout.spec.agent,
                          "brief_resource": f"arena://bout/{bout.bout_id}/brief"}
        return Reply({**begun, **extra}, changed=True)

    async def _stop(self) -> Reply:
        bout = self.current
        if bout is None or bout.state != "running":
            raise ClientError("no bout is running in this session")
        await self._turn(bout, Turn())
        return Reply(self._ended(bout), changed=True)

    async def _play(self, name: str, args: Any) -> Reply:
        bout = self.current
        if bout is None or bout.state != "running":
            detail = "" if bout is None else f" (bout {bout.bout_id} is {bout.state})"
            raise ClientError(f"no tool {name[:80]!r} now: no bout is running in this session{detail}; "
                              "start one with arena_start_bout or carry one on with arena_resume_bout")
        calls = bout.tool_calls
        if bout.planned is not None and time.monotonic() - bout.renewed >= self.renew_every:
            renew(self.arena.store, self.holder, [bout.planned], self.lease)
            bout.renewed = time.monotonic()
        await self._turn(bout, Turn(calls=(Call(name, args),)))
        ran = bout.tool_calls > calls
        why = "the bout's tool-call cap was reached" if bout.stopped == "cap" else f"the bout is {bout.state}"
        outcome = dict(bout.last or {}) if ran else {
            "ok": False, "error": {"kind": "limit", "message": f"{why}; the call did not run"}}
        error = is_error(outcome)  # the world's answers are results; only a call not taken is isError (ADR 0067)
        if bout.state == "running":
            return Reply(outcome, error=error)
        return Reply({**outcome, "bout": self._ended(bout)}, error=error, changed=True)

    async def _turn(self, bout: LiveBout, turn: Turn) -> None:
        """Give the bout one turn and wait until it asks for the next, or ends."""
        if not bout.asked and await bout.until_asked() is None:
            return
        bout.agent.submit(turn)
        bout.asked = await bout.until_asked() is not None
        if not bout.asked:
            assert bout.task is not None
            with contextlib.suppress(asyncio.CancelledError):
                await bout.task

    def _ended(self, bout: LiveBout) -> BoutEnded:
        if bout.record is not None:
            return {"state": "finished", "stopped": bout.stopped, "verdict": bout.verdict()}
        return bout.status()

    async def close(self) -> None:
        """The client went away: its running bout pauses (``disconnected``), never silently dropped."""
        bout = self.current
        if bout is not None and bout.state == "running":
            bout.agent.leave("the client disconnected")
            if bout.task is not None:
                await asyncio.gather(bout.task, return_exceptions=True)


def _jobs() -> JobList:
    catalog = load_catalog()
    rules = catalog.current_rules
    jobs: list[JobEntry] = []
    for slug in sorted(JOBS):
        job = JOBS[slug]
        versions: list[TaskVersionEntry] = []
        for tv_slug, variant in job.variants.items():
            if tv_slug not in rules.task_versions:
                continue
            caps = catalog.caps_for(rules.version, tv_slug, slug)
            versions.append({"task_version": tv_slug, "name": catalog.task_version(tv_slug).name,
                             "variant": variant, "caps": {"turns": caps.turns, "tool_calls": caps.tool_calls}})
        jobs.append({"job": slug, "task_versions": versions})
    return {"rules_version": rules.version, "jobs": jobs,
            "note": "each of your tool calls is one turn; submit_report ends a bout"}
