"""How the dataset is cited and described: CITATION.cff, BibTeX, a dataset card,
Croissant metadata and a Frictionless data package.

Every date and version here comes from the data (the bouts' own timestamps and the
catalogue), never from the export's wall clock, so exports are byte-reproducible.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from catalog import load_catalog

__all__ = ["DatasetInfo", "bibtex", "card", "citation_cff", "croissant", "datapackage"]

LICENSE = "CC-BY-4.0"
LICENSE_URL = "https://creativecommons.org/licenses/by/4.0/"
AUTHOR = "The Agent Forge"


@dataclass(frozen=True)
class DatasetInfo:
    """What every metadata file says about one export."""

    title: str
    slug: str
    version: str
    date: str
    bouts: int
    seasons: Mapping[str, dict[str, Any]]
    seeds: Mapping[str, Mapping[str, list[int]]]
    rules_versions: Sequence[str]
    task_versions: Sequence[str]
    key_id: str

    @property
    def url(self) -> str:
        return str(load_catalog().citation.url)


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a valid YAML double-quoted scalar


def citation_cff(info: DatasetInfo) -> bytes:
    lines = [
        "cff-version: 1.2.0",
        'message: "If you use this dataset, please cite it as below."',
        "type: dataset",
        f"title: {_q(info.title)}",
        "authors:",
        f"  - name: {_q(AUTHOR)}",
        f"version: {_q(info.version)}",
        f"date-released: {_q(info.date)}",
        f"license: {LICENSE}",
        f"url: {_q(info.url)}",
        "keywords:",
        *(f"  - {_q(k)}" for k in ("AI agents", "benchmark", "safety", "traps", "signed logs")),
    ]
    if info.seasons:
        lines.append("identifiers:")
        for name, season in info.seasons.items():
            lines += ["  - type: other", f"    value: {_q('sha256:' + season['merkle_root'])}",
                      f"    description: {_q(f'RFC 6962 Merkle root of season {name!r} bout logs')}"]
    citation = load_catalog().citation
    lines += [
        "preferred-citation:",
        "  type: generic",
        f"  title: {_q('The Forge Arena: methodology and trap catalog')}",
        "  authors:",
        f"    - name: {_q(AUTHOR)}",
        f"  year: {citation.date.year}",
        f"  url: {_q(info.url)}",
    ]
    return ("\n".join(lines) + "\n").encode()


def bibtex(info: DatasetInfo) -> bytes:
    roots = "; ".join(f"season {n}: sha256 {s['merkle_root']}" for n, s in info.seasons.items())
    year, month = info.date[:4], ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov",
                                  "dec"][int(info.date[5:7]) - 1]
    entry = (
        f"@misc{{forgearena_dataset_{info.slug.replace('-', '_')},\n"
        f"  title        = {{{info.title}}},\n"
        f"  author       = {{{{{AUTHOR}}}}},\n"
        f"  year         = {{{year}}},\n"
        f"  month        = {month},\n"
        f"  version      = {{{info.version}}},\n"
        f"  date         = {{{info.date}}},\n"
        f"  howpublished = {{\\url{{{info.url}}}}},\n"
        f"  note         = {{{info.bouts} signed bouts{'; ' + roots if roots else ''}; licence {LICENSE}}}\n"
        "}\n"
    )
    return (entry + "\n" + load_catalog().citation.bibtex.strip() + "\n").encode()


def card(info: DatasetInfo, files: Sequence[str]) -> bytes:
    """README.md: a dataset card with the Hugging Face YAML header."""
    size = "n<1K" if info.bouts < 1_000 else "1K<n<10K" if info.bouts < 10_000 else "10K<n<100K" \
        if info.bouts < 100_000 else "100K<n<1M"
    seeds = "\n".join(f"- `{season}` {cell}: {', '.join(map(str, s))}"
                      for season, cells in info.seeds.items() for cell, s in cells.items())
    roots = "\n".join(f"- `{n}`: {s['size']} bouts, Merkle root `{s['merkle_root']}`" for n, s in info.seasons.items())
    text = f"""---
license: cc-by-4.0
pretty_name: {_q(info.title)}
tags:
  - agents
  - benchmark
  - ai-safety
size_categories:
  - {size}
configs:
  - config_name: bouts
    data_files:
      - split: all
        path: data/bouts.csv
---

# {info.title}

{info.bouts} bouts of AI agents doing business jobs in seeded sandboxes, refereed against the
Forge Arena trap catalogue. Versions: {info.version}. Each row names the public IDs of the traps it
sprang (`traps_sprung`), under its `rules_version` and `task_version`.

## Files

{chr(10).join(f"- `{f}`" for f in files)}

## Seeds

{seeds or "- (bouts run outside a season)"}

## Seasons

{roots or "- none"}

## How to verify

