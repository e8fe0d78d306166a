"""Models through the adapters play exactly as the scripted agents they stand in for.

A loopback server plays each job's oracle and springers as a "model" (see `fakes`);
the bout goes through real aiohttp, the provider's wire format, the tool-schema
translation and the conversation, and must end with the scripted agent's verdict.
"""

from __future__ import annotations

import asyncio
import os
import stat
import threading
from pathlib import Path

import pytest

import referee.agents.model as model_module
from catalog import load_catalog
from referee.bout.play import BoutRecord, BoutSpec, run_bout, run_bout_async
from referee.log.signing import ArenaKey, Keyring
from referee.log.verify import verify_bytes
from sandboxes import JOBS, get_job
from tests.referee.agents.conftest import options
from tests.referee.agents.fakes import FakeProvider

RULES = load_catalog().current_rules.version
"""Judged under the current rules, as a new bout is: the springers spring their traps under them."""


def _players() -> list[tuple[str, str]]:
    """(job, who) for every real job on Normal 1.0: the oracle and a springer per planted trap."""
    found = []
    for slug in sorted(JOBS):
        if slug == "toy":
            continue
        world = get_job(slug).build(1, "normal-1.0")
        found += [(slug, "oracle")] + [(slug, f"springer/{trap}") for trap in world.planted()]
        world.db.close()
    return found


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize(("job", "who"), _players())
def test_a_model_playing_a_policy_gets_the_policys_verdict(
    provider: str, job: str, who: str, fake: FakeProvider, key: ArenaKey, ring: Keyring,
) -> None:
    url = fake.openai_url if provider == "openai" else fake.anthropic_url
    model = run_bout(BoutSpec(f"{provider}:{job}/{who}", job, "normal-1.0", 1, 1, RULES), key,
                     options=options(url))
    scripted = run_bout(BoutSpec("scripted:" + who.replace("/", ":"), job, "normal-1.0", 1, 1, RULES), key)
    assert model.verdict == scripted.verdict
    assert (model.turns, model.tool_calls) == (scripted.turns, scripted.tool_calls)
    if who != "oracle":
        assert model.verdict.traps_sprung == [who.split("/")[1]]
    log = verify_bytes(model.envelope, ring).log
    assert log is not None and log.header["model"]["provider"] == provider


def test_a_model_bouts_working_log_is_on_disk_name_and_all(
    fake: FakeProvider, key: ArenaKey, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ADR 0005 for a model bout: its new file's folder is synced once, each turn (the header and
    tool events riding along, ADR 0040) and its result are synced, all by the sync thread."""
    synced: list[tuple[bool, str]] = []  # (a folder?, which thread)
    real = os.fsync

    def watched(fd: int) -> None:
        real(fd)
        synced.append((stat.S_ISDIR(os.fstat(fd).st_mode), threading.current_thread().name))

    monkeypatch.setattr(os, "fsync", watched)
    spec = BoutSpec("openai:refund/oracle", "refund", "normal-1.0", 1, 1, RULES)
    record = asyncio.run(run_bout_async(spec, key, options=options(fake.openai_url), work_dir=tmp_path / "work"))
    assert isinstance(record, BoutRecord) and record.verdict.passed
    assert [folder for folder, _ in synced].count(True) == 1
    assert len(synced) == 1 + record.turns + 1  # the folder, each turn, the result
    assert {thread for _, thread in synced} == {"arena-fsync"}


def test_a_folder_that_cannot_be_synced_fails_the_bout_and_still_gives_back_its_connection(
    key: ArenaKey, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The provider is down at the first request, so the bout pauses before any turn waited for
    its folder's fsync; that fsync fails: the error is the bout's, and its world and its
    provider session are closed all the same."""
    import socket

    from referee.log import groupsync

    async def failing(path: Path) -> None:
        raise OSError(5, "Input/output error")

    closed: list[str] = []
    real_close = model_module.ModelAgentBase.aclose

    async def watched(self: model_module.ModelAgentBase) -> None:
        closed.append(self.name)
        await real_close(self)

    monkeypatch.setattr(groupsync, "sync_folder", failing)
    monkeypatch.setattr(model_module.ModelAgentBase, "aclose", watched)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))  # bound, never listening: nothing answers
        url = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
        spec = BoutSpec("openai:refund/oracle", "refund", "normal-1.0", 1, 1, RULES)
        with pytest.raises(OSError, match="Input/output error"):
            asyncio.run(run_bout_async(spec, key, options=options(url), work_dir=tmp_path / "work"))
    assert closed == ["openai:refund/oracle"]
