"""Names, text, numbers and paths from outside: each grammar takes what the arena writes and
refuses what would name a file of someone else's choosing; text is escaped for people and
made storable for databases; a path made from data stays in its folder, and no write goes
through a link the arena did not make. Real files, real links."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from referee.errors import UsageError
from referee.untrusted import (
    BOUT_ID,
    JOB_SLUG,
    MAX_SAFE_INTEGER,
    NAME,
    TRAP_ID,
    OutsideFolder,
    bounded_int,
    json_shown,
    path_under,
    shown,
    storable,
    write_under,
)

HOSTILE_IDS = ["x/../../../../tmp/PWNED", "../x", "/etc/passwd", "a\x00b", "", ".", "..", "b-1.log", "b 1",
               "b-\x1b]0;t\x07", "a" * 101, "-leading", "b-1\n"]


@pytest.mark.parametrize("value", ["b-0123456789abcdef", "b-1", "b-paused", "b_x-9"])
def test_a_bout_id_the_arena_writes_is_taken(value: str) -> None:
    assert BOUT_ID.check(value) == value


@pytest.mark.parametrize("value", [*HOSTILE_IDS, 7, None])
def test_a_bout_id_that_could_name_another_file_is_refused(value: object) -> None:
    with pytest.raises(UsageError, match="not a bout id"):
        BOUT_ID.check(value)


def test_names_trap_ids_and_job_slugs_have_their_own_grammar() -> None:
    assert NAME.ok("openai:gpt-4o-mini") and NAME.ok("python:examples.reader_agent:make_agent") and NAME.ok("s1")
    assert not NAME.ok("../s") and not NAME.ok("s\x1b[2J") and not NAME.ok("")
    assert TRAP_ID.ok("FA-PAY-001") and not TRAP_ID.ok("FA-PAY-001/../x")
    assert JOB_SLUG.ok("refund") and not JOB_SLUG.ok("Refund") and not JOB_SLUG.ok("../refund")


def test_control_characters_are_shown_escaped_and_nothing_else_changes() -> None:
    assert shown("ok: naïve €5") == "ok: naïve €5"
    assert shown("\x1b]0;PWNED\x07FAKE\rall verified\x9b2J\u202e") == (
        "\\x1b]0;PWNED\\x07FAKE\\x0dall verified\\x9b2J\\u202e")
    assert shown("two\nlines\tok", lines=True) == "two\nlines\tok"
    assert shown("two\nlines") == "two\\x0alines"
    assert shown("\ud800 lone") == "\\ud800 lone"
    assert shown("abcdef", 4) == "abc…"


def test_json_for_people_escapes_what_json_leaves_raw_and_still_parses_the_same() -> None:
    value = {"detail": "\x1b]0;t\x07 \x9b \u202e \ud83d end", "n": 1}
    out = json_shown(json.dumps(value, ensure_ascii=False))
    assert not any(c in out for c in "\x1b\x07\x9b\u202e\ud83d")
    assert json.loads(out) == value


def test_text_is_made_storable_on_every_backend_and_only_where_it_must_be() -> None:
    assert storable("plain ü") == "plain ü"
    assert storable("a\x00b\ud800c") == "a\ufffdb\ufffdc"
    storable("x").encode("utf-8")
    storable("\udfff").encode("utf-8")  # would raise UnicodeEncodeError unchanged


@pytest.mark.parametrize("value", [-1, 2**53, 2**63, 1.5, "5", True, None])
def test_a_number_from_outside_must_be_a_whole_number_in_bounds(value: object) -> None:
    with pytest.raises(UsageError, match="tokens must be a whole number"):
        bounded_int(value, "tokens")


def test_a_number_in_bounds_is_taken() -> None:
    assert bounded_int(0, "n") == 0 and bounded_int(MAX_SAFE_INTEGER, "n") == MAX_SAFE_INTEGER
    assert bounded_int(5, "n", 5, 5) == 5


@pytest.mark.parametrize("name", ["../x", "a/../../x", "/tmp/x", "", "a\x00b"])
def test_a_path_made_from_data_stays_in_its_folder(tmp_path: Path, name: str) -> None:
    with pytest.raises(OutsideFolder):
        path_under(tmp_path / "site", name)


def test_a_link_inside_the_folder_that_leads_out_is_refused(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "bouts").symlink_to(tmp_path)
    with pytest.raises(OutsideFolder):
        path_under(site, "bouts/../../x")
    assert path_under(site, "a/b.html") == site / "a" / "b.html"


def test_write_under_replaces_the_file_whole_and_leaves_no_temporary(tmp_path: Path) -> None:
    write_under(tmp_path, "a/b.html", b"one")
    write_under(tmp_path, "a/b.html", b"two", sync=True)
    assert (tmp_path / "a" / "b.html").read_bytes() == b"two"
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["b.html"]


def test_write_under_refuses_a_file_or_folder_that_is_a_link(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").symlink_to(victim)
    with pytest.raises(OutsideFolder, match="symbolic link"):
        write_under(site, "index.html", b"leaderboard")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (site / "logs").symlink_to(elsewhere)
    with pytest.raises(OutsideFolder):
        write_under(site, "logs/b-1.bout.json", b"{}")
    assert victim.read_text() == "keep me" and list(elsewhere.iterdir()) == []
    assert os.path.islink(site / "index.html")
