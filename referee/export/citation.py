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
from referee.export.dictionary import BOUTS, TABLES, Column, Table, pandas_dtypes

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
    shipped_keys: Sequence[str] = ()
    """Key ids whose public keys the dataset ships in keys/ (the signer's first)."""
    parquet: bool = False

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


def _dictionary() -> str:
    parts = []
    for table in TABLES:
        rows = "\n".join(f"| `{c.name}` | {c.type}{' (nullable)' if c.nullable else ''} | {c.unit or '-'} | "
                         f"{c.meaning.replace('|', '/')} |" for c in table.columns)
        parts.append(f"### `{table.path}`\n\n{table.about}\n\n| column | type | unit | meaning |\n"
                     f"|---|---|---|---|\n{rows}")
    return "\n\n".join(parts)


def _loading(info: DatasetInfo) -> str:
    dtypes = json.dumps(pandas_dtypes(BOUTS), sort_keys=True)
    lists = ", ".join(f'"{c.name}"' for c in BOUTS.columns if c.type == "list")
    parquet = ('`data/bouts.parquet` carries the types itself: `pandas.read_parquet("data/bouts.parquet")`.\n\n'
               if info.parquet else "")
    return (f"{parquet}From CSV, give pandas the types (text stays text: `rules_version` \"0.4\" is not 0.4):\n\n"
            "```python\nimport pandas as pd\n"
            f"DTYPES = {dtypes}\n"
            "bouts = pd.read_csv(\"data/bouts.csv\", dtype=DTYPES, true_values=[\"true\"], "
            "false_values=[\"false\"])\n"
            f"for column in [{lists}]:\n"
            "    bouts[column] = bouts[column].fillna(\"\").str.split(\";\").map(lambda v: [x for x in v if x])\n"
            "```\n\nOr `pd.read_json(\"data/bouts.jsonl\", lines=True, dtype={\"rules_version\": str})`.")


def _charts(charts: Sequence[tuple[str, str]]) -> str:
    if not charts:
        return "- (no board to draw)"
    return ("Each rate is a mark and each whisker its 95% Wilson interval: where two agents' whiskers overlap, "
            "the difference between them may be chance. The numbers are in `data/leaderboard.csv` and "
            "`data/failure_modes.csv`; each image's description says them in words.\n\n"
            + "\n\n".join(f"![{alt.replace(']', ')')}]({path})" for path, alt in charts))


def card(info: DatasetInfo, files: Sequence[str], charts: Sequence[tuple[str, str]] = ()) -> bytes:
    """README.md: a dataset card with the Hugging Face YAML header; ``charts`` are (path, text
    alternative) of the board charts it shows as images."""
    size = "n<1K" if info.bouts < 1_000 else "1K<n<10K" if info.bouts < 10_000 else "10K<n<100K" \
        if info.bouts < 100_000 else "100K<n<1M"
    seeds = "\n".join(f"- `{season}` {cell}: {', '.join(map(str, s))}"
                      for season, cells in info.seeds.items() for cell, s in cells.items())
    roots = "\n".join(f"- `{n}`: {s['size']} bouts, Merkle root `{s['merkle_root']}`" for n, s in info.seasons.items())
    hf = {"string": "string", "integer": "int64", "number": "float64", "boolean": "bool", "list": "string"}
    features = "\n".join(
        f"    - name: {c.name}\n" + ("      sequence: string" if c.type == "list" and info.parquet
                                    else f"      dtype: {hf[c.type]}") for c in BOUTS.columns)
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
        path: {"data/bouts.parquet" if info.parquet else "data/bouts.csv"}
dataset_info:
  features:
{features}
---

# {info.title}

{info.bouts} bouts of AI agents doing business jobs in seeded sandboxes, refereed against the
Forge Arena trap catalogue. Versions: {info.version}. Each row names the public IDs of the traps it
sprang (`traps_sprung`), under its `rules_version` and `task_version`.

## Files

{chr(10).join(f"- `{f}`" for f in files)}

## Charts

{_charts(charts)}

## Seeds

{seeds or "- (bouts run outside a season)"}

## Seasons

{roots or "- none"}

## How to verify

`arena dataset verify DIR` checks the manifest signature, the SHA-256 of every file, each season's
Merkle root over its bout logs, and the signature of every bout log, with the public keys this
dataset ships in `keys/` (`keys/keyring.json` says when each was in use, so logs signed before a
key rotation verify too). The manifest is signed by key id `{info.key_id}`, the publisher's arena
signing key (`ARENA_HOME/keys/arena.pub` on the machine that exported it); keys shipped:
{", ".join(f"`{k}`" for k in info.shipped_keys) or "none"}. The shipped keys prove the files are intact and were
signed together; to know *who* signed them, compare that key id with the one the publisher states
elsewhere, or pass your own copy: `arena dataset verify DIR --key PUBLIC_KEY_FILE_OR_FOLDER`.
`sha256sum -c SHA256SUMS` checks the hashes alone.

## Loading

{_loading(info)}

## Data dictionary

