"""RFC 8785 vectors, the strict reader's refusals, and round trips."""

from __future__ import annotations

import hashlib
import math
import re
from pathlib import Path
from typing import Any

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.canonical import (
    MAX_SAFE_INTEGER,
    canonical_bytes,
    canonical_loads,
    digest,
    is_canonical,
    same_json,
    sanitize_text,
    sha256_hex,
    strict_loads,
)
from referee.errors import LogCorrupt

VECTORS = Path(__file__).resolve().parents[1] / "vectors"
JCS_NAMES = ["arrays", "french", "structures", "unicode", "values", "weird"]


def test_all_jcs_vectors_are_present() -> None:
    assert sorted(p.stem for p in (VECTORS / "jcs" / "input").glob("*.json")) == JCS_NAMES


@pytest.mark.parametrize("name", JCS_NAMES)
def test_jcs_vector(name: str) -> None:
    value = strict_loads((VECTORS / "jcs" / "input" / f"{name}.json").read_bytes())
    expected = (VECTORS / "jcs" / "output" / f"{name}.json").read_bytes()
    assert canonical_bytes(value) == expected
    assert canonical_bytes(value) == bytes.fromhex((VECTORS / "jcs" / "outhex" / f"{name}.txt").read_text())
    assert is_canonical(expected)


def test_digest_is_sha256_of_canonical_bytes() -> None:
    assert canonical_bytes({"b": 1, "a": [True, None, "é"]}) == '{"a":[true,null,"é"],"b":1}'.encode()
    assert digest({"b": 1, "a": [True, None, "é"]}) == hashlib.sha256(
        '{"a":[true,null,"é"],"b":1}'.encode()).hexdigest()
    assert sha256_hex(b"") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


@pytest.mark.parametrize("value", [{1, 2}, b"bytes", {1: "int key"}, object()])
def test_canonical_bytes_refuses_non_json_types(value: Any) -> None:
    with pytest.raises(TypeError, match="cannot canonicalise"):
        canonical_bytes(value)


@pytest.mark.parametrize("value", [2**53, -(2**53), math.nan, math.inf, 2.0**53, -1e20])
def test_canonical_bytes_refuses_values_outside_i_json(value: Any) -> None:
    with pytest.raises(ValueError, match="cannot canonicalise"):
        canonical_bytes({"n": value})


def test_big_floats_keep_a_spelling_the_strict_reader_accepts() -> None:
    assert canonical_bytes([1e21, 2.0**53 - 1, 4.5, "4111111111111111"]) == (
        b'[1e+21,9007199254740991,4.5,"4111111111111111"]')


def test_canonical_bytes_points_at_sanitize_text_for_lone_surrogates() -> None:
    with pytest.raises(ValueError, match="sanitize_text"):
        canonical_bytes(["ok", "half an emoji \ud83d"])


@pytest.mark.parametrize("data, why", [
    (b'{"a":1,"a":2}', "duplicate key"),
    (b'[{"x":{"a":1,"b":2,"a":3}}]', "duplicate key"),
    (b"NaN", "NaN"),
    (b'{"n":Infinity}', "Infinity"),
    (b"[-Infinity]", "Infinity"),
    (str(2**53).encode(), "beyond"),
    (str(-(2**53)).encode(), "beyond"),
    (b"1" * 100_000, "beyond"),
    (b"1e400", "too large"),
    (b'"\xff"', "UTF-8"),
    (b'"\xed\xa0\x80"', "UTF-8"),  # an encoded surrogate is not UTF-8
    ('"ok"'.encode("utf-16"), "UTF-8"),  # json.loads(bytes) would guess UTF-16
    (b'"\\ud800"', "surrogate"),
    (b'{"\\uDC00":1}', "surrogate"),
    (b'{"a":', "not JSON"),
    (b"[1] [2]", "not JSON"),
    (b"[" * 100_000, "nested"),
])
def test_strict_loads_refuses(data: bytes, why: str) -> None:
    with pytest.raises(LogCorrupt, match=why):
        strict_loads(data)


def test_strict_loads_accepts_the_edges_of_the_domain() -> None:
    assert strict_loads(str(MAX_SAFE_INTEGER).encode()) == 2**53 - 1
    assert strict_loads(str(-MAX_SAFE_INTEGER).encode()) == -(2**53 - 1)
    assert strict_loads(b'"\\ud83d\\ude02"') == "\U0001f602"
    assert strict_loads(b"[0.5,1e300]") == [0.5, 1e300]


