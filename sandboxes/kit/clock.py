"""The world's own time.

Sandbox logic never reads the host clock: a world starts at a moment fixed by its
seed and moves only when a tool moves it, so the same calls give the same times.
Zones come from the `tzdata` package, not the host's zone files, so a host with
old or missing zone data builds the same world.
"""

from __future__ import annotations

import functools
from datetime import datetime, timedelta
from importlib import resources
from zoneinfo import ZoneInfo

__all__ = ["VirtualClock", "zone"]


@functools.cache
def zone(name: str) -> ZoneInfo:
    """The IANA zone ``name`` read from the tzdata package.

    Raises:
        KeyError: the zone is not in tzdata.
    """
    parts = name.split("/")
    if not name or any(p in ("", ".", "..") for p in parts):
        raise KeyError(name)
    path = resources.files("tzdata.zoneinfo").joinpath(*parts)
    if not path.is_file():
        raise KeyError(name)
    with path.open("rb") as fh:
        return ZoneInfo.from_file(fh, key=name)


class VirtualClock:
    """A clock that starts at a given aware moment and moves only when told."""

    def __init__(self, start: datetime) -> None:
        if start.tzinfo is None or start.utcoffset() is None:
            raise ValueError("a virtual clock needs an aware start time")
        self._now = start

    def now(self) -> datetime:
        """The current moment of the world (aware)."""
        return self._now

    def local(self, zone_name: str) -> datetime:
        """The current moment in an IANA zone."""
        return self._now.astimezone(zone(zone_name))

    def advance(self, delta: timedelta) -> None:
        """Move the world's time forward; time never runs backwards."""
        if delta < timedelta(0):
            raise ValueError("a virtual clock never runs backwards")
        self._now += delta
