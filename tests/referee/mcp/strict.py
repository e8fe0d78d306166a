"""A strict-mode checker written from OpenAI's documented rules for strict function calling
(Structured Outputs, "Supported schemas"), and the conversion frameworks apply to make a tool strict.

The rules: a tool's name is 1 to 64 of ``a-z A-Z 0-9 _ -``; the parameters' root is an object
(not an ``anyOf``); every object lists every property in ``required`` and sets
``additionalProperties: false``; nesting stays within 10 levels; only the documented keywords
appear (strings: ``pattern``, ``format``; numbers: ``multipleOf``, ``minimum``, ``maximum`` and the
exclusive pair; arrays: ``minItems``, ``maxItems``; plus ``enum``, ``const``, ``anyOf``, ``$ref``,
``$defs``, ``description``, ``title``): ``default`` and ``maxLength`` among the refused ones; at
most 5000 object properties and 1000 enum values in one schema, and 120,000 characters of property
names, enum values and consts. A description the arena keeps to 1024 characters, its own budget,
so that no framework cuts one.
"""

from __future__ import annotations

import copy
import re
from typing import Any

NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
DESCRIPTION_BUDGET = 1024
MAX_NESTING = 10
MAX_PROPERTIES = 5000
MAX_ENUM_VALUES = 1000
MAX_STRING_BUDGET = 120_000
ALLOWED = frozenset({
    "type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "$ref", "$defs",
    "description", "title", "pattern", "format", "multipleOf", "minimum", "maximum", "exclusiveMinimum",
    "exclusiveMaximum", "minItems", "maxItems",
})


def name_problems(name: str, description: str) -> list[str]:
    problems = []
    if not NAME.fullmatch(name):
        problems.append(f"name {name!r} is not 1-64 of a-z A-Z 0-9 _ -")
    if not description.strip():
        problems.append(f"{name}: no description")
    if len(description) > DESCRIPTION_BUDGET:
        problems.append(f"{name}: description of {len(description)} characters")
    return problems


def strict_problems(schema: dict[str, Any]) -> list[str]:
    """What strict mode would refuse in a tool's parameter schema; empty when it accepts it."""
    problems: list[str] = []
    if schema.get("type") != "object" or "anyOf" in schema:
        problems.append("the root is not a plain object")
    _walk(schema, "$", 0, problems)
    props, enums, chars = _sizes(schema)
    if props > MAX_PROPERTIES:
        problems.append(f"{props} object properties")
    if enums > MAX_ENUM_VALUES:
        problems.append(f"{enums} enum values")
    if chars > MAX_STRING_BUDGET:
        problems.append(f"{chars} characters of names, enum values and consts")
    return problems


def _sizes(node: Any) -> tuple[int, int, int]:
    """Object properties, enum values and the characters of names, enum values and consts in a schema."""
    props = enums = chars = 0
    if isinstance(node, dict):
        names = node.get("properties") or {}
        props += len(names)
        chars += sum(len(n) for n in names)
        values = node.get("enum") or []
        enums += len(values)
        chars += sum(len(v) for v in values if isinstance(v, str))
        chars += len(node["const"]) if isinstance(node.get("const"), str) else 0
        for inner in [*names.values(), *(node.get("$defs") or {}).values(), *(node.get("anyOf") or []),
                      node.get("items")]:
            p, e, c = _sizes(inner)
            props, enums, chars = props + p, enums + e, chars + c
    return props, enums, chars


def _walk(node: Any, where: str, depth: int, problems: list[str]) -> None:
    if not isinstance(node, dict):
        problems.append(f"{where}: not a schema")
        return
    if depth > MAX_NESTING:
        problems.append(f"{where}: nested deeper than {MAX_NESTING}")
    for key in node:
        if key not in ALLOWED:
            problems.append(f"{where}: keyword {key!r} is not supported")
    props = node.get("properties")
    if node.get("type") == "object" or props is not None:
        if node.get("additionalProperties") is not False:
            problems.append(f"{where}: additionalProperties is not false")
        if sorted(node.get("required", [])) != sorted(props or {}):
            problems.append(f"{where}: not every property is required")
    for name, inner in (props or {}).items():
        _walk(inner, f"{where}.{name}", depth + 1, problems)
    for name, inner in (node.get("$defs") or {}).items():
        _walk(inner, f"{where}/$defs/{name}", depth, problems)
    for i, inner in enumerate(node.get("anyOf") or []):
        _walk(inner, f"{where}|{i}", depth, problems)
    if "items" in node:
        _walk(node["items"], f"{where}[]", depth + 1, problems)


def as_strict(schema: dict[str, Any]) -> dict[str, Any]:
    """The conversion a framework applies to make a tool strict (as the OpenAI Agents SDK's
    ``ensure_strict_json_schema`` does): every object closed and every property required."""
    out = copy.deepcopy(schema)
    _convert(out)
    return out


def _convert(node: Any) -> None:
    if isinstance(node, dict):
        if node.get("type") == "object" or "properties" in node:
            node.setdefault("additionalProperties", False)
            node["required"] = list(node.get("properties") or {})
        for key in ("properties", "$defs"):
            for inner in (node.get(key) or {}).values():
                _convert(inner)
        for inner in node.get("anyOf") or []:
            _convert(inner)
        if "items" in node:
            _convert(node["items"])
