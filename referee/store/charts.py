"""The boards drawn: static SVG charts of rates with their 95% Wilson intervals (ADR 0062).

A reader of a leaderboard wants to see whether two agents' intervals overlap without reading
numbers; a reader of the failure-mode board wants each agent's worst traps. Both are the same
picture: rows of estimates on a 0-100% axis, each with a whisker from its interval's low end
to its high end. This module draws that picture as SVG text, with no plotting library and no
script: the site inlines it beside its tables, the dataset writes it as files its README shows.

Every chart carries its own text alternative (``role="img"``, ``aria-label``, ``<title>`` and a
``<desc>`` that says every figure and which intervals overlap the leader's), colours with at
least 4.5:1 contrast on white, and a shape per series so colour is never the only cue. Names
from rows (an agent's, which a store anyone's agent wrote may hold) are escaped, control
characters included. The same rows give the same bytes: coordinates are rounded to 0.1.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from referee.store.boards import FailureRow, LeaderRow, wilson
from referee.untrusted import shown

__all__ = [
    "TOP_TRAPS", "Chart", "Mark", "Row", "Series", "board_chart", "failure_chart", "overlaps", "render_svg",
    "trap_rows", "whisker_x", "x_of",
]

WIDTH = 480
"""The chart's width in SVG units; the page scales it to its box (CSS), a file keeps it."""
LEFT, RIGHT = 12.0, WIDTH - 16.0
"""Where 0% and 100% fall."""
LEGEND, AXIS = 30, 30
LABEL, LINE, GAP, HEADING = 17, 13, 7, 24
"""Heights: a row's label line, each of its marks' lines, the space after it, a heading row."""
TOP_TRAPS = 5
"""Traps per agent on a failure chart: the ones it falls for most."""

INK, MUTED, GRID = "#1b1b1b", "#4a4a4a", "#d9d9d9"
BAND = "#dce8f6"
"""The leader's interval, shaded behind every row (text on it keeps 4.5:1)."""
FONT = "system-ui, -apple-system, 'Segoe UI', sans-serif"


@dataclass(frozen=True)
class Series:
    """One kind of estimate on a chart: its name in the legend, colour and shape."""

    name: str
    colour: str
    shape: Literal["dot", "square", "bar"]


PASS_HAT = Series("pass^k", "#0b4f9c", "dot")
PASS_AT_1 = Series("pass@1", "#6b4a00", "square")
SPRUNG = Series("sprung / met", "#a10e0e", "bar")


@dataclass(frozen=True)
class Mark:
    """One estimate: a fraction of 1 and its interval, or None for 0 of 0 (nothing to draw)."""

    value: float | None
    interval: tuple[float, float] | None
    text: str
    """The figure in words, for the description and the row's tooltip."""


@dataclass(frozen=True)
class Row:
    """A labelled row with one mark per series, or a heading (no marks) between groups."""

    label: str
    marks: tuple[Mark, ...] = ()
    note: str = ""
    """Short text at the row's right end (``3/4 met``)."""
    heading: bool = False


@dataclass(frozen=True)
class Chart:
    title: str
    """Short: the ``aria-label`` and ``<title>``."""
    desc: str
    """Every figure in words: the ``<desc>``, what a screen reader or a text-only reader gets."""
    series: tuple[Series, ...]
    rows: tuple[Row, ...]
    band: tuple[float, float] | None = None
    band_label: str = ""
    empty: str = "Nothing to show."
    """What the chart says when it has no rows."""


def x_of(fraction: float) -> float:
    """Where a rate falls on the axis (clamped to 0..1: a Wilson bound never leaves it, a caller's slip might)."""
    return round(LEFT + (RIGHT - LEFT) * min(1.0, max(0.0, fraction)), 1)


def whisker_x(interval: tuple[float, float] | None) -> tuple[float, float] | None:
    """The whisker's two ends for an interval; None for 0 of 0 (no interval, no whisker)."""
    return None if interval is None else (x_of(interval[0]), x_of(interval[1]))


def overlaps(a: tuple[float, float] | None, b: tuple[float, float] | None) -> bool:
    """Whether two intervals share any point (an absent interval overlaps nothing)."""
    return a is not None and b is not None and a[0] <= b[1] and b[0] <= a[1]


def _t(text: str, limit: int | None = None) -> str:
    return html.escape(shown(text, limit), quote=True)


def _pct(x: float) -> str:
    return f"{x * 100:.0f}%"


def _mark_text(name: str, value: float | None, interval: tuple[float, float] | None, of: str) -> str:
    if value is None or interval is None:
        return f"{name}: no estimate ({of})"
    return f"{name} {value * 100:.1f}% (95% interval {_pct(interval[0])}–{_pct(interval[1])}; {of})"


