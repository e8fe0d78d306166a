"""Canonical JSON (RFC 8785) and the strict parser that guards it.

Everything the referee hashes or signs goes through ``canonical_bytes``, so two
honest runs produce the same bytes and any other spelling of the same value is a
change. ``rfc8785`` does the serialising; JCS is easy to get subtly wrong by hand
(UTF-16 key order, ECMAScript number formatting).

``strict_loads`` exists because ``json.loads`` is lenient in exactly the ways a
verifier cannot afford: it keeps the last of duplicate keys (two readers could see
two different logs), accepts NaN/Infinity, accepts integers JCS cannot represent,
and guesses UTF-16/32 when handed bytes.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from typing import Any

import orjson
import rfc8785

from referee.errors import LogCorrupt

__all__ = ["MAX_SAFE_INTEGER", "canonical_bytes", "canonical_loads", "digest", "is_canonical", "plain_bytes",
           "plain_dumps", "plain_loads", "same_json", "sanitize_text", "sha256_hex", "strict_loads"]

MAX_SAFE_INTEGER = 2**53 - 1
"""JCS numbers are IEEE doubles: past this, distinct integers share one spelling."""

_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_LONG_DIGITS = re.compile(rb"[0-9]{16}")


def _plain(obj: Any) -> bool:
    """Whether ``obj`` is in the subset where the stdlib's sorted, compact JSON *is* JCS:
    no floats (JCS formats numbers as ECMAScript does), integers within ±(2^53−1), and
    ASCII object keys (JCS sorts keys by UTF-16 code units, which agrees with Python's
    code-point order for ASCII). String escaping already agrees: both escape only
    quote, backslash and control characters, with the same short forms and lowercase hex.
    """
    stack = [obj]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str or kind is bool or item is None:
            continue
        if kind is int:
            if -MAX_SAFE_INTEGER <= item <= MAX_SAFE_INTEGER:
                continue
            return False
        if kind is dict:
            for key in item:
                if type(key) is not str or not key.isascii():
                    return False
            stack.extend(item.values())
        elif kind is list or kind is tuple:
            stack.extend(item)
        else:
            return False
    return True


def same_json(a: Any, b: Any) -> bool:
    """Whether two JSON values (parsed or built, never NaN) are the same JSON: ``==``, but a bool
    is never a number (Python holds ``1 == True`` and ``0 == False``) and an int never a float,
    at any depth. Replay holds a re-run call to its logged outcome with this, so an edit that
    swaps ``0`` for ``false`` is caught, not taken as equal.

    Written sorted and compact, equal JSON is equal bytes and unequal JSON unequal bytes; two
    writes by orjson cost what one ``==`` of the values did."""
    try:
        return orjson.dumps(a, option=_ORJSON) == orjson.dumps(b, option=_ORJSON)
    except orjson.JSONEncodeError:  # past 53 bits, nesting past 255, a key not text: walked
        return a == b and _same_walk(a, b)


def _same_walk(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return all(_same_walk(value, b[key]) for key, value in a.items())  # keys equal: `a == b` held
    if isinstance(a, list | tuple):
        return all(map(_same_walk, a, b))
    return True  # equal scalars of one type


def plain_bytes(obj: Any) -> bytes:
    """``obj``, which the caller knows is in the plain subset (see `_plain`), as its RFC 8785 bytes.

    There orjson's sorted, compact output is JCS byte for byte (tests compare it with
    ``rfc8785`` for every code point below U+E000 and on generated values), at a tenth of
    the stdlib encoder's cost (ADR 0032).

    Should it not be after all (a lone surrogate, an integer past 53 bits, a non-string key,
    nesting past 255 levels), orjson refuses it and `canonical_bytes` decides.
    """
    try:
        return orjson.dumps(obj, option=_ORJSON)
    except orjson.JSONEncodeError:
        return canonical_bytes(obj)


_ORJSON = orjson.OPT_SORT_KEYS | orjson.OPT_STRICT_INTEGER


def canonical_bytes(obj: Any) -> bytes:
    """Serialise ``obj`` as RFC 8785 bytes.

    Logs are mostly strings and integers, and ``rfc8785`` is pure Python, so values in
    the plain subset (see `_plain`) take orjson (`plain_bytes`); everything else, and
    every error, goes through ``rfc8785``. Tests check both paths agree.

    Raises:
        TypeError: a value JSON cannot hold (bytes, set, a non-string key...).
        ValueError: a value outside the I-JSON domain (NaN, 2**53, a lone surrogate).
    """
    try:
        if _plain(obj):
            return orjson.dumps(obj, option=_ORJSON)
    except orjson.JSONEncodeError:
        pass  # a lone surrogate or deep nesting: let rfc8785 say what is wrong
    try:
        out = bytes(rfc8785.dumps(obj))
    except (rfc8785.IntegerDomainError, rfc8785.FloatDomainError) as e:
        raise ValueError(f"cannot canonicalise: {e}; keep integers within ±(2^53−1), "
                         "put big values in strings and keep floats finite") from e
    except rfc8785.CanonicalizationError as e:
        if "non-UTF-8" in str(e):
            raise ValueError("cannot canonicalise: a string holds a lone surrogate; "
                             "pass model output through sanitize_text first") from e
        raise TypeError(f"cannot canonicalise: {e}; only dict (str keys), list, str, int, "
                        "bool, None and finite float are JSON") from e
    except RecursionError:
        raise ValueError("cannot canonicalise: value is nested too deeply") from None
    if _LONG_DIGITS.search(out):  # rare (long digit strings), so the walk is too
        _check_float_spellings(obj)
    return out


class _NotPlain(ValueError):
    """Outside what the fast reader may vouch for (a float orjson spells unlike JCS, an integer
    beyond ±(2^53−1), a key out of order, a character at or above U+E000), so the strict path
    decides."""


_HIGH = bytes(1 if b >= 0xEE else 0 for b in range(256))
"""Marks the bytes that start a UTF-8 character at or above U+E000, where UTF-16 order parts
from code point order."""

_INTEGRAL = re.compile(rb"\.0[,\]}]")
"""``.0`` then the end of a value: how orjson ends an integral float (``1.0``). `re` scans for a
pattern's literal start in a tight C loop, and ``.`` is rare in a log: this and `_EXPONENT` take
half the time of the translate and three substring scans they replaced (ADR 0028)."""
_EXPONENT = re.compile(rb"e[+-][0-9]")
"""How orjson spells an exponent (``1e+16``, ``1e-7``): always signed, always followed by digits."""
_ORJSON_FLOATS = orjson.dumps([1.0, -0.0, 1e16, 1e-7, 1e21, 0.5, 123.25]) == b"[1.0,-0.0,1e+16,1e-7,1e+21,0.5,123.25]"
"""orjson spells floats as the screen below expects; with any other orjson every value is walked."""


def _may_differ_from_jcs(data: bytes) -> bool:
    """Whether ``data``, read as orjson's own output, may hold a float that orjson spells unlike
    JCS: one with an exponent (orjson ``1e+16``, ``1e-6``, where JCS writes ``10000000000000000``,
    ``0.000001``) or an integral one (``1.0``, JCS ``1``). Every other float orjson writes, shortest
    round-trip digits in plain decimal, is JCS's spelling too (a test checks it on many floats), so
    a log holding ``0.5`` needs no walk. The bytes are screened without telling strings apart: a
    hit inside a string ("v2.0, out", "9e-3", "x1.0}") only means the value is walked as before.
    """
    return (_INTEGRAL.search(data) is not None or data.endswith(b".0")
            or _EXPONENT.search(data) is not None)


def _has_float(value: Any) -> bool:
    """Whether a value orjson read holds a float anywhere."""
    stack = [value]
    for item in stack:  # the list grows as containers are met; no recursion limit
        kind = item.__class__
        if kind is dict:
            stack += item.values()
        elif kind is list:
            stack += item
        elif kind is float:
            return True
    return False


def plain_loads(data: bytes) -> Any:
    """Parse ``data`` with orjson (compiled, several times the stdlib's speed) when it may be in
    the plain subset; the value is trusted as what `strict_loads` reads only once `plain_dumps`
    of it gives back exactly ``data`` (or, for a document read in parts, each part's bytes).

    Raises:
        ValueError: not JSON, NaN/Infinity, a character at or above U+E000, a float orjson may
            spell unlike JCS, nesting too deep: the strict path decides.
    """
    if not data.isascii() and b"\x01" in data.translate(_HIGH):
        raise _NotPlain("a character at or above U+E000")
    value = orjson.loads(data)
    if (not _ORJSON_FLOATS or _may_differ_from_jcs(data)) and _has_float(value):
        raise _NotPlain("a float")
    return value


def plain_dumps(value: Any) -> bytes | None:
    """``canonical_bytes(value)`` for a value `plain_loads` returned, or None when it cannot be
    serialised and the strict path must say why.

    Why ``plain_dumps(plain_loads(data)) == data`` may be trusted as "``data`` is canonical
    and ``strict_loads(data)`` is this value", without re-encoding through ``rfc8785``:
    equal bytes are orjson's sorted, compact output, so ``data`` has no whitespace, no other
    spelling of a number or a string, and one member per key (orjson keeps one of duplicate
    keys, and would write one). `plain_loads` found no float that orjson spells unlike JCS,
    and orjson refuses to write an integer beyond ±(2^53−1). Keys come out in code-point
    order, which is JCS's UTF-16 order below U+E000 (`plain_loads` found nothing above), and
    strings are escaped as JCS does (a test checks every code point). A lone surrogate cannot
    come from UTF-8, and orjson refuses an escaped one.
    """
    try:
        return orjson.dumps(value, option=_ORJSON)
    except orjson.JSONEncodeError:
        return None


def _check_float_spellings(obj: Any) -> None:
    # JCS writes an integral double below 1e21 as a bare integer; from 2**53 up that
    # integer is one strict_loads refuses, so the log would read back as corrupt.
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, float):
            if item.is_integer() and 2**53 <= abs(item) < 1e21:
                raise ValueError(f"cannot canonicalise: float {item!r} would be written as an "
                                 "integer beyond ±(2^53−1); store it as a string")
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def digest(obj: Any) -> str:
    """SHA-256 of the canonical bytes: equal values always give equal digests."""
    return sha256_hex(canonical_bytes(obj))


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise LogCorrupt(f"duplicate key {key[:60]!r} in JSON object")
            seen.add(key)
    return obj


def _no_constant(name: str) -> Any:
    raise LogCorrupt(f"{name} is not JSON")


def _safe_int(text: str) -> int:
    # Length first, so a million-digit number costs nothing to reject.
    if len(text.lstrip("-")) <= 16 and abs(value := int(text)) <= MAX_SAFE_INTEGER:
        return value
    raise LogCorrupt(f"integer {text[:24]} is beyond ±(2^53−1)")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise LogCorrupt(f"number {text[:24]} is too large for a double")
    return value


def _check_surrogates(value: Any) -> None:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                raise LogCorrupt("string holds a lone surrogate escape")
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def strict_loads(data: bytes) -> Any:
    """Parse JSON bytes, refusing anything two readers could disagree on.

    Raises:
        LogCorrupt: invalid UTF-8 or JSON, duplicate keys, NaN/Infinity, integers
            beyond ±(2^53−1), non-finite numbers, lone surrogate escapes.
    """
    try:
        text = bytes(data).decode("utf-8")
    except UnicodeDecodeError as e:
        raise LogCorrupt(f"invalid UTF-8 at byte {e.start}") from None
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant,
                           parse_int=_safe_int, parse_float=_finite_float)
    except json.JSONDecodeError as e:
        raise LogCorrupt(f"not JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    except RecursionError:
        raise LogCorrupt("JSON is nested too deeply") from None
    # Decoded UTF-8 cannot hold surrogates, so only a \uD8xx-style escape can make one.
    if _SURROGATE_ESCAPE.search(text):
        _check_surrogates(value)
    return value


def canonical_loads(data: bytes) -> Any:
    """`strict_loads`, read by orjson when ``data`` is canonical in the plain subset (as what the
    referee signs is): `plain_dumps` of the value giving back ``data`` proves it is the value
    `strict_loads` would read. Anything else is read by `strict_loads`, which says what is wrong.

    Raises:
        LogCorrupt: as `strict_loads`.
    """
    try:
        value = plain_loads(data)
    except ValueError:
        return strict_loads(data)
    return value if plain_dumps(value) == data else strict_loads(data)


def is_canonical(data: bytes) -> bool:
    """True when ``data`` is exactly the RFC 8785 form of what it encodes."""
    try:
        return canonical_bytes(strict_loads(data)) == data
    except (ValueError, TypeError):
        return False


def sanitize_text(s: str) -> str:
    """Make model output canonicalisable: lone surrogates become U+FFFD.

    Decoders (``surrogateescape``, JSON ``\\ud800``) can hand us strings JCS must
    refuse; a stray half of an emoji must not cost a bout its log. A pair stored
    as two code points is joined into the character it spells.
    """
    if not _SURROGATE.search(s):
        return s
    return s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
