"""The site: a static site of boards, bouts, the catalogue and the rules (ADR 0017).

`build_site` renders it from a `Source` (the store, a season, a published dataset) with
Jinja2 templates into plain HTML and one stylesheet, with one small local script for the
runs filter: no network at view time, working from ``file://`` and any static host.
`serve_site` serves a built site on loopback.
"""

from __future__ import annotations

from referee.site.build import BuildReport, build_site
from referee.site.serve import serve_site
from referee.site.source import DatasetSource, SiteRow, Source, StoreSource, open_source

__all__ = [
    "BuildReport", "DatasetSource", "SiteRow", "Source", "StoreSource", "build_site", "open_source", "serve_site",
]