def _estimate(name: str, value: Fraction | float | None, interval: tuple[float, float] | None, of: str) -> Mark:
    v = None if value is None else float(value)
    return Mark(v, interval, _mark_text(name, v, interval, of))


def board_chart(rows: Sequence[LeaderRow]) -> Chart:
    """pass^k and pass@1 with their intervals, one row per agent in the board's order (rows of
    one board and one k). The leader's pass^k interval is shaded behind every row, so an agent
    whose whisker reaches into the band is not shown apart from the leader."""
    if not rows:
        return Chart("No agents", "The board has no rows.", (PASS_HAT, PASS_AT_1), ())
    first = rows[0]
    label = first.pass_hat_label
    hat = Series(label, PASS_HAT.colour, PASS_HAT.shape)
    out = []
    for r in rows:
        marks = (_estimate(label, r.pass_hat_k, r.pass_hat_k_ci, f"{r.complete} variants complete"),
                 _estimate("pass@1", r.pass_at_1, r.pass_at_1_ci, f"{r.bouts} bouts"))
        out.append(Row(f"{r.rank}. {r.agent}", marks))
    band = first.pass_hat_k_ci
    words = [f"{row.label}: {row.marks[0].text}; {row.marks[1].text}." for row in out]
    if band is not None and len(rows) > 1:
        near = [r.agent for r in rows[1:] if overlaps(r.pass_hat_k_ci, band)]
        apart = [r.agent for r in rows[1:] if not overlaps(r.pass_hat_k_ci, band)]
        words.append(f"Overlapping the leader's {label} interval ({first.agent}, {_pct(band[0])}–{_pct(band[1])}): "
                     f"{', '.join(near) or 'none'}. Apart from it: {', '.join(apart) or 'none'}.")
    title = f"{label} and pass@1 per agent with 95% intervals, rules {first.rules_version} · {first.task_version}"
    return Chart(title, " ".join(words), (hat, PASS_AT_1), tuple(out), band,
                 f"leader's {label} interval" if band is not None else "")


def trap_rows(cells: Sequence[FailureRow], top: int = TOP_TRAPS) -> list[Row]:
    """The ``top`` traps an agent fell for most: sprung over met, highest first (then most
    sprung, then ID); a trap it never fell for, or never met, is not among them."""
    fell = sorted((c for c in cells if c.sprung), key=lambda c: (-c.sprung / (c.sprung + c.avoided), -c.sprung,
                                                                   c.trap_id))
    out = []
    for c in fell[:top]:
        met = c.sprung + c.avoided
        ci = wilson(c.sprung, met)
        out.append(Row(c.trap_id, (_estimate("sprung", c.sprung / met, ci, f"{c.sprung} of {met} met"),),
                       note=f"{c.sprung}/{met} met"))
    return out


def failure_chart(title: str, agents: Sequence[tuple[str, Sequence[FailureRow]]], top: int = TOP_TRAPS,
                  headings: bool = False) -> Chart:
    """The traps each agent falls for most, with intervals: one agent's chart, or several, each
    under a heading with its name (the dataset's one file per board)."""
    rows: list[Row] = []
    words = []
    for agent, cells in agents:
        mine = trap_rows(cells, top)
        if headings:
            rows.append(Row(agent, heading=True))
        rows.extend(mine)
        if not mine:
            rows.append(Row("fell for no trap it met", note=""))
        words.append(f"{agent}: " + ("; ".join(f"{r.label} {r.marks[0].text}" for r in mine) if mine
                                     else "fell for no trap it met") + ".")
    return Chart(title, " ".join(words) or "No agent met a trap.", (SPRUNG,), tuple(rows), empty="No agent met a trap.")


def _height(chart: Chart) -> int:
    body = sum(HEADING if r.heading else LABEL + LINE * max(1, len(r.marks)) + GAP for r in chart.rows)
    return LEGEND + max(body, LABEL + GAP) + AXIS


def _marker(s: Series, x: float, y: float, role: str = "mark") -> str:
    """The estimate's marker (``role`` "mark"), or its sample in the legend ("key")."""
    if s.shape == "dot":
        return f'<circle class="{role}" cx="{x}" cy="{y}" r="4.5" fill="{s.colour}"/>'
    if s.shape == "square":
        return f'<rect class="{role}" x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" height="8" fill="{s.colour}"/>'
    return (f'<rect class="{role}" x="{LEFT}" y="{y - 4:.1f}" width="{max(0.0, x - LEFT):.1f}" height="8" '
            f'fill="#f6d4d4" stroke="{s.colour}"/>')


