"""Every page but the bouts': boards (with their charts), failure modes, catalogue, rules,
agents, runs, and two agents side by side (`referee.site.compare`).

Each function yields (site path, HTML). The numbers come from `referee.store.boards`, which
counts against the plan (ADR 0011) and ranks by the tie rules (ADR 0004); nothing here
computes a rate of its own.
"""

from __future__ import annotations

import functools
import json
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from markupsafe import Markup

from catalog import CatalogError
from referee.site.compare import TOP, compare_pages, pair_links
from referee.site.context import Board, Context
from referee.site.diffpage import diff_pages
from referee.site.paths import (
    agent_slug,
    board_path,
    cell_path,
    ci,
    failure_path,
    num,
    paginate,
    pct,
    rules_path,
)
from referee.site.source import SiteRow
from referee.store.boards import FailureRow, LeaderRow, failure_modes
from referee.store.charts import TOP_TRAPS, board_chart, failure_chart, render_svg

__all__ = [
    "LIST_PAGE", "ROWS_CHUNK", "Context", "agent_pages", "all_pages", "board_pages", "catalogue_pages", "failure_pages",
    "regrade_pages", "rules_pages", "runs_pages",
]

LIST_PAGE = 100
"""Bouts per list page (about 60 KB of HTML)."""
ROWS_CHUNK = 1500
"""Rows per file the runs filter reads (about 250 KB each)."""

def _leader_view(r: LeaderRow, usage: dict[tuple[str, str, str], tuple[int, int | None]]) -> dict[str, Any]:
    tokens, cost = usage.get((r.task_version, r.rules_version, r.agent), (0, None))
    return {
        "rank": r.rank, "agent": r.agent, "agent_slug": agent_slug(r.agent), "pass_hat_label": r.pass_hat_label,
        "attempts_planned": r.attempts_planned, "plan_pass_hat_k": pct(r.plan_pass_hat_k),
        "pass_hat_k": pct(r.pass_hat_k), "pass_hat_k_ci": ci(r.pass_hat_k_ci),
        "pass_at_1": pct(r.pass_at_1), "pass_at_1_ci": ci(r.pass_at_1_ci),
        "mean_score": num(r.mean_score_bp, 100), "traps_per_bout": num(r.traps_per_bout),
        "complete": r.complete, "variants": r.variants, "planned": r.planned, "bouts": r.bouts,
        "missing": f"{r.missing} ({r.paused} paused)" if r.paused else str(r.missing), "extra": r.extra,
        "disagree": pct(r.disagree), "tokens": f"{tokens:,}" if tokens else "—",
        "cost": "—" if cost is None else f"${cost / 1_000_000:.4f}",
    }


def _usage(ctx: Context) -> dict[tuple[str, str, str], tuple[int, int | None]]:
    """Tokens and cost over the counted bouts of each (task version, rules version, agent)."""
    tokens: dict[tuple[str, str, str], int] = defaultdict(int)
    cost: dict[tuple[str, str, str], int | None] = {}
    for r in ctx.rows:
        if r.bout_id in ctx.counted:
            key = (r.task_version, r.rules_version, r.agent)
            tokens[key] += r.tokens
            if r.cost_micro_usd is not None:
                cost[key] = (cost.get(key) or 0) + r.cost_micro_usd
            else:
                cost.setdefault(key, None)
    return {k: (tokens[k], cost.get(k)) for k in tokens}


def _groups(ctx: Context, key: Board, usage: Any, agent: str | None = None) -> list[list[dict[str, Any]]]:
    return [[_leader_view(r, usage) for r in group] for group in ctx.leader_groups(key, agent)]


