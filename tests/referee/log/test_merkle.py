"""RFC 6962 tree hashes against the transparency-dev test vectors."""

from __future__ import annotations

import pytest

from referee.log.merkle import leaf_bytes, merkle_root

LEAVES = [bytes.fromhex(h) for h in
          ("", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f")]
ROOTS = [
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]


@pytest.mark.parametrize("size", range(9))
def test_roots_match_the_rfc6962_vectors(size: int) -> None:
    assert merkle_root(LEAVES[:size]) == ROOTS[size]


def test_any_change_to_the_leaves_changes_the_root() -> None:
    leaves = [leaf_bytes(f"b-{i}", i, f"{i:064x}", f"{i + 1:064x}") for i in range(5)]
    root = merkle_root(leaves)
    assert merkle_root(leaves[:-1]) != root
    assert merkle_root([leaves[1], leaves[0], *leaves[2:]]) != root
    assert merkle_root([*leaves, leaves[-1]]) != root  # no odd-node duplication ambiguity
    assert merkle_root([leaf_bytes("b-0", 0, "0" * 64, "2" * 64), *leaves[1:]]) != root