def _mark(s: Series, m: Mark, y: float) -> list[str]:
    """A mark's line: its marker (a bar under the whisker, a dot or square over it) and its
    whisker with end caps; words instead when it has no interval (0 of 0)."""
    ends = whisker_x(m.interval)
    if m.value is None or ends is None:
        return [f'<text x="{LEFT}" y="{y + 4:.1f}" fill="{MUTED}" font-size="11">{_t(s.name)}: no estimate (0 of 0)'
                f'</text>']
    lo, hi = ends
    ink = INK if s.shape == "bar" else s.colour
    whisker = [f'<line class="whisker" x1="{lo}" y1="{y}" x2="{hi}" y2="{y}" stroke="{ink}" stroke-width="1.5"/>',
               *(f'<line x1="{x}" y1="{y - 4:.1f}" x2="{x}" y2="{y + 4:.1f}" stroke="{ink}" stroke-width="1.5"/>'
                 for x in (lo, hi))]
    marker = _marker(s, x_of(m.value), y)
    return [marker, *whisker] if s.shape == "bar" else [*whisker, marker]


def _legend(chart: Chart) -> list[str]:
    out, x = [], LEFT
    for s in chart.series:
        out.append(_marker(s, x + 5, 14, "key") if s.shape != "bar" else
                   f'<rect class="key" x="{x}" y="10" width="12" height="8" fill="#f6d4d4" stroke="{s.colour}"/>')
        out.append(f'<text x="{x + 15:.1f}" y="18" fill="{INK}">{_t(s.name)}</text>')
        x += 28 + 7.5 * len(s.name)
    out.append(f'<line x1="{x}" y1="14" x2="{x + 14}" y2="14" stroke="{INK}" stroke-width="1.5"/>')
    out.append(f'<text x="{x + 18:.1f}" y="18" fill="{INK}">95% interval</text>')
    x += 110
    if chart.band is not None:
        out.append(f'<rect x="{x}" y="7" width="12" height="12" fill="{BAND}"/>')
        out.append(f'<text x="{x + 16:.1f}" y="18" fill="{INK}">{_t(chart.band_label)}</text>')
    return out


def render_svg(chart: Chart, ident: str) -> str:
    """The chart as one ``<svg>`` element, fit to inline in HTML or to save as a file; ``ident``
    makes its ids unique on a page (letters, digits and ``-``)."""
    height = _height(chart)
    bottom = height - AXIS
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {WIDTH} {height}" '
             f'width="{WIDTH}" height="{height}" role="img" aria-label="{_t(chart.title)}" '
             f'aria-describedby="{ident}-desc" font-family="{FONT}" font-size="12">',
             f'<title id="{ident}-title">{_t(chart.title)}</title>', f'<desc id="{ident}-desc">{_t(chart.desc)}</desc>',
             f'<rect width="{WIDTH}" height="{height}" fill="#ffffff"/>']
    if chart.band is not None:
        lo, hi = whisker_x(chart.band) or (LEFT, LEFT)
        parts.append(f'<rect class="band" x="{lo}" y="{LEGEND - 4}" width="{max(1.0, hi - lo):.1f}" '
                     f'height="{bottom - LEGEND + 4}" fill="{BAND}"/>')
    for tick in (0, 0.25, 0.5, 0.75, 1):
        x = x_of(tick)
        parts.append(f'<line x1="{x}" y1="{LEGEND - 4}" x2="{x}" y2="{bottom}" stroke="{GRID}"/>')
        anchor = "start" if tick == 0 else "end" if tick == 1 else "middle"
        parts.append(f'<text x="{x}" y="{bottom + 16}" fill="{MUTED}" text-anchor="{anchor}">{_pct(tick)}</text>')
    parts.append(f'<line x1="{LEFT}" y1="{bottom}" x2="{RIGHT}" y2="{bottom}" stroke="{MUTED}"/>')
    parts += _legend(chart)
    y = float(LEGEND)
    for row in chart.rows:
        if row.heading:
            parts.append(f'<text x="{LEFT}" y="{y + 16:.1f}" fill="{INK}" font-weight="700">{_t(row.label, 60)}</text>')
            y += HEADING
            continue
        tip = "; ".join(m.text for m in row.marks)
        parts.append(f'<g class="row"><title>{_t(row.label)}{": " + _t(tip) if tip else ""}</title>')
        parts.append(f'<text x="{LEFT}" y="{y + 12:.1f}" fill="{INK}">{_t(row.label, 56 - len(row.note))}</text>')
        if row.note:
            parts.append(f'<text x="{RIGHT}" y="{y + 12:.1f}" fill="{MUTED}" text-anchor="end">{_t(row.note)}</text>')
        line = y + LABEL + LINE / 2
        for s, m in zip(chart.series, row.marks, strict=False):
            parts += _mark(s, m, round(line, 1))
            line += LINE
        parts.append("</g>")
        y += LABEL + LINE * max(1, len(row.marks)) + GAP
    if not chart.rows:
        parts.append(f'<text x="{LEFT}" y="{LEGEND + 14}" fill="{MUTED}">{_t(chart.empty)}</text>')
    parts.append("</svg>")
    return "".join(parts)