def board_pages(ctx: Context) -> Iterator[tuple[str, str]]:
    usage = _usage(ctx)
    summaries = []
    for key in ctx.board_keys:
        tv, rv = key
        ranked = ctx.leader_groups(key)
        groups = [[_leader_view(r, usage) for r in group] for group in ranked]
        charts = [Markup(render_svg(board_chart(group), f"chart-k{group[0].attempts_planned}")) for group in ranked]
        leader = groups[0][0]["agent"] if groups and groups[0] else "—"
        summaries.append({"task_version": tv, "rules_version": rv, "href": board_path(tv, rv), "groups": groups,
                          "agents": len({r.agent for r in ctx.boards[key]}), "bouts": len(ctx.boards[key]),
                          "leader": leader})
        try:
            date = str(ctx.catalog.task_version(tv).date)
        except CatalogError:
            date = "not in the catalogue"
        yield ctx.page("board.html.j2", board_path(tv, rv), title=f"Leaderboard: Rules {rv} · {tv}",
                       versions=f"Rules {rv} · {tv}", section="boards", task_version=tv, rules_version=rv,
                       tv_date=date, rules_slug=rules_path(rv).split("/")[1][:-5], groups=groups, charts=charts,
                       failure_href="../" + failure_path(tv, rv), pairs=pair_links(ctx, key, "../"), top=TOP,
                       requested=bool(ctx.requested), left_out_bouts=ctx.left_out(key),
                       regraded=_diff_links(ctx, "../", key))
    yield ctx.page("index.html.j2", "index.html", title="Leaderboards", section="boards", boards=summaries,
                   total=len(ctx.rows), agents=len({r.agent for r in ctx.rows}), left_out_bouts=ctx.left_out(),
                   regraded=_diff_links(ctx, ""))


def _diff_links(ctx: Context, root: str, key: Board | None = None) -> list[dict[str, Any]]:
    """The diff pages (of a board's bouts, given ``key``), for the boards' pages to link."""
    return [{"href": root + d.path, "season": d.season or "no season", "rules": d.rules, "moved": d.moved}
            for d in ctx.diffs if key is None or key in d.boards]


def regrade_pages(ctx: Context) -> Iterator[tuple[str, str]]:
    """A page per season and rules version it was regraded to (`referee.site.diffpage`)."""
    for d in ctx.diffs:
        for path, values in diff_pages(d, ctx.pending):
            page = "" if values["first"] else f", page {values['pager']['current']}"
            yield ctx.page("diff.html.j2", path, title=f"Season {d.season or '(none)'} under rules {d.rules}{page}",
                           section="boards", **values)


def _cells(ctx: Context, key: Board) -> dict[tuple[str, str], list[tuple[str, SiteRow]]]:
    """The counted bouts behind each (agent, trap) cell of one board with the trap's state in
    each, sprung first (the state is worked out once per bout and trap, not once per use)."""
    out: dict[tuple[str, str], list[tuple[str, SiteRow]]] = defaultdict(list)
    for r in ctx.boards[key]:
        if r.bout_id in ctx.counted:
            sprung, avoided = r.traps("sprung"), r.traps("avoided")
            for t in r.traps("planted"):
                out[(r.agent, t)].append(("sprung" if t in sprung else "avoided" if t in avoided else "not_reached",
                                          r))
    order = {"sprung": 0, "avoided": 1, "not_reached": 2}
    return {k: sorted(v, key=lambda sr: order[sr[0]]) for k, v in out.items()}


def failure_pages(ctx: Context) -> Iterator[tuple[str, str]]:
    listing = []
    for key in ctx.board_keys:
        tv, rv = key
        fm = failure_modes(ctx.boards[key], ctx.pending_for(key))
        agents = sorted({f.agent for f in fm} | {r.agent for r in ctx.boards[key]})
        trap_ids = sorted({f.trap_id for f in fm})
        cells = {(f.agent, f.trap_id): f for f in fm}
        behind = _cells(ctx, key)
        traps = []
        for t in trap_ids:
            row: list[dict[str, Any] | None] = []
            for a in agents:
                f = cells.get((a, t))
                if f is None or f.planted == 0:
                    row.append(None)
                    continue
                rate = f.rate
                row.append({"href": "../" + cell_path(tv, rv, a, t), "rate": pct(rate), "sprung": f.sprung,
                            "met": f.sprung + f.avoided, "not_reached": f.not_reached,
                            "heat": "" if rate is None else ("hot" if rate > 0 else "cool")})
                yield from _cell_pages(ctx, key, a, t, behind.get((a, t), []))
            title = ctx.catalog.trap(t).title if t in {x.id for x in ctx.catalog.traps} else ""
            traps.append({"id": t, "title": title, "cells": row})
        listing.append({"task_version": tv, "rules_version": rv, "href": failure_path(tv, rv).split("/")[1],
                        "agents": len(agents), "traps": len(trap_ids)})
        mine: dict[str, list[FailureRow]] = defaultdict(list)
        for f in fm:
            mine[f.agent].append(f)
        views = [{"name": a, "slug": agent_slug(a), "chart": Markup(render_svg(
            failure_chart(f"The traps {a} falls for most: rules {rv} · {tv}", [(a, mine[a])]), f"most-{n}"))}
            for n, a in enumerate(agents, 1)]
        yield ctx.page("failure_board.html.j2", failure_path(tv, rv), title=f"Failure modes: Rules {rv} · {tv}",
                       versions=f"Rules {rv} · {tv}", section="failure", task_version=tv, rules_version=rv,
                       agents=views, traps=traps, top=TOP_TRAPS)
    yield ctx.page("failure_index.html.j2", "failure/index.html", title="Failure-mode boards", section="failure",
                   boards=listing)