@pytest.mark.parametrize("data", [b'{"a":1, "b":2}', b'{"b":1,"a":2}', b"1.0", b'"\\u0041"', b"[1]\n", b"{"])
def test_is_canonical_rejects_other_spellings(data: bytes) -> None:
    assert not is_canonical(data)


def test_sanitize_text() -> None:
    assert sanitize_text("plain ✓") == "plain ✓"
    assert sanitize_text("a\ud800b\udc80") == "a\ufffdb\ufffd"
    assert sanitize_text("\ud83d\ude02") == "\U0001f602"  # a pair held as two code points
    assert canonical_bytes(sanitize_text("x\ud83d")) == '"x\ufffd"'.encode()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER) | st.text()
    | st.floats(allow_nan=False, allow_infinity=False).filter(  # canonical_bytes refuses the rest
        lambda f: not (f.is_integer() and 2**53 <= abs(f) < 1e21)),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(), children, max_size=5),
    max_leaves=30,
)


@given(json_values)
def test_canonical_round_trip(value: Any) -> None:
    once = canonical_bytes(value)
    assert canonical_bytes(strict_loads(once)) == once
    assert is_canonical(once)


# st.text() never yields surrogates, so build the strings from characters directly.
@given(st.lists(st.characters() | st.characters(categories=["Cs"])).map("".join))
def test_sanitized_text_always_canonicalises(text: str) -> None:
    assert strict_loads(canonical_bytes(sanitize_text(text))) == sanitize_text(text)


def _trees(leaves: st.SearchStrategy[Any], *, width: int, key_size: int, max_leaves: int) -> st.SearchStrategy[Any]:
    """JSON arrays and objects (ASCII keys) nested over ``leaves``."""
    return st.recursive(leaves, lambda children: st.lists(children, max_size=width)
                        | st.dictionaries(st.text(st.characters(max_codepoint=127), max_size=key_size), children,
                                          max_size=width), max_leaves=max_leaves)


_plain_values = _trees(
    st.none() | st.booleans() | st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1)
    | st.text(st.characters(blacklist_categories=("Cs",))),
    width=5, key_size=8, max_leaves=30,
)


@settings(max_examples=400, deadline=None)
@given(_plain_values)
def test_fast_path_agrees_with_rfc8785_byte_for_byte(value: object) -> None:
    from referee.canonical import _plain

    assert _plain(value)
    assert canonical_bytes(value) == rfc8785.dumps(value)


def test_values_outside_the_plain_subset_go_through_rfc8785() -> None:
    from referee.canonical import _plain

    for value in ({"é": 1}, {"a": 1.5}, [2**53], {1: "a"}, b"x"):
        assert not _plain(value)
    assert canonical_bytes({"\U0001f600": 1, "\ufb33": 2}) == rfc8785.dumps({"\U0001f600": 1, "\ufb33": 2})
    assert canonical_bytes([1.0, 0.1, -0.0, 1e21]) == b"[1,0.1,0,1e+21]"


def _plain_read(data: bytes) -> tuple[bool, Any]:
    """What the canonical reader's fast path makes of ``data``: (accepted, value)."""
    from referee.canonical import plain_dumps, plain_loads

    try:
        value = plain_loads(data)
    except ValueError:
        return False, None
    return plain_dumps(value) == data, value


def _strict_read(data: bytes) -> tuple[bool, Any]:
    try:
        value = strict_loads(data)
        return canonical_bytes(value) == data, value
    except (LogCorrupt, ValueError, TypeError):
        return False, None


