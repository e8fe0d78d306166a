"""Tools: typed functions whose signature and docstring are the schema the agent sees.

A tool is a plain function ``def name(ctx: SomeContext, arg: T, ...) -> JSON`` with a
Google-style docstring. `@tool` reads the signature and the ``Args:`` section once,
builds a strict pydantic model for the arguments and the JSON schema from it, and
refuses a tool with no description or an undocumented parameter, so what the agent
reads and what runs cannot drift apart.

A tool's return annotation says what a successful call gives back: a ``TypedDict`` (or a
pydantic model) becomes the tool's `Tool.output_schema`, closed (``additionalProperties:
false``) at every level, so a key a tool returns without declaring it fails the schema. It is
served beside the tool (MCP's ``outputSchema``) but is no part of `Tool.spec`: the tools
digest in every signed header is the spec's, and stays as it was (ADR 0063).

`ToolBox.call` is the only way an agent touches a world. It never raises for an
agent's mistake: bad arguments, unknown IDs and refusals come back as a structured
`ToolError`, are recorded in the call history, and leave the world as it was (each
call runs in its own transaction, rolled back on any error).
"""

from __future__ import annotations

import functools
import inspect
import json
import math
import re
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

import docstring_parser
import orjson
import pydantic
import typing_extensions
from sqlmodel import Session

from sandboxes.kit.clock import VirtualClock
from sandboxes.kit.db import WorldDB
from sandboxes.kit.sql import Row

__all__ = [
    "CallRecord",
    "JsonValue",
    "Tool",
    "ToolBox",
    "ToolContext",
    "ToolDeclarationError",
    "ToolError",
    "ToolErrorKind",
    "ToolOutcome",
    "shape_schema",
    "tool",
]

JsonValue: TypeAlias = bool | int | str | Sequence["JsonValue"] | Mapping[str, "JsonValue"] | None
"""A JSON value as the arena writes it: no floats (money is integer minor units or a decimal string).
Read-only containers, so a ``list[dict[str, str]]`` a tool builds is one without a cast."""

ToolErrorKind = Literal[
    "bad_arguments", "unknown_tool", "not_found", "forbidden", "conflict", "limit",
    "declined", "upstream_timeout", "upstream_error", "internal",
]

MAX_STRING = 4000
"""Longest string argument a tool accepts: enough for a reply, too small to flood the log."""
MAX_INT = 2**53 - 1
"""Largest integer a tool call may carry (JSON's exact range; seeds, counts and money stay inside it)."""
MAX_ARGS_BYTES = 65_536
"""Largest JSON encoding of one call's arguments: room for a long report (a Hard v3
report of ~75 items is ~7 KB, with notes it can pass 16 KB) while each string stays
under `MAX_STRING`."""
PLAIN_DEPTH = 64
"""Nesting a plain result stays under: the log's own bound (`referee.agents.base.MAX_DEPTH`, a
test holds them equal); deeper, the referee cuts it, so it is not plain."""
_SURROGATE = re.compile("[\ud800-\udfff]")


class ToolDeclarationError(TypeError):
    """A tool is declared wrongly (no description, undocumented parameter, no context)."""