def _cell_pages(ctx: Context, key: Board, agent: str, trap: str,
                ordered: list[tuple[str, SiteRow]]) -> Iterator[tuple[str, str]]:
    tv, rv = key
    total = {state: sum(s == state for s, _ in ordered) for state in ("sprung", "avoided", "not_reached")}
    for chunk, pager in paginate(ordered, LIST_PAGE * 2, lambda n: cell_path(tv, rv, agent, trap, n)):
        sections: list[dict[str, Any]] = []
        for state, text in (("sprung", "Sprung"), ("avoided", "Avoided"), ("not_reached", "Not reached")):
            members = [r for s, r in chunk if s == state]
            if members:
                sections.append({"title": f"{text} ({total[state]} in all)", "rows": members,
                                 "caption": f"{text}: {trap} for {agent}", "pager": None})
        if sections:
            sections[-1]["pager"] = pager
        yield ctx.page("bout_list.html.j2", cell_path(tv, rv, agent, trap, pager["current"]),
                       title=f"{trap} for {agent}: Rules {rv} · {tv}", versions=f"Rules {rv} · {tv}",
                       section="failure", sections=sections,
                       intro=f"The counted bouts of {agent} on {tv} under rules {rv} whose world planted {trap}.")


def catalogue_pages(ctx: Context) -> Iterator[tuple[str, str]]:
    cat = ctx.catalog
    names = {tv.slug: tv.name for tv in cat.task_versions}
    planted: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    met: dict[tuple[str, Board], list[int]] = defaultdict(lambda: [0, 0, 0])
    for r in ctx.rows:
        sprung, avoided = set(r.traps("sprung")), set(r.traps("avoided"))
        for tid in r.traps("planted"):
            planted[tid][r.job].add(r.task_version)
            if r.bout_id in ctx.counted:
                c = met[(tid, (r.task_version, r.rules_version))]
                c[0] += tid in sprung
                c[1] += tid in avoided
                c[2] += tid not in sprung and tid not in avoided
    current = cat.current_rules
    for t in cat.traps:
        boards = [{"task_version": k[0], "rules_version": k[1], "href": "../" + failure_path(*k),
                   "sprung": met[(t.id, k)][0], "met": met[(t.id, k)][0] + met[(t.id, k)][1],
                   "not_reached": met[(t.id, k)][2]} for k in ctx.board_keys if (t.id, k) in met]
        jobs = sorted((job, sorted(tvs, key=ctx._tv_order)) for job, tvs in planted.get(t.id, {}).items())
        yield ctx.page("trap.html.j2", f"catalogue/{t.id}.html", title=f"{t.id}: {t.title}", heading=t.id,
                       versions=f"Rules {current.version} · since {names.get(t.since, t.since)}",
                       section="catalogue", t=t, since=cat.task_version(t.since), planted=jobs, boards=boards,
                       penalty=f"{current.penalty_bp.get(t.family, 0) / 100:.0f}", current_rules=current.version,
                       cite=f"{t.id}, The Forge Arena (rules {current.version})")
    families = [{"code": f.code, "name": f.name,
                 "traps": [{"id": t.id, "title": t.title, "since_name": names.get(t.since, t.since)}
                           for t in (cat.trap(i) for i in f.trap_ids)]} for f in cat.families]
    yield ctx.page("catalogue_index.html.j2", "catalogue/index.html", title="Trap catalogue",
                   versions=f"Rules {current.version} · {', '.join(tv.name for tv in cat.task_versions)}",
                   section="catalogue", families=families, count=len(cat.traps))