`arena dataset verify DIR --key arena.pub` checks the manifest signature, the SHA-256 of every file,
each season's Merkle root over its bout logs, and the signature of every bout log. `sha256sum -c
SHA256SUMS` checks the hashes alone. Signing key id: `{info.key_id}`.

## How to cite

```bibtex
{bibtex(info).decode().strip()}
```

Licence: {LICENSE} ({LICENSE_URL}).
"""
    return text.encode()


_COLUMN_TYPES = {
    "leaf_index": "integer", "seed": "integer", "attempt": "integer", "score": "integer", "turns": "integer",
    "tool_calls": "integer", "tokens": "integer", "passed": "boolean", "verified": "boolean",
}


def _resource(name: str, path: str, digest: str, size: int, columns: Sequence[str],
              extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    fields = [{"name": c, "type": _COLUMN_TYPES.get(c, "string"),
               **({"trueValues": ["true"], "falseValues": ["false"]} if _COLUMN_TYPES.get(c) == "boolean" else {})}
              for c in columns]
    return {"name": name, "path": path, "profile": "tabular-data-resource", "format": "csv",
            "mediatype": "text/csv", "encoding": "utf-8", "bytes": size, "hash": f"sha256:{digest}",
            "schema": {"fields": fields, **(extra or {})}}


def datapackage(info: DatasetInfo, tables: Mapping[str, tuple[str, str, int, Sequence[str]]]) -> bytes:
    """Frictionless Data Package: ``tables`` maps name -> (path, sha256, bytes, columns)."""
    keys: dict[str, dict[str, Any]] = {
        "bouts": {"primaryKey": ["bout_id"]},
        "traps": {"primaryKey": ["id"]},
        "bout_traps": {"foreignKeys": [
            {"fields": ["bout_id"], "reference": {"resource": "bouts", "fields": ["bout_id"]}},
            {"fields": ["trap_id"], "reference": {"resource": "traps", "fields": ["id"]}}]},
    }
    doc = {
        "name": f"forge-arena-{info.slug}", "title": info.title, "version": info.version,
        "created": f"{info.date}T00:00:00Z",
        "licenses": [{"name": LICENSE, "path": LICENSE_URL, "title": "Creative Commons Attribution 4.0"}],
        "resources": [_resource(n, p, d, b, c, keys.get(n)) for n, (p, d, b, c) in tables.items()],
    }
    return (json.dumps(doc, indent=2, ensure_ascii=False, sort_keys=True) + "\n").encode()


_CONTEXT = {
    "@language": "en", "@vocab": "https://schema.org/", "citeAs": "cr:citeAs", "column": "cr:column",
    "conformsTo": "dct:conformsTo", "cr": "http://mlcommons.org/croissant/",
    "data": {"@id": "cr:data", "@type": "@json"}, "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/", "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"}, "extract": "cr:extract", "field": "cr:field",
    "fileProperty": "cr:fileProperty", "rai": "http://mlcommons.org/croissant/RAI/", "samplingRate": "cr:samplingRate",
    "fileObject": "cr:fileObject", "fileSet": "cr:fileSet", "format": "cr:format", "includes": "cr:includes",
    "isLiveDataset": "cr:isLiveDataset", "jsonPath": "cr:jsonPath", "key": "cr:key", "md5": "cr:md5",
    "parentField": "cr:parentField", "path": "cr:path", "recordSet": "cr:recordSet", "references": "cr:references",
    "regex": "cr:regex", "repeated": "cr:repeated", "replace": "cr:replace", "sc": "https://schema.org/",
    "separator": "cr:separator", "source": "cr:source", "subField": "cr:subField", "transform": "cr:transform",
}
_CR_TYPES = {"integer": "sc:Integer", "boolean": "sc:Boolean", "string": "sc:Text"}


def croissant(info: DatasetInfo, bouts_csv: tuple[str, str], columns: Sequence[str]) -> bytes:
    """Croissant 1.0 JSON-LD describing the bouts table (path, sha256)."""
    path, digest = bouts_csv
    doc = {
        "@context": _CONTEXT, "@type": "sc:Dataset", "conformsTo": "http://mlcommons.org/croissant/1.0",
        "name": f"forge-arena-{info.slug}", "description": f"{info.title}: {info.bouts} signed bouts ({info.version}).",
        "license": LICENSE_URL, "url": info.url, "version": "1.0.0", "datePublished": info.date,
        "creator": {"@type": "Organization", "name": AUTHOR}, "citeAs": bibtex(info).decode(),
        "keywords": ["AI agents", "benchmark", "safety"],
        "distribution": [{"@type": "cr:FileObject", "@id": "bouts.csv", "name": "bouts.csv", "contentUrl": path,
                          "encodingFormat": "text/csv", "sha256": digest}],
        "recordSet": [{"@type": "cr:RecordSet", "@id": "bouts", "name": "bouts", "field": [
            {"@type": "cr:Field", "@id": f"bouts/{c}", "name": c,
             "dataType": _CR_TYPES[_COLUMN_TYPES.get(c, "string")],
             "source": {"fileObject": {"@id": "bouts.csv"}, "extract": {"column": c}}} for c in columns]}],
    }
    return (json.dumps(doc, indent=2, ensure_ascii=False, sort_keys=True) + "\n").encode()
