"""RFC 6962 Merkle tree hash over a season's bout logs, in completion order.

Leaves are hashed as SHA-256(0x00 ‖ leaf) and nodes as SHA-256(0x01 ‖ left ‖ right),
so a leaf can never pass for a node; an odd node is carried up, never duplicated
(duplication is the CVE-2012-2459 ambiguity). Adding, dropping, reordering or
altering any bout changes the root.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from referee.canonical import canonical_bytes

__all__ = ["leaf_bytes", "merkle_root"]


def leaf_bytes(bout_id: str, leaf_index: int, log_sha256: str, envelope_sha256: str) -> bytes:
    """The canonical leaf for one bout (STANDARDS §7.6)."""
    return canonical_bytes({"bout_id": bout_id, "envelope_sha256": envelope_sha256, "leaf_index": leaf_index,
                            "log_sha256": log_sha256})


def merkle_root(leaves: Sequence[bytes]) -> str:
    """MTH(D[n]) as lowercase hex; the empty tree hashes the empty string."""
    if not leaves:
        return hashlib.sha256(b"").hexdigest()
    return _mth([hashlib.sha256(b"\x00" + leaf).digest() for leaf in leaves]).hex()


def _mth(hashes: list[bytes]) -> bytes:
    if len(hashes) == 1:
        return hashes[0]
    k = 1 << ((len(hashes) - 1).bit_length() - 1)  # the largest power of two below n
    return hashlib.sha256(b"\x01" + _mth(hashes[:k]) + _mth(hashes[k:])).digest()