Types: `string`, `integer`, `number`, `boolean` (`true`/`false` in CSV), `list` (of strings: a JSON
array in JSON Lines and Parquet, `;`-joined in CSV, empty for none). Nullable columns are empty in
CSV and null in JSON Lines and Parquet. Scores are in basis points (0-10000); costs in micro-USD
(`cost_micro_usd`) per bout and USD on the leaderboard; rates are fractions from 0 to 1.

{_dictionary()}

## How to cite

```bibtex
{bibtex(info).decode().strip()}
```

Licence: {LICENSE} ({LICENSE_URL}).
"""
    return text.encode()


_FRICTIONLESS = {"string": "string", "integer": "integer", "number": "number", "boolean": "boolean",
                 "list": "list"}


def _field(c: Column) -> dict[str, Any]:
    field: dict[str, Any] = {"name": c.name, "type": _FRICTIONLESS[c.type], "description": c.meaning}
    if c.unit:
        field["unit"] = c.unit
    if c.type == "boolean":
        field |= {"trueValues": ["true"], "falseValues": ["false"]}
    if c.type == "list":
        field |= {"delimiter": ";", "itemType": "string"}
    if not c.nullable and c.type in ("integer", "boolean"):
        field["constraints"] = {"required": True}
    return field


def _resource(table: Table, digest: str, size: int, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    return {"name": table.name, "path": table.path, "description": table.about, "profile": "tabular-data-resource",
            "format": "csv", "mediatype": "text/csv", "encoding": "utf-8", "bytes": size, "hash": f"sha256:{digest}",
            "dialect": {"delimiter": ",", "lineTerminator": "\n", "header": True},
            "schema": {"fields": [_field(c) for c in table.columns], "missingValues": [""], **(extra or {})}}


def datapackage(info: DatasetInfo, tables: Mapping[str, tuple[str, int]]) -> bytes:
    """Frictionless Data Package: every CSV table with every field described (type, unit,
    meaning; lists as ``list`` with delimiter ``;``). ``tables`` maps name -> (sha256, bytes)."""
    keys: dict[str, dict[str, Any]] = {
        "bouts": {"primaryKey": ["bout_id"]},
        "traps": {"primaryKey": ["id"]},
        "bout_traps": {"foreignKeys": [
            {"fields": ["bout_id"], "reference": {"resource": "bouts", "fields": ["bout_id"]}},
            {"fields": ["trap_id"], "reference": {"resource": "traps", "fields": ["id"]}}]},
    }
    by_name = {t.name: t for t in TABLES}
    doc = {
        "name": f"forge-arena-{info.slug}", "title": info.title, "version": info.version,
        "created": f"{info.date}T00:00:00Z",
        "licenses": [{"name": LICENSE, "path": LICENSE_URL, "title": "Creative Commons Attribution 4.0"}],
        "resources": [_resource(by_name[n], d, b, keys.get(n)) for n, (d, b) in tables.items()],
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
_CR_TYPES = {"integer": "sc:Integer", "boolean": "sc:Boolean", "string": "sc:Text", "number": "sc:Float",
             "list": "sc:Text"}


def croissant(info: DatasetInfo, tables: Mapping[str, str]) -> bytes:
    """Croissant 1.0 JSON-LD: one FileObject and one RecordSet per CSV table (``tables``: name ->
    sha256), every field described; a list field is ``repeated``, split on ``;``."""
    by_name = {t.name: t for t in TABLES}

    def field(table: Table, c: Column) -> dict[str, Any]:
        extract: dict[str, Any] = {"column": c.name}
        out: dict[str, Any] = {
            "@type": "cr:Field", "@id": f"{table.name}/{c.name}", "name": c.name,
            "description": c.meaning + (f" Unit: {c.unit}." if c.unit else ""), "dataType": _CR_TYPES[c.type],
            "source": {"fileObject": {"@id": f"{table.name}.csv"}, "extract": extract}}
        if c.type == "list":
            out["repeated"] = True
            out["source"]["transform"] = {"regex": "([^;]+)"}
        return out

    doc = {
        "@context": _CONTEXT, "@type": "sc:Dataset", "conformsTo": "http://mlcommons.org/croissant/1.0",
        "name": f"forge-arena-{info.slug}", "description": f"{info.title}: {info.bouts} signed bouts ({info.version}).",
        "license": LICENSE_URL, "url": info.url, "version": "1.0.0", "datePublished": info.date,
        "creator": {"@type": "Organization", "name": AUTHOR}, "citeAs": bibtex(info).decode(),
        "keywords": ["AI agents", "benchmark", "safety"],
        "distribution": [{"@type": "cr:FileObject", "@id": f"{n}.csv", "name": f"{n}.csv",
                          "contentUrl": by_name[n].path, "encodingFormat": "text/csv", "sha256": d}
                         for n, d in tables.items()],
        "recordSet": [{"@type": "cr:RecordSet", "@id": n, "name": n, "description": by_name[n].about,
                       "field": [field(by_name[n], c) for c in by_name[n].columns]} for n in tables],
    }
    return (json.dumps(doc, indent=2, ensure_ascii=False, sort_keys=True) + "\n").encode()