class ToolError(Exception):
    """What an agent's call gets back when it cannot be done. Raise it inside a tool."""

    def __init__(self, kind: ToolErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind: ToolErrorKind = kind
        self.message = message

    def as_json(self) -> dict[str, str]:
        return {"kind": self.kind, "message": self.message}


@dataclass
class ToolContext:
    """What a tool may touch: the world's database and clock.

    Everything a tool changes must live in the database, because a failed call is
    undone by rolling the transaction back. ``db`` reads and writes with statements
    built once (`WorldDB.get`, `rows`, `insert`, `update`, `run`); ``session`` is the
    ORM over the same rows, for a job that prefers it at many times the cost.
    """

    db: WorldDB
    clock: VirtualClock
    call_index: int = 0

    @property
    def session(self) -> Session:
        return self.db.session


@dataclass(frozen=True)
class ToolOutcome:
    """The result of one call, exactly as the agent sees it."""

    ok: bool
    result: Any = None
    """A `JsonValue` (`_to_json` refuses anything else); typed ``Any`` because policies and detectors
    read it by the tool's documented shape, as a model reads the JSON, and narrowing each read proves nothing more."""
    error: dict[str, str] | None = None
    plain: bool = field(default=False, compare=False)
    """The kit's word that `as_json` may be logged exactly as it is: only exact JSON types, no
    float, integers within ±`MAX_INT`, no lone surrogate, ASCII keys, nesting under `PLAIN_DEPTH`
    (what the referee's `_logged_as_is` checks); found while the result was copied, so the bout
    loop need not walk it again. False says nothing: the referee then checks for itself."""

    def as_json(self) -> dict[str, JsonValue]:
        if self.ok:
            return {"ok": True, "result": self.result}
        return {"ok": False, "error": self.error}


@dataclass(frozen=True)
class CallRecord:
    """One call in the order it was made: what detectors and goals read."""

    index: int
    name: str
    args: Any
    """The arguments as the agent sent them (a JSON object once the call validated, else whatever arrived)."""
    outcome: ToolOutcome
    mutates: bool
    forbidden: bool

    @property
    def ok(self) -> bool:
        return self.outcome.ok

    @property
    def result(self) -> Any:
        return self.outcome.result


@dataclass(frozen=True)
class Tool:
    """A declared tool: the function, its argument model and the schema the agent sees."""

    name: str
    description: str
    fn: Callable[..., Any]
    args_model: type[pydantic.BaseModel]
    mutates: bool
    returns: Any = None
    """The return annotation: what a successful call's result is (see `output_schema`)."""

    def spec(self) -> dict[str, JsonValue]:
        """The tool as an agent sees it: name, description, JSON schema of the arguments (the
        caller's own copy)."""
        return orjson.loads(self.spec_json)  # type: ignore[no-any-return]

    @functools.cached_property
    def spec_json(self) -> bytes:
        """`spec` as JSON: a fresh copy is a parse of these bytes, a tenth of a deep copy."""
        return orjson.dumps(self._spec)

    @functools.cached_property
    def _spec(self) -> dict[str, JsonValue]:
        # pydantic takes ~10 ms to build a schema; a tool's never changes, so build it once.
        schema = self.args_model.model_json_schema()
        schema.pop("title", None)
        for prop in schema.get("properties", {}).values():
            prop.pop("title", None)
        return {"name": self.name, "description": self.description, "parameters": schema}


    @functools.cached_property
    def output_schema(self) -> dict[str, Any] | None:
        """The JSON schema of a successful call's ``result``, from the return annotation; None when
        the annotation names no shape (a bare ``dict``). Every object in it is closed."""
        if not _is_shape(self.returns):
            return None
        schema = shape_schema(self.returns)
        schema.pop("title", None)
        return schema


def shape_schema(hint: Any) -> dict[str, Any]:
    """The JSON schema of the values of type ``hint`` (a TypedDict, a pydantic model, a union of
    them), every object in it closed: what a tool's result, or the MCP server's own, holds to."""
    schema = pydantic.TypeAdapter(hint).json_schema(mode="serialization")
    _close(schema)
    return schema


def _is_shape(hint: Any) -> bool:
    """Whether ``hint`` names a result's shape: a TypedDict or a pydantic model."""
    return typing_extensions.is_typeddict(hint) or (isinstance(hint, type) and issubclass(hint, pydantic.BaseModel))


def _close(node: Any) -> None:
    """Every object schema with properties gets ``additionalProperties: false``, and properties
    lose pydantic's titles (the name is the key already)."""
    if isinstance(node, dict):
        if isinstance(node.get("properties"), dict):
            node.setdefault("additionalProperties", False)
            for prop in node["properties"].values():
                if isinstance(prop, dict):
                    prop.pop("title", None)
        for value in node.values():
            _close(value)
    elif isinstance(node, list):
        for value in node:
            _close(value)


def tool(*, mutates: bool, same_args_as: Tool | None = None) -> Callable[[Callable[..., Any]], Tool]:
    """Declare a tool. ``mutates`` says whether it can change the world (replay needs it).

    ``same_args_as``: a tool that takes exactly the arguments this one does (names, types and
    defaults, in order), such as a quote and the booking it prices; this tool's arguments are
    described by that tool's ``Args:``, and its own docstring has none, so the two cannot drift apart.
    """

    def declare(fn: Callable[..., Any]) -> Tool:
        doc = docstring_parser.parse(fn.__doc__ or "")
        description = " ".join(
            part.strip() for part in (doc.short_description, doc.long_description) if part
        )
        if not description:
            raise ToolDeclarationError(f"tool {fn.__name__} has no description")
        arg_docs = {p.arg_name: (p.description or "").strip() for p in doc.params}
        hints = typing.get_type_hints(fn, localns={"JsonValue": JsonValue}, include_extras=True)
        params = list(inspect.signature(fn).parameters.values())
        if not params or params[0].name != "ctx":
            raise ToolDeclarationError(f"tool {fn.__name__} must take ctx first")
        if same_args_as is not None:
            arg_docs = _borrowed_docs(fn.__name__, params, hints, arg_docs, same_args_as)
        fields: dict[str, Any] = {}
        for p in params[1:]:
            if not arg_docs.get(p.name):
                raise ToolDeclarationError(f"tool {fn.__name__}: parameter {p.name!r} is undocumented")
            if p.name not in hints:
                raise ToolDeclarationError(f"tool {fn.__name__}: parameter {p.name!r} has no type")
            default = ... if p.default is inspect.Parameter.empty else p.default
            fields[p.name] = (hints[p.name], pydantic.Field(default, description=arg_docs[p.name]))
        model = pydantic.create_model(
            f"{fn.__name__}_arguments",
            __config__=pydantic.ConfigDict(extra="forbid", strict=True, str_max_length=MAX_STRING),
            **fields,
        )
        return Tool(fn.__name__, description, fn, model, mutates, hints.get("return"))

    return declare


def _borrowed_docs(name: str, params: list[inspect.Parameter], hints: dict[str, Any], own: dict[str, str],
                   other: Tool) -> dict[str, str]:
    """The descriptions of ``other``'s arguments, for a tool declared with the same ones.

    Raises:
        ToolDeclarationError: the tool documents arguments of its own, or its arguments are not
            ``other``'s (a name, a type, a default or the order differs).
    """
    if own:
        raise ToolDeclarationError(f"tool {name} takes {other.name}'s arguments: its docstring has no Args")
    theirs = list(inspect.signature(other.fn).parameters.values())[1:]
    their_hints = typing.get_type_hints(other.fn, localns={"JsonValue": JsonValue}, include_extras=True)
    mine = [(p.name, hints.get(p.name), p.default) for p in params[1:]]
    if mine != [(p.name, their_hints.get(p.name), p.default) for p in theirs]:
        raise ToolDeclarationError(f"tool {name} does not take {other.name}'s arguments")
    return {n: f.description or "" for n, f in other.args_model.model_fields.items()}


def _explain(err: pydantic.ValidationError) -> str:
    parts = []
    for e in err.errors(include_url=False, include_input=False):
        where = ".".join(str(x) for x in e["loc"]) or "arguments"
        parts.append(f"{where}: {e['msg']}")
    return "; ".join(parts[:8])


def _to_json(value: Any) -> JsonValue:
    """A tool's return value as the JSON the agent reads (a copy, so nothing a tool keeps can change
    it later); a float, a row or any other type is a bug in the tool."""
    return _JsonCopy().copy(value, 0)


class _JsonCopy:
    """One copy of a tool's value as JSON, noting on the way whether it is plain (`ToolOutcome.plain`)."""

    __slots__ = ("plain",)

    def __init__(self) -> None:
        self.plain = True

    def copy(self, value: Any, depth: int) -> JsonValue:
        kind = type(value)
        if kind is str:
            if not value.isascii() and _SURROGATE.search(value):
                self.plain = False
            return value  # type: ignore[no-any-return]
        if kind is int:
            if not -MAX_INT <= value <= MAX_INT:
                self.plain = False
            return value  # type: ignore[no-any-return]
        if kind is bool or value is None:
            return value  # type: ignore[no-any-return]
        if kind is dict:
            if depth >= PLAIN_DEPTH:
                self.plain = False
            copied: dict[str, JsonValue] = {}
            for k, v in value.items():  # a row's values are mostly text and numbers: kept without a call each
                if type(k) is not str:
                    k = str(k)
                if not k.isascii():
                    self.plain = False
                inner = type(v)
                if (inner is str and v.isascii()) or (inner is int and -MAX_INT <= v <= MAX_INT) or v is None:
                    copied[k] = v
                else:
                    copied[k] = self.copy(v, depth + 1)
            return copied
        if kind is list:
            if depth >= PLAIN_DEPTH:
                self.plain = False
            items: list[JsonValue] = []
            for v in value:  # as a dict's values: text and numbers kept without a call each
                inner = type(v)
                if (inner is str and v.isascii()) or (inner is int and -MAX_INT <= v <= MAX_INT) or v is None:
                    items.append(v)
                else:
                    items.append(self.copy(v, depth + 1))
            return items
        self.plain = False  # a model or a tuple: copied by the general rules, and walked again
        return _other_to_json(value)


def _other_to_json(value: Any) -> JsonValue:
    if isinstance(value, str | int):  # bool is an int
        return value
    if isinstance(value, pydantic.BaseModel):
        return _to_json(value.model_dump(mode="json"))
    if isinstance(value, Row):
        raise TypeError(f"a tool returned a {type(value).__name__}; return its model_dump()")
    if isinstance(value, list | tuple):
        return [_to_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _to_json(v) for k, v in value.items()}
    if isinstance(value, float):
        raise TypeError("tools never return floats; use int minor units or decimal strings")
    raise TypeError(f"a tool returned {type(value).__name__}, which is not JSON")


@dataclass
class ToolBox:
    """The tools of one world, bound to its context, with the history of every call."""

    tools: Sequence[Tool]
    ctx: ToolContext
    forbidden: frozenset[str] = frozenset()
    history: list[CallRecord] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._by_name = {t.name: t for t in self.tools}
        if len(self._by_name) != len(self.tools):
            raise ToolDeclarationError("two tools share a name")

    def specs(self) -> list[dict[str, JsonValue]]:
        """What the agent is shown, in a fixed order (the caller's own copy)."""
        return orjson.loads(b"[" + b",".join(t.spec_json for t in self.tools) + b"]")  # type: ignore[no-any-return]

    def outputs(self) -> Mapping[str, dict[str, Any]]:
        """Each tool's output schema by name, for the tools that declare a result shape: worked out
        only when read (a scripted bout never reads it), and shared, so read-only."""
        return _Outputs(self._by_name)

    def mutates(self, name: str) -> bool:
        found = self._by_name.get(name)
        return bool(found and found.mutates)

    def call(self, name: str, args: object) -> ToolOutcome:
        """Run one call; any failure is an outcome for the agent, never an exception."""
        found = self._by_name.get(name) if isinstance(name, str) else None
        size = _json_size(args)  # once: the size check and the history both need it
        outcome = self._run(found, name, args, size)
        self.history.append(
            CallRecord(
                index=len(self.history),
                name=str(name),
                args=args if size is not None else _preview(args),
                outcome=outcome,
                mutates=bool(found and found.mutates),
                forbidden=name in self.forbidden,
            )
        )
        return outcome

    def _run(self, found: Tool | None, name: object, args: object, size: int | None) -> ToolOutcome:
        if found is None:
            known = ", ".join(sorted(self._by_name))
            return _fail("unknown_tool", f"no tool named {str(name)[:80]!r}; tools are: {known}")
        if not isinstance(args, dict):
            return _fail("bad_arguments", "arguments must be a JSON object")
        if size is None:
            try:
                json.dumps(args, ensure_ascii=False, allow_nan=False)
            except RecursionError:
                return _fail("bad_arguments", "arguments are nested too deeply")
            except (TypeError, ValueError):
                pass
            return _fail("bad_arguments", "arguments must be plain JSON (no NaN or Infinity)")
        if size > MAX_ARGS_BYTES:
            return _fail("limit", f"arguments are {size} bytes; the limit is {MAX_ARGS_BYTES}")
        if size and _unsafe_int(args):  # 0: `_simple` walked them and found every integer safe
            return _fail("bad_arguments", f"integers in a tool call are at most {MAX_INT} in size")
        try:
            parsed = found.args_model.model_validate(args)
        except pydantic.ValidationError as err:
            return _fail("bad_arguments", _explain(err))
        db = self.ctx.db
        self.ctx.call_index = len(self.history)
        before = db.changes()
        try:
            value = found.fn(self.ctx, **parsed.__dict__)  # the fields, validated (extra="forbid")
            copy = _JsonCopy()
            result = copy.copy(value, 1)  # one level down: the log holds it as {"ok": true, "result": ...}
            if found.mutates:
                db.commit()
        except ToolError as err:
            _undo(db, found.mutates)
            return ToolOutcome(ok=False, error=err.as_json())
        except Exception as err:  # a tool bug must not end the bout; tests assert none happen
            _undo(db, found.mutates)
            return _fail("internal", f"the tool failed unexpectedly ({type(err).__name__})")
        if not found.mutates and (db.changes() != before or _pending(db)):
            db.rollback()  # a read-only tool must not change the world; refuse loudly
            return _fail("internal", f"read-only tool {found.name} tried to change the world")
        return ToolOutcome(ok=True, result=result, plain=copy.plain)


class _Outputs(Mapping[str, dict[str, Any]]):
    """`ToolBox.outputs`: the schemas built on first read (pydantic takes milliseconds a tool)."""

    def __init__(self, tools: Mapping[str, Tool]) -> None:
        self._tools = tools

    def __getitem__(self, name: str) -> dict[str, Any]:
        schema = self._tools[name].output_schema
        if schema is None:
            raise KeyError(name)
        return schema

    def __iter__(self) -> typing.Iterator[str]:
        return (name for name, t in self._tools.items() if t.output_schema is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def _pending(db: WorldDB) -> bool:
    """Whether the ORM holds changes not yet written (a job that uses the session)."""
    session = db.orm
    return session is not None and bool(session.new or session.dirty or session.deleted)


def _undo(db: WorldDB, mutates: bool) -> None:
    """Roll a failed call back. A read-only tool wrote nothing, and a rollback would
    empty the ORM's cache for nothing, so it is only done when there is something to undo."""
    if mutates or _pending(db) or db.in_transaction():
        db.rollback()


def _fail(kind: ToolErrorKind, message: str) -> ToolOutcome:
    return ToolOutcome(ok=False, error={"kind": kind, "message": message})


def _unsafe_int(value: object) -> bool:
    """Whether any integer in ``value`` lies outside ±(2^53-1): beyond it JSON numbers stop being
    exact and SQLite's integers overflow, so such a value is the agent's bad argument, refused
    here for every tool rather than failing inside one as an internal error."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, bool):
            continue
        if isinstance(item, int) and abs(item) > MAX_INT:
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _preview(value: object) -> str:
    """A short text of arguments that are not plain JSON; deep nesting has no repr."""
    try:
        return repr(value)[:200]
    except RecursionError:
        return "(arguments nested too deeply)"


def _json_size(value: object) -> int | None:
    """The length of ``value`` as JSON text (``json.dumps`` with ``ensure_ascii=False``: the size
    limit's measure), or None if it is not plain JSON (NaN, a set, a cycle ...).

    Arguments are almost always a few small plain values, so they are first written compactly
    by orjson: its length in bytes is at least a third of the stdlib's text in characters (which
    adds a space after each comma and colon and spells a float's exponent at most two characters
    longer), so a short one is under the limit without its exact size; 0 stands for that. Only
    exact JSON types take that path, so what it accepts is exactly what ``json.dumps`` accepts,
    and only integers within ±(2^53−1), so 0 also says none is unsafe (`_unsafe_int`).
    """
    if _simple(value):
        try:
            if 3 * len(orjson.dumps(value)) <= MAX_ARGS_BYTES:
                return 0
        except orjson.JSONEncodeError:
            pass  # an integer past 64 bits, or nesting past 255 levels: measured the slow way
    try:
        return len(json.dumps(value, ensure_ascii=False, allow_nan=False))
    except (TypeError, ValueError, RecursionError):
        return None


def _simple(value: object, most: int = 10_000) -> bool:
    """Whether ``value`` holds only exact str, int within ±(2^53−1), bool, None, finite floats,
    str-keyed dicts and lists, in at most ``most`` values (so a cycle ends the walk rather than
    the bout)."""
    stack: list[Any] = [value]
    for item in stack:  # grows as containers are met
        kind = type(item)
        if kind is str or kind is bool or item is None:
            pass
        elif kind is int:
            if not -MAX_INT <= item <= MAX_INT:
                return False
        elif kind is dict:
            if any(type(k) is not str for k in item):
                return False
            stack += item.values()
        elif kind is list:
            stack += item
        elif kind is not float or not math.isfinite(item):
            return False
        if len(stack) > most:
            return False
    return True