def rules_pages(ctx: Context) -> Iterator[tuple[str, str]]:
    cat = ctx.catalog
    jobs = sorted({job for tv in cat.task_versions for job in tv.variants})
    fam_names = {f.code: f.name for f in cat.families}
    for rv in cat.rules_versions:
        tvs = [cat.task_version(s) for s in rv.task_versions]
        caps = []
        for tv in tvs:
            cells = []
            for job in jobs:
                try:
                    c = cat.caps_for(rv.version, tv.slug, job)
                    cells.append(f"{c.turns} / {c.tool_calls}")
                except (CatalogError, KeyError):
                    cells.append("—")
            caps.append((tv.name, cells))
        log = [c for c in cat.changelog if c.date <= rv.date]
        yield ctx.page("rules.html.j2", rules_path(rv.version), title=f"Rules {rv.version}",
                       versions=f"Rules {rv.version} · {', '.join(tv.name for tv in tvs)}", section="rules", r=rv,
                       penalties=[(k, fam_names.get(k, k), f"{v / 100:.0f}") for k, v in sorted(rv.penalty_bp.items())],
                       jobs=jobs, caps=caps, task_versions=tvs, changelog=log,
                       calculator_on=[cat.task_version(s).name for s in rv.calculator_on])
    yield ctx.page("rules_index.html.j2", "rules/index.html", title="Rules", section="rules",
                   versions=f"Rules {', '.join(r.version for r in cat.rules_versions)} · "
                            f"{', '.join(tv.name for tv in cat.task_versions)}",
                   current=cat.current_rules_version, changelog=cat.changelog, task_versions=cat.task_versions,
                   rules=[{"slug": rules_path(r.version).split("/")[1][:-5], "version": r.version, "date": r.date,
                           "changes": r.changes} for r in cat.rules_versions])


def agent_pages(ctx: Context) -> Iterator[tuple[str, str]]:
    usage = _usage(ctx)
    by_agent: dict[str, list[SiteRow]] = defaultdict(list)
    for r in ctx.rows:
        by_agent[r.agent].append(r)
    listing = []
    for agent, rows in sorted(by_agent.items()):
        slug = agent_slug(agent)
        keys = [k for k in ctx.board_keys if any(r.agent == agent for r in ctx.boards[k])]
        boards = [{"task_version": k[0], "rules_version": k[1], "href": "../" + board_path(*k),
                   "failure_href": "../" + failure_path(*k), "rows": row}
                  for k in keys for row in _groups(ctx, k, usage, agent)]
        consistency = []
        for lr in ctx.leaders:
            if lr.agent == agent:
                right = round(lr.pass_hat_k * lr.complete) if lr.pass_hat_k is not None else 0
                split = round(lr.disagree * lr.complete) if lr.disagree is not None else 0
                consistency.append({"task_version": lr.task_version, "rules_version": lr.rules_version,
                                    "k": lr.attempts_planned, "complete": lr.complete, "all_right": right,
                                    "split": split, "all_wrong": lr.complete - right - split,
                                    "pass_at_1": pct(lr.pass_at_1), "pass_hat_k": pct(lr.pass_hat_k)})
        failures = []
        for k in keys:
            for f in failure_modes([r for r in ctx.boards[k] if r.agent == agent], ctx.pending_for(k)):
                failures.append({"task_version": k[0], "rules_version": k[1], "trap_id": f.trap_id,
                                 "planted": f.planted, "sprung": f.sprung, "avoided": f.avoided,
                                 "not_reached": f.not_reached, "rate": pct(f.rate),
                                 "href": "../" + cell_path(k[0], k[1], agent, f.trap_id)})
        passed = sum(r.passed for r in rows)
        listing.append({"name": agent, "slug": slug, "bouts": len(rows), "passed": passed, "boards": len(keys)})
        yield ctx.page("agent.html.j2", f"agents/{slug}.html", title=f"Agent {agent}", section="agents",
                       name=agent, slug=slug, bouts=len(rows), passed=passed, boards=boards,
                       consistency=consistency, failures=failures)
        for chunk, pager in paginate(rows, LIST_PAGE, functools.partial(_agent_list_path, slug)):
            yield ctx.page("bout_list.html.j2", f"agents/{slug}-bouts-{pager['current']}.html",
                           title=f"Bouts of {agent}, page {pager['current']}", section="agents",
                           intro=f"Every bout of {agent}, oldest first.",
                           sections=[{"title": "Bouts", "rows": chunk, "pager": pager,
                                      "caption": f"Bouts of {agent}"}])
    yield ctx.page("agents_index.html.j2", "agents/index.html", title="Agents", section="agents", agents=listing)