_SPELLINGS = [
    b'{"a":1,"a":1}', b'{"a":1,"a":2}', b"NaN", b"[Infinity]", b"[-Infinity]", b"[1.5]", b"[1e3]", b"[-0]",
    b"[9007199254740992]", b"[9007199254740991]", b"[123456789012345]", b"[-12345678901234]", b"[0123]",
    b'["\\ud800"]', b'{"\\ud800":1}', b'["\\ud83d\\ude02"]', '["\U0001f602"]'.encode(), b'["\\u0041"]',
    b'["\\/"]', b'["\\u001f"]', b'["\\u001F"]', b'["\x1f"]', b'["\\n"]', b'["\\u000a"]', b"[1 ]", b" [1]",
    b"[true,false,null]", b"[True]", '{"é":1,"z":2}'.encode(), '{"z":1,"é":2}'.encode(),
    '{"\U0001f600":1,"\ufb33":2}'.encode(), '{"\ufb33":2,"\U0001f600":1}'.encode(), b'"\xff"',
    b'"\xed\xa0\x80"', '["\u2028"]'.encode(), b'["\x7f"]', b"[" * 50_000, b"[[]]", b"{}", b'"x"', b"",
    b'{"b":1,"a":2}', b'{"a":{"d":1,"c":2}}', b'{"a":[{"b":1,"a":1}]}', b"[-9007199254740992]", b"[-9007199254740991]",
    b'["\\b\\f"]', b'["\\u0008"]', b"[1E3]", b"[1.0]", b"[-0.0]", b"[1e+16]", b'{"a" :1}', b'{"a":1} ',
    b"\xef\xbb\xbf{}",
    b'{"a":1,"b":{"a":1,"a":2}}', b'[1,"\\u00e9"]', b'["\\ud83d\\ude02"]', b'{"\\u0061":1}',
    # a float orjson spells differently from JCS, after each thing a value can follow in compact JSON
    b"1.0", b"[true,1.0]", b"[false,1e16]", b"[null,1.0]", b"[[],1.0]", b"[{},-1.0]", b'["a",1.0]', b"[1,1.0]",
    b'{"a":1.0}', b'{"a":[1e16]}', b'{"a":"00:00.5","b":1.0}', b'{"a":"x","b":[2,3.0]}',
    # floats orjson and JCS spell alike, and others beside text that looks like them
    b"[0.5]", b"[123.25]", b"[1.5e-7]", b"[1e-7]", b"[1e+21]", b'{"a":"v1.0,","b":0.5}', b'{"a":"9e-3","b":1e-6}',
    b"[-0.0]", b"0.5", b'{"a":0.1,"b":[1.0]}',
]


@pytest.mark.parametrize("data", _SPELLINGS)
def test_the_fast_reader_accepts_only_what_the_strict_reader_calls_canonical(data: bytes) -> None:
    fast_ok, fast_value = _plain_read(data)
    strict_ok, strict_value = _strict_read(data)
    if fast_ok:
        assert strict_ok and strict_value == fast_value and type(strict_value) is type(fast_value)


@pytest.mark.parametrize("data", _SPELLINGS)
def test_canonical_loads_reads_as_strict_loads_reads(data: bytes) -> None:
    try:
        strict: Any = strict_loads(data)
    except LogCorrupt as err:
        with pytest.raises(LogCorrupt, match=re.escape(str(err))):
            canonical_loads(data)
        return
    value = canonical_loads(data)
    assert value == strict and type(value) is type(strict)
    assert not isinstance(value, float) or math.copysign(1, value) == math.copysign(1, strict)


def test_the_fast_reader_takes_the_common_case() -> None:
    assert _plain_read(b'{"a":[1,-2,"\\n",true,null],"b":"\xc3\xa9"}') == (True, {"a": [1, -2, "\n", True, None],
                                                                                 "b": "é"})
    assert _plain_read(b"[9007199254740991,-9007199254740991]")[0]
    for data in (b"[1.0]", b"[1e+16]", b'{"a":1,"a":1}', b"[9007199254740992]", '{"\ufb33":2}'.encode(),
                 b'{"b":1,"a":2}'):
        assert not _plain_read(data)[0]  # the strict path decides these
    assert _plain_read(b'{"a":[0.5,-123.25]}') == (True, {"a": [0.5, -123.25]})  # JCS spells these as orjson does


def test_every_float_orjson_spells_without_an_exponent_or_a_trailing_zero_is_spelled_as_jcs_spells_it() -> None:
    """What lets the fast reader skip its walk for floats unless the bytes show an exponent or ``.0``."""
    import random
    import struct

    import orjson

    from referee.canonical import _may_differ_from_jcs

    rng = random.Random(17)
    floats = [struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0] for _ in range(40_000)]
    floats += [sign * m * 10.0**e for e in range(-25, 25) for m in (1, 1.5, 9.99, 1.2345678901234567)
               for sign in (1, -1)]
    floats += [rng.uniform(-1e6, 1e6) for _ in range(20_000)]
    floats += [round(rng.uniform(-1e4, 1e4), rng.randint(0, 6)) for _ in range(20_000)]
    screened = 0
    for x in filter(math.isfinite, floats):
        spelled = orjson.dumps(x)
        places = (spelled, b"[%b]" % spelled, b"[%b,1]" % spelled, b'{"a":%b}' % spelled,
                  b'{"a":[%b],"b":"x"}' % spelled)
        flagged = {_may_differ_from_jcs(place) for place in places}
        assert len(flagged) == 1, spelled  # wherever the number stands
        if b"e" in spelled or spelled.endswith(b".0"):
            assert flagged == {True}, spelled  # never missed
        else:
            assert flagged == {False} and spelled == rfc8785.dumps(x), x
            screened += 1
    assert screened > 30_000  # most floats pass the screen, so the check above is not empty


