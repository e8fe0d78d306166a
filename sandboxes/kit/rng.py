"""Seeded randomness for worlds.

Every random choice a world makes comes from a generator derived here, one per
purpose, so adding a new draw for one purpose never shifts the draws of another
and the same (job, task version, seed) gives the same world in any process.
`hash()` of a str changes with PYTHONHASHSEED, so the seed is a SHA-256.
"""

from __future__ import annotations

import hashlib
import random

__all__ = ["rng_for"]


def rng_for(job: str, task_version: str, seed: int, purpose: str) -> random.Random:
    """A generator seeded by SHA-256 of ``job/task_version/seed/purpose``."""
    key = f"{job}/{task_version}/{seed}/{purpose}".encode()
    return random.Random(int.from_bytes(hashlib.sha256(key).digest(), "big"))