def _agent_list_path(slug: str, n: int) -> str:
    return f"agents/{slug}-bouts-{n}.html"


def _row_json(r: SiteRow) -> list[Any]:
    return [r.bout_id, r.agent, r.job, r.task_version, r.rules_version, r.seed, r.attempt, r.passed, r.score_bp,
            r.traps("sprung"), r.traps("avoided"), r.traps("planted")]


def runs_pages(ctx: Context) -> Iterator[tuple[str, str]]:
    rows = ctx.rows
    chunks = [rows[i:i + ROWS_CHUNK] for i in range(0, len(rows), ROWS_CHUNK)]
    for n, chunk in enumerate(chunks, 1):
        data = json.dumps([_row_json(r) for r in chunk], ensure_ascii=False, separators=(",", ":"))
        yield f"runs/rows-{n}.js", f"window.ARENA_ROWS=(window.ARENA_ROWS||[]).concat({data});\n"
    trap_ids = sorted({t for r in rows for t in r.traps("planted")})
    filters = [
        {"name": "agent", "label": "Agent", "options": _options(r.agent for r in rows)},
        {"name": "job", "label": "Job", "options": _options(r.job for r in rows)},
        {"name": "task_version", "label": "Task version", "options": _options(r.task_version for r in rows)},
        {"name": "trap", "label": "Trap planted", "options": [(t, t) for t in trap_ids]},
        {"name": "trap_state", "label": "Trap state", "options": [("sprung", "sprung"), ("avoided", "avoided"),
                                                                  ("not_reached", "not reached")]},
        {"name": "verdict", "label": "Verdict", "options": [("passed", "passed"), ("failed", "failed")]},
        {"name": "compare", "label": "Compare with", "options": _options(r.agent for r in rows)},
    ]
    side_by_side: dict[str, list[list[str]]] = defaultdict(list)
    for key in ctx.board_keys:
        for link in pair_links(ctx, key, "../"):
            for a, b in ((link["first"], link["second"]), (link["second"], link["first"])):
                side_by_side[f"{a}\t{b}"].append([f"Rules {key[1]} · {key[0]}", link["href"]])
    pairs_json = json.dumps(side_by_side, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    citation = ctx.catalog.citation
    for chunk_rows, pager in paginate(rows, LIST_PAGE, lambda n: "runs/index.html" if n == 1 else
                                      f"runs/page-{n}.html"):
        n = pager["current"]
        yield ctx.page("runs.html.j2", "runs/index.html" if n == 1 else f"runs/page-{n}.html",
                       title="Runs and dataset" if n == 1 else f"Runs, page {n}", section="runs", rows=chunk_rows,
                       pager=pager, first=n == 1, total=len(rows), filters=filters, chunks=len(chunks),
                       downloads=ctx.downloads, dataset=ctx.dataset, citation=citation,
                       current_rules=ctx.catalog.current_rules_version, pairs_json=pairs_json)


def _options(values: Any) -> list[tuple[str, str]]:
    return [(v, v) for v in sorted(set(values))]


def all_pages(ctx: Context) -> Iterator[tuple[str, str]]:
    """Every page but the bouts' (see `referee.site.boutpage`)."""
    yield from board_pages(ctx)
    yield from regrade_pages(ctx)
    yield from failure_pages(ctx)
    yield from catalogue_pages(ctx)
    yield from rules_pages(ctx)
    yield from agent_pages(ctx)
    yield from runs_pages(ctx)
    yield from compare_pages(ctx)

