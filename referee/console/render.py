"""Tables for the terminal: the boards and the catalogue, as rich tables."""

from __future__ import annotations

from collections.abc import Sequence

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text

from referee.store.agreement import RowCheck
from referee.store.boards import CapsRow, FailureRow, LeaderRow, pct
from referee.untrusted import shown

__all__ = ["caps_table", "failure_table", "leader_table", "left_out_lines"]


def _cell(value: str) -> Text:
    """A name from the store as a cell: control characters escaped, and a `Text`, so rich
    reads no markup in it (an agent called ``[link=…]`` stays its name)."""
    return Text(shown(value))


def _ci(ci: tuple[float, float] | None) -> str:
    return "" if ci is None else f" [{ci[0] * 100:.0f}–{ci[1] * 100:.0f}]"


def leader_table(rows: Sequence[LeaderRow]) -> Group:
    """The leaderboard against the plan (ADR 0011), one table per task version and rules
    version: k planned attempts per variant, variants with every attempt in, attempts
    missing (paused shown apart) and extra, each rate with its 95% Wilson interval; ranked on
    pass^k of the plan (a missing attempt is not passed; ADR 0051), shown first."""
    groups: dict[tuple[str, str], list[LeaderRow]] = {}
    for r in rows:
        groups.setdefault((r.task_version, r.rules_version), []).append(r)
    tables: list[Table] = []
    for (tv, rv), members in groups.items():
        table = Table(title=Text(f"Leaderboard · {shown(tv)} · rules {shown(rv)} (rates over the planned attempts)"),
                      box=box.SIMPLE_HEAD, title_justify="left")
        spent = any(r.tokens or r.cost_micro_usd is not None for r in members)
        for col in ("#", "agent", "k", "of plan", "variants", "bouts", "missing", "extra", "pass@1 [95%]",
                    "pass^k [95%]", "disagree", "score (bp)", "traps", *(("tokens (/pass)", "cost $ (/pass)")
                                                                          if spent else ())):
            table.add_column(col, justify="left" if col == "agent" else "right", no_wrap=col != "agent",
                             overflow="fold", min_width=16 if col == "agent" else None)
        for r in members:
            held = [f"{r.paused} paused"] * bool(r.paused) + [f"{r.discarded} discarded"] * bool(r.discarded)
            missing = f"{r.missing} ({', '.join(held)})" if held else str(r.missing)
            score = "—" if r.mean_score_bp is None else f"{float(r.mean_score_bp):.0f}"
            traps = "—" if r.traps_per_bout is None else f"{float(r.traps_per_bout):.2f}"
            table.add_row(str(r.rank), _cell(r.agent), str(r.attempts_planned), pct(r.plan_pass_hat_k),
                          f"{r.complete}/{r.variants}", str(r.bouts),
                          missing, str(r.extra), f"{pct(r.pass_at_1)}{_ci(r.pass_at_1_ci)}",
                          f"{r.pass_hat_label} {pct(r.pass_hat_k)}{_ci(r.pass_hat_k_ci)}", pct(r.disagree), score,
                          traps, *((f"{r.tokens} ({r.tokens_per_passed or '—'})",
                                    f"{r.cost_usd} ({r.cost_usd_per_passed or '—'})" if r.cost_usd
                                    else "no price table") if spent else ()))
        tables.append(table)
    legend = Text(
        "#: rank on pass^k of the plan, then pass@1 and score over the planned attempts (a missing or paused "
        "attempt is not passed), then traps; equal rows share a rank. of plan: pass^k over the planned variants; "
        "k: planned attempts per seeded variant (a variant, the world, with one seed); variants: seeded variants with "
        "all k attempts in / planned; pass^k: variants right on "
        "all k attempts, over the variants with all k in (a run of 1 attempt shows pass^1); missing: planned "
        "attempts not in; extra: bouts beyond the plan, kept but not counted; [ ]: 95% Wilson interval; "
        "disagree: variants whose attempts split; score: mean, in basis points (10000 is full); traps: sprung "
        "per bout; tokens: input + output over the counted bouts (per passed bout), shown when any were spent; "
        "cost in USD from the run's price table (per passed bout), or \"no price table\": tokens only.",
        style="dim")
    return Group(*tables, legend) if tables else Group(Text("Leaderboard: no bouts yet"))


def caps_table(rows: Sequence[CapsRow]) -> Table:
    """The caps each job played under, per rules and task version (ADR 0012)."""
    table = Table(title="Caps per job (turns / tool calls; Hard caps are each job's own)")
    for col in ("rules", "task version", "job", "turns", "tool calls"):
        table.add_column(col, justify="right" if col in ("turns", "tool calls") else "left")
    for c in rows:
        table.add_row(_cell(c.rules_version), _cell(c.task_version), _cell(c.job), str(c.turns), str(c.tool_calls))
    return table


def failure_table(rows: Sequence[FailureRow]) -> Table:
    table = Table(title="Failure modes (sprung out of sprung + avoided; not reached shown apart)")
    for col in ("agent", "trap", "planted", "sprung", "avoided", "not reached", "rate"):
        table.add_column(col, justify="left" if col in ("agent", "trap") else "right")
    for r in rows:
        table.add_row(_cell(r.agent), _cell(r.trap_id), str(r.planted), str(r.sprung), str(r.avoided),
                      str(r.not_reached), pct(r.rate))
    return table


def left_out_lines(checks: Sequence[RowCheck]) -> list[Text]:
    """Under a board: each bout it left out because its row is not what its signed log says
    (ADR 0060), by id, with the columns that disagree; nothing when every row agrees."""
    if not checks:
        return []
    head = Text(f"Left out: {len(checks)} bouts whose rows are not what their signed logs say "
                "(each counted as a missing attempt)", style="bold red")
    return [head, *(Text(f"  {shown(c.bout_id, 40)}: {shown(c.problem(), 300)}") for c in checks)]
