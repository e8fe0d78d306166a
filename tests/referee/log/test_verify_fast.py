"""The fast readers refuse exactly what the strict paths refuse (ADR 0028).

`arena verify` reads a canonical envelope by slicing its frame (`signing._open_canonical`),
a canonical log with pydantic-core's reader and writer (`log._canonical_events`), and checks
each event's shape without building its model (`log._SHAPE`). Each is trusted only where it
gives what the strict path gives; these tests switch the fast path off and compare.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator
from typing import Any, get_args

import pytest

import referee.log.chain as log_module
import referee.log.signing as signing_module
from referee.errors import ArenaError, LogShapeError
from referee.log.chain import EventType, LogWriter, parse_log
from referee.log.events import validate_event
from referee.log.signing import ArenaKey, Keyring, envelope_bytes, open_envelope, sign_envelope
from referee.log.verify import verify_bytes
from tests.referee.shapes import header, result


def _log(key: ArenaKey, pad: str = "") -> LogWriter:
    w = LogWriter(now=lambda: "2026-11-30T00:00:00.000000Z")
    w.append("bout.header", header(key_id=key.key_id))
    w.append("model.turn", {"turn": 1, "text": "Zähle \n \"eins\"" + pad,
                            "calls": [{"name": "look", "args": {"b": [1, {}], "a": None}}],
                            "usage": {"input_tokens": 3, "output_tokens": 4}})
    w.append("tool", {"call": 0, "name": "look", "args": {"b": [1, {}], "a": None}, "ok": True, "mutates": False,
                      "forbidden": False, "result": {"rows": [{"id": "R-1", "n": -2}], "note": "\u2028\x7f\x00"}})
    w.append("bout.result", result())
    return w


def _outcome(fn: Any, *args: Any) -> Any:
    try:
        got = fn(*args)
    except ArenaError as err:
        return type(err), str(err)
    return getattr(got, "status", None), getattr(got, "reason", None), getattr(got, "log", got)


def _strict(fn: Any, *args: Any) -> Any:
    """``fn`` with both fast readers switched off."""
    saved = signing_module._open_canonical, log_module._canonical_events
    signing_module._open_canonical = lambda *_a: None
    log_module._canonical_events = lambda _d: None  # type: ignore[assignment]
    try:
        return _outcome(fn, *args)
    finally:
        signing_module._open_canonical, log_module._canonical_events = saved


def _document_changes(doc: bytes) -> Iterator[tuple[str, bytes]]:
    yield "as written", doc
    yield "space after a colon", doc.replace(b'"seq":1', b'"seq": 1', 1)
    yield "keys reordered", doc.replace(b'"input_tokens":3,"output_tokens":4', b'"output_tokens":4,"input_tokens":3')
    yield "nested keys reordered", doc.replace(b'"args":{"a":null,"b":[1,{}]}', b'"args":{"b":[1,{}],"a":null}', 1)
    yield "float", doc.replace(b'"n":-2', b'"n":-2.0')
    yield "exponent", doc.replace(b'"n":-2', b'"n":-2e0')
    yield "minus zero", doc.replace(b'"n":-2', b'"n":-0')
    yield "big integer", doc.replace(b'"n":-2', b'"n":-9007199254740992')
    yield "duplicate key", doc.replace(b'"n":-2', b'"n":-2,"n":-2')
    yield "escaped letter", doc.replace(b'"id":"R-1"', b'"id":"\\u0052-1"')
    yield "escaped slash", doc.replace(b'"id":"R-1"', b'"id":"R\\/1"')
    yield "upper-case escape", doc.replace(b"\\u0000", b"\\u000A")
    yield "long escape", doc.replace(b"\\n", b"\\u000a")
    yield "NaN", doc.replace(b'"n":-2', b'"n":NaN')
    yield "lone surrogate", doc.replace(b'"id":"R-1"', b'"id":"\\ud800"')
    yield "a character above U+E000", doc.replace(b'"id":"R-1"', '"id":"\ufb33"'.encode())
    yield "trailing space", doc + b" "
    yield "version true", doc.replace(b',"v":1}', b',"v":true}')
    for at in range(0, len(doc), 7):
        yield f"byte {at} changed", doc[:at] + bytes([doc[at] ^ 0x01]) + doc[at + 1:]


def test_the_fast_log_reader_and_the_strict_path_agree_on_every_change(key: ArenaKey) -> None:
    doc = _log(key).document()
    assert log_module._canonical_events(doc) is not None  # the writer's log takes the fast path
    for name, changed in _document_changes(doc):
        got = _outcome(parse_log, changed)
        assert got == _strict(parse_log, changed), name
        if changed != doc:  # any change is refused, and the error names it as the strict path does
            assert isinstance(got[0], type) and issubclass(got[0], ArenaError), name


def _envelope_changes(good: bytes, key: ArenaKey) -> Iterator[tuple[str, bytes]]:
    doc = json.loads(good)
    sig = base64.b64decode(doc["signatures"][0]["sig"])
    yield "as written", good
    yield "url-safe alphabet", good.replace(b"+", b"-").replace(b"/", b"_")
    yield "no padding", good.replace(b'=","sig"', b'","sig"').replace(b'=="}]', b'"}]')
    last = doc["signatures"][0]["sig"]
    spare = last[:-3] + chr(ord(last[-3]) + 1) + "=="  # a spare bit set: same signature, other spelling
    yield "spare bits", good.replace(last.encode(), spare.encode())
    payload_text = doc["payload"]
    if payload_text.endswith("="):
        pad = len(payload_text) - len(payload_text.rstrip("="))
        body = payload_text[:-pad]
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
        bumped = body[:-1] + alphabet[alphabet.index(body[-1]) + 1] + "=" * pad
        yield "payload spare bits", good.replace(payload_text.encode(), bumped.encode())
    yield "keys reordered", json.dumps({"payloadType": doc["payloadType"], "payload": doc["payload"],
                                        "signatures": doc["signatures"]}, separators=(",", ":")).encode()
    yield "whitespace", json.dumps(doc).encode()
    yield "extra field", good[:-1] + b',"x":1}'
    yield "two signatures", good.replace(b"}]}", b"},{\"keyid\":\"a\",\"sig\":\"\"}]}")
    yield "other payload type", envelope_bytes(sign_envelope(key, base64.b64decode(doc["payload"]), "text/plain"))
    yield "unknown keyid", good.replace(key.key_id.encode(), b"0" * 64)
    yield "signature changed", good.replace(last.encode(), base64.b64encode(bytes(64)))
    yield "escaped payload type", good.replace(b'"payloadType":"application/', b'"payloadType":"application\\/')
    yield "not json", good[:-1]
    yield "signature of other bytes", good.replace(last.encode(), base64.b64encode(sig[::-1]))


@pytest.mark.parametrize("pad", ["", "x", "xy"])  # payloads of each length mod 3: padded or not
def test_the_fast_envelope_reader_and_the_strict_path_agree(key: ArenaKey, ring: Keyring, pad: str) -> None:
    good = envelope_bytes(sign_envelope(key, _log(key, pad).document()))
    fast_taken = []
    for name, changed in _envelope_changes(good, key):
        assert _outcome(open_envelope, changed, ring) == _strict(open_envelope, changed, ring), name
        assert _outcome(verify_bytes, changed, ring) == _strict(verify_bytes, changed, ring), name
        if signing_module._open_canonical(changed, ring, signing_module.PAYLOAD_TYPE) is not None:
            fast_taken.append(name)
    assert fast_taken == ["as written"]  # every other spelling is left to the strict path


def _mutations(value: Any) -> Iterator[Any]:
    yield from (True, False, 0, 1, -1, 2**53, 1.5, "x", "", None, [], {}, ["x"], {"x": 1})
    if isinstance(value, dict):
        for k in list(value):
            yield {kk: vv for kk, vv in value.items() if kk != k}
        yield {**value, "extra": 1}


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*path, i))


def _replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = _replaced(value[path[0]], path[1:], new)
    return copy


def _passes(check: Callable[[int, Any], object], event: Any) -> bool:
    """Whether ``check`` (a shape check or `validate_event`) takes ``event``; any other error is a bug."""
    try:
        check(0, event)
        return True
    except LogShapeError:
        return False


def test_the_shape_check_refuses_exactly_what_the_models_refuse(key: ArenaKey) -> None:
    """Every value of every event, replaced by each of a set of wrong (and right) values, or its
    member dropped or joined by an extra one: checked without models (whole, and as the writer
    and reader check it: its own members by hand, its data by its type's schema) and with them,
    the same."""
    others = LogWriter(now=lambda: "2026-11-30T00:00:00.000000Z")  # the event types a finished bout may lack
    others.append("cap.reached", {"cap": "turns", "limit": 40})
    others.append("pause", {"reason": "rate_limited", "detail": "429", "retry_after_ms": 500, "turns": 2,
                            "tool_calls": 3})
    others.append("resume", {"after_event": 4, "replayed_calls": 3, "pending_calls": 0})
    others.append("agent.error", {"turn": 3, "kind": "timed_out", "detail": "no reply in 30 s"})
    others.append("agent.stderr", {"bytes_written": 9000, "bytes_kept": 8192, "text": "Traceback\n"})
    others.append("model.turn", {"turn": 4, "text": "", "cut_off": True, "dropped": 2, "usage": {
        "input_tokens": 9, "output_tokens": 0}, "calls": [{"name": "a", "args": "{", "id": "c-1"},
                                                          {"name": "b", "args": {}, "id": None}]})
    others.append("tool", {"call": 1, "name": "b", "args": {}, "ok": False, "mutates": True, "forbidden": True,
                           "error": {"kind": "not_found", "message": "no such row"}})
    events = [*_log(key).events, *others.events]
    assert {e["type"] for e in events} == set(get_args(EventType))
    checked = 0
    for event in events:
        changes = [changed for changed in _mutations(event) if isinstance(changed, dict)]  # a member dropped or added
        for path in _paths(event):
            if not path:
                continue
            target: Any = event
            for step in path:
                target = target[step]
            changes += [_replaced(event, path, new) for new in _mutations(target)]
        for changed in changes:
            model_ok = _passes(validate_event, changed)
            assert _passes(log_module._check_shape, changed) == model_ok, changed
            assert _passes(log_module._check_event, changed) == model_ok, changed
            raw_ok = True
            try:
                log_module._SHAPE.validate_python(changed)
            except Exception:
                raw_ok = False
            assert raw_ok == model_ok, changed
            checked += 1
    assert checked > 1000


def test_written_tool_events_and_turns_take_the_hand_check(key: ArenaKey) -> None:
    """The shape test above proves the hand checks never take what the models refuse; this, that
    they take what the writer writes, so the schema is left only the rare rest."""
    turn = {"turn": 2, "text": "", "calls": [{"name": "a", "args": {}, "id": "x"}], "cut_off": True, "dropped": 1,
            "usage": {"input_tokens": 1, "output_tokens": 2}}
    failed = {"call": 0, "name": "a", "args": {}, "ok": False, "mutates": False, "forbidden": False, "error": {}}
    events = [e["data"] for e in _log(key).events if e["type"] in ("tool", "model.turn")]
    assert len(events) == 2
    assert all(log_module._PLAIN_DATA[kind](data) for kind, data in (
        ("model.turn", events[0]), ("tool", events[1]), ("model.turn", turn), ("tool", failed)))
    assert not log_module._plain_tool_data({**failed, "ok": True})  # left to the schema, which refuses it
