"""A hostile model, end to end: a loopback OpenAI-compatible server answers with tool calls no
well-behaved model sends, and `arena run`, `arena resume`, `arena verify` and `arena replay` run
on them through `main()`, the installed command's entry point (ISSUE13, "Fuzz this end to end").

Hypothesis chooses each bout's turns from floats of every magnitude, NaN and Infinity
literals, 5,000-deep nesting, strings of megabytes, duplicate keys, arguments that are not an
object, invalid UTF-8, lone surrogates, malformed JSON, unknown tool names and thousands of calls
in one turn, and whether the bout pauses (the provider refuses a request) before it is resumed.
Whatever comes: no traceback, no internal error (exit 3), every bout finishes or pauses, and
every signed log written verifies and replays.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import io
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.cli import main
from referee.log.chain import parse_log
from referee.store.results import Store
from tests.referee.agents.fakes import Canned, canned, spliced_reply

Call = tuple[bytes, bytes]


def _string(text: str) -> bytes:
    """``text`` as a JSON string literal, the way a model sends its arguments."""
    return json.dumps(text).encode()


def _bump(amount: str) -> Call:
    return b'"bump"', _string('{"amount": ' + amount + "}")


NUMBERS = ["1e16", "-1e16", "1180591620717411303424", "9007199254740993", "1e308", "-1e308", "1e400", "-0.0",
           "5e-324", "9.99e20", "1e21", "2.5", "3", "3.0", "0.0", "NaN", "Infinity", "-Infinity"]
numbers = st.one_of(st.sampled_from(NUMBERS), st.floats().map(json.dumps),
                    st.integers(min_value=-(2**80), max_value=2**80).map(str)).map(_bump)

deep = st.tuples(st.sampled_from(["[", '{"a":']), st.sampled_from([1000, 5000])).map(
    lambda kind: _bump((kind[0] * kind[1]) + "1" + ("]" if kind[0] == "[" else "}") * kind[1]))

huge = st.sampled_from([70_000, 3_000_000]).map(lambda n: _bump('"' + "y" * n + '"'))

RAW: list[Call] = [
    _bump("1, \"amount\": 9"),  # duplicate keys
    (b'"bump"', b'[1]'), (b'"bump"', b"3"), (b'"bump"', b"null"), (b'"bump"', b"true"),  # not a string
    (b'"bump"', b'{"amount": 2}'), (b'"bump"', b'{"amount": NaN}'),  # an object, not a string
    (b'"bump"', _string("[1, 2]")), (b'"bump"', _string("3")), (b'"bump"', _string("null")),
    (b'"bump"', _string('"text"')),
    (b'"bump"', b'"{\\"amount\\": \\"\xff\xfe\\"}"'),  # invalid UTF-8 inside the arguments
    (b'"bump"', b'"{\\"amount\\": \\"\\ud800\\"}"'),  # a lone surrogate in the answer
    (b'"bump"', b'"{\\"amount\\": \\"\\\\udc00\\"}"'),  # a lone surrogate inside the arguments
    (b'"bump"', _string('{"amount": ')), (b'"bump"', _string("{amount: 1}")), (b'"bump"', _string("")),
    (b'"bump"', _string('{"amount": 1}}')), (b'"bump"', _string("\x00")),
    (b'"no_such_tool"', _string("{}")), (b'""', _string("{}")), (b'"\\udfff"', _string("{}")),
    (b"null", _string("{}")), (b"123", _string("{}")), (b'"\xc3\x28"', _string("{}")),
    (b'"' + b"n" * 100_000 + b'"', _string("{}")),
    (b'"read_counter"', _string("{}")), (b'"read_counter"', b'"{\\"x\\": Infinity}"'), _bump("1"),
    (b'"submit_report"', _string('{"status": "done", "items": [{"a": 1e16}]}')),
]
small = st.one_of(st.sampled_from(RAW), numbers)
calls = st.one_of(small, deep, huge)
storm = st.tuples(small, st.sampled_from([1000, 2500])).map(lambda c: [c[0]] * c[1])
turn = st.one_of(st.lists(calls, min_size=1, max_size=4), storm)
IDS = [b'"same"', b"null", b"123", b'{"a": 1}', b'"\\ud800"', b'"' + b"i" * 10_000 + b'"']


@st.composite
def bouts(draw: st.DrawFn) -> tuple[list[list[Call]], list[bytes] | None, bool]:
    turns = draw(st.lists(turn, min_size=1, max_size=3))
    ids = draw(st.none() | st.lists(st.sampled_from(IDS), min_size=1, max_size=1))
    return turns, ids, draw(st.booleans())


def arena(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with (contextlib.redirect_stdout(out), contextlib.redirect_stderr(out),
          pytest.MonkeyPatch.context() as patch):
        patch.setattr(sys, "argv", ["arena", *args])
        try:
            main()
            code: object = 0
        except SystemExit as done:
            code = done.code
    return (code if isinstance(code, int) else 1), out.getvalue()


def _no_crash(code: int, output: str, allowed: tuple[int, ...]) -> None:
    assert code in allowed and "Traceback" not in output and "internal error" not in output, (code, output[:2000])


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("referee.agents.http.Retry.delay", lambda self, attempt: 0.001)


def play(monkeypatch: pytest.MonkeyPatch, turns: list[list[Call]], ids: list[bytes] | None, pause: bool,
         content: bytes = b"null") -> Any:
    """Run one bout of the hostile model through the CLI, pause it if asked, resume it, and
    verify and replay every signed log: what each example checks."""
    answers = []
    for number, made in enumerate(turns, start=1):
        answers.append(spliced_reply(made, number, content, ids=None if ids is None else ids * len(made)))
    if pause:  # refused, not retried: the bout is parked for `arena resume`
        answers.append(canned(400, {"error": {"message": "we do not serve hostile models"}}))
    answers += [spliced_reply([], 99, content=_string("All done."))] * 2
    with tempfile.TemporaryDirectory() as tmp, Canned(answers).running() as server:
        home, out = Path(tmp) / "home", Path(tmp) / "out"
        monkeypatch.setenv("ARENA_HOME", str(home))
        common = ["--base-url", server.url + "/v1", "--out", str(out), "--retries", "0", "--json"]
        code, output = arena("run", "--agent", "openai:hostile", "--job", "toy", "--tier", "normal-1.0",
                             "--seeds", "1", "--attempts", "1", *common)
        _no_crash(code, output, (0, 4))
        code, output = arena("resume", *common)
        _no_crash(code, output, (0,))
        logs = sorted(out.glob("*.bout.json"))
        assert len(logs) == 1, output  # the one bout finished, in the run or on resume
        for name in ("verify", "replay"):
            code, output = arena(name, *map(str, logs))
            assert code == 0 and "Verified" in output, output
        store = Store(f"sqlite:///{home / 'arena.db'}")
        try:
            assert len(store.rows()) == 1 and store.paused() == []
        finally:
            store.close()
        envelope = json.loads(logs[0].read_bytes())
        log = _log(envelope)
        cap = log.header["caps"]["tool_calls"]
        assert all(len(t["data"]["calls"]) <= cap + 1 for t in log.of_type("model.turn"))
        assert len(log.of_type("tool")) <= cap
        return envelope


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@given(bout=bouts())
def test_no_hostile_model_crashes_a_run_or_a_resume(
    bout: tuple[list[list[Call]], list[bytes] | None, bool], monkeypatch: pytest.MonkeyPatch,
) -> None:
    play(monkeypatch, *bout)


@pytest.mark.parametrize("made", [[c] for c in RAW], ids=lambda m: m[0][0][:20].decode("latin-1")
                         + ":" + m[0][1][:30].decode("latin-1"))
def test_every_hostile_call_alone(made: list[Call], monkeypatch: pytest.MonkeyPatch) -> None:
    play(monkeypatch, [made], None, True)


def _log(envelope: Any) -> Any:
    return parse_log(base64.b64decode(envelope["payload"]))


def test_a_thousand_calls_in_one_turn_keep_to_the_tool_call_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: every call of the turn was logged, so 1,000 calls of 60 KB each made a signed log
    `arena verify` refuses; only the calls the cap lets run (and the one that passes it) are."""
    log = _log(play(monkeypatch, [[(b'"read_counter"', _string("{}"))] * 1000], None, False))
    (turn,) = log.of_type("model.turn")
    assert len(turn["data"]["calls"]) == 61 and turn["data"]["dropped"] == 939
    assert len(log.of_type("tool")) == 60 and log.of_type("cap.reached")[0]["data"]["cap"] == "tool_calls"
    assert log.result["stopped"] == "cap"


def test_megabytes_of_text_a_name_or_an_id_are_logged_cut_with_their_digest(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: a turn's text, tool names and call ids were logged whole, however large."""
    name, ident, text = "n" * 100_000, "i" * 10_000, "t" * 3_000_000
    made = [(_string(name), _string("{}"))]
    log = _log(play(monkeypatch, [made], [_string(ident)], True, content=_string(text)))
    turn = log.of_type("model.turn")[0]["data"]
    assert len(turn["text"]) <= 65_536 and hashlib.sha256(text.encode()).hexdigest() in turn["text"]
    call = turn["calls"][0]
    assert len(call["name"]) <= 1_024 and len(call["id"]) <= 1_024
    assert log.of_type("tool")[0]["data"]["name"] == call["name"]