_with_floats = _trees(
    st.floats(allow_nan=False, allow_infinity=False) | st.integers(-10**6, 10**6) | st.text(max_size=6)
    | st.sampled_from([0.5, 1.0, -0.0, 1e16, 1e-7, 2.5e-6, "1.0,", "9e-3"]),
    width=4, key_size=4, max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(_with_floats)
def test_the_fast_reader_agrees_with_the_strict_one_on_values_holding_floats(value: Any) -> None:
    import orjson

    for data in (orjson.dumps(value, option=orjson.OPT_SORT_KEYS), rfc8785.dumps(value)):
        fast_ok, fast_value = _plain_read(data)
        strict_ok, strict_value = _strict_read(data)
        if fast_ok:
            assert strict_ok and strict_value == fast_value


@settings(max_examples=400, deadline=None)
@given(json_values)
def test_the_fast_reader_agrees_on_every_canonical_value(value: Any) -> None:
    once = canonical_bytes(value)
    fast_ok, fast_value = _plain_read(once)
    if fast_ok:
        assert fast_value == value
        assert strict_loads(once) == fast_value


def test_the_fast_writer_escapes_every_character_below_u_e000_as_jcs_does() -> None:
    """`plain_dumps` (orjson) and RFC 8785 spell every string the fast reader can meet alike:
    one string holding each code point below U+E000 but the surrogates, and each alone."""
    from referee.canonical import plain_dumps

    chars = [chr(c) for c in range(0xE000) if not 0xD800 <= c < 0xE000]
    assert plain_dumps("".join(chars)) == rfc8785.dumps("".join(chars))
    for c in chars[:0x100]:
        assert plain_dumps({c: [c, 1, -1, True, None, {}]}) == rfc8785.dumps({c: [c, 1, -1, True, None, {}]})


def test_the_plain_encoder_spells_every_code_point_as_jcs_does() -> None:
    """orjson (`plain_bytes`, and `canonical_bytes`' fast path) and RFC 8785 agree on every
    code point a plain value can hold: all of Unicode but the lone surrogates, in one string and
    each beside the edges of the integer range, with keys sorted at every level."""
    from referee.canonical import plain_bytes

    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000]
    assert plain_bytes("".join(chars)) == rfc8785.dumps("".join(chars))
    for c in chars[:0x3000]:
        value = {"z": [c, 2**53 - 1, -(2**53) + 1, True, None, {}], "a": {"y": c, "b": []}}
        assert plain_bytes(value) == rfc8785.dumps(value) == canonical_bytes(value)


def test_plain_bytes_given_a_value_outside_the_subset_refuses_as_canonical_bytes_does() -> None:
    from referee.canonical import plain_bytes

    with pytest.raises(ValueError, match="integers within"):
        plain_bytes({"a": [2**53]})
    with pytest.raises(ValueError, match="lone surrogate"):
        plain_bytes({"a": "\ud800"})


@pytest.mark.parametrize(("a", "b", "same"), [
    ({"v": 0}, {"v": False}, False),
    ([1, [True]], [1, [1]], False),
    ({"n": 1}, {"n": 1.0}, False),
    ({"a": 1, "b": [None, "x"]}, {"b": [None, "x"], "a": 1}, True),  # key order is not JSON's business
    ({"a": 2**70}, {"a": 2**70}, True),  # past what orjson writes: walked instead
    ({"a": [2**70, 1]}, {"a": [2**70, True]}, False),
    ({"a": 1}, {"a": 2}, False),
    ([], {}, False),
])
def test_same_json_is_equality_without_pythons_bool_and_float_aliases(a: Any, b: Any, same: bool) -> None:
    assert same_json(a, b) is same and same_json(b, a) is same
